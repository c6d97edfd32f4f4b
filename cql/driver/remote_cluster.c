/*
 * The cluster behind the remote backend (remote.h): its hosts, their
 * connection pools, the control connection, the monitor thread, the token
 * ring and query plans -- what the driver's cluster, control connection,
 * connection pool manager and load-balancing policies do.
 *
 * Discovery: the control connection (to the first contact point that
 * answers) reads system.local and system.peers_v2 (system.peers when the
 * server has no peers_v2, as before Cassandra 4.0) and REGISTERs for
 * TOPOLOGY_CHANGE, STATUS_CHANGE and SCHEMA_CHANGE. A NEW_NODE or
 * REMOVED_NODE event reads the peers again; an UP event brings a reconnection
 * forward; DOWN events are not trusted (the driver's rule: a host is down when
 * its connections are, not when another node says so); a SCHEMA_CHANGE bumps
 * the schema generation the session rebuilds its metadata on.
 *
 * Reconnection: a host whose connections all went down is marked down (the
 * host listener is told) and the monitor opens its pool again after the
 * cluster's reconnection policy's delay: constant, or exponential from the
 * base delay doubling up to the maximum, as the driver's policies. The
 * control connection is made again to any host that is up.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "cql/driver/remote.h"
#include "engine/value/token.h"

#define MONITOR_TICK_MS 250 /* the longest the monitor sleeps: dead connections are seen by then */
#define MAX_EVENTS 64       /* host listener events fired at once */

uint64_t cql_remote_now_ms(void) { return cql_drv_now_us() / 1000u; }

uint64_t cql_remote_reconnect_delay(const CassCluster *c, unsigned attempts)
{
    if (c->reconnect == CQL_DRV_RECONNECT_CONSTANT)
        return c->reconnect_base_ms;
    uint64_t d = c->reconnect_base_ms ? c->reconnect_base_ms : 1;
    for (unsigned i = 0; i < attempts && d < c->reconnect_max_ms; i++)
        d *= 2;
    return d < c->reconnect_max_ms ? d : c->reconnect_max_ms;
}

/* ---- waiting for an answer ---- */

typedef struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    int rc;
    eng_err err;
    cql_result *result;
} waiter;

int cql_remote_outcome(int rc, const eng_err *err, cql_proto_response *resp, eng_err *out_err,
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
    if (resp->has_tracing_id) {
        r->has_tracing_id = 1;
        memcpy(r->tracing_id, resp->tracing_id, 16);
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
    int code = cql_remote_outcome(rc, err, resp, &e, &r);
    pthread_mutex_lock(&w->lock);
    w->rc = code;
    w->err = e;
    w->result = r;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

int cql_remote_call_on(cql_conn *conn, uint8_t opcode, const eng_buf *body, cql_result **out,
                   eng_err *err)
{
    waiter w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    cql_conn_send(conn, opcode, body->p, body->len, NULL, 0, waiter_done, &w);
    pthread_mutex_lock(&w.lock);
    while (!w.done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    pthread_mutex_destroy(&w.lock);
    pthread_cond_destroy(&w.cond);
    *out = w.result;
    if (w.rc)
        *err = w.err;
    return w.rc;
}

int cql_remote_put_query(const cql_backend *b, const char *text, size_t len, eng_buf *body)
{
    cql_proto_query_params p;
    cql_proto_query_params_init(&p);
    cql_proto_put_query(body, b->version, (const uint8_t *)text, len, &p);
    return body->oom ? -1 : 0;
}

int cql_remote_put_use(const cql_backend *b, const char *ks, eng_buf *body)
{
    eng_buf q = ENG_BUF_INIT;
    cql_drv_use_query(&q, ks, strlen(ks));
    int rc = q.oom ? -1 : cql_remote_put_query(b, (const char *)q.p, q.len, body);
    eng_buf_free(&q);
    return rc;
}

/* A query on conn, every row in one answer. */
static int query_on(cql_backend *b, cql_conn *conn, const char *q, cql_result **out, eng_err *err)
{
    eng_buf body = ENG_BUF_INIT;
    int rc = cql_remote_put_query(b, q, strlen(q), &body)
                 ? eng_errorf(err, ENG_E_NOMEM, "out of memory")
                 : cql_remote_call_on(conn, CQL_PROTO_QUERY, &body, out, err);
    eng_buf_free(&body);
    if (!rc && (*out)->kind != CQL_RESULT_ROWS) {
        cql_result_free(*out);
        *out = NULL;
        rc = eng_errorf(err, ENG_E_PROTOCOL, "%s answered without rows", q);
    }
    return rc;
}

/* ---- hosts ---- */

/* The numeric address of a name (the first the resolver gives), and its CassInet. */
static int resolve(const char *name, char *out, size_t cap, CassInet *inet)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(name, NULL, &hints, &res) || !res)
        return -1;
    int rc = -1;
    if (res->ai_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)res->ai_addr;
        inet->address_length = 4;
        memcpy(inet->address, &a->sin_addr, 4);
        rc = inet_ntop(AF_INET, &a->sin_addr, out, (socklen_t)cap) ? 0 : -1;
    } else if (res->ai_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)res->ai_addr;
        inet->address_length = 16;
        memcpy(inet->address, &a->sin6_addr, 16);
        rc = inet_ntop(AF_INET6, &a->sin6_addr, out, (socklen_t)cap) ? 0 : -1;
    }
    freeaddrinfo(res);
    return rc;
}

static rhost *host_find(cql_backend *b, const char *addr, int port)
{
    for (unsigned i = 0; i < b->n_hosts; i++)
        if (b->hosts[i]->port == port && !strcmp(b->hosts[i]->addr, addr))
            return b->hosts[i];
    return NULL;
}

/* The host at addr:port, made (not yet known) when there is none. Under lock. */
static rhost *host_get(cql_backend *b, const char *addr, int port, const CassInet *inet)
{
    rhost *h = host_find(b, addr, port);
    if (h)
        return h;
    if (b->n_hosts == b->cap_hosts) {
        unsigned cap = b->cap_hosts ? b->cap_hosts * 2 : 8;
        rhost **hs = realloc(b->hosts, cap * sizeof *hs);
        if (!hs)
            return NULL;
        b->hosts = hs;
        b->cap_hosts = cap;
    }
    unsigned core = b->cluster->core_connections ? b->cluster->core_connections : 1;
    if (!(h = calloc(1, sizeof *h)) || !(h->pool = calloc(core, sizeof *h->pool))) {
        free(h);
        return NULL;
    }
    h->n_pool = core;
    snprintf(h->addr, sizeof h->addr, "%s", addr);
    h->port = port;
    h->inet = *inet;
    b->hosts[b->n_hosts++] = h;
    return h;
}

static void host_free(rhost *h)
{
    free(h->tokens);
    free(h->pool);
    free(h);
}

/* Listener events gathered under the lock, told after it. */
typedef struct events {
    unsigned n;
    CassHostListenerEvent ev[MAX_EVENTS];
    CassInet inet[MAX_EVENTS];
} events;

static void event_add(events *e, CassHostListenerEvent ev, const rhost *h)
{
    if (e->n < MAX_EVENTS) {
        e->ev[e->n] = ev;
        e->inet[e->n++] = h->inet;
    }
}

static void events_fire(cql_backend *b, const events *e)
{
    CassHostListenerCallback cb = b->cluster->host_listener;
    for (unsigned i = 0; cb && i < e->n; i++)
        cb(e->ev[i], e->inet[i], b->cluster->host_listener_data);
}

/* ---- pools ---- */

static void conn_bury(cql_backend *b, rconn *c)
{
    if (!cql_conn_is_own_thread(c->conn)) {
        cql_conn_close(c->conn);
        free(c->keyspace);
        free(c);
        return;
    }
    pthread_mutex_lock(&b->lock);
    c->next = b->graveyard;
    b->graveyard = c;
    pthread_mutex_unlock(&b->lock);
}

/* Takes dead connections out of h's pool (under lock): those nobody sends on go to *dead to
   be buried after the lock. Returns the live ones left. Marks h down when none is. */
static unsigned pool_sweep(cql_backend *b, rhost *h, rconn **dead, events *ev)
{
    unsigned live = 0;
    for (unsigned i = 0; i < h->n_pool; i++) {
        rconn *c = h->pool[i];
        if (!c)
            continue;
        if (cql_conn_alive(c->conn)) {
            live++;
            continue;
        }
        h->pool[i] = NULL;
        c->retired = 1;
        if (c->refs == 0) {
            c->next = *dead;
            *dead = c;
        }
    }
    if (!live && h->up) {
        h->up = 0;
        h->attempts = 0;
        h->next_try_ms = cql_remote_now_ms() + cql_remote_reconnect_delay(b->cluster, 0);
        if (ev)
            event_add(ev, CASS_HOST_LISTENER_EVENT_DOWN, h);
    }
    return live;
}

static void bury_all(cql_backend *b, rconn *dead)
{
    while (dead) {
        rconn *next = dead->next;
        conn_bury(b, dead);
        dead = next;
    }
}

rconn *cql_remote_pick(cql_backend *b, rhost *h)
{
    rconn *dead = NULL, *pick = NULL;
    events ev = {0};
    pthread_mutex_lock(&b->lock);
    unsigned start = atomic_fetch_add(&h->rr, 1);
    for (unsigned i = 0; i < h->n_pool && !pick; i++) {
        rconn *c = h->pool[(start + i) % h->n_pool];
        if (c && cql_conn_alive(c->conn))
            pick = c;
    }
    if (!pick) {
        pool_sweep(b, h, &dead, &ev);
        if (ev.n)
            pthread_cond_signal(&b->wake);
    } else {
        pick->refs++;
    }
    pthread_mutex_unlock(&b->lock);
    bury_all(b, dead);
    events_fire(b, &ev);
    return pick;
}

void cql_remote_release(cql_backend *b, rconn *c)
{
    pthread_mutex_lock(&b->lock);
    int bury = --c->refs == 0 && c->retired;
    pthread_mutex_unlock(&b->lock);
    if (bury)
        conn_bury(b, c);
}

/* A connection to h with the session's keyspace; 0 or an error. Without the lock. */
static int conn_open(cql_backend *b, const char *addr, int port, cql_conn_event on_event,
                     cql_conn **out, eng_err *err)
{
    cql_conn_config cfg = b->cfg;
    cfg.host = addr;
    cfg.port = port;
    cfg.max_version = b->version ? b->version : b->cfg.max_version;
    cfg.on_event = on_event;
    cfg.event_arg = b;
    int rc = cql_conn_open(&cfg, out, err);
    if (rc == CQL_E_NO_HOST && strstr(err->msg, "timed out"))
        atomic_fetch_add(&b->connection_timeouts, 1);
    return rc;
}

static int use_on(cql_backend *b, cql_conn *conn, const char *ks, eng_err *err)
{
    eng_buf body = ENG_BUF_INIT;
    cql_result *r = NULL;
    int rc = cql_remote_put_use(b, ks, &body)
                 ? eng_errorf(err, ENG_E_NOMEM, "out of memory")
                 : cql_remote_call_on(conn, CQL_PROTO_QUERY, &body, &r, err);
    cql_result_free(r);
    eng_buf_free(&body);
    return rc;
}

/*
 * Fills h's empty pool slots (without the lock; h->connecting keeps others out). Returns the
 * connections opened; h comes up with the first. err: why the last attempt failed.
 */
static unsigned pool_fill(cql_backend *b, rhost *h, events *ev, eng_err *err)
{
    unsigned opened = 0;
    for (unsigned i = 0; i < h->n_pool; i++) {
        pthread_mutex_lock(&b->lock);
        int empty = !h->pool[i] && h->known && !b->stopping;
        char *ks = empty && b->keyspace ? strdup(b->keyspace) : NULL;
        pthread_mutex_unlock(&b->lock);
        if (!empty)
            continue;
        cql_conn *conn = NULL;
        eng_err_clear(err);
        int rc = conn_open(b, h->addr, h->port, NULL, &conn, err);
        if (!rc && ks && use_on(b, conn, ks, err)) {
            cql_conn_close(conn);
            rc = err->code ? err->code : CQL_E_NO_HOST;
        }
        rconn *c = rc ? NULL : calloc(1, sizeof *c);
        if (!rc && !c) {
            cql_conn_close(conn);
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory connecting");
        }
        if (rc) {
            free(ks);
            break;
        }
        c->conn = conn;
        c->host = h;
        c->keyspace = ks;
        pthread_mutex_lock(&b->lock);
        h->pool[i] = c;
        if (!h->up) {
            h->up = 1;
            h->attempts = 0;
            if (ev)
                event_add(ev, CASS_HOST_LISTENER_EVENT_UP, h);
        }
        pthread_mutex_unlock(&b->lock);
        opened++;
    }
    return opened;
}

/* ---- discovery ---- */

static int col_of(const cql_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_cols; i++)
        if (r->cols[i].name && !strcmp(r->cols[i].name, name))
            return (int)i;
    return -1;
}

static const eng_val *cell(const cql_result *r, uint32_t row, int col)
{
    return col < 0 ? NULL : &r->cells[(size_t)row * r->n_cols + (uint32_t)col];
}

static void text_of(const eng_val *v, char *out, size_t cap)
{
    size_t n = v && v->len > 0 ? (size_t)v->len : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(out, v->p, n);
    out[n] = '\0';
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The tokens of a set<text> cell (native serialization: [int n] then n [int len][bytes]). */
static int tokens_of(const eng_val *v, int64_t **out, uint32_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!v || v->len < 4)
        return 0;
    const uint8_t *p = v->p, *end = v->p + v->len;
    uint32_t n = be32(p);
    p += 4;
    if (n > (uint32_t)(v->len / 4))
        return -1;
    int64_t *t = malloc((n ? n : 1) * sizeof *t);
    if (!t)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (end - p < 4)
            break;
        int32_t len = (int32_t)be32(p);
        p += 4;
        if (len < 0 || end - p < len || len > 24)
            break;
        char buf[32];
        memcpy(buf, p, (size_t)len);
        buf[len] = '\0';
        p += len;
        char *e;
        long long x = strtoll(buf, &e, 10);
        if (e != buf && !*e)
            t[k++] = (int64_t)x;
    }
    *out = t;
    *n_out = k;
    return 0;
}

/* The address of an inet cell as text and CassInet. */
static int inet_of(const eng_val *v, char *out, size_t cap, CassInet *inet)
{
    if (!v || (v->len != 4 && v->len != 16))
        return -1;
    inet->address_length = (uint8_t)v->len;
    memcpy(inet->address, v->p, (size_t)v->len);
    return inet_ntop(v->len == 4 ? AF_INET : AF_INET6, v->p, out, (socklen_t)cap) ? 0 : -1;
}

static void host_describe(rhost *h, const cql_result *r, uint32_t row)
{
    text_of(cell(r, row, col_of(r, "data_center")), h->dc, sizeof h->dc);
    text_of(cell(r, row, col_of(r, "rack")), h->rack, sizeof h->rack);
    int64_t *t;
    uint32_t n;
    if (!tokens_of(cell(r, row, col_of(r, "tokens")), &t, &n)) {
        free(h->tokens);
        h->tokens = t;
        h->n_tokens = n;
    }
}

static int cmp_token(const void *a, const void *b)
{
    int64_t x = ((const rtoken *)a)->token, y = ((const rtoken *)b)->token;
    return x < y ? -1 : x > y;
}

/* The ring from every known host's tokens (under lock). */
static void ring_build(cql_backend *b)
{
    unsigned n = 0;
    for (unsigned i = 0; i < b->n_hosts; i++)
        if (b->hosts[i]->known)
            n += b->hosts[i]->n_tokens;
    rtoken *ring = malloc((n ? n : 1) * sizeof *ring);
    if (!ring)
        return; /* the old ring stays: routing is a preference, never a requirement */
    unsigned k = 0;
    for (unsigned i = 0; i < b->n_hosts; i++) {
        rhost *h = b->hosts[i];
        for (uint32_t j = 0; h->known && j < h->n_tokens; j++)
            ring[k++] = (rtoken){h->tokens[j], h};
    }
    qsort(ring, k, sizeof *ring, cmp_token);
    free(b->ring);
    b->ring = ring;
    b->n_ring = k;
}

/*
 * Reads the topology over conn (to host self): self's row from system.local, the others from
 * system.peers_v2 or system.peers. New hosts are known from here (their pools are the
 * monitor's to open), hosts no longer listed are removed. Listener events into ev.
 */
static int topology_read(cql_backend *b, cql_conn *conn, rhost *self, events *ev, eng_err *err)
{
    cql_result *local = NULL, *peers = NULL;
    int v2 = 1;
    int rc = query_on(b, conn, "SELECT * FROM system.local WHERE key = 'local'", &local, err);
    if (!rc && query_on(b, conn, "SELECT * FROM system.peers_v2", &peers, err)) {
        v2 = 0;
        eng_err_clear(err);
        rc = query_on(b, conn, "SELECT * FROM system.peers", &peers, err);
    }
    if (rc) {
        cql_result_free(local);
        return rc;
    }
    pthread_mutex_lock(&b->lock);
    unsigned char *seen = calloc(b->n_hosts + peers->n_rows + 1, 1);
    if (local->n_rows)
        host_describe(self, local, 0);
    if (!self->known) {
        self->known = 1;
        event_add(ev, CASS_HOST_LISTENER_EVENT_ADD, self);
    }
    for (uint32_t row = 0; row < peers->n_rows; row++) {
        char addr[REMOTE_MAX_HOST];
        CassInet inet;
        const eng_val *rpc = cell(peers, row, col_of(peers, v2 ? "native_address" : "rpc_address"));
        const eng_val *peer = cell(peers, row, col_of(peers, "peer"));
        /* the address clients use; the peer's own when it has none or listens on every
           interface (0.0.0.0), as the driver does */
        if (inet_of(rpc, addr, sizeof addr, &inet) || !strcmp(addr, "0.0.0.0") ||
            !strcmp(addr, "::")) {
            if (inet_of(peer, addr, sizeof addr, &inet))
                continue;
        }
        int port = b->cfg.port;
        const eng_val *pv = v2 ? cell(peers, row, col_of(peers, "native_port")) : NULL;
        if (pv && pv->len == 4)
            port = (int)be32(pv->p);
        rhost *h = host_get(b, addr, port, &inet);
        if (!h)
            continue;
        host_describe(h, peers, row);
        if (!h->known) {
            h->known = 1;
            h->up = 0;
            h->next_try_ms = 0; /* the monitor connects it at once */
            event_add(ev, CASS_HOST_LISTENER_EVENT_ADD, h);
        }
        for (unsigned i = 0; seen && i < b->n_hosts; i++)
            if (b->hosts[i] == h)
                seen[i] = 1;
    }
    /* hosts the cluster no longer lists leave (not the one answering) */
    rconn *dead = NULL;
    for (unsigned i = 0; seen && i < b->n_hosts; i++) {
        rhost *h = b->hosts[i];
        if (h == self || seen[i] || !h->known)
            continue;
        h->known = 0;
        for (unsigned j = 0; j < h->n_pool; j++) {
            rconn *c = h->pool[j];
            if (!c)
                continue;
            h->pool[j] = NULL;
            c->retired = 1;
            if (!c->refs) {
                c->next = dead;
                dead = c;
            }
        }
        if (h->up) {
            h->up = 0;
            event_add(ev, CASS_HOST_LISTENER_EVENT_DOWN, h);
        }
        event_add(ev, CASS_HOST_LISTENER_EVENT_REMOVE, h);
    }
    free(seen);
    ring_build(b);
    if (!b->local_dc[0] && self->dc[0])
        snprintf(b->local_dc, sizeof b->local_dc, "%s", self->dc);
    pthread_mutex_unlock(&b->lock);
    bury_all(b, dead);
    cql_result_free(local);
    cql_result_free(peers);
    return 0;
}

static void keyspace_clear(rkeyspace *k)
{
    free(k->name);
    for (unsigned i = 0; i < k->n_dcs; i++)
        free(k->dcs[i]);
    free(k->dcs);
    free(k->dc_rf);
}

/* The replication of every keyspace, from system_schema.keyspaces. */
static int keyspaces_read(cql_backend *b, cql_conn *conn, eng_err *err)
{
    cql_result *r = NULL;
    int rc = query_on(b, conn, "SELECT keyspace_name, replication FROM system_schema.keyspaces",
                      &r, err);
    if (rc)
        return rc;
    rkeyspace *ks = calloc(r->n_rows ? r->n_rows : 1, sizeof *ks);
    unsigned n = 0;
    int cn = col_of(r, "keyspace_name"), cr = col_of(r, "replication");
    for (uint32_t row = 0; ks && row < r->n_rows; row++) {
        const eng_val *name = cell(r, row, cn), *rep = cell(r, row, cr);
        if (!name || name->len <= 0 || !rep || rep->len < 4)
            continue;
        rkeyspace *k = &ks[n];
        memset(k, 0, sizeof *k);
        if (!(k->name = strndup((const char *)name->p, (size_t)name->len)))
            continue;
        k->strategy = 2;
        const uint8_t *p = rep->p, *end = rep->p + rep->len;
        uint32_t pairs = be32(p);
        p += 4;
        k->dcs = calloc(pairs ? pairs : 1, sizeof *k->dcs);
        k->dc_rf = calloc(pairs ? pairs : 1, sizeof *k->dc_rf);
        for (uint32_t i = 0; k->dcs && k->dc_rf && i < pairs && i < 256; i++) {
            char key[128], val[128];
            eng_val kv[2];
            for (int j = 0; j < 2; j++) {
                if (end - p < 4) {
                    kv[j] = (eng_val){NULL, -1};
                    continue;
                }
                int32_t len = (int32_t)be32(p);
                p += 4;
                if (len < 0 || end - p < len) {
                    kv[j] = (eng_val){NULL, -1};
                    p = end;
                    continue;
                }
                kv[j] = (eng_val){p, len};
                p += len;
            }
            text_of(&kv[0], key, sizeof key);
            text_of(&kv[1], val, sizeof val);
            if (!strcmp(key, "class")) {
                k->strategy = strstr(val, "SimpleStrategy")            ? 0
                              : strstr(val, "NetworkTopologyStrategy") ? 1
                                                                       : 2;
            } else if (!strcmp(key, "replication_factor")) {
                k->rf = atoi(val); /* "3", or "3/1" with transient replicas: the full count */
            } else if (key[0]) {
                k->dcs[k->n_dcs] = strdup(key);
                if (k->dcs[k->n_dcs])
                    k->dc_rf[k->n_dcs++] = atoi(val);
            }
        }
        n++;
    }
    cql_result_free(r);
    if (!ks)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory");
    pthread_mutex_lock(&b->lock);
    rkeyspace *old = b->keyspaces;
    unsigned n_old = b->n_keyspaces;
    b->keyspaces = ks;
    b->n_keyspaces = n;
    pthread_mutex_unlock(&b->lock);
    for (unsigned i = 0; i < n_old; i++)
        keyspace_clear(&old[i]);
    free(old);
    return 0;
}

/* ---- the control connection ---- */

static void on_event(void *arg, const cql_proto_response *ev)
{
    cql_backend *b = arg;
    rtask *t = calloc(1, sizeof *t);
    if (!t)
        return; /* an event lost: the next topology read or reconnection catches up */
    char type[32] = "", change[32] = "";
    text_of(&ev->event_type, type, sizeof type);
    text_of(&ev->event_change, change, sizeof change);
    snprintf(t->change, sizeof t->change, "%s", change);
    if (!strcmp(type, "SCHEMA_CHANGE")) {
        t->kind = TASK_SCHEMA;
            } else {
        t->kind = !strcmp(type, "TOPOLOGY_CHANGE") ? TASK_TOPOLOGY : TASK_STATUS;
        const cql_proto_inet *n = &ev->event_node;
        if (n->len == 4 || n->len == 16)
            inet_ntop(n->len == 4 ? AF_INET : AF_INET6, n->addr, t->addr, sizeof t->addr);
        t->port = n->port;
    }
    cql_remote_post(b, t);
}

static void registered(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    (void)arg, (void)rc, (void)err;
    if (resp)
        cql_result_free(resp->result);
}

/* Opens the control connection to h: events registered, topology and keyspaces read. */
static int control_open(cql_backend *b, rhost *h, events *ev, eng_err *err)
{
    cql_conn *conn = NULL;
    int rc = conn_open(b, h->addr, h->port, on_event, &conn, err);
    if (rc)
        return rc;
    if (!b->version)
        b->version = cql_conn_version(conn); /* the first connection sets it for all */
    eng_buf body = ENG_BUF_INIT;
    static const char *const kinds[] = {"TOPOLOGY_CHANGE", "STATUS_CHANGE", "SCHEMA_CHANGE"};
    cql_proto_put_string_list(&body, kinds, 3);
    /* REGISTER is answered with READY; requests after it on the connection are answered after
       it too, so the topology read below is the check that the connection works */
    cql_conn_send(conn, CQL_PROTO_REGISTER, body.p, body.len, NULL, 0, registered, NULL);
    eng_buf_free(&body);
    rc = topology_read(b, conn, h, ev, err);
    if (!rc && keyspaces_read(b, conn, err))
        eng_err_clear(err); /* routing works without it: not a failure */
    if (rc) {
        cql_conn_close(conn);
        return rc;
    }
    pthread_mutex_lock(&b->lock);
    cql_conn *old = b->control;
    b->control = conn;
    b->control_host = h;
    pthread_mutex_unlock(&b->lock);
    if (old)
        cql_conn_close(old);
    return 0;
}

/* ---- the monitor ---- */

void cql_remote_post(cql_backend *b, rtask *t)
{
    pthread_mutex_lock(&b->lock);
    rtask **at = &b->tasks;
    while (*at && (*at)->at_ms <= t->at_ms)
        at = &(*at)->next;
    t->next = *at;
    *at = t;
    pthread_cond_signal(&b->wake);
    pthread_mutex_unlock(&b->lock);
}

/* The control connection again, to any host up (the contact point's first). */
static void control_repair(cql_backend *b, events *ev)
{
    for (unsigned i = 0;; i++) {
        pthread_mutex_lock(&b->lock);
        rhost *h = i < b->n_hosts ? b->hosts[i] : NULL;
        int skip = h && (!h->known || !h->up);
        pthread_mutex_unlock(&b->lock);
        if (!h)
            return;
        eng_err err;
        eng_err_clear(&err);
        if (!skip && !control_open(b, h, ev, &err))
            return;
    }
}

static void task_run(cql_backend *b, rtask *t, events *ev)
{
    if (t->kind == TASK_SPECULATE) {
        t->fire(t->arg);
        return;
    }
    pthread_mutex_lock(&b->lock);
    cql_conn *control = b->control;
    rhost *self = b->control_host;
    rhost *h = t->addr[0] ? host_find(b, t->addr, t->port) : NULL;
    if (t->kind == TASK_STATUS && h && !strcmp(t->change, "UP") && !h->up)
        h->next_try_ms = 0; /* another node sees it: try it now */
    pthread_mutex_unlock(&b->lock);
    eng_err err;
    eng_err_clear(&err);
    if (t->kind == TASK_TOPOLOGY && control && cql_conn_alive(control))
        topology_read(b, control, self, ev, &err);
    else if (t->kind == TASK_SCHEMA && control && cql_conn_alive(control))
        keyspaces_read(b, control, &err); /* a keyspace's replication may have changed */
}

static void *monitor_main(void *arg)
{
    cql_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    while (!b->stopping) {
        uint64_t now = cql_remote_now_ms();
        /* due tasks, one at a time, without the lock */
        if (b->tasks && b->tasks->at_ms <= now) {
            rtask *t = b->tasks;
            b->tasks = t->next;
            pthread_mutex_unlock(&b->lock);
            events ev = {0};
            task_run(b, t, &ev);
            free(t);
            events_fire(b, &ev);
            pthread_mutex_lock(&b->lock);
            continue;
        }
        /* dead connections out, hosts down; a host due for a reconnection */
        rconn *dead = NULL;
        events ev = {0};
        rhost *due = NULL;
        uint64_t next = now + MONITOR_TICK_MS;
        for (unsigned i = 0; i < b->n_hosts; i++) {
            rhost *h = b->hosts[i];
            if (!h->known || h->connecting)
                continue;
            unsigned live = pool_sweep(b, h, &dead, &ev);
            if (live < h->n_pool && !due && (h->up || h->next_try_ms <= now)) {
                due = h;
                h->connecting = 1;
            } else if (!h->up && h->next_try_ms < next) {
                next = h->next_try_ms;
            }
        }
        int control_dead = !b->control || !cql_conn_alive(b->control);
        pthread_mutex_unlock(&b->lock);
        bury_all(b, dead);
        if (due) {
            eng_err err;
            eng_err_clear(&err);
            int was_up = due->up;
            unsigned opened = pool_fill(b, due, &ev, &err);
            pthread_mutex_lock(&b->lock);
            due->connecting = 0;
            if (!opened && !due->up && !was_up) { /* the policy's next delay */
                due->attempts++;
                due->next_try_ms = cql_remote_now_ms() + cql_remote_reconnect_delay(b->cluster,
                                                                            due->attempts);
            } else if (!opened && due->up) {
                due->next_try_ms = cql_remote_now_ms() + cql_remote_reconnect_delay(b->cluster, 0);
            }
            pthread_mutex_unlock(&b->lock);
        }
        if (control_dead)
            control_repair(b, &ev);
        events_fire(b, &ev);
        pthread_mutex_lock(&b->lock);
        if (due || b->stopping)
            continue;
        if (b->tasks && b->tasks->at_ms < next)
            next = b->tasks->at_ms;
        /* wait until then, or until a task or a dead host wakes us */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t wait = next > cql_remote_now_ms() ? next - cql_remote_now_ms() : 0;
        if (wait > MONITOR_TICK_MS)
            wait = MONITOR_TICK_MS;
        ts.tv_sec += (time_t)(wait / 1000);
        ts.tv_nsec += (long)(wait % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        if (wait)
            pthread_cond_timedwait(&b->wake, &b->lock, &ts);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- start and stop ---- */

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

typedef struct filler {
    cql_backend *b;
    rhost *h;
    events ev;
    pthread_t thread;
    int started;
} filler;

static void *fill_main(void *arg)
{
    filler *f = arg;
    eng_err err;
    eng_err_clear(&err);
    pool_fill(f->b, f->h, &f->ev, &err);
    return NULL;
}

int cql_remote_cluster_start(cql_backend *b, eng_err *err)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->wake, NULL);
    pthread_mutex_init(&b->hist_lock, NULL);
    /* the contact points, in order: the first that answers carries the control connection */
    int rc = CQL_E_NO_HOST, tried = 0;
    events ev = {0};
    eng_err why;
    eng_err_clear(&why);
    for (int i = 0; rc && rc != ENG_E_BAD_CREDENTIALS && rc != CQL_E_AUTH_NEEDED &&
                    rc != ENG_E_NOMEM;
         i++) {
        char name[256], addr[REMOTE_MAX_HOST];
        int port;
        int r = nth_host(b->contacts, i, b->cfg.port ? b->cfg.port : 9042, name, sizeof name,
                         &port);
        if (r > 0)
            break;
        if (r < 0)
            continue;
        tried++;
        CassInet inet;
        if (resolve(name, addr, sizeof addr, &inet)) {
            eng_err_clear(&why);
            rc = eng_errorf(&why, CQL_E_NO_HOST, "Cannot resolve %s", name);
            continue;
        }
        pthread_mutex_lock(&b->lock);
        rhost *h = host_get(b, addr, port, &inet);
        pthread_mutex_unlock(&b->lock);
        if (!h) {
            rc = eng_errorf(&why, ENG_E_NOMEM, "out of memory connecting");
            break;
        }
        eng_err_clear(&why);
        rc = control_open(b, h, &ev, &why);
    }
    if (!tried) {
        eng_err_clear(err);
        return eng_errorf(err, CQL_E_NO_HOST, "No valid host in the contact points %.300s",
                          b->contacts);
    }
    if (rc) {
        *err = why;
        return rc;
    }
    /* contact points the cluster does not list are not part of it (the driver's rule) */
    pthread_mutex_lock(&b->lock);
    unsigned n = b->n_hosts;
    filler *fill = calloc(n ? n : 1, sizeof *fill);
    for (unsigned i = 0; fill && i < n; i++)
        fill[i] = (filler){.b = b, .h = b->hosts[i]};
    pthread_mutex_unlock(&b->lock);
    if (!fill)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory connecting");
    /* every host's pool at once: the connect ends when each has answered or failed */
    for (unsigned i = 0; i < n; i++)
        if (fill[i].h->known)
            fill[i].started = !pthread_create(&fill[i].thread, NULL, fill_main, &fill[i]);
    for (unsigned i = 0; i < n; i++)
        if (fill[i].started)
            pthread_join(fill[i].thread, NULL);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < fill[i].ev.n; j++)
            event_add(&ev, fill[i].ev.ev[j], fill[i].h);
    free(fill);
    pthread_mutex_lock(&b->lock);
    int any_up = 0;
    uint64_t now = cql_remote_now_ms();
    for (unsigned i = 0; i < b->n_hosts; i++) {
        rhost *h = b->hosts[i];
        any_up |= h->known && h->up;
        if (h->known && !h->up)
            h->next_try_ms = now + cql_remote_reconnect_delay(b->cluster, 0);
    }
    pthread_mutex_unlock(&b->lock);
    if (!any_up)
        return eng_errorf(err, CQL_E_NO_HOST, "No host of the cluster could be connected to");
    if (pthread_create(&b->monitor, NULL, monitor_main, b))
        return eng_errorf(err, ENG_E_NOMEM, "cannot start the cluster's monitor thread");
    b->has_monitor = 1;
    events_fire(b, &ev);
    return 0;
}

void cql_remote_cluster_free(cql_backend *b)
{
    pthread_mutex_lock(&b->lock);
    b->stopping = 1;
    pthread_cond_signal(&b->wake);
    pthread_mutex_unlock(&b->lock);
    if (b->has_monitor)
        pthread_join(b->monitor, NULL);
    /* the control connection posts events from its thread: closed (joined) before the tasks
       are drained */
    if (b->control)
        cql_conn_close(b->control);
    b->control = NULL;
    pthread_mutex_lock(&b->lock);
    rtask *tasks = b->tasks;
    b->tasks = NULL;
    pthread_mutex_unlock(&b->lock);
    while (tasks) { /* speculative executions not started: their requests are over */
        rtask *t = tasks;
        tasks = t->next;
        if (t->kind == TASK_SPECULATE)
            t->fire(t->arg); /* fires nothing: the request is done (stopping) */
        free(t);
    }
    for (unsigned i = 0; i < b->n_hosts; i++) {
        rhost *h = b->hosts[i];
        for (unsigned j = 0; j < h->n_pool; j++)
            if (h->pool[j]) {
                cql_conn_close(h->pool[j]->conn);
                free(h->pool[j]->keyspace);
                free(h->pool[j]);
            }
        host_free(h);
    }
    free(b->hosts);
    while (b->graveyard) {
        rconn *c = b->graveyard;
        b->graveyard = c->next;
        cql_conn_close(c->conn);
        free(c->keyspace);
        free(c);
    }
    for (unsigned i = 0; i < b->n_keyspaces; i++)
        keyspace_clear(&b->keyspaces[i]);
    free(b->keyspaces);
    free(b->ring);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->wake);
    pthread_mutex_destroy(&b->hist_lock);
}

/* ---- query plans ---- */

/* 1 if name is in the comma-separated list. */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

static int passes_filters(const CassExecProfile *p, const rhost *h)
{
    if (p->whitelist && p->whitelist[0] && !in_list(p->whitelist, h->addr))
        return 0;
    if (p->blacklist && in_list(p->blacklist, h->addr))
        return 0;
    if (p->whitelist_dc && p->whitelist_dc[0] && !in_list(p->whitelist_dc, h->dc))
        return 0;
    if (p->blacklist_dc && in_list(p->blacklist_dc, h->dc))
        return 0;
    return 1;
}

static int is_local_cl(int cl)
{
    return cl == CASS_CONSISTENCY_LOCAL_ONE || cl == CASS_CONSISTENCY_LOCAL_QUORUM;
}

static const rkeyspace *keyspace_find(const cql_backend *b, const char *name)
{
    for (unsigned i = 0; name && i < b->n_keyspaces; i++)
        if (!strcmp(b->keyspaces[i].name, name))
            return &b->keyspaces[i];
    return NULL;
}

static int has(rhost *const *hs, unsigned n, const rhost *h)
{
    for (unsigned i = 0; i < n; i++)
        if (hs[i] == h)
            return 1;
    return 0;
}

/* The replicas of token in keyspace k, in ring order (under lock): at most cap. */
static unsigned replicas_of(const cql_backend *b, const rkeyspace *k, int64_t token,
                            rhost **out, unsigned cap)
{
    if (!b->n_ring)
        return 0;
    /* the first token >= the key's: its owner holds the key (wrapping around) */
    unsigned lo = 0, hi = b->n_ring;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (b->ring[mid].token < token)
            lo = mid + 1;
        else
            hi = mid;
    }
    unsigned n = 0;
    unsigned want = k->strategy == 0 ? (unsigned)(k->rf > 0 ? k->rf : 1) : 0;
    if (k->strategy == 1)
        for (unsigned i = 0; i < k->n_dcs; i++)
            want += (unsigned)(k->dc_rf[i] > 0 ? k->dc_rf[i] : 0);
    if (k->strategy == 2)
        want = 1;
    for (unsigned i = 0; i < b->n_ring && n < want && n < cap; i++) {
        rhost *h = b->ring[(lo + i) % b->n_ring].host;
        if (has(out, n, h))
            continue;
        if (k->strategy == 1) { /* NetworkTopologyStrategy: each DC up to its factor */
            int rf = 0;
            unsigned in_dc = 0;
            for (unsigned d = 0; d < k->n_dcs; d++)
                if (!strcmp(k->dcs[d], h->dc))
                    rf = k->dc_rf[d];
            for (unsigned j = 0; j < n; j++)
                in_dc += !strcmp(out[j]->dc, h->dc);
            if ((int)in_dc >= rf)
                continue;
        }
        out[n++] = h;
    }
    return n;
}

unsigned cql_remote_plan(cql_backend *b, const CassExecProfile *profile, int consistency,
                     const uint8_t *routing_key, size_t key_len, const char *ks,
                     const char *target, int target_port, rhost **out, unsigned cap)
{
    const CassExecProfile *p =
        profile && profile->load_balance != CQL_DRV_LB_UNSET ? profile : &b->cluster->routing;
    unsigned n = 0;
    pthread_mutex_lock(&b->lock);
    if (!ks)
        ks = b->keyspace;
    if (target) { /* cass_statement_set_host: that host alone */
        for (unsigned i = 0; i < b->n_hosts && !n; i++) {
            rhost *h = b->hosts[i];
            if (h->known && h->up && h->port == target_port && !strcmp(h->addr, target))
                out[n++] = h;
        }
        pthread_mutex_unlock(&b->lock);
        return n;
    }
    int dc_aware = p->load_balance != CQL_DRV_LB_ROUND_ROBIN;
    const char *local = p->local_dc && p->local_dc[0] ? p->local_dc : b->local_dc;
    /* the child policy's plan: local hosts in turn, then (DC-aware) some of each remote DC */
    rhost *local_hosts[256], *remote_hosts[256];
    unsigned n_local = 0, n_remote = 0;
    for (unsigned i = 0; i < b->n_hosts; i++) {
        rhost *h = b->hosts[i];
        if (!h->known || !h->up || !passes_filters(p, h))
            continue;
        if (!dc_aware || !local[0] || !h->dc[0] || !strcmp(h->dc, local)) {
            if (n_local < 256)
                local_hosts[n_local++] = h;
        } else if (n_remote < 256) {
            remote_hosts[n_remote++] = h;
        }
    }
    unsigned start = atomic_fetch_add(&b->rr, 1);
    /* token-aware: the key's replicas that are local come first (the cluster's own setting
       when the plan is the cluster's) */
    int default_plan = p == &b->cluster->routing;
    int token_aware = default_plan ? b->cluster->token_aware : p->token_aware;
    int shuffle = default_plan ? b->cluster->shuffle_replicas : p->shuffle_replicas;
    if (token_aware && routing_key && ks) {
        const rkeyspace *k = keyspace_find(b, ks);
        rhost *reps[64];
        unsigned n_reps =
            k ? replicas_of(b, k, eng_token(routing_key, key_len), reps, 64) : 0;
        unsigned first = n;
        for (unsigned i = 0; i < n_reps && n < cap; i++)
            if (has(local_hosts, n_local, reps[i]))
                out[n++] = reps[i];
        if (shuffle && n - first > 1) { /* a different replica first each time */
            unsigned r = start % (n - first);
            for (unsigned i = 0; i < r; i++) {
                rhost *t = out[first];
                memmove(&out[first], &out[first + 1], (n - first - 1) * sizeof *out);
                out[n - 1] = t;
            }
        }
    }
    unsigned pre = n;
    for (unsigned i = 0; i < n_local && n < cap; i++) {
        rhost *h = local_hosts[(start + i) % n_local];
        if (!has(out, pre, h))
            out[n++] = h;
    }
    if (dc_aware && (!is_local_cl(consistency) || p->allow_remote_dcs_for_local_cl)) {
        /* up to used_hosts_per_remote_dc of each remote DC, in turn */
        for (unsigned i = 0; i < n_remote && n < cap; i++) {
            rhost *h = remote_hosts[(start + i) % n_remote];
            unsigned same = 0;
            for (unsigned j = pre; j < n; j++)
                same += !strcmp(out[j]->dc, h->dc);
            if (same < p->used_hosts_per_remote_dc && !has(out, n, h))
                out[n++] = h;
        }
    }
    pthread_mutex_unlock(&b->lock);
    return n;
}
