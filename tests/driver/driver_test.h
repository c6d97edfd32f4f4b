/*
 * What the driver API tests share: connecting a session, running statements
 * that must succeed, and failing the test with a future's code and message.
 * Only <cassandra.h> and the harness: the tests see the library as an
 * application does.
 */
#ifndef DRIVER_TEST_H
#define DRIVER_TEST_H

#include <cassandra.h>
#include <stdio.h>

#include "harness.h"

#define KS_CQL                                                                                     \
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"

/* Fails the test with the future's code and message unless it succeeded. */
#define ASSERT_FUTURE_OK(f) future_ok(__FILE__, __LINE__, (f))

static inline void future_ok(const char *file, int line, CassFuture *f)
{
    CassError rc = cass_future_error_code(f);
    if (rc != CASS_OK) {
        const char *m;
        size_t n;
        cass_future_error_message(f, &m, &n);
        test_fail(file, line, "future failed: %s (0x%x): %.*s", cass_error_desc(rc), (unsigned)rc,
                  (int)n, m);
    }
}

/* The future's message as a C string, in buf. */
static inline const char *future_message(CassFuture *f, char *buf, size_t cap)
{
    const char *m;
    size_t n;
    cass_future_error_message(f, &m, &n);
    snprintf(buf, cap, "%.*s", (int)n, m);
    return buf;
}

/*
 * The databases of the tests, embedded or remote (tests/driver/remote_harness.c). Embedded,
 * test_database sets the cluster's contact point to contact; remote (test_remote()), a
 * "memory:" or "file:DIR" contact is served by a `cassette serve` the test starts (one per
 * "memory:" cluster, one per directory), and the contact point is 127.0.0.1:PORT. Other
 * contacts are set as they are.
 */
CassError test_database(CassCluster *cluster, const char *contact);
/* The URI of contact's database for CASSETTE_URI, in buf: contact itself embedded; remote,
   cql://127.0.0.1:PORT of its server (a "memory:" one then lives until the test ends). */
const char *test_database_uri(const char *contact, char *buf, size_t cap);
/* Stops the "memory:" server of cluster, if any (conn_close calls it); fails the test if that
   server did not run until then. */
void test_database_release(const char *file, int line, const CassCluster *cluster);

/* Skips the test in the remote mode, saying why: what it checks only an embedded database
   has (cassette.h's extensions, file: directories, durability, disk-full). */
#define REMOTE_SKIP(why)                                                                           \
    do {                                                                                           \
        if (test_remote())                                                                         \
            test_skip("remote: %s", why);                                                          \
    } while (0)

/* Skips the test in the remote mode for a known failure of the remote backend, to be fixed
   there (then the marker goes). */
#define REMOTE_KNOWN_FAILURE(why)                                                                  \
    do {                                                                                           \
        if (test_remote())                                                                         \
            test_skip("remote, known failure: %s", why);                                           \
    } while (0)

typedef struct conn {
    CassCluster *cluster;
    CassSession *session;
} conn;

/* Connects cn->session with cluster, which cn then owns. */
static inline void conn_open_cluster(const char *file, int line, conn *cn, CassCluster *cluster)
{
    cn->cluster = cluster;
    if (!cluster)
        test_fail(file, line, "no cluster");
    cn->session = cass_session_new();
    CassFuture *f = cass_session_connect(cn->session, cn->cluster);
    future_ok(file, line, f);
    cass_future_free(f);
}

/* A session on a temporary database of its own (remote: on a server of its own). */
#define MEMORY_CONNECT(cn) conn_open_cluster(__FILE__, __LINE__, (cn), memory_cluster())

static inline CassCluster *memory_cluster(void)
{
    CassCluster *c = cass_cluster_new();
    if (c && test_database(c, "memory:") != CASS_OK) {
        cass_cluster_free(c);
        return NULL;
    }
    return c;
}

static inline void conn_close(conn *cn)
{
    CassFuture *f = cass_session_close(cn->session);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_session_free(cn->session);
    test_database_release(__FILE__, __LINE__, cn->cluster);
    cass_cluster_free(cn->cluster);
    cn->session = NULL;
    cn->cluster = NULL;
}

/* Runs a statement that must succeed. */
#define RUN(s, q) run_ok(__FILE__, __LINE__, (s), (q))

static inline void run_ok(const char *file, int line, CassSession *s, const char *q)
{
    CassStatement *st = cass_statement_new(q, 0);
    CassFuture *f = cass_session_execute(s, st);
    future_ok(file, line, f);
    cass_future_free(f);
    cass_statement_free(st);
}

/* Executes a statement that must succeed and returns its result (the caller frees it). */
#define EXEC(s, st) exec_ok(__FILE__, __LINE__, (s), (st))

static inline const CassResult *exec_ok(const char *file, int line, CassSession *s,
                                        const CassStatement *st)
{
    CassFuture *f = cass_session_execute(s, st);
    future_ok(file, line, f);
    const CassResult *r = cass_future_get_result(f);
    if (!r)
        test_fail(file, line, "no result");
    cass_future_free(f);
    return r;
}

/* Runs a query that must succeed and returns its result (the caller frees it). */
#define QUERY(s, q) query_ok(__FILE__, __LINE__, (s), (q))

static inline const CassResult *query_ok(const char *file, int line, CassSession *s, const char *q)
{
    CassStatement *st = cass_statement_new(q, 0);
    const CassResult *r = exec_ok(file, line, s, st);
    cass_statement_free(st);
    return r;
}

/* Prepares a statement that must prepare (the caller frees it). */
#define PREPARE(s, q) prepare_ok(__FILE__, __LINE__, (s), (q))

static inline const CassPrepared *prepare_ok(const char *file, int line, CassSession *s,
                                             const char *q)
{
    CassFuture *f = cass_session_prepare(s, q);
    future_ok(file, line, f);
    const CassPrepared *p = cass_future_get_prepared(f);
    if (!p)
        test_fail(file, line, "no prepared statement");
    cass_future_free(f);
    return p;
}

#endif
