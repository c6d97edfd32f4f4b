/*
 * The native protocol's notations ([PV4] §3, [PV5] §3): the items every
 * message is made of, read from and written to byte buffers. Big-endian
 * throughout, like the frame header.
 *
 * Reading never trusts a length: a reader over [p, end) checks every item
 * against what is left before it looks at it. The first item that does not
 * fit, or is malformed (a negative [string] length, a [value] length below
 * -2, an [inet] size other than 4 or 16), makes the reader bad: it records
 * why, and every later read returns an empty item without moving, so a
 * decoder reads a whole message and checks `bad` once at the end. Items read
 * are views into the input (no copy): they live as long as its bytes.
 *
 * Writing appends to an eng_buf, whose growth failure is sticky (`oom`): an
 * encoder checks once at the end too.
 *
 * Threads: no shared state; a reader or buffer belongs to its caller.
 */
#ifndef CQL_PROTO_WIRE_H
#define CQL_PROTO_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/value/common.h"

typedef struct cql_proto_reader {
    const uint8_t *p;   /* next unread byte */
    const uint8_t *end; /* one past the last byte */
    const char *bad;    /* NULL while every read fit; else why the first one did not */
} cql_proto_reader;

void cql_proto_reader_init(cql_proto_reader *r, const uint8_t *p, size_t len);
/* Bytes not read yet (0 once bad). */
static inline size_t cql_proto_left(const cql_proto_reader *r)
{
    return r->bad ? 0 : (size_t)(r->end - r->p);
}
/* Makes the reader bad with `why` (a static text), unless it already is. */
void cql_proto_reader_fail(cql_proto_reader *r, const char *why);

/* [byte], [short] (unsigned), [int], [long]. */
uint8_t cql_proto_get_byte(cql_proto_reader *r);
uint16_t cql_proto_get_short(cql_proto_reader *r);
int32_t cql_proto_get_int(cql_proto_reader *r);
int64_t cql_proto_get_long(cql_proto_reader *r);
/* [unsigned vint] and [vint] (zig-zag), as Cassandra's VIntCoding writes them. */
uint64_t cql_proto_get_uvint(cql_proto_reader *r);
int64_t cql_proto_get_vint(cql_proto_reader *r);
/* [string] and [long string]: a view of the bytes (len >= 0). Not checked as UTF-8: the
   message decoders check the texts the executor will read. */
eng_val cql_proto_get_string(cql_proto_reader *r);
eng_val cql_proto_get_long_string(cql_proto_reader *r);
/* [bytes]: len -1 for null (any negative length). */
eng_val cql_proto_get_bytes(cql_proto_reader *r);
/* [value]: len -1 null, -2 not set; a length below -2 makes the reader bad. */
#define CQL_PROTO_VALUE_NULL (-1)
#define CQL_PROTO_VALUE_UNSET (-2)
eng_val cql_proto_get_value(cql_proto_reader *r);
/* [short bytes]. */
eng_val cql_proto_get_short_bytes(cql_proto_reader *r);
/* [uuid]: a view of its 16 bytes (an empty string's bytes when bad). */
const uint8_t *cql_proto_get_uuid(cql_proto_reader *r);
/* [n] bytes as they are. */
const uint8_t *cql_proto_get_raw(cql_proto_reader *r, size_t n);

/* [inet] (with its port) and [inetaddr] (without: port 0). */
typedef struct cql_proto_inet {
    uint8_t len; /* 4 or 16 */
    uint8_t addr[16];
    int32_t port;
} cql_proto_inet;
void cql_proto_get_inet(cql_proto_reader *r, cql_proto_inet *out);
void cql_proto_get_inetaddr(cql_proto_reader *r, cql_proto_inet *out);

/*
 * [string list], [string map], [string multimap] and [bytes map]: the items as views, in
 * arrays allocated from the arena (freed with it). A multimap's values are flattened:
 * entry i has the n_vals[i] strings starting at vals[first[i]].
 */
typedef struct cql_proto_string_list {
    uint16_t n;
    eng_val *items;
} cql_proto_string_list;

typedef struct cql_proto_map {
    uint16_t n;
    eng_val *keys; /* [string] */
    eng_val *vals; /* [string] for a string map, [bytes] for a bytes map */
} cql_proto_map;

typedef struct cql_proto_multimap {
    uint16_t n;
    eng_val *keys;
    uint32_t *first; /* index into vals of entry i's first value */
    uint16_t *n_vals;
    eng_val *vals;
} cql_proto_multimap;

/* Each returns 0, or ENG_E_NOMEM when the arena cannot hold the arrays (a bad reader is not
   an error here: the caller checks r->bad). */
int cql_proto_get_string_list(cql_proto_reader *r, eng_arena *a, cql_proto_string_list *out);
int cql_proto_get_string_map(cql_proto_reader *r, eng_arena *a, cql_proto_map *out);
int cql_proto_get_bytes_map(cql_proto_reader *r, eng_arena *a, cql_proto_map *out);
int cql_proto_get_string_multimap(cql_proto_reader *r, eng_arena *a, cql_proto_multimap *out);
/* The value of `key` in a string map, or NULL. */
const eng_val *cql_proto_map_find(const cql_proto_map *m, const char *key);

/*
 * Writers. An item longer than its length field can count (a [string] over 65,535 bytes, a
 * [long string] or [bytes] over INT32_MAX) is never written cut: it fails the buffer as a
 * failed allocation would (b->oom), so the encoder's one check at the end catches it.
 */
void cql_proto_put_byte(eng_buf *b, uint8_t v);
void cql_proto_put_short(eng_buf *b, uint16_t v);
void cql_proto_put_int(eng_buf *b, int32_t v);
void cql_proto_put_long(eng_buf *b, int64_t v);
void cql_proto_put_string(eng_buf *b, const char *s);
void cql_proto_put_string_n(eng_buf *b, const uint8_t *p, size_t n);
void cql_proto_put_long_string(eng_buf *b, const uint8_t *p, size_t n);
/* [bytes] and [value]: len < 0 writes the length alone (-1 null, -2 not set). */
void cql_proto_put_bytes(eng_buf *b, const uint8_t *p, int32_t len);
void cql_proto_put_short_bytes(eng_buf *b, const uint8_t *p, uint16_t n);
void cql_proto_put_uuid(eng_buf *b, const uint8_t uuid[16]);
void cql_proto_put_inet(eng_buf *b, const cql_proto_inet *in);
void cql_proto_put_inetaddr(eng_buf *b, const cql_proto_inet *in);
void cql_proto_put_string_list(eng_buf *b, const char *const *items, uint16_t n);

#endif
