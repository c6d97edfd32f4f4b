/*
 * What the example data layers share: connecting a session, running statements and reading
 * the outcome of a lightweight transaction, with the server's message kept for the caller.
 * Written against <cassandra.h> alone, so an application compiles unchanged against the
 * DataStax C/C++ driver and runs on a Cassandra cluster.
 *
 * Errors: every function that can fail takes an error buffer (err, cap) and writes the
 * driver's code and the server's message there ("Invalid query: ..."); err may be NULL.
 * Threads: all functions are safe from any thread; a CassSession is thread-safe.
 */
#ifndef EXAMPLES_CQLUTIL_H
#define EXAMPLES_CQLUTIL_H

#include <cassandra.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Connects a new session to contact: a database directory ("file:DIR"), a temporary one
 * ("memory:"), or hosts ("10.0.0.5,10.0.0.6"; on cassette, CASSETTE_URI replaces them). A
 * contact of the form "cql://HOST:PORT" is split into the host and port. On success
 * *cluster and *session belong to the caller (cu_disconnect frees both).
 */
CassError cu_connect(const char *contact, CassCluster **cluster, CassSession **session,
                     char *err, size_t cap);
/* Closes and frees what cu_connect made; NULLs are ignored. */
void cu_disconnect(CassCluster *cluster, CassSession *session);

/*
 * Executes st and waits. On success, *result (when result is not NULL) holds the result,
 * which the caller frees; st stays the caller's.
 */
CassError cu_execute(CassSession *session, const CassStatement *st, const CassResult **result,
                     char *err, size_t cap);
/* Executes a simple statement without values (schema, fixtures). */
CassError cu_run(CassSession *session, const char *cql, char *err, size_t cap);
/* Executes each statement of a NULL-terminated array in order, stopping at the first error. */
CassError cu_run_all(CassSession *session, const char *const *cql, char *err, size_t cap);
/* Prepares cql; on success *prepared is the caller's (cass_prepared_free). */
CassError cu_prepare(CassSession *session, const char *cql, const CassPrepared **prepared,
                     char *err, size_t cap);
/* Prepares the n statements of cql into out[0..n); on failure (err says why, as cu_prepare)
   the ones prepared are freed and every out[i] is NULL. */
CassError cu_prepare_all(CassSession *session, const char *const *cql, size_t n,
                         const CassPrepared **out, char *err, size_t cap);
/* Frees the prepared statements of ps[0..n) that are not NULL. */
void cu_prepared_free_all(const CassPrepared **ps, size_t n);
/* Executes a batch and waits; the batch stays the caller's. */
CassError cu_execute_batch(CassSession *session, const CassBatch *batch,
                           const CassResult **result, char *err, size_t cap);

/* The [applied] column of a lightweight transaction's result: 1 applied, 0 not, -1 none. */
int cu_applied(const CassResult *result);

/* A column of the result's current row as a C string copied into buf (empty when null). */
const char *cu_get_string(const CassRow *row, const char *column, char *buf, size_t cap);

/* The microseconds since the epoch in a version-1 (time) UUID. */
int64_t cu_uuid_micros(CassUuid uuid);

#endif
