/*
 * The protocol's notations: bounds-checked readers, writers on eng_buf
 * (wire.h). Every reader goes through take(), the one place that compares a
 * length with what is left.
 */
#include "cql/proto/wire.h"

#include <string.h>

void cql_proto_reader_init(cql_proto_reader *r, const uint8_t *p, size_t len)
{
    r->p = len ? p : (const uint8_t *)"";
    r->end = r->p + len;
    r->bad = NULL;
}

void cql_proto_reader_fail(cql_proto_reader *r, const char *why)
{
    if (!r->bad)
        r->bad = why;
}

/* The next n bytes, or NULL (and the reader bad) when fewer are left. */
static const uint8_t *take(cql_proto_reader *r, size_t n, const char *what)
{
    if (r->bad)
        return NULL;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = what;
        return NULL;
    }
    const uint8_t *at = r->p;
    r->p += n;
    return at;
}

uint8_t cql_proto_get_byte(cql_proto_reader *r)
{
    const uint8_t *p = take(r, 1, "not enough bytes to read a [byte]");
    return p ? p[0] : 0;
}

uint16_t cql_proto_get_short(cql_proto_reader *r)
{
    const uint8_t *p = take(r, 2, "not enough bytes to read a [short]");
    return p ? eng_be16(p) : 0;
}

int32_t cql_proto_get_int(cql_proto_reader *r)
{
    const uint8_t *p = take(r, 4, "not enough bytes to read an [int]");
    return p ? (int32_t)eng_be32(p) : 0;
}

int64_t cql_proto_get_long(cql_proto_reader *r)
{
    const uint8_t *p = take(r, 8, "not enough bytes to read a [long]");
    return p ? (int64_t)eng_be64(p) : 0;
}

uint64_t cql_proto_get_uvint(cql_proto_reader *r)
{
    uint64_t v = 0;
    size_t n = r->bad ? 0 : eng_get_uvint(r->p, (size_t)(r->end - r->p), &v);
    if (!n) {
        cql_proto_reader_fail(r, "not enough bytes to read a [vint]");
        return 0;
    }
    r->p += n;
    return v;
}

int64_t cql_proto_get_vint(cql_proto_reader *r)
{
    uint64_t z = cql_proto_get_uvint(r);
    return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static const eng_val empty_val = {(const uint8_t *)"", 0};

/* n bytes as a view; an empty view when they are not there. */
static eng_val take_val(cql_proto_reader *r, size_t n, const char *what)
{
    const uint8_t *p = take(r, n, what);
    if (!p)
        return empty_val;
    eng_val v = {p, (int32_t)n};
    return v;
}

eng_val cql_proto_get_string(cql_proto_reader *r)
{
    uint16_t n = cql_proto_get_short(r);
    return take_val(r, n, "not enough bytes to read a [string]");
}

eng_val cql_proto_get_long_string(cql_proto_reader *r)
{
    int32_t n = cql_proto_get_int(r);
    if (n < 0) {
        cql_proto_reader_fail(r, "a [long string] of negative length");
        return empty_val;
    }
    return take_val(r, (size_t)n, "not enough bytes to read a [long string]");
}

eng_val cql_proto_get_bytes(cql_proto_reader *r)
{
    int32_t n = cql_proto_get_int(r);
    if (r->bad)
        return empty_val;
    if (n < 0) {
        eng_val null = {NULL, CQL_PROTO_VALUE_NULL};
        return null;
    }
    return take_val(r, (size_t)n, "not enough bytes to read a [bytes]");
}

eng_val cql_proto_get_value(cql_proto_reader *r)
{
    int32_t n = cql_proto_get_int(r);
    if (r->bad)
        return empty_val;
    if (n == CQL_PROTO_VALUE_NULL || n == CQL_PROTO_VALUE_UNSET) {
        eng_val v = {NULL, n};
        return v;
    }
    if (n < 0) {
        cql_proto_reader_fail(r,
                              "a [value] of a negative length other than -1 (null) or -2 (unset)");
        return empty_val;
    }
    return take_val(r, (size_t)n, "not enough bytes to read a [value]");
}

eng_val cql_proto_get_short_bytes(cql_proto_reader *r)
{
    uint16_t n = cql_proto_get_short(r);
    return take_val(r, n, "not enough bytes to read a [short bytes]");
}

const uint8_t *cql_proto_get_uuid(cql_proto_reader *r)
{
    const uint8_t *p = take(r, 16, "not enough bytes to read a [uuid]");
    return p ? p : (const uint8_t *)"";
}

const uint8_t *cql_proto_get_raw(cql_proto_reader *r, size_t n)
{
    const uint8_t *p = take(r, n, "not enough bytes for the message");
    return p ? p : (const uint8_t *)"";
}

void cql_proto_get_inetaddr(cql_proto_reader *r, cql_proto_inet *out)
{
    memset(out, 0, sizeof *out);
    uint8_t n = cql_proto_get_byte(r);
    if (r->bad)
        return;
    if (n != 4 && n != 16) {
        cql_proto_reader_fail(r, "an [inet] address of a size other than 4 or 16");
        return;
    }
    const uint8_t *p = take(r, n, "not enough bytes to read an [inet]");
    if (p) {
        out->len = n;
        memcpy(out->addr, p, n);
    }
}

void cql_proto_get_inet(cql_proto_reader *r, cql_proto_inet *out)
{
    cql_proto_get_inetaddr(r, out);
    out->port = cql_proto_get_int(r);
    if (r->bad)
        memset(out, 0, sizeof *out);
}

/* n items' arrays from the arena; the count itself is read by the caller. */
static void *alloc_items(eng_arena *a, size_t n, size_t size)
{
    return n ? eng_arena_alloc(a, n * size) : NULL;
}

int cql_proto_get_string_list(cql_proto_reader *r, eng_arena *a, cql_proto_string_list *out)
{
    out->n = 0;
    out->items = NULL;
    uint16_t n = cql_proto_get_short(r);
    /* Each item is at least its 2-byte length: a count the bytes cannot hold is bad input,
       found before the arena is asked for room for it. */
    if (r->bad || (size_t)n * 2 > cql_proto_left(r)) {
        cql_proto_reader_fail(r, "not enough bytes to read a [string list]");
        return 0;
    }
    eng_val *items = alloc_items(a, n, sizeof *items);
    if (n && !items)
        return ENG_E_NOMEM;
    for (uint16_t i = 0; i < n; i++)
        items[i] = cql_proto_get_string(r);
    if (!r->bad) {
        out->n = n;
        out->items = items;
    }
    return 0;
}

static int get_map(cql_proto_reader *r, eng_arena *a, cql_proto_map *out, int bytes_vals)
{
    out->n = 0;
    out->keys = out->vals = NULL;
    uint16_t n = cql_proto_get_short(r);
    /* at least 2 bytes a key and 2 (a [string]) or 4 (a [bytes]) a value */
    if (r->bad || (size_t)n * (bytes_vals ? 6 : 4) > cql_proto_left(r)) {
        cql_proto_reader_fail(r, "not enough bytes to read a map");
        return 0;
    }
    eng_val *keys = alloc_items(a, n, sizeof *keys);
    eng_val *vals = alloc_items(a, n, sizeof *vals);
    if (n && (!keys || !vals))
        return ENG_E_NOMEM;
    for (uint16_t i = 0; i < n; i++) {
        keys[i] = cql_proto_get_string(r);
        vals[i] = bytes_vals ? cql_proto_get_bytes(r) : cql_proto_get_string(r);
    }
    if (!r->bad) {
        out->n = n;
        out->keys = keys;
        out->vals = vals;
    }
    return 0;
}

int cql_proto_get_string_map(cql_proto_reader *r, eng_arena *a, cql_proto_map *out)
{
    return get_map(r, a, out, 0);
}

int cql_proto_get_bytes_map(cql_proto_reader *r, eng_arena *a, cql_proto_map *out)
{
    return get_map(r, a, out, 1);
}

int cql_proto_get_string_multimap(cql_proto_reader *r, eng_arena *a, cql_proto_multimap *out)
{
    memset(out, 0, sizeof *out);
    uint16_t n = cql_proto_get_short(r);
    if (r->bad || (size_t)n * 4 > cql_proto_left(r)) {
        cql_proto_reader_fail(r, "not enough bytes to read a [string multimap]");
        return 0;
    }
    /* A first pass counts the values, so the one array of them is allocated once. */
    cql_proto_reader probe = *r;
    size_t total = 0;
    for (uint16_t i = 0; i < n && !probe.bad; i++) {
        cql_proto_get_string(&probe);
        uint16_t k = cql_proto_get_short(&probe);
        total += k;
        for (uint16_t j = 0; j < k && !probe.bad; j++)
            cql_proto_get_string(&probe);
    }
    if (probe.bad) {
        cql_proto_reader_fail(r, probe.bad);
        return 0;
    }
    eng_val *keys = alloc_items(a, n, sizeof *keys);
    uint32_t *first = alloc_items(a, n, sizeof *first);
    uint16_t *n_vals = alloc_items(a, n, sizeof *n_vals);
    eng_val *vals = alloc_items(a, total, sizeof *vals);
    if ((n && (!keys || !first || !n_vals)) || (total && !vals))
        return ENG_E_NOMEM;
    uint32_t at = 0;
    for (uint16_t i = 0; i < n; i++) {
        keys[i] = cql_proto_get_string(r);
        n_vals[i] = cql_proto_get_short(r);
        first[i] = at;
        for (uint16_t j = 0; j < n_vals[i]; j++)
            vals[at++] = cql_proto_get_string(r);
    }
    out->n = n;
    out->keys = keys;
    out->first = first;
    out->n_vals = n_vals;
    out->vals = vals;
    return 0;
}

const eng_val *cql_proto_map_find(const cql_proto_map *m, const char *key)
{
    size_t len = strlen(key);
    for (uint16_t i = 0; i < m->n; i++)
        if ((size_t)m->keys[i].len == len && memcmp(m->keys[i].p, key, len) == 0)
            return &m->vals[i];
    return NULL;
}

/* ---- writers ---- */

void cql_proto_put_byte(eng_buf *b, uint8_t v)
{
    eng_buf_put_u8(b, v);
}

void cql_proto_put_short(eng_buf *b, uint16_t v)
{
    eng_buf_put_be16(b, v);
}

void cql_proto_put_int(eng_buf *b, int32_t v)
{
    eng_buf_put_be32(b, (uint32_t)v);
}

void cql_proto_put_long(eng_buf *b, int64_t v)
{
    eng_buf_put_be64(b, (uint64_t)v);
}

void cql_proto_put_string_n(eng_buf *b, const uint8_t *p, size_t n)
{
    if (n > UINT16_MAX) {
        b->oom = 1;
        return;
    }
    eng_buf_put_be16(b, (uint16_t)n);
    eng_buf_put(b, p, n);
}

void cql_proto_put_string(eng_buf *b, const char *s)
{
    cql_proto_put_string_n(b, (const uint8_t *)s, strlen(s));
}

void cql_proto_put_long_string(eng_buf *b, const uint8_t *p, size_t n)
{
    if (n > INT32_MAX) {
        b->oom = 1;
        return;
    }
    eng_buf_put_be32(b, (uint32_t)n);
    eng_buf_put(b, p, n);
}

void cql_proto_put_bytes(eng_buf *b, const uint8_t *p, int32_t len)
{
    eng_buf_put_bytes(b, p, len);
}

void cql_proto_put_short_bytes(eng_buf *b, const uint8_t *p, uint16_t n)
{
    eng_buf_put_be16(b, n);
    eng_buf_put(b, p, n);
}

void cql_proto_put_uuid(eng_buf *b, const uint8_t uuid[16])
{
    eng_buf_put(b, uuid, 16);
}

void cql_proto_put_inetaddr(eng_buf *b, const cql_proto_inet *in)
{
    eng_buf_put_u8(b, in->len);
    eng_buf_put(b, in->addr, in->len);
}

void cql_proto_put_inet(eng_buf *b, const cql_proto_inet *in)
{
    cql_proto_put_inetaddr(b, in);
    cql_proto_put_int(b, in->port);
}

void cql_proto_put_string_list(eng_buf *b, const char *const *items, uint16_t n)
{
    cql_proto_put_short(b, n);
    for (uint16_t i = 0; i < n; i++)
        cql_proto_put_string(b, items[i]);
}
