/*
 * ORDER BY with IN on several partitions (SelectStatement.orderResults): unpaged, every row of
 * the partitions is read and sorted by the ORDER BY columns, ties keeping the partitions' order
 * (the IN values sorted), then LIMIT applies; PER PARTITION LIMIT applies before the sort.
 * Paged, the statement is refused. Random rows are checked against a sort done here. Only the
 * public headers.
 */
#include <stdlib.h>
#include <string.h>

#include "driver_test.h"

#define PARTS 5
#define MAX_ROWS 400

typedef struct row {
    int k, c1, c2, v;
} row;

/* The table's clustering is (c1 ASC, c2 DESC); ORDER BY c1 ASC, c2 DESC reads it as stored. */
static int by_key(const row *a, const row *b, int reversed)
{
    int c = a->c1 != b->c1 ? (a->c1 < b->c1 ? -1 : 1) : a->c2 != b->c2 ? (a->c2 > b->c2 ? -1 : 1) : 0;
    return reversed ? -c : c;
}

/* Sorts rows stably (insertion sort: the expectations are small) by clustering order. */
static void stable_sort(row *rows, int n, int reversed, int prefix_only)
{
    for (int i = 1; i < n; i++) {
        row x = rows[i];
        int j = i - 1;
        for (; j >= 0; j--) {
            int c = prefix_only ? (rows[j].c1 > x.c1) - (rows[j].c1 < x.c1) : by_key(&rows[j], &x, 0);
            if (reversed)
                c = -c;
            if (c <= 0)
                break;
            rows[j + 1] = rows[j];
        }
        rows[j + 1] = x;
    }
}

static CassStatement *statement(const char *q, int page_size)
{
    CassStatement *st = cass_statement_new(q, 0);
    ASSERT_EQ(cass_statement_set_paging_size(st, page_size), CASS_OK);
    return st;
}

/* Runs q unpaged and checks its (k, c1, c2, v) rows equal want[0..n). */
static void expect_rows(CassSession *s, const char *q, const row *want, int n)
{
    CassStatement *st = statement(q, -1);
    const CassResult *r = EXEC(s, st);
    cass_statement_free(st);
    ASSERT_EQ(cass_result_row_count(r), n);
    ASSERT(!cass_result_has_more_pages(r));
    CassIterator *it = cass_iterator_from_result(r);
    for (int i = 0; cass_iterator_next(it); i++) {
        const CassRow *rw = cass_iterator_get_row(it);
        cass_int32_t got[4];
        for (int c = 0; c < 4; c++)
            ASSERT_EQ(cass_value_get_int32(cass_row_get_column(rw, (size_t)c), &got[c]), CASS_OK);
        if (got[0] != want[i].k || got[1] != want[i].c1 || got[2] != want[i].c2 ||
            got[3] != want[i].v)
            test_fail(__FILE__, __LINE__, "%s: row %d is (%d, %d, %d, %d), want (%d, %d, %d, %d)",
                      q, i, got[0], got[1], got[2], got[3], want[i].k, want[i].c1, want[i].c2,
                      want[i].v);
    }
    cass_iterator_free(it);
    cass_result_free(r);
}

TEST(order_by_with_in_is_refused_when_paged)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))");
    CassStatement *st = statement("SELECT * FROM ks.t WHERE k IN (1, 2) ORDER BY c DESC", 10);
    CassFuture *f = cass_session_execute(cn.session, st);
    char m[512];
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, m, sizeof m),
                  "Cannot page queries with both ORDER BY and a IN restriction on the partition "
                  "key; you must either remove the ORDER BY or the IN and sort client side, or "
                  "disable paging for this query");
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
}

TEST(order_by_with_in_sorts_random_partitions_unpaged)
{
    uint64_t seed = test_seed();
    conn cn;
    MEMORY_CONNECT(&cn);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2)) "
                    "WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC)");
    static row all[MAX_ROWS];
    int n = 0;
    const CassPrepared *ins = PREPARE(cn.session, "INSERT INTO ks.t (k, c1, c2, v) VALUES (?, ?, ?, ?)");
    /* Few distinct c1 values, so rows of different partitions tie on c1. */
    for (int k = 0; k < PARTS; k++) {
        int rows = (int)(test_rand(&seed) % 40);
        for (int i = 0; i < rows; i++) {
            row x = {k, (int)(test_rand(&seed) % 6), (int)(test_rand(&seed) % 50), 0};
            int dup = 0;
            for (int j = 0; j < n; j++)
                dup |= all[j].k == x.k && all[j].c1 == x.c1 && all[j].c2 == x.c2;
            if (dup)
                continue;
            x.v = n;
            all[n++] = x;
            CassStatement *st = cass_prepared_bind(ins);
            cass_statement_bind_int32(st, 0, x.k);
            cass_statement_bind_int32(st, 1, x.c1);
            cass_statement_bind_int32(st, 2, x.c2);
            cass_statement_bind_int32(st, 3, x.v);
            cass_result_free(EXEC(cn.session, st));
            cass_statement_free(st);
        }
    }
    cass_prepared_free(ins);
    /* The IN lists are given unsorted and with a duplicate: partitions are read in key order. */
    static const char *const in = "k IN (3, 0, 4, 1, 3, 2)";
    static row want[MAX_ROWS];
    for (int reversed = 0; reversed < 2; reversed++) {
        for (int prefix = 0; prefix < 2; prefix++) {
            for (int limit = 0; limit <= 7; limit += 7) {
                int m = 0;
                for (int k = 0; k < PARTS; k++) { /* each partition in its read order */
                    int first = m;
                    for (int j = 0; j < n; j++)
                        if (all[j].k == k)
                            want[m++] = all[j];
                    stable_sort(want + first, m - first, reversed, 0);
                }
                stable_sort(want, m, reversed, prefix);
                if (limit && m > limit)
                    m = limit;
                char q[256], lim[32] = "";
                if (limit)
                    snprintf(lim, sizeof lim, " LIMIT %d", limit);
                snprintf(q, sizeof q, "SELECT k, c1, c2, v FROM ks.t WHERE %s ORDER BY %s%s", in,
                         prefix ? (reversed ? "c1 DESC" : "c1 ASC")
                                : (reversed ? "c1 DESC, c2 ASC" : "c1 ASC, c2 DESC"),
                         lim);
                expect_rows(cn.session, q, want, m);
            }
        }
    }
    /* PER PARTITION LIMIT 2 keeps each partition's first two rows in the query's order. */
    int m = 0;
    for (int k = 0; k < PARTS; k++) {
        int first = m;
        for (int j = 0; j < n; j++)
            if (all[j].k == k)
                want[m++] = all[j];
        stable_sort(want + first, m - first, 1, 0);
        if (m - first > 2)
            m = first + 2;
    }
    stable_sort(want, m, 1, 0);
    expect_rows(cn.session,
                "SELECT k, c1, c2, v FROM ks.t WHERE k IN (0, 1, 2, 3, 4) ORDER BY c1 DESC, c2 ASC "
                "PER PARTITION LIMIT 2",
                want, m);
    conn_close(&cn);
}
