/*
 * The durability benchmark: how fast durable writes go when they share
 * syncs (group commit), and how fast conditional writes go when nothing is
 * synced, through the driver API (include/cassandra.h + include/cassette.h)
 * on "file:DIR" databases, beside SQLite doing the same writes in the same
 * run.
 *
 * One sync costs ~115-200 µs on the machines cassette is measured on, so a
 * write that commits and syncs alone cannot exceed ~5-8k/s on any engine;
 * what this program measures is how well writes share syncs:
 *  - durable writes (a chat message, ~100-byte body, prepared statement
 *    bound per write) with 1, 2, 8 and 32 writer threads, each executing and
 *    waiting on its own future, and with one thread pipelining 1, 10 and 100
 *    futures (keeping that many in flight, waiting on the oldest); each with
 *    group commit on and off (cassette_cluster_set_group_commit), for the
 *    durabilities SYNC and NOMETASYNC;
 *  - SQLite (WAL, synchronous=FULL, one autocommit INSERT per row of the
 *    same content, a prepared statement per connection, one connection per
 *    thread with a busy timeout) with the same thread counts; it has no
 *    pipelining, so pipelined figures compare with its 1-thread figure;
 *  - conditional writes with durability NONE: INSERT ... IF NOT EXISTS of
 *    new keys, and compare-and-set UPDATE ... IF v = ? over keys cycling
 *    through values, with 1 and 2 threads (disjoint keys: every one applies),
 *    in wall time and per CPU-second (CLOCK_PROCESS_CPUTIME_ID);
 *  - the cost of one sync on the same file system (4 KiB pwrite +
 *    fdatasync), measured in every round, since the targets are relative to
 *    it.
 *
 * Targets (reported, never asserted): durable writes with 32 writers or 100
 * pipelined futures at least 50,000 rows/s, at least 10x one sync per write
 * and at least 5x SQLite; conditional writes at least 100,000/s on one core
 * with durability none. The exit status is non-zero only when a call fails
 * or a result is wrong: every write's future is checked, every conditional
 * write must apply, and at the end each database holds exactly the rows
 * written (count(*)) and every compare-and-set key the value it was last set
 * to.
 *
 * Every figure is the median of 3 rounds of a fixed duration (1 s, --quick
 * 0.02 s); within a round every configuration runs once, in turn, so that
 * the machine's noise (it is shared with builds) falls on all of them alike.
 * A round counts the writes completed (future set, or SQLite's step done)
 * between its start and its deadline; the writes still in flight then
 * finish untimed, and are checked like the others. The process's CPU time
 * over the same interval gives the CPU cost per write, the committer
 * thread's included.
 */
#include <cassandra.h>
#include <cassette.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "durability_bench"
#include "bench/bench.h"

#define ROUNDS 3
#define N_ROOMS 100
#define N_TEXTS 64 /* distinct authors and bodies, cycled */
#define MAX_THREADS 32
#define MAX_DEPTH 100
#define COND_SLOTS 2                 /* conditional writers: each its own keys */
#define CAS_KEYS 1000                /* compare-and-set keys per writer */
#define SYNC_BLOCKS 64               /* the sync probe rewrites 64 blocks of 4 KiB in turn */
#define MAP_SIZE (UINT64_C(4) << 30) /* no map growth inside a timed round */
#define TARGET_ROWS 50000.0
#define TARGET_X_SYNC 10.0
#define TARGET_X_SQLITE 5.0
#define TARGET_COND 100000.0

static const char *const SCHEMA_MESSAGES[] = {
    "CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE chat.messages (room text, id timeuuid, author text, body text, "
    "PRIMARY KEY (room, id))",
};
static const char INSERT_MSG[] =
    "INSERT INTO chat.messages (room, id, author, body) VALUES (?, ?, ?, ?)";
static const char COUNT_MSGS[] = "SELECT count(*) FROM chat.messages";

static const char *const SCHEMA_COND[] = {
    "CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE chat.users (login text PRIMARY KEY, password text, name text)",
    "CREATE TABLE chat.kv (k text PRIMARY KEY, v bigint)",
};
static const char INSERT_USER_IF[] =
    "INSERT INTO chat.users (login, password, name) VALUES (?, ?, ?) IF NOT EXISTS";
static const char UPDATE_KV_IF[] = "UPDATE chat.kv SET v = ? WHERE k = ? IF v = ?";
static const char INSERT_KV[] = "INSERT INTO chat.kv (k, v) VALUES (?, ?)";
static const char SELECT_KV[] = "SELECT v FROM chat.kv WHERE k = ?";
static const char COUNT_USERS[] = "SELECT count(*) FROM chat.users";

static const char SQ_SCHEMA[] =
    "CREATE TABLE messages (room TEXT, id BLOB, author TEXT, body TEXT, "
    "PRIMARY KEY (room, id)) WITHOUT ROWID";
static const char SQ_INSERT[] = "INSERT INTO messages (room, id, author, body) VALUES (?, ?, ?, ?)";

/* ---- failures: the only non-zero exits (with bench.h's) ---- */

static void die_sqlite(const char *what, sqlite3 *db)
{
    bench_die("SQLite error in %s: %s", what, db ? sqlite3_errmsg(db) : "cannot open");
}

static void die_count(const char *what, long got, long want)
{
    bench_die("%s: %ld, expected %ld", what, got, want);
}

/* ---- clocks (with bench.h's) ---- */

/* The main thread's wait for a round's deadline, resumed when a signal cuts it short. */
static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* ---- the cost of one sync: 4 KiB written in place, then fdatasync ---- */

static double measure_sync_us(double seconds)
{
    char path[PATH_MAX];
    bench_path(path, sizeof path, "sync-probe");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        bench_die("cannot create %s: %s", path, strerror(errno));
    static char buf[4096];
    for (int k = 0; k < SYNC_BLOCKS; k++)
        if (pwrite(fd, buf, sizeof buf, (off_t)k * 4096) != (ssize_t)sizeof buf)
            bench_die("cannot write %s: %s", path, strerror(errno));
    if (fsync(fd))
        bench_die("cannot sync %s: %s", path, strerror(errno));
    long n = 0;
    double t0 = bench_now_s(), t;
    do {
        buf[n % sizeof buf]++;
        if (pwrite(fd, buf, sizeof buf, (off_t)(n % SYNC_BLOCKS) * 4096) != (ssize_t)sizeof buf ||
            fdatasync(fd))
            bench_die("cannot write and sync %s: %s", path, strerror(errno));
        n++;
        t = bench_now_s();
    } while (t - t0 < seconds || n < 20);
    close(fd);
    unlink(path);
    return (t - t0) / (double)n * 1e6;
}

/* ---- the rows ---- */

static char rooms[N_ROOMS][16];
static char authors[N_TEXTS][24]; /* ~10 bytes */
static char bodies[N_TEXTS][128]; /* 96-104 bytes */
static CassUuidGen *uuid_gen;     /* shared: lock-free */

static void make_texts(void)
{
    static const char filler[] = "the quick brown fox jumps over the lazy dog while the chat "
                                 "room keeps scrolling past the fold of the window, again ";
    for (int r = 0; r < N_ROOMS; r++)
        snprintf(rooms[r], sizeof rooms[r], "room-%03d", r);
    for (int t = 0; t < N_TEXTS; t++) {
        snprintf(authors[t], sizeof authors[t], "author-%03d", t);
        int len = 96 + t % 9;
        snprintf(bodies[t], sizeof bodies[t], "#%02d %.*s", t, len - 4, filler);
    }
}

/* ---- cassette: one database per (durability, group commit) ---- */

typedef struct cdb {
    const char *name;
    cassette_durability durability;
    int group;
    CassCluster *cluster;
    CassSession *session;
    const CassPrepared *insert;
    atomic_long written; /* rows whose future was set without an error */
} cdb;

static void run_simple(CassSession *s, const char *query)
{
    CassStatement *st = cass_statement_new(query, 0);
    if (!st)
        bench_die_nomem();
    CassFuture *f = cass_session_execute(s, st);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(query, f);
    cass_future_free(f);
    cass_statement_free(st);
}

static const CassPrepared *prepare(CassSession *s, const char *query)
{
    CassFuture *f = cass_session_prepare(s, query);
    const CassPrepared *p = cass_future_get_prepared(f);
    if (!p)
        bench_die_future(query, f);
    cass_future_free(f);
    return p;
}

static void session_open(CassCluster **cluster, CassSession **session, const char *dir,
                         cassette_durability durability, int group)
{
    char point[PATH_MAX];
    snprintf(point, sizeof point, "file:%s/%s", bench_root, dir);
    *cluster = cass_cluster_new();
    *session = cass_session_new();
    if (!*cluster || !*session)
        bench_die_nomem();
    CassError rc;
    if ((rc = cass_cluster_set_contact_points(*cluster, point)) != CASS_OK)
        bench_die_cass("cass_cluster_set_contact_points", rc);
    if ((rc = (CassError)cassette_cluster_set_durability(*cluster, durability)) != CASS_OK)
        bench_die_cass("cassette_cluster_set_durability", rc);
    if ((rc = (CassError)cassette_cluster_set_group_commit(*cluster, group)) != CASS_OK)
        bench_die_cass("cassette_cluster_set_group_commit", rc);
    if ((rc = (CassError)cassette_cluster_set_map_size(*cluster, MAP_SIZE)) != CASS_OK)
        bench_die_cass("cassette_cluster_set_map_size", rc);
    CassFuture *f = cass_session_connect(*session, *cluster);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(point, f);
    cass_future_free(f);
}

static void session_close(CassCluster *cluster, CassSession *session)
{
    CassFuture *f = cass_session_close(session);
    cass_future_wait(f);
    cass_future_free(f);
    cass_session_free(session);
    cass_cluster_free(cluster);
}

static void cdb_open(cdb *c, const char *name, cassette_durability durability, int group)
{
    c->name = name;
    c->durability = durability;
    c->group = group;
    atomic_init(&c->written, 0);
    session_open(&c->cluster, &c->session, name, durability, group);
    for (size_t i = 0; i < sizeof SCHEMA_MESSAGES / sizeof SCHEMA_MESSAGES[0]; i++)
        run_simple(c->session, SCHEMA_MESSAGES[i]);
    c->insert = prepare(c->session, INSERT_MSG);
}

/* SELECT count(*) of a session, for the final checks. */
static long count_rows(CassSession *s, const char *query)
{
    CassStatement *st = cass_statement_new(query, 0);
    if (!st)
        bench_die_nomem();
    CassFuture *f = cass_session_execute(s, st);
    const CassResult *r = cass_future_get_result(f);
    if (!r)
        bench_die_future(query, f);
    cass_int64_t n = -1;
    CassError rc = cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &n);
    if (rc != CASS_OK)
        bench_die_cass(query, rc);
    cass_result_free(r);
    cass_future_free(f);
    cass_statement_free(st);
    return (long)n;
}

static void cdb_close(cdb *c)
{
    long n = count_rows(c->session, COUNT_MSGS);
    if (n != atomic_load(&c->written))
        die_count(c->name, n, atomic_load(&c->written));
    cass_prepared_free(c->insert);
    session_close(c->cluster, c->session);
}

/* Executes message number i of writer `slot`; the future is the caller's. */
static CassFuture *cass_write(cdb *c, int slot, long i)
{
    long k = i * MAX_THREADS + slot;
    CassStatement *st = cass_prepared_bind(c->insert);
    if (!st)
        bench_die_nomem();
    CassUuid id;
    cass_uuid_gen_time(uuid_gen, &id);
    CassError rc;
    if ((rc = cass_statement_bind_string(st, 0, rooms[k % N_ROOMS])) != CASS_OK ||
        (rc = cass_statement_bind_uuid(st, 1, id)) != CASS_OK ||
        (rc = cass_statement_bind_string(st, 2, authors[k % N_TEXTS])) != CASS_OK ||
        (rc = cass_statement_bind_string(st, 3, bodies[k % N_TEXTS])) != CASS_OK)
        bench_die_cass("binding the insert", rc);
    CassFuture *f = cass_session_execute(c->session, st);
    cass_statement_free(st); /* the write copied its values */
    return f;
}

/* Waits until the write is durable; exits on an error. */
static void cass_finish(cdb *c, CassFuture *f)
{
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(c->name, f);
    cass_future_free(f);
}

/* ---- SQLite: WAL, synchronous=FULL, one connection per writer thread ---- */

typedef struct sqdb {
    sqlite3 *conn[MAX_THREADS];
    sqlite3_stmt *insert[MAX_THREADS];
    atomic_long written;
} sqdb;

static void sq_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        bench_die("SQLite error in %s: %s", sql, msg ? msg : "?");
}

static void sq_open(sqdb *s)
{
    char path[PATH_MAX];
    bench_path(path, sizeof path, "sqlite.db");
    atomic_init(&s->written, 0);
    for (int t = 0; t < MAX_THREADS; t++) {
        sqlite3 *db = NULL;
        /* NOMUTEX: each connection is used by one thread at a time. */
        if (sqlite3_open_v2(path, &db,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                            NULL) != SQLITE_OK)
            die_sqlite("open", db);
        sqlite3_busy_timeout(db, 60000);
        if (t == 0) {
            sq_exec(db, "PRAGMA journal_mode=WAL");
            sq_exec(db, SQ_SCHEMA);
        }
        sq_exec(db, "PRAGMA synchronous=FULL"); /* a per-connection setting */
        if (sqlite3_prepare_v2(db, SQ_INSERT, -1, &s->insert[t], NULL) != SQLITE_OK)
            die_sqlite("prepare", db);
        s->conn[t] = db;
    }
}

static void sq_close(sqdb *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->conn[0], "SELECT count(*) FROM messages", -1, &st, NULL) !=
            SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW)
        die_sqlite("count", s->conn[0]);
    long n = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (n != atomic_load(&s->written))
        die_count("SQLite", n, atomic_load(&s->written));
    for (int t = 0; t < MAX_THREADS; t++) {
        sqlite3_finalize(s->insert[t]);
        sqlite3_close(s->conn[t]);
    }
}

/* The same row as cass_write: the time UUID as its 16 bytes. */
static void sq_write(sqdb *s, int slot, long i)
{
    long k = i * MAX_THREADS + slot;
    CassUuid id;
    cass_uuid_gen_time(uuid_gen, &id);
    unsigned char b[16];
    for (int j = 0; j < 8; j++) {
        b[j] = (unsigned char)(id.time_and_version >> (56 - 8 * j));
        b[8 + j] = (unsigned char)(id.clock_seq_and_node >> (56 - 8 * j));
    }
    sqlite3_stmt *st = s->insert[slot];
    if (sqlite3_bind_text(st, 1, rooms[k % N_ROOMS], -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_blob(st, 2, b, 16, SQLITE_TRANSIENT) != SQLITE_OK ||
        sqlite3_bind_text(st, 3, authors[k % N_TEXTS], -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 4, bodies[k % N_TEXTS], -1, SQLITE_STATIC) != SQLITE_OK)
        die_sqlite("bind", s->conn[slot]);
    if (sqlite3_step(st) != SQLITE_DONE)
        die_sqlite("insert", s->conn[slot]);
    sqlite3_reset(st);
}

/* ---- conditional writes: one database, durability NONE ---- */

typedef struct conddb {
    CassCluster *cluster;
    CassSession *session;
    const CassPrepared *insert_if, *update_if;
    long next_login[COND_SLOTS];         /* logins inserted so far by each writer */
    long next_cas[COND_SLOTS];           /* compare-and-sets so far by each writer */
    int64_t value[COND_SLOTS][CAS_KEYS]; /* each key's current value */
    char key[COND_SLOTS][CAS_KEYS][16];
    atomic_long issued, applied;
} conddb;

static void cond_open(conddb *k)
{
    session_open(&k->cluster, &k->session, "conditional", CASSETTE_DURABILITY_NONE, 1);
    for (size_t i = 0; i < sizeof SCHEMA_COND / sizeof SCHEMA_COND[0]; i++)
        run_simple(k->session, SCHEMA_COND[i]);
    k->insert_if = prepare(k->session, INSERT_USER_IF);
    k->update_if = prepare(k->session, UPDATE_KV_IF);
    atomic_init(&k->issued, 0);
    atomic_init(&k->applied, 0);
    const CassPrepared *ins = prepare(k->session, INSERT_KV);
    for (int s = 0; s < COND_SLOTS; s++) {
        k->next_login[s] = k->next_cas[s] = 0;
        for (int j = 0; j < CAS_KEYS; j++) {
            snprintf(k->key[s][j], sizeof k->key[s][j], "kv-%d-%04d", s, j);
            k->value[s][j] = 0;
            CassStatement *st = cass_prepared_bind(ins);
            if (!st)
                bench_die_nomem();
            CassError rc;
            if ((rc = cass_statement_bind_string(st, 0, k->key[s][j])) != CASS_OK ||
                (rc = cass_statement_bind_int64(st, 1, 0)) != CASS_OK)
                bench_die_cass("binding the kv insert", rc);
            CassFuture *f = cass_session_execute(k->session, st);
            if (cass_future_error_code(f) != CASS_OK)
                bench_die_future(INSERT_KV, f);
            cass_future_free(f);
            cass_statement_free(st);
        }
    }
    cass_prepared_free(ins);
}

/* Runs a conditional statement and returns its [applied]. */
static int cond_run(conddb *k, CassStatement *st, const char *what)
{
    CassFuture *f = cass_session_execute(k->session, st);
    const CassResult *r = cass_future_get_result(f);
    if (!r)
        bench_die_future(what, f);
    cass_bool_t applied = cass_false;
    CassError rc = cass_value_get_bool(cass_row_get_column(cass_result_first_row(r), 0), &applied);
    if (rc != CASS_OK)
        bench_die_cass(what, rc);
    cass_result_free(r);
    cass_future_free(f);
    cass_statement_free(st);
    atomic_fetch_add_explicit(&k->issued, 1, memory_order_relaxed);
    if (applied)
        atomic_fetch_add_explicit(&k->applied, 1, memory_order_relaxed);
    return applied == cass_true;
}

/* INSERT INTO chat.users ... IF NOT EXISTS of a login never used before: must apply. */
static void cond_insert(conddb *k, int slot)
{
    char login[32], password[32];
    long n = k->next_login[slot]++;
    snprintf(login, sizeof login, "user-%d-%09ld", slot, n);
    snprintf(password, sizeof password, "pw-%08lx", (unsigned long)n * 2654435761UL);
    CassStatement *st = cass_prepared_bind(k->insert_if);
    if (!st)
        bench_die_nomem();
    CassError rc;
    if ((rc = cass_statement_bind_string(st, 0, login)) != CASS_OK ||
        (rc = cass_statement_bind_string(st, 1, password)) != CASS_OK ||
        (rc = cass_statement_bind_string(st, 2, authors[n % N_TEXTS])) != CASS_OK)
        bench_die_cass("binding the insert if not exists", rc);
    if (!cond_run(k, st, INSERT_USER_IF))
        bench_die("INSERT IF NOT EXISTS of the new login %s did not apply", login);
}

/* UPDATE chat.kv SET v = cur + 1 WHERE k = ? IF v = cur, on the writer's own keys: must apply. */
static void cond_cas(conddb *k, int slot)
{
    int j = (int)(k->next_cas[slot]++ % CAS_KEYS);
    int64_t cur = k->value[slot][j];
    CassStatement *st = cass_prepared_bind(k->update_if);
    if (!st)
        bench_die_nomem();
    CassError rc;
    if ((rc = cass_statement_bind_int64(st, 0, cur + 1)) != CASS_OK ||
        (rc = cass_statement_bind_string(st, 1, k->key[slot][j])) != CASS_OK ||
        (rc = cass_statement_bind_int64(st, 2, cur)) != CASS_OK)
        bench_die_cass("binding the compare-and-set", rc);
    if (!cond_run(k, st, UPDATE_KV_IF))
        bench_die("compare-and-set of %s did not apply", k->key[slot][j]);
    k->value[slot][j] = cur + 1;
}

/* Every login inserted is there, and every key holds the value last set. */
static void cond_close(conddb *k)
{
    long logins = 0;
    for (int s = 0; s < COND_SLOTS; s++)
        logins += k->next_login[s];
    long n = count_rows(k->session, COUNT_USERS);
    if (n != logins)
        die_count("users inserted if not exists", n, logins);
    if (atomic_load(&k->applied) != atomic_load(&k->issued))
        die_count("conditional writes applied", atomic_load(&k->applied), atomic_load(&k->issued));
    const CassPrepared *sel = prepare(k->session, SELECT_KV);
    for (int s = 0; s < COND_SLOTS; s++)
        for (int j = 0; j < CAS_KEYS; j++) {
            CassStatement *st = cass_prepared_bind(sel);
            if (!st)
                bench_die_nomem();
            CassError rc = cass_statement_bind_string(st, 0, k->key[s][j]);
            if (rc != CASS_OK)
                bench_die_cass("binding the kv select", rc);
            CassFuture *f = cass_session_execute(k->session, st);
            const CassResult *r = cass_future_get_result(f);
            if (!r)
                bench_die_future(SELECT_KV, f);
            cass_int64_t v = -1;
            if ((rc = cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &v)) !=
                CASS_OK)
                bench_die_cass(SELECT_KV, rc);
            if (v != k->value[s][j])
                die_count(k->key[s][j], (long)v, (long)k->value[s][j]);
            cass_result_free(r);
            cass_future_free(f);
            cass_statement_free(st);
        }
    cass_prepared_free(sel);
    cass_prepared_free(k->insert_if);
    cass_prepared_free(k->update_if);
    session_close(k->cluster, k->session);
}

/* ---- one cell: `threads` writers (or one pipelining `depth`) for a fixed time ---- */

enum work { W_CASSETTE, W_SQLITE, W_INSERT_IF, W_CAS };

typedef struct cell {
    enum work kind;
    cdb *c;
    sqdb *s;
    conddb *k;
    int threads;
    int depth; /* 0: every writer waits on each future; else one writer, that many in flight */
    atomic_int stop;
    pthread_barrier_t start;
} cell;

typedef struct worker {
    cell *x;
    int slot;
    long ops;           /* writes completed */
    atomic_long shared; /* ops, as the main thread reads it at the deadline */
    pthread_t thread;
} worker;

/* One more write completed (only this worker writes its counter). */
static void done_one(worker *w)
{
    w->ops++;
    atomic_store_explicit(&w->shared, w->ops, memory_order_relaxed);
}

static int stopped(cell *x)
{
    return atomic_load_explicit(&x->stop, memory_order_relaxed);
}

/*
 * One thread keeping up to depth futures in flight: it waits on the oldest
 * only when depth are in flight, and takes every future already set as it
 * goes, so each write counts when it completes.
 */
static void pipeline(worker *w)
{
    cdb *c = w->x->c;
    int depth = w->x->depth, head = 0, n = 0;
    CassFuture *ring[MAX_DEPTH];
    long i = 0;
    while (!stopped(w->x)) {
        if (n == depth) {
            cass_finish(c, ring[head]);
            head = (head + 1) % depth;
            n--;
            done_one(w);
        }
        ring[(head + n) % depth] = cass_write(c, w->slot, i++);
        n++;
        for (; n > 0 && cass_future_ready(ring[head]); n--, head = (head + 1) % depth) {
            cass_finish(c, ring[head]);
            done_one(w);
        }
    }
    for (; n > 0; n--, head = (head + 1) % depth, done_one(w))
        cass_finish(c, ring[head]);
}

static void *work(void *arg)
{
    worker *w = arg;
    cell *x = w->x;
    pthread_barrier_wait(&x->start);
    switch (x->kind) {
    case W_CASSETTE:
        if (x->depth) {
            pipeline(w);
            break;
        }
        for (; !stopped(x); done_one(w))
            cass_finish(x->c, cass_write(x->c, w->slot, w->ops));
        break;
    case W_SQLITE:
        for (; !stopped(x); done_one(w))
            sq_write(x->s, w->slot, w->ops);
        break;
    case W_INSERT_IF:
        for (; !stopped(x); done_one(w))
            cond_insert(x->k, w->slot);
        break;
    case W_CAS:
        for (; !stopped(x); done_one(w))
            cond_cas(x->k, w->slot);
        break;
    }
    return NULL;
}

typedef struct figure {
    double rate[ROUNDS];    /* operations per wall second */
    double cpu_op[ROUNDS];  /* process CPU seconds per operation */
    double cpu_use[ROUNDS]; /* process CPU seconds per wall second */
    long ops;
} figure;

/*
 * Runs x for `seconds` and records round r of f: the writes completed between
 * the start and the deadline, over that time (the writes still in flight at
 * the deadline then complete, and are checked, untimed).
 */
static void run_cell(cell *x, double seconds, figure *f, int r)
{
    worker w[MAX_THREADS];
    atomic_store(&x->stop, 0);
    if (pthread_barrier_init(&x->start, NULL, (unsigned)x->threads + 1))
        bench_die_nomem();
    for (int t = 0; t < x->threads; t++) {
        w[t].x = x;
        w[t].slot = t;
        w[t].ops = 0;
        atomic_init(&w[t].shared, 0);
        if (pthread_create(&w[t].thread, NULL, work, &w[t]))
            bench_die("cannot start a thread");
    }
    pthread_barrier_wait(&x->start);
    double t0 = bench_now_s(), c0 = bench_cpu_s();
    sleep_s(seconds);
    long timed = 0;
    for (int t = 0; t < x->threads; t++)
        timed += atomic_load_explicit(&w[t].shared, memory_order_relaxed);
    double dt = bench_now_s() - t0, cpu = bench_cpu_s() - c0;
    atomic_store(&x->stop, 1);
    long ops = 0;
    for (int t = 0; t < x->threads; t++) {
        pthread_join(w[t].thread, NULL);
        ops += w[t].ops;
    }
    pthread_barrier_destroy(&x->start);
    if (x->kind == W_CASSETTE)
        atomic_fetch_add(&x->c->written, ops);
    else if (x->kind == W_SQLITE)
        atomic_fetch_add(&x->s->written, ops);
    f->rate[r] = (double)timed / dt;
    f->cpu_op[r] = timed ? cpu / (double)timed : 0;
    f->cpu_use[r] = cpu / dt;
    f->ops += ops;
}

/* ---- the durable writes ---- */

typedef struct mode {
    const char *name;
    int threads, depth;
} mode;

static const mode MODES[] = {
    {"1 thread", 1, 0},   {"2 threads", 2, 0},    {"8 threads", 8, 0},      {"32 threads", 32, 0},
    {"pipeline 1", 1, 1}, {"pipeline 10", 1, 10}, {"pipeline 100", 1, 100},
};
#define N_MODES (int)(sizeof MODES / sizeof MODES[0])

/* The cassette databases: SYNC and NOMETASYNC, each with group commit on and off. */
#define N_CDB 4
static const struct {
    const char *name;
    cassette_durability durability;
    int group;
} CDBS[N_CDB] = {
    {"sync-group", CASSETTE_DURABILITY_SYNC, 1},
    {"sync-alone", CASSETTE_DURABILITY_SYNC, 0},
    {"nometasync-group", CASSETTE_DURABILITY_NOMETASYNC, 1},
    {"nometasync-alone", CASSETTE_DURABILITY_NOMETASYNC, 0},
};

typedef struct durable_figures {
    figure cass[N_CDB][N_MODES];
    figure sqlite[N_MODES]; /* threaded modes only */
    double sync_us[ROUNDS];
} durable_figures;

static void print_durable(const durable_figures *d, int pair, const char *title, double sync_us)
{
    const figure *on = d->cass[2 * pair], *off = d->cass[2 * pair + 1];
    double base = bench_median(off[0].rate, ROUNDS); /* one commit (and its syncs) per write */
    double one_sync = 1e6 / sync_us;
    printf("\n%s: rows/s, median of %d rounds\n", title, ROUNDS);
    printf("%-13s %9s %9s %9s %7s %7s %7s %7s  %s\n", "writers", "group on", "group off", "SQLite",
           "on/base", "on/sync", "on/SQL", "CPU us",
           "target (>= 50k, 10x sync, "
           "5x SQLite)");
    for (int m = 0; m < N_MODES; m++) {
        double r_on = bench_median(on[m].rate, ROUNDS), r_off = bench_median(off[m].rate, ROUNDS);
        int sq_mode = MODES[m].depth ? 0 : m; /* no pipelining in SQLite: its 1-thread figure */
        double r_sq = bench_median(d->sqlite[sq_mode].rate, ROUNDS);
        char sq[16];
        snprintf(sq, sizeof sq, "%.0f%s", r_sq, MODES[m].depth ? "*" : "");
        char target[48] = "";
        if (MODES[m].threads == 32 || MODES[m].depth == 100) {
            int rows = r_on >= TARGET_ROWS, xs = r_on / one_sync >= TARGET_X_SYNC,
                xq = r_sq > 0 && r_on / r_sq >= TARGET_X_SQLITE;
            if (rows && xs && xq)
                snprintf(target, sizeof target, "met");
            else
                snprintf(target, sizeof target, "MISSED (%s%s%s)", rows ? "" : "rows/s ",
                         xs ? "" : "x sync ", xq ? "" : "x SQLite");
        }
        printf("%-13s %9.0f %9.0f %9s %7.1f %7.1f %7.1f %7.1f  %s\n", MODES[m].name, r_on, r_off,
               sq, bench_ratio(r_on, base), r_on / one_sync, bench_ratio(r_on, r_sq),
               bench_median(on[m].cpu_op, ROUNDS) * 1e6, target);
    }
}

static void bench_durable(double seconds, double probe_s)
{
    static cdb cdbs[N_CDB];
    static sqdb sq;
    static durable_figures d;
    for (int i = 0; i < N_CDB; i++)
        cdb_open(&cdbs[i], CDBS[i].name, CDBS[i].durability, CDBS[i].group);
    sq_open(&sq);
    for (int r = 0; r < ROUNDS; r++) {
        d.sync_us[r] = measure_sync_us(probe_s);
        for (int m = 0; m < N_MODES; m++) {
            for (int i = 0; i < N_CDB; i++) {
                cell x = {.kind = W_CASSETTE,
                          .c = &cdbs[i],
                          .threads = MODES[m].threads,
                          .depth = MODES[m].depth};
                run_cell(&x, seconds, &d.cass[i][m], r);
            }
            if (!MODES[m].depth) {
                cell x = {.kind = W_SQLITE, .s = &sq, .threads = MODES[m].threads};
                run_cell(&x, seconds, &d.sqlite[m], r);
            }
        }
        fprintf(stderr, "durability_bench: durable round %d of %d done (sync %.0f us)\n", r + 1,
                ROUNDS, d.sync_us[r]);
    }
    for (int i = 0; i < N_CDB; i++)
        cdb_close(&cdbs[i]);
    sq_close(&sq);

    double sync_us = bench_median(d.sync_us, ROUNDS);
    printf("one sync (4 KiB pwrite + fdatasync): %.0f us median (rounds:", sync_us);
    for (int r = 0; r < ROUNDS; r++)
        printf(" %.0f", d.sync_us[r]);
    printf("), so one sync per write is %.0f/s\n", 1e6 / sync_us);
    print_durable(&d, 0, "durable writes, durability SYNC (LMDB's default: data sync + meta sync)",
                  sync_us);
    print_durable(&d, 1, "durable writes, durability NOMETASYNC (one sync per commit)", sync_us);
    printf("\nbase: group off, 1 thread (each write commits and syncs alone); sync: one sync per "
           "write (1e6 / sync us);\nSQLite: WAL, synchronous=FULL, autocommit INSERT, same "
           "writers (* = pipelined: its 1-thread figure);\nCPU us: process CPU per row, group "
           "on. SQLite 1/2/8/32 threads:");
    for (int m = 0; m < 4; m++)
        printf(" %.0f", bench_median(d.sqlite[m].rate, ROUNDS));
    printf(" rows/s\n");
    fflush(stdout);
}

/* ---- the conditional writes ---- */

static void bench_conditional(double seconds)
{
    static conddb k;
    static figure f[2][2]; /* [insert, cas][1, 2 threads] */
    static const char *const names[2] = {"insert if not exists", "compare-and-set"};
    cond_open(&k);
    for (int r = 0; r < ROUNDS; r++)
        for (int op = 0; op < 2; op++)
            for (int t = 0; t < 2; t++) {
                cell x = {.kind = op ? W_CAS : W_INSERT_IF, .k = &k, .threads = t + 1};
                run_cell(&x, seconds, &f[op][t], r);
            }
    long issued = atomic_load(&k.issued), applied = atomic_load(&k.applied);
    cond_close(&k);

    printf("\nconditional writes, durability NONE: median of %d rounds\n", ROUNDS);
    printf("%-22s %7s %9s %9s %13s  %s\n", "operation", "threads", "ops/s", "CPU s/s",
           "ops per CPU-s", "target (>= 100k/s on one core)");
    for (int op = 0; op < 2; op++)
        for (int t = 0; t < 2; t++) {
            double rate = bench_median(f[op][t].rate, ROUNDS),
                   cpu_op = bench_median(f[op][t].cpu_op, ROUNDS);
            const char *target = "";
            if (t == 0)
                target = rate >= TARGET_COND ? "met" : "MISSED";
            printf("%-22s %7d %9.0f %9.2f %13.0f  %s\n", names[op], t + 1, rate,
                   bench_median(f[op][t].cpu_use, ROUNDS), bench_ratio(1, cpu_op), target);
        }
    printf("\nchecked: %ld conditional writes issued, %ld applied; every login present, every "
           "key at its last value\n",
           issued, applied);
}

/* ---- main ---- */

static void usage(void)
{
    fprintf(stderr, "usage: durability_bench [--quick] [--seconds S] [--dir DIR]\n"
                    "  --quick      rounds of 0.02 s (about 6 s in all)\n"
                    "  --seconds S  seconds per round of each figure (default 1; 3 rounds)\n"
                    "  --dir D      put the databases under D (default $TMPDIR or /tmp; "
                    "not /dev/shm)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    bench_args a;
    bench_parse_args(argc, argv, "--seconds", 1, usage, &a);
    double seconds = a.number ? strtod(a.number, NULL) : a.quick ? 0.02 : 1.0;
    if (!(seconds >= 0.01 && seconds <= 600))
        usage();
    const char *root = bench_make_root(a.base, "cassette-bench");
    /* The checks count rows without a partition key, which the driver logs a server warning
       for, as Cassandra sends one: nothing a benchmark's reader needs. */
    cass_log_set_level(CASS_LOG_ERROR);
    uuid_gen = cass_uuid_gen_new();
    if (!uuid_gen)
        bench_die_nomem();
    make_texts();

    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("durability_bench: durable and conditional writes through the driver API, beside "
           "SQLite, same run\n");
    printf("cassette %s, SQLite %s, %ld CPUs; databases under %s (%s)\n", cassette_version(),
           sqlite3_libversion(), cpus, root,
           bench_fs_name(root, "tmpfs: in memory, so a sync costs nothing; use --dir on a disk"));
    printf("each figure: median of %d rounds of %.2f s; rows: chat.messages (room, id timeuuid, "
           "author, body ~100 B), prepared, bound per write\n\n",
           ROUNDS, seconds);
    fflush(stdout);

    double probe_s = seconds < 0.5 ? seconds : 0.5;
    bench_durable(seconds, probe_s);
    bench_conditional(seconds);
    cass_uuid_gen_free(uuid_gen);
    return 0;
}
