/*
 * The result of a request, in the one shape every layer shares: the
 * executor builds it, the native-protocol decoder will build it from a
 * RESULT message, and the driver, the server and the shell read it without
 * knowing which built it. Its kinds are the protocol's RESULT kinds
 * ([PV4] §4.2.5): VOID, ROWS (column metadata, rows of native-serialized
 * cells, a paging state), SET_KEYSPACE, PREPARED (the statement id, its
 * bind markers, its result columns) and SCHEMA_CHANGE.
 *
 * Memory: a result owns everything it points to -- cells in `data`, column
 * specs and strings in `arena` -- except the types its column specs point
 * to, which whoever built it keeps alive until cql_result_free through
 * `release` (the executor holds the analysis they come from).
 *
 * Threads: a finished result is read-only and may be read from any thread.
 */
#ifndef CQL_RESULT_H
#define CQL_RESULT_H

#include "engine/value/common.h"
#include "engine/value/types.h"

/* Column metadata of a result or of a bind marker (facts §2.6 for marker names). */
typedef struct cql_column_spec {
    const char *ks;
    const char *table;
    const char *name;
    const eng_type *type;
} cql_column_spec;

enum cql_result_kind {
    CQL_RESULT_VOID = 1,
    CQL_RESULT_ROWS = 2,
    CQL_RESULT_SET_KEYSPACE = 3,
    CQL_RESULT_PREPARED = 4,
    CQL_RESULT_SCHEMA_CHANGE = 5,
};

/* Server warnings a result can carry (the protocol has no limit; Cassandra sends one or two). */
#define CQL_RESULT_MAX_WARNINGS 4

typedef struct cql_result {
    int kind;                   /* enum cql_result_kind */
    uint32_t n_cols;
    cql_column_spec *cols;      /* ROWS: column metadata ([applied] first for LWT);
                                   PREPARED: the result columns of the statement */
    uint32_t n_rows;
    eng_val *cells;             /* ROWS: n_rows * n_cols values, row-major, into `data` */
    int has_more;               /* another page follows */
    eng_buf paging_state;       /* when has_more: pass back with the next request */
    const char *keyspace;       /* SET_KEYSPACE: the keyspace; SCHEMA_CHANGE: its keyspace */
    const char *change;         /* SCHEMA_CHANGE: "CREATED", "UPDATED", "DROPPED" */
    const char *target;         /* SCHEMA_CHANGE: "KEYSPACE", "TABLE", "TYPE" */
    const char *object;         /* SCHEMA_CHANGE: table or type name ("" for a keyspace) */
    /* PREPARED: */
    eng_val prepared_id;        /* the id to execute it by (in `arena`) */
    uint32_t n_binds;
    cql_column_spec *binds;     /* its bind markers, in order */
    uint32_t n_pk_binds;
    uint16_t *pk_binds;         /* the marker of each partition key column, in key order, when
                                   every one has a marker (routing); n_pk_binds 0 otherwise */
    int pending;                /* a write queued for its group commit: its outcome comes through
                                   the executor's on_durable callback, not this result */
    const char *warnings[CQL_RESULT_MAX_WARNINGS]; /* server warnings (static strings) */
    uint32_t n_warnings;
    uint16_t n_payload;         /* the custom payload the server sent with it (remote; the
                                   embedded engine sends none): names (NUL-terminated after
                                   their length) and values, in `arena` */
    eng_val *payload_names;
    eng_val *payload_vals;
    int has_tracing_id;         /* the request was traced: its session id in system_traces */
    uint8_t tracing_id[16];     /* (a uuid, 16 raw bytes) */
    eng_buf data;               /* cell bytes */
    eng_arena arena;            /* everything else */
    void (*release)(void *);    /* run by cql_result_free: frees what the specs point into */
    void *release_arg;
} cql_result;

/* A new, empty result of that kind (NULL on OOM). Ownership: cql_result_free. */
cql_result *cql_result_new(int kind);
/* Declares the result columns (copied into the result's arena; types and names are borrowed:
   the builder keeps them alive through `release`). 0 or ENG_E_NOMEM. */
int cql_result_set_columns(cql_result *r, const cql_column_spec *cols, uint32_t n);
/* Appends a row of n_cols values (copied). 0 or ENG_E_NOMEM. */
int cql_result_add_row(cql_result *r, const eng_val *vals);
/* Turns the rows appended so far into cell views (once, when the result is complete). */
int cql_result_finish(cql_result *r);
/* Frees the result and runs its release hook. NULL is a no-op. */
void cql_result_free(cql_result *r);

#endif
