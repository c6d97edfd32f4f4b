/*
 * Runner for tests registered with TEST(): each test runs in its own child
 * process with a timeout (CASSETTE_TEST_TIMEOUT seconds, default 120).
 * Arguments, if any, are substrings; only tests whose names contain one run.
 */
#include "harness.h"

#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 2048

static struct {
    const char *name;
    test_fn fn;
} tests[MAX_TESTS];
static int n_tests;
static uint64_t seed;
static char tmpdir[256];
static void remove_tree(const char *path);
static void (*end_fns[8])(void);
static int n_end_fns;

void test_at_end(void (*fn)(void))
{
    for (int i = 0; i < n_end_fns; i++)
        if (end_fns[i] == fn)
            return;
    if (n_end_fns < 8)
        end_fns[n_end_fns++] = fn;
}

/* The end of a test in its child: the hooks, then the temporary directory. */
static void test_end(void)
{
    while (n_end_fns > 0)
        end_fns[--n_end_fns]();
    if (tmpdir[0])
        remove_tree(tmpdir);
}

int test_remote(void)
{
    const char *v = getenv("CASSETTE_TEST_REMOTE");
    return v && *v && strcmp(v, "0") != 0;
}

void test_register(const char *name, test_fn fn)
{
    if (n_tests < MAX_TESTS) {
        tests[n_tests].name = name;
        tests[n_tests].fn = fn;
        n_tests++;
    }
}

uint64_t test_seed(void) { return seed; }

int64_t test_utc_s(int year, int month, int day, int hour, int minute, int second)
{
    struct tm tm = {0};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    return (int64_t)timegm(&tm);
}

uint64_t test_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

const char *test_tmpdir(void)
{
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/cassette-test-XXXXXX", base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return tmpdir;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stdout, "FAIL - %s:%d: %s (seed=%" PRIu64 ")\n", file, line, msg, seed);
    fflush(stdout);
    test_end();
    _exit(1);
}

/* The exit status of a skipped test's child. */
#define SKIP_STATUS 77

void test_skip(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stdout, "# skipped: %s\n", msg);
    fflush(stdout);
    test_end();
    _exit(SKIP_STATUS);
}

static int selected(const char *name, int argc, char **argv)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i]))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *s = getenv("CASSETTE_SEED");
    seed = s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    const char *t = getenv("CASSETTE_TEST_TIMEOUT");
    int timeout = t ? atoi(t) : 120;
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    /* the remote run's names: "[remote] NAME", the suite "NAME[remote]" (no space: tests/run.sh
       reads "SUITE: N passed, N failed") */
    const char *mode = test_remote() ? "[remote] " : "";
    char suite[256];
    snprintf(suite, sizeof suite, "%s%s", base, test_remote() ? "[remote]" : "");
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < n_tests; i++) {
        if (!selected(tests[i].name, argc, argv))
            continue;
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            alarm((unsigned)timeout);
            tests[i].fn();
            test_end();
            fflush(stdout);
            exit(0); /* not _exit: LeakSanitizer checks at exit */
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            printf("ok - %s%s\n", mode, tests[i].name);
            passed++;
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_STATUS) {
            printf("skip - %s%s\n", mode, tests[i].name);
            skipped++;
        } else {
            if (WIFSIGNALED(status))
                printf("FAIL - %s%s: killed by signal %d%s (seed=%" PRIu64 ")\n", mode,
                       tests[i].name, WTERMSIG(status),
                       WTERMSIG(status) == SIGALRM ? " (timeout)" : "", seed);
            else
                printf("FAIL - %s%s\n", mode, tests[i].name);
            failed++;
        }
    }
    if (skipped)
        printf("%s: %d passed, %d failed, %d skipped\n", suite, passed, failed, skipped);
    else
        printf("%s: %d passed, %d failed\n", suite, passed, failed);
    return failed ? 1 : 0;
}

int test_long(void)
{
    const char *v = getenv("CASSETTE_LONG");
    return v && *v && strcmp(v, "0") != 0;
}
