/*
 * Order-preserving key codec: memcmp order of encodings equals Cassandra's
 * comparator order (facts §3) for every key type, DESC reverses it,
 * equal-comparing values encode identically, encodings are prefix-free and
 * decode back to canonical native bytes, and damaged encodings are reported
 * as ENG_E_CORRUPT. The partition prefix orders by token, then unsigned key
 * bytes (facts §1.7).
 */
#include <math.h>

#include "harness.h"
#include "engine/store/keycodec.h"
#include "engine/value/token.h"
#include "engine/value/uuid.h"

/* ---- helpers ---- */

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        if (hex[0] == ' ') {
            hex--;
            continue;
        }
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
    }
    return n;
}

static eng_type *T(int kind)
{
    eng_type *t = eng_type_new(kind);
    ASSERT(t != NULL);
    return t;
}

/* Encodes or fails the test. */
static void enc_into(eng_buf *b, const eng_type *t, const uint8_t *p, size_t len, int desc)
{
    eng_err err;
    eng_err_clear(&err);
    eng_buf_reset(b);
    ASSERT_OK_ERR(eng_key_put(b, t, p, len, desc, &err), &err);
}

static int lex_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int c = memcmp(a, b, ENG_MIN(alen, blen));
    if (c)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

static int sign(int v)
{
    return (v > 0) - (v < 0);
}

/* Sign of memcmp order of the two encodings. */
static int enc_cmp(const eng_type *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                   int desc)
{
    eng_buf ea = ENG_BUF_INIT, eb = ENG_BUF_INIT;
    enc_into(&ea, t, a, alen, desc);
    enc_into(&eb, t, b, blen, desc);
    int c = lex_cmp(ea.p, ea.len, eb.p, eb.len);
    eng_buf_free(&ea);
    eng_buf_free(&eb);
    return c;
}

/*
 * Decodes one encoding: it must consume exactly all of it, skip must agree,
 * and re-encoding the canonical bytes must give the same encoding.
 */
static void decode_check(const eng_type *t, const uint8_t *enc, size_t len, int desc, eng_buf *out)
{
    eng_err err;
    eng_err_clear(&err);
    const uint8_t *p = enc;
    eng_buf_reset(out);
    ASSERT_OK_ERR(eng_key_get(t, &p, enc + len, desc, out, &err), &err);
    ASSERT(p == enc + len);
    p = enc;
    ASSERT_OK_ERR(eng_key_skip(t, &p, enc + len, desc, &err), &err);
    ASSERT(p == enc + len);
    eng_buf again = ENG_BUF_INIT;
    enc_into(&again, t, out->p, out->len, desc);
    ASSERT_EQ(again.len, len);
    ASSERT_MEM_EQ(again.p, enc, len);
    eng_buf_free(&again);
}

/* Values given as hex must be strictly increasing, in both directions, and round trip. */
static void check_ordered_hex(const eng_type *t, const char *const *hex, size_t n)
{
    uint8_t a[600], b[600];
    for (size_t i = 0; i < n; i++) {
        size_t alen = unhex(hex[i], a);
        for (size_t j = 0; j < n; j++) {
            size_t blen = unhex(hex[j], b);
            int want = i < j ? -1 : i > j;
            for (int desc = 0; desc < 2; desc++) {
                int got = enc_cmp(t, a, alen, b, blen, desc);
                if (got != (desc ? -want : want))
                    test_fail(__FILE__, __LINE__, "%s vs %s desc=%d: got %d want %d", hex[i],
                              hex[j], desc, got, desc ? -want : want);
            }
        }
        for (int desc = 0; desc < 2; desc++) {
            eng_buf e = ENG_BUF_INIT, out = ENG_BUF_INIT;
            enc_into(&e, t, a, alen, desc);
            decode_check(t, e.p, e.len, desc, &out);
            eng_buf_free(&e);
            eng_buf_free(&out);
        }
    }
}

/* Values that Cassandra holds equal encode to the same bytes; decode gives `canon`. */
static void check_same_hex(const eng_type *t, const char *x, const char *y, const char *canon)
{
    uint8_t a[600], b[600], c[600];
    size_t alen = unhex(x, a), blen = unhex(y, b), clen = unhex(canon, c);
    for (int desc = 0; desc < 2; desc++) {
        eng_buf ea = ENG_BUF_INIT, eb = ENG_BUF_INIT, out = ENG_BUF_INIT;
        enc_into(&ea, t, a, alen, desc);
        enc_into(&eb, t, b, blen, desc);
        if (ea.len != eb.len || memcmp(ea.p, eb.p, ea.len) != 0)
            test_fail(__FILE__, __LINE__, "%s and %s encode differently", x, y);
        decode_check(t, ea.p, ea.len, desc, &out);
        if (out.len != clen || memcmp(out.p, c, clen) != 0)
            test_fail(__FILE__, __LINE__, "%s decodes to a non-canonical form", x);
        eng_buf_free(&ea);
        eng_buf_free(&eb);
        eng_buf_free(&out);
    }
}

#define ORDERED(t, ...)                                                                            \
    do {                                                                                           \
        static const char *const v_[] = {__VA_ARGS__};                                             \
        check_ordered_hex((t), v_, ENG_ARRAY_LEN(v_));                                             \
    } while (0)

/* ---- scalars ---- */

TEST(test_empty_value_sorts_before_every_value)
{
    static const struct {
        int kind;
        const char *least;
    } v[] = {
        {ENG_INT, "80000000"},
        {ENG_BIGINT, "8000000000000000"},
        {ENG_TIMESTAMP, "8000000000000000"},
        {ENG_BOOLEAN, "00"},
        {ENG_FLOAT, "ff800000"},
        {ENG_DOUBLE, "fff0000000000000"},
        {ENG_TEXT, "00"},
        {ENG_ASCII, "00"},
        {ENG_BLOB, "00"},
        {ENG_INET, "00000000"},
        {ENG_UUID, "0000000000000000 0000000000000000"},
        {ENG_TIMEUUID, "0000000000001000 8080808080808080"},
        {ENG_VARINT, "80"},
        {ENG_DECIMAL, "7fffffff 80"},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++) {
        eng_type *t = T(v[i].kind);
        const char *h[] = {"", v[i].least};
        check_ordered_hex(t, h, 2);
        eng_type_free(t);
    }
}

TEST(test_integers_order_by_signed_value)
{
    eng_type *t = T(ENG_TINYINT);
    ORDERED(t, "80", "81", "ff", "00", "01", "7f");
    eng_type_free(t);
    t = T(ENG_SMALLINT);
    ORDERED(t, "8000", "ff00", "ffff", "0000", "00ff", "0100", "7fff");
    eng_type_free(t);
    t = T(ENG_INT);
    ORDERED(t, "", "80000000", "80000001", "fffffffe", "ffffffff", "00000000", "00000001",
            "0000007f", "00000080", "7fffffff");
    eng_type_free(t);
    t = T(ENG_BIGINT); /* INT64_MIN .. INT64_MAX */
    ORDERED(t, "", "8000000000000000", "8000000000000001", "ffffffffffffffff", "0000000000000000",
            "0000000000000001", "7ffffffffffffffe", "7fffffffffffffff");
    eng_type_free(t);
    t = T(ENG_TIMESTAMP); /* -1 ms before the epoch sorts first (facts §2.5) */
    ORDERED(t, "ffffffffffffffff", "0000000000000000", "00000000000003e8");
    eng_type_free(t);
}

TEST(test_date_and_time_order_by_unsigned_bytes)
{
    eng_type *t = T(ENG_DATE); /* 1969-12-31 < 1970-01-01 < 2021-01-01 (facts §2.5) */
    ORDERED(t, "00000000", "7fffffff", "80000000", "800048c4", "ffffffff");
    eng_type_free(t);
    t = T(ENG_TIME);
    ORDERED(t, "0000000000000000", "000000003b9aca00", "00004e94914effff");
    eng_type_free(t);
}

TEST(test_boolean_false_before_true_and_nonzero_bytes_equal)
{
    eng_type *t = T(ENG_BOOLEAN);
    ORDERED(t, "", "00", "01");
    check_same_hex(t, "01", "02", "01");
    check_same_hex(t, "01", "ff", "01");
    eng_type_free(t);
}

TEST(test_float_order_is_java_compareto_with_nan_last)
{
    eng_type *t = T(ENG_FLOAT);
    /* -Inf < -1 < -min denormal < -0.0 < 0.0 < min denormal < 1 < Inf < NaN (facts §3) */
    ORDERED(t, "", "ff800000", "bf800000", "80000001", "80000000", "00000000", "00000001",
            "3f800000", "7f7fffff", "7f800000", "7fc00000");
    /* Every NaN is Float.floatToIntBits' canonical NaN. */
    check_same_hex(t, "7fc00000", "7f800001", "7fc00000");
    check_same_hex(t, "7fc00000", "ffc00000", "7fc00000");
    check_same_hex(t, "7fc00000", "ffffffff", "7fc00000");
    check_same_hex(t, "80000000", "80000000", "80000000"); /* -0.0 kept */
    eng_type_free(t);
    t = T(ENG_DOUBLE);
    ORDERED(t, "", "fff0000000000000", "bff0000000000000", "8000000000000001", "8000000000000000",
            "0000000000000000", "0000000000000001", "3ff0000000000000", "7fefffffffffffff",
            "7ff0000000000000", "7ff8000000000000");
    check_same_hex(t, "7ff8000000000000", "7ff0000000000001", "7ff8000000000000");
    check_same_hex(t, "7ff8000000000000", "fff8000000000000", "7ff8000000000000");
    check_same_hex(t, "7ff8000000000000", "7fffffffffffffff", "7ff8000000000000");
    eng_type_free(t);
}

TEST(test_text_with_zero_bytes_and_prefixes_orders_bytewise)
{
    eng_type *t = T(ENG_TEXT);
    /* "" < "\0" < "a" < "a\0" < "a\0\0" < "a\0\1" < "a\1" < "ab" < "b" < "é" */
    ORDERED(t, "", "00", "61", "6100", "610000", "610001", "6101", "6162", "62", "c3a9");
    eng_type_free(t);
    t = T(ENG_BLOB);
    ORDERED(t, "", "00", "0000", "00ff", "01", "fe", "feff", "ff", "ff00", "ffff");
    eng_type_free(t);
    t = T(ENG_ASCII);
    ORDERED(t, "", "00", "4161", "61", "6100", "7f");
    eng_type_free(t);
}

TEST(test_long_text_keys_order_and_round_trip)
{
    eng_type *t = T(ENG_TEXT);
    uint8_t a[500], b[500];
    for (int i = 0; i < 500; i++)
        a[i] = b[i] = (uint8_t)('a' + i % 26);
    b[499]++;
    ASSERT_EQ(enc_cmp(t, a, 500, b, 500, 0), -1);
    ASSERT_EQ(enc_cmp(t, a, 499, a, 500, 0), -1);
    ASSERT_EQ(enc_cmp(t, a, 500, b, 500, 1), 1);
    eng_buf e = ENG_BUF_INIT, out = ENG_BUF_INIT;
    enc_into(&e, t, a, 500, 0);
    decode_check(t, e.p, e.len, 0, &out);
    ASSERT_EQ(out.len, 500);
    ASSERT_MEM_EQ(out.p, a, 500);
    eng_buf_free(&e);
    eng_buf_free(&out);
    eng_type_free(t);
}

TEST(test_inet_compares_raw_bytes_ipv4_prefix_first)
{
    eng_type *t = T(ENG_INET);
    /* ::1 < 10.0.0.1 < 127.0.0.1 < 127.0.0.1::... (16 bytes) < fe80::1 (facts §3) */
    ORDERED(t, "", "00000000000000000000000000000001", "0a000001", "7f000001",
            "7f000001000000000000000000000000", "7f000002", "fe800000000000000000000000000001");
    eng_type_free(t);
}

TEST(test_timeuuid_orders_by_timestamp_then_signed_lsb_bytes)
{
    eng_type *t = T(ENG_TIMEUUID);
    /* Equal timestamps: byte 8, then byte 15, compared as signed bytes (facts §3.1). */
    ORDERED(t, "", "13814000 1dd2 11b2 8080808080808080", "13814000 1dd2 11b2 8100000000000000",
            "13814000 1dd2 11b2 ff00000000000000", "13814000 1dd2 11b2 0000000000000080",
            "13814000 1dd2 11b2 00000000000000ff", "13814000 1dd2 11b2 0000000000000000",
            "13814000 1dd2 11b2 0000000000000001", "13814000 1dd2 11b2 000000000000007f",
            "13814000 1dd2 11b2 7f00000000000000", "13814000 1dd2 11b2 7f7f7f7f7f7f7f7f",
            /* the timestamp dominates even when time_low goes down */
            "00000000 1dd3 11b2 8080808080808080", "ffffffff 0000 11b3 8080808080808080");
    /* minTimeuuid(t) < anything at t < maxTimeuuid(t) < minTimeuuid(t + 1) (facts §3.3) */
    uint8_t lo[16], hi[16], next[16], mid[16];
    eng_timeuuid_min(1609459200123LL, lo);
    eng_timeuuid_max(1609459200123LL, hi);
    eng_timeuuid_min(1609459200124LL, next);
    eng_uuid_from_ticks(eng_timeuuid_ticks(lo) + 5000, 0x8123456789abcdefULL, mid);
    ASSERT_EQ(enc_cmp(t, lo, 16, mid, 16, 0), -1);
    ASSERT_EQ(enc_cmp(t, mid, 16, hi, 16, 0), -1);
    ASSERT_EQ(enc_cmp(t, hi, 16, next, 16, 0), -1);
    eng_uuid_from_ticks(eng_timeuuid_ticks(lo), 0x7f7f7f7f7f7f7f7fULL, mid);
    ASSERT_EQ(enc_cmp(t, lo, 16, mid, 16, 0), -1);
    eng_type_free(t);
}

TEST(test_uuid_orders_by_version_then_time_or_msb_then_unsigned_lsb)
{
    eng_type *t = T(ENG_UUID);
    ORDERED(t, "",
            /* version 0 < version 1 < version 4, whatever the other bytes */
            "ffffffffffff0fff ffffffffffffffff", "00000000 0000 1000 0000000000000000",
            /* v1: timestamp order; then unsigned LSB (0x7f < 0x80, unlike timeuuid) */
            "ffffffff 0000 1000 0000000000000000", "00000000 0001 1000 0000000000000000",
            "00000000 0000 1001 0000000000000000", "00000000 0000 1001 7f00000000000000",
            "00000000 0000 1001 8000000000000000", "00000000 0000 1001 ff00000000000000",
            /* v4: unsigned MSB */
            "00000000 0000 4000 ffffffffffffffff", "7fffffff ffff 4fff ffffffffffffffff",
            "80000000 0000 4000 0000000000000000", "ffffffff ffff 4fff 0000000000000000");
    eng_type_free(t);
}

TEST(test_uuid_order_puts_v4_msb_unsigned)
{
    /* Same version, MSB compared as unsigned 64-bit: 0x80.. sorts after 0x7f.. (facts §3.2). */
    eng_type *t = T(ENG_UUID);
    uint8_t a[16], b[16];
    unhex("7fffffffffff4fffffffffffffffffff", a);
    unhex("800000000000400000000000000000ff", b);
    ASSERT_EQ(enc_cmp(t, a, 16, b, 16, 0), -1);
    eng_type_free(t);
}

TEST(test_varint_orders_numerically_ignoring_sign_extension)
{
    eng_type *t = T(ENG_VARINT);
    ORDERED(t, "", "ff7fffffffffffffffffffffffffffff", "ff00", "ff7f", "80", "fe", "ff", "00", "01",
            "7f", "0080", "0081", "00ff", "0100", "7fffffffffffffff", "008000000000000000",
            "0100000000000000000000000000000000");
    check_same_hex(t, "0001", "01", "01");
    check_same_hex(t, "000000", "00", "00");
    check_same_hex(t, "ffff", "ff", "ff");
    check_same_hex(t, "ffff80", "80", "80");
    check_same_hex(t, "00000080", "0080", "0080");
    check_same_hex(t, "ffffff00", "ff00", "ff00");
    eng_type_free(t);
}

TEST(test_decimal_orders_by_value_ignoring_scale)
{
    eng_type *t = T(ENG_DECIMAL);
    /* 1.0 == 1.00 == 1, decoded as scale 0, unscaled 1 */
    check_same_hex(t, "00000001 0a", "00000002 64", "00000000 01");
    check_same_hex(t, "00000000 01", "00000002 64", "00000000 01");
    /* 10 == 1E+1 (scale -1), read back as 10; 0.00 == 0 */
    check_same_hex(t, "00000000 0a", "ffffffff 01", "00000000 0a");
    check_same_hex(t, "00000002 00", "00000000 00", "00000000 00");
    check_same_hex(t, "80000000 00", "7fffffff 00", "00000000 00");
    /* 1E+3 == 1000 (facts §2.5), read back as 1000 */
    check_same_hex(t, "fffffffd 01", "00000000 03e8", "00000000 03e8");
    /* -1.50 == -1.5 */
    check_same_hex(t, "00000002 ff6a", "00000001 f1", "00000001 f1");
    ORDERED(t, "", "80000000 ff", /* -1E+2147483648 */
            "00000000 fc18",      /* -1000 */
            "00000001 f1",        /* -1.5 */
            "00000000 ff",        /* -1 */
            "00000001 fb",        /* -0.5 */
            "00000002 ff",        /* -0.01 (facts §2.5) */
            "7fffffff ff",        /* -1E-2147483647 */
            "00000000 00",        /* 0 */
            "7fffffff 01",        /* 1E-2147483647 */
            "00000002 01",        /* 0.01 */
            "00000001 05",        /* 0.5 */
            "00000002 63",        /* 0.99 */
            "00000000 01",        /* 1 */
            "00000001 0f",        /* 1.5 (facts §2.5) */
            "00000002 03e7",      /* 9.99 */
            "ffffffff 01",        /* 1E+1 == 10 */
            "00000001 65",        /* 10.1 */
            "00000000 64",        /* 100 (facts §2.5) */
            "00000000 00ff",      /* 255 */
            "00000000 0100",      /* 256 */
            "fffffffd 01",        /* 1E+3 */
            "00000000 7fffffffffffffffffff", "80000000 01");
    eng_type_free(t);
}

TEST(test_decimal_extreme_scale_round_trips_in_int32)
{
    /* 10 x 10^2147483648: canonical form cannot drop the trailing zero (scale >= INT32_MIN). */
    eng_type *t = T(ENG_DECIMAL);
    check_same_hex(t, "80000000 0a", "80000000 0a", "80000000 0a");
    check_same_hex(t, "80000001 64", "80000000 0a", "80000000 0a");
    check_same_hex(t, "80000000 0a", "80000001 64", "80000000 0a");
    check_same_hex(t, "7fffffff 0a", "7ffffffe 01", "7ffffffe 01");
    eng_type_free(t);
}

TEST(test_varint_and_decimal_long_magnitudes_round_trip)
{
    eng_type *vt = T(ENG_VARINT), *dt = T(ENG_DECIMAL);
    uint64_t st = test_seed();
    eng_buf e = ENG_BUF_INIT, out = ENG_BUF_INIT;
    for (int iter = 0; iter < 300; iter++) {
        uint8_t v[104];
        size_t len = 1 + test_rand(&st) % 100;
        for (size_t i = 0; i < len + 4; i++)
            v[i] = (uint8_t)test_rand(&st);
        v[4] = (uint8_t)(iter & 1 ? v[4] | 0x80 : v[4] & 0x7f);
        for (int desc = 0; desc < 2; desc++) {
            enc_into(&e, vt, v + 4, len, desc);
            decode_check(vt, e.p, e.len, desc, &out);
            /* A minimal input is already canonical. */
            const uint8_t *m = v + 4;
            size_t ml = len;
            while (ml > 1 && ((m[0] == 0 && !(m[1] & 0x80)) || (m[0] == 0xff && (m[1] & 0x80)))) {
                m++;
                ml--;
            }
            ASSERT_EQ(out.len, ml);
            ASSERT_MEM_EQ(out.p, m, ml);
            v[0] = v[1] = 0; /* small scales keep the test about magnitudes */
            enc_into(&e, dt, v, len + 4, desc);
            decode_check(dt, e.p, e.len, desc, &out);
        }
    }
    eng_buf_free(&e);
    eng_buf_free(&out);
    eng_type_free(vt);
    eng_type_free(dt);
}

/* ---- collections, tuples, UDTs ---- */

TEST(test_frozen_list_orders_elementwise_shorter_first)
{
    eng_type *t = eng_type_new_list(T(ENG_INT), 1);
    ORDERED(t, "",                                          /* empty value */
            "00000000",                                     /* [] */
            "00000001 00000000",                            /* [empty int] */
            "00000001 00000004 ffffffff",                   /* [-1] */
            "00000001 00000004 00000001",                   /* [1] */
            "00000002 00000004 00000001 00000000",          /* [1, empty] */
            "00000002 00000004 00000001 00000004 80000000", /* [1, MIN] */
            "00000002 00000004 00000001 00000004 00000002", /* [1, 2] */
            "00000001 00000004 00000002");                  /* [2] */
    eng_type_free(t);
}

TEST(test_frozen_map_orders_key_then_value)
{
    eng_type *t = eng_type_new_map(T(ENG_INT), T(ENG_TEXT), 1);
    ORDERED(t, "00000000",                            /* {} */
            "00000001 00000004 00000001 00000000",    /* {1: ''} */
            "00000001 00000004 00000001 00000001 61", /* {1: 'a'} */
            "00000002 00000004 00000001 00000001 61 00000004 00000002 00000000",
            "00000001 00000004 00000001 00000001 62", /* {1: 'b'} */
            "00000001 00000004 00000002 00000000");   /* {2: ''} */
    eng_type_free(t);
}

TEST(test_tuple_null_component_sorts_first_and_trailing_nulls_are_equal)
{
    eng_type *c[3] = {T(ENG_INT), T(ENG_TEXT), T(ENG_INT)};
    eng_type *t = eng_type_new_tuple(c, 3);
    ASSERT(t != NULL);
    ORDERED(t, "", "ffffffff 00000001 61",                  /* (null, 'a') */
            "00000000",                                     /* (empty) */
            "00000004 00000001",                            /* (1) */
            "00000004 00000001 ffffffff 00000004 00000005", /* (1, null, 5) */
            "00000004 00000001 00000000",                   /* (1, '') */
            "00000004 00000001 00000001 61",                /* (1, 'a') */
            "00000004 00000002");                           /* (2) */
    /* (1) == (1, null) == (1, null, null); decoded with full arity. */
    check_same_hex(t, "00000004 00000001", "00000004 00000001 ffffffff",
                   "00000004 00000001 ffffffff ffffffff");
    check_same_hex(t, "00000004 00000001 ffffffff ffffffff", "00000004 00000001",
                   "00000004 00000001 ffffffff ffffffff");
    eng_type_free(t);
}

TEST(test_tuple_trailing_empty_component_is_not_absent)
{
    /*
     * Facts §3: a value that runs out of components equals the other only if
     * the rest of the other is null. (1, '') is a different key from (1):
     * it sorts after (1) and after (1, null, 5), and keeps its '' through a
     * round trip. (Cassandra's own comparator also calls (1) and (1, '')
     * equal while ordering (1, null) before (1, ''); that is not an order.)
     */
    eng_type *c[3] = {T(ENG_INT), T(ENG_TEXT), T(ENG_INT)};
    eng_type *t = eng_type_new_tuple(c, 3);
    ORDERED(t, "00000004 00000001", "00000004 00000001 ffffffff 00000004 00000005",
            "00000004 00000001 00000000", "00000004 00000001 00000000 00000000");
    check_same_hex(t, "00000004 00000001 00000000", "00000004 00000001 00000000 ffffffff",
                   "00000004 00000001 00000000 ffffffff");
    eng_type_free(t);
}

static eng_type *make_udt(eng_type **types, int n)
{
    char *names[4];
    for (int i = 0; i < n; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "f%d", i);
        names[i] = eng_strdup(nm);
    }
    eng_type *t = eng_type_new_udt("ks", "u", names, types, n, 1);
    ASSERT(t != NULL);
    return t;
}

TEST(test_frozen_udt_orders_like_tuple_and_pads_missing_fields)
{
    eng_type *f[2] = {T(ENG_TEXT), T(ENG_BIGINT)};
    eng_type *t = make_udt(f, 2);
    ORDERED(t, "ffffffff 00000008 0000000000000001", "00000001 61",
            "00000001 61 00000008 8000000000000000", "00000001 62");
    check_same_hex(t, "00000001 61", "00000001 61 ffffffff", "00000001 61 ffffffff");
    eng_type_free(t);
}

TEST(test_nested_frozen_collections_round_trip)
{
    /* frozen<list<frozen<map<text, frozen<set<int>>>>>> */
    eng_type *t =
        eng_type_new_list(eng_type_new_map(T(ENG_TEXT), eng_type_new_set(T(ENG_INT), 1), 1), 1);
    ASSERT(t != NULL);
    ORDERED(t, "00000000", "00000001 00000004 00000000",
            "00000001 00000015 00000001 00000001 61 00000008 00000001 00000000",
            "00000001 00000019 00000001 00000001 61 0000000c 00000001 00000004 00000007",
            "00000001 00000019 00000001 00000001 62 0000000c 00000001 00000004 00000001");
    eng_type_free(t);
}

/* ---- multi-component keys, partitions ---- */

TEST(test_multi_component_key_mixes_asc_and_desc)
{
    /* Clustering (a int ASC, b text DESC, c bigint ASC). */
    eng_type *ta = T(ENG_INT), *tb = T(ENG_TEXT), *tc = T(ENG_BIGINT);
    static const struct {
        int32_t a;
        const char *b;
        int64_t c;
    } rows[] = {
        {-1, "b", 0},  {-1, "a", 5},        {-1, "", 0},         {1, "ab", -3}, {1, "ab", 7},
        {1, "a\0", 0}, {1, "a", INT64_MIN}, {1, "a", INT64_MAX}, {1, "", 0},    {2, "z", 0},
    };
    eng_buf keys[ENG_ARRAY_LEN(rows)];
    for (size_t i = 0; i < ENG_ARRAY_LEN(rows); i++) {
        eng_buf *k = &keys[i];
        *k = (eng_buf)ENG_BUF_INIT;
        uint8_t ia[4], ic[8];
        eng_put_be32(ia, (uint32_t)rows[i].a);
        eng_put_be64(ic, (uint64_t)rows[i].c);
        size_t blen = strlen(rows[i].b) + (i == 5); /* "a\0" */
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_key_put(k, ta, ia, 4, 0, &err), &err);
        ASSERT_OK_ERR(eng_key_put(k, tb, (const uint8_t *)rows[i].b, blen, 1, &err), &err);
        ASSERT_OK_ERR(eng_key_put(k, tc, ic, 8, 0, &err), &err);
        /* Decodes component by component. */
        const uint8_t *p = k->p, *end = k->p + k->len;
        eng_buf out = ENG_BUF_INIT;
        ASSERT_OK_ERR(eng_key_get(ta, &p, end, 0, &out, &err), &err);
        ASSERT_OK_ERR(eng_key_get(tb, &p, end, 1, &out, &err), &err);
        ASSERT_OK_ERR(eng_key_get(tc, &p, end, 0, &out, &err), &err);
        ASSERT(p == end);
        ASSERT_EQ(out.len, 12 + blen);
        ASSERT_MEM_EQ(out.p, ia, 4);
        ASSERT_MEM_EQ(out.p + 4, rows[i].b, blen);
        ASSERT_MEM_EQ(out.p + 4 + blen, ic, 8);
        eng_buf_free(&out);
    }
    for (size_t i = 0; i + 1 < ENG_ARRAY_LEN(rows); i++)
        if (lex_cmp(keys[i].p, keys[i].len, keys[i + 1].p, keys[i + 1].len) >= 0)
            test_fail(__FILE__, __LINE__, "row %zu does not sort before row %zu", i, i + 1);
    for (size_t i = 0; i < ENG_ARRAY_LEN(rows); i++)
        eng_buf_free(&keys[i]);
    eng_type_free(ta);
    eng_type_free(tb);
    eng_type_free(tc);
}

TEST(test_partition_prefix_round_trips_and_its_token_must_be_the_key_hash)
{
    static const char *hex[] = {"", "00", "61", "6162", "00000001", "ffff"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(hex); i++) {
        uint8_t pk[8];
        size_t n = unhex(hex[i], pk);
        eng_buf k = ENG_BUF_INIT, back = ENG_BUF_INIT;
        eng_key_put_partition(&k, eng_token(pk, n), pk, n);
        const uint8_t *p = k.p;
        int64_t tok;
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_key_get_partition(&p, k.p + k.len, &tok, &back, &err), &err);
        ASSERT(tok == eng_token(pk, n));
        ASSERT_EQ(back.len, n);
        if (n)
            ASSERT_MEM_EQ(back.p, pk, n);
        ASSERT(p == k.p + k.len);
        /* one token bit off: the prefix no longer holds together */
        k.p[7] ^= 1;
        p = k.p;
        eng_buf_reset(&back);
        eng_err_clear(&err);
        ASSERT_EQ(eng_key_get_partition(&p, k.p + k.len, &tok, &back, &err), ENG_E_CORRUPT);
        ASSERT_EQ(back.len, 0);
        eng_buf_free(&k);
        eng_buf_free(&back);
    }
}

TEST(test_partition_prefix_orders_by_token_then_unsigned_key_bytes)
{
    static const struct {
        int64_t token;
        const char *hex;
    } v[] = {
        {INT64_MIN, ""},  {INT64_MIN + 1, "ff"},
        {-5, "00000001"}, {-1, "61"},
        {0, ""},          {0, "00"},
        {0, "0000"},      {0, "61"},
        {0, "6100"},      {0, "6162"},
        {0, "7f"},        {0, "80"},
        {0, "ff"},        {0, "ffff"},
        {3, "00"},        {INT64_MAX, "00"},
    };
    eng_buf k[ENG_ARRAY_LEN(v)];
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++) {
        uint8_t pk[8];
        size_t n = unhex(v[i].hex, pk);
        k[i] = (eng_buf)ENG_BUF_INIT;
        eng_key_put_partition(&k[i], v[i].token, pk, n);
        eng_buf_put_u8(&k[i], 0x00); /* whatever follows must not disturb the order */
        ASSERT(!k[i].oom);
        /* Round trip of the token (these tokens are not the keys' hashes: no key bytes). */
        const uint8_t *p = k[i].p;
        int64_t tok;
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_key_get_partition(&p, k[i].p + k[i].len, &tok, NULL, &err), &err);
        ASSERT(tok == v[i].token);
        ASSERT(p == k[i].p + k[i].len - 1);
    }
    for (size_t i = 0; i + 1 < ENG_ARRAY_LEN(v); i++)
        if (lex_cmp(k[i].p, k[i].len, k[i + 1].p, k[i + 1].len) >= 0)
            test_fail(__FILE__, __LINE__, "partition %zu does not sort before %zu", i, i + 1);
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++)
        eng_buf_free(&k[i]);
}

TEST(test_token_prefix_is_sign_flipped_big_endian)
{
    uint8_t b[8];
    eng_key_put_token(b, INT64_MIN);
    ASSERT_MEM_EQ(b, "\x00\x00\x00\x00\x00\x00\x00\x00", 8);
    eng_key_put_token(b, -1);
    ASSERT_MEM_EQ(b, "\x7f\xff\xff\xff\xff\xff\xff\xff", 8);
    eng_key_put_token(b, 0);
    ASSERT_MEM_EQ(b, "\x80\x00\x00\x00\x00\x00\x00\x00", 8);
    eng_key_put_token(b, INT64_MAX);
    ASSERT_MEM_EQ(b, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    int64_t toks[] = {INT64_MIN, -1, 0, 1, INT64_MAX, -7468325962851647638LL};
    for (size_t i = 0; i < ENG_ARRAY_LEN(toks); i++) {
        eng_key_put_token(b, toks[i]);
        ASSERT(eng_key_token_of(b) == toks[i]);
    }
}

TEST(test_partition_prefix_truncations_are_corrupt)
{
    eng_buf k = ENG_BUF_INIT;
    eng_key_put_partition(&k, 42, (const uint8_t *)"a\0b", 3);
    for (size_t cut = 0; cut < k.len; cut++) {
        const uint8_t *p = k.p;
        eng_buf pk = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        ASSERT_EQ(eng_key_get_partition(&p, k.p + cut, NULL, &pk, &err), ENG_E_CORRUPT);
        ASSERT(p == k.p);
        ASSERT_EQ(pk.len, 0);
        eng_buf_free(&pk);
    }
    eng_buf_free(&k);
}

/* ---- refusals ---- */

TEST(test_non_key_types_are_refused)
{
    eng_type *bad[] = {
        T(ENG_COUNTER),
        T(ENG_DURATION),
        eng_type_new_list(T(ENG_INT), 0),
        eng_type_new_set(T(ENG_INT), 0),
        eng_type_new_map(T(ENG_INT), T(ENG_INT), 0),
        eng_type_new_list(T(ENG_DURATION), 1),
        eng_type_new_map(T(ENG_TEXT), T(ENG_COUNTER), 1),
        eng_type_new_custom("org.apache.cassandra.db.marshal.DurationType"),
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(bad); i++) {
        ASSERT(bad[i] != NULL);
        eng_buf b = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        ASSERT_EQ(eng_key_put(&b, bad[i], (const uint8_t *)"\0\0\0\0\0\0\0\0", 8, 0, &err),
                  ENG_E_INVALID);
        ASSERT(err.msg[0] != 0);
        ASSERT_EQ(b.len, 0);
        const uint8_t *p = (const uint8_t *)"\x03";
        eng_err_clear(&err);
        ASSERT_EQ(eng_key_get(bad[i], &p, p + 1, 0, &b, &err), ENG_E_INVALID);
        eng_buf_free(&b);
        eng_type_free(bad[i]);
    }
}

TEST(test_malformed_values_are_refused_not_encoded)
{
    eng_type *ti = T(ENG_INT), *tin = T(ENG_INET), *tl = eng_type_new_list(T(ENG_INT), 1);
    eng_buf b = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(eng_key_put(&b, ti, (const uint8_t *)"\0\0\0", 3, 0, &err), ENG_E_INVALID);
    eng_err_clear(&err);
    ASSERT_EQ(eng_key_put(&b, tin, (const uint8_t *)"\0\0\0\0\0", 5, 0, &err), ENG_E_INVALID);
    uint8_t l[32];
    size_t n = unhex("00000002 00000004 00000001", l); /* count says 2, one element */
    eng_err_clear(&err);
    ASSERT_EQ(eng_key_put(&b, tl, l, n, 0, &err), ENG_E_INVALID);
    n = unhex("00000001 ffffffff", l); /* null element */
    eng_err_clear(&err);
    ASSERT_EQ(eng_key_put(&b, tl, l, n, 0, &err), ENG_E_INVALID);
    ASSERT_EQ(b.len, 0);
    eng_buf_free(&b);
    eng_type_free(ti);
    eng_type_free(tin);
    eng_type_free(tl);
}

/* ---- random values of random key types ---- */

static const int scalar_kinds[] = {
    ENG_ASCII,    ENG_BIGINT, ENG_BLOB,      ENG_BOOLEAN, ENG_DECIMAL,  ENG_DOUBLE,
    ENG_FLOAT,    ENG_INT,    ENG_TIMESTAMP, ENG_UUID,    ENG_TEXT,     ENG_VARINT,
    ENG_TIMEUUID, ENG_INET,   ENG_DATE,      ENG_TIME,    ENG_SMALLINT, ENG_TINYINT,
};

static eng_type *gen_type(uint64_t *st, int depth)
{
    uint64_t r = test_rand(st) % 10;
    if (depth >= 3 || r < 6)
        return T(scalar_kinds[test_rand(st) % ENG_ARRAY_LEN(scalar_kinds)]);
    switch (r) {
    case 6:
        return eng_type_new_list(gen_type(st, depth + 1), 1);
    case 7:
        return eng_type_new_set(gen_type(st, depth + 1), 1);
    case 8:
        return eng_type_new_map(gen_type(st, depth + 1), gen_type(st, depth + 1), 1);
    default: {
        int n = 1 + (int)(test_rand(st) % 3);
        eng_type *c[3];
        for (int i = 0; i < n; i++)
            c[i] = gen_type(st, depth + 1);
        return test_rand(st) % 2 ? eng_type_new_tuple(c, n) : make_udt(c, n);
    }
    }
}

static uint8_t pool_byte(uint64_t *st)
{
    static const uint8_t pool[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe};
    uint64_t r = test_rand(st);
    return r % 3 ? pool[(r >> 8) % ENG_ARRAY_LEN(pool)] : (uint8_t)(r >> 16);
}

static void gen_bytes(uint64_t *st, eng_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        eng_buf_put_u8(b, pool_byte(st));
}

static void gen_value(uint64_t *st, const eng_type *t, eng_buf *b);

static void gen_text(uint64_t *st, eng_buf *b, int ascii)
{
    static const char *const pieces[] = {"\0", "a", "b", "\x7f", "\xc3\xa9", "\xf0\x9f\x98\x80"};
    int n = 1 + (int)(test_rand(st) % 5);
    for (int i = 0; i < n; i++) {
        const char *s = pieces[test_rand(st) % (ascii ? 4 : 6)];
        eng_buf_put(b, s, s[0] ? strlen(s) : 1);
    }
}

static void gen_float_bits(uint64_t *st, eng_buf *b, int dbl)
{
    static const uint32_t f[] = {0,           0x80000000u, 0x7f800000u, 0xff800000u,
                                 0x7fc00000u, 0x7f800001u, 0xffc00001u, 0x3f800000u,
                                 0xbf800000u, 1,           0x80000001u};
    static const uint64_t d[] = {0,
                                 0x8000000000000000ULL,
                                 0x7ff0000000000000ULL,
                                 0xfff0000000000000ULL,
                                 0x7ff8000000000000ULL,
                                 0x7ff0000000000001ULL,
                                 0xfff8000000000001ULL,
                                 0x3ff0000000000000ULL,
                                 0xbff0000000000000ULL,
                                 1,
                                 0x8000000000000001ULL};
    uint64_t r = test_rand(st);
    if (dbl)
        eng_buf_put_be64(b, r % 4 ? d[(r >> 8) % ENG_ARRAY_LEN(d)] : test_rand(st));
    else
        eng_buf_put_be32(b, r % 4 ? f[(r >> 8) % ENG_ARRAY_LEN(f)] : (uint32_t)test_rand(st));
}

static void gen_uuid(uint64_t *st, eng_buf *b, int time)
{
    static const int versions[] = {1, 1, 4, 4, 0, 2, 15};
    size_t at = b->len;
    gen_bytes(st, b, 16);
    if (b->oom)
        return;
    int v = time ? 1 : versions[test_rand(st) % ENG_ARRAY_LEN(versions)];
    b->p[at + 6] = (uint8_t)(v << 4 | (b->p[at + 6] & 0x0f));
}

static void gen_decimal(uint64_t *st, eng_buf *b)
{
    static const int32_t scales[] = {0, 1, 2, -1, -2, 3, 10, -10, INT32_MIN, INT32_MAX};
    uint64_t r = test_rand(st);
    int32_t scale = r % 8 ? scales[(r >> 8) % 6] : scales[(r >> 8) % ENG_ARRAY_LEN(scales)];
    eng_buf_put_be32(b, (uint32_t)scale);
    gen_bytes(st, b, 1 + test_rand(st) % 6);
}

/* Empty values only where the type accepts them (facts §2.2). */
static int allows_empty(int kind)
{
    /* Collections need at least their count ("Not enough bytes to read a list"). */
    return kind != ENG_DATE && kind != ENG_TIME && kind != ENG_SMALLINT && kind != ENG_TINYINT &&
           kind != ENG_LIST && kind != ENG_SET && kind != ENG_MAP;
}

static void put_item(eng_buf *b, const eng_buf *v)
{
    eng_buf_put_be32(b, (uint32_t)v->len);
    eng_buf_put(b, v->p, v->len);
}

static void gen_collection(uint64_t *st, const eng_type *t, eng_buf *b)
{
    int n = (int)(test_rand(st) % 4), per = t->kind == ENG_MAP ? 2 : 1;
    eng_buf v = ENG_BUF_INIT;
    eng_buf_put_be32(b, (uint32_t)n);
    for (int i = 0; i < n * per; i++) {
        eng_buf_reset(&v);
        gen_value(st, t->sub[i % per], &v);
        put_item(b, &v);
    }
    eng_buf_free(&v);
}

/*
 * Tuple/UDT values. A trailing empty component is made null: Cassandra's
 * TupleType holds (x, '') equal to (x) but (x, null) below (x, ''), which no
 * byte order can reproduce; the codec follows facts §3 (trailing nulls only)
 * and test_tuple_trailing_empty_component_is_not_absent pins that choice.
 */
static void gen_components(uint64_t *st, const eng_type *t, eng_buf *b)
{
    int n = 1 + (int)(test_rand(st) % t->n_sub), last = -1;
    eng_buf v[8];
    int null[8];
    for (int i = 0; i < n; i++) {
        v[i] = (eng_buf)ENG_BUF_INIT;
        null[i] = test_rand(st) % 4 == 0;
        if (!null[i])
            gen_value(st, t->sub[i], &v[i]);
        if (!null[i] && v[i].len > 0)
            last = i;
    }
    for (int i = 0; i < n; i++) {
        if (null[i] || (i > last && v[i].len == 0))
            eng_buf_put_be32(b, 0xffffffffu);
        else
            put_item(b, &v[i]);
        eng_buf_free(&v[i]);
    }
}

static void gen_value(uint64_t *st, const eng_type *t, eng_buf *b)
{
    if (allows_empty(t->kind) && test_rand(st) % 10 == 0)
        return;
    switch (t->kind) {
    case ENG_TINYINT:
        gen_bytes(st, b, 1);
        break;
    case ENG_SMALLINT:
        gen_bytes(st, b, 2);
        break;
    case ENG_INT:
    case ENG_DATE:
        gen_bytes(st, b, 4);
        break;
    case ENG_BIGINT:
    case ENG_TIMESTAMP:
        gen_bytes(st, b, 8);
        break;
    case ENG_TIME: {
        static const uint64_t tv[] = {0, 1, 86399999999999ULL, 1000000000ULL};
        uint64_t r = test_rand(st);
        eng_buf_put_be64(b, r % 2 ? tv[(r >> 8) % 4] : (r >> 8) % 86400000000000ULL);
        break;
    }
    case ENG_BOOLEAN: {
        static const uint8_t bv[] = {0, 1, 2, 0xff};
        eng_buf_put_u8(b, bv[test_rand(st) % 4]);
        break;
    }
    case ENG_FLOAT:
        gen_float_bits(st, b, 0);
        break;
    case ENG_DOUBLE:
        gen_float_bits(st, b, 1);
        break;
    case ENG_UUID:
        gen_uuid(st, b, 0);
        break;
    case ENG_TIMEUUID:
        gen_uuid(st, b, 1);
        break;
    case ENG_TEXT:
        gen_text(st, b, 0);
        break;
    case ENG_ASCII:
        gen_text(st, b, 1);
        break;
    case ENG_BLOB:
        gen_bytes(st, b, 1 + test_rand(st) % 5);
        break;
    case ENG_INET:
        gen_bytes(st, b, test_rand(st) % 2 ? 4 : 16);
        break;
    case ENG_VARINT:
        gen_bytes(st, b, 1 + test_rand(st) % 9);
        break;
    case ENG_DECIMAL:
        gen_decimal(st, b);
        break;
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        gen_collection(st, t, b);
        break;
    default:
        gen_components(st, t, b);
        break;
    }
}

typedef struct {
    eng_type *t;
    eng_buf a, b, ea, eb, out;
} prop_ctx;

static void gen_pair(uint64_t *st, prop_ctx *c)
{
    eng_buf_reset(&c->a);
    eng_buf_reset(&c->b);
    gen_value(st, c->t, &c->a);
    /* Often a near copy, so equal and barely-different values are common. */
    if (test_rand(st) % 4 == 0 || c->a.len == 0) {
        gen_value(st, c->t, &c->b);
    } else {
        eng_buf_put(&c->b, c->a.p, c->a.len);
        if (test_rand(st) % 2 && !c->b.oom) {
            uint8_t *last = &c->b.p[c->b.len - 1];
            *last = (uint8_t)(*last + (test_rand(st) % 2 ? 1 : -1));
            eng_err err;
            eng_err_clear(&err);
            if (eng_type_validate(c->t, c->b.p, c->b.len, &err)) {
                eng_buf_reset(&c->b);
                eng_buf_put(&c->b, c->a.p, c->a.len);
            }
        }
    }
    ASSERT(!c->a.oom && !c->b.oom);
}

static void prop_free(prop_ctx *c)
{
    eng_buf_free(&c->a);
    eng_buf_free(&c->b);
    eng_buf_free(&c->ea);
    eng_buf_free(&c->eb);
    eng_buf_free(&c->out);
}

static void render_hex(const eng_buf *b, char *s, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len && n + 3 < cap; i++)
        n += (size_t)snprintf(s + n, cap - n, "%02x", b->p[i]);
    s[n] = 0;
}

static void fail_pair(prop_ctx *c, const char *what, int got, int want)
{
    char ta[256], tb[256];
    eng_buf ty = ENG_BUF_INIT;
    eng_type_to_cql(c->t, &ty);
    render_hex(&c->a, ta, sizeof ta);
    render_hex(&c->b, tb, sizeof tb);
    test_fail(__FILE__, __LINE__, "%s: type %.*s a=%s b=%s got %d want %d", what, (int)ty.len,
              ty.p ? (const char *)ty.p : "", ta, tb, got, want);
}

TEST(test_memcmp_order_equals_cassandra_compare_random_pairs)
{
    uint64_t st = test_seed();
    prop_ctx c = {0};
    eng_err err;
    const int types = 2000, pairs = 100;
    for (int ti = 0; ti < types; ti++) {
        c.t = gen_type(&st, 0);
        ASSERT(c.t != NULL);
        for (int pi = 0; pi < pairs; pi++) {
            gen_pair(&st, &c);
            eng_err_clear(&err);
            ASSERT_OK_ERR(eng_type_validate(c.t, c.a.p, c.a.len, &err), &err);
            ASSERT_OK_ERR(eng_type_validate(c.t, c.b.p, c.b.len, &err), &err);
            int desc = (int)(test_rand(&st) % 2);
            enc_into(&c.ea, c.t, c.a.p, c.a.len, desc);
            enc_into(&c.eb, c.t, c.b.p, c.b.len, desc);
            int want = sign(eng_type_compare(c.t, c.a.p, c.a.len, c.b.p, c.b.len));
            int got = lex_cmp(c.ea.p, c.ea.len, c.eb.p, c.eb.len);
            if (got != (desc ? -want : want))
                fail_pair(&c, desc ? "desc order" : "asc order", got, desc ? -want : want);
            /* Round trip: the canonical bytes compare equal and encode identically. */
            decode_check(c.t, c.ea.p, c.ea.len, desc, &c.out);
            if (eng_type_compare(c.t, c.a.p, c.a.len, c.out.p, c.out.len) != 0)
                fail_pair(&c, "round trip", 1, 0);
            eng_err_clear(&err);
            ASSERT_OK_ERR(eng_type_validate(c.t, c.out.p, c.out.len, &err), &err);
        }
        eng_type_free(c.t);
    }
    prop_free(&c);
}

TEST(test_concatenated_components_compare_component_by_component)
{
    /* Prefix-freeness: (a1 a2) vs (b1 b2) orders as a1 vs b1, then a2 vs b2. */
    uint64_t st = test_seed();
    prop_ctx c1 = {0}, c2 = {0};
    eng_buf ka = ENG_BUF_INIT, kb = ENG_BUF_INIT;
    for (int iter = 0; iter < 20000; iter++) {
        if (iter % 50 == 0) {
            eng_type_free(c1.t);
            eng_type_free(c2.t);
            c1.t = gen_type(&st, 1);
            c2.t = gen_type(&st, 1);
        }
        gen_pair(&st, &c1);
        gen_pair(&st, &c2);
        int d1 = (int)(test_rand(&st) % 2), d2 = (int)(test_rand(&st) % 2);
        eng_err err;
        eng_err_clear(&err);
        eng_buf_reset(&ka);
        eng_buf_reset(&kb);
        ASSERT_OK_ERR(eng_key_put(&ka, c1.t, c1.a.p, c1.a.len, d1, &err), &err);
        ASSERT_OK_ERR(eng_key_put(&ka, c2.t, c2.a.p, c2.a.len, d2, &err), &err);
        ASSERT_OK_ERR(eng_key_put(&kb, c1.t, c1.b.p, c1.b.len, d1, &err), &err);
        ASSERT_OK_ERR(eng_key_put(&kb, c2.t, c2.b.p, c2.b.len, d2, &err), &err);
        int w = sign(eng_type_compare(c1.t, c1.a.p, c1.a.len, c1.b.p, c1.b.len)) * (d1 ? -1 : 1);
        if (w == 0)
            w = sign(eng_type_compare(c2.t, c2.a.p, c2.a.len, c2.b.p, c2.b.len)) * (d2 ? -1 : 1);
        int got = lex_cmp(ka.p, ka.len, kb.p, kb.len);
        if (got != w)
            fail_pair(eng_type_compare(c1.t, c1.a.p, c1.a.len, c1.b.p, c1.b.len) ? &c1 : &c2,
                      "two-component order", got, w);
        /* And they decode back component by component. */
        const uint8_t *p = ka.p, *end = ka.p + ka.len;
        ASSERT_OK_ERR(eng_key_skip(c1.t, &p, end, d1, &err), &err);
        ASSERT_OK_ERR(eng_key_skip(c2.t, &p, end, d2, &err), &err);
        ASSERT(p == end);
    }
    eng_type_free(c1.t);
    eng_type_free(c2.t);
    prop_free(&c1);
    prop_free(&c2);
    eng_buf_free(&ka);
    eng_buf_free(&kb);
}

TEST(test_every_truncation_of_an_encoding_is_corrupt)
{
    uint64_t st = test_seed();
    prop_ctx c = {0};
    for (int iter = 0; iter < 3000; iter++) {
        c.t = gen_type(&st, 0);
        eng_buf_reset(&c.a);
        gen_value(&st, c.t, &c.a);
        int desc = (int)(test_rand(&st) % 2);
        enc_into(&c.ea, c.t, c.a.p, c.a.len, desc);
        for (size_t cut = 0; cut < c.ea.len; cut++) {
            /* An exact-size heap copy lets ASAN see any read past the end. */
            uint8_t *copy = malloc(cut ? cut : 1);
            ASSERT(copy != NULL);
            memcpy(copy, c.ea.p, cut);
            const uint8_t *p = copy;
            eng_err err;
            eng_err_clear(&err);
            eng_buf_reset(&c.out);
            ASSERT_EQ(eng_key_get(c.t, &p, copy + cut, desc, &c.out, &err), ENG_E_CORRUPT);
            ASSERT(p == copy);
            ASSERT_EQ(c.out.len, 0);
            eng_err_clear(&err);
            ASSERT_EQ(eng_key_skip(c.t, &p, copy + cut, desc, &err), ENG_E_CORRUPT);
            free(copy);
        }
        eng_type_free(c.t);
    }
    prop_free(&c);
}

TEST(test_random_garbage_decodes_only_as_canonical_encodings)
{
    /* Any bytes either fail as ENG_E_CORRUPT or are exactly an encoding we would write. */
    uint64_t st = test_seed();
    prop_ctx c = {0};
    for (int iter = 0; iter < 20000; iter++) {
        if (iter % 20 == 0) {
            eng_type_free(c.t);
            c.t = gen_type(&st, 0);
        }
        size_t n = test_rand(&st) % 40;
        uint8_t *g = malloc(n ? n : 1);
        ASSERT(g != NULL);
        /* Start from a real encoding now and then, then damage it. */
        eng_buf_reset(&c.a);
        gen_value(&st, c.t, &c.a);
        int desc = (int)(test_rand(&st) % 2);
        enc_into(&c.ea, c.t, c.a.p, c.a.len, desc);
        for (size_t i = 0; i < n; i++)
            g[i] = i < c.ea.len && test_rand(&st) % 8 ? c.ea.p[i] : pool_byte(&st);
        const uint8_t *p = g;
        eng_err err;
        eng_err_clear(&err);
        eng_buf_reset(&c.out);
        int rc = eng_key_get(c.t, &p, g + n, desc, &c.out, &err);
        if (rc) {
            ASSERT_EQ(rc, ENG_E_CORRUPT);
        } else {
            size_t used = (size_t)(p - g);
            enc_into(&c.eb, c.t, c.out.p, c.out.len, desc);
            ASSERT_EQ(c.eb.len, used);
            ASSERT_MEM_EQ(c.eb.p, g, used);
        }
        free(g);
    }
    eng_type_free(c.t);
    prop_free(&c);
}

TEST(test_allocation_failures_report_nomem_without_output)
{
    uint8_t dec[24];
    size_t dlen = unhex("00000003 0123456789abcdef0123456789abcdef01", dec);
    eng_type *t = eng_type_new_list(T(ENG_DECIMAL), 1);
    uint8_t v[64];
    eng_put_be32(v, 1);
    eng_put_be32(v + 4, (uint32_t)dlen);
    memcpy(v + 8, dec, dlen);
    size_t vlen = 8 + dlen;
    eng_buf ref = ENG_BUF_INIT;
    enc_into(&ref, t, v, vlen, 0);
    for (long n = 0; n < 50; n++) {
        eng_buf b = ENG_BUF_INIT, out = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        eng_alloc_fail_after(n);
        int rc = eng_key_put(&b, t, v, vlen, 0, &err);
        eng_alloc_fail_after(-1);
        if (rc) {
            ASSERT_EQ(rc, ENG_E_NOMEM);
            ASSERT_EQ(b.len, 0);
        } else {
            ASSERT_EQ(b.len, ref.len);
            ASSERT_MEM_EQ(b.p, ref.p, ref.len);
        }
        const uint8_t *p = ref.p;
        eng_err_clear(&err);
        eng_alloc_fail_after(n);
        rc = eng_key_get(t, &p, ref.p + ref.len, 0, &out, &err);
        eng_alloc_fail_after(-1);
        if (rc) {
            ASSERT_EQ(rc, ENG_E_NOMEM);
            ASSERT(p == ref.p);
        } else {
            ASSERT_EQ(out.len, vlen); /* odd unscaled value: already canonical */
            ASSERT_MEM_EQ(out.p, v, vlen);
        }
        eng_buf_free(&b);
        eng_buf_free(&out);
    }
    eng_buf_free(&ref);
    eng_type_free(t);
}
