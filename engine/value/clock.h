/*
 * The engine's one clock. Every notion of "now" — write timestamps, TTL
 * expiry, gc_grace, now(), time UUIDs — is read from an eng_clock, so a test
 * can switch it to virtual time and advance it instead of sleeping.
 * Thread-safe.
 */
#ifndef ENG_CLOCK_H
#define ENG_CLOCK_H

#include <stdatomic.h>

#include "engine/value/common.h"

typedef struct eng_clock {
    _Atomic int is_virtual;     /* 1: now = virtual_us */
    _Atomic int64_t virtual_us; /* microseconds since the Unix epoch */
} eng_clock;

void eng_clock_init(eng_clock *c);                 /* real time */
int64_t eng_clock_now_us(eng_clock *c);            /* microseconds since the epoch */
static inline int64_t eng_clock_now_s(eng_clock *c) { return eng_clock_now_us(c) / 1000000; }
void eng_clock_set_virtual(eng_clock *c, int64_t us); /* switch to virtual time at us */
void eng_clock_advance(eng_clock *c, int64_t delta_us); /* virtual only; no-op on real time */
void eng_clock_set_real(eng_clock *c);

#endif
