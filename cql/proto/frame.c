/*
 * Frame headers, the version rule and v3/v4 body compression (frame.h).
 */
#include "cql/proto/frame.h"

#include <lz4.h>
#include <snappy-c.h>
#include <stdio.h>
#include <strings.h>

void cql_proto_header_encode(const cql_proto_header *h, uint8_t out[CQL_PROTO_HEADER_LEN])
{
    out[0] = (uint8_t)(h->version | (h->response ? CQL_PROTO_RESPONSE_BIT : 0));
    out[1] = h->flags;
    out[2] = (uint8_t)((uint16_t)h->stream >> 8);
    out[3] = (uint8_t)h->stream;
    out[4] = h->opcode;
    eng_put_be32(out + 5, h->length);
}

void cql_proto_header_decode(const uint8_t in[CQL_PROTO_HEADER_LEN], cql_proto_header *out)
{
    out->version = in[0] & (uint8_t)~CQL_PROTO_RESPONSE_BIT;
    out->response = (in[0] & CQL_PROTO_RESPONSE_BIT) != 0;
    out->flags = in[1];
    out->stream = (int16_t)eng_be16(in + 2);
    out->opcode = in[4];
    out->length = eng_be32(in + 5);
}

static const char *const opcode_names[] = {
    [CQL_PROTO_ERROR] = "ERROR",
    [CQL_PROTO_STARTUP] = "STARTUP",
    [CQL_PROTO_READY] = "READY",
    [CQL_PROTO_AUTHENTICATE] = "AUTHENTICATE",
    [CQL_PROTO_OPTIONS] = "OPTIONS",
    [CQL_PROTO_SUPPORTED] = "SUPPORTED",
    [CQL_PROTO_QUERY] = "QUERY",
    [CQL_PROTO_RESULT] = "RESULT",
    [CQL_PROTO_PREPARE] = "PREPARE",
    [CQL_PROTO_EXECUTE] = "EXECUTE",
    [CQL_PROTO_REGISTER] = "REGISTER",
    [CQL_PROTO_EVENT] = "EVENT",
    [CQL_PROTO_BATCH] = "BATCH",
    [CQL_PROTO_AUTH_CHALLENGE] = "AUTH_CHALLENGE",
    [CQL_PROTO_AUTH_RESPONSE] = "AUTH_RESPONSE",
    [CQL_PROTO_AUTH_SUCCESS] = "AUTH_SUCCESS",
};

const char *cql_proto_opcode_name(uint8_t opcode)
{
    return opcode < sizeof opcode_names / sizeof *opcode_names ? opcode_names[opcode] : NULL;
}

int cql_proto_opcode_is_request(uint8_t opcode)
{
    switch (opcode) {
    case CQL_PROTO_STARTUP:
    case CQL_PROTO_OPTIONS:
    case CQL_PROTO_QUERY:
    case CQL_PROTO_PREPARE:
    case CQL_PROTO_EXECUTE:
    case CQL_PROTO_REGISTER:
    case CQL_PROTO_BATCH:
    case CQL_PROTO_AUTH_RESPONSE:
        return 1;
    default:
        return 0;
    }
}

const char *const cql_proto_version_names[CQL_PROTO_MAX_VERSION - CQL_PROTO_MIN_VERSION + 1] = {
    "3/v3",
    "4/v4",
    "5/v5",
};

int cql_proto_version_check(uint8_t version, uint8_t *reply_version, eng_err *err)
{
    if (version >= CQL_PROTO_MIN_VERSION && version <= CQL_PROTO_MAX_VERSION)
        return 0;
    /* Versions older than the range are answered in their own version, so the client can
       parse the error; anything else, newer or nonsense, in the newest this server speaks. */
    *reply_version =
        version >= 1 && version < CQL_PROTO_MIN_VERSION ? version : CQL_PROTO_MAX_VERSION;
    return eng_errorf(err, ENG_E_PROTOCOL,
                      "Invalid or unsupported protocol version (%d); supported versions are "
                      "(%s, %s, %s)",
                      version, cql_proto_version_names[0], cql_proto_version_names[1],
                      cql_proto_version_names[2]);
}

int cql_proto_compression_by_name(const uint8_t *name, size_t len)
{
    if (len == 3 && strncasecmp((const char *)name, "lz4", 3) == 0)
        return CQL_PROTO_COMPRESS_LZ4;
    if (len == 6 && strncasecmp((const char *)name, "snappy", 6) == 0)
        return CQL_PROTO_COMPRESS_SNAPPY;
    return -1;
}

int cql_proto_compress(cql_proto_compression c, const uint8_t *p, size_t n, eng_buf *out)
{
    if (c == CQL_PROTO_COMPRESS_NONE) {
        eng_buf_put(out, p, n);
        return out->oom ? ENG_E_NOMEM : 0;
    }
    if (n > (size_t)LZ4_MAX_INPUT_SIZE)
        return ENG_E_NOMEM;
    size_t bound = c == CQL_PROTO_COMPRESS_LZ4 ? 4 + (size_t)LZ4_compressBound((int)n)
                                               : snappy_max_compressed_length(n);
    if (eng_buf_reserve(out, bound))
        return ENG_E_NOMEM;
    uint8_t *dst = out->p + out->len;
    size_t written;
    if (c == CQL_PROTO_COMPRESS_LZ4) {
        eng_put_be32(dst, (uint32_t)n);
        int w = LZ4_compress_default((const char *)p, (char *)dst + 4, (int)n, (int)(bound - 4));
        if (w <= 0 && n > 0)
            return ENG_E_NOMEM;
        written = 4 + (size_t)w;
    } else {
        written = bound;
        if (snappy_compress((const char *)p, n, (char *)dst, &written) != SNAPPY_OK)
            return ENG_E_NOMEM;
    }
    out->len += written;
    return 0;
}

static int bad_body(eng_err *err, const char *what)
{
    return eng_errorf(err, ENG_E_PROTOCOL, "%s", what);
}

int cql_proto_decompress(cql_proto_compression c, const uint8_t *p, size_t n, size_t limit,
                         eng_buf *out, eng_err *err)
{
    size_t plain;
    if (c == CQL_PROTO_COMPRESS_NONE) {
        if (n > limit)
            return bad_body(err, "Frame body too large once decompressed");
        eng_buf_put(out, p, n);
        return out->oom ? ENG_E_NOMEM : 0;
    }
    if (c == CQL_PROTO_COMPRESS_LZ4) {
        if (n < 4)
            return bad_body(err, "Error decompressing lz4 frame body: truncated");
        plain = eng_be32(p);
        p += 4;
        n -= 4;
    } else if (snappy_uncompressed_length((const char *)p, n, &plain) != SNAPPY_OK) {
        return bad_body(err, "Error decompressing snappy frame body: corrupted input");
    }
    if (plain > limit || plain > (size_t)INT32_MAX)
        return bad_body(err, "Frame body too large once decompressed");
    if (plain == 0)
        return 0;
    if (eng_buf_reserve(out, plain))
        return ENG_E_NOMEM;
    char *dst = (char *)out->p + out->len;
    if (c == CQL_PROTO_COMPRESS_LZ4) {
        if (n > (size_t)INT32_MAX ||
            LZ4_decompress_safe((const char *)p, dst, (int)n, (int)plain) != (int)plain)
            return bad_body(err, "Error decompressing lz4 frame body: corrupted input");
    } else {
        size_t got = plain;
        if (snappy_uncompress((const char *)p, n, dst, &got) != SNAPPY_OK || got != plain)
            return bad_body(err, "Error decompressing snappy frame body: corrupted input");
    }
    out->len += plain;
    return 0;
}
