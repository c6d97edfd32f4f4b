/*
 * The text form of every CQL type (text.h): AbstractType.fromString with
 * Java's number grammars (Integer.parseInt, BigInteger, BigDecimal,
 * Double.valueOf), the timestamp patterns of TimestampSerializer as
 * commons-lang3's parseDateStrictly reads them (with the Julian calendar
 * before 1582-10-15, as java.util.GregorianCalendar), ISO dates
 * (SimpleDateSerializer), times (TimeSerializer), durations (cql3/Duration),
 * uuids and inet addresses; and the way back, TypeSerializer.toString per
 * type: Java's number formatting, SimpleDateFormat's hybrid calendar for
 * timestamps, ISO dates, TimeSerializer's times, getHostAddress and
 * Duration.toString.
 *
 * Every parser takes explicit lengths and never reads past them.
 */
#include "engine/value/text.h"
#include "engine/value/types_int.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static int nomem(eng_err *err)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory");
}

static void shortest_digits(double v, int is_float, char *digits, int *nd, int *exp10);

/* Messages quote user text with %.*s: an int is enough for any message we keep. */
static int clen(size_t len)
{
    return len > 4096 ? 4096 : (int)len;
}

/* ------------------------------------------------------------------------ */
/* Java integers: Integer.parseInt, Long.parseLong, ... and BigInteger       */
/* ------------------------------------------------------------------------ */

/* An optional sign then ASCII digits, within [min, max]; 0 or -1. */
int eng_text_parse_java_int(const char *s, size_t len, int64_t min, int64_t max, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (len == 0)
        return -1;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        if (len == 1)
            return -1;
        i = 1;
    }
    uint64_t lim = neg ? (uint64_t)(-(min + 1)) + 1 : (uint64_t)max, v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (lim < d || v > (lim - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Magnitudes: little-endian base-2^32 limbs. */
typedef struct mag {
    uint32_t *m;
    size_t n;
} mag;

static int mag_from_digits(const char *d, size_t nd, mag *out)
{
    size_t cap = nd / 9 + 2;
    out->m = eng_calloc(cap, sizeof *out->m);
    out->n = 0;
    if (!out->m)
        return -1;
    for (size_t i = 0; i < nd;) {
        uint32_t chunk = 0, mul = 1;
        for (size_t k = 0; k < 9 && i < nd; k++, i++) {
            chunk = chunk * 10 + (uint32_t)(d[i] - '0');
            mul *= 10;
        }
        uint64_t carry = chunk;
        for (size_t j = 0; j < out->n; j++) {
            uint64_t v = (uint64_t)out->m[j] * mul + carry;
            out->m[j] = (uint32_t)v;
            carry = v >> 32;
        }
        if (carry && out->n < cap)
            out->m[out->n++] = (uint32_t)carry;
    }
    return 0;
}

static uint8_t mag_byte(const mag *g, size_t i) /* i-th byte from the least significant */
{
    return i / 4 < g->n ? (uint8_t)(g->m[i / 4] >> (8 * (i % 4))) : 0;
}

/* BigInteger.toByteArray: the shortest big-endian two's complement (0 is one zero byte). */
static void mag_put_twos(const mag *g, int neg, eng_buf *out)
{
    size_t nb = g->n * 4;
    while (nb > 0 && mag_byte(g, nb - 1) == 0)
        nb--;
    if (nb == 0) {
        eng_buf_put_u8(out, 0);
        return;
    }
    if (!neg) {
        if (mag_byte(g, nb - 1) & 0x80)
            eng_buf_put_u8(out, 0);
        for (size_t i = nb; i-- > 0;)
            eng_buf_put_u8(out, mag_byte(g, i));
        return;
    }
    /* two's complement over nb bytes, written one byte further in, then the sign byte if needed */
    if (eng_buf_reserve(out, nb + 1))
        return;
    uint8_t *dst = out->p + out->len;
    unsigned carry = 1;
    for (size_t i = 0; i < nb; i++) {
        unsigned v = (unsigned)(uint8_t)~mag_byte(g, i) + carry;
        dst[nb - i] = (uint8_t)v;
        carry = v >> 8;
    }
    if (dst[1] & 0x80) {
        memmove(dst, dst + 1, nb);
        out->len += nb;
    } else {
        dst[0] = 0xFF;
        out->len += nb + 1;
    }
}

/* Serialized integer from an optional sign and >= 1 ASCII digits (already checked). */
static int put_bigint(const char *digits, size_t nd, int neg, eng_buf *out)
{
    mag g;
    if (mag_from_digits(digits, nd, &g))
        return -1;
    mag_put_twos(&g, neg, out);
    eng_free(g.m);
    return out->oom ? -1 : 0;
}

static int all_digits(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return len > 0;
}

/* new BigInteger(s): an optional sign, then digits. 0, -1 (syntax) or ENG_E_NOMEM. */
static int parse_varint(const char *s, size_t len, eng_buf *out)
{
    size_t i = (len && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (!all_digits(s + i, len - i))
        return -1;
    return put_bigint(s + i, len - i, i && s[0] == '-', out) ? ENG_E_NOMEM : 0;
}

/*
 * new BigDecimal(s): sign, digits with at most one point (at least one
 * digit), optional exponent; scale = fraction digits - exponent must fit an
 * int. Serialized as the int scale then the unscaled varint.
 */
static int parse_decimal(const char *s, size_t len, eng_buf *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    char small[128];
    char *digits = len <= sizeof small ? small : eng_malloc(len);
    if (!digits)
        return ENG_E_NOMEM;
    size_t nd = 0;
    int64_t frac = 0, exp = 0;
    int dot = 0, rc = -1;
    for (; i < len && ((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && !dot)); i++) {
        if (s[i] == '.') {
            dot = 1;
            continue;
        }
        digits[nd++] = s[i];
        frac += dot;
    }
    if (nd == 0)
        goto done;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            eneg = s[i++] == '-';
        if (!all_digits(s + i, len - i))
            goto done;
        for (; i < len; i++)
            if (exp < ((int64_t)1 << 40))
                exp = exp * 10 + (s[i] - '0');
        exp = eneg ? -exp : exp;
    }
    int64_t scale = frac - exp;
    if (i != len || scale < INT32_MIN || scale > INT32_MAX)
        goto done;
    eng_buf_put_be32(out, (uint32_t)(int32_t)scale);
    rc = put_bigint(digits, nd, neg, out) ? ENG_E_NOMEM : 0;
done:
    if (digits != small)
        eng_free(digits);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Java floating point: Double.valueOf / Float.parseFloat                    */
/* ------------------------------------------------------------------------ */

static size_t scan_digits(const char *s, size_t i, size_t len, int hex)
{
    while (i < len && ((s[i] >= '0' && s[i] <= '9') ||
                       (hex && ((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))))
        i++;
    return i;
}

/*
 * FloatingDecimal.readJavaFormatString's grammar after trim(): [sign]
 * NaN | Infinity | decimal [eE exp] | 0x hex [. hex] pP exp, then an
 * optional f/F/d/D. Returns the end of the number part or 0 if not valid.
 */
static size_t java_float_syntax(const char *s, size_t len, int *special)
{
    size_t i = (len && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    *special = 0;
    if (len - i == 3 && !memcmp(s + i, "NaN", 3))
        return *special = 1, len;
    if (len - i == 8 && !memcmp(s + i, "Infinity", 8))
        return *special = 2, len;
    int hex = len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    if (hex)
        i += 2;
    size_t a = i;
    i = scan_digits(s, i, len, hex);
    size_t nint = i - a, nfrac = 0;
    if (i < len && s[i] == '.') {
        size_t b = ++i;
        i = scan_digits(s, i, len, hex);
        nfrac = i - b;
    }
    if (nint + nfrac == 0)
        return 0;
    if (i < len && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'))) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t b = i;
        i = scan_digits(s, i, len, 0);
        if (i == b)
            return 0;
    } else if (hex) {
        return 0; /* Java requires the binary exponent of a hex float */
    }
    size_t end = i;
    if (i < len && (s[i] == 'f' || s[i] == 'F' || s[i] == 'd' || s[i] == 'D'))
        i++;
    return i == len ? end : 0;
}

/* 0 and *out, or -1 if not a Java floating-point literal. */
int eng_text_parse_java_float(const char *s, size_t len, int is_float, double *out)
{
    while (len && (unsigned char)s[len - 1] <= ' ')
        len--;
    while (len && (unsigned char)*s <= ' ')
        s++, len--;
    int special;
    size_t end = java_float_syntax(s, len, &special);
    if (!end)
        return -1;
    int neg = s[0] == '-';
    if (special) {
        *out = special == 1 ? NAN : (neg ? -INFINITY : INFINITY);
        return 0;
    }
    char small[128];
    char *b = end < sizeof small ? small : eng_malloc(end + 1);
    if (!b)
        return -1;
    memcpy(b, s, end);
    b[end] = 0;
    *out = is_float ? (double)strtof(b, NULL) : strtod(b, NULL);
    if (b != small)
        eng_free(b);
    return 0;
}

/*
 * BigDecimal(text).compareTo(BigDecimal.valueOf(double)) == 0: the literal
 * is exactly Java's Double.toString of its nearest double, compared as
 * normalized digits and exponent.
 */
int eng_text_float_is_double(const char *s, size_t len)
{
    double d;
    if (eng_text_parse_java_float(s, len, 0, &d) || !isfinite(d))
        return 0;
    /* significant digits of the mantissa, how many were integer digits, leading zeros */
    size_t i = (len && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    char m[32];
    int64_t nm = 0, nint = 0, lz = 0, exp = 0;
    int dot = 0;
    for (; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
        if (s[i] == '.') {
            dot = 1;
            continue;
        }
        nint += !dot;
        if (nm == 0 && s[i] == '0') {
            lz++;
            continue;
        }
        if (nm == (int64_t)sizeof m) {
            if (s[i] != '0')
                return 0; /* more digits than any double's shortest form */
            continue;
        }
        m[nm++] = s[i];
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int eneg = ++i < len && s[i] == '-';
        i += i < len && (s[i] == '-' || s[i] == '+');
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
        exp = eneg ? -exp : exp;
    }
    if (nm == 0)
        return d == 0;
    while (nm > 1 && m[nm - 1] == '0')
        nm--;
    char sd[24];
    int snd, sexp;
    shortest_digits(fabs(d), 0, sd, &snd, &sexp);
    return nm == snd && !memcmp(m, sd, (size_t)nm) && nint - 1 - lz + exp == sexp;
}

/* ------------------------------------------------------------------------ */
/* Calendars                                                                 */
/* ------------------------------------------------------------------------ */

int64_t eng_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void eng_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* Days since the epoch of a Julian-calendar date (year >= 1). */
static int64_t days_from_julian(int64_t y, int m, int d)
{
    int64_t a = (14 - m) / 12, y2 = y + 4800 - a, m2 = m + 12 * a - 3;
    int64_t jdn = d + (153 * m2 + 2) / 5 + 365 * y2 + y2 / 4 - 32083;
    return jdn - 2440588;
}

static int month_days(int64_t y, int m, int julian)
{
    static const int len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = julian ? y % 4 == 0 : (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    return m == 2 ? 28 + leap : len[m - 1];
}

/* ------------------------------------------------------------------------ */
/* Timestamps (TimestampSerializer.dateStringToTimestamp)                    */
/* ------------------------------------------------------------------------ */

/* TimestampSerializer.dateStringPatterns, in Cassandra's order: the first full match wins. */
static const char *const ts_patterns[] = {
    "yyyy-MM-dd HH:mm",
    "yyyy-MM-dd HH:mm:ss",
    "yyyy-MM-dd HH:mm z",
    "yyyy-MM-dd HH:mm zz",
    "yyyy-MM-dd HH:mm zzz",
    "yyyy-MM-dd HH:mmX",
    "yyyy-MM-dd HH:mmXX",
    "yyyy-MM-dd HH:mmXXX",
    "yyyy-MM-dd HH:mm:ss",
    "yyyy-MM-dd HH:mm:ss z",
    "yyyy-MM-dd HH:mm:ss zz",
    "yyyy-MM-dd HH:mm:ss zzz",
    "yyyy-MM-dd HH:mm:ssX",
    "yyyy-MM-dd HH:mm:ssXX",
    "yyyy-MM-dd HH:mm:ssXXX",
    "yyyy-MM-dd HH:mm:ss.SSS",
    "yyyy-MM-dd HH:mm:ss.SSS z",
    "yyyy-MM-dd HH:mm:ss.SSS zz",
    "yyyy-MM-dd HH:mm:ss.SSS zzz",
    "yyyy-MM-dd HH:mm:ss.SSSX",
    "yyyy-MM-dd HH:mm:ss.SSSXX",
    "yyyy-MM-dd HH:mm:ss.SSSXXX",
    "yyyy-MM-dd'T'HH:mm",
    "yyyy-MM-dd'T'HH:mm z",
    "yyyy-MM-dd'T'HH:mm zz",
    "yyyy-MM-dd'T'HH:mm zzz",
    "yyyy-MM-dd'T'HH:mmX",
    "yyyy-MM-dd'T'HH:mmXX",
    "yyyy-MM-dd'T'HH:mmXXX",
    "yyyy-MM-dd'T'HH:mm:ss",
    "yyyy-MM-dd'T'HH:mm:ss z",
    "yyyy-MM-dd'T'HH:mm:ss zz",
    "yyyy-MM-dd'T'HH:mm:ss zzz",
    "yyyy-MM-dd'T'HH:mm:ssX",
    "yyyy-MM-dd'T'HH:mm:ssXX",
    "yyyy-MM-dd'T'HH:mm:ssXXX",
    "yyyy-MM-dd'T'HH:mm:ss.SSS",
    "yyyy-MM-dd'T'HH:mm:ss.SSS z",
    "yyyy-MM-dd'T'HH:mm:ss.SSS zz",
    "yyyy-MM-dd'T'HH:mm:ss.SSS zzz",
    "yyyy-MM-dd'T'HH:mm:ss.SSSX",
    "yyyy-MM-dd'T'HH:mm:ss.SSSXX",
    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
    "yyyy-MM-dd",
    "yyyy-MM-dd z",
    "yyyy-MM-dd zz",
    "yyyy-MM-dd zzz",
    "yyyy-MM-ddX",
    "yyyy-MM-ddXX",
    "yyyy-MM-ddXXX",
};

typedef struct ts_fields {
    int64_t f[7];    /* y, M, d, H, m, s, S as parsed */
    int64_t off_min; /* zone offset in minutes */
} ts_fields;

static int java_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F);
}

/* FastDateParser's NumberStrategy without a width: whitespace, then digits that fit an int. */
static int ts_number(const char *s, size_t len, size_t *pos, int64_t *v)
{
    size_t i = *pos;
    while (i < len && java_space(s[i]))
        i++;
    size_t b = i;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == b || eng_text_parse_java_int(s + b, i - b, INT32_MIN, INT32_MAX, v))
        return -1;
    *pos = i;
    return 0;
}

static int two_digits(const char *s, size_t i, size_t len, int *v)
{
    if (i + 2 > len || s[i] < '0' || s[i] > '9' || s[i + 1] < '0' || s[i + 1] > '9')
        return -1;
    *v = (s[i] - '0') * 10 + (s[i + 1] - '0');
    return 0;
}

/* FastTimeZone.getGmtTimeZone: hours < 24 and minutes < 60, else the pattern fails. */
static int zone_offset(int neg, int h, int m, int64_t *off_min)
{
    if (h >= 24 || m >= 60)
        return -1;
    *off_min = (neg ? -1 : 1) * (int64_t)(h * 60 + m);
    return 0;
}

static int ieq(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    if (len < n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return 0;
    }
    return 1;
}

/*
 * 'z' (TimeZoneStrategy): +hhmm, GMT+h:mm, or a zone name. Only the names
 * of UTC itself are known here (fixed offset 0, as FastDateParser applies
 * a standard name's raw offset); other names fail the pattern.
 */
static int ts_zone_general(const char *s, size_t len, size_t *pos, int64_t *off_min)
{
    size_t i = *pos;
    int h, m;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        if (two_digits(s, i + 1, len, &h) || two_digits(s, i + 3, len, &m))
            return -1;
        *pos = i + 5;
        return zone_offset(s[i] == '-', h, m, off_min);
    }
    if (ieq(s + i, len - i, "gmt") && i + 3 < len && (s[i + 3] == '+' || s[i + 3] == '-')) {
        size_t j = i + 4, b = j;
        while (j < len && j - b < 2 && s[j] >= '0' && s[j] <= '9')
            j++;
        if (j == b || j >= len || s[j] != ':' || two_digits(s, j + 1, len, &m))
            return -1;
        h = 0;
        for (size_t k = b; k < j; k++)
            h = h * 10 + (s[k] - '0');
        *pos = j + 3;
        return zone_offset(s[i + 3] == '-', h, m, off_min);
    }
    static const char *const names[] = {"coordinated universal time", "greenwich mean time", "utc",
                                        "gmt"};
    for (size_t k = 0; k < ENG_ARRAY_LEN(names); k++) {
        if (ieq(s + i, len - i, names[k])) {
            *pos = i + strlen(names[k]);
            *off_min = 0;
            return 0;
        }
    }
    return -1;
}

/* 'X', 'XX', 'XXX' (ISO8601TimeZoneStrategy): Z, or +hh / +hhmm / +hh:mm. */
static int ts_zone_iso(size_t width, const char *s, size_t len, size_t *pos, int64_t *off_min)
{
    size_t i = *pos;
    int h, m = 0;
    if (i < len && s[i] == 'Z') {
        *pos = i + 1;
        *off_min = 0;
        return 0;
    }
    if (i >= len || (s[i] != '+' && s[i] != '-') || two_digits(s, i + 1, len, &h))
        return -1;
    size_t j = i + 3;
    if (width >= 3) {
        if (j >= len || s[j] != ':')
            return -1;
        j++;
    }
    if (width >= 2) {
        if (two_digits(s, j, len, &m))
            return -1;
        j += 2;
    }
    *pos = j;
    return zone_offset(s[i] == '-', h, m, off_min);
}

/* One pattern against the whole string; 0 if it matches completely. */
static int ts_try(const char *pat, const char *s, size_t len, ts_fields *f)
{
    static const char letters[] = "yMdHmsS";
    size_t pos = 0;
    memset(f, 0, sizeof *f);
    for (const char *p = pat; *p;) {
        if (*p == '\'') { /* quoted literal */
            for (p++; *p && *p != '\''; p++, pos++)
                if (pos >= len || s[pos] != *p)
                    return -1;
            p += *p == '\'';
            continue;
        }
        const char *slot = strchr(letters, *p);
        if (*p == 'z' || *p == 'X' || slot) {
            size_t w = 0;
            while (p[w] == *p)
                w++;
            char c = *p;
            p += w;
            int rc = c == 'z'   ? ts_zone_general(s, len, &pos, &f->off_min)
                     : c == 'X' ? ts_zone_iso(w, s, len, &pos, &f->off_min)
                                : ts_number(s, len, &pos, &f->f[slot - letters]);
            if (rc)
                return -1;
            continue;
        }
        if (pos >= len || s[pos] != *p)
            return -1;
        pos++;
        p++;
    }
    return pos == len ? 0 : -1;
}

/*
 * Non-lenient java.util.GregorianCalendar: every field in range, the day
 * valid for its month, Julian rules before 1582-10-15 and the ten days of
 * the switch refused; then milliseconds since the epoch.
 */
static int ts_compute(const ts_fields *f, int64_t *ms)
{
    int64_t y = f->f[0];
    int mo = (int)f->f[1], d = (int)f->f[2];
    if (y < 1 || y > 292278994 || mo < 1 || mo > 12 || d < 1 || f->f[3] > 23 || f->f[4] > 59 ||
        f->f[5] > 59 || f->f[6] > 999)
        return -1;
    int64_t key = y * 10000 + mo * 100 + d;
    int julian = key < 15821015;
    if (key > 15821004 && key < 15821015)
        return -1;
    if (d > month_days(y, mo, julian))
        return -1;
    int64_t days = julian ? days_from_julian(y, mo, d) : eng_days_from_civil(y, mo, d);
    int64_t tod = ((f->f[3] * 60 + f->f[4]) * 60 + f->f[5]) * 1000 + f->f[6];
    int64_t v;
    if (__builtin_mul_overflow(days, (int64_t)86400000, &v) || __builtin_add_overflow(v, tod, &v) ||
        __builtin_sub_overflow(v, f->off_min * 60000, &v))
        return -1;
    *ms = v;
    return 0;
}

static int64_t wall_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_timestamp(const char *s, size_t len, int64_t *ms, eng_err *err)
{
    if (len == 3 && ieq(s, len, "now")) {
        *ms = wall_clock_ms();
        return 0;
    }
    size_t i = (len && s[0] == '-') ? 1 : 0;
    if (all_digits(s + i, len - i)) {
        if (eng_text_parse_java_int(s, len, INT64_MIN, INT64_MAX, ms))
            return eng_invalidf(err, "Unable to make long (for date) from: '%.*s'", clen(len), s);
        return 0;
    }
    ts_fields f;
    for (size_t k = 0; k < ENG_ARRAY_LEN(ts_patterns); k++)
        if (!ts_try(ts_patterns[k], s, len, &f) && !ts_compute(&f, ms))
            return 0;
    return eng_invalidf(err, "Unable to coerce '%.*s' to a formatted date (long)", clen(len), s);
}

/* ------------------------------------------------------------------------ */
/* Dates (SimpleDateSerializer.dateStringToDays) and times (TimeSerializer)  */
/* ------------------------------------------------------------------------ */

/* ZonedDateTime.toString of a day at midnight UTC: "-5877641-06-23T00:00Z". */
static void iso_day(int64_t days, char *buf, size_t cap)
{
    int64_t y;
    int m, d;
    eng_civil_from_days(days, &y, &m, &d);
    if (y > 9999)
        snprintf(buf, cap, "+%lld-%02d-%02dT00:00Z", (long long)y, m, d);
    else if (y < 0)
        snprintf(buf, cap, "-%04lld-%02d-%02dT00:00Z", (long long)-y, m, d);
    else
        snprintf(buf, cap, "%04lld-%02d-%02dT00:00Z", (long long)y, m, d);
}

/*
 * DateTimeFormatter.ISO_LOCAL_DATE, strict: a 4-digit year, or a signed one
 * ('+' required beyond 4 digits, '-0000' refused, at most 10 digits), then
 * -MM-dd with two digits each and a real day of the proleptic calendar.
 */
static int parse_iso_date(const char *s, size_t len, int64_t *days)
{
    size_t i = 0;
    char sign = 0;
    if (len && (s[0] == '+' || s[0] == '-'))
        sign = s[i++];
    size_t b = i;
    while (i < len && i - b < 10 && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t nd = i - b;
    int64_t y;
    if (nd < 4 || (!sign && nd > 4) || (sign == '+' && nd <= 4))
        return -1;
    if (eng_text_parse_java_int(s + b, nd, 0, INT64_MAX, &y) || y > 999999999 ||
        (sign == '-' && y == 0))
        return -1;
    y = sign == '-' ? -y : y;
    int m, d;
    if (i + 6 != len || s[i] != '-' || two_digits(s, i + 1, len, &m) || s[i + 3] != '-' ||
        two_digits(s, i + 4, len, &d))
        return -1;
    if (m < 1 || m > 12 || d < 1 || d > month_days(y < 0 ? -y : y, m, 0))
        return -1;
    *days = eng_days_from_civil(y, m, d);
    return 0;
}

static int parse_date(const char *s, size_t len, uint32_t *out, eng_err *err)
{
    if (len && all_digits(s + (s[0] == '-'), len - (s[0] == '-'))) {
        int64_t v;
        if (eng_text_parse_java_int(s, len, INT64_MIN, INT64_MAX, &v) || v < 0 || v > 4294967295LL)
            return eng_invalidf(err, "Unable to make unsigned int (for date) from: '%.*s'", clen(len),
                           s);
        *out = (uint32_t)v;
        return 0;
    }
    int64_t days, ms;
    if (parse_iso_date(s, len, &days) || __builtin_mul_overflow(days, (int64_t)86400000, &ms))
        return eng_invalidf(err, "Unable to coerce '%.*s' to a formatted date (long)", clen(len), s);
    return eng_text_date_of_days(days, s, len, out, err);
}

int eng_text_date_of_days(int64_t days, const char *src, size_t src_len, uint32_t *out,
                          eng_err *err)
{
    if (days >= INT32_MIN && days <= INT32_MAX) {
        *out = (uint32_t)(days + 2147483648LL);
        return 0;
    }
    char lim[40], day[40];
    if (!src) { /* LocalDate.toString of the day: yyyy-MM-dd, signed beyond four digits */
        int64_t y;
        int m, d;
        eng_civil_from_days(days, &y, &m, &d);
        snprintf(day, sizeof day, y > 9999 ? "+%lld-%02d-%02d" : y < 0 ? "-%04lld-%02d-%02d"
                                                                      : "%04lld-%02d-%02d",
                 (long long)(y < 0 ? -y : y), m, d);
        src = day;
        src_len = strlen(day);
    }
    iso_day(days < 0 ? INT32_MIN : INT32_MAX, lim, sizeof lim);
    return eng_invalidf(err, "Input date %.*s is %s supported date %s", clen(src_len), src,
                        days < 0 ? "less than min" : "greater than max", lim);
}

/* Integer.parseInt of s[a..b) as an int. */
static int java_int_range(const char *s, size_t a, size_t b, int64_t *v)
{
    return b < a ? -1 : eng_text_parse_java_int(s + a, b - a, INT32_MIN, INT32_MAX, v);
}

static long index_of(const char *s, size_t len, char c, size_t from)
{
    for (size_t i = from; i < len; i++)
        if (s[i] == c)
            return (long)i;
    return -1;
}

/* TimeSerializer.parseTimeStrictly: hh:mm:ss[.fffffffff] after trim(). */
static int parse_time_text(const char *s, size_t len, int64_t *out)
{
    while (len && (unsigned char)s[len - 1] <= ' ')
        len--;
    while (len && (unsigned char)*s <= ' ')
        s++, len--;
    long c1 = index_of(s, len, ':', 0);
    long c2 = c1 < 0 ? -1 : index_of(s, len, ':', (size_t)c1 + 1);
    if (!(c1 > 0 && c2 > 0 && (size_t)c2 < len - 1))
        return -1;
    long dot = index_of(s, len, '.', (size_t)c2 + 1);
    int64_t h, m, sec, nanos = 0;
    if (java_int_range(s, 0, (size_t)c1, &h) || h < 0 || h >= 24)
        return -1;
    if (java_int_range(s, (size_t)c1 + 1, (size_t)c2, &m) || m < 0 || m >= 60)
        return -1;
    if (dot > 0 && (size_t)dot < len - 1) {
        if (java_int_range(s, (size_t)c2 + 1, (size_t)dot, &sec) || sec < 0 || sec >= 60)
            return -1;
        size_t nlen = len - (size_t)dot - 1;
        const char *ns = s + dot + 1;
        if (nlen > 9 || ns[0] < '0' || ns[0] > '9')
            return -1;
        char padded[10] = "000000000";
        memcpy(padded, ns, nlen);
        if (eng_text_parse_java_int(padded, 9, INT32_MIN, INT32_MAX, &nanos))
            return -1;
    } else if (dot > 0) {
        return -1;
    } else if (java_int_range(s, (size_t)c2 + 1, len, &sec) || sec < 0 || sec >= 60) {
        return -1;
    }
    *out = ((h * 60 + m) * 60 + sec) * 1000000000LL + nanos;
    return 0;
}

static int parse_time(const char *s, size_t len, int64_t *out, eng_err *err)
{
    if (len && all_digits(s + (s[0] == '-'), len - (s[0] == '-'))) {
        if (eng_text_parse_java_int(s, len, INT64_MIN, INT64_MAX, out) || *out < 0 ||
            *out >= 86400000000000LL)
            return eng_invalidf(err, "Unable to make long (for time) from: '%.*s'", clen(len), s);
        return 0;
    }
    if (parse_time_text(s, len, out))
        return eng_invalidf(err, "(TimeType) Unable to coerce '%.*s' to a formatted time (long)",
                       clen(len), s);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Durations (cql3/Duration.from)                                            */
/* ------------------------------------------------------------------------ */

enum {
    U_YEARS = 1,
    U_MONTHS,
    U_WEEKS,
    U_DAYS,
    U_HOURS,
    U_MINUTES,
    U_SECONDS,
    U_MILLIS,
    U_MICROS,
    U_NANOS
};

static const char *const unit_names[] = {
    "",        "years",   "months",       "weeks",        "days",       "hours",
    "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"};

/* Duration.Builder: units strictly in order, totals within int (months, days) and long (ns). */
typedef struct dur_builder {
    int64_t months, days, nanos;
    int unit; /* last unit added */
} dur_builder;

/* Builder.validate's message names Integer.MAX_VALUE even for nanoseconds, as Cassandra's does. */
static int dur_check(int64_t units, int64_t limit, const char *name, eng_err *err)
{
    if (units > limit)
        return eng_invalidf(err, "Invalid duration. The total number of %s must be less or equal to %d",
                       name, INT32_MAX);
    return 0;
}

static int dur_add(dur_builder *b, int unit, int64_t n, eng_err *err)
{
    if (unit == b->unit)
        return eng_invalidf(err, "Invalid duration. The %s are specified multiple times",
                       unit_names[unit]);
    if (unit < b->unit)
        return eng_invalidf(err, "Invalid duration. The %s should be after %s", unit_names[b->unit],
                       unit_names[unit]);
    b->unit = unit;
    static const int64_t per_nano[] = {3600000000000LL, 60000000000LL, 1000000000LL,
                                       1000000LL,       1000LL,        1LL};
    switch (unit) {
    case U_YEARS:
    case U_MONTHS: {
        int64_t per = unit == U_YEARS ? 12 : 1;
        if (dur_check(n, (INT32_MAX - b->months) / per, "months", err))
            return ENG_E_INVALID;
        b->months += n * per;
        return 0;
    }
    case U_WEEKS:
    case U_DAYS: {
        int64_t per = unit == U_WEEKS ? 7 : 1;
        if (dur_check(n, (INT32_MAX - b->days) / per, "days", err))
            return ENG_E_INVALID;
        b->days += n * per;
        return 0;
    }
    default: {
        int64_t per = per_nano[unit - U_HOURS];
        if (dur_check(n, (INT64_MAX - b->nanos) / per, "nanoseconds", err))
            return ENG_E_INVALID;
        b->nanos += n * per;
        return 0;
    }
    }
}

/* Long.parseLong of a run of digits; an overflow is Cassandra's uncaught NumberFormatException. */
static int dur_number(const char *s, size_t len, int64_t *v, eng_err *err)
{
    if (eng_text_parse_java_int(s, len, INT64_MIN, INT64_MAX, v))
        return eng_errorf(err, ENG_E_SERVER,
                          "java.lang.NumberFormatException: For input string: \"%.*s\"", clen(len),
                          s);
    return 0;
}

/* The STANDARD_PATTERN units, in the regex's alternation order (ms before m, mo before m). */
static const struct {
    const char *sym;
    int unit;
} dur_units[] = {
    {"y", U_YEARS},   {"Y", U_YEARS},   {"mo", U_MONTHS},        {"MO", U_MONTHS},
    {"mO", U_MONTHS}, {"Mo", U_MONTHS}, {"w", U_WEEKS},          {"W", U_WEEKS},
    {"d", U_DAYS},    {"D", U_DAYS},    {"h", U_HOURS},          {"H", U_HOURS},
    {"s", U_SECONDS}, {"S", U_SECONDS}, {"ms", U_MILLIS},        {"MS", U_MILLIS},
    {"mS", U_MILLIS}, {"Ms", U_MILLIS}, {"us", U_MICROS},        {"US", U_MICROS},
    {"uS", U_MICROS}, {"Us", U_MICROS}, {"\xC2\xB5s", U_MICROS}, {"\xC2\xB5S", U_MICROS},
    {"ns", U_NANOS},  {"NS", U_NANOS},  {"nS", U_NANOS},         {"Ns", U_NANOS},
    {"m", U_MINUTES}, {"M", U_MINUTES},
};

static int dur_standard(const char *s, size_t len, dur_builder *b, eng_err *err)
{
    size_t pos = 0;
    do {
        size_t d = pos;
        while (d < len && s[d] >= '0' && s[d] <= '9')
            d++;
        int unit = 0;
        size_t ulen = 0;
        for (size_t k = 0; d > pos && k < ENG_ARRAY_LEN(dur_units) && !unit; k++) {
            size_t n = strlen(dur_units[k].sym);
            if (len - d >= n && !memcmp(s + d, dur_units[k].sym, n))
                unit = dur_units[k].unit, ulen = n;
        }
        if (!unit)
            return eng_invalidf(err, "Unable to convert '%.*s' to a duration", clen(len), s);
        int64_t v;
        int rc = dur_number(s + pos, d - pos, &v, err);
        if (rc || (rc = dur_add(b, unit, v, err)))
            return rc;
        pos = d + ulen;
    } while (pos < len);
    return 0;
}

/* One optional "<digits><letter>" group of the ISO pattern; 1 if taken. */
static int iso_group(const char *s, size_t len, size_t *pos, char letter, size_t *a, size_t *b)
{
    size_t d = *pos;
    while (d < len && s[d] >= '0' && s[d] <= '9')
        d++;
    if (d == *pos || d >= len || s[d] != letter)
        return 0;
    *a = *pos;
    *b = d;
    *pos = d + 1;
    return 1;
}

/* ISO8601_ALTERNATIVE_PATTERN: P0001-02-03T04:05:06, two digits a part, four for years. */
static int dur_iso_alternative(const char *s, size_t len, dur_builder *b, eng_err *err)
{
    static const char shape[] = "P0000-00-00T00:00:00";
    int ok = len == sizeof shape - 1, rc;
    for (size_t i = 0; ok && i < len; i++)
        ok = shape[i] == '0' ? (s[i] >= '0' && s[i] <= '9') : s[i] == shape[i];
    if (!ok)
        return eng_invalidf(err, "Unable to convert '%.*s' to a duration", clen(len), s);
    static const struct {
        size_t at, n;
        int unit;
    } parts[] = {{1, 4, U_YEARS},  {6, 2, U_MONTHS},   {9, 2, U_DAYS},
                 {12, 2, U_HOURS}, {15, 2, U_MINUTES}, {18, 2, U_SECONDS}};
    int64_t v;
    for (size_t i = 0; i < ENG_ARRAY_LEN(parts); i++)
        if ((rc = dur_number(s + parts[i].at, parts[i].n, &v, err)) ||
            (rc = dur_add(b, parts[i].unit, v, err)))
            return rc;
    return 0;
}

/* P[nY][nM][nD][T[nH][nM][nS]], PnW, or the alternative form (source starts with 'P'). */
static int dur_iso(const char *s, size_t len, dur_builder *b, eng_err *err)
{
    size_t pos = 1, a, e;
    int64_t v;
    int rc;
    if (s[len - 1] == 'W') {
        if (!iso_group(s, len, &pos, 'W', &a, &e) || pos != len)
            return eng_invalidf(err, "Unable to convert '%.*s' to a duration", clen(len), s);
        return (rc = dur_number(s + a, e - a, &v, err)) ? rc : dur_add(b, U_WEEKS, v, err);
    }
    if (memchr(s, '-', len))
        return dur_iso_alternative(s, len, b, err);
    size_t span[6][2];
    int have[6] = {0};
    static const char letters[] = "YMDHMS";
    for (int i = 0; i < 3; i++)
        have[i] = iso_group(s, len, &pos, letters[i], &span[i][0], &span[i][1]);
    if (pos < len && s[pos] == 'T') {
        pos++;
        for (int i = 3; i < 6; i++)
            have[i] = iso_group(s, len, &pos, letters[i], &span[i][0], &span[i][1]);
    }
    if (pos != len)
        return eng_invalidf(err, "Unable to convert '%.*s' to a duration", clen(len), s);
    static const int units[6] = {U_YEARS, U_MONTHS, U_DAYS, U_HOURS, U_MINUTES, U_SECONDS};
    for (int i = 0; i < 6; i++)
        if (have[i] && ((rc = dur_number(s + span[i][0], span[i][1] - span[i][0], &v, err)) ||
                        (rc = dur_add(b, units[i], v, err))))
            return rc;
    return 0;
}

static int parse_duration(const char *s, size_t len, eng_buf *out, eng_err *err)
{
    int neg = len && s[0] == '-';
    s += neg;
    len -= (size_t)neg;
    dur_builder b = {0, 0, 0, 0};
    int rc = len && s[0] == 'P' ? dur_iso(s, len, &b, err)
             : len              ? dur_standard(s, len, &b, err)
                                : eng_invalidf(err, "Unable to convert '' to a duration");
    if (rc)
        return rc;
    int64_t sign = neg ? -1 : 1;
    eng_buf_put_vint(out, sign * b.months);
    eng_buf_put_vint(out, sign * b.days);
    eng_buf_put_vint(out, sign * b.nanos);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* uuid, inet, hex                                                           */
/* ------------------------------------------------------------------------ */

static int hex_val(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* UUIDType's regex [A-Fa-f0-9]{8}-{4}-{4}-{4}-{12}, exactly. */
int eng_text_parse_uuid(const char *s, size_t len, uint8_t out[16])
{
    if (len != 36)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return -1;
            continue;
        }
        int h = hex_val(s[i]), l = i + 1 < 36 ? hex_val(s[i + 1]) : -1;
        if (h < 0 || l < 0)
            return -1;
        out[k++] = (uint8_t)(h << 4 | l);
        i++;
    }
    return 0;
}

/* IPAddressUtil.textToNumericFormatV4: 1 to 4 decimal parts, the last one filling the rest. */
static int java_ipv4(const char *s, size_t len, uint8_t out[4])
{
    if (len == 0 || len > 15)
        return -1;
    int64_t v = 0;
    int part = 0, fresh = 1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (fresh || v > 0xff || part == 3)
                return -1;
            out[part++] = (uint8_t)v;
            v = 0;
            fresh = 1;
        } else if (s[i] >= '0' && s[i] <= '9') {
            v = v * 10 + (s[i] - '0');
            fresh = 0;
        } else {
            return -1;
        }
    }
    if (fresh || v >= (1LL << ((4 - part) * 8)))
        return -1;
    for (int i = part; i < 4; i++)
        out[i] = (uint8_t)(v >> (8 * (3 - i)));
    return 0;
}

/*
 * InetAddress.getByName for literals: IPv4 in Java's forms, IPv6 (also in
 * brackets); an IPv4-mapped IPv6 address becomes 4 bytes, as Java makes it
 * an Inet4Address. Host names would need a DNS lookup: only localhost is
 * known here.
 */
static int parse_inet(const char *s, size_t len, uint8_t out[16], size_t *n)
{
    int bracket = len >= 2 && s[0] == '[' && s[len - 1] == ']';
    if (bracket)
        s++, len -= 2;
    if (!bracket && len == 9 && ieq(s, len, "localhost")) {
        static const uint8_t lo[4] = {127, 0, 0, 1};
        memcpy(out, lo, 4);
        *n = 4;
        return 0;
    }
    if (!bracket && !java_ipv4(s, len, out)) {
        *n = 4;
        return 0;
    }
    char buf[64];
    if (len == 0 || len >= sizeof buf || !memchr(s, ':', len))
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    if (inet_pton(AF_INET6, buf, out) != 1)
        return -1;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (!memcmp(out, mapped, 12)) {
        memmove(out, out + 12, 4);
        *n = 4;
    } else {
        *n = 16;
    }
    return 0;
}

/* ---- UTF-8 as Java's decoder reads it (sun.nio.cs.UTF_8.Decoder, malformed input reported) ----
 */

static int is_continuation(uint8_t b)
{
    return (b & 0xC0) == 0x80;
}

/* Length of the malformed sequence at p (left bytes there), or 0 if a valid one starts there
   (*step its length). A sequence cut short by the end of the input is as long as what is
   left, unless a byte already there is wrong (the decoder checks those first). */
static size_t malformed_at(const uint8_t *p, size_t left, size_t *step)
{
    uint8_t b1 = p[0];
    *step = 1;
    if (b1 < 0x80)
        return 0;
    if (b1 >= 0xC2 && b1 <= 0xDF) {
        if (left < 2)
            return left;
        *step = 2;
        return is_continuation(p[1]) ? 0 : 1;
    }
    if (b1 >= 0xE0 && b1 <= 0xEF) {
        if (left >= 2 && ((b1 == 0xE0 && (p[1] & 0xE0) == 0x80) || !is_continuation(p[1])))
            return 1; /* overlong, or no continuation */
        if (left < 3)
            return left;
        if (!is_continuation(p[2]))
            return 2;
        *step = 3;
        return b1 == 0xED && p[1] >= 0xA0 ? 3 : 0; /* a surrogate is no character */
    }
    if (b1 >= 0xF0 && b1 <= 0xF4) {
        if (left >= 2 && ((b1 == 0xF0 && (p[1] < 0x90 || p[1] > 0xBF)) ||
                          (b1 == 0xF4 && (p[1] & 0xF0) != 0x80) || !is_continuation(p[1])))
            return 1; /* overlong, past U+10FFFF, or no continuation */
        if (left >= 3 && !is_continuation(p[2]))
            return 2;
        if (left < 4)
            return left;
        *step = 4;
        return is_continuation(p[3]) ? 0 : 3;
    }
    return 1; /* a continuation byte, C0, C1 or F5..FF where a character starts */
}

int eng_text_utf8_malformed(const uint8_t *p, size_t len, size_t *at, size_t *n)
{
    size_t i = 0, step;
    while (i < len) {
        size_t bad = malformed_at(p + i, len - i, &step);
        if (bad) {
            *at = i;
            *n = bad;
            return 1;
        }
        i += step;
    }
    return 0;
}

/* Hex.hexToBytes: an even number of hex digits. */
int eng_text_parse_hex(const char *s, size_t len, eng_buf *out)
{
    if (len % 2)
        return -1;
    if (eng_buf_reserve(out, len / 2))
        return 0;
    for (size_t i = 0; i < len; i += 2) {
        int h = hex_val(s[i]), l = hex_val(s[i + 1]);
        if (h < 0 || l < 0)
            return -1;
        out->p[out->len++] = (uint8_t)(h << 4 | l);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* AbstractType.fromString                                                   */
/* ------------------------------------------------------------------------ */

static void put_be(eng_buf *out, uint64_t v, int nbytes)
{
    for (int i = nbytes - 1; i >= 0; i--)
        eng_buf_put_u8(out, (uint8_t)(v >> (8 * i)));
}

/* Int32Type, LongType, ShortType, ByteType: Java's parse of the whole string, in range. */
static int from_string_int(int kind, const char *s, size_t len, eng_buf *out, eng_err *err)
{
    static const struct {
        int kind, bytes;
        const char *name;
    } ints[] = {{ENG_TINYINT, 1, "byte"},
                {ENG_SMALLINT, 2, "short"},
                {ENG_INT, 4, "int"},
                {ENG_BIGINT, 8, "long"},
                {ENG_COUNTER, 8, "long"}};
    size_t k = 0;
    while (ints[k].kind != kind)
        k++;
    int bits = ints[k].bytes * 8;
    int64_t max = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1, v;
    if (eng_text_parse_java_int(s, len, -max - 1, max, &v))
        return eng_invalidf(err, "Unable to make %s from '%.*s'", ints[k].name, clen(len), s);
    put_be(out, (uint64_t)v, ints[k].bytes);
    return 0;
}

static int from_string_float(int kind, const char *s, size_t len, eng_buf *out, eng_err *err)
{
    double d;
    if (eng_text_parse_java_float(s, len, kind == ENG_FLOAT, &d))
        return eng_invalidf(err, "Unable to make %s from '%.*s'", kind == ENG_FLOAT ? "float" : "double",
                       clen(len), s);
    if (kind == ENG_FLOAT) {
        float f = (float)d;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        eng_buf_put_be32(out, bits);
    } else {
        uint64_t bits;
        memcpy(&bits, &d, 8);
        eng_buf_put_be64(out, bits);
    }
    return 0;
}

/* AsciiType: US-ASCII encoding, whose failure Cassandra prints with the Java exception. */
static int from_string_ascii(const char *s, size_t len, eng_buf *out, eng_err *err)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80)
            return eng_invalidf(err,
                           "Invalid ASCII character in string literal: "
                           "java.nio.charset.UnmappableCharacterException: Input length = %d",
                           (unsigned char)s[i] >= 0xF0 ? 2 : 1);
    eng_buf_put(out, s, len);
    return 0;
}

static int from_string_uuid(int kind, const char *s, size_t len, eng_buf *out, eng_err *err)
{
    uint8_t u[16];
    if (eng_text_parse_uuid(s, len, u))
        return kind == ENG_TIMEUUID
                   ? eng_invalidf(err, "Unknown timeuuid representation: %.*s", clen(len), s)
                   : eng_invalidf(err, "Unable to make UUID from '%.*s'", clen(len), s);
    if (kind == ENG_TIMEUUID && (u[6] >> 4) != 1)
        return eng_invalidf(err, "TimeUUID supports only version 1 UUIDs");
    eng_buf_put(out, u, 16);
    return 0;
}

/* Types whose fromString gives the empty value for an empty string. */
static int empty_allowed(int kind)
{
    switch (kind) {
    case ENG_DATE:
    case ENG_TIME:
    case ENG_BOOLEAN: /* "" reads as false */
    case ENG_ASCII:
    case ENG_TEXT:
    case ENG_BLOB:
    case ENG_CUSTOM:
        return 0;
    default:
        return 1;
    }
}

static int from_string_temporal(int kind, const char *s, size_t len, eng_buf *out, eng_err *err)
{
    int64_t v;
    uint32_t day = 0;
    int rc;
    switch (kind) {
    case ENG_TIMESTAMP:
        if (!(rc = parse_timestamp(s, len, &v, err)))
            eng_buf_put_be64(out, (uint64_t)v);
        return rc;
    case ENG_DATE:
        if (!(rc = parse_date(s, len, &day, err)))
            eng_buf_put_be32(out, day);
        return rc;
    default:
        if (!(rc = parse_time(s, len, &v, err)))
            eng_buf_put_be64(out, (uint64_t)v);
        return rc;
    }
}

static int from_string_other(int kind, const char *s, size_t len, eng_buf *out, eng_err *err)
{
    uint8_t addr[16];
    size_t n;
    int rc;
    switch (kind) {
    case ENG_VARINT:
        if ((rc = parse_varint(s, len, out)) < 0)
            return eng_invalidf(err, "unable to make int from '%.*s'", clen(len), s);
        return rc ? nomem(err) : 0;
    case ENG_DECIMAL:
        if ((rc = parse_decimal(s, len, out)) < 0)
            return eng_invalidf(err, "unable to make BigDecimal from '%.*s'", clen(len), s);
        return rc ? nomem(err) : 0;
    case ENG_INET:
        if (parse_inet(s, len, addr, &n))
            return eng_invalidf(err, "Unable to make inet address from '%.*s'", clen(len), s);
        eng_buf_put(out, addr, n);
        return 0;
    case ENG_DURATION:
        return parse_duration(s, len, out, err);
    case ENG_BOOLEAN:
        if (len == 0 || (len == 5 && ieq(s, len, "false")))
            eng_buf_put_u8(out, 0);
        else if (len == 4 && ieq(s, len, "true"))
            eng_buf_put_u8(out, 1);
        else
            return eng_invalidf(err, "Unable to make boolean from '%.*s'", clen(len), s);
        return 0;
    case ENG_BLOB:
    case ENG_CUSTOM:
        if (eng_text_parse_hex(s, len, out))
            return eng_invalidf(err, "cannot parse '%.*s' as hex bytes", clen(len), s);
        return 0;
    default: {
        eng_buf name = ENG_BUF_INIT;
        eng_buf_put_str(&name, eng_kind_name(kind) ? eng_kind_name(kind) : "this type");
        const char *t = eng_buf_cstr(&name);
        rc = eng_invalidf(err, "Unable to make a %s value from '%.*s'", t ? t : "", clen(len), s);
        eng_buf_free(&name);
        return rc;
    }
    }
}

/*
 * TupleType.fromString: fields split on ':' not preceded by '\', "@" for a
 * null field, "\:" and "\@" unescaped.
 */
static int tuple_from_string(const eng_type *type, const char *s, size_t len, eng_buf *out,
                             eng_err *err)
{
    int parts = len ? 1 : 0;
    for (size_t i = 0; i < len; i++)
        parts += s[i] == ':' && !(i > 0 && s[i - 1] == '\\');
    if (parts > type->n_sub) {
        eng_buf name = ENG_BUF_INIT;
        eng_type_to_cql(type, &name);
        const char *tn = eng_buf_cstr(&name);
        int rc =
            eng_invalidf(err, "Invalid tuple literal: too many elements. Type %s expects %d but got %d",
                    tn ? tn : "", type->n_sub, parts);
        eng_buf_free(&name);
        return rc;
    }
    eng_buf field = ENG_BUF_INIT;
    int rc = 0;
    size_t start = 0;
    for (int k = 0; k < parts && !rc; k++) {
        size_t end = start;
        while (end < len && !(s[end] == ':' && !(end > 0 && s[end - 1] == '\\')))
            end++;
        if (end - start == 1 && s[start] == '@') {
            eng_buf_put_be32(out, (uint32_t)-1);
        } else {
            eng_buf_reset(&field);
            for (size_t i = start; i < end; i++)
                if (!(s[i] == '\\' && i + 1 < end && (s[i + 1] == ':' || s[i + 1] == '@')))
                    eng_buf_put_u8(&field, (uint8_t)s[i]);
            size_t at = out->len;
            eng_buf_put_be32(out, 0);
            rc = eng_text_from_string(type->sub[k], (const char *)field.p, field.len, out, err);
            if (!rc && !out->oom)
                eng_put_be32(out->p + at, (uint32_t)(out->len - at - 4));
        }
        start = end + 1;
    }
    eng_buf_free(&field);
    return rc;
}

int eng_text_from_string(const eng_type *type, const char *s, size_t len, eng_buf *out,
                         eng_err *err)
{
    if (!type || (!s && len))
        return eng_invalidf(err, "Invalid value");
    if (!s)
        s = "";
    int kind = type->kind, rc;
    if (len == 0 && empty_allowed(kind))
        return 0;
    switch (kind) {
    case ENG_TINYINT:
    case ENG_SMALLINT:
    case ENG_INT:
    case ENG_BIGINT:
    case ENG_COUNTER:
        rc = from_string_int(kind, s, len, out, err);
        break;
    case ENG_FLOAT:
    case ENG_DOUBLE:
        rc = from_string_float(kind, s, len, out, err);
        break;
    case ENG_ASCII:
        rc = from_string_ascii(s, len, out, err);
        break;
    case ENG_TEXT:
        rc = eng_type_validate(type, (const uint8_t *)s, len, err);
        if (!rc)
            eng_buf_put(out, s, len);
        break;
    case ENG_UUID:
    case ENG_TIMEUUID:
        rc = from_string_uuid(kind, s, len, out, err);
        break;
    case ENG_TIMESTAMP:
    case ENG_DATE:
    case ENG_TIME:
        rc = from_string_temporal(kind, s, len, out, err);
        break;
    case ENG_TUPLE:
        rc = tuple_from_string(type, s, len, out, err);
        break;
    default:
        rc = from_string_other(kind, s, len, out, err);
        break;
    }
    if (!rc && out->oom)
        rc = nomem(err);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Java's number formatting (Double.toString, BigInteger.toString)           */
/* ------------------------------------------------------------------------ */

/*
 * The shortest decimal that reads back to v (then, as Java does since JDK
 * 19 and as it did for the usual cases before, a two-digit one when that is
 * closer than the one-digit shortest): digits without the point and the
 * decimal exponent of the first digit.
 */
static void shortest_digits(double v, int is_float, char *digits, int *nd, int *exp10)
{
    char buf[48];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        if (is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    if (p == 1) {
        char two[48];
        snprintf(two, sizeof two, "%.1e", v);
        if ((is_float ? strtof(two, NULL) == (float)v : strtod(two, NULL) == v) && two[2] != '0')
            memcpy(buf, two, sizeof buf);
    }
    const char *c = buf;
    *nd = 0;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            digits[(*nd)++] = *c;
    *exp10 = *c == 'e' ? atoi(c + 1) : 0;
    while (*nd > 1 && digits[*nd - 1] == '0')
        (*nd)--;
}

/*
 * Double.toString's layout: plain for 1e-3 <= |v| < 1e7, else d.dddE[-]n; always a fraction
 * digit; "NaN", "Infinity" and "-Infinity" spelled out.
 */
static void java_layout(double v, int is_float, eng_buf *out)
{
    if (isnan(v)) {
        eng_buf_put_str(out, "NaN");
        return;
    }
    if (isinf(v)) {
        eng_buf_put_str(out, v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (v == 0) {
        eng_buf_put_str(out, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char d[24];
    int nd, e;
    shortest_digits(fabs(v), is_float, d, &nd, &e);
    if (v < 0)
        eng_buf_put_u8(out, '-');
    if (e >= -3 && e < 7) {
        if (e < 0) {
            eng_buf_put_str(out, "0.");
            for (int i = -1; i > e; i--)
                eng_buf_put_u8(out, '0');
            eng_buf_put(out, d, (size_t)nd);
            return;
        }
        for (int i = 0; i <= e; i++)
            eng_buf_put_u8(out, i < nd ? (uint8_t)d[i] : '0');
        eng_buf_put_u8(out, '.');
        if (nd > e + 1)
            eng_buf_put(out, d + e + 1, (size_t)(nd - e - 1));
        else
            eng_buf_put_u8(out, '0');
        return;
    }
    eng_buf_put_u8(out, (uint8_t)d[0]);
    eng_buf_put_u8(out, '.');
    if (nd > 1)
        eng_buf_put(out, d + 1, (size_t)nd - 1);
    else
        eng_buf_put_u8(out, '0');
    eng_buf_printf(out, "E%d", e);
}

void eng_text_java_double(double v, eng_buf *out)
{
    java_layout(v, 0, out);
}

void eng_text_java_float(float v, eng_buf *out)
{
    java_layout((double)v, 1, out);
}

/* m /= d over n limbs (n trimmed after); returns the remainder. */
static uint32_t mag_divmod_small(uint32_t *m, size_t *n, uint32_t d)
{
    uint64_t rem = 0;
    for (size_t i = *n; i-- > 0;) {
        uint64_t v = rem << 32 | m[i];
        m[i] = (uint32_t)(v / d);
        rem = v % d;
    }
    eng_mag_trim(m, n);
    return (uint32_t)rem;
}

/* BigInteger.toString: the magnitude cut into base 10^9 groups, printed most significant first. */
void eng_text_varint(const uint8_t *p, size_t len, eng_buf *out)
{
    size_t cap = eng_mag_limbs(len), n = 0, ng = 0;
    uint32_t *m = eng_malloc(cap * sizeof *m);
    uint32_t *groups = eng_malloc((cap * 32 / 29 + 2) * sizeof *groups);
    if (!m || !groups) {
        eng_free(m);
        eng_free(groups);
        out->oom = 1;
        return;
    }
    int neg = len > 0 && eng_mag_from_twos(p, len, m, &n);
    do
        groups[ng++] = mag_divmod_small(m, &n, 1000000000u);
    while (n > 0);
    if (neg)
        eng_buf_put_u8(out, '-');
    eng_buf_printf(out, "%u", groups[ng - 1]);
    for (size_t i = ng - 1; i-- > 0;)
        eng_buf_printf(out, "%09u", groups[i]);
    eng_free(m);
    eng_free(groups);
}

/*
 * BigDecimal.toString (the same rule as Python's Decimal.__str__, both the
 * General Decimal Arithmetic "to-scientific-string"): plain notation when
 * the exponent is <= 0 and the adjusted exponent is >= -6, otherwise one
 * digit, a point, the rest and E+n / E-n.
 */
int eng_text_decimal(const uint8_t *p, size_t len, eng_buf *out)
{
    if (len < 4)
        return -1;
    int64_t exp = -(int64_t)(int32_t)eng_be32(p);
    eng_buf digits = ENG_BUF_INIT;
    eng_text_varint(p + 4, len - 4, &digits);
    if (digits.oom) {
        out->oom = 1;
        eng_buf_free(&digits);
        return 0;
    }
    const char *d = (const char *)digits.p;
    size_t nd = digits.len;
    if (d[0] == '-') {
        eng_buf_put_u8(out, '-');
        d++;
        nd--;
    }
    int64_t left = exp + (int64_t)nd; /* digits left of the point */
    int64_t dot = (exp <= 0 && left > -6) ? left : 1;
    if (dot <= 0) {
        eng_buf_put_str(out, "0.");
        for (int64_t i = 0; i < -dot; i++)
            eng_buf_put_u8(out, '0');
        eng_buf_put(out, d, nd);
    } else if ((size_t)dot >= nd) {
        eng_buf_put(out, d, nd);
        for (int64_t i = 0; i < dot - (int64_t)nd; i++)
            eng_buf_put_u8(out, '0');
    } else {
        eng_buf_put(out, d, (size_t)dot);
        eng_buf_put_u8(out, '.');
        eng_buf_put(out, d + dot, nd - (size_t)dot);
    }
    if (left != dot)
        eng_buf_printf(out, "E%+lld", (long long)(left - dot));
    eng_buf_free(&digits);
    return 0;
}

/* Duration.append: "<n><unit>" when the dividend reaches the divisor; returns the remainder. */
static uint64_t dur_part(eng_buf *out, uint64_t v, uint64_t div, const char *unit)
{
    if (v == 0 || v < div)
        return v;
    eng_buf_printf(out, "%llu%s", (unsigned long long)(v / div), unit);
    return v % div;
}

int eng_text_duration(const uint8_t *p, size_t len, eng_buf *out)
{
    int64_t v[3];
    size_t off = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = eng_get_vint(p + off, len - off, &v[i]);
        if (!n)
            return -1;
        off += n;
    }
    if (v[0] < 0 || v[1] < 0 || v[2] < 0)
        eng_buf_put_u8(out, '-');
    uint64_t a[3];
    for (int i = 0; i < 3; i++)
        a[i] = v[i] < 0 ? 0 - (uint64_t)v[i] : (uint64_t)v[i];
    dur_part(out, dur_part(out, a[0], 12, "y"), 1, "mo");
    dur_part(out, a[1], 1, "d");
    if (a[2]) {
        uint64_t r = dur_part(out, a[2], 3600000000000ULL, "h");
        r = dur_part(out, r, 60000000000ULL, "m");
        r = dur_part(out, r, 1000000000ULL, "s");
        r = dur_part(out, r, 1000000ULL, "ms");
        r = dur_part(out, r, 1000ULL, "us");
        dur_part(out, r, 1, "ns");
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* TypeSerializer.toString                                                   */
/* ------------------------------------------------------------------------ */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Julian-calendar date of a day since the epoch (days_from_julian's inverse). */
static void julian_from_days(int64_t days, int64_t *y, int *m, int *d)
{
    int64_t jdn = days + 2440588, cycles = 0;
    if (jdn < 0) { /* the formula wants a non-negative day number: move by whole 4-year cycles */
        cycles = -jdn / 1461 + 1;
        jdn += cycles * 1461;
    }
    int64_t c = jdn + 32082, dd = (4 * c + 3) / 1461, e = c - 1461 * dd / 4, mm = (5 * e + 2) / 153;
    *d = (int)(e - (153 * mm + 2) / 5 + 1);
    *m = (int)(mm + 3 - 12 * (mm / 10));
    *y = dd - 4800 + mm / 10 - 4 * cycles;
}

/*
 * SimpleDateFormat in UTC, so java.util.GregorianCalendar: Julian before
 * 1582-10-15, and 'yyyy' is the year of the era (1 BC prints as 0001, no
 * sign); 'X' of a zero offset is "Z".
 */
void eng_text_timestamp(int64_t ms, char sep, eng_buf *out)
{
    /* the time of day from the remainder: days * 86400000 overflows near INT64_MIN */
    int64_t days = floor_div(ms, 86400000), tod = ms % 86400000, y;
    if (tod < 0)
        tod += 86400000;
    int m, d;
    if (days >= eng_days_from_civil(1582, 10, 15))
        eng_civil_from_days(days, &y, &m, &d);
    else
        julian_from_days(days, &y, &m, &d);
    eng_buf_printf(out, "%04lld-%02d-%02d%c%02d:%02d:%02d.%03dZ", (long long)(y > 0 ? y : 1 - y), m,
                   d, sep, (int)(tod / 3600000), (int)(tod / 60000 % 60), (int)(tod / 1000 % 60),
                   (int)(tod % 1000));
}

/* SimpleDateSerializer.toString: ISO_LOCAL_DATE of the proleptic calendar, '+' beyond 4 digits. */
static void date_to_string(uint32_t raw, eng_buf *out)
{
    int64_t y;
    int m, d;
    eng_civil_from_days((int64_t)raw - 2147483648LL, &y, &m, &d);
    const char *sign = y > 9999 ? "+" : y < 0 ? "-" : "";
    eng_buf_printf(out, "%s%04lld-%02d-%02d", sign, (long long)(y < 0 ? -y : y), m, d);
}

/* TimeSerializer.leftPadZeros: a zero for each power of ten the value is below. */
static void java_pad(int64_t v, int digits, eng_buf *out)
{
    int64_t p = 10;
    for (int i = 1; i < digits; i++, p *= 10)
        if (v < p)
            eng_buf_put_u8(out, '0');
    eng_buf_printf(out, "%lld", (long long)v);
}

/* TimeSerializer.toString: hh:mm:ss.nnnnnnnnn, with Java's truncating remainders. */
static void time_to_string(int64_t v, eng_buf *out)
{
    int64_t parts[6];
    static const int64_t div[6] = {1000, 1000, 1000, 60, 60, 24};
    for (int i = 0; i < 6; i++) {
        parts[i] = v % div[i];
        v = (v - parts[i]) / div[i];
    }
    java_pad(parts[5], 2, out);
    eng_buf_put_u8(out, ':');
    java_pad(parts[4], 2, out);
    eng_buf_put_u8(out, ':');
    java_pad(parts[3], 2, out);
    eng_buf_put_u8(out, '.');
    java_pad(parts[2], 3, out);
    java_pad(parts[1], 3, out);
    java_pad(parts[0], 3, out);
}

/* UUID.toString: lower-case hex, 8-4-4-4-12. */
static void uuid_to_string(const uint8_t *p, eng_buf *out)
{
    for (int i = 0; i < 16; i++)
        eng_buf_printf(out, (i == 4 || i == 6 || i == 8 || i == 10) ? "-%02x" : "%02x", p[i]);
}

/*
 * InetAddress.getHostAddress (not cqlsh's compressed IPv6): a dotted quad,
 * or eight unpadded hex groups without "::" compression; an IPv4-mapped
 * address is an Inet4Address in Java (getByAddress), so a dotted quad.
 */
static void inet_to_string(const uint8_t *p, size_t len, eng_buf *out)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (len == 16 && !memcmp(p, mapped, 12)) {
        p += 12;
        len = 4;
    }
    if (len == 4) {
        eng_buf_printf(out, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
        return;
    }
    for (int i = 0; i < 8; i++)
        eng_buf_printf(out, i ? ":%x" : "%x", (unsigned)(p[2 * i] << 8 | p[2 * i + 1]));
}

/* ByteBufferUtil.bytesToHex: lower-case, no 0x. */
static void hex_to_string(const uint8_t *p, size_t len, eng_buf *out)
{
    static const char hex[] = "0123456789abcdef";
    if (eng_buf_reserve(out, 2 * len))
        return;
    for (size_t i = 0; i < len; i++) {
        out->p[out->len++] = (uint8_t)hex[p[i] >> 4];
        out->p[out->len++] = (uint8_t)hex[p[i] & 15];
    }
}

/* A validated value of a scalar type, non-empty. */
static void scalar_to_string(int kind, const uint8_t *p, size_t len, eng_buf *out)
{
    switch (kind) {
    case ENG_ASCII:
    case ENG_TEXT: /* AbstractTextSerializer.toString: the string itself */
        eng_buf_put(out, p, len);
        break;
    case ENG_BOOLEAN:
        eng_buf_put_str(out, p[0] ? "true" : "false");
        break;
    case ENG_FLOAT:
        eng_text_java_float(eng_get_float(p), out);
        break;
    case ENG_DOUBLE:
        eng_text_java_double(eng_get_double(p), out);
        break;
    case ENG_VARINT:
        eng_text_varint(p, len, out);
        break;
    case ENG_DECIMAL: /* validated: at least the scale */
        eng_text_decimal(p, len, out);
        break;
    case ENG_DURATION: /* validated: three vints */
        eng_text_duration(p, len, out);
        break;
    case ENG_TIMESTAMP: /* toCQLLiteral's FORMATTER_UTC, what CAST returns */
        eng_text_timestamp((int64_t)eng_be64(p), 'T', out);
        break;
    case ENG_DATE:
        date_to_string(eng_be32(p), out);
        break;
    case ENG_TIME:
        time_to_string((int64_t)eng_be64(p), out);
        break;
    case ENG_UUID:
    case ENG_TIMEUUID:
        uuid_to_string(p, out);
        break;
    case ENG_INET:
        inet_to_string(p, len, out);
        break;
    case ENG_BLOB:
    case ENG_CUSTOM:
        hex_to_string(p, len, out);
        break;
    default: { /* tinyint .. bigint, counter: String.valueOf of the sign-extended integer */
        uint64_t v = (p[0] & 0x80) ? UINT64_MAX : 0;
        for (size_t i = 0; i < len; i++)
            v = v << 8 | p[i];
        eng_buf_printf(out, "%lld", (long long)(int64_t)v);
        break;
    }
    }
}

int eng_text_to_string(const eng_type *type, const uint8_t *p, size_t len, eng_buf *out,
                       eng_err *err)
{
    if (!type || (!p && len))
        return eng_invalidf(err, "Invalid value");
    if (eng_type_is_collection(type) || type->kind == ENG_TUPLE || type->kind == ENG_UDT) {
        eng_buf name = ENG_BUF_INIT;
        eng_type_to_cql(type, &name);
        const char *tn = eng_buf_cstr(&name);
        int rc = eng_invalidf(err, "%s values have no text form", tn ? tn : "");
        eng_buf_free(&name);
        return rc;
    }
    int rc = eng_type_validate(type, p, len, err);
    if (rc)
        return rc;
    if (len > 0)
        scalar_to_string(type->kind, p, len, out);
    return out->oom ? nomem(err) : 0;
}

int eng_text_decimal_of_double(double d, eng_buf *out)
{
    if (!isfinite(d))
        return -1;
    eng_buf s = ENG_BUF_INIT;
    eng_text_java_double(d, &s);
    int rc = s.oom ? -1 : parse_decimal((const char *)s.p, s.len, out);
    eng_buf_free(&s);
    return rc == 0 && !out->oom ? 0 : -1;
}
