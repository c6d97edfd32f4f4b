/*
 * The remote backend's insides, shared by its two files:
 *
 *  - remote_cluster.c: the cluster as the driver sees it. Hosts found from
 *    the contact points and from system.local / system.peers(_v2) over a
 *    control connection registered for events; a pool of connections per
 *    host; a monitor thread that reconnects hosts that went down (the
 *    cluster's constant or exponential reconnection policy), follows
 *    topology, status and schema events, fires speculative executions and
 *    tells the host listener; the token ring and the keyspaces' replication,
 *    for token-aware routing; query plans (load balancing, filters).
 *  - backend_remote.c: the backend operations (backend.h) on top: requests
 *    sent along their query plan, retried as the retry policy decides,
 *    re-prepared on UNPREPARED, speculated on when idempotent.
 *
 * Locks: b->lock guards the host table, pools, ring, keyspaces and the
 * session keyspace; never held while a connection is opened or closed, nor
 * while a callback of the application runs. A connection's callbacks run on
 * its own thread and never wait for another request.
 */
#ifndef CQL_DRIVER_REMOTE_H
#define CQL_DRIVER_REMOTE_H

#include <pthread.h>
#include <stdatomic.h>

#include "cql/client/conn.h"
#include "cql/driver/backend.h"
#include "cql/driver/driver_int.h"

#define REMOTE_MAX_HOST 64 /* a host's address text, a DC or rack name */

typedef struct rhost rhost;

/* One pooled connection: referenced by the requests being handed to it. A connection taken out
   of its pool (it went down, or the host was removed) is closed once nobody sends on it --
   never under b->lock, and never on its own thread (then it waits in the graveyard). */
typedef struct rconn {
    cql_conn *conn;
    rhost *host;
    int refs;           /* under b->lock */
    int retired;        /* under b->lock */
    char *keyspace;     /* the keyspace its last USE set (under b->lock), or NULL */
    struct rconn *next; /* in the graveyard */
} rconn;

struct rhost {
    char addr[REMOTE_MAX_HOST]; /* numeric address */
    int port;
    CassInet inet;
    char dc[REMOTE_MAX_HOST], rack[REMOTE_MAX_HOST];
    int64_t *tokens;            /* Murmur3 tokens, from system.local / peers */
    uint32_t n_tokens;
    int known;                  /* a member of the cluster (0: removed; the entry stays, so
                                   pointers held by requests stay valid until close) */
    int up;                     /* requests may go to it: it has a live connection */
    int connecting;             /* the monitor is opening its pool */
    rconn **pool;               /* core_connections slots, NULL where none is open */
    unsigned n_pool;
    _Atomic unsigned rr;        /* the next slot to use */
    unsigned attempts;          /* reconnections failed in a row */
    uint64_t next_try_ms;       /* when the next reconnection may start (monotonic ms) */
};

/* A keyspace's replication, for token-aware routing. */
typedef struct rkeyspace {
    char *name;
    int strategy;               /* 0: SimpleStrategy, 1: NetworkTopologyStrategy, 2: other */
    int rf;                     /* SimpleStrategy */
    char **dcs;                 /* NetworkTopologyStrategy: a replication factor per DC */
    int *dc_rf;
    unsigned n_dcs;
} rkeyspace;

typedef struct rtoken {
    int64_t token;
    rhost *host;
} rtoken;

/* Something the monitor does later: an event, or a speculative execution's start. */
typedef struct rtask {
    int kind;                   /* enum rtask_kind */
    uint64_t at_ms;             /* TASK_SPECULATE: when */
    char addr[REMOTE_MAX_HOST]; /* events: the node */
    int port;
    char change[32];            /* events: NEW_NODE, UP, ... ; schema: the keyspace */
    void (*fire)(void *arg);    /* TASK_SPECULATE */
    void *arg;
    struct rtask *next;
} rtask;

enum rtask_kind { TASK_TOPOLOGY, TASK_STATUS, TASK_SCHEMA, TASK_SPECULATE, TASK_HOST_DOWN };

struct cql_backend {
    pthread_mutex_t lock;
    pthread_cond_t wake;        /* the monitor's */
    pthread_t monitor;
    int has_monitor;
    int stopping;               /* under lock */
    CassCluster *cluster;       /* a copy of the session's: settings, profiles */
    uint8_t version;            /* negotiated at connect; every connection speaks it */
    cql_conn_config cfg;        /* the base of every connection's (host and port set per host) */
    char *contacts;
    char *user, *password, *app_name, *app_version, *client_id;
    const char *keys[5], *vals[5];
    cql_tls_client *tls;
    /* the cluster (under lock) */
    rhost **hosts;
    unsigned n_hosts, cap_hosts;
    rtoken *ring;               /* every known host's tokens, sorted */
    unsigned n_ring;
    rkeyspace *keyspaces;
    unsigned n_keyspaces;
    char local_dc[REMOTE_MAX_HOST]; /* the control host's DC: DC-aware routing's default */
    cql_conn *control;          /* registered for events; the monitor's alone */
    rhost *control_host;
    char *keyspace;             /* the session's (the last USE), set on every connection */
    rconn *graveyard;
    rtask *tasks;               /* for the monitor, sorted by at_ms */
    _Atomic unsigned rr;        /* round-robin position of query plans */
    /* metrics */
    _Atomic uint64_t connection_timeouts, request_timeouts, speculative_count;
    pthread_mutex_t hist_lock;
    uint64_t spec_hist[CQL_DRV_HIST_BUCKETS];
};

/* ---- remote_cluster.c ---- */

/* Connects the cluster: a control connection to the first contact point that answers, the
   hosts it reports, a pool to each, the monitor. 0, or an error with err (b freed by the
   caller with cql_remote_cluster_free). */
int cql_remote_cluster_start(cql_backend *b, eng_err *err);
/* Stops the monitor and closes every connection. */
void cql_remote_cluster_free(cql_backend *b);

/*
 * A query plan: the hosts to try, in order, for a request with these settings (profile: the
 * request's load balancing and filters; NULL: the cluster's), its consistency, routing key
 * (NULL: none) in keyspace ks (NULL: the session's), and target host (cass_statement_set_host:
 * NULL for none). At most cap hosts into out; returns how many.
 */
unsigned cql_remote_plan(cql_backend *b, const CassExecProfile *profile, int consistency,
                     const uint8_t *routing_key, size_t key_len, const char *ks,
                     const char *target, int target_port, rhost **out, unsigned cap);

/* A live connection of h, referenced (cql_remote_release it), or NULL when h has none (then h is
   marked down for the monitor to reconnect). */
rconn *cql_remote_pick(cql_backend *b, rhost *h);
void cql_remote_release(cql_backend *b, rconn *c);

/* Queues a task for the monitor (taken over). */
void cql_remote_post(cql_backend *b, rtask *t);

/* The cluster's reconnection delay after `attempts` failures (ms). */
uint64_t cql_remote_reconnect_delay(const CassCluster *c, unsigned attempts);

uint64_t cql_remote_now_ms(void);

/* The body of a QUERY of text[0, len) with default parameters (no values, no paging: every row
   in one answer), and of `USE "ks"`. 0, or -1 when memory ran out (body then to be freed). */
int cql_remote_put_query(const cql_backend *b, const char *text, size_t len, eng_buf *body);
int cql_remote_put_use(const cql_backend *b, const char *ks, eng_buf *body);

/* Sends a request on conn and waits for its outcome (never on conn's own thread). */
int cql_remote_call_on(cql_conn *conn, uint8_t opcode, const eng_buf *body, cql_result **out,
                   eng_err *err);
/* An answer as a request's outcome: the RESULT's result (warnings, payload and tracing id
   kept), or the error of an ERROR. */
int cql_remote_outcome(int rc, const eng_err *err, cql_proto_response *resp, eng_err *out_err,
                   cql_result **out);

#endif
