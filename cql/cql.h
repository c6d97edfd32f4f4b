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

#include "engine/engine.h"

typedef struct cql_session cql_session;
typedef struct cql_prepared cql_prepared;

/* Column metadata of a result or of a bind marker (facts §2.6 for marker names). */
typedef struct cql_column_spec {
    const char *ks;
    const char *table;
    const char *name;
    const eng_type *type;
} cql_column_spec;

/* ---- sessions ---- */

/*
 * A session on a database: its current keyspace (USE) and its view of the
 * prepared-statement cache. Ownership: free with cql_session_free; the
 * database must outlive it.
 */
int cql_session_new(eng_db *db, cql_session **out, eng_err *err);
void cql_session_free(cql_session *s);
/* Current keyspace, or NULL before USE. Valid until the next USE. */
const char *cql_session_keyspace(const cql_session *s);
eng_db *cql_session_db(const cql_session *s);

/* ---- prepared statements ---- */

/*
 * Prepares one statement (a trailing ';' is allowed). Prepared statements
 * are cached per database, keyed by an XXH3 hash of the keyspace and the
 * query text: preparing the same text again returns the cached one.
 * Ownership: the caller holds one reference (cql_prepared_unref).
 * Errors: ENG_E_SYNTAX, ENG_E_INVALID (unknown keyspace/table/column, type
 * mismatch of a literal, restriction rules), ...
 */
int cql_prepare(cql_session *s, const char *query, size_t len, cql_prepared **out, eng_err *err);
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

/* ---- execution ---- */

typedef struct cql_exec_options {
    const eng_val *values;      /* bound values, native serialization; len ENG_NULL / ENG_UNSET */
    uint32_t n_values;
    int32_t page_size;          /* rows per page; <= 0: no paging */
    const uint8_t *paging_state;/* from a previous result of the same statement, or NULL */
    size_t paging_state_len;
    int64_t timestamp;          /* default write timestamp (µs), or ENG_TS_NONE */
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
} cql_exec_options;

/* Defaults: no values, no paging, server timestamp, consistency ONE, serial SERIAL. */
void cql_exec_options_init(cql_exec_options *o);

enum cql_result_kind {
    CQL_RESULT_VOID = 1,
    CQL_RESULT_ROWS = 2,
    CQL_RESULT_SET_KEYSPACE = 3,
    CQL_RESULT_SCHEMA_CHANGE = 5,
};

typedef struct cql_result {
    int kind;                   /* enum cql_result_kind */
    uint32_t n_cols;
    cql_column_spec *cols;      /* ROWS: column metadata ([applied] first for LWT) */
    uint32_t n_rows;
    eng_val *cells;             /* ROWS: n_rows * n_cols values, row-major, into `data` */
    int has_more;               /* another page follows */
    eng_buf paging_state;       /* when has_more: pass back in cql_exec_options */
    const char *keyspace;       /* SET_KEYSPACE: the keyspace; SCHEMA_CHANGE: its keyspace */
    const char *change;         /* SCHEMA_CHANGE: "CREATED", "UPDATED", "DROPPED" */
    const char *target;         /* SCHEMA_CHANGE: "KEYSPACE", "TABLE", "TYPE" */
    const char *object;         /* SCHEMA_CHANGE: table or type name ("" for a keyspace) */
    int pending;                /* a plain write queued with on_durable: its outcome comes
                                   through on_durable, not this result */
    const char *warnings[4];    /* server warnings Cassandra would send (static strings) */
    uint32_t n_warnings;
    eng_buf data;               /* cell bytes */
    eng_arena arena;            /* everything else */
    struct cql_plan *plan;      /* private: the analysis the column metadata points into, held
                                   until cql_result_free (the statement may be re-analyzed) */
} cql_result;

/*
 * Executes a prepared statement with bound values. The number of values
 * must match the markers ("there were %d markers(?) in CQL but %d bound
 * variables"). Ownership: *out (may be NULL for no result wanted) is freed
 * with cql_result_free.
 */
int cql_execute(cql_session *s, cql_prepared *p, const cql_exec_options *o, cql_result **out,
                eng_err *err);

/* Prepares and executes a statement without bind markers' values (QUERY). */
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

void cql_result_free(cql_result *r);

#endif
