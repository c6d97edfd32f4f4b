/*
 * The engine API: what the CQL layer (and the benchmarks) call. A database
 * is one directory holding one LMDB environment; on it the engine keeps
 * Cassandra's data model — a catalog of keyspaces, tables and types,
 * partitions of rows of cells with timestamps, TTLs and tombstones — and
 * offers mutations, reads (partition, slice, token range, paging),
 * compare-and-set, and purge.
 *
 * Threads: an eng_db is safe to use from any number of threads. Reads run
 * in parallel on consistent snapshots (one LMDB read transaction per call);
 * writes, conditional ones included, are serialized by LMDB's writer lock
 * across threads and processes. Several processes may open the same
 * directory; within one process, eng_db_open of the same directory returns
 * the same shared environment (LMDB forbids opening it twice).
 *
 * Every call that changes data either applies completely or not at all:
 * any error aborts the LMDB write transaction.
 */
#ifndef ENG_ENGINE_H
#define ENG_ENGINE_H

#include "engine/schema.h"
#include "engine/value/clock.h"
#include "engine/value/common.h"
#include "engine/value/types.h"
#include "engine/value/uuid.h"

typedef struct eng_db eng_db;

/* Durability of commits (docs/durability.md). */
enum eng_durability {
    ENG_DURABLE_SYNC = 0,       /* default: every commit is on disk when it returns */
    ENG_DURABLE_NOMETASYNC = 1, /* one sync per commit; power loss may undo the last commit */
    ENG_DURABLE_NONE = 2,       /* no sync (tests, benchmarks); power loss may corrupt */
    ENG_DURABLE_PERIODIC = 3,   /* data synced per commit, the meta page within sync_period_ms:
                                   power loss may undo that period's commits, never corrupts */
};

/* A durability by name ("sync", "nometasync", "periodic", "none"; any case), as the
   CASSETTE_DURABILITY variable gives it: 0 and *out set, or -1 for an unknown name. */
int eng_durability_parse(const char *name, int *out);

typedef struct eng_db_options {
    int durability;      /* enum eng_durability */
    size_t map_size;     /* initial LMDB map size in bytes (0: 256 MiB; at most 64 TiB); grows when full */
    unsigned max_tables; /* LMDB sub-database slots (0: 1024) */
    unsigned sync_period_ms; /* PERIODIC: longest a commit stays not fully synced (0: 1000) */
    int no_group_commit;     /* every write commits alone in its own thread (benchmarks) */
} eng_db_options;

/*
 * Opens (creating if needed) the database in directory `path`. Opening a
 * directory this process already has open returns the shared handle with
 * one more reference (its options are those of the first open).
 * Ownership: release with eng_db_close. Threads: any.
 */
int eng_db_open(const char *path, const eng_db_options *opts, eng_db **out, eng_err *err);
/*
 * Opens a new database in a fresh temporary directory, removed by the last
 * close: on /dev/shm (memory) when it has room, else in $TMPDIR or /tmp.
 * A file system with no room left is an ENG_E_IO saying the disk is full.
 */
int eng_db_open_temp(const eng_db_options *opts, eng_db **out, eng_err *err);
/* Drops one reference; the last one closes the environment. NULL is a no-op. */
void eng_db_close(eng_db *db);
const char *eng_db_path(const eng_db *db);

/*
 * One slot of per-database state for the layer above (the executor's
 * statement cache), as SQLite's client data: the first call makes it with
 * create(db) (NULL: not made, asked again next time); the last close of the
 * database frees it with release. Later calls return the same pointer, and
 * ignore create and release. Threads: any.
 */
void *eng_db_client_data(eng_db *db, void *(*create)(eng_db *db), void (*release)(void *));

/* The database's clock (real by default; tests switch it to virtual time). */
eng_clock *eng_db_clock(eng_db *db);
/* Time UUID generator of this database (for now(), list cell paths, ids). */
eng_uuidgen *eng_db_uuidgen(eng_db *db);

/*
 * The current schema snapshot, refreshed first if another process or thread
 * changed the schema. Ownership: the caller holds one reference and drops it
 * with eng_schema_unref. Threads: any.
 */
int eng_db_schema(eng_db *db, eng_schema **out, eng_err *err);
/*
 * 1 when s is known, without a transaction, to be the current snapshot: the
 * calling thread last found it current and nothing has been committed since.
 * 0 says only "not known" (eng_db_schema decides). No reference is taken:
 * the caller holds s. Threads: any; takes no lock another thread takes.
 */
int eng_db_schema_known(eng_db *db, const eng_schema *s);

/* ---- schema changes (each one write transaction; see catalog.h for rules) ---- */

int eng_create_keyspace(eng_db *db, const char *ks, const eng_option *repl, uint32_t n_repl,
                        int durable_writes, int if_not_exists, int *changed, eng_err *err);
int eng_alter_keyspace(eng_db *db, const char *ks, const eng_option *repl, uint32_t n_repl,
                       int durable_writes, int if_exists, int *changed, eng_err *err);
int eng_drop_keyspace(eng_db *db, const char *ks, int if_exists, int *changed, eng_err *err);
int eng_create_table(eng_db *db, const eng_table_def *def, int if_not_exists, int *changed,
                     eng_err *err);
int eng_drop_table(eng_db *db, const char *ks, const char *name, int if_exists, int *changed,
                   eng_err *err);
int eng_alter_table_add(eng_db *db, const char *ks, const char *table, const eng_column_def *cols,
                        uint32_t n, int if_not_exists, int *changed, eng_err *err);
int eng_alter_table_drop(eng_db *db, const char *ks, const char *table, const char *const *names,
                         uint32_t n, int if_exists, int *changed, eng_err *err);
int eng_alter_table_rename(eng_db *db, const char *ks, const char *table, const char *from,
                           const char *to, int if_exists, int *changed, eng_err *err);
int eng_alter_table_options(eng_db *db, const char *ks, const char *table,
                            const eng_option *opts, uint32_t n, int if_exists, int *changed,
                            eng_err *err);
int eng_create_type(eng_db *db, const char *ks, const char *name, const char *const *fields,
                    const eng_type *const *types, uint32_t n, int if_not_exists, int *changed,
                    eng_err *err);
int eng_drop_type(eng_db *db, const char *ks, const char *name, int if_exists, int *changed,
                  eng_err *err);
int eng_alter_type_add(eng_db *db, const char *ks, const char *name, const char *field,
                       const eng_type *type, int if_exists, int *changed, eng_err *err);
int eng_alter_type_rename(eng_db *db, const char *ks, const char *name, const char *from,
                          const char *to, int if_exists, int *changed, eng_err *err);
/* TRUNCATE: empties the table (one mdb_drop). */
int eng_truncate(eng_db *db, const char *ks, const char *table, eng_err *err);
/* Empties every table of every keyspace in one transaction (test isolation). */
int eng_reset(eng_db *db, eng_err *err);

/* ---- mutations ---- */

/* What one operation does to one column of one row (facts §4.4, §4.5, §6). */
enum eng_op_kind {
    ENG_OP_SET = 1,       /* column := value; value ENG_NULL writes a tombstone. For a
                             non-frozen collection or UDT: overwrite (complex deletion at ts-1,
                             then the elements / fields of value at ts) */
    ENG_OP_DELETE,        /* DELETE col: cell tombstone, or complex deletion at ts */
    ENG_OP_ELEM_SET,      /* m[key] = value, udt.field = value (key = be16 field index),
                             l[key] = value (key = int32 index, needs the list); value ENG_NULL
                             deletes the element */
    ENG_OP_ELEM_DELETE,   /* DELETE m[key] / l[key] / udt.field */
    ENG_OP_ADD,           /* s = s + {...} (value: a set), m = m + {...} (value: a map) */
    ENG_OP_REMOVE,        /* s = s - {...}, m = m - {keys} (value: a set of keys) */
    ENG_OP_APPEND,        /* l = l + [...] (value: a list) */
    ENG_OP_PREPEND,       /* l = [...] + l */
    ENG_OP_LIST_REMOVE,   /* l = l - [...]: removes every occurrence */
    ENG_OP_COUNTER_ADD,   /* c = c + delta (value: 8-byte bigint delta) */
};

typedef struct eng_cell_op {
    uint16_t col;  /* index into table->cols */
    uint8_t kind;  /* enum eng_op_kind */
    eng_val key;   /* element key / index / field, where the kind takes one */
    eng_val value; /* native bytes; ENG_UNSET makes the operation a no-op */
} eng_cell_op;

/* Writes to one row: a clustering row (ck has table->n_ck values) or the static row. */
typedef struct eng_row_mut {
    const eng_val *ck;    /* clustering values; NULL for the static row */
    uint8_t insert_marker;/* INSERT: write the row marker (facts §4.3) */
    uint8_t delete_row;   /* row deletion (before the ops of this same mutation) */
    uint32_t n_ops;
    const eng_cell_op *ops;
} eng_row_mut;

/* A clustering prefix bound in clustering order; n = 0 means unbounded. */
typedef struct eng_bound {
    const eng_val *vals;
    uint16_t n;
    uint8_t inclusive;
} eng_bound;

typedef struct eng_slice {
    eng_bound start, end; /* in the table's clustering order (not storage order) */
} eng_slice;

typedef struct eng_mutation {
    const eng_table *table;
    const eng_val *pk;       /* table->n_pk partition key values */
    int64_t ts_us;           /* USING TIMESTAMP; ENG_TS_NONE: the engine's write timestamp */
    int32_t ttl_s;           /* USING TTL; -1: the table's default_time_to_live; 0: none */
    uint8_t delete_partition;
    uint32_t n_range_dels;
    const eng_slice *range_dels; /* range tombstones (DELETE with a clustering prefix or slice) */
    uint32_t n_rows;
    const eng_row_mut *rows;
    int64_t now_s;           /* the time (s) TTLs count from and deletions are stamped with;
                                0: the database's clock (v5's now_in_seconds sets it) */
} eng_mutation;

typedef struct eng_write_info {
    int64_t ts_us; /* the write timestamp the engine used (when none was given) */
} eng_write_info;

/*
 * Applies mutations atomically in one write transaction (a batch). The
 * statements share one write timestamp unless they carry their own
 * (facts §4.8). Values must be valid for their columns (the CQL layer
 * validates; the engine checks key sizes and collection framing). The
 * tables must come from a snapshot of this database. Threads: any.
 */
int eng_apply(eng_db *db, const eng_mutation *muts, uint32_t n, eng_write_info *info,
              eng_err *err);

/*
 * eng_apply without waiting: the write joins the next group commit and
 * done(rc, err, info, arg) runs exactly once when its transaction is durable
 * (info NULL when rc != 0) — in the database's committer thread, or before
 * this call returns when the database has none (durability NONE; see
 * eng_db_group_commit). The mutations and their values are copied: the
 * caller's memory is free on return. `schema` is the snapshot the tables come
 * from (a reference is held until done). Writes queued by one thread apply in
 * the order queued. Returns 0 once queued (or done), else an error and done
 * is never called. done must not wait for another write of this database.
 */
typedef void (*eng_apply_done)(int rc, const eng_err *err, const eng_write_info *info, void *arg);
int eng_apply_async(eng_db *db, eng_schema *schema, const eng_mutation *muts, uint32_t n,
                    eng_apply_done done, void *arg, eng_err *err);

/* 1 when writes of db share group commits (durability other than NONE): only then can an
   eng_apply_async complete after it returns. */
int eng_db_group_commit(const eng_db *db);

/* Group commits so far in this process: write transactions committed by the committer and the
   writes (jobs) they carried. Both 0 without group commit. Threads: any. */
typedef struct eng_commit_stats {
    uint64_t groups;
    uint64_t jobs;
} eng_commit_stats;
void eng_db_commit_stats(eng_db *db, eng_commit_stats *out);

/* ---- the size of a mutation ---- */

/* Cassandra's max_mutation_size at its default: half of the 32 MiB commitlog_segment_size. */
#define ENG_MAX_MUTATION_SIZE 16777216

/*
 * Refuses a write Cassandra would refuse for the size of one of its mutations
 * (Mutation.validateSize, called as the coordinator builds them): muts, a
 * statement's or a batch's, are grouped as Cassandra groups them -- one
 * mutation per keyspace and partition key, whatever the tables -- and each is
 * measured as Cassandra serializes it for its commit log, plus the log entry's
 * 12-byte header (engine/store/mutation_size.c says how, docs/compat.md where
 * the count is approximate). now_us stands for the write timestamp of the
 * mutations without one and gives the local deletion time; counter_extra is
 * what a counter mutation adds (2 + the length of its consistency level's
 * name). The write paths do not call it: the CQL layer does, before applying
 * anything. Threads: any.
 * @return 0; ENG_E_INVALID "Rejected an oversized mutation (<size>/16777216)
 *         for keyspace: <ks>. Top keys are: <table>.<key>, ..." for the first
 *         mutation over the limit; ENG_E_NOMEM.
 */
int eng_check_mutation_size(const eng_mutation *muts, uint32_t n, int64_t now_us,
                            uint32_t counter_extra, eng_err *err);

/* ---- reads ---- */

/*
 * Virtual tables: tables whose rows a provider computes at read time (the
 * system tables) instead of the store keeping them. eng_read reads them
 * with every rule a stored table's rows follow -- partitions in token
 * order, rows in clustering order, slices, limits, DISTINCT, static rows,
 * paging -- so their readers need no second implementation of those.
 */
typedef struct eng_vsink eng_vsink;

/*
 * For a provider: one row of the table being read. values[i] is the value of
 * t->cols[i] (native bytes; ENG_NULL: no cell); the key columns' values must
 * be there. The row reads back exactly as if an INSERT of every non-null
 * column at timestamp ts_us had stored it (non-frozen collections as cells).
 * Rows may come in any order; a key given twice is ENG_E_SERVER.
 * @return 0, ENG_E_NOMEM, ENG_E_INVALID (a key the store refuses), ENG_E_SERVER.
 */
int eng_vsink_row(eng_vsink *sink, const eng_val *values, int64_t ts_us, eng_err *err);

/* A provider: calls eng_vsink_row once per row of t; returns 0 or an error it reported. */
typedef int (*eng_vtable_fill)(void *ctx, const eng_table *t, eng_vsink *sink, eng_err *err);

typedef struct eng_query {
    const eng_table *table;
    /* Partitions: n_keys > 0 reads those (each table->n_pk values, read in the order given);
       otherwise a token range scan in token order. */
    uint32_t n_keys;
    const eng_val *const *keys;
    int64_t token_lo, token_hi; /* range scan bounds (ENG_TOKEN_MIN/MAX for a full scan) */
    uint8_t token_lo_incl, token_hi_incl;
    /* Clustering slices in clustering order, sorted and non-overlapping; none = all rows. */
    uint32_t n_slices;
    const eng_slice *slices;
    uint8_t reversed;       /* return rows in reverse clustering order */
    uint8_t distinct;       /* one row per partition with live data: key and statics only */
    uint8_t static_rows;    /* a partition with live statics and no selected rows yields one row
                               with null clustering values (facts §7.1) */
    uint32_t limit;         /* rows in all (0 = no limit) */
    uint8_t limit_ends;     /* the limit ends the query (a LIMIT, not a page): reaching it
                               stops the read without looking for a row past it, so has_more
                               stays 0 */
    uint32_t per_partition_limit; /* rows per partition (0 = no limit) */
    const uint8_t *resume;  /* paging: continue strictly after this position (from eng_read_info) */
    size_t resume_len;
    /* Projection: with n_project > 0 the callback is not called; each row returned appends
       the values of table columns project[0..n_project) to project_out, each as a be32
       length (-1 for null) and its bytes (a CQL result's rows). Rows in their common stored
       form are then read without being decoded in full. */
    const uint16_t *project;
    uint16_t n_project;
    eng_buf *project_out;
    uint8_t project_full; /* decode every row and clustering key in full anyway (tests compare
                             both ways) */
    eng_vtable_fill vtable; /* a virtual table: its provider (table's storage unused), or NULL */
    void *vtable_ctx;       /* the provider's ctx */
    int64_t now_s;          /* the time (s) TTLs are judged at; 0: the database's clock */
} eng_query;

/* Clustering values decoded on first use, stored rows and deletions: private to the store. */
typedef struct eng_ck_lazy eng_ck_lazy;
typedef struct eng_row eng_row;
typedef struct eng_deletion eng_deletion;

/* A row handed to the read callback; valid only during the callback. */
typedef struct eng_row_view {
    const eng_table *table;
    const eng_val *pk;        /* partition key values (n_pk) */
    const eng_val *ck;        /* clustering values (n_ck), or NULL while not yet decoded:
                                 read them with eng_view_column / eng_view_clustering */
    eng_ck_lazy *ck_lazy;     /* where they are decoded from, when ck is NULL */
    const eng_row *row;       /* the regular row (opaque), NULL for a static-only row */
    const eng_row *static_row;/* the static row (opaque), NULL if none */
    const eng_deletion *covering;        /* partition deletion / range tombstone over the row */
    const eng_deletion *static_covering; /* the partition deletion */
    int64_t now_s;
    eng_arena *arena;         /* assembled collection values live here until the callback returns */
} eng_row_view;

/*
 * The clustering values of a row view (n_ck of them; all ENG_NULL for a
 * static-only row), decoded from the stored key on first use. Views into
 * memory valid during the callback.
 */
int eng_view_clustering(const eng_row_view *v, const eng_val **ck, eng_err *err);

/*
 * The live value of a column in a row view: *value is a view (native bytes,
 * ENG_NULL when there is none) valid during the callback; writetime and ttl
 * (may be NULL) get the cell's timestamp and remaining TTL in seconds
 * (ENG_TS_NONE / 0 when not applicable; for a non-frozen collection the
 * writetime is not defined and ENG_TS_NONE is returned).
 */
int eng_view_column(const eng_row_view *v, uint16_t col, eng_val *value, int64_t *writetime,
                    int32_t *ttl_s, eng_err *err);

/* Callback per returned row: 0 continues, 1 stops after the row (the page is full), 2 stops
   before it (the page was full already: the row is not counted and the resume position is the
   row before, so the next page starts with it; never for the first row of a read), < 0 aborts
   with that error. */
typedef int (*eng_row_cb)(void *ctx, const eng_row_view *row);

typedef struct eng_read_info {
    uint32_t rows;        /* rows handed to the callback */
    uint8_t has_more;     /* stopped by a limit or the callback while more rows remain */
    eng_buf resume;       /* position to resume after (when has_more); caller frees */
} eng_read_info;

int eng_read(eng_db *db, const eng_query *q, eng_row_cb cb, void *ctx, eng_read_info *info,
             eng_err *err);
void eng_read_info_free(eng_read_info *info);

/* ---- compare-and-set (lightweight transactions) ---- */

enum eng_cmp_op { ENG_CMP_EQ = 1, ENG_CMP_NE, ENG_CMP_LT, ENG_CMP_LE, ENG_CMP_GT, ENG_CMP_GE,
                  ENG_CMP_IN, ENG_CMP_CONTAINS, ENG_CMP_CONTAINS_KEY };

typedef struct eng_condition {
    uint16_t col;          /* index into table->cols (never a key column) */
    uint8_t op;            /* enum eng_cmp_op */
    uint8_t elem;          /* 1: on an element: key = map key, list index (int32), udt field (be16) */
    eng_val key;
    uint32_t n_values;     /* 1, or the IN list */
    const eng_val *values;
} eng_condition;

/* The conditions on one row (ck NULL: the static row / partition level). */
typedef struct eng_cas_row {
    const eng_val *ck;
    uint8_t if_exists;
    uint8_t if_not_exists;
    uint32_t n_conds;
    const eng_condition *conds;
} eng_cas_row;

typedef struct eng_cas {
    const eng_table *table;
    const eng_val *pk;
    uint32_t n_rows;
    const eng_cas_row *rows;     /* the rows the conditions look at */
    uint32_t n_muts;
    const eng_mutation *muts;    /* the writes, all in this partition, applied only if all hold */
    int64_t now_s;               /* the time (s) the conditions read at; 0: the clock */
} eng_cas;

/*
 * Reads the current state of the named rows, evaluates every condition,
 * and applies the mutations if all hold — in one write transaction, so
 * conditional writes are linearizable across threads and processes. The
 * writes take a fresh timestamp T (cells and markers at T, deletions at
 * T-1, facts §5.5); custom timestamps are refused. When not applied, `cb`
 * (if not NULL) receives the current rows read (each targeted row that
 * exists, in clustering order; or the static row) so the caller can shape
 * Cassandra's result (facts §5.3).
 */
int eng_cas_apply(eng_db *db, const eng_cas *cas, int *applied, eng_row_cb cb, void *ctx,
                  eng_err *err);

/* ---- maintenance ---- */

typedef struct eng_purge_stats {
    uint64_t rows_seen;
    uint64_t rows_rewritten;
    uint64_t rows_removed;
} eng_purge_stats;

/*
 * Compacts stored data (facts §4.7): expired cells become tombstones,
 * tombstones older than the table's gc_grace_seconds disappear with the
 * data they shadowed. table NULL: every table.
 */
int eng_purge(eng_db *db, const eng_table *table, eng_purge_stats *stats, eng_err *err);

/*
 * Writes a consistent copy of the database into directory `dir` (created when
 * missing): one read snapshot, compacted (free pages left out), so writers
 * go on meanwhile. The copy is a complete database for eng_db_open. Fails
 * with ENG_E_IO when dir cannot be created or written or already holds a
 * database. Implemented in snapshot.c. Threads: any.
 */
int eng_db_snapshot(eng_db *db, const char *dir, eng_err *err);

/*
 * Verifies every stored record of db in one read snapshot: the catalog, and
 * each table's keys (order, partition prefix and token, decoded values) and
 * values (checksum bound to the key, full decode, cell values valid for
 * their types), and the number of keys LMDB counts (check.c). Appends one
 * line per problem to report. 0 when nothing is damaged, ENG_E_CORRUPT when
 * something is, ENG_E_NOMEM. LMDB's own code may fault on damage to its page
 * structure: run it in a separate process to contain that. Threads: any.
 */
int eng_db_check(eng_db *db, eng_buf *report, eng_err *err);

/* Largest encoded key LMDB accepts (its compile-time maximum key size). */
#define ENG_MAX_KEY 511

#endif
