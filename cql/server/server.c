/*
 * The native-protocol server (server.h): the loop thread owns sockets and
 * connection state; worker threads own a request between dispatch and
 * completion; the committer thread only hands finished durable writes back
 * through `done` and the async handle.
 *
 * Invariants:
 *  - a connection lives while its handle is open or a request of it is in
 *    flight (refs); a response for a connection already closing is dropped;
 *  - a request's response is written once, when both its work finished
 *    (work_done) and its response is encoded (response_ready): a durable
 *    write's response may be encoded by the committer before the worker
 *    returns, or after;
 *  - v5 connections switch to segments right after the READY that answers
 *    STARTUP is queued; nothing before it is framed in segments.
 */
#include "cql/server/server.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "cql/cql.h"
#include "cql/errors.h"
#include "cql/proto/message.h"
#include "cql/proto/segment.h"
#include "cql/server/registry.h"
#include "cql/server/schema_diff.h"
#include "cql/server/tls.h"

#define DEFAULT_PORT 9042
#define DEFAULT_MAX_CONNECTIONS 1024
#define DEFAULT_MAX_FRAME (16u << 20)
#define DEFAULT_MAX_INFLIGHT 1024
/* A client that stops reading: reading from it pauses while this much waits to be sent. */
#define WRITE_QUEUE_PAUSE (8u << 20)
#define READ_CHUNK (64u << 10)
/* Shutdown: how long answers already made may wait for clients to read them. */
#define DRAIN_GRACE_MS 5000

/* REGISTER event types. */
enum { EVENT_TOPOLOGY = 1, EVENT_STATUS = 2, EVENT_SCHEMA = 4 };

typedef struct server server;
typedef struct conn conn;

struct conn {
    uv_tcp_t tcp;
    server *srv;
    conn *prev, *next;
    uint8_t version; /* 0 until the first frame fixes it */
    int started;     /* READY or AUTH_SUCCESS sent: requests are served */
    int authenticating; /* --auth: AUTHENTICATE sent, only AUTH_RESPONSE is taken */
    int logging_in;     /* a login is being checked on a worker */
    char *user;         /* --auth: the role logged in (owned) */
    int segments;    /* v5 framing in effect */
    cql_proto_compression compression;
    eng_buf in;      /* bytes read, not consumed yet */
    eng_buf frames;  /* v5: segment payloads, not consumed as frames yet */
    char *keyspace;  /* USE'd keyspace (owned) */
    uint32_t events; /* REGISTERed types */
    uint32_t inflight;
    int refs;               /* the handle + each request in flight */
    int closing;            /* close asked; no more reads or responses */
    int paused;             /* reading stopped for back-pressure */
    int close_after_writes; /* a fatal protocol error was answered: close once written */
    eng_buf pending;        /* answers of this loop iteration, written together by flush */
    struct request *batch_head, *batch_tail; /* requests read, not yet handed to a worker */
    cql_tls_conn *tls;                       /* --tls-cert: the connection's TLS state, else NULL */
    eng_buf raw;                             /* TLS: bytes read, for OpenSSL */
    eng_buf tls_out;  /* TLS: what OpenSSL must send besides answers (handshake) */
    int flush_queued; /* on the server's flush list (holding a reference) */
    conn *next_flush;
};

typedef struct request {
    conn *c;
    server *srv;
    cql_proto_header h;
    uint8_t *body; /* the frame's body, decompressed (owned) */
    size_t body_len;
    char *keyspace;    /* the connection's keyspace when dispatched (owned) */
    char *user;        /* --auth: the connection's role when dispatched (owned) */
    int segments, lz4; /* how the response is framed */
    cql_proto_compression compression;
    eng_arena arena;
    cql_proto_request msg;
    int decoded;          /* msg is decoded */
    cql_prepared *prep;   /* EXECUTE: its statement, when looked up already (a reference) */
    eng_buf out; /* the response, framed */
    int pending; /* a queued durable write: the committer encodes the response */
    int work_done, response_ready;
    int schema_changed;        /* the response is a SCHEMA_CHANGE result: send events */
    cql_result *schema_change; /* kept for the events */
    char *new_keyspace;        /* a SET_KEYSPACE result (owned) */
    struct request *next_done;
    struct request *next_in_batch;
} request;

struct server {
    uv_loop_t loop;
    uv_tcp_t listener;
    uv_signal_t sigterm, sigint;
    uv_async_t wake;    /* durable writes completed by the committer */
    uv_timer_t drain;   /* shutdown: waits for requests in flight */
    uv_check_t flusher; /* after each poll: writes what the iteration answered */
    conn *flush_list;
    eng_db *db;
    uint64_t generation; /* this server among the process's (request_session) */
    cql_tls_server *tls; /* NULL without --tls-cert */
    cql_registry *registry; /* this node among the directory's (registry.h) */
    uv_timer_t registry_poll; /* looks at the other nodes: TOPOLOGY/STATUS_CHANGE events */
    eng_schema *seen_schema;  /* the schema events were last sent for (loop thread) */
    cql_server_config cfg;
    conn *conns;
    int n_conns;
    int stopping;
    uint64_t stop_time; /* uv_now when the stop began */
    uint32_t inflight;
    pthread_mutex_t done_lock;
    request *done; /* completed by the committer, for the loop to send */
};

/* ---- connections ---- */

static void conn_unref(conn *c)
{
    if (--c->refs > 0)
        return;
    eng_buf_free(&c->in);
    eng_buf_free(&c->frames);
    eng_buf_free(&c->pending);
    eng_buf_free(&c->raw);
    eng_buf_free(&c->tls_out);
    cql_tls_conn_free(c->tls);
    free(c->keyspace);
    free(c->user);
    free(c);
}

static void on_closed(uv_handle_t *h)
{
    conn *c = h->data;
    server *s = c->srv;
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    s->n_conns--;
    conn_unref(c);
}

static void conn_close(conn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}

static void resume_reading(conn *c);
static void pause_reading(conn *c);

typedef struct write_req {
    uv_write_t w;
    conn *c;
    eng_buf buf;
} write_req;

/* Bytes accepted for the connection and not yet handed to the kernel. */
static size_t unsent(conn *c)
{
    return uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) + c->pending.len + c->tls_out.len;
}

static void on_written(uv_write_t *w, int status)
{
    write_req *wr = (write_req *)w;
    conn *c = wr->c;
    eng_buf_free(&wr->buf);
    free(wr);
    if (status < 0 || (c->close_after_writes && unsent(c) == 0))
        conn_close(c);
    else
        resume_reading(c);
    conn_unref(c);
}

/* Puts the connection on the list of those the end of this loop turn writes to. */
static void queue_flush(conn *c)
{
    if (!c->flush_queued) {
        c->flush_queued = 1;
        c->refs++;
        c->next_flush = c->srv->flush_list;
        c->srv->flush_list = c;
    }
}

/*
 * Queues bytes to the connection (taking over buf's memory). They are written at the end of
 * this loop iteration, with every other answer the iteration made for the connection: one
 * write for a pipeline's worth of answers, not one each.
 */
static void conn_send(conn *c, eng_buf *buf)
{
    if (c->closing || buf->len == 0) {
        eng_buf_free(buf);
        return;
    }
    if (c->pending.len == 0) {
        eng_buf_free(&c->pending);
        c->pending = *buf;
        *buf = (eng_buf)ENG_BUF_INIT;
    } else {
        eng_buf_put(&c->pending, buf->p, buf->len);
        eng_buf_free(buf);
        if (c->pending.oom) {
            conn_close(c);
            return;
        }
    }
    if (unsent(c) >= WRITE_QUEUE_PAUSE)
        pause_reading(c); /* a client not reading its answers gets no more until it does */
    queue_flush(c);
}

static void on_flush(uv_check_t *h)
{
    server *s = h->data;
    conn *list = s->flush_list;
    s->flush_list = NULL;
    while (list) {
        conn *c = list;
        list = c->next_flush;
        c->flush_queued = 0;
        eng_buf wire = ENG_BUF_INIT;
        if (!c->closing && c->tls) {
            /* handshake bytes first, then the answers, encrypted */
            wire = c->tls_out;
            c->tls_out = (eng_buf)ENG_BUF_INIT;
            if (c->pending.len && cql_tls_conn_write(c->tls, c->pending.p, c->pending.len, &wire))
                conn_close(c);
            eng_buf_reset(&c->pending);
        } else if (!c->closing) {
            wire = c->pending;
            c->pending = (eng_buf)ENG_BUF_INIT;
        }
        if (!c->closing && wire.len) {
            write_req *wr = calloc(1, sizeof *wr);
            if (!wr) {
                eng_buf_free(&wire);
                conn_close(c);
            } else {
                wr->c = c;
                wr->buf = wire;
                uv_buf_t b = uv_buf_init((char *)wr->buf.p, (unsigned)wr->buf.len);
                c->refs++;
                if (uv_write(&wr->w, (uv_stream_t *)&c->tcp, &b, 1, on_written) < 0) {
                    eng_buf_free(&wr->buf);
                    free(wr);
                    c->refs--;
                    conn_close(c);
                }
            }
        } else {
            eng_buf_free(&wire);
        }
        conn_unref(c);
    }
}

/*
 * A finished frame as the connection's framing sends it, into *wire (which it replaces),
 * taking over frame's memory: the frame itself, or v5 segments holding it. 0 or ENG_E_NOMEM.
 */
static int to_wire(eng_buf *frame, int segments, int lz4, eng_buf *wire)
{
    eng_buf_free(wire);
    if (!segments) {
        *wire = *frame;
        *frame = (eng_buf)ENG_BUF_INIT;
        return 0;
    }
    int rc = cql_proto_segments_put(wire, frame->p, frame->len, lz4);
    eng_buf_free(frame);
    return rc;
}

static int frame_for(conn *c, eng_buf *frame, eng_buf *wire)
{
    return to_wire(frame, c->segments, c->compression == CQL_PROTO_COMPRESS_LZ4, wire);
}

/* Ends a frame the loop thread answers with (begun at `at`), framed and compressed as the
   connection now speaks, and sends it. Frees frame. */
static void send_frame(conn *c, eng_buf *frame, size_t at)
{
    eng_buf wire = ENG_BUF_INIT;
    if (cql_proto_frame_end(frame, at, c->segments ? CQL_PROTO_COMPRESS_NONE : c->compression) ==
            0 &&
        frame_for(c, frame, &wire) == 0)
        conn_send(c, &wire);
    eng_buf_free(frame);
    eng_buf_free(&wire);
}

/* Sends an ERROR on stream with message msg; fatal ones close the connection once written. */
static void send_error(conn *c, uint8_t version, int16_t stream, int eng_code, const char *msg,
                       int fatal)
{
    eng_err e;
    eng_err_clear(&e);
    eng_errorf(&e, eng_code, "%s", msg);
    cql_proto_error pe;
    cql_proto_error_from_eng(&e, &pe);
    eng_buf frame = ENG_BUF_INIT, wire = ENG_BUF_INIT;
    size_t at = cql_proto_frame_begin(&frame, version, stream, CQL_PROTO_ERROR, NULL, 0);
    cql_proto_put_error(&frame, version, &pe);
    if (cql_proto_frame_end(&frame, at, CQL_PROTO_COMPRESS_NONE) == 0 &&
        frame_for(c, &frame, &wire) == 0)
        conn_send(c, &wire);
    eng_buf_free(&frame);
    eng_buf_free(&wire);
    if (fatal) {
        c->close_after_writes = 1;
        pause_reading(c);
        if (unsent(c) == 0)
            conn_close(c);
    }
}

/* ---- requests on workers ---- */

static void request_free(request *r)
{
    cql_prepared_unref(r->prep);
    free(r->body);
    free(r->keyspace);
    free(r->user);
    free(r->new_keyspace);
    eng_arena_free(&r->arena);
    eng_buf_free(&r->out);
    cql_result_free(r->schema_change);
    free(r);
}

/* The ERROR answering r, framed into r->out (an UNPREPARED one names the id asked for). */
static void respond_error(request *r, const eng_err *err, const eng_val *unprepared_id)
{
    cql_proto_error pe;
    cql_proto_error_from_eng(err, &pe);
    if (unprepared_id && err->code == ENG_E_UNPREPARED)
        pe.unprepared_id = *unprepared_id;
    eng_buf frame = ENG_BUF_INIT;
    size_t at = cql_proto_frame_begin(&frame, r->h.version, r->h.stream, CQL_PROTO_ERROR, NULL, 0);
    cql_proto_put_error(&frame, r->h.version, &pe);
    eng_buf_reset(&r->out);
    if (cql_proto_frame_end(&frame, at, r->compression) == 0)
        to_wire(&frame, r->segments, r->lz4, &r->out);
    eng_buf_free(&frame);
}

static void respond_result(request *r, const cql_result *res, const cql_proto_rows_opts *o)
{
    eng_buf frame = ENG_BUF_INIT;
    size_t at = cql_proto_frame_begin_traced(&frame, r->h.version, r->h.stream, CQL_PROTO_RESULT,
                                             res->has_tracing_id ? res->tracing_id : NULL,
                                             res->warnings, res->n_warnings);
    cql_proto_put_result(&frame, r->h.version, res, o);
    if (cql_proto_frame_end(&frame, at, r->compression) == 0) {
        to_wire(&frame, r->segments, r->lz4, &r->out);
        return;
    }
    eng_buf_free(&frame);
    eng_err e;
    eng_err_clear(&e);
    eng_errorf(&e, ENG_E_SERVER, "the response is too large for the protocol");
    respond_error(r, &e, NULL);
}

static void push_done(request *r)
{
    server *s = r->srv;
    pthread_mutex_lock(&s->done_lock);
    r->next_done = s->done;
    s->done = r;
    pthread_mutex_unlock(&s->done_lock);
    uv_async_send(&s->wake);
}

/* The committer's report on a queued durable write. */
static void on_durable(int rc, const eng_err *err, const eng_write_info *info, void *arg)
{
    (void)info;
    request *r = arg;
    if (rc) {
        respond_error(r, err, NULL);
    } else {
        cql_result *v = cql_result_new(CQL_RESULT_VOID);
        if (v)
            respond_result(r, v, NULL);
        cql_result_free(v);
    }
    push_done(r);
}

/* Names of named values, NUL-terminated in the request's arena. */
static const char *const *value_names(request *r, const cql_proto_query_params *p)
{
    if (!p->names)
        return NULL;
    char **names = eng_arena_alloc(&r->arena, p->n_values * sizeof *names);
    if (!names)
        return NULL;
    for (uint16_t i = 0; i < p->n_values; i++) {
        names[i] = eng_arena_alloc(&r->arena, (size_t)p->names[i].len + 1);
        if (!names[i])
            return NULL;
        memcpy(names[i], p->names[i].p, (size_t)p->names[i].len);
        names[i][p->names[i].len] = '\0';
    }
    return (const char *const *)names;
}

/* A frame with the tracing flag runs traced, the client's address in its session row. */
static void trace_options(request *r, cql_exec_options *o)
{
    if (!(r->h.flags & CQL_PROTO_FLAG_TRACING))
        return;
    o->trace = 1;
    struct sockaddr_storage ss;
    int len = (int)sizeof ss;
    uint8_t *addr = NULL;
    if (uv_tcp_getpeername(&r->c->tcp, (struct sockaddr *)&ss, &len) == 0 &&
        (addr = eng_arena_alloc(&r->arena, 16))) {
        if (ss.ss_family == AF_INET) {
            memcpy(addr, &((struct sockaddr_in *)&ss)->sin_addr, 4);
            o->trace_client_len = 4;
        } else if (ss.ss_family == AF_INET6) {
            memcpy(addr, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
            o->trace_client_len = 16;
        }
        o->trace_client = o->trace_client_len ? addr : NULL;
    }
}

static void exec_options(request *r, const cql_proto_query_params *p, cql_exec_options *o)
{
    cql_exec_options_init(o);
    o->values = p->values;
    o->n_values = p->n_values;
    o->names = value_names(r, p);
    o->page_size = p->page_size;
    if (p->paging_state.len > 0) {
        o->paging_state = p->paging_state.p;
        o->paging_state_len = (size_t)p->paging_state.len;
    }
    o->timestamp = p->timestamp; /* INT64_MIN when absent: ENG_TS_NONE */
    o->consistency = p->consistency;
    o->serial_consistency = p->serial_consistency;
    o->now_s = p->now_in_seconds; /* v5; 0 when absent: the clock */
    o->on_durable = on_durable;
    o->on_durable_arg = r;
    trace_options(r, o);
}

/* The session a request runs in: the database's cache, the keyspace in force. */
/*
 * Each worker thread keeps one executor session for the server it last ran requests of
 * (servers are told apart by a process-wide generation, as one may follow another at the same
 * address): a request only sets its keyspace, when it differs. The session is the thread's,
 * used by one request at a time.
 */
static _Atomic uint64_t server_generations;
static __thread cql_session *worker_session;
static __thread uint64_t worker_generation;

static int request_session(request *r, const eng_val *ks_override, cql_session **out, eng_err *err)
{
    if (!worker_session || worker_generation != r->srv->generation) {
        cql_session_free(worker_session); /* its database may be gone: it is not touched */
        worker_session = NULL;
        int rc = cql_session_new(r->srv->db, &worker_session, err);
        if (rc)
            return rc;
        cql_session_set_topology(worker_session, cql_registry_topology(r->srv->registry));
        worker_generation = r->srv->generation;
    }
    /* --auth: the connection's role (the server without it: none, every statement allowed) */
    if (r->srv->cfg.auth) {
        int rc = cql_session_login(worker_session, r->user ? r->user : "", err);
        if (rc)
            return rc;
    }
    const char *ks = r->keyspace;
    size_t len = ks ? strlen(ks) : 0;
    if (ks_override && ks_override->len > 0) {
        ks = (const char *)ks_override->p;
        len = (size_t)ks_override->len;
    }
    const char *cur = cql_session_keyspace(worker_session);
    int same = ks ? cur && strlen(cur) == len && memcmp(cur, ks, len) == 0 : cur == NULL;
    if (!same) {
        int rc = cql_session_use_unchecked(worker_session, ks, len, err);
        if (rc)
            return rc;
    }
    *out = worker_session;
    return 0;
}

/* After an execution: the response, unless the committer will write it. */
static void finish_execution(request *r, int rc, const eng_err *err, cql_result *res,
                             const cql_proto_query_params *p, const eng_val *metadata_id,
                             const eng_val *unprepared_id)
{
    if (rc) {
        respond_error(r, err, unprepared_id);
        return;
    }
    if (res->pending) {
        r->pending = 1; /* on_durable answers, maybe already has */
        cql_result_free(res);
        return;
    }
    cql_proto_rows_opts o = {.skip_metadata = p && (p->flags & CQL_PROTO_Q_SKIP_METADATA)};
    uint8_t id[16];
    if (res->kind == CQL_RESULT_ROWS && metadata_id && r->h.version >= 5) {
        cql_proto_result_metadata_id(res, id);
        if ((size_t)metadata_id->len != sizeof id || memcmp(metadata_id->p, id, sizeof id)) {
            o.metadata_changed = 1;
            o.metadata_id = id;
            o.metadata_id_len = sizeof id;
        }
    }
    respond_result(r, res, &o);
    if (res->kind == CQL_RESULT_SET_KEYSPACE && res->keyspace)
        r->new_keyspace = strdup(res->keyspace);
    if (res->kind == CQL_RESULT_SCHEMA_CHANGE) {
        r->schema_changed = 1;
        r->schema_change = res;
        return;
    }
    cql_result_free(res);
}

static void run_query(request *r)
{
    const cql_proto_query_params *p = &r->msg.u.query.params;
    eng_err err;
    eng_err_clear(&err);
    cql_session *s = NULL;
    cql_result *res = NULL;
    int rc = request_session(r, &p->keyspace, &s, &err);
    if (!rc) {
        cql_exec_options o;
        exec_options(r, p, &o);
        rc = cql_query(s, (const char *)r->msg.u.query.query.p, (size_t)r->msg.u.query.query.len,
                       &o, &res, &err);
    }
    finish_execution(r, rc, &err, res, p, NULL, NULL);
}

static void run_prepare(request *r)
{
    eng_err err;
    eng_err_clear(&err);
    cql_session *s = NULL;
    cql_prepared *p = NULL;
    cql_result *res = NULL;
    int rc = request_session(r, &r->msg.u.prepare.keyspace, &s, &err);
    if (!rc)
        rc = cql_prepare(s, (const char *)r->msg.u.prepare.query.p,
                         (size_t)r->msg.u.prepare.query.len, &p, &err);
    if (!rc)
        rc = cql_prepared_describe(s, p, &res, &err);
    finish_execution(r, rc, &err, res, NULL, NULL, NULL);
    cql_prepared_unref(p);
}

static void run_execute(request *r)
{
    const cql_proto_query_params *p = &r->msg.u.execute.params;
    eng_err err;
    eng_err_clear(&err);
    cql_session *s = NULL;
    cql_prepared *prep = NULL;
    cql_result *res = NULL;
    int rc = request_session(r, &p->keyspace, &s, &err);
    if (!rc && r->prep) {
        prep = r->prep; /* looked up when choosing where it runs */
        r->prep = NULL;
    } else if (!rc) {
        rc = cql_prepared_lookup(s, r->msg.u.execute.id.p, (size_t)r->msg.u.execute.id.len, &prep,
                                 &err);
    }
    if (!rc) {
        cql_exec_options o;
        exec_options(r, p, &o);
        rc = cql_execute(s, prep, &o, &res, &err);
    }
    finish_execution(r, rc, &err, res, p, &r->msg.u.execute.result_metadata_id,
                     &r->msg.u.execute.id);
    cql_prepared_unref(prep);
}

static void run_batch(request *r)
{
    const cql_proto_query_params *p = &r->msg.u.batch.params;
    uint16_t n = r->msg.u.batch.n;
    eng_err err;
    eng_err_clear(&err);
    cql_session *s = NULL;
    cql_result *res = NULL;
    cql_prepared **stmts = n ? calloc(n, sizeof *stmts) : NULL;
    cql_exec_options *opts = n ? calloc(n, sizeof *opts) : NULL;
    const eng_val *missing = NULL;
    int rc = n && (!stmts || !opts) ? eng_errorf(&err, ENG_E_NOMEM, "out of memory") : 0;
    if (!rc)
        rc = request_session(r, &p->keyspace, &s, &err);
    for (uint16_t i = 0; i < n && !rc; i++) {
        const cql_proto_batch_stmt *b = &r->msg.u.batch.stmts[i];
        if (b->kind == 0)
            rc = cql_prepare_simple(s, (const char *)b->query_or_id.p, (size_t)b->query_or_id.len,
                                    &stmts[i], &err);
        else if ((rc = cql_prepared_lookup(s, b->query_or_id.p, (size_t)b->query_or_id.len,
                                           &stmts[i], &err)))
            missing = &b->query_or_id;
        cql_exec_options_init(&opts[i]);
        opts[i].values = b->values;
        opts[i].n_values = b->n_values;
        opts[i].consistency = p->consistency;
        opts[i].serial_consistency = p->serial_consistency;
        opts[i].now_s = p->now_in_seconds;
    }
    if (!rc && n) {
        opts[0].on_durable = on_durable;
        opts[0].on_durable_arg = r;
        trace_options(r, &opts[0]);
    }
    if (!rc)
        rc = cql_execute_batch(s, r->msg.u.batch.type, stmts, opts, n, p->timestamp, &res, &err);
    finish_execution(r, rc, &err, res, NULL, NULL, missing);
    for (uint16_t i = 0; stmts && i < n; i++)
        cql_prepared_unref(stmts[i]);
    free(stmts);
    free(opts);
}

static void run_request(request *r)
{
    eng_err err;
    eng_err_clear(&err);
    if (!r->decoded && cql_proto_request_decode(&r->h, r->body, r->body_len, &r->arena, &r->msg,
                                                &err)) {
        respond_error(r, &err, NULL);
        return;
    }
    switch (r->h.opcode) {
    case CQL_PROTO_QUERY:
        run_query(r);
        break;
    case CQL_PROTO_PREPARE:
        run_prepare(r);
        break;
    case CQL_PROTO_EXECUTE:
        run_execute(r);
        break;
    case CQL_PROTO_BATCH:
        run_batch(r);
        break;
    }
}

/* ---- completion on the loop ---- */

/* A registry change (registry.h) to the connections that registered for its type. */
static void send_node_event(void *arg, const char *type, const char *change, const cql_node *n)
{
    server *s = arg;
    uint32_t want = !strcmp(type, "TOPOLOGY_CHANGE") ? EVENT_TOPOLOGY : EVENT_STATUS;
    cql_proto_inet in = {.len = n->addr_len, .port = n->native_port};
    memcpy(in.addr, n->addr, n->addr_len);
    for (conn *c = s->conns; c; c = c->next) {
        if (!(c->events & want) || c->closing || !c->started)
            continue;
        eng_buf frame = ENG_BUF_INIT;
        size_t at = cql_proto_frame_begin(&frame, c->version, -1, CQL_PROTO_EVENT, NULL, 0);
        cql_proto_put_node_event(&frame, type, change, &in);
        send_frame(c, &frame, at);
    }
}

static void send_schema_events(server *s, const cql_result *change)
{
    for (conn *c = s->conns; c; c = c->next) {
        if (!(c->events & EVENT_SCHEMA) || c->closing || !c->started)
            continue;
        eng_buf frame = ENG_BUF_INIT;
        size_t at = cql_proto_frame_begin(&frame, c->version, -1, CQL_PROTO_EVENT, NULL, 0);
        cql_proto_put_schema_change_event(&frame, change);
        send_frame(c, &frame, at);
    }
}

static void send_schema_change(void *arg, const cql_result *change)
{
    send_schema_events(arg, change);
}

/*
 * Takes the current schema as the one events were sent for; with `announce`, first sends the
 * events of what changed since: a change another server of the directory made (one of this
 * server's own was announced when it was made).
 */
static void see_schema(server *s, int announce)
{
    eng_schema *now = NULL;
    eng_err err;
    eng_err_clear(&err);
    if (eng_db_schema(s->db, &now, &err))
        return;
    if (announce)
        cql_schema_diff(s->seen_schema, now, send_schema_change, s);
    eng_schema_unref(s->seen_schema);
    s->seen_schema = now;
}

static void on_registry_poll(uv_timer_t *t)
{
    server *s = t->data;
    cql_registry_poll(s->registry, send_node_event, s);
    see_schema(s, 1);
}

static void request_finish(request *r)
{
    if (!r->work_done || !r->response_ready)
        return;
    conn *c = r->c;
    server *s = r->srv;
    if (r->new_keyspace && !c->closing) {
        free(c->keyspace);
        c->keyspace = r->new_keyspace;
        r->new_keyspace = NULL;
    }
    conn_send(c, &r->out);
    if (r->schema_changed) {
        send_schema_events(s, r->schema_change);
        see_schema(s, 0); /* sent: the next look must not send them again */
    }
    c->inflight--;
    s->inflight--;
    resume_reading(c);
    conn_unref(c);
    request_free(r);
}

/*
 * The requests one read of a connection brought, run by one worker in order: a pipeline of
 * requests costs one hand-off to a worker and back, not one each. Connections' batches run
 * on different workers at once.
 */
typedef struct batch {
    uv_work_t work;
    request *first;
} batch;

static void run_requests(request *first)
{
    for (request *r = first; r; r = r->next_in_batch) {
        run_request(r);
        /* a USE takes effect for the requests after it in the pipeline */
        for (request *n = r->next_in_batch; r->new_keyspace && n; n = n->next_in_batch) {
            free(n->keyspace);
            n->keyspace = strdup(r->new_keyspace);
        }
    }
}

static void finish_requests(request *r)
{
    while (r) {
        request *next = r->next_in_batch;
        r->work_done = 1;
        if (!r->pending)
            r->response_ready = 1;
        request_finish(r);
        r = next;
    }
}

static void on_batch(uv_work_t *w) { run_requests(((batch *)w)->first); }

static void on_batch_done(uv_work_t *w, int status)
{
    (void)status;
    batch *b = (batch *)w;
    request *first = b->first;
    free(b);
    finish_requests(first);
}

/* Rows a read may return and still run on the loop thread. */
#define INLINE_MAX_ROWS 10

/*
 * Whether the requests of a batch run here, on the loop thread: when every one is an EXECUTE
 * of a read whose cost is bounded by the few rows it returns (cql_prepared_bounded_read) --
 * far less than handing it to a worker and back, and never a wait (no durable write, no
 * lock held by a writer: LMDB readers do not wait). Decodes each request and keeps its
 * statement for the run.
 */
static int runs_inline(request *first)
{
    for (request *r = first; r; r = r->next_in_batch) {
        eng_err err;
        eng_err_clear(&err);
        if (r->h.opcode != CQL_PROTO_EXECUTE || (r->h.flags & CQL_PROTO_FLAG_TRACING))
            return 0; /* a traced request writes its trace */
        if (!r->decoded) {
            if (cql_proto_request_decode(&r->h, r->body, r->body_len, &r->arena, &r->msg, &err))
                return 0; /* the worker answers the error */
            r->decoded = 1;
        }
        const cql_proto_query_params *p = &r->msg.u.execute.params;
        cql_session *s;
        if (request_session(r, &p->keyspace, &s, &err) ||
            (!r->prep && cql_prepared_lookup(s, r->msg.u.execute.id.p,
                                             (size_t)r->msg.u.execute.id.len, &r->prep, &err)) ||
            !cql_prepared_bounded_read(s, r->prep, p->page_size, INLINE_MAX_ROWS))
            return 0;
    }
    return 1;
}

/* Runs the requests read so far: here when they are cheap reads, else on a worker. */
static void submit_batch(conn *c)
{
    request *first = c->batch_head;
    if (!first)
        return;
    c->batch_head = c->batch_tail = NULL;
    if (runs_inline(first)) {
        run_requests(first);
        finish_requests(first);
        return;
    }
    batch *b = calloc(1, sizeof *b);
    if (b) {
        b->first = first;
        if (uv_queue_work(&c->srv->loop, &b->work, on_batch, on_batch_done) == 0)
            return;
        free(b);
    }
    /* no worker to run them: each answers OVERLOADED */
    while (first) {
        request *r = first;
        first = r->next_in_batch;
        eng_err e;
        eng_err_clear(&e);
        eng_errorf(&e, ENG_E_OVERLOADED, "the server cannot queue work");
        respond_error(r, &e, NULL);
        r->work_done = r->response_ready = 1;
        request_finish(r);
    }
}

static void on_wake(uv_async_t *a)
{
    server *s = a->data;
    pthread_mutex_lock(&s->done_lock);
    request *list = s->done;
    s->done = NULL;
    pthread_mutex_unlock(&s->done_lock);
    while (list) {
        request *r = list;
        list = r->next_done;
        r->response_ready = 1;
        request_finish(r);
    }
}

/* ---- frames in ---- */

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf);

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    conn *c = h->data;
    eng_buf *into = c->tls ? &c->raw : &c->in; /* TLS: ciphertext first goes to OpenSSL */
    if (eng_buf_reserve(into, READ_CHUNK)) {
        *buf = uv_buf_init(NULL, 0);
        return;
    }
    *buf = uv_buf_init((char *)into->p + into->len, READ_CHUNK);
}

static void resume_reading(conn *c)
{
    if (c->paused && !c->closing && !c->close_after_writes && !c->srv->stopping &&
        c->inflight < c->srv->cfg.max_inflight && unsent(c) < WRITE_QUEUE_PAUSE) {
        c->paused = 0;
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    }
}

static void pause_reading(conn *c)
{
    if (!c->paused) {
        c->paused = 1;
        uv_read_stop((uv_stream_t *)&c->tcp);
    }
}

static void answer_startup(conn *c, const cql_proto_header *h, const cql_proto_request *m)
{
    const eng_val *cv = cql_proto_map_find(&m->u.startup, "CQL_VERSION");
    if (!cv) {
        send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                   "Missing value CQL_VERSION in STARTUP message", 1);
        return;
    }
    const eng_val *comp = cql_proto_map_find(&m->u.startup, "COMPRESSION");
    if (comp) {
        int alg = cql_proto_compression_by_name(comp->p, (size_t)comp->len);
        if (alg < 0) {
            char msg[128];
            snprintf(msg, sizeof msg, "Unknown compression algorithm: %.*s",
                     comp->len > 64 ? 64 : comp->len, (const char *)comp->p);
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL, msg, 1);
            return;
        }
        if (alg == CQL_PROTO_COMPRESS_SNAPPY && h->version >= 5) {
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                       "Snappy compression is not supported in protocol V5", 1);
            return;
        }
        c->compression = (cql_proto_compression)alg;
    }
    /* READY (AUTHENTICATE with --auth) goes out as a plain frame; compression and v5 segments
       start after it. */
    eng_buf frame = ENG_BUF_INIT;
    int auth = c->srv->cfg.auth;
    size_t at = cql_proto_frame_begin(&frame, h->version, h->stream,
                                      auth ? CQL_PROTO_AUTHENTICATE : CQL_PROTO_READY, NULL, 0);
    if (auth)
        cql_proto_put_authenticate(&frame, "org.apache.cassandra.auth.PasswordAuthenticator");
    if (cql_proto_frame_end(&frame, at, CQL_PROTO_COMPRESS_NONE) == 0)
        conn_send(c, &frame);
    eng_buf_free(&frame);
    c->started = !auth;
    c->authenticating = auth;
    c->segments = h->version >= 5;
}

static void answer_options(conn *c, const cql_proto_header *h)
{
    eng_buf frame = ENG_BUF_INIT;
    size_t at = cql_proto_frame_begin(&frame, h->version, h->stream, CQL_PROTO_SUPPORTED, NULL, 0);
    cql_proto_put_supported(&frame, CQL_CQL_VERSION);
    send_frame(c, &frame, at);
}

static void answer_register(conn *c, const cql_proto_header *h, const cql_proto_request *m)
{
    for (uint16_t i = 0; i < m->u.events.n; i++) {
        const eng_val *e = &m->u.events.items[i];
        if (e->len == 13 && memcmp(e->p, "SCHEMA_CHANGE", 13) == 0)
            c->events |= EVENT_SCHEMA;
        else if (e->len == 15 && memcmp(e->p, "TOPOLOGY_CHANGE", 15) == 0)
            c->events |= EVENT_TOPOLOGY;
        else if (e->len == 13 && memcmp(e->p, "STATUS_CHANGE", 13) == 0)
            c->events |= EVENT_STATUS;
        else {
            char msg[128];
            snprintf(msg, sizeof msg, "Invalid value '%.*s' for Type", e->len > 64 ? 64 : e->len,
                     (const char *)e->p);
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL, msg, 0);
            return;
        }
    }
    eng_buf frame = ENG_BUF_INIT;
    size_t at = cql_proto_frame_begin(&frame, h->version, h->stream, CQL_PROTO_READY, NULL, 0);
    send_frame(c, &frame, at);
}

/* ---- --auth: a login checked on a worker (bcrypt is slow by design) ---- */

typedef struct login {
    uv_work_t work;
    conn *c;
    uint8_t version;
    int16_t stream;
    char *user, *password;
    size_t user_len, password_len;
    int rc;
    eng_err err;
} login;

static void on_login(uv_work_t *w)
{
    login *l = w->data;
    eng_err_clear(&l->err);
    l->rc = cql_auth_login(l->c->srv->db, l->user, l->user_len, l->password, l->password_len,
                           &l->err);
}

static void on_login_done(uv_work_t *w, int status)
{
    login *l = w->data;
    conn *c = l->c;
    c->logging_in = 0;
    if (!c->closing) {
        if (status == 0 && l->rc == 0) {
            free(c->user);
            c->user = l->user;
            l->user = NULL;
            c->authenticating = 0;
            c->started = 1;
            eng_buf frame = ENG_BUF_INIT;
            size_t at = cql_proto_frame_begin(&frame, l->version, l->stream,
                                              CQL_PROTO_AUTH_SUCCESS, NULL, 0);
            cql_proto_put_token(&frame, NULL, ENG_NULL); /* PLAIN completes with no token */
            send_frame(c, &frame, at);
        } else {
            send_error(c, l->version, l->stream, status ? ENG_E_SERVER : l->err.code,
                       status ? "login cancelled" : l->err.msg, 0);
        }
    }
    free(l->user);
    if (l->password)
        explicit_bzero(l->password, l->password_len);
    free(l->password);
    free(l);
    conn_unref(c);
}

/* AUTH_RESPONSE: the SASL PLAIN token decoded here, the password checked on a worker. */
static void start_login(conn *c, const cql_proto_header *h, eng_val token)
{
    eng_val user, password;
    eng_err err;
    eng_err_clear(&err);
    if (c->logging_in) {
        send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                   "Unexpected message AUTH_RESPONSE, a login is in progress", 0);
        return;
    }
    if (cql_proto_sasl_plain(token, &user, &password, &err)) {
        send_error(c, h->version, h->stream, err.code, err.msg, 0);
        return;
    }
    login *l = calloc(1, sizeof *l);
    if (l) {
        l->user = strndup((const char *)user.p, (size_t)user.len);
        l->password = strndup((const char *)password.p, (size_t)password.len);
    }
    if (!l || !l->user || !l->password) {
        if (l) {
            free(l->user);
            free(l->password);
        }
        free(l);
        send_error(c, h->version, h->stream, ENG_E_SERVER, "out of memory", 0);
        return;
    }
    l->c = c;
    l->version = h->version;
    l->stream = h->stream;
    l->user_len = (size_t)user.len;
    l->password_len = (size_t)password.len;
    l->work.data = l;
    c->refs++;
    c->logging_in = 1;
    if (uv_queue_work(&c->srv->loop, &l->work, on_login, on_login_done)) {
        c->logging_in = 0;
        on_login_done(&l->work, -1);
    }
}

/* Handles one whole frame: header h, body [p, p + len) as received. */
static void handle_frame(conn *c, const cql_proto_header *h, const uint8_t *p, size_t len)
{
    server *s = c->srv;
    uint8_t *body = NULL;
    size_t body_len = len;
    if ((h->flags & CQL_PROTO_FLAG_COMPRESSION) && !c->segments) {
        if (c->compression == CQL_PROTO_COMPRESS_NONE) {
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                       "Received a compressed frame but no compression was negotiated", 1);
            return;
        }
        eng_buf plain = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        if (cql_proto_decompress(c->compression, p, len, s->cfg.max_frame_size, &plain, &err)) {
            eng_buf_free(&plain);
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL, err.msg, 1);
            return;
        }
        body = plain.p;
        body_len = plain.len;
    } else if (len) {
        body = malloc(len);
        if (!body) {
            send_error(c, h->version, h->stream, ENG_E_SERVER, "out of memory", 1);
            return;
        }
        memcpy(body, p, len);
    }
    if (h->opcode == CQL_PROTO_STARTUP || h->opcode == CQL_PROTO_OPTIONS ||
        h->opcode == CQL_PROTO_REGISTER || h->opcode == CQL_PROTO_AUTH_RESPONSE) {
        eng_arena a;
        eng_arena_init(&a, 1024);
        cql_proto_request m;
        eng_err err;
        eng_err_clear(&err);
        if (cql_proto_request_decode(h, body, body_len, &a, &m, &err))
            send_error(c, h->version, h->stream, err.code, err.msg, err.code != ENG_E_PROTOCOL);
        else if (h->opcode == CQL_PROTO_OPTIONS && !c->authenticating)
            answer_options(c, h);
        else if (c->authenticating && h->opcode == CQL_PROTO_AUTH_RESPONSE)
            start_login(c, h, m.u.auth_token);
        else if (c->authenticating)
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                       h->opcode == CQL_PROTO_OPTIONS
                           ? "Unexpected message OPTIONS, expecting SASL_RESPONSE"
                       : h->opcode == CQL_PROTO_STARTUP
                           ? "Unexpected message STARTUP, expecting SASL_RESPONSE"
                           : "Unexpected message REGISTER, expecting SASL_RESPONSE",
                       0);
        else if (h->opcode == CQL_PROTO_STARTUP && c->started)
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                       "Unexpected message STARTUP, the connection is already initialised", 0);
        else if (h->opcode == CQL_PROTO_STARTUP)
            answer_startup(c, h, &m);
        else if (!c->started)
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                       "Unexpected message REGISTER, expecting STARTUP or OPTIONS", 1);
        else if (h->opcode == CQL_PROTO_REGISTER)
            answer_register(c, h, &m);
        else
            send_error(c, h->version, h->stream, ENG_E_PROTOCOL,
                       "Unexpected message AUTH_RESPONSE: authentication is not enabled", 0);
        eng_arena_free(&a);
        free(body);
        return;
    }
    if (!c->started) {
        char msg[96];
        const char *name = cql_proto_opcode_name(h->opcode);
        /* waiting for credentials: refused, the connection stays (ServerConnection) */
        snprintf(msg, sizeof msg, "Unexpected message %s, expecting %s", name ? name : "?",
                 c->authenticating ? "SASL_RESPONSE" : "STARTUP or OPTIONS");
        free(body);
        send_error(c, h->version, h->stream, ENG_E_PROTOCOL, msg, !c->authenticating);
        return;
    }
    request *r = calloc(1, sizeof *r);
    if (!r) {
        free(body);
        send_error(c, h->version, h->stream, ENG_E_OVERLOADED, "out of memory", 0);
        return;
    }
    r->c = c;
    r->srv = s;
    r->h = *h;
    r->body = body;
    r->body_len = body_len;
    r->keyspace = c->keyspace ? strdup(c->keyspace) : NULL;
    r->user = c->user ? strdup(c->user) : NULL;
    r->segments = c->segments;
    r->lz4 = c->segments && c->compression == CQL_PROTO_COMPRESS_LZ4;
    r->compression = c->segments ? CQL_PROTO_COMPRESS_NONE : c->compression;
    eng_arena_init(&r->arena, 1024);
    c->refs++;
    c->inflight++;
    s->inflight++;
    if (c->batch_tail)
        c->batch_tail->next_in_batch = r;
    else
        c->batch_head = r;
    c->batch_tail = r;
    if (c->inflight >= s->cfg.max_inflight)
        pause_reading(c);
}

/*
 * Takes whole frames from the front of src; returns bytes consumed, and stops at a partial
 * frame, or after a fatal error (the connection closes).
 */
static size_t take_frames(conn *c, const uint8_t *p, size_t len)
{
    server *s = c->srv;
    size_t used = 0;
    int legacy = !c->segments;
    while (!c->closing && !c->close_after_writes && len - used >= CQL_PROTO_HEADER_LEN) {
        cql_proto_header h;
        cql_proto_header_decode(p + used, &h);
        eng_err err;
        eng_err_clear(&err);
        uint8_t reply = h.version;
        if (h.response || cql_proto_version_check(h.version, &reply, &err)) {
            if (h.response)
                eng_errorf(&err, ENG_E_PROTOCOL, "Invalid frame: a response sent to the server");
            send_error(c, reply, h.stream, ENG_E_PROTOCOL, err.msg, 1);
            return len;
        }
        if (c->version && h.version != c->version) {
            char msg[128];
            snprintf(msg, sizeof msg,
                     "Invalid message version. Got %d/v%d but previous messages on this "
                     "connection had version %d/v%d",
                     h.version, h.version, c->version, c->version);
            send_error(c, c->version, h.stream, ENG_E_PROTOCOL, msg, 1);
            return len;
        }
        c->version = h.version;
        if (h.length > s->cfg.max_frame_size) {
            char msg[128];
            snprintf(msg, sizeof msg,
                     "Request is too big: length %u exceeds maximum allowed length %u.", h.length,
                     s->cfg.max_frame_size);
            send_error(c, h.version, h.stream, ENG_E_PROTOCOL, msg, 1);
            return len;
        }
        if (len - used - CQL_PROTO_HEADER_LEN < h.length)
            break;
        handle_frame(c, &h, p + used + CQL_PROTO_HEADER_LEN, h.length);
        used += CQL_PROTO_HEADER_LEN + h.length;
        if (legacy && c->segments)
            break; /* READY switched the connection to v5 segments: the rest is framed so */
    }
    return used;
}

static void consume(eng_buf *b, size_t n)
{
    if (n == 0)
        return;
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

/* v5: segments from c->in into c->frames, frames from c->frames. */
static void take_segments(conn *c)
{
    int lz4 = c->compression == CQL_PROTO_COMPRESS_LZ4;
    size_t hlen = cql_proto_segment_header_len(lz4);
    size_t used = 0;
    while (!c->closing && !c->close_after_writes && c->in.len - used >= hlen) {
        cql_proto_segment_header sh;
        eng_err err;
        eng_err_clear(&err);
        if (cql_proto_segment_header_decode(c->in.p + used, lz4, &sh, &err)) {
            send_error(c, c->version, 0, ENG_E_PROTOCOL, err.msg, 1);
            return;
        }
        size_t whole = hlen + sh.payload_len + CQL_PROTO_SEGMENT_CRC_LEN;
        if (c->in.len - used < whole)
            break;
        if (c->frames.len + (sh.uncompressed_len ? sh.uncompressed_len : sh.payload_len) >
            (size_t)c->srv->cfg.max_frame_size + CQL_PROTO_HEADER_LEN) {
            send_error(c, c->version, 0, ENG_E_PROTOCOL, "Request is too big", 1);
            return;
        }
        if (cql_proto_segment_payload_decode(c->in.p + used + hlen, &sh, lz4, &c->frames, &err)) {
            send_error(c, c->version, 0, err.code, err.msg, 1);
            return;
        }
        used += whole;
        consume(&c->frames, take_frames(c, c->frames.p, c->frames.len));
    }
    consume(&c->in, used);
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    conn *c = st->data;
    if (n < 0) {
        conn_close(c);
        return;
    }
    if (c->tls) {
        c->raw.len += (size_t)n;
        int rc = cql_tls_conn_read(c->tls, c->raw.p, c->raw.len, &c->in, &c->tls_out);
        c->raw.len = 0;
        if (c->tls_out.len)
            queue_flush(c);
        if (rc) { /* a failed handshake or a TLS error: send the alert, then close */
            c->close_after_writes = 1;
            pause_reading(c);
            if (unsent(c) == 0)
                conn_close(c);
            return;
        }
    } else {
        c->in.len += (size_t)n;
    }
    if (!c->segments) {
        consume(&c->in, take_frames(c, c->in.p, c->in.len));
        /* READY switched a v5 connection to segments: what follows it is framed so */
        if (c->segments && c->in.len)
            take_segments(c);
    } else {
        take_segments(c);
    }
    submit_batch(c);
}

/* ---- the listener and shutdown ---- */

static void on_connection(uv_stream_t *l, int status)
{
    server *s = l->data;
    if (status < 0 || s->stopping)
        return;
    conn *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->srv = s;
    c->refs = 1;
    uv_tcp_init(&s->loop, &c->tcp);
    c->tcp.data = c;
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    s->n_conns++;
    if (uv_accept(l, (uv_stream_t *)&c->tcp) < 0 || s->n_conns > s->cfg.max_connections) {
        conn_close(c);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    if (s->tls && !(c->tls = cql_tls_conn_new(s->tls))) {
        conn_close(c);
        return;
    }
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void close_handle(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void on_drain(uv_timer_t *t)
{
    server *s = t->data;
    if (s->inflight > 0)
        return;
    /* answers still queued go out, unless their client stopped reading: it gets the grace */
    int grace_left = uv_now(&s->loop) - s->stop_time < DRAIN_GRACE_MS;
    for (conn *c = s->conns; c && grace_left; c = c->next)
        if (unsent(c) > 0 && !c->closing)
            return;
    for (conn *c = s->conns; c; c = c->next)
        conn_close(c);
    close_handle((uv_handle_t *)&s->drain);
    close_handle((uv_handle_t *)&s->flusher);
    close_handle((uv_handle_t *)&s->wake);
    close_handle((uv_handle_t *)&s->sigterm);
    close_handle((uv_handle_t *)&s->sigint);
    close_handle((uv_handle_t *)&s->registry_poll);
}

static void on_signal(uv_signal_t *sig, int signum)
{
    (void)signum;
    server *s = sig->data;
    if (s->stopping)
        return;
    s->stopping = 1;
    s->stop_time = uv_now(&s->loop);
    close_handle((uv_handle_t *)&s->listener);
    for (conn *c = s->conns; c; c = c->next)
        if (!c->closing)
            pause_reading(c);
    uv_timer_start(&s->drain, on_drain, 0, 10);
}

void cql_server_config_init(cql_server_config *c)
{
    memset(c, 0, sizeof *c);
    c->port = DEFAULT_PORT;
    c->durability = -1;
}

static int fail(char *errbuf, size_t errlen, const char *fmt, const char *detail)
{
    snprintf(errbuf, errlen, fmt, detail);
    return -1;
}

static int open_db(const cql_server_config *cfg, eng_db **db, char *errbuf, size_t errlen)
{
    eng_db_options o;
    memset(&o, 0, sizeof o);
    o.durability = ENG_DURABLE_SYNC;
    const char *env = getenv("CASSETTE_DURABILITY");
    if (cfg->durability >= 0)
        o.durability = cfg->durability;
    else if (env && eng_durability_parse(env, &o.durability) != 0)
        return fail(errbuf, errlen, "unknown CASSETTE_DURABILITY '%s'", env);
    eng_err err;
    eng_err_clear(&err);
    int rc = cfg->db ? eng_db_open(cfg->db, &o, db, &err) : eng_db_open_temp(&o, db, &err);
    return rc ? fail(errbuf, errlen, "%s", err.msg) : 0;
}

static int bind_listener(server *s, char *errbuf, size_t errlen, char *addr_out, int *port_out)
{
    struct sockaddr_storage ss;
    const char *host = s->cfg.listen;
    if (uv_ip4_addr(host, s->cfg.port, (struct sockaddr_in *)&ss) != 0 &&
        uv_ip6_addr(host, s->cfg.port, (struct sockaddr_in6 *)&ss) != 0)
        return fail(errbuf, errlen, "not an IP address: %s", host);
    uv_tcp_init(&s->loop, &s->listener);
    s->listener.data = s;
    int rc = uv_tcp_bind(&s->listener, (const struct sockaddr *)&ss, 0);
    if (!rc)
        rc = uv_listen((uv_stream_t *)&s->listener, 511, on_connection);
    if (rc)
        return fail(errbuf, errlen, "cannot listen: %s", uv_strerror(rc));
    int len = sizeof ss;
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&ss, &len);
    if (ss.ss_family == AF_INET6) {
        uv_ip6_name((struct sockaddr_in6 *)&ss, addr_out, 64);
        *port_out = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    } else {
        uv_ip4_name((struct sockaddr_in *)&ss, addr_out, 64);
        *port_out = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    }
    return 0;
}

int cql_server_run(const cql_server_config *cfg,
                   void (*listening)(const char *address, int port, void *arg), void *arg,
                   char *errbuf, size_t errlen)
{
    server *s = calloc(1, sizeof *s);
    if (!s)
        return fail(errbuf, errlen, "%s", "out of memory");
    s->cfg = *cfg;
    s->generation = ++server_generations;
    if (!s->cfg.listen)
        s->cfg.listen = "127.0.0.1";
    if (s->cfg.port < 0)
        s->cfg.port = DEFAULT_PORT;
    if (s->cfg.max_connections <= 0)
        s->cfg.max_connections = DEFAULT_MAX_CONNECTIONS;
    if (!s->cfg.max_frame_size)
        s->cfg.max_frame_size = DEFAULT_MAX_FRAME;
    if (!s->cfg.max_inflight)
        s->cfg.max_inflight = DEFAULT_MAX_INFLIGHT;
    signal(SIGPIPE, SIG_IGN);
    if (s->cfg.tls_cert &&
        cql_tls_server_new(s->cfg.tls_cert, s->cfg.tls_key ? s->cfg.tls_key : s->cfg.tls_cert,
                           s->cfg.tls_client_ca, s->cfg.tls_require_client_cert, &s->tls, errbuf,
                           errlen)) {
        free(s);
        return -1;
    }
    if (open_db(&s->cfg, &s->db, errbuf, errlen)) {
        cql_tls_server_free(s->tls);
        free(s);
        return -1;
    }
    eng_err aerr;
    if (s->cfg.auth && cql_auth_setup(s->db, &aerr)) {
        fail(errbuf, errlen, "cannot set up authentication: %s", aerr.msg);
        eng_db_close(s->db);
        cql_tls_server_free(s->tls);
        free(s);
        return -1;
    }
    uv_loop_init(&s->loop);
    pthread_mutex_init(&s->done_lock, NULL);
    char addr[64] = "";
    int port = 0;
    int rc = bind_listener(s, errbuf, errlen, addr, &port);
    /* the node joins the directory's cluster (a temporary database: a cluster of its own) */
    if (rc == 0 &&
        cql_registry_open(eng_db_path(s->db), s->cfg.broadcast_address ? s->cfg.broadcast_address
                                                                       : addr,
                          port, s->cfg.dc, s->cfg.rack, &s->registry, errbuf, errlen))
        rc = -1;
    if (rc == 0) {
        uv_timer_init(&s->loop, &s->registry_poll); /* once a second: the others, the schema */
        s->registry_poll.data = s;
        uv_timer_start(&s->registry_poll, on_registry_poll, 1000, 1000);
        see_schema(s, 0);
        uv_async_init(&s->loop, &s->wake, on_wake);
        s->wake.data = s;
        uv_timer_init(&s->loop, &s->drain);
        s->drain.data = s;
        uv_check_init(&s->loop, &s->flusher);
        s->flusher.data = s;
        uv_check_start(&s->flusher, on_flush);
        uv_signal_init(&s->loop, &s->sigterm);
        uv_signal_init(&s->loop, &s->sigint);
        s->sigterm.data = s->sigint.data = s;
        uv_signal_start(&s->sigterm, on_signal, SIGTERM);
        uv_signal_start(&s->sigint, on_signal, SIGINT);
        if (listening)
            listening(addr, port, arg);
        uv_run(&s->loop, UV_RUN_DEFAULT);
    } else {
        close_handle((uv_handle_t *)&s->listener);
        uv_run(&s->loop, UV_RUN_DEFAULT);
    }
    uv_loop_close(&s->loop);
    pthread_mutex_destroy(&s->done_lock);
    cql_registry_close(s->registry); /* left: before a temporary directory goes */
    eng_schema_unref(s->seen_schema);
    eng_db_close(s->db);
    cql_tls_server_free(s->tls);
    free(s);
    return rc;
}
