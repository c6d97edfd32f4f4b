/*
 * Purge: the embedded counterpart of compaction's garbage collection
 * (facts §4.7). Walks a table's partitions in key order and, per row,
 * drops what is shadowed by the partition header's deletions or the row's
 * own, turns expired cells into tombstones, drops tombstones older than
 * gc_grace_seconds, and drops cells of columns that were dropped. A
 * partition header's deletions are dropped in turn once older than
 * gc_grace, after the rows they covered have been purged.
 *
 * Work is done in write transactions of a bounded number of keys, so a
 * purge of a large table never holds the writer lock for long; each chunk
 * ends at a partition boundary and the next resumes after it.
 */
#include <string.h>

#include "engine/store/fault.h"
#include "engine/store/store_int.h"
#include "engine/store/keycodec.h"
#include "engine/store/rowkey.h"

#define KEYS_PER_TXN 2048

typedef struct purge_args {
    const eng_table *table; /* caller's table */
    eng_buf resume;         /* first key of the next chunk (empty: from the start) */
    int finished;
    eng_purge_stats *stats;
} purge_args;

/* Removes cells of columns the table no longer has. */
static void drop_dead_columns(const eng_table *t, eng_row *row, int *changed)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < row->n_cells; i++) {
        if (eng_table_column_by_id(t, row->cells[i].col))
            row->cells[out++] = row->cells[i];
        else
            *changed = 1;
    }
    row->n_cells = out;
    uint32_t d = 0;
    for (uint32_t i = 0; i < row->n_cdels; i++) {
        if (eng_table_column_by_id(t, row->cdels[i].col))
            row->cdels[d++] = row->cdels[i];
        else
            *changed = 1;
    }
    row->n_cdels = d;
}

static int purge_row(MDB_cursor *cur, const eng_table *t, const eng_pheader *h, MDB_val *k,
                     MDB_val *v, size_t prefix_len, int64_t now_s, int64_t gc_before,
                     eng_arena *arena, eng_buf *out, eng_purge_stats *st, eng_err *err)
{
    eng_arena_reset(arena);
    eng_row row;
    uint64_t seal = eng_storage_seal(t, k->mv_data, k->mv_size);
    int rc = eng_stored_bounds(mdb_cursor_txn(cur), t, k, v, err);
    if (!rc)
        rc = eng_row_decode(v->mv_data, v->mv_size, seal, &row, arena, err);
    if (rc)
        return rc;
    st->rows_seen++;
    const uint8_t *key = k->mv_data;
    eng_deletion covering = h->partition_del;
    if (key[prefix_len] == ENG_KIND_ROW)
        covering = eng_pheader_covering(h, key + prefix_len + 1, k->mv_size - prefix_len - 1);
    int changed = 0;
    drop_dead_columns(t, &row, &changed);
    eng_buf_reset(out);
    eng_row_encode(&row, seal, out);
    size_t before = out->len;
    const uint8_t *old_body = v->mv_data;
    int empty = eng_row_purge(&row, &covering, now_s, gc_before);
    if (empty) {
        st->rows_removed++;
        int mrc = ENG_FAULT_CALL(mdb_cursor_del(cur, 0));
        return mrc ? eng_lmdb_err(err, mrc, "purge row") : 0;
    }
    eng_buf_reset(out);
    eng_row_encode(&row, seal, out);
    if (out->oom)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory in purge");
    if (!changed && out->len == before && before == v->mv_size &&
        memcmp(out->p, old_body, before) == 0)
        return 0;
    st->rows_rewritten++;
    MDB_val nv = {out->len, out->p};
    int mrc = ENG_FAULT_CALL(mdb_cursor_put(cur, k, &nv, MDB_CURRENT));
    return mrc ? eng_lmdb_err(err, mrc, "rewrite row") : 0;
}

/* Drops the header's deletions that are past gc_grace; rewrites or deletes it. */
static int finish_header(MDB_txn *txn, const eng_table *t, const eng_buf *hkey, eng_pheader *h,
                         int64_t gc_before, eng_buf *out, eng_err *err)
{
    eng_pheader n = *h;
    if (n.partition_del.ts_us != ENG_TS_NONE && n.partition_del.ldt_s < gc_before)
        n.partition_del.ts_us = ENG_TS_NONE;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->n_rts; i++)
        if (h->rts[i].del.ldt_s >= gc_before)
            n.rts[kept++] = h->rts[i];
    n.n_rts = kept;
    if (n.n_rts == h->n_rts && n.partition_del.ts_us == h->partition_del.ts_us)
        return 0;
    MDB_val k = {hkey->len, hkey->p};
    int mrc;
    if (n.partition_del.ts_us == ENG_TS_NONE && n.n_rts == 0) {
        mrc = ENG_FAULT_CALL(mdb_del(txn, t->dbi, &k, NULL));
    } else {
        eng_buf_reset(out);
        eng_pheader_encode(&n, eng_storage_seal(t, hkey->p, hkey->len), out);
        if (out->oom)
            return eng_errorf(err, ENG_E_NOMEM, "out of memory in purge");
        MDB_val v = {out->len, out->p};
        mrc = ENG_FAULT_CALL(mdb_put(txn, t->dbi, &k, &v, 0));
    }
    return mrc ? eng_lmdb_err(err, mrc, "rewrite partition header") : 0;
}

/* Length of the partition prefix at the start of a key. */
static int prefix_length(const MDB_val *k, size_t *len, eng_err *err)
{
    const uint8_t *p = k->mv_data, *end = p + k->mv_size;
    int64_t token;
    eng_buf pk = ENG_BUF_INIT;
    int rc = eng_key_get_partition(&p, end, &token, &pk, err);
    eng_buf_free(&pk);
    if (!rc && p >= end)
        rc = eng_errorf(err, ENG_E_CORRUPT, "stored key has no kind byte");
    *len = (size_t)(p - (const uint8_t *)k->mv_data);
    return rc;
}

static int purge_chunk(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *ctx, eng_err *err)
{
    purge_args *a = ctx;
    const eng_table *t;
    int rc = eng_resolve_table(cur, a->table, &t, err);
    if (rc)
        return rc;
    int64_t now_s = eng_clock_now_s(&db->clock);
    int64_t gc_before = now_s - t->gc_grace_s;
    MDB_cursor *c;
    int mrc = ENG_FAULT_CALL(mdb_cursor_open(txn, t->dbi, &c));
    if (mrc)
        return eng_lmdb_err(err, mrc, "open cursor");
    eng_arena arena, harena;
    eng_arena_init(&arena, 4096);
    eng_arena_init(&harena, 1024);
    eng_buf out = ENG_BUF_INIT, prefix = ENG_BUF_INIT, hkey = ENG_BUF_INIT;
    eng_pheader h;
    eng_pheader_init(&h);
    int have_header = 0;
    MDB_val k = {a->resume.len, a->resume.p}, v;
    mrc = a->resume.len ? ENG_FAULT_CALL(mdb_cursor_get(c, &k, &v, MDB_SET_RANGE))
                        : ENG_FAULT_CALL(mdb_cursor_get(c, &k, &v, MDB_FIRST));
    unsigned n = 0;
    while (mrc == 0 && !rc) {
        size_t plen;
        if ((rc = prefix_length(&k, &plen, err)))
            break;
        int new_partition = plen != prefix.len || memcmp(k.mv_data, prefix.p, plen) != 0;
        if (new_partition) {
            if (have_header)
                rc = finish_header(txn, t, &hkey, &h, gc_before, &out, err);
            if (rc)
                break;
            if (n >= KEYS_PER_TXN) {
                /* Stop at a partition boundary: the next chunk starts here. */
                eng_buf_reset(&a->resume);
                eng_buf_put(&a->resume, k.mv_data, k.mv_size);
                break;
            }
            eng_buf_reset(&prefix);
            eng_buf_put(&prefix, k.mv_data, plen);
            eng_pheader_init(&h);
            eng_arena_reset(&harena);
            have_header = 0;
        }
        uint8_t kind = ((const uint8_t *)k.mv_data)[plen];
        if (kind == ENG_KIND_HEADER) {
            rc = eng_stored_bounds(txn, t, &k, &v, err);
            if (!rc)
                rc = eng_pheader_decode(v.mv_data, v.mv_size,
                                        eng_storage_seal(t, k.mv_data, k.mv_size), &h, &harena,
                                        err);
            eng_buf_reset(&hkey);
            eng_buf_put(&hkey, k.mv_data, k.mv_size);
            have_header = 1;
        } else {
            rc = purge_row(c, t, &h, &k, &v, plen, now_s, gc_before, &arena, &out, a->stats, err);
        }
        n++;
        /* After mdb_cursor_del, MDB_NEXT yields the record that followed the deleted one. */
        if (!rc)
            mrc = ENG_FAULT_CALL(mdb_cursor_get(c, &k, &v, MDB_NEXT));
    }
    if (!rc && mrc == MDB_NOTFOUND) {
        a->finished = 1;
        if (have_header)
            rc = finish_header(txn, t, &hkey, &h, gc_before, &out, err);
    } else if (!rc && mrc) {
        rc = eng_lmdb_err(err, mrc, "purge scan");
    }
    if (!rc && (prefix.oom || hkey.oom || a->resume.oom))
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory in purge");
    mdb_cursor_close(c);
    eng_arena_free(&arena);
    eng_arena_free(&harena);
    eng_buf_free(&out);
    eng_buf_free(&prefix);
    eng_buf_free(&hkey);
    return rc;
}

static int purge_table(eng_db *db, const eng_table *t, eng_purge_stats *st, eng_err *err)
{
    purge_args a = {t, ENG_BUF_INIT, 0, st};
    int rc = 0;
    while (!rc && !a.finished) {
        eng_purge_stats before = *st;
        rc = eng_write_txn(db, purge_chunk, &a, err);
        if (rc)
            *st = before;
    }
    eng_buf_free(&a.resume);
    return rc;
}

int eng_purge(eng_db *db, const eng_table *table, eng_purge_stats *stats, eng_err *err)
{
    eng_purge_stats local = {0, 0, 0};
    eng_purge_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (table)
        return purge_table(db, table, st, err);
    eng_schema *s;
    int rc = eng_db_schema(db, &s, err);
    for (uint32_t i = 0; !rc && i < s->n_tables; i++)
        rc = purge_table(db, &s->tables[i], st, err);
    if (s)
        eng_schema_unref(s);
    return rc;
}
