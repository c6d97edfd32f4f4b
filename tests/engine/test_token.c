/*
 * Murmur3Partitioner tokens: every vector of facts §1.6 (V1-V24), the
 * empty-key and MIN->MAX rules of §1.4, and the composite key layout of §1.5.
 */
#include "harness.h"
#include "engine/value/token.h"

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
    }
    return n;
}

static int64_t token_hex(const char *hex)
{
    uint8_t buf[256];
    size_t n = unhex(hex, buf);
    return eng_token(buf, n);
}

static int64_t token_str(const char *s)
{
    return eng_token((const uint8_t *)s, strlen(s));
}

TEST(test_token_python_driver_vectors_v1_to_v5)
{
    ASSERT(token_str("123") == -7468325962851647638LL);
    uint8_t b[50];
    for (int i = 0; i < 10; i++)
        memcpy(b + 5 * i, "\x00\xff\x10\xfa\x99", 5);
    ASSERT(eng_token(b, 50) == 5837342703291459765LL);
    memset(b, 0xfe, 8);
    ASSERT(eng_token(b, 8) == -8927430733708461935LL);
    memset(b, 0x10, 8);
    ASSERT(eng_token(b, 8) == 1446172840243228796LL);
    ASSERT(token_str("9223372036854775807") == 7162290910810015547LL);
}

TEST(test_token_gocql_vectors_v6_to_v9)
{
    ASSERT(token_str("hello") == -3758069500696749310LL);
    ASSERT((uint64_t)token_str("hello") == 0xcbd8a7b341bd9b02ULL);
    ASSERT(token_str("hello, world") == 3760413751763713166LL);
    ASSERT((uint64_t)token_str("19 Jan 2038 at 3:14:07 AM") == 0xb89e5988b737affcULL);
    ASSERT(token_str("The quick brown fox jumps over the lazy dog.") == -3631792323850337591LL);
}

/* V10 lists raw h1 values for every tail length 1..19. */
TEST(test_murmur3_h1_every_tail_length_v10)
{
    static const uint64_t want[19] = {
        0x2ac9debed546a380ULL, 0x649e4eaa7fc1708eULL, 0xce68f60d7c353bdbULL, 0x0f95757ce7f38254ULL,
        0x0f04e459497f3fc1ULL, 0x88c0a92586be0a27ULL, 0x13eb9fb82606f7a6ULL, 0x8236039b7387354dULL,
        0x4c1e87519fe738baULL, 0x3f9652ac3effeb24ULL, 0x3f33760ded9006c6ULL, 0xaed70a6631854cb1ULL,
        0x8a299a8f8e0e2da7ULL, 0x624b675c779249a6ULL, 0xa4b203bb1d90b9a3ULL, 0xa3293ad698ecb99aULL,
        0xbc740023dbd50048ULL, 0x3fe5ab9837d25cddULL, 0x2d0338c1ca87d132ULL,
    };
    const char *digits = "0123456789012345678";
    for (size_t n = 1; n <= 19; n++) {
        uint64_t h[2];
        eng_murmur3_x64_128((const uint8_t *)digits, n, 0, h);
        if (h[0] != want[n - 1])
            test_fail(__FILE__, __LINE__, "len %zu: got %016" PRIx64 " want %016" PRIx64, n, h[0],
                      want[n - 1]);
    }
}

TEST(test_token_sign_quirk_composite_v11)
{
    ASSERT(token_hex("00104327529fb645dd00b883ec39ae448bb800000400066a6b00") ==
           -9223371632693506265LL);
}

TEST(test_token_long_key_v12)
{
    uint8_t b[1024];
    for (int i = 0; i < 1024; i++)
        b[i] = (uint8_t)i;
    ASSERT(eng_token(b, sizeof b) == 7627370222079200297LL);
}

TEST(test_token_int_keys_1_to_20_v13_v14)
{
    static const int64_t want[20] = {
        -4069959284402364209LL, -3248873570005575792LL, 9010454139840013625LL,
        -2729420104000364805LL, -7509452495886106294LL, 2705480034054113608LL,
        1634052884888577606LL,  -3799847372828181882LL, 3728482343045213994LL,
        -6715243485458697746LL, -4156302194539278891LL, 8582886034424406875LL,
        -5034495173465742853LL, 4279681877540623768LL,  -1191135763843456182LL,
        -5477287129830487822LL, 5467144456125416399LL,  -2695747960476065067LL,
        -3974532302236993209LL, 1388667306199997068LL,
    };
    for (uint32_t k = 1; k <= 20; k++) {
        uint8_t b[4];
        eng_put_be32(b, k);
        ASSERT(eng_token(b, 4) == want[k - 1]);
    }
}

TEST(test_token_scalar_vectors_v15_to_v19)
{
    ASSERT(token_hex("00000000") == -3485513579396041028LL);
    ASSERT(token_hex("ffffffff") == 7297452126230313552LL);
    ASSERT(token_hex("0000002a") == -7160136740246525330LL);
    ASSERT(token_hex("0000007f") == 4443639997907684431LL);
    ASSERT(token_hex("0000000000000001") == 6292367497774912474LL);
    ASSERT(token_hex("0000000000000000") == 2945182322382062539LL);
    ASSERT(token_hex("61") == -8839064797231613815LL);
    ASSERT(token_hex("80") == -5284281814142962636LL);
}

TEST(test_token_min_hash_normalized_to_max_v20)
{
    uint8_t b[16];
    size_t n = unhex("653cbefb85ec3111b4e38fa9bc7cbcae", b);
    uint64_t h[2];
    eng_murmur3_x64_128(b, n, 0, h);
    ASSERT(h[0] == (uint64_t)INT64_MIN);
    ASSERT(h[1] == 0);
    ASSERT(eng_token(b, n) == INT64_MAX);
}

TEST(test_token_composite_vectors_v21_to_v24)
{
    ASSERT(token_hex("0004000000010000040000000200") == 4881097376275569167LL);
    ASSERT(token_hex("0001610000016200") == 7470152180878494447LL);
    ASSERT(token_hex("0004000000010000016100") == 6516349416904725244LL);
    ASSERT(token_hex("00000000040000000100") == -1133987334835491201LL);
}

TEST(test_token_of_empty_key_is_min)
{
    ASSERT(eng_token((const uint8_t *)"", 0) == ENG_TOKEN_MIN);
}

TEST(test_composite_key_compose_matches_cassandra_layout)
{
    uint8_t one[4] = {0, 0, 0, 1}, two[4] = {0, 0, 0, 2};
    eng_val parts[2] = {{one, 4}, {two, 4}};
    eng_buf b = ENG_BUF_INIT;
    eng_partition_key_compose(&b, parts, 2);
    uint8_t want[14];
    unhex("0004000000010000040000000200", want);
    ASSERT_EQ(b.len, 14);
    ASSERT_MEM_EQ(b.p, want, 14);
    ASSERT(eng_token(b.p, b.len) == 4881097376275569167LL);

    /* (text '', int 1): an empty component is 0000 00 (facts §1.5, V24). */
    eng_buf_reset(&b);
    eng_val parts2[2] = {{(const uint8_t *)"", 0}, {one, 4}};
    eng_partition_key_compose(&b, parts2, 2);
    ASSERT(eng_token(b.p, b.len) == -1133987334835491201LL);

    /* A single component is its own bytes. */
    eng_buf_reset(&b);
    eng_partition_key_compose(&b, parts, 1);
    ASSERT_EQ(b.len, 4);
    ASSERT_MEM_EQ(b.p, one, 4);
    ASSERT(!b.oom);
    eng_buf_free(&b);
}

TEST(test_composite_key_split_round_trips)
{
    uint64_t st = test_seed();
    eng_buf b = ENG_BUF_INIT;
    for (int iter = 0; iter < 2000; iter++) {
        int n = 1 + (int)(test_rand(&st) % 5);
        uint8_t data[5][40];
        eng_val in[5], out[5];
        for (int i = 0; i < n; i++) {
            int len = (int)(test_rand(&st) % 41);
            for (int j = 0; j < len; j++)
                data[i][j] = (uint8_t)test_rand(&st);
            in[i].p = data[i];
            in[i].len = len;
        }
        eng_buf_reset(&b);
        eng_partition_key_compose(&b, in, n);
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_partition_key_split(b.p, b.len, out, n, &err), &err);
        for (int i = 0; i < n; i++) {
            ASSERT_EQ(out[i].len, in[i].len);
            ASSERT_MEM_EQ(out[i].p, in[i].p, (size_t)in[i].len);
        }
    }
    eng_buf_free(&b);
}

static int split_hex(const char *hex, int n)
{
    uint8_t buf[64];
    size_t len = unhex(hex, buf);
    eng_val parts[4];
    eng_err err;
    eng_err_clear(&err);
    int rc = eng_partition_key_split(buf, len, parts, n, &err);
    if (rc)
        ASSERT_EQ(err.code, rc);
    return rc;
}

TEST(test_composite_key_split_rejects_malformed_bytes)
{
    ASSERT_EQ(split_hex("0004000000010000040000000200", 2), 0);
    /* Every truncation of a valid composite. */
    const char *full = "0004000000010000040000000200";
    for (size_t cut = 0; cut < strlen(full); cut += 2) {
        char h[64];
        memcpy(h, full, cut);
        h[cut] = 0;
        ASSERT_EQ(split_hex(h, 2), ENG_E_CORRUPT);
    }
    ASSERT_EQ(split_hex("0004000000010100040000000200", 2), ENG_E_CORRUPT);   /* bad EOC byte */
    ASSERT_EQ(split_hex("000400000001000004000000020000", 2), ENG_E_CORRUPT); /* trailing byte */
    ASSERT_EQ(split_hex("0004000000010000040000000200", 3), ENG_E_CORRUPT);   /* too few parts */
    ASSERT_EQ(split_hex("ffff00", 2), ENG_E_CORRUPT); /* length past the end */
    ASSERT_EQ(split_hex("00", 2), ENG_E_CORRUPT);
}
