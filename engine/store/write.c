/*
 * The write path: turns mutations into stored cells, row markers and
 * tombstones (facts §4.3-§4.5, §6), reconciles them with what is stored
 * (row.c), and writes the result — all inside one LMDB write transaction,
 * so a batch applies completely or not at all.
 *
 * Per row: read the stored row, build the update from the operations,
 * merge, encode, put. Partition and range deletions go to the partition
 * header and are applied to rows lazily by reads and by purge, which keeps
 * a partition delete O(1).
 *
 * Timestamps: a statement without USING TIMESTAMP takes the batch's server
 * timestamp (one per transaction, strictly increasing, facts §9). In CAS
 * mode (lightweight transactions) cells and markers get the ballot time T
 * and every deletion T-1 (facts §5.5).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/store/fault.h"
#include "engine/store/store_int.h"
#include "engine/store/keycodec.h"
#include "engine/store/rowkey.h"

/* Reference date of Cassandra's mirrored clock for list prepends: 2010-01-01T00:00Z. */
#define PREPEND_REF_MS 1262304000000LL

static const eng_type timeuuid_type = {.kind = ENG_TIMEUUID};

typedef struct writer {
    eng_db *db;
    MDB_txn *txn;
    const eng_table *t; /* the caller's table (types, column ids) */
    MDB_dbi dbi;        /* storage of the current table */
    int64_t ts;         /* cells and markers */
    int64_t del_ts;     /* deletions: ts, or ts - 1 in CAS mode */
    int64_t now_s;
    int32_t ttl;
    eng_arena arena; /* per row */
    eng_cell *cells;
    uint32_t n_cells, cap_cells;
    eng_complex_del *cdels;
    uint32_t n_cdels, cap_cdels;
    eng_buf prefix;  /* partition prefix of the current mutation */
    eng_buf key;
    eng_buf val;
    eng_buf tmp;
    eng_buf hkey;       /* the partition header's key (the row key stays in `key`) */
    eng_pheader header; /* loaded lazily for list reads */
    int header_loaded;
    eng_arena header_arena;
    const struct prefetch *pre; /* the current row's stored state before the batch, or NULL */
    /* Rows already read in the transaction (eng_known_row), until the first write: a stored
       row points into its page, which a put may move if this transaction already changed it. */
    const eng_known_row *known;
    uint32_t n_known;
    eng_err *err;
} writer;

/*
 * A row's stored state as it was before the batch (eng_write_in_txn with several mutations):
 * what a list operation by index or removal reads (Cassandra's BatchStatement builds every
 * statement's mutation before applying any, each statement's UpdateParameters reading the
 * stored rows, so statements of a batch do not see each other's writes).
 */
typedef struct prefetch {
    eng_row row;           /* empty when there was none */
    eng_deletion covering; /* the partition and range deletions over the row */
} prefetch;

static int nomem(writer *w) { return eng_errorf(w->err, ENG_E_NOMEM, "out of memory in a write"); }

static int add_cell(writer *w, uint32_t col, uint8_t flags, const uint8_t *path, int32_t path_len,
                    eng_val value)
{
    if (w->n_cells == w->cap_cells) {
        uint32_t cap = w->cap_cells ? w->cap_cells * 2 : 16;
        eng_cell *c = eng_realloc(w->cells, cap * sizeof *c);
        if (!c)
            return nomem(w);
        w->cells = c;
        w->cap_cells = cap;
    }
    eng_cell *c = &w->cells[w->n_cells++];
    memset(c, 0, sizeof *c);
    c->col = col;
    c->flags = flags;
    c->ts_us = w->ts;
    c->path.len = ENG_NULL;
    if (path_len >= 0) {
        c->path.p = eng_arena_memdup(&w->arena, path, (size_t)path_len);
        if (!c->path.p)
            return nomem(w);
        c->path.len = path_len;
    }
    if (flags & ENG_CELL_TOMBSTONE) {
        c->ldt_s = w->now_s;
        c->value.len = 0;
    } else {
        c->value = value;
        if (w->ttl > 0 && !(flags & ENG_CELL_COUNTER)) {
            c->flags |= ENG_CELL_EXPIRING;
            c->ttl_s = w->ttl;
            c->ldt_s = w->now_s + w->ttl;
        } else {
            c->ldt_s = ENG_LDT_LIVE;
        }
    }
    return 0;
}

static int add_cdel(writer *w, uint32_t col, int64_t ts)
{
    if (w->n_cdels == w->cap_cdels) {
        uint32_t cap = w->cap_cdels ? w->cap_cdels * 2 : 4;
        eng_complex_del *d = eng_realloc(w->cdels, cap * sizeof *d);
        if (!d)
            return nomem(w);
        w->cdels = d;
        w->cap_cdels = cap;
    }
    w->cdels[w->n_cdels++] = (eng_complex_del){col, {ts, w->now_s}};
    return 0;
}

/* Element path of a set element / map key: its key encoding (memcmp = element order). */
static int elem_path(writer *w, const eng_type *type, eng_val v)
{
    eng_buf_reset(&w->tmp);
    if (v.len < 0)
        return eng_errorf(w->err, ENG_E_INVALID, "null is not supported inside collections");
    return eng_key_put(&w->tmp, type, v.p, (size_t)v.len, 0, w->err);
}

static int add_elem(writer *w, const eng_column *c, uint8_t flags, const eng_type *path_type,
                    eng_val key, eng_val value)
{
    int rc = elem_path(w, path_type, key);
    if (rc)
        return rc;
    return add_cell(w, c->id, flags, w->tmp.p, (int32_t)w->tmp.len, value);
}

/* Fresh list cell paths: time UUIDs from the database's generator (facts §4.5). */
static int add_list_elem(writer *w, const eng_column *c, uint64_t ticks, eng_val value)
{
    uint8_t u[16];
    if (ticks)
        eng_uuid_from_ticks(ticks, w->db->uuidgen.lsb, u);
    else
        eng_uuidgen_next(&w->db->uuidgen, eng_clock_now_us(&w->db->clock), u);
    eng_val uv = {u, 16};
    return add_elem(w, c, 0, &timeuuid_type, uv, value);
}

static int malformed(writer *w, const eng_column *c)
{
    return eng_errorf(w->err, ENG_E_INVALID, "Invalid collection value for column %s", c->name);
}

/* Adds every element of a serialized collection value (set, map, list) or UDT. */
static int add_all(writer *w, const eng_column *c, eng_val v, int tombstones)
{
    const eng_type *ty = c->type;
    eng_items it;
    eng_val a, b;
    int r;
    if (ty->kind == ENG_UDT) {
        eng_items_begin_raw(&it, v.p, (size_t)v.len);
        for (uint16_t i = 0; (r = eng_items_next(&it, &a)) == 1; i++) {
            if (i >= ty->n_sub)
                return malformed(w, c);
            if (a.len < 0 && !tombstones)
                continue; /* a null field of an overwrite is simply absent */
            uint8_t path[2] = {(uint8_t)(i >> 8), (uint8_t)i};
            int rc = add_cell(w, c->id, tombstones ? ENG_CELL_TOMBSTONE : 0, path, 2, a);
            if (rc)
                return rc;
        }
        return r < 0 ? malformed(w, c) : 0;
    }
    if (eng_items_begin(&it, v.p, (size_t)v.len) < 0)
        return malformed(w, c);
    while ((r = eng_items_next(&it, &a)) == 1) {
        int rc;
        if (ty->kind == ENG_MAP && !tombstones) {
            if (eng_items_next(&it, &b) != 1)
                return malformed(w, c);
            if (b.len < 0)
                return eng_errorf(w->err, ENG_E_INVALID,
                                  "null is not supported inside collections");
            rc = add_elem(w, c, 0, ty->sub[0], a, b);
        } else if (ty->kind == ENG_LIST && !tombstones) {
            if (a.len < 0)
                return eng_errorf(w->err, ENG_E_INVALID,
                                  "null is not supported inside collections");
            rc = add_list_elem(w, c, 0, a);
        } else {
            eng_val empty = {(const uint8_t *)"", 0};
            rc = add_elem(w, c, tombstones ? ENG_CELL_TOMBSTONE : 0, ty->sub[0], a, empty);
        }
        if (rc)
            return rc;
    }
    return r < 0 ? malformed(w, c) : 0;
}

/* Prepends get decreasing time UUIDs from a clock mirrored around 2010 (facts §4.5). */
static _Atomic uint64_t last_prepend_base = UINT64_MAX;

static int prepend_all(writer *w, const eng_column *c, eng_val v)
{
    eng_items it;
    int32_t n = eng_items_begin(&it, v.p, (size_t)v.len);
    if (n < 0)
        return malformed(w, c);
    int64_t now_ms = eng_clock_now_us(&w->db->clock) / 1000;
    int64_t mirrored_ms = PREPEND_REF_MS - (now_ms - PREPEND_REF_MS);
    uint64_t hi = (uint64_t)(mirrored_ms + ENG_UUID_EPOCH_OFFSET_MS) * 10000 + 9999;
    uint64_t last = atomic_load(&last_prepend_base), base;
    do {
        base = (last < hi ? last : hi) - (uint64_t)n - 1;
    } while (!atomic_compare_exchange_weak(&last_prepend_base, &last, base));
    eng_val a;
    int r;
    for (uint64_t i = 1; (r = eng_items_next(&it, &a)) == 1; i++) {
        if (a.len < 0)
            return eng_errorf(w->err, ENG_E_INVALID, "null is not supported inside collections");
        int rc = add_list_elem(w, c, base + i, a);
        if (rc)
            return rc;
    }
    return r < 0 ? malformed(w, c) : 0;
}

/* ---- reading the stored state a list operation needs ---- */

static int cell_cmp(const void *a, const void *b) { return eng_cell_position_cmp(a, b); }

static int load_header(writer *w)
{
    if (w->header_loaded)
        return 0;
    eng_pheader_init(&w->header);
    eng_buf_reset(&w->hkey);
    eng_buf_put(&w->hkey, w->prefix.p, w->prefix.len);
    eng_buf_put_u8(&w->hkey, ENG_KIND_HEADER);
    if (w->hkey.oom)
        return nomem(w);
    MDB_val k = {w->hkey.len, w->hkey.p}, v;
    int rc = ENG_FAULT_CALL(mdb_get(w->txn, w->dbi, &k, &v));
    if (rc == 0 && !(rc = eng_stored_bounds(w->txn, w->t, &k, &v, w->err)))
        rc = eng_pheader_decode(v.mv_data, v.mv_size, eng_storage_seal(w->t, k.mv_data, k.mv_size),
                                &w->header, &w->header_arena, w->err);
    else if (rc == MDB_NOTFOUND)
        rc = 0;
    else
        rc = eng_lmdb_err(w->err, rc, "read partition header");
    w->header_loaded = rc == 0;
    return rc;
}

/*
 * The live elements of list column c as the statement's next operation sees
 * them, in list order: the stored row merged with what the statement has
 * written so far (Cassandra 3.11+ UpdateParameters.getPrefetchedRow merges
 * the prefetched row with the pending updates, so `l = l + [x], l[i] = v`
 * sees x, and a second `DELETE l[i]` deletes the element that moved to i).
 * Cells are copied: add_cell may move w->cells.
 */
static int live_list(writer *w, const eng_row *old, const eng_deletion *covering,
                     const eng_column *c, eng_cell *out, uint32_t *n)
{
    *n = 0;
    eng_deletion cdel = {ENG_TS_NONE, 0};
    for (uint32_t i = 0; i < old->n_cdels; i++)
        if (old->cdels[i].col == c->id)
            cdel = old->cdels[i].del;
    for (uint32_t i = 0; i < w->n_cdels; i++)
        if (w->cdels[i].col == c->id && eng_deletion_supersedes(&w->cdels[i].del, &cdel))
            cdel = w->cdels[i].del;
    /* The stored cells and the pending ones; equal positions are reconciled as the merge of a
       row update would (eng_cell_b_wins, whose outcome does not depend on their order). */
    for (uint32_t i = 0; i < old->n_cells; i++)
        if (old->cells[i].col == c->id)
            out[(*n)++] = old->cells[i];
    for (uint32_t i = 0; i < w->n_cells; i++)
        if (w->cells[i].col == c->id)
            out[(*n)++] = w->cells[i];
    qsort(out, *n, sizeof *out, cell_cmp);
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (k && eng_cell_position_cmp(&out[k - 1], &out[i]) == 0) {
            if (eng_cell_b_wins(&out[k - 1], &out[i]))
                out[k - 1] = out[i];
            continue;
        }
        out[k++] = out[i];
    }
    /* Then the purge: tombstones, expired cells and what a deletion shadows go. Cassandra merges
       and purges only when a row is stored; without one it hands back the pending update as
       built, its element tombstones counting as elements. */
    int purge = !eng_row_is_empty(old);
    *n = 0;
    for (uint32_t i = 0; i < k; i++) {
        const eng_cell *x = &out[i];
        if ((!purge || eng_cell_is_live(x, w->now_s)) && !eng_deletion_deletes(&cdel, x->ts_us) &&
            !eng_deletion_deletes(&old->deletion, x->ts_us) &&
            !eng_deletion_deletes(covering, x->ts_us))
            out[(*n)++] = *x;
    }
    return 0;
}

typedef struct list_state {
    eng_cell *cells;
    uint32_t n;
    int header; /* the partition header is loaded (range tombstones over the row) */
    eng_deletion covering;
} list_state;

static int list_elements(writer *w, const eng_row *old, const uint8_t *ck_key, size_t ck_len,
                         const eng_column *c, list_state *ls)
{
    if (!ls->header && w->pre) {
        ls->covering = w->pre->covering;
        ls->header = 1;
    } else if (!ls->header) {
        int rc = load_header(w);
        if (rc)
            return rc;
        ls->covering = eng_pheader_covering(&w->header, ck_key, ck_len);
        ls->header = 1;
    }
    ls->cells = eng_arena_alloc(&w->arena, (old->n_cells + w->n_cells + 1) * sizeof *ls->cells);
    if (!ls->cells)
        return nomem(w);
    return live_list(w, old, &ls->covering, c, ls->cells, &ls->n);
}

static int32_t list_index(eng_val key) { return key.len == 4 ? (int32_t)eng_be32(key.p) : -1; }

/* l[i] = v / DELETE l[i] (facts §4.5 messages). */
static int list_set_index(writer *w, const eng_column *c, const eng_cell_op *op, list_state *ls,
                          int deleting)
{
    if (op->key.len < 0)
        return eng_errorf(w->err, ENG_E_INVALID, "Invalid null value for list index");
    int32_t idx = list_index(op->key);
    if (ls->n == 0)
        return eng_errorf(w->err, ENG_E_INVALID,
                          deleting ? "Attempted to delete an element from a list which is null"
                                   : "Attempted to set an element on a list which is null");
    if (idx < 0 || (uint32_t)idx >= ls->n)
        return eng_errorf(w->err, ENG_E_INVALID, "List index %d out of bound, list has size %u",
                          idx, ls->n);
    const eng_cell *x = &ls->cells[idx];
    int tomb = deleting || op->value.len < 0;
    return add_cell(w, c->id, tomb ? ENG_CELL_TOMBSTONE : 0, x->path.p, x->path.len, op->value);
}

/* l = l - [...]: tombstones every live element equal to one of the values. */
static int list_remove(writer *w, const eng_column *c, eng_val v, list_state *ls)
{
    eng_items it;
    if (eng_items_begin(&it, v.p, (size_t)v.len) < 0)
        return malformed(w, c);
    eng_val a;
    int r;
    const eng_type *et = c->type->sub[0];
    while ((r = eng_items_next(&it, &a)) == 1) {
        if (a.len < 0)
            return eng_errorf(w->err, ENG_E_INVALID, "null is not supported inside collections");
        for (uint32_t i = 0; i < ls->n; i++) {
            const eng_cell *x = &ls->cells[i];
            if (x->value.len != a.len ||
                eng_type_compare(et, x->value.p, (size_t)x->value.len, a.p, (size_t)a.len) != 0)
                continue;
            int rc = add_cell(w, c->id, ENG_CELL_TOMBSTONE, x->path.p, x->path.len, a);
            if (rc)
                return rc;
        }
    }
    return r < 0 ? malformed(w, c) : 0;
}

/* ---- operations ---- */

static int op_set(writer *w, const eng_column *c, const eng_cell_op *op)
{
    if (!eng_type_is_multicell(c->type)) {
        uint8_t flags = op->value.len < 0 ? ENG_CELL_TOMBSTONE : 0;
        return add_cell(w, c->id, flags, NULL, ENG_NULL, op->value);
    }
    /* Overwrite: the deletion at ts-1 lets the new elements at ts survive it (facts §4.5). */
    int rc = add_cdel(w, c->id, w->ts - 1);
    if (rc || op->value.len < 0)
        return rc;
    return add_all(w, c, op->value, 0);
}

static int op_elem(writer *w, const eng_column *c, const eng_cell_op *op, int deleting,
                   const eng_row *old, const uint8_t *ck, size_t ck_len, list_state *ls)
{
    const eng_type *ty = c->type;
    int tomb = deleting || op->value.len < 0;
    if (ty->kind == ENG_LIST) {
        int rc = list_elements(w, old, ck, ck_len, c, ls);
        return rc ? rc : list_set_index(w, c, op, ls, deleting);
    }
    if (ty->kind == ENG_UDT) {
        if (op->key.len != 2 || eng_be16(op->key.p) >= ty->n_sub)
            return eng_errorf(w->err, ENG_E_INVALID, "Invalid field of user type column %s",
                              c->name);
        return add_cell(w, c->id, tomb ? ENG_CELL_TOMBSTONE : 0, op->key.p, 2, op->value);
    }
    if (op->key.len < 0)
        return eng_errorf(w->err, ENG_E_INVALID, "Invalid null value for %s element access",
                          c->name);
    return add_elem(w, c, tomb ? ENG_CELL_TOMBSTONE : 0, ty->sub[0], op->key, op->value);
}

static int apply_op(writer *w, const eng_cell_op *op, const eng_row *old, const uint8_t *ck,
                    size_t ck_len, list_state *lists)
{
    if (op->col >= w->t->n_cols)
        return eng_errorf(w->err, ENG_E_INVALID, "Invalid column index %u", op->col);
    const eng_column *c = &w->t->cols[op->col];
    if (c->kind == ENG_COL_PARTITION || c->kind == ENG_COL_CLUSTERING)
        return eng_errorf(w->err, ENG_E_INVALID, "PRIMARY KEY part %s found in SET part",
                          c->name);
    if (op->value.len == ENG_UNSET || (op->kind == ENG_OP_ELEM_SET && op->key.len == ENG_UNSET))
        return 0;
    int multi = eng_type_is_multicell(c->type);
    int kind = c->type->kind;
    list_state *ls = &lists[op->col];
    switch (op->kind) {
    case ENG_OP_SET:
        return op_set(w, c, op);
    case ENG_OP_DELETE:
        return multi ? add_cdel(w, c->id, w->del_ts)
                     : add_cell(w, c->id, ENG_CELL_TOMBSTONE, NULL, ENG_NULL, op->value);
    case ENG_OP_ELEM_SET:
    case ENG_OP_ELEM_DELETE:
        if (!multi)
            break;
        return op_elem(w, c, op, op->kind == ENG_OP_ELEM_DELETE, old, ck, ck_len, ls);
    case ENG_OP_ADD:
    case ENG_OP_REMOVE:
        if (!multi || (kind != ENG_SET && kind != ENG_MAP) || op->value.len < 0)
            break;
        if (op->kind == ENG_OP_REMOVE && kind == ENG_MAP) {
            /* m - {keys}: the keys come as a set of the key type. */
            eng_column as_set = *c;
            eng_type set_type = {.kind = ENG_SET, .n_sub = 1, .sub = c->type->sub};
            as_set.type = &set_type;
            return add_all(w, &as_set, op->value, 1);
        }
        return add_all(w, c, op->value, op->kind == ENG_OP_REMOVE);
    case ENG_OP_APPEND:
        if (!multi || kind != ENG_LIST || op->value.len < 0)
            break;
        return add_all(w, c, op->value, 0);
    case ENG_OP_PREPEND:
        if (!multi || kind != ENG_LIST || op->value.len < 0)
            break;
        return prepend_all(w, c, op->value);
    case ENG_OP_LIST_REMOVE: {
        if (!multi || kind != ENG_LIST || op->value.len < 0)
            break;
        int rc = list_elements(w, old, ck, ck_len, c, ls);
        return rc ? rc : list_remove(w, c, op->value, ls);
    }
    case ENG_OP_COUNTER_ADD:
        if (kind != ENG_COUNTER)
            break;
        if (op->value.len != 8)
            return eng_errorf(w->err, ENG_E_INVALID, "Invalid null value for counter increment");
        return add_cell(w, c->id, ENG_CELL_COUNTER, NULL, ENG_NULL, op->value);
    }
    return eng_errorf(w->err, ENG_E_INVALID, "Invalid operation for column %s", c->name);
}

/* ---- assembling the update and writing a row ---- */

/* Sorts the update's cells and folds several writes to one position into one. */
static void fold_cells(writer *w)
{
    if (w->n_cells < 2)
        return;
    qsort(w->cells, w->n_cells, sizeof *w->cells, cell_cmp);
    uint32_t out = 0;
    for (uint32_t i = 1; i < w->n_cells; i++) {
        eng_cell *keep = &w->cells[out], *x = &w->cells[i];
        if (eng_cell_position_cmp(keep, x) != 0) {
            w->cells[++out] = *x;
            continue;
        }
        if ((keep->flags & x->flags & ENG_CELL_COUNTER) && !(keep->flags & ENG_CELL_TOMBSTONE) &&
            !(x->flags & ENG_CELL_TOMBSTONE)) {
            /* Several increments of one counter in one statement add up (facts §6). */
            uint8_t *sum = eng_arena_alloc(&w->arena, 8);
            if (sum) {
                eng_put_be64(sum, eng_be64(keep->value.p) + eng_be64(x->value.p));
                keep->value.p = sum;
            }
            continue;
        }
        if (eng_cell_b_wins(keep, x))
            *keep = *x;
    }
    w->n_cells = out + 1;
}

static void fold_cdels(writer *w)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < w->n_cdels; i++) {
        uint32_t j;
        for (j = 0; j < out; j++)
            if (w->cdels[j].col == w->cdels[i].col)
                break;
        if (j == out)
            w->cdels[out++] = w->cdels[i];
        else if (eng_deletion_supersedes(&w->cdels[i].del, &w->cdels[j].del))
            w->cdels[j].del = w->cdels[i].del;
    }
    w->n_cdels = out;
    for (uint32_t i = 1; i < out; i++) /* few entries: insertion sort by column */
        for (uint32_t j = i; j > 0 && w->cdels[j - 1].col > w->cdels[j].col; j--) {
            eng_complex_del tmp = w->cdels[j];
            w->cdels[j] = w->cdels[j - 1];
            w->cdels[j - 1] = tmp;
        }
}

/* Starts a row: resets the per-row state and builds its storage key in w->key (the clustering
   part starts at *ck_off). */
static int row_key(writer *w, const eng_row_mut *rm, size_t *ck_off)
{
    eng_arena_reset(&w->arena);
    w->n_cells = 0;
    w->n_cdels = 0;
    eng_buf_reset(&w->key);
    eng_buf_put(&w->key, w->prefix.p, w->prefix.len);
    eng_buf_put_u8(&w->key, rm->ck ? ENG_KIND_ROW : ENG_KIND_STATIC);
    *ck_off = w->key.len;
    int rc = 0;
    if (rm->ck)
        rc = eng_storage_clustering(&w->key, w->t, rm->ck, w->t->n_ck, w->err);
    if (!rc && w->key.oom)
        rc = nomem(w);
    if (!rc)
        rc = eng_storage_check_key(w->key.len, w->err);
    if (rc)
        return rc;
    if (!rm->ck && rm->insert_marker)
        return eng_errorf(w->err, ENG_E_INVALID, "a static row takes no row marker");
    return 0;
}

/* The row rm writes over `old` (the stored row, empty when there is none), merged into *out. */
static int merge_update(writer *w, const eng_row_mut *rm, const eng_row *old, size_t ck_off,
                        eng_row *out)
{
    eng_row upd;
    eng_row_init(&upd);
    if (rm->insert_marker) {
        upd.marker.ts_us = w->ts;
        upd.marker.ttl_s = w->ttl > 0 ? w->ttl : 0;
        upd.marker.expiry_s = w->ttl > 0 ? w->now_s + w->ttl : ENG_LDT_LIVE;
    }
    if (rm->delete_row)
        upd.deletion = (eng_deletion){w->del_ts, w->now_s};
    list_state *lists = NULL;
    if (rm->n_ops) {
        lists = eng_arena_alloc(&w->arena, w->t->n_cols * sizeof *lists);
        if (!lists)
            return nomem(w);
        memset(lists, 0, w->t->n_cols * sizeof *lists);
    }
    const uint8_t *ck_key = w->key.p + ck_off;
    size_t ck_len = w->key.len - ck_off;
    const eng_row *seen = w->pre ? &w->pre->row : old; /* what list operations read */
    int rc = 0;
    for (uint32_t i = 0; i < rm->n_ops && !rc; i++)
        rc = apply_op(w, &rm->ops[i], seen, ck_key, ck_len, lists);
    if (rc)
        return rc;
    fold_cells(w);
    fold_cdels(w);
    upd.cells = w->cells;
    upd.n_cells = w->n_cells;
    upd.cdels = w->cdels;
    upd.n_cdels = w->n_cdels;
    return eng_row_merge(old, &upd, out, &w->arena, w->err);
}

/* The known row of w->key, or NULL. */
static const eng_known_row *known_row(const writer *w)
{
    for (uint32_t i = 0; i < w->n_known; i++) {
        const eng_known_row *kr = &w->known[i];
        if (kr->key_len == w->key.len && memcmp(kr->key, w->key.p, kr->key_len) == 0)
            return kr;
    }
    return NULL;
}

/* The row stored at w->key as the write finds it (empty, *found 0, when there is none). */
static int stored_row(writer *w, eng_row *old, int *found)
{
    eng_row_init(old);
    *found = 0;
    const eng_known_row *kr = known_row(w);
    if (kr) {
        if ((*found = kr->found))
            *old = *kr->row;
        return 0;
    }
    MDB_val k = {w->key.len, w->key.p}, v;
    int rc = ENG_FAULT_CALL(mdb_get(w->txn, w->dbi, &k, &v));
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return eng_lmdb_err(w->err, rc, "read row");
    *found = 1;
    if ((rc = eng_stored_bounds(w->txn, w->t, &k, &v, w->err)))
        return rc;
    return eng_row_decode(v.mv_data, v.mv_size, eng_storage_seal(w->t, k.mv_data, k.mv_size), old,
                          &w->arena, w->err);
}

static int write_row(writer *w, const eng_row_mut *rm)
{
    size_t ck_off;
    int rc = row_key(w, rm, &ck_off);
    if (rc)
        return rc;
    eng_row old;
    int found;
    if ((rc = stored_row(w, &old, &found)))
        return rc;
    eng_row merged;
    if ((rc = merge_update(w, rm, &old, ck_off, &merged)))
        return rc;
    w->n_known = 0; /* what follows writes */
    MDB_val k = {w->key.len, w->key.p}, v;
    if (eng_row_is_empty(&merged)) {
        rc = found ? ENG_FAULT_CALL(mdb_del(w->txn, w->dbi, &k, NULL)) : 0;
        return rc ? eng_lmdb_err(w->err, rc, "delete row") : 0;
    }
    eng_buf_reset(&w->val);
    eng_row_encode(&merged, eng_storage_seal(w->t, w->key.p, w->key.len), &w->val);
    if (w->val.oom)
        return nomem(w);
    v.mv_size = w->val.len;
    v.mv_data = w->val.p;
    rc = ENG_FAULT_CALL(mdb_put(w->txn, w->dbi, &k, &v, 0));
    return rc ? eng_lmdb_err(w->err, rc, "write row") : 0;
}

/* Partition deletion and range tombstones go to the partition header. */
static int write_header(writer *w, const eng_mutation *m)
{
    int rc = load_header(w);
    if (rc)
        return rc;
    w->n_known = 0; /* what follows writes */
    eng_pheader h = w->header;
    eng_deletion del = {w->del_ts, w->now_s};
    if (m->delete_partition && eng_deletion_supersedes(&del, &h.partition_del))
        h.partition_del = del;
    eng_range_tomb *rts = NULL;
    if (m->n_range_dels) {
        rts = eng_arena_alloc(&w->header_arena, (h.n_rts + m->n_range_dels) * sizeof *rts);
        if (!rts)
            return nomem(w);
        if (h.n_rts)
            memcpy(rts, h.rts, h.n_rts * sizeof *rts);
        for (uint32_t i = 0; i < m->n_range_dels; i++) {
            eng_buf lo = ENG_BUF_INIT, hi = ENG_BUF_INIT;
            int lo_incl, hi_incl;
            rc = eng_storage_slice(w->t, &m->range_dels[i], &lo, &lo_incl, &hi, &hi_incl, w->err);
            eng_range_tomb *rt = &rts[h.n_rts + i];
            rt->lo.p = eng_arena_memdup(&w->header_arena, lo.p, lo.len);
            rt->lo.len = (int32_t)lo.len;
            rt->hi.p = eng_arena_memdup(&w->header_arena, hi.p, hi.len);
            rt->hi.len = (int32_t)hi.len;
            rt->lo_incl = (uint8_t)lo_incl;
            rt->hi_incl = (uint8_t)hi_incl;
            rt->del = del;
            int bad = lo.oom || hi.oom || !rt->lo.p || !rt->hi.p;
            eng_buf_free(&lo);
            eng_buf_free(&hi);
            if (rc)
                return rc;
            if (bad)
                return nomem(w);
        }
        h.rts = rts;
        h.n_rts += m->n_range_dels;
    }
    w->header = h;
    eng_buf_reset(&w->val);
    eng_pheader_encode(&h, eng_storage_seal(w->t, w->hkey.p, w->hkey.len), &w->val);
    if (w->hkey.oom || w->val.oom)
        return nomem(w);
    if ((rc = eng_storage_check_key(w->hkey.len, w->err)))
        return rc;
    MDB_val k = {w->hkey.len, w->hkey.p}, v = {w->val.len, w->val.p};
    rc = ENG_FAULT_CALL(mdb_put(w->txn, w->dbi, &k, &v, 0));
    return rc ? eng_lmdb_err(w->err, rc, "write partition header") : 0;
}

static int write_mutation(writer *w, const eng_table *cur, const eng_mutation *m, int64_t ts,
                          int cas, prefetch *const *pre)
{
    const eng_table *t = m->table;
    w->t = t;
    w->dbi = cur->dbi;
    w->ts = m->ts_us != ENG_TS_NONE ? m->ts_us : ts;
    w->del_ts = cas ? w->ts - 1 : w->ts;
    w->ttl = m->ttl_s < 0 ? cur->default_ttl_s : m->ttl_s;
    w->header_loaded = 0;
    eng_arena_reset(&w->header_arena);
    /* A column dropped since the caller's snapshot was taken cannot be written. */
    if (t != cur) {
        for (uint32_t i = 0; i < m->n_rows; i++)
            for (uint32_t j = 0; j < m->rows[i].n_ops; j++) {
                uint16_t col = m->rows[i].ops[j].col;
                if (col < t->n_cols && !eng_table_column_by_id(cur, t->cols[col].id))
                    return eng_errorf(w->err, ENG_E_INVALID, "Undefined column name %s",
                                      t->cols[col].name);
            }
    }
    eng_buf_reset(&w->prefix);
    int rc = eng_storage_partition(&w->prefix, t, m->pk, NULL, w->err);
    if (rc)
        return rc;
    if (m->delete_partition || m->n_range_dels)
        if ((rc = write_header(w, m)))
            return rc;
    for (uint32_t i = 0; i < m->n_rows && !rc; i++) {
        w->pre = pre ? pre[i] : NULL;
        rc = write_row(w, &m->rows[i]);
        w->pre = NULL;
    }
    return rc;
}

/* 1 when a list operation of rm reads the list (by index or removal). */
static int reads_list(const eng_table *t, const eng_row_mut *rm)
{
    for (uint32_t i = 0; i < rm->n_ops; i++) {
        const eng_cell_op *op = &rm->ops[i];
        if (op->col >= t->n_cols || t->cols[op->col].type->kind != ENG_LIST ||
            !eng_type_is_multicell(t->cols[op->col].type))
            continue;
        if (op->kind == ENG_OP_LIST_REMOVE || op->kind == ENG_OP_ELEM_SET ||
            op->kind == ENG_OP_ELEM_DELETE)
            return 1;
    }
    return 0;
}

/*
 * Before a batch writes anything: the stored state of each row that a list operation of a
 * statement after the first reads (*out[i][j] for row j of mutation i; NULL where none is
 * needed, and *out NULL when no row needs one). A mutation whose table or key is refused is
 * left to the write, which refuses it in turn.
 */
static int prefetch_lists(writer *w, const eng_schema *cur, const eng_mutation *muts, uint32_t n,
                          eng_arena *a, prefetch ****out)
{
    *out = NULL;
    prefetch ***pre = NULL;
    for (uint32_t i = 1; i < n; i++) {
        const eng_mutation *m = &muts[i];
        const eng_table *t;
        eng_err ignored;
        memset(&ignored, 0, sizeof ignored);
        if (eng_resolve_table(cur, m->table, &t, &ignored))
            continue;
        int any = 0;
        for (uint32_t j = 0; j < m->n_rows && !any; j++)
            any = reads_list(m->table, &m->rows[j]);
        if (!any)
            continue;
        if (!pre) {
            if (!(pre = eng_arena_alloc(a, n * sizeof *pre)))
                return nomem(w);
            memset(pre, 0, n * sizeof *pre);
        }
        eng_buf_reset(&w->prefix);
        w->t = m->table;
        w->dbi = t->dbi;
        w->header_loaded = 0;
        eng_arena_reset(&w->header_arena);
        if (eng_storage_partition(&w->prefix, m->table, m->pk, NULL, &ignored))
            continue;
        if (!(pre[i] = eng_arena_alloc(a, m->n_rows * sizeof *pre[i])))
            return nomem(w);
        memset(pre[i], 0, m->n_rows * sizeof *pre[i]);
        for (uint32_t j = 0; j < m->n_rows; j++) {
            size_t ck_off;
            if (!reads_list(m->table, &m->rows[j]) || row_key(w, &m->rows[j], &ck_off))
                continue;
            prefetch *p = eng_arena_alloc(a, sizeof *p);
            if (!p)
                return nomem(w);
            eng_row_init(&p->row);
            int rc = load_header(w);
            if (rc)
                return rc;
            p->covering = eng_pheader_covering(&w->header, w->key.p + ck_off, w->key.len - ck_off);
            MDB_val k = {w->key.len, w->key.p}, v;
            rc = ENG_FAULT_CALL(mdb_get(w->txn, w->dbi, &k, &v));
            if (rc == 0) {
                /* copied: the batch's writes may change the page in place */
                void *copy = eng_arena_memdup(a, v.mv_data, v.mv_size ? v.mv_size : 1);
                if (!copy)
                    return nomem(w);
                rc = eng_stored_bounds(w->txn, w->t, &k, &v, w->err);
                if (!rc)
                    rc = eng_row_decode(copy, v.mv_size,
                                        eng_storage_seal(w->t, k.mv_data, k.mv_size), &p->row, a,
                                        w->err);
            } else if (rc == MDB_NOTFOUND) {
                rc = 0;
            } else {
                rc = eng_lmdb_err(w->err, rc, "read row");
            }
            if (rc)
                return rc;
            pre[i][j] = p;
        }
    }
    *out = pre;
    return 0;
}

/* The memory a writer holds (not the writer itself). */
static void writer_free(writer *w)
{
    eng_arena_free(&w->arena);
    eng_arena_free(&w->header_arena);
    eng_free(w->cells);
    eng_free(w->cdels);
    eng_buf_free(&w->prefix);
    eng_buf_free(&w->key);
    eng_buf_free(&w->val);
    eng_buf_free(&w->tmp);
    eng_buf_free(&w->hkey);
}

static void writer_destroy(writer *w)
{
    writer_free(w);
    eng_free(w);
}

/* A pooled writer of the calling thread's shard, or a new one (NULL on OOM): its buffers,
   arrays and arenas keep their memory from one write to the next. */
static writer *writer_get(eng_db *db)
{
    eng_shard *sh = &db->shards[eng_thread_shard()].s;
    writer *w = NULL;
    pthread_mutex_lock(&sh->lock);
    if (sh->n_writers)
        w = sh->writers[--sh->n_writers];
    pthread_mutex_unlock(&sh->lock);
    if (w)
        return w;
    if (!(w = eng_calloc(1, sizeof *w)))
        return NULL;
    eng_arena_init(&w->arena, 4096);
    eng_arena_init(&w->header_arena, 1024);
    return w;
}

/* Bytes past which a pooled writer's buffer is let go rather than kept for the next write. */
#define WRITER_KEEP (64 * 1024)

static void buf_trim(eng_buf *b)
{
    if (b->cap > WRITER_KEEP || b->oom)
        eng_buf_free(b);
    eng_buf_reset(b);
}

static void arena_trim(eng_arena *a)
{
    eng_arena_reset(a);
    if (eng_arena_size(a) > WRITER_KEEP)
        eng_arena_free(a);
}

static void writer_put(eng_db *db, writer *w)
{
    arena_trim(&w->arena);
    arena_trim(&w->header_arena);
    if (w->cap_cells * sizeof *w->cells > WRITER_KEEP) {
        eng_free(w->cells);
        w->cells = NULL;
        w->cap_cells = 0;
    }
    if (w->cap_cdels * sizeof *w->cdels > WRITER_KEEP) {
        eng_free(w->cdels);
        w->cdels = NULL;
        w->cap_cdels = 0;
    }
    eng_buf *bufs[] = {&w->prefix, &w->key, &w->val, &w->tmp, &w->hkey};
    for (size_t i = 0; i < ENG_ARRAY_LEN(bufs); i++)
        buf_trim(bufs[i]);
    eng_shard *sh = &db->shards[eng_thread_shard()].s;
    pthread_mutex_lock(&sh->lock);
    if (sh->n_writers < ENG_SHARD_POOL) {
        sh->writers[sh->n_writers++] = w;
        w = NULL;
    }
    pthread_mutex_unlock(&sh->lock);
    if (w)
        writer_destroy(w);
}

void eng_write_pool_free(eng_db *db)
{
    for (int i = 0; i < ENG_SHARDS; i++) {
        eng_shard *sh = &db->shards[i].s;
        for (int j = 0; j < sh->n_writers; j++)
            writer_destroy(sh->writers[j]);
        sh->n_writers = 0;
    }
}

/* Sets a pooled writer up for one call of eng_write_in_txn; its memory stays as it was. */
static void writer_start(writer *w, eng_db *db, MDB_txn *txn, const eng_known_row *known,
                         uint32_t n_known, eng_err *err)
{
    w->db = db;
    w->txn = txn;
    w->t = NULL;
    w->n_cells = 0;
    w->n_cdels = 0;
    w->header_loaded = 0;
    w->pre = NULL;
    w->known = known;
    w->n_known = n_known;
    w->err = err;
}

int eng_write_in_txn(eng_db *db, MDB_txn *txn, const eng_schema *cur, const eng_mutation *muts,
                     uint32_t n, int64_t ts, int cas, const eng_known_row *known,
                     uint32_t n_known, eng_err *err)
{
    writer *w = writer_get(db);
    if (!w)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory in a write");
    writer_start(w, db, txn, known, n_known, err);
    int64_t clock_s = eng_clock_now_s(&db->clock);
    eng_arena pre_arena;
    eng_arena_init(&pre_arena, 1024);
    prefetch ***pre = NULL;
    int rc = n > 1 ? prefetch_lists(w, cur, muts, n, &pre_arena, &pre) : 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        const eng_table *t;
        w->now_s = muts[i].now_s ? muts[i].now_s : clock_s;
        rc = eng_resolve_table(cur, muts[i].table, &t, err);
        if (!rc)
            rc = write_mutation(w, t, &muts[i], ts, cas, pre ? pre[i] : NULL);
    }
    eng_arena_free(&pre_arena);
    writer_put(db, w);
    if (!rc && n)
        eng_txn_dirty(db, txn); /* the commit takes an id (eng_note_commit) */
    return rc;
}

/*
 * The storage key and value of one row as an INSERT of `rm` into an empty
 * partition of t at ts_us would store it (virtual tables, virtual.c). Nothing
 * is read or written: no transaction.
 */
int eng_write_encode_row(eng_db *db, const eng_table *t, const eng_val *pk, const eng_row_mut *rm,
                         int64_t ts_us, eng_buf *key, eng_buf *val, eng_err *err)
{
    writer w;
    memset(&w, 0, sizeof w);
    w.db = db;
    w.t = t;
    w.ts = w.del_ts = ts_us;
    w.now_s = eng_clock_now_s(&db->clock);
    w.err = err;
    eng_arena_init(&w.arena, 1024);
    eng_arena_init(&w.header_arena, 256);
    int rc = eng_storage_partition(&w.prefix, t, pk, NULL, err);
    size_t ck_off;
    eng_row old, row;
    eng_row_init(&old);
    if (!rc)
        rc = row_key(&w, rm, &ck_off);
    if (!rc)
        rc = merge_update(&w, rm, &old, ck_off, &row);
    if (!rc) {
        eng_buf_put(key, w.key.p, w.key.len);
        eng_row_encode(&row, eng_storage_seal(t, w.key.p, w.key.len), val);
        if (key->oom || val->oom)
            rc = nomem(&w);
    }
    writer_free(&w);
    return rc;
}

typedef struct apply_args {
    const eng_mutation *muts;
    uint32_t n;
    int64_t ts;
} apply_args;

static int needs_server_timestamp(const eng_mutation *muts, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (muts[i].ts_us == ENG_TS_NONE)
            return 1;
    return 0;
}

static int apply_body(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *ctx, eng_err *err)
{
    apply_args *a = ctx;
    int rc = 0;
    a->ts = ENG_TS_NONE;
    if (needs_server_timestamp(a->muts, a->n))
        rc = eng_next_timestamp(db, txn, &a->ts, err);
    if (!rc)
        rc = eng_write_in_txn(db, txn, cur, a->muts, a->n, a->ts, 0, NULL, 0, err);
    return rc;
}

int eng_apply(eng_db *db, const eng_mutation *muts, uint32_t n, eng_write_info *info,
              eng_err *err)
{
    apply_args a = {muts, n, ENG_TS_NONE};
    int rc = eng_write_txn(db, apply_body, &a, err);
    if (!rc && info)
        info->ts_us = a.ts;
    return rc;
}

/* ---- asynchronous apply: the mutations are copied, the caller's memory is free at once ---- */

typedef struct apply_job {
    eng_job job;        /* first: the committer hands back &job */
    apply_args args;
    eng_schema *schema; /* keeps the mutations' tables alive */
    eng_apply_done done;
    void *arg;
    eng_arena arena;    /* the copied mutations and their bytes */
} apply_job;

/* Copies n values and their bytes into a; NULL on OOM (n = 0 gives a valid pointer). */
static const eng_val *copy_vals(eng_arena *a, const eng_val *v, size_t n)
{
    eng_val *d = eng_arena_alloc(a, (n ? n : 1) * sizeof *d);
    for (size_t i = 0; d && i < n; i++) {
        d[i].len = v[i].len;
        d[i].p = v[i].len == 0 ? (const uint8_t *)"" : NULL; /* nothing borrowed survives */
        if (v[i].len > 0 && !(d[i].p = eng_arena_memdup(a, v[i].p, (size_t)v[i].len)))
            return NULL;
    }
    return d;
}

static int copy_bound(eng_arena *a, eng_bound *b)
{
    return b->n && !(b->vals = copy_vals(a, b->vals, b->n)) ? -1 : 0;
}

static int copy_row(eng_arena *a, const eng_table *t, eng_row_mut *r)
{
    if (r->ck && !(r->ck = copy_vals(a, r->ck, t->n_ck)))
        return -1;
    eng_cell_op *ops = eng_arena_alloc(a, (r->n_ops ? r->n_ops : 1) * sizeof *ops);
    if (!ops)
        return -1;
    for (uint32_t i = 0; i < r->n_ops; i++) {
        ops[i] = r->ops[i];
        const eng_val *k = copy_vals(a, &ops[i].key, 1), *v = copy_vals(a, &ops[i].value, 1);
        if (!k || !v)
            return -1;
        ops[i].key = *k;
        ops[i].value = *v;
    }
    r->ops = ops;
    return 0;
}

static int copy_mutation(eng_arena *a, eng_mutation *m)
{
    if (!(m->pk = copy_vals(a, m->pk, m->table->n_pk)))
        return -1;
    if (m->n_range_dels) {
        eng_slice *s = eng_arena_memdup(a, m->range_dels, m->n_range_dels * sizeof *s);
        if (!s)
            return -1;
        for (uint32_t i = 0; i < m->n_range_dels; i++)
            if (copy_bound(a, &s[i].start) || copy_bound(a, &s[i].end))
                return -1;
        m->range_dels = s;
    }
    if (m->n_rows) {
        eng_row_mut *r = eng_arena_memdup(a, m->rows, m->n_rows * sizeof *r);
        if (!r)
            return -1;
        for (uint32_t i = 0; i < m->n_rows; i++)
            if (copy_row(a, m->table, &r[i]))
                return -1;
        m->rows = r;
    }
    return 0;
}

static void apply_job_free(apply_job *j)
{
    eng_arena_free(&j->arena);
    if (j->schema)
        eng_schema_unref(j->schema);
    eng_free(j);
}

static void apply_job_complete(eng_job *job)
{
    apply_job *j = (apply_job *)job;
    eng_write_info info = {j->args.ts};
    j->done(job->rc, &job->err, job->rc ? NULL : &info, j->arg);
    apply_job_free(j);
}

int eng_apply_async(eng_db *db, eng_schema *schema, const eng_mutation *muts, uint32_t n,
                    eng_apply_done done, void *arg, eng_err *err)
{
    if (!db->committer || eng_in_committer(db)) {
        eng_write_info info = {ENG_TS_NONE};
        eng_err local;
        eng_err_clear(&local);
        int rc = eng_apply(db, muts, n, &info, &local);
        done(rc, &local, rc ? NULL : &info, arg);
        return 0;
    }
    apply_job *j = eng_calloc(1, sizeof *j);
    if (!j)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory queueing a write");
    eng_arena_init(&j->arena, 1024);
    /* No mutation (a write whose IN list is empty) has nothing to copy, and muts may be NULL. */
    eng_mutation *m = n ? eng_arena_memdup(&j->arena, muts, n * sizeof *m)
                        : eng_arena_alloc(&j->arena, sizeof *m);
    int bad = !m;
    for (uint32_t i = 0; !bad && i < n; i++)
        bad = copy_mutation(&j->arena, &m[i]);
    if (bad) {
        apply_job_free(j);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory queueing a write");
    }
    j->schema = eng_schema_ref(schema);
    j->args = (apply_args){m, n, ENG_TS_NONE};
    j->done = done;
    j->arg = arg;
    j->job.body = apply_body;
    j->job.ctx = &j->args;
    j->job.complete = apply_job_complete;
    eng_committer_queue(db, &j->job);
    return 0;
}

int eng_db_group_commit(const eng_db *db) { return db->committer != NULL; }

