/*
 * Private to the driver API implementation (cql/driver/): the objects
 * behind cassandra.h's opaque handles and the helpers the files share.
 *
 * Values everywhere are native-protocol serialization (facts §2): a bound
 * value, a collection element, a result cell. A CassValue is a view of such
 * bytes with their data type; the typed getters and binders are thin
 * codecs over them, generated from one table (codec.h).
 *
 * Nothing here knows which backend answers a session (backend.h): results
 * are cql_result values whoever built them, prepared statements carry their
 * metadata as a PREPARED result and a handle only their backend reads.
 */
#ifndef CQL_DRIVER_INT_H
#define CQL_DRIVER_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "cassandra.h"
#include "cql/result.h"
#include "engine/value/uuid.h"

/* ---- data types (datatype.c) ---- */

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
/* The driver's view of a value type (a new reference; NULL on OOM). */
CassDataType *cql_drv_type_from_eng(const eng_type *t);
/* 1 if dt's value type is a collection. */
int cql_drv_type_is_collection(const CassDataType *dt);

/*
 * The CassError of an allocation failure inside the driver API. The driver has no code for it
 * (its C++ would throw), so setters and binders that run out of memory report this one and
 * leave the object as it was.
 */
#define CQL_DRV_NOMEM CASS_ERROR_LIB_INTERNAL_ERROR

/* A deep copy (NULL on OOM); the add functions and values made from a type keep one, so the
   application may go on changing or free its own. */
CassDataType *cql_drv_type_copy(const CassDataType *dt);
/* A new top node (its frozenness and names its own) sharing dt's sub types, which no one
   changes once they are in a type: a reference to a user type costs one node, not a copy of
   every type nested in it. NULL on OOM. */
CassDataType *cql_drv_type_copy_top(const CassDataType *dt);
/*
 * The driver's DataType::equals, which decides whether a collection, tuple or user type value
 * fits a target type: same kind (text and varchar alike), sub-types compared only when both
 * sides have some, UDT keyspace and name only when both are set, field names exactly, custom
 * class names only when both are set; frozenness ignored.
 */
int cql_drv_type_equals(const CassDataType *a, const CassDataType *b);
/*
 * 1 if `want`, a name an application passed to a _by_name function, names `have` (a marker,
 * column or field name): exactly when want is written in double quotes (the quotes removed),
 * else case-insensitively (ASCII), as CQL identifiers and the driver do.
 */
int cql_drv_name_eq(const char *have, const char *want, size_t want_len);
/*
 * The type of a result column or bind marker as the driver decodes it from the protocol: as
 * cql_drv_type_from_eng, but nothing in it frozen (the protocol does not say). A new
 * reference; NULL on OOM. Scalar types (and scalar sub-types) are shared, read-only objects
 * that live as long as the program: cql_drv_type_ref / _unref leave them alone, and nothing
 * may change them (hand them out as const, copy before building on them).
 */
CassDataType *cql_drv_type_from_protocol(const eng_type *t);

/* ---- errors (error.c) ---- */

/* The CassError of an engine / executor error (server errors carry the protocol code). */
CassError cql_drv_error_of(const eng_err *err);

/* ---- building values: collections, tuples, user types (collection.c) ---- */

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

/* ---- results, rows, values, iterators (result.c) ---- */

struct CassValue_ {
    const CassDataType *type; /* borrowed from the result / parent value */
    const uint8_t *p;
    int32_t len;              /* < 0: null */
};

struct CassRow_ {
    const CassResult *result;
    size_t n_cols;            /* the result's, kept here for cass_row_get_column */
    CassValue *values;        /* n_cols views */
};

/*
 * One allocation (result.c): the struct, then col_types and the first row's values. Only the
 * first row has views here (cass_result_first_row); a result iterator builds those of the row it
 * stands on, so nothing in a result changes after construction.
 */
struct CassResult_ {
    _Atomic int refs;         /* the future holds one; each cass_future_get_result adds one */
    cql_result *r;            /* owned */
    size_t n_rows, n_cols;    /* r's for a ROWS result, else 0 */
    CassDataType **col_types; /* references (scalars: the shared ones), n_cols */
    CassRow first_row;        /* row 0 when n_rows > 0 (values NULL when n_cols is 0) */
    eng_buf paging_state;     /* copy of r->paging_state */
};

/* Wraps an executor result (takes it over); NULL on OOM (r freed). */
CassResult *cql_drv_result_new(cql_result *r);
const CassResult *cql_drv_result_ref(const CassResult *res);

/*
 * Iterators. struct CassIterator_ is shared: result.c implements the result, row,
 * collection, map, tuple and user-type-field kinds together with
 * cass_iterator_next / _type / _free and cass_iterator_get_user_type for every
 * kind; the schema metadata iterators (schema.c: CASS_ITERATOR_TYPE_
 * KEYSPACE_META, TABLE_META, TYPE_META, COLUMN_META, META_FIELD, ...) create
 * theirs with cql_drv_iterator_new and fill u.meta, and their getters read
 * the current item u.meta.items[pos - 1] (or names / values for META_FIELD).
 *
 * Position: pos counts the successful cass_iterator_next calls. Before the
 * first there is no current item (getters return NULL); the current item is
 * index pos - 1 while 1 <= pos <= count; once next returns cass_false, pos
 * stays at count. cass_iterator_next for the metadata kinds only advances pos;
 * for RESULT it builds the views of row pos (row 0 is the result's first_row).
 */
struct CassIterator_ {
    CassIteratorType type;
    size_t count;             /* items to walk */
    size_t pos;               /* successful cass_iterator_next calls; current item is pos - 1 */
    void *owned;              /* freed with eng_free by cass_iterator_free, or NULL */
    union {
        struct {                         /* RESULT (one allocation with row.values) */
            const CassResult *result;
            CassRow row;                 /* row pos - 1: views built by cass_iterator_next */
        } rows;
        const CassRow *row;              /* ROW: the current value is row->values[pos - 1] */
        struct {                         /* COLLECTION, MAP, TUPLE, USER_TYPE_FIELD */
            const CassDataType *type;    /* the walked value's type (borrowed) */
            eng_items items;             /* cursor over its [bytes] items (after the count) */
            CassValue key;               /* MAP: the current key */
            CassValue value;             /* the current item / map value / field value */
        } value;
        struct {                         /* schema metadata kinds (schema.c) */
            const void *const *items;    /* count objects, by kind: KEYSPACE_META
                                            const CassKeyspaceMeta *, TABLE_META
                                            const CassTableMeta *, COLUMN_META
                                            const CassColumnMeta *, TYPE_META
                                            const CassDataType * */
            const char *const *names;    /* META_FIELD: count field names, NUL-terminated */
            const CassValue *values;     /* META_FIELD: count field values */
        } meta;
    } u;
};

/* A zeroed iterator of that kind over count items, before its first item; NULL on OOM. */
CassIterator *cql_drv_iterator_new(CassIteratorType type, size_t count);

/* ---- prepared statements, statements, batches (statement.c) ---- */

struct cql_backend_ops;

/*
 * A prepared statement, whichever backend prepared it: its PREPARED result (id, markers with
 * their names and types, result columns) is all the binders read; the backend's handle is
 * what that backend executes (another backend prepares the text again).
 */
struct CassPrepared_ {
    _Atomic int refs;
    cql_result *meta;         /* owned: kind CQL_RESULT_PREPARED */
    const struct cql_backend_ops *backend; /* the backend that made handle */
    void *handle;             /* owned by that backend (its handle_free) */
    char *query;              /* the text, for cass_session_prepare_from_existing and re-prepares */
    size_t query_len;
    CassDataType **param_types; /* owned references, one per marker */
    size_t n_params;
};

/*
 * A prepared statement of `backend` (meta and handle taken over, also on failure), its text
 * copied; statements bound from it inherit `settings` (may be NULL): consistency, serial
 * consistency, request timeout, idempotence and keyspace, as the driver's do (its
 * RequestSettings). NULL on OOM. The only constructor of CassPrepared: each is the head of a
 * larger private struct in statement.c.
 */
CassPrepared *cql_drv_prepared_new(const struct cql_backend_ops *backend, cql_result *meta,
                                   void *handle, const char *query, size_t query_len,
                                   const CassStatement *settings);
void cql_drv_prepared_unref(const CassPrepared *p);
/* Another reference on p (released with cql_drv_prepared_unref). */
CassPrepared *cql_drv_prepared_ref(const CassPrepared *p);
/* Appends `USE "ks"` for ks[0..len), double quotes doubled: the keyspace as the name it is. */
void cql_drv_use_query(eng_buf *q, const char *ks, size_t len);

/*
 * One allocation with its first value slots (statement.c): len and off point after the struct
 * until cass_statement_reset_parameters gives them a block of their own (slots_block).
 */
/* The most markers a simple statement's routing key names (cass_statement_add_key_index):
   a partition key has at most that many components in any schema seen in practice. */
#define CQL_DRV_MAX_KEY_INDICES 16

struct CassStatement_ {
    char *query;              /* simple: owned copy of the text; bound: NULL (runs the prepared) */
    size_t query_len;
    CassPrepared *prepared;   /* reference, or NULL for a simple statement */
    size_t n_values;
    int32_t *len;             /* per value: ENG_UNSET until bound, ENG_NULL for null */
    size_t *off;              /* offset in data */
    void *slots_block;        /* owned block holding off then len, or NULL: in the statement's */
    char **names;             /* simple statements bound by name: the marker name per slot */
    eng_buf data;
    int32_t paging_size;      /* <= 0: no paging */
    eng_buf paging_state;
    int64_t timestamp;        /* ENG_TS_NONE unless set */
    CassConsistency consistency;
    CassConsistency serial_consistency;
    char *keyspace;           /* simple: owned or NULL; bound: the prepared's (borrowed) */
    cass_uint64_t request_timeout_ms;
    cass_bool_t idempotent;
    char *profile;            /* execution profile name: owned, NUL-terminated, or NULL (none);
                                 not inherited by bound statements nor by a batch's copies */
    size_t profile_len;
    CassCustomPayload *payload; /* owned copy, or NULL; not kept by a batch's copies */
    cass_bool_t tracing;      /* not kept by a batch's copies */
    /* routing (the remote backend's): */
    size_t key_indices[CQL_DRV_MAX_KEY_INDICES]; /* simple: markers of the routing key */
    unsigned n_key_indices;
    char host[CASS_INET_STRING_LENGTH]; /* cass_statement_set_host: the node ("" for none) */
    int host_port;
    CassRetryPolicy *retry_policy; /* reference, or NULL: the profile's or cluster's */
};

/*
 * A custom payload (payload.c): items name -> bytes, kept in name order (bytewise, as the
 * driver's map), at most 65,535 of them (the protocol's [bytes map] counts them in a
 * [short]). names[i] and vals[i] own their bytes; a name is NUL-terminated after its length.
 */
struct CassCustomPayload_ {
    uint16_t n;
    uint16_t cap;
    eng_val *names;
    eng_val *vals;
};
/* A copy of p (NULL for NULL). 0, or ENG_E_NOMEM (*out NULL). */
int cql_drv_payload_copy(const CassCustomPayload *p, CassCustomPayload **out);

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
    char *profile;            /* execution profile name: owned, NUL-terminated, or NULL (none) */
    size_t profile_len;
    CassCustomPayload *payload; /* owned copy, or NULL */
    cass_bool_t tracing;
    CassRetryPolicy *retry_policy; /* reference, or NULL: the profile's or cluster's */
};

struct cql_request;
/*
 * The statement as a backend request (backend.h): its query or prepared statement, values (views
 * valid while the statement lives, in buf when its buf_n entries hold them, else in *heap, which
 * the caller frees with eng_free), names (a simple statement bound by name), paging; consistency
 * levels and timestamp as the statement sets them (CASS_CONSISTENCY_UNKNOWN / ENG_TS_NONE when
 * it does not: the session applies its defaults). Returns 0 or ENG_E_NOMEM (*heap NULL).
 */
int cql_drv_statement_request(const CassStatement *s, struct cql_request *req, eng_val *buf,
                              size_t buf_n, eng_val **heap);

/* The value codecs and the setters' shared helpers are in codec.h. */

/* ---- futures (future.c) ---- */

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

/* A node, as cass_future_coordinator names it and cass_statement_set_node takes it. */
struct CassNode_ {
    CassInet address;
    int port;
};

struct CassFuture_ {
    _Atomic int refs;            /* the caller's and, while running, the producer's */
    cql_drv_future_kind kind;
    pthread_mutex_t lock;
    pthread_cond_t cond;         /* made by the first waiter (has_cond), under the lock */
    int has_cond;                /* under the lock */
    _Atomic int ready;           /* written under the lock; 1 (release): the outcome is final */
    CassError code;
    char *message;
    CassResult *result;          /* RESULT futures; handed out by cass_future_get_result */
    CassPrepared *prepared;      /* PREPARE futures; handed out once */
    CassErrorResult *error;      /* server errors */
    CassFutureCallback callback;
    void *callback_data;
    void *producer;              /* whoever completes it later keeps its own context here
                                    (session.c: the session whose request it is) */
    uint64_t started_us;         /* session.c: when the request began (latency metrics) */
    int gate;                    /* session.c: the request gate it entered */
    CassNode coordinator;        /* the node that answered (remote; set before the outcome;
                                    address_length 0: none) */
};

CassFuture *cql_drv_future_new(cql_drv_future_kind kind);
/* Completes a future (once): success, or code + message; runs the callback. */
void cql_drv_future_set_result(CassFuture *f, CassResult *r);
void cql_drv_future_set_prepared(CassFuture *f, CassPrepared *p);
void cql_drv_future_set_error(CassFuture *f, CassError code, const char *message,
                              const eng_err *err);
void cql_drv_future_set_done(CassFuture *f);

/*
 * cql_drv_future_new never returns NULL: when memory runs out it returns one
 * shared future, already failed, that the setters leave alone and
 * cass_future_free ignores. A future's refs start at 1 (the caller's); a
 * producer that completes it later (group commit, remote backend) holds its
 * own with cql_drv_future_ref and drops it with cass_future_free. While the
 * callback runs, `ready` is CQL_DRV_FUTURE_SETTING: the outcome is stored,
 * waits from the setting thread return at once (so a callback may read its
 * future), other threads wait until the callback has returned; then `ready`
 * becomes 1.
 */
#define CQL_DRV_FUTURE_SETTING 2
CassFuture *cql_drv_future_ref(CassFuture *f);
/* Fails f with an engine / executor error: cql_drv_error_of(err), Cassandra's message
   (err->msg), and an error result for server codes (keyspace/table of ALREADY_EXISTS). */
void cql_drv_future_fail(CassFuture *f, const eng_err *err);
/* Error results are made with eng_malloc / eng_strdup: the struct, keyspace, table,
   function, arg_types and each arg_types[i] are owned and freed with eng_free. */
CassErrorResult *cql_drv_error_result_copy(const CassErrorResult *e); /* NULL on OOM */
void cql_drv_error_result_destroy(CassErrorResult *e);

/* ---- execution profiles (profile.c; their copies in a cluster: cluster.c) ---- */

/* A profile's load-balancing policy: none of its own (the cluster's), or one of the driver's. */
typedef enum cql_drv_lb {
    CQL_DRV_LB_UNSET,
    CQL_DRV_LB_ROUND_ROBIN,
    CQL_DRV_LB_DC_AWARE,
} cql_drv_lb;

/* A profile's speculative-execution policy: none set (the cluster's), none, or constant. */
typedef enum cql_drv_spec {
    CQL_DRV_SPEC_UNSET,
    CQL_DRV_SPEC_NONE,
    CQL_DRV_SPEC_CONSTANT,
} cql_drv_spec;

/*
 * A value object: the cluster keeps deep copies (cql_drv_profile_copy), so the application's
 * profile and the cluster's never share anything but retry-policy references. Request settings
 * (consistency, serial consistency, request timeout) are "not set" at their sentinel and then
 * come from the cluster; the routing, filtering, retry and speculative settings are validated
 * as the driver validates them and used by the remote backend (one node embedded: nothing to
 * route, filter, retry or speculate on).
 */
struct CassExecProfile_ {
    cass_uint64_t request_timeout_ms;   /* CASS_UINT64_MAX: not set (the cluster's) */
    CassConsistency consistency;        /* CASS_CONSISTENCY_UNKNOWN: not set */
    CassConsistency serial_consistency; /* CASS_CONSISTENCY_UNKNOWN or ANY: not set */
    cql_drv_lb load_balance;
    char *local_dc;                     /* DC_AWARE: owned; else NULL */
    unsigned used_hosts_per_remote_dc;  /* DC_AWARE */
    cass_bool_t allow_remote_dcs_for_local_cl; /* DC_AWARE */
    cass_bool_t token_aware, shuffle_replicas; /* default on, as the driver's */
    cass_bool_t latency_aware;          /* default off */
    cass_double_t exclusion_threshold;  /* latency-aware settings, the driver's defaults */
    cass_uint64_t scale_ms, retry_period_ms, update_rate_ms, min_measured;
    char *whitelist, *blacklist;        /* owned comma-separated hosts, or NULL: no filter */
    char *whitelist_dc, *blacklist_dc;  /* owned comma-separated DCs, or NULL: no filter */
    CassRetryPolicy *retry_policy;      /* reference, or NULL: the cluster's */
    cql_drv_spec speculative;
    cass_int64_t spec_delay_ms;         /* CONSTANT: >= 0 */
    int spec_max;                       /* CONSTANT: >= 0 */
};

/* CassCluster.reconnect: the driver's reconnection policies (reconnection_policy.hpp). */
typedef enum cql_drv_reconnect {
    CQL_DRV_RECONNECT_EXPONENTIAL = 0, /* the default: 2000 ms doubling up to 600000 ms */
    CQL_DRV_RECONNECT_CONSTANT,
} cql_drv_reconnect;

/* One of a cluster's profiles: its name (owned, NUL-terminated, name_len bytes) and a copy. */
typedef struct cql_drv_named_profile {
    char *name;
    size_t name_len;
    CassExecProfile profile;
} cql_drv_named_profile;

/* A profile with nothing set: the driver's defaults (token-aware routing with shuffling on,
   latency-aware routing off with its default settings). (cluster.c) */
void cql_drv_profile_init(CassExecProfile *p);
/* A deep copy of src into dst (uninitialized): strings duplicated, the retry policy referenced.
   0, or -1 on OOM with dst owning nothing. (cluster.c) */
int cql_drv_profile_copy(CassExecProfile *dst, const CassExecProfile *src);
/* Frees what p owns (strings, retry policy reference); p itself stays. (cluster.c) */
void cql_drv_profile_clear(CassExecProfile *p);
/* Copies src's profiles into dst (whose own are not looked at: dst's are set to none first).
   0, or -1 on OOM (dst then has none). (cluster.c) */
int cql_drv_cluster_profiles_copy(CassCluster *dst, const CassCluster *src);
/* Frees the cluster's profiles (cass_cluster_free). (cluster.c) */
void cql_drv_cluster_profiles_free(CassCluster *c);
/* The cluster's profile named name[0..len), or NULL. (profile.c) */
const CassExecProfile *cql_drv_profile_find(const CassCluster *c, const char *name, size_t len);

/* ---- cluster and session (cluster.c, session.c) ---- */

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
    char *username, *password;          /* plain-text credentials (set_credentials), or NULL */
    struct cql_drv_auth_provider *auth; /* reference: set_authenticator_callbacks, or NULL; at
                                           most one of auth and username is set, the last
                                           call's, as the driver keeps one auth provider */
    cass_bool_t token_aware, shuffle_replicas, tcp_nodelay, tcp_keepalive, use_schema;
    unsigned keepalive_delay_s;
    cass_bool_t hostname_resolution, randomized_contact_points;
    char *application_name, *application_version;
    CassUuid client_id;
    cass_bool_t has_client_id;
    CassTimestampGen *timestamp_gen; /* reference, or NULL (server side) */
    CassRetryPolicy *retry_policy;   /* reference, or NULL (default) */
    CassSsl *ssl;                    /* reference, or NULL */
    struct cql_drv_named_profile *profiles; /* owned array of n_profiles (profile.c), or NULL */
    size_t n_profiles;
    /* cluster_settings.c: validated as the driver validates them; the remote backend reads the
       pool size, reconnection policy, prepare_on_all_hosts and the routing profile, the rest is
       recorded only; the embedded backend (one in-process database) reads none of them.
       Defaults: the driver's (constants.hpp). */
    unsigned queue_size_io;               /* > 0 */
    unsigned core_connections;            /* per host, > 0 */
    cql_drv_reconnect reconnect;
    cass_uint64_t reconnect_base_ms;      /* CONSTANT: the delay; EXPONENTIAL: the first one */
    cass_uint64_t reconnect_max_ms;       /* EXPONENTIAL: the longest delay */
    cass_int64_t coalesce_delay_us;       /* >= 0 */
    cass_int32_t new_request_ratio;       /* 1..100 */
    unsigned max_reusable_write_objects;
    unsigned resolve_timeout_ms;
    char *local_address;                  /* owned numeric address to bind, or NULL: any */
    cass_bool_t no_compact, prepare_on_all_hosts, prepare_on_up_or_add_host;
    unsigned histogram_refresh_interval;  /* 0: no refresh */
    unsigned monitor_reporting_interval_s;
    unsigned tracing_max_wait_ms, tracing_retry_wait_ms;
    CassConsistency tracing_consistency;
    /* The driver's default profile: of its fields only load balancing (load_balance, local_dc,
       used_hosts_per_remote_dc, allow_remote_dcs_for_local_cl), latency-aware routing, the four
       filter lists and the speculative policy are used (token-aware routing is token_aware and
       shuffle_replicas above). Owned: copied by cql_drv_profile_copy, freed by _clear. */
    CassExecProfile routing;
    int compression;             /* remote frames: CQL_DRV_COMPRESS_* (a URI's ?compression=,
                                    cassette_cluster_set_compression) */
    CassHostListenerCallback host_listener; /* or NULL; told from the remote backend's monitor */
    void *host_listener_data;
};

/* The protocol's compressions (the values of cql/proto's cql_proto_compression). */
enum { CQL_DRV_COMPRESS_NONE = 0, CQL_DRV_COMPRESS_LZ4 = 1, CQL_DRV_COMPRESS_SNAPPY = 2 };
/* The compression named name[0, len) ("lz4", "snappy", "none", any case), or -1. */
int cql_drv_compression_by_name(const char *name, size_t len);

/* Appends the comma-separated entries of text[0..len) to b, comma-separated: spaces around
   each dropped, empty ones skipped (contact points, host and DC lists). */
void cql_drv_list_append(eng_buf *b, const char *text, size_t len);

/* A deep copy with its own references (sessions keep one); NULL on OOM. Free it with
   cass_cluster_free. */
CassCluster *cql_drv_cluster_copy(const CassCluster *c);

/*
 * session.c allocates each CassSession inside a larger private struct (its state, backend and
 * requests in flight); the other files read only these fields.
 */
struct CassSession_ {
    pthread_mutex_t lock;
    CassUuid client_id;
    CassConsistency consistency;
    CassConsistency serial_consistency;
    CassTimestampGen *timestamp_gen;
};

/* 1 if the contact point p[0..len) names an embedded database ("file:..." or "memory:..."),
   whose backend is backend_local.c's. */
int cql_drv_is_embedded_contact(const char *p, size_t len);

/* ---- timestamp generators (cluster.c) ---- */

struct CassTimestampGen_ {
    _Atomic int refs;
    int server_side;
    _Atomic int64_t last_us;      /* monotonic generator state */
    int64_t warning_threshold_us, warning_interval_ms;
};

/* The next client timestamp, or ENG_TS_NONE for the server-side generator / NULL. */
int64_t cql_drv_timestamp_next(CassTimestampGen *g);
CassTimestampGen *cql_drv_timestamp_gen_ref(CassTimestampGen *g);

struct CassRetryPolicy_ {
    _Atomic int refs;
    int kind;                    /* default, downgrading, fallthrough, logging */
    CassRetryPolicy *child;      /* logging: the wrapped policy */
};

CassRetryPolicy *cql_drv_retry_policy_ref(CassRetryPolicy *p);
/* CassRetryPolicy.kind */
enum cql_drv_retry_kind {
    CQL_DRV_RETRY_DEFAULT = 0,
    CQL_DRV_RETRY_DOWNGRADING = 1,
    CQL_DRV_RETRY_FALLTHROUGH = 2,
    CQL_DRV_RETRY_LOGGING = 3,
};

struct CassSsl_ {
    _Atomic int refs;
    int verify_flags;
    CassSslTlsVersion min_version;
    eng_buf trusted, cert, key;  /* PEM texts, kept for the remote backend */
    eng_buf key_password;        /* the private key's password (NUL-terminated, maybe empty) */
};

CassSsl *cql_drv_ssl_ref(CassSsl *ssl);

struct CassUuidGen_ {
    eng_uuidgen gen;
};

/* ---- metrics (metrics.c) ---- */

/* A latency histogram (µs), log-linear: each power of two cut in 16 buckets. */
#define CQL_DRV_HIST_BUCKETS (64 * 16)
void cql_drv_hist_add(uint64_t *hist, uint64_t us);
/* The driver's figures of a histogram (0 for all when it is empty). */
void cql_drv_hist_read(const uint64_t *hist, cass_uint64_t *min, cass_uint64_t *max,
                       cass_uint64_t *mean, cass_uint64_t *stddev, cass_uint64_t *median,
                       cass_uint64_t *p75, cass_uint64_t *p95, cass_uint64_t *p98,
                       cass_uint64_t *p99, cass_uint64_t *p999);
uint64_t cql_drv_now_us(void); /* monotonic */

/* A thread shard's part of a meter (eng_thread_shard): counted without a lock another
   thread takes. */
typedef struct cql_drv_meter_shard {
    pthread_mutex_t lock;
    uint64_t count, uncounted;  /* all; since the last 5 s tick */
    uint64_t hist[CQL_DRV_HIST_BUCKETS];
    char pad[ENG_CACHE_LINE];   /* the next shard's lock on another line */
} cql_drv_meter_shard;

/* A session's requests: their latencies and rates. Thread-safe. */
typedef struct cql_drv_meter {
    pthread_mutex_t lock;        /* the rates */
    _Atomic uint64_t last_tick_us;
    uint64_t start_us;
    double m1, m5, m15;          /* requests per second, exponentially weighted */
    int rates_init;
    cql_drv_meter_shard shards[ENG_SHARDS];
} cql_drv_meter;
void cql_drv_meter_init(cql_drv_meter *m);
void cql_drv_meter_destroy(cql_drv_meter *m);
void cql_drv_meter_record(cql_drv_meter *m, uint64_t latency_us);
/* Fills out->requests. */
void cql_drv_meter_read(cql_drv_meter *m, CassMetrics *out);
uint64_t cql_drv_meter_count(cql_drv_meter *m);

/* ---- logging (error.c) ---- */

/* Emits a log message through the application's callback when level passes. */
void cql_drv_log(CassLogLevel level, const char *file, int line, const char *function,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- UUIDs (uuid.c) ---- */

/*
 * The driver's CassUuid from the 16 bytes of a uuid / timeuuid value (RFC
 * 4122 order) and back (uuid.c). time_and_version holds bytes 0-3 in
 * bits 0-31, bytes 4-5 in bits 32-47 and bytes 6-7 in bits 48-63 (each group
 * big-endian), so a v1 UUID's low 60 bits are its tick count;
 * clock_seq_and_node is bytes 8-15 big-endian (the driver's encode_uuid).
 */
void cql_drv_uuid_from_bytes(const uint8_t in[16], CassUuid *out);
void cql_drv_uuid_to_bytes(CassUuid u, uint8_t out[16]);

/* ---- schema metadata from system table rows (schema.c, type_parser.c) ----
 *
 * The driver learns the schema only from rows of system tables, so that the
 * same builder serves every backend: each input is the ROWS result of the
 * query named beside it (columns found by name), fetched by the session
 * through its backend (backend.h: schema_rows).
 */
enum cql_drv_schema_table {
    CQL_DRV_SCHEMA_KEYSPACES,  /* SELECT * FROM system_schema.keyspaces */
    CQL_DRV_SCHEMA_TABLES,     /* SELECT * FROM system_schema.tables */
    CQL_DRV_SCHEMA_COLUMNS,    /* SELECT * FROM system_schema.columns */
    CQL_DRV_SCHEMA_TYPES,      /* SELECT * FROM system_schema.types */
    CQL_DRV_SCHEMA_INDEXES,    /* SELECT * FROM system_schema.indexes */
    CQL_DRV_SCHEMA_FUNCTIONS,  /* SELECT * FROM system_schema.functions */
    CQL_DRV_SCHEMA_AGGREGATES, /* SELECT * FROM system_schema.aggregates */
    CQL_DRV_SCHEMA_VIEWS,      /* SELECT * FROM system_schema.views */
    CQL_DRV_SCHEMA_LOCAL,      /* SELECT * FROM system.local; stays last (the session reads it
                                  first and last, the others in between) */
    CQL_DRV_SCHEMA_N
};

/*
 * schema.c: the query text of input `table` (the one named beside it above), static; NULL when
 * table is not one of them. Every backend fetches the inputs with these texts.
 */
const char *cql_drv_schema_query(int table);

/*
 * schema.c: a snapshot built from those rows (any entry may be NULL, or a result of another
 * kind: no rows), with snapshot_version as given. Every object keeps its row's columns as its
 * metadata fields; column data types are parsed from system_schema.columns.type, user types
 * from system_schema.types, function and aggregate signatures from their type texts. A type
 * text that does not parse is logged at CASS_LOG_ERROR and leaves that data type NULL (the
 * driver's behaviour); so is a view whose base table is unknown, and left out. Returns NULL
 * when memory runs out, or when a row cannot be read (a key column missing, null or not text;
 * a list or map that does not decode), then also logged at CASS_LOG_ERROR.
 * Ownership: the snapshot copies what it keeps; the results may be freed once it returns.
 * Free the snapshot with cass_schema_meta_free.
 */
CassSchemaMeta *cql_drv_schema_meta_from_rows(const cql_result *const rows[CQL_DRV_SCHEMA_N],
                                              cass_uint32_t snapshot_version);

/*
 * type_parser.c: the user type named `name` (quotes already removed) in the keyspace being
 * parsed: 0 with *out the definition (borrowed, not frozen) or NULL when there is none; or an
 * error code (ENG_E_NOMEM) with err set.
 */
typedef int (*cql_drv_udt_lookup)(void *ctx, const char *name, const CassDataType **out,
                                  eng_err *err);
/*
 * type_parser.c: the data type written as text[0, len) in system_schema (the driver's
 * DataTypeCqlNameParser rules; see the file for where they differ), user type names resolved
 * in `keyspace` through lookup (NULL: none defined). Returns 0 and *out, a new reference;
 * ENG_E_INVALID with a message in err when the text is not a type; ENG_E_NOMEM; or lookup's
 * error. *out is NULL on failure.
 */
int cql_drv_type_parse(const char *text, size_t len, const char *keyspace,
                       cql_drv_udt_lookup lookup, void *ctx, CassDataType **out, eng_err *err);

/* ---- authentication (authenticator.c) ----
 *
 * What the remote connection runs when a node answers STARTUP with AUTHENTICATE: one exchange
 * per connection, driven by the cluster's authenticator, the driver's way (connector.cpp). The
 * cluster holds at most one: the callbacks of cass_cluster_set_authenticator_callbacks, or the
 * plain-text credentials of cass_cluster_set_credentials (SASL PLAIN: NUL, user, NUL, password),
 * whichever was set last. The embedded backend authenticates nothing and reads neither.
 *
 * The connection calls, on its own thread:
 *   cql_drv_auth_begin      on AUTHENTICATE (class_name: the frame's authenticator class)
 *   cql_drv_auth_initial    then sends AUTH_RESPONSE with the token it gave
 *   cql_drv_auth_challenge  on each AUTH_CHALLENGE, then sends AUTH_RESPONSE again
 *   cql_drv_auth_success    on AUTH_SUCCESS; 0 means the connection is ready
 *   cql_drv_auth_end        once, whatever happened (also after a failed step, an ERROR frame,
 *                           a timeout or a closed socket): runs the cleanup callback, frees
 * A step that fails leaves err at ENG_E_BAD_CREDENTIALS (CASS_ERROR_SERVER_BAD_CREDENTIALS once
 * through cql_drv_error_of) with the driver's message, or ENG_E_NOMEM; the connection then gives
 * up on the handshake (and still calls cql_drv_auth_end).
 *
 * Threads: a provider is immutable and reference counted (atomically); an exchange belongs to
 * the one thread that began it. Callbacks run on that thread, so the data given with them is
 * shared by every connection authenticating at once and must be safe for that.
 */

/* The callbacks and data of cass_cluster_set_authenticator_callbacks; data_cleanup runs when the
   last reference goes: the cluster's, its copies' (sessions), and those of exchanges running. */
typedef struct cql_drv_auth_provider cql_drv_auth_provider;
cql_drv_auth_provider *cql_drv_auth_provider_ref(cql_drv_auth_provider *p); /* NULL: NULL */
void cql_drv_auth_provider_unref(cql_drv_auth_provider *p);                 /* NULL: no-op */

/* One exchange: the CassAuthenticator the application's callbacks are handed. */
typedef struct CassAuthenticator_ cql_drv_auth;

/*
 * Begins an exchange with the node at addr (its IP address; NULL: length 0) named hostname (NULL:
 * ""), which asked for class_name (NULL: ""). Returns 0 and *out; ENG_E_BAD_CREDENTIALS when the
 * cluster has no authenticator (the driver's "Authentication required but no auth provider
 * set"); ENG_E_NOMEM. *out is NULL on failure.
 * Ownership: the strings are copied and the exchange holds its own reference to the provider, so
 * c may be freed while it runs; free it with cql_drv_auth_end.
 */
int cql_drv_auth_begin(const CassCluster *c, const CassInet *addr, const char *hostname,
                       const char *class_name, cql_drv_auth **out, eng_err *err);
/* The initial callback: 0 with response reset to the token for the first AUTH_RESPONSE (empty
   when there is no initial callback), or the error it set (ENG_E_BAD_CREDENTIALS) / ENG_E_NOMEM. */
int cql_drv_auth_initial(cql_drv_auth *a, eng_buf *response, eng_err *err);
/* The challenge callback on the server's token (len < 0: a null token, handed over as empty): 0
   with response reset to the next AUTH_RESPONSE's token, or an error as above. */
int cql_drv_auth_challenge(cql_drv_auth *a, const uint8_t *token, int32_t len, eng_buf *response,
                           eng_err *err);
/* The success callback on AUTH_SUCCESS's token (len < 0: null): 0, or the error it set. */
int cql_drv_auth_success(cql_drv_auth *a, const uint8_t *token, int32_t len, eng_err *err);
/* Runs the cleanup callback (once, whether or not a step ran or failed) and frees a; NULL:
   no-op. May run the data cleanup too, when a held the provider's last reference. */
void cql_drv_auth_end(cql_drv_auth *a);

#endif
