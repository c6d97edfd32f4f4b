/*
 * Latency histograms and request rates for cass_session_get_metrics and
 * cass_session_get_speculative_execution_metrics.
 *
 * A histogram counts microseconds in log-linear buckets: every power of two
 * cut in 16, so a figure read back is at most 1/16 (6%) below the truth,
 * in a fixed 8 KiB whatever the number of requests. Rates are the mean rate
 * and the exponentially weighted 1, 5 and 15 minute rates ticked every 5
 * seconds, as the driver's (and Dropwizard's) meters compute them.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "cql/driver/driver_int.h"

#define TICK_US 5000000u /* rates move in 5 s steps */

static unsigned hist_bucket(uint64_t us)
{
    if (us < 16)
        return (unsigned)us;
    unsigned k = 63u - (unsigned)__builtin_clzll(us); /* 2^k <= us < 2^(k+1), k >= 4 */
    unsigned sub = (unsigned)((us >> (k - 4)) & 15u);
    unsigned b = (k - 3) * 16u + sub;
    return b < CQL_DRV_HIST_BUCKETS ? b : CQL_DRV_HIST_BUCKETS - 1;
}

/* The low end of a bucket. */
static uint64_t hist_value(unsigned b)
{
    if (b < 16)
        return b;
    unsigned k = b / 16u + 3u, sub = b % 16u;
    return ((uint64_t)(16u + sub)) << (k - 4);
}

void cql_drv_hist_add(uint64_t *hist, uint64_t us) { hist[hist_bucket(us)]++; }

void cql_drv_hist_read(const uint64_t *hist, cass_uint64_t *min, cass_uint64_t *max,
                       cass_uint64_t *mean, cass_uint64_t *stddev, cass_uint64_t *median,
                       cass_uint64_t *p75, cass_uint64_t *p95, cass_uint64_t *p98,
                       cass_uint64_t *p99, cass_uint64_t *p999)
{
    uint64_t n = 0;
    double sum = 0, sq = 0;
    unsigned lo = CQL_DRV_HIST_BUCKETS, hi = 0;
    for (unsigned i = 0; i < CQL_DRV_HIST_BUCKETS; i++) {
        if (!hist[i])
            continue;
        double v = (double)hist_value(i);
        n += hist[i];
        sum += v * (double)hist[i];
        sq += v * v * (double)hist[i];
        if (i < lo)
            lo = i;
        hi = i;
    }
    cass_uint64_t *outs[] = {median, p75, p95, p98, p99, p999};
    static const double q[] = {0.5, 0.75, 0.95, 0.98, 0.99, 0.999};
    if (!n) {
        *min = *max = *mean = *stddev = 0;
        for (unsigned j = 0; j < 6; j++)
            *outs[j] = 0;
        return;
    }
    *min = hist_value(lo);
    *max = hist_value(hi);
    double m = sum / (double)n, var = sq / (double)n - m * m;
    *mean = (cass_uint64_t)m;
    *stddev = var > 0 ? (cass_uint64_t)sqrt(var) : 0;
    for (unsigned j = 0; j < 6; j++) {
        uint64_t want = (uint64_t)((double)n * q[j]), seen = 0;
        unsigned i = 0;
        for (; i < CQL_DRV_HIST_BUCKETS; i++) {
            seen += hist[i];
            if (seen > want)
                break;
        }
        *outs[j] = hist_value(i < CQL_DRV_HIST_BUCKETS ? i : hi);
    }
}

uint64_t cql_drv_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void cql_drv_meter_init(cql_drv_meter *m)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    for (int i = 0; i < ENG_SHARDS; i++)
        pthread_mutex_init(&m->shards[i].lock, NULL);
    m->start_us = cql_drv_now_us();
    atomic_init(&m->last_tick_us, m->start_us);
}

void cql_drv_meter_destroy(cql_drv_meter *m)
{
    for (int i = 0; i < ENG_SHARDS; i++)
        pthread_mutex_destroy(&m->shards[i].lock);
    pthread_mutex_destroy(&m->lock);
}

/* The requests counted since the last tick, taken from every shard (under m->lock). */
static uint64_t take_uncounted(cql_drv_meter *m)
{
    uint64_t n = 0;
    for (int i = 0; i < ENG_SHARDS; i++) {
        cql_drv_meter_shard *sh = &m->shards[i];
        pthread_mutex_lock(&sh->lock);
        n += sh->uncounted;
        sh->uncounted = 0;
        pthread_mutex_unlock(&sh->lock);
    }
    return n;
}

/* Moves the rates on by every 5 s tick since the last (under m->lock). */
static void meter_tick(cql_drv_meter *m, uint64_t now)
{
    /* alpha = 1 - exp(-5 s / window) for windows of 1, 5 and 15 minutes */
    static const double alpha[3] = {0.07995558537067671, 0.01652854617838251,
                                    0.005540151995103271};
    double *rate[3] = {&m->m1, &m->m5, &m->m15};
    uint64_t last = atomic_load(&m->last_tick_us);
    if (now - last < TICK_US)
        return;
    uint64_t uncounted = take_uncounted(m);
    while (now - last >= TICK_US) {
        double instant = (double)uncounted / (TICK_US / 1e6);
        uncounted = 0;
        for (int i = 0; i < 3; i++) {
            if (m->rates_init)
                *rate[i] += alpha[i] * (instant - *rate[i]);
            else
                *rate[i] = instant;
        }
        m->rates_init = 1;
        last += TICK_US;
        if (now - last > 3600u * 1000000u) /* idle for an hour: the rates are 0 */
            last = now - (now - last) % TICK_US, m->m1 = m->m5 = m->m15 = 0;
    }
    atomic_store(&m->last_tick_us, last);
}

void cql_drv_meter_record(cql_drv_meter *m, uint64_t latency_us)
{
    uint64_t now = cql_drv_now_us();
    /* Only a request that crosses a 5 s tick takes the meter's own lock. */
    if (now - atomic_load_explicit(&m->last_tick_us, memory_order_relaxed) >= TICK_US) {
        pthread_mutex_lock(&m->lock);
        meter_tick(m, now);
        pthread_mutex_unlock(&m->lock);
    }
    cql_drv_meter_shard *sh = &m->shards[eng_thread_shard()];
    pthread_mutex_lock(&sh->lock);
    cql_drv_hist_add(sh->hist, latency_us);
    sh->count++;
    sh->uncounted++;
    pthread_mutex_unlock(&sh->lock);
}

void cql_drv_meter_read(cql_drv_meter *m, CassMetrics *out)
{
    uint64_t now = cql_drv_now_us();
    uint64_t hist[CQL_DRV_HIST_BUCKETS] = {0}; /* the shards' histograms merged */
    uint64_t count = 0;
    pthread_mutex_lock(&m->lock);
    meter_tick(m, now);
    for (int i = 0; i < ENG_SHARDS; i++) {
        cql_drv_meter_shard *sh = &m->shards[i];
        pthread_mutex_lock(&sh->lock);
        count += sh->count;
        for (unsigned b = 0; b < CQL_DRV_HIST_BUCKETS; b++)
            hist[b] += sh->hist[b];
        pthread_mutex_unlock(&sh->lock);
    }
    cql_drv_hist_read(hist, &out->requests.min, &out->requests.max, &out->requests.mean,
                      &out->requests.stddev, &out->requests.median,
                      &out->requests.percentile_75th, &out->requests.percentile_95th,
                      &out->requests.percentile_98th, &out->requests.percentile_99th,
                      &out->requests.percentile_999th);
    double secs = (double)(now - m->start_us) / 1e6;
    out->requests.mean_rate = secs > 0 ? (double)count / secs : 0;
    out->requests.one_minute_rate = m->m1;
    out->requests.five_minute_rate = m->m5;
    out->requests.fifteen_minute_rate = m->m15;
    pthread_mutex_unlock(&m->lock);
}

uint64_t cql_drv_meter_count(cql_drv_meter *m)
{
    uint64_t n = 0;
    for (int i = 0; i < ENG_SHARDS; i++) {
        pthread_mutex_lock(&m->shards[i].lock);
        n += m->shards[i].count;
        pthread_mutex_unlock(&m->shards[i].lock);
    }
    return n;
}
