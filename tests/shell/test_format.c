/*
 * cqlsh's output layout (cql/format.c) on hand-built results: tables, the
 * empty table, the conditional-statement form, widths of wide and
 * zero-width characters, and the error lines. Expected text comes from
 * tests/cql/README.md and cqlsh's print_formatted_result, printerr and
 * wcwidth.py (bin/cqlsh.py, pylib/cqlshlib/), and the Python driver's
 * exception texts.
 */
#include "cql/shell/format.h"
#include "harness.h"

/* ---- a result built by hand ---- */

typedef struct fixture {
    cql_result r;
    cql_column_spec cols[8];
    eng_type *types[8];
    eng_val cells[64];
    uint32_t n_cells;
    uint8_t bytes[1024];
    size_t used;
} fixture;

static fixture *fx_new(void)
{
    fixture *f = calloc(1, sizeof *f);
    ASSERT(f != NULL);
    f->r.kind = CQL_RESULT_ROWS;
    f->r.cols = f->cols;
    f->r.cells = f->cells;
    return f;
}

static void fx_free(fixture *f)
{
    for (uint32_t i = 0; i < f->r.n_cols; i++)
        eng_type_free(f->types[i]);
    free(f);
}

static void fx_col(fixture *f, const char *name, int kind)
{
    uint32_t i = f->r.n_cols++;
    f->types[i] = eng_type_new(kind);
    ASSERT(f->types[i] != NULL);
    f->cols[i] = (cql_column_spec){"ks", "t", name, f->types[i]};
}

static void fx_cell(fixture *f, const void *p, int32_t len)
{
    eng_val *v = &f->cells[f->n_cells++];
    v->len = len;
    v->p = f->bytes + f->used;
    if (len > 0) {
        memcpy(f->bytes + f->used, p, (size_t)len);
        f->used += (size_t)len;
    }
    f->r.n_rows = f->n_cells / f->r.n_cols;
}

static void fx_int(fixture *f, int32_t v)
{
    uint8_t b[4];
    eng_put_be32(b, (uint32_t)v);
    fx_cell(f, b, 4);
}

static void fx_text(fixture *f, const char *s)
{
    fx_cell(f, s, (int32_t)strlen(s));
}
static void fx_null(fixture *f)
{
    fx_cell(f, NULL, ENG_NULL);
}

static void fx_bool(fixture *f, int v)
{
    uint8_t b = (uint8_t)(v != 0);
    fx_cell(f, &b, 1);
}

/* The formatted text, valid until the next call. */
static const char *format(const fixture *f, int lwt)
{
    static char text[4096];
    eng_buf b = ENG_BUF_INIT;
    cql_format_result(&f->r, lwt, &b);
    ASSERT(!b.oom);
    ASSERT(b.len < sizeof text);
    if (b.len)
        memcpy(text, b.p, b.len);
    text[b.len] = 0;
    eng_buf_free(&b);
    return text;
}

static const char *format_error(const char *file, int line, int code, const char *msg,
                                const char *ks, const char *table)
{
    static char text[1024];
    eng_err err;
    eng_err_clear(&err);
    eng_errorf(&err, code, "%s", msg);
    snprintf(err.ks, sizeof err.ks, "%s", ks);
    snprintf(err.table, sizeof err.table, "%s", table);
    eng_buf b = ENG_BUF_INIT;
    cql_format_error(file, line, &err, &b);
    snprintf(text, sizeof text, "%s", eng_buf_cstr(&b));
    eng_buf_free(&b);
    return text;
}

/* ---- tables ---- */

TEST(test_select_prints_header_separator_right_justified_rows_and_count)
{
    fixture *f = fx_new();
    fx_col(f, "k", ENG_INT);
    fx_col(f, "c", ENG_INT);
    fx_col(f, "v", ENG_TEXT);
    fx_int(f, 1), fx_int(f, 1), fx_text(f, "foo");
    fx_int(f, 1), fx_int(f, 2), fx_text(f, "bar");
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " k | c | v\n"
                                "---+---+-----\n"
                                " 1 | 1 | foo\n"
                                " 1 | 2 | bar\n"
                                "\n"
                                "(2 rows)\n");
    fx_free(f);
}

TEST(test_select_without_rows_prints_header_then_two_empty_lines)
{
    fixture *f = fx_new();
    fx_col(f, "k", ENG_INT);
    fx_col(f, "v", ENG_INT);
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " k | v\n"
                                "---+---\n"
                                "\n"
                                "\n"
                                "(0 rows)\n");
    fx_free(f);
}

TEST(test_header_is_left_justified_and_right_stripped)
{
    /* cqlsh test_static_cf_output: " a  | b" over "----+----" */
    fixture *f = fx_new();
    fx_col(f, "a", ENG_TEXT);
    fx_col(f, "b", ENG_TEXT);
    fx_text(f, "1"), fx_text(f, "1");
    fx_text(f, "13"), fx_text(f, "13");
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " a  | b\n"
                                "----+----\n"
                                "  1 |  1\n"
                                " 13 | 13\n"
                                "\n"
                                "(2 rows)\n");
    fx_free(f);
}

TEST(test_count_column_is_as_wide_as_its_name)
{
    /* cqlsh test_count_output */
    fixture *f = fx_new();
    fx_col(f, "count", ENG_BIGINT);
    uint8_t five[8] = {0, 0, 0, 0, 0, 0, 0, 5};
    fx_cell(f, five, 8);
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " count\n"
                                "-------\n"
                                "     5\n"
                                "\n"
                                "(1 rows)\n");
    fx_free(f);
}

TEST(test_null_shows_as_null_right_justified)
{
    /* cqlsh test_null_output */
    fixture *f = fx_new();
    fx_col(f, "k", ENG_TEXT);
    fx_col(f, "c", ENG_TEXT);
    fx_col(f, "notthere", ENG_TEXT);
    fx_text(f, "k1"), fx_text(f, "c1"), fx_null(f);
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " k  | c  | notthere\n"
                                "----+----+----------\n"
                                " k1 | c1 |     null\n"
                                "\n"
                                "(1 rows)\n");
    fx_free(f);
}

TEST(test_empty_values_show_as_blank_cells)
{
    /* cqlsh test_numeric_output: the row of empty values */
    fixture *f = fx_new();
    fx_col(f, "intcol", ENG_INT);
    fx_int(f, -12);
    fx_cell(f, "", 0);
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " intcol\n"
                                "--------\n"
                                "    -12\n"
                                "       \n"
                                "\n"
                                "(2 rows)\n");
    fx_free(f);
}

TEST(test_values_render_as_cqlsh_shows_them)
{
    fixture *f = fx_new();
    fx_col(f, "b", ENG_BOOLEAN);
    fx_col(f, "x", ENG_BLOB);
    fx_col(f, "s", ENG_TEXT);
    fx_bool(f, 1), fx_cell(f, "\x80", 1), fx_text(f, "tab\there");
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " b    | x    | s\n"
                                "------+------+-----------\n"
                                " True | 0x80 | tab\\there\n"
                                "\n"
                                "(1 rows)\n");
    fx_free(f);
}

TEST(test_wide_characters_take_two_columns)
{
    fixture *f = fx_new();
    fx_col(f, "v", ENG_TEXT);
    fx_text(f, "\xe6\x97\xa5\xe6\x9c\xac"); /* 日本: 4 columns */
    fx_text(f, "abcde");
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " v\n"
                                "-------\n"
                                "  \xe6\x97\xa5\xe6\x9c\xac\n"
                                " abcde\n"
                                "\n"
                                "(2 rows)\n");
    fx_free(f);
}

TEST(test_combining_characters_take_no_column)
{
    fixture *f = fx_new();
    fx_col(f, "name", ENG_TEXT);
    fx_text(f, "e\xcc\x81"); /* e + COMBINING ACUTE ACCENT: 1 column */
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " name\n"
                                "------\n"
                                "    e\xcc\x81\n"
                                "\n"
                                "(1 rows)\n");
    fx_free(f);
}

TEST(test_column_names_are_escaped_like_text)
{
    fixture *f = fx_new();
    fx_col(f, "a\\b", ENG_INT);
    fx_int(f, 7);
    ASSERT_STR_EQ(format(f, 0), "\n"
                                " a\\\\b\n"
                                "------\n"
                                "    7\n"
                                "\n"
                                "(1 rows)\n");
    fx_free(f);
}

TEST(test_conditional_result_has_no_row_count)
{
    fixture *f = fx_new();
    fx_col(f, "[applied]", ENG_BOOLEAN);
    fx_bool(f, 1);
    ASSERT_STR_EQ(format(f, 1), "\n"
                                " [applied]\n"
                                "-----------\n"
                                "      True\n");
    fx_free(f);
}

TEST(test_failed_condition_shows_the_existing_values)
{
    fixture *f = fx_new();
    fx_col(f, "[applied]", ENG_BOOLEAN);
    fx_col(f, "k", ENG_INT);
    fx_col(f, "v", ENG_INT);
    fx_bool(f, 0), fx_int(f, 1), fx_int(f, 2);
    ASSERT_STR_EQ(format(f, 1), "\n"
                                " [applied] | k | v\n"
                                "-----------+---+---\n"
                                "     False | 1 | 2\n");
    fx_free(f);
}

TEST(test_conditional_result_without_rows_prints_nothing)
{
    fixture *f = fx_new();
    fx_col(f, "[applied]", ENG_BOOLEAN);
    ASSERT_STR_EQ(format(f, 1), "");
    fx_free(f);
}

TEST(test_results_other_than_rows_print_nothing)
{
    fixture *f = fx_new();
    f->r.kind = CQL_RESULT_VOID;
    ASSERT_STR_EQ(format(f, 0), "");
    f->r.kind = CQL_RESULT_SCHEMA_CHANGE;
    ASSERT_STR_EQ(format(f, 0), "");
    f->r.kind = CQL_RESULT_SET_KEYSPACE;
    ASSERT_STR_EQ(format(f, 1), "");
    fx_free(f);
}

TEST(test_later_page_has_no_header_and_its_own_widths)
{
    /* print_all: pages after the first print their rows only, sized on their own */
    fixture *f = fx_new();
    fx_col(f, "k", ENG_TEXT);
    fx_text(f, "abc");
    eng_buf b = ENG_BUF_INIT;
    cql_format_page(&f->r, 0, &b);
    cql_format_row_count(101, &b);
    ASSERT_STR_EQ(eng_buf_cstr(&b), " abc\n\n(101 rows)\n");
    eng_buf_free(&b);
    fx_free(f);
}

TEST(test_warnings_follow_the_result)
{
    const char *w[] = {"Aggregation query used without partition key"};
    eng_buf b = ENG_BUF_INIT;
    cql_format_warnings(w, 1, &b);
    ASSERT_STR_EQ(eng_buf_cstr(&b),
                  "\nWarnings :\nAggregation query used without partition key\n\n");
    eng_buf_reset(&b);
    cql_format_warnings(w, 0, &b);
    ASSERT_EQ(b.len, 0);
    eng_buf_free(&b);
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
    ASSERT_STR_EQ(format_error("t.cql", 3, ENG_E_INVALID, "Keyspace 'nope' does not exist", "", ""),
                  "t.cql:3:InvalidRequest: Error from server: code=2200 [Invalid query] "
                  "message=\"Keyspace 'nope' does not exist\"\n");
}

TEST(test_syntax_error_prints_the_bare_server_message)
{
    ASSERT_STR_EQ(format_error("<stdin>", 1, ENG_E_SYNTAX,
                               "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)", "",
                               ""),
                  "<stdin>:1:SyntaxException: line 1:0 no viable alternative at input 'SELEC' "
                  "([SELEC]...)\n");
}

TEST(test_already_exists_uses_the_drivers_own_text)
{
    ASSERT_STR_EQ(
        format_error("t.cql", 2, ENG_E_EXISTS, "Cannot add existing keyspace \"ks\"", "ks", ""),
        "t.cql:2:AlreadyExists: Keyspace 'ks' already exists\n");
    ASSERT_STR_EQ(
        format_error("t.cql", 9, ENG_E_EXISTS, "Cannot add already existing table", "ks", "t"),
        "t.cql:9:AlreadyExists: Table 'ks.t' already exists\n");
}

TEST(test_other_error_codes)
{
    ASSERT_STR_EQ(
        format_error("f", 1, ENG_E_CONFIG, "Cannot drop non existing keyspace 'x'.", "", ""),
        "f:1:ConfigurationException: Cannot drop non existing keyspace 'x'.\n");
    ASSERT_STR_EQ(format_error("f", 1, ENG_E_UNAUTHORIZED, "no", "", ""),
                  "f:1:Unauthorized: Error from server: code=2100 [Unauthorized] message=\"no\"\n");
    ASSERT_STR_EQ(format_error("f", 1, ENG_E_IO, "disk full", "", ""),
                  "f:1:ServerError: disk full\n");
    ASSERT_STR_EQ(format_error("f", 1, ENG_E_NOMEM, "out of memory", "", ""),
                  "f:1:ServerError: out of memory\n");
    ASSERT_STR_EQ(format_error("f", 1, ENG_E_WRITE_TIMEOUT, "t", "", ""),
                  "f:1:WriteTimeout: Error from server: code=1100 [Coordinator node timed out "
                  "waiting for replica nodes' responses] message=\"t\"\n");
}

/* ---- allocation failures ---- */

TEST(test_allocation_failure_sets_oom_and_never_crashes)
{
    fixture *f = fx_new();
    fx_col(f, "k", ENG_INT);
    fx_col(f, "v", ENG_TEXT);
    fx_int(f, 1), fx_text(f, "one");
    const char *want = "\n k | v\n---+-----\n 1 | one\n\n(1 rows)\n";
    for (long n = 0;; n++) {
        eng_buf b = ENG_BUF_INIT;
        eng_alloc_fail_after(n);
        cql_format_result(&f->r, 0, &b);
        eng_alloc_fail_after(-1);
        int oom = b.oom;
        if (!oom)
            ASSERT_STR_EQ(eng_buf_cstr(&b), want);
        eng_buf_free(&b);
        if (!oom)
            break;
        ASSERT(n < 100);
    }
    fx_free(f);
}
