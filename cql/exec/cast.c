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

static double to_double(int kind, const uint8_t *p, size_t len)
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
        return d;
    }
    case ENG_DECIMAL:
    case ENG_VARINT: {
        /* BigDecimal / BigInteger.doubleValue: the correctly rounded double of the number, as
           Double.parseDouble of its toString gives it (and strtod does) */
        eng_buf digits = ENG_BUF_INIT;
        if (kind == ENG_DECIMAL)
            eng_text_decimal(p, len, &digits);
        else
            eng_text_varint(p, len, &digits);
        double v = eng_buf_cstr(&digits) ? strtod((char *)digits.p, NULL) : 0;
        eng_buf_free(&digits);
        return v;
    }
    default: {
        int64_t n = len ? (int8_t)p[0] : 0;
        for (size_t i = 1; i < len; i++)
            n = (int64_t)((uint64_t)n << 8 | p[i]);
        return (double)n;
    }
    }
}

static int64_t to_long(int kind, const uint8_t *p, size_t len)
{
    if (kind == ENG_FLOAT || kind == ENG_DOUBLE || kind == ENG_DECIMAL) {
        double d = to_double(kind, p, len);
        if (isnan(d))
            return 0;
        if (d >= 9.2233720368547758e18)
            return INT64_MAX;
        if (d <= -9.2233720368547758e18)
            return INT64_MIN;
        return (int64_t)d; /* Java's (long) truncates towards zero */
    }
    int64_t n = len ? (int8_t)p[0] : 0;
    for (size_t i = 1; i < len && i < 8; i++)
        n = (int64_t)((uint64_t)n << 8 | p[i]);
    if (kind == ENG_VARINT && len > 8) {
        n = 0; /* BigInteger.longValue keeps the low 64 bits */
        for (size_t i = len - 8; i < len; i++)
            n = (int64_t)((uint64_t)n << 8 | p[i]);
    }
    return n;
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

static int number_to_number(int from, const uint8_t *p, size_t len, int to, eng_buf *out)
{
    switch (to) {
    case ENG_TINYINT:
        put_int(out, to_long(from, p, len), 1);
        return 0;
    case ENG_SMALLINT:
        put_int(out, to_long(from, p, len), 2);
        return 0;
    case ENG_INT:
        put_int(out, to_long(from, p, len), 4);
        return 0;
    case ENG_BIGINT:
        put_int(out, to_long(from, p, len), 8);
        return 0;
    case ENG_FLOAT: {
        float f = (float)to_double(from, p, len);
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
    case ENG_DECIMAL:
        if (from == ENG_FLOAT || from == ENG_DOUBLE) {
            eng_text_decimal_of_double(to_double(from, p, len), out);
        } else if (from == ENG_VARINT) {
            eng_buf_put_be32(out, 0);
            eng_buf_put(out, p, len);
        } else {
            eng_buf_put_be32(out, 0);
            put_varint(out, to_long(from, p, len));
        }
        return 0;
    case ENG_VARINT:
        if (from == ENG_DECIMAL || from == ENG_FLOAT || from == ENG_DOUBLE)
            put_varint(out, to_long(from, p, len));
        else
            put_varint(out, to_long(from, p, len));
        return 0;
    }
    return -1;
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
        return number_to_number(k, p, len, to, out) ? eng_errorf(err, ENG_E_INVALID, "bad cast")
                                                     : 0;
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
    eng_buf_put_be32(out, (uint32_t)(days + ((int64_t)1 << 31)));
    return 0;
}
