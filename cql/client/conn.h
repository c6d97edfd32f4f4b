/*
 * One native-protocol connection to one host, as a driver holds it: a
 * thread of its own runs a libuv loop that connects, negotiates the
 * protocol version as drivers do (v5, then v4, then v3 while the server
 * answers an unsupported version with a PROTOCOL_ERROR), sends STARTUP and,
 * when the server asks, the SASL PLAIN credentials of PasswordAuthenticator;
 * then carries requests on up to 32,768 streams at once (v5 in segments),
 * each answered through its callback, on the connection's thread.
 *
 * Threads: cql_conn_send may be called from any thread at once; callbacks
 * run on the connection's thread and must not wait for another request of
 * the same connection. cql_conn_close from any thread but that one.
 */
#ifndef CQL_CLIENT_CONN_H
#define CQL_CLIENT_CONN_H

#include "cql/errors.h" /* CQL_E_*: the client's own failures */
#include "cql/client/tls.h"
#include "cql/proto/client.h"

typedef struct cql_conn cql_conn;

/*
 * A server's EVENT (on a connection that REGISTERed): ev->event_type, event_change,
 * event_node, and for SCHEMA_CHANGE ev->result (borrowed). Runs on the connection's thread;
 * it must not wait for a request of that connection.
 */
typedef void (*cql_conn_event)(void *arg, const cql_proto_response *ev);

/*
 * An authenticator exchange, the driver's (CassAuthenticator callbacks, or PasswordAuthenticator's
 * SASL PLAIN from credentials): the connection calls begin on AUTHENTICATE (the server's
 * authenticator class; the peer's address bytes, 4 or 16, and host name), initial for the
 * first AUTH_RESPONSE token, challenge on each AUTH_CHALLENGE, success on AUTH_SUCCESS, and end
 * once per begin however the handshake stops. Each step gives 0 (and the token in response)
 * or an error with err. All run on the connection's thread.
 */
typedef struct cql_conn_auth {
    void *ctx;
    int (*begin)(void *ctx, const uint8_t *addr, int addr_len, const char *hostname,
                 const char *class_name, void **exchange, eng_err *err);
    int (*initial)(void *exchange, eng_buf *response, eng_err *err);
    int (*challenge)(void *exchange, const uint8_t *token, int32_t len, eng_buf *response,
                     eng_err *err);
    int (*success)(void *exchange, const uint8_t *token, int32_t len, eng_err *err);
    void (*end)(void *exchange);
} cql_conn_auth;

typedef struct cql_conn_config {
    const char *host;            /* a name or an address */
    int port;                    /* 0: 9042 */
    uint8_t max_version;         /* the first version tried (0: 5) */
    const char *user, *password; /* PasswordAuthenticator's credentials, or NULL (when auth
                                    has no begin) */
    cql_conn_auth auth;          /* the authenticator exchange (begin NULL: user/password) */
    unsigned connect_timeout_ms; /* the whole handshake (0: 5000) */
    unsigned request_timeout_ms; /* a request without an answer fails after it (0: none) */
    const char *const *startup_keys; /* STARTUP options besides CQL_VERSION */
    const char *const *startup_vals;
    uint16_t n_startup;
    cql_tls_client *tls;             /* TLS with this context (borrowed: it must outlive the
                                        connection), or NULL for plain TCP */
    cql_conn_event on_event;         /* EVENT frames, or NULL: dropped */
    void *event_arg;
    unsigned max_unsent;             /* requests that may wait for a stream (queued or
                                        waiting) before more fail at once with
                                        CQL_E_QUEUE_FULL; 0: no bound */
    int compression;                 /* cql_proto_compression to ask for in STARTUP (lz4 or
                                        snappy; v5 compresses segments with lz4 only), or 0 */
} cql_conn_config;


/*
 * Connects and completes the handshake; blocks until then. 0 and *out, or an error (a server's
 * ERROR through its engine code: BAD_CREDENTIALS, PROTOCOL; CQL_E_NO_HOST when the host cannot
 * be reached; CQL_E_AUTH_NEEDED) with the reason in err.
 */
int cql_conn_open(const cql_conn_config *cfg, cql_conn **out, eng_err *err);
/* The protocol version negotiated. */
uint8_t cql_conn_version(const cql_conn *c);
/* 1 while the connection is up. */
int cql_conn_alive(const cql_conn *c);
/* 1 when called on c's own thread (in one of its callbacks), where c cannot be closed. */
int cql_conn_is_own_thread(const cql_conn *c);

/*
 * A request's end: rc 0 and the decoded response (an ERROR decodes with 0 too: its error is
 * resp->err), or a failure of the request itself (CQL_E_CLOSED, CQL_E_TIMEOUT, a response
 * that does not decode) with err. resp's result is the callback's to keep or free; the rest of
 * resp lives during the call only.
 */
typedef void (*cql_conn_done)(void *arg, int rc, const eng_err *err, cql_proto_response *resp);

/*
 * Sends a request of opcode with body (encoded for cql_conn_version; copied). known/n_known:
 * the columns a ROWS answer without metadata has (borrowed until done). done is called exactly
 * once, on the connection's thread -- with CQL_E_CLOSED when the connection is closed.
 */
void cql_conn_send(cql_conn *c, uint8_t opcode, const uint8_t *body, size_t len,
                   const cql_column_spec *known, uint32_t n_known, cql_conn_done done, void *arg);
/* The same with a timeout of its own instead of the connection's (0: none). */
void cql_conn_send_timed(cql_conn *c, uint8_t opcode, const uint8_t *body, size_t len,
                         uint64_t timeout_ms, const cql_column_spec *known, uint32_t n_known,
                         cql_conn_done done, void *arg);

/* The same with frame header flags: CQL_PROTO_FLAG_CUSTOM_PAYLOAD (v4 and later) when body
   starts with the request's custom payload (cql_proto_put_custom_payload). */
void cql_conn_send_flags(cql_conn *c, uint8_t opcode, uint8_t flags, const uint8_t *body,
                         size_t len, uint64_t timeout_ms, const cql_column_spec *known,
                         uint32_t n_known, cql_conn_done done, void *arg);

/* Closes: requests in flight end with CQL_E_CLOSED; joins the thread; frees c. */
void cql_conn_close(cql_conn *c);

#endif
