/*
 * Conditional writes are linearizable across threads and processes: cassette
 * runs a lightweight transaction's read, check and write inside one LMDB
 * write transaction, and gives plain writes a server timestamp that strictly
 * increases inside that transaction, so a table (k int PRIMARY KEY, v int)
 * must behave as one atomic register per key whatever mix of statements
 * reaches it, from however many sessions, threads and processes share the
 * database directory.
 *
 * Each round records a history: several processes (fork()ed children, each
 * with its own sessions on the same file:DIR, plus the test process itself),
 * several threads each, sharing sessions, run random statements on a few
 * keys with small values, so that conditions collide:
 *     SELECT v FROM ks.reg WHERE k = ?                          read
 *     UPDATE ks.reg SET v = ? WHERE k = ?                        write
 *     DELETE FROM ks.reg WHERE k = ?                             write of null
 *     UPDATE ks.reg SET v = ? WHERE k = ? IF v = ?               compare-and-set
 *     INSERT INTO ks.reg (k, v) VALUES (?, ?) IF NOT EXISTS      insert if absent
 * each with its invocation and response times on CLOCK_MONOTONIC (one clock
 * for every process of the machine), its inputs and its outputs: the value
 * read, [applied], and the current value a refused condition reports (facts
 * §5.3: the condition column, or the whole row for IF NOT EXISTS; a lone
 * [applied]=false when there is no row). The children send their histories
 * back through files; linearize.h's checker must find the whole history
 * linearizable. Rounds alternate durability NONE (writes commit in the
 * calling thread) and NOMETASYNC (writes go through the group committer).
 *
 * The checker is shown to bite on histories recorded the same way from
 * registers broken on purpose: a process-local cache that serves stale
 * reads, and a compare-and-set done as a read followed by a plain write.
 *
 * Short mode (make test) runs a few hundred operations per key; the long mode
 * (CASSETTE_LONG=1, make test-long) runs many more, in more rounds.
 */
#include <cassandra.h>
#include <cassette.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "linearize.c" /* the checker is part of this program (no Makefile rule needed) */

#define KS_CQL                                                                                     \
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
#define TABLE_CQL "CREATE TABLE ks.reg (k int PRIMARY KEY, v int)"

#define MAX_PROCS 8
#define MAX_THREADS 8
#define MAX_SESSIONS 4
#define MAX_KEYS 16

/* How a process's clients treat the register. */
typedef enum mode {
    CORRECT = 0,     /* every statement as written above */
    STALE_CACHE = 1, /* broken: reads served from a process-local cache once filled */
    CLIENT_CAS = 2   /* broken: cas and insert as a SELECT, then a plain write */
} mode;

typedef struct workload {
    char dir[512]; /* the database directory */
    int procs;     /* processes in all, the test process included */
    int threads;   /* threads per process */
    int sessions;  /* sessions per process; thread i uses session i % sessions */
    int ops;       /* operations per thread */
    int keys;      /* registers: keys 0..keys-1 */
    int values;    /* values written: 0..values-1 */
    cassette_durability durability;
    mode mode;
    uint64_t seed;
} workload;

/* One process's side of a round. */
typedef struct proc_ctx {
    const workload *wl;
    int proc;
    CassCluster *cluster[MAX_SESSIONS];
    CassSession *session[MAX_SESSIONS];
    const CassPrepared *read[MAX_SESSIONS], *write[MAX_SESSIONS], *del[MAX_SESSIONS],
        *cas[MAX_SESSIONS], *insert[MAX_SESSIONS];
    int go_fd; /* read end of the start pipe: EOF means go */
    /* STALE_CACHE: what this process last learnt of each key */
    pthread_mutex_t cache_lock;
    int cached[MAX_KEYS];
    int64_t cache[MAX_KEYS];
} proc_ctx;

/* What a process hands back: its operations and the first failure met. */
typedef struct proc_out {
    uint64_t n_ops;
    uint64_t n_errors; /* statements that failed, or answered in a shape not Cassandra's */
    char first_error[512];
} proc_out;

typedef struct worker {
    proc_ctx *pc;
    int thread;
    uint64_t rng;
    lin_op *ops;
    size_t n_ops;
    uint64_t n_errors;
    char first_error[512];
    int64_t last[MAX_KEYS]; /* the value this client last saw per key: a likely cas expectation */
} worker;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t mix_seed(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return (x ^ (x >> 31)) | 1;
}

static void note_error(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_error(worker *w, const char *fmt, ...)
{
    if (w->n_errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->first_error, sizeof w->first_error, fmt, ap);
        va_end(ap);
    }
}

/* ---- connecting a process ---- */

/* Connects the process's sessions and prepares its statements; 0, or -1 with msg. */
static int proc_connect(proc_ctx *pc, char *msg, size_t cap)
{
    static const char *const q[5] = {
        "SELECT v FROM ks.reg WHERE k = ?",
        "UPDATE ks.reg SET v = ? WHERE k = ?",
        "DELETE FROM ks.reg WHERE k = ?",
        "UPDATE ks.reg SET v = ? WHERE k = ? IF v = ?",
        "INSERT INTO ks.reg (k, v) VALUES (?, ?) IF NOT EXISTS",
    };
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", pc->wl->dir);
    for (int s = 0; s < pc->wl->sessions; s++) {
        pc->cluster[s] = cass_cluster_new();
        pc->session[s] = cass_session_new();
        if (cass_cluster_set_contact_points(pc->cluster[s], uri) != CASS_OK ||
            cassette_cluster_set_durability(pc->cluster[s], pc->wl->durability) != 0) {
            snprintf(msg, cap, "cluster options refused");
            return -1;
        }
        CassFuture *f = cass_session_connect(pc->session[s], pc->cluster[s]);
        CassError rc = cass_future_error_code(f);
        cass_future_free(f);
        if (rc != CASS_OK) {
            snprintf(msg, cap, "connect: %s", cass_error_desc(rc));
            return -1;
        }
        const CassPrepared **slot[5] = {&pc->read[s], &pc->write[s], &pc->del[s], &pc->cas[s],
                                        &pc->insert[s]};
        for (int i = 0; i < 5; i++) {
            f = cass_session_prepare(pc->session[s], q[i]);
            *slot[i] = cass_future_get_prepared(f);
            if (!*slot[i]) {
                const char *m;
                size_t n;
                cass_future_error_message(f, &m, &n);
                snprintf(msg, cap, "prepare %s: %.*s", q[i], (int)n, m);
                cass_future_free(f);
                return -1;
            }
            cass_future_free(f);
        }
    }
    return 0;
}

static void proc_close(proc_ctx *pc)
{
    for (int s = 0; s < MAX_SESSIONS; s++) {
        const CassPrepared *p[5] = {pc->read[s], pc->write[s], pc->del[s], pc->cas[s],
                                    pc->insert[s]};
        for (int i = 0; i < 5; i++)
            if (p[i])
                cass_prepared_free(p[i]);
        if (pc->session[s]) {
            CassFuture *f = cass_session_close(pc->session[s]);
            cass_future_free(f);
            cass_session_free(pc->session[s]);
        }
        if (pc->cluster[s])
            cass_cluster_free(pc->cluster[s]);
    }
}

/* ---- one operation ---- */

/* Executes st (freed here); the result, or NULL with the failure noted in w. */
static const CassResult *execute(worker *w, CassStatement *st, const char *what)
{
    CassSession *s = w->pc->session[w->thread % w->pc->wl->sessions];
    CassFuture *f = cass_session_execute(s, st);
    cass_statement_free(st);
    const CassResult *r = NULL;
    CassError rc = cass_future_error_code(f);
    if (rc == CASS_OK)
        r = cass_future_get_result(f);
    if (!r) {
        const char *m;
        size_t n;
        cass_future_error_message(f, &m, &n);
        note_error(w, "%s: %s: %.*s", what, cass_error_desc(rc), (int)n, m);
    }
    cass_future_free(f);
    return r;
}

/* v of a row as a register value; -1 when the value is not an int. */
static int column_value(const CassRow *row, const char *name, int64_t *out)
{
    const CassValue *v = cass_row_get_column_by_name(row, name);
    if (!v)
        return -1;
    if (cass_value_is_null(v)) {
        *out = LIN_NULL;
        return 0;
    }
    cass_int32_t i;
    if (cass_value_get_int32(v, &i) != CASS_OK)
        return -1;
    *out = i;
    return 0;
}

/* SELECT v: the value, or null when there is no row. */
static int parse_read(const CassResult *r, int64_t *value)
{
    if (cass_result_row_count(r) == 0) {
        *value = LIN_NULL;
        return 0;
    }
    if (cass_result_row_count(r) != 1 || cass_result_column_count(r) != 1)
        return -1;
    return column_value(cass_result_first_row(r), "v", value);
}

/*
 * A conditional write's result (facts §5.3): one row; [applied]=true alone, or
 * [applied]=false followed by the current values: for IF v = ?, the column v,
 * or nothing when there is no row; for IF NOT EXISTS the whole row (k, v).
 */
static int parse_lwt(const CassResult *r, int is_insert, int32_t key, uint8_t *applied,
                     int64_t *value)
{
    const CassRow *row = cass_result_first_row(r);
    cass_bool_t b;
    if (cass_result_row_count(r) != 1 || !row ||
        cass_value_get_bool(cass_row_get_column_by_name(row, "[applied]"), &b) != CASS_OK)
        return -1;
    *applied = b == cass_true;
    *value = LIN_NULL;
    size_t cols = cass_result_column_count(r);
    if (*applied)
        return cols == 1 ? 0 : -1;
    if (cols == 1)
        return 0; /* no row: the current value is null */
    if (is_insert) {
        int64_t k;
        if (cols != 3 || column_value(row, "k", &k) != 0 || k != key)
            return -1;
    } else if (cols != 2) {
        return -1;
    }
    return column_value(row, "v", value);
}

static CassStatement *bind_value(CassStatement *st, size_t i, int64_t v)
{
    if (v == LIN_NULL)
        cass_statement_bind_null(st, i);
    else
        cass_statement_bind_int32(st, i, (cass_int32_t)v);
    return st;
}

/* Runs o (inputs filled in) against the database, filling in its times and outputs. */
static void run_correct(worker *w, lin_op *o)
{
    proc_ctx *pc = w->pc;
    int s = w->thread % pc->wl->sessions;
    int32_t key = (int32_t)o->key;
    CassStatement *st;
    const char *what;
    switch (o->kind) {
    case LIN_READ:
        st = cass_prepared_bind(pc->read[s]);
        cass_statement_bind_int32(st, 0, key);
        what = "select";
        break;
    case LIN_WRITE:
        if (o->arg == LIN_NULL) {
            st = cass_prepared_bind(pc->del[s]);
            cass_statement_bind_int32(st, 0, key);
            what = "delete";
        } else {
            st = cass_prepared_bind(pc->write[s]);
            cass_statement_bind_int32(st, 0, (cass_int32_t)o->arg);
            cass_statement_bind_int32(st, 1, key);
            what = "update";
        }
        break;
    case LIN_CAS:
        st = cass_prepared_bind(pc->cas[s]);
        cass_statement_bind_int32(st, 0, (cass_int32_t)o->arg);
        cass_statement_bind_int32(st, 1, key);
        bind_value(st, 2, o->expected);
        what = "update if";
        break;
    default:
        st = cass_prepared_bind(pc->insert[s]);
        cass_statement_bind_int32(st, 0, key);
        cass_statement_bind_int32(st, 1, (cass_int32_t)o->arg);
        what = "insert if not exists";
        break;
    }
    o->call_ns = now_ns();
    const CassResult *r = execute(w, st, what);
    o->ret_ns = now_ns();
    if (!r)
        return; /* outcome unknown: o->known stays 0 */
    int bad = 0;
    if (o->kind == LIN_READ)
        bad = parse_read(r, &o->value);
    else if (o->kind == LIN_CAS || o->kind == LIN_INSERT)
        bad = parse_lwt(r, o->kind == LIN_INSERT, key, &o->applied, &o->value);
    else
        bad = cass_result_row_count(r) != 0;
    cass_result_free(r);
    if (bad) {
        note_error(w, "%s on k=%d: a result not in Cassandra's shape", what, key);
        return;
    }
    o->known = 1;
}

/* STALE_CACHE: a read is answered from the process's cache once it holds the key. */
static void run_stale_cache(worker *w, lin_op *o)
{
    proc_ctx *pc = w->pc;
    int k = (int)o->key;
    if (o->kind == LIN_READ) {
        o->call_ns = now_ns();
        pthread_mutex_lock(&pc->cache_lock);
        int hit = pc->cached[k];
        o->value = pc->cache[k];
        pthread_mutex_unlock(&pc->cache_lock);
        if (hit) {
            o->ret_ns = now_ns();
            o->known = 1;
            return;
        }
    }
    run_correct(w, o);
    if (!o->known)
        return;
    int64_t v = o->value; /* read; cas or insert not applied */
    if (o->kind == LIN_WRITE || ((o->kind == LIN_CAS || o->kind == LIN_INSERT) && o->applied))
        v = o->arg;
    pthread_mutex_lock(&pc->cache_lock);
    pc->cached[k] = 1;
    pc->cache[k] = v;
    pthread_mutex_unlock(&pc->cache_lock);
}

/* CLIENT_CAS: the condition is checked by a SELECT, then a plain write follows. */
static void run_client_cas(worker *w, lin_op *o)
{
    if (o->kind != LIN_CAS && o->kind != LIN_INSERT) {
        run_correct(w, o);
        return;
    }
    lin_op rd = *o, wr = *o;
    rd.kind = LIN_READ;
    run_correct(w, &rd);
    if (!rd.known) {
        o->call_ns = rd.call_ns;
        return;
    }
    int64_t want = o->kind == LIN_CAS ? o->expected : LIN_NULL;
    o->call_ns = rd.call_ns;
    o->known = 1;
    if (rd.value != want) {
        o->ret_ns = rd.ret_ns;
        o->applied = 0;
        o->value = rd.value;
        return;
    }
    usleep(100); /* the window a real client would leave open anyway, made wider */
    wr.kind = LIN_WRITE;
    run_correct(w, &wr);
    o->ret_ns = wr.ret_ns;
    o->applied = 1;
    o->known = wr.known;
}

/* ---- the clients ---- */

static void wait_go(int fd)
{
    char c;
    while (read(fd, &c, 1) < 0 && errno == EINTR)
        ;
}

/* One client: ops random statements, recorded in w->ops. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    const workload *wl = w->pc->wl;
    for (int k = 0; k < MAX_KEYS; k++)
        w->last[k] = LIN_NULL;
    wait_go(w->pc->go_fd);
    for (int i = 0; i < wl->ops; i++) {
        lin_op *o = &w->ops[w->n_ops++];
        memset(o, 0, sizeof *o);
        o->client = (int32_t)(w->pc->proc * 100 + w->thread);
        o->key = (int64_t)(test_rand(&w->rng) % (uint64_t)wl->keys);
        o->arg = (int64_t)(test_rand(&w->rng) % (uint64_t)wl->values);
        o->expected = o->value = LIN_NULL;
        uint64_t pick = test_rand(&w->rng) % 100;
        if (pick < 35) {
            o->kind = LIN_READ;
        } else if (pick < 50) {
            o->kind = LIN_WRITE;
            if (pick < 38)
                o->arg = LIN_NULL; /* a delete */
        } else if (pick < 85) {
            o->kind = LIN_CAS;
            /* mostly what this client saw last, so that some apply; sometimes anything */
            uint64_t e = test_rand(&w->rng) % 10;
            if (e < 7)
                o->expected = w->last[o->key];
            else if (e < 8)
                o->expected = LIN_NULL;
            else
                o->expected = (int64_t)(test_rand(&w->rng) % (uint64_t)wl->values);
        } else {
            o->kind = LIN_INSERT;
        }
        switch (wl->mode) {
        case STALE_CACHE:
            run_stale_cache(w, o);
            break;
        case CLIENT_CAS:
            run_client_cas(w, o);
            break;
        default:
            run_correct(w, o);
            break;
        }
        if (o->known) {
            if (o->kind == LIN_READ ||
                ((o->kind == LIN_CAS || o->kind == LIN_INSERT) && !o->applied))
                w->last[o->key] = o->value;
            else
                w->last[o->key] = o->arg;
        }
    }
    return NULL;
}

/*
 * Runs this process's clients after go: connects (already done), starts the
 * threads, joins them; their operations are appended to *ops. 0, or -1 when a
 * thread could not start.
 */
static int run_clients(proc_ctx *pc, lin_op *ops, proc_out *out)
{
    const workload *wl = pc->wl;
    worker w[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started = 0, rc = 0;
    memset(w, 0, sizeof w);
    for (int t = 0; t < wl->threads; t++) {
        w[t].pc = pc;
        w[t].thread = t;
        w[t].rng = mix_seed(wl->seed ^ ((uint64_t)pc->proc << 32) ^ (uint64_t)t);
        w[t].ops = ops + (size_t)t * (size_t)wl->ops;
        if (pthread_create(&tid[t], NULL, worker_main, &w[t]) != 0) {
            rc = -1;
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    /* the threads filled their slices; pack them */
    size_t n = 0;
    for (int t = 0; t < started; t++) {
        memmove(ops + n, w[t].ops, w[t].n_ops * sizeof *ops);
        n += w[t].n_ops;
        if (w[t].n_errors && out->n_errors == 0)
            snprintf(out->first_error, sizeof out->first_error, "process %d thread %d: %s",
                     pc->proc, t, w[t].first_error);
        out->n_errors += w[t].n_errors;
    }
    out->n_ops = n;
    return rc;
}

/* ---- the child processes ---- */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void hist_path(char *buf, size_t cap, const workload *wl, int proc)
{
    snprintf(buf, cap, "%s.hist%d", wl->dir, proc);
}

/*
 * A child: connects its own sessions (never the parent's: it has none open at
 * the fork), says ready, runs its clients at go, writes its history to a file
 * and leaves with _exit, so that nothing of the harness runs in it.
 */
static void child_main(const workload *wl, int proc, int ready_fd, int go_fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the test process died: no orphans */
    alarm(600);
    proc_ctx pc;
    memset(&pc, 0, sizeof pc);
    pc.wl = wl;
    pc.proc = proc;
    pc.go_fd = go_fd;
    pthread_mutex_init(&pc.cache_lock, NULL);
    proc_out out;
    memset(&out, 0, sizeof out);
    char msg[512];
    if (proc_connect(&pc, msg, sizeof msg) != 0) {
        fprintf(stderr, "child %d: %s\n", proc, msg);
        _exit(3);
    }
    lin_op *ops = calloc((size_t)wl->threads * (size_t)wl->ops, sizeof *ops);
    if (!ops || write_all(ready_fd, "r", 1) != 0)
        _exit(4);
    close(ready_fd);
    int rc = run_clients(&pc, ops, &out);
    proc_close(&pc);
    char path[600];
    hist_path(path, sizeof path, wl, proc);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write_all(fd, &out, sizeof out) != 0 ||
        write_all(fd, ops, out.n_ops * sizeof *ops) != 0 || close(fd) != 0)
        _exit(5);
    free(ops);
    _exit(rc == 0 ? 0 : 6);
}

/* ---- a round ---- */

static void create_schema(const workload *wl)
{
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", wl->dir);
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, uri), CASS_OK);
    ASSERT_EQ(cassette_cluster_set_durability(c, wl->durability), 0);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_OK);
    cass_future_free(f);
    const char *q[2] = {KS_CQL, TABLE_CQL};
    for (int i = 0; i < 2; i++) {
        CassStatement *st = cass_statement_new(q[i], 0);
        f = cass_session_execute(s, st);
        ASSERT_EQ(cass_future_error_code(f), CASS_OK);
        cass_future_free(f);
        cass_statement_free(st);
    }
    f = cass_session_close(s);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c); /* the database is closed again: nothing open crosses a fork */
}

/*
 * Records one round's history: forks wl->procs - 1 children, runs the test
 * process's own clients beside them, and gathers every operation into a
 * malloc'ed array (*n of them). Fails the test on any setup problem;
 * failed statements are counted in *errors (first message in err).
 */
static lin_op *record(const workload *wl, size_t *n, uint64_t *errors, char *err, size_t cap)
{
    ASSERT(wl->procs >= 1 && wl->procs <= MAX_PROCS && wl->threads <= MAX_THREADS &&
           wl->sessions <= MAX_SESSIONS && wl->keys <= MAX_KEYS);
    create_schema(wl);
    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    pid_t pid[MAX_PROCS];
    fflush(stdout);
    fflush(stderr);
    for (int p = 1; p < wl->procs; p++) {
        pid[p] = fork();
        ASSERT(pid[p] >= 0);
        if (pid[p] == 0) {
            close(ready[0]);
            close(go[1]);
            child_main(wl, p, ready[1], go[0]);
        }
    }
    close(ready[1]);
    close(go[0]);
    /* the test process's own clients, now that no fork is to come */
    proc_ctx pc;
    memset(&pc, 0, sizeof pc);
    pc.wl = wl;
    pc.proc = 0;
    int gofd[2];
    ASSERT_EQ(pipe(gofd), 0);
    pc.go_fd = gofd[0];
    pthread_mutex_init(&pc.cache_lock, NULL);
    char msg[512];
    if (proc_connect(&pc, msg, sizeof msg) != 0)
        test_fail(__FILE__, __LINE__, "test process: %s", msg);
    /* every child is connected and prepared (or dead) before anyone starts */
    for (int p = 1; p < wl->procs; p++) {
        char c;
        if (read_all(ready[0], &c, 1) != 0)
            test_fail(__FILE__, __LINE__, "a child died before it was ready");
    }
    close(ready[0]);
    size_t per_proc = (size_t)wl->threads * (size_t)wl->ops;
    lin_op *all = calloc(per_proc * (size_t)wl->procs, sizeof *all);
    ASSERT(all);
    proc_out out;
    memset(&out, 0, sizeof out);
    close(go[1]);   /* go, children */
    close(gofd[1]); /* go, threads of this process */
    ASSERT_EQ(run_clients(&pc, all, &out), 0);
    close(gofd[0]);
    proc_close(&pc);
    pthread_mutex_destroy(&pc.cache_lock);
    size_t total = out.n_ops;
    *errors = out.n_errors;
    snprintf(err, cap, "%s", out.first_error);
    for (int p = 1; p < wl->procs; p++) {
        int status = 0;
        ASSERT_EQ(waitpid(pid[p], &status, 0), pid[p]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            test_fail(__FILE__, __LINE__, "child %d: %s %d", p,
                      WIFEXITED(status) ? "exit status" : "killed by signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        char path[600];
        hist_path(path, sizeof path, wl, p);
        int fd = open(path, O_RDONLY);
        ASSERT(fd >= 0);
        proc_out co;
        ASSERT_EQ(read_all(fd, &co, sizeof co), 0);
        ASSERT(co.n_ops <= per_proc);
        ASSERT_EQ(read_all(fd, all + total, co.n_ops * sizeof *all), 0);
        close(fd);
        unlink(path);
        total += co.n_ops;
        if (co.n_errors && *errors == 0)
            snprintf(err, cap, "%s", co.first_error);
        *errors += co.n_errors;
    }
    *n = total;
    return all;
}

static void workload_init(workload *wl, int round, const char *name)
{
    memset(wl, 0, sizeof *wl);
    snprintf(wl->dir, sizeof wl->dir, "%s/%s%d", test_tmpdir(), name, round);
    int lng = test_long();
    wl->procs = lng ? 4 : 3;
    wl->threads = 3; /* over 2 sessions: one session is shared by two threads */
    wl->sessions = 2;
    wl->ops = lng ? 3000 : 700;
    wl->keys = 3;
    wl->values = 4;
    wl->durability = round % 2 ? CASSETTE_DURABILITY_NOMETASYNC : CASSETTE_DURABILITY_NONE;
    wl->mode = CORRECT;
    wl->seed = mix_seed(test_seed() + (uint64_t)round);
}

static const char *durability_name(cassette_durability d)
{
    return d == CASSETTE_DURABILITY_NONE         ? "none"
           : d == CASSETTE_DURABILITY_NOMETASYNC ? "nometasync"
                                                 : "sync";
}

static int by_call(const void *pa, const void *pb)
{
    const lin_op *a = pa, *b = pb;
    return a->call_ns < b->call_ns ? -1 : a->call_ns > b->call_ns;
}

/*
 * How many operations overlap in time an operation of another process: the
 * measure that the processes did run side by side, not one after another.
 */
static size_t cross_process_overlaps(const lin_op *h, size_t n)
{
    lin_op *s = malloc(n * sizeof *s);
    uint8_t *hit = calloc(n, 1);
    ASSERT(s && hit);
    memcpy(s, h, n * sizeof *s);
    qsort(s, n, sizeof *s, by_call);
    for (size_t i = 0; i < n; i++) {
        int64_t end = s[i].known ? s[i].ret_ns : INT64_MAX;
        for (size_t j = i + 1; j < n && s[j].call_ns <= end; j++)
            if (s[j].client / 100 != s[i].client / 100)
                hit[i] = hit[j] = 1;
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += hit[i];
    free(hit);
    free(s);
    return count;
}

/* ---- the tests ---- */

/* The claim: every round's history, however the statements interleave, is linearizable. */
TEST(lwt_register_is_linearizable_across_threads_and_processes)
{
    int rounds = test_long() ? 30 : 4;
    size_t overlapping = 0, total = 0;
    for (int round = 0; round < rounds; round++) {
        workload wl;
        workload_init(&wl, round, "reg");
        size_t n;
        uint64_t errors;
        char err[512];
        lin_op *h = record(&wl, &n, &errors, err, sizeof err);
        ASSERT_EQ(n, (size_t)wl.procs * (size_t)wl.threads * (size_t)wl.ops);
        /* a real history: conditions both applied and refused, on every key */
        size_t applied = 0, refused = 0;
        for (size_t i = 0; i < n; i++)
            if (h[i].known && (h[i].kind == LIN_CAS || h[i].kind == LIN_INSERT))
                h[i].applied ? applied++ : refused++;
        ASSERT(applied > n / 50);
        ASSERT(refused > n / 50);
        overlapping += cross_process_overlaps(h, n);
        total += n;
        lin_report rep;
        lin_result res = lin_check(h, n, 0, &rep);
        if (res != LIN_OK)
            test_fail(__FILE__, __LINE__,
                      "round %d (%d processes x %d threads, durability %s): %s\n%s", round,
                      wl.procs, wl.threads, durability_name(wl.durability), lin_result_name(res),
                      rep.text);
        ASSERT_EQ(rep.keys, (size_t)wl.keys);
        /* the library answered everything, in Cassandra's shapes */
        if (errors)
            test_fail(__FILE__, __LINE__, "round %d: %" PRIu64 " statements failed; first: %s",
                      round, errors, err);
        free(h);
    }
    /* the processes ran side by side (a round of a few milliseconds can also run one
       process after the other; over all rounds most operations overlap another process's) */
    ASSERT(overlapping > total / 10);
}

/* Whether the checker rejects one of a few rounds recorded with a register broken on purpose
   (mode): a violation is almost certain within one round, a few rounds at most. */
static int broken_register_rejected(mode broken, const char *name)
{
    for (int round = 0; round < 5; round++) {
        workload wl;
        workload_init(&wl, round, name);
        wl.mode = broken;
        size_t n;
        uint64_t errors;
        char err[512];
        lin_op *h = record(&wl, &n, &errors, err, sizeof err);
        if (errors)
            test_fail(__FILE__, __LINE__, "%" PRIu64 " statements failed; first: %s", errors, err);
        lin_report rep;
        lin_result res = lin_check(h, n, 0, &rep);
        free(h);
        ASSERT(res == LIN_OK || res == LIN_VIOLATION);
        if (res == LIN_VIOLATION)
            return 1;
    }
    return 0;
}

/*
 * The checker bites on a register broken on purpose: reads that a process
 * answers from its own cache once it has seen the key go stale as soon as
 * another process writes. Recorded like the real thing; it must be rejected.
 */
TEST(stale_cache_register_is_rejected)
{
    ASSERT(broken_register_rejected(STALE_CACHE, "stale"));
}

/*
 * The same for a compare-and-set done by the client as a SELECT and then a
 * plain UPDATE: two clients that read the same value both "apply".
 */
TEST(client_side_cas_register_is_rejected)
{
    ASSERT(broken_register_rejected(CLIENT_CAS, "ccas"));
}
