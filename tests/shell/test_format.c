/*
 * cqlsh's output layout (cql/shell/format.c) on results a session connected
 * to "memory:" returns: tables, the empty table, the conditional-statement
 * form, later pages, widths of wide and zero-width characters, the error
 * lines of failed requests, and the server warnings the shell takes from the
 * driver's log (cql/shell/log.c). Expected text comes from
 * tests/cql/README.md and cqlsh's print_formatted_result, printerr and
 * wcwidth.py (bin/cqlsh.py, pylib/cqlshlib/), and the Python driver's
 * exception texts.
 */
#include "cql/shell/format.h"
#include "cql/shell/log.h"
#include "shell_test.h"

/* ---- a session per test, and statements run on it ---- */

#define RUN_CQL(q) RUN(cn.session, (q))
#define QUERY_CQL(q) QUERY(cn.session, (q))

/* The buffer's text in a static copy, valid until the next call; frees the buffer. */
static const char *take(eng_buf *b)
{
    static char text[4096];
    ASSERT(!b->oom);
    ASSERT(b->len < sizeof text);
    if (b->len)
        memcpy(text, b->p, b->len);
    text[b->len] = 0;
    eng_buf_free(b);
    return text;
}

/* What the shell prints for the statement's result, as a SELECT (lwt 0) or conditional (1). */
static const char *format(const char *q, int lwt)
{
    const CassResult *r = QUERY_CQL(q);
    eng_buf b = ENG_BUF_INIT;
    cql_format_result(r, lwt, &b);
    cass_result_free(r);
    return take(&b);
}

/* The error line of a statement that must fail. */
static const char *format_failure(const char *file, int line, const char *q)
{
    CassStatement *st = cass_statement_new(q, 0);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT(cass_future_error_code(f) != CASS_OK);
    eng_buf b = ENG_BUF_INIT;
    cql_format_future_error(file, line, f, &b);
    cass_future_free(f);
    cass_statement_free(st);
    return take(&b);
}

static const char *format_error(const char *file, int line, CassError code, const char *msg)
{
    cql_failure f = {code, msg, strlen(msg), NULL, 0, NULL, 0};
    eng_buf b = ENG_BUF_INIT;
    cql_format_error(file, line, &f, &b);
    return take(&b);
}

/* ---- tables ---- */

TEST(test_select_prints_header_separator_right_justified_rows_and_count)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))");
    RUN_CQL("INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'foo')");
    RUN_CQL("INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'bar')");
    ASSERT_STR_EQ(format("SELECT * FROM ks.t", 0), "\n"
                                                   " k | c | v\n"
                                                   "---+---+-----\n"
                                                   " 1 | 1 | foo\n"
                                                   " 1 | 2 | bar\n"
                                                   "\n"
                                                   "(2 rows)\n");
}

TEST(test_select_without_rows_prints_header_then_two_empty_lines)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    ASSERT_STR_EQ(format("SELECT * FROM ks.t", 0), "\n"
                                                   " k | v\n"
                                                   "---+---\n"
                                                   "\n"
                                                   "\n"
                                                   "(0 rows)\n");
}

TEST(test_header_is_left_justified_and_right_stripped)
{
    /* cqlsh test_static_cf_output: " a  | b" over "----+----" */
    setup();
    RUN_CQL("CREATE TABLE ks.t (p int, a text, b text, PRIMARY KEY (p, a))");
    RUN_CQL("INSERT INTO ks.t (p, a, b) VALUES (0, '1', '1')");
    RUN_CQL("INSERT INTO ks.t (p, a, b) VALUES (0, '13', '13')");
    ASSERT_STR_EQ(format("SELECT a, b FROM ks.t WHERE p = 0", 0), "\n"
                                                                  " a  | b\n"
                                                                  "----+----\n"
                                                                  "  1 |  1\n"
                                                                  " 13 | 13\n"
                                                                  "\n"
                                                                  "(2 rows)\n");
}

TEST(test_count_column_is_as_wide_as_its_name)
{
    /* cqlsh test_count_output */
    setup();
    RUN_CQL("CREATE TABLE ks.t (p int, c int, PRIMARY KEY (p, c))");
    for (int i = 0; i < 5; i++) {
        char q[96];
        snprintf(q, sizeof q, "INSERT INTO ks.t (p, c) VALUES (0, %d)", i);
        RUN_CQL(q);
    }
    ASSERT_STR_EQ(format("SELECT count(*) FROM ks.t WHERE p = 0", 0), "\n"
                                                                      " count\n"
                                                                      "-------\n"
                                                                      "     5\n"
                                                                      "\n"
                                                                      "(1 rows)\n");
}

TEST(test_null_shows_as_null_right_justified)
{
    /* cqlsh test_null_output */
    setup();
    RUN_CQL("CREATE TABLE ks.t (k text, c text, notthere text, PRIMARY KEY (k, c))");
    RUN_CQL("INSERT INTO ks.t (k, c) VALUES ('k1', 'c1')");
    ASSERT_STR_EQ(format("SELECT * FROM ks.t", 0), "\n"
                                                   " k  | c  | notthere\n"
                                                   "----+----+----------\n"
                                                   " k1 | c1 |     null\n"
                                                   "\n"
                                                   "(1 rows)\n");
}

TEST(test_empty_values_show_as_blank_cells)
{
    /* cqlsh test_numeric_output: the row of empty values */
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, intcol int)");
    RUN_CQL("INSERT INTO ks.t (k, intcol) VALUES (1, -12)");
    RUN_CQL("INSERT INTO ks.t (k, intcol) VALUES (2, blobAsInt(0x))");
    ASSERT_STR_EQ(format("SELECT intcol FROM ks.t WHERE k IN (1, 2)", 0), "\n"
                                                                          " intcol\n"
                                                                          "--------\n"
                                                                          "    -12\n"
                                                                          "       \n"
                                                                          "\n"
                                                                          "(2 rows)\n");
}

TEST(test_values_render_as_cqlsh_shows_them)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, b boolean, x blob, s text)");
    RUN_CQL("INSERT INTO ks.t (k, b, x, s) VALUES (0, true, 0x80, 'tab\there')");
    ASSERT_STR_EQ(format("SELECT b, x, s FROM ks.t", 0), "\n"
                                                         " b    | x    | s\n"
                                                         "------+------+-----------\n"
                                                         " True | 0x80 | tab\\there\n"
                                                         "\n"
                                                         "(1 rows)\n");
}

TEST(test_wide_characters_take_two_columns)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (p int, v text, PRIMARY KEY (p, v))");
    RUN_CQL("INSERT INTO ks.t (p, v) VALUES (0, 'abcde')");
    RUN_CQL("INSERT INTO ks.t (p, v) VALUES (0, '\xe6\x97\xa5\xe6\x9c\xac')"); /* 4 columns */
    ASSERT_STR_EQ(format("SELECT v FROM ks.t", 0), "\n"
                                                   " v\n"
                                                   "-------\n"
                                                   " abcde\n"
                                                   "  \xe6\x97\xa5\xe6\x9c\xac\n"
                                                   "\n"
                                                   "(2 rows)\n");
}

TEST(test_combining_characters_take_no_column)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, name text)");
    /* e + COMBINING ACUTE ACCENT: 1 column */
    RUN_CQL("INSERT INTO ks.t (k, name) VALUES (0, 'e\xcc\x81')");
    ASSERT_STR_EQ(format("SELECT name FROM ks.t", 0), "\n"
                                                      " name\n"
                                                      "------\n"
                                                      "    e\xcc\x81\n"
                                                      "\n"
                                                      "(1 rows)\n");
}

TEST(test_column_names_are_escaped_like_text)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, \"a\\b\" int)");
    RUN_CQL("INSERT INTO ks.t (k, \"a\\b\") VALUES (0, 7)");
    ASSERT_STR_EQ(format("SELECT \"a\\b\" FROM ks.t", 0), "\n"
                                                          " a\\\\b\n"
                                                          "------\n"
                                                          "    7\n"
                                                          "\n"
                                                          "(1 rows)\n");
}

TEST(test_conditional_result_has_no_row_count)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    ASSERT_STR_EQ(format("INSERT INTO ks.t (k, v) VALUES (1, 2) IF NOT EXISTS", 1), "\n"
                                                                                    " [applied]\n"
                                                                                    "-----------\n"
                                                                                    "      True\n");
}

TEST(test_failed_condition_shows_the_existing_values)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    RUN_CQL("INSERT INTO ks.t (k, v) VALUES (1, 2)");
    ASSERT_STR_EQ(format("INSERT INTO ks.t (k, v) VALUES (1, 3) IF NOT EXISTS", 1),
                  "\n"
                  " [applied] | k | v\n"
                  "-----------+---+---\n"
                  "     False | 1 | 2\n");
}

TEST(test_conditional_result_without_rows_prints_nothing)
{
    /* cqlsh's `elif result:` -- a result without rows is falsy */
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    ASSERT_STR_EQ(format("SELECT * FROM ks.t WHERE k = 9", 1), "");
}

TEST(test_results_other_than_rows_print_nothing)
{
    setup();
    ASSERT_STR_EQ(format("CREATE TABLE ks.t (k int PRIMARY KEY, v int)", 0), "");
    ASSERT_STR_EQ(format("USE ks", 0), "");
    ASSERT_STR_EQ(format("INSERT INTO t (k, v) VALUES (1, 1)", 1), "");
    ASSERT_STR_EQ(format("UPDATE t SET v = 2 WHERE k = 1", 0), "");
}

TEST(test_later_page_has_no_header_and_its_own_widths)
{
    /* print_all: pages after the first print their rows only, sized on their own */
    setup();
    RUN_CQL("CREATE TABLE ks.t (p int, c text, PRIMARY KEY (p, c))");
    RUN_CQL("INSERT INTO ks.t (p, c) VALUES (0, 'a')");
    RUN_CQL("INSERT INTO ks.t (p, c) VALUES (0, 'abc')");
    CassStatement *st = cass_statement_new("SELECT c FROM ks.t", 0);
    ASSERT_EQ(cass_statement_set_paging_size(st, 1), CASS_OK);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    const CassResult *first = cass_future_get_result(f);
    cass_future_free(f);
    ASSERT(cass_result_has_more_pages(first));
    ASSERT_EQ(cass_statement_set_paging_state(st, first), CASS_OK);
    cass_result_free(first);
    f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    const CassResult *second = cass_future_get_result(f);
    cass_future_free(f);
    eng_buf b = ENG_BUF_INIT;
    cql_format_page(second, 0, &b);
    cql_format_row_count(101, &b);
    ASSERT_STR_EQ(take(&b), " abc\n\n(101 rows)\n");
    cass_result_free(second);
    cass_statement_free(st);
}

/* ---- server warnings ---- */

TEST(test_warnings_follow_the_result)
{
    const char *w[] = {"Aggregation query used without partition key"};
    eng_buf b = ENG_BUF_INIT;
    cql_format_warnings(w, 1, &b);
    ASSERT_STR_EQ(take(&b), "\nWarnings :\nAggregation query used without partition key\n\n");
    b = (eng_buf)ENG_BUF_INIT;
    cql_format_warnings(w, 0, &b);
    ASSERT_EQ(b.len, 0);
    eng_buf_free(&b);
}

TEST(test_warnings_are_captured_from_the_drivers_log_while_a_statement_runs)
{
    cql_shell_log_install();
    setup();
    RUN_CQL("CREATE TABLE ks.t (p int, c int, PRIMARY KEY (p, c))");
    const char *const *w;
    /* logged outside a capture: not kept */
    RUN_CQL("SELECT count(*) FROM ks.t");
    cql_shell_warnings_begin();
    cql_shell_warnings_end();
    ASSERT_EQ(cql_shell_warnings(&w), 0);
    cql_shell_warnings_begin();
    RUN_CQL("SELECT count(*) FROM ks.t");
    cql_shell_warnings_end();
    ASSERT_EQ(cql_shell_warnings(&w), 1);
    ASSERT_STR_EQ(w[0], "Aggregation query used without partition key");
    /* a new capture starts empty; a query on one partition draws no warning */
    cql_shell_warnings_begin();
    RUN_CQL("SELECT count(*) FROM ks.t WHERE p = 1");
    cql_shell_warnings_end();
    ASSERT_EQ(cql_shell_warnings(&w), 0);
    cql_shell_warnings_begin();
    RUN_CQL("SELECT max(c) FROM ks.t WHERE p IN (1, 2)");
    cql_shell_warnings_end();
    ASSERT_EQ(cql_shell_warnings(&w), 1);
    ASSERT_STR_EQ(w[0], "Aggregation query used on multiple partition keys (IN restriction)");
    cql_shell_log_release();
}

/* ---- widths ---- */

TEST(test_display_width_follows_cqlsh_wcwidth)
{
    ASSERT_EQ(cql_display_width("abc", 3), 3);
    ASSERT_EQ(cql_display_width("", 0), 0);
    ASSERT_EQ(cql_display_width("\xe2\xbe\x91", 3), 2);     /* U+2F91 KANGXI RADICAL */
    ASSERT_EQ(cql_display_width("\xef\xbf\xa1", 3), 2);     /* U+FFE1 FULLWIDTH POUND SIGN */
    ASSERT_EQ(cql_display_width("\xe3\x80\xbf", 3), 1);     /* U+303F is narrow */
    ASSERT_EQ(cql_display_width("\xea\xb0\x80", 3), 2);     /* U+AC00 Hangul syllable */
    ASSERT_EQ(cql_display_width("\xf0\xa0\x80\x80", 4), 2); /* U+20000 */
    ASSERT_EQ(cql_display_width("\xe2\x80\x8b", 3), 0);     /* ZERO WIDTH SPACE */
    ASSERT_EQ(cql_display_width("\xef\xbb\xbf", 3), 0);     /* ZERO WIDTH NO-BREAK SPACE */
    ASSERT_EQ(cql_display_width("\xc2\xad", 2), 1);         /* SOFT HYPHEN */
    ASSERT_EQ(cql_display_width("\xc2\xa0", 2), 1);         /* NO-BREAK SPACE */
    ASSERT_EQ(cql_display_width("\xf3\xa0\x87\xaf", 4), 0); /* U+E01EF variation selector */
    ASSERT_EQ(cql_display_width("\xf4\x8f\xbf\xbf", 4), 1); /* U+10FFFF */
    ASSERT_EQ(cql_display_width("a\x01", 2), -1);           /* control character */
    ASSERT_EQ(cql_display_width("\x7f", 1), -1);
    ASSERT_EQ(cql_display_width("\xc2\x85", 2), -1); /* C1 control */
    ASSERT_EQ(cql_display_width("\xff", 1), 1);      /* not UTF-8: one column */
    /* wcwidth.py's own check: 'B\0ig br\u00f8wn moose\ub143\u200b' is 17 */
    const char s[] = "B\0ig br\xc3\xb8wn moose\xeb\x85\x83\xe2\x80\x8b";
    ASSERT_EQ(cql_display_width(s, sizeof s - 1), 17);
}

/* ---- errors ---- */

TEST(test_invalid_request_error_line)
{
    setup();
    /* tests/cql/ddl_alter_table.out: DropTableStatement's "Table '%s.%s' doesn't exist" */
    ASSERT_STR_EQ(format_failure("t.cql", 3, "ALTER TABLE ks.nosuch ADD x int"),
                  "t.cql:3:InvalidRequest: Error from server: code=2200 [Invalid query] "
                  "message=\"Table 'ks.nosuch' doesn't exist\"\n");
}

TEST(test_syntax_error_prints_the_bare_server_message)
{
    setup();
    ASSERT_STR_EQ(format_failure("<stdin>", 1, "SELEC * FROM ks.t"),
                  "<stdin>:1:SyntaxException: line 1:0 no viable alternative at input 'SELEC' "
                  "([SELEC]...)\n");
}

TEST(test_already_exists_uses_the_drivers_own_text)
{
    setup();
    ASSERT_STR_EQ(format_failure("t.cql", 2, KS_CQL),
                  "t.cql:2:AlreadyExists: Keyspace 'ks' already exists\n");
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY)");
    ASSERT_STR_EQ(format_failure("t.cql", 9, "CREATE TABLE ks.t (k int PRIMARY KEY)"),
                  "t.cql:9:AlreadyExists: Table 'ks.t' already exists\n");
}

TEST(test_other_error_codes)
{
    ASSERT_STR_EQ(format_error("f", 1, CASS_ERROR_SERVER_CONFIG_ERROR,
                               "Cannot drop non existing keyspace 'x'."),
                  "f:1:ConfigurationException: Cannot drop non existing keyspace 'x'.\n");
    ASSERT_STR_EQ(format_error("f", 1, CASS_ERROR_SERVER_UNAUTHORIZED, "no"),
                  "f:1:Unauthorized: Error from server: code=2100 [Unauthorized] message=\"no\"\n");
    ASSERT_STR_EQ(format_error("f", 1, CASS_ERROR_SERVER_SERVER_ERROR, "disk full"),
                  "f:1:ServerError: disk full\n");
    ASSERT_STR_EQ(format_error("f", 1, CASS_ERROR_LIB_INTERNAL_ERROR, "out of memory"),
                  "f:1:ServerError: out of memory\n");
    ASSERT_STR_EQ(format_error("f", 1, CASS_ERROR_SERVER_WRITE_TIMEOUT, "t"),
                  "f:1:WriteTimeout: Error from server: code=1100 [Coordinator node timed out "
                  "waiting for replica nodes' responses] message=\"t\"\n");
    /* the Python driver's NoHostAvailable, raised with the message alone */
    ASSERT_STR_EQ(format_error("f", 1, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, "down"),
                  "f:1:NoHostAvailable: down\n");
    ASSERT_STR_EQ(format_error("f", 1, CASS_ERROR_LIB_INVALID_STATEMENT_TYPE, "x"),
                  "f:1:ErrorMessage: x\n");
}

/* ---- allocation failures ---- */

TEST(test_allocation_failure_sets_oom_and_never_crashes)
{
    setup();
    RUN_CQL("CREATE TABLE ks.t (k int PRIMARY KEY, v list<text>)");
    RUN_CQL("INSERT INTO ks.t (k, v) VALUES (1, ['one', 'two'])");
    const CassResult *r = QUERY_CQL("SELECT * FROM ks.t");
    const char *want = "\n k | v\n---+----------------\n 1 | ['one', 'two']\n\n(1 rows)\n";
    for (long n = 0;; n++) {
        eng_buf b = ENG_BUF_INIT;
        eng_alloc_fail_after(n);
        cql_format_result(r, 0, &b);
        eng_alloc_fail_after(-1);
        int oom = b.oom;
        if (!oom)
            ASSERT_STR_EQ(eng_buf_cstr(&b), want);
        eng_buf_free(&b);
        if (!oom)
            break;
        ASSERT(n < 100);
    }
    cass_result_free(r);
}
