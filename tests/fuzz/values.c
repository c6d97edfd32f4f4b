/*
 * The fuzz targets' shared table of CQL types and their value generator (fuzz.h).
 *
 * Types are written once, as CQL, and parsed here into engine types with a small parser
 * of the type grammar (scalars by name, list/set/map/tuple/frozen, the UDT `addr`), so
 * the schema the CQL and driver targets create and the types the engine-level targets use
 * cannot drift apart.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

const char fz_udt_cql[] = "addr (street text, zip int, tags frozen<set<text>>, "
                          "loc tuple<double, double>)";

const fz_column fz_columns[] = {
    {"a", "ascii"},
    {"bi", "bigint"},
    {"b", "blob"},
    {"bo", "boolean"},
    {"de", "decimal"},
    {"d", "double"},
    {"f", "float"},
    {"i", "int"},
    {"ts", "timestamp"},
    {"u", "uuid"},
    {"tx", "text"},
    {"vi", "varint"},
    {"tu", "timeuuid"},
    {"ip", "inet"},
    {"dt", "date"},
    {"tm", "time"},
    {"si", "smallint"},
    {"ti", "tinyint"},
    {"du", "duration"},
    {"l", "list<int>"},
    {"st", "set<text>"},
    {"m", "map<text, int>"},
    {"fl", "frozen<list<text>>"},
    {"fs", "frozen<set<int>>"},
    {"fm", "frozen<map<int, text>>"},
    {"tp", "tuple<int, text, double>"},
    {"ad", "addr"},
    {"fad", "frozen<addr>"},
    {"ll", "list<frozen<list<int>>>"},
    {"mt", "map<int, frozen<tuple<text, int>>>"},
    {"sd", "set<double>"},
    {"fsu", "frozen<set<frozen<tuple<int, text>>>>"},
    {"tn", "tuple<varint, decimal, timestamp, boolean>"},
    {"mb", "map<uuid, frozen<list<blob>>>"},
    {"ldu", "list<duration>"},
    {"stu", "set<timeuuid>"},
    {"mip", "map<inet, date>"},
    {"nest", "frozen<list<frozen<map<text, frozen<set<smallint>>>>>>"},
    {"sf", "set<float>"},
    {"lts", "list<frozen<tuple<time, tinyint, bigint>>>"},
};
const int fz_n_columns = (int)ENG_ARRAY_LEN(fz_columns);

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* ---- the type grammar ---- */

typedef struct tparser {
    const char *s;
} tparser;

static void skip_spaces(tparser *p)
{
    while (*p->s == ' ')
        p->s++;
}

static void expect(tparser *p, char c)
{
    skip_spaces(p);
    if (*p->s != c)
        fz_fail("type grammar: expected '%c' at \"%s\"", c, p->s);
    p->s++;
}

static eng_type *parse_type(tparser *p);

static eng_type *parse_udt(void)
{
    tparser p = {strchr(fz_udt_cql, '(') + 1};
    char *names[8];
    eng_type *types[8];
    int n = 0;
    for (;;) {
        skip_spaces(&p);
        size_t len = strcspn(p.s, " ");
        names[n] = eng_strndup(p.s, len);
        p.s += len;
        types[n++] = parse_type(&p);
        skip_spaces(&p);
        if (*p.s++ != ',')
            break;
    }
    return eng_type_new_udt("ks", "addr", names, types, n, 0);
}

static eng_type *parse_type(tparser *p)
{
    skip_spaces(p);
    size_t len = 0;
    while (isalnum((unsigned char)p->s[len]))
        len++;
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)len, p->s);
    p->s += len;
    eng_type *t = NULL;
    if (!strcmp(name, "addr")) {
        t = parse_udt();
    } else if (!strcmp(name, "frozen")) {
        expect(p, '<');
        t = parse_type(p);
        expect(p, '>');
        t->frozen = 1;
    } else if (!strcmp(name, "list") || !strcmp(name, "set")) {
        expect(p, '<');
        eng_type *elem = parse_type(p);
        expect(p, '>');
        t = name[0] == 'l' ? eng_type_new_list(elem, 0) : eng_type_new_set(elem, 0);
    } else if (!strcmp(name, "map")) {
        expect(p, '<');
        eng_type *k = parse_type(p);
        expect(p, ',');
        eng_type *v = parse_type(p);
        expect(p, '>');
        t = eng_type_new_map(k, v, 0);
    } else if (!strcmp(name, "tuple")) {
        eng_type *comps[8];
        int n = 0;
        expect(p, '<');
        do {
            comps[n++] = parse_type(p);
            skip_spaces(p);
        } while (*p->s++ == ',');
        t = eng_type_new_tuple(comps, n);
    } else {
        int kind = eng_kind_from_name(name, strlen(name));
        t = kind > 0 ? eng_type_new(kind) : NULL;
    }
    if (!t)
        fz_fail("type grammar: cannot build \"%s\"", name);
    return t;
}

eng_type *fz_type_parse(const char *cql)
{
    tparser p = {cql};
    return parse_type(&p);
}

static eng_type *column_types[64];
static eng_type *key_types[64];
static eng_type *counter_type;

const eng_type *fz_column_type(int i)
{
    if (!column_types[i])
        column_types[i] = fz_type_parse(fz_columns[i].cql);
    return column_types[i];
}

const eng_type *fz_counter_type(void)
{
    if (!counter_type)
        counter_type = eng_type_new(ENG_COUNTER);
    return counter_type;
}

const eng_type *fz_key_type(int i)
{
    const eng_type *t = fz_column_type(i);
    if (eng_type_contains_kind(t, ENG_DURATION))
        return NULL;
    if (!key_types[i]) {
        key_types[i] = eng_type_dup(t);
        if (key_types[i]->kind >= ENG_LIST)
            key_types[i]->frozen = 1;
    }
    return key_types[i];
}

/* ---- values ---- */

static void put_be(eng_buf *out, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--)
        eng_buf_put_u8(out, (uint8_t)(v >> (8 * i)));
}

static uint64_t take_be(fz_input *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | fz_u8(in);
    return v;
}

/* Text of up to 24 characters: ASCII bytes as they are, others as U+0080..U+00FF. */
static void gen_text(fz_input *in, eng_buf *out, int ascii)
{
    const uint8_t *b;
    size_t n = fz_take(in, fz_u8(in) % 25, &b);
    for (size_t i = 0; i < n; i++) {
        if (b[i] < 0x80 || ascii) {
            eng_buf_put_u8(out, b[i] & 0x7F);
        } else {
            eng_buf_put_u8(out, (uint8_t)(0xC0 | b[i] >> 6));
            eng_buf_put_u8(out, (uint8_t)(0x80 | (b[i] & 0x3F)));
        }
    }
}

static void gen_raw(fz_input *in, eng_buf *out, size_t max)
{
    const uint8_t *b;
    size_t n = fz_take(in, fz_u8(in) % (max + 1), &b);
    eng_buf_put(out, b, n);
}

/* A varint of 1..17 bytes, most of them small. */
static void gen_varint(fz_input *in, eng_buf *out)
{
    const uint8_t *b;
    size_t n = fz_take(in, 1 + fz_u8(in) % 17, &b);
    if (n)
        eng_buf_put(out, b, n);
    else
        eng_buf_put_u8(out, 0);
}

static void gen_duration(fz_input *in, eng_buf *out)
{
    uint8_t sign = fz_u8(in);
    int64_t months = (int32_t)take_be(in, (sign >> 1) & 1 ? 4 : 1);
    int64_t days = (int32_t)take_be(in, (sign >> 2) & 1 ? 4 : 1);
    int64_t nanos = (int64_t)take_be(in, (sign >> 3) & 1 ? 8 : 2);
    if (!(sign >> 4 & 1)) { /* the common case: every part of one sign */
        int neg = sign & 1;
        months = months < 0 ? -(months + 1) : months;
        days = days < 0 ? -(days + 1) : days;
        nanos = nanos < 0 ? -(nanos + 1) : nanos;
        if (neg) {
            months = -months;
            days = -days;
            nanos = -nanos;
        }
    }
    eng_buf_put_vint(out, months);
    eng_buf_put_vint(out, days);
    eng_buf_put_vint(out, nanos);
}

static void gen_scalar(int kind, fz_input *in, eng_buf *out)
{
    switch (kind) {
    case ENG_BOOLEAN:
    case ENG_TINYINT:
        put_be(out, take_be(in, 1), 1);
        break;
    case ENG_SMALLINT:
        put_be(out, take_be(in, 2), 2);
        break;
    case ENG_INT:
    case ENG_FLOAT:
    case ENG_DATE:
        put_be(out, take_be(in, 4), 4);
        break;
    case ENG_BIGINT:
    case ENG_COUNTER:
    case ENG_TIMESTAMP:
    case ENG_DOUBLE:
        put_be(out, take_be(in, 8), 8);
        break;
    case ENG_TIME:
        put_be(out, take_be(in, 8) % UINT64_C(86400000000000), 8);
        break;
    case ENG_UUID:
    case ENG_TIMEUUID: {
        uint8_t u[16];
        for (int i = 0; i < 16; i++)
            u[i] = fz_u8(in);
        if (kind == ENG_TIMEUUID)
            u[6] = (uint8_t)(0x10 | (u[6] & 0x0F));
        eng_buf_put(out, u, 16);
        break;
    }
    case ENG_INET:
        put_be(out, take_be(in, 4), 4);
        if (fz_u8(in) & 1) { /* IPv6: 12 more bytes */
            put_be(out, take_be(in, 8), 8);
            put_be(out, take_be(in, 4), 4);
        }
        break;
    case ENG_ASCII:
    case ENG_TEXT:
        gen_text(in, out, kind == ENG_ASCII);
        break;
    case ENG_VARINT:
        gen_varint(in, out);
        break;
    case ENG_DECIMAL: {
        uint8_t wide = fz_u8(in);
        put_be(out, wide & 1 ? take_be(in, 4) : (uint32_t)(int32_t)(int8_t)fz_u8(in), 4);
        gen_varint(in, out);
        break;
    }
    case ENG_DURATION:
        gen_duration(in, out);
        break;
    default: /* blob, custom */
        gen_raw(in, out, 24);
        break;
    }
}

static void gen_item(const eng_type *t, fz_input *in, eng_buf *out, int depth);

/* Elements of a list or set, pairs of a map: a count (at most 4), then [bytes] items. */
static void gen_collection(const eng_type *t, fz_input *in, eng_buf *out, int depth)
{
    int n = fz_u8(in) % 5;
    eng_buf_put_be32(out, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        gen_item(t->sub[0], in, out, depth);
        if (t->kind == ENG_MAP)
            gen_item(t->sub[1], in, out, depth);
    }
}

/* Tuple components or UDT fields, each possibly null; a UDT may stop early. */
static void gen_components(const eng_type *t, fz_input *in, eng_buf *out, int depth)
{
    int n = t->n_sub;
    if (t->kind == ENG_UDT && (fz_u8(in) & 3) == 0)
        n = fz_u8(in) % (n + 1);
    for (int i = 0; i < n; i++) {
        if ((fz_u8(in) & 7) == 0)
            eng_buf_put_be32(out, (uint32_t)ENG_NULL);
        else
            gen_item(t->sub[i], in, out, depth);
    }
}

static void gen(const eng_type *t, fz_input *in, eng_buf *out, int depth)
{
    uint8_t shape = fz_u8(in);
    if (shape == 0xFF || depth > 6) { /* raw bytes as they come: validation must refuse them */
        gen_raw(in, out, 32);
        return;
    }
    if (shape == 0xFE && t->kind < ENG_LIST) /* the empty value */
        return;
    if (t->kind == ENG_LIST || t->kind == ENG_SET || t->kind == ENG_MAP)
        gen_collection(t, in, out, depth + 1);
    else if (t->kind == ENG_TUPLE || t->kind == ENG_UDT)
        gen_components(t, in, out, depth + 1);
    else
        gen_scalar(t->kind, in, out);
}

/* A [bytes] item: be32 length then the value. */
static void gen_item(const eng_type *t, fz_input *in, eng_buf *out, int depth)
{
    size_t at = out->len;
    eng_buf_put_be32(out, 0);
    gen(t, in, out, depth);
    if (!out->oom)
        eng_put_be32(out->p + at, (uint32_t)(out->len - at - 4));
}

void fz_gen_value(const eng_type *t, fz_input *in, eng_buf *out)
{
    gen(t, in, out, 0);
}
