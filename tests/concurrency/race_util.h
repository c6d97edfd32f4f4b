/*
 * What the race tests share: workers that are threads of the test process or
 * forked processes with sessions of their own on the same file:DIR database,
 * released round by round from a control block in shared memory, and
 * statement helpers that work in both kinds of worker.
 *
 * A worker never uses the harness's ASSERT: in a forked child, test_fail()
 * would print a FAIL line of its own and remove the test's directory under
 * the other workers. RCHECK()/race_fail() record the first failure in the
 * control block instead; a child then leaves with status 3 and the test
 * process reports the message, a thread fails the test at once.
 *
 * Processes are forked before the test process opens the database (LMDB
 * forbids using an environment after fork(), and a child forked while a
 * library thread holds a lock could deadlock); the children connect when the
 * test process has made the schema. A child dies with the test process
 * (PR_SET_PDEATHSIG), so a failed or timed-out test leaves no process behind.
 *
 * Only <cassandra.h>, <cassette.h> and the harness: the tests see the library
 * as an application does.
 */
#ifndef RACE_UTIL_H
#define RACE_UTIL_H

#include <cassandra.h>
#include <cassette.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define RACE_MAX_WORKERS 16
/* Yields before a waiting worker starts sleeping: rounds follow each other closely, so workers
   that spin start a round together (a sleep would spread their starts by the timer slack). */
#define RACE_SPIN 20000

/* The control block, at the start of each test's shared memory. */
typedef struct race_ctl {
    atomic_int failed;  /* a worker failed; msg says why */
    atomic_int go;      /* the schema exists: process workers may connect */
    atomic_int ready;   /* workers connected */
    atomic_int round;   /* rounds released: a worker runs round r once round > r */
    atomic_int arrived; /* rounds started, summed over the workers */
    atomic_int done;    /* rounds finished, summed over the workers */
    atomic_int workers; /* process and thread workers */
    atomic_int stop;    /* no more rounds */
    atomic_int step;    /* lockstep between two processes (race_step_*) */
    atomic_long seq;    /* tickets: a total order of events across workers */
    char msg[1024];     /* the first failure */
} race_ctl;

/* The control block of the running test (one test per process, so a global). */
static race_ctl *race_c;
/* 1 in a forked worker: failures leave by _exit, never through the harness. */
static int race_is_child;

/* Shared memory of n bytes (zeroed) that forked children see too; it lives until exit. */
static inline void *race_shared(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        test_fail(__FILE__, __LINE__, "mmap of %zu bytes failed", n);
    return p;
}

static inline void race_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static inline void race_fail(const char *file, int line, const char *fmt, ...)
{
    char m[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    int expect = 0;
    if (race_c && atomic_compare_exchange_strong(&race_c->failed, &expect, 1))
        snprintf(race_c->msg, sizeof race_c->msg, "%s:%d: %s", file, line, m);
    if (race_is_child)
        _exit(3);
    test_fail(file, line, "%s", m);
}

#define RFAIL(...) race_fail(__FILE__, __LINE__, __VA_ARGS__)
#define RCHECK(expr)                                                                               \
    do {                                                                                           \
        if (!(expr))                                                                               \
            race_fail(__FILE__, __LINE__, "%s", #expr);                                            \
    } while (0)

/* A ticket: later events get larger numbers, across threads and processes. */
static inline long race_ticket(void)
{
    return atomic_fetch_add(&race_c->seq, 1) + 1;
}

static inline void race_sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Waits until *v >= want: a short spin, then short sleeps. A forked child gives up when the
   test process is gone; the test process fails when a worker failed. */
static inline void race_wait_at_least(atomic_int *v, int want)
{
    for (long i = 0; atomic_load(v) < want; i++) {
        if (atomic_load(&race_c->stop) && v != &race_c->stop)
            return;
        if (atomic_load(&race_c->failed)) {
            if (race_is_child)
                _exit(3);
            test_fail(__FILE__, __LINE__, "worker failed: %s", race_c->msg);
        }
        if (i < RACE_SPIN)
            sched_yield();
        else
            race_sleep_us(20);
    }
}

/* ------------------------------------------------------------------------ */
/* Sessions and statements (usable in any worker)                           */
/* ------------------------------------------------------------------------ */

typedef struct race_conn {
    CassCluster *cluster;
    CassSession *session;
} race_conn;

static inline const char *race_future_message(CassFuture *f, char *buf, size_t cap)
{
    const char *m;
    size_t n;
    cass_future_error_message(f, &m, &n);
    snprintf(buf, cap, "%.*s", (int)n, m);
    return buf;
}

/* The durability of the next race_connect() (forked workers inherit it): -1 for none, or
   CASSETTE_DURABILITY when set (nometasync, say, to race through the group commit). */
static int race_durability = -1;

/* A session on file:DIR. These tests are about concurrency, not crashes: durability none unless
   the test or CASSETTE_DURABILITY asks for another. */
static inline void race_connect(race_conn *cn, const char *dir)
{
    char uri[1024];
    if ((size_t)snprintf(uri, sizeof uri, "file:%s", dir) >= sizeof uri)
        RFAIL("directory name too long: %s", dir);
    cn->cluster = cass_cluster_new();
    RCHECK(cn->cluster);
    RCHECK(cass_cluster_set_contact_points(cn->cluster, uri) == CASS_OK);
    const char *env = getenv("CASSETTE_DURABILITY");
    if (race_durability >= 0)
        RCHECK(cassette_cluster_set_durability(cn->cluster, (cassette_durability)race_durability) ==
               0);
    else if (!env || !*env)
        RCHECK(cassette_cluster_set_durability(cn->cluster, CASSETTE_DURABILITY_NONE) == 0);
    cn->session = cass_session_new();
    CassFuture *f = cass_session_connect(cn->session, cn->cluster);
    if (cass_future_error_code(f) != CASS_OK) {
        char m[512];
        RFAIL("connect to %s: %s", uri, race_future_message(f, m, sizeof m));
    }
    cass_future_free(f);
}

static inline void race_close(race_conn *cn)
{
    CassFuture *f = cass_session_close(cn->session);
    RCHECK(cass_future_error_code(f) == CASS_OK);
    cass_future_free(f);
    cass_session_free(cn->session);
    cass_cluster_free(cn->cluster);
    cn->session = NULL;
    cn->cluster = NULL;
}

/* Executes a statement that must succeed; the caller frees the result. */
static inline const CassResult *race_exec_stmt(const char *file, int line, CassSession *s,
                                               const CassStatement *st)
{
    CassFuture *f = cass_session_execute(s, st);
    CassError rc = cass_future_error_code(f);
    if (rc != CASS_OK) {
        char m[512];
        race_fail(file, line, "execute failed: %s (0x%x): %s", cass_error_desc(rc), (unsigned)rc,
                  race_future_message(f, m, sizeof m));
    }
    const CassResult *r = cass_future_get_result(f);
    cass_future_free(f);
    if (!r)
        race_fail(file, line, "no result");
    return r;
}

static inline const CassResult *race_query_v(const char *file, int line, CassSession *s,
                                             const char *fmt, va_list ap)
{
    char q[4096];
    int n = vsnprintf(q, sizeof q, fmt, ap);
    if (n < 0 || (size_t)n >= sizeof q)
        race_fail(file, line, "statement too long");
    CassStatement *st = cass_statement_new(q, 0);
    CassFuture *f = cass_session_execute(s, st);
    CassError rc = cass_future_error_code(f);
    if (rc != CASS_OK) {
        char m[512];
        race_fail(file, line, "%s: %s (0x%x): %s", q, cass_error_desc(rc), (unsigned)rc,
                  race_future_message(f, m, sizeof m));
    }
    const CassResult *r = cass_future_get_result(f);
    cass_future_free(f);
    cass_statement_free(st);
    if (!r)
        race_fail(file, line, "%s: no result", q);
    return r;
}

static inline const CassResult *race_query_at(const char *file, int line, CassSession *s,
                                              const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline const CassResult *race_query_at(const char *file, int line, CassSession *s,
                                              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const CassResult *r = race_query_v(file, line, s, fmt, ap);
    va_end(ap);
    return r;
}

static inline void race_run_at(const char *file, int line, CassSession *s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void race_run_at(const char *file, int line, CassSession *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cass_result_free(race_query_v(file, line, s, fmt, ap));
    va_end(ap);
}

/* A formatted statement that must succeed: RQUERY returns its result, RRUN frees it. */
#define RQUERY(s, ...) race_query_at(__FILE__, __LINE__, (s), __VA_ARGS__)
#define RRUN(s, ...) race_run_at(__FILE__, __LINE__, (s), __VA_ARGS__)
#define REXEC(s, st) race_exec_stmt(__FILE__, __LINE__, (s), (st))

static inline const CassPrepared *race_prepare(CassSession *s, const char *q)
{
    CassFuture *f = cass_session_prepare(s, q);
    if (cass_future_error_code(f) != CASS_OK) {
        char m[512];
        RFAIL("prepare %s: %s", q, race_future_message(f, m, sizeof m));
    }
    const CassPrepared *p = cass_future_get_prepared(f);
    cass_future_free(f);
    RCHECK(p);
    return p;
}

/* The [applied] column of a conditional statement's result. */
static inline int race_applied(const CassResult *r)
{
    const CassRow *row = cass_result_first_row(r);
    RCHECK(row);
    cass_bool_t b = cass_false;
    RCHECK(cass_value_get_bool(cass_row_get_column_by_name(row, "[applied]"), &b) == CASS_OK);
    return b == cass_true;
}

/* The text of v into buf ("" and 0 for null); 1 when not null. */
static inline int race_text(const CassValue *v, char *buf, size_t cap)
{
    buf[0] = 0;
    if (!v || cass_value_is_null(v))
        return 0;
    const char *s;
    size_t n;
    RCHECK(cass_value_get_string(v, &s, &n) == CASS_OK);
    snprintf(buf, cap, "%.*s", (int)n, s);
    return 1;
}

static inline int32_t race_int(const CassValue *v)
{
    cass_int32_t x = 0;
    RCHECK(v && cass_value_get_int32(v, &x) == CASS_OK);
    return x;
}

/* Column i's name in buf. */
static inline const char *race_column_name(const CassResult *r, size_t i, char *buf, size_t cap)
{
    const char *s;
    size_t n;
    RCHECK(cass_result_column_name(r, i, &s, &n) == CASS_OK);
    snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* Worker pools                                                              */
/* ------------------------------------------------------------------------ */

/* One round of one worker; worker ids count the processes first, then the threads. */
typedef void (*race_round_fn)(CassSession *s, int worker, int round, void *arg);

typedef struct race_pool race_pool;

typedef struct race_thread {
    race_pool *pool;
    int worker;
} race_thread;

struct race_pool {
    race_round_fn fn;
    void *arg;
    int n_procs, n_threads;
    pid_t pid[RACE_MAX_WORKERS];
    pthread_t th[RACE_MAX_WORKERS];
    race_thread targ[RACE_MAX_WORKERS];
    CassSession *session; /* the test process's, shared by the threads */
    int rounds;           /* rounds released so far */
};

static inline void race_worker_rounds(race_pool *p, CassSession *s, int worker)
{
    for (int r = 0;; r++) {
        race_wait_at_least(&race_c->round, r + 1);
        if (atomic_load(&race_c->round) <= r)
            return; /* stopped */
        /* a barrier: the round starts when every worker is there */
        atomic_fetch_add(&race_c->arrived, 1);
        race_wait_at_least(&race_c->arrived, atomic_load(&race_c->workers) * (r + 1));
        p->fn(s, worker, r, p->arg);
        atomic_fetch_add(&race_c->done, 1);
    }
}

static inline void *race_thread_main(void *arg)
{
    race_thread *t = arg;
    race_worker_rounds(t->pool, t->pool->session, t->worker);
    return NULL;
}

/* Forks n process workers on file:DIR; call before the test process opens DIR. */
static inline void race_pool_fork(race_pool *p, const char *dir, int n, race_round_fn fn, void *arg)
{
    ASSERT(n >= 0 && n <= RACE_MAX_WORKERS);
    p->fn = fn;
    p->arg = arg;
    p->n_procs = n;
    atomic_fetch_add(&race_c->workers, n);
    pid_t parent = getpid();
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        ASSERT(pid >= 0);
        if (pid == 0) {
            race_is_child = 1;
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(4);
            race_wait_at_least(&race_c->go, 1);
            race_conn cn;
            race_connect(&cn, dir);
            atomic_fetch_add(&race_c->ready, 1);
            race_worker_rounds(p, cn.session, i);
            race_close(&cn);
            _exit(0);
        }
        p->pid[i] = pid;
    }
}

/* Lets the process workers connect (the schema is there) and waits until they have. */
static inline void race_pool_go(race_pool *p)
{
    atomic_store(&race_c->go, 1);
    race_wait_at_least(&race_c->ready, p->n_procs);
}

/* Starts n thread workers on the test process's session s. */
static inline void race_pool_threads(race_pool *p, CassSession *s, int n, race_round_fn fn,
                                     void *arg)
{
    ASSERT(p->n_procs + n <= RACE_MAX_WORKERS);
    p->fn = fn;
    p->arg = arg;
    p->session = s;
    p->n_threads = n;
    atomic_fetch_add(&race_c->workers, n);
    for (int i = 0; i < n; i++) {
        p->targ[i] = (race_thread){p, p->n_procs + i};
        ASSERT_EQ(pthread_create(&p->th[i], NULL, race_thread_main, &p->targ[i]), 0);
    }
}

/* Fails the test if a process worker has ended before its time. */
static inline void race_pool_check_children(race_pool *p)
{
    for (int i = 0; i < p->n_procs; i++) {
        if (!p->pid[i])
            continue;
        int st;
        pid_t w = waitpid(p->pid[i], &st, WNOHANG);
        if (w == p->pid[i]) {
            p->pid[i] = 0;
            test_fail(__FILE__, __LINE__, "worker process %d ended (status 0x%x): %s", i, st,
                      atomic_load(&race_c->failed) ? race_c->msg : "no message");
        }
    }
}

/* Releases the next round without waiting (the test process does its part meanwhile). */
static inline void race_pool_release(race_pool *p)
{
    p->rounds++;
    atomic_store(&race_c->round, p->rounds);
}

/* 1 once every worker has finished the rounds released so far; fails the test if one failed. */
static inline int race_pool_finished(race_pool *p)
{
    if (atomic_load(&race_c->failed))
        test_fail(__FILE__, __LINE__, "worker failed: %s", race_c->msg);
    return atomic_load(&race_c->done) >= (p->n_procs + p->n_threads) * p->rounds;
}

/* Waits until every worker has finished the rounds released so far. */
static inline void race_pool_wait(race_pool *p)
{
    for (long i = 0; !race_pool_finished(p); i++) {
        if (i < RACE_SPIN) {
            sched_yield();
        } else {
            race_sleep_us(20);
            if (i % 512 == 0)
                race_pool_check_children(p);
        }
    }
}

/* Runs one round on every worker and waits for all of them. */
static inline void race_pool_round(race_pool *p)
{
    race_pool_release(p);
    race_pool_wait(p);
}

/* Stops the workers, joins the threads and reaps the processes (each must exit 0). */
static inline void race_pool_stop(race_pool *p)
{
    atomic_store(&race_c->stop, 1);
    for (int i = 0; i < p->n_threads; i++)
        pthread_join(p->th[i], NULL);
    for (int i = 0; i < p->n_procs; i++) {
        if (!p->pid[i])
            continue;
        int st = 0;
        ASSERT_EQ(waitpid(p->pid[i], &st, 0), p->pid[i]);
        p->pid[i] = 0;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            test_fail(__FILE__, __LINE__, "worker process %d: status 0x%x: %s", i, st,
                      atomic_load(&race_c->failed) ? race_c->msg : "no message");
    }
    if (atomic_load(&race_c->failed))
        test_fail(__FILE__, __LINE__, "worker failed: %s", race_c->msg);
}

/* ------------------------------------------------------------------------ */
/* Lockstep between two processes                                            */
/* ------------------------------------------------------------------------ */

/* Waits for step n (set by the other side). */
static inline void race_step_wait(int n)
{
    race_wait_at_least(&race_c->step, n);
}
static inline void race_step_set(int n)
{
    atomic_store(&race_c->step, n);
}

/* Rounds for the current mode: a few in `make test`, many in `make test-long`. */
static inline int race_rounds(int short_n, int long_n)
{
    return test_long() ? long_n : short_n;
}

#endif
