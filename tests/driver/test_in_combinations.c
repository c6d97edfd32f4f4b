/*
 * A statement names at most 65,536 keys through the cartesian product of its
 * IN lists; over that it is refused whole with "Too many IN combinations (N)",
 * N the exact product, whatever statement it is and however large N grows.
 * Nothing is written by a refused modification. Only the public headers.
 */
#include <cassette.h>
#include <string.h>

#include "driver_test.h"

/* A list of the ints first, first + 1, ..., first + n - 1. */
static CassCollection *ints(int first, int n)
{
    CassCollection *c = cass_collection_new(CASS_COLLECTION_TYPE_LIST, (size_t)n);
    for (int i = 0; i < n; i++)
        ASSERT_EQ(cass_collection_append_int32(c, first + i), CASS_OK);
    return c;
}

/* Executes q with one list per marker, sizes[i] values each; the statement must
   fail as invalid with message want, or succeed when want is NULL. */
static void run_in(CassSession *s, const char *q, const int *sizes, int n, const char *want)
{
    CassStatement *st = cass_statement_new(q, (size_t)n);
    for (int i = 0; i < n; i++) {
        CassCollection *c = ints(0, sizes[i]);
        ASSERT_EQ(cass_statement_bind_collection(st, (size_t)i, c), CASS_OK);
        cass_collection_free(c);
    }
    CassFuture *f = cass_session_execute(s, st);
    if (!want) {
        ASSERT_FUTURE_OK(f);
    } else {
        char m[256];
        ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
        ASSERT_STR_EQ(future_message(f, m, sizeof m), want);
    }
    cass_future_free(f);
    cass_statement_free(st);
}

static int64_t count_rows(CassSession *s, const char *table)
{
    char q[80];
    snprintf(q, sizeof q, "SELECT count(*) FROM ks.%s", table);
    const CassResult *r = QUERY(s, q);
    cass_int64_t n;
    ASSERT_EQ(cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &n),
              CASS_OK);
    cass_result_free(r);
    return n;
}

static void schema(CassSession *s)
{
    RUN(s, KS_CQL);
    RUN(s, "CREATE TABLE ks.t (a int, b int, c int, d int, v int, PRIMARY KEY ((a, b), c, d))");
    RUN(s, "CREATE TABLE ks.p (a int, b int, v int, PRIMARY KEY ((a, b)))");
}

TEST(an_update_over_the_limit_is_refused_and_writes_nothing)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    /* 65,537 x 65,536 = 4,295,032,832: counted in 32 bits it was 65,536 and went through */
    run_in(cn.session, "UPDATE ks.p SET v = 1 WHERE a IN ? AND b IN ?", (int[]){65537, 65536}, 2,
           "Too many IN combinations (4295032832)");
    /* 2^32 wrapped to nothing written and success */
    run_in(cn.session, "UPDATE ks.p SET v = 1 WHERE a IN ? AND b IN ?", (int[]){65536, 65536}, 2,
           "Too many IN combinations (4294967296)");
    ASSERT_EQ(count_rows(cn.session, "p"), 0);
    conn_close(&cn);
}

TEST(rows_count_with_partitions_in_a_clustering_write)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    run_in(cn.session, "UPDATE ks.t SET v = 1 WHERE a IN ? AND b IN ? AND c IN ? AND d IN ?",
           (int[]){16, 16, 16, 17}, 4, "Too many IN combinations (69632)");
    run_in(cn.session, "INSERT INTO ks.t (a, b, c, d, v) VALUES (0, 0, 0, 0, 0)", NULL, 0, NULL);
    run_in(cn.session, "DELETE FROM ks.t WHERE a IN ? AND b IN ? AND c IN ? AND d IN ?",
           (int[]){65536, 2, 1, 1}, 4, "Too many IN combinations (131072)");
    ASSERT_EQ(count_rows(cn.session, "t"), 1);
    /* at the limit: 16 x 16 x 16 x 16 rows written */
    run_in(cn.session, "UPDATE ks.t SET v = 1 WHERE a IN ? AND b IN ? AND c IN ? AND d IN ?",
           (int[]){16, 16, 16, 16}, 4, NULL);
    ASSERT_EQ(count_rows(cn.session, "t"), 65536);
    conn_close(&cn);
}

TEST(a_partition_delete_counts_its_partitions)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    run_in(cn.session, "INSERT INTO ks.t (a, b, c, d, v) VALUES (0, 0, 0, 0, 0)", NULL, 0, NULL);
    /* no clustering row is named: the count is of partitions (it said 0) */
    run_in(cn.session, "DELETE FROM ks.t WHERE a IN ? AND b IN ?", (int[]){65536, 3}, 2,
           "Too many IN combinations (196608)");
    run_in(cn.session, "DELETE FROM ks.t WHERE a IN ? AND b IN ? AND c = 0",
           (int[]){65536, 65536}, 2, "Too many IN combinations (4294967296)");
    ASSERT_EQ(count_rows(cn.session, "t"), 1);
    conn_close(&cn);
}

TEST(a_select_over_the_limit_is_refused_with_the_exact_count)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    run_in(cn.session, "INSERT INTO ks.t (a, b, c, d, v) VALUES (7, 7, 7, 7, 7)", NULL, 0, NULL);
    run_in(cn.session, "SELECT v FROM ks.t WHERE a IN ? AND b IN ? AND c IN ? AND d IN ?",
           (int[]){65536, 65536, 1, 1}, 4, "Too many IN combinations (4294967296)");
    run_in(cn.session, "SELECT v FROM ks.t WHERE a = 7 AND b = 7 AND c IN ? AND d IN ?",
           (int[]){65536, 65536}, 2, "Too many IN combinations (4294967296)");
    run_in(cn.session, "SELECT v FROM ks.p WHERE a IN ? AND b IN ?", (int[]){65536, 65537}, 2,
           "Too many IN combinations (4295032832)");
    /* the limit allows 256 partitions x 256 rows */
    CassStatement *st =
        cass_statement_new("SELECT v FROM ks.t WHERE a IN ? AND b IN ? AND c IN ? AND d IN ?", 4);
    for (int i = 0; i < 4; i++) {
        CassCollection *c = ints(0, 16);
        ASSERT_EQ(cass_statement_bind_collection(st, (size_t)i, c), CASS_OK);
        cass_collection_free(c);
    }
    const CassResult *r = EXEC(cn.session, st);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(st);
    conn_close(&cn);
}

TEST(the_count_is_exact_beyond_64_bits)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.w (a int, b int, c int, d int, e int, "
                    "PRIMARY KEY ((a, b, c, d, e)))");
    RUN(cn.session, "INSERT INTO ks.w (a, b, c, d, e) VALUES (1, 1, 1, 1, 0)");
    /* 2^64 wrapped to 0 in 64 bits: no row, no error, though one matches */
    run_in(cn.session, "SELECT * FROM ks.w WHERE a IN ? AND b IN ? AND c IN ? AND d IN ? AND e = 0",
           (int[]){65536, 65536, 65536, 65536}, 4,
           "Too many IN combinations (18446744073709551616)");
    /* 65,536^5 = 2^80 */
    run_in(cn.session, "SELECT * FROM ks.w WHERE a IN ? AND b IN ? AND c IN ? AND d IN ? AND e IN ?",
           (int[]){65536, 65536, 65536, 65536, 65536}, 5,
           "Too many IN combinations (1208925819614629174706176)");
    conn_close(&cn);
}
