/*
 * CAST(x AS type) in selections, with Cassandra's conversions (CastFcts):
 * numbers convert into each other as Java narrowing and widening do (a
 * float cast to int truncates towards zero), anything castable to text
 * becomes its serializer's text, eng_text_to_string (3 -> "3", 3.0 ->
 * "3.0", a timestamp -> "2015-05-21T11:03:02.000Z"), timestamps, dates and
 * time UUIDs convert into one another by their instant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cql/exec/exec_int.h"
#include "cql/exec/literal.h"

static int is_number(int k)
{
    return k == ENG_TINYINT || k == ENG_SMALLINT || k == ENG_INT || k == ENG_BIGINT ||
           k == ENG_FLOAT || k == ENG_DOUBLE || k == ENG_DECIMAL || k == ENG_VARINT ||
           k == ENG_COUNTER;
}

static int is_text(int k) { return k == ENG_TEXT || k == ENG_ASCII; }

/* Conversions CastFcts defines (a cast to the same type is always allowed). */
int cql_cast_allowed(int from, int to)
{
    if (from == to)
        return 1;
    if (is_number(from) && is_number(to) && to != ENG_COUNTER)
        return 1;
    if (is_text(to))
        return from != ENG_BLOB && from < ENG_LIST;
    switch (to) {
    case ENG_DATE:
        return from == ENG_TIMESTAMP || from == ENG_TIMEUUID;
    case ENG_TIMESTAMP:
        return from == ENG_DATE || from == ENG_TIMEUUID;
    default:
        return 0;
    }
}

/* The decimal digits of a decimal's unscaled value or of a varint, with '-'; NULL when out
   of memory. The caller frees buf. */
static const char *number_digits(int kind, const uint8_t *p, size_t len, eng_buf *buf)
{
    if (kind == ENG_DECIMAL)
        eng_text_decimal(p, len, buf);
    else
        eng_text_varint(p, len, buf);
    return eng_buf_cstr(buf);
}

/* Number.doubleValue, and floatValue when is_float: BigDecimal's and BigInteger's are the
   correctly rounded value of the number (Float.parseFloat of its text, as strtof gives it:
   rounding to double first could round twice), Infinity beyond the range. */
static double to_floating(int kind, const uint8_t *p, size_t len, int is_float)
{
    switch (kind) {
    case ENG_FLOAT: {
        uint32_t u = eng_be32(p);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case ENG_DOUBLE: {
        uint64_t u = eng_be64(p);
        double d;
        memcpy(&d, &u, 8);
        return is_float ? (float)d : d;
    }
    case ENG_DECIMAL:
    case ENG_VARINT: {
        eng_buf text = ENG_BUF_INIT;
        const char *t = number_digits(kind, p, len, &text);
        double v = !t ? 0 : is_float ? strtof(t, NULL) : strtod(t, NULL);
        eng_buf_free(&text);
        return v;
    }
    default: {
        int64_t n = len ? (int8_t)p[0] : 0;
        for (size_t i = 1; i < len; i++)
            n = (int64_t)((uint64_t)n << 8 | p[i]);
        return is_float ? (float)n : (double)n; /* rounded once, as Java's (float) of a long */
    }
    }
}

static double to_double(int kind, const uint8_t *p, size_t len)
{
    return to_floating(kind, p, len, 0);
}

/* The low 64 bits of a decimal's integer part (BigDecimal.longValue): the fraction is
   dropped towards zero, and the integer is reduced modulo 2^64 as its digits are read,
   so no exponent, however large, is ever expanded. */
static int64_t decimal_long_value(const uint8_t *p, size_t len)
{
    if (len < 4)
        return 0;
    int32_t scale = (int32_t)eng_be32(p);
    if (scale <= -64)
        return 0; /* 10^64 = 2^64 * 5^64: every such integer is 0 modulo 2^64 */
    eng_buf text = ENG_BUF_INIT;
    const char *t = number_digits(ENG_VARINT, p + 4, len - 4, &text);
    uint64_t v = 0;
    int negative = t && t[0] == '-';
    if (t) {
        const char *digits = t + negative;
        size_t n = strlen(digits);
        size_t keep = scale <= 0 ? n : (uint64_t)scale >= n ? 0 : n - (size_t)scale;
        for (size_t i = 0; i < keep; i++)
            v = v * 10 + (uint64_t)(digits[i] - '0');
        for (int32_t i = 0; i < -scale; i++)
            v *= 10;
    }
    eng_buf_free(&text);
    return (int64_t)(negative ? 0 - v : v);
}

/* Java's (long) of a floating value: towards zero, NaN 0, saturated at the range. */
static int64_t floating_to_long(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 9.2233720368547758e18)
        return INT64_MAX;
    if (d <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)d;
}

/* Number.longValue of each type. */
static int64_t to_long(int kind, const uint8_t *p, size_t len)
{
    if (kind == ENG_FLOAT || kind == ENG_DOUBLE)
        return floating_to_long(to_double(kind, p, len));
    if (kind == ENG_DECIMAL)
        return decimal_long_value(p, len);
    /* integers sign-extend; a varint keeps its low 64 bits (BigInteger.longValue) */
    size_t from = kind == ENG_VARINT && len > 8 ? len - 8 : 0;
    int64_t n = len ? (int8_t)p[from] : 0;
    for (size_t i = from + 1; i < len; i++)
        n = (int64_t)((uint64_t)n << 8 | p[i]);
    return n;
}

/* Number.intValue: Java's (int) of a float or double saturates at the int range; every
   other type keeps the low 32 bits of its longValue. shortValue and byteValue are the
   low 16 and 8 bits of intValue for every type (JLS 5.1.3: a floating value narrows to
   short or byte through int). */
static int32_t to_int(int kind, const uint8_t *p, size_t len)
{
    if (kind == ENG_FLOAT || kind == ENG_DOUBLE) {
        double d = to_double(kind, p, len);
        if (isnan(d))
            return 0;
        if (d >= 2147483647.0)
            return INT32_MAX;
        if (d <= -2147483648.0)
            return INT32_MIN;
        return (int32_t)d;
    }
    return (int32_t)(uint32_t)(uint64_t)to_long(kind, p, len);
}

static void put_int(eng_buf *out, int64_t n, int width)
{
    for (int b = width - 1; b >= 0; b--)
        eng_buf_put_u8(out, (uint8_t)((uint64_t)n >> (8 * b)));
}

static void put_varint(eng_buf *out, int64_t n)
{
    uint8_t b[8];
    eng_put_be64(b, (uint64_t)n);
    int i = 0;
    while (i < 7 && ((b[i] == 0 && !(b[i + 1] & 0x80)) || (b[i] == 0xFF && (b[i + 1] & 0x80))))
        i++;
    eng_buf_put(out, b + i, (size_t)(8 - i));
}

/* CastFcts's numeric conversions: the Number methods of the source's Java type; to decimal
   BigDecimal.valueOf(doubleValue()), to varint BigInteger.valueOf(longValue()). */
static int number_to_number(int from, const uint8_t *p, size_t len, int to, eng_buf *out,
                            eng_err *err)
{
    switch (to) {
    case ENG_TINYINT:
        put_int(out, to_int(from, p, len), 1);
        return 0;
    case ENG_SMALLINT:
        put_int(out, to_int(from, p, len), 2);
        return 0;
    case ENG_INT:
        put_int(out, to_int(from, p, len), 4);
        return 0;
    case ENG_BIGINT:
        put_int(out, to_long(from, p, len), 8);
        return 0;
    case ENG_FLOAT: {
        float f = (float)to_floating(from, p, len, 1);
        uint32_t u;
        memcpy(&u, &f, 4);
        eng_buf_put_be32(out, u);
        return 0;
    }
    case ENG_DOUBLE: {
        double d = to_double(from, p, len);
        uint64_t u;
        memcpy(&u, &d, 8);
        eng_buf_put_be64(out, u);
        return 0;
    }
    case ENG_DECIMAL: {
        double d = to_double(from, p, len);
        if (!isfinite(d)) /* BigDecimal.valueOf throws, and Cassandra answers a server error */
            return eng_errorf(err, ENG_E_SERVER, "java.lang.NumberFormatException: Infinite or NaN");
        if (eng_text_decimal_of_double(d, out))
            return eng_errorf(err, ENG_E_NOMEM, "out of memory");
        return 0;
    }
    case ENG_VARINT:
        put_varint(out, to_long(from, p, len));
        return 0;
    }
    return eng_errorf(err, ENG_E_INVALID, "bad cast");
}

/* Appends the value cast to `to`; v must be a non-null, non-empty value of `from`. */
int cql_cast_value(const eng_type *from, eng_val v, int to, eng_buf *out, eng_err *err)
{
    int k = from->kind;
    const uint8_t *p = v.p;
    size_t len = (size_t)v.len;
    if (k == to) {
        eng_buf_put(out, p, len);
        return 0;
    }
    if (is_number(k) && is_number(to))
        return number_to_number(k, p, len, to, out, err);
    if (is_text(to)) /* CastAsTextFunction: the serializer's text (toCQLLiteral) */
        return eng_text_to_string(from, p, len, out, err);
    int64_t ms;
    if (k == ENG_TIMESTAMP)
        ms = (int64_t)eng_be64(p);
    else if (k == ENG_DATE)
        ms = ((int64_t)eng_be32(p) - ((int64_t)1 << 31)) * 86400000;
    else if (k == ENG_TIMEUUID)
        ms = eng_timeuuid_unix_ms(p);
    else
        return eng_errorf(err, ENG_E_INVALID, "bad cast");
    if (to == ENG_TIMESTAMP) {
        eng_buf_put_be64(out, (uint64_t)ms);
        return 0;
    }
    int64_t days = ms / 86400000 - (ms % 86400000 < 0);
    uint32_t date;
    int rc = eng_text_date_of_days(days, NULL, 0, &date, err);
    if (rc)
        return rc;
    eng_buf_put_be32(out, date);
    return 0;
}
