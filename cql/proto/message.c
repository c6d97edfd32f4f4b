/*
 * Requests decoded, responses encoded (message.h). The layouts are those of
 * [PV4] §4 and [PV5] §4; where v3, v4 and v5 differ, the version decides
 * here and nowhere else.
 */
#include "cql/proto/message.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cql/errors.h"

/* The largest type, written out as [option]s, a result may describe: a user type used twice
   per level doubles per level (eng_type_tree_size), and its description must not take the
   server's memory. */
#define CQL_PROTO_MAX_TYPE_NODES (1u << 20)

static const char *const consistency_names[] = {
    "ANY",          "ONE",         "TWO",    "THREE",        "QUORUM",    "ALL",
    "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE",
};

const char *cql_proto_consistency_name(uint16_t cl)
{
    return cl < sizeof consistency_names / sizeof *consistency_names ? consistency_names[cl] : NULL;
}

/* ---- requests ---- */

/* What a decoder met that Cassandra refuses, beyond a truncated item (cql_proto_reader.bad). */
typedef struct decode_ctx {
    cql_proto_reader r;
    eng_arena *a;
    uint8_t version;
    int nomem;
    char why[160]; /* a refusal with a number in it; r.bad points here */
} decode_ctx;

static void refuse(decode_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void refuse(decode_ctx *c, const char *fmt, ...)
{
    if (c->r.bad)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    cql_proto_reader_fail(&c->r, c->why);
}

static uint16_t get_consistency(decode_ctx *c)
{
    uint16_t cl = cql_proto_get_short(&c->r);
    if (!c->r.bad && !cql_proto_consistency_name(cl))
        refuse(c, "Unknown code %d for a consistency level", cl);
    return cl;
}

/* n [value]s, each preceded by its [string] name when `named`. */
static void get_values(decode_ctx *c, int named, uint16_t *n_out, eng_val **values, eng_val **names)
{
    uint16_t n = cql_proto_get_short(&c->r);
    *n_out = 0;
    *values = *names = NULL;
    if (c->r.bad)
        return;
    /* each [value] is at least its 4-byte length, each name 2: refuse a count the bytes
       cannot hold before asking the arena for room for it */
    if ((size_t)n * (named ? 6 : 4) > cql_proto_left(&c->r)) {
        cql_proto_reader_fail(&c->r, "not enough bytes to read the values");
        return;
    }
    if (n == 0)
        return;
    eng_val *v = eng_arena_alloc(c->a, n * sizeof *v);
    eng_val *nm = named ? eng_arena_alloc(c->a, n * sizeof *nm) : NULL;
    if (!v || (named && !nm)) {
        c->nomem = 1;
        return;
    }
    for (uint16_t i = 0; i < n; i++) {
        if (named)
            nm[i] = cql_proto_get_string(&c->r);
        v[i] = cql_proto_get_value(&c->r);
    }
    *n_out = n;
    *values = v;
    *names = nm;
}

/* <query_parameters> of QUERY and EXECUTE, and the tail of BATCH (whose flags never carry
   values, page size or paging state: `batch`). */
void cql_proto_query_params_init(cql_proto_query_params *p)
{
    memset(p, 0, sizeof *p);
    p->consistency = CQL_PROTO_CL_ONE;
    p->page_size = -1;
    p->paging_state.len = -1;
    p->serial_consistency = CQL_PROTO_CL_SERIAL;
    p->timestamp = INT64_MIN;
}

static void get_params(decode_ctx *c, cql_proto_query_params *p, int batch)
{
    cql_proto_query_params_init(p);
    p->consistency = get_consistency(c);
    p->flags = c->version >= 5 ? (uint32_t)cql_proto_get_int(&c->r) : cql_proto_get_byte(&c->r);
    if (c->r.bad)
        return;
    if (!batch && (p->flags & CQL_PROTO_Q_VALUES))
        get_values(c, (p->flags & CQL_PROTO_Q_NAMES_FOR_VALUES) != 0, &p->n_values, &p->values,
                   &p->names);
    if (!batch && (p->flags & CQL_PROTO_Q_PAGE_SIZE)) {
        p->page_size = cql_proto_get_int(&c->r);
        if (!c->r.bad && p->page_size == 0)
            cql_proto_reader_fail(&c->r, "The page size cannot be 0");
    }
    if (!batch && (p->flags & CQL_PROTO_Q_PAGING_STATE))
        p->paging_state = cql_proto_get_value(&c->r);
    if (p->flags & CQL_PROTO_Q_SERIAL_CONSISTENCY)
        p->serial_consistency = get_consistency(c);
    if (p->flags & CQL_PROTO_Q_DEFAULT_TIMESTAMP) {
        p->timestamp = cql_proto_get_long(&c->r);
        if (!c->r.bad && p->timestamp == INT64_MIN)
            cql_proto_reader_fail(&c->r,
                                  "Out of bound timestamp, must be in [-9223372036854775807, "
                                  "9223372036854775807] (got -9223372036854775808)");
    }
    if (c->version >= 5 && (p->flags & CQL_PROTO_Q_KEYSPACE))
        p->keyspace = cql_proto_get_string(&c->r);
    if (c->version >= 5 && (p->flags & CQL_PROTO_Q_NOW_IN_SECONDS))
        p->now_in_seconds = cql_proto_get_int(&c->r);
}

static void get_batch(decode_ctx *c, cql_proto_request *out)
{
    uint8_t type = cql_proto_get_byte(&c->r);
    if (!c->r.bad && type > CQL_PROTO_BATCH_COUNTER)
        refuse(c, "Invalid BATCH message type %d", type);
    uint16_t n = cql_proto_get_short(&c->r);
    /* each statement is at least a kind byte, a 2-byte id length and a 2-byte value count */
    if (!c->r.bad && (size_t)n * 5 > cql_proto_left(&c->r))
        cql_proto_reader_fail(&c->r, "not enough bytes to read the batch's statements");
    if (c->r.bad)
        return;
    cql_proto_batch_stmt *stmts = n ? eng_arena_alloc(c->a, n * sizeof *stmts) : NULL;
    if (n && !stmts) {
        c->nomem = 1;
        return;
    }
    for (uint16_t i = 0; i < n && !c->r.bad && !c->nomem; i++) {
        cql_proto_batch_stmt *s = &stmts[i];
        s->kind = cql_proto_get_byte(&c->r);
        if (s->kind == 0)
            s->query_or_id = cql_proto_get_long_string(&c->r);
        else if (s->kind == 1)
            s->query_or_id = cql_proto_get_short_bytes(&c->r);
        else
            refuse(c, "Invalid query kind in BATCH messages. Must be 0 or 1 but got %d", s->kind);
        get_values(c, 0, &s->n_values, &s->values, &s->names);
    }
    out->u.batch.type = type;
    out->u.batch.n = n;
    out->u.batch.stmts = stmts;
    get_params(c, &out->u.batch.params, 1);
}

static int takes_payload(uint8_t opcode)
{
    return opcode == CQL_PROTO_QUERY || opcode == CQL_PROTO_PREPARE ||
           opcode == CQL_PROTO_EXECUTE || opcode == CQL_PROTO_BATCH;
}

int cql_proto_request_decode(const cql_proto_header *h, const uint8_t *body, size_t len,
                             eng_arena *a, cql_proto_request *out, eng_err *err)
{
    memset(out, 0, sizeof *out);
    out->opcode = h->opcode;
    const char *name = cql_proto_opcode_name(h->opcode);
    if (!name)
        return eng_errorf(err, ENG_E_PROTOCOL, "Unknown opcode %d", h->opcode);
    if (!cql_proto_opcode_is_request(h->opcode))
        return eng_errorf(err, ENG_E_PROTOCOL,
                          "Wrong message direction: %s is a response, not a request", name);
    decode_ctx c;
    cql_proto_reader_init(&c.r, body, len);
    c.a = a;
    c.version = h->version;
    c.nomem = 0;
    c.why[0] = '\0';
    int rc = 0;
    if ((h->flags & CQL_PROTO_FLAG_CUSTOM_PAYLOAD) && h->version >= 4 && takes_payload(h->opcode))
        rc = cql_proto_get_bytes_map(&c.r, a, &out->custom_payload);
    switch (h->opcode) {
    case CQL_PROTO_STARTUP:
        rc = cql_proto_get_string_map(&c.r, a, &out->u.startup);
        break;
    case CQL_PROTO_OPTIONS:
        break;
    case CQL_PROTO_AUTH_RESPONSE:
        out->u.auth_token = cql_proto_get_bytes(&c.r);
        break;
    case CQL_PROTO_REGISTER:
        rc = cql_proto_get_string_list(&c.r, a, &out->u.events);
        break;
    case CQL_PROTO_QUERY:
        out->u.query.query = cql_proto_get_long_string(&c.r);
        get_params(&c, &out->u.query.params, 0);
        break;
    case CQL_PROTO_PREPARE:
        out->u.prepare.query = cql_proto_get_long_string(&c.r);
        if (h->version >= 5) {
            out->u.prepare.flags = (uint32_t)cql_proto_get_int(&c.r);
            if (out->u.prepare.flags & CQL_PROTO_PREPARE_KEYSPACE)
                out->u.prepare.keyspace = cql_proto_get_string(&c.r);
        }
        break;
    case CQL_PROTO_EXECUTE:
        out->u.execute.id = cql_proto_get_short_bytes(&c.r);
        if (h->version >= 5)
            out->u.execute.result_metadata_id = cql_proto_get_short_bytes(&c.r);
        get_params(&c, &out->u.execute.params, 0);
        break;
    case CQL_PROTO_BATCH:
        get_batch(&c, out);
        break;
    }
    if (rc || c.nomem)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory decoding a %s message", name);
    if (c.r.bad)
        return eng_errorf(err, ENG_E_PROTOCOL, "Invalid %s message: %s", name, c.r.bad);
    return 0;
}

/* ---- frames ---- */

size_t cql_proto_frame_begin(eng_buf *out, uint8_t version, int16_t stream, uint8_t opcode,
                             const char *const *warnings, uint32_t n_warnings)
{
    return cql_proto_frame_begin_traced(out, version, stream, opcode, NULL, warnings, n_warnings);
}

size_t cql_proto_frame_begin_traced(eng_buf *out, uint8_t version, int16_t stream, uint8_t opcode,
                                    const uint8_t *tracing_id, const char *const *warnings,
                                    uint32_t n_warnings)
{
    size_t start = out->len;
    cql_proto_header h = {.version = version,
                          .response = 1,
                          .flags = 0,
                          .stream = stream,
                          .opcode = opcode,
                          .length = 0};
    if (tracing_id)
        h.flags |= CQL_PROTO_FLAG_TRACING;
    if (n_warnings && version >= 4)
        h.flags |= CQL_PROTO_FLAG_WARNING;
    uint8_t hdr[CQL_PROTO_HEADER_LEN];
    cql_proto_header_encode(&h, hdr);
    eng_buf_put(out, hdr, sizeof hdr);
    if (tracing_id) /* [uuid] first, before the warnings ([PV4] 2.2) */
        eng_buf_put(out, tracing_id, 16);
    if (h.flags & CQL_PROTO_FLAG_WARNING) {
        uint16_t n = n_warnings > UINT16_MAX ? UINT16_MAX : (uint16_t)n_warnings;
        cql_proto_put_string_list(out, warnings, n);
    }
    return start;
}

int cql_proto_frame_end(eng_buf *out, size_t start, cql_proto_compression c)
{
    if (out->oom)
        return ENG_E_NOMEM;
    uint8_t *hdr = out->p + start;
    size_t body = out->len - start - CQL_PROTO_HEADER_LEN;
    if (c != CQL_PROTO_COMPRESS_NONE && (hdr[0] & ~CQL_PROTO_RESPONSE_BIT) < 5) {
        eng_buf z = ENG_BUF_INIT;
        if (cql_proto_compress(c, hdr + CQL_PROTO_HEADER_LEN, body, &z)) {
            eng_buf_free(&z);
            return ENG_E_NOMEM;
        }
        out->len = start + CQL_PROTO_HEADER_LEN;
        eng_buf_put(out, z.p, z.len);
        body = z.len;
        eng_buf_free(&z);
        if (out->oom)
            return ENG_E_NOMEM;
        hdr = out->p + start;
        hdr[1] |= CQL_PROTO_FLAG_COMPRESSION;
    }
    if (body > CQL_PROTO_MAX_BODY)
        return ENG_E_NOMEM;
    eng_put_be32(hdr + 5, (uint32_t)body);
    return 0;
}

/* ---- ERROR ---- */

void cql_proto_error_from_eng(const eng_err *err, cql_proto_error *out)
{
    memset(out, 0, sizeof *out);
    out->code = eng_err_protocol_code(err->code);
    out->message = err->msg;
    out->consistency = CQL_PROTO_CL_ONE;
    if (err->code == ENG_E_EXISTS) {
        out->keyspace = err->ks;
        out->table = err->table;
    }
}

enum {
    ERR_UNAVAILABLE = 0x1000,
    ERR_WRITE_TIMEOUT = 0x1100,
    ERR_READ_TIMEOUT = 0x1200,
    ERR_READ_FAILURE = 0x1300,
    ERR_FUNCTION_FAILURE = 0x1400,
    ERR_WRITE_FAILURE = 0x1500,
    ERR_CDC_WRITE_FAILURE = 0x1600,
    ERR_CAS_WRITE_UNKNOWN = 0x1700,
    ERR_INVALID = 0x2200,
    ERR_ALREADY_EXISTS = 0x2400,
    ERR_UNPREPARED = 0x2500,
    ERR_SERVER = 0x0000,
};

/* v5's <reasonmap>: the failures as endpoint and reason code; one entry per failure, each
   this node (a single node is every replica) with reason UNKNOWN (0x0000). */
static void put_reason_map(eng_buf *out, int32_t n)
{
    static const cql_proto_inet self = {.len = 4, .addr = {127, 0, 0, 1}};
    cql_proto_put_int(out, n);
    for (int32_t i = 0; i < n; i++) {
        cql_proto_put_inetaddr(out, &self);
        cql_proto_put_short(out, 0x0000);
    }
}

/* <cl><required><alive> (UNAVAILABLE) or <cl><received><blockfor> (the others). */
static void put_counts(eng_buf *out, const cql_proto_error *e)
{
    cql_proto_put_short(out, e->consistency);
    cql_proto_put_int(out, e->required_or_received);
    cql_proto_put_int(out, e->alive_or_block_for);
}

/* The failures of READ_FAILURE and WRITE_FAILURE: v4's <numfailures>, v5's <reasonmap>. */
static void put_failures(eng_buf *out, uint8_t version, int32_t n)
{
    if (version >= 5)
        put_reason_map(out, n);
    else
        cql_proto_put_int(out, n);
}

void cql_proto_put_error(eng_buf *out, uint8_t version, const cql_proto_error *e)
{
    int32_t code = e->code;
    /* v3 has no failure codes: Cassandra sends their timeout (or invalid) counterparts, and
       v3 and v4 have none for CDC and CAS uncertainty: a server error then. */
    if (version < 4 && code == ERR_READ_FAILURE)
        code = ERR_READ_TIMEOUT;
    else if (version < 4 && code == ERR_WRITE_FAILURE)
        code = ERR_WRITE_TIMEOUT;
    else if (version < 4 && code == ERR_FUNCTION_FAILURE)
        code = ERR_INVALID;
    else if (version < 5 && (code == ERR_CDC_WRITE_FAILURE || code == ERR_CAS_WRITE_UNKNOWN))
        code = ERR_SERVER;
    cql_proto_put_int(out, code);
    cql_proto_put_string(out, e->message ? e->message : "");
    const char *write_type = e->write_type ? e->write_type : "SIMPLE";
    switch (code) {
    case ERR_UNAVAILABLE:
        put_counts(out, e);
        break;
    case ERR_WRITE_TIMEOUT:
        put_counts(out, e);
        cql_proto_put_string(out, write_type);
        if (version >= 5 && strcmp(write_type, "CAS") == 0)
            cql_proto_put_short(out, (uint16_t)e->contentions);
        break;
    case ERR_READ_TIMEOUT:
        put_counts(out, e);
        cql_proto_put_byte(out, e->data_present);
        break;
    case ERR_READ_FAILURE:
        put_counts(out, e);
        put_failures(out, version, e->num_failures);
        cql_proto_put_byte(out, e->data_present);
        break;
    case ERR_FUNCTION_FAILURE:
        cql_proto_put_string(out, e->keyspace ? e->keyspace : "");
        cql_proto_put_string(out, e->table ? e->table : "");
        cql_proto_put_string_list(out, e->arg_types, e->n_arg_types);
        break;
    case ERR_WRITE_FAILURE:
        put_counts(out, e);
        put_failures(out, version, e->num_failures);
        cql_proto_put_string(out, write_type);
        break;
    case ERR_CAS_WRITE_UNKNOWN:
        put_counts(out, e);
        break;
    case ERR_ALREADY_EXISTS:
        cql_proto_put_string(out, e->keyspace ? e->keyspace : "");
        cql_proto_put_string(out, e->table ? e->table : "");
        break;
    case ERR_UNPREPARED:
        cql_proto_put_short_bytes(out, e->unprepared_id.p,
                                  e->unprepared_id.len > 0 ? (uint16_t)e->unprepared_id.len : 0);
        break;
    }
}

/* ---- SUPPORTED, AUTHENTICATE, AUTH_* ---- */

void cql_proto_put_supported(eng_buf *out, const char *cql_version)
{
    static const char *const compressions[] = {"snappy", "lz4"};
    cql_proto_put_short(out, 3);
    cql_proto_put_string(out, "CQL_VERSION");
    cql_proto_put_string_list(out, &cql_version, 1);
    cql_proto_put_string(out, "COMPRESSION");
    cql_proto_put_string_list(out, compressions, 2);
    cql_proto_put_string(out, "PROTOCOL_VERSIONS");
    cql_proto_put_string_list(out, cql_proto_version_names,
                              sizeof cql_proto_version_names / sizeof *cql_proto_version_names);
}

void cql_proto_put_authenticate(eng_buf *out, const char *authenticator)
{
    cql_proto_put_string(out, authenticator);
}

void cql_proto_put_token(eng_buf *out, const uint8_t *p, int32_t len)
{
    cql_proto_put_bytes(out, p, len);
}

int cql_proto_sasl_plain(eng_val token, eng_val *user, eng_val *password, eng_err *err)
{
    /* PasswordAuthenticator.decodeCredentials reads from the end: the last NUL ends the
       authentication id, the one before the optional authorization id. */
    const uint8_t *p = token.len > 0 ? token.p : NULL;
    int32_t end = token.len > 0 ? token.len : 0;
    int found = 0;
    *user = *password = (eng_val){NULL, ENG_NULL};
    for (int32_t i = end - 1; i >= 0; i--) {
        if (p[i] != 0)
            continue;
        if (found == 0)
            *password = (eng_val){p + i + 1, end - i - 1};
        else if (found == 1)
            *user = (eng_val){p + i + 1, end - i - 1};
        else
            return eng_errorf(err, ENG_E_BAD_CREDENTIALS,
                              "Credential format error: username or password is empty or "
                              "contains NUL(\\0) character");
        found++;
        end = i;
    }
    if (password->len <= 0)
        return eng_errorf(err, ENG_E_BAD_CREDENTIALS, "Password must not be null");
    if (user->len <= 0)
        return eng_errorf(err, ENG_E_BAD_CREDENTIALS, "Authentication ID must not be null");
    return 0;
}

/* ---- types ---- */

/* The Java class a native type is known by to a client of a version older than the type. */
static const char *custom_class_for(int kind, uint8_t version)
{
    switch (kind) {
    case ENG_DATE:
        return version < 4 ? "org.apache.cassandra.db.marshal.SimpleDateType" : NULL;
    case ENG_TIME:
        return version < 4 ? "org.apache.cassandra.db.marshal.TimeType" : NULL;
    case ENG_SMALLINT:
        return version < 4 ? "org.apache.cassandra.db.marshal.ShortType" : NULL;
    case ENG_TINYINT:
        return version < 4 ? "org.apache.cassandra.db.marshal.ByteType" : NULL;
    case ENG_DURATION:
        return version < 5 ? "org.apache.cassandra.db.marshal.DurationType" : NULL;
    default:
        return NULL;
    }
}

static void put_type(eng_buf *out, uint8_t version, const eng_type *t)
{
    const char *custom = t->kind == ENG_CUSTOM ? t->name : custom_class_for(t->kind, version);
    if (custom) {
        cql_proto_put_short(out, ENG_CUSTOM);
        cql_proto_put_string(out, custom);
        return;
    }
    cql_proto_put_short(out, t->kind);
    switch (t->kind) {
    case ENG_LIST:
    case ENG_SET:
        put_type(out, version, t->sub[0]);
        break;
    case ENG_MAP:
        put_type(out, version, t->sub[0]);
        put_type(out, version, t->sub[1]);
        break;
    case ENG_UDT:
        cql_proto_put_string(out, t->ks);
        cql_proto_put_string(out, t->name);
        cql_proto_put_short(out, t->n_sub);
        for (uint16_t i = 0; i < t->n_sub; i++) {
            cql_proto_put_string(out, t->fields[i]);
            put_type(out, version, t->sub[i]);
        }
        break;
    case ENG_TUPLE:
        cql_proto_put_short(out, t->n_sub);
        for (uint16_t i = 0; i < t->n_sub; i++)
            put_type(out, version, t->sub[i]);
        break;
    }
}

void cql_proto_put_type(eng_buf *out, uint8_t version, const eng_type *t)
{
    if (eng_type_tree_size(t) > CQL_PROTO_MAX_TYPE_NODES) {
        out->oom = 1;
        return;
    }
    put_type(out, version, t);
}

/* ---- RESULT ---- */

enum {
    RESULT_VOID = 1,
    RESULT_ROWS = 2,
    RESULT_SET_KEYSPACE = 3,
    RESULT_PREPARED = 4,
    RESULT_SCHEMA_CHANGE = 5,
};

enum {
    META_GLOBAL_TABLES_SPEC = 0x0001,
    META_HAS_MORE_PAGES = 0x0002,
    META_NO_METADATA = 0x0004,
    META_METADATA_CHANGED = 0x0008,
};

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* 1 if every column has the first one's keyspace and table (and there is one). */
static int same_table(const cql_column_spec *cols, uint32_t n)
{
    if (n == 0)
        return 0;
    for (uint32_t i = 1; i < n; i++)
        if (strcmp(or_empty(cols[i].ks), or_empty(cols[0].ks)) != 0 ||
            strcmp(or_empty(cols[i].table), or_empty(cols[0].table)) != 0)
            return 0;
    return 1;
}

/* The column specs of a metadata block: [global table spec] then each column. */
static void put_specs(eng_buf *out, uint8_t version, const cql_column_spec *cols, uint32_t n,
                      int global)
{
    if (global) {
        cql_proto_put_string(out, or_empty(cols[0].ks));
        cql_proto_put_string(out, or_empty(cols[0].table));
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!global) {
            cql_proto_put_string(out, or_empty(cols[i].ks));
            cql_proto_put_string(out, or_empty(cols[i].table));
        }
        cql_proto_put_string(out, or_empty(cols[i].name));
        cql_proto_put_type(out, version, cols[i].type);
    }
}

/* <metadata> of a ROWS result, or the <result_metadata> of a PREPARED one. */
static void put_rows_metadata(eng_buf *out, uint8_t version, const cql_result *r,
                              const cql_proto_rows_opts *o, int prepared)
{
    int global = same_table(r->cols, r->n_cols);
    int32_t flags = global ? META_GLOBAL_TABLES_SPEC : 0;
    int no_metadata = (o && o->skip_metadata && !o->metadata_changed) || r->n_cols == 0;
    int changed = !prepared && version >= 5 && o && o->metadata_changed;
    if (!prepared && r->has_more)
        flags |= META_HAS_MORE_PAGES;
    if (no_metadata)
        flags = (flags & ~META_GLOBAL_TABLES_SPEC) | META_NO_METADATA;
    if (changed)
        flags |= META_METADATA_CHANGED;
    cql_proto_put_int(out, flags);
    cql_proto_put_int(out, (int32_t)r->n_cols);
    if (flags & META_HAS_MORE_PAGES)
        cql_proto_put_bytes(out, r->paging_state.p, (int32_t)r->paging_state.len);
    if (changed)
        cql_proto_put_short_bytes(out, o->metadata_id, (uint16_t)o->metadata_id_len);
    if (!no_metadata)
        put_specs(out, version, r->cols, r->n_cols, global);
}

/* <metadata> of a PREPARED result: its bind markers, with the partition key's in v4+. */
static void put_prepared_metadata(eng_buf *out, uint8_t version, const cql_result *r)
{
    int global = same_table(r->binds, r->n_binds);
    cql_proto_put_int(out, global ? META_GLOBAL_TABLES_SPEC : 0);
    cql_proto_put_int(out, (int32_t)r->n_binds);
    if (version >= 4) {
        cql_proto_put_int(out, (int32_t)r->n_pk_binds);
        for (uint32_t i = 0; i < r->n_pk_binds; i++)
            cql_proto_put_short(out, r->pk_binds[i]);
    }
    put_specs(out, version, r->binds, r->n_binds, global);
}

static void put_schema_change(eng_buf *out, const cql_result *r)
{
    cql_proto_put_string(out, or_empty(r->change));
    cql_proto_put_string(out, or_empty(r->target));
    cql_proto_put_string(out, or_empty(r->keyspace));
    if (strcmp(or_empty(r->target), "KEYSPACE") != 0)
        cql_proto_put_string(out, or_empty(r->object));
}

void cql_proto_result_metadata_id(const cql_result *prepared, uint8_t out[16])
{
    /* the result metadata as v5 would send it in full, hashed */
    eng_buf b = ENG_BUF_INIT;
    put_rows_metadata(&b, 5, prepared, NULL, 1);
    XXH128_hash_t h = XXH3_128bits(b.p ? b.p : (const uint8_t *)"", b.len);
    eng_put_be64(out, h.high64);
    eng_put_be64(out + 8, h.low64);
    eng_buf_free(&b);
}

int cql_proto_put_result(eng_buf *out, uint8_t version, const cql_result *r,
                         const cql_proto_rows_opts *o)
{
    switch (r->kind) {
    case CQL_RESULT_VOID:
        cql_proto_put_int(out, RESULT_VOID);
        break;
    case CQL_RESULT_SET_KEYSPACE:
        cql_proto_put_int(out, RESULT_SET_KEYSPACE);
        cql_proto_put_string(out, r->keyspace ? r->keyspace : "");
        break;
    case CQL_RESULT_SCHEMA_CHANGE:
        cql_proto_put_int(out, RESULT_SCHEMA_CHANGE);
        put_schema_change(out, r);
        break;
    case CQL_RESULT_PREPARED:
        cql_proto_put_int(out, RESULT_PREPARED);
        cql_proto_put_short_bytes(out, r->prepared_id.p, (uint16_t)r->prepared_id.len);
        if (version >= 5) {
            uint8_t id[16];
            cql_proto_result_metadata_id(r, id);
            cql_proto_put_short_bytes(out, id, sizeof id);
        }
        put_prepared_metadata(out, version, r);
        put_rows_metadata(out, version, r, NULL, 1);
        break;
    case CQL_RESULT_ROWS:
        cql_proto_put_int(out, RESULT_ROWS);
        put_rows_metadata(out, version, r, o, 0);
        cql_proto_put_int(out, (int32_t)r->n_rows);
        for (size_t i = 0; i < (size_t)r->n_rows * r->n_cols; i++)
            cql_proto_put_bytes(out, r->cells[i].p, r->cells[i].len);
        break;
    default:
        out->oom = 1;
        break;
    }
    return out->oom ? ENG_E_NOMEM : 0;
}

/* ---- EVENT ---- */

void cql_proto_put_schema_change_event(eng_buf *out, const cql_result *schema_change)
{
    cql_proto_put_string(out, "SCHEMA_CHANGE");
    put_schema_change(out, schema_change);
}

void cql_proto_put_node_event(eng_buf *out, const char *type, const char *change,
                              const cql_proto_inet *node)
{
    cql_proto_put_string(out, type);
    cql_proto_put_string(out, change);
    cql_proto_put_inet(out, node);
}
