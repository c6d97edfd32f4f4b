/*
 * Frames of the native protocol, v3 to v5 ([PV4] §2, [PV5] §2 "envelopes"):
 * the 9-byte header, the versions a peer may speak, and the compression of a
 * frame's body in v3/v4 (LZ4 or Snappy, [PV4] §5). v5 carries the same
 * frames inside checksummed segments once a connection is ready
 * (segment.h); before that, and in v3/v4 always, frames go on the wire
 * alone.
 *
 * Threads: pure functions; no shared state.
 */
#ifndef CQL_PROTO_FRAME_H
#define CQL_PROTO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "engine/value/common.h"

#define CQL_PROTO_HEADER_LEN 9
#define CQL_PROTO_MIN_VERSION 3
#define CQL_PROTO_MAX_VERSION 5
#define CQL_PROTO_RESPONSE_BIT 0x80
/* A body may be at most 256 MiB ([PV4] §2.5); servers set lower limits of their own. */
#define CQL_PROTO_MAX_BODY (256u << 20)

enum cql_proto_opcode {
    CQL_PROTO_ERROR = 0x00,
    CQL_PROTO_STARTUP = 0x01,
    CQL_PROTO_READY = 0x02,
    CQL_PROTO_AUTHENTICATE = 0x03,
    CQL_PROTO_OPTIONS = 0x05,
    CQL_PROTO_SUPPORTED = 0x06,
    CQL_PROTO_QUERY = 0x07,
    CQL_PROTO_RESULT = 0x08,
    CQL_PROTO_PREPARE = 0x09,
    CQL_PROTO_EXECUTE = 0x0A,
    CQL_PROTO_REGISTER = 0x0B,
    CQL_PROTO_EVENT = 0x0C,
    CQL_PROTO_BATCH = 0x0D,
    CQL_PROTO_AUTH_CHALLENGE = 0x0E,
    CQL_PROTO_AUTH_RESPONSE = 0x0F,
    CQL_PROTO_AUTH_SUCCESS = 0x10,
};

/* Frame flags ([PV4] §2.2). */
enum {
    CQL_PROTO_FLAG_COMPRESSION = 0x01,
    CQL_PROTO_FLAG_TRACING = 0x02,
    CQL_PROTO_FLAG_CUSTOM_PAYLOAD = 0x04,
    CQL_PROTO_FLAG_WARNING = 0x08,
    CQL_PROTO_FLAG_USE_BETA = 0x10,
};

typedef struct cql_proto_header {
    uint8_t version;  /* 3..5, without the direction bit */
    uint8_t response; /* 1 for a response (the direction bit set) */
    uint8_t flags;
    int16_t stream; /* responses to a request carry its stream; events -1 */
    uint8_t opcode;
    uint32_t length; /* of the body that follows */
} cql_proto_header;

/* Writes the 9 header bytes. */
void cql_proto_header_encode(const cql_proto_header *h, uint8_t out[CQL_PROTO_HEADER_LEN]);
/* Reads the 9 header bytes as they are (nothing checked: see cql_proto_version_check). */
void cql_proto_header_decode(const uint8_t in[CQL_PROTO_HEADER_LEN], cql_proto_header *out);

/* The name of an opcode ("QUERY"), or NULL for a byte that is none. */
const char *cql_proto_opcode_name(uint8_t opcode);
/* 1 if a client may send this opcode. */
int cql_proto_opcode_is_request(uint8_t opcode);

/*
 * The version rule of a server, as Cassandra's ProtocolVersion.decode has it: a request of a
 * supported version is taken; any other gets a PROTOCOL_ERROR whose message names the
 * supported range, "Invalid or unsupported protocol version (2); supported versions are
 * (3/v3, 4/v4, 5/v5)". That error goes back in the version the client used when it is an
 * old one (1 or 2: its parser reads it, and drivers downgrade on it), else in the newest
 * version this server speaks. Returns 0 when `version` (without the direction bit) is
 * supported; else ENG_E_PROTOCOL with the message in err and *reply_version set.
 */
int cql_proto_version_check(uint8_t version, uint8_t *reply_version, eng_err *err);
/* The SUPPORTED message's PROTOCOL_VERSIONS: "3/v3", "4/v4", "5/v5". */
extern const char *const cql_proto_version_names[CQL_PROTO_MAX_VERSION - CQL_PROTO_MIN_VERSION + 1];

/*
 * Body compression of v3/v4 frames ([PV4] §5), chosen by STARTUP's COMPRESSION option:
 * "lz4" is the uncompressed length as a big-endian [int] followed by an LZ4 block, "snappy"
 * a raw Snappy block. v5 compresses segments instead, with LZ4 only (segment.h).
 */
typedef enum cql_proto_compression {
    CQL_PROTO_COMPRESS_NONE = 0,
    CQL_PROTO_COMPRESS_LZ4 = 1,
    CQL_PROTO_COMPRESS_SNAPPY = 2,
} cql_proto_compression;

/* The algorithm a STARTUP option names (case-insensitive as Cassandra), or -1. */
int cql_proto_compression_by_name(const uint8_t *name, size_t len);
/* Appends the compressed form of [p, p + n) to out. 0, or ENG_E_NOMEM. */
int cql_proto_compress(cql_proto_compression c, const uint8_t *p, size_t n, eng_buf *out);
/*
 * Appends the decompressed form of [p, p + n) to out, refusing anything that would
 * decompress to more than `limit` bytes (a frame's bound applies to what it holds, not only
 * to what it took on the wire). 0; ENG_E_PROTOCOL for a malformed or oversized body (the
 * message in err); ENG_E_NOMEM.
 */
int cql_proto_decompress(cql_proto_compression c, const uint8_t *p, size_t n, size_t limit,
                         eng_buf *out, eng_err *err);

#endif
