/*
 * v5 segments ([PV5] §2). The expected bytes come from the DataStax Python
 * driver's own codec (cassandra/segment.py, SegmentCodec.encode), not from
 * this one: a CRC that agrees with it agrees with the drivers.
 */
#include "cql/proto/segment.h"
#include "harness.h"

/* "hello" as one self-contained segment: header 05 00 02, CRC24 19 99 9a, payload, CRC32. */
TEST(a_small_frame_is_one_self_contained_segment)
{
    static const uint8_t want[] = {0x05, 0x00, 0x02, 0x19, 0x99, 0x9a, 'h', 'e',
                                   'l',  'l',  'o',  0x74, 0x80, 0x0e, 0xb6};
    eng_buf b = ENG_BUF_INIT;
    ASSERT_EQ(cql_proto_segments_put(&b, (const uint8_t *)"hello", 5, 0), 0);
    ASSERT_EQ(b.len, sizeof want);
    ASSERT_MEM_EQ(b.p, want, sizeof want);
    eng_buf_free(&b);
}

TEST(crc24_and_crc32_agree_with_the_python_driver)
{
    /* an empty header, not self-contained: 00 00 00 then 77 e7 7d */
    ASSERT_EQ(cql_proto_crc24(0, 3), 0x7de777);
    /* an LZ4 header: payload 100, uncompressed 300, self-contained */
    uint64_t h = 100 | (uint64_t)300 << 17 | (uint64_t)1 << 34;
    ASSERT_EQ(cql_proto_crc24(h, 5), 0xb91e80);
    ASSERT_EQ(cql_proto_crc32((const uint8_t *)"", 0), 0x44777ed3);
    ASSERT_EQ(cql_proto_crc32((const uint8_t *)"hello", 5), 0xb60e8074);
}

/* 153,600 bytes: a segment of 131,071 bytes then one of 22,529, neither self-contained. */
TEST(a_large_frame_is_cut_into_segments_that_are_not_self_contained)
{
    size_t n = 153600;
    uint8_t *msg = malloc(n);
    for (size_t i = 0; i < n; i++)
        msg[i] = (uint8_t)i;
    eng_buf b = ENG_BUF_INIT;
    ASSERT_EQ(cql_proto_segments_put(&b, msg, n, 0), 0);
    ASSERT_EQ(b.len, 153620);
    ASSERT_MEM_EQ(b.p, "\xff\xff\x01\x38\x91\xfe", 6);
    ASSERT_MEM_EQ(b.p + 6 + 131071 + 4, "\x01\x58\x00\x2f\x2e\xa4", 6);
    ASSERT_MEM_EQ(b.p + b.len - 4, "\xed\x81\x0a\xda", 4);

    /* and reads back, segment by segment */
    eng_buf back = ENG_BUF_INIT;
    eng_err err;
    size_t at = 0;
    int segments = 0;
    while (at < b.len) {
        cql_proto_segment_header h;
        eng_err_clear(&err);
        ASSERT_OK_ERR(cql_proto_segment_header_decode(b.p + at, 0, &h, &err), &err);
        ASSERT_EQ(h.self_contained, 0);
        at += cql_proto_segment_header_len(0);
        ASSERT_OK_ERR(cql_proto_segment_payload_decode(b.p + at, &h, 0, &back, &err), &err);
        at += h.payload_len + CQL_PROTO_SEGMENT_CRC_LEN;
        segments++;
    }
    ASSERT_EQ(segments, 2);
    ASSERT_EQ(back.len, n);
    ASSERT_MEM_EQ(back.p, msg, n);
    eng_buf_free(&back);
    eng_buf_free(&b);
    free(msg);
}

static void lz4_round_trip(const uint8_t *p, size_t n, int expect_compressed)
{
    eng_buf b = ENG_BUF_INIT, back = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(cql_proto_segment_put(&b, p, n, 1, 1), 0);
    cql_proto_segment_header h;
    ASSERT_OK_ERR(cql_proto_segment_header_decode(b.p, 1, &h, &err), &err);
    ASSERT_EQ(h.self_contained, 1);
    ASSERT_EQ(h.uncompressed_len, expect_compressed ? n : 0);
    ASSERT_EQ(b.len, 8 + h.payload_len + 4);
    ASSERT_OK_ERR(cql_proto_segment_payload_decode(b.p + 8, &h, 1, &back, &err), &err);
    ASSERT_EQ(back.len, n);
    if (n)
        ASSERT_MEM_EQ(back.p, p, n);
    eng_buf_free(&b);
    eng_buf_free(&back);
}

/* With LZ4 a payload goes compressed only when that makes it smaller (uncompressed length
   0 in the header otherwise), as Cassandra's and the drivers' encoders do. */
TEST(lz4_segments_compress_only_when_it_pays)
{
    uint8_t text[4000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (uint8_t)("chat room message "[i % 18]);
    lz4_round_trip(text, sizeof text, 1);
    static const uint8_t noise[] = {0x91, 0x3c, 0x07, 0xee, 0x52};
    lz4_round_trip(noise, sizeof noise, 0);
    lz4_round_trip(noise, 0, 0);
}

TEST(a_damaged_header_or_payload_fails_its_crc)
{
    eng_buf b = ENG_BUF_INIT, back = ENG_BUF_INIT;
    eng_err err;
    ASSERT_EQ(cql_proto_segments_put(&b, (const uint8_t *)"hello", 5, 0), 0);
    cql_proto_segment_header h;
    for (size_t i = 0; i < b.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            b.p[i] ^= (uint8_t)(1 << bit);
            eng_err_clear(&err);
            eng_buf_reset(&back);
            int rc = cql_proto_segment_header_decode(b.p, 0, &h, &err);
            if (rc == 0 && h.payload_len == 5)
                rc = cql_proto_segment_payload_decode(b.p + 6, &h, 0, &back, &err);
            /* a flipped self-contained bit is the one change the header CRC must catch too */
            ASSERT_EQ(rc, ENG_E_PROTOCOL);
            b.p[i] ^= (uint8_t)(1 << bit);
        }
    }
    eng_buf_free(&b);
    eng_buf_free(&back);
}

TEST(an_lz4_payload_that_does_not_expand_to_its_length_is_refused)
{
    eng_buf b = ENG_BUF_INIT, back = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    uint8_t text[1000];
    memset(text, 'a', sizeof text);
    ASSERT_EQ(cql_proto_segment_put(&b, text, sizeof text, 1, 1), 0);
    cql_proto_segment_header h;
    ASSERT_OK_ERR(cql_proto_segment_header_decode(b.p, 1, &h, &err), &err);
    h.uncompressed_len = 2000; /* a header that lies, with a valid CRC */
    ASSERT_EQ(cql_proto_segment_payload_decode(b.p + 8, &h, 1, &back, &err), ENG_E_PROTOCOL);
    eng_buf_free(&b);
    eng_buf_free(&back);
}
