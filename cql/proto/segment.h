/*
 * v5 framing ([PV5] §2): once a v5 connection is ready, frames travel in
 * segments. A segment is a header -- the payload's length, with LZ4 its
 * uncompressed length too, and whether it is self-contained -- protected by
 * a CRC24, then the payload, protected by a CRC32:
 *
 *   plain:  3 bytes LE { bits 0-16 payload length, bit 17 self-contained }
 *   LZ4:    5 bytes LE { bits 0-16 payload length, bits 17-33 uncompressed
 *                        length (0: the payload went uncompressed), bit 34
 *                        self-contained }
 *   then    3 bytes LE CRC24 of the header bytes, the payload, 4 bytes LE
 *           CRC32 of the payload (as sent).
 *
 * A self-contained segment holds one or more whole frames; a frame larger
 * than a segment's 131,071-byte payload is cut across segments that are not
 * self-contained, the first starting with the frame's header. CRC24 is
 * Cassandra's (initial 0x875060, polynomial 0x1974F0B, over the header's
 * bytes in order); CRC32 is zlib's, primed with the bytes FA 2D 55 CA.
 *
 * Threads: pure functions; no shared state.
 */
#ifndef CQL_PROTO_SEGMENT_H
#define CQL_PROTO_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/value/common.h"

#define CQL_PROTO_SEGMENT_MAX_PAYLOAD (128 * 1024 - 1)
#define CQL_PROTO_SEGMENT_CRC_LEN 4

typedef struct cql_proto_segment_header {
    uint32_t payload_len;      /* bytes of payload that follow the header */
    uint32_t uncompressed_len; /* LZ4: its length decompressed, 0 if sent as is; plain: 0 */
    int self_contained;
} cql_proto_segment_header;

/* Header length with its CRC24: 6 plain, 8 with LZ4. */
static inline size_t cql_proto_segment_header_len(int lz4)
{
    return lz4 ? 8 : 6;
}

/* Cassandra's CRC24 of the first n (3 or 5) little-endian bytes of v. */
uint32_t cql_proto_crc24(uint64_t v, int n);
/* The payload CRC32 (zlib's, primed as Cassandra primes it). */
uint32_t cql_proto_crc32(const uint8_t *p, size_t n);

/*
 * Appends one segment holding [p, p + n) (n <= CQL_PROTO_SEGMENT_MAX_PAYLOAD). With lz4 the
 * payload is compressed unless that does not make it smaller, as Cassandra does. 0, or
 * ENG_E_NOMEM.
 */
int cql_proto_segment_put(eng_buf *out, const uint8_t *p, size_t n, int self_contained, int lz4);
/* Appends a whole frame (or several, up to a segment's payload) as one self-contained
   segment, or a larger one as a run of segments that are not. 0, or ENG_E_NOMEM. */
int cql_proto_segments_put(eng_buf *out, const uint8_t *p, size_t n, int lz4);

/* Decodes and checks a segment header (cql_proto_segment_header_len(lz4) bytes at p). 0, or
   ENG_E_PROTOCOL when its CRC24 fails or its lengths are impossible. */
int cql_proto_segment_header_decode(const uint8_t *p, int lz4, cql_proto_segment_header *out,
                                    eng_err *err);
/* Checks the payload that follows a decoded header (h->payload_len bytes, then the CRC32)
   and appends it, decompressed, to out. 0; ENG_E_PROTOCOL on a CRC mismatch or a payload
   that does not decompress to its stated length; ENG_E_NOMEM. */
int cql_proto_segment_payload_decode(const uint8_t *p, const cql_proto_segment_header *h, int lz4,
                                     eng_buf *out, eng_err *err);

#endif
