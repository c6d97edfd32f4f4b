/*
 * Execution profiles through the driver API, as an application uses them:
 * only <cassandra.h>.
 *
 * Expectations are the real driver's (DataStax C/C++ driver 2.17):
 * execution_profile.cpp and cluster_config.cpp for the setters' checks,
 * config.hpp for the copy a cluster keeps, request_callback.hpp for the
 * precedence (statement, then profile, then cluster), request_processor.cpp
 * for an unknown name (CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID, "NAME does
 * not exist"). The levels are observed through Cassandra's own refusals
 * (ConsistencyLevel.validateForRead: "ANY ConsistencyLevel is only supported
 * for writes"; StorageProxy.cas: "Invalid consistency for conditional
 * update. Must be one of SERIAL or LOCAL_SERIAL"), which a request reaching
 * the executor at another level would not get. Request timeouts cannot be
 * observed embedded (requests run to completion).
 */
#include <cassandra.h>

#include <string.h>

#include "driver_test.h"

#define ANY_REFUSED "ANY ConsistencyLevel is only supported for writes"
#define SERIAL_REFUSED                                                                             \
    "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL"

static const char SELECT_Q[] = "SELECT v FROM ks.kv WHERE k = 1";
static const char LWT_Q[] = "INSERT INTO ks.kv (k, v) VALUES (1, 'a') IF NOT EXISTS";

/* Error messages logged, captured instead of printed. */
static int errors_logged;

static void capture_log(const CassLogMessage *m, void *data)
{
    (void)data;
    if (m->severity == CASS_LOG_ERROR)
        errors_logged++;
}

/* A profile with only a consistency level set. */
static CassExecProfile *profile_at(CassConsistency cl)
{
    CassExecProfile *p = cass_execution_profile_new();
    ASSERT(p != NULL);
    ASSERT_EQ(cass_execution_profile_set_consistency(p, cl), CASS_OK);
    return p;
}

/* Adds a copy of p to the cluster under name, then frees p (the cluster keeps its own). */
static void add_profile(CassCluster *c, const char *name, CassExecProfile *p)
{
    ASSERT_EQ(cass_cluster_set_execution_profile(c, name, p), CASS_OK);
    cass_execution_profile_free(p);
}

/* Connects cn on a memory database whose cluster c (taken over) holds the profiles, with the
   table ks.kv (k int primary key, v text). */
static void open_with(conn *cn, CassCluster *c)
{
    ASSERT_EQ(test_database(c, "memory:"), CASS_OK);
    conn_open_cluster(__FILE__, __LINE__, cn, c);
    RUN(cn->session, KS_CQL);
    RUN(cn->session, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)");
}

/* Runs q naming profile (NULL: none) with the statement's own level cl (UNKNOWN: none); the
   future's code, its message in msg. */
static CassError run_named(CassSession *s, const char *q, const char *profile, CassConsistency cl,
                           char *msg, size_t cap)
{
    CassStatement *st = cass_statement_new(q, 0);
    if (profile)
        ASSERT_EQ(cass_statement_set_execution_profile(st, profile), CASS_OK);
    if (cl != CASS_CONSISTENCY_UNKNOWN)
        ASSERT_EQ(cass_statement_set_consistency(st, cl), CASS_OK);
    CassFuture *f = cass_session_execute(s, st);
    CassError rc = cass_future_error_code(f);
    future_message(f, msg, cap);
    cass_future_free(f);
    cass_statement_free(st);
    return rc;
}

/* ------------------------------------------------------------------------ */

TEST(profile_consistency_reaches_the_statement)
{
    CassCluster *c = cass_cluster_new();
    add_profile(c, "any", profile_at(CASS_CONSISTENCY_ANY));
    add_profile(c, "one", profile_at(CASS_CONSISTENCY_ONE));
    conn cn;
    open_with(&cn, c);
    char msg[256];
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "any", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, ANY_REFUSED);
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "one", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_OK);
    /* without a profile, the cluster's LOCAL_ONE */
    ASSERT_EQ(run_named(cn.session, SELECT_Q, NULL, CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_OK);
    conn_close(&cn);
}

TEST(statement_level_beats_profile_beats_cluster)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_consistency(c, CASS_CONSISTENCY_ANY), CASS_OK);
    add_profile(c, "one", profile_at(CASS_CONSISTENCY_ONE));
    add_profile(c, "any", profile_at(CASS_CONSISTENCY_ANY));
    add_profile(c, "unset", cass_execution_profile_new());
    conn cn;
    open_with(&cn, c);
    char msg[256];
    /* the cluster's ANY alone */
    ASSERT_EQ(run_named(cn.session, SELECT_Q, NULL, CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, ANY_REFUSED);
    /* a profile's level beats the cluster's */
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "one", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_OK);
    /* a profile that sets no level leaves the cluster's */
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "unset", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, ANY_REFUSED);
    /* the statement's own level beats the profile's, either way */
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "one", CASS_CONSISTENCY_ANY, msg, sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, ANY_REFUSED);
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "any", CASS_CONSISTENCY_QUORUM, msg, sizeof msg),
              CASS_OK);
    conn_close(&cn);
}

TEST(profile_serial_consistency_reaches_conditional_writes)
{
    CassCluster *c = cass_cluster_new();
    CassExecProfile *p = cass_execution_profile_new();
    ASSERT_EQ(cass_execution_profile_set_serial_consistency(p, CASS_CONSISTENCY_ONE), CASS_OK);
    add_profile(c, "bad_serial", p);
    conn cn;
    open_with(&cn, c);
    char msg[256];
    ASSERT_EQ(run_named(cn.session, LWT_Q, "bad_serial", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, SERIAL_REFUSED);
    /* the statement's serial level beats the profile's */
    CassStatement *st = cass_statement_new(LWT_Q, 0);
    ASSERT_EQ(cass_statement_set_execution_profile(st, "bad_serial"), CASS_OK);
    ASSERT_EQ(cass_statement_set_serial_consistency(st, CASS_CONSISTENCY_LOCAL_SERIAL), CASS_OK);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
}

TEST(unknown_profile_fails_the_request_as_the_driver)
{
    CassCluster *c = cass_cluster_new();
    add_profile(c, "one", profile_at(CASS_CONSISTENCY_ONE));
    conn cn;
    open_with(&cn, c);
    char msg[256];
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "nope", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID);
    ASSERT_STR_EQ(msg, "nope does not exist");
    /* names are exact: no case folding */
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "ONE", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID);
    ASSERT_STR_EQ(msg, "ONE does not exist");
    /* nothing ran: the write is not there */
    ASSERT_EQ(run_named(cn.session, "INSERT INTO ks.kv (k, v) VALUES (7, 'x')", "nope",
                        CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID);
    const CassResult *r = QUERY(cn.session, "SELECT * FROM ks.kv WHERE k = 7");
    ASSERT_EQ(cass_result_row_count(r), 0);
    cass_result_free(r);

    /* NULL and "" clear the name; so does a length of 0 */
    CassStatement *st = cass_statement_new(SELECT_Q, 0);
    ASSERT_EQ(cass_statement_set_execution_profile(st, "nope"), CASS_OK);
    ASSERT_EQ(cass_statement_set_execution_profile(st, NULL), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    ASSERT_EQ(cass_statement_set_execution_profile(st, "nope"), CASS_OK);
    ASSERT_EQ(cass_statement_set_execution_profile(st, ""), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    ASSERT_EQ(cass_statement_set_execution_profile(st, "nope"), CASS_OK);
    ASSERT_EQ(cass_statement_set_execution_profile_n(st, "nope", 0), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    /* _n takes exactly the bytes given */
    ASSERT_EQ(cass_statement_set_execution_profile_n(st, "onerous", 3), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    ASSERT_EQ(cass_statement_set_execution_profile_n(st, "onerous", 4), CASS_OK);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "oner does not exist");
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
}

TEST(cluster_keeps_a_copy_and_sessions_keep_theirs)
{
    CassCluster *c = cass_cluster_new();
    CassExecProfile *p = profile_at(CASS_CONSISTENCY_ONE);
    ASSERT_EQ(cass_cluster_set_execution_profile(c, "p", p), CASS_OK);
    /* changing the application's profile afterwards changes nothing the cluster holds */
    ASSERT_EQ(cass_execution_profile_set_consistency(p, CASS_CONSISTENCY_ANY), CASS_OK);
    conn cn;
    open_with(&cn, c);
    char msg[256];
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "p", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_OK);
    /* a profile given to the cluster after the connect does not reach the session */
    ASSERT_EQ(cass_cluster_set_execution_profile(c, "late", p), CASS_OK);
    ASSERT_EQ(cass_cluster_set_execution_profile(c, "p", p), CASS_OK);
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "late", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID);
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "p", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_OK);
    /* a session connected now sees both */
    CassSession *s2 = cass_session_new();
    CassFuture *f = cass_session_connect(s2, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_EQ(run_named(s2, "SELECT * FROM system.local", "late", CASS_CONSISTENCY_UNKNOWN, msg,
                        sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, ANY_REFUSED);
    f = cass_session_close(s2);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_session_free(s2);
    cass_execution_profile_free(p);
    conn_close(&cn);
}

TEST(setting_a_profile_again_replaces_it)
{
    CassCluster *c = cass_cluster_new();
    add_profile(c, "p", profile_at(CASS_CONSISTENCY_ONE));
    add_profile(c, "q", profile_at(CASS_CONSISTENCY_ONE));
    add_profile(c, "p", profile_at(CASS_CONSISTENCY_ANY));
    /* _n names the first bytes only: "q" here */
    CassExecProfile *p = profile_at(CASS_CONSISTENCY_ANY);
    ASSERT_EQ(cass_cluster_set_execution_profile_n(c, "qq", 1, p), CASS_OK);
    cass_execution_profile_free(p);
    conn cn;
    open_with(&cn, c);
    char msg[256];
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "p", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, ANY_REFUSED);
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "q", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, ANY_REFUSED);
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "qq", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID);
    conn_close(&cn);
}

TEST(batch_runs_with_its_profile)
{
    CassCluster *c = cass_cluster_new();
    CassExecProfile *p = cass_execution_profile_new();
    ASSERT_EQ(cass_execution_profile_set_serial_consistency(p, CASS_CONSISTENCY_ONE), CASS_OK);
    add_profile(c, "bad_serial", p);
    conn cn;
    open_with(&cn, c);
    char msg[256];
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *st = cass_statement_new(LWT_Q, 0);
    /* a member's profile plays no part: the batch's applies */
    ASSERT_EQ(cass_statement_set_execution_profile(st, "nope"), CASS_OK);
    ASSERT_EQ(cass_batch_add_statement(b, st), CASS_OK);
    cass_statement_free(st);

    ASSERT_EQ(cass_batch_set_execution_profile(b, "bad_serial"), CASS_OK);
    CassFuture *f = cass_session_execute_batch(cn.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), SERIAL_REFUSED);
    cass_future_free(f);

    ASSERT_EQ(cass_batch_set_execution_profile(b, "missing"), CASS_OK);
    f = cass_session_execute_batch(cn.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "missing does not exist");
    cass_future_free(f);

    /* the batch's own serial level beats its profile's */
    ASSERT_EQ(cass_batch_set_execution_profile_n(b, "bad_serial_x", 10), CASS_OK);
    ASSERT_EQ(cass_batch_set_serial_consistency(b, CASS_CONSISTENCY_SERIAL), CASS_OK);
    f = cass_session_execute_batch(cn.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    const CassResult *r = QUERY(cn.session, SELECT_Q);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);

    /* cleared: the cluster's levels */
    ASSERT_EQ(cass_batch_set_execution_profile(b, NULL), CASS_OK);
    ASSERT_EQ(cass_batch_set_serial_consistency(b, CASS_CONSISTENCY_UNKNOWN), CASS_OK);
    f = cass_session_execute_batch(cn.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_batch_free(b);
    conn_close(&cn);
}

TEST(bound_statement_runs_with_its_profile)
{
    CassCluster *c = cass_cluster_new();
    add_profile(c, "any", profile_at(CASS_CONSISTENCY_ANY));
    conn cn;
    open_with(&cn, c);
    CassFuture *f = cass_session_prepare(cn.session, "SELECT v FROM ks.kv WHERE k = ?");
    ASSERT_FUTURE_OK(f);
    const CassPrepared *prep = cass_future_get_prepared(f);
    cass_future_free(f);
    CassStatement *st = cass_prepared_bind(prep);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    ASSERT_EQ(cass_statement_set_execution_profile(st, "any"), CASS_OK);
    f = cass_session_execute(cn.session, st);
    char msg[256];
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), ANY_REFUSED);
    cass_future_free(f);
    cass_statement_free(st);
    cass_prepared_free(prep);
    conn_close(&cn);
}

TEST(routing_settings_are_checked_and_change_nothing_embedded)
{
    REMOTE_SKIP("remote, the filters apply: a node they exclude is not used (test_remote)");
    CassRetryPolicy *retry = cass_retry_policy_fallthrough_new();
    CassExecProfile *p = profile_at(CASS_CONSISTENCY_ONE);
    ASSERT_EQ(cass_execution_profile_set_request_timeout(p, 1), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_load_balance_round_robin(p), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_load_balance_dc_aware(p, "dc1", 2, cass_true), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_load_balance_dc_aware_n(p, "dc2x", 3, 0, cass_false),
              CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_token_aware_routing(p, cass_false), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_token_aware_routing_shuffle_replicas(p, cass_false),
              CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_latency_aware_routing(p, cass_true), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_latency_aware_routing_settings(p, -1.0, 0, 0, 0, 0),
              CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_whitelist_filtering(p, " 10.0.0.9 , ,10.0.0.8"), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_blacklist_filtering(p, "127.0.0.1"), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_whitelist_dc_filtering(p, "far"), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_blacklist_dc_filtering_n(p, "dc1,dc2", 7), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_retry_policy(p, retry), CASS_OK);
    cass_retry_policy_free(retry); /* the profile holds its own reference */
    ASSERT_EQ(cass_execution_profile_set_constant_speculative_execution_policy(p, 0, 0), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_constant_speculative_execution_policy(p, 10, 2), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_no_speculative_execution_policy(p), CASS_OK);
    CassCluster *c = cass_cluster_new();
    add_profile(c, "routed", p);
    conn cn;
    open_with(&cn, c);
    char msg[256];
    /* one node: filters that exclude it, a 1 ms timeout, policies -- the request still runs */
    ASSERT_EQ(run_named(cn.session, LWT_Q, "routed", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_OK);
    ASSERT_EQ(run_named(cn.session, SELECT_Q, "routed", CASS_CONSISTENCY_UNKNOWN, msg, sizeof msg),
              CASS_OK);
    conn_close(&cn);
}

TEST(setters_check_their_parameters_as_the_driver)
{
    cass_log_set_level(CASS_LOG_ERROR);
    cass_log_set_callback(capture_log, NULL);
    errors_logged = 0;
    CassExecProfile *p = cass_execution_profile_new();
    ASSERT(p != NULL);
    /* DC-aware needs a local DC */
    ASSERT_EQ(cass_execution_profile_set_load_balance_dc_aware(p, NULL, 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_load_balance_dc_aware(p, "", 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_load_balance_dc_aware_n(p, "dc1", 0, 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(errors_logged, 3);
    /* constant speculative executions need non-negative numbers */
    ASSERT_EQ(cass_execution_profile_set_constant_speculative_execution_policy(p, -1, 1),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_constant_speculative_execution_policy(p, 1, -1),
              CASS_ERROR_LIB_BAD_PARAMS);
    /* the filters take empty texts (clearing) and NULL */
    ASSERT_EQ(cass_execution_profile_set_whitelist_filtering(p, ""), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_whitelist_filtering(p, NULL), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_blacklist_filtering_n(p, NULL, 0), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_whitelist_dc_filtering_n(p, "", 0), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_blacklist_dc_filtering(p, NULL), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_retry_policy(p, NULL), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_request_timeout(p, CASS_UINT64_MAX), CASS_OK);
    ASSERT_EQ(cass_execution_profile_set_consistency(p, CASS_CONSISTENCY_UNKNOWN), CASS_OK);

    /* the cluster needs a name and a profile */
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_execution_profile(c, NULL, p), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_execution_profile(c, "", p), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_execution_profile_n(c, "p", 0, p), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_execution_profile(c, "p", NULL), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_execution_profile(NULL, "p", p), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_execution_profile(c, "p", p), CASS_OK);

    /* NULL handles: BAD_PARAMS where the driver would crash */
    ASSERT_EQ(cass_execution_profile_set_consistency(NULL, CASS_CONSISTENCY_ONE),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_serial_consistency(NULL, CASS_CONSISTENCY_SERIAL),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_request_timeout(NULL, 5), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_load_balance_round_robin(NULL), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_whitelist_filtering(NULL, "h"), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_execution_profile_set_no_speculative_execution_policy(NULL),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_set_execution_profile(NULL, "p"), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_batch_set_execution_profile(NULL, "p"), CASS_ERROR_LIB_BAD_PARAMS);
    cass_execution_profile_free(NULL);

    cass_execution_profile_free(p);
    cass_cluster_free(c);
    cass_log_set_callback(NULL, NULL);
}
