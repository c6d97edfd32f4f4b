/*
 * Fuzz target for the CQL text path: the input is a script of up to 8 statements, each
 * prepared and executed through the executor (cql/cql.h) in keyspace ks of a small schema
 * holding every CQL type (fz_columns in the table all_types, with a static column and a
 * DESC clustering column), a counter table, a table keyed by composite types, and a few
 * rows, empty values and empty collections among them.
 *
 * Checked on every statement: no crash, no sanitizer report, no leak; a failure has a
 * message and is never ENG_E_CORRUPT (what we wrote, we can read); every cell of a result
 * validates for its column's type and renders (toString, JSON). Bind markers get values
 * made by fz_gen_value from a fixed pattern, so statements with markers run too. Pages of
 * 3 rows are followed, up to 5 pages.
 *
 * Reproducible runs: every input starts from the same database. Inputs that only read
 * share it; after one that changed something (a write, a schema change), the database is
 * replaced by a fresh copy of a template built once (a file copy on /dev/shm, cheaper than
 * building the schema again), so no input sees what an earlier one did.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cql/cql.h"
#include "cql/exec/json.h"
#include "cql/lang/script.h"
#include "engine/value/text.h"
#include "fuzz.h"

#define MAX_STATEMENTS 8
#define MAX_PAGES 5

static char template_dir[96], work_dir[96];
static eng_db *db;
static cql_session *session;
static int dirty = 1; /* the work database is not a fresh copy of the template */

/* ---- the database ---- */

static void setup_query(cql_session *s, const char *q)
{
    eng_err err;
    eng_err_clear(&err);
    cql_exec_options o;
    cql_exec_options_init(&o);
    if (cql_query(s, q, strlen(q), &o, NULL, &err) != 0)
        fz_fail("cql: setup statement failed: %s\n  %s", err.msg, q);
}

static const char *const rows[] = {
    "INSERT INTO all_types (k, c, c2, s, a, bi, b, bo, de, d, f, i, ts, u, tx, vi, tu, ip, dt, "
    "tm, si, ti, du, l, st, m, fl, fs, fm, tp, ad, fad, ll, mt, sd, fsu, tn, mb, ldu, stu, mip, "
    "nest, sf, lts) VALUES (1, 'a', 1, 7, 'ascii', 9223372036854775807, 0xcafe, true, 1.50, "
    "NaN, -Infinity, -2147483648, '2011-02-03 04:05:00+0000', "
    "123e4567-e89b-12d3-a456-426655440000, 'tëxt', -12345678901234567890, "
    "50554d6e-29bb-11e5-b345-feff819cdc9f, '::1', '1970-01-01', '23:59:59.999999999', -32768, "
    "-128, 1y2mo3w4d5h6m7s8ms9us10ns, [1, 2, 2], {'x', 'y'}, {'k': 1}, ['f'], {3, 1}, "
    "{1: 'one'}, (1, 'two', 3.0), {street: 's', zip: 1, tags: {'t'}, loc: (1.5, -1.5)}, "
    "{street: 'f'}, [[1], []], {1: ('a', 1)}, {NaN, -0.0, 0.0}, {(1, 'a'), (0, 'b')}, "
    "(0, 0.000, -1, false), {123e4567-e89b-12d3-a456-426655440000: [0x, 0x00]}, [-1d, 1mo], "
    "{50554d6e-29bb-11e5-b345-feff819cdc9f}, {'127.0.0.1': '2020-02-29'}, "
    "[{'': {1, -1}}], {1.0, NaN}, [('00:00:00', 0, 0)])",
    "INSERT INTO all_types (k, c, c2, i, bi, tx, b, l, st, m, fl, fs, fm, ad) VALUES (1, '', 0, "
    "blobAsInt(0x), blobAsBigint(0x), '', 0x, [], {}, {}, [], {}, {}, {zip: null})",
    "INSERT INTO all_types (k, c, c2, de, vi, d, f, u, ts, ip) VALUES (2, 'z', -1, "
    "blobAsDecimal(0x), blobAsVarint(0x), blobAsDouble(0x), blobAsFloat(0x), blobAsUuid(0x), "
    "blobAsTimestamp(0x), blobAsInet(0x))",
    "INSERT INTO all_types (k, c, c2, tp, tn, fad) VALUES (3, 'n', 3, (null, null, null), "
    "(null, null, null, null), {street: ''})",
    "UPDATE all_types USING TTL 86400 SET l = l + [3], m['q'] = 2 WHERE k = 1 AND c = 'a' AND "
    "c2 = 1",
    "DELETE st FROM all_types WHERE k = 2 AND c = 'z' AND c2 = -1",
    "UPDATE counters SET n = n + 5 WHERE k = 1 AND c = 1",
    "UPDATE counters SET n = n - 9223372036854775807 WHERE k = 1 AND c = 2",
    "INSERT INTO keyed (k, c1, c2, c3, v) VALUES ((1, 'a'), {street: 'x', zip: 2}, [1, 2], 1.0, "
    "'v')",
    "INSERT INTO keyed (k, c1, c2, c3, v) VALUES ((1, 'a'), {street: 'y'}, [], 0.5, 'w')",
    "INSERT INTO keyed (k, c1, c2, c3, v) VALUES ((1, ''), {zip: 0}, [3], blobAsDecimal(0x), '')",
};

static void build_schema(cql_session *s)
{
    char q[4096];
    setup_query(s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
                   "'replication_factor': 1}");
    setup_query(s, "USE ks");
    snprintf(q, sizeof q, "CREATE TYPE %s", fz_udt_cql);
    setup_query(s, q);
    size_t n = (size_t)snprintf(q, sizeof q,
                                "CREATE TABLE all_types (k int, c text, c2 int, "
                                "s int static");
    for (int i = 0; i < fz_n_columns; i++)
        n +=
            (size_t)snprintf(q + n, sizeof q - n, ", %s %s", fz_columns[i].name, fz_columns[i].cql);
    snprintf(q + n, sizeof q - n,
             ", PRIMARY KEY ((k), c, c2)) WITH CLUSTERING ORDER BY "
             "(c DESC, c2 ASC)");
    setup_query(s, q);
    setup_query(s, "CREATE TABLE counters (k int, c int, n counter, PRIMARY KEY (k, c))");
    setup_query(s, "CREATE TABLE keyed (k frozen<tuple<int, text>>, c1 frozen<addr>, "
                   "c2 frozen<list<int>>, c3 decimal, v text, PRIMARY KEY (k, c1, c2, c3)) "
                   "WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC, c3 DESC)");
    for (size_t i = 0; i < ENG_ARRAY_LEN(rows); i++)
        setup_query(s, rows[i]);
}

static const eng_db_options db_options = {ENG_DURABLE_NONE, 0, 0, 0, 0};

/* Directories are named after the process, so that the next run can tell those a crash
   left behind (their process is gone) from those of a run going on beside it. */
static void make_dir(char *out, size_t cap, const char *base)
{
    snprintf(out, cap, "%s/cassette-fuzz-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(out))
        fz_fail("cql: cannot make a directory under %s", base);
}

static void copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0)
        fz_fail("cql: cannot copy %s to %s", from, to);
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            fz_fail("cql: cannot write %s", to);
    close(in);
    close(out);
}

static void close_work(void)
{
    cql_session_free(session);
    eng_db_close(db);
    session = NULL;
    db = NULL;
}

static void remove_db_dir(const char *dir)
{
    char path[600];
    if (!dir[0])
        return;
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/lock.mdb", dir);
    unlink(path);
    rmdir(dir);
}

static void at_exit(void)
{
    close_work();
    remove_db_dir(work_dir);
    remove_db_dir(template_dir);
}

/* Removes the directories of runs that crashed (a crash skips at_exit). */
static void remove_leftovers(const char *base)
{
    DIR *d = opendir(base);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid;
        char path[512];
        if (sscanf(e->d_name, "cassette-fuzz-%ld-", &pid) != 1 || pid <= 0 ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(path, sizeof path, "%s/%s", base, e->d_name);
        remove_db_dir(path);
    }
    if (d)
        closedir(d);
}

static void open_fresh(void)
{
    char from[128], to[128];
    eng_err err;
    eng_err_clear(&err);
    close_work();
    snprintf(from, sizeof from, "%s/data.mdb", template_dir);
    snprintf(to, sizeof to, "%s/data.mdb", work_dir);
    copy_file(from, to);
    if (eng_db_open(work_dir, &db_options, &db, &err) != 0 ||
        cql_session_new(db, &session, &err) != 0)
        fz_fail("cql: cannot open the work database: %s", err.msg);
    setup_query(session, "USE ks");
    dirty = 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct stat st;
    const char *base =
        stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    remove_leftovers(base);
    make_dir(template_dir, sizeof template_dir, base);
    make_dir(work_dir, sizeof work_dir, base);
    eng_err err;
    eng_err_clear(&err);
    eng_db *t;
    cql_session *s;
    if (eng_db_open(template_dir, &db_options, &t, &err) != 0 || cql_session_new(t, &s, &err) != 0)
        fz_fail("cql: cannot open the template database: %s", err.msg);
    build_schema(s);
    cql_session_free(s);
    eng_db_close(t);
    atexit(at_exit);
    return 0;
}

/* ---- checks on results ---- */

static void check_cell(const cql_column_spec *col, const eng_val *v)
{
    if (v->len < 0 || !col->type)
        return;
    const uint8_t *p = v->p; /* as the executor hands it over: an empty value may be NULL */
    eng_err err;
    eng_err_clear(&err);
    /* Empty values are what Cassandra stores for blobAsInt(0x) and the like: they need not
       validate (smallint, date... refuse them), only render. */
    if (v->len > 0 && eng_type_validate(col->type, p, (size_t)v->len, &err) != 0 &&
        col->type->kind != ENG_TUPLE) /* a hex constant goes into a tuple unchecked */
        fz_fail("cql: column %s returned a value that does not validate: %s", col->name, err.msg);
    eng_buf text = ENG_BUF_INIT;
    eng_err_clear(&err);
    (void)eng_text_to_string(col->type, p, (size_t)v->len, &text, &err);
    eng_err_clear(&err);
    (void)cql_json_value(col->type, p, (size_t)v->len, &text, &err);
    eng_buf_free(&text);
}

static void check_result(const cql_result *r)
{
    if (r->kind != CQL_RESULT_ROWS)
        return;
    for (uint32_t i = 0; i < r->n_rows; i++)
        for (uint32_t j = 0; j < r->n_cols; j++)
            check_cell(&r->cols[j], &r->cells[(size_t)i * r->n_cols + j]);
}

static void check_error(const eng_err *err, const char *q, size_t len)
{
    if (err->code == ENG_E_CORRUPT || !err->msg[0])
        fz_fail("cql: statement failed with code 0x%x \"%s\":\n  %.*s", err->code, err->msg,
                (int)len, q);
}

/* ---- one statement ---- */

/* Values for the markers: each made for its type from a fixed pattern. */
static void bind_values(cql_prepared *p, eng_val *vals, eng_buf *data, uint32_t n)
{
    static const uint8_t pattern[] = {1, 3, 0, 0, 0, 7, 2, 'a', 'b', 1, 0,  0,  0,  4,  1,  1, 9,
                                      0, 1, 2, 3, 4, 5, 6, 7,   8,   9, 10, 11, 12, 13, 14, 15};
    size_t offs[64];
    for (uint32_t i = 0; i < n; i++) {
        const cql_column_spec *spec = cql_prepared_bind(p, i);
        fz_input in = fz_input_of(pattern, sizeof pattern);
        offs[i] = data->len;
        if (spec && spec->type)
            fz_gen_value(spec->type, &in, data);
    }
    for (uint32_t i = 0; i < n; i++) {
        size_t end = i + 1 < n ? offs[i + 1] : data->len;
        vals[i].p = data->p ? data->p + offs[i] : NULL;
        vals[i].len = (int32_t)(end - offs[i]);
        if (!cql_prepared_bind(p, i)->type)
            vals[i].len = ENG_NULL;
    }
}

static void run_statement(const char *q, size_t len, int paged)
{
    cql_prepared *p = NULL;
    eng_err err;
    eng_err_clear(&err);
    if (cql_prepare(session, q, len, &p, &err) != 0) {
        check_error(&err, q, len);
        return;
    }
    uint32_t n = cql_prepared_bind_count(p);
    eng_val vals[64];
    eng_buf data = ENG_BUF_INIT;
    if (n > ENG_ARRAY_LEN(vals)) {
        cql_prepared_unref(p);
        return;
    }
    bind_values(p, vals, &data, n);
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = vals;
    o.n_values = n;
    o.page_size = paged ? 3 : 0;
    eng_buf paging = ENG_BUF_INIT;
    for (int page = 0; page < MAX_PAGES; page++) {
        cql_result *r = NULL;
        eng_err_clear(&err);
        int rc = cql_execute(session, p, &o, &r, &err);
        if (rc != 0) {
            check_error(&err, q, len);
            break;
        }
        if (r->kind != CQL_RESULT_ROWS || cql_prepared_is_write(p))
            dirty = 1;
        check_result(r);
        int more = r->has_more;
        if (more) {
            eng_buf_reset(&paging);
            eng_buf_put(&paging, r->paging_state.p, r->paging_state.len);
            o.paging_state = paging.p;
            o.paging_state_len = paging.len;
        }
        cql_result_free(r);
        if (!more || paging.oom)
            break;
    }
    eng_buf_free(&paging);
    eng_buf_free(&data);
    cql_prepared_unref(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (dirty)
        open_fresh();
    else if (!cql_session_keyspace(session) || strcmp(cql_session_keyspace(session), "ks") != 0)
        setup_query(session, "USE ks");
    const char *text = (const char *)data;
    size_t pos = 0, start, end;
    for (int i = 0; i < MAX_STATEMENTS && cql_next_statement(text, size, &pos, &start, &end); i++)
        run_statement(text + start, end - start, (i & 1) == 1);
    return 0;
}
