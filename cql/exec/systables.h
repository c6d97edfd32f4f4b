/*
 * The system tables a single Cassandra 4.1 node serves, computed from the
 * catalog instead of stored: system_schema.keyspaces, tables, columns,
 * dropped_columns and types describe the schema snapshot (with the system
 * keyspaces and these tables themselves, as Cassandra lists its own);
 * system_schema.triggers, views, indexes, functions and aggregates exist
 * and are empty (cassette has none of those objects); system.local names
 * the node, and system.peers / system.peers_v2 list the other nodes of the
 * cluster a server describes (cql_topology; empty embedded: no peers).
 *
 * The descriptors are built once per process and never freed; they carry
 * Cassandra's column definitions (SchemaKeyspace, SystemKeyspace of 4.1)
 * and table ids (TableId.forSystemTable). They are virtual tables
 * (engine.h): eng_read reads them through cql_systable_fill with every rule
 * a stored table follows, so SELECT has one way of reading rows.
 *
 * Threads: every function may be called from any thread.
 */
#ifndef CQL_SYSTABLES_H
#define CQL_SYSTABLES_H

#include "cql/cql.h"
#include "engine/engine.h"

/*
 * The system table ks.name served from the catalog (system_schema.keyspaces,
 * tables, columns, dropped_columns, types; system.local), or NULL. The
 * descriptor lives for the whole process; its columns are in SELECT * order
 * (partition key, clustering, then static and regular columns sorted by
 * name, as engine/schema.h describes). Column ids are 0..n_cols-1 (the
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

/* 1 when t is one of the descriptors cql_systable serves (not a stored table). */
int cql_systable_served(const eng_table *t);

/* What the provider describes: the snapshot (NULL: only the system keyspaces), the database
   (may be NULL) whose clock and directory system.local reports, and the cluster (NULL: one
   node, 127.0.0.1, no peers; else system.local describes topology->local and system.peers /
   system.peers_v2 list topology->peers). */
typedef struct cql_systable_ctx {
    const eng_schema *schema;
    eng_db *db;
    const cql_topology *topology;
} cql_systable_ctx;

/*
 * The provider of the system tables (an eng_vtable_fill, ctx a
 * cql_systable_ctx): hands every row of t to the engine, built from the
 * snapshot; eng_read then reads them with its usual order, slices, limits
 * and paging. t must come from cql_systable (else ENG_E_INVALID).
 * Keyspaces, tables and types the snapshot holds under a system keyspace
 * name are left out. Rows carry write timestamp 0 (the catalog keeps no
 * change times), except dropped_columns rows, written at their drop time.
 * Returns 0, ENG_E_NOMEM, ENG_E_SERVER, or the engine's error.
 */
int cql_systable_fill(void *ctx, const eng_table *t, eng_vsink *sink, eng_err *err);

#endif
