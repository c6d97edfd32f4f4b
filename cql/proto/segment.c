/*
 * v5 segments: CRC24-protected headers, CRC32-protected payloads, LZ4
 * (segment.h).
 */
#include "cql/proto/segment.h"

#include <lz4.h>
#include <string.h>
#include <zlib.h>

#define CRC24_INIT 0x875060u
#define CRC24_POLY 0x1974F0Bu
#define SELF_CONTAINED_PLAIN 17
#define SELF_CONTAINED_LZ4 34

uint32_t cql_proto_crc24(uint64_t v, int n)
{
    uint32_t crc = CRC24_INIT;
    for (int i = 0; i < n; i++) {
        crc ^= (uint32_t)(v & 0xFF) << 16;
        v >>= 8;
        for (int bit = 0; bit < 8; bit++) {
            crc <<= 1;
            if (crc & 0x1000000u)
                crc ^= CRC24_POLY;
        }
    }
    return crc & 0xFFFFFFu;
}

uint32_t cql_proto_crc32(const uint8_t *p, size_t n)
{
    static const uint8_t prime[4] = {0xFA, 0x2D, 0x55, 0xCA};
    uLong crc = crc32(0L, prime, sizeof prime);
    /* zlib takes lengths as uInt: feed a long payload in pieces */
    while (n > 0) {
        uInt piece = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = crc32(crc, p, piece);
        p += piece;
        n -= piece;
    }
    return (uint32_t)crc;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Writes a header and its CRC24 at p (cql_proto_segment_header_len(lz4) bytes). */
static void put_header(uint8_t *p, uint32_t payload_len, uint32_t uncompressed_len,
                       int self_contained, int lz4)
{
    uint64_t h = payload_len;
    int n = 3;
    if (lz4) {
        h |= (uint64_t)uncompressed_len << 17;
        h |= (uint64_t)(self_contained ? 1 : 0) << SELF_CONTAINED_LZ4;
        n = 5;
    } else {
        h |= (uint64_t)(self_contained ? 1 : 0) << SELF_CONTAINED_PLAIN;
    }
    put_le(p, h, n);
    put_le(p + n, cql_proto_crc24(h, n), 3);
}

int cql_proto_segment_put(eng_buf *out, const uint8_t *p, size_t n, int self_contained, int lz4)
{
    if (n > CQL_PROTO_SEGMENT_MAX_PAYLOAD)
        return ENG_E_NOMEM;
    size_t hlen = cql_proto_segment_header_len(lz4);
    int bound = lz4 ? LZ4_compressBound((int)n) : 0;
    size_t room = hlen + (n > (size_t)bound ? n : (size_t)bound) + CQL_PROTO_SEGMENT_CRC_LEN;
    if (eng_buf_reserve(out, room))
        return ENG_E_NOMEM;
    uint8_t *seg = out->p + out->len;
    uint8_t *payload = seg + hlen;
    size_t sent = n;
    uint32_t uncompressed = 0;
    if (lz4 && n > 0) {
        int w = LZ4_compress_default((const char *)p, (char *)payload, (int)n, bound);
        /* Sent compressed only when that makes it smaller, as Cassandra does. */
        if (w > 0 && (size_t)w < n) {
            sent = (size_t)w;
            uncompressed = (uint32_t)n;
        }
    }
    if (!uncompressed && n > 0)
        memcpy(payload, p, n);
    put_header(seg, (uint32_t)sent, uncompressed, self_contained, lz4);
    put_le(payload + sent, cql_proto_crc32(payload, sent), 4);
    out->len += hlen + sent + CQL_PROTO_SEGMENT_CRC_LEN;
    return 0;
}

int cql_proto_segments_put(eng_buf *out, const uint8_t *p, size_t n, int lz4)
{
    if (n <= CQL_PROTO_SEGMENT_MAX_PAYLOAD)
        return cql_proto_segment_put(out, p, n, 1, lz4);
    for (size_t off = 0; off < n; off += CQL_PROTO_SEGMENT_MAX_PAYLOAD) {
        size_t piece =
            n - off < CQL_PROTO_SEGMENT_MAX_PAYLOAD ? n - off : CQL_PROTO_SEGMENT_MAX_PAYLOAD;
        int rc = cql_proto_segment_put(out, p + off, piece, 0, lz4);
        if (rc)
            return rc;
    }
    return 0;
}

int cql_proto_segment_header_decode(const uint8_t *p, int lz4, cql_proto_segment_header *out,
                                    eng_err *err)
{
    int n = lz4 ? 5 : 3;
    uint64_t h = get_le(p, n);
    uint32_t want = (uint32_t)get_le(p + n, 3);
    uint32_t got = cql_proto_crc24(h, n);
    if (want != got)
        return eng_errorf(err, ENG_E_PROTOCOL,
                          "CRC mismatch on segment header: received %06x, computed %06x", want,
                          got);
    out->payload_len = (uint32_t)(h & CQL_PROTO_SEGMENT_MAX_PAYLOAD);
    out->uncompressed_len = lz4 ? (uint32_t)(h >> 17 & CQL_PROTO_SEGMENT_MAX_PAYLOAD) : 0;
    out->self_contained = (int)(h >> (lz4 ? SELF_CONTAINED_LZ4 : SELF_CONTAINED_PLAIN) & 1);
    return 0;
}

int cql_proto_segment_payload_decode(const uint8_t *p, const cql_proto_segment_header *h, int lz4,
                                     eng_buf *out, eng_err *err)
{
    uint32_t want = (uint32_t)get_le(p + h->payload_len, 4);
    uint32_t got = cql_proto_crc32(p, h->payload_len);
    if (want != got)
        return eng_errorf(err, ENG_E_PROTOCOL,
                          "CRC mismatch on segment payload: received %08x, computed %08x", want,
                          got);
    if (!lz4 || h->uncompressed_len == 0) {
        eng_buf_put(out, p, h->payload_len);
        return out->oom ? ENG_E_NOMEM : 0;
    }
    if (eng_buf_reserve(out, h->uncompressed_len))
        return ENG_E_NOMEM;
    int w = LZ4_decompress_safe((const char *)p, (char *)out->p + out->len, (int)h->payload_len,
                                (int)h->uncompressed_len);
    if (w != (int)h->uncompressed_len)
        return eng_errorf(err, ENG_E_PROTOCOL,
                          "Error decompressing a segment: its LZ4 payload does not expand to "
                          "the %u bytes its header states",
                          h->uncompressed_len);
    out->len += (size_t)w;
    return 0;
}
