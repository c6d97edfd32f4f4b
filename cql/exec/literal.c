/*
 * Literal terms to native-serialized values, and the text form of every
 * type (literal.h). Two halves:
 *
 * - Text forms (AbstractType.fromString): Java's number grammars
 *   (Integer.parseInt, BigInteger, BigDecimal, Double.valueOf), the
 *   timestamp patterns of TimestampSerializer as commons-lang3's
 *   parseDateStrictly reads them (with the Julian calendar before
 *   1582-10-15, as java.util.GregorianCalendar), ISO dates
 *   (SimpleDateSerializer), times (TimeSerializer), durations
 *   (cql3/Duration), uuids, inet addresses.
 * - Terms: one walk shared by execution (cql_term_value builds bytes) and
 *   preparation (cql_term_bind_types records markers); both apply the same
 *   checks in Cassandra's order, so an error reads the same at prepare time
 *   and at execution time.
 *
 * Every parser takes explicit lengths and never reads past them.
 */
#include "cql/exec/literal.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_TERM_DEPTH 256

static int invalid(eng_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* eng_errorf has no va_list form: format here, then hand over the text. */
static int invalid(eng_err *err, const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return eng_errorf(err, ENG_E_INVALID, "%s", msg);
}

static int nomem(eng_err *err)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory");
}

/* Messages quote user text with %.*s: an int is enough for any message we keep. */
static int clen(size_t len)
{
    return len > 4096 ? 4096 : (int)len;
}

/* ------------------------------------------------------------------------ */
/* Java integers: Integer.parseInt, Long.parseLong, ... and BigInteger       */
/* ------------------------------------------------------------------------ */

/* An optional sign then ASCII digits, within [min, max]; 0 or -1. */
static int parse_java_int(const char *s, size_t len, int64_t min, int64_t max, int64_t *out)
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
static int parse_java_float(const char *s, size_t len, int is_float, double *out)
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

/* ------------------------------------------------------------------------ */
/* Calendars                                                                 */
/* ------------------------------------------------------------------------ */

int64_t cql_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void cql_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
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
    if (i == b || parse_java_int(s + b, i - b, INT32_MIN, INT32_MAX, v))
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
    int64_t days = julian ? days_from_julian(y, mo, d) : cql_days_from_civil(y, mo, d);
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
        if (parse_java_int(s, len, INT64_MIN, INT64_MAX, ms))
            return invalid(err, "Unable to make long (for date) from: '%.*s'", clen(len), s);
        return 0;
    }
    ts_fields f;
    for (size_t k = 0; k < ENG_ARRAY_LEN(ts_patterns); k++)
        if (!ts_try(ts_patterns[k], s, len, &f) && !ts_compute(&f, ms))
            return 0;
    return invalid(err, "Unable to coerce '%.*s' to a formatted date (long)", clen(len), s);
}

/* ------------------------------------------------------------------------ */
/* Dates (SimpleDateSerializer.dateStringToDays) and times (TimeSerializer)  */
/* ------------------------------------------------------------------------ */

/* ZonedDateTime.toString of a day at midnight UTC: "-5877641-06-23T00:00Z". */
static void iso_day(int64_t days, char *buf, size_t cap)
{
    int64_t y;
    int m, d;
    cql_civil_from_days(days, &y, &m, &d);
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
    if (parse_java_int(s + b, nd, 0, INT64_MAX, &y) || y > 999999999 || (sign == '-' && y == 0))
        return -1;
    y = sign == '-' ? -y : y;
    int m, d;
    if (i + 6 != len || s[i] != '-' || two_digits(s, i + 1, len, &m) || s[i + 3] != '-' ||
        two_digits(s, i + 4, len, &d))
        return -1;
    if (m < 1 || m > 12 || d < 1 || d > month_days(y < 0 ? -y : y, m, 0))
        return -1;
    *days = cql_days_from_civil(y, m, d);
    return 0;
}

static int parse_date(const char *s, size_t len, uint32_t *out, eng_err *err)
{
    if (len && all_digits(s + (s[0] == '-'), len - (s[0] == '-'))) {
        int64_t v;
        if (parse_java_int(s, len, INT64_MIN, INT64_MAX, &v) || v < 0 || v > 4294967295LL)
            return invalid(err, "Unable to make unsigned int (for date) from: '%.*s'", clen(len),
                           s);
        *out = (uint32_t)v;
        return 0;
    }
    int64_t days, ms;
    if (parse_iso_date(s, len, &days) || __builtin_mul_overflow(days, (int64_t)86400000, &ms))
        return invalid(err, "Unable to coerce '%.*s' to a formatted date (long)", clen(len), s);
    char lim[40];
    if (days < INT32_MIN) {
        iso_day(INT32_MIN, lim, sizeof lim);
        return invalid(err, "Input date %.*s is less than min supported date %s", clen(len), s,
                       lim);
    }
    if (days > INT32_MAX) {
        iso_day(INT32_MAX, lim, sizeof lim);
        return invalid(err, "Input date %.*s is greater than max supported date %s", clen(len), s,
                       lim);
    }
    *out = (uint32_t)(days + 2147483648LL);
    return 0;
}

/* Integer.parseInt of s[a..b) as an int. */
static int java_int_range(const char *s, size_t a, size_t b, int64_t *v)
{
    return b < a ? -1 : parse_java_int(s + a, b - a, INT32_MIN, INT32_MAX, v);
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
        if (parse_java_int(padded, 9, INT32_MIN, INT32_MAX, &nanos))
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
        if (parse_java_int(s, len, INT64_MIN, INT64_MAX, out) || *out < 0 ||
            *out >= 86400000000000LL)
            return invalid(err, "Unable to make long (for time) from: '%.*s'", clen(len), s);
        return 0;
    }
    if (parse_time_text(s, len, out))
        return invalid(err, "(TimeType) Unable to coerce '%.*s' to a formatted time (long)",
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
        return invalid(err, "Invalid duration. The total number of %s must be less or equal to %d",
                       name, INT32_MAX);
    return 0;
}

static int dur_add(dur_builder *b, int unit, int64_t n, eng_err *err)
{
    if (unit == b->unit)
        return invalid(err, "Invalid duration. The %s are specified multiple times",
                       unit_names[unit]);
    if (unit < b->unit)
        return invalid(err, "Invalid duration. The %s should be after %s", unit_names[b->unit],
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
    if (parse_java_int(s, len, INT64_MIN, INT64_MAX, v))
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
            return invalid(err, "Unable to convert '%.*s' to a duration", clen(len), s);
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
        return invalid(err, "Unable to convert '%.*s' to a duration", clen(len), s);
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
            return invalid(err, "Unable to convert '%.*s' to a duration", clen(len), s);
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
        return invalid(err, "Unable to convert '%.*s' to a duration", clen(len), s);
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
                                : invalid(err, "Unable to convert '' to a duration");
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
static int parse_uuid_text(const char *s, size_t len, uint8_t out[16])
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

/* Hex.hexToBytes: an even number of hex digits. */
static int put_hex_bytes(const char *s, size_t len, eng_buf *out)
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
    if (parse_java_int(s, len, -max - 1, max, &v))
        return invalid(err, "Unable to make %s from '%.*s'", ints[k].name, clen(len), s);
    put_be(out, (uint64_t)v, ints[k].bytes);
    return 0;
}

static int from_string_float(int kind, const char *s, size_t len, eng_buf *out, eng_err *err)
{
    double d;
    if (parse_java_float(s, len, kind == ENG_FLOAT, &d))
        return invalid(err, "Unable to make %s from '%.*s'", kind == ENG_FLOAT ? "float" : "double",
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
            return invalid(err,
                           "Invalid ASCII character in string literal: "
                           "java.nio.charset.UnmappableCharacterException: Input length = %d",
                           (unsigned char)s[i] >= 0xF0 ? 2 : 1);
    eng_buf_put(out, s, len);
    return 0;
}

static int from_string_uuid(int kind, const char *s, size_t len, eng_buf *out, eng_err *err)
{
    uint8_t u[16];
    if (parse_uuid_text(s, len, u))
        return kind == ENG_TIMEUUID
                   ? invalid(err, "Unknown timeuuid representation: %.*s", clen(len), s)
                   : invalid(err, "Unable to make UUID from '%.*s'", clen(len), s);
    if (kind == ENG_TIMEUUID && (u[6] >> 4) != 1)
        return invalid(err, "TimeUUID supports only version 1 UUIDs");
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
            return invalid(err, "unable to make int from '%.*s'", clen(len), s);
        return rc ? nomem(err) : 0;
    case ENG_DECIMAL:
        if ((rc = parse_decimal(s, len, out)) < 0)
            return invalid(err, "unable to make BigDecimal from '%.*s'", clen(len), s);
        return rc ? nomem(err) : 0;
    case ENG_INET:
        if (parse_inet(s, len, addr, &n))
            return invalid(err, "Unable to make inet address from '%.*s'", clen(len), s);
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
            return invalid(err, "Unable to make boolean from '%.*s'", clen(len), s);
        return 0;
    case ENG_BLOB:
    case ENG_CUSTOM:
        if (put_hex_bytes(s, len, out))
            return invalid(err, "cannot parse '%.*s' as hex bytes", clen(len), s);
        return 0;
    default: {
        eng_buf name = ENG_BUF_INIT;
        eng_buf_put_str(&name, eng_kind_name(kind) ? eng_kind_name(kind) : "this type");
        const char *t = eng_buf_cstr(&name);
        rc = invalid(err, "Unable to make a %s value from '%.*s'", t ? t : "", clen(len), s);
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
            invalid(err, "Invalid tuple literal: too many elements. Type %s expects %d but got %d",
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
            rc = cql_value_from_string(type->sub[k], (const char *)field.p, field.len, out, err);
            if (!rc && !out->oom)
                eng_put_be32(out->p + at, (uint32_t)(out->len - at - 4));
        }
        start = end + 1;
    }
    eng_buf_free(&field);
    return rc;
}

int cql_value_from_string(const eng_type *type, const char *s, size_t len, eng_buf *out,
                          eng_err *err)
{
    if (!type || (!s && len))
        return invalid(err, "Invalid value");
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

/* Double.toString's layout: plain for 1e-3 <= |v| < 1e7, else d.dddE[-]n; always a fraction digit.
 */
static void java_layout(double v, int is_float, eng_buf *out)
{
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

void cql_java_double_string(double v, eng_buf *out)
{
    java_layout(v, 0, out);
}

void cql_java_float_string(float v, eng_buf *out)
{
    java_layout((double)v, 1, out);
}

void cql_varint_string(const uint8_t *p, size_t len, eng_buf *out)
{
    if (len == 0) {
        eng_buf_put_u8(out, '0');
        return;
    }
    int neg = p[0] & 0x80;
    size_t n = (len + 3) / 4;
    uint32_t *m = eng_calloc(n, sizeof *m);
    uint32_t *groups = eng_malloc((len * 8 / 29 + 2) * sizeof *groups);
    if (!m || !groups) {
        eng_free(m);
        eng_free(groups);
        out->oom = 1;
        return;
    }
    unsigned carry = 1; /* magnitude of a negative: invert and add one, from the low end */
    for (size_t i = 0; i < len; i++) {
        unsigned b = p[len - 1 - i];
        if (neg) {
            b = (uint8_t)~b + carry;
            carry = b >> 8;
            b &= 0xFF;
        }
        m[i / 4] |= (uint32_t)b << (8 * (i % 4));
    }
    size_t ng = 0;
    while (n > 0 && m[n - 1] == 0)
        n--;
    do { /* base 10^9 digits, least significant first */
        uint64_t rem = 0;
        for (size_t i = n; i-- > 0;) {
            uint64_t cur = rem << 32 | m[i];
            m[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (n > 0 && m[n - 1] == 0)
            n--;
        groups[ng++] = (uint32_t)rem;
    } while (n > 0);
    if (neg)
        eng_buf_put_u8(out, '-');
    eng_buf_printf(out, "%u", groups[ng - 1]);
    for (size_t i = ng - 1; i-- > 0;)
        eng_buf_printf(out, "%09u", groups[i]);
    eng_free(m);
    eng_free(groups);
}

/* Duration.append: "<n><unit>" when the dividend reaches the divisor; returns the remainder. */
static uint64_t dur_part(eng_buf *out, uint64_t v, uint64_t div, const char *unit)
{
    if (v == 0 || v < div)
        return v;
    eng_buf_printf(out, "%llu%s", (unsigned long long)(v / div), unit);
    return v % div;
}

int cql_duration_string(const uint8_t *p, size_t len, eng_buf *out)
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
/* Term text (Term.Raw.getText) and type names for messages                  */
/* ------------------------------------------------------------------------ */

static void typeref_text(const cql_typeref *r, eng_buf *out, int depth)
{
    if (!r || depth > MAX_TERM_DEPTH)
        return;
    if (r->custom) {
        eng_buf_printf(out, "'%s'", r->custom);
        return;
    }
    if (r->ks)
        eng_buf_printf(out, "%s.", r->ks);
    eng_buf_put_str(out, r->name ? r->name : "");
    if (r->n_args > 0) {
        eng_buf_put_u8(out, '<');
        for (int i = 0; i < r->n_args; i++) {
            if (i)
                eng_buf_put_str(out, ", ");
            typeref_text(r->args[i], out, depth + 1);
        }
        eng_buf_put_u8(out, '>');
    }
}

static void term_text(const cql_term *t, eng_buf *out, int depth);

static void items_text(const cql_term *t, const char *open, const char *close, eng_buf *out,
                       int depth)
{
    eng_buf_put_str(out, open);
    int map = t->kind == CQL_T_MAP;
    for (int i = 0; i < t->n_items; i++) {
        if (i)
            eng_buf_put_str(out, map && i % 2 ? ": " : ", ");
        if (t->kind == CQL_T_UDT && t->names)
            eng_buf_printf(out, "%s: ", t->names[i] ? t->names[i] : "");
        term_text(t->items[i], out, depth + 1);
    }
    eng_buf_put_str(out, close);
}

static void term_text(const cql_term *t, eng_buf *out, int depth)
{
    if (!t || depth > MAX_TERM_DEPTH)
        return;
    const char *text = t->text ? t->text : "";
    size_t len = t->text ? t->len : 0;
    switch (t->kind) {
    case CQL_T_NULL:
        eng_buf_put_str(out, "NULL");
        break;
    case CQL_T_STRING:
        eng_buf_put_u8(out, '\'');
        eng_buf_put(out, text, len);
        eng_buf_put_u8(out, '\'');
        break;
    case CQL_T_HEX:
        eng_buf_put_str(out, "0x");
        eng_buf_put(out, text, len);
        break;
    case CQL_T_BIND:
        if (t->name)
            eng_buf_printf(out, ":%s", t->name);
        else
            eng_buf_put_u8(out, '?');
        break;
    case CQL_T_LIST:
        items_text(t, "[", "]", out, depth);
        break;
    case CQL_T_SET:
    case CQL_T_MAP:
    case CQL_T_UDT:
        items_text(t, "{", "}", out, depth);
        break;
    case CQL_T_TUPLE:
        items_text(t, "(", ")", out, depth);
        break;
    case CQL_T_FUNCTION:
        if (t->ks)
            eng_buf_printf(out, "%s.", t->ks);
        eng_buf_put_str(out, t->name ? t->name : "");
        items_text(t, "(", ")", out, depth);
        break;
    case CQL_T_CAST:
        eng_buf_put_str(out, "cast(");
        if (t->n_items > 0)
            term_text(t->items[0], out, depth + 1);
        eng_buf_put_str(out, " as ");
        typeref_text(t->type, out, 0);
        eng_buf_put_u8(out, ')');
        break;
    case CQL_T_HINT:
        eng_buf_put_u8(out, '(');
        typeref_text(t->type, out, 0);
        eng_buf_put_u8(out, ')');
        if (t->n_items > 0)
            term_text(t->items[0], out, depth + 1);
        break;
    case CQL_T_FIELD:
        if (t->n_items > 0)
            term_text(t->items[0], out, depth + 1);
        eng_buf_put_u8(out, '.');
        eng_buf_put(out, text, len);
        break;
    case CQL_T_STAR:
        eng_buf_put_u8(out, '*');
        break;
    default: /* constants and column names */
        eng_buf_put(out, text, len);
        break;
    }
}

void cql_term_text(const cql_term *t, eng_buf *out)
{
    term_text(t, out, 0);
}

/* Scratch strings for messages: a term's text and a type's CQL name, freed together. */
typedef struct msgbuf {
    eng_buf b[3];
} msgbuf;

static const char *msg_term(msgbuf *m, int slot, const cql_term *t)
{
    eng_buf_reset(&m->b[slot]);
    term_text(t, &m->b[slot], 0);
    const char *s = eng_buf_cstr(&m->b[slot]);
    return s ? s : "";
}

static const char *msg_type(msgbuf *m, int slot, const eng_type *t)
{
    eng_buf_reset(&m->b[slot]);
    eng_type_to_cql(t, &m->b[slot]);
    const char *s = eng_buf_cstr(&m->b[slot]);
    return s ? s : "";
}

static void msg_free(msgbuf *m)
{
    for (size_t i = 0; i < ENG_ARRAY_LEN(m->b); i++)
        eng_buf_free(&m->b[i]);
}

/* ------------------------------------------------------------------------ */
/* Assignment tests (AssignmentTestable)                                     */
/* ------------------------------------------------------------------------ */

static int is_constant(int kind)
{
    return kind >= CQL_T_INTEGER && kind <= CQL_T_DURATION;
}

static const char *constant_kind_name(int kind)
{
    static const char *const names[] = {"INTEGER", "FLOAT", "STRING",  "BOOLEAN",
                                        "UUID",    "HEX",   "DURATION"};
    return is_constant(kind) ? names[kind - CQL_T_INTEGER] : "";
}

/*
 * BigDecimal(text).compareTo(BigDecimal.valueOf(double)) == 0: the literal
 * is exactly Java's Double.toString of its nearest double, compared as
 * normalized digits and exponent.
 */
static int float_text_is_double(const char *s, size_t len)
{
    double d;
    if (parse_java_float(s, len, 0, &d) || !isfinite(d))
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

/* Constants.Type.getPreferedTypeFor: the type a constant is an exact match for (-1: none). */
static int preferred_kind(const cql_term *t)
{
    const char *s = t->text ? t->text : "";
    size_t len = t->text ? t->len : 0;
    int64_t v;
    uint8_t u[16];
    switch (t->kind) {
    case CQL_T_STRING:
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)s[i] >= 0x80)
                return ENG_TEXT;
        return ENG_ASCII;
    case CQL_T_INTEGER:
        if (!parse_java_int(s, len, INT32_MIN, INT32_MAX, &v))
            return ENG_INT;
        if (!parse_java_int(s, len, INT64_MIN, INT64_MAX, &v))
            return ENG_BIGINT;
        return ENG_VARINT;
    case CQL_T_UUID:
        if (parse_uuid_text(s, len, u))
            return -1;
        return (u[6] >> 4) == 1 ? ENG_TIMEUUID : ENG_UUID;
    case CQL_T_FLOAT: {
        size_t i = (len && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
        if ((len - i == 3 && !memcmp(s + i, "NaN", 3)) ||
            (len - i == 8 && !memcmp(s + i, "Infinity", 8)))
            return ENG_DOUBLE;
        return float_text_is_double(s, len) ? ENG_DOUBLE : ENG_DECIMAL;
    }
    case CQL_T_BOOLEAN:
        return ENG_BOOLEAN;
    case CQL_T_HEX:
        return ENG_BLOB;
    case CQL_T_DURATION:
        return ENG_DURATION;
    default:
        return -1;
    }
}

/* Constants.Literal.testAssignment. */
static int constant_test(const cql_term *t, const eng_type *type)
{
    int k = type->kind;
    if (eng_type_is_collection(type) || k == ENG_UDT)
        return CQL_NOT_ASSIGNABLE;
    if (k == ENG_TUPLE || k == ENG_CUSTOM) /* not CQL3Type.Native: validation skipped */
        return CQL_WEAKLY_ASSIGNABLE;
    if (preferred_kind(t) == k)
        return CQL_EXACT_MATCH;
    static const int string_ok[] = {ENG_ASCII, ENG_TEXT,      ENG_INET, ENG_DATE,
                                    ENG_TIME,  ENG_TIMESTAMP, 0};
    static const int integer_ok[] = {
        ENG_BIGINT, ENG_COUNTER,  ENG_DATE, ENG_DECIMAL,   ENG_DOUBLE,  ENG_DURATION, ENG_FLOAT,
        ENG_INT,    ENG_SMALLINT, ENG_TIME, ENG_TIMESTAMP, ENG_TINYINT, ENG_VARINT,   0};
    static const int uuid_ok[] = {ENG_UUID, ENG_TIMEUUID, 0};
    static const int float_ok[] = {ENG_DECIMAL, ENG_DOUBLE, ENG_FLOAT, 0};
    static const int boolean_ok[] = {ENG_BOOLEAN, 0};
    static const int hex_ok[] = {ENG_BLOB, 0};
    static const int duration_ok[] = {ENG_DURATION, 0};
    const int *ok = t->kind == CQL_T_STRING    ? string_ok
                    : t->kind == CQL_T_INTEGER ? integer_ok
                    : t->kind == CQL_T_UUID    ? uuid_ok
                    : t->kind == CQL_T_FLOAT   ? float_ok
                    : t->kind == CQL_T_BOOLEAN ? boolean_ok
                    : t->kind == CQL_T_HEX     ? hex_ok
                                               : duration_ok;
    for (; *ok; ok++)
        if (*ok == k)
            return CQL_WEAKLY_ASSIGNABLE;
    return CQL_NOT_ASSIGNABLE;
}

/* The native type a type hint names, or NULL (collections, UDTs, custom types). */
static eng_type *hint_type(const cql_typeref *r)
{
    if (!r || !r->name || r->custom || r->ks || r->n_args > 0)
        return NULL;
    int kind = eng_kind_from_name(r->name, strlen(r->name));
    return kind > 0 ? eng_type_new(kind) : NULL;
}

/* AbstractType.isValueCompatibleWith for native types (TypeCast's test). */
static int value_compatible(const eng_type *receiver, const eng_type *other)
{
    if (eng_type_equal(receiver, other))
        return 1;
    int r = receiver->kind, o = other->kind;
    switch (r) {
    case ENG_BLOB:
        return 1;
    case ENG_TEXT:
        return o == ENG_ASCII;
    case ENG_BIGINT:
        return o == ENG_TIMESTAMP;
    case ENG_TIMESTAMP:
    case ENG_TIME:
        return o == ENG_BIGINT;
    case ENG_DATE:
        return o == ENG_INT;
    case ENG_VARINT:
        return o == ENG_INT || o == ENG_BIGINT || o == ENG_TIMESTAMP;
    default:
        return 0;
    }
}

static int test_assign(const cql_term *t, const eng_type *type, int depth);

/* AssignmentTestable.TestResult.testAll over items[from], items[from+step], ... */
static int test_all(const cql_term *t, int from, int step, const eng_type *type, int depth)
{
    int res = CQL_EXACT_MATCH;
    for (int i = from; i < t->n_items; i += step) {
        int r = test_assign(t->items[i], type, depth + 1);
        if (r == CQL_NOT_ASSIGNABLE)
            return r;
        if (r == CQL_WEAKLY_ASSIGNABLE)
            res = r;
    }
    return res;
}

static int udt_field(const eng_type *type, const char *name)
{
    for (int i = 0; i < type->n_sub; i++)
        if (type->fields && type->fields[i] && name && !strcmp(type->fields[i], name))
            return i;
    return -1;
}

/* The literal's entry for a UDT field: the last one given (a HashMap put). */
static const cql_term *udt_entry(const cql_term *t, const char *field)
{
    const cql_term *found = NULL;
    for (int i = 0; i < t->n_items; i++)
        if (t->names && t->names[i] && field && !strcmp(t->names[i], field))
            found = t->items[i];
    return found;
}

static int test_shape(const cql_term *t, const eng_type *type, int depth)
{
    switch (t->kind) {
    case CQL_T_TUPLE:
        if (type->kind != ENG_TUPLE || t->n_items > type->n_sub)
            return CQL_NOT_ASSIGNABLE;
        for (int i = 0; i < t->n_items; i++)
            if (test_assign(t->items[i], type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
                return CQL_NOT_ASSIGNABLE;
        return CQL_WEAKLY_ASSIGNABLE;
    default: /* CQL_T_UDT */
        if (type->kind != ENG_UDT)
            return CQL_NOT_ASSIGNABLE;
        for (int i = 0; i < type->n_sub; i++) {
            const cql_term *v = udt_entry(t, type->fields ? type->fields[i] : NULL);
            if (v && test_assign(v, type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
                return CQL_NOT_ASSIGNABLE;
        }
        return CQL_WEAKLY_ASSIGNABLE;
    }
}

static int test_assign(const cql_term *t, const eng_type *type, int depth)
{
    if (!t || !type || depth > MAX_TERM_DEPTH)
        return CQL_NOT_ASSIGNABLE;
    if (is_constant(t->kind))
        return constant_test(t, type);
    int n = t->n_items;
    switch (t->kind) {
    case CQL_T_NULL:
        return type->kind == ENG_COUNTER ? CQL_NOT_ASSIGNABLE : CQL_WEAKLY_ASSIGNABLE;
    case CQL_T_BIND:
    case CQL_T_FUNCTION:
    case CQL_T_CAST:
        return CQL_WEAKLY_ASSIGNABLE;
    case CQL_T_LIST:
        if (type->kind != ENG_LIST)
            return CQL_NOT_ASSIGNABLE;
        return n == 0 ? CQL_WEAKLY_ASSIGNABLE : test_all(t, 0, 1, type->sub[0], depth);
    case CQL_T_SET:
    case CQL_T_MAP:
        if (n == 0) /* {} is an empty set literal that maps accept too */
            return type->kind == ENG_SET || type->kind == ENG_MAP ? CQL_WEAKLY_ASSIGNABLE
                                                                  : CQL_NOT_ASSIGNABLE;
        if (t->kind == CQL_T_SET)
            return type->kind == ENG_SET ? test_all(t, 0, 1, type->sub[0], depth)
                                         : CQL_NOT_ASSIGNABLE;
        if (type->kind != ENG_MAP)
            return CQL_NOT_ASSIGNABLE;
        {
            int a = test_all(t, 0, 2, type->sub[0], depth);
            int b = test_all(t, 1, 2, type->sub[1], depth);
            return a == CQL_NOT_ASSIGNABLE || b == CQL_NOT_ASSIGNABLE ? CQL_NOT_ASSIGNABLE
                   : a == CQL_EXACT_MATCH && b == CQL_EXACT_MATCH     ? CQL_EXACT_MATCH
                                                                      : CQL_WEAKLY_ASSIGNABLE;
        }
    case CQL_T_TUPLE:
    case CQL_T_UDT:
        return test_shape(t, type, depth);
    case CQL_T_HINT: {
        eng_type *h = hint_type(t->type);
        int r = !h                          ? CQL_WEAKLY_ASSIGNABLE
                : eng_type_equal(type, h)   ? CQL_EXACT_MATCH
                : value_compatible(type, h) ? CQL_WEAKLY_ASSIGNABLE
                                            : CQL_NOT_ASSIGNABLE;
        eng_type_free(h);
        return r;
    }
    default:
        return CQL_NOT_ASSIGNABLE;
    }
}

int cql_term_test_assignment(const cql_term *t, const eng_type *type)
{
    return test_assign(t, type, 0);
}

static int contains_marker(const cql_term *t, int depth)
{
    if (!t || depth > MAX_TERM_DEPTH)
        return 0;
    if (t->kind == CQL_T_BIND)
        return 1;
    for (int i = 0; i < t->n_items; i++)
        if (contains_marker(t->items[i], depth + 1))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The walk: values at execution, marker types at preparation                */
/* ------------------------------------------------------------------------ */

enum { W_VALUE = 0, W_TYPES = 1 };

/* Prepare-time state of a marker or a call: its value is not known yet. */
#define STATE_UNKNOWN 3

typedef void (*record_fn)(void *ctx, const cql_term *marker, const eng_type *type,
                          const char *name);

typedef struct walk {
    int mode;                /* W_VALUE or W_TYPES */
    const cql_term_env *env; /* W_VALUE */
    record_fn record;        /* W_TYPES */
    void *rctx;
    int quiet; /* inside a collection literal: markers there are refused, not recorded */
    eng_err *err;
    msgbuf msg;
} walk;

static int walk_term(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth);

static const cql_term null_term = {.kind = CQL_T_NULL};

/* Constants.Literal.prepare: assignable, then parsed by the receiver's fromString. */
static int walk_constant(walk *w, const cql_term *t, const eng_type *type, const char *name,
                         eng_buf *out)
{
    const char *text = t->text ? t->text : "";
    size_t len = t->text ? t->len : 0;
    if (constant_test(t, type) == CQL_NOT_ASSIGNABLE)
        return invalid(w->err, "Invalid %s constant (%s%.*s) for \"%s\" of type %s",
                       constant_kind_name(t->kind), t->kind == CQL_T_HEX ? "0x" : "", clen(len),
                       text, name, msg_type(&w->msg, 0, type));
    if (t->kind == CQL_T_HEX) { /* always BytesType, whatever the (blob or custom) receiver */
        if (put_hex_bytes(text, len, out))
            return invalid(w->err, "cannot parse '%.*s' as hex bytes", clen(len), text);
        return out->oom ? nomem(w->err) : 0;
    }
    return cql_value_from_string(type, text, len, out, w->err);
}

/* A type whose canonical form can differ from what a client sends. */
static int may_need_canon(const eng_type *t)
{
    return eng_type_is_collection(t) || t->kind == ENG_TUPLE || t->kind == ENG_UDT;
}

/* AbstractMarker: the bound value, validated (MarshalException text) and canonical. */
static int walk_bind(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state)
{
    if (w->mode == W_TYPES || w->quiet) { /* inside a collection literal it is refused next */
        if (w->record && !w->quiet)
            w->record(w->rctx, t, type, name);
        *state = STATE_UNKNOWN;
        return 0;
    }
    const cql_term_env *env = w->env;
    if (!env || !env->binds || t->bind_index < 0 || (uint32_t)t->bind_index >= env->n_binds)
        return invalid(w->err, "No value bound for bind marker %d", t->bind_index);
    eng_val v = env->binds[t->bind_index];
    if (v.len == ENG_NULL || v.len == ENG_UNSET) {
        *state = v.len == ENG_NULL ? CQL_VALUE_NULL : CQL_VALUE_UNSET;
        return 0;
    }
    if (v.len < 0 || (!v.p && v.len))
        return invalid(w->err, "Invalid bound value for %s", name);
    int rc = eng_type_validate(type, v.p, (size_t)v.len, w->err);
    if (rc)
        return rc;
    if (may_need_canon(type))
        return eng_type_canonicalize(type, v.p, (size_t)v.len, out, w->err);
    eng_buf_put(out, v.p, (size_t)v.len);
    return out->oom ? nomem(w->err) : 0;
}

/* A function call or CAST: the executor's business (function resolution and execution). */
static int walk_call(walk *w, const cql_term *t, const eng_type *type, eng_buf *out, int *state)
{
    if (w->mode == W_TYPES) {
        *state = STATE_UNKNOWN;
        return 0;
    }
    if (!w->env || !w->env->call)
        return invalid(w->err, "Function calls are not supported here");
    return w->env->call(w->env->ctx, t, type, out, state, w->err);
}

static const char *noun_of(int kind)
{
    return kind == ENG_LIST ? "list" : kind == ENG_SET ? "set" : "map";
}

/* Lists/Sets/Maps.Literal.validateAssignableTo. */
static int check_collection(walk *w, const cql_term *t, const eng_type *type, const char *name,
                            int depth)
{
    int want = t->kind == CQL_T_LIST ? ENG_LIST : t->kind == CQL_T_SET ? ENG_SET : ENG_MAP;
    if (t->n_items == 0 && t->kind != CQL_T_LIST) { /* {}: an empty set literal, maps take it too */
        if (type->kind == ENG_SET || type->kind == ENG_MAP)
            return 0;
        want = ENG_SET;
    }
    if (type->kind != want)
        return invalid(w->err, "Invalid %s literal for %s of type %s", noun_of(want), name,
                       msg_type(&w->msg, 0, type));
    int map = want == ENG_MAP;
    for (int i = 0; i < t->n_items; i++) {
        const eng_type *et = type->sub[map ? i % 2 : 0];
        if (test_assign(t->items[i], et, depth + 1) == CQL_NOT_ASSIGNABLE)
            return invalid(w->err, "Invalid %s literal for %s: %s %s is not of type %s",
                           noun_of(want), name, map && i % 2 == 0 ? "key" : "value",
                           msg_term(&w->msg, 1, t->items[i]), msg_type(&w->msg, 0, et));
    }
    return 0;
}

/* The prepare loop: each element prepared, then refused if it holds a marker. */
static int collection_elements(walk *w, const cql_term *t, const eng_type *type, const char *name,
                               eng_buf *body, int *st, int depth)
{
    int map = type->kind == ENG_MAP, rc = 0;
    eng_buf vname = ENG_BUF_INIT, kname = ENG_BUF_INIT;
    eng_buf_printf(&vname, "value(%s)", name);
    eng_buf_printf(&kname, "key(%s)", name);
    const char *vn = eng_buf_cstr(&vname), *kn = eng_buf_cstr(&kname);
    int quiet = w->quiet;
    w->quiet = 1;
    for (int i = 0; i < t->n_items && !rc; i++) {
        int key = map && i % 2 == 0;
        size_t at = body->len;
        eng_buf_put_be32(body, 0);
        rc = walk_term(w, t->items[i], type->sub[map ? i % 2 : 0], key ? kn : vn, body, &st[i],
                       depth + 1);
        if (!rc && !body->oom)
            eng_put_be32(body->p + at, (uint32_t)(body->len - at - 4));
        if (!rc && !key &&
            (contains_marker(t->items[i], 0) || (map && contains_marker(t->items[i - 1], 0))))
            rc = invalid(w->err,
                         "Invalid %s literal for %s: bind variables are not supported inside "
                         "collection literals",
                         noun_of(type->kind), name);
    }
    w->quiet = quiet;
    if (!rc && (!vn || !kn || body->oom))
        rc = nomem(w->err);
    eng_buf_free(&vname);
    eng_buf_free(&kname);
    return rc;
}

/*
 * Lists/Sets/Maps.DelayedValue.bind, element by element: a null is refused,
 * an unset key is refused, an unset element or value makes the whole
 * collection unset. Returns 1 for "unset".
 */
static int collection_bind_checks(walk *w, const cql_term *t, int map, const int *st)
{
    for (int i = 0; i < t->n_items; i++) {
        if (st[i] == CQL_VALUE_NULL)
            return invalid(w->err, "null is not supported inside collections");
        if (st[i] == CQL_VALUE_UNSET && map && i % 2 == 0)
            return invalid(w->err, "unset value is not supported for map keys");
        if (st[i] == CQL_VALUE_UNSET)
            return 1;
    }
    return 0;
}

static int walk_collection(walk *w, const cql_term *t, const eng_type *type, const char *name,
                           eng_buf *out, int *state, int depth)
{
    int rc = check_collection(w, t, type, name, depth);
    if (rc)
        return rc;
    if (t->n_items == 0) {
        eng_buf_put_be32(out, 0);
        return out->oom ? nomem(w->err) : 0;
    }
    int map = type->kind == ENG_MAP, unknown = 0;
    int *st = eng_calloc((size_t)t->n_items, sizeof *st);
    eng_buf body = ENG_BUF_INIT, whole = ENG_BUF_INIT;
    rc = st ? collection_elements(w, t, type, name, &body, st, depth) : nomem(w->err);
    for (int i = 0; !rc && i < t->n_items; i++)
        unknown |= st[i] == STATE_UNKNOWN;
    if (!rc && !unknown) {
        rc = collection_bind_checks(w, t, map, st);
        if (rc == 1) {
            *state = CQL_VALUE_UNSET;
            rc = 0;
        } else if (!rc && w->mode == W_VALUE) {
            eng_buf_put_be32(&whole, (uint32_t)(map ? t->n_items / 2 : t->n_items));
            eng_buf_put(&whole, body.p, body.len);
            if (whole.oom)
                rc = nomem(w->err);
            else if (type->kind == ENG_LIST)
                eng_buf_put(out, whole.p, whole.len);
            else if (!(rc = eng_type_validate(type, whole.p, whole.len, w->err)))
                rc = eng_type_canonicalize(type, whole.p, whole.len, out, w->err);
        }
    }
    eng_free(st);
    eng_buf_free(&body);
    eng_buf_free(&whole);
    return rc ? rc : out->oom ? nomem(w->err) : 0;
}

/* Tuples.Literal.validateAssignableTo. */
static int check_tuple(walk *w, const cql_term *t, const eng_type *type, const char *name,
                       int depth)
{
    if (type->kind != ENG_TUPLE)
        return invalid(w->err, "Invalid tuple type literal for %s of type %s", name,
                       msg_type(&w->msg, 0, type));
    for (int i = 0; i < t->n_items; i++) {
        if (i >= type->n_sub)
            return invalid(w->err,
                           "Invalid tuple literal for %s: too many elements. Type %s expects %d "
                           "but got %d",
                           name, msg_type(&w->msg, 0, type), type->n_sub, t->n_items);
        if (test_assign(t->items[i], type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
            return invalid(w->err, "Invalid tuple literal for %s: component %d is not of type %s",
                           name, i, msg_type(&w->msg, 0, type->sub[i]));
    }
    return 0;
}

/* One component or field as [bytes]; null and unset are written as null (-1). */
static int walk_item(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth)
{
    size_t at = out->len;
    eng_buf_put_be32(out, 0);
    int rc = walk_term(w, t, type, name, out, state, depth + 1);
    if (!rc && !out->oom)
        eng_put_be32(out->p + at,
                     *state == CQL_VALUE ? (uint32_t)(out->len - at - 4) : (uint32_t)-1);
    return rc;
}

static int walk_tuple(walk *w, const cql_term *t, const eng_type *type, const char *name,
                      eng_buf *out, int depth)
{
    int rc = check_tuple(w, t, type, name, depth);
    eng_buf cname = ENG_BUF_INIT;
    for (int i = 0; i < t->n_items && !rc; i++) {
        eng_buf_reset(&cname);
        eng_buf_printf(&cname, "%s[%d]", name, i);
        const char *cn = eng_buf_cstr(&cname);
        int st;
        rc = cn ? walk_item(w, t->items[i], type->sub[i], cn, out, &st, depth) : nomem(w->err);
        /* a tuple is written whole: an unset component cannot keep an old value */
        if (!rc && st == CQL_VALUE_UNSET)
            rc = invalid(w->err, "Invalid unset value for tuple field number %d", i);
    }
    eng_buf_free(&cname);
    return rc ? rc : out->oom ? nomem(w->err) : 0;
}

/* UserTypes.Literal.validateAssignableTo, then prepare field by field, then unknown fields. */
static int walk_udt(walk *w, const cql_term *t, const eng_type *type, const char *name,
                    eng_buf *out, int depth)
{
    if (type->kind != ENG_UDT)
        return invalid(w->err, "Invalid user type literal for %s of type %s", name,
                       msg_type(&w->msg, 0, type));
    for (int i = 0; i < type->n_sub; i++) {
        const cql_term *v = udt_entry(t, type->fields ? type->fields[i] : NULL);
        if (v && test_assign(v, type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
            return invalid(w->err, "Invalid user type literal for %s: field %s is not of type %s",
                           name, type->fields[i], msg_type(&w->msg, 0, type->sub[i]));
    }
    eng_buf fname = ENG_BUF_INIT;
    int rc = 0;
    for (int i = 0; i < type->n_sub && !rc; i++) {
        const char *field = type->fields && type->fields[i] ? type->fields[i] : "";
        const cql_term *v = udt_entry(t, field);
        eng_buf_reset(&fname);
        eng_buf_printf(&fname, "%s.%s", name, field);
        const char *fn = eng_buf_cstr(&fname);
        int st;
        rc = fn ? walk_item(w, v ? v : &null_term, type->sub[i], fn, out, &st, depth)
                : nomem(w->err);
        /* a frozen UDT is written whole; a non-frozen one simply leaves the field null */
        if (!rc && st == CQL_VALUE_UNSET && type->frozen)
            rc = invalid(w->err, "Invalid unset value for field '%s' of user defined type %s",
                         field, type->name ? type->name : "");
    }
    eng_buf_free(&fname);
    for (int i = 0; i < t->n_items && !rc; i++)
        if (udt_field(type, t->names ? t->names[i] : NULL) < 0)
            rc = invalid(w->err, "Unknown field '%s' in value of user defined type %s",
                         t->names && t->names[i] ? t->names[i] : "", type->name ? type->name : "");
    return rc ? rc : out->oom ? nomem(w->err) : 0;
}

/*
 * TypeCast ("(int) ?"): the operand must be assignable to the hinted type
 * and the hinted type value-compatible with the receiver; the operand is
 * then prepared for the receiver itself (so a marker gets the receiver's
 * name and type). Hints Cassandra resolves against the schema (UDTs,
 * collections) go to the executor like a function call.
 */
static int walk_hint(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth)
{
    const cql_term *inner = t->n_items > 0 ? t->items[0] : NULL;
    if (!inner)
        return invalid(w->err, "Invalid type hint");
    eng_type *h = hint_type(t->type);
    if (!h)
        return w->mode == W_VALUE && w->env && w->env->call
                   ? walk_call(w, t, type, out, state)
                   : walk_term(w, inner, type, name, out, state, depth + 1);
    int rc = 0;
    if (test_assign(inner, h, depth + 1) == CQL_NOT_ASSIGNABLE) {
        eng_buf tn = ENG_BUF_INIT;
        typeref_text(t->type, &tn, 0);
        const char *s = eng_buf_cstr(&tn);
        rc = invalid(w->err, "Cannot cast value %s to type %s", msg_term(&w->msg, 1, inner),
                     s ? s : "");
        eng_buf_free(&tn);
    } else if (!value_compatible(type, h)) {
        rc = invalid(w->err, "Cannot assign value %s to %s of type %s", msg_term(&w->msg, 1, t),
                     name, msg_type(&w->msg, 0, type));
    }
    eng_type_free(h);
    return rc ? rc : walk_term(w, inner, type, name, out, state, depth + 1);
}

static int walk_term(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth)
{
    *state = CQL_VALUE;
    if (!t || !type)
        return invalid(w->err, "Invalid term");
    if (depth > MAX_TERM_DEPTH)
        return invalid(w->err, "Term is nested too deeply");
    if (is_constant(t->kind))
        return walk_constant(w, t, type, name, out);
    switch (t->kind) {
    case CQL_T_NULL:
        if (type->kind == ENG_COUNTER)
            return invalid(w->err, "Invalid null value for counter increment/decrement");
        *state = CQL_VALUE_NULL;
        return 0;
    case CQL_T_BIND:
        return walk_bind(w, t, type, name, out, state);
    case CQL_T_LIST:
    case CQL_T_SET:
    case CQL_T_MAP:
        return walk_collection(w, t, type, name, out, state, depth);
    case CQL_T_TUPLE:
        return walk_tuple(w, t, type, name, out, depth);
    case CQL_T_UDT:
        return walk_udt(w, t, type, name, out, depth);
    case CQL_T_FUNCTION:
    case CQL_T_CAST:
        return walk_call(w, t, type, out, state);
    case CQL_T_HINT:
        return walk_hint(w, t, type, name, out, state, depth);
    default:
        return invalid(w->err, "Cannot use %s as a value for %s", msg_term(&w->msg, 1, t), name);
    }
}

int cql_term_value(const cql_term *t, const eng_type *type, const char *receiver,
                   const cql_term_env *env, eng_buf *out, int *state, eng_err *err)
{
    int dummy;
    if (!state)
        state = &dummy;
    *state = CQL_VALUE;
    if (!out)
        return invalid(err, "Invalid term");
    walk w = {.mode = W_VALUE, .env = env, .err = err};
    size_t start = out->len;
    int rc = walk_term(&w, t, type, receiver ? receiver : "", out, state, 0);
    if (!rc && out->oom)
        rc = nomem(err);
    if (rc || *state != CQL_VALUE) {
        out->len = ENG_MIN(out->len, start); /* nothing of a failed or valueless term stays */
        if (rc)
            *state = CQL_VALUE_NULL;
    }
    msg_free(&w.msg);
    return rc;
}

int cql_term_bind_types(const cql_term *t, const eng_type *type, const char *receiver,
                        void (*record)(void *ctx, const cql_term *marker, const eng_type *type,
                                       const char *name),
                        void *ctx, eng_err *err)
{
    walk w = {.mode = W_TYPES, .record = record, .rctx = ctx, .err = err};
    eng_buf scratch = ENG_BUF_INIT;
    int state;
    int rc = walk_term(&w, t, type, receiver ? receiver : "", &scratch, &state, 0);
    if (!rc && scratch.oom)
        rc = nomem(err);
    eng_buf_free(&scratch);
    msg_free(&w.msg);
    return rc;
}
