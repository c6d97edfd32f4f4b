/*
 * Fuzz target for what a server reads off the wire before anything runs
 * (cql/proto): frame headers and the version rule, request bodies of every
 * opcode and version, v5 segment headers and payloads, and LZ4 / Snappy
 * bodies.
 *
 * Input: a mode byte, then per mode:
 *  - 0 request: version (3 + byte % 3), opcode, flags, then the body; decoding returns 0,
 *    a protocol error or out of memory, and what it returns points inside the body; a
 *    response opcode's body is also decoded as a client reads it (cql/proto/client.h):
 *    0, a protocol error or out of memory, and a RESULT's rows of its column count;
 *  - 1 header: 9 bytes decoded, encoded back unchanged, the version rule applied;
 *  - 2 segment: an LZ4 flag byte, then a segment; a header that passes its CRC24 and a
 *    payload that passes its CRC32 decode to the length the header states;
 *  - 3 body: an algorithm byte, then a compressed body; what decompresses stays under the
 *    limit, and compressing it again and back gives it unchanged.
 */
#include <string.h>

#include "cql/proto/client.h"
#include "cql/proto/message.h"
#include "cql/proto/segment.h"
#include "fuzz.h"

#define LIMIT (64 * 1024)

static void inside(const eng_val *v, const uint8_t *body, size_t len, const char *what)
{
    if (v->len <= 0)
        return;
    if (v->p < body || v->p + v->len > body + len)
        fz_fail("frame: %s points outside the body", what);
}

static void check_params(const cql_proto_query_params *p, const uint8_t *body, size_t len)
{
    for (uint16_t i = 0; i < p->n_values; i++) {
        inside(&p->values[i], body, len, "a value");
        if (p->values[i].len < CQL_PROTO_VALUE_UNSET)
            fz_fail("frame: a value of length %d", p->values[i].len);
        if (p->names)
            inside(&p->names[i], body, len, "a value's name");
    }
    if (p->page_size == 0)
        fz_fail("frame: a page size of 0 was taken");
    inside(&p->paging_state, body, len, "the paging state");
    inside(&p->keyspace, body, len, "the keyspace");
}

/* The body as a client reads a response of h's opcode. */
static void fuzz_response(const cql_proto_header *h, const uint8_t *body, size_t len)
{
    eng_arena a;
    eng_arena_init(&a, 1024);
    eng_err err;
    eng_err_clear(&err);
    cql_proto_response resp;
    int rc = cql_proto_response_decode(h, body, len, NULL, 0, &a, &resp, &err);
    if (rc != 0 && rc != ENG_E_PROTOCOL && rc != ENG_E_NOMEM)
        fz_fail("frame: a response fails with code %d", rc);
    if (rc != 0 && resp.result)
        fz_fail("frame: a refused response left a result");
    if (rc == 0 && resp.result && resp.result->kind == CQL_RESULT_ROWS)
        for (size_t i = 0; i < (size_t)resp.result->n_rows * resp.result->n_cols; i++)
            if (resp.result->cells[i].len > (int32_t)len)
                fz_fail("frame: a cell longer than the response");
    cql_result_free(resp.result);
    eng_arena_free(&a);
}

static void fuzz_request(fz_input *in)
{
    cql_proto_header h = {.version = (uint8_t)(3 + fz_u8(in) % 3)};
    h.opcode = fz_u8(in);
    h.flags = fz_u8(in);
    const uint8_t *body = in->p;
    size_t len = fz_left(in);
    h.length = (uint32_t)len;
    eng_arena a;
    eng_arena_init(&a, 1024);
    eng_err err;
    eng_err_clear(&err);
    cql_proto_request req;
    if (cql_proto_opcode_name(h.opcode) && !cql_proto_opcode_is_request(h.opcode))
        fuzz_response(&h, body, len);
    int rc = cql_proto_request_decode(&h, body, len, &a, &req, &err);
    if (rc != 0 && rc != ENG_E_PROTOCOL && rc != ENG_E_NOMEM)
        fz_fail("frame: a request fails with code %d", rc);
    if (rc == 0) {
        switch (req.opcode) {
        case CQL_PROTO_QUERY:
            inside(&req.u.query.query, body, len, "the query");
            check_params(&req.u.query.params, body, len);
            break;
        case CQL_PROTO_EXECUTE:
            inside(&req.u.execute.id, body, len, "the id");
            check_params(&req.u.execute.params, body, len);
            break;
        case CQL_PROTO_BATCH:
            for (uint16_t i = 0; i < req.u.batch.n; i++)
                for (uint16_t j = 0; j < req.u.batch.stmts[i].n_values; j++)
                    inside(&req.u.batch.stmts[i].values[j], body, len, "a batch value");
            break;
        case CQL_PROTO_AUTH_RESPONSE: {
            eng_val user, password;
            eng_err serr;
            eng_err_clear(&serr);
            inside(&req.u.auth_token, body, len, "the token");
            if (cql_proto_sasl_plain(req.u.auth_token, &user, &password, &serr) == 0) {
                inside(&user, body, len, "the user");
                inside(&password, body, len, "the password");
                if (user.len <= 0 || password.len <= 0)
                    fz_fail("frame: SASL PLAIN took an empty user or password");
            } else if (serr.code != ENG_E_BAD_CREDENTIALS || !serr.msg[0]) {
                fz_fail("frame: a bad SASL token is not a BAD_CREDENTIALS error");
            }
            break;
        }
        }
    } else if (!err.msg[0]) {
        fz_fail("frame: a refused request has no message");
    }
    eng_arena_free(&a);
}

static void fuzz_header(fz_input *in)
{
    uint8_t raw[CQL_PROTO_HEADER_LEN] = {0};
    const uint8_t *p;
    size_t n = fz_take(in, sizeof raw, &p);
    memcpy(raw, p, n);
    cql_proto_header h;
    cql_proto_header_decode(raw, &h);
    uint8_t back[CQL_PROTO_HEADER_LEN];
    cql_proto_header_encode(&h, back);
    if (memcmp(raw, back, sizeof raw) != 0)
        fz_fail("frame: a header does not encode back to its bytes");
    eng_err err;
    eng_err_clear(&err);
    uint8_t reply = 0;
    if (cql_proto_version_check(h.version, &reply, &err) != 0 &&
        (reply < 1 || reply > CQL_PROTO_MAX_VERSION || !strstr(err.msg, "3/v3, 4/v4, 5/v5")))
        fz_fail("frame: version %d answered in version %d", h.version, reply);
}

static void fuzz_segment(fz_input *in)
{
    int lz4 = fz_u8(in) & 1;
    size_t hlen = cql_proto_segment_header_len(lz4);
    if (fz_left(in) < hlen)
        return;
    eng_err err;
    eng_err_clear(&err);
    cql_proto_segment_header h;
    if (cql_proto_segment_header_decode(in->p, lz4, &h, &err) != 0)
        return;
    in->p += hlen;
    if (fz_left(in) < (size_t)h.payload_len + CQL_PROTO_SEGMENT_CRC_LEN)
        return;
    eng_buf out = ENG_BUF_INIT;
    if (cql_proto_segment_payload_decode(in->p, &h, lz4, &out, &err) == 0) {
        size_t want = lz4 && h.uncompressed_len ? h.uncompressed_len : h.payload_len;
        if (out.len != want)
            fz_fail("frame: a segment decoded to %zu bytes, its header says %zu", out.len, want);
    }
    eng_buf_free(&out);
}

static void fuzz_body(fz_input *in)
{
    cql_proto_compression c = fz_u8(in) & 1 ? CQL_PROTO_COMPRESS_SNAPPY : CQL_PROTO_COMPRESS_LZ4;
    eng_buf out = ENG_BUF_INIT, z = ENG_BUF_INIT, back = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    int rc = cql_proto_decompress(c, in->p, fz_left(in), LIMIT, &out, &err);
    if (rc == 0) {
        if (out.len > LIMIT)
            fz_fail("frame: a body decompressed past its limit");
        if (cql_proto_compress(c, eng_buf_at(&out, 0), out.len, &z) == 0 &&
            cql_proto_decompress(c, eng_buf_at(&z, 0), z.len, LIMIT, &back, &err) == 0 &&
            (back.len != out.len || (out.len && memcmp(back.p, out.p, out.len) != 0)))
            fz_fail("frame: a body does not survive compression");
    } else if (rc != ENG_E_PROTOCOL && rc != ENG_E_NOMEM) {
        fz_fail("frame: a bad body fails with code %d", rc);
    }
    eng_buf_free(&out);
    eng_buf_free(&z);
    eng_buf_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in = fz_input_of(data, size);
    switch (fz_u8(&in) & 3) {
    case 0:
        fuzz_request(&in);
        break;
    case 1:
        fuzz_header(&in);
        break;
    case 2:
        fuzz_segment(&in);
        break;
    case 3:
        fuzz_body(&in);
        break;
    }
    return 0;
}
