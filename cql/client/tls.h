/*
 * The client's TLS, on OpenSSL memory BIOs: the connection's loop feeds what
 * it read from the socket in and writes what OpenSSL produced out, so TLS
 * never blocks the loop. Certificates come as PEM texts (what CassSsl
 * holds): the CAs trusted, and the client's own certificate and key when
 * the server asks for one.
 *
 * Threads: a context is read-only once made and may serve many connections;
 * a connection's state belongs to its loop thread.
 */
#ifndef CQL_CLIENT_TLS_H
#define CQL_CLIENT_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/value/common.h"

typedef struct cql_tls_client cql_tls_client;
typedef struct cql_tls_session cql_tls_session;

/* What is checked of the server (CassSslVerifyFlags' values). */
enum {
    CQL_TLS_VERIFY_CERT = 0x01,     /* its chain against the trusted CAs */
    CQL_TLS_VERIFY_IDENTITY = 0x02, /* and that it names the address connected to */
};

typedef struct cql_tls_client_config {
    const uint8_t *trusted; /* PEM certificates, concatenated (may be NULL) */
    size_t trusted_len;
    const uint8_t *cert, *key; /* the client's PEM certificate and key (NULL: none) */
    size_t cert_len, key_len;
    const char *key_password; /* an encrypted key's password, NUL-terminated, or NULL: none
                                 (never asked for on a terminal) */
    int verify;             /* CQL_TLS_VERIFY_* bits */
    int min_tls12;          /* 1: TLS 1.2 or later (the default), 0: OpenSSL's minimum */
} cql_tls_client_config;

/* A context for connections. 0, or -1 with why in err (a PEM that does not load). */
int cql_tls_client_new(const cql_tls_client_config *cfg, cql_tls_client **out, eng_err *err);
void cql_tls_client_free(cql_tls_client *t);

/* A connection's TLS to host (a name or an address: SNI, and the identity checked). */
cql_tls_session *cql_tls_session_new(cql_tls_client *t, const char *host);
void cql_tls_session_free(cql_tls_session *s);

/* Starts the handshake: the ClientHello into wire. 0 or -1. */
int cql_tls_session_start(cql_tls_session *s, eng_buf *wire);
/* 1 once the handshake is complete. */
int cql_tls_session_ready(const cql_tls_session *s);
/*
 * Bytes read from the socket: plaintext to `plain`, what OpenSSL must send back to `wire`.
 * 0, or -1 with why in err (a failed handshake names the reason, e.g. the certificate).
 */
int cql_tls_session_read(cql_tls_session *s, const uint8_t *p, size_t n, eng_buf *plain,
                         eng_buf *wire, eng_err *err);
/* Encrypts n bytes into wire. 0 or -1. */
int cql_tls_session_write(cql_tls_session *s, const uint8_t *p, size_t n, eng_buf *wire);

#endif
