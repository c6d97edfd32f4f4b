/*
 * UUIDs: minTimeuuid/maxTimeuuid vectors and the timestamp mapping of facts
 * §3.3, the v1 generator's uniqueness and monotonicity (facts §9) within one
 * microsecond and across threads, version and variant bits, and text
 * conversion.
 */
#include <pthread.h>

#include "harness.h"
#include "engine/value/uuid.h"

static void check_fmt(const uint8_t u[16], const char *want)
{
    char s[37];
    eng_uuid_format(u, s);
    ASSERT_STR_EQ(s, want);
}

TEST(test_min_max_timeuuid_match_facts_vectors)
{
    static const struct {
        int64_t ms;
        const char *min, *max;
    } v[] = {
        {0, "13814000-1dd2-11b2-8080-808080808080", "1381670f-1dd2-11b2-7f7f-7f7f7f7f7f7f"},
        {1356998700000LL, "e23f1e00-53a6-11e2-8080-808080808080",
         "e23f450f-53a6-11e2-7f7f-7f7f7f7f7f7f"},
        {1609459200123LL, "4a8b04b0-4bc4-11eb-8080-808080808080",
         "4a8b2bbf-4bc4-11eb-7f7f-7f7f7f7f7f7f"},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++) {
        uint8_t u[16];
        eng_timeuuid_min(v[i].ms, u);
        check_fmt(u, v[i].min);
        ASSERT_EQ(eng_timeuuid_unix_ms(u), v[i].ms);
        eng_timeuuid_max(v[i].ms, u);
        check_fmt(u, v[i].max);
        ASSERT_EQ(eng_timeuuid_unix_ms(u), v[i].ms);
    }
}

TEST(test_timeuuid_ticks_follow_cassandra_epoch)
{
    uint8_t u[16];
    eng_timeuuid_min(0, u);
    /* START_EPOCH = -12219292800000 ms, 10000 ticks per ms (facts §3.3). */
    ASSERT(eng_timeuuid_ticks(u) == 12219292800000ULL * 10000);
    eng_timeuuid_max(0, u);
    ASSERT(eng_timeuuid_ticks(u) == 12219292800000ULL * 10000 + 9999);
}

TEST(test_timeuuid_ms_and_us_extraction_divide_ticks)
{
    uint64_t lsb = 0x8000000000000001ULL;
    uint64_t base = 12219292800000ULL * 10000;
    uint8_t u[16];
    /* 1.2345678 s after the epoch: ms truncates to 1234, us to 1234567. */
    eng_uuid_from_ticks(base + 12345678, lsb, u);
    ASSERT_EQ(eng_timeuuid_unix_ms(u), 1234);
    ASSERT_EQ(eng_timeuuid_unix_us(u), 1234567);
    ASSERT_EQ(eng_uuid_version(u), 1);
    /* Before the Unix epoch: ticks / 10000 + START_EPOCH with integer division of ticks. */
    eng_uuid_from_ticks(base - 1, lsb, u);
    ASSERT_EQ(eng_timeuuid_unix_ms(u), -1);
    ASSERT_EQ(eng_timeuuid_unix_us(u), -1);
    eng_uuid_from_ticks(base - 10000, lsb, u);
    ASSERT_EQ(eng_timeuuid_unix_ms(u), -1);
    eng_uuid_from_ticks(base - 10001, lsb, u);
    ASSERT_EQ(eng_timeuuid_unix_ms(u), -2);
}

TEST(test_uuid_from_ticks_uses_v1_layout)
{
    uint8_t u[16];
    eng_uuid_from_ticks(0x0123456789abcdefULL, 0x8123456789abcdefULL, u);
    check_fmt(u, "89abcdef-4567-1123-8123-456789abcdef");
    ASSERT(eng_timeuuid_ticks(u) == 0x0123456789abcdefULL);
}

TEST(test_uuidgen_next_strictly_increasing_in_one_microsecond)
{
    eng_uuidgen g;
    eng_uuidgen_init_with(&g, 0x0123456789abULL, 0x1234);
    const int n = 100000;
    int64_t now_us = 1609459200123456LL;
    uint64_t prev = 0;
    uint8_t u[16];
    for (int i = 0; i < n; i++) {
        eng_uuidgen_next(&g, now_us, u);
        uint64_t t = eng_timeuuid_ticks(u);
        if (i == 0)
            ASSERT(t == (uint64_t)now_us * 10 + 12219292800000ULL * 10000);
        else
            ASSERT(t == prev + 1);
        ASSERT_EQ(eng_uuid_version(u), 1);
        ASSERT_EQ(u[8] >> 6, 2); /* variant 10 */
        ASSERT_EQ(eng_be64(u + 8), 0x9234ULL << 48 | 0x0123456789abULL);
        prev = t;
    }
    /* The clock moving forward past the bumped ticks is used as is. */
    eng_uuidgen_next(&g, now_us + 1000000, u);
    ASSERT_EQ(eng_timeuuid_unix_us(u), now_us + 1000000);
    /* The clock going back never goes back in the UUIDs. */
    eng_uuidgen_next(&g, now_us, u);
    ASSERT_EQ(eng_timeuuid_unix_us(u), now_us + 1000000);
    ASSERT(eng_timeuuid_ticks(u) ==
           (uint64_t)(now_us + 1000000) * 10 + 12219292800000ULL * 10000 + 1);
}

TEST(test_uuidgen_init_draws_variant_10_lsb)
{
    eng_uuidgen g;
    eng_uuidgen_init(&g);
    uint8_t u[16];
    eng_uuidgen_next(&g, 1000000, u);
    ASSERT_EQ(eng_uuid_version(u), 1);
    ASSERT_EQ(u[8] >> 6, 2);
    ASSERT(eng_be64(u + 8) == g.lsb);
    ASSERT_EQ(eng_timeuuid_unix_us(u), 1000000);
}

#define THREADS 4
#define PER_THREAD 50000

typedef struct {
    eng_uuidgen *g;
    uint64_t ticks[PER_THREAD];
    int ok;
} gen_job;

static void *gen_thread(void *arg)
{
    gen_job *j = arg;
    uint8_t u[16];
    j->ok = 1;
    for (int i = 0; i < PER_THREAD; i++) {
        eng_uuidgen_next(j->g, 1700000000000000LL + i / 1000, u);
        j->ticks[i] = eng_timeuuid_ticks(u);
        if (i > 0 && j->ticks[i] <= j->ticks[i - 1])
            j->ok = 0;
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

TEST(test_uuidgen_unique_across_threads_and_increasing_per_thread)
{
    eng_uuidgen g;
    eng_uuidgen_init_with(&g, 1, 1);
    static gen_job jobs[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i].g = &g;
        ASSERT_EQ(pthread_create(&th[i], NULL, gen_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    uint64_t *all = malloc(sizeof(uint64_t) * THREADS * PER_THREAD);
    ASSERT(all != NULL);
    for (int i = 0; i < THREADS; i++) {
        ASSERT(jobs[i].ok);
        memcpy(all + i * PER_THREAD, jobs[i].ticks, sizeof jobs[i].ticks);
    }
    /* Same lsb everywhere, so unique ticks <=> unique UUIDs. */
    qsort(all, THREADS * PER_THREAD, sizeof(uint64_t), cmp_u64);
    for (int i = 1; i < THREADS * PER_THREAD; i++)
        ASSERT(all[i] != all[i - 1]);
    free(all);
}

TEST(test_uuid_random_is_version_4_variant_10)
{
    uint8_t a[16], b[16];
    eng_uuid_random(a);
    eng_uuid_random(b);
    ASSERT_EQ(eng_uuid_version(a), 4);
    ASSERT_EQ(a[8] >> 6, 2);
    ASSERT(memcmp(a, b, 16) != 0);
}

TEST(test_uuid_parse_format_round_trip)
{
    const char *s = "4327529f-b645-dd00-b883-ec39ae448bb8";
    uint8_t u[16];
    ASSERT_EQ(eng_uuid_parse(s, strlen(s), u), 0);
    ASSERT_EQ(u[0], 0x43);
    ASSERT_EQ(u[15], 0xb8);
    ASSERT_EQ(eng_uuid_version(u), 0xd);
    check_fmt(u, s);
    /* Case-insensitive input, lowercase output. */
    const char *up = "4327529F-B645-DD00-B883-EC39AE448BB8";
    uint8_t v[16];
    ASSERT_EQ(eng_uuid_parse(up, strlen(up), v), 0);
    ASSERT_MEM_EQ(u, v, 16);
    /* Parsing needs no NUL after the 36 characters. */
    char buf[40];
    memcpy(buf, s, 36);
    memcpy(buf + 36, "xyz", 3);
    ASSERT_EQ(eng_uuid_parse(buf, 36, v), 0);
    ASSERT_MEM_EQ(u, v, 16);

    uint64_t st = test_seed();
    for (int i = 0; i < 1000; i++) {
        uint8_t r[16], back[16];
        char txt[37];
        for (int j = 0; j < 16; j++)
            r[j] = (uint8_t)test_rand(&st);
        eng_uuid_format(r, txt);
        ASSERT_EQ(strlen(txt), 36);
        ASSERT_EQ(eng_uuid_parse(txt, 36, back), 0);
        ASSERT_MEM_EQ(r, back, 16);
    }
}

TEST(test_uuid_parse_rejects_malformed_strings)
{
    static const char *bad[] = {
        "",
        "4327529f-b645-dd00-b883-ec39ae448bb",   /* 35 chars */
        "4327529f-b645-dd00-b883-ec39ae448bb8a", /* 37 chars */
        "4327529fxb645-dd00-b883-ec39ae448bb8",  /* hyphen replaced */
        "4327529f-b645-dd00-b883-ec39ae448bg8",  /* non-hex */
        "4327529f-b645-dd00-b883ec39ae448bb8-",  /* hyphen misplaced */
        "4327529fb645dd00b883ec39ae448bb80000",  /* no hyphens */
        "{327529f-b645-dd00-b883-ec39ae448bb8",
        " 327529f-b645-dd00-b883-ec39ae448bb8",
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(bad); i++) {
        uint8_t u[16];
        ASSERT_EQ(eng_uuid_parse(bad[i], strlen(bad[i]), u), -1);
    }
    /* An embedded NUL inside the 36 characters. */
    char nul[36];
    memcpy(nul, "4327529f-b645-dd00-b883-ec39ae448bb8", 36);
    nul[20] = 0;
    uint8_t u[16];
    ASSERT_EQ(eng_uuid_parse(nul, 36, u), -1);
}
