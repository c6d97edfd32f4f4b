/*
 * Custom payloads, the statement's keyspace by length, the future's
 * coordinator and the deprecated sub-type count, embedded (memory:), through
 * the public API only. The payload's bytes on the wire are checked by
 * tests/proto/test_client.c, its trip to a server by tests/driver/test_remote.c.
 */
#include <string.h>

#include "driver_test.h"

static const cass_byte_t BIN[] = {0x00, 0x01, 0xFE, 0xFF};

/* A payload of three items, one of them set twice and one removed again. */
static CassCustomPayload *sample_payload(void)
{
    CassCustomPayload *p = cass_custom_payload_new();
    ASSERT(p != NULL);
    cass_custom_payload_set(p, "alpha", BIN, sizeof BIN);
    cass_custom_payload_set(p, "beta", BIN, 2);
    cass_custom_payload_set(p, "alpha", BIN, 1); /* replaces */
    cass_custom_payload_set_n(p, "gamma-and-more", 5, BIN, 0); /* "gamma", empty value */
    cass_custom_payload_set(p, "delta", BIN, 3);
    cass_custom_payload_remove(p, "delta");
    cass_custom_payload_remove_n(p, "betamax", 4); /* "beta" */
    cass_custom_payload_remove(p, "missing");    /* nothing to remove */
    return p;
}

static void open_kv(conn *cn)
{
    MEMORY_CONNECT(cn);
    RUN(cn->session, KS_CQL);
    RUN(cn->session, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)");
}

/* The future of a request that succeeded, with no payload back: count 0, no item. */
static void no_payload_back(CassFuture *f)
{
    ASSERT_FUTURE_OK(f);
    ASSERT_EQ(cass_future_custom_payload_item_count(f), 0);
    const char *name = "untouched";
    size_t name_len = 99;
    const cass_byte_t *value = BIN;
    size_t value_len = 99;
    ASSERT_EQ(cass_future_custom_payload_item(f, 0, &name, &name_len, &value, &value_len),
              CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_STR_EQ(name, "untouched"); /* the outputs are left alone */
    ASSERT_EQ(name_len, 99);
    ASSERT(value == BIN);
    ASSERT_EQ(value_len, 99);
    /* no host answers embedded; remote, the node the request ran on */
    ASSERT_EQ(cass_future_coordinator(f) != NULL, test_remote());
}

TEST(a_statement_with_a_payload_runs_and_gets_none_back)
{
    conn cn;
    open_kv(&cn);
    CassCustomPayload *p = sample_payload();
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (1, 'one')", 0);
    ASSERT_EQ(cass_statement_set_custom_payload(st, p), CASS_OK);
    cass_custom_payload_free(p); /* the statement keeps its own copy */
    CassFuture *f = cass_session_execute(cn.session, st);
    no_payload_back(f);
    cass_future_free(f);
    /* replaced by another payload, then removed with NULL: the statement runs each time */
    p = cass_custom_payload_new();
    cass_custom_payload_set(p, "x", BIN, sizeof BIN);
    ASSERT_EQ(cass_statement_set_custom_payload(st, p), CASS_OK);
    cass_custom_payload_set(p, "y", BIN, 1); /* after the copy: changes nothing sent */
    f = cass_session_execute(cn.session, st);
    no_payload_back(f);
    cass_future_free(f);
    ASSERT_EQ(cass_statement_set_custom_payload(st, NULL), CASS_OK);
    f = cass_session_execute(cn.session, st);
    no_payload_back(f);
    cass_future_free(f);
    cass_statement_free(st);
    cass_custom_payload_free(p);

    /* a bound statement carries one too; the row written is there */
    const CassPrepared *prep = PREPARE(cn.session, "SELECT v FROM ks.kv WHERE k = ?");
    CassStatement *bound = cass_prepared_bind(prep);
    ASSERT_EQ(cass_statement_bind_int32(bound, 0, 1), CASS_OK);
    p = sample_payload();
    ASSERT_EQ(cass_statement_set_custom_payload(bound, p), CASS_OK);
    cass_custom_payload_free(p);
    f = cass_session_execute(cn.session, bound);
    no_payload_back(f);
    const CassResult *r = cass_future_get_result(f);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_future_free(f);
    cass_statement_free(bound);
    cass_prepared_free(prep);
    conn_close(&cn);
}

TEST(a_batch_with_a_payload_runs_and_gets_none_back)
{
    conn cn;
    open_kv(&cn);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (2, 'two')", 0);
    CassCustomPayload *p = sample_payload();
    /* the statement's payload stays with the statement; the batch has its own */
    ASSERT_EQ(cass_statement_set_custom_payload(st, p), CASS_OK);
    ASSERT_EQ(cass_batch_add_statement(b, st), CASS_OK);
    cass_statement_free(st);
    ASSERT_EQ(cass_batch_set_custom_payload(b, p), CASS_OK);
    ASSERT_EQ(cass_batch_set_custom_payload(b, p), CASS_OK); /* again: replaces */
    cass_custom_payload_free(p);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    no_payload_back(f);
    cass_future_free(f);
    ASSERT_EQ(cass_batch_set_custom_payload(b, NULL), CASS_OK);
    f = cass_session_execute_batch(cn.session, b);
    no_payload_back(f);
    cass_future_free(f);
    cass_batch_free(b);

    const CassResult *r = QUERY(cn.session, "SELECT v FROM ks.kv WHERE k = 2");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    conn_close(&cn);
}

TEST(payload_items_of_other_futures_as_the_driver)
{
    conn cn;
    open_kv(&cn);
    const char *name;
    size_t name_len;
    const cass_byte_t *value;
    size_t value_len;

    /* a failed request has no response, so no payload */
    CassStatement *bad = cass_statement_new("SELECT * FROM ks.nope", 0);
    CassFuture *f = cass_session_execute(cn.session, bad);
    cass_statement_free(bad);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_EQ(cass_future_custom_payload_item_count(f), 0);
    ASSERT_EQ(cass_future_custom_payload_item(f, 0, &name, &name_len, &value, &value_len),
              CASS_ERROR_LIB_NO_CUSTOM_PAYLOAD);
    ASSERT_EQ(cass_future_coordinator(f) != NULL, test_remote()); /* the server answered */
    cass_future_free(f);

    /* a prepare's future is not a response's */
    f = cass_session_prepare(cn.session, "SELECT v FROM ks.kv WHERE k = ?");
    ASSERT_FUTURE_OK(f);
    ASSERT_EQ(cass_future_custom_payload_item_count(f), 0);
    ASSERT_EQ(cass_future_custom_payload_item(f, 0, &name, &name_len, &value, &value_len),
              CASS_ERROR_LIB_INVALID_FUTURE_TYPE);
    ASSERT(cass_future_coordinator(f) == NULL); /* cassette names no node for a PREPARE */
    cass_future_free(f);

    conn_close(&cn);
    /* nor a connect's (one that fails: no contact point) */
    CassCluster *c = cass_cluster_new();
    CassSession *s = cass_session_new();
    f = cass_session_connect(s, c);
    ASSERT_NE(cass_future_error_code(f), CASS_OK);
    ASSERT_EQ(cass_future_custom_payload_item(f, 0, &name, &name_len, &value, &value_len),
              CASS_ERROR_LIB_INVALID_FUTURE_TYPE);
    ASSERT_EQ(cass_future_custom_payload_item_count(f), 0);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

TEST(null_arguments_are_refused_or_ignored)
{
    /* the setters return nothing: NULL payloads, names or values with a length do nothing */
    cass_custom_payload_set(NULL, "a", BIN, 1);
    cass_custom_payload_set_n(NULL, "a", 1, BIN, 1);
    cass_custom_payload_remove(NULL, "a");
    cass_custom_payload_remove_n(NULL, "a", 1);
    cass_custom_payload_free(NULL);
    CassCustomPayload *p = cass_custom_payload_new();
    cass_custom_payload_set_n(p, NULL, 3, BIN, 1);
    cass_custom_payload_set(p, "a", NULL, 4);
    cass_custom_payload_set(p, NULL, BIN, 1); /* the empty name, as the driver's SAFE_STRLEN */
    cass_custom_payload_set(p, "n", NULL, 0); /* an empty value */
    cass_custom_payload_remove(p, NULL);
    cass_custom_payload_remove_n(p, NULL, 2);

    ASSERT_EQ(cass_statement_set_custom_payload(NULL, p), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_batch_set_custom_payload(NULL, p), CASS_ERROR_LIB_BAD_PARAMS);
    CassStatement *st = cass_statement_new("SELECT release_version FROM system.local", 0);
    ASSERT_EQ(cass_statement_set_custom_payload(st, p), CASS_OK);
    cass_custom_payload_free(p);

    conn cn;
    MEMORY_CONNECT(&cn);
    CassFuture *f = cass_session_execute(cn.session, st);
    no_payload_back(f);
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);

    const char *name;
    size_t name_len;
    const cass_byte_t *value;
    size_t value_len;
    ASSERT_EQ(cass_future_custom_payload_item_count(NULL), 0);
    ASSERT_EQ(cass_future_custom_payload_item(NULL, 0, &name, &name_len, &value, &value_len),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT(cass_future_coordinator(NULL) == NULL);
}

/* Names without a terminating NUL: a length overrun shows under ASan. */
static const char KS_UNTERMINATED[2] = {'k', 's'};
static const char NAME_UNTERMINATED[3] = {'a', 'b', 'c'};

TEST(statement_keyspace_takes_exactly_the_length_given)
{
    conn cn;
    open_kv(&cn);
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (3, 'three')", 0);
    ASSERT_EQ(cass_statement_set_keyspace_n(st, KS_UNTERMINATED, sizeof KS_UNTERMINATED),
              CASS_OK);
    ASSERT_EQ(cass_statement_set_keyspace_n(st, "ksx", 2), CASS_OK);
    ASSERT_EQ(cass_statement_set_keyspace_n(st, "ks", 0), CASS_OK); /* clears it */
    ASSERT_EQ(cass_statement_set_keyspace_n(st, NULL, 0), CASS_OK);
    ASSERT_EQ(cass_statement_set_keyspace_n(st, NULL, 2), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_set_keyspace_n(NULL, "ks", 2), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_set_keyspace_n(st, "ks", 2), CASS_OK);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_statement_free(st);

    /* a bound statement's keyspace is its prepared statement's */
    const CassPrepared *prep = PREPARE(cn.session, "SELECT v FROM ks.kv WHERE k = ?");
    CassStatement *bound = cass_prepared_bind(prep);
    ASSERT_EQ(cass_statement_set_keyspace_n(bound, "ks", 2), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_set_keyspace(bound, "ks"), CASS_ERROR_LIB_BAD_PARAMS);
    cass_statement_free(bound);
    cass_prepared_free(prep);
    conn_close(&cn);
}

TEST(payload_names_take_exactly_the_length_given)
{
    CassCustomPayload *p = cass_custom_payload_new();
    cass_custom_payload_set_n(p, NAME_UNTERMINATED, sizeof NAME_UNTERMINATED, BIN, sizeof BIN);
    cass_custom_payload_set_n(p, NAME_UNTERMINATED, 2, BIN, 1);
    cass_custom_payload_remove_n(p, NAME_UNTERMINATED, 1); /* "a": not there */
    cass_custom_payload_remove_n(p, NAME_UNTERMINATED, sizeof NAME_UNTERMINATED);
    cass_custom_payload_set_n(p, "", 0, BIN, sizeof BIN);
    CassStatement *st = cass_statement_new("SELECT release_version FROM system.local", 0);
    ASSERT_EQ(cass_statement_set_custom_payload(st, p), CASS_OK);
    cass_custom_payload_free(p);
    conn cn;
    MEMORY_CONNECT(&cn);
    CassFuture *f = cass_session_execute(cn.session, st);
    no_payload_back(f);
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* deprecated, still in the API */
TEST(data_sub_type_count_is_the_old_name_of_the_sub_type_count)
{
    CassDataType *map = cass_data_type_new(CASS_VALUE_TYPE_MAP);
    ASSERT_EQ(cass_data_type_add_sub_value_type(map, CASS_VALUE_TYPE_TEXT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(map, CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_sub_type_count(map), 2);
    ASSERT_EQ(cass_data_sub_type_count(map), cass_data_type_sub_type_count(map));
    CassDataType *tuple = cass_data_type_new_tuple(3);
    for (int i = 0; i < 3; i++)
        ASSERT_EQ(cass_data_type_add_sub_value_type(tuple, CASS_VALUE_TYPE_BIGINT), CASS_OK);
    ASSERT_EQ(cass_data_sub_type_count(tuple), 3);
    CassDataType *text = cass_data_type_new(CASS_VALUE_TYPE_TEXT);
    ASSERT_EQ(cass_data_sub_type_count(text), 0);
    ASSERT_EQ(cass_data_sub_type_count(NULL), 0);
    cass_data_type_free(map);
    cass_data_type_free(tuple);
    cass_data_type_free(text);
}
#pragma GCC diagnostic pop
