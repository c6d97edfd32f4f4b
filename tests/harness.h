/*
 * A small test harness: TEST(name) { ... } registers a test; the runner in
 * harness.c forks a child per test with a timeout, so a crash or a hang is
 * one FAIL and the rest still run. Output is one line per test
 * ("ok - name" / "FAIL - name: file:line: ...") and one summary line per
 * program ("<suite>: N passed, N failed"); tests/run.sh adds them up.
 *
 * Randomized tests take their seed from test_seed(): CASSETTE_SEED=n
 * replays a run, and the seed in use is printed on failure.
 */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* Ends the test as skipped, saying why (a facility the machine lacks: mounts, root). */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Seed for this test (CASSETTE_SEED or time-derived), printed if the test fails. */
uint64_t test_seed(void);
/* xorshift64* over a caller-held state */
uint64_t test_rand(uint64_t *state);
/* Seconds since the epoch of a UTC date and time (month and day from 1). */
int64_t test_utc_s(int year, int month, int day, int hour, int minute, int second);
/* 1 in the long mode (CASSETTE_LONG=1, `make test-long`): crash loops and races run their
   full counts instead of the few rounds `make test` affords. */
int test_long(void);
/* A fresh empty directory for this test (removed when the test ends). */
const char *test_tmpdir(void);
/* 1 in the remote mode (CASSETTE_TEST_REMOTE=1, the second run of the driver tests in
   `make test`): tests/driver/remote_harness.c serves their databases by `cassette serve`,
   and the runner names the tests "[remote] NAME". */
int test_remote(void);
/* Runs fn when the test ends: passed, failed or skipped (not when it crashes). At most 8. */
void test_at_end(void (*fn)(void));

#define TEST(name)                                                                        \
    static void name(void);                                                               \
    __attribute__((constructor)) static void register_##name(void)                        \
    {                                                                                     \
        test_register(#name, name);                                                       \
    }                                                                                     \
    static void name(void)

#define ASSERT(expr)                                                                      \
    do {                                                                                  \
        if (!(expr))                                                                      \
            test_fail(__FILE__, __LINE__, "%s", #expr);                                   \
    } while (0)

#define ASSERT_EQ(a, b)                                                                   \
    do {                                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);                               \
        if (a_ != b_)                                                                     \
            test_fail(__FILE__, __LINE__, "%s == %s (got %lld, want %lld)", #a, #b, a_, b_); \
    } while (0)

#define ASSERT_NE(a, b)                                                                   \
    do {                                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);                               \
        if (a_ == b_)                                                                     \
            test_fail(__FILE__, __LINE__, "%s != %s (both %lld)", #a, #b, a_);            \
    } while (0)

#define ASSERT_STR_EQ(a, b)                                                               \
    do {                                                                                  \
        const char *a_ = (a), *b_ = (b);                                                  \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                            \
            test_fail(__FILE__, __LINE__, "%s == %s (got \"%s\", want \"%s\")", #a, #b,     \
                      a_ ? a_ : "(null)", b_ ? b_ : "(null)");                            \
    } while (0)

#define ASSERT_MEM_EQ(a, b, n)                                                            \
    do {                                                                                  \
        if (memcmp((a), (b), (n)) != 0)                                                   \
            test_fail(__FILE__, __LINE__, "memcmp(%s, %s, %s) != 0", #a, #b, #n);         \
    } while (0)

/* For engine calls that take an eng_err: prints code and message on failure. */
#define ASSERT_OK_ERR(call, errp)                                                         \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_ != 0)                                                                     \
            test_fail(__FILE__, __LINE__, "%s failed: 0x%x %s", #call, rc_, (errp)->msg); \
    } while (0)

#endif
