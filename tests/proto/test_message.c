/*
 * Messages of the native protocol ([PV4] §4, [PV5] §4): request bodies
 * written byte by byte as the spec lays them out and decoded, and response
 * bodies encoded and compared with the bytes the spec prescribes.
 */
#include "cql/proto/message.h"
#include "harness.h"

/* A body built item by item, as a client would write it. */
static eng_buf body;

static void reset(void)
{
    eng_buf_reset(&body);
}

static int decode(uint8_t version, uint8_t opcode, uint8_t flags, cql_proto_request *req,
                  eng_arena *a, eng_err *err)
{
    cql_proto_header h = {
        .version = version, .flags = flags, .opcode = opcode, .length = (uint32_t)body.len};
    eng_err_clear(err);
    return cql_proto_request_decode(&h, body.p, body.len, a, req, err);
}

static int val_is(eng_val v, const char *s)
{
    return v.len == (int32_t)strlen(s) && memcmp(v.p, s, (size_t)v.len) == 0;
}

/* ---- requests ---- */

TEST(startup_carries_its_options)
{
    reset();
    cql_proto_put_short(&body, 1);
    cql_proto_put_string(&body, "CQL_VERSION");
    cql_proto_put_string(&body, "3.0.0");
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(4, CQL_PROTO_STARTUP, 0, &req, &a, &err), &err);
    const eng_val *v = cql_proto_map_find(&req.u.startup, "CQL_VERSION");
    ASSERT(v && val_is(*v, "3.0.0"));
    eng_arena_free(&a);
}

/* v4 QUERY: <query><consistency><flags: byte>[values][page size]. */
TEST(v4_query_with_values_and_a_page_size)
{
    reset();
    static const uint8_t q[] = "SELECT * FROM t WHERE k = ?";
    cql_proto_put_long_string(&body, q, sizeof q - 1);
    cql_proto_put_short(&body, CQL_PROTO_CL_LOCAL_QUORUM);
    cql_proto_put_byte(&body, CQL_PROTO_Q_VALUES | CQL_PROTO_Q_PAGE_SIZE);
    cql_proto_put_short(&body, 2);
    cql_proto_put_bytes(&body, (const uint8_t *)"\0\0\0\x2a", 4);
    cql_proto_put_bytes(&body, NULL, CQL_PROTO_VALUE_UNSET);
    cql_proto_put_int(&body, 100);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(4, CQL_PROTO_QUERY, 0, &req, &a, &err), &err);
    ASSERT(val_is(req.u.query.query, "SELECT * FROM t WHERE k = ?"));
    const cql_proto_query_params *p = &req.u.query.params;
    ASSERT_EQ(p->consistency, CQL_PROTO_CL_LOCAL_QUORUM);
    ASSERT_EQ(p->n_values, 2);
    ASSERT_EQ(p->values[0].len, 4);
    ASSERT_EQ(eng_be32(p->values[0].p), 42);
    ASSERT_EQ(p->values[1].len, CQL_PROTO_VALUE_UNSET);
    ASSERT(p->names == NULL);
    ASSERT_EQ(p->page_size, 100);
    ASSERT_EQ(p->paging_state.len, -1);
    ASSERT_EQ(p->serial_consistency, CQL_PROTO_CL_SERIAL);
    ASSERT(p->timestamp == INT64_MIN);
    eng_arena_free(&a);
}

/* v5 QUERY: flags are an [int]; keyspace (0x80) and now_in_seconds (0x100) follow the
   timestamp. */
TEST(v5_query_flags_are_an_int_with_keyspace_and_now_in_seconds)
{
    reset();
    cql_proto_put_long_string(&body, (const uint8_t *)"SELECT now() FROM t", 19);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_int(&body, CQL_PROTO_Q_PAGING_STATE | CQL_PROTO_Q_SERIAL_CONSISTENCY |
                                 CQL_PROTO_Q_DEFAULT_TIMESTAMP | CQL_PROTO_Q_KEYSPACE |
                                 CQL_PROTO_Q_NOW_IN_SECONDS);
    cql_proto_put_bytes(&body, (const uint8_t *)"\x01\x02", 2);
    cql_proto_put_short(&body, CQL_PROTO_CL_LOCAL_SERIAL);
    cql_proto_put_long(&body, 1700000000000000);
    cql_proto_put_string(&body, "chat");
    cql_proto_put_int(&body, 1700000000);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(5, CQL_PROTO_QUERY, 0, &req, &a, &err), &err);
    const cql_proto_query_params *p = &req.u.query.params;
    ASSERT_EQ(p->paging_state.len, 2);
    ASSERT_EQ(p->serial_consistency, CQL_PROTO_CL_LOCAL_SERIAL);
    ASSERT_EQ(p->timestamp, 1700000000000000LL);
    ASSERT(val_is(p->keyspace, "chat"));
    ASSERT_EQ(p->now_in_seconds, 1700000000);
    eng_arena_free(&a);
}

TEST(named_values_carry_their_names)
{
    reset();
    cql_proto_put_long_string(&body, (const uint8_t *)"q", 1);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_byte(&body, CQL_PROTO_Q_VALUES | CQL_PROTO_Q_NAMES_FOR_VALUES);
    cql_proto_put_short(&body, 1);
    cql_proto_put_string(&body, "room");
    cql_proto_put_bytes(&body, (const uint8_t *)"r1", 2);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(4, CQL_PROTO_QUERY, 0, &req, &a, &err), &err);
    ASSERT(val_is(req.u.query.params.names[0], "room"));
    ASSERT(val_is(req.u.query.params.values[0], "r1"));
    eng_arena_free(&a);
}

static void query_params_refused(uint16_t cl, uint8_t flags, int64_t ts, int32_t page,
                                 const char *want)
{
    reset();
    cql_proto_put_long_string(&body, (const uint8_t *)"q", 1);
    cql_proto_put_short(&body, cl);
    cql_proto_put_byte(&body, flags);
    if (flags & CQL_PROTO_Q_PAGE_SIZE)
        cql_proto_put_int(&body, page);
    if (flags & CQL_PROTO_Q_DEFAULT_TIMESTAMP)
        cql_proto_put_long(&body, ts);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_EQ(decode(4, CQL_PROTO_QUERY, 0, &req, &a, &err), ENG_E_PROTOCOL);
    ASSERT_STR_EQ(err.msg, want);
    eng_arena_free(&a);
}

TEST(bad_query_parameters_are_refused_in_cassandras_words)
{
    query_params_refused(11, 0, 0, 0,
                         "Invalid QUERY message: Unknown code 11 for a consistency level");
    query_params_refused(CQL_PROTO_CL_ONE, CQL_PROTO_Q_PAGE_SIZE, 0, 0,
                         "Invalid QUERY message: The page size cannot be 0");
    query_params_refused(CQL_PROTO_CL_ONE, CQL_PROTO_Q_DEFAULT_TIMESTAMP, INT64_MIN, 0,
                         "Invalid QUERY message: Out of bound timestamp, must be in "
                         "[-9223372036854775807, 9223372036854775807] (got "
                         "-9223372036854775808)");
}

/* v4 EXECUTE: <id><query_parameters>; v5 adds <result_metadata_id> after the id. */
TEST(execute_reads_its_id_and_in_v5_the_result_metadata_id)
{
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    reset();
    cql_proto_put_short_bytes(&body, (const uint8_t *)"ID", 2);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_byte(&body, CQL_PROTO_Q_SKIP_METADATA);
    ASSERT_OK_ERR(decode(4, CQL_PROTO_EXECUTE, 0, &req, &a, &err), &err);
    ASSERT(val_is(req.u.execute.id, "ID"));
    ASSERT_EQ(req.u.execute.result_metadata_id.len, 0);
    ASSERT(req.u.execute.params.flags & CQL_PROTO_Q_SKIP_METADATA);
    reset();
    cql_proto_put_short_bytes(&body, (const uint8_t *)"ID", 2);
    cql_proto_put_short_bytes(&body, (const uint8_t *)"MD", 2);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_int(&body, 0);
    ASSERT_OK_ERR(decode(5, CQL_PROTO_EXECUTE, 0, &req, &a, &err), &err);
    ASSERT(val_is(req.u.execute.result_metadata_id, "MD"));
    eng_arena_free(&a);
}

/* PREPARE: <query> in v4; <query><flags: int>[<keyspace>] in v5. */
TEST(prepare_reads_the_v5_keyspace)
{
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    reset();
    cql_proto_put_long_string(&body, (const uint8_t *)"SELECT 1", 8);
    cql_proto_put_int(&body, CQL_PROTO_PREPARE_KEYSPACE);
    cql_proto_put_string(&body, "ks");
    ASSERT_OK_ERR(decode(5, CQL_PROTO_PREPARE, 0, &req, &a, &err), &err);
    ASSERT(val_is(req.u.prepare.query, "SELECT 1"));
    ASSERT(val_is(req.u.prepare.keyspace, "ks"));
    eng_arena_free(&a);
}

/* BATCH: <type><n><query_1>...<query_n><consistency><flags>[<serial_consistency>]
   [<timestamp>], each query <kind><string_or_id><n>[<value>...]. */
TEST(batch_of_a_query_and_a_prepared_id)
{
    reset();
    cql_proto_put_byte(&body, CQL_PROTO_BATCH_UNLOGGED);
    cql_proto_put_short(&body, 2);
    cql_proto_put_byte(&body, 0);
    cql_proto_put_long_string(&body, (const uint8_t *)"INSERT INTO t (k) VALUES (1)", 28);
    cql_proto_put_short(&body, 0);
    cql_proto_put_byte(&body, 1);
    cql_proto_put_short_bytes(&body, (const uint8_t *)"PID", 3);
    cql_proto_put_short(&body, 1);
    cql_proto_put_bytes(&body, NULL, CQL_PROTO_VALUE_NULL);
    cql_proto_put_short(&body, CQL_PROTO_CL_QUORUM);
    cql_proto_put_byte(&body, CQL_PROTO_Q_DEFAULT_TIMESTAMP);
    cql_proto_put_long(&body, 42);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(4, CQL_PROTO_BATCH, 0, &req, &a, &err), &err);
    ASSERT_EQ(req.u.batch.type, CQL_PROTO_BATCH_UNLOGGED);
    ASSERT_EQ(req.u.batch.n, 2);
    ASSERT_EQ(req.u.batch.stmts[0].kind, 0);
    ASSERT_EQ(req.u.batch.stmts[0].n_values, 0);
    ASSERT(val_is(req.u.batch.stmts[1].query_or_id, "PID"));
    ASSERT_EQ(req.u.batch.stmts[1].values[0].len, CQL_PROTO_VALUE_NULL);
    ASSERT_EQ(req.u.batch.params.consistency, CQL_PROTO_CL_QUORUM);
    ASSERT_EQ(req.u.batch.params.timestamp, 42);
    eng_arena_free(&a);
}

TEST(batch_type_and_query_kind_are_checked)
{
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    reset();
    cql_proto_put_byte(&body, 3);
    cql_proto_put_short(&body, 0);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_byte(&body, 0);
    ASSERT_EQ(decode(4, CQL_PROTO_BATCH, 0, &req, &a, &err), ENG_E_PROTOCOL);
    ASSERT_STR_EQ(err.msg, "Invalid BATCH message: Invalid BATCH message type 3");
    reset();
    cql_proto_put_byte(&body, 0);
    cql_proto_put_short(&body, 1);
    cql_proto_put_byte(&body, 2);
    cql_proto_put_short(&body, 0);
    cql_proto_put_short(&body, 0);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_byte(&body, 0);
    ASSERT_EQ(decode(4, CQL_PROTO_BATCH, 0, &req, &a, &err), ENG_E_PROTOCOL);
    ASSERT_STR_EQ(err.msg, "Invalid BATCH message: Invalid query kind in BATCH messages. Must "
                           "be 0 or 1 but got 2");
    eng_arena_free(&a);
}

TEST(register_lists_event_types)
{
    reset();
    static const char *const events[] = {"SCHEMA_CHANGE", "STATUS_CHANGE"};
    cql_proto_put_string_list(&body, events, 2);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(4, CQL_PROTO_REGISTER, 0, &req, &a, &err), &err);
    ASSERT_EQ(req.u.events.n, 2);
    ASSERT(val_is(req.u.events.items[1], "STATUS_CHANGE"));
    eng_arena_free(&a);
}

TEST(a_v4_custom_payload_precedes_the_query)
{
    reset();
    cql_proto_put_short(&body, 1);
    cql_proto_put_string(&body, "k");
    cql_proto_put_bytes(&body, (const uint8_t *)"v", 1);
    cql_proto_put_long_string(&body, (const uint8_t *)"q", 1);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_byte(&body, 0);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(4, CQL_PROTO_QUERY, CQL_PROTO_FLAG_CUSTOM_PAYLOAD, &req, &a, &err), &err);
    ASSERT_EQ(req.custom_payload.n, 1);
    ASSERT(val_is(req.u.query.query, "q"));
    eng_arena_free(&a);
}

TEST(unknown_and_response_opcodes_are_refused)
{
    reset();
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_EQ(decode(4, 0x04, 0, &req, &a, &err), ENG_E_PROTOCOL);
    ASSERT_STR_EQ(err.msg, "Unknown opcode 4");
    ASSERT_EQ(decode(4, 0x42, 0, &req, &a, &err), ENG_E_PROTOCOL);
    ASSERT_STR_EQ(err.msg, "Unknown opcode 66");
    ASSERT_EQ(decode(4, CQL_PROTO_RESULT, 0, &req, &a, &err), ENG_E_PROTOCOL);
    eng_arena_free(&a);
}

/* Every prefix of a valid body is refused cleanly: no read past its end, no crash. */
TEST(every_truncation_of_a_request_is_a_protocol_error)
{
    reset();
    cql_proto_put_short(&body, 1);
    cql_proto_put_string(&body, "k");
    cql_proto_put_bytes(&body, (const uint8_t *)"v", 1);
    cql_proto_put_long_string(&body, (const uint8_t *)"SELECT", 6);
    cql_proto_put_short(&body, CQL_PROTO_CL_ONE);
    cql_proto_put_int(&body, CQL_PROTO_Q_VALUES | CQL_PROTO_Q_NAMES_FOR_VALUES |
                                 CQL_PROTO_Q_PAGE_SIZE | CQL_PROTO_Q_PAGING_STATE |
                                 CQL_PROTO_Q_SERIAL_CONSISTENCY | CQL_PROTO_Q_DEFAULT_TIMESTAMP |
                                 CQL_PROTO_Q_KEYSPACE | CQL_PROTO_Q_NOW_IN_SECONDS);
    cql_proto_put_short(&body, 1);
    cql_proto_put_string(&body, "n");
    cql_proto_put_bytes(&body, (const uint8_t *)"x", 1);
    cql_proto_put_int(&body, 10);
    cql_proto_put_bytes(&body, (const uint8_t *)"ps", 2);
    cql_proto_put_short(&body, CQL_PROTO_CL_SERIAL);
    cql_proto_put_long(&body, 1);
    cql_proto_put_string(&body, "ks");
    cql_proto_put_int(&body, 5);
    eng_buf whole = ENG_BUF_INIT;
    eng_buf_put(&whole, body.p, body.len);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_request req;
    eng_err err;
    ASSERT_OK_ERR(decode(5, CQL_PROTO_QUERY, CQL_PROTO_FLAG_CUSTOM_PAYLOAD, &req, &a, &err), &err);
    for (size_t n = 0; n < whole.len; n++) {
        /* a copy of exactly n bytes, so a read past it is a sanitizer report */
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, whole.p, n);
        cql_proto_header h = {
            .version = 5, .flags = CQL_PROTO_FLAG_CUSTOM_PAYLOAD, .opcode = CQL_PROTO_QUERY};
        eng_err_clear(&err);
        ASSERT_EQ(cql_proto_request_decode(&h, cut, n, &a, &req, &err), ENG_E_PROTOCOL);
        free(cut);
    }
    eng_buf_free(&whole);
    eng_arena_free(&a);
}

/* ---- responses: the expected bytes laid out as the spec groups them ---- */
/* clang-format off */

static eng_buf out;

static void expect(const uint8_t *want, size_t n)
{
    ASSERT(!out.oom);
    if (out.len != n || memcmp(out.p, want, n) != 0) {
        fprintf(stderr, "got:  ");
        for (size_t i = 0; i < out.len; i++)
            fprintf(stderr, "%02x", out.p[i]);
        fprintf(stderr, "\nwant: ");
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%02x", want[i]);
        fprintf(stderr, "\n");
    }
    ASSERT_EQ(out.len, n);
    ASSERT_MEM_EQ(out.p, want, n);
}
#define EXPECT(...)                                                                       \
    do {                                                                                  \
        static const uint8_t want_[] = {__VA_ARGS__};                                     \
        expect(want_, sizeof want_);                                                      \
    } while (0)

/* READY to a v4 STARTUP on stream 1: the direction bit, no body. */
TEST(ready_frame_is_a_bare_header)
{
    eng_buf_reset(&out);
    size_t at = cql_proto_frame_begin(&out, 4, 1, CQL_PROTO_READY, NULL, 0);
    ASSERT_EQ(cql_proto_frame_end(&out, at, CQL_PROTO_COMPRESS_NONE), 0);
    EXPECT(0x84, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00);
}

/* Warnings: flag 0x08 and a [string list] first in the body (v4+); v3 drops them. */
TEST(warnings_lead_the_body_from_v4_on)
{
    static const char *const w[] = {"w"};
    eng_buf_reset(&out);
    size_t at = cql_proto_frame_begin(&out, 4, 7, CQL_PROTO_RESULT, w, 1);
    cql_proto_put_int(&out, 1);
    ASSERT_EQ(cql_proto_frame_end(&out, at, CQL_PROTO_COMPRESS_NONE), 0);
    EXPECT(0x84, 0x08, 0x00, 0x07, 0x08, 0x00, 0x00, 0x00, 0x09, 0x00, 0x01, 0x00, 0x01, 'w',
           0x00, 0x00, 0x00, 0x01);
    eng_buf_reset(&out);
    at = cql_proto_frame_begin(&out, 3, 7, CQL_PROTO_RESULT, w, 1);
    cql_proto_put_int(&out, 1);
    ASSERT_EQ(cql_proto_frame_end(&out, at, CQL_PROTO_COMPRESS_NONE), 0);
    EXPECT(0x83, 0x00, 0x00, 0x07, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01);
}

TEST(a_compressed_v4_frame_sets_its_flag_and_decompresses_to_the_body)
{
    eng_buf_reset(&out);
    size_t at = cql_proto_frame_begin(&out, 4, 2, CQL_PROTO_RESULT, NULL, 0);
    for (int i = 0; i < 100; i++)
        cql_proto_put_int(&out, 1);
    ASSERT_EQ(cql_proto_frame_end(&out, at, CQL_PROTO_COMPRESS_LZ4), 0);
    cql_proto_header h;
    cql_proto_header_decode(out.p, &h);
    ASSERT(h.flags & CQL_PROTO_FLAG_COMPRESSION);
    ASSERT_EQ(h.length, out.len - CQL_PROTO_HEADER_LEN);
    eng_buf plain = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    int rc = cql_proto_decompress(CQL_PROTO_COMPRESS_LZ4, out.p + 9, h.length, 1000, &plain,
                                  &err);
    ASSERT_OK_ERR(rc, &err);
    ASSERT_EQ(plain.len, 400);
    eng_buf_free(&plain);
}

/* ALREADY_EXISTS ([PV4] §9 0x2400): <ks><table> after code and message. */
TEST(already_exists_carries_keyspace_and_table)
{
    eng_err err;
    eng_err_clear(&err);
    eng_errorf(&err, ENG_E_EXISTS, "x");
    strcpy(err.ks, "k");
    strcpy(err.table, "t");
    cql_proto_error e;
    cql_proto_error_from_eng(&err, &e);
    eng_buf_reset(&out);
    cql_proto_put_error(&out, 4, &e);
    EXPECT(0x00, 0x00, 0x24, 0x00, 0x00, 0x01, 'x', 0x00, 0x01, 'k', 0x00, 0x01, 't');
}

TEST(unprepared_carries_the_id)
{
    cql_proto_error e = {.code = 0x2500, .message = "m",
                     .unprepared_id = {(const uint8_t *)"\xab\xcd", 2}};
    eng_buf_reset(&out);
    cql_proto_put_error(&out, 4, &e);
    EXPECT(0x00, 0x00, 0x25, 0x00, 0x00, 0x01, 'm', 0x00, 0x02, 0xab, 0xcd);
}

/* WRITE_TIMEOUT: <cl><received><blockfor><writeType>, and in v5 <contentions> for CAS. */
TEST(write_timeout_of_a_cas_write_counts_contentions_in_v5)
{
    cql_proto_error e = {.code = 0x1100, .message = "", .consistency = CQL_PROTO_CL_SERIAL,
                     .required_or_received = 0, .alive_or_block_for = 1, .write_type = "CAS",
                     .contentions = 3};
    eng_buf_reset(&out);
    cql_proto_put_error(&out, 5, &e);
    EXPECT(0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x01, 0x00, 0x03, 'C', 'A', 'S', 0x00, 0x03);
    eng_buf_reset(&out);
    cql_proto_put_error(&out, 4, &e);
    EXPECT(0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x01, 0x00, 0x03, 'C', 'A', 'S');
}

/* READ_FAILURE: v4 <numfailures>, v5 a <reasonmap>, v3 sent as READ_TIMEOUT. */
TEST(read_failure_by_version)
{
    cql_proto_error e = {.code = 0x1300, .message = "", .consistency = CQL_PROTO_CL_ONE,
                     .required_or_received = 0, .alive_or_block_for = 1, .num_failures = 1,
                     .data_present = 0};
    eng_buf_reset(&out);
    cql_proto_put_error(&out, 4, &e);
    EXPECT(0x00, 0x00, 0x13, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00);
    eng_buf_reset(&out);
    cql_proto_put_error(&out, 5, &e);
    EXPECT(0x00, 0x00, 0x13, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 127, 0, 0, 1, 0x00, 0x00, 0x00);
    eng_buf_reset(&out);
    cql_proto_put_error(&out, 3, &e);
    EXPECT(0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x01, 0x00);
}

TEST(supported_lists_cql_version_compressions_and_protocol_versions)
{
    eng_buf_reset(&out);
    cql_proto_put_supported(&out, "3.4.6");
    cql_proto_reader r;
    cql_proto_reader_init(&r, out.p, out.len);
    eng_arena a;
    eng_arena_init(&a, 0);
    cql_proto_multimap m;
    ASSERT_EQ(cql_proto_get_string_multimap(&r, &a, &m), 0);
    ASSERT(r.bad == NULL);
    ASSERT_EQ(cql_proto_left(&r), 0);
    ASSERT_EQ(m.n, 3);
    ASSERT(val_is(m.keys[2], "PROTOCOL_VERSIONS"));
    ASSERT_EQ(m.n_vals[2], 3);
    ASSERT(val_is(m.vals[m.first[2] + 2], "5/v5"));
    eng_arena_free(&a);
}

/* [option]s ([PV4] §4.2.5.2): list<int> 0x0020 0x0009; map<text, int> 0x0021 0x000D 0x0009;
   tuple<int, text> 0x0031 <n=2> ...; date is native from v4, custom before; duration
   native in v5, custom before. */
TEST(types_are_written_as_options_by_version)
{
    eng_type *list = eng_type_new_list(eng_type_new(ENG_INT), 0);
    eng_type *map = eng_type_new_map(eng_type_new(ENG_TEXT), eng_type_new(ENG_INT), 0);
    eng_type *comps[] = {eng_type_new(ENG_INT), eng_type_new(ENG_TEXT)};
    eng_type *tuple = eng_type_new_tuple(comps, 2);
    eng_type *date = eng_type_new(ENG_DATE);
    eng_type *duration = eng_type_new(ENG_DURATION);
    eng_buf_reset(&out);
    cql_proto_put_type(&out, 4, list);
    cql_proto_put_type(&out, 4, map);
    cql_proto_put_type(&out, 4, tuple);
    cql_proto_put_type(&out, 4, date);
    cql_proto_put_type(&out, 5, duration);
    EXPECT(0x00, 0x20, 0x00, 0x09, 0x00, 0x21, 0x00, 0x0D, 0x00, 0x09, 0x00, 0x31, 0x00, 0x02,
           0x00, 0x09, 0x00, 0x0D, 0x00, 0x11, 0x00, 0x15);
    eng_buf_reset(&out);
    cql_proto_put_type(&out, 3, date);
    static const char cls[] = "org.apache.cassandra.db.marshal.SimpleDateType";
    ASSERT_EQ(out.len, 2 + 2 + strlen(cls));
    ASSERT_EQ(eng_be16(out.p), 0);
    ASSERT_MEM_EQ(out.p + 4, cls, strlen(cls));
    eng_buf_reset(&out);
    cql_proto_put_type(&out, 4, duration);
    ASSERT_EQ(eng_be16(out.p), 0);
    ASSERT_MEM_EQ(out.p + 4, "org.apache.cassandra.db.marshal.DurationType", 44);
    eng_type_free(list);
    eng_type_free(map);
    eng_type_free(tuple);
    eng_type_free(date);
    eng_type_free(duration);
}

TEST(a_user_type_option_names_keyspace_type_and_fields)
{
    char **names = malloc(sizeof *names);
    names[0] = strdup("a");
    eng_type **types = malloc(sizeof *types);
    types[0] = eng_type_new(ENG_INT);
    eng_type *udt = eng_type_new_udt("k", "u", names, types, 1, 1);
    free(names);
    free(types);
    eng_buf_reset(&out);
    cql_proto_put_type(&out, 4, udt);
    EXPECT(0x00, 0x30, 0x00, 0x01, 'k', 0x00, 0x01, 'u', 0x00, 0x01, 0x00, 0x01, 'a', 0x00,
           0x09);
    eng_type_free(udt);
}

static const eng_type int_type = {.kind = ENG_INT};
static const eng_type text_type = {.kind = ENG_TEXT};

static cql_result *two_column_rows(void)
{
    cql_result *r = cql_result_new(CQL_RESULT_ROWS);
    cql_column_spec cols[] = {{"k", "t", "a", &int_type}, {"k", "t", "b", &text_type}};
    ASSERT_EQ(cql_result_set_columns(r, cols, 2), 0);
    eng_val row[] = {{(const uint8_t *)"\0\0\0\x01", 4}, {NULL, -1}};
    ASSERT_EQ(cql_result_add_row(r, row), 0);
    ASSERT_EQ(cql_result_finish(r), 0);
    return r;
}

TEST(void_set_keyspace_and_schema_change_results)
{
    cql_result *r = cql_result_new(CQL_RESULT_VOID);
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 4, r, NULL), 0);
    EXPECT(0x00, 0x00, 0x00, 0x01);
    cql_result_free(r);
    r = cql_result_new(CQL_RESULT_SET_KEYSPACE);
    r->keyspace = "ks";
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 4, r, NULL), 0);
    EXPECT(0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 'k', 's');
    cql_result_free(r);
    r = cql_result_new(CQL_RESULT_SCHEMA_CHANGE);
    r->change = "CREATED";
    r->target = "TABLE";
    r->keyspace = "k";
    r->object = "t";
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 4, r, NULL), 0);
    EXPECT(0x00, 0x00, 0x00, 0x05, 0x00, 0x07, 'C', 'R', 'E', 'A', 'T', 'E', 'D', 0x00, 0x05,
           'T', 'A', 'B', 'L', 'E', 0x00, 0x01, 'k', 0x00, 0x01, 't');
    r->target = "KEYSPACE";
    r->object = "";
    eng_buf_reset(&out);
    cql_proto_put_schema_change_event(&out, r);
    EXPECT(0x00, 0x0D, 'S', 'C', 'H', 'E', 'M', 'A', '_', 'C', 'H', 'A', 'N', 'G', 'E', 0x00,
           0x07, 'C', 'R', 'E', 'A', 'T', 'E', 'D', 0x00, 0x08, 'K', 'E', 'Y', 'S', 'P', 'A',
           'C', 'E', 0x00, 0x01, 'k');
    cql_result_free(r);
}

/* ROWS: <flags: Global_tables_spec><columns_count><ks><table>(<name><type>)* <rows_count>
   and each cell a [bytes] (a null one -1). */
TEST(rows_with_a_global_table_spec)
{
    cql_result *r = two_column_rows();
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 4, r, NULL), 0);
    EXPECT(0x00, 0x00, 0x00, 0x02,                         /* ROWS */
           0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, /* global, 2 columns */
           0x00, 0x01, 'k', 0x00, 0x01, 't',               /* ks, table */
           0x00, 0x01, 'a', 0x00, 0x09, 0x00, 0x01, 'b', 0x00, 0x0D,
           0x00, 0x00, 0x00, 0x01,                         /* 1 row */
           0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF);
    cql_result_free(r);
}

/* Has_more_pages (0x0002) with the paging state; No_metadata (0x0004) keeps only the
   count; Metadata_changed (0x0008, v5) sends the new id then the metadata. */
TEST(rows_paging_skip_metadata_and_metadata_changed)
{
    cql_result *r = two_column_rows();
    r->has_more = 1;
    eng_buf_put(&r->paging_state, "PS", 2);
    cql_proto_rows_opts skip = {.skip_metadata = 1};
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 4, r, &skip), 0);
    EXPECT(0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x02,
           0x00, 0x00, 0x00, 0x02, 'P', 'S',
           0x00, 0x00, 0x00, 0x01,
           0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF);
    r->has_more = 0;
    cql_proto_rows_opts changed = {.skip_metadata = 1, .metadata_changed = 1,
                               .metadata_id = (const uint8_t *)"ID", .metadata_id_len = 2};
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 5, r, &changed), 0);
    EXPECT(0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x02,
           0x00, 0x02, 'I', 'D',
           0x00, 0x01, 'k', 0x00, 0x01, 't',
           0x00, 0x01, 'a', 0x00, 0x09, 0x00, 0x01, 'b', 0x00, 0x0D,
           0x00, 0x00, 0x00, 0x01,
           0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF);
    cql_result_free(r);
}

/* PREPARED: <id><metadata><result_metadata>; <metadata> has <pk_count> and the pk indexes
   from v4 on; v5 puts <result_metadata_id> after the id. An INSERT's result metadata is
   No_metadata with 0 columns. */
TEST(prepared_results_by_version)
{
    cql_result *r = cql_result_new(CQL_RESULT_PREPARED);
    static cql_column_spec binds[] = {{"k", "t", "a", &int_type}};
    static uint16_t pk[] = {0};
    r->prepared_id.p = (const uint8_t *)"\x01\x02";
    r->prepared_id.len = 2;
    r->binds = binds;
    r->n_binds = 1;
    r->pk_binds = pk;
    r->n_pk_binds = 1;
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 4, r, NULL), 0);
    EXPECT(0x00, 0x00, 0x00, 0x04, 0x00, 0x02, 0x01, 0x02,
           0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* global, 1 marker */
           0x00, 0x00, 0x00, 0x01, 0x00, 0x00,             /* 1 pk index: 0 */
           0x00, 0x01, 'k', 0x00, 0x01, 't', 0x00, 0x01, 'a', 0x00, 0x09,
           0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00); /* no result metadata */
    size_t v4_len = out.len;
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 3, r, NULL), 0);
    EXPECT(0x00, 0x00, 0x00, 0x04, 0x00, 0x02, 0x01, 0x02,
           0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
           0x00, 0x01, 'k', 0x00, 0x01, 't', 0x00, 0x01, 'a', 0x00, 0x09,
           0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00);
    eng_buf_reset(&out);
    ASSERT_EQ(cql_proto_put_result(&out, 5, r, NULL), 0);
    ASSERT_EQ(out.len, v4_len + 2 + 16);
    ASSERT_EQ(eng_be16(out.p + 8), 16);
    uint8_t id[16];
    cql_proto_result_metadata_id(r, id);
    ASSERT_MEM_EQ(out.p + 10, id, 16);
    r->binds = NULL;
    r->pk_binds = NULL;
    cql_result_free(r);
}

TEST(result_metadata_id_follows_the_columns)
{
    cql_result *a = two_column_rows(), *b = two_column_rows();
    uint8_t ia[16], ib[16];
    cql_proto_result_metadata_id(a, ia);
    cql_proto_result_metadata_id(b, ib);
    ASSERT_MEM_EQ(ia, ib, 16);
    a->cols[1].type = &int_type;
    cql_proto_result_metadata_id(a, ia);
    ASSERT(memcmp(ia, ib, 16) != 0);
    cql_result_free(a);
    cql_result_free(b);
}

TEST(topology_and_status_events_name_the_node)
{
    cql_proto_inet node = {.len = 4, .addr = {127, 0, 0, 1}, .port = 9042};
    eng_buf_reset(&out);
    cql_proto_put_node_event(&out, "STATUS_CHANGE", "UP", &node);
    EXPECT(0x00, 0x0D, 'S', 'T', 'A', 'T', 'U', 'S', '_', 'C', 'H', 'A', 'N', 'G', 'E', 0x00,
           0x02, 'U', 'P', 0x04, 127, 0, 0, 1, 0x00, 0x00, 0x23, 0x52);
}
/* clang-format on */

/* SASL PLAIN as PasswordAuthenticator.decodeCredentials splits it: from the end. */
static int sasl(const char *token, size_t len, eng_val *user, eng_val *pass, eng_err *err)
{
    eng_err_clear(err);
    return cql_proto_sasl_plain((eng_val){(const uint8_t *)token, (int32_t)len}, user, pass, err);
}

TEST(sasl_plain_takes_user_and_password_with_or_without_an_authorization_id)
{
    eng_val u, p;
    eng_err err;
    ASSERT(sasl("\0cassandra\0secret", 17, &u, &p, &err) == 0);
    ASSERT(u.len == 9 && memcmp(u.p, "cassandra", 9) == 0);
    ASSERT(p.len == 6 && memcmp(p.p, "secret", 6) == 0);
    ASSERT(sasl("admin\0bob\0pw", 12, &u, &p, &err) == 0);
    ASSERT(u.len == 3 && memcmp(u.p, "bob", 3) == 0 && p.len == 2);
}

TEST(malformed_sasl_tokens_get_cassandras_messages)
{
    eng_val u, p;
    eng_err err;
    ASSERT(sasl("bob\0pw", 6, &u, &p, &err) == ENG_E_BAD_CREDENTIALS);
    ASSERT(strcmp(err.msg, "Authentication ID must not be null") == 0);
    ASSERT(sasl("\0\0pw", 4, &u, &p, &err) == ENG_E_BAD_CREDENTIALS);
    ASSERT(strcmp(err.msg, "Authentication ID must not be null") == 0);
    ASSERT(sasl("bobpw", 5, &u, &p, &err) == ENG_E_BAD_CREDENTIALS);
    ASSERT(strcmp(err.msg, "Password must not be null") == 0);
    ASSERT(sasl("\0bob\0", 5, &u, &p, &err) == ENG_E_BAD_CREDENTIALS);
    ASSERT(strcmp(err.msg, "Password must not be null") == 0);
    ASSERT(sasl("", 0, &u, &p, &err) == ENG_E_BAD_CREDENTIALS);
    ASSERT(sasl("a\0b\0c\0d", 7, &u, &p, &err) == ENG_E_BAD_CREDENTIALS);
    ASSERT(strstr(err.msg, "Credential format error") != NULL);
}
