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

struct cql_backend {
    cql_conn *conn;
    uint8_t version;
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

/* Sends a request and waits for its outcome. */
static int call_sync(cql_backend *b, uint8_t opcode, const eng_buf *body, cql_result **out,
                     eng_err *err)
{
    waiter w;
    waiter_init(&w);
    cql_conn_send(b->conn, opcode, body->p, body->len, NULL, 0, waiter_done, &w);
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

/* ---- connect ---- */

/* The first host of a contact list (a URI or names separated by commas), and its port. */
static int first_host(const char *contacts, int default_port, char *host, size_t cap, int *port)
{
    const char *p = contacts;
    if (!strncmp(p, "cql://", 6))
        p += 6;
    while (*p == ' ' || *p == ',')
        p++;
    size_t n = strcspn(p, ",/? ");
    if (!n || n >= cap)
        return -1;
    memcpy(host, p, n);
    host[n] = '\0';
    *port = default_port;
    char *colon = strrchr(host, ':');
    if (colon && !strchr(colon + 1, ']') && strchr(host, ':') == colon) { /* not IPv6 */
        *port = atoi(colon + 1);
        *colon = '\0';
    }
    if (host[0] == '[') { /* [v6]:port */
        size_t len = strlen(host);
        memmove(host, host + 1, len);
        char *close = strchr(host, ']');
        if (close)
            *close = '\0';
    }
    return *port > 0 && *port < 65536 ? 0 : -1;
}

static CassError remote_connect(const CassCluster *cluster, const char *contacts,
                                const char *origin, cql_backend **out, eng_err *err)
{
    *out = NULL;
    char host[256];
    int port = 0;
    if (first_host(contacts, cluster->port ? cluster->port : 9042, host, sizeof host, &port)) {
        eng_errorf(err, ENG_E_SERVER, "No valid host in the contact points %.300s%s", contacts,
                   origin);
        return CASS_ERROR_LIB_NO_HOSTS_AVAILABLE;
    }
    const char *keys[3], *vals[3];
    uint16_t n = 0;
    keys[n] = "DRIVER_NAME";
    vals[n++] = "cassette";
    if (cluster->application_name) {
        keys[n] = "APPLICATION_NAME";
        vals[n++] = cluster->application_name;
    }
    if (cluster->application_version) {
        keys[n] = "APPLICATION_VERSION";
        vals[n++] = cluster->application_version;
    }
    cql_conn_config cfg = {
        .host = host,
        .port = port,
        .max_version = (uint8_t)(cluster->protocol_version >= 3 && cluster->protocol_version <= 5
                                     ? cluster->protocol_version
                                     : 4),
        .user = cluster->username,
        .password = cluster->password,
        .connect_timeout_ms = cluster->connect_timeout_ms,
        .request_timeout_ms = cluster->request_timeout_ms,
        .startup_keys = keys,
        .startup_vals = vals,
        .n_startup = n,
    };
    cql_backend *b = calloc(1, sizeof *b);
    if (!b) {
        eng_errorf(err, ENG_E_NOMEM, "out of memory connecting");
        return CASS_ERROR_LIB_UNABLE_TO_CONNECT;
    }
    eng_err why;
    eng_err_clear(&why);
    int rc = cql_conn_open(&cfg, &b->conn, &why);
    if (rc) {
        free(b);
        eng_err_clear(err);
        eng_errorf(err, rc, "%s%s", why.msg, origin);
        return rc == ENG_E_BAD_CREDENTIALS || rc == CQL_E_AUTH_NEEDED
                   ? CASS_ERROR_SERVER_BAD_CREDENTIALS
                   : CASS_ERROR_LIB_NO_HOSTS_AVAILABLE;
    }
    b->version = cql_conn_version(b->conn);
    *out = b;
    return CASS_OK;
}

static void remote_close(cql_backend *b)
{
    if (!b)
        return;
    cql_conn_close(b->conn);
    free(b);
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
    cql_backend_done done;
    void *arg;
    uint8_t opcode;
    eng_buf body;
    char *query; /* the prepared statement's text (EXECUTE), for an UNPREPARED answer */
    size_t query_len;
    const cql_column_spec *known;
    uint32_t n_known;
    int reprepared;
} call;

static void call_free(call *c)
{
    eng_buf_free(&c->body);
    free(c->query);
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
    cql_conn_send(c->b->conn, c->opcode, c->body.p, c->body.len, c->known, c->n_known,
                  on_answer, c);
}

static void on_answer(void *arg, int rc, const eng_err *err, cql_proto_response *resp)
{
    call *c = arg;
    if (!rc && resp->opcode == CQL_PROTO_ERROR && resp->err.code == ENG_E_UNPREPARED &&
        c->query && !c->reprepared) {
        c->reprepared = 1;
        eng_buf body = ENG_BUF_INIT;
        cql_proto_put_prepare(&body, c->b->version, (const uint8_t *)c->query, c->query_len,
                              NULL);
        cql_conn_send(c->b->conn, CQL_PROTO_PREPARE, body.p, body.len, NULL, 0, on_reprepared,
                      c);
        eng_buf_free(&body);
        return;
    }
    cql_result *r = NULL;
    eng_err e;
    eng_err_clear(&e);
    int code = outcome(rc, err, resp, &e, &r);
    if (code)
        c->done(c->arg, code, &e, NULL);
    else
        c->done(c->arg, 0, NULL, r);
    call_free(c);
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
            cql_proto_put_execute(&c->body, b->version, id, (eng_val){NULL, 0}, &p);
            c->query = malloc(req->prepared->query_len + 1);
            if (c->query) {
                memcpy(c->query, req->prepared->query, req->prepared->query_len);
                c->query[req->prepared->query_len] = '\0';
                c->query_len = req->prepared->query_len;
            }
        }
        free(owned);
    } else {
        c->opcode = CQL_PROTO_QUERY;
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
    cql_conn_send(b->conn, c->opcode, c->body.p, c->body.len, c->known, c->n_known, on_answer, c);
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
        memset(&p, 0, sizeof p);
        p.consistency = consistency_of(req->consistency, CQL_PROTO_CL_ONE);
        p.serial_consistency = consistency_of(req->serial_consistency, CQL_PROTO_CL_SERIAL);
        p.timestamp = req->timestamp;
        p.page_size = -1;
        p.paging_state.len = -1;
        c->b = b;
        c->done = done;
        c->arg = arg;
        c->opcode = CQL_PROTO_BATCH;
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
    cql_conn_send(b->conn, c->opcode, c->body.p, c->body.len, NULL, 0, on_answer, c);
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
    memset(&p, 0, sizeof p);
    p.consistency = CQL_PROTO_CL_ONE;
    p.serial_consistency = CQL_PROTO_CL_SERIAL;
    p.page_size = -1; /* every row in one answer */
    p.paging_state.len = -1;
    p.timestamp = INT64_MIN;
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
