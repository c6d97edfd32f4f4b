/*
 * Private to the store's modules: the database handle (db.c), the
 * transaction discipline (txn.c), group commit and the write entry points
 * (commit.c), LMDB's errors (lmdb_err.c), and what writes, reads, CAS,
 * purge, schema changes and snapshots share.
 *
 * Every operation runs as one LMDB transaction begun and ended through the
 * helpers below, which hold the process's resize lock shared, so that the
 * map can be grown (exclusive) between transactions when LMDB reports it
 * full, and which refresh the schema snapshot when the stored version moved.
 */
#ifndef ENG_STORE_INT_H
#define ENG_STORE_INT_H

#include <lmdb.h>
#include <pthread.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "engine/store/catalog.h"
#include "engine/store/row.h"

/* Reset read transactions, and idle read and write states, each thread's shard keeps ready. */
#define ENG_SHARD_POOL 8

/*
 * What a thread's statements take without a lock any other thread takes
 * (eng_thread_shard): its shard of the resize lock, its pools, and the read
 * snapshot it last found to hold a schema snapshot. With up to ENG_SHARDS
 * threads, a read shares no lock and no written cache line with another.
 */
typedef struct eng_shard {
    pthread_rwlock_t resize;      /* this shard of the resize lock (eng_resize_shared) */
    pthread_mutex_t lock;         /* guards what follows */
    MDB_txn *txns[ENG_SHARD_POOL]; /* reset read transactions ready to renew */
    int n_txns;
    struct reader *readers[ENG_SHARD_POOL]; /* idle read states (read.c), with their memory */
    int n_readers;
    struct writer *writers[ENG_SHARD_POOL]; /* idle write states (write.c), with their memory */
    int n_writers;
    eng_schema *schema;           /* a reference: the schema read snapshot checked_txnid holds */
    uint64_t checked_txnid;       /* meaningful while `schema` is set */
} eng_shard;

/* A shard padded to whole cache lines, with a line to spare since the handle is only
   malloc-aligned: two shards' fields never share a line. */
typedef union eng_shard_slot {
    eng_shard s;
    char pad[(sizeof(eng_shard) / ENG_CACHE_LINE + 2) * ENG_CACHE_LINE];
} eng_shard_slot;

typedef struct eng_committer eng_committer; /* commit.c */

struct eng_db {
    struct eng_db *next;       /* registry of open databases (same directory = same handle) */
    int refs;                  /* registry references, under the registry mutex */
    pid_t pid;                 /* process that opened it: a forked child must open its own */
    char *path;
    dev_t dev;
    ino_t ino;
    int temporary;             /* remove the directory on the last close */
    int durability;
    MDB_env *env;
    MDB_dbi meta;
    size_t map_size;
    eng_clock clock;
    eng_uuidgen uuidgen;
    /* The resize lock is sharded (eng_shard.resize): shared by every transaction on
       its thread's shard, exclusive (every shard) to grow the map. */
    eng_shard_slot shards[ENG_SHARDS];
    pthread_mutex_t schema_lock;  /* guards `schema` swaps and mdb_dbi_open */
    eng_schema *schema;           /* newest snapshot this process loaded */
    /* Write timestamps and the stored state a write starts from, under schema_lock. LMDB
       numbers committed write transactions one by one, so a write transaction whose id
       follows this process's last commit (wrote_txnid), or a read snapshot of it, starts from
       what that commit left: the schema version it ran with and the timestamp mark it stored;
       it reads neither from the catalog. */
    int64_t last_ts;              /* the newest write timestamp this process handed out */
    uint64_t wrote_txnid;         /* 0: unknown */
    uint64_t wrote_version;
    int64_t wrote_reserved;       /* the mark "h" stored (eng_next_timestamp) */
    uint64_t txn_hwm_id;          /* the write transaction that took a timestamp (0: none in
                                     the current one), and the mark it knows is stored */
    int64_t txn_reserved;
    uint64_t txn_dirty_id;        /* the write transaction that changed the database */
    eng_committer *committer;     /* group commit (commit.c); NULL with durability NONE */
    pthread_mutex_t client_lock;  /* guards the client data slot */
    void *client_data;            /* the layer above's per-database state (eng_db_client_data) */
    void (*client_destroy)(void *);
    /* data.mdb's map (mapview.c): set after each (re)map with the resize lock exclusive or
       before the database is shared; map_lo NULL when unknown */
    const uint8_t *map_lo;
    size_t map_len;
    _Atomic uint64_t file_len;    /* data.mdb's size when last measured */
};

/* What a write transaction leaves behind for the next one (eng_db.wrote_*): taken while it
   is still open, since the next may begin as soon as it commits. */
typedef struct eng_write_state {
    uint64_t id;
    uint64_t version;   /* the schema version it ran with */
    int dirty;          /* it changed the database, so its commit takes the id */
    int took;           /* it took a write timestamp, knowing the stored mark: */
    int64_t reserved;
} eng_write_state;

/* Notes that the write transaction txn changed the database (eng_write_state.dirty). */
void eng_txn_dirty(eng_db *db, MDB_txn *txn);

void eng_write_state_take(eng_db *db, MDB_txn *txn, uint64_t version, eng_write_state *st);
/* Records st once its transaction committed (eng_db.wrote_*). */
void eng_note_commit(eng_db *db, const eng_write_state *st);

/* Finds data.mdb's map after LMDB (re)mapped it (mapview.c). */
void eng_map_locate(eng_db *db);
/*
 * 1 if [p, p + len), handed back by LMDB in a transaction of db, lies in
 * data.mdb's mapped bytes (or, for a write transaction, off the map: its
 * own dirty pages); 0 if reading it would run past the file or off the map.
 * The caller holds the resize lock (any transaction does).
 */
int eng_map_holds(eng_db *db, const void *p, size_t len, int readonly);
/* The mapped bytes of the file as last measured, [*lo, *end), for a fast first check before
   eng_map_holds (which measures again); the caller holds the resize lock. */
void eng_map_bounds(eng_db *db, const uint8_t **lo, const uint8_t **end);
/* eng_map_holds for code that has a transaction but not its database (the catalog): the
   database is the environment's user context, and off-map bytes are let through. */
int eng_map_holds_txn(MDB_txn *txn, const void *p, size_t len);
/* 0 when a key and value of t that LMDB handed back in txn lie in the file; else ENG_E_CORRUPT. */
int eng_stored_bounds(MDB_txn *txn, const eng_table *t, const MDB_val *k, const MDB_val *v,
                      eng_err *err);

/* Checks data.mdb's two meta pages (mapview.c): ENG_E_CORRUPT when their transaction ids or
   page numbers cannot be LMDB's. Call it where no other process commits (in a write txn). */
int eng_meta_pages_check(eng_db *db, eng_err *err);

/* Maps an LMDB return code to an engine error with a message naming `what` (lmdb_err.c). */
int eng_lmdb_err(eng_err *err, int rc, const char *what);
/* eng_lmdb_err for a failed commit of db: a short write on a full disk says the disk is full. */
int eng_lmdb_write_err(const eng_db *db, eng_err *err, int rc, const char *what);

/* mdb_txn_begin that adopts a map another process grew (txn.c); the caller holds the resize
   lock shared. Returns an LMDB code. */
int eng_txn_begin(eng_db *db, unsigned flags, MDB_txn **txn);
/* Loads the newest stored schema into db->schema and opens its tables' sub-databases (txn.c). */
int eng_db_reload_schema(eng_db *db, eng_err *err);

/* Frees the pooled read states (at close, before the environment goes). */
void eng_read_pool_free(eng_db *db);
/* Frees the idle write states of every shard (the database is closing). */
void eng_write_pool_free(eng_db *db);

/*
 * The resize lock: shared on the calling thread's shard around every
 * transaction (released by the same thread), exclusive on every shard, in
 * order, to remap. Exclusive is taken with no transaction of the thread open.
 */
void eng_resize_shared(eng_db *db);
void eng_resize_shared_end(eng_db *db);
void eng_resize_exclusive(eng_db *db);
void eng_resize_exclusive_end(eng_db *db);
int eng_shards_init(eng_db *db);
void eng_shards_free(eng_db *db);

/* Read transaction (from the thread's shard's pool); end it with eng_read_end on the same
   thread. */
int eng_read_begin(eng_db *db, MDB_txn **txn, eng_err *err);
void eng_read_end(eng_db *db, MDB_txn *txn);
/* Ends a read transaction in an unknown state (after a fault in LMDB): aborted, not pooled. */
void eng_read_abandon(eng_db *db, MDB_txn *txn);

/*
 * Runs body(db, txn, cur, ctx, err) in a write transaction and commits;
 * cur is the schema snapshot current in txn. Retries the whole body on a
 * fresh transaction when the map was full (after growing it) or the schema
 * had to be reloaded. body must be restartable: everything it does is
 * inside txn.
 */
typedef int (*eng_write_body)(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *ctx,
                              eng_err *err);
int eng_write_txn(eng_db *db, eng_write_body body, void *ctx, eng_err *err);
/* The same for a body that opens or drops sub-databases (schema changes): it never shares its
   transaction with other writes, since LMDB allows that only at the top level. */
int eng_write_txn_exclusive(eng_db *db, eng_write_body body, void *ctx, eng_err *err);

/* Begins a top-level write transaction, adopting a map another process grew. The caller holds
   the resize lock shared. Returns an LMDB code. */
int eng_write_begin(eng_db *db, MDB_txn **txn);
/* Doubles the map; the calling thread has no transaction open. */
int eng_grow_map(eng_db *db, eng_err *err);

/*
 * Group commit (commit.c). A job is one write transaction's body waiting for
 * the committer: eng_write_txn queues one on the caller's stack and waits;
 * an asynchronous job lives on the heap and its `complete` runs in the
 * committer thread once the group is durable (it must free the job).
 */
typedef struct eng_job eng_job;
struct eng_job {
    eng_write_body body;
    void *ctx;
    int exclusive;                   /* run alone at the top level (schema changes) */
    void (*complete)(eng_job *job);  /* asynchronous jobs; NULL for a waited-for one */
    int rc;                          /* the outcome, set before completion */
    eng_err err;
    int finished;                    /* waited-for jobs: set under the committer's lock */
    int left_out;                    /* failed alone in an earlier run of its group */
    eng_job *next;
};

/* Starts the committer of db (period_ms > 0: PERIODIC's meta-page sync period). */
int eng_committer_start(eng_db *db, uint64_t period_ms, eng_err *err);
/* Completes every queued job, then stops the thread. */
void eng_committer_stop(eng_db *db);
/* 1 in db's committer thread. */
int eng_in_committer(const eng_db *db);
void eng_committer_queue(eng_db *db, eng_job *job);
/* Waits until a queued waited-for job is finished. */
void eng_committer_wait(eng_db *db, eng_job *job);

/*
 * The current snapshot, checked against the version stored in txn (a
 * read-only one when `readonly`: those are checked once per snapshot); reloads
 * it when stale. Returns a new reference in *out. If the reload opened new
 * sub-databases, txn (which began before) cannot see them: *stale is then
 * set and the caller must restart its transaction.
 */
int eng_db_schema_in(eng_db *db, MDB_txn *txn, int readonly, eng_schema **out, int *stale,
                     eng_err *err);
/*
 * eng_db_schema_in for a read transaction whose caller keeps a reference
 * from one transaction to the next (a pooled reader): *held (a reference, or
 * NULL) is replaced only when txn's schema is another, so a stream of reads
 * on one schema moves no reference count. On stale, *held is unchanged.
 */
int eng_db_schema_hold(eng_db *db, MDB_txn *txn, eng_schema **held, int *stale, eng_err *err);

/*
 * Resolves a caller's table against the current snapshot: the same table
 * (by id) or ENG_E_INVALID "table NAME does not exist" (Schema.validateTable).
 */
int eng_resolve_table(const eng_schema *cur, const eng_table *t, const eng_table **out,
                      eng_err *err);

/* Next server write timestamp: max(now, high-water mark + 1), stored back (facts §9). */
int eng_next_timestamp(eng_db *db, MDB_txn *txn, int64_t *ts_us, eng_err *err);

/*
 * Applies mutations inside txn (write.c). ts is the server timestamp for
 * mutations without their own; cas = 1 stamps deletions at ts - 1 (facts §5.5).
 */
/*
 * The storage key and row value an INSERT of rm into an empty partition of t would store at
 * ts_us, appended to key and val (write.c, for virtual tables). No transaction.
 */
int eng_write_encode_row(eng_db *db, const eng_table *t, const eng_val *pk, const eng_row_mut *rm,
                         int64_t ts_us, eng_buf *key, eng_buf *val, eng_err *err);

/*
 * A virtual table's rows in storage form, sorted by key (virtual.c): what a read walks instead
 * of the table's sub-database. Row i's key is pairs[2i], its value pairs[2i + 1], both pointing
 * into `data`.
 */
typedef struct eng_vrows {
    size_t n;
    MDB_val *pairs;
    eng_buf data;
} eng_vrows;
/* Runs q->vtable's provider and builds its rows (free with eng_vrows_free, also on failure). */
int eng_vrows_build(eng_db *db, const eng_query *q, eng_vrows *out, eng_err *err);
void eng_vrows_free(eng_vrows *rows);

/*
 * A row the write transaction has already read (a condition's row), handed to
 * eng_write_in_txn so that the write does not look it up again: its storage key and the
 * stored row (found 0: there is none). Only the writes before the first change to storage
 * take it: a decoded row points into its page, which a put may change in place when this
 * transaction has changed the page already; later writes look rows up.
 */
typedef struct eng_known_row {
    const uint8_t *key;
    size_t key_len;
    const eng_row *row;
    int found;
} eng_known_row;

/* Applies muts in txn at ts (cas: deletions at ts - 1, as conditional updates do); known (may
   be NULL) are rows txn has read already. */
int eng_write_in_txn(eng_db *db, MDB_txn *txn, const eng_schema *cur, const eng_mutation *muts,
                     uint32_t n, int64_t ts, int cas, const eng_known_row *known,
                     uint32_t n_known, eng_err *err);

/*
 * Live data of a stored row as reads see it (read.c): a live marker or a
 * live cell of a column that still exists, after `covering` and the row's
 * own deletions.
 */
int eng_row_live(const eng_table *t, const eng_row *row, const eng_deletion *covering,
                 int64_t now_s);

#endif
