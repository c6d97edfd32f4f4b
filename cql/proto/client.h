/*
 * The client's side of the native protocol's messages, v3 to v5: the
 * requests a driver writes, encoded from the shapes the server side decodes
 * (cql_proto_query_params, cql_proto_batch_stmt), and the responses it reads,
 * decoded into the shapes the executor produces (cql_result for a RESULT,
 * eng_err for an ERROR), so a result looks the same whichever backend
 * answered it. No I/O: cql/client feeds frames in and takes frames out.
 *
 * Decoded responses point into the frame's body and an arena, except the
 * cql_result of a RESULT, which owns everything it holds.
 *
 * Threads: pure functions; no shared state.
 */
#ifndef CQL_PROTO_CLIENT_H
#define CQL_PROTO_CLIENT_H

#include "cql/proto/message.h"

/* ---- requests ---- */

/*
 * Starts a request frame at the end of out (header room; no flags).
 * Returns its offset, for cql_proto_request_end.
 */
size_t cql_proto_request_begin(eng_buf *out, uint8_t version, int16_t stream, uint8_t opcode);
/* The same with header flags: CQL_PROTO_FLAG_CUSTOM_PAYLOAD (v4 and later) when the body
   starts with the payload cql_proto_put_custom_payload writes. */
size_t cql_proto_request_begin_flags(eng_buf *out, uint8_t version, int16_t stream,
                                     uint8_t opcode, uint8_t flags);
/* Finishes it: compressed with c (v3/v4), its length written. 0 or ENG_E_NOMEM. */
int cql_proto_request_end(eng_buf *out, size_t start, cql_proto_compression c);

/* A custom payload, the [bytes map] of n names and values that goes first in the body of a
   request framed with CQL_PROTO_FLAG_CUSTOM_PAYLOAD (v4 and later), before the message. */
void cql_proto_put_custom_payload(eng_buf *out, const eng_val *names, const eng_val *vals,
                                  uint16_t n);
/* STARTUP body: a [string map] of n options. */
void cql_proto_put_startup(eng_buf *out, const char *const *keys, const char *const *vals,
                           uint16_t n);
/* <query_parameters> of QUERY and EXECUTE as `version` writes them; p->flags is recomputed
   from what p holds (values, names, page size, paging state, serial consistency, timestamp,
   keyspace and now_in_seconds in v5; CQL_PROTO_Q_SKIP_METADATA is kept as given). */
void cql_proto_put_query_params(eng_buf *out, uint8_t version, const cql_proto_query_params *p);
/* QUERY body. */
void cql_proto_put_query(eng_buf *out, uint8_t version, const uint8_t *query, size_t len,
                         const cql_proto_query_params *p);
/* PREPARE body; keyspace (v5 only) may be NULL. */
void cql_proto_put_prepare(eng_buf *out, uint8_t version, const uint8_t *query, size_t len,
                           const char *keyspace);
/* EXECUTE body: the statement id and (v5) its result metadata id. */
void cql_proto_put_execute(eng_buf *out, uint8_t version, eng_val id, eng_val metadata_id,
                           const cql_proto_query_params *p);
/* BATCH body: type, statements, then consistency, flags and their items from p. */
void cql_proto_put_batch(eng_buf *out, uint8_t version, uint8_t type,
                         const cql_proto_batch_stmt *stmts, uint16_t n,
                         const cql_proto_query_params *p);

/* ---- responses ---- */

typedef struct cql_proto_response {
    uint8_t opcode;
    const char *warnings[CQL_RESULT_MAX_WARNINGS]; /* in the arena */
    uint32_t n_warnings;
    cql_proto_map custom_payload;
    /* ERROR: the code (an engine code, ENG_E_*, through cql/errors.h) and message in err;
       the extras below */
    eng_err err;
    cql_proto_error error;
    /* AUTHENTICATE: the authenticator class; AUTH_CHALLENGE / AUTH_SUCCESS: the token */
    eng_val authenticator;
    eng_val token;
    cql_proto_multimap supported; /* SUPPORTED */
    /* RESULT (every kind) and EVENT SCHEMA_CHANGE (a SCHEMA_CHANGE result): owned by the
       caller (cql_result_free) */
    cql_result *result;
    eng_val result_metadata_id;   /* PREPARED (v5), or ROWS whose metadata changed (v5) */
    int no_metadata;              /* ROWS sent without column specs: the caller's apply */
    /* EVENT: "SCHEMA_CHANGE", "TOPOLOGY_CHANGE", "STATUS_CHANGE"; the change and node */
    eng_val event_type, event_change;
    cql_proto_inet event_node;
    /* a traced request's answer: its tracing session id */
    int has_tracing_id;
    uint8_t tracing_id[16];
} cql_proto_response;

/*
 * Decodes the body of a response frame (decompressed) of opcode h->opcode into out.
 * known_cols/n_known: the result columns a ROWS result sent without metadata has (a prepared
 * statement's, as the client asked to skip them), or NULL. 0; ENG_E_PROTOCOL for a body
 * that does not hold its message (with why), a request opcode, a type nested too deep;
 * ENG_E_NOMEM. An ERROR decodes with 0: the error is in out->err.
 */
int cql_proto_response_decode(const cql_proto_header *h, const uint8_t *body, size_t len,
                              const cql_column_spec *known_cols, uint32_t n_known, eng_arena *a,
                              cql_proto_response *out, eng_err *err);

/* The engine code of a protocol error code (the inverse of eng_err_protocol_code). */
int cql_proto_error_eng_code(int32_t code);

#endif
