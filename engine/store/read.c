/*
 * The read path: partitions by key or by token range, clustering slices
 * forward or reversed, limits overall and per partition, DISTINCT, static
 * rows, and paging — each one LMDB read transaction, so a read sees one
 * consistent snapshot and never waits for a writer.
 *
 * Every slice is one cursor walk over the half-open byte range [L, H) of
 * row keys (rowkey.h): keys sort in storage order, so a slice in
 * clustering order is either a forward or a backward walk. Tombstones are
 * applied here: the partition header (partition deletion, range
 * tombstones) covers rows lazily, so what a delete shadowed is never
 * returned even before purge removes it (facts §4.1).
 *
 * Cells of columns that no longer exist (dropped) are invisible: a row
 * whose only live data belongs to dropped columns is not returned.
 *
 * Paging: the resume position is the last returned row's key (plus the
 * number of rows already returned from its partition, for PER PARTITION
 * LIMIT); a resumed read continues strictly after it.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "engine/store/store_int.h"
#include "engine/store/fault.h"
#include "engine/store/keycodec.h"
#include "engine/store/rowkey.h"
#include "engine/value/token.h"

#define RESUME_VERSION 1

typedef struct range {
    eng_buf lo; /* inclusive lower bound of keys */
    eng_buf hi; /* exclusive upper bound; hi_inf = no bound */
    int hi_inf;
} range;

/* Clustering values of the current row, decoded only when asked for. */
struct eng_ck_lazy {
    const eng_table *t;
    const uint8_t *key; /* stored clustering key bytes */
    size_t len;
    int decoded;
    eng_val vals[ENG_MAX_KEY_COLUMNS];
    eng_buf buf;
};

/*
 * One read's state. Readers are pooled per database (with their buffers,
 * arenas and cursor), so a read allocates nothing once warm.
 */
typedef struct reader {
    eng_db *db;
    MDB_txn *txn;
    MDB_cursor *cur;
    MDB_dbi cur_dbi;       /* the pooled cursor's sub-database */
    const eng_vrows *vrows;/* a virtual table's rows, walked instead of the cursor (or NULL) */
    size_t vpos;           /* the position in vrows (vrows->n: none) */
    const eng_table *t;
    const eng_query *q;
    eng_row_cb cb;
    void *ctx;
    int64_t now_s;
    eng_err *err;
    int forward;           /* walk direction in storage order */
    /* the current partition */
    eng_buf prefix;
    const eng_val *pk;
    eng_val pk_vals[ENG_MAX_KEY_COLUMNS];
    eng_buf pk_bytes;
    eng_pheader header;
    eng_arena header_arena;
    eng_row static_row;
    int has_static_row;
    int static_live;
    eng_arena static_arena;
    uint32_t in_partition;
    /* per row */
    eng_arena row_arena;
    eng_ck_lazy lazy;
    eng_deletion view_covering; /* the current view's covering deletion */
    const eng_plain_row *plain; /* the current row read in its plain form, or NULL */
    eng_plain_row plain_row;
    /* per projected column: the id of a regular simple column (read from a plain row's
       cells), or PROJECT_VIEW (read through the view); set by reader_start */
    uint32_t project_id[UINT8_MAX + 1];
    eng_val null_ck[ENG_MAX_KEY_COLUMNS];
    /* results */
    uint32_t returned;
    int peeking;           /* the page is full: the next row only tells there is more */
    int done;
    eng_read_info *info;
    const uint8_t *last_key; /* key of the last row returned (in the map, or in last_buf) */
    size_t last_len;
    eng_buf last_buf;
    uint32_t last_in_partition;
    range rg;
    eng_buf tmp, lo, hi;
    const uint8_t *at_key; /* the cursor's key after the last cur_get (NULL: unknown) */
    size_t at_len;
    eng_schema *schema;    /* the read transaction's snapshot, a reference kept from read to
                              read (eng_db_schema_hold) */
    const uint8_t *map_lo, *map_end; /* the file's mapped bytes as last measured */
    eng_fault_frame *fault; /* the read's fault frame (read_in_txn) */
    uint64_t prefix_seal;   /* eng_storage_prefix_seal of the current partition's prefix */
    int restart;           /* the schema moved: read again */
} reader;

static int nomem(reader *r) { return eng_errorf(r->err, ENG_E_NOMEM, "out of memory in a read"); }

/* Byte-string order (a proper prefix sorts first), as LMDB orders keys. */
static int key_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

/* ---- liveness with dropped columns ignored ---- */

static int column_exists(const eng_table *t, uint32_t id) { return eng_table_column_by_id(t, id) != NULL; }

static eng_deletion complex_del(const eng_row *row, uint32_t col)
{
    for (uint32_t i = 0; i < row->n_cdels; i++)
        if (row->cdels[i].col == col)
            return row->cdels[i].del;
    return (eng_deletion){ENG_TS_NONE, 0};
}

/* Live and not shadowed by the row, complex or covering deletion. */
static int cell_visible(const eng_row *row, const eng_cell *c, const eng_deletion *covering,
                        int64_t now_s)
{
    if (!eng_cell_is_live(c, now_s) || eng_deletion_deletes(covering, c->ts_us) ||
        eng_deletion_deletes(&row->deletion, c->ts_us))
        return 0;
    if (c->path.len >= 0) {
        eng_deletion cd = complex_del(row, c->col);
        if (eng_deletion_deletes(&cd, c->ts_us))
            return 0;
    }
    return 1;
}

int eng_row_live(const eng_table *t, const eng_row *row, const eng_deletion *covering,
                 int64_t now_s)
{
    const eng_liveness *m = &row->marker;
    if (m->ts_us != ENG_TS_NONE && eng_liveness_is_live(m, now_s) &&
        !eng_deletion_deletes(covering, m->ts_us) && !eng_deletion_deletes(&row->deletion, m->ts_us))
        return 1;
    for (uint32_t i = 0; i < row->n_cells; i++)
        if (column_exists(t, row->cells[i].col) &&
            cell_visible(row, &row->cells[i], covering, now_s))
            return 1;
    return 0;
}

/* ---- column values of a row view ---- */

/* The simple cell of column col. Rows have few cells: a forward scan beats bisection. */
static const eng_cell *find_simple(const eng_row *row, uint32_t col)
{
    for (uint32_t i = 0; i < row->n_cells; i++) {
        const eng_cell *c = &row->cells[i];
        if (c->col == col)
            return c->path.len < 0 ? c : NULL; /* a simple cell sorts first in its column */
        if (c->col > col)
            break;
    }
    return NULL;
}

/* Non-frozen collection or UDT (stored as one cell per element). */
static int multicell(const eng_type *t)
{
    return !t->frozen && (t->kind == ENG_LIST || t->kind == ENG_SET || t->kind == ENG_MAP ||
                          t->kind == ENG_UDT);
}

/* Assembles the live elements of a multi-cell column into its native serialization. */
static int assemble(const eng_row_view *v, const eng_row *row, const eng_column *c,
                    const eng_deletion *covering, eng_val *out, eng_err *err)
{
    const eng_type *ty = c->type;
    eng_buf b = ENG_BUF_INIT;
    int32_t n = 0;
    int rc = 0;
    if (ty->kind != ENG_UDT)
        eng_buf_put_be32(&b, 0); /* count, patched below */
    uint16_t next_field = 0;
    for (uint32_t i = 0; i < row->n_cells && !rc; i++) {
        const eng_cell *x = &row->cells[i];
        if (x->col != c->id || x->path.len < 0 || !cell_visible(row, x, covering, v->now_s))
            continue;
        const uint8_t *pp = x->path.p, *pe = pp + x->path.len;
        switch (ty->kind) {
        case ENG_LIST:
            eng_buf_put_bytes(&b, x->value.p, x->value.len);
            break;
        case ENG_SET:
        case ENG_MAP: {
            size_t at = b.len;
            eng_buf_put_be32(&b, 0);
            rc = eng_key_get(ty->sub[0], &pp, pe, 0, &b, err);
            if (!rc && !b.oom)
                eng_put_be32(b.p + at, (uint32_t)(b.len - at - 4));
            if (ty->kind == ENG_MAP)
                eng_buf_put_bytes(&b, x->value.p, x->value.len);
            break;
        }
        case ENG_UDT: {
            uint16_t f = x->path.len == 2 ? eng_be16(x->path.p) : 0xFFFF;
            if (f >= ty->n_sub)
                continue; /* a field beyond the type's (cannot happen: types only grow) */
            for (; next_field < f; next_field++)
                eng_buf_put_be32(&b, 0xFFFFFFFFu);
            eng_buf_put_bytes(&b, x->value.p, x->value.len);
            next_field = (uint16_t)(f + 1);
            break;
        }
        }
        n++;
    }
    if (rc || n == 0) {
        eng_buf_free(&b);
        out->p = NULL;
        out->len = ENG_NULL;
        return rc;
    }
    /* Fields after the last live one are nulls, as Cassandra's UserType writes every field. */
    for (; ty->kind == ENG_UDT && next_field < ty->n_sub; next_field++)
        eng_buf_put_be32(&b, 0xFFFFFFFFu);
    if (ty->kind != ENG_UDT && !b.oom)
        eng_put_be32(b.p, (uint32_t)n);
    if (b.oom) {
        eng_buf_free(&b);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory assembling %s", c->name);
    }
    out->p = eng_arena_memdup(v->arena, b.p, b.len);
    out->len = (int32_t)b.len;
    eng_buf_free(&b);
    return out->p ? 0 : eng_errorf(err, ENG_E_NOMEM, "out of memory assembling %s", c->name);
}

int eng_view_column(const eng_row_view *v, uint16_t col, eng_val *value, int64_t *writetime,
                    int32_t *ttl_s, eng_err *err)
{
    const eng_table *t = v->table;
    value->p = NULL;
    value->len = ENG_NULL;
    if (writetime)
        *writetime = ENG_TS_NONE;
    if (ttl_s)
        *ttl_s = 0;
    if (col >= t->n_cols)
        return eng_errorf(err, ENG_E_INVALID, "Invalid column index %u", col);
    const eng_column *c = &t->cols[col];
    if (c->kind == ENG_COL_PARTITION) {
        *value = v->pk[c->position];
        return 0;
    }
    if (c->kind == ENG_COL_CLUSTERING) {
        const eng_val *ck;
        int rc = eng_view_clustering(v, &ck, err);
        if (!rc)
            *value = ck[c->position];
        return rc;
    }
    int is_static = c->kind == ENG_COL_STATIC;
    const eng_row *row = is_static ? v->static_row : v->row;
    const eng_deletion *covering = is_static ? v->static_covering : v->covering;
    if (!row)
        return 0;
    if (multicell(c->type))
        return assemble(v, row, c, covering, value, err);
    const eng_cell *x = find_simple(row, c->id);
    if (!x || !cell_visible(row, x, covering, v->now_s))
        return 0;
    *value = x->value;
    if (writetime)
        *writetime = x->ts_us;
    if (ttl_s && (x->flags & ENG_CELL_EXPIRING) && x->ldt_s > v->now_s)
        *ttl_s = (int32_t)(x->ldt_s - v->now_s);
    return 0;
}

/* ---- emitting rows ---- */

static void set_view(reader *r, eng_row_view *v, const eng_val *ck, const eng_row *row,
                     eng_deletion covering)
{
    v->table = r->t;
    v->pk = r->pk;
    v->ck = ck;
    v->ck_lazy = ck ? NULL : &r->lazy;
    v->row = row;
    v->static_row = r->has_static_row ? &r->static_row : NULL;
    r->view_covering = covering;
    v->covering = &r->view_covering;
    v->static_covering = &r->header.partition_del;
    v->now_s = r->now_s;
    v->arena = &r->row_arena;
}

int eng_view_clustering(const eng_row_view *v, const eng_val **ck, eng_err *err)
{
    if (v->ck) {
        *ck = v->ck;
        return 0;
    }
    eng_ck_lazy *z = v->ck_lazy;
    if (!z->decoded) {
        eng_buf_reset(&z->buf);
        /* every row with a clustering key reaches a view only after its checksum held */
        int rc = eng_storage_decode_clustering_sealed(z->t, z->key, z->key + z->len, &z->buf,
                                                      z->vals, err);
        if (rc)
            return rc;
        z->decoded = 1;
    }
    *ck = z->vals;
    return 0;
}

/* The value of a regular simple column in a plain row: its cell, or null. */
static eng_val plain_value(const eng_plain_row *p, uint32_t id)
{
    for (uint32_t i = 0; i < p->n_cells && p->cells[i].col <= id; i++)
        if (p->cells[i].col == id)
            return p->cells[i].value;
    return (eng_val){NULL, ENG_NULL};
}

#define PROJECT_VIEW UINT32_MAX /* a projected column read through the row view */
#define PROJECT_NULL (UINT32_MAX - 1) /* a non-frozen collection or UDT: a plain row has none */
#define PROJECT_CK0 (UINT32_MAX - 2)  /* the first clustering column, taken from the key */

/* The projected columns' ids in the plain form (reader.project_id). */
static int project_prepare(reader *r)
{
    const eng_query *q = r->q;
    if (q->n_project > UINT8_MAX + 1)
        return eng_errorf(r->err, ENG_E_INVALID, "too many projected columns");
    for (uint16_t i = 0; i < q->n_project; i++) {
        if (q->project[i] >= q->table->n_cols)
            return eng_errorf(r->err, ENG_E_INVALID, "Invalid column index %u", q->project[i]);
        const eng_column *c = &q->table->cols[q->project[i]];
        r->project_id[i] = q->project[i] == q->table->n_pk && q->table->n_ck ? PROJECT_CK0
                           : c->kind != ENG_COL_REGULAR                     ? PROJECT_VIEW
                           : multicell(c->type)                             ? PROJECT_NULL
                                                                            : c->id;
    }
    return 0;
}

/*
 * The first clustering value of v when it is of a fixed width, decoded from the row's key
 * into buf (16 bytes) without the view's scratch buffer: 1, or 0 when the view must decode
 * it (a variable width, damaged bytes, or no key at hand).
 */
static int first_clustering(const eng_row_view *v, uint8_t *buf, eng_val *val)
{
    const eng_ck_lazy *z = v->ck_lazy;
    if (v->ck || !z)
        return 0;
    const uint8_t *p = z->key;
    int w = eng_key_get_fixed(z->t->cols[z->t->n_pk].type, &p, z->key + z->len,
                              eng_ck_desc(z->t, 0), buf);
    if (w <= 0)
        return 0;
    *val = w == ENG_KEY_EMPTY ? (eng_val){buf, 0} : (eng_val){buf, w};
    return 1;
}

/* Appends the projected columns of the row v (eng_query.project) to the output, reserving
   once for the whole row. */
static int project_row(reader *r, const eng_row_view *v)
{
    const eng_query *q = r->q;
    eng_buf *out = q->project_out;
    eng_val vals[UINT8_MAX + 1];
    size_t need = 0;
    uint8_t ck0[16];
    for (uint16_t i = 0; i < q->n_project; i++) {
        eng_val *val = &vals[i];
        uint32_t id = r->project_id[i];
        if (id == PROJECT_CK0 && !q->project_full && first_clustering(v, ck0, val)) {
            ; /* a fixed-width value, straight from the key's bytes */
        } else if (r->plain && id != PROJECT_VIEW && id != PROJECT_CK0) {
            *val = id == PROJECT_NULL ? (eng_val){NULL, ENG_NULL} : plain_value(r->plain, id);
        } else {
            int rc = eng_view_column(v, q->project[i], val, NULL, NULL, r->err);
            if (rc)
                return rc;
        }
        need += 4 + (val->len > 0 ? (size_t)val->len : 0);
    }
    if (out->oom || (out->len + need > out->cap && eng_buf_reserve(out, ENG_MAX(need, 8192))))
        return nomem(r);
    uint8_t *p = out->p + out->len;
    for (uint16_t i = 0; i < q->n_project; i++) {
        eng_put_be32(p, (uint32_t)vals[i].len);
        p += 4;
        if (vals[i].len > 0) {
            memcpy(p, vals[i].p, (size_t)vals[i].len);
            p += vals[i].len;
        }
    }
    out->len += need;
    return 0;
}

/*
 * Hands one row to the callback (or the projection), or — once the page is full — only notes
 * that more rows exist. key is the row's storage key (its resume position).
 */
static int emit(reader *r, const eng_row_view *v, const uint8_t *key, size_t key_len, int stable)
{
    if (r->peeking) {
        r->info->has_more = 1;
        r->done = 1;
        return 0;
    }
    int rc;
    if (r->q->n_project) {
        if ((rc = project_row(r, v)))
            return rc;
    } else if ((rc = r->cb ? r->cb(r->ctx, v) : 0) < 0) {
        return eng_errorf(r->err, -rc, "read aborted by its consumer");
    }
    if (rc == 2) {
        /* The page ended before this row: the next one starts with it, resuming after the
           last row returned, which must exist. */
        if (!r->returned)
            return eng_errorf(r->err, ENG_E_INVALID, "a read stopped before its first row");
        r->info->has_more = 1;
        r->done = 1;
        return 0;
    }
    r->returned++;
    r->in_partition++;
    r->last_in_partition = r->in_partition;
    if (stable) {
        /* The key lives in the map for the whole read transaction. */
        r->last_key = key;
        r->last_len = key_len;
    } else {
        eng_buf_reset(&r->last_buf);
        eng_buf_put(&r->last_buf, key, key_len);
        if (r->last_buf.oom)
            return nomem(r);
        r->last_key = r->last_buf.p;
        r->last_len = r->last_buf.len;
    }
    if (r->q->limit && r->returned >= r->q->limit && r->q->limit_ends)
        r->done = 1; /* nothing past the limit is wanted: no row is read to learn of more */
    else if (rc == 1 || (r->q->limit && r->returned >= r->q->limit))
        r->peeking = 1;
    return 0;
}

/* ---- cursor walks ---- */

/* The first of vrows' keys >= k (vrows->n if none). */
static size_t vrows_lower_bound(const eng_vrows *v, const MDB_val *k)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const MDB_val *m = &v->pairs[2 * mid];
        if (key_cmp(m->mv_data, m->mv_size, k->mv_data, k->mv_size) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * mdb_cursor_get over the table's sub-database, or the same over a virtual
 * table's sorted rows (the operations the walks below use), so that both are
 * read by one piece of code.
 */
static int vrows_get(reader *r, MDB_val *k, MDB_val *v, MDB_cursor_op op);

/* ---- what LMDB hands back, checked before it is used ----
 *
 * LMDB trusts its pages. On a damaged one it may hand back a key or value
 * running past the end of the file, keys out of order, or a search that
 * lands past the keys it looked for. Each cursor step is checked here so
 * that such damage is an error, never a crash or a wrong answer: what is
 * handed back must lie in the file (eng_map_holds), a step must move
 * strictly in its direction, a search must land at or after its target, and
 * the key just before where a search landed must be below the target and
 * intact (a key damaged so that it sorts lower would otherwise be stepped
 * over, its row lost without a word). The key at which a walk leaves its
 * range is verified too (verify_boundary): a row whose key was damaged so
 * that it sorts higher ends the walk there.
 */

/* The error for damage found in a read; returns the LMDB code the walks pass up. */
static int damaged(reader *r, const char *what)
{
    eng_errorf(r->err, ENG_E_CORRUPT, "database file is corrupted (%s in table %s.%s)", what,
               r->t->ks, r->t->name);
    return MDB_CORRUPTED;
}

/* The stored value under key k verifies (checksum bound to the key). */
static int verify_stored(reader *r, const MDB_val *k, const MDB_val *v)
{
    eng_err e;
    eng_err_clear(&e);
    if (eng_stored_verify(v->mv_data, v->mv_size, eng_storage_seal(r->t, k->mv_data, k->mv_size),
                          "value", &e) == 0)
        return 0;
    return damaged(r, "a stored key or value does not match its checksum");
}

/* [p, p + len) lies in the file's mapped bytes as last measured, or (slow path) now. */
static inline int in_file(reader *r, const void *p, size_t len)
{
    const uint8_t *b = p;
    if (__builtin_expect(b >= r->map_lo && len <= (size_t)(r->map_end - b), 1))
        return 1;
    return eng_map_holds(r->db, p, len, 1);
}

/* The checks of a search's landing and of anything out of the ordinary (the slow path). */
static int checked_other(reader *r, const MDB_val *k, const MDB_val *v, MDB_cursor_op op,
                         const MDB_val *target)
{
    if (!in_file(r, k->mv_data, k->mv_size) || !in_file(r, v->mv_data, v->mv_size))
        return damaged(r, "a key or value runs past the end of the file");
    if (op == MDB_SET_RANGE || op == MDB_SET_KEY) {
        int c = key_cmp(k->mv_data, k->mv_size, target->mv_data, target->mv_size);
        if (op == MDB_SET_RANGE ? c < 0 : c != 0)
            return damaged(r, "a search landed before its key");
    } else if ((op == MDB_NEXT || op == MDB_PREV) && r->at_key) {
        int c = key_cmp(k->mv_data, k->mv_size, r->at_key, r->at_len);
        if (op == MDB_NEXT ? c <= 0 : c >= 0)
            return damaged(r, "keys out of order");
    }
    r->at_key = k->mv_data;
    r->at_len = k->mv_size;
    return 0;
}

/* A step of a walk: inside the file, strictly after (or before) the key it left. */
static inline int checked_step(reader *r, const MDB_val *k, const MDB_val *v, MDB_cursor_op op,
                               const MDB_val *target)
{
    const uint8_t *kp = k->mv_data, *vp = v->mv_data, *at = r->at_key;
    if (__builtin_expect((op == MDB_NEXT || op == MDB_PREV) && at && kp >= r->map_lo &&
                             k->mv_size <= (size_t)(r->map_end - kp) && vp >= r->map_lo &&
                             v->mv_size <= (size_t)(r->map_end - vp),
                         1)) {
        size_t n = k->mv_size < r->at_len ? k->mv_size : r->at_len;
        int c = memcmp(kp, at, n);
        c = c ? c : (k->mv_size > r->at_len) - (k->mv_size < r->at_len);
        if (__builtin_expect(op == MDB_NEXT ? c > 0 : c < 0, 1)) {
            r->at_key = kp;
            r->at_len = k->mv_size;
            return 0;
        }
    }
    return checked_other(r, k, v, op, target);
}

static inline __attribute__((always_inline)) int cur_get(reader *r, MDB_val *k, MDB_val *v,
                                                      MDB_cursor_op op)
{
    if (__builtin_expect(r->vrows != NULL, 0))
        return vrows_get(r, k, v, op);
    MDB_val target = {0, NULL};
    if (op == MDB_SET_RANGE || op == MDB_SET_KEY)
        target = *k;
    int mrc = ENG_FAULT_CALL_IN(r->fault, mdb_cursor_get(r->cur, k, v, op));
    if (mrc) {
        r->at_key = NULL;
        return mrc;
    }
    return checked_step(r, k, v, op, &target);
}

/* A key at which a walk leaves its range: it must be intact, or a row was lost there. */
static int verify_boundary(reader *r, const MDB_val *k, const MDB_val *v)
{
    return r->vrows ? 0 : verify_stored(r, k, v);
}

/*
 * MDB_SET_RANGE to [t, t + len), checking the key just before the landing
 * point: below t and intact. The cursor is left where the search landed.
 */
static int seek(reader *r, const uint8_t *t, size_t len, MDB_val *k, MDB_val *v)
{
    k->mv_data = (void *)t;
    k->mv_size = len;
    int mrc = cur_get(r, k, v, MDB_SET_RANGE);
    if (r->vrows || (mrc && mrc != MDB_NOTFOUND))
        return mrc;
    MDB_val pk, pv;
    int prc = cur_get(r, &pk, &pv, mrc ? MDB_LAST : MDB_PREV);
    if (prc == 0) {
        if (key_cmp(pk.mv_data, pk.mv_size, t, len) >= 0)
            return damaged(r, "a search landed past a key it looked for");
        if ((prc = verify_stored(r, &pk, &pv)))
            return prc;
    } else if (prc != MDB_NOTFOUND) {
        return prc;
    }
    if (mrc)
        return mrc;
    /* back to the landing point */
    MDB_val landing = *k;
    if (prc == 0)
        mrc = cur_get(r, k, v, MDB_NEXT);
    else {
        k->mv_data = (void *)t;
        k->mv_size = len;
        mrc = cur_get(r, k, v, MDB_SET_RANGE);
    }
    if (mrc == 0 && key_cmp(k->mv_data, k->mv_size, landing.mv_data, landing.mv_size) != 0)
        return damaged(r, "a search landed on a key it cannot find again");
    return mrc;
}

/* cur_get on a virtual table's rows. */
static int vrows_get(reader *r, MDB_val *k, MDB_val *v, MDB_cursor_op op)
{
    const eng_vrows *rows = r->vrows;
    size_t pos = r->vpos;
    switch (op) {
    case MDB_SET_RANGE:
        pos = vrows_lower_bound(rows, k);
        break;
    case MDB_SET_KEY:
        pos = vrows_lower_bound(rows, k);
        if (pos < rows->n &&
            key_cmp(rows->pairs[2 * pos].mv_data, rows->pairs[2 * pos].mv_size, k->mv_data,
                    k->mv_size) != 0)
            pos = rows->n;
        break;
    case MDB_NEXT:
        pos = pos < rows->n ? pos + 1 : rows->n;
        break;
    case MDB_PREV:
        pos = pos > 0 && pos <= rows->n ? pos - 1 : rows->n;
        break;
    case MDB_LAST:
        pos = rows->n ? rows->n - 1 : 0;
        break;
    default:
        return EINVAL;
    }
    r->vpos = pos;
    if (pos >= rows->n)
        return MDB_NOTFOUND;
    *k = rows->pairs[2 * pos];
    *v = rows->pairs[2 * pos + 1];
    return 0;
}


/* Sets [lo, hi) in r->rg from a prefix bound pair (see rowkey.h / row.h prefix semantics). */
static int range_from_prefix(reader *r, const eng_buf *lo, int lo_incl, const eng_buf *hi,
                             int hi_incl)
{
    range *g = &r->rg;
    eng_buf_reset(&g->lo);
    eng_buf_put(&g->lo, r->prefix.p, r->prefix.len);
    eng_buf_put_u8(&g->lo, ENG_KIND_ROW);
    eng_buf_put(&g->lo, lo->p, lo->len);
    if (!lo_incl && !eng_storage_successor(&g->lo))
        return 0; /* nothing can follow */
    eng_buf_reset(&g->hi);
    eng_buf_put(&g->hi, r->prefix.p, r->prefix.len);
    eng_buf_put_u8(&g->hi, ENG_KIND_ROW);
    eng_buf_put(&g->hi, hi->p, hi->len);
    g->hi_inf = 0;
    if (hi_incl && !eng_storage_successor(&g->hi))
        g->hi_inf = 1;
    return (g->lo.oom || g->hi.oom) ? -1 : 1;
}


/* Narrows the range to keys strictly after (in walk order) the resume key. */
static int narrow_to_resume(reader *r, const uint8_t *key, size_t len)
{
    range *g = &r->rg;
    if (r->forward) {
        eng_buf_reset(&r->tmp);
        eng_buf_put(&r->tmp, key, len);
        eng_buf_put_u8(&r->tmp, 0); /* the smallest string greater than key */
        if (r->tmp.oom)
            return nomem(r);
        if (key_cmp(g->lo.p, g->lo.len, r->tmp.p, r->tmp.len) < 0) {
            eng_buf_reset(&g->lo);
            eng_buf_put(&g->lo, r->tmp.p, r->tmp.len);
        }
    } else if (g->hi_inf || key_cmp(key, len, g->hi.p, g->hi.len) < 0) {
        eng_buf_reset(&g->hi);
        eng_buf_put(&g->hi, key, len);
        g->hi_inf = 0;
    }
    return (g->lo.oom || g->hi.oom) ? nomem(r) : 0;
}

/* The seal of a key of the current partition (it starts with r->prefix). */
static inline uint64_t partition_seal(const reader *r, const MDB_val *k)
{
    return eng_storage_row_seal(r->prefix_seal, (const uint8_t *)k->mv_data + r->prefix.len,
                                k->mv_size - r->prefix.len);
}

/*
 * A projected read of a row in its plain form, under no partition deletion or range
 * tombstone: 1 when emitted or skipped here, 0 when the row needs the full decoder, an error
 * code negated.
 */
static int visit_plain_row(reader *r, const MDB_val *k, const MDB_val *v, int *stop)
{
    int rc = eng_row_read_plain(v->mv_data, v->mv_size, partition_seal(r, k), &r->plain_row,
                                r->err);
    if (rc <= 0)
        return rc;
    int live = r->plain_row.has_marker;
    for (uint32_t i = 0; !live && i < r->plain_row.n_cells; i++)
        live = column_exists(r->t, r->plain_row.cells[i].col); /* dropped columns' cells hide */
    if (!live)
        return 1;
    if (r->q->per_partition_limit && r->in_partition >= r->q->per_partition_limit) {
        *stop = 1;
        return 1;
    }
    const uint8_t *key = k->mv_data;
    size_t ck_off = r->prefix.len + 1;
    r->lazy.t = r->t;
    r->lazy.key = key + ck_off;
    r->lazy.len = k->mv_size - ck_off;
    r->lazy.decoded = 0;
    eng_row_view view;
    set_view(r, &view, NULL, NULL, r->header.partition_del);
    r->plain = &r->plain_row;
    rc = emit(r, &view, key, k->mv_size, 1);
    r->plain = NULL;
    return rc ? -rc : 1;
}

/* Decodes and, if live, emits the row stored at (k, v). *stop: partition limit reached. */
static int visit_row(reader *r, const MDB_val *k, const MDB_val *v, int *stop)
{
    int checked = 0; /* the checksum already held: the decoder need not hash the row again */
    if (r->q->n_project && !r->q->project_full && !r->header.n_rts &&
        r->header.partition_del.ts_us == ENG_TS_NONE) {
        int rc = visit_plain_row(r, k, v, stop);
        if (rc)
            return rc < 0 ? -rc : 0; /* an error's code (the row's damage), or emitted */
        checked = r->plain_row.checked;
    }
    eng_arena_reset(&r->row_arena);
    eng_row row;
    int rc = checked ? eng_row_decode_checked(v->mv_data, v->mv_size, &row, &r->row_arena, r->err)
                     : eng_row_decode(v->mv_data, v->mv_size, partition_seal(r, k), &row,
                                      &r->row_arena, r->err);
    if (rc)
        return rc;
    const uint8_t *key = k->mv_data;
    size_t ck_off = r->prefix.len + 1;
    eng_deletion covering = r->header.partition_del;
    if (r->header.n_rts) /* only range tombstones depend on the row's key */
        covering = eng_pheader_covering(&r->header, key + ck_off, k->mv_size - ck_off);
    if (!eng_row_live(r->t, &row, &covering, r->now_s))
        return 0;
    if (r->q->per_partition_limit && r->in_partition >= r->q->per_partition_limit) {
        *stop = 1;
        return 0;
    }
    r->lazy.t = r->t;
    r->lazy.key = key + ck_off;
    r->lazy.len = k->mv_size - ck_off;
    r->lazy.decoded = 0;
    eng_row_view view;
    set_view(r, &view, NULL, &row, covering);
    return emit(r, &view, key, k->mv_size, 1);
}

/* One cursor walk over r->rg in the reader's direction. */
static int walk(reader *r)
{
    range *g = &r->rg;
    MDB_val k, v;
    int mrc;
    MDB_cursor_op step = r->forward ? MDB_NEXT : MDB_PREV;
    if (r->forward) {
        mrc = seek(r, g->lo.p, g->lo.len, &k, &v);
    } else if (g->hi_inf) {
        mrc = cur_get(r, &k, &v, MDB_LAST);
    } else {
        k.mv_size = g->hi.len;
        k.mv_data = g->hi.p;
        mrc = cur_get(r, &k, &v, MDB_SET_RANGE);
        if (mrc == 0 && (mrc = verify_boundary(r, &k, &v)) == 0)
            mrc = cur_get(r, &k, &v, MDB_PREV);
        else if (mrc == MDB_NOTFOUND)
            mrc = cur_get(r, &k, &v, MDB_LAST);
        if (mrc == 0 && key_cmp(k.mv_data, k.mv_size, g->hi.p, g->hi.len) >= 0)
            mrc = damaged(r, "a search landed past a key it looked for");
    }
    int stop = 0;
    while (mrc == 0 && !r->done && !stop) {
        if (r->forward ? (!g->hi_inf && key_cmp(k.mv_data, k.mv_size, g->hi.p, g->hi.len) >= 0)
                       : key_cmp(k.mv_data, k.mv_size, g->lo.p, g->lo.len) < 0) {
            mrc = verify_boundary(r, &k, &v);
            break;
        }
        int rc = visit_row(r, &k, &v, &stop);
        if (rc)
            return rc;
        if (!r->done && !stop)
            mrc = cur_get(r, &k, &v, step);
    }
    if (mrc && mrc != MDB_NOTFOUND)
        return eng_lmdb_err(r->err, mrc, "read rows");
    return stop ? 1 : 0;
}

static int in_partition(const uint8_t *key, size_t len, const eng_buf *p);

/* 1 if k is the key of kind `kind` of the current partition (header or static row). */
static int is_partition_key(const reader *r, const MDB_val *k, uint8_t kind)
{
    return k->mv_size == r->prefix.len + 1 && memcmp(k->mv_data, r->prefix.p, r->prefix.len) == 0 &&
           ((const uint8_t *)k->mv_data)[r->prefix.len] == kind;
}

/*
 * Loads the partition header and static row of r->prefix with one cursor
 * positioning: they are the partition's first keys, and the cursor is left
 * there, so the row walk that follows usually stays on the same page.
 */
static int load_partition(reader *r)
{
    r->prefix_seal = eng_storage_prefix_seal(r->t, r->prefix.p, r->prefix.len);
    eng_arena_reset(&r->header_arena);
    eng_pheader_init(&r->header);
    r->has_static_row = 0;
    r->static_live = 0;
    eng_buf_reset(&r->tmp);
    eng_buf_put(&r->tmp, r->prefix.p, r->prefix.len);
    eng_buf_put_u8(&r->tmp, ENG_KIND_HEADER);
    if (r->tmp.oom)
        return nomem(r);
    MDB_val k, v;
    int rc = 0, mrc = seek(r, r->tmp.p, r->tmp.len, &k, &v);
    if (mrc == 0 && !in_partition(k.mv_data, k.mv_size, &r->prefix))
        mrc = verify_boundary(r, &k, &v);
    if (mrc == 0 && is_partition_key(r, &k, ENG_KIND_HEADER)) {
        rc = eng_pheader_decode(v.mv_data, v.mv_size, partition_seal(r, &k), &r->header,
                                &r->header_arena, r->err);
        if (!rc)
            mrc = cur_get(r, &k, &v, MDB_NEXT);
    }
    if (!rc && mrc == 0 && r->t->has_static && is_partition_key(r, &k, ENG_KIND_STATIC)) {
        eng_arena_reset(&r->static_arena);
        rc = eng_row_decode(v.mv_data, v.mv_size, partition_seal(r, &k), &r->static_row,
                            &r->static_arena, r->err);
        if (!rc) {
            r->has_static_row = 1;
            r->static_live =
                eng_row_live(r->t, &r->static_row, &r->header.partition_del, r->now_s);
        }
    }
    if (!rc && mrc && mrc != MDB_NOTFOUND)
        rc = eng_lmdb_err(r->err, mrc, "read partition");
    return rc;
}

/* Emits the partition's one static-only or DISTINCT row (null clustering). */
static int emit_partition_row(reader *r, uint8_t kind)
{
    eng_row_view view;
    eng_deletion none = {ENG_TS_NONE, 0};
    set_view(r, &view, r->null_ck, NULL, none);
    eng_buf_reset(&r->tmp);
    eng_buf_put(&r->tmp, r->prefix.p, r->prefix.len);
    eng_buf_put_u8(&r->tmp, kind);
    if (r->tmp.oom)
        return nomem(r);
    return emit(r, &view, r->tmp.p, r->tmp.len, 0);
}

static int set_unbounded(reader *r)
{
    eng_buf none = ENG_BUF_INIT;
    int rc = range_from_prefix(r, &none, 1, &none, 1);
    return rc < 0 ? nomem(r) : rc;
}

/* 1 if the partition has a live clustering row. */
static int any_live_row(reader *r, int *live)
{
    *live = 0;
    if (set_unbounded(r) < 0)
        return nomem(r);
    MDB_val k, v;
    int mrc = seek(r, r->rg.lo.p, r->rg.lo.len, &k, &v);
    while (mrc == 0) {
        if (key_cmp(k.mv_data, k.mv_size, r->rg.hi.p, r->rg.hi.len) >= 0) {
            mrc = verify_boundary(r, &k, &v);
            break;
        }
        eng_arena_reset(&r->row_arena);
        eng_row row;
        int rc = eng_row_decode(v.mv_data, v.mv_size, partition_seal(r, &k), &row,
                                &r->row_arena, r->err);
        if (rc)
            return rc;
        size_t off = r->prefix.len + 1;
        eng_deletion cov =
            eng_pheader_covering(&r->header, (const uint8_t *)k.mv_data + off, k.mv_size - off);
        if (eng_row_live(r->t, &row, &cov, r->now_s)) {
            *live = 1;
            return 0;
        }
        mrc = cur_get(r, &k, &v, MDB_NEXT);
    }
    return mrc && mrc != MDB_NOTFOUND ? eng_lmdb_err(r->err, mrc, "read rows") : 0;
}

/* A query for exactly one row: one slice whose bounds are the same full clustering key. */
static int is_point(const eng_table *t, const eng_query *q)
{
    if (q->n_slices != 1 || q->distinct || q->static_rows)
        return 0;
    const eng_bound *a = &q->slices[0].start, *b = &q->slices[0].end;
    if (a->n != t->n_ck || b->n != t->n_ck || !a->inclusive || !b->inclusive)
        return 0;
    for (uint16_t i = 0; i < a->n; i++) {
        eng_val x = a->vals[i], y = b->vals[i];
        if (x.len != y.len || (x.len > 0 && memcmp(x.p, y.p, (size_t)x.len) != 0))
            return 0;
    }
    return 1;
}

/* Reads one row by its full key: one cursor lookup, no walk. */
static int read_point(reader *r)
{
    eng_buf_reset(&r->lo);
    eng_buf_put(&r->lo, r->prefix.p, r->prefix.len);
    eng_buf_put_u8(&r->lo, ENG_KIND_ROW);
    int rc = eng_storage_clustering(&r->lo, r->t, r->q->slices[0].start.vals, r->t->n_ck, r->err);
    if (rc)
        return rc;
    if (r->lo.len > ENG_MAX_KEY)
        return 0; /* such a key cannot have been stored */
    MDB_val k, v;
    int mrc = seek(r, r->lo.p, r->lo.len, &k, &v);
    if (mrc == 0 && key_cmp(k.mv_data, k.mv_size, r->lo.p, r->lo.len) != 0)
        mrc = verify_boundary(r, &k, &v) ? MDB_CORRUPTED : MDB_NOTFOUND; /* not there */
    if (mrc == MDB_NOTFOUND)
        return 0;
    if (mrc)
        return eng_lmdb_err(r->err, mrc, "read row");
    int stop = 0;
    return visit_row(r, &k, &v, &stop);
}

/*
 * Reads the partition at r->prefix. resume (may be NULL) is a row key of
 * this partition to continue after, with `count` rows already returned.
 */
static int read_partition(reader *r, const uint8_t *resume, size_t resume_len, uint32_t count)
{
    int rc = load_partition(r);
    if (rc)
        return rc;
    r->in_partition = resume ? count : 0;
    if (resume && (resume_len <= r->prefix.len || resume[r->prefix.len] != ENG_KIND_ROW))
        return 0; /* that partition's one row was already returned */
    const eng_query *q = r->q;
    if (q->distinct) {
        int live = r->static_live;
        if (!live && (rc = any_live_row(r, &live)))
            return rc;
        return live ? emit_partition_row(r, ENG_KIND_HEADER) : 0;
    }
    if (!resume && is_point(r->t, q))
        return read_point(r);
    uint32_t n = q->n_slices ? q->n_slices : 1;
    for (uint32_t i = 0; i < n && !r->done; i++) {
        if (!q->n_slices) {
            rc = set_unbounded(r);
        } else {
            const eng_slice *s = &q->slices[q->reversed ? n - 1 - i : i];
            int lo_incl, hi_incl;
            eng_buf_reset(&r->lo);
            eng_buf_reset(&r->hi);
            rc = eng_storage_slice(r->t, s, &r->lo, &lo_incl, &r->hi, &hi_incl, r->err);
            if (!rc)
                rc = range_from_prefix(r, &r->lo, lo_incl, &r->hi, hi_incl);
            if (rc < 0)
                rc = nomem(r);
        }
        if (rc <= 0) {
            if (rc)
                return rc;
            continue; /* empty slice */
        }
        if (resume && (rc = narrow_to_resume(r, resume, resume_len)))
            return rc;
        rc = walk(r);
        if (rc < 0 || rc > 1)
            return rc;
        if (rc == 1)
            break; /* per partition limit */
    }
    if (!resume && !r->done && r->in_partition == 0 && q->static_rows && r->static_live)
        return emit_partition_row(r, ENG_KIND_STATIC);
    return 0;
}

/* 1 if key lies in partition prefix p. */
static int in_partition(const uint8_t *key, size_t len, const eng_buf *p)
{
    return len > p->len && memcmp(key, p->p, p->len) == 0;
}

static int scan_keys(reader *r, const uint8_t *resume, size_t resume_len, uint32_t count)
{
    int reached = resume == NULL;
    for (uint32_t i = 0; i < r->q->n_keys && !r->done; i++) {
        eng_buf_reset(&r->prefix);
        int rc = eng_storage_partition(&r->prefix, r->t, r->q->keys[i], NULL, r->err);
        if (rc)
            return rc;
        r->pk = r->q->keys[i];
        if (!reached) {
            if (!in_partition(resume, resume_len, &r->prefix))
                continue;
            reached = 1;
            rc = read_partition(r, resume, resume_len, count);
        } else {
            rc = read_partition(r, NULL, 0, 0);
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int scan_tokens(reader *r, const uint8_t *resume, size_t resume_len, uint32_t count)
{
    const eng_query *q = r->q;
    uint8_t start[8];
    MDB_val k, v;
    if (resume) {
        k.mv_size = resume_len;
        k.mv_data = (void *)resume;
    } else {
        int64_t lo = q->token_lo;
        if (!q->token_lo_incl) {
            if (lo == ENG_TOKEN_MAX)
                return 0;
            lo++;
        }
        eng_key_put_token(start, lo);
        k.mv_size = 8;
        k.mv_data = start;
    }
    int first = 1;
    int mrc = seek(r, k.mv_data, k.mv_size, &k, &v);
    while (mrc == 0 && !r->done) {
        const uint8_t *p = k.mv_data, *end = p + k.mv_size;
        int64_t token;
        eng_buf_reset(&r->pk_bytes);
        int rc = eng_key_get_partition(&p, end, &token, &r->pk_bytes, r->err);
        if (rc)
            return rc;
        if (q->token_hi_incl ? token > q->token_hi : token >= q->token_hi) {
            mrc = verify_boundary(r, &k, &v);
            break;
        }
        eng_buf_reset(&r->prefix);
        eng_buf_put(&r->prefix, k.mv_data, (size_t)(p - (const uint8_t *)k.mv_data));
        if (r->prefix.oom || r->pk_bytes.oom)
            return nomem(r);
        if ((rc = eng_storage_split_partition(r->t, r->pk_bytes.p, r->pk_bytes.len, r->pk_vals,
                                              r->err)))
            return rc;
        r->pk = r->pk_vals;
        if (first && resume && in_partition(resume, resume_len, &r->prefix))
            rc = read_partition(r, resume, resume_len, count);
        else
            rc = read_partition(r, NULL, 0, 0);
        if (rc)
            return rc;
        first = 0;
        /* Past every key of this partition: kinds stop at ENG_KIND_ROW. */
        eng_buf_reset(&r->tmp);
        eng_buf_put(&r->tmp, r->prefix.p, r->prefix.len);
        eng_buf_put_u8(&r->tmp, ENG_KIND_ROW + 1);
        if (r->tmp.oom)
            return nomem(r);
        mrc = seek(r, r->tmp.p, r->tmp.len, &k, &v);
    }
    return mrc && mrc != MDB_NOTFOUND ? eng_lmdb_err(r->err, mrc, "scan partitions") : 0;
}

static int parse_resume(const eng_query *q, const uint8_t **key, size_t *len, uint32_t *count,
                        eng_err *err)
{
    *key = NULL;
    *len = 0;
    *count = 0;
    if (!q->resume || !q->resume_len)
        return 0;
    if (q->resume_len < 6 || q->resume[0] != RESUME_VERSION)
        return eng_errorf(err, ENG_E_PROTOCOL, "Invalid value for the paging state");
    *count = eng_be32(q->resume + 1);
    *key = q->resume + 5;
    *len = q->resume_len - 5;
    return 0;
}

static void reader_destroy(reader *r)
{
    if (r->cur)
        mdb_cursor_close(r->cur);
    eng_schema_unref(r->schema);
    eng_buf_free(&r->prefix);
    eng_buf_free(&r->pk_bytes);
    eng_arena_free(&r->header_arena);
    eng_arena_free(&r->static_arena);
    eng_arena_free(&r->row_arena);
    eng_buf_free(&r->lazy.buf);
    eng_buf_free(&r->last_buf);
    eng_buf_free(&r->rg.lo);
    eng_buf_free(&r->rg.hi);
    eng_buf_free(&r->tmp);
    eng_buf_free(&r->lo);
    eng_buf_free(&r->hi);
    eng_free(r);
}

/* A pooled reader of this database, or a new one (NULL on OOM). */
static reader *reader_get(eng_db *db)
{
    reader *r = NULL;
    eng_shard *sh = &db->shards[eng_thread_shard()].s;
    pthread_mutex_lock(&sh->lock);
    if (sh->n_readers)
        r = sh->readers[--sh->n_readers];
    pthread_mutex_unlock(&sh->lock);
    if (r)
        return r;
    r = eng_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    for (int i = 0; i < ENG_MAX_KEY_COLUMNS; i++)
        r->null_ck[i].len = ENG_NULL;
    eng_arena_init(&r->header_arena, 1024);
    eng_arena_init(&r->static_arena, 1024);
    eng_arena_init(&r->row_arena, 4096);
    return r;
}

static void reader_put(eng_db *db, reader *r)
{
    eng_shard *sh = &db->shards[eng_thread_shard()].s;
    pthread_mutex_lock(&sh->lock);
    if (sh->n_readers < ENG_SHARD_POOL) {
        sh->readers[sh->n_readers++] = r;
        r = NULL;
    }
    pthread_mutex_unlock(&sh->lock);
    if (r)
        reader_destroy(r);
}

void eng_read_pool_free(eng_db *db)
{
    for (int i = 0; i < ENG_SHARDS; i++) {
        eng_shard *sh = &db->shards[i].s;
        for (int j = 0; j < sh->n_readers; j++)
            reader_destroy(sh->readers[j]);
        sh->n_readers = 0;
    }
}

/* A cursor on the table in this transaction, reusing the reader's when it can. */
static int open_cursor(reader *r, MDB_dbi dbi)
{
    int mrc;
    if (r->cur && r->cur_dbi == dbi) {
        mrc = ENG_FAULT_CALL(mdb_cursor_renew(r->txn, r->cur));
        if (mrc == 0)
            return 0;
    }
    if (r->cur)
        mdb_cursor_close(r->cur);
    r->cur = NULL;
    mrc = ENG_FAULT_CALL(mdb_cursor_open(r->txn, dbi, &r->cur));
    if (mrc) {
        r->cur = NULL;
        return eng_lmdb_err(r->err, mrc, "open cursor");
    }
    r->cur_dbi = dbi;
    return 0;
}

/* The resume position, built while the last key is still mapped. */
static int save_resume(reader *r)
{
    eng_buf *b = &r->info->resume;
    eng_buf_put_u8(b, RESUME_VERSION);
    eng_buf_put_be32(b, r->last_in_partition);
    eng_buf_put(b, r->last_key, r->last_len);
    return b->oom ? nomem(r) : 0;
}

/* The scan itself, on whatever cur_get walks. */
static int scan(reader *r)
{
    const uint8_t *resume;
    size_t resume_len;
    uint32_t count;
    int rc = parse_resume(r->q, &resume, &resume_len, &count, r->err);
    if (!rc)
        rc = r->q->n_keys ? scan_keys(r, resume, resume_len, count)
                          : scan_tokens(r, resume, resume_len, count);
    if (!rc && r->info->has_more)
        rc = save_resume(r);
    return rc;
}

/* A virtual table: its provider's rows, built for this read, walked like stored ones. */
static int read_virtual(reader *r)
{
    eng_vrows rows;
    int rc = eng_vrows_build(r->db, r->q, &rows, r->err);
    if (!rc) {
        r->t = r->q->table;
        r->vrows = &rows;
        r->vpos = rows.n;
        rc = scan(r);
        r->vrows = NULL;
    }
    eng_vrows_free(&rows);
    return rc;
}

/* The read itself, in r->txn, under eng_fault_run. */
static int read_in_txn(void *arg)
{
    reader *r = arg;
    r->fault = eng_fault_current; /* the frame eng_fault_run pushed: no TLS access per step */
    int stale = 0;
    int rc = eng_db_schema_hold(r->db, r->txn, &r->schema, &stale, r->err);
    if (!rc && stale) {
        r->restart = 1;
        return 0;
    }
    const eng_table *t = NULL;
    if (!rc)
        rc = eng_resolve_table(r->schema, r->q->table, &t, r->err);
    if (!rc)
        rc = open_cursor(r, t->dbi);
    if (rc)
        return rc;
    /* Rows are decoded with the caller's definition, as cas.c does: the caller maps columns
       by its table's indexes, and another process may have altered the table since (a cell
       of a column the caller does not know is skipped, as a dropped column's is). */
    r->t = r->q->table;
    return scan(r);
}

static int read_once(reader *r, int *restart)
{
    r->restart = 0;
    int rc = eng_read_begin(r->db, &r->txn, r->err);
    if (rc)
        return rc;
    eng_map_bounds(r->db, &r->map_lo, &r->map_end);
    if (eng_fault_run(read_in_txn, r, &rc)) {
        /* LMDB faulted on a damaged page: the transaction may only be aborted */
        if (r->cur)
            mdb_cursor_close(r->cur);
        r->cur = NULL;
        eng_read_abandon(r->db, r->txn);
        rc = eng_errorf(r->err, ENG_E_CORRUPT,
                        "database file is corrupted (LMDB faulted reading table %s.%s)",
                        r->q->table->ks, r->q->table->name);
    } else {
        eng_read_end(r->db, r->txn);
    }
    r->txn = NULL;
    *restart = r->restart;
    return rc;
}

/* Per-read state of a pooled reader; its buffers and arenas keep their memory. */
static void reader_start(reader *r, eng_db *db, const eng_query *q, eng_row_cb cb, void *ctx,
                         eng_read_info *info, eng_err *err)
{
    r->db = db;
    r->q = q;
    r->cb = cb;
    r->ctx = ctx;
    r->err = err;
    r->info = info;
    r->now_s = q->now_s ? q->now_s : eng_clock_now_s(&db->clock);
    r->forward = !(eng_storage_reversed(q->table) ^ !!q->reversed);
    r->returned = 0;
    r->peeking = 0;
    r->done = 0;
    r->in_partition = 0;
    r->last_key = NULL;
    r->last_len = 0;
    r->last_in_partition = 0;
    r->has_static_row = 0;
    r->static_live = 0;
    r->at_key = NULL;
    r->plain = NULL;
}

int eng_read(eng_db *db, const eng_query *q, eng_row_cb cb, void *ctx, eng_read_info *info,
             eng_err *err)
{
    eng_read_info local = {0, 0, ENG_BUF_INIT};
    if (!info)
        info = &local;
    info->rows = 0;
    info->has_more = 0;
    eng_buf_reset(&info->resume);
    reader *r = reader_get(db);
    if (!r)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory in a read");
    reader_start(r, db, q, cb, ctx, info, err);
    int rc, restart = 0;
    if (q->table->n_pk > ENG_MAX_KEY_COLUMNS || q->table->n_ck > ENG_MAX_KEY_COLUMNS)
        /* CREATE TABLE refuses more; a table from elsewhere is refused, never overrun. */
        rc = eng_errorf(err, ENG_E_INVALID, "too many key columns");
    else if (q->n_project && (rc = project_prepare(r)) != 0)
        ; /* refused: a column the table does not have */
    else if (q->vtable)
        rc = read_virtual(r);
    else
        do {
            rc = read_once(r, &restart);
        } while (!rc && restart);
    info->rows = r->returned;
    reader_put(db, r);
    if (info == &local)
        eng_read_info_free(&local);
    return rc;
}

void eng_read_info_free(eng_read_info *info)
{
    if (info)
        eng_buf_free(&info->resume);
}
