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

typedef struct proto_reader {
    const uint8_t *p;    /* next unread byte */
    const uint8_t *end;  /* one past the last byte */
    const char *bad;     /* NULL while every read fit; else why the first one did not */
} proto_reader;

void proto_reader_init(proto_reader *r, const uint8_t *p, size_t len);
/* Bytes not read yet (0 once bad). */
static inline size_t proto_left(const proto_reader *r)
{
    return r->bad ? 0 : (size_t)(r->end - r->p);
}
/* Makes the reader bad with `why` (a static text), unless it already is. */
void proto_reader_fail(proto_reader *r, const char *why);

/* [byte], [short] (unsigned), [int], [long]. */
uint8_t proto_get_byte(proto_reader *r);
uint16_t proto_get_short(proto_reader *r);
int32_t proto_get_int(proto_reader *r);
int64_t proto_get_long(proto_reader *r);
/* [unsigned vint] and [vint] (zig-zag), as Cassandra's VIntCoding writes them. */
uint64_t proto_get_uvint(proto_reader *r);
int64_t proto_get_vint(proto_reader *r);
/* [string] and [long string]: a view of the bytes (len >= 0). Not checked as UTF-8: the
   message decoders check the texts the executor will read. */
eng_val proto_get_string(proto_reader *r);
eng_val proto_get_long_string(proto_reader *r);
/* [bytes]: len -1 for null (any negative length). */
eng_val proto_get_bytes(proto_reader *r);
/* [value]: len -1 null, -2 not set; a length below -2 makes the reader bad. */
#define PROTO_VALUE_NULL (-1)
#define PROTO_VALUE_UNSET (-2)
eng_val proto_get_value(proto_reader *r);
/* [short bytes]. */
eng_val proto_get_short_bytes(proto_reader *r);
/* [uuid]: a view of its 16 bytes (an empty string's bytes when bad). */
const uint8_t *proto_get_uuid(proto_reader *r);
/* [n] bytes as they are. */
const uint8_t *proto_get_raw(proto_reader *r, size_t n);

/* [inet] (with its port) and [inetaddr] (without: port 0). */
typedef struct proto_inet {
    uint8_t len;         /* 4 or 16 */
    uint8_t addr[16];
    int32_t port;
} proto_inet;
void proto_get_inet(proto_reader *r, proto_inet *out);
void proto_get_inetaddr(proto_reader *r, proto_inet *out);

/*
 * [string list], [string map], [string multimap] and [bytes map]: the items as views, in
 * arrays allocated from the arena (freed with it). A multimap's values are flattened:
 * entry i has the n_vals[i] strings starting at vals[first[i]].
 */
typedef struct proto_string_list {
    uint16_t n;
    eng_val *items;
} proto_string_list;

typedef struct proto_map {
    uint16_t n;
    eng_val *keys;       /* [string] */
    eng_val *vals;       /* [string] for a string map, [bytes] for a bytes map */
} proto_map;

typedef struct proto_multimap {
    uint16_t n;
    eng_val *keys;
    uint32_t *first;     /* index into vals of entry i's first value */
    uint16_t *n_vals;
    eng_val *vals;
} proto_multimap;

/* Each returns 0, or ENG_E_NOMEM when the arena cannot hold the arrays (a bad reader is not
   an error here: the caller checks r->bad). */
int proto_get_string_list(proto_reader *r, eng_arena *a, proto_string_list *out);
int proto_get_string_map(proto_reader *r, eng_arena *a, proto_map *out);
int proto_get_bytes_map(proto_reader *r, eng_arena *a, proto_map *out);
int proto_get_string_multimap(proto_reader *r, eng_arena *a, proto_multimap *out);
/* The value of `key` in a string map, or NULL. */
const eng_val *proto_map_find(const proto_map *m, const char *key);

/*
 * Writers. An item longer than its length field can count (a [string] over 65,535 bytes, a
 * [long string] or [bytes] over INT32_MAX) is never written cut: it fails the buffer as a
 * failed allocation would (b->oom), so the encoder's one check at the end catches it.
 */
void proto_put_byte(eng_buf *b, uint8_t v);
void proto_put_short(eng_buf *b, uint16_t v);
void proto_put_int(eng_buf *b, int32_t v);
void proto_put_long(eng_buf *b, int64_t v);
void proto_put_string(eng_buf *b, const char *s);
void proto_put_string_n(eng_buf *b, const uint8_t *p, size_t n);
void proto_put_long_string(eng_buf *b, const uint8_t *p, size_t n);
/* [bytes] and [value]: len < 0 writes the length alone (-1 null, -2 not set). */
void proto_put_bytes(eng_buf *b, const uint8_t *p, int32_t len);
void proto_put_short_bytes(eng_buf *b, const uint8_t *p, uint16_t n);
void proto_put_uuid(eng_buf *b, const uint8_t uuid[16]);
void proto_put_inet(eng_buf *b, const proto_inet *in);
void proto_put_inetaddr(eng_buf *b, const proto_inet *in);
void proto_put_string_list(eng_buf *b, const char *const *items, uint16_t n);

#endif
