/*
 * Murmur3Partitioner tokens, bit for bit as Cassandra computes them: the
 * x64 128-bit MurmurHash3 with seed 0 and Cassandra's sign-extended tail
 * bytes, h1 as a signed 64-bit token, Long.MIN_VALUE mapped to MAX_VALUE
 * (facts §1). Pure functions, thread-safe.
 */
#ifndef ENG_TOKEN_H
#define ENG_TOKEN_H

#include "engine/value/common.h"

#define ENG_TOKEN_MIN INT64_MIN
#define ENG_TOKEN_MAX INT64_MAX

/* Cassandra's hash3_x64_128 (with its sign quirk); out[0] = h1, out[1] = h2. */
void eng_murmur3_x64_128(const uint8_t *key, size_t len, uint64_t seed, uint64_t out[2]);

/* Token of serialized partition key bytes; an empty key gives ENG_TOKEN_MIN. */
int64_t eng_token(const uint8_t *key, size_t len);

/*
 * Serialized partition key of n components (facts §1.5): the value bytes
 * themselves for one component, else per component a be16 length, the
 * bytes and a 0x00 end-of-component byte. Components must not be null.
 */
void eng_partition_key_compose(eng_buf *out, const eng_val *parts, int n);
/*
 * Splits composite key bytes back into n components (views into key).
 * For n == 1 the whole key is the component. 0 or ENG_E_CORRUPT.
 */
int eng_partition_key_split(const uint8_t *key, size_t len, eng_val *parts, int n, eng_err *err);

#endif
