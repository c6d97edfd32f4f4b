/*
 * Authenticator callbacks (cql/driver/authenticator.c), driven the way the remote connection
 * drives them: through driver_int.h's cql_drv_auth_* interface, with no server. It reaches
 * inside the driver (so it sits with the cql/ internals' tests, not with tests/driver/), since
 * no public call runs an exchange without a node that asks for authentication.
 *
 * The expectations are the driver's (auth.cpp ExternalAuthenticator, auth.hpp
 * ExternalAuthProvider, connector.cpp on_authenticate / on_auth_challenge / on_auth_success,
 * config.hpp set_credentials / set_auth_provider): callbacks in exchange order with the
 * application's data; exchange data kept across the steps; a response only in the initial and
 * challenge callbacks; an error a callback sets failing the step with the driver's message and
 * BAD_CREDENTIALS, an empty one being no error; cleanup once per exchange, whatever happened;
 * the data cleanup once, when the last holder (cluster, copy, exchange) lets go; callbacks and
 * credentials replacing each other.
 */
#include <cassandra.h>

#include <stdlib.h>

#include "cql/driver/driver_int.h"
#include "harness.h"

/* What the callbacks saw, in order. */
typedef struct record {
    char log[256]; /* event letters: i(nitial) c(hallenge) s(uccess) x (cleanup) */
    int data_cleanups;
    int exchange_frees;  /* exchange data freed by the cleanup callback */
    const char *fail_in; /* the event letter whose callback sets an error, or NULL */
    const char *error;   /* the error it sets */
    char last_token[64]; /* the last challenge / success token, NUL-terminated */
    char hostname[64], class_name[128];
    CassInet address;
    int response_outside; /* response and set_response in success: 1 if NULL and ignored */
} record;

static void note(record *r, char c)
{
    size_t n = strlen(r->log);
    ASSERT(n + 1 < sizeof r->log);
    r->log[n] = c;
    r->log[n + 1] = '\0';
}

static void maybe_fail(CassAuthenticator *auth, record *r, char c)
{
    if (r->fail_in && r->fail_in[0] == c)
        cass_authenticator_set_error(auth, r->error);
}

static void keep_token(record *r, const char *token, size_t n)
{
    ASSERT(n < sizeof r->last_token);
    memcpy(r->last_token, token, n);
    r->last_token[n] = '\0';
}

static void on_initial(CassAuthenticator *auth, void *data)
{
    record *r = data;
    note(r, 'i');
    ASSERT(cass_authenticator_exchange_data(auth) == NULL); /* nothing until set */
    size_t n = 99;
    snprintf(r->hostname, sizeof r->hostname, "%s", cass_authenticator_hostname(auth, &n));
    ASSERT_EQ(n, strlen(r->hostname));
    snprintf(r->class_name, sizeof r->class_name, "%s", cass_authenticator_class_name(auth, &n));
    ASSERT_EQ(n, strlen(r->class_name));
    cass_authenticator_address(auth, &r->address);
    int *round = malloc(sizeof *round);
    ASSERT(round != NULL);
    *round = 0;
    cass_authenticator_set_exchange_data(auth, round);
    cass_authenticator_set_response(auth, "hello", 5);
    maybe_fail(auth, r, 'i');
}

/* Answers challenge k with "answer-k", written through cass_authenticator_response. */
static void on_challenge(CassAuthenticator *auth, void *data, const char *token, size_t n)
{
    record *r = data;
    note(r, 'c');
    keep_token(r, token, n);
    int *round = cass_authenticator_exchange_data(auth);
    ASSERT(round != NULL);
    ++*round;
    char text[32];
    int len = snprintf(text, sizeof text, "answer-%d", *round);
    char *buf = cass_authenticator_response(auth, (size_t)len);
    if (!buf)
        return; /* out of memory: the step fails (allocation_failures_fail_cleanly) */
    memcpy(buf, text, (size_t)len);
    maybe_fail(auth, r, 'c');
}

static void on_success(CassAuthenticator *auth, void *data, const char *token, size_t n)
{
    record *r = data;
    note(r, 's');
    keep_token(r, token, n);
    /* No response to give once the node has accepted. */
    r->response_outside = cass_authenticator_response(auth, 4) == NULL;
    cass_authenticator_set_response(auth, "late", 4);
    maybe_fail(auth, r, 's');
}

static void on_cleanup(CassAuthenticator *auth, void *data)
{
    record *r = data;
    note(r, 'x');
    int *round = cass_authenticator_exchange_data(auth);
    if (round) {
        free(round);
        r->exchange_frees++;
    }
}

static void on_data_cleanup(void *data)
{
    ((record *)data)->data_cleanups++;
}

static const CassAuthenticatorCallbacks ALL = {on_initial, on_challenge, on_success, on_cleanup};

static CassCluster *cluster_with(const CassAuthenticatorCallbacks *cb, record *r)
{
    CassCluster *c = cass_cluster_new();
    ASSERT(c != NULL);
    ASSERT_EQ(cass_cluster_set_authenticator_callbacks(c, cb, on_data_cleanup, r), CASS_OK);
    return c;
}

static const CassInet ADDR = {{10, 0, 0, 7}, 4};
static const char CLASS[] = "com.example.auth.TicketAuthenticator";

static cql_drv_auth *begin(const CassCluster *c)
{
    cql_drv_auth *a = NULL;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_drv_auth_begin(c, &ADDR, "node7.example", CLASS, &a, &err), &err);
    ASSERT(a != NULL);
    return a;
}

static int buf_is(const eng_buf *b, const char *s)
{
    return b->len == strlen(s) && (b->len == 0 || memcmp(b->p, s, b->len) == 0);
}

TEST(callbacks_run_in_exchange_order_with_data_and_responses)
{
    record r = {0};
    CassCluster *c = cluster_with(&ALL, &r);
    cql_drv_auth *a = begin(c);
    eng_buf resp = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);

    ASSERT_OK_ERR(cql_drv_auth_initial(a, &resp, &err), &err);
    ASSERT(buf_is(&resp, "hello"));
    ASSERT_STR_EQ(r.hostname, "node7.example");
    ASSERT_STR_EQ(r.class_name, CLASS);
    ASSERT_EQ(r.address.address_length, 4);
    ASSERT_MEM_EQ(r.address.address, ADDR.address, 4);

    ASSERT_OK_ERR(cql_drv_auth_challenge(a, (const uint8_t *)"nonce-1", 7, &resp, &err), &err);
    ASSERT(buf_is(&resp, "answer-1")); /* the exchange data counted the round */
    ASSERT_STR_EQ(r.last_token, "nonce-1");
    ASSERT_OK_ERR(cql_drv_auth_challenge(a, NULL, -1, &resp, &err), &err); /* a null token */
    ASSERT(buf_is(&resp, "answer-2"));
    ASSERT_STR_EQ(r.last_token, "");

    ASSERT_OK_ERR(cql_drv_auth_success(a, (const uint8_t *)"welcome", 7, &err), &err);
    ASSERT_STR_EQ(r.last_token, "welcome");
    ASSERT_EQ(r.response_outside, 1);
    ASSERT(buf_is(&resp, "answer-2")); /* set_response in success touched nothing */
    ASSERT_STR_EQ(r.log, "iccs");

    cql_drv_auth_end(a);
    ASSERT_STR_EQ(r.log, "iccsx");
    ASSERT_EQ(r.exchange_frees, 1);
    ASSERT_EQ(r.data_cleanups, 0); /* the cluster still holds the callbacks */
    cass_cluster_free(c);
    ASSERT_EQ(r.data_cleanups, 1);
    eng_buf_free(&resp);
}

TEST(an_error_set_in_a_callback_fails_that_step_with_bad_credentials)
{
    static const struct {
        const char *step;
        const char *message;
    } cases[] = {
        {"i", "Failed creating initial response token: no ticket"},
        {"c", "Failed evaluating challenge token: no ticket"},
        {"s", "Failed evaluating success token: no ticket"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        record r = {.fail_in = cases[k].step, .error = "no ticket"};
        CassCluster *c = cluster_with(&ALL, &r);
        cql_drv_auth *a = begin(c);
        eng_buf resp = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        int rc = cql_drv_auth_initial(a, &resp, &err);
        if (!rc)
            rc = cql_drv_auth_challenge(a, (const uint8_t *)"n", 1, &resp, &err);
        if (!rc)
            rc = cql_drv_auth_success(a, (const uint8_t *)"ok", 2, &err);
        ASSERT_EQ(rc, ENG_E_BAD_CREDENTIALS);
        ASSERT_EQ(err.code, ENG_E_BAD_CREDENTIALS);
        ASSERT_EQ(cql_drv_error_of(&err), CASS_ERROR_SERVER_BAD_CREDENTIALS);
        ASSERT_STR_EQ(err.msg, cases[k].message);
        cql_drv_auth_end(a); /* the connection ends the exchange after a failed step too */
        ASSERT_EQ(r.log[strlen(r.log) - 1], 'x');
        ASSERT_EQ(r.exchange_frees, 1);
        cass_cluster_free(c);
        ASSERT_EQ(r.data_cleanups, 1);
        eng_buf_free(&resp);
    }
}

/* The driver tests error().empty(): an empty message is no error. The error of one step does
   not outlive it either. */
static void on_initial_empty_error(CassAuthenticator *auth, void *data)
{
    (void)data;
    cass_authenticator_set_error(auth, "");
    cass_authenticator_set_error_n(auth, "ignored", 0);
}

TEST(an_empty_error_is_no_error)
{
    record r = {0};
    CassAuthenticatorCallbacks cb = {on_initial_empty_error, NULL, NULL, NULL};
    CassCluster *c = cluster_with(&cb, &r);
    cql_drv_auth *a = begin(c);
    eng_buf resp = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_drv_auth_initial(a, &resp, &err), &err);
    cql_drv_auth_end(a);
    cass_cluster_free(c);
    ASSERT_EQ(r.data_cleanups, 1);
    eng_buf_free(&resp);
}

TEST(missing_callbacks_succeed_with_empty_responses)
{
    record r = {0};
    CassAuthenticatorCallbacks none = {NULL, NULL, NULL, NULL};
    CassCluster *c = cluster_with(&none, &r);
    cql_drv_auth *a = begin(c);
    eng_buf resp = ENG_BUF_INIT;
    eng_buf_put(&resp, "stale", 5);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_drv_auth_initial(a, &resp, &err), &err);
    ASSERT_EQ(resp.len, 0);
    ASSERT_OK_ERR(cql_drv_auth_challenge(a, (const uint8_t *)"x", 1, &resp, &err), &err);
    ASSERT_EQ(resp.len, 0);
    ASSERT_OK_ERR(cql_drv_auth_success(a, NULL, -1, &err), &err);
    cql_drv_auth_end(a);
    cass_cluster_free(c);
    ASSERT_EQ(r.data_cleanups, 1);
    eng_buf_free(&resp);
}

/* cass_authenticator_response resizes as std::string::resize: kept bytes, zeroed new ones. */
static void on_initial_resize(CassAuthenticator *auth, void *data)
{
    (void)data;
    cass_authenticator_set_response(auth, "abcdef", 6);
    char *p = cass_authenticator_response(auth, 3);
    ASSERT(p != NULL);
    ASSERT_MEM_EQ(p, "abc", 3);
    p = cass_authenticator_response(auth, 5);
    ASSERT(p != NULL);
    ASSERT_MEM_EQ(p, "abc\0\0", 5);
    p[4] = 'z';
    ASSERT(cass_authenticator_response(auth, 0) != NULL); /* empty, yet an address */
    cass_authenticator_set_response(auth, "xyz", 3);
}

TEST(the_response_buffer_resizes_and_set_response_replaces_it)
{
    record r = {0};
    CassAuthenticatorCallbacks cb = {on_initial_resize, NULL, NULL, NULL};
    CassCluster *c = cluster_with(&cb, &r);
    cql_drv_auth *a = begin(c);
    eng_buf resp = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_drv_auth_initial(a, &resp, &err), &err);
    ASSERT(buf_is(&resp, "xyz"));
    cql_drv_auth_end(a);
    cass_cluster_free(c);
    eng_buf_free(&resp);
}

TEST(the_data_cleanup_waits_for_the_last_holder)
{
    record r = {0};
    CassCluster *c = cluster_with(&ALL, &r);
    CassCluster *copy = cql_drv_cluster_copy(c); /* what a session connects with */
    ASSERT(copy != NULL);
    cass_cluster_free(c);
    ASSERT_EQ(r.data_cleanups, 0);
    cql_drv_auth *a = begin(copy);
    cass_cluster_free(copy); /* the exchange keeps the callbacks alive */
    ASSERT_EQ(r.data_cleanups, 0);
    eng_buf resp = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_drv_auth_initial(a, &resp, &err), &err);
    cql_drv_auth_end(a);
    ASSERT_STR_EQ(r.log, "ix");
    ASSERT_EQ(r.data_cleanups, 1);
    eng_buf_free(&resp);
}

TEST(credentials_and_callbacks_replace_each_other)
{
    record r1 = {0}, r2 = {0};
    CassCluster *c = cluster_with(&ALL, &r1);
    /* New callbacks: the old ones' data is released at once (no one else holds them). */
    ASSERT_EQ(cass_cluster_set_authenticator_callbacks(c, &ALL, on_data_cleanup, &r2), CASS_OK);
    ASSERT_EQ(r1.data_cleanups, 1);
    /* Credentials: the callbacks go, the exchange is SASL PLAIN. */
    cass_cluster_set_credentials(c, "alice", "s3cret");
    ASSERT_EQ(r2.data_cleanups, 1);
    cql_drv_auth *a = begin(c);
    eng_buf resp = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_drv_auth_initial(a, &resp, &err), &err);
    ASSERT_EQ(resp.len, 13);
    ASSERT_MEM_EQ(resp.p, "\0alice\0s3cret", 13);
    ASSERT_OK_ERR(cql_drv_auth_challenge(a, (const uint8_t *)"?", 1, &resp, &err), &err);
    ASSERT_EQ(resp.len, 0);
    ASSERT_OK_ERR(cql_drv_auth_success(a, NULL, -1, &err), &err);
    cql_drv_auth_end(a);
    ASSERT_STR_EQ(r1.log, "");
    ASSERT_STR_EQ(r2.log, "");
    /* Callbacks again: the credentials go. */
    record r3 = {0};
    ASSERT_EQ(cass_cluster_set_authenticator_callbacks(c, &ALL, on_data_cleanup, &r3), CASS_OK);
    ASSERT(c->username == NULL && c->password == NULL);
    a = begin(c);
    ASSERT_OK_ERR(cql_drv_auth_initial(a, &resp, &err), &err);
    ASSERT(buf_is(&resp, "hello"));
    cql_drv_auth_end(a);
    ASSERT_STR_EQ(r3.log, "ix");
    cass_cluster_free(c);
    ASSERT_EQ(r3.data_cleanups, 1);
    ASSERT_EQ(r1.data_cleanups, 1);
    ASSERT_EQ(r2.data_cleanups, 1);
    eng_buf_free(&resp);
}

TEST(no_authenticator_is_the_drivers_error)
{
    CassCluster *c = cass_cluster_new();
    cql_drv_auth *a = (cql_drv_auth *)(uintptr_t)1; /* must become NULL */
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(cql_drv_auth_begin(c, &ADDR, "h", CLASS, &a, &err), ENG_E_BAD_CREDENTIALS);
    ASSERT(a == NULL);
    ASSERT_STR_EQ(err.msg, "Authentication required but no auth provider set");
    cql_drv_auth_end(NULL); /* a no-op */
    cass_cluster_free(c);
}

TEST(bad_arguments_are_refused_and_null_strings_are_empty)
{
    record r = {0};
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_authenticator_callbacks(NULL, &ALL, on_data_cleanup, &r),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_authenticator_callbacks(c, NULL, on_data_cleanup, &r),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(r.data_cleanups, 0); /* refused: the caller keeps its data */
    ASSERT_EQ(cass_cluster_set_authenticator_callbacks(c, &ALL, NULL, &r), CASS_OK);
    cql_drv_auth *a = NULL;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_drv_auth_begin(c, NULL, NULL, NULL, &a, &err), &err);
    size_t n = 9;
    ASSERT_STR_EQ(cass_authenticator_hostname(a, &n), "");
    ASSERT_EQ(n, 0);
    ASSERT_STR_EQ(cass_authenticator_class_name(a, NULL), "");
    CassInet addr = ADDR;
    cass_authenticator_address(a, &addr);
    ASSERT_EQ(addr.address_length, 0);
    cql_drv_auth_end(a);
    ASSERT_STR_EQ(r.log, "x"); /* cleanup without a step */
    cass_cluster_free(c);
    ASSERT_EQ(r.data_cleanups, 0); /* no data cleanup callback was given */
}

/* Every allocation of setting the callbacks and running an exchange fails in turn: an error
   code each time, the cleanups still run once, and nothing leaks (the asan build checks). */
TEST(allocation_failures_fail_cleanly)
{
    for (long k = 0; k < 64; k++) {
        record r = {0};
        CassCluster *c = cass_cluster_new();
        ASSERT(c != NULL);
        eng_alloc_fail_after(k);
        CassError set = cass_cluster_set_authenticator_callbacks(c, &ALL, on_data_cleanup, &r);
        cql_drv_auth *a = NULL;
        eng_buf resp = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        int rc = set == CASS_OK ? cql_drv_auth_begin(c, &ADDR, "h", CLASS, &a, &err) : -1;
        if (!rc)
            rc = cql_drv_auth_initial(a, &resp, &err);
        if (!rc)
            rc = cql_drv_auth_challenge(a, (const uint8_t *)"n", 1, &resp, &err);
        eng_alloc_fail_after(-1);
        if (set != CASS_OK)
            ASSERT_EQ(set, CASS_ERROR_LIB_INTERNAL_ERROR);
        else if (rc)
            ASSERT_EQ(rc, ENG_E_NOMEM);
        int done = set == CASS_OK && rc == 0;
        cql_drv_auth_end(a);
        if (a)
            ASSERT_EQ(r.log[strlen(r.log) - 1], 'x');
        cass_cluster_free(c);
        ASSERT_EQ(r.data_cleanups, set == CASS_OK ? 1 : 0);
        eng_buf_free(&resp);
        if (done)
            return; /* k passed every allocation */
    }
    ASSERT(!"still failing after 64 allocations");
}
