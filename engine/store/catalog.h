/*
 * The catalog: keyspaces, tables, columns and user-defined types, persisted
 * in the `meta` sub-database of the LMDB environment and read back as an
 * immutable, reference-counted snapshot (eng_schema).
 *
 * Every schema change runs inside the caller's write transaction: it is
 * validated against the current snapshot with Cassandra's rules and
 * messages, written as records, and bumps the schema version stored in meta.
 * Any process that sees a different stored version reloads a snapshot, so
 * schema changes made by one process are seen by the others.
 *
 * Snapshots are read-only and safe to share between threads; every pointer
 * reached from a snapshot stays valid until its last reference is dropped.
 *
 * Records in meta (keys are bytes):
 *   "v"                    -> schema version, be64
 *   "h"                    -> write timestamp high-water mark, be64 (owned by env.c)
 *   "K" 0 ks               -> keyspace record
 *   "T" 0 ks 0 table       -> table record
 *   "Y" 0 ks 0 type        -> user type record
 * (record layouts: catalog.c). A record that does not decode makes
 * eng_schema_load fail with ENG_E_CORRUPT. LMDB failures surface as
 * ENG_E_NOMEM, ENG_E_IO, or env_int.h's ENG_MAP_FULL (env.c grows the map and
 * runs the change again).
 */
#ifndef ENG_CATALOG_H
#define ENG_CATALOG_H

#include <lmdb.h>
#include <stdatomic.h>

#include "engine/value/types.h"

enum eng_column_kind {
    ENG_COL_PARTITION = 0,
    ENG_COL_CLUSTERING = 1,
    ENG_COL_STATIC = 2,
    ENG_COL_REGULAR = 3,
};

typedef struct eng_option {
    char *name;  /* option name, lower case ("compaction", "bloom_filter_fp_chance") */
    char *value; /* its value as CQL text ("{'class': 'SizeTieredCompactionStrategy'}", "0.01") */
} eng_option;

typedef struct eng_column {
    char *name;       /* exact (case-preserved) column name */
    eng_type *type;
    uint8_t kind;     /* enum eng_column_kind */
    uint8_t desc;     /* clustering column declared DESC */
    uint16_t position;/* index within the partition key or the clustering key; 0 otherwise */
    uint32_t id;      /* cell column id; never reused within a table (a re-added column gets a new one) */
} eng_column;

typedef struct eng_dropped_column {
    char *name;
    eng_type *type;     /* its type then, user types expanded to tuples (as Cassandra records it) */
    int64_t dropped_us; /* when it was dropped (write timestamp units) */
    uint8_t kind;       /* ENG_COL_STATIC or ENG_COL_REGULAR when it was dropped */
} eng_dropped_column;

typedef struct eng_table {
    char *ks;
    char *name;
    uint8_t id[16];          /* table id (a time UUID); names the table's sub-database */
    uint32_t n_cols;
    eng_column *cols;        /* SELECT * order (facts §7.2): partition key columns in key order,
                                clustering columns in key order, static columns by name,
                                regular columns by name (byte order of the UTF-8 name) */
    uint16_t n_pk;           /* cols[0 .. n_pk) */
    uint16_t n_ck;           /* cols[n_pk .. n_pk + n_ck) */
    uint8_t is_counter;      /* declared with counters: every non-key column is a counter (kept
                                even when the table has no non-key column left) */
    uint8_t has_static;
    int32_t default_ttl_s;   /* default_time_to_live (0 = none) */
    int32_t gc_grace_s;      /* gc_grace_seconds (default 864000) */
    char *comment;           /* comment ("" by default) */
    uint32_t n_opts;
    eng_option *opts;        /* the other WITH options, sorted by name */
    uint32_t n_dropped;
    eng_dropped_column *dropped;
    uint32_t next_col_id;
    uint32_t dbi;            /* LMDB handle of the table's sub-database (set by env.c) */
    uint32_t *by_name;       /* indexes into cols ordered by name (for eng_table_column) */
    uint32_t *by_id;         /* indexes into cols ordered by id (for eng_table_column_by_id) */
} eng_table;

typedef struct eng_keyspace {
    char *name;
    uint32_t n_repl;
    eng_option *repl;        /* replication map, e.g. class / replication_factor, sorted by name */
    uint8_t durable_writes;
} eng_keyspace;

typedef struct eng_schema {
    _Atomic int refs;
    uint64_t version;        /* the stored schema version this snapshot reflects */
    uint32_t n_keyspaces;
    eng_keyspace *keyspaces; /* sorted by name */
    uint32_t n_tables;
    eng_table *tables;       /* sorted by (ks, name) */
    uint32_t n_types;
    eng_type **types;        /* user types (kind ENG_UDT, ks and name set), sorted by (ks, name) */
} eng_schema;

/* ---- snapshots ---- */

/* Reads the stored schema version (0 for a new database). */
int eng_catalog_version(MDB_txn *txn, MDB_dbi meta, uint64_t *out, eng_err *err);
/* Builds a snapshot of everything stored; refs = 1. */
int eng_schema_load(MDB_txn *txn, MDB_dbi meta, eng_schema **out, eng_err *err);
eng_schema *eng_schema_ref(eng_schema *s);
void eng_schema_unref(eng_schema *s);

/* Lookups by exact (case-sensitive) name; NULL if absent. */
const eng_keyspace *eng_schema_keyspace(const eng_schema *s, const char *ks);
const eng_table *eng_schema_table(const eng_schema *s, const char *ks, const char *name);
const eng_type *eng_schema_udt(const eng_schema *s, const char *ks, const char *name);
const eng_column *eng_table_column(const eng_table *t, const char *name);
int eng_table_column_index(const eng_table *t, const char *name); /* -1 if absent */
/* Column by cell id; NULL if no current column has it (dropped). */
const eng_column *eng_table_column_by_id(const eng_table *t, uint32_t id);

/* ---- definitions passed to schema changes ---- */

/*
 * A column of CREATE TABLE or ALTER TABLE ADD. The CQL layer normally lists
 * each declared column once with its final kind. So that the catalog can
 * report Cassandra's PRIMARY KEY errors itself, a create may also carry:
 *  - a key column (PARTITION/CLUSTERING) with type NULL: named in PRIMARY KEY
 *    but never declared ("Unknown column '%s' referenced in PRIMARY KEY ...");
 *  - one name twice with key kinds: named twice in PRIMARY KEY;
 *  - one name as STATIC and again with a key kind: a static column named in
 *    PRIMARY KEY ("Static column '%s' cannot be part of the PRIMARY KEY");
 *  - any other repeated name: a column declared twice.
 * desc set on a column that is not a clustering column means it was named in
 * CLUSTERING ORDER BY ("Only clustering columns can be defined in CLUSTERING
 * ORDER directive"); the order of that clause is the CQL layer's to check.
 * UDTs in `type` may be given by keyspace and name only (keyspace "" = the
 * statement's): they are resolved against the snapshot's user types
 * ("Unknown type ks.name" otherwise); the same holds for UDT fields.
 */
typedef struct eng_column_def {
    const char *name;
    const eng_type *type;  /* copied */
    uint8_t kind;          /* enum eng_column_kind; key order = order of appearance */
    uint8_t desc;          /* clustering order DESC */
} eng_column_def;

typedef struct eng_table_def {
    const char *ks;
    const char *name;
    uint32_t n_cols;
    const eng_column_def *cols;
    uint32_t n_opts;
    const eng_option *opts; /* copied; default_time_to_live, gc_grace_seconds and comment are
                               interpreted (a value in single quotes is unquoted first), the
                               rest kept as given */
} eng_table_def;

/*
 * The IF [NOT] EXISTS argument of the ALTER TABLE and ALTER TYPE calls carries
 * two clauses: ENG_IF_COLUMN for the column's or field's own clause (ADD IF
 * NOT EXISTS c, DROP IF EXISTS c, ALTER TYPE t ADD IF NOT EXISTS f, RENAME IF
 * EXISTS f TO g) -- so a plain boolean 1 means that clause -- and ENG_IF_TABLE
 * for ALTER TABLE IF EXISTS t / ALTER TYPE IF EXISTS t. ALTER TABLE ... WITH has
 * only the table's clause: any non-zero value. As in Cassandra 4.1, RENAME IF
 * EXISTS on a missing column still fails ("Undefined column name ...").
 */
#define ENG_IF_COLUMN 1
#define ENG_IF_TABLE 2

/*
 * Schema changes. Each validates with Cassandra's rules and messages
 * (facts §8.2 DDL, §6 counters, §7.1 statics), writes records in txn and bumps
 * the version. *changed is set to 1 if something changed, 0 when an
 * IF [NOT] EXISTS made it a no-op. ALREADY_EXISTS errors fill err->ks/table.
 * `now_us` is the write timestamp (drop times). On any error nothing is
 * written (the caller aborts txn anyway).
 *
 * `cur` must be the snapshot of what txn sees: if its version is not the
 * stored one the call fails with ENG_E_SERVER and writes nothing (two changes
 * in one transaction need a fresh snapshot in between). A change that changes
 * nothing (IF [NOT] EXISTS no-op, ALTER to the same values) writes nothing and
 * keeps the version. For keyspaces, n_repl = 0 means "no replication given"
 * (an error for CREATE, "unchanged" for ALTER) and durable_writes < 0 means
 * "not given" (true for CREATE, unchanged for ALTER).
 *
 * Table data lives in sub-databases this module does not touch: the caller
 * (env.c) creates and drops them, named by eng_table_dbname().
 */
int eng_catalog_create_keyspace(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                                const eng_option *repl, uint32_t n_repl, int durable_writes,
                                int if_not_exists, int *changed, eng_err *err);
int eng_catalog_alter_keyspace(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                               const eng_option *repl, uint32_t n_repl, int durable_writes,
                               int if_exists, int *changed, eng_err *err);
/* Drops the keyspace with its tables and types; the dropped tables' ids go to dropped_ids. */
int eng_catalog_drop_keyspace(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                              int if_exists, int *changed, eng_buf *dropped_ids, eng_err *err);

int eng_catalog_create_table(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur,
                             const eng_table_def *def, int if_not_exists, int64_t now_us,
                             uint8_t id_out[16], int *changed, eng_err *err);
int eng_catalog_drop_table(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                           const char *name, int if_exists, uint8_t id_out[16], int *changed,
                           eng_err *err);
/* ALTER TABLE ... ADD (columns); kind is STATIC or REGULAR. */
int eng_catalog_add_columns(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                            const char *table, const eng_column_def *cols, uint32_t n,
                            int if_not_exists, int *changed, eng_err *err);
int eng_catalog_drop_columns(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                             const char *table, const char *const *names, uint32_t n,
                             int if_exists, int64_t now_us, int *changed, eng_err *err);
/* ALTER TABLE ... RENAME a TO b (primary key columns only, as Cassandra). */
int eng_catalog_rename_column(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                              const char *table, const char *from, const char *to,
                              int if_exists, int *changed, eng_err *err);
/* ALTER TABLE ... WITH options (replaces the given options, keeps the others). */
int eng_catalog_alter_table_options(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur,
                                    const char *ks, const char *table, const eng_option *opts,
                                    uint32_t n, int if_exists, int *changed, eng_err *err);

/* CREATE TYPE: field names and types (copied). */
int eng_catalog_create_type(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                            const char *name, const char *const *fields,
                            const eng_type *const *types, uint32_t n, int if_not_exists,
                            int *changed, eng_err *err);
int eng_catalog_drop_type(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                          const char *name, int if_exists, int *changed, eng_err *err);
int eng_catalog_alter_type_add(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                               const char *name, const char *field, const eng_type *type,
                               int if_exists, int *changed, eng_err *err);
int eng_catalog_alter_type_rename(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur,
                                  const char *ks, const char *name, const char *from,
                                  const char *to, int if_exists, int *changed, eng_err *err);

/* Name of a table's data sub-database: "d" followed by the 32 hex digits of its id. */
void eng_table_dbname(const uint8_t id[16], char out[34]);

#endif
