/*
 * JSON in CQL (json.h): values to JSON text as Cassandra's toJSONString
 * writes them, and JSON text to values as fromJSONObject reads them. The
 * text of a scalar either way is engine/value/text's (toString, fromString):
 * this file adds only JSON's quoting, escaping and structure.
 *
 * Reading happens in two steps, like Cassandra's: the text is parsed into
 * the object model Jackson would build (null, Boolean, Integer / Long /
 * BigInteger, Double, String, ArrayList, LinkedHashMap), then each type
 * converts that model; the messages print the model the way Java's
 * toString does ("[1, 2]", "{a=1}") with the class's simple name. Nodes
 * live in an arena freed when the call ends.
 */
#include "cql/exec/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* JSON nests as deep as an INSERT JSON row holding a value of the deepest type the schema
   accepts, and no deeper: the parser and the converters recurse once per level. */
#define MAX_DEPTH (ENG_MAX_TYPE_DEPTH + 1)

static int nomem(eng_err *err)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory");
}

static const char *cstr(eng_buf *b)
{
    const char *s = eng_buf_cstr(b);
    return s ? s : "";
}

/* ------------------------------------------------------------------------ */
/* Output (toJSONString)                                                     */
/* ------------------------------------------------------------------------ */

/* Jackson's JsonStringEncoder.quoteAsString: quote, backslash and control characters escaped. */
static void put_escaped(const uint8_t *p, size_t len, eng_buf *out)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < len; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') {
            eng_buf_put_u8(out, '\\');
            eng_buf_put_u8(out, c);
        } else if (c < 0x20) {
            const char *short_form = c == '\b'   ? "\\b"
                                     : c == '\t' ? "\\t"
                                     : c == '\f' ? "\\f"
                                     : c == '\n' ? "\\n"
                                     : c == '\r' ? "\\r"
                                                 : NULL;
            if (short_form) {
                eng_buf_put_str(out, short_form);
            } else {
                char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
                eng_buf_put_str(out, u);
            }
        } else {
            eng_buf_put_u8(out, c);
        }
    }
}

static void put_quoted(const uint8_t *p, size_t len, eng_buf *out)
{
    eng_buf_put_u8(out, '"');
    put_escaped(p, len, out);
    eng_buf_put_u8(out, '"');
}

static int json_value(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, int depth);

/* A map key must be a JSON string: a key written any other way is quoted as a whole. */
static int put_map_key(const eng_type *t, const eng_val *k, eng_buf *out, int depth)
{
    eng_buf key = ENG_BUF_INIT;
    int rc = k->len < 0 ? (eng_buf_put_str(&key, "null"), 0)
                        : json_value(t, k->p, (size_t)k->len, &key, depth + 1);
    if (!rc && key.len && key.p[0] == '"')
        eng_buf_put(out, key.p, key.len);
    else if (!rc)
        put_quoted(key.p, key.len, out);
    if (key.oom)
        out->oom = 1;
    eng_buf_free(&key);
    return rc;
}

static int put_item(const eng_type *t, const eng_val *v, eng_buf *out, int depth)
{
    if (v->len < 0) {
        eng_buf_put_str(out, "null");
        return 0;
    }
    return json_value(t, v->p, (size_t)v->len, out, depth + 1);
}

/* Lists and sets as arrays, maps as objects ({"k": v}). */
static int json_collection(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, int depth)
{
    int map = t->kind == ENG_MAP;
    eng_buf_put_u8(out, map ? '{' : '[');
    eng_items it;
    int32_t n = len ? eng_items_begin(&it, p, len) : 0;
    if (n < 0)
        return -1;
    for (int32_t i = 0; i < n; i++) {
        eng_val k, v;
        if (i)
            eng_buf_put_str(out, ", ");
        if (eng_items_next(&it, &k) != 1)
            return -1;
        if (!map) {
            if (put_item(t->sub[0], &k, out, depth))
                return -1;
            continue;
        }
        if (eng_items_next(&it, &v) != 1 || put_map_key(t->sub[0], &k, out, depth))
            return -1;
        eng_buf_put_str(out, ": ");
        if (put_item(t->sub[1], &v, out, depth))
            return -1;
    }
    if (len && it.p != it.end)
        return -1;
    eng_buf_put_u8(out, map ? '}' : ']');
    return 0;
}

/* Whether a name is written quoted: Cassandra checks name == name.toLowerCase(). */
static int has_upper(const char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            return 1;
    return 0;
}

static void put_name(const char *name, eng_buf *out)
{
    eng_buf_put_u8(out, '"');
    if (has_upper(name)) {
        eng_buf_put_str(out, "\\\"");
        put_escaped((const uint8_t *)name, strlen(name), out);
        eng_buf_put_str(out, "\\\"");
    } else {
        put_escaped((const uint8_t *)name, strlen(name), out);
    }
    eng_buf_put_u8(out, '"');
}

/* Tuples as arrays, UDTs as objects; components missing at the end are null. */
static int json_tuple(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, int depth)
{
    int udt = t->kind == ENG_UDT;
    eng_items it;
    eng_items_begin_raw(&it, p, len);
    eng_buf_put_u8(out, udt ? '{' : '[');
    for (int i = 0; i < t->n_sub; i++) {
        eng_val v = {NULL, ENG_NULL};
        if (i)
            eng_buf_put_str(out, ", ");
        if (udt) {
            put_name(t->fields && t->fields[i] ? t->fields[i] : "", out);
            eng_buf_put_str(out, ": ");
        }
        if (eng_items_next(&it, &v) < 0 || put_item(t->sub[i], &v, out, depth))
            return -1;
    }
    if (it.p != it.end)
        return -1;
    eng_buf_put_u8(out, udt ? '}' : ']');
    return 0;
}

/* JSON has no NaN or Infinity: Cassandra writes null for them (JsonTest). */
static int non_finite(int kind, const uint8_t *p, size_t len)
{
    if (kind == ENG_FLOAT && len == 4) {
        float f;
        uint32_t bits = eng_be32(p);
        memcpy(&f, &bits, 4);
        return !isfinite(f);
    }
    if (kind == ENG_DOUBLE && len == 8) {
        double d;
        uint64_t bits = eng_be64(p);
        memcpy(&d, &bits, 8);
        return !isfinite(d);
    }
    return 0;
}

/*
 * A non-empty scalar: the serializer's text (eng_text_to_string), bare for
 * numbers and booleans, quoted for the rest; blobs as "0x..."
 * (BytesType.toJSONString), timestamps in the JSON format
 * (TimestampSerializer.getJsonDateFormatter: a space, not a 'T').
 */
static int json_scalar(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out)
{
    int k = t->kind;
    if (non_finite(k, p, len)) {
        eng_buf_put_str(out, "null");
        return 0;
    }
    if (k == ENG_TIMESTAMP) {
        if (len != 8)
            return -1;
        eng_buf_put_u8(out, '"');
        eng_text_timestamp((int64_t)eng_be64(p), ' ', out);
        eng_buf_put_u8(out, '"');
        return 0;
    }
    int bare = k == ENG_BOOLEAN || k == ENG_TINYINT || k == ENG_SMALLINT || k == ENG_INT ||
               k == ENG_BIGINT || k == ENG_COUNTER || k == ENG_VARINT || k == ENG_DECIMAL ||
               k == ENG_FLOAT || k == ENG_DOUBLE;
    eng_err err;
    eng_err_clear(&err);
    if (!bare)
        eng_buf_put_str(out, k == ENG_BLOB || k == ENG_CUSTOM ? "\"0x" : "\"");
    if (eng_text_to_string(t, p, len, out, &err))
        return -1;
    if (!bare)
        eng_buf_put_u8(out, '"');
    return 0;
}

static int json_value(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, int depth)
{
    if (!t || depth > MAX_DEPTH || (!p && len))
        return -1;
    int k = t->kind;
    if (len == 0 && k != ENG_ASCII && k != ENG_TEXT && k != ENG_BLOB && k != ENG_CUSTOM &&
        !eng_type_is_collection(t) && k != ENG_TUPLE && k != ENG_UDT) {
        eng_buf_put_str(out,
                        "\"\""); /* an empty number, uuid, ...: Objects.toString(null, "\"\"") */
        return 0;
    }
    switch (k) {
    case ENG_ASCII:
    case ENG_TEXT:
        put_quoted(p, len, out);
        return 0;
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        return json_collection(t, p, len, out, depth);
    case ENG_TUPLE:
    case ENG_UDT:
        return json_tuple(t, p, len, out, depth);
    default:
        return json_scalar(t, p, len, out);
    }
}

int cql_json_value(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, eng_err *err)
{
    size_t start = out->len;
    if (json_value(t, p, len, out, 0)) {
        out->len = ENG_MIN(out->len, start);
        return eng_errorf(err, ENG_E_INVALID, "Invalid value for JSON output");
    }
    return out->oom ? nomem(err) : 0;
}

int cql_json_to_json(const eng_type *t, eng_val v, eng_buf *out, eng_err *err)
{
    if (v.len < 0) {
        eng_buf_put_str(out, "null");
        return out->oom ? nomem(err) : 0;
    }
    return cql_json_value(t, v.p, (size_t)v.len, out, err);
}

int cql_json_row(const char *const *names, const eng_type *const *types, const eng_val *vals, int n,
                 eng_buf *out, eng_err *err)
{
    eng_buf_put_u8(out, '{');
    for (int i = 0; i < n; i++) {
        if (i)
            eng_buf_put_str(out, ", ");
        put_name(names[i] ? names[i] : "", out);
        eng_buf_put_str(out, ": ");
        int rc = cql_json_to_json(types[i], vals[i], out, err);
        if (rc)
            return rc;
    }
    eng_buf_put_u8(out, '}');
    return out->oom ? nomem(err) : 0;
}

/* ------------------------------------------------------------------------ */
/* Input: Jackson's object model                                             */
/* ------------------------------------------------------------------------ */

enum { J_NULL, J_TRUE, J_FALSE, J_INT, J_DOUBLE, J_STRING, J_ARRAY, J_OBJECT };
enum { JI_INTEGER, JI_LONG, JI_BIGINTEGER }; /* the class Jackson gives an integer, by size */

typedef struct jnode jnode;
struct jnode {
    int kind;
    int num;       /* J_INT: JI_* */
    const char *s; /* J_STRING: decoded UTF-8; J_INT, J_DOUBLE: the number as written */
    size_t len;
    double d;          /* J_DOUBLE */
    jnode **kids;      /* J_ARRAY: items; J_OBJECT: key, value, key, value, ... (keys unique) */
    size_t n;          /* number of kids */
    size_t start, end; /* the node's text in the parsed input */
};

/* What went wrong while parsing, for the Java exception class Cassandra prints. */
enum { JE_NONE, JE_PARSE, JE_NO_CONTENT, JE_NOMEM };

typedef struct jparser {
    const char *s;
    size_t len, pos;
    eng_arena *arena;
    eng_buf scratch; /* string decoding */
    int depth;
    int failed; /* JE_* */
    char msg[320];
} jparser;

static void jp_fail(jparser *p, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void jp_fail(jparser *p, int kind, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
}

/* Jackson's _getCharDesc of the character at pos (UTF-8 decoded for the code). */
static void char_desc(const jparser *p, size_t pos, char *buf, size_t cap)
{
    unsigned c = (unsigned char)p->s[pos];
    if (c < 0x20) {
        snprintf(buf, cap, "(CTRL-CHAR, code %u)", c);
        return;
    }
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (pos + n > p->len)
        n = p->len - pos;
    unsigned cp = n == 1 ? c : c & (0x3Fu >> (n - 1));
    for (size_t i = 1; i < n; i++)
        cp = cp << 6 | ((unsigned char)p->s[pos + i] & 0x3F);
    if (cp > 255)
        snprintf(buf, cap, "'%.*s' (code %u / 0x%x)", (int)n, p->s + pos, cp, cp);
    else
        snprintf(buf, cap, "'%.*s' (code %u)", (int)n, p->s + pos, cp);
}

static void jp_unexpected(jparser *p, const char *comment)
{
    char desc[48];
    char_desc(p, p->pos, desc, sizeof desc);
    jp_fail(p, JE_PARSE, "Unexpected character (%s): %s", desc, comment);
}

static int jp_ws(jparser *p)
{
    while (p->pos < p->len) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            p->pos++;
        } else if (c < 0x20) {
            jp_fail(p, JE_PARSE,
                    "Illegal character ((CTRL-CHAR, code %u)): only regular white space (\\r, "
                    "\\n, \\t) is allowed between tokens",
                    c);
            return -1;
        } else {
            break;
        }
    }
    return 0;
}

static jnode *jp_node(jparser *p, int kind, size_t start)
{
    jnode *n = eng_arena_alloc(p->arena, sizeof *n);
    if (!n) {
        jp_fail(p, JE_NOMEM, "out of memory");
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->start = start;
    return n;
}

static int hex4(const char *s, size_t len, size_t at, unsigned *v)
{
    *v = 0;
    for (size_t i = 0; i < 4; i++) {
        if (at + i >= len)
            return -1;
        char c = s[at + i];
        int h = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (h < 0)
            return -1;
        *v = *v << 4 | (unsigned)h;
    }
    return 0;
}

static void put_utf8(eng_buf *b, unsigned cp)
{
    if (cp < 0x80) {
        eng_buf_put_u8(b, (uint8_t)cp);
    } else if (cp < 0x800) {
        eng_buf_put_u8(b, (uint8_t)(0xC0 | cp >> 6));
        eng_buf_put_u8(b, (uint8_t)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        eng_buf_put_u8(b, (uint8_t)(0xE0 | cp >> 12));
        eng_buf_put_u8(b, (uint8_t)(0x80 | (cp >> 6 & 0x3F)));
        eng_buf_put_u8(b, (uint8_t)(0x80 | (cp & 0x3F)));
    } else {
        eng_buf_put_u8(b, (uint8_t)(0xF0 | cp >> 18));
        eng_buf_put_u8(b, (uint8_t)(0x80 | (cp >> 12 & 0x3F)));
        eng_buf_put_u8(b, (uint8_t)(0x80 | (cp >> 6 & 0x3F)));
        eng_buf_put_u8(b, (uint8_t)(0x80 | (cp & 0x3F)));
    }
}

/* A \u escape; a surrogate pair joins, a lone surrogate becomes '?' as Java's UTF-8 encoder makes
 * it. */
static int jp_unicode(jparser *p, eng_buf *b)
{
    unsigned u = 0, lo;
    for (size_t i = 0; i < 4; i++, p->pos++) {
        if (p->pos >= p->len) {
            jp_fail(p, JE_PARSE, "Unexpected end-of-input in character escape sequence");
            return -1;
        }
        char c = p->s[p->pos];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0) {
            jp_unexpected(p, "expected a hex-digit for character escape sequence");
            return -1;
        }
        u = u << 4 | (unsigned)v;
    }
    if (u >= 0xD800 && u < 0xDC00 && p->pos + 6 <= p->len && p->s[p->pos] == '\\' &&
        p->s[p->pos + 1] == 'u' && !hex4(p->s, p->len, p->pos + 2, &lo) && lo >= 0xDC00 &&
        lo < 0xE000) {
        p->pos += 6;
        put_utf8(b, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
    } else if (u >= 0xD800 && u < 0xE000) {
        eng_buf_put_u8(b, '?');
    } else {
        put_utf8(b, u);
    }
    return 0;
}

/* One backslash escape (p->pos is just past the backslash). */
static int jp_escape(jparser *p, eng_buf *b)
{
    if (p->pos >= p->len) {
        jp_fail(p, JE_PARSE, "Unexpected end-of-input in character escape sequence");
        return -1;
    }
    char e = p->s[p->pos++];
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = e ? strchr(from, e) : NULL;
    if (k) {
        eng_buf_put_u8(b, (uint8_t)to[k - from]);
        return 0;
    }
    if (e == 'u')
        return jp_unicode(p, b);
    p->pos--;
    char desc[48];
    char_desc(p, p->pos, desc, sizeof desc);
    jp_fail(p, JE_PARSE, "Unrecognized character escape %s", desc);
    return -1;
}

/* A string at p->pos (which is '"'), decoded into the arena. */
static int jp_string(jparser *p, const char **out, size_t *out_len)
{
    eng_buf *b = &p->scratch;
    eng_buf_reset(b);
    for (p->pos++;;) {
        if (p->pos >= p->len) {
            jp_fail(p, JE_PARSE,
                    "Unexpected end-of-input: was expecting closing quote for a string value");
            return -1;
        }
        unsigned char c = (unsigned char)p->s[p->pos++];
        if (c == '"')
            break;
        if (c < 0x20) {
            jp_fail(p, JE_PARSE,
                    "Illegal unquoted character ((CTRL-CHAR, code %u)): has to be escaped using "
                    "backslash to be included in string value",
                    c);
            return -1;
        }
        if (c != '\\')
            eng_buf_put_u8(b, c);
        else if (jp_escape(p, b))
            return -1;
    }
    *out = b->len ? eng_arena_memdup(p->arena, b->p, b->len) : "";
    *out_len = b->len;
    if (b->oom || !*out) {
        jp_fail(p, JE_NOMEM, "out of memory");
        return -1;
    }
    return 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The class Jackson gives an integer: Integer, Long or BigInteger by magnitude. */
static int int_class(const char *s, size_t len)
{
    int neg = s[0] == '-';
    size_t digits = len - (size_t)neg;
    const char *d = s + neg;
    const char *int_limit = neg ? "2147483648" : "2147483647";
    const char *long_limit = neg ? "9223372036854775808" : "9223372036854775807";
    if (digits < 10 || (digits == 10 && memcmp(d, int_limit, 10) <= 0))
        return JI_INTEGER;
    if (digits < 19 || (digits == 19 && memcmp(d, long_limit, 19) <= 0))
        return JI_LONG;
    return JI_BIGINTEGER;
}

/* Double.parseDouble of the number's text (strtod: both round correctly). */
static int parse_double(jparser *p, jnode *n)
{
    char small[64];
    char *b = n->len < sizeof small ? small : eng_malloc(n->len + 1);
    if (!b) {
        jp_fail(p, JE_NOMEM, "out of memory");
        return -1;
    }
    memcpy(b, n->s, n->len);
    b[n->len] = 0;
    n->d = strtod(b, NULL);
    if (b != small)
        eng_free(b);
    return 0;
}

/* Digits after a '.' or an exponent mark: at least one, or Jackson's complaint. */
static int jp_digits(jparser *p, const char *what)
{
    if (p->pos >= p->len) {
        jp_fail(p, JE_PARSE, "Unexpected end-of-input in numeric value");
        return -1;
    }
    if (!is_digit(p->s[p->pos])) {
        jp_unexpected(p, what);
        return -1;
    }
    while (p->pos < p->len && is_digit(p->s[p->pos]))
        p->pos++;
    return 0;
}

/* Jackson's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static jnode *jp_number(jparser *p)
{
    size_t start = p->pos;
    if (p->s[p->pos] == '-')
        p->pos++;
    if (p->pos < p->len && p->s[p->pos] == '0' && p->pos + 1 < p->len &&
        is_digit(p->s[p->pos + 1])) {
        jp_fail(p, JE_PARSE, "Invalid numeric value: Leading zeroes not allowed");
        return NULL;
    }
    if (jp_digits(p, "expected digit (0-9) to follow minus sign, for valid numeric value"))
        return NULL;
    int is_float = 0;
    if (p->pos < p->len && p->s[p->pos] == '.') {
        is_float = 1;
        p->pos++;
        if (jp_digits(p, "Decimal point not followed by a digit"))
            return NULL;
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        is_float = 1;
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (jp_digits(p, "Exponent indicator not followed by a digit"))
            return NULL;
    }
    jnode *n = jp_node(p, is_float ? J_DOUBLE : J_INT, start);
    if (!n)
        return NULL;
    n->s = p->s + start;
    n->len = p->pos - start;
    if (is_float)
        return parse_double(p, n) ? NULL : n;
    n->num = int_class(n->s, n->len);
    return n;
}

static int ident_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit((char)c) || c == '_' ||
           c == '$' || c >= 0x80;
}

/* true, false, null, or Jackson's "Unrecognized token". */
static jnode *jp_word(jparser *p)
{
    size_t start = p->pos, end = start;
    while (end < p->len && ident_char((unsigned char)p->s[end]))
        end++;
    static const struct {
        const char *w;
        int kind;
    } words[] = {{"true", J_TRUE}, {"false", J_FALSE}, {"null", J_NULL}};
    for (size_t i = 0; i < ENG_ARRAY_LEN(words); i++) {
        size_t n = strlen(words[i].w);
        if (end - start == n && !memcmp(p->s + start, words[i].w, n)) {
            p->pos = end;
            return jp_node(p, words[i].kind, start);
        }
    }
    jp_fail(p, JE_PARSE, "Unrecognized token '%.*s': was expecting ('true', 'false' or 'null')",
            (int)ENG_MIN(end - start, 200), p->s + start);
    return NULL;
}

static jnode *jp_value(jparser *p);

/* Kids collected in a scratch vector, then copied into the arena. */
static int jp_finish_kids(jparser *p, jnode *n, eng_buf *vec)
{
    int oom = vec->oom;
    n->n = vec->len / sizeof(jnode *);
    n->kids = !oom && n->n ? eng_arena_memdup(p->arena, vec->p, vec->len) : NULL;
    eng_buf_free(vec);
    if (oom || (n->n && !n->kids)) {
        jp_fail(p, JE_NOMEM, "out of memory");
        return -1;
    }
    n->end = p->pos;
    return 0;
}

static jnode *jp_array(jparser *p)
{
    jnode *n = jp_node(p, J_ARRAY, p->pos);
    eng_buf vec = ENG_BUF_INIT;
    p->pos++;
    if (!n || jp_ws(p))
        return NULL;
    if (p->pos < p->len && p->s[p->pos] == ']') {
        p->pos++;
        return jp_finish_kids(p, n, &vec) ? NULL : n;
    }
    for (;;) {
        jnode *v = jp_value(p);
        if (!v || jp_ws(p))
            break;
        eng_buf_put(&vec, &v, sizeof v);
        if (p->pos >= p->len) {
            jp_fail(p, JE_PARSE, "Unexpected end-of-input: expected close marker for ARRAY");
            break;
        }
        char c = p->s[p->pos];
        if (c == ']') {
            p->pos++;
            return jp_finish_kids(p, n, &vec) ? NULL : n;
        }
        if (c != ',') {
            jp_unexpected(p, "was expecting comma to separate Array entries");
            break;
        }
        p->pos++;
        if (jp_ws(p))
            break;
    }
    eng_buf_free(&vec);
    return NULL;
}

typedef struct keyed {
    jnode *key;
    size_t idx;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    size_t n = ENG_MIN(x->key->len, y->key->len);
    int c = memcmp(x->key->s, y->key->s, n);
    if (!c)
        c = x->key->len < y->key->len ? -1 : x->key->len > y->key->len;
    if (!c)
        c = x->idx < y->idx ? -1 : x->idx > y->idx;
    return c;
}

/* LinkedHashMap.put of each member: a repeated key keeps its first place and takes the last value.
 */
static int jp_dedupe(jparser *p, jnode *obj)
{
    size_t n = obj->n / 2;
    if (n < 2)
        return 0;
    keyed *k = eng_malloc(n * sizeof *k);
    if (!k) {
        jp_fail(p, JE_NOMEM, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (keyed){obj->kids[2 * i], i};
    qsort(k, n, sizeof *k, keyed_cmp);
    int dup = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && k[j].key->len == k[i].key->len &&
               !memcmp(k[j].key->s, k[i].key->s, k[i].key->len))
            j++;
        if (j - i > 1) {
            obj->kids[2 * k[i].idx + 1] = obj->kids[2 * k[j - 1].idx + 1];
            for (size_t m = i + 1; m < j; m++)
                obj->kids[2 * k[m].idx] = NULL; /* dropped below */
            dup = 1;
        }
        i = j;
    }
    eng_free(k);
    if (dup) {
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            if (!obj->kids[2 * i])
                continue;
            obj->kids[w++] = obj->kids[2 * i];
            obj->kids[w++] = obj->kids[2 * i + 1];
        }
        obj->n = w;
    }
    return 0;
}

/* One "key": value member of an object; 1 at the closing brace, 0 for more, -1 on error. */
static int jp_member(jparser *p, eng_buf *vec)
{
    if (p->pos >= p->len) {
        jp_fail(p, JE_PARSE, "Unexpected end-of-input: expected close marker for OBJECT");
        return -1;
    }
    if (p->s[p->pos] != '"') {
        jp_unexpected(p, "was expecting double-quote to start field name");
        return -1;
    }
    jnode *k = jp_node(p, J_STRING, p->pos);
    if (!k || jp_string(p, &k->s, &k->len) || jp_ws(p))
        return -1;
    k->end = p->pos;
    if (p->pos >= p->len || p->s[p->pos] != ':') {
        if (p->pos >= p->len)
            jp_fail(p, JE_PARSE, "Unexpected end-of-input: expected close marker for OBJECT");
        else
            jp_unexpected(p, "was expecting a colon to separate field name and value");
        return -1;
    }
    p->pos++;
    if (jp_ws(p))
        return -1;
    jnode *v = jp_value(p);
    if (!v || jp_ws(p))
        return -1;
    eng_buf_put(vec, &k, sizeof k);
    eng_buf_put(vec, &v, sizeof v);
    if (p->pos >= p->len) {
        jp_fail(p, JE_PARSE, "Unexpected end-of-input: expected close marker for OBJECT");
        return -1;
    }
    char c = p->s[p->pos++];
    if (c == '}')
        return 1;
    if (c != ',') {
        p->pos--;
        jp_unexpected(p, "was expecting comma to separate Object entries");
        return -1;
    }
    return jp_ws(p) ? -1 : 0;
}

static jnode *jp_object(jparser *p)
{
    jnode *n = jp_node(p, J_OBJECT, p->pos);
    eng_buf vec = ENG_BUF_INIT;
    p->pos++;
    if (!n || jp_ws(p))
        return NULL;
    int r = 0;
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
        r = 1;
    }
    while (r == 0)
        r = jp_member(p, &vec);
    if (r < 0) {
        eng_buf_free(&vec);
        return NULL;
    }
    return jp_finish_kids(p, n, &vec) || jp_dedupe(p, n) ? NULL : n;
}

static jnode *jp_value(jparser *p)
{
    if (p->pos >= p->len) {
        jp_fail(p, JE_PARSE, "Unexpected end-of-input: expected a value");
        return NULL;
    }
    if (++p->depth > MAX_DEPTH) {
        jp_fail(p, JE_PARSE, "Maximum nesting depth exceeded (%d)", MAX_DEPTH);
        return NULL;
    }
    char c = p->s[p->pos];
    size_t start = p->pos;
    jnode *n = NULL;
    if (c == '{') {
        n = jp_object(p);
    } else if (c == '[') {
        n = jp_array(p);
    } else if (c == '"') {
        n = jp_node(p, J_STRING, start);
        if (n && jp_string(p, &n->s, &n->len))
            n = NULL;
    } else if (c == '-' || is_digit(c)) {
        n = jp_number(p);
    } else if (ident_char((unsigned char)c) && !is_digit(c)) {
        n = jp_word(p);
    } else {
        jp_unexpected(p, "expected a valid value (number, String, array, object, 'true', 'false' "
                         "or 'null')");
    }
    p->depth--;
    if (n)
        n->end = p->pos;
    return n;
}

/*
 * ObjectMapper.readValue: one value; what follows it is ignored, except
 * that a number at the top level must be followed by white space.
 */
static jnode *jp_parse(jparser *p)
{
    if (jp_ws(p))
        return NULL;
    if (p->pos >= p->len) {
        jp_fail(p, JE_NO_CONTENT, "No content to map due to end-of-input");
        return NULL;
    }
    jnode *n = jp_value(p);
    if (n && (n->kind == J_INT || n->kind == J_DOUBLE) && p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            jp_unexpected(p, "Expected space separating root-level values");
            return NULL;
        }
    }
    return n;
}

static void jp_init(jparser *p, const char *s, size_t len, eng_arena *arena)
{
    memset(p, 0, sizeof *p);
    p->s = s ? s : "";
    p->len = s ? len : 0;
    p->arena = arena;
}

/* Throwable.toString of the parse failure: class name, then message. */
static const char *jp_exception(const jparser *p)
{
    return p->failed == JE_NO_CONTENT
               ? "com.fasterxml.jackson.databind.exc.MismatchedInputException"
               : "com.fasterxml.jackson.core.JsonParseException";
}

/* ------------------------------------------------------------------------ */
/* Java's view of the model: toString and class names for messages          */
/* ------------------------------------------------------------------------ */

static void java_str(const jnode *n, eng_buf *out, int depth)
{
    if (out->len > 1024 || depth > MAX_DEPTH) /* messages are cut far below this */
        return;
    switch (n->kind) {
    case J_NULL:
        eng_buf_put_str(out, "null");
        break;
    case J_TRUE:
    case J_FALSE:
        eng_buf_put_str(out, n->kind == J_TRUE ? "true" : "false");
        break;
    case J_INT:
        if (n->len == 2 && !memcmp(n->s, "-0", 2))
            eng_buf_put_u8(out, '0');
        else
            eng_buf_put(out, n->s, n->len);
        break;
    case J_DOUBLE:
        if (isinf(n->d))
            eng_buf_put_str(out, n->d > 0 ? "Infinity" : "-Infinity");
        else
            eng_text_java_double(n->d, out);
        break;
    case J_STRING:
        eng_buf_put(out, n->s, n->len);
        break;
    case J_ARRAY:
    case J_OBJECT: {
        int obj = n->kind == J_OBJECT;
        eng_buf_put_u8(out, obj ? '{' : '[');
        for (size_t i = 0; i < n->n; i++) {
            if (i)
                eng_buf_put_str(out, obj && i % 2 ? "=" : ", ");
            java_str(n->kids[i], out, depth + 1);
        }
        eng_buf_put_u8(out, obj ? '}' : ']');
        break;
    }
    }
}

static const char *simple_name(const jnode *n)
{
    static const char *const ints[] = {"Integer", "Long", "BigInteger"};
    switch (n->kind) {
    case J_TRUE:
    case J_FALSE:
        return "Boolean";
    case J_INT:
        return ints[n->num];
    case J_DOUBLE:
        return "Double";
    case J_STRING:
        return "String";
    case J_ARRAY:
        return "ArrayList";
    case J_OBJECT:
        return "LinkedHashMap";
    default:
        return "Object";
    }
}

static const char *class_name(const jnode *n)
{
    static const char *const ints[] = {"java.lang.Integer", "java.lang.Long",
                                       "java.math.BigInteger"};
    switch (n->kind) {
    case J_TRUE:
    case J_FALSE:
        return "java.lang.Boolean";
    case J_INT:
        return ints[n->num];
    case J_DOUBLE:
        return "java.lang.Double";
    case J_STRING:
        return "java.lang.String";
    case J_ARRAY:
        return "java.util.ArrayList";
    case J_OBJECT:
        return "java.util.LinkedHashMap";
    default:
        return "java.lang.Object";
    }
}

/* ------------------------------------------------------------------------ */
/* Ordered maps with Cassandra's case handling of keys                       */
/* ------------------------------------------------------------------------ */

/*
 * A LinkedHashMap<String, Object>: removing a key and putting another
 * appends it at the end, putting an existing key replaces its value in
 * place. Open addressing over entry indexes; removed entries stay in the
 * table (dead) so probing continues past them.
 */
typedef struct omap_entry {
    const char *key;
    size_t klen;
    const jnode *val;
    int alive;
} omap_entry;

typedef struct omap {
    omap_entry *e;
    size_t n, cap;
    size_t *slot; /* entry index + 1, 0 = empty */
    size_t nslot; /* power of two, >= 2 * cap */
} omap;

static uint64_t hash_key(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int omap_init(omap *m, size_t members)
{
    m->cap = 2 * members + 2; /* each member may be removed and put again once */
    m->n = 0;
    m->nslot = 4;
    while (m->nslot < 2 * m->cap)
        m->nslot *= 2;
    m->e = eng_calloc(m->cap, sizeof *m->e);
    m->slot = eng_calloc(m->nslot, sizeof *m->slot);
    return m->e && m->slot ? 0 : -1;
}

static void omap_free(omap *m)
{
    eng_free(m->e);
    eng_free(m->slot);
}

static long omap_find(const omap *m, const char *key, size_t klen)
{
    for (size_t h = hash_key(key, klen) & (m->nslot - 1);; h = (h + 1) & (m->nslot - 1)) {
        size_t i = m->slot[h];
        if (!i)
            return -1;
        const omap_entry *e = &m->e[i - 1];
        if (e->alive && e->klen == klen && !memcmp(e->key, key, klen))
            return (long)(i - 1);
    }
}

static int omap_put(omap *m, const char *key, size_t klen, const jnode *val)
{
    long i = omap_find(m, key, klen);
    if (i >= 0) {
        m->e[i].val = val;
        return 0;
    }
    if (m->n == m->cap)
        return -1;
    m->e[m->n] = (omap_entry){key, klen, val, 1};
    size_t h = hash_key(key, klen) & (m->nslot - 1);
    while (m->slot[h])
        h = (h + 1) & (m->nslot - 1);
    m->slot[h] = ++m->n;
    return 0;
}

static const jnode *omap_remove(omap *m, long i)
{
    m->e[i].alive = 0;
    return m->e[i].val;
}

/*
 * Json.handleCaseSensitivity: a key in double quotes loses them and keeps
 * its case, any other key is lower-cased; both move to the end of the map.
 */
static int omap_from_object(omap *m, const jnode *obj, eng_arena *arena, eng_err *err)
{
    if (omap_init(m, obj->n / 2))
        return nomem(err);
    for (size_t i = 0; i + 1 < obj->n; i += 2)
        if (omap_put(m, obj->kids[i]->s, obj->kids[i]->len, obj->kids[i + 1]))
            return nomem(err);
    size_t members = m->n;
    for (size_t i = 0; i < members; i++) {
        omap_entry e = m->e[i];
        if (!e.alive)
            continue;
        if (e.klen >= 1 && e.key[0] == '"' && e.key[e.klen - 1] == '"') {
            if (e.klen == 1)
                return eng_errorf(err, ENG_E_SERVER,
                                  "java.lang.StringIndexOutOfBoundsException: begin 1, end 0, "
                                  "length 1");
            omap_remove(m, (long)i);
            if (omap_put(m, e.key + 1, e.klen - 2, e.val))
                return nomem(err);
            continue;
        }
        size_t k = 0;
        while (k < e.klen && !(e.key[k] >= 'A' && e.key[k] <= 'Z'))
            k++;
        if (k == e.klen)
            continue;
        char *low = eng_arena_memdup(arena, e.key, e.klen);
        if (!low)
            return nomem(err);
        for (size_t j = 0; j < e.klen; j++)
            if (low[j] >= 'A' && low[j] <= 'Z')
                low[j] = (char)(low[j] - 'A' + 'a');
        omap_remove(m, (long)i);
        if (omap_put(m, low, e.klen, e.val))
            return nomem(err);
    }
    return 0;
}

static long omap_first_alive(const omap *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->e[i].alive)
            return (long)i;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* fromJSONObject                                                            */
/* ------------------------------------------------------------------------ */

typedef struct jconv {
    eng_err *err;
    eng_arena *arena;
} jconv;

static int jc_value(jconv *c, const eng_type *t, const jnode *n, eng_buf *out, int depth);

/* "<what>, but got a <SimpleName>: <toString>" */
static int expected(jconv *c, const char *what, const jnode *n)
{
    eng_buf s = ENG_BUF_INIT;
    java_str(n, &s, 0);
    int rc = eng_errorf(c->err, ENG_E_INVALID, "%s, but got a %s: %s", what, simple_name(n), cstr(&s));
    eng_buf_free(&s);
    return rc;
}

/* fromString of the node's Java toString (String.valueOf(parsed)). */
static int from_java_string(jconv *c, const eng_type *t, const jnode *n, eng_buf *out)
{
    eng_buf s = ENG_BUF_INIT;
    java_str(n, &s, 0);
    int rc =
        s.oom ? nomem(c->err) : eng_text_from_string(t, (const char *)s.p, s.len, out, c->err);
    eng_buf_free(&s);
    return rc;
}

/* Json.decodeJson of a string given where a collection, tuple or UDT is expected. */
static const jnode *jc_decode(jconv *c, const jnode *n)
{
    jparser p;
    jp_init(&p, n->s, n->len, c->arena);
    jnode *r = jp_parse(&p);
    eng_buf_free(&p.scratch);
    if (!r) {
        if (p.failed == JE_NOMEM)
            nomem(c->err);
        else
            eng_errorf(c->err, ENG_E_INVALID, "Error decoding JSON string: %s", p.msg);
        return NULL;
    }
    if (r->kind == J_NULL) { /* Cassandra then calls getClass() on null */
        eng_errorf(c->err, ENG_E_SERVER, "java.lang.NullPointerException");
        return NULL;
    }
    return r;
}

static void put_float_bits(float f, eng_buf *out)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    eng_buf_put_be32(out, b);
}

static void put_double_bits(double d, eng_buf *out)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    eng_buf_put_be64(out, b);
}

/*
 * Number.floatValue() / doubleValue() of a parsed number: a Double is cast,
 * an Integer or Long converted, a BigInteger rounded once to the target.
 */
static int jc_floating(jconv *c, const eng_type *t, const jnode *n, eng_buf *out)
{
    int dbl = t->kind == ENG_DOUBLE;
    if (n->kind == J_STRING)
        return eng_text_from_string(t, n->s, n->len, out, c->err);
    if (n->kind != J_INT && n->kind != J_DOUBLE)
        return expected(c, dbl ? "Expected a double value" : "Expected a float value", n);
    if (n->kind == J_DOUBLE) {
        dbl ? put_double_bits(n->d, out) : put_float_bits((float)n->d, out);
        return 0;
    }
    char small[64];
    char *b = n->len < sizeof small ? small : eng_malloc(n->len + 1);
    if (!b)
        return nomem(c->err);
    memcpy(b, n->s, n->len);
    b[n->len] = 0;
    if (n->num == JI_BIGINTEGER) {
        dbl ? put_double_bits(strtod(b, NULL), out) : put_float_bits(strtof(b, NULL), out);
    } else {
        long long v = strtoll(b, NULL, 10);
        dbl ? put_double_bits((double)v, out) : put_float_bits((float)v, out);
    }
    if (b != small)
        eng_free(b);
    return 0;
}

/* Int32Type / LongType: a string, or an Integer (bigint: or a Long). */
static int jc_integer(jconv *c, const eng_type *t, const jnode *n, eng_buf *out)
{
    if (n->kind == J_STRING)
        return eng_text_from_string(t, n->s, n->len, out, c->err);
    int ok =
        n->kind == J_INT && (n->num == JI_INTEGER || (t->kind == ENG_BIGINT && n->num == JI_LONG));
    if (!ok)
        return expected(c, t->kind == ENG_INT ? "Expected an int value" : "Expected a bigint value",
                        n);
    return eng_text_from_string(t, n->s, n->len, out, c->err);
}

/* BytesType: "0x" then hex digits, every failure as "Value '%s' is not a valid blob
 * representation". */
static int jc_blob(jconv *c, const jnode *n, eng_buf *out)
{
    eng_buf s = ENG_BUF_INIT, why = ENG_BUF_INIT;
    java_str(n, &s, 0);
    if (n->kind != J_STRING)
        eng_buf_printf(&why,
                       "class %s cannot be cast to class java.lang.String (%s and java.lang.String "
                       "are in module java.base of loader 'bootstrap')",
                       class_name(n), class_name(n));
    else if (n->len < 2 || n->s[0] != '0' || n->s[1] != 'x')
        eng_buf_printf(&why, "String representation of blob is missing 0x prefix: %s", cstr(&s));
    else {
        eng_err inner;
        eng_err_clear(&inner);
        eng_type blob = {.kind = ENG_BLOB};
        size_t at = out->len;
        if (!eng_text_from_string(&blob, n->s + 2, n->len - 2, out, &inner)) {
            eng_buf_free(&s);
            return out->oom ? nomem(c->err) : 0;
        }
        out->len = at;
        eng_buf_put_str(&why, inner.msg);
    }
    int rc = eng_errorf(c->err, ENG_E_INVALID, "Value '%s' is not a valid blob representation: %s",
                  cstr(&s), cstr(&why));
    eng_buf_free(&s);
    eng_buf_free(&why);
    return rc;
}

/* Decimal and varint: the node's toString through BigDecimal / BigInteger. */
static int jc_bignum(jconv *c, const eng_type *t, const jnode *n, eng_buf *out)
{
    eng_buf s = ENG_BUF_INIT;
    java_str(n, &s, 0);
    eng_err inner;
    eng_err_clear(&inner);
    int dec = t->kind == ENG_DECIMAL, rc = 0;
    size_t at = out->len;
    /* BigInteger("") fails where IntegerType.fromString("") would give the empty value */
    if (s.oom)
        rc = nomem(c->err);
    else if ((!dec && s.len == 0) ||
             eng_text_from_string(t, (const char *)s.p, s.len, out, &inner)) {
        out->len = at;
        rc = inner.code == ENG_E_NOMEM
                 ? nomem(c->err)
                 : eng_errorf(c->err, ENG_E_INVALID,
                        "Value '%s' is not a valid representation of a %s value", cstr(&s),
                        dec ? "decimal" : "varint");
    }
    eng_buf_free(&s);
    return rc;
}

/* Types that only take a string: the message names what they expected. */
static const char *string_only_what(int kind)
{
    switch (kind) {
    case ENG_ASCII:
        return "Expected an ascii string";
    case ENG_TEXT:
        return "Expected a UTF-8 string";
    case ENG_DATE:
        return "Expected a string representation of a date value";
    case ENG_TIME:
        return "Expected a string representation of a time value";
    case ENG_UUID:
        return "Expected a string representation of a uuid";
    case ENG_TIMEUUID:
        return "Expected a string representation of a timeuuid";
    case ENG_INET:
        return "Expected a string representation of an inet value";
    case ENG_DURATION:
        return "Expected a string representation of a duration";
    default:
        return NULL;
    }
}

static int jc_scalar(jconv *c, const eng_type *t, const jnode *n, eng_buf *out)
{
    const char *what = string_only_what(t->kind);
    if (what)
        return n->kind == J_STRING ? eng_text_from_string(t, n->s, n->len, out, c->err)
                                   : expected(c, what, n);
    switch (t->kind) {
    case ENG_INT:
    case ENG_BIGINT:
        return jc_integer(c, t, n, out);
    case ENG_SMALLINT:
    case ENG_TINYINT:
        if (n->kind != J_STRING && n->kind != J_INT && n->kind != J_DOUBLE)
            return expected(
                c, t->kind == ENG_SMALLINT ? "Expected a short value" : "Expected a byte value", n);
        return from_java_string(c, t, n, out);
    case ENG_FLOAT:
    case ENG_DOUBLE:
        return jc_floating(c, t, n, out);
    case ENG_DECIMAL:
    case ENG_VARINT:
        return jc_bignum(c, t, n, out);
    case ENG_BOOLEAN:
        if (n->kind == J_STRING)
            return eng_text_from_string(t, n->s, n->len, out, c->err);
        if (n->kind != J_TRUE && n->kind != J_FALSE)
            return expected(c, "Expected a boolean value", n);
        eng_buf_put_u8(out, n->kind == J_TRUE);
        return 0;
    case ENG_TIMESTAMP: /* a Long, or a string: an Integer fails the String cast */
        if (n->kind == J_INT && n->num == JI_LONG)
            return eng_text_from_string(t, n->s, n->len, out, c->err);
        if (n->kind != J_STRING)
            return expected(
                c, "Expected a long or a datestring representation of a timestamp value", n);
        return eng_text_from_string(t, n->s, n->len, out, c->err);
    case ENG_BLOB:
        return jc_blob(c, n, out);
    case ENG_COUNTER: /* CounterColumnType.fromJSONObject throws */
        return eng_errorf(c->err, ENG_E_SERVER, "java.lang.UnsupportedOperationException");
    default:
        return eng_errorf(c->err, ENG_E_INVALID, "JSON is not supported for this type");
    }
}

/* One [bytes] item converted from a node; nulls written as null. */
static int jc_item(jconv *c, const eng_type *t, const jnode *n, eng_buf *out, int depth)
{
    if (n->kind == J_NULL) {
        eng_buf_put_be32(out, (uint32_t)-1);
        return 0;
    }
    size_t at = out->len;
    eng_buf_put_be32(out, 0);
    int rc = jc_value(c, t, n, out, depth + 1);
    if (!rc && !out->oom)
        eng_put_be32(out->p + at, (uint32_t)(out->len - at - 4));
    return rc;
}

/* Lists and sets from arrays, maps from objects; sets and maps made canonical. */
static int jc_collection(jconv *c, const eng_type *t, const jnode *n, eng_buf *out, int depth)
{
    int map = t->kind == ENG_MAP;
    if (n->kind == J_STRING && !(n = jc_decode(c, n)))
        return c->err->code;
    if (n->kind != (map ? J_OBJECT : J_ARRAY))
        return expected(c,
                        map                   ? "Expected a map"
                        : t->kind == ENG_LIST ? "Expected a list"
                                              : "Expected a list (representing a set)",
                        n);
    eng_buf body = ENG_BUF_INIT;
    eng_buf_put_be32(&body, (uint32_t)(map ? n->n / 2 : n->n));
    int rc = 0;
    for (size_t i = 0; i < n->n && !rc; i++) {
        const jnode *k = n->kids[i];
        if (k->kind == J_NULL)
            rc = eng_errorf(c->err, ENG_E_INVALID, "%s",
                      map                   ? "Invalid null value in map"
                      : t->kind == ENG_LIST ? "Invalid null element in list"
                                            : "Invalid null element in set");
        else
            rc = jc_item(c, t->sub[map ? i % 2 : 0], k, &body, depth);
    }
    if (!rc && body.oom)
        rc = nomem(c->err);
    if (!rc && t->kind == ENG_LIST)
        eng_buf_put(out, body.p, body.len);
    else if (!rc)
        rc = eng_type_canonicalize(t, body.p, body.len, out, c->err);
    eng_buf_free(&body);
    return rc;
}

static int jc_tuple(jconv *c, const eng_type *t, const jnode *n, eng_buf *out, int depth)
{
    if (n->kind == J_STRING && !(n = jc_decode(c, n)))
        return c->err->code;
    if (n->kind != J_ARRAY)
        return expected(c, "Expected a list representation of a tuple", n);
    if (n->n != (size_t)t->n_sub) {
        eng_buf s = ENG_BUF_INIT;
        java_str(n, &s, 0);
        int rc = eng_errorf(c->err, ENG_E_INVALID, "Tuple %s (expected %d): %s",
                      n->n > (size_t)t->n_sub ? "contains extra items" : "is missing items",
                      t->n_sub, cstr(&s));
        eng_buf_free(&s);
        return rc;
    }
    int rc = 0;
    for (size_t i = 0; i < n->n && !rc; i++)
        rc = jc_item(c, t->sub[i], n->kids[i], out, depth);
    return rc;
}

static int udt_has_field(const eng_type *t, const char *key, size_t klen)
{
    for (int i = 0; i < t->n_sub; i++)
        if (t->fields && t->fields[i] && strlen(t->fields[i]) == klen &&
            !memcmp(t->fields[i], key, klen))
            return 1;
    return 0;
}

/* UserType.fromJSONObject: fields by (case-handled) name, missing or null fields null. */
static int jc_udt(jconv *c, const eng_type *t, const jnode *n, eng_buf *out, int depth)
{
    if (n->kind == J_STRING && !(n = jc_decode(c, n)))
        return c->err->code;
    if (n->kind != J_OBJECT)
        return expected(c, "Expected a map", n);
    omap m;
    int rc = omap_from_object(&m, n, c->arena, c->err);
    size_t found = 0, members = 0;
    for (int i = 0; i < t->n_sub && !rc; i++) {
        const char *f = t->fields && t->fields[i] ? t->fields[i] : "";
        long e = omap_find(&m, f, strlen(f));
        const jnode *v = e >= 0 ? m.e[e].val : NULL;
        found += v && v->kind != J_NULL;
        rc = v && v->kind != J_NULL ? jc_item(c, t->sub[i], v, out, depth)
                                    : (eng_buf_put_be32(out, (uint32_t)-1), 0);
    }
    for (size_t i = 0; i < m.n && !rc; i++)
        members += m.e[i].alive;
    for (size_t i = 0; i < m.n && !rc && found != members; i++)
        if (m.e[i].alive && !udt_has_field(t, m.e[i].key, m.e[i].klen))
            rc =
                eng_errorf(c->err, ENG_E_INVALID, "Unknown field '%.*s' in value of user defined type %s",
                     (int)ENG_MIN(m.e[i].klen, 256), m.e[i].key, t->name ? t->name : "");
    omap_free(&m);
    return rc;
}

static int jc_value(jconv *c, const eng_type *t, const jnode *n, eng_buf *out, int depth)
{
    if (depth > MAX_DEPTH)
        return eng_errorf(c->err, ENG_E_INVALID, "Value is nested too deeply");
    int rc;
    switch (t->kind) {
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        rc = jc_collection(c, t, n, out, depth);
        break;
    case ENG_TUPLE:
        rc = jc_tuple(c, t, n, out, depth);
        break;
    case ENG_UDT:
        rc = jc_udt(c, t, n, out, depth);
        break;
    default:
        rc = jc_scalar(c, t, n, out);
        break;
    }
    return rc ? rc : out->oom ? nomem(c->err) : 0;
}

/* ------------------------------------------------------------------------ */
/* fromJson() and INSERT JSON                                                */
/* ------------------------------------------------------------------------ */

enum { PHASE_OK, PHASE_PARSE, PHASE_CONVERT };

/* Parse then convert; *phase says which step failed (the two are reported differently). */
static int decode_text(const eng_type *t, const char *json, size_t len, eng_buf *out, int *state,
                       int *phase, eng_err *err)
{
    eng_arena arena;
    eng_arena_init(&arena, 4096);
    jparser p;
    jp_init(&p, json, len, &arena);
    *state = CQL_VALUE;
    *phase = PHASE_OK;
    jnode *root = jp_parse(&p);
    int rc = 0;
    if (!root && p.failed == JE_NOMEM) {
        rc = nomem(err);
    } else if (!root) {
        *phase = PHASE_PARSE;
        rc = eng_errorf(err, ENG_E_INVALID, "Could not decode JSON string '%.*s': %s: %s",
                  (int)ENG_MIN(len, 200), p.s, jp_exception(&p), p.msg);
    } else if (root->kind == J_NULL) {
        *state = CQL_VALUE_NULL;
    } else {
        jconv c = {err, &arena};
        size_t at = out->len;
        rc = t ? jc_value(&c, t, root, out, 0) : eng_errorf(err, ENG_E_INVALID, "Unknown type");
        if (rc) {
            out->len = ENG_MIN(out->len, at);
            *phase = PHASE_CONVERT;
        }
    }
    eng_buf_free(&p.scratch);
    eng_arena_free(&arena);
    return rc;
}

int cql_json_decode(const eng_type *t, const char *json, size_t len, eng_buf *out, int *state,
                    eng_err *err)
{
    int phase;
    return decode_text(t, json, len, out, state, &phase, err);
}

int cql_json_from_json(const eng_type *t, const char *json, size_t len, eng_buf *out, int *state,
                       eng_err *err)
{
    eng_err inner;
    eng_err_clear(&inner);
    int phase;
    int rc = decode_text(t, json, len, out, state, &phase, &inner);
    if (!rc)
        return 0;
    if (rc != ENG_E_INVALID)
        return eng_errorf(err, rc, "%s", inner.msg);
    /* FunctionExecutionException: a Jackson failure is given as text, a MarshalException as itself
     */
    return eng_errorf(
        err, ENG_E_FUNCTION_FAILURE, "execution of 'system.fromjson[text]' failed: %s%s",
        phase == PHASE_PARSE ? "" : "org.apache.cassandra.serializers.MarshalException: ",
        inner.msg);
}

/* Jackson's readValue(json, Map.class) of anything but an object. */
static int not_a_map(const jnode *root, const char *json, size_t len, eng_err *err)
{
    eng_buf why = ENG_BUF_INIT;
    if (root->kind == J_STRING) {
        eng_buf_printf(&why,
                       "com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot "
                       "construct instance of `java.util.LinkedHashMap` (although at least one "
                       "Creator exists): no String-argument constructor/factory method to "
                       "deserialize from String value ('%.*s')",
                       (int)ENG_MIN(root->len, 200), root->s);
    } else {
        const char *token = root->kind == J_ARRAY    ? "START_ARRAY"
                            : root->kind == J_INT    ? "VALUE_NUMBER_INT"
                            : root->kind == J_DOUBLE ? "VALUE_NUMBER_FLOAT"
                            : root->kind == J_TRUE   ? "VALUE_TRUE"
                                                     : "VALUE_FALSE";
        eng_buf_printf(&why,
                       "com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot "
                       "deserialize instance of `java.util.LinkedHashMap` out of %s token",
                       token);
    }
    int rc =
        eng_errorf(err, ENG_E_INVALID, "Could not decode JSON string as a map: %s. (String was: %.*s)",
             cstr(&why), (int)ENG_MIN(len, 200), json);
    eng_buf_free(&why);
    return rc;
}

/* Json.parseJson's first half: the text as a case-handled map of members. */
static int parse_members(const char *json, size_t len, eng_arena *arena, omap *m, eng_err *err)
{
    jparser p;
    jp_init(&p, json, len, arena);
    jnode *root = jp_parse(&p);
    eng_buf_free(&p.scratch);
    memset(m, 0, sizeof *m);
    if (!root && p.failed == JE_NOMEM)
        return nomem(err);
    if (!root)
        return eng_errorf(err, ENG_E_INVALID,
                    "Could not decode JSON string as a map: %s: %s. (String was: %.*s)",
                    jp_exception(&p), p.msg, (int)ENG_MIN(len, 200), p.s);
    if (root->kind == J_NULL)
        return eng_errorf(err, ENG_E_INVALID, "Got null for INSERT JSON values");
    if (root->kind != J_OBJECT)
        return not_a_map(root, p.s, len, err);
    return omap_from_object(m, root, arena, err);
}

static int decode_column(const cql_json_column *col, const jnode *v, eng_arena *arena, eng_buf *out,
                         int *state, eng_err *err)
{
    if (v->kind == J_NULL) { /* an explicit null */
        *state = CQL_VALUE_NULL;
        return 0;
    }
    eng_err inner;
    eng_err_clear(&inner);
    jconv c = {&inner, arena};
    *state = CQL_VALUE;
    int rc = col->type ? jc_value(&c, col->type, v, out, 0)
                       : eng_errorf(&inner, ENG_E_INVALID, "Unknown type");
    if (rc == ENG_E_INVALID)
        return eng_errorf(err, ENG_E_INVALID, "Error decoding JSON value for %s: %s", col->name,
                    inner.msg);
    return rc ? eng_errorf(err, rc, "%s", inner.msg) : 0;
}

int cql_json_insert_values(const char *json, size_t len, const cql_json_column *cols, int n_cols,
                           int default_unset, eng_buf *vals, int *states, eng_err *err)
{
    eng_arena arena;
    eng_arena_init(&arena, 4096);
    omap m;
    int rc = parse_members(json, len, &arena, &m, err);
    for (int i = 0; i < n_cols && !rc; i++) {
        const char *name = cols[i].name ? cols[i].name : "";
        long e = omap_find(&m, name, strlen(name));
        if (e < 0) {
            states[i] = default_unset ? CQL_VALUE_UNSET : CQL_VALUE_NULL;
            continue;
        }
        rc = decode_column(&cols[i], omap_remove(&m, e), &arena, &vals[i], &states[i], err);
    }
    long left = rc ? -1 : omap_first_alive(&m);
    if (left >= 0)
        rc = eng_errorf(err, ENG_E_INVALID, "JSON values map contains unrecognized column: %.*s",
                  (int)ENG_MIN(m.e[left].klen, 256), m.e[left].key);
    omap_free(&m);
    eng_arena_free(&arena);
    return rc;
}

int cql_json_object_fields(const char *json, size_t len, cql_json_field **out, int *n, eng_err *err)
{
    eng_arena arena;
    eng_arena_init(&arena, 4096);
    omap m;
    *out = NULL;
    *n = 0;
    int rc = parse_members(json, len, &arena, &m, err);
    size_t alive = 0;
    for (size_t i = 0; !rc && i < m.n; i++)
        alive += m.e[i].alive;
    cql_json_field *f = rc || !alive ? NULL : eng_calloc(alive, sizeof *f);
    if (!rc && alive && !f)
        rc = nomem(err);
    int k = 0;
    for (size_t i = 0; !rc && i < m.n; i++) {
        if (!m.e[i].alive)
            continue;
        const jnode *v = m.e[i].val;
        f[k].name = eng_strndup(m.e[i].key, m.e[i].klen);
        f[k].value = eng_strndup(json + v->start, v->end - v->start);
        f[k].value_len = v->end - v->start;
        if (!f[k].name || !f[k].value)
            rc = nomem(err);
        k++;
    }
    if (rc) {
        cql_json_fields_free(f, k);
    } else {
        *out = f;
        *n = k;
    }
    omap_free(&m);
    eng_arena_free(&arena);
    return rc;
}

void cql_json_fields_free(cql_json_field *fields, int n)
{
    for (int i = 0; fields && i < n; i++) {
        eng_free(fields[i].name);
        eng_free(fields[i].value);
    }
    eng_free(fields);
}
