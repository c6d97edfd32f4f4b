/*
 * Error carrier, allocation, buffers and arenas shared by every module.
 * Nothing here knows about Cassandra; it is the floor the rest stands on.
 * Allocation never aborts: callers get NULL (or an oom flag) and report
 * ENG_E_NOMEM, so the library never takes the application down.
 */
#include "engine/value/common.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eng_err_clear(eng_err *err)
{
    err->code = 0;
    err->msg[0] = 0;
    err->ks[0] = 0;
    err->table[0] = 0;
}

int eng_errorf(eng_err *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    if (err->code)
        return err->code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

int eng_err_protocol_code(int code)
{
    return code >= ENG_E_SERVER ? 0x0000 : code;
}

/* Fault injection: countdown of allocations left before one fails. */
static _Atomic long fail_countdown = -1;

void eng_alloc_fail_after(long n) { atomic_store(&fail_countdown, n); }

static int should_fail(void)
{
    if (atomic_load_explicit(&fail_countdown, memory_order_relaxed) < 0)
        return 0;
    return atomic_fetch_sub(&fail_countdown, 1) == 0;
}

static void *(*alloc_fn)(size_t) = malloc;
static void *(*resize_fn)(void *, size_t) = realloc;
static void (*release_fn)(void *) = free;

void eng_alloc_set(void *(*alloc)(size_t), void *(*resize)(void *, size_t), void (*release)(void *))
{
    alloc_fn = alloc ? alloc : malloc;
    resize_fn = resize ? resize : realloc;
    release_fn = release ? release : free;
}

void *eng_malloc(size_t n) { return should_fail() ? NULL : alloc_fn(n ? n : 1); }

void *eng_calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    size_t bytes = (n ? n : 1) * (size ? size : 1);
    if (size && bytes / (size ? size : 1) != (n ? n : 1))
        return NULL; /* overflow */
    void *p = alloc_fn(bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void *eng_realloc(void *p, size_t n) { return should_fail() ? NULL : resize_fn(p, n ? n : 1); }
void eng_free(void *p) { release_fn(p); }

char *eng_strndup(const char *s, size_t n)
{
    char *d = eng_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

char *eng_strdup(const char *s) { return s ? eng_strndup(s, strlen(s)) : NULL; }

void *eng_memdup(const void *p, size_t n)
{
    void *d = eng_malloc(n);
    if (d && n)
        memcpy(d, p, n);
    return d;
}

/* ---- buffers ---- */

void eng_buf_free(eng_buf *b)
{
    eng_free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void eng_buf_reset(eng_buf *b)
{
    b->len = 0;
    b->oom = 0;
}

int eng_buf_reserve(eng_buf *b, size_t extra)
{
    if (b->oom)
        return ENG_E_NOMEM;
    if (b->len + extra + 1 <= b->cap) /* +1 keeps room for eng_buf_cstr */
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    uint8_t *p = eng_realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return ENG_E_NOMEM;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void eng_buf_put(eng_buf *b, const void *p, size_t n)
{
    if (eng_buf_reserve(b, n))
        return;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

void eng_buf_put_u8(eng_buf *b, uint8_t v) { eng_buf_put(b, &v, 1); }

void eng_buf_put_be16(eng_buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    eng_buf_put(b, x, 2);
}

void eng_buf_put_be32(eng_buf *b, uint32_t v)
{
    uint8_t x[4];
    eng_put_be32(x, v);
    eng_buf_put(b, x, 4);
}

void eng_buf_put_be64(eng_buf *b, uint64_t v)
{
    uint8_t x[8];
    eng_put_be64(x, v);
    eng_buf_put(b, x, 8);
}

void eng_buf_put_str(eng_buf *b, const char *s) { eng_buf_put(b, s, strlen(s)); }

void eng_buf_printf(eng_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        eng_buf_put(b, small, (size_t)n);
        return;
    }
    if (eng_buf_reserve(b, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *eng_buf_cstr(eng_buf *b)
{
    if (eng_buf_reserve(b, 1))
        return NULL;
    b->p[b->len] = 0;
    return (char *)b->p;
}

void eng_buf_put_bytes(eng_buf *b, const uint8_t *p, int32_t len)
{
    eng_buf_put_be32(b, (uint32_t)len);
    if (len > 0)
        eng_buf_put(b, p, (size_t)len);
}

size_t eng_put_uvint(uint8_t *p, uint64_t v)
{
    /* Number of extra bytes = leading 1-bits of the first byte (facts §2.4). */
    int magnitude = 64 - __builtin_clzll(v | 1);
    int extra = (magnitude - 1) / 7;
    if (extra > 8)
        extra = 8;
    int size = extra + 1;
    for (int i = size - 1; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
    if (extra < 8)
        p[0] |= (uint8_t)(~(0xFFu >> extra));
    else
        p[0] = 0xFF;
    return (size_t)size;
}

size_t eng_put_vint(uint8_t *p, int64_t v)
{
    uint64_t zz = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    return eng_put_uvint(p, zz);
}

void eng_buf_put_uvint(eng_buf *b, uint64_t v)
{
    uint8_t x[9];
    eng_buf_put(b, x, eng_put_uvint(x, v));
}

void eng_buf_put_vint(eng_buf *b, int64_t v)
{
    uint8_t x[9];
    eng_buf_put(b, x, eng_put_vint(x, v));
}

/* ---- arenas ---- */

struct eng_arena_block {
    eng_arena_block *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    _Alignas(16) uint8_t data[];
};

size_t eng_arena_size(const eng_arena *a)
{
    size_t n = 0;
    for (const eng_arena_block *b = a->head; b; b = b->next)
        n += sizeof *b + b->size;
    return n;
}

void eng_arena_init(eng_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 4096;
}

void *eng_arena_alloc(eng_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    eng_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > a->block_size ? n : a->block_size;
        b = eng_malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void *eng_arena_memdup(eng_arena *a, const void *p, size_t n)
{
    void *d = eng_arena_alloc(a, n ? n : 1);
    if (d && n)
        memcpy(d, p, n);
    return d;
}

void eng_arena_reset(eng_arena *a)
{
    eng_arena_block *b = a->head;
    if (!b)
        return;
    /* Keep the oldest block (usually the default size) and free the rest. */
    eng_arena_block *keep = b;
    while (keep->next)
        keep = keep->next;
    while (b != keep) {
        eng_arena_block *next = b->next;
        eng_free(b);
        b = next;
    }
    keep->used = 0;
    a->head = keep;
}

void eng_arena_free(eng_arena *a)
{
    eng_arena_block *b = a->head;
    while (b) {
        eng_arena_block *next = b->next;
        eng_free(b);
        b = next;
    }
    a->head = NULL;
}

unsigned eng_thread_shard(void)
{
    static _Atomic unsigned next_thread;
    static _Thread_local unsigned shard_plus_one; /* 0: not yet asked */
    if (__builtin_expect(shard_plus_one == 0, 0))
        shard_plus_one = atomic_fetch_add_explicit(&next_thread, 1, memory_order_relaxed) %
                             ENG_SHARDS + 1;
    return shard_plus_one - 1;
}
