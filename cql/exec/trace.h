/*
 * Query tracing, as Cassandra records a traced request (tracing/Tracing,
 * TraceStateImpl, TraceKeyspace of 4.1): a session row in
 * system_traces.sessions (who asked what, when, how long it took, the
 * request's parameters) and one row per step in system_traces.events, with
 * the activity texts Cassandra's own code traces ("Parsing ...", "Executing
 * single-partition query on t", "Adding to t memtable", ...). Every row is
 * written with TTL 86400 s (tracetype_query_ttl), when the request ends.
 *
 * A traced execution hangs its trace on the executor session
 * (cql_session.trace); the steps call CQL_TRACE, which costs one test of a
 * NULL pointer when the request is not traced. The tables are made, through
 * the engine's calls, the first time a trace is written; until then the
 * system tables (systables.c) serve them empty.
 *
 * Threads: a trace belongs to the session that runs its request.
 */
#ifndef CQL_EXEC_TRACE_H
#define CQL_EXEC_TRACE_H

#include "cql/cql.h"

typedef struct cql_trace cql_trace;

/* The thread names Cassandra's events carry: the coordinator's request thread, the local read
   and the local write. */
#define CQL_TRACE_COORDINATOR "Native-Transport-Requests-1"
#define CQL_TRACE_READER "ReadStage-2"
#define CQL_TRACE_WRITER "MutationStage-2"

/* Records one step of s's traced request, if it is traced: printf-style activity. */
#define CQL_TRACE(s, thread, ...)                                                                  \
    do {                                                                                           \
        if ((s)->trace)                                                                            \
            cql_trace_event((s)->trace, (thread), __VA_ARGS__);                                    \
    } while (0)

/*
 * Starts tracing a request of db: request is Cassandra's name for it ("Execute CQL3 query",
 * "Execute CQL3 prepared query", "Execute batch of CQL3 queries"), o the options of the
 * request (its client address, consistency levels and page size become parameters; page_size
 * only when with_page_size). The session id is a time UUID of the database's clock. NULL when
 * memory runs out: the request then runs untraced.
 */
cql_trace *cql_trace_begin(eng_db *db, const char *request, const cql_exec_options *o,
                           int with_page_size);
/* Adds a parameter of the session row (name and value copied; value of len bytes). */
void cql_trace_param(cql_trace *t, const char *name, const char *value, size_t len);
/* Adds the parameter bound_var_<i>_<name> with the value as a CQL literal (toCQLLiteral). */
void cql_trace_bound_var(cql_trace *t, uint32_t i, const cql_column_spec *spec, eng_val v);
/* Records a step (printf-style), stamped with the time since the request began. */
void cql_trace_event(cql_trace *t, const char *thread, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * Ends the trace: writes its rows (making the tables when missing) and frees it. When r is
 * not NULL (the request succeeded), r->tracing_id and has_tracing_id name the session, as
 * Cassandra's response does. A failure to write the trace is not the request's: it is
 * dropped, as Cassandra drops trace mutations it cannot apply.
 */
void cql_trace_end(cql_trace *t, cql_result *r);

#endif
