/*
 * Corruption trials: a database of 10,000 messages is written once, then
 * each trial copies its data.mdb, flips a few random bytes in the copy and
 * reads everything back through the driver API. Whatever the damage, a
 * trial must end in one of two ways:
 *
 *  - every row comes back exactly as written (the damage hit free space,
 *    or bytes nothing reads), or
 *  - a read fails with a server error that says the data is corrupt;
 *
 * never a crash, never a row that was not written or a changed value, never
 * a row missing without an error, never some other error (a damaged catalog
 * must not read as "table does not exist"). LMDB itself follows page
 * numbers and node offsets it does not check; where its own code faults on
 * a damaged page, cassette turns the fault into an error (engine/store/
 * fault.h); a crash that still gets through fails the trial unless the
 * verifier (cassette_check, run in a process of its own) reports the damage
 * -- the documented limit for faults outside the guarded reads.
 *
 * Trials aim at random bytes of the whole file, at the two LMDB meta pages,
 * and at the catalog's records. `make test` runs 60 trials of a fixed seed
 * and `make test-long` 1,000; `make test-corrupt` runs 1,000 of a new seed
 * each time (CASSETTE_CORRUPT_TRIALS sets the count, CASSETTE_SEED the
 * seed, CASSETTE_CORRUPT_VERBOSE=1 prints every trial). Each trial runs in a
 * child process; the parent sums up what happened and fails on any bad
 * outcome, naming the trial and its bytes.
 *
 * Only <cassandra.h>, <cassette.h> and the harness.
 */
#include <cassandra.h>
#include <cassette.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "harness.h"

#define ROOMS 100
#define PER_ROOM 100
#define USERS 200
#define KS "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"

enum outcome {
    CORRECT,       /* everything read back as written */
    REPORTED,      /* a read failed saying the data is corrupt */
    WRONG,         /* a row changed, appeared or went missing without an error */
    OTHER_ERROR,   /* an error that does not say corruption */
    CRASH,         /* the reader died in cassette's code */
    CRASH_IN_LMDB, /* the reader died inside liblmdb */
    N_OUTCOMES
};

static const char *outcome_names[] = {"correct", "reported corruption", "WRONG ANSWER",
                                      "OTHER ERROR",  "CRASH",              "crash in LMDB"};

/* ---- the data ---- */

/* The time UUID of message i of a room: version 1, its time the message number. */
static void message_id(int room, int i, char *out, size_t cap)
{
    snprintf(out, cap, "%08x-%04x-1%03x-8%03x-%012x", 0x10000000 + i, room, 0x1e, room,
             room * 1000 + i);
}

static void author_of(int room, int i, char *out, size_t cap)
{
    snprintf(out, cap, "user%03d-%c", (room * 7 + i) % USERS, 'a' + i % 26);
}

static void body_of(int room, int i, char *out, size_t cap)
{
    snprintf(out, cap, "message %d of room %d: %.*s", i, room, 20 + (room * 31 + i) % 60,
             "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor");
}

static CassSession *connect_dir(const char *dir, CassCluster **cluster, char *msg, size_t cap)
{
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    *cluster = cass_cluster_new();
    cass_cluster_set_contact_points(*cluster, uri);
    CassSession *s = cass_session_new();
    CassFuture *f = cass_session_connect(s, *cluster);
    CassError rc = cass_future_error_code(f);
    if (rc != CASS_OK) {
        const char *m;
        size_t n;
        cass_future_error_message(f, &m, &n);
        snprintf(msg, cap, "%.*s", (int)n, m);
        cass_future_free(f);
        cass_session_free(s);
        cass_cluster_free(*cluster);
        return NULL;
    }
    cass_future_free(f);
    return s;
}

static void run(CassSession *s, CassStatement *st)
{
    CassFuture *f = cass_session_execute(s, st);
    if (cass_future_error_code(f) != CASS_OK) {
        const char *m;
        size_t n;
        cass_future_error_message(f, &m, &n);
        test_fail(__FILE__, __LINE__, "setup statement failed: %.*s", (int)n, m);
    }
    cass_future_free(f);
    cass_statement_free(st);
}

static void run_cql(CassSession *s, const char *q) { run(s, cass_statement_new(q, 0)); }

/* Writes the pristine database into dir. */
static void build(const char *dir)
{
    CassCluster *c;
    char msg[512];
    CassSession *s = connect_dir(dir, &c, msg, sizeof msg);
    if (!s)
        test_fail(__FILE__, __LINE__, "connect: %s", msg);
    run_cql(s, KS);
    run_cql(s, "CREATE TABLE ks.messages (room int, id timeuuid, author text, body text, "
               "PRIMARY KEY (room, id)) WITH CLUSTERING ORDER BY (id DESC)");
    run_cql(s, "CREATE TABLE ks.users (name text PRIMARY KEY, rooms set<int>, joined int)");
    const CassPrepared *p;
    CassFuture *f = cass_session_prepare(
        s, "BEGIN UNLOGGED BATCH "
           "INSERT INTO ks.messages (room, id, author, body) VALUES (?, ?, ?, ?); "
           "APPLY BATCH");
    ASSERT_EQ(cass_future_error_code(f), CASS_OK);
    cass_future_free(f);
    f = cass_session_prepare(s, "INSERT INTO ks.messages (room, id, author, body) "
                                "VALUES (?, ?, ?, ?)");
    ASSERT_EQ(cass_future_error_code(f), CASS_OK);
    p = cass_future_get_prepared(f);
    cass_future_free(f);
    for (int room = 0; room < ROOMS; room++) {
        CassBatch *b = cass_batch_new(CASS_BATCH_TYPE_UNLOGGED);
        for (int i = 0; i < PER_ROOM; i++) {
            char id[40], author[40], body[160];
            message_id(room, i, id, sizeof id);
            author_of(room, i, author, sizeof author);
            body_of(room, i, body, sizeof body);
            CassUuid u;
            ASSERT_EQ(cass_uuid_from_string(id, &u), CASS_OK);
            CassStatement *st = cass_prepared_bind(p);
            cass_statement_bind_int32(st, 0, room);
            cass_statement_bind_uuid(st, 1, u);
            cass_statement_bind_string(st, 2, author);
            cass_statement_bind_string(st, 3, body);
            cass_batch_add_statement(b, st);
            cass_statement_free(st);
        }
        f = cass_session_execute_batch(s, b);
        ASSERT_EQ(cass_future_error_code(f), CASS_OK);
        cass_future_free(f);
        cass_batch_free(b);
    }
    cass_prepared_free(p);
    for (int u = 0; u < USERS; u++) {
        char q[200];
        snprintf(q, sizeof q,
                 "INSERT INTO ks.users (name, rooms, joined) VALUES ('user%03d', {%d, %d}, %d)", u,
                 u % ROOMS, (u * 3) % ROOMS, u * 11);
        run_cql(s, q);
    }
    f = cass_session_close(s);
    cass_future_free(f);
    cass_session_free(s);
    cass_cluster_free(c);
}

/* ---- reading back ---- */

typedef struct checker {
    CassSession *s;
    unsigned char seen[ROOMS][PER_ROOM];
    unsigned char user_seen[USERS];
    char why[512];
} checker;

/* REPORTED if the failed future says the data is corrupt, else OTHER_ERROR; why says it. */
static enum outcome failed(checker *c, CassFuture *f, const char *what)
{
    const char *m;
    size_t n;
    cass_future_error_message(f, &m, &n);
    snprintf(c->why, sizeof c->why, "%s: %.*s", what, (int)n, m);
    int says_corrupt = cass_future_error_code(f) == CASS_ERROR_SERVER_SERVER_ERROR &&
                       (memmem(m, n, "orrupt", 6) || memmem(m, n, "checksum", 8) ||
                        memmem(m, n, "malformed", 9));
    return says_corrupt ? REPORTED : OTHER_ERROR;
}

static enum outcome wrong(checker *c, const char *fmt, int a, int b)
{
    snprintf(c->why, sizeof c->why, fmt, a, b);
    return WRONG;
}

static int text_is(const CassValue *v, const char *want)
{
    const char *s;
    size_t n;
    return cass_value_get_string(v, &s, &n) == CASS_OK && n == strlen(want) &&
           memcmp(s, want, n) == 0;
}

/* One message row: must be one that was written, unchanged, not seen before. */
static enum outcome check_message(checker *c, const CassRow *row, int want_room)
{
    cass_int32_t room;
    CassUuid u;
    if (cass_value_get_int32(cass_row_get_column(row, 0), &room) != CASS_OK ||
        cass_value_get_uuid(cass_row_get_column(row, 1), &u) != CASS_OK)
        return wrong(c, "a message row with a null key (room %d, %d)", want_room, 0);
    int i = (int)((u.time_and_version & 0xffffffffu) - 0x10000000u);
    if (room < 0 || room >= ROOMS || i < 0 || i >= PER_ROOM ||
        (want_room >= 0 && room != want_room))
        return wrong(c, "a message never written: room %d, number %d", room, i);
    char id[40], author[40], body[160], got[40];
    message_id(room, i, id, sizeof id);
    cass_uuid_string(u, got);
    if (strcmp(id, got))
        return wrong(c, "a message id never written in room %d (number %d)", room, i);
    author_of(room, i, author, sizeof author);
    body_of(room, i, body, sizeof body);
    if (!text_is(cass_row_get_column(row, 2), author) ||
        !text_is(cass_row_get_column(row, 3), body))
        return wrong(c, "message %d of room %d changed", i, room);
    if (c->seen[room][i]++)
        return wrong(c, "message %d of room %d returned twice", i, room);
    return CORRECT;
}

/* Runs q page by page, checking each row with check(c, row, arg). */
static enum outcome read_all(checker *c, const char *q, int arg,
                             enum outcome (*check)(checker *, const CassRow *, int))
{
    CassStatement *st = cass_statement_new(q, 0);
    cass_statement_set_paging_size(st, 997);
    enum outcome o = CORRECT;
    for (;;) {
        CassFuture *f = cass_session_execute(c->s, st);
        if (cass_future_error_code(f) != CASS_OK) {
            o = failed(c, f, q);
            cass_future_free(f);
            break;
        }
        const CassResult *r = cass_future_get_result(f);
        cass_future_free(f);
        CassIterator *it = cass_iterator_from_result(r);
        while (o == CORRECT && cass_iterator_next(it))
            o = check(c, cass_iterator_get_row(it), arg);
        cass_iterator_free(it);
        int more = cass_result_has_more_pages(r);
        if (o == CORRECT && more)
            cass_statement_set_paging_state(st, r);
        cass_result_free(r);
        if (o != CORRECT || !more)
            break;
    }
    cass_statement_free(st);
    return o;
}

static enum outcome check_user(checker *c, const CassRow *row, int unused)
{
    (void)unused;
    const char *name;
    size_t n;
    if (cass_value_get_string(cass_row_get_column(row, 0), &name, &n) != CASS_OK || n != 7 ||
        memcmp(name, "user", 4))
        return wrong(c, "a user never written (%d, %d)", (int)n, 0);
    int u = (name[4] - '0') * 100 + (name[5] - '0') * 10 + (name[6] - '0');
    if (u < 0 || u >= USERS)
        return wrong(c, "a user never written (%d, %d)", u, 0);
    cass_int32_t joined;
    if (cass_value_get_int32(cass_row_get_column(row, 2), &joined) != CASS_OK ||
        joined != u * 11)
        return wrong(c, "user %d changed its joined value (%d)", u, joined);
    CassIterator *it = cass_iterator_from_collection(cass_row_get_column(row, 1));
    int got[2], k = 0;
    while (it && cass_iterator_next(it) && k < 3) {
        cass_int32_t x = -1;
        cass_value_get_int32(cass_iterator_get_value(it), &x);
        if (k < 2)
            got[k] = x;
        k++;
    }
    if (it)
        cass_iterator_free(it);
    int a = u % ROOMS, b = (u * 3) % ROOMS, lo = a < b ? a : b, hi = a < b ? b : a;
    int want_n = a == b ? 1 : 2;
    if (k != want_n || got[0] != lo || (want_n == 2 && got[1] != hi))
        return wrong(c, "user %d changed its rooms (%d elements)", u, k);
    if (c->user_seen[u]++)
        return wrong(c, "user %d returned twice", u, 0);
    return CORRECT;
}

/* Reads everything back, by full scans and partition by partition. */
static enum outcome read_back(const char *dir, char *why, size_t cap)
{
    static checker c;
    memset(&c, 0, sizeof c);
    CassCluster *cl;
    c.s = connect_dir(dir, &cl, c.why, sizeof c.why);
    enum outcome o = CORRECT;
    if (!c.s) {
        int corrupt = strstr(c.why, "orrupt") || strstr(c.why, "checksum") ||
                      strstr(c.why, "malformed");
        snprintf(why, cap, "connect: %s", c.why);
        return corrupt ? REPORTED : OTHER_ERROR;
    }
    o = read_all(&c, "SELECT room, id, author, body FROM ks.messages", -1, check_message);
    for (int room = 0; room < ROOMS && o == CORRECT; room++)
        if (room % 10 == 0 || o != CORRECT)
            for (int i = 0; i < PER_ROOM; i++)
                if (!c.seen[room][i])
                    o = wrong(&c, "message %d of room %d missing from the scan", i, room);
    if (o == CORRECT) {
        memset(c.seen, 0, sizeof c.seen);
        for (int room = 0; room < ROOMS && o == CORRECT; room++) {
            char q[120];
            snprintf(q, sizeof q,
                     "SELECT room, id, author, body FROM ks.messages WHERE room = %d", room);
            o = read_all(&c, q, room, check_message);
            for (int i = 0; i < PER_ROOM && o == CORRECT; i++)
                if (!c.seen[room][i])
                    o = wrong(&c, "message %d of room %d missing from its partition", i, room);
        }
    }
    if (o == CORRECT) {
        o = read_all(&c, "SELECT name, rooms, joined FROM ks.users", 0, check_user);
        for (int u = 0; u < USERS && o == CORRECT; u++)
            if (!c.user_seen[u])
                o = wrong(&c, "user %d missing", u, 0);
    }
    snprintf(why, cap, "%s", c.why);
    CassFuture *f = cass_session_close(c.s);
    cass_future_free(f);
    cass_session_free(c.s);
    cass_cluster_free(cl);
    return o;
}

/* ---- trials ---- */

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0)
        return -1;
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            return -1;
    close(in);
    close(out);
    return 0;
}

/* Offsets of every occurrence of needle in the file's bytes (the catalog's records). */
static size_t find_all(const uint8_t *p, size_t len, const char *needle, size_t *at, size_t cap)
{
    size_t n = 0, nl = strlen(needle);
    for (size_t i = 0; i + nl <= len && n < cap; i++)
        if (memcmp(p + i, needle, nl) == 0)
            at[n++] = i;
    return n;
}

typedef struct pristine {
    char dir[512];
    uint8_t *bytes;
    size_t len;
    size_t catalog_at[64]; /* where the catalog names its tables and columns */
    size_t n_catalog;
} pristine;

/* Flips 1 to 4 bytes of the copy: anywhere, in a meta page, or near a catalog record. */
static void damage(const pristine *pr, const char *path, uint64_t *rs, char *what, size_t cap)
{
    int fd = open(path, O_RDWR);
    ASSERT(fd >= 0);
    int aim = (int)(test_rand(rs) % 10); /* 0: meta pages, 1-2: catalog, else anywhere */
    int flips = 1 + (int)(test_rand(rs) % 4);
    size_t used = 0;
    for (int i = 0; i < flips; i++) {
        size_t off;
        if (aim == 0)
            off = test_rand(rs) % 8192;
        else if (aim <= 2 && pr->n_catalog)
            off = pr->catalog_at[test_rand(rs) % pr->n_catalog] + test_rand(rs) % 256 - 128;
        else
            off = test_rand(rs) % pr->len;
        if (off >= pr->len)
            off = pr->len - 1;
        uint8_t b = pr->bytes[off] ^ (uint8_t)(1 + test_rand(rs) % 255);
        ASSERT_EQ(pwrite(fd, &b, 1, (off_t)off), 1);
        used += (size_t)snprintf(what + used, cap - used, "%s%zu", i ? "," : "", off);
        if (used >= cap)
            used = cap - 1;
    }
    close(fd);
}

/* Written by a crashing reader: where it died. */
static int crash_fd = -1;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    ucontext_t *u = uc;
    Dl_info info;
    void *pc = (void *)u->uc_mcontext.gregs[REG_RIP];
    const char *lib = dladdr(pc, &info) && info.dli_fname ? info.dli_fname : "?";
    char line[600];
    int n = snprintf(line, sizeof line, "%d %s %s", sig, lib,
                     info.dli_sname ? info.dli_sname : "?");
    if (crash_fd >= 0 && n > 0)
        (void)!write(crash_fd, line, (size_t)n);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Runs fn(dir) in a child; its outcome, or CRASH / CRASH_IN_LMDB if it died. */
static enum outcome in_child(enum outcome (*fn)(const char *, char *, size_t), const char *dir,
                             char *why, size_t cap)
{
    int pipe_fd[2];
    ASSERT_EQ(pipe(pipe_fd), 0);
    fflush(stdout);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        close(pipe_fd[0]);
        crash_fd = pipe_fd[1];
        alarm(60);
        char w[512] = "";
        enum outcome o = fn(dir, w, sizeof w);
        size_t n = strlen(w);
        (void)!write(crash_fd, w, n);
        _exit((int)o);
    }
    close(pipe_fd[1]);
    char buf[600];
    ssize_t n = 0, got;
    while (n < (ssize_t)sizeof buf - 1 && (got = read(pipe_fd[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
        n += got;
    buf[n > 0 ? n : 0] = 0;
    close(pipe_fd[0]);
    int status;
    waitpid(pid, &status, 0);
    snprintf(why, cap, "%s", buf);
    if (WIFEXITED(status) && WEXITSTATUS(status) < N_OUTCOMES)
        return (enum outcome)WEXITSTATUS(status);
    if (WIFSIGNALED(status) && strstr(buf, "liblmdb"))
        return CRASH_IN_LMDB;
    if (WIFSIGNALED(status))
        snprintf(why, cap, "signal %d: %.500s", WTERMSIG(status), buf);
    return CRASH;
}

/* The verifier's verdict: REPORTED if it finds damage (or dies finding it), else CORRECT. */
static enum outcome verify(const char *dir, char *why, size_t cap)
{
    char report[1024] = "";
    int rc = cassette_check(dir, report, sizeof report);
    snprintf(why, cap, "%s", report);
    return rc == 0 ? CORRECT : REPORTED;
}

static int trial_count(int fallback)
{
    const char *v = getenv("CASSETTE_CORRUPT_TRIALS");
    return v && atoi(v) > 0 ? atoi(v) : fallback;
}

TEST(damaged_bytes_read_back_correctly_or_report_corruption)
{
    static pristine pr;
    /* Before the library installs its own handlers, which pass on what is not theirs: a
       crash the library does not turn into an error reaches this one. */
    struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO};
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    const char *tmp = test_tmpdir();
    snprintf(pr.dir, sizeof pr.dir, "%s/pristine", tmp);
    build(pr.dir);
    char data[600];
    snprintf(data, sizeof data, "%s/data.mdb", pr.dir);
    int fd = open(data, O_RDONLY);
    ASSERT(fd >= 0);
    struct stat st;
    ASSERT_EQ(fstat(fd, &st), 0);
    pr.len = (size_t)st.st_size;
    pr.bytes = malloc(pr.len);
    ASSERT(pr.bytes);
    ASSERT_EQ(read(fd, pr.bytes, pr.len), (ssize_t)pr.len);
    close(fd);
    pr.n_catalog = find_all(pr.bytes, pr.len, "messages", pr.catalog_at, 32);
    pr.n_catalog += find_all(pr.bytes, pr.len, "rooms", pr.catalog_at + pr.n_catalog, 16);
    pr.n_catalog += find_all(pr.bytes, pr.len, "author", pr.catalog_at + pr.n_catalog, 16);
    if (getenv("CASSETTE_CORRUPT_VERBOSE"))
        printf("# data.mdb: %zu bytes, %zu catalog spots\n", pr.len, pr.n_catalog);

    int trials = trial_count(test_long() ? 1000 : 60);
    /* A fixed seed, so `make test` meets the same damage every run; CASSETTE_SEED replays a
       run, CASSETTE_CORRUPT_RANDOM=1 (`make test-corrupt`) looks for new damage. */
    uint64_t seed = getenv("CASSETTE_SEED") || getenv("CASSETTE_CORRUPT_RANDOM") ? test_seed()
                                                                                 : 20261126;
    int counts[N_OUTCOMES] = {0}, bad = 0;
    for (int t = 0; t < trials; t++) {
        uint64_t rs = seed * 1000003u + (uint64_t)t + 1;
        char dir[600], file[700], what[200], why[600];
        snprintf(dir, sizeof dir, "%s/trial", tmp);
        mkdir(dir, 0755);
        snprintf(file, sizeof file, "%s/data.mdb", dir);
        ASSERT_EQ(copy_file(data, file), 0);
        snprintf(file, sizeof file, "%s/lock.mdb", dir);
        unlink(file);
        snprintf(file, sizeof file, "%s/data.mdb", dir);
        damage(&pr, file, &rs, what, sizeof what);
        enum outcome o = in_child(read_back, dir, why, sizeof why);
        if (o == CRASH_IN_LMDB || o == OTHER_ERROR || o == WRONG) {
            /* re-damage a fresh copy identically: the read may have written to it */
            char vwhy[600];
            ASSERT_EQ(copy_file(data, file), 0);
            snprintf(file, sizeof file, "%s/lock.mdb", dir);
            unlink(file);
            snprintf(file, sizeof file, "%s/data.mdb", dir);
            uint64_t rs2 = seed * 1000003u + (uint64_t)t + 1;
            damage(&pr, file, &rs2, what, sizeof what);
            enum outcome v = in_child(verify, dir, vwhy, sizeof vwhy);
            int reported = v == REPORTED || v == CRASH || v == CRASH_IN_LMDB;
            if (o == CRASH_IN_LMDB && getenv("CASSETTE_CORRUPT_VERBOSE"))
                printf("# trial %d (bytes %s): crash in LMDB: %s (check: %s)\n", t, what, why,
                       reported ? vwhy : "clean");
            if (o == CRASH_IN_LMDB && !reported) {
                printf("# trial %d (bytes %s): LMDB crashed and the check saw nothing: %s\n", t,
                       what, why);
                bad++;
            } else if (o != CRASH_IN_LMDB) {
                printf("# trial %d (bytes %s): %s: %s (check: %s)\n", t, what, outcome_names[o],
                       why, reported ? vwhy : "clean");
                bad++;
            }
        } else if (o == CRASH) {
            printf("# trial %d (bytes %s): CRASH: %s\n", t, what, why);
            bad++;
        } else if (getenv("CASSETTE_CORRUPT_VERBOSE")) {
            printf("# trial %d (bytes %s): %s: %s\n", t, what, outcome_names[o], why);
        }
        counts[o]++;
    }
    printf("# %d trials (seed %llu):", trials, (unsigned long long)seed);
    for (int o = 0; o < N_OUTCOMES; o++)
        if (counts[o])
            printf(" %d %s,", counts[o], outcome_names[o]);
    printf("\n");
    free(pr.bytes);
    if (bad)
        test_fail(__FILE__, __LINE__, "%d of %d trials crashed or answered wrongly", bad, trials);
}
