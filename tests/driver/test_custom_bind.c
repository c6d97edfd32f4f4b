/*
 * Binding custom-type values (cass_statement_bind_custom and its _n, _by_name, _by_name_n
 * forms), embedded (memory:), through the public API only. The rules are the driver's
 * (statement.cpp, abstract_data.hpp, data_type.hpp IsValidDataType<CassCustom>): a simple
 * statement takes the value as raw bytes, which the column they reach validates when the
 * statement runs; a bound statement takes it only for a custom-type marker of the same class,
 * and cassette makes no custom types, so every marker refuses it with
 * CASS_ERROR_LIB_INVALID_VALUE_TYPE, blob ones included (the driver checks is_custom(), not the
 * bytes).
 */
#include <string.h>

#include "driver_test.h"

static const char CLASS[] = "org.apache.cassandra.db.marshal.BytesType";
static const cass_byte_t BIN[] = {0xCA, 0xFE, 0x00, 0x01};

static void open_table(conn *cn)
{
    MEMORY_CONNECT(cn);
    RUN(cn->session, KS_CQL);
    RUN(cn->session, "CREATE TABLE ks.t (k int PRIMARY KEY, b blob, n int)");
}

/* The blob in row k: its length, and its bytes in out (at most cap). -1 when no row or null. */
static long blob_of(CassSession *s, int k, cass_byte_t *out, size_t cap)
{
    char q[64];
    snprintf(q, sizeof q, "SELECT b FROM ks.t WHERE k = %d", k);
    const CassResult *r = QUERY(s, q);
    long n = -1;
    if (cass_result_row_count(r) == 1) {
        const CassValue *v = cass_row_get_column(cass_result_first_row(r), 0);
        const cass_byte_t *p;
        size_t len;
        if (!cass_value_is_null(v) && cass_value_get_bytes(v, &p, &len) == CASS_OK) {
            memcpy(out, p, len < cap ? len : cap);
            n = (long)len;
        }
    }
    cass_result_free(r);
    return n;
}

TEST(a_simple_statement_takes_a_custom_value_as_bytes)
{
    conn cn;
    open_table(&cn);
    CassStatement *st = cass_statement_new("INSERT INTO ks.t (k, b) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_custom(st, 1, CLASS, BIN, sizeof BIN), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    cass_byte_t got[8];
    ASSERT_EQ(blob_of(cn.session, 1, got, sizeof got), sizeof BIN);
    ASSERT_MEM_EQ(got, BIN, sizeof BIN);

    /* The _n form reads class_name_length bytes of the class name only; an empty value is a
       zero-length blob, not null. */
    st = cass_statement_new("INSERT INTO ks.t (k, b) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 2), CASS_OK);
    ASSERT_EQ(cass_statement_bind_custom_n(st, 1, "a.b.C trailing", 5, BIN, 0), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    ASSERT_EQ(blob_of(cn.session, 2, got, sizeof got), 0);

    /* By name: the names are recorded for the slots in order of first use. */
    st = cass_statement_new("INSERT INTO ks.t (k, b) VALUES (:k, :b)", 2);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "k", 3), CASS_OK);
    ASSERT_EQ(cass_statement_bind_custom_by_name(st, "b", CLASS, BIN, 2), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    ASSERT_EQ(blob_of(cn.session, 3, got, sizeof got), 2);
    ASSERT_MEM_EQ(got, BIN, 2);

    st = cass_statement_new("INSERT INTO ks.t (k, b) VALUES (:k, :b)", 2);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "k", 4), CASS_OK);
    ASSERT_EQ(
        cass_statement_bind_custom_by_name_n(st, "b-and-more", 1, CLASS, strlen(CLASS), BIN + 1, 3),
        CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    ASSERT_EQ(blob_of(cn.session, 4, got, sizeof got), 3);
    ASSERT_MEM_EQ(got, BIN + 1, 3);
    conn_close(&cn);
}

TEST(a_simple_statement_still_checks_index_and_arguments)
{
    CassStatement *st = cass_statement_new("INSERT INTO ks.t (k, b) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_bind_custom(st, 2, CLASS, BIN, sizeof BIN),
              CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_statement_bind_custom(st, 1, CLASS, NULL, 3), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_bind_custom_n(st, 1, NULL, 3, BIN, 1), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_bind_custom(NULL, 0, CLASS, BIN, 1), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_bind_custom_by_name(st, NULL, CLASS, BIN, 1),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_bind_custom(st, 1, NULL, BIN, 1), CASS_OK); /* NULL class is "" */
    cass_statement_free(st);
}

TEST(a_prepared_marker_that_is_not_custom_refuses_a_custom_value)
{
    conn cn;
    open_table(&cn);
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.t (k, b, n) VALUES (?, ?, ?)");
    CassStatement *st = cass_prepared_bind(p);
    /* blob, int: neither is a custom type, whatever the class name says. */
    ASSERT_EQ(cass_statement_bind_custom(st, 1, CLASS, BIN, sizeof BIN),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(
        cass_statement_bind_custom(st, 2, "org.apache.cassandra.db.marshal.Int32Type", BIN, 4),
        CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_statement_bind_custom_n(st, 1, CLASS, strlen(CLASS), BIN, 1),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_statement_bind_custom_by_name(st, "b", CLASS, BIN, 1),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_statement_bind_custom_by_name_n(st, "n", 1, "", 0, BIN, 1),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    /* The other refusals come first, as for every binder. */
    ASSERT_EQ(cass_statement_bind_custom(st, 3, CLASS, BIN, 1), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_statement_bind_custom_by_name(st, "missing", CLASS, BIN, 1),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    /* Nothing was bound by the refusals: the blob binds as bytes and the row has it. */
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 9), CASS_OK);
    ASSERT_EQ(cass_statement_bind_bytes(st, 1, BIN, sizeof BIN), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 2, 5), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    cass_prepared_free(p);
    cass_byte_t got[8];
    ASSERT_EQ(blob_of(cn.session, 9, got, sizeof got), sizeof BIN);
    ASSERT_MEM_EQ(got, BIN, sizeof BIN);
    conn_close(&cn);
}
