/*
 * Query tracing through the public API: a traced statement, bound statement or batch gets a
 * tracing id, and system_traces.sessions and system_traces.events hold its trace as Cassandra
 * writes one (request, parameters, duration, the steps' activities); an untraced or failed
 * request has no id. The server's side, seen by a real driver, is in
 * tests/server/test_python_driver.py.
 */
#include <string.h>

#include "driver_test.h"

static void open_kv(conn *cn)
{
    MEMORY_CONNECT(cn);
    RUN(cn->session, KS_CQL);
    RUN(cn->session, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)");
    RUN(cn->session, "INSERT INTO ks.kv (k, v) VALUES (1, 'one')");
    RUN(cn->session, "INSERT INTO ks.kv (k, v) VALUES (2, 'two')");
}

/* Executes st traced and returns its tracing id. */
static CassUuid traced(CassSession *s, CassStatement *st)
{
    ASSERT_EQ(cass_statement_set_tracing(st, cass_true), CASS_OK);
    CassFuture *f = cass_session_execute(s, st);
    ASSERT_FUTURE_OK(f);
    CassUuid id;
    ASSERT_EQ(cass_future_tracing_id(f, &id), CASS_OK);
    ASSERT_EQ(cass_uuid_version(id), 1); /* a time UUID */
    cass_future_free(f);
    return id;
}

static void string_of(const CassValue *v, char *buf, size_t cap)
{
    const char *p;
    size_t n;
    ASSERT_EQ(cass_value_get_string(v, &p, &n), CASS_OK);
    ASSERT(n < cap);
    memcpy(buf, p, n);
    buf[n] = '\0';
}

/* The session row of a trace: its request, duration, and the parameter `param` (into value;
   "" when absent). Checks the columns every session row has. */
static void session_row(CassSession *s, CassUuid id, char *request, size_t cap,
                        cass_int32_t *duration, const char *param, char *value, size_t vcap)
{
    CassStatement *st = cass_statement_new(
        "SELECT request, duration, parameters, command, coordinator, coordinator_port, client, "
        "started_at, TTL(request) FROM system_traces.sessions WHERE session_id = ?",
        1);
    ASSERT_EQ(cass_statement_bind_uuid(st, 0, id), CASS_OK);
    const CassResult *r = EXEC(s, st);
    cass_statement_free(st);
    ASSERT_EQ(cass_result_row_count(r), 1);
    const CassRow *row = cass_result_first_row(r);
    string_of(cass_row_get_column(row, 0), request, cap);
    ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 1), duration), CASS_OK);
    value[0] = '\0';
    CassIterator *it = cass_iterator_from_map(cass_row_get_column(row, 2));
    ASSERT(it != NULL);
    while (cass_iterator_next(it)) {
        char name[128];
        string_of(cass_iterator_get_map_key(it), name, sizeof name);
        if (!strcmp(name, param))
            string_of(cass_iterator_get_map_value(it), value, vcap);
    }
    cass_iterator_free(it);
    char command[16];
    string_of(cass_row_get_column(row, 3), command, sizeof command);
    ASSERT_STR_EQ(command, "QUERY");
    CassInet coordinator;
    ASSERT_EQ(cass_value_get_inet(cass_row_get_column(row, 4), &coordinator), CASS_OK);
    ASSERT_EQ(coordinator.address_length, 4);
    cass_int32_t port = 0;
    ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 5), &port), CASS_OK);
    ASSERT_EQ(port, 7000);
    ASSERT(!cass_value_is_null(cass_row_get_column(row, 6)));
    cass_int64_t started = 0;
    ASSERT_EQ(cass_value_get_int64(cass_row_get_column(row, 7), &started), CASS_OK);
    ASSERT(started > 0);
    cass_int32_t ttl = 0;
    ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 8), &ttl), CASS_OK);
    ASSERT(ttl > 86000 && ttl <= 86400); /* trace rows expire after a day */
    cass_result_free(r);
}

/* 1 when an event of the trace has exactly that activity (prefix: starts with it). */
static int has_event(CassSession *s, CassUuid id, const char *activity, int prefix,
                     size_t *n_events)
{
    CassStatement *st = cass_statement_new(
        "SELECT activity, source_elapsed, thread, source FROM system_traces.events "
        "WHERE session_id = ?",
        1);
    ASSERT_EQ(cass_statement_bind_uuid(st, 0, id), CASS_OK);
    const CassResult *r = EXEC(s, st);
    cass_statement_free(st);
    int found = 0;
    cass_int32_t last = -1;
    CassIterator *it = cass_iterator_from_result(r);
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        char a[512];
        string_of(cass_row_get_column(row, 0), a, sizeof a);
        cass_int32_t elapsed = -1;
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 1), &elapsed), CASS_OK);
        ASSERT(elapsed >= last); /* in event-id (time) order */
        last = elapsed;
        ASSERT(!cass_value_is_null(cass_row_get_column(row, 2)));
        ASSERT(!cass_value_is_null(cass_row_get_column(row, 3)));
        if (prefix ? !strncmp(a, activity, strlen(activity)) : !strcmp(a, activity))
            found = 1;
    }
    cass_iterator_free(it);
    if (n_events)
        *n_events = cass_result_row_count(r);
    cass_result_free(r);
    return found;
}

TEST(a_traced_query_is_recorded_in_system_traces)
{
    conn cn;
    open_kv(&cn);
    const char *q = "SELECT v FROM ks.kv WHERE k = 1";
    CassStatement *st = cass_statement_new(q, 0);
    cass_statement_set_paging_size(st, 100);
    cass_statement_set_consistency(st, CASS_CONSISTENCY_QUORUM);
    CassUuid id = traced(cn.session, st);
    cass_statement_free(st);

    char request[64], value[128];
    cass_int32_t duration = 0;
    session_row(cn.session, id, request, sizeof request, &duration, "query", value, sizeof value);
    ASSERT_STR_EQ(request, "Execute CQL3 query");
    ASSERT(duration > 0);
    ASSERT_STR_EQ(value, q);
    session_row(cn.session, id, request, sizeof request, &duration, "consistency_level", value,
                sizeof value);
    ASSERT_STR_EQ(value, "QUORUM");
    session_row(cn.session, id, request, sizeof request, &duration, "page_size", value,
                sizeof value);
    ASSERT_STR_EQ(value, "100");
    session_row(cn.session, id, request, sizeof request, &duration, "serial_consistency_level",
                value, sizeof value);
    ASSERT(value[0] != '\0');

    size_t n = 0;
    ASSERT(has_event(cn.session, id, "Parsing SELECT v FROM ks.kv WHERE k = 1", 0, &n));
    ASSERT(n >= 4);
    ASSERT(has_event(cn.session, id, "Preparing statement", 0, NULL));
    ASSERT(has_event(cn.session, id, "Executing single-partition query on kv", 0, NULL));
    ASSERT(has_event(cn.session, id, "Read 1 live rows and 0 tombstone cells", 0, NULL));

    /* a range read traces its scan */
    st = cass_statement_new("SELECT * FROM ks.kv", 0);
    id = traced(cn.session, st);
    cass_statement_free(st);
    ASSERT(has_event(cn.session, id, "Executing seq scan across 0 sstables for ", 1, NULL));
    ASSERT(has_event(cn.session, id, "Read 2 live rows and 0 tombstone cells", 0, NULL));
    conn_close(&cn);
}

TEST(a_traced_write_traces_its_mutation)
{
    conn cn;
    open_kv(&cn);
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (3, 'three')", 0);
    CassUuid id = traced(cn.session, st);
    cass_statement_free(st);
    ASSERT(has_event(cn.session, id, "Determining replicas for mutation", 0, NULL));
    ASSERT(has_event(cn.session, id, "Appending to commitlog", 0, NULL));
    ASSERT(has_event(cn.session, id, "Adding to kv memtable", 0, NULL));
    const CassResult *r = QUERY(cn.session, "SELECT v FROM ks.kv WHERE k = 3");
    ASSERT_EQ(cass_result_row_count(r), 1); /* and the write is there */
    cass_result_free(r);
    conn_close(&cn);
}

TEST(a_traced_bound_statement_names_its_query_and_values)
{
    conn cn;
    open_kv(&cn);
    const CassPrepared *p = PREPARE(cn.session, "SELECT v FROM ks.kv WHERE k = ?");
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 2), CASS_OK);
    CassUuid id = traced(cn.session, st);
    cass_statement_free(st);
    char request[64], value[128];
    cass_int32_t duration = 0;
    session_row(cn.session, id, request, sizeof request, &duration, "query", value, sizeof value);
    ASSERT_STR_EQ(request, "Execute CQL3 prepared query");
    ASSERT_STR_EQ(value, "SELECT v FROM ks.kv WHERE k = ?");
    session_row(cn.session, id, request, sizeof request, &duration, "bound_var_0_k", value,
                sizeof value);
    ASSERT_STR_EQ(value, "2");
    ASSERT(!has_event(cn.session, id, "Parsing ", 1, NULL)); /* nothing to parse */
    ASSERT(has_event(cn.session, id, "Read 1 live rows and 0 tombstone cells", 0, NULL));
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(a_traced_batch_is_one_trace)
{
    conn cn;
    open_kv(&cn);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *s1 = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (5, 'five')", 0);
    CassStatement *s2 = cass_statement_new("UPDATE ks.kv SET v = 'six' WHERE k = 6", 0);
    cass_batch_add_statement(b, s1);
    cass_batch_add_statement(b, s2);
    ASSERT_EQ(cass_batch_set_tracing(b, cass_true), CASS_OK);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    ASSERT_FUTURE_OK(f);
    CassUuid id;
    ASSERT_EQ(cass_future_tracing_id(f, &id), CASS_OK);
    cass_future_free(f);
    char request[64], value[128];
    cass_int32_t duration = 0;
    session_row(cn.session, id, request, sizeof request, &duration, "query", value, sizeof value);
    ASSERT_STR_EQ(request, "Execute batch of CQL3 queries");
    ASSERT(duration > 0);
    ASSERT_STR_EQ(value, ""); /* a batch names no query */
    ASSERT(has_event(cn.session, id, "Determining replicas for mutation", 0, NULL));
    /* untraced again: no id */
    ASSERT_EQ(cass_batch_set_tracing(b, cass_false), CASS_OK);
    f = cass_session_execute_batch(cn.session, b);
    ASSERT_FUTURE_OK(f);
    ASSERT_EQ(cass_future_tracing_id(f, &id), CASS_ERROR_LIB_NO_TRACING_ID);
    cass_future_free(f);
    cass_statement_free(s1);
    cass_statement_free(s2);
    cass_batch_free(b);
    conn_close(&cn);
}

TEST(an_untraced_or_failed_request_has_no_tracing_id)
{
    conn cn;
    open_kv(&cn);
    /* before any trace, the tables are there and empty */
    const CassResult *r = QUERY(cn.session, "SELECT * FROM system_traces.events");
    ASSERT_EQ(cass_result_column_count(r), 7);
    ASSERT_EQ(cass_result_row_count(r), 0);
    cass_result_free(r);
    CassUuid id;
    CassStatement *st = cass_statement_new("SELECT v FROM ks.kv WHERE k = 1", 0);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    ASSERT_EQ(cass_future_tracing_id(f, &id), CASS_ERROR_LIB_NO_TRACING_ID);
    ASSERT_EQ(cass_future_tracing_id(f, NULL), CASS_ERROR_LIB_BAD_PARAMS);
    cass_future_free(f);
    cass_statement_free(st);
    /* traced, but failed: the response names no trace */
    st = cass_statement_new("SELECT nope FROM ks.kv", 0);
    ASSERT_EQ(cass_statement_set_tracing(st, cass_true), CASS_OK);
    f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_EQ(cass_future_tracing_id(f, &id), CASS_ERROR_LIB_NO_TRACING_ID);
    cass_future_free(f);
    cass_statement_free(st);
    /* a prepare's future is of another kind */
    f = cass_session_prepare(cn.session, "SELECT v FROM ks.kv WHERE k = ?");
    ASSERT_EQ(cass_future_tracing_id(f, &id), CASS_ERROR_LIB_INVALID_FUTURE_TYPE);
    cass_future_free(f);
    ASSERT_EQ(cass_future_tracing_id(NULL, &id), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_set_tracing(NULL, cass_true), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_batch_set_tracing(NULL, cass_true), CASS_ERROR_LIB_BAD_PARAMS);
    conn_close(&cn);
}
