/*
 * The engine-level benchmark of the chat workload: insert messages one row
 * per transaction (durability none and sync), read the last 50 messages of
 * a room, read one message by its full primary key, and insert a user if
 * absent with compare-and-set. Every operation also runs on raw LMDB in the
 * same run with byte-identical keys (the engine's own encoding, engine/store/rowkey.h)
 * and a plain length-prefixed value, so the ratio engine/raw is what the
 * data model costs over the bare B+tree. The target is a ratio of
 * at least 0.5 on each operation; the figures are reported, never asserted:
 * the exit status is non-zero only when a storage call fails or returns
 * wrong rows.
 *
 * Fairness: both sides open their environment with the same flags for the
 * durability mode (MDB_NOTLS as the engine does, plus MDB_NOSYNC |
 * MDB_NOMETASYNC for "none"), run one write transaction per operation and
 * reuse reset read transactions with mdb_txn_renew. The raw side gets its
 * keys encoded before timing and renews one cursor instead of opening one:
 * it is the bare LMDB cost, the bound the engine is compared with. Each
 * figure is the median of several rounds that alternate which side runs
 * first, because this 2-core machine is shared with builds and a single
 * long run would charge a burst of noise to one side only.
 */
#include <errno.h>
#include <limits.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BENCH_NAME "engine_bench"
#include "bench/bench.h"
#include "engine/store/store_int.h"
#include "engine/store/rowkey.h"

#define N_ROOMS 100
#define N_TEXTS 64  /* distinct authors, bodies and passwords, cycled */
#define LAST_N 50
#define ROUNDS 5
#define USER_BATCH 256
#define SEED 0x5eed2024c0ffee01ULL /* fixed: every run reads the same rows */
#define MIN_OPS 1000

static const eng_option REPL[] = {{"class", "SimpleStrategy"}, {"replication_factor", "1"}};
static const char *const SUBDIRS[] = {"engine-none", "raw-none", "engine-sync", "raw-sync"};

/* ---- failures: the only non-zero exits (with bench.h's) ---- */

static void die_eng(const char *what, const eng_err *err)
{
    bench_die("engine error in %s: %d %s", what, err->code, err->msg);
}

static void die_mdb(const char *what, int rc)
{
    bench_die("raw LMDB error in %s: %s", what, mdb_strerror(rc));
}

/* ---- run configuration and data set ---- */

typedef struct config {
    long inserts;      /* messages inserted with durability none, warm-up included */
    long sync_inserts; /* messages inserted with durability sync */
    long reads;        /* last-50 reads, and as many point reads */
    long cas;          /* insert-if-absent operations */
    const char *base;  /* directory the run's databases go under */
} config;

/* Byte strings laid end to end: the raw side's pre-encoded keys. */
typedef struct keyset {
    eng_buf bytes;
    size_t *off; /* n + 1 offsets into bytes */
    long n;
} keyset;

typedef struct dataset {
    char rooms[N_ROOMS][16];
    eng_val room[N_ROOMS];
    char authors[N_TEXTS][16];   /* ~10 bytes */
    char bodies[N_TEXTS][128];   /* ~100 bytes */
    char passwords[N_TEXTS][48]; /* 40 bytes */
    uint8_t (*ids)[16];          /* message i: room i % N_ROOMS, msg_id ids[i] */
    long n_ids;
    long n_users;                /* logins stored before the CAS run */
    char (*logins)[32];          /* CAS position i: a new login (even i) or a stored one */
    long n_logins;
    keyset msg_keys;             /* row key of message i */
    keyset room_end;             /* first key after room r's rows: a backward walk starts here */
    keyset room_rows;            /* room r's partition prefix + ENG_KIND_ROW */
    keyset user_keys;            /* row key of CAS position i */
} dataset;

static eng_val text(const char *s)
{
    return (eng_val){(const uint8_t *)s, (int32_t)strlen(s)};
}

/* splitmix64: the same pseudo-random pick for both sides at position i. */
static long pick(long i, long n)
{
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL + SEED;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (long)((z ^ (z >> 31)) % (uint64_t)n);
}

static void keyset_add(keyset *k, const eng_buf *key)
{
    if ((k->n & (k->n - 1)) == 0) { /* n is 0 or a power of two: grow */
        size_t *off = realloc(k->off, (size_t)(k->n ? 2 * k->n + 1 : 2) * sizeof *off);
        if (!off)
            bench_die_nomem();
        k->off = off;
        if (k->n == 0)
            off[0] = 0;
    }
    eng_buf_put(&k->bytes, key->p, key->len);
    k->off[++k->n] = k->bytes.len;
}

static MDB_val keyset_at(const keyset *k, long i)
{
    return (MDB_val){k->off[i + 1] - k->off[i], k->bytes.p + k->off[i]};
}

static void keyset_free(keyset *k)
{
    eng_buf_free(&k->bytes);
    free(k->off);
}

static void make_texts(dataset *d)
{
    static const char filler[] = "the quick brown fox jumps over the lazy dog while the chat "
                                 "room keeps scrolling past the fold of the window, again ";
    for (int r = 0; r < N_ROOMS; r++) {
        snprintf(d->rooms[r], sizeof d->rooms[r], "room-%03d", r);
        d->room[r] = text(d->rooms[r]);
    }
    for (int t = 0; t < N_TEXTS; t++) {
        snprintf(d->authors[t], sizeof d->authors[t], "author-%03d", t);
        int len = 96 + t % 9;
        snprintf(d->bodies[t], sizeof d->bodies[t], "#%02d %.*s", t, len - 4, filler);
        snprintf(d->passwords[t], sizeof d->passwords[t], "%016lx%016lx%08x",
                 (unsigned long)pick(t, LONG_MAX), (unsigned long)pick(t + N_TEXTS, LONG_MAX),
                 (unsigned)t); /* 40 hex digits, like a stored hash */
    }
}

/* CAS position i: even positions try a login nobody has, odd ones a stored login. */
static void make_logins(dataset *d, long n_cas)
{
    d->n_users = n_cas / 2 > MIN_OPS ? n_cas / 2 : MIN_OPS;
    d->n_logins = n_cas;
    d->logins = calloc((size_t)n_cas, sizeof *d->logins);
    if (!d->logins)
        bench_die_nomem();
    for (long i = 0; i < n_cas; i++) {
        if (i % 2 == 0)
            snprintf(d->logins[i], sizeof d->logins[i], "new-%07ld", i);
        else
            snprintf(d->logins[i], sizeof d->logins[i], "user-%07ld", pick(i, d->n_users));
    }
}

/* The raw side's keys, made with the engine's own encoding so they are byte-identical. */
static void encode_keys(dataset *d, const eng_table *msgs, const eng_table *users)
{
    eng_err err;
    eng_err_clear(&err);
    eng_buf key = ENG_BUF_INIT;
    for (int r = 0; r < N_ROOMS; r++) {
        eng_buf_reset(&key);
        if (eng_storage_partition(&key, msgs, &d->room[r], NULL, &err))
            die_eng("encode a partition key", &err);
        eng_buf_put_u8(&key, ENG_KIND_ROW);
        keyset_add(&d->room_rows, &key);
        key.p[key.len - 1] = ENG_KIND_ROW + 1;
        keyset_add(&d->room_end, &key);
    }
    for (long i = 0; i < d->n_ids; i++) {
        MDB_val room = keyset_at(&d->room_rows, i % N_ROOMS);
        eng_val ck = {d->ids[i], 16};
        eng_buf_reset(&key);
        eng_buf_put(&key, room.mv_data, room.mv_size);
        if (eng_storage_clustering(&key, msgs, &ck, 1, &err))
            die_eng("encode a clustering key", &err);
        keyset_add(&d->msg_keys, &key);
    }
    for (long i = 0; i < d->n_logins; i++) {
        eng_val pk = text(d->logins[i]);
        eng_buf_reset(&key);
        if (eng_storage_partition(&key, users, &pk, NULL, &err))
            die_eng("encode a partition key", &err);
        eng_buf_put_u8(&key, ENG_KIND_ROW);
        keyset_add(&d->user_keys, &key);
    }
    eng_buf_free(&key);
    if (d->msg_keys.bytes.oom || d->room_rows.bytes.oom || d->room_end.bytes.oom ||
        d->user_keys.bytes.oom)
        bench_die_nomem();
}

/* Rows the last-50 read of room r must return once `n_msgs` messages are stored. */
static long expected_last(long n_msgs, int r)
{
    long in_room = n_msgs / N_ROOMS + (r < n_msgs % N_ROOMS);
    return in_room < LAST_N ? in_room : LAST_N;
}

/* ---- the engine side ---- */

typedef struct engine {
    eng_db *db;
    eng_schema *schema; /* keeps msgs and users alive */
    const eng_table *msgs, *users;
    uint16_t author, body, password, name;
} engine;

static void make_schema(eng_db *db)
{
    eng_err err;
    eng_err_clear(&err);
    eng_type *txt = eng_type_new(ENG_TEXT), *tuuid = eng_type_new(ENG_TIMEUUID);
    eng_column_def msgs[] = {
        {"room", txt, ENG_COL_PARTITION, 0},
        {"msg_id", tuuid, ENG_COL_CLUSTERING, 1}, /* CLUSTERING ORDER BY (msg_id DESC) */
        {"author", txt, ENG_COL_REGULAR, 0},
        {"body", txt, ENG_COL_REGULAR, 0},
    };
    eng_column_def users[] = {
        {"login", txt, ENG_COL_PARTITION, 0},
        {"password", txt, ENG_COL_REGULAR, 0},
        {"name", txt, ENG_COL_REGULAR, 0},
    };
    eng_table_def defs[] = {{"chat", "messages", 4, msgs, 0, NULL},
                            {"chat", "users", 3, users, 0, NULL}};
    if (!txt || !tuuid)
        bench_die_nomem();
    if (eng_create_keyspace(db, "chat", REPL, 2, 1, 0, NULL, &err))
        die_eng("create keyspace", &err);
    for (size_t i = 0; i < ENG_ARRAY_LEN(defs); i++)
        if (eng_create_table(db, &defs[i], 0, NULL, &err))
            die_eng("create table", &err);
    eng_type_free(txt);
    eng_type_free(tuuid);
}

static uint16_t column(const eng_table *t, const char *name)
{
    int i = eng_table_column_index(t, name);
    if (i < 0)
        bench_die("column %s missing", name);
    return (uint16_t)i;
}

static void engine_open(engine *e, const char *dir, int durability, size_t map_size)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db_options o = {durability, map_size, 0, 0, 0};
    if (eng_db_open(dir, &o, &e->db, &err))
        die_eng("open", &err);
    make_schema(e->db);
    if (eng_db_schema(e->db, &e->schema, &err))
        die_eng("schema", &err);
    e->msgs = eng_schema_table(e->schema, "chat", "messages");
    e->users = eng_schema_table(e->schema, "chat", "users");
    e->author = column(e->msgs, "author");
    e->body = column(e->msgs, "body");
    e->password = column(e->users, "password");
    e->name = column(e->users, "name");
}

static void engine_close(engine *e)
{
    eng_schema_unref(e->schema);
    eng_db_close(e->db);
}

/* ---- the raw LMDB side ---- */

typedef struct raw_env {
    MDB_env *env;
    MDB_dbi msgs, users;
    MDB_txn *rtxn;     /* reset between reads, renewed by the next one */
    MDB_cursor *cur;   /* on msgs, renewed with rtxn */
} raw_env;

static void raw_open(raw_env *r, const char *dir, int durability, size_t map_size)
{
    int rc;
    unsigned flags = MDB_NOTLS;
    if (durability == ENG_DURABLE_NONE)
        flags |= MDB_NOSYNC | MDB_NOMETASYNC;
    if (mkdir(dir, 0755) && errno != EEXIST)
        die_mdb("create directory", errno);
    if ((rc = mdb_env_create(&r->env)) || (rc = mdb_env_set_maxdbs(r->env, 4)) ||
        (rc = mdb_env_set_mapsize(r->env, map_size)) ||
        (rc = mdb_env_open(r->env, dir, flags, 0644)))
        die_mdb("open", rc);
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(r->env, NULL, 0, &txn)) ||
        (rc = mdb_dbi_open(txn, "messages", MDB_CREATE, &r->msgs)) ||
        (rc = mdb_dbi_open(txn, "users", MDB_CREATE, &r->users)) || (rc = mdb_txn_commit(txn)))
        die_mdb("create sub-databases", rc);
    if ((rc = mdb_txn_begin(r->env, NULL, MDB_RDONLY, &r->rtxn)) ||
        (rc = mdb_cursor_open(r->rtxn, r->msgs, &r->cur)))
        die_mdb("begin read", rc);
    mdb_txn_reset(r->rtxn);
}

static void raw_close(raw_env *r)
{
    mdb_cursor_close(r->cur);
    mdb_txn_abort(r->rtxn);
    mdb_env_close(r->env);
}

static void raw_renew(raw_env *r)
{
    int rc = mdb_txn_renew(r->rtxn);
    if (rc)
        die_mdb("renew read", rc);
}

/* Raw value: two length-prefixed strings (author and body, or password and name). */
static size_t raw_value(uint8_t *out, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    out[0] = (uint8_t)(la >> 8);
    out[1] = (uint8_t)la;
    memcpy(out + 2, a, la);
    out[2 + la] = (uint8_t)(lb >> 8);
    out[3 + la] = (uint8_t)lb;
    memcpy(out + 4 + la, b, lb);
    return 4 + la + lb;
}

/* ---- operations: op(b, i) runs operation number i of a workload ---- */

struct bench {
    const dataset *d;
    engine *e;         /* the side this bench drives: e or r */
    raw_env *r;
    long n_msgs;       /* messages stored: reads pick among them */
    long rows;         /* rows the current read returned */
    long applied;      /* CAS operations that applied */
    uint64_t check;    /* folds the bytes read, so no read can be skipped */
    eng_err err;
};

/* What a consumer does with a message: looks at both strings. */
static void consume(bench *b, const uint8_t *a, int32_t la, const uint8_t *body, int32_t lb)
{
    b->rows++;
    b->check += (uint64_t)(la + lb) + (la > 0 ? a[la - 1] : 0) + (lb > 0 ? body[lb - 1] : 0);
}

static int engine_row(void *ctx, const eng_row_view *v)
{
    bench *b = ctx;
    eng_val a, body;
    if (eng_view_column(v, b->e->author, &a, NULL, NULL, &b->err) ||
        eng_view_column(v, b->e->body, &body, NULL, NULL, &b->err))
        return -b->err.code;
    consume(b, a.p, a.len, body.p, body.len);
    return 0;
}

static void raw_row(bench *b, const MDB_val *v)
{
    const uint8_t *p = v->mv_data;
    int32_t la = eng_be16(p), lb = eng_be16(p + 2 + la);
    consume(b, p + 2, la, p + 4 + la, lb);
}

static void engine_insert(bench *b, long i)
{
    const dataset *d = b->d;
    eng_val pk = d->room[i % N_ROOMS], ck = {d->ids[i], 16};
    eng_cell_op ops[2] = {
        {b->e->author, ENG_OP_SET, {NULL, 0}, text(d->authors[i % N_TEXTS])},
        {b->e->body, ENG_OP_SET, {NULL, 0}, text(d->bodies[i % N_TEXTS])},
    };
    eng_row_mut rm = {&ck, 1, 0, 2, ops};
    eng_mutation m = {b->e->msgs, &pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    if (eng_apply(b->e->db, &m, 1, NULL, &b->err))
        die_eng("insert", &b->err);
}

static void raw_insert(bench *b, long i)
{
    const dataset *d = b->d;
    uint8_t buf[256];
    MDB_val k = keyset_at(&d->msg_keys, i);
    MDB_val v = {raw_value(buf, d->authors[i % N_TEXTS], d->bodies[i % N_TEXTS]), buf};
    MDB_txn *txn;
    int rc = mdb_txn_begin(b->r->env, NULL, 0, &txn);
    if (!rc && (rc = mdb_put(txn, b->r->msgs, &k, &v, 0)))
        mdb_txn_abort(txn);
    else if (!rc)
        rc = mdb_txn_commit(txn);
    if (rc)
        die_mdb("insert", rc);
}

/* SELECT author, body FROM messages WHERE room = ? LIMIT 50 (newest first). */
static void engine_last(bench *b, long i)
{
    int room = (int)pick(i, N_ROOMS);
    const eng_val *keys[1] = {&b->d->room[room]};
    eng_query q = {.table = b->e->msgs, .n_keys = 1, .keys = keys, .limit = LAST_N};
    b->rows = 0;
    if (eng_read(b->e->db, &q, engine_row, b, NULL, &b->err))
        die_eng("last 50", &b->err);
    if (b->rows != expected_last(b->n_msgs, room))
        bench_die_rows("engine last 50", b->rows, expected_last(b->n_msgs, room));
}

/* The same on LMDB: from the end of the partition's rows, 50 steps back. */
static void raw_last(bench *b, long i)
{
    int room = (int)pick(i, N_ROOMS);
    raw_env *r = b->r;
    MDB_val end = keyset_at(&b->d->room_end, room), rows = keyset_at(&b->d->room_rows, room);
    MDB_val k = end, v;
    raw_renew(r);
    int rc = mdb_cursor_renew(r->rtxn, r->cur);
    if (!rc)
        rc = mdb_cursor_get(r->cur, &k, &v, MDB_SET_RANGE);
    rc = rc == MDB_NOTFOUND ? mdb_cursor_get(r->cur, &k, &v, MDB_LAST)
                            : (rc ? rc : mdb_cursor_get(r->cur, &k, &v, MDB_PREV));
    b->rows = 0;
    while (rc == 0 && b->rows < LAST_N && k.mv_size > rows.mv_size &&
           memcmp(k.mv_data, rows.mv_data, rows.mv_size) == 0) {
        raw_row(b, &v);
        rc = mdb_cursor_get(r->cur, &k, &v, MDB_PREV);
    }
    mdb_txn_reset(r->rtxn);
    if (rc && rc != MDB_NOTFOUND)
        die_mdb("last 50", rc);
    if (b->rows != expected_last(b->n_msgs, room))
        bench_die_rows("raw last 50", b->rows, expected_last(b->n_msgs, room));
}

/* SELECT author, body FROM messages WHERE room = ? AND msg_id = ? */
static void engine_point(bench *b, long i)
{
    long j = pick(i, b->n_msgs);
    const eng_val *keys[1] = {&b->d->room[j % N_ROOMS]};
    eng_val ck = {b->d->ids[j], 16};
    eng_slice s = {{&ck, 1, 1}, {&ck, 1, 1}};
    eng_query q = {.table = b->e->msgs, .n_keys = 1, .keys = keys, .n_slices = 1, .slices = &s};
    b->rows = 0;
    if (eng_read(b->e->db, &q, engine_row, b, NULL, &b->err))
        die_eng("point read", &b->err);
    if (b->rows != 1)
        bench_die_rows("engine point read", b->rows, 1);
}

static void raw_point(bench *b, long i)
{
    MDB_val k = keyset_at(&b->d->msg_keys, pick(i, b->n_msgs)), v;
    raw_renew(b->r);
    int rc = mdb_get(b->r->rtxn, b->r->msgs, &k, &v);
    if (rc == 0)
        raw_row(b, &v);
    mdb_txn_reset(b->r->rtxn);
    if (rc)
        die_mdb("point read", rc);
}

/* INSERT INTO users (login, password, name) VALUES (?, ?, ?) [IF NOT EXISTS] */
static void user_mutation(const engine *e, const eng_val *pk, long t, eng_cell_op ops[2],
                          eng_row_mut *rm, eng_mutation *m, const dataset *d)
{
    static const eng_val no_ck[1] = {{NULL, 0}}; /* a table without clustering: not static */
    ops[0] = (eng_cell_op){e->password, ENG_OP_SET, {NULL, 0}, text(d->passwords[t % N_TEXTS])};
    ops[1] = (eng_cell_op){e->name, ENG_OP_SET, {NULL, 0}, text(d->authors[t % N_TEXTS])};
    *rm = (eng_row_mut){no_ck, 1, 0, 2, ops};
    *m = (eng_mutation){e->users, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, rm, 0};
}

static void engine_cas(bench *b, long i)
{
    eng_val pk = text(b->d->logins[i]);
    eng_cell_op ops[2];
    eng_row_mut rm;
    eng_mutation m;
    user_mutation(b->e, &pk, i, ops, &rm, &m, b->d);
    eng_cas_row row = {rm.ck, 0, 1, 0, NULL};
    eng_cas cas = {b->e->users, &pk, 1, &row, 1, &m, 0};
    int applied;
    if (eng_cas_apply(b->e->db, &cas, &applied, NULL, NULL, &b->err))
        die_eng("insert if absent", &b->err);
    b->applied += applied;
}

static void raw_cas(bench *b, long i)
{
    const dataset *d = b->d;
    MDB_val k = keyset_at(&d->user_keys, i), v;
    MDB_txn *txn;
    int rc = mdb_txn_begin(b->r->env, NULL, 0, &txn);
    if (rc)
        die_mdb("insert if absent", rc);
    rc = mdb_get(txn, b->r->users, &k, &v);
    if (rc == MDB_NOTFOUND) {
        uint8_t buf[256];
        v.mv_size = raw_value(buf, d->passwords[i % N_TEXTS], d->authors[i % N_TEXTS]);
        v.mv_data = buf;
        rc = mdb_put(txn, b->r->users, &k, &v, 0);
        b->applied++;
    }
    if (rc)
        mdb_txn_abort(txn);
    else
        rc = mdb_txn_commit(txn);
    if (rc)
        die_mdb("insert if absent", rc);
}

/* Stores logins user-0000000 .. n_users-1 on both sides, batched (untimed). */
static void load_users(engine *e, raw_env *r, const dataset *d)
{
    eng_err err;
    eng_err_clear(&err);
    static char login[USER_BATCH][32];
    eng_val pk[USER_BATCH];
    eng_cell_op ops[USER_BATCH][2];
    eng_row_mut rm[USER_BATCH];
    eng_mutation m[USER_BATCH];
    for (long u0 = 0; u0 < d->n_users; u0 += USER_BATCH) {
        uint32_t n = (uint32_t)(d->n_users - u0 < USER_BATCH ? d->n_users - u0 : USER_BATCH);
        MDB_txn *txn;
        int rc = mdb_txn_begin(r->env, NULL, 0, &txn);
        for (uint32_t j = 0; j < n && !rc; j++) {
            snprintf(login[j], sizeof login[j], "user-%07ld", u0 + j);
            pk[j] = text(login[j]);
            user_mutation(e, &pk[j], u0 + j, ops[j], &rm[j], &m[j], d);
            eng_buf key = ENG_BUF_INIT;
            if (eng_storage_partition(&key, e->users, &pk[j], NULL, &err))
                die_eng("encode a partition key", &err);
            eng_buf_put_u8(&key, ENG_KIND_ROW);
            uint8_t buf[256];
            MDB_val k = {key.len, key.p};
            MDB_val v = {raw_value(buf, d->passwords[(u0 + j) % N_TEXTS],
                                   d->authors[(u0 + j) % N_TEXTS]), buf};
            rc = mdb_put(txn, r->users, &k, &v, 0);
            eng_buf_free(&key);
        }
        if (rc || (rc = mdb_txn_commit(txn)))
            die_mdb("store users", rc);
        if (eng_apply(e->db, m, n, NULL, &err))
            die_eng("store users", &err);
    }
}

/* ---- on-disk size ---- */

typedef struct space {
    double bytes;   /* (branch + leaf + overflow pages) * page size */
    size_t entries;
    double key_bytes, val_bytes; /* totals over the entries */
} space;

static int stat_dbi(MDB_txn *txn, MDB_dbi dbi, space *s)
{
    MDB_stat st;
    MDB_cursor *c;
    int rc = mdb_stat(txn, dbi, &st);
    if (rc || (rc = mdb_cursor_open(txn, dbi, &c)))
        return rc;
    s->bytes = (double)(st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages) * st.ms_psize;
    s->entries = st.ms_entries;
    MDB_val k, v;
    for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
        s->key_bytes += (double)k.mv_size;
        s->val_bytes += (double)v.mv_size;
    }
    mdb_cursor_close(c);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

static void measure_space(engine *e, raw_env *r, space *es, space *rs)
{
    eng_err err;
    eng_err_clear(&err);
    MDB_txn *txn;
    memset(es, 0, sizeof *es);
    memset(rs, 0, sizeof *rs);
    if (eng_read_begin(e->db, &txn, &err))
        die_eng("stat", &err);
    int rc = stat_dbi(txn, e->msgs->dbi, es);
    eng_read_end(e->db, txn);
    if (rc)
        die_mdb("engine stat", rc);
    raw_renew(r);
    rc = stat_dbi(r->rtxn, r->msgs, rs);
    mdb_txn_reset(r->rtxn);
    if (rc)
        die_mdb("raw stat", rc);
}

/* ---- report ---- */

static void print_header(const config *cfg, const char *root, const char *fs)
{
    int major, minor, patch;
    mdb_version(&major, &minor, &patch);
    printf("engine_bench: cassette engine vs raw LMDB %d.%d.%d, same keys, same run\n", major,
           minor, patch);
    printf("databases: %s (%s)\n", root, fs);
    printf("workload: %d rooms, %ld messages (bodies ~100 B, authors ~10 B), %ld reads of each "
           "kind,\n          %ld inserts if absent (half new logins), %ld durable inserts\n",
           N_ROOMS, cfg->inserts, cfg->reads, cfg->cas, cfg->sync_inserts);
    printf("figures: median of %d rounds, engine and raw alternating first; target engine/raw "
           ">= 0.50\n\n",
           ROUNDS);
    printf("%-34s %9s %12s %12s %10s  %s\n", "operation", "ops/round", "engine ops/s",
           "raw ops/s", "engine/raw", "target");
}

/* A figure's first side is the engine, its second raw LMDB. */
static void print_result(const bench_figure *r)
{
    double ratio = bench_ratio(r->a, r->b);
    printf("%-34s %9ld %12.0f %12.0f %10.2f  %s\n", r->name, r->per_round, r->a, r->b, ratio,
           ratio >= 0.5 ? "met" : "MISSED");
    fflush(stdout);
}

static void print_space(const space *es, const space *rs, long n_msgs)
{
    /* MB (10^6 bytes) per million messages is bytes per message. */
    double e = es->bytes / (double)n_msgs, r = rs->bytes / (double)n_msgs;
    printf("\non-disk size of the messages sub-database, %ld messages "
           "((branch+leaf+overflow pages) x page size):\n", n_msgs);
    printf("  engine %6.1f MB per million messages (rows: key %.1f B + value %.1f B)\n", e,
           es->key_bytes / (double)es->entries, es->val_bytes / (double)es->entries);
    printf("  raw    %6.1f MB per million messages (rows: key %.1f B + value %.1f B)\n", r,
           rs->key_bytes / (double)rs->entries, rs->val_bytes / (double)rs->entries);
    printf("  engine/raw %.2f\n", bench_ratio(e, r));
}

/* ---- main ---- */

static void usage(void)
{
    fprintf(stderr, "usage: engine_bench [--quick] [--ops N] [--dir DIR]\n"
                    "  --quick   50000 inserts (a few seconds; make demo)\n"
                    "  --ops N   N inserts, N/2 reads of each kind and N/2 CAS, N/100 durable "
                    "inserts (default 200000)\n"
                    "  --dir D   put the databases under D (default $TMPDIR or /tmp; not "
                    "/dev/shm)\n");
    exit(2);
}

static void parse_args(int argc, char **argv, config *cfg)
{
    bench_args a;
    bench_parse_args(argc, argv, "--ops", 1, usage, &a);
    long n = a.number ? strtol(a.number, NULL, 10) : a.quick ? 50000 : 200000;
    cfg->base = a.base;
    if (n < MIN_OPS)
        n = MIN_OPS;
    cfg->inserts = n;
    cfg->reads = n / 2;
    cfg->cas = n / 2;
    cfg->sync_inserts = n / 100 > 200 ? n / 100 : 200;
}

/* Durability none: inserts, then reads and CAS over what was inserted. */
static void bench_none(const config *cfg, dataset *d, engine *e, raw_env *r, bench_figure *res)
{
    bench eb = {.d = d, .e = e}, rb = {.d = d, .r = r};
    eng_err_clear(&eb.err);
    long warm = cfg->inserts / 20, per = (cfg->inserts - warm) / ROUNDS;
    res[0].name = "insert, durability none";
    bench_measure(&res[0], ROUNDS, engine_insert, &eb, raw_insert, &rb, warm, per);
    print_result(&res[0]);
    eb.n_msgs = rb.n_msgs = warm + per * ROUNDS;

    warm = cfg->reads / 20;
    per = (cfg->reads - warm) / ROUNDS;
    res[1].name = "last 50 messages of a room";
    bench_measure(&res[1], ROUNDS, engine_last, &eb, raw_last, &rb, warm, per);
    print_result(&res[1]);
    res[2].name = "point read";
    bench_measure(&res[2], ROUNDS, engine_point, &eb, raw_point, &rb, warm, per);
    print_result(&res[2]);

    load_users(e, r, d);
    warm = cfg->cas / 20;
    per = (cfg->cas - warm) / ROUNDS;
    res[3].name = "insert if absent (CAS)";
    bench_measure(&res[3], ROUNDS, engine_cas, &eb, raw_cas, &rb, warm, per);
    print_result(&res[3]);
    if (eb.applied != rb.applied)
        bench_die_rows("engine CAS (applied)", eb.applied, rb.applied);
}

static void bench_sync(const config *cfg, dataset *d, size_t map_size, bench_figure *res)
{
    char dir[PATH_MAX];
    engine e;
    raw_env r;
    bench_path(dir, sizeof dir, SUBDIRS[2]);
    engine_open(&e, dir, ENG_DURABLE_SYNC, map_size);
    bench_path(dir, sizeof dir, SUBDIRS[3]);
    raw_open(&r, dir, ENG_DURABLE_SYNC, map_size);
    bench eb = {.d = d, .e = &e}, rb = {.d = d, .r = &r};
    eng_err_clear(&eb.err);
    long warm = cfg->sync_inserts / 10, per = (cfg->sync_inserts - warm) / ROUNDS;
    res->name = "insert, durability sync";
    bench_measure(res, ROUNDS, engine_insert, &eb, raw_insert, &rb, warm, per);
    print_result(res);
    engine_close(&e);
    raw_close(&r);
}

static void make_ids(dataset *d, engine *e, long n)
{
    d->n_ids = n;
    d->ids = calloc((size_t)n, sizeof *d->ids);
    if (!d->ids)
        bench_die_nomem();
    eng_uuidgen *g = eng_db_uuidgen(e->db);
    for (long i = 0; i < n; i++)
        eng_uuidgen_next(g, eng_clock_now_us(eng_db_clock(e->db)), d->ids[i]);
}

int main(int argc, char **argv)
{
    config cfg;
    parse_args(argc, argv, &cfg);
    const char *root = bench_make_root(cfg.base, "cassette-bench");
    /* Room for every row, so no map resize lands in a timed loop (raw LMDB could not grow). */
    size_t map_size = ((size_t)1 << 30) + (size_t)cfg.inserts * 4096;
    const char *fs =
        bench_fs_name(root, "tmpfs: in memory, so sync costs nothing; use --dir on a disk");
    print_header(&cfg, root, fs);

    static dataset d;
    engine e;
    raw_env r;
    char dir[PATH_MAX];
    bench_path(dir, sizeof dir, SUBDIRS[0]);
    engine_open(&e, dir, ENG_DURABLE_NONE, map_size);
    bench_path(dir, sizeof dir, SUBDIRS[1]);
    raw_open(&r, dir, ENG_DURABLE_NONE, map_size);
    make_texts(&d);
    make_ids(&d, &e, cfg.inserts);
    make_logins(&d, cfg.cas);
    encode_keys(&d, e.msgs, e.users);

    bench_figure res[5];
    bench_none(&cfg, &d, &e, &r, res);
    bench_sync(&cfg, &d, map_size, &res[4]);

    space es, rs;
    measure_space(&e, &r, &es, &rs);
    long warm = cfg.inserts / 20;
    print_space(&es, &rs, warm + (cfg.inserts - warm) / ROUNDS * ROUNDS);

    engine_close(&e);
    raw_close(&r);
    keyset_free(&d.msg_keys);
    keyset_free(&d.room_end);
    keyset_free(&d.room_rows);
    keyset_free(&d.user_keys);
    free(d.ids);
    free(d.logins);
    return 0;
}
