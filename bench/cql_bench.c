/*
 * The statement-level benchmark of the chat workload: the three statements
 * an application runs most — insert a message, read the last 50 messages
 * of a room, insert a user if absent — as prepared CQL statements through
 * the executor (cql/cql.h), each beside the same operation on the engine
 * API (engine/engine.h) in the same run. The ratio CQL/engine is what
 * binding, validation, planning per execution and building a result cost
 * over the engine call the statement turns into. The target is a
 * ratio of at least 0.70 on each statement (parsing happens once, at
 * prepare); the figures are reported, never asserted: the exit status is
 * non-zero only when a call fails or returns wrong rows.
 *
 * Two databases, one per side, both with durability none and the schema
 * created by the same CQL text; the engine side takes its table
 * descriptors from its database's schema snapshot. One shared database
 * would let each side's writes change the other's work: twice the rows in
 * every room and B-tree, and a login the CQL side inserted would already
 * exist when the engine side tries it, breaking the half-new mix. With two,
 * both sides hold the same rows (the same message ids, generated before
 * timing) and run the same positions, so every read returns the same bytes
 * on both sides — checked at the end — and the same CAS operations apply.
 * The engine side is engine_bench's engine side, call for call.
 *
 * Each figure is the median of several rounds that alternate which side
 * runs first (this 2-core machine is shared with builds), after a warm-up
 * of each side.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BENCH_NAME "cql_bench"
#include "bench/bench.h"
#include "cql/cql.h"

#define N_ROOMS 100
#define N_TEXTS 64 /* distinct authors, bodies and passwords, cycled */
#define LAST_N 50
#define ROUNDS 5
#define USER_BATCH 256
#define SEED 0x5eed2024c0ffee01ULL /* fixed: every run reads the same rows */
#define MIN_OPS 1000
#define PAGE_SIZE 5000 /* the driver's default page size: the SELECT's LIMIT ends it first */
#define TARGET 0.70

static const char *const SUBDIRS[] = {"cql-none", "engine-none"};

static const char *const SCHEMA[] = {
    "CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE chat.messages (room text, msg_id timeuuid, author text, body text, "
    "PRIMARY KEY (room, msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)",
    "CREATE TABLE chat.users (login text PRIMARY KEY, password text, name text)",
};

static const char INSERT_MSG[] =
    "INSERT INTO chat.messages (room, msg_id, author, body) VALUES (?, ?, ?, ?)";
static const char SELECT_LAST[] = "SELECT author, body FROM chat.messages WHERE room = ? LIMIT 50";
static const char INSERT_USER[] =
    "INSERT INTO chat.users (login, password, name) VALUES (?, ?, ?) IF NOT EXISTS";

/* ---- failures: the only non-zero exits (with bench.h's) ---- */

static void die_eng(const char *what, const eng_err *err)
{
    bench_die("error in %s: %d %s", what, err->code, err->msg);
}

static void die_result(const char *what, const cql_result *r)
{
    bench_die("%s returned a result of kind %d with %u columns", what, r->kind, r->n_cols);
}

/* ---- run configuration and data set ---- */

typedef struct config {
    long inserts;     /* messages inserted, warm-up included */
    long reads;       /* last-50 reads */
    long cas;         /* insert-if-absent operations */
    const char *base; /* directory the run's databases go under */
} config;

typedef struct dataset {
    char rooms[N_ROOMS][24];
    eng_val room[N_ROOMS];
    char authors[N_TEXTS][24];   /* ~10 bytes */
    char bodies[N_TEXTS][128];   /* ~100 bytes */
    char passwords[N_TEXTS][48]; /* 40 bytes */
    uint8_t (*ids)[16];          /* message i: room i % N_ROOMS, msg_id ids[i] */
    long n_ids;
    long n_users;       /* logins stored before the CAS run */
    char (*logins)[32]; /* CAS position i: a new login (even i) or a stored one */
    long n_logins;
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

/* Message ids from one database's generator, used by both sides. */
static void make_ids(dataset *d, eng_db *db, long n)
{
    d->n_ids = n;
    d->ids = calloc((size_t)n, sizeof *d->ids);
    if (!d->ids)
        bench_die_nomem();
    eng_uuidgen *g = eng_db_uuidgen(db);
    for (long i = 0; i < n; i++)
        eng_uuidgen_next(g, eng_clock_now_us(eng_db_clock(db)), d->ids[i]);
}

/* Rows the last-50 read of room r must return once `n_msgs` messages are stored. */
static long expected_last(long n_msgs, int r)
{
    long in_room = n_msgs / N_ROOMS + (r < n_msgs % N_ROOMS);
    return in_room < LAST_N ? in_room : LAST_N;
}

/* ---- the two databases ---- */

typedef struct side {
    eng_db *db;
    cql_session *session;
    eng_schema *schema; /* keeps msgs and users alive */
    const eng_table *msgs, *users;
    uint16_t author, body, password, name;
    cql_prepared *insert_msg, *select_last, *insert_user; /* the CQL side's statements */
} side;

static uint16_t column(const eng_table *t, const char *name)
{
    int i = eng_table_column_index(t, name);
    if (i < 0)
        bench_die("column %s missing", name);
    return (uint16_t)i;
}

static cql_prepared *prepare(side *s, const char *query)
{
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p;
    if (cql_prepare(s->session, query, strlen(query), &p, &err))
        die_eng(query, &err);
    return p;
}

/* Opens a database, creates the schema through CQL and takes its table descriptors. */
static void side_open(side *s, const char *dir, size_t map_size, int prepared)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db_options o = {ENG_DURABLE_NONE, map_size, 0, 0, 0};
    memset(s, 0, sizeof *s);
    if (mkdir(dir, 0755) && errno != EEXIST)
        bench_die("cannot create %s: %s", dir, strerror(errno));
    if (eng_db_open(dir, &o, &s->db, &err))
        die_eng("open", &err);
    if (cql_session_new(s->db, &s->session, &err))
        die_eng("session", &err);
    for (size_t i = 0; i < ENG_ARRAY_LEN(SCHEMA); i++)
        if (cql_query(s->session, SCHEMA[i], strlen(SCHEMA[i]), NULL, NULL, &err))
            die_eng(SCHEMA[i], &err);
    if (eng_db_schema(s->db, &s->schema, &err))
        die_eng("schema", &err);
    s->msgs = eng_schema_table(s->schema, "chat", "messages");
    s->users = eng_schema_table(s->schema, "chat", "users");
    if (!s->msgs || !s->users)
        bench_die("tables missing after CREATE TABLE");
    s->author = column(s->msgs, "author");
    s->body = column(s->msgs, "body");
    s->password = column(s->users, "password");
    s->name = column(s->users, "name");
    if (prepared) {
        s->insert_msg = prepare(s, INSERT_MSG);
        s->select_last = prepare(s, SELECT_LAST);
        s->insert_user = prepare(s, INSERT_USER);
    }
}

static void side_close(side *s)
{
    cql_prepared_unref(s->insert_msg);
    cql_prepared_unref(s->select_last);
    cql_prepared_unref(s->insert_user);
    eng_schema_unref(s->schema);
    cql_session_free(s->session);
    eng_db_close(s->db);
}

/* ---- operations: op(b, i) runs operation number i of a workload ---- */

struct bench {
    const dataset *d;
    side *s;
    long n_msgs;    /* messages stored: reads pick among them */
    long rows;      /* rows the current read returned */
    long applied;   /* CAS operations that applied */
    uint64_t check; /* folds the bytes read, so no read can be skipped */
    eng_err err;
};

/* What a consumer does with a message: looks at both strings. */
static void consume(bench *b, const uint8_t *a, int32_t la, const uint8_t *body, int32_t lb)
{
    b->rows++;
    b->check += (uint64_t)(la + lb) + (la > 0 ? a[la - 1] : 0) + (lb > 0 ? body[lb - 1] : 0);
}

static void exec_options(cql_exec_options *o, const eng_val *values, uint32_t n)
{
    cql_exec_options_init(o);
    o->values = values;
    o->n_values = n;
    o->page_size = PAGE_SIZE;
}

/* INSERT INTO chat.messages (room, msg_id, author, body) VALUES (?, ?, ?, ?) */
static void cql_insert(bench *b, long i)
{
    const dataset *d = b->d;
    eng_val v[4] = {d->room[i % N_ROOMS],
                    {d->ids[i], 16},
                    text(d->authors[i % N_TEXTS]),
                    text(d->bodies[i % N_TEXTS])};
    cql_exec_options o;
    cql_result *r;
    exec_options(&o, v, 4);
    if (cql_execute(b->s->session, b->s->insert_msg, &o, &r, &b->err))
        die_eng("CQL insert", &b->err);
    if (r->kind != CQL_RESULT_VOID)
        die_result("CQL insert", r);
    cql_result_free(r);
}

static void engine_insert(bench *b, long i)
{
    const dataset *d = b->d;
    eng_val pk = d->room[i % N_ROOMS], ck = {d->ids[i], 16};
    eng_cell_op ops[2] = {
        {b->s->author, ENG_OP_SET, {NULL, 0}, text(d->authors[i % N_TEXTS])},
        {b->s->body, ENG_OP_SET, {NULL, 0}, text(d->bodies[i % N_TEXTS])},
    };
    eng_row_mut rm = {&ck, 1, 0, 2, ops};
    eng_mutation m = {b->s->msgs, &pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    if (eng_apply(b->s->db, &m, 1, NULL, &b->err))
        die_eng("engine insert", &b->err);
}

/* SELECT author, body FROM chat.messages WHERE room = ? LIMIT 50 (newest first). */
static void cql_last(bench *b, long i)
{
    int room = (int)pick(i, N_ROOMS);
    cql_exec_options o;
    cql_result *r;
    exec_options(&o, &b->d->room[room], 1);
    if (cql_execute(b->s->session, b->s->select_last, &o, &r, &b->err))
        die_eng("CQL last 50", &b->err);
    if (r->kind != CQL_RESULT_ROWS || r->n_cols != 2)
        die_result("CQL last 50", r);
    b->rows = 0;
    for (uint32_t k = 0; k < r->n_rows; k++) {
        const eng_val *row = &r->cells[2 * k];
        consume(b, row[0].p, row[0].len, row[1].p, row[1].len);
    }
    int has_more = r->has_more;
    cql_result_free(r);
    if (b->rows != expected_last(b->n_msgs, room) || has_more)
        bench_die_rows("CQL last 50", b->rows, expected_last(b->n_msgs, room));
}

static int engine_row(void *ctx, const eng_row_view *v)
{
    bench *b = ctx;
    eng_val a, body;
    if (eng_view_column(v, b->s->author, &a, NULL, NULL, &b->err) ||
        eng_view_column(v, b->s->body, &body, NULL, NULL, &b->err))
        return -b->err.code;
    consume(b, a.p, a.len, body.p, body.len);
    return 0;
}

static void engine_last(bench *b, long i)
{
    int room = (int)pick(i, N_ROOMS);
    const eng_val *keys[1] = {&b->d->room[room]};
    eng_query q = {.table = b->s->msgs, .n_keys = 1, .keys = keys, .limit = LAST_N};
    b->rows = 0;
    if (eng_read(b->s->db, &q, engine_row, b, NULL, &b->err))
        die_eng("engine last 50", &b->err);
    if (b->rows != expected_last(b->n_msgs, room))
        bench_die_rows("engine last 50", b->rows, expected_last(b->n_msgs, room));
}

/* INSERT INTO chat.users (login, password, name) VALUES (?, ?, ?) IF NOT EXISTS */
static void cql_cas(bench *b, long i)
{
    const dataset *d = b->d;
    eng_val v[3] = {text(d->logins[i]), text(d->passwords[i % N_TEXTS]),
                    text(d->authors[i % N_TEXTS])};
    cql_exec_options o;
    cql_result *r;
    exec_options(&o, v, 3);
    if (cql_execute(b->s->session, b->s->insert_user, &o, &r, &b->err))
        die_eng("CQL insert if absent", &b->err);
    /* [applied], then (when not applied) the stored row's columns. */
    if (r->kind != CQL_RESULT_ROWS || r->n_rows != 1 || r->n_cols < 1 || r->cells[0].len != 1)
        die_result("CQL insert if absent", r);
    b->applied += r->cells[0].p[0] != 0;
    cql_result_free(r);
}

/* The same mutation as engine_bench's, with IF NOT EXISTS on the row. */
static void user_mutation(const side *s, const eng_val *pk, long t, eng_cell_op ops[2],
                          eng_row_mut *rm, eng_mutation *m, const dataset *d)
{
    static const eng_val no_ck[1] = {{NULL, 0}}; /* a table without clustering: not static */
    ops[0] = (eng_cell_op){s->password, ENG_OP_SET, {NULL, 0}, text(d->passwords[t % N_TEXTS])};
    ops[1] = (eng_cell_op){s->name, ENG_OP_SET, {NULL, 0}, text(d->authors[t % N_TEXTS])};
    *rm = (eng_row_mut){no_ck, 1, 0, 2, ops};
    *m = (eng_mutation){s->users, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, rm, 0};
}

static void engine_cas(bench *b, long i)
{
    eng_val pk = text(b->d->logins[i]);
    eng_cell_op ops[2];
    eng_row_mut rm;
    eng_mutation m;
    user_mutation(b->s, &pk, i, ops, &rm, &m, b->d);
    eng_cas_row row = {rm.ck, 0, 1, 0, NULL};
    eng_cas cas = {b->s->users, &pk, 1, &row, 1, &m, 0};
    int applied;
    if (eng_cas_apply(b->s->db, &cas, &applied, NULL, NULL, &b->err))
        die_eng("engine insert if absent", &b->err);
    b->applied += applied;
}

/* Stores logins user-0000000 .. n_users-1 in a database, batched (untimed, both sides). */
static void load_users(side *s, const dataset *d)
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
        for (uint32_t j = 0; j < n; j++) {
            snprintf(login[j], sizeof login[j], "user-%07ld", u0 + j);
            pk[j] = text(login[j]);
            user_mutation(s, &pk[j], u0 + j, ops[j], &rm[j], &m[j], d);
        }
        if (eng_apply(s->db, m, n, NULL, &err))
            die_eng("store users", &err);
    }
}

/* ---- report ---- */

static void print_header(const config *cfg, const char *dir, const char *fs)
{
    printf("cql_bench: prepared CQL statements vs the engine API, same data, same run\n");
    printf("databases: %s (%s), durability none\n", dir, fs);
    printf("workload: %d rooms, %ld messages (bodies ~100 B, authors ~10 B), %ld last-50 "
           "reads,\n          %ld inserts if absent (half new logins)\n",
           N_ROOMS, cfg->inserts, cfg->reads, cfg->cas);
    printf("figures: median of %d rounds, CQL and engine alternating first; target "
           "cql/engine >= %.2f\n\n",
           ROUNDS, TARGET);
    printf("%-34s %9s %12s %12s %10s  %s\n", "operation", "ops/round", "CQL ops/s", "engine ops/s",
           "cql/engine", "target");
}

/* A figure's first side is CQL, its second the engine API. */
static void print_result(const bench_figure *r)
{
    double ratio = bench_ratio(r->a, r->b);
    printf("%-34s %9ld %12.0f %12.0f %10.2f  %s\n", r->name, r->per_round, r->a, r->b, ratio,
           ratio >= TARGET ? "met" : "MISSED");
    fflush(stdout);
}

/* ---- main ---- */

static void usage(void)
{
    fprintf(stderr, "usage: cql_bench [--quick] [--ops N] [--dir DIR]\n"
                    "  --quick   50000 inserts (a few seconds)\n"
                    "  --ops N   N inserts, N/2 last-50 reads and N/2 CAS (default 200000)\n"
                    "  --dir D   put the databases under D (default $TMPDIR or /tmp)\n");
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
}

static void bench_all(const config *cfg, dataset *d, side *cs, side *es, bench_figure *res)
{
    bench cb = {.d = d, .s = cs}, eb = {.d = d, .s = es};
    eng_err_clear(&cb.err);
    eng_err_clear(&eb.err);
    long warm = cfg->inserts / 20, per = (cfg->inserts - warm) / ROUNDS;
    res[0].name = "insert a message";
    bench_measure(&res[0], ROUNDS, cql_insert, &cb, engine_insert, &eb, warm, per);
    print_result(&res[0]);
    cb.n_msgs = eb.n_msgs = warm + per * ROUNDS;

    warm = cfg->reads / 20;
    per = (cfg->reads - warm) / ROUNDS;
    res[1].name = "last 50 messages of a room";
    bench_measure(&res[1], ROUNDS, cql_last, &cb, engine_last, &eb, warm, per);
    print_result(&res[1]);
    if (cb.check != eb.check)
        bench_die("the CQL and engine reads returned different bytes");

    load_users(cs, d);
    load_users(es, d);
    warm = cfg->cas / 20;
    per = (cfg->cas - warm) / ROUNDS;
    res[2].name = "insert user if not exists (CAS)";
    bench_measure(&res[2], ROUNDS, cql_cas, &cb, engine_cas, &eb, warm, per);
    print_result(&res[2]);
    if (cb.applied != eb.applied)
        bench_die_rows("CQL CAS (applied)", cb.applied, eb.applied);
}

int main(int argc, char **argv)
{
    config cfg;
    parse_args(argc, argv, &cfg);
    const char *root = bench_make_root(cfg.base, "cassette-cqlbench");
    /* Room for every row, so no map resize lands in a timed loop. */
    size_t map_size = ((size_t)1 << 30) + (size_t)cfg.inserts * 4096;
    print_header(&cfg, root, bench_fs_name(root, "tmpfs"));

    static dataset d;
    side cs, es;
    char dir[PATH_MAX];
    bench_path(dir, sizeof dir, SUBDIRS[0]);
    side_open(&cs, dir, map_size, 1);
    bench_path(dir, sizeof dir, SUBDIRS[1]);
    side_open(&es, dir, map_size, 0);
    make_texts(&d);
    make_ids(&d, es.db, cfg.inserts);
    make_logins(&d, cfg.cas);

    bench_figure res[3];
    bench_all(&cfg, &d, &cs, &es, res);

    side_close(&cs);
    side_close(&es);
    free(d.ids);
    free(d.logins);
    return 0;
}
