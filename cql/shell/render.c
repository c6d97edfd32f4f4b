/*
 * cqlsh's rendering of values (cqlshlib/formatting.py over the Python
 * driver's decoding), from CassValue and CassDataType through cassandra.h's
 * getters and iterators. The text forms Cassandra shares with cqlsh (varints,
 * decimals, durations, the civil calendar) come from engine/value/text.h;
 * what is cqlsh's own (Python's escapes and precisions, datetime's range,
 * sorted sets) is here.
 *
 * A value is rendered in one pass into the output; on a value the Python
 * driver would fail to decode, the pass reports RENDER_FAIL up to the cell,
 * whose partial text is dropped and replaced by the blob form of its bytes
 * (cqlsh shows a decoding error that way).
 */
#include "cql/shell/render.h"
#include "engine/value/text.h"

#include <arpa/inet.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>

/*
 * cqlsh's display precisions (ui.float_precision / ui.double_precision).
 * cqlsh picks the precision by the cell's top-level type name, so a double
 * nested in a collection, tuple or UDT is shown with the float precision.
 */
#define FLOAT_PRECISION 5
#define DOUBLE_PRECISION 5 /* cqlsh: DEFAULT_DOUBLE_PRECISION = 5 */

/* A value the Python driver could not decode: render() returns RENDER_FAIL. */
#define RENDER_FAIL (-1)

static int render(const CassValue *v, int nested, int prec, eng_buf *out);

/* ------------------------------------------------------------------------ */
/* Bytes and text                                                            */
/* ------------------------------------------------------------------------ */

void cql_render_hex(const uint8_t *p, size_t len, eng_buf *out)
{
    static const char digits[] = "0123456789abcdef";
    if (eng_buf_reserve(out, 2 + 2 * len))
        return;
    eng_buf_put_str(out, "0x");
    for (size_t i = 0; i < len; i++) {
        out->p[out->len++] = (uint8_t)digits[p[i] >> 4];
        out->p[out->len++] = (uint8_t)digits[p[i] & 15];
    }
}

static int is_collection(CassValueType t)
{
    return t == CASS_VALUE_TYPE_LIST || t == CASS_VALUE_TYPE_SET || t == CASS_VALUE_TYPE_MAP;
}

/*
 * The bytes of a value. The driver hands a collection's items without the
 * element count they follow, so only the item bytes are given for one.
 * Returns -1 for null.
 */
static int value_bytes(const CassValue *v, const uint8_t **p, size_t *len)
{
    const cass_byte_t *b;
    if (cass_value_get_bytes(v, &b, len) != CASS_OK)
        return -1;
    *p = b;
    return 0;
}

/* The blob form of a whole value, a collection with its element count put back in front. */
static void put_value_hex(const CassValue *v, eng_buf *out)
{
    const uint8_t *p = NULL;
    size_t len = 0;
    if (value_bytes(v, &p, &len))
        len = 0;
    if (!is_collection(cass_value_type(v))) {
        cql_render_hex(p, len, out);
        return;
    }
    eng_buf whole = ENG_BUF_INIT;
    eng_buf_put_be32(&whole, (uint32_t)cass_value_item_count(v));
    eng_buf_put(&whole, p, len);
    if (whole.oom)
        out->oom = 1;
    else
        cql_render_hex(whole.p, whole.len, out);
    eng_buf_free(&whole);
}

/* Strict UTF-8 (what Python's decoder accepts); returns the code point length or 0. */
static size_t utf8_next(const uint8_t *p, size_t len, uint32_t *cp)
{
    uint8_t b = p[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t n = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    if (!n || n > len)
        return 0;
    uint32_t c = b & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3F);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

/*
 * format_value_text: backslashes doubled, quotes doubled when quoted
 * (inside collections), then code points 00-1F and 7F-A0 shown as Python's
 * repr escapes (\t, \n, \r, \xNN).
 */
int cql_render_text_bytes(int ascii, const uint8_t *p, size_t len, int quote, eng_buf *out)
{
    if (quote)
        eng_buf_put_u8(out, '\'');
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = utf8_next(p + i, len - i, &c);
        if (!n || (ascii && c > 0x7F))
            return RENDER_FAIL;
        if (c == '\\')
            eng_buf_put_str(out, "\\\\");
        else if (c == '\'' && quote)
            eng_buf_put_str(out, "''");
        else if (c == '\t' || c == '\n' || c == '\r')
            eng_buf_put_str(out, c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r");
        else if (c <= 0x1F || (c >= 0x7F && c <= 0xA0))
            eng_buf_printf(out, "\\x%02x", (unsigned)c);
        else
            eng_buf_put(out, p + i, n);
        i += n;
    }
    if (quote)
        eng_buf_put_u8(out, '\'');
    return 0;
}

void cql_render_text(const char *s, size_t len, eng_buf *out)
{
    size_t start = out->len;
    const uint8_t *p = (const uint8_t *)(s ? s : "");
    if (cql_render_text_bytes(0, p, s ? len : 0, 0, out) && !out->oom) {
        out->len = start;
        cql_render_hex(p, s ? len : 0, out);
    }
}

static int render_text(const CassValue *v, int ascii, int quote, eng_buf *out)
{
    const char *s;
    size_t len;
    if (cass_value_get_string(v, &s, &len) != CASS_OK)
        return RENDER_FAIL;
    return cql_render_text_bytes(ascii, (const uint8_t *)s, len, quote, out);
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */
/* ------------------------------------------------------------------------ */

/* format_floating_point_type: '%.*g' with the precision widened for moderate exponents. */
void cql_render_floating(double v, int prec, eng_buf *out)
{
    if (isnan(v)) {
        eng_buf_put_str(out, "NaN");
        return;
    }
    if (isinf(v)) {
        eng_buf_put_str(out, v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (fabs(v) > 2.220446049250313e-16) {       /* sys.float_info.epsilon */
        long long e = (long long)log10(fabs(v)); /* int() truncates toward zero */
        if (e >= -4 && e < prec)
            prec = prec + (int)e + 1;
    }
    eng_buf_printf(out, "%.*g", prec, v);
}

/* ------------------------------------------------------------------------ */
/* Dates and times                                                           */
/* ------------------------------------------------------------------------ */

/* Python's datetime range: 0001-01-01 .. 9999-12-31, as days since the epoch. */
#define MIN_DAY (-719162LL)
#define MAX_DAY 2932896LL

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/*
 * The driver turns ms into datetime via timedelta(seconds=ms / 1000.0): the
 * microseconds come from that double, rounded half to even as CPython does.
 */
static int64_t py_timestamp_us(int64_t ms)
{
    double d = (double)ms / 1000.0, ip, ip2;
    double fp = modf(d, &ip);
    double fp2 = modf(fp * 1e6, &ip2);
    int64_t us = (int64_t)ip * 1000000 + (int64_t)ip2;
    double whole = round(fp2);
    if (fabs(whole - fp2) == 0.5)
        whole = (us & 1) ? (fp2 > 0 ? 1 : -1) : 0;
    return us + (int64_t)whole;
}

/*
 * cqlsh's default '%Y-%m-%d %H:%M:%S.%f%z' in UTC; outside Python's datetime
 * range cqlsh falls back to the raw milliseconds.
 */
void cql_render_timestamp(int64_t ms, int quote, eng_buf *out)
{
    /* a day beyond datetime's range cannot round back into it */
    int near = ms > (MIN_DAY - 1) * 86400000 && ms < (MAX_DAY + 2) * 86400000;
    int64_t us = near ? py_timestamp_us(ms) : 0;
    int64_t secs = floor_div(us, 1000000), day = floor_div(secs, 86400);
    const char *q = quote ? "'" : "";
    if (!near || day < MIN_DAY || day > MAX_DAY) {
        eng_buf_printf(out, "%s%lld%s", q, (long long)ms, q);
        return;
    }
    int64_t y;
    int mo, d;
    eng_civil_from_days(day, &y, &mo, &d);
    int64_t sod = secs - day * 86400;
    /* %Y is glibc's: no zero padding below year 1000 */
    eng_buf_printf(out, "%s%lld-%02d-%02d %02d:%02d:%02d.%06d+0000%s", q, (long long)y, mo, d,
                   (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60),
                   (int)(us - secs * 1000000), q);
}

void cql_render_date(uint32_t raw, eng_buf *out)
{
    int64_t days = (int64_t)raw - 2147483648LL;
    if (days < MIN_DAY || days > MAX_DAY) { /* util.Date falls back to the day count */
        eng_buf_printf(out, "%lld", (long long)days);
        return;
    }
    int64_t y;
    int m, d;
    eng_civil_from_days(days, &y, &m, &d);
    eng_buf_printf(out, "%04lld-%02d-%02d", (long long)y, m, d);
}

int cql_render_time(int64_t ns, eng_buf *out)
{
    if (ns < 0 || ns >= 86400000000000LL) /* util.Time refuses it */
        return RENDER_FAIL;
    int64_t s = ns / 1000000000;
    eng_buf_printf(out, "%02d:%02d:%02d.%09d", (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60),
                   (int)(ns % 1000000000));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Fixed-size types                                                          */
/* ------------------------------------------------------------------------ */

/* The size the Python driver unpacks for a fixed-size type; 0 for the others. */
static size_t fixed_size(CassValueType t)
{
    switch (t) {
    case CASS_VALUE_TYPE_BOOLEAN:
    case CASS_VALUE_TYPE_TINY_INT:
        return 1;
    case CASS_VALUE_TYPE_SMALL_INT:
        return 2;
    case CASS_VALUE_TYPE_INT:
    case CASS_VALUE_TYPE_FLOAT:
    case CASS_VALUE_TYPE_DATE:
        return 4;
    case CASS_VALUE_TYPE_BIGINT:
    case CASS_VALUE_TYPE_COUNTER:
    case CASS_VALUE_TYPE_DOUBLE:
    case CASS_VALUE_TYPE_TIMESTAMP:
    case CASS_VALUE_TYPE_TIME:
        return 8;
    case CASS_VALUE_TYPE_UUID:
    case CASS_VALUE_TYPE_TIMEUUID:
        return 16;
    default:
        return 0;
    }
}

static int render_integer(const CassValue *v, CassValueType t, eng_buf *out)
{
    long long n;
    CassError rc;
    if (t == CASS_VALUE_TYPE_TINY_INT) {
        cass_int8_t x = 0;
        rc = cass_value_get_int8(v, &x);
        n = x;
    } else if (t == CASS_VALUE_TYPE_SMALL_INT) {
        cass_int16_t x = 0;
        rc = cass_value_get_int16(v, &x);
        n = x;
    } else if (t == CASS_VALUE_TYPE_INT) {
        cass_int32_t x = 0;
        rc = cass_value_get_int32(v, &x);
        n = x;
    } else {
        cass_int64_t x = 0;
        rc = cass_value_get_int64(v, &x);
        n = x;
    }
    if (rc != CASS_OK)
        return RENDER_FAIL;
    eng_buf_printf(out, "%lld", n);
    return 0;
}

static int render_real(const CassValue *v, CassValueType t, int prec, eng_buf *out)
{
    double d;
    if (t == CASS_VALUE_TYPE_FLOAT) {
        cass_float_t f;
        if (cass_value_get_float(v, &f) != CASS_OK)
            return RENDER_FAIL;
        d = (double)f; /* the Python driver widens a float to a double */
    } else if (cass_value_get_double(v, &d) != CASS_OK) {
        return RENDER_FAIL;
    }
    cql_render_floating(d, prec, out);
    return 0;
}

static int render_temporal(const CassValue *v, CassValueType t, int nested, eng_buf *out)
{
    if (t == CASS_VALUE_TYPE_DATE) {
        cass_uint32_t days;
        if (cass_value_get_uint32(v, &days) != CASS_OK)
            return RENDER_FAIL;
        cql_render_date(days, out);
        return 0;
    }
    cass_int64_t n;
    if (cass_value_get_int64(v, &n) != CASS_OK)
        return RENDER_FAIL;
    if (t == CASS_VALUE_TYPE_TIME)
        return cql_render_time(n, out);
    cql_render_timestamp(n, nested, out);
    return 0;
}

/* Fixed-size values: the driver decodes one only when it has exactly its size. */
static int render_fixed(const CassValue *v, CassValueType t, size_t len, int nested, int prec,
                        eng_buf *out)
{
    size_t want = fixed_size(t);
    if (!want || len != want)
        return RENDER_FAIL;
    switch (t) {
    case CASS_VALUE_TYPE_BOOLEAN: {
        cass_bool_t b;
        if (cass_value_get_bool(v, &b) != CASS_OK)
            return RENDER_FAIL;
        eng_buf_put_str(out, b ? "True" : "False");
        return 0;
    }
    case CASS_VALUE_TYPE_FLOAT:
    case CASS_VALUE_TYPE_DOUBLE:
        return render_real(v, t, prec, out);
    case CASS_VALUE_TYPE_TIMESTAMP:
    case CASS_VALUE_TYPE_DATE:
    case CASS_VALUE_TYPE_TIME:
        return render_temporal(v, t, nested, out);
    case CASS_VALUE_TYPE_UUID:
    case CASS_VALUE_TYPE_TIMEUUID: {
        CassUuid u;
        char s[CASS_UUID_STRING_LENGTH];
        if (cass_value_get_uuid(v, &u) != CASS_OK)
            return RENDER_FAIL;
        cass_uuid_string(u, s);
        eng_buf_put_str(out, s);
        return 0;
    }
    default:
        return render_integer(v, t, out);
    }
}

static int render_inet(const CassValue *v, size_t len, int quote, eng_buf *out)
{
    CassInet a;
    char s[INET6_ADDRSTRLEN];
    if ((len != 4 && len != 16) || cass_value_get_inet(v, &a) != CASS_OK ||
        !inet_ntop(len == 4 ? AF_INET : AF_INET6, a.address, s, sizeof s))
        return RENDER_FAIL;
    eng_buf_printf(out, quote ? "'%s'" : "%s", s);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Collections, tuples, user types                                           */
/* ------------------------------------------------------------------------ */

/* One rendered element of a set or map: its text in a scratch buffer and its key's bytes. */
typedef struct shown {
    size_t off, len;    /* rendered text in the scratch buffer */
    const uint8_t *key; /* the item's (a map entry's key's) bytes; NULL for null */
    size_t key_len;
} shown;

/*
 * The driver hands cqlsh sets as Python-sorted sets and cqlsh sorts map
 * items, so the display order is Python's order of the decoded values. It
 * differs from Cassandra's for uuids (Python: unsigned 128-bit) and inets
 * (Python: the address strings); every other key type keeps stored order.
 */
static int python_order_differs(CassValueType k)
{
    return k == CASS_VALUE_TYPE_UUID || k == CASS_VALUE_TYPE_TIMEUUID || k == CASS_VALUE_TYPE_INET;
}

static int mem_order(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : alen < blen ? -1 : alen > blen;
}

static int shown_before(CassValueType k, const uint8_t *base, const shown *x, const shown *y)
{
    if (k == CASS_VALUE_TYPE_INET)
        return mem_order(base + x->off, x->len, base + y->off, y->len) < 0;
    return mem_order(x->key, x->key_len, y->key, y->key_len) < 0;
}

static void sort_shown(CassValueType k, const uint8_t *base, shown *s, size_t n)
{
    for (size_t i = 1; i < n; i++) { /* insertion sort: stable, and inputs are mostly sorted */
        shown x = s[i];
        size_t j = i;
        while (j > 0 && shown_before(k, base, &x, &s[j - 1])) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = x;
    }
}

/* The bytes an item takes in its parent: a 4-byte length, then its own bytes. */
static size_t item_size(const CassValue *v, const uint8_t **p, size_t *len)
{
    *p = NULL;
    *len = 0;
    if (value_bytes(v, p, len))
        return 4; /* null */
    /* A nested collection's bytes come without its element count. */
    return 4 + *len + (is_collection(cass_value_type(v)) ? 4 : 0);
}

static int render_item(const CassValue *v, eng_buf *out)
{
    return v ? render(v, 1, FLOAT_PRECISION, out) : RENDER_FAIL;
}

/*
 * Renders the n items (entries) into scratch. The items must be exactly the
 * value's bytes: fewer items than counted or bytes left over mean the driver
 * could not decode it.
 */
static int render_entries(CassIterator *it, int map, shown *s, size_t n, size_t body_len,
                          eng_buf *scratch)
{
    size_t used = 0, i = 0;
    for (; i < n && cass_iterator_next(it); i++) {
        const CassValue *k = map ? cass_iterator_get_map_key(it) : cass_iterator_get_value(it);
        s[i].off = scratch->len;
        used += k ? item_size(k, &s[i].key, &s[i].key_len) : 0;
        if (render_item(k, scratch))
            return RENDER_FAIL;
        if (map) {
            const CassValue *val = cass_iterator_get_map_value(it);
            const uint8_t *p;
            size_t len;
            used += val ? item_size(val, &p, &len) : 0;
            eng_buf_put_str(scratch, ": ");
            if (render_item(val, scratch))
                return RENDER_FAIL;
        }
        s[i].len = scratch->len - s[i].off;
    }
    return i == n && used == body_len ? 0 : RENDER_FAIL;
}

/* [a, b] for lists, {a, b} for sets, {k: v} for maps. */
static int render_collection(const CassValue *v, CassValueType t, eng_buf *out)
{
    const uint8_t *body;
    size_t body_len, n = cass_value_item_count(v);
    int map = t == CASS_VALUE_TYPE_MAP;
    if (value_bytes(v, &body, &body_len) || n > body_len / (map ? 8 : 4))
        return RENDER_FAIL; /* more items than bytes for them */
    CassIterator *it = map ? cass_iterator_from_map(v) : cass_iterator_from_collection(v);
    shown *s = eng_malloc((n ? n : 1) * sizeof *s);
    eng_buf scratch = ENG_BUF_INIT;
    int rc = 0;
    if (!it || !s) {
        out->oom = 1;
    } else {
        rc = render_entries(it, map, s, n, body_len, &scratch);
        if (!rc && !scratch.oom) {
            if (t != CASS_VALUE_TYPE_LIST && python_order_differs(cass_value_primary_sub_type(v)))
                sort_shown(cass_value_primary_sub_type(v), eng_buf_at(&scratch, 0), s, n);
            eng_buf_put_u8(out, t == CASS_VALUE_TYPE_LIST ? '[' : '{');
            for (size_t i = 0; i < n; i++) {
                if (i)
                    eng_buf_put_str(out, ", ");
                eng_buf_put(out, eng_buf_at(&scratch, s[i].off), s[i].len);
            }
            eng_buf_put_u8(out, t == CASS_VALUE_TYPE_LIST ? ']' : '}');
        }
        if (scratch.oom)
            out->oom = 1;
    }
    cass_iterator_free(it);
    eng_free(s);
    eng_buf_free(&scratch);
    return rc;
}

/*
 * Whether a tuple's or user type's bytes are exactly its components': the
 * driver reads components missing at the end as null, so the bytes may stop
 * before trailing nulls but must never run past the last component.
 */
typedef struct components {
    size_t present; /* bytes of the non-null components, lengths included */
    size_t nulls;   /* null components */
    size_t trailing_nulls;
} components;

static void count_component(components *c, const CassValue *v)
{
    const uint8_t *p;
    size_t len;
    if (value_bytes(v, &p, &len)) {
        c->nulls++;
        c->trailing_nulls++;
    } else {
        c->present += item_size(v, &p, &len);
        c->trailing_nulls = 0;
    }
}

static int components_fit(const components *c, size_t len)
{
    if (len < c->present || (len - c->present) % 4)
        return 0;
    size_t written_nulls = (len - c->present) / 4;
    return written_nulls <= c->nulls && c->nulls - written_nulls <= c->trailing_nulls;
}

/*
 * (a, b) for tuples, {field: value} for UDTs. The driver pads a value with
 * fewer components than declared with None, which cqlsh shows as null;
 * UDT field names are printed as text, unquoted.
 */
static int render_tuple(const CassValue *v, int udt, size_t len, eng_buf *out)
{
    CassIterator *it = udt ? cass_iterator_fields_from_user_type(v) : cass_iterator_from_tuple(v);
    if (!it) {
        out->oom = 1;
        return 0;
    }
    size_t n = cass_value_item_count(v);
    components c = {0, 0, 0};
    int rc = 0;
    eng_buf_put_u8(out, udt ? '{' : '(');
    for (size_t i = 0; !rc && i < n; i++) {
        if (!cass_iterator_next(it)) {
            rc = RENDER_FAIL; /* a component's length runs past the bytes */
            break;
        }
        if (i)
            eng_buf_put_str(out, ", ");
        const CassValue *item =
            udt ? cass_iterator_get_user_type_field_value(it) : cass_iterator_get_value(it);
        if (udt) {
            const char *name;
            size_t name_len;
            if (cass_iterator_get_user_type_field_name(it, &name, &name_len) != CASS_OK ||
                cql_render_text_bytes(0, (const uint8_t *)name, name_len, 0, out)) {
                rc = RENDER_FAIL;
                break;
            }
            eng_buf_put_str(out, ": ");
        }
        if (item)
            count_component(&c, item);
        rc = render_item(item, out);
    }
    cass_iterator_free(it);
    if (!rc && !components_fit(&c, len))
        rc = RENDER_FAIL;
    eng_buf_put_u8(out, udt ? '}' : ')');
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * cqlsh shows a 0-byte value as an empty string (the driver's EMPTY), except
 * text, which decodes to '' (quoted when nested), and blobs, shown as 0x.
 */
static void render_empty(CassValueType t, int nested, eng_buf *out)
{
    if (t == CASS_VALUE_TYPE_BLOB || t == CASS_VALUE_TYPE_CUSTOM)
        eng_buf_put_str(out, "0x");
    else if ((t == CASS_VALUE_TYPE_TEXT || t == CASS_VALUE_TYPE_VARCHAR ||
              t == CASS_VALUE_TYPE_ASCII) &&
             nested)
        eng_buf_put_str(out, "''");
}

static int render(const CassValue *v, int nested, int prec, eng_buf *out)
{
    CassValueType t = cass_value_type(v);
    const uint8_t *p;
    size_t len;
    if (value_bytes(v, &p, &len)) {
        eng_buf_put_str(out, "null"); /* cqlsh's default null placeholder */
        return 0;
    }
    /* A collection's bytes come after its count: even an empty one is rendered, as [] or {}. */
    if (is_collection(t))
        return render_collection(v, t, out);
    if (len == 0) {
        render_empty(t, nested, out);
        return 0;
    }
    if (cass_value_is_duration(v)) /* cqlsh's duration_as_str is Duration.toString */
        return eng_text_duration(p, len, out) ? RENDER_FAIL : 0;
    switch (t) {
    case CASS_VALUE_TYPE_ASCII:
    case CASS_VALUE_TYPE_TEXT:
    case CASS_VALUE_TYPE_VARCHAR:
        return render_text(v, t == CASS_VALUE_TYPE_ASCII, nested, out);
    case CASS_VALUE_TYPE_BLOB:
    case CASS_VALUE_TYPE_CUSTOM:
        cql_render_hex(p, len, out);
        return 0;
    case CASS_VALUE_TYPE_VARINT:
        eng_text_varint(p, len, out);
        return 0;
    case CASS_VALUE_TYPE_DECIMAL:
        /* Python's Decimal.__str__ follows the same rule as BigDecimal.toString */
        return eng_text_decimal(p, len, out) ? RENDER_FAIL : 0;
    case CASS_VALUE_TYPE_INET:
        return render_inet(v, len, nested, out);
    case CASS_VALUE_TYPE_TUPLE:
    case CASS_VALUE_TYPE_UDT:
        return render_tuple(v, t == CASS_VALUE_TYPE_UDT, len, out);
    default:
        return render_fixed(v, t, len, nested, prec, out);
    }
}

void cql_render_value(const CassValue *value, eng_buf *out)
{
    size_t start = out->len;
    int prec =
        cass_value_type(value) == CASS_VALUE_TYPE_DOUBLE ? DOUBLE_PRECISION : FLOAT_PRECISION;
    if (render(value, 0, prec, out) && !out->oom) {
        out->len = start; /* drop the partial text: the whole value shows as a blob */
        put_value_hex(value, out);
    }
}
