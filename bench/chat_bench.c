/*
 * chat_bench: the KillrChat data layer (examples/killrchat) under a mixed chat workload, on an
 * embedded database directory: 70% posts, 25% reads of a room's last page (50 messages), 5%
 * lightweight transactions (join, leave, create a room), over 1,000 rooms and 10,000 users.
 * Throughput and p50/p99 latency per operation, at 1 and 2 threads, with durability sync
 * (group commit) and none.
 *
 * Every operation's answer is checked: a post, join, leave or create that fails, or a last page
 * that is not 50 messages newest-last, ends the benchmark with an error.
 *
 *   chat_bench [--quick | --seconds S] [--dir D]
 */
#define BENCH_NAME "chat_bench"
#include "bench.h"

#include <cassette.h>
#include <pthread.h>

#include "killrchat/killrchat.h"

#define USERS 10000
#define ROOMS 1000
#define PAGE 50
/* Messages in every room before the run, so that every read returns a full page. */
#define PRELOAD 60

enum op { OP_POST, OP_READ, OP_LWT, N_OPS };
static const char *const op_names[N_OPS] = {"post a message", "read the last 50", "join/leave/create (LWT)"};

struct bench {
    int unused;
};

typedef struct worker {
    kc_db *db;
    uint64_t seed;
    double until;
    int id;     /* unique over the run's configurations: names the rooms it creates */
    double *lat[N_OPS]; /* seconds per operation */
    long n[N_OPS], cap[N_OPS];
    long created;
} worker;

static void usage(void)
{
    fprintf(stderr, "usage: chat_bench [--quick | --seconds S] [--dir D]\n");
    exit(2);
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void user_name(char *buf, size_t cap, long i)
{
    snprintf(buf, cap, "user%05ld", i);
}

static void room_name(char *buf, size_t cap, long i)
{
    snprintf(buf, cap, "room%04ld", i);
}

static void check(kc_status s, const kc_err *err, const char *what)
{
    if (s != KC_OK)
        bench_die("%s: %s (%s)", what, kc_status_name(s), err->msg);
}

static void record(worker *w, int op, double seconds)
{
    if (w->n[op] == w->cap[op]) {
        w->cap[op] = w->cap[op] ? 2 * w->cap[op] : 4096;
        w->lat[op] = realloc(w->lat[op], (size_t)w->cap[op] * sizeof(double));
        if (!w->lat[op])
            bench_die_nomem();
    }
    w->lat[op][w->n[op]++] = seconds;
}

static int uuid_before(CassUuid a, CassUuid b)
{
    uint64_t ta = a.time_and_version & 0x0FFFFFFFFFFFFFFFULL,
             tb = b.time_and_version & 0x0FFFFFFFFFFFFFFFULL;
    ta = (ta & 0xFFFFFFFFULL) << 28 | ((ta >> 32) & 0xFFFF) << 12 | ta >> 48;
    tb = (tb & 0xFFFFFFFFULL) << 28 | ((tb >> 32) & 0xFFFF) << 12 | tb >> 48;
    return ta < tb || (ta == tb && a.clock_seq_and_node < b.clock_seq_and_node);
}

/* One operation of the mix, timed and checked. */
static void one_op(worker *w)
{
    char room[32], login[32], msg[96];
    kc_err err;
    long r = (long)(next_rand(&w->seed) % ROOMS);
    long u = (long)(next_rand(&w->seed) % USERS);
    room_name(room, sizeof room, r);
    user_name(login, sizeof login, u);
    unsigned pick = (unsigned)(next_rand(&w->seed) % 100);
    double t0 = bench_now_s();
    if (pick < 70) {
        kc_user author = {login, "First", "Last"};
        snprintf(msg, sizeof msg, "message from %s in %s", login, room);
        check(kc_post_message(w->db, &author, room, msg, NULL, &err), &err, "post");
        record(w, OP_POST, bench_now_s() - t0);
    } else if (pick < 95) {
        kc_message_list l;
        check(kc_messages_latest(w->db, room, PAGE, &l, &err), &err, "last page");
        if (l.count != PAGE)
            bench_die_rows("the last page", (long)l.count, PAGE);
        for (size_t i = 1; i < l.count; i++)
            if (!uuid_before(l.items[i - 1].id, l.items[i].id))
                bench_die("the last page of %s is not in time order", room);
        kc_message_list_free(&l);
        record(w, OP_READ, bench_now_s() - t0);
    } else {
        unsigned which = (unsigned)(next_rand(&w->seed) % 10);
        if (which < 5) {
            check(kc_join_room(w->db, login, room, &err), &err, "join");
        } else if (which < 9) {
            check(kc_leave_room(w->db, login, room, &err), &err, "leave");
        } else {
            snprintf(room, sizeof room, "new-%d-%ld", w->id, w->created++);
            check(kc_create_room(w->db, login, room, NULL, &err), &err, "create room");
        }
        record(w, OP_LWT, bench_now_s() - t0);
    }
}

static void *run_worker(void *arg)
{
    worker *w = arg;
    while (bench_now_s() < w->until)
        for (int i = 0; i < 16; i++)
            one_op(w);
    return NULL;
}

static CassSession *connect_dir(const char *dir, cassette_durability d, CassCluster **cluster)
{
    char contact[PATH_MAX + 8];
    snprintf(contact, sizeof contact, "file:%s", dir);
    *cluster = cass_cluster_new();
    cass_cluster_set_contact_points(*cluster, contact);
    cassette_cluster_set_durability(*cluster, d);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, *cluster);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future("connect", f);
    cass_future_free(f);
    return s;
}

static void disconnect(CassCluster *cluster, CassSession *s)
{
    CassFuture *f = cass_session_close(s);
    cass_future_wait(f);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(cluster);
}

static kc_db *open_db(CassSession *s)
{
    kc_options o;
    kc_options_init(&o);
    o.password_cost = KC_PASSWORD_MIN;
    o.flush_interval_ms = 1000;
    kc_db *db;
    kc_err err;
    check(kc_open(s, &o, &db, &err), &err, "open");
    return db;
}

/* The users, the rooms (each created by a user, who joins it) and PRELOAD messages a room. */
static void populate(const char *dir)
{
    CassCluster *c;
    CassSession *s = connect_dir(dir, CASSETTE_DURABILITY_NONE, &c);
    kc_db *db = open_db(s);
    kc_err err;
    char login[32], room[32], msg[64];
    for (long i = 0; i < USERS; i++) {
        user_name(login, sizeof login, i);
        check(kc_create_user(db, login, "secret", "First", "Last", NULL, NULL, &err), &err,
              "create user");
    }
    for (long r = 0; r < ROOMS; r++) {
        room_name(room, sizeof room, r);
        user_name(login, sizeof login, r * (USERS / ROOMS));
        check(kc_create_room(db, login, room, NULL, &err), &err, "create room");
        kc_user author = {login, "First", "Last"};
        for (int m = 0; m < PRELOAD; m++) {
            snprintf(msg, sizeof msg, "earlier message %d", m);
            check(kc_post_message(db, &author, room, msg, NULL, &err), &err, "preload");
        }
    }
    check(kc_close(db, &err), &err, "close");
    disconnect(c, s);
}

static double percentile(double *v, long n, double p)
{
    if (!n)
        return 0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    long i = (long)(p * (double)(n - 1) + 0.5);
    return v[i];
}

static int n_workers; /* workers started so far, over every configuration */

static void run_config(const char *dir, cassette_durability d, const char *dname, int threads,
                       double seconds)
{
    CassCluster *c;
    CassSession *s = connect_dir(dir, d, &c);
    kc_db *db = open_db(s);
    worker w[2];
    memset(w, 0, sizeof w);
    /* Warm-up: a fifth of the time, not recorded. */
    for (int pass = 0; pass < 2; pass++) {
        double start = bench_now_s(), len = pass ? seconds : seconds / 5;
        pthread_t t[2];
        for (int i = 0; i < threads; i++) {
            for (int op = 0; op < N_OPS; op++)
                w[i].n[op] = 0;
            w[i].db = db;
            if (!pass)
                w[i].id = n_workers++;
            w[i].seed = 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1) + (uint64_t)pass;
            w[i].until = start + len;
            if (pthread_create(&t[i], NULL, run_worker, &w[i]))
                bench_die("pthread_create failed");
        }
        for (int i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        if (!pass)
            continue;
        double elapsed = bench_now_s() - start;
        long total = 0;
        for (int op = 0; op < N_OPS; op++)
            for (int i = 0; i < threads; i++)
                total += w[i].n[op];
        printf("%-10s %d thread%s  %8.0f ops/s\n", dname, threads, threads > 1 ? "s" : " ",
               (double)total / elapsed);
        for (int op = 0; op < N_OPS; op++) {
            long n = 0;
            for (int i = 0; i < threads; i++)
                n += w[i].n[op];
            double *all = malloc((size_t)(n ? n : 1) * sizeof *all);
            if (!all)
                bench_die_nomem();
            long k = 0;
            for (int i = 0; i < threads; i++)
                for (long j = 0; j < w[i].n[op]; j++)
                    all[k++] = w[i].lat[op][j];
            printf("    %-26s %8.0f ops/s   p50 %8.1f us   p99 %8.1f us\n", op_names[op],
                   (double)n / elapsed, percentile(all, n, 0.50) * 1e6,
                   percentile(all, n, 0.99) * 1e6);
            free(all);
        }
    }
    for (int i = 0; i < 2; i++)
        for (int op = 0; op < N_OPS; op++)
            free(w[i].lat[op]);
    kc_err err;
    check(kc_close(db, &err), &err, "close");
    disconnect(c, s);
}

int main(int argc, char **argv)
{
    bench_args a;
    bench_parse_args(argc, argv, "--seconds", 1, usage, &a);
    double seconds = a.quick ? 1.0 : a.number ? atof(a.number) : 5.0;
    if (seconds <= 0)
        usage();
    const char *root = bench_make_root(a.base, "chat_bench");
    char dir[PATH_MAX];
    bench_path(dir, sizeof dir, "chat");
    double t0 = bench_now_s();
    populate(dir);
    printf("chat_bench: %d users, %d rooms, %d messages preloaded in %.1f s (%s, %s)\n", USERS,
           ROOMS, ROOMS * PRELOAD, bench_now_s() - t0, root, bench_fs_name(root, "tmpfs"));
    printf("mix: 70%% post, 25%% last 50, 5%% LWT (join 50%%, leave 40%%, create 10%%); %.0f s "
           "a configuration after a warm-up\n\n",
           seconds);
    static const struct {
        cassette_durability d;
        const char *name;
    } modes[] = {{CASSETTE_DURABILITY_SYNC, "sync"}, {CASSETTE_DURABILITY_NONE, "none"}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (int threads = 1; threads <= 2; threads++)
            run_config(dir, modes[m].d, modes[m].name, threads, seconds);
    return 0;
}
