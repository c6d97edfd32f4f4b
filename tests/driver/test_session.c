/*
 * The driver API end to end, as an application sees it: only <cassandra.h>
 * and <cassette.h>. Clusters and their validation, the embedded backends
 * (file:DIR, memory:, CASSETTE_URI), sessions, prepared statements shared by
 * threads, paging, lightweight transactions, batches, futures, the error
 * classes, schema metadata, and cassette.h's own extensions (database
 * options, virtual clock, reset, snapshot, version).
 *
 * Every expectation is the real driver's (DataStax C/C++ driver 2.17:
 * cluster_config.cpp, session_base.cpp, session.cpp, future.cpp,
 * batch_request.cpp, retry_policy.cpp, ssl/ssl_openssl_impl.cpp) or
 * Cassandra 4.x's (error codes and texts of the facts sheet §5, §6, §7.8,
 * §8; PagingState.deserialize for a malformed paging state), with the
 * embedded behaviour docs/api.md states (a future is set when the
 * call returns; host names fail until the remote backend exists).
 */
#include <cassandra.h>
#include <cassette.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver_test.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* Log messages at CASS_LOG_ERROR, captured instead of printed. */
static int errors_logged;

static void capture_log(const CassLogMessage *m, void *data)
{
    (void)data;
    if (m->severity == CASS_LOG_ERROR)
        errors_logged++;
}

static void capture_logs(void)
{
    cass_log_set_level(CASS_LOG_ERROR);
    cass_log_set_callback(capture_log, NULL);
    errors_logged = 0;
}

/* A contact point "file:<tmpdir>/<name>". */
static const char *file_uri(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "file:%s/%s", test_tmpdir(), name);
    return buf;
}

/* A cluster on one contact point (remote: on a server of that database); file databases skip
   fsync (tests, not durability). */
static CassCluster *cluster_on(const char *contact)
{
    CassCluster *c = cass_cluster_new();
    ASSERT(c);
    ASSERT_EQ(test_database(c, contact), CASS_OK);
    if (strncmp(contact, "file:", 5) == 0)
        ASSERT_EQ(cassette_cluster_set_durability(c, CASSETTE_DURABILITY_NONE), 0);
    return c;
}

#define CONNECT(cn, contact) conn_open_cluster(__FILE__, __LINE__, (cn), cluster_on(contact))

/* Runs a statement that must fail; returns its code, its message in msg. */
static CassError run_err(CassSession *s, const char *q, char *msg, size_t cap)
{
    CassStatement *st = cass_statement_new(q, 0);
    CassFuture *f = cass_session_execute(s, st);
    CassError rc = cass_future_error_code(f);
    future_message(f, msg, cap);
    ASSERT(cass_future_get_result(f) == NULL || rc == CASS_OK);
    cass_future_free(f);
    cass_statement_free(st);
    return rc;
}

#define ASSERT_RUN_ERR(s, q, code, text)                                                           \
    do {                                                                                           \
        char m_[1024];                                                                             \
        ASSERT_EQ(run_err((s), (q), m_, sizeof m_), (code));                                       \
        ASSERT_STR_EQ(m_, (text));                                                                 \
    } while (0)

/* Single-value readers (fail the test on a type or null mismatch). */
static int32_t get_int(const CassRow *row, size_t i)
{
    cass_int32_t v = 0;
    ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, i), &v), CASS_OK);
    return v;
}

static int64_t get_bigint(const CassRow *row, size_t i)
{
    cass_int64_t v = 0;
    ASSERT_EQ(cass_value_get_int64(cass_row_get_column(row, i), &v), CASS_OK);
    return v;
}

static const char *value_text(const CassValue *v, char *buf, size_t cap)
{
    const char *s;
    size_t n;
    ASSERT_EQ(cass_value_get_string(v, &s, &n), CASS_OK);
    snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

static const char *get_text(const CassRow *row, size_t i, char *buf, size_t cap)
{
    return value_text(cass_row_get_column(row, i), buf, cap);
}

static cass_bool_t get_applied(const CassResult *r)
{
    const CassRow *row = cass_result_first_row(r);
    ASSERT(row);
    cass_bool_t b = cass_false;
    ASSERT_EQ(cass_value_get_bool(cass_row_get_column_by_name(row, "[applied]"), &b), CASS_OK);
    return b;
}

/* SELECT of one bigint / int cell: the value of the first row, column 0. */
static int64_t scalar_bigint(CassSession *s, const char *q)
{
    const CassResult *r = QUERY(s, q);
    ASSERT_EQ(cass_result_row_count(r), 1);
    int64_t v = get_bigint(cass_result_first_row(r), 0);
    cass_result_free(r);
    return v;
}

static size_t row_count(CassSession *s, const char *q)
{
    const CassResult *r = QUERY(s, q);
    size_t n = cass_result_row_count(r);
    cass_result_free(r);
    return n;
}

static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A keyspace ks with table ks.kv (k int PRIMARY KEY, v text). */
static void make_kv(CassSession *s)
{
    RUN(s, KS_CQL);
    RUN(s, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)");
}

/* ------------------------------------------------------------------------ */
/* Cluster configuration                                                     */
/* ------------------------------------------------------------------------ */

/* cluster_config.cpp: port <= 0 is refused. */
TEST(cluster_port_must_be_positive)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_port(c, 0), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_port(c, -9042), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_port(c, 1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_port(c, 9042), CASS_OK);
    cass_cluster_free(c);
}

/* The driver supports v3 and v4 (DSEv1 and DSEv2 for DSE); v5 only as the beta version, and
   an explicit version is refused once the beta version is in use. */
TEST(cluster_protocol_version_in_supported_range)
{
    capture_logs(); /* the driver logs each refusal as an error */
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_V1),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(errors_logged, 1);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_V2),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_V3), CASS_OK);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_V4), CASS_OK);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_V5),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_DSEV1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_DSEV2), CASS_OK);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, 0x43), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_use_beta_protocol_version(c, cass_true), CASS_OK);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_V4),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(errors_logged, 5);
    ASSERT_EQ(cass_cluster_set_use_beta_protocol_version(c, cass_false), CASS_OK);
    ASSERT_EQ(cass_cluster_set_protocol_version(c, CASS_PROTOCOL_VERSION_V4), CASS_OK);
    ASSERT_EQ(errors_logged, 5);
    cass_cluster_free(c);
}

/* CASS_CONSISTENCY_UNKNOWN is the only level refused, for both settings. */
TEST(cluster_consistency_refuses_unknown)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_consistency(c, CASS_CONSISTENCY_UNKNOWN), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_consistency(c, CASS_CONSISTENCY_QUORUM), CASS_OK);
    ASSERT_EQ(cass_cluster_set_consistency(c, CASS_CONSISTENCY_ALL), CASS_OK);
    ASSERT_EQ(cass_cluster_set_serial_consistency(c, CASS_CONSISTENCY_UNKNOWN),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_serial_consistency(c, CASS_CONSISTENCY_SERIAL), CASS_OK);
    ASSERT_EQ(cass_cluster_set_serial_consistency(c, CASS_CONSISTENCY_LOCAL_SERIAL), CASS_OK);
    cass_cluster_free(c);
}

TEST(cluster_num_threads_io_must_be_positive)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_num_threads_io(c, 0), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_cluster_set_num_threads_io(c, 1), CASS_OK);
    ASSERT_EQ(cass_cluster_set_num_threads_io(c, 16), CASS_OK);
    cass_cluster_free(c);
}

/* Networking options are accepted (and kept for the remote backend); a session still connects
   to an embedded database with all of them set. */
TEST(cluster_networking_options_are_accepted)
{
    CassCluster *c = cluster_on("memory:");
    cass_cluster_set_connect_timeout(c, 1000);
    cass_cluster_set_request_timeout(c, 0);
    cass_cluster_set_max_schema_wait_time(c, 500);
    cass_cluster_set_connection_heartbeat_interval(c, 0);
    cass_cluster_set_connection_idle_timeout(c, 120);
    cass_cluster_set_credentials(c, "cassandra", "cassandra");
    cass_cluster_set_credentials_n(c, "user-ignored", 4, "pass-ignored", 4);
    cass_cluster_set_load_balance_round_robin(c);
    cass_cluster_set_token_aware_routing(c, cass_false);
    cass_cluster_set_token_aware_routing_shuffle_replicas(c, cass_false);
    cass_cluster_set_tcp_nodelay(c, cass_false);
    cass_cluster_set_tcp_keepalive(c, cass_true, 30);
    cass_cluster_set_application_name(c, "test_session");
    cass_cluster_set_application_name_n(c, "test_session-ignored", 12);
    cass_cluster_set_application_version(c, "1.0");
    cass_cluster_set_application_version_n(c, "1.0.0", 5);
    /* Deprecated in the driver: accepted, ignored. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ASSERT_EQ(cass_cluster_set_max_requests_per_flush(c, 0), CASS_OK);
    ASSERT_EQ(cass_cluster_set_use_hostname_resolution(c, cass_false), CASS_OK);
#pragma GCC diagnostic pop
    ASSERT_EQ(cass_cluster_set_use_randomized_contact_points(c, cass_false), CASS_OK);
    cass_cluster_set_use_schema(c, cass_true);

    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    RUN(s, KS_CQL);
    cass_session_free(s); /* closes the session */
    cass_cluster_free(c);
}

/* The session's client id is the cluster's when set; otherwise a random (version 4) UUID of
   its own. */
TEST(session_client_id_comes_from_cluster_or_is_random)
{
    CassUuid id;
    ASSERT_EQ(cass_uuid_from_string("4f3a4d8e-0c1b-4b7e-9a1d-2f6c8e9b0a11", &id), CASS_OK);
    CassCluster *c = cluster_on("memory:");
    cass_cluster_set_client_id(c, id);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    CassUuid got = cass_session_get_client_id(s);
    ASSERT_EQ(got.time_and_version, id.time_and_version);
    ASSERT_EQ(got.clock_seq_and_node, id.clock_seq_and_node);
    cass_session_free(s);
    cass_cluster_free(c);

    CassSession *a = cass_session_new(), *b = cass_session_new();
    CassUuid ia = cass_session_get_client_id(a), ib = cass_session_get_client_id(b);
    ASSERT_EQ(cass_uuid_version(ia), 4);
    ASSERT(ia.time_and_version != ib.time_and_version ||
           ia.clock_seq_and_node != ib.clock_seq_and_node);
    cass_session_free(a);
    cass_session_free(b);
}

/* cass_cluster_set_contact_points appends to the list; an empty string clears it. */
TEST(contact_points_append_and_empty_clears)
{
    char msg[1024];
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, "memory:"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_contact_points(c, ""), CASS_OK); /* cleared */
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    cass_future_free(f);

    /* Appended: both entries are in the list the connect reports. */
    ASSERT_EQ(cass_cluster_set_contact_points(c, "127.0.0.1"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_contact_points(c, "memory:"), CASS_OK);
    f = cass_session_connect(s, c);
    ASSERT_NE(cass_future_error_code(f), CASS_OK);
    future_message(f, msg, sizeof msg);
    ASSERT(strstr(msg, "127.0.0.1") && strstr(msg, "memory:"));
    cass_future_free(f);

    /* NULL clears too; the _n form reads only the given length. */
    ASSERT_EQ(cass_cluster_set_contact_points(c, NULL), CASS_OK);
    ASSERT_EQ(cass_cluster_set_contact_points_n(c, "memory:,10.0.0.1", 7), CASS_OK);
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* retry_policy.cpp: every policy can be made; a logging policy cannot wrap a logging policy.
   The cluster keeps its own reference, so the application frees its handle at once. */
TEST(retry_policies_construct_and_logging_refuses_logging_child)
{
    CassRetryPolicy *def = cass_retry_policy_default_new();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* deprecated, still in the API */
    CassRetryPolicy *down = cass_retry_policy_downgrading_consistency_new();
#pragma GCC diagnostic pop
    CassRetryPolicy *fall = cass_retry_policy_fallthrough_new();
    ASSERT(def && down && fall);
    CassRetryPolicy *log = cass_retry_policy_logging_new(down);
    ASSERT(log);
    ASSERT(cass_retry_policy_logging_new(log) == NULL);

    CassCluster *c = cluster_on("memory:");
    cass_cluster_set_retry_policy(c, log);
    cass_retry_policy_free(log);
    cass_retry_policy_free(down);
    cass_cluster_set_retry_policy(c, fall); /* replaces the logging policy */
    cass_retry_policy_free(fall);
    cass_retry_policy_free(def);
    cass_retry_policy_free(NULL);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    RUN(s, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    cass_session_free(s);
    cass_cluster_free(c);
}

/* A client-side generator's timestamps are the writes' timestamps (writetime), from the wall
   clock, strictly increasing; the database's virtual clock does not move them. */
TEST(monotonic_timestamp_generator_stamps_writes)
{
    CassCluster *c = cluster_on("memory:");
    CassTimestampGen *g = cass_timestamp_gen_monotonic_new();
    cass_cluster_set_timestamp_gen(c, g);
    cass_timestamp_gen_free(g);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    /* Virtual time in 2001: only server-side timestamps would follow it (embedded: a remote
       database's clock is the server's) */
    if (!test_remote())
        ASSERT_EQ(cassette_session_clock_set(s, INT64_C(1000000000000000)), 0);
    int64_t before = wall_us();
    RUN(s, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    RUN(s, "INSERT INTO ks.kv (k, v) VALUES (2, 'b')");
    int64_t after = wall_us();
    int64_t t1 = scalar_bigint(s, "SELECT writetime(v) FROM ks.kv WHERE k = 1");
    int64_t t2 = scalar_bigint(s, "SELECT writetime(v) FROM ks.kv WHERE k = 2");
    ASSERT(t1 >= before && t2 <= after + 1);
    ASSERT(t2 > t1);
    cass_session_free(s);
    cass_cluster_free(c);

    /* With settings: the same stamps; a statement's own timestamp still wins. */
    c = cluster_on("memory:");
    g = cass_timestamp_gen_monotonic_new_with_settings(10000, 100);
    cass_cluster_set_timestamp_gen(c, g);
    cass_timestamp_gen_free(g);
    s = cass_session_new();
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (3, 'c')", 0);
    cass_statement_set_timestamp(st, 42);
    cass_result_free(EXEC(s, st));
    cass_statement_free(st);
    ASSERT_EQ(scalar_bigint(s, "SELECT writetime(v) FROM ks.kv WHERE k = 3"), 42);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* The server-side generator sends no timestamp: the database stamps writes with its clock. */
TEST(server_side_timestamp_generator_uses_database_clock)
{
    REMOTE_SKIP("the virtual clock is the embedded database's");
    CassCluster *c = cluster_on("memory:");
    CassTimestampGen *g = cass_timestamp_gen_server_side_new();
    cass_cluster_set_timestamp_gen(c, g);
    cass_timestamp_gen_free(g);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    int64_t virt = INT64_C(1000000000000000);
    ASSERT_EQ(cassette_session_clock_set(s, virt), 0);
    RUN(s, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    int64_t t = scalar_bigint(s, "SELECT writetime(v) FROM ks.kv WHERE k = 1");
    ASSERT(t >= virt && t < virt + 1000000);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* A certificate and key made with `openssl req -x509 -newkey ec` (P-256), and the key
   encrypted with the password "secret" (legacy PEM and PKCS#8). */
static const char CERT_PEM[] = "-----BEGIN CERTIFICATE-----\n"
                               "MIIBhzCCAS2gAwIBAgIUVDfAXMKYnNXYMbTU9JsX9DfFgRIwCgYIKoZIzj0EAwIw\n"
                               "GDEWMBQGA1UEAwwNY2Fzc2V0dGUtdGVzdDAgFw0yNjExMjExNDQ0MzNaGA8yMTI2\n"
                               "MTAyODE0NDQzM1owGDEWMBQGA1UEAwwNY2Fzc2V0dGUtdGVzdDBZMBMGByqGSM49\n"
                               "AgEGCCqGSM49AwEHA0IABKxm2s1LdbN9ecpnAIFeJu75LLvRWjDfbQXzp0J28ZsJ\n"
                               "bCMGx3vi8D40yh/RHcAWiNEM55NVe0j9H8K4NoeFp9ijUzBRMB0GA1UdDgQWBBRx\n"
                               "y7TKKI4eE/CEbTmShfO7+7Z/ITAfBgNVHSMEGDAWgBRxy7TKKI4eE/CEbTmShfO7\n"
                               "+7Z/ITAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIA3dkJiXIttG\n"
                               "JBc5X/tItBIR+E4yh6d+VaCM8kHg6MO5AiEAt1Gh++rlu8w+XDTRdLpD4gqTlu66\n"
                               "y4zmJp9QhrBULUE=\n"
                               "-----END CERTIFICATE-----\n";

static const char KEY_PEM[] = "-----BEGIN PRIVATE KEY-----\n"
                              "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRa/moafqh13HqFVs\n"
                              "WHdBNASUaP8O6Gb2iXGouymXnCuhRANCAASsZtrNS3WzfXnKZwCBXibu+Sy70Vow\n"
                              "320F86dCdvGbCWwjBsd74vA+NMof0R3AFojRDOeTVXtI/R/CuDaHhafY\n"
                              "-----END PRIVATE KEY-----\n";

static const char KEY_LEGACY_ENCRYPTED_PEM[] =
    "-----BEGIN EC PRIVATE KEY-----\n"
    "Proc-Type: 4,ENCRYPTED\n"
    "DEK-Info: AES-128-CBC,574616D1AC5CE882AADA3A7DCD2F872E\n"
    "\n"
    "rOxTql7LkcoB664BMa3wuI3N0LXxNct8HOJYj8IjY9aXxtBZ5tDr6Ts9s68fPmAn\n"
    "yjE4fhMbeZGyaTuLki1/1zb+IKCV5xQw4B8GcporWvDx9w1Do/6De8fdm6JC2tHz\n"
    "jprhNgFbnCNxXdoDuhhMVMUFWctWK+Ef78cm8p7Qxys=\n"
    "-----END EC PRIVATE KEY-----\n";

static const char KEY_PKCS8_ENCRYPTED_PEM[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAgeGO3F4Af5tAICCAAw\n"
    "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEAQIEEPkpeVfsGQ3m5AAbTiKph2AEgZBs\n"
    "DvmwuBx0ZKpKoyj9RdNcwrc7M1Y12T87k4XJwiuZkcMAgpRSkgBPmdzU0DBIOSnj\n"
    "XKdDeu100t6XxD/3BDYgkRKBBL/4BSrHnPFmHDF8sJHwQyXed2KqX+QYzSC3gHOZ\n"
    "o58PyN0DcZisQ/cw6hJuvSk4ygjIk/OmRkrkJc9jWxnKPjfviYijPg0FMMzR5Rk=\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";

/* ssl_openssl_impl.cpp: PEM certificates and keys are loaded as OpenSSL reads them; text
   without a certificate is CASS_ERROR_SSL_INVALID_CERT, without a usable key (an encrypted one
   without its password) CASS_ERROR_SSL_INVALID_PRIVATE_KEY; TLS 1.0 to 1.2 as minimum. A TLS
   context on the cluster is a no-op embedded. */
TEST(ssl_context_accepts_pem_and_refuses_other_text)
{
    CassSsl *ssl = cass_ssl_new();
    ASSERT(ssl);
    ASSERT_EQ(cass_ssl_add_trusted_cert(ssl, "not a certificate"), CASS_ERROR_SSL_INVALID_CERT);
    ASSERT_EQ(cass_ssl_add_trusted_cert(ssl, KEY_PEM), CASS_ERROR_SSL_INVALID_CERT);
    ASSERT_EQ(cass_ssl_add_trusted_cert(ssl, CERT_PEM), CASS_OK);
    ASSERT_EQ(cass_ssl_add_trusted_cert_n(ssl, CERT_PEM, strlen(CERT_PEM)), CASS_OK);
    ASSERT_EQ(cass_ssl_add_trusted_cert_n(ssl, CERT_PEM, 20), CASS_ERROR_SSL_INVALID_CERT);
    ASSERT_EQ(cass_ssl_set_cert(ssl, ""), CASS_ERROR_SSL_INVALID_CERT);
    ASSERT_EQ(cass_ssl_set_cert(ssl, CERT_PEM), CASS_OK);
    ASSERT_EQ(cass_ssl_set_cert_n(ssl, CERT_PEM, strlen(CERT_PEM)), CASS_OK);
    ASSERT_EQ(cass_ssl_set_private_key(ssl, CERT_PEM, NULL), CASS_ERROR_SSL_INVALID_PRIVATE_KEY);
    ASSERT_EQ(cass_ssl_set_private_key(ssl, "garbage", ""), CASS_ERROR_SSL_INVALID_PRIVATE_KEY);
    ASSERT_EQ(cass_ssl_set_private_key(ssl, KEY_PEM, NULL), CASS_OK);
    ASSERT_EQ(cass_ssl_set_private_key(ssl, KEY_LEGACY_ENCRYPTED_PEM, ""),
              CASS_ERROR_SSL_INVALID_PRIVATE_KEY);
    ASSERT_EQ(cass_ssl_set_private_key(ssl, KEY_PKCS8_ENCRYPTED_PEM, NULL),
              CASS_ERROR_SSL_INVALID_PRIVATE_KEY);
    ASSERT_EQ(cass_ssl_set_private_key(ssl, KEY_LEGACY_ENCRYPTED_PEM, "secret"), CASS_OK);
    ASSERT_EQ(cass_ssl_set_private_key_n(ssl, KEY_PKCS8_ENCRYPTED_PEM,
                                         strlen(KEY_PKCS8_ENCRYPTED_PEM), "secret", 6),
              CASS_OK);
    ASSERT_EQ(cass_ssl_set_min_protocol_version(ssl, CASS_SSL_VERSION_TLS1), CASS_OK);
    ASSERT_EQ(cass_ssl_set_min_protocol_version(ssl, CASS_SSL_VERSION_TLS1_2), CASS_OK);
    cass_ssl_set_verify_flags(ssl, CASS_SSL_VERIFY_PEER_CERT | CASS_SSL_VERIFY_PEER_IDENTITY);
    CassSsl *other = cass_ssl_new_no_lib_init();
    ASSERT(other);
    cass_ssl_free(other);

    /* remote, the context makes the connect speak TLS (tests/driver/test_remote.c) */
    REMOTE_SKIP("a TLS context is a no-op on an embedded database only");
    CassCluster *c = cluster_on("memory:");
    cass_cluster_set_ssl(c, ssl);
    cass_ssl_free(ssl); /* the cluster keeps its reference */
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    RUN(s, KS_CQL);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* ------------------------------------------------------------------------ */
/* Backends                                                                  */
/* ------------------------------------------------------------------------ */

TEST(file_database_persists_across_sessions)
{
    char uri[512];
    file_uri(uri, sizeof uri, "db");
    conn a;
    CONNECT(&a, uri);
    make_kv(a.session);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (7, 'seven')");
    conn_close(&a);

    struct stat st;
    char path[512];
    snprintf(path, sizeof path, "%s/db/data.mdb", test_tmpdir());
    ASSERT_EQ(stat(path, &st), 0);

    conn b;
    CONNECT(&b, uri);
    const CassResult *r = QUERY(b.session, "SELECT v FROM ks.kv WHERE k = 7");
    ASSERT_EQ(cass_result_row_count(r), 1);
    char buf[64];
    ASSERT_STR_EQ(get_text(cass_result_first_row(r), 0, buf, sizeof buf), "seven");
    cass_result_free(r);
    conn_close(&b);
}

/* The directory of the database this process has open (its data.mdb), or "" if none. */
static void open_database_dir(char *out, size_t cap)
{
    out[0] = 0;
    DIR *d = opendir("/proc/self/fd");
    ASSERT(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        char link[300], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = 0;
        size_t len = (size_t)n;
        if (len > 9 && strcmp(target + len - 9, "/data.mdb") == 0) {
            target[len - 9] = 0;
            snprintf(out, cap, "%s", target);
            break;
        }
    }
    closedir(d);
}

/* Sessions of one process on one directory share its database: each sees the other's writes
   at once, and its virtual clock. */
TEST(sessions_on_one_directory_share_the_database)
{
    REMOTE_SKIP("file: directories' sharing and the virtual clock are the embedded database's");
    char uri[512];
    file_uri(uri, sizeof uri, "db");
    conn a, b;
    CONNECT(&a, uri);
    CONNECT(&b, uri);
    make_kv(a.session);
    RUN(b.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'from b')");
    const CassResult *r = QUERY(a.session, "SELECT v FROM ks.kv WHERE k = 1");
    char buf[32];
    ASSERT_EQ(cass_result_row_count(r), 1);
    ASSERT_STR_EQ(get_text(cass_result_first_row(r), 0, buf, sizeof buf), "from b");
    cass_result_free(r);
    int64_t t0 = INT64_C(1500000000000000);
    ASSERT_EQ(cassette_session_clock_set(a.session, t0), 0);
    RUN(b.session, "INSERT INTO ks.kv (k, v) VALUES (2, 'b') USING TTL 10");
    ASSERT_EQ(cassette_session_clock_advance(b.session, INT64_C(9) * 1000000), 0);
    r = QUERY(a.session, "SELECT ttl(v) FROM ks.kv WHERE k = 2");
    ASSERT_EQ(get_int(cass_result_first_row(r), 0), 1);
    cass_result_free(r);
    ASSERT_EQ(cassette_session_clock_advance(b.session, INT64_C(1) * 1000000), 0);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 1);
    /* closing one leaves the other's database open */
    conn_close(&a);
    ASSERT_EQ(row_count(b.session, "SELECT * FROM ks.kv"), 1);
    conn_close(&b);
}

/* memory: is a new database of the session's own, removed when it closes. */
TEST(memory_database_is_removed_on_close)
{
    REMOTE_SKIP("a memory: database's directory is the embedded database's");
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    char dir[PATH_MAX];
    open_database_dir(dir, sizeof dir);
    ASSERT(dir[0]);
    struct stat st;
    ASSERT_EQ(stat(dir, &st), 0);

    conn b; /* another memory: database: it has no keyspace ks */
    CONNECT(&b, "memory:");
    ASSERT_EQ(
        row_count(b.session, "SELECT * FROM system_schema.keyspaces WHERE keyspace_name = 'ks'"),
        0);
    conn_close(&b);

    conn_close(&a);
    ASSERT_EQ(stat(dir, &st), -1);
}

/* CASSETTE_URI replaces the contact points, whatever they are (remote: with cql:// of the
   directory's server). */
TEST(cassette_uri_replaces_contact_points)
{
    char uri[512], env[512];
    file_uri(uri, sizeof uri, "fromenv");
    ASSERT_EQ(setenv("CASSETTE_URI", test_database_uri(uri, env, sizeof env), 1), 0);
    ASSERT_EQ(setenv("CASSETTE_DURABILITY", "none", 1), 0);
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, "10.1.2.3,cassandra.example.com"), CASS_OK);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    RUN(s, "INSERT INTO ks.kv (k, v) VALUES (1, 'env')");
    cass_session_free(s);
    cass_cluster_free(c);
    ASSERT_EQ(unsetenv("CASSETTE_URI"), 0);

    conn b; /* the database is where CASSETTE_URI said */
    CONNECT(&b, uri);
    ASSERT_EQ(row_count(b.session, "SELECT * FROM ks.kv"), 1);
    conn_close(&b);
    unsetenv("CASSETTE_DURABILITY");
}

/* A loopback port nothing listens on: one the kernel just gave and took back. */
static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ASSERT(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
           getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* Host names and addresses are for the remote backend: a host nothing listens on fails as the
   driver fails when no host can be reached, and the message names the host. */
TEST(host_contact_point_fails_no_hosts_available)
{
    char msg[1024];
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, "127.0.0.1"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_port(c, closed_port()), CASS_OK);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    future_message(f, msg, sizeof msg);
    ASSERT(strstr(msg, "127.0.0.1"));
    cass_future_free(f);
    /* the session stays closed and can connect elsewhere */
    cass_cluster_free(c);
    c = cluster_on("memory:");
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* session_base.cpp / cluster_connector: no contact points at all. */
TEST(connect_without_contact_points_fails_no_hosts_available)
{
    char msg[1024];
    CassCluster *c = cass_cluster_new();
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    future_message(f, msg, sizeof msg);
    ASSERT(strncmp(msg, "No hosts provided or no hosts resolved", 38) == 0);
    ASSERT(cass_future_get_result(f) == NULL);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* An embedded contact point must be the only one, memory: takes nothing after the colon and
   file: names a directory: anything else cannot connect. */
TEST(malformed_embedded_contact_points_fail_unable_to_connect)
{
    const char *bad[] = {"memory:,file:/tmp/x", "memory:extra", "file:"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CassCluster *c = cass_cluster_new();
        ASSERT_EQ(cass_cluster_set_contact_points(c, bad[i]), CASS_OK);
        CassSession *s = cass_session_new();
        CassFuture *f = cass_session_connect(s, c);
        ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_UNABLE_TO_CONNECT);
        cass_future_free(f);
        cass_session_free(s);
        cass_cluster_free(c);
    }
}

/* connect_keyspace runs USE first: later statements use the keyspace. */
TEST(connect_keyspace_sets_the_session_keyspace)
{
    char uri[512];
    file_uri(uri, sizeof uri, "db");
    conn a;
    CONNECT(&a, uri);
    make_kv(a.session);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    conn_close(&a);

    CassCluster *c = cluster_on(uri);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect_keyspace(s, c, "ks");
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_EQ(row_count(s, "SELECT * FROM kv"), 1);
    cass_session_free(s);

    /* the _n form reads only keyspace_length bytes */
    s = cass_session_new();
    f = cass_session_connect_keyspace_n(s, c, "ksXYZ", 2);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_EQ(row_count(s, "SELECT * FROM kv"), 1);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* The driver connects with USE "<keyspace>": the name is taken exactly, case and all. */
TEST(connect_keyspace_name_is_case_sensitive)
{
    char uri[512];
    file_uri(uri, sizeof uri, "db");
    conn a;
    CONNECT(&a, uri);
    RUN(a.session, "CREATE KEYSPACE \"MyKs\" WITH replication = {'class': 'SimpleStrategy', "
                   "'replication_factor': 1}");
    RUN(a.session, "CREATE TABLE \"MyKs\".t (k int PRIMARY KEY)");
    conn_close(&a);
    CassCluster *c = cluster_on(uri);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect_keyspace(s, c, "myks");
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_UNABLE_TO_SET_KEYSPACE);
    cass_future_free(f);
    f = cass_session_connect_keyspace(s, c, "MyKs");
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_EQ(row_count(s, "SELECT * FROM t"), 0);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* A keyspace that does not exist fails the connect with CASS_ERROR_LIB_UNABLE_TO_SET_KEYSPACE
   and Cassandra's USE message; the session stays closed and may connect again. */
TEST(connect_keyspace_missing_fails_unable_to_set_keyspace)
{
    char msg[1024];
    CassCluster *c = cluster_on("memory:");
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect_keyspace(s, c, "nope");
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_UNABLE_TO_SET_KEYSPACE);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Keyspace 'nope' does not exist");
    cass_future_free(f);
    CassStatement *st = cass_statement_new("SELECT * FROM system.local", 0);
    f = cass_session_execute(s, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    cass_future_free(f);
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    f = cass_session_execute(s, st);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_statement_free(st);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* session.cpp: a request on a session that is not connected fails at once. */
TEST(execute_on_unconnected_session_fails_no_hosts_available)
{
    char msg[256];
    CassSession *s = cass_session_new();
    CassStatement *st = cass_statement_new("SELECT * FROM system.local", 0);
    CassFuture *f = cass_session_execute(s, st);
    ASSERT(cass_future_ready(f));
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Session is not connected");
    ASSERT(cass_future_get_result(f) == NULL);
    cass_future_free(f);
    f = cass_session_prepare(s, "SELECT * FROM system.local");
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT(cass_future_get_prepared(f) == NULL);
    cass_future_free(f);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    f = cass_session_execute_batch(s, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    cass_future_free(f);
    cass_batch_free(b);
    cass_statement_free(st);
    /* cassette.h's extensions say the same */
    ASSERT_EQ(cassette_session_reset(s), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT_EQ(cassette_session_clock_advance(s, 1), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT_EQ(cassette_session_clock_set(s, 1), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT_EQ(cassette_session_clock_real(s), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT_EQ(cassette_session_snapshot(s, test_tmpdir()), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    ASSERT_EQ(cassette_session_reset(NULL), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_session_snapshot(s, NULL), CASS_ERROR_LIB_BAD_PARAMS);
    cass_session_free(s);
}

/* session_base.cpp: close of a closed session is CASS_ERROR_LIB_UNABLE_TO_CLOSE, connect of a
   connected one CASS_ERROR_LIB_UNABLE_TO_CONNECT; a closed session connects again. */
TEST(session_close_then_reconnect)
{
    char uri[512], msg[256];
    file_uri(uri, sizeof uri, "db");
    CassCluster *c = cluster_on(uri);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_close(s);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_UNABLE_TO_CLOSE);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Already closing or closed");
    cass_future_free(f);

    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_UNABLE_TO_CONNECT);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Already connecting, closing, or connected");
    cass_future_free(f);
    make_kv(s);
    RUN(s, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");

    f = cass_session_close(s);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    f = cass_session_close(s);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_UNABLE_TO_CLOSE);
    cass_future_free(f);
    char m2[256];
    ASSERT_EQ(run_err(s, "SELECT * FROM ks.kv", m2, sizeof m2), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);

    f = cass_session_connect_keyspace(s, c, "ks");
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_EQ(row_count(s, "SELECT * FROM kv"), 1);
    cass_session_free(s);
    cass_cluster_free(c);
    cass_session_free(NULL);
    cass_cluster_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* cassette.h: database options                                              */
/* ------------------------------------------------------------------------ */

TEST(durability_option_validates_its_arguments)
{
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cassette_cluster_set_durability(c, CASSETTE_DURABILITY_SYNC), 0);
    ASSERT_EQ(cassette_cluster_set_durability(c, CASSETTE_DURABILITY_NOMETASYNC), 0);
    ASSERT_EQ(cassette_cluster_set_durability(c, CASSETTE_DURABILITY_NONE), 0);
    ASSERT_EQ(cassette_cluster_set_durability(c, CASSETTE_DURABILITY_PERIODIC), 0);
    ASSERT_EQ(cassette_cluster_set_durability(c, (cassette_durability)4),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_sync_period(c, 10), 0);
    ASSERT_EQ(cassette_cluster_set_sync_period(c, 0), 0);
    ASSERT_EQ(cassette_cluster_set_sync_period(c, 3600001), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_sync_period(NULL, 10), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_durability(c, (cassette_durability)-1),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_durability(NULL, CASSETTE_DURABILITY_NONE),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_map_size(NULL, 1 << 20), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_map_size(c, 1 << 20), 0);
    ASSERT_EQ(cassette_cluster_set_map_size(c, 0), 0);
    cass_cluster_free(c);
}

/* Each durability level opens a working database whose data survives the session. */
TEST(durability_levels_all_persist_across_sessions)
{
    REMOTE_SKIP("durability and group commit are the embedded database's");
    const cassette_durability levels[] = {CASSETTE_DURABILITY_SYNC, CASSETTE_DURABILITY_NOMETASYNC,
                                          CASSETTE_DURABILITY_NONE, CASSETTE_DURABILITY_PERIODIC};
    for (size_t i = 0; i < 4; i++) {
        char uri[512], name[32];
        snprintf(name, sizeof name, "db%zu", i);
        file_uri(uri, sizeof uri, name);
        CassCluster *c = cass_cluster_new();
        ASSERT_EQ(cass_cluster_set_contact_points(c, uri), CASS_OK);
        ASSERT_EQ(cassette_cluster_set_durability(c, levels[i]), 0);
        CassSession *s = cass_session_new();
        CassFuture *f = cass_session_connect(s, c);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
        make_kv(s);
        RUN(s, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
        f = cass_session_close(s);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
        f = cass_session_connect(s, c);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
        ASSERT_EQ(row_count(s, "SELECT * FROM ks.kv"), 1);
        cass_session_free(s);
        cass_cluster_free(c);
    }
}

/* A session on file:DIR with a syncing durability: writes go through the group commit. */
static void connect_durable(conn *cn, const char *name, cassette_durability d)
{
    REMOTE_SKIP("durability and group commit are the embedded database's");
    char uri[512];
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, file_uri(uri, sizeof uri, name)), CASS_OK);
    ASSERT_EQ(cassette_cluster_set_durability(c, d), 0);
    conn_open_cluster(__FILE__, __LINE__, cn, c);
}

static _Atomic int callbacks_run;

static void count_durable_callback(CassFuture *f, void *data)
{
    (void)data;
    if (cass_future_error_code(f) == CASS_OK)
        callbacks_run++;
}

/* One thread issues writes without waiting on their futures (the driver's pipelining); each
   future is set once its write is durable, callbacks run, and every write is there. */
TEST(pipelined_writes_complete_when_durable)
{
    conn a;
    connect_durable(&a, "db", CASSETTE_DURABILITY_SYNC);
    make_kv(a.session);
    const CassPrepared *p = PREPARE(a.session, "INSERT INTO ks.kv (k, v) VALUES (?, ?)");
    enum { N = 300 };
    static CassFuture *fs[N];
    callbacks_run = 0;
    for (int i = 0; i < N; i++) {
        CassStatement *st = cass_prepared_bind(p);
        cass_statement_bind_int32(st, 0, i);
        cass_statement_bind_string(st, 1, "x");
        fs[i] = cass_session_execute(a.session, st);
        cass_statement_free(st); /* nothing of it is kept */
        ASSERT_EQ(cass_future_set_callback(fs[i], count_durable_callback, NULL), CASS_OK);
    }
    for (int i = 0; i < N; i++) {
        ASSERT_FUTURE_OK(fs[i]);
        const CassResult *r = cass_future_get_result(fs[i]);
        ASSERT(r != NULL);
        ASSERT_EQ(cass_result_row_count(r), 0);
        ASSERT_EQ(cass_result_column_count(r), 0);
        cass_result_free(r);
        cass_future_free(fs[i]);
    }
    ASSERT_EQ(callbacks_run, N);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT count(*) FROM ks.kv"), N);
    cass_prepared_free(p);
    conn_close(&a);
}

/* A write that fails in the engine after it was queued fails its own future, with the error,
   and no other. */
TEST(pipelined_write_failure_fails_only_its_future)
{
    conn a;
    connect_durable(&a, "db", CASSETTE_DURABILITY_NOMETASYNC);
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.t (k text PRIMARY KEY, v int)");
    const CassPrepared *p = PREPARE(a.session, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    static char big[700];
    memset(big, 'k', sizeof big - 1);
    CassFuture *fs[30];
    for (int i = 0; i < 30; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        CassStatement *st = cass_prepared_bind(p);
        cass_statement_bind_string(st, 0, i == 10 ? big : key);
        cass_statement_bind_int32(st, 1, i);
        fs[i] = cass_session_execute(a.session, st);
        cass_statement_free(st);
    }
    for (int i = 0; i < 30; i++) {
        if (i == 10) {
            ASSERT_EQ(cass_future_error_code(fs[i]), CASS_ERROR_SERVER_INVALID_QUERY);
            char m[256];
            ASSERT(strstr(future_message(fs[i], m, sizeof m), "511") != NULL);
        } else {
            ASSERT_FUTURE_OK(fs[i]);
        }
        cass_future_free(fs[i]);
    }
    ASSERT_EQ(scalar_bigint(a.session, "SELECT count(*) FROM ks.t"), 29);
    cass_prepared_free(p);
    conn_close(&a);
}

/* Closing waits for writes still on their way to the disk; reopened, they are all there. */
TEST(close_waits_for_pipelined_writes)
{
    conn a;
    connect_durable(&a, "db", CASSETTE_DURABILITY_SYNC);
    make_kv(a.session);
    const CassPrepared *p = PREPARE(a.session, "INSERT INTO ks.kv (k, v) VALUES (?, 'y')");
    static CassFuture *fs[200];
    for (int i = 0; i < 200; i++) {
        CassStatement *st = cass_prepared_bind(p);
        cass_statement_bind_int32(st, 0, i);
        fs[i] = cass_session_execute(a.session, st);
        cass_statement_free(st);
    }
    cass_prepared_free(p);
    CassFuture *closing = cass_session_close(a.session);
    ASSERT_FUTURE_OK(closing);
    cass_future_free(closing);
    for (int i = 0; i < 200; i++) {
        ASSERT(cass_future_ready(fs[i]));
        ASSERT_FUTURE_OK(fs[i]);
        cass_future_free(fs[i]);
    }
    cass_session_free(a.session);
    cass_cluster_free(a.cluster);
    connect_durable(&a, "db", CASSETTE_DURABILITY_SYNC);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT count(*) FROM ks.kv"), 200);
    conn_close(&a);
}

/* Pipelined batches complete the same way; a read issued after waiting sees them. */
TEST(pipelined_batches_complete_when_durable)
{
    conn a;
    connect_durable(&a, "db", CASSETTE_DURABILITY_PERIODIC);
    make_kv(a.session);
    static CassFuture *fs[50];
    for (int i = 0; i < 50; i++) {
        CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
        for (int j = 0; j < 2; j++) {
            CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (?, 'b')", 1);
            cass_statement_bind_int32(st, 0, 2 * i + j);
            cass_batch_add_statement(b, st);
            cass_statement_free(st);
        }
        fs[i] = cass_session_execute_batch(a.session, b);
        cass_batch_free(b);
    }
    for (int i = 0; i < 50; i++) {
        ASSERT_FUTURE_OK(fs[i]);
        cass_future_free(fs[i]);
    }
    ASSERT_EQ(scalar_bigint(a.session, "SELECT count(*) FROM ks.kv"), 100);
    conn_close(&a);
}

/* Without group commit every write commits in the thread that executes it: its future is set
   when cass_session_execute returns, and the writes are there. */
TEST(group_commit_off_commits_each_write_before_execute_returns)
{
    REMOTE_SKIP("durability and group commit are the embedded database's");
    ASSERT_EQ(cassette_cluster_set_group_commit(NULL, 0), CASS_ERROR_LIB_BAD_PARAMS);
    char uri[512];
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, file_uri(uri, sizeof uri, "db")), CASS_OK);
    ASSERT_EQ(cassette_cluster_set_durability(c, CASSETTE_DURABILITY_NOMETASYNC), 0);
    ASSERT_EQ(cassette_cluster_set_group_commit(c, 0), 0);
    conn a;
    conn_open_cluster(__FILE__, __LINE__, &a, c);
    make_kv(a.session);
    const CassPrepared *p = PREPARE(a.session, "INSERT INTO ks.kv (k, v) VALUES (?, 'z')");
    for (int i = 0; i < 40; i++) {
        CassStatement *st = cass_prepared_bind(p);
        cass_statement_bind_int32(st, 0, i);
        CassFuture *f = cass_session_execute(a.session, st);
        cass_statement_free(st);
        ASSERT(cass_future_ready(f));
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
    }
    ASSERT_EQ(scalar_bigint(a.session, "SELECT count(*) FROM ks.kv"), 40);
    cass_prepared_free(p);
    conn_close(&a);
}

/* CASSETTE_DURABILITY applies when the cluster does not choose; an explicit
   cassette_cluster_set_durability wins over it (a malformed value shows which one is read). */
TEST(durability_option_wins_over_environment)
{
    REMOTE_SKIP("durability and group commit are the embedded database's");
    char uri[512];
    file_uri(uri, sizeof uri, "db");
    ASSERT_EQ(setenv("CASSETTE_DURABILITY", "bogus", 1), 0);

    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, uri), CASS_OK);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_UNABLE_TO_CONNECT);
    char msg[512];
    ASSERT(strstr(future_message(f, msg, sizeof msg), "CASSETTE_DURABILITY"));
    cass_future_free(f);

    ASSERT_EQ(cassette_cluster_set_durability(c, CASSETTE_DURABILITY_NOMETASYNC), 0);
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);

    /* memory: databases never sync: the variable is not read for them */
    c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, "memory:"), CASS_OK);
    s = cass_session_new();
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
    unsetenv("CASSETTE_DURABILITY");
}

/* The map size is only where the database starts: it grows when the data needs more. */
TEST(map_size_is_initial_and_grows_with_data)
{
    REMOTE_SKIP("the map size is the embedded database's");
    char uri[512];
    file_uri(uri, sizeof uri, "db");
    CassCluster *c = cluster_on(uri);
    ASSERT_EQ(cassette_cluster_set_map_size(c, 256 * 1024), 0);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    const CassPrepared *p = PREPARE(s, "INSERT INTO ks.kv (k, v) VALUES (?, ?)");
    char big[2048];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    for (int i = 0; i < 1500; i++) { /* ~3 MB: far past the 256 KiB map */
        CassStatement *st = cass_prepared_bind(p);
        cass_statement_bind_int32(st, 0, i);
        cass_statement_bind_string(st, 1, big);
        cass_result_free(EXEC(s, st));
        cass_statement_free(st);
    }
    cass_prepared_free(p);
    ASSERT_EQ(scalar_bigint(s, "SELECT count(*) FROM ks.kv"), 1500);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* A map size beyond CASSETTE_MAP_SIZE_MAX is refused when set, leaving the cluster as it was. */
TEST(map_size_beyond_limit_is_bad_params)
{
    char uri[512];
    CassCluster *c = cluster_on(file_uri(uri, sizeof uri, "db"));
    ASSERT_EQ(cassette_cluster_set_map_size(c, 1 << 20), 0);
    ASSERT_EQ(cassette_cluster_set_map_size(c, UINT64_C(1) << 62), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_map_size(c, CASSETTE_MAP_SIZE_MAX + 1), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cassette_cluster_set_map_size(NULL, 0), CASS_ERROR_LIB_BAD_PARAMS);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* ------------------------------------------------------------------------ */
/* DDL and keyspaces                                                         */
/* ------------------------------------------------------------------------ */

/* USE changes the keyspace of every later statement of the session, from any thread. */
TEST(use_changes_keyspace_for_later_statements)
{
    conn a;
    CONNECT(&a, "memory:");
    CassSession *s = a.session;
    RUN(s, "CREATE KEYSPACE k1 WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    RUN(s, "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    RUN(s, "CREATE TABLE k1.t (k int PRIMARY KEY)");
    RUN(s, "CREATE TABLE k2.t (k int PRIMARY KEY)");
    ASSERT_RUN_ERR(s, "SELECT * FROM t", CASS_ERROR_SERVER_INVALID_QUERY,
                   "No keyspace has been specified. USE a keyspace, or explicitly specify "
                   "keyspace.tablename");
    RUN(s, "USE k1");
    RUN(s, "INSERT INTO t (k) VALUES (1)");
    RUN(s, "INSERT INTO t (k) VALUES (2)");
    RUN(s, "USE k2");
    RUN(s, "INSERT INTO t (k) VALUES (3)");
    ASSERT_EQ(row_count(s, "SELECT * FROM t"), 1);
    ASSERT_EQ(row_count(s, "SELECT * FROM k1.t"), 2);
    /* a statement prepared under k2 stays on k2.t whatever the session's keyspace becomes */
    const CassPrepared *p = PREPARE(s, "SELECT * FROM t");
    RUN(s, "USE k1");
    CassStatement *bound = cass_prepared_bind(p);
    const CassResult *pr = EXEC(s, bound);
    ASSERT_EQ(cass_result_row_count(pr), 1);
    cass_result_free(pr);
    cass_statement_free(bound);
    cass_prepared_free(p);
    RUN(s, "USE k2");
    ASSERT_RUN_ERR(s, "USE nope", CASS_ERROR_SERVER_INVALID_QUERY,
                   "Keyspace 'nope' does not exist");
    ASSERT_EQ(row_count(s, "SELECT * FROM t"), 1); /* a failed USE leaves the keyspace */
    /* A USE result: no rows */
    const CassResult *r = QUERY(s, "USE \"k1\"");
    ASSERT_EQ(cass_result_row_count(r), 0);
    ASSERT_EQ(cass_result_column_count(r), 0);
    cass_result_free(r);
    ASSERT_EQ(row_count(s, "SELECT * FROM t"), 2);
    conn_close(&a);
}

typedef struct use_job {
    CassSession *session;
    _Atomic int *phase; /* 0: before the USE, 1: after it */
    int wrong;          /* statements that ran in the wrong keyspace */
    int failures;
} use_job;

/* Reads the table t of the current keyspace: k1.t has one row, k2.t two. */
static void *keyspace_reader(void *arg)
{
    use_job *j = arg;
    for (int i = 0; i < 400; i++) {
        int phase = atomic_load(j->phase);
        CassStatement *st = cass_statement_new("SELECT * FROM t", 0);
        CassFuture *f = cass_session_execute(j->session, st);
        const CassResult *r = cass_future_get_result(f);
        if (!r) {
            j->failures++;
        } else {
            size_t n = cass_result_row_count(r);
            /* after the USE returned, every statement that starts sees k2 */
            if (phase == 1 && n != 2)
                j->wrong++;
            if (n != 1 && n != 2)
                j->wrong++;
            cass_result_free(r);
        }
        cass_future_free(f);
        cass_statement_free(st);
    }
    return NULL;
}

/* USE in one thread moves the keyspace of every statement that starts afterwards, in every
   thread (the driver sends USE to all its connections). */
TEST(use_in_one_thread_moves_every_thread)
{
    conn a;
    CONNECT(&a, "memory:");
    CassSession *s = a.session;
    RUN(s, "CREATE KEYSPACE k1 WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    RUN(s, "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    RUN(s, "CREATE TABLE k1.t (k int PRIMARY KEY)");
    RUN(s, "CREATE TABLE k2.t (k int PRIMARY KEY)");
    RUN(s, "INSERT INTO k1.t (k) VALUES (1)");
    RUN(s, "INSERT INTO k2.t (k) VALUES (1)");
    RUN(s, "INSERT INTO k2.t (k) VALUES (2)");
    RUN(s, "USE k1");
    _Atomic int phase = 0;
    use_job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (use_job){s, &phase, 0, 0};
        ASSERT_EQ(pthread_create(&th[i], NULL, keyspace_reader, &jobs[i]), 0);
    }
    usleep(2000);
    /* a prepared USE works like a simple one */
    const CassPrepared *p = PREPARE(s, "USE k2");
    CassStatement *st = cass_prepared_bind(p);
    cass_result_free(EXEC(s, st));
    atomic_store(&phase, 1);
    cass_statement_free(st);
    cass_prepared_free(p);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ASSERT_EQ(jobs[i].failures, 0);
        ASSERT_EQ(jobs[i].wrong, 0);
    }
    ASSERT_EQ(row_count(s, "SELECT * FROM t"), 2);
    conn_close(&a);
}

typedef struct close_job {
    CassSession *session;
    _Atomic int ok; /* watched by the closing thread */
    int not_connected, other;
} close_job;

static void *busy_writer(void *arg)
{
    close_job *j = arg;
    for (int i = 0; i < 2000; i++) {
        char q[96];
        snprintf(q, sizeof q, "INSERT INTO ks.kv (k, v) VALUES (%d, 'x')", i);
        CassStatement *st = cass_statement_new(q, 0);
        CassFuture *f = cass_session_execute(j->session, st);
        CassError rc = cass_future_error_code(f);
        if (rc == CASS_OK)
            j->ok++;
        else if (rc == CASS_ERROR_LIB_NO_HOSTS_AVAILABLE)
            j->not_connected++;
        else
            j->other++;
        cass_future_free(f);
        cass_statement_free(st);
    }
    return NULL;
}

/* Closing while other threads execute: the requests in flight finish, later ones fail with
   "Session is not connected"; nothing else happens. */
TEST(session_close_while_threads_execute)
{
    char uri[512];
    file_uri(uri, sizeof uri, "db");
    conn a;
    CONNECT(&a, uri);
    make_kv(a.session);
    close_job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (close_job){a.session, 0, 0, 0};
        ASSERT_EQ(pthread_create(&th[i], NULL, busy_writer, &jobs[i]), 0);
    }
    /* close once writes are flowing (a sanitizer build starts threads slowly) */
    for (int waited = 0; jobs[0].ok + jobs[1].ok + jobs[2].ok + jobs[3].ok == 0 && waited < 5000;
         waited++)
        usleep(1000);
    CassFuture *f = cass_session_close(a.session);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    int ok = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ASSERT_EQ(jobs[i].other, 0);
        ok += jobs[i].ok;
    }
    ASSERT(ok > 0);
    /* every write that succeeded is in the database */
    f = cass_session_connect(a.session, a.cluster);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT(scalar_bigint(a.session, "SELECT count(*) FROM ks.kv") >= 1);
    conn_close(&a);
}

/* A prepared statement follows the schema: SELECT * after ALTER TABLE ADD returns the new
   column, as the driver's re-prepare after Cassandra drops the statement does. */
TEST(prepared_select_follows_schema_change)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    const CassPrepared *p = PREPARE(a.session, "SELECT * FROM ks.kv WHERE k = ?");
    CassStatement *st = cass_prepared_bind(p);
    cass_statement_bind_int32(st, 0, 1);
    const CassResult *r = EXEC(a.session, st);
    ASSERT_EQ(cass_result_column_count(r), 2);
    cass_result_free(r);
    RUN(a.session, "ALTER TABLE ks.kv ADD w int");
    r = EXEC(a.session, st);
    ASSERT_EQ(cass_result_column_count(r), 3);
    const char *name;
    size_t n;
    ASSERT_EQ(cass_result_column_name(r, 2, &name, &n), CASS_OK);
    ASSERT_EQ(n, 1);
    ASSERT(name[0] == 'w');
    ASSERT(cass_value_is_null(cass_row_get_column_by_name(cass_result_first_row(r), "w")));
    cass_result_free(r);
    r = EXEC(a.session, st); /* and every execution after */
    ASSERT_EQ(cass_result_column_count(r), 3);
    ASSERT_EQ(cass_result_column_name(r, 2, &name, &n), CASS_OK);
    ASSERT(n == 1 && name[0] == 'w');
    cass_result_free(r);
    cass_statement_free(st);

    /* The table dropped: the re-prepare fails as Cassandra answers it. */
    RUN(a.session, "DROP TABLE ks.kv");
    st = cass_prepared_bind(p);
    cass_statement_bind_int32(st, 0, 1);
    CassFuture *f = cass_session_execute(a.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    char msg[256];
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "table kv does not exist");
    cass_future_free(f);
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Prepared statements                                                       */
/* ------------------------------------------------------------------------ */

TEST(prepared_statement_binds_by_index_and_name)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    const CassPrepared *p = PREPARE(a.session, "INSERT INTO ks.kv (k, v) VALUES (?, :val)");
    const char *name;
    size_t n;
    ASSERT_EQ(cass_prepared_parameter_name(p, 0, &name, &n), CASS_OK);
    ASSERT(n == 1 && name[0] == 'k');
    ASSERT_EQ(cass_prepared_parameter_name(p, 1, &name, &n), CASS_OK);
    ASSERT(n == 3 && memcmp(name, "val", 3) == 0);
    ASSERT_EQ(cass_data_type_type(cass_prepared_parameter_data_type(p, 0)), CASS_VALUE_TYPE_INT);
    ASSERT_EQ(cass_data_type_type(cass_prepared_parameter_data_type_by_name(p, "val")),
              CASS_VALUE_TYPE_VARCHAR);

    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_string_by_name(st, "val", "one"), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 2, 1), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_statement_bind_string(st, 0, "x"), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "nosuch", 1),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    cass_result_free(EXEC(a.session, st));
    cass_statement_free(st);
    cass_prepared_free(p);

    p = PREPARE(a.session, "SELECT v FROM ks.kv WHERE k = ?");
    st = cass_prepared_bind(p);
    cass_statement_bind_int32_by_name(st, "k", 1);
    const CassResult *r = EXEC(a.session, st);
    char buf[32];
    ASSERT_EQ(cass_result_row_count(r), 1);
    ASSERT_STR_EQ(get_text(cass_result_first_row(r), 0, buf, sizeof buf), "one");
    cass_result_free(r);
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&a);
}

typedef struct insert_job {
    CassSession *session;
    const CassPrepared *prepared;
    int base, n;
    int failures;
} insert_job;

static void *insert_worker(void *arg)
{
    insert_job *j = arg;
    for (int i = 0; i < j->n; i++) {
        CassStatement *st = cass_prepared_bind(j->prepared);
        char v[32];
        snprintf(v, sizeof v, "v%d", j->base + i);
        if (cass_statement_bind_int32(st, 0, j->base + i) != CASS_OK ||
            cass_statement_bind_string(st, 1, v) != CASS_OK)
            j->failures++;
        CassFuture *f = cass_session_execute(j->session, st);
        if (cass_future_error_code(f) != CASS_OK)
            j->failures++;
        cass_future_free(f);
        cass_statement_free(st);
    }
    return NULL;
}

/* A prepared statement is read-only: 8 threads bind and execute it at once, 500 rows each. */
TEST(prepared_statement_bound_from_many_threads)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    const CassPrepared *p = PREPARE(a.session, "INSERT INTO ks.kv (k, v) VALUES (?, ?)");
    pthread_t th[8];
    insert_job jobs[8];
    for (int i = 0; i < 8; i++) {
        jobs[i] = (insert_job){a.session, p, i * 500, 500, 0};
        ASSERT_EQ(pthread_create(&th[i], NULL, insert_worker, &jobs[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        ASSERT_EQ(jobs[i].failures, 0);
    }
    cass_prepared_free(p);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT count(*) FROM ks.kv"), 4000);
    /* every row, with its own value */
    const CassResult *r = QUERY(a.session, "SELECT k, v FROM ks.kv");
    ASSERT_EQ(cass_result_row_count(r), 4000);
    static unsigned char seen[4000];
    CassIterator *it = cass_iterator_from_result(r);
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        int32_t k = get_int(row, 0);
        char want[32], got[32];
        ASSERT(k >= 0 && k < 4000);
        snprintf(want, sizeof want, "v%d", k);
        ASSERT_STR_EQ(get_text(row, 1, got, sizeof got), want);
        seen[k]++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    for (int k = 0; k < 4000; k++)
        ASSERT_EQ(seen[k], 1);
    conn_close(&a);
}

/* cass_session_prepare_from_existing prepares the statement's query, a simple statement's or a
   bound statement's, and gives a prepared statement like any other. */
TEST(prepare_from_existing_prepares_the_statement_query)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    CassStatement *orig = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_set_consistency(orig, CASS_CONSISTENCY_QUORUM), CASS_OK);
    ASSERT_EQ(cass_statement_set_request_timeout(orig, 1000), CASS_OK);
    ASSERT_EQ(cass_statement_set_is_idempotent(orig, cass_true), CASS_OK);
    CassFuture *f = cass_session_prepare_from_existing(a.session, orig);
    ASSERT_FUTURE_OK(f);
    const CassPrepared *p = cass_future_get_prepared(f);
    ASSERT(p);
    cass_future_free(f);
    const char *name;
    size_t n;
    ASSERT_EQ(cass_prepared_parameter_name(p, 1, &name, &n), CASS_OK);
    ASSERT(n == 1 && name[0] == 'v');
    CassStatement *st = cass_prepared_bind(p);
    cass_statement_bind_int32(st, 0, 5);
    cass_statement_bind_string(st, 1, "five");
    cass_result_free(EXEC(a.session, st));
    cass_statement_free(st);
    cass_prepared_free(p);
    cass_statement_free(orig);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv WHERE k = 5"), 1);

    /* a prepared statement's bound statement prepares its query again */
    const CassPrepared *p1 = PREPARE(a.session, "SELECT v FROM ks.kv WHERE k = ?");
    CassStatement *b1 = cass_prepared_bind(p1);
    f = cass_session_prepare_from_existing(a.session, b1);
    ASSERT_FUTURE_OK(f);
    const CassPrepared *p2 = cass_future_get_prepared(f);
    cass_future_free(f);
    CassStatement *b2 = cass_prepared_bind(p2);
    cass_statement_bind_int32(b2, 0, 5);
    const CassResult *r = EXEC(a.session, b2);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(b2);
    cass_statement_free(b1);
    cass_prepared_free(p2);
    cass_prepared_free(p1);
    conn_close(&a);
}

/* Consistency levels are checked as Cassandra's ConsistencyLevel checks them (validateForRead,
   validateForWrite, validateCounterForWrite, validateForCas, validateForCasCommit), with the
   level the request carries: the statement's, else the cluster's. */
TEST(consistency_levels_are_validated_as_cassandra_does)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    RUN(a.session, "CREATE TABLE ks.c (k int PRIMARY KEY, n counter)");
    char msg[512];
    struct {
        const char *q;
        CassConsistency cl, serial;
        const char *want;
    } cases[] = {
        {"SELECT * FROM ks.kv", CASS_CONSISTENCY_ANY, CASS_CONSISTENCY_UNKNOWN,
         "ANY ConsistencyLevel is only supported for writes"},
        {"INSERT INTO ks.kv (k, v) VALUES (1, 'a')", CASS_CONSISTENCY_SERIAL,
         CASS_CONSISTENCY_UNKNOWN, "You must use conditional updates for serializable writes"},
        {"DELETE FROM ks.kv WHERE k = 1", CASS_CONSISTENCY_LOCAL_SERIAL, CASS_CONSISTENCY_UNKNOWN,
         "You must use conditional updates for serializable writes"},
        {"UPDATE ks.c SET n = n + 1 WHERE k = 1", CASS_CONSISTENCY_ANY, CASS_CONSISTENCY_UNKNOWN,
         "Consistency level ANY is not yet supported for counter table c"},
        {"UPDATE ks.c SET n = n + 1 WHERE k = 1", CASS_CONSISTENCY_SERIAL, CASS_CONSISTENCY_UNKNOWN,
         "Counter operations are inherently non-serializable"},
        {"INSERT INTO ks.kv (k, v) VALUES (1, 'a') IF NOT EXISTS", CASS_CONSISTENCY_ONE,
         CASS_CONSISTENCY_QUORUM,
         "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL"},
        {"UPDATE ks.kv SET v = 'b' WHERE k = 1 IF v = 'a'", CASS_CONSISTENCY_SERIAL,
         CASS_CONSISTENCY_SERIAL,
         "SERIAL is not supported as conditional update commit consistency. Use ANY if you mean "
         "\"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL "
         "reads\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CassStatement *st = cass_statement_new(cases[i].q, 0);
        ASSERT_EQ(cass_statement_set_consistency(st, cases[i].cl), CASS_OK);
        if (cases[i].serial != CASS_CONSISTENCY_UNKNOWN)
            ASSERT_EQ(cass_statement_set_serial_consistency(st, cases[i].serial), CASS_OK);
        CassFuture *f = cass_session_execute(a.session, st);
        ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
        ASSERT_STR_EQ(future_message(f, msg, sizeof msg), cases[i].want);
        cass_future_free(f);
        cass_statement_free(st);
    }
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 0); /* nothing was written */
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.c"), 0);

    /* the levels that are fine: writes at ANY, LWT at LOCAL_SERIAL committed at ANY, reads at
       SERIAL */
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (1, 'a')", 0);
    cass_statement_set_consistency(st, CASS_CONSISTENCY_ANY);
    cass_result_free(EXEC(a.session, st));
    cass_statement_free(st);
    st = cass_statement_new("UPDATE ks.kv SET v = 'b' WHERE k = 1 IF v = 'a'", 0);
    cass_statement_set_consistency(st, CASS_CONSISTENCY_ANY);
    cass_statement_set_serial_consistency(st, CASS_CONSISTENCY_LOCAL_SERIAL);
    const CassResult *r = EXEC(a.session, st);
    ASSERT(get_applied(r));
    cass_result_free(r);
    cass_statement_free(st);
    st = cass_statement_new("SELECT v FROM ks.kv WHERE k = 1", 0);
    cass_statement_set_consistency(st, CASS_CONSISTENCY_SERIAL);
    r = EXEC(a.session, st);
    char buf[16];
    ASSERT_STR_EQ(get_text(cass_result_first_row(r), 0, buf, sizeof buf), "b");
    cass_result_free(r);
    cass_statement_free(st);

    /* a conditional batch's levels are the batch's */
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    st = cass_statement_new("UPDATE ks.kv SET v = 'c' WHERE k = 1 IF v = 'b'", 0);
    cass_batch_add_statement(b, st);
    ASSERT_EQ(cass_batch_set_serial_consistency(b, CASS_CONSISTENCY_ONE), CASS_OK);
    CassFuture *f = cass_session_execute_batch(a.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(
        future_message(f, msg, sizeof msg),
        "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL");
    cass_future_free(f);
    ASSERT_EQ(cass_batch_set_serial_consistency(b, CASS_CONSISTENCY_SERIAL), CASS_OK);
    f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_statement_free(st);
    cass_batch_free(b);
    conn_close(&a);

    /* the cluster's level applies to statements that set none */
    CassCluster *c = cluster_on("memory:");
    ASSERT_EQ(cass_cluster_set_consistency(c, CASS_CONSISTENCY_ANY), CASS_OK);
    CassSession *s = cass_session_new();
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_RUN_ERR(s, "SELECT * FROM system.local", CASS_ERROR_SERVER_INVALID_QUERY,
                   "ANY ConsistencyLevel is only supported for writes");
    st = cass_statement_new("SELECT * FROM system.local", 0);
    cass_statement_set_consistency(st, CASS_CONSISTENCY_ONE);
    cass_result_free(EXEC(s, st));
    cass_statement_free(st);
    cass_session_free(s);
    cass_cluster_free(c);

    c = cluster_on("memory:");
    ASSERT_EQ(cass_cluster_set_serial_consistency(c, CASS_CONSISTENCY_QUORUM), CASS_OK);
    s = cass_session_new();
    f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    ASSERT_RUN_ERR(
        s, "INSERT INTO ks.kv (k, v) VALUES (1, 'a') IF NOT EXISTS",
        CASS_ERROR_SERVER_INVALID_QUERY,
        "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL");
    cass_session_free(s);
    cass_cluster_free(c);
}

/* request.hpp RequestSettings: a statement bound from cass_session_prepare_from_existing's
   result takes the statement's consistency, serial consistency, timeout, idempotence and
   keyspace; one bound from a plain prepare takes none of them. */
TEST(prepare_from_existing_inherits_statement_settings)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    char msg[256];
    CassStatement *orig = cass_statement_new("SELECT v FROM ks.kv WHERE k = ?", 1);
    ASSERT_EQ(cass_statement_set_consistency(orig, CASS_CONSISTENCY_ANY), CASS_OK);
    CassFuture *f = cass_session_prepare_from_existing(a.session, orig);
    ASSERT_FUTURE_OK(f);
    const CassPrepared *inherited = cass_future_get_prepared(f);
    cass_future_free(f);
    const CassPrepared *plain = PREPARE(a.session, "SELECT v FROM ks.kv WHERE k = ?");

    CassStatement *st = cass_prepared_bind(inherited);
    cass_statement_bind_int32(st, 0, 1);
    f = cass_session_execute(a.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "ANY ConsistencyLevel is only supported for writes");
    cass_future_free(f);
    /* the bound statement's own setting wins */
    cass_statement_set_consistency(st, CASS_CONSISTENCY_LOCAL_ONE);
    const CassResult *r = EXEC(a.session, st);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(st);

    st = cass_prepared_bind(plain);
    cass_statement_bind_int32(st, 0, 1);
    r = EXEC(a.session, st);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(st);

    /* serial consistency too */
    CassStatement *lwt = cass_statement_new("UPDATE ks.kv SET v = ? WHERE k = ? IF v = ?", 3);
    cass_statement_set_serial_consistency(lwt, CASS_CONSISTENCY_QUORUM);
    f = cass_session_prepare_from_existing(a.session, lwt);
    ASSERT_FUTURE_OK(f);
    const CassPrepared *pl = cass_future_get_prepared(f);
    cass_future_free(f);
    st = cass_prepared_bind(pl);
    cass_statement_bind_string(st, 0, "b");
    cass_statement_bind_int32(st, 1, 1);
    cass_statement_bind_string(st, 2, "a");
    f = cass_session_execute(a.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    cass_future_free(f);
    cass_statement_free(st);
    cass_statement_free(lwt);
    cass_prepared_free(pl);

    cass_prepared_free(inherited);
    cass_prepared_free(plain);
    cass_statement_free(orig);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Paging                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct triple {
    int32_t p, c;
    char v[16];
} triple;

/* 5,000 rows: partitions 0..3 with 500 rows each and partition 99 with 3,000. */
static void fill_paging_table(CassSession *s)
{
    RUN(s, KS_CQL);
    RUN(s, "CREATE TABLE ks.pg (p int, c int, v text, PRIMARY KEY (p, c))");
    const CassPrepared *p = PREPARE(s, "INSERT INTO ks.pg (p, c, v) VALUES (?, ?, ?)");
    for (int i = 0; i < 5000; i++) {
        int part = i < 2000 ? i / 500 : 99;
        int ck = i < 2000 ? i % 500 : i - 2000;
        char v[16];
        snprintf(v, sizeof v, "r%d", i);
        CassStatement *st = cass_prepared_bind(p);
        cass_statement_bind_int32(st, 0, part);
        cass_statement_bind_int32(st, 1, ck);
        cass_statement_bind_string(st, 2, v);
        CassFuture *f = cass_session_execute(s, st);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
        cass_statement_free(st);
    }
    cass_prepared_free(p);
}

/* Appends the rows of r to out (at *n). */
static void collect_rows(const CassResult *r, triple *out, size_t cap, size_t *n)
{
    CassIterator *it = cass_iterator_from_result(r);
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        ASSERT(*n < cap);
        out[*n].p = get_int(row, 0);
        out[*n].c = get_int(row, 1);
        get_text(row, 2, out[*n].v, sizeof out[*n].v);
        (*n)++;
    }
    cass_iterator_free(it);
}

static void assert_same_rows(const triple *a, size_t na, const triple *b, size_t nb)
{
    ASSERT_EQ(na, nb);
    for (size_t i = 0; i < na; i++) {
        ASSERT_EQ(a[i].p, b[i].p);
        ASSERT_EQ(a[i].c, b[i].c);
        ASSERT_STR_EQ(a[i].v, b[i].v);
    }
}

/* Pages of the query, following cass_statement_set_paging_state (or the raw token); returns
   the number of pages. Every page but the last is full and says more pages follow. */
static size_t page_through(CassSession *s, const char *q, int page, int use_token, triple *out,
                           size_t cap, size_t *n)
{
    CassStatement *st = cass_statement_new(q, 0);
    ASSERT_EQ(cass_statement_set_paging_size(st, page), CASS_OK);
    size_t pages = 0;
    for (;;) {
        const CassResult *r = EXEC(s, st);
        pages++;
        size_t before = *n;
        collect_rows(r, out, cap, n);
        if (!cass_result_has_more_pages(r)) {
            ASSERT(*n - before <= (size_t)page);
            cass_result_free(r);
            break;
        }
        ASSERT_EQ(*n - before, page);
        if (use_token) {
            const char *tok;
            size_t len;
            ASSERT_EQ(cass_result_paging_state_token(r, &tok, &len), CASS_OK);
            ASSERT(len > 0);
            char copy[1024];
            ASSERT(len <= sizeof copy);
            memcpy(copy, tok, len);
            cass_result_free(r); /* the token outlives its result as the application's copy */
            ASSERT_EQ(cass_statement_set_paging_state_token(st, copy, len), CASS_OK);
        } else {
            ASSERT_EQ(cass_statement_set_paging_state(st, r), CASS_OK);
            cass_result_free(r);
        }
    }
    cass_statement_free(st);
    return pages;
}

/* Concatenated pages equal the unpaged result, across partitions and inside one big partition,
   with either form of the paging state. */
TEST(paged_results_concatenate_to_the_unpaged_result)
{
    conn a;
    CONNECT(&a, "memory:");
    fill_paging_table(a.session);
    static triple all[5000], paged[5000];
    size_t n_all = 0, n_paged = 0;

    const CassResult *r = QUERY(a.session, "SELECT p, c, v FROM ks.pg");
    ASSERT(!cass_result_has_more_pages(r));
    collect_rows(r, all, 5000, &n_all);
    cass_result_free(r);
    ASSERT_EQ(n_all, 5000);

    ASSERT_EQ(page_through(a.session, "SELECT p, c, v FROM ks.pg", 333, 0, paged, 5000, &n_paged),
              16);
    assert_same_rows(all, n_all, paged, n_paged);
    n_paged = 0;
    page_through(a.session, "SELECT p, c, v FROM ks.pg", 1000, 1, paged, 5000, &n_paged);
    assert_same_rows(all, n_all, paged, n_paged);

    /* one partition of 3,000 rows */
    n_all = 0;
    r = QUERY(a.session, "SELECT p, c, v FROM ks.pg WHERE p = 99");
    collect_rows(r, all, 5000, &n_all);
    cass_result_free(r);
    ASSERT_EQ(n_all, 3000);
    n_paged = 0;
    ASSERT_EQ(page_through(a.session, "SELECT p, c, v FROM ks.pg WHERE p = 99", 250, 1, paged, 5000,
                           &n_paged),
              12);
    assert_same_rows(all, n_all, paged, n_paged);
    /* in reverse clustering order */
    n_all = n_paged = 0;
    r = QUERY(a.session, "SELECT p, c, v FROM ks.pg WHERE p = 99 ORDER BY c DESC");
    collect_rows(r, all, 5000, &n_all);
    cass_result_free(r);
    page_through(a.session, "SELECT p, c, v FROM ks.pg WHERE p = 99 ORDER BY c DESC", 700, 0, paged,
                 5000, &n_paged);
    assert_same_rows(all, n_all, paged, n_paged);
    ASSERT_EQ(all[0].c, 2999);

    /* filtered (a slice on the partition key and a filter on a regular column, CASSANDRA-11031)
       pages, some of them short of matches, still concatenate to the whole */
    const char *filtered = "SELECT p, c, v FROM ks.pg WHERE p > 1 AND v > 'r3' ALLOW FILTERING";
    n_all = n_paged = 0;
    r = QUERY(a.session, filtered);
    collect_rows(r, all, 5000, &n_all);
    cass_result_free(r);
    ASSERT(n_all > 1000 && n_all < 4000);
    for (size_t i = 0; i < n_all; i++)
        ASSERT(all[i].p > 1 && strcmp(all[i].v, "r3") > 0);
    CassStatement *st = cass_statement_new(filtered, 0);
    cass_statement_set_paging_size(st, 400);
    for (;;) {
        r = EXEC(a.session, st);
        collect_rows(r, paged, 5000, &n_paged);
        if (!cass_result_has_more_pages(r)) {
            const char *tok;
            size_t len;
            ASSERT_EQ(cass_result_paging_state_token(r, &tok, &len),
                      CASS_ERROR_LIB_NO_PAGING_STATE);
            cass_result_free(r);
            break;
        }
        cass_statement_set_paging_state(st, r);
        cass_result_free(r);
    }
    cass_statement_free(st);
    assert_same_rows(all, n_all, paged, n_paged);

    /* a bound statement pages the same way */
    const CassPrepared *p = PREPARE(a.session, "SELECT p, c, v FROM ks.pg WHERE p = ?");
    n_all = n_paged = 0;
    st = cass_prepared_bind(p);
    cass_statement_bind_int32(st, 0, 99);
    r = EXEC(a.session, st);
    collect_rows(r, all, 5000, &n_all);
    cass_result_free(r);
    cass_statement_set_paging_size(st, 128);
    size_t pages = 0;
    for (;; pages++) {
        r = EXEC(a.session, st);
        collect_rows(r, paged, 5000, &n_paged);
        int more = cass_result_has_more_pages(r);
        if (more)
            cass_statement_set_paging_state(st, r);
        cass_result_free(r);
        if (!more)
            break;
    }
    ASSERT_EQ(pages, 3000 / 128);
    assert_same_rows(all, n_all, paged, n_paged);
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&a);
}

/* Paging respects LIMIT: the pages together hold LIMIT rows. */
TEST(paging_stops_at_the_limit)
{
    conn a;
    CONNECT(&a, "memory:");
    fill_paging_table(a.session);
    static triple rows[5000];
    size_t n = 0;
    page_through(a.session, "SELECT p, c, v FROM ks.pg LIMIT 1234", 500, 0, rows, 5000, &n);
    ASSERT_EQ(n, 1234);
    conn_close(&a);
}

/* PagingState.deserialize: bytes that are no paging state are a protocol error. */
TEST(garbage_paging_state_is_refused_protocol_error)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    CassStatement *st = cass_statement_new("SELECT * FROM ks.kv", 0);
    cass_statement_set_paging_size(st, 10);
    const char garbage[] = "not a paging state";
    ASSERT_EQ(cass_statement_set_paging_state_token(st, garbage, sizeof garbage - 1), CASS_OK);
    CassFuture *f = cass_session_execute(a.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_PROTOCOL_ERROR);
    char msg[256];
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Invalid value for the paging state");
    cass_future_free(f);
    cass_statement_free(st);

    /* a real state cut short, or with a byte damaged: Cassandra's state carries its lengths, so
       it refuses a cut one; cassette's also carries a checksum */
    for (int i = 2; i <= 20; i++) {
        char q[96];
        snprintf(q, sizeof q, "INSERT INTO ks.kv (k, v) VALUES (%d, 'x')", i);
        RUN(a.session, q);
    }
    st = cass_statement_new("SELECT * FROM ks.kv", 0);
    cass_statement_set_paging_size(st, 5);
    const CassResult *r = EXEC(a.session, st);
    ASSERT(cass_result_has_more_pages(r));
    const char *tok;
    size_t len;
    ASSERT_EQ(cass_result_paging_state_token(r, &tok, &len), CASS_OK);
    char copy[512];
    ASSERT(len > 2 && len <= sizeof copy);
    memcpy(copy, tok, len);
    cass_result_free(r);
    for (size_t cut = 1; cut < len; cut += 3) {
        ASSERT_EQ(cass_statement_set_paging_state_token(st, copy, len - cut), CASS_OK);
        f = cass_session_execute(a.session, st);
        ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_PROTOCOL_ERROR);
        cass_future_free(f);
    }
    for (size_t i = 0; i < len; i += 7) {
        copy[i] ^= 0x5a;
        ASSERT_EQ(cass_statement_set_paging_state_token(st, copy, len), CASS_OK);
        f = cass_session_execute(a.session, st);
        ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_PROTOCOL_ERROR);
        cass_future_free(f);
        copy[i] ^= 0x5a;
    }
    /* undamaged, it still works */
    ASSERT_EQ(cass_statement_set_paging_state_token(st, copy, len), CASS_OK);
    r = EXEC(a.session, st);
    ASSERT_EQ(cass_result_row_count(r), 5);
    cass_result_free(r);
    cass_statement_free(st);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Lightweight transactions                                                  */
/* ------------------------------------------------------------------------ */

/* facts §5.3: applied is one row [applied]=true; not applied prepends [applied]=false to the
   current row (all columns for IF NOT EXISTS, the condition columns for IF cond). */
TEST(insert_if_not_exists_reports_applied_and_current_values)
{
    conn a;
    CONNECT(&a, "memory:");
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v1 int, v2 text, v3 int)");
    const CassResult *r =
        QUERY(a.session, "INSERT INTO ks.t (k, v1, v2) VALUES (0, 2, 'foo') IF NOT EXISTS");
    ASSERT_EQ(cass_result_column_count(r), 1);
    ASSERT_EQ(cass_result_row_count(r), 1);
    ASSERT(get_applied(r));
    const char *name;
    size_t n;
    ASSERT_EQ(cass_result_column_name(r, 0, &name, &n), CASS_OK);
    ASSERT(n == 9 && memcmp(name, "[applied]", 9) == 0);
    ASSERT_EQ(cass_result_column_type(r, 0), CASS_VALUE_TYPE_BOOLEAN);
    cass_result_free(r);

    r = QUERY(a.session, "INSERT INTO ks.t (k, v1, v2) VALUES (0, 5, 'bar') IF NOT EXISTS");
    ASSERT(!get_applied(r));
    ASSERT_EQ(cass_result_column_count(r), 5); /* [applied], k, v1, v2, v3 */
    const CassRow *row = cass_result_first_row(r);
    char buf[32];
    ASSERT_EQ(get_int(row, 1), 0);
    cass_int32_t v1;
    ASSERT_EQ(cass_value_get_int32(cass_row_get_column_by_name(row, "v1"), &v1), CASS_OK);
    ASSERT_EQ(v1, 2);
    ASSERT_STR_EQ(value_text(cass_row_get_column_by_name(row, "v2"), buf, sizeof buf), "foo");
    ASSERT(cass_value_is_null(cass_row_get_column_by_name(row, "v3")));
    cass_result_free(r);

    /* UPDATE IF cond: not applied returns the condition column's value */
    r = QUERY(a.session, "UPDATE ks.t SET v1 = 9 WHERE k = 0 IF v1 = 4");
    ASSERT(!get_applied(r));
    ASSERT_EQ(cass_result_column_count(r), 2);
    ASSERT_EQ(get_int(cass_result_first_row(r), 1), 2);
    cass_result_free(r);
    r = QUERY(a.session, "UPDATE ks.t SET v1 = 9 WHERE k = 0 IF v1 = 2 AND v2 = 'foo'");
    ASSERT(get_applied(r));
    ASSERT_EQ(cass_result_column_count(r), 1);
    cass_result_free(r);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.t WHERE k = 0 AND v1 = 9 ALLOW FILTERING"), 1);
    /* no row: only [applied] */
    r = QUERY(a.session, "UPDATE ks.t SET v1 = 1 WHERE k = 1 IF EXISTS");
    ASSERT(!get_applied(r));
    ASSERT_EQ(cass_result_column_count(r), 1);
    cass_result_free(r);

    /* a prepared conditional statement, bound */
    const CassPrepared *p = PREPARE(a.session, "UPDATE ks.t SET v2 = ? WHERE k = ? IF v1 = ?");
    CassStatement *st = cass_prepared_bind(p);
    cass_statement_bind_string(st, 0, "baz");
    cass_statement_bind_int32(st, 1, 0);
    cass_statement_bind_int32(st, 2, 9);
    r = EXEC(a.session, st);
    ASSERT(get_applied(r));
    cass_result_free(r);
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&a);
}

/* facts §5.4: a conditional batch on one partition applies all or nothing. */
TEST(conditional_batch_on_one_partition)
{
    conn a;
    CONNECT(&a, "memory:");
    RUN(a.session, KS_CQL);
    RUN(a.session,
        "CREATE TABLE ks.t (id int, k text, version int static, v text, PRIMARY KEY (id, k))");
    RUN(a.session, "INSERT INTO ks.t (id, k, version, v) VALUES (0, 'k1', 1, 'a')");
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *s1 =
        cass_statement_new("UPDATE ks.t SET version = 2 WHERE id = 0 IF version = 1", 0);
    CassStatement *s2 = cass_statement_new("INSERT INTO ks.t (id, k, v) VALUES (0, 'k2', 'b')", 0);
    ASSERT_EQ(cass_batch_add_statement(b, s1), CASS_OK);
    ASSERT_EQ(cass_batch_add_statement(b, s2), CASS_OK);
    CassFuture *f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    const CassResult *r = cass_future_get_result(f);
    ASSERT(get_applied(r));
    cass_result_free(r);
    cass_future_free(f);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.t WHERE id = 0"), 2);

    /* run again: version is 2 now, nothing applies; the result shows the current version */
    CassStatement *s3 = cass_statement_new("INSERT INTO ks.t (id, k, v) VALUES (0, 'k3', 'c')", 0);
    ASSERT_EQ(cass_batch_add_statement(b, s3), CASS_OK);
    f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    r = cass_future_get_result(f);
    ASSERT(!get_applied(r));
    const CassRow *row = cass_result_first_row(r);
    cass_int32_t version;
    ASSERT_EQ(cass_value_get_int32(cass_row_get_column_by_name(row, "version"), &version), CASS_OK);
    ASSERT_EQ(version, 2);
    cass_result_free(r);
    cass_future_free(f);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.t WHERE id = 0"), 2);
    cass_statement_free(s1);
    cass_statement_free(s2);
    cass_statement_free(s3);
    cass_batch_free(b);

    /* facts §5.5: a conditional write takes the Paxos ballot's time, not the client's
       timestamp (the BATCH message's) */
    b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    s1 = cass_statement_new("UPDATE ks.t SET v = 'z' WHERE id = 0 AND k = 'k1' IF v = 'a'", 0);
    cass_batch_add_statement(b, s1);
    ASSERT_EQ(cass_batch_set_timestamp(b, 5), CASS_OK);
    int64_t before = wall_us();
    f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    r = cass_future_get_result(f);
    ASSERT(get_applied(r));
    cass_result_free(r);
    cass_future_free(f);
    ASSERT(scalar_bigint(a.session, "SELECT writetime(v) FROM ks.t WHERE id = 0 AND k = 'k1'") >=
           before);
    cass_statement_free(s1);
    cass_batch_free(b);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Batches                                                                   */
/* ------------------------------------------------------------------------ */

/* Logged and unlogged batches write every statement, simple or bound, across partitions. */
TEST(logged_and_unlogged_batches_write_every_statement)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    const CassPrepared *p = PREPARE(a.session, "INSERT INTO ks.kv (k, v) VALUES (?, ?)");
    const CassBatchType types[] = {CASS_BATCH_TYPE_LOGGED, CASS_BATCH_TYPE_UNLOGGED};
    for (int t = 0; t < 2; t++) {
        CassBatch *b = cass_batch_new(types[t]);
        for (int i = 0; i < 10; i++) {
            CassStatement *st = cass_prepared_bind(p);
            cass_statement_bind_int32(st, 0, t * 100 + i);
            cass_statement_bind_string(st, 1, "x");
            ASSERT_EQ(cass_batch_add_statement(b, st), CASS_OK);
            cass_statement_free(st); /* the batch keeps its own */
        }
        CassStatement *simple = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (?, ?)", 2);
        cass_statement_bind_int32(simple, 0, t * 100 + 50);
        cass_statement_bind_string(simple, 1, "simple");
        ASSERT_EQ(cass_batch_add_statement(b, simple), CASS_OK);
        cass_statement_free(simple);
        CassFuture *f = cass_session_execute_batch(a.session, b);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
        cass_batch_free(b);
    }
    cass_prepared_free(p);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT count(*) FROM ks.kv"), 22);
    conn_close(&a);
}

/* facts §6: counter updates go in COUNTER (or UNLOGGED) batches only, never with non-counter
   statements; a counter batch sums the increments. */
TEST(counter_batch_rules)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    RUN(a.session, "CREATE TABLE ks.c (k int PRIMARY KEY, n counter)");
    CassStatement *inc = cass_statement_new("UPDATE ks.c SET n = n + 2 WHERE k = 1", 0);
    CassStatement *inc2 = cass_statement_new("UPDATE ks.c SET n = n + 3 WHERE k = 1", 0);
    CassStatement *plain = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (1, 'a')", 0);
    char msg[256];

    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_COUNTER);
    cass_batch_add_statement(b, inc);
    cass_batch_add_statement(b, inc2);
    CassFuture *f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT n FROM ks.c WHERE k = 1"), 5);

    cass_batch_add_statement(b, plain);
    f = cass_session_execute_batch(a.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "Cannot include non-counter statement in a counter batch");
    cass_future_free(f);
    cass_batch_free(b);

    b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    cass_batch_add_statement(b, inc);
    f = cass_session_execute_batch(a.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "Cannot include a counter statement in a logged batch");
    cass_future_free(f);
    cass_batch_free(b);

    b = cass_batch_new(CASS_BATCH_TYPE_UNLOGGED);
    cass_batch_add_statement(b, inc);
    cass_batch_add_statement(b, plain);
    f = cass_session_execute_batch(a.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "Counter and non-counter mutations cannot exist in the same batch");
    cass_future_free(f);
    cass_batch_free(b);

    b = cass_batch_new(CASS_BATCH_TYPE_UNLOGGED); /* counters alone: allowed */
    cass_batch_add_statement(b, inc);
    f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_batch_free(b);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT n FROM ks.c WHERE k = 1"), 7);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"),
              0); /* the failed batches wrote nothing */

    /* The BATCH message's timestamp is the protocol's default timestamp, which drivers send with
       counter batches too: accepted. USING TIMESTAMP in the batch text is refused. */
    b = cass_batch_new(CASS_BATCH_TYPE_COUNTER);
    cass_batch_add_statement(b, inc);
    cass_batch_set_timestamp(b, 1000);
    f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_batch_free(b);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT n FROM ks.c WHERE k = 1"), 9);
    ASSERT_RUN_ERR(
        a.session,
        "BEGIN COUNTER BATCH USING TIMESTAMP 1000 UPDATE ks.c SET n = n + 1 WHERE k = 1; "
        "APPLY BATCH",
        CASS_ERROR_SERVER_INVALID_QUERY, "Cannot provide custom timestamp for counter BATCH");

    cass_statement_free(inc);
    cass_statement_free(inc2);
    cass_statement_free(plain);
    conn_close(&a);
}

/* cass_batch_set_timestamp is the BATCH message's timestamp: every write's writetime. */
TEST(batch_timestamp_is_every_writetime)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *s1 = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (1, 'a')", 0);
    CassStatement *s2 = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (2, 'b')", 0);
    cass_statement_set_timestamp(s2, 5); /* a statement's own timestamp is not in a BATCH */
    cass_batch_add_statement(b, s1);
    cass_batch_add_statement(b, s2);
    ASSERT_EQ(cass_batch_set_timestamp(b, 1234567), CASS_OK);
    CassFuture *f = cass_session_execute_batch(a.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT writetime(v) FROM ks.kv WHERE k = 1"), 1234567);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT writetime(v) FROM ks.kv WHERE k = 2"), 1234567);
    cass_statement_free(s1);
    cass_statement_free(s2);
    cass_batch_free(b);
    conn_close(&a);
}

/* facts §5.4: conditions on more than one partition are refused. */
TEST(conditional_batch_across_partitions_is_refused)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *s1 =
        cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (1, 'a') IF NOT EXISTS", 0);
    CassStatement *s2 = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (2, 'b')", 0);
    cass_batch_add_statement(b, s1);
    cass_batch_add_statement(b, s2);
    CassFuture *f = cass_session_execute_batch(a.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    char msg[256];
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "Batch with conditions cannot span multiple partitions");
    cass_future_free(f);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 0);
    cass_statement_free(s1);
    cass_statement_free(s2);
    cass_batch_free(b);
    conn_close(&a);
}

/* batch_request.cpp: a simple statement with values bound by name cannot go in a BATCH. */
TEST(batch_refuses_simple_statements_with_named_values)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (:k, :v)", 2);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "k", 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_string_by_name(st, "v", "a"), CASS_OK);
    /* executed alone it works */
    cass_result_free(EXEC(a.session, st));
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    cass_batch_add_statement(b, st);
    CassFuture *f = cass_session_execute_batch(a.session, b);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_BAD_PARAMS);
    char msg[256];
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "Batches cannot contain queries with named values");
    cass_future_free(f);
    cass_batch_free(b);
    cass_statement_free(st);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Futures                                                                   */
/* ------------------------------------------------------------------------ */

/* Embedded, a future is set when the call returns: ready, and the waits return at once. */
TEST(future_is_set_when_the_call_returns)
{
    REMOTE_SKIP("embedded requests run in the calling thread; remote ones on the connection");
    conn a;
    CONNECT(&a, "memory:");
    CassStatement *st = cass_statement_new("SELECT release_version FROM system.local", 0);
    CassFuture *f = cass_session_execute(a.session, st);
    ASSERT(cass_future_ready(f));
    ASSERT(cass_future_wait_timed(f, 0));
    ASSERT(cass_future_wait_timed(f, 1000));
    cass_future_wait(f);
    ASSERT_EQ(cass_future_error_code(f), CASS_OK);
    const char *m;
    size_t n;
    cass_future_error_message(f, &m, &n);
    ASSERT_EQ(n, 0);
    ASSERT(cass_future_get_error_result(f) == NULL);
    ASSERT(cass_future_get_prepared(f) == NULL); /* not a prepare future */
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&a);
}

static void count_callback(CassFuture *f, void *data)
{
    int *calls = data;
    (*calls)++;
    /* the future may be read from its callback */
    if (cass_future_error_code(f) == CASS_OK)
        calls[1]++;
}

/* future.cpp: a callback set on a set future runs at once, in this thread; a second callback is
   CASS_ERROR_LIB_CALLBACK_ALREADY_SET. (Embedded the futures are set when the calls return;
   remote, the waits set them.) */
TEST(future_callback_runs_at_once_and_only_one_may_be_set)
{
    conn a;
    CONNECT(&a, "memory:");
    CassStatement *st = cass_statement_new("SELECT * FROM system.local", 0);
    CassFuture *f = cass_session_execute(a.session, st);
    cass_future_wait(f);
    int calls[2] = {0, 0}, other[2] = {0, 0};
    ASSERT_EQ(cass_future_set_callback(f, count_callback, calls), CASS_OK);
    ASSERT_EQ(calls[0], 1);
    ASSERT_EQ(calls[1], 1);
    ASSERT_EQ(cass_future_set_callback(f, count_callback, other),
              CASS_ERROR_LIB_CALLBACK_ALREADY_SET);
    ASSERT_EQ(other[0], 0);
    ASSERT_EQ(calls[0], 1);
    cass_future_free(f);

    /* on a failed future too */
    f = cass_session_prepare(a.session, "SELEC 1");
    cass_future_wait(f);
    int fc[2] = {0, 0};
    ASSERT_EQ(cass_future_set_callback(f, count_callback, fc), CASS_OK);
    ASSERT_EQ(fc[0], 1);
    ASSERT_EQ(fc[1], 0);
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&a);
}

typedef struct chain {
    CassSession *session;
    int remaining, done;
} chain;

/* Each callback runs the next insert and sets its own callback on it (embedded in this thread
   at once, remote in the connection's). */
static void chain_next(CassFuture *f, void *data)
{
    chain *c = data;
    if (cass_future_error_code(f) != CASS_OK)
        return;
    __atomic_add_fetch(&c->done, 1, __ATOMIC_RELEASE);
    if (c->remaining == 0)
        return;
    char q[96];
    snprintf(q, sizeof q, "INSERT INTO ks.kv (k, v) VALUES (%d, 'chain')", c->remaining--);
    CassStatement *st = cass_statement_new(q, 0);
    CassFuture *next = cass_session_execute(c->session, st);
    cass_future_set_callback(next, chain_next, c);
    cass_future_free(next); /* the application keeps no reference */
    cass_statement_free(st);
}

/* A callback may issue the next request (the driver's asynchronous pattern). */
TEST(future_callback_may_issue_requests)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    chain c = {a.session, 50, 0};
    CassStatement *st = cass_statement_new("SELECT * FROM ks.kv", 0);
    CassFuture *f = cass_session_execute(a.session, st);
    ASSERT_EQ(cass_future_set_callback(f, chain_next, &c), CASS_OK);
    cass_future_free(f);
    cass_statement_free(st);
    /* embedded, the chain ran in the calls above; remote, it runs on: up to 10 s */
    for (int ms = 0; __atomic_load_n(&c.done, __ATOMIC_ACQUIRE) < 51 && ms < 10000; ms++)
        usleep(1000);
    ASSERT_EQ(__atomic_load_n(&c.done, __ATOMIC_ACQUIRE), 51);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 50);
    conn_close(&a);
}

/* future.cpp: cass_future_get_result gives a new reference at each call; both are usable and
   each is freed. The same for cass_future_get_prepared. */
TEST(future_get_result_twice_gives_two_usable_results)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    CassStatement *st = cass_statement_new("SELECT k, v FROM ks.kv", 0);
    CassFuture *f = cass_session_execute(a.session, st);
    const CassResult *r1 = cass_future_get_result(f);
    const CassResult *r2 = cass_future_get_result(f);
    ASSERT(r1 && r2);
    cass_result_free(r1);
    cass_future_free(f); /* r2 outlives the future */
    ASSERT_EQ(cass_result_row_count(r2), 1);
    ASSERT_EQ(get_int(cass_result_first_row(r2), 0), 1);
    cass_result_free(r2);
    cass_statement_free(st);

    f = cass_session_prepare(a.session, "SELECT v FROM ks.kv WHERE k = ?");
    const CassPrepared *p1 = cass_future_get_prepared(f);
    const CassPrepared *p2 = cass_future_get_prepared(f);
    ASSERT(p1 && p2);
    cass_future_free(f);
    cass_prepared_free(p1);
    CassStatement *b = cass_prepared_bind(p2);
    cass_statement_bind_int32(b, 0, 1);
    const CassResult *r = EXEC(a.session, b);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(b);
    cass_prepared_free(p2);
    conn_close(&a);
}

/* The error result of a server error: its code and, for ALREADY_EXISTS, the keyspace and the
   table ("" for a keyspace), as Cassandra's AlreadyExistsException carries them. */
TEST(future_error_result_carries_already_exists_details)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    char msg[256];
    CassStatement *st = cass_statement_new("CREATE TABLE ks.kv (k int PRIMARY KEY)", 0);
    CassFuture *f = cass_session_execute(a.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_ALREADY_EXISTS);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "Cannot add already existing table \"kv\" to keyspace \"ks\"");
    const CassErrorResult *e = cass_future_get_error_result(f);
    ASSERT(e);
    ASSERT_EQ(cass_error_result_code(e), CASS_ERROR_SERVER_ALREADY_EXISTS);
    const char *s;
    size_t n;
    ASSERT_EQ(cass_error_result_keyspace(e, &s, &n), CASS_OK);
    ASSERT(n == 2 && memcmp(s, "ks", 2) == 0);
    ASSERT_EQ(cass_error_result_table(e, &s, &n), CASS_OK);
    ASSERT(n == 2 && memcmp(s, "kv", 2) == 0);
    cass_error_result_free(e);
    cass_future_free(f);
    cass_statement_free(st);

    st = cass_statement_new(KS_CQL, 0);
    f = cass_session_execute(a.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_ALREADY_EXISTS);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Cannot add existing keyspace \"ks\"");
    e = cass_future_get_error_result(f);
    ASSERT_EQ(cass_error_result_keyspace(e, &s, &n), CASS_OK);
    ASSERT(n == 2 && memcmp(s, "ks", 2) == 0);
    ASSERT_EQ(cass_error_result_table(e, &s, &n), CASS_OK);
    ASSERT_EQ(n, 0);
    cass_error_result_free(e);
    cass_future_free(f);
    cass_statement_free(st);

    /* an invalid query's error result has its code; a library error has none */
    st = cass_statement_new("SELECT * FROM ks.nosuch", 0);
    f = cass_session_execute(a.session, st);
    e = cass_future_get_error_result(f);
    ASSERT(e);
    ASSERT_EQ(cass_error_result_code(e), CASS_ERROR_SERVER_INVALID_QUERY);
    cass_error_result_free(e);
    cass_future_free(f);
    cass_statement_free(st);
    CassSession *idle = cass_session_new();
    st = cass_statement_new("SELECT * FROM ks.kv", 0);
    f = cass_session_execute(idle, st);
    ASSERT(cass_future_get_error_result(f) == NULL);
    cass_future_free(f);
    cass_statement_free(st);
    cass_session_free(idle);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Error classes                                                             */
/* ------------------------------------------------------------------------ */

/* facts §8: each failure has the protocol's code (as the driver's CASS_ERROR_SERVER_*) and
   Cassandra's message. */
TEST(server_errors_have_cassandra_codes_and_messages)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    CassSession *s = a.session;
    ASSERT_RUN_ERR(s, "SELEC * FROM ks.kv", CASS_ERROR_SERVER_SYNTAX_ERROR,
                   "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)");
    ASSERT_RUN_ERR(s, "SELECT * FROM ks.nosuch", CASS_ERROR_SERVER_INVALID_QUERY,
                   "table nosuch does not exist");
    ASSERT_RUN_ERR(s, "SELECT * FROM nosuch.kv", CASS_ERROR_SERVER_INVALID_QUERY,
                   "keyspace nosuch does not exist");
    ASSERT_RUN_ERR(s, "SELECT nosuch FROM ks.kv", CASS_ERROR_SERVER_INVALID_QUERY,
                   "Undefined column name nosuch in table ks.kv");
    ASSERT_RUN_ERR(s, "INSERT INTO ks.kv (v) VALUES ('a')", CASS_ERROR_SERVER_INVALID_QUERY,
                   "Some partition key parts are missing: k");
    ASSERT_RUN_ERR(s, "INSERT INTO ks.kv (k, v) VALUES ('a', 'b')", CASS_ERROR_SERVER_INVALID_QUERY,
                   "Invalid STRING constant (a) for \"k\" of type int");
    ASSERT_RUN_ERR(s, "SELECT * FROM ks.kv WHERE v = 'a'", CASS_ERROR_SERVER_INVALID_QUERY,
                   "Cannot execute this query as it might involve data filtering and thus may have "
                   "unpredictable performance. If you want to execute this query despite the "
                   "performance unpredictability, use ALLOW FILTERING");
    ASSERT_RUN_ERR(s, "CREATE TABLE ks.kv (k int PRIMARY KEY)", CASS_ERROR_SERVER_ALREADY_EXISTS,
                   "Cannot add already existing table \"kv\" to keyspace \"ks\"");
    ASSERT_RUN_ERR(s, "INSERT INTO ks.kv (k, v) VALUES (1, 'a') IF NOT EXISTS USING TIMESTAMP 5",
                   CASS_ERROR_SERVER_INVALID_QUERY,
                   "Cannot provide custom timestamp for conditional updates");

    /* prepare fails the same way */
    CassFuture *f = cass_session_prepare(s, "SELECT * FROM ks.nosuch");
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT(cass_future_get_prepared(f) == NULL);
    cass_future_free(f);

    /* QueryProcessor.process: a simple statement's values must match its markers */
    CassStatement *st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (?, ?)", 1);
    cass_statement_bind_int32(st, 0, 1);
    f = cass_session_execute(s, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    char msg[256];
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Invalid amount of bind variables");
    cass_future_free(f);
    cass_statement_free(st);
    /* a bound value of the wrong size: the type's MarshalException text (facts §2.2) */
    st = cass_statement_new("INSERT INTO ks.kv (k, v) VALUES (?, 'a')", 1);
    cass_statement_bind_int64(st, 0, 1);
    f = cass_session_execute(s, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "Expected 4 or 0 byte int (8)");
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&a);
}

/* Library errors: a value of the wrong type, a marker that is not there, a name no marker has
   are refused by the bind call (statement.cpp, CASS_CHECK_INDEX_AND_BIND). */
TEST(library_errors_refuse_bad_arguments)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    const CassPrepared *p = PREPARE(a.session, "SELECT v FROM ks.kv WHERE k = ?");
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_string(st, 0, "x"), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, 0), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "v", 0), CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Schema metadata                                                           */
/* ------------------------------------------------------------------------ */

static const char *meta_name(void (*fn)(const void *, const char **, size_t *), const void *obj,
                             char *buf, size_t cap)
{
    const char *s;
    size_t n;
    fn(obj, &s, &n);
    snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

static void ks_name(const void *o, const char **s, size_t *n)
{
    cass_keyspace_meta_name(o, s, n);
}
static void tbl_name(const void *o, const char **s, size_t *n)
{
    cass_table_meta_name(o, s, n);
}
static void col_name(const void *o, const char **s, size_t *n)
{
    cass_column_meta_name(o, s, n);
}

/* The text value of a map<text,text> field under key. */
static int map_lookup(const CassValue *map, const char *key, char *out, size_t cap)
{
    CassIterator *it = cass_iterator_from_map(map);
    int found = 0;
    while (it && cass_iterator_next(it)) {
        char k[128];
        value_text(cass_iterator_get_map_key(it), k, sizeof k);
        if (strcmp(k, key) == 0) {
            value_text(cass_iterator_get_map_value(it), out, cap);
            found = 1;
        }
    }
    cass_iterator_free(it);
    return found;
}

/* The driver's metadata: keyspaces, tables and user types by name, columns partition key,
   clustering, then the others; kinds, types and clustering order; system_schema's columns as
   fields. */
TEST(schema_metadata_describes_keyspaces_tables_columns_and_types)
{
    conn a;
    CONNECT(&a, "memory:");
    CassSession *s = a.session;
    RUN(s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 3}");
    RUN(s, "CREATE TYPE ks.addr (street text, zip int)");
    RUN(s, "CREATE TABLE ks.t (a int, b text, c timestamp, d int, s int static, v frozen<addr>, "
           "l list<int>, PRIMARY KEY ((a, b), c, d)) WITH CLUSTERING ORDER BY (c ASC, d DESC)");
    RUN(s, "CREATE TABLE ks.other (k int PRIMARY KEY)");

    const CassSchemaMeta *m = cass_session_get_schema_meta(s);
    ASSERT(m);
    CassVersion ver = cass_schema_meta_version(m);
    ASSERT(ver.major_version >= 3);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    ASSERT(km);
    ASSERT(cass_schema_meta_keyspace_by_name(m, "nope") == NULL);
    ASSERT(cass_schema_meta_keyspace_by_name(m, "system_schema"));
    ASSERT(!cass_keyspace_meta_is_virtual(km));
    char buf[256];
    ASSERT_STR_EQ(meta_name(ks_name, km, buf, sizeof buf), "ks");
    const CassValue *repl = cass_keyspace_meta_field_by_name(km, "replication");
    ASSERT(repl);
    ASSERT_EQ(cass_value_type(repl), CASS_VALUE_TYPE_MAP);
    ASSERT(map_lookup(repl, "class", buf, sizeof buf));
    ASSERT_STR_EQ(buf, "org.apache.cassandra.locator.SimpleStrategy");
    ASSERT(map_lookup(repl, "replication_factor", buf, sizeof buf));
    ASSERT_STR_EQ(buf, "3");
    cass_bool_t durable = cass_false;
    ASSERT_EQ(cass_value_get_bool(cass_keyspace_meta_field_by_name(km, "durable_writes"), &durable),
              CASS_OK);
    ASSERT(durable);

    /* tables by name; iterators */
    const CassTableMeta *tm = cass_keyspace_meta_table_by_name(km, "t");
    ASSERT(tm);
    ASSERT(cass_keyspace_meta_table_by_name(km, "T") == NULL);
    ASSERT_STR_EQ(meta_name(tbl_name, tm, buf, sizeof buf), "t");
    CassIterator *it = cass_iterator_tables_from_keyspace_meta(km);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_TABLE_META);
    ASSERT(cass_iterator_next(it));
    ASSERT_STR_EQ(meta_name(tbl_name, cass_iterator_get_table_meta(it), buf, sizeof buf), "other");
    ASSERT(cass_iterator_next(it));
    ASSERT_STR_EQ(meta_name(tbl_name, cass_iterator_get_table_meta(it), buf, sizeof buf), "t");
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);

    /* keys, columns, kinds, orders */
    ASSERT_EQ(cass_table_meta_partition_key_count(tm), 2);
    ASSERT_STR_EQ(meta_name(col_name, cass_table_meta_partition_key(tm, 0), buf, sizeof buf), "a");
    ASSERT_STR_EQ(meta_name(col_name, cass_table_meta_partition_key(tm, 1), buf, sizeof buf), "b");
    ASSERT_EQ(cass_table_meta_clustering_key_count(tm), 2);
    ASSERT_STR_EQ(meta_name(col_name, cass_table_meta_clustering_key(tm, 1), buf, sizeof buf), "d");
    ASSERT_EQ(cass_table_meta_clustering_key_order(tm, 0), CASS_CLUSTERING_ORDER_ASC);
    ASSERT_EQ(cass_table_meta_clustering_key_order(tm, 1), CASS_CLUSTERING_ORDER_DESC);
    ASSERT_EQ(cass_table_meta_column_count(tm), 7);
    const char *order[] = {"a", "b", "c", "d", "l", "s", "v"};
    const CassColumnType kinds[] = {
        CASS_COLUMN_TYPE_PARTITION_KEY,  CASS_COLUMN_TYPE_PARTITION_KEY,
        CASS_COLUMN_TYPE_CLUSTERING_KEY, CASS_COLUMN_TYPE_CLUSTERING_KEY,
        CASS_COLUMN_TYPE_REGULAR,        CASS_COLUMN_TYPE_STATIC,
        CASS_COLUMN_TYPE_REGULAR};
    it = cass_iterator_columns_from_table_meta(tm);
    for (size_t i = 0; i < 7; i++) {
        ASSERT(cass_iterator_next(it));
        const CassColumnMeta *cm = cass_iterator_get_column_meta(it);
        ASSERT(cm == cass_table_meta_column(tm, i));
        ASSERT_STR_EQ(meta_name(col_name, cm, buf, sizeof buf), order[i]);
        ASSERT_EQ(cass_column_meta_type(cm), kinds[i]);
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    const CassColumnMeta *cm = cass_table_meta_column_by_name(tm, "c");
    ASSERT_EQ(cass_data_type_type(cass_column_meta_data_type(cm)), CASS_VALUE_TYPE_TIMESTAMP);
    ASSERT_STR_EQ(value_text(cass_column_meta_field_by_name(cm, "kind"), buf, sizeof buf),
                  "clustering");
    cm = cass_table_meta_column_by_name(tm, "d");
    ASSERT_STR_EQ(
        value_text(cass_column_meta_field_by_name(cm, "clustering_order"), buf, sizeof buf),
        "desc");
    cm = cass_table_meta_column_by_name(tm, "l");
    const CassDataType *lt = cass_column_meta_data_type(cm);
    ASSERT_EQ(cass_data_type_type(lt), CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(lt, 0)), CASS_VALUE_TYPE_INT);
    cm = cass_table_meta_column_by_name(tm, "v");
    ASSERT_EQ(cass_data_type_type(cass_column_meta_data_type(cm)), CASS_VALUE_TYPE_UDT);
    ASSERT(cass_data_type_is_frozen(cass_column_meta_data_type(cm)));
    ASSERT_STR_EQ(value_text(cass_column_meta_field_by_name(cm, "type"), buf, sizeof buf),
                  "frozen<addr>");
    ASSERT(cass_table_meta_column_by_name(tm, "nosuch") == NULL);
    /* the _n lookups read only the given length */
    ASSERT(cass_schema_meta_keyspace_by_name_n(m, "ksXX", 2) == km);
    ASSERT(cass_keyspace_meta_table_by_name_n(km, "tXX", 1) == tm);
    ASSERT(cass_table_meta_column_by_name_n(tm, "dXX", 1) == cass_table_meta_column(tm, 3));
    ASSERT(cass_keyspace_meta_field_by_name_n(km, "replicationXX", 11) == repl);
    ASSERT(cass_keyspace_meta_user_type_by_name_n(km, "addrXX", 4));
    /* a column's fields: its system_schema.columns row */
    it = cass_iterator_fields_from_column_meta(cass_table_meta_column(tm, 0));
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_META_FIELD);
    int kinds_seen = 0;
    while (cass_iterator_next(it)) {
        const char *fname;
        size_t fn;
        ASSERT_EQ(cass_iterator_get_meta_field_name(it, &fname, &fn), CASS_OK);
        if (fn == 4 && memcmp(fname, "kind", 4) == 0) {
            ASSERT_STR_EQ(value_text(cass_iterator_get_meta_field_value(it), buf, sizeof buf),
                          "partition_key");
            kinds_seen++;
        }
    }
    ASSERT_EQ(kinds_seen, 1);
    cass_iterator_free(it);

    /* fields of a table and of a column, by iterator */
    it = cass_iterator_fields_from_table_meta(tm);
    int saw_table_name = 0;
    while (cass_iterator_next(it)) {
        const char *fname;
        size_t fn;
        ASSERT_EQ(cass_iterator_get_meta_field_name(it, &fname, &fn), CASS_OK);
        if (fn == 10 && memcmp(fname, "table_name", 10) == 0) {
            ASSERT_STR_EQ(value_text(cass_iterator_get_meta_field_value(it), buf, sizeof buf), "t");
            saw_table_name = 1;
        }
    }
    ASSERT(saw_table_name);
    cass_iterator_free(it);
    cass_int32_t ttl = -1;
    ASSERT_EQ(cass_value_get_int32(cass_table_meta_field_by_name(tm, "default_time_to_live"), &ttl),
              CASS_OK);
    ASSERT_EQ(ttl, 0);
    it = cass_iterator_fields_from_keyspace_meta(km);
    int fields = 0;
    while (cass_iterator_next(it))
        fields++;
    ASSERT(fields >= 3); /* keyspace_name, durable_writes, replication */
    cass_iterator_free(it);

    /* user types */
    const CassDataType *addr = cass_keyspace_meta_user_type_by_name(km, "addr");
    ASSERT(addr);
    ASSERT_EQ(cass_data_type_type(addr), CASS_VALUE_TYPE_UDT);
    ASSERT_EQ(cass_data_type_sub_type_count(addr), 2);
    const char *fname;
    size_t fn;
    ASSERT_EQ(cass_data_type_sub_type_name(addr, 1, &fname, &fn), CASS_OK);
    ASSERT(fn == 3 && memcmp(fname, "zip", 3) == 0);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type_by_name(addr, "street")),
              CASS_VALUE_TYPE_VARCHAR);
    it = cass_iterator_user_types_from_keyspace_meta(km);
    ASSERT(cass_iterator_next(it));
    ASSERT(cass_iterator_get_user_type(it) == addr);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    /* a user type from the metadata builds values to bind */
    CassUserType *u = cass_user_type_new_from_data_type(addr);
    ASSERT(u);
    ASSERT_EQ(cass_user_type_set_string_by_name(u, "street", "Main"), CASS_OK);
    ASSERT_EQ(cass_user_type_set_int32_by_name(u, "zip", 12345), CASS_OK);
    CassStatement *st = cass_statement_new(
        "INSERT INTO ks.t (a, b, c, d, v) VALUES (1, 'x', '2020-01-01', 1, ?)", 1);
    ASSERT_EQ(cass_statement_bind_user_type(st, 0, u), CASS_OK);
    cass_result_free(EXEC(s, st));
    cass_statement_free(st);
    cass_user_type_free(u);

    /* the keyspace iterator lists ks among the system keyspaces, by name */
    it = cass_iterator_keyspaces_from_schema_meta(m);
    int saw = 0;
    char prev[256] = "";
    while (cass_iterator_next(it)) {
        meta_name(ks_name, cass_iterator_get_keyspace_meta(it), buf, sizeof buf);
        ASSERT(strcmp(prev, buf) < 0);
        snprintf(prev, sizeof prev, "%s", buf);
        saw += strcmp(buf, "ks") == 0;
    }
    ASSERT_EQ(saw, 1);
    cass_iterator_free(it);
    cass_schema_meta_free(m);
    conn_close(&a);
}

TEST(schema_metadata_follows_user_types_nested_a_thousand_deep)
{
    /* t1 (a int), t2 (a frozen<t1>), ... t1000: by name, t10 comes before the t9 it uses, so a
       definition often waits for another, long chains of them */
    capture_logs();
    conn a;
    CONNECT(&a, "memory:");
    CassSession *s = a.session;
    RUN(s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    RUN(s, "CREATE TYPE ks.t1 (a int)");
    for (int i = 2; i <= 1000; i++) {
        char q[96];
        snprintf(q, sizeof q, "CREATE TYPE ks.t%d (a frozen<t%d>)", i, i - 1);
        RUN(s, q);
    }
    RUN(s, "CREATE TABLE ks.t (k int PRIMARY KEY, v frozen<t1000>)");
    const CassSchemaMeta *m = cass_session_get_schema_meta(s);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    const CassTableMeta *tm = cass_keyspace_meta_table_by_name(km, "t");
    const CassDataType *dt = cass_column_meta_data_type(cass_table_meta_column_by_name(tm, "v"));
    int levels = 0;
    for (; dt && cass_data_type_type(dt) == CASS_VALUE_TYPE_UDT; levels++)
        dt = cass_data_type_sub_data_type(dt, 0);
    ASSERT_EQ(levels, 1000);
    ASSERT(dt && cass_data_type_type(dt) == CASS_VALUE_TYPE_INT);
    ASSERT_EQ(errors_logged, 0);
    cass_schema_meta_free(m);
    conn_close(&a);
}

/* A snapshot does not change; a new one after DDL shows the change and another version. */
TEST(schema_snapshot_version_changes_after_ddl)
{
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    const CassSchemaMeta *m1 = cass_session_get_schema_meta(a.session);
    const CassSchemaMeta *m1b = cass_session_get_schema_meta(a.session);
    ASSERT_EQ(cass_schema_meta_snapshot_version(m1), cass_schema_meta_snapshot_version(m1b));
    cass_schema_meta_free(m1b);
    RUN(a.session, "ALTER TABLE ks.kv ADD w int");
    RUN(a.session, "CREATE TABLE ks.more (k int PRIMARY KEY)");
    const CassSchemaMeta *m2 = cass_session_get_schema_meta(a.session);
    ASSERT_NE(cass_schema_meta_snapshot_version(m1), cass_schema_meta_snapshot_version(m2));
    const CassTableMeta *t1 =
        cass_keyspace_meta_table_by_name(cass_schema_meta_keyspace_by_name(m1, "ks"), "kv");
    const CassTableMeta *t2 =
        cass_keyspace_meta_table_by_name(cass_schema_meta_keyspace_by_name(m2, "ks"), "kv");
    ASSERT_EQ(cass_table_meta_column_count(t1), 2);
    ASSERT_EQ(cass_table_meta_column_count(t2), 3);
    ASSERT(cass_keyspace_meta_table_by_name(cass_schema_meta_keyspace_by_name(m1, "ks"), "more") ==
           NULL);
    ASSERT(cass_keyspace_meta_table_by_name(cass_schema_meta_keyspace_by_name(m2, "ks"), "more"));
    cass_schema_meta_free(m1);
    cass_schema_meta_free(m2);
    conn_close(&a);
}

/* cass_cluster_set_use_schema(false): the driver keeps no schema metadata. */
TEST(schema_metadata_is_empty_without_use_schema)
{
    CassCluster *c = cluster_on("memory:");
    cass_cluster_set_use_schema(c, cass_false);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    make_kv(s);
    const CassSchemaMeta *m = cass_session_get_schema_meta(s);
    ASSERT(m);
    ASSERT(cass_schema_meta_keyspace_by_name(m, "ks") == NULL);
    CassIterator *it = cass_iterator_keyspaces_from_schema_meta(m);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    cass_schema_meta_free(m);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* ------------------------------------------------------------------------ */
/* cassette.h: clock, reset, snapshot, version                               */
/* ------------------------------------------------------------------------ */

/* The virtual clock moves TTL expiry: a USING TTL row disappears without sleeping. */
TEST(virtual_clock_expires_ttl_rows_without_sleeping)
{
    REMOTE_SKIP("the virtual clock is the embedded database's");
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    int64_t t0 = INT64_C(1700000000000000);
    ASSERT_EQ(cassette_session_clock_set(a.session, t0), 0);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a') USING TTL 60");
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (2, 'b')");
    ASSERT_EQ(scalar_bigint(a.session, "SELECT writetime(v) FROM ks.kv WHERE k = 1"), t0);
    const CassResult *r = QUERY(a.session, "SELECT ttl(v) FROM ks.kv WHERE k = 1");
    ASSERT_EQ(get_int(cass_result_first_row(r), 0), 60);
    cass_result_free(r);
    ASSERT_EQ(cassette_session_clock_advance(a.session, INT64_C(59) * 1000000), 0);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 2);
    r = QUERY(a.session, "SELECT ttl(v) FROM ks.kv WHERE k = 1");
    ASSERT_EQ(get_int(cass_result_first_row(r), 0), 1);
    cass_result_free(r);
    ASSERT_EQ(cassette_session_clock_advance(a.session, INT64_C(1) * 1000000), 0);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 1);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv WHERE k = 1"), 0);
    conn_close(&a);
}

/* clock_real returns to the wall clock; advance on real time starts virtual time ahead. */
TEST(clock_real_returns_to_wall_clock)
{
    REMOTE_SKIP("the virtual clock is the embedded database's");
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    ASSERT_EQ(cassette_session_clock_set(a.session, INT64_C(1000000000000000)), 0);
    ASSERT_EQ(cassette_session_clock_real(a.session), 0);
    int64_t before = wall_us();
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    int64_t t = scalar_bigint(a.session, "SELECT writetime(v) FROM ks.kv WHERE k = 1");
    ASSERT(t >= before - 1000 && t <= wall_us() + 1000);

    /* an hour ahead of the wall clock */
    ASSERT_EQ(cassette_session_clock_advance(a.session, INT64_C(3600) * 1000000), 0);
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (2, 'b')");
    t = scalar_bigint(a.session, "SELECT writetime(v) FROM ks.kv WHERE k = 2");
    ASSERT(t >= before + INT64_C(3600) * 1000000);
    ASSERT_EQ(cassette_session_clock_real(a.session), 0);
    conn_close(&a);
}

/* Reset empties every table of every keyspace; keyspaces, tables and types stay. */
TEST(reset_empties_every_table_and_keeps_schema)
{
    REMOTE_SKIP("cassette_session_reset is the embedded database's");
    conn a;
    CONNECT(&a, "memory:");
    make_kv(a.session);
    RUN(a.session, "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', "
                   "'replication_factor': 1}");
    RUN(a.session, "CREATE TABLE ks2.t (k int, c int, PRIMARY KEY (k, c))");
    RUN(a.session, "CREATE TABLE ks2.n (k int PRIMARY KEY, n counter)");
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (1, 'a')");
    RUN(a.session, "INSERT INTO ks2.t (k, c) VALUES (1, 1)");
    RUN(a.session, "UPDATE ks2.n SET n = n + 1 WHERE k = 1");
    const CassSchemaMeta *before = cass_session_get_schema_meta(a.session);
    ASSERT_EQ(cassette_session_reset(a.session), 0);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 0);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks2.t"), 0);
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks2.n"), 0);
    const CassSchemaMeta *after = cass_session_get_schema_meta(a.session);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(after, "ks2");
    ASSERT(km);
    ASSERT(cass_keyspace_meta_table_by_name(km, "t"));
    ASSERT(cass_keyspace_meta_table_by_name(km, "n"));
    ASSERT(cass_schema_meta_keyspace_by_name(before, "ks2"));
    cass_schema_meta_free(before);
    cass_schema_meta_free(after);
    /* the tables work as before */
    RUN(a.session, "INSERT INTO ks.kv (k, v) VALUES (2, 'b')");
    RUN(a.session, "UPDATE ks2.n SET n = n + 5 WHERE k = 1");
    ASSERT_EQ(row_count(a.session, "SELECT * FROM ks.kv"), 1);
    ASSERT_EQ(scalar_bigint(a.session, "SELECT n FROM ks2.n WHERE k = 1"), 5);
    conn_close(&a);
}

typedef struct writer_job {
    CassSession *session;
    _Atomic int stop;
    _Atomic int written; /* read by the test thread while the writer counts */
    int failures;
} writer_job;

/* Each batch writes row i into both tables: a consistent copy has the same rows in both. */
static void *pair_writer(void *arg)
{
    writer_job *j = arg;
    for (int i = 0; !j->stop && i < 100000; i++) {
        char q1[128], q2[128];
        snprintf(q1, sizeof q1, "INSERT INTO ks.a (k, v) VALUES (%d, 'x')", i);
        snprintf(q2, sizeof q2, "INSERT INTO ks.b (k, v) VALUES (%d, 'x')", i);
        CassStatement *s1 = cass_statement_new(q1, 0), *s2 = cass_statement_new(q2, 0);
        CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
        cass_batch_add_statement(b, s1);
        cass_batch_add_statement(b, s2);
        CassFuture *f = cass_session_execute_batch(j->session, b);
        if (cass_future_error_code(f) != CASS_OK)
            j->failures++;
        cass_future_free(f);
        cass_batch_free(b);
        cass_statement_free(s1);
        cass_statement_free(s2);
        j->written = i + 1;
    }
    return NULL;
}

/* A snapshot taken while another thread writes opens with file:DIR and holds a consistent
   state: every batch is either wholly in it or not at all. */
TEST(snapshot_during_writes_is_consistent)
{
    REMOTE_SKIP("cassette_session_snapshot is the embedded database's");
    conn a;
    CONNECT(&a, "memory:");
    RUN(a.session, KS_CQL);
    RUN(a.session, "CREATE TABLE ks.a (k int PRIMARY KEY, v text)");
    RUN(a.session, "CREATE TABLE ks.b (k int PRIMARY KEY, v text)");
    writer_job j = {a.session, 0, 0, 0};
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, pair_writer, &j), 0);
    while (j.written < 200)
        usleep(1000);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/snap", test_tmpdir());
    int rc = cassette_session_snapshot(a.session, dir);
    j.stop = 1;
    pthread_join(th, NULL);
    ASSERT_EQ(rc, 0);
    ASSERT_EQ(j.failures, 0);
    /* a second snapshot into the same directory is refused, and logged */
    capture_logs();
    ASSERT_NE(cassette_session_snapshot(a.session, dir), 0);
    ASSERT_EQ(errors_logged, 1);

    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    conn b;
    CONNECT(&b, uri);
    int64_t na = scalar_bigint(b.session, "SELECT count(*) FROM ks.a");
    int64_t nb = scalar_bigint(b.session, "SELECT count(*) FROM ks.b");
    ASSERT_EQ(na, nb);
    ASSERT(na >= 200 && na <= j.written);
    /* the same rows: 0 .. na-1 in both */
    ASSERT_EQ(scalar_bigint(b.session, "SELECT count(*) FROM ks.a WHERE k >= 0 AND k < 1000000 "
                                       "ALLOW FILTERING"),
              na);
    char q[128];
    snprintf(q, sizeof q, "SELECT k FROM ks.b WHERE k = %d", (int)na - 1);
    ASSERT_EQ(row_count(b.session, q), 1);
    snprintf(q, sizeof q, "SELECT k FROM ks.a WHERE k = %d", (int)na - 1);
    ASSERT_EQ(row_count(b.session, q), 1);
    /* the copy is its own database: writes to it leave the original alone */
    RUN(b.session, "TRUNCATE ks.a");
    conn_close(&b);
    ASSERT(scalar_bigint(a.session, "SELECT count(*) FROM ks.a") >= na);
    conn_close(&a);
}

TEST(cassette_version_matches_header_macros)
{
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", CASSETTE_VERSION_MAJOR, CASSETTE_VERSION_MINOR,
             CASSETTE_VERSION_PATCH);
    ASSERT_STR_EQ(cassette_version(), want);
}
