/*
 * TLS on memory BIOs (tls.h). A connection owns an SSL object whose read
 * BIO the loop fills with the bytes it read and whose write BIO it drains
 * into the socket.
 */
#include "cql/server/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>

struct cql_tls_server {
    SSL_CTX *ctx;
};

struct cql_tls_conn {
    SSL *ssl;
    BIO *in;  /* what the peer sent, for OpenSSL to read (owned by ssl) */
    BIO *out; /* what OpenSSL wrote, for the socket (owned by ssl) */
};

static int fail(char *errbuf, size_t errlen, const char *what, const char *file)
{
    unsigned long e = ERR_get_error();
    char reason[256] = "";
    if (e)
        ERR_error_string_n(e, reason, sizeof reason);
    snprintf(errbuf, errlen, "%s %s%s%s", what, file ? file : "", reason[0] ? ": " : "", reason);
    ERR_clear_error();
    return -1;
}

int cql_tls_server_new(const char *cert, const char *key, const char *client_ca,
                       int require_client_cert, cql_tls_server **out, char *errbuf, size_t errlen)
{
    cql_tls_server *t = calloc(1, sizeof *t);
    if (!t)
        return fail(errbuf, errlen, "out of memory", NULL);
    t->ctx = SSL_CTX_new(TLS_server_method());
    int rc = 0;
    if (!t->ctx)
        rc = fail(errbuf, errlen, "cannot make a TLS context", NULL);
    else if (!SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION))
        rc = fail(errbuf, errlen, "cannot require TLS 1.2", NULL);
    else if (SSL_CTX_use_certificate_chain_file(t->ctx, cert) != 1)
        rc = fail(errbuf, errlen, "cannot load the certificate", cert);
    else if (SSL_CTX_use_PrivateKey_file(t->ctx, key, SSL_FILETYPE_PEM) != 1)
        rc = fail(errbuf, errlen, "cannot load the private key", key);
    else if (SSL_CTX_check_private_key(t->ctx) != 1)
        rc = fail(errbuf, errlen, "the private key does not match the certificate", key);
    else if (client_ca && SSL_CTX_load_verify_locations(t->ctx, client_ca, NULL) != 1)
        rc = fail(errbuf, errlen, "cannot load the client CA", client_ca);
    if (rc) {
        cql_tls_server_free(t);
        return rc;
    }
    if (client_ca)
        SSL_CTX_set_verify(
            t->ctx, SSL_VERIFY_PEER | (require_client_cert ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
            NULL);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_RELEASE_BUFFERS);
    *out = t;
    return 0;
}

void cql_tls_server_free(cql_tls_server *t)
{
    if (!t)
        return;
    SSL_CTX_free(t->ctx);
    free(t);
}

cql_tls_conn *cql_tls_conn_new(cql_tls_server *t)
{
    cql_tls_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ssl = SSL_new(t->ctx);
    c->in = BIO_new(BIO_s_mem());
    c->out = BIO_new(BIO_s_mem());
    if (!c->ssl || !c->in || !c->out) {
        SSL_free(c->ssl);
        BIO_free(c->in);
        BIO_free(c->out);
        free(c);
        return NULL;
    }
    SSL_set_bio(c->ssl, c->in, c->out);
    SSL_set_accept_state(c->ssl);
    return c;
}

void cql_tls_conn_free(cql_tls_conn *c)
{
    if (!c)
        return;
    SSL_free(c->ssl); /* frees both BIOs */
    free(c);
}

/* Moves what OpenSSL wrote into wire. */
static int drain(cql_tls_conn *c, eng_buf *wire)
{
    char buf[16384];
    int n;
    while ((n = BIO_read(c->out, buf, sizeof buf)) > 0)
        eng_buf_put(wire, buf, (size_t)n);
    return wire->oom ? -1 : 0;
}

int cql_tls_conn_read(cql_tls_conn *c, const uint8_t *p, size_t n, eng_buf *plain, eng_buf *wire)
{
    while (n > 0) {
        int w = BIO_write(c->in, p, n > INT32_MAX ? INT32_MAX : (int)n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    for (;;) {
        if (eng_buf_reserve(plain, 16384))
            return -1;
        int r = SSL_read(c->ssl, plain->p + plain->len, 16384);
        if (r > 0) {
            plain->len += (size_t)r;
            continue;
        }
        int e = SSL_get_error(c->ssl, r);
        int rc = drain(c, wire);
        ERR_clear_error();
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
            return rc;
        return -1; /* a TLS failure, or the peer's close_notify */
    }
}

int cql_tls_conn_write(cql_tls_conn *c, const uint8_t *p, size_t n, eng_buf *wire)
{
    while (n > 0) {
        int w = SSL_write(c->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
        if (w <= 0) {
            ERR_clear_error();
            return -1;
        }
        p += w;
        n -= (size_t)w;
        if (drain(c, wire))
            return -1;
    }
    return drain(c, wire);
}
