/*
 * The cluster's connection, reconnection, routing and housekeeping settings
 * through the driver API, as an application uses them: only <cassandra.h>.
 *
 * Expectations are the real driver's (DataStax C/C++ driver 2.17,
 * cluster_config.cpp): which values each setter refuses and with which code
 * (CASS_ERROR_LIB_BAD_PARAMS, CASS_ERROR_LIB_HOST_RESOLUTION for a local
 * address that is not numeric), and which it takes. The cloud secure-connect
 * bundle is refused with a logged error (cassette does not load DataStax
 * Astra bundles). None of the settings changes an embedded session: a session
 * on "memory:" connects and runs statements with all of them set.
 */
#include <cassandra.h>

#include <string.h>

#include "driver_test.h"

/* Error messages logged, captured instead of printed. */
static int errors_logged;
static char last_error[512];

static void capture_log(const CassLogMessage *m, void *data)
{
    (void)data;
    if (m->severity == CASS_LOG_ERROR) {
        errors_logged++;
        snprintf(last_error, sizeof last_error, "%.*s", (int)(sizeof last_error - 1), m->message);
    }
}

static void capture_errors(void)
{
    errors_logged = 0;
    last_error[0] = '\0';
    cass_log_set_callback(capture_log, NULL);
}

TEST(cluster_settings_pools_and_io)
{
    CassCluster *c = cass_cluster_new();
    ASSERT(c != NULL);
    ASSERT_EQ(cass_cluster_set_queue_size_io(c, 0), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_queue_size_io(c, 1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_queue_size_io(c, 65536), CASS_OK);
    ASSERT_EQ(cass_cluster_set_core_connections_per_host(c, 0), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_core_connections_per_host(c, 1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_core_connections_per_host(c, 8), CASS_OK);
    ASSERT_EQ(cass_cluster_set_coalesce_delay(c, -1), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_coalesce_delay(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_coalesce_delay(c, 200), CASS_OK);
    ASSERT_EQ(cass_cluster_set_new_request_ratio(c, 0), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_new_request_ratio(c, -5), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_new_request_ratio(c, 101), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_new_request_ratio(c, 1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_new_request_ratio(c, 100), CASS_OK);
    ASSERT_EQ(cass_cluster_set_max_reusable_write_objects(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_max_reusable_write_objects(c, 4096), CASS_OK);
    cass_cluster_free(c);
}

/* The driver deprecated these and takes every value, the low marks above the high ones too. */
TEST(cluster_settings_deprecated_accept_anything)
{
    CassCluster *c = cass_cluster_new();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* deprecated, still in the API */
    ASSERT_EQ(cass_cluster_set_queue_size_event(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_max_connections_per_host(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_max_concurrent_creation(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_max_concurrent_requests_threshold(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_write_bytes_high_water_mark(c, 10), CASS_OK);
    ASSERT_EQ(cass_cluster_set_write_bytes_low_water_mark(c, 100), CASS_OK);
    ASSERT_EQ(cass_cluster_set_pending_requests_high_water_mark(c, 10), CASS_OK);
    ASSERT_EQ(cass_cluster_set_pending_requests_low_water_mark(c, 100), CASS_OK);
    /* a NULL cluster: BAD_PARAMS where the driver would crash */
    ASSERT_EQ(cass_cluster_set_queue_size_event(NULL, 1), CASS_ERROR_LIB_BAD_PARAMS);
#pragma GCC diagnostic pop
    ASSERT_EQ(cass_cluster_set_queue_size_io(NULL, 1), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_core_connections_per_host(NULL, 1), CASS_ERROR_LIB_BAD_PARAMS);
    cass_cluster_free(c);
}

TEST(cluster_settings_reconnection)
{
    capture_errors();
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_exponential_reconnect(c, 0, 1000), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_exponential_reconnect(c, 1, 1000), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_exponential_reconnect(c, 100, 1), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_exponential_reconnect(c, 2000, 1000), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(errors_logged, 4);
    ASSERT_EQ(cass_cluster_set_exponential_reconnect(c, 2, 2), CASS_OK);
    ASSERT_EQ(cass_cluster_set_exponential_reconnect(c, 2000, 600000), CASS_OK);
    ASSERT_EQ(errors_logged, 4);
    /* constant delays take any value */
    cass_cluster_set_constant_reconnect(c, 0);
    cass_cluster_set_constant_reconnect(c, 5000);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* deprecated, still in the API */
    cass_cluster_set_reconnect_wait_time(c, 1000);
#pragma GCC diagnostic pop
    cass_cluster_set_constant_reconnect(NULL, 1);
    ASSERT_EQ(errors_logged, 4);
    cass_cluster_free(c);
    cass_log_set_callback(NULL, NULL);
}

TEST(cluster_settings_local_address)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_local_address(c, "127.0.0.1"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_local_address(c, "::1"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_local_address_n(c, "10.0.0.1xyz", 8), CASS_OK);
    /* names are not looked up: only numeric addresses */
    ASSERT_EQ(cass_cluster_set_local_address(c, "localhost"), CASS_ERROR_LIB_HOST_RESOLUTION);
    ASSERT_EQ(cass_cluster_set_local_address(c, "999.1.1.1"), CASS_ERROR_LIB_HOST_RESOLUTION);
    ASSERT_EQ(cass_cluster_set_local_address(c, "not an address"),
              CASS_ERROR_LIB_HOST_RESOLUTION);
    /* NULL or empty: any address */
    ASSERT_EQ(cass_cluster_set_local_address(c, NULL), CASS_OK);
    ASSERT_EQ(cass_cluster_set_local_address(c, ""), CASS_OK);
    ASSERT_EQ(cass_cluster_set_local_address_n(c, "garbage", 0), CASS_OK);
    cass_cluster_set_resolve_timeout(c, 0);
    cass_cluster_set_resolve_timeout(c, 1000);
    cass_cluster_free(c);
}

TEST(cluster_settings_preparation_monitoring_tracing)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_no_compact(c, cass_true), CASS_OK);
    ASSERT_EQ(cass_cluster_set_no_compact(c, cass_false), CASS_OK);
    ASSERT_EQ(cass_cluster_set_prepare_on_all_hosts(c, cass_false), CASS_OK);
    ASSERT_EQ(cass_cluster_set_prepare_on_up_or_add_host(c, cass_false), CASS_OK);
    ASSERT_EQ(cass_cluster_set_histogram_refresh_interval(c, 0), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_histogram_refresh_interval(c, 1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_histogram_refresh_interval(c, 60000), CASS_OK);
    ASSERT_EQ(cass_cluster_set_no_compact(NULL, cass_true), CASS_ERROR_LIB_BAD_PARAMS);
    cass_cluster_set_monitor_reporting_interval(c, 0);
    cass_cluster_set_tracing_max_wait_time(c, 100);
    cass_cluster_set_tracing_retry_wait_time(c, 10);
    cass_cluster_set_tracing_consistency(c, CASS_CONSISTENCY_QUORUM);
    cass_cluster_free(c);
}

TEST(cluster_settings_routing_and_filters)
{
    capture_errors();
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware(c, NULL, 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware(c, "", 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware_n(c, "dc1", 0, 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware_n(c, NULL, 3, 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT(errors_logged > 0);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware(c, "dc1", 2, cass_true), CASS_OK);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware_n(c, "dc2xyz", 3, 0, cass_false), CASS_OK);
    cass_cluster_set_load_balance_round_robin(c);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware(c, "dc1", 0, cass_false), CASS_OK);

    cass_cluster_set_latency_aware_routing(c, cass_true);
    cass_cluster_set_latency_aware_routing_settings(c, 1.5, 50, 5000, 50, 10);
    cass_cluster_set_latency_aware_routing_settings(c, -1.0, 0, 0, 0, 0); /* taken as given */

    cass_cluster_set_whitelist_filtering(c, "127.0.0.1, 127.0.0.2");
    cass_cluster_set_whitelist_filtering_n(c, "127.0.0.3,xyz", 9);
    cass_cluster_set_whitelist_filtering(c, "");
    cass_cluster_set_whitelist_filtering(c, NULL);
    cass_cluster_set_blacklist_filtering(c, "10.0.0.1");
    cass_cluster_set_blacklist_filtering_n(c, NULL, 0);
    cass_cluster_set_whitelist_dc_filtering(c, "dc1,dc2");
    cass_cluster_set_whitelist_dc_filtering_n(c, "dc3", 3);
    cass_cluster_set_blacklist_dc_filtering(c, "dc9");
    cass_cluster_set_blacklist_dc_filtering_n(c, "", 0);

    ASSERT_EQ(cass_cluster_set_constant_speculative_execution_policy(c, -1, 1),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_constant_speculative_execution_policy(c, 1, -1),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_constant_speculative_execution_policy(c, 0, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_constant_speculative_execution_policy(c, 100, 3), CASS_OK);
    ASSERT_EQ(cass_cluster_set_no_speculative_execution_policy(c), CASS_OK);
    ASSERT_EQ(cass_cluster_set_no_speculative_execution_policy(NULL), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware(NULL, "dc1", 0, cass_false),
              CASS_ERROR_LIB_BAD_PARAMS);
    cass_cluster_set_whitelist_filtering(NULL, "h"); /* nothing to set, no crash */
    cass_cluster_free(c);
    cass_log_set_callback(NULL, NULL);
}

TEST(cluster_settings_cloud_bundle_refused)
{
    capture_errors();
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_cloud_secure_connection_bundle(c, "/tmp/secure-connect.zip"),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(errors_logged, 1);
    ASSERT(strstr(last_error, "Astra") != NULL);
    ASSERT(strstr(last_error, "not supported") != NULL);
    ASSERT(strstr(last_error, "/tmp/secure-connect.zip") != NULL);
    ASSERT_EQ(cass_cluster_set_cloud_secure_connection_bundle_n(c, "/tmp/b.zipxyz", 10),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT(strstr(last_error, "/tmp/b.zip\"") != NULL);
    ASSERT_EQ(cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init(c, "/tmp/b.zip"),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init_n(c, "/tmp/b.zip",
                                                                                10),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_cloud_secure_connection_bundle(c, NULL), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(errors_logged, 5);
    /* the cluster is left as it was: contact points and port can still be set */
    ASSERT_EQ(cass_cluster_set_contact_points(c, "memory:"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_port(c, 9043), CASS_OK);
    cass_cluster_free(c);
    cass_log_set_callback(NULL, NULL);
}

/* Every setting set: an embedded session still connects and runs statements; and so does a
   session on a copy taken before the cluster is changed again and freed. */
TEST(cluster_settings_embedded_session_unaffected)
{
    REMOTE_SKIP("remote, the filters apply: a node they exclude is not used (test_remote)");
    CassCluster *c = memory_cluster();
    ASSERT(c != NULL);
    ASSERT_EQ(cass_cluster_set_queue_size_io(c, 16), CASS_OK);
    ASSERT_EQ(cass_cluster_set_core_connections_per_host(c, 4), CASS_OK);
    ASSERT_EQ(cass_cluster_set_exponential_reconnect(c, 10, 100), CASS_OK);
    ASSERT_EQ(cass_cluster_set_coalesce_delay(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_new_request_ratio(c, 90), CASS_OK);
    ASSERT_EQ(cass_cluster_set_max_reusable_write_objects(c, 1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_local_address(c, "127.0.0.1"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_no_compact(c, cass_true), CASS_OK);
    ASSERT_EQ(cass_cluster_set_prepare_on_all_hosts(c, cass_false), CASS_OK);
    ASSERT_EQ(cass_cluster_set_prepare_on_up_or_add_host(c, cass_false), CASS_OK);
    ASSERT_EQ(cass_cluster_set_histogram_refresh_interval(c, 1000), CASS_OK);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware(c, "elsewhere", 0, cass_false), CASS_OK);
    ASSERT_EQ(cass_cluster_set_constant_speculative_execution_policy(c, 1, 2), CASS_OK);
    cass_cluster_set_resolve_timeout(c, 1);
    cass_cluster_set_monitor_reporting_interval(c, 1);
    cass_cluster_set_tracing_max_wait_time(c, 1);
    cass_cluster_set_tracing_retry_wait_time(c, 1);
    cass_cluster_set_tracing_consistency(c, CASS_CONSISTENCY_ALL);
    cass_cluster_set_latency_aware_routing(c, cass_true);
    cass_cluster_set_latency_aware_routing_settings(c, 1.1, 1, 1, 1, 1);
    /* filters that would exclude every node of a real cluster */
    cass_cluster_set_whitelist_filtering(c, "192.0.2.1");
    cass_cluster_set_blacklist_filtering(c, "127.0.0.1");
    cass_cluster_set_whitelist_dc_filtering(c, "nowhere");
    cass_cluster_set_blacklist_dc_filtering(c, "datacenter1");
    cass_cluster_set_constant_reconnect(c, 1);

    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)");
    RUN(cn.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'one')");
    /* changes after connecting reach nothing the session holds */
    cass_cluster_set_whitelist_filtering(c, "");
    ASSERT_EQ(cass_cluster_set_local_address(c, NULL), CASS_OK);
    const CassResult *r = QUERY(cn.session, "SELECT v FROM ks.kv WHERE k = 1");
    ASSERT_EQ(cass_result_row_count(r), 1);
    const char *v;
    size_t n;
    ASSERT_EQ(cass_value_get_string(cass_row_get_column(cass_result_first_row(r), 0), &v, &n),
              CASS_OK);
    ASSERT_EQ(n, 3);
    ASSERT_MEM_EQ(v, "one", 3);
    cass_result_free(r);
    conn_close(&cn);
}
