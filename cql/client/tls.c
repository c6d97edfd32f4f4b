/*
 * The client's TLS (tls.h): OpenSSL in client mode over memory BIOs.
 */
#include "cql/client/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

struct cql_tls_client {
    SSL_CTX *ctx;
    int verify;
};

struct cql_tls_session {
    SSL *ssl;
    BIO *in, *out; /* owned by ssl */
};

static int fail(eng_err *err, const char *what)
{
    unsigned long e = ERR_get_error();
    char reason[256] = "";
    if (e)
        ERR_error_string_n(e, reason, sizeof reason);
    ERR_clear_error();
    return eng_errorf(err, ENG_E_SERVER, "%s%s%s", what, reason[0] ? ": " : "", reason), -1;
}

/* Every certificate of a PEM text into the context's trust store. */
static int load_trusted(SSL_CTX *ctx, const uint8_t *pem, size_t len)
{
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    int n = 0;
    X509 *x;
    while (b && (x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
        if (X509_STORE_add_cert(store, x) == 1)
            n++;
        X509_free(x);
    }
    ERR_clear_error(); /* the end of the text reads as an error */
    BIO_free(b);
    return n > 0 ? 0 : -1;
}

int cql_tls_client_new(const cql_tls_client_config *cfg, cql_tls_client **out, eng_err *err)
{
    *out = NULL;
    cql_tls_client *t = calloc(1, sizeof *t);
    if (!t)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory"), -1;
    t->verify = cfg->verify;
    int rc = 0;
    if (!(t->ctx = SSL_CTX_new(TLS_client_method())))
        rc = fail(err, "cannot make a TLS context");
    else if (cfg->min_tls12 && !SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION))
        rc = fail(err, "cannot require TLS 1.2");
    else if (cfg->trusted && cfg->trusted_len && load_trusted(t->ctx, cfg->trusted, cfg->trusted_len))
        rc = fail(err, "cannot load the trusted certificates");
    if (!rc && cfg->cert && cfg->cert_len) {
        BIO *b = BIO_new_mem_buf(cfg->cert, (int)cfg->cert_len);
        X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
        if (!x || SSL_CTX_use_certificate(t->ctx, x) != 1)
            rc = fail(err, "cannot load the client certificate");
        X509_free(x);
        BIO_free(b);
    }
    if (!rc && cfg->key && cfg->key_len) {
        BIO *b = BIO_new_mem_buf(cfg->key, (int)cfg->key_len);
        /* the password as the callback's data: OpenSSL never prompts for one */
        char none[1] = "";
        void *pw = cfg->key_password ? (void *)(uintptr_t)cfg->key_password : none;
        EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, pw) : NULL;
        if (!k || SSL_CTX_use_PrivateKey(t->ctx, k) != 1)
            rc = fail(err, "cannot load the client key");
        EVP_PKEY_free(k);
        BIO_free(b);
    }
    if (rc) {
        cql_tls_client_free(t);
        return rc;
    }
    SSL_CTX_set_verify(t->ctx, cfg->verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_RELEASE_BUFFERS);
    *out = t;
    return 0;
}

void cql_tls_client_free(cql_tls_client *t)
{
    if (!t)
        return;
    SSL_CTX_free(t->ctx);
    free(t);
}

cql_tls_session *cql_tls_session_new(cql_tls_client *t, const char *host)
{
    cql_tls_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ssl = SSL_new(t->ctx);
    s->in = BIO_new(BIO_s_mem());
    s->out = BIO_new(BIO_s_mem());
    if (!s->ssl || !s->in || !s->out) {
        SSL_free(s->ssl);
        BIO_free(s->in);
        BIO_free(s->out);
        free(s);
        return NULL;
    }
    SSL_set_bio(s->ssl, s->in, s->out);
    SSL_set_connect_state(s->ssl);
    /* a name is sent as SNI; the identity checked is the address or the name connected to */
    X509_VERIFY_PARAM *param = SSL_get0_param(s->ssl);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, host) != 1) {
        SSL_set_tlsext_host_name(s->ssl, host);
        if (t->verify & CQL_TLS_VERIFY_IDENTITY)
            X509_VERIFY_PARAM_set1_host(param, host, 0);
    } else if (!(t->verify & CQL_TLS_VERIFY_IDENTITY)) {
        X509_VERIFY_PARAM_set1_ip(param, NULL, 0);
    }
    ERR_clear_error();
    return s;
}

void cql_tls_session_free(cql_tls_session *s)
{
    if (!s)
        return;
    SSL_free(s->ssl);
    free(s);
}

static int drain(cql_tls_session *s, eng_buf *wire)
{
    char buf[16384];
    int n;
    while ((n = BIO_read(s->out, buf, sizeof buf)) > 0)
        eng_buf_put(wire, buf, (size_t)n);
    return wire->oom ? -1 : 0;
}

int cql_tls_session_start(cql_tls_session *s, eng_buf *wire)
{
    int r = SSL_do_handshake(s->ssl);
    int e = SSL_get_error(s->ssl, r);
    ERR_clear_error();
    if (r != 1 && e != SSL_ERROR_WANT_READ)
        return -1;
    return drain(s, wire);
}

int cql_tls_session_ready(const cql_tls_session *s) { return SSL_is_init_finished(s->ssl); }

int cql_tls_session_read(cql_tls_session *s, const uint8_t *p, size_t n, eng_buf *plain,
                         eng_buf *wire, eng_err *err)
{
    while (n > 0) {
        int w = BIO_write(s->in, p, n > INT32_MAX ? INT32_MAX : (int)n);
        if (w <= 0)
            return fail(err, "TLS: out of memory");
        p += w;
        n -= (size_t)w;
    }
    for (;;) {
        if (eng_buf_reserve(plain, 16384))
            return eng_errorf(err, ENG_E_NOMEM, "out of memory"), -1;
        int r = SSL_read(s->ssl, plain->p + plain->len, 16384);
        if (r > 0) {
            plain->len += (size_t)r;
            continue;
        }
        int e = SSL_get_error(s->ssl, r);
        if (drain(s, wire))
            return eng_errorf(err, ENG_E_NOMEM, "out of memory"), -1;
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            ERR_clear_error();
            return 0;
        }
        long v = SSL_get_verify_result(s->ssl);
        if (v != X509_V_OK) {
            ERR_clear_error();
            return eng_errorf(err, ENG_E_SERVER, "TLS: the server's certificate is refused: %s",
                              X509_verify_cert_error_string(v)),
                   -1;
        }
        return fail(err, e == SSL_ERROR_ZERO_RETURN ? "TLS: the server closed the session"
                                                    : "TLS handshake or record failed");
    }
}

int cql_tls_session_write(cql_tls_session *s, const uint8_t *p, size_t n, eng_buf *wire)
{
    while (n > 0) {
        int w = SSL_write(s->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
        if (w <= 0) {
            ERR_clear_error();
            return -1;
        }
        p += w;
        n -= (size_t)w;
        if (drain(s, wire))
            return -1;
    }
    return drain(s, wire);
}
