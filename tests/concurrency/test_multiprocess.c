/*
 * Several processes on one database directory (file:DIR), as docs/storage.md
 * allows: what one process commits, another sees.
 *
 *  - A reader process polls while a writer process keeps inserting: every
 *    count it reads includes every insert acknowledged before the read began
 *    and at most the one in flight, and counts never go back. (One node:
 *    an acknowledged write is visible to every later read.)
 *  - Schema changes (CREATE TABLE, ALTER TABLE ADD / DROP, DROP TABLE, DROP
 *    KEYSPACE) made by one process reach another process's session that was
 *    connected before them: its prepared statements follow the new schema as
 *    the driver's re-prepare does after Cassandra drops them (SELECT * gains
 *    or loses the column), or fail with Cassandra's error once what they name
 *    is gone ("Undefined column name v in table ks.t", "table t does not
 *    exist", "keyspace ks does not exist"; facts §8.2); and prepared
 *    statements keep working while another process alters the table.
 *  - The shell (build/<mode>/cassette DIR -e "..."), a separate program,
 *    sees the rows the test process has committed while it keeps writing.
 *    The Makefile's test-run passes its path in CASSETTE; without it that
 *    test fails rather than pass unchecked.
 */
#include "race_util.h"

#include <errno.h>

typedef struct mp_shared {
    race_ctl ctl;
    int n_rows;
    int chunk;
    atomic_int committed; /* inserts acknowledged by the writer */
    atomic_int polls;     /* reads the reader has finished */
    atomic_int rounds;    /* schema rounds the DDL process has finished */
} mp_shared;

static mp_shared *mp;

static void make_keyspace(CassSession *s)
{
    RRUN(s, "CREATE KEYSPACE ks WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}");
}

static int64_t count_rows(CassSession *s)
{
    const CassResult *r = RQUERY(s, "SELECT count(*) FROM ks.t");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_int64_t n = 0;
    ASSERT_EQ(cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &n), CASS_OK);
    cass_result_free(r);
    return n;
}

/* Inserts rows 0..n-1 in order. After each chunk it waits for two reads of the reader to end,
   so that one of them began after the chunk: the reader sees the table grow in steps. */
static void insert_rows(CassSession *s, int n, int chunk, atomic_int *reads)
{
    const CassPrepared *p = race_prepare(s, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    for (int i = 0; i < n; i++) {
        char v[32];
        snprintf(v, sizeof v, "v%d", i);
        CassStatement *st = cass_prepared_bind(p);
        RCHECK(cass_statement_bind_int32(st, 0, i) == CASS_OK);
        RCHECK(cass_statement_bind_string(st, 1, v) == CASS_OK);
        cass_result_free(REXEC(s, st));
        cass_statement_free(st);
        atomic_store(&mp->committed, i + 1);
        if ((i + 1) % chunk == 0 && i + 1 < n) {
            int seen = atomic_load(reads);
            race_wait_at_least(reads, seen + 2);
        }
    }
    cass_prepared_free(p);
}

/* One read of the reader: the count is within what the writer had acknowledged around it and
   never below the count before; the last row it counts is there with its value. */
static int64_t checked_count(CassSession *s, int64_t last)
{
    int before = atomic_load(&mp->committed);
    int64_t c = count_rows(s);
    int after = atomic_load(&mp->committed);
    if (c < before || c > (int64_t)after + 1 || c < last)
        test_fail(__FILE__, __LINE__,
                  "read %" PRId64
                  " rows; acknowledged %d before the read, %d after; last read %" PRId64,
                  c, before, after, last);
    if (c > 0) {
        const CassResult *r = RQUERY(s, "SELECT v FROM ks.t WHERE k = %d", (int)(c - 1));
        ASSERT_EQ(cass_result_row_count(r), 1);
        char v[32], want[32];
        race_text(cass_row_get_column(cass_result_first_row(r), 0), v, sizeof v);
        snprintf(want, sizeof want, "v%d", (int)(c - 1));
        ASSERT_STR_EQ(v, want);
        cass_result_free(r);
    }
    return c;
}

static void writer_round(CassSession *s, int worker, int round, void *arg)
{
    (void)worker;
    (void)round;
    (void)arg;
    insert_rows(s, mp->n_rows, mp->chunk, &mp->polls);
}

TEST(reader_process_sees_writer_process_commits_grow)
{
    mp = race_shared(sizeof *mp);
    race_c = &mp->ctl;
    mp->n_rows = race_rounds(2000, 20000);
    mp->chunk = 100;
    const char *dir = test_tmpdir();
    race_pool pool = {0};
    race_pool_fork(&pool, dir, 1, writer_round, NULL);
    race_conn cn;
    race_connect(&cn, dir);
    make_keyspace(cn.session);
    RRUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    race_pool_go(&pool);
    race_pool_release(&pool);
    /* Each poll counts the whole table, which draws Cassandra's aggregation warning; the
       driver logs it, as the C/C++ driver does, and this test has no use for a thousand. */
    cass_log_set_level(CASS_LOG_ERROR);
    int64_t last = 0;
    int steps = 0; /* counts read strictly between empty and full, each larger than the last */
    for (;;) {
        int64_t c = checked_count(cn.session, last);
        steps += c > last && c < mp->n_rows;
        last = c;
        atomic_fetch_add(&mp->polls, 1);
        if (c == mp->n_rows)
            break;
        race_pool_finished(&pool); /* fails the test if the writer failed */
        race_pool_check_children(&pool);
    }
    race_pool_wait(&pool);
    race_pool_stop(&pool);
    /* the writer paused every chunk until a read had begun after it */
    ASSERT(steps >= mp->n_rows / mp->chunk - 1);
    race_close(&cn);
}

/* ------------------------------------------------------------------------ */
/* Schema changes across processes                                           */
/* ------------------------------------------------------------------------ */

/* The other process's part: each step waits for the test process's go. */
static void ddl_round(CassSession *s, int worker, int round, void *arg)
{
    (void)worker;
    (void)round;
    (void)arg;
    race_step_wait(1);
    make_keyspace(s);
    RRUN(s, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    RRUN(s, "INSERT INTO ks.t (k, v) VALUES (1, 'a')");
    race_step_set(2);

    race_step_wait(3);
    RRUN(s, "ALTER TABLE ks.t ADD w int");
    RRUN(s, "INSERT INTO ks.t (k, v, w) VALUES (2, 'b', 7)");
    RRUN(s, "CREATE TABLE ks.later (k int PRIMARY KEY, n int)");
    RRUN(s, "INSERT INTO ks.later (k, n) VALUES (1, 10)");
    race_step_set(4);

    race_step_wait(5);
    RRUN(s, "ALTER TABLE ks.t DROP v");
    race_step_set(6);

    race_step_wait(7);
    RRUN(s, "DROP TABLE ks.t");
    race_step_set(8);

    race_step_wait(9);
    RRUN(s, "DROP KEYSPACE ks");
    race_step_set(10);
}

/* Executes st, which must fail with code and message. */
static void exec_fails(CassSession *s, const CassStatement *st, CassError code, const char *msg)
{
    CassFuture *f = cass_session_execute(s, st);
    char m[512];
    if (cass_future_error_code(f) != code)
        test_fail(__FILE__, __LINE__, "got %s (%s), want %s (%s)",
                  cass_error_desc(cass_future_error_code(f)), race_future_message(f, m, sizeof m),
                  cass_error_desc(code), msg);
    ASSERT_STR_EQ(race_future_message(f, m, sizeof m), msg);
    cass_future_free(f);
}

static void query_fails(CassSession *s, const char *q, CassError code, const char *msg)
{
    CassStatement *st = cass_statement_new(q, 0);
    exec_fails(s, st, code, msg);
    cass_statement_free(st);
}

static void prepare_fails(CassSession *s, const char *q, CassError code, const char *msg)
{
    CassFuture *f = cass_session_prepare(s, q);
    char m[512];
    ASSERT_EQ(cass_future_error_code(f), code);
    ASSERT_STR_EQ(race_future_message(f, m, sizeof m), msg);
    cass_future_free(f);
}

static CassStatement *bind_k(const CassPrepared *p, int k)
{
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, k), CASS_OK);
    return st;
}

static void insert_kv(CassSession *s, const CassPrepared *p, int k, const char *v, CassError code,
                      const char *msg)
{
    CassStatement *st = bind_k(p, k);
    ASSERT_EQ(cass_statement_bind_string(st, 1, v), CASS_OK);
    if (code == CASS_OK)
        cass_result_free(REXEC(s, st));
    else
        exec_fails(s, st, code, msg);
    cass_statement_free(st);
}

/* The columns of a result, comma-separated, in buf. */
static const char *column_names(const CassResult *r, char *buf, size_t cap)
{
    buf[0] = 0;
    for (size_t i = 0; i < cass_result_column_count(r); i++) {
        char name[64];
        race_column_name(r, i, name, sizeof name);
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", i ? "," : "", name);
    }
    return buf;
}

/* The columns of table ks.<table> in a fresh schema snapshot, -1 if there is no such table. */
static int meta_columns(CassSession *s, const char *table)
{
    const CassSchemaMeta *m = cass_session_get_schema_meta(s);
    ASSERT(m);
    const CassKeyspaceMeta *ks = cass_schema_meta_keyspace_by_name(m, "ks");
    const CassTableMeta *t = ks ? cass_keyspace_meta_table_by_name(ks, table) : NULL;
    int n = t ? (int)cass_table_meta_column_count(t) : -1;
    cass_schema_meta_free(m);
    return n;
}

TEST(schema_changes_by_other_process_reach_connected_session)
{
    mp = race_shared(sizeof *mp);
    race_c = &mp->ctl;
    const char *dir = test_tmpdir();
    race_pool pool = {0};
    race_pool_fork(&pool, dir, 1, ddl_round, NULL);
    race_conn cn;
    race_connect(&cn, dir); /* connected before any schema exists */
    CassSession *s = cn.session;
    race_pool_go(&pool);
    race_pool_release(&pool);
    char names[256];

    prepare_fails(s, "SELECT * FROM ks.t WHERE k = ?", CASS_ERROR_SERVER_INVALID_QUERY,
                  "keyspace ks does not exist");
    race_step_set(1);
    race_step_wait(2); /* CREATE KEYSPACE, CREATE TABLE ks.t (k, v), row 1 */
    ASSERT_EQ(meta_columns(s, "t"), 2);
    const CassPrepared *sel = race_prepare(s, "SELECT * FROM ks.t WHERE k = ?");
    const CassPrepared *ins = race_prepare(s, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    CassStatement *st = bind_k(sel, 1);
    const CassResult *r = REXEC(s, st);
    ASSERT_STR_EQ(column_names(r, names, sizeof names), "k,v");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(st);
    prepare_fails(s, "SELECT n FROM ks.later WHERE k = 1", CASS_ERROR_SERVER_INVALID_QUERY,
                  "table later does not exist");

    race_step_set(3);
    race_step_wait(4); /* ALTER TABLE ks.t ADD w; row 2; CREATE TABLE ks.later */
    ASSERT_EQ(meta_columns(s, "t"), 3);
    ASSERT_EQ(meta_columns(s, "later"), 2);
    st = bind_k(sel, 2);
    r = REXEC(s, st);
    ASSERT_STR_EQ(column_names(r, names, sizeof names), "k,v,w");
    ASSERT_EQ(race_int(cass_row_get_column_by_name(cass_result_first_row(r), "w")), 7);
    cass_result_free(r);
    cass_statement_free(st);
    insert_kv(s, ins, 3, "c", CASS_OK, NULL);
    const CassPrepared *later = race_prepare(s, "SELECT n FROM ks.later WHERE k = ?");
    st = bind_k(later, 1);
    r = REXEC(s, st);
    ASSERT_EQ(race_int(cass_row_get_column(cass_result_first_row(r), 0)), 10);
    cass_result_free(r);
    cass_statement_free(st);

    race_step_set(5);
    race_step_wait(6); /* ALTER TABLE ks.t DROP v */
    ASSERT_EQ(meta_columns(s, "t"), 2);
    st = bind_k(sel, 3);
    r = REXEC(s, st);
    ASSERT_STR_EQ(column_names(r, names, sizeof names), "k,w");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    cass_statement_free(st);
    insert_kv(s, ins, 4, "d", CASS_ERROR_SERVER_INVALID_QUERY,
              "Undefined column name v in table ks.t");
    query_fails(s, "SELECT v FROM ks.t WHERE k = 1", CASS_ERROR_SERVER_INVALID_QUERY,
                "Undefined column name v in table ks.t");

    race_step_set(7);
    race_step_wait(8); /* DROP TABLE ks.t */
    ASSERT_EQ(meta_columns(s, "t"), -1);
    st = bind_k(sel, 2);
    exec_fails(s, st, CASS_ERROR_SERVER_INVALID_QUERY, "table t does not exist");
    cass_statement_free(st);
    query_fails(s, "SELECT * FROM ks.t", CASS_ERROR_SERVER_INVALID_QUERY, "table t does not exist");
    st = bind_k(later, 1);
    cass_result_free(REXEC(s, st));
    cass_statement_free(st);

    race_step_set(9);
    race_step_wait(10); /* DROP KEYSPACE ks */
    st = bind_k(later, 1);
    exec_fails(s, st, CASS_ERROR_SERVER_INVALID_QUERY, "keyspace ks does not exist");
    cass_statement_free(st);

    race_pool_wait(&pool);
    race_pool_stop(&pool);
    cass_prepared_free(sel);
    cass_prepared_free(ins);
    cass_prepared_free(later);
    race_close(&cn);
}

#define ALTER_ROUNDS race_rounds(40, 1000)

/* The other process adds a column, gives row 0 a value in it, and drops it, round after round
   (never re-adding a name, which Cassandra restricts). */
static void alter_round(CassSession *s, int worker, int round, void *arg)
{
    (void)worker;
    (void)round;
    (void)arg;
    for (int i = 0; i < ALTER_ROUNDS; i++) {
        RRUN(s, "ALTER TABLE ks.t ADD x%d int", i);
        RRUN(s, "UPDATE ks.t SET x%d = %d WHERE k = 0", i, i);
        RRUN(s, "ALTER TABLE ks.t DROP x%d", i);
        atomic_store(&mp->rounds, i + 1);
    }
}

/* Prepared statements of the test process run on while another process alters their table:
   each execution sees one schema or the next -- k, v, and at most the column being added, with
   that column's value (null or its number) -- and never fails, since what they name stays. */
TEST(prepared_statements_run_while_other_process_alters_table)
{
    mp = race_shared(sizeof *mp);
    race_c = &mp->ctl;
    const char *dir = test_tmpdir();
    race_pool pool = {0};
    race_pool_fork(&pool, dir, 1, alter_round, NULL);
    race_conn cn;
    race_connect(&cn, dir);
    CassSession *s = cn.session;
    make_keyspace(s);
    RRUN(s, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    RRUN(s, "INSERT INTO ks.t (k, v) VALUES (0, 'zero')");
    const CassPrepared *sel = race_prepare(s, "SELECT * FROM ks.t WHERE k = ?");
    const CassPrepared *ins = race_prepare(s, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    race_pool_go(&pool);
    race_pool_release(&pool);
    int execs = 0, wide = 0;
    for (int i = 1; !race_pool_finished(&pool); i++) {
        insert_kv(s, ins, i, "x", CASS_OK, NULL);
        CassStatement *st = bind_k(sel, 0);
        const CassResult *r = REXEC(s, st);
        cass_statement_free(st);
        char names[256];
        column_names(r, names, sizeof names);
        ASSERT_EQ(cass_result_row_count(r), 1);
        const CassRow *row = cass_result_first_row(r);
        int x;
        if (cass_result_column_count(r) == 3 && sscanf(names, "k,v,x%d", &x) == 1) {
            const CassValue *val = cass_row_get_column(row, 2);
            if (!cass_value_is_null(val) && race_int(val) != x)
                test_fail(__FILE__, __LINE__, "column x%d of row 0 holds %d", x, race_int(val));
            wide++;
        } else if (strcmp(names, "k,v") != 0) {
            test_fail(__FILE__, __LINE__, "SELECT * returned columns %s", names);
        }
        char v[32];
        race_text(cass_row_get_column(row, 1), v, sizeof v);
        ASSERT_STR_EQ(v, "zero");
        cass_result_free(r);
        execs++;
    }
    race_pool_stop(&pool);
    ASSERT_EQ(atomic_load(&mp->rounds), ALTER_ROUNDS);
    /* after the last DROP, the statement is back to (k, v) */
    CassStatement *st = bind_k(sel, 0);
    const CassResult *r = REXEC(s, st);
    char names[256];
    ASSERT_STR_EQ(column_names(r, names, sizeof names), "k,v");
    cass_result_free(r);
    cass_statement_free(st);
    ASSERT(execs > 0);
    (void)wide; /* how often a read fell between ADD and DROP is the scheduler's */
    cass_prepared_free(sel);
    cass_prepared_free(ins);
    race_close(&cn);
}

/* ------------------------------------------------------------------------ */
/* The shell as another process                                              */
/* ------------------------------------------------------------------------ */

typedef struct shell_writer {
    CassSession *session;
    int n, chunk;
    atomic_int runs; /* shell runs finished */
} shell_writer;

static void *shell_writer_main(void *arg)
{
    shell_writer *w = arg;
    insert_rows(w->session, w->n, w->chunk, &w->runs);
    return NULL;
}

/* Runs the shell on dir with one CQL statement; returns its standard output (malloc'd). */
static char *run_shell(const char *shell, const char *dir, const char *cql)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s' -e \"%s\" 2>&1", shell, dir, cql);
    FILE *f = popen(cmd, "r");
    ASSERT(f);
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    ASSERT(out);
    size_t n;
    while ((n = fread(out + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            out = realloc(out, cap);
            ASSERT(out);
        }
    }
    out[len] = 0;
    int st = pclose(f);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "%s: status 0x%x: %s", cmd, st, out);
    return out;
}

/* The number in the first cell of a cqlsh table (the line after the dashes). */
static long shell_count(const char *out)
{
    const char *line = out;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 0 && strspn(line, "-") == len && end) {
            errno = 0;
            char *stop;
            long v = strtol(end + 1, &stop, 10);
            if (errno == 0 && stop != end + 1)
                return v;
            break;
        }
        line = end ? end + 1 : NULL;
    }
    test_fail(__FILE__, __LINE__, "no count in the shell's output: %s", out);
}

TEST(shell_process_sees_rows_committed_while_writing)
{
    const char *shell = getenv("CASSETTE");
    if (!shell || !*shell) /* not a pass: the rule would go unchecked */
        test_fail(__FILE__, __LINE__, "CASSETTE (the shell's path) is not set; make test sets it");
    if (access(shell, X_OK) != 0)
        test_fail(__FILE__, __LINE__, "CASSETTE=%s is not an executable: %s", shell,
                  strerror(errno));
    mp = race_shared(sizeof *mp);
    race_c = &mp->ctl;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/db", test_tmpdir());
    race_conn cn;
    race_connect(&cn, dir);
    make_keyspace(cn.session);
    RRUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)");

    shell_writer w = {cn.session, race_rounds(200, 2000), 50, 0};
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, shell_writer_main, &w), 0);
    long last = 0;
    int steps = 0;
    while (last < w.n) {
        int before = atomic_load(&mp->committed);
        char *out = run_shell(shell, dir, "SELECT count(*) FROM ks.t");
        int after = atomic_load(&mp->committed);
        long c = shell_count(out);
        if (c < before || c > after + 1 || c < last)
            test_fail(__FILE__, __LINE__,
                      "the shell counted %ld rows; acknowledged %d before it ran, %d after; "
                      "last count %ld",
                      c, before, after, last);
        free(out);
        steps += c > last && c < w.n;
        last = c;
        atomic_fetch_add(&w.runs, 1);
    }
    pthread_join(th, NULL);
    ASSERT(steps >= w.n / w.chunk - 1);

    char q[128], want[64];
    snprintf(q, sizeof q, "SELECT k, v FROM ks.t WHERE k = %d", w.n - 1);
    char *out = run_shell(shell, dir, q);
    snprintf(want, sizeof want, " %d | v%d\n", w.n - 1, w.n - 1);
    if (!strstr(out, want) || !strstr(out, "(1 rows)"))
        test_fail(__FILE__, __LINE__, "the shell's row: %s", out);
    free(out);
    race_close(&cn);
}
