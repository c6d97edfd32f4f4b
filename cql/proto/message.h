/*
 * The messages of the native protocol, v3 to v5 ([PV4] §4, [PV5] §4): the
 * requests a server reads, decoded into plain structs, and the responses it
 * writes, encoded from the shapes the executor already produces (cql_result,
 * eng_err). No executor and no I/O here: cql/server feeds frames in and
 * takes frames out.
 *
 * Decoded requests point into the frame's body and into an arena: they live
 * as long as both. Encoders append to an eng_buf and report a failed
 * allocation, or an item too long for the protocol, through its `oom`.
 *
 * Threads: pure functions; no shared state.
 */
#ifndef CQL_PROTO_MESSAGE_H
#define CQL_PROTO_MESSAGE_H

#include "cql/proto/frame.h"
#include "cql/proto/wire.h"
#include "cql/result.h"

/* [consistency] ([PV4] §3). */
enum cql_proto_consistency {
    CQL_PROTO_CL_ANY = 0x0000,
    CQL_PROTO_CL_ONE = 0x0001,
    CQL_PROTO_CL_TWO = 0x0002,
    CQL_PROTO_CL_THREE = 0x0003,
    CQL_PROTO_CL_QUORUM = 0x0004,
    CQL_PROTO_CL_ALL = 0x0005,
    CQL_PROTO_CL_LOCAL_QUORUM = 0x0006,
    CQL_PROTO_CL_EACH_QUORUM = 0x0007,
    CQL_PROTO_CL_SERIAL = 0x0008,
    CQL_PROTO_CL_LOCAL_SERIAL = 0x0009,
    CQL_PROTO_CL_LOCAL_ONE = 0x000A,
};
/* "LOCAL_QUORUM", or NULL for a value that is no consistency. */
const char *cql_proto_consistency_name(uint16_t cl);

/* <query_parameters> flags ([PV4] §4.1.4: a [byte]; [PV5]: an [int]). */
enum {
    CQL_PROTO_Q_VALUES = 0x01,
    CQL_PROTO_Q_SKIP_METADATA = 0x02,
    CQL_PROTO_Q_PAGE_SIZE = 0x04,
    CQL_PROTO_Q_PAGING_STATE = 0x08,
    CQL_PROTO_Q_SERIAL_CONSISTENCY = 0x10,
    CQL_PROTO_Q_DEFAULT_TIMESTAMP = 0x20,
    CQL_PROTO_Q_NAMES_FOR_VALUES = 0x40,
    CQL_PROTO_Q_KEYSPACE = 0x80,        /* v5 */
    CQL_PROTO_Q_NOW_IN_SECONDS = 0x100, /* v5 */
};

/* The parameters of a QUERY or EXECUTE. Absent items keep the values noted. */
typedef struct cql_proto_query_params {
    uint16_t consistency;
    uint32_t flags;
    uint16_t n_values;
    eng_val *values;             /* [value]s: len CQL_PROTO_VALUE_NULL or CQL_PROTO_VALUE_UNSET */
    eng_val *names;              /* CQL_PROTO_Q_NAMES_FOR_VALUES: value i's name; else NULL */
    int32_t page_size;           /* <= 0: no paging (absent: -1) */
    eng_val paging_state;        /* len -1 when absent */
    uint16_t serial_consistency; /* CQL_PROTO_CL_SERIAL when absent */
    int64_t timestamp;           /* CQL_PROTO_Q_DEFAULT_TIMESTAMP: µs; else INT64_MIN */
    eng_val keyspace;            /* v5 CQL_PROTO_Q_KEYSPACE; else len 0 */
    int32_t now_in_seconds;      /* v5 CQL_PROTO_Q_NOW_IN_SECONDS; else 0 */
} cql_proto_query_params;

/* Parameters with nothing given: consistency ONE, no paging, SERIAL, no timestamp. */
void cql_proto_query_params_init(cql_proto_query_params *p);

/* BATCH ([PV4] §4.1.7). */
enum { CQL_PROTO_BATCH_LOGGED = 0, CQL_PROTO_BATCH_UNLOGGED = 1, CQL_PROTO_BATCH_COUNTER = 2 };

typedef struct cql_proto_batch_stmt {
    uint8_t kind; /* 0: a query string, 1: a prepared id */
    eng_val query_or_id;
    uint16_t n_values;
    eng_val *values;
    eng_val
        *names; /* with CQL_PROTO_Q_NAMES_FOR_VALUES ([PV4] says it does not work; v5 drops it) */
} cql_proto_batch_stmt;

/* PREPARE flags (v5). */
enum { CQL_PROTO_PREPARE_KEYSPACE = 0x01 };

/* A decoded request. */
typedef struct cql_proto_request {
    uint8_t opcode;
    cql_proto_map custom_payload; /* [bytes map] when the frame flag says so; else empty */
    union {
        cql_proto_map startup;        /* STARTUP: its options */
        eng_val auth_token;           /* AUTH_RESPONSE: [bytes] */
        cql_proto_string_list events; /* REGISTER: event types */
        struct {
            eng_val query; /* [long string] */
            cql_proto_query_params params;
        } query; /* QUERY */
        struct {
            eng_val query;
            uint32_t flags;
            eng_val keyspace; /* v5 with CQL_PROTO_PREPARE_KEYSPACE */
        } prepare;            /* PREPARE */
        struct {
            eng_val id;                 /* [short bytes] */
            eng_val result_metadata_id; /* v5 [short bytes]; else len 0 */
            cql_proto_query_params params;
        } execute; /* EXECUTE */
        struct {
            uint8_t type; /* CQL_PROTO_BATCH_* */
            uint16_t n;
            cql_proto_batch_stmt *stmts;
            cql_proto_query_params params; /* consistency, flags, serial consistency,
                                          timestamp, keyspace, now_in_seconds */
        } batch;                           /* BATCH */
    } u;
} cql_proto_request;

/*
 * Decodes the body of a request frame (already decompressed, and checked for a supported
 * version) of opcode h->opcode. Bytes after the message are ignored, as [PV4] §1 lets a
 * reader do. 0; ENG_E_PROTOCOL with a message in Cassandra's words for an unknown opcode,
 * a response opcode sent as a request, a body that does not hold its message (a truncated
 * item, an unknown consistency, a page size of 0, a timestamp of Long.MIN_VALUE, a bad
 * batch type or query kind); ENG_E_NOMEM.
 */
int cql_proto_request_decode(const cql_proto_header *h, const uint8_t *body, size_t len,
                             eng_arena *a, cql_proto_request *out, eng_err *err);

/* ---- responses ---- */

/*
 * Starts a response frame at the end of out: room for the header, then the body's prefix
 * -- the warnings (v4 and later; v3 has no place for them and drops them). Returns the
 * frame's offset in out, to pass to cql_proto_frame_end.
 */
size_t cql_proto_frame_begin(eng_buf *out, uint8_t version, int16_t stream, uint8_t opcode,
                             const char *const *warnings, uint32_t n_warnings);
/* The same for the response to a traced request: tracing_id (16 bytes; NULL: none) sets the
   tracing flag and comes first in the body, before the warnings ([PV4] §2.2). */
size_t cql_proto_frame_begin_traced(eng_buf *out, uint8_t version, int16_t stream,
                                    uint8_t opcode, const uint8_t *tracing_id,
                                    const char *const *warnings, uint32_t n_warnings);
/*
 * Finishes the frame begun at `start`: compresses its body when c is not NONE (v3/v4
 * only: v5 compresses segments) and writes the header. 0 or ENG_E_NOMEM (also for a body
 * too long for the protocol).
 */
int cql_proto_frame_end(eng_buf *out, size_t start, cql_proto_compression c);

/* An ERROR's code and its extras ([PV4] §9, [PV5] §9), by code. */
typedef struct cql_proto_error {
    int32_t code;
    const char *message;
    uint16_t consistency;         /* UNAVAILABLE, timeouts, failures */
    int32_t required_or_received; /* UNAVAILABLE: required; others: received */
    int32_t alive_or_block_for;   /* UNAVAILABLE: alive; others: blockfor */
    int32_t num_failures;         /* READ/WRITE_FAILURE */
    uint8_t data_present;         /* READ_TIMEOUT, READ_FAILURE */
    const char *write_type;       /* WRITE_TIMEOUT, WRITE_FAILURE: "SIMPLE", "CAS", ... */
    int16_t contentions;          /* v5 WRITE_TIMEOUT of a CAS write */
    const char *keyspace;         /* ALREADY_EXISTS, FUNCTION_FAILURE */
    const char *table;            /* ALREADY_EXISTS ("" for a keyspace); FUNCTION_FAILURE:
                                     the function */
    const char *const *arg_types; /* FUNCTION_FAILURE */
    uint16_t n_arg_types;
    eng_val unprepared_id; /* UNPREPARED */
} cql_proto_error;

/* The protocol error for an engine error (its code through cql/errors.h; ALREADY_EXISTS
   with err's keyspace and table). unprepared_id is left empty for the caller to set. */
void cql_proto_error_from_eng(const eng_err *err, cql_proto_error *out);
/* ERROR body. */
void cql_proto_put_error(eng_buf *out, uint8_t version, const cql_proto_error *e);
/* SUPPORTED body: CQL_VERSION, COMPRESSION (lz4, snappy), PROTOCOL_VERSIONS. */
void cql_proto_put_supported(eng_buf *out, const char *cql_version);
/* AUTHENTICATE body: the authenticator's class name. */
void cql_proto_put_authenticate(eng_buf *out, const char *authenticator);
/* AUTH_CHALLENGE and AUTH_SUCCESS bodies: a [bytes] token (len -1: null). */
void cql_proto_put_token(eng_buf *out, const uint8_t *p, int32_t len);
/*
 * The SASL PLAIN token of an AUTH_RESPONSE ([authzid] NUL authcid NUL password, RFC 4616), as
 * PasswordAuthenticator decodes it: user and password point into token. 0, or
 * ENG_E_BAD_CREDENTIALS with Cassandra's text for a malformed token.
 */
int cql_proto_sasl_plain(eng_val token, eng_val *user, eng_val *password, eng_err *err);

/* [option] of a type, as DataType.fromType writes it for this version: in v3 the types
   newer than it (date, time, smallint, tinyint) and in v3/v4 duration go as custom types
   named by their Java class, as Cassandra sends them. */
void cql_proto_put_type(eng_buf *out, uint8_t version, const eng_type *t);

/* How a ROWS result is written for the request it answers. */
typedef struct cql_proto_rows_opts {
    int skip_metadata;    /* the request asked to skip it, and may (its metadata is current) */
    int metadata_changed; /* v5: the client's result_metadata_id is stale */
    const uint8_t *metadata_id; /* v5: the statement's result metadata id when metadata_changed */
    size_t metadata_id_len;
} cql_proto_rows_opts;

/* RESULT body of any kind. A PREPARED result in v5 carries result_metadata_id
   (cql_proto_result_metadata_id). 0, or ENG_E_NOMEM. */
int cql_proto_put_result(eng_buf *out, uint8_t version, const cql_result *r,
                         const cql_proto_rows_opts *o);
/* The result metadata id of a prepared statement (v5): a hash of its result columns' specs,
   16 bytes, stable for the same columns. */
void cql_proto_result_metadata_id(const cql_result *prepared, uint8_t out[16]);

/* EVENT bodies: SCHEMA_CHANGE (change, target, keyspace, object as in a SCHEMA_CHANGE
   result); TOPOLOGY_CHANGE and STATUS_CHANGE (change and node address). */
void cql_proto_put_schema_change_event(eng_buf *out, const cql_result *schema_change);
void cql_proto_put_node_event(eng_buf *out, const char *type, const char *change,
                              const cql_proto_inet *node);

#endif
