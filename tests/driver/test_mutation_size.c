/*
 * A write is refused when one of its mutations -- a statement's writes to one
 * partition, or a batch's writes to one partition key of one keyspace,
 * whatever the tables -- would take more than max_mutation_size (16 MiB, half
 * of the 32 MiB commit log segment) in Cassandra's commit log: InvalidRequest
 * "Rejected an oversized mutation (<size>/16777216) for keyspace: <ks>. Top
 * keys are: <table>.<key>, ...", and nothing of the write is applied.
 * Sources: Mutation.validateSize, called by SingleTableUpdatesCollector and
 * BatchUpdatesCollector.toMutations for every statement and batch;
 * MutationExceededMaxSizeException for the message; the distributed test
 * OversizedMutationTest (a single INSERT and a batch, "Top keys are: t.1").
 *
 * The sizes are Cassandra's serialized sizes (engine/store/mutation_size.c
 * derives them), for writes at a fixed timestamp so that they do not depend
 * on the clock: T = 1700000000000000 µs is 7 bytes as a distance to the
 * encoding epoch (2015-09-22). An INSERT of an int key and one blob of n
 * bytes (n from 2^21 to 2^28) into t (k int PRIMARY KEY, v blob) takes
 *   12 (log entry) + 1 (update count) + 16 (table id) + 5 (key) + 1 (flags)
 *   + 9 (encoding stats) + 3 (columns: v) + 1 (row count) + 1 (row flags)
 *   + 1 (row timestamp) + 1 (cell flags) + 4 (value length) + n + 1 (end)
 *   = n + 56 bytes.
 * Only the public headers.
 */
#include <stdlib.h>
#include <string.h>

#include "driver_test.h"

#define LIMIT 16777216
#define TS " USING TIMESTAMP 1700000000000000"
#define MIB (1024 * 1024)

static void schema(CassSession *s)
{
    RUN(s, KS_CQL);
    RUN(s, "CREATE TABLE ks.t (k int PRIMARY KEY, v blob)");
    RUN(s, "CREATE TABLE ks.c (k int, c int, v blob, PRIMARY KEY (k, c))");
    RUN(s, "CREATE TABLE ks.a (k int PRIMARY KEY, v blob)");
    RUN(s, "CREATE TABLE ks.s (k int PRIMARY KEY, v blob, tags set<int>)");
    RUN(s, "CREATE TABLE ks.st (k int, c int, s blob static, v int, PRIMARY KEY (k, c))");
    RUN(s, "CREATE TABLE ks.w (k int, c int, v blob, w int, PRIMARY KEY (k, c))");
    RUN(s, "CREATE TABLE ks.p (a int, b text, v blob, PRIMARY KEY ((a, b)))");
}

/* n bytes of one value; the caller frees them. */
static cass_byte_t *blob(size_t n)
{
    cass_byte_t *b = malloc(n ? n : 1);
    ASSERT(b != NULL);
    memset(b, 0x5A, n);
    return b;
}

/* A statement binding key k and a blob of n bytes, in this order or as the query wants. */
static CassStatement *bound(const char *q, int k, size_t n)
{
    CassStatement *st = cass_statement_new(q, 2);
    cass_byte_t *b = blob(n);
    ASSERT_EQ(cass_statement_bind_bytes(st, 0, b, n), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, k), CASS_OK);
    free(b);
    return st;
}

static void expect_refused(CassFuture *f, const char *want)
{
    char m[512];
    ASSERT_STR_EQ(future_message(f, m, sizeof m), want);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
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

/* The length of t's value at key k. */
static size_t stored_length(CassSession *s, const char *table, int k)
{
    char q[80];
    snprintf(q, sizeof q, "SELECT v FROM ks.%s WHERE k = %d", table, k);
    const CassResult *r = QUERY(s, q);
    const cass_byte_t *b;
    size_t n = 0;
    ASSERT_EQ(cass_result_row_count(r), 1);
    ASSERT_EQ(cass_value_get_bytes(cass_row_get_column(cass_result_first_row(r), 0), &b, &n),
              CASS_OK);
    cass_result_free(r);
    return n;
}

TEST(an_insert_one_byte_over_the_limit_is_refused_and_writes_nothing)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassStatement *st = bound("INSERT INTO ks.t (v, k) VALUES (?, ?)" TS, 1, LIMIT - 56 + 1);
    CassFuture *f = cass_session_execute(cn.session, st);
    expect_refused(f, "Rejected an oversized mutation (16777217/16777216) for keyspace: ks. Top "
                      "keys are: t.1");
    cass_future_free(f);
    cass_statement_free(st);
    ASSERT_EQ(count_rows(cn.session, "t"), 0);
    conn_close(&cn);
}

TEST(an_insert_of_exactly_the_limit_is_written)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassStatement *st = cass_statement_new("INSERT INTO ks.t (v, k) VALUES (?, ?)" TS, 2);
    cass_byte_t *b = blob(LIMIT - 56);
    ASSERT_EQ(cass_statement_bind_bytes(st, 0, b, LIMIT - 56), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, 1), CASS_OK);
    free(b);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_statement_free(st);
    ASSERT_EQ(stored_length(cn.session, "t", 1), LIMIT - 56);
    conn_close(&cn);
}

/* The request is small; the rows it names are not: one mutation of three rows. */
TEST(one_value_written_to_many_rows_of_a_partition_counts_once_per_row)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassStatement *st =
        bound("UPDATE ks.c" TS " SET v = ? WHERE k = ? AND c IN (1, 2, 3)", 7, 6 * MIB);
    CassFuture *f = cass_session_execute(cn.session, st);
    /* 12 + 1 + 16 + 5 + 1 + 9 + 3 + 1 (rows) + 1 (end) + 3 rows of 1 (flags) + 5 (clustering:
       header, int) + 1 (cell flags) + 1 (cell timestamp: no row marker) + 4 + 6 MiB */
    expect_refused(f, "Rejected an oversized mutation (18874453/16777216) for keyspace: ks. Top "
                      "keys are: c.7");
    cass_future_free(f);
    cass_statement_free(st);
    ASSERT_EQ(count_rows(cn.session, "c"), 0);
    conn_close(&cn);
}

static void add_to_batch(CassBatch *b, const char *q, int k, size_t n)
{
    CassStatement *st = bound(q, k, n);
    ASSERT_EQ(cass_batch_add_statement(b, st), CASS_OK);
    cass_statement_free(st);
}

TEST(a_batch_whose_statements_on_one_partition_add_up_over_the_limit_is_refused_whole)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    add_to_batch(b, "INSERT INTO ks.t (v, k) VALUES (?, ?)" TS, 2, 1000);
    add_to_batch(b, "INSERT INTO ks.c (v, k, c) VALUES (?, ?, 1)" TS, 1, 9 * MIB);
    add_to_batch(b, "INSERT INTO ks.c (v, k, c) VALUES (?, ?, 2)" TS, 1, 9 * MIB);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    /* one update of two rows: 12 + 1 + 16 + 5 + 1 + 9 + 3 + 1 + 1 and per row 1 (flags) + 5
       (clustering) + 1 (row timestamp) + 1 (cell flags) + 4 + 9 MiB */
    expect_refused(f, "Rejected an oversized mutation (18874441/16777216) for keyspace: ks. Top "
                      "keys are: c.1");
    cass_future_free(f);
    cass_batch_free(b);
    ASSERT_EQ(count_rows(cn.session, "c"), 0);
    ASSERT_EQ(count_rows(cn.session, "t"), 0);
    conn_close(&cn);
}

/* A batch's mutation is per keyspace and partition key bytes: the updates of two tables on key
   1 make one, listed largest first. */
TEST(a_batch_on_one_partition_key_of_two_tables_makes_one_mutation)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_UNLOGGED);
    add_to_batch(b, "INSERT INTO ks.t (v, k) VALUES (?, ?)" TS, 1, 8 * MIB);
    add_to_batch(b, "INSERT INTO ks.a (v, k) VALUES (?, ?)" TS, 1, 9 * MIB);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    /* 12 + 1 and per update 16 + 5 + 1 + 9 + 3 + 1 + 1 + 1 + 1 + 4 + n + 1 */
    expect_refused(f, "Rejected an oversized mutation (17825891/16777216) for keyspace: ks. Top "
                      "keys are: a.1, t.1");
    cass_future_free(f);
    cass_batch_free(b);
    ASSERT_EQ(count_rows(cn.session, "a"), 0);
    ASSERT_EQ(count_rows(cn.session, "t"), 0);
    conn_close(&cn);
}

/* The limit is per mutation, not per batch. Cassandra writes this batch when its own
   batch_size_fail_threshold allows it (the default, 50 KiB, refuses any batch over several
   partitions larger than that with "Batch too large"; cassette has no such threshold:
   docs/compat.md), and unlogged (a logged one also goes through the batchlog, whose entry holds
   every mutation). */
TEST(a_batch_over_partitions_each_under_the_limit_is_written)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_UNLOGGED);
    for (int k = 1; k <= 3; k++)
        add_to_batch(b, "INSERT INTO ks.t (v, k) VALUES (?, ?)" TS, k, 8 * MIB);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_batch_free(b);
    for (int k = 1; k <= 3; k++)
        ASSERT_EQ(stored_length(cn.session, "t", k), 8 * MIB);
    conn_close(&cn);
}

/* A value bound through the driver API is copied once into the statement; the refusal comes
   before the write copies it again or stores it. */
TEST(a_value_far_over_the_limit_is_refused_before_it_is_stored)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassStatement *st = bound("UPDATE ks.t" TS " SET v = ? WHERE k = ?", 3, 48 * MIB);
    CassFuture *f = cass_session_execute(cn.session, st);
    expect_refused(f, "Rejected an oversized mutation (50331704/16777216) for keyspace: ks. Top "
                      "keys are: t.3");
    cass_future_free(f);
    cass_statement_free(st);
    ASSERT_EQ(count_rows(cn.session, "t"), 0);
    conn_close(&cn);
}

/* Cassandra's coordinator does not measure a conditional write (its Paxos round fails on the
   replicas instead); cassette refuses it as it refuses a plain one (docs/compat.md). */
TEST(a_conditional_insert_over_the_limit_is_refused_like_a_plain_one)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassStatement *st = bound("INSERT INTO ks.t (v, k) VALUES (?, ?) IF NOT EXISTS", 4,
                              LIMIT);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    char m[512];
    ASSERT(strncmp(future_message(f, m, sizeof m), "Rejected an oversized mutation (", 32) == 0);
    cass_future_free(f);
    cass_statement_free(st);
    ASSERT_EQ(count_rows(cn.session, "t"), 0);
    conn_close(&cn);
}

/* Runs a statement binding a blob of LIMIT bytes then key 1; it must be refused with a size of
   LIMIT + overhead and leave table empty. */
static void refused_with_overhead(const char *q, const char *table, int overhead)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassStatement *st = bound(q, 1, LIMIT);
    CassFuture *f = cass_session_execute(cn.session, st);
    char want[256];
    snprintf(want, sizeof want,
             "Rejected an oversized mutation (%d/16777216) for keyspace: ks. Top keys are: %s.1",
             LIMIT + overhead, table);
    expect_refused(f, want);
    cass_future_free(f);
    cass_statement_free(st);
    ASSERT_EQ(count_rows(cn.session, table), 0);
    conn_close(&cn);
}

/* The row marker carries the TTL and the cell uses it; the encoding stats carry the deletion
   time (now + TTL, 5 bytes from the epoch) and the TTL (86400, 3 bytes): the plain insert's
   56 plus 6 (stats) plus 2 (the row's TTL and deletion time, each 0 from the minimum). */
TEST(an_expiring_insert_counts_its_ttl_once_in_the_row)
{
    refused_with_overhead("INSERT INTO ks.t (v, k) VALUES (?, ?)" TS " AND TTL 86400", "t", 64);
}

/* Setting a non-frozen set deletes the old one at T - 1 (the stats' minimum timestamp, and a
   deletion time: now, 5 bytes) and writes one cell per element with the element as its path:
   13 + 16 + 5 + 1 + 13 (stats) + 8 (columns v, tags) + 1 + 1 (end); the row: 1 (flags) + 1
   (marker at 1 from T - 1) + 1 + 4 (v) + tags: 2 (its deletion) + 1 (3 cells) + 3 * (1 flags
   + 5 path). */
TEST(a_collection_overwrite_counts_its_deletion_and_one_cell_per_element)
{
    refused_with_overhead("INSERT INTO ks.s (v, k, tags) VALUES (?, ?, {1, 2, 3})" TS, "s", 86);
}

/* The static row: its own header columns, flags and extended flags, no row marker (so the cell
   writes its timestamp); the clustering row: flags, clustering (header, int), marker, v (an int,
   fixed length): 13 + 16 + 5 + 1 + 9 + 3 + 3 + (2 + 1 + 1 + 4) + 1 + (1 + 5 + 1 + 1 + 4) + 1. */
TEST(a_static_row_counts_as_a_row_of_its_own)
{
    refused_with_overhead("INSERT INTO ks.st (s, k, c, v) VALUES (?, ?, 1, 5)" TS, "st", 72);
}

/* The batch's header holds both columns; each row has one of them and says which it lacks
   (a one-byte bitmap): 13 + 16 + 5 + 1 + 9 + 5 (v, w) + 1 + 1, row 1: 1 + 5 + 1 + 1 + (1 + 4),
   row 2: 1 + 5 + 1 + 1 + (1 + 4). */
TEST(rows_of_a_batch_with_some_of_its_columns_name_the_ones_they_have)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    add_to_batch(b, "INSERT INTO ks.w (v, k, c) VALUES (?, ?, 1)" TS, 1, LIMIT);
    CassStatement *st = cass_statement_new("INSERT INTO ks.w (k, c, w) VALUES (1, 2, 7)" TS, 0);
    ASSERT_EQ(cass_batch_add_statement(b, st), CASS_OK);
    cass_statement_free(st);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    expect_refused(f, "Rejected an oversized mutation (16777293/16777216) for keyspace: ks. Top "
                      "keys are: w.1");
    cass_future_free(f);
    cass_batch_free(b);
    ASSERT_EQ(count_rows(cn.session, "w"), 0);
    conn_close(&cn);
}

/* A key of two columns is CompositeType's bytes (per component a short length, the bytes, an
   end byte: 7 + 8, 15 with its own length) and is named as CompositeType.getString writes it:
   components joined by ':', each escaped (':' as "\:", a trailing '!' doubled). */
TEST(a_composite_partition_key_is_counted_and_named_as_cassandra_composes_it)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassStatement *st = bound("INSERT INTO ks.p (v, a, b) VALUES (?, ?, 'x:y!')" TS, 1, LIMIT);
    CassFuture *f = cass_session_execute(cn.session, st);
    expect_refused(f, "Rejected an oversized mutation (16777282/16777216) for keyspace: ks. Top "
                      "keys are: p.1:x\\:y!!");
    cass_future_free(f);
    cass_statement_free(st);
    ASSERT_EQ(count_rows(cn.session, "p"), 0);
    conn_close(&cn);
}

/* A range tombstone is two markers, each flags, its bound (kind, a short size, the clustering
   values) and the deletion: c > 5 opens at (5) -- 1 + 1 + 2 + 5 + 2 -- and closes at the top,
   no value -- 1 + 1 + 2 + 2. The deletion time (now) joins the stats: 13 + 16 + 5 + 1 + 13 + 3
   + 1 + (1 + 5 + 1 + 1 + 4) + 11 + 6 + 1. */
TEST(a_range_deletion_counts_its_two_markers)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    schema(cn.session);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *st = cass_statement_new("DELETE FROM ks.c" TS " WHERE k = 1 AND c > 5", 0);
    ASSERT_EQ(cass_batch_add_statement(b, st), CASS_OK);
    cass_statement_free(st);
    add_to_batch(b, "INSERT INTO ks.c (v, k, c) VALUES (?, ?, 1)" TS, 1, LIMIT);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    expect_refused(f, "Rejected an oversized mutation (16777298/16777216) for keyspace: ks. Top "
                      "keys are: c.1");
    cass_future_free(f);
    cass_batch_free(b);
    ASSERT_EQ(count_rows(cn.session, "c"), 0);
    conn_close(&cn);
}
