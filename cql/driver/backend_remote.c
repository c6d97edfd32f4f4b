/*
 * The remote backend (backend.h): a Cassandra or ScyllaDB cluster -- or
 * `cassette serve` processes -- reached over the native protocol, for every
 * contact point that is not an embedded database: host names and addresses,
 * or the URI cql://host[:port][,host[:port]...][/keyspace].
 *
 * remote_cluster.c knows the cluster (hosts, pools, events, the ring); this
 * file runs requests on it as the driver's request handler does:
 *
 *  - A request goes along its query plan (cql_remote_plan: token-aware, then
 *    DC-aware or round-robin, filtered), to a connection of the first host
 *    that has one; a host without a live connection is skipped.
 *  - An answer decides: a result ends the request; UNPREPARED prepares the
 *    statement again on that connection and sends it again; a server error
 *    goes to the retry policy where the driver asks it (read timeouts and
 *    unavailable always; write timeouts, OVERLOADED and SERVER_ERROR only for
 *    idempotent requests): retry on the same host, on the next, ignore, or
 *    fail; a connection lost before the answer sends an idempotent request to
 *    the next host and fails any other.
 *  - Speculative executions (an idempotent request, the constant policy):
 *    after the delay without an answer, the same request starts on the next
 *    host, up to the policy's count; the first answer wins.
 *  - Each connection carries the session's keyspace: one that was not told
 *    the last USE gets it before the request.
 *
 * The request timeout bounds the whole request, retries included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "cql/driver/remote.h"
#include "engine/value/token.h"

#define MAX_PLAN 32

/* A statement prepared here: its id, which the server derives from the keyspace and text. */
typedef struct remote_handle {
    uint8_t *id;
    uint16_t id_len;
    _Atomic int full_metadata; /* a re-prepare found other result columns than the statement
                                  was prepared with: ask for them with every answer */
} remote_handle;

/* ---- requests ---- */

/* A prepared statement a request runs (a batch may hold several): for UNPREPARED. */
typedef struct call_prepared {
    const CassPrepared *prepared; /* referenced until the request ends */
    eng_val id;                   /* its id as sent (into owned or the handle) */
    uint8_t *owned;
} call_prepared;

typedef struct attempt {
    struct call *c;
    rhost *host;
    rconn *conn;
    int reprepared;
    const CassPrepared *reprepared_of; /* the statement prepared again (the call holds it) */
    int speculative;
    uint64_t started_us;
} attempt;

typedef struct call {
    cql_backend *b;
    pthread_mutex_t lock;
    int refs;                   /* the starter's, each attempt's, a speculative timer's */
    int finished;               /* the outcome was given (under lock) */
    int in_flight;              /* attempts sent and not answered (under lock) */
    cql_backend_done done;
    void *arg;
    uint8_t opcode, flags;
    eng_buf body;
    size_t cl_at;               /* offset of the consistency [short] in body; 0: not known */
    call_prepared *prep;
    uint32_t n_prep;
    const cql_column_spec *known; /* the columns of a ROWS answer sent without them (under
                                     lock once sent) */
    uint32_t n_known;
    cql_result *fresh_meta;       /* a re-prepare's answer, whose columns known then names */
    uint64_t started_us, deadline_us; /* deadline 0: no request timeout */
    int idempotent;
    const CassRetryPolicy *retry;
    int consistency;
    rhost *plan[MAX_PLAN];
    unsigned n_plan, next_host; /* under lock */
    unsigned retries;
    int spec_left;
    int speculates;             /* idempotent under a speculative policy: attempts are timed */
    uint64_t spec_delay_ms;
    CassNode *coordinator;
    attempt first;              /* the first attempt's room: one allocation for most requests */
    int first_taken;            /* (under lock) */
    int last_rc;                /* the last failure (under lock), for when every host failed */
    eng_err *last_err;          /* its error (under lock; on the heap: a call stays small) */
} call;

static void call_unref(call *c)
{
    pthread_mutex_lock(&c->lock);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&c->lock);
    if (!last)
        return;
    for (uint32_t i = 0; i < c->n_prep; i++) {
        cql_drv_prepared_unref(c->prep[i].prepared);
        free(c->prep[i].owned);
    }
    free(c->prep);
    free(c->last_err);
    cql_result_free(c->fresh_meta);
    eng_buf_free(&c->body);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Gives the request its outcome, once: later answers are dropped. */
static void call_finish(call *c, rhost *host, int rc, const eng_err *err, cql_result *r)
{
    pthread_mutex_lock(&c->lock);
    int first = !c->finished;
    c->finished = 1;
    pthread_mutex_unlock(&c->lock);
    if (!first) {
        cql_result_free(r);
        return;
    }
    if (host && c->coordinator) {
        c->coordinator->address = host->inet;
        c->coordinator->port = host->port;
    }
    if (rc == CQL_E_TIMEOUT)
        atomic_fetch_add(&c->b->request_timeouts, 1);
    if (rc)
        c->done(c->arg, rc, err, NULL);
    else
        c->done(c->arg, 0, NULL, r);
}

static void attempt_start(call *c, int speculative);
static void attempt_send(attempt *a);

/* An attempt is over: its reference goes. */
static void attempt_end(attempt *a)
{
    call *c = a->c;
    if (a->conn)
        cql_remote_release(c->b, a->conn);
    if (a != &c->first)
        free(a);
    call_unref(c);
}

/* The attempt failed: the next host when allowed, else the request fails -- unless another
   attempt (a speculative one) is still out, whose answer then decides. */
static void attempt_failed(attempt *a, int rc, const eng_err *err, int next_host)
{
    call *c = a->c;
    eng_err *copy = malloc(sizeof *copy);
    if (copy)
        *copy = *err;
    pthread_mutex_lock(&c->lock);
    c->in_flight--;
    c->last_rc = rc;
    eng_err *old = c->last_err;
    c->last_err = copy ? copy : old;
    pthread_mutex_unlock(&c->lock);
    if (copy)
        free(old);
    pthread_mutex_lock(&c->lock);
    int others = c->in_flight > 0, done = c->finished;
    pthread_mutex_unlock(&c->lock);
    if (!done && next_host) {
        attempt_start(c, 0);
    } else if (!done && !others) {
        call_finish(c, a->host, rc, err, NULL);
    }
    attempt_end(a);
}

/* The attempt answered with the request's outcome (result r taken over). */
static void attempt_done(attempt *a, int rc, const eng_err *err, cql_result *r)
{
    call *c = a->c;
    pthread_mutex_lock(&c->lock);
    c->in_flight--;
    pthread_mutex_unlock(&c->lock);
    call_finish(c, a->host, rc, err, r);
    attempt_end(a);
}

/* ---- retry decisions (the driver's retry_policy.cpp) ---- */

enum decision { RETURN_ERROR, RETRY_SAME, RETRY_NEXT, IGNORE };

static enum decision retry_with(int cl, int *new_cl, enum decision d)
{
    *new_cl = cl;
    return d;
}

/* The downgrading policy's "maximum likely to work". */
static enum decision max_likely(int received, int *new_cl)
{
    if (received <= 0)
        return RETURN_ERROR;
    *new_cl = received >= 3 ? CASS_CONSISTENCY_THREE
              : received == 2 ? CASS_CONSISTENCY_TWO
                              : CASS_CONSISTENCY_ONE;
    return RETRY_SAME;
}

static enum decision decide(int kind, int code, const cql_proto_error *e, int cl,
                            unsigned retries, int *new_cl)
{
    *new_cl = cl;
    if (kind == CQL_DRV_RETRY_FALLTHROUGH)
        return RETURN_ERROR;
    int downgrading = kind == CQL_DRV_RETRY_DOWNGRADING;
    switch (code) {
    case ENG_E_READ_TIMEOUT:
        if (retries)
            return RETURN_ERROR;
        if (downgrading) {
            if (cl == CASS_CONSISTENCY_SERIAL || cl == CASS_CONSISTENCY_LOCAL_SERIAL)
                return RETURN_ERROR;
            if (e->required_or_received < e->alive_or_block_for)
                return max_likely(e->required_or_received, new_cl);
        } else if (e->required_or_received < e->alive_or_block_for) {
            return RETURN_ERROR;
        }
        return e->data_present ? RETURN_ERROR : retry_with(cl, new_cl, RETRY_SAME);
    case ENG_E_WRITE_TIMEOUT: {
        if (retries)
            return RETURN_ERROR;
        const char *wt = e->write_type ? e->write_type : "";
        if (!strcmp(wt, "BATCH_LOG"))
            return RETRY_SAME;
        if (downgrading && (!strcmp(wt, "SIMPLE") || !strcmp(wt, "BATCH")))
            return e->required_or_received > 0 ? IGNORE : RETURN_ERROR;
        if (downgrading && !strcmp(wt, "UNLOGGED_BATCH"))
            return max_likely(e->required_or_received, new_cl);
        return RETURN_ERROR;
    }
    case ENG_E_UNAVAILABLE:
        if (retries)
            return RETURN_ERROR;
        return downgrading ? max_likely(e->alive_or_block_for, new_cl) : RETRY_NEXT;
    default: /* OVERLOADED, SERVER_ERROR */
        return RETRY_NEXT;
    }
}

static const char *decision_name(enum decision d)
{
    return d == IGNORE ? "Ignoring" : d == RETURN_ERROR ? "Not retrying" : "Retrying";
}

/* The policy's decision on a server error; RETURN_ERROR where the driver asks no policy. */
static enum decision on_error(call *c, const attempt *a, const cql_proto_response *resp,
                              int *new_cl)
{
    int code = resp->err.code;
    *new_cl = c->consistency;
    int asked = code == ENG_E_READ_TIMEOUT || code == ENG_E_UNAVAILABLE ||
                ((code == ENG_E_WRITE_TIMEOUT || code == ENG_E_OVERLOADED ||
                  code == ENG_E_SERVER) &&
                 c->idempotent);
    if (code == ENG_E_IS_BOOTSTRAPPING)
        return RETRY_NEXT;
    if (!asked)
        return RETURN_ERROR;
    const CassRetryPolicy *p = c->retry;
    int logging = p && p->kind == CQL_DRV_RETRY_LOGGING;
    int kind = !p ? CQL_DRV_RETRY_DEFAULT : logging ? (p->child ? p->child->kind : 0) : p->kind;
    enum decision d = decide(kind, code, &resp->error, c->consistency, c->retries, new_cl);
    if (logging && d != RETURN_ERROR)
        cql_drv_log(CASS_LOG_INFO, __FILE__, __LINE__, __func__,
                    "%s on %s from %s:%d at consistency %s (initial consistency: %s, retries: "
                    "%u)",
                    decision_name(d), resp->err.msg, a->host->addr, a->host->port,
                    cass_consistency_string((CassConsistency)*new_cl),
                    cass_consistency_string((CassConsistency)c->consistency), c->retries);
    return d;
}

/* ---- answers ---- */

static void on_answer(void *arg, int rc, const eng_err *err, cql_proto_response *resp);

/* 1 if two PREPARED results describe the same result columns (names and types). */
static int same_columns(const cql_result *a, const cql_result *b)
{
    if (a->n_cols != b->n_cols)
        return 0;
    for (uint32_t i = 0; i < a->n_cols; i++) {
        const cql_column_spec *x = &a->cols[i], *y = &b->cols[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") ||
            (x->type && y->type && !eng_type_equal(x->type, y->type)))
            return 0;
    }
    return 1;
}

/* A result whose columns name themselves from a re-prepare's answer keeps that answer. */
typedef struct held_meta {
    void (*release)(void *);
    void *release_arg;
    cql_result *meta;
} held_meta;

static void release_held_meta(void *arg)
{
    held_meta *h = arg;
    if (h->release)
        h->release(h->release_arg);
    cql_result_free(h->meta);
    free(h);
}

/* Hands the call's re-prepared metadata to r, whose columns borrow its names and types. 0, or
   -1 when memory runs out. */
static int keep_fresh_meta(call *c, cql_result *r)
{
    pthread_mutex_lock(&c->lock);
    cql_result *meta = c->fresh_meta;
    c->fresh_meta = NULL;
    pthread_mutex_unlock(&c->lock);
    if (!meta)
        return 0;
    held_meta *h = malloc(sizeof *h);
    if (!h) {
        cql_result_free(meta);
        return -1;
    }
    *h = (held_meta){r->release, r->release_arg, meta};
    r->release = release_held_meta;
    r->release_arg = h;
    return 0;
}

static void on_reprepared(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    attempt *a = arg;
    call *c = a->c;
    cql_result *r = NULL;
    eng_err e;
    eng_err_clear(&e);
    int code = cql_remote_outcome(rc, err, resp, &e, &r);
    if (code) {
        attempt_failed(a, code, &e, 0);
        return;
    }
    /* The server forgot the statement because its table changed (Cassandra drops the
       statements of an altered table): the answer names the columns rows now have. This
       request reads them with those; later ones ask for the columns with every answer. */
    const CassPrepared *p = a->reprepared_of;
    const cql_result *old = p ? p->meta : NULL;
    pthread_mutex_lock(&c->lock);
    int skipping = c->known != NULL;
    pthread_mutex_unlock(&c->lock);
    if (r && r->kind == CQL_RESULT_PREPARED && old && skipping && !same_columns(old, r)) {
        if (p->backend == &cql_backend_remote && p->handle)
            atomic_store(&((remote_handle *)p->handle)->full_metadata, 1);
        pthread_mutex_lock(&c->lock);
        if (!c->fresh_meta) { /* (a concurrent re-prepare's stays: sends may use it) */
            c->fresh_meta = r;
            c->known = r->cols;
            c->n_known = r->n_cols;
            r = NULL;
        }
        pthread_mutex_unlock(&c->lock);
    }
    cql_result_free(r);
    /* the same text in the same keyspace has the same id: the request goes again as it was */
    attempt_send(a);
}

/* The prepared statement of the request that the server says it does not know. */
static const CassPrepared *unprepared_of(const call *c, const cql_proto_error *e)
{
    for (uint32_t i = 0; i < c->n_prep; i++)
        if (c->n_prep == 1 || (e->unprepared_id.len == c->prep[i].id.len &&
                               !memcmp(e->unprepared_id.p, c->prep[i].id.p,
                                       (size_t)c->prep[i].id.len)))
            return c->prep[i].prepared;
    return NULL;
}

static void note_keyspace(cql_backend *b, rconn *conn, const cql_result *r)
{
    char *ks = strdup(r->keyspace), *ks2 = strdup(r->keyspace);
    pthread_mutex_lock(&b->lock);
    free(b->keyspace);
    b->keyspace = ks;
    free(conn->keyspace);
    conn->keyspace = ks2;
    pthread_mutex_unlock(&b->lock);
}

static void on_answer(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    attempt *a = arg;
    call *c = a->c;
    pthread_mutex_lock(&c->lock);
    int late = c->finished;
    pthread_mutex_unlock(&c->lock);
    if (late) { /* another execution answered first: this one was aborted */
        if (resp)
            cql_result_free(resp->result);
        pthread_mutex_lock(&c->b->hist_lock);
        cql_drv_hist_add(c->b->spec_hist, cql_drv_now_us() - a->started_us);
        pthread_mutex_unlock(&c->b->hist_lock);
        atomic_fetch_add(&c->b->speculative_count, 1);
        pthread_mutex_lock(&c->lock);
        c->in_flight--;
        pthread_mutex_unlock(&c->lock);
        attempt_end(a);
        return;
    }
    if (!rc && resp->opcode == CQL_PROTO_ERROR && resp->err.code == ENG_E_UNPREPARED &&
        !a->reprepared) {
        const CassPrepared *p = unprepared_of(c, &resp->error);
        if (p) {
            a->reprepared = 1;
            a->reprepared_of = p;
            eng_buf body = ENG_BUF_INIT;
            cql_proto_put_prepare(&body, c->b->version, (const uint8_t *)p->query, p->query_len,
                                  NULL);
            cql_conn_send(a->conn->conn, CQL_PROTO_PREPARE, body.p, body.len, NULL, 0,
                          on_reprepared, a);
            eng_buf_free(&body);
            return;
        }
    }
    if (rc) { /* no answer: the connection went down, its queue is full, or the request timed
                 out -- a full queue sends it to the next host, as a lack of streams does */
        eng_err e = *err;
        attempt_failed(a, rc, &e,
                       rc == CQL_E_QUEUE_FULL || (rc == CQL_E_CLOSED && c->idempotent));
        return;
    }
    if (resp->opcode == CQL_PROTO_ERROR) {
        int new_cl;
        enum decision d = on_error(c, a, resp, &new_cl);
        eng_err e = resp->err;
        if (d == IGNORE) {
            attempt_done(a, 0, NULL, NULL);
            return;
        }
        if (d == RETURN_ERROR) {
            attempt_done(a, e.code, &e, NULL);
            return;
        }
        pthread_mutex_lock(&c->lock);
        c->retries++;
        /* a new level goes into the body while no other execution may be sending it */
        if (new_cl != c->consistency && c->in_flight == 1 && c->cl_at &&
            c->cl_at + 2 <= c->body.len) {
            c->body.p[c->cl_at] = (uint8_t)(new_cl >> 8);
            c->body.p[c->cl_at + 1] = (uint8_t)new_cl;
            c->consistency = new_cl;
        }
        pthread_mutex_unlock(&c->lock);
        if (d == RETRY_SAME) {
            a->reprepared = 0;
            attempt_send(a);
            return;
        }
        attempt_failed(a, e.code, &e, 1);
        return;
    }
    cql_result *r = NULL;
    eng_err e;
    eng_err_clear(&e);
    int code = cql_remote_outcome(0, NULL, resp, &e, &r);
    if (!code && r->kind == CQL_RESULT_SET_KEYSPACE && r->keyspace)
        note_keyspace(c->b, a->conn, r); /* the session's, for every connection */
    if (!code && r->kind == CQL_RESULT_ROWS && keep_fresh_meta(c, r)) {
        cql_result_free(r);
        r = NULL;
        code = eng_errorf(&e, ENG_E_NOMEM, "out of memory reading a result");
    }
    attempt_done(a, code, &e, r);
}

/* ---- sending ---- */

static void speculate(void *arg);

/* A speculative execution after the policy's delay, while the request may still use one. */
static void speculate_later(call *c)
{
    if (!c->idempotent || c->spec_left <= 0)
        return;
    if (!c->spec_delay_ms) { /* no delay: the next execution starts now, as the driver's */
        pthread_mutex_lock(&c->lock);
        c->spec_left--;
        int go = !c->finished && c->next_host < c->n_plan;
        pthread_mutex_unlock(&c->lock);
        if (go)
            attempt_start(c, 1);
        return;
    }
    rtask *t = calloc(1, sizeof *t);
    if (!t)
        return;
    pthread_mutex_lock(&c->lock);
    c->spec_left--;
    c->refs++;
    pthread_mutex_unlock(&c->lock);
    t->kind = TASK_SPECULATE;
    t->at_ms = cql_remote_now_ms() + c->spec_delay_ms;
    t->fire = speculate;
    t->arg = c;
    cql_remote_post(c->b, t);
}

static void speculate(void *arg)
{
    call *c = arg;
    pthread_mutex_lock(&c->b->lock);
    int stopping = c->b->stopping;
    pthread_mutex_unlock(&c->b->lock);
    pthread_mutex_lock(&c->lock);
    int go = !c->finished && !stopping && c->next_host < c->n_plan;
    pthread_mutex_unlock(&c->lock);
    if (go)
        attempt_start(c, 1);
    call_unref(c);
}

static void on_use(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    attempt *a = arg;
    cql_result *r = NULL;
    eng_err e;
    eng_err_clear(&e);
    int code = cql_remote_outcome(rc, err, resp, &e, &r);
    if (!code && r->kind == CQL_RESULT_SET_KEYSPACE && r->keyspace) {
        char *ks = strdup(r->keyspace);
        pthread_mutex_lock(&a->c->b->lock);
        free(a->conn->keyspace);
        a->conn->keyspace = ks;
        pthread_mutex_unlock(&a->c->b->lock);
    }
    cql_result_free(r);
    if (code) {
        attempt_failed(a, code, &e, code == CQL_E_CLOSED && a->c->idempotent);
        return;
    }
    attempt_send(a);
}

/* Sends the request on the attempt's connection -- after a USE when the connection has not
   been told the session's keyspace. */
static void attempt_send(attempt *a)
{
    call *c = a->c;
    cql_backend *b = c->b;
    char *use = NULL;
    pthread_mutex_lock(&b->lock);
    if (b->keyspace && (!a->conn->keyspace || strcmp(a->conn->keyspace, b->keyspace)))
        use = strdup(b->keyspace);
    pthread_mutex_unlock(&b->lock);
    uint64_t timeout_ms = 0;
    if (c->deadline_us) {
        uint64_t now = cql_drv_now_us();
        if (now >= c->deadline_us) {
            eng_err e;
            eng_err_clear(&e);
            eng_errorf(&e, CQL_E_TIMEOUT, "Request timed out");
            attempt_failed(a, CQL_E_TIMEOUT, &e, 0);
            free(use);
            return;
        }
        timeout_ms = (c->deadline_us - now + 999) / 1000;
    }
    if (use) {
        eng_buf body = ENG_BUF_INIT;
        int oom = cql_remote_put_use(b, use, &body);
        free(use);
        if (oom) {
            eng_buf_free(&body);
            eng_err e;
            eng_err_clear(&e);
            eng_errorf(&e, ENG_E_NOMEM, "out of memory sending a request");
            attempt_failed(a, ENG_E_NOMEM, &e, 0);
            return;
        }
        cql_conn_send_timed(a->conn->conn, CQL_PROTO_QUERY, body.p, body.len, timeout_ms, NULL, 0,
                            on_use, a);
        eng_buf_free(&body);
        return;
    }
    pthread_mutex_lock(&c->lock);
    const cql_column_spec *known = c->known;
    uint32_t n_known = c->n_known;
    pthread_mutex_unlock(&c->lock);
    cql_conn_send_flags(a->conn->conn, c->opcode, c->flags, c->body.p, c->body.len, timeout_ms,
                        known, n_known, on_answer, a);
}

/* A new attempt on the next host of the plan that has a live connection; when none is left,
   the request fails (unless an attempt is still out). */
static void attempt_start(call *c, int speculative)
{
    for (;;) {
        pthread_mutex_lock(&c->lock);
        rhost *h = c->next_host < c->n_plan && !c->finished ? c->plan[c->next_host++] : NULL;
        int others = c->in_flight > 0, done = c->finished, last_rc = c->last_rc;
        eng_err e;
        eng_err_clear(&e);
        if (!h && c->last_err)
            e = *c->last_err;
        pthread_mutex_unlock(&c->lock);
        if (!h) {
            if (!done && !others && !speculative) {
                if (!e.code)
                    eng_errorf(&e, CQL_E_NO_HOST,
                               "All hosts in current policy attempted and were either "
                               "unavailable or failed");
                call_finish(c, NULL, last_rc == CQL_E_CLOSED || !last_rc ? CQL_E_NO_HOST : last_rc,
                            &e, NULL);
            }
            return;
        }
        rconn *conn = cql_remote_pick(c->b, h);
        if (!conn)
            continue;
        pthread_mutex_lock(&c->lock);
        attempt *a = c->first_taken ? NULL : &c->first;
        c->first_taken = 1;
        pthread_mutex_unlock(&c->lock);
        if (!a)
            a = calloc(1, sizeof *a);
        if (!a) {
            cql_remote_release(c->b, conn);
            eng_err_clear(&e);
            eng_errorf(&e, ENG_E_NOMEM, "out of memory sending a request");
            call_finish(c, NULL, ENG_E_NOMEM, &e, NULL);
            return;
        }
        *a = (attempt){.c = c, .host = h, .conn = conn, .speculative = speculative,
                       .started_us = c->speculates ? cql_drv_now_us() : 0};
        pthread_mutex_lock(&c->lock);
        c->refs++;
        c->in_flight++;
        pthread_mutex_unlock(&c->lock);
        attempt_send(a);
        speculate_later(c);
        return;
    }
}

/* ---- building requests ---- */

static call *call_new(cql_backend *b, cql_backend_done done, void *arg, uint64_t timeout_ms,
                      int idempotent, const CassExecProfile *profile,
                      const CassRetryPolicy *retry, int consistency, CassNode *coordinator)
{
    call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->refs = 1;
    c->b = b;
    c->done = done;
    c->arg = arg;
    c->started_us = cql_drv_now_us();
    c->deadline_us = timeout_ms ? c->started_us + timeout_ms * 1000u : 0;
    c->idempotent = idempotent;
    c->retry = retry ? retry
               : profile && profile->retry_policy ? profile->retry_policy
                                                  : b->cluster->retry_policy;
    const CassExecProfile *sp =
        profile && profile->speculative != CQL_DRV_SPEC_UNSET ? profile : &b->cluster->routing;
    if (sp->speculative == CQL_DRV_SPEC_CONSTANT) {
        c->spec_left = sp->spec_max;
        c->spec_delay_ms = (uint64_t)sp->spec_delay_ms;
        c->speculates = idempotent && sp->spec_max > 0;
    }
    c->consistency = consistency;
    c->coordinator = coordinator;
    return c;
}

static uint16_t consistency_of(int cl, uint16_t dflt)
{
    return cl >= 0 && cl <= CQL_PROTO_CL_LOCAL_ONE ? (uint16_t)cl : dflt;
}

/* The protocol's query parameters of a request (views into req). */
static void params_of(const cql_request *req, eng_val *names, cql_proto_query_params *p)
{
    memset(p, 0, sizeof *p);
    p->consistency = consistency_of(req->consistency, CQL_PROTO_CL_ONE);
    p->serial_consistency = consistency_of(req->serial_consistency, CQL_PROTO_CL_SERIAL);
    p->n_values = (uint16_t)req->n_values;
    p->values = (eng_val *)req->values;
    if (req->names) {
        for (uint32_t i = 0; i < req->n_values; i++) {
            const char *n = req->names[i] ? req->names[i] : "";
            names[i] = (eng_val){(const uint8_t *)n, (int32_t)strlen(n)};
        }
        p->names = names;
    }
    p->page_size = req->page_size > 0 ? req->page_size : -1;
    p->paging_state = req->paging_state
                          ? (eng_val){req->paging_state, (int32_t)req->paging_state_len}
                          : (eng_val){NULL, -1};
    p->timestamp = req->timestamp;
}

/* A request's custom payload first in its body, flagged, when the version carries one (v4 and
   later; the driver sends none over v3). */
static void put_payload(cql_backend *b, call *c, uint16_t n, const eng_val *names,
                        const eng_val *vals)
{
    if (!n || b->version < 4)
        return;
    c->flags |= CQL_PROTO_FLAG_CUSTOM_PAYLOAD;
    cql_proto_put_custom_payload(&c->body, names, vals, n);
}

/*
 * The routing key of a request into key (cap bytes): a prepared statement's partition key
 * markers, or a simple statement's key indices; its keyspace into *ks. Returns the key's
 * length, or 0 when the request has none (a marker unbound or null).
 */
static size_t routing_key_of(const cql_request *req, uint8_t *key, size_t cap, const char **ks)
{
    eng_val parts[16];
    int n = 0;
    *ks = req->keyspace;
    const cql_result *meta = req->prepared ? req->prepared->meta : NULL;
    if (meta && meta->n_pk_binds) {
        for (uint32_t i = 0; i < meta->n_pk_binds && n < 16; i++) {
            uint16_t m = meta->pk_binds[i];
            if (m >= req->n_values)
                return 0;
            parts[n++] = req->values[m];
        }
        if (!*ks && meta->n_binds && meta->binds[0].ks)
            *ks = meta->binds[0].ks;
    } else if (req->key_indices) {
        for (uint32_t i = 0; i < req->n_key_indices && n < 16; i++) {
            size_t m = req->key_indices[i];
            if (m >= req->n_values)
                return 0;
            parts[n++] = req->values[m];
        }
    }
    if (!n)
        return 0;
    size_t need = 0;
    for (int i = 0; i < n; i++) {
        if (parts[i].len < 0)
            return 0;
        need += (size_t)parts[i].len + 3;
    }
    if (need > cap)
        return 0;
    if (n == 1) {
        memcpy(key, parts[0].p, (size_t)parts[0].len);
        return (size_t)parts[0].len;
    }
    eng_buf out = ENG_BUF_INIT;
    eng_partition_key_compose(&out, parts, n);
    size_t len = out.oom || out.len > cap ? 0 : out.len;
    if (len)
        memcpy(key, out.p, len);
    eng_buf_free(&out);
    return len;
}

static void plan_of(call *c, const cql_request *req, const CassExecProfile *profile)
{
    uint8_t key[1024];
    const char *ks = NULL;
    size_t key_len = req ? routing_key_of(req, key, sizeof key, &ks) : 0;
    c->n_plan = cql_remote_plan(c->b, profile, c->consistency, key_len ? key : NULL, key_len, ks,
                            req ? req->host : NULL, req ? req->host_port : 0, c->plan, MAX_PLAN);
}

/* PREPARE of a text on the first host of a plan that answers; its result. */
static int prepare_text(cql_backend *b, const char *query, size_t len, cql_result **meta,
                        rhost **on, eng_err *err)
{
    rhost *plan[MAX_PLAN];
    unsigned n = cql_remote_plan(b, NULL, CASS_CONSISTENCY_ONE, NULL, 0, NULL, NULL, 0, plan,
                             MAX_PLAN);
    eng_buf body = ENG_BUF_INIT;
    cql_proto_put_prepare(&body, b->version, (const uint8_t *)query, len, NULL);
    if (body.oom) {
        eng_buf_free(&body);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing");
    }
    int rc = eng_errorf(err, CQL_E_NO_HOST,
                        "All hosts in current policy attempted and were either unavailable or "
                        "failed");
    for (unsigned i = 0; i < n; i++) {
        rconn *c = cql_remote_pick(b, plan[i]);
        if (!c)
            continue;
        eng_err_clear(err);
        rc = cql_remote_call_on(c->conn, CQL_PROTO_PREPARE, &body, meta, err);
        cql_remote_release(b, c);
        if (rc != CQL_E_CLOSED) {
            if (on)
                *on = plan[i];
            break;
        }
    }
    if (!rc && (*meta)->kind != CQL_RESULT_PREPARED) {
        cql_result_free(*meta);
        *meta = NULL;
        rc = eng_errorf(err, ENG_E_PROTOCOL, "PREPARE was not answered with PREPARED");
    }
    if (!rc && on && b->cluster->prepare_on_all_hosts) {
        /* the other hosts too, so that their first EXECUTE finds it (failures do not matter:
           an UNPREPARED answer prepares it again) */
        for (unsigned i = 0; i < n; i++) {
            if (plan[i] == *on)
                continue;
            rconn *c = cql_remote_pick(b, plan[i]);
            if (!c)
                continue;
            cql_result *other = NULL;
            eng_err ignored;
            eng_err_clear(&ignored);
            cql_remote_call_on(c->conn, CQL_PROTO_PREPARE, &body, &other, &ignored);
            cql_result_free(other);
            cql_remote_release(b, c);
        }
    }
    eng_buf_free(&body);
    return rc;
}

static remote_handle *handle_of(const cql_result *meta)
{
    remote_handle *h = calloc(1, sizeof *h);
    if (h && meta->prepared_id.len > 0 && (h->id = malloc((size_t)meta->prepared_id.len))) {
        memcpy(h->id, meta->prepared_id.p, (size_t)meta->prepared_id.len);
        h->id_len = (uint16_t)meta->prepared_id.len;
        return h;
    }
    free(h);
    return NULL;
}

static int remote_prepare(cql_backend *b, const char *query, size_t len, cql_result **meta,
                          void **handle, eng_err *err)
{
    *handle = NULL;
    rhost *on = NULL;
    int rc = prepare_text(b, query, len, meta, &on, err);
    if (rc)
        return rc;
    if (!(*handle = handle_of(*meta))) {
        cql_result_free(*meta);
        *meta = NULL;
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing");
    }
    return 0;
}

static void remote_handle_free(void *handle)
{
    remote_handle *h = handle;
    if (h)
        free(h->id);
    free(h);
}

/* A prepared statement's id here, kept in cp: its handle's, or (made by another backend)
   prepared now. */
static int id_of(cql_backend *b, const CassPrepared *prep, call_prepared *cp, eng_err *err)
{
    cp->prepared = cql_drv_prepared_ref(prep);
    if (prep->backend == &cql_backend_remote && prep->handle) {
        const remote_handle *h = prep->handle;
        cp->id = (eng_val){h->id, h->id_len};
        return 0;
    }
    cql_result *meta = NULL;
    int rc = prepare_text(b, prep->query, prep->query_len, &meta, NULL, err);
    if (!rc && meta->prepared_id.len > 0 && (cp->owned = malloc((size_t)meta->prepared_id.len))) {
        memcpy(cp->owned, meta->prepared_id.p, (size_t)meta->prepared_id.len);
        cp->id = (eng_val){cp->owned, meta->prepared_id.len};
    } else if (!rc) {
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory preparing");
    }
    cql_result_free(meta);
    return rc;
}

static void remote_execute(cql_backend *b, const cql_request *req, cql_backend_done done,
                           void *arg)
{
    eng_err err;
    eng_err_clear(&err);
    call *c = call_new(b, done, arg, req->timeout_ms, req->idempotent, req->profile,
                       req->retry_policy, consistency_of(req->consistency, CQL_PROTO_CL_ONE),
                       req->coordinator);
    eng_val *names = req->names ? calloc(req->n_values ? req->n_values : 1, sizeof *names) : NULL;
    if (!c || (req->names && !names) ||
        (req->prepared && !(c->prep = calloc(1, sizeof *c->prep)))) {
        if (c)
            call_unref(c);
        free(names);
        eng_errorf(&err, ENG_E_NOMEM, "out of memory sending a request");
        done(arg, ENG_E_NOMEM, &err, NULL);
        return;
    }
    if (req->tracing)
        c->flags |= CQL_PROTO_FLAG_TRACING;
    cql_proto_query_params p;
    params_of(req, names, &p);
    int rc = 0;
    if (req->prepared) {
        c->n_prep = 1;
        rc = id_of(b, req->prepared, &c->prep[0], &err);
        const cql_result *meta = req->prepared->meta;
        remote_handle *h = req->prepared->backend == &cql_backend_remote
                               ? (remote_handle *)req->prepared->handle
                               : NULL;
        int full = h && atomic_load(&h->full_metadata);
        if (!rc && meta && meta->n_cols && !full) { /* known columns: the server may skip them */
            p.flags |= CQL_PROTO_Q_SKIP_METADATA;
            c->known = meta->cols;
            c->n_known = meta->n_cols;
        }
        if (!rc) {
            c->opcode = CQL_PROTO_EXECUTE;
            put_payload(b, c, req->n_payload, req->payload_names, req->payload_values);
            /* [short bytes] id, then (v5) [short bytes] result metadata id: none sent */
            c->cl_at = c->body.len + 2 + (size_t)c->prep[0].id.len + (b->version >= 5 ? 2 : 0);
            cql_proto_put_execute(&c->body, b->version, c->prep[0].id, (eng_val){NULL, 0}, &p);
        }
    } else {
        c->opcode = CQL_PROTO_QUERY;
        put_payload(b, c, req->n_payload, req->payload_names, req->payload_values);
        c->cl_at = c->body.len + 4 + req->query_len; /* [long string] query */
        cql_proto_put_query(&c->body, b->version, (const uint8_t *)req->query, req->query_len, &p);
    }
    free(names);
    if (!rc && c->body.oom)
        rc = eng_errorf(&err, ENG_E_NOMEM, "out of memory sending a request");
    if (rc) {
        call_unref(c);
        done(arg, rc, &err, NULL);
        return;
    }
    plan_of(c, req, req->profile);
    attempt_start(c, 0);
    call_unref(c);
}

static void remote_execute_batch(cql_backend *b, const cql_batch_request *req,
                                 cql_backend_done done, void *arg)
{
    eng_err err;
    eng_err_clear(&err);
    uint32_t n = req->n;
    cql_proto_batch_stmt *stmts = calloc(n ? n : 1, sizeof *stmts);
    call *c = call_new(b, done, arg, req->timeout_ms, req->idempotent, req->profile,
                       req->retry_policy, consistency_of(req->consistency, CQL_PROTO_CL_ONE),
                       req->coordinator);
    int rc = stmts && c && (c->prep = calloc(n ? n : 1, sizeof *c->prep))
                 ? 0
                 : eng_errorf(&err, ENG_E_NOMEM, "out of memory");
    const cql_request *routed = NULL; /* the first statement with a routing key routes it */
    for (uint32_t i = 0; !rc && i < n; i++) {
        const cql_request *st = &req->stmts[i];
        if (st->prepared) {
            stmts[i].kind = 1;
            rc = id_of(b, st->prepared, &c->prep[c->n_prep], &err);
            stmts[i].query_or_id = c->prep[c->n_prep++].id;
            if (!routed && st->prepared->meta && st->prepared->meta->n_pk_binds)
                routed = st;
        } else {
            stmts[i].kind = 0;
            stmts[i].query_or_id = (eng_val){(const uint8_t *)st->query, (int32_t)st->query_len};
            if (!routed && st->key_indices)
                routed = st;
        }
        stmts[i].n_values = (uint16_t)st->n_values;
        stmts[i].values = (eng_val *)st->values;
    }
    if (!rc) {
        cql_proto_query_params p;
        cql_proto_query_params_init(&p);
        p.consistency = consistency_of(req->consistency, CQL_PROTO_CL_ONE);
        p.serial_consistency = consistency_of(req->serial_consistency, CQL_PROTO_CL_SERIAL);
        p.timestamp = req->timestamp;
        c->opcode = CQL_PROTO_BATCH;
        if (req->tracing)
            c->flags |= CQL_PROTO_FLAG_TRACING;
        put_payload(b, c, req->n_payload, req->payload_names, req->payload_values);
        size_t before = c->body.len;
        cql_proto_put_batch(&c->body, b->version, (uint8_t)req->kind, stmts, (uint16_t)n, &p);
        /* after the statements: [consistency][flags (byte; v5 int)][serial][timestamp] */
        size_t tail = 2 + (b->version >= 5 ? 4 : 1) + 2 + (p.timestamp != ENG_TS_NONE ? 8 : 0);
        c->cl_at = c->body.len - before > tail ? c->body.len - tail : 0;
        if (c->body.oom)
            rc = eng_errorf(&err, ENG_E_NOMEM, "out of memory sending a batch");
    }
    free(stmts);
    if (rc) {
        if (c)
            call_unref(c);
        done(arg, rc, &err, NULL);
        return;
    }
    cql_request route;
    if (routed) {
        route = *routed;
        route.keyspace = req->keyspace ? req->keyspace : routed->keyspace;
        route.host = NULL;
    }
    plan_of(c, routed ? &route : NULL, req->profile);
    attempt_start(c, 0);
    call_unref(c);
}

/* ---- schema ---- */

static int remote_schema_rows(cql_backend *b, int table, cql_result **out, eng_err *err)
{
    *out = NULL;
    const char *q = cql_drv_schema_query(table);
    if (!q)
        return eng_errorf(err, ENG_E_INVALID, "no schema table %d", table);
    eng_buf body = ENG_BUF_INIT;
    int oom = cql_remote_put_query(b, q, strlen(q), &body); /* every row in one answer */
    rhost *plan[MAX_PLAN];
    unsigned n = cql_remote_plan(b, NULL, CASS_CONSISTENCY_ONE, NULL, 0, NULL, NULL, 0, plan,
                             MAX_PLAN);
    int rc = oom ? eng_errorf(err, ENG_E_NOMEM, "out of memory")
                 : eng_errorf(err, CQL_E_NO_HOST, "No host is up");
    for (unsigned i = 0; !oom && i < n; i++) {
        rconn *c = cql_remote_pick(b, plan[i]);
        if (!c)
            continue;
        eng_err_clear(err);
        rc = cql_remote_call_on(c->conn, CQL_PROTO_QUERY, &body, out, err);
        cql_remote_release(b, c);
        if (rc != CQL_E_CLOSED)
            break;
    }
    eng_buf_free(&body);
    return rc;
}

/* ---- connect and close ---- */

static void backend_free(cql_backend *b)
{
    free(b->contacts);
    free(b->user);
    if (b->password)
        memset(b->password, 0, strlen(b->password));
    free(b->password);
    free(b->app_name);
    free(b->app_version);
    free(b->client_id);
    free(b->keyspace);
    cql_tls_client_free(b->tls);
    if (b->cluster)
        cass_cluster_free(b->cluster);
    free(b);
}

static char *dup_opt(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;
    *oom |= s && !d;
    return d;
}

/* The TLS context of the cluster's CassSsl. */
static int tls_of(cql_backend *b, const CassSsl *ssl, eng_err *err)
{
    cql_tls_client_config tc = {
        .trusted = ssl->trusted.p,
        .trusted_len = ssl->trusted.len,
        .cert = ssl->cert.p,
        .cert_len = ssl->cert.len,
        .key = ssl->key.p,
        .key_len = ssl->key.len,
        .key_password = ssl->key_password.p ? (const char *)ssl->key_password.p : NULL,
        .verify = ((ssl->verify_flags & CASS_SSL_VERIFY_PEER_CERT) ? CQL_TLS_VERIFY_CERT : 0) |
                  ((ssl->verify_flags &
                    (CASS_SSL_VERIFY_PEER_IDENTITY | CASS_SSL_VERIFY_PEER_IDENTITY_DNS))
                       ? CQL_TLS_VERIFY_CERT | CQL_TLS_VERIFY_IDENTITY
                       : 0),
        .min_tls12 = ssl->min_version >= CASS_SSL_VERSION_TLS1_2,
    };
    return cql_tls_client_new(&tc, &b->tls, err);
}

/* The application's authenticator callbacks (CassAuthenticatorCallbacks) behind the
   connection's exchange hooks. */
static int auth_begin(void *ctx, const uint8_t *addr, int addr_len, const char *hostname,
                      const char *class_name, void **exchange, eng_err *err)
{
    CassInet inet;
    memset(&inet, 0, sizeof inet);
    if (addr && (addr_len == 4 || addr_len == 16)) {
        memcpy(inet.address, addr, (size_t)addr_len);
        inet.address_length = (cass_uint8_t)addr_len;
    }
    cql_drv_auth *a = NULL;
    int rc = cql_drv_auth_begin(ctx, &inet, hostname, class_name, &a, err);
    *exchange = a;
    return rc;
}

static int auth_initial(void *x, eng_buf *response, eng_err *err)
{
    return cql_drv_auth_initial(x, response, err);
}

static int auth_challenge(void *x, const uint8_t *token, int32_t len, eng_buf *response,
                          eng_err *err)
{
    return cql_drv_auth_challenge(x, token, len, response, err);
}

static int auth_success(void *x, const uint8_t *token, int32_t len, eng_err *err)
{
    return cql_drv_auth_success(x, token, len, err);
}

static void auth_end(void *x) { cql_drv_auth_end(x); }

static CassError remote_connect(const CassCluster *cluster, const char *contacts,
                                const char *origin, cql_backend **out, eng_err *err)
{
    *out = NULL;
    cql_backend *b = calloc(1, sizeof *b);
    int oom = !b;
    if (b) {
        b->contacts = dup_opt(contacts, &oom);
        b->user = dup_opt(cluster->username, &oom);
        b->password = dup_opt(cluster->password, &oom);
        b->app_name = dup_opt(cluster->application_name, &oom);
        b->app_version = dup_opt(cluster->application_version, &oom);
        oom |= !(b->cluster = cql_drv_cluster_copy(cluster));
    }
    if (!oom && cluster->has_client_id && !(b->client_id = malloc(CASS_UUID_STRING_LENGTH)))
        oom = 1;
    if (oom) {
        if (b)
            backend_free(b);
        eng_errorf(err, ENG_E_NOMEM, "out of memory connecting");
        return CASS_ERROR_LIB_UNABLE_TO_CONNECT;
    }
    /* STARTUP's options, as the driver sends them */
    uint16_t n = 0;
    b->keys[n] = "DRIVER_NAME";
    b->vals[n++] = "cassette";
    b->keys[n] = "DRIVER_VERSION";
    b->vals[n++] = cassette_version();
    if (b->client_id) {
        cass_uuid_string(cluster->client_id, b->client_id);
        b->keys[n] = "CLIENT_ID";
        b->vals[n++] = b->client_id;
    }
    if (b->app_name) {
        b->keys[n] = "APPLICATION_NAME";
        b->vals[n++] = b->app_name;
    }
    if (b->app_version) {
        b->keys[n] = "APPLICATION_VERSION";
        b->vals[n++] = b->app_version;
    }
    b->cfg = (cql_conn_config){
        .port = cluster->port ? cluster->port : 9042,
        .max_version = (uint8_t)(cluster->protocol_version >= 3 && cluster->protocol_version <= 5
                                     ? cluster->protocol_version
                                     : 4),
        .user = b->user,
        .password = b->password,
        .connect_timeout_ms = cluster->connect_timeout_ms,
        .request_timeout_ms = cluster->request_timeout_ms,
        .startup_keys = b->keys,
        .startup_vals = b->vals,
        .n_startup = n,
        .compression = cluster->compression, /* cql_proto_compression's values */
        .max_unsent = cluster->queue_size_io,
    };
    if (b->cluster->auth) /* the callbacks replace the credentials, as the driver's */
        b->cfg.auth = (cql_conn_auth){.ctx = b->cluster, .begin = auth_begin,
                                      .initial = auth_initial, .challenge = auth_challenge,
                                      .success = auth_success, .end = auth_end};
    eng_err why;
    eng_err_clear(&why);
    if (cluster->ssl && tls_of(b, cluster->ssl, &why)) {
        backend_free(b);
        eng_err_clear(err);
        eng_errorf(err, ENG_E_SERVER, "%s%s", why.msg, origin);
        return CASS_ERROR_SSL_INVALID_CERT;
    }
    b->cfg.tls = b->tls;
    int rc = cql_remote_cluster_start(b, &why);
    if (rc) {
        cql_remote_cluster_free(b);
        backend_free(b);
        eng_err_clear(err);
        eng_errorf(err, rc, "%s%s", why.msg, origin);
        return rc == ENG_E_BAD_CREDENTIALS || rc == CQL_E_AUTH_NEEDED
                   ? CASS_ERROR_SERVER_BAD_CREDENTIALS
               : rc == ENG_E_NOMEM ? CASS_ERROR_LIB_UNABLE_TO_CONNECT
                                   : CASS_ERROR_LIB_NO_HOSTS_AVAILABLE;
    }
    *out = b;
    return CASS_OK;
}

static void remote_close(cql_backend *b)
{
    if (!b)
        return;
    cql_remote_cluster_free(b);
    backend_free(b);
}

static void remote_metrics(cql_backend *b, CassMetrics *m, CassSpeculativeExecutionMetrics *s)
{
    if (m) {
        uint64_t total = 0;
        pthread_mutex_lock(&b->lock);
        for (unsigned i = 0; i < b->n_hosts; i++)
            for (unsigned j = 0; j < b->hosts[i]->n_pool; j++)
                total += b->hosts[i]->pool[j] != NULL;
        pthread_mutex_unlock(&b->lock);
        m->stats.total_connections = total;
        m->stats.available_connections = total;
        m->errors.connection_timeouts = atomic_load(&b->connection_timeouts);
        m->errors.request_timeouts = atomic_load(&b->request_timeouts);
    }
    if (s) {
        pthread_mutex_lock(&b->hist_lock);
        cql_drv_hist_read(b->spec_hist, &s->min, &s->max, &s->mean, &s->stddev, &s->median,
                         &s->percentile_75th, &s->percentile_95th, &s->percentile_98th,
                         &s->percentile_99th, &s->percentile_999th);
        pthread_mutex_unlock(&b->hist_lock);
        s->count = atomic_load(&b->speculative_count);
    }
}

const cql_backend_ops cql_backend_remote = {
    .name = "remote",
    .connect = remote_connect,
    .close = remote_close,
    .prepare = remote_prepare,
    .handle_free = remote_handle_free,
    .execute = remote_execute,
    .execute_batch = remote_execute_batch,
    .schema_rows = remote_schema_rows,
    /* the virtual clock, reset and snapshot are the embedded database's (cassette.h) */
    .metrics = remote_metrics,
};
