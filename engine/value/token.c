/*
 * Murmur3Partitioner tokens and the serialized form of partition keys.
 *
 * The hash must agree with Cassandra's bit for bit, because tokens are
 * visible through token() and decide the order of a full scan: it is x64
 * 128-bit MurmurHash3 with seed 0, except that tail bytes are sign-extended
 * before being folded in (facts §1.3). A key's token is h1, with the ring
 * minimum Long.MIN_VALUE reserved (facts §1.4). Everything here is a pure
 * function of its arguments and safe to call from any thread.
 */
#include "engine/value/token.h"

#define C1 0x87c37b91114253d5ULL
#define C2 0x4cf5ad432745937fULL

static uint64_t rotl64(uint64_t v, int n)
{
    return (v << n) | (v >> (64 - n));
}

static uint64_t fmix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* Body words are read unsigned, little-endian: the sign quirk is tail-only (facts §1.3). */
static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t mix_k1(uint64_t k1)
{
    return rotl64(k1 * C1, 31) * C2;
}
static uint64_t mix_k2(uint64_t k2)
{
    return rotl64(k2 * C2, 33) * C1;
}

/*
 * Folds tail bytes [from, to) into one word, each sign-extended as Java's
 * (long) of a byte does (facts §1.3): a byte >= 0x80 also flips every higher
 * slot of the word. The shift is done unsigned to stay defined in C.
 */
static uint64_t tail_word(const uint8_t *t, size_t from, size_t to)
{
    uint64_t k = 0;
    for (size_t j = from; j < to; j++)
        k ^= (uint64_t)(int64_t)(int8_t)t[j] << (8 * (j - from));
    return k;
}

void eng_murmur3_x64_128(const uint8_t *key, size_t len, uint64_t seed, uint64_t out[2])
{
    uint64_t h1 = seed, h2 = seed;
    size_t nblocks = len / 16;

    for (size_t i = 0; i < nblocks; i++) {
        const uint8_t *b = key + 16 * i;
        h1 ^= mix_k1(load_le64(b));
        h1 = rotl64(h1, 27) + h2;
        h1 = h1 * 5 + 0x52dce729;
        h2 ^= mix_k2(load_le64(b + 8));
        h2 = rotl64(h2, 31) + h1;
        h2 = h2 * 5 + 0x38495ab5;
    }

    const uint8_t *tail = key + 16 * nblocks;
    size_t r = len & 15;
    if (r > 8)
        h2 ^= mix_k2(tail_word(tail, 8, r));
    if (r > 0)
        h1 ^= mix_k1(tail_word(tail, 0, r < 8 ? r : 8));

    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

int64_t eng_token(const uint8_t *key, size_t len)
{
    /* An empty key is the ring minimum, never hashed (facts §1.4). */
    if (len == 0)
        return ENG_TOKEN_MIN;
    uint64_t h[2];
    eng_murmur3_x64_128(key, len, 0, h);
    int64_t t = (int64_t)h[0];
    /* MIN is reserved for the ring minimum, so a key hashing to it takes MAX (facts §1.4). */
    return t == ENG_TOKEN_MIN ? ENG_TOKEN_MAX : t;
}

void eng_partition_key_compose(eng_buf *out, const eng_val *parts, int n)
{
    if (n == 1) {
        eng_buf_put(out, parts[0].p, (size_t)parts[0].len);
        return;
    }
    /* CompositeType layout (facts §1.5); callers keep components <= 65535 bytes. */
    for (int i = 0; i < n; i++) {
        eng_buf_put_be16(out, (uint16_t)parts[i].len);
        eng_buf_put(out, parts[i].p, (size_t)parts[i].len);
        eng_buf_put_u8(out, 0);
    }
}

int eng_partition_key_split(const uint8_t *key, size_t len, eng_val *parts, int n, eng_err *err)
{
    if (n < 1)
        return eng_errorf(err, ENG_E_CORRUPT, "Invalid partition key component count %d", n);
    if (n == 1) {
        if (len > INT32_MAX)
            return eng_errorf(err, ENG_E_CORRUPT, "Partition key too long (%zu)", len);
        parts[0].p = key;
        parts[0].len = (int32_t)len;
        return 0;
    }
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        if (len - pos < 2)
            return eng_errorf(err, ENG_E_CORRUPT, "Truncated composite partition key");
        size_t clen = eng_be16(key + pos);
        pos += 2;
        if (len - pos < clen + 1)
            return eng_errorf(err, ENG_E_CORRUPT, "Truncated composite partition key");
        parts[i].p = key + pos;
        parts[i].len = (int32_t)clen;
        pos += clen;
        if (key[pos++] != 0)
            return eng_errorf(err, ENG_E_CORRUPT,
                              "Invalid end-of-component byte in composite partition key");
    }
    if (pos != len)
        return eng_errorf(err, ENG_E_CORRUPT, "Trailing bytes after composite partition key");
    return 0;
}
