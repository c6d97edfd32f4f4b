/*
 * cassandra.h: the public interface of the DataStax (now Apache) C/C++ driver for Apache
 * Cassandra, version 2.17, as cassette implements it in-process.
 *
 * The declarations (type names, enum names and values, macros, function signatures) are the
 * driver's, so an application compiles unchanged against this header or the real driver's. Every
 * comment is cassette's own and says what the function does here. Only the functions of the
 * subset listed in docs/api.md are declared; the rest of the driver's API follows later.
 *
 * Where statements run:
 *  - A contact point "file:DIR" (a database directory, created when missing) or "memory:" (a
 *    database held in memory, never written to disk) selects the embedded engine. When the
 *    environment variable CASSETTE_URI is set, its value replaces the contact points at connect
 *    time, so one test suite runs embedded or against a cluster without a code change.
 *  - Embedded, a statement runs in the thread that executes it: a read's future is already set
 *    when cass_session_execute() returns. A durable write's future may be set a little later,
 *    when the group commit that carries it reaches the disk. Applications that wait on their
 *    futures, as the driver requires, see no difference.
 *  - Any other contact point (a host name or address) belongs to the remote backend, which
 *    speaks the native protocol to a cluster. Until it exists, connecting to one fails with
 *    CASS_ERROR_LIB_NO_HOSTS_AVAILABLE.
 *  - Options that only concern networking (pools, timeouts, load balancing, TLS) are validated
 *    as the driver validates them and kept for the remote backend. Consistency levels are stored;
 *    one node meets every level.
 *  - Failures carry the CassError code the driver returns for the same mistake, with Cassandra's
 *    own message text from cass_future_error_message().
 *
 * Ownership, everywhere: an object returned by a *_new function, a future, a result, a prepared
 * statement, an error result or a schema snapshot belongs to the caller, who frees it with the
 * matching *_free function; freeing NULL does nothing. Objects read out of another object (rows,
 * values, data types, metadata, strings returned through const char ** with a length) are
 * borrowed: they live as long as the object they came from and are never freed by the caller.
 * Strings and bytes passed in are copied unless a comment says otherwise.
 *
 * Threads, everywhere: a session may be used from any number of threads at once. Prepared
 * statements, results, schema snapshots and UUID generators are read-only or internally locked
 * and may be shared. Futures may be waited on from several threads. Everything else (cluster,
 * statement, batch, collection, tuple, user type value, data type under construction, iterator)
 * is used by one thread at a time. Never free a session or wait on a future inside a future
 * callback.
 *
 * Installed as $PREFIX/include/cassette/cassandra.h; `pkg-config --cflags cassette` adds that
 * folder, so a real driver's cassandra.h is never overwritten. The include guard is the
 * driver's: whichever of the two headers comes first, the other is skipped.
 */
#ifndef __CASSANDRA_H_INCLUDED__
#define __CASSANDRA_H_INCLUDED__

#include <stddef.h>
#include <stdint.h>

/* cassette builds with -fvisibility=hidden; the API is what it exports. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define CASS_EXPORT __attribute__((visibility("default")))
#else
#define CASS_EXPORT
#endif

/* Marks a declaration the driver deprecates; using it draws the compiler's warning. */
#if defined(_MSC_VER)
#define CASS_DEPRECATED(func) __declspec(deprecated) func
#elif defined(__GNUC__)
#define CASS_DEPRECATED(func) func __attribute__((deprecated))
#else
#define CASS_DEPRECATED(func) func
#endif

/* The driver release whose interface this header matches (cassette's own version is in
 * cassette.h). */
#define CASS_VERSION_MAJOR 2
#define CASS_VERSION_MINOR 17
#define CASS_VERSION_PATCH 1
#define CASS_VERSION_SUFFIX ""

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== *
 * Basic types
 * ============================================================================================== */

typedef enum { cass_false = 0, cass_true = 1 } cass_bool_t;

typedef float cass_float_t;
typedef double cass_double_t;

typedef int8_t cass_int8_t;
typedef uint8_t cass_uint8_t;

typedef int16_t cass_int16_t;
typedef uint16_t cass_uint16_t;

typedef int32_t cass_int32_t;
typedef uint32_t cass_uint32_t;

typedef int64_t cass_int64_t;
typedef uint64_t cass_uint64_t;

/* Largest cass_uint64_t; as a request timeout it means "use the cluster's setting". */
#define CASS_UINT64_MAX 18446744073709551615ULL

typedef cass_uint8_t cass_byte_t;
/* A duration in microseconds (cass_future_wait_timed()). */
typedef cass_uint64_t cass_duration_t;

#define CASS_INET_V4_LENGTH 4      /* bytes in an IPv4 address */
#define CASS_INET_V6_LENGTH 16     /* bytes in an IPv6 address */
#define CASS_INET_STRING_LENGTH 46 /* buffer size for cass_inet_string(), NUL included */

/* An IPv4 or IPv6 address, the value of a CQL "inet". */
typedef struct CassInet_ {
    cass_uint8_t address[CASS_INET_V6_LENGTH]; /* network byte order; first 4 bytes for IPv4 */
    cass_uint8_t address_length;               /* 4 (IPv4) or 16 (IPv6) */
} CassInet;

#define CASS_UUID_STRING_LENGTH 37 /* buffer size for cass_uuid_string(), NUL included */

/* A UUID, the value of a CQL "uuid" or "timeuuid", held as two 64-bit numbers. */
typedef struct CassUuid_ {
    /* The version in the top 4 bits. Below it, for version 1, the 60-bit UUID time (100 ns
     * units since 1582-10-15) as a number: time_low in the low 32 bits, then time_mid, then
     * time_hi; this is not the byte order of the UUID's text form. Random for version 4. */
    cass_uint64_t time_and_version;
    /* Bytes 8-15 of the UUID, big-endian: variant and 14-bit clock sequence in the top 16
     * bits, the 48-bit node below them. */
    cass_uint64_t clock_seq_and_node;
} CassUuid;

/* ============================================================================================== *
 * Objects
 * ============================================================================================== */

/* Connection settings from which sessions are connected; a session copies it at connect. */
typedef struct CassCluster_ CassCluster;

/* A connection to one database (embedded) or cluster (remote). Safe to use from many threads. */
typedef struct CassSession_ CassSession;

/* One CQL statement with its bound values and options; simple or bound from a prepared one. */
typedef struct CassStatement_ CassStatement;

/* Statements executed together as one BATCH. */
typedef struct CassBatch_ CassBatch;

/* The outcome of an asynchronous operation: a result, a prepared statement or an error. */
typedef struct CassFuture_ CassFuture;

/* A statement parsed once and executed many times. Read-only; bind from any number of threads. */
typedef struct CassPrepared_ CassPrepared;

/* The rows of one page of a query's result. Read-only; read from any number of threads. */
typedef struct CassResult_ CassResult;

/* The server-side details of a failed request (consistency, keyspace, table...). */
typedef struct CassErrorResult_ CassErrorResult;

/* A node of the cluster, as cass_future_coordinator() names it; opaque, and borrowed from the
 * future it came from. No host answers an embedded request, so there it is always NULL. */
typedef struct CassNode_ CassNode;

/* A cursor over rows, columns, collection items, fields or metadata entries. */
typedef struct CassIterator_ CassIterator;

/* One row of a result. */
typedef struct CassRow_ CassRow;

/* One value in a row, collection, tuple, user type or metadata field. */
typedef struct CassValue_ CassValue;

/* The description of a CQL type, including the sub-types of collections, tuples and UDTs. */
typedef struct CassDataType_ CassDataType;

/* Metadata of a user-defined function. */
typedef struct CassFunctionMeta_ CassFunctionMeta;

/* Metadata of a user-defined aggregate. */
typedef struct CassAggregateMeta_ CassAggregateMeta;

/* A list, set or map value being built to bind. */
typedef struct CassCollection_ CassCollection;

/* A tuple value being built to bind. */
typedef struct CassTuple_ CassTuple;

/* A user-defined type value being built to bind. */
typedef struct CassUserType_ CassUserType;

/* TLS settings for the remote backend. */
typedef struct CassSsl_ CassSsl;

/* A Cassandra release number. */
typedef struct CassVersion_ {
    int major_version;
    int minor_version;
    int patch_version;
} CassVersion;

/* An immutable snapshot of the schema. Read-only; share it between threads. */
typedef struct CassSchemaMeta_ CassSchemaMeta;

/* Metadata of one keyspace within a schema snapshot. */
typedef struct CassKeyspaceMeta_ CassKeyspaceMeta;

/* Metadata of one table within a schema snapshot. */
typedef struct CassTableMeta_ CassTableMeta;

/* Metadata of one materialized view within a schema snapshot. */
typedef struct CassMaterializedViewMeta_ CassMaterializedViewMeta;

/* Metadata of one column within a schema snapshot. */
typedef struct CassColumnMeta_ CassColumnMeta;

/* Metadata of one secondary index within a schema snapshot. */
typedef struct CassIndexMeta_ CassIndexMeta;

/* A generator of version 1 and version 4 UUIDs. Internally locked; share it between threads. */
typedef struct CassUuidGen_ CassUuidGen;

/* A source of client-side write timestamps (microseconds since the Unix epoch). */
typedef struct CassTimestampGen_ CassTimestampGen;

/* What to do when a request times out or too few replicas are alive (remote backend). */
typedef struct CassRetryPolicy_ CassRetryPolicy;

/* Name/bytes pairs a statement or batch sends with its request (protocol v4 and later), for a
 * server-side query handler; one thread at a time. */
typedef struct CassCustomPayload_ CassCustomPayload;

/* Request and connection statistics of a session; used by later parts of the API. */
typedef struct CassMetrics_ {
    struct {
        cass_uint64_t min;                 /* latency, microseconds */
        cass_uint64_t max;                 /* microseconds */
        cass_uint64_t mean;                /* microseconds */
        cass_uint64_t stddev;              /* microseconds */
        cass_uint64_t median;              /* microseconds */
        cass_uint64_t percentile_75th;     /* microseconds */
        cass_uint64_t percentile_95th;     /* microseconds */
        cass_uint64_t percentile_98th;     /* microseconds */
        cass_uint64_t percentile_99th;     /* microseconds */
        cass_uint64_t percentile_999th;    /* microseconds */
        cass_double_t mean_rate;           /* requests per second since the start */
        cass_double_t one_minute_rate;     /* requests per second */
        cass_double_t five_minute_rate;    /* requests per second */
        cass_double_t fifteen_minute_rate; /* requests per second */
    } requests;

    struct {
        cass_uint64_t total_connections;                    /* open connections */
        cass_uint64_t available_connections;                /* kept for layout; unused */
        cass_uint64_t exceeded_pending_requests_water_mark; /* kept for layout; unused */
        cass_uint64_t exceeded_write_bytes_water_mark;      /* kept for layout; unused */
    } stats;

    struct {
        cass_uint64_t connection_timeouts;      /* connections that timed out */
        cass_uint64_t pending_request_timeouts; /* kept for layout; unused */
        cass_uint64_t request_timeouts;         /* requests that timed out */
    } errors;
} CassMetrics;

/* Statistics of aborted speculative executions; used by later parts of the API. */
typedef struct CassSpeculativeExecutionMetrics_ {
    cass_uint64_t min;              /* microseconds */
    cass_uint64_t max;              /* microseconds */
    cass_uint64_t mean;             /* microseconds */
    cass_uint64_t stddev;           /* microseconds */
    cass_uint64_t median;           /* microseconds */
    cass_uint64_t percentile_75th;  /* microseconds */
    cass_uint64_t percentile_95th;  /* microseconds */
    cass_uint64_t percentile_98th;  /* microseconds */
    cass_uint64_t percentile_99th;  /* microseconds */
    cass_uint64_t percentile_999th; /* microseconds */
    cass_uint64_t count;            /* aborted speculative executions */
    cass_double_t percentage;       /* their share of all requests */
} CassSpeculativeExecutionMetrics;

/* ============================================================================================== *
 * Enumerations
 * ============================================================================================== */

/* Consistency levels, with the native protocol's values. */
typedef enum CassConsistency_ {
    CASS_CONSISTENCY_UNKNOWN = 0xFFFF,
    CASS_CONSISTENCY_ANY = 0x0000,
    CASS_CONSISTENCY_ONE = 0x0001,
    CASS_CONSISTENCY_TWO = 0x0002,
    CASS_CONSISTENCY_THREE = 0x0003,
    CASS_CONSISTENCY_QUORUM = 0x0004,
    CASS_CONSISTENCY_ALL = 0x0005,
    CASS_CONSISTENCY_LOCAL_QUORUM = 0x0006,
    CASS_CONSISTENCY_EACH_QUORUM = 0x0007,
    CASS_CONSISTENCY_SERIAL = 0x0008,
    CASS_CONSISTENCY_LOCAL_SERIAL = 0x0009,
    CASS_CONSISTENCY_LOCAL_ONE = 0x000A
} CassConsistency;

/* XX(level, name) for every consistency level, in the order above. */
#define CASS_CONSISTENCY_MAPPING(XX)                                                               \
    XX(CASS_CONSISTENCY_UNKNOWN, "UNKNOWN")                                                        \
    XX(CASS_CONSISTENCY_ANY, "ANY")                                                                \
    XX(CASS_CONSISTENCY_ONE, "ONE")                                                                \
    XX(CASS_CONSISTENCY_TWO, "TWO")                                                                \
    XX(CASS_CONSISTENCY_THREE, "THREE")                                                            \
    XX(CASS_CONSISTENCY_QUORUM, "QUORUM")                                                          \
    XX(CASS_CONSISTENCY_ALL, "ALL")                                                                \
    XX(CASS_CONSISTENCY_LOCAL_QUORUM, "LOCAL_QUORUM")                                              \
    XX(CASS_CONSISTENCY_EACH_QUORUM, "EACH_QUORUM")                                                \
    XX(CASS_CONSISTENCY_SERIAL, "SERIAL")                                                          \
    XX(CASS_CONSISTENCY_LOCAL_SERIAL, "LOCAL_SERIAL")                                              \
    XX(CASS_CONSISTENCY_LOCAL_ONE, "LOCAL_ONE")

/* Older name of CASS_CONSISTENCY_MAPPING, kept as the driver keeps it. */
#define CASS_CONSISTENCY_MAP CASS_CONSISTENCY_MAPPING

/* The kind of write a write timeout or failure was about. */
typedef enum CassWriteType_ {
    CASS_WRITE_TYPE_UNKNOWN,
    CASS_WRITE_TYPE_SIMPLE,
    CASS_WRITE_TYPE_BATCH,
    CASS_WRITE_TYPE_UNLOGGED_BATCH,
    CASS_WRITE_TYPE_COUNTER,
    CASS_WRITE_TYPE_BATCH_LOG,
    CASS_WRITE_TYPE_CAS,
    CASS_WRITE_TYPE_VIEW,
    CASS_WRITE_TYPE_CDC
} CassWriteType;

/* XX(write_type, name) for every known write type. */
#define CASS_WRITE_TYPE_MAPPING(XX)                                                                \
    XX(CASS_WRITE_TYPE_SIMPLE, "SIMPLE")                                                           \
    XX(CASS_WRITE_TYPE_BATCH, "BATCH")                                                             \
    XX(CASS_WRITE_TYPE_UNLOGGED_BATCH, "UNLOGGED_BATCH")                                           \
    XX(CASS_WRITE_TYPE_COUNTER, "COUNTER")                                                         \
    XX(CASS_WRITE_TYPE_BATCH_LOG, "BATCH_LOG")                                                     \
    XX(CASS_WRITE_TYPE_CAS, "CAS")                                                                 \
    XX(CASS_WRITE_TYPE_VIEW, "VIEW")                                                               \
    XX(CASS_WRITE_TYPE_CDC, "CDC")

/* Older name of CASS_WRITE_TYPE_MAPPING. */
#define CASS_WRITE_TYPE_MAP CASS_WRITE_TYPE_MAPPING

/* The role of a column in its table. */
typedef enum CassColumnType_ {
    CASS_COLUMN_TYPE_REGULAR,
    CASS_COLUMN_TYPE_PARTITION_KEY,
    CASS_COLUMN_TYPE_CLUSTERING_KEY,
    CASS_COLUMN_TYPE_STATIC,
    CASS_COLUMN_TYPE_COMPACT_VALUE
} CassColumnType;

/* The kind of a secondary index. */
typedef enum CassIndexType_ {
    CASS_INDEX_TYPE_UNKNOWN,
    CASS_INDEX_TYPE_KEYS,
    CASS_INDEX_TYPE_CUSTOM,
    CASS_INDEX_TYPE_COMPOSITES
} CassIndexType;

/* XX(value_type, protocol id, CQL name, Cassandra marshal class) for every CQL type. */
#define CASS_VALUE_TYPE_MAPPING(XX)                                                                \
    XX(CASS_VALUE_TYPE_CUSTOM, 0x0000, "", "")                                                     \
    XX(CASS_VALUE_TYPE_ASCII, 0x0001, "ascii", "org.apache.cassandra.db.marshal.AsciiType")        \
    XX(CASS_VALUE_TYPE_BIGINT, 0x0002, "bigint", "org.apache.cassandra.db.marshal.LongType")       \
    XX(CASS_VALUE_TYPE_BLOB, 0x0003, "blob", "org.apache.cassandra.db.marshal.BytesType")          \
    XX(CASS_VALUE_TYPE_BOOLEAN, 0x0004, "boolean", "org.apache.cassandra.db.marshal.BooleanType")  \
    XX(CASS_VALUE_TYPE_COUNTER, 0x0005, "counter",                                                 \
       "org.apache.cassandra.db.marshal.CounterColumnType")                                        \
    XX(CASS_VALUE_TYPE_DECIMAL, 0x0006, "decimal", "org.apache.cassandra.db.marshal.DecimalType")  \
    XX(CASS_VALUE_TYPE_DOUBLE, 0x0007, "double", "org.apache.cassandra.db.marshal.DoubleType")     \
    XX(CASS_VALUE_TYPE_FLOAT, 0x0008, "float", "org.apache.cassandra.db.marshal.FloatType")        \
    XX(CASS_VALUE_TYPE_INT, 0x0009, "int", "org.apache.cassandra.db.marshal.Int32Type")            \
    XX(CASS_VALUE_TYPE_TEXT, 0x000A, "text", "org.apache.cassandra.db.marshal.UTF8Type")           \
    XX(CASS_VALUE_TYPE_TIMESTAMP, 0x000B, "timestamp",                                             \
       "org.apache.cassandra.db.marshal.TimestampType")                                            \
    XX(CASS_VALUE_TYPE_UUID, 0x000C, "uuid", "org.apache.cassandra.db.marshal.UUIDType")           \
    XX(CASS_VALUE_TYPE_VARCHAR, 0x000D, "varchar", "")                                             \
    XX(CASS_VALUE_TYPE_VARINT, 0x000E, "varint", "org.apache.cassandra.db.marshal.IntegerType")    \
    XX(CASS_VALUE_TYPE_TIMEUUID, 0x000F, "timeuuid",                                               \
       "org.apache.cassandra.db.marshal.TimeUUIDType")                                             \
    XX(CASS_VALUE_TYPE_INET, 0x0010, "inet", "org.apache.cassandra.db.marshal.InetAddressType")    \
    XX(CASS_VALUE_TYPE_DATE, 0x0011, "date", "org.apache.cassandra.db.marshal.SimpleDateType")     \
    XX(CASS_VALUE_TYPE_TIME, 0x0012, "time", "org.apache.cassandra.db.marshal.TimeType")           \
    XX(CASS_VALUE_TYPE_SMALL_INT, 0x0013, "smallint", "org.apache.cassandra.db.marshal.ShortType") \
    XX(CASS_VALUE_TYPE_TINY_INT, 0x0014, "tinyint", "org.apache.cassandra.db.marshal.ByteType")    \
    XX(CASS_VALUE_TYPE_DURATION, 0x0015, "duration",                                               \
       "org.apache.cassandra.db.marshal.DurationType")                                             \
    XX(CASS_VALUE_TYPE_LIST, 0x0020, "list", "org.apache.cassandra.db.marshal.ListType")           \
    XX(CASS_VALUE_TYPE_MAP, 0x0021, "map", "org.apache.cassandra.db.marshal.MapType")              \
    XX(CASS_VALUE_TYPE_SET, 0x0022, "set", "org.apache.cassandra.db.marshal.SetType")              \
    XX(CASS_VALUE_TYPE_UDT, 0x0030, "", "")                                                        \
    XX(CASS_VALUE_TYPE_TUPLE, 0x0031, "tuple", "org.apache.cassandra.db.marshal.TupleType")

/* CQL types, with the native protocol's type ids. */
/* clang-format off */
typedef enum CassValueType_ {
    CASS_VALUE_TYPE_UNKNOWN = 0xFFFF,
#define XX_VALUE_TYPE(name, type, cql, klass) name = type,
    CASS_VALUE_TYPE_MAPPING(XX_VALUE_TYPE)
#undef XX_VALUE_TYPE
    CASS_VALUE_TYPE_LAST_ENTRY /* not a type: one past the last id */
} CassValueType;
/* clang-format on */

/* The order of a clustering column. */
typedef enum CassClusteringOrder_ {
    CASS_CLUSTERING_ORDER_NONE,
    CASS_CLUSTERING_ORDER_ASC,
    CASS_CLUSTERING_ORDER_DESC
} CassClusteringOrder;

/* The kinds of collection cass_collection_new() builds. */
typedef enum CassCollectionType_ {
    CASS_COLLECTION_TYPE_LIST = CASS_VALUE_TYPE_LIST,
    CASS_COLLECTION_TYPE_MAP = CASS_VALUE_TYPE_MAP,
    CASS_COLLECTION_TYPE_SET = CASS_VALUE_TYPE_SET
} CassCollectionType;

/* BEGIN BATCH, BEGIN UNLOGGED BATCH and BEGIN COUNTER BATCH, with the protocol's values. */
typedef enum CassBatchType_ {
    CASS_BATCH_TYPE_LOGGED = 0x00,
    CASS_BATCH_TYPE_UNLOGGED = 0x01,
    CASS_BATCH_TYPE_COUNTER = 0x02
} CassBatchType;

/* What an iterator walks over (cass_iterator_type()). */
typedef enum CassIteratorType_ {
    CASS_ITERATOR_TYPE_RESULT,
    CASS_ITERATOR_TYPE_ROW,
    CASS_ITERATOR_TYPE_COLLECTION,
    CASS_ITERATOR_TYPE_MAP,
    CASS_ITERATOR_TYPE_TUPLE,
    CASS_ITERATOR_TYPE_USER_TYPE_FIELD,
    CASS_ITERATOR_TYPE_META_FIELD,
    CASS_ITERATOR_TYPE_KEYSPACE_META,
    CASS_ITERATOR_TYPE_TABLE_META,
    CASS_ITERATOR_TYPE_TYPE_META,
    CASS_ITERATOR_TYPE_FUNCTION_META,
    CASS_ITERATOR_TYPE_AGGREGATE_META,
    CASS_ITERATOR_TYPE_COLUMN_META,
    CASS_ITERATOR_TYPE_INDEX_META,
    CASS_ITERATOR_TYPE_MATERIALIZED_VIEW_META
} CassIteratorType;

/* XX(level, name) for every log level, least verbose first. */
#define CASS_LOG_LEVEL_MAPPING(XX)                                                                 \
    XX(CASS_LOG_DISABLED, "")                                                                      \
    XX(CASS_LOG_CRITICAL, "CRITICAL")                                                              \
    XX(CASS_LOG_ERROR, "ERROR")                                                                    \
    XX(CASS_LOG_WARN, "WARN")                                                                      \
    XX(CASS_LOG_INFO, "INFO")                                                                      \
    XX(CASS_LOG_DEBUG, "DEBUG")                                                                    \
    XX(CASS_LOG_TRACE, "TRACE")

/* Older name of CASS_LOG_LEVEL_MAPPING. */
#define CASS_LOG_LEVEL_MAP CASS_LOG_LEVEL_MAPPING

/* Log severities; a message is delivered when its level is at most the level set. */
/* clang-format off */
typedef enum CassLogLevel_ {
#define XX_LOG(log_level, _) log_level,
    CASS_LOG_LEVEL_MAPPING(XX_LOG)
#undef XX_LOG
    CASS_LOG_LAST_ENTRY /* not a level: one past the last */
} CassLogLevel;
/* clang-format on */

/* Checks made on the server's certificate (flags, combined with |). */
typedef enum CassSslVerifyFlags_ {
    CASS_SSL_VERIFY_NONE = 0x00,
    CASS_SSL_VERIFY_PEER_CERT = 0x01,
    CASS_SSL_VERIFY_PEER_IDENTITY = 0x02,
    CASS_SSL_VERIFY_PEER_IDENTITY_DNS = 0x04
} CassSslVerifyFlags;

/* TLS protocol versions. */
typedef enum CassSslTlsVersion_ {
    CASS_SSL_VERSION_TLS1 = 0x00,
    CASS_SSL_VERSION_TLS1_1 = 0x01,
    CASS_SSL_VERSION_TLS1_2 = 0x02
} CassSslTlsVersion;

/* Native protocol versions (V1 and V2 are deprecated; DSE versions only for DataStax
 * Enterprise). */
typedef enum CassProtocolVersion_ {
    CASS_PROTOCOL_VERSION_V1 = 0x01,
    CASS_PROTOCOL_VERSION_V2 = 0x02,
    CASS_PROTOCOL_VERSION_V3 = 0x03,
    CASS_PROTOCOL_VERSION_V4 = 0x04,
    CASS_PROTOCOL_VERSION_V5 = 0x05,
    CASS_PROTOCOL_VERSION_DSEV1 = 0x41,
    CASS_PROTOCOL_VERSION_DSEV2 = 0x42
} CassProtocolVersion;

/* Where an error comes from: the top byte of a CassError. */
typedef enum CassErrorSource_ {
    CASS_ERROR_SOURCE_NONE,
    CASS_ERROR_SOURCE_LIB,
    CASS_ERROR_SOURCE_SERVER,
    CASS_ERROR_SOURCE_SSL,
    CASS_ERROR_SOURCE_COMPRESSION
} CassErrorSource;

/*
 * XX(source, error, code, description) for every error. Server codes are the native protocol's
 * error codes, so a CQL failure reads the same embedded and remote.
 */
#define CASS_ERROR_MAPPING(XX)                                                                     \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_BAD_PARAMS, 1, "Bad parameters")                      \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NO_STREAMS, 2, "No streams available")                \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_UNABLE_TO_INIT, 3, "Unable to initialize")            \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_MESSAGE_ENCODE, 4, "Unable to encode message")        \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_HOST_RESOLUTION, 5, "Unable to resolve host")         \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_UNEXPECTED_RESPONSE, 6,                               \
       "Unexpected response from server")                                                          \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_REQUEST_QUEUE_FULL, 7, "The request queue is full")   \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NO_AVAILABLE_IO_THREAD, 8, "No available IO threads") \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_WRITE_ERROR, 9, "Write error")                        \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, 10, "No hosts available")         \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS, 11, "Index out of bounds")       \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_ITEM_COUNT, 12, "Invalid item count")         \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_VALUE_TYPE, 13, "Invalid value type")         \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_REQUEST_TIMED_OUT, 14, "Request timed out")           \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_UNABLE_TO_SET_KEYSPACE, 15, "Unable to set keyspace") \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_CALLBACK_ALREADY_SET, 16, "Callback already set")     \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_STATEMENT_TYPE, 17, "Invalid statement type") \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST, 18,                              \
       "No value or column for name")                                                              \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_UNABLE_TO_DETERMINE_PROTOCOL, 19,                     \
       "Unable to find supported protocol version")                                                \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NULL_VALUE, 20, "NULL value specified")               \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NOT_IMPLEMENTED, 21, "Not implemented")               \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_UNABLE_TO_CONNECT, 22, "Unable to connect")           \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_UNABLE_TO_CLOSE, 23, "Unable to close")               \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NO_PAGING_STATE, 24, "No paging state")               \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_PARAMETER_UNSET, 25, "Parameter unset")               \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE, 26,                        \
       "Invalid error result type")                                                                \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_FUTURE_TYPE, 27, "Invalid future type")       \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INTERNAL_ERROR, 28, "Internal error")                 \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_CUSTOM_TYPE, 29, "Invalid custom type")       \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_DATA, 30, "Invalid data")                     \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NOT_ENOUGH_DATA, 31, "Not enough data")               \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_INVALID_STATE, 32, "Invalid state")                   \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NO_CUSTOM_PAYLOAD, 33, "No custom payload")           \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID, 34,                        \
       "Invalid execution profile specified")                                                      \
    XX(CASS_ERROR_SOURCE_LIB, CASS_ERROR_LIB_NO_TRACING_ID, 35, "No tracing ID")                   \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_SERVER_ERROR, 0x0000, "Server error")           \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_PROTOCOL_ERROR, 0x000A, "Protocol error")       \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_BAD_CREDENTIALS, 0x0100, "Bad credentials")     \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_UNAVAILABLE, 0x1000, "Unavailable")             \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_OVERLOADED, 0x1001, "Overloaded")               \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_IS_BOOTSTRAPPING, 0x1002, "Is bootstrapping")   \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_TRUNCATE_ERROR, 0x1003, "Truncate error")       \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_WRITE_TIMEOUT, 0x1100, "Write timeout")         \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_READ_TIMEOUT, 0x1200, "Read timeout")           \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_READ_FAILURE, 0x1300, "Read failure")           \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_FUNCTION_FAILURE, 0x1400, "Function failure")   \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_WRITE_FAILURE, 0x1500, "Write failure")         \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_SYNTAX_ERROR, 0x2000, "Syntax error")           \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_UNAUTHORIZED, 0x2100, "Unauthorized")           \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_INVALID_QUERY, 0x2200, "Invalid query")         \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_CONFIG_ERROR, 0x2300, "Configuration error")    \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_ALREADY_EXISTS, 0x2400, "Already exists")       \
    XX(CASS_ERROR_SOURCE_SERVER, CASS_ERROR_SERVER_UNPREPARED, 0x2500, "Unprepared")               \
    XX(CASS_ERROR_SOURCE_SSL, CASS_ERROR_SSL_INVALID_CERT, 1, "Unable to load certificate")        \
    XX(CASS_ERROR_SOURCE_SSL, CASS_ERROR_SSL_INVALID_PRIVATE_KEY, 2, "Unable to load private key") \
    XX(CASS_ERROR_SOURCE_SSL, CASS_ERROR_SSL_NO_PEER_CERT, 3, "No peer certificate")               \
    XX(CASS_ERROR_SOURCE_SSL, CASS_ERROR_SSL_INVALID_PEER_CERT, 4, "Invalid peer certificate")     \
    XX(CASS_ERROR_SOURCE_SSL, CASS_ERROR_SSL_IDENTITY_MISMATCH, 5,                                 \
       "Certificate does not match host or IP address")                                            \
    XX(CASS_ERROR_SOURCE_SSL, CASS_ERROR_SSL_PROTOCOL_ERROR, 6, "Protocol error")                  \
    XX(CASS_ERROR_SOURCE_SSL, CASS_ERROR_SSL_CLOSED, 7, "Connection closed")

/* Older name of CASS_ERROR_MAPPING. */
#define CASS_ERROR_MAP CASS_ERROR_MAPPING

/* A CassError value: the source in the top byte, the code below it. */
#define CASS_ERROR(source, code) ((source << 24) | code)

/* Every outcome of a call: CASS_OK or one of the errors of CASS_ERROR_MAPPING. */
/* clang-format off */
typedef enum CassError_ {
    CASS_OK = 0,
#define XX_ERROR(source, name, code, _) name = CASS_ERROR(source, code),
    CASS_ERROR_MAPPING(XX_ERROR)
#undef XX_ERROR
    CASS_ERROR_LAST_ENTRY /* not an error: one past the last */
} CassError;
/* clang-format on */

/* ============================================================================================== *
 * Callbacks and related structures
 * ============================================================================================== */

/*
 * Called once when a future is set, with the data given to cass_future_set_callback(). Runs in
 * the thread that sets the future, or at once in the registering thread if it is already set.
 * It must not wait on a future or free a session.
 */
typedef void (*CassFutureCallback)(CassFuture *future, void *data);

#define CASS_LOG_MAX_MESSAGE_SIZE 1024 /* longest log message, NUL included */

/* One log message, as handed to a CassLogCallback. */
typedef struct CassLogMessage_ {
    cass_uint64_t time_ms;                   /* when logged, milliseconds since the Unix epoch */
    CassLogLevel severity;                   /* its level */
    const char *file;                        /* source file that logged it */
    int line;                                /* line in that file */
    const char *function;                    /* function that logged it */
    char message[CASS_LOG_MAX_MESSAGE_SIZE]; /* the text, NUL-terminated */
} CassLogMessage;

/*
 * Receives log messages, with the data given to cass_log_set_callback(). May be called from any
 * thread that logs, so it must synchronize what it shares; the message lives only for the call.
 */
typedef void (*CassLogCallback)(const CassLogMessage *message, void *data);

/* Replacement for malloc(): returns size bytes or NULL. */
typedef void *(*CassMallocFunction)(size_t size);

/* Replacement for realloc(): resizes ptr (NULL behaves as malloc) and returns it or NULL. */
typedef void *(*CassReallocFunction)(void *ptr, size_t size);

/* Replacement for free(): releases memory from the two functions above; NULL is ignored. */
typedef void (*CassFreeFunction)(void *ptr);

/* One authentication exchange with a node (the Authenticator section). */
typedef struct CassAuthenticator_ CassAuthenticator;

/* Starts an exchange: sets the first response token or an error on auth. */
typedef void (*CassAuthenticatorInitialCallback)(CassAuthenticator *auth, void *data);

/* Answers a server challenge (token bytes) by setting the next response or an error. */
typedef void (*CassAuthenticatorChallengeCallback)(CassAuthenticator *auth, void *data,
                                                   const char *token, size_t token_size);

/* Checks the server's final token (token bytes); sets an error to reject it. */
typedef void (*CassAuthenticatorSuccessCallback)(CassAuthenticator *auth, void *data,
                                                 const char *token, size_t token_size);

/* Releases what one exchange acquired; called however the exchange ended. */
typedef void (*CassAuthenticatorCleanupCallback)(CassAuthenticator *auth, void *data);

/* Releases the data given with the callbacks when the cluster no longer needs it. */
typedef void (*CassAuthenticatorDataCleanupCallback)(void *data);

/* The callbacks of a custom authenticator. */
typedef struct CassAuthenticatorCallbacks_ {
    CassAuthenticatorInitialCallback initial_callback;
    CassAuthenticatorChallengeCallback challenge_callback;
    CassAuthenticatorSuccessCallback success_callback;
    CassAuthenticatorCleanupCallback cleanup_callback;
} CassAuthenticatorCallbacks;

/* Changes in the state of a node. */
typedef enum CassHostListenerEvent_ {
    CASS_HOST_LISTENER_EVENT_UP,
    CASS_HOST_LISTENER_EVENT_DOWN,
    CASS_HOST_LISTENER_EVENT_ADD,
    CASS_HOST_LISTENER_EVENT_REMOVE
} CassHostListenerEvent;

/* Told when a node comes up, goes down, joins or leaves; used by later parts of the API. */
typedef void (*CassHostListenerCallback)(CassHostListenerEvent event, const CassInet address,
                                         void *data);

/* A named set of request settings (see Execution profile). */
typedef struct CassExecProfile_ CassExecProfile;

/* ============================================================================================== *
 * Execution profile
 *
 * A profile groups request settings under a name: the cluster keeps a copy of each one it is
 * given, and a statement or batch that names one takes its settings, each unless the statement
 * sets its own. Consistency, serial consistency and request timeout are request settings;
 * routing, host and DC filters, retry and speculative-execution policies are checked as the
 * driver checks them and kept for the remote backend. An embedded database is one node, so
 * those change nothing there.
 * ============================================================================================== */

/** Creates an execution profile with nothing set: requests naming it take the cluster's levels,
 * timeout and policies. Token-aware routing with replica shuffling is on, latency-aware routing
 * off, as with the driver.
 * @return A new profile, or NULL if memory ran out.
 * Ownership: the caller frees the profile with cass_execution_profile_free(); a cluster given it
 *     keeps a copy of its own.
 * Threads: any thread. */
CASS_EXPORT CassExecProfile *cass_execution_profile_new(void);

/** Frees an execution profile. Clusters it was given keep their copies.
 * @param[in] profile The profile to free; NULL does nothing.
 * Ownership: the profile is gone after the call.
 * Threads: one thread at a time per profile. */
CASS_EXPORT void cass_execution_profile_free(CassExecProfile *profile);

/** Sets the request timeout of requests naming the profile (a statement's own still wins). The
 * remote backend waits that long for an answer; embedded requests run to completion.
 * @param[in] profile The profile.
 * @param[in] timeout_ms Milliseconds; 0 for none; CASS_UINT64_MAX for the cluster's (the default).
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_request_timeout(CassExecProfile *profile,
                                                                 cass_uint64_t timeout_ms);

/** Sets the consistency level of requests naming the profile, unless a statement sets its own.
 * The level is taken as given; Cassandra judges it when a request runs (ANY is refused for a
 * read).
 * @param[in] profile The profile.
 * @param[in] consistency The level; CASS_CONSISTENCY_UNKNOWN for the cluster's (the default).
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_consistency(CassExecProfile *profile,
                                                             CassConsistency consistency);

/** Sets the serial consistency level of conditional requests naming the profile, unless a
 * statement sets its own.
 * @param[in] profile The profile.
 * @param[in] serial_consistency SERIAL or LOCAL_SERIAL; CASS_CONSISTENCY_UNKNOWN for the
 *     cluster's (the default).
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_serial_consistency(
    CassExecProfile *profile, CassConsistency serial_consistency);

/** Gives the profile a round-robin load-balancing policy of its own (by default a profile uses
 * the cluster's). Kept for the remote backend; no effect embedded.
 * @param[in] profile The profile.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_load_balance_round_robin(CassExecProfile *profile);

/** Gives the profile a DC-aware load-balancing policy of its own: nodes of local_dc first. The
 * two remote-DC parameters are deprecated by the driver. Kept for the remote backend; no effect
 * embedded.
 * @param[in] profile The profile.
 * @param[in] local_dc Name of the local data center, NUL-terminated.
 * @param[in] used_hosts_per_remote_dc Nodes of each other DC to try when the local ones fail.
 * @param[in] allow_remote_dcs_for_local_cl Whether LOCAL_ONE and LOCAL_QUORUM may go to them.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile or a NULL or empty local_dc.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_load_balance_dc_aware(
    CassExecProfile *profile, const char *local_dc, unsigned used_hosts_per_remote_dc,
    cass_bool_t allow_remote_dcs_for_local_cl);

/** Same as cass_execution_profile_set_load_balance_dc_aware(), with the length given.
 * @param[in] profile The profile.
 * @param[in] local_dc Name of the local data center.
 * @param[in] local_dc_length Length of local_dc in bytes.
 * @param[in] used_hosts_per_remote_dc Nodes of each other DC to try when the local ones fail.
 * @param[in] allow_remote_dcs_for_local_cl Whether LOCAL_ONE and LOCAL_QUORUM may go to them.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile or a NULL or empty local_dc.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_load_balance_dc_aware_n(
    CassExecProfile *profile, const char *local_dc, size_t local_dc_length,
    unsigned used_hosts_per_remote_dc, cass_bool_t allow_remote_dcs_for_local_cl);

/** Turns token-aware routing of the profile's own load-balancing policy on or off (default on);
 * it only matters once the profile has a policy of its own. No effect embedded.
 * @param[in] profile The profile.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_token_aware_routing(CassExecProfile *profile,
                                                                     cass_bool_t enabled);

/** Makes the profile's token-aware routing pick among replicas at random (default on). No effect
 * embedded.
 * @param[in] profile The profile.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_token_aware_routing_shuffle_replicas(
    CassExecProfile *profile, cass_bool_t enabled);

/** Turns latency-aware routing of the profile's own load-balancing policy on or off (default
 * off): nodes much slower than the fastest are avoided for a while. No effect embedded.
 * @param[in] profile The profile.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_latency_aware_routing(CassExecProfile *profile,
                                                                       cass_bool_t enabled);

/** Tunes the profile's latency-aware routing. Every value is accepted, as by the driver. No
 * effect embedded.
 * @param[in] profile The profile.
 * @param[in] exclusion_threshold How many times the best average latency a node may reach before
 *     it is avoided (default 2.0).
 * @param[in] scale_ms How fast older measurements lose weight in a node's average (default 100).
 * @param[in] retry_period_ms How long an avoided node stays avoided (default 10000).
 * @param[in] update_rate_ms How often the best average is recomputed (default 100).
 * @param[in] min_measured Measurements a node needs before it is judged (default 50).
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_latency_aware_routing_settings(
    CassExecProfile *profile, cass_double_t exclusion_threshold, cass_uint64_t scale_ms,
    cass_uint64_t retry_period_ms, cass_uint64_t update_rate_ms, cass_uint64_t min_measured);

/** Adds hosts to the profile's allow list: its requests go only to those. Entries are
 * comma-separated, spaces around them dropped, empty ones skipped; each call appends, and ""
 * empties the list (no filter). No effect embedded.
 * @param[in] profile The profile.
 * @param[in] hosts Comma-separated addresses, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_whitelist_filtering(CassExecProfile *profile,
                                                                     const char *hosts);

/** Same as cass_execution_profile_set_whitelist_filtering(), with the length given.
 * @param[in] profile The profile.
 * @param[in] hosts Comma-separated addresses.
 * @param[in] hosts_length Length of hosts in bytes; 0 empties the list.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile, or NULL hosts with a length.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_whitelist_filtering_n(CassExecProfile *profile,
                                                                       const char *hosts,
                                                                       size_t hosts_length);

/** Adds hosts to the profile's deny list: its requests never go to those. Entries as in
 * cass_execution_profile_set_whitelist_filtering(); "" empties the list. No effect embedded.
 * @param[in] profile The profile.
 * @param[in] hosts Comma-separated addresses, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_blacklist_filtering(CassExecProfile *profile,
                                                                     const char *hosts);

/** Same as cass_execution_profile_set_blacklist_filtering(), with the length given.
 * @param[in] profile The profile.
 * @param[in] hosts Comma-separated addresses.
 * @param[in] hosts_length Length of hosts in bytes; 0 empties the list.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile, or NULL hosts with a length.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_blacklist_filtering_n(CassExecProfile *profile,
                                                                       const char *hosts,
                                                                       size_t hosts_length);

/** Adds data centers to the profile's allow list: its requests go only to their nodes. Entries
 * as in cass_execution_profile_set_whitelist_filtering(); "" empties the list. No effect
 * embedded.
 * @param[in] profile The profile.
 * @param[in] dcs Comma-separated data center names, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_whitelist_dc_filtering(CassExecProfile *profile,
                                                                        const char *dcs);

/** Same as cass_execution_profile_set_whitelist_dc_filtering(), with the length given.
 * @param[in] profile The profile.
 * @param[in] dcs Comma-separated data center names.
 * @param[in] dcs_length Length of dcs in bytes; 0 empties the list.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile, or NULL dcs with a length.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_whitelist_dc_filtering_n(CassExecProfile *profile,
                                                                          const char *dcs,
                                                                          size_t dcs_length);

/** Adds data centers to the profile's deny list: its requests never go to their nodes. Entries
 * as in cass_execution_profile_set_whitelist_filtering(); "" empties the list. No effect
 * embedded.
 * @param[in] profile The profile.
 * @param[in] dcs Comma-separated data center names, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_blacklist_dc_filtering(CassExecProfile *profile,
                                                                        const char *dcs);

/** Same as cass_execution_profile_set_blacklist_dc_filtering(), with the length given.
 * @param[in] profile The profile.
 * @param[in] dcs Comma-separated data center names.
 * @param[in] dcs_length Length of dcs in bytes; 0 empties the list.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile, or NULL dcs with a length.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_blacklist_dc_filtering_n(CassExecProfile *profile,
                                                                          const char *dcs,
                                                                          size_t dcs_length);

/** Sets the retry policy of requests naming the profile (by default the cluster's). A single
 * embedded node never times out or lacks replicas, so nothing is retried embedded.
 * @param[in] profile The profile.
 * @param[in] retry_policy The policy; NULL for the cluster's again.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: the profile takes its own reference (and a cluster's copy another); the caller still
 *     frees retry_policy with cass_retry_policy_free().
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_retry_policy(CassExecProfile *profile,
                                                              CassRetryPolicy *retry_policy);

/** Makes the remote backend send idempotent requests naming the profile to further nodes when
 * one is slow to answer: up to max_speculative_executions more, constant_delay_ms apart. One
 * embedded node has no other to ask; kept for the remote backend.
 * @param[in] profile The profile.
 * @param[in] constant_delay_ms Milliseconds between executions, at least 0.
 * @param[in] max_speculative_executions Executions beyond the first, at least 0.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile or a negative argument.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError cass_execution_profile_set_constant_speculative_execution_policy(
    CassExecProfile *profile, cass_int64_t constant_delay_ms, int max_speculative_executions);

/** Turns speculative executions off for requests naming the profile, whatever the cluster's
 * policy. Kept for the remote backend; no effect embedded.
 * @param[in] profile The profile.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL profile.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per profile. */
CASS_EXPORT CassError
cass_execution_profile_set_no_speculative_execution_policy(CassExecProfile *profile);

/* ============================================================================================== *
 * Cluster
 *
 * A cluster object holds the settings a session connects with. The contact points choose the
 * backend: "file:DIR" or "memory:" run the embedded engine, anything else the remote backend.
 * Settings that only concern networking are validated as the driver validates them and kept for the
 * remote backend; embedded they change nothing.
 * ============================================================================================== */

/** Creates a cluster configuration with the driver's defaults: no contact points, port 9042,
 * consistency LOCAL_ONE, request timeout 12000 ms, no client-side timestamp generator (the engine
 * assigns write timestamps).
 * @return A new cluster, or NULL if memory ran out.
 * Ownership: the caller frees the cluster with cass_cluster_free().
 * Threads: any thread. */
CASS_EXPORT CassCluster *cass_cluster_new(void);

/** Frees a cluster configuration. Sessions already connected with it keep their own copy.
 * @param[in] cluster The cluster to free; NULL does nothing.
 * Ownership: the cluster is gone after the call.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_free(CassCluster *cluster);

/** Sets or extends the comma-separated contact points: the first call sets them, later calls
 * append, "" clears them; spaces around entries are dropped. "file:DIR" opens the database
 * directory DIR (created when missing) and "memory:" a database held in memory; either must be the
 * only contact point. Host names and addresses go to the remote backend, which until it exists
 * makes connecting fail with CASS_ERROR_LIB_NO_HOSTS_AVAILABLE. CASSETTE_URI, when set at connect
 * time, replaces whatever was set here.
 * @param[in] cluster The cluster configuration.
 * @param[in] contact_points Comma-separated list, NUL-terminated.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_contact_points(CassCluster *cluster,
                                                      const char *contact_points);

/** Same as cass_cluster_set_contact_points(), with the length given; the list needs no NUL.
 * @param[in] cluster The cluster configuration.
 * @param[in] contact_points Comma-separated list.
 * @param[in] contact_points_length Length of contact_points in bytes.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_contact_points_n(CassCluster *cluster,
                                                        const char *contact_points,
                                                        size_t contact_points_length);

/** Sets the port used with host contact points (default 9042). Embedded contact points ignore it.
 * @param[in] cluster The cluster configuration.
 * @param[in] port TCP port.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when port is 0 or negative.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_port(CassCluster *cluster, int port);

/** Turns TLS on with the given context for the remote backend. Embedded connections do not use it.
 * @param[in] cluster The cluster configuration.
 * @param[in] ssl The TLS context (see cass_ssl_new()).
 * Ownership: the cluster takes its own reference; the caller still frees ssl with cass_ssl_free().
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_ssl(CassCluster *cluster, CassSsl *ssl);

/** Sets the native protocol version the remote backend starts with (default 4; it negotiates down
 * when needed). Embedded sessions accept every version and behave as protocol 4.
 * @param[in] cluster The cluster configuration.
 * @param[in] protocol_version A CassProtocolVersion value.
 * @return CASS_OK; CASS_ERROR_LIB_BAD_PARAMS for a version below 3 or above the highest the driver
 *     supports, or when cass_cluster_set_use_beta_protocol_version() is on.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_protocol_version(CassCluster *cluster, int protocol_version);

/** Makes the remote backend start with the newest beta protocol version (5) instead of the newest
 * stable one. Embedded sessions are unaffected.
 * @param[in] cluster The cluster configuration.
 * @param[in] enable cass_true for the beta version, cass_false for the newest stable one.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_use_beta_protocol_version(CassCluster *cluster,
                                                                 cass_bool_t enable);

/** Sets the consistency level statements take when they set none (default LOCAL_ONE). It is stored
 * and sent to a remote cluster; one embedded node meets every level.
 * @param[in] cluster The cluster configuration.
 * @param[in] consistency The default consistency level.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for CASS_CONSISTENCY_UNKNOWN.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_consistency(CassCluster *cluster,
                                                   CassConsistency consistency);

/** Sets the serial consistency level conditional statements take when they set none. Embedded,
 * conditional statements are linearizable whichever level is set.
 * @param[in] cluster The cluster configuration.
 * @param[in] consistency CASS_CONSISTENCY_SERIAL or CASS_CONSISTENCY_LOCAL_SERIAL.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for CASS_CONSISTENCY_UNKNOWN.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_serial_consistency(CassCluster *cluster,
                                                          CassConsistency consistency);

/** Sets the number of I/O threads of the remote backend (default 1). Embedded statements run in the
 * caller's thread and start no I/O thread.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_threads Number of threads, at least 1.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when num_threads is 0.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_num_threads_io(CassCluster *cluster, unsigned num_threads);

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_requests Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(
    CassError cass_cluster_set_max_requests_per_flush(CassCluster *cluster, unsigned num_requests));

/** Sets how long the remote backend waits for a connection to a node (default 5000 ms). Opening an
 * embedded database is not timed.
 * @param[in] cluster The cluster configuration.
 * @param[in] timeout_ms Timeout in milliseconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_connect_timeout(CassCluster *cluster, unsigned timeout_ms);

/** Sets how long the remote backend waits for a response (default 12000 ms). Embedded statements
 * run to completion in the calling thread and are not timed.
 * @param[in] cluster The cluster configuration.
 * @param[in] timeout_ms Timeout in milliseconds; 0 for none.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_request_timeout(CassCluster *cluster, unsigned timeout_ms);

/** Sets how long the remote backend waits for nodes to agree on the schema after a schema change
 * (default 10000 ms). Embedded schema changes are visible as soon as they return.
 * @param[in] cluster The cluster configuration.
 * @param[in] wait_time_ms Wait in milliseconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_max_schema_wait_time(CassCluster *cluster, unsigned wait_time_ms);

/** Sets the user name and password for plain-text authentication with a remote cluster; they
 * replace authenticator callbacks set before. An embedded database does not authenticate.
 * @param[in] cluster The cluster configuration.
 * @param[in] username User name, NUL-terminated.
 * @param[in] password Password, NUL-terminated.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_credentials(CassCluster *cluster, const char *username,
                                              const char *password);

/** Same as cass_cluster_set_credentials(), with lengths given.
 * @param[in] cluster The cluster configuration.
 * @param[in] username User name.
 * @param[in] username_length Length of username in bytes.
 * @param[in] password Password.
 * @param[in] password_length Length of password in bytes.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_credentials_n(CassCluster *cluster, const char *username,
                                                size_t username_length, const char *password,
                                                size_t password_length);

/** Authenticates connections of the remote backend with the application's callbacks, for a
 * server-side authenticator the plain-text credentials do not serve (SASL, Kerberos...). Each
 * connection a node asks to authenticate runs one exchange: the initial callback gives the first
 * token, the challenge callback answers each challenge, the success callback checks the node's
 * last token, and the cleanup callback ends the exchange however it went. A NULL callback
 * succeeds with an empty token. The callbacks replace credentials set before, and
 * cass_cluster_set_credentials() replaces them. An embedded database does not authenticate.
 * @param[in] cluster The cluster configuration.
 * @param[in] exchange_callbacks The callbacks (the struct is copied).
 * @param[in] cleanup_callback Called with data, once, when no cluster, session or exchange needs
 *     the callbacks any more (the callbacks replaced, the cluster and the sessions connected with
 *     it freed or closed); may be NULL.
 * @param[in] data Handed to every callback.
 * @return CASS_OK; CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or exchange_callbacks, or
 *     CASS_ERROR_LIB_INTERNAL_ERROR when memory ran out: then nothing changed and the caller keeps
 *     data.
 * Ownership: on success the cluster owns data until it calls cleanup_callback.
 * Threads: one thread at a time per cluster. The callbacks run on the connections' threads, for
 *     several connections at once: what they share through data must be thread-safe. */
CASS_EXPORT CassError cass_cluster_set_authenticator_callbacks(
    CassCluster *cluster, const CassAuthenticatorCallbacks *exchange_callbacks,
    CassAuthenticatorDataCleanupCallback cleanup_callback, void *data);

/** Makes the remote backend send requests to every node in turn. No effect embedded.
 * @param[in] cluster The cluster configuration.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_load_balance_round_robin(CassCluster *cluster);

/** Turns token-aware routing on or off for the remote backend (default on): requests go first to a
 * replica of their partition. No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_token_aware_routing(CassCluster *cluster, cass_bool_t enabled);

/** Makes token-aware routing pick among a partition's replicas at random (default on). No effect
 * embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_token_aware_routing_shuffle_replicas(CassCluster *cluster,
                                                                       cass_bool_t enabled);

/** Turns TCP_NODELAY on or off for remote connections (default on). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_tcp_nodelay(CassCluster *cluster, cass_bool_t enabled);

/** Turns TCP keep-alive on or off for remote connections (default off). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @param[in] delay_secs Idle seconds before the first probe; ignored when enabled is cass_false.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_tcp_keepalive(CassCluster *cluster, cass_bool_t enabled,
                                                unsigned delay_secs);

/** Makes every write that sets no timestamp of its own take one from timestamp_gen. Without one, or
 * with cass_timestamp_gen_server_side_new(), the engine assigns strictly increasing timestamps (the
 * cluster does, remote).
 * @param[in] cluster The cluster configuration.
 * @param[in] timestamp_gen The generator.
 * Ownership: the cluster takes its own reference; the caller still frees timestamp_gen with
 *     cass_timestamp_gen_free().
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_timestamp_gen(CassCluster *cluster,
                                                CassTimestampGen *timestamp_gen);

/** Sets how often an idle remote connection sends a heartbeat (default 30 s). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] interval_secs Interval in seconds; 0 turns heartbeats off.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_connection_heartbeat_interval(CassCluster *cluster,
                                                                unsigned interval_secs);

/** Sets how long a remote connection may go without a heartbeat answer before it is closed and
 * reopened (default 60 s). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] timeout_secs Timeout in seconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_connection_idle_timeout(CassCluster *cluster,
                                                          unsigned timeout_secs);

/** Sets the retry policy of requests that set none. A single embedded node never times out or lacks
 * replicas, so embedded requests are never retried; the policy is kept for the remote backend.
 * @param[in] cluster The cluster configuration.
 * @param[in] retry_policy The policy.
 * Ownership: the cluster takes its own reference; the caller still frees retry_policy with
 *     cass_retry_policy_free().
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_retry_policy(CassCluster *cluster, CassRetryPolicy *retry_policy);

/** Turns schema metadata on or off (default on). When off, cass_session_get_schema_meta() returns
 * an empty snapshot.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_use_schema(CassCluster *cluster, cass_bool_t enabled);

/** Deprecated by the driver: reverse DNS lookups of node addresses. Accepted and kept; no effect
 * embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(
    CassError cass_cluster_set_use_hostname_resolution(CassCluster *cluster, cass_bool_t enabled));

/** Makes the remote backend try contact points in random order (default on). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_use_randomized_contact_points(CassCluster *cluster,
                                                                     cass_bool_t enabled);

/** Sets the application name the remote backend reports to the cluster when it connects.
 * @param[in] cluster The cluster configuration.
 * @param[in] application_name Name, NUL-terminated.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_application_name(CassCluster *cluster,
                                                   const char *application_name);

/** Same as cass_cluster_set_application_name(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] application_name Name.
 * @param[in] application_name_length Length of application_name in bytes.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_application_name_n(CassCluster *cluster,
                                                     const char *application_name,
                                                     size_t application_name_length);

/** Sets the application version the remote backend reports to the cluster when it connects.
 * @param[in] cluster The cluster configuration.
 * @param[in] application_version Version text, NUL-terminated.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_application_version(CassCluster *cluster,
                                                      const char *application_version);

/** Same as cass_cluster_set_application_version(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] application_version Version text.
 * @param[in] application_version_length Length of application_version in bytes.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_application_version_n(CassCluster *cluster,
                                                        const char *application_version,
                                                        size_t application_version_length);

/** Sets the client id sessions report (default: a random version 4 UUID per session).
 * @param[in] cluster The cluster configuration.
 * @param[in] client_id The id.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_client_id(CassCluster *cluster, CassUuid client_id);

/** Stores a copy of the profile under name, replacing a profile of that name. Sessions take the
 * cluster's profiles as they are when they connect: later changes to the profile or the cluster
 * reach only sessions connected after them.
 * @param[in] cluster The cluster configuration.
 * @param[in] name The profile's name, NUL-terminated.
 * @param[in] profile The profile.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or profile, or a NULL or empty
 *     name.
 * Ownership: the cluster keeps a copy; the caller still frees profile with
 *     cass_execution_profile_free().
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_execution_profile(CassCluster *cluster, const char *name,
                                                         CassExecProfile *profile);

/** Same as cass_cluster_set_execution_profile(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] name The profile's name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] profile The profile.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or profile, or a NULL or empty
 *     name.
 * Ownership: the cluster keeps a copy; the caller still frees profile with
 *     cass_execution_profile_free().
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_execution_profile_n(CassCluster *cluster, const char *name,
                                                           size_t name_length,
                                                           CassExecProfile *profile);

/* ---- Cluster: pools, reconnection, routing and filters ------------------------------------- *
 * Checked as the driver checks them and kept for the remote backend. None changes an embedded
 * session (one in-process database: no pools, hosts or routing); the remote backend today opens
 * one connection and reconnects on demand, so it does not use them yet either. */

/** Sets the size of the remote backend's request queue per I/O thread (default 8192).
 * @param[in] cluster The cluster configuration.
 * @param[in] queue_size Number of requests, at least 1.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when queue_size is 0.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_queue_size_io(CassCluster *cluster, unsigned queue_size);

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] queue_size Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(
    CassError cass_cluster_set_queue_size_event(CassCluster *cluster, unsigned queue_size));

/** Sets how many connections the remote backend keeps to each node per I/O thread (default 1).
 * @param[in] cluster The cluster configuration.
 * @param[in] num_connections Number of connections, at least 1.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when num_connections is 0.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_core_connections_per_host(CassCluster *cluster,
                                                                 unsigned num_connections);

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_connections Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(CassError cass_cluster_set_max_connections_per_host(
    CassCluster *cluster, unsigned num_connections));

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_connections Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(CassError cass_cluster_set_max_concurrent_creation(
    CassCluster *cluster, unsigned num_connections));

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_requests Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(CassError cass_cluster_set_max_concurrent_requests_threshold(
    CassCluster *cluster, unsigned num_requests));

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too (no
 * comparison with the low water mark either).
 * @param[in] cluster The cluster configuration.
 * @param[in] num_bytes Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(CassError cass_cluster_set_write_bytes_high_water_mark(
    CassCluster *cluster, unsigned num_bytes));

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_bytes Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(CassError cass_cluster_set_write_bytes_low_water_mark(
    CassCluster *cluster, unsigned num_bytes));

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_requests Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(CassError cass_cluster_set_pending_requests_high_water_mark(
    CassCluster *cluster, unsigned num_requests));

/** Deprecated by the driver, where it no longer does anything; accepted and ignored here too.
 * @param[in] cluster The cluster configuration.
 * @param[in] num_requests Ignored.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(CassError cass_cluster_set_pending_requests_low_water_mark(
    CassCluster *cluster, unsigned num_requests));

/** Sets how long, in microseconds, the remote backend lets requests gather before writing them
 * to a socket in one system call (default 200; 0 writes at once).
 * @param[in] cluster The cluster configuration.
 * @param[in] delay_us Delay in microseconds, at least 0.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a negative delay.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_coalesce_delay(CassCluster *cluster, cass_int64_t delay_us);

/** Sets the share, in percent, of an I/O thread's time the remote backend gives to new requests
 * rather than to those under way (default 50).
 * @param[in] cluster The cluster configuration.
 * @param[in] ratio A percentage from 1 to 100.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS outside 1..100.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_new_request_ratio(CassCluster *cluster, cass_int32_t ratio);

/** Sets how many request-encoding buffers the remote backend keeps for reuse (default: no limit).
 * @param[in] cluster The cluster configuration.
 * @param[in] num_objects Number of buffers; any value.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_max_reusable_write_objects(CassCluster *cluster,
                                                                  unsigned num_objects);

/** Deprecated by the driver: same as cass_cluster_set_constant_reconnect() with that delay.
 * @param[in] cluster The cluster configuration.
 * @param[in] wait_time Delay in milliseconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CASS_DEPRECATED(void cass_cluster_set_reconnect_wait_time(CassCluster *cluster,
                                                                      unsigned wait_time));

/** Makes the remote backend wait the same delay before each new attempt to reach a node that went
 * down. The default is exponential: cass_cluster_set_exponential_reconnect(cluster, 2000, 600000).
 * Today the remote backend reconnects on demand, when the next request needs the connection.
 * @param[in] cluster The cluster configuration.
 * @param[in] delay_ms Delay in milliseconds; any value.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_constant_reconnect(CassCluster *cluster, cass_uint64_t delay_ms);

/** Makes the remote backend double its delay between attempts to reach a node that went down,
 * from base_delay_ms up to max_delay_ms (the default: 2000 and 600000). Today the remote backend
 * reconnects on demand.
 * @param[in] cluster The cluster configuration.
 * @param[in] base_delay_ms First delay in milliseconds, above 1.
 * @param[in] max_delay_ms Longest delay in milliseconds, above 1 and at least base_delay_ms.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS (logged) for a delay of 0 or 1, or a maximum below
 *     the base.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_exponential_reconnect(CassCluster *cluster,
                                                             cass_uint64_t base_delay_ms,
                                                             cass_uint64_t max_delay_ms);

/** Sets how long the remote backend waits for a contact point's name to resolve (default 5000 ms).
 * @param[in] cluster The cluster configuration.
 * @param[in] timeout_ms Timeout in milliseconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_resolve_timeout(CassCluster *cluster, unsigned timeout_ms);

/** Sets the local address the remote backend's sockets bind to (default: any).
 * @param[in] cluster The cluster configuration.
 * @param[in] name A numeric IPv4 or IPv6 address, NUL-terminated; NULL or "" for any address.
 * @return CASS_OK, or CASS_ERROR_LIB_HOST_RESOLUTION when name is not a numeric address (names are
 *     not looked up).
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_local_address(CassCluster *cluster, const char *name);

/** Same as cass_cluster_set_local_address(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] name A numeric IPv4 or IPv6 address; NULL or empty for any address.
 * @param[in] name_length Length of name in bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_HOST_RESOLUTION when name is not a numeric address.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_local_address_n(CassCluster *cluster, const char *name,
                                                       size_t name_length);

/** Makes the remote backend send the NO_COMPACT startup option (default off), for clusters whose
 * COMPACT STORAGE tables are being upgraded. Embedded tables are never compact.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to send it, cass_false not to.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_no_compact(CassCluster *cluster, cass_bool_t enabled);

/** Makes the remote backend prepare a statement on every node rather than only on the one that
 * ran the PREPARE (default on). One embedded node needs no more.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_prepare_on_all_hosts(CassCluster *cluster,
                                                            cass_bool_t enabled);

/** Makes the remote backend prepare its cached statements again on a node that comes back or
 * joins (default on). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_prepare_on_up_or_add_host(CassCluster *cluster,
                                                                 cass_bool_t enabled);

/** Sets how often the latency histograms of the driver's metrics are refreshed (default: never).
 * Metrics are not kept yet.
 * @param[in] cluster The cluster configuration.
 * @param[in] refresh_interval Interval in milliseconds, at least 1.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when refresh_interval is 0.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_histogram_refresh_interval(CassCluster *cluster,
                                                                  unsigned refresh_interval);

/** Sets how often the remote backend would report its configuration to a DSE Insights service
 * (default 300 s; 0 turns it off). Nothing is reported.
 * @param[in] cluster The cluster configuration.
 * @param[in] interval_secs Interval in seconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_monitor_reporting_interval(CassCluster *cluster,
                                                             unsigned interval_secs);

/** Sets how long a traced request waits for its trace to be written (default 15 ms). Tracing is
 * not supported yet.
 * @param[in] cluster The cluster configuration.
 * @param[in] max_wait_time_ms Wait in milliseconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_tracing_max_wait_time(CassCluster *cluster,
                                                        unsigned max_wait_time_ms);

/** Sets the pause between two checks for a request's trace (default 3 ms). Tracing is not
 * supported yet.
 * @param[in] cluster The cluster configuration.
 * @param[in] retry_wait_time_ms Pause in milliseconds.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_tracing_retry_wait_time(CassCluster *cluster,
                                                          unsigned retry_wait_time_ms);

/** Sets the consistency level of the reads that check for a request's trace (default ONE).
 * Tracing is not supported yet.
 * @param[in] cluster The cluster configuration.
 * @param[in] consistency The level; taken as given.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_tracing_consistency(CassCluster *cluster,
                                                      CassConsistency consistency);

/** Makes the remote backend prefer the nodes of local_dc, using at most used_hosts_per_remote_dc
 * nodes of each other data center (replaces round-robin). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] local_dc The local data center's name, NUL-terminated.
 * @param[in] used_hosts_per_remote_dc Nodes of each remote data center that may be used.
 * @param[in] allow_remote_dcs_for_local_cl cass_true to let LOCAL_ONE and LOCAL_QUORUM requests
 *     use remote nodes too.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS (logged) for a NULL or empty local_dc.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_load_balance_dc_aware(
    CassCluster *cluster, const char *local_dc, unsigned used_hosts_per_remote_dc,
    cass_bool_t allow_remote_dcs_for_local_cl);

/** Same as cass_cluster_set_load_balance_dc_aware(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] local_dc The local data center's name.
 * @param[in] local_dc_length Length of local_dc in bytes.
 * @param[in] used_hosts_per_remote_dc Nodes of each remote data center that may be used.
 * @param[in] allow_remote_dcs_for_local_cl cass_true to let LOCAL_* levels use remote nodes.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS (logged) for a NULL or empty local_dc.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_load_balance_dc_aware_n(
    CassCluster *cluster, const char *local_dc, size_t local_dc_length,
    unsigned used_hosts_per_remote_dc, cass_bool_t allow_remote_dcs_for_local_cl);

/** Turns latency-aware routing on or off for the remote backend (default off): nodes much slower
 * than the fastest are set aside for a while. No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] enabled cass_true to turn it on, cass_false to turn it off.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_latency_aware_routing(CassCluster *cluster, cass_bool_t enabled);

/** Tunes latency-aware routing (defaults: 2.0, 100 ms, 10000 ms, 100 ms, 50). Every value is taken,
 * as by the driver. No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] exclusion_threshold How many times slower than the fastest node a node may be before
 *     it is set aside.
 * @param[in] scale_ms Weight of older latencies against newer ones, in milliseconds.
 * @param[in] retry_period_ms How long a node stays set aside.
 * @param[in] update_rate_ms How often the fastest latency is recomputed.
 * @param[in] min_measured Requests a node must have answered before it is judged.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_latency_aware_routing_settings(
    CassCluster *cluster, cass_double_t exclusion_threshold, cass_uint64_t scale_ms,
    cass_uint64_t retry_period_ms, cass_uint64_t update_rate_ms, cass_uint64_t min_measured);

/** Restricts the remote backend to the listed nodes. Each call appends its comma-separated
 * addresses to the list; an empty or NULL text empties it (no restriction). No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] hosts Comma-separated addresses, NUL-terminated.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_whitelist_filtering(CassCluster *cluster, const char *hosts);

/** Same as cass_cluster_set_whitelist_filtering(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] hosts Comma-separated addresses.
 * @param[in] hosts_length Length of hosts in bytes; 0 empties the list.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_whitelist_filtering_n(CassCluster *cluster, const char *hosts,
                                                        size_t hosts_length);

/** Keeps the remote backend away from the listed nodes. Each call appends its comma-separated
 * addresses; an empty or NULL text empties the list. No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] hosts Comma-separated addresses, NUL-terminated.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_blacklist_filtering(CassCluster *cluster, const char *hosts);

/** Same as cass_cluster_set_blacklist_filtering(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] hosts Comma-separated addresses.
 * @param[in] hosts_length Length of hosts in bytes; 0 empties the list.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_blacklist_filtering_n(CassCluster *cluster, const char *hosts,
                                                        size_t hosts_length);

/** Restricts the remote backend to the nodes of the listed data centers. Each call appends its
 * comma-separated names; an empty or NULL text empties the list. No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] dcs Comma-separated data center names, NUL-terminated.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_whitelist_dc_filtering(CassCluster *cluster, const char *dcs);

/** Same as cass_cluster_set_whitelist_dc_filtering(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] dcs Comma-separated data center names.
 * @param[in] dcs_length Length of dcs in bytes; 0 empties the list.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_whitelist_dc_filtering_n(CassCluster *cluster, const char *dcs,
                                                           size_t dcs_length);

/** Keeps the remote backend away from the nodes of the listed data centers. Each call appends its
 * comma-separated names; an empty or NULL text empties the list. No effect embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] dcs Comma-separated data center names, NUL-terminated.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_blacklist_dc_filtering(CassCluster *cluster, const char *dcs);

/** Same as cass_cluster_set_blacklist_dc_filtering(), with the length given.
 * @param[in] cluster The cluster configuration.
 * @param[in] dcs Comma-separated data center names.
 * @param[in] dcs_length Length of dcs in bytes; 0 empties the list.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT void cass_cluster_set_blacklist_dc_filtering_n(CassCluster *cluster, const char *dcs,
                                                           size_t dcs_length);

/** Makes the remote backend send an idempotent request again, to another node, every
 * constant_delay_ms until one answers, at most max_speculative_executions more times. Nothing is
 * sent twice embedded.
 * @param[in] cluster The cluster configuration.
 * @param[in] constant_delay_ms Delay in milliseconds, at least 0.
 * @param[in] max_speculative_executions Extra attempts, at least 0.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS (logged) when either is negative.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_constant_speculative_execution_policy(
    CassCluster *cluster, cass_int64_t constant_delay_ms, int max_speculative_executions);

/** Turns speculative executions off (the default).
 * @param[in] cluster The cluster configuration.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_no_speculative_execution_policy(CassCluster *cluster);

/** Sets the function told when a node of the cluster is added, removed, comes up or goes down
 * (NULL: none). The remote backend calls it from its monitor thread, without a lock held, for
 * the nodes it discovers at connect (ADD, then UP once a connection is open) and for every
 * change after; it must not wait for a request of the session. Embedded: never called (one
 * in-process database, which neither joins nor leaves).
 * @param[in] cluster The cluster configuration.
 * @param[in] callback The function, or NULL.
 * @param[in] data Passed to it as is (the caller keeps it alive while sessions run).
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS without a cluster.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_host_listener_callback(CassCluster *cluster,
                                                              CassHostListenerCallback callback,
                                                              void *data);

/** Not supported: DataStax Astra secure-connect bundles cannot be loaded. The call logs an error
 * saying so and leaves the cluster as it was; set contact points (and a TLS context) instead.
 * @param[in] cluster The cluster configuration.
 * @param[in] path Path of the bundle, NUL-terminated.
 * @return CASS_ERROR_LIB_BAD_PARAMS, always.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_cloud_secure_connection_bundle(CassCluster *cluster,
                                                                      const char *path);

/** Same as cass_cluster_set_cloud_secure_connection_bundle(), with the length given: refused.
 * @param[in] cluster The cluster configuration.
 * @param[in] path Path of the bundle.
 * @param[in] path_length Length of path in bytes.
 * @return CASS_ERROR_LIB_BAD_PARAMS, always.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_cloud_secure_connection_bundle_n(CassCluster *cluster,
                                                                        const char *path,
                                                                        size_t path_length);

/** Same as cass_cluster_set_cloud_secure_connection_bundle() without initializing OpenSSL:
 * refused.
 * @param[in] cluster The cluster configuration.
 * @param[in] path Path of the bundle, NUL-terminated.
 * @return CASS_ERROR_LIB_BAD_PARAMS, always.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError
cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init(CassCluster *cluster,
                                                                const char *path);

/** Same as cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init(), with the length
 * given: refused.
 * @param[in] cluster The cluster configuration.
 * @param[in] path Path of the bundle.
 * @param[in] path_length Length of path in bytes.
 * @return CASS_ERROR_LIB_BAD_PARAMS, always.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per cluster. */
CASS_EXPORT CassError cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init_n(
    CassCluster *cluster, const char *path, size_t path_length);

/* ============================================================================================== *
 * Session
 *
 * A session runs statements on one database (embedded) or cluster (remote). Every operation returns
 * a future the caller frees. Embedded, the work is done in the calling thread, so the future is
 * normally set when the call returns.
 * ============================================================================================== */

/** Creates an unconnected session.
 * @return A new session, or NULL if memory ran out.
 * Ownership: the caller frees the session with cass_session_free().
 * Threads: any thread. */
CASS_EXPORT CassSession *cass_session_new(void);

/** Closes the session if it is connected, waiting for its requests to finish, then frees it. Never
 * call it from a future callback: it would wait on itself.
 * @param[in] session The session to free; NULL does nothing.
 * Ownership: the session is gone after the call; futures obtained from it stay valid until freed.
 * Threads: one thread, once no other thread uses the session. */
CASS_EXPORT void cass_session_free(CassSession *session);

/** Connects the session with a copy of cluster. Embedded contact points open (or create) the
 * database in the calling thread and the future is set on return; other contact points fail with
 * CASS_ERROR_LIB_NO_HOSTS_AVAILABLE until the remote backend exists.
 * @param[in] session The session.
 * @param[in] cluster The configuration; copied, so later changes to it do not matter.
 * @return A future set with CASS_OK or the error: CASS_ERROR_LIB_NO_HOSTS_AVAILABLE (no usable
 *     contact point), CASS_ERROR_LIB_UNABLE_TO_CONNECT (the session is already connected, or the
 *     database cannot be opened; the message says why).
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_connect(CassSession *session, const CassCluster *cluster);

/** Connects as cass_session_connect() does, then makes keyspace the current keyspace, as USE would.
 * @param[in] session The session.
 * @param[in] cluster The configuration; copied.
 * @param[in] keyspace Keyspace name, NUL-terminated.
 * @return A future set with CASS_OK, an error of cass_session_connect(), or the error of the USE
 *     when the keyspace does not exist.
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_connect_keyspace(CassSession *session,
                                                      const CassCluster *cluster,
                                                      const char *keyspace);

/** Same as cass_session_connect_keyspace(), with the keyspace's length given.
 * @param[in] session The session.
 * @param[in] cluster The configuration; copied.
 * @param[in] keyspace Keyspace name.
 * @param[in] keyspace_length Length of keyspace in bytes.
 * @return As cass_session_connect_keyspace().
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_connect_keyspace_n(CassSession *session,
                                                        const CassCluster *cluster,
                                                        const char *keyspace,
                                                        size_t keyspace_length);

/** Closes the session once its requests have finished. Embedded, pending durable writes reach the
 * disk first and the future is set on return.
 * @param[in] session The session.
 * @return A future set with CASS_OK, or CASS_ERROR_LIB_UNABLE_TO_CLOSE when the session is not
 *     connected.
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_close(CassSession *session);

/** Prepares one CQL statement: parses and checks it once so it can be bound and executed many
 * times. Embedded, this happens in the calling thread.
 * @param[in] session The session.
 * @param[in] query The CQL text, NUL-terminated; copied.
 * @return A future giving the prepared statement through cass_future_get_prepared(), or failing as
 *     Cassandra would (CASS_ERROR_SERVER_SYNTAX_ERROR, CASS_ERROR_SERVER_INVALID_QUERY...).
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_prepare(CassSession *session, const char *query);

/** Same as cass_session_prepare(), with the query's length given.
 * @param[in] session The session.
 * @param[in] query The CQL text; copied.
 * @param[in] query_length Length of query in bytes.
 * @return As cass_session_prepare().
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_prepare_n(CassSession *session, const char *query,
                                               size_t query_length);

/** Prepares the query of a simple statement. Statements bound from the result inherit its keyspace,
 * consistency, serial consistency, request timeout and retry policy.
 * @param[in] session The session.
 * @param[in] statement A simple statement; its query and settings are copied.
 * @return As cass_session_prepare().
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_prepare_from_existing(CassSession *session,
                                                           CassStatement *statement);

/** Executes a simple or bound statement. Embedded, it runs in the calling thread and its future is
 * set on return — except a plain write (no IF) on a database that syncs (every cassette durability
 * but NONE): that is queued for the next group commit, shared with the writes of other threads and
 * the other writes this thread has in flight, and its future is set, and its callback run, by the
 * database's committer thread once the write is durable.
 * @param[in] session The session.
 * @param[in] statement The statement; nothing of it is kept, so it may be freed or changed right
 *     after the call.
 * @return A future giving the result through cass_future_get_result(), or failing with the error
 *     Cassandra would return (CASS_ERROR_SERVER_INVALID_QUERY, ...);
 *     CASS_ERROR_LIB_NO_HOSTS_AVAILABLE when the session is not connected.
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_execute(CassSession *session, const CassStatement *statement);

/** Executes a batch, with the same threading as cass_session_execute().
 * @param[in] session The session.
 * @param[in] batch The batch; nothing of it is kept.
 * @return A future giving an empty result (or the conditional batch's [applied] row), or failing as
 *     cass_session_execute() does.
 * Ownership: the caller frees the returned future with cass_future_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassFuture *cass_session_execute_batch(CassSession *session, const CassBatch *batch);

/** Takes a snapshot of the schema as it is now. The snapshot never changes; take another to see
 * later schema changes.
 * @param[in] session The session.
 * @return The snapshot; empty when the session is not connected or schema metadata is off.
 * Ownership: the caller frees the snapshot with cass_schema_meta_free().
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT const CassSchemaMeta *cass_session_get_schema_meta(const CassSession *session);

/** Returns the client id of the session: the one set on the cluster, or a random version 4 UUID
 * chosen when the session was created.
 * @param[in] session The session.
 * @return The client id.
 * Ownership: nothing changes hands.
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT CassUuid cass_session_get_client_id(CassSession *session);

/** Fills output with the session's figures: request latencies (µs, from a log-linear histogram:
 * within 6% below the truth) and rates (requests per second: the mean since the session was
 * made, and 1, 5 and 15 minute exponentially weighted rates ticked every 5 s); the connections
 * open (remote; 0 embedded); connect and request timeouts (remote). The deprecated fields are
 * 0 but available_connections, which is total_connections.
 * @param[in] session The session.
 * @param[out] output The figures (all 0 for a NULL session).
 * Ownership: nothing changes hands.
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT void cass_session_get_metrics(const CassSession *session, CassMetrics *output);

/** Fills output with the session's aborted speculative executions: the remote backend's
 * executions whose answer came after another execution of the same request had answered --
 * their latencies (µs), count, and percentage of all requests. Embedded, none (all 0).
 * @param[in] session The session.
 * @param[out] output The figures.
 * Ownership: nothing changes hands.
 * Threads: any number of threads may use one session at once. */
CASS_EXPORT void cass_session_get_speculative_execution_metrics(
    const CassSession *session, CassSpeculativeExecutionMetrics *output);

/* ============================================================================================== *
 * Statement
 *
 * A statement is one CQL query with its bound values and options. Simple statements are made with
 * cass_statement_new(); bound statements with cass_prepared_bind(). Every value bound is copied
 * into the statement. Binding by name matches names case-insensitively unless the name is written
 * in double quotes, as CQL identifiers do; a simple statement matches them against its :name
 * markers. Binders return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS for an index past the parameters,
 * CASS_ERROR_LIB_NAME_DOES_NOT_EXIST for a name no parameter has, and
 * CASS_ERROR_LIB_INVALID_VALUE_TYPE when the parameter's CQL type (known for bound statements) does
 * not take the value.
 * ============================================================================================== */

/** Creates a simple statement.
 * @param[in] query One CQL statement, NUL-terminated; copied.
 * @param[in] parameter_count Number of ? or :name markers in query, 0 for none.
 * @return A new statement, or NULL if memory ran out.
 * Ownership: the caller frees the statement with cass_statement_free().
 * Threads: any thread. */
CASS_EXPORT CassStatement *cass_statement_new(const char *query, size_t parameter_count);

/** Same as cass_statement_new(), with the query's length given.
 * @param[in] query One CQL statement; copied.
 * @param[in] query_length Length of query in bytes.
 * @param[in] parameter_count Number of ? or :name markers in query.
 * @return A new statement, or NULL if memory ran out.
 * Ownership: the caller frees the statement with cass_statement_free().
 * Threads: any thread. */
CASS_EXPORT CassStatement *cass_statement_new_n(const char *query, size_t query_length,
                                                size_t parameter_count);

/** Forgets every bound value and makes room for count values.
 * @param[in] statement The statement.
 * @param[in] count The new number of parameters.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_reset_parameters(CassStatement *statement, size_t count);

/** Frees a statement. It may be freed as soon as it has been executed, prepared or added to a
 * batch.
 * @param[in] statement The statement to free; NULL does nothing.
 * Ownership: the statement is gone after the call.
 * Threads: one thread at a time per statement. */
CASS_EXPORT void cass_statement_free(CassStatement *statement);

/** Marks the parameter at index as part of the partition key, for token-aware routing on the remote
 * backend (call once per key column, in key order). Embedded, it is only recorded.
 * @param[in] statement The statement.
 * @param[in] index Position of the parameter.
 * @return CASS_OK; CASS_ERROR_LIB_BAD_PARAMS for a bound statement or an index past the parameters.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_add_key_index(CassStatement *statement, size_t index);

/** Sets the keyspace of unqualified table names in this statement, in place of the session's
 * current keyspace (as protocol v5 does).
 * @param[in] statement The statement.
 * @param[in] keyspace Keyspace name, NUL-terminated; copied.
 * @return CASS_OK; CASS_ERROR_LIB_BAD_PARAMS for a bound statement, whose keyspace comes from its
 *     prepared statement.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_keyspace(CassStatement *statement, const char *keyspace);

/** Same as cass_statement_set_keyspace(), with the length given.
 * @param[in] statement The statement.
 * @param[in] keyspace Keyspace name; copied.
 * @param[in] keyspace_length Length of keyspace in bytes; 0 clears it.
 * @return As cass_statement_set_keyspace(); also CASS_ERROR_LIB_BAD_PARAMS for a NULL keyspace
 *     with a non-zero length.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_keyspace_n(CassStatement *statement,
                                                    const char *keyspace, size_t keyspace_length);

/** Sets the statement's consistency level (default: the cluster's). Stored and sent remote; one
 * embedded node meets every level.
 * @param[in] statement The statement.
 * @param[in] consistency The consistency level.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_consistency(CassStatement *statement,
                                                     CassConsistency consistency);

/** Sets the serial consistency of a conditional statement (IF ...). Embedded, conditional
 * statements are linearizable whichever level is set.
 * @param[in] statement The statement.
 * @param[in] serial_consistency CASS_CONSISTENCY_SERIAL or CASS_CONSISTENCY_LOCAL_SERIAL.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_serial_consistency(CassStatement *statement,
                                                            CassConsistency serial_consistency);

/** Sets how many rows one result holds at most; the rest come in later pages (see
 * cass_result_has_more_pages()).
 * @param[in] statement The statement.
 * @param[in] page_size Rows per page; 0 or less (the default, -1) returns every row in one result.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_paging_size(CassStatement *statement, int page_size);

/** Makes the next execution of the statement return the page that follows result.
 * @param[in] statement The statement.
 * @param[in] result A result of this same statement; its paging state is copied, so it may be freed
 *     afterwards.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_paging_state(CassStatement *statement,
                                                      const CassResult *result);

/** Same as cass_statement_set_paging_state(), from the bytes of cass_result_paging_state_token(). A
 * token that does not belong to this query makes the execution fail; never accept one from an
 * untrusted party.
 * @param[in] statement The statement.
 * @param[in] paging_state The token bytes; copied.
 * @param[in] paging_state_size Number of bytes.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_paging_state_token(CassStatement *statement,
                                                            const char *paging_state,
                                                            size_t paging_state_size);

/** Sets the write timestamp of every change the statement makes, as USING TIMESTAMP does; it
 * overrides the cluster's timestamp generator.
 * @param[in] statement The statement.
 * @param[in] timestamp Microseconds since the Unix epoch.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_timestamp(CassStatement *statement,
                                                   cass_int64_t timestamp);

/** Sets the statement's response timeout on the remote backend. Embedded statements run to
 * completion and are not timed.
 * @param[in] statement The statement.
 * @param[in] timeout_ms Milliseconds; 0 for none; CASS_UINT64_MAX for the cluster's (the default).
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_request_timeout(CassStatement *statement,
                                                         cass_uint64_t timeout_ms);

/** Marks the statement as safe to run twice, which lets the remote backend retry it or run it
 * speculatively. Stored; embedded statements are never retried.
 * @param[in] statement The statement.
 * @param[in] is_idempotent cass_true when running it twice does no harm.
 * @return CASS_OK.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_is_idempotent(CassStatement *statement,
                                                       cass_bool_t is_idempotent);

/** Names the execution profile the statement runs with: its consistency, serial consistency and
 * timeout apply where the statement sets none. The name is looked up when the statement runs; a
 * name the session's cluster has no profile for fails the request with
 * CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID. Statements bound from a prepared statement and the
 * copies a batch keeps do not carry it (a batch names its own).
 * @param[in] statement The statement.
 * @param[in] name The profile's name, NUL-terminated; NULL or "" for none (the default).
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL statement.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_execution_profile(CassStatement *statement,
                                                           const char *name);

/** Same as cass_statement_set_execution_profile(), with the length given.
 * @param[in] statement The statement.
 * @param[in] name The profile's name.
 * @param[in] name_length Length of name in bytes; 0 for none.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL statement.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_execution_profile_n(CassStatement *statement,
                                                             const char *name, size_t name_length);

/** Gives the statement a custom payload to send with its request, in place of any it had. The
 * remote backend sends it (protocol v4 and later; nothing is sent over v3); embedded it is kept
 * and has no effect, as Cassandra's default query handler ignores payloads. A batch's copies of
 * the statement do not carry it (a batch sends its own).
 * @param[in] statement The statement.
 * @param[in] payload The payload, copied as it is now (later changes to it do not reach the
 *     statement); NULL removes the statement's.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL statement.
 * Ownership: the payload is copied; the caller keeps and frees it.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_custom_payload(CassStatement *statement,
                                                        const CassCustomPayload *payload);

/** Asks for the statement's request to be traced, as Cassandra traces a request (@cassandra{2.2+}):
 * the node records the steps of its execution in system_traces.sessions and
 * system_traces.events, kept one day, and cass_future_tracing_id() names the trace. Embedded,
 * the trace is written before the future is set; remote, the server writes it (Cassandra
 * writes it asynchronously: the rows may take a moment to appear). A batch's copies of the
 * statement do not carry it (a batch is traced as a whole).
 * @param[in] statement The statement.
 * @param[in] enabled cass_true to trace it; cass_false (the default) not to.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL statement.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_tracing(CassStatement *statement, cass_bool_t enabled);

/** Sets the retry policy of the statement's requests, over its execution profile's and the
 * cluster's (NULL: back to those). Remote, the policy decides on read and write timeouts,
 * unavailable and overloaded answers as the driver's policies do; embedded, one database
 * answers and nothing is retried.
 * @param[in] statement The statement.
 * @param[in] retry_policy The policy (referenced: the caller still frees its own), or NULL.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_retry_policy(CassStatement *statement,
                                                      CassRetryPolicy *retry_policy);

/** Runs the statement on one node only, named by its address (numeric, IPv4 or IPv6) and
 * native port, bypassing load balancing: remote, the request fails with
 * CASS_ERROR_LIB_NO_HOSTS_AVAILABLE when that node is not up in the session; embedded, the one
 * database answers whatever the node.
 * @param[in] statement The statement.
 * @param[in] host The address, NUL-terminated.
 * @param[in] port The node's native port.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when host is not a numeric address.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_set_host(CassStatement *statement, const char *host,
                                              int port);

/** Same as cass_statement_set_host(), with the address's length given. */
CASS_EXPORT CassError cass_statement_set_host_n(CassStatement *statement, const char *host,
                                                size_t host_length, int port);

/** Same as cass_statement_set_host(), with the address as a CassInet. */
CASS_EXPORT CassError cass_statement_set_host_inet(CassStatement *statement, const CassInet *host,
                                                   int port);

/** Same as cass_statement_set_host(), with the node cass_future_coordinator() gave.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL statement or node. */
CASS_EXPORT CassError cass_statement_set_node(CassStatement *statement, const CassNode *node);

/** Binds a null to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @return CASS_OK, or CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_null(CassStatement *statement, size_t index);

/** Binds a null to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_NAME_DOES_NOT_EXIST.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_null_by_name(CassStatement *statement, const char *name);

/** Same as cass_statement_bind_null_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_NAME_DOES_NOT_EXIST.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_null_by_name_n(CassStatement *statement, const char *name,
                                                         size_t name_length);

/** Binds a "tinyint" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int8(CassStatement *statement, size_t index,
                                               cass_int8_t value);

/** Binds a "tinyint" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int8_by_name(CassStatement *statement, const char *name,
                                                       cass_int8_t value);

/** Same as cass_statement_bind_int8_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int8_by_name_n(CassStatement *statement, const char *name,
                                                         size_t name_length, cass_int8_t value);

/** Binds a "smallint" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int16(CassStatement *statement, size_t index,
                                                cass_int16_t value);

/** Binds a "smallint" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int16_by_name(CassStatement *statement, const char *name,
                                                        cass_int16_t value);

/** Same as cass_statement_bind_int16_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int16_by_name_n(CassStatement *statement,
                                                          const char *name, size_t name_length,
                                                          cass_int16_t value);

/** Binds an "int" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int32(CassStatement *statement, size_t index,
                                                cass_int32_t value);

/** Binds an "int" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int32_by_name(CassStatement *statement, const char *name,
                                                        cass_int32_t value);

/** Same as cass_statement_bind_int32_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int32_by_name_n(CassStatement *statement,
                                                          const char *name, size_t name_length,
                                                          cass_int32_t value);

/** Binds a "date" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_uint32(CassStatement *statement, size_t index,
                                                 cass_uint32_t value);

/** Binds a "date" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_uint32_by_name(CassStatement *statement, const char *name,
                                                         cass_uint32_t value);

/** Same as cass_statement_bind_uint32_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_uint32_by_name_n(CassStatement *statement,
                                                           const char *name, size_t name_length,
                                                           cass_uint32_t value);

/** Binds a "bigint", "counter", "timestamp" or "time" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int64(CassStatement *statement, size_t index,
                                                cass_int64_t value);

/** Binds a "bigint", "counter", "timestamp" or "time" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int64_by_name(CassStatement *statement, const char *name,
                                                        cass_int64_t value);

/** Same as cass_statement_bind_int64_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_int64_by_name_n(CassStatement *statement,
                                                          const char *name, size_t name_length,
                                                          cass_int64_t value);

/** Binds a "float" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_float(CassStatement *statement, size_t index,
                                                cass_float_t value);

/** Binds a "float" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_float_by_name(CassStatement *statement, const char *name,
                                                        cass_float_t value);

/** Same as cass_statement_bind_float_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_float_by_name_n(CassStatement *statement,
                                                          const char *name, size_t name_length,
                                                          cass_float_t value);

/** Binds a "double" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_double(CassStatement *statement, size_t index,
                                                 cass_double_t value);

/** Binds a "double" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_double_by_name(CassStatement *statement, const char *name,
                                                         cass_double_t value);

/** Same as cass_statement_bind_double_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_double_by_name_n(CassStatement *statement,
                                                           const char *name, size_t name_length,
                                                           cass_double_t value);

/** Binds a "boolean" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_bool(CassStatement *statement, size_t index,
                                               cass_bool_t value);

/** Binds a "boolean" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_bool_by_name(CassStatement *statement, const char *name,
                                                       cass_bool_t value);

/** Same as cass_statement_bind_bool_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_bool_by_name_n(CassStatement *statement, const char *name,
                                                         size_t name_length, cass_bool_t value);

/** Binds an "ascii", "text" or "varchar" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The text, NUL-terminated; UTF-8 (ASCII for an ascii column).
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_string(CassStatement *statement, size_t index,
                                                 const char *value);

/** Same as cass_statement_bind_string(), with the length given.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The text; UTF-8 (ASCII for an ascii column).
 * @param[in] value_length Length of value in bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_string_n(CassStatement *statement, size_t index,
                                                   const char *value, size_t value_length);

/** Binds an "ascii", "text" or "varchar" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The text, NUL-terminated; UTF-8 (ASCII for an ascii column).
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_string_by_name(CassStatement *statement, const char *name,
                                                         const char *value);

/** Same as cass_statement_bind_string_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The text; UTF-8 (ASCII for an ascii column).
 * @param[in] value_length Length of value in bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_string_by_name_n(CassStatement *statement,
                                                           const char *name, size_t name_length,
                                                           const char *value, size_t value_length);

/** Binds a "blob", "varint" or custom value, as raw bytes to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_bytes(CassStatement *statement, size_t index,
                                                const cass_byte_t *value, size_t value_size);

/** Binds a "blob", "varint" or custom value, as raw bytes to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_bytes_by_name(CassStatement *statement, const char *name,
                                                        const cass_byte_t *value,
                                                        size_t value_size);

/** Same as cass_statement_bind_bytes_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_bytes_by_name_n(CassStatement *statement,
                                                          const char *name, size_t name_length,
                                                          const cass_byte_t *value,
                                                          size_t value_size);

/** Binds a value of a custom type (a Java class the server knows) to the parameter at index. On a
 * bound statement the marker must be a custom type of exactly that class name; cassette makes no
 * custom types, so there it is always refused. A simple statement takes it as raw bytes, which the
 * column they reach validates when the statement runs.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] class_name The type's Java class name, NUL-terminated (NULL is "").
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS, CASS_ERROR_LIB_INVALID_VALUE_TYPE (the
 *     marker is not a custom type of that class) or CASS_ERROR_LIB_BAD_PARAMS (NULL value with a
 *     size).
 * Ownership: the value is copied into the statement; the class name is only compared.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_custom(CassStatement *statement, size_t index,
                                                 const char *class_name, const cass_byte_t *value,
                                                 size_t value_size);

/** Same as cass_statement_bind_custom(), with the class name's length given.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] class_name The type's Java class name.
 * @param[in] class_name_length Length of class_name in bytes.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return as cass_statement_bind_custom().
 * Ownership: the value is copied into the statement; the class name is only compared.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_custom_n(CassStatement *statement, size_t index,
                                                   const char *class_name, size_t class_name_length,
                                                   const cass_byte_t *value, size_t value_size);

/** Binds a value of a custom type to every parameter named name (on a bound statement each must
 * be a custom type of that class; see cass_statement_bind_custom()).
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] class_name The type's Java class name, NUL-terminated (NULL is "").
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST, CASS_ERROR_LIB_INVALID_VALUE_TYPE or
 *     CASS_ERROR_LIB_BAD_PARAMS.
 * Ownership: the value is copied into the statement; the class name is only compared.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_custom_by_name(CassStatement *statement, const char *name,
                                                         const char *class_name,
                                                         const cass_byte_t *value,
                                                         size_t value_size);

/** Same as cass_statement_bind_custom_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] class_name The type's Java class name.
 * @param[in] class_name_length Length of class_name in bytes.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return as cass_statement_bind_custom_by_name().
 * Ownership: the value is copied into the statement; the class name is only compared.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_custom_by_name_n(
    CassStatement *statement, const char *name, size_t name_length, const char *class_name,
    size_t class_name_length, const cass_byte_t *value, size_t value_size);

/** Binds a "uuid" or "timeuuid" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_uuid(CassStatement *statement, size_t index,
                                               CassUuid value);

/** Binds a "uuid" or "timeuuid" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_uuid_by_name(CassStatement *statement, const char *name,
                                                       CassUuid value);

/** Same as cass_statement_bind_uuid_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_uuid_by_name_n(CassStatement *statement, const char *name,
                                                         size_t name_length, CassUuid value);

/** Binds an "inet" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_inet(CassStatement *statement, size_t index,
                                               CassInet value);

/** Binds an "inet" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_inet_by_name(CassStatement *statement, const char *name,
                                                       CassInet value);

/** Same as cass_statement_bind_inet_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_inet_by_name_n(CassStatement *statement, const char *name,
                                                         size_t name_length, CassInet value);

/** Binds a "decimal" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_decimal(CassStatement *statement, size_t index,
                                                  const cass_byte_t *varint, size_t varint_size,
                                                  cass_int32_t scale);

/** Binds a "decimal" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_decimal_by_name(CassStatement *statement,
                                                          const char *name,
                                                          const cass_byte_t *varint,
                                                          size_t varint_size, cass_int32_t scale);

/** Same as cass_statement_bind_decimal_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_decimal_by_name_n(CassStatement *statement,
                                                            const char *name, size_t name_length,
                                                            const cass_byte_t *varint,
                                                            size_t varint_size, cass_int32_t scale);

/** Binds a "duration" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_duration(CassStatement *statement, size_t index,
                                                   cass_int32_t months, cass_int32_t days,
                                                   cass_int64_t nanos);

/** Binds a "duration" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_duration_by_name(CassStatement *statement,
                                                           const char *name, cass_int32_t months,
                                                           cass_int32_t days, cass_int64_t nanos);

/** Same as cass_statement_bind_duration_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_duration_by_name_n(CassStatement *statement,
                                                             const char *name, size_t name_length,
                                                             cass_int32_t months, cass_int32_t days,
                                                             cass_int64_t nanos);

/** Binds a "list", "set" or "map" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] collection The collection; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_collection(CassStatement *statement, size_t index,
                                                     const CassCollection *collection);

/** Binds a "list", "set" or "map" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] collection The collection; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_collection_by_name(CassStatement *statement,
                                                             const char *name,
                                                             const CassCollection *collection);

/** Same as cass_statement_bind_collection_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] collection The collection; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_collection_by_name_n(CassStatement *statement,
                                                               const char *name, size_t name_length,
                                                               const CassCollection *collection);

/** Binds a "tuple" to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] tuple The tuple; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_tuple(CassStatement *statement, size_t index,
                                                const CassTuple *tuple);

/** Binds a "tuple" to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] tuple The tuple; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_tuple_by_name(CassStatement *statement, const char *name,
                                                        const CassTuple *tuple);

/** Same as cass_statement_bind_tuple_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] tuple The tuple; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_tuple_by_name_n(CassStatement *statement,
                                                          const char *name, size_t name_length,
                                                          const CassTuple *tuple);

/** Binds a user-defined type value to the parameter at index.
 * @param[in] statement The statement.
 * @param[in] index Zero-based position.
 * @param[in] user_type The value; its fields are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_user_type(CassStatement *statement, size_t index,
                                                    const CassUserType *user_type);

/** Binds a user-defined type value to every parameter named name.
 * @param[in] statement The statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @param[in] user_type The value; its fields are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_user_type_by_name(CassStatement *statement,
                                                            const char *name,
                                                            const CassUserType *user_type);

/** Same as cass_statement_bind_user_type_by_name(), with lengths given.
 * @param[in] statement The statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] user_type The value; its fields are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the statement.
 * Threads: one thread at a time per statement. */
CASS_EXPORT CassError cass_statement_bind_user_type_by_name_n(CassStatement *statement,
                                                              const char *name, size_t name_length,
                                                              const CassUserType *user_type);

/* ============================================================================================== *
 * Prepared
 *
 * A prepared statement is parsed and checked once, then bound and executed many times. It is read-
 * only: any number of threads may bind from it at once.
 * ============================================================================================== */

/** Frees the caller's prepared statement. Statements already bound from it stay valid.
 * @param[in] prepared The prepared statement to free; NULL does nothing.
 * Ownership: the caller's reference is gone after the call.
 * Threads: one thread, once no other thread uses this reference. */
CASS_EXPORT void cass_prepared_free(const CassPrepared *prepared);

/** Creates a bound statement with one unset slot per marker. It takes its keyspace from the
 * prepared statement and, for cass_session_prepare_from_existing(), the settings of the original
 * statement.
 * @param[in] prepared The prepared statement.
 * @return A new statement, or NULL if memory ran out.
 * Ownership: the caller frees the statement with cass_statement_free().
 * Threads: any thread; the prepared statement is read-only. */
CASS_EXPORT CassStatement *cass_prepared_bind(const CassPrepared *prepared);

/** Gets the name of the parameter at index: the :name of a named marker, otherwise the column it is
 * compared with or assigned to.
 * @param[in] prepared The prepared statement.
 * @param[in] index Zero-based position.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS.
 * Ownership: the name is borrowed; it lives as long as the prepared statement.
 * Threads: any thread; the prepared statement is read-only. */
CASS_EXPORT CassError cass_prepared_parameter_name(const CassPrepared *prepared, size_t index,
                                                   const char **name, size_t *name_length);

/** Gets the CQL type of the parameter at index.
 * @param[in] prepared The prepared statement.
 * @param[in] index Zero-based position.
 * @return The type, or NULL when index is out of range.
 * Ownership: the type is borrowed; it lives as long as the prepared statement.
 * Threads: any thread; the prepared statement is read-only. */
CASS_EXPORT const CassDataType *cass_prepared_parameter_data_type(const CassPrepared *prepared,
                                                                  size_t index);

/** Gets the CQL type of the first parameter named name (matched as binding by name matches).
 * @param[in] prepared The prepared statement.
 * @param[in] name Parameter name, NUL-terminated.
 * @return The type, or NULL when no parameter has that name.
 * Ownership: the type is borrowed; it lives as long as the prepared statement.
 * Threads: any thread; the prepared statement is read-only. */
CASS_EXPORT const CassDataType *
cass_prepared_parameter_data_type_by_name(const CassPrepared *prepared, const char *name);

/** Same as cass_prepared_parameter_data_type_by_name(), with the name's length given.
 * @param[in] prepared The prepared statement.
 * @param[in] name Parameter name.
 * @param[in] name_length Length of name in bytes.
 * @return The type, or NULL when no parameter has that name.
 * Ownership: the type is borrowed; it lives as long as the prepared statement.
 * Threads: any thread; the prepared statement is read-only. */
CASS_EXPORT const CassDataType *
cass_prepared_parameter_data_type_by_name_n(const CassPrepared *prepared, const char *name,
                                            size_t name_length);

/* ============================================================================================== *
 * Batch
 *
 * A batch runs several INSERT, UPDATE and DELETE statements as one BATCH statement, with
 * Cassandra's rules: a counter batch holds only counter updates, other batches none, and a
 * conditional batch touches one partition.
 * ============================================================================================== */

/** Creates an empty batch.
 * @param[in] type CASS_BATCH_TYPE_LOGGED, CASS_BATCH_TYPE_UNLOGGED or CASS_BATCH_TYPE_COUNTER.
 * @return A new batch, or NULL if memory ran out.
 * Ownership: the caller frees the batch with cass_batch_free().
 * Threads: any thread. */
CASS_EXPORT CassBatch *cass_batch_new(CassBatchType type);

/** Frees a batch. It may be freed as soon as it has been executed.
 * @param[in] batch The batch to free; NULL does nothing.
 * Ownership: the batch and its copies of statements are gone after the call.
 * Threads: one thread at a time per batch. */
CASS_EXPORT void cass_batch_free(CassBatch *batch);

/** Sets the keyspace of unqualified table names in the batch, in place of the session's. When
 * unset, the batch takes the keyspace of its first statement that has one.
 * @param[in] batch The batch.
 * @param[in] keyspace Keyspace name, NUL-terminated; copied.
 * @return CASS_OK.
 * Ownership: the name is copied.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_keyspace(CassBatch *batch, const char *keyspace);

/** Same as cass_batch_set_keyspace(), with the length given.
 * @param[in] batch The batch.
 * @param[in] keyspace Keyspace name; copied.
 * @param[in] keyspace_length Length of keyspace in bytes.
 * @return CASS_OK.
 * Ownership: the name is copied.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_keyspace_n(CassBatch *batch, const char *keyspace,
                                                size_t keyspace_length);

/** Sets the batch's consistency level (default: the cluster's). Stored and sent remote; one
 * embedded node meets every level.
 * @param[in] batch The batch.
 * @param[in] consistency The consistency level.
 * @return CASS_OK.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_consistency(CassBatch *batch, CassConsistency consistency);

/** Sets the serial consistency of a conditional batch. Embedded, conditional batches are
 * linearizable whichever level is set.
 * @param[in] batch The batch.
 * @param[in] serial_consistency CASS_CONSISTENCY_SERIAL or CASS_CONSISTENCY_LOCAL_SERIAL.
 * @return CASS_OK.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_serial_consistency(CassBatch *batch,
                                                        CassConsistency serial_consistency);

/** Sets the write timestamp of every change in the batch, as USING TIMESTAMP on BEGIN BATCH does;
 * it overrides the cluster's timestamp generator.
 * @param[in] batch The batch.
 * @param[in] timestamp Microseconds since the Unix epoch.
 * @return CASS_OK.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_timestamp(CassBatch *batch, cass_int64_t timestamp);

/** Sets the batch's response timeout on the remote backend. Embedded batches run to completion and
 * are not timed.
 * @param[in] batch The batch.
 * @param[in] timeout_ms Milliseconds; 0 for none; CASS_UINT64_MAX for the cluster's (the default).
 * @return CASS_OK.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_request_timeout(CassBatch *batch, cass_uint64_t timeout_ms);

/** Marks the batch as safe to run twice, for retries on the remote backend. Stored; embedded
 * batches are never retried.
 * @param[in] batch The batch.
 * @param[in] is_idempotent cass_true when running it twice does no harm.
 * @return CASS_OK.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_is_idempotent(CassBatch *batch, cass_bool_t is_idempotent);

/** Sets the retry policy of the batch's requests, as cass_statement_set_retry_policy().
 * @param[in] batch The batch.
 * @param[in] retry_policy The policy (referenced), or NULL.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL batch.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_retry_policy(CassBatch *batch, CassRetryPolicy *retry_policy);

/** Names the execution profile the batch runs with: its consistency, serial consistency and
 * timeout apply where the batch sets none. Looked up when the batch runs; an unknown name fails
 * the request with CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID. The profiles its statements name
 * play no part.
 * @param[in] batch The batch.
 * @param[in] name The profile's name, NUL-terminated; NULL or "" for none (the default).
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL batch.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_execution_profile(CassBatch *batch, const char *name);

/** Same as cass_batch_set_execution_profile(), with the length given.
 * @param[in] batch The batch.
 * @param[in] name The profile's name.
 * @param[in] name_length Length of name in bytes; 0 for none.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL batch.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_execution_profile_n(CassBatch *batch, const char *name,
                                                         size_t name_length);

/** Gives the batch a custom payload to send with its request, as
 * cass_statement_set_custom_payload() does for a statement; the payloads of its statements are
 * not sent.
 * @param[in] batch The batch.
 * @param[in] payload The payload, copied as it is now; NULL removes the batch's.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL batch.
 * Ownership: the payload is copied; the caller keeps and frees it.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_custom_payload(CassBatch *batch,
                                                    const CassCustomPayload *payload);

/** Asks for the batch's request to be traced, as cass_statement_set_tracing() does for a
 * statement (@cassandra{2.2+}); the trace's request is "Execute batch of CQL3 queries".
 * @param[in] batch The batch.
 * @param[in] enabled cass_true to trace it; cass_false (the default) not to.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a NULL batch.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_set_tracing(CassBatch *batch, cass_bool_t enabled);

/** Appends a statement, simple or bound, to the batch.
 * @param[in] batch The batch.
 * @param[in] statement The statement; the batch keeps its own copy, so the caller may change or
 *     free it right after.
 * @return CASS_OK.
 * Ownership: the batch copies the statement with its values.
 * Threads: one thread at a time per batch. */
CASS_EXPORT CassError cass_batch_add_statement(CassBatch *batch, CassStatement *statement);

/* ============================================================================================== *
 * Future
 *
 * A future is the outcome of an asynchronous operation. Embedded operations run in the calling
 * thread, so their futures are set, or about to be set by a group commit, when the call that made
 * them returns; the waiting functions still wait when needed. Every future must be freed.
 * ============================================================================================== */

/** Frees a future. It may be freed before it is set: the operation still completes.
 * @param[in] future The future to free; NULL does nothing.
 * Ownership: the future and the strings read from it are gone after the call.
 * Threads: one thread, once no other thread uses the future. */
CASS_EXPORT void cass_future_free(CassFuture *future);

/** Calls callback once the future is set: at once in the calling thread if it already is, otherwise
 * in the thread that sets it.
 * @param[in] future The future.
 * @param[in] callback The function to call.
 * @param[in] data Passed to callback as is.
 * @return CASS_OK, or CASS_ERROR_LIB_CALLBACK_ALREADY_SET when the future has one.
 * Ownership: data stays the caller's.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT CassError cass_future_set_callback(CassFuture *future, CassFutureCallback callback,
                                               void *data);

/** Tells whether the future is set, without waiting.
 * @param[in] future The future.
 * @return cass_true when set.
 * Ownership: nothing changes hands.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT cass_bool_t cass_future_ready(CassFuture *future);

/** Waits until the future is set with a result or an error.
 * @param[in] future The future.
 * Ownership: nothing changes hands.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT void cass_future_wait(CassFuture *future);

/** Waits until the future is set or the time runs out.
 * @param[in] future The future.
 * @param[in] timeout_us Longest wait, in microseconds.
 * @return cass_true when the future is set, cass_false when the time ran out.
 * Ownership: nothing changes hands.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT cass_bool_t cass_future_wait_timed(CassFuture *future, cass_duration_t timeout_us);

/** Waits for the future, then gives the result of an execute.
 * @param[in] future The future.
 * @return The result, or NULL when the operation failed or was not an execute.
 * Ownership: each call returns a result the caller frees with cass_result_free(); it outlives the
 *     future.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT const CassResult *cass_future_get_result(CassFuture *future);

/** Waits for the future, then gives the details of a server-side failure (every CASS_ERROR_SERVER_*
 * code, embedded or remote).
 * @param[in] future The future.
 * @return The error result, or NULL when the operation succeeded or failed on the client side
 *     (CASS_ERROR_LIB_*).
 * Ownership: the caller frees the error result with cass_error_result_free().
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT const CassErrorResult *cass_future_get_error_result(CassFuture *future);

/** Waits for the future, then gives the statement a prepare made. The first successful call takes
 * it; later calls return NULL.
 * @param[in] future The future.
 * @return The prepared statement, or NULL when the prepare failed or it was already taken.
 * Ownership: the caller frees the prepared statement with cass_prepared_free().
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT const CassPrepared *cass_future_get_prepared(CassFuture *future);

/** Waits for the future, then gives its outcome.
 * @param[in] future The future.
 * @return CASS_OK, or the code of the failure (see cass_error_desc()).
 * Ownership: nothing changes hands.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT CassError cass_future_error_code(CassFuture *future);

/** Waits for the future, then gives the failure's message: Cassandra's own text for a server-side
 * error, "" on success.
 * @param[in] future The future.
 * @param[out] message Receives the text; use message_length, do not rely on a NUL.
 * @param[out] message_length Receives its length.
 * Ownership: the text is borrowed; it lives as long as the future.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT void cass_future_error_message(CassFuture *future, const char **message,
                                           size_t *message_length);

/** Waits for the future of a traced request, then gives the id of its trace: the session_id
 * of its rows in system_traces.sessions and system_traces.events.
 * @param[in] future The future of an execute or batch.
 * @param[out] tracing_id Receives the id (a time UUID).
 * @return CASS_OK; CASS_ERROR_LIB_NO_TRACING_ID when the request was not traced or failed (a
 *     failed request's trace is written, but its response names none, as Cassandra's);
 *     CASS_ERROR_LIB_INVALID_FUTURE_TYPE for a future of another kind (connect, close,
 *     prepare); CASS_ERROR_LIB_BAD_PARAMS for a NULL future or tracing_id.
 * Ownership: the id is copied out.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT CassError cass_future_tracing_id(CassFuture *future, CassUuid *tracing_id);

/** Waits for the future, then counts the items of the custom payload the server sent back with
 * the response. Embedded there are none: the count is 0.
 * @param[in] future The future of an execute or batch.
 * @return The count; 0 for a failed request, a future of another kind, or NULL.
 * Ownership: nothing changes hands.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT size_t cass_future_custom_payload_item_count(CassFuture *future);

/** Waits for the future, then gives one item of the custom payload the server sent back.
 * @param[in] future The future of an execute or batch.
 * @param[in] index The item, from 0 to cass_future_custom_payload_item_count() - 1.
 * @param[out] name Receives the item's name; use name_length.
 * @param[out] name_length Receives the name's length in bytes.
 * @param[out] value Receives the item's bytes (NULL for a null value).
 * @param[out] value_size Receives their length.
 * @return CASS_OK; CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS past the last item (any index embedded);
 *     CASS_ERROR_LIB_NO_CUSTOM_PAYLOAD when the request failed;
 *     CASS_ERROR_LIB_INVALID_FUTURE_TYPE for a future of another kind (connect, close, prepare);
 *     CASS_ERROR_LIB_BAD_PARAMS for a NULL future.
 * Ownership: name and value are borrowed; they live as long as the future.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT CassError cass_future_custom_payload_item(CassFuture *future, size_t index,
                                                      const char **name, size_t *name_length,
                                                      const cass_byte_t **value,
                                                      size_t *value_size);

/** Waits for the future of a request, then names the node that coordinated it. No host answers
 * an embedded request, and the remote backend does not name its node yet: always NULL.
 * @param[in] future The future.
 * @return The node, or NULL (embedded; remote; a future of another kind; NULL).
 * Ownership: the node would be borrowed from the future.
 * Threads: any thread, several at once; never wait on a future inside a future callback. */
CASS_EXPORT const CassNode *cass_future_coordinator(CassFuture *future);

/* ============================================================================================== *
 * Custom payload
 *
 * Name/bytes pairs a statement or batch sends with its request, for a server-side query handler
 * (protocol v4 and later). Items are kept in name order; a name appears once. The setters return
 * nothing: a NULL payload, or a NULL name or value with a non-zero length, does nothing.
 * ============================================================================================== */

/** Makes an empty payload.
 * @return The payload; NULL when memory runs out.
 * Ownership: the caller frees it with cass_custom_payload_free().
 * Threads: one thread at a time per payload. */
CASS_EXPORT CassCustomPayload *cass_custom_payload_new(void);

/** Frees a payload; statements and batches given it keep their copies.
 * @param[in] payload The payload; NULL does nothing.
 * Ownership: the payload is gone after the call.
 * Threads: one thread, once no other uses the payload. */
CASS_EXPORT void cass_custom_payload_free(CassCustomPayload *payload);

/** Sets the bytes of a name, adding the item or replacing its value.
 * @param[in] payload The payload.
 * @param[in] name The item's name, NUL-terminated; NULL is the empty name.
 * @param[in] value The bytes; copied.
 * @param[in] value_size Their length.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per payload. */
CASS_EXPORT void cass_custom_payload_set(CassCustomPayload *payload, const char *name,
                                         const cass_byte_t *value, size_t value_size);

/** Same as cass_custom_payload_set(), with the name's length given (at most 65,535 bytes).
 * @param[in] payload The payload.
 * @param[in] name The item's name; copied.
 * @param[in] name_length Its length in bytes.
 * @param[in] value The bytes; copied.
 * @param[in] value_size Their length.
 * Ownership: arguments are copied; the caller keeps what it passed.
 * Threads: one thread at a time per payload. */
CASS_EXPORT void cass_custom_payload_set_n(CassCustomPayload *payload, const char *name,
                                           size_t name_length, const cass_byte_t *value,
                                           size_t value_size);

/** Removes the item of a name; a name the payload lacks changes nothing.
 * @param[in] payload The payload.
 * @param[in] name The item's name, NUL-terminated.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per payload. */
CASS_EXPORT void cass_custom_payload_remove(CassCustomPayload *payload, const char *name);

/** Same as cass_custom_payload_remove(), with the name's length given.
 * @param[in] payload The payload.
 * @param[in] name The item's name.
 * @param[in] name_length Its length in bytes.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per payload. */
CASS_EXPORT void cass_custom_payload_remove_n(CassCustomPayload *payload, const char *name,
                                              size_t name_length);

/* ============================================================================================== *
 * Result
 *
 * A result holds the rows of one page of a query, the column names and types. It is read-only and
 * may be read from any number of threads. Freeing it ends every row, value, iterator and paging
 * token taken from it.
 * ============================================================================================== */

/** Frees a result, ending every row, value, iterator and paging token taken from it.
 * @param[in] result The result to free; NULL does nothing.
 * Ownership: the result is gone after the call.
 * Threads: one thread, once no other thread reads the result. */
CASS_EXPORT void cass_result_free(const CassResult *result);

/** Counts the rows of this page.
 * @param[in] result The result.
 * @return The number of rows; 0 for a statement that returns none.
 * Ownership: nothing changes hands; strings returned are borrowed from the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT size_t cass_result_row_count(const CassResult *result);

/** Counts the columns of each row.
 * @param[in] result The result.
 * @return The number of columns; 0 for a statement that returns no rows.
 * Ownership: nothing changes hands; strings returned are borrowed from the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT size_t cass_result_column_count(const CassResult *result);

/** Gets the name of the column at index, as cqlsh would head it.
 * @param[in] result The result.
 * @param[in] index Zero-based position.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS.
 * Ownership: nothing changes hands; strings returned are borrowed from the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT CassError cass_result_column_name(const CassResult *result, size_t index,
                                              const char **name, size_t *name_length);

/** Gets the type of the column at index.
 * @param[in] result The result.
 * @param[in] index Zero-based position.
 * @return The type, or CASS_VALUE_TYPE_UNKNOWN when index is out of range.
 * Ownership: nothing changes hands; strings returned are borrowed from the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT CassValueType cass_result_column_type(const CassResult *result, size_t index);

/** Gets the full data type of the column at index, sub-types included.
 * @param[in] result The result.
 * @param[in] index Zero-based position.
 * @return The type, or NULL when index is out of range.
 * Ownership: the type is borrowed; it lives as long as the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT const CassDataType *cass_result_column_data_type(const CassResult *result,
                                                             size_t index);

/** Gets the first row, the common case for queries that return one.
 * @param[in] result The result.
 * @return The row, or NULL when there is none.
 * Ownership: the row is borrowed; it lives as long as the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT const CassRow *cass_result_first_row(const CassResult *result);

/** Tells whether more rows follow this page (see cass_statement_set_paging_state()).
 * @param[in] result The result.
 * @return cass_true when there is a next page.
 * Ownership: nothing changes hands; strings returned are borrowed from the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT cass_bool_t cass_result_has_more_pages(const CassResult *result);

/** Gets the opaque token that resumes the query after this page, for
 * cass_statement_set_paging_state_token(). Copy it to keep it beyond the result; never hand it to
 * an untrusted party.
 * @param[in] result The result.
 * @param[out] paging_state Receives the token bytes.
 * @param[out] paging_state_size Receives their number.
 * @return CASS_OK, or CASS_ERROR_LIB_NO_PAGING_STATE when this is the last page.
 * Ownership: nothing changes hands; strings returned are borrowed from the result.
 * Threads: any thread; the result is read-only. */
CASS_EXPORT CassError cass_result_paging_state_token(const CassResult *result,
                                                     const char **paging_state,
                                                     size_t *paging_state_size);

/* ============================================================================================== *
 * Row
 * ============================================================================================== */

/** Gets the value of the column at index.
 * @param[in] row The row.
 * @param[in] index Zero-based position.
 * @return The value (which may be null, see cass_value_is_null()), or NULL when index is out of
 *     range.
 * Ownership: the value is borrowed; it lives as long as the result.
 * Threads: any thread; the row is read-only. */
CASS_EXPORT const CassValue *cass_row_get_column(const CassRow *row, size_t index);

/** Gets the value of the column named name; names match case-insensitively unless written in double
 * quotes.
 * @param[in] row The row.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when the row has no such column.
 * Ownership: the value is borrowed; it lives as long as the result.
 * Threads: any thread; the row is read-only. */
CASS_EXPORT const CassValue *cass_row_get_column_by_name(const CassRow *row, const char *name);

/** Same as cass_row_get_column_by_name(), with the name's length given.
 * @param[in] row The row.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when the row has no such column.
 * Ownership: the value is borrowed; it lives as long as the result.
 * Threads: any thread; the row is read-only. */
CASS_EXPORT const CassValue *cass_row_get_column_by_name_n(const CassRow *row, const char *name,
                                                           size_t name_length);

/* ============================================================================================== *
 * Value
 *
 * A value is one cell of a row, one item of a collection, tuple or user type, or one metadata
 * field. Each getter accepts the CQL types listed and returns CASS_ERROR_LIB_NULL_VALUE for a null,
 * CASS_ERROR_LIB_INVALID_VALUE_TYPE for another type.
 * ============================================================================================== */

/** Gets the full data type of the value, sub-types included.
 * @param[in] value The value.
 * @return The type.
 * Ownership: the type is borrowed; it lives as long as the value.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT const CassDataType *cass_value_data_type(const CassValue *value);

/** Reads a "tinyint".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_int8(const CassValue *value, cass_int8_t *output);

/** Reads a "smallint".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_int16(const CassValue *value, cass_int16_t *output);

/** Reads an "int".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_int32(const CassValue *value, cass_int32_t *output);

/** Reads a "date" (days since -5877641-06-23, the Unix epoch being 2^31).
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_uint32(const CassValue *value, cass_uint32_t *output);

/** Reads a "bigint", "counter", "timestamp" (milliseconds since the Unix epoch) or "time"
 * (nanoseconds since midnight).
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_int64(const CassValue *value, cass_int64_t *output);

/** Reads a "float".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_float(const CassValue *value, cass_float_t *output);

/** Reads a "double".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_double(const CassValue *value, cass_double_t *output);

/** Reads a "boolean".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_bool(const CassValue *value, cass_bool_t *output);

/** Reads a "uuid" or "timeuuid".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_uuid(const CassValue *value, CassUuid *output);

/** Reads an "inet".
 * @param[in] value The value.
 * @param[out] output Receives the value.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_inet(const CassValue *value, CassInet *output);

/** Reads an "ascii", "text" or "varchar". As in the driver, the type is not checked: for any other
 * type the raw bytes are returned.
 * @param[in] value The value.
 * @param[out] output Receives the text, not NUL-terminated.
 * @param[out] output_size Receives its length in bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_NULL_VALUE.
 * Ownership: the text is borrowed; it lives as long as the result the value belongs to.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_string(const CassValue *value, const char **output,
                                            size_t *output_size);

/** Reads the raw bytes of a value of any type, in the native protocol's encoding (a "blob" is its
 * own bytes).
 * @param[in] value The value.
 * @param[out] output Receives the bytes.
 * @param[out] output_size Receives their number.
 * @return CASS_OK, or CASS_ERROR_LIB_NULL_VALUE.
 * Ownership: the bytes are borrowed; they live as long as the result the value belongs to.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_bytes(const CassValue *value, const cass_byte_t **output,
                                           size_t *output_size);

/** Reads a "decimal" as its unscaled value and scale: the number is varint * 10^-scale.
 * @param[in] value The value.
 * @param[out] varint Receives the unscaled value, big-endian two's complement.
 * @param[out] varint_size Receives its number of bytes.
 * @param[out] scale Receives the scale.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the bytes are borrowed; they live as long as the result the value belongs to.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_decimal(const CassValue *value, const cass_byte_t **varint,
                                             size_t *varint_size, cass_int32_t *scale);

/** Reads a "duration" as its three parts.
 * @param[in] value The value.
 * @param[out] months Receives the months.
 * @param[out] days Receives the days.
 * @param[out] nanos Receives the nanoseconds.
 * @return CASS_OK, CASS_ERROR_LIB_NULL_VALUE, CASS_ERROR_LIB_INVALID_VALUE_TYPE, or
 *     CASS_ERROR_LIB_NOT_ENOUGH_DATA when the encoded value is truncated.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassError cass_value_get_duration(const CassValue *value, cass_int32_t *months,
                                              cass_int32_t *days, cass_int64_t *nanos);

/** Gets the CQL type of the value.
 * @param[in] value The value.
 * @return The type.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassValueType cass_value_type(const CassValue *value);

/** Tells whether the value is null (an unset column reads as null).
 * @param[in] value The value.
 * @return cass_true for null.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT cass_bool_t cass_value_is_null(const CassValue *value);

/** Tells whether the value is a list, set or map.
 * @param[in] value The value.
 * @return cass_true for a collection.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT cass_bool_t cass_value_is_collection(const CassValue *value);

/** Tells whether the value is a duration.
 * @param[in] value The value.
 * @return cass_true for a duration.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT cass_bool_t cass_value_is_duration(const CassValue *value);

/** Counts the items of a list or set, the entries of a map, or the fields of a tuple or user type.
 * @param[in] collection The value.
 * @return The count; 0 for other types and for null.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT size_t cass_value_item_count(const CassValue *collection);

/** Gets the item type of a list or set, or the key type of a map.
 * @param[in] collection The value.
 * @return The type, or CASS_VALUE_TYPE_UNKNOWN for a value that is not a collection.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassValueType cass_value_primary_sub_type(const CassValue *collection);

/** Gets the value type of a map.
 * @param[in] collection The value.
 * @return The type, or CASS_VALUE_TYPE_UNKNOWN for a value that is not a map.
 * Ownership: nothing changes hands.
 * Threads: any thread; the value is read-only. */
CASS_EXPORT CassValueType cass_value_secondary_sub_type(const CassValue *collection);

/* ============================================================================================== *
 * Iterator
 *
 * An iterator walks the rows of a result, the columns of a row, or the items of a collection, map
 * or tuple; it starts before the first item, so call cass_iterator_next() first. What a getter
 * returns stays valid until the next call to cass_iterator_next() and never beyond the object
 * iterated. The iterators over schema metadata are listed with it.
 * ============================================================================================== */

/** Frees an iterator.
 * @param[in] iterator The iterator to free; NULL does nothing.
 * Ownership: the iterator is gone after the call; the object it walked is not affected.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT void cass_iterator_free(CassIterator *iterator);

/** Tells what the iterator walks.
 * @param[in] iterator The iterator.
 * @return Its type.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT CassIteratorType cass_iterator_type(CassIterator *iterator);

/** Creates an iterator over the rows of a result.
 * @param[in] result The result.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before freeing the result.
 * Threads: any thread. */
CASS_EXPORT CassIterator *cass_iterator_from_result(const CassResult *result);

/** Creates an iterator over the column values of a row.
 * @param[in] row The row.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before freeing the result.
 * Threads: any thread. */
CASS_EXPORT CassIterator *cass_iterator_from_row(const CassRow *row);

/** Creates an iterator over the items of a list or set; over a map it yields key, value, key,
 * value...
 * @param[in] value A collection value.
 * @return A new iterator, or NULL when value is not a collection.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before freeing the result.
 * Threads: any thread. */
CASS_EXPORT CassIterator *cass_iterator_from_collection(const CassValue *value);

/** Creates an iterator over the entries of a map (see cass_iterator_get_map_key()).
 * @param[in] value A map value.
 * @return A new iterator, or NULL when value is not a map.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before freeing the result.
 * Threads: any thread. */
CASS_EXPORT CassIterator *cass_iterator_from_map(const CassValue *value);

/** Creates an iterator over the items of a tuple.
 * @param[in] value A tuple value.
 * @return A new iterator, or NULL when value is not a tuple.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before freeing the result.
 * Threads: any thread. */
CASS_EXPORT CassIterator *cass_iterator_from_tuple(const CassValue *value);

/** Moves to the next item, ending what the getters returned for the previous one.
 * @param[in] iterator The iterator.
 * @return cass_true when there is an item, cass_false past the last.
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT cass_bool_t cass_iterator_next(CassIterator *iterator);

/** Gets the current row of a result iterator.
 * @param[in] iterator The iterator.
 * @return The row.
 * Ownership: the row is borrowed and ends at the next cass_iterator_next() or
 *     cass_iterator_free(); its values' bytes live as long as the result.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT const CassRow *cass_iterator_get_row(const CassIterator *iterator);

/** Gets the current column value of a row iterator.
 * @param[in] iterator The iterator.
 * @return The value.
 * Ownership: what the getter returns is borrowed from the object iterated.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT const CassValue *cass_iterator_get_column(const CassIterator *iterator);

/** Gets the current item of a collection or tuple iterator.
 * @param[in] iterator The iterator.
 * @return The value.
 * Ownership: what the getter returns is borrowed from the object iterated.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT const CassValue *cass_iterator_get_value(const CassIterator *iterator);

/** Gets the key of the current entry of a map iterator.
 * @param[in] iterator The iterator.
 * @return The key.
 * Ownership: what the getter returns is borrowed from the object iterated.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT const CassValue *cass_iterator_get_map_key(const CassIterator *iterator);

/** Gets the value of the current entry of a map iterator.
 * @param[in] iterator The iterator.
 * @return The value.
 * Ownership: what the getter returns is borrowed from the object iterated.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT const CassValue *cass_iterator_get_map_value(const CassIterator *iterator);

/** Creates an iterator over the fields of a user-defined type value, in the type's field order;
 * read each with cass_iterator_get_user_type_field_name() and
 * cass_iterator_get_user_type_field_value(). Fields missing from the end of the value read as null.
 * @param[in] value A value of a user-defined type.
 * @return The iterator, or NULL when value is NULL, null or not of a user-defined type.
 * Ownership: the caller frees the iterator with cass_iterator_free(); it borrows from the value's
 *     result, which must outlive it.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT CassIterator *cass_iterator_fields_from_user_type(const CassValue *value);

/** Gets the name of the current field of a user type field iterator.
 * @param[in] iterator The iterator.
 * @param[out] name The field's name, not NUL-terminated.
 * @param[out] name_length Its length in bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when the iterator is not a user type field iterator
 *     standing on a field.
 * Ownership: the name is borrowed from the value's type and lives as long as the result.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT CassError cass_iterator_get_user_type_field_name(const CassIterator *iterator,
                                                             const char **name,
                                                             size_t *name_length);

/** Gets the current field value of a user type field iterator.
 * @param[in] iterator The iterator.
 * @return The value.
 * Ownership: what the getter returns is borrowed from the object iterated.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT const CassValue *cass_iterator_get_user_type_field_value(const CassIterator *iterator);

/** Gets the current user type of an iterator from cass_iterator_user_types_from_keyspace_meta().
 * @param[in] iterator The iterator.
 * @return The user type's data type.
 * Ownership: the type is borrowed; it lives as long as the schema snapshot.
 * Threads: one thread at a time per iterator; several iterators may walk one result at once. */
CASS_EXPORT const CassDataType *cass_iterator_get_user_type(const CassIterator *iterator);

/* ============================================================================================== *
 * Collection
 *
 * A collection is a list, set or map value built to be bound or nested. Items are appended in
 * order; for a map append a key, then its value, and so on. A collection made from a data type
 * checks each item against it; one made with cass_collection_new() does not, and the server checks
 * it when the statement runs. Appends return CASS_ERROR_LIB_INVALID_VALUE_TYPE when the
 * collection's type does not take the item.
 * ============================================================================================== */

/** Creates an empty, untyped list, set or map.
 * @param[in] type CASS_COLLECTION_TYPE_LIST, _SET or _MAP.
 * @param[in] item_count How many items to make room for (for a map, entries); a hint only.
 * @return A new collection, or NULL if memory ran out.
 * Ownership: the caller frees the collection with cass_collection_free().
 * Threads: any thread. */
CASS_EXPORT CassCollection *cass_collection_new(CassCollectionType type, size_t item_count);

/** Creates an empty collection of the given list, set or map type; appends are checked against its
 * sub-types.
 * @param[in] data_type A list, set or map type; copied.
 * @param[in] item_count How many items to make room for; a hint only.
 * @return A new collection, or NULL when data_type is not a collection type.
 * Ownership: the caller frees the collection with cass_collection_free().
 * Threads: any thread. */
CASS_EXPORT CassCollection *cass_collection_new_from_data_type(const CassDataType *data_type,
                                                               size_t item_count);

/** Frees a collection. It may be freed as soon as it has been bound or appended.
 * @param[in] collection The collection to free; NULL does nothing.
 * Ownership: the collection is gone after the call.
 * Threads: one thread at a time per collection. */
CASS_EXPORT void cass_collection_free(CassCollection *collection);

/** Gets the collection's data type.
 * @param[in] collection The collection.
 * @return The type.
 * Ownership: the type is borrowed; it lives as long as the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT const CassDataType *cass_collection_data_type(const CassCollection *collection);

/** Appends a "tinyint".
 * @param[in] collection The collection.
 * @param[in] value The value.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_int8(CassCollection *collection, cass_int8_t value);

/** Appends a "smallint".
 * @param[in] collection The collection.
 * @param[in] value The value.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_int16(CassCollection *collection, cass_int16_t value);

/** Appends an "int".
 * @param[in] collection The collection.
 * @param[in] value The value.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_int32(CassCollection *collection, cass_int32_t value);

/** Appends a "date".
 * @param[in] collection The collection.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_uint32(CassCollection *collection,
                                                    cass_uint32_t value);

/** Appends a "bigint", "counter", "timestamp" or "time".
 * @param[in] collection The collection.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_int64(CassCollection *collection, cass_int64_t value);

/** Appends a "float".
 * @param[in] collection The collection.
 * @param[in] value The value.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_float(CassCollection *collection, cass_float_t value);

/** Appends a "double".
 * @param[in] collection The collection.
 * @param[in] value The value.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_double(CassCollection *collection,
                                                    cass_double_t value);

/** Appends a "boolean".
 * @param[in] collection The collection.
 * @param[in] value The value.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_bool(CassCollection *collection, cass_bool_t value);

/** Appends an "ascii", "text" or "varchar".
 * @param[in] collection The collection.
 * @param[in] value The text, NUL-terminated; UTF-8 (ASCII for an ascii column).
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_string(CassCollection *collection, const char *value);

/** Same as cass_collection_append_string(), with the length given.
 * @param[in] collection The collection.
 * @param[in] value The text; UTF-8 (ASCII for an ascii column).
 * @param[in] value_length Length of value in bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_string_n(CassCollection *collection, const char *value,
                                                      size_t value_length);

/** Appends a "blob", "varint" or custom value, as raw bytes.
 * @param[in] collection The collection.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_bytes(CassCollection *collection,
                                                   const cass_byte_t *value, size_t value_size);

/** Appends a value of a custom type.
 * @param[in] collection The collection.
 * @param[in] class_name The type's Java class name, NUL-terminated.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_custom(CassCollection *collection,
                                                    const char *class_name,
                                                    const cass_byte_t *value, size_t value_size);

/** Same as cass_collection_append_custom(), with the length given.
 * @param[in] collection The collection.
 * @param[in] class_name The type's Java class name.
 * @param[in] class_name_length Length of class_name in bytes.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_custom_n(CassCollection *collection,
                                                      const char *class_name,
                                                      size_t class_name_length,
                                                      const cass_byte_t *value, size_t value_size);

/** Appends a "uuid" or "timeuuid".
 * @param[in] collection The collection.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_uuid(CassCollection *collection, CassUuid value);

/** Appends an "inet".
 * @param[in] collection The collection.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_inet(CassCollection *collection, CassInet value);

/** Appends a "decimal".
 * @param[in] collection The collection.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_decimal(CassCollection *collection,
                                                     const cass_byte_t *varint, size_t varint_size,
                                                     cass_int32_t scale);

/** Appends a "duration".
 * @param[in] collection The collection.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_duration(CassCollection *collection,
                                                      cass_int32_t months, cass_int32_t days,
                                                      cass_int64_t nanos);

/** Appends a "list", "set" or "map".
 * @param[in] collection The collection.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_collection(CassCollection *collection,
                                                        const CassCollection *value);

/** Appends a "tuple".
 * @param[in] collection The collection.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_tuple(CassCollection *collection,
                                                   const CassTuple *value);

/** Appends a user-defined type value.
 * @param[in] collection The collection.
 * @param[in] value The value; its fields are copied.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the collection.
 * Threads: one thread at a time per collection. */
CASS_EXPORT CassError cass_collection_append_user_type(CassCollection *collection,
                                                       const CassUserType *value);

/* ============================================================================================== *
 * Tuple
 *
 * A tuple value built to be bound or nested. Items are set by position. A tuple made from a data
 * type checks each item against it; one made with cass_tuple_new() does not. Setters return
 * CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS for an index past the last item and
 * CASS_ERROR_LIB_INVALID_VALUE_TYPE when the item's type does not take the value.
 * ============================================================================================== */

/** Creates an untyped tuple of item_count items, all null.
 * @param[in] item_count Number of items.
 * @return A new tuple, or NULL if memory ran out.
 * Ownership: the caller frees the tuple with cass_tuple_free().
 * Threads: any thread. */
CASS_EXPORT CassTuple *cass_tuple_new(size_t item_count);

/** Creates a tuple of the given tuple type, all items null; sets are checked against it.
 * @param[in] data_type A tuple type; copied.
 * @return A new tuple, or NULL when data_type is not a tuple type.
 * Ownership: the caller frees the tuple with cass_tuple_free().
 * Threads: any thread. */
CASS_EXPORT CassTuple *cass_tuple_new_from_data_type(const CassDataType *data_type);

/** Frees a tuple. It may be freed as soon as it has been bound or set.
 * @param[in] tuple The tuple to free; NULL does nothing.
 * Ownership: the tuple is gone after the call.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT void cass_tuple_free(CassTuple *tuple);

/** Gets the tuple's data type.
 * @param[in] tuple The tuple.
 * @return The type.
 * Ownership: the type is borrowed; it lives as long as the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT const CassDataType *cass_tuple_data_type(const CassTuple *tuple);

/** Sets the item at index to null.
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @return CASS_OK, or CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_null(CassTuple *tuple, size_t index);

/** Sets the item at index to a "tinyint".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_int8(CassTuple *tuple, size_t index, cass_int8_t value);

/** Sets the item at index to a "smallint".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_int16(CassTuple *tuple, size_t index, cass_int16_t value);

/** Sets the item at index to an "int".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_int32(CassTuple *tuple, size_t index, cass_int32_t value);

/** Sets the item at index to a "date".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_uint32(CassTuple *tuple, size_t index, cass_uint32_t value);

/** Sets the item at index to a "bigint", "counter", "timestamp" or "time".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_int64(CassTuple *tuple, size_t index, cass_int64_t value);

/** Sets the item at index to a "float".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_float(CassTuple *tuple, size_t index, cass_float_t value);

/** Sets the item at index to a "double".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_double(CassTuple *tuple, size_t index, cass_double_t value);

/** Sets the item at index to a "boolean".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_bool(CassTuple *tuple, size_t index, cass_bool_t value);

/** Sets the item at index to an "ascii", "text" or "varchar".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The text, NUL-terminated; UTF-8 (ASCII for an ascii column).
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_string(CassTuple *tuple, size_t index, const char *value);

/** Same as cass_tuple_set_string(), with the length given.
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The text; UTF-8 (ASCII for an ascii column).
 * @param[in] value_length Length of value in bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_string_n(CassTuple *tuple, size_t index, const char *value,
                                              size_t value_length);

/** Sets the item at index to a "blob", "varint" or custom value, as raw bytes.
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_bytes(CassTuple *tuple, size_t index, const cass_byte_t *value,
                                           size_t value_size);

/** Sets the item at index to a value of a custom type.
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] class_name The type's Java class name, NUL-terminated.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_custom(CassTuple *tuple, size_t index, const char *class_name,
                                            const cass_byte_t *value, size_t value_size);

/** Same as cass_tuple_set_custom(), with the length given.
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] class_name The type's Java class name.
 * @param[in] class_name_length Length of class_name in bytes.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_custom_n(CassTuple *tuple, size_t index,
                                              const char *class_name, size_t class_name_length,
                                              const cass_byte_t *value, size_t value_size);

/** Sets the item at index to a "uuid" or "timeuuid".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_uuid(CassTuple *tuple, size_t index, CassUuid value);

/** Sets the item at index to an "inet".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_inet(CassTuple *tuple, size_t index, CassInet value);

/** Sets the item at index to a "decimal".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_decimal(CassTuple *tuple, size_t index,
                                             const cass_byte_t *varint, size_t varint_size,
                                             cass_int32_t scale);

/** Sets the item at index to a "duration".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_duration(CassTuple *tuple, size_t index, cass_int32_t months,
                                              cass_int32_t days, cass_int64_t nanos);

/** Sets the item at index to a "list", "set" or "map".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_collection(CassTuple *tuple, size_t index,
                                                const CassCollection *value);

/** Sets the item at index to a "tuple".
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_tuple(CassTuple *tuple, size_t index, const CassTuple *value);

/** Sets the item at index to a user-defined type value.
 * @param[in] tuple The tuple.
 * @param[in] index Zero-based position.
 * @param[in] value The value; its fields are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the item is copied into the tuple.
 * Threads: one thread at a time per tuple. */
CASS_EXPORT CassError cass_tuple_set_user_type(CassTuple *tuple, size_t index,
                                               const CassUserType *value);

/* ============================================================================================== *
 * User type
 *
 * A user-defined type value built to be bound or nested, made from the type's data type (from the
 * schema metadata or cass_data_type_new_udt()). Fields are set by position or by name; unset fields
 * are null. Names match case-insensitively unless written in double quotes. Setters return
 * CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS for an index past the last field,
 * CASS_ERROR_LIB_NAME_DOES_NOT_EXIST for a name no field has, and CASS_ERROR_LIB_INVALID_VALUE_TYPE
 * when the field's type does not take the value.
 * ============================================================================================== */

/** Creates a value of a user-defined type, all fields null.
 * @param[in] data_type A user-defined type; copied.
 * @return A new value, or NULL when data_type is not a user-defined type.
 * Ownership: the caller frees the value with cass_user_type_free().
 * Threads: any thread. */
CASS_EXPORT CassUserType *cass_user_type_new_from_data_type(const CassDataType *data_type);

/** Frees a user type value. It may be freed as soon as it has been bound or set.
 * @param[in] user_type The value to free; NULL does nothing.
 * Ownership: the value is gone after the call.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT void cass_user_type_free(CassUserType *user_type);

/** Gets the value's user-defined type.
 * @param[in] user_type The value.
 * @return The type.
 * Ownership: the type is borrowed; it lives as long as the value.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT const CassDataType *cass_user_type_data_type(const CassUserType *user_type);

/** Sets the field at index to a null.
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @return CASS_OK, or CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_null(CassUserType *user_type, size_t index);

/** Sets the field named name to a null.
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_NAME_DOES_NOT_EXIST.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_null_by_name(CassUserType *user_type, const char *name);

/** Same as cass_user_type_set_null_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @return CASS_OK, or CASS_ERROR_LIB_NAME_DOES_NOT_EXIST.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_null_by_name_n(CassUserType *user_type, const char *name,
                                                        size_t name_length);

/** Sets the field at index to a "tinyint".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int8(CassUserType *user_type, size_t index,
                                              cass_int8_t value);

/** Sets the field named name to a "tinyint".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int8_by_name(CassUserType *user_type, const char *name,
                                                      cass_int8_t value);

/** Same as cass_user_type_set_int8_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int8_by_name_n(CassUserType *user_type, const char *name,
                                                        size_t name_length, cass_int8_t value);

/** Sets the field at index to a "smallint".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int16(CassUserType *user_type, size_t index,
                                               cass_int16_t value);

/** Sets the field named name to a "smallint".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int16_by_name(CassUserType *user_type, const char *name,
                                                       cass_int16_t value);

/** Same as cass_user_type_set_int16_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int16_by_name_n(CassUserType *user_type, const char *name,
                                                         size_t name_length, cass_int16_t value);

/** Sets the field at index to an "int".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int32(CassUserType *user_type, size_t index,
                                               cass_int32_t value);

/** Sets the field named name to an "int".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int32_by_name(CassUserType *user_type, const char *name,
                                                       cass_int32_t value);

/** Same as cass_user_type_set_int32_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int32_by_name_n(CassUserType *user_type, const char *name,
                                                         size_t name_length, cass_int32_t value);

/** Sets the field at index to a "date".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_uint32(CassUserType *user_type, size_t index,
                                                cass_uint32_t value);

/** Sets the field named name to a "date".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_uint32_by_name(CassUserType *user_type, const char *name,
                                                        cass_uint32_t value);

/** Same as cass_user_type_set_uint32_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value Days since -5877641-06-23, the Unix epoch being 2^31 (see
 *     cass_date_from_epoch()).
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_uint32_by_name_n(CassUserType *user_type, const char *name,
                                                          size_t name_length, cass_uint32_t value);

/** Sets the field at index to a "bigint", "counter", "timestamp" or "time".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int64(CassUserType *user_type, size_t index,
                                               cass_int64_t value);

/** Sets the field named name to a "bigint", "counter", "timestamp" or "time".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int64_by_name(CassUserType *user_type, const char *name,
                                                       cass_int64_t value);

/** Same as cass_user_type_set_int64_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The number; milliseconds since the Unix epoch for a timestamp, nanoseconds since
 *     midnight for a time.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_int64_by_name_n(CassUserType *user_type, const char *name,
                                                         size_t name_length, cass_int64_t value);

/** Sets the field at index to a "float".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_float(CassUserType *user_type, size_t index,
                                               cass_float_t value);

/** Sets the field named name to a "float".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_float_by_name(CassUserType *user_type, const char *name,
                                                       cass_float_t value);

/** Same as cass_user_type_set_float_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_float_by_name_n(CassUserType *user_type, const char *name,
                                                         size_t name_length, cass_float_t value);

/** Sets the field at index to a "double".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_double(CassUserType *user_type, size_t index,
                                                cass_double_t value);

/** Sets the field named name to a "double".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_double_by_name(CassUserType *user_type, const char *name,
                                                        cass_double_t value);

/** Same as cass_user_type_set_double_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_double_by_name_n(CassUserType *user_type, const char *name,
                                                          size_t name_length, cass_double_t value);

/** Sets the field at index to a "boolean".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_bool(CassUserType *user_type, size_t index,
                                              cass_bool_t value);

/** Sets the field named name to a "boolean".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_bool_by_name(CassUserType *user_type, const char *name,
                                                      cass_bool_t value);

/** Same as cass_user_type_set_bool_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_bool_by_name_n(CassUserType *user_type, const char *name,
                                                        size_t name_length, cass_bool_t value);

/** Sets the field at index to an "ascii", "text" or "varchar".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The text, NUL-terminated; UTF-8 (ASCII for an ascii column).
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_string(CassUserType *user_type, size_t index,
                                                const char *value);

/** Same as cass_user_type_set_string(), with the length given.
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The text; UTF-8 (ASCII for an ascii column).
 * @param[in] value_length Length of value in bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_string_n(CassUserType *user_type, size_t index,
                                                  const char *value, size_t value_length);

/** Sets the field named name to an "ascii", "text" or "varchar".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The text, NUL-terminated; UTF-8 (ASCII for an ascii column).
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_string_by_name(CassUserType *user_type, const char *name,
                                                        const char *value);

/** Same as cass_user_type_set_string_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The text; UTF-8 (ASCII for an ascii column).
 * @param[in] value_length Length of value in bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_string_by_name_n(CassUserType *user_type, const char *name,
                                                          size_t name_length, const char *value,
                                                          size_t value_length);

/** Sets the field at index to a "blob", "varint" or custom value, as raw bytes.
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_bytes(CassUserType *user_type, size_t index,
                                               const cass_byte_t *value, size_t value_size);

/** Sets the field named name to a "blob", "varint" or custom value, as raw bytes.
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_bytes_by_name(CassUserType *user_type, const char *name,
                                                       const cass_byte_t *value, size_t value_size);

/** Same as cass_user_type_set_bytes_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The bytes in the native protocol's encoding of the type.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_bytes_by_name_n(CassUserType *user_type, const char *name,
                                                         size_t name_length,
                                                         const cass_byte_t *value,
                                                         size_t value_size);

/** Sets the field at index to a value of a custom type.
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] class_name The type's Java class name, NUL-terminated.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_custom(CassUserType *user_type, size_t index,
                                                const char *class_name, const cass_byte_t *value,
                                                size_t value_size);

/** Same as cass_user_type_set_custom(), with the length given.
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] class_name The type's Java class name.
 * @param[in] class_name_length Length of class_name in bytes.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_custom_n(CassUserType *user_type, size_t index,
                                                  const char *class_name, size_t class_name_length,
                                                  const cass_byte_t *value, size_t value_size);

/** Sets the field named name to a value of a custom type.
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] class_name The type's Java class name, NUL-terminated.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_custom_by_name(CassUserType *user_type, const char *name,
                                                        const char *class_name,
                                                        const cass_byte_t *value,
                                                        size_t value_size);

/** Same as cass_user_type_set_custom_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] class_name The type's Java class name.
 * @param[in] class_name_length Length of class_name in bytes.
 * @param[in] value The serialized value.
 * @param[in] value_size Number of bytes.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_custom_by_name_n(
    CassUserType *user_type, const char *name, size_t name_length, const char *class_name,
    size_t class_name_length, const cass_byte_t *value, size_t value_size);

/** Sets the field at index to a "uuid" or "timeuuid".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_uuid(CassUserType *user_type, size_t index,
                                              CassUuid value);

/** Sets the field named name to a "uuid" or "timeuuid".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_uuid_by_name(CassUserType *user_type, const char *name,
                                                      CassUuid value);

/** Same as cass_user_type_set_uuid_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The UUID; version 1 for a timeuuid.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_uuid_by_name_n(CassUserType *user_type, const char *name,
                                                        size_t name_length, CassUuid value);

/** Sets the field at index to an "inet".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_inet(CassUserType *user_type, size_t index,
                                              CassInet value);

/** Sets the field named name to an "inet".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_inet_by_name(CassUserType *user_type, const char *name,
                                                      CassInet value);

/** Same as cass_user_type_set_inet_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The IPv4 or IPv6 address.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_inet_by_name_n(CassUserType *user_type, const char *name,
                                                        size_t name_length, CassInet value);

/** Sets the field at index to a "decimal".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_decimal(CassUserType *user_type, size_t index,
                                                 const cass_byte_t *varint, size_t varint_size,
                                                 int scale);

/** Sets the field named name to a "decimal".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_decimal_by_name(CassUserType *user_type, const char *name,
                                                         const cass_byte_t *varint,
                                                         size_t varint_size, int scale);

/** Same as cass_user_type_set_decimal_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] varint The unscaled value, big-endian two's complement.
 * @param[in] varint_size Number of bytes in varint.
 * @param[in] scale Digits after the point: the value is varint * 10^-scale.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_decimal_by_name_n(CassUserType *user_type,
                                                           const char *name, size_t name_length,
                                                           const cass_byte_t *varint,
                                                           size_t varint_size, int scale);

/** Sets the field at index to a "duration".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_duration(CassUserType *user_type, size_t index,
                                                  cass_int32_t months, cass_int32_t days,
                                                  cass_int64_t nanos);

/** Sets the field named name to a "duration".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_duration_by_name(CassUserType *user_type, const char *name,
                                                          cass_int32_t months, cass_int32_t days,
                                                          cass_int64_t nanos);

/** Same as cass_user_type_set_duration_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] months Months.
 * @param[in] days Days.
 * @param[in] nanos Nanoseconds; the three parts must not differ in sign.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_duration_by_name_n(CassUserType *user_type,
                                                            const char *name, size_t name_length,
                                                            cass_int32_t months, cass_int32_t days,
                                                            cass_int64_t nanos);

/** Sets the field at index to a "list", "set" or "map".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_collection(CassUserType *user_type, size_t index,
                                                    const CassCollection *value);

/** Sets the field named name to a "list", "set" or "map".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_collection_by_name(CassUserType *user_type,
                                                            const char *name,
                                                            const CassCollection *value);

/** Same as cass_user_type_set_collection_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_collection_by_name_n(CassUserType *user_type,
                                                              const char *name, size_t name_length,
                                                              const CassCollection *value);

/** Sets the field at index to a "tuple".
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_tuple(CassUserType *user_type, size_t index,
                                               const CassTuple *value);

/** Sets the field named name to a "tuple".
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_tuple_by_name(CassUserType *user_type, const char *name,
                                                       const CassTuple *value);

/** Same as cass_user_type_set_tuple_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value; its items are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_tuple_by_name_n(CassUserType *user_type, const char *name,
                                                         size_t name_length,
                                                         const CassTuple *value);

/** Sets the field at index to a user-defined type value.
 * @param[in] user_type The user type value.
 * @param[in] index Zero-based position.
 * @param[in] value The value; its fields are copied.
 * @return CASS_OK, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_user_type(CassUserType *user_type, size_t index,
                                                   const CassUserType *value);

/** Sets the field named name to a user-defined type value.
 * @param[in] user_type The user type value.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] value The value; its fields are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_user_type_by_name(CassUserType *user_type,
                                                           const char *name,
                                                           const CassUserType *value);

/** Same as cass_user_type_set_user_type_by_name(), with lengths given.
 * @param[in] user_type The user type value.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] value The value; its fields are copied.
 * @return CASS_OK, CASS_ERROR_LIB_NAME_DOES_NOT_EXIST or CASS_ERROR_LIB_INVALID_VALUE_TYPE.
 * Ownership: the value is copied into the user type.
 * Threads: one thread at a time per user type value. */
CASS_EXPORT CassError cass_user_type_set_user_type_by_name_n(CassUserType *user_type,
                                                             const char *name, size_t name_length,
                                                             const CassUserType *value);

/* ============================================================================================== *
 * Data type
 *
 * A data type describes a CQL type: a simple type, or a list, set, map, tuple or user-defined type
 * with its sub-types. Data types read from results, prepared statements or metadata are borrowed;
 * those made here belong to the caller and are built up with the add functions.
 * ============================================================================================== */

/** Creates a data type of the given kind; a list, set, map, tuple or user-defined type starts with
 * no sub-types.
 * @param[in] type The kind of type.
 * @return A new data type, or NULL for CASS_VALUE_TYPE_UNKNOWN or if memory ran out.
 * Ownership: the caller frees the type with cass_data_type_free().
 * Threads: any thread. */
CASS_EXPORT CassDataType *cass_data_type_new(CassValueType type);

/** Creates a deep copy of a data type, for instance to change one read from metadata.
 * @param[in] data_type The type to copy.
 * @return A new data type.
 * Ownership: the caller frees the copy with cass_data_type_free().
 * Threads: any thread. */
CASS_EXPORT CassDataType *cass_data_type_new_from_existing(const CassDataType *data_type);

/** Creates a tuple type with no item types yet; add them with cass_data_type_add_sub_type().
 * @param[in] item_count How many item types to make room for; a hint only.
 * @return A new data type.
 * Ownership: the caller frees the type with cass_data_type_free().
 * Threads: any thread. */
CASS_EXPORT CassDataType *cass_data_type_new_tuple(size_t item_count);

/** Creates a user-defined type with no fields yet; add them with
 * cass_data_type_add_sub_type_by_name().
 * @param[in] field_count How many fields to make room for; a hint only.
 * @return A new data type.
 * Ownership: the caller frees the type with cass_data_type_free().
 * Threads: any thread. */
CASS_EXPORT CassDataType *cass_data_type_new_udt(size_t field_count);

/** Frees a data type made by a cass_data_type_new* function.
 * @param[in] data_type The type to free; NULL does nothing.
 * Ownership: the type is gone after the call; collections, tuples and values made from it keep
 *     their own copy.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT void cass_data_type_free(CassDataType *data_type);

/** Gets the kind of type.
 * @param[in] data_type The data type.
 * @return The kind.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassValueType cass_data_type_type(const CassDataType *data_type);

/** Tells whether the type is frozen<...>.
 * @param[in] data_type The data type.
 * @return cass_true when frozen.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT cass_bool_t cass_data_type_is_frozen(const CassDataType *data_type);

/** Gets the name of a user-defined type.
 * @param[in] data_type The data type.
 * @param[out] type_name Receives the name, not NUL-terminated.
 * @param[out] type_name_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when the type is not a user-defined type.
 * Ownership: the name is borrowed; it lives as long as the data type.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_type_name(const CassDataType *data_type,
                                               const char **type_name, size_t *type_name_length);

/** Sets the name of a user-defined type.
 * @param[in] data_type The data type.
 * @param[in] type_name The name, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when the type is not a user-defined type.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_set_type_name(CassDataType *data_type, const char *type_name);

/** Same as cass_data_type_set_type_name(), with the length given.
 * @param[in] data_type The data type.
 * @param[in] type_name The name.
 * @param[in] type_name_length Length of type_name in bytes.
 * @return As cass_data_type_set_type_name().
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_set_type_name_n(CassDataType *data_type, const char *type_name,
                                                     size_t type_name_length);

/** Gets the keyspace of a user-defined type.
 * @param[in] data_type The data type.
 * @param[out] keyspace Receives the keyspace name, not NUL-terminated.
 * @param[out] keyspace_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when the type is not a user-defined type.
 * Ownership: the name is borrowed; it lives as long as the data type.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_keyspace(const CassDataType *data_type, const char **keyspace,
                                              size_t *keyspace_length);

/** Sets the keyspace of a user-defined type.
 * @param[in] data_type The data type.
 * @param[in] keyspace The keyspace name, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when the type is not a user-defined type.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_set_keyspace(CassDataType *data_type, const char *keyspace);

/** Same as cass_data_type_set_keyspace(), with the length given.
 * @param[in] data_type The data type.
 * @param[in] keyspace The keyspace name.
 * @param[in] keyspace_length Length of keyspace in bytes.
 * @return As cass_data_type_set_keyspace().
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_set_keyspace_n(CassDataType *data_type, const char *keyspace,
                                                    size_t keyspace_length);

/** Gets the Java class name of a custom type.
 * @param[in] data_type The data type.
 * @param[out] class_name Receives the class name, not NUL-terminated.
 * @param[out] class_name_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when the type is not a custom type.
 * Ownership: the name is borrowed; it lives as long as the data type.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_class_name(const CassDataType *data_type,
                                                const char **class_name, size_t *class_name_length);

/** Sets the Java class name of a custom type.
 * @param[in] data_type The data type.
 * @param[in] class_name The class name, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when the type is not a custom type.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_set_class_name(CassDataType *data_type,
                                                    const char *class_name);

/** Same as cass_data_type_set_class_name(), with the length given.
 * @param[in] data_type The data type.
 * @param[in] class_name The class name.
 * @param[in] class_name_length Length of class_name in bytes.
 * @return As cass_data_type_set_class_name().
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_set_class_name_n(CassDataType *data_type,
                                                      const char *class_name,
                                                      size_t class_name_length);

/** Counts the sub-types: item types of a list, set or tuple, key and value of a map, fields of a
 * user-defined type.
 * @param[in] data_type The data type.
 * @return The count; 0 for a simple type.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT size_t cass_data_type_sub_type_count(const CassDataType *data_type);

/** Deprecated in the driver: the old name of cass_data_type_sub_type_count().
 * @param[in] data_type The data type.
 * @return As cass_data_type_sub_type_count().
 * Ownership: nothing changes hands.
 * Threads: as cass_data_type_sub_type_count(). */
CASS_EXPORT CASS_DEPRECATED(size_t cass_data_sub_type_count(const CassDataType *data_type));

/** Gets the sub-type at index.
 * @param[in] data_type The data type.
 * @param[in] index Zero-based position.
 * @return The sub-type, or NULL when index is out of range.
 * Ownership: the sub-type is borrowed; it lives as long as data_type.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT const CassDataType *cass_data_type_sub_data_type(const CassDataType *data_type,
                                                             size_t index);

/** Gets the type of the user-defined type's field named name.
 * @param[in] data_type The data type.
 * @param[in] name Field name, NUL-terminated.
 * @return The field's type, or NULL when there is no such field or the type is not a user-defined
 *     type.
 * Ownership: the sub-type is borrowed; it lives as long as data_type.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT const CassDataType *cass_data_type_sub_data_type_by_name(const CassDataType *data_type,
                                                                     const char *name);

/** Same as cass_data_type_sub_data_type_by_name(), with the name's length given.
 * @param[in] data_type The data type.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @return As cass_data_type_sub_data_type_by_name().
 * Ownership: the sub-type is borrowed; it lives as long as data_type.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT const CassDataType *
cass_data_type_sub_data_type_by_name_n(const CassDataType *data_type, const char *name,
                                       size_t name_length);

/** Gets the name of the user-defined type's field at index.
 * @param[in] data_type The data type.
 * @param[in] index Zero-based position.
 * @param[out] name Receives the field name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * @return CASS_OK; CASS_ERROR_LIB_INVALID_VALUE_TYPE when the type is not a user-defined type;
 *     CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS.
 * Ownership: the name is borrowed; it lives as long as data_type.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_sub_type_name(const CassDataType *data_type, size_t index,
                                                   const char **name, size_t *name_length);

/** Adds the next sub-type of a list, set, map or tuple: the item type, or for a map the key type,
 * then the value type.
 * @param[in] data_type The data type.
 * @param[in] sub_data_type The sub-type; copied.
 * @return CASS_OK; CASS_ERROR_LIB_INVALID_VALUE_TYPE when data_type is not a list, set, map or
 *     tuple; CASS_ERROR_LIB_BAD_PARAMS when a list or set already has its item type or a map its
 *     key and value types.
 * Ownership: sub_data_type is copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_add_sub_type(CassDataType *data_type,
                                                  const CassDataType *sub_data_type);

/** Adds a field to a user-defined type.
 * @param[in] data_type The data type.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] sub_data_type Its type; copied.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when data_type is not a user-defined type.
 * Ownership: the name and sub_data_type are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_add_sub_type_by_name(CassDataType *data_type, const char *name,
                                                          const CassDataType *sub_data_type);

/** Same as cass_data_type_add_sub_type_by_name(), with the name's length given.
 * @param[in] data_type The data type.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] sub_data_type Its type; copied.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when data_type is not a user-defined type.
 * Ownership: the name and sub_data_type are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_add_sub_type_by_name_n(CassDataType *data_type,
                                                            const char *name, size_t name_length,
                                                            const CassDataType *sub_data_type);

/** Same as cass_data_type_add_sub_type(), for a simple sub-type given by kind.
 * @param[in] data_type The data type.
 * @param[in] sub_value_type The kind of the sub-type.
 * @return CASS_OK; CASS_ERROR_LIB_INVALID_VALUE_TYPE when data_type is not a list, set, map or
 *     tuple; CASS_ERROR_LIB_BAD_PARAMS when a list or set already has its item type or a map its
 *     key and value types.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_add_sub_value_type(CassDataType *data_type,
                                                        CassValueType sub_value_type);

/** Same as cass_data_type_add_sub_type_by_name(), for a field of a simple type given by kind.
 * @param[in] data_type The data type.
 * @param[in] name Field name, NUL-terminated.
 * @param[in] sub_value_type The kind of its type.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when data_type is not a user-defined type.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_add_sub_value_type_by_name(CassDataType *data_type,
                                                                const char *name,
                                                                CassValueType sub_value_type);

/** Same as cass_data_type_add_sub_value_type_by_name(), with the name's length given.
 * @param[in] data_type The data type.
 * @param[in] name Field name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] sub_value_type The kind of its type.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_VALUE_TYPE when data_type is not a user-defined type.
 * Ownership: nothing changes hands; names passed in are copied.
 * Threads: one thread at a time while a data type is built; a finished one may be read from any
 *     thread. */
CASS_EXPORT CassError cass_data_type_add_sub_value_type_by_name_n(CassDataType *data_type,
                                                                  const char *name,
                                                                  size_t name_length,
                                                                  CassValueType sub_value_type);

/* ============================================================================================== *
 * UUID
 *
 * Version 1 (time-based) and version 4 (random) UUIDs, built on libuuid. Times are milliseconds
 * since the Unix epoch.
 * ============================================================================================== */

/** Creates a UUID generator whose version 1 node comes from this host (random when it cannot be
 * determined). Time UUIDs from one generator strictly increase, across threads.
 * @return A new generator, or NULL if memory ran out.
 * Ownership: the caller frees the generator with cass_uuid_gen_free().
 * Threads: any thread. */
CASS_EXPORT CassUuidGen *cass_uuid_gen_new(void);

/** Creates a UUID generator with a given node for version 1 UUIDs.
 * @param[in] node The node; its low 48 bits are used.
 * @return A new generator, or NULL if memory ran out.
 * Ownership: the caller frees the generator with cass_uuid_gen_free().
 * Threads: any thread. */
CASS_EXPORT CassUuidGen *cass_uuid_gen_new_with_node(cass_uint64_t node);

/** Frees a UUID generator.
 * @param[in] uuid_gen The generator to free; NULL does nothing.
 * Ownership: the generator is gone after the call.
 * Threads: one thread, once no other thread uses the generator. */
CASS_EXPORT void cass_uuid_gen_free(CassUuidGen *uuid_gen);

/** Makes a version 1 UUID for the current time, greater than every one the generator made before.
 * @param[in] uuid_gen The UUID generator.
 * @param[out] output Receives the UUID.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT void cass_uuid_gen_time(CassUuidGen *uuid_gen, CassUuid *output);

/** Makes a random version 4 UUID.
 * @param[in] uuid_gen The UUID generator.
 * @param[out] output Receives the UUID.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT void cass_uuid_gen_random(CassUuidGen *uuid_gen, CassUuid *output);

/** Makes a version 1 UUID for a given time, with the generator's node and clock sequence.
 * @param[in] uuid_gen The UUID generator.
 * @param[in] timestamp Milliseconds since the Unix epoch.
 * @param[out] output Receives the UUID.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT void cass_uuid_gen_from_time(CassUuidGen *uuid_gen, cass_uint64_t timestamp,
                                         CassUuid *output);

/** Makes the smallest version 1 UUID of a millisecond, as CQL's minTimeuuid() does, for range
 * queries on a timeuuid column.
 * @param[in] time Milliseconds since the Unix epoch.
 * @param[out] output Receives the UUID.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT void cass_uuid_min_from_time(cass_uint64_t time, CassUuid *output);

/** Makes the largest version 1 UUID of a millisecond, as CQL's maxTimeuuid() does.
 * @param[in] time Milliseconds since the Unix epoch.
 * @param[out] output Receives the UUID.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT void cass_uuid_max_from_time(cass_uint64_t time, CassUuid *output);

/** Gets the time of a version 1 UUID.
 * @param[in] uuid The UUID.
 * @return Milliseconds since the Unix epoch; 0 when uuid is not version 1.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT cass_uint64_t cass_uuid_timestamp(CassUuid uuid);

/** Gets the version of a UUID.
 * @param[in] uuid The UUID.
 * @return The version, 1 to 5 for RFC 4122 UUIDs.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT cass_uint8_t cass_uuid_version(CassUuid uuid);

/** Writes a UUID in its canonical text form, lowercase with dashes.
 * @param[in] uuid The UUID.
 * @param[out] output Receives the text and a NUL; at least CASS_UUID_STRING_LENGTH bytes.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT void cass_uuid_string(CassUuid uuid, char *output);

/** Parses a UUID in its canonical text form, for example "550e8400-e29b-41d4-a716-446655440000".
 * @param[in] str The text, NUL-terminated.
 * @param[out] output Receives the UUID.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when str is not a UUID.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT CassError cass_uuid_from_string(const char *str, CassUuid *output);

/** Same as cass_uuid_from_string(), with the length given.
 * @param[in] str The text.
 * @param[in] str_length Length of str in bytes.
 * @param[out] output Receives the UUID.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when str is not a UUID.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT CassError cass_uuid_from_string_n(const char *str, size_t str_length, CassUuid *output);

/* ============================================================================================== *
 * Inet, date and time
 * ============================================================================================== */

/** Makes an IPv4 address from its 4 bytes.
 * @param[in] address CASS_INET_V4_LENGTH bytes in network order.
 * @return The address.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT CassInet cass_inet_init_v4(const cass_uint8_t *address);

/** Makes an IPv6 address from its 16 bytes.
 * @param[in] address CASS_INET_V6_LENGTH bytes in network order.
 * @return The address.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT CassInet cass_inet_init_v6(const cass_uint8_t *address);

/** Writes an address in text form: dotted for IPv4, RFC 5952 for IPv6.
 * @param[in] inet The address.
 * @param[out] output Receives the text and a NUL; at least CASS_INET_STRING_LENGTH bytes.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT void cass_inet_string(CassInet inet, char *output);

/** Parses an IPv4 or IPv6 address, for example "127.0.0.1" or "::1".
 * @param[in] str The text, NUL-terminated.
 * @param[out] output Receives the address.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when str is not an address.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT CassError cass_inet_from_string(const char *str, CassInet *output);

/** Same as cass_inet_from_string(), with the length given.
 * @param[in] str The text.
 * @param[in] str_length Length of str in bytes.
 * @param[out] output Receives the address.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when str is not an address.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT CassError cass_inet_from_string_n(const char *str, size_t str_length, CassInet *output);

/** Converts a Unix time to a CQL "date": the day it falls on (UTC), counted from -5877641-06-23 so
 * that the Unix epoch is 2^31.
 * @param[in] epoch_secs Seconds since the Unix epoch.
 * @return The date.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT cass_uint32_t cass_date_from_epoch(cass_int64_t epoch_secs);

/** Converts a Unix time to a CQL "time": the time of day (UTC) it falls on.
 * @param[in] epoch_secs Seconds since the Unix epoch.
 * @return Nanoseconds since midnight, 0 to 86399999999999.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT cass_int64_t cass_time_from_epoch(cass_int64_t epoch_secs);

/** Combines a CQL "date" and "time" into a Unix time.
 * @param[in] date The date (the Unix epoch is 2^31).
 * @param[in] time Nanoseconds since midnight.
 * @return Seconds since the Unix epoch; negative before 1970.
 * Ownership: nothing changes hands.
 * Threads: any thread. */
CASS_EXPORT cass_int64_t cass_date_time_to_epoch(cass_uint32_t date, cass_int64_t time);

/* ============================================================================================== *
 * Errors and logging
 *
 * Names of codes and levels, the details of server-side failures, the log and the allocator. An
 * error result comes from cass_future_get_error_result(); each of its fields means something only
 * for the codes listed.
 * ============================================================================================== */

/** Replaces the allocator of cassette's own memory (LMDB and libuuid keep the C library's). Call it
 * before any other function of this API, or not at all.
 * @param[in] malloc_func Replacement for malloc().
 * @param[in] realloc_func Replacement for realloc().
 * @param[in] free_func Replacement for free().
 * Ownership: the functions must stay valid while the library is in use.
 * Threads: not thread-safe: call it once, before anything else. */
CASS_EXPORT void cass_alloc_set_functions(CassMallocFunction malloc_func,
                                          CassReallocFunction realloc_func,
                                          CassFreeFunction free_func);

/** Names a consistency level, as CASS_CONSISTENCY_MAPPING does ("ONE", "QUORUM"...).
 * @param[in] consistency The level.
 * @return The name; "" for a value that is not a level.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT const char *cass_consistency_string(CassConsistency consistency);

/** Names a write type ("SIMPLE", "BATCH"...).
 * @param[in] write_type The write type.
 * @return The name; "" for CASS_WRITE_TYPE_UNKNOWN or a value that is not a write type.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT const char *cass_write_type_string(CassWriteType write_type);

/** Describes an error code with the text of CASS_ERROR_MAPPING; for the message of one failure use
 * cass_future_error_message().
 * @param[in] error The code.
 * @return The description; "" for CASS_OK or an unknown code.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT const char *cass_error_desc(CassError error);

/** Frees an error result.
 * @param[in] error_result The error result to free; NULL does nothing.
 * Ownership: the error result and strings read from it are gone after the call.
 * Threads: any thread. */
CASS_EXPORT void cass_error_result_free(const CassErrorResult *error_result);

/** Gets the failure's code, always a CASS_ERROR_SERVER_* code.
 * @param[in] error_result The error result.
 * @return The code.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT CassError cass_error_result_code(const CassErrorResult *error_result);

/** Gets the consistency level of a read or write timeout or failure, or of an unavailable error.
 * @param[in] error_result The error result.
 * @return The level; unspecified for other codes.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT CassConsistency cass_error_result_consistency(const CassErrorResult *error_result);

/** Gets the replicas that answered (timeouts and failures) or were alive (unavailable).
 * @param[in] error_result The error result.
 * @return The count; unspecified for other codes.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT cass_int32_t cass_error_result_responses_received(const CassErrorResult *error_result);

/** Gets the replicas the consistency level required, for the same codes as
 * cass_error_result_responses_received().
 * @param[in] error_result The error result.
 * @return The count; unspecified for other codes.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT cass_int32_t cass_error_result_responses_required(const CassErrorResult *error_result);

/** Gets the replicas that failed, for a read or write failure.
 * @param[in] error_result The error result.
 * @return The count; unspecified for other codes.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT cass_int32_t cass_error_result_num_failures(const CassErrorResult *error_result);

/** Tells whether the replica asked for data answered, for a read timeout or failure.
 * @param[in] error_result The error result.
 * @return cass_true when it did; unspecified for other codes.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT cass_bool_t cass_error_result_data_present(const CassErrorResult *error_result);

/** Gets the kind of write of a write timeout or failure.
 * @param[in] error_result The error result.
 * @return The write type; unspecified for other codes.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT CassWriteType cass_error_result_write_type(const CassErrorResult *error_result);

/** Gets the keyspace of an already-exists error or a function failure.
 * @param[in] error_result The error result.
 * @param[out] keyspace Receives the name, not NUL-terminated.
 * @param[out] keyspace_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE for other codes.
 * Ownership: the name is borrowed; it lives as long as the error result.
 * Threads: any thread. */
CASS_EXPORT CassError cass_error_result_keyspace(const CassErrorResult *error_result,
                                                 const char **keyspace, size_t *keyspace_length);

/** Gets the table of an already-exists error; empty when a keyspace already existed.
 * @param[in] error_result The error result.
 * @param[out] table Receives the name, not NUL-terminated.
 * @param[out] table_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE for other codes.
 * Ownership: the name is borrowed; it lives as long as the error result.
 * Threads: any thread. */
CASS_EXPORT CassError cass_error_result_table(const CassErrorResult *error_result,
                                              const char **table, size_t *table_length);

/** Gets the function of a function failure.
 * @param[in] error_result The error result.
 * @param[out] function Receives the name, not NUL-terminated.
 * @param[out] function_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE for other codes.
 * Ownership: the name is borrowed; it lives as long as the error result.
 * Threads: any thread. */
CASS_EXPORT CassError cass_error_result_function(const CassErrorResult *error_result,
                                                 const char **function, size_t *function_length);

/** Counts the argument types of the function of a function failure.
 * @param[in] error_result The error result.
 * @return The count; 0 for other codes.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT size_t cass_error_num_arg_types(const CassErrorResult *error_result);

/** Gets the CQL name of an argument type of the function of a function failure.
 * @param[in] error_result The error result.
 * @param[in] index Zero-based position.
 * @param[out] arg_type Receives the type name, not NUL-terminated.
 * @param[out] arg_type_length Receives its length.
 * @return CASS_OK; CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS; CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE for
 *     other codes.
 * Ownership: the name is borrowed; it lives as long as the error result.
 * Threads: any thread. */
CASS_EXPORT CassError cass_error_result_arg_type(const CassErrorResult *error_result, size_t index,
                                                 const char **arg_type, size_t *arg_type_length);

/** Deprecated by the driver, where it no longer does anything; does nothing here either.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT CASS_DEPRECATED(void cass_log_cleanup(void));

/** Sets the most verbose level delivered (default CASS_LOG_WARN); CASS_LOG_DISABLED turns the log
 * off. Set it before the calls whose messages matter.
 * @param[in] log_level The level.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread; it applies to messages logged afterwards. */
CASS_EXPORT void cass_log_set_level(CassLogLevel log_level);

/** Sends log messages to callback instead of the default, which prints them to stderr. The callback
 * runs in whichever thread logs: embedded, usually the thread making the call.
 * @param[in] callback The function to call; NULL discards every message.
 * @param[in] data Passed to callback as is.
 * Ownership: data stays the caller's and must outlive its use by the log.
 * Threads: any thread; set it before other calls, since messages in flight may still reach the old
 *     callback. */
CASS_EXPORT void cass_log_set_callback(CassLogCallback callback, void *data);

/** Deprecated by the driver, where it no longer does anything; does nothing here either.
 * @param[in] queue_size Ignored.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT CASS_DEPRECATED(void cass_log_set_queue_size(size_t queue_size));

/** Names a log level ("ERROR", "WARN"...).
 * @param[in] log_level The level.
 * @return The name; "" for CASS_LOG_DISABLED or a value that is not a level.
 * Ownership: nothing changes hands; strings returned are static.
 * Threads: any thread. */
CASS_EXPORT const char *cass_log_level_string(CassLogLevel log_level);

/* ============================================================================================== *
 * Schema metadata
 *
 * A schema snapshot (cass_session_get_schema_meta()) describes keyspaces, tables, columns, user-
 * defined types, secondary indexes, materialized views, user-defined functions and aggregates as
 * the system_schema tables do; it never changes. Everything read from it is borrowed and lives as
 * long as the snapshot. Names are matched exactly, as stored (unquoted CQL names are stored in
 * lowercase). Embedded, the engine has no secondary indexes, views, functions or aggregates: their
 * lookups find nothing and their iterators are empty; a remote backend sees the server's.
 * ============================================================================================== */

/** Frees a schema snapshot, and with it all the metadata read from it.
 * @param[in] schema_meta The snapshot to free; NULL does nothing.
 * Ownership: the snapshot is gone after the call.
 * Threads: one thread, once no other thread reads the snapshot. */
CASS_EXPORT void cass_schema_meta_free(const CassSchemaMeta *schema_meta);

/** Gets the snapshot's version, which grows with each schema change the session has seen.
 * @param[in] schema_meta The schema snapshot.
 * @return The version.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT cass_uint32_t cass_schema_meta_snapshot_version(const CassSchemaMeta *schema_meta);

/** Gets the Cassandra release the database reports, as in system.local's release_version.
 * @param[in] schema_meta The schema snapshot.
 * @return The release.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT CassVersion cass_schema_meta_version(const CassSchemaMeta *schema_meta);

/** Finds a keyspace.
 * @param[in] schema_meta The schema snapshot.
 * @param[in] keyspace Keyspace name, NUL-terminated.
 * @return Its metadata, or NULL when there is no such keyspace.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassKeyspaceMeta *
cass_schema_meta_keyspace_by_name(const CassSchemaMeta *schema_meta, const char *keyspace);

/** Same as cass_schema_meta_keyspace_by_name(), with the length given.
 * @param[in] schema_meta The schema snapshot.
 * @param[in] keyspace Keyspace name.
 * @param[in] keyspace_length Length of keyspace in bytes.
 * @return Its metadata, or NULL when there is no such keyspace.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassKeyspaceMeta *
cass_schema_meta_keyspace_by_name_n(const CassSchemaMeta *schema_meta, const char *keyspace,
                                    size_t keyspace_length);

/** Gets the keyspace's name.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_keyspace_meta_name(const CassKeyspaceMeta *keyspace_meta, const char **name,
                                         size_t *name_length);

/** Tells whether the keyspace is virtual (system_views, system_virtual_schema).
 * @param[in] keyspace_meta The keyspace's metadata.
 * @return cass_true for a virtual keyspace.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT cass_bool_t cass_keyspace_meta_is_virtual(const CassKeyspaceMeta *keyspace_meta);

/** Finds a table of the keyspace.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] table Table name, NUL-terminated.
 * @return Its metadata, or NULL when there is no such table.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassTableMeta *
cass_keyspace_meta_table_by_name(const CassKeyspaceMeta *keyspace_meta, const char *table);

/** Same as cass_keyspace_meta_table_by_name(), with the length given.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] table Table name.
 * @param[in] table_length Length of table in bytes.
 * @return Its metadata, or NULL when there is no such table.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassTableMeta *
cass_keyspace_meta_table_by_name_n(const CassKeyspaceMeta *keyspace_meta, const char *table,
                                   size_t table_length);

/** Finds a materialized view of the keyspace.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] view View name, NUL-terminated.
 * @return Its metadata, or NULL when there is no such view.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassMaterializedViewMeta *
cass_keyspace_meta_materialized_view_by_name(const CassKeyspaceMeta *keyspace_meta,
                                             const char *view);

/** Same as cass_keyspace_meta_materialized_view_by_name(), with the length given.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] view View name.
 * @param[in] view_length Length of view in bytes.
 * @return Its metadata, or NULL when there is no such view.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassMaterializedViewMeta *
cass_keyspace_meta_materialized_view_by_name_n(const CassKeyspaceMeta *keyspace_meta,
                                               const char *view, size_t view_length);

/** Finds a user-defined type of the keyspace, ready for cass_user_type_new_from_data_type().
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] type Type name, NUL-terminated.
 * @return The type, or NULL when there is no such type.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_keyspace_meta_user_type_by_name(const CassKeyspaceMeta *keyspace_meta, const char *type);

/** Same as cass_keyspace_meta_user_type_by_name(), with the length given.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] type Type name.
 * @param[in] type_length Length of type in bytes.
 * @return The type, or NULL when there is no such type.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_keyspace_meta_user_type_by_name_n(const CassKeyspaceMeta *keyspace_meta, const char *type,
                                       size_t type_length);

/** Finds a user-defined function of the keyspace by name and argument types.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] name Function name, NUL-terminated.
 * @param[in] arguments Its argument types, comma-separated CQL names ("text,int"), NUL-terminated.
 * @return Its metadata, or NULL when there is no such function.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassFunctionMeta *
cass_keyspace_meta_function_by_name(const CassKeyspaceMeta *keyspace_meta, const char *name,
                                    const char *arguments);

/** Same as cass_keyspace_meta_function_by_name(), with lengths given.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] name Function name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] arguments Its argument types, comma-separated.
 * @param[in] arguments_length Length of arguments in bytes.
 * @return Its metadata, or NULL when there is no such function.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassFunctionMeta *
cass_keyspace_meta_function_by_name_n(const CassKeyspaceMeta *keyspace_meta, const char *name,
                                      size_t name_length, const char *arguments,
                                      size_t arguments_length);

/** Finds a user-defined aggregate of the keyspace by name and argument types.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] name Aggregate name, NUL-terminated.
 * @param[in] arguments Its argument types, comma-separated CQL names, NUL-terminated.
 * @return Its metadata, or NULL when there is no such aggregate.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassAggregateMeta *
cass_keyspace_meta_aggregate_by_name(const CassKeyspaceMeta *keyspace_meta, const char *name,
                                     const char *arguments);

/** Same as cass_keyspace_meta_aggregate_by_name(), with lengths given.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] name Aggregate name.
 * @param[in] name_length Length of name in bytes.
 * @param[in] arguments Its argument types, comma-separated.
 * @param[in] arguments_length Length of arguments in bytes.
 * @return Its metadata, or NULL when there is no such aggregate.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassAggregateMeta *
cass_keyspace_meta_aggregate_by_name_n(const CassKeyspaceMeta *keyspace_meta, const char *name,
                                       size_t name_length, const char *arguments,
                                       size_t arguments_length);

/** Reads a column of the keyspace's row in system_schema.keyspaces ("durable_writes",
 * "replication").
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_keyspace_meta_field_by_name(const CassKeyspaceMeta *keyspace_meta,
                                                              const char *name);

/** Same as cass_keyspace_meta_field_by_name(), with the length given.
 * @param[in] keyspace_meta The keyspace's metadata.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *
cass_keyspace_meta_field_by_name_n(const CassKeyspaceMeta *keyspace_meta, const char *name,
                                   size_t name_length);

/** Gets the table's name.
 * @param[in] table_meta The table's metadata.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_table_meta_name(const CassTableMeta *table_meta, const char **name,
                                      size_t *name_length);

/** Tells whether the table is a virtual table.
 * @param[in] table_meta The table's metadata.
 * @return cass_true for a virtual table.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT cass_bool_t cass_table_meta_is_virtual(const CassTableMeta *table_meta);

/** Finds a column of the table.
 * @param[in] table_meta The table's metadata.
 * @param[in] column Column name, NUL-terminated.
 * @return Its metadata, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *cass_table_meta_column_by_name(const CassTableMeta *table_meta,
                                                                 const char *column);

/** Same as cass_table_meta_column_by_name(), with the length given.
 * @param[in] table_meta The table's metadata.
 * @param[in] column Column name.
 * @param[in] column_length Length of column in bytes.
 * @return Its metadata, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *cass_table_meta_column_by_name_n(const CassTableMeta *table_meta,
                                                                   const char *column,
                                                                   size_t column_length);

/** Counts the table's columns.
 * @param[in] table_meta The table's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t cass_table_meta_column_count(const CassTableMeta *table_meta);

/** Gets the column at index: partition key columns first, then clustering columns, then the others
 * by name.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *cass_table_meta_column(const CassTableMeta *table_meta,
                                                         size_t index);

/** Finds a secondary index of the table.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Index name, NUL-terminated.
 * @return Its metadata, or NULL when there is no such index.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassIndexMeta *cass_table_meta_index_by_name(const CassTableMeta *table_meta,
                                                               const char *index);

/** Same as cass_table_meta_index_by_name(), with the length given.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Index name.
 * @param[in] index_length Length of index in bytes.
 * @return Its metadata, or NULL when there is no such index.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassIndexMeta *cass_table_meta_index_by_name_n(const CassTableMeta *table_meta,
                                                                 const char *index,
                                                                 size_t index_length);

/** Counts the table's secondary indexes.
 * @param[in] table_meta The table's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t cass_table_meta_index_count(const CassTableMeta *table_meta);

/** Gets the secondary index at index.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassIndexMeta *cass_table_meta_index(const CassTableMeta *table_meta,
                                                       size_t index);

/** Finds a materialized view built on the table.
 * @param[in] table_meta The table's metadata.
 * @param[in] view View name, NUL-terminated.
 * @return Its metadata, or NULL when there is no such view.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassMaterializedViewMeta *
cass_table_meta_materialized_view_by_name(const CassTableMeta *table_meta, const char *view);

/** Same as cass_table_meta_materialized_view_by_name(), with the length given.
 * @param[in] table_meta The table's metadata.
 * @param[in] view View name.
 * @param[in] view_length Length of view in bytes.
 * @return Its metadata, or NULL when there is no such view.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassMaterializedViewMeta *
cass_table_meta_materialized_view_by_name_n(const CassTableMeta *table_meta, const char *view,
                                            size_t view_length);

/** Counts the materialized views built on the table.
 * @param[in] table_meta The table's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t cass_table_meta_materialized_view_count(const CassTableMeta *table_meta);

/** Gets the materialized view at index.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassMaterializedViewMeta *
cass_table_meta_materialized_view(const CassTableMeta *table_meta, size_t index);

/** Counts the partition key columns.
 * @param[in] table_meta The table's metadata.
 * @return The count, at least 1.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t cass_table_meta_partition_key_count(const CassTableMeta *table_meta);

/** Gets the partition key column at index, in key order.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *cass_table_meta_partition_key(const CassTableMeta *table_meta,
                                                                size_t index);

/** Counts the clustering columns.
 * @param[in] table_meta The table's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t cass_table_meta_clustering_key_count(const CassTableMeta *table_meta);

/** Gets the clustering column at index, in key order.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *cass_table_meta_clustering_key(const CassTableMeta *table_meta,
                                                                 size_t index);

/** Gets the order of the clustering column at index.
 * @param[in] table_meta The table's metadata.
 * @param[in] index Zero-based position.
 * @return CASS_CLUSTERING_ORDER_ASC or _DESC; CASS_CLUSTERING_ORDER_NONE when index is out of
 *     range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT CassClusteringOrder
cass_table_meta_clustering_key_order(const CassTableMeta *table_meta, size_t index);

/** Reads a column of the table's row in system_schema.tables ("comment",
 * "default_time_to_live"...).
 * @param[in] table_meta The table's metadata.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_table_meta_field_by_name(const CassTableMeta *table_meta,
                                                           const char *name);

/** Same as cass_table_meta_field_by_name(), with the length given.
 * @param[in] table_meta The table's metadata.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_table_meta_field_by_name_n(const CassTableMeta *table_meta,
                                                             const char *name, size_t name_length);

/** Gets the column's name.
 * @param[in] column_meta The column's metadata.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_column_meta_name(const CassColumnMeta *column_meta, const char **name,
                                       size_t *name_length);

/** Gets the column's role: partition key, clustering, static or regular.
 * @param[in] column_meta The column's metadata.
 * @return The role.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT CassColumnType cass_column_meta_type(const CassColumnMeta *column_meta);

/** Gets the column's CQL type.
 * @param[in] column_meta The column's metadata.
 * @return The type.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *cass_column_meta_data_type(const CassColumnMeta *column_meta);

/** Reads a column of the column's row in system_schema.columns ("kind", "clustering_order"...).
 * @param[in] column_meta The column's metadata.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_column_meta_field_by_name(const CassColumnMeta *column_meta,
                                                            const char *name);

/** Same as cass_column_meta_field_by_name(), with the length given.
 * @param[in] column_meta The column's metadata.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_column_meta_field_by_name_n(const CassColumnMeta *column_meta,
                                                              const char *name, size_t name_length);

/** Gets the materialized view's name.
 * @param[in] view_meta The view's metadata.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_materialized_view_meta_name(const CassMaterializedViewMeta *view_meta,
                                                  const char **name, size_t *name_length);

/** Gets the table the materialized view is built on (its row's base_table_name).
 * @param[in] view_meta The view's metadata.
 * @return The base table's metadata.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassTableMeta *
cass_materialized_view_meta_base_table(const CassMaterializedViewMeta *view_meta);

/** Finds a column of the materialized view.
 * @param[in] view_meta The view's metadata.
 * @param[in] column Column name, NUL-terminated.
 * @return Its metadata, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *
cass_materialized_view_meta_column_by_name(const CassMaterializedViewMeta *view_meta,
                                           const char *column);

/** Same as cass_materialized_view_meta_column_by_name(), with the length given.
 * @param[in] view_meta The view's metadata.
 * @param[in] column Column name.
 * @param[in] column_length Length of column in bytes.
 * @return Its metadata, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *
cass_materialized_view_meta_column_by_name_n(const CassMaterializedViewMeta *view_meta,
                                             const char *column, size_t column_length);

/** Counts the materialized view's columns.
 * @param[in] view_meta The view's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t
cass_materialized_view_meta_column_count(const CassMaterializedViewMeta *view_meta);

/** Gets the view's column at index, in the order of cass_table_meta_column(): partition key,
 * clustering columns, then the others by name.
 * @param[in] view_meta The view's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *
cass_materialized_view_meta_column(const CassMaterializedViewMeta *view_meta, size_t index);

/** Counts the view's partition key columns.
 * @param[in] view_meta The view's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t
cass_materialized_view_meta_partition_key_count(const CassMaterializedViewMeta *view_meta);

/** Gets the view's partition key column at index, in key order.
 * @param[in] view_meta The view's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *
cass_materialized_view_meta_partition_key(const CassMaterializedViewMeta *view_meta, size_t index);

/** Counts the view's clustering columns.
 * @param[in] view_meta The view's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t
cass_materialized_view_meta_clustering_key_count(const CassMaterializedViewMeta *view_meta);

/** Gets the view's clustering column at index, in key order.
 * @param[in] view_meta The view's metadata.
 * @param[in] index Zero-based position.
 * @return Its metadata, or NULL when index is out of range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassColumnMeta *
cass_materialized_view_meta_clustering_key(const CassMaterializedViewMeta *view_meta, size_t index);

/** Gets the order of the view's clustering column at index.
 * @param[in] view_meta The view's metadata.
 * @param[in] index Zero-based position.
 * @return CASS_CLUSTERING_ORDER_ASC or _DESC; CASS_CLUSTERING_ORDER_NONE when index is out of
 *     range.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT CassClusteringOrder cass_materialized_view_meta_clustering_key_order(
    const CassMaterializedViewMeta *view_meta, size_t index);

/** Reads a column of the view's row in system_schema.views ("base_table_name", "where_clause",
 * "include_all_columns"...).
 * @param[in] view_meta The view's metadata.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *
cass_materialized_view_meta_field_by_name(const CassMaterializedViewMeta *view_meta,
                                          const char *name);

/** Same as cass_materialized_view_meta_field_by_name(), with the length given.
 * @param[in] view_meta The view's metadata.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *
cass_materialized_view_meta_field_by_name_n(const CassMaterializedViewMeta *view_meta,
                                            const char *name, size_t name_length);

/** Gets the secondary index's name.
 * @param[in] index_meta The index's metadata.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_index_meta_name(const CassIndexMeta *index_meta, const char **name,
                                      size_t *name_length);

/** Gets the index's kind, read from its row's kind (KEYS, CUSTOM or COMPOSITES, in any case).
 * @param[in] index_meta The index's metadata.
 * @return The kind; CASS_INDEX_TYPE_UNKNOWN for any other.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT CassIndexType cass_index_meta_type(const CassIndexMeta *index_meta);

/** Gets what the index covers: the "target" entry of its options ("v", "keys(m)"...).
 * @param[in] index_meta The index's metadata.
 * @param[out] target Receives the target, not NUL-terminated; "" when the options have none.
 * @param[out] target_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_index_meta_target(const CassIndexMeta *index_meta, const char **target,
                                        size_t *target_length);

/** Gets the index's options, a map<text, text> value (its row's options).
 * @param[in] index_meta The index's metadata.
 * @return The value (null when the row's options are); NULL when the row has no options column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_index_meta_options(const CassIndexMeta *index_meta);

/** Reads a column of the index's row in system_schema.indexes ("kind", "options").
 * @param[in] index_meta The index's metadata.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_index_meta_field_by_name(const CassIndexMeta *index_meta,
                                                           const char *name);

/** Same as cass_index_meta_field_by_name(), with the length given.
 * @param[in] index_meta The index's metadata.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_index_meta_field_by_name_n(const CassIndexMeta *index_meta,
                                                             const char *name, size_t name_length);

/** Gets the user-defined function's name, without its signature.
 * @param[in] function_meta The function's metadata.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_function_meta_name(const CassFunctionMeta *function_meta, const char **name,
                                         size_t *name_length);

/** Gets the function's name with its signature: "name(type1,type2)", the argument types as
 * system_schema.functions writes them, blanks removed, separated by commas.
 * @param[in] function_meta The function's metadata.
 * @param[out] full_name Receives the full name, not NUL-terminated.
 * @param[out] full_name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_function_meta_full_name(const CassFunctionMeta *function_meta,
                                              const char **full_name, size_t *full_name_length);

/** Gets the function's body, its source text.
 * @param[in] function_meta The function's metadata.
 * @param[out] body Receives the body, not NUL-terminated; "" when the row has none.
 * @param[out] body_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_function_meta_body(const CassFunctionMeta *function_meta, const char **body,
                                         size_t *body_length);

/** Gets the language the function is written in ("java", "javascript").
 * @param[in] function_meta The function's metadata.
 * @param[out] language Receives the language, not NUL-terminated; "" when the row has none.
 * @param[out] language_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_function_meta_language(const CassFunctionMeta *function_meta,
                                             const char **language, size_t *language_length);

/** Tells whether the function is called when an argument is null (CALLED ON NULL INPUT) rather
 * than returning null (RETURNS NULL ON NULL INPUT).
 * @param[in] function_meta The function's metadata.
 * @return cass_true when it is called on null input.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT cass_bool_t
cass_function_meta_called_on_null_input(const CassFunctionMeta *function_meta);

/** Counts the function's arguments.
 * @param[in] function_meta The function's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t cass_function_meta_argument_count(const CassFunctionMeta *function_meta);

/** Gets the function's argument at index: its name and its type.
 * @param[in] function_meta The function's metadata.
 * @param[in] index Zero-based position.
 * @param[out] name Receives the argument's name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * @param[out] type Receives its type (NULL when its type text does not parse).
 * @return CASS_OK, or CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS when index is out of range (outputs left
 *     as they were).
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT CassError cass_function_meta_argument(const CassFunctionMeta *function_meta,
                                                  size_t index, const char **name,
                                                  size_t *name_length, const CassDataType **type);

/** Finds the type of the function's argument by the argument's name.
 * @param[in] function_meta The function's metadata.
 * @param[in] name Argument name, NUL-terminated.
 * @return Its type, or NULL when there is no such argument.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_function_meta_argument_type_by_name(const CassFunctionMeta *function_meta, const char *name);

/** Same as cass_function_meta_argument_type_by_name(), with the length given.
 * @param[in] function_meta The function's metadata.
 * @param[in] name Argument name.
 * @param[in] name_length Length of name in bytes.
 * @return Its type, or NULL when there is no such argument.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_function_meta_argument_type_by_name_n(const CassFunctionMeta *function_meta, const char *name,
                                           size_t name_length);

/** Gets the type the function returns.
 * @param[in] function_meta The function's metadata.
 * @return The type, or NULL when the row's return_type is missing or does not parse.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_function_meta_return_type(const CassFunctionMeta *function_meta);

/** Reads a column of the function's row in system_schema.functions ("body", "language"...).
 * @param[in] function_meta The function's metadata.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_function_meta_field_by_name(const CassFunctionMeta *function_meta,
                                                              const char *name);

/** Same as cass_function_meta_field_by_name(), with the length given.
 * @param[in] function_meta The function's metadata.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *
cass_function_meta_field_by_name_n(const CassFunctionMeta *function_meta, const char *name,
                                   size_t name_length);

/** Gets the user-defined aggregate's name, without its signature.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_aggregate_meta_name(const CassAggregateMeta *aggregate_meta,
                                          const char **name, size_t *name_length);

/** Gets the aggregate's name with its signature, "name(type1,type2)", formed as
 * cass_function_meta_full_name() forms a function's.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @param[out] full_name Receives the full name, not NUL-terminated.
 * @param[out] full_name_length Receives its length.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT void cass_aggregate_meta_full_name(const CassAggregateMeta *aggregate_meta,
                                               const char **full_name, size_t *full_name_length);

/** Counts the aggregate's arguments.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @return The count.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT size_t cass_aggregate_meta_argument_count(const CassAggregateMeta *aggregate_meta);

/** Gets the type of the aggregate's argument at index.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @param[in] index Zero-based position.
 * @return The type, or NULL when index is out of range or its type text does not parse.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_aggregate_meta_argument_type(const CassAggregateMeta *aggregate_meta, size_t index);

/** Gets the type the aggregate returns.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @return The type, or NULL when the row's return_type is missing or does not parse.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_aggregate_meta_return_type(const CassAggregateMeta *aggregate_meta);

/** Gets the type of the aggregate's state.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @return The type, or NULL when the row's state_type is missing or does not parse.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassDataType *
cass_aggregate_meta_state_type(const CassAggregateMeta *aggregate_meta);

/** Gets the aggregate's state function: the function of the same keyspace named by its
 * state_func whose arguments are the state type followed by the aggregate's arguments.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @return Its metadata, or NULL when the snapshot has no such function.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassFunctionMeta *
cass_aggregate_meta_state_func(const CassAggregateMeta *aggregate_meta);

/** Gets the aggregate's final function: the function of the same keyspace named by its
 * final_func that takes the state type alone.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @return Its metadata, or NULL when the aggregate has none or the snapshot has no such function.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassFunctionMeta *
cass_aggregate_meta_final_func(const CassAggregateMeta *aggregate_meta);

/** Gets the aggregate's initial state (INITCOND): from Cassandra 3.0 on, its CQL literal as a
 * text value; a blob initcond (older servers) reads as a value of the state type.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @return The value, never NULL for an aggregate; null (cass_value_is_null()) when there is none.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *cass_aggregate_meta_init_cond(const CassAggregateMeta *aggregate_meta);

/** Reads a column of the aggregate's row in system_schema.aggregates ("state_func",
 * "initcond"...).
 * @param[in] aggregate_meta The aggregate's metadata.
 * @param[in] name Column name, NUL-terminated.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *
cass_aggregate_meta_field_by_name(const CassAggregateMeta *aggregate_meta, const char *name);

/** Same as cass_aggregate_meta_field_by_name(), with the length given.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @param[in] name Column name.
 * @param[in] name_length Length of name in bytes.
 * @return The value, or NULL when there is no such column.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: any thread; a snapshot is read-only. */
CASS_EXPORT const CassValue *
cass_aggregate_meta_field_by_name_n(const CassAggregateMeta *aggregate_meta, const char *name,
                                    size_t name_length);

/** Creates an iterator over the snapshot's keyspaces (cass_iterator_get_keyspace_meta()).
 * @param[in] schema_meta The schema snapshot.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_keyspaces_from_schema_meta(const CassSchemaMeta *schema_meta);

/** Creates an iterator over the keyspace's tables (cass_iterator_get_table_meta()).
 * @param[in] keyspace_meta The keyspace's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_tables_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta);

/** Creates an iterator over the keyspace's user-defined types (cass_iterator_get_user_type()).
 * @param[in] keyspace_meta The keyspace's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_user_types_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta);

/** Creates an iterator over the columns of the keyspace's row in system_schema.keyspaces
 * (cass_iterator_get_meta_field_name(), cass_iterator_get_meta_field_value()).
 * @param[in] keyspace_meta The keyspace's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_fields_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta);

/** Creates an iterator over the table's columns, in the order of cass_table_meta_column()
 * (cass_iterator_get_column_meta()).
 * @param[in] table_meta The table's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *cass_iterator_columns_from_table_meta(const CassTableMeta *table_meta);

/** Creates an iterator over the columns of the table's row in system_schema.tables.
 * @param[in] table_meta The table's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *cass_iterator_fields_from_table_meta(const CassTableMeta *table_meta);

/** Creates an iterator over the columns of the column's row in system_schema.columns.
 * @param[in] column_meta The column's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *cass_iterator_fields_from_column_meta(const CassColumnMeta *column_meta);

/** Creates an iterator over the keyspace's materialized views, by name
 * (cass_iterator_get_materialized_view_meta()).
 * @param[in] keyspace_meta The keyspace's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_materialized_views_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta);

/** Creates an iterator over the keyspace's user-defined functions, by full name
 * (cass_iterator_get_function_meta()).
 * @param[in] keyspace_meta The keyspace's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_functions_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta);

/** Creates an iterator over the keyspace's user-defined aggregates, by full name
 * (cass_iterator_get_aggregate_meta()).
 * @param[in] keyspace_meta The keyspace's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_aggregates_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta);

/** Creates an iterator over the table's secondary indexes, by name
 * (cass_iterator_get_index_meta()).
 * @param[in] table_meta The table's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *cass_iterator_indexes_from_table_meta(const CassTableMeta *table_meta);

/** Creates an iterator over the materialized views built on the table, by name
 * (cass_iterator_get_materialized_view_meta()).
 * @param[in] table_meta The table's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_materialized_views_from_table_meta(const CassTableMeta *table_meta);

/** Creates an iterator over the view's columns, in the order of
 * cass_materialized_view_meta_column() (cass_iterator_get_column_meta()).
 * @param[in] view_meta The view's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_columns_from_materialized_view_meta(const CassMaterializedViewMeta *view_meta);

/** Creates an iterator over the columns of the view's row in system_schema.views.
 * @param[in] view_meta The view's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_fields_from_materialized_view_meta(const CassMaterializedViewMeta *view_meta);

/** Creates an iterator over the columns of the index's row in system_schema.indexes.
 * @param[in] index_meta The index's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *cass_iterator_fields_from_index_meta(const CassIndexMeta *index_meta);

/** Creates an iterator over the columns of the function's row in system_schema.functions.
 * @param[in] function_meta The function's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_fields_from_function_meta(const CassFunctionMeta *function_meta);

/** Creates an iterator over the columns of the aggregate's row in system_schema.aggregates.
 * @param[in] aggregate_meta The aggregate's metadata.
 * @return A new iterator.
 * Ownership: the caller frees the iterator with cass_iterator_free(), before the snapshot.
 * Threads: any thread; one thread at a time per iterator. */
CASS_EXPORT CassIterator *
cass_iterator_fields_from_aggregate_meta(const CassAggregateMeta *aggregate_meta);

/** Gets the current keyspace of a keyspace iterator.
 * @param[in] iterator The iterator.
 * @return Its metadata.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassKeyspaceMeta *cass_iterator_get_keyspace_meta(const CassIterator *iterator);

/** Gets the current table of a table iterator.
 * @param[in] iterator The iterator.
 * @return Its metadata.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassTableMeta *cass_iterator_get_table_meta(const CassIterator *iterator);

/** Gets the current column of a column iterator.
 * @param[in] iterator The iterator.
 * @return Its metadata.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassColumnMeta *cass_iterator_get_column_meta(const CassIterator *iterator);

/** Gets the current view of a materialized view iterator.
 * @param[in] iterator The iterator.
 * @return Its metadata; NULL before the first item or for another kind of iterator.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassMaterializedViewMeta *
cass_iterator_get_materialized_view_meta(const CassIterator *iterator);

/** Gets the current function of a function iterator.
 * @param[in] iterator The iterator.
 * @return Its metadata; NULL before the first item or for another kind of iterator.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassFunctionMeta *cass_iterator_get_function_meta(const CassIterator *iterator);

/** Gets the current aggregate of an aggregate iterator.
 * @param[in] iterator The iterator.
 * @return Its metadata; NULL before the first item or for another kind of iterator.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassAggregateMeta *cass_iterator_get_aggregate_meta(const CassIterator *iterator);

/** Gets the current index of a secondary index iterator.
 * @param[in] iterator The iterator.
 * @return Its metadata; NULL before the first item or for another kind of iterator.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassIndexMeta *cass_iterator_get_index_meta(const CassIterator *iterator);

/** Gets the name of the current field of a metadata field iterator.
 * @param[in] iterator The iterator.
 * @param[out] name Receives the name, not NUL-terminated.
 * @param[out] name_length Receives its length.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS when the iterator is not a field iterator.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT CassError cass_iterator_get_meta_field_name(const CassIterator *iterator,
                                                        const char **name, size_t *name_length);

/** Gets the value of the current field of a metadata field iterator.
 * @param[in] iterator The iterator.
 * @return The value.
 * Ownership: what is returned is borrowed from the snapshot; nothing is freed.
 * Threads: one thread at a time per iterator. */
CASS_EXPORT const CassValue *cass_iterator_get_meta_field_value(const CassIterator *iterator);

/* ============================================================================================== *
 * Timestamp generators
 *
 * Client-side write timestamps. Without a generator, or with the server-side one, the engine gives
 * each write a strictly increasing timestamp; a statement or batch timestamp overrides both.
 * ============================================================================================== */

/** Creates the generator that leaves timestamps to the database: the engine embedded, the
 * coordinator remote.
 * @return A new generator, or NULL if memory ran out.
 * Ownership: the caller frees what a _new function returns with cass_timestamp_gen_free().
 * Threads: any thread; a generator may serve many sessions at once. */
CASS_EXPORT CassTimestampGen *cass_timestamp_gen_server_side_new(void);

/** Creates a client-side generator of microsecond timestamps that strictly increase across threads;
 * if the clock stalls or steps back it keeps counting up, logging a warning once the drift passes 1
 * second (and every second after).
 * @return A new generator, or NULL if memory ran out.
 * Ownership: the caller frees what a _new function returns with cass_timestamp_gen_free().
 * Threads: any thread; a generator may serve many sessions at once. */
CASS_EXPORT CassTimestampGen *cass_timestamp_gen_monotonic_new(void);

/** Same as cass_timestamp_gen_monotonic_new(), with the drift warning's settings.
 * @param[in] warning_threshold_us Drift in microseconds before a warning; negative for none.
 * @param[in] warning_interval_ms Milliseconds between warnings; 0 or less for every millisecond.
 * @return A new generator, or NULL if memory ran out.
 * Ownership: the caller frees what a _new function returns with cass_timestamp_gen_free().
 * Threads: any thread; a generator may serve many sessions at once. */
CASS_EXPORT CassTimestampGen *
cass_timestamp_gen_monotonic_new_with_settings(cass_int64_t warning_threshold_us,
                                               cass_int64_t warning_interval_ms);

/** Frees the caller's generator; clusters it was set on keep their own reference.
 * @param[in] timestamp_gen The generator to free; NULL does nothing.
 * Ownership: the caller's reference is gone after the call.
 * Threads: any thread; a generator may serve many sessions at once. */
CASS_EXPORT void cass_timestamp_gen_free(CassTimestampGen *timestamp_gen);

/* ============================================================================================== *
 * Retry policies
 *
 * What the remote backend does when a request times out or too few replicas are alive. One embedded
 * node never does either, so embedded requests are never retried; the policies are accepted and
 * kept.
 * ============================================================================================== */

/** Creates the default policy: retry a read timeout once when enough replicas answered without the
 * data, a write timeout once when it was the batch log's, an unavailable error once on another
 * node; otherwise return the error.
 * @return A new policy, or NULL if memory ran out.
 * Ownership: the caller frees what a _new function returns with cass_retry_policy_free().
 * Threads: any thread; a policy may serve many sessions at once. */
CASS_EXPORT CassRetryPolicy *cass_retry_policy_default_new(void);

/** Deprecated by the driver: retries at a lower consistency level, which weakens guarantees.
 * @return A new policy, or NULL if memory ran out.
 * Ownership: the caller frees what a _new function returns with cass_retry_policy_free().
 * Threads: any thread; a policy may serve many sessions at once. */
CASS_EXPORT CASS_DEPRECATED(CassRetryPolicy *cass_retry_policy_downgrading_consistency_new(void));

/** Creates a policy that never retries: every error is returned.
 * @return A new policy, or NULL if memory ran out.
 * Ownership: the caller frees what a _new function returns with cass_retry_policy_free().
 * Threads: any thread; a policy may serve many sessions at once. */
CASS_EXPORT CassRetryPolicy *cass_retry_policy_fallthrough_new(void);

/** Creates a policy that logs, at CASS_LOG_INFO, each decision child_retry_policy makes.
 * @param[in] child_retry_policy The policy whose decisions are logged.
 * @return A new policy, or NULL when child_retry_policy is itself a logging policy.
 * Ownership: the new policy takes its own reference to the child; the caller still frees both.
 * Threads: any thread; a policy may serve many sessions at once. */
CASS_EXPORT CassRetryPolicy *cass_retry_policy_logging_new(CassRetryPolicy *child_retry_policy);

/** Frees the caller's policy; clusters and logging policies that use it keep their own reference.
 * @param[in] policy The policy to free; NULL does nothing.
 * Ownership: the caller's reference is gone after the call.
 * Threads: any thread; a policy may serve many sessions at once. */
CASS_EXPORT void cass_retry_policy_free(CassRetryPolicy *policy);

/* ============================================================================================== *
 * SSL
 *
 * TLS settings for connections of the remote backend. Embedded connections do not use them; they
 * are still checked as the driver checks them.
 * ============================================================================================== */

/** Creates a TLS context that verifies the server's certificate (CASS_SSL_VERIFY_PEER_CERT).
 * @return A new context, or NULL if memory ran out.
 * Ownership: the caller frees the context with cass_ssl_free().
 * Threads: any thread. */
CASS_EXPORT CassSsl *cass_ssl_new(void);

/** Same as cass_ssl_new(), leaving the initialization of the TLS library to the application.
 * @return A new context, or NULL if memory ran out.
 * Ownership: the caller frees the context with cass_ssl_free().
 * Threads: any thread. */
CASS_EXPORT CassSsl *cass_ssl_new_no_lib_init(void);

/** Frees the caller's context; clusters it was set on keep their own reference.
 * @param[in] ssl The context to free; NULL does nothing.
 * Ownership: the caller's reference is gone after the call.
 * Threads: one thread at a time per context. */
CASS_EXPORT void cass_ssl_free(CassSsl *ssl);

/** Adds a certificate that server certificates may be verified against.
 * @param[in] ssl The TLS context.
 * @param[in] cert The certificate, PEM, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_SSL_INVALID_CERT when cert is not a PEM certificate.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT CassError cass_ssl_add_trusted_cert(CassSsl *ssl, const char *cert);

/** Same as cass_ssl_add_trusted_cert(), with the length given.
 * @param[in] ssl The TLS context.
 * @param[in] cert The certificate, PEM.
 * @param[in] cert_length Length of cert in bytes.
 * @return CASS_OK, or CASS_ERROR_SSL_INVALID_CERT when cert is not a PEM certificate.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT CassError cass_ssl_add_trusted_cert_n(CassSsl *ssl, const char *cert,
                                                  size_t cert_length);

/** Chooses the checks made on the server's certificate (default CASS_SSL_VERIFY_PEER_CERT).
 * CASS_SSL_VERIFY_PEER_IDENTITY_DNS relies on reverse DNS and should not be used.
 * @param[in] ssl The TLS context.
 * @param[in] flags CassSslVerifyFlags values combined with |.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT void cass_ssl_set_verify_flags(CassSsl *ssl, int flags);

/** Sets the client certificate chain, the client's certificate first, for servers that authenticate
 * clients.
 * @param[in] ssl The TLS context.
 * @param[in] cert The chain, PEM, NUL-terminated.
 * @return CASS_OK, or CASS_ERROR_SSL_INVALID_CERT when cert is not a PEM certificate.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT CassError cass_ssl_set_cert(CassSsl *ssl, const char *cert);

/** Same as cass_ssl_set_cert(), with the length given.
 * @param[in] ssl The TLS context.
 * @param[in] cert The chain, PEM.
 * @param[in] cert_length Length of cert in bytes.
 * @return CASS_OK, or CASS_ERROR_SSL_INVALID_CERT when cert is not a PEM certificate.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT CassError cass_ssl_set_cert_n(CassSsl *ssl, const char *cert, size_t cert_length);

/** Sets the private key of the client certificate.
 * @param[in] ssl The TLS context.
 * @param[in] key The key, PEM, NUL-terminated.
 * @param[in] password Password of an encrypted key, NUL-terminated; "" for none.
 * @return CASS_OK, or CASS_ERROR_SSL_INVALID_PRIVATE_KEY when the key cannot be read.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT CassError cass_ssl_set_private_key(CassSsl *ssl, const char *key, const char *password);

/** Same as cass_ssl_set_private_key(), with lengths given.
 * @param[in] ssl The TLS context.
 * @param[in] key The key, PEM.
 * @param[in] key_length Length of key in bytes.
 * @param[in] password Password of an encrypted key.
 * @param[in] password_length Length of password in bytes.
 * @return CASS_OK, or CASS_ERROR_SSL_INVALID_PRIVATE_KEY when the key cannot be read.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT CassError cass_ssl_set_private_key_n(CassSsl *ssl, const char *key, size_t key_length,
                                                 const char *password, size_t password_length);

/** Refuses TLS versions older than min_version.
 * @param[in] ssl The TLS context.
 * @param[in] min_version The oldest version allowed.
 * @return CASS_OK, or CASS_ERROR_LIB_BAD_PARAMS for a version the TLS library cannot enforce.
 * Ownership: certificate and key text is copied.
 * Threads: one thread at a time per context. */
CASS_EXPORT CassError cass_ssl_set_min_protocol_version(CassSsl *ssl,
                                                        CassSslTlsVersion min_version);

/* ============================================================================================== *
 * Authenticator
 *
 * The exchange one connection of the remote backend runs with a node that asks for
 * authentication, through the callbacks of cass_cluster_set_authenticator_callbacks(). These
 * functions are called from inside those callbacks, on the handle they are given, which lives
 * until the cleanup callback returns. An embedded database authenticates nothing.
 * ============================================================================================== */

/** Gives the IP address of the node being authenticated.
 * @param[in] auth The exchange.
 * @param[out] address Receives the address (length 0 when the connection did not know it).
 * Ownership: the address is copied out.
 * Threads: the thread running the callback. */
CASS_EXPORT void cass_authenticator_address(const CassAuthenticator *auth, CassInet *address);

/** Gives the host name of the node being authenticated.
 * @param[in] auth The exchange.
 * @param[out] length Receives the name's length in bytes; may be NULL.
 * @return The name, NUL-terminated ("" when the connection has none).
 * Ownership: valid until the cleanup callback returns; owned by the exchange.
 * Threads: the thread running the callback. */
CASS_EXPORT const char *cass_authenticator_hostname(const CassAuthenticator *auth, size_t *length);

/** Gives the server-side authenticator class the node named in its AUTHENTICATE message
 * ("org.apache.cassandra.auth.PasswordAuthenticator", for one).
 * @param[in] auth The exchange.
 * @param[out] length Receives the name's length in bytes; may be NULL.
 * @return The class name, NUL-terminated.
 * Ownership: valid until the cleanup callback returns; owned by the exchange.
 * Threads: the thread running the callback. */
CASS_EXPORT const char *cass_authenticator_class_name(const CassAuthenticator *auth,
                                                      size_t *length);

/** Gives the data this exchange was given with cass_authenticator_set_exchange_data().
 * @param[in] auth The exchange.
 * @return That pointer; NULL until one is set.
 * Ownership: the application's; the cleanup callback is the place to free it.
 * Threads: the thread running the callback. */
CASS_EXPORT void *cass_authenticator_exchange_data(CassAuthenticator *auth);

/** Keeps a pointer for the later callbacks of this exchange (each connection has its own).
 * @param[in] auth The exchange.
 * @param[in] exchange_data Any pointer.
 * Ownership: not taken; the application frees it, typically in the cleanup callback.
 * Threads: the thread running the callback. */
CASS_EXPORT void cass_authenticator_set_exchange_data(CassAuthenticator *auth, void *exchange_data);

/** Makes the response token size bytes long and gives its buffer to write into: bytes already
 * there are kept up to size, new ones are zero. Only in the initial and challenge callbacks.
 * @param[in] auth The exchange.
 * @param[in] size Length of the token in bytes.
 * @return The buffer, or NULL outside those callbacks or when memory ran out (the exchange then
 *     fails).
 * Ownership: owned by the exchange; valid until the callback returns or the next call that sets
 *     the response.
 * Threads: the thread running the callback. */
CASS_EXPORT char *cass_authenticator_response(CassAuthenticator *auth, size_t size);

/** Sets the response token sent to the node. Only in the initial and challenge callbacks;
 * elsewhere it does nothing. A callback that sets none sends an empty token.
 * @param[in] auth The exchange.
 * @param[in] response The token's bytes.
 * @param[in] response_size Number of bytes.
 * Ownership: the bytes are copied.
 * Threads: the thread running the callback. */
CASS_EXPORT void cass_authenticator_set_response(CassAuthenticator *auth, const char *response,
                                                 size_t response_size);

/** Fails the exchange: when the callback returns, the connection gives up and connecting fails
 * with CASS_ERROR_SERVER_BAD_CREDENTIALS, its message ending with this one. An empty message
 * (or NULL) sets no error, as in the driver.
 * @param[in] auth The exchange.
 * @param[in] message Why, NUL-terminated.
 * Ownership: the message is copied (its first 399 bytes).
 * Threads: the thread running the callback. */
CASS_EXPORT void cass_authenticator_set_error(CassAuthenticator *auth, const char *message);

/** Same as cass_authenticator_set_error(), with the length given.
 * @param[in] auth The exchange.
 * @param[in] message Why.
 * @param[in] message_length Length of message in bytes.
 * Ownership: the message is copied (its first 399 bytes).
 * Threads: the thread running the callback. */
CASS_EXPORT void cass_authenticator_set_error_n(CassAuthenticator *auth, const char *message,
                                                size_t message_length);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* __CASSANDRA_H_INCLUDED__ */
