/*
 * Authenticators of the driver API: the callbacks an application installs with
 * cass_cluster_set_authenticator_callbacks, the CassAuthenticator they are handed, and the
 * exchange the remote connection drives through driver_int.h's cql_drv_auth_* interface.
 *
 * The rules are the driver's (auth.hpp, auth.cpp, connector.cpp):
 * - a cluster keeps one authenticator: callbacks replace plain-text credentials and credentials
 *   replace callbacks (cluster.c drops the provider in cass_cluster_set_credentials);
 * - each connection that meets AUTHENTICATE begins an exchange with the node's address, its
 *   host name and the authenticator class the node named; exchange data starts NULL and lives
 *   across the steps;
 * - a step whose callback is NULL succeeds with an empty response;
 * - before each step the error is cleared; a step fails when its callback set a non-empty error
 *   (an empty message is no error, as in the driver), with the driver's message around it;
 * - the response buffer exists only during the initial and challenge callbacks:
 *   cass_authenticator_response returns NULL elsewhere and cass_authenticator_set_response does
 *   nothing;
 * - the cleanup callback runs once when the exchange ends, however it ended; the data cleanup
 *   runs once, when no cluster, session or exchange needs the callbacks any more (the provider's
 *   last reference).
 * Where the driver would crash (NULL callbacks struct, NULL strings) cassette refuses or reads
 * NULL as empty.
 *
 * Threads: a provider is immutable once made and reference counted atomically; an exchange and
 * its CassAuthenticator belong to the connection thread that began it.
 */
#include <stdatomic.h>
#include <string.h>

#include "cql/driver/driver_int.h"

struct cql_drv_auth_provider {
    _Atomic int refs;
    CassAuthenticatorCallbacks callbacks;              /* copied from the application's */
    CassAuthenticatorDataCleanupCallback data_cleanup; /* or NULL */
    void *data; /* handed to every callback; the application's */
};

cql_drv_auth_provider *cql_drv_auth_provider_ref(cql_drv_auth_provider *p)
{
    if (p)
        atomic_fetch_add(&p->refs, 1);
    return p;
}

void cql_drv_auth_provider_unref(cql_drv_auth_provider *p)
{
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    if (p->data_cleanup)
        p->data_cleanup(p->data);
    eng_free(p);
}

/* Room for the error a callback sets: longer messages are cut to what an eng_err can carry. */
#define AUTH_ERROR_CAP 400

/*
 * One exchange, one allocation: the struct, then hostname, class name and (plain text) user
 * and password, each NUL-terminated.
 */
struct CassAuthenticator_ {
    cql_drv_auth_provider *provider; /* reference; NULL: plain text (user, password) */
    CassInet address;
    const char *hostname, *class_name; /* in this allocation */
    size_t hostname_len, class_name_len;
    const char *user, *password; /* plain text only, in this allocation */
    size_t user_len, password_len;
    size_t alloc_len;           /* bytes after the struct, wiped when freed */
    void *exchange_data;        /* the application's, NULL until it sets some */
    eng_buf *response;          /* the caller's, during initial / challenge; else NULL */
    int oom;                    /* a response could not be stored during this step */
    size_t error_len;           /* length the callback gave (0: no error) */
    char error[AUTH_ERROR_CAP]; /* its first bytes, NUL-terminated */
};

/* ---- the cluster setting ---- */

CassError cass_cluster_set_authenticator_callbacks(CassCluster *cluster,
                                                   const CassAuthenticatorCallbacks *callbacks,
                                                   CassAuthenticatorDataCleanupCallback cleanup,
                                                   void *data)
{
    if (!cluster || !callbacks)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cql_drv_auth_provider *p = eng_malloc(sizeof *p);
    if (!p)
        return CQL_DRV_NOMEM;
    atomic_init(&p->refs, 1);
    p->callbacks = *callbacks;
    p->data_cleanup = cleanup;
    p->data = data;
    /* One authenticator per cluster: the credentials go, as the driver's PlainTextAuthProvider. */
    if (cluster->password)
        memset(cluster->password, 0, strlen(cluster->password));
    eng_free(cluster->username);
    eng_free(cluster->password);
    cluster->username = cluster->password = NULL;
    cql_drv_auth_provider *old = cluster->auth;
    cluster->auth = p;
    cql_drv_auth_provider_unref(old); /* may run the old data cleanup */
    return CASS_OK;
}

/* ---- the exchange, for the connection ---- */

static size_t len_or_zero(const char *s)
{
    return s ? strlen(s) : 0;
}

/* Copies s[0..len) and a NUL to *at, moving it on; returns the copy. */
static const char *place(char **at, const char *s, size_t len)
{
    char *d = *at;
    if (len)
        memcpy(d, s, len);
    d[len] = '\0';
    *at = d + len + 1;
    return d;
}

int cql_drv_auth_begin(const CassCluster *c, const CassInet *addr, const char *hostname,
                       const char *class_name, cql_drv_auth **out, eng_err *err)
{
    *out = NULL;
    int plain = !c->auth && c->username;
    if (!c->auth && !plain)
        return eng_errorf(err, ENG_E_BAD_CREDENTIALS,
                          "Authentication required but no auth provider set");
    size_t host_len = len_or_zero(hostname), class_len = len_or_zero(class_name);
    size_t user_len = plain ? strlen(c->username) : 0;
    size_t pass_len = plain ? len_or_zero(c->password) : 0;
    size_t extra = host_len + class_len + user_len + pass_len + 4;
    cql_drv_auth *a = eng_calloc(1, sizeof *a + extra);
    if (!a)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory beginning authentication");
    char *at = (char *)(a + 1);
    a->alloc_len = extra;
    a->hostname = place(&at, hostname, host_len);
    a->hostname_len = host_len;
    a->class_name = place(&at, class_name, class_len);
    a->class_name_len = class_len;
    a->user = place(&at, plain ? c->username : NULL, user_len);
    a->user_len = user_len;
    a->password = place(&at, plain ? c->password : NULL, pass_len);
    a->password_len = pass_len;
    if (addr) {
        a->address = *addr;
        if (a->address.address_length > CASS_INET_V6_LENGTH)
            a->address.address_length = CASS_INET_V6_LENGTH;
    }
    a->provider = cql_drv_auth_provider_ref(c->auth);
    *out = a;
    return 0;
}

/* Clears the step's error and points the response (NULL: none in this step) at the caller's. */
static void step_begin(cql_drv_auth *a, eng_buf *response)
{
    a->error_len = 0;
    a->error[0] = '\0';
    a->oom = 0;
    a->response = response;
    if (response)
        eng_buf_reset(response);
}

/* The step's outcome: the callback's error under the driver's prefix, an allocation failure, or
   0. The response stops being writable either way. */
static int step_end(cql_drv_auth *a, const char *what, eng_err *err)
{
    eng_buf *r = a->response;
    a->response = NULL;
    if (a->error_len)
        return eng_errorf(err, ENG_E_BAD_CREDENTIALS, "%s: %s", what, a->error);
    if (a->oom || (r && r->oom))
        return eng_errorf(err, ENG_E_NOMEM, "out of memory authenticating (%s)", what);
    return 0;
}

/* A token as the callbacks see it: a null one (len < 0) is empty, as the driver's String. */
static const char *token_text(const uint8_t *token, int32_t len, size_t *n)
{
    *n = token && len > 0 ? (size_t)len : 0;
    return *n ? (const char *)token : "";
}

static const CassAuthenticatorCallbacks *callbacks_of(const cql_drv_auth *a)
{
    return a->provider ? &a->provider->callbacks : NULL;
}

int cql_drv_auth_initial(cql_drv_auth *a, eng_buf *response, eng_err *err)
{
    static const char what[] = "Failed creating initial response token";
    step_begin(a, response);
    const CassAuthenticatorCallbacks *cb = callbacks_of(a);
    if (!cb) {
        /* SASL PLAIN (RFC 4616) without an authorization identity. */
        eng_buf_put_u8(response, 0);
        eng_buf_put(response, a->user, a->user_len);
        eng_buf_put_u8(response, 0);
        eng_buf_put(response, a->password, a->password_len);
    } else if (cb->initial_callback) {
        cb->initial_callback(a, a->provider->data);
    }
    return step_end(a, what, err);
}

int cql_drv_auth_challenge(cql_drv_auth *a, const uint8_t *token, int32_t len, eng_buf *response,
                           eng_err *err)
{
    static const char what[] = "Failed evaluating challenge token";
    step_begin(a, response);
    const CassAuthenticatorCallbacks *cb = callbacks_of(a);
    /* Plain text answers a challenge with an empty token, as the driver's does. */
    if (cb && cb->challenge_callback) {
        size_t n;
        const char *t = token_text(token, len, &n);
        cb->challenge_callback(a, a->provider->data, t, n);
    }
    return step_end(a, what, err);
}

int cql_drv_auth_success(cql_drv_auth *a, const uint8_t *token, int32_t len, eng_err *err)
{
    static const char what[] = "Failed evaluating success token";
    step_begin(a, NULL);
    const CassAuthenticatorCallbacks *cb = callbacks_of(a);
    if (cb && cb->success_callback) {
        size_t n;
        const char *t = token_text(token, len, &n);
        cb->success_callback(a, a->provider->data, t, n);
    }
    return step_end(a, what, err);
}

void cql_drv_auth_end(cql_drv_auth *a)
{
    if (!a)
        return;
    a->response = NULL;
    const CassAuthenticatorCallbacks *cb = callbacks_of(a);
    if (cb && cb->cleanup_callback)
        cb->cleanup_callback(a, a->provider->data);
    cql_drv_auth_provider *p = a->provider;
    memset(a + 1, 0, a->alloc_len); /* the password, for plain text */
    eng_free(a);
    cql_drv_auth_provider_unref(p);
}

/* ---- CassAuthenticator, inside the callbacks ---- */

void cass_authenticator_address(const CassAuthenticator *auth, CassInet *address)
{
    if (auth && address)
        *address = auth->address;
}

const char *cass_authenticator_hostname(const CassAuthenticator *auth, size_t *length)
{
    if (length)
        *length = auth ? auth->hostname_len : 0;
    return auth ? auth->hostname : NULL;
}

const char *cass_authenticator_class_name(const CassAuthenticator *auth, size_t *length)
{
    if (length)
        *length = auth ? auth->class_name_len : 0;
    return auth ? auth->class_name : NULL;
}

void *cass_authenticator_exchange_data(CassAuthenticator *auth)
{
    return auth ? auth->exchange_data : NULL;
}

void cass_authenticator_set_exchange_data(CassAuthenticator *auth, void *exchange_data)
{
    if (auth)
        auth->exchange_data = exchange_data;
}

char *cass_authenticator_response(CassAuthenticator *auth, size_t size)
{
    if (!auth || !auth->response)
        return NULL;
    eng_buf *r = auth->response;
    /* Resized as the driver's std::string: bytes kept up to size, new ones zero. Room for one
       more byte so that an empty response still has an address. */
    if (size >= r->len && eng_buf_reserve(r, size - r->len + 1)) {
        auth->oom = 1;
        return NULL;
    }
    if (size > r->len)
        memset(r->p + r->len, 0, size - r->len);
    r->len = size;
    return (char *)r->p;
}

void cass_authenticator_set_response(CassAuthenticator *auth, const char *response,
                                     size_t response_size)
{
    if (!auth || !auth->response)
        return;
    eng_buf *r = auth->response;
    if (!response)
        response_size = 0;
    /* The response may lie inside the buffer (from cass_authenticator_response): move, not copy. */
    if (response_size > r->len && eng_buf_reserve(r, response_size - r->len)) {
        auth->oom = 1;
        return;
    }
    if (response_size)
        memmove(r->p, response, response_size);
    r->len = response_size;
}

void cass_authenticator_set_error(CassAuthenticator *auth, const char *message)
{
    cass_authenticator_set_error_n(auth, message, len_or_zero(message));
}

void cass_authenticator_set_error_n(CassAuthenticator *auth, const char *message,
                                    size_t message_length)
{
    if (!auth)
        return;
    if (!message)
        message_length = 0;
    size_t n = message_length < AUTH_ERROR_CAP - 1 ? message_length : AUTH_ERROR_CAP - 1;
    if (n)
        memcpy(auth->error, message, n);
    auth->error[n] = '\0';
    auth->error_len = message_length;
}
