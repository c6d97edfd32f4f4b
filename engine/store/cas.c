/*
 * Compare-and-set: Cassandra's lightweight transactions on one node. The
 * read of the current state, the evaluation of every condition and the
 * write happen in one LMDB write transaction; LMDB serializes writers
 * across threads and processes, so conditional writes are linearizable.
 *
 * Condition semantics follow facts §5.2: a missing row or cell reads as
 * null; `= null` / `!= null` test presence; any other operator against a
 * null condition value is an error; a non-null value against a null cell
 * satisfies only `!=`; IN is any `=`; comparisons use the column type's
 * base (ASC) order. Applied writes are stamped with a fresh timestamp T and
 * their deletions with T-1 (facts §5.5).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/store/fault.h"
#include "engine/store/store_int.h"
#include "engine/store/rowkey.h"

typedef struct target {
    const eng_cas_row *spec;
    eng_buf key;          /* storage key of the row */
    eng_row row;          /* stored row (empty if none) */
    int found;
    eng_deletion covering;
    int live;
    eng_buf ck_buf;
    eng_val ck[ENG_MAX_KEY_COLUMNS];
} target;

typedef struct cas_args {
    const eng_cas *cas;
    int applied;
    eng_row_cb cb;
    void *ctx;
} cas_args;

typedef struct cas_state {
    eng_db *db;
    MDB_txn *txn;
    const eng_table *t;
    MDB_dbi dbi;
    int64_t now_s;
    eng_buf prefix;
    eng_pheader header;
    eng_row static_row;
    int has_static;
    eng_arena arena;
    target *targets;
    eng_val null_ck[ENG_MAX_KEY_COLUMNS];
    MDB_cursor *cur;      /* the partition's lookups: after the first, LMDB searches the page
                             the cursor is on before it descends the tree again */
    eng_err *err;
} cas_state;

static const char *op_name(int op)
{
    static const char *names[] = {"", "=", "!=", "<", "<=", ">", ">=", "IN", "CONTAINS",
                                  "CONTAINS KEY"};
    return op >= 1 && op <= ENG_CMP_CONTAINS_KEY ? names[op] : "?";
}

/* The stored value of key (*found 0: none), with the state's cursor. */
static int lookup(cas_state *s, const uint8_t *key, size_t len, MDB_val *v, int *found)
{
    MDB_val k = {len, (void *)key};
    int rc = ENG_FAULT_CALL(mdb_cursor_get(s->cur, &k, v, MDB_SET_KEY));
    *found = rc == 0;
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return eng_lmdb_err(s->err, rc, "read row");
    return eng_stored_bounds(s->txn, s->t, &k, v, s->err);
}

static int get_stored(cas_state *s, const eng_buf *key, eng_row *row, int *found)
{
    MDB_val v;
    eng_row_init(row);
    int rc = lookup(s, key->p, key->len, &v, found);
    if (rc || !*found)
        return rc;
    return eng_row_decode(v.mv_data, v.mv_size, eng_storage_seal(s->t, key->p, key->len), row,
                          &s->arena, s->err);
}

static int load_partition(cas_state *s, const eng_cas *cas)
{
    int rc = eng_storage_partition(&s->prefix, s->t, cas->pk, NULL, s->err);
    if (rc)
        return rc;
    int mrc = ENG_FAULT_CALL(mdb_cursor_open(s->txn, s->dbi, &s->cur));
    if (mrc)
        return eng_lmdb_err(s->err, mrc, "open cursor");
    eng_buf key = ENG_BUF_INIT;
    eng_buf_put(&key, s->prefix.p, s->prefix.len);
    eng_buf_put_u8(&key, ENG_KIND_HEADER);
    eng_pheader_init(&s->header);
    MDB_val v;
    int found = 0;
    rc = key.oom ? eng_errorf(s->err, ENG_E_NOMEM, "out of memory") : lookup(s, key.p, key.len,
                                                                             &v, &found);
    if (!rc && found)
        rc = eng_pheader_decode(v.mv_data, v.mv_size, eng_storage_seal(s->t, key.p, key.len),
                                &s->header, &s->arena, s->err);
    if (!rc && s->t->has_static) {
        key.len = s->prefix.len;
        eng_buf_put_u8(&key, ENG_KIND_STATIC);
        rc = get_stored(s, &key, &s->static_row, &s->has_static);
    }
    eng_buf_free(&key);
    return rc;
}

/* The first live clustering row of the partition, in clustering order (facts §5.2). */
static int first_live_row(cas_state *s, target *tg)
{
    MDB_cursor *cur;
    int mrc = ENG_FAULT_CALL(mdb_cursor_open(s->txn, s->dbi, &cur));
    if (mrc)
        return eng_lmdb_err(s->err, mrc, "open cursor");
    eng_buf lo = ENG_BUF_INIT, hi = ENG_BUF_INIT;
    eng_buf_put(&lo, s->prefix.p, s->prefix.len);
    eng_buf_put_u8(&lo, ENG_KIND_ROW);
    eng_buf_put(&hi, s->prefix.p, s->prefix.len);
    eng_buf_put_u8(&hi, ENG_KIND_ROW + 1);
    int forward = !eng_storage_reversed(s->t);
    MDB_val k, v;
    int rc = 0;
    if (forward) {
        k = (MDB_val){lo.len, lo.p};
        mrc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE));
    } else {
        k = (MDB_val){hi.len, hi.p};
        mrc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE));
        if (mrc == MDB_NOTFOUND)
            mrc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, MDB_LAST));
        else if (mrc == 0)
            mrc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, MDB_PREV));
    }
    while (mrc == 0) {
        if ((rc = eng_stored_bounds(s->txn, s->t, &k, &v, s->err)))
            break;
        int inside = k.mv_size > lo.len && memcmp(k.mv_data, lo.p, lo.len) == 0;
        if (!inside)
            break;
        eng_row row;
        if ((rc = eng_row_decode(v.mv_data, v.mv_size,
                                 eng_storage_seal(s->t, k.mv_data, k.mv_size), &row, &s->arena,
                                 s->err)))
            break;
        size_t off = lo.len;
        eng_deletion cov =
            eng_pheader_covering(&s->header, (const uint8_t *)k.mv_data + off, k.mv_size - off);
        if (eng_row_live(s->t, &row, &cov, s->now_s)) {
            tg->row = row;
            tg->found = 1;
            tg->covering = cov;
            tg->live = 1;
            eng_buf_reset(&tg->key);
            eng_buf_put(&tg->key, k.mv_data, k.mv_size);
            break;
        }
        mrc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, forward ? MDB_NEXT : MDB_PREV));
    }
    if (!rc && mrc && mrc != MDB_NOTFOUND)
        rc = eng_lmdb_err(s->err, mrc, "read rows");
    mdb_cursor_close(cur);
    eng_buf_free(&lo);
    eng_buf_free(&hi);
    return rc;
}

static int load_target(cas_state *s, target *tg)
{
    const eng_cas_row *spec = tg->spec;
    eng_buf_put(&tg->key, s->prefix.p, s->prefix.len);
    if (!spec->ck) {
        /* Static target: the static row, seen with the partition's first live row. */
        eng_buf_put_u8(&tg->key, ENG_KIND_STATIC);
        tg->covering = s->header.partition_del;
        tg->live = s->has_static &&
                   eng_row_live(s->t, &s->static_row, &s->header.partition_del, s->now_s);
        return tg->key.oom ? eng_errorf(s->err, ENG_E_NOMEM, "out of memory") : 0;
    }
    eng_buf_put_u8(&tg->key, ENG_KIND_ROW);
    size_t off = tg->key.len;
    int rc = eng_storage_clustering(&tg->key, s->t, spec->ck, s->t->n_ck, s->err);
    if (!rc)
        rc = eng_storage_check_key(tg->key.len, s->err);
    if (!rc)
        rc = get_stored(s, &tg->key, &tg->row, &tg->found);
    if (rc)
        return rc;
    tg->covering = eng_pheader_covering(&s->header, tg->key.p + off, tg->key.len - off);
    tg->live = tg->found && eng_row_live(s->t, &tg->row, &tg->covering, s->now_s);
    return 0;
}

static void make_view(cas_state *s, const target *tg, eng_row_view *v)
{
    memset(v, 0, sizeof *v);
    v->table = s->t;
    v->ck = s->null_ck;
    v->row = tg->found ? &tg->row : NULL;
    v->static_row = s->has_static ? &s->static_row : NULL;
    v->covering = &tg->covering;
    v->static_covering = &s->header.partition_del;
    v->now_s = s->now_s;
    v->arena = &s->arena;
}

/* ---- conditions ---- */

static int null_cond_value(const eng_val *v) { return v->len == ENG_NULL; }

/* Element of a serialized collection / UDT value: map key, list index, udt field. */
static int element_of(const eng_type *ty, eng_val whole, eng_val key, eng_val *out,
                      const eng_type **elem_type, eng_err *err)
{
    out->p = NULL;
    out->len = ENG_NULL;
    eng_items it;
    eng_val a, b;
    if (ty->kind == ENG_UDT) {
        *elem_type = NULL;
        uint16_t f = key.len == 2 ? eng_be16(key.p) : 0xFFFF;
        if (f >= ty->n_sub)
            return eng_errorf(err, ENG_E_INVALID, "Unknown field in condition");
        *elem_type = ty->sub[f];
        if (whole.len < 0)
            return 0;
        eng_items_begin_raw(&it, whole.p, (size_t)whole.len);
        for (uint16_t i = 0; eng_items_next(&it, &a) == 1; i++)
            if (i == f) {
                *out = a;
                break;
            }
        return 0;
    }
    if (key.len < 0)
        return eng_errorf(err, ENG_E_INVALID, "Invalid null value for element access");
    if (ty->kind == ENG_LIST) {
        *elem_type = ty->sub[0];
        int32_t idx = key.len == 4 ? (int32_t)eng_be32(key.p) : -1;
        if (idx < 0)
            return eng_errorf(err, ENG_E_INVALID, "Invalid negative list index %d", idx);
        if (whole.len < 0 || eng_items_begin(&it, whole.p, (size_t)whole.len) < 0)
            return 0;
        for (int32_t i = 0; eng_items_next(&it, &a) == 1; i++)
            if (i == idx) {
                *out = a;
                break;
            }
        return 0;
    }
    if (ty->kind != ENG_MAP)
        return eng_errorf(err, ENG_E_INVALID, "Invalid element access on a non-map column");
    *elem_type = ty->sub[1];
    if (whole.len < 0 || eng_items_begin(&it, whole.p, (size_t)whole.len) < 0)
        return 0;
    while (eng_items_next(&it, &a) == 1 && eng_items_next(&it, &b) == 1)
        if (a.len >= 0 &&
            eng_type_compare(ty->sub[0], a.p, (size_t)a.len, key.p, (size_t)key.len) == 0) {
            *out = b;
            break;
        }
    return 0;
}

/* A non-frozen list, set or map: its elements are cells, compared one by one. */
static int multicell_collection(const eng_type *ty)
{
    return eng_type_is_multicell(ty) && ty->kind != ENG_UDT;
}

/*
 * Cassandra's MultiCellCollectionBound compares the column's cells with the
 * value element by element: a column without cells is then the empty
 * collection, equal to an empty value and below any other. Only a null value
 * tests for the absence of cells (facts §5.2).
 */
static eng_val cells_or_empty(const eng_type *ty, eng_val cell, eng_val val)
{
    static const uint8_t empty[4] = {0, 0, 0, 0};
    if (cell.len < 0 && val.len >= 0 && multicell_collection(ty))
        return (eng_val){empty, 4};
    return cell;
}

/* Operator.CONTAINS / CONTAINS_KEY, MultiCellCollectionBound.containsAppliesTo: whether a
   list or set element, a map value or (key) a map key of the collection equals val. */
static int contains(const eng_type *ty, int key, eng_val coll, eng_val val)
{
    eng_items it;
    if (coll.len < 0 || eng_items_begin(&it, coll.p, (size_t)coll.len) < 0)
        return 0;
    const eng_type *et = ty->kind == ENG_MAP && !key ? ty->sub[1] : ty->sub[0];
    eng_val e, v;
    while (eng_items_next(&it, &e) == 1) {
        if (ty->kind == ENG_MAP) {
            if (eng_items_next(&it, &v) != 1)
                break;
            if (!key)
                e = v;
        }
        if (e.len >= 0 && eng_type_compare(et, e.p, (size_t)e.len, val.p, (size_t)val.len) == 0)
            return 1;
    }
    return 0;
}

static int compare_one(const eng_type *ty, int op, eng_val cell, eng_val val, int *ok,
                       eng_err *err)
{
    if (val.len == ENG_UNSET)
        return eng_errorf(err, ENG_E_INVALID, "Invalid 'unset' value in condition");
    if (null_cond_value(&val)) {
        if (op != ENG_CMP_EQ && op != ENG_CMP_NE)
            return eng_errorf(err, ENG_E_INVALID, "Invalid comparison with null for operator \"%s\"",
                              op_name(op));
        *ok = (op == ENG_CMP_EQ) == (cell.len < 0);
        return 0;
    }
    if (cell.len < 0) {
        *ok = op == ENG_CMP_NE;
        return 0;
    }
    int c = eng_type_compare(ty, cell.p, (size_t)cell.len, val.p, (size_t)val.len);
    switch (op) {
    case ENG_CMP_EQ: *ok = c == 0; break;
    case ENG_CMP_NE: *ok = c != 0; break;
    case ENG_CMP_LT: *ok = c < 0; break;
    case ENG_CMP_LE: *ok = c <= 0; break;
    case ENG_CMP_GT: *ok = c > 0; break;
    case ENG_CMP_GE: *ok = c >= 0; break;
    default: return eng_errorf(err, ENG_E_INVALID, "Unsupported condition operator");
    }
    return 0;
}

static int eval_condition(cas_state *s, const target *tg, const eng_condition *c, int *ok)
{
    const eng_table *t = s->t;
    if (c->col >= t->n_cols || t->cols[c->col].kind < ENG_COL_STATIC)
        return eng_errorf(s->err, ENG_E_INVALID, "PRIMARY KEY column '%s' cannot have IF conditions",
                          c->col < t->n_cols ? t->cols[c->col].name : "?");
    const eng_column *col = &t->cols[c->col];
    eng_row_view view;
    make_view(s, tg, &view);
    eng_val cell;
    int rc = eng_view_column(&view, c->col, &cell, NULL, NULL, s->err);
    if (rc)
        return rc;
    const eng_type *ty = col->type;
    if (c->elem) {
        const eng_type *et = NULL;
        eng_val whole = cell;
        if ((rc = element_of(col->type, whole, c->key, &cell, &et, s->err)))
            return rc;
        ty = et;
    }
    if (c->op == ENG_CMP_IN) {
        *ok = 0;
        for (uint32_t i = 0; i < c->n_values && !*ok; i++) {
            eng_val v = c->values[i];
            if (v.len == ENG_UNSET)
                continue; /* unset entries of an IN list are ignored */
            rc = compare_one(ty, ENG_CMP_EQ, cells_or_empty(ty, cell, v), v, ok, s->err);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (c->n_values != 1)
        return eng_errorf(s->err, ENG_E_INVALID, "a condition takes one value");
    eng_val v = c->values[0];
    if (c->op == ENG_CMP_CONTAINS || c->op == ENG_CMP_CONTAINS_KEY) {
        if (c->elem || (ty->kind != ENG_LIST && ty->kind != ENG_SET && ty->kind != ENG_MAP))
            return eng_errorf(s->err, ENG_E_INVALID, "CONTAINS applies to collections only");
        if (v.len == ENG_NULL)
            return eng_errorf(s->err, ENG_E_INVALID,
                              "Invalid comparison with null for operator \"%s\"", op_name(c->op));
        if (v.len == ENG_UNSET) {
            /* A frozen collection's condition refuses unset; a non-frozen one compares the
               elements with Cassandra's unset buffer, an empty value. */
            if (!multicell_collection(ty))
                return eng_errorf(s->err, ENG_E_INVALID, "Invalid 'unset' value in condition");
            v.len = 0;
        }
        *ok = contains(ty, c->op == ENG_CMP_CONTAINS_KEY, cell, v);
        return 0;
    }
    return compare_one(ty, c->op, c->elem ? cell : cells_or_empty(ty, cell, v), v, ok, s->err);
}

static int eval_target(cas_state *s, const target *tg, int *ok)
{
    const eng_cas_row *spec = tg->spec;
    if (spec->if_not_exists && spec->if_exists)
        return eng_errorf(s->err, ENG_E_INVALID,
                          "Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row");
    *ok = 1;
    if (spec->if_not_exists)
        *ok = !tg->live;
    else if (spec->if_exists)
        *ok = tg->live;
    for (uint32_t i = 0; i < spec->n_conds && *ok; i++) {
        int rc = eval_condition(s, tg, &spec->conds[i], ok);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- reporting the current state ---- */

static int key_order(const void *a, const void *b)
{
    const target *x = *(const target *const *)a, *y = *(const target *const *)b;
    size_t n = x->key.len < y->key.len ? x->key.len : y->key.len;
    int c = memcmp(x->key.p, y->key.p, n);
    return c ? c : (x->key.len > y->key.len) - (x->key.len < y->key.len);
}

static int report(cas_state *s, const eng_cas *cas, eng_row_cb cb, void *ctx)
{
    uint32_t n = cas->n_rows;
    target **order = eng_calloc(n ? n : 1, sizeof *order);
    if (!order)
        return eng_errorf(s->err, ENG_E_NOMEM, "out of memory");
    uint32_t m = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        target *tg = &s->targets[i];
        if (!tg->spec->ck && !tg->found)
            rc = first_live_row(s, tg);
        if (tg->live || (!tg->spec->ck && s->has_static &&
                         eng_row_live(s->t, &s->static_row, &s->header.partition_del, s->now_s)))
            order[m++] = tg;
    }
    if (!rc && m > 1)
        qsort(order, m, sizeof *order, key_order);
    uint32_t distinct = 0; /* one row per distinct target */
    for (uint32_t j = 0; j < m; j++)
        if (distinct == 0 || key_order(&order[distinct - 1], &order[j]) != 0)
            order[distinct++] = order[j];
    int reversed = eng_storage_reversed(s->t);
    for (uint32_t j = 0; j < distinct && !rc; j++) {
        target *tg = order[reversed ? distinct - 1 - j : j];
        eng_row_view v;
        make_view(s, tg, &v);
        v.pk = cas->pk;
        size_t off = s->prefix.len + 1;
        if (tg->key.len >= off && tg->key.p[s->prefix.len] == ENG_KIND_ROW) {
            rc = eng_storage_decode_clustering(s->t, tg->key.p + off, tg->key.p + tg->key.len,
                                               &tg->ck_buf, tg->ck, s->err);
            v.ck = tg->ck;
        } else {
            v.row = NULL;
        }
        if (!rc && cb) {
            int crc = cb(ctx, &v);
            if (crc < 0)
                rc = eng_errorf(s->err, -crc, "LWT result aborted by its consumer");
        }
    }
    eng_free(order);
    return rc;
}

static int check_mutations(cas_state *s, const eng_cas *cas)
{
    for (uint32_t i = 0; i < cas->n_muts; i++) {
        const eng_mutation *m = &cas->muts[i];
        if (m->ts_us != ENG_TS_NONE)
            return eng_errorf(s->err, ENG_E_INVALID,
                              "Cannot provide custom timestamp for conditional updates");
        if (m->table != cas->table && memcmp(m->table->id, cas->table->id, 16) != 0)
            return eng_errorf(s->err, ENG_E_INVALID,
                              "Batch with conditions cannot span multiple tables");
        for (uint16_t j = 0; j < s->t->n_pk; j++) {
            eng_val a = m->pk[j], b = cas->pk[j];
            if (a.len != b.len || (a.len > 0 && memcmp(a.p, b.p, (size_t)a.len) != 0))
                return eng_errorf(s->err, ENG_E_INVALID,
                                  "Batch with conditions cannot span multiple partitions");
        }
    }
    if (s->t->is_counter)
        return eng_errorf(s->err, ENG_E_INVALID,
                          "Conditional updates are not supported on counter tables");
    return 0;
}

/* The rows the conditions read, for the write not to look them up again (NULL on OOM: it
   then does). In the state's arena. */
static eng_known_row *known_rows(cas_state *s, uint32_t n)
{
    eng_known_row *k = n ? eng_arena_alloc(&s->arena, n * sizeof *k) : NULL;
    for (uint32_t i = 0; k && i < n; i++) {
        const target *tg = &s->targets[i];
        if (tg->spec->ck) /* a static target's row is the partition's static row */
            k[i] = (eng_known_row){tg->key.p, tg->key.len, &tg->row, tg->found};
        else
            k[i] = (eng_known_row){tg->key.p, tg->key.len, &s->static_row, s->has_static};
    }
    return k;
}

static void state_free(cas_state *s, uint32_t n)
{
    for (uint32_t i = 0; s->targets && i < n; i++) {
        eng_buf_free(&s->targets[i].key);
        eng_buf_free(&s->targets[i].ck_buf);
    }
    eng_free(s->targets);
    eng_buf_free(&s->prefix);
    eng_arena_free(&s->arena);
    if (s->cur)
        mdb_cursor_close(s->cur);
}

static int cas_body(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *ctx, eng_err *err)
{
    cas_args *a = ctx;
    const eng_cas *cas = a->cas;
    int rc;
    cas_state s;
    memset(&s, 0, sizeof s);
    s.db = db;
    s.txn = txn;
    s.err = err;
    s.now_s = cas->now_s ? cas->now_s : eng_clock_now_s(&db->clock);
    for (int i = 0; i < ENG_MAX_KEY_COLUMNS; i++)
        s.null_ck[i].len = ENG_NULL;
    eng_arena_init(&s.arena, 4096);
    const eng_table *t;
    rc = eng_resolve_table(cur, cas->table, &t, err);
    /* CREATE TABLE refuses more; a table from elsewhere is refused, never overrun. */
    if (!rc && (cas->table->n_ck > ENG_MAX_KEY_COLUMNS || cas->table->n_pk > ENG_MAX_KEY_COLUMNS))
        rc = eng_errorf(err, ENG_E_INVALID, "too many key columns");
    if (rc)
        goto out;
    s.t = cas->table;
    s.dbi = t->dbi;
    if ((rc = check_mutations(&s, cas)) || (rc = load_partition(&s, cas)))
        goto out;
    s.targets = eng_calloc(cas->n_rows ? cas->n_rows : 1, sizeof *s.targets);
    if (!s.targets) {
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory");
        goto out;
    }
    int ok = 1;
    for (uint32_t i = 0; i < cas->n_rows && !rc; i++) {
        s.targets[i].spec = &cas->rows[i];
        rc = load_target(&s, &s.targets[i]);
    }
    for (uint32_t i = 0; i < cas->n_rows && !rc && ok; i++)
        rc = eval_target(&s, &s.targets[i], &ok);
    if (rc)
        goto out;
    a->applied = ok;
    if (ok) {
        int64_t ts;
        rc = eng_next_timestamp(db, txn, &ts, err);
        eng_known_row *known = rc ? NULL : known_rows(&s, cas->n_rows);
        if (!rc)
            rc = eng_write_in_txn(db, txn, cur, cas->muts, cas->n_muts, ts, 1, known,
                                  known ? cas->n_rows : 0, err);
    } else {
        rc = report(&s, cas, a->cb, a->ctx);
    }
out:
    state_free(&s, cas->n_rows);
    return rc;
}

int eng_cas_apply(eng_db *db, const eng_cas *cas, int *applied, eng_row_cb cb, void *ctx,
                  eng_err *err)
{
    cas_args a = {cas, 0, cb, ctx};
    int rc = eng_write_txn(db, cas_body, &a, err);
    if (applied)
        *applied = rc == 0 && a.applied;
    return rc;
}
