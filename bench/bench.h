/*
 * What the benchmarks in bench/ share, in one copy: the clocks, the timed
 * run of an operation over a range of positions, the median of rounds and
 * the ratio of two rates, the measuring of two sides in rounds that
 * alternate which side runs first, the error exits, the run's temporary
 * directory and the options every benchmark takes, and for the programs that
 * measure peers a span of operations timed one by one on threads, a figure's
 * summary over rounds, the machine's description and a `cassette serve` child to
 * measure against. The workload, the
 * checks and the report stay in each program.
 *
 * Static inline functions in a header rather than a bench.c linked into
 * every program: each benchmark stays one translation unit, so the compiler
 * sees the timed loop and the operations it calls together, as it did when
 * every program had its own copy, and a figure measured before this header
 * still compares with one measured after it.
 *
 * A program defines BENCH_NAME, its name and the prefix of its error
 * messages, before including this header, and defines `struct bench`, the
 * state one side's operations run on, after it. <cassandra.h> comes along
 * for the driver error exits: it is plain C and costs the programs that do
 * not use the driver nothing.
 */
#ifndef CASSETTE_BENCH_H
#define CASSETTE_BENCH_H

#ifndef BENCH_NAME
#error "define BENCH_NAME (the program's name) before including bench/bench.h"
#endif

#include <assert.h>
#include <cassandra.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The most rounds a figure may have: the medians keep a copy on the stack. */
#define BENCH_MAX_ROUNDS 16

/* ---- failures: the only non-zero exits ---- */

/* Prints "BENCH_NAME: <message>" on stderr and exits with status 1. */
__attribute__((format(printf, 1, 2), noreturn)) static inline void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, BENCH_NAME ": ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

__attribute__((noreturn)) static inline void bench_die_nomem(void)
{
    bench_die("out of memory");
}

/* A read returned the wrong number of rows, or two sides applied different counts. */
__attribute__((noreturn)) static inline void bench_die_rows(const char *what, long got, long want)
{
    bench_die("%s returned %ld rows, expected %ld", what, got, want);
}

__attribute__((noreturn)) static inline void bench_die_cass(const char *what, CassError rc)
{
    bench_die("driver error in %s: %s", what, cass_error_desc(rc));
}

/* A driver future that failed: its code and the message the driver gave. */
__attribute__((noreturn)) static inline void bench_die_future(const char *what, CassFuture *f)
{
    const char *msg;
    size_t len;
    cass_future_error_message(f, &msg, &len);
    bench_die("driver error in %s: %s: %.*s", what, cass_error_desc(cass_future_error_code(f)),
              (int)len, msg);
}

/* ---- clocks ---- */

static inline double bench_clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall time: monotonic, so no clock adjustment lands in a figure. */
static inline double bench_now_s(void)
{
    return bench_clock_s(CLOCK_MONOTONIC);
}

/* CPU time of the whole process, every thread included (a committer thread too). */
static inline double bench_cpu_s(void)
{
    return bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

/* ---- statistics ---- */

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * The median of n rounds. It sorts a copy, so the rounds can still be
 * printed in the order they ran.
 */
static inline double bench_median(const double *v, int n)
{
    double s[BENCH_MAX_ROUNDS];
    assert(n > 0 && n <= BENCH_MAX_ROUNDS);
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, bench_cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* x / y, or 0 when y has nothing to divide by (a side too fast or too slow to time). */
static inline double bench_ratio(double x, double y)
{
    return y > 0 ? x / y : 0;
}

/* ---- timed runs: op(b, i) runs operation number i of a workload ---- */

typedef struct bench bench; /* each program's own: the state one side runs on */
typedef void (*bench_op)(bench *b, long i);

/* Runs operations [lo, hi) and returns their rate in operations per second. */
static inline double bench_run(bench_op op, bench *b, long lo, long hi)
{
    double t0 = bench_now_s();
    for (long i = lo; i < hi; i++)
        op(b, i);
    double dt = bench_now_s() - t0;
    return dt > 0 ? (double)(hi - lo) / dt : 0;
}

/* One operation measured on two sides: the first side is the one compared. */
typedef struct bench_figure {
    const char *name;
    long per_round; /* timed operations per round and side */
    double a, b;    /* median rate of the first and of the second side, ops/s */
    double lo, hi;  /* lowest and highest ratio a/b of one round */
} bench_figure;

/*
 * Warms both sides up on positions [0, warm), then times `rounds` rounds of
 * per_round positions each, both sides on the same positions. The side
 * that goes first alternates, because this 2-core machine is shared with
 * builds: a burst of noise then falls on both sides, not on one.
 */
static inline void bench_measure(bench_figure *out, int rounds, bench_op a_op, bench *a,
                                 bench_op b_op, bench *b, long warm, long per_round)
{
    double ar[BENCH_MAX_ROUNDS], br[BENCH_MAX_ROUNDS];
    assert(rounds > 0 && rounds <= BENCH_MAX_ROUNDS);
    bench_run(a_op, a, 0, warm);
    bench_run(b_op, b, 0, warm);
    out->lo = 1e9;
    out->hi = 0;
    for (int k = 0; k < rounds; k++) {
        long lo = warm + k * per_round, hi = lo + per_round;
        if (k % 2 == 0) {
            ar[k] = bench_run(a_op, a, lo, hi);
            br[k] = bench_run(b_op, b, lo, hi);
        } else {
            br[k] = bench_run(b_op, b, lo, hi);
            ar[k] = bench_run(a_op, a, lo, hi);
        }
        double ratio = bench_ratio(ar[k], br[k]);
        out->lo = ratio < out->lo ? ratio : out->lo;
        out->hi = ratio > out->hi ? ratio : out->hi;
    }
    out->per_round = per_round;
    out->a = bench_median(ar, rounds);
    out->b = bench_median(br, rounds);
}

/* ---- the run's directory, removed with all it holds at exit ---- */

/* Shorter than PATH_MAX, so that a name below it ("/engine-none/data.mdb") fits. */
static char bench_root[PATH_MAX - 64];

static inline int bench_remove_entry(const char *path, const struct stat *st, int flag,
                                     struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static inline void bench_remove_root(void)
{
    if (bench_root[0])
        nftw(bench_root, bench_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Creates base/prefix-XXXXXX for this run, to be removed at exit; returns its path. */
static inline const char *bench_make_root(const char *base, const char *prefix)
{
    snprintf(bench_root, sizeof bench_root, "%s/%s-XXXXXX", base, prefix);
    if (!mkdtemp(bench_root))
        bench_die("cannot create a directory under %s: %s", base, strerror(errno));
    atexit(bench_remove_root);
    return bench_root;
}

/* out = the run's directory / name. */
static inline void bench_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", bench_root, name);
}

/*
 * The file system a path is on, for the report: a sync costs nothing on
 * tmpfs, so the programs that time syncs say so in `tmpfs`.
 */
static inline const char *bench_fs_name(const char *path, const char *tmpfs)
{
    struct statfs s;
    if (!path || statfs(path, &s))
        return "file system unknown";
    switch ((unsigned long)s.f_type) {
    case 0x01021994UL:
        return tmpfs;
    case 0xEF53UL:
        return "ext4";
    case 0x58465342UL:
        return "xfs";
    case 0x9123683EUL:
        return "btrfs";
    case 0x794C7630UL:
        return "overlayfs";
    default:
        return "file system other than tmpfs";
    }
}

/* ---- the command line ---- */

typedef struct bench_args {
    int quick;          /* --quick came after any number option */
    const char *number; /* the number option's argument, when it came after any --quick */
    const char *base;   /* --dir D, else $TMPDIR, else /tmp: where the run's directory goes */
} bench_args;

/*
 * Reads the options the benchmarks take: --quick, one option with a number
 * (number_opt: "--ops", "--seconds") and, when with_dir, --dir D. The last
 * of --quick and the number option wins. Anything else calls usage, which
 * exits.
 */
static inline void bench_parse_args(int argc, char **argv, const char *number_opt, int with_dir,
                                    void (*usage)(void), bench_args *out)
{
    const char *tmp = getenv("TMPDIR");
    out->quick = 0;
    out->number = NULL;
    out->base = tmp && *tmp ? tmp : "/tmp";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            out->quick = 1;
            out->number = NULL;
        } else if (strcmp(argv[i], number_opt) == 0 && i + 1 < argc) {
            out->quick = 0;
            out->number = argv[++i];
        } else if (with_dir && strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            out->base = argv[++i];
        } else {
            usage();
        }
    }
}

/*
 * Starts `cassette serve --memory --port 0` (durability NONE) and reads the port it prints:
 * the server the native-protocol benchmarks drive. Stop it with SIGTERM and waitpid.
 */
static inline pid_t bench_start_server(const char *cassette, int *port)
{
    int out[2];
    if (pipe(out))
        bench_die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        setenv("CASSETTE_DURABILITY", "none", 1);
        execl(cassette, cassette, "serve", "--memory", "--port", "0", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[256] = "";
    FILE *f = fdopen(out[0], "r");
    if (!f || !fgets(line, sizeof line, f))
        bench_die("%s serve did not start", cassette);
    const char *colon = strrchr(strstr(line, "listening on ") ? line : "", ':');
    if (!colon || sscanf(colon + 1, "%d", port) != 1)
        bench_die("unexpected first line from the server: %s", line);
    return pid;
}

/* ---- figures over rounds, the machine, a server to measure against ---- */

/* One system's figure: the rate of each round, their median and spread, and the latency
   percentiles of every timed operation (µs). */
typedef struct bench_result {
    double rate[BENCH_MAX_ROUNDS];
    double med, lo, hi, p50, p99;
} bench_result;

static inline int bench_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The value at quantile q of n sorted values. */
static inline double bench_percentile(const float *v, long n, double q)
{
    long i = (long)(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

/* Fills med, lo, hi from r->rate (rounds of them) and p50, p99 from the n latencies in lat,
   which it sorts. */
static inline void bench_summarise(bench_result *r, float *lat, long n, int rounds)
{
    r->med = bench_median(r->rate, rounds);
    r->lo = r->hi = r->rate[0];
    for (int k = 1; k < rounds; k++) {
        r->lo = r->rate[k] < r->lo ? r->rate[k] : r->lo;
        r->hi = r->rate[k] > r->hi ? r->rate[k] : r->hi;
    }
    qsort(lat, (size_t)n, sizeof *lat, bench_cmp_float);
    r->p50 = bench_percentile(lat, n, 0.50);
    r->p99 = bench_percentile(lat, n, 0.99);
}

/* "2 CPUs, <model>, Linux <release>, 24 GiB RAM": the machine a report describes. */
static inline void bench_machine(char *out, size_t n)
{
    char model[128] = "CPU model unknown", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = 0;
            break;
        }
    if (f)
        fclose(f);
    struct utsname u;
    if (uname(&u))
        snprintf(u.release, sizeof u.release, "?");
    double gib = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / (1 << 30);
    snprintf(out, n, "%ld CPUs, %s, Linux %s, %.0f GiB RAM", sysconf(_SC_NPROCESSORS_ONLN), model,
             u.release, gib);
}

/*
 * Starts `cassette serve DIR --port 0` with CASSETTE_DURABILITY set to durability, and
 * reads the port it listens on from its first line. The child's pid (stop it with SIGTERM
 * and waitpid); exits the program if the server does not start.
 */
static inline pid_t bench_serve_start(const char *cassette, const char *dir,
                                      const char *durability, int *port)
{
    int out[2];
    if (pipe(out))
        bench_die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        setenv("CASSETTE_DURABILITY", durability, 1);
        execl(cassette, cassette, "serve", dir, "--port", "0", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[256] = "";
    FILE *f = fdopen(out[0], "r");
    if (!f || !fgets(line, sizeof line, f))
        bench_die("%s serve did not start", cassette);
    fclose(f);
    const char *colon = strstr(line, "listening on ") ? strrchr(line, ':') : NULL;
    if (!colon || sscanf(colon + 1, "%d", port) != 1)
        bench_die("unexpected first line from the server: %s", line);
    return pid;
}

/* ---- a span of operations on threads, each timed alone ---- */

#define BENCH_MAX_THREADS 64

/*
 * What a span runs: op on each position, timed alone, then check on it, untimed. A thread's
 * scratch (the answer its operations fill, say) comes from start and goes to end; start and
 * end may be NULL.
 */
typedef struct bench_span {
    void *ctx;
    void *(*start)(void *ctx);
    void (*op)(void *ctx, int thread, long i, void *scratch);
    void (*check)(void *ctx, long i, void *scratch);
    void (*end)(void *ctx, void *scratch);
} bench_span;

/* One thread's share of a span (bench_run_span). */
typedef struct bench_span_thread {
    const bench_span *span;
    int thread, threads;
    long lo, hi;
    float *lat;
    double busy;
} bench_span_thread;

static inline void *bench_span_run_thread(void *arg)
{
    bench_span_thread *t = arg;
    const bench_span *s = t->span;
    void *scratch = s->start ? s->start(s->ctx) : NULL;
    double busy = 0;
    for (long i = t->lo + t->thread; i < t->hi; i += t->threads) {
        double t0 = bench_now_s();
        s->op(s->ctx, t->thread, i, scratch);
        double dt = bench_now_s() - t0;
        busy += dt;
        if (t->lat)
            t->lat[i - t->lo] = (float)(dt * 1e6);
        s->check(s->ctx, i, scratch);
    }
    t->busy = busy;
    if (s->end)
        s->end(s->ctx, scratch);
    return NULL;
}

/*
 * Runs positions [lo, hi) dealt round robin to `threads` threads (on the calling thread when
 * there is one); lat (may be NULL) gets position i's time in microseconds at [i - lo].
 * Returns the rate: each thread's operations over its busy time, summed over the threads.
 */
static inline double bench_run_span(const bench_span *s, int threads, long lo, long hi,
                                    float *lat)
{
    bench_span_thread ts[BENCH_MAX_THREADS];
    pthread_t tid[BENCH_MAX_THREADS];
    if (threads < 1 || threads > BENCH_MAX_THREADS)
        bench_die("%d threads: 1 to %d", threads, BENCH_MAX_THREADS);
    for (int t = 0; t < threads; t++) {
        ts[t] = (bench_span_thread){s, t, threads, lo, hi, lat, 0};
        if (threads > 1 && pthread_create(&tid[t], NULL, bench_span_run_thread, &ts[t]))
            bench_die("cannot start a thread");
    }
    if (threads == 1)
        bench_span_run_thread(&ts[0]);
    double rate = 0;
    for (int t = 0; t < threads; t++) {
        if (threads > 1)
            pthread_join(tid[t], NULL);
        long ops = (hi - lo - t + threads - 1) / threads;
        rate += ts[t].busy > 0 ? (double)ops / ts[t].busy : 0;
    }
    return rate;
}

#endif
