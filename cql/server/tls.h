/*
 * TLS for cassette serve, with OpenSSL's memory BIOs: the loop hands the
 * bytes it read to a connection's TLS state and gets the plaintext back,
 * and hands it plaintext to get the bytes to write. No socket is given to
 * OpenSSL, so the loop's I/O stays libuv's.
 *
 * Threads: a server context is read-only once made and may be shared; a
 * connection's state is used by the loop thread only.
 */
#ifndef CQL_SERVER_TLS_H
#define CQL_SERVER_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/value/common.h"

typedef struct cql_tls_server cql_tls_server;
typedef struct cql_tls_conn cql_tls_conn;

/*
 * A server context from PEM files: the certificate (chain) and its private key; with
 * client_ca, clients may present a certificate, verified against it, and with
 * require_client_cert they must. 0, or -1 with the reason in errbuf (a file that does not
 * load, a key that does not match the certificate).
 */
int cql_tls_server_new(const char *cert, const char *key, const char *client_ca,
                       int require_client_cert, cql_tls_server **out, char *errbuf, size_t errlen);
void cql_tls_server_free(cql_tls_server *t);

/* A connection's TLS state (NULL on OOM). Free with cql_tls_conn_free. */
cql_tls_conn *cql_tls_conn_new(cql_tls_server *t);
void cql_tls_conn_free(cql_tls_conn *c);

/*
 * Takes n bytes read from the socket: appends the plaintext they complete to plain, and to
 * wire whatever TLS must send back (handshake messages, alerts). 0; -1 when the peer's TLS
 * failed (a bad handshake, an unverified client certificate, a protocol error): the
 * connection is to be closed after wire is sent.
 */
int cql_tls_conn_read(cql_tls_conn *c, const uint8_t *p, size_t n, eng_buf *plain, eng_buf *wire);
/* Encrypts n bytes of plaintext, appending the records to wire. 0 or -1. */
int cql_tls_conn_write(cql_tls_conn *c, const uint8_t *p, size_t n, eng_buf *wire);

#endif
