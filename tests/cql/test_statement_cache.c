/*
 * The statement cache of each database (cql/exec/prepared.c): bounded in
 * bytes, least recently used out first, simple statements in a small class
 * of their own, an evicted id answered with Cassandra's UNPREPARED error
 * (ExecuteMessage: "Prepared query with ID ... not found ..."), a statement
 * still held executing again after its eviction, and memory that stays flat
 * whatever the number of distinct statements.
 */
#include <unistd.h>

#include "cql/cql.h"
#include "exec_env.h"
#include "harness.h"



static void schema(env *e)
{
    env_run(e, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    env_run(e, "USE ks");
    env_run(e, "CREATE TABLE t (k int PRIMARY KEY, v int)");
}

static cql_prepared *prepare(env *e, const char *cql)
{
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p = NULL;
    ASSERT_OK_ERR(cql_prepare(e->s, cql, strlen(cql), &p, &err), &err);
    return p;
}

/* Prepares "SELECT v FROM t WHERE k = <i>" and drops the reference. */
static void prepare_nth(env *e, int i)
{
    char q[64];
    snprintf(q, sizeof q, "SELECT v FROM t WHERE k = %d", i);
    cql_prepared_unref(prepare(e, q));
}

/* 1 if the cache of e's database still holds id. */
static int cached(env *e, const uint8_t *id)
{
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p = NULL;
    int rc = cql_prepared_lookup(e->s, id, 16, &p, &err);
    cql_prepared_unref(p);
    return rc == 0;
}

TEST(preparing_the_same_text_twice_gives_the_same_statement)
{
    env e;
    env_open(&e);
    schema(&e);
    cql_prepared *a = prepare(&e, "SELECT v FROM t WHERE k = ?");
    cql_prepared *b = prepare(&e, "SELECT v FROM t WHERE k = ?");
    ASSERT(a == b);
    cql_prepared_unref(a);
    cql_prepared_unref(b);
    env_close(&e);
}

TEST(an_id_never_prepared_answers_unprepared_with_cassandras_text)
{
    env e;
    env_open(&e);
    static const uint8_t id[16] = {0xca, 0xfe, 0, 1};
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p = NULL;
    ASSERT_EQ(cql_prepared_lookup(e.s, id, 16, &p, &err), ENG_E_UNPREPARED);
    ASSERT(p == NULL);
    ASSERT_STR_EQ(err.msg, "Prepared query with ID cafe0001000000000000000000000000 not found "
                           "(either the query was not prepared on this host (maybe the host has "
                           "been restarted?) or you have prepared too many queries and it has been "
                           "evicted from the internal cache)");
    env_close(&e);
}

TEST(the_cache_is_per_database)
{
    env a, b;
    env_open(&a);
    env_open(&b);
    schema(&a);
    schema(&b);
    cql_prepared *p = prepare(&a, "SELECT v FROM t WHERE k = ?");
    ASSERT(cached(&a, cql_prepared_id(p)));
    ASSERT(!cached(&b, cql_prepared_id(p)));
    cql_prepared_unref(p);
    env_close(&a);
    env_close(&b);
}

TEST(the_least_recently_used_statement_is_evicted_first)
{
    env e;
    env_open(&e);
    schema(&e);
    ASSERT_EQ(cql_cache_set_capacity(e.db, 64 << 10), 0);
    cql_prepared *first = prepare(&e, "SELECT v FROM t WHERE k = -1");
    uint8_t id[16];
    memcpy(id, cql_prepared_id(first), 16);
    cql_prepared_unref(first);
    cql_cache_info info;
    int i = 0;
    do {
        prepare_nth(&e, i++);
        cql_cache_stats(e.db, &info);
        ASSERT(i < 100000);
    } while (info.evictions == 0);
    ASSERT(!cached(&e, id)); /* the oldest went first */
    char q[64];
    snprintf(q, sizeof q, "SELECT v FROM t WHERE k = %d", i - 1);
    cql_prepared *last = prepare(&e, q);
    ASSERT(cached(&e, cql_prepared_id(last)));
    cql_prepared_unref(last);
    ASSERT(info.prepared_bytes <= info.prepared_capacity);
    env_close(&e);
}

TEST(a_statement_executed_since_the_last_sweep_gets_a_second_chance)
{
    env e;
    env_open(&e);
    schema(&e);
    ASSERT_EQ(cql_cache_set_capacity(e.db, 64 << 10), 0);
    cql_prepared *hot = prepare(&e, "SELECT v FROM t WHERE k = ?");
    uint8_t id[16];
    memcpy(id, cql_prepared_id(hot), 16);
    uint8_t key[4] = {0, 0, 0, 7};
    eng_val v = {key, 4};
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = &v;
    o.n_values = 1;
    cql_cache_info info;
    for (int i = 0; i < 2000; i++) {
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(cql_execute(e.s, hot, &o, NULL, &err), &err); /* executed all along */
        prepare_nth(&e, i);
    }
    cql_cache_stats(e.db, &info);
    ASSERT(info.evictions > 0);
    ASSERT(cached(&e, id));
    cql_prepared_unref(hot);
    env_close(&e);
}

TEST(executing_an_evicted_statement_puts_it_back)
{
    env e;
    env_open(&e);
    schema(&e);
    ASSERT_EQ(cql_cache_set_capacity(e.db, 64 << 10), 0);
    cql_prepared *p = prepare(&e, "INSERT INTO t (k, v) VALUES (1, 2)");
    for (int i = 0; i < 2000; i++) /* many times what 64 KiB holds */
        prepare_nth(&e, i);
    ASSERT(!cached(&e, cql_prepared_id(p)));
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_execute(e.s, p, NULL, NULL, &err), &err);
    ASSERT(cached(&e, cql_prepared_id(p)));
    cql_prepared_unref(p);
    cql_result *r = NULL;
    ASSERT_OK_ERR(cql_query(e.s, "SELECT v FROM t WHERE k = 1", 27, NULL, &r, &err), &err);
    ASSERT_EQ(r->n_rows, 1);
    cql_result_free(r);
    env_close(&e);
}

TEST(a_statement_runs_against_the_schema_of_the_session_executing_it)
{
    env a, b;
    env_open(&a);
    env_open(&b);
    schema(&a);
    schema(&b);
    cql_prepared *p = prepare(&a, "INSERT INTO t (k, v) VALUES (5, 6)");
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_execute(b.s, p, NULL, NULL, &err), &err); /* written into b, not a */
    cql_prepared_unref(p);
    cql_result *r = NULL;
    ASSERT_OK_ERR(cql_query(b.s, "SELECT v FROM t", 15, NULL, &r, &err), &err);
    ASSERT_EQ(r->n_rows, 1);
    cql_result_free(r);
    ASSERT_OK_ERR(cql_query(a.s, "SELECT v FROM t", 15, NULL, &r, &err), &err);
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    env_close(&a);
    env_close(&b);
}

TEST(simple_statements_stay_in_their_small_class)
{
    env e;
    env_open(&e);
    schema(&e);
    cql_prepared *kept = prepare(&e, "SELECT v FROM t WHERE k = ?");
    for (int i = 0; i < 20000; i++) {
        char q[64];
        snprintf(q, sizeof q, "SELECT v FROM t WHERE k = %d", i);
        env_run(&e, q);
    }
    cql_cache_info info;
    cql_cache_stats(e.db, &info);
    ASSERT(info.simple_bytes <= info.simple_capacity);
    ASSERT(info.simple < 20000);
    ASSERT_EQ(info.prepared, 1); /* explicitly prepared statements are not pushed out */
    ASSERT(cached(&e, cql_prepared_id(kept)));
    cql_prepared_unref(kept);
    env_close(&e);
}

TEST(preparing_a_simple_statement_moves_it_to_the_prepared_class)
{
    env e;
    env_open(&e);
    schema(&e);
    env_run(&e, "SELECT v FROM t WHERE k = 3");
    cql_cache_info info;
    cql_cache_stats(e.db, &info);
    size_t simple = info.simple;
    cql_prepared *p = prepare(&e, "SELECT v FROM t WHERE k = 3");
    cql_cache_stats(e.db, &info);
    ASSERT_EQ(info.simple, simple - 1);
    ASSERT_EQ(info.prepared, 1);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(the_capacity_comes_from_the_environment)
{
    setenv("CASSETTE_PREPARED_CACHE_MB", "3", 1);
    env e;
    env_open(&e);
    cql_cache_info info;
    cql_cache_stats(e.db, &info);
    ASSERT_EQ(info.prepared_capacity, (size_t)3 << 20);
    env_close(&e);
    unsetenv("CASSETTE_PREPARED_CACHE_MB");
}

/* Resident memory of this process in bytes (Linux /proc/self/statm). */
static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    ASSERT(f);
    unsigned long size = 0, resident = 0;
    ASSERT_EQ(fscanf(f, "%lu %lu", &size, &resident), 2);
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * A million distinct statements, half run as simple statements and half prepared: the cache
 * stays within its capacities and the process does not grow. (Before the cache was bounded,
 * 200,000 distinct INSERTs took 1.35 GB.) Under AddressSanitizer, which runs far slower and whose
 * allocator holds on to freed memory (quarantine, per-size caches), a tenth of the statements and
 * the cache's own accounting only: its leak check at exit covers what the cache frees.
 */
TEST(memory_stays_flat_across_a_million_distinct_statements)
{
    env e;
    env_open(&e);
    schema(&e);
#if defined(__SANITIZE_ADDRESS__)
    const int n = 100000;
#else
    const int n = 1000000;
#endif
    size_t warm = 0;
    for (int i = 0; i < n; i++) {
        char q[80];
        snprintf(q, sizeof q, "INSERT INTO t (k, v) VALUES (%d, %d)", i % 1000, i);
        if (i % 2) {
            env_run(&e, q);
        } else {
            cql_prepared *p = prepare(&e, q);
            cql_prepared_unref(p);
        }
        if (i == n / 10)
            warm = resident_bytes(); /* both classes full by now */
    }
    cql_cache_info info;
    cql_cache_stats(e.db, &info);
    ASSERT(info.prepared_bytes <= info.prepared_capacity);
    ASSERT(info.simple_bytes <= info.simple_capacity);
    ASSERT(info.evictions > (uint64_t)n / 2);
#if !defined(__SANITIZE_ADDRESS__)
    size_t end = resident_bytes();
    if (end > warm + ((size_t)32 << 20))
        test_fail(__FILE__, __LINE__, "resident memory grew from %zu to %zu bytes", warm, end);
#else
    (void)warm;
#endif
    env_close(&e);
}
