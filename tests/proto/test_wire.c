/*
 * The protocol's notations ([PV4] §3, [PV5] §3): each item read from bytes
 * written as the spec lays them out, and every length checked before it is
 * trusted.
 */
#include "cql/proto/wire.h"
#include "harness.h"

static cql_proto_reader reader_of(const void *p, size_t n)
{
    cql_proto_reader r;
    cql_proto_reader_init(&r, p, n);
    return r;
}

TEST(fixed_width_items_are_big_endian)
{
    static const uint8_t in[] = {0x7F, 0x12, 0x34, 0xFF, 0xFF, 0xFF, 0xFE, 0x80,
                                 0,    0,    0,    0,    0,    0,    1};
    cql_proto_reader r = reader_of(in, sizeof in);
    ASSERT_EQ(cql_proto_get_byte(&r), 0x7F);
    ASSERT_EQ(cql_proto_get_short(&r), 0x1234);
    ASSERT_EQ(cql_proto_get_int(&r), -2);
    ASSERT_EQ(cql_proto_get_long(&r), (long long)(INT64_MIN + 1));
    ASSERT(r.bad == NULL);
    ASSERT_EQ(cql_proto_left(&r), 0);
}

TEST(a_short_is_unsigned)
{
    static const uint8_t in[] = {0xFF, 0xFF};
    cql_proto_reader r = reader_of(in, sizeof in);
    ASSERT_EQ(cql_proto_get_short(&r), 65535);
}

/* [PV5] §3: "256 000 will be encoded on 3 bytes as [110]00011 11101000 00000000". */
TEST(unsigned_vint_reads_the_spec_example)
{
    static const uint8_t in[] = {0xC3, 0xE8, 0x00};
    cql_proto_reader r = reader_of(in, sizeof in);
    ASSERT_EQ(cql_proto_get_uvint(&r), 256000);
    ASSERT(r.bad == NULL);
}

/* [PV5] §3: zig-zag: 0 = 0, -1 = 1, 1 = 2, -2 = 3, 2 = 4, -3 = 5, 3 = 6. */
TEST(signed_vint_is_zig_zag)
{
    static const uint8_t in[] = {0, 1, 2, 3, 4, 5, 6};
    static const int want[] = {0, -1, 1, -2, 2, -3, 3};
    cql_proto_reader r = reader_of(in, sizeof in);
    for (int i = 0; i < 7; i++)
        ASSERT_EQ(cql_proto_get_vint(&r), want[i]);
}

TEST(nine_byte_vint_holds_64_bits)
{
    static const uint8_t in[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    cql_proto_reader r = reader_of(in, sizeof in);
    ASSERT(cql_proto_get_uvint(&r) == UINT64_MAX);
    ASSERT(r.bad == NULL);
}

TEST(strings_are_views_of_their_length)
{
    static const uint8_t in[] = {0, 3, 'a', 'b', 'c', 0, 0, 0, 2, 'h', 'i'};
    cql_proto_reader r = reader_of(in, sizeof in);
    eng_val s = cql_proto_get_string(&r);
    ASSERT_EQ(s.len, 3);
    ASSERT_MEM_EQ(s.p, "abc", 3);
    eng_val l = cql_proto_get_long_string(&r);
    ASSERT_EQ(l.len, 2);
    ASSERT_MEM_EQ(l.p, "hi", 2);
    ASSERT(r.bad == NULL);
}

TEST(bytes_with_a_negative_length_are_null)
{
    static const uint8_t in[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0, 0, 0, 0};
    cql_proto_reader r = reader_of(in, sizeof in);
    ASSERT_EQ(cql_proto_get_bytes(&r).len, CQL_PROTO_VALUE_NULL);
    ASSERT_EQ(cql_proto_get_bytes(&r).len, CQL_PROTO_VALUE_NULL);
    eng_val empty = cql_proto_get_bytes(&r);
    ASSERT_EQ(empty.len, 0);
    ASSERT(empty.p != NULL);
    ASSERT(r.bad == NULL);
}

/* [PV5] §3 [value]: -1 null, -2 not set, "n < -2 is an invalid value and results in an error". */
TEST(value_lengths_below_minus_two_are_an_error)
{
    static const uint8_t ok[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE};
    cql_proto_reader r = reader_of(ok, sizeof ok);
    ASSERT_EQ(cql_proto_get_value(&r).len, CQL_PROTO_VALUE_NULL);
    ASSERT_EQ(cql_proto_get_value(&r).len, CQL_PROTO_VALUE_UNSET);
    ASSERT(r.bad == NULL);
    static const uint8_t bad[] = {0xFF, 0xFF, 0xFF, 0xFD};
    r = reader_of(bad, sizeof bad);
    cql_proto_get_value(&r);
    ASSERT(r.bad != NULL);
}

TEST(a_length_past_the_end_makes_the_reader_bad_and_reads_stop)
{
    static const uint8_t in[] = {0, 10, 'a', 'b', 0, 1};
    cql_proto_reader r = reader_of(in, sizeof in);
    eng_val s = cql_proto_get_string(&r);
    ASSERT(r.bad != NULL);
    ASSERT_EQ(s.len, 0);
    const char *first = r.bad;
    /* later reads return empty items and keep the first reason */
    ASSERT_EQ(cql_proto_get_short(&r), 0);
    ASSERT_EQ(cql_proto_get_string(&r).len, 0);
    ASSERT(r.bad == first);
    ASSERT_EQ(cql_proto_left(&r), 0);
}

TEST(a_huge_long_string_length_is_bad_not_a_read_past_the_end)
{
    static const uint8_t in[] = {0x7F, 0xFF, 0xFF, 0xFF, 'x'};
    cql_proto_reader r = reader_of(in, sizeof in);
    cql_proto_get_long_string(&r);
    ASSERT(r.bad != NULL);
    static const uint8_t neg[] = {0x80, 0, 0, 0};
    r = reader_of(neg, sizeof neg);
    cql_proto_get_long_string(&r);
    ASSERT(r.bad != NULL);
}

TEST(inet_reads_four_or_sixteen_bytes_and_a_port)
{
    static const uint8_t in[] = {4, 127, 0, 0, 1, 0, 0, 0x23, 0x52};
    cql_proto_reader r = reader_of(in, sizeof in);
    cql_proto_inet a;
    cql_proto_get_inet(&r, &a);
    ASSERT(r.bad == NULL);
    ASSERT_EQ(a.len, 4);
    ASSERT_MEM_EQ(a.addr, "\x7f\0\0\x01", 4);
    ASSERT_EQ(a.port, 9042);
    static const uint8_t odd[] = {5, 1, 2, 3, 4, 5, 0, 0, 0, 0};
    r = reader_of(odd, sizeof odd);
    cql_proto_get_inet(&r, &a);
    ASSERT(r.bad != NULL);
}

TEST(string_map_and_lookup)
{
    static const uint8_t in[] = {0,   2,   0,   11,  'C', 'Q', 'L', '_', 'V', 'E',
                                 'R', 'S', 'I', 'O', 'N', 0,   5,   '3', '.', '0',
                                 '.', '0', 0,   11,  'C', 'O', 'M', 'P', 'R', 'E',
                                 'S', 'S', 'I', 'O', 'N', 0,   3,   'l', 'z', '4'};
    cql_proto_reader r = reader_of(in, sizeof in);
    eng_arena a;
    eng_arena_init(&a, 256);
    cql_proto_map m;
    ASSERT_EQ(cql_proto_get_string_map(&r, &a, &m), 0);
    ASSERT(r.bad == NULL);
    ASSERT_EQ(m.n, 2);
    const eng_val *v = cql_proto_map_find(&m, "COMPRESSION");
    ASSERT(v != NULL);
    ASSERT_EQ(v->len, 3);
    ASSERT_MEM_EQ(v->p, "lz4", 3);
    ASSERT(cql_proto_map_find(&m, "NO_SUCH") == NULL);
    eng_arena_free(&a);
}

TEST(a_map_count_the_bytes_cannot_hold_is_bad_before_allocating)
{
    static const uint8_t in[] = {0xFF, 0xFF, 0, 0};
    cql_proto_reader r = reader_of(in, sizeof in);
    eng_arena a;
    eng_arena_init(&a, 256);
    cql_proto_map m;
    ASSERT_EQ(cql_proto_get_string_map(&r, &a, &m), 0);
    ASSERT(r.bad != NULL);
    ASSERT_EQ(m.n, 0);
    ASSERT_EQ(eng_arena_size(&a), 0); /* nothing allocated for the 65,535 entries */
    eng_arena_free(&a);
}

TEST(string_multimap_flattens_its_values)
{
    /* {"CQL_VERSION": ["3.4.5"], "COMPRESSION": ["lz4", "snappy"]} */
    eng_buf b = ENG_BUF_INIT;
    cql_proto_put_short(&b, 2);
    cql_proto_put_string(&b, "CQL_VERSION");
    cql_proto_put_short(&b, 1);
    cql_proto_put_string(&b, "3.4.5");
    cql_proto_put_string(&b, "COMPRESSION");
    static const char *const algos[] = {"lz4", "snappy"};
    cql_proto_put_string_list(&b, algos, 2);
    ASSERT(!b.oom);
    cql_proto_reader r = reader_of(b.p, b.len);
    eng_arena a;
    eng_arena_init(&a, 256);
    cql_proto_multimap m;
    ASSERT_EQ(cql_proto_get_string_multimap(&r, &a, &m), 0);
    ASSERT(r.bad == NULL);
    ASSERT_EQ(m.n, 2);
    ASSERT_EQ(m.n_vals[1], 2);
    eng_val snappy = m.vals[m.first[1] + 1];
    ASSERT_EQ(snappy.len, 6);
    ASSERT_MEM_EQ(snappy.p, "snappy", 6);
    eng_arena_free(&a);
    eng_buf_free(&b);
}

TEST(writers_lay_items_out_as_the_spec)
{
    eng_buf b = ENG_BUF_INIT;
    cql_proto_put_byte(&b, 1);
    cql_proto_put_short(&b, 0x0102);
    cql_proto_put_int(&b, -1);
    cql_proto_put_long(&b, 1);
    cql_proto_put_string(&b, "ok");
    cql_proto_put_bytes(&b, NULL, -1);
    cql_proto_put_bytes(&b, (const uint8_t *)"z", 1);
    cql_proto_put_short_bytes(&b, (const uint8_t *)"id", 2);
    static const uint8_t want[] = {1,    1, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0,   0,    0,    0,
                                   0,    0, 0, 1,    0,    2,    'o',  'k', 0xFF, 0xFF, 0xFF,
                                   0xFF, 0, 0, 0,    1,    'z',  0,    2,   'i',  'd'};
    ASSERT_EQ(b.len, sizeof want);
    ASSERT_MEM_EQ(b.p, want, sizeof want);
    eng_buf_free(&b);
}

TEST(a_string_too_long_for_its_length_fails_the_buffer)
{
    size_t n = 70000;
    uint8_t *big = calloc(1, n);
    eng_buf b = ENG_BUF_INIT;
    cql_proto_put_string_n(&b, big, n);
    ASSERT(b.oom);
    ASSERT_EQ(b.len, 0);
    eng_buf_free(&b);
    free(big);
}
