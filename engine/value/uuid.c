/*
 * UUIDs and time UUIDs (see uuid.h).
 *
 * Version-1 UUIDs are built here from a 60-bit count of 100-ns ticks since
 * 1582-10-15 and a fixed low half (clock sequence + node), with Cassandra's
 * layout and its minTimeuuid/maxTimeuuid bounds (facts §3.3). A generator
 * hands out strictly increasing tick counts with one compare-and-swap, so
 * any number of threads may share it and no two calls ever get the same
 * UUID; like Cassandra's, it runs ahead of the clock when asked for more
 * than one UUID per tick (facts §9). Random UUIDs, the node and clock
 * sequence, and text conversion come from libuuid.
 */
#include "engine/value/uuid.h"

#include <string.h>
#include <uuid/uuid.h>

#define TICKS_MASK 0x0fffffffffffffffULL /* a v1 timestamp has 60 bits */
#define TICKS_PER_MS 10000LL
#define LSB_MIN 0x8080808080808080ULL /* eight -128 bytes: least in signed-byte order */
#define LSB_MAX 0x7f7f7f7f7f7f7f7fULL /* eight +127 bytes: greatest (facts §3.3) */

/* Clock sequence byte pair with RFC 4122 variant bits 10 on top. */
static uint64_t make_lsb(uint64_t node, uint16_t clock_seq)
{
    uint64_t cs = 0x8000u | (clock_seq & 0x3fffu);
    return cs << 48 | (node & 0xffffffffffffULL);
}

void eng_uuidgen_init(eng_uuidgen *g)
{
    uuid_t u;
    uuid_generate_time(u);
    uint64_t lsb = eng_be64(u + 8);
    atomic_store(&g->last_ticks, 0);
    g->lsb = make_lsb(lsb, (uint16_t)(lsb >> 48));
}

void eng_uuidgen_init_with(eng_uuidgen *g, uint64_t node, uint16_t clock_seq)
{
    atomic_store(&g->last_ticks, 0);
    g->lsb = make_lsb(node, clock_seq);
}

static uint64_t ticks_of_unix_us(int64_t unix_us)
{
    /* Two's complement wrap-around, then the 60-bit mask, as Cassandra's long arithmetic. */
    uint64_t t = (uint64_t)unix_us * 10u + (uint64_t)ENG_UUID_EPOCH_OFFSET_MS * TICKS_PER_MS;
    return t & TICKS_MASK;
}

void eng_uuidgen_next(eng_uuidgen *g, int64_t now_us, uint8_t out[16])
{
    uint64_t now = ticks_of_unix_us(now_us);
    uint64_t last = atomic_load_explicit(&g->last_ticks, memory_order_relaxed);
    uint64_t next;
    /* ticks = max(now, last + 1): unique and increasing even within one tick (facts §9). */
    do {
        next = now > last ? now : last + 1;
    } while (!atomic_compare_exchange_weak_explicit(&g->last_ticks, &last, next,
                                                    memory_order_relaxed, memory_order_relaxed));
    eng_uuid_from_ticks(next, g->lsb, out);
}

void eng_uuid_from_ticks(uint64_t ticks, uint64_t lsb, uint8_t out[16])
{
    /* time_low | time_mid | version 1 + time_hi (facts §3.3 MSB formula). */
    uint64_t msb = (ticks & 0xffffffffULL) << 32 | (ticks & 0xffff00000000ULL) >> 16 |
                   ((ticks >> 48) & 0x0fffu) | 0x1000u;
    eng_put_be64(out, msb);
    eng_put_be64(out + 8, lsb);
}

void eng_timeuuid_min(int64_t unix_ms, uint8_t out[16])
{
    uint64_t ticks = ((uint64_t)unix_ms + (uint64_t)ENG_UUID_EPOCH_OFFSET_MS) * TICKS_PER_MS;
    eng_uuid_from_ticks(ticks, LSB_MIN, out);
}

void eng_timeuuid_max(int64_t unix_ms, uint8_t out[16])
{
    /* The last tick of that millisecond (facts §3.3). */
    uint64_t ticks =
        ((uint64_t)unix_ms + 1u + (uint64_t)ENG_UUID_EPOCH_OFFSET_MS) * TICKS_PER_MS - 1u;
    eng_uuid_from_ticks(ticks, LSB_MAX, out);
}

uint64_t eng_timeuuid_ticks(const uint8_t u[16])
{
    uint64_t msb = eng_be64(u);
    return (msb & 0x0fffu) << 48 | ((msb >> 16) & 0xffffu) << 32 | msb >> 32;
}

int64_t eng_timeuuid_unix_ms(const uint8_t u[16])
{
    return (int64_t)(eng_timeuuid_ticks(u) / TICKS_PER_MS) - ENG_UUID_EPOCH_OFFSET_MS;
}

int64_t eng_timeuuid_unix_us(const uint8_t u[16])
{
    return (int64_t)(eng_timeuuid_ticks(u) / 10u) - ENG_UUID_EPOCH_OFFSET_MS * 1000;
}

void eng_uuid_random(uint8_t out[16])
{
    uuid_generate_random(out);
}

int eng_uuid_parse(const char *s, size_t len, uint8_t out[16])
{
    if (len != 36)
        return -1;
    /* libuuid checks every hex digit and the four hyphens; its range form needs no NUL. */
    uuid_t u;
    if (uuid_parse_range(s, s + len, u) != 0)
        return -1;
    memcpy(out, u, 16);
    return 0;
}

void eng_uuid_format(const uint8_t u[16], char out[37])
{
    uuid_unparse_lower(u, out);
}
