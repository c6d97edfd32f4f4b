/*
 * The driver API's helpers, as an application sees them through <cassandra.h>
 * alone: UUID generators and conversions, inet addresses, dates and times,
 * error descriptions and names, the log, the allocator hook, and the error
 * result of a failed request.
 *
 * Every expectation is the real driver's (DataStax C/C++ driver 2.17:
 * uuids.cpp, external.cpp with libuv's inet_pton/inet_ntop, logger.cpp,
 * memory.cpp, error_response.cpp and the header's CASS_*_MAPPING tables) or
 * Cassandra's where the value goes through CQL (timeuuid order and
 * minTimeuuid/maxTimeuuid, facts §3.1 and §3.3; date and time, facts §2).
 * Where cassette deliberately follows Cassandra rather than the driver
 * (cass_uuid_max_from_time, dates before 1970), the test says so.
 */
#include <cassandra.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "driver_test.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* 100-ns ticks from 1582-10-15 to the Unix epoch (the driver's TIME_OFFSET_BETWEEN_UTC_AND_EPOCH).
 */
#define UUID_EPOCH_TICKS 0x01B21DD213814000ULL
#define TICKS_MASK 0x0FFFFFFFFFFFFFFFULL
#define VERSION_1 0x1000000000000000ULL
#define DATE_EPOCH 2147483648U /* 1970-01-01 as a CQL date (2^31) */

/* Executes a statement (freed here); the caller frees the future. */
static CassFuture *exec(CassSession *s, CassStatement *st)
{
    CassFuture *f = cass_session_execute(s, st);
    cass_statement_free(st);
    return f;
}

/* Executes a statement (freed here) that must succeed; returns its result (the caller frees it). */
#define EXEC_TAKE(s, st) exec_take_ok(__FILE__, __LINE__, (s), (st))

static const CassResult *exec_take_ok(const char *file, int line, CassSession *s, CassStatement *st)
{
    CassFuture *f = exec(s, st);
    future_ok(file, line, f);
    const CassResult *r = cass_future_get_result(f);
    cass_future_free(f);
    if (!r)
        test_fail(file, line, "no result");
    return r;
}

static const CassValue *first_col(const CassResult *r, size_t col)
{
    const CassRow *row = cass_result_first_row(r);
    ASSERT(row);
    const CassValue *v = cass_row_get_column(row, col);
    ASSERT(v);
    return v;
}

/* Copies a text value into buf as a C string. */
static const char *text_of(const CassValue *v, char *buf, size_t cap)
{
    const char *s;
    size_t n;
    ASSERT_EQ(cass_value_get_string(v, &s, &n), CASS_OK);
    snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

static uint64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int uuid_eq(CassUuid a, CassUuid b)
{
    return a.time_and_version == b.time_and_version && a.clock_seq_and_node == b.clock_seq_and_node;
}

/* The 60-bit timestamp of a time UUID. */
static uint64_t ticks_of(CassUuid u)
{
    return u.time_and_version & TICKS_MASK;
}

/* A version-1 UUID with the given tick count and low half. */
static CassUuid v1_at(uint64_t ticks, uint64_t clock_seq_and_node)
{
    CassUuid u;
    u.time_and_version = VERSION_1 | (ticks & TICKS_MASK);
    u.clock_seq_and_node = clock_seq_and_node;
    return u;
}

static int cmp_uuid(const void *pa, const void *pb)
{
    const CassUuid *a = pa, *b = pb;
    if (ticks_of(*a) != ticks_of(*b))
        return ticks_of(*a) < ticks_of(*b) ? -1 : 1;
    if (a->clock_seq_and_node != b->clock_seq_and_node)
        return a->clock_seq_and_node < b->clock_seq_and_node ? -1 : 1;
    return 0;
}

/* The RFC 4122 variant: the top two bits of the clock sequence are 10. */
static int rfc4122_variant(CassUuid u)
{
    return (u.clock_seq_and_node >> 62) == 2;
}

/* ------------------------------------------------------------------------ */
/* UUID generators                                                           */
/* ------------------------------------------------------------------------ */

/* uuids.cpp generate_time: version 1, the generator's fixed clock sequence and node, a timestamp
   that is the current time and strictly increases from call to call. */
TEST(uuid_gen_time_is_version_1_and_strictly_increasing)
{
    CassUuidGen *gen = cass_uuid_gen_new();
    ASSERT(gen);
    enum { N = 20000 };
    CassUuid prev;
    uint64_t before = wall_ms();
    cass_uuid_gen_time(gen, &prev);
    uint64_t after = wall_ms();
    ASSERT_EQ(cass_uuid_version(prev), 1);
    ASSERT(rfc4122_variant(prev));
    ASSERT(cass_uuid_timestamp(prev) >= before && cass_uuid_timestamp(prev) <= after);
    for (int i = 1; i < N; i++) {
        CassUuid u;
        cass_uuid_gen_time(gen, &u);
        ASSERT_EQ(cass_uuid_version(u), 1);
        ASSERT(ticks_of(u) > ticks_of(prev));
        ASSERT(u.clock_seq_and_node == prev.clock_seq_and_node);
        prev = u;
    }
    /* Bumping past the last tick may run ahead of the clock by at most one tick per call. */
    ASSERT(cass_uuid_timestamp(prev) <= wall_ms() + N / 10000 + 1);
    cass_uuid_gen_free(gen);
}

/* uuids.cpp UuidGen(): the node is a hash, not a MAC address, so the multicast bit is set. */
TEST(uuid_gen_new_node_carries_the_multicast_bit)
{
    CassUuidGen *gen = cass_uuid_gen_new();
    CassUuid u;
    cass_uuid_gen_time(gen, &u);
    ASSERT(u.clock_seq_and_node & 0x010000000000ULL);
    ASSERT(rfc4122_variant(u));
    cass_uuid_gen_free(gen);
}

/* uuids.cpp UuidGen(node): the node's low 48 bits are the UUID's last 12 hex digits, for time
   UUIDs and for UUIDs from a given time alike; higher bits are dropped. */
TEST(uuid_gen_new_with_node_puts_the_node_in_the_uuid)
{
    CassUuidGen *gen = cass_uuid_gen_new_with_node(0xFFFF123456789ABCULL);
    ASSERT(gen);
    CassUuid u, t;
    cass_uuid_gen_time(gen, &u);
    ASSERT_EQ(cass_uuid_version(u), 1);
    ASSERT(rfc4122_variant(u));
    ASSERT((u.clock_seq_and_node & 0xFFFFFFFFFFFFULL) == 0x123456789ABCULL);
    char s[CASS_UUID_STRING_LENGTH];
    cass_uuid_string(u, s);
    ASSERT_EQ(strlen(s), 36);
    ASSERT_STR_EQ(s + 24, "123456789abc");
    /* the clock sequence (bits 48-61) is the generator's own, shared by from_time */
    cass_uuid_gen_from_time(gen, 1700000000123ULL, &t);
    ASSERT(t.clock_seq_and_node == u.clock_seq_and_node);
    cass_uuid_gen_free(gen);

    /* 1970-01-01 from a known node: time_low 13814000, time_mid 1dd2, version 1 + time_hi 1b2 */
    gen = cass_uuid_gen_new_with_node(0x010203040506ULL);
    cass_uuid_gen_from_time(gen, 0, &t);
    cass_uuid_string(t, s);
    ASSERT(strncmp(s, "13814000-1dd2-11b2-", 19) == 0);
    ASSERT(strchr("89ab", s[19]));
    ASSERT_STR_EQ(s + 23, "-010203040506");
    cass_uuid_gen_free(gen);
}

typedef struct gen_thread {
    CassUuidGen *gen;
    CassUuid *out;
    int n;
} gen_thread;

static void *gen_many(void *arg)
{
    gen_thread *t = arg;
    for (int i = 0; i < t->n; i++)
        cass_uuid_gen_time(t->gen, &t->out[i]);
    return NULL;
}

/* uuids.cpp monotonic_timestamp: one generator shared by threads (compare-and-swap on the last
   timestamp) never hands out the same UUID twice, and each thread sees its own UUIDs increase. */
TEST(uuid_gen_time_shared_by_four_threads_is_unique_and_increasing_per_thread)
{
    enum { THREADS = 4, N = 25000 };
    CassUuidGen *gen = cass_uuid_gen_new();
    CassUuid *all = calloc(THREADS * N, sizeof *all);
    ASSERT(all);
    pthread_t tid[THREADS];
    gen_thread t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        t[i] = (gen_thread){gen, all + i * N, N};
        ASSERT_EQ(pthread_create(&tid[i], NULL, gen_many, &t[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < THREADS; i++)
        for (int j = 1; j < N; j++)
            ASSERT(ticks_of(t[i].out[j]) > ticks_of(t[i].out[j - 1]));
    qsort(all, THREADS * N, sizeof *all, cmp_uuid);
    for (int i = 1; i < THREADS * N; i++) {
        ASSERT_EQ(cass_uuid_version(all[i]), 1);
        ASSERT(cmp_uuid(&all[i - 1], &all[i]) < 0);
    }
    free(all);
    cass_uuid_gen_free(gen);
}

/* uuids.cpp generate_random: version 4 and the RFC 4122 variant; 122 random bits. */
TEST(uuid_gen_random_is_version_4_with_rfc4122_variant)
{
    enum { N = 2000 };
    CassUuidGen *gen = cass_uuid_gen_new();
    CassUuid u[N];
    for (int i = 0; i < N; i++) {
        cass_uuid_gen_random(gen, &u[i]);
        ASSERT_EQ(cass_uuid_version(u[i]), 4);
        ASSERT(rfc4122_variant(u[i]));
        char s[CASS_UUID_STRING_LENGTH];
        cass_uuid_string(u[i], s);
        ASSERT_EQ(s[14], '4');
        ASSERT(strchr("89ab", s[19]));
    }
    qsort(u, N, sizeof u[0], cmp_uuid);
    for (int i = 1; i < N; i++)
        ASSERT(!uuid_eq(u[i - 1], u[i]));
    /* cassandra.h: cass_uuid_timestamp gives 0 for a UUID that is not version 1 */
    ASSERT_EQ(cass_uuid_timestamp(u[0]), 0);
    cass_uuid_gen_free(gen);
}

/* uuids.cpp from_time / cass_uuid_timestamp: the first tick of the millisecond, version 1, and
   the millisecond back again. */
TEST(uuid_gen_from_time_round_trips_through_cass_uuid_timestamp)
{
    CassUuidGen *gen = cass_uuid_gen_new();
    const uint64_t ms[] = {0,
                           1,
                           999,
                           1700000000123ULL,
                           1795272735790ULL,
                           100000000000000ULL /* year 5138, near the end of 60-bit time */};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        CassUuid u;
        cass_uuid_gen_from_time(gen, ms[i], &u);
        ASSERT_EQ(cass_uuid_version(u), 1);
        ASSERT(rfc4122_variant(u));
        ASSERT(ticks_of(u) == ms[i] * 10000u + UUID_EPOCH_TICKS);
        ASSERT_EQ(cass_uuid_timestamp(u), ms[i]);
    }
    cass_uuid_gen_free(gen);
}

/* ------------------------------------------------------------------------ */
/* minTimeuuid / maxTimeuuid                                                 */
/* ------------------------------------------------------------------------ */

#define T_MS 1700000000123ULL

/* uuids.cpp min/max: version 1 with the low halves 0x8080... and 0x7f7f... (the least and
   greatest in Cassandra's signed-byte order, facts §3.1). min is the first tick of the
   millisecond, as the driver and Cassandra's minTimeuuid; max is the last tick, as Cassandra's
   maxTimeuuid (facts §3.3) - the driver uses the first tick there, which would leave every
   later UUID of the same millisecond above its "maximum". */
TEST(uuid_min_and_max_from_time_are_cassandras_bounds)
{
    CassUuid lo, hi;
    cass_uuid_min_from_time(T_MS, &lo);
    cass_uuid_max_from_time(T_MS, &hi);
    ASSERT(lo.time_and_version == (VERSION_1 | (T_MS * 10000u + UUID_EPOCH_TICKS)));
    ASSERT(lo.clock_seq_and_node == 0x8080808080808080ULL);
    ASSERT(hi.time_and_version == (VERSION_1 | (T_MS * 10000u + UUID_EPOCH_TICKS + 9999u)));
    ASSERT(hi.clock_seq_and_node == 0x7F7F7F7F7F7F7F7FULL);
    ASSERT_EQ(cass_uuid_timestamp(lo), T_MS);
    ASSERT_EQ(cass_uuid_timestamp(hi), T_MS);
    char s[CASS_UUID_STRING_LENGTH];
    cass_uuid_string(lo, s);
    ASSERT_STR_EQ(s, "04c284b0-833b-11ee-8080-808080808080");
}

/* Rows whose clustering timeuuids select as Cassandra orders them (facts §3.1). */
static int select_uuids(CassSession *s, const char *q, const CassUuid *bind, size_t n_bind,
                        CassUuid *out, int cap)
{
    CassStatement *st = cass_statement_new(q, n_bind);
    for (size_t i = 0; i < n_bind; i++)
        ASSERT_EQ(cass_statement_bind_uuid(st, i, bind[i]), CASS_OK);
    const CassResult *r = EXEC_TAKE(s, st);
    CassIterator *it = cass_iterator_from_result(r);
    int n = 0;
    while (cass_iterator_next(it)) {
        ASSERT(n < cap);
        const CassValue *v = cass_row_get_column(cass_iterator_get_row(it), 0);
        ASSERT_EQ(cass_value_get_uuid(v, &out[n]), CASS_OK);
        n++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    return n;
}

/* The driver's bounds select the same time UUIDs as Cassandra's minTimeuuid / maxTimeuuid: a
   millisecond's first and last ticks are inside [min, max], its neighbours outside. */
TEST(uuid_min_and_max_from_time_bound_the_millisecond_as_cassandra)
{
    conn a;
    MEMORY_CONNECT(&a);
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.tu (k int, c timeuuid, PRIMARY KEY (k, c))");
    CassUuidGen *gen = cass_uuid_gen_new_with_node(0x0A0B0C0D0E0FULL);
    CassUuid first, next, u;
    cass_uuid_gen_from_time(gen, T_MS, &first);
    cass_uuid_gen_from_time(gen, T_MS + 1, &next);
    uint64_t lsb = first.clock_seq_and_node;
    CassUuid rows[4] = {
        v1_at(ticks_of(first) - 1, lsb),    /* last tick of T_MS - 1 */
        first,                              /* first tick of T_MS */
        v1_at(ticks_of(first) + 9999, lsb), /* last tick of T_MS */
        next,                               /* first tick of T_MS + 1 */
    };
    for (int i = 0; i < 4; i++) {
        CassStatement *st = cass_statement_new("INSERT INTO ks.tu (k, c) VALUES (0, ?)", 1);
        ASSERT_EQ(cass_statement_bind_uuid(st, 0, rows[i]), CASS_OK);
        CassFuture *f = exec(a.session, st);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
    }
    CassUuid b[2], got[8];
    cass_uuid_min_from_time(T_MS, &b[0]);
    cass_uuid_max_from_time(T_MS, &b[1]);

    int n = select_uuids(a.session, "SELECT c FROM ks.tu WHERE k = 0 AND c >= ? AND c <= ?", b, 2,
                         got, 8);
    ASSERT_EQ(n, 2);
    ASSERT(uuid_eq(got[0], rows[1]) && uuid_eq(got[1], rows[2]));
    n = select_uuids(a.session,
                     "SELECT c FROM ks.tu WHERE k = 0 AND c >= minTimeuuid(1700000000123) AND "
                     "c <= maxTimeuuid(1700000000123)",
                     NULL, 0, got, 8);
    ASSERT_EQ(n, 2);
    ASSERT(uuid_eq(got[0], rows[1]) && uuid_eq(got[1], rows[2]));
    n = select_uuids(a.session, "SELECT c FROM ks.tu WHERE k = 0 AND c > ?", &b[1], 1, got, 8);
    ASSERT_EQ(n, 1);
    ASSERT(uuid_eq(got[0], rows[3]));
    n = select_uuids(a.session, "SELECT c FROM ks.tu WHERE k = 0 AND c < ?", &b[0], 1, got, 8);
    ASSERT_EQ(n, 1);
    ASSERT(uuid_eq(got[0], rows[0]));

    /* The bounds themselves, stored, equal Cassandra's under its comparator. */
    for (int i = 0; i < 2; i++) {
        CassStatement *st = cass_statement_new("INSERT INTO ks.tu (k, c) VALUES (1, ?)", 1);
        ASSERT_EQ(cass_statement_bind_uuid(st, 0, b[i]), CASS_OK);
        CassFuture *f = exec(a.session, st);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
    }
    n = select_uuids(a.session,
                     "SELECT c FROM ks.tu WHERE k = 1 AND c > minTimeuuid(1700000000123) AND "
                     "c < maxTimeuuid(1700000000123)",
                     NULL, 0, got, 8);
    ASSERT_EQ(n, 0);
    n = select_uuids(a.session,
                     "SELECT c FROM ks.tu WHERE k = 1 AND c >= minTimeuuid(1700000000123) AND "
                     "c <= maxTimeuuid(1700000000123)",
                     NULL, 0, got, 8);
    ASSERT_EQ(n, 2);
    ASSERT(uuid_eq(got[0], b[0]) && uuid_eq(got[1], b[1]));

    /* and a UUID generated now lies within its own millisecond's bounds */
    cass_uuid_gen_time(gen, &u);
    CassUuid lo, hi;
    cass_uuid_min_from_time(cass_uuid_timestamp(u), &lo);
    cass_uuid_max_from_time(cass_uuid_timestamp(u), &hi);
    ASSERT(ticks_of(lo) <= ticks_of(u) && ticks_of(u) <= ticks_of(hi));
    cass_uuid_gen_free(gen);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* UUID text                                                                 */
/* ------------------------------------------------------------------------ */

/* uuids.cpp cass_uuid_string / cass_uuid_from_string_n and serialization.hpp decode_uuid: the
   first 8 bytes as time_low, time_mid, time_hi_and_version; lowercase text; either case read. */
TEST(uuid_string_round_trips_and_accepts_upper_case)
{
    CassUuid u, w;
    ASSERT_EQ(cass_uuid_from_string("550e8400-e29b-41d4-a716-446655440000", &u), CASS_OK);
    ASSERT(u.time_and_version == 0x41D4E29B550E8400ULL);
    ASSERT(u.clock_seq_and_node == 0xA716446655440000ULL);
    ASSERT_EQ(cass_uuid_version(u), 4);
    char s[CASS_UUID_STRING_LENGTH];
    cass_uuid_string(u, s);
    ASSERT_STR_EQ(s, "550e8400-e29b-41d4-a716-446655440000");
    ASSERT_EQ(cass_uuid_from_string("550E8400-E29B-41D4-A716-446655440000", &w), CASS_OK);
    ASSERT(uuid_eq(u, w));
    /* _n reads exactly the length given */
    const char *longer = "04c284b0-833b-11ee-8080-808080808080 and more";
    ASSERT_EQ(cass_uuid_from_string_n(longer, 36, &w), CASS_OK);
    CassUuid lo;
    cass_uuid_min_from_time(T_MS, &lo);
    ASSERT(uuid_eq(w, lo));
    ASSERT_EQ(cass_uuid_version(w), 1);
    /* every generated UUID prints and parses back to itself */
    CassUuidGen *gen = cass_uuid_gen_new();
    for (int i = 0; i < 100; i++) {
        if (i % 2)
            cass_uuid_gen_time(gen, &u);
        else
            cass_uuid_gen_random(gen, &u);
        cass_uuid_string(u, s);
        ASSERT_EQ(strlen(s), CASS_UUID_STRING_LENGTH - 1);
        ASSERT_EQ(cass_uuid_from_string(s, &w), CASS_OK);
        ASSERT(uuid_eq(u, w));
    }
    cass_uuid_gen_free(gen);
}

/* uuids.cpp cass_uuid_from_string_n: CASS_ERROR_LIB_BAD_PARAMS unless 36 characters of hex
   digits and hyphens; NULL text is bad parameters too. */
TEST(uuid_from_invalid_string_is_bad_params)
{
    CassUuid u;
    const char *bad[] = {
        "",
        "550e8400-e29b-41d4-a716-44665544000",   /* 35 characters */
        "550e8400-e29b-41d4-a716-4466554400000", /* 37 */
        "550e8400e29b41d4a716446655440000",      /* no hyphens: 32 */
        "550e8400-e29b-41d4-a716-44665544000g",  /* not hex */
        "550e8400-e29b-41d4-a716-44665544 000",
        "{550e8400-e29b-41d4-a716-4466554400}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ASSERT_EQ(cass_uuid_from_string(bad[i], &u), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_uuid_from_string(NULL, &u), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_uuid_from_string_n("550e8400-e29b-41d4-a716-446655440000", 35, &u),
              CASS_ERROR_LIB_BAD_PARAMS);
}

/* ------------------------------------------------------------------------ */
/* Time UUIDs through CQL                                                    */
/* ------------------------------------------------------------------------ */

/* A generated time UUID is stored and read back bit for bit; rows keyed by successive
   gen_time UUIDs come back in generation order (timeuuid order is time first, facts §3.1),
   whatever order they were written in. */
TEST(time_uuids_read_back_equal_and_in_generation_order)
{
    enum { N = 300 };
    conn a;
    MEMORY_CONNECT(&a);
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.ev (k int, c timeuuid, v int, u uuid, PRIMARY KEY (k, c))");
    CassUuidGen *gen = cass_uuid_gen_new();
    CassUuid ids[N], rnd;
    for (int i = 0; i < N; i++)
        cass_uuid_gen_time(gen, &ids[i]);
    cass_uuid_gen_random(gen, &rnd);
    uint64_t seed = test_seed();
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)(test_rand(&seed) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < N; i++) {
        CassStatement *st =
            cass_statement_new("INSERT INTO ks.ev (k, c, v, u) VALUES (0, ?, ?, ?)", 3);
        ASSERT_EQ(cass_statement_bind_uuid(st, 0, ids[order[i]]), CASS_OK);
        ASSERT_EQ(cass_statement_bind_int32(st, 1, order[i]), CASS_OK);
        ASSERT_EQ(cass_statement_bind_uuid(st, 2, rnd), CASS_OK);
        CassFuture *f = exec(a.session, st);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
    }
    const CassResult *r =
        EXEC_TAKE(a.session, cass_statement_new("SELECT c, v, u, toUnixTimestamp(c) FROM ks.ev "
                                            "WHERE k = 0",
                                            0));
    ASSERT_EQ(cass_result_row_count(r), N);
    CassIterator *it = cass_iterator_from_result(r);
    for (int i = 0; i < N; i++) {
        ASSERT(cass_iterator_next(it));
        const CassRow *row = cass_iterator_get_row(it);
        CassUuid c, u;
        cass_int32_t v;
        cass_int64_t ms;
        ASSERT_EQ(cass_value_get_uuid(cass_row_get_column(row, 0), &c), CASS_OK);
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 1), &v), CASS_OK);
        ASSERT_EQ(cass_value_get_uuid(cass_row_get_column(row, 2), &u), CASS_OK);
        ASSERT_EQ(cass_value_get_int64(cass_row_get_column(row, 3), &ms), CASS_OK);
        ASSERT_EQ(v, i);
        ASSERT(uuid_eq(c, ids[i]));
        ASSERT(uuid_eq(u, rnd));
        /* Cassandra's toUnixTimestamp and the driver's cass_uuid_timestamp agree */
        ASSERT_EQ(ms, (cass_int64_t)cass_uuid_timestamp(ids[i]));
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    cass_result_free(r);

    /* Cassandra refuses a version-4 UUID for a timeuuid (facts §2: "Invalid version for
       TimeUUID type."). */
    CassStatement *st = cass_statement_new("INSERT INTO ks.ev (k, c, v) VALUES (1, ?, 0)", 1);
    ASSERT_EQ(cass_statement_bind_uuid(st, 0, rnd), CASS_OK);
    CassFuture *f = exec(a.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    cass_future_free(f);
    cass_uuid_gen_free(gen);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Inet                                                                      */
/* ------------------------------------------------------------------------ */

/* external.cpp cass_inet_init_v4 / _v6: the length and the bytes as given. */
TEST(inet_init_v4_and_v6_keep_length_and_bytes)
{
    const cass_uint8_t v4[4] = {192, 168, 1, 20};
    const cass_uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0,    0,    0,
                                 0,    0,    0xff, 0,    0, 0x42, 0x83, 0x29};
    CassInet a = cass_inet_init_v4(v4);
    ASSERT_EQ(a.address_length, CASS_INET_V4_LENGTH);
    ASSERT_EQ(CASS_INET_V4_LENGTH, 4);
    ASSERT_MEM_EQ(a.address, v4, 4);
    CassInet b = cass_inet_init_v6(v6);
    ASSERT_EQ(b.address_length, CASS_INET_V6_LENGTH);
    ASSERT_EQ(CASS_INET_V6_LENGTH, 16);
    ASSERT_MEM_EQ(b.address, v6, 16);
    char s[CASS_INET_STRING_LENGTH];
    cass_inet_string(a, s);
    ASSERT_STR_EQ(s, "192.168.1.20");
    cass_inet_string(b, s);
    ASSERT_STR_EQ(s, "2001:db8::ff00:42:8329");
}

/* external.cpp cass_inet_from_string: libuv's inet_pton, IPv4 first, then IPv6 (full,
   compressed, with an embedded IPv4, with a scope that is dropped); anything else, and text
   longer than CASS_INET_STRING_LENGTH - 1 for the _n form, is CASS_ERROR_LIB_BAD_PARAMS. */
TEST(inet_from_string_parses_v4_and_v6_and_refuses_the_rest)
{
    CassInet in;
    ASSERT_EQ(cass_inet_from_string("127.0.0.1", &in), CASS_OK);
    ASSERT_EQ(in.address_length, 4);
    ASSERT_MEM_EQ(in.address, "\x7f\x00\x00\x01", 4);
    ASSERT_EQ(cass_inet_from_string("255.255.255.255", &in), CASS_OK);
    ASSERT_MEM_EQ(in.address, "\xff\xff\xff\xff", 4);

    const cass_uint8_t want[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0,    0,    0,
                                   0,    0,    0xff, 0,    0, 0x42, 0x83, 0x29};
    ASSERT_EQ(cass_inet_from_string("2001:0db8:0000:0000:0000:ff00:0042:8329", &in), CASS_OK);
    ASSERT_EQ(in.address_length, 16);
    ASSERT_MEM_EQ(in.address, want, 16);
    ASSERT_EQ(cass_inet_from_string("2001:DB8::FF00:42:8329", &in), CASS_OK);
    ASSERT_EQ(in.address_length, 16);
    ASSERT_MEM_EQ(in.address, want, 16);
    ASSERT_EQ(cass_inet_from_string("::1", &in), CASS_OK);
    ASSERT_EQ(in.address_length, 16);
    ASSERT_MEM_EQ(in.address, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
    ASSERT_EQ(cass_inet_from_string("::", &in), CASS_OK);
    ASSERT_EQ(in.address_length, 16);
    ASSERT_MEM_EQ(in.address, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    ASSERT_EQ(cass_inet_from_string("::ffff:192.168.1.1", &in), CASS_OK);
    ASSERT_EQ(in.address_length, 16);
    ASSERT_MEM_EQ(in.address, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\xa8\x01\x01", 16);
    /* libuv's inet_pton drops an IPv6 scope */
    ASSERT_EQ(cass_inet_from_string("fe80::1%eth0", &in), CASS_OK);
    ASSERT_EQ(in.address_length, 16);
    ASSERT_MEM_EQ(in.address, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);

    const char *bad[] = {"",          "localhost", "256.1.1.1",         "1.2.3",
                         "1.2.3.4.5", "01.2.3.4",  " 1.2.3.4",          "1.2.3.4%eth0",
                         "1::2::3",   "12345::1",  "1:2:3:4:5:6:7:8:9", ":1",
                         "g::1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ASSERT_EQ(cass_inet_from_string(bad[i], &in), CASS_ERROR_LIB_BAD_PARAMS);

    /* _n: exactly the length given, at most 45 characters */
    ASSERT_EQ(cass_inet_from_string_n("10.0.0.255junk", 10, &in), CASS_OK);
    ASSERT_EQ(in.address_length, 4);
    ASSERT_MEM_EQ(in.address, "\x0a\x00\x00\xff", 4);
    ASSERT_EQ(cass_inet_from_string_n("10.0.0.255junk", 14, &in), CASS_ERROR_LIB_BAD_PARAMS);
    char longest[64];
    memset(longest, 0, sizeof longest);
    strcpy(longest, "0000:0000:0000:0000:0000:ffff:255.255.255.255"); /* 45 characters */
    ASSERT_EQ(strlen(longest), CASS_INET_STRING_LENGTH - 1);
    ASSERT_EQ(cass_inet_from_string_n(longest, 45, &in), CASS_OK);
    ASSERT_EQ(in.address_length, 16);
    strcpy(longest, "0000:0000:0000:0000:0000:ffff:255.255.255.255 ");
    ASSERT_EQ(cass_inet_from_string_n(longest, 46, &in), CASS_ERROR_LIB_BAD_PARAMS);
}

static const char *inet_text(const char *in, char *out)
{
    CassInet inet;
    ASSERT_EQ(cass_inet_from_string(in, &inet), CASS_OK);
    cass_inet_string(inet, out);
    return out;
}

/* external.cpp cass_inet_string: libuv's inet_ntop (BIND's rules): lowercase hex without leading
   zeros, the first longest run of two or more zero groups as "::", dotted IPv4 at the end of an
   IPv4-compatible or IPv4-mapped address. */
TEST(inet_string_formats_as_libuv_inet_ntop)
{
    char s[CASS_INET_STRING_LENGTH];
    ASSERT_STR_EQ(inet_text("10.0.0.1", s), "10.0.0.1");
    ASSERT_STR_EQ(inet_text("0.0.0.0", s), "0.0.0.0");
    ASSERT_STR_EQ(inet_text("2001:0DB8:0000:0000:0000:FF00:0042:8329", s),
                  "2001:db8::ff00:42:8329");
    ASSERT_STR_EQ(inet_text("0:0:0:0:0:0:0:1", s), "::1");
    ASSERT_STR_EQ(inet_text("0:0:0:0:0:0:0:0", s), "::");
    ASSERT_STR_EQ(inet_text("1:0:0:0:0:0:0:0", s), "1::");
    ASSERT_STR_EQ(inet_text("1:0:0:1:0:0:0:1", s), "1:0:0:1::1");      /* longest run */
    ASSERT_STR_EQ(inet_text("1:0:0:1:1:0:0:1", s), "1::1:1:0:0:1");    /* first of equal runs */
    ASSERT_STR_EQ(inet_text("1:0:1:1:1:1:1:1", s), "1:0:1:1:1:1:1:1"); /* one zero group stays */
    ASSERT_STR_EQ(inet_text("::ffff:c0a8:0101", s), "::ffff:192.168.1.1"); /* IPv4-mapped */
    ASSERT_STR_EQ(inet_text("::0102:0304", s), "::1.2.3.4");               /* IPv4-compatible */
    ASSERT_STR_EQ(inet_text("fe80::1%eth0", s), "fe80::1");
    /* a length other than 4 is printed as IPv6 */
    CassInet odd;
    memset(&odd, 0, sizeof odd);
    odd.address_length = 8;
    odd.address[15] = 2;
    cass_inet_string(odd, s);
    ASSERT_STR_EQ(s, "::2");
}

/* An inet column stores the 4 or 16 bytes the driver binds (facts §2), and Cassandra's text of
   an address reads back as the same bytes. */
TEST(inet_round_trips_through_an_inet_column)
{
    conn a;
    MEMORY_CONNECT(&a);
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.ip (k int PRIMARY KEY, a inet)");
    const char *addrs[] = {"192.168.1.20", "2001:db8::ff00:42:8329", "::1", "::ffff:10.1.2.3"};
    for (int i = 0; i < 4; i++) {
        CassInet in;
        ASSERT_EQ(cass_inet_from_string(addrs[i], &in), CASS_OK);
        CassStatement *st = cass_statement_new("INSERT INTO ks.ip (k, a) VALUES (?, ?)", 2);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, i), CASS_OK);
        ASSERT_EQ(cass_statement_bind_inet(st, 1, in), CASS_OK);
        CassFuture *f = exec(a.session, st);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
        st = cass_statement_new("SELECT a FROM ks.ip WHERE k = ?", 1);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, i), CASS_OK);
        const CassResult *r = EXEC_TAKE(a.session, st);
        CassInet out;
        ASSERT_EQ(cass_value_get_inet(first_col(r, 0), &out), CASS_OK);
        ASSERT_EQ(out.address_length, in.address_length);
        ASSERT_MEM_EQ(out.address, in.address, in.address_length);
        char s[CASS_INET_STRING_LENGTH];
        cass_inet_string(out, s);
        ASSERT_STR_EQ(s, addrs[i]);
        cass_result_free(r);
    }
    /* CQL literals parse to the bytes the driver parses */
    RUN(a.session, "INSERT INTO ks.ip (k, a) VALUES (10, '10.20.30.40')");
    RUN(a.session, "INSERT INTO ks.ip (k, a) VALUES (11, '2001:DB8:0:0:0:0:0:1')");
    const char *want[] = {"10.20.30.40", "2001:db8::1"};
    for (int i = 0; i < 2; i++) {
        CassStatement *st = cass_statement_new("SELECT a FROM ks.ip WHERE k = ?", 1);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, 10 + i), CASS_OK);
        const CassResult *r = EXEC_TAKE(a.session, st);
        CassInet out, exp;
        ASSERT_EQ(cass_value_get_inet(first_col(r, 0), &out), CASS_OK);
        ASSERT_EQ(cass_inet_from_string(want[i], &exp), CASS_OK);
        ASSERT_EQ(out.address_length, exp.address_length);
        ASSERT_MEM_EQ(out.address, exp.address, exp.address_length);
        cass_result_free(r);
    }
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Dates and times                                                           */
/* ------------------------------------------------------------------------ */

/* external.cpp: date = seconds / 86400 + 2^31, time = (seconds % 86400) * 10^9,
   date_time_to_epoch = (date - 2^31) * 86400 + time / 10^9. */
TEST(date_and_time_from_epoch_follow_the_driver_formulas)
{
    ASSERT_EQ(cass_date_from_epoch(0), DATE_EPOCH);
    ASSERT_EQ(cass_date_from_epoch(86399), DATE_EPOCH);
    ASSERT_EQ(cass_date_from_epoch(86400), DATE_EPOCH + 1);
    ASSERT_EQ(cass_date_from_epoch(1609459200), 0x800048C4u); /* 2021-01-01, facts §2 */
    ASSERT_EQ(cass_date_from_epoch(1609459200 + 86399), 0x800048C4u);
    ASSERT_EQ(cass_time_from_epoch(0), 0);
    ASSERT_EQ(cass_time_from_epoch(3661), 3661000000000LL);
    ASSERT_EQ(cass_time_from_epoch(86400 + 5), 5000000000LL);
    ASSERT_EQ(cass_time_from_epoch(1609459200 + 86399), 86399000000000LL);
    ASSERT_EQ(cass_date_time_to_epoch(DATE_EPOCH, 0), 0);
    ASSERT_EQ(cass_date_time_to_epoch(0x800048C4u, 3661999999999LL), 1609459200 + 3661);
    ASSERT_EQ(cass_date_time_to_epoch(DATE_EPOCH - 1, 0), -86400);
    ASSERT_EQ(cass_date_time_to_epoch(0, 0), -2147483648LL * 86400);
    /* round trip for instants from 1970 on */
    const cass_int64_t t[] = {0, 1, 86399, 86400, 951782400 + 43200, 1795272735, 4102444799LL};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        ASSERT_EQ(cass_date_time_to_epoch(cass_date_from_epoch(t[i]), cass_time_from_epoch(t[i])),
                  t[i]);
}

/* Before 1970, the date is the day the instant falls on, as Cassandra's toDate gives it, and the
   time lies in 0..86399999999999 as a CQL time must (the driver's truncating division gives the
   next day and a negative time); the pair still converts back to the instant. */
TEST(date_and_time_before_1970_are_the_day_the_instant_falls_on)
{
    ASSERT_EQ(cass_date_from_epoch(-1), DATE_EPOCH - 1);
    ASSERT_EQ(cass_time_from_epoch(-1), 86399000000000LL);
    ASSERT_EQ(cass_date_from_epoch(-86400), DATE_EPOCH - 1);
    ASSERT_EQ(cass_time_from_epoch(-86400), 0);
    ASSERT_EQ(cass_date_from_epoch(-86401), DATE_EPOCH - 2);
    const cass_int64_t t[] = {-1, -86399, -86400, -86401, -2208988800LL, -12219292800LL};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        ASSERT_EQ(cass_date_time_to_epoch(cass_date_from_epoch(t[i]), cass_time_from_epoch(t[i])),
                  t[i]);
}

/* The driver's date and time values mean, in Cassandra, the day and time of day of the instant:
   CAST to text, toDate of the same instant as a timestamp, and toUnixTimestamp of the date. */
TEST(date_and_time_from_epoch_agree_with_cassandra)
{
    conn a;
    MEMORY_CONNECT(&a);
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.dt (k int PRIMARY KEY, d date, tm time, ts timestamp)");
    static const struct {
        cass_int64_t secs;
        const char *date, *time;
    } cases[] = {
        {0, "1970-01-01", "00:00:00.000000000"},
        {86399, "1970-01-01", "23:59:59.000000000"},
        {1609459200 + 3661, "2021-01-01", "01:01:01.000000000"},
        {951782400 + 43200, "2000-02-29", "12:00:00.000000000"},
        {4102444799LL, "2099-12-31", "23:59:59.000000000"},
        {-1, "1969-12-31", "23:59:59.000000000"},
        {-2208988800LL + 60, "1900-01-01", "00:01:00.000000000"},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        cass_uint32_t d = cass_date_from_epoch(cases[i].secs);
        cass_int64_t tm = cass_time_from_epoch(cases[i].secs);
        CassStatement *st =
            cass_statement_new("INSERT INTO ks.dt (k, d, tm, ts) VALUES (?, ?, ?, ?)", 4);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, i), CASS_OK);
        ASSERT_EQ(cass_statement_bind_uint32(st, 1, d), CASS_OK);
        ASSERT_EQ(cass_statement_bind_int64(st, 2, tm), CASS_OK);
        ASSERT_EQ(cass_statement_bind_int64(st, 3, cases[i].secs * 1000), CASS_OK);
        CassFuture *f = exec(a.session, st);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);

        st = cass_statement_new("SELECT CAST(d AS text), CAST(tm AS text), toDate(ts), "
                                "toUnixTimestamp(d), d, tm FROM ks.dt WHERE k = ?",
                                1);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, i), CASS_OK);
        const CassResult *r = EXEC_TAKE(a.session, st);
        char buf[64];
        ASSERT_STR_EQ(text_of(first_col(r, 0), buf, sizeof buf), cases[i].date);
        ASSERT_STR_EQ(text_of(first_col(r, 1), buf, sizeof buf), cases[i].time);
        cass_uint32_t to_date, d_back;
        cass_int64_t unix_ms, tm_back;
        ASSERT_EQ(cass_value_get_uint32(first_col(r, 2), &to_date), CASS_OK);
        ASSERT_EQ(to_date, d);
        ASSERT_EQ(cass_value_get_int64(first_col(r, 3), &unix_ms), CASS_OK);
        ASSERT_EQ(unix_ms, cass_date_time_to_epoch(d, 0) * 1000);
        ASSERT_EQ(cass_value_get_uint32(first_col(r, 4), &d_back), CASS_OK);
        ASSERT_EQ(cass_value_get_int64(first_col(r, 5), &tm_back), CASS_OK);
        ASSERT_EQ(cass_date_time_to_epoch(d_back, tm_back), cases[i].secs);
        cass_result_free(r);
    }
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Names of codes and levels                                                 */
/* ------------------------------------------------------------------------ */

typedef struct err_entry {
    CassError code;
    unsigned source, number;
    const char *desc;
} err_entry;

#define ERR_ENTRY(source, name, number, desc) {name, source, number, desc},
static const err_entry every_error[] = {CASS_ERROR_MAPPING(ERR_ENTRY)};
#undef ERR_ENTRY

/* external.cpp cass_error_desc: the text of CASS_ERROR_MAPPING for each of the driver's 60 codes
   (source << 24 | number), "" for CASS_OK and for a code that is not listed. */
TEST(error_desc_describes_every_error_code)
{
    size_t n = sizeof every_error / sizeof every_error[0];
    ASSERT_EQ(n, 35 + 18 + 7);
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ(every_error[i].code, (every_error[i].source << 24) | every_error[i].number);
        ASSERT(every_error[i].desc[0] != '\0');
        ASSERT_STR_EQ(cass_error_desc(every_error[i].code), every_error[i].desc);
        for (size_t j = 0; j < i; j++)
            ASSERT_NE(every_error[i].code, every_error[j].code);
    }
    /* the driver's own texts, a sample from each source */
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_LIB_BAD_PARAMS), "Bad parameters");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_LIB_NO_HOSTS_AVAILABLE), "No hosts available");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_LIB_NAME_DOES_NOT_EXIST),
                  "No value or column for name");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_LIB_UNABLE_TO_DETERMINE_PROTOCOL),
                  "Unable to find supported protocol version");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID),
                  "Invalid execution profile specified");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_LIB_NO_TRACING_ID), "No tracing ID");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_SERVER_SERVER_ERROR), "Server error");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_SERVER_INVALID_QUERY), "Invalid query");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_SERVER_CONFIG_ERROR), "Configuration error");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_SERVER_UNPREPARED), "Unprepared");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_SSL_IDENTITY_MISMATCH),
                  "Certificate does not match host or IP address");
    ASSERT_STR_EQ(cass_error_desc(CASS_ERROR_SSL_CLOSED), "Connection closed");
    ASSERT_EQ(CASS_ERROR_LIB_BAD_PARAMS, 0x01000001);
    ASSERT_EQ(CASS_ERROR_SERVER_INVALID_QUERY, 0x02002200);
    ASSERT_EQ(CASS_ERROR_SERVER_SERVER_ERROR, 0x02000000);
    ASSERT_EQ(CASS_ERROR_SSL_CLOSED, 0x03000007);
    ASSERT_STR_EQ(cass_error_desc(CASS_OK), "");
    ASSERT_STR_EQ(cass_error_desc((CassError)CASS_ERROR(CASS_ERROR_SOURCE_LIB, 999)), "");
    ASSERT_STR_EQ(cass_error_desc((CassError)CASS_ERROR(CASS_ERROR_SOURCE_SERVER, 0x2600)), "");
}

/* external.cpp cass_consistency_string: CASS_CONSISTENCY_MAPPING, UNKNOWN included. */
TEST(consistency_string_names_every_level)
{
    static const struct {
        CassConsistency c;
        int value;
        const char *name;
    } levels[] = {
        {CASS_CONSISTENCY_UNKNOWN, 0xFFFF, "UNKNOWN"},
        {CASS_CONSISTENCY_ANY, 0, "ANY"},
        {CASS_CONSISTENCY_ONE, 1, "ONE"},
        {CASS_CONSISTENCY_TWO, 2, "TWO"},
        {CASS_CONSISTENCY_THREE, 3, "THREE"},
        {CASS_CONSISTENCY_QUORUM, 4, "QUORUM"},
        {CASS_CONSISTENCY_ALL, 5, "ALL"},
        {CASS_CONSISTENCY_LOCAL_QUORUM, 6, "LOCAL_QUORUM"},
        {CASS_CONSISTENCY_EACH_QUORUM, 7, "EACH_QUORUM"},
        {CASS_CONSISTENCY_SERIAL, 8, "SERIAL"},
        {CASS_CONSISTENCY_LOCAL_SERIAL, 9, "LOCAL_SERIAL"},
        {CASS_CONSISTENCY_LOCAL_ONE, 10, "LOCAL_ONE"},
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        ASSERT_EQ(levels[i].c, levels[i].value);
        ASSERT_STR_EQ(cass_consistency_string(levels[i].c), levels[i].name);
    }
    ASSERT_STR_EQ(cass_consistency_string((CassConsistency)11), "");
    ASSERT_STR_EQ(cass_consistency_string((CassConsistency)0x1234), "");
}

/* external.cpp cass_write_type_string: CASS_WRITE_TYPE_MAPPING, which has no UNKNOWN. */
TEST(write_type_string_names_every_write_type)
{
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_UNKNOWN), "");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_SIMPLE), "SIMPLE");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_BATCH), "BATCH");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_UNLOGGED_BATCH), "UNLOGGED_BATCH");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_COUNTER), "COUNTER");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_BATCH_LOG), "BATCH_LOG");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_CAS), "CAS");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_VIEW), "VIEW");
    ASSERT_STR_EQ(cass_write_type_string(CASS_WRITE_TYPE_CDC), "CDC");
    ASSERT_EQ(CASS_WRITE_TYPE_CDC, 8);
    ASSERT_STR_EQ(cass_write_type_string((CassWriteType)9), "");
}

/* external.cpp cass_log_level_string: CASS_LOG_LEVEL_MAPPING, "" for DISABLED. */
TEST(log_level_string_names_every_level)
{
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_DISABLED), "");
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_CRITICAL), "CRITICAL");
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_ERROR), "ERROR");
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_WARN), "WARN");
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_INFO), "INFO");
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_DEBUG), "DEBUG");
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_TRACE), "TRACE");
    ASSERT_EQ(CASS_LOG_DISABLED, 0);
    ASSERT_EQ(CASS_LOG_TRACE, 6);
    ASSERT_STR_EQ(cass_log_level_string(CASS_LOG_LAST_ENTRY), "");
}

/* ------------------------------------------------------------------------ */
/* The log                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct captured {
    int count;
    CassLogMessage last;
    char file[256], function[256];
    void *data;
} captured;

static void capture(const CassLogMessage *m, void *data)
{
    captured *c = data;
    c->count++;
    c->last = *m; /* the message lives only for the call: keep copies */
    snprintf(c->file, sizeof c->file, "%s", m->file ? m->file : "");
    snprintf(c->function, sizeof c->function, "%s", m->function ? m->function : "");
    c->data = data;
}

/* Something the driver logs at CASS_LOG_ERROR (cluster.cpp cass_cluster_set_protocol_version:
   a version below v3 is refused with LOG_ERROR). */
static void log_an_error(void)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_protocol_version(c, 2), CASS_ERROR_LIB_BAD_PARAMS);
    cass_cluster_free(c);
}

/* logger.hpp: a message reaches the callback when its severity is at or above the level set
   (CASS_LOG_WARN by default), with its time, severity, place and text filled, and the data given
   to cass_log_set_callback. */
/* The default prints to stderr; a NULL callback discards every message, as the driver's
   Logger::set_callback installs its no-op callback for NULL. */
TEST(log_null_callback_discards_messages)
{
    FILE *sink = tmpfile();
    ASSERT(sink != NULL);
    int saved = dup(2);
    ASSERT(saved >= 0 && dup2(fileno(sink), 2) == 2);
    log_an_error(); /* the default callback: one line on stderr */
    long with_default = lseek(2, 0, SEEK_END);
    cass_log_set_callback(NULL, NULL);
    log_an_error();
    long with_null = lseek(2, 0, SEEK_END);
    dup2(saved, 2);
    close(saved);
    fclose(sink);
    ASSERT(with_default > 0);
    ASSERT_EQ(with_null, with_default);
}

TEST(log_callback_receives_messages_at_or_above_the_level)
{
    captured c;
    memset(&c, 0, sizeof c);
    cass_log_set_callback(capture, &c);
    uint64_t before = wall_ms();
    log_an_error(); /* default level WARN lets ERROR through */
    uint64_t after = wall_ms();
    ASSERT_EQ(c.count, 1);
    ASSERT(c.data == &c);
    ASSERT_EQ(c.last.severity, CASS_LOG_ERROR);
    ASSERT(c.last.time_ms >= before && c.last.time_ms <= after);
    ASSERT(c.file[0] != '\0');
    ASSERT(c.function[0] != '\0');
    ASSERT(c.last.line > 0);
    ASSERT(memchr(c.last.message, '\0', sizeof c.last.message));
    ASSERT(strstr(c.last.message, "rotocol version"));

    const CassLogLevel passing[] = {CASS_LOG_ERROR, CASS_LOG_WARN, CASS_LOG_INFO, CASS_LOG_DEBUG,
                                    CASS_LOG_TRACE};
    for (size_t i = 0; i < sizeof passing / sizeof passing[0]; i++) {
        cass_log_set_level(passing[i]);
        c.count = 0;
        log_an_error();
        ASSERT_EQ(c.count, 1);
        ASSERT_EQ(c.last.severity, CASS_LOG_ERROR);
    }
}

/* logger.hpp: below the level nothing arrives; CASS_LOG_DISABLED silences everything. */
TEST(log_messages_below_the_level_do_not_arrive)
{
    captured c;
    memset(&c, 0, sizeof c);
    cass_log_set_callback(capture, &c);
    cass_log_set_level(CASS_LOG_CRITICAL);
    log_an_error();
    ASSERT_EQ(c.count, 0);
    cass_log_set_level(CASS_LOG_DISABLED);
    log_an_error();
    ASSERT_EQ(c.count, 0);
    cass_log_set_level(CASS_LOG_ERROR);
    log_an_error();
    ASSERT_EQ(c.count, 1);
}

/* A new callback replaces the old one, with its own data. */
TEST(log_callback_replaced_receives_later_messages)
{
    captured c1, c2;
    memset(&c1, 0, sizeof c1);
    memset(&c2, 0, sizeof c2);
    cass_log_set_level(CASS_LOG_ERROR);
    cass_log_set_callback(capture, &c1);
    log_an_error();
    cass_log_set_callback(capture, &c2);
    log_an_error();
    log_an_error();
    ASSERT_EQ(c1.count, 1);
    ASSERT_EQ(c2.count, 2);
    ASSERT(c2.data == &c2);
}

/* logger.cpp (2.17): cass_log_cleanup and cass_log_set_queue_size are deprecated no-ops, so the
   log keeps working after them. */
TEST(log_cleanup_leaves_the_log_working)
{
    captured c;
    memset(&c, 0, sizeof c);
    cass_log_set_level(CASS_LOG_ERROR);
    cass_log_set_callback(capture, &c);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cass_log_set_queue_size(1);
    cass_log_cleanup();
#pragma GCC diagnostic pop
    log_an_error();
    log_an_error();
    ASSERT_EQ(c.count, 2);
}

/* ------------------------------------------------------------------------ */
/* The allocator                                                             */
/* ------------------------------------------------------------------------ */

static _Atomic long n_malloc, n_realloc, n_free;

static void *count_malloc(size_t n)
{
    atomic_fetch_add(&n_malloc, 1);
    return malloc(n);
}

static void *count_realloc(void *p, size_t n)
{
    atomic_fetch_add(&n_realloc, 1);
    return realloc(p, n);
}

static void count_free(void *p)
{
    atomic_fetch_add(&n_free, 1);
    free(p);
}

/* Uses a session end to end: connect, create, write, read, close. */
static void use_a_session(void)
{
    conn a;
    MEMORY_CONNECT(&a);
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)");
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'one')");
    const CassResult *r = EXEC_TAKE(a.session, cass_statement_new("SELECT v FROM ks.kv", 0));
    char buf[16];
    ASSERT_STR_EQ(text_of(first_col(r, 0), buf, sizeof buf), "one");
    cass_result_free(r);
    conn_close(&a);
}

/* memory.cpp: the functions set replace the library's allocator. cassandra.h: set them before
   any other call (each test runs in its own process, so this one is the first). */
TEST(alloc_set_functions_routes_the_librarys_allocations)
{
    cass_alloc_set_functions(count_malloc, count_realloc, count_free);
    use_a_session();
    ASSERT(atomic_load(&n_malloc) > 0);
    ASSERT(atomic_load(&n_free) > 0);
}

/* memory.cpp Memory::set_functions: if any of the three is NULL, all three go back to the C
   library's. */
TEST(alloc_set_functions_with_a_null_restores_the_c_library)
{
    cass_alloc_set_functions(count_malloc, count_realloc, count_free);
    cass_alloc_set_functions(count_malloc, NULL, count_free);
    use_a_session();
    ASSERT_EQ(atomic_load(&n_malloc), 0);
    ASSERT_EQ(atomic_load(&n_realloc), 0);
    ASSERT_EQ(atomic_load(&n_free), 0);
}

/* ------------------------------------------------------------------------ */
/* Error results                                                             */
/* ------------------------------------------------------------------------ */

/* Runs q, which must fail with code; returns its error result. */
static const CassErrorResult *error_result_of(CassSession *s, const char *q, CassError code)
{
    CassFuture *f = exec(s, cass_statement_new(q, 0));
    ASSERT_EQ(cass_future_error_code(f), code);
    ASSERT(cass_future_get_result(f) == NULL);
    const CassErrorResult *e = cass_future_get_error_result(f);
    ASSERT(e);
    cass_future_free(f); /* the error result outlives its future */
    return e;
}

/* error_response.cpp: an error without replica details (invalid query, syntax error) has the
   server code and the defaults of ErrorResponse - CASS_CONSISTENCY_UNKNOWN, -1 responses and
   failures, no data, CASS_WRITE_TYPE_UNKNOWN - and no keyspace, table, function or argument
   types (CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE, 0 arguments). */
TEST(error_result_of_an_invalid_query_has_the_driver_defaults)
{
    conn a;
    MEMORY_CONNECT(&a);
    RUN(a.session, KS_CQL);
    const struct {
        const char *q;
        CassError code;
    } cases[] = {
        {"SELECT * FROM ks.nosuch", CASS_ERROR_SERVER_INVALID_QUERY},
        {"SELEKT 1", CASS_ERROR_SERVER_SYNTAX_ERROR},
    };
    for (int i = 0; i < 2; i++) {
        const CassErrorResult *e = error_result_of(a.session, cases[i].q, cases[i].code);
        ASSERT_EQ(cass_error_result_code(e), cases[i].code);
        ASSERT_EQ(cass_error_result_consistency(e), CASS_CONSISTENCY_UNKNOWN);
        ASSERT_EQ(cass_error_result_responses_received(e), -1);
        ASSERT_EQ(cass_error_result_responses_required(e), -1);
        ASSERT_EQ(cass_error_result_num_failures(e), -1);
        ASSERT_EQ(cass_error_result_data_present(e), cass_false);
        ASSERT_EQ(cass_error_result_write_type(e), CASS_WRITE_TYPE_UNKNOWN);
        const char *s = NULL;
        size_t n = 0;
        ASSERT_EQ(cass_error_result_keyspace(e, &s, &n), CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE);
        ASSERT_EQ(cass_error_result_table(e, &s, &n), CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE);
        ASSERT_EQ(cass_error_result_function(e, &s, &n), CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE);
        ASSERT_EQ(cass_error_num_arg_types(e), 0);
        ASSERT_EQ(cass_error_result_arg_type(e, 0, &s, &n),
                  CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE);
        cass_error_result_free(e);
    }
    conn_close(&a);
}

/* error_response.cpp: ALREADY_EXISTS carries keyspace and table (table "" for a keyspace), and
   nothing of a function; each cass_future_get_error_result is the caller's to free. */
TEST(error_result_of_already_exists_names_keyspace_and_table)
{
    conn a;
    MEMORY_CONNECT(&a);
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.kv (k int PRIMARY KEY)");
    const CassErrorResult *e = error_result_of(a.session, "CREATE TABLE ks.kv (k int PRIMARY KEY)",
                                               CASS_ERROR_SERVER_ALREADY_EXISTS);
    const char *s;
    size_t n;
    ASSERT_EQ(cass_error_result_keyspace(e, &s, &n), CASS_OK);
    ASSERT(n == 2 && memcmp(s, "ks", 2) == 0);
    ASSERT_EQ(cass_error_result_table(e, &s, &n), CASS_OK);
    ASSERT(n == 2 && memcmp(s, "kv", 2) == 0);
    ASSERT_EQ(cass_error_result_function(e, &s, &n), CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE);
    ASSERT_EQ(cass_error_num_arg_types(e), 0);
    ASSERT_EQ(cass_error_result_arg_type(e, 0, &s, &n), CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE);
    ASSERT_EQ(cass_error_result_consistency(e), CASS_CONSISTENCY_UNKNOWN);
    ASSERT_EQ(cass_error_result_responses_received(e), -1);
    cass_error_result_free(e);

    e = error_result_of(a.session, KS_CQL, CASS_ERROR_SERVER_ALREADY_EXISTS);
    ASSERT_EQ(cass_error_result_keyspace(e, &s, &n), CASS_OK);
    ASSERT(n == 2 && memcmp(s, "ks", 2) == 0);
    ASSERT_EQ(cass_error_result_table(e, &s, &n), CASS_OK);
    ASSERT_EQ(n, 0);
    cass_error_result_free(e);
    conn_close(&a);
}

/* future.cpp cass_future_get_error_result: NULL for a success and for a failure that is not a
   server error response. */
TEST(error_result_is_null_without_a_server_error)
{
    conn a;
    MEMORY_CONNECT(&a);
    CassFuture *f =
        exec(a.session, cass_statement_new("SELECT release_version FROM system.local", 0));
    ASSERT_FUTURE_OK(f);
    ASSERT(cass_future_get_error_result(f) == NULL);
    cass_future_free(f);
    conn_close(&a);

    CassSession *idle = cass_session_new();
    f = exec(idle, cass_statement_new("SELECT release_version FROM system.local", 0));
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT(cass_future_get_error_result(f) == NULL);
    cass_future_free(f);
    cass_session_free(idle);
}
