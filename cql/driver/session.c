/*
 * Sessions of the driver API, backend-neutral: connect picks the backend the
 * contact points name (backend.h: "file:DIR" and "memory:" the embedded
 * engine, anything else a cluster; CASSETTE_URI replaces the contact points
 * when set), and prepare / execute / execute_batch hand requests to it and
 * complete their futures from its done callbacks -- at once for the embedded
 * engine, which runs a statement in the calling thread, later for a write
 * waiting for its group commit or an answer from the network.
 *
 * What the session itself keeps: its state (closed, connecting, connected,
 * closing), the count of requests in flight (a close waits for them, so the
 * backend stays open while any is running), the cluster's default
 * consistency levels and client-side timestamp generator (applied when a
 * statement sets none of its own), the cluster copy whose execution profiles
 * requests name (profile.c: a statement's setting, else its profile's, else
 * the cluster's), and the argument checks the driver makes before a request
 * leaves.
 *
 * Also here: cassette.h's session extensions (virtual clock, reset,
 * snapshot), with LMDB-style int returns, passed to the backend.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cassette.h"
#include "cql/driver/backend.h"
#include "cql/driver/driver_int.h"

/* ---- the session object ---- */

enum session_state { ST_CLOSED, ST_CONNECTING, ST_CONNECTED, ST_CLOSING };

/*
 * The way a request comes in: one gate per thread shard (eng_thread_shard),
 * each with its own lock, so that requests running at once on different
 * threads share no lock. A connect opens every gate once the backend is
 * set; a close shuts every gate, then waits for each to empty before it
 * closes the backend.
 */
typedef struct request_gate {
    pthread_mutex_t lock;
    pthread_cond_t drained; /* `active` fell to 0 on a shut gate */
    int open;
    unsigned active;        /* requests in through this gate, using the backend */
} request_gate;

typedef union gate_slot {
    request_gate g;
    char pad[(sizeof(request_gate) / ENG_CACHE_LINE + 2) * ENG_CACHE_LINE];
} gate_slot;

typedef struct session_impl {
    CassSession pub;      /* first: a CassSession * is a session_impl *; pub.lock guards all
                             but the gates */
    pthread_cond_t cond;  /* state changes */
    int state;            /* enum session_state */
    gate_slot gates[ENG_SHARDS];
    CassCluster *cluster; /* the copy connected with (NULL while closed) */
    const cql_backend_ops *ops; /* NULL while not connected */
    cql_backend *backend;
    cass_uint32_t schema_version; /* the snapshot version of the last schema seen */
    uint8_t schema_uuid[16];      /* that schema's system.local schema_version */
    cql_drv_meter requests;       /* every request's latency, for cass_session_get_metrics */
} session_impl;

static session_impl *impl_of(const CassSession *s)
{
    return (session_impl *)(uintptr_t)s;
}

/* A version 4 UUID in the driver's two-number form (see CassUuid). */
static CassUuid random_uuid(void)
{
    uint8_t b[16];
    eng_uuid_random(b);
    CassUuid u;
    cql_drv_uuid_from_bytes(b, &u);
    return u;
}

CassSession *cass_session_new(void)
{
    session_impl *si = eng_calloc(1, sizeof *si);
    if (!si)
        return NULL;
    if (pthread_mutex_init(&si->pub.lock, NULL)) {
        eng_free(si);
        return NULL;
    }
    if (pthread_cond_init(&si->cond, NULL)) {
        pthread_mutex_destroy(&si->pub.lock);
        eng_free(si);
        return NULL;
    }
    for (int i = 0; i < ENG_SHARDS; i++) {
        pthread_mutex_init(&si->gates[i].g.lock, NULL);
        pthread_cond_init(&si->gates[i].g.drained, NULL);
    }
    si->state = ST_CLOSED;
    cql_drv_meter_init(&si->requests);
    si->pub.client_id = random_uuid();
    si->pub.consistency = CASS_CONSISTENCY_LOCAL_ONE;
    si->pub.serial_consistency = CASS_CONSISTENCY_ANY;
    return &si->pub;
}

/* ---- errors ---- */

static void fail_with(CassFuture *f, CassError code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_with(CassFuture *f, CassError code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cql_drv_future_set_error(f, code, msg, NULL);
}

static void fail_not_connected(CassFuture *f)
{
    /* The driver's words and code for a request on a session that is not connected. */
    cql_drv_future_set_error(f, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, "Session is not connected",
                             NULL);
}

/* ---- requests: keeping the backend open while they run ---- */

/*
 * Registers a request on a connected session through the calling thread's
 * gate: the gate (give it to end_request, from any thread), or -1 when the
 * session is not connected. The backend stays open until end_request.
 */
static int begin_request(session_impl *si, const cql_backend_ops **ops, cql_backend **b)
{
    int gate = (int)eng_thread_shard();
    request_gate *g = &si->gates[gate].g;
    pthread_mutex_lock(&g->lock);
    if (!g->open) {
        pthread_mutex_unlock(&g->lock);
        return -1;
    }
    g->active++;
    pthread_mutex_unlock(&g->lock);
    /* set before the gates opened and kept until they are shut and empty */
    *ops = si->ops;
    *b = si->backend;
    return gate;
}

static void end_request(session_impl *si, int gate)
{
    request_gate *g = &si->gates[gate].g;
    pthread_mutex_lock(&g->lock);
    if (--g->active == 0 && !g->open)
        pthread_cond_broadcast(&g->drained);
    pthread_mutex_unlock(&g->lock);
}

/* Lets requests in (connected) or shuts them out and waits for those inside (closing). */
static void gates_set(session_impl *si, int open)
{
    for (int i = 0; i < ENG_SHARDS; i++) {
        request_gate *g = &si->gates[i].g;
        pthread_mutex_lock(&g->lock);
        g->open = open;
        while (!open && g->active > 0)
            pthread_cond_wait(&g->drained, &g->lock);
        pthread_mutex_unlock(&g->lock);
    }
}

/* The backend's done, arg the request's future (a reference of its own, the session in its
   `producer`): completes the future, then the request. Runs exactly once. */
static void request_done(void *arg, int rc, const eng_err *err, cql_result *result)
{
    CassFuture *f = arg;
    session_impl *si = f->producer;
    cql_drv_meter_record(&si->requests, cql_drv_now_us() - f->started_us);
    if (rc)
        cql_drv_future_fail(f, err);
    else
        cql_drv_future_set_result(f, cql_drv_result_new(result)); /* NULL on OOM fails f */
    int gate = f->gate;
    cass_future_free(f);
    end_request(si, gate);
}

/* The arg of request_done for f. */
static CassFuture *pending_new(session_impl *si, int gate, CassFuture *f)
{
    f->producer = si;
    f->gate = gate;
    f->started_us = cql_drv_now_us();
    return cql_drv_future_ref(f);
}

/* ---- connect ---- */

/* 1 if the list names an embedded database somewhere (its backend then decides the rest). */
static int names_embedded(const char *list)
{
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        if (n && cql_drv_is_embedded_contact(p, n))
            return 1;
        p += n;
    }
    return 0;
}

/* 1 if the list holds no contact point at all. */
static int names_nothing(const char *list)
{
    return strspn(list, " \t\r\n,") == strlen(list);
}

/*
 * The keyspace and options of a URI cql://hosts[/keyspace][?consistency=NAME&serial_consistency=
 * NAME]: the keyspace (when the application named none) into ks (cap bytes), the levels set on
 * the cluster copy. 0, or CASS_ERROR_LIB_BAD_PARAMS with why in err.
 */
static CassError uri_settings(const char *uri, const char *origin, CassCluster *copy, char *ks,
                              size_t cap, eng_err *err)
{
    static const char *const levels[] = {"ANY",   "ONE",          "TWO",         "THREE",
                                         "QUORUM", "ALL",         "LOCAL_QUORUM", "EACH_QUORUM",
                                         "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"};
    ks[0] = '\0';
    if (strncmp(uri, "cql://", 6) != 0)
        return CASS_OK;
    const char *p = uri + 6 + strcspn(uri + 6, "/?");
    if (*p == '/') {
        size_t n = strcspn(++p, "?");
        if (n >= cap) {
            eng_errorf(err, ENG_E_INVALID, "Keyspace name too long in %s%s", uri, origin);
            return CASS_ERROR_LIB_BAD_PARAMS;
        }
        memcpy(ks, p, n);
        ks[n] = '\0';
        p += n;
    }
    while (*p == '?' || *p == '&') {
        p++;
        size_t klen = strcspn(p, "="), vlen = 0;
        const char *v = p[klen] == '=' ? p + klen + 1 : p + klen;
        vlen = strcspn(v, "&");
        int serial = klen == 18 && !strncasecmp(p, "serial_consistency", 18);
        if (klen == 11 && !strncasecmp(p, "compression", 11)) {
            int c = cql_drv_compression_by_name(v, vlen);
            if (c < 0) {
                eng_errorf(err, ENG_E_INVALID,
                           "Invalid compression '%.*s' in %s%s (lz4, snappy or none)", (int)vlen,
                           v, uri, origin);
                return CASS_ERROR_LIB_BAD_PARAMS;
            }
            copy->compression = c;
            p = v + vlen;
            continue;
        }
        if (!serial && !(klen == 11 && !strncasecmp(p, "consistency", 11))) {
            eng_errorf(err, ENG_E_INVALID, "Unknown option '%.*s' in %s%s (consistency, "
                       "serial_consistency and compression are known)", (int)klen, p, uri,
                       origin);
            return CASS_ERROR_LIB_BAD_PARAMS;
        }
        int level = -1;
        for (int i = 0; i < (int)(sizeof levels / sizeof *levels); i++)
            if (strlen(levels[i]) == vlen && !strncasecmp(levels[i], v, vlen))
                level = i;
        if (level < 0 || (serial && level != 8 && level != 9)) {
            eng_errorf(err, ENG_E_INVALID, "Invalid consistency '%.*s' in %s%s", (int)vlen, v,
                       uri, origin);
            return CASS_ERROR_LIB_BAD_PARAMS;
        }
        if (serial)
            copy->serial_consistency = (CassConsistency)level;
        else
            copy->consistency = (CassConsistency)level;
        p = v + vlen;
    }
    return CASS_OK;
}

/* Runs USE "ks" on a fresh backend (the driver's connections start with it). */
static int use_on_connect(const cql_backend_ops *ops, cql_backend *b, const char *ks, size_t len,
                          eng_err *err);

static CassFuture *connect_keyspace(CassSession *session, const CassCluster *cluster,
                                    const char *keyspace, size_t keyspace_len)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_SESSION);
    if (!session || !cluster) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no cluster given");
        return f;
    }
    session_impl *si = impl_of(session);
    pthread_mutex_lock(&si->pub.lock);
    if (si->state != ST_CLOSED) {
        pthread_mutex_unlock(&si->pub.lock);
        fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "Already connecting, closing, or connected");
        return f;
    }
    si->state = ST_CONNECTING;
    pthread_mutex_unlock(&si->pub.lock);

    const char *uri = getenv("CASSETTE_URI");
    int from_env = uri && *uri;
    const char *list = from_env ? uri : (cluster->contact_points ? cluster->contact_points : "");
    const char *origin = from_env ? " (from CASSETTE_URI)" : "";
    const cql_backend_ops *ops = names_embedded(list) ? &cql_backend_local : &cql_backend_remote;
    cql_backend *b = NULL;
    char uri_ks[256];
    uri_ks[0] = '\0';
    CassCluster *copy = cql_drv_cluster_copy(cluster);
    eng_err err;
    eng_err_clear(&err);
    CassError code = CASS_OK;
    if (!copy) {
        code = CASS_ERROR_LIB_UNABLE_TO_CONNECT;
        snprintf(err.msg, sizeof err.msg, "out of memory connecting");
    } else if ((code = uri_settings(list, origin, copy, uri_ks, sizeof uri_ks, &err)) !=
               CASS_OK) {
        /* the message says which part of the URI */
    } else if (names_nothing(list)) {
        code = CASS_ERROR_LIB_NO_HOSTS_AVAILABLE;
        snprintf(err.msg, sizeof err.msg,
                 "No hosts provided or no hosts resolved: set a contact point (file:DIR or "
                 "memory: for an embedded database)");
    } else {
        code = ops->connect(copy, list, origin, &b, &err);
    }
    if (code == CASS_OK && !(keyspace && keyspace_len) && uri_ks[0]) {
        keyspace = uri_ks; /* the URI's, when the program named none */
        keyspace_len = strlen(uri_ks);
    }
    if (code == CASS_OK && keyspace && keyspace_len &&
        use_on_connect(ops, b, keyspace, keyspace_len, &err)) {
        code = CASS_ERROR_LIB_UNABLE_TO_SET_KEYSPACE;
        ops->close(b);
        b = NULL;
    }
    if (code != CASS_OK) {
        cass_cluster_free(copy);
        cql_drv_future_set_error(f, code, err.msg, NULL);
        pthread_mutex_lock(&si->pub.lock);
        si->state = ST_CLOSED;
        pthread_cond_broadcast(&si->cond);
        pthread_mutex_unlock(&si->pub.lock);
        return f;
    }
    pthread_mutex_lock(&si->pub.lock);
    si->ops = ops;
    si->backend = b;
    si->pub.consistency = copy->consistency;
    si->pub.serial_consistency = copy->serial_consistency;
    si->pub.timestamp_gen = cql_drv_timestamp_gen_ref(copy->timestamp_gen);
    if (copy->has_client_id)
        si->pub.client_id = copy->client_id;
    si->cluster = copy;
    si->state = ST_CONNECTED;
    gates_set(si, 1); /* under pub.lock, so that a close cannot run between */
    pthread_cond_broadcast(&si->cond);
    pthread_mutex_unlock(&si->pub.lock);
    cql_drv_future_set_done(f);
    return f;
}

CassFuture *cass_session_connect(CassSession *session, const CassCluster *cluster)
{
    return connect_keyspace(session, cluster, NULL, 0);
}

CassFuture *cass_session_connect_keyspace(CassSession *session, const CassCluster *cluster,
                                          const char *keyspace)
{
    return connect_keyspace(session, cluster, keyspace, keyspace ? strlen(keyspace) : 0);
}

CassFuture *cass_session_connect_keyspace_n(CassSession *session, const CassCluster *cluster,
                                            const char *keyspace, size_t keyspace_length)
{
    return connect_keyspace(session, cluster, keyspace, keyspace ? keyspace_length : 0);
}

/* ---- close / free ---- */

/* Closes a connected session once its requests are done; -1 if it was not connected. */
static int close_session(session_impl *si)
{
    pthread_mutex_lock(&si->pub.lock);
    while (si->state == ST_CONNECTING)
        pthread_cond_wait(&si->cond, &si->pub.lock);
    if (si->state != ST_CONNECTED) {
        pthread_mutex_unlock(&si->pub.lock);
        return -1;
    }
    si->state = ST_CLOSING;
    pthread_mutex_unlock(&si->pub.lock);
    gates_set(si, 0);
    pthread_mutex_lock(&si->pub.lock);
    const cql_backend_ops *ops = si->ops;
    cql_backend *b = si->backend;
    CassCluster *cluster = si->cluster;
    CassTimestampGen *gen = si->pub.timestamp_gen;
    si->ops = NULL;
    si->backend = NULL;
    si->pub.timestamp_gen = NULL;
    si->cluster = NULL;
    pthread_mutex_unlock(&si->pub.lock);

    ops->close(b);
    cass_cluster_free(cluster);
    cass_timestamp_gen_free(gen);

    pthread_mutex_lock(&si->pub.lock);
    si->state = ST_CLOSED;
    pthread_cond_broadcast(&si->cond);
    pthread_mutex_unlock(&si->pub.lock);
    return 0;
}

CassFuture *cass_session_close(CassSession *session)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_SESSION);
    if (!session || close_session(impl_of(session)))
        fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CLOSE, "Already closing or closed");
    else
        cql_drv_future_set_done(f);
    return f;
}

void cass_session_free(CassSession *session)
{
    if (!session)
        return;
    session_impl *si = impl_of(session);
    close_session(si);
    /* A close running in another thread finishes first. */
    pthread_mutex_lock(&si->pub.lock);
    while (si->state != ST_CLOSED)
        pthread_cond_wait(&si->cond, &si->pub.lock);
    pthread_mutex_unlock(&si->pub.lock);
    pthread_cond_destroy(&si->cond);
    pthread_mutex_destroy(&si->pub.lock);
    for (int i = 0; i < ENG_SHARDS; i++) {
        pthread_mutex_destroy(&si->gates[i].g.lock);
        pthread_cond_destroy(&si->gates[i].g.drained);
    }
    cql_drv_meter_destroy(&si->requests);
    eng_free(si);
}

/* ---- prepare ---- */

/* Prepares query; statements bound from the result inherit `settings` (may be NULL). */
static CassFuture *prepare_text(CassSession *session, const char *query, size_t len,
                                const CassStatement *settings)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_PREPARE);
    if (!session || !query) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no query given");
        return f;
    }
    session_impl *si = impl_of(session);
    const cql_backend_ops *ops;
    cql_backend *b;
    int gate = begin_request(si, &ops, &b);
    if (gate < 0) {
        fail_not_connected(f);
        return f;
    }
    eng_err err;
    eng_err_clear(&err);
    cql_result *meta = NULL;
    void *handle = NULL;
    int rc = ops->prepare(b, query, len, &meta, &handle, &err);
    end_request(si, gate);
    if (rc)
        cql_drv_future_fail(f, &err);
    else /* NULL on OOM (meta and handle released) fails f */
        cql_drv_future_set_prepared(f,
                                    cql_drv_prepared_new(ops, meta, handle, query, len, settings));
    return f;
}

CassFuture *cass_session_prepare(CassSession *session, const char *query)
{
    return prepare_text(session, query, query ? strlen(query) : 0, NULL);
}

CassFuture *cass_session_prepare_n(CassSession *session, const char *query, size_t query_length)
{
    return prepare_text(session, query, query_length, NULL);
}

CassFuture *cass_session_prepare_from_existing(CassSession *session, CassStatement *statement)
{
    if (statement && statement->prepared)
        return prepare_text(session, statement->prepared->query, statement->prepared->query_len,
                            statement);
    if (statement && statement->query)
        return prepare_text(session, statement->query, statement->query_len, statement);
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_PREPARE);
    fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No statement given");
    return f;
}

/* ---- execute ---- */

/* Values a request passes from the stack; more take an allocation. */
#define STACK_VALUES 16

/* A serial level that is set: ANY (the driver's "not sent") and UNKNOWN are not. */
static int serial_set(CassConsistency c)
{
    return c != CASS_CONSISTENCY_UNKNOWN && c != CASS_CONSISTENCY_ANY;
}

/*
 * The profile a request names (name NULL: none, the cluster's defaults alone): 0 with *out set
 * (NULL for none), or -1 when the session's cluster has no such profile, which fails f as the
 * driver's request processor does. The cluster copy lives while the request is registered.
 */
static int profile_of(const session_impl *si, const char *name, size_t len,
                      const CassExecProfile **out, CassFuture *f)
{
    *out = NULL;
    if (!name)
        return 0;
    if (!(*out = cql_drv_profile_find(si->cluster, name, len))) {
        fail_with(f, CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID, "%.*s does not exist", (int)len,
                  name);
        return -1;
    }
    return 0;
}

/*
 * Consistency levels, timeout and timestamp of a request, each as the driver resolves it
 * (request_callback.hpp): the statement's own when set, else its profile's when set, else the
 * cluster's default.
 */
static void apply_defaults(const session_impl *si, const CassExecProfile *profile,
                           CassConsistency consistency, CassConsistency serial,
                           cass_uint64_t timeout_ms, int64_t timestamp, cql_request *req)
{
    if (consistency != CASS_CONSISTENCY_UNKNOWN)
        req->consistency = (int)consistency;
    else if (profile && profile->consistency != CASS_CONSISTENCY_UNKNOWN)
        req->consistency = (int)profile->consistency;
    else
        req->consistency = (int)si->pub.consistency;
    if (serial_set(serial))
        req->serial_consistency = (int)serial;
    else if (profile && serial_set(profile->serial_consistency))
        req->serial_consistency = (int)profile->serial_consistency;
    else if (serial_set(si->pub.serial_consistency))
        req->serial_consistency = (int)si->pub.serial_consistency;
    else
        req->serial_consistency = CASS_CONSISTENCY_SERIAL; /* the protocol's default */
    if (timeout_ms != CASS_UINT64_MAX)
        req->timeout_ms = timeout_ms;
    else if (profile && profile->request_timeout_ms != CASS_UINT64_MAX)
        req->timeout_ms = profile->request_timeout_ms;
    else
        req->timeout_ms = si->cluster->request_timeout_ms;
    req->timestamp =
        timestamp != ENG_TS_NONE ? timestamp : cql_drv_timestamp_next(si->pub.timestamp_gen);
}

/* A request that could not be built (its values: out of memory); ends f. */
static void fail_request(CassFuture *f)
{
    fail_with(f, CASS_ERROR_LIB_INTERNAL_ERROR, "out of memory binding the statement's values");
}

CassFuture *cass_session_execute(CassSession *session, const CassStatement *statement)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_RESULT);
    if (cass_future_ready(f))
        return f; /* the shared one memory running out gives: already failed */
    if (!session || !statement) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no statement given");
        return f;
    }
    if (!statement->prepared && !statement->query) {
        fail_with(f, CASS_ERROR_SERVER_SYNTAX_ERROR, "The statement has no query");
        return f;
    }
    session_impl *si = impl_of(session);
    const cql_backend_ops *ops;
    cql_backend *b;
    int gate = begin_request(si, &ops, &b);
    if (gate < 0) {
        fail_not_connected(f);
        return f;
    }
    const CassExecProfile *profile;
    if (profile_of(si, statement->profile, statement->profile_len, &profile, f)) {
        end_request(si, gate);
        return f;
    }
    cql_request req;
    eng_val buf[STACK_VALUES], *heap = NULL;
    if (cql_drv_statement_request(statement, &req, buf, STACK_VALUES, &heap)) {
        fail_request(f);
        eng_free(heap);
        end_request(si, gate);
        return f;
    }
    apply_defaults(si, profile, statement->consistency, statement->serial_consistency,
                   statement->request_timeout_ms, statement->timestamp, &req);
    req.profile = profile;
    req.coordinator = &f->coordinator;
    /* ends the request, now or later */
    ops->execute(b, &req, request_done, pending_new(si, gate, f));
    eng_free(heap);
    return f;
}

CassFuture *cass_session_execute_batch(CassSession *session, const CassBatch *batch)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_RESULT);
    if (cass_future_ready(f))
        return f; /* the shared one memory running out gives: already failed */
    if (!session || !batch || (batch->n && !batch->stmts)) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no batch given");
        return f;
    }
    for (size_t i = 0; i < batch->n; i++) {
        const CassStatement *st = batch->stmts[i];
        if (!st) {
            fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "The batch holds no statement at %zu", i);
            return f;
        }
        for (size_t j = 0; !st->prepared && st->names && j < st->n_values; j++)
            if (st->names[j]) {
                /* The protocol's BATCH has no names for values: the driver refuses them. */
                fail_with(f, CASS_ERROR_LIB_BAD_PARAMS,
                          "Batches cannot contain queries with named values");
                return f;
            }
    }
    session_impl *si = impl_of(session);
    const cql_backend_ops *ops;
    cql_backend *b;
    int gate = begin_request(si, &ops, &b);
    if (gate < 0) {
        fail_not_connected(f);
        return f;
    }
    const CassExecProfile *profile;
    if (profile_of(si, batch->profile, batch->profile_len, &profile, f)) {
        end_request(si, gate);
        return f;
    }
    size_t n = batch->n;
    cql_request *reqs = eng_calloc(n ? n : 1, sizeof *reqs);
    eng_val **heaps = eng_calloc(n ? n : 1, sizeof *heaps);
    int rc = reqs && heaps ? 0 : ENG_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        rc = cql_drv_statement_request(batch->stmts[i], &reqs[i], NULL, 0, &heaps[i]);
    if (!rc) {
        cql_batch_request breq = {.kind = (int)batch->type, .n = (uint32_t)n, .stmts = reqs,
                                  .timestamp = ENG_TS_NONE};
        cql_request defaults;
        memset(&defaults, 0, sizeof defaults);
        apply_defaults(si, profile, batch->consistency, batch->serial_consistency,
                       batch->request_timeout_ms, batch->timestamp, &defaults);
        breq.timestamp = defaults.timestamp;
        breq.consistency = defaults.consistency;
        breq.serial_consistency = defaults.serial_consistency;
        breq.timeout_ms = defaults.timeout_ms;
        if (batch->payload && batch->payload->n) {
            breq.n_payload = batch->payload->n;
            breq.payload_names = batch->payload->names;
            breq.payload_values = batch->payload->vals;
        }
        breq.tracing = batch->tracing == cass_true;
        breq.idempotent = batch->idempotent == cass_true;
        breq.profile = profile;
        breq.retry_policy = batch->retry_policy;
        breq.keyspace = batch->keyspace;
        breq.coordinator = &f->coordinator;
        for (size_t i = 0; i < n; i++)
            reqs[i].tracing = 0; /* the batch is traced as a whole */
        /* ends it, now or later */
        ops->execute_batch(b, &breq, request_done, pending_new(si, gate, f));
    } else {
        fail_request(f);
        end_request(si, gate);
    }
    for (size_t i = 0; heaps && i < n; i++)
        eng_free(heaps[i]);
    eng_free(heaps);
    eng_free(reqs);
    return f;
}

/* ---- USE at connect ---- */

/* A request the caller waits for: the embedded backend completes it before execute returns,
   the remote one later, on its connection's thread. */
typedef struct sync_outcome {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    int rc;
    eng_err err;
} sync_outcome;

static void sync_done(void *arg, int rc, const eng_err *err, cql_result *result)
{
    sync_outcome *o = arg;
    cql_result_free(result);
    pthread_mutex_lock(&o->lock);
    o->rc = rc;
    if (rc && err)
        o->err = *err;
    o->done = 1;
    pthread_cond_signal(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

static int use_on_connect(const cql_backend_ops *ops, cql_backend *b, const char *ks, size_t len,
                          eng_err *err)
{
    eng_buf q = ENG_BUF_INIT;
    cql_drv_use_query(&q, ks, len);
    if (q.oom) {
        eng_buf_free(&q);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory setting the keyspace");
    }
    cql_request req;
    memset(&req, 0, sizeof req);
    req.query = (const char *)q.p;
    req.query_len = q.len;
    req.timestamp = ENG_TS_NONE;
    req.consistency = CASS_CONSISTENCY_ONE;
    req.serial_consistency = CASS_CONSISTENCY_SERIAL;
    sync_outcome o;
    memset(&o, 0, sizeof o);
    pthread_mutex_init(&o.lock, NULL);
    pthread_cond_init(&o.cond, NULL);
    eng_err_clear(&o.err);
    ops->execute(b, &req, sync_done, &o);
    pthread_mutex_lock(&o.lock);
    while (!o.done)
        pthread_cond_wait(&o.cond, &o.lock);
    pthread_mutex_unlock(&o.lock);
    pthread_mutex_destroy(&o.lock);
    pthread_cond_destroy(&o.cond);
    eng_buf_free(&q);
    if (o.rc)
        *err = o.err;
    return o.rc;
}

/* ---- schema and client id ---- */

/* system.local's schema_version (zeros when the result has none): every schema change moves it. */
static void schema_uuid(const cql_result *local, uint8_t out[16])
{
    memset(out, 0, 16);
    for (uint32_t i = 0; local && local->n_rows && i < local->n_cols; i++) {
        const eng_val *v = &local->cells[i];
        if (local->cols[i].name && !strcmp(local->cols[i].name, "schema_version") && v->len == 16)
            memcpy(out, v->p, 16);
    }
}

/* Schema changes racing the reads this many times in a row are taken as they come. */
#define SCHEMA_READ_ATTEMPTS 8

/*
 * The rows of the schema tables, describing one schema: each read sees the schema of its own
 * moment, so system.local is read first and last, and the reads run again while a schema
 * change came between them.
 */
static int schema_rows(const cql_backend_ops *ops, cql_backend *b,
                       cql_result *rows[CQL_DRV_SCHEMA_N], eng_err *err)
{
    for (int attempt = 1;; attempt++) {
        int rc = ops->schema_rows(b, CQL_DRV_SCHEMA_LOCAL, &rows[CQL_DRV_SCHEMA_LOCAL], err);
        for (int t = 0; !rc && t < CQL_DRV_SCHEMA_LOCAL; t++)
            rc = ops->schema_rows(b, t, &rows[t], err);
        cql_result *last = NULL;
        if (!rc)
            rc = ops->schema_rows(b, CQL_DRV_SCHEMA_LOCAL, &last, err);
        uint8_t before[16], after[16];
        schema_uuid(rows[CQL_DRV_SCHEMA_LOCAL], before);
        schema_uuid(last, after);
        cql_result_free(last);
        if (rc || !memcmp(before, after, 16) || attempt == SCHEMA_READ_ATTEMPTS)
            return rc;
        for (int t = 0; t < CQL_DRV_SCHEMA_N; t++) {
            cql_result_free(rows[t]);
            rows[t] = NULL;
        }
    }
}

/*
 * The version a snapshot is given: the same as the last one while the schema is the same (its
 * system.local schema_version), the next one otherwise, as the driver numbers the snapshots its
 * refreshes make.
 */
static cass_uint32_t schema_snapshot_version(session_impl *si, const cql_result *local)
{
    uint8_t uuid[16];
    schema_uuid(local, uuid);
    pthread_mutex_lock(&si->pub.lock);
    if (si->schema_version == 0 || memcmp(uuid, si->schema_uuid, 16) != 0) {
        si->schema_version++;
        memcpy(si->schema_uuid, uuid, 16);
    }
    cass_uint32_t version = si->schema_version;
    pthread_mutex_unlock(&si->pub.lock);
    return version;
}

const CassSchemaMeta *cass_session_get_schema_meta(const CassSession *session)
{
    const cql_result *none[CQL_DRV_SCHEMA_N] = {NULL};
    if (!session)
        return cql_drv_schema_meta_from_rows(none, 0);
    session_impl *si = impl_of(session);
    const cql_backend_ops *ops;
    cql_backend *b;
    int use_schema = 0;
    pthread_mutex_lock(&si->pub.lock);
    use_schema = si->cluster && si->cluster->use_schema;
    pthread_mutex_unlock(&si->pub.lock);
    int gate = use_schema ? begin_request(si, &ops, &b) : -1;
    if (gate < 0)
        return cql_drv_schema_meta_from_rows(none, 0);
    cql_result *rows[CQL_DRV_SCHEMA_N] = {NULL};
    eng_err err;
    eng_err_clear(&err);
    int rc = schema_rows(ops, b, rows, &err);
    cass_uint32_t version = rc ? 0 : schema_snapshot_version(si, rows[CQL_DRV_SCHEMA_LOCAL]);
    end_request(si, gate);
    CassSchemaMeta *m = NULL;
    if (rc && rc != ENG_E_NOMEM)
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "Unable to read the schema metadata: %s", err.msg);
    else if (!rc)
        m = cql_drv_schema_meta_from_rows((const cql_result *const *)rows, version);
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
        cql_result_free(rows[t]);
    return m;
}

CassUuid cass_session_get_client_id(CassSession *session)
{
    CassUuid u = {0, 0};
    if (!session)
        return u;
    pthread_mutex_lock(&session->lock);
    u = session->client_id;
    pthread_mutex_unlock(&session->lock);
    return u;
}

/* ---- cassette.h extensions ---- */

typedef enum ext_op {
    EXT_CLOCK_SET,
    EXT_CLOCK_ADVANCE,
    EXT_CLOCK_REAL,
    EXT_RESET,
    EXT_SNAPSHOT
} ext_op;

/* Passes one extension to the session's backend: 0 or a CassError. */
static int extension(CassSession *session, ext_op op, int64_t arg, const char *dir)
{
    if (!session)
        return CASS_ERROR_LIB_BAD_PARAMS;
    session_impl *si = impl_of(session);
    const cql_backend_ops *ops;
    cql_backend *b;
    int gate = begin_request(si, &ops, &b);
    if (gate < 0)
        return CASS_ERROR_LIB_NO_HOSTS_AVAILABLE;
    int rc = CASS_ERROR_LIB_NOT_IMPLEMENTED; /* a backend without it */
    if (op == EXT_SNAPSHOT && ops->snapshot)
        rc = ops->snapshot(b, dir);
    else if (op == EXT_CLOCK_SET && ops->clock_set)
        rc = ops->clock_set(b, arg);
    else if (op == EXT_CLOCK_ADVANCE && ops->clock_advance)
        rc = ops->clock_advance(b, arg);
    else if (op == EXT_CLOCK_REAL && ops->clock_real)
        rc = ops->clock_real(b);
    else if (op == EXT_RESET && ops->reset)
        rc = ops->reset(b);
    end_request(si, gate);
    return rc;
}

int cassette_session_clock_set(CassSession *session, int64_t unix_us)
{
    return extension(session, EXT_CLOCK_SET, unix_us, NULL);
}

int cassette_session_clock_advance(CassSession *session, int64_t delta_us)
{
    return extension(session, EXT_CLOCK_ADVANCE, delta_us, NULL);
}

int cassette_session_clock_real(CassSession *session)
{
    return extension(session, EXT_CLOCK_REAL, 0, NULL);
}

int cassette_session_reset(CassSession *session)
{
    return extension(session, EXT_RESET, 0, NULL);
}

int cassette_session_snapshot(CassSession *session, const char *dir)
{
    if (!dir || !*dir)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return extension(session, EXT_SNAPSHOT, 0, dir);
}

/* ---- metrics ---- */

void cass_session_get_metrics(const CassSession *session, CassMetrics *output)
{
    if (!output)
        return;
    memset(output, 0, sizeof *output);
    if (!session)
        return;
    session_impl *si = impl_of(session);
    cql_drv_meter_read(&si->requests, output);
    const cql_backend_ops *ops;
    cql_backend *b;
    int gate = begin_request(si, &ops, &b);
    if (gate < 0)
        return;
    if (ops->metrics)
        ops->metrics(b, output, NULL);
    end_request(si, gate);
}

void cass_session_get_speculative_execution_metrics(const CassSession *session,
                                                     CassSpeculativeExecutionMetrics *output)
{
    if (!output)
        return;
    memset(output, 0, sizeof *output);
    if (!session)
        return;
    session_impl *si = impl_of(session);
    const cql_backend_ops *ops;
    cql_backend *b;
    int gate = begin_request(si, &ops, &b);
    if (gate >= 0) {
        if (ops->metrics)
            ops->metrics(b, NULL, output);
        end_request(si, gate);
    }
    uint64_t all = cql_drv_meter_count(&si->requests);
    output->percentage = all ? 100.0 * (double)output->count / (double)all : 0;
}
