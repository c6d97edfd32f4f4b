/*
 * Execution profiles of the driver API: named sets of request settings that a
 * cluster keeps and a statement or batch picks by name.
 *
 * A profile is a value object. cass_cluster_set_execution_profile stores a deep
 * copy under its name (replacing a profile of the same name), so changing or
 * freeing the application's profile afterwards changes nothing the cluster
 * holds; a session's copy of the cluster (cql_drv_cluster_copy) copies the
 * profiles again, so a session sees the profiles as they were when it
 * connected, as with the driver (Config is copied when a session connects).
 * Initializing, copying and freeing profiles is cluster.c's
 * (cql_drv_profile_init, _copy, _clear), which owns the cluster's copies.
 *
 * At execution (session.c) each request setting resolves as the driver's
 * RequestWrapper does: the statement's (or batch's) own when set, else the
 * named profile's when set, else the cluster's default. A name no profile of
 * the session's cluster has fails the request with
 * CASS_ERROR_LIB_EXECUTION_PROFILE_INVALID ("NAME does not exist", the
 * driver's request_processor.cpp).
 *
 * The routing settings (load balancing, token- and latency-aware routing, host
 * and DC filters), the retry policy and the speculative-execution policy are
 * checked exactly where the driver checks them (execution_profile.cpp: a
 * DC-aware policy needs a local DC, a constant speculative policy needs
 * non-negative numbers) and kept for the remote backend. The embedded backend
 * has one node, so none of them changes anything there. The cluster's own
 * routing settings (cluster_settings.c) are a profile too, set through these
 * setters.
 *
 * Setters on a NULL profile return CASS_ERROR_LIB_BAD_PARAMS where the driver
 * would crash.
 */
#include <string.h>

#include "cql/driver/driver_int.h"

/* ---- the profile object ---- */

CassExecProfile *cass_execution_profile_new(void)
{
    CassExecProfile *p = eng_malloc(sizeof *p);
    if (p)
        cql_drv_profile_init(p);
    return p;
}

void cass_execution_profile_free(CassExecProfile *profile)
{
    if (!profile)
        return;
    cql_drv_profile_clear(profile);
    eng_free(profile);
}

/* ---- request settings ---- */

/* CASS_UINT64_MAX unsets it (the cluster's then applies); 0 is no timeout. */
CassError cass_execution_profile_set_request_timeout(CassExecProfile *profile,
                                                     cass_uint64_t timeout_ms)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->request_timeout_ms = timeout_ms;
    return CASS_OK;
}

/* Taken as given, as the driver does (UNKNOWN unsets it); Cassandra judges the level. */
CassError cass_execution_profile_set_consistency(CassExecProfile *profile,
                                                 CassConsistency consistency)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->consistency = consistency;
    return CASS_OK;
}

CassError cass_execution_profile_set_serial_consistency(CassExecProfile *profile,
                                                        CassConsistency serial_consistency)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->serial_consistency = serial_consistency;
    return CASS_OK;
}

/* ---- load balancing and routing: kept for the remote backend ---- */

CassError cass_execution_profile_set_load_balance_round_robin(CassExecProfile *profile)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    eng_free(profile->local_dc);
    profile->local_dc = NULL;
    profile->load_balance = CQL_DRV_LB_ROUND_ROBIN;
    return CASS_OK;
}

CassError
cass_execution_profile_set_load_balance_dc_aware(CassExecProfile *profile, const char *local_dc,
                                                 unsigned used_hosts_per_remote_dc,
                                                 cass_bool_t allow_remote_dcs_for_local_cl)
{
    return cass_execution_profile_set_load_balance_dc_aware_n(
        profile, local_dc, local_dc ? strlen(local_dc) : 0, used_hosts_per_remote_dc,
        allow_remote_dcs_for_local_cl);
}

CassError cass_execution_profile_set_load_balance_dc_aware_n(
    CassExecProfile *profile, const char *local_dc, size_t local_dc_length,
    unsigned used_hosts_per_remote_dc, cass_bool_t allow_remote_dcs_for_local_cl)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (!local_dc || local_dc_length == 0) {
        /* The driver's check: a DC-aware policy needs its local data center. */
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "A DC-aware load balancing policy needs a local data center name.");
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
    char *dc = eng_strndup(local_dc, local_dc_length);
    if (!dc)
        return CQL_DRV_NOMEM;
    eng_free(profile->local_dc);
    profile->local_dc = dc;
    profile->used_hosts_per_remote_dc = used_hosts_per_remote_dc;
    profile->allow_remote_dcs_for_local_cl = allow_remote_dcs_for_local_cl ? cass_true : cass_false;
    profile->load_balance = CQL_DRV_LB_DC_AWARE;
    return CASS_OK;
}

CassError cass_execution_profile_set_token_aware_routing(CassExecProfile *profile,
                                                         cass_bool_t enabled)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->token_aware = enabled ? cass_true : cass_false;
    return CASS_OK;
}

CassError cass_execution_profile_set_token_aware_routing_shuffle_replicas(CassExecProfile *profile,
                                                                          cass_bool_t enabled)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->shuffle_replicas = enabled ? cass_true : cass_false;
    return CASS_OK;
}

CassError cass_execution_profile_set_latency_aware_routing(CassExecProfile *profile,
                                                           cass_bool_t enabled)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->latency_aware = enabled ? cass_true : cass_false;
    return CASS_OK;
}

/* The driver takes every value here (execution_profile.cpp checks none). */
CassError cass_execution_profile_set_latency_aware_routing_settings(
    CassExecProfile *profile, cass_double_t exclusion_threshold, cass_uint64_t scale_ms,
    cass_uint64_t retry_period_ms, cass_uint64_t update_rate_ms, cass_uint64_t min_measured)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->exclusion_threshold = exclusion_threshold;
    profile->scale_ms = scale_ms;
    profile->retry_period_ms = retry_period_ms;
    profile->update_rate_ms = update_rate_ms;
    profile->min_measured = min_measured;
    return CASS_OK;
}

/*
 * The driver's filter lists (utils.cpp explode): length 0 clears the list; otherwise each
 * comma-separated entry, spaces around it dropped, is appended when not empty (so a text of
 * only commas and spaces leaves the list as it was).
 */
static CassError list_set(CassExecProfile *profile, char **slot, const char *text, size_t len)
{
    if (!profile || (!text && len))
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (len == 0) {
        eng_free(*slot);
        *slot = NULL;
        return CASS_OK;
    }
    eng_buf b = ENG_BUF_INIT;
    if (*slot)
        eng_buf_put_str(&b, *slot);
    size_t had = b.len;
    cql_drv_list_append(&b, text, len);
    if (b.len == had) { /* nothing to append */
        eng_buf_free(&b);
        return CASS_OK;
    }
    char *joined = eng_buf_cstr(&b);
    if (b.oom || !joined) {
        eng_buf_free(&b);
        return CQL_DRV_NOMEM;
    }
    eng_free(*slot);
    *slot = joined; /* the buffer's bytes, now owned by the profile */
    return CASS_OK;
}

CassError cass_execution_profile_set_whitelist_filtering(CassExecProfile *profile,
                                                         const char *hosts)
{
    return cass_execution_profile_set_whitelist_filtering_n(profile, hosts,
                                                            hosts ? strlen(hosts) : 0);
}

CassError cass_execution_profile_set_whitelist_filtering_n(CassExecProfile *profile,
                                                           const char *hosts, size_t hosts_length)
{
    return list_set(profile, profile ? &profile->whitelist : NULL, hosts, hosts_length);
}

CassError cass_execution_profile_set_blacklist_filtering(CassExecProfile *profile,
                                                         const char *hosts)
{
    return cass_execution_profile_set_blacklist_filtering_n(profile, hosts,
                                                            hosts ? strlen(hosts) : 0);
}

CassError cass_execution_profile_set_blacklist_filtering_n(CassExecProfile *profile,
                                                           const char *hosts, size_t hosts_length)
{
    return list_set(profile, profile ? &profile->blacklist : NULL, hosts, hosts_length);
}

CassError cass_execution_profile_set_whitelist_dc_filtering(CassExecProfile *profile,
                                                            const char *dcs)
{
    return cass_execution_profile_set_whitelist_dc_filtering_n(profile, dcs, dcs ? strlen(dcs) : 0);
}

CassError cass_execution_profile_set_whitelist_dc_filtering_n(CassExecProfile *profile,
                                                              const char *dcs, size_t dcs_length)
{
    return list_set(profile, profile ? &profile->whitelist_dc : NULL, dcs, dcs_length);
}

CassError cass_execution_profile_set_blacklist_dc_filtering(CassExecProfile *profile,
                                                            const char *dcs)
{
    return cass_execution_profile_set_blacklist_dc_filtering_n(profile, dcs, dcs ? strlen(dcs) : 0);
}

CassError cass_execution_profile_set_blacklist_dc_filtering_n(CassExecProfile *profile,
                                                              const char *dcs, size_t dcs_length)
{
    return list_set(profile, profile ? &profile->blacklist_dc : NULL, dcs, dcs_length);
}

/* ---- retries and speculative executions: kept for the remote backend ---- */

/* NULL clears it (the cluster's then applies). */
CassError cass_execution_profile_set_retry_policy(CassExecProfile *profile,
                                                  CassRetryPolicy *retry_policy)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    CassRetryPolicy *old = profile->retry_policy;
    profile->retry_policy = cql_drv_retry_policy_ref(retry_policy);
    cass_retry_policy_free(old);
    return CASS_OK;
}

CassError cass_execution_profile_set_constant_speculative_execution_policy(
    CassExecProfile *profile, cass_int64_t constant_delay_ms, int max_speculative_executions)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (constant_delay_ms < 0 || max_speculative_executions < 0) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "A constant speculative execution policy needs a delay and a count of at "
                    "least 0 (got %lld ms, %d).",
                    (long long)constant_delay_ms, max_speculative_executions);
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
    profile->speculative = CQL_DRV_SPEC_CONSTANT;
    profile->spec_delay_ms = constant_delay_ms;
    profile->spec_max = max_speculative_executions;
    return CASS_OK;
}

CassError cass_execution_profile_set_no_speculative_execution_policy(CassExecProfile *profile)
{
    if (!profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    profile->speculative = CQL_DRV_SPEC_NONE;
    profile->spec_delay_ms = 0;
    profile->spec_max = 0;
    return CASS_OK;
}

/* ---- the cluster's profiles ---- */

static cql_drv_named_profile *find_entry(const CassCluster *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->n_profiles; i++)
        if (c->profiles[i].name_len == len && memcmp(c->profiles[i].name, name, len) == 0)
            return &c->profiles[i];
    return NULL;
}

const CassExecProfile *cql_drv_profile_find(const CassCluster *c, const char *name, size_t len)
{
    const cql_drv_named_profile *e = c && name ? find_entry(c, name, len) : NULL;
    return e ? &e->profile : NULL;
}

CassError cass_cluster_set_execution_profile(CassCluster *cluster, const char *name,
                                             CassExecProfile *profile)
{
    return cass_cluster_set_execution_profile_n(cluster, name, name ? strlen(name) : 0, profile);
}

/* The driver's checks: a name and a profile (cluster_config.cpp). */
CassError cass_cluster_set_execution_profile_n(CassCluster *cluster, const char *name,
                                               size_t name_length, CassExecProfile *profile)
{
    if (!cluster || !name || name_length == 0 || !profile)
        return CASS_ERROR_LIB_BAD_PARAMS;
    CassExecProfile copy;
    if (cql_drv_profile_copy(&copy, profile))
        return CQL_DRV_NOMEM;
    cql_drv_named_profile *e = find_entry(cluster, name, name_length);
    if (e) { /* a profile of that name is replaced */
        cql_drv_profile_clear(&e->profile);
        e->profile = copy;
        return CASS_OK;
    }
    char *n = eng_strndup(name, name_length);
    cql_drv_named_profile *grown =
        n ? eng_realloc(cluster->profiles, (cluster->n_profiles + 1) * sizeof *grown) : NULL;
    if (!grown) {
        eng_free(n);
        cql_drv_profile_clear(&copy);
        return CQL_DRV_NOMEM;
    }
    cluster->profiles = grown;
    grown[cluster->n_profiles++] = (cql_drv_named_profile){n, name_length, copy};
    return CASS_OK;
}

/* ---- statements and batches name a profile ---- */

/* Replaces *slot with a copy of name[0..len); NULL or "" clears it (the driver's rule). */
static CassError name_set(char **slot, size_t *slot_len, const char *name, size_t len)
{
    char *copy = NULL;
    if (name && len && !(copy = eng_strndup(name, len)))
        return CQL_DRV_NOMEM;
    eng_free(*slot);
    *slot = copy;
    *slot_len = copy ? len : 0;
    return CASS_OK;
}

CassError cass_statement_set_execution_profile(CassStatement *statement, const char *name)
{
    return cass_statement_set_execution_profile_n(statement, name, name ? strlen(name) : 0);
}

CassError cass_statement_set_execution_profile_n(CassStatement *statement, const char *name,
                                                 size_t name_length)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return name_set(&statement->profile, &statement->profile_len, name, name_length);
}

CassError cass_batch_set_execution_profile(CassBatch *batch, const char *name)
{
    return cass_batch_set_execution_profile_n(batch, name, name ? strlen(name) : 0);
}

CassError cass_batch_set_execution_profile_n(CassBatch *batch, const char *name, size_t name_length)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return name_set(&batch->profile, &batch->profile_len, name, name_length);
}
