/*
 * The comparison benchmark: the chat data model through cassandra.h on an
 * embedded cassette database, beside its peers in the same run, every answer
 * checked.
 *
 *   messages(room text, msg_id timeuuid, author text, body text,
 *            PRIMARY KEY (room, msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)
 *   users(login text PRIMARY KEY, pass text, name text)
 *   messages_by_day(room text, day int, msg_id timeuuid, author text, body text,
 *            PRIMARY KEY ((room, day), msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)
 *
 * messages_by_day holds the same messages bucketed by day, as KillrChat does
 * (examples/killrchat), so that a partition stays small however long a room lives.
 *
 * Systems, each its own database under the run's directory:
 *  - cassette: "file:DIR" through cassandra.h, durability NONE, prepared statements;
 *  - cassette remote: `cassette serve DIR --port 0` (CASSETTE_DURABILITY=none) on
 *    loopback, through the same cassandra.h calls (the remote backend);
 *  - SQLite: WAL, synchronous=OFF, WITHOUT ROWID tables with the same primary keys,
 *    msg_id a 16-byte blob in time order (so ORDER BY msg_id DESC LIMIT 50 walks the
 *    index backwards), prepared statements, a connection per thread, mmap on;
 *  - raw LMDB: MDB_NOSYNC | MDB_NOMETASYNC | MDB_NOTLS, one sub-database per table;
 *    a message's key is room, a 0 byte, then the 16 bytes of msg_id in time order
 *    (order-preserving, not the engine's own encoding), its value the two strings with
 *    2-byte length prefixes; in messages_by_day the day (4 bytes big endian) comes between
 *    the 0 byte and msg_id; a user's key is the login.
 *
 * Data: N messages over R rooms, message n in room n % R (every room the same size,
 * N / R messages), 10,000 users. messages_by_day gets the same N messages; a day is
 * DAY_MSGS x R message numbers, so a room's day bucket holds DAY_MSGS (100) messages
 * whatever N, and the clock stands early in the day: today holds each room's last
 * TODAY_MSGS (30). Operations, each over rooms chosen hot (zipf, s = 1:
 * with 100 rooms the first gets 19% of the operations, the first ten 56%) or uniform:
 *  - post a message (insert; 1 thread);
 *  - last 50 messages of a room; page back (the 50 before a given msg_id); point read by
 *    the full key (1 and 2 threads);
 *  - last 50 messages of a room from messages_by_day (uniform rooms, 1 thread), read as
 *    KillrChat reads them: today's bucket, then each older day until 50 rows (cassette);
 *    one query ORDER BY day DESC, msg_id DESC LIMIT 50, a backward walk of the primary
 *    key (SQLite); a cursor walk back from past today's bucket (LMDB, whose sorted keys
 *    run on from one day to the one before);
 *  - create an account: INSERT IF NOT EXISTS, half new logins and half existing ones
 *    (SQLite: INSERT ... ON CONFLICT DO NOTHING inside BEGIN IMMEDIATE; LMDB:
 *    mdb_put with MDB_NOOVERWRITE in its own write transaction; 1 thread).
 * Durable writes, once per run on their own databases: cassette with durability SYNC
 * and group commit, 32 threads each waiting its own write and one thread keeping 100
 * futures in flight; SQLite WAL synchronous=FULL, one row per transaction, 1 and 32
 * threads. --durable-preload N first loads N messages into both (a commit then writes
 * the pages of a larger tree).
 *
 * Method: each figure runs every system on the same operations: a warm-up, then
 * rounds; in each round every system runs once, in turn, the first one rotating from
 * round to round (the 2-core machine is shared). An operation is timed alone
 * (CLOCK_MONOTONIC around the call, the columns copied out); a round's rate is its
 * operations over the sum of their times, per thread, summed over threads; the figure
 * is the median round and the spread the lowest and highest round; p50 and p99 come
 * from every timed operation of every round. Every answer is checked against an
 * in-memory index of the messages per room: the exact msg_ids, in order, of each
 * last-50 and page-back read, the author and body of each point read, the applied
 * flag of each account creation, and each database's row count at the end. A wrong
 * answer or a failed call exits non-zero; the targets are reported, never asserted.
 *
 *   peers_bench [--quick] [--sizes N,N..] [--huge] [--rooms R] [--ops N] [--rounds K]
 *               [--csv FILE] [--dir D] [--cassette PATH] [--no-remote] [--durable-preload N]
 */
#include <cassandra.h>
#include <cassette.h>
#include <errno.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "peers_bench"
#include "bench/bench.h"

#define LAST_N 50
#define N_TEXTS 64
#define N_USERS 10000
#define MAX_SIZES 8
#define MAX_THREADS 2
#define DURABLE_THREADS 32
#define PIPELINE 100
#define LOAD_DEPTH 64
#define LOAD_TXN 10000
#define SEED 0x5eed2026c0ffee02ULL
#define T0 UINT64_C(0x01F0000000000000) /* 100 ns since 1582: early 2026 */
#define NODE UINT64_C(0x8000123456789abc)
/* messages_by_day: a room's messages a day, the clock's share of them today (fewer than
   LAST_N, so the last 50 span two days as they do early in a real day), and today. */
#define DAY_MSGS 100
#define TODAY_MSGS 30
#define TODAY 20500 /* days since 1970: early 2026 */

struct bench {
    int unused;
};

/* ---- failures (with bench.h's) ---- */

__attribute__((noreturn)) static void die_sqlite(const char *what, sqlite3 *db)
{
    bench_die("SQLite error in %s: %s", what, db ? sqlite3_errmsg(db) : "cannot open");
}

__attribute__((noreturn)) static void die_mdb(const char *what, int rc)
{
    bench_die("LMDB error in %s: %s", what, mdb_strerror(rc));
}

/* ---- the operations and the systems ---- */

enum op { OP_INSERT, OP_LAST, OP_PAGE, OP_POINT, OP_CREATE, OP_LAST_DAY, N_OPS };
static const char *const OP_ID[N_OPS] = {"insert",     "last50",         "page_back",
                                         "point_read", "create_account", "last50_buckets"};
static const char *const OP_NAME[N_OPS] = {"post a message", "last 50 of a room",
                                           "page back 50",   "point read",
                                           "create account", "last 50, day buckets"};

enum kind { K_CASS, K_REMOTE, K_SQLITE, K_LMDB, N_KINDS };
static const char *const KIND_ID[N_KINDS] = {"cassette", "cassette_remote", "sqlite", "lmdb"};
static const char *const KIND_NAME[N_KINDS] = {"cassette", "cassette remote", "SQLite", "raw LMDB"};

static const char *const CQL_SCHEMA[] = {
    "CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE chat.messages (room text, msg_id timeuuid, author text, body text, "
    "PRIMARY KEY (room, msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)",
    "CREATE TABLE chat.users (login text PRIMARY KEY, pass text, name text)",
    "CREATE TABLE chat.messages_by_day (room text, day int, msg_id timeuuid, author text, "
    "body text, PRIMARY KEY ((room, day), msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)",
};
static const char *const CQL[N_OPS] = {
    "INSERT INTO chat.messages (room, msg_id, author, body) VALUES (?, ?, ?, ?)",
    "SELECT msg_id, author, body FROM chat.messages WHERE room = ? LIMIT 50",
    "SELECT msg_id, author, body FROM chat.messages WHERE room = ? AND msg_id < ? LIMIT 50",
    "SELECT author, body FROM chat.messages WHERE room = ? AND msg_id = ?",
    "INSERT INTO chat.users (login, pass, name) VALUES (?, ?, ?) IF NOT EXISTS",
    "SELECT msg_id, author, body FROM chat.messages_by_day WHERE room = ? AND day = ? LIMIT ?",
};
static const char CQL_USER[] = "INSERT INTO chat.users (login, pass, name) VALUES (?, ?, ?)";
static const char CQL_DAY_INSERT[] = "INSERT INTO chat.messages_by_day (room, day, msg_id, "
                                     "author, body) VALUES (?, ?, ?, ?, ?)";

static const char *const SQ_SCHEMA[] = {
    "CREATE TABLE messages (room TEXT NOT NULL, msg_id BLOB NOT NULL, author TEXT, body TEXT, "
    "PRIMARY KEY (room, msg_id)) WITHOUT ROWID",
    "CREATE TABLE users (login TEXT NOT NULL PRIMARY KEY, pass TEXT, name TEXT) WITHOUT ROWID",
    "CREATE TABLE messages_by_day (room TEXT NOT NULL, day INTEGER NOT NULL, "
    "msg_id BLOB NOT NULL, author TEXT, body TEXT, PRIMARY KEY (room, day, msg_id)) WITHOUT ROWID",
};
enum { SQ_BEGIN = N_OPS, SQ_COMMIT, SQ_USER, SQ_DAY_INSERT, N_SQ };
static const char *const SQ[N_SQ] = {
    "INSERT INTO messages (room, msg_id, author, body) VALUES (?, ?, ?, ?)",
    "SELECT msg_id, author, body FROM messages WHERE room = ? ORDER BY msg_id DESC LIMIT 50",
    "SELECT msg_id, author, body FROM messages WHERE room = ? AND msg_id < ? "
    "ORDER BY msg_id DESC LIMIT 50",
    "SELECT author, body FROM messages WHERE room = ? AND msg_id = ?",
    "INSERT INTO users (login, pass, name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    /* What a SQLite user writes: one query, the primary key walked backwards across days
       (a B-tree has no partitions to step between). */
    "SELECT msg_id, author, body FROM messages_by_day WHERE room = ? "
    "ORDER BY day DESC, msg_id DESC LIMIT 50",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "INSERT INTO users (login, pass, name) VALUES (?, ?, ?)",
    "INSERT INTO messages_by_day (room, day, msg_id, author, body) VALUES (?, ?, ?, ?, ?)",
};

typedef struct sys {
    enum kind kind;
    /* cassette, embedded or remote */
    CassCluster *cluster;
    CassSession *session;
    const CassPrepared *p[N_OPS];
    pid_t server;
    /* SQLite: a connection per thread */
    sqlite3 *db[MAX_THREADS];
    sqlite3_stmt *st[MAX_THREADS][N_SQ];
    /* raw LMDB: a read transaction and cursor per thread, reset and renewed */
    MDB_env *env;
    MDB_dbi msgs, users, msgs_day;
    MDB_txn *rtxn[MAX_THREADS];
    MDB_cursor *cur[MAX_THREADS], *cur_day[MAX_THREADS];
} sys;

/* ---- the data: texts, message ids, the index of every room ---- */

static char authors[N_TEXTS][16];
static char bodies[N_TEXTS][128];
static int n_rooms = 100;
static char (*room_names)[16];
static double *zipf_cdf;

typedef struct room_idx {
    long *n; /* message numbers, oldest first */
    long len, cap;
    long loaded; /* the first `loaded` were loaded: all messages_by_day holds of the room */
} room_idx;
static room_idx *rooms;
static long n_msgs;     /* messages stored (loaded and inserted), numbers 0..n_msgs-1 */
static long n_loaded;   /* messages loaded, numbers 0..n_loaded-1: messages_by_day's rows */
static long next_login; /* new logins: new-<size>-<number> */

/* splitmix64 of (i, salt): the same pick for every system at position i. */
static uint64_t mix(uint64_t i, uint64_t salt)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ULL + SEED + salt * 0xd1b54a32d192ed03ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A room for position i: hot (zipf, room 0 the hottest) or uniform. */
static int pick_room(int hot, long i, uint64_t salt)
{
    uint64_t z = mix((uint64_t)i, salt);
    if (!hot)
        return (int)(z % (uint64_t)n_rooms);
    double u = (double)(z >> 11) * 0x1.0p-53;
    int lo = 0, hi = n_rooms - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (zipf_cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void make_data(void)
{
    static const char filler[] = "the quick brown fox jumps over the lazy dog while the chat "
                                 "room keeps scrolling past the fold of the window, again ";
    for (int t = 0; t < N_TEXTS; t++) {
        snprintf(authors[t], sizeof authors[t], "author-%03d", t);
        snprintf(bodies[t], sizeof bodies[t], "#%02d %.*s", t, 92 + t % 9, filler);
    }
    room_names = calloc((size_t)n_rooms, sizeof *room_names);
    zipf_cdf = calloc((size_t)n_rooms, sizeof *zipf_cdf);
    rooms = calloc((size_t)n_rooms, sizeof *rooms);
    if (!room_names || !zipf_cdf || !rooms)
        bench_die_nomem();
    double sum = 0;
    for (int r = 0; r < n_rooms; r++) {
        snprintf(room_names[r], sizeof room_names[r], "room-%05d", r);
        sum += 1.0 / (double)(r + 1); /* s = 1 */
        zipf_cdf[r] = sum;
    }
    for (int r = 0; r < n_rooms; r++)
        zipf_cdf[r] /= sum;
}

static void index_reset(void)
{
    for (int r = 0; r < n_rooms; r++)
        rooms[r].len = rooms[r].loaded = 0;
    n_msgs = n_loaded = 0;
}

static void index_add(int r, long n)
{
    room_idx *x = &rooms[r];
    if (x->len == x->cap) {
        long cap = x->cap ? 2 * x->cap : 64;
        long *p = realloc(x->n, (size_t)cap * sizeof *p);
        if (!p)
            bench_die_nomem();
        x->n = p;
        x->cap = cap;
    }
    x->n[x->len++] = n;
}

static CassUuid msg_uuid(long n)
{
    CassUuid u;
    u.time_and_version = UINT64_C(0x1000000000000000) | (T0 + (uint64_t)n);
    u.clock_seq_and_node = NODE;
    return u;
}

/* msg_id's 16 bytes in time order: the timestamp (under the version), then the node. */
static void uuid_bytes(CassUuid u, uint8_t b[16])
{
    for (int j = 0; j < 8; j++) {
        b[j] = (uint8_t)(u.time_and_version >> (56 - 8 * j));
        b[8 + j] = (uint8_t)(u.clock_seq_and_node >> (56 - 8 * j));
    }
}

static void msg_bytes(long n, uint8_t b[16])
{
    uuid_bytes(msg_uuid(n), b);
}

/*
 * The day of loaded message n in messages_by_day. A day is DAY_MSGS x rooms message
 * numbers, counted back from the newest message, whose day is TODAY and holds the last
 * TODAY_MSGS x rooms: with every room posting in turn, a room's bucket holds DAY_MSGS
 * messages (TODAY_MSGS today) whatever the data size, which is what bucketing is for.
 */
static int32_t msg_day(long n)
{
    long day_span = (long)DAY_MSGS * n_rooms;
    long back = (n_loaded - 1 - n + (long)(DAY_MSGS - TODAY_MSGS) * n_rooms) / day_span;
    return (int32_t)(TODAY - back);
}

/*
 * The message that goes i-th into messages_by_day, of n_loaded: room by room, each
 * oldest first, so that every system loads that table partition after partition, the
 * order cassette's batches need (rooms below n_loaded % n_rooms hold one more).
 */
static long day_load_msg(long i)
{
    long q = n_loaded / n_rooms, rem = n_loaded % n_rooms, big = rem * (q + 1);
    long r = i < big ? i / (q + 1) : rem + (i - big) / q;
    long j = i < big ? i % (q + 1) : (i - big) % q;
    return r + j * n_rooms;
}

/* Whether messages a and b share a partition of messages_by_day: the same room and day. */
static int same_bucket(long a, long b)
{
    return a % n_rooms == b % n_rooms && msg_day(a) == msg_day(b);
}

/* ---- one operation's input, made before timing, and its answer ---- */

typedef struct task {
    int room;
    long n; /* insert: the new message; page back: the msg_id given; point: the message */
    long j; /* page back: that message's place in the room (the rows before it expected) */
    char login[28];
    int is_new;
} task;

typedef struct answer {
    int n;
    int applied;
    uint8_t id[LAST_N][16];
    char author[LAST_N][32];
    char body[LAST_N][128];
} answer;

static void copy_text(char *dst, size_t cap, const char *src, size_t len)
{
    if (len >= cap)
        bench_die("a text of %zu bytes where at most %zu were written", len, cap - 1);
    memcpy(dst, src, len);
    dst[len] = 0;
}

static void make_tasks(task *t, long count, enum op op, int hot, uint64_t salt, long size)
{
    for (long i = 0; i < count; i++) {
        task *x = &t[i];
        memset(x, 0, sizeof *x);
        x->room = pick_room(hot, i, salt);
        const room_idx *r = &rooms[x->room];
        uint64_t z = mix((uint64_t)i, salt + 7);
        switch (op) {
        case OP_INSERT:
            x->n = n_msgs + i;
            break;
        case OP_PAGE:
        case OP_POINT:
            if (r->len == 0)
                bench_die("room %d has no messages", x->room);
            x->j = (long)(z % (uint64_t)r->len);
            x->n = r->n[x->j];
            break;
        case OP_CREATE:
            x->is_new = i % 2 == 0;
            if (x->is_new)
                snprintf(x->login, sizeof x->login, "new-%ld-%07ld", size, next_login++);
            else
                snprintf(x->login, sizeof x->login, "user-%07ld", (long)(z % N_USERS));
            break;
        default:
            break;
        }
    }
}

/* The answer against the index: exact msg_ids in order, texts, applied flags. */
static void check(enum kind k, enum op op, const task *t, const answer *a)
{
    const room_idx *r = &rooms[t->room];
    char what[96];
    snprintf(what, sizeof what, "%s: %s of %s", KIND_NAME[k], OP_NAME[op], room_names[t->room]);
    long first = 0, last = 0; /* expected: r->n[last-1] down to r->n[first] */
    switch (op) {
    case OP_INSERT:
        return;
    case OP_CREATE:
        if (a->applied != t->is_new)
            bench_die("%s: create account %s applied %d, expected %d", KIND_NAME[k], t->login,
                      a->applied, t->is_new);
        return;
    case OP_POINT:
        if (a->n != 1)
            bench_die_rows(what, a->n, 1);
        if (strcmp(a->author[0], authors[t->n % N_TEXTS]) ||
            strcmp(a->body[0], bodies[t->n % N_TEXTS]))
            bench_die("%s: message %ld has the wrong author or body", what, t->n);
        return;
    case OP_LAST:
        last = r->len;
        break;
    case OP_LAST_DAY:
        last = r->loaded; /* inserts go to messages only */
        break;
    case OP_PAGE:
        last = t->j;
        break;
    default:
        return;
    }
    first = last > LAST_N ? last - LAST_N : 0;
    if (a->n != last - first)
        bench_die_rows(what, a->n, last - first);
    for (int i = 0; i < a->n; i++) {
        uint8_t want[16];
        long n = r->n[last - 1 - i];
        msg_bytes(n, want);
        if (memcmp(want, a->id[i], 16))
            bench_die("%s: row %d is not message %ld", what, i, n);
        if (strcmp(a->author[i], authors[n % N_TEXTS]))
            bench_die("%s: row %d has the wrong author", what, i);
    }
}

/* ---- cassette through cassandra.h, embedded or remote ---- */

static void cql_run(CassSession *s, const char *q)
{
    CassStatement *st = cass_statement_new(q, 0);
    if (!st)
        bench_die_nomem();
    CassFuture *f = cass_session_execute(s, st);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(q, f);
    cass_future_free(f);
    cass_statement_free(st);
}

static const CassPrepared *cql_prepare(CassSession *s, const char *q)
{
    CassFuture *f = cass_session_prepare(s, q);
    const CassPrepared *p = cass_future_get_prepared(f);
    if (!p)
        bench_die_future(q, f);
    cass_future_free(f);
    return p;
}

static long cql_count(CassSession *s, const char *q)
{
    CassStatement *st = cass_statement_new(q, 0);
    if (!st)
        bench_die_nomem();
    CassFuture *f = cass_session_execute(s, st);
    const CassResult *r = cass_future_get_result(f);
    if (!r)
        bench_die_future(q, f);
    cass_int64_t n = -1;
    CassError rc = cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &n);
    if (rc != CASS_OK)
        bench_die_cass(q, rc);
    cass_result_free(r);
    cass_future_free(f);
    cass_statement_free(st);
    return (long)n;
}

static void cass_connect(sys *s, const char *point, int port, cassette_durability durability,
                         int group)
{
    s->cluster = cass_cluster_new();
    s->session = cass_session_new();
    if (!s->cluster || !s->session)
        bench_die_nomem();
    CassError rc;
    if ((rc = cass_cluster_set_contact_points(s->cluster, point)) != CASS_OK)
        bench_die_cass("cass_cluster_set_contact_points", rc);
    cass_cluster_set_request_timeout(s->cluster, 600000); /* count(*) of 10^7 rows */
    if (port) {
        if ((rc = cass_cluster_set_port(s->cluster, port)) != CASS_OK)
            bench_die_cass("cass_cluster_set_port", rc);
    } else {
        if ((rc = (CassError)cassette_cluster_set_durability(s->cluster, durability)) != CASS_OK ||
            (rc = (CassError)cassette_cluster_set_group_commit(s->cluster, group)) != CASS_OK ||
            (rc = (CassError)cassette_cluster_set_map_size(s->cluster, UINT64_C(1) << 30)) !=
                CASS_OK)
            bench_die_cass("cassette_cluster_set_*", rc);
    }
    CassFuture *f = cass_session_connect(s->session, s->cluster);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(point, f);
    cass_future_free(f);
}

static void cass_disconnect(sys *s)
{
    CassFuture *f = cass_session_close(s->session);
    cass_future_wait(f);
    cass_future_free(f);
    cass_session_free(s->session);
    cass_cluster_free(s->cluster);
}

static void bind_ok(CassError rc)
{
    if (rc != CASS_OK)
        bench_die_cass("binding", rc);
}

static CassStatement *cass_bind_msg(const CassPrepared *p, int room, long n)
{
    CassStatement *st = cass_prepared_bind(p);
    if (!st)
        bench_die_nomem();
    bind_ok(cass_statement_bind_string(st, 0, room_names[room]));
    bind_ok(cass_statement_bind_uuid(st, 1, msg_uuid(n)));
    bind_ok(cass_statement_bind_string(st, 2, authors[n % N_TEXTS]));
    bind_ok(cass_statement_bind_string(st, 3, bodies[n % N_TEXTS]));
    return st;
}

static CassStatement *cass_bind_msg_day(const CassPrepared *p, int room, long n)
{
    CassStatement *st = cass_prepared_bind(p);
    if (!st)
        bench_die_nomem();
    bind_ok(cass_statement_bind_string(st, 0, room_names[room]));
    bind_ok(cass_statement_bind_int32(st, 1, msg_day(n)));
    bind_ok(cass_statement_bind_uuid(st, 2, msg_uuid(n)));
    bind_ok(cass_statement_bind_string(st, 3, authors[n % N_TEXTS]));
    bind_ok(cass_statement_bind_string(st, 4, bodies[n % N_TEXTS]));
    return st;
}

static CassStatement *cass_bind_user(const CassPrepared *p, const char *login)
{
    CassStatement *st = cass_prepared_bind(p);
    if (!st)
        bench_die_nomem();
    bind_ok(cass_statement_bind_string(st, 0, login));
    bind_ok(cass_statement_bind_string(st, 1, "5f4dcc3b5aa765d61d8327deb882cf99a1b2c3d4"));
    bind_ok(cass_statement_bind_string(st, 2, login));
    return st;
}

static void cass_text(const CassRow *row, size_t col, char *dst, size_t cap)
{
    const char *s;
    size_t len;
    CassError rc = cass_value_get_string(cass_row_get_column(row, col), &s, &len);
    if (rc != CASS_OK)
        bench_die_cass("reading a text column", rc);
    copy_text(dst, cap, s, len);
}

/* Appends the rows of r to a: author and body (point read), else msg_id, author, body. */
static void cass_rows(const CassResult *r, enum op op, answer *a)
{
    CassIterator *it = cass_iterator_from_result(r);
    long before = a->n; /* rows of earlier queries (days) of the same read */
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        if (a->n == LAST_N)
            bench_die_rows(OP_NAME[op], before + (long)cass_result_row_count(r), LAST_N);
        if (op == OP_POINT) {
            cass_text(row, 0, a->author[a->n], sizeof a->author[0]);
            cass_text(row, 1, a->body[a->n], sizeof a->body[0]);
        } else {
            CassUuid u;
            CassError rc = cass_value_get_uuid(cass_row_get_column(row, 0), &u);
            if (rc != CASS_OK)
                bench_die_cass("reading msg_id", rc);
            uuid_bytes(u, a->id[a->n]);
            cass_text(row, 1, a->author[a->n], sizeof a->author[0]);
            cass_text(row, 2, a->body[a->n], sizeof a->body[0]);
        }
        a->n++;
    }
    cass_iterator_free(it);
}

/* Executes st (and frees it); returns its result, freed by the caller. */
static const CassResult *cass_run(sys *s, CassStatement *st, enum op op)
{
    CassFuture *f = cass_session_execute(s->session, st);
    const CassResult *r = cass_future_get_result(f);
    if (!r)
        bench_die_future(OP_NAME[op], f);
    cass_future_free(f);
    cass_statement_free(st);
    return r;
}

/*
 * The last 50 of a room from messages_by_day, as KillrChat reads them: today's bucket
 * first, then each older day for the rows still missing, until 50 or the first day of
 * the data. Every day holds messages here, so the day before is day - 1; KillrChat asks
 * its messages_bucket table for it because its rooms have empty days.
 */
static void cass_last_by_day(sys *s, const task *t, answer *a)
{
    int32_t first = msg_day(0);
    for (int32_t day = TODAY; day >= first && a->n < LAST_N; day--) {
        CassStatement *st = cass_prepared_bind(s->p[OP_LAST_DAY]);
        if (!st)
            bench_die_nomem();
        bind_ok(cass_statement_bind_string(st, 0, room_names[t->room]));
        bind_ok(cass_statement_bind_int32(st, 1, day));
        bind_ok(cass_statement_bind_int32(st, 2, LAST_N - a->n));
        const CassResult *r = cass_run(s, st, OP_LAST_DAY);
        cass_rows(r, OP_LAST_DAY, a);
        cass_result_free(r);
    }
}

static void cass_op(sys *s, enum op op, const task *t, answer *a)
{
    CassStatement *st;
    a->n = 0;
    if (op == OP_LAST_DAY) {
        cass_last_by_day(s, t, a);
        return;
    }
    if (op == OP_INSERT)
        st = cass_bind_msg(s->p[op], t->room, t->n);
    else if (op == OP_CREATE)
        st = cass_bind_user(s->p[op], t->login);
    else {
        st = cass_prepared_bind(s->p[op]);
        if (!st)
            bench_die_nomem();
        bind_ok(cass_statement_bind_string(st, 0, room_names[t->room]));
        if (op != OP_LAST)
            bind_ok(cass_statement_bind_uuid(st, 1, msg_uuid(t->n)));
    }
    const CassResult *r = cass_run(s, st, op);
    if (op == OP_CREATE) {
        cass_bool_t applied = cass_false;
        CassError rc =
            cass_value_get_bool(cass_row_get_column(cass_result_first_row(r), 0), &applied);
        if (rc != CASS_OK)
            bench_die_cass("reading [applied]", rc);
        a->applied = applied == cass_true;
    } else if (op != OP_INSERT) {
        cass_rows(r, op, a);
    }
    cass_result_free(r);
}

/* What a load writes: messages, users or messages_by_day. */
enum load { LOAD_MSGS, LOAD_USERS, LOAD_DAYS };

/* Executes p bound for positions [lo, hi) of the load, LOAD_DEPTH in flight. */
static void cass_load(sys *s, const CassPrepared *p, long lo, long hi, enum load what)
{
    CassFuture *ring[LOAD_DEPTH] = {0};
    for (long i = lo; i < hi + LOAD_DEPTH; i++) {
        int slot = (int)(i % LOAD_DEPTH);
        if (ring[slot]) {
            if (cass_future_error_code(ring[slot]) != CASS_OK)
                bench_die_future("loading", ring[slot]);
            cass_future_free(ring[slot]);
            ring[slot] = NULL;
        }
        if (i >= hi)
            continue;
        char login[28];
        CassStatement *st;
        if (what == LOAD_USERS) {
            snprintf(login, sizeof login, "user-%07ld", i);
            st = cass_bind_user(p, login);
        } else {
            st = cass_bind_msg(p, (int)(i % n_rooms), i);
        }
        ring[slot] = cass_session_execute(s->session, st);
        cass_statement_free(st);
    }
}

/* Waits for a load's request in flight, if any, and frees it. */
static void load_wait(CassFuture **f)
{
    if (!*f)
        return;
    if (cass_future_error_code(*f) != CASS_OK)
        bench_die_future("loading", *f);
    cass_future_free(*f);
    *f = NULL;
}

/*
 * Loads the n_loaded messages into messages_by_day in day_load_msg's order, in unlogged
 * batches of one partition (a room's day) each, LOAD_DEPTH in flight: how a Cassandra user
 * bulk-loads, in a hundredth of the requests, which keeps the second table's load from
 * weighing on --quick's wall time.
 */
static void cass_load_days(sys *s, const CassPrepared *p)
{
    CassFuture *ring[LOAD_DEPTH] = {0};
    long sent = 0;
    for (long i = 0; i < n_loaded;) {
        CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_UNLOGGED);
        if (!b)
            bench_die_nomem();
        long first = day_load_msg(i), n;
        while (i < n_loaded && same_bucket(n = day_load_msg(i), first)) {
            CassStatement *st = cass_bind_msg_day(p, (int)(n % n_rooms), n);
            bind_ok(cass_batch_add_statement(b, st));
            cass_statement_free(st);
            i++;
        }
        CassFuture **slot = &ring[sent++ % LOAD_DEPTH];
        load_wait(slot);
        *slot = cass_session_execute_batch(s->session, b);
        cass_batch_free(b);
    }
    for (int i = 0; i < LOAD_DEPTH; i++)
        load_wait(&ring[i]);
}

static void cass_open(sys *s, enum kind kind, const char *dir, const char *cassette)
{
    char point[PATH_MAX + 8];
    int port = 0;
    s->kind = kind;
    if (kind == K_REMOTE) {
        s->server = bench_serve_start(cassette, dir, "none", &port);
        snprintf(point, sizeof point, "127.0.0.1");
    } else {
        snprintf(point, sizeof point, "file:%s", dir);
    }
    cass_connect(s, point, port, CASSETTE_DURABILITY_NONE, 0);
    for (size_t i = 0; i < sizeof CQL_SCHEMA / sizeof *CQL_SCHEMA; i++)
        cql_run(s->session, CQL_SCHEMA[i]);
    for (int op = 0; op < N_OPS; op++)
        s->p[op] = cql_prepare(s->session, CQL[op]);
}

static void cass_close(sys *s, long want_msgs, long want_days)
{
    long n = cql_count(s->session, "SELECT count(*) FROM chat.messages");
    if (n != want_msgs)
        bench_die("%s holds %ld messages, expected %ld", KIND_NAME[s->kind], n, want_msgs);
    n = cql_count(s->session, "SELECT count(*) FROM chat.messages_by_day");
    if (n != want_days)
        bench_die("%s holds %ld messages by day, expected %ld", KIND_NAME[s->kind], n, want_days);
    for (int op = 0; op < N_OPS; op++)
        cass_prepared_free(s->p[op]);
    cass_disconnect(s);
    if (s->kind == K_REMOTE) {
        int status;
        kill(s->server, SIGTERM);
        if (waitpid(s->server, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            bench_die("cassette serve did not stop cleanly");
    }
}

/* ---- SQLite ---- */

static void sq_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        bench_die("SQLite error in %s: %s", sql, msg ? msg : "?");
}

static sqlite3 *sq_connect(const char *path, const char *sync)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        die_sqlite("open", db);
    sqlite3_busy_timeout(db, 60000);
    sq_exec(db, "PRAGMA journal_mode=WAL");
    sq_exec(db, sync);
    sq_exec(db, "PRAGMA mmap_size=68719476736");
    sq_exec(db, "PRAGMA cache_size=-65536");
    return db;
}

static void sq_open(sys *s, const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/sqlite.db", dir);
    s->kind = K_SQLITE;
    for (int t = 0; t < MAX_THREADS; t++) {
        s->db[t] = sq_connect(path, "PRAGMA synchronous=OFF");
        if (t == 0)
            for (size_t i = 0; i < sizeof SQ_SCHEMA / sizeof *SQ_SCHEMA; i++)
                sq_exec(s->db[0], SQ_SCHEMA[i]);
        for (int q = 0; q < N_SQ; q++)
            if (sqlite3_prepare_v2(s->db[t], SQ[q], -1, &s->st[t][q], NULL) != SQLITE_OK)
                die_sqlite(SQ[q], s->db[t]);
    }
}

static void sq_bind_msg(sqlite3_stmt *st, int room, long n)
{
    uint8_t id[16];
    msg_bytes(n, id);
    if (sqlite3_bind_text(st, 1, room_names[room], -1, SQLITE_STATIC) ||
        sqlite3_bind_blob(st, 2, id, 16, SQLITE_TRANSIENT) ||
        sqlite3_bind_text(st, 3, authors[n % N_TEXTS], -1, SQLITE_STATIC) ||
        sqlite3_bind_text(st, 4, bodies[n % N_TEXTS], -1, SQLITE_STATIC))
        bench_die("SQLite bind failed");
}

static void sq_bind_msg_day(sqlite3_stmt *st, int room, long n)
{
    uint8_t id[16];
    msg_bytes(n, id);
    if (sqlite3_bind_text(st, 1, room_names[room], -1, SQLITE_STATIC) ||
        sqlite3_bind_int(st, 2, msg_day(n)) || sqlite3_bind_blob(st, 3, id, 16, SQLITE_TRANSIENT) ||
        sqlite3_bind_text(st, 4, authors[n % N_TEXTS], -1, SQLITE_STATIC) ||
        sqlite3_bind_text(st, 5, bodies[n % N_TEXTS], -1, SQLITE_STATIC))
        bench_die("SQLite bind failed");
}

static void sq_bind_user(sqlite3_stmt *st, const char *login)
{
    if (sqlite3_bind_text(st, 1, login, -1, SQLITE_TRANSIENT) ||
        sqlite3_bind_text(st, 2, "5f4dcc3b5aa765d61d8327deb882cf99a1b2c3d4", -1, SQLITE_STATIC) ||
        sqlite3_bind_text(st, 3, login, -1, SQLITE_TRANSIENT))
        bench_die("SQLite bind failed");
}

static void sq_done(sqlite3 *db, sqlite3_stmt *st, const char *what)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        die_sqlite(what, db);
    sqlite3_reset(st);
}

static void sq_text(sqlite3_stmt *st, int col, char *dst, size_t cap)
{
    const char *s = (const char *)sqlite3_column_text(st, col);
    copy_text(dst, cap, s ? s : "", (size_t)sqlite3_column_bytes(st, col));
}

static void sq_op(sys *s, int th, enum op op, const task *t, answer *a)
{
    sqlite3 *db = s->db[th];
    sqlite3_stmt *st = s->st[th][op];
    a->n = 0;
    switch (op) {
    case OP_INSERT:
        sq_bind_msg(st, t->room, t->n);
        sq_done(db, st, "insert");
        return;
    case OP_CREATE:
        sq_done(db, s->st[th][SQ_BEGIN], "BEGIN IMMEDIATE");
        sq_bind_user(st, t->login);
        sq_done(db, st, "create account");
        a->applied = sqlite3_changes(db) == 1;
        sq_done(db, s->st[th][SQ_COMMIT], "COMMIT");
        return;
    default:
        break;
    }
    if (sqlite3_bind_text(st, 1, room_names[t->room], -1, SQLITE_STATIC))
        die_sqlite("bind", db);
    if (op == OP_PAGE || op == OP_POINT) {
        uint8_t id[16];
        msg_bytes(t->n, id);
        if (sqlite3_bind_blob(st, 2, id, 16, SQLITE_TRANSIENT))
            die_sqlite("bind", db);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (a->n == LAST_N)
            bench_die_rows(OP_NAME[op], LAST_N + 1, LAST_N);
        if (op == OP_POINT) {
            sq_text(st, 0, a->author[a->n], sizeof a->author[0]);
            sq_text(st, 1, a->body[a->n], sizeof a->body[0]);
        } else {
            if (sqlite3_column_bytes(st, 0) != 16)
                bench_die("SQLite: a msg_id of %d bytes", sqlite3_column_bytes(st, 0));
            memcpy(a->id[a->n], sqlite3_column_blob(st, 0), 16);
            sq_text(st, 1, a->author[a->n], sizeof a->author[0]);
            sq_text(st, 2, a->body[a->n], sizeof a->body[0]);
        }
        a->n++;
    }
    if (rc != SQLITE_DONE)
        die_sqlite(OP_NAME[op], db);
    sqlite3_reset(st);
}

static void sq_load(sys *s, long lo, long hi, enum load what)
{
    sqlite3 *db = s->db[0];
    for (long i = lo; i < hi; i++) {
        if ((i - lo) % LOAD_TXN == 0)
            sq_exec(db, "BEGIN");
        if (what == LOAD_USERS) {
            char login[28];
            snprintf(login, sizeof login, "user-%07ld", i);
            sq_bind_user(s->st[0][SQ_USER], login);
            sq_done(db, s->st[0][SQ_USER], "loading users");
        } else if (what == LOAD_DAYS) {
            long n = day_load_msg(i);
            sq_bind_msg_day(s->st[0][SQ_DAY_INSERT], (int)(n % n_rooms), n);
            sq_done(db, s->st[0][SQ_DAY_INSERT], "loading messages by day");
        } else {
            sq_bind_msg(s->st[0][OP_INSERT], (int)(i % n_rooms), i);
            sq_done(db, s->st[0][OP_INSERT], "loading messages");
        }
        if ((i - lo) % LOAD_TXN == LOAD_TXN - 1 || i == hi - 1)
            sq_exec(db, "COMMIT");
    }
}

static long sq_count(sqlite3 *db, const char *table)
{
    char q[64];
    snprintf(q, sizeof q, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
        die_sqlite(q, db);
    long n = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static void sq_close(sys *s, long want_msgs, long want_days)
{
    long n = sq_count(s->db[0], "messages");
    if (n != want_msgs)
        bench_die("SQLite holds %ld messages, expected %ld", n, want_msgs);
    if ((n = sq_count(s->db[0], "messages_by_day")) != want_days)
        bench_die("SQLite holds %ld messages by day, expected %ld", n, want_days);
    for (int t = 0; t < MAX_THREADS; t++) {
        for (int q = 0; q < N_SQ; q++)
            sqlite3_finalize(s->st[t][q]);
        sqlite3_close(s->db[t]);
    }
}

/* ---- raw LMDB ---- */

/* room, a 0 byte, msg_id's 16 bytes in time order; returns the key's length. */
static size_t lm_key(uint8_t *k, int room, long n)
{
    size_t len = strlen(room_names[room]);
    memcpy(k, room_names[room], len);
    k[len] = 0;
    msg_bytes(n, k + len + 1);
    return len + 17;
}

/* Writes day big endian, so that keys sort by day as numbers. */
static void put_be32(uint8_t *p, int32_t day)
{
    uint32_t u = (uint32_t)day;
    for (int j = 0; j < 4; j++)
        p[j] = (uint8_t)(u >> (24 - 8 * j));
}

/* messages_by_day: room, a 0 byte, the day, msg_id's 16 bytes; returns the key's length. */
static size_t lm_key_day(uint8_t *k, int room, long n)
{
    size_t len = strlen(room_names[room]);
    memcpy(k, room_names[room], len);
    k[len] = 0;
    put_be32(k + len + 1, msg_day(n));
    msg_bytes(n, k + len + 5);
    return len + 21;
}

static size_t lm_value(uint8_t *v, long n)
{
    const char *a = authors[n % N_TEXTS], *b = bodies[n % N_TEXTS];
    size_t al = strlen(a), bl = strlen(b);
    v[0] = (uint8_t)(al >> 8);
    v[1] = (uint8_t)al;
    memcpy(v + 2, a, al);
    v[2 + al] = (uint8_t)(bl >> 8);
    v[3 + al] = (uint8_t)bl;
    memcpy(v + 4 + al, b, bl);
    return 4 + al + bl;
}

/* Parses a value's two strings into a's row i. */
static void lm_parse(const MDB_val *v, answer *a, int i)
{
    const uint8_t *p = v->mv_data;
    size_t al = (size_t)p[0] << 8 | p[1];
    if (v->mv_size < 4 + al)
        bench_die("LMDB: a short value");
    size_t bl = (size_t)p[2 + al] << 8 | p[3 + al];
    if (v->mv_size != 4 + al + bl)
        bench_die("LMDB: a value of the wrong length");
    copy_text(a->author[i], sizeof a->author[0], (const char *)p + 2, al);
    copy_text(a->body[i], sizeof a->body[0], (const char *)p + 4 + al, bl);
}

static void lm_open(sys *s, const char *dir)
{
    int rc;
    s->kind = K_LMDB;
    if ((rc = mdb_env_create(&s->env)) || (rc = mdb_env_set_maxdbs(s->env, 3)) ||
        (rc = mdb_env_set_mapsize(s->env, (size_t)1 << 36)) ||
        (rc = mdb_env_open(s->env, dir, MDB_NOTLS | MDB_NOSYNC | MDB_NOMETASYNC, 0600)))
        die_mdb("open", rc);
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) ||
        (rc = mdb_dbi_open(txn, "messages", MDB_CREATE, &s->msgs)) ||
        (rc = mdb_dbi_open(txn, "users", MDB_CREATE, &s->users)) ||
        (rc = mdb_dbi_open(txn, "messages_by_day", MDB_CREATE, &s->msgs_day)) ||
        (rc = mdb_txn_commit(txn)))
        die_mdb("open the sub-databases", rc);
    for (int t = 0; t < MAX_THREADS; t++) {
        if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn[t])) ||
            (rc = mdb_cursor_open(s->rtxn[t], s->msgs, &s->cur[t])) ||
            (rc = mdb_cursor_open(s->rtxn[t], s->msgs_day, &s->cur_day[t])))
            die_mdb("a read transaction", rc);
        mdb_txn_reset(s->rtxn[t]);
    }
}

static void lm_op(sys *s, int th, enum op op, const task *t, answer *a)
{
    uint8_t kb[64], vb[256];
    MDB_val k, v;
    int rc;
    a->n = 0;
    if (op == OP_INSERT || op == OP_CREATE) {
        MDB_txn *txn;
        if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)))
            die_mdb("begin", rc);
        if (op == OP_INSERT) {
            k = (MDB_val){lm_key(kb, t->room, t->n), kb};
            v = (MDB_val){lm_value(vb, t->n), vb};
            rc = mdb_put(txn, s->msgs, &k, &v, 0);
        } else {
            char login[28];
            memcpy(login, t->login, sizeof login);
            k = (MDB_val){strlen(login), login};
            v = (MDB_val){40 + strlen(login), vb};
            memcpy(vb, "5f4dcc3b5aa765d61d8327deb882cf99a1b2c3d4", 40);
            memcpy(vb + 40, login, strlen(login));
            rc = mdb_put(txn, s->users, &k, &v, MDB_NOOVERWRITE);
            a->applied = rc == 0;
            if (rc == MDB_KEYEXIST) {
                mdb_txn_abort(txn);
                return;
            }
        }
        if (rc || (rc = mdb_txn_commit(txn)))
            die_mdb(OP_NAME[op], rc);
        return;
    }
    MDB_txn *txn = s->rtxn[th];
    MDB_cursor *c = op == OP_LAST_DAY ? s->cur_day[th] : s->cur[th];
    if ((rc = mdb_txn_renew(txn)) || (rc = mdb_cursor_renew(txn, c)))
        die_mdb("renew", rc);
    size_t plen = strlen(room_names[t->room]) + 1;      /* the room and its 0 byte */
    size_t idoff = op == OP_LAST_DAY ? plen + 4 : plen; /* where msg_id starts, past any day */
    if (op == OP_POINT) {
        k = (MDB_val){lm_key(kb, t->room, t->n), kb};
        if ((rc = mdb_get(txn, s->msgs, &k, &v)) == 0) {
            lm_parse(&v, a, 0);
            a->n = 1;
        } else if (rc != MDB_NOTFOUND) {
            die_mdb("point read", rc);
        }
    } else {
        /* Seek to the first key at or after the start (past the room, past today's
           bucket, or the given msg_id), then walk back while the keys are the room's: in
           messages_by_day the walk runs on from one day into the day before. */
        if (op == OP_LAST) {
            memcpy(kb, room_names[t->room], plen);
            kb[plen - 1] = 1;
            k = (MDB_val){plen, kb};
        } else if (op == OP_LAST_DAY) {
            memcpy(kb, room_names[t->room], plen);
            put_be32(kb + plen, TODAY + 1);
            k = (MDB_val){plen + 4, kb};
        } else {
            k = (MDB_val){lm_key(kb, t->room, t->n), kb};
        }
        rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        rc = mdb_cursor_get(c, &k, &v, rc == MDB_NOTFOUND ? MDB_LAST : MDB_PREV);
        while (rc == 0 && a->n < LAST_N && k.mv_size == idoff + 16 &&
               memcmp(k.mv_data, room_names[t->room], plen) == 0) {
            memcpy(a->id[a->n], (const uint8_t *)k.mv_data + idoff, 16);
            lm_parse(&v, a, a->n);
            a->n++;
            if (a->n < LAST_N)
                rc = mdb_cursor_get(c, &k, &v, MDB_PREV);
        }
        if (rc && rc != MDB_NOTFOUND)
            die_mdb(OP_NAME[op], rc);
    }
    mdb_txn_reset(txn);
}

static void lm_load(sys *s, long lo, long hi, enum load what)
{
    MDB_txn *txn = NULL;
    int rc;
    for (long i = lo; i < hi; i++) {
        if ((i - lo) % LOAD_TXN == 0 && (rc = mdb_txn_begin(s->env, NULL, 0, &txn)))
            die_mdb("begin", rc);
        uint8_t kb[64], vb[256];
        MDB_val k, v;
        if (what == LOAD_USERS) {
            int n = snprintf((char *)kb, sizeof kb, "user-%07ld", i);
            k = (MDB_val){(size_t)n, kb};
            memcpy(vb, "5f4dcc3b5aa765d61d8327deb882cf99a1b2c3d4", 40);
            memcpy(vb + 40, kb, (size_t)n);
            v = (MDB_val){40 + (size_t)n, vb};
            rc = mdb_put(txn, s->users, &k, &v, 0);
        } else if (what == LOAD_DAYS) {
            long n = day_load_msg(i);
            k = (MDB_val){lm_key_day(kb, (int)(n % n_rooms), n), kb};
            v = (MDB_val){lm_value(vb, n), vb};
            rc = mdb_put(txn, s->msgs_day, &k, &v, 0);
        } else {
            k = (MDB_val){lm_key(kb, (int)(i % n_rooms), i), kb};
            v = (MDB_val){lm_value(vb, i), vb};
            rc = mdb_put(txn, s->msgs, &k, &v, 0);
        }
        if (rc)
            die_mdb("load", rc);
        if (((i - lo) % LOAD_TXN == LOAD_TXN - 1 || i == hi - 1) && (rc = mdb_txn_commit(txn)))
            die_mdb("commit", rc);
    }
}

static void lm_close(sys *s, long want_msgs, long want_days)
{
    MDB_txn *txn;
    MDB_stat st, st_day;
    int rc;
    if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)) ||
        (rc = mdb_stat(txn, s->msgs, &st)) || (rc = mdb_stat(txn, s->msgs_day, &st_day)))
        die_mdb("stat", rc);
    mdb_txn_abort(txn);
    if ((long)st.ms_entries != want_msgs)
        bench_die("raw LMDB holds %ld messages, expected %ld", (long)st.ms_entries, want_msgs);
    if ((long)st_day.ms_entries != want_days)
        bench_die("raw LMDB holds %ld messages by day, expected %ld", (long)st_day.ms_entries,
                  want_days);
    for (int t = 0; t < MAX_THREADS; t++) {
        mdb_cursor_close(s->cur[t]);
        mdb_cursor_close(s->cur_day[t]);
        mdb_txn_abort(s->rtxn[t]);
    }
    mdb_env_close(s->env);
}

/* ---- one system's operation ---- */

static void do_op(sys *s, int th, enum op op, const task *t, answer *a)
{
    switch (s->kind) {
    case K_CASS:
    case K_REMOTE:
        cass_op(s, op, t, a);
        break;
    case K_SQLITE:
        sq_op(s, th, op, t, a);
        break;
    case K_LMDB:
        lm_op(s, th, op, t, a);
        break;
    default:
        break;
    }
}

/* ---- a figure: every system on the same operations, in rounds ---- */

typedef struct config {
    long sizes[MAX_SIZES];
    int n_sizes;
    long per_round; /* timed operations per round and system */
    long warm;
    int rounds;
    int remote, quick;
    double durable_scale;
    long durable_preload; /* messages in the durable databases before their rounds */
    const char *base, *cassette, *csv;
    char command[1024];
} config;

typedef bench_result result;

/* A span's context (bench_run_span): the system, the operation and its tasks. */
typedef struct span_ctx {
    sys *s;
    enum op op;
    const task *tasks;
} span_ctx;

static void *span_start(void *ctx)
{
    (void)ctx;
    answer *a = malloc(sizeof *a);
    if (!a)
        bench_die_nomem();
    return a;
}

static void span_op(void *ctx, int th, long i, void *a)
{
    span_ctx *c = ctx;
    do_op(c->s, th, c->op, &c->tasks[i], a);
}

static void span_check(void *ctx, long i, void *a)
{
    span_ctx *c = ctx;
    check(c->s->kind, c->op, &c->tasks[i], a);
}

static void span_end(void *ctx, void *a)
{
    (void)ctx;
    free(a);
}

/* Runs positions [lo, hi) on `threads` threads; returns the rate (ops over busy time). */
static double run_span(sys *s, enum op op, int threads, const task *tasks, long lo,
                       long hi, float *lat)
{
    span_ctx c = {s, op, tasks};
    bench_span span = {&c, span_start, span_op, span_check, span_end};
    return bench_run_span(&span, threads, lo, hi, lat);
}

static FILE *csv;

/* The partition sizes a figure ran on, for the CSV: 0 where no table is read. */
typedef struct part_size {
    long room;      /* messages a room holds in the table read (mean, as the figure starts) */
    long partition; /* messages a full partition holds: the room's, or a day bucket's */
} part_size;

static part_size figure_parts(enum op op)
{
    if (op == OP_CREATE)
        return (part_size){0, 0};
    if (op == OP_LAST_DAY) {
        long room = n_loaded / n_rooms;
        return (part_size){room, room < DAY_MSGS ? room : DAY_MSGS};
    }
    return (part_size){n_msgs / n_rooms, n_msgs / n_rooms};
}

static void csv_row(long size, const char *workload, const char *dist, int threads,
                    const char *system, const result *r, const config *c, long per_round,
                    part_size parts)
{
    if (!csv)
        return;
    fprintf(csv, "%ld,%d,%s,%s,%d,%s,%.0f,%.0f,%.0f,%.2f,%.2f,%d,%ld,%ld,%ld\n", size, n_rooms,
            workload, dist, threads, system, r->med, r->lo, r->hi, r->p50, r->p99, c->rounds,
            per_round, parts.room, parts.partition);
    fflush(csv);
}

/* A figure's table: one row per system, and the first system's rate over each row's. */
static void print_table(const char *title, const char *const *names, const result *res, int n,
                        const char *ratio)
{
    printf("\n%s\n", title);
    printf("  %-36s %10s %21s %9s %9s %14s\n", "system", "ops/s", "rounds min-max", "p50 us",
           "p99 us", ratio);
    for (int i = 0; i < n; i++) {
        char spread[48];
        snprintf(spread, sizeof spread, "%.0f-%.0f", res[i].lo, res[i].hi);
        printf("  %-36s %10.0f %21s %9.1f %9.1f %14.2f\n", names[i], res[i].med, spread, res[i].p50,
               res[i].p99, bench_ratio(res[0].med, res[i].med));
    }
    fflush(stdout);
}

/* The ratio cassette / each peer, kept for the summary at the end. */
typedef struct summary_row {
    long size;
    enum op op;
    int hot, threads;
    double ratio[N_KINDS]; /* cassette over the system; 0 when not run */
} summary_row;
static summary_row summary[MAX_SIZES * 32];
static int n_summary;

static void figure(const config *c, sys **systems, int nsys, long size, enum op op, int hot,
                   int threads, uint64_t salt)
{
    long total = c->warm + (long)c->rounds * c->per_round;
    task *tasks = malloc((size_t)total * sizeof *tasks);
    float *lat = malloc((size_t)nsys * (size_t)c->rounds * (size_t)c->per_round * sizeof *lat);
    if (!tasks || !lat)
        bench_die_nomem();
    make_tasks(tasks, total, op, hot, salt, size);
    part_size parts = figure_parts(op);
    result res[N_KINDS];
    memset(res, 0, sizeof res);
    for (int i = 0; i < nsys; i++)
        run_span(systems[i], op, threads, tasks, 0, c->warm, NULL);
    for (int k = 0; k < c->rounds; k++) {
        long lo = c->warm + k * c->per_round;
        for (int j = 0; j < nsys; j++) {
            int i = (j + k) % nsys;
            float *l = lat + ((size_t)i * (size_t)c->rounds + (size_t)k) * (size_t)c->per_round;
            res[i].rate[k] = run_span(systems[i], op, threads, tasks, lo, lo + c->per_round, l);
        }
    }
    if (op == OP_INSERT) {
        for (long i = 0; i < total; i++)
            index_add(tasks[i].room, tasks[i].n);
        n_msgs += total;
    }
    const char *names[N_KINDS];
    summary_row *row = &summary[n_summary++];
    *row = (summary_row){size, op, hot, threads, {0}};
    for (int i = 0; i < nsys; i++) {
        float *l = lat + (size_t)i * (size_t)c->rounds * (size_t)c->per_round;
        bench_summarise(&res[i], l, (long)c->rounds * c->per_round, c->rounds);
        names[i] = KIND_NAME[systems[i]->kind];
        csv_row(size, OP_ID[op], hot ? "hot" : "uniform", threads, KIND_ID[systems[i]->kind],
                &res[i], c, c->per_round, parts);
        row->ratio[systems[i]->kind] = bench_ratio(res[0].med, res[i].med);
    }
    char title[160];
    snprintf(title, sizeof title, "%ld messages, %d rooms: %s, %s rooms, %d thread%s", size,
             n_rooms, OP_NAME[op], hot ? "hot" : "uniform", threads, threads > 1 ? "s" : "");
    print_table(title, names, res, nsys, "cassette/this");
    free(tasks);
    free(lat);
}

/* ---- one data size: load every system, run every figure, check the counts ---- */

static void run_size(const config *c, long size, int si)
{
    char dir[PATH_MAX];
    static sys store[N_KINDS];
    sys *systems[N_KINDS];
    int nsys = 0;
    memset(store, 0, sizeof store);
    index_reset();
    n_loaded = size; /* msg_day counts days back from the newest loaded message */
    for (int k = 0; k < N_KINDS; k++) {
        if (k == K_REMOTE && !c->remote)
            continue;
        snprintf(dir, sizeof dir, "%s/%ld-%s", bench_root, size, KIND_ID[k]);
        if (mkdir(dir, 0700) && errno != EEXIST)
            bench_die("cannot create %s: %s", dir, strerror(errno));
        sys *s = &store[k];
        double t0 = bench_now_s();
        if (k == K_CASS || k == K_REMOTE) {
            cass_open(s, (enum kind)k, dir, c->cassette);
            const CassPrepared *user = cql_prepare(s->session, CQL_USER);
            const CassPrepared *day = cql_prepare(s->session, CQL_DAY_INSERT);
            cass_load(s, s->p[OP_INSERT], 0, size, LOAD_MSGS);
            cass_load(s, user, 0, N_USERS, LOAD_USERS);
            cass_load_days(s, day);
            cass_prepared_free(user);
            cass_prepared_free(day);
        } else if (k == K_SQLITE) {
            sq_open(s, dir);
            sq_load(s, 0, size, LOAD_MSGS);
            sq_load(s, 0, N_USERS, LOAD_USERS);
            sq_load(s, 0, size, LOAD_DAYS);
        } else {
            lm_open(s, dir);
            lm_load(s, 0, size, LOAD_MSGS);
            lm_load(s, 0, N_USERS, LOAD_USERS);
            lm_load(s, 0, size, LOAD_DAYS);
        }
        fprintf(stderr, "peers_bench: %ld messages (by room and by day) loaded into %s in %.1f s\n",
                size, KIND_NAME[k], bench_now_s() - t0);
        systems[nsys++] = s;
    }
    for (long n = 0; n < size; n++)
        index_add((int)(n % n_rooms), n);
    for (int r = 0; r < n_rooms; r++)
        rooms[r].loaded = rooms[r].len;
    n_msgs = size;

    uint64_t salt = (uint64_t)si * 1000;
    for (int hot = 1; hot >= 0; hot--)
        figure(c, systems, nsys, size, OP_INSERT, hot, 1, salt++);
    for (int op = OP_LAST; op <= OP_POINT; op++)
        for (int hot = 1; hot >= 0; hot--)
            for (int th = 1; th <= MAX_THREADS; th++)
                figure(c, systems, nsys, size, (enum op)op, hot, th, salt++);
    figure(c, systems, nsys, size, OP_CREATE, 0, 1, salt++);
    /* Last, so the salts and so the operations of every figure before stay as they were;
       uniform rooms and one thread are what the latency chart draws. */
    figure(c, systems, nsys, size, OP_LAST_DAY, 0, 1, salt++);

    for (int i = 0; i < nsys; i++) {
        sys *s = systems[i];
        if (s->kind == K_SQLITE)
            sq_close(s, n_msgs, n_loaded);
        else if (s->kind == K_LMDB)
            lm_close(s, n_msgs, n_loaded);
        else
            cass_close(s, n_msgs, n_loaded);
    }
    printf("\nchecked: every answer above; each database holds its %ld messages and its %ld "
           "messages by day\n",
           n_msgs, n_loaded);
}

/* ---- durable writes: cassette SYNC + group commit beside SQLite synchronous=FULL ---- */

enum dmode { D_CASS_THREADS, D_CASS_PIPE, D_SQ_1, D_SQ_THREADS, N_DMODES };
static const char *const DMODE_NAME[N_DMODES] = {
    "cassette sync+group, 32 threads", "cassette sync+group, 100 in flight",
    "SQLite FULL, 1 thread", "SQLite FULL, 32 threads"};

typedef struct durable {
    sys cass;
    const CassPrepared *insert;
    sqlite3 *db[DURABLE_THREADS];
    sqlite3_stmt *st[DURABLE_THREADS];
    long cass_rows, sq_rows;
} durable;

typedef struct dworker {
    durable *d;
    enum dmode mode;
    int th, threads;
    long lo, hi; /* message numbers; this thread takes lo + th, lo + th + threads, ... */
    float *lat;
    double busy;
    pthread_t tid;
} dworker;

static void *dworker_run(void *arg)
{
    dworker *w = arg;
    durable *d = w->d;
    double busy = 0;
    if (w->mode == D_CASS_PIPE) {
        CassFuture *ring[PIPELINE];
        double sent[PIPELINE];
        long head = w->lo, next = w->lo;
        double t0 = bench_now_s();
        while (head < w->hi) {
            while (next < w->hi && next - head < PIPELINE) {
                CassStatement *st = cass_bind_msg(d->insert, (int)(next % n_rooms), next);
                sent[next % PIPELINE] = bench_now_s();
                ring[next % PIPELINE] = cass_session_execute(d->cass.session, st);
                cass_statement_free(st);
                next++;
            }
            CassFuture *f = ring[head % PIPELINE];
            if (cass_future_error_code(f) != CASS_OK)
                bench_die_future("durable insert", f);
            cass_future_free(f);
            w->lat[head - w->lo] = (float)((bench_now_s() - sent[head % PIPELINE]) * 1e6);
            head++;
        }
        w->busy = bench_now_s() - t0;
        return NULL;
    }
    for (long i = w->lo + w->th; i < w->hi; i += w->threads) {
        double t0 = bench_now_s();
        if (w->mode == D_CASS_THREADS) {
            CassStatement *st = cass_bind_msg(d->insert, (int)(i % n_rooms), i);
            CassFuture *f = cass_session_execute(d->cass.session, st);
            if (cass_future_error_code(f) != CASS_OK)
                bench_die_future("durable insert", f);
            cass_future_free(f);
            cass_statement_free(st);
        } else {
            sq_bind_msg(d->st[w->th], (int)(i % n_rooms), i);
            sq_done(d->db[w->th], d->st[w->th], "durable insert");
        }
        double dt = bench_now_s() - t0;
        busy += dt;
        w->lat[i - w->lo] = (float)(dt * 1e6);
    }
    w->busy = busy;
    return NULL;
}

/* Runs n writes in mode m from message number lo; returns the rate over wall time. */
static double durable_span(durable *d, enum dmode m, long lo, long n, float *lat)
{
    static dworker w[DURABLE_THREADS];
    int threads = m == D_CASS_THREADS || m == D_SQ_THREADS ? DURABLE_THREADS : 1;
    double t0 = bench_now_s();
    for (int t = 0; t < threads; t++) {
        w[t] = (dworker){d, m, t, threads, lo, lo + n, lat, 0, 0};
        if (pthread_create(&w[t].tid, NULL, dworker_run, &w[t]))
            bench_die("cannot start a thread");
    }
    for (int t = 0; t < threads; t++)
        pthread_join(w[t].tid, NULL);
    double dt = bench_now_s() - t0;
    if (m <= D_CASS_PIPE)
        d->cass_rows += n;
    else
        d->sq_rows += n;
    return dt > 0 ? (double)n / dt : 0;
}

static void run_durable(const config *c)
{
    static durable d;
    char dir[PATH_MAX], path[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s/durable-cassette", bench_root);
    if (mkdir(dir, 0700))
        bench_die("cannot create %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "file:%s", dir);
    d.cass.kind = K_CASS;
    cass_connect(&d.cass, path, 0, CASSETTE_DURABILITY_SYNC, 1);
    for (size_t i = 0; i < sizeof CQL_SCHEMA / sizeof *CQL_SCHEMA; i++)
        cql_run(d.cass.session, CQL_SCHEMA[i]);
    d.insert = cql_prepare(d.cass.session, CQL[OP_INSERT]);
    snprintf(path, sizeof path, "%s/durable.sqlite", bench_root);
    for (int t = 0; t < DURABLE_THREADS; t++) {
        d.db[t] = sq_connect(path, "PRAGMA synchronous=FULL");
        if (t == 0)
            sq_exec(d.db[0], SQ_SCHEMA[0]);
        if (sqlite3_prepare_v2(d.db[t], SQ[OP_INSERT], -1, &d.st[t], NULL) != SQLITE_OK)
            die_sqlite("prepare", d.db[t]);
    }
    long next_cass = 0, next_sq = 0;
    if (c->durable_preload) {
        /* messages 0..N-1, LOAD_DEPTH in flight (cassette) or LOAD_TXN to a transaction (SQLite);
           the rounds' messages follow them */
        double t0 = bench_now_s();
        CassFuture *ring[LOAD_DEPTH] = {0};
        long n = c->durable_preload;
        for (long i = 0; i < n + LOAD_DEPTH; i++) {
            CassFuture **slot = &ring[i % LOAD_DEPTH];
            if (*slot) {
                if (cass_future_error_code(*slot) != CASS_OK)
                    bench_die_future("loading", *slot);
                cass_future_free(*slot);
                *slot = NULL;
            }
            if (i < n) {
                CassStatement *st = cass_bind_msg(d.insert, (int)(i % n_rooms), i);
                *slot = cass_session_execute(d.cass.session, st);
                cass_statement_free(st);
            }
        }
        for (long i = 0; i < n; i++) {
            if (i % LOAD_TXN == 0)
                sq_exec(d.db[0], "BEGIN");
            sq_bind_msg(d.st[0], (int)(i % n_rooms), i);
            sq_done(d.db[0], d.st[0], "loading messages");
            if (i % LOAD_TXN == LOAD_TXN - 1 || i == n - 1)
                sq_exec(d.db[0], "COMMIT");
        }
        next_cass = next_sq = d.cass_rows = d.sq_rows = n;
        printf("\ndurable databases preloaded with %ld messages in %.1f s\n", n,
               bench_now_s() - t0);
    }
    long per[N_DMODES];
    per[D_CASS_THREADS] = (long)(640 * c->durable_scale);
    per[D_CASS_PIPE] = (long)(1000 * c->durable_scale);
    per[D_SQ_1] = (long)(100 * c->durable_scale);
    per[D_SQ_THREADS] = (long)(96 * c->durable_scale);
    long max = 0;
    for (int m = 0; m < N_DMODES; m++)
        max = per[m] > max ? per[m] : max;
    float *lat = malloc((size_t)N_DMODES * (size_t)c->rounds * (size_t)max * sizeof *lat);
    if (!lat)
        bench_die_nomem();
    result res[N_DMODES];
    memset(res, 0, sizeof res);
    /* a warm-up: a tenth of a round each */
    for (int m = 0; m < N_DMODES; m++) {
        long n = per[m] / 10 > 32 ? per[m] / 10 : 32;
        float *l = malloc((size_t)n * sizeof *l);
        if (!l)
            bench_die_nomem();
        long *next = m <= D_CASS_PIPE ? &next_cass : &next_sq;
        durable_span(&d, (enum dmode)m, *next, n, l);
        *next += n;
        free(l);
    }
    for (int k = 0; k < c->rounds; k++)
        for (int j = 0; j < N_DMODES; j++) {
            int m = (j + k) % N_DMODES;
            long *next = m <= D_CASS_PIPE ? &next_cass : &next_sq;
            float *l = lat + ((size_t)m * (size_t)c->rounds + (size_t)k) * (size_t)max;
            res[m].rate[k] = durable_span(&d, (enum dmode)m, *next, per[m], l);
            *next += per[m];
        }
    long n = cql_count(d.cass.session, "SELECT count(*) FROM chat.messages");
    if (n != d.cass_rows)
        bench_die("the durable cassette database holds %ld messages, expected %ld", n, d.cass_rows);
    if ((n = sq_count(d.db[0], "messages")) != d.sq_rows)
        bench_die("the durable SQLite database holds %ld messages, expected %ld", n, d.sq_rows);
    static const char *const ids[N_DMODES][2] = {
        {"durable_insert", "cassette_sync_group"},
        {"durable_insert_pipeline100", "cassette_sync_group"},
        {"durable_insert", "sqlite_full"},
        {"durable_insert", "sqlite_full"}};
    static const int threads[N_DMODES] = {32, 1, 1, 32};
    const char *names[N_DMODES];
    for (int m = 0; m < N_DMODES; m++) {
        /* the rounds' latencies side by side: compact them first */
        float *l = lat + (size_t)m * (size_t)c->rounds * (size_t)max;
        for (int k = 1; k < c->rounds; k++)
            memmove(l + (size_t)k * (size_t)per[m], l + (size_t)k * (size_t)max,
                    (size_t)per[m] * sizeof *l);
        bench_summarise(&res[m], l, (long)c->rounds * per[m], c->rounds);
        names[m] = DMODE_NAME[m];
        csv_row(0, ids[m][0], "-", threads[m], ids[m][1], &res[m], c, per[m], (part_size){0, 0});
    }
    print_table("durable writes (one row each, durable when it returns): cassette SYNC with "
                "group commit, SQLite WAL synchronous=FULL",
                names, res, N_DMODES, "first/this");
    /* The targets: threads each waiting on its own write at least 10x SQLite's single-row FULL
       transactions from one thread; one thread pipelining at least 50,000 rows/s. */
    double sq1 = res[D_SQ_1].med, x = sq1 > 0 ? res[D_CASS_THREADS].med / sq1 : 0;
    printf("target for %s (>= 10x SQLite, 1 thread): %s (%.1fx)\n", DMODE_NAME[D_CASS_THREADS],
           x >= 10 ? "met" : "MISSED", x);
    printf("target for %s (>= 50,000 rows/s): %s (%.0f rows/s)\n", DMODE_NAME[D_CASS_PIPE],
           res[D_CASS_PIPE].med >= 50000 ? "met" : "MISSED", res[D_CASS_PIPE].med);
    printf("checked: the cassette database holds its %ld rows, SQLite its %ld\n", d.cass_rows,
           d.sq_rows);
    free(lat);
    cass_prepared_free(d.insert);
    cass_disconnect(&d.cass);
    for (int t = 0; t < DURABLE_THREADS; t++) {
        sqlite3_finalize(d.st[t]);
        sqlite3_close(d.db[t]);
    }
}

/* ---- the summary and main ---- */

static void print_summary(const config *c)
{
    printf("\nsummary: cassette's throughput over each peer's (median rounds; > 1: cassette "
           "faster)\n");
    printf("  %-9s %-20s %-8s %3s %10s %10s %10s\n", "messages", "operation", "choice", "thr",
           "/SQLite", "/raw LMDB", c->remote ? "/remote" : "");
    for (int i = 0; i < n_summary; i++) {
        const summary_row *r = &summary[i];
        printf("  %-9ld %-20s %-8s %3d %10.2f %10.2f", r->size, OP_NAME[r->op],
               r->hot ? "hot" : "uniform", r->threads, r->ratio[K_SQLITE], r->ratio[K_LMDB]);
        if (c->remote)
            printf(" %10.2f", r->ratio[K_REMOTE]);
        printf("\n");
    }
}

static void usage(void)
{
    fprintf(stderr,
            "usage: peers_bench [--quick] [--sizes N,N..] [--huge] [--rooms R] [--ops N]\n"
            "                   [--rounds K] [--csv FILE] [--dir D] [--cassette PATH] "
            "[--no-remote]\n"
            "                   [--durable-preload N]\n"
            "  --quick       10^4 and 10^5 messages, 1,000 operations a round, 3 rounds\n"
            "  (default)     10^4, 10^5 and 10^6 messages, 5,000 operations a round, 5 rounds\n"
            "  --huge        add 10^7 messages (about 3 GB per system on disk)\n"
            "  --sizes LIST  the message counts, comma-separated\n"
            "  --rooms R     rooms (default 100)\n"
            "  --ops N       timed operations per round and system\n"
            "  --rounds K    rounds per figure (at most %d)\n"
            "  --csv FILE    write every figure to FILE\n"
            "  --dir D       put the databases under D (default $TMPDIR or /tmp)\n"
            "  --cassette P  the cassette program to serve with (default build/release/cassette)\n"
            "  --no-remote   leave out cassette over `cassette serve`\n"
            "  --durable-preload N  load N messages into the durable databases first\n",
            BENCH_MAX_ROUNDS);
    exit(2);
}

static long parse_long(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    config c = {.sizes = {10000, 100000, 1000000},
                .n_sizes = 3,
                .per_round = 5000,
                .rounds = 5,
                .remote = 1,
                .durable_scale = 5,
                .cassette = "build/release/cassette"};
    const char *tmp = getenv("TMPDIR");
    c.base = tmp && *tmp ? tmp : "/tmp";
    long ops = 0;
    int rounds = 0, huge = 0, sizes_given = 0;
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof c.command; i++)
        used += (size_t)snprintf(c.command + used, sizeof c.command - used, "%s%s", i ? " " : "",
                                 argv[i]);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            c.quick = 1;
        } else if (!strcmp(a, "--huge")) {
            huge = 1;
        } else if (!strcmp(a, "--no-remote")) {
            c.remote = 0;
        } else if (!v) {
            usage();
        } else if (!strcmp(a, "--sizes")) {
            sizes_given = 1;
            c.n_sizes = 0;
            for (char *p = argv[++i], *tok; (tok = strsep(&p, ","));)
                if (c.n_sizes == MAX_SIZES)
                    usage();
                else
                    c.sizes[c.n_sizes++] = parse_long(tok, 1, 1000000000);
        } else if (!strcmp(a, "--rooms")) {
            n_rooms = (int)parse_long(argv[++i], 1, 1000000);
        } else if (!strcmp(a, "--ops")) {
            ops = parse_long(argv[++i], 10, 100000000);
        } else if (!strcmp(a, "--rounds")) {
            rounds = (int)parse_long(argv[++i], 1, BENCH_MAX_ROUNDS);
        } else if (!strcmp(a, "--csv")) {
            c.csv = argv[++i];
        } else if (!strcmp(a, "--dir")) {
            c.base = argv[++i];
        } else if (!strcmp(a, "--cassette")) {
            c.cassette = argv[++i];
        } else if (!strcmp(a, "--durable-preload")) {
            c.durable_preload = parse_long(argv[++i], 0, 100000000);
        } else {
            usage();
        }
    }
    if (c.quick) {
        if (!sizes_given) {
            c.sizes[0] = 10000;
            c.sizes[1] = 100000;
            c.n_sizes = 2;
        }
        c.per_round = 1000;
        c.rounds = 3;
        c.durable_scale = 1;
    }
    if (huge && c.n_sizes < MAX_SIZES)
        c.sizes[c.n_sizes++] = 10000000;
    if (ops)
        c.per_round = ops;
    if (rounds)
        c.rounds = rounds;
    c.warm = c.per_round / 5 > 20 ? c.per_round / 5 : 20;

    signal(SIGPIPE, SIG_IGN);
    cass_log_set_level(CASS_LOG_ERROR);
    const char *root = bench_make_root(c.base, "cassette-peers");
    if (c.csv && !(csv = fopen(c.csv, "w")))
        bench_die("cannot write %s: %s", c.csv, strerror(errno));
    make_data();

    int lmaj, lmin, lpatch;
    mdb_version(&lmaj, &lmin, &lpatch);
    const char *fs = bench_fs_name(root, "tmpfs (in memory: syncs cost nothing)");
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("peers_bench: the chat model through cassandra.h on cassette, beside SQLite, raw "
           "LMDB%s, same run\n",
           c.remote ? " and cassette serve on loopback" : "");
    char host[512];
    bench_machine(host, sizeof host);
    printf("cassette %s, SQLite %s, LMDB %d.%d.%d; %s; databases under %s (%s); %s\n",
           cassette_version(), sqlite3_libversion(), lmaj, lmin, lpatch, host, root, fs, date);
    printf("%d rooms; each figure: %ld warm-up operations, then %d rounds of %ld per system, "
           "systems in turn; median round, min-max of rounds\n",
           n_rooms, c.warm, c.rounds, c.per_round);
    if (csv) {
        fprintf(csv, "# command: %s\n", c.command);
        fprintf(csv, "# date: %s\n", date);
        fprintf(csv, "# versions: cassette %s, SQLite %s, LMDB %d.%d.%d\n", cassette_version(),
                sqlite3_libversion(), lmaj, lmin, lpatch);
        fprintf(csv, "# file system: %s\n", fs);
        fprintf(csv, "# machine: %s\n", host);
        fprintf(csv, "size,rooms,workload,dist,threads,system,ops_per_s,min_ops_per_s,"
                     "max_ops_per_s,p50_us,p99_us,rounds,ops_per_round,room_msgs,"
                     "partition_msgs\n");
    }
    fflush(stdout);
    for (int i = 0; i < c.n_sizes; i++)
        run_size(&c, c.sizes[i], i);
    run_durable(&c);
    print_summary(&c);
    if (csv && fclose(csv))
        bench_die("cannot write %s", c.csv);
    for (int r = 0; r < n_rooms; r++)
        free(rooms[r].n);
    free(rooms);
    free(room_names);
    free(zipf_cdf);
    return 0;
}
