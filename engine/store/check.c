/*
 * The verifier (eng_db_check): reads every stored record of a database in
 * one read transaction and checks what a read checks, and more, so that
 * damage is found before a read meets it:
 *
 *  - the catalog: every record decodes and the schema loads (loading it
 *    is what opening the database does);
 *  - every table's sub-database, key by key: keys strictly increasing and
 *    inside the file; the partition prefix parses and its token is the
 *    hash of its key; the key decodes into values of the partition key's
 *    and clustering columns' types; the kind byte is one of the three;
 *    the value verifies under its key (checksum bound to the key) and
 *    decodes whole, each live cell's value valid for its column's type;
 *  - the number of keys walked equals the count LMDB keeps for the
 *    sub-database, so a damaged page pointer that skips or repeats a leaf
 *    shows even where every key it leads to is intact.
 *
 * It reports up to MAX_REPORTED problems and stops a table at its first
 * damaged key (after it, a walk's order means nothing). What it cannot see
 * is damage to pages nothing reaches any more (free pages), which never
 * matters, and damage LMDB itself faults on while following its pages: the
 * shell's `cassette check` therefore runs it in a process of its own.
 */
#include <stdio.h>
#include <string.h>

#include "engine/store/keycodec.h"
#include "engine/store/rowkey.h"
#include "engine/store/fault.h"
#include "engine/store/store_int.h"

#define MAX_REPORTED 16

typedef struct checker {
    eng_db *db;
    MDB_txn *txn;
    eng_buf *report;
    uint32_t problems;
    eng_buf pk, ck;
    eng_arena arena;
    eng_val pk_vals[ENG_MAX_KEY_COLUMNS];
    eng_val ck_vals[ENG_MAX_KEY_COLUMNS];
    uint64_t keys;
    eng_schema *schema;     /* the snapshot checked */
    MDB_cursor *cursor;     /* the walk's cursor (closed after a fault) */
    const eng_table *table; /* the table being walked (NULL: the catalog) */
} checker;

static int problem(checker *c, const eng_table *t, const char *what, const char *detail)
{
    if (c->problems++ < MAX_REPORTED)
        eng_buf_printf(c->report, "%s%s%s%s: %s%s%s\n", t ? t->ks : "", t ? "." : "",
                       t ? t->name : "catalog", "", what, detail && *detail ? ": " : "",
                       detail ? detail : "");
    return ENG_E_CORRUPT;
}

/* The simple cells of a decoded row hold valid values of their columns' types. */
static int check_cells(const eng_table *t, const eng_row *row, eng_err *err)
{
    for (uint32_t i = 0; i < row->n_cells; i++) {
        const eng_cell *x = &row->cells[i];
        const eng_column *col = eng_table_column_by_id(t, x->col);
        if (!col || x->path.len >= 0 || (x->flags & ENG_CELL_TOMBSTONE) || col->type->kind ==
                                                                                 ENG_COUNTER)
            continue; /* a dropped column, an element, a tombstone, a counter's shards */
        if (x->value.len > 0 &&
            eng_type_validate(col->type, x->value.p, (size_t)x->value.len, err))
            return eng_errorf(err, ENG_E_CORRUPT, "the value of %s is not a valid %s", col->name,
                              eng_kind_name(col->type->kind));
    }
    return 0;
}

/* One key and its value. */
static int check_record(checker *c, const eng_table *t, const MDB_val *k, const MDB_val *v,
                        eng_err *err)
{
    const uint8_t *p = k->mv_data, *end = p + k->mv_size;
    eng_buf_reset(&c->pk);
    int rc = eng_key_get_partition(&p, end, NULL, &c->pk, err);
    if (!rc) /* splitting validates the values by their types */
        rc = eng_storage_split_partition(t, c->pk.p, c->pk.len, c->pk_vals, err);
    if (rc)
        return rc;
    if (p == end)
        return eng_errorf(err, ENG_E_CORRUPT, "a key has no kind byte");
    uint8_t kind = *p++;
    uint64_t seal = eng_storage_seal(t, k->mv_data, k->mv_size);
    eng_arena_reset(&c->arena);
    if (kind == ENG_KIND_HEADER || kind == ENG_KIND_STATIC) {
        if (p != end)
            return eng_errorf(err, ENG_E_CORRUPT, "a partition key runs on after its kind");
        if (kind == ENG_KIND_HEADER) {
            eng_pheader h;
            return eng_pheader_decode(v->mv_data, v->mv_size, seal, &h, &c->arena, err);
        }
    } else if (kind == ENG_KIND_ROW) {
        eng_buf_reset(&c->ck);
        rc = eng_storage_decode_clustering(t, p, end, &c->ck, c->ck_vals, err);
        if (rc)
            return rc;
        /* the clustering components must use the whole key */
        const uint8_t *q = p;
        for (int i = 0; i < t->n_ck && !rc; i++)
            rc = eng_key_skip(t->cols[t->n_pk + i].type, &q, end, eng_ck_desc(t, i), err);
        if (!rc && q != end)
            return eng_errorf(err, ENG_E_CORRUPT, "a clustering key runs on after its columns");
        if (rc)
            return rc;
    } else {
        return eng_errorf(err, ENG_E_CORRUPT, "a key's kind byte is %u", kind);
    }
    eng_row row;
    rc = eng_row_decode(v->mv_data, v->mv_size, seal, &row, &c->arena, err);
    return rc ? rc : check_cells(t, &row, err);
}

static int check_table(checker *c, const eng_table *t)
{
    MDB_cursor *cur;
    int mrc = ENG_FAULT_CALL(mdb_cursor_open(c->txn, t->dbi, &c->cursor));
    cur = c->cursor;
    if (mrc) {
        c->cursor = NULL;
        eng_err e;
        eng_err_clear(&e);
        eng_lmdb_err(&e, mrc, "open the table");
        return problem(c, t, "cannot be read", e.msg);
    }
    MDB_val k, v, prev = {0, NULL};
    uint64_t n = 0;
    int rc = 0;
    for (mrc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, MDB_FIRST)); mrc == 0;
         mrc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, MDB_NEXT))) {
        if (!eng_map_holds(c->db, k.mv_data, k.mv_size, 1) ||
            !eng_map_holds(c->db, v.mv_data, v.mv_size, 1)) {
            rc = problem(c, t, "a key or value runs past the end of the file", NULL);
            break;
        }
        if (prev.mv_data) {
            size_t m = prev.mv_size < k.mv_size ? prev.mv_size : k.mv_size;
            int cmp = memcmp(prev.mv_data, k.mv_data, m);
            if (cmp > 0 || (cmp == 0 && prev.mv_size >= k.mv_size)) {
                rc = problem(c, t, "keys out of order", NULL);
                break;
            }
        }
        eng_err e;
        eng_err_clear(&e);
        if (check_record(c, t, &k, &v, &e)) {
            rc = problem(c, t, "a damaged row", e.msg);
            break;
        }
        prev = k;
        n++;
    }
    if (!rc && mrc != MDB_NOTFOUND) {
        eng_err e;
        eng_err_clear(&e);
        eng_lmdb_err(&e, mrc, "walk the table");
        rc = problem(c, t, "cannot be read", e.msg);
    }
    MDB_stat st;
    if (!rc && ENG_FAULT_CALL(mdb_stat(c->txn, t->dbi, &st)) == 0 && st.ms_entries != n) {
        char detail[96];
        snprintf(detail, sizeof detail, "%llu keys walked, %llu counted",
                 (unsigned long long)n, (unsigned long long)st.ms_entries);
        rc = problem(c, t, "keys missing or repeated", detail);
    }
    c->keys += n;
    mdb_cursor_close(cur);
    c->cursor = NULL;
    return rc;
}

/* The catalog, then every table, under eng_fault_run. */
static int check_all(void *arg)
{
    checker *c = arg;
    eng_err e;
    eng_err_clear(&e);
    int stale = 0;
    if (eng_db_schema_in(c->db, c->txn, 1, &c->schema, &stale, &e) || stale) {
        problem(c, NULL, "the schema does not load", stale ? "it changed while checking" : e.msg);
        return 0;
    }
    for (uint32_t i = 0; i < c->schema->n_tables; i++) {
        c->table = &c->schema->tables[i];
        check_table(c, c->table);
    }
    return 0;
}

int eng_db_check(eng_db *db, eng_buf *report, eng_err *err)
{
    checker c;
    memset(&c, 0, sizeof c);
    c.db = db;
    c.report = report;
    eng_arena_init(&c.arena, 4096);
    int rc = eng_read_begin(db, &c.txn, err), unused;
    if (rc)
        return rc;
    if (eng_fault_run(check_all, &c, &unused)) {
        problem(&c, c.table, "LMDB faulted reading its pages", "they are damaged");
        if (c.cursor)
            mdb_cursor_close(c.cursor);
        eng_read_abandon(db, c.txn);
    } else {
        eng_read_end(db, c.txn);
    }
    if (c.schema)
        eng_schema_unref(c.schema);
    eng_buf_free(&c.pk);
    eng_buf_free(&c.ck);
    eng_arena_free(&c.arena);
    if (c.problems > MAX_REPORTED)
        eng_buf_printf(report, "... and %u more\n", c.problems - MAX_REPORTED);
    if (report->oom)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory checking the database");
    if (c.problems)
        return eng_errorf(err, ENG_E_CORRUPT, "database file is corrupted (%u problems found)",
                          c.problems);
    return 0;
}
