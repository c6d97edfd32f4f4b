/*
 * The node registry: how several `cassette serve` processes on one database
 * directory form a cluster that drivers discover as they discover Cassandra's.
 *
 * Each serving process registers one node: a file DIR/cassette-node-ADDR-PORT
 * (ADDR:PORT its broadcast native address and port) that it holds with an
 * exclusive lock (an open file description lock, F_OFD_SETLK) for as long as
 * it lives. The file keeps the node's identity -- host_id and 16 random
 * Murmur3 tokens, kept when the same ADDR:PORT registers again, as a
 * restarted Cassandra node keeps them -- and its data center and rack. The
 * kernel drops the lock when the process ends, however it ends, so the others
 * see a killed node down at once; a clean stop marks the file "left" first.
 *
 * Members, as every node lists them: each file of the directory that is
 * locked (up) or not marked left (down: a node that died, still in the ring,
 * as Cassandra keeps a dead node until it is removed). Removing a down node's
 * file removes it from the cluster (nodetool removenode).
 *
 * The file, text, one "key value" line each:
 *   cassette-node 1
 *   address 127.0.0.1        native_port 9042        storage_port 7000
 *   data_center datacenter1  rack rack1
 *   host_id 0b5e...-...      tokens -9167... 1342... (16, space-separated)
 *   pid 1234                 state normal | left
 *   end
 * It is replaced whole (written aside, renamed over), never rewritten in place,
 * so a reader sees the old file or the new one.
 *
 * Threads: cql_registry_topology's functions may be called from any thread at
 * once (each lists the directory anew); cql_registry_poll from one thread (the
 * server's loop); open and close from the thread that runs the server.
 */
#ifndef CQL_SERVER_REGISTRY_H
#define CQL_SERVER_REGISTRY_H

#include <stddef.h>

#include "cql/cql.h"

typedef struct cql_registry cql_registry;

/* A node registers as the database's defaults say when these are NULL. */
#define CQL_REGISTRY_DC "datacenter1" /* SimpleSnitch's, as system.local reported it */
#define CQL_REGISTRY_RACK "rack1"

/*
 * Registers this process as the node at address:port (its broadcast native address, IPv4 or
 * IPv6 text; a wildcard address 0.0.0.0 or :: registers as 127.0.0.1) in directory dir, with
 * data center dc and rack (NULL: the defaults above). Returns 0, or -1 with the reason in
 * errbuf: the directory cannot hold the file, or another live process is that node.
 * Ownership: close with cql_registry_close.
 */
int cql_registry_open(const char *dir, const char *address, int port, const char *dc,
                      const char *rack, cql_registry **out, char *errbuf, size_t errlen);

/* Unregisters: the file is marked left (its identity kept for a restart) and unlocked. NULL:
   nothing. */
void cql_registry_close(cql_registry *r);

/* The description sessions are given (cql_session_set_topology); lives as long as r. */
const cql_topology *cql_registry_topology(cql_registry *r);

/* The node this process registered. */
const cql_node *cql_registry_self(const cql_registry *r);

/*
 * Lists the members again and reports each change since the last call (the first call
 * compares with the members seen at open) as the native protocol's events: fn(arg, type,
 * change, node) with type "TOPOLOGY_CHANGE" (change NEW_NODE, REMOVED_NODE) or "STATUS_CHANGE"
 * (UP, DOWN), as Cassandra's EventNotifier sends them: a node that joins is NEW_NODE then UP,
 * one that restarts UP, one that dies DOWN, one that stops cleanly DOWN then REMOVED_NODE.
 */
void cql_registry_poll(cql_registry *r,
                       void (*fn)(void *arg, const char *type, const char *change,
                                  const cql_node *node),
                       void *arg);

#endif
