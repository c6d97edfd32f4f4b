/*
 * The CQL executor's interface, for the layers above it: the driver API
 * (cassandra.h), the shell and the native-protocol server. Statements are
 * prepared once (parsed, analyzed against the schema, bind markers typed)
 * and executed many times with bound values in native-protocol
 * serialization; results carry column metadata, rows of native-serialized
 * cells and a paging state.
 *
 * Errors carry the CQL protocol error code (eng_err.code, see common.h)
 * and Cassandra's message text.
 *
 * Threads: a session is used by one thread at a time (the driver layer
 * wraps it); a prepared statement is read-only and may be executed from
 * many sessions and threads at once; a result is read-only.
 */
#ifndef CQL_H
#define CQL_H

#include "cql/result.h"
#include "engine/engine.h"

typedef struct cql_session cql_session;
typedef struct cql_prepared cql_prepared;

/* ---- sessions ---- */

/*
 * A session on a database: its current keyspace (USE) and the database's
 * statement cache. Ownership: free with cql_session_free; the database must
 * outlive it.
 */
int cql_session_new(eng_db *db, cql_session **out, eng_err *err);
void cql_session_free(cql_session *s);
/* The CQL version cassette speaks (QueryProcessor.CQL_VERSION of Cassandra 4.1). */
#define CQL_CQL_VERSION "3.4.6"

/* Current keyspace, or NULL before USE. Valid until the next USE. */
const char *cql_session_keyspace(const cql_session *s);
eng_db *cql_session_db(const cql_session *s);
/*
 * Makes ks (len bytes, not NUL-terminated) the session's keyspace without looking it up, as
 * a native-protocol server restores a connection's keyspace (validated by its USE) or takes
 * a v5 request's keyspace (a statement on a keyspace that does not exist fails on its own).
 * ks NULL: no keyspace, as before the first USE. 0 or ENG_E_NOMEM.
 */
int cql_session_use_unchecked(cql_session *s, const char *ks, size_t len, eng_err *err);

/* ---- the cluster a session describes (system.local, system.peers, system.peers_v2) ---- */

#define CQL_NODE_TOKENS 16 /* cassandra.yaml num_tokens in 4.x */

/* One node as the system tables describe it. */
typedef struct cql_node {
    uint8_t addr[16];  /* broadcast = listen = rpc (native) address: addr_len bytes */
    uint8_t addr_len;  /* 4 (IPv4) or 16 (IPv6) */
    int native_port;   /* rpc_port, native_port */
    int storage_port;  /* broadcast_port, listen_port, peer_port */
    char dc[64];       /* data_center */
    char rack[64];
    uint8_t host_id[16];
    int n_tokens;      /* at most CQL_NODE_TOKENS */
    int64_t tokens[CQL_NODE_TOKENS]; /* Murmur3Partitioner tokens */
    int up;            /* a peer: its process serves; 0: down, still a member of the ring */
} cql_node;

/*
 * What a native-protocol server tells its sessions about the cluster it is part of. Without
 * one (embedded sessions) system.local describes one node at 127.0.0.1 and the peers tables
 * are empty. Threads: both functions are called from any thread, concurrently.
 */
typedef struct cql_topology {
    /* The node the session runs on. */
    void (*local)(void *arg, cql_node *out);
    /* Calls fn once per other member of the cluster (the local node excluded); 0, or -1
       when they cannot be listed (the tables are then read without them). */
    int (*peers)(void *arg, void (*fn)(void *fn_arg, const cql_node *peer), void *fn_arg);
    void *arg;
} cql_topology;

/* Makes s describe the cluster t tells (NULL: the embedded one-node description). t must
   outlive the session's use of it. */
void cql_session_set_topology(cql_session *s, const cql_topology *t);

/* ---- authentication and authorization (auth.c) ---- */

/*
 * Makes db ready for PasswordAuthenticator: the tables of system_auth, and when no role exists
 * the default superuser as Cassandra creates it (cassandra / cassandra, at timestamp 0).
 * Threads: any; call once before serving logins.
 */
int cql_auth_setup(eng_db *db, eng_err *err);
/*
 * Checks a login against system_auth.roles (bcrypt). 0, or ENG_E_BAD_CREDENTIALS with
 * Cassandra's text ("Provided username %s and/or password are incorrect", "%s is not permitted
 * to log in"). Slow by design (bcrypt, about 0.1 s): not for an I/O thread. Threads: any.
 */
int cql_auth_login(eng_db *db, const char *user, size_t user_len, const char *password,
                   size_t password_len, eng_err *err);
/*
 * Enforces role's permissions on s from now on (a session a login succeeded for); NULL turns
 * enforcement off (the default: the session acts as the system, as with Cassandra's
 * AllowAllAuthenticator). 0 or ENG_E_NOMEM.
 */
int cql_session_login(cql_session *s, const char *role, eng_err *err);
/* The role set by cql_session_login, or NULL. */
const char *cql_session_user(const cql_session *s);

/* ---- prepared statements ---- */

/*
 * Prepares one statement (a trailing ';' is allowed). Prepared statements
 * are cached per database (prepared.c: bounded, least recently used first
 * out), keyed by an XXH3 hash of the keyspace and the query text: preparing
 * the same text again returns the cached one. A statement belongs to no
 * database: executed on any session, it is analyzed against that session's
 * schema.
 * Ownership: the caller holds one reference (cql_prepared_unref).
 * Errors: ENG_E_SYNTAX, ENG_E_INVALID (unknown keyspace/table/column, type
 * mismatch of a literal, restriction rules), ...
 */
int cql_prepare(cql_session *s, const char *query, size_t len, cql_prepared **out, eng_err *err);
/* The same for a simple statement (QUERY): cached in a small class of its own, so a stream of
   distinct texts never grows memory, while a repeated text is parsed once. */
int cql_prepare_simple(cql_session *s, const char *query, size_t len, cql_prepared **out,
                       eng_err *err);
/*
 * The statement cached in s's database under id (EXECUTE by id). Ownership: one reference.
 * Errors: ENG_E_UNPREPARED with Cassandra's text when it is not there (never prepared here, or
 * evicted since): the client prepares it again.
 */
int cql_prepared_lookup(cql_session *s, const uint8_t *id, size_t len, cql_prepared **out,
                        eng_err *err);
/*
 * The PREPARED result of p analyzed against s's schema: its id, bind markers, result columns and
 * routing indexes, valid until cql_result_free whatever happens to p (what a PREPARE answers).
 */
int cql_prepared_describe(cql_session *s, cql_prepared *p, cql_result **out, eng_err *err);
cql_prepared *cql_prepared_ref(cql_prepared *p);
void cql_prepared_unref(cql_prepared *p);

/* The 16-byte id (XXH3-128 of keyspace and query text). */
const uint8_t *cql_prepared_id(const cql_prepared *p);
const char *cql_prepared_query(const cql_prepared *p);
/*
 * Bind markers: count and each marker's name and type (names per facts §2.6).
 * The specs returned here and by cql_prepared_column belong to the current
 * analysis: valid until the statement is analyzed again, which an execution
 * or a cql_prepare of the same text does after a schema change (copy them
 * if they must outlive that; a result's own cols stay valid until
 * cql_result_free).
 */
uint32_t cql_prepared_bind_count(const cql_prepared *p);
const cql_column_spec *cql_prepared_bind(const cql_prepared *p, uint32_t i);
/* Index of the first marker with that name, or -1. */
int cql_prepared_bind_index(const cql_prepared *p, const char *name, size_t len);
/* Result columns of a SELECT (0 for other statements; LWT results vary per execution). */
uint32_t cql_prepared_column_count(const cql_prepared *p);
const cql_column_spec *cql_prepared_column(const cql_prepared *p, uint32_t i);
/* Partition key indexes among the bind markers (for token-aware routing metadata). */
uint32_t cql_prepared_pk_count(const cql_prepared *p);
uint16_t cql_prepared_pk_index(const cql_prepared *p, uint32_t i);
/* 1 for INSERT/UPDATE/DELETE/BATCH, 0 otherwise. */
int cql_prepared_is_write(const cql_prepared *p);
/*
 * 1 when executing p on s is a SELECT of one partition (every partition key column = one
 * value), of a stored table, without filtering, aggregation or GROUP BY, returning at most
 * max_rows rows: the whole primary key given (one row), or a literal LIMIT or page_size
 * (<= 0: none) bounding them. Its cost is then bounded by those rows, whatever the data: the
 * server runs such reads without handing them to a worker. 0 otherwise, and on any error.
 */
int cql_prepared_bounded_read(cql_session *s, cql_prepared *p, int32_t page_size,
                              uint32_t max_rows);

/* ---- execution ---- */

typedef struct cql_exec_options {
    const eng_val *values;      /* bound values, native serialization; len ENG_NULL / ENG_UNSET */
    uint32_t n_values;
    const char *const *names;   /* values given by name (n_values names, NUL-terminated, matched
                                   exactly to the markers' names), or NULL: in marker order */
    int32_t page_size;          /* rows per page; <= 0: no paging */
    const uint8_t *paging_state;/* from a previous result of the same statement, or NULL */
    size_t paging_state_len;
    int64_t timestamp;          /* default write timestamp (µs), or ENG_TS_NONE */
    int64_t now_s;              /* the time (s) TTLs count from and are judged at, for reads
                                   and writes (v5's now_in_seconds); 0: the database's clock */
    int consistency;            /* accepted and stored (one node meets every level) */
    int serial_consistency;
    /* Plain writes (no condition) on a database with group commit (eng_db_group_commit): when
       set, the write is queued for the next group commit instead of waited for; the result is
       then VOID with `pending` set, and on_durable(rc, err, info, on_durable_arg) runs exactly
       once when the write is durable or failed — in the committer thread, or already before
       cql_execute returns. Anything else (reads, conditional writes, schema changes, errors
       found before queueing) runs as without it, and on_durable is not called. */
    eng_apply_done on_durable;
    void *on_durable_arg;
    /* Tracing (exec/trace.h): the request is recorded in system_traces as Cassandra records a
       traced one (a session row, a row per step; kept one day) and its result names the
       session (cql_result.tracing_id). A traced write is applied before cql_execute returns
       (on_durable is not used). For a batch, options[0]'s apply. trace_client: the client's
       address for the session row (4 or 16 bytes), or NULL: 127.0.0.1. */
    int trace;
    const uint8_t *trace_client;
    uint8_t trace_client_len;
} cql_exec_options;

/* Defaults: no values, no paging, server timestamp, consistency ONE, serial SERIAL. */
void cql_exec_options_init(cql_exec_options *o);

/*
 * Executes a prepared statement with bound values. The number of values
 * must match the markers ("there were %d markers(?) in CQL but %d bound
 * variables"); values given by name must reach every marker ("Invalid
 * amount of bind variables"). A statement not in s's cache (evicted, or
 * prepared on another database) is put back, as re-preparing it would.
 * Ownership: *out (may be NULL for no result wanted) is freed with
 * cql_result_free.
 */
int cql_execute(cql_session *s, cql_prepared *p, const cql_exec_options *o, cql_result **out,
                eng_err *err);

/* Prepares (cql_prepare_simple) and executes a statement (QUERY): its count check reads
   "Invalid amount of bind variables". */
int cql_query(cql_session *s, const char *query, size_t len, const cql_exec_options *o,
              cql_result **out, eng_err *err);

/*
 * A batch of prepared INSERT/UPDATE/DELETE statements, each with its own
 * values (options[i]); atomic. kind: 0 logged, 1 unlogged, 2 counter.
 * options[0].on_durable applies to the whole batch.
 * timestamp: the batch's default timestamp or ENG_TS_NONE.
 */
int cql_execute_batch(cql_session *s, int kind, cql_prepared **stmts,
                      const cql_exec_options *options, uint32_t n, int64_t timestamp,
                      cql_result **out, eng_err *err);


/* ---- the statement cache ---- */

/* Sets the bytes the prepared class of db's cache holds at most (0: the default, 10 MiB, or
   CASSETTE_PREPARED_CACHE_MB); evicts at once when over. 0 or ENG_E_NOMEM. */
int cql_cache_set_capacity(eng_db *db, size_t bytes);

typedef struct cql_cache_info {
    size_t prepared, prepared_bytes, prepared_capacity; /* statements prepared explicitly */
    size_t simple, simple_bytes, simple_capacity;       /* simple statements */
    uint64_t evictions;
} cql_cache_info;
void cql_cache_stats(eng_db *db, cql_cache_info *out);

#endif
