/*
 * The text forms of the types (engine/value/text.c): AbstractType.fromString
 * with Java's grammars. Expectations come from Cassandra's sources and tests
 * (Int32Type, IntegerType, DecimalType, TimestampSerializer,
 * SimpleDateSerializer, TimeSerializer, Duration, TupleType); byte strings
 * were computed from the encoding rules (facts §2), not from this code.
 */
#include "engine/value/text.h"
#include "harness.h"

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
