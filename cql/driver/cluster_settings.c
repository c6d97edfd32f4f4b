/*
 * The cluster's connection, reconnection, routing and housekeeping settings of
 * the driver API: pools, reconnection policies, write coalescing, the local
 * address, preparation on other hosts, tracing waits, load balancing, host and
 * DC filters, latency-aware routing, speculative executions, and the refused
 * cloud secure-connect bundle.
 *
 * Each setter checks its arguments exactly where the driver does
 * (cluster_config.cpp of 2.17), with its return codes, and records the value
 * in the CassCluster (driver_int.h), whose copy a session takes when it
 * connects (cql_drv_cluster_copy). None of them changes the embedded backend:
 * one in-process database has no pools, hosts, reconnections or routing. The
 * remote backend (remote_cluster.c, backend_remote.c) reads the pool size,
 * reconnection policy, load balancing, filters, token-aware routing,
 * speculative policy, preparation on all hosts and the host listener; the
 * rest (I/O threads and queues, coalescing, latency-aware routing, tracing
 * waits, ...) is recorded only (docs/api.md says which).
 *
 * The setters the driver deprecated and ignores (max connections per host,
 * concurrent creation, the water marks, the event queue) are accepted and
 * ignored here too.
 *
 * The load-balancing, routing, filtering and speculative settings are the
 * driver's default profile: they live in cluster->routing, a CassExecProfile
 * set through profile.c's setters, so cluster and profiles check and keep them
 * the same way. A NULL cluster gets CASS_ERROR_LIB_BAD_PARAMS (or nothing, for
 * a void setter) where the driver would crash.
 */
#include <string.h>
#include <strings.h>

#include "cassette.h"
#include "cql/driver/driver_int.h"

#define BAD CASS_ERROR_LIB_BAD_PARAMS

/* ---- pools and I/O (the remote backend's core connections per host) ---- */

CassError cass_cluster_set_queue_size_io(CassCluster *cluster, unsigned queue_size)
{
    if (!cluster || queue_size == 0)
        return BAD;
    cluster->queue_size_io = queue_size;
    return CASS_OK;
}

CassError cass_cluster_set_queue_size_event(CassCluster *cluster, unsigned queue_size)
{
    (void)queue_size; /* deprecated: the driver ignores it */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_core_connections_per_host(CassCluster *cluster, unsigned num_connections)
{
    if (!cluster || num_connections == 0)
        return BAD;
    cluster->core_connections = num_connections;
    return CASS_OK;
}

CassError cass_cluster_set_max_connections_per_host(CassCluster *cluster, unsigned num_connections)
{
    (void)num_connections; /* deprecated: the driver ignores it */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_max_concurrent_creation(CassCluster *cluster, unsigned num_connections)
{
    (void)num_connections; /* deprecated */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_max_concurrent_requests_threshold(CassCluster *cluster,
                                                             unsigned num_requests)
{
    (void)num_requests; /* deprecated */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_write_bytes_high_water_mark(CassCluster *cluster, unsigned num_bytes)
{
    (void)num_bytes; /* deprecated: no check against the low mark in the driver either */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_write_bytes_low_water_mark(CassCluster *cluster, unsigned num_bytes)
{
    (void)num_bytes; /* deprecated */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_pending_requests_high_water_mark(CassCluster *cluster,
                                                            unsigned num_requests)
{
    (void)num_requests; /* deprecated */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_pending_requests_low_water_mark(CassCluster *cluster,
                                                           unsigned num_requests)
{
    (void)num_requests; /* deprecated */
    return cluster ? CASS_OK : BAD;
}

CassError cass_cluster_set_coalesce_delay(CassCluster *cluster, cass_int64_t delay_us)
{
    if (!cluster || delay_us < 0)
        return BAD;
    cluster->coalesce_delay_us = delay_us;
    return CASS_OK;
}

CassError cass_cluster_set_new_request_ratio(CassCluster *cluster, cass_int32_t ratio)
{
    if (!cluster || ratio <= 0 || ratio > 100)
        return BAD;
    cluster->new_request_ratio = ratio;
    return CASS_OK;
}

/* Every count is taken (the driver checks none). */
CassError cass_cluster_set_max_reusable_write_objects(CassCluster *cluster, unsigned num_objects)
{
    if (!cluster)
        return BAD;
    cluster->max_reusable_write_objects = num_objects;
    return CASS_OK;
}

/* ---- reconnection: the remote backend's monitor waits as the policy says ---- */

void cass_cluster_set_constant_reconnect(CassCluster *cluster, cass_uint64_t delay_ms)
{
    if (!cluster)
        return;
    cluster->reconnect = CQL_DRV_RECONNECT_CONSTANT;
    cluster->reconnect_base_ms = delay_ms;
    cluster->reconnect_max_ms = delay_ms;
}

/* Deprecated by the driver: a constant policy with that delay. */
void cass_cluster_set_reconnect_wait_time(CassCluster *cluster, unsigned wait_time)
{
    cass_cluster_set_constant_reconnect(cluster, wait_time);
}

CassError cass_cluster_set_exponential_reconnect(CassCluster *cluster, cass_uint64_t base_delay_ms,
                                                 cass_uint64_t max_delay_ms)
{
    if (!cluster)
        return BAD;
    const char *why = NULL;
    if (base_delay_ms <= 1)
        why = "The base delay of an exponential reconnection policy must be above 1 ms.";
    else if (max_delay_ms <= 1)
        why = "The maximum delay of an exponential reconnection policy must be above 1 ms.";
    else if (max_delay_ms < base_delay_ms)
        why = "The maximum delay of an exponential reconnection policy is below its base delay.";
    if (why) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__, "%s", why);
        return BAD;
    }
    cluster->reconnect = CQL_DRV_RECONNECT_EXPONENTIAL;
    cluster->reconnect_base_ms = base_delay_ms;
    cluster->reconnect_max_ms = max_delay_ms;
    return CASS_OK;
}

/* ---- addresses and timeouts ---- */

void cass_cluster_set_resolve_timeout(CassCluster *cluster, unsigned timeout_ms)
{
    if (cluster)
        cluster->resolve_timeout_ms = timeout_ms;
}

CassError cass_cluster_set_local_address(CassCluster *cluster, const char *name)
{
    return cass_cluster_set_local_address_n(cluster, name, name ? strlen(name) : 0);
}

/* The driver's rule: NULL or "" binds to any address; otherwise a numeric IPv4 or IPv6 address
   (no name lookup), else CASS_ERROR_LIB_HOST_RESOLUTION. */
CassError cass_cluster_set_local_address_n(CassCluster *cluster, const char *name,
                                           size_t name_length)
{
    if (!cluster)
        return BAD;
    if (!name || name_length == 0) {
        eng_free(cluster->local_address);
        cluster->local_address = NULL;
        return CASS_OK;
    }
    CassInet inet;
    if (cass_inet_from_string_n(name, name_length, &inet) != CASS_OK)
        return CASS_ERROR_LIB_HOST_RESOLUTION;
    char *copy = eng_strndup(name, name_length);
    if (!copy)
        return CQL_DRV_NOMEM;
    eng_free(cluster->local_address);
    cluster->local_address = copy;
    return CASS_OK;
}

/* ---- protocol and preparation ---- */

CassError cass_cluster_set_no_compact(CassCluster *cluster, cass_bool_t enabled)
{
    if (!cluster)
        return BAD;
    cluster->no_compact = enabled ? cass_true : cass_false;
    return CASS_OK;
}

CassError cass_cluster_set_prepare_on_all_hosts(CassCluster *cluster, cass_bool_t enabled)
{
    if (!cluster)
        return BAD;
    cluster->prepare_on_all_hosts = enabled ? cass_true : cass_false;
    return CASS_OK;
}

CassError cass_cluster_set_prepare_on_up_or_add_host(CassCluster *cluster, cass_bool_t enabled)
{
    if (!cluster)
        return BAD;
    cluster->prepare_on_up_or_add_host = enabled ? cass_true : cass_false;
    return CASS_OK;
}

/* ---- monitoring and tracing ---- */

CassError cass_cluster_set_histogram_refresh_interval(CassCluster *cluster,
                                                      unsigned refresh_interval)
{
    if (!cluster || refresh_interval == 0)
        return BAD;
    cluster->histogram_refresh_interval = refresh_interval;
    return CASS_OK;
}

void cass_cluster_set_monitor_reporting_interval(CassCluster *cluster, unsigned interval_secs)
{
    if (cluster)
        cluster->monitor_reporting_interval_s = interval_secs;
}

void cass_cluster_set_tracing_max_wait_time(CassCluster *cluster, unsigned max_wait_time_ms)
{
    if (cluster)
        cluster->tracing_max_wait_ms = max_wait_time_ms;
}

void cass_cluster_set_tracing_retry_wait_time(CassCluster *cluster, unsigned retry_wait_time_ms)
{
    if (cluster)
        cluster->tracing_retry_wait_ms = retry_wait_time_ms;
}

/* Taken as given, as the driver does. */
void cass_cluster_set_tracing_consistency(CassCluster *cluster, CassConsistency consistency)
{
    if (cluster)
        cluster->tracing_consistency = consistency;
}

/* ---- load balancing, routing and filters: the default profile's, through profile.c ---- */

CassError cass_cluster_set_load_balance_dc_aware(CassCluster *cluster, const char *local_dc,
                                                 unsigned used_hosts_per_remote_dc,
                                                 cass_bool_t allow_remote_dcs_for_local_cl)
{
    return cass_cluster_set_load_balance_dc_aware_n(cluster, local_dc,
                                                    local_dc ? strlen(local_dc) : 0,
                                                    used_hosts_per_remote_dc,
                                                    allow_remote_dcs_for_local_cl);
}

CassError cass_cluster_set_load_balance_dc_aware_n(CassCluster *cluster, const char *local_dc,
                                                   size_t local_dc_length,
                                                   unsigned used_hosts_per_remote_dc,
                                                   cass_bool_t allow_remote_dcs_for_local_cl)
{
    if (!cluster)
        return BAD;
    return cass_execution_profile_set_load_balance_dc_aware_n(&cluster->routing, local_dc,
                                                              local_dc_length,
                                                              used_hosts_per_remote_dc,
                                                              allow_remote_dcs_for_local_cl);
}

void cass_cluster_set_latency_aware_routing(CassCluster *cluster, cass_bool_t enabled)
{
    if (cluster)
        (void)cass_execution_profile_set_latency_aware_routing(&cluster->routing, enabled);
}

/* Every value is taken (the driver checks none). */
void cass_cluster_set_latency_aware_routing_settings(CassCluster *cluster,
                                                     cass_double_t exclusion_threshold,
                                                     cass_uint64_t scale_ms,
                                                     cass_uint64_t retry_period_ms,
                                                     cass_uint64_t update_rate_ms,
                                                     cass_uint64_t min_measured)
{
    if (cluster)
        (void)cass_execution_profile_set_latency_aware_routing_settings(
            &cluster->routing, exclusion_threshold, scale_ms, retry_period_ms, update_rate_ms,
            min_measured);
}

/* The lists: length 0 clears, otherwise the entries are appended (profile.c, the driver's
   explode). The driver cannot fail here; out of memory the list stays as it was. */

void cass_cluster_set_whitelist_filtering(CassCluster *cluster, const char *hosts)
{
    cass_cluster_set_whitelist_filtering_n(cluster, hosts, hosts ? strlen(hosts) : 0);
}

void cass_cluster_set_whitelist_filtering_n(CassCluster *cluster, const char *hosts,
                                            size_t hosts_length)
{
    if (cluster)
        (void)cass_execution_profile_set_whitelist_filtering_n(&cluster->routing, hosts,
                                                               hosts_length);
}

void cass_cluster_set_blacklist_filtering(CassCluster *cluster, const char *hosts)
{
    cass_cluster_set_blacklist_filtering_n(cluster, hosts, hosts ? strlen(hosts) : 0);
}

void cass_cluster_set_blacklist_filtering_n(CassCluster *cluster, const char *hosts,
                                            size_t hosts_length)
{
    if (cluster)
        (void)cass_execution_profile_set_blacklist_filtering_n(&cluster->routing, hosts,
                                                               hosts_length);
}

void cass_cluster_set_whitelist_dc_filtering(CassCluster *cluster, const char *dcs)
{
    cass_cluster_set_whitelist_dc_filtering_n(cluster, dcs, dcs ? strlen(dcs) : 0);
}

void cass_cluster_set_whitelist_dc_filtering_n(CassCluster *cluster, const char *dcs,
                                               size_t dcs_length)
{
    if (cluster)
        (void)cass_execution_profile_set_whitelist_dc_filtering_n(&cluster->routing, dcs,
                                                                  dcs_length);
}

void cass_cluster_set_blacklist_dc_filtering(CassCluster *cluster, const char *dcs)
{
    cass_cluster_set_blacklist_dc_filtering_n(cluster, dcs, dcs ? strlen(dcs) : 0);
}

void cass_cluster_set_blacklist_dc_filtering_n(CassCluster *cluster, const char *dcs,
                                               size_t dcs_length)
{
    if (cluster)
        (void)cass_execution_profile_set_blacklist_dc_filtering_n(&cluster->routing, dcs,
                                                                  dcs_length);
}

/* ---- speculative executions: the remote backend's, for idempotent requests ---- */

CassError cass_cluster_set_constant_speculative_execution_policy(CassCluster *cluster,
                                                                 cass_int64_t constant_delay_ms,
                                                                 int max_speculative_executions)
{
    if (!cluster)
        return BAD;
    return cass_execution_profile_set_constant_speculative_execution_policy(
        &cluster->routing, constant_delay_ms, max_speculative_executions);
}

CassError cass_cluster_set_no_speculative_execution_policy(CassCluster *cluster)
{
    if (!cluster)
        return BAD;
    return cass_execution_profile_set_no_speculative_execution_policy(&cluster->routing);
}

/* ---- cloud secure-connect bundles: refused ---- */

/*
 * A DataStax Astra bundle (a zip of certificates and a metadata-service address) is not
 * supported: every call fails with CASS_ERROR_LIB_BAD_PARAMS, the code the driver gives a bundle
 * it cannot use, and logs why. The cluster is left as it was.
 */
static CassError refuse_bundle(CassCluster *cluster, const char *path, size_t path_length)
{
    (void)cluster;
    cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                "Cloud secure connection bundles (DataStax Astra) are not supported by cassette: "
                "\"%.*s\" was not loaded; set contact points instead.",
                path ? (int)(path_length > 512 ? 512 : path_length) : 0, path ? path : "");
    return BAD;
}

CassError cass_cluster_set_cloud_secure_connection_bundle(CassCluster *cluster, const char *path)
{
    return cass_cluster_set_cloud_secure_connection_bundle_n(cluster, path,
                                                             path ? strlen(path) : 0);
}

CassError cass_cluster_set_cloud_secure_connection_bundle_n(CassCluster *cluster, const char *path,
                                                            size_t path_length)
{
    return refuse_bundle(cluster, path, path_length);
}

CassError cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init(CassCluster *cluster,
                                                                          const char *path)
{
    return cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init_n(
        cluster, path, path ? strlen(path) : 0);
}

CassError cass_cluster_set_cloud_secure_connection_bundle_no_ssl_lib_init_n(CassCluster *cluster,
                                                                            const char *path,
                                                                            size_t path_length)
{
    return refuse_bundle(cluster, path, path_length);
}

CassError cass_cluster_set_host_listener_callback(CassCluster *cluster,
                                                  CassHostListenerCallback callback, void *data)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->host_listener = callback;
    cluster->host_listener_data = data;
    return CASS_OK;
}

int cql_drv_compression_by_name(const char *name, size_t len)
{
    if (len == 3 && !strncasecmp(name, "lz4", 3))
        return CQL_DRV_COMPRESS_LZ4;
    if (len == 6 && !strncasecmp(name, "snappy", 6))
        return CQL_DRV_COMPRESS_SNAPPY;
    if (len == 4 && !strncasecmp(name, "none", 4))
        return CQL_DRV_COMPRESS_NONE;
    return -1;
}

int cassette_cluster_set_compression(CassCluster *cluster, const char *name)
{
    int c = cluster && name ? cql_drv_compression_by_name(name, strlen(name)) : -1;
    if (c < 0)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->compression = c;
    return 0;
}
