/*
 * `cassette serve`: an embedded database behind Cassandra's native protocol
 * (v3 to v5), so drivers of every language can use it.
 *
 * One libuv loop thread accepts connections, reads frames (v3/v4 frames, v5
 * segments once a connection is ready), answers STARTUP, OPTIONS and
 * REGISTER itself, and writes responses and events. Statements run on
 * libuv's worker threads (UV_THREADPOOL_SIZE, 4 by default), so a slow
 * statement never holds the loop; a durable write queued for its group
 * commit does not even hold a worker: its response is written when the
 * committer reports it durable. Requests of one connection may be
 * pipelined on many streams and are answered as they complete.
 *
 * Several servers on one database directory form a cluster (registry.h):
 * each registers itself as a node, system.local describes it, system.peers
 * and system.peers_v2 list the others, and connections registered for
 * TOPOLOGY_CHANGE / STATUS_CHANGE learn when one joins, dies, restarts or
 * stops.
 *
 * SIGTERM or SIGINT stops the server: it stops accepting and reading,
 * finishes the requests in flight, writes their responses, closes the
 * connections and the database (its last group commit included), and
 * cql_server_run returns.
 */
#ifndef CQL_SERVER_H
#define CQL_SERVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct cql_server_config {
    const char *db;              /* database directory; NULL: a temporary one, removed at exit */
    const char *listen;          /* address to listen on (NULL: 127.0.0.1) */
    int port;                    /* NULL-equivalent -1: 9042; 0: a free port, chosen at bind */
    int max_connections;         /* 0: 1024; more are accepted and closed at once */
    uint32_t max_frame_size;     /* bytes of a request frame's body (0: 16 MiB, Cassandra's
                                    native_transport_max_frame_size); larger is refused */
    uint32_t max_inflight;       /* requests a connection may have running (0: 1024); reading
                                    from it pauses beyond */
    int durability;              /* an eng_durability, or -1: CASSETTE_DURABILITY, else sync */
    const char *tls_cert;        /* PEM certificate (chain): clients must speak TLS; NULL: plain */
    const char *tls_key;         /* its PEM private key (NULL: in tls_cert's file) */
    const char *tls_client_ca;   /* PEM CA verifying the certificates clients present */
    int tls_require_client_cert; /* with tls_client_ca: a client without one is refused */
    int auth;                    /* PasswordAuthenticator: clients log in with a role of
                                    system_auth.roles, whose permissions are enforced (the
                                    default superuser cassandra/cassandra is made when no role
                                    exists); 0: no login, every statement allowed */
    const char *dc;                /* the node's data center (NULL: datacenter1) */
    const char *rack;              /* its rack (NULL: rack1) */
    const char *broadcast_address; /* the address other nodes and drivers are told (NULL: the
                                      listening one; 127.0.0.1 for a wildcard) */
} cql_server_config;

/* Defaults: 127.0.0.1:9042, the limits above, durability from the environment. */
void cql_server_config_init(cql_server_config *c);

/*
 * Opens the database, listens, calls listening(address, port, arg) once the socket is
 * bound (the port a port of 0 chose), and serves until SIGTERM or SIGINT. Returns 0 after a
 * clean shutdown; -1 when the database cannot open or the address cannot be bound, with the
 * reason in errbuf. Threads: call from one thread; it installs SIGTERM/SIGINT handlers for
 * its duration (libuv signal handles) and ignores SIGPIPE.
 */
int cql_server_run(const cql_server_config *cfg,
                   void (*listening)(const char *address, int port, void *arg), void *arg,
                   char *errbuf, size_t errlen);

#endif
