/*
 * The backend seam of the driver API: what a CassSession asks of whatever
 * answers its requests, as a table of operations (hiredis's
 * redisContextFuncs, Redis's ConnectionType, SQLite's VFS). The session
 * (session.c) checks arguments, keeps futures, counts requests in flight and
 * applies the cluster's defaults; a backend opens its target, prepares and
 * executes statements, and hands back cql_result values (cql/result.h), so
 * results, rows, values and iterators never know which backend answered.
 *
 *  - cql_backend_local (backend_local.c): the embedded engine, for the
 *    contact points "file:DIR" and "memory:". The only file of the driver
 *    that sees the executor (cql/cql.h) and the engine.
 *  - cql_backend_remote (backend_remote.c): a cluster over the native
 *    protocol, for every other contact point. Until the protocol client
 *    exists it answers every connect with "no hosts available".
 *
 * Completion: every request ends with exactly one call of its `done`
 * callback, either before the operation returns (the embedded engine runs
 * a statement in the calling thread) or later from a backend thread (a
 * write waiting for its group commit; a network response). done must not
 * wait for another request of the same backend.
 *
 * Threads: a backend serves any number of threads at once; its operations
 * may be called concurrently. close is called once, when no request is in
 * flight any more.
 */
#ifndef CQL_DRIVER_BACKEND_H
#define CQL_DRIVER_BACKEND_H

#include "cassandra.h"
#include "cql/result.h"
#include "engine/value/common.h"

typedef struct cql_backend cql_backend; /* one connected target: the backend's own struct */
typedef struct cql_backend_ops cql_backend_ops;

/*
 * One statement of a request: the protocol's QUERY (query text, no
 * prepared) or EXECUTE (a prepared statement). Values in native
 * serialization (len ENG_NULL / ENG_UNSET for null / unset), in marker
 * order, or by name when names is set (a simple statement only). The
 * backend copies what it keeps.
 */
typedef struct cql_request {
    const char *query;            /* QUERY: the text (len query_len) */
    size_t query_len;
    const CassPrepared *prepared; /* EXECUTE: the statement, or NULL */
    const eng_val *values;
    uint32_t n_values;
    const char *const *names;     /* values by name (n_values of them, NULL for a slot no name
                                     reached), or NULL: in marker order */
    int32_t page_size;            /* <= 0: no paging */
    const uint8_t *paging_state;  /* from a previous result of the same statement, or NULL */
    size_t paging_state_len;
    int64_t timestamp;            /* ENG_TS_NONE: the server assigns it */
    int consistency;              /* the protocol's consistency levels (CassConsistency) */
    int serial_consistency;
    uint64_t timeout_ms;          /* the request timeout its settings resolve to (0: none):
                                     the remote backend's; embedded requests run to completion */
    uint16_t n_payload;           /* the custom payload: n_payload names ([string]) and values
                                     ([bytes]); 0: none. Sent remote (v4+); ignored embedded,
                                     as Cassandra's default query handler ignores it */
    const eng_val *payload_names;
    const eng_val *payload_values;
    int tracing;                  /* trace it: the result's tracing_id names the trace session
                                     (remote: the frame's tracing flag; embedded: system_traces) */
    /* Routing, retries and speculative executions: the remote backend's (embedded: unused) */
    int idempotent;               /* may run more than once: retried elsewhere, speculated on */
    const CassExecProfile *profile; /* the execution profile it names, or NULL: the cluster's
                                       load balancing, filters and speculative policy */
    const CassRetryPolicy *retry_policy; /* the statement's, else its profile's, else the
                                            cluster's; NULL: the default policy */
    const char *keyspace;         /* the statement's keyspace (for routing), or NULL */
    const size_t *key_indices;    /* a simple statement's routing key markers, or NULL */
    uint32_t n_key_indices;
    const char *host;             /* cass_statement_set_host: the only node to run it on, or
                                     NULL; host_port its port */
    int host_port;
    CassNode *coordinator;        /* out (or NULL): the node that answered, set before done */
} cql_request;

/* A BATCH: statements (their timestamps and levels unused: the batch's apply). */
typedef struct cql_batch_request {
    int kind;                     /* CassBatchType: 0 logged, 1 unlogged, 2 counter */
    uint32_t n;
    const cql_request *stmts;
    int64_t timestamp;
    int consistency;
    int serial_consistency;
    uint64_t timeout_ms;          /* as cql_request's */
    uint16_t n_payload;           /* the batch's custom payload: as cql_request's */
    const eng_val *payload_names;
    const eng_val *payload_values;
    int tracing;                  /* as cql_request's */
    int idempotent;               /* as cql_request's; routing by its first statement's key */
    const CassExecProfile *profile;
    const CassRetryPolicy *retry_policy;
    const char *keyspace;
    CassNode *coordinator;
} cql_batch_request;

/*
 * The end of a request: rc 0 and its result (taken over; NULL for a write's VOID result), or
 * rc an error with err (Cassandra's message; for server errors the protocol code; valid
 * during the call only).
 */
typedef void (*cql_backend_done)(void *arg, int rc, const eng_err *err, cql_result *result);

struct cql_backend_ops {
    const char *name; /* "embedded", "remote": for messages */
    /*
     * Connects to `contacts` (the contact points this backend serves, as the application gave
     * them or CASSETTE_URI; `origin` is " (from CASSETTE_URI)" or "") with the cluster's
     * settings. Returns CASS_OK and *out, or the driver's code with err->msg saying why.
     */
    CassError (*connect)(const CassCluster *cluster, const char *contacts, const char *origin,
                         cql_backend **out, eng_err *err);
    void (*close)(cql_backend *b);
    /*
     * PREPARE, in the backend's current keyspace (the last USE): the PREPARED result
     * (cql/result.h: id, markers, columns; taken over by the caller) and the backend's handle
     * for executing it (freed with handle_free; it may outlive the backend).
     */
    int (*prepare)(cql_backend *b, const char *query, size_t len, cql_result **meta,
                   void **handle, eng_err *err);
    void (*handle_free)(void *handle);
    /* Runs one statement; done is called exactly once. A prepared statement made by another
       backend is prepared here first, from its text. */
    void (*execute)(cql_backend *b, const cql_request *req, cql_backend_done done, void *arg);
    void (*execute_batch)(cql_backend *b, const cql_batch_request *req, cql_backend_done done,
                          void *arg);
    /* Every row of one of the tables the schema metadata is built from (enum
       cql_drv_schema_table: a ROWS result, taken over by the caller). */
    int (*schema_rows)(cql_backend *b, int table, cql_result **out, eng_err *err);
    /*
     * cassette.h's embedded-only extensions (virtual clock, reset, snapshot): 0 or a CassError.
     * A backend without them answers CASS_ERROR_LIB_NOT_IMPLEMENTED.
     */
    int (*clock_set)(cql_backend *b, int64_t unix_us);
    int (*clock_advance)(cql_backend *b, int64_t delta_us);
    int (*clock_real)(cql_backend *b);
    int (*reset)(cql_backend *b);
    int (*snapshot)(cql_backend *b, const char *dir);
    /* The connections and error counts of cass_session_get_metrics and the speculative
       executions of cass_session_get_speculative_execution_metrics (NULL: none). */
    void (*metrics)(cql_backend *b, CassMetrics *m, CassSpeculativeExecutionMetrics *spec);
};

extern const cql_backend_ops cql_backend_local;
extern const cql_backend_ops cql_backend_remote;

/* The embedded database settings of cassette.h's cluster setters (cluster.c). */
typedef struct cql_drv_embedded {
    int durability;            /* enum cassette_durability, or -1: not set */
    size_t map_size;           /* 0: the engine's default */
    unsigned sync_period_ms;   /* 0: the engine's default */
    int no_group_commit;
    size_t statement_cache;    /* bytes of prepared statements kept; 0: the default */
} cql_drv_embedded;
void cql_drv_cluster_embedded(const CassCluster *c, cql_drv_embedded *out);

#endif
