/*
 * Real or virtual time for the whole engine (see clock.h). CLOCK_REALTIME is
 * what Cassandra uses for write timestamps; monotonicity of timestamps is
 * enforced above this layer (the write high-water mark), not here.
 */
#include "engine/value/clock.h"

#include <time.h>

void eng_clock_init(eng_clock *c)
{
    atomic_store(&c->is_virtual, 0);
    atomic_store(&c->virtual_us, 0);
}

int64_t eng_clock_now_us(eng_clock *c)
{
    if (c && atomic_load_explicit(&c->is_virtual, memory_order_acquire))
        return atomic_load_explicit(&c->virtual_us, memory_order_acquire);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void eng_clock_set_virtual(eng_clock *c, int64_t us)
{
    atomic_store(&c->virtual_us, us);
    atomic_store_explicit(&c->is_virtual, 1, memory_order_release);
}

void eng_clock_advance(eng_clock *c, int64_t delta_us)
{
    if (atomic_load(&c->is_virtual))
        atomic_fetch_add(&c->virtual_us, delta_us);
}

void eng_clock_set_real(eng_clock *c) { atomic_store(&c->is_virtual, 0); }
