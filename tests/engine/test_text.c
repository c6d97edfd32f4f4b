/*
 * The text forms of the types (engine/value/text.c): AbstractType.fromString
 * with Java's grammars, and TypeSerializer.toString, the text CAST(x AS text)
 * returns. Expectations come from Cassandra's sources and tests, named at
 * each test: CastFctsTest and JsonTest (the toJson texts are the
 * serializers' toString in quotes), DecimalSerializerTest, DurationTest,
 * SimpleDateSerializer, TimeSerializer, TimestampSerializer, InetAddress;
 * byte strings were computed from the encoding rules (facts §2), not from
 * this code.
 */
#include "engine/value/text.h"
#include "harness.h"

#include <math.h>
#include <time.h>

/* ---- types (top-level ones are freed by done()) ---- */

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

static eng_type *tuple2(int a, int b)
{
    eng_type *c[2] = {eng_type_new(a), eng_type_new(b)};
    return keep(eng_type_new_tuple(c, 2));
}

static void done(void)
{
    for (int i = 0; i < nkept; i++)
        eng_type_free(kept[i]);
    nkept = 0;
}

/* ---- fromString: the value in hex ---- */

static eng_err err;
static char hexbuf[8192];

static void to_hex(const eng_buf *b)
{
    size_t k = 0;
    for (size_t i = 0; i < b->len && k + 3 < sizeof hexbuf; i++)
        k += (size_t)sprintf(hexbuf + k, "%02x", b->p[i]);
    hexbuf[k] = 0;
}

static int fs(const eng_type *type, const char *s)
{
    eng_err_clear(&err);
    eng_buf b = ENG_BUF_INIT;
    int rc = eng_text_from_string(type, s, strlen(s), &b, &err);
    to_hex(&b);
    eng_buf_free(&b);
    return rc;
}

#define ASSERT_FS(type, text, want)                                                                \
    do {                                                                                           \
        ASSERT_OK_ERR(fs(type, text), &err);                                                       \
        ASSERT_STR_EQ(hexbuf, want);                                                               \
    } while (0)

#define ASSERT_FS_ERR(type, text, want_msg)                                                        \
    do {                                                                                           \
        ASSERT_EQ(fs(type, text), ENG_E_INVALID);                                                  \
        ASSERT_STR_EQ(err.msg, want_msg);                                                          \
    } while (0)

/* ---- toString: the text of a value given in hex ---- */

static char tsbuf[8192];

static size_t unhex(const char *h, uint8_t *b)
{
    size_t n = 0;
    for (; h[0] && h[1]; h += 2)
        sscanf(h, "%2hhx", &b[n++]);
    return n;
}

static int ts(const eng_type *type, const char *hex)
{
    uint8_t b[1024];
    size_t n = unhex(hex, b);
    eng_buf o = ENG_BUF_INIT;
    eng_err_clear(&err);
    int rc = eng_text_to_string(type, b, n, &o, &err);
    snprintf(tsbuf, sizeof tsbuf, "%.*s", (int)o.len, o.len ? (const char *)o.p : "");
    eng_buf_free(&o);
    return rc;
}

#define ASSERT_TS(type, hex, want)                                                                 \
    do {                                                                                           \
        ASSERT_OK_ERR(ts(type, hex), &err);                                                        \
        ASSERT_STR_EQ(tsbuf, want);                                                                \
    } while (0)

/* ======================================================================== */
/* fromString: integers, varint, decimal, floating point, boolean            */
/* ======================================================================== */

TEST(int_range_errors_name_the_java_type)
{
    /* Int32Type/ShortType/ByteType/LongType.fromString messages */
    ASSERT_FS_ERR(ty(ENG_INT), "2147483648", "Unable to make int from '2147483648'");
    ASSERT_FS_ERR(ty(ENG_SMALLINT), "32768", "Unable to make short from '32768'");
    ASSERT_FS_ERR(ty(ENG_TINYINT), "-129", "Unable to make byte from '-129'");
    ASSERT_FS_ERR(ty(ENG_BIGINT), "9223372036854775808",
                  "Unable to make long from '9223372036854775808'");
    ASSERT_FS(ty(ENG_INT), "-2147483648", "80000000");
    ASSERT_FS(ty(ENG_SMALLINT), "+7", "0007"); /* Short.parseShort accepts a plus sign */
    done();
}

TEST(empty_string_gives_the_empty_value_for_numbers)
{
    ASSERT_FS(ty(ENG_INT), "", "");
    ASSERT_FS(ty(ENG_VARINT), "", "");
    ASSERT_FS(ty(ENG_TIMESTAMP), "", "");
    done();
}

TEST(varint_from_bad_text_uses_biginteger_message)
{
    ASSERT_FS_ERR(ty(ENG_VARINT), "12a", "unable to make int from '12a'");
    done();
}

TEST(decimal_from_bad_text_uses_bigdecimal_message)
{
    ASSERT_FS_ERR(ty(ENG_DECIMAL), "1.2.3", "unable to make BigDecimal from '1.2.3'");
    done();
}

TEST(float_text_follows_java_grammar)
{
    /* Double.valueOf trims and accepts a type suffix; anything else fails */
    ASSERT_FS(ty(ENG_DOUBLE), " 1.5d ", "3ff8000000000000");
    ASSERT_FS_ERR(ty(ENG_DOUBLE), "1.5x", "Unable to make double from '1.5x'");
    ASSERT_FS_ERR(ty(ENG_FLOAT), "abc", "Unable to make float from 'abc'");
    done();
}

TEST(boolean_text_is_case_insensitive_and_empty_is_false)
{
    ASSERT_FS(ty(ENG_BOOLEAN), "FALSE", "00");
    ASSERT_FS(ty(ENG_BOOLEAN), "", "00");
    ASSERT_FS_ERR(ty(ENG_BOOLEAN), "yes", "Unable to make boolean from 'yes'");
    done();
}

/* ======================================================================== */
/* fromString: timestamps                                                    */
/* ======================================================================== */

TEST(timestamp_with_time_and_milliseconds)
{
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 12:34:56", "00000176bdf19980");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 12:34:56.789", "00000176bdf19c95");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01T12:34:56.789", "00000176bdf19c95");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 00:00", "00000176bb3e7000");
    done();
}

TEST(timestamp_zones_rfc822_iso_and_names)
{
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 00:00:00+0000", "00000176bb3e7000");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 01:00:00+01:00", "00000176bb3e7000");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01T00:00:00Z", "00000176bb3e7000");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 01:00 +0100", "00000176bb3e7000");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 00:00:00.000 UTC", "00000176bb3e7000");
    ASSERT_FS(ty(ENG_TIMESTAMP), "2020-12-31T23:00:00.000-01", "00000176bb3e7000");
    done();
}

TEST(timestamp_integer_string_is_milliseconds)
{
    ASSERT_FS(ty(ENG_TIMESTAMP), "1000", "00000000000003e8");
    ASSERT_FS(ty(ENG_TIMESTAMP), "-1", "ffffffffffffffff");
    ASSERT_FS_ERR(ty(ENG_TIMESTAMP), "99999999999999999999",
                  "Unable to make long (for date) from: '99999999999999999999'");
    done();
}

TEST(timestamp_refuses_what_a_strict_calendar_refuses)
{
    ASSERT_FS_ERR(ty(ENG_TIMESTAMP), "foo", "Unable to coerce 'foo' to a formatted date (long)");
    ASSERT_FS_ERR(ty(ENG_TIMESTAMP), "2021-02-30",
                  "Unable to coerce '2021-02-30' to a formatted date (long)");
    ASSERT_FS_ERR(ty(ENG_TIMESTAMP), "2021-01-01 24:00",
                  "Unable to coerce '2021-01-01 24:00' to a formatted date (long)");
    /* SSS is a millisecond count: microseconds are 123456 ms, out of range */
    ASSERT_FS_ERR(ty(ENG_TIMESTAMP), "2021-01-01 00:00:00.123456",
                  "Unable to coerce '2021-01-01 00:00:00.123456' to a formatted date (long)");
    /* the ten days of the Gregorian switch do not exist */
    ASSERT_FS_ERR(ty(ENG_TIMESTAMP), "1582-10-10",
                  "Unable to coerce '1582-10-10' to a formatted date (long)");
    done();
}

TEST(timestamp_fraction_is_a_millisecond_count)
{
    /* FastDateParser reads SSS as a number: ".5" is 5 ms, not 500 (no padding in Apache 4.0) */
    ASSERT_FS(ty(ENG_TIMESTAMP), "2021-01-01 12:34:56.5", "00000176bdf19985");
    done();
}

TEST(timestamp_before_1582_uses_the_julian_calendar)
{
    /* java.util.GregorianCalendar: Julian 1000-01-01 is day -354280 */
    ASSERT_FS(ty(ENG_TIMESTAMP), "1000-01-01", "ffffe4291a38a000");
    done();
}

TEST(timestamp_now_is_the_wall_clock)
{
    ASSERT_OK_ERR(fs(ty(ENG_TIMESTAMP), "NOW"), &err);
    ASSERT_EQ(strlen(hexbuf), 16);
    long long ms = strtoll(hexbuf, NULL, 16);
    long long now = (long long)time(NULL) * 1000;
    ASSERT(ms > now - 60000 && ms < now + 60000);
    done();
}

/* ======================================================================== */
/* fromString: dates and times                                               */
/* ======================================================================== */

TEST(date_strings_and_day_counts)
{
    /* facts §2.5 */
    ASSERT_FS(ty(ENG_DATE), "1970-01-01", "80000000");
    ASSERT_FS(ty(ENG_DATE), "1969-12-31", "7fffffff");
    ASSERT_FS(ty(ENG_DATE), "2147483648", "80000000");
    done();
}

TEST(date_raw_day_count_must_be_unsigned_32_bits)
{
    ASSERT_FS_ERR(ty(ENG_DATE), "-1", "Unable to make unsigned int (for date) from: '-1'");
    ASSERT_FS_ERR(ty(ENG_DATE), "4294967296",
                  "Unable to make unsigned int (for date) from: '4294967296'");
    done();
}

TEST(date_strings_are_strict_iso)
{
    ASSERT_FS_ERR(ty(ENG_DATE), "2021-02-29",
                  "Unable to coerce '2021-02-29' to a formatted date (long)");
    ASSERT_FS_ERR(ty(ENG_DATE), "2021-1-1",
                  "Unable to coerce '2021-1-1' to a formatted date (long)");
    ASSERT_FS_ERR(ty(ENG_DATE), "", "Unable to coerce '' to a formatted date (long)");
    /* a year beyond four digits needs its sign, '+2021' has one too many */
    ASSERT_FS_ERR(ty(ENG_DATE), "12345-01-01",
                  "Unable to coerce '12345-01-01' to a formatted date (long)");
    ASSERT_FS_ERR(ty(ENG_DATE), "+2021-01-01",
                  "Unable to coerce '+2021-01-01' to a formatted date (long)");
    done();
}

TEST(date_negative_years_are_proleptic)
{
    /* 0001-01-01 is day -719162; years 0 (leap) and -1 precede it */
    ASSERT_FS(ty(ENG_DATE), "-0001-01-01", "7ff503eb");
    done();
}

TEST(date_beyond_the_supported_range)
{
    ASSERT_FS_ERR(ty(ENG_DATE), "+5881580-07-12",
                  "Input date +5881580-07-12 is greater than max supported date "
                  "+5881580-07-11T00:00Z");
    ASSERT_FS_ERR(
        ty(ENG_DATE), "-5877641-06-22",
        "Input date -5877641-06-22 is less than min supported date -5877641-06-23T00:00Z");
    done();
}

TEST(time_strings_with_fractions_and_nanosecond_counts)
{
    ASSERT_FS(ty(ENG_TIME), "08:12:54.123", "00001ae5c31890c0");
    ASSERT_FS(ty(ENG_TIME), "08:12:54.123456789", "00001ae5c31f8915");
    ASSERT_FS(ty(ENG_TIME), "00:00:01", "000000003b9aca00");
    ASSERT_FS(ty(ENG_TIME), "23:59:59.999999999", "00004e94914effff");
    ASSERT_FS(ty(ENG_TIME), "100", "0000000000000064");
    done();
}

TEST(time_errors)
{
    ASSERT_FS_ERR(ty(ENG_TIME), "24:00:00",
                  "(TimeType) Unable to coerce '24:00:00' to a formatted time (long)");
    ASSERT_FS_ERR(ty(ENG_TIME), "08:12:54.1234567890",
                  "(TimeType) Unable to coerce '08:12:54.1234567890' to a formatted time (long)");
    ASSERT_FS_ERR(ty(ENG_TIME), "86400000000000",
                  "Unable to make long (for time) from: '86400000000000'");
    done();
}

/* ======================================================================== */
/* fromString: uuid, timeuuid, inet                                          */
/* ======================================================================== */

TEST(uuid_text_errors)
{
    ASSERT_FS_ERR(ty(ENG_TIMEUUID), "now", "Unknown timeuuid representation: now");
    ASSERT_FS_ERR(ty(ENG_UUID), "00000000-0000-0000-zzzz-000000000000",
                  "Unable to make UUID from '00000000-0000-0000-zzzz-000000000000'");
    done();
}

TEST(inet_from_ipv4_and_ipv6_text)
{
    ASSERT_FS(ty(ENG_INET), "::1", "00000000000000000000000000000001");
    /* Java makes an IPv4-mapped address an Inet4Address, and reads short IPv4 forms */
    ASSERT_FS(ty(ENG_INET), "::ffff:1.2.3.4", "01020304");
    ASSERT_FS(ty(ENG_INET), "1.2.3", "01020003");
    ASSERT_FS_ERR(ty(ENG_INET), "256.1.1.1", "Unable to make inet address from '256.1.1.1'");
    ASSERT_FS_ERR(ty(ENG_INET), "foo", "Unable to make inet address from 'foo'");
    done();
}

/* ======================================================================== */
/* fromString: durations                                                     */
/* ======================================================================== */

TEST(duration_standard_units)
{
    /* facts §2.4 vectors; 1h30m computed from the vint rules */
    ASSERT_FS(ty(ENG_DURATION), "1h", "0000fc068c61714000");
    ASSERT_FS(ty(ENG_DURATION), "1h30m", "0000fc09d29229e000");
    ASSERT_FS(ty(ENG_DURATION), "1mo2d3ns", "020406");
    ASSERT_FS(ty(ENG_DURATION), "-1d", "000100");
    ASSERT_FS(ty(ENG_DURATION), "12\xc2\xb5s", "0000c05dc0");
    ASSERT_FS(ty(ENG_DURATION), "12US", "0000c05dc0");
    done();
}

TEST(duration_iso_forms)
{
    ASSERT_FS(ty(ENG_DURATION), "PT1H", "0000fc068c61714000");
    ASSERT_FS(ty(ENG_DURATION), "P1Y2M", "1c0000");
    ASSERT_FS(ty(ENG_DURATION), "P2W", "001c00");
    ASSERT_FS(ty(ENG_DURATION), "P0001-02-03T04:05:06", "1c06fc1ac003cfe800");
    done();
}

TEST(duration_errors)
{
    ASSERT_FS_ERR(ty(ENG_DURATION), "xyz", "Unable to convert 'xyz' to a duration");
    ASSERT_FS_ERR(ty(ENG_DURATION), "1h2d", "Invalid duration. The hours should be after days");
    ASSERT_FS_ERR(ty(ENG_DURATION), "1h1h",
                  "Invalid duration. The hours are specified multiple times");
    ASSERT_FS_ERR(
        ty(ENG_DURATION), "2147483648mo",
        "Invalid duration. The total number of months must be less or equal to 2147483647");
    ASSERT_FS_ERR(ty(ENG_DURATION), "P1H", "Unable to convert 'P1H' to a duration");
    done();
}

/* ======================================================================== */
/* fromString: tuples (TupleType.fromString)                                 */
/* ======================================================================== */

TEST(tuple_from_string_splits_on_unescaped_colons)
{
    /* TupleType.fromString: "\:" is a colon inside a field, "@" a null field */
    ASSERT_FS(tuple2(ENG_INT, ENG_TEXT), "1:a\\:b",
              "0000000400000001"
              "00000003613a62");
    ASSERT_FS(tuple2(ENG_INT, ENG_TEXT), "@:x",
              "ffffffff"
              "0000000178");
    done();
}

TEST(random_text_never_crashes_the_parsers)
{
    uint64_t seed = test_seed();
    static const int kinds[] = {ENG_ASCII,  ENG_BIGINT,   ENG_BLOB,     ENG_BOOLEAN,   ENG_DECIMAL,
                                ENG_DOUBLE, ENG_FLOAT,    ENG_INT,      ENG_TIMESTAMP, ENG_UUID,
                                ENG_TEXT,   ENG_VARINT,   ENG_TIMEUUID, ENG_INET,      ENG_DATE,
                                ENG_TIME,   ENG_SMALLINT, ENG_TINYINT,  ENG_DURATION};
    static const char alphabet[] = "0123456789+-.:eEPTZYMWDHSmsunµ x/'\\@";
    char text[40];
    for (int i = 0; i < 20000; i++) {
        size_t n = test_rand(&seed) % sizeof text;
        for (size_t k = 0; k < n; k++)
            text[k] = (test_rand(&seed) & 7) ? alphabet[test_rand(&seed) % (sizeof alphabet - 1)]
                                             : (char)test_rand(&seed);
        eng_type *t = eng_type_new(kinds[test_rand(&seed) % ENG_ARRAY_LEN(kinds)]);
        eng_buf b = ENG_BUF_INIT;
        eng_err_clear(&err);
        int rc = eng_text_from_string(t, text, n, &b, &err);
        ASSERT(rc == 0 || rc == ENG_E_INVALID || rc == ENG_E_SERVER);
        if (!rc && b.len) /* "" gives the empty value, which some types never validate */
            ASSERT_OK_ERR(eng_type_validate(t, b.p, b.len, &err), &err);
        eng_buf_free(&b);
        eng_type_free(t);
    }
}

/* ======================================================================== */
/* toString: numbers                                                         */
/* ======================================================================== */

TEST(cast_as_text_of_numbers_is_their_java_string)
{
    /* CastFctsTest.testNumericCastsInSelectionClause: (byte) 1, (short) 2, 3, 4L, 5.2F, 6.3,
       BigDecimal.valueOf(6.3), BigInteger.valueOf(4) cast as text */
    ASSERT_TS(ty(ENG_TINYINT), "01", "1");
    ASSERT_TS(ty(ENG_SMALLINT), "0002", "2");
    ASSERT_TS(ty(ENG_INT), "00000003", "3");
    ASSERT_TS(ty(ENG_BIGINT), "0000000000000004", "4");
    ASSERT_TS(ty(ENG_FLOAT), "40a66666", "5.2");
    ASSERT_TS(ty(ENG_DOUBLE), "4019333333333333", "6.3");
    ASSERT_TS(ty(ENG_DECIMAL), "000000013f", "6.3");
    ASSERT_TS(ty(ENG_VARINT), "04", "4");
    /* testCounterCastsInSelectionClause; testCastsWithReverseOrder: 1.0, 2.0, 6.0 as text */
    ASSERT_TS(ty(ENG_COUNTER), "0000000000000002", "2");
    ASSERT_TS(ty(ENG_DOUBLE), "3ff0000000000000", "1.0");
    ASSERT_TS(ty(ENG_DOUBLE), "4018000000000000", "6.0");
    done();
}

TEST(integers_are_signed_decimal)
{
    /* JsonTest.testToJsonFct (toJson of a number is its toString) */
    ASSERT_TS(ty(ENG_BIGINT), "ffffffe3554a3c4d", "-123123123123");
    ASSERT_TS(ty(ENG_INT), "fffe1f0d", "-123123");
    ASSERT_TS(ty(ENG_SMALLINT), "8000", "-32768");
    ASSERT_TS(ty(ENG_SMALLINT), "7fff", "32767");
    ASSERT_TS(ty(ENG_TINYINT), "80", "-128");
    ASSERT_TS(ty(ENG_BIGINT), "8000000000000000", "-9223372036854775808");
    done();
}

TEST(varint_is_biginteger_tostring)
{
    /* JsonTest.testToJsonFct; BigInteger.toString of the two's complement bytes */
    ASSERT_TS(ty(ENG_VARINT), "06acad34256e6ff3b3", "123123123123123123123");
    ASSERT_TS(ty(ENG_VARINT), "00", "0");
    ASSERT_TS(ty(ENG_VARINT), "ff7f", "-129");
    ASSERT_TS(ty(ENG_VARINT), "0080000000000000000000000000000000",
              "170141183460469231731687303715884105728");
    ASSERT_TS(ty(ENG_VARINT), "ff", "-1");
    done();
}

TEST(decimal_is_bigdecimal_tostring_not_toplainstring)
{
    /* DecimalSerializerTest.testDecimalScaleStringify: scientific beyond the plain range, so a
       small value never becomes a two-gigabyte string */
    ASSERT_TS(ty(ENG_DECIMAL), "0000000001", "1");
    ASSERT_TS(ty(ENG_DECIMAL), "00000000ff", "-1");
    ASSERT_TS(ty(ENG_DECIMAL), "8000006501", "1E+2147483547");
    ASSERT_TS(ty(ENG_DECIMAL), "80000065ff", "-1E+2147483547");
    ASSERT_TS(ty(ENG_DECIMAL), "7fffff9b01", "1E-2147483547");
    ASSERT_TS(ty(ENG_DECIMAL), "7fffff9bff", "-1E-2147483547");
    /* JsonTest.testToJsonFct: 123123.123123 and -1.23E-12 */
    ASSERT_TS(ty(ENG_DECIMAL), "000000061caab5c3b3", "123123.123123");
    ASSERT_TS(ty(ENG_DECIMAL), "0000000e85", "-1.23E-12");
    /* BigDecimal.toString: the scale shows (0.00), a negative scale is an exponent (1E+3) */
    ASSERT_TS(ty(ENG_DECIMAL), "0000000200", "0.00");
    ASSERT_TS(ty(ENG_DECIMAL), "fffffffd01", "1E+3");
    ASSERT_TS(ty(ENG_DECIMAL), "0000000701", "1E-7");
    ASSERT_TS(ty(ENG_DECIMAL), "0000000601", "0.000001");
    done();
}

TEST(floating_point_is_java_float_and_double_tostring)
{
    /* JsonTest.testToJsonFct: 123123.123123d, 123123d, 123.123f, 123123f */
    ASSERT_TS(ty(ENG_DOUBLE), "40fe0f31f84fd2a6", "123123.123123");
    ASSERT_TS(ty(ENG_DOUBLE), "40fe0f3000000000", "123123.0");
    ASSERT_TS(ty(ENG_FLOAT), "42f63efa", "123.123");
    ASSERT_TS(ty(ENG_FLOAT), "47f07980", "123123.0");
    /* Double.toString: scientific from 1e7 and below 1e-3 */
    ASSERT_TS(ty(ENG_DOUBLE), "416312d000000000", "1.0E7");
    ASSERT_TS(ty(ENG_DOUBLE), "3f1a36e2eb1c432d", "1.0E-4");
    ASSERT_TS(ty(ENG_DOUBLE), "8000000000000000", "-0.0");
    done();
}

TEST(nan_and_infinities_are_spelled_out)
{
    /* Double.toString / Float.toString: "NaN", "Infinity", "-Infinity" (CAST of a NaN double
       gives the text NaN; only JSON writes null for them) */
    ASSERT_TS(ty(ENG_DOUBLE), "7ff8000000000000", "NaN");
    ASSERT_TS(ty(ENG_DOUBLE), "fff0000000000000", "-Infinity");
    ASSERT_TS(ty(ENG_FLOAT), "7f800000", "Infinity");
    done();
}

TEST(boolean_is_true_or_false)
{
    /* CastFctsTest.testOtherTypeCastsInSelectionClause; JsonTest.testToJsonFct */
    ASSERT_TS(ty(ENG_BOOLEAN), "01", "true");
    ASSERT_TS(ty(ENG_BOOLEAN), "00", "false");
    done();
}

TEST(decimal_of_double_is_bigdecimal_valueof)
{
    /* CastFctsTest: CAST(6.3 AS decimal) is BigDecimal.valueOf(6.3), CAST(5.2F AS decimal)
       BigDecimal.valueOf(5.2F), the decimal of the float's double's Double.toString */
    eng_buf b = ENG_BUF_INIT;
    ASSERT_EQ(eng_text_decimal_of_double(6.3, &b), 0);
    to_hex(&b);
    ASSERT_STR_EQ(hexbuf, "000000013f");
    eng_buf_reset(&b);
    ASSERT_EQ(eng_text_decimal_of_double((double)5.2f, &b), 0);
    to_hex(&b);
    ASSERT_TS(ty(ENG_DECIMAL), hexbuf, "5.199999809265137");
    eng_buf_reset(&b);
    ASSERT_EQ(eng_text_decimal_of_double(1.0, &b), 0);
    to_hex(&b);
    ASSERT_STR_EQ(hexbuf, "000000010a"); /* "1.0": scale 1, unscaled 10 */
    eng_buf_reset(&b);
    ASSERT_EQ(eng_text_decimal_of_double(NAN, &b), -1); /* BigDecimal refuses NaN */
    ASSERT_EQ(b.len, 0);
    eng_buf_free(&b);
    done();
}

/* ======================================================================== */
/* toString: timestamps, dates, times                                        */
/* ======================================================================== */

TEST(timestamp_is_written_in_utc_iso_form_as_cast_does)
{
    /* CastFctsTest.testTimeCastsInSelectionClause: '2015-05-21 11:03:02+00' as text */
    ASSERT_TS(ty(ENG_TIMESTAMP), "0000014d76240670", "2015-05-21T11:03:02.000Z");
    /* JsonTest.testToJsonFct's 2014-01-01, and a millisecond before the epoch */
    ASSERT_TS(ty(ENG_TIMESTAMP), "000001434b198400", "2014-01-01T00:00:00.000Z");
    ASSERT_TS(ty(ENG_TIMESTAMP), "ffffffffffffffff", "1969-12-31T23:59:59.999Z");
    done();
}

TEST(timestamp_before_1582_is_written_in_the_julian_calendar)
{
    /* TimestampSerializer formats with SimpleDateFormat: java.util.GregorianCalendar, Julian
       before 1582-10-15; Julian 1000-01-01 is day -354280 */
    ASSERT_TS(ty(ENG_TIMESTAMP), "ffffe4291a38a000", "1000-01-01T00:00:00.000Z");
    /* the millisecond before the switch is Julian 1582-10-04 */
    ASSERT_TS(ty(ENG_TIMESTAMP), "fffff4e2f964abff", "1582-10-04T23:59:59.999Z");
    ASSERT_TS(ty(ENG_TIMESTAMP), "fffff4e2f964ac00", "1582-10-15T00:00:00.000Z");
    /* 'yyyy' is the year of the era: the day before Julian 0001-01-01 is 1 BC, written 0001 */
    ASSERT_TS(ty(ENG_TIMESTAMP), "ffffc77ce3867000", "0001-01-01T00:00:00.000Z");
    ASSERT_TS(ty(ENG_TIMESTAMP), "ffffc77cde601400", "0001-12-31T00:00:00.000Z");
    done();
}

TEST(timestamp_json_form_has_a_space)
{
    /* TimestampSerializer.getJsonDateFormatter, "yyyy-MM-dd HH:mm:ss.SSSX": JsonTest's
       "2014-01-01 00:00:00.000Z" */
    eng_buf b = ENG_BUF_INIT;
    eng_text_timestamp(1388534400000, ' ', &b);
    ASSERT_STR_EQ(eng_buf_cstr(&b), "2014-01-01 00:00:00.000Z");
    eng_buf_free(&b);
}

TEST(date_is_iso_local_date)
{
    /* CastFctsTest.testTimeCastsInSelectionClause; JsonTest.testToJsonFct (1987-03-23) */
    ASSERT_TS(ty(ENG_DATE), "800040c0", "2015-05-21");
    ASSERT_TS(ty(ENG_DATE), "80001892", "1987-03-23");
    /* SimpleDateSerializerTest's dates: the epoch, the day before, a negative year */
    ASSERT_TS(ty(ENG_DATE), "80000000", "1970-01-01");
    ASSERT_TS(ty(ENG_DATE), "7fffffff", "1969-12-31");
    ASSERT_TS(ty(ENG_DATE), "7ff503ec", "-0001-01-02");
    /* ISO_LOCAL_DATE signs a year beyond four digits; the two ends are the limits
       SimpleDateSerializer names (-5877641-06-23, +5881580-07-11) */
    ASSERT_TS(ty(ENG_DATE), "802cc0a1", "+10000-01-01");
    ASSERT_TS(ty(ENG_DATE), "00000000", "-5877641-06-23");
    ASSERT_TS(ty(ENG_DATE), "ffffffff", "+5881580-07-11");
    done();
}

TEST(time_is_nanoseconds_padded)
{
    /* CastFctsTest.testTimeCastsInSelectionClause: '11:03:02' as text */
    ASSERT_TS(ty(ENG_TIME), "0000242e77fa7c00", "11:03:02.000000000");
    /* JsonTest.testToJsonFct: 123 ns and 07:35:07.000111222 */
    ASSERT_TS(ty(ENG_TIME), "000000000000007b", "00:00:00.000000123");
    ASSERT_TS(ty(ENG_TIME), "000018d5e80aa076", "07:35:07.000111222");
    ASSERT_TS(ty(ENG_TIME), "00004e94914effff", "23:59:59.999999999");
    done();
}

/* ======================================================================== */
/* toString: uuids, inet, durations, blobs, text                             */
/* ======================================================================== */

TEST(uuids_are_lower_case)
{
    /* JsonTest.testToJsonFct: UUID.toString */
    ASSERT_TS(ty(ENG_UUID), "6BDDC89A564411E497FC56847AFE9799",
              "6bddc89a-5644-11e4-97fc-56847afe9799");
    ASSERT_TS(ty(ENG_TIMEUUID), "6bddc89a564411e497fc56847afe9799",
              "6bddc89a-5644-11e4-97fc-56847afe9799");
    done();
}

TEST(inet_is_java_host_address_not_cqlsh_form)
{
    /* CastFctsTest.testOtherTypeCastsInSelectionClause: 127.0.0.1; JsonTest.testToJsonFct:
       ::1 is 0:0:0:0:0:0:0:1 (Inet6Address.getHostAddress never compresses zeros) */
    ASSERT_TS(ty(ENG_INET), "7f000001", "127.0.0.1");
    ASSERT_TS(ty(ENG_INET), "00000000000000000000000000000001", "0:0:0:0:0:0:0:1");
    ASSERT_TS(ty(ENG_INET), "20010db8000000000000000000000001", "2001:db8:0:0:0:0:0:1");
    /* InetAddress.getByAddress makes an IPv4-mapped address an Inet4Address */
    ASSERT_TS(ty(ENG_INET), "00000000000000000000ffff01020304", "1.2.3.4");
    done();
}

TEST(duration_is_duration_tostring)
{
    /* JsonTest (toJson of durations): 12us, 1y1mo2d10h5m, -1d; DurationTest: P2W is 14 days */
    ASSERT_TS(ty(ENG_DURATION), "0000c05dc0", "12us");
    ASSERT_TS(ty(ENG_DURATION), "1a04fc42078135f000", "1y1mo2d10h5m");
    ASSERT_TS(ty(ENG_DURATION), "000100", "-1d");
    ASSERT_TS(ty(ENG_DURATION), "001c00", "14d");
    ASSERT_TS(ty(ENG_DURATION), "1c06fc1ac003cfe800", "1y2mo3d4h5m6s");
    done();
}

TEST(blob_is_hex_without_prefix_and_text_is_itself)
{
    /* BytesSerializer.toString (ByteBufferUtil.bytesToHex); JsonTest writes it after "0x" */
    ASSERT_TS(ty(ENG_BLOB), "00000001", "00000001");
    ASSERT_TS(ty(ENG_BLOB), "CAFE", "cafe");
    ASSERT_TS(ty(ENG_BLOB), "", "");
    /* CastFctsTest.testOtherTypeCastsInSelectionClause: ascii 'test' as text */
    ASSERT_TS(ty(ENG_ASCII), "74657374", "test");
    ASSERT_TS(ty(ENG_TEXT), "e890a2", "\xe8\x90\xa2");
    done();
}

TEST(empty_value_is_the_empty_string)
{
    /* TypeSerializer.toString(null) is "" for the types whose empty value deserializes to null */
    ASSERT_TS(ty(ENG_INT), "", "");
    ASSERT_TS(ty(ENG_DECIMAL), "", "");
    ASSERT_TS(ty(ENG_TIMESTAMP), "", "");
    done();
}

TEST(invalid_values_and_collections_have_no_text)
{
    /* the MarshalException of the value's validation */
    ASSERT_EQ(ts(ty(ENG_INT), "000001"), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Expected 4 or 0 byte int (3)");
    ASSERT_EQ(ts(ty(ENG_INET), "0102"), ENG_E_INVALID);
    eng_type *l = keep(eng_type_new_list(eng_type_new(ENG_INT), 0));
    ASSERT_EQ(ts(l, "00000000"), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "list<int> values have no text form");
    done();
}

/* ======================================================================== */
/* fromString and toString are inverse                                       */
/* ======================================================================== */

/* A random valid value of a scalar type, in the form fromString gives (minimal varints,
   same-sign durations, no NaN payloads, timestamps in years 1000..9999 of the era). */
static size_t random_value(int kind, uint64_t *seed, uint8_t *b)
{
    uint64_t r = test_rand(seed);
    size_t n;
    switch (kind) {
    case ENG_BOOLEAN:
        b[0] = (uint8_t)(r & 1);
        return 1;
    case ENG_FLOAT:
    case ENG_DOUBLE:
        n = kind == ENG_FLOAT ? 4 : 8;
        do
            eng_put_be64(b, test_rand(seed));
        while (kind == ENG_FLOAT ? (b[0] & 0x7f) == 0x7f && (b[1] & 0x80)
                                 : (b[0] & 0x7f) == 0x7f && (b[1] & 0xf0) == 0xf0);
        return n;
    case ENG_TIMESTAMP: {
        int64_t lo = -30610224000000LL, hi = 253402300799999LL; /* 1000-01-01 .. 9999-12-31 */
        eng_put_be64(b, (uint64_t)(lo + (int64_t)(r % (uint64_t)(hi - lo))));
        return 8;
    }
    case ENG_TIME:
        eng_put_be64(b, r % 86400000000000ULL);
        return 8;
    case ENG_DURATION: {
        int64_t sign = (r & 1) ? -1 : 1;
        int64_t months = (int64_t)(test_rand(seed) % 2147483647u) * sign;
        int64_t days = (int64_t)(test_rand(seed) % 2147483647u) * sign;
        int64_t nanos = (int64_t)(test_rand(seed) >> 2) * sign;
        if (r & 6) /* often a smaller duration, where parts are zero */
            months = (r & 2) ? 0 : months, days = (r & 4) ? 0 : days;
        if (!months && !days && !nanos) /* Duration.toString of zero is "", fromString's empty */
            nanos = 1;
        eng_buf d = ENG_BUF_INIT;
        eng_buf_put_vint(&d, months);
        eng_buf_put_vint(&d, days);
        eng_buf_put_vint(&d, nanos);
        memcpy(b, d.p, d.len);
        n = d.len;
        eng_buf_free(&d);
        return n;
    }
    case ENG_TEXT:
    case ENG_ASCII:
        n = r % 12;
        for (size_t i = 0; i < n; i++)
            b[i] = (uint8_t)(0x20 + test_rand(seed) % 0x5f);
        if (kind == ENG_TEXT && n >= 2 && (r & 0x100)) { /* an é */
            b[0] = 0xc3;
            b[1] = 0xa9;
        }
        return n;
    case ENG_VARINT:
    case ENG_DECIMAL: {
        size_t at = kind == ENG_DECIMAL ? 4 : 0;
        if (at)
            eng_put_be32(b, (uint32_t)test_rand(seed));
        n = 1 + r % 20;
        for (size_t i = 0; i < n; i++)
            b[at + i] = (uint8_t)test_rand(seed);
        size_t s = at; /* drop the sign bytes BigInteger.toByteArray would not write */
        while (n - (s - at) > 1 &&
               ((b[s] == 0 && !(b[s + 1] & 0x80)) || (b[s] == 0xff && (b[s + 1] & 0x80))))
            s++;
        memmove(b + at, b + s, n - (s - at));
        return at + n - (s - at);
    }
    case ENG_INET:
        n = (r & 1) ? 4 : 16;
        for (size_t i = 0; i < n; i++)
            b[i] = (uint8_t)test_rand(seed);
        if (n == 16)
            b[0] |= 1; /* never IPv4-mapped, which reads back as 4 bytes */
        return n;
    case ENG_BLOB:
        n = r % 20;
        for (size_t i = 0; i < n; i++)
            b[i] = (uint8_t)test_rand(seed);
        return n;
    default: { /* fixed widths: integers, counter, date, uuids */
        static const struct {
            int kind;
            size_t n;
        } widths[] = {{ENG_TINYINT, 1}, {ENG_SMALLINT, 2}, {ENG_INT, 4},   {ENG_BIGINT, 8},
                      {ENG_COUNTER, 8}, {ENG_DATE, 4},     {ENG_UUID, 16}, {ENG_TIMEUUID, 16}};
        n = 0;
        for (size_t i = 0; i < ENG_ARRAY_LEN(widths); i++)
            if (widths[i].kind == kind)
                n = widths[i].n;
        for (size_t i = 0; i < n; i++)
            b[i] = (uint8_t)test_rand(seed);
        if (kind == ENG_TIMEUUID)
            b[6] = (uint8_t)(0x10 | (b[6] & 0x0f));
        return n;
    }
    }
}

TEST(from_string_reads_back_what_to_string_writes)
{
    /* AbstractType.fromString(getString(v)) == v for every scalar type */
    uint64_t seed = test_seed();
    static const int kinds[] = {ENG_ASCII,   ENG_BIGINT, ENG_BLOB,     ENG_BOOLEAN,  ENG_COUNTER,
                                ENG_DECIMAL, ENG_DOUBLE, ENG_FLOAT,    ENG_INT,      ENG_TIMESTAMP,
                                ENG_UUID,    ENG_TEXT,   ENG_VARINT,   ENG_TIMEUUID, ENG_INET,
                                ENG_DATE,    ENG_TIME,   ENG_SMALLINT, ENG_TINYINT,  ENG_DURATION};
    for (int i = 0; i < 20000; i++) {
        int kind = kinds[test_rand(&seed) % ENG_ARRAY_LEN(kinds)];
        eng_type *t = eng_type_new(kind);
        uint8_t v[64];
        size_t n = random_value(kind, &seed, v);
        eng_buf s = ENG_BUF_INIT, back = ENG_BUF_INIT;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_text_to_string(t, v, n, &s, &err), &err);
        ASSERT_OK_ERR(eng_text_from_string(t, (const char *)s.p, s.len, &back, &err), &err);
        if (back.len != n || (n && memcmp(back.p, v, n))) {
            to_hex(&back);
            test_fail(__FILE__, __LINE__, "%s: \"%.*s\" reads back as %s", eng_kind_name(kind),
                      (int)s.len, (const char *)s.p, hexbuf);
        }
        eng_buf_free(&s);
        eng_buf_free(&back);
        eng_type_free(t);
    }
}

/* Every allocation failing in turn: an error code, never a crash or a leak. */
TEST(allocation_failures_are_reported)
{
    static const struct {
        int kind;
        const char *hex;
    } vals[] = {
        {ENG_VARINT, "0080000000000000000000000000000000"},
        {ENG_DECIMAL, "fffffffd0080000000000000000000000000000000"},
        {ENG_LIST, "00000000"},
    };
    for (size_t k = 0; k < ENG_ARRAY_LEN(vals); k++) {
        uint8_t b[64];
        size_t n = unhex(vals[k].hex, b);
        eng_type *t = vals[k].kind == ENG_LIST ? keep(eng_type_new_list(eng_type_new(ENG_INT), 0))
                                               : ty(vals[k].kind);
        for (long fail = 0; fail < 50; fail++) {
            eng_buf o = ENG_BUF_INIT;
            eng_err_clear(&err);
            eng_alloc_fail_after(fail);
            int rc = eng_text_to_string(t, b, n, &o, &err);
            eng_alloc_fail_after(-1);
            ASSERT(rc == 0 || rc == ENG_E_NOMEM ||
                   (vals[k].kind == ENG_LIST && rc == ENG_E_INVALID));
            eng_buf_free(&o);
            if (rc != ENG_E_NOMEM)
                break;
        }
    }
    done();
}

/* ======================================================================== */
/* UTF-8 as Java's strict decoder reads it                                   */
/* ======================================================================== */

/* Offset and "Input length" of the first malformed sequence, as sun.nio.cs.UTF_8.Decoder
   reports them (malformedN; a sequence the input cuts short is as long as what is left). */
static size_t malformed(const char *s, size_t *at)
{
    size_t n = 0;
    *at = (size_t)-1;
    if (!eng_text_utf8_malformed((const uint8_t *)s, strlen(s), at, &n))
        return 0;
    return n;
}

TEST(utf8_malformed_lengths_follow_javas_decoder)
{
    size_t at;
    ASSERT_EQ(malformed("abc \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", &at), 0);
    ASSERT_EQ(malformed("\x80", &at), 1);
    ASSERT_EQ(at, 0);
    ASSERT_EQ(malformed("ab\xc3", &at), 1); /* cut short: one byte left */
    ASSERT_EQ(at, 2);
    ASSERT_EQ(malformed("\xc0\x80", &at), 1);     /* modified UTF-8's NUL is no UTF-8 */
    ASSERT_EQ(malformed("\xe0\x80\x80", &at), 1); /* overlong */
    ASSERT_EQ(malformed("\xed\xa0\x80", &at), 3); /* a surrogate */
    ASSERT_EQ(malformed("\xe2\x28\xa1", &at), 1);
    ASSERT_EQ(malformed("\xe2\x82\x28", &at), 2);
    ASSERT_EQ(malformed("x\xe2\x82", &at), 2); /* cut short: two bytes left */
    ASSERT_EQ(at, 1);
    ASSERT_EQ(malformed("\xf0\x9f\x98", &at), 3);
    ASSERT_EQ(malformed("\xf0\x9f\x28\x80", &at), 2);
    ASSERT_EQ(malformed("\xf0\x9f\x98\x28", &at), 3);
    ASSERT_EQ(malformed("\xf4\x90\x80\x80", &at), 1); /* past U+10FFFF */
    ASSERT_EQ(malformed("\xf5\x80\x80\x80", &at), 1);
}
