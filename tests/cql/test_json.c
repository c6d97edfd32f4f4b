/*
 * JSON (cql/exec/json.c): toJSONString per type, the SELECT JSON row, fromJson()
 * and INSERT JSON. Expectations are Cassandra's JsonTest
 * (test/unit/org/apache/cassandra/cql3/validation/entities/JsonTest.java)
 * and the fromJSONObject / toJSONString code of db/marshal; byte strings
 * were computed from the encoding rules (facts §2).
 */
#include "cql/exec/json.h"
#include "harness.h"

/* ---- types (top-level ones freed by done()) ---- */

static eng_type *kept[64];
static int nkept;

static eng_type *keep(eng_type *t)
{
    kept[nkept++] = t;
    return t;
}

static eng_type *ty(int kind)
{
    return keep(eng_type_new(kind));
}
static eng_type *sub(int kind)
{
    return eng_type_new(kind);
}
static eng_type *list_of(int kind)
{
    return keep(eng_type_new_list(sub(kind), 0));
}
static eng_type *set_of(int kind)
{
    return keep(eng_type_new_set(sub(kind), 0));
}
static eng_type *map_of(int k, int v)
{
    return keep(eng_type_new_map(sub(k), sub(v), 0));
}

static eng_type *tuple3(int a, int b, int c)
{
    eng_type *t[3] = {sub(a), sub(b), sub(c)};
    return keep(eng_type_new_tuple(t, 3));
}

/* frozen<ut> (a int, b uuid, "Foo" set<text>) */
static eng_type *udt(void)
{
    char *names[3] = {eng_strdup("a"), eng_strdup("b"), eng_strdup("Foo")};
    eng_type *types[3] = {sub(ENG_INT), sub(ENG_UUID), eng_type_new_set(sub(ENG_TEXT), 1)};
    return keep(eng_type_new_udt("ks", "ut", names, types, 3, 1));
}

static void done(void)
{
    for (int i = 0; i < nkept; i++)
        eng_type_free(kept[i]);
    nkept = 0;
}

/* ---- helpers ---- */

static eng_err err;
static int state;
static char out[8192];

static size_t unhex(const char *h, uint8_t *b)
{
    size_t n = 0;
    for (; h[0] && h[1]; h += 2)
        sscanf(h, "%2hhx", &b[n++]);
    return n;
}

/* toJSONString of a value given in hex */
static const char *js(const eng_type *t, const char *hex)
{
    uint8_t b[1024];
    size_t n = unhex(hex, b);
    eng_buf o = ENG_BUF_INIT;
    eng_err_clear(&err);
    int rc = cql_json_value(t, b, n, &o, &err);
    snprintf(out, sizeof out, "%s", rc ? "<error>" : o.len ? eng_buf_cstr(&o) : "");
    eng_buf_free(&o);
    return out;
}

/* fromJSONObject of JSON text: the value in hex, or the error code */
static int fj(const eng_type *t, const char *json)
{
    eng_buf o = ENG_BUF_INIT;
    eng_err_clear(&err);
    int rc = cql_json_decode(t, json, strlen(json), &o, &state, &err);
    size_t k = 0;
    for (size_t i = 0; i < o.len && k + 3 < sizeof out; i++)
        k += (size_t)sprintf(out + k, "%02x", o.p[i]);
    out[k] = 0;
    eng_buf_free(&o);
    return rc;
}

#define ASSERT_FJ(t, json, want)                                                                   \
    do {                                                                                           \
        ASSERT_OK_ERR(fj(t, json), &err);                                                          \
        ASSERT_STR_EQ(out, want);                                                                  \
    } while (0)

#define ASSERT_FJ_ERR(t, json, want_msg)                                                           \
    do {                                                                                           \
        ASSERT_EQ(fj(t, json), ENG_E_INVALID);                                                     \
        ASSERT_STR_EQ(err.msg, want_msg);                                                          \
    } while (0)

static int starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* ======================================================================== */
/* toJSONString                                                              */
/* ======================================================================== */

TEST(numbers_are_written_bare)
{
    ASSERT_STR_EQ(js(ty(ENG_INT), "0001e0f3"), "123123");
    ASSERT_STR_EQ(js(ty(ENG_BIGINT), "ffffffe3554a3c4d"), "-123123123123");
    ASSERT_STR_EQ(js(ty(ENG_SMALLINT), "8000"), "-32768");
    ASSERT_STR_EQ(js(ty(ENG_TINYINT), "7f"), "127");
    ASSERT_STR_EQ(js(ty(ENG_BOOLEAN), "01"), "true");
    done();
}

TEST(empty_number_is_an_empty_string)
{
    /* Objects.toString(deserialize(empty), "\"\"") */
    ASSERT_STR_EQ(js(ty(ENG_INT), ""), "\"\"");
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), ""), "\"\"");
    done();
}

TEST(text_is_quoted_and_escaped_like_jackson)
{
    ASSERT_STR_EQ(js(ty(ENG_TEXT), "61626364"), "\"abcd\"");
    ASSERT_STR_EQ(js(ty(ENG_TEXT), ""), "\"\"");
    ASSERT_STR_EQ(js(ty(ENG_TEXT), "00"), "\"\\u0000\"");
    ASSERT_STR_EQ(js(ty(ENG_TEXT), "22095c0a1f"), "\"\\\"\\t\\\\\\n\\u001F\"");
    ASSERT_STR_EQ(js(ty(ENG_TEXT), "e890a2"), "\"\xe8\x90\xa2\"");
    ASSERT_STR_EQ(js(ty(ENG_ASCII), "2f"), "\"/\"");
    done();
}

TEST(blob_is_0x_hex_in_quotes)
{
    ASSERT_STR_EQ(js(ty(ENG_BLOB), "00000001"), "\"0x00000001\"");
    ASSERT_STR_EQ(js(ty(ENG_BLOB), ""), "\"0x\"");
    done();
}

TEST(timestamp_is_utc_with_milliseconds_and_z)
{
    /* 2014-01-01 = 1388534400000 ms */
    ASSERT_STR_EQ(js(ty(ENG_TIMESTAMP), "000001434b198400"), "\"2014-01-01 00:00:00.000Z\"");
    ASSERT_STR_EQ(js(ty(ENG_TIMESTAMP), "ffffffffffffffff"), "\"1969-12-31 23:59:59.999Z\"");
    done();
}

TEST(timestamp_before_1582_is_written_in_the_julian_calendar)
{
    /* SimpleDateFormat: day -354280 is Julian 1000-01-01 */
    ASSERT_STR_EQ(js(ty(ENG_TIMESTAMP), "ffffe4291a38a000"), "\"1000-01-01 00:00:00.000Z\"");
    done();
}

TEST(date_time_uuid_inet_are_quoted)
{
    ASSERT_STR_EQ(js(ty(ENG_DATE), "80001892"), "\"1987-03-23\"");
    ASSERT_STR_EQ(js(ty(ENG_TIME), "000000000000007b"), "\"00:00:00.000000123\"");
    ASSERT_STR_EQ(js(ty(ENG_TIME), "000018d5e80aa076"), "\"07:35:07.000111222\"");
    ASSERT_STR_EQ(js(ty(ENG_UUID), "6BDDC89A564411E497FC56847AFE9799"),
                  "\"6bddc89a-5644-11e4-97fc-56847afe9799\"");
    ASSERT_STR_EQ(js(ty(ENG_INET), "7f000001"), "\"127.0.0.1\"");
    ASSERT_STR_EQ(js(ty(ENG_INET), "00000000000000000000000000000001"), "\"0:0:0:0:0:0:0:1\"");
    done();
}

TEST(date_with_a_year_beyond_four_digits_has_a_plus_sign)
{
    /* ISO_LOCAL_DATE: 10000-01-01 is day 2932897 */
    ASSERT_STR_EQ(js(ty(ENG_DATE), "802cc0a1"), "\"+10000-01-01\"");
    done();
}

TEST(decimal_and_varint_as_java_prints_them)
{
    ASSERT_STR_EQ(js(ty(ENG_VARINT), "06acad34256e6ff3b3"), "123123123123123123123");
    ASSERT_STR_EQ(js(ty(ENG_DECIMAL), "000000061caab5c3b3"), "123123.123123");
    ASSERT_STR_EQ(js(ty(ENG_DECIMAL), "0000000e85"), "-1.23E-12");
    ASSERT_STR_EQ(js(ty(ENG_DECIMAL), "fffffffd01"), "1E+3");
    ASSERT_STR_EQ(js(ty(ENG_DECIMAL), "0000000200"), "0.00");
    done();
}

TEST(floating_point_as_java_double_and_float_tostring)
{
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "40fe0f31f84fd2a6"), "123123.123123");
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "40fe0f3000000000"), "123123.0");
    ASSERT_STR_EQ(js(ty(ENG_FLOAT), "42f63efa"), "123.123");
    ASSERT_STR_EQ(js(ty(ENG_FLOAT), "47f07980"), "123123.0");
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "416312d000000000"), "1.0E7");
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "3f50624dd2f1a9fc"), "0.001");
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "3f1a36e2eb1c432d"), "1.0E-4");
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "0000000000000001"), "4.9E-324");
    ASSERT_STR_EQ(js(ty(ENG_FLOAT), "00000001"), "1.4E-45");
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "8000000000000000"), "-0.0");
    done();
}

TEST(nan_and_infinity_are_null)
{
    /* JsonTest.testJsonWithNaNAndInfinity */
    ASSERT_STR_EQ(js(ty(ENG_DOUBLE), "7ff8000000000000"), "null");
    ASSERT_STR_EQ(js(ty(ENG_FLOAT), "ff800000"), "null");
    done();
}

TEST(duration_is_quoted_duration_tostring)
{
    ASSERT_STR_EQ(js(ty(ENG_DURATION), "0000c05dc0"), "\"12us\"");
    ASSERT_STR_EQ(js(ty(ENG_DURATION), "1a04fc42078135f000"), "\"1y1mo2d10h5m\"");
    ASSERT_STR_EQ(js(ty(ENG_DURATION), "000100"), "\"-1d\"");
    done();
}

TEST(collections_are_arrays_and_objects)
{
    ASSERT_STR_EQ(js(list_of(ENG_INT), "00000003"
                                       "0000000400000001"
                                       "0000000400000002"
                                       "0000000400000003"),
                  "[1, 2, 3]");
    ASSERT_STR_EQ(js(map_of(ENG_ASCII, ENG_INT), "00000002"
                                                 "0000000161"
                                                 "0000000400000001"
                                                 "0000000162"
                                                 "0000000400000002"),
                  "{\"a\": 1, \"b\": 2}");
    done();
}

TEST(map_keys_that_are_not_strings_are_quoted)
{
    ASSERT_STR_EQ(js(map_of(ENG_INT, ENG_BOOLEAN), "00000002"
                                                   "000000040000000000000001"
                                                   "01"
                                                   "000000040000000100000001"
                                                   "00"),
                  "{\"0\": true, \"1\": false}");
    eng_type *c[2] = {sub(ENG_INT), sub(ENG_TEXT)};
    eng_type *tk = keep(eng_type_new_map(eng_type_new_tuple(c, 2), sub(ENG_BOOLEAN), 0));
    ASSERT_STR_EQ(js(tk, "00000001"
                         "0000000d"
                         "0000000400000000"
                         "0000000161"
                         "0000000101"),
                  "{\"[0, \\\"a\\\"]\": true}");
    done();
}

TEST(tuple_is_an_array_with_nulls)
{
    ASSERT_STR_EQ(js(tuple3(ENG_INT, ENG_TEXT, ENG_UUID), "0000000400000001"
                                                          "00000006666f6f626172"
                                                          "ffffffff"),
                  "[1, \"foobar\", null]");
    done();
}

TEST(udt_is_an_object_missing_fields_null_upper_case_names_quoted)
{
    /* JsonTest: {"a": 1, "b": ..., "c": null}, and "\"Foo\"" for a case-sensitive field */
    ASSERT_STR_EQ(js(udt(), "0000000400000001"
                            "00000010"
                            "6bddc89a564411e497fc56847afe9799"),
                  "{\"a\": 1, \"b\": \"6bddc89a-5644-11e4-97fc-56847afe9799\", "
                  "\"\\\"Foo\\\"\": null}");
    done();
}

TEST(select_json_row_quotes_case_sensitive_names)
{
    const char *names[3] = {"k", "Foo", "v"};
    const eng_type *types[3] = {ty(ENG_INT), ty(ENG_INT), ty(ENG_TEXT)};
    static const uint8_t zero[4] = {0};
    eng_val vals[3] = {{zero, 4}, {zero, 4}, {NULL, ENG_NULL}};
    eng_buf o = ENG_BUF_INIT;
    ASSERT_OK_ERR(cql_json_row(names, types, vals, 3, &o, &err), &err);
    ASSERT_STR_EQ(eng_buf_cstr(&o), "{\"k\": 0, \"\\\"Foo\\\"\": 0, \"v\": null}");
    eng_buf_free(&o);
    done();
}

TEST(to_json_of_null_is_the_text_null)
{
    eng_buf o = ENG_BUF_INIT;
    eng_val v = {NULL, ENG_NULL};
    ASSERT_OK_ERR(cql_json_to_json(ty(ENG_INT), v, &o, &err), &err);
    ASSERT_STR_EQ(eng_buf_cstr(&o), "null");
    eng_buf_free(&o);
    done();
}

TEST(malformed_value_is_an_error_not_a_crash)
{
    ASSERT_STR_EQ(js(ty(ENG_INT), "0102"), "<error>");
    ASSERT_STR_EQ(js(list_of(ENG_INT), "000000050000"), "<error>");
    done();
}

/* ======================================================================== */
/* fromJSONObject                                                            */
/* ======================================================================== */

TEST(from_json_int_takes_integers_and_strings)
{
    ASSERT_FJ(ty(ENG_INT), "123123", "0001e0f3");
    ASSERT_FJ(ty(ENG_INT), "\"123123\"", "0001e0f3");
    ASSERT_FJ_ERR(ty(ENG_INT), "2147483648", "Expected an int value, but got a Long: 2147483648");
    ASSERT_FJ_ERR(ty(ENG_INT), "123.456", "Expected an int value, but got a Double: 123.456");
    ASSERT_FJ_ERR(ty(ENG_INT), "\"xyzz\"", "Unable to make int from 'xyzz'");
    ASSERT_FJ_ERR(ty(ENG_INT), "true", "Expected an int value, but got a Boolean: true");
    done();
}

TEST(from_json_bigint)
{
    ASSERT_FJ(ty(ENG_BIGINT), "123123123123", "0000001caab5c3b3");
    ASSERT_FJ_ERR(ty(ENG_BIGINT), "9223372036854775808",
                  "Expected a bigint value, but got a BigInteger: 9223372036854775808");
    ASSERT_FJ_ERR(ty(ENG_BIGINT), "[\"abc\"]",
                  "Expected a bigint value, but got a ArrayList: [abc]");
    ASSERT_FJ_ERR(ty(ENG_BIGINT), "\"abc\"", "Unable to make long from 'abc'");
    done();
}

TEST(from_json_smallint_and_tinyint_parse_the_text_of_any_number)
{
    ASSERT_FJ(ty(ENG_SMALLINT), "32767", "7fff");
    ASSERT_FJ_ERR(ty(ENG_SMALLINT), "32768", "Unable to make short from '32768'");
    ASSERT_FJ_ERR(ty(ENG_SMALLINT), "123.456", "Unable to make short from '123.456'");
    ASSERT_FJ_ERR(ty(ENG_SMALLINT), "true", "Expected a short value, but got a Boolean: true");
    ASSERT_FJ(ty(ENG_TINYINT), "\"127\"", "7f");
    ASSERT_FJ_ERR(ty(ENG_TINYINT), "128", "Unable to make byte from '128'");
    ASSERT_FJ_ERR(ty(ENG_TINYINT), "true", "Expected a byte value, but got a Boolean: true");
    done();
}

TEST(from_json_blob)
{
    ASSERT_FJ(ty(ENG_BLOB), "\"0x00000001\"", "00000001");
    ASSERT_FJ_ERR(ty(ENG_BLOB), "\"xyzz\"",
                  "Value 'xyzz' is not a valid blob representation: String representation of blob "
                  "is missing 0x prefix: xyzz");
    ASSERT_FJ_ERR(ty(ENG_BLOB), "\"0x123\"",
                  "Value '0x123' is not a valid blob representation: cannot parse '123' as hex "
                  "bytes");
    ASSERT_EQ(fj(ty(ENG_BLOB), "123"), ENG_E_INVALID);
    ASSERT(starts_with(err.msg, "Value '123' is not a valid blob representation"));
    done();
}

TEST(from_json_boolean)
{
    ASSERT_FJ(ty(ENG_BOOLEAN), "true", "01");
    ASSERT_FJ(ty(ENG_BOOLEAN), "\"false\"", "00");
    ASSERT_FJ_ERR(ty(ENG_BOOLEAN), "\"abc\"", "Unable to make boolean from 'abc'");
    ASSERT_FJ_ERR(ty(ENG_BOOLEAN), "123", "Expected a boolean value, but got a Integer: 123");
    done();
}

TEST(from_json_date_and_time_take_strings_only)
{
    ASSERT_FJ(ty(ENG_DATE), "\"1987-03-23\"", "80001892");
    ASSERT_FJ_ERR(ty(ENG_DATE), "123",
                  "Expected a string representation of a date value, but got a Integer: 123");
    ASSERT_FJ_ERR(ty(ENG_DATE), "\"xyz\"", "Unable to coerce 'xyz' to a formatted date (long)");
    ASSERT_FJ(ty(ENG_TIME), "\"07:35:07.000111222\"", "000018d5e80aa076");
    ASSERT_FJ_ERR(ty(ENG_TIME), "123456",
                  "Expected a string representation of a time value, but got a Integer: 123456");
    done();
}

TEST(from_json_decimal_goes_through_the_java_text_of_the_number)
{
    ASSERT_FJ(ty(ENG_DECIMAL), "123123.123123", "000000061caab5c3b3");
    ASSERT_FJ(ty(ENG_DECIMAL), "\"-1.23E-12\"", "0000000e85");
    /* a JSON 1.50 is a Double, whose toString is 1.5: the scale is lost */
    ASSERT_FJ(ty(ENG_DECIMAL), "1.50", "000000010f");
    ASSERT_FJ_ERR(ty(ENG_DECIMAL), "\"xyzz\"",
                  "Value 'xyzz' is not a valid representation of a decimal value");
    ASSERT_FJ_ERR(ty(ENG_DECIMAL), "true",
                  "Value 'true' is not a valid representation of a decimal value");
    done();
}

TEST(from_json_double_and_float)
{
    ASSERT_FJ(ty(ENG_DOUBLE), "123123.123123", "40fe0f31f84fd2a6");
    ASSERT_FJ(ty(ENG_DOUBLE), "123123", "40fe0f3000000000");
    ASSERT_FJ(ty(ENG_FLOAT), "\"123123.0\"", "47f07980");
    ASSERT_FJ(ty(ENG_FLOAT), "123123.123123", "47f07990");
    ASSERT_FJ_ERR(ty(ENG_DOUBLE), "\"xyzz\"", "Unable to make double from 'xyzz'");
    ASSERT_FJ_ERR(ty(ENG_FLOAT), "true", "Expected a float value, but got a Boolean: true");
    done();
}

TEST(from_json_inet_text_ascii)
{
    ASSERT_FJ(ty(ENG_INET), "\"::1\"", "00000000000000000000000000000001");
    ASSERT_FJ_ERR(ty(ENG_INET), "\"xyzz\"", "Unable to make inet address from 'xyzz'");
    ASSERT_FJ_ERR(ty(ENG_INET), "123",
                  "Expected a string representation of an inet value, but got a Integer: 123");
    ASSERT_FJ(ty(ENG_TEXT), "\"\\u2013\"", "e28093");
    ASSERT_FJ(ty(ENG_TEXT), "\"some \\\" text\"", "736f6d6520222074657874");
    ASSERT_FJ_ERR(ty(ENG_TEXT), "123", "Expected a UTF-8 string, but got a Integer: 123");
    ASSERT_EQ(fj(ty(ENG_ASCII), "\"\\u1fff\\u2013\""), ENG_E_INVALID);
    ASSERT(starts_with(err.msg, "Invalid ASCII character in string literal"));
    done();
}

TEST(from_json_timestamp_takes_a_long_or_a_string)
{
    /* TimestampType.fromJSONObject: only a Long is a number of milliseconds */
    ASSERT_FJ(ty(ENG_TIMESTAMP), "123123123123", "0000001caab5c3b3");
    ASSERT_FJ(ty(ENG_TIMESTAMP), "\"2014-01-01\"", "000001434b198400");
    ASSERT_FJ_ERR(ty(ENG_TIMESTAMP), "123.456",
                  "Expected a long or a datestring representation of a timestamp value, but got a "
                  "Double: 123.456");
    ASSERT_FJ_ERR(ty(ENG_TIMESTAMP), "1000",
                  "Expected a long or a datestring representation of a timestamp value, but got a "
                  "Integer: 1000");
    done();
}

TEST(from_json_uuid_and_timeuuid)
{
    ASSERT_FJ(ty(ENG_TIMEUUID), "\"6BDDC89A-5644-11E4-97FC-56847AFE9799\"",
              "6bddc89a564411e497fc56847afe9799");
    ASSERT_FJ_ERR(ty(ENG_TIMEUUID), "\"00000000-0000-0000-0000-000000000000\"",
                  "TimeUUID supports only version 1 UUIDs");
    ASSERT_FJ_ERR(ty(ENG_TIMEUUID), "123",
                  "Expected a string representation of a timeuuid, but got a Integer: 123");
    ASSERT_FJ_ERR(ty(ENG_UUID), "\"00000000-0000-0000-zzzz-000000000000\"",
                  "Unable to make UUID from '00000000-0000-0000-zzzz-000000000000'");
    ASSERT_FJ_ERR(ty(ENG_UUID), "123",
                  "Expected a string representation of a uuid, but got a Integer: 123");
    done();
}

TEST(from_json_varint)
{
    ASSERT_FJ(ty(ENG_VARINT), "\"1234567890123456789012345678901234567890\"",
              "03a0c92075c0dbf3b8acbc5f96ce3f0ad2");
    ASSERT_FJ_ERR(ty(ENG_VARINT), "123123.123",
                  "Value '123123.123' is not a valid representation of a varint value");
    ASSERT_FJ_ERR(ty(ENG_VARINT), "\"\"",
                  "Value '' is not a valid representation of a varint value");
    ASSERT_FJ_ERR(ty(ENG_VARINT), "true",
                  "Value 'true' is not a valid representation of a varint value");
    done();
}

TEST(from_json_duration)
{
    ASSERT_FJ(ty(ENG_DURATION), "\"53us\"", "0000c19e10");
    ASSERT_FJ(ty(ENG_DURATION), "\"P2W\"", "001c00");
    ASSERT_FJ_ERR(ty(ENG_DURATION), "\"xyz\"", "Unable to convert 'xyz' to a duration");
    done();
}

TEST(from_json_list_and_set)
{
    ASSERT_FJ(list_of(ENG_INT), "[1, 2, 3]",
              "00000003"
              "0000000400000001"
              "0000000400000002"
              "0000000400000003");
    ASSERT_FJ(list_of(ENG_INT), "[]", "00000000");
    ASSERT_FJ_ERR(list_of(ENG_INT), "123", "Expected a list, but got a Integer: 123");
    ASSERT_FJ_ERR(list_of(ENG_INT), "[\"abc\"]", "Unable to make int from 'abc'");
    ASSERT_FJ_ERR(list_of(ENG_INT), "[null]", "Invalid null element in list");
    ASSERT_FJ(set_of(ENG_INT), "[3, 1, 3]",
              "00000002"
              "0000000400000001"
              "0000000400000003");
    ASSERT_FJ_ERR(set_of(ENG_INT), "123",
                  "Expected a list (representing a set), but got a Integer: 123");
    ASSERT_FJ_ERR(set_of(ENG_INT), "[null]", "Invalid null element in set");
    done();
}

TEST(from_json_map_sorted_and_checked)
{
    ASSERT_FJ(map_of(ENG_ASCII, ENG_INT), "{\"b\": 2, \"a\": 1}",
              "00000002"
              "0000000161"
              "0000000400000001"
              "0000000162"
              "0000000400000002");
    ASSERT_FJ_ERR(map_of(ENG_ASCII, ENG_INT), "123", "Expected a map, but got a Integer: 123");
    ASSERT_FJ_ERR(map_of(ENG_ASCII, ENG_INT), "{\"a\": null}", "Invalid null value in map");
    ASSERT_FJ_ERR(map_of(ENG_ASCII, ENG_INT), "[1]", "Expected a map, but got a ArrayList: [1]");
    done();
}

TEST(from_json_map_keys_are_read_from_their_string_form)
{
    /* JsonTest.testInsertJsonSyntaxWithNonNativeMapKeys */
    ASSERT_FJ(map_of(ENG_INT, ENG_BOOLEAN), "{\"0\": true, \"1\": false}",
              "00000002"
              "000000040000000000000001"
              "01"
              "000000040000000100000001"
              "00");
    eng_type *sk = keep(eng_type_new_map(eng_type_new_set(sub(ENG_INT), 1), sub(ENG_BOOLEAN), 0));
    ASSERT_FJ(sk, "{\"[1]\": true}",
              "00000001"
              "0000000c"
              "000000010000000400000001"
              "0000000101");
    done();
}

TEST(from_json_tuple)
{
    eng_type *t = tuple3(ENG_INT, ENG_ASCII, ENG_UUID);
    ASSERT_FJ(t, "[1, null, \"6bddc89a-5644-11e4-97fc-56847afe9799\"]",
              "0000000400000001"
              "ffffffff"
              "000000106bddc89a564411e497fc56847afe9799");
    ASSERT_FJ_ERR(t, "[1, \"foobar\", \"6bddc89a-5644-11e4-97fc-56847afe9799\", 1, 2, 3]",
                  "Tuple contains extra items (expected 3): [1, foobar, "
                  "6bddc89a-5644-11e4-97fc-56847afe9799, 1, 2, 3]");
    ASSERT_FJ_ERR(t, "[1, \"foobar\"]", "Tuple is missing items (expected 3): [1, foobar]");
    ASSERT_FJ_ERR(t, "[\"not an int\", \"foobar\", \"6bddc89a-5644-11e4-97fc-56847afe9799\"]",
                  "Unable to make int from 'not an int'");
    done();
}

TEST(from_json_udt_by_field_name_any_order)
{
    ASSERT_FJ(udt(), "{\"b\": \"6bddc89a-5644-11e4-97fc-56847afe9799\", \"A\": 1}",
              "0000000400000001"
              "000000106bddc89a564411e497fc56847afe9799"
              "ffffffff");
    ASSERT_FJ(udt(), "{\"a\": null, \"\\\"Foo\\\"\": [\"y\", \"x\"]}",
              "ffffffff"
              "ffffffff"
              "0000000e"
              "00000002"
              "0000000178"
              "0000000179");
    ASSERT_FJ_ERR(udt(), "{\"xxx\": 1}", "Unknown field 'xxx' in value of user defined type ut");
    ASSERT_FJ_ERR(udt(), "{\"a\": \"foobar\"}", "Unable to make int from 'foobar'");
    ASSERT_FJ_ERR(udt(), "{\"foo\": 1}", "Unknown field 'foo' in value of user defined type ut");
    done();
}

TEST(from_json_null_is_a_null_value)
{
    ASSERT_OK_ERR(fj(ty(ENG_INT), " null "), &err);
    ASSERT_EQ(state, CQL_VALUE_NULL);
    done();
}

TEST(from_json_of_a_collection_given_as_a_json_string)
{
    /* CollectionType.fromJSONObject decodes a string first */
    ASSERT_FJ(list_of(ENG_INT), "\"[1]\"", "000000010000000400000001");
    ASSERT_EQ(fj(list_of(ENG_INT), "\"[1\""), ENG_E_INVALID);
    ASSERT(starts_with(err.msg, "Error decoding JSON string: "));
    done();
}

TEST(text_that_is_not_json_cannot_be_decoded)
{
    ASSERT_EQ(fj(ty(ENG_ASCII), "\xce\x8e\xce\x94\xce\xb4\xcf\xa0"), ENG_E_INVALID);
    ASSERT(starts_with(err.msg, "Could not decode JSON string '\xce\x8e\xce\x94\xce\xb4\xcf\xa0'"));
    done();
}

TEST(from_json_function_failures_are_function_failures)
{
    eng_buf o = ENG_BUF_INIT;
    eng_err_clear(&err);
    ASSERT_EQ(cql_json_from_json(ty(ENG_INT), "\"xyzz\"", 6, &o, &state, &err),
              ENG_E_FUNCTION_FAILURE);
    ASSERT_STR_EQ(err.msg, "execution of 'system.fromjson[text]' failed: "
                           "org.apache.cassandra.serializers.MarshalException: Unable to make int "
                           "from 'xyzz'");
    eng_err_clear(&err);
    ASSERT_EQ(cql_json_from_json(ty(ENG_INT), "{", 1, &o, &state, &err), ENG_E_FUNCTION_FAILURE);
    ASSERT(starts_with(err.msg,
                       "execution of 'system.fromjson[text]' failed: Could not decode JSON "
                       "string '{': com.fasterxml.jackson.core.JsonParseException: "));
    eng_buf_free(&o);
    done();
}

/* ======================================================================== */
/* the tokenizer                                                             */
/* ======================================================================== */

TEST(jackson_refuses_leading_zeros_and_bare_words)
{
    ASSERT_EQ(fj(ty(ENG_INT), "01"), ENG_E_INVALID);
    ASSERT(strstr(err.msg, "Leading zeroes not allowed"));
    ASSERT_EQ(fj(ty(ENG_INT), "NaN"), ENG_E_INVALID);
    ASSERT(strstr(err.msg, "Unrecognized token 'NaN'"));
    ASSERT_EQ(fj(ty(ENG_INT), "[1,]"), ENG_E_INVALID);
    ASSERT_EQ(fj(ty(ENG_INT), "\"a\nb\""), ENG_E_INVALID);
    ASSERT(strstr(err.msg, "Illegal unquoted character"));
    done();
}

TEST(text_after_the_first_value_is_ignored_except_after_a_number)
{
    /* ObjectMapper.readValue does not fail on trailing tokens by default */
    ASSERT_FJ(list_of(ENG_INT), "[1] trailing", "000000010000000400000001");
    ASSERT_EQ(fj(ty(ENG_INT), "1x"), ENG_E_INVALID);
    ASSERT(strstr(err.msg, "Expected space separating root-level values"));
    done();
}

TEST(duplicate_keys_keep_the_last_value)
{
    ASSERT_FJ(map_of(ENG_ASCII, ENG_INT), "{\"a\": 1, \"a\": 2}",
              "00000001"
              "0000000161"
              "0000000400000002");
    done();
}

TEST(surrogate_pairs_join_and_lone_surrogates_become_question_marks)
{
    ASSERT_FJ(ty(ENG_TEXT), "\"\\ud83d\\ude00\"", "f09f9880");
    ASSERT_FJ(ty(ENG_TEXT), "\"\\ud83d\"", "3f");
    done();
}

TEST(deep_nesting_is_refused_not_a_crash)
{
    char deep[4000];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = 0;
    ASSERT_EQ(fj(list_of(ENG_INT), deep), ENG_E_INVALID);
    done();
}

TEST(random_json_never_crashes)
{
    uint64_t seed = test_seed();
    static const char alphabet[] = "{}[]:,\"\\ 0123456789.eE+-truefalsn\\u";
    eng_type *types[4] = {list_of(ENG_INT), map_of(ENG_TEXT, ENG_BIGINT), udt(),
                          tuple3(ENG_INT, ENG_TEXT, ENG_DOUBLE)};
    char text[64];
    for (int i = 0; i < 20000; i++) {
        size_t n = test_rand(&seed) % sizeof text;
        for (size_t k = 0; k < n; k++)
            text[k] = (test_rand(&seed) & 15) ? alphabet[test_rand(&seed) % (sizeof alphabet - 1)]
                                              : (char)test_rand(&seed);
        eng_buf o = ENG_BUF_INIT;
        eng_err_clear(&err);
        int rc = cql_json_decode(types[i % 4], text, n, &o, &state, &err);
        ASSERT(rc == 0 || rc == ENG_E_INVALID || rc == ENG_E_SERVER);
        if (!rc && state == CQL_VALUE)
            ASSERT_OK_ERR(eng_type_validate(types[i % 4], o.p, o.len, &err), &err);
        eng_buf_free(&o);
    }
    done();
}

/* ======================================================================== */
/* INSERT JSON                                                               */
/* ======================================================================== */

static cql_json_column cols[3];
static eng_buf vals[3];
static int states[3];

static int insert(const char *json, int default_unset)
{
    cols[0] = (cql_json_column){"k", ty(ENG_INT)};
    cols[1] = (cql_json_column){"v", ty(ENG_INT)};
    cols[2] = (cql_json_column){"Foo", ty(ENG_TEXT)};
    for (int i = 0; i < 3; i++)
        eng_buf_reset(&vals[i]);
    eng_err_clear(&err);
    return cql_json_insert_values(json, strlen(json), cols, 3, default_unset, vals, states, &err);
}

static void insert_done(void)
{
    for (int i = 0; i < 3; i++)
        eng_buf_free(&vals[i]);
    done();
}

TEST(insert_json_maps_members_to_columns)
{
    ASSERT_OK_ERR(insert("{\"k\": 0, \"v\": 7}", 0), &err);
    ASSERT_EQ(states[0], CQL_VALUE);
    ASSERT_EQ(vals[0].len, 4);
    ASSERT_EQ(states[1], CQL_VALUE);
    ASSERT_EQ(vals[1].p[3], 7);
    ASSERT_EQ(states[2], CQL_VALUE_NULL); /* missing: DEFAULT NULL */
    insert_done();
}

TEST(insert_json_default_unset_and_explicit_null)
{
    /* JsonTest.testInsertJsonSyntaxDefaultUnset */
    ASSERT_OK_ERR(insert("{\"k\": 1, \"v\": null}", 1), &err);
    ASSERT_EQ(states[1], CQL_VALUE_NULL);
    ASSERT_EQ(states[2], CQL_VALUE_UNSET);
    insert_done();
}

TEST(insert_json_names_are_case_insensitive_unless_quoted)
{
    /* JsonTest.testCaseSensitivity */
    ASSERT_OK_ERR(insert("{\"K\": 0, \"\\\"Foo\\\"\": \"x\"}", 0), &err);
    ASSERT_EQ(states[0], CQL_VALUE);
    ASSERT_EQ(states[2], CQL_VALUE);
    ASSERT_EQ(insert("{\"k\": 0, \"foo\": \"x\"}", 0), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "JSON values map contains unrecognized column: foo");
    insert_done();
}

TEST(insert_json_errors)
{
    ASSERT_EQ(insert("null", 0), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Got null for INSERT JSON values");
    ASSERT_EQ(insert("\"notamap\"", 0), ENG_E_INVALID);
    ASSERT(starts_with(err.msg, "Could not decode JSON string as a map: "));
    ASSERT_EQ(insert("12.34", 0), ENG_E_INVALID);
    ASSERT(starts_with(err.msg, "Could not decode JSON string as a map: "));
    ASSERT_EQ(insert("{\"k\": 0, \"v\": 0, \"zzz\": 0}", 0), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "JSON values map contains unrecognized column: zzz");
    ASSERT_EQ(insert("{\"k\": 0, \"v\": \"notanint\"}", 0), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Error decoding JSON value for v: Unable to make int from 'notanint'");
    ASSERT_EQ(insert("{\"k\": 0", 0), ENG_E_INVALID);
    ASSERT(starts_with(err.msg, "Could not decode JSON string as a map: "
                                "com.fasterxml.jackson.core.JsonParseException: "));
    insert_done();
}

TEST(insert_json_unrecognized_column_is_the_first_left_in_map_order)
{
    /* handleCaseSensitivity moves a lower-cased key to the end of the map */
    ASSERT_EQ(insert("{\"Zz\": 1, \"yy\": 2, \"k\": 0}", 0), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "JSON values map contains unrecognized column: yy");
    insert_done();
}

TEST(object_fields_give_names_and_value_texts)
{
    cql_json_field *f;
    int n;
    const char *json = "{\"A\": [1, 2], \"b\": null, \"\\\"C\\\"\": {\"x\": \"y\"}}";
    ASSERT_OK_ERR(cql_json_object_fields(json, strlen(json), &f, &n, &err), &err);
    ASSERT_EQ(n, 3);
    ASSERT_STR_EQ(f[0].name, "b");
    ASSERT_STR_EQ(f[0].value, "null");
    ASSERT_STR_EQ(f[1].name, "a");
    ASSERT_STR_EQ(f[1].value, "[1, 2]");
    ASSERT_STR_EQ(f[2].name, "C");
    ASSERT_STR_EQ(f[2].value, "{\"x\": \"y\"}");
    cql_json_fields_free(f, n);
}

TEST(select_then_insert_round_trips_a_duration)
{
    /* JsonTest.testDurationJsonRoundtrip: 6h40m */
    const char *names[1] = {"d"};
    const eng_type *types[1] = {ty(ENG_DURATION)};
    static const uint8_t d[] = {0x00, 0x00, 0xfc, 0x2b, 0xa7, 0xde, 0xf3, 0x00, 0x00};
    eng_val vals1[1] = {{d, sizeof d}};
    eng_buf row = ENG_BUF_INIT;
    ASSERT_OK_ERR(cql_json_row(names, types, vals1, 1, &row, &err), &err);
    ASSERT_STR_EQ(eng_buf_cstr(&row), "{\"d\": \"6h40m\"}");
    cql_json_column c = {"d", types[0]};
    eng_buf v = ENG_BUF_INIT;
    int st;
    ASSERT_OK_ERR(cql_json_insert_values((const char *)row.p, row.len, &c, 1, 0, &v, &st, &err),
                  &err);
    ASSERT_EQ(v.len, sizeof d);
    ASSERT_MEM_EQ(v.p, d, sizeof d);
    eng_buf_free(&row);
    eng_buf_free(&v);
    done();
}

/* Every allocation failing in turn: an error code, never a crash or a leak. */
TEST(allocation_failures_are_reported)
{
    eng_type *t = udt();
    const char *json = "{\"a\": 1, \"\\\"Foo\\\"\": [\"y\", \"x\"], \"B\": null}";
    for (long n = 0; n < 400; n++) {
        eng_buf o = ENG_BUF_INIT;
        eng_err_clear(&err);
        eng_alloc_fail_after(n);
        int rc = cql_json_decode(t, json, strlen(json), &o, &state, &err);
        eng_alloc_fail_after(-1);
        ASSERT(rc == 0 || rc == ENG_E_NOMEM);
        eng_buf_free(&o);
        if (rc == 0)
            break;
    }
    cql_json_field *f;
    int n_f;
    for (long n = 0; n < 400; n++) {
        eng_err_clear(&err);
        eng_alloc_fail_after(n);
        int rc = cql_json_object_fields(json, strlen(json), &f, &n_f, &err);
        eng_alloc_fail_after(-1);
        ASSERT(rc == 0 || rc == ENG_E_NOMEM);
        if (rc == 0) {
            cql_json_fields_free(f, n_f);
            break;
        }
    }
    done();
}
