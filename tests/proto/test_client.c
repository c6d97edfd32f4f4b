/*
 * The client's side of the messages (cql/proto/client.h): requests it
 * encodes read back by the server's decoder, responses the server's encoders
 * write read back by the client's decoder -- the two sides check each
 * other -- and frames compared with the bytes [PV4] §4 prescribes.
 */
#include "cql/proto/client.h"
#include "harness.h"

static int val_is(eng_val v, const char *s)
{
    return v.len == (int32_t)strlen(s) && memcmp(v.p, s, (size_t)v.len) == 0;
}

static eng_val text(const char *s) { return (eng_val){(const uint8_t *)s, (int32_t)strlen(s)}; }

/* The body of the request frame at the start of b, decoded as the server does. */
static int server_reads(const eng_buf *b, cql_proto_request *req, eng_arena *a, eng_err *err)
{
    cql_proto_header h;
    cql_proto_header_decode(b->p, &h);
    ASSERT(!h.response);
    ASSERT_EQ(h.length, b->len - CQL_PROTO_HEADER_LEN);
    eng_err_clear(err);
    return cql_proto_request_decode(&h, b->p + CQL_PROTO_HEADER_LEN, h.length, a, req, err);
}


/* [PV4] §4.1.4: <query><consistency><flags>, nothing else when no flag is set. */
TEST(a_bare_v4_query_is_the_spec_bytes)
{
    eng_buf b = ENG_BUF_INIT;
    cql_proto_query_params p;
    cql_proto_query_params_init(&p);
    size_t at = cql_proto_request_begin(&b, 4, 7, CQL_PROTO_QUERY);
    cql_proto_put_query(&b, 4, (const uint8_t *)"SELECT 1", 8, &p);
    ASSERT_EQ(cql_proto_request_end(&b, at, CQL_PROTO_COMPRESS_NONE), 0);
    static const uint8_t want[] = {0x04, 0x00, 0x00, 0x07, 0x07, 0x00, 0x00, 0x00, 0x0F,
                                   0x00, 0x00, 0x00, 0x08, 'S',  'E',  'L',  'E',  'C',
                                   'T',  ' ',  '1',  0x00, 0x01, 0x00};
    ASSERT_EQ(b.len, sizeof want);
    ASSERT_MEM_EQ(b.p, want, sizeof want);
    eng_buf_free(&b);
}

TEST(every_query_parameter_reaches_the_server_in_v4_and_v5)
{
    for (uint8_t version = 3; version <= 5; version++) {
        eng_buf b = ENG_BUF_INIT;
        cql_proto_query_params p;
        cql_proto_query_params_init(&p);
        eng_val values[3] = {text("a"), {NULL, -1}, {NULL, -2}};
        eng_val names[3] = {text("x"), text("y"), text("z")};
        p.consistency = CQL_PROTO_CL_LOCAL_QUORUM;
        p.n_values = 3;
        p.values = values;
        p.names = names;
        p.page_size = 100;
        p.paging_state = text("state");
        p.serial_consistency = CQL_PROTO_CL_LOCAL_SERIAL;
        p.timestamp = 1234567;
        p.keyspace = text("ks");
        p.now_in_seconds = 42;
        p.flags = CQL_PROTO_Q_SKIP_METADATA;
        size_t at = cql_proto_request_begin(&b, version, 1, CQL_PROTO_QUERY);
        cql_proto_put_query(&b, version, (const uint8_t *)"SELECT * FROM t", 15, &p);
        ASSERT_EQ(cql_proto_request_end(&b, at, CQL_PROTO_COMPRESS_NONE), 0);
        eng_arena a;
        eng_arena_init(&a, 256);
        cql_proto_request req;
        eng_err err;
        ASSERT_OK_ERR(server_reads(&b, &req, &a, &err), &err);
        const cql_proto_query_params *q = &req.u.query.params;
        ASSERT(val_is(req.u.query.query, "SELECT * FROM t"));
        ASSERT_EQ(q->consistency, CQL_PROTO_CL_LOCAL_QUORUM);
        ASSERT(q->flags & CQL_PROTO_Q_SKIP_METADATA);
        ASSERT_EQ(q->n_values, 3);
        ASSERT(val_is(q->values[0], "a") && val_is(q->names[1], "y"));
        ASSERT_EQ(q->values[1].len, -1);
        ASSERT_EQ(q->values[2].len, -2);
        ASSERT_EQ(q->page_size, 100);
        ASSERT(val_is(q->paging_state, "state"));
        ASSERT_EQ(q->serial_consistency, CQL_PROTO_CL_LOCAL_SERIAL);
        ASSERT_EQ(q->timestamp, 1234567);
        if (version >= 5) {
            ASSERT(val_is(q->keyspace, "ks"));
            ASSERT_EQ(q->now_in_seconds, 42);
        } else {
            ASSERT_EQ(q->keyspace.len, 0);
        }
        eng_arena_free(&a);
        eng_buf_free(&b);
    }
}

/* [PV4] §2.2: with flag 0x04 the body starts with a [bytes map], the message after it. */
TEST(a_custom_payload_goes_before_the_body_and_the_server_reads_it)
{
    for (uint8_t version = 4; version <= 5; version++) {
        eng_buf b = ENG_BUF_INIT;
        cql_proto_query_params p;
        cql_proto_query_params_init(&p);
        eng_val names[3] = {text("a"), text("k\0z"), text("")};
        names[1].len = 3; /* a NUL inside the name goes as it is */
        static const uint8_t bin[] = {0x00, 0xFF, 0x10};
        eng_val vals[3] = {{bin, 3}, text(""), {NULL, -1}};
        size_t at = cql_proto_request_begin_flags(&b, version, 9, CQL_PROTO_QUERY,
                                                  CQL_PROTO_FLAG_CUSTOM_PAYLOAD);
        cql_proto_put_custom_payload(&b, names, vals, 3);
        cql_proto_put_query(&b, version, (const uint8_t *)"SELECT 1", 8, &p);
        ASSERT_EQ(cql_proto_request_end(&b, at, CQL_PROTO_COMPRESS_NONE), 0);
        ASSERT_EQ(b.p[1], CQL_PROTO_FLAG_CUSTOM_PAYLOAD);
        /* the map's bytes right after the header: count, then [string] [bytes] pairs */
        static const uint8_t map[] = {0x00, 0x03, 0x00, 0x01, 'a', 0x00, 0x00, 0x00, 0x03,
                                      0x00, 0xFF, 0x10, 0x00, 0x03, 'k', 0x00, 'z'};
        ASSERT_MEM_EQ(b.p + CQL_PROTO_HEADER_LEN, map, sizeof map);
        eng_arena a;
        eng_arena_init(&a, 256);
        cql_proto_request req;
        eng_err err;
        ASSERT_OK_ERR(server_reads(&b, &req, &a, &err), &err);
        ASSERT_EQ(req.opcode, CQL_PROTO_QUERY);
        ASSERT_EQ(req.custom_payload.n, 3);
        ASSERT(val_is(req.custom_payload.keys[0], "a"));
        ASSERT_EQ(req.custom_payload.vals[0].len, 3);
        ASSERT_MEM_EQ(req.custom_payload.vals[0].p, bin, 3);
        ASSERT_EQ(req.custom_payload.keys[1].len, 3);
        ASSERT_MEM_EQ(req.custom_payload.keys[1].p, "k\0z", 3);
        ASSERT_EQ(req.custom_payload.vals[1].len, 0);
        ASSERT_EQ(req.custom_payload.keys[2].len, 0);
        ASSERT_EQ(req.custom_payload.vals[2].len, -1);
        ASSERT(val_is(req.u.query.query, "SELECT 1"));
        eng_arena_free(&a);
        eng_buf_free(&b);
    }
    /* without the flag the same builder makes the plain frame */
    eng_buf b = ENG_BUF_INIT;
    size_t at = cql_proto_request_begin_flags(&b, 4, 1, CQL_PROTO_OPTIONS, 0);
    ASSERT_EQ(cql_proto_request_end(&b, at, CQL_PROTO_COMPRESS_NONE), 0);
    ASSERT_EQ(b.p[1], 0);
    eng_buf_free(&b);
}

TEST(prepare_execute_and_batch_reach_the_server)
{
    eng_buf b = ENG_BUF_INIT;
    eng_arena a;
    eng_arena_init(&a, 256);
    cql_proto_request req;
    eng_err err;
    size_t at = cql_proto_request_begin(&b, 5, 2, CQL_PROTO_PREPARE);
    cql_proto_put_prepare(&b, 5, (const uint8_t *)"SELECT v FROM t", 15, "ks");
    ASSERT_EQ(cql_proto_request_end(&b, at, CQL_PROTO_COMPRESS_NONE), 0);
    ASSERT_OK_ERR(server_reads(&b, &req, &a, &err), &err);
    ASSERT(val_is(req.u.prepare.query, "SELECT v FROM t") && val_is(req.u.prepare.keyspace, "ks"));

    eng_buf_reset(&b);
    cql_proto_query_params p;
    cql_proto_query_params_init(&p);
    eng_val v = text("1");
    p.n_values = 1;
    p.values = &v;
    at = cql_proto_request_begin(&b, 5, 3, CQL_PROTO_EXECUTE);
    cql_proto_put_execute(&b, 5, text("0123456789abcdef"), text("fedcba9876543210"), &p);
    ASSERT_EQ(cql_proto_request_end(&b, at, CQL_PROTO_COMPRESS_LZ4), 0); /* v5: never compressed */
    ASSERT_OK_ERR(server_reads(&b, &req, &a, &err), &err);
    ASSERT(val_is(req.u.execute.id, "0123456789abcdef"));
    ASSERT(val_is(req.u.execute.result_metadata_id, "fedcba9876543210"));
    ASSERT(val_is(req.u.execute.params.values[0], "1"));

    eng_buf_reset(&b);
    cql_proto_batch_stmt stmts[2] = {{0, text("INSERT INTO t (k) VALUES (?)"), 1, &v, NULL},
                                     {1, text("0123456789abcdef"), 1, &v, NULL}};
    cql_proto_query_params_init(&p);
    p.timestamp = 99;
    at = cql_proto_request_begin(&b, 4, 4, CQL_PROTO_BATCH);
    cql_proto_put_batch(&b, 4, CQL_PROTO_BATCH_UNLOGGED, stmts, 2, &p);
    ASSERT_EQ(cql_proto_request_end(&b, at, CQL_PROTO_COMPRESS_NONE), 0);
    ASSERT_OK_ERR(server_reads(&b, &req, &a, &err), &err);
    ASSERT_EQ(req.u.batch.type, CQL_PROTO_BATCH_UNLOGGED);
    ASSERT_EQ(req.u.batch.n, 2);
    ASSERT_EQ(req.u.batch.stmts[1].kind, 1);
    ASSERT(val_is(req.u.batch.stmts[0].query_or_id, "INSERT INTO t (k) VALUES (?)"));
    ASSERT_EQ(req.u.batch.params.timestamp, 99);
    eng_arena_free(&a);
    eng_buf_free(&b);
}

/* ---- responses ---- */

/* A response frame the server writes, decoded by the client. */
static int client_reads(const eng_buf *frame, const cql_column_spec *known, uint32_t n_known,
                        eng_arena *a, cql_proto_response *out, eng_err *err)
{
    cql_proto_header h;
    cql_proto_header_decode(frame->p, &h);
    ASSERT(h.response);
    eng_err_clear(err);
    return cql_proto_response_decode(&h, frame->p + CQL_PROTO_HEADER_LEN, h.length, known,
                                     n_known, a, out, err);
}

static const eng_type int_type = {.kind = ENG_INT};
static const eng_type text_type = {.kind = ENG_TEXT};
static const eng_type date_type = {.kind = ENG_DATE};

/* A result with columns of several types, some nested, and two rows. */
static cql_result *sample_rows(eng_type **nested)
{
    eng_type *m = eng_type_new_map(eng_type_new(ENG_TEXT), eng_type_new_list(eng_type_new(ENG_INT), 1), 0);
    char **names = malloc(2 * sizeof *names);
    names[0] = strdup("a");
    names[1] = strdup("b");
    eng_type **ft = malloc(2 * sizeof *ft);
    ft[0] = eng_type_new(ENG_INT);
    ft[1] = eng_type_new_custom("com.example.Custom");
    eng_type *u = eng_type_new_udt("ks", "u", names, ft, 2, 0);
    free(names);
    free(ft);
    eng_type *comps[2] = {eng_type_new(ENG_DURATION), eng_type_new(ENG_SMALLINT)};
    eng_type *tup = eng_type_new_tuple(comps, 2);
    nested[0] = m;
    nested[1] = u;
    nested[2] = tup;
    cql_result *r = cql_result_new(CQL_RESULT_ROWS);
    cql_column_spec cols[6] = {{"ks", "t", "k", &int_type},   {"ks", "t", "v", &text_type},
                               {"ks", "t", "d", &date_type},  {"ks", "t", "m", m},
                               {"ks", "t", "u", u},           {"ks", "t", "tu", tup}};
    ASSERT_EQ(cql_result_set_columns(r, cols, 6), 0);
    eng_val row1[6] = {{(const uint8_t *)"\0\0\0\1", 4}, text("one"), {NULL, -1},
                       {NULL, -1},                        {NULL, -1}, {NULL, -1}};
    eng_val row2[6] = {{(const uint8_t *)"\0\0\0\2", 4}, {NULL, -1}, {(const uint8_t *)"\x80\0\0\0", 4},
                       {(const uint8_t *)"\0\0\0\0", 4},  {NULL, -1}, {NULL, -1}};
    ASSERT_EQ(cql_result_add_row(r, row1), 0);
    ASSERT_EQ(cql_result_add_row(r, row2), 0);
    eng_buf_put(&r->paging_state, "page", 4);
    r->has_more = 1;
    ASSERT_EQ(cql_result_finish(r), 0);
    return r;
}

static void frame_result(eng_buf *out, uint8_t version, const cql_result *r,
                         const cql_proto_rows_opts *o, const char *warning)
{
    eng_buf_reset(out);
    size_t at = cql_proto_frame_begin(out, version, 5, CQL_PROTO_RESULT, &warning, warning ? 1 : 0);
    ASSERT_EQ(cql_proto_put_result(out, version, r, o), 0);
    ASSERT_EQ(cql_proto_frame_end(out, at, CQL_PROTO_COMPRESS_NONE), 0);
}

TEST(rows_come_back_with_their_types_paging_state_and_warnings)
{
    eng_type *nested[3];
    cql_result *r = sample_rows(nested);
    for (uint8_t version = 3; version <= 5; version++) {
        eng_buf f = ENG_BUF_INIT;
        frame_result(&f, version, r, NULL, "a warning");
        eng_arena a;
        eng_arena_init(&a, 256);
        cql_proto_response resp;
        eng_err err;
        ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
        cql_result *got = resp.result;
        ASSERT(got && got->kind == CQL_RESULT_ROWS);
        ASSERT_EQ(got->n_cols, 6);
        ASSERT_EQ(got->n_rows, 2);
        ASSERT(got->has_more);
        ASSERT_EQ(got->paging_state.len, 4);
        ASSERT_STR_EQ(got->cols[5].name, "tu");
        ASSERT_STR_EQ(got->cols[0].table, "t");
        /* v3 names date, smallint and duration by their classes: they come back as the types */
        for (uint32_t c = 0; c < 6; c++)
            ASSERT(eng_type_equal(got->cols[c].type, r->cols[c].type) ||
                   (c == 3 && got->cols[3].type->kind == ENG_MAP));
        for (uint32_t i = 0; i < 12; i++) {
            ASSERT_EQ(got->cells[i].len, r->cells[i].len);
            if (r->cells[i].len > 0)
                ASSERT_MEM_EQ(got->cells[i].p, r->cells[i].p, (size_t)r->cells[i].len);
        }
        if (version >= 4) {
            ASSERT_EQ(resp.n_warnings, 1);
            ASSERT_STR_EQ(resp.warnings[0], "a warning");
        }
        cql_result_free(got);
        eng_arena_free(&a);
        eng_buf_free(&f);
    }
    cql_result_free(r);
    for (int i = 0; i < 3; i++)
        eng_type_free(nested[i]);
}

TEST(rows_without_metadata_take_the_statements_columns)
{
    eng_type *nested[3];
    cql_result *r = sample_rows(nested);
    eng_buf f = ENG_BUF_INIT;
    cql_proto_rows_opts o = {.skip_metadata = 1};
    frame_result(&f, 4, r, &o, NULL);
    eng_arena a;
    eng_arena_init(&a, 256);
    cql_proto_response resp;
    eng_err err;
    ASSERT_OK_ERR(client_reads(&f, r->cols, r->n_cols, &a, &resp, &err), &err);
    ASSERT(resp.no_metadata);
    ASSERT_EQ(resp.result->n_cols, 6);
    ASSERT(resp.result->cols[4].type == r->cols[4].type);
    ASSERT_EQ(resp.result->n_rows, 2);
    cql_result_free(resp.result);
    eng_arena_free(&a);
    eng_buf_free(&f);
    cql_result_free(r);
    for (int i = 0; i < 3; i++)
        eng_type_free(nested[i]);
}

TEST(prepared_results_carry_markers_routing_and_result_columns)
{
    cql_result *p = cql_result_new(CQL_RESULT_PREPARED);
    cql_column_spec binds[2] = {{"ks", "t", "k", &int_type}, {"ks", "t", "v", &text_type}};
    cql_column_spec cols[1] = {{"ks", "t", "v", &text_type}};
    uint16_t pk[1] = {0};
    p->binds = binds;
    p->n_binds = 2;
    p->pk_binds = pk;
    p->n_pk_binds = 1;
    ASSERT_EQ(cql_result_set_columns(p, cols, 1), 0);
    p->prepared_id = text("0123456789abcdef");
    for (uint8_t version = 3; version <= 5; version++) {
        eng_buf f = ENG_BUF_INIT;
        frame_result(&f, version, p, NULL, NULL);
        eng_arena a;
        eng_arena_init(&a, 256);
        cql_proto_response resp;
        eng_err err;
        ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
        cql_result *got = resp.result;
        ASSERT(got->kind == CQL_RESULT_PREPARED);
        ASSERT(val_is(got->prepared_id, "0123456789abcdef"));
        ASSERT_EQ(got->n_binds, 2);
        ASSERT_STR_EQ(got->binds[1].name, "v");
        ASSERT_EQ(got->binds[1].type->kind, ENG_TEXT);
        ASSERT_EQ(got->n_pk_binds, version >= 4 ? 1u : 0u);
        ASSERT_EQ(got->n_cols, 1);
        ASSERT_STR_EQ(got->cols[0].name, "v");
        ASSERT_EQ(resp.result_metadata_id.len, version >= 5 ? 16 : 0);
        cql_result_free(got);
        eng_arena_free(&a);
        eng_buf_free(&f);
    }
    p->binds = NULL;
    p->pk_binds = NULL;
    cql_result_free(p);
}

TEST(schema_changes_keyspaces_and_void)
{
    cql_result *r = cql_result_new(CQL_RESULT_SCHEMA_CHANGE);
    r->change = "CREATED";
    r->target = "TABLE";
    r->keyspace = "ks";
    r->object = "t";
    eng_buf f = ENG_BUF_INIT;
    frame_result(&f, 4, r, NULL, NULL);
    eng_arena a;
    eng_arena_init(&a, 256);
    cql_proto_response resp;
    eng_err err;
    ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
    ASSERT_STR_EQ(resp.result->change, "CREATED");
    ASSERT_STR_EQ(resp.result->object, "t");
    cql_result_free(resp.result);
    r->kind = CQL_RESULT_SET_KEYSPACE;
    frame_result(&f, 4, r, NULL, NULL);
    ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
    ASSERT_STR_EQ(resp.result->keyspace, "ks");
    cql_result_free(resp.result);
    r->kind = CQL_RESULT_VOID;
    frame_result(&f, 4, r, NULL, NULL);
    ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
    ASSERT_EQ(resp.result->kind, CQL_RESULT_VOID);
    cql_result_free(resp.result);
    /* the event form of a schema change */
    r->kind = CQL_RESULT_SCHEMA_CHANGE;
    eng_buf_reset(&f);
    size_t at = cql_proto_frame_begin(&f, 4, -1, CQL_PROTO_EVENT, NULL, 0);
    cql_proto_put_schema_change_event(&f, r);
    ASSERT_EQ(cql_proto_frame_end(&f, at, CQL_PROTO_COMPRESS_NONE), 0);
    ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
    ASSERT(val_is(resp.event_type, "SCHEMA_CHANGE"));
    ASSERT_STR_EQ(resp.result->target, "TABLE");
    cql_result_free(resp.result);
    cql_result_free(r);
    eng_arena_free(&a);
    eng_buf_free(&f);
}

TEST(errors_come_back_as_engine_errors_with_their_extras)
{
    static const struct {
        int code;
        uint8_t version;
    } cases[] = {{ENG_E_INVALID, 4},   {ENG_E_UNAVAILABLE, 4},   {ENG_E_WRITE_TIMEOUT, 5},
                 {ENG_E_READ_FAILURE, 5}, {ENG_E_EXISTS, 4},     {ENG_E_UNPREPARED, 4},
                 {ENG_E_SERVER, 3},    {ENG_E_WRITE_FAILURE, 4}, {ENG_E_BAD_CREDENTIALS, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        eng_err e;
        eng_err_clear(&e);
        eng_errorf(&e, cases[i].code, "message %zu", i);
        snprintf(e.ks, sizeof e.ks, "ks");
        snprintf(e.table, sizeof e.table, "t");
        cql_proto_error pe;
        cql_proto_error_from_eng(&e, &pe);
        pe.unprepared_id = text("0123456789abcdef");
        pe.num_failures = 2;
        eng_buf f = ENG_BUF_INIT;
        size_t at = cql_proto_frame_begin(&f, cases[i].version, 1, CQL_PROTO_ERROR, NULL, 0);
        cql_proto_put_error(&f, cases[i].version, &pe);
        ASSERT_EQ(cql_proto_frame_end(&f, at, CQL_PROTO_COMPRESS_NONE), 0);
        eng_arena a;
        eng_arena_init(&a, 256);
        cql_proto_response resp;
        eng_err err;
        ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
        ASSERT_EQ(resp.err.code, cases[i].code);
        char want[32];
        snprintf(want, sizeof want, "message %zu", i);
        ASSERT_STR_EQ(resp.err.msg, want);
        if (cases[i].code == ENG_E_EXISTS)
            ASSERT(!strcmp(resp.err.ks, "ks") && !strcmp(resp.err.table, "t"));
        if (cases[i].code == ENG_E_UNPREPARED)
            ASSERT(val_is(resp.error.unprepared_id, "0123456789abcdef"));
        if (cases[i].code == ENG_E_READ_FAILURE)
            ASSERT_EQ(resp.error.num_failures, 2);
        eng_arena_free(&a);
        eng_buf_free(&f);
    }
}

TEST(handshake_responses_decode)
{
    eng_buf f = ENG_BUF_INIT;
    eng_arena a;
    eng_arena_init(&a, 256);
    cql_proto_response resp;
    eng_err err;
    size_t at = cql_proto_frame_begin(&f, 4, 0, CQL_PROTO_SUPPORTED, NULL, 0);
    cql_proto_put_supported(&f, "3.4.6");
    ASSERT_EQ(cql_proto_frame_end(&f, at, CQL_PROTO_COMPRESS_NONE), 0);
    ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
    ASSERT_EQ(resp.supported.n, 3);
    eng_buf_reset(&f);
    at = cql_proto_frame_begin(&f, 4, 0, CQL_PROTO_AUTHENTICATE, NULL, 0);
    cql_proto_put_authenticate(&f, "org.apache.cassandra.auth.PasswordAuthenticator");
    ASSERT_EQ(cql_proto_frame_end(&f, at, CQL_PROTO_COMPRESS_NONE), 0);
    ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
    ASSERT(val_is(resp.authenticator, "org.apache.cassandra.auth.PasswordAuthenticator"));
    eng_buf_reset(&f);
    at = cql_proto_frame_begin(&f, 4, 0, CQL_PROTO_AUTH_SUCCESS, NULL, 0);
    cql_proto_put_token(&f, NULL, -1);
    ASSERT_EQ(cql_proto_frame_end(&f, at, CQL_PROTO_COMPRESS_NONE), 0);
    ASSERT_OK_ERR(client_reads(&f, NULL, 0, &a, &resp, &err), &err);
    ASSERT_EQ(resp.token.len, -1);
    eng_arena_free(&a);
    eng_buf_free(&f);
}

TEST(every_truncation_of_a_response_is_a_protocol_error_not_a_crash)
{
    eng_type *nested[3];
    cql_result *r = sample_rows(nested);
    eng_buf f = ENG_BUF_INIT;
    frame_result(&f, 5, r, NULL, "w");
    size_t body = f.len - CQL_PROTO_HEADER_LEN;
    cql_proto_header h;
    cql_proto_header_decode(f.p, &h);
    for (size_t cut = 0; cut < body; cut++) {
        eng_arena a;
        eng_arena_init(&a, 256);
        cql_proto_response resp;
        eng_err err;
        eng_err_clear(&err);
        int rc = cql_proto_response_decode(&h, f.p + CQL_PROTO_HEADER_LEN, cut, NULL, 0, &a,
                                           &resp, &err);
        ASSERT_EQ(rc, ENG_E_PROTOCOL);
        ASSERT(resp.result == NULL);
        eng_arena_free(&a);
    }
    eng_buf_free(&f);
    cql_result_free(r);
    for (int i = 0; i < 3; i++)
        eng_type_free(nested[i]);
}
