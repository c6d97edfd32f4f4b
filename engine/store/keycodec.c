/*
 * Order-preserving key codec (see keycodec.h for the contract).
 *
 * Every component starts with a tag byte, so that the empty value sorts
 * first in every type and, inside tuples and UDTs, a null sorts before any
 * value (facts §3):
 *
 *     0x00  end of a collection, tuple or UDT (sorts before any element)
 *     0x01  null tuple/UDT component
 *     0x02  empty value (0 bytes)
 *     0x03  a value, followed by its type's payload
 *
 * Payloads, each prefix-free and memcmp-ordered as Cassandra orders the type:
 *  - tinyint..bigint, timestamp: big-endian with the sign bit flipped;
 *    date and time: their bytes (Cassandra compares them as raw bytes).
 *  - boolean: 0 or 1 (every non-zero byte is true).
 *  - float/double: IEEE bits, all NaNs made canonical, then negatives
 *    complemented and positives given the top bit: Java's compareTo order.
 *  - text, ascii, blob, inet: the bytes with 0x00 escaped as 00 FF and a
 *    00 00 terminator, so a proper prefix sorts first.
 *  - timeuuid: the 60-bit timestamp (reordered MSB, sign bit flipped), then
 *    the low 8 bytes xor 0x80 (compared as signed bytes, facts §3.1).
 *  - uuid: the version nibble, then the reordered MSB for v1 or the raw MSB
 *    otherwise, then the raw LSB (facts §3.2).
 *  - varint: class (negative, zero, positive), magnitude length as a
 *    minimal uvint, magnitude bytes; negatives complement length and bytes.
 *  - decimal: class, then for |v| = 0.d1d2..dn x 10^E with d1 and dn
 *    non-zero: E as a sign-flipped int64 and the digits two per byte
 *    (1 + 10*a + b, a trailing odd digit padded with 0) ending in 0x00;
 *    negatives complement everything after the class. Scale is gone, so
 *    1.0 and 1.00 encode alike (BigDecimal.compareTo).
 *  - list/set: elements, then 0x00; map: key, value, key, ..., then 0x00.
 *  - tuple/UDT: components (trailing nulls dropped), then 0x00.
 * A DESC component is the complement of all its bytes.
 *
 * Decoding never reads outside [*pp, end) and reports anything that is not
 * exactly an encoding produced here as ENG_E_CORRUPT.
 */
#include "engine/store/keycodec.h"
#include "engine/value/token.h"

#include <string.h>

enum { TAG_END = 0x00, TAG_NULL = 0x01, TAG_EMPTY = 0x02, TAG_VALUE = 0x03 };
enum { NUM_NEG = 0x01, NUM_ZERO = 0x02, NUM_POS = 0x03 };

#define SIGN64 0x8000000000000000ULL
#define TIMEUUID_LSB_FLIP 0x8080808080808080ULL
#define FLOAT_NAN 0x7fc00000u            /* Float.floatToIntBits of every NaN */
#define DOUBLE_NAN 0x7ff8000000000000ULL /* Double.doubleToLongBits of every NaN */
/* Zeros a decoded decimal may need to keep its scale within int32; more is garbage. */
#define MAX_PAD_DIGITS 200000
#define MAX_EXPONENT (INT64_C(1) << 40)

/* ------------------------------------------------------------------------ */
/* Buffers and the reader                                                    */
/* ------------------------------------------------------------------------ */

/* n more bytes at the end of b, or NULL once b is out of memory. */
static uint8_t *buf_grow(eng_buf *b, size_t n)
{
    if (eng_buf_reserve(b, n)) {
        b->oom = 1;
        return NULL;
    }
    uint8_t *d = b->p + b->len;
    b->len += n;
    return d;
}

static void complement_from(eng_buf *b, size_t pos)
{
    if (b->oom)
        return;
    for (size_t i = pos; i < b->len; i++)
        b->p[i] = (uint8_t)~b->p[i];
}

static size_t put_placeholder32(eng_buf *b)
{
    size_t pos = b->len;
    eng_buf_put_be32(b, 0);
    return pos;
}

static void patch_be32(eng_buf *b, size_t pos, uint32_t v)
{
    if (!b->oom && pos + 4 <= b->len)
        eng_put_be32(b->p + pos, v);
}

/* Reads encoded bytes; x is 0xFF for a DESC component, undoing its complement. */
typedef struct rd {
    const uint8_t *p, *end;
    uint8_t x;
} rd;

static int rd_u8(rd *r, uint8_t *b)
{
    if (r->p >= r->end)
        return -1;
    *b = *r->p++ ^ r->x;
    return 0;
}

static int rd_peek(const rd *r, uint8_t *b)
{
    if (r->p >= r->end)
        return -1;
    *b = *r->p ^ r->x;
    return 0;
}

/* n bytes into dst (NULL: skip them). */
static int rd_n(rd *r, uint8_t *dst, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return -1;
    if (dst)
        for (size_t i = 0; i < n; i++)
            dst[i] = r->p[i] ^ r->x;
    r->p += n;
    return 0;
}

static int rd_be64(rd *r, uint64_t *v)
{
    if ((size_t)(r->end - r->p) < 8)
        return -1;
    /* the mask is 0x00 or 0xFF (descending): one XOR of the whole word */
    *v = eng_be64(r->p) ^ (r->x ? UINT64_MAX : 0);
    r->p += 8;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Errors and key-type checks                                                */
/* ------------------------------------------------------------------------ */

static const char *kind_label(int kind)
{
    switch (kind) {
    case ENG_LIST:
        return "list";
    case ENG_SET:
        return "set";
    case ENG_MAP:
        return "map";
    case ENG_TUPLE:
        return "tuple";
    case ENG_UDT:
        return "user type";
    case ENG_CUSTOM:
        return "custom";
    default: {
        const char *n = eng_kind_name(kind);
        return n ? n : "unknown";
    }
    }
}

static int bad_value(eng_err *err, const eng_type *t)
{
    return eng_errorf(err, ENG_E_INVALID, "Invalid %s value for a key", kind_label(t->kind));
}

static int corrupt(eng_err *err, const eng_type *t)
{
    return eng_errorf(err, ENG_E_CORRUPT, "Corrupt %s component in an encoded key",
                      kind_label(t->kind));
}

static int is_keyable_scalar(int kind)
{
    switch (kind) {
    case ENG_ASCII:
    case ENG_BIGINT:
    case ENG_BLOB:
    case ENG_BOOLEAN:
    case ENG_DECIMAL:
    case ENG_DOUBLE:
    case ENG_FLOAT:
    case ENG_INT:
    case ENG_TIMESTAMP:
    case ENG_UUID:
    case ENG_TEXT:
    case ENG_VARINT:
    case ENG_TIMEUUID:
    case ENG_INET:
    case ENG_DATE:
    case ENG_TIME:
    case ENG_SMALLINT:
    case ENG_TINYINT:
        return 1;
    default:
        return 0;
    }
}

/*
 * Counters and durations have no key order in Cassandra (facts §3), and a
 * multi-cell column has no single value; custom types have no comparator
 * here. Children of a frozen type are frozen whatever their flag says.
 */
static int check_key_type(const eng_type *t, int top, eng_err *err)
{
    if (!t)
        return eng_errorf(err, ENG_E_INVALID, "Missing type for a key component");
    if (is_keyable_scalar(t->kind))
        return 0;
    switch (t->kind) {
    case ENG_COUNTER:
    case ENG_DURATION:
    case ENG_CUSTOM:
        return eng_errorf(err, ENG_E_INVALID, "%s type is not supported in a key",
                          kind_label(t->kind));
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
    case ENG_TUPLE:
    case ENG_UDT:
        break;
    default:
        return eng_errorf(err, ENG_E_INVALID, "Unknown type 0x%04x in a key", t->kind);
    }
    if (top && t->kind != ENG_TUPLE && !t->frozen)
        return eng_errorf(err, ENG_E_INVALID, "non-frozen %s is not supported in a key",
                          kind_label(t->kind));
    int want = t->kind == ENG_MAP ? 2 : t->kind == ENG_TUPLE || t->kind == ENG_UDT ? -1 : 1;
    if ((want >= 0 && t->n_sub != want) || (t->n_sub && !t->sub))
        return eng_errorf(err, ENG_E_INVALID, "Malformed %s type in a key", kind_label(t->kind));
    /* Below the top only the kinds matter, and each descriptor knows which it holds: the walk is
       only to name one a key refuses. Walking every key would visit a user type once per use,
       twice as often per level for a type that uses another twice. */
    if (!eng_type_contains_kind(t, ENG_COUNTER) && !eng_type_contains_kind(t, ENG_DURATION) &&
        !eng_type_contains_kind(t, ENG_CUSTOM))
        return 0;
    for (int i = 0; i < t->n_sub; i++) {
        int rc = check_key_type(t->sub[i], 0, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Fixed-width scalars                                                       */
/* ------------------------------------------------------------------------ */

static int fixed_width(int kind)
{
    switch (kind) {
    case ENG_TINYINT:
        return 1;
    case ENG_SMALLINT:
        return 2;
    case ENG_INT:
    case ENG_DATE:
    case ENG_FLOAT:
        return 4;
    case ENG_BIGINT:
    case ENG_TIMESTAMP:
    case ENG_TIME:
    case ENG_DOUBLE:
        return 8;
    case ENG_UUID:
    case ENG_TIMEUUID:
        return 16;
    default:
        return 0;
    }
}

/* Ordered bits of a float: Java's Float.compareTo as an unsigned order. */
static uint32_t float_key(uint32_t bits)
{
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        bits = FLOAT_NAN;
    return (bits & 0x80000000u) ? ~bits : bits ^ 0x80000000u;
}

static uint32_t float_unkey(uint32_t k)
{
    return (k & 0x80000000u) ? k ^ 0x80000000u : ~k;
}

static uint64_t double_key(uint64_t bits)
{
    if ((bits & ~SIGN64) > 0x7ff0000000000000ULL)
        bits = DOUBLE_NAN;
    return (bits & SIGN64) ? ~bits : bits ^ SIGN64;
}

static uint64_t double_unkey(uint64_t k)
{
    return (k & SIGN64) ? k ^ SIGN64 : ~k;
}

/* time_hi_and_version | time_mid | time_low: the v1 timestamp first (facts §3.1). */
static uint64_t uuid_reorder(uint64_t msb)
{
    return msb << 48 | (msb << 16 & 0xffff00000000ULL) | msb >> 32;
}

static uint64_t uuid_unreorder(uint64_t r)
{
    return r << 32 | (r >> 16 & 0xffff0000ULL) | r >> 48;
}

static void put_uuid(eng_buf *out, int kind, const uint8_t *p)
{
    uint64_t msb = eng_be64(p), lsb = eng_be64(p + 8);
    if (kind == ENG_TIMEUUID) {
        /* Signed timestamp compare, then the LSB as signed bytes. */
        eng_buf_put_be64(out, uuid_reorder(msb) ^ SIGN64);
        eng_buf_put_be64(out, lsb ^ TIMEUUID_LSB_FLIP);
        return;
    }
    /* Version first; v1 by timestamp, others by unsigned MSB; then unsigned LSB. */
    int version = (int)(msb >> 12 & 0xf);
    eng_buf_put_u8(out, (uint8_t)version);
    eng_buf_put_be64(out, version == 1 ? uuid_reorder(msb) : msb);
    eng_buf_put_be64(out, lsb);
}

static void put_fixed(eng_buf *out, int kind, const uint8_t *p, size_t w)
{
    switch (kind) {
    case ENG_FLOAT:
        eng_buf_put_be32(out, float_key(eng_be32(p)));
        return;
    case ENG_DOUBLE:
        eng_buf_put_be64(out, double_key(eng_be64(p)));
        return;
    case ENG_UUID:
    case ENG_TIMEUUID:
        put_uuid(out, kind, p);
        return;
    default:
        break;
    }
    uint8_t *d = buf_grow(out, w);
    if (!d)
        return;
    memcpy(d, p, w);
    /* Signed integers: flipping the sign bit makes byte order numeric order. */
    if (kind != ENG_DATE && kind != ENG_TIME)
        d[0] ^= 0x80;
}

static int get_uuid(rd *r, int kind, uint8_t *o)
{
    uint64_t msb, lsb;
    if (kind == ENG_TIMEUUID) {
        if (rd_be64(r, &msb) || rd_be64(r, &lsb))
            return -1;
        msb = uuid_unreorder(msb ^ SIGN64);
        lsb ^= TIMEUUID_LSB_FLIP;
    } else {
        uint8_t version;
        if (rd_u8(r, &version) || version > 15 || rd_be64(r, &msb) || rd_be64(r, &lsb))
            return -1;
        if (version == 1)
            msb = uuid_unreorder(msb);
        if ((msb >> 12 & 0xf) != version)
            return -1;
    }
    eng_put_be64(o, msb);
    eng_put_be64(o + 8, lsb);
    return 0;
}

/* A fixed-width value (w bytes) into o. */
static int get_fixed_to(rd *r, int kind, size_t w, uint8_t *o)
{
    if (kind == ENG_UUID || kind == ENG_TIMEUUID) {
        if (get_uuid(r, kind, o))
            return -1;
    } else {
        if (rd_n(r, o, w))
            return -1;
        if (kind == ENG_FLOAT) {
            uint32_t bits = float_unkey(eng_be32(o));
            if ((bits & 0x7fffffffu) > 0x7f800000u && bits != FLOAT_NAN)
                return -1;
            eng_put_be32(o, bits);
        } else if (kind == ENG_DOUBLE) {
            uint64_t bits = double_unkey(eng_be64(o));
            if ((bits & ~SIGN64) > 0x7ff0000000000000ULL && bits != DOUBLE_NAN)
                return -1;
            eng_put_be64(o, bits);
        } else if (kind != ENG_DATE && kind != ENG_TIME) {
            o[0] ^= 0x80;
        }
    }
    return 0;
}

static int get_fixed(rd *r, int kind, size_t w, eng_buf *out)
{
    uint8_t o[16];
    if (get_fixed_to(r, kind, w, o))
        return -1;
    if (out)
        eng_buf_put(out, o, w);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Byte strings                                                              */
/* ------------------------------------------------------------------------ */

static void put_escaped(eng_buf *out, const uint8_t *p, size_t len)
{
    static const uint8_t esc[2] = {0x00, 0xFF}, term[2] = {0x00, 0x00};
    while (len > 0) {
        const uint8_t *z = memchr(p, 0, len);
        size_t run = z ? (size_t)(z - p) : len;
        eng_buf_put(out, p, run);
        if (!z)
            break;
        eng_buf_put(out, esc, 2);
        p += run + 1;
        len -= run + 1;
    }
    eng_buf_put(out, term, 2);
}

/* Unescapes one byte string; *n gets its length. */
static int get_escaped(rd *r, eng_buf *out, size_t *n)
{
    *n = 0;
    for (;;) {
        /* The escape byte 0x00 appears as r->x in the stored bytes. */
        const uint8_t *z = memchr(r->p, r->x, (size_t)(r->end - r->p));
        if (!z)
            return -1;
        size_t run = (size_t)(z - r->p);
        if (out) {
            uint8_t *d = buf_grow(out, run);
            if (d)
                for (size_t i = 0; i < run; i++)
                    d[i] = r->p[i] ^ r->x;
        }
        *n += run;
        r->p = z + 1;
        uint8_t b;
        if (rd_u8(r, &b))
            return -1;
        if (b == 0x00)
            return 0;
        if (b != 0xFF)
            return -1;
        if (out)
            eng_buf_put_u8(out, 0);
        (*n)++;
    }
}

/* ------------------------------------------------------------------------ */
/* Integers of any length (varint, decimal's unscaled value)                 */
/* ------------------------------------------------------------------------ */

static size_t uvint_size(uint64_t v)
{
    int bits = 64 - __builtin_clzll(v | 1);
    int extra = (bits - 1) / 7;
    return (size_t)(extra > 8 ? 9 : extra + 1);
}

/* Drops redundant sign-extension bytes: 0x0001 is 0x01 (facts §3, varint). */
static void twos_minimize(const uint8_t **p, size_t *len)
{
    while (*len > 1 &&
           (((*p)[0] == 0x00 && !((*p)[1] & 0x80)) || ((*p)[0] == 0xFF && ((*p)[1] & 0x80)))) {
        (*p)++;
        (*len)--;
    }
}

/* Two's complement negation of a big-endian byte string, in place. */
static void negate_bytes(uint8_t *b, size_t n)
{
    unsigned carry = 1;
    for (size_t i = n; i-- > 0;) {
        unsigned v = (uint8_t)~b[i] + carry;
        b[i] = (uint8_t)v;
        carry = v >> 8;
    }
}

/*
 * Appends the magnitude of a minimal two's-complement integer; returns its
 * length. A negative n-byte value has an (n-1)-byte magnitude exactly when
 * it starts with 0xFF and is not -256^k (the rest is not all zero).
 */
static size_t put_magnitude(eng_buf *out, const uint8_t *p, size_t len, int neg)
{
    size_t skip = 0;
    if (!neg) {
        skip = p[0] == 0x00;
    } else if (p[0] == 0xFF) {
        for (size_t i = 1; i < len && !skip; i++)
            skip = p[i] != 0;
    }
    uint8_t *d = buf_grow(out, len);
    if (!d)
        return len - skip;
    memcpy(d, p, len);
    if (neg)
        negate_bytes(d, len);
    if (skip) {
        memmove(d, d + 1, len - 1);
        out->len--;
    }
    return len - skip;
}

static int is_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return 0;
    return 1;
}

static void put_varint(eng_buf *out, const uint8_t *p, size_t len)
{
    twos_minimize(&p, &len);
    if (is_zero(p, len)) {
        eng_buf_put_u8(out, NUM_ZERO);
        return;
    }
    int neg = (p[0] & 0x80) != 0;
    eng_buf_put_u8(out, neg ? NUM_NEG : NUM_POS);
    size_t pos = out->len;
    /* The magnitude's length is at most len; write it first, fix it below if one shorter. */
    size_t mlen = len - (neg ? (p[0] == 0xFF && !is_zero(p + 1, len - 1)) : p[0] == 0x00);
    eng_buf_put_uvint(out, mlen);
    put_magnitude(out, p, len, neg);
    /* A longer negative number is smaller: complement its length and magnitude. */
    if (neg)
        complement_from(out, pos);
}

/*
 * Turns "00 magnitude" at out[pos..] into the minimal two's complement of
 * +/- magnitude (the magnitude's first byte is non-zero, so at most one
 * leading byte is redundant).
 */
static void finish_twos(eng_buf *out, size_t pos, int neg)
{
    if (out->oom)
        return;
    uint8_t *d = out->p + pos;
    size_t n = out->len - pos;
    if (neg)
        negate_bytes(d, n);
    if (n >= 2 && ((d[0] == 0x00 && !(d[1] & 0x80)) || (d[0] == 0xFF && (d[1] & 0x80)))) {
        memmove(d, d + 1, n - 1);
        out->len--;
    }
}

static int get_uvint(rd *r, uint64_t *v)
{
    uint8_t b[9];
    if (rd_u8(r, &b[0]))
        return -1;
    size_t extra = 0;
    while (extra < 8 && (b[0] & (0x80u >> extra)))
        extra++;
    if (rd_n(r, b + 1, extra))
        return -1;
    if (eng_get_uvint(b, extra + 1, v) != extra + 1 || uvint_size(*v) != extra + 1)
        return -1;
    return 0;
}

static int get_varint(rd *r, eng_buf *out)
{
    uint8_t cls;
    if (rd_u8(r, &cls))
        return -1;
    if (cls == NUM_ZERO) {
        if (out)
            eng_buf_put_u8(out, 0);
        return 0;
    }
    if (cls != NUM_NEG && cls != NUM_POS)
        return -1;
    uint8_t saved = r->x;
    if (cls == NUM_NEG)
        r->x ^= 0xFF;
    uint64_t mlen = 0; /* set by get_uvint; -O1 with -fsanitize=thread cannot see it */
    uint8_t first;
    int rc = get_uvint(r, &mlen);
    if (!rc && (mlen == 0 || mlen > (uint64_t)(r->end - r->p) || rd_peek(r, &first) || !first))
        rc = -1;
    if (!rc && out) {
        size_t pos = out->len;
        eng_buf_put_u8(out, 0);
        uint8_t *d = buf_grow(out, (size_t)mlen);
        rc = rd_n(r, d, (size_t)mlen);
        finish_twos(out, pos, cls == NUM_NEG);
    } else if (!rc) {
        rc = rd_n(r, NULL, (size_t)mlen);
    }
    r->x = saved;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Decimal                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Decimal digits of a magnitude (big-endian bytes, first one non-zero), most
 * significant first, as values 0..9. Repeated division by 10^9 over 32-bit
 * limbs: quadratic, which is fine for key-sized numbers.
 */
static int magnitude_digits(const uint8_t *m, size_t mlen, uint8_t **digits, size_t *nd)
{
    size_t nl = (mlen + 3) / 4;
    uint32_t *limb = eng_malloc(nl * sizeof *limb);
    size_t cap = mlen * 3 + 9; /* 256^k < 10^(2.41k + 1) */
    uint8_t *dg = eng_malloc(cap);
    if (!limb || !dg) {
        eng_free(limb);
        eng_free(dg);
        return ENG_E_NOMEM;
    }
    /* limb[0] most significant. */
    size_t lead = nl * 4 - mlen;
    for (size_t i = 0; i < nl; i++) {
        uint32_t v = 0;
        for (size_t b = 0; b < 4; b++) {
            size_t k = i * 4 + b;
            v = v << 8 | (k < lead ? 0 : m[k - lead]);
        }
        limb[i] = v;
    }
    size_t n = 0, top = 0;
    while (top < nl) {
        uint64_t rem = 0;
        for (size_t i = top; i < nl; i++) {
            uint64_t cur = rem << 32 | limb[i];
            limb[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (top < nl && limb[top] == 0)
            top++;
        /* Nine digits, least significant first; leading zeros trimmed below. */
        for (int k = 0; k < 9; k++) {
            dg[n++] = (uint8_t)(rem % 10);
            rem /= 10;
        }
    }
    while (n > 1 && dg[n - 1] == 0)
        n--;
    for (size_t i = 0; i < n / 2; i++) {
        uint8_t t = dg[i];
        dg[i] = dg[n - 1 - i];
        dg[n - 1 - i] = t;
    }
    eng_free(limb);
    *digits = dg;
    *nd = n;
    return 0;
}

static int put_decimal(eng_buf *out, const uint8_t *p, size_t len)
{
    int32_t scale = (int32_t)eng_be32(p);
    const uint8_t *u = p + 4;
    size_t ulen = len - 4;
    twos_minimize(&u, &ulen);
    if (ulen == 0 || is_zero(u, ulen)) {
        eng_buf_put_u8(out, NUM_ZERO); /* 0 at any scale is one value */
        return 0;
    }
    int neg = (u[0] & 0x80) != 0;
    eng_buf mag = ENG_BUF_INIT;
    size_t mlen = put_magnitude(&mag, u, ulen, neg);
    if (mag.oom) {
        eng_buf_free(&mag);
        return ENG_E_NOMEM;
    }
    uint8_t *dg;
    size_t nd;
    int rc = magnitude_digits(mag.p, mlen, &dg, &nd);
    eng_buf_free(&mag);
    if (rc)
        return rc;
    size_t tz = 0;
    while (tz < nd && dg[nd - 1 - tz] == 0)
        tz++;
    size_t n = nd - tz;
    /* value = 0.d1..dn x 10^E */
    int64_t e = (int64_t)nd - (int64_t)scale;
    eng_buf_put_u8(out, neg ? NUM_NEG : NUM_POS);
    size_t pos = out->len;
    eng_buf_put_be64(out, (uint64_t)e ^ SIGN64);
    uint8_t *d = buf_grow(out, (n + 1) / 2 + 1);
    if (d) {
        for (size_t i = 0; i < n; i += 2)
            *d++ = (uint8_t)(1 + 10 * dg[i] + (i + 1 < n ? dg[i + 1] : 0));
        *d = 0x00;
    }
    eng_free(dg);
    if (neg)
        complement_from(out, pos);
    return 0;
}

/* Appends the minimal two's complement of +/- the decimal digits. */
static int digits_to_twos(eng_buf *out, const uint8_t *dg, size_t n, int neg)
{
    size_t nl = n / 9 + 2; /* 10^9 < 2^32: one limb per nine digits, plus carry room */
    uint32_t *limb = eng_calloc(nl, sizeof *limb); /* little-endian limbs */
    if (!limb)
        return ENG_E_NOMEM;
    size_t used = 0;
    for (size_t i = 0; i < n;) {
        size_t chunk = (n - i) % 9 ? (n - i) % 9 : 9;
        uint32_t mul = 1, add = 0;
        for (size_t k = 0; k < chunk; k++, i++) {
            mul *= 10;
            add = add * 10 + dg[i];
        }
        uint64_t carry = add;
        for (size_t k = 0; k < used; k++) {
            uint64_t v = (uint64_t)limb[k] * mul + carry;
            limb[k] = (uint32_t)v;
            carry = v >> 32;
        }
        if (carry)
            limb[used++] = (uint32_t)carry;
    }
    size_t pos = out->len;
    eng_buf_put_u8(out, 0);
    int started = 0;
    for (size_t k = used; k-- > 0;) {
        for (int s = 24; s >= 0; s -= 8) {
            uint8_t b = (uint8_t)(limb[k] >> s);
            if (b || started) {
                eng_buf_put_u8(out, b);
                started = 1;
            }
        }
    }
    eng_free(limb);
    finish_twos(out, pos, neg);
    return 0;
}

/*
 * Reads the digit pairs up to their terminator, keeping the digits in dg
 * when dg is not NULL. A final pair ending in 0 is padding (the digits never
 * end in 0); the first and last digits must be non-zero (normalized form).
 */
static int get_digits(rd *r, eng_buf *dg, size_t *n)
{
    uint8_t b, next, first = 0, last = 0;
    *n = 0;
    for (;;) {
        if (rd_u8(r, &b))
            return -1;
        if (b == 0x00)
            break;
        if (b > 100 || rd_peek(r, &next))
            return -1;
        uint8_t pair[2] = {(uint8_t)((b - 1) / 10), (uint8_t)((b - 1) % 10)};
        size_t k = (pair[1] == 0 && next == 0x00) ? 1 : 2;
        if (*n == 0)
            first = pair[0];
        last = pair[k - 1];
        if (dg)
            eng_buf_put(dg, pair, k);
        *n += k;
    }
    return (*n == 0 || first == 0 || last == 0) ? -1 : 0;
}

static int get_decimal_body(rd *r, int neg, eng_buf *out)
{
    uint64_t ebits;
    if (rd_be64(r, &ebits))
        return -1;
    int64_t e = (int64_t)(ebits ^ SIGN64);
    eng_buf dg = ENG_BUF_INIT;
    size_t n;
    if (get_digits(r, out ? &dg : NULL, &n)) {
        eng_buf_free(&dg);
        return -1;
    }
    /* E = digits - scale of an int32 scale and a key-sized number: far inside +/-2^40. */
    if (e < -MAX_EXPONENT || e > MAX_EXPONENT) {
        eng_buf_free(&dg);
        return -1;
    }
    /* scale = n - E, kept >= INT32_MIN by adding trailing zeros to the unscaled value. */
    int64_t scale = (int64_t)n - e;
    int64_t pad = scale < INT32_MIN ? (int64_t)INT32_MIN - scale : 0;
    /* A whole number reads back without a negative scale (10, not 1E+1), the way it was most
       likely written; only huge exponents keep theirs. */
    if (scale < 0 && scale >= -38)
        pad = -scale;
    int rc = (scale - pad > INT32_MAX || pad > MAX_PAD_DIGITS) ? -1 : 0;
    if (!rc && out) {
        for (int64_t i = 0; i < pad; i++)
            eng_buf_put_u8(&dg, 0);
        eng_buf_put_be32(out, (uint32_t)(int32_t)(scale + pad));
        if (dg.oom)
            out->oom = 1;
        else if (digits_to_twos(out, dg.p, dg.len, neg))
            out->oom = 1;
    }
    eng_buf_free(&dg);
    return rc;
}

static int get_decimal(rd *r, eng_buf *out)
{
    uint8_t cls;
    if (rd_u8(r, &cls))
        return -1;
    if (cls == NUM_ZERO) {
        if (out) {
            eng_buf_put_be32(out, 0);
            eng_buf_put_u8(out, 0);
        }
        return 0;
    }
    if (cls != NUM_NEG && cls != NUM_POS)
        return -1;
    uint8_t saved = r->x;
    if (cls == NUM_NEG)
        r->x ^= 0xFF;
    int rc = get_decimal_body(r, cls == NUM_NEG, out);
    r->x = saved;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Values, collections, tuples                                               */
/* ------------------------------------------------------------------------ */

static int put_value(eng_buf *out, const eng_type *t, const uint8_t *p, size_t len, eng_err *err);

static int put_elements(eng_buf *out, const eng_type *t, const uint8_t *p, size_t len, eng_err *err)
{
    eng_items it;
    int32_t n = eng_items_begin(&it, p, len);
    if (n < 0)
        return bad_value(err, t);
    int per = t->kind == ENG_MAP ? 2 : 1;
    eng_val v;
    for (int64_t i = 0; i < (int64_t)n * per; i++) {
        /* Null elements are not values of a collection (facts §2.3). */
        if (eng_items_next(&it, &v) != 1 || v.len < 0)
            return bad_value(err, t);
        int rc = put_value(out, t->sub[i % per], v.p, (size_t)v.len, err);
        if (rc)
            return rc;
    }
    if (it.p != it.end)
        return bad_value(err, t);
    eng_buf_put_u8(out, TAG_END);
    return 0;
}

/*
 * Trailing null components are dropped: Cassandra holds (1) and (1, null)
 * equal (facts §3, tuple), so they must be one encoding.
 */
static int put_components(eng_buf *out, const eng_type *t, const uint8_t *p, size_t len,
                          eng_err *err)
{
    eng_items it;
    eng_val v;
    int n = 0, last = 0, rc;
    eng_items_begin_raw(&it, p, len);
    while ((rc = eng_items_next(&it, &v)) == 1) {
        if (++n > t->n_sub)
            return bad_value(err, t);
        if (v.len >= 0)
            last = n;
    }
    if (rc < 0)
        return bad_value(err, t);
    eng_items_begin_raw(&it, p, len);
    for (int i = 0; i < last; i++) {
        eng_items_next(&it, &v);
        if (v.len < 0) {
            eng_buf_put_u8(out, TAG_NULL);
            continue;
        }
        rc = put_value(out, t->sub[i], v.p, (size_t)v.len, err);
        if (rc)
            return rc;
    }
    eng_buf_put_u8(out, TAG_END);
    return 0;
}

static int put_value(eng_buf *out, const eng_type *t, const uint8_t *p, size_t len, eng_err *err)
{
    if (len == 0) {
        eng_buf_put_u8(out, TAG_EMPTY);
        return 0;
    }
    if (!p)
        return bad_value(err, t);
    eng_buf_put_u8(out, TAG_VALUE);
    size_t w = (size_t)fixed_width(t->kind);
    if (w) {
        if (len != w)
            return bad_value(err, t);
        put_fixed(out, t->kind, p, w);
        return 0;
    }
    switch (t->kind) {
    case ENG_BOOLEAN:
        if (len != 1)
            return bad_value(err, t);
        eng_buf_put_u8(out, p[0] != 0);
        return 0;
    case ENG_INET:
        if (len != 4 && len != 16)
            return bad_value(err, t);
        put_escaped(out, p, len);
        return 0;
    case ENG_ASCII:
    case ENG_TEXT:
    case ENG_BLOB:
        put_escaped(out, p, len);
        return 0;
    case ENG_VARINT:
        put_varint(out, p, len);
        return 0;
    case ENG_DECIMAL:
        if (len < 4)
            return bad_value(err, t);
        if (put_decimal(out, p, len))
            out->oom = 1;
        return 0;
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        return put_elements(out, t, p, len, err);
    case ENG_TUPLE:
    case ENG_UDT:
        return put_components(out, t, p, len, err);
    default:
        return bad_value(err, t);
    }
}

static int get_value(rd *r, const eng_type *t, eng_buf *out, eng_err *err);

/* Decodes one nested value as a [bytes] item: be32 length, then the bytes. */
static int get_item(rd *r, const eng_type *t, eng_buf *out, eng_err *err)
{
    size_t pos = out ? put_placeholder32(out) : 0;
    int rc = get_value(r, t, out, err);
    if (!rc && out && !out->oom) {
        size_t n = out->len - pos - 4;
        if (n > INT32_MAX)
            return corrupt(err, t);
        patch_be32(out, pos, (uint32_t)n);
    }
    return rc;
}

static int get_elements(rd *r, const eng_type *t, eng_buf *out, eng_err *err)
{
    size_t pos = out ? put_placeholder32(out) : 0;
    int64_t count = 0;
    for (;;) {
        uint8_t tag;
        if (rd_peek(r, &tag))
            return corrupt(err, t);
        if (tag == TAG_END)
            break;
        for (int i = 0; i < (t->kind == ENG_MAP ? 2 : 1); i++) {
            int rc = get_item(r, t->sub[i], out, err);
            if (rc)
                return rc;
        }
        if (++count > INT32_MAX)
            return corrupt(err, t);
    }
    r->p++;
    if (out)
        patch_be32(out, pos, (uint32_t)count);
    return 0;
}

static int get_components(rd *r, const eng_type *t, eng_buf *out, eng_err *err)
{
    int n = 0, last_null = 0;
    for (;;) {
        uint8_t tag;
        if (rd_peek(r, &tag))
            return corrupt(err, t);
        if (tag == TAG_END)
            break;
        if (n == t->n_sub)
            return corrupt(err, t);
        last_null = tag == TAG_NULL;
        if (last_null) {
            r->p++;
            if (out)
                eng_buf_put_be32(out, 0xFFFFFFFFu);
        } else {
            int rc = get_item(r, t->sub[n], out, err);
            if (rc)
                return rc;
        }
        n++;
    }
    r->p++;
    /* Trailing nulls are never encoded; the native form has every component. */
    if (last_null)
        return corrupt(err, t);
    for (; out && n < t->n_sub; n++)
        eng_buf_put_be32(out, 0xFFFFFFFFu);
    return 0;
}

static int get_value(rd *r, const eng_type *t, eng_buf *out, eng_err *err)
{
    uint8_t tag;
    if (rd_u8(r, &tag) || (tag != TAG_EMPTY && tag != TAG_VALUE))
        return corrupt(err, t);
    if (tag == TAG_EMPTY)
        return 0;
    size_t w = (size_t)fixed_width(t->kind), n;
    int bad = 0;
    if (w)
        return get_fixed(r, t->kind, w, out) ? corrupt(err, t) : 0;
    switch (t->kind) {
    case ENG_BOOLEAN: {
        uint8_t b;
        bad = rd_u8(r, &b) || b > 1;
        if (!bad && out)
            eng_buf_put_u8(out, b);
        break;
    }
    case ENG_INET:
        bad = get_escaped(r, out, &n) || (n != 4 && n != 16);
        break;
    case ENG_ASCII:
    case ENG_TEXT:
    case ENG_BLOB:
        bad = get_escaped(r, out, &n) || n == 0;
        break;
    case ENG_VARINT:
        bad = get_varint(r, out);
        break;
    case ENG_DECIMAL:
        bad = get_decimal(r, out);
        break;
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        return get_elements(r, t, out, err);
    case ENG_TUPLE:
    case ENG_UDT:
        return get_components(r, t, out, err);
    default:
        bad = 1;
    }
    return bad ? corrupt(err, t) : 0;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

int eng_key_put(eng_buf *out, const eng_type *t, const uint8_t *p, size_t len, int desc,
                eng_err *err)
{
    int rc = check_key_type(t, 1, err);
    if (rc)
        return rc;
    size_t start = out->len;
    rc = put_value(out, t, p, len, err);
    if (!rc && out->oom)
        rc = eng_errorf(err, ENG_E_NOMEM, "Out of memory encoding a key");
    if (rc) {
        out->len = ENG_MIN(out->len, start);
        return rc;
    }
    /* Complementing a prefix-free encoding exactly reverses its order. */
    if (desc)
        complement_from(out, start);
    return 0;
}

static int key_read(const eng_type *t, const uint8_t **pp, const uint8_t *end, int desc,
                    eng_buf *out, eng_err *err)
{
    int rc = check_key_type(t, 1, err);
    if (rc)
        return rc;
    if (!*pp || *pp > end)
        return corrupt(err, t);
    rd r = {*pp, end, desc ? 0xFF : 0x00};
    size_t start = out ? out->len : 0;
    rc = get_value(&r, t, out, err);
    if (!rc && out && out->oom)
        rc = eng_errorf(err, ENG_E_NOMEM, "Out of memory decoding a key");
    if (rc) {
        if (out)
            out->len = ENG_MIN(out->len, start);
        return rc;
    }
    *pp = r.p;
    return 0;
}

int eng_key_get(const eng_type *t, const uint8_t **pp, const uint8_t *end, int desc, eng_buf *out,
                eng_err *err)
{
    return key_read(t, pp, end, desc, out, err);
}

int eng_key_get_fixed(const eng_type *t, const uint8_t **pp, const uint8_t *end, int desc,
                      uint8_t out[16])
{
    int w = fixed_width(t->kind);
    if (!w)
        return 0;
    rd r = {*pp, end, desc ? 0xFF : 0x00};
    uint8_t tag;
    if (rd_u8(&r, &tag) || (tag != TAG_EMPTY && tag != TAG_VALUE))
        return -1;
    if (tag == TAG_VALUE && get_fixed_to(&r, t->kind, (size_t)w, out))
        return -1;
    *pp = r.p;
    return tag == TAG_EMPTY ? ENG_KEY_EMPTY : w;
}

int eng_key_skip(const eng_type *t, const uint8_t **pp, const uint8_t *end, int desc, eng_err *err)
{
    return key_read(t, pp, end, desc, NULL, err);
}

void eng_key_put_token(uint8_t out[8], int64_t token)
{
    /* Sign bit flipped: unsigned byte order = signed token order (facts §1.7). */
    eng_put_be64(out, (uint64_t)token ^ SIGN64);
}

int64_t eng_key_token_of(const uint8_t in[8])
{
    return (int64_t)(eng_be64(in) ^ SIGN64);
}

void eng_key_put_partition(eng_buf *out, int64_t token, const uint8_t *pk, size_t pk_len)
{
    uint8_t tok[8];
    eng_key_put_token(tok, token);
    eng_buf_put(out, tok, 8);
    /* Equal tokens order by unsigned key bytes, a proper prefix first (facts §1.7). */
    put_escaped(out, pk, pk_len);
}

int eng_key_get_partition(const uint8_t **pp, const uint8_t *end, int64_t *token, eng_buf *pk,
                          eng_err *err)
{
    if (!*pp || *pp > end || end - *pp < 8)
        return eng_errorf(err, ENG_E_CORRUPT, "Corrupt partition prefix in an encoded key");
    rd r = {*pp + 8, end, 0x00};
    size_t start = pk ? pk->len : 0, n;
    if (get_escaped(&r, pk, &n)) {
        if (pk)
            pk->len = ENG_MIN(pk->len, start);
        return eng_errorf(err, ENG_E_CORRUPT, "Corrupt partition prefix in an encoded key");
    }
    if (pk && pk->oom)
        return eng_errorf(err, ENG_E_NOMEM, "Out of memory decoding a key");
    int64_t stored = eng_key_token_of(*pp);
    /* The token is the key's hash: a damaged token or key byte shows as a mismatch. */
    if (pk && stored != eng_token(pk->p + start, pk->len - start)) {
        pk->len = start;
        return eng_errorf(err, ENG_E_CORRUPT,
                          "Corrupt partition prefix in an encoded key: its token is not the hash "
                          "of its key");
    }
    if (token)
        *token = stored;
    *pp = r.p;
    return 0;
}
