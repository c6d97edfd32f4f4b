/* Buffers, vints (facts §2.4 vectors), arenas and the error carrier. */
#include "engine/value/common.h"
#include "harness.h"

static void check_uvint(uint64_t v, const char *hex)
{
    eng_buf b = ENG_BUF_INIT;
    eng_buf_put_uvint(&b, v);
    char got[64] = {0};
    for (size_t i = 0; i < b.len; i++)
        sprintf(got + 2 * i, "%02x", b.p[i]);
    ASSERT_STR_EQ(got, hex);
    uint64_t back = 0;
    ASSERT_EQ(eng_get_uvint(b.p, b.len, &back), b.len);
    ASSERT(back == v);
    eng_buf_free(&b);
}

TEST(test_uvint_matches_protocol_v5_vectors)
{
    check_uvint(0, "00");
    check_uvint(1, "01");
    check_uvint(127, "7f");
    check_uvint(128, "8080");
    check_uvint(16383, "bfff");
    check_uvint(16384, "c04000");
    check_uvint(256000, "c3e800");
    check_uvint(UINT64_MAX, "ffffffffffffffffff");
}

TEST(test_vint_round_trips_signed_values)
{
    int64_t vals[] = {0, 1, -1, 63, -64, 64, 1000000007, INT64_MIN, INT64_MAX};
    for (size_t i = 0; i < ENG_ARRAY_LEN(vals); i++) {
        eng_buf b = ENG_BUF_INIT;
        eng_buf_put_vint(&b, vals[i]);
        int64_t back = 0;
        ASSERT_EQ(eng_get_vint(b.p, b.len, &back), b.len);
        ASSERT(back == vals[i]);
        ASSERT_EQ(eng_get_vint(b.p, b.len - 1, &back), 0); /* truncated input */
        eng_buf_free(&b);
    }
}

TEST(test_buf_oom_turns_appends_into_noops)
{
    eng_buf b = ENG_BUF_INIT;
    eng_alloc_fail_after(0);
    eng_buf_put_str(&b, "hello");
    ASSERT(b.oom);
    eng_buf_put_str(&b, "world");
    ASSERT_EQ(b.len, 0);
    ASSERT(eng_buf_cstr(&b) == NULL);
    eng_buf_free(&b);
}

/* A view into a buffer nothing was written to is empty, never NULL + offset (undefined in C):
   renderers take views of empty items from scratch buffers (fuzz_bind's first find). */
TEST(test_buf_view_of_unwritten_buffer_is_empty_not_null)
{
    eng_buf b = ENG_BUF_INIT;
    ASSERT(eng_buf_at(&b, 0) != NULL);
    eng_buf_put(&b, "ab", 2);
    ASSERT(eng_buf_at(&b, 1) == b.p + 1);
    eng_buf_free(&b);
}

TEST(test_first_error_wins)
{
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(eng_errorf(&err, ENG_E_INVALID, "first %d", 1), ENG_E_INVALID);
    ASSERT_EQ(eng_errorf(&err, ENG_E_SYNTAX, "second"), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "first 1");
    ASSERT_EQ(eng_err_protocol_code(ENG_E_CORRUPT), 0);
    ASSERT_EQ(eng_err_protocol_code(ENG_E_INVALID), 0x2200);
}

TEST(test_arena_reset_keeps_memory_usable)
{
    eng_arena a;
    eng_arena_init(&a, 64);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 100; i++) {
            uint8_t *p = eng_arena_alloc(&a, (size_t)i + 1);
            ASSERT(p);
            ASSERT_EQ(((uintptr_t)p) % 16, 0);
            memset(p, i, (size_t)i + 1);
        }
        eng_arena_reset(&a);
    }
    eng_arena_free(&a);
}
