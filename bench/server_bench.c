/*
 * cassette serve under load, beside the same statements run embedded.
 *
 * Starts `cassette serve --memory --port 0` (durability NONE: the protocol's
 * cost, not the disk's), loads ROOMS rooms of MSGS messages through it, then
 * drives prepared point reads, last-50 reads and inserts over loopback from
 * 1, 8 and 64 connections, each connection keeping DEPTH requests in flight
 * (pipelined on distinct streams). Every answer is checked: a RESULT, of
 * the row count the statement must return. Reported per operation and
 * connection count: requests per second, p50 and p99 latency, and the
 * server's CPU per request (its utime + stime from /proc over the requests
 * answered), beside the embedded executor's CPU per request for the same
 * statement on the same data in this process (cql_execute, one thread).
 *
 *   server_bench [--seconds S] [--cassette PATH]
 *
 * The client is this one thread and poll(): on this 2-core machine it
 * shares the cores with the server, as a test suite's client would.
 */
#define BENCH_NAME "server_bench"
#include "bench/bench.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cql/cql.h"
#include "cql/proto/frame.h"
#include "cql/proto/wire.h"

#define ROOMS 100
#define MSGS 200
#define DEPTH 8
#define MAX_CONNS 64
#define MAX_LAT (1 << 22)

struct bench {
    int unused;
};

static const char *const SCHEMA[] = {
    "CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE chat.messages (room text, msg_id timeuuid, author text, body text, "
    "PRIMARY KEY (room, msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)",
};
static const char POINT[] = "SELECT author, body FROM chat.messages WHERE room = ? AND msg_id = ?";
static const char LAST[] = "SELECT author, body FROM chat.messages WHERE room = ? LIMIT 50";
static const char INSERT[] =
    "INSERT INTO chat.messages (room, msg_id, author, body) VALUES (?, ?, ?, ?)";

/* A version-1 time UUID for message n: distinct, increasing with n. */
static void msg_id(long n, uint8_t out[16])
{
    uint64_t t = 0x1ee0000000000000ULL + (uint64_t)n * 10;
    eng_put_be32(out, (uint32_t)t);                        /* time_low */
    out[4] = (uint8_t)(t >> 40), out[5] = (uint8_t)(t >> 32); /* time_mid */
    out[6] = (uint8_t)(0x10 | ((t >> 56) & 0x0F)), out[7] = (uint8_t)(t >> 48);
    out[8] = 0x80, out[9] = 0x01;
    memcpy(out + 10, "\x02\x42\xac\x12\x00\x02", 6);
}

static void room_name(long r, char out[16])
{
    snprintf(out, 16, "room-%03ld", r % ROOMS);
}

static const char BODY[] = "the quick brown fox jumps over the lazy dog while the chat room keeps "
                           "scrolling past the fold";

/* ---- the client: frames by hand, on cql/proto's writers ---- */

typedef struct conn {
    int fd;
    eng_buf out;               /* bytes not sent yet */
    eng_buf in;                /* bytes not parsed yet */
    double sent_at[DEPTH];     /* per stream */
    int busy[DEPTH];
    int inflight;
} conn;

typedef struct run {
    conn conns[MAX_CONNS];
    int n;
    long issued, answered;
    double *lat;               /* latencies (s) */
    long n_lat;
    int op;                    /* 0 point, 1 last-50, 2 insert */
    uint8_t ids[3][16];        /* prepared ids */
    long next_insert;
} run;

static void put_frame(eng_buf *b, int16_t stream, uint8_t opcode, const eng_buf *body)
{
    cql_proto_header h = {.version = 4, .stream = stream, .opcode = opcode,
                          .length = (uint32_t)body->len};
    uint8_t hdr[CQL_PROTO_HEADER_LEN];
    cql_proto_header_encode(&h, hdr);
    eng_buf_put(b, hdr, sizeof hdr);
    eng_buf_put(b, body->p, body->len);
}

static void put_execute(eng_buf *out, int16_t stream, const uint8_t id[16], const eng_val *v,
                        int n)
{
    eng_buf body = ENG_BUF_INIT;
    cql_proto_put_short_bytes(&body, id, 16);
    cql_proto_put_short(&body, 0x0001); /* ONE */
    cql_proto_put_byte(&body, 0x01 | 0x02);  /* values, skip metadata */
    cql_proto_put_short(&body, (uint16_t)n);
    for (int i = 0; i < n; i++)
        cql_proto_put_bytes(&body, v[i].p, v[i].len);
    put_frame(out, stream, 0x0A, &body);
    eng_buf_free(&body);
}

static eng_val text_val(const char *s)
{
    eng_val v = {(const uint8_t *)s, (int32_t)strlen(s)};
    return v;
}

/* The request of operation op at position i. */
static void put_request(run *r, eng_buf *out, int16_t stream, long i)
{
    char room[16];
    uint8_t id[16];
    eng_val v[4];
    long pos = (i * 7919) % (ROOMS * MSGS);
    room_name(pos, room);
    v[0] = text_val(room);
    switch (r->op) {
    case 0:
        msg_id(pos, id);
        v[1].p = id, v[1].len = 16;
        put_execute(out, stream, r->ids[0], v, 2);
        break;
    case 1:
        put_execute(out, stream, r->ids[1], v, 1);
        break;
    default:
        msg_id(ROOMS * MSGS + r->next_insert++, id);
        v[1].p = id, v[1].len = 16;
        v[2] = text_val("author-001");
        v[3] = text_val(BODY);
        put_execute(out, stream, r->ids[2], v, 4);
        break;
    }
}

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        bench_die("cannot connect to port %d: %s", port, strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void send_all(int fd, const eng_buf *b)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->p + off, b->len - off);
        if (w < 0 && errno != EINTR)
            bench_die("write: %s", strerror(errno));
        if (w > 0)
            off += (size_t)w;
    }
}

/* Reads one whole frame (blocking); returns its opcode, body in *body. */
static int recv_frame(int fd, eng_buf *in, eng_buf *body, int16_t *stream)
{
    for (;;) {
        if (in->len >= CQL_PROTO_HEADER_LEN) {
            cql_proto_header h;
            cql_proto_header_decode(in->p, &h);
            if (in->len >= CQL_PROTO_HEADER_LEN + h.length) {
                eng_buf_reset(body);
                eng_buf_put(body, in->p + CQL_PROTO_HEADER_LEN, h.length);
                memmove(in->p, in->p + CQL_PROTO_HEADER_LEN + h.length,
                        in->len - CQL_PROTO_HEADER_LEN - h.length);
                in->len -= CQL_PROTO_HEADER_LEN + h.length;
                *stream = h.stream;
                return h.opcode;
            }
        }
        if (eng_buf_reserve(in, 65536))
            bench_die_nomem();
        ssize_t n = read(fd, in->p + in->len, 65536);
        if (n <= 0)
            bench_die("the server closed the connection");
        in->len += (size_t)n;
    }
}

static void die_error(const eng_buf *body)
{
    cql_proto_reader r;
    cql_proto_reader_init(&r, body->p, body->len);
    int32_t code = cql_proto_get_int(&r);
    eng_val msg = cql_proto_get_string(&r);
    bench_die("server error 0x%04x: %.*s", (unsigned)code, msg.len, (const char *)msg.p);
}

/* One request, waited for: setup only. */
static void request(int fd, uint8_t opcode, const eng_buf *body, eng_buf *reply)
{
    eng_buf out = ENG_BUF_INIT, in = ENG_BUF_INIT;
    put_frame(&out, 0, opcode, body);
    send_all(fd, &out);
    int16_t stream;
    int op = recv_frame(fd, &in, reply, &stream);
    if (op == 0x00)
        die_error(reply);
    eng_buf_free(&out);
    eng_buf_free(&in);
}

static void startup(int fd)
{
    eng_buf body = ENG_BUF_INIT, reply = ENG_BUF_INIT;
    cql_proto_put_short(&body, 1);
    cql_proto_put_string(&body, "CQL_VERSION");
    cql_proto_put_string(&body, "3.0.0");
    request(fd, 0x01, &body, &reply);
    eng_buf_free(&body);
    eng_buf_free(&reply);
}

static void simple(int fd, const char *q)
{
    eng_buf body = ENG_BUF_INIT, reply = ENG_BUF_INIT;
    cql_proto_put_long_string(&body, (const uint8_t *)q, strlen(q));
    cql_proto_put_short(&body, 1);
    cql_proto_put_byte(&body, 0);
    request(fd, 0x07, &body, &reply);
    eng_buf_free(&body);
    eng_buf_free(&reply);
}

static void prepare(int fd, const char *q, uint8_t id[16])
{
    eng_buf body = ENG_BUF_INIT, reply = ENG_BUF_INIT;
    cql_proto_put_long_string(&body, (const uint8_t *)q, strlen(q));
    request(fd, 0x09, &body, &reply);
    cql_proto_reader r;
    cql_proto_reader_init(&r, reply.p, reply.len);
    cql_proto_get_int(&r);
    eng_val v = cql_proto_get_short_bytes(&r);
    if (r.bad || v.len != 16)
        bench_die("a PREPARED result without a 16-byte id");
    memcpy(id, v.p, 16);
    eng_buf_free(&body);
    eng_buf_free(&reply);
}

/* Rows in a ROWS result sent with No_metadata; -1 for a VOID. */
static long result_rows(const eng_buf *body)
{
    cql_proto_reader r;
    cql_proto_reader_init(&r, body->p, body->len);
    int32_t kind = cql_proto_get_int(&r);
    if (kind == 1)
        return -1;
    int32_t flags = cql_proto_get_int(&r);
    cql_proto_get_int(&r);
    if (flags & 0x0002)
        cql_proto_get_bytes(&r);
    if (!(flags & 0x0004))
        bench_die("a ROWS result with metadata though it was asked to skip it");
    return r.bad ? -2 : cql_proto_get_int(&r);
}

static void load(int fd)
{
    for (size_t i = 0; i < sizeof SCHEMA / sizeof *SCHEMA; i++)
        simple(fd, SCHEMA[i]);
    uint8_t ins[16];
    prepare(fd, INSERT, ins);
    eng_buf out = ENG_BUF_INIT, in = ENG_BUF_INIT, reply = ENG_BUF_INIT;
    long n = ROOMS * MSGS;
    for (long base = 0; base < n; base += 500) {
        eng_buf_reset(&out);
        for (long i = base; i < base + 500 && i < n; i++) {
            char room[16];
            uint8_t id[16];
            room_name(i, room);
            msg_id(i, id);
            eng_val v[4] = {text_val(room), {id, 16}, text_val("author-001"), text_val(BODY)};
            put_execute(&out, (int16_t)(i - base), ins, v, 4);
        }
        send_all(fd, &out);
        for (long i = base; i < base + 500 && i < n; i++) {
            int16_t stream;
            if (recv_frame(fd, &in, &reply, &stream) != 0x08)
                die_error(&reply);
        }
    }
    eng_buf_free(&out);
    eng_buf_free(&in);
    eng_buf_free(&reply);
}

/* ---- the timed run ---- */

static double server_cpu_s(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long utime = 0, stime = 0;
    /* after ") ": state, then fields 4..; utime is field 14, stime 15 */
    if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                    &stime) == 2)
        return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    return 0;
}

static void answer(run *r, conn *c, const eng_buf *body, int opcode, int16_t stream, double now)
{
    if (opcode != 0x08)
        die_error(body);
    long rows = result_rows(body);
    long want = r->op == 0 ? 1 : r->op == 1 ? 50 : -1;
    if (rows != want)
        bench_die_rows(r->op == 0 ? "a point read" : r->op == 1 ? "a last-50 read" : "an insert",
                       rows, want);
    if (stream < 0 || stream >= DEPTH || !c->busy[stream])
        bench_die("an answer on stream %d, which has no request", stream);
    c->busy[stream] = 0;
    c->inflight--;
    r->answered++;
    if (r->n_lat < MAX_LAT)
        r->lat[r->n_lat++] = now - c->sent_at[stream];
}

/* Keeps DEPTH requests in flight on each of n connections for `seconds`; the figures. */
typedef struct figure {
    double rps, p50_us, p99_us, server_cpu_us;
} figure;

static void fill(run *r, conn *c, double now, int stop)
{
    for (int s = 0; s < DEPTH && !stop; s++) {
        if (c->busy[s])
            continue;
        put_request(r, &c->out, (int16_t)s, r->issued++);
        c->busy[s] = 1;
        c->sent_at[s] = now;
        c->inflight++;
    }
}

static figure drive(run *r, pid_t server, double seconds)
{
    struct pollfd pfd[MAX_CONNS];
    eng_buf body = ENG_BUF_INIT;
    r->answered = r->n_lat = 0;
    double t0 = bench_now_s(), cpu0 = server_cpu_s(server);
    for (int i = 0; i < r->n; i++)
        fill(r, &r->conns[i], t0, 0);
    int stop = 0;
    long answered_at_stop = 0;
    double t_stop = 0, cpu_stop = 0;
    for (;;) {
        int pending = 0;
        for (int i = 0; i < r->n; i++) {
            conn *c = &r->conns[i];
            pfd[i].fd = c->fd;
            pfd[i].events = POLLIN | (c->out.len ? POLLOUT : 0);
            pending += c->inflight;
        }
        if (stop && pending == 0)
            break;
        if (poll(pfd, (nfds_t)r->n, 10000) <= 0)
            bench_die("the server stopped answering");
        double now = bench_now_s();
        if (!stop && now - t0 >= seconds) {
            stop = 1;
            t_stop = now;
            cpu_stop = server_cpu_s(server);
            answered_at_stop = r->answered;
        }
        for (int i = 0; i < r->n; i++) {
            conn *c = &r->conns[i];
            if (pfd[i].revents & POLLOUT) {
                ssize_t w = write(c->fd, c->out.p, c->out.len);
                if (w > 0) {
                    memmove(c->out.p, c->out.p + w, c->out.len - (size_t)w);
                    c->out.len -= (size_t)w;
                }
            }
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (eng_buf_reserve(&c->in, 65536))
                bench_die_nomem();
            ssize_t n = read(c->fd, c->in.p + c->in.len, 65536);
            if (n <= 0)
                bench_die("the server closed a connection");
            c->in.len += (size_t)n;
            size_t off = 0;
            while (c->in.len - off >= CQL_PROTO_HEADER_LEN) {
                cql_proto_header h;
                cql_proto_header_decode(c->in.p + off, &h);
                if (c->in.len - off - CQL_PROTO_HEADER_LEN < h.length)
                    break;
                eng_buf_reset(&body);
                eng_buf_put(&body, c->in.p + off + CQL_PROTO_HEADER_LEN, h.length);
                answer(r, c, &body, h.opcode, h.stream, now);
                off += CQL_PROTO_HEADER_LEN + h.length;
            }
            memmove(c->in.p, c->in.p + off, c->in.len - off);
            c->in.len -= off;
            fill(r, c, now, stop);
        }
    }
    eng_buf_free(&body);
    figure f;
    double dt = t_stop - t0;
    f.rps = (double)answered_at_stop / dt;
    f.server_cpu_us = (cpu_stop - cpu0) / (double)answered_at_stop * 1e6;
    qsort(r->lat, (size_t)r->n_lat, sizeof *r->lat, bench_cmp_double);
    f.p50_us = r->lat[r->n_lat / 2] * 1e6;
    f.p99_us = r->lat[(long)((double)r->n_lat * 0.99)] * 1e6;
    return f;
}

/* ---- the embedded side ---- */

typedef struct embedded {
    eng_db *db;
    cql_session *s;
    cql_prepared *p[3];
    long next_insert;
} embedded;

static void eng_die(const char *what, const eng_err *e)
{
    bench_die("%s: %s", what, e->msg);
}

static void embedded_open(embedded *e)
{
    eng_db_options o;
    memset(&o, 0, sizeof o);
    o.durability = ENG_DURABLE_NONE;
    eng_err err;
    eng_err_clear(&err);
    if (eng_db_open_temp(&o, &e->db, &err) || cql_session_new(e->db, &e->s, &err))
        eng_die("open", &err);
    cql_exec_options opts;
    cql_exec_options_init(&opts);
    for (size_t i = 0; i < sizeof SCHEMA / sizeof *SCHEMA; i++) {
        cql_result *res = NULL;
        if (cql_query(e->s, SCHEMA[i], strlen(SCHEMA[i]), &opts, &res, &err))
            eng_die(SCHEMA[i], &err);
        cql_result_free(res);
    }
    const char *q[3] = {POINT, LAST, INSERT};
    for (int i = 0; i < 3; i++)
        if (cql_prepare(e->s, q[i], strlen(q[i]), &e->p[i], &err))
            eng_die(q[i], &err);
    for (long i = 0; i < ROOMS * MSGS; i++) {
        char room[16];
        uint8_t id[16];
        room_name(i, room);
        msg_id(i, id);
        eng_val v[4] = {text_val(room), {id, 16}, text_val("author-001"), text_val(BODY)};
        opts.values = v;
        opts.n_values = 4;
        cql_result *res = NULL;
        if (cql_execute(e->s, e->p[2], &opts, &res, &err))
            eng_die("load", &err);
        cql_result_free(res);
    }
}

/* CPU per request of op, in this thread, over `seconds`. */
static double embedded_cpu_us(embedded *e, int op, double seconds)
{
    eng_err err;
    eng_err_clear(&err);
    cql_exec_options o;
    cql_exec_options_init(&o);
    long n = 0;
    double t0 = bench_now_s(), c0 = bench_cpu_s();
    while (bench_now_s() - t0 < seconds) {
        for (int k = 0; k < 100; k++, n++) {
            char room[16];
            uint8_t id[16];
            long pos = (n * 7919) % (ROOMS * MSGS);
            room_name(pos, room);
            eng_val v[4] = {text_val(room), {id, 16}, text_val("author-001"), text_val(BODY)};
            if (op == 0)
                msg_id(pos, id);
            else if (op == 2)
                msg_id(ROOMS * MSGS + 10000000 + e->next_insert++, id);
            o.values = v;
            o.n_values = op == 0 ? 2 : op == 1 ? 1 : 4;
            cql_result *res = NULL;
            if (cql_execute(e->s, e->p[op], &o, &res, &err))
                eng_die("embedded", &err);
            long want = op == 0 ? 1 : op == 1 ? 50 : 0;
            if ((long)res->n_rows != want)
                bench_die_rows("embedded", (long)res->n_rows, want);
            cql_result_free(res);
        }
    }
    return (bench_cpu_s() - c0) / (double)n * 1e6;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
    double seconds = 2;
    const char *cassette = "build/release/cassette";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--cassette") && i + 1 < argc)
            cassette = argv[++i];
        else
            bench_die("usage: server_bench [--seconds S] [--cassette PATH]");
    }
    signal(SIGPIPE, SIG_IGN);
    int port;
    pid_t server = bench_start_server(cassette, &port);
    int setup = connect_to(port);
    startup(setup);
    load(setup);
    static run r;
    r.lat = malloc(MAX_LAT * sizeof *r.lat);
    if (!r.lat)
        bench_die_nomem();
    const char *q[3] = {POINT, LAST, INSERT};
    for (int i = 0; i < 3; i++)
        prepare(setup, q[i], r.ids[i]);
    embedded e = {0};
    embedded_open(&e);
    printf("server_bench: %d rooms x %d messages, loopback, durability none, %d requests in "
           "flight per connection, %.0f s per figure\n\n",
           ROOMS, MSGS, DEPTH, seconds);
    printf("%-28s %5s %10s %9s %9s %12s %12s %7s\n", "operation", "conns", "requests/s",
           "p50 us", "p99 us", "server us/op", "embedded us", "ratio");
    static const char *const names[3] = {"point read (prepared)", "last 50 messages",
                                         "insert a message"};
    static const int conn_counts[3] = {1, 8, 64};
    for (int op = 0; op < 3; op++) {
        double emb = embedded_cpu_us(&e, op, seconds / 2);
        for (int k = 0; k < 3; k++) {
            r.op = op;
            r.n = conn_counts[k];
            for (int i = 0; i < r.n; i++) {
                r.conns[i].fd = connect_to(port);
                startup(r.conns[i].fd);
            }
            figure f = drive(&r, server, seconds);
            printf("%-28s %5d %10.0f %9.0f %9.0f %12.1f %12.1f %7.2f\n", names[op], r.n, f.rps,
                   f.p50_us, f.p99_us, f.server_cpu_us, emb, f.server_cpu_us / emb);
            fflush(stdout);
            for (int i = 0; i < r.n; i++) {
                close(r.conns[i].fd);
                eng_buf_free(&r.conns[i].out);
                eng_buf_free(&r.conns[i].in);
                memset(&r.conns[i], 0, sizeof r.conns[i]);
            }
        }
    }
    close(setup);
    kill(server, SIGTERM);
    int status;
    waitpid(server, &status, 0);
    for (int i = 0; i < 3; i++)
        cql_prepared_unref(e.p[i]);
    cql_session_free(e.s);
    eng_db_close(e.db);
    free(r.lat);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
