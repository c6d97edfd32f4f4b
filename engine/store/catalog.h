/*
 * The catalog: keyspaces, tables, columns and user-defined types, persisted
 * in the `meta` sub-database of the LMDB environment and read back as an
 * immutable, reference-counted snapshot (eng_schema, engine/schema.h).
 *
 * Every schema change runs inside the caller's write transaction: it is
 * validated against the current snapshot with Cassandra's rules and
 * messages, written as records, and bumps the schema version stored in meta.
 * Any process that sees a different stored version reloads a snapshot, so
 * schema changes made by one process are seen by the others.
 *
 * Records in meta (keys are bytes):
 *   "v"                    -> schema version, be64
 *   "h"                    -> write timestamp high-water mark, be64 (owned by txn.c)
 *   "K" 0 ks               -> keyspace record
 *   "T" 0 ks 0 table       -> table record
 *   "Y" 0 ks 0 type        -> user type record
 * (record layouts: catalog.c). A record that does not decode makes
 * eng_schema_load fail with ENG_E_CORRUPT. LMDB failures surface as
 * ENG_E_NOMEM, ENG_E_IO, or ENG_MAP_FULL (the write transaction grows the map
 * and runs the change again).
 */
#ifndef ENG_CATALOG_H
#define ENG_CATALOG_H

#include <lmdb.h>

#include "engine/schema.h"

/* ---- snapshots ---- */

/* Reads the stored schema version (0 for a new database). */
int eng_catalog_version(MDB_txn *txn, MDB_dbi meta, uint64_t *out, eng_err *err);
/* A 64-bit entry of meta under key ("v", "h"), checksummed: 0, MDB_NOTFOUND when there is
   none, ENG_E_CORRUPT when it fails its checksum, or another engine error. */
int eng_catalog_get_u64(MDB_txn *txn, MDB_dbi meta, const char *key, uint64_t *out,
                        eng_err *err);
int eng_catalog_put_u64(MDB_txn *txn, MDB_dbi meta, const char *key, uint64_t value,
                        eng_err *err);
/* Builds a snapshot of everything stored; refs = 1. */
int eng_schema_load(MDB_txn *txn, MDB_dbi meta, eng_schema **out, eng_err *err);
/*
 * The same, sharing with prev (the snapshot the new one replaces, or NULL)
 * every user type whose record, and every type it uses, is unchanged: a
 * schema change costs the new snapshot what it changes plus an array of
 * pointers, and old snapshots still held keep only what differs.
 */
int eng_schema_load_after(MDB_txn *txn, MDB_dbi meta, const eng_schema *prev, eng_schema **out,
                          eng_err *err);

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
 * (schema_change.c) creates and drops them, named by eng_table_dbname().
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
