/*
 * The remote backend: a session whose contact point is a host runs its
 * statements on a `cassette serve` the test starts (the shell named by
 * CASSETTE, else build/release/cassette; a free port). Through the public
 * API only, as an application would: protocol versions, prepared
 * statements, paging, batches, conditional writes, server errors with their
 * codes and messages, warnings, PasswordAuthenticator, and a server that
 * goes away.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver_test.h"

#include "serve_test.h"

static const char *text_of(const CassRow *row, size_t col, char *buf, size_t cap)
{
    const char *p;
    size_t n;
    if (cass_value_get_string(cass_row_get_column(row, col), &p, &n) != CASS_OK)
        return NULL;
    snprintf(buf, cap, "%.*s", (int)n, p);
    return buf;
}

TEST(every_protocol_version_runs_statements_prepared_and_simple)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    for (int version = 3; version <= 5; version++) {
        conn cn;
        conn_open_cluster(__FILE__, __LINE__, &cn, remote_cluster(&srv, version));
        char ks[64], q[256];
        snprintf(ks, sizeof ks, "ks%d", version);
        snprintf(q, sizeof q,
                 "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', "
                 "'replication_factor': 1}",
                 ks);
        RUN(cn.session, q);
        snprintf(q, sizeof q, "CREATE TABLE %s.msgs (room text, id int, body text, "
                              "tags set<text>, PRIMARY KEY (room, id))", ks);
        RUN(cn.session, q);
        snprintf(q, sizeof q, "INSERT INTO %s.msgs (room, id, body, tags) VALUES (?, ?, ?, ?)", ks);
        CassFuture *pf = cass_session_prepare(cn.session, q);
        ASSERT_FUTURE_OK(pf);
        const CassPrepared *ins = cass_future_get_prepared(pf);
        cass_future_free(pf);
        for (int i = 0; i < 250; i++) {
            CassStatement *st = cass_prepared_bind(ins);
            char body[32];
            snprintf(body, sizeof body, "m%d", i);
            cass_statement_bind_string(st, 0, "r");
            cass_statement_bind_int32(st, 1, i);
            cass_statement_bind_string(st, 2, body);
            CassCollection *tags = cass_collection_new(CASS_COLLECTION_TYPE_SET, 1);
            cass_collection_append_string(tags, "t");
            cass_statement_bind_collection(st, 3, tags);
            cass_collection_free(tags);
            const CassResult *r = EXEC(cn.session, st);
            cass_result_free(r);
            cass_statement_free(st);
        }
        cass_prepared_free(ins);
        /* paging through 250 rows, 100 at a time */
        snprintf(q, sizeof q, "SELECT id, body FROM %s.msgs WHERE room = 'r'", ks);
        CassStatement *st = cass_statement_new(q, 0);
        cass_statement_set_paging_size(st, 100);
        int rows = 0, pages = 0;
        for (;;) {
            const CassResult *r = EXEC(cn.session, st);
            CassIterator *it = cass_iterator_from_result(r);
            while (cass_iterator_next(it)) {
                cass_int32_t id;
                ASSERT_EQ(cass_value_get_int32(cass_row_get_column(cass_iterator_get_row(it), 0),
                                               &id),
                          CASS_OK);
                ASSERT_EQ(id, rows);
                rows++;
            }
            cass_iterator_free(it);
            pages++;
            cass_bool_t more = cass_result_has_more_pages(r);
            if (more)
                cass_statement_set_paging_state(st, r);
            cass_result_free(r);
            if (!more)
                break;
        }
        cass_statement_free(st);
        ASSERT_EQ(rows, 250);
        ASSERT_EQ(pages, 3);
        conn_close(&cn);
    }
    server_stop(&srv);
}

TEST(errors_batches_and_conditional_writes_come_back_as_the_driver_reports_them)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, remote_cluster(&srv, 4));
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    CassStatement *st = cass_statement_new("SELECT * FROM ks.nope", 0);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    char msg[256];
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "table nope does not exist");
    cass_future_free(f);
    cass_statement_free(st);
    /* a syntax error keeps Cassandra's text */
    st = cass_statement_new("SELEC 1", 0);
    f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_SYNTAX_ERROR);
    cass_future_free(f);
    cass_statement_free(st);
    /* a batch of simple statements */
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *s1 = cass_statement_new("INSERT INTO ks.t (k, v) VALUES (1, 'one')", 0);
    CassStatement *s2 = cass_statement_new("INSERT INTO ks.t (k, v) VALUES (?, ?)", 2);
    cass_statement_bind_int32(s2, 0, 2);
    cass_statement_bind_string(s2, 1, "two");
    cass_batch_add_statement(b, s1);
    cass_batch_add_statement(b, s2);
    f = cass_session_execute_batch(cn.session, b);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_batch_free(b);
    cass_statement_free(s1);
    cass_statement_free(s2);
    const CassResult *r = QUERY(cn.session, "SELECT count(*) FROM ks.t");
    cass_int64_t n = 0;
    cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &n);
    ASSERT_EQ(n, 2);
    cass_result_free(r);
    /* a conditional write that does not apply shows the row it found */
    r = QUERY(cn.session, "INSERT INTO ks.t (k, v) VALUES (1, 'uno') IF NOT EXISTS");
    const CassRow *row = cass_result_first_row(r);
    cass_bool_t applied = cass_true;
    cass_value_get_bool(cass_row_get_column(row, 0), &applied);
    ASSERT(!applied);
    char buf[32];
    ASSERT_STR_EQ(text_of(row, 2, buf, sizeof buf), "one");
    cass_result_free(r);
    conn_close(&cn);
    /* a session connected to a keyspace names its tables unqualified */
    CassCluster *c = remote_cluster(&srv, 4);
    CassSession *s = cass_session_new();
    CassFuture *cf = cass_session_connect_keyspace(s, c, "ks");
    ASSERT_FUTURE_OK(cf);
    cass_future_free(cf);
    r = QUERY(s, "SELECT v FROM t WHERE k = 2");
    ASSERT_STR_EQ(text_of(cass_result_first_row(r), 0, buf, sizeof buf), "two");
    cass_result_free(r);
    cf = cass_session_close(s);
    cass_future_wait(cf);
    cass_future_free(cf);
    cass_session_free(s);
    cass_cluster_free(c);
    server_stop(&srv);
}

TEST(password_authenticator_takes_the_clusters_credentials)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, "--auth");
    CassCluster *c = remote_cluster(&srv, 0);
    cass_cluster_set_credentials(c, "cassandra", "cassandra");
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    const CassResult *r = QUERY(cn.session, "SELECT role FROM system_auth.roles");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    conn_close(&cn);

    c = remote_cluster(&srv, 0);
    cass_cluster_set_credentials(c, "cassandra", "wrong");
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_BAD_CREDENTIALS);
    char msg[256];
    ASSERT(strstr(future_message(f, msg, sizeof msg),
                  "Provided username cassandra and/or password are incorrect"));
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);

    c = remote_cluster(&srv, 0); /* no credentials at all */
    s = cass_session_new();
    f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_BAD_CREDENTIALS);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
    server_stop(&srv);
}

TEST(a_server_that_goes_away_fails_requests_and_nothing_hangs)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, remote_cluster(&srv, 4));
    RUN(cn.session, KS_CQL);
    server_stop(&srv);
    CassStatement *st = cass_statement_new("SELECT * FROM system.local", 0);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
    /* and a host that does not answer at all */
    CassCluster *c = remote_cluster(&srv, 4);
    CassSession *s = cass_session_new();
    f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

TEST(a_session_reconnects_to_a_restarted_server_with_its_keyspace_and_statements)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    char dir[] = "/tmp/cassette-remote-XXXXXX";
    ASSERT(mkdtemp(dir));
    char db[64];
    snprintf(db, sizeof db, "%s/db", dir);
    server srv;
    server_start_on(&srv, db, 0, NULL);
    int port = srv.port;
    conn cn;
    CassCluster *cluster = remote_cluster(&srv, 4);
    cass_cluster_set_constant_reconnect(cluster, 100);
    conn_open_cluster(__FILE__, __LINE__, &cn, cluster);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "USE ks");
    RUN(cn.session, "CREATE TABLE t (k int PRIMARY KEY, v int)");
    CassFuture *pf = cass_session_prepare(cn.session, "INSERT INTO t (k, v) VALUES (?, ?)");
    ASSERT_FUTURE_OK(pf);
    const CassPrepared *ins = cass_future_get_prepared(pf);
    cass_future_free(pf);
    server_stop(&srv);
    /* down: requests fail at once */
    CassStatement *st = cass_prepared_bind(ins);
    cass_statement_bind_int32(st, 0, 1);
    cass_statement_bind_int32(st, 1, 1);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    cass_future_free(f);
    /* back on the same port (a new process: it has forgotten the prepared statement); the
       session reconnects after the reconnection policy's delay (100 ms here) */
    server_start_on(&srv, db, port, NULL);
    for (int i = 0;; i++) {
        f = cass_session_execute(cn.session, st);
        if (cass_future_error_code(f) == CASS_OK || i == 100)
            break;
        cass_future_free(f);
        usleep(50 * 1000);
    }
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_statement_free(st);
    const CassResult *r = QUERY(cn.session, "SELECT v FROM t WHERE k = 1"); /* keyspace kept */
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_prepared_free(ins);
    conn_close(&cn);
    server_stop(&srv);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ASSERT_EQ(system(cmd), 0);
}

/* Two servers on one database directory (several processes on one directory is safe): when
   the one the session uses goes away, the next request goes to the other contact point. */
TEST(a_session_fails_over_to_the_next_contact_point)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    char dir[] = "/tmp/cassette-remote-XXXXXX";
    ASSERT(mkdtemp(dir));
    char db[64];
    snprintf(db, sizeof db, "%s/db", dir);
    server a, b;
    server_start_on(&a, db, 0, NULL);
    server_start_on(&b, db, 0, NULL);
    char uri[128];
    snprintf(uri, sizeof uri, "cql://127.0.0.1:%d,127.0.0.1:%d", a.port, b.port);
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, uri), CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY)");
    RUN(cn.session, "INSERT INTO ks.t (k) VALUES (1)");
    server_stop(&a);
    /* the request that finds the connection down may fail; the one after goes to b */
    CassStatement *st = cass_statement_new("SELECT k FROM ks.t", 0);
    CassFuture *f = cass_session_execute(cn.session, st);
    cass_future_wait(f);
    cass_future_free(f);
    const CassResult *r = EXEC(cn.session, st);
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(st);
    conn_close(&cn);
    server_stop(&b);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ASSERT_EQ(system(cmd), 0);
}

/* CASSETTE_URI names the hosts, the keyspace and the levels: the program is unchanged. */
TEST(cassette_uri_points_an_unchanged_program_at_a_server)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    conn setup;
    conn_open_cluster(__FILE__, __LINE__, &setup, remote_cluster(&srv, 4));
    RUN(setup.session, KS_CQL);
    RUN(setup.session, "CREATE TABLE ks.t (k int PRIMARY KEY)");
    RUN(setup.session, "INSERT INTO ks.t (k) VALUES (7)");
    conn_close(&setup);
    char uri[128];
    snprintf(uri, sizeof uri, "cql://127.0.0.1:%d/ks?consistency=local_quorum", srv.port);
    setenv("CASSETTE_URI", uri, 1);
    conn cn; /* the program's own contact point is ignored */
    conn_open_cluster(__FILE__, __LINE__, &cn, memory_cluster());
    const CassResult *r = QUERY(cn.session, "SELECT k FROM t");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    conn_close(&cn);
    snprintf(uri, sizeof uri, "cql://127.0.0.1:%d/ks?consistency=MOST", srv.port);
    setenv("CASSETTE_URI", uri, 1);
    CassCluster *c = memory_cluster();
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_BAD_PARAMS);
    char msg[256];
    ASSERT(strstr(future_message(f, msg, sizeof msg), "Invalid consistency 'MOST'"));
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
    unsetenv("CASSETTE_URI");
    server_stop(&srv);
}

/* A PEM file's text (static buffer). */
static const char *read_file(const char *path)
{
    static char buf[16384];
    FILE *f = fopen(path, "r");
    ASSERT(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* TLS through CassSsl: a CA, a server certificate for 127.0.0.1 (made with the openssl
   command); the server's certificate verified, its identity too; an untrusted one refused. */
TEST(tls_through_cassssl_verifies_the_server)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    char dir[] = "/tmp/cassette-tls-XXXXXX";
    ASSERT(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "(cd %s && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=ca "
             "-keyout ca.key -out ca.pem && "
             "openssl req -newkey rsa:2048 -nodes -subj /CN=server -keyout server.key "
             "-out server.csr && printf 'subjectAltName=IP:127.0.0.1\\n' > ext && "
             "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
             "-out server.pem -extfile ext) >/dev/null 2>&1",
             dir);
    if (system(cmd) != 0) {
        printf("skip - no openssl command to make certificates\n");
        return;
    }
    char cert[128], key[128], ca[128];
    snprintf(cert, sizeof cert, "%s/server.pem", dir);
    snprintf(key, sizeof key, "%s/server.key", dir);
    snprintf(ca, sizeof ca, "%s/ca.pem", dir);
    const char *args[4] = {"--tls-cert", cert, "--tls-key", key};
    server srv;
    server_start_argv(&srv, NULL, 0, args, 4);
    for (int version = 4; version <= 5; version++) {
        CassCluster *c = remote_cluster(&srv, version);
        CassSsl *ssl = cass_ssl_new();
        ASSERT_EQ(cass_ssl_add_trusted_cert(ssl, read_file(ca)), CASS_OK);
        cass_ssl_set_verify_flags(ssl, CASS_SSL_VERIFY_PEER_CERT | CASS_SSL_VERIFY_PEER_IDENTITY);
        cass_cluster_set_ssl(c, ssl);
        cass_ssl_free(ssl);
        conn cn;
        conn_open_cluster(__FILE__, __LINE__, &cn, c);
        const CassResult *r = QUERY(cn.session, "SELECT release_version FROM system.local");
        ASSERT_EQ(cass_result_row_count(r), 1);
        cass_result_free(r);
        conn_close(&cn);
    }
    /* a CA that did not sign the server's certificate */
    CassCluster *c = remote_cluster(&srv, 4);
    CassSsl *ssl = cass_ssl_new();
    ASSERT_EQ(cass_ssl_add_trusted_cert(ssl, read_file(cert)), CASS_OK);
    cass_cluster_set_ssl(c, ssl);
    cass_ssl_free(ssl);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, c);
    ASSERT(cass_future_error_code(f) != CASS_OK);
    char msg[512];
    ASSERT(strstr(future_message(f, msg, sizeof msg), "certificate"));
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
    server_stop(&srv);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ASSERT_EQ(system(cmd), 0);
}


/* A request timeout is the request's own: the statement's, else its profile's, else the
   cluster's. A server stopped with SIGSTOP never answers. */
TEST(a_request_times_out_with_the_timeout_it_resolves_to)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    CassCluster *c = remote_cluster(&srv, 4);
    cass_cluster_set_request_timeout(c, 60000);
    CassExecProfile *quick = cass_execution_profile_new();
    cass_execution_profile_set_request_timeout(quick, 200);
    ASSERT_EQ(cass_cluster_set_execution_profile(c, "quick", quick), CASS_OK);
    cass_execution_profile_free(quick);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    kill(srv.pid, SIGSTOP);
    CassStatement *st = cass_statement_new("SELECT * FROM system.local", 0);
    cass_statement_set_execution_profile(st, "quick");
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_REQUEST_TIMED_OUT);
    cass_future_free(f);
    cass_statement_set_execution_profile(st, NULL);
    cass_statement_set_request_timeout(st, 150); /* the statement's own */
    f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_REQUEST_TIMED_OUT);
    cass_future_free(f);
    cass_statement_free(st);
    kill(srv.pid, SIGCONT);
    const CassResult *r = QUERY(cn.session, "SELECT release_version FROM system.local");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    conn_close(&cn);
    server_stop(&srv);
}

/* Our server ignores custom payloads as Cassandra's default query handler does: a request
   that carries one (v4 and v5 send it, v3 does not) is accepted and gets none back. */
TEST(requests_with_a_custom_payload_are_accepted_and_get_none_back)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    static const cass_byte_t bin[] = {0x00, 0xFF, 0x7F};
    CassCustomPayload *p = cass_custom_payload_new();
    cass_custom_payload_set(p, "zeta", bin, sizeof bin);
    cass_custom_payload_set(p, "alpha", bin, 0);
    cass_custom_payload_set_n(p, "k\0z", 3, bin, 1);
    for (int version = 3; version <= 5; version++) {
        conn cn;
        conn_open_cluster(__FILE__, __LINE__, &cn, remote_cluster(&srv, version));
        char q[256];
        snprintf(q, sizeof q,
                 "CREATE KEYSPACE IF NOT EXISTS pl WITH replication = {'class': "
                 "'SimpleStrategy', 'replication_factor': 1}");
        RUN(cn.session, q);
        RUN(cn.session, "CREATE TABLE IF NOT EXISTS pl.kv (k int PRIMARY KEY, v int)");
        CassStatement *st = cass_statement_new("INSERT INTO pl.kv (k, v) VALUES (1, 1)", 0);
        ASSERT_EQ(cass_statement_set_custom_payload(st, p), CASS_OK);
        CassFuture *f = cass_session_execute(cn.session, st);
        ASSERT_FUTURE_OK(f);
        ASSERT_EQ(cass_future_custom_payload_item_count(f), 0);
        const char *name;
        size_t name_len;
        const cass_byte_t *value;
        size_t value_len;
        ASSERT_EQ(cass_future_custom_payload_item(f, 0, &name, &name_len, &value, &value_len),
                  CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
        cass_future_free(f);
        cass_statement_free(st);

        const CassPrepared *prep = PREPARE(cn.session, "SELECT v FROM pl.kv WHERE k = ?");
        CassStatement *bound = cass_prepared_bind(prep);
        ASSERT_EQ(cass_statement_bind_int32(bound, 0, 1), CASS_OK);
        ASSERT_EQ(cass_statement_set_custom_payload(bound, p), CASS_OK);
        f = cass_session_execute(cn.session, bound);
        ASSERT_FUTURE_OK(f);
        const CassResult *r = cass_future_get_result(f);
        ASSERT_EQ(cass_result_row_count(r), 1);
        ASSERT_EQ(cass_future_custom_payload_item_count(f), 0);
        cass_result_free(r);
        cass_future_free(f);
        cass_statement_free(bound);
        cass_prepared_free(prep);

        CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_UNLOGGED);
        CassStatement *m = cass_statement_new("INSERT INTO pl.kv (k, v) VALUES (2, 2)", 0);
        ASSERT_EQ(cass_batch_add_statement(b, m), CASS_OK);
        cass_statement_free(m);
        ASSERT_EQ(cass_batch_set_custom_payload(b, p), CASS_OK);
        f = cass_session_execute_batch(cn.session, b);
        ASSERT_FUTURE_OK(f);
        ASSERT_EQ(cass_future_custom_payload_item_count(f), 0);
        cass_future_free(f);
        cass_batch_free(b);
        conn_close(&cn);
    }
    cass_custom_payload_free(p);
    server_stop(&srv);
}

/* ---- authenticator callbacks ---- */

typedef struct auth_log {
    const char *password; /* the token's; NULL: the initial callback sets an error */
    int initial, success, cleanup, data_cleanup;
    char class_name[128];
} auth_log;

static void auth_initial(CassAuthenticator *auth, void *data)
{
    auth_log *log = data;
    log->initial++;
    size_t n;
    const char *cls = cass_authenticator_class_name(auth, &n);
    snprintf(log->class_name, sizeof log->class_name, "%.*s", (int)n, cls);
    if (!log->password) {
        cass_authenticator_set_error(auth, "no token for you");
        return;
    }
    char token[64];
    int len = snprintf(token, sizeof token, "%ccassandra%c%s", 0, 0, log->password);
    cass_authenticator_set_response(auth, token, (size_t)len);
}

static void auth_success(CassAuthenticator *auth, void *data, const char *token, size_t len)
{
    (void)auth, (void)token, (void)len;
    ((auth_log *)data)->success++;
}

static void auth_cleanup(CassAuthenticator *auth, void *data)
{
    (void)auth;
    ((auth_log *)data)->cleanup++;
}

static void auth_data_cleanup(void *data) { ((auth_log *)data)->data_cleanup++; }

static const CassAuthenticatorCallbacks AUTH_CALLBACKS = {auth_initial, NULL, auth_success,
                                                          auth_cleanup};

TEST(authenticator_callbacks_carry_the_login_on_every_connection)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, "--auth");
    auth_log log = {.password = "cassandra"};
    CassCluster *c = remote_cluster(&srv, 0);
    ASSERT_EQ(cass_cluster_set_authenticator_callbacks(c, &AUTH_CALLBACKS, auth_data_cleanup,
                                                       &log),
              CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    const CassResult *r = QUERY(cn.session, "SELECT role FROM system_auth.roles");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    /* the control connection and the pool's: one exchange each, each cleaned up */
    ASSERT_EQ(log.initial, 2);
    ASSERT_EQ(log.success, 2);
    ASSERT_EQ(log.cleanup, 2);
    ASSERT_STR_EQ(log.class_name, "org.apache.cassandra.auth.PasswordAuthenticator");
    conn_close(&cn);
    ASSERT_EQ(log.data_cleanup, 1); /* with the last cluster holding the callbacks */

    /* a wrong password: the server refuses; an error set by the callback: ours */
    const char *cases[] = {"wrong", NULL};
    for (int i = 0; i < 2; i++) {
        auth_log bad = {.password = cases[i]};
        c = remote_cluster(&srv, 0);
        ASSERT_EQ(cass_cluster_set_authenticator_callbacks(c, &AUTH_CALLBACKS, NULL, &bad),
                  CASS_OK);
        CassSession *s = cass_session_new();
        CassFuture *f = cass_session_connect(s, c);
        ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_BAD_CREDENTIALS);
        char msg[256];
        ASSERT(strstr(future_message(f, msg, sizeof msg),
                      i == 0 ? "are incorrect" : "no token for you"));
        cass_future_free(f);
        cass_session_free(s);
        cass_cluster_free(c);
        ASSERT_EQ(bad.cleanup, bad.initial);
    }
    server_stop(&srv);
}

/* ---- a server that answers garbage ---- */

typedef struct garbage_server {
    int fd;
    int port;
    pthread_t thread;
} garbage_server;

/* Accepts connections and answers whatever arrives with bytes that are no frame. */
static void *garbage_main(void *arg)
{
    garbage_server *g = arg;
    for (;;) {
        int c = accept(g->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        char buf[512];
        if (read(c, buf, sizeof buf) > 0) {
            static const char junk[] = "HTTP/1.1 400 Bad Request\r\n\r\nthis is not CQL at all";
            if (write(c, junk, sizeof junk - 1) < 0) {
                /* the client may be gone: nothing to do */
            }
        }
        usleep(100 * 1000);
        close(c);
    }
}

TEST(garbage_from_a_server_fails_the_connect_with_a_clear_error)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    garbage_server g;
    g.fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT(g.fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ASSERT(bind(g.fd, (struct sockaddr *)&a, sizeof a) == 0);
    socklen_t len = sizeof a;
    ASSERT(getsockname(g.fd, (struct sockaddr *)&a, &len) == 0);
    ASSERT(listen(g.fd, 8) == 0);
    g.port = ntohs(a.sin_port);
    ASSERT(pthread_create(&g.thread, NULL, garbage_main, &g) == 0);
    server fake = {.pid = 0, .port = g.port};
    for (int version = 3; version <= 5; version++) {
        CassCluster *c = remote_cluster(&fake, version);
        CassSession *s = cass_session_new();
        CassFuture *f = cass_session_connect(s, c);
        ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
        char msg[256];
        future_message(f, msg, sizeof msg);
        ASSERT(strlen(msg) > 0);
        cass_future_free(f);
        cass_session_free(s);
        cass_cluster_free(c);
    }
    shutdown(g.fd, SHUT_RDWR);
    close(g.fd);
    pthread_join(g.thread, NULL);
}

/* ---- many requests at once ---- */

TEST(thousands_of_requests_in_flight_all_complete)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, remote_cluster(&srv, 4));
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    CassFuture *pf = cass_session_prepare(cn.session, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    ASSERT_FUTURE_OK(pf);
    const CassPrepared *ins = cass_future_get_prepared(pf);
    cass_future_free(pf);
    enum { N = 5000 };
    CassFuture **fs = calloc(N, sizeof *fs);
    ASSERT(fs);
    for (int i = 0; i < N; i++) {
        CassStatement *st = cass_prepared_bind(ins);
        cass_statement_bind_int32(st, 0, i);
        cass_statement_bind_int32(st, 1, i);
        fs[i] = cass_session_execute(cn.session, st);
        cass_statement_free(st);
    }
    for (int i = 0; i < N; i++) {
        ASSERT_FUTURE_OK(fs[i]);
        cass_future_free(fs[i]);
    }
    free(fs);
    const CassResult *r = QUERY(cn.session, "SELECT count(*) FROM ks.t");
    cass_int64_t n;
    ASSERT_EQ(cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &n),
              CASS_OK);
    ASSERT_EQ(n, N);
    cass_result_free(r);
    cass_prepared_free(ins);
    conn_close(&cn);
    server_stop(&srv);
}

TEST(a_full_request_queue_fails_requests_at_once_and_the_rest_complete)
{
    REMOTE_SKIP("starts servers of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    CassCluster *c = remote_cluster(&srv, 4);
    ASSERT_EQ(cass_cluster_set_queue_size_io(c, 4), CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    /* many at once from one thread: more than 4 wait for the connection's thread */
    enum { N = 2000 };
    CassFuture **fs = calloc(N, sizeof *fs);
    ASSERT(fs);
    CassStatement *st = cass_statement_new("SELECT key FROM system.local", 0);
    for (int i = 0; i < N; i++)
        fs[i] = cass_session_execute(cn.session, st);
    cass_statement_free(st);
    int ok = 0, full = 0;
    for (int i = 0; i < N; i++) {
        CassError rc = cass_future_error_code(fs[i]);
        ok += rc == CASS_OK;
        full += rc == CASS_ERROR_LIB_REQUEST_QUEUE_FULL;
        cass_future_free(fs[i]);
    }
    free(fs);
    ASSERT_EQ(ok + full, N); /* nothing else, nothing hangs */
    ASSERT(ok >= 4);
    ASSERT(full > 0);
    RUN(cn.session, "SELECT key FROM system.local"); /* and the session goes on */
    conn_close(&cn);
    server_stop(&srv);
}
