/*
 * The tests' view of a value as cqlsh prints it (test_render_cqlsh), from its
 * native bytes and type: the executor and system-table tests compare results
 * in this form. The shell renders from the driver API's getters
 * (cql/shell/render.c, checked against cqlsh by its own tests); this walks
 * raw bytes instead, and takes the shell's scalar pieces (text, floating
 * point, timestamps, dates, times) and engine/value/text's numbers, so both
 * print a value alike: integers, varints and decimals exactly, durations,
 * uuids, inets, and collections, tuples and UDTs item by item, sets and maps
 * in the order Python sorts them.
 *
 * Guarantees: any bytes are tolerated without reading out of bounds; a value
 * the driver could not decode is shown whole as its hex blob form, never as
 * partial text; allocation failure sets the buffer's oom flag, never fatal.
 */
#include "render_cqlsh.h"
#include "cql/shell/render.h"
#include "engine/value/text.h"
#include "engine/value/types_int.h"

#include <arpa/inet.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>

/* ------------------------------------------------------------------------ */
/* cqlsh rendering                                                           */
/* ------------------------------------------------------------------------ */

/*
 * cqlsh's display precisions (ui.float_precision / ui.double_precision).
 * cqlsh picks the precision by the cell's top-level type name, so a double
 * nested in a collection, tuple or UDT is shown with the float precision.
 */
#define FLOAT_PRECISION 5
#define DOUBLE_PRECISION 5 /* cqlsh: DEFAULT_DOUBLE_PRECISION = 5 */

/* A value the Python driver could not decode: render() returns RENDER_FAIL. */
#define RENDER_FAIL (-1)

static int render(const eng_type *t, const uint8_t *p, size_t len, int nested, int prec,
                  eng_buf *out);

static int64_t get_signed(const uint8_t *p, size_t len)
{
    uint64_t v = (p[0] & 0x80) ? UINT64_MAX : 0;
    for (size_t i = 0; i < len; i++)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Python's str(int) and Decimal.__str__ write what Java's BigInteger and BigDecimal do. */
static int render_decimal(const uint8_t *p, size_t len, eng_buf *out)
{
    return eng_text_decimal(p, len, out) ? RENDER_FAIL : 0;
}

/* cqlsh's duration_as_str: y, mo, d, then h, m, s, ms, us, ns; zero parts omitted. */
static int render_duration(const uint8_t *p, size_t len, eng_buf *out)
{
    int64_t v[3];
    size_t off = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = eng_get_vint(p + off, len - off, &v[i]);
        if (!n)
            return RENDER_FAIL;
        off += n;
    }
    if (v[0] < 0 || v[1] < 0 || v[2] < 0)
        eng_buf_put_u8(out, '-');
    uint64_t months = v[0] < 0 ? 0 - (uint64_t)v[0] : (uint64_t)v[0];
    uint64_t days = v[1] < 0 ? 0 - (uint64_t)v[1] : (uint64_t)v[1];
    uint64_t ns = v[2] < 0 ? 0 - (uint64_t)v[2] : (uint64_t)v[2];
    static const struct {
        uint64_t div;
        const char *unit;
    } parts[] = {{3600000000000ULL, "h"}, {60000000000ULL, "m"}, {1000000000ULL, "s"},
                 {1000000ULL, "ms"},      {1000ULL, "us"},       {1ULL, "ns"}};
    if (months >= 12)
        eng_buf_printf(out, "%lluy", (unsigned long long)(months / 12));
    if (months % 12)
        eng_buf_printf(out, "%llumo", (unsigned long long)(months % 12));
    if (days)
        eng_buf_printf(out, "%llud", (unsigned long long)days);
    for (size_t i = 0; i < ENG_ARRAY_LEN(parts) && ns; i++) {
        if (ns >= parts[i].div)
            eng_buf_printf(out, "%llu%s", (unsigned long long)(ns / parts[i].div), parts[i].unit);
        ns %= parts[i].div;
    }
    return 0;
}

static void render_uuid(const uint8_t *p, eng_buf *out)
{
    static const char digits[] = "0123456789abcdef";
    char s[37];
    size_t k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            s[k++] = '-';
        s[k++] = digits[p[i] >> 4];
        s[k++] = digits[p[i] & 15];
    }
    s[k] = 0;
    eng_buf_put_str(out, s);
}

static int render_inet(const uint8_t *p, size_t len, int quote, eng_buf *out)
{
    char s[INET6_ADDRSTRLEN];
    if ((len != 4 && len != 16) || !inet_ntop(len == 4 ? AF_INET : AF_INET6, p, s, sizeof s))
        return RENDER_FAIL;
    eng_buf_printf(out, quote ? "'%s'" : "%s", s);
    return 0;
}

/* One rendered element of a collection: its text in a scratch buffer and its bytes. */
typedef struct shown {
    size_t off, len; /* rendered text in the scratch buffer */
    eng_val raw, raw_val;
} shown;

/*
 * The driver hands cqlsh sets as Python-sorted sets and cqlsh sorts map
 * items, so the display order is Python's order of the decoded values. It
 * differs from Cassandra's for uuids (Python: unsigned 128-bit) and inets
 * (Python: the address strings); every other key type keeps stored order.
 */
static int python_order_differs(const eng_type *k)
{
    return k->kind == ENG_UUID || k->kind == ENG_TIMEUUID || k->kind == ENG_INET;
}

static int shown_before(const eng_type *k, const uint8_t *base, const shown *x, const shown *y)
{
    int c;
    if (k->kind == ENG_INET) {
        size_t n = x->len < y->len ? x->len : y->len;
        c = memcmp(base + x->off, base + y->off, n);
        if (!c)
            c = x->len < y->len ? -1 : x->len > y->len;
    } else {
        c = eng_cmp_bytes(x->raw.p, (size_t)ENG_MAX(x->raw.len, 0), y->raw.p,
                          (size_t)ENG_MAX(y->raw.len, 0));
    }
    return c < 0;
}

static void sort_shown(const eng_type *k, const uint8_t *base, shown *s, size_t n)
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

static int render_item(const eng_type *t, const eng_val *v, eng_buf *out)
{
    if (v->len < 0) {
        eng_buf_put_str(out, "null");
        return 0;
    }
    return render(t, v->p, (size_t)v->len, 1, FLOAT_PRECISION, out);
}

static int render_entries(const eng_type *t, eng_items *it, shown *s, int32_t n, eng_buf *scratch)
{
    int map = t->kind == ENG_MAP;
    for (int32_t i = 0; i < n; i++) {
        if (eng_items_next(it, &s[i].raw) != 1 || (map && eng_items_next(it, &s[i].raw_val) != 1))
            return RENDER_FAIL;
        s[i].off = scratch->len;
        if (render_item(t->sub[0], &s[i].raw, scratch))
            return RENDER_FAIL;
        if (map) {
            eng_buf_put_str(scratch, ": ");
            if (render_item(t->sub[1], &s[i].raw_val, scratch))
                return RENDER_FAIL;
        }
        s[i].len = scratch->len - s[i].off;
    }
    return it->p == it->end ? 0 : RENDER_FAIL;
}

/* [a, b] for lists, {a, b} for sets, {k: v} for maps. */
static int render_collection(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out)
{
    eng_items it;
    int32_t n = eng_items_begin(&it, p, len);
    if (n < 0 || (size_t)n > len / 4)
        return RENDER_FAIL;
    shown *s = eng_malloc((size_t)n * sizeof *s);
    eng_buf scratch = ENG_BUF_INIT;
    if (!s) {
        out->oom = 1;
        return 0;
    }
    int rc = render_entries(t, &it, s, n, &scratch);
    if (!rc && !scratch.oom) {
        if (t->kind != ENG_LIST && python_order_differs(t->sub[0]))
            sort_shown(t->sub[0], scratch.p, s, (size_t)n);
        eng_buf_put_u8(out, t->kind == ENG_LIST ? '[' : '{');
        for (int32_t i = 0; i < n; i++) {
            if (i)
                eng_buf_put_str(out, ", ");
            eng_buf_put(out, scratch.p + s[i].off, s[i].len);
        }
        eng_buf_put_u8(out, t->kind == ENG_LIST ? ']' : '}');
    }
    if (scratch.oom)
        out->oom = 1;
    eng_free(s);
    eng_buf_free(&scratch);
    return rc;
}

/*
 * (a, b) for tuples, {field: value} for UDTs. The driver pads a value with
 * fewer components than declared with None, which cqlsh shows as null;
 * UDT field names are printed as text, unquoted.
 */
static int render_tuple(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out)
{
    int udt = t->kind == ENG_UDT;
    eng_items it;
    eng_items_begin_raw(&it, p, len);
    eng_buf_put_u8(out, udt ? '{' : '(');
    for (int i = 0; i < t->n_sub; i++) {
        eng_val v = {NULL, ENG_NULL};
        if (i)
            eng_buf_put_str(out, ", ");
        if (udt) {
            const char *f = t->fields ? t->fields[i] : "";
            if (cql_render_text_bytes(0, (const uint8_t *)f, strlen(f), 0, out))
                return RENDER_FAIL;
            eng_buf_put_str(out, ": ");
        }
        if (eng_items_next(&it, &v) < 0 || render_item(t->sub[i], &v, out))
            return RENDER_FAIL;
    }
    if (it.p != it.end)
        return RENDER_FAIL;
    eng_buf_put_u8(out, udt ? '}' : ')');
    return 0;
}

static int render_fixed(const eng_type *t, const uint8_t *p, size_t len, int nested, int prec,
                        eng_buf *out)
{
    switch (t->kind) {
    case ENG_BOOLEAN:
        if (len != 1)
            return RENDER_FAIL;
        eng_buf_put_str(out, p[0] ? "True" : "False");
        return 0;
    case ENG_TINYINT:
    case ENG_SMALLINT:
    case ENG_INT:
    case ENG_BIGINT:
    case ENG_COUNTER: {
        size_t want = t->kind == ENG_TINYINT    ? 1
                      : t->kind == ENG_SMALLINT ? 2
                      : t->kind == ENG_INT      ? 4
                                                : 8;
        if (len != want)
            return RENDER_FAIL;
        eng_buf_printf(out, "%lld", (long long)get_signed(p, len));
        return 0;
    }
    case ENG_FLOAT:
        if (len != 4)
            return RENDER_FAIL;
        cql_render_floating((double)eng_get_float(p), prec, out);
        return 0;
    case ENG_DOUBLE:
        if (len != 8)
            return RENDER_FAIL;
        cql_render_floating(eng_get_double(p), prec, out);
        return 0;
    case ENG_TIMESTAMP:
        if (len != 8)
            return RENDER_FAIL;
        cql_render_timestamp((int64_t)eng_be64(p), nested, out);
        return 0;
    case ENG_DATE:
        if (len != 4)
            return RENDER_FAIL;
        cql_render_date(eng_be32(p), out);
        return 0;
    case ENG_TIME:
        return len == 8 ? cql_render_time((int64_t)eng_be64(p), out) : RENDER_FAIL;
    case ENG_UUID:
    case ENG_TIMEUUID:
        if (len != 16)
            return RENDER_FAIL;
        render_uuid(p, out);
        return 0;
    default:
        return RENDER_FAIL;
    }
}

/*
 * cqlsh shows a 0-byte value as an empty string (the driver's EMPTY), except
 * text, which decodes to '' (quoted when nested), and blobs, shown as 0x.
 */
static void render_empty(const eng_type *t, int nested, eng_buf *out)
{
    if (t->kind == ENG_BLOB || t->kind == ENG_CUSTOM)
        eng_buf_put_str(out, "0x");
    else if ((t->kind == ENG_TEXT || t->kind == ENG_ASCII) && nested)
        eng_buf_put_str(out, "''");
}

static int render(const eng_type *t, const uint8_t *p, size_t len, int nested, int prec,
                  eng_buf *out)
{
    if (len == 0) {
        render_empty(t, nested, out);
        return 0;
    }
    switch (t->kind) {
    case ENG_ASCII:
    case ENG_TEXT:
        return cql_render_text_bytes(t->kind == ENG_ASCII, p, len, nested, out);
    case ENG_BLOB:
    case ENG_CUSTOM:
        cql_render_hex(p, len, out);
        return 0;
    case ENG_VARINT:
        eng_text_varint(p, len, out);
        return 0;
    case ENG_DECIMAL:
        return render_decimal(p, len, out);
    case ENG_INET:
        return render_inet(p, len, nested, out);
    case ENG_DURATION:
        return render_duration(p, len, out);
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        return render_collection(t, p, len, out);
    case ENG_TUPLE:
    case ENG_UDT:
        return render_tuple(t, p, len, out);
    default:
        return render_fixed(t, p, len, nested, prec, out);
    }
}

void test_render_cqlsh(const eng_type *t, const uint8_t *p, size_t len, int nested, eng_buf *out)
{
    size_t start = out->len;
    int prec = (!nested && t && t->kind == ENG_DOUBLE) ? DOUBLE_PRECISION : FLOAT_PRECISION;
    if (!t || (!p && len) || render(t, p, len, nested, prec, out)) {
        if (!out->oom)
            out->len = start; /* drop the partial text: the whole value shows as a blob */
        cql_render_hex(p, p ? len : 0, out);
    }
}
