/*
 * cassette's own public header: what the Cassandra C/C++ driver API
 * (cassandra.h) has no words for: the library's version; the options a
 * cluster opens an embedded database with (durability, map size); and, on a
 * session connected to an embedded database, its virtual clock (TTL tests
 * without sleeping), emptying every table (test isolation) and a consistent
 * copy of the database (snapshot).
 *
 * Functions that can fail return an int, LMDB style: 0 on success, else a
 * CassError value of cassandra.h (CASS_ERROR_LIB_BAD_PARAMS for a NULL
 * argument, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE when the session is not
 * connected, the engine's error otherwise, its message logged through
 * cass_log_set_callback at CASS_LOG_ERROR).
 */
#ifndef CASSETTE_H
#define CASSETTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CASSETTE_EXPORT __attribute__((visibility("default")))
#else
#define CASSETTE_EXPORT
#endif

#define CASSETTE_VERSION_MAJOR 0
#define CASSETTE_VERSION_MINOR 1
#define CASSETTE_VERSION_PATCH 0

/*
 * The library's version as "MAJOR.MINOR.PATCH"; compare with the
 * CASSETTE_VERSION_* macros to detect a header/library mismatch.
 * Ownership: a static string, never freed. Threads: any.
 */
CASSETTE_EXPORT const char *cassette_version(void);

/* The driver's cluster and session (CassCluster and CassSession in cassandra.h), named by
 * their struct tags so that this header needs no other. */
struct CassCluster_;
struct CassSession_;

/* ---- opening a database: options of the cluster ----
 *
 * A session opens its database when it connects to the contact point "file:DIR" (the
 * directory DIR, created when missing) or "memory:" (a new database of its own, on a
 * memory-backed file system when there is one, removed when the session closes). These
 * options of the cluster say how; they concern only those two contact points (the remote
 * backend ignores them). They take effect at the next cass_session_connect*: a session
 * already connected keeps the options it opened with. Within one process, sessions on the
 * same directory share one open database (LMDB forbids opening it twice): the first one to
 * open it chooses its options, later ones get that database as it is.
 */

/*
 * When a commit is on disk (mirrors the engine's enum eng_durability).
 * CASSETTE_DURABILITY_SYNC (the default): every commit is on disk when its statement's future
 *     is set; a crash or power loss loses nothing that succeeded.
 * CASSETTE_DURABILITY_NOMETASYNC: one sync per commit instead of two; a power loss may undo
 *     the last commit (it never corrupts the database).
 * CASSETTE_DURABILITY_NONE: the operating system writes when it likes; a process crash loses
 *     nothing, a power loss may corrupt the database. For tests and bulk loads.
 * CASSETTE_DURABILITY_PERIODIC: as NOMETASYNC, and the last commit is fully synced within the
 *     sync period (cassette_cluster_set_sync_period): a power loss undoes at most the commits
 *     of one period, like Cassandra's periodic commit log, and never corrupts.
 * With every level but NONE, writes from several threads, and writes one thread issues
 * without waiting for their futures, share one transaction and one sync (group commit); a
 * write's future is set when its transaction is durable. See docs/durability.md.
 */
typedef enum cassette_durability_ {
    CASSETTE_DURABILITY_SYNC = 0,
    CASSETTE_DURABILITY_NOMETASYNC = 1,
    CASSETTE_DURABILITY_NONE = 2,
    CASSETTE_DURABILITY_PERIODIC = 3
} cassette_durability;

/*
 * Sets how durable the commits of a "file:DIR" database are. Without this call the
 * environment variable CASSETTE_DURABILITY ("sync", "nometasync", "periodic" or "none",
 * case-insensitive) decides, and without it CASSETTE_DURABILITY_SYNC; once called, the
 * cluster's choice wins over the variable (the application's code is explicit, the variable
 * a default for code that says nothing). A connect with a CASSETTE_DURABILITY the session
 * has to read and cannot parse fails with CASS_ERROR_LIB_UNABLE_TO_CONNECT. "memory:"
 * databases never sync (nothing of them outlives the process) and ignore both.
 * @param[in] cluster The cluster.
 * @param[in] durability One of the cassette_durability values.
 * @return 0, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or a value not in the enum
 *     (the cluster is then unchanged).
 * Ownership: nothing changes hands.
 * Threads: like every cass_cluster_set_*: one thread at a time per cluster, and not while
 *     a session is connecting with it.
 */
CASSETTE_EXPORT int cassette_cluster_set_durability(struct CassCluster_ *cluster,
                                                    cassette_durability durability);

/*
 * Sets the sync period of CASSETTE_DURABILITY_PERIODIC: the longest a commit stays not fully
 * on disk. 0 restores the default (1000 ms). Other levels ignore it.
 * @param[in] cluster The cluster.
 * @param[in] period_ms The period in milliseconds, at most 3,600,000 (an hour).
 * @return 0, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or a longer period (the
 *     cluster is then unchanged).
 * Ownership: nothing changes hands.
 * Threads: as cassette_cluster_set_durability.
 */
CASSETTE_EXPORT int cassette_cluster_set_sync_period(struct CassCluster_ *cluster,
                                                     unsigned period_ms);

/*
 * Turns group commit on (the default) or off for a "file:DIR" database opened with a syncing
 * durability. Off, every write commits and syncs alone, in the thread that executes it, and
 * its future is set before cass_session_execute returns: a baseline for benchmarks, and a
 * way to bound the work one thread does per statement. NONE and "memory:" never group.
 * The choice applies when this process opens the database (see cassette_cluster_set_durability).
 * @param[in] cluster The cluster.
 * @param[in] enabled Non-zero (the default) groups commits, 0 commits each write alone.
 * @return 0, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster.
 * Ownership: nothing changes hands.
 * Threads: as cassette_cluster_set_durability.
 */
CASSETTE_EXPORT int cassette_cluster_set_group_commit(struct CassCluster_ *cluster, int enabled);

/*
 * Sets the initial size of the database's memory map (LMDB's map size), in bytes, for
 * "file:DIR" and "memory:" databases. The map is address space, not memory or disk: the
 * file only holds the pages in use, and when the data needs more the map doubles, so the
 * size only avoids early growth steps (each one briefly waits for every transaction to
 * finish). The size applies when the database is created; an existing database goes on
 * with the size it last had (grown or given). 0 restores the default (256 MiB). A size the
 * process cannot map fails the connect with CASS_ERROR_LIB_UNABLE_TO_CONNECT.
 * @param[in] cluster The cluster.
 * @param[in] bytes The initial map size; 0 for the default.
 * @return 0, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or a size above
 *     CASSETTE_MAP_SIZE_MAX or this platform's size_t (the cluster is then unchanged).
 * Ownership: nothing changes hands.
 * Threads: as cassette_cluster_set_durability.
 */
#define CASSETTE_MAP_SIZE_MAX (UINT64_C(1) << 46) /* 64 TiB */
CASSETTE_EXPORT int cassette_cluster_set_map_size(struct CassCluster_ *cluster, uint64_t bytes);

/*
 * Sets how many bytes of prepared statements an embedded database keeps
 * (its statement cache; Cassandra's prepared_statements_cache_size). The
 * least recently used statements go first; a statement evicted while the
 * application still holds its CassPrepared is prepared again, transparently,
 * when executed. The cache belongs to the database: the last session to
 * connect sets it for all of them. 0 restores the default: 10 MiB, or
 * CASSETTE_PREPARED_CACHE_MB mebibytes when that variable is set. Simple
 * statements are kept apart, in a small cache of their own (1 MiB).
 * @param[in] cluster The cluster.
 * @param[in] bytes The cache's size; 0 for the default.
 * @return 0, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or a size above this platform's
 *     size_t (the cluster is then unchanged).
 * Ownership: nothing changes hands.
 * Threads: as cassette_cluster_set_durability.
 */
CASSETTE_EXPORT int cassette_cluster_set_prepared_cache_size(struct CassCluster_ *cluster,
                                                             uint64_t bytes);

/*
 * Compression of the frames a remote session exchanges with its nodes: "lz4"
 * or "snappy" (protocol v3 and v4; v5 compresses its segments with lz4 only,
 * so snappy leaves v5 uncompressed), "none" (the default). The same as the
 * option ?compression=NAME of a cql:// URI. Embedded sessions exchange no
 * frames: nothing changes.
 * @param[in] cluster The cluster.
 * @param[in] name The compression, NUL-terminated.
 * @return 0, or CASS_ERROR_LIB_BAD_PARAMS for a NULL cluster or an unknown name (the cluster
 *     is then unchanged).
 * Ownership: nothing changes hands.
 * Threads: one thread at a time per cluster.
 */
CASSETTE_EXPORT int cassette_cluster_set_compression(struct CassCluster_ *cluster,
                                                     const char *name);

/* ---- a connected session's database ---- */

/*
 * Switches the clock of the session's database to virtual time, at unix_us
 * microseconds since the Unix epoch. Everything that reads "now" follows it:
 * write timestamps the engine assigns, TTL expiry, now() and time UUIDs,
 * gc_grace. Client-side timestamp generators (cass_timestamp_gen_*) keep the
 * wall clock, as a client's would.
 * @param[in] session A session connected to an embedded database.
 * @param[in] unix_us The virtual time.
 * @return 0, CASS_ERROR_LIB_BAD_PARAMS or CASS_ERROR_LIB_NO_HOSTS_AVAILABLE.
 * Ownership: nothing changes hands.
 * Threads: any thread. The clock belongs to the database: every session of
 *     this process on the same directory sees it.
 */
CASSETTE_EXPORT int cassette_session_clock_set(struct CassSession_ *session, int64_t unix_us);

/*
 * Moves the virtual clock delta_us microseconds on (back when negative; the
 * engine's own write timestamps still never go back). On real time, switches
 * to virtual time at now + delta_us.
 * @param[in] session A session connected to an embedded database.
 * @param[in] delta_us Microseconds to add.
 * @return 0, CASS_ERROR_LIB_BAD_PARAMS or CASS_ERROR_LIB_NO_HOSTS_AVAILABLE.
 * Ownership: nothing changes hands.
 * Threads: any thread; shared by every session on the same database.
 */
CASSETTE_EXPORT int cassette_session_clock_advance(struct CassSession_ *session, int64_t delta_us);

/*
 * Switches the database's clock back to real time.
 * @param[in] session A session connected to an embedded database.
 * @return 0, CASS_ERROR_LIB_BAD_PARAMS or CASS_ERROR_LIB_NO_HOSTS_AVAILABLE.
 * Ownership: nothing changes hands.
 * Threads: any thread; shared by every session on the same database.
 */
CASSETTE_EXPORT int cassette_session_clock_real(struct CassSession_ *session);

/*
 * Empties every table of every keyspace, in one transaction; the schema
 * stays. For test isolation: cheaper than dropping and creating keyspaces.
 * @param[in] session A session connected to an embedded database.
 * @return 0, CASS_ERROR_LIB_BAD_PARAMS, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE or
 *     the engine's error.
 * Ownership: nothing changes hands.
 * Threads: any thread; concurrent statements see the tables before or after,
 *     never in between.
 */
CASSETTE_EXPORT int cassette_session_reset(struct CassSession_ *session);

/*
 * Writes a consistent copy of the database (one read snapshot, compacted)
 * into directory dir, created when missing; a session can then connect to
 * it with the contact point "file:DIR". Writes go on meanwhile.
 * @param[in] session A session connected to an embedded database.
 * @param[in] dir The target directory, NUL-terminated; it must not already
 *     hold a database.
 * @return 0, CASS_ERROR_LIB_BAD_PARAMS, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE or
 *     the engine's error (the directory cannot be created or written, a
 *     database is already there).
 * Ownership: dir is the caller's; the copy belongs to no session.
 * Threads: any thread.
 */
CASSETTE_EXPORT int cassette_session_snapshot(struct CassSession_ *session, const char *dir);

/* ---- checking a database ---- */

/*
 * Verifies the database in directory dir without changing it: the catalog,
 * and every key and value of every table (checksums bound to their keys,
 * keys in order, decodable, tokens matching, values valid for their types,
 * as many keys as LMDB counts). See docs/durability.md for what it finds
 * and what it cannot.
 * @param[in] dir The database directory, NUL-terminated; it must hold a database.
 * @param[out] report Receives a NUL-terminated description, one line per
 *     problem found, or why the check could not run ("" when all is well);
 *     truncated to report_size. May be NULL when report_size is 0.
 * @param[in] report_size Bytes available at report.
 * @return 0 when nothing is damaged; CASS_ERROR_SERVER_SERVER_ERROR when
 *     damage was found; CASS_ERROR_LIB_BAD_PARAMS for a NULL or empty dir;
 *     CASS_ERROR_LIB_UNABLE_TO_CONNECT when dir holds no database or cannot
 *     be opened.
 * Damage to LMDB's own page structure can make LMDB's code fault while the
 * check follows it (LMDB does not check its page numbers); to contain that,
 * run the check in a process of its own, as the shell's `cassette check
 * DIR` does.
 * Ownership: nothing changes hands. Threads: any; the database may be open
 *     and written meanwhile (the check reads one snapshot).
 */
CASSETTE_EXPORT int cassette_check(const char *dir, char *report, size_t report_size);

#ifdef __cplusplus
}
#endif

#endif
