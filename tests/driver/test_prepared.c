/*
 * Prepared statements of the driver API across the statement cache and across
 * sessions: a CassPrepared whose statement the database's cache evicted runs
 * again, prepared anew transparently, as the driver re-prepares on
 * UNPREPARED; one prepared on a session that has closed, or on another
 * database, runs on the session it is executed on. Only the public headers.
 */
#include <cassette.h>

#include "driver_test.h"

static CassPrepared *prepare(CassSession *s, const char *q)
{
    CassFuture *f = cass_session_prepare(s, q);
    ASSERT_FUTURE_OK(f);
    const CassPrepared *p = cass_future_get_prepared(f);
    ASSERT(p);
    cass_future_free(f);
    return (CassPrepared *)p;
}

static void insert(CassSession *s, const CassPrepared *p, int k, int v)
{
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, k), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, v), CASS_OK);
    cass_result_free(EXEC(s, st));
    cass_statement_free(st);
}

/* The value of v in row k, or -1 when there is no such row. */
static int value_of(CassSession *s, int k)
{
    char q[64];
    snprintf(q, sizeof q, "SELECT v FROM ks.t WHERE k = %d", k);
    const CassResult *r = QUERY(s, q);
    int v = -1;
    if (cass_result_row_count(r) == 1) {
        cass_int32_t x;
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column(cass_result_first_row(r), 0), &x),
                  CASS_OK);
        v = x;
    }
    cass_result_free(r);
    return v;
}

static void schema(CassSession *s)
{
    RUN(s, KS_CQL);
    RUN(s, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
}

TEST(an_evicted_statement_is_prepared_again_transparently)
{
    REMOTE_SKIP("the prepared cache size is the embedded database's");
    CassCluster *c = memory_cluster();
    ASSERT_EQ(cassette_cluster_set_prepared_cache_size(c, 32 << 10), 0);
    conn a;
    conn_open_cluster(__FILE__, __LINE__, &a, c);
    schema(a.session);
    CassPrepared *p = prepare(a.session, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    insert(a.session, p, 1, 10);
    /* far more distinct statements than 32 KiB holds: p's goes out of the cache */
    for (int i = 0; i < 1000; i++) {
        char q[80];
        snprintf(q, sizeof q, "SELECT v FROM ks.t WHERE k = %d", i);
        cass_prepared_free(prepare(a.session, q));
    }
    insert(a.session, p, 2, 20);
    ASSERT_EQ(value_of(a.session, 1), 10);
    ASSERT_EQ(value_of(a.session, 2), 20);
    cass_prepared_free(p);
    conn_close(&a);
}

TEST(the_cache_size_is_checked)
{
    ASSERT_EQ(cassette_cluster_set_prepared_cache_size(NULL, 1), CASS_ERROR_LIB_BAD_PARAMS);
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cassette_cluster_set_prepared_cache_size(c, 0), 0); /* the default */
    cass_cluster_free(c);
}

TEST(a_statement_outlives_the_session_that_prepared_it)
{
    conn a, b;
    MEMORY_CONNECT(&a);
    MEMORY_CONNECT(&b);
    schema(a.session);
    schema(b.session);
    CassPrepared *p = prepare(a.session, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    conn_close(&a); /* its database is gone */
    insert(b.session, p, 3, 30);
    ASSERT_EQ(value_of(b.session, 3), 30);
    cass_prepared_free(p);
    conn_close(&b);
}

TEST(a_statement_runs_on_the_database_of_the_session_executing_it)
{
    conn a, b;
    MEMORY_CONNECT(&a);
    MEMORY_CONNECT(&b);
    schema(a.session);
    schema(b.session);
    CassPrepared *p = prepare(a.session, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    insert(b.session, p, 4, 40);
    ASSERT_EQ(value_of(b.session, 4), 40);
    ASSERT_EQ(value_of(a.session, 4), -1);
    cass_prepared_free(p);
    conn_close(&a);
    conn_close(&b);
}
