/*
 * Schema changes as engine calls: each runs one catalog change in its own
 * write transaction, together with what it means for table storage — a new
 * table gets its sub-database in the same transaction, a dropped table or
 * keyspace loses its sub-databases in the same transaction — so the catalog
 * and the data never disagree, even after a crash.
 */
#include <string.h>

#include "engine/store/fault.h"
#include "engine/store/store_int.h"

/* A schema change: the catalog call, given the current snapshot. */
typedef int (*ddl_fn)(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *args, eng_err *err);

typedef struct ddl_run {
    ddl_fn fn;
    void *args;
} ddl_run;

static int ddl_body(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *ctx, eng_err *err)
{
    ddl_run *run = ctx;
    return run->fn(db, txn, cur, run->args, err);
}

static int run_ddl(eng_db *db, ddl_fn fn, void *args, eng_err *err)
{
    ddl_run run = {fn, args};
    return eng_write_txn_exclusive(db, ddl_body, &run, err);
}

/* Opens (creating or not) a table's sub-database inside txn. */
static int table_dbi(MDB_txn *txn, const uint8_t id[16], unsigned flags, MDB_dbi *dbi,
                     eng_err *err)
{
    char name[34];
    eng_table_dbname(id, name);
    int rc = ENG_FAULT_CALL(mdb_dbi_open(txn, name, flags, dbi));
    return rc ? eng_lmdb_err(err, rc, "open table storage") : 0;
}

static int drop_table_storage(MDB_txn *txn, const uint8_t id[16], int delete, eng_err *err)
{
    MDB_dbi dbi;
    int rc = table_dbi(txn, id, 0, &dbi, err);
    if (rc)
        return rc;
    rc = ENG_FAULT_CALL(mdb_drop(txn, dbi, delete));
    return rc ? eng_lmdb_err(err, rc, "drop table storage") : 0;
}

/* ---- keyspaces ---- */

typedef struct ks_args {
    const char *ks;
    const eng_option *repl;
    uint32_t n_repl;
    int durable_writes, if_flag, *changed;
} ks_args;

static int create_ks(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    ks_args *a = p;
    return eng_catalog_create_keyspace(txn, db->meta, cur, a->ks, a->repl, a->n_repl,
                                       a->durable_writes, a->if_flag, a->changed, err);
}

static int alter_ks(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    ks_args *a = p;
    return eng_catalog_alter_keyspace(txn, db->meta, cur, a->ks, a->repl, a->n_repl,
                                      a->durable_writes, a->if_flag, a->changed, err);
}

static int drop_ks(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    ks_args *a = p;
    eng_buf ids = ENG_BUF_INIT;
    int rc = eng_catalog_drop_keyspace(txn, db->meta, cur, a->ks, a->if_flag, a->changed, &ids,
                                       err);
    if (!rc && ids.oom)
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory dropping keyspace %s", a->ks);
    for (size_t off = 0; !rc && off + 16 <= ids.len; off += 16)
        rc = drop_table_storage(txn, ids.p + off, 1, err);
    eng_buf_free(&ids);
    return rc;
}

int eng_create_keyspace(eng_db *db, const char *ks, const eng_option *repl, uint32_t n_repl,
                        int durable_writes, int if_not_exists, int *changed, eng_err *err)
{
    int dummy;
    ks_args a = {ks, repl, n_repl, durable_writes, if_not_exists, changed ? changed : &dummy};
    return run_ddl(db, create_ks, &a, err);
}

int eng_alter_keyspace(eng_db *db, const char *ks, const eng_option *repl, uint32_t n_repl,
                       int durable_writes, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    ks_args a = {ks, repl, n_repl, durable_writes, if_exists, changed ? changed : &dummy};
    return run_ddl(db, alter_ks, &a, err);
}

int eng_drop_keyspace(eng_db *db, const char *ks, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    ks_args a = {ks, NULL, 0, 0, if_exists, changed ? changed : &dummy};
    return run_ddl(db, drop_ks, &a, err);
}

/* ---- tables ---- */

typedef struct table_args {
    const eng_table_def *def;
    const char *ks, *table, *from, *to;
    const eng_column_def *cols;
    const char *const *names;
    const eng_option *opts;
    uint32_t n;
    int if_flag, *changed;
} table_args;

static int create_table(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    table_args *a = p;
    uint8_t id[16];
    int64_t now = eng_clock_now_us(&db->clock);
    int rc = eng_catalog_create_table(txn, db->meta, cur, a->def, a->if_flag, now, id,
                                      a->changed, err);
    if (rc || !*a->changed)
        return rc;
    MDB_dbi dbi;
    return table_dbi(txn, id, MDB_CREATE, &dbi, err);
}

static int drop_table(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    table_args *a = p;
    uint8_t id[16];
    int rc = eng_catalog_drop_table(txn, db->meta, cur, a->ks, a->table, a->if_flag, id,
                                    a->changed, err);
    if (rc || !*a->changed)
        return rc;
    return drop_table_storage(txn, id, 1, err);
}

static int add_columns(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    table_args *a = p;
    return eng_catalog_add_columns(txn, db->meta, cur, a->ks, a->table, a->cols, a->n, a->if_flag,
                                   a->changed, err);
}

static int drop_columns(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    table_args *a = p;
    int64_t now = eng_clock_now_us(&db->clock);
    return eng_catalog_drop_columns(txn, db->meta, cur, a->ks, a->table, a->names, a->n,
                                    a->if_flag, now, a->changed, err);
}

static int rename_column(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    table_args *a = p;
    return eng_catalog_rename_column(txn, db->meta, cur, a->ks, a->table, a->from, a->to,
                                     a->if_flag, a->changed, err);
}

static int alter_options(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    table_args *a = p;
    return eng_catalog_alter_table_options(txn, db->meta, cur, a->ks, a->table, a->opts, a->n,
                                           a->if_flag, a->changed, err);
}

static int truncate_table(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    (void)db;
    table_args *a = p;
    if (!eng_schema_keyspace(cur, a->ks))
        return eng_errorf(err, ENG_E_INVALID, "keyspace %s does not exist", a->ks);
    const eng_table *t = eng_schema_table(cur, a->ks, a->table);
    if (!t)
        return eng_errorf(err, ENG_E_INVALID, "table %s does not exist", a->table);
    return drop_table_storage(txn, t->id, 0, err);
}

static int reset_all(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    (void)db;
    (void)p;
    for (uint32_t i = 0; i < cur->n_tables; i++) {
        int rc = drop_table_storage(txn, cur->tables[i].id, 0, err);
        if (rc)
            return rc;
    }
    return 0;
}

int eng_create_table(eng_db *db, const eng_table_def *def, int if_not_exists, int *changed,
                     eng_err *err)
{
    int dummy;
    table_args a = {.def = def, .if_flag = if_not_exists, .changed = changed ? changed : &dummy};
    return run_ddl(db, create_table, &a, err);
}

int eng_drop_table(eng_db *db, const char *ks, const char *name, int if_exists, int *changed,
                   eng_err *err)
{
    int dummy;
    table_args a = {.ks = ks, .table = name, .if_flag = if_exists,
                    .changed = changed ? changed : &dummy};
    return run_ddl(db, drop_table, &a, err);
}

int eng_alter_table_add(eng_db *db, const char *ks, const char *table, const eng_column_def *cols,
                        uint32_t n, int if_not_exists, int *changed, eng_err *err)
{
    int dummy;
    table_args a = {.ks = ks, .table = table, .cols = cols, .n = n, .if_flag = if_not_exists,
                    .changed = changed ? changed : &dummy};
    return run_ddl(db, add_columns, &a, err);
}

int eng_alter_table_drop(eng_db *db, const char *ks, const char *table, const char *const *names,
                         uint32_t n, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    table_args a = {.ks = ks, .table = table, .names = names, .n = n, .if_flag = if_exists,
                    .changed = changed ? changed : &dummy};
    return run_ddl(db, drop_columns, &a, err);
}

int eng_alter_table_rename(eng_db *db, const char *ks, const char *table, const char *from,
                           const char *to, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    table_args a = {.ks = ks, .table = table, .from = from, .to = to, .if_flag = if_exists,
                    .changed = changed ? changed : &dummy};
    return run_ddl(db, rename_column, &a, err);
}

int eng_alter_table_options(eng_db *db, const char *ks, const char *table,
                            const eng_option *opts, uint32_t n, int if_exists, int *changed,
                            eng_err *err)
{
    int dummy;
    table_args a = {.ks = ks, .table = table, .opts = opts, .n = n, .if_flag = if_exists,
                    .changed = changed ? changed : &dummy};
    return run_ddl(db, alter_options, &a, err);
}

int eng_truncate(eng_db *db, const char *ks, const char *table, eng_err *err)
{
    table_args a = {.ks = ks, .table = table};
    return run_ddl(db, truncate_table, &a, err);
}

int eng_reset(eng_db *db, eng_err *err) { return run_ddl(db, reset_all, NULL, err); }

/* ---- user types ---- */

typedef struct type_args {
    const char *ks, *name, *field, *from, *to;
    const char *const *fields;
    const eng_type *const *types;
    const eng_type *type;
    uint32_t n;
    int if_flag, *changed;
} type_args;

static int create_type(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    type_args *a = p;
    return eng_catalog_create_type(txn, db->meta, cur, a->ks, a->name, a->fields, a->types, a->n,
                                   a->if_flag, a->changed, err);
}

static int drop_type(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    type_args *a = p;
    return eng_catalog_drop_type(txn, db->meta, cur, a->ks, a->name, a->if_flag, a->changed,
                                 err);
}

static int alter_type_add(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p, eng_err *err)
{
    type_args *a = p;
    return eng_catalog_alter_type_add(txn, db->meta, cur, a->ks, a->name, a->field, a->type,
                                      a->if_flag, a->changed, err);
}

static int alter_type_rename(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *p,
                             eng_err *err)
{
    type_args *a = p;
    return eng_catalog_alter_type_rename(txn, db->meta, cur, a->ks, a->name, a->from, a->to,
                                         a->if_flag, a->changed, err);
}

int eng_create_type(eng_db *db, const char *ks, const char *name, const char *const *fields,
                    const eng_type *const *types, uint32_t n, int if_not_exists, int *changed,
                    eng_err *err)
{
    int dummy;
    type_args a = {.ks = ks, .name = name, .fields = fields, .types = types, .n = n,
                   .if_flag = if_not_exists, .changed = changed ? changed : &dummy};
    return run_ddl(db, create_type, &a, err);
}

int eng_drop_type(eng_db *db, const char *ks, const char *name, int if_exists, int *changed,
                  eng_err *err)
{
    int dummy;
    type_args a = {.ks = ks, .name = name, .if_flag = if_exists,
                   .changed = changed ? changed : &dummy};
    return run_ddl(db, drop_type, &a, err);
}

int eng_alter_type_add(eng_db *db, const char *ks, const char *name, const char *field,
                       const eng_type *type, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    type_args a = {.ks = ks, .name = name, .field = field, .type = type, .if_flag = if_exists,
                   .changed = changed ? changed : &dummy};
    return run_ddl(db, alter_type_add, &a, err);
}

int eng_alter_type_rename(eng_db *db, const char *ks, const char *name, const char *from,
                          const char *to, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    type_args a = {.ks = ks, .name = name, .from = from, .to = to, .if_flag = if_exists,
                   .changed = changed ? changed : &dummy};
    return run_ddl(db, alter_type_rename, &a, err);
}
