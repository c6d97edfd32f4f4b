/*
 * UUIDs and time UUIDs. Random (v4) UUIDs and text conversion come from
 * libuuid. Time (v1) UUIDs are generated in-process from the engine's
 * clock — libuuid's own time generator costs 7-9 us a call here — with a
 * clock sequence and node drawn once from libuuid, strictly increasing per
 * generator even for many calls in the same microsecond (the 100-ns tick
 * count is bumped past the last one issued, so it may run ahead of the
 * clock, as Cassandra's does; facts §9).
 */
#ifndef ENG_UUID_H
#define ENG_UUID_H

#include <stdatomic.h>

#include "engine/value/common.h"

/* Milliseconds from 1582-10-15 to the Unix epoch (Cassandra's START_EPOCH is -12219292800000). */
#define ENG_UUID_EPOCH_OFFSET_MS 12219292800000LL

/* Generator of version-1 UUIDs. Thread-safe (lock-free). */
typedef struct eng_uuidgen {
    _Atomic uint64_t last_ticks; /* last 60-bit timestamp issued */
    uint64_t lsb;                /* clock_seq (variant 10) and node, fixed */
} eng_uuidgen;

/* Draws clock sequence and node from libuuid (a time UUID's low 8 bytes). */
void eng_uuidgen_init(eng_uuidgen *g);
/* Uses a given node (48 bits) and clock sequence (14 bits). */
void eng_uuidgen_init_with(eng_uuidgen *g, uint64_t node, uint16_t clock_seq);
/* Next time UUID at or after unix time now_us; strictly greater than every earlier one. */
void eng_uuidgen_next(eng_uuidgen *g, int64_t now_us, uint8_t out[16]);
/* A time UUID with exactly the given 100-ns tick count since 1582 and this generator's lsb. */
void eng_uuid_from_ticks(uint64_t ticks, uint64_t lsb, uint8_t out[16]);

/* minTimeuuid / maxTimeuuid of a Unix time in ms (facts §3.3). */
void eng_timeuuid_min(int64_t unix_ms, uint8_t out[16]);
void eng_timeuuid_max(int64_t unix_ms, uint8_t out[16]);
/* 60-bit tick count of a v1 UUID. */
uint64_t eng_timeuuid_ticks(const uint8_t u[16]);
/* Unix time of a v1 UUID in ms / us (integer division of ticks, as Cassandra). */
int64_t eng_timeuuid_unix_ms(const uint8_t u[16]);
int64_t eng_timeuuid_unix_us(const uint8_t u[16]);
/* Version nibble of any UUID. */
static inline int eng_uuid_version(const uint8_t u[16]) { return u[6] >> 4; }

/* Random version-4 UUID (libuuid). */
void eng_uuid_random(uint8_t out[16]);
/* Parses the 36-character hyphenated form (case-insensitive); 0 or -1. */
int eng_uuid_parse(const char *s, size_t len, uint8_t out[16]);
/* Lowercase hyphenated form, NUL-terminated. */
void eng_uuid_format(const uint8_t u[16], char out[37]);

#endif
