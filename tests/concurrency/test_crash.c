/*
 * Crash tests: a writer process is killed with SIGKILL at a random point
 * while it streams writes to a file:DIR database, and the test process then
 * opens the same directory (a plain connect: no repair step exists, and none
 * is run) and checks what a crash must leave (docs/durability.md):
 *
 *  - every acknowledged write is there, with its exact values: a write is
 *    acknowledged when its future reports CASS_OK, and only then does the
 *    writer record it in shared memory;
 *  - nothing is half-written: each write is a LOGGED BATCH over several
 *    tables and partitions (message rows in 1-3, or 8-40, partitions of
 *    crash.messages, one row of crash.messages_by_writer and the writer's
 *    row of crash.last_seq), or a conditional batch (a claim row and its
 *    partition's static column); its parts are all there or none is;
 *  - one writer's writes are there as a prefix of the order it issued them
 *    in (futures complete in issue order, groups commit in order), none that
 *    was never issued, and last_seq names the last of them;
 *  - a schema change is all or nothing: after the crash a table is either
 *    listed in system_schema.tables and usable (select, insert), or neither
 *    listed nor usable and creatable again;
 *  - the database takes new writes at once (the test process writes a row
 *    every round and reads every earlier round's back), and the next round
 *    kills the next writer on the same directory, so damage would pile up;
 *    the last pass reopens once more and re-reads everything.
 *
 * Writers vary: every durability (SYNC, NOMETASYNC, PERIODIC, NONE), group
 * commit on and off, waiting for each future or pipelining 32, one thread or
 * four in the child (disjoint writers), conditional (IF NOT EXISTS) streams,
 * and schema changes; in one test a third process holds the database open
 * throughout, so the kill's leftovers (reader slots, the write lock) meet a
 * live process instead of a fresh lock file. Kills land anywhere: during
 * connect and the first schema creation as well as mid-stream and mid-commit.
 *
 * Why a process kill: SIGKILL stops the writer between any two instructions,
 * with no handler, no atexit, no close; whatever the library had in flight
 * (a group half built, pages half written, a meta page not yet written, the
 * write lock held) stays as it was. That is the crash an application sees
 * most. It does NOT model a power loss or a kernel crash: the page cache
 * survives a process kill, so what the writer wrote() reaches the file
 * whether or not it was synced. This is also why every mode, NONE included,
 * must lose nothing acknowledged here; what the modes differ in (syncs) is
 * not exercised, and nothing in this file cuts the power (docs/durability.md
 * says what rests on LMDB's design instead).
 *
 * `make test` kills 10 writers per test (about 2 s for the file); the long
 * mode (CASSETTE_LONG=1, `make test-long`) 150 per test (about 30 s).
 * CASSETTE_SEED replays the plans and kill times (the interleavings are the
 * scheduler's).
 *
 * The child never uses the harness's ASSERT (see race_util.h): a failure in
 * it is written to shared memory and it leaves with status 3, which the test
 * process reports. Only <cassandra.h>, <cassette.h> and the harness.
 */
#include "race_util.h"

#define MAX_WRITERS 4   /* writer threads of one child */
#define MAX_ROUNDS 160  /* kills per test, at most */
#define PIPELINE 32     /* futures in flight of a pipelining writer */
#define MAX_WIDTH 40    /* message rows of a wide batch */
#define SEQ_CAP 1000000 /* a writer stops there and waits to be killed */
#define BODY_MAX 5200
#define PART_BY_WRITER 250 /* the hash "part" of a write's messages_by_writer row */
#define PART_LAST 251      /* ... of its last_seq row */
#define PART_CLAIM 252     /* ... of a claim */

enum { PH_FORKED, PH_CONNECTED, PH_SCHEMA, PH_STREAMING };

/* What a writer thread writes. */
typedef enum stream_kind { K_NONE, K_BATCH, K_WIDE, K_COND } stream_kind;

/* One round's writer, chosen by the test process before the fork. */
typedef struct crash_plan {
    int round;
    cassette_durability durability;
    int group_commit;
    unsigned sync_period_ms; /* PERIODIC; 0 for the default */
    int threads;
    stream_kind kind[MAX_WRITERS];
    int depth[MAX_WRITERS]; /* futures in flight; 1 waits for each */
    int schema;             /* the schema script instead of streams */
    int early;              /* killed at a time counted from the fork */
    long delay_us;
    int target_step; /* schema: killed once this step is under way */
} crash_plan;

/* Shared with the child. acked is stored only after the future said CASS_OK. */
typedef struct crash_shared {
    race_ctl ctl; /* failed and msg (race_util.h) */
    atomic_int phase;
    atomic_long issued[MAX_WRITERS]; /* write n is handed to the library after issued > n */
    atomic_long acked[MAX_WRITERS];  /* writes 0 .. acked-1 were acknowledged */
    atomic_int ddl_issued;           /* schema script: steps started */
    atomic_int ddl_acked;            /* steps acknowledged */
} crash_shared;

static crash_shared *sh;

/* ------------------------------------------------------------------------ */
/* What every write holds: a function of (writer, seq, part)                 */
/* ------------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t hash3(long writer, long seq, int part)
{
    return mix(mix(mix((uint64_t)writer) ^ (uint64_t)seq) ^ (uint64_t)part);
}

static int64_t chk_of(long writer, long seq, int part)
{
    return (int64_t)(hash3(writer, seq, part) >> 1);
}

/* Mostly short, one in 32 past LMDB's page (an overflow page). */
static size_t body_of(long writer, long seq, int part, char *buf)
{
    uint64_t h = hash3(writer, seq, part) ^ 0x5851F42D4C957F2Dull;
    size_t n = h % 32 == 0 ? 2000 + (size_t)((h >> 8) % 3000) : 24 + (size_t)((h >> 8) % 100);
    int k = snprintf(buf, BODY_MAX, "w%ld s%ld p%d ", writer, seq, part);
    uint64_t st = h | 1;
    for (size_t i = (size_t)k; i < n; i++)
        buf[i] = (char)('a' + test_rand(&st) % 26);
    buf[n] = 0;
    return n;
}

static int width_of(stream_kind kind, long writer, long seq)
{
    uint64_t h = hash3(writer, seq, 999);
    return kind == K_WIDE ? 8 + (int)(h % 33) : 1 + (int)(h % 3);
}

/* Writers are numbered across rounds: round r's thread t is r * MAX_WRITERS + t. */
static long writer_id(int round, int t)
{
    return (long)round * MAX_WRITERS + t;
}

static const char *durability_name(cassette_durability d)
{
    switch (d) {
    case CASSETTE_DURABILITY_SYNC:
        return "sync";
    case CASSETTE_DURABILITY_NOMETASYNC:
        return "nometasync";
    case CASSETTE_DURABILITY_PERIODIC:
        return "periodic";
    case CASSETTE_DURABILITY_NONE:
        return "none";
    }
    return "?";
}

static const char *plan_text(const crash_plan *p, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "round %d, %s%s, %s, kill %s%ld us", p->round,
                     durability_name(p->durability), p->group_commit ? "" : " no group commit",
                     p->schema ? "schema script" : "streams", p->early ? "at fork + " : "",
                     p->delay_us);
    if (p->schema)
        n += snprintf(buf + n, cap - (size_t)n, " after step %d", p->target_step);
    for (int t = 0; !p->schema && t < p->threads && (size_t)n < cap; t++)
        n += snprintf(buf + n, cap - (size_t)n, "; writer %ld %s depth %d", writer_id(p->round, t),
                      p->kind[t] == K_COND   ? "conditional"
                      : p->kind[t] == K_WIDE ? "wide"
                                             : "batch",
                      p->depth[t]);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* Schema                                                                    */
/* ------------------------------------------------------------------------ */

static const char *const schema_stmts[] = {
    "CREATE KEYSPACE IF NOT EXISTS crash WITH replication = "
    "{'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TABLE IF NOT EXISTS crash.messages (writer int, bucket int, seq int, body text, "
    "chk bigint, PRIMARY KEY ((writer, bucket), seq))",
    "CREATE TABLE IF NOT EXISTS crash.messages_by_writer (writer int, seq int, width int, "
    "body text, chk bigint, PRIMARY KEY (writer, seq))",
    "CREATE TABLE IF NOT EXISTS crash.last_seq (writer int PRIMARY KEY, seq int, chk bigint)",
    "CREATE TABLE IF NOT EXISTS crash.claims (writer int, seq int, body text, chk bigint, "
    "last int static, PRIMARY KEY (writer, seq))",
    "CREATE TABLE IF NOT EXISTS crash.after (round int PRIMARY KEY, v text)",
    "CREATE TABLE IF NOT EXISTS crash.held (round int PRIMARY KEY, v text)",
};

static void make_schema(CassSession *s)
{
    for (size_t i = 0; i < sizeof schema_stmts / sizeof *schema_stmts; i++)
        RRUN(s, "%s", schema_stmts[i]);
}

/*
 * The schema script of round r: each step is one statement, started after ddl_issued is
 * raised past it and acknowledged by ddl_acked. Tables s<r> (created, filled, altered,
 * filled) and c<r>_<j> (created, given a row, dropped by the step after the next create).
 */
#define SC_DROP_OLD 0 /* DROP TABLE crash.s<r-2>, which the test process made sure exists */
#define SC_CREATE 1
#define SC_ROWS1 2 /* rows 0..4 */
#define SC_ALTER 7 /* ADD b bigint */
#define SC_ROWS2 8 /* rows 5..9, with b */
#define SC_N_ROWS 10
#define SC_CHURN 13 /* 13+3j: create c<r>_<j>; 14+3j: its row; 15+3j: drop c<r>_<j-1> */
#define SC_N_CHURN 12
#define SC_STEPS (SC_CHURN + 3 * SC_N_CHURN)

static int row_step(int k)
{
    return k < 5 ? SC_ROWS1 + k : SC_ROWS2 + k - 5;
}

static int64_t b_of(int round, int k)
{
    return (int64_t)round * 1000 + k;
}

static void schema_step(int round, int i, char *q, size_t cap)
{
    if (i == SC_DROP_OLD) {
        if (round >= 2)
            snprintf(q, cap, "DROP TABLE crash.s%d", round - 2);
        else
            snprintf(q, cap, "DROP TABLE IF EXISTS crash.never");
    } else if (i == SC_CREATE) {
        snprintf(q, cap, "CREATE TABLE crash.s%d (k int PRIMARY KEY, a text)", round);
    } else if (i == SC_ALTER) {
        snprintf(q, cap, "ALTER TABLE crash.s%d ADD b bigint", round);
    } else if (i < SC_ALTER) {
        int k = i - SC_ROWS1;
        snprintf(q, cap, "INSERT INTO crash.s%d (k, a) VALUES (%d, 'a-%d-%d')", round, k, round, k);
    } else if (i < SC_CHURN) {
        int k = i - SC_ROWS2 + 5;
        snprintf(q, cap, "INSERT INTO crash.s%d (k, a, b) VALUES (%d, 'a-%d-%d', %lld)", round, k,
                 round, k, (long long)b_of(round, k));
    } else {
        int j = (i - SC_CHURN) / 3, what = (i - SC_CHURN) % 3;
        if (what == 0)
            snprintf(q, cap, "CREATE TABLE crash.c%d_%d (k int PRIMARY KEY, v text)", round, j);
        else if (what == 1)
            snprintf(q, cap, "INSERT INTO crash.c%d_%d (k, v) VALUES (1, 'c%d_%d')", round, j,
                     round, j);
        else if (j > 0)
            snprintf(q, cap, "DROP TABLE crash.c%d_%d", round, j - 1);
        else
            snprintf(q, cap, "DROP TABLE IF EXISTS crash.never");
    }
}

/* ------------------------------------------------------------------------ */
/* The writer process                                                        */
/* ------------------------------------------------------------------------ */

typedef struct writer_ctx {
    CassSession *s;
    const crash_plan *p;
    int t;
    long writer;
    pthread_t th;
} writer_ctx;

static void bind_ok(CassError rc, const char *what)
{
    if (rc != CASS_OK)
        RFAIL("bind %s: %s", what, cass_error_desc(rc));
}

/* One logged batch: the write's message rows, its messages_by_writer row, its last_seq. */
static CassFuture *issue_batch(writer_ctx *w, const CassPrepared *const ps[3], long seq)
{
    char body[BODY_MAX + 1];
    long wr = w->writer;
    int width = width_of(w->p->kind[w->t], wr, seq);
    CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    RCHECK(b);
    for (int part = 0; part < width; part++) {
        CassStatement *st = cass_prepared_bind(ps[0]);
        size_t n = body_of(wr, seq, part, body);
        bind_ok(cass_statement_bind_int32(st, 0, (cass_int32_t)wr), "writer");
        bind_ok(cass_statement_bind_int32(st, 1, part), "bucket");
        bind_ok(cass_statement_bind_int32(st, 2, (cass_int32_t)seq), "seq");
        bind_ok(cass_statement_bind_string_n(st, 3, body, n), "body");
        bind_ok(cass_statement_bind_int64(st, 4, chk_of(wr, seq, part)), "chk");
        RCHECK(cass_batch_add_statement(b, st) == CASS_OK);
        cass_statement_free(st);
    }
    CassStatement *st = cass_prepared_bind(ps[1]);
    size_t n = body_of(wr, seq, PART_BY_WRITER, body);
    bind_ok(cass_statement_bind_int32(st, 0, (cass_int32_t)wr), "writer");
    bind_ok(cass_statement_bind_int32(st, 1, (cass_int32_t)seq), "seq");
    bind_ok(cass_statement_bind_int32(st, 2, width), "width");
    bind_ok(cass_statement_bind_string_n(st, 3, body, n), "body");
    bind_ok(cass_statement_bind_int64(st, 4, chk_of(wr, seq, PART_BY_WRITER)), "chk");
    RCHECK(cass_batch_add_statement(b, st) == CASS_OK);
    cass_statement_free(st);
    st = cass_prepared_bind(ps[2]);
    bind_ok(cass_statement_bind_int32(st, 0, (cass_int32_t)seq), "seq");
    bind_ok(cass_statement_bind_int64(st, 1, chk_of(wr, seq, PART_LAST)), "chk");
    bind_ok(cass_statement_bind_int32(st, 2, (cass_int32_t)wr), "writer");
    RCHECK(cass_batch_add_statement(b, st) == CASS_OK);
    cass_statement_free(st);
    CassFuture *f = cass_session_execute_batch(w->s, b);
    cass_batch_free(b);
    return f;
}

static void expect_ok(CassFuture *f, const char *what, long writer, long seq)
{
    CassError rc = cass_future_error_code(f);
    if (rc != CASS_OK) {
        char m[512];
        RFAIL("writer %ld, %s %ld: %s: %s", writer, what, seq, cass_error_desc(rc),
              race_future_message(f, m, sizeof m));
    }
}

/* The futures of writes head .. head+n-1 of a writer, oldest first. */
typedef struct write_ring {
    CassFuture *f[PIPELINE];
    long head, n;
} write_ring;

/* Waits for the oldest write; once its future is ok, and only then, it is acknowledged. */
static void ack_oldest(writer_ctx *w, write_ring *ring)
{
    CassFuture *f = ring->f[ring->head % PIPELINE];
    expect_ok(f, "write", w->writer, ring->head);
    cass_future_free(f);
    atomic_store(&sh->acked[w->t], ring->head + 1);
    ring->head++;
    ring->n--;
}

/* Logged batches, depth of them in flight (1: each waited for before the next). */
static void stream_batches(writer_ctx *w)
{
    const CassPrepared *ps[3] = {
        race_prepare(w->s, "INSERT INTO crash.messages (writer, bucket, seq, body, chk) "
                           "VALUES (?, ?, ?, ?, ?)"),
        race_prepare(w->s, "INSERT INTO crash.messages_by_writer (writer, seq, width, body, chk) "
                           "VALUES (?, ?, ?, ?, ?)"),
        race_prepare(w->s, "UPDATE crash.last_seq SET seq = ?, chk = ? WHERE writer = ?"),
    };
    int depth = w->p->depth[w->t];
    write_ring ring = {.head = 0};
    atomic_store(&sh->phase, PH_STREAMING);
    for (long seq = 0; seq < SEQ_CAP; seq++) {
        if (ring.n == depth)
            ack_oldest(w, &ring);
        atomic_store(&sh->issued[w->t], seq + 1);
        ring.f[(ring.head + ring.n) % PIPELINE] = issue_batch(w, ps, seq);
        ring.n++;
        /* futures already set are acknowledged now, not when the ring is full */
        while (ring.n > 0 && cass_future_ready(ring.f[ring.head % PIPELINE]))
            ack_oldest(w, &ring);
    }
    for (;;)
        pause(); /* the cap: wait for the kill */
}

/* Conditional batches: claim (writer, seq) IF NOT EXISTS and move the partition's static
   `last` from seq-1 to seq IF it still is seq-1; then a second claim of the same row,
   which must not apply. */
static void stream_claims(writer_ctx *w)
{
    const CassPrepared *claim = race_prepare(
        w->s,
        "INSERT INTO crash.claims (writer, seq, body, chk) VALUES (?, ?, ?, ?) IF NOT EXISTS");
    const CassPrepared *move_first =
        race_prepare(w->s, "UPDATE crash.claims SET last = ? WHERE writer = ? IF last = null");
    const CassPrepared *move =
        race_prepare(w->s, "UPDATE crash.claims SET last = ? WHERE writer = ? IF last = ?");
    char body[BODY_MAX + 1];
    long wr = w->writer;
    atomic_store(&sh->phase, PH_STREAMING);
    for (long seq = 0; seq < SEQ_CAP; seq++) {
        CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
        CassStatement *st = cass_prepared_bind(claim);
        size_t n = body_of(wr, seq, PART_CLAIM, body);
        bind_ok(cass_statement_bind_int32(st, 0, (cass_int32_t)wr), "writer");
        bind_ok(cass_statement_bind_int32(st, 1, (cass_int32_t)seq), "seq");
        bind_ok(cass_statement_bind_string_n(st, 2, body, n), "body");
        bind_ok(cass_statement_bind_int64(st, 3, chk_of(wr, seq, PART_CLAIM)), "chk");
        RCHECK(cass_batch_add_statement(b, st) == CASS_OK);
        cass_statement_free(st);
        st = cass_prepared_bind(seq ? move : move_first);
        bind_ok(cass_statement_bind_int32(st, 0, (cass_int32_t)seq), "last");
        bind_ok(cass_statement_bind_int32(st, 1, (cass_int32_t)wr), "writer");
        if (seq)
            bind_ok(cass_statement_bind_int32(st, 2, (cass_int32_t)(seq - 1)), "last");
        RCHECK(cass_batch_add_statement(b, st) == CASS_OK);
        cass_statement_free(st);
        atomic_store(&sh->issued[w->t], seq + 1);
        CassFuture *f = cass_session_execute_batch(w->s, b);
        cass_batch_free(b);
        expect_ok(f, "claim", wr, seq);
        const CassResult *r = cass_future_get_result(f);
        RCHECK(r);
        if (!race_applied(r))
            RFAIL("writer %ld: claim %ld was not applied", wr, seq);
        cass_result_free(r);
        cass_future_free(f);
        atomic_store(&sh->acked[w->t], seq + 1);

        if (seq % 2 == 0) { /* the same claim again, other values: refused, changes nothing */
            st = cass_prepared_bind(claim);
            bind_ok(cass_statement_bind_int32(st, 0, (cass_int32_t)wr), "writer");
            bind_ok(cass_statement_bind_int32(st, 1, (cass_int32_t)seq), "seq");
            bind_ok(cass_statement_bind_string(st, 2, "a second claim"), "body");
            bind_ok(cass_statement_bind_int64(st, 3, -1), "chk");
            r = REXEC(w->s, st);
            cass_statement_free(st);
            if (race_applied(r))
                RFAIL("writer %ld: the second claim of %ld applied", wr, seq);
            cass_result_free(r);
        }
    }
    for (;;)
        pause();
}

static void *writer_main(void *arg)
{
    writer_ctx *w = arg;
    if (w->p->kind[w->t] == K_COND)
        stream_claims(w);
    else
        stream_batches(w);
    return NULL;
}

static void run_schema_script(CassSession *s, int round)
{
    char q[256];
    for (int i = 0; i < SC_STEPS; i++) {
        schema_step(round, i, q, sizeof q);
        atomic_store(&sh->ddl_issued, i + 1);
        RRUN(s, "%s", q);
        atomic_store(&sh->ddl_acked, i + 1);
    }
    for (;;)
        pause();
}

static void apply_options(CassCluster *c, const crash_plan *p)
{
    RCHECK(cassette_cluster_set_durability(c, p->durability) == 0);
    RCHECK(cassette_cluster_set_group_commit(c, p->group_commit) == 0);
    RCHECK(cassette_cluster_set_sync_period(c, p->sync_period_ms) == 0);
}

static void connect_to(const char *dir, const crash_plan *p, CassCluster **c, CassSession **s)
{
    char uri[1024];
    if ((size_t)snprintf(uri, sizeof uri, "file:%s", dir) >= sizeof uri)
        RFAIL("directory name too long: %s", dir);
    *c = cass_cluster_new();
    RCHECK(*c);
    RCHECK(cass_cluster_set_contact_points(*c, uri) == CASS_OK);
    apply_options(*c, p);
    *s = cass_session_new();
    CassFuture *f = cass_session_connect(*s, *c);
    if (cass_future_error_code(f) != CASS_OK) {
        char m[512];
        RFAIL("connect to %s: %s", uri, race_future_message(f, m, sizeof m));
    }
    cass_future_free(f);
}

static void child_main(const char *dir, const crash_plan *p, pid_t parent)
{
    race_is_child = 1;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(4);
    CassCluster *c;
    CassSession *s;
    connect_to(dir, p, &c, &s);
    atomic_store(&sh->phase, PH_CONNECTED);
    make_schema(s);
    atomic_store(&sh->phase, PH_SCHEMA);
    if (p->schema)
        run_schema_script(s, p->round);
    writer_ctx w[MAX_WRITERS];
    for (int t = 0; t < p->threads; t++) {
        w[t] = (writer_ctx){s, p, t, writer_id(p->round, t), 0};
        if (pthread_create(&w[t].th, NULL, writer_main, &w[t]) != 0)
            RFAIL("pthread_create failed");
    }
    for (;;)
        pause();
}

/* ------------------------------------------------------------------------ */
/* The test process: kill, reopen, verify                                    */
/* ------------------------------------------------------------------------ */

static char context[512]; /* the round's plan, for failure messages */

static void crash_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void crash_fail(const char *file, int line, const char *fmt, ...)
{
    char m[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    test_fail(file, line, "%s [%s]", m, context);
}

#define CFAIL(...) crash_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CCHECK(expr)                                                                               \
    do {                                                                                           \
        if (!(expr))                                                                               \
            crash_fail(__FILE__, __LINE__, "%s", #expr);                                           \
    } while (0)

static long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* Fails the test if the child has ended on its own or failed. */
static void check_child_alive(pid_t pid)
{
    int st;
    if (atomic_load(&sh->ctl.failed)) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        CFAIL("writer failed: %s", sh->ctl.msg);
    }
    if (waitpid(pid, &st, WNOHANG) == pid)
        CFAIL("writer ended before the kill (status 0x%x): %s", st,
              atomic_load(&sh->ctl.failed) ? sh->ctl.msg : "no message");
}

/* Waits until *v >= want, watching the child; 30 s at most. */
static void wait_for(pid_t pid, atomic_int *v, int want)
{
    long start = now_us();
    while (atomic_load(v) < want) {
        check_child_alive(pid);
        if (now_us() - start > 30 * 1000000L) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            CFAIL("the writer did not reach %d (at %d) in 30 s", want, atomic_load(v));
        }
        race_sleep_us(50);
    }
}

/* Forks the writer, kills it as planned, reaps it. */
static void crash_round(const char *dir, const crash_plan *p)
{
    memset(sh, 0, sizeof *sh);
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        child_main(dir, p, parent);
        _exit(5);
    }
    if (p->schema) {
        wait_for(pid, &sh->phase, PH_SCHEMA);
        wait_for(pid, &sh->ddl_issued, p->target_step);
    } else if (!p->early) {
        wait_for(pid, &sh->phase, PH_STREAMING);
    }
    race_sleep_us(p->delay_us);
    check_child_alive(pid);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    if (atomic_load(&sh->ctl.failed))
        CFAIL("writer failed: %s", sh->ctl.msg);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
        CFAIL("writer ended with status 0x%x, not by the kill", st);
}

/* A session of the test process on dir: a plain connect, as an application would. */
static void reopen(const char *dir, CassCluster **c, CassSession **s)
{
    crash_plan sync_plan = {.durability = CASSETTE_DURABILITY_SYNC, .group_commit = 1};
    connect_to(dir, &sync_plan, c, s);
}

static void close_session(CassCluster *c, CassSession *s)
{
    CassFuture *f = cass_session_close(s);
    CCHECK(cass_future_error_code(f) == CASS_OK);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

static CassIterator *rows_of(const CassResult *r)
{
    CassIterator *it = cass_iterator_from_result(r);
    CCHECK(it);
    return it;
}

static int64_t get_bigint(const CassValue *v)
{
    cass_int64_t x = 0;
    CCHECK(v && !cass_value_is_null(v) && cass_value_get_int64(v, &x) == CASS_OK);
    return x;
}

static int32_t get_int(const CassValue *v)
{
    cass_int32_t x = 0;
    CCHECK(v && !cass_value_is_null(v) && cass_value_get_int32(v, &x) == CASS_OK);
    return x;
}

/* The text of v equals want (n bytes). */
static int text_is(const CassValue *v, const char *want, size_t n)
{
    const char *s;
    size_t len;
    if (!v || cass_value_is_null(v) || cass_value_get_string(v, &s, &len) != CASS_OK)
        return 0;
    return len == n && memcmp(s, want, n) == 0;
}

/*
 * One batch writer: its writes present must be 0 .. n-1 with acked <= n <= issued, every
 * part of each there with its values, no part of any other, and last_seq = n - 1.
 * Returns n.
 */
static long verify_batches(CassSession *s, stream_kind kind, long wr, long acked, long issued)
{
    char body[BODY_MAX + 1];
    const CassResult *r = RQUERY(
        s, "SELECT seq, width, body, chk FROM crash.messages_by_writer WHERE writer = %ld", wr);
    CassIterator *it = rows_of(r);
    long n = 0;
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        long seq = get_int(cass_row_get_column(row, 0));
        if (seq != n)
            CFAIL("writer %ld: write %ld is there but write %ld is not: not a prefix", wr, seq, n);
        if (get_int(cass_row_get_column(row, 1)) != width_of(kind, wr, seq))
            CFAIL("writer %ld, write %ld: wrong width", wr, seq);
        size_t len = body_of(wr, seq, PART_BY_WRITER, body);
        if (!text_is(cass_row_get_column(row, 2), body, len) ||
            get_bigint(cass_row_get_column(row, 3)) != chk_of(wr, seq, PART_BY_WRITER))
            CFAIL("writer %ld, write %ld: messages_by_writer holds other values", wr, seq);
        n++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    if (n < acked)
        CFAIL("writer %ld: %ld writes acknowledged, %ld there: acknowledged writes lost", wr, acked,
              n);
    if (n > issued)
        CFAIL("writer %ld: %ld writes there, only %ld were issued", wr, n, issued);

    int *parts = calloc((size_t)n + 1, sizeof *parts);
    CCHECK(parts);
    int max_width = kind == K_WIDE ? MAX_WIDTH : 3;
    for (int bucket = 0; bucket < max_width; bucket++) {
        r = RQUERY(s,
                   "SELECT seq, body, chk FROM crash.messages WHERE writer = %ld AND bucket = %d",
                   wr, bucket);
        it = rows_of(r);
        while (cass_iterator_next(it)) {
            const CassRow *row = cass_iterator_get_row(it);
            long seq = get_int(cass_row_get_column(row, 0));
            if (seq < 0 || seq >= n)
                CFAIL("writer %ld: part %d of write %ld is there without its messages_by_writer "
                      "row (%ld writes there): half-written",
                      wr, bucket, seq, n);
            if (bucket >= width_of(kind, wr, seq))
                CFAIL("writer %ld, write %ld: a part %d it never had", wr, seq, bucket);
            size_t len = body_of(wr, seq, bucket, body);
            if (!text_is(cass_row_get_column(row, 1), body, len) ||
                get_bigint(cass_row_get_column(row, 2)) != chk_of(wr, seq, bucket))
                CFAIL("writer %ld, write %ld: part %d holds other values", wr, seq, bucket);
            parts[seq]++;
        }
        cass_iterator_free(it);
        cass_result_free(r);
    }
    for (long seq = 0; seq < n; seq++)
        if (parts[seq] != width_of(kind, wr, seq))
            CFAIL("writer %ld, write %ld: %d of its %d message parts are there: half-written", wr,
                  seq, parts[seq], width_of(kind, wr, seq));
    free(parts);

    r = RQUERY(s, "SELECT seq, chk FROM crash.last_seq WHERE writer = %ld", wr);
    if (n == 0 && cass_result_row_count(r) != 0)
        CFAIL("writer %ld: last_seq is set but no write is there: half-written", wr);
    if (n > 0) {
        if (cass_result_row_count(r) != 1)
            CFAIL("writer %ld: %ld writes there but no last_seq: half-written", wr, n);
        const CassRow *row = cass_result_first_row(r);
        long last = get_int(cass_row_get_column(row, 0));
        if (last != n - 1 || get_bigint(cass_row_get_column(row, 1)) != chk_of(wr, last, PART_LAST))
            CFAIL("writer %ld: last_seq is %ld, but writes 0..%ld are there", wr, last, n - 1);
    }
    cass_result_free(r);
    return n;
}

/* One conditional writer: claims 0 .. n-1 with acked <= n <= issued, each with its first
   values (the second claims changed nothing), and the static last = n - 1 on each. */
static long verify_claims(CassSession *s, long wr, long acked, long issued)
{
    char body[BODY_MAX + 1];
    const CassResult *r =
        RQUERY(s, "SELECT seq, body, chk, last FROM crash.claims WHERE writer = %ld", wr);
    long n = 0, rows = (long)cass_result_row_count(r);
    CassIterator *it = rows_of(r);
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        const CassValue *vseq = cass_row_get_column(row, 0);
        if (cass_value_is_null(vseq))
            CFAIL("writer %ld: the static last is there without a claim: half-written", wr);
        long seq = get_int(vseq);
        if (seq != n)
            CFAIL("writer %ld: claim %ld is there but claim %ld is not: not a prefix", wr, seq, n);
        size_t len = body_of(wr, seq, PART_CLAIM, body);
        if (!text_is(cass_row_get_column(row, 1), body, len) ||
            get_bigint(cass_row_get_column(row, 2)) != chk_of(wr, seq, PART_CLAIM))
            CFAIL("writer %ld, claim %ld: other values than the first claim's", wr, seq);
        const CassValue *vlast = cass_row_get_column(row, 3);
        if (cass_value_is_null(vlast) || get_int(vlast) != rows - 1)
            CFAIL("writer %ld: %ld claims there, but the static last is %d: half-written", wr, rows,
                  cass_value_is_null(vlast) ? -1 : get_int(vlast));
        n++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    if (n < acked)
        CFAIL("writer %ld: %ld claims acknowledged, %ld there: acknowledged claims lost", wr, acked,
              n);
    if (n > issued)
        CFAIL("writer %ld: %ld claims there, only %ld were issued", wr, n, issued);
    return n;
}

static long verify_writer(CassSession *s, stream_kind kind, long wr, long acked, long issued)
{
    return kind == K_COND ? verify_claims(s, wr, acked, issued)
                          : verify_batches(s, kind, wr, acked, issued);
}

/* ---- schema ---- */

enum { MUST_NOT, EITHER, MUST };

/* Whether step i of a script with `issued` steps started and `acked` acknowledged is done:
   MUST when acknowledged, EITHER when under way at the kill, MUST_NOT when never started. */
static int step_state(int i, int issued, int acked)
{
    return i < acked ? MUST : i < issued ? EITHER : MUST_NOT;
}

/* 1 when statement q succeeds; a failure must be the server's invalid-query error. */
static int runs(CassSession *s, const char *q)
{
    CassStatement *st = cass_statement_new(q, 0);
    CassFuture *f = cass_session_execute(s, st);
    CassError rc = cass_future_error_code(f);
    if (rc != CASS_OK && rc != CASS_ERROR_SERVER_INVALID_QUERY) {
        char m[512];
        CFAIL("%s: unexpected %s: %s", q, cass_error_desc(rc), race_future_message(f, m, sizeof m));
    }
    cass_future_free(f);
    cass_statement_free(st);
    return rc == CASS_OK;
}

/* The tables of keyspace crash, as system_schema.tables lists them. */
typedef struct table_list {
    char names[256][48];
    int n;
} table_list;

static void list_tables(CassSession *s, table_list *tl)
{
    const CassResult *r =
        RQUERY(s, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'crash'");
    CassIterator *it = rows_of(r);
    tl->n = 0;
    while (cass_iterator_next(it)) {
        CCHECK(tl->n < 256);
        race_text(cass_row_get_column(cass_iterator_get_row(it), 0), tl->names[tl->n],
                  sizeof tl->names[0]);
        tl->n++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
}

static int listed(const table_list *tl, const char *name)
{
    for (int i = 0; i < tl->n; i++)
        if (strcmp(tl->names[i], name) == 0)
            return 1;
    return 0;
}

/* Table crash.<name> is listed iff it can be read; returns whether it is, checked against want. */
static int check_table(CassSession *s, const table_list *tl, const char *name, int want)
{
    char q[128];
    int is = listed(tl, name);
    snprintf(q, sizeof q, "SELECT * FROM crash.%s", name);
    int usable = runs(s, q);
    if (is != usable)
        CFAIL("table %s is %s in system_schema.tables but %s: a half-made schema change", name,
              is ? "listed" : "not listed", usable ? "readable" : "cannot be read");
    if (want == MUST && !is)
        CFAIL("table %s: its acknowledged creation is lost", name);
    if (want == MUST_NOT && is)
        CFAIL("table %s is there, but its drop was acknowledged or its creation never started",
              name);
    return is;
}

/* After a schema round: what the script's acknowledged steps made is there, what it never
   started is not, each table whole. Then s<round> exists, usable, for the round after next
   to drop, and the round's other tables are dropped. */
static void verify_schema_round(CassSession *s, int round, int issued, int acked)
{
    table_list tl;
    char name[48], q[256];
    list_tables(s, &tl);
    if (round >= 2) {
        snprintf(name, sizeof name, "s%d", round - 2);
        int drop = step_state(SC_DROP_OLD, issued, acked);
        if (check_table(s, &tl, name, drop == MUST ? MUST_NOT : drop == EITHER ? EITHER : MUST))
            RRUN(s, "DROP TABLE crash.%s", name); /* what the script would have done */
    }

    snprintf(name, sizeof name, "s%d", round);
    if (check_table(s, &tl, name, step_state(SC_CREATE, issued, acked))) {
        snprintf(q, sizeof q, "SELECT k, a, b FROM crash.s%d", round);
        int has_b = runs(s, q), alter = step_state(SC_ALTER, issued, acked);
        if ((alter == MUST && !has_b) || (alter == MUST_NOT && has_b))
            CFAIL("table %s: column b is %s, but the ALTER was %s", name,
                  has_b ? "there" : "not there", alter == MUST ? "acknowledged" : "never started");
        snprintf(q, sizeof q, "SELECT k, a%s FROM crash.s%d", has_b ? ", b" : "", round);
        const CassResult *r = RQUERY(s, "%s", q);
        int seen[SC_N_ROWS] = {0};
        CassIterator *it = rows_of(r);
        while (cass_iterator_next(it)) {
            const CassRow *row = cass_iterator_get_row(it);
            int k = get_int(cass_row_get_column(row, 0));
            if (k < 0 || k >= SC_N_ROWS || step_state(row_step(k), issued, acked) == MUST_NOT)
                CFAIL("table %s: row %d was never written", name, k);
            char a[64];
            snprintf(a, sizeof a, "a-%d-%d", round, k);
            if (!text_is(cass_row_get_column(row, 1), a, strlen(a)))
                CFAIL("table %s, row %d: wrong a", name, k);
            if (has_b) {
                const CassValue *b = cass_row_get_column(row, 2);
                if (k < 5 ? !cass_value_is_null(b) : get_bigint(b) != b_of(round, k))
                    CFAIL("table %s, row %d: wrong b", name, k);
            }
            seen[k] = 1;
        }
        cass_iterator_free(it);
        cass_result_free(r);
        for (int k = 0; k < SC_N_ROWS; k++)
            if (!seen[k] && step_state(row_step(k), issued, acked) == MUST)
                CFAIL("table %s: acknowledged row %d is lost", name, k);
    } else {
        snprintf(q, sizeof q, "CREATE TABLE crash.s%d (k int PRIMARY KEY, a text)", round);
        if (!runs(s, q))
            CFAIL("table %s is not there and cannot be created", name);
    }
    /* usable: a new row goes in and comes back */
    RRUN(s, "INSERT INTO crash.s%d (k, a) VALUES (100, 'after')", round);
    const CassResult *r = RQUERY(s, "SELECT a FROM crash.s%d WHERE k = 100", round);
    CCHECK(cass_result_row_count(r) == 1);
    CCHECK(text_is(cass_row_get_column(cass_result_first_row(r), 0), "after", 5));
    cass_result_free(r);

    for (int j = 0; j < SC_N_CHURN; j++) {
        int created = step_state(SC_CHURN + 3 * j, issued, acked);
        int row = step_state(SC_CHURN + 3 * j + 1, issued, acked);
        int dropped =
            j + 1 < SC_N_CHURN ? step_state(SC_CHURN + 3 * (j + 1) + 2, issued, acked) : MUST_NOT;
        int want = created == MUST_NOT || dropped == MUST   ? MUST_NOT
                   : created == MUST && dropped == MUST_NOT ? MUST
                                                            : EITHER;
        snprintf(name, sizeof name, "c%d_%d", round, j);
        if (!check_table(s, &tl, name, want))
            continue;
        r = RQUERY(s, "SELECT k, v FROM crash.%s", name);
        size_t n = cass_result_row_count(r);
        if ((row == MUST && n != 1) || (row == MUST_NOT && n != 0) || n > 1)
            CFAIL("table %s: %zu rows, its insert %s", name, n,
                  row == MUST     ? "acknowledged"
                  : row == EITHER ? "under way"
                                  : "never started");
        if (n == 1) {
            const CassRow *rw = cass_result_first_row(r);
            CCHECK(get_int(cass_row_get_column(rw, 0)) == 1);
            CCHECK(text_is(cass_row_get_column(rw, 1), name, strlen(name)));
        }
        cass_result_free(r);
        RRUN(s, "DROP TABLE crash.%s", name); /* the tables do not pile up over the rounds */
    }
}

/* Every table listed in keyspace crash can be read. */
static void verify_all_tables_readable(CassSession *s)
{
    table_list tl;
    char q[128];
    list_tables(s, &tl);
    for (int i = 0; i < tl.n; i++) {
        snprintf(q, sizeof q, "SELECT * FROM crash.%s LIMIT 5", tl.names[i]);
        if (!runs(s, q))
            CFAIL("table %s is listed but cannot be read", tl.names[i]);
    }
}

/* ---- the test process's own writes ---- */

/* Writes round's row of crash.after. */
static void write_after(CassSession *s, int round)
{
    RRUN(s, "INSERT INTO crash.after (round, v) VALUES (%d, 'after-%d')", round, round);
}

/* Reads crash.after back: rounds 0 .. n-1, each with its value, and nothing else. */
static void read_after(CassSession *s, int n)
{
    const CassResult *r = RQUERY(s, "SELECT round, v FROM crash.after");
    CassIterator *it = rows_of(r);
    int rows = 0;
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        char want[32];
        int k = get_int(cass_row_get_column(row, 0));
        snprintf(want, sizeof want, "after-%d", k);
        if (k < 0 || k >= n || !text_is(cass_row_get_column(row, 1), want, strlen(want)))
            CFAIL("crash.after: row %d is not the one the test process wrote", k);
        rows++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    if (rows != n)
        CFAIL("crash.after: %d rows, the test process wrote %d", rows, n);
}

/* ------------------------------------------------------------------------ */
/* A process that holds the database open across the kills                   */
/* ------------------------------------------------------------------------ */

/*
 * When the test process is the only one left, its connect finds the lock file unused and
 * starts it afresh. With a holder process keeping the database open, it does not: the
 * killed writer's reader slots and, when it died inside a commit, LMDB's write lock are
 * found as the kill left them, and the holder's write right after the kill has to get past
 * them.
 */
typedef struct holder_shared {
    race_ctl ctl;     /* the holder's failure */
    atomic_int ready; /* connected, schema made */
    atomic_int cmd;   /* write rounds 0 .. cmd-1; -1: close and leave */
    atomic_int done;  /* rounds written and read back */
} holder_shared;

static holder_shared *hold;
static pid_t holder_pid;

static void holder_main(const char *dir, pid_t parent)
{
    race_is_child = 1;
    race_c = &hold->ctl;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(4);
    crash_plan sync_plan = {.durability = CASSETTE_DURABILITY_SYNC, .group_commit = 1};
    CassCluster *c;
    CassSession *s;
    connect_to(dir, &sync_plan, &c, &s);
    make_schema(s);
    atomic_store(&hold->ready, 1);
    for (int r = 0;; r++) {
        while (atomic_load(&hold->cmd) >= 0 && atomic_load(&hold->cmd) <= r)
            race_sleep_us(100);
        if (atomic_load(&hold->cmd) < 0)
            break;
        RRUN(s, "INSERT INTO crash.held (round, v) VALUES (%d, 'held-%d')", r, r);
        const CassResult *res = RQUERY(s, "SELECT round FROM crash.held");
        if (cass_result_row_count(res) != (size_t)r + 1)
            RFAIL("crash.held: %zu rows after round %d", cass_result_row_count(res), r);
        cass_result_free(res);
        atomic_store(&hold->done, r + 1);
    }
    CassFuture *f = cass_session_close(s);
    RCHECK(cass_future_error_code(f) == CASS_OK);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
    _exit(0);
}

/* Waits until *v >= want, failing the test if the holder fails, ends or takes 20 s. */
static void holder_wait(atomic_int *v, int want)
{
    long start = now_us();
    int st;
    while (atomic_load(v) < want) {
        if (atomic_load(&hold->ctl.failed))
            CFAIL("the holder process failed: %s", hold->ctl.msg);
        if (waitpid(holder_pid, &st, WNOHANG) == holder_pid)
            CFAIL("the holder process ended (status 0x%x)", st);
        if (now_us() - start > 20 * 1000000L)
            CFAIL("the holder process is stuck at %d of %d for 20 s", atomic_load(v), want);
        race_sleep_us(100);
    }
}

static void holder_start(const char *dir)
{
    hold = race_shared(sizeof *hold);
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    holder_pid = fork();
    ASSERT(holder_pid >= 0);
    if (holder_pid == 0)
        holder_main(dir, parent);
    holder_wait(&hold->ready, 1);
}

static void holder_stop(void)
{
    int st = 0;
    atomic_store(&hold->cmd, -1);
    ASSERT_EQ(waitpid(holder_pid, &st, 0), holder_pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        CFAIL("the holder process: status 0x%x: %s", st,
              atomic_load(&hold->ctl.failed) ? hold->ctl.msg : "no message");
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum variant {
    V_SYNC,      /* one writer waiting for each write, SYNC, group commit on or off */
    V_MODES,     /* one writer, every durability */
    V_PIPELINED, /* one writer, 32 futures in flight, every durability */
    V_THREADS,   /* four writers in one process: waiting, pipelining, conditional */
    V_COND,      /* conditional batches */
    V_WIDE,      /* batches of 8-40 message rows */
    V_SCHEMA     /* schema changes */
} variant;

static const cassette_durability every_mode[4] = {
    CASSETTE_DURABILITY_SYNC, CASSETTE_DURABILITY_NOMETASYNC, CASSETTE_DURABILITY_PERIODIC,
    CASSETTE_DURABILITY_NONE};

static crash_plan plan_round(variant v, int round, uint64_t *rng)
{
    crash_plan p = {.round = round, .group_commit = 1, .threads = 1};
    uint64_t r = test_rand(rng);
    p.durability = v == V_SYNC ? CASSETTE_DURABILITY_SYNC : every_mode[(round + (r & 1)) % 4];
    p.group_commit = v == V_SYNC ? round % 2 == 0 : (r >> 1) % 4 != 0;
    p.sync_period_ms = (r >> 3) % 2 ? 2 : 0; /* 2 ms: the periodic sync runs often */
    p.kind[0] = K_BATCH;
    p.depth[0] = 1;
    switch (v) {
    case V_SYNC:
    case V_MODES:
        break;
    case V_PIPELINED:
        p.depth[0] = PIPELINE;
        break;
    case V_THREADS:
        p.threads = MAX_WRITERS;
        for (int t = 0; t < MAX_WRITERS; t++) {
            p.kind[t] = t == 3 ? K_COND : t == 2 ? K_WIDE : K_BATCH;
            p.depth[t] = t == 1 ? PIPELINE : 1;
        }
        break;
    case V_COND:
        p.threads = 1 + (int)((r >> 4) % 2);
        p.kind[0] = p.kind[1] = K_COND;
        p.depth[0] = p.depth[1] = 1;
        break;
    case V_WIDE:
        p.kind[0] = K_WIDE;
        p.depth[0] = (r >> 4) % 2 ? PIPELINE : 1;
        break;
    case V_SCHEMA:
        p.schema = 1;
        p.threads = 0;
        break;
    }
    /* when: one round in six from the fork (connect, first schema), the others after the
       stream started, up to 30 ms in; schema rounds once a random step has started */
    uint64_t w = test_rand(rng);
    if (v == V_SCHEMA) {
        p.target_step = (int)(w % (SC_STEPS + 1));
        p.delay_us = (long)((w >> 8) % 800);
    } else if (round == 0 || w % 6 == 0) {
        p.early = 1;
        p.delay_us = (long)((w >> 8) % 4000);
    } else {
        p.delay_us = (long)((w >> 8) % 30000);
    }
    return p;
}

typedef struct round_record {
    crash_plan plan;
    long found[MAX_WRITERS];
} round_record;

static round_record records[MAX_ROUNDS];

static void verify_round_again(CassSession *s, const round_record *rec)
{
    for (int t = 0; t < rec->plan.threads; t++)
        verify_writer(s, rec->plan.kind[t], writer_id(rec->plan.round, t), rec->found[t],
                      rec->found[t]);
}

/* Runs the rounds of variant v on one directory; held: a holder process keeps it open. */
static void crash_loop(variant v, int held, int short_rounds, int long_rounds)
{
    int rounds = test_long() ? long_rounds : short_rounds;
    ASSERT(rounds <= MAX_ROUNDS);
    sh = race_shared(sizeof *sh);
    race_c = &sh->ctl;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/db", test_tmpdir());
    uint64_t rng =
        test_seed() ^ ((uint64_t)v << 48) ^ ((uint64_t)held << 40) ^ 0x243F6A8885A308D3ull;
    CassCluster *c;
    CassSession *s;
    if (held)
        holder_start(dir);
    for (int round = 0; round < rounds; round++) {
        crash_plan p = plan_round(v, round, &rng);
        plan_text(&p, context, sizeof context);
        crash_round(dir, &p);
        if (held) { /* the holder writes first, past what the kill left */
            atomic_store(&hold->cmd, round + 1);
            holder_wait(&hold->done, round + 1);
        }

        reopen(dir, &c, &s);
        make_schema(s); /* the schema is usable: a no-op, or what a killed first round missed */
        round_record *rec = &records[round];
        rec->plan = p;
        for (int t = 0; t < p.threads; t++)
            rec->found[t] = verify_writer(s, p.kind[t], writer_id(round, t),
                                          atomic_load(&sh->acked[t]), atomic_load(&sh->issued[t]));
        if (p.schema)
            verify_schema_round(s, round, atomic_load(&sh->ddl_issued),
                                atomic_load(&sh->ddl_acked));
        /* what earlier rounds left must have survived this crash too */
        if (round > 0)
            verify_round_again(s, &records[round - 1]);
        if (round > 1)
            verify_round_again(s, &records[test_rand(&rng) % (uint64_t)(round - 1)]);
        write_after(s, round);
        read_after(s, round + 1);
        close_session(c, s);
    }
    /* once more, everything */
    snprintf(context, sizeof context, "the last reopen, after %d rounds", rounds);
    reopen(dir, &c, &s);
    for (int round = 0; round < rounds; round++)
        verify_round_again(s, &records[round]);
    read_after(s, rounds);
    verify_all_tables_readable(s);
    close_session(c, s);
    if (held)
        holder_stop();
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

TEST(acknowledged_writes_survive_sigkill_sync)
{
    crash_loop(V_SYNC, 0, 10, 150);
}

/* NONE too: a process kill leaves the page cache, so no mode may lose an acknowledged write. */
TEST(acknowledged_writes_survive_sigkill_every_durability)
{
    crash_loop(V_MODES, 0, 10, 150);
}

TEST(acknowledged_writes_survive_sigkill_pipelined)
{
    crash_loop(V_PIPELINED, 0, 10, 150);
}

TEST(acknowledged_writes_survive_sigkill_threads)
{
    crash_loop(V_THREADS, 0, 10, 150);
}

/* The same with another process holding the database open: nothing starts the lock file
   afresh, the kill's leftovers are met by live processes. */
TEST(acknowledged_writes_survive_sigkill_with_database_held_open)
{
    crash_loop(V_THREADS, 1, 10, 150);
}

TEST(conditional_inserts_survive_sigkill)
{
    crash_loop(V_COND, 0, 10, 150);
}

TEST(batch_is_all_or_nothing_after_sigkill)
{
    crash_loop(V_WIDE, 0, 10, 150);
}

TEST(schema_change_survives_sigkill)
{
    crash_loop(V_SCHEMA, 0, 10, 150);
}
