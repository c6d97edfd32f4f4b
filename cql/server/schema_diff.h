/*
 * Schema changes another process made: servers on one database directory
 * share its catalog, and a node of a Cassandra cluster pushes SCHEMA_CHANGE
 * events for a change made through any node. A server compares the schema it
 * saw last with the current one and sends what differs.
 *
 * Threads: any; the snapshots are read-only.
 */
#ifndef CQL_SERVER_SCHEMA_DIFF_H
#define CQL_SERVER_SCHEMA_DIFF_H

#include "cql/result.h"
#include "engine/engine.h"

/*
 * Calls fn(arg, change) once per difference between snapshots before and after, each a
 * SCHEMA_CHANGE result (change CREATED / UPDATED / DROPPED; target KEYSPACE, TABLE or TYPE)
 * as Cassandra's EventNotifier would send for it: keyspaces created first, then tables and
 * types, dropped ones before their keyspace. A table dropped and created again under its
 * name (a new id) is DROPPED then CREATED. `change` lives for the call only.
 */
void cql_schema_diff(const eng_schema *before, const eng_schema *after,
                     void (*fn)(void *arg, const cql_result *change), void *arg);

#endif
