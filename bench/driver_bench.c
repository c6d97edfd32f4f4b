/*
 * The driver-API benchmark of the chat workload: insert a message and read
 * the last 50 messages of a room, as prepared statements through the
 * DataStax driver API (include/cassandra.h, embedded: contact point
 * "memory:"), each beside the same statement through the CQL executor
 * (cql/cql.h) in the same run. The ratio driver/executor is what the driver
 * layer costs over the executor call each request turns into: a statement
 * bound per request (the application's cass_prepared_bind and binders), a
 * future, the executor session borrowed from the session's pool, and for a
 * read the CassResult built over the executor's page, its iterator and the
 * typed getters. The target is a ratio of at least 0.85 on each
 * operation; the figures are reported, never asserted: the exit status is
 * non-zero only when a call fails or returns wrong rows.
 *
 * The driver side uses only the public cassandra.h, as an application does:
 * connect, prepare, then per request bind, execute, wait, read and free
 * everything. The executor side is cql_bench's CQL side, call for call.
 * The driver statements keep their default page size (unset: no paging),
 * the executor side pages at 5,000 as cql_bench does; the SELECT's LIMIT
 * ends both first, and cql_execute runs the same instructions either way.
 *
 * Two databases, one per side, that share nothing: the driver's is the one
 * its "memory:" contact point opens, the executor's one opened the same way
 * (eng_db_open_temp, durability none, default map size), so both live on
 * the same file system with the same settings. Both get the schema from the
 * same CQL text and the same rows (message ids generated before timing), and
 * run the same positions; every read is checked for its row count, and at
 * the end every room is read back on both sides and compared value by value,
 * with each other and with the messages that were inserted.
 *
 * Each figure is the median of several rounds that alternate which side
 * runs first (this 2-core machine is shared with builds), after a warm-up
 * of each side.
 */
#include <cassandra.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "driver_bench"
#include "bench/bench.h"
#include "cql/cql.h"

#define N_ROOMS 100
#define N_TEXTS 64 /* distinct authors and bodies, cycled */
#define LAST_N 50
#define ROUNDS 5
#define MIN_OPS 1000
#define PAGE_SIZE 5000 /* the executor side pages as cql_bench does: the LIMIT ends it first */
#define TARGET 0.85

static const char *const SCHEMA[] = {
    "CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE chat.messages (room text, msg_id timeuuid, author text, body text, "
    "PRIMARY KEY (room, msg_id)) WITH CLUSTERING ORDER BY (msg_id DESC)",
};

static const char INSERT_MSG[] =
    "INSERT INTO chat.messages (room, msg_id, author, body) VALUES (?, ?, ?, ?)";
static const char SELECT_LAST[] = "SELECT author, body FROM chat.messages WHERE room = ? LIMIT 50";
/* Untimed, for the final check: a whole room, message ids included. */
static const char SELECT_ROOM[] = "SELECT msg_id, author, body FROM chat.messages WHERE room = ?";

/* ---- failures: the only non-zero exits (with bench.h's) ---- */

static void die_eng(const char *what, const eng_err *err)
{
    bench_die("executor error in %s: %d %s", what, err->code, err->msg);
}

/* ---- run configuration and data set ---- */

typedef struct config {
    long inserts; /* messages inserted, warm-up included */
    long reads;   /* last-50 reads */
} config;

typedef struct dataset {
    char rooms[N_ROOMS][24];
    eng_val room[N_ROOMS];
    char authors[N_TEXTS][24]; /* ~10 bytes */
    char bodies[N_TEXTS][128]; /* ~100 bytes */
    uint8_t (*ids)[16];        /* message i: room i % N_ROOMS, msg_id ids[i] (executor side) */
    CassUuid *uuids;           /* the same ids as the driver binds them */
    long n_ids;
} dataset;

static eng_val text(const char *s)
{
    return (eng_val){(const uint8_t *)s, (int32_t)strlen(s)};
}

/* splitmix64: the same pseudo-random room for both sides at position i. */
static long pick(long i, long n)
{
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL + 0x5eed2024c0ffee01ULL;
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
    }
}

/*
 * Message ids from the executor database's generator, used by both sides;
 * the driver's CassUuid of each is made through its text form, the only
 * conversion cassandra.h offers (before timing).
 */
static void make_ids(dataset *d, eng_db *db, long n)
{
    d->n_ids = n;
    d->ids = calloc((size_t)n, sizeof *d->ids);
    d->uuids = calloc((size_t)n, sizeof *d->uuids);
    if (!d->ids || !d->uuids)
        bench_die_nomem();
    eng_uuidgen *g = eng_db_uuidgen(db);
    for (long i = 0; i < n; i++) {
        const uint8_t *b = d->ids[i];
        eng_uuidgen_next(g, eng_clock_now_us(eng_db_clock(db)), d->ids[i]);
        char s[CASS_UUID_STRING_LENGTH];
        snprintf(s, sizeof s,
                 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                 b[15]);
        CassError rc = cass_uuid_from_string(s, &d->uuids[i]);
        if (rc != CASS_OK)
            bench_die_cass(s, rc);
    }
}

/* Messages of room r once `n_msgs` messages are stored. */
static long in_room(long n_msgs, int r)
{
    return n_msgs / N_ROOMS + (r < n_msgs % N_ROOMS);
}

/* Rows the last-50 read of room r must return once `n_msgs` messages are stored. */
static long expected_last(long n_msgs, int r)
{
    long n = in_room(n_msgs, r);
    return n < LAST_N ? n : LAST_N;
}

/* ---- the driver side: cassandra.h only ---- */

typedef struct drv_side {
    CassCluster *cluster;
    CassSession *session;
    const CassPrepared *insert_msg, *select_last, *select_room;
} drv_side;

/* Runs a statement whose result is not wanted. */
static void drv_run(CassSession *session, CassStatement *st, const char *what)
{
    CassFuture *f = cass_session_execute(session, st);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(what, f);
    cass_future_free(f);
}

static const CassPrepared *drv_prepare(CassSession *session, const char *query)
{
    CassFuture *f = cass_session_prepare(session, query);
    const CassPrepared *p = cass_future_get_prepared(f);
    if (!p)
        bench_die_future(query, f);
    cass_future_free(f);
    return p;
}

static void drv_open(drv_side *s)
{
    memset(s, 0, sizeof *s);
    s->cluster = cass_cluster_new();
    s->session = cass_session_new();
    if (!s->cluster || !s->session)
        bench_die_nomem();
    CassError rc = cass_cluster_set_contact_points(s->cluster, "memory:");
    if (rc != CASS_OK)
        bench_die_cass("cass_cluster_set_contact_points", rc);
    CassFuture *f = cass_session_connect(s->session, s->cluster);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future("connect to memory:", f);
    cass_future_free(f);
    for (size_t i = 0; i < sizeof SCHEMA / sizeof SCHEMA[0]; i++) {
        CassStatement *st = cass_statement_new(SCHEMA[i], 0);
        if (!st)
            bench_die_nomem();
        drv_run(s->session, st, SCHEMA[i]);
        cass_statement_free(st);
    }
    s->insert_msg = drv_prepare(s->session, INSERT_MSG);
    s->select_last = drv_prepare(s->session, SELECT_LAST);
    s->select_room = drv_prepare(s->session, SELECT_ROOM);
}

static void drv_close(drv_side *s)
{
    cass_prepared_free(s->insert_msg);
    cass_prepared_free(s->select_last);
    cass_prepared_free(s->select_room);
    CassFuture *f = cass_session_close(s->session);
    cass_future_wait(f);
    cass_future_free(f);
    cass_session_free(s->session);
    cass_cluster_free(s->cluster);
}

/* ---- the executor side: cql_bench's CQL side ---- */

typedef struct exec_side {
    eng_db *db;
    cql_session *session;
    cql_prepared *insert_msg, *select_last, *select_room;
} exec_side;

static cql_prepared *exec_prepare(exec_side *s, const char *query)
{
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p;
    if (cql_prepare(s->session, query, strlen(query), &p, &err))
        die_eng(query, &err);
    return p;
}

static void exec_open(exec_side *s)
{
    eng_err err;
    eng_err_clear(&err);
    /* What the "memory:" contact point opens: a temporary database, no sync, default map. */
    eng_db_options o = {ENG_DURABLE_NONE, 0, 0, 0, 0};
    memset(s, 0, sizeof *s);
    if (eng_db_open_temp(&o, &s->db, &err))
        die_eng("open", &err);
    if (cql_session_new(s->db, &s->session, &err))
        die_eng("session", &err);
    for (size_t i = 0; i < ENG_ARRAY_LEN(SCHEMA); i++)
        if (cql_query(s->session, SCHEMA[i], strlen(SCHEMA[i]), NULL, NULL, &err))
            die_eng(SCHEMA[i], &err);
    s->insert_msg = exec_prepare(s, INSERT_MSG);
    s->select_last = exec_prepare(s, SELECT_LAST);
    s->select_room = exec_prepare(s, SELECT_ROOM);
}

static void exec_close(exec_side *s)
{
    cql_prepared_unref(s->insert_msg);
    cql_prepared_unref(s->select_last);
    cql_prepared_unref(s->select_room);
    cql_session_free(s->session);
    eng_db_close(s->db);
}

/* ---- operations: op(b, i) runs operation number i of a workload ---- */

struct bench {
    const dataset *d;
    drv_side *drv; /* the side this bench drives: one of drv and exec is NULL */
    exec_side *exec;
    long n_msgs;    /* messages stored: reads pick among them */
    long rows;      /* rows the current read returned */
    uint64_t check; /* folds the bytes read, so no read can be skipped */
    eng_err err;
};

/* What a consumer does with a message: looks at both strings (cql_bench's consume). */
static void consume(bench *b, const char *a, size_t la, const char *body, size_t lb)
{
    b->rows++;
    b->check += (uint64_t)(la + lb) + (la > 0 ? (uint8_t)a[la - 1] : 0) +
                (lb > 0 ? (uint8_t)body[lb - 1] : 0);
}

/* INSERT INTO chat.messages (room, msg_id, author, body) VALUES (?, ?, ?, ?) */
static void drv_insert(bench *b, long i)
{
    const dataset *d = b->d;
    CassStatement *st = cass_prepared_bind(b->drv->insert_msg);
    if (!st)
        bench_die_nomem();
    CassError rc;
    if ((rc = cass_statement_bind_string(st, 0, d->rooms[i % N_ROOMS])) != CASS_OK ||
        (rc = cass_statement_bind_uuid(st, 1, d->uuids[i])) != CASS_OK ||
        (rc = cass_statement_bind_string(st, 2, d->authors[i % N_TEXTS])) != CASS_OK ||
        (rc = cass_statement_bind_string(st, 3, d->bodies[i % N_TEXTS])) != CASS_OK)
        bench_die_cass("binding the insert", rc);
    drv_run(b->drv->session, st, "driver insert");
    cass_statement_free(st);
}

static void exec_options(cql_exec_options *o, const eng_val *values, uint32_t n, int32_t page)
{
    cql_exec_options_init(o);
    o->values = values;
    o->n_values = n;
    o->page_size = page;
}

static void exec_insert(bench *b, long i)
{
    const dataset *d = b->d;
    eng_val v[4] = {d->room[i % N_ROOMS],
                    {d->ids[i], 16},
                    text(d->authors[i % N_TEXTS]),
                    text(d->bodies[i % N_TEXTS])};
    cql_exec_options o;
    cql_result *r;
    exec_options(&o, v, 4, PAGE_SIZE);
    if (cql_execute(b->exec->session, b->exec->insert_msg, &o, &r, &b->err))
        die_eng("executor insert", &b->err);
    if (r->kind != CQL_RESULT_VOID)
        bench_die("the executor insert returned a result of kind %d", r->kind);
    cql_result_free(r);
}

/* The string of column c of a driver row; exits on a null or missing value. */
static void drv_string(const CassRow *row, size_t c, const char **s, size_t *len)
{
    CassError rc = cass_value_get_string(cass_row_get_column(row, c), s, len);
    if (rc != CASS_OK)
        bench_die_cass("cass_value_get_string", rc);
}

/* SELECT author, body FROM chat.messages WHERE room = ? LIMIT 50 (newest first). */
static void drv_last(bench *b, long i)
{
    int room = (int)pick(i, N_ROOMS);
    CassStatement *st = cass_prepared_bind(b->drv->select_last);
    if (!st)
        bench_die_nomem();
    CassError rc = cass_statement_bind_string(st, 0, b->d->rooms[room]);
    if (rc != CASS_OK)
        bench_die_cass("binding the select", rc);
    CassFuture *f = cass_session_execute(b->drv->session, st);
    const CassResult *r = cass_future_get_result(f);
    if (!r)
        bench_die_future("driver last 50", f);
    CassIterator *it = cass_iterator_from_result(r);
    if (!it)
        bench_die_nomem();
    b->rows = 0;
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        const char *a, *body;
        size_t la, lb;
        drv_string(row, 0, &a, &la);
        drv_string(row, 1, &body, &lb);
        consume(b, a, la, body, lb);
    }
    cass_bool_t more = cass_result_has_more_pages(r);
    cass_iterator_free(it);
    cass_result_free(r);
    cass_future_free(f);
    cass_statement_free(st);
    if (b->rows != expected_last(b->n_msgs, room) || more)
        bench_die_rows("driver last 50", b->rows, expected_last(b->n_msgs, room));
}

static void exec_last(bench *b, long i)
{
    int room = (int)pick(i, N_ROOMS);
    cql_exec_options o;
    cql_result *r;
    exec_options(&o, &b->d->room[room], 1, PAGE_SIZE);
    if (cql_execute(b->exec->session, b->exec->select_last, &o, &r, &b->err))
        die_eng("executor last 50", &b->err);
    if (r->kind != CQL_RESULT_ROWS || r->n_cols != 2)
        bench_die("the executor last 50 returned kind %d, %u columns", r->kind, r->n_cols);
    b->rows = 0;
    for (uint32_t k = 0; k < r->n_rows; k++) {
        const eng_val *row = &r->cells[2 * k];
        consume(b, (const char *)row[0].p, (size_t)row[0].len, (const char *)row[1].p,
                (size_t)row[1].len);
    }
    int more = r->has_more;
    cql_result_free(r);
    if (b->rows != expected_last(b->n_msgs, room) || more)
        bench_die_rows("executor last 50", b->rows, expected_last(b->n_msgs, room));
}

/* ---- the final check: both sides hold and return the same rows ---- */

/* Every value of the rows a read returned, in order, as (int32 length, bytes). */
typedef struct capture {
    uint8_t *p;
    size_t len, cap;
    long rows;
} capture;

static void capture_value(capture *c, const void *p, size_t len)
{
    if (c->cap - c->len < len + 4) {
        size_t cap = c->cap ? c->cap : 4096;
        while (cap - c->len < len + 4)
            cap *= 2;
        uint8_t *q = realloc(c->p, cap);
        if (!q)
            bench_die_nomem();
        c->p = q;
        c->cap = cap;
    }
    uint32_t n = (uint32_t)len;
    memcpy(c->p + c->len, &n, 4);
    if (len)
        memcpy(c->p + c->len + 4, p, len);
    c->len += len + 4;
}

/* Reads room r through the driver (every column of every row with cass_value_get_bytes). */
static void drv_capture(drv_side *s, const CassPrepared *p, const char *room, capture *c)
{
    CassStatement *st = cass_prepared_bind(p);
    if (!st)
        bench_die_nomem();
    CassError rc = cass_statement_bind_string(st, 0, room);
    if (rc != CASS_OK)
        bench_die_cass("binding the check", rc);
    CassFuture *f = cass_session_execute(s->session, st);
    const CassResult *r = cass_future_get_result(f);
    if (!r)
        bench_die_future("driver check", f);
    if (cass_result_has_more_pages(r))
        bench_die_rows("driver check (one page)", -1, 0);
    size_t nc = cass_result_column_count(r);
    CassIterator *it = cass_iterator_from_result(r);
    if (!it)
        bench_die_nomem();
    c->len = 0;
    c->rows = 0;
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        for (size_t k = 0; k < nc; k++) {
            const cass_byte_t *v;
            size_t len;
            if ((rc = cass_value_get_bytes(cass_row_get_column(row, k), &v, &len)) != CASS_OK)
                bench_die_cass("cass_value_get_bytes", rc);
            capture_value(c, v, len);
        }
        c->rows++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    cass_future_free(f);
    cass_statement_free(st);
}

static void exec_capture(exec_side *s, cql_prepared *p, const eng_val *room, capture *c)
{
    eng_err err;
    eng_err_clear(&err);
    cql_exec_options o;
    cql_result *r;
    exec_options(&o, room, 1, -1);
    if (cql_execute(s->session, p, &o, &r, &err))
        die_eng("executor check", &err);
    if (r->kind != CQL_RESULT_ROWS || r->has_more)
        bench_die_rows("executor check (one page)", -1, 0);
    c->len = 0;
    c->rows = r->n_rows;
    for (size_t k = 0; k < (size_t)r->n_rows * r->n_cols; k++) {
        if (r->cells[k].len < 0)
            bench_die_rows("executor check (a null value)", -1, 0);
        capture_value(c, r->cells[k].p, (size_t)r->cells[k].len);
    }
    cql_result_free(r);
}

/* The whole of room r, newest first, holds exactly the messages inserted into it. */
static void verify_room(const dataset *d, long n_msgs, int r, const capture *c)
{
    long n = in_room(n_msgs, r);
    if (c->rows != n)
        bench_die_rows("check of a whole room", c->rows, n);
    size_t off = 0;
    for (long k = 0; k < n; k++) {
        long i = r + (n - 1 - k) * N_ROOMS; /* DESC: the newest message first */
        const void *want[3] = {d->ids[i], d->authors[i % N_TEXTS], d->bodies[i % N_TEXTS]};
        size_t want_len[3] = {16, strlen(d->authors[i % N_TEXTS]), strlen(d->bodies[i % N_TEXTS])};
        for (int col = 0; col < 3; col++) {
            uint32_t len;
            memcpy(&len, c->p + off, 4);
            if (len != want_len[col] || memcmp(c->p + off + 4, want[col], len) != 0)
                bench_die("room %d row %ld column %d differs from message %ld", r, k, col, i);
            off += 4 + len;
        }
    }
}

/*
 * Reads every room on both sides: the timed statement (last 50) must give
 * the same values, and the whole room the messages inserted, in order.
 */
static void check_rows(const dataset *d, drv_side *ds, exec_side *es, long n_msgs)
{
    capture dc = {0}, ec = {0};
    for (int r = 0; r < N_ROOMS; r++) {
        drv_capture(ds, ds->select_last, d->rooms[r], &dc);
        exec_capture(es, es->select_last, &d->room[r], &ec);
        if (dc.rows != expected_last(n_msgs, r))
            bench_die_rows("driver check of last 50", dc.rows, expected_last(n_msgs, r));
        if (dc.rows != ec.rows || dc.len != ec.len || memcmp(dc.p, ec.p, dc.len) != 0)
            bench_die("the last 50 of room %d differ between the sides", r);
        drv_capture(ds, ds->select_room, d->rooms[r], &dc);
        verify_room(d, n_msgs, r, &dc);
        exec_capture(es, es->select_room, &d->room[r], &ec);
        verify_room(d, n_msgs, r, &ec);
    }
    free(dc.p);
    free(ec.p);
}

/* ---- report ---- */

static void print_header(const config *cfg, const char *exec_dir)
{
    printf("driver_bench: prepared statements through the driver API (cassandra.h) vs the CQL "
           "executor, same data, same run\n");
    printf("databases: driver \"memory:\", executor eng_db_open_temp %s (%s); durability none\n",
           exec_dir, bench_fs_name(exec_dir, "tmpfs"));
    printf("workload: %d rooms, %ld messages (bodies ~100 B, authors ~10 B), %ld last-50 reads\n",
           N_ROOMS, cfg->inserts, cfg->reads);
    printf("figures: median of %d rounds, driver and executor alternating first; target "
           "driver/executor >= %.2f\n\n",
           ROUNDS, TARGET);
    printf("%-28s %9s %12s %12s %8s %11s  %s\n", "operation", "ops/round", "driver ops/s",
           "exec ops/s", "drv/exec", "rounds", "target");
}

/* A figure's first side is the driver, its second the executor. */
static void print_result(const bench_figure *r)
{
    double ratio = bench_ratio(r->a, r->b);
    char range[32];
    snprintf(range, sizeof range, "%.2f-%.2f", r->lo, r->hi);
    printf("%-28s %9ld %12.0f %12.0f %8.3f %11s  %s\n", r->name, r->per_round, r->a, r->b, ratio,
           range, ratio >= TARGET ? "met" : "MISSED");
    fflush(stdout);
}

/* ---- main ---- */

static void usage(void)
{
    fprintf(stderr, "usage: driver_bench [--quick] [--ops N]\n"
                    "  --quick   50000 inserts (a few seconds)\n"
                    "  --ops N   N inserts and N/2 last-50 reads (default 200000)\n");
    exit(2);
}

static void parse_args(int argc, char **argv, config *cfg)
{
    bench_args a;
    bench_parse_args(argc, argv, "--ops", 0, usage, &a);
    long n = a.number ? strtol(a.number, NULL, 10) : a.quick ? 50000 : 200000;
    if (n < MIN_OPS)
        n = MIN_OPS;
    cfg->inserts = n;
    cfg->reads = n / 2;
}

int main(int argc, char **argv)
{
    config cfg;
    parse_args(argc, argv, &cfg);

    static dataset d;
    drv_side ds;
    exec_side es;
    drv_open(&ds);
    exec_open(&es);
    make_texts(&d);
    make_ids(&d, es.db, cfg.inserts);
    print_header(&cfg, eng_db_path(es.db));

    bench db = {.d = &d, .drv = &ds}, eb = {.d = &d, .exec = &es};
    eng_err_clear(&db.err);
    eng_err_clear(&eb.err);
    bench_figure res[2];
    long warm = cfg.inserts / 20, per = (cfg.inserts - warm) / ROUNDS;
    res[0].name = "insert a message";
    bench_measure(&res[0], ROUNDS, drv_insert, &db, exec_insert, &eb, warm, per);
    print_result(&res[0]);
    db.n_msgs = eb.n_msgs = warm + per * ROUNDS;

    warm = cfg.reads / 20;
    per = (cfg.reads - warm) / ROUNDS;
    res[1].name = "last 50 messages of a room";
    bench_measure(&res[1], ROUNDS, drv_last, &db, exec_last, &eb, warm, per);
    print_result(&res[1]);
    if (db.check != eb.check)
        bench_die("the driver and executor reads returned different bytes");
    check_rows(&d, &ds, &es, db.n_msgs);
    printf("\nchecked: every room reads the same values on both sides, and holds the %ld "
           "messages inserted\n",
           db.n_msgs);

    drv_close(&ds);
    exec_close(&es);
    free(d.ids);
    free(d.uuids);
    return 0;
}
