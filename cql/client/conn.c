/*
 * One connection (conn.h). Everything that touches the socket runs on the
 * connection's own loop thread; other threads only queue requests (under
 * `lock`) and wake the loop. Streams 1..32767 carry requests; 0 carries the
 * handshake; a stream whose request timed out stays taken until its late
 * answer arrives, so an id is never reused under an answer still on its way.
 */
#include "cql/client/conn.h"

#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "cql/proto/segment.h"

#define MAX_STREAMS 32768
#define TICK_MS 50
#define READ_CHUNK (64 * 1024)
/* A response frame's body at most (Cassandra's default native_transport_max_frame_size). */
#define MAX_BODY (256u * 1024 * 1024)

enum { ST_CONNECTING, ST_READY, ST_FAILED, ST_CLOSED };

typedef struct pending {
    struct pending *next;
    uint8_t opcode;
    uint8_t flags; /* frame header flags (CQL_PROTO_FLAG_CUSTOM_PAYLOAD) */
    uint8_t *body;       /* until framed: after the struct (a small body, one allocation with
                            it), or its own (freed once framed) */
    size_t len;
    const cql_column_spec *known;
    uint32_t n_known;
    cql_conn_done done;
    void *arg;
    uint64_t timeout_ms; /* how long the answer may take once sent (0: no limit) */
    uint64_t deadline;   /* loop time (ms) the answer is due by, 0: none */
    int orphan;        /* timed out: the late answer is dropped */
} pending;

#define INLINE_BODY 512 /* bodies up to this share the pending's allocation */

/* Frees p's body if it has one of its own. */
static void body_free(pending *p)
{
    if (p->body != (uint8_t *)(p + 1))
        free(p->body);
    p->body = NULL;
}

struct cql_conn {
    cql_conn_config cfg;
    char *host, *user, *password;
    struct sockaddr_storage addr;
    uv_loop_t loop;
    uv_thread_t thread;
    uv_tcp_t tcp;
    uv_connect_t connect_req;
    uv_async_t wake;
    uv_timer_t timer;
    int tcp_open;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int state;          /* under lock */
    int closing;        /* under lock: cql_conn_close asked */
    eng_err fail;       /* why the handshake failed */
    pending *q_head, *q_tail; /* queued by any thread (under lock) */
    _Atomic unsigned unsent;  /* queued or waiting: not on a stream yet (cfg.max_unsent) */
    /* loop thread only: */
    uint8_t version;
    int segments;
    int compress;       /* the compression STARTUP agreed on, from its answer on (v5: segments
                           in lz4; v3/v4: frame bodies) */
    eng_buf in, frames;
    cql_tls_session *tls; /* with cfg.tls: the session's TLS */
    eng_buf raw;          /* TLS: ciphertext read, for OpenSSL */
    int started;          /* STARTUP sent (with TLS: once the handshake is done) */
    void *auth_x;         /* the authenticator exchange under way (cfg.auth), or NULL */
    pending *streams[MAX_STREAMS];
    int16_t free_ids[MAX_STREAMS];
    int n_free;
    pending *waiting; /* taken from the queue, no stream free yet */
};

/* ---- completion ---- */

static void finish(pending *p, int rc, const eng_err *err, cql_proto_response *resp)
{
    if (p->done)
        p->done(p->arg, rc, err, resp);
    body_free(p);
    free(p);
}

static void fail_pending(pending *p, int code, const char *why)
{
    eng_err e;
    eng_err_clear(&e);
    eng_errorf(&e, code, "%s", why);
    finish(p, code, &e, NULL);
}

/* Every request not answered yet ends with code: those on streams, waiting and queued. */
static void fail_all(cql_conn *c, int code, const char *why)
{
    for (int s = 1; s < MAX_STREAMS; s++) {
        pending *p = c->streams[s];
        if (!p)
            continue;
        c->streams[s] = NULL;
        c->free_ids[c->n_free++] = (int16_t)s;
        if (p->orphan) {
            body_free(p);
            free(p);
        } else {
            fail_pending(p, code, why);
        }
    }
    pthread_mutex_lock(&c->lock);
    pending *q = c->q_head;
    c->q_head = c->q_tail = NULL;
    pthread_mutex_unlock(&c->lock);
    for (pending *lists[2] = {c->waiting, q}, **l = lists; l < lists + 2; l++) {
        while (*l) {
            pending *p = *l;
            *l = p->next;
            atomic_fetch_sub(&c->unsent, 1);
            fail_pending(p, code, why);
        }
    }
    c->waiting = NULL;
}

/* ---- writing ---- */

typedef struct write_req {
    uv_write_t w;
    eng_buf data;
} write_req;

static void on_written(uv_write_t *w, int status)
{
    (void)status; /* a failed write shows as a failed read */
    write_req *wr = (write_req *)w;
    eng_buf_free(&wr->data);
    free(wr);
}

static void lost(cql_conn *c, const char *why);

/* What one turn of the loop sends: frames gathered, written in one write. */
typedef struct outbox {
    eng_buf wire;   /* bytes ready for the socket */
    eng_buf frames; /* v5: whole frames not yet in a segment */
} outbox;

/* v5: the frames gathered so far as one self-contained segment. */
static int seal(cql_conn *c, outbox *o)
{
    if (!c->segments || !o->frames.len)
        return 0;
    int rc = cql_proto_segments_put(&o->wire, o->frames.p, o->frames.len, c->compress != 0);
    eng_buf_reset(&o->frames);
    return rc;
}

/* Adds one request frame to o, framed as this connection speaks. 0, or -1 (out of memory). */
static int add_frame(cql_conn *c, outbox *o, int16_t stream, uint8_t opcode, uint8_t flags,
                     const uint8_t *body, size_t len)
{
    eng_buf *into = c->segments ? &o->frames : &o->wire;
    if (c->segments && o->frames.len &&
        o->frames.len + CQL_PROTO_HEADER_LEN + len > CQL_PROTO_SEGMENT_MAX_PAYLOAD && seal(c, o))
        return -1;
    size_t at = cql_proto_request_begin_flags(into, c->version, stream, opcode, flags);
    eng_buf_put(into, body, len);
    if (cql_proto_request_end(into, at,
                              c->segments ? CQL_PROTO_COMPRESS_NONE
                                          : (cql_proto_compression)c->compress))
        return -1;
    /* a frame larger than a segment goes alone, cut across segments */
    if (c->segments && o->frames.len > CQL_PROTO_SEGMENT_MAX_PAYLOAD && seal(c, o))
        return -1;
    return into->oom ? -1 : 0;
}

/* Writes what o gathered (o is emptied). 0, or -1. */
static int flush(cql_conn *c, outbox *o)
{
    if (seal(c, o) || o->wire.oom) {
        eng_buf_free(&o->wire);
        eng_buf_free(&o->frames);
        return -1;
    }
    eng_buf_free(&o->frames);
    if (!o->wire.len) {
        eng_buf_free(&o->wire);
        return 0;
    }
    write_req *wr = calloc(1, sizeof *wr);
    if (!wr) {
        eng_buf_free(&o->wire);
        return -1;
    }
    if (c->tls) { /* the records of the plaintext go out */
        int rc = cql_tls_session_write(c->tls, o->wire.p, o->wire.len, &wr->data);
        eng_buf_free(&o->wire);
        if (rc || wr->data.oom) {
            eng_buf_free(&wr->data);
            free(wr);
            return -1;
        }
    } else {
        wr->data = o->wire;
        o->wire = (eng_buf)ENG_BUF_INIT;
    }
    uv_buf_t b = uv_buf_init((char *)wr->data.p, (unsigned)wr->data.len);
    if (uv_write(&wr->w, (uv_stream_t *)&c->tcp, &b, 1, on_written)) {
        eng_buf_free(&wr->data);
        free(wr);
        return -1;
    }
    return 0;
}

/* Writes bytes as they are (TLS records OpenSSL made). Takes b over. 0, or -1. */
static int write_raw(cql_conn *c, eng_buf *b)
{
    if (!b->len) {
        eng_buf_free(b);
        return 0;
    }
    write_req *wr = calloc(1, sizeof *wr);
    if (!wr || b->oom) {
        free(wr);
        eng_buf_free(b);
        return -1;
    }
    wr->data = *b;
    *b = (eng_buf)ENG_BUF_INIT;
    uv_buf_t ub = uv_buf_init((char *)wr->data.p, (unsigned)wr->data.len);
    if (uv_write(&wr->w, (uv_stream_t *)&c->tcp, &ub, 1, on_written)) {
        eng_buf_free(&wr->data);
        free(wr);
        return -1;
    }
    return 0;
}

/* Frames the body as this connection speaks and writes it. 0, or -1 (out of memory). */
static int write_frame(cql_conn *c, int16_t stream, uint8_t opcode, const uint8_t *body,
                       size_t len)
{
    outbox o = {ENG_BUF_INIT, ENG_BUF_INIT};
    if (add_frame(c, &o, stream, opcode, 0, body, len)) {
        eng_buf_free(&o.wire);
        eng_buf_free(&o.frames);
        return -1;
    }
    return flush(c, &o);
}

/* Sends what waits for a stream, while streams are free: one write for all of them. */
static void send_waiting(cql_conn *c)
{
    outbox o = {ENG_BUF_INIT, ENG_BUF_INIT};
    pending *sent = NULL;
    while (c->waiting && c->n_free) {
        pending *p = c->waiting;
        c->waiting = p->next;
        atomic_fetch_sub(&c->unsent, 1);
        int16_t id = c->free_ids[--c->n_free];
        if (add_frame(c, &o, id, p->opcode, p->flags, p->body, p->len)) {
            c->free_ids[c->n_free++] = id;
            fail_pending(p, ENG_E_NOMEM, "out of memory sending a request");
            continue;
        }
        body_free(p); /* framed: the copy is not needed any more */
        p->next = sent;
        sent = p;
        if (p->timeout_ms)
            p->deadline = uv_now(&c->loop) + p->timeout_ms;
        c->streams[id] = p;
    }
    if (flush(c, &o))
        lost(c, "out of memory writing requests");
}

static void on_wake(uv_async_t *a);

/* ---- the handshake ---- */

/* The authenticator exchange is over, whatever happened. */
static void auth_end(cql_conn *c)
{
    if (c->auth_x && c->cfg.auth.end)
        c->cfg.auth.end(c->auth_x);
    c->auth_x = NULL;
}

static void handshake_done(cql_conn *c, int state, const eng_err *err)
{
    auth_end(c);
    pthread_mutex_lock(&c->lock);
    c->state = state;
    if (err)
        c->fail = *err;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    if (state == ST_READY)
        on_wake(&c->wake); /* requests queued meanwhile */
}

static void handshake_fail(cql_conn *c, int code, const char *fmt, const char *detail)
{
    eng_err e;
    eng_err_clear(&e);
    eng_errorf(&e, code, fmt, c->host, c->cfg.port, detail);
    uv_read_stop((uv_stream_t *)&c->tcp);
    handshake_done(c, ST_FAILED, &e);
}

static void send_startup(cql_conn *c)
{
    c->started = 1;
    const char *keys[16], *vals[16];
    uint16_t n = 0;
    keys[n] = "CQL_VERSION";
    vals[n++] = "3.0.0";
    for (uint16_t i = 0; i < c->cfg.n_startup && n < 15; i++, n++) {
        keys[n] = c->cfg.startup_keys[i];
        vals[n] = c->cfg.startup_vals[i];
    }
    /* v5 compresses segments, in lz4 only */
    int comp = c->version >= 5 && c->cfg.compression != CQL_PROTO_COMPRESS_LZ4
                   ? CQL_PROTO_COMPRESS_NONE
                   : c->cfg.compression;
    if (comp) {
        keys[n] = "COMPRESSION";
        vals[n++] = comp == CQL_PROTO_COMPRESS_LZ4 ? "lz4" : "snappy";
    }
    eng_buf body = ENG_BUF_INIT;
    cql_proto_put_startup(&body, keys, vals, n);
    if (body.oom || write_frame(c, 0, CQL_PROTO_STARTUP, body.p, body.len))
        handshake_fail(c, ENG_E_NOMEM, "out of memory connecting to %s:%d%s", "");
    eng_buf_free(&body);
}

static void on_connect(uv_connect_t *req, int status);
static void on_tcp_closed(uv_handle_t *h);

static void start_connect(cql_conn *c)
{
    eng_buf_reset(&c->in);
    eng_buf_reset(&c->frames);
    eng_buf_reset(&c->raw);
    c->segments = 0;
    c->started = 0;
    cql_tls_session_free(c->tls);
    c->tls = NULL;
    uv_tcp_init(&c->loop, &c->tcp);
    c->tcp.data = c;
    c->tcp_open = 1;
    if (uv_tcp_connect(&c->connect_req, &c->tcp, (const struct sockaddr *)&c->addr, on_connect))
        handshake_fail(c, CQL_E_NO_HOST, "Cannot connect to %s:%d: %s", "no route");
}

/* The server refused the version: the connection is closed and made again, one version down. */
static void on_tcp_closed_retry(uv_handle_t *h)
{
    cql_conn *c = h->data;
    c->tcp_open = 0;
    start_connect(c);
}

/* Sends tok (wiped and freed) as the AUTH_RESPONSE. */
static void auth_respond(cql_conn *c, eng_buf *tok)
{
    eng_buf msg = ENG_BUF_INIT;
    cql_proto_put_token(&msg, tok->p, (int32_t)tok->len);
    if (tok->oom || msg.oom || write_frame(c, 0, CQL_PROTO_AUTH_RESPONSE, msg.p, msg.len))
        handshake_fail(c, ENG_E_NOMEM, "out of memory connecting to %s:%d%s", "");
    if (tok->p)
        memset(tok->p, 0, tok->len);
    if (msg.p)
        memset(msg.p, 0, msg.len);
    eng_buf_free(tok);
    eng_buf_free(&msg);
}

/* AUTHENTICATE begins the application's exchange, AUTH_CHALLENGE goes on with it. */
static void auth_step(cql_conn *c, const cql_proto_response *resp)
{
    eng_err e;
    eng_err_clear(&e);
    eng_buf tok = ENG_BUF_INIT;
    int rc;
    if (resp->opcode == CQL_PROTO_AUTHENTICATE) {
        char cls[256];
        int32_t n = resp->authenticator.len > 0 ? resp->authenticator.len : 0;
        if (n >= (int32_t)sizeof cls)
            n = (int32_t)sizeof cls - 1;
        memcpy(cls, resp->authenticator.p ? (const char *)resp->authenticator.p : "", (size_t)n);
        cls[n] = '\0';
        const uint8_t *addr = NULL;
        int alen = 0;
        if (c->addr.ss_family == AF_INET) {
            addr = (const uint8_t *)&((const struct sockaddr_in *)&c->addr)->sin_addr;
            alen = 4;
        } else if (c->addr.ss_family == AF_INET6) {
            addr = (const uint8_t *)&((const struct sockaddr_in6 *)&c->addr)->sin6_addr;
            alen = 16;
        }
        rc = c->cfg.auth.begin(c->cfg.auth.ctx, addr, alen, c->host, cls, &c->auth_x, &e);
        if (!rc)
            rc = c->cfg.auth.initial(c->auth_x, &tok, &e);
    } else {
        rc = c->cfg.auth.challenge(c->auth_x, resp->token.p, resp->token.len, &tok, &e);
    }
    if (rc) {
        eng_buf_free(&tok);
        uv_read_stop((uv_stream_t *)&c->tcp);
        handshake_done(c, ST_FAILED, &e);
        return;
    }
    auth_respond(c, &tok);
}

static void handshake_answer(cql_conn *c, const cql_proto_header *h, const uint8_t *body,
                             size_t len)
{
    eng_arena a;
    eng_arena_init(&a, 512);
    cql_proto_response resp;
    eng_err err;
    eng_err_clear(&err);
    if (cql_proto_response_decode(h, body, len, NULL, 0, &a, &resp, &err)) {
        handshake_fail(c, err.code, "Invalid answer from %s:%d: %s", err.msg);
    } else if (resp.opcode == CQL_PROTO_ERROR) {
        if (resp.err.code == ENG_E_PROTOCOL && c->version > 3 &&
            strstr(resp.err.msg, "protocol version")) {
            c->version--; /* the server names what it speaks: try the next one down */
            uv_read_stop((uv_stream_t *)&c->tcp);
            uv_close((uv_handle_t *)&c->tcp, on_tcp_closed_retry);
        } else {
            eng_err e = resp.err;
            uv_read_stop((uv_stream_t *)&c->tcp);
            handshake_done(c, ST_FAILED, &e);
        }
    } else if (resp.opcode == CQL_PROTO_READY || resp.opcode == CQL_PROTO_AUTHENTICATE) {
        c->segments = c->version >= 5; /* v5 frames travel in segments from here on */
        if (c->cfg.compression && (c->version < 5 || c->cfg.compression == CQL_PROTO_COMPRESS_LZ4))
            c->compress = c->cfg.compression; /* and compressed, when STARTUP asked */
        if (resp.opcode == CQL_PROTO_READY) {
            handshake_done(c, ST_READY, NULL);
        } else if (c->cfg.auth.begin) {
            auth_step(c, &resp);
        } else if (!c->user) {
            handshake_fail(c, CQL_E_AUTH_NEEDED,
                           "Host %s:%d requires authentication (%s), but no credentials were "
                           "given: cass_cluster_set_credentials",
                           "org.apache.cassandra.auth.PasswordAuthenticator");
        } else {
            /* SASL PLAIN: no authorization id, NUL, user, NUL, password */
            eng_buf tok = ENG_BUF_INIT;
            eng_buf_put_u8(&tok, 0);
            eng_buf_put_str(&tok, c->user);
            eng_buf_put_u8(&tok, 0);
            eng_buf_put_str(&tok, c->password ? c->password : "");
            auth_respond(c, &tok);
        }
    } else if (resp.opcode == CQL_PROTO_AUTH_CHALLENGE && c->auth_x) {
        auth_step(c, &resp);
    } else if (resp.opcode == CQL_PROTO_AUTH_SUCCESS) {
        eng_err e;
        eng_err_clear(&e);
        if (c->auth_x && c->cfg.auth.success &&
            c->cfg.auth.success(c->auth_x, resp.token.p, resp.token.len, &e)) {
            uv_read_stop((uv_stream_t *)&c->tcp);
            handshake_done(c, ST_FAILED, &e);
        } else {
            handshake_done(c, ST_READY, NULL);
        }
    } else {
        handshake_fail(c, ENG_E_PROTOCOL, "Unexpected answer from %s:%d during the handshake%s",
                       "");
    }
    cql_result_free(resp.result);
    eng_arena_free(&a);
}

/* ---- reading ---- */

static void answer(cql_conn *c, const cql_proto_header *h, const uint8_t *body, size_t len)
{
    if (h->stream < 0 && h->opcode == CQL_PROTO_EVENT && c->cfg.on_event) {
        eng_arena a;
        eng_arena_init(&a, 512);
        cql_proto_response ev;
        eng_err err;
        eng_err_clear(&err);
        if (!cql_proto_response_decode(h, body, len, NULL, 0, &a, &ev, &err)) {
            c->cfg.on_event(c->cfg.event_arg, &ev);
            cql_result_free(ev.result);
        }
        eng_arena_free(&a);
        return;
    }
    if (h->stream <= 0 || !c->streams[h->stream])
        return; /* an event nobody listens to, or an answer nobody waits for */
    pending *p = c->streams[h->stream];
    c->streams[h->stream] = NULL;
    c->free_ids[c->n_free++] = h->stream;
    if (p->orphan) {
        body_free(p);
        free(p);
        return;
    }
    eng_arena a;
    eng_arena_init(&a, 1024);
    cql_proto_response resp;
    eng_err err;
    eng_err_clear(&err);
    int rc = cql_proto_response_decode(h, body, len, p->known, p->n_known, &a, &resp, &err);
    if (rc)
        finish(p, rc, &err, NULL);
    else
        finish(p, 0, NULL, &resp);
    eng_arena_free(&a);
}

static void lost(cql_conn *c, const char *why)
{
    char msg[256];
    snprintf(msg, sizeof msg, "Connection to %s:%d closed: %s", c->host, c->cfg.port, why);
    pthread_mutex_lock(&c->lock);
    int was = c->state;
    if (c->state != ST_CLOSED)
        c->state = ST_FAILED;
    pthread_mutex_unlock(&c->lock);
    if (was == ST_CONNECTING) {
        eng_err e;
        eng_err_clear(&e);
        eng_errorf(&e, CQL_E_NO_HOST, "%s", msg);
        handshake_done(c, ST_FAILED, &e);
    }
    uv_read_stop((uv_stream_t *)&c->tcp);
    fail_all(c, CQL_E_CLOSED, msg);
}

/* Whole frames from the front of [p, p + n): returns the bytes taken. */
static size_t take_frames(cql_conn *c, const uint8_t *p, size_t n)
{
    size_t used = 0;
    while (n - used >= CQL_PROTO_HEADER_LEN) {
        cql_proto_header h;
        cql_proto_header_decode(p + used, &h);
        if (!h.response || h.length > MAX_BODY) {
            lost(c, h.response ? "a frame larger than the limit" : "not a response frame");
            return n;
        }
        if (n - used - CQL_PROTO_HEADER_LEN < h.length)
            break;
        const uint8_t *body = p + used + CQL_PROTO_HEADER_LEN;
        size_t body_len = h.length;
        used += CQL_PROTO_HEADER_LEN + h.length;
        eng_buf plain = ENG_BUF_INIT;
        eng_err derr;
        eng_err_clear(&derr);
        if (h.flags & CQL_PROTO_FLAG_COMPRESSION) { /* v3/v4 with COMPRESSION agreed */
            if (!c->compress || c->segments ||
                cql_proto_decompress((cql_proto_compression)c->compress, body, body_len, MAX_BODY,
                                     &plain, &derr)) {
                eng_buf_free(&plain);
                lost(c, "a compressed frame that does not decompress");
                return n;
            }
            body = plain.p;
            body_len = plain.len;
            h.flags &= (uint8_t)~CQL_PROTO_FLAG_COMPRESSION;
        }
        int handshake;
        pthread_mutex_lock(&c->lock);
        handshake = c->state == ST_CONNECTING;
        pthread_mutex_unlock(&c->lock);
        if (handshake)
            handshake_answer(c, &h, body, body_len);
        else
            answer(c, &h, body, body_len);
        eng_buf_free(&plain);
        if (handshake && c->segments) /* what follows is in segments */
            break;
    }
    return used;
}

static void consume(eng_buf *b, size_t n)
{
    if (!n)
        return;
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void take_segments(cql_conn *c)
{
    int lz4 = c->compress != 0;
    size_t hlen = cql_proto_segment_header_len(lz4), used = 0;
    while (c->in.len - used >= hlen) {
        cql_proto_segment_header sh;
        eng_err err;
        eng_err_clear(&err);
        if (cql_proto_segment_header_decode(c->in.p + used, lz4, &sh, &err)) {
            lost(c, err.msg);
            return;
        }
        size_t whole = hlen + sh.payload_len + CQL_PROTO_SEGMENT_CRC_LEN;
        if (c->in.len - used < whole)
            break;
        if (c->frames.len + sh.payload_len > MAX_BODY + CQL_PROTO_HEADER_LEN ||
            cql_proto_segment_payload_decode(c->in.p + used + hlen, &sh, lz4, &c->frames, &err)) {
            lost(c, err.msg[0] ? err.msg : "a frame larger than the limit");
            return;
        }
        used += whole;
        consume(&c->frames, take_frames(c, c->frames.p, c->frames.len));
    }
    consume(&c->in, used);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    cql_conn *c = h->data;
    eng_buf *into = c->tls ? &c->raw : &c->in; /* TLS: ciphertext first goes to OpenSSL */
    if (eng_buf_reserve(into, READ_CHUNK)) {
        *buf = uv_buf_init(NULL, 0);
        return;
    }
    *buf = uv_buf_init((char *)into->p + into->len, READ_CHUNK);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    cql_conn *c = s->data;
    if (n < 0) {
        lost(c, n == UV_EOF ? "the server closed it" : uv_strerror((int)n));
        return;
    }
    if (c->tls) {
        c->raw.len += (size_t)n;
        eng_buf back = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        int rc = cql_tls_session_read(c->tls, c->raw.p, c->raw.len, &c->in, &back, &err);
        c->raw.len = 0;
        if (write_raw(c, &back) && !rc)
            rc = eng_errorf(&err, ENG_E_NOMEM, "out of memory");
        if (rc) {
            lost(c, err.msg);
            return;
        }
        if (!c->started && cql_tls_session_ready(c->tls))
            send_startup(c);
    } else {
        c->in.len += (size_t)n;
    }
    if (!c->segments) {
        consume(&c->in, take_frames(c, c->in.p, c->in.len));
        if (c->segments && c->in.len)
            take_segments(c);
    } else {
        take_segments(c);
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    cql_conn *c = req->handle->data;
    if (status) {
        handshake_fail(c, CQL_E_NO_HOST, "Cannot connect to %s:%d: %s", uv_strerror(status));
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (c->cfg.tls) { /* STARTUP once the handshake is done */
        eng_buf hello = ENG_BUF_INIT;
        if (!(c->tls = cql_tls_session_new(c->cfg.tls, c->host)) ||
            cql_tls_session_start(c->tls, &hello) || write_raw(c, &hello)) {
            eng_buf_free(&hello);
            handshake_fail(c, ENG_E_SERVER, "Cannot start TLS with %s:%d%s", "");
        }
        return;
    }
    send_startup(c);
}

/* ---- the loop ---- */

static void on_closed(uv_handle_t *h) { (void)h; }

static void shut(cql_conn *c)
{
    fail_all(c, CQL_E_CLOSED, "the session is closing");
    uv_timer_stop(&c->timer);
    if (!uv_is_closing((uv_handle_t *)&c->timer))
        uv_close((uv_handle_t *)&c->timer, on_closed);
    if (!uv_is_closing((uv_handle_t *)&c->wake))
        uv_close((uv_handle_t *)&c->wake, on_closed);
    if (c->tcp_open && !uv_is_closing((uv_handle_t *)&c->tcp))
        uv_close((uv_handle_t *)&c->tcp, on_tcp_closed);
}

static void on_tcp_closed(uv_handle_t *h)
{
    cql_conn *c = h->data;
    c->tcp_open = 0;
}

static void on_wake(uv_async_t *a)
{
    cql_conn *c = a->data;
    pthread_mutex_lock(&c->lock);
    int closing = c->closing, state = c->state;
    pending *q = NULL;
    if (state == ST_READY || closing) {
        q = c->q_head;
        c->q_head = c->q_tail = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    /* the queue, in order, after what already waits */
    pending **tail = &c->waiting;
    while (*tail)
        tail = &(*tail)->next;
    *tail = q;
    if (closing) {
        shut(c);
        return;
    }
    if (state == ST_READY)
        send_waiting(c);
    else if (state == ST_FAILED)
        fail_all(c, CQL_E_CLOSED, "the connection is down");
}

static void on_tick(uv_timer_t *t)
{
    cql_conn *c = t->data;
    uint64_t now = uv_now(&c->loop);
    pthread_mutex_lock(&c->lock);
    int connecting = c->state == ST_CONNECTING;
    pthread_mutex_unlock(&c->lock);
    if (connecting && now >= c->cfg.connect_timeout_ms) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        handshake_fail(c, CQL_E_NO_HOST, "Cannot connect to %s:%d: %s",
                       "no answer within the connect timeout");
        return;
    }
    for (int s = 1; s < MAX_STREAMS; s++) {
        pending *p = c->streams[s];
        if (p && !p->orphan && p->deadline && now >= p->deadline) {
            p->orphan = 1; /* the stream stays taken until its answer comes */
            eng_err e;
            eng_err_clear(&e);
            eng_errorf(&e, CQL_E_TIMEOUT, "Request timed out after %llu ms on %s:%d",
                       (unsigned long long)p->timeout_ms, c->host, c->cfg.port);
            cql_conn_done done = p->done;
            p->done = NULL;
            done(p->arg, CQL_E_TIMEOUT, &e, NULL);
        }
    }
}

static void thread_main(void *arg)
{
    cql_conn *c = arg;
    /* A write to a socket the server closed raises SIGPIPE in the writing thread, whose default
       action ends the process: blocked here (the write fails with EPIPE instead), as the
       driver's I/O threads block it. The application's own handling stays as it set it. */
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, NULL);
    uv_update_time(&c->loop);
    c->cfg.connect_timeout_ms += (unsigned)uv_now(&c->loop); /* as a deadline from here */
    start_connect(c);
    uv_run(&c->loop, UV_RUN_DEFAULT);
}

/* ---- the API ---- */

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static void conn_free(cql_conn *c)
{
    auth_end(c);
    eng_buf_free(&c->in);
    eng_buf_free(&c->frames);
    eng_buf_free(&c->raw);
    cql_tls_session_free(c->tls);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    free(c->host);
    if (c->password)
        memset(c->password, 0, strlen(c->password));
    free(c->user);
    free(c->password);
    free(c);
}

int cql_conn_open(const cql_conn_config *cfg, cql_conn **out, eng_err *err)
{
    *out = NULL;
    cql_conn *c = calloc(1, sizeof *c);
    if (!c)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory connecting");
    c->cfg = *cfg;
    if (!c->cfg.port)
        c->cfg.port = 9042;
    if (!c->cfg.connect_timeout_ms)
        c->cfg.connect_timeout_ms = 5000;
    c->version = cfg->max_version ? cfg->max_version : 5;
    c->host = strdup(cfg->host);
    c->user = dup_or_null(cfg->user);
    c->password = dup_or_null(cfg->password);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    for (int s = MAX_STREAMS - 1; s >= 1; s--)
        c->free_ids[c->n_free++] = (int16_t)s;
    if (!c->host || (cfg->user && !c->user) || (cfg->password && !c->password)) {
        conn_free(c);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory connecting");
    }
    char port[16];
    snprintf(port, sizeof port, "%d", c->cfg.port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(c->host, port, &hints, &res);
    if (gai || !res) {
        int rc = eng_errorf(err, CQL_E_NO_HOST, "Cannot resolve %s: %s", c->host,
                            gai ? gai_strerror(gai) : "no address");
        if (res)
            freeaddrinfo(res);
        conn_free(c);
        return rc;
    }
    memcpy(&c->addr, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    uv_loop_init(&c->loop);
    uv_async_init(&c->loop, &c->wake, on_wake);
    c->wake.data = c;
    uv_timer_init(&c->loop, &c->timer);
    c->timer.data = c;
    uv_timer_start(&c->timer, on_tick, TICK_MS, TICK_MS);
    c->state = ST_CONNECTING;
    if (uv_thread_create(&c->thread, thread_main, c)) {
        uv_close((uv_handle_t *)&c->wake, NULL);
        uv_close((uv_handle_t *)&c->timer, NULL);
        uv_run(&c->loop, UV_RUN_DEFAULT);
        uv_loop_close(&c->loop);
        conn_free(c);
        return eng_errorf(err, ENG_E_NOMEM, "cannot start the connection's thread");
    }
    pthread_mutex_lock(&c->lock);
    while (c->state == ST_CONNECTING)
        pthread_cond_wait(&c->cond, &c->lock);
    int state = c->state;
    eng_err why = c->fail;
    pthread_mutex_unlock(&c->lock);
    if (state != ST_READY) {
        cql_conn_close(c);
        *err = why;
        return why.code ? why.code : CQL_E_NO_HOST;
    }
    *out = c;
    return 0;
}

uint8_t cql_conn_version(const cql_conn *c) { return c->version; }

int cql_conn_is_own_thread(const cql_conn *c)
{
    uv_thread_t self = uv_thread_self();
    return uv_thread_equal(&self, &c->thread);
}

int cql_conn_alive(const cql_conn *c)
{
    cql_conn *m = (cql_conn *)c;
    pthread_mutex_lock(&m->lock);
    int up = m->state == ST_READY && !m->closing;
    pthread_mutex_unlock(&m->lock);
    return up;
}

void cql_conn_send(cql_conn *c, uint8_t opcode, const uint8_t *body, size_t len,
                   const cql_column_spec *known, uint32_t n_known, cql_conn_done done, void *arg)
{
    cql_conn_send_timed(c, opcode, body, len, c->cfg.request_timeout_ms, known, n_known, done,
                        arg);
}

void cql_conn_send_timed(cql_conn *c, uint8_t opcode, const uint8_t *body, size_t len,
                         uint64_t timeout_ms, const cql_column_spec *known, uint32_t n_known,
                         cql_conn_done done, void *arg)
{
    cql_conn_send_flags(c, opcode, 0, body, len, timeout_ms, known, n_known, done, arg);
}

void cql_conn_send_flags(cql_conn *c, uint8_t opcode, uint8_t flags, const uint8_t *body,
                         size_t len, uint64_t timeout_ms, const cql_column_spec *known,
                         uint32_t n_known, cql_conn_done done, void *arg)
{
    int inline_body = len <= INLINE_BODY;
    pending *p = malloc(sizeof *p + (inline_body ? len : 0));
    if (p) {
        memset(p, 0, sizeof *p);
        p->body = inline_body ? (uint8_t *)(p + 1) : malloc(len);
        if (!p->body) {
            free(p);
            p = NULL;
        }
    }
    if (!p) {
        eng_err e;
        eng_err_clear(&e);
        eng_errorf(&e, ENG_E_NOMEM, "out of memory sending a request");
        done(arg, ENG_E_NOMEM, &e, NULL);
        return;
    }
    if (len)
        memcpy(p->body, body, len);
    p->len = len;
    p->timeout_ms = timeout_ms;
    p->opcode = opcode;
    p->flags = flags;
    p->known = known;
    p->n_known = n_known;
    p->done = done;
    p->arg = arg;
    if (c->cfg.max_unsent && atomic_fetch_add(&c->unsent, 1) >= c->cfg.max_unsent) {
        atomic_fetch_sub(&c->unsent, 1);
        char why[256];
        snprintf(why, sizeof why,
                 "The request queue has reached capacity: %u requests wait for %s:%d",
                 c->cfg.max_unsent, c->host, c->cfg.port);
        fail_pending(p, CQL_E_QUEUE_FULL, why);
        return;
    }
    if (!c->cfg.max_unsent)
        atomic_fetch_add(&c->unsent, 1);
    pthread_mutex_lock(&c->lock);
    int open = !c->closing && c->state == ST_READY;
    int wake = open && !c->q_head; /* the loop takes the whole queue when it wakes */
    if (open) {
        if (c->q_tail)
            c->q_tail->next = p;
        else
            c->q_head = p;
        c->q_tail = p;
    }
    pthread_mutex_unlock(&c->lock);
    if (!open) {
        atomic_fetch_sub(&c->unsent, 1);
        char why[256];
        snprintf(why, sizeof why, "Connection to %s:%d is down", c->host, c->cfg.port);
        fail_pending(p, CQL_E_CLOSED, why);
        return;
    }
    if (wake)
        uv_async_send(&c->wake);
}

void cql_conn_close(cql_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->closing = 1;
    pthread_mutex_unlock(&c->lock);
    uv_async_send(&c->wake);
    uv_thread_join(&c->thread);
    uv_loop_close(&c->loop);
    conn_free(c);
}
