/*
 * Order-preserving key codec. Encodes partition and clustering key values
 * into byte strings whose memcmp order is Cassandra's order, so that LMDB's
 * plain byte order IS the partition order (token, then key bytes) and the
 * clustering order, and every slice is one cursor walk.
 *
 * Invariants:
 *  - eng_key_put's output is prefix-free for a given type: no encoding is a
 *    proper prefix of a different one. Concatenated components therefore
 *    compare component by component, and complementing every byte of a
 *    component (desc = 1) exactly reverses its order.
 *  - Values that Cassandra's comparator holds equal encode to the same bytes
 *    (decimal 1.0 and 1.00, varint 0x0001 and 0x01, boolean 0x01 and 0x02,
 *    every NaN, a tuple with or without trailing nulls): they are one row,
 *    as in Cassandra. Decoding therefore returns the canonical form (minimal
 *    varint, boolean 0x01, decimal with trailing zeros of the unscaled value
 *    removed down to scale 0 (10 reads as 10, 1.50 as 1.5), canonical NaN, tuples padded to full arity).
 *  - Empty values (0 bytes, where the type allows them) sort before all
 *    non-empty values; within tuples a null component sorts before any
 *    non-null one.
 *  - A tuple/UDT that runs out of components equals the other only if the
 *    other's remaining components are all null (facts §3). Cassandra's
 *    TupleType also treats a trailing *empty* component as absent, which
 *    makes (x) == (x, '') and (x) == (x, null) yet (x, null) < (x, ''): no
 *    byte order can follow that, so here (x, '') is its own key, after (x),
 *    and keeps its '' (eng_type_compare follows Cassandra and calls them
 *    equal).
 */
#ifndef ENG_KEYCODEC_H
#define ENG_KEYCODEC_H

#include "engine/value/types.h"

/*
 * Appends the order-preserving encoding of one value (valid native bytes of
 * type t). desc = 1 complements the encoding so that it sorts in reverse.
 * Types that cannot be keys (counter, duration, non-frozen collections and
 * UDTs) are refused with ENG_E_INVALID. Returns 0 or an error code.
 */
int eng_key_put(eng_buf *out, const eng_type *t, const uint8_t *p, size_t len, int desc,
                eng_err *err);

/*
 * Decodes one component at *pp (not past end), appends its native bytes to
 * out, and advances *pp past it. Returns 0, or ENG_E_CORRUPT if the bytes are
 * not a valid encoding of t.
 */
int eng_key_get(const eng_type *t, const uint8_t **pp, const uint8_t *end, int desc, eng_buf *out,
                eng_err *err);

/* Advances *pp past one encoded component without decoding; 0 or ENG_E_CORRUPT. */
/*
 * eng_key_get for the fixed-width types (tinyint ... bigint, float, double, timestamp, date,
 * time, uuid, timeuuid), straight into out: returns the value's width, ENG_KEY_EMPTY for an
 * empty value, 0 when t is not of a fixed-width type (nothing read: use eng_key_get), -1 for
 * bytes that are no such key (damage). Does not check that t may be a key.
 */
#define ENG_KEY_EMPTY 255
int eng_key_get_fixed(const eng_type *t, const uint8_t **pp, const uint8_t *end, int desc,
                      uint8_t out[16]);
int eng_key_skip(const eng_type *t, const uint8_t **pp, const uint8_t *end, int desc,
                 eng_err *err);

/*
 * Partition prefix of a row key: the token as 8 big-endian bytes with the
 * sign bit flipped (byte order = signed token order), then the serialized
 * partition key bytes (the bytes that were hashed, facts §1.5) in a
 * prefix-free escaped form, so that keys with equal tokens order by unsigned
 * key bytes as Cassandra does (facts §1.7).
 */
void eng_key_put_partition(eng_buf *out, int64_t token, const uint8_t *pk, size_t pk_len);
/*
 * Reads back a partition prefix; appends the partition key bytes to pk and
 * sets *token (either may be NULL to skip). With pk, the stored token must be
 * the key's token (eng_token), else the prefix is damaged. 0, ENG_E_CORRUPT,
 * or ENG_E_NOMEM.
 */
int eng_key_get_partition(const uint8_t **pp, const uint8_t *end, int64_t *token, eng_buf *pk,
                          eng_err *err);

/* The 8-byte token prefix alone (for token-range scans). */
void eng_key_put_token(uint8_t out[8], int64_t token);
int64_t eng_key_token_of(const uint8_t in[8]);

#endif
