/*
 * The remote backend on a cluster: two `cassette serve` processes on one
 * database directory are two nodes sharing one store, which discover each
 * other (system.peers_v2) as Cassandra's nodes do. Through the public API
 * only: discovery and the host listener, round-robin and DC-aware load
 * balancing, token-aware routing checked against the nodes' own tokens,
 * filters, a statement sent to one node, failover when a node is killed and
 * reconnection when it comes back, speculative executions, metrics and
 * compression.
 */
#include <cassette.h>
#include <pthread.h>

#include "serve_test.h"

/* Two nodes on one directory; the second with extra arguments (a DC, an address). */
typedef struct two {
    char dir[64];
    char db[96];
    server node[2];
} two;

static void two_start(two *t, const char *const *extra, int n_extra)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/cassette-cluster-XXXXXX");
    ASSERT(mkdtemp(t->dir));
    snprintf(t->db, sizeof t->db, "%s/db", t->dir);
    server_start_on(&t->node[0], t->db, 0, NULL);
    server_start_argv(&t->node[1], t->db, 0, extra, n_extra);
}

static void two_stop(two *t)
{
    server_stop(&t->node[0]);
    server_stop(&t->node[1]);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", t->dir);
    ASSERT(system(cmd) == 0);
}

/* A cluster whose contact point is the first node; reconnections every 100 ms. */
static CassCluster *two_cluster(const two *t)
{
    CassCluster *c = remote_cluster(&t->node[0], 4);
    cass_cluster_set_constant_reconnect(c, 100);
    return c;
}

/* Runs a statement; its coordinator's port (0 when it failed or none was named). */
static int port_of_run(CassSession *s, CassStatement *st, CassError *rc)
{
    CassFuture *f = cass_session_execute(s, st);
    *rc = cass_future_error_code(f);
    const CassNode *node = cass_future_coordinator(f);
    int port = 0;
    if (node) {
        /* a node is opaque: set it on a statement and read the port back through a query */
        CassStatement *probe = cass_statement_new("SELECT rpc_port FROM system.local", 0);
        ASSERT_EQ(cass_statement_set_node(probe, node), CASS_OK);
        CassFuture *pf = cass_session_execute(s, probe);
        ASSERT_FUTURE_OK(pf);
        const CassResult *r = cass_future_get_result(pf);
        cass_int32_t p = 0;
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column(cass_result_first_row(r), 0), &p),
                  CASS_OK);
        port = p;
        cass_result_free(r);
        cass_future_free(pf);
        cass_statement_free(probe);
    }
    cass_future_free(f);
    return port;
}

static int port_of(CassSession *s, const char *query)
{
    CassStatement *st = cass_statement_new(query, 0);
    CassError rc;
    int port = port_of_run(s, st, &rc);
    cass_statement_free(st);
    ASSERT_EQ(rc, CASS_OK);
    return port;
}

/* ---- the host listener ---- */

typedef struct events {
    pthread_mutex_t lock;
    int up, down, add, remove;
} events;

static void on_host(CassHostListenerEvent ev, const CassInet address, void *data)
{
    events *e = data;
    (void)address;
    pthread_mutex_lock(&e->lock);
    e->up += ev == CASS_HOST_LISTENER_EVENT_UP;
    e->down += ev == CASS_HOST_LISTENER_EVENT_DOWN;
    e->add += ev == CASS_HOST_LISTENER_EVENT_ADD;
    e->remove += ev == CASS_HOST_LISTENER_EVENT_REMOVE;
    pthread_mutex_unlock(&e->lock);
}

static int events_get(events *e, const int *field)
{
    pthread_mutex_lock(&e->lock);
    int v = *field;
    pthread_mutex_unlock(&e->lock);
    return v;
}

/* Waits (up to 10 s) for *field to reach want. */
static int events_wait(events *e, const int *field, int want)
{
    for (int i = 0; i < 200 && events_get(e, field) < want; i++)
        usleep(50 * 1000);
    return events_get(e, field);
}

TEST(discovery_finds_both_nodes_and_requests_go_round_both)
{
    REMOTE_SKIP("starts nodes of its own: runs in the embedded pass");
    two t;
    two_start(&t, NULL, 0);
    events ev = {.lock = PTHREAD_MUTEX_INITIALIZER};
    CassCluster *c = two_cluster(&t);
    ASSERT_EQ(cass_cluster_set_host_listener_callback(c, on_host, &ev), CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    /* each node added and up once, from the one contact point */
    ASSERT_EQ(events_get(&ev, &ev.add), 2);
    ASSERT_EQ(events_get(&ev, &ev.up), 2);
    CassMetrics m;
    cass_session_get_metrics(cn.session, &m);
    ASSERT_EQ(m.stats.total_connections, 2); /* one per host: the default core connections */
    int seen0 = 0, seen1 = 0;
    for (int i = 0; i < 20; i++) {
        int p = port_of(cn.session, "SELECT release_version FROM system.local");
        seen0 += p == t.node[0].port;
        seen1 += p == t.node[1].port;
    }
    ASSERT_EQ(seen0 + seen1, 20);
    ASSERT(seen0 >= 5 && seen1 >= 5); /* in turn */
    cass_session_get_metrics(cn.session, &m);
    ASSERT(m.requests.max >= m.requests.min && m.requests.max > 0);
    ASSERT(m.requests.mean_rate > 0);
    conn_close(&cn);
    two_stop(&t);
}

/* The tokens of the node a statement is sent to, and the ring they make. */
typedef struct ring {
    int64_t token[64];
    int port[64];
    int n;
} ring;

static void ring_add(CassSession *s, int port, ring *r)
{
    CassStatement *st = cass_statement_new("SELECT tokens FROM system.local", 0);
    ASSERT_EQ(cass_statement_set_host(st, "127.0.0.1", port), CASS_OK);
    CassFuture *f = cass_session_execute(s, st);
    ASSERT_FUTURE_OK(f);
    const CassResult *res = cass_future_get_result(f);
    CassIterator *it = cass_iterator_from_collection(
        cass_row_get_column(cass_result_first_row(res), 0));
    ASSERT(it);
    while (cass_iterator_next(it) && r->n < 64) {
        const char *p;
        size_t n;
        ASSERT_EQ(cass_value_get_string(cass_iterator_get_value(it), &p, &n), CASS_OK);
        char buf[32];
        snprintf(buf, sizeof buf, "%.*s", (int)n, p);
        r->token[r->n] = strtoll(buf, NULL, 10);
        r->port[r->n++] = port;
    }
    cass_iterator_free(it);
    cass_result_free(res);
    cass_future_free(f);
    cass_statement_free(st);
}

/* The node owning a token: the first token at or after it, round the ring. */
static int owner(const ring *r, int64_t token)
{
    int best = -1, lowest = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->token[i] < r->token[lowest])
            lowest = i;
        if (r->token[i] >= token && (best < 0 || r->token[i] < r->token[best]))
            best = i;
    }
    return r->port[best >= 0 ? best : lowest];
}

TEST(token_aware_routing_sends_each_key_to_the_node_owning_its_token)
{
    REMOTE_SKIP("starts nodes of its own: runs in the embedded pass");
    two t;
    two_start(&t, NULL, 0);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, two_cluster(&t));
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    ring r = {.n = 0};
    ring_add(cn.session, t.node[0].port, &r);
    ring_add(cn.session, t.node[1].port, &r);
    ASSERT(r.n >= 2);
    CassFuture *pf = cass_session_prepare(cn.session, "SELECT v FROM ks.t WHERE k = ?");
    ASSERT_FUTURE_OK(pf);
    const CassPrepared *sel = cass_future_get_prepared(pf);
    cass_future_free(pf);
    int on[2] = {0, 0};
    for (int k = 0; k < 40; k++) {
        /* the key's token, as the nodes compute it */
        char q[96];
        snprintf(q, sizeof q, "SELECT token(k) FROM ks.t WHERE k = %d", k);
        char ins[96];
        snprintf(ins, sizeof ins, "INSERT INTO ks.t (k, v) VALUES (%d, %d)", k, k);
        RUN(cn.session, ins);
        const CassResult *res = QUERY(cn.session, q);
        cass_int64_t token;
        ASSERT_EQ(cass_value_get_int64(cass_row_get_column(cass_result_first_row(res), 0), &token),
                  CASS_OK);
        cass_result_free(res);
        CassStatement *st = cass_prepared_bind(sel);
        cass_statement_bind_int32(st, 0, k);
        CassError rc;
        int port = port_of_run(cn.session, st, &rc);
        cass_statement_free(st);
        ASSERT_EQ(rc, CASS_OK);
        ASSERT_EQ(port, owner(&r, token)); /* the replica (replication factor 1) */
        on[port == t.node[1].port]++;
    }
    ASSERT(on[0] > 0 && on[1] > 0); /* the keys spread over both */
    cass_prepared_free(sel);
    conn_close(&cn);
    two_stop(&t);
}

TEST(a_statement_set_on_one_node_runs_there_and_an_unknown_node_fails)
{
    REMOTE_SKIP("starts nodes of its own: runs in the embedded pass");
    two t;
    two_start(&t, NULL, 0);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, two_cluster(&t));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            CassStatement *st = cass_statement_new("SELECT key FROM system.local", 0);
            ASSERT_EQ(cass_statement_set_host(st, "127.0.0.1", t.node[i].port), CASS_OK);
            CassError rc;
            ASSERT_EQ(port_of_run(cn.session, st, &rc), t.node[i].port);
            ASSERT_EQ(rc, CASS_OK);
            cass_statement_free(st);
        }
    CassStatement *st = cass_statement_new("SELECT key FROM system.local", 0);
    ASSERT_EQ(cass_statement_set_host(st, "localhost", 9042), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_statement_set_host(st, "127.0.0.1", 1), CASS_OK);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_LIB_NO_HOSTS_AVAILABLE);
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
    two_stop(&t);
}

TEST(dc_aware_balancing_keeps_to_the_local_dc_and_filters_apply)
{
    REMOTE_SKIP("starts nodes of its own: runs in the embedded pass");
    two t;
    const char *dc2[] = {"--dc", "dc2"};
    two_start(&t, dc2, 2);
    /* the default: DC-aware, the local DC the contact point's -- node 0 only */
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, two_cluster(&t));
    for (int i = 0; i < 8; i++)
        ASSERT_EQ(port_of(cn.session, "SELECT key FROM system.local"), t.node[0].port);
    conn_close(&cn);
    /* dc2 named local: node 1 only */
    CassCluster *c = two_cluster(&t);
    ASSERT_EQ(cass_cluster_set_load_balance_dc_aware(c, "dc2", 0, cass_false), CASS_OK);
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    for (int i = 0; i < 8; i++)
        ASSERT_EQ(port_of(cn.session, "SELECT key FROM system.local"), t.node[1].port);
    conn_close(&cn);
    /* round robin: both; with dc2 denied, node 0 only */
    c = two_cluster(&t);
    cass_cluster_set_load_balance_round_robin(c);
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    int seen[2] = {0, 0};
    for (int i = 0; i < 8; i++)
        seen[port_of(cn.session, "SELECT key FROM system.local") == t.node[1].port]++;
    ASSERT(seen[0] > 0 && seen[1] > 0);
    conn_close(&cn);
    c = two_cluster(&t);
    cass_cluster_set_load_balance_round_robin(c);
    cass_cluster_set_blacklist_dc_filtering(c, "dc2");
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    for (int i = 0; i < 8; i++)
        ASSERT_EQ(port_of(cn.session, "SELECT key FROM system.local"), t.node[0].port);
    conn_close(&cn);
    two_stop(&t);
}

TEST(a_killed_node_is_failed_over_and_comes_back_when_restarted)
{
    REMOTE_SKIP("starts nodes of its own: runs in the embedded pass");
    two t;
    two_start(&t, NULL, 0);
    events ev = {.lock = PTHREAD_MUTEX_INITIALIZER};
    CassCluster *c = two_cluster(&t);
    cass_cluster_set_load_balance_round_robin(c);
    ASSERT_EQ(cass_cluster_set_host_listener_callback(c, on_host, &ev), CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    int port1 = t.node[1].port;
    server_kill(&t.node[1]);
    /* idempotent writes all succeed: one sent to the dead node goes on to the live one */
    for (int k = 0; k < 40; k++) {
        char q[96];
        snprintf(q, sizeof q, "INSERT INTO ks.t (k, v) VALUES (%d, %d)", k, k);
        CassStatement *st = cass_statement_new(q, 0);
        cass_statement_set_is_idempotent(st, cass_true);
        CassError rc;
        int port = port_of_run(cn.session, st, &rc);
        cass_statement_free(st);
        ASSERT_EQ(rc, CASS_OK);
        ASSERT_EQ(port, t.node[0].port);
    }
    ASSERT_EQ(events_wait(&ev, &ev.down, 1), 1);
    const CassResult *r = QUERY(cn.session, "SELECT count(*) FROM ks.t");
    cass_int64_t n;
    ASSERT_EQ(cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &n),
              CASS_OK);
    ASSERT_EQ(n, 40);
    cass_result_free(r);
    /* back on its port: up again after the reconnection delay, and used */
    server_start_on(&t.node[1], t.db, port1, NULL);
    ASSERT_EQ(events_wait(&ev, &ev.up, 3), 3);
    int seen1 = 0;
    for (int i = 0; i < 10; i++)
        seen1 += port_of(cn.session, "SELECT key FROM system.local") == port1;
    ASSERT(seen1 > 0);
    conn_close(&cn);
    two_stop(&t);
}

TEST(speculative_executions_run_idempotent_requests_on_a_second_node)
{
    REMOTE_SKIP("starts nodes of its own: runs in the embedded pass");
    two t;
    two_start(&t, NULL, 0);
    CassCluster *c = two_cluster(&t);
    cass_cluster_set_load_balance_round_robin(c);
    /* no delay: every idempotent request also starts at once on the next node */
    ASSERT_EQ(cass_cluster_set_constant_speculative_execution_policy(c, 0, 1), CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    for (int i = 0; i < 20; i++) /* not idempotent: never speculated on */
        RUN(cn.session, "SELECT key FROM system.local");
    usleep(200 * 1000);
    CassSpeculativeExecutionMetrics m;
    cass_session_get_speculative_execution_metrics(cn.session, &m);
    ASSERT_EQ(m.count, 0);
    for (int i = 0; i < 20; i++) {
        CassStatement *st = cass_statement_new("SELECT key FROM system.local", 0);
        cass_statement_set_is_idempotent(st, cass_true);
        CassFuture *f = cass_session_execute(cn.session, st);
        ASSERT_FUTURE_OK(f);
        cass_future_free(f);
        cass_statement_free(st);
    }
    /* each request that had two executions counts the one answering second as aborted; a
       request answered before its second execution could start had one (a slow machine) */
    for (int i = 0; i < 100; i++) {
        cass_session_get_speculative_execution_metrics(cn.session, &m);
        if (m.count >= 20)
            break;
        usleep(20 * 1000);
    }
    ASSERT(m.count >= 10 && m.count <= 20);
    ASSERT(m.percentage > 0);
    conn_close(&cn);
    two_stop(&t);
}

TEST(compressed_frames_carry_requests_on_every_version)
{
    REMOTE_SKIP("starts nodes of its own: runs in the embedded pass");
    server srv;
    server_start(&srv, NULL);
    static const char *const names[] = {"lz4", "snappy"};
    for (int version = 3; version <= 5; version++)
        for (int i = 0; i < 2; i++) {
            CassCluster *c = remote_cluster(&srv, version);
            ASSERT_EQ(cassette_cluster_set_compression(c, names[i]), 0);
            conn cn;
            conn_open_cluster(__FILE__, __LINE__, &cn, c);
            char q[256];
            snprintf(q, sizeof q,
                     "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': "
                     "'SimpleStrategy', 'replication_factor': 1}");
            RUN(cn.session, q);
            RUN(cn.session, "CREATE TABLE IF NOT EXISTS ks.big (k int PRIMARY KEY, v text)");
            char *v = malloc(100001);
            ASSERT(v);
            memset(v, 'a' + version + i, 100000); /* compresses well */
            v[100000] = '\0';
            CassStatement *st = cass_statement_new("INSERT INTO ks.big (k, v) VALUES (?, ?)", 2);
            cass_statement_bind_int32(st, 0, version * 10 + i);
            cass_statement_bind_string(st, 1, v);
            CassFuture *f = cass_session_execute(cn.session, st);
            ASSERT_FUTURE_OK(f);
            cass_future_free(f);
            cass_statement_free(st);
            snprintf(q, sizeof q, "SELECT v FROM ks.big WHERE k = %d", version * 10 + i);
            const CassResult *r = QUERY(cn.session, q);
            const char *got;
            size_t n;
            ASSERT_EQ(cass_value_get_string(cass_row_get_column(cass_result_first_row(r), 0),
                                            &got, &n),
                      CASS_OK);
            ASSERT_EQ(n, 100000);
            ASSERT(memcmp(got, v, n) == 0);
            cass_result_free(r);
            free(v);
            conn_close(&cn);
        }
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cassette_cluster_set_compression(c, "zstd"), CASS_ERROR_LIB_BAD_PARAMS);
    cass_cluster_free(c);
    server_stop(&srv);
}

