/*
 * Cluster configuration, timestamp generators, retry policies and TLS
 * contexts of the driver API.
 *
 * A cluster holds what a session connects with. Its contact points select
 * the backend ("file:DIR" / "memory:" embedded, host names remote); every
 * other setting is validated as the driver validates it (the same
 * CASS_ERROR_LIB_BAD_PARAMS cases) and kept, for the remote backend or
 * because the embedded session uses it (consistency defaults, the
 * timestamp generator, use_schema, the client id).
 *
 * Generators, policies and TLS contexts are reference counted: a cluster
 * (and each session's copy of it) holds its own reference, so the
 * application may free its handle right after setting it, as with the
 * driver.
 *
 * The monotonic generator gives microsecond timestamps that strictly
 * increase across threads (one compare-and-swap per timestamp): the wall
 * clock when it moved on, the last value plus one otherwise, with a
 * rate-limited warning when it runs ahead of the clock by more than the
 * threshold.
 *
 * TLS material is only checked here (PEM framing and base64 body, the
 * cheap part of what OpenSSL does when the driver loads it); the remote
 * backend will load it.
 *
 * The execution profiles a cluster holds are deep copies (the profile API is
 * profile.c; copying and freeing them is here, with the rest of the cluster's
 * ownership, so profile.c depends on this file and not the other way).
 *
 * The pool, reconnection, routing and filter setters are cluster_settings.c's;
 * their fields are initialized, copied and freed here.
 *
 * Authentication: plain-text credentials are kept here; authenticator callbacks
 * are authenticator.c's, held as a reference that copies share. Setting one
 * drops the other, as the driver keeps a single auth provider per cluster.
 *
 * Also here: cassette.h's cluster options for opening an embedded database
 * (durability, map size, statement cache), which the embedded backend
 * (backend_local.c) reads when it connects.
 */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "cassette.h"
#include "cql/driver/backend.h"
#include "cql/driver/driver_int.h"

/* ---- cluster ---- */

/* A cluster with the settings struct CassCluster_ has no field for. */
typedef struct cluster_impl {
    CassCluster pub; /* first: a CassCluster * is a cluster_impl * */
    int round_robin; /* cass_cluster_set_load_balance_round_robin was called */
    int durability;  /* enum cassette_durability, or -1: not set (CASSETTE_DURABILITY decides) */
    size_t map_size; /* initial map size in bytes; 0: the engine's default */
    unsigned sync_period_ms; /* PERIODIC's period; 0: the engine's default */
    int no_group_commit;     /* cassette_cluster_set_group_commit(cluster, 0) */
    size_t statement_cache;  /* bytes of prepared statements an embedded database keeps; 0:
                                its default */
} cluster_impl;

static cluster_impl *impl_of(CassCluster *c)
{
    return (cluster_impl *)c;
}

static const cluster_impl *const_impl_of(const CassCluster *c)
{
    return (const cluster_impl *)c;
}

CassCluster *cass_cluster_new(void)
{
    cluster_impl *ci = eng_calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    CassCluster *c = &ci->pub;
    /* The driver's defaults (constants.hpp of 2.17). */
    c->port = 9042;
    c->protocol_version = CASS_PROTOCOL_VERSION_V4;
    c->beta_protocol = cass_false;
    c->consistency = CASS_CONSISTENCY_LOCAL_ONE;
    c->serial_consistency = CASS_CONSISTENCY_ANY; /* "not set": the server's SERIAL */
    c->num_threads_io = 1;
    c->connect_timeout_ms = 5000;
    c->request_timeout_ms = 12000;
    c->schema_wait_ms = 10000;
    c->heartbeat_s = 30;
    c->idle_timeout_s = 60;
    c->token_aware = cass_true;
    c->shuffle_replicas = cass_true;
    c->tcp_nodelay = cass_true;
    c->tcp_keepalive = cass_true;
    c->keepalive_delay_s = 0;
    c->use_schema = cass_true;
    c->hostname_resolution = cass_false;
    c->randomized_contact_points = cass_true;
    /* The settings of cluster_settings.c, at the driver's defaults too. */
    c->queue_size_io = 8192;
    c->core_connections = 1;
    c->reconnect = CQL_DRV_RECONNECT_EXPONENTIAL;
    c->reconnect_base_ms = 2000;
    c->reconnect_max_ms = 600000;
    c->coalesce_delay_us = 200;
    c->new_request_ratio = 50;
    c->max_reusable_write_objects = UINT_MAX;
    c->resolve_timeout_ms = 5000;
    c->no_compact = cass_false;
    c->prepare_on_all_hosts = cass_true;
    c->prepare_on_up_or_add_host = cass_true;
    c->histogram_refresh_interval = 0;
    c->monitor_reporting_interval_s = 300;
    c->tracing_max_wait_ms = 15;
    c->tracing_retry_wait_ms = 3;
    c->tracing_consistency = CASS_CONSISTENCY_ONE;
    cql_drv_profile_init(&c->routing);
    ci->durability = -1;
    ci->map_size = 0;
    return c;
}

void cass_cluster_free(CassCluster *cluster)
{
    if (!cluster)
        return;
    eng_free(cluster->contact_points);
    eng_free(cluster->username);
    if (cluster->password)
        memset(cluster->password, 0, strlen(cluster->password));
    eng_free(cluster->password);
    cql_drv_auth_provider_unref(cluster->auth); /* the last one runs the data cleanup */
    eng_free(cluster->application_name);
    eng_free(cluster->application_version);
    cass_timestamp_gen_free(cluster->timestamp_gen);
    cass_retry_policy_free(cluster->retry_policy);
    cass_ssl_free(cluster->ssl);
    cql_drv_cluster_profiles_free(cluster);
    eng_free(cluster->local_address);
    cql_drv_profile_clear(&cluster->routing);
    eng_free(impl_of(cluster));
}

static int copy_str(const char *s, char **out)
{
    *out = NULL;
    if (!s)
        return 0;
    return (*out = eng_strdup(s)) ? 0 : -1;
}

CassCluster *cql_drv_cluster_copy(const CassCluster *c)
{
    if (!c)
        return NULL;
    cluster_impl *ci = eng_calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    *ci = *(const cluster_impl *)c;
    CassCluster *d = &ci->pub;
    d->contact_points = d->username = d->password = NULL;
    d->application_name = d->application_version = NULL;
    d->profiles = NULL;
    d->n_profiles = 0;
    d->local_address = NULL;
    cql_drv_profile_init(&d->routing); /* owns nothing until copied below */
    d->timestamp_gen = cql_drv_timestamp_gen_ref(c->timestamp_gen);
    d->retry_policy = cql_drv_retry_policy_ref(c->retry_policy);
    d->ssl = cql_drv_ssl_ref(c->ssl);
    d->auth = cql_drv_auth_provider_ref(c->auth); /* the callbacks' data is shared, not copied */
    if (copy_str(c->contact_points, &d->contact_points) || copy_str(c->username, &d->username) ||
        copy_str(c->password, &d->password) ||
        copy_str(c->application_name, &d->application_name) ||
        copy_str(c->application_version, &d->application_version) ||
        copy_str(c->local_address, &d->local_address) ||
        cql_drv_profile_copy(&d->routing, &c->routing) || cql_drv_cluster_profiles_copy(d, c)) {
        cass_cluster_free(d);
        return NULL;
    }
    return d;
}

void cql_drv_list_append(eng_buf *b, const char *text, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        while (i < len && text[i] != ',')
            i++;
        size_t s = start, e = i;
        while (s < e && isspace((unsigned char)text[s]))
            s++;
        while (e > s && isspace((unsigned char)text[e - 1]))
            e--;
        if (e > s) {
            if (b->len)
                eng_buf_put_u8(b, ',');
            eng_buf_put(b, text + s, e - s);
        }
        i++; /* past the comma */
    }
}

/* Appends the comma-separated entries of text (spaces around each dropped, empty ones skipped). */
static CassError add_contact_points(CassCluster *c, const char *text, size_t len)
{
    eng_buf b = ENG_BUF_INIT;
    if (c->contact_points)
        eng_buf_put_str(&b, c->contact_points);
    cql_drv_list_append(&b, text, len);
    char *joined = b.len ? eng_buf_cstr(&b) : NULL;
    if (b.oom) {
        eng_buf_free(&b);
        /* The driver cannot fail here; keeping the old list is the least surprise. */
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
    eng_free(c->contact_points);
    c->contact_points = joined; /* the buffer's bytes, now owned by the cluster */
    return CASS_OK;
}

CassError cass_cluster_set_contact_points(CassCluster *cluster, const char *contact_points)
{
    return cass_cluster_set_contact_points_n(cluster, contact_points,
                                             contact_points ? strlen(contact_points) : 0);
}

CassError cass_cluster_set_contact_points_n(CassCluster *cluster, const char *contact_points,
                                            size_t contact_points_length)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (!contact_points || contact_points_length == 0) {
        /* As the driver: an empty list clears the contact points. */
        eng_free(cluster->contact_points);
        cluster->contact_points = NULL;
        return CASS_OK;
    }
    return add_contact_points(cluster, contact_points, contact_points_length);
}

CassError cass_cluster_set_port(CassCluster *cluster, int port)
{
    if (!cluster || port <= 0)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->port = port;
    return CASS_OK;
}

void cass_cluster_set_ssl(CassCluster *cluster, CassSsl *ssl)
{
    if (!cluster)
        return;
    CassSsl *old = cluster->ssl;
    cluster->ssl = cql_drv_ssl_ref(ssl);
    cass_ssl_free(old);
}

/* The driver's range: v3 up to v4, or DSEv1..DSEv2 for versions with the DSE bit (0x40). */
static int protocol_supported(int v)
{
    int highest = (v & 0x40) ? CASS_PROTOCOL_VERSION_DSEV2 : CASS_PROTOCOL_VERSION_V4;
    return v >= CASS_PROTOCOL_VERSION_V3 && v <= highest;
}

CassError cass_cluster_set_protocol_version(CassCluster *cluster, int protocol_version)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (cluster->beta_protocol) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "The protocol version is already set to the newest beta version v5 and "
                    "cannot be explicitly set.");
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
    if (!protocol_supported(protocol_version)) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "Protocol version %d is not supported (v3, v4, DSEv1 or DSEv2).",
                    protocol_version);
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
    cluster->protocol_version = (CassProtocolVersion)protocol_version;
    return CASS_OK;
}

CassError cass_cluster_set_use_beta_protocol_version(CassCluster *cluster, cass_bool_t enable)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->beta_protocol = enable ? cass_true : cass_false;
    cluster->protocol_version = enable ? CASS_PROTOCOL_VERSION_V5 : CASS_PROTOCOL_VERSION_V4;
    return CASS_OK;
}

CassError cass_cluster_set_consistency(CassCluster *cluster, CassConsistency consistency)
{
    if (!cluster || consistency == CASS_CONSISTENCY_UNKNOWN)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->consistency = consistency;
    return CASS_OK;
}

CassError cass_cluster_set_serial_consistency(CassCluster *cluster, CassConsistency consistency)
{
    if (!cluster || consistency == CASS_CONSISTENCY_UNKNOWN)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->serial_consistency = consistency;
    return CASS_OK;
}

CassError cass_cluster_set_num_threads_io(CassCluster *cluster, unsigned num_threads)
{
    if (!cluster || num_threads == 0)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->num_threads_io = num_threads;
    return CASS_OK;
}

CassError cass_cluster_set_max_requests_per_flush(CassCluster *cluster, unsigned num_requests)
{
    (void)cluster;
    (void)num_requests; /* deprecated by the driver, which ignores it */
    return CASS_OK;
}

void cass_cluster_set_connect_timeout(CassCluster *cluster, unsigned timeout_ms)
{
    if (cluster)
        cluster->connect_timeout_ms = timeout_ms;
}

void cass_cluster_set_request_timeout(CassCluster *cluster, unsigned timeout_ms)
{
    if (cluster)
        cluster->request_timeout_ms = timeout_ms;
}

void cass_cluster_set_max_schema_wait_time(CassCluster *cluster, unsigned wait_time_ms)
{
    if (cluster)
        cluster->schema_wait_ms = wait_time_ms;
}

/* Replaces *slot with a copy of s[0..len) (NULL s is ""); keeps the old value on OOM. */
static void set_str_n(char **slot, const char *s, size_t len)
{
    char *copy = eng_strndup(s ? s : "", s ? len : 0);
    if (!copy)
        return;
    eng_free(*slot);
    *slot = copy;
}

void cass_cluster_set_credentials(CassCluster *cluster, const char *username, const char *password)
{
    cass_cluster_set_credentials_n(cluster, username, username ? strlen(username) : 0, password,
                                   password ? strlen(password) : 0);
}

void cass_cluster_set_credentials_n(CassCluster *cluster, const char *username,
                                    size_t username_length, const char *password,
                                    size_t password_length)
{
    if (!cluster)
        return;
    set_str_n(&cluster->username, username, username_length);
    set_str_n(&cluster->password, password, password_length);
    /* Credentials replace authenticator callbacks: the driver keeps one auth provider. */
    if (cluster->username && cluster->password) {
        cql_drv_auth_provider *old = cluster->auth;
        cluster->auth = NULL;
        cql_drv_auth_provider_unref(old);
    }
}

void cass_cluster_set_load_balance_round_robin(CassCluster *cluster)
{
    if (!cluster)
        return;
    impl_of(cluster)->round_robin = 1;
    /* It replaces a DC-aware policy, as in the driver (one load-balancing policy per profile). */
    eng_free(cluster->routing.local_dc);
    cluster->routing.local_dc = NULL;
    cluster->routing.load_balance = CQL_DRV_LB_ROUND_ROBIN;
}

void cass_cluster_set_token_aware_routing(CassCluster *cluster, cass_bool_t enabled)
{
    if (cluster)
        cluster->token_aware = enabled ? cass_true : cass_false;
}

void cass_cluster_set_token_aware_routing_shuffle_replicas(CassCluster *cluster,
                                                           cass_bool_t enabled)
{
    if (cluster)
        cluster->shuffle_replicas = enabled ? cass_true : cass_false;
}

void cass_cluster_set_tcp_nodelay(CassCluster *cluster, cass_bool_t enabled)
{
    if (cluster)
        cluster->tcp_nodelay = enabled ? cass_true : cass_false;
}

void cass_cluster_set_tcp_keepalive(CassCluster *cluster, cass_bool_t enabled, unsigned delay_secs)
{
    if (!cluster)
        return;
    cluster->tcp_keepalive = enabled ? cass_true : cass_false;
    cluster->keepalive_delay_s = delay_secs;
}

void cass_cluster_set_timestamp_gen(CassCluster *cluster, CassTimestampGen *timestamp_gen)
{
    if (!cluster)
        return;
    CassTimestampGen *old = cluster->timestamp_gen;
    cluster->timestamp_gen = cql_drv_timestamp_gen_ref(timestamp_gen);
    cass_timestamp_gen_free(old);
}

void cass_cluster_set_connection_heartbeat_interval(CassCluster *cluster, unsigned interval_secs)
{
    if (cluster)
        cluster->heartbeat_s = interval_secs;
}

void cass_cluster_set_connection_idle_timeout(CassCluster *cluster, unsigned timeout_secs)
{
    if (cluster)
        cluster->idle_timeout_s = timeout_secs;
}

void cass_cluster_set_retry_policy(CassCluster *cluster, CassRetryPolicy *retry_policy)
{
    if (!cluster)
        return;
    CassRetryPolicy *old = cluster->retry_policy;
    cluster->retry_policy = cql_drv_retry_policy_ref(retry_policy);
    cass_retry_policy_free(old);
}

void cass_cluster_set_use_schema(CassCluster *cluster, cass_bool_t enabled)
{
    if (cluster)
        cluster->use_schema = enabled ? cass_true : cass_false;
}

CassError cass_cluster_set_use_hostname_resolution(CassCluster *cluster, cass_bool_t enabled)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->hostname_resolution = enabled ? cass_true : cass_false;
    return CASS_OK;
}

CassError cass_cluster_set_use_randomized_contact_points(CassCluster *cluster, cass_bool_t enabled)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cluster->randomized_contact_points = enabled ? cass_true : cass_false;
    return CASS_OK;
}

void cass_cluster_set_application_name(CassCluster *cluster, const char *application_name)
{
    cass_cluster_set_application_name_n(cluster, application_name,
                                        application_name ? strlen(application_name) : 0);
}

void cass_cluster_set_application_name_n(CassCluster *cluster, const char *application_name,
                                         size_t application_name_length)
{
    if (cluster)
        set_str_n(&cluster->application_name, application_name, application_name_length);
}

void cass_cluster_set_application_version(CassCluster *cluster, const char *application_version)
{
    cass_cluster_set_application_version_n(cluster, application_version,
                                           application_version ? strlen(application_version) : 0);
}

void cass_cluster_set_application_version_n(CassCluster *cluster, const char *application_version,
                                            size_t application_version_length)
{
    if (cluster)
        set_str_n(&cluster->application_version, application_version, application_version_length);
}

void cass_cluster_set_client_id(CassCluster *cluster, CassUuid client_id)
{
    if (!cluster)
        return;
    cluster->client_id = client_id;
    cluster->has_client_id = cass_true;
}

/* ---- execution profiles a cluster keeps (their API: profile.c) ---- */

/* The driver's defaults: nothing set, token-aware routing with shuffling on, latency-aware
   routing off with LatencyAwarePolicy::Settings' defaults. */
void cql_drv_profile_init(CassExecProfile *p)
{
    memset(p, 0, sizeof *p);
    p->request_timeout_ms = CASS_UINT64_MAX;
    p->consistency = CASS_CONSISTENCY_UNKNOWN;
    p->serial_consistency = CASS_CONSISTENCY_UNKNOWN;
    p->load_balance = CQL_DRV_LB_UNSET;
    p->token_aware = cass_true;
    p->shuffle_replicas = cass_true;
    p->latency_aware = cass_false;
    p->exclusion_threshold = 2.0;
    p->scale_ms = 100;
    p->retry_period_ms = 10000;
    p->update_rate_ms = 100;
    p->min_measured = 50;
    p->speculative = CQL_DRV_SPEC_UNSET;
}

/* Frees what p owns and leaves it without anything owned. */
void cql_drv_profile_clear(CassExecProfile *p)
{
    eng_free(p->local_dc);
    eng_free(p->whitelist);
    eng_free(p->blacklist);
    eng_free(p->whitelist_dc);
    eng_free(p->blacklist_dc);
    cass_retry_policy_free(p->retry_policy);
    p->local_dc = p->whitelist = p->blacklist = p->whitelist_dc = p->blacklist_dc = NULL;
    p->retry_policy = NULL;
}

/* A deep copy of src into dst (uninitialized); 0, or -1 on OOM with dst owning nothing. */
int cql_drv_profile_copy(CassExecProfile *dst, const CassExecProfile *src)
{
    *dst = *src;
    dst->retry_policy = cql_drv_retry_policy_ref(src->retry_policy);
    if (copy_str(src->local_dc, &dst->local_dc) | copy_str(src->whitelist, &dst->whitelist) |
        copy_str(src->blacklist, &dst->blacklist) |
        copy_str(src->whitelist_dc, &dst->whitelist_dc) |
        copy_str(src->blacklist_dc, &dst->blacklist_dc)) {
        cql_drv_profile_clear(dst);
        return -1;
    }
    return 0;
}

/* Entries are copied one by one; on failure the ones made are freed and dst has none. */
int cql_drv_cluster_profiles_copy(CassCluster *dst, const CassCluster *src)
{
    dst->profiles = NULL;
    dst->n_profiles = 0;
    if (!src->n_profiles)
        return 0;
    cql_drv_named_profile *a = eng_calloc(src->n_profiles, sizeof *a);
    if (!a)
        return -1;
    dst->profiles = a;
    for (size_t i = 0; i < src->n_profiles; i++) {
        const cql_drv_named_profile *e = &src->profiles[i];
        a[i].name = eng_strndup(e->name, e->name_len);
        if (!a[i].name || cql_drv_profile_copy(&a[i].profile, &e->profile)) {
            eng_free(a[i].name);
            cql_drv_cluster_profiles_free(dst);
            return -1;
        }
        a[i].name_len = e->name_len;
        dst->n_profiles = i + 1;
    }
    return 0;
}

void cql_drv_cluster_profiles_free(CassCluster *c)
{
    for (size_t i = 0; i < c->n_profiles; i++) {
        eng_free(c->profiles[i].name);
        cql_drv_profile_clear(&c->profiles[i].profile);
    }
    eng_free(c->profiles);
    c->profiles = NULL;
    c->n_profiles = 0;
}

/* ---- cassette.h: how an embedded database is opened ---- */

int cassette_cluster_set_durability(CassCluster *cluster, cassette_durability durability)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    switch ((int)durability) {
    case CASSETTE_DURABILITY_SYNC:
    case CASSETTE_DURABILITY_NOMETASYNC:
    case CASSETTE_DURABILITY_NONE:
    case CASSETTE_DURABILITY_PERIODIC:
        impl_of(cluster)->durability = (int)durability;
        return 0;
    default:
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
}

int cassette_cluster_set_sync_period(CassCluster *cluster, unsigned period_ms)
{
    if (!cluster || period_ms > 3600000u)
        return CASS_ERROR_LIB_BAD_PARAMS;
    impl_of(cluster)->sync_period_ms = period_ms;
    return 0;
}

int cassette_cluster_set_group_commit(CassCluster *cluster, int enabled)
{
    if (!cluster)
        return CASS_ERROR_LIB_BAD_PARAMS;
    impl_of(cluster)->no_group_commit = !enabled;
    return 0;
}

int cassette_cluster_set_map_size(CassCluster *cluster, uint64_t bytes)
{
    if (!cluster || bytes > SIZE_MAX || bytes > CASSETTE_MAP_SIZE_MAX)
        return CASS_ERROR_LIB_BAD_PARAMS;
    impl_of(cluster)->map_size = (size_t)bytes;
    return 0;
}

int cassette_cluster_set_prepared_cache_size(CassCluster *cluster, uint64_t bytes)
{
    if (!cluster || bytes > SIZE_MAX)
        return CASS_ERROR_LIB_BAD_PARAMS;
    impl_of(cluster)->statement_cache = (size_t)bytes;
    return 0;
}

void cql_drv_cluster_embedded(const CassCluster *c, cql_drv_embedded *out)
{
    const cluster_impl *ci = const_impl_of(c);
    out->durability = ci->durability;
    out->map_size = ci->map_size;
    out->sync_period_ms = ci->sync_period_ms;
    out->no_group_commit = ci->no_group_commit;
    out->statement_cache = ci->statement_cache;
}

/* ---- timestamp generators ---- */

typedef struct gen_impl {
    CassTimestampGen pub;            /* first */
    _Atomic int64_t last_warning_ms; /* monotonic clock, ms, of the last drift warning */
} gen_impl;

static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static CassTimestampGen *gen_new(int server_side, int64_t threshold_us, int64_t interval_ms)
{
    gen_impl *g = eng_calloc(1, sizeof *g);
    if (!g)
        return NULL;
    atomic_init(&g->pub.refs, 1);
    g->pub.server_side = server_side;
    atomic_init(&g->pub.last_us, 0);
    g->pub.warning_threshold_us = threshold_us;
    g->pub.warning_interval_ms = interval_ms < 0 ? 0 : interval_ms;
    atomic_init(&g->last_warning_ms, INT64_MIN / 2);
    return &g->pub;
}

CassTimestampGen *cass_timestamp_gen_server_side_new(void)
{
    return gen_new(1, -1, 0);
}

CassTimestampGen *cass_timestamp_gen_monotonic_new(void)
{
    return gen_new(0, 1000000, 1000); /* the driver's defaults: 1 s drift, warn every second */
}

CassTimestampGen *cass_timestamp_gen_monotonic_new_with_settings(cass_int64_t warning_threshold_us,
                                                                 cass_int64_t warning_interval_ms)
{
    return gen_new(0, warning_threshold_us, warning_interval_ms);
}

CassTimestampGen *cql_drv_timestamp_gen_ref(CassTimestampGen *g)
{
    if (g)
        atomic_fetch_add(&g->refs, 1);
    return g;
}

void cass_timestamp_gen_free(CassTimestampGen *timestamp_gen)
{
    if (timestamp_gen && atomic_fetch_sub(&timestamp_gen->refs, 1) == 1)
        eng_free((gen_impl *)timestamp_gen);
}

static void warn_drift(gen_impl *g, int64_t last, int64_t now)
{
    int64_t t = mono_ms();
    int64_t prev = atomic_load(&g->last_warning_ms);
    if (t > prev + g->pub.warning_interval_ms &&
        atomic_compare_exchange_strong(&g->last_warning_ms, &prev, t))
        cql_drv_log(CASS_LOG_WARN, __FILE__, __LINE__, __func__,
                    "Clock skew detected: the current time (%lld) is %lld microseconds behind the "
                    "last generated timestamp (%lld); timestamps keep increasing by one until the "
                    "clock catches up.",
                    (long long)now, (long long)(last - now), (long long)last);
}

int64_t cql_drv_timestamp_next(CassTimestampGen *g)
{
    if (!g || g->server_side)
        return ENG_TS_NONE;
    int64_t last = atomic_load(&g->last_us);
    for (;;) {
        int64_t now = wall_us();
        if (now <= last && last == INT64_MAX) /* the counter cannot go past INT64_MAX */
            return last;
        int64_t next = now > last ? now : last + 1;
        if (atomic_compare_exchange_weak(&g->last_us, &last, next)) {
            if (now <= last && g->warning_threshold_us >= 0 && last > now + g->warning_threshold_us)
                warn_drift((gen_impl *)g, last, now);
            return next;
        }
    }
}

/* ---- retry policies ---- */

static CassRetryPolicy *policy_new(int kind, CassRetryPolicy *child)
{
    CassRetryPolicy *p = eng_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    atomic_init(&p->refs, 1);
    p->kind = kind;
    p->child = cql_drv_retry_policy_ref(child);
    return p;
}

CassRetryPolicy *cass_retry_policy_default_new(void)
{
    return policy_new(CQL_DRV_RETRY_DEFAULT, NULL);
}

CassRetryPolicy *cass_retry_policy_downgrading_consistency_new(void)
{
    return policy_new(CQL_DRV_RETRY_DOWNGRADING, NULL);
}

CassRetryPolicy *cass_retry_policy_fallthrough_new(void)
{
    return policy_new(CQL_DRV_RETRY_FALLTHROUGH, NULL);
}

CassRetryPolicy *cass_retry_policy_logging_new(CassRetryPolicy *child_retry_policy)
{
    /* As the driver: a logging policy cannot wrap another logging policy (nor nothing). */
    if (!child_retry_policy || child_retry_policy->kind == CQL_DRV_RETRY_LOGGING)
        return NULL;
    return policy_new(CQL_DRV_RETRY_LOGGING, child_retry_policy);
}

CassRetryPolicy *cql_drv_retry_policy_ref(CassRetryPolicy *p)
{
    if (p)
        atomic_fetch_add(&p->refs, 1);
    return p;
}

void cass_retry_policy_free(CassRetryPolicy *policy)
{
    while (policy && atomic_fetch_sub(&policy->refs, 1) == 1) {
        CassRetryPolicy *child = policy->child;
        eng_free(policy);
        policy = child; /* drop the reference the logging policy held */
    }
}

/* ---- TLS contexts ---- */

static CassSsl *ssl_new(void)
{
    CassSsl *s = eng_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    atomic_init(&s->refs, 1);
    s->verify_flags = CASS_SSL_VERIFY_PEER_CERT;
    s->min_version = CASS_SSL_VERSION_TLS1;
    return s;
}

CassSsl *cass_ssl_new(void)
{
    return ssl_new();
}

/* No TLS library is initialized embedded, so both constructors are the same. */
CassSsl *cass_ssl_new_no_lib_init(void)
{
    return ssl_new();
}

CassSsl *cql_drv_ssl_ref(CassSsl *ssl)
{
    if (ssl)
        atomic_fetch_add(&ssl->refs, 1);
    return ssl;
}

void cass_ssl_free(CassSsl *ssl)
{
    if (!ssl || atomic_fetch_sub(&ssl->refs, 1) != 1)
        return;
    eng_buf_free(&ssl->trusted);
    eng_buf_free(&ssl->cert);
    /* Key material does not linger in freed memory. */
    if (ssl->key.p)
        memset(ssl->key.p, 0, ssl->key.cap);
    if (ssl->key_password.p)
        memset(ssl->key_password.p, 0, ssl->key_password.cap);
    eng_buf_free(&ssl->key);
    eng_buf_free(&ssl->key_password);
    eng_free(ssl);
}

/* One PEM block found in a text. */
typedef struct pem_block {
    const char *label; /* between "BEGIN " and the dashes */
    size_t label_len;
    int encrypted; /* a legacy "Proc-Type: 4,ENCRYPTED" header */
    size_t end;    /* offset just past the END line */
} pem_block;

static const char *find_n(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m <= n && i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return hay + i;
    return NULL;
}

/*
 * Finds the next well-formed PEM block at or after text[from]: a BEGIN line, optional
 * "Name: value" headers then a blank line, a non-empty base64 body (its length a multiple
 * of 4, '=' only at the end), and the END line with the same label. Text outside blocks
 * is skipped, as OpenSSL's PEM reader does. Returns 1 when one was found.
 */
static int next_pem(const char *text, size_t len, size_t from, pem_block *out)
{
    static const char begin[] = "-----BEGIN ";
    while (from < len) {
        const char *b = find_n(text + from, len - from, begin);
        if (!b)
            return 0;
        size_t pos = (size_t)(b - text) + sizeof begin - 1;
        const char *dash = find_n(text + pos, len - pos, "-----");
        const char *nl = memchr(text + pos, '\n', len - pos);
        from = pos;
        if (!dash || (nl && nl < dash))
            continue;
        pem_block blk = {text + pos, (size_t)(dash - (text + pos)), 0, 0};
        size_t p = (size_t)(dash - text) + 5;
        /* the rest of the BEGIN line */
        while (p < len && text[p] != '\n')
            p++;
        /* headers: lines with a ':' up to a blank line */
        size_t q = p < len ? p + 1 : p;
        const char *line_end = q < len ? memchr(text + q, '\n', len - q) : NULL;
        if (line_end && memchr(text + q, ':', (size_t)(line_end - (text + q)))) {
            size_t hs = q;
            while (hs < len) {
                const char *le = memchr(text + hs, '\n', len - hs);
                size_t ll = le ? (size_t)(le - (text + hs)) : len - hs;
                size_t t = ll;
                while (t && (text[hs + t - 1] == '\r' || text[hs + t - 1] == ' '))
                    t--;
                if (t == 0) {
                    hs += ll + (le ? 1 : 0);
                    break;
                }
                if (find_n(text + hs, t, "ENCRYPTED"))
                    blk.encrypted = 1;
                hs += ll + (le ? 1 : 0);
            }
            q = hs;
        }
        /* body up to "-----END " */
        size_t n64 = 0, pad = 0;
        int bad = 0;
        size_t r = q;
        while (r < len && text[r] != '-') {
            unsigned char ch = (unsigned char)text[r++];
            if (isspace(ch))
                continue;
            if (ch == '=') {
                pad++;
                n64++;
            } else if (isalnum(ch) || ch == '+' || ch == '/') {
                if (pad)
                    bad = 1;
                n64++;
            } else {
                bad = 1;
            }
        }
        static const char endl[] = "-----END ";
        if (bad || n64 == 0 || n64 % 4 || pad > 2 || len - r < sizeof endl - 1 ||
            memcmp(text + r, endl, sizeof endl - 1) != 0)
            continue;
        r += sizeof endl - 1;
        if (len - r < blk.label_len + 5 || memcmp(text + r, blk.label, blk.label_len) != 0 ||
            memcmp(text + r + blk.label_len, "-----", 5) != 0)
            continue;
        blk.end = r + blk.label_len + 5;
        *out = blk;
        return 1;
    }
    return 0;
}

static int label_is(const pem_block *b, const char *s)
{
    return b->label_len == strlen(s) && memcmp(b->label, s, b->label_len) == 0;
}

static int is_cert_label(const pem_block *b)
{
    return label_is(b, "CERTIFICATE") || label_is(b, "X509 CERTIFICATE") ||
           label_is(b, "TRUSTED CERTIFICATE");
}

/* Number of certificate blocks in text. */
static int count_certs(const char *text, size_t len)
{
    int n = 0;
    pem_block b;
    for (size_t from = 0; next_pem(text, len, from, &b); from = b.end)
        n += is_cert_label(&b);
    return n;
}

static CassError keep_text(eng_buf *slot, const char *text, size_t len, int append)
{
    eng_buf b = ENG_BUF_INIT;
    if (append && slot->len) {
        eng_buf_put(&b, slot->p, slot->len);
        if (slot->p[slot->len - 1] != '\n')
            eng_buf_put_u8(&b, '\n');
    }
    eng_buf_put(&b, text, len);
    if (b.oom || !eng_buf_cstr(&b)) {
        eng_buf_free(&b);
        return CASS_ERROR_LIB_BAD_PARAMS; /* no memory: nothing changed */
    }
    if (slot->p)
        memset(slot->p, 0, slot->cap);
    eng_buf_free(slot);
    *slot = b;
    return CASS_OK;
}

CassError cass_ssl_add_trusted_cert(CassSsl *ssl, const char *cert)
{
    return cass_ssl_add_trusted_cert_n(ssl, cert, cert ? strlen(cert) : 0);
}

CassError cass_ssl_add_trusted_cert_n(CassSsl *ssl, const char *cert, size_t cert_length)
{
    if (!ssl)
        return CASS_ERROR_LIB_BAD_PARAMS;
    /* As the driver: every certificate of the text is added; none at all is an error. */
    if (!cert || count_certs(cert, cert_length) == 0)
        return CASS_ERROR_SSL_INVALID_CERT;
    return keep_text(&ssl->trusted, cert, cert_length, 1);
}

void cass_ssl_set_verify_flags(CassSsl *ssl, int flags)
{
    if (ssl)
        ssl->verify_flags = flags;
}

CassError cass_ssl_set_cert(CassSsl *ssl, const char *cert)
{
    return cass_ssl_set_cert_n(ssl, cert, cert ? strlen(cert) : 0);
}

CassError cass_ssl_set_cert_n(CassSsl *ssl, const char *cert, size_t cert_length)
{
    if (!ssl)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (!cert || count_certs(cert, cert_length) == 0)
        return CASS_ERROR_SSL_INVALID_CERT;
    return keep_text(&ssl->cert, cert, cert_length, 0);
}

CassError cass_ssl_set_private_key(CassSsl *ssl, const char *key, const char *password)
{
    return cass_ssl_set_private_key_n(ssl, key, key ? strlen(key) : 0, password,
                                      password ? strlen(password) : 0);
}

CassError cass_ssl_set_private_key_n(CassSsl *ssl, const char *key, size_t key_length,
                                     const char *password, size_t password_length)
{
    if (!ssl)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (!password)
        password_length = 0;
    pem_block b = {NULL, 0, 0, 0};
    int found = 0;
    for (size_t from = 0; key && next_pem(key, key_length, from, &b); from = b.end) {
        size_t n = strlen("PRIVATE KEY");
        if (b.label_len >= n && memcmp(b.label + b.label_len - n, "PRIVATE KEY", n) == 0) {
            found = 1;
            break;
        }
    }
    if (!found)
        return CASS_ERROR_SSL_INVALID_PRIVATE_KEY;
    /* An encrypted key cannot be read without its password. */
    if ((b.encrypted || label_is(&b, "ENCRYPTED PRIVATE KEY")) && password_length == 0)
        return CASS_ERROR_SSL_INVALID_PRIVATE_KEY;
    CassError rc = keep_text(&ssl->key, key, key_length, 0);
    if (rc == CASS_OK)
        rc = keep_text(&ssl->key_password, password ? password : "", password_length, 0);
    return rc;
}

CassError cass_ssl_set_min_protocol_version(CassSsl *ssl, CassSslTlsVersion min_version)
{
    if (!ssl)
        return CASS_ERROR_LIB_BAD_PARAMS;
    switch (min_version) {
    case CASS_SSL_VERSION_TLS1:
    case CASS_SSL_VERSION_TLS1_1:
    case CASS_SSL_VERSION_TLS1_2:
        ssl->min_version = min_version;
        return CASS_OK;
    default:
        /* The driver's OpenSSL layer maps only TLS 1.0 to 1.2. */
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
}
