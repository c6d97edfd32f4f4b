/*
 * Private to the driver API implementation (cql/drv_*.c): the objects
 * behind cassandra.h's opaque handles and the helpers the files share.
 *
 * Values everywhere are native-protocol serialization (facts §2): a bound
 * value, a collection element, a result cell. A CassValue is a view of such
 * bytes with their data type; the typed getters and binders are thin
 * codecs over them, generated from one table (drv_codec.h).
 *
 * Embedded, every call runs in the calling thread: a future is complete
 * when the call that made it returns.
 */
#ifndef CQL_DRV_INT_H
#define CQL_DRV_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "cassandra.h"
#include "cql.h"

/* ---- data types (drv_datatype.c) ---- */

struct CassDataType_ {
    _Atomic int refs;
    CassValueType value_type; /* equals the protocol option id (eng_kind) */
    cass_bool_t frozen;
    char *type_name;          /* UDT name, or NULL */
    char *keyspace;           /* UDT keyspace, or NULL */
    char *class_name;         /* custom type class, or NULL */
    size_t n_sub;
    CassDataType **sub;       /* owned references: element, key/value, components, fields */
    char **sub_names;         /* UDT field names (n_sub entries), else NULL */
};

/* A new data type with one reference (NULL on OOM). */
CassDataType *cql_drv_type_new(CassValueType t);
CassDataType *cql_drv_type_ref(const CassDataType *dt);
void cql_drv_type_unref(const CassDataType *dt);
/* The driver's view of an engine type (a new reference; NULL on OOM). */
CassDataType *cql_drv_type_from_eng(const eng_type *t);
/* 1 if dt's value type is a collection. */
int cql_drv_type_is_collection(const CassDataType *dt);

/* ---- errors (drv_error.c) ---- */

/* The CassError of an engine / executor error (server errors carry the protocol code). */
CassError cql_drv_error_of(const eng_err *err);

/* ---- building values: collections, tuples, user types (drv_collection.c) ---- */

struct CassCollection_ {
    CassCollectionType kind;
    CassDataType *type;  /* may be NULL for an untyped collection (cass_collection_new) */
    size_t count;        /* elements appended (a map counts keys and values separately) */
    eng_buf items;       /* the elements as [bytes] (int32 length, bytes) */
};

/* Tuples and user types hold one slot per component / field. */
typedef struct cql_drv_slots {
    size_t n;
    int32_t *len;        /* ENG_NULL until set (or set to null) */
    size_t *off;         /* offset of the bytes in data */
    eng_buf data;
} cql_drv_slots;

struct CassTuple_ {
    CassDataType *type;  /* may be NULL (cass_tuple_new: item count only) */
    cql_drv_slots slots;
};

struct CassUserType_ {
    CassDataType *type;
    cql_drv_slots slots;
};

/* The native serialization of a built value, appended to out. */
void cql_drv_collection_encode(const CassCollection *c, eng_buf *out);
void cql_drv_tuple_encode(const CassTuple *t, eng_buf *out);
void cql_drv_user_type_encode(const CassUserType *u, eng_buf *out);

/* ---- results, rows, values, iterators (drv_result.c) ---- */

struct CassValue_ {
    const CassDataType *type; /* borrowed from the result / parent value */
    const uint8_t *p;
    int32_t len;              /* < 0: null */
};

struct CassRow_ {
    const CassResult *result;
    size_t index;
    CassValue *values;        /* n_cols views */
};

struct CassResult_ {
    cql_result *r;            /* owned */
    CassDataType **col_types; /* owned references, n_cols */
    CassRow *rows;            /* n_rows rows */
    CassValue *values;        /* n_rows * n_cols views */
    eng_buf paging_state;     /* copy of r->paging_state */
};

/* Wraps an executor result (takes it over); NULL on OOM (r freed). */
CassResult *cql_drv_result_new(cql_result *r);

/* ---- prepared statements, statements, batches (drv_statement.c) ---- */

struct CassPrepared_ {
    _Atomic int refs;
    cql_prepared *p;          /* reference */
    CassDataType **param_types; /* owned references, one per marker */
    size_t n_params;
};

CassPrepared *cql_drv_prepared_new(cql_prepared *p); /* takes the reference over */
void cql_drv_prepared_unref(const CassPrepared *p);

struct CassStatement_ {
    char *query;              /* owned copy of the text */
    size_t query_len;
    CassPrepared *prepared;   /* reference, or NULL for a simple statement */
    size_t n_values;
    int32_t *len;             /* per value: ENG_UNSET until bound, ENG_NULL for null */
    size_t *off;              /* offset in data */
    char **names;             /* simple statements bound by name: the marker name per slot */
    eng_buf data;
    int32_t paging_size;      /* <= 0: no paging */
    eng_buf paging_state;
    int64_t timestamp;        /* ENG_TS_NONE unless set */
    CassConsistency consistency;
    CassConsistency serial_consistency;
    char *keyspace;
    cass_uint64_t request_timeout_ms;
    cass_bool_t idempotent;
};

struct CassBatch_ {
    CassBatchType type;
    size_t n;
    CassStatement **stmts;    /* owned copies */
    int64_t timestamp;
    CassConsistency consistency;
    CassConsistency serial_consistency;
    char *keyspace;
    cass_uint64_t request_timeout_ms;
    cass_bool_t idempotent;
};

/* The statement's values as executor options (views valid while the statement lives). */
int cql_drv_statement_options(const CassStatement *s, cql_exec_options *o, eng_val **vals);

/* ---- futures (drv_future.c) ---- */

typedef enum cql_drv_future_kind {
    CQL_DRV_FUTURE_GENERIC,
    CQL_DRV_FUTURE_SESSION,
    CQL_DRV_FUTURE_RESULT,
    CQL_DRV_FUTURE_PREPARE,
} cql_drv_future_kind;

struct CassErrorResult_ {
    CassError code;
    CassConsistency consistency;
    cass_int32_t received, required, num_failures;
    cass_bool_t data_present;
    CassWriteType write_type;
    char *keyspace, *table, *function;
    size_t n_arg_types;
    char **arg_types;
};

struct CassFuture_ {
    _Atomic int refs;            /* the caller's and, while running, the producer's */
    cql_drv_future_kind kind;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ready;
    CassError code;
    char *message;
    CassResult *result;          /* RESULT futures; handed out by cass_future_get_result */
    CassPrepared *prepared;      /* PREPARE futures; handed out once */
    CassErrorResult *error;      /* server errors */
    CassFutureCallback callback;
    void *callback_data;
};

CassFuture *cql_drv_future_new(cql_drv_future_kind kind);
/* Completes a future (once): success, or code + message; runs the callback. */
void cql_drv_future_set_result(CassFuture *f, CassResult *r);
void cql_drv_future_set_prepared(CassFuture *f, CassPrepared *p);
void cql_drv_future_set_error(CassFuture *f, CassError code, const char *message,
                              const eng_err *err);
void cql_drv_future_set_done(CassFuture *f);

/* ---- cluster and session (drv_cluster.c, drv_session.c) ---- */

struct CassCluster_ {
    char *contact_points;        /* as given, comma separated */
    int port;
    CassProtocolVersion protocol_version;
    cass_bool_t beta_protocol;
    CassConsistency consistency;
    CassConsistency serial_consistency;
    unsigned num_threads_io;
    unsigned connect_timeout_ms, request_timeout_ms, schema_wait_ms;
    unsigned heartbeat_s, idle_timeout_s;
    char *username, *password;
    cass_bool_t token_aware, shuffle_replicas, tcp_nodelay, tcp_keepalive, use_schema;
    unsigned keepalive_delay_s;
    cass_bool_t hostname_resolution, randomized_contact_points;
    char *application_name, *application_version;
    CassUuid client_id;
    cass_bool_t has_client_id;
    CassTimestampGen *timestamp_gen; /* reference, or NULL (server side) */
    CassRetryPolicy *retry_policy;   /* reference, or NULL (default) */
    CassSsl *ssl;                    /* reference, or NULL */
};

struct CassSession_ {
    pthread_mutex_t lock;
    eng_db *db;                  /* NULL while not connected */
    cql_session *s;
    CassUuid client_id;
    CassConsistency consistency;
    CassConsistency serial_consistency;
    CassTimestampGen *timestamp_gen;
};

/* ---- timestamp generators (drv_cluster.c) ---- */

struct CassTimestampGen_ {
    _Atomic int refs;
    int server_side;
    _Atomic int64_t last_us;      /* monotonic generator state */
    int64_t warning_threshold_us, warning_interval_ms;
};

/* The next client timestamp, or ENG_TS_NONE for the server-side generator / NULL. */
int64_t cql_drv_timestamp_next(CassTimestampGen *g);

struct CassRetryPolicy_ {
    _Atomic int refs;
    int kind;                    /* default, downgrading, fallthrough, logging */
    CassRetryPolicy *child;      /* logging: the wrapped policy */
};

struct CassSsl_ {
    _Atomic int refs;
    int verify_flags;
    CassSslTlsVersion min_version;
    eng_buf trusted, cert, key;  /* PEM texts, kept for the remote backend */
};

struct CassUuidGen_ {
    eng_uuidgen gen;
};

/* ---- logging (drv_error.c) ---- */

/* Emits a log message through the application's callback when level passes. */
void cql_drv_log(CassLogLevel level, const char *file, int line, const char *function,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
