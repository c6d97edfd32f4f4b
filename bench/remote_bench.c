/*
 * The chat workload through cassandra.h's remote backend against `cassette
 * serve` on loopback, beside the same calls on an embedded session, in one
 * run.
 *
 * Starts `cassette serve --memory --port 0` (durability NONE), loads ROOMS
 * rooms of MSGS messages through a remote session and the same into an
 * embedded one (memory:), then runs prepared point reads, last-50 reads and
 * inserts with 1 and 64 requests in flight (futures issued ahead, the
 * oldest waited for), checking every answer's row count. Reported: requests
 * per second and p50 / p99 latency of each backend, and the remote over the
 * embedded throughput.
 *
 *   remote_bench [--seconds S] [--cassette PATH]
 *
 * The server_bench figures of the same run give the load generator's
 * throughput the remote backend is measured against (docs/benchmarks.md).
 */
#define BENCH_NAME "remote_bench"
#include "bench/bench.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROOMS 100
#define MSGS 200
#define MAX_DEPTH 64
#define MAX_LAT (1 << 22)

struct bench {
    int unused;
};

static const char *const SCHEMA[] = {
    "CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TABLE chat.messages (room text, msg_id timeuuid, author text, body text, "
    "PRIMARY KEY (room, msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)",
};
static const char *const QUERIES[3] = {
    "SELECT author, body FROM chat.messages WHERE room = ? AND msg_id = ?",
    "SELECT author, body FROM chat.messages WHERE room = ? LIMIT 50",
    "INSERT INTO chat.messages (room, msg_id, author, body) VALUES (?, ?, ?, ?)",
};
static const char *const NAMES[3] = {"point read (prepared)", "last 50 messages",
                                     "insert a message"};
static const char BODY[] = "the quick brown fox jumps over the lazy dog while the chat room "
                           "keeps talking about nothing in particular";

typedef struct side {
    CassCluster *cluster;
    CassSession *session;
    const CassPrepared *p[3];
} side;

/* A time UUID for message n (version 1, fixed node): distinct, ordered by n. */
static CassUuid msg_id(long n)
{
    CassUuid u;
    u.time_and_version = ((uint64_t)(n + 1) * 10) & 0x0FFFFFFFFFFFFFFFull;
    u.time_and_version |= 0x1000000000000000ull;
    u.clock_seq_and_node = 0x8000123456789abcull;
    return u;
}

static CassStatement *bind(const side *s, int op, long i)
{
    char room[16];
    CassStatement *st = cass_prepared_bind(s->p[op]);
    long r = i % ROOMS;
    snprintf(room, sizeof room, "room%ld", r);
    cass_statement_bind_string(st, 0, room);
    if (op == 0) {
        cass_statement_bind_uuid(st, 1, msg_id(r * MSGS + (i / ROOMS) % MSGS));
    } else if (op == 2) {
        cass_statement_bind_uuid(st, 1, msg_id(ROOMS * MSGS + i));
        cass_statement_bind_string(st, 2, "alice");
        cass_statement_bind_string(st, 3, BODY);
    }
    return st;
}

static void check(CassFuture *f, int op)
{
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(NAMES[op], f);
    const CassResult *r = cass_future_get_result(f);
    size_t want = op == 0 ? 1 : op == 1 ? 50 : 0;
    if (!r || cass_result_row_count(r) != want)
        bench_die_rows(NAMES[op], r ? (long)cass_result_row_count(r) : -1, (long)want);
    cass_result_free(r);
}

static void run_sql(CassSession *s, const char *q)
{
    CassStatement *st = cass_statement_new(q, 0);
    CassFuture *f = cass_session_execute(s, st);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(q, f);
    cass_future_free(f);
    cass_statement_free(st);
}

static void side_open(side *s, const char *contact, int port)
{
    s->cluster = cass_cluster_new();
    s->session = cass_session_new();
    cass_cluster_set_contact_points(s->cluster, contact);
    if (port)
        cass_cluster_set_port(s->cluster, port);
    CassFuture *f = cass_session_connect(s->session, s->cluster);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future("connect", f);
    cass_future_free(f);
    for (size_t i = 0; i < sizeof SCHEMA / sizeof *SCHEMA; i++)
        run_sql(s->session, SCHEMA[i]);
    for (int i = 0; i < 3; i++) {
        f = cass_session_prepare(s->session, QUERIES[i]);
        if (cass_future_error_code(f) != CASS_OK)
            bench_die_future(QUERIES[i], f);
        s->p[i] = cass_future_get_prepared(f);
        cass_future_free(f);
    }
    /* the rooms, 64 inserts in flight */
    CassFuture *inflight[MAX_DEPTH] = {0};
    for (long n = 0; n < (long)ROOMS * MSGS; n++) {
        CassStatement *st = cass_prepared_bind(s->p[2]);
        char room[16];
        snprintf(room, sizeof room, "room%ld", n / MSGS);
        cass_statement_bind_string(st, 0, room);
        cass_statement_bind_uuid(st, 1, msg_id(n));
        cass_statement_bind_string(st, 2, "bob");
        cass_statement_bind_string(st, 3, BODY);
        int slot = (int)(n % MAX_DEPTH);
        if (inflight[slot]) {
            check(inflight[slot], 2);
            cass_future_free(inflight[slot]);
        }
        inflight[slot] = cass_session_execute(s->session, st);
        cass_statement_free(st);
    }
    for (int i = 0; i < MAX_DEPTH; i++)
        if (inflight[i]) {
            check(inflight[i], 2);
            cass_future_free(inflight[i]);
        }
}

static void side_close(side *s)
{
    for (int i = 0; i < 3; i++)
        cass_prepared_free(s->p[i]);
    CassFuture *f = cass_session_close(s->session);
    cass_future_wait(f);
    cass_future_free(f);
    cass_session_free(s->session);
    cass_cluster_free(s->cluster);
}

typedef struct figure {
    double rps, p50_us, p99_us;
} figure;

static double *lat;

/* depth requests kept in flight for `seconds`; the oldest waited for each time. */
static figure drive(const side *s, int op, int depth, double seconds)
{
    CassFuture *f[MAX_DEPTH];
    double sent[MAX_DEPTH];
    long i = 0, done = 0;
    double start = bench_now_s(), stop = start + seconds;
    for (int k = 0; k < depth; k++) {
        CassStatement *st = bind(s, op, i++);
        sent[k] = bench_now_s();
        f[k] = cass_session_execute(s->session, st);
        cass_statement_free(st);
    }
    int k = 0;
    double now = start;
    for (;;) {
        check(f[k], op);
        cass_future_free(f[k]);
        now = bench_now_s();
        if (done < MAX_LAT)
            lat[done] = (now - sent[k]) * 1e6;
        done++;
        if (now >= stop)
            break;
        CassStatement *st = bind(s, op, i++);
        sent[k] = bench_now_s();
        f[k] = cass_session_execute(s->session, st);
        cass_statement_free(st);
        k = (k + 1) % depth;
    }
    for (int j = 1; j < depth; j++) { /* the rest in flight */
        int m = (k + j) % depth;
        check(f[m], op);
        cass_future_free(f[m]);
        done++;
    }
    long n = done < MAX_LAT ? done : MAX_LAT;
    qsort(lat, (size_t)n, sizeof *lat, bench_cmp_double);
    figure out = {done / (bench_now_s() - start), lat[n / 2], lat[n * 99 / 100]};
    return out;
}

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
            bench_die("usage: remote_bench [--seconds S] [--cassette PATH]");
    }
    signal(SIGPIPE, SIG_IGN);
    cass_log_set_level(CASS_LOG_ERROR);
    if (!(lat = malloc(MAX_LAT * sizeof *lat)))
        bench_die_nomem();
    int port;
    pid_t server = bench_start_server(cassette, &port);
    side remote = {0}, local = {0};
    side_open(&remote, "127.0.0.1", port);
    setenv("CASSETTE_DURABILITY", "none", 1);
    side_open(&local, "memory:", 0);
    printf("remote_bench: %d rooms x %d messages, loopback, durability none, %.0f s per figure\n\n",
           ROOMS, MSGS, seconds);
    printf("%-24s %9s %12s %8s %8s %12s %8s %8s %8s\n", "operation", "in flight", "remote rq/s",
           "p50 us", "p99 us", "embedded/s", "p50 us", "p99 us", "ratio");
    static const int depths[2] = {1, 64};
    for (int op = 0; op < 3; op++) {
        for (int d = 0; d < 2; d++) {
            figure r = drive(&remote, op, depths[d], seconds);
            figure e = drive(&local, op, depths[d], seconds);
            printf("%-24s %9d %12.0f %8.0f %8.0f %12.0f %8.0f %8.0f %8.2f\n", NAMES[op],
                   depths[d], r.rps, r.p50_us, r.p99_us, e.rps, e.p50_us, e.p99_us,
                   bench_ratio(r.rps, e.rps));
            fflush(stdout);
        }
    }
    side_close(&remote);
    side_close(&local);
    kill(server, SIGTERM);
    int status;
    waitpid(server, &status, 0);
    free(lat);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
