/*
 * Frame headers ([PV4] §2, [PV5] §2), the version rule of Cassandra's
 * ProtocolVersion.decode, and the v3/v4 body compression of [PV4] §5.
 */
#include "cql/proto/frame.h"
#include "harness.h"

/* A v4 QUERY request on stream 1 with a 16-byte body: 0x04 0x00 0x0001 0x07 0x00000010. */
TEST(header_of_a_v4_request_is_nine_bytes_as_the_spec_draws_them)
{
    cql_proto_header h = {.version = 4,
                          .response = 0,
                          .flags = 0,
                          .stream = 1,
                          .opcode = CQL_PROTO_QUERY,
                          .length = 16};
    uint8_t out[CQL_PROTO_HEADER_LEN];
    cql_proto_header_encode(&h, out);
    static const uint8_t want[] = {0x04, 0x00, 0x00, 0x01, 0x07, 0x00, 0x00, 0x00, 0x10};
    ASSERT_MEM_EQ(out, want, sizeof want);
}

/* The direction bit: 0x84 is a v4 response ([PV4] §2.1); events have stream -1. */
TEST(response_header_sets_the_direction_bit_and_events_use_stream_minus_one)
{
    static const uint8_t in[] = {0x84, 0x08, 0xFF, 0xFF, 0x0C, 0x00, 0x00, 0x01, 0x00};
    cql_proto_header h;
    cql_proto_header_decode(in, &h);
    ASSERT_EQ(h.version, 4);
    ASSERT_EQ(h.response, 1);
    ASSERT_EQ(h.flags, CQL_PROTO_FLAG_WARNING);
    ASSERT_EQ(h.stream, -1);
    ASSERT_EQ(h.opcode, CQL_PROTO_EVENT);
    ASSERT_EQ(h.length, 256);
    uint8_t back[CQL_PROTO_HEADER_LEN];
    cql_proto_header_encode(&h, back);
    ASSERT_MEM_EQ(back, in, sizeof in);
}

TEST(opcodes_have_their_spec_names_and_directions)
{
    ASSERT_STR_EQ(cql_proto_opcode_name(CQL_PROTO_AUTH_SUCCESS), "AUTH_SUCCESS");
    ASSERT_STR_EQ(cql_proto_opcode_name(0x0D), "BATCH");
    ASSERT(cql_proto_opcode_name(0x04) == NULL); /* "there is no 0x04 message" */
    ASSERT(cql_proto_opcode_name(0x11) == NULL);
    ASSERT(cql_proto_opcode_is_request(CQL_PROTO_STARTUP));
    ASSERT(cql_proto_opcode_is_request(CQL_PROTO_AUTH_RESPONSE));
    ASSERT(!cql_proto_opcode_is_request(CQL_PROTO_RESULT));
    ASSERT(!cql_proto_opcode_is_request(CQL_PROTO_EVENT));
}

TEST(supported_versions_pass_the_version_rule)
{
    eng_err err;
    uint8_t reply = 0;
    for (uint8_t v = 3; v <= 5; v++) {
        eng_err_clear(&err);
        ASSERT_EQ(cql_proto_version_check(v, &reply, &err), 0);
    }
}

/* An old version is answered in its own version (the driver parses it and downgrades), a
   newer one in the newest the server speaks; the message names the range. */
TEST(unsupported_versions_get_a_protocol_error_naming_the_range)
{
    eng_err err;
    uint8_t reply = 0;
    eng_err_clear(&err);
    ASSERT_EQ(cql_proto_version_check(2, &reply, &err), ENG_E_PROTOCOL);
    ASSERT_EQ(reply, 2);
    ASSERT_STR_EQ(err.msg, "Invalid or unsupported protocol version (2); supported versions "
                           "are (3/v3, 4/v4, 5/v5)");
    eng_err_clear(&err);
    ASSERT_EQ(cql_proto_version_check(6, &reply, &err), ENG_E_PROTOCOL);
    ASSERT_EQ(reply, 5);
    ASSERT_STR_EQ(err.msg, "Invalid or unsupported protocol version (6); supported versions "
                           "are (3/v3, 4/v4, 5/v5)");
    eng_err_clear(&err);
    ASSERT_EQ(cql_proto_version_check(0x7F, &reply, &err), ENG_E_PROTOCOL);
    ASSERT_EQ(reply, 5);
}

TEST(compression_names_are_case_insensitive)
{
    ASSERT_EQ(cql_proto_compression_by_name((const uint8_t *)"LZ4", 3), CQL_PROTO_COMPRESS_LZ4);
    ASSERT_EQ(cql_proto_compression_by_name((const uint8_t *)"snappy", 6),
              CQL_PROTO_COMPRESS_SNAPPY);
    ASSERT_EQ(cql_proto_compression_by_name((const uint8_t *)"zstd", 4), -1);
}

static void round_trip(cql_proto_compression c, const uint8_t *p, size_t n)
{
    eng_buf z = ENG_BUF_INIT, back = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(cql_proto_compress(c, p, n, &z), 0);
    ASSERT_OK_ERR(cql_proto_decompress(c, z.p, z.len, n, &back, &err), &err);
    ASSERT_EQ(back.len, n);
    if (n)
        ASSERT_MEM_EQ(back.p, p, n);
    eng_buf_free(&z);
    eng_buf_free(&back);
}

TEST(lz4_and_snappy_bodies_round_trip)
{
    uint8_t text[5000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (uint8_t)("select * from messages "[i % 23]);
    round_trip(CQL_PROTO_COMPRESS_LZ4, text, sizeof text);
    round_trip(CQL_PROTO_COMPRESS_SNAPPY, text, sizeof text);
    round_trip(CQL_PROTO_COMPRESS_LZ4, text, 1);
    round_trip(CQL_PROTO_COMPRESS_SNAPPY, text, 1);
}

/* [PV4] §5: an LZ4 body starts with the uncompressed length as a big-endian [int]. */
TEST(lz4_body_starts_with_its_uncompressed_length)
{
    static const uint8_t text[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    eng_buf z = ENG_BUF_INIT;
    ASSERT_EQ(cql_proto_compress(CQL_PROTO_COMPRESS_LZ4, text, 40, &z), 0);
    ASSERT(z.len >= 4);
    ASSERT_EQ(eng_be32(z.p), 40);
    eng_buf_free(&z);
}

TEST(a_body_that_would_decompress_past_the_limit_is_refused)
{
    uint8_t zeros[10000] = {0};
    eng_buf z = ENG_BUF_INIT, back = ENG_BUF_INIT;
    eng_err err;
    for (int c = CQL_PROTO_COMPRESS_LZ4; c <= CQL_PROTO_COMPRESS_SNAPPY; c++) {
        eng_buf_reset(&z);
        eng_buf_reset(&back);
        eng_err_clear(&err);
        ASSERT_EQ(cql_proto_compress((cql_proto_compression)c, zeros, sizeof zeros, &z), 0);
        ASSERT_EQ(cql_proto_decompress((cql_proto_compression)c, z.p, z.len, 9999, &back, &err),
                  ENG_E_PROTOCOL);
        ASSERT_EQ(back.len, 0);
    }
    eng_buf_free(&z);
    eng_buf_free(&back);
}

TEST(garbage_compressed_bodies_are_protocol_errors)
{
    static const uint8_t lz4_lies[] = {0, 0, 0, 100, 0xFF, 0xFF, 0xFF};
    static const uint8_t snappy_lies[] = {0x64, 0xFF, 0xFF, 0xFF};
    eng_buf back = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(
        cql_proto_decompress(CQL_PROTO_COMPRESS_LZ4, lz4_lies, sizeof lz4_lies, 1000, &back, &err),
        ENG_E_PROTOCOL);
    eng_err_clear(&err);
    ASSERT_EQ(cql_proto_decompress(CQL_PROTO_COMPRESS_LZ4, lz4_lies, 2, 1000, &back, &err),
              ENG_E_PROTOCOL);
    eng_err_clear(&err);
    ASSERT_EQ(cql_proto_decompress(CQL_PROTO_COMPRESS_SNAPPY, snappy_lies, sizeof snappy_lies, 1000,
                                   &back, &err),
              ENG_E_PROTOCOL);
    eng_buf_free(&back);
}
