/*
 * Shared plumbing of the engine: the error carrier, allocation (with fault
 * injection in test builds), growable byte buffers, arenas, and the value
 * view that every layer passes around.
 *
 * Values travel in native-protocol serialization everywhere (the body of a
 * protocol [bytes], without its length). An eng_val is a borrowed view of
 * such bytes; its length doubles as the null/unset marker, exactly like the
 * protocol's [value] framing.
 */
#ifndef ENG_COMMON_H
#define ENG_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Error codes: the one list of them. Every fallible engine function returns
 * 0 or one of these, and the same code is left in eng_err.code. The
 * 0x000A..0x2500 values are the CQL native protocol's own error codes
 * (facts §8.1), so the layers above pass them through unchanged; what each
 * one is called by the protocol, the driver (CassError) and cqlsh is in
 * cql/errors.h. Failures the protocol reports as "Server error" (0x0000) get
 * distinct codes of their own above 0xFFFF so that 0 stays "success";
 * eng_err_protocol_code() folds them back to 0x0000.
 */
enum {
    ENG_OK = 0,
    ENG_E_PROTOCOL = 0x000A,         /* a client message broke the protocol (bad paging state) */
    ENG_E_BAD_CREDENTIALS = 0x0100,
    ENG_E_UNAVAILABLE = 0x1000,
    ENG_E_OVERLOADED = 0x1001,
    ENG_E_IS_BOOTSTRAPPING = 0x1002,
    ENG_E_TRUNCATE = 0x1003,
    ENG_E_WRITE_TIMEOUT = 0x1100,
    ENG_E_READ_TIMEOUT = 0x1200,
    ENG_E_READ_FAILURE = 0x1300,
    ENG_E_FUNCTION_FAILURE = 0x1400, /* a function failed while executing (fromJson()) */
    ENG_E_WRITE_FAILURE = 0x1500,
    ENG_E_SYNTAX = 0x2000,
    ENG_E_UNAUTHORIZED = 0x2100,
    ENG_E_INVALID = 0x2200,
    ENG_E_CONFIG = 0x2300,
    ENG_E_EXISTS = 0x2400,
    ENG_E_UNPREPARED = 0x2500,
    ENG_E_SERVER = 0x10000, /* generic server error (protocol 0x0000) */
    ENG_E_NOMEM,            /* allocation failed; nothing was changed */
    ENG_E_CORRUPT,          /* stored bytes failed their checksum or did not decode */
    ENG_E_IO,               /* the operating system or LMDB refused an operation */
    ENG_E_BUSY,             /* resource temporarily unavailable (e.g. too many readers) */
    /* Control codes internal to engine/store, never returned by the engine API: */
    ENG_RESTART = 0x10100,  /* a transaction body must run again on a fresh transaction */
    ENG_MAP_FULL,           /* LMDB said the map is full: grow it and run the body again */
};

/* Error carrier: the first error reported wins (like SQLite's Parse). */
typedef struct eng_err {
    int code;       /* 0 while no error was reported */
    char msg[512];  /* Cassandra's message text, NUL-terminated */
    char ks[256];   /* ALREADY_EXISTS extra: keyspace ("" if none) */
    char table[256];/* ALREADY_EXISTS extra: table ("" for a keyspace) */
} eng_err;

/* Resets the carrier to "no error". */
void eng_err_clear(eng_err *err);

/*
 * Records code and message unless an error is already recorded; returns the
 * code now held by err (so `return eng_errorf(err, ...)` propagates). err may
 * be NULL, in which case only the code is returned.
 */
int eng_errorf(eng_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* eng_errorf with ENG_E_INVALID, the code of most of Cassandra's refusals (InvalidRequest). */
#define eng_invalidf(err, ...) eng_errorf((err), ENG_E_INVALID, __VA_ARGS__)

/* The native-protocol error code for an engine code (0x0000 for ENG_E_SERVER and above). */
int eng_err_protocol_code(int code);

/*
 * Allocation. Never aborts: NULL means out of memory. eng_alloc_set replaces
 * the functions underneath (the driver API's cass_alloc_set_functions); call
 * it before anything is allocated — memory must be freed by the functions
 * that allocated it. NULL arguments restore the C library's.
 */
void eng_alloc_set(void *(*alloc)(size_t), void *(*resize)(void *, size_t), void (*release)(void *));
void *eng_malloc(size_t n);
void *eng_calloc(size_t n, size_t size);
void *eng_realloc(void *p, size_t n);
void eng_free(void *p);
char *eng_strdup(const char *s);
char *eng_strndup(const char *s, size_t n);
void *eng_memdup(const void *p, size_t n);

/*
 * Fault injection, always compiled (one relaxed load per allocation while
 * disarmed): after eng_alloc_fail_after(n), the (n+1)th allocation from now
 * on fails, and every later one succeeds. n < 0 disables it. Used by tests
 * that walk every allocation of a call.
 */
void eng_alloc_fail_after(long n);

/*
 * Growable byte buffer. A failed growth sets `oom` and turns later appends
 * into no-ops, so a sequence of appends needs one check at the end.
 */
typedef struct eng_buf {
    uint8_t *p;   /* bytes, owned by the buffer (NULL while empty) */
    size_t len;   /* bytes in use */
    size_t cap;   /* bytes allocated */
    int oom;      /* 1 after an allocation failure */
} eng_buf;

#define ENG_BUF_INIT {NULL, 0, 0, 0}

void eng_buf_free(eng_buf *b);
void eng_buf_reset(eng_buf *b);                  /* len = 0, oom = 0; keeps memory */
int eng_buf_reserve(eng_buf *b, size_t extra);   /* 0 or ENG_E_NOMEM */
void eng_buf_put(eng_buf *b, const void *p, size_t n);
void eng_buf_put_u8(eng_buf *b, uint8_t v);
void eng_buf_put_be16(eng_buf *b, uint16_t v);
void eng_buf_put_be32(eng_buf *b, uint32_t v);
void eng_buf_put_be64(eng_buf *b, uint64_t v);
void eng_buf_put_str(eng_buf *b, const char *s); /* no terminator */
void eng_buf_printf(eng_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The bytes of b from offset off (off <= b->len). A buffer nothing was written to has no
 * bytes at all (p NULL); its views are empty, not NULL + off, which C leaves undefined: a
 * view of empty renderings or empty values into a scratch buffer goes through here.
 */
static inline const uint8_t *eng_buf_at(const eng_buf *b, size_t off)
{
    return b->p ? b->p + off : (const uint8_t *)"";
}
/* Appends a NUL without counting it in len; returns (char *)b->p or NULL on oom. */
char *eng_buf_cstr(eng_buf *b);
/* Protocol [bytes]: int32 length then the bytes; len < 0 writes just the length. */
void eng_buf_put_bytes(eng_buf *b, const uint8_t *p, int32_t len);
/* Unsigned / signed (zig-zag) vint as in native protocol v5 §1 (facts §2.4). */
void eng_buf_put_uvint(eng_buf *b, uint64_t v);
void eng_buf_put_vint(eng_buf *b, int64_t v);
/* The same vints written in place, for encoders with a fixed buffer: p has room for
   ENG_VINT_MAX bytes; returns the bytes written. */
#define ENG_VINT_MAX 9
size_t eng_put_uvint(uint8_t *p, uint64_t v);
size_t eng_put_vint(uint8_t *p, int64_t v);

/*
 * Readers for vints; return bytes consumed, or 0 if the input is truncated.
 * Inline: they sit on the hot path of every stored row decoded.
 */
static inline size_t eng_get_uvint(const uint8_t *p, size_t len, uint64_t *out)
{
    if (len < 1)
        return 0;
    uint8_t first = p[0];
    if (first < 0x80) {
        *out = first;
        return 1;
    }
    /* The count of leading 1-bits of the first byte is the count of extra bytes. */
    int extra = __builtin_clz((unsigned)(uint8_t)~first << 24 | 0x800000u);
    if ((size_t)extra + 1 > len)
        return 0;
    uint64_t v = extra < 8 ? (uint64_t)(first & (0xFFu >> extra)) : 0;
    for (int i = 1; i <= extra; i++)
        v = v << 8 | p[i];
    *out = v;
    return (size_t)extra + 1;
}

static inline size_t eng_get_vint(const uint8_t *p, size_t len, int64_t *out)
{
    uint64_t z;
    size_t n = eng_get_uvint(p, len, &z);
    if (n)
        *out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    return n;
}

static inline uint16_t eng_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
/* Big-endian loads and stores: one unaligned access and a byte swap on little-endian hosts
   (the compiler does not always see through the shifts), the shifts elsewhere. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint32_t eng_be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}
static inline uint64_t eng_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
static inline void eng_put_be32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}
static inline void eng_put_be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}
#else
static inline uint32_t eng_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t eng_be64(const uint8_t *p)
{
    return (uint64_t)eng_be32(p) << 32 | eng_be32(p + 4);
}
static inline void eng_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void eng_put_be64(uint8_t *p, uint64_t v)
{
    eng_put_be32(p, (uint32_t)(v >> 32));
    eng_put_be32(p + 4, (uint32_t)v);
}
#endif

/*
 * Arena: many small allocations freed together (a decoded row, a merge,
 * a result page). Blocks are chained; eng_arena_reset keeps the first one.
 */
typedef struct eng_arena_block eng_arena_block;
typedef struct eng_arena {
    eng_arena_block *head; /* current block, newest first */
    size_t block_size;     /* default size of new blocks (bytes) */
} eng_arena;

void eng_arena_init(eng_arena *a, size_t block_size);
void *eng_arena_alloc(eng_arena *a, size_t n);  /* 16-byte aligned; NULL on OOM */
void *eng_arena_memdup(eng_arena *a, const void *p, size_t n);
void eng_arena_reset(eng_arena *a);             /* frees all but keeps one block */
void eng_arena_free(eng_arena *a);
/* Bytes the arena holds from the allocator (its blocks, headers included). */
size_t eng_arena_size(const eng_arena *a);

/*
 * A value in native-protocol serialization, borrowed. len >= 0: that many
 * bytes at p (0 = the empty value, distinct from null). ENG_NULL / ENG_UNSET
 * mirror the protocol's -1 / -2 [value] lengths.
 */
#define ENG_NULL (-1)
#define ENG_UNSET (-2)
typedef struct eng_val {
    const uint8_t *p;
    int32_t len;
} eng_val;

/* A write timestamp (µs) that is not there: none given (USING TIMESTAMP absent), no row marker,
   no deletion. */
#define ENG_TS_NONE INT64_MIN

#define ENG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define ENG_MAX(a, b) ((a) > (b) ? (a) : (b))
#define ENG_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Per-thread shards. A structure every query touches (a pool, a lock, a
 * counter) keeps ENG_SHARDS copies, each on cache lines of its own, and a
 * thread uses the copy eng_thread_shard() names: threads running at once
 * then neither wait on one mutex nor pass one cache line back and forth.
 * Numbers are handed out in the order threads first ask, so up to
 * ENG_SHARDS threads never share a shard. A thread's shard never changes,
 * so what a thread locks in its shard it unlocks there. Thread-safe.
 */
#define ENG_SHARDS 8
#define ENG_CACHE_LINE 64
unsigned eng_thread_shard(void);

#endif
