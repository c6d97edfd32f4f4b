/*
 * The system tables a single Cassandra 4.1 node serves, computed from the
 * catalog instead of stored: system_schema.keyspaces, tables, columns,
 * dropped_columns and types describe the schema snapshot (with the system
 * keyspaces and these tables themselves, as Cassandra lists its own);
 * system_schema.triggers, views, indexes, functions and aggregates exist
 * and are empty (cassette has none of those objects); system.local names
 * the node, and system.peers / system.peers_v2 are empty (it has no peers).
 *
 * The descriptors are built once per process and never freed; they carry
 * Cassandra's column definitions (SchemaKeyspace, SystemKeyspace of 4.1)
 * and table ids (TableId.forSystemTable). Rows are handed out as
 * eng_row_view objects exactly like eng_read's, so the SELECT machinery
 * reads them with eng_view_column.
 *
 * Threads: every function may be called from any thread.
 */
#ifndef CQL_SYSTABLES_H
#define CQL_SYSTABLES_H

#include "engine/engine.h"

/*
 * The system table ks.name served from the catalog (system_schema.keyspaces,
 * tables, columns, dropped_columns, types; system.local), or NULL. The
 * descriptor lives for the whole process; its columns are in SELECT * order
 * (partition key, clustering, then static and regular columns sorted by
 * name, as engine/catalog.h describes). Column ids are 0..n_cols-1 (the
 * index in cols), and the by_name / by_id indexes are filled, so
 * eng_table_column_index and eng_table_column_by_id work on it. Also serves
 * the empty system_schema.triggers, views, indexes, functions, aggregates
 * and system.peers, system.peers_v2. NULL as well when the descriptors
 * could not be built (out of memory; a later call tries again).
 */
const eng_table *cql_systable(const char *ks, const char *name);

/*
 * 1 for the keyspaces 'system' and 'system_schema' and the other system
 * keyspaces: system_auth, system_distributed and system_traces (listed in
 * system_schema.keyspaces, as a fresh 4.1 node lists them) and the virtual
 * keyspaces system_views and system_virtual_schema (reserved names, not
 * listed). Exact, case-sensitive names; 0 for anything else.
 */
int cql_systable_keyspace(const char *ks);

/*
 * Calls cb once per row of t, built from the snapshot, in Cassandra's
 * order: partitions by token of their partition key (eng_token of the
 * composed key bytes), rows by clustering order. Views are valid during the
 * callback only. cb returning 1 stops, < 0 aborts with that (negated) error
 * code.
 *
 * t must come from cql_systable (else ENG_E_INVALID). s is the snapshot
 * described (NULL: only the system keyspaces); keyspaces, tables and types
 * the snapshot holds under a system keyspace name are left out. db (may be
 * NULL) gives the clock for the views' now_s and the directory from which
 * system.local's host_id is derived. Cells carry write timestamp 0 (the
 * catalog keeps no change times), except dropped_columns rows, written at
 * their drop time. Returns 0, ENG_E_NOMEM, or the callback's error.
 */
int cql_systable_scan(const eng_table *t, const eng_schema *s, eng_db *db, eng_row_cb cb,
                      void *ctx, eng_err *err);

#endif
