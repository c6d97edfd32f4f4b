/*
 * cqlsh's rendering of values (cql/shell/render.c) on values a session
 * connected to "memory:" returns, read through cassandra.h: text with
 * Python's escapes, quoted inside collections; blobs; booleans; integers,
 * varints and decimals exactly; floats and doubles with cqlsh's precision;
 * timestamps, dates, times and durations in cqlsh's formats and ranges; uuids
 * and inets; collections, tuples and user types; Python's order for sets of
 * uuids and inets; empty values; values the Python driver cannot decode.
 * Expected text: cqlshlib/formatting.py and the Python driver's decoding
 * (cassandra/cqltypes.py, cassandra/util.py), as tests/cql/README.md sums up.
 */
#include "cql/shell/render.h"
#include "shell_test.h"

/* The first cell of the query's first row as cqlsh shows it; valid until the next call. */
static const char *show_query(const char *q)
{
    static char text[1024];
    const CassResult *r = QUERY(cn.session, q);
    const CassRow *row = cass_result_first_row(r);
    ASSERT(row != NULL);
    eng_buf b = ENG_BUF_INIT;
    cql_render_value(cass_row_get_column(row, 0), &b);
    ASSERT(!b.oom);
    ASSERT(b.len < sizeof text);
    if (b.len)
        memcpy(text, b.p, b.len);
    text[b.len] = 0;
    eng_buf_free(&b);
    cass_result_free(r);
    return text;
}

/* A value of the type written as the CQL term, stored in a table of its own and read back. */
static const char *show(const char *type, const char *term)
{
    static int tables;
    char q[512];
    int t = tables++;
    snprintf(q, sizeof q, "CREATE TABLE ks.t%d (k int PRIMARY KEY, v %s)", t, type);
    RUN(cn.session, q);
    snprintf(q, sizeof q, "INSERT INTO ks.t%d (k, v) VALUES (0, %s)", t, term);
    RUN(cn.session, q);
    snprintf(q, sizeof q, "SELECT v FROM ks.t%d", t);
    return show_query(q);
}

static const char *show_text(const char *s)
{
    eng_buf b = ENG_BUF_INIT;
    static char text[256];
    cql_render_text(s, strlen(s), &b);
    snprintf(text, sizeof text, "%s", eng_buf_cstr(&b));
    eng_buf_free(&b);
    return text;
}

/* ---- text ---- */

TEST(test_text_unquoted_at_top_level_quoted_inside)
{
    setup();
    ASSERT_STR_EQ(show("text", "'it''s \xc3\xa9'"), "it's \xc3\xa9");
    ASSERT_STR_EQ(show("ascii", "'abc'"), "abc");
    ASSERT_STR_EQ(show("varchar", "'v'"), "v");
    ASSERT_STR_EQ(show("list<text>", "['it''s', '']"), "['it''s', '']");
    ASSERT_STR_EQ(show("text", "''"), "");
}

TEST(test_text_escapes_backslash_and_control_characters)
{
    setup();
    ASSERT_STR_EQ(show("text", "'a\\b'"), "a\\\\b");
    ASSERT_STR_EQ(show("text", "'a\nb\t\r'"), "a\\nb\\t\\r");
    ASSERT_STR_EQ(show("text", "blobAsText(0x017fc2a0c2a1)"), "\\x01\\x7f\\xa0\xc2\xa1");
    ASSERT_STR_EQ(show_text("x\\y\tz"), "x\\\\y\\tz");
}

TEST(test_text_python_cannot_decode_shows_blob)
{
    /* valid for Cassandra's validator, refused by Python's strict UTF-8 decoder */
    setup();
    ASSERT_STR_EQ(show("text", "blobAsText(0xeda080)"), "0xeda080");
    ASSERT_STR_EQ(show_text("\xed\xa0\x80"), "0xeda080");
}

/* ---- blobs, booleans, integers ---- */

TEST(test_blob_boolean_and_integers)
{
    setup();
    ASSERT_STR_EQ(show("blob", "0xcafe00"), "0xcafe00");
    ASSERT_STR_EQ(show("blob", "0x"), "0x");
    ASSERT_STR_EQ(show("boolean", "true"), "True");
    ASSERT_STR_EQ(show("boolean", "false"), "False");
    ASSERT_STR_EQ(show("int", "-1"), "-1");
    ASSERT_STR_EQ(show("bigint", "-9223372036854775808"), "-9223372036854775808");
    ASSERT_STR_EQ(show("smallint", "-32768"), "-32768");
    ASSERT_STR_EQ(show("tinyint", "127"), "127");
    RUN(cn.session, "CREATE TABLE ks.c (k int PRIMARY KEY, n counter)");
    RUN(cn.session, "UPDATE ks.c SET n = n + 5 WHERE k = 0");
    ASSERT_STR_EQ(show_query("SELECT n FROM ks.c"), "5");
}

TEST(test_empty_values_of_non_text_types_are_blank)
{
    setup();
    ASSERT_STR_EQ(show("int", "blobAsInt(0x)"), "");
    ASSERT_STR_EQ(show("boolean", "blobAsBoolean(0x)"), "");
    ASSERT_STR_EQ(show("uuid", "blobAsUuid(0x)"), "");
    ASSERT_STR_EQ(show("decimal", "blobAsDecimal(0x)"), "");
}

/* An empty item shows blank, as an empty value does on its own. A collection whose every item
   renders to nothing leaves its scratch text unwritten: its views must not start at NULL
   (clang's UBSan: "applying zero offset to null pointer", found by tests/fuzz/fuzz_bind.c;
   gcc's does not check it, tests/fuzz/corpus/bind/ keeps the input for `make fuzz`). */
TEST(test_collection_of_empty_items_renders_blank_items)
{
    setup();
    ASSERT_STR_EQ(show("list<int>", "[blobAsInt(0x)]"), "[]");
    ASSERT_STR_EQ(show("set<inet>", "{blobAsInet(0x)}"), "{}");
}

TEST(test_varint_exact_at_any_length)
{
    setup();
    static const char *v[] = {"0",
                              "127",
                              "-129",
                              "9223372036854775808",
                              "-9223372036854775809",
                              "10000000000000000000000000000000000000000"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++)
        ASSERT_STR_EQ(show("varint", v[i]), v[i]);
}

TEST(test_decimal_as_python_decimal_str)
{
    /* Decimal.__str__, the rule of BigDecimal.toString */
    setup();
    static const char *v[][2] = {
        {"1.5", "1.5"},
        {"-0.01", "-0.01"},
        {"100", "100"},
        {"1E+3", "1E+3"},
        {"0.00", "0.00"},
        {"1.23E+3", "1.23E+3"},
        {"0.123", "0.123"},
        {"1.23E-8", "1.23E-8"},
        {"-1.23E-10", "-1.23E-10"},
        {"0.00000123", "0.00000123"},
        {"1.23E-7", "1.23E-7"},
        {"0E+2", "0E+2"},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++)
        ASSERT_STR_EQ(show("decimal", v[i][0]), v[i][1]);
}

/* ---- floating point ---- */

TEST(test_float_five_significant_digits)
{
    setup();
    ASSERT_STR_EQ(show("float", "1.5"), "1.5");
    ASSERT_STR_EQ(show("float", "2"), "2");
    ASSERT_STR_EQ(show("float", "0.1"), "0.1"); /* 0.1f widened to double */
    ASSERT_STR_EQ(show("float", "1e10"), "1e+10");
    ASSERT_STR_EQ(show("float", "123456"), "1.2346e+05");
    ASSERT_STR_EQ(show("float", "0.00001"), "1e-05");
    ASSERT_STR_EQ(show("float", "0.001234"), "0.001234");
    ASSERT_STR_EQ(show("float", "-0.0"), "-0");
    ASSERT_STR_EQ(show("float", "NaN"), "NaN");
    ASSERT_STR_EQ(show("float", "Infinity"), "Infinity");
    ASSERT_STR_EQ(show("float", "-Infinity"), "-Infinity");
}

TEST(test_double_with_cqlsh_default_precision_of_five)
{
    /* cqlsh.py: DEFAULT_DOUBLE_PRECISION = 5, like DEFAULT_FLOAT_PRECISION */
    setup();
    ASSERT_STR_EQ(show("double", "3.141592653589793"), "3.14159");
    ASSERT_STR_EQ(show("double", "1e100"), "1e+100");
    /* nested doubles use the float precision (also 5 by default) */
    ASSERT_STR_EQ(show("list<double>", "[3.141592653589793]"), "[3.14159]");
}

/* ---- dates and times ---- */

TEST(test_timestamp_utc_with_microseconds)
{
    setup();
    ASSERT_STR_EQ(show("timestamp", "1000"), "1970-01-01 00:00:01.000000+0000");
    ASSERT_STR_EQ(show("timestamp", "-1"), "1969-12-31 23:59:59.999000+0000");
    ASSERT_STR_EQ(show("timestamp", "'2021-01-01 00:00:00.123+0000'"),
                  "2021-01-01 00:00:00.123000+0000");
    ASSERT_STR_EQ(show("list<timestamp>", "[0]"), "['1970-01-01 00:00:00.000000+0000']");
}

TEST(test_timestamp_edges_follow_python_datetime)
{
    /* the driver goes through ms / 1000.0, so far dates pick up float rounding */
    setup();
    ASSERT_STR_EQ(show("timestamp", "253402300799999"), "9999-12-31 23:59:59.998993+0000");
    ASSERT_STR_EQ(show("timestamp", "-62135596800000"), "1-01-01 00:00:00.000000+0000");
    /* outside datetime's range: the milliseconds */
    ASSERT_STR_EQ(show("timestamp", "253402300800000"), "253402300800000");
    ASSERT_STR_EQ(show("timestamp", "-62135596800001"), "-62135596800001");
    ASSERT_STR_EQ(show("timestamp", "9223372036854775807"), "9223372036854775807");
}

TEST(test_date_and_time)
{
    setup();
    ASSERT_STR_EQ(show("date", "'1970-01-01'"), "1970-01-01");
    ASSERT_STR_EQ(show("date", "'2021-01-01'"), "2021-01-01");
    ASSERT_STR_EQ(show("date", "'1969-12-31'"), "1969-12-31");
    ASSERT_STR_EQ(show("date", "blobAsDate(0x00000000)"), "-2147483648"); /* out of range */
    ASSERT_STR_EQ(show("time", "'00:00:01'"), "00:00:01.000000000");
    ASSERT_STR_EQ(show("time", "'23:59:59.999999999'"), "23:59:59.999999999");
}

TEST(test_duration_as_cqlsh_prints_it)
{
    setup();
    ASSERT_STR_EQ(show("duration", "1mo2d3ns"), "1mo2d3ns");
    ASSERT_STR_EQ(show("duration", "-1d"), "-1d");
    ASSERT_STR_EQ(show("duration", "1s"), "1s");
    ASSERT_STR_EQ(show("duration", "60m"), "1h");
    ASSERT_STR_EQ(show("duration", "12mo"), "1y");
    ASSERT_STR_EQ(show("duration", "1y2mo"), "1y2mo");
    ASSERT_STR_EQ(show("duration", "1h1m1s1ms1us1ns"), "1h1m1s1ms1us1ns");
}

/* ---- uuids and inets ---- */

TEST(test_uuid_and_inet)
{
    setup();
    ASSERT_STR_EQ(show("timeuuid", "13814000-1DD2-11B2-8080-808080808080"),
                  "13814000-1dd2-11b2-8080-808080808080");
    ASSERT_STR_EQ(show("uuid", "00000000-0000-4000-8000-000000000001"),
                  "00000000-0000-4000-8000-000000000001");
    ASSERT_STR_EQ(show("inet", "'127.0.0.1'"), "127.0.0.1");
    ASSERT_STR_EQ(show("inet", "'::1'"), "::1");
    ASSERT_STR_EQ(show("inet", "'2001:db8::1'"), "2001:db8::1");
    /* Java reads '::ffff:1.2.3.4' as an IPv4 address; the 16 bytes show as Python's inet_ntop */
    ASSERT_STR_EQ(show("inet", "'::ffff:1.2.3.4'"), "1.2.3.4");
    ASSERT_STR_EQ(show("inet", "blobAsInet(0x00000000000000000000ffff01020304)"), "::ffff:1.2.3.4");
    ASSERT_STR_EQ(show("set<inet>", "{'127.0.0.1'}"), "{'127.0.0.1'}");
}

TEST(test_sets_of_uuids_and_inets_in_python_order)
{
    /* stored in Cassandra's order (v1 before v4, 9.x before 10.x); the driver's sorted set
       orders uuids by their 128-bit value and cqlsh sorts inets by their text */
    setup();
    ASSERT_STR_EQ(show("set<uuid>", "{ffffffff-ffff-1fff-ffff-ffffffffffff, "
                                    "00000000-0000-4000-0000-000000000000}"),
                  "{00000000-0000-4000-0000-000000000000, ffffffff-ffff-1fff-ffff-ffffffffffff}");
    ASSERT_STR_EQ(show("set<inet>", "{'9.0.0.1', '10.0.0.1'}"), "{'10.0.0.1', '9.0.0.1'}");
    ASSERT_STR_EQ(show("map<inet, int>", "{'9.0.0.1': 1, '10.0.0.1': 2}"),
                  "{'10.0.0.1': 2, '9.0.0.1': 1}");
    /* lists keep their order */
    ASSERT_STR_EQ(show("list<inet>", "['9.0.0.1', '10.0.0.1']"), "['9.0.0.1', '10.0.0.1']");
}

/* ---- collections, tuples, user types ---- */

TEST(test_collections_tuples_and_udts)
{
    setup();
    ASSERT_STR_EQ(show("list<int>", "[1, 2]"), "[1, 2]");
    ASSERT_STR_EQ(show("map<text, int>", "{'a': 1}"), "{'a': 1}");
    ASSERT_STR_EQ(show("frozen<set<int>>", "{}"), "{}");
    ASSERT_STR_EQ(show("frozen<list<int>>", "[]"), "[]");
    ASSERT_STR_EQ(show("list<frozen<map<int, text>>>", "[{1: 'a'}, {}]"), "[{1: 'a'}, {}]");
    ASSERT_STR_EQ(show("tuple<int, text>", "(1, null)"), "(1, null)");
    ASSERT_STR_EQ(show("frozen<tuple<int, frozen<list<text>>>>", "(1, ['x'])"), "(1, ['x'])");
    RUN(cn.session, "CREATE TYPE ks.address (street text, zip int)");
    ASSERT_STR_EQ(show("frozen<address>", "{street: 'x''y'}"), "{street: 'x''y', zip: null}");
}

TEST(test_udt_value_older_than_its_type_reads_new_fields_as_null)
{
    /* a value written before ALTER TYPE ... ADD ends early: the driver pads it with None */
    setup();
    RUN(cn.session, "CREATE TYPE ks.pt (x int)");
    RUN(cn.session, "CREATE TABLE ks.u (k int PRIMARY KEY, v frozen<pt>)");
    RUN(cn.session, "INSERT INTO ks.u (k, v) VALUES (0, {x: 1})");
    RUN(cn.session, "ALTER TYPE ks.pt ADD y text");
    ASSERT_STR_EQ(show_query("SELECT v FROM ks.u"), "{x: 1, y: null}");
}

TEST(test_null_cell_shows_as_null)
{
    setup();
    RUN(cn.session, "CREATE TABLE ks.n (k int PRIMARY KEY, v int)");
    RUN(cn.session, "INSERT INTO ks.n (k) VALUES (0)");
    ASSERT_STR_EQ(show_query("SELECT v FROM ks.n"), "null");
}

TEST(test_undecodable_item_shows_the_whole_value_as_blob)
{
    /* one item Python cannot decode fails the whole cell: cqlsh shows all of its bytes */
    setup();
    ASSERT_STR_EQ(show("list<text>", "['a', blobAsText(0xeda080)]"),
                  "0x00000002000000016100000003eda080");
    ASSERT_STR_EQ(show("map<int, text>", "{1: blobAsText(0xeda080)}"),
                  "0x00000001000000040000000100000003eda080");
    ASSERT_STR_EQ(show("tuple<int, text>", "(1, blobAsText(0xeda080))"),
                  "0x000000040000000100000003eda080");
}
