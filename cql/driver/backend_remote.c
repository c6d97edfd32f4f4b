/*
 * The remote backend (backend.h): a Cassandra or ScyllaDB cluster -- or a
 * `cassette serve` -- reached over the native protocol, for every contact
 * point that is not an embedded database: host names and addresses, or the
 * URI cql://host[:port][,host[:port]...][/keyspace].
 *
 * One connection (cql/client/conn.h) to the first contact point that
 * answers carries every request of the session, multiplexed on its streams;
 * requests complete on the connection's thread. The protocol version is the
 * cluster's (v4 by default, v5 with the beta protocol) or the highest the
 * server speaks below it; PasswordAuthenticator takes the cluster's
 * credentials. A statement the server no longer knows (UNPREPARED) is
 * prepared again from its text and run again, as the driver does.
 *
 * Not yet: a pool of connections per host, host discovery, load balancing
 * and token-aware routing, reconnection, retry policies, speculative
 * execution, compression and TLS (issue 12's list; docs/remote.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql/client/conn.h"
#include "cql/driver/backend.h"
#include "cql/driver/driver_int.h"

/* A connection and the requests being handed to it: a connection replaced after it went down
   is closed once nobody is sending on it (never under the backend's lock: closing joins the
   connection's thread, whose callbacks take that lock). */
typedef struct held {
    cql_conn *conn;
    int refs;
    int retired;
    struct held *next; /* in the backend's graveyard */
} held;

struct cql_backend {
    pthread_mutex_t lock;
    held *cur;           /* the connection requests go to (under lock) */
    uint8_t version;     /* negotiated at connect; a reconnection keeps it */
    cql_conn_config cfg; /* for reconnections: its strings are the backend's copies */
    char *contacts;
    char *user, *password, *app_name, *app_version;
    const char *keys[3], *vals[3];
    char *keyspace;      /* the last USE (under lock), set again on a new connection */
    held *graveyard;     /* replaced connections whose last user was their own thread (a
                            callback sending again): closed with the backend (under lock) */
    cql_tls_client *tls; /* the cluster's CassSsl as a TLS context, or NULL */
};

/* A statement prepared here: its id, which the server derives from the keyspace and text. */
typedef struct remote_handle {
    uint8_t *id;
    uint16_t id_len;
} remote_handle;

/* ---- waiting for an answer, for the calls the API makes synchronous ---- */

typedef struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    int rc;
    eng_err err;
    cql_result *result;
} waiter;

static void waiter_init(waiter *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
}

static void waiter_destroy(waiter *w)
{
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
}

/* An answer as a request's outcome: a RESULT's result, or the error of an ERROR. */
static int outcome(int rc, const eng_err *err, cql_proto_response *resp, eng_err *out_err,
                   cql_result **out)
{
    *out = NULL;
    if (rc) {
        *out_err = *err;
        return rc;
    }
    if (resp->opcode == CQL_PROTO_ERROR) {
        *out_err = resp->err;
        return resp->err.code;
    }
    if (resp->opcode != CQL_PROTO_RESULT || !resp->result) {
        eng_err_clear(out_err);
        return eng_errorf(out_err, ENG_E_PROTOCOL, "Unexpected answer (opcode %d) to a request",
                          resp->opcode);
    }
    cql_result *r = resp->result;
    resp->result = NULL;
    /* the server's warnings, kept with the result */
    for (uint32_t i = 0; i < resp->n_warnings && r->n_warnings < CQL_RESULT_MAX_WARNINGS; i++) {
        const char *w = resp->warnings[i];
        char *copy = eng_arena_memdup(&r->arena, w, strlen(w) + 1);
        if (copy)
            r->warnings[r->n_warnings++] = copy;
    }
    /* and its custom payload */
    const cql_proto_map *cp = &resp->custom_payload;
    if (cp->n) {
        r->payload_names = eng_arena_alloc(&r->arena, cp->n * sizeof *r->payload_names);
        r->payload_vals = eng_arena_alloc(&r->arena, cp->n * sizeof *r->payload_vals);
        for (uint16_t i = 0; r->payload_names && r->payload_vals && i < cp->n; i++) {
            int32_t nl = cp->keys[i].len > 0 ? cp->keys[i].len : 0;
            int32_t vl = cp->vals[i].len;
            char *name = eng_arena_alloc(&r->arena, (size_t)nl + 1);
            uint8_t *val = vl > 0 ? eng_arena_memdup(&r->arena, cp->vals[i].p, (size_t)vl) : NULL;
            if (!name || (vl > 0 && !val))
                break;
            if (nl)
                memcpy(name, cp->keys[i].p, (size_t)nl);
            name[nl] = '\0';
            r->payload_names[i] = (eng_val){(const uint8_t *)name, nl};
            r->payload_vals[i] = (eng_val){val ? val : (const uint8_t *)"", vl};
            r->n_payload = (uint16_t)(i + 1);
        }
    }
    *out = r;
    return 0;
}

static void waiter_done(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    waiter *w = arg;
    cql_result *r = NULL;
    eng_err e;
    eng_err_clear(&e);
    int code = outcome(rc, err, resp, &e, &r);
    pthread_mutex_lock(&w->lock);
    w->rc = code;
    w->err = e;
    w->result = r;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Sends a request on conn and waits for its outcome. */
static int call_on(cql_conn *conn, uint8_t opcode, const eng_buf *body, cql_result **out,
                   eng_err *err)
{
    waiter w;
    waiter_init(&w);
    cql_conn_send(conn, opcode, body->p, body->len, NULL, 0, waiter_done, &w);
    pthread_mutex_lock(&w.lock);
    while (!w.done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    waiter_destroy(&w);
    *out = w.result;
    if (w.rc)
        *err = w.err;
    return w.rc;
}

/* ---- the connection ---- */

static int connect_any(cql_backend *b, cql_conn **out, eng_err *why);
static void bury(cql_backend *b, held *h);

/* USE of the session's keyspace on a new connection. */
static int use_keyspace(cql_backend *b, cql_conn *conn, const char *ks, eng_err *err)
{
    eng_buf q = ENG_BUF_INIT, body = ENG_BUF_INIT;
    cql_drv_use_query(&q, ks, strlen(ks));
    cql_proto_query_params p;
    cql_proto_query_params_init(&p);
    cql_proto_put_query(&body, b->version, q.p, q.len, &p);
    cql_result *r = NULL;
    int rc = q.oom || body.oom ? eng_errorf(err, ENG_E_NOMEM, "out of memory")
                               : call_on(conn, CQL_PROTO_QUERY, &body, &r, err);
    cql_result_free(r);
    eng_buf_free(&q);
    eng_buf_free(&body);
    return rc;
}

/*
 * The connection to send on, referenced (release it): the current one, or -- when it went
 * down -- a new one to the first contact point that answers, with the session's keyspace.
 * Connections it replaces are returned in *dead for the caller to close after the lock.
 */
static held *acquire(cql_backend *b, eng_err *err)
{
    held *dead = NULL, *h = NULL;
    pthread_mutex_lock(&b->lock);
    if (b->cur && !cql_conn_alive(b->cur->conn)) {
        b->cur->retired = 1;
        if (b->cur->refs == 0)
            dead = b->cur;
        b->cur = NULL;
    }
    if (!b->cur) {
        cql_conn *conn = NULL;
        eng_err why;
        eng_err_clear(&why);
        char *ks = b->keyspace ? strdup(b->keyspace) : NULL;
        int rc = connect_any(b, &conn, &why);
        if (!rc && ks && (rc = use_keyspace(b, conn, ks, &why))) {
            cql_conn_close(conn); /* a thread of its own, not running any callback of ours */
            conn = NULL;
        }
        free(ks);
        if (!rc && !(b->cur = calloc(1, sizeof *b->cur))) {
            cql_conn_close(conn);
            rc = eng_errorf(&why, ENG_E_NOMEM, "out of memory connecting");
        }
        if (rc) {
            eng_err_clear(err);
            eng_errorf(err, CQL_E_CLOSED, "No host available: %s", why.msg);
        } else {
            b->cur->conn = conn;
        }
    }
    if (b->cur) {
        h = b->cur;
        h->refs++;
    }
    pthread_mutex_unlock(&b->lock);
    if (dead)
        bury(b, dead);
    return h;
}

/* Closes a replaced connection, or keeps it for later when this is its own thread. */
static void bury(cql_backend *b, held *h)
{
    if (!cql_conn_is_own_thread(h->conn)) {
        cql_conn_close(h->conn);
        free(h);
        return;
    }
    pthread_mutex_lock(&b->lock);
    h->next = b->graveyard;
    b->graveyard = h;
    pthread_mutex_unlock(&b->lock);
}

static void release(cql_backend *b, held *h)
{
    pthread_mutex_lock(&b->lock);
    int close_now = --h->refs == 0 && h->retired;
    pthread_mutex_unlock(&b->lock);
    if (close_now)
        bury(b, h);
}

/* Sends a request and waits for its outcome. */
static int call_sync(cql_backend *b, uint8_t opcode, const eng_buf *body, cql_result **out,
                     eng_err *err)
{
    held *h = acquire(b, err);
    if (!h) {
        *out = NULL;
        return err->code;
    }
    int rc = call_on(h->conn, opcode, body, out, err);
    release(b, h);
    return rc;
}

/* ---- connect ---- */

/*
 * The i-th host of a contact list (a URI cql://h1,h2:port/ks or names separated by commas)
 * and its port: 0, 1 when there is no i-th host, -1 when it is malformed.
 */
static int nth_host(const char *contacts, int i, int default_port, char *host, size_t cap,
                    int *port)
{
    const char *p = contacts;
    if (!strncmp(p, "cql://", 6))
        p += 6;
    size_t list = strcspn(p, "/?"); /* the hosts end where the keyspace or options begin */
    const char *end = p + list;
    for (;;) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        if (p >= end)
            return 1;
        size_t n = strcspn(p, ", ");
        if (p + n > end)
            n = (size_t)(end - p);
        if (i-- == 0) {
            if (n >= cap)
                return -1;
            memcpy(host, p, n);
            host[n] = '\0';
            break;
        }
        p += n;
    }
    *port = default_port;
    char *colon = strrchr(host, ':');
    if (host[0] == '[') { /* [v6] or [v6]:port */
        char *close = strchr(host, ']');
        if (!close)
            return -1;
        if (close[1] == ':')
            *port = atoi(close + 2);
        *close = '\0';
        memmove(host, host + 1, strlen(host));
    } else if (colon && strchr(host, ':') == colon) { /* host:port, not a bare IPv6 address */
        *port = atoi(colon + 1);
        *colon = '\0';
    }
    return *port > 0 && *port < 65536 && host[0] ? 0 : -1;
}

/* The first contact point that answers (a refused login ends the search: the next host has
   the same roles). */
static int connect_any(cql_backend *b, cql_conn **out, eng_err *why)
{
    int rc = CQL_E_NO_HOST, tried = 0;
    char host[256];
    cql_conn_config cfg = b->cfg;
    for (int i = 0; rc && rc != ENG_E_BAD_CREDENTIALS && rc != CQL_E_AUTH_NEEDED; i++) {
        int port, r = nth_host(b->contacts, i, cfg.port ? cfg.port : 9042, host, sizeof host,
                               &port);
        if (r > 0)
            break;
        if (r < 0)
            continue;
        tried++;
        cfg.host = host;
        cfg.port = port;
        eng_err_clear(why);
        rc = cql_conn_open(&cfg, out, why);
    }
    if (!tried) {
        eng_err_clear(why);
        return eng_errorf(why, CQL_E_NO_HOST, "No valid host in the contact points %.300s",
                          b->contacts);
    }
    return rc;
}

static void backend_free(cql_backend *b)
{
    pthread_mutex_destroy(&b->lock);
    free(b->contacts);
    free(b->user);
    if (b->password)
        memset(b->password, 0, strlen(b->password));
    free(b->password);
    free(b->app_name);
    free(b->app_version);
    free(b->keyspace);
    cql_tls_client_free(b->tls);
    free(b);
}

static char *dup_opt(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;
    *oom |= s && !d;
    return d;
}

static CassError remote_connect(const CassCluster *cluster, const char *contacts,
                                const char *origin, cql_backend **out, eng_err *err)
{
    *out = NULL;
    cql_backend *b = calloc(1, sizeof *b);
    int oom = !b;
    if (b) {
        pthread_mutex_init(&b->lock, NULL);
        b->contacts = dup_opt(contacts, &oom);
        b->user = dup_opt(cluster->username, &oom);
        b->password = dup_opt(cluster->password, &oom);
        b->app_name = dup_opt(cluster->application_name, &oom);
        b->app_version = dup_opt(cluster->application_version, &oom);
    }
    if (oom) {
        if (b)
            backend_free(b);
        eng_errorf(err, ENG_E_NOMEM, "out of memory connecting");
        return CASS_ERROR_LIB_UNABLE_TO_CONNECT;
    }
    uint16_t n = 0;
    b->keys[n] = "DRIVER_NAME";
    b->vals[n++] = "cassette";
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
    };
    eng_err why;
    eng_err_clear(&why);
    if (cluster->ssl) { /* CassSsl: its PEM texts and checks */
        const CassSsl *ssl = cluster->ssl;
        cql_tls_client_config tc = {
            .trusted = ssl->trusted.p,
            .trusted_len = ssl->trusted.len,
            .cert = ssl->cert.p,
            .cert_len = ssl->cert.len,
            .key = ssl->key.p,
            .key_len = ssl->key.len,
            .verify = ((ssl->verify_flags & CASS_SSL_VERIFY_PEER_CERT) ? CQL_TLS_VERIFY_CERT : 0) |
                      ((ssl->verify_flags & (CASS_SSL_VERIFY_PEER_IDENTITY |
                                             CASS_SSL_VERIFY_PEER_IDENTITY_DNS))
                           ? CQL_TLS_VERIFY_CERT | CQL_TLS_VERIFY_IDENTITY
                           : 0),
            .min_tls12 = ssl->min_version >= CASS_SSL_VERSION_TLS1_2,
        };
        if (cql_tls_client_new(&tc, &b->tls, &why)) {
            backend_free(b);
            eng_err_clear(err);
            eng_errorf(err, ENG_E_SERVER, "%s%s", why.msg, origin);
            return CASS_ERROR_SSL_INVALID_CERT;
        }
        b->cfg.tls = b->tls;
    }
    cql_conn *conn = NULL;
    int rc = connect_any(b, &conn, &why);
    if (!rc && !(b->cur = calloc(1, sizeof *b->cur))) {
        cql_conn_close(conn);
        rc = eng_errorf(&why, ENG_E_NOMEM, "out of memory connecting");
    }
    if (rc) {
        backend_free(b);
        eng_err_clear(err);
        eng_errorf(err, rc, "%s%s", why.msg, origin);
        return rc == ENG_E_BAD_CREDENTIALS || rc == CQL_E_AUTH_NEEDED
                   ? CASS_ERROR_SERVER_BAD_CREDENTIALS
               : rc == ENG_E_NOMEM ? CASS_ERROR_LIB_UNABLE_TO_CONNECT
                                   : CASS_ERROR_LIB_NO_HOSTS_AVAILABLE;
    }
    b->cur->conn = conn;
    b->version = cql_conn_version(conn);
    b->cfg.max_version = b->version; /* a reconnection speaks what the bodies are encoded in */
    *out = b;
    return CASS_OK;
}

static void remote_close(cql_backend *b)
{
    if (!b)
        return;
    if (b->cur) /* no request is being sent any more: the backend's contract */
        cql_conn_close(b->cur->conn);
    free(b->cur);
    while (b->graveyard) {
        held *h = b->graveyard;
        b->graveyard = h->next;
        cql_conn_close(h->conn);
        free(h);
    }
    backend_free(b);
}

/* ---- prepare ---- */

static int prepare_text(cql_backend *b, const char *query, size_t len, cql_result **meta,
                        eng_err *err)
{
    eng_buf body = ENG_BUF_INIT;
    cql_proto_put_prepare(&body, b->version, (const uint8_t *)query, len, NULL);
    int rc = body.oom ? eng_errorf(err, ENG_E_NOMEM, "out of memory preparing")
                      : call_sync(b, CQL_PROTO_PREPARE, &body, meta, err);
    eng_buf_free(&body);
    if (!rc && (*meta)->kind != CQL_RESULT_PREPARED) {
        cql_result_free(*meta);
        *meta = NULL;
        rc = eng_errorf(err, ENG_E_PROTOCOL, "PREPARE was not answered with PREPARED");
    }
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
    int rc = prepare_text(b, query, len, meta, err);
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

/* ---- execute ---- */

/* A request in flight: what its answer completes, and how to run it again after a
   re-prepare. */
typedef struct call {
    cql_backend *b;
    cql_conn *conn; /* the connection it went on: a re-prepare and its retry go there too */
    cql_backend_done done;
    void *arg;
    uint8_t opcode;
    uint8_t flags; /* frame header flags: CQL_PROTO_FLAG_CUSTOM_PAYLOAD when body starts with it */
    eng_buf body;
    const CassPrepared *prepared; /* EXECUTE: referenced until the answer, for its result columns
                                     and, on an UNPREPARED answer, its text */
    const cql_column_spec *known;
    uint32_t n_known;
    uint64_t timeout_ms; /* the request's (statement, profile or cluster), 0: none */
    int reprepared;
} call;

static void call_free(call *c)
{
    eng_buf_free(&c->body);
    cql_drv_prepared_unref(c->prepared);
    free(c);
}

static void on_answer(void *arg, int rc, const eng_err *err, cql_proto_response *resp);

static void on_reprepared(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    call *c = arg;
    cql_result *r = NULL;
    eng_err e;
    eng_err_clear(&e);
    int code = outcome(rc, err, resp, &e, &r);
    cql_result_free(r);
    if (code) {
        c->done(c->arg, code, &e, NULL);
        call_free(c);
        return;
    }
    /* the same text in the same keyspace has the same id: the request goes again as it was */
    cql_conn_send_flags(c->conn, c->opcode, c->flags, c->body.p, c->body.len, c->timeout_ms,
                        c->known, c->n_known, on_answer, c);
}

static void on_answer(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    call *c = arg;
    if (!rc && resp->opcode == CQL_PROTO_ERROR && resp->err.code == ENG_E_UNPREPARED &&
        c->prepared && !c->reprepared) {
        c->reprepared = 1;
        eng_buf body = ENG_BUF_INIT;
        cql_proto_put_prepare(&body, c->b->version, (const uint8_t *)c->prepared->query,
                              c->prepared->query_len,
                              NULL);
        cql_conn_send(c->conn, CQL_PROTO_PREPARE, body.p, body.len, NULL, 0, on_reprepared, c);
        eng_buf_free(&body);
        return;
    }
    cql_result *r = NULL;
    eng_err e;
    eng_err_clear(&e);
    int code = outcome(rc, err, resp, &e, &r);
    if (!code && r->kind == CQL_RESULT_SET_KEYSPACE && r->keyspace) {
        /* the session's keyspace, for a connection made later */
        char *ks = strdup(r->keyspace);
        pthread_mutex_lock(&c->b->lock);
        free(c->b->keyspace);
        c->b->keyspace = ks;
        pthread_mutex_unlock(&c->b->lock);
    }
    if (code)
        c->done(c->arg, code, &e, NULL);
    else
        c->done(c->arg, 0, NULL, r);
    call_free(c);
}

/* Sends a call on the session's connection (made again when it went down). */
static void send_call(cql_backend *b, call *c)
{
    eng_err err;
    held *h = acquire(b, &err);
    if (!h) {
        c->done(c->arg, err.code, &err, NULL);
        call_free(c);
        return;
    }
    c->conn = h->conn;
    cql_conn_send_flags(h->conn, c->opcode, c->flags, c->body.p, c->body.len, c->timeout_ms,
                        c->known, c->n_known, on_answer, c);
    release(b, h);
}

/* A request's custom payload first in its body, flagged, when the version carries one (v4 and
   later; the driver sends none over v3). */
static void put_payload(cql_backend *b, call *c, uint16_t n, const eng_val *names,
                        const eng_val *vals)
{
    if (!n || b->version < 4)
        return;
    c->flags = CQL_PROTO_FLAG_CUSTOM_PAYLOAD;
    cql_proto_put_custom_payload(&c->body, names, vals, n);
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

/* A prepared statement's id here: its handle's, or (made by another backend) prepared now. */
static int id_of(cql_backend *b, const CassPrepared *prep, eng_val *id, uint8_t **owned,
                 eng_err *err)
{
    *owned = NULL;
    if (prep->backend == &cql_backend_remote && prep->handle) {
        const remote_handle *h = prep->handle;
        *id = (eng_val){h->id, h->id_len};
        return 0;
    }
    cql_result *meta = NULL;
    int rc = prepare_text(b, prep->query, prep->query_len, &meta, err);
    if (!rc && meta->prepared_id.len > 0 && (*owned = malloc((size_t)meta->prepared_id.len))) {
        memcpy(*owned, meta->prepared_id.p, (size_t)meta->prepared_id.len);
        *id = (eng_val){*owned, meta->prepared_id.len};
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
    call *c = calloc(1, sizeof *c);
    eng_val *names = req->names ? calloc(req->n_values ? req->n_values : 1, sizeof *names) : NULL;
    if (!c || (req->names && !names)) {
        free(c);
        free(names);
        eng_errorf(&err, ENG_E_NOMEM, "out of memory sending a request");
        done(arg, ENG_E_NOMEM, &err, NULL);
        return;
    }
    c->b = b;
    c->done = done;
    c->arg = arg;
    c->timeout_ms = req->timeout_ms;
    cql_proto_query_params p;
    params_of(req, names, &p);
    int rc = 0;
    if (req->prepared) {
        eng_val id;
        uint8_t *owned = NULL;
        rc = id_of(b, req->prepared, &id, &owned, &err);
        const cql_result *meta = req->prepared->meta;
        if (!rc && meta && meta->n_cols) { /* the columns are known: the server may skip them */
            p.flags |= CQL_PROTO_Q_SKIP_METADATA;
            c->known = meta->cols;
            c->n_known = meta->n_cols;
        }
        if (!rc) {
            c->opcode = CQL_PROTO_EXECUTE;
            put_payload(b, c, req->n_payload, req->payload_names, req->payload_values);
            cql_proto_put_execute(&c->body, b->version, id, (eng_val){NULL, 0}, &p);
            c->prepared = cql_drv_prepared_ref(req->prepared);
        }
        free(owned);
    } else {
        c->opcode = CQL_PROTO_QUERY;
        put_payload(b, c, req->n_payload, req->payload_names, req->payload_values);
        cql_proto_put_query(&c->body, b->version, (const uint8_t *)req->query, req->query_len, &p);
    }
    free(names);
    if (!rc && c->body.oom)
        rc = eng_errorf(&err, ENG_E_NOMEM, "out of memory sending a request");
    if (rc) {
        call_free(c);
        done(arg, rc, &err, NULL);
        return;
    }
    send_call(b, c);
}

static void remote_execute_batch(cql_backend *b, const cql_batch_request *req,
                                 cql_backend_done done, void *arg)
{
    eng_err err;
    eng_err_clear(&err);
    uint32_t n = req->n;
    cql_proto_batch_stmt *stmts = calloc(n ? n : 1, sizeof *stmts);
    uint8_t **owned = calloc(n ? n : 1, sizeof *owned);
    call *c = calloc(1, sizeof *c);
    int rc = stmts && owned && c ? 0 : eng_errorf(&err, ENG_E_NOMEM, "out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) {
        const cql_request *st = &req->stmts[i];
        if (st->prepared) {
            stmts[i].kind = 1;
            rc = id_of(b, st->prepared, &stmts[i].query_or_id, &owned[i], &err);
        } else {
            stmts[i].kind = 0;
            stmts[i].query_or_id = (eng_val){(const uint8_t *)st->query, (int32_t)st->query_len};
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
        c->b = b;
        c->done = done;
        c->arg = arg;
        c->timeout_ms = req->timeout_ms;
        c->opcode = CQL_PROTO_BATCH;
        put_payload(b, c, req->n_payload, req->payload_names, req->payload_values);
        cql_proto_put_batch(&c->body, b->version, (uint8_t)req->kind, stmts, (uint16_t)n, &p);
        if (c->body.oom)
            rc = eng_errorf(&err, ENG_E_NOMEM, "out of memory sending a batch");
    }
    for (uint32_t i = 0; owned && i < n; i++)
        free(owned[i]);
    free(owned);
    free(stmts);
    if (rc) {
        if (c)
            call_free(c);
        done(arg, rc, &err, NULL);
        return;
    }
    send_call(b, c);
}

/* ---- schema ---- */

static int remote_schema_rows(cql_backend *b, int table, cql_result **out, eng_err *err)
{
    static const char *const queries[CQL_DRV_SCHEMA_N] = {
        [CQL_DRV_SCHEMA_KEYSPACES] = "SELECT * FROM system_schema.keyspaces",
        [CQL_DRV_SCHEMA_TABLES] = "SELECT * FROM system_schema.tables",
        [CQL_DRV_SCHEMA_COLUMNS] = "SELECT * FROM system_schema.columns",
        [CQL_DRV_SCHEMA_TYPES] = "SELECT * FROM system_schema.types",
        [CQL_DRV_SCHEMA_LOCAL] = "SELECT * FROM system.local",
    };
    *out = NULL;
    if (table < 0 || table >= CQL_DRV_SCHEMA_N)
        return eng_errorf(err, ENG_E_INVALID, "no schema table %d", table);
    cql_proto_query_params p;
    cql_proto_query_params_init(&p); /* no page size: every row in one answer */
    eng_buf body = ENG_BUF_INIT;
    cql_proto_put_query(&body, b->version, (const uint8_t *)queries[table],
                        strlen(queries[table]), &p);
    int rc = body.oom ? eng_errorf(err, ENG_E_NOMEM, "out of memory")
                      : call_sync(b, CQL_PROTO_QUERY, &body, out, err);
    eng_buf_free(&body);
    return rc;
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
};
