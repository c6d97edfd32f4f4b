/*
 * The client's side of the messages (client.h): request bodies as [PV4] §4.1
 * and [PV5] §4.1 lay them out, response bodies read back as §4.2 lays them
 * out. The encoders mirror message.c's decoders and the decoders its
 * encoders, so the two sides check each other (tests/proto/test_client.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql/proto/client.h"

/* Types nest at most this deep in a response (an engine type nests at most 2,048 levels). */
#define MAX_TYPE_DEPTH 2048
/* Columns of a result at most: what no table reaches, and what bounds a result's metadata
   when the rows do not (a ROWS result may say it has columns and send no rows). */
#define MAX_COLUMNS 65535

/* ---- requests ---- */

size_t cql_proto_request_begin(eng_buf *out, uint8_t version, int16_t stream, uint8_t opcode)
{
    return cql_proto_request_begin_flags(out, version, stream, opcode, 0);
}

size_t cql_proto_request_begin_flags(eng_buf *out, uint8_t version, int16_t stream,
                                     uint8_t opcode, uint8_t flags)
{
    size_t start = out->len;
    cql_proto_header h = {.version = version, .flags = flags, .stream = stream, .opcode = opcode};
    uint8_t hdr[CQL_PROTO_HEADER_LEN];
    cql_proto_header_encode(&h, hdr);
    eng_buf_put(out, hdr, sizeof hdr);
    return start;
}

int cql_proto_request_end(eng_buf *out, size_t start, cql_proto_compression c)
{
    /* the same framing as a response's: the direction bit is already in the header */
    return cql_proto_frame_end(out, start, c);
}

void cql_proto_put_custom_payload(eng_buf *out, const eng_val *names, const eng_val *vals,
                                  uint16_t n)
{
    cql_proto_put_short(out, n);
    for (uint16_t i = 0; i < n; i++) {
        cql_proto_put_string_n(out, names[i].p, names[i].len > 0 ? (size_t)names[i].len : 0);
        cql_proto_put_bytes(out, vals[i].p, vals[i].len);
    }
}

void cql_proto_put_startup(eng_buf *out, const char *const *keys, const char *const *vals,
                           uint16_t n)
{
    cql_proto_put_short(out, n);
    for (uint16_t i = 0; i < n; i++) {
        cql_proto_put_string(out, keys[i]);
        cql_proto_put_string(out, vals[i]);
    }
}

/* The flags p's items call for. */
static uint32_t params_flags(uint8_t version, const cql_proto_query_params *p, int batch)
{
    uint32_t f = p->flags & CQL_PROTO_Q_SKIP_METADATA;
    if (!batch && p->n_values)
        f |= CQL_PROTO_Q_VALUES | (p->names ? CQL_PROTO_Q_NAMES_FOR_VALUES : 0);
    if (!batch && p->page_size > 0)
        f |= CQL_PROTO_Q_PAGE_SIZE;
    if (!batch && p->paging_state.len >= 0 && p->paging_state.p)
        f |= CQL_PROTO_Q_PAGING_STATE;
    if (p->serial_consistency && p->serial_consistency != CQL_PROTO_CL_SERIAL)
        f |= CQL_PROTO_Q_SERIAL_CONSISTENCY;
    if (p->timestamp != INT64_MIN)
        f |= CQL_PROTO_Q_DEFAULT_TIMESTAMP;
    if (version >= 5 && p->keyspace.len > 0)
        f |= CQL_PROTO_Q_KEYSPACE;
    if (version >= 5 && p->now_in_seconds)
        f |= CQL_PROTO_Q_NOW_IN_SECONDS;
    if (batch)
        f &= ~(uint32_t)CQL_PROTO_Q_SKIP_METADATA;
    return f;
}

static void put_values(eng_buf *out, uint16_t n, const eng_val *values, const eng_val *names)
{
    cql_proto_put_short(out, n);
    for (uint16_t i = 0; i < n; i++) {
        if (names)
            cql_proto_put_string_n(out, names[i].p, names[i].len > 0 ? (size_t)names[i].len : 0);
        /* [value]: a null is -1, an unset -2 */
        cql_proto_put_bytes(out, values[i].p, values[i].len);
    }
}

static void put_params(eng_buf *out, uint8_t version, const cql_proto_query_params *p, int batch)
{
    uint32_t f = params_flags(version, p, batch);
    cql_proto_put_short(out, p->consistency);
    if (version >= 5)
        cql_proto_put_int(out, (int32_t)f);
    else
        cql_proto_put_byte(out, (uint8_t)f);
    if (f & CQL_PROTO_Q_VALUES)
        put_values(out, p->n_values, p->values,
                   (f & CQL_PROTO_Q_NAMES_FOR_VALUES) ? p->names : NULL);
    if (f & CQL_PROTO_Q_PAGE_SIZE)
        cql_proto_put_int(out, p->page_size);
    if (f & CQL_PROTO_Q_PAGING_STATE)
        cql_proto_put_bytes(out, p->paging_state.p, p->paging_state.len);
    if (f & CQL_PROTO_Q_SERIAL_CONSISTENCY)
        cql_proto_put_short(out, p->serial_consistency);
    if (f & CQL_PROTO_Q_DEFAULT_TIMESTAMP)
        cql_proto_put_long(out, p->timestamp);
    if (f & CQL_PROTO_Q_KEYSPACE)
        cql_proto_put_string_n(out, p->keyspace.p, (size_t)p->keyspace.len);
    if (f & CQL_PROTO_Q_NOW_IN_SECONDS)
        cql_proto_put_int(out, p->now_in_seconds);
}

void cql_proto_put_query_params(eng_buf *out, uint8_t version, const cql_proto_query_params *p)
{
    put_params(out, version, p, 0);
}

void cql_proto_put_query(eng_buf *out, uint8_t version, const uint8_t *query, size_t len,
                         const cql_proto_query_params *p)
{
    cql_proto_put_long_string(out, query, len);
    put_params(out, version, p, 0);
}

void cql_proto_put_prepare(eng_buf *out, uint8_t version, const uint8_t *query, size_t len,
                           const char *keyspace)
{
    cql_proto_put_long_string(out, query, len);
    if (version < 5)
        return;
    cql_proto_put_int(out, keyspace && *keyspace ? CQL_PROTO_PREPARE_KEYSPACE : 0);
    if (keyspace && *keyspace)
        cql_proto_put_string(out, keyspace);
}

void cql_proto_put_execute(eng_buf *out, uint8_t version, eng_val id, eng_val metadata_id,
                           const cql_proto_query_params *p)
{
    cql_proto_put_short_bytes(out, id.p, id.len > 0 ? (uint16_t)id.len : 0);
    if (version >= 5)
        cql_proto_put_short_bytes(out, metadata_id.p,
                                  metadata_id.len > 0 ? (uint16_t)metadata_id.len : 0);
    put_params(out, version, p, 0);
}

void cql_proto_put_batch(eng_buf *out, uint8_t version, uint8_t type,
                         const cql_proto_batch_stmt *stmts, uint16_t n,
                         const cql_proto_query_params *p)
{
    cql_proto_put_byte(out, type);
    cql_proto_put_short(out, n);
    for (uint16_t i = 0; i < n; i++) {
        const cql_proto_batch_stmt *s = &stmts[i];
        cql_proto_put_byte(out, s->kind);
        size_t len = s->query_or_id.len > 0 ? (size_t)s->query_or_id.len : 0;
        if (s->kind == 0)
            cql_proto_put_long_string(out, s->query_or_id.p, len);
        else
            cql_proto_put_short_bytes(out, s->query_or_id.p, (uint16_t)len);
        put_values(out, s->n_values, s->values, NULL);
    }
    put_params(out, version, p, 1);
}

/* ---- responses: types ---- */

typedef struct dec {
    cql_proto_reader r;
    eng_arena *a;
    uint8_t version;
    int nomem;
    uint32_t nodes; /* type descriptors read in this response */
} dec;

/* A Java marshal class the protocol names a native type by in older versions. */
static int kind_of_class(const uint8_t *p, int32_t len)
{
    static const struct {
        const char *cls;
        int kind;
    } classes[] = {
        {"org.apache.cassandra.db.marshal.SimpleDateType", ENG_DATE},
        {"org.apache.cassandra.db.marshal.TimeType", ENG_TIME},
        {"org.apache.cassandra.db.marshal.ShortType", ENG_SMALLINT},
        {"org.apache.cassandra.db.marshal.ByteType", ENG_TINYINT},
        {"org.apache.cassandra.db.marshal.DurationType", ENG_DURATION},
    };
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        if ((size_t)len == strlen(classes[i].cls) && !memcmp(p, classes[i].cls, (size_t)len))
            return classes[i].kind;
    return -1;
}

static char *dup_val(eng_val v)
{
    char *s = malloc(v.len > 0 ? (size_t)v.len + 1 : 1);
    if (s) {
        if (v.len > 0)
            memcpy(s, v.p, (size_t)v.len);
        s[v.len > 0 ? v.len : 0] = '\0';
    }
    return s;
}

static eng_type *get_type(dec *d, int depth);

/* n component types (tuple) or fields (UDT, names set); NULL on failure, all freed. */
static eng_type **get_types(dec *d, int depth, uint16_t n, char ***names)
{
    eng_type **types = calloc(n ? n : 1, sizeof *types);
    char **nm = names ? calloc(n ? n : 1, sizeof *nm) : NULL;
    int ok = types && (!names || nm);
    for (uint16_t i = 0; ok && i < n; i++) {
        if (names && !(nm[i] = dup_val(cql_proto_get_string(&d->r))))
            ok = 0;
        if (ok && !(types[i] = get_type(d, depth + 1)))
            ok = 0;
    }
    if (!ok) {
        d->nomem |= !types || (names && !nm);
        for (uint16_t i = 0; types && i < n; i++)
            eng_type_free(types[i]);
        for (uint16_t i = 0; nm && i < n; i++)
            free(nm[i]);
        free(types);
        free(nm);
        return NULL;
    }
    if (names)
        *names = nm;
    return types;
}

static eng_type *get_type(dec *d, int depth)
{
    if (depth > MAX_TYPE_DEPTH || ++d->nodes > (1u << 20)) {
        cql_proto_reader_fail(&d->r, "a type nests too deep");
        return NULL;
    }
    uint16_t id = cql_proto_get_short(&d->r);
    if (d->r.bad)
        return NULL;
    eng_type *t = NULL;
    switch (id) {
    case ENG_CUSTOM: {
        eng_val cls = cql_proto_get_string(&d->r);
        if (d->r.bad)
            return NULL;
        int kind = kind_of_class(cls.p, cls.len);
        if (kind >= 0) {
            t = eng_type_new(kind);
        } else {
            char *name = dup_val(cls);
            t = name ? eng_type_new_custom(name) : NULL;
            free(name);
        }
        break;
    }
    case ENG_LIST:
    case ENG_SET: {
        eng_type *elem = get_type(d, depth + 1);
        if (!elem)
            return NULL;
        t = id == ENG_LIST ? eng_type_new_list(elem, 0) : eng_type_new_set(elem, 0);
        break;
    }
    case ENG_MAP: {
        eng_type *k = get_type(d, depth + 1);
        eng_type *v = k ? get_type(d, depth + 1) : NULL;
        if (!v) {
            eng_type_free(k);
            return NULL;
        }
        t = eng_type_new_map(k, v, 0);
        break;
    }
    case ENG_UDT: {
        char *ks = dup_val(cql_proto_get_string(&d->r));
        char *name = dup_val(cql_proto_get_string(&d->r));
        uint16_t n = cql_proto_get_short(&d->r);
        char **names = NULL;
        eng_type **types = ks && name && !d->r.bad ? get_types(d, depth, n, &names) : NULL;
        if (types)
            t = eng_type_new_udt(ks, name, names, types, n, 0);
        free(types);
        free(names);
        free(ks);
        free(name);
        if (!types)
            return NULL;
        break;
    }
    case ENG_TUPLE: {
        uint16_t n = cql_proto_get_short(&d->r);
        eng_type **types = d->r.bad ? NULL : get_types(d, depth, n, NULL);
        if (!types)
            return NULL;
        t = eng_type_new_tuple(types, n);
        free(types);
        break;
    }
    default:
        if (!eng_kind_name(id)) {
            cql_proto_reader_fail(&d->r, "an unknown type id");
            return NULL;
        }
        t = eng_type_new(id);
        break;
    }
    if (!t)
        d->nomem = 1;
    return t;
}

/* ---- responses: results ---- */

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

/* What a decoded result owns beyond its arena: the types of its columns and markers. */
typedef struct owned_types {
    uint32_t n;
    eng_type *types[];
} owned_types;

static void free_owned(void *arg)
{
    owned_types *o = arg;
    for (uint32_t i = 0; o && i < o->n; i++)
        eng_type_free(o->types[i]);
    free(o);
}

static const char *arena_str(cql_result *res, eng_val v)
{
    size_t n = v.len > 0 ? (size_t)v.len : 0;
    char *s = eng_arena_alloc(&res->arena, n + 1);
    if (s) {
        if (n)
            memcpy(s, v.p, n);
        s[n] = '\0';
    }
    return s;
}

/*
 * n column specs (global: one keyspace and table first), their types kept in o, into
 * specs[0..n).
 */
static int get_specs(dec *d, cql_result *res, owned_types *o, int global, uint32_t n,
                     cql_column_spec *specs)
{
    const char *ks = NULL, *table = NULL;
    if (global) {
        ks = arena_str(res, cql_proto_get_string(&d->r));
        table = arena_str(res, cql_proto_get_string(&d->r));
    }
    for (uint32_t i = 0; i < n && !d->r.bad; i++) {
        specs[i].ks = global ? ks : arena_str(res, cql_proto_get_string(&d->r));
        specs[i].table = global ? table : arena_str(res, cql_proto_get_string(&d->r));
        specs[i].name = arena_str(res, cql_proto_get_string(&d->r));
        eng_type *t = get_type(d, 0);
        if (!t)
            return -1;
        o->types[o->n++] = t;
        specs[i].type = t;
        if (!specs[i].ks || !specs[i].table || !specs[i].name) {
            d->nomem = 1;
            return -1;
        }
    }
    return d->r.bad ? -1 : 0;
}

/* A count read from the body that its bytes must be able to hold (min bytes each). */
static uint32_t get_count(dec *d, size_t min_each)
{
    int32_t n = cql_proto_get_int(&d->r);
    if (d->r.bad)
        return 0;
    if (n < 0 || (size_t)n * min_each > cql_proto_left(&d->r)) {
        cql_proto_reader_fail(&d->r, "a count larger than the message");
        return 0;
    }
    return (uint32_t)n;
}

/* <metadata> of ROWS or a PREPARED's <result_metadata>: the columns into res->cols. */
static int get_rows_metadata(dec *d, cql_result *res, owned_types **o,
                             const cql_column_spec *known, uint32_t n_known,
                             cql_proto_response *out, int prepared)
{
    int32_t flags = cql_proto_get_int(&d->r);
    uint32_t n = get_count(d, 0);
    if (!d->r.bad && n > MAX_COLUMNS)
        cql_proto_reader_fail(&d->r, "more columns than a table can have");
    if (d->r.bad)
        return -1;
    if (!prepared && (flags & META_HAS_MORE_PAGES)) {
        eng_val ps = cql_proto_get_bytes(&d->r);
        if (ps.len > 0) {
            res->has_more = 1;
            eng_buf_put(&res->paging_state, ps.p, (size_t)ps.len);
        }
    }
    if (!prepared && d->version >= 5 && (flags & META_METADATA_CHANGED))
        out->result_metadata_id = cql_proto_get_short_bytes(&d->r);
    if (flags & META_NO_METADATA) {
        if (!prepared)
            out->no_metadata = 1;
        if (!prepared && known && n_known == n)
            return cql_result_set_columns(res, known, n) ? (d->nomem = 1, -1) : 0;
        if (n == 0 || prepared)
            return 0;
        /* columns the caller cannot name: counted, untyped */
        cql_column_spec *anon = calloc(n, sizeof *anon);
        static const eng_type blob = {.kind = ENG_BLOB};
        for (uint32_t i = 0; anon && i < n; i++)
            anon[i] = (cql_column_spec){"", "", "", &blob};
        int rc = anon ? cql_result_set_columns(res, anon, n) : -1;
        free(anon);
        return rc ? (d->nomem = 1, -1) : 0;
    }
    /* each spec is at least a name and a type id */
    if ((size_t)n * 4 > cql_proto_left(&d->r)) {
        cql_proto_reader_fail(&d->r, "a column count larger than the message");
        return -1;
    }
    owned_types *grown = realloc(*o, sizeof **o + ((*o ? (*o)->n : 0) + n) * sizeof(eng_type *));
    cql_column_spec *specs = calloc(n ? n : 1, sizeof *specs);
    if (!grown || !specs) {
        if (grown)
            *o = grown;
        free(specs);
        d->nomem = 1;
        return -1;
    }
    if (!*o)
        grown->n = 0;
    *o = grown;
    int rc = get_specs(d, res, *o, (flags & META_GLOBAL_TABLES_SPEC) != 0, n, specs);
    if (!rc && cql_result_set_columns(res, specs, n)) {
        d->nomem = 1;
        rc = -1;
    }
    free(specs);
    return rc;
}

static int get_prepared(dec *d, cql_result *res, owned_types **o, cql_proto_response *out)
{
    res->prepared_id = cql_proto_get_short_bytes(&d->r);
    if (res->prepared_id.len > 0) {
        void *id = eng_arena_memdup(&res->arena, res->prepared_id.p, (size_t)res->prepared_id.len);
        if (!id)
            return d->nomem = 1, -1;
        res->prepared_id.p = id;
    }
    if (d->version >= 5)
        out->result_metadata_id = cql_proto_get_short_bytes(&d->r);
    int32_t flags = cql_proto_get_int(&d->r);
    uint32_t n = get_count(d, 0);
    if (d->version >= 4) {
        uint32_t n_pk = get_count(d, 2);
        res->pk_binds = n_pk ? eng_arena_alloc(&res->arena, n_pk * sizeof *res->pk_binds) : NULL;
        if (n_pk && !res->pk_binds)
            return d->nomem = 1, -1;
        for (uint32_t i = 0; i < n_pk; i++)
            res->pk_binds[i] = cql_proto_get_short(&d->r);
        res->n_pk_binds = n_pk;
    }
    if (d->r.bad || (size_t)n * 4 > cql_proto_left(&d->r)) {
        cql_proto_reader_fail(&d->r, "a marker count larger than the message");
        return -1;
    }
    owned_types *grown = realloc(*o, sizeof **o + ((*o ? (*o)->n : 0) + n) * sizeof(eng_type *));
    if (!grown)
        return d->nomem = 1, -1;
    if (!*o)
        grown->n = 0;
    *o = grown;
    res->binds = eng_arena_alloc(&res->arena, (n ? n : 1) * sizeof *res->binds);
    if (!res->binds)
        return d->nomem = 1, -1;
    res->n_binds = n;
    if (get_specs(d, res, *o, (flags & META_GLOBAL_TABLES_SPEC) != 0, n, res->binds))
        return -1;
    return get_rows_metadata(d, res, o, NULL, 0, out, 1);
}

static int get_schema_change(dec *d, cql_result *res)
{
    res->change = arena_str(res, cql_proto_get_string(&d->r));
    res->target = arena_str(res, cql_proto_get_string(&d->r));
    res->keyspace = arena_str(res, cql_proto_get_string(&d->r));
    res->object = "";
    if (!d->r.bad && res->target && strcmp(res->target, "KEYSPACE") != 0)
        res->object = arena_str(res, cql_proto_get_string(&d->r));
    /* FUNCTION and AGGREGATE changes list their argument types: read and dropped */
    if (!d->r.bad && res->target &&
        (!strcmp(res->target, "FUNCTION") || !strcmp(res->target, "AGGREGATE"))) {
        cql_proto_string_list args;
        if (cql_proto_get_string_list(&d->r, d->a, &args))
            d->nomem = 1;
    }
    if (!res->change || !res->target || !res->keyspace || !res->object)
        d->nomem = 1;
    return d->r.bad || d->nomem ? -1 : 0;
}

static int get_result(dec *d, const cql_column_spec *known, uint32_t n_known,
                      cql_proto_response *out)
{
    int32_t kind = cql_proto_get_int(&d->r);
    if (d->r.bad)
        return -1;
    int rk = kind == RESULT_VOID            ? CQL_RESULT_VOID
             : kind == RESULT_ROWS          ? CQL_RESULT_ROWS
             : kind == RESULT_SET_KEYSPACE  ? CQL_RESULT_SET_KEYSPACE
             : kind == RESULT_PREPARED      ? CQL_RESULT_PREPARED
             : kind == RESULT_SCHEMA_CHANGE ? CQL_RESULT_SCHEMA_CHANGE
                                            : 0;
    if (!rk) {
        cql_proto_reader_fail(&d->r, "an unknown result kind");
        return -1;
    }
    cql_result *res = cql_result_new(rk);
    if (!res)
        return d->nomem = 1, -1;
    owned_types *o = NULL;
    int rc = 0;
    switch (rk) {
    case CQL_RESULT_SET_KEYSPACE:
        res->keyspace = arena_str(res, cql_proto_get_string(&d->r));
        rc = res->keyspace ? 0 : (d->nomem = 1, -1);
        break;
    case CQL_RESULT_SCHEMA_CHANGE:
        rc = get_schema_change(d, res);
        break;
    case CQL_RESULT_PREPARED:
        rc = get_prepared(d, res, &o, out);
        break;
    case CQL_RESULT_ROWS: {
        rc = get_rows_metadata(d, res, &o, known, n_known, out, 0);
        uint32_t n_rows = rc ? 0 : get_count(d, 4 * (size_t)res->n_cols);
        if (!rc && n_rows && !res->n_cols) {
            cql_proto_reader_fail(&d->r, "rows without columns");
            rc = -1;
        }
        eng_val *row = calloc(res->n_cols ? res->n_cols : 1, sizeof *row);
        if (!row)
            rc = (d->nomem = 1, -1);
        for (uint32_t i = 0; !rc && !d->r.bad && i < n_rows; i++) {
            for (uint32_t c = 0; c < res->n_cols; c++)
                row[c] = cql_proto_get_bytes(&d->r);
            if (!d->r.bad && cql_result_add_row(res, row))
                rc = (d->nomem = 1, -1);
        }
        free(row);
        if (!rc && !d->r.bad && cql_result_finish(res))
            rc = (d->nomem = 1, -1);
        break;
    }
    default:
        break;
    }
    res->release = free_owned;
    res->release_arg = o;
    if (rc || d->r.bad || d->nomem) {
        cql_result_free(res);
        return -1;
    }
    out->result = res;
    return 0;
}

/* ---- responses: errors and events ---- */

int cql_proto_error_eng_code(int32_t code)
{
    switch (code) {
    case ENG_E_PROTOCOL:
    case ENG_E_BAD_CREDENTIALS:
    case ENG_E_UNAVAILABLE:
    case ENG_E_OVERLOADED:
    case ENG_E_IS_BOOTSTRAPPING:
    case ENG_E_TRUNCATE:
    case ENG_E_WRITE_TIMEOUT:
    case ENG_E_READ_TIMEOUT:
    case ENG_E_READ_FAILURE:
    case ENG_E_FUNCTION_FAILURE:
    case ENG_E_WRITE_FAILURE:
    case ENG_E_SYNTAX:
    case ENG_E_UNAUTHORIZED:
    case ENG_E_INVALID:
    case ENG_E_CONFIG:
    case ENG_E_EXISTS:
    case ENG_E_UNPREPARED:
        return code;
    default: /* SERVER_ERROR, and CDC_WRITE_FAILURE, CAS_WRITE_UNKNOWN (v5) */
        return ENG_E_SERVER;
    }
}

static const char *arena_cstr(dec *d, eng_val v)
{
    size_t n = v.len > 0 ? (size_t)v.len : 0;
    char *s = eng_arena_alloc(d->a, n + 1);
    if (!s) {
        d->nomem = 1;
        return "";
    }
    if (n)
        memcpy(s, v.p, n);
    s[n] = '\0';
    return s;
}

/* <cl><received|required><blockfor|alive> */
static void get_counts(dec *d, cql_proto_error *e)
{
    e->consistency = cql_proto_get_short(&d->r);
    e->required_or_received = cql_proto_get_int(&d->r);
    e->alive_or_block_for = cql_proto_get_int(&d->r);
}

/* v4's <numfailures>, v5's <reasonmap> (counted; endpoints and reasons dropped). */
static void get_failures(dec *d, cql_proto_error *e)
{
    int32_t n = cql_proto_get_int(&d->r);
    e->num_failures = n;
    for (int32_t i = 0; d->version >= 5 && i < n && !d->r.bad; i++) {
        cql_proto_inet addr;
        cql_proto_get_inetaddr(&d->r, &addr);
        (void)cql_proto_get_short(&d->r);
    }
}

static void get_error(dec *d, cql_proto_response *out)
{
    cql_proto_error *e = &out->error;
    e->code = cql_proto_get_int(&d->r);
    e->message = arena_cstr(d, cql_proto_get_string(&d->r));
    switch (e->code) {
    case ENG_E_UNAVAILABLE:
        get_counts(d, e);
        break;
    case ENG_E_WRITE_TIMEOUT:
        get_counts(d, e);
        e->write_type = arena_cstr(d, cql_proto_get_string(&d->r));
        if (d->version >= 5 && !strcmp(e->write_type, "CAS"))
            e->contentions = (int16_t)cql_proto_get_short(&d->r);
        break;
    case ENG_E_READ_TIMEOUT:
        get_counts(d, e);
        e->data_present = cql_proto_get_byte(&d->r);
        break;
    case ENG_E_READ_FAILURE:
        get_counts(d, e);
        get_failures(d, e);
        e->data_present = cql_proto_get_byte(&d->r);
        break;
    case ENG_E_WRITE_FAILURE:
        get_counts(d, e);
        get_failures(d, e);
        e->write_type = arena_cstr(d, cql_proto_get_string(&d->r));
        break;
    case ENG_E_FUNCTION_FAILURE: {
        e->keyspace = arena_cstr(d, cql_proto_get_string(&d->r));
        e->table = arena_cstr(d, cql_proto_get_string(&d->r));
        cql_proto_string_list args;
        if (cql_proto_get_string_list(&d->r, d->a, &args))
            d->nomem = 1;
        break;
    }
    case ENG_E_EXISTS:
        e->keyspace = arena_cstr(d, cql_proto_get_string(&d->r));
        e->table = arena_cstr(d, cql_proto_get_string(&d->r));
        break;
    case ENG_E_UNPREPARED:
        e->unprepared_id = cql_proto_get_short_bytes(&d->r);
        break;
    case 0x1700: /* CAS_WRITE_UNKNOWN (v5) */
        get_counts(d, e);
        break;
    }
    if (d->r.bad)
        return;
    eng_err_clear(&out->err);
    eng_errorf(&out->err, cql_proto_error_eng_code(e->code), "%s", e->message);
    if (e->code == ENG_E_EXISTS) {
        snprintf(out->err.ks, sizeof out->err.ks, "%s", e->keyspace);
        snprintf(out->err.table, sizeof out->err.table, "%s", e->table);
    }
}

static void get_event(dec *d, cql_proto_response *out)
{
    out->event_type = cql_proto_get_string(&d->r);
    if (d->r.bad)
        return;
    if (out->event_type.len == 13 && !memcmp(out->event_type.p, "SCHEMA_CHANGE", 13)) {
        cql_result *res = cql_result_new(CQL_RESULT_SCHEMA_CHANGE);
        if (!res) {
            d->nomem = 1;
            return;
        }
        if (get_schema_change(d, res)) {
            cql_result_free(res);
            return;
        }
        out->result = res;
        out->event_change = (eng_val){(const uint8_t *)res->change, (int32_t)strlen(res->change)};
        return;
    }
    out->event_change = cql_proto_get_string(&d->r);
    cql_proto_get_inet(&d->r, &out->event_node);
}

int cql_proto_response_decode(const cql_proto_header *h, const uint8_t *body, size_t len,
                              const cql_column_spec *known_cols, uint32_t n_known, eng_arena *a,
                              cql_proto_response *out, eng_err *err)
{
    memset(out, 0, sizeof *out);
    out->opcode = h->opcode;
    const char *name = cql_proto_opcode_name(h->opcode);
    if (!name || cql_proto_opcode_is_request(h->opcode))
        return eng_errorf(err, ENG_E_PROTOCOL, "Invalid response opcode %d", h->opcode);
    dec d = {.a = a, .version = h->version};
    cql_proto_reader_init(&d.r, body, len);
    if (h->flags & CQL_PROTO_FLAG_TRACING) { /* the tracing session id comes first */
        const uint8_t *id = cql_proto_get_uuid(&d.r);
        if (id && !d.r.bad) { /* a short body reads as "" and marks the reader bad */
            memcpy(out->tracing_id, id, 16);
            out->has_tracing_id = 1;
        }
    }
    if (h->flags & CQL_PROTO_FLAG_WARNING) {
        cql_proto_string_list w;
        if (cql_proto_get_string_list(&d.r, a, &w))
            d.nomem = 1;
        for (uint16_t i = 0; !d.r.bad && !d.nomem && i < w.n; i++)
            if (out->n_warnings < CQL_RESULT_MAX_WARNINGS)
                out->warnings[out->n_warnings++] = arena_cstr(&d, w.items[i]);
    }
    if ((h->flags & CQL_PROTO_FLAG_CUSTOM_PAYLOAD) &&
        cql_proto_get_bytes_map(&d.r, a, &out->custom_payload))
        d.nomem = 1;
    if (!d.r.bad && !d.nomem) {
        switch (h->opcode) {
        case CQL_PROTO_ERROR:
            get_error(&d, out);
            break;
        case CQL_PROTO_READY:
            break;
        case CQL_PROTO_AUTHENTICATE:
            out->authenticator = cql_proto_get_string(&d.r);
            break;
        case CQL_PROTO_AUTH_CHALLENGE:
        case CQL_PROTO_AUTH_SUCCESS:
            out->token = cql_proto_get_bytes(&d.r);
            break;
        case CQL_PROTO_SUPPORTED:
            if (cql_proto_get_string_multimap(&d.r, a, &out->supported))
                d.nomem = 1;
            break;
        case CQL_PROTO_RESULT:
            (void)get_result(&d, known_cols, n_known, out);
            break;
        case CQL_PROTO_EVENT:
            get_event(&d, out);
            break;
        }
    }
    if (d.nomem || d.r.bad) {
        cql_result_free(out->result);
        out->result = NULL;
    }
    if (d.nomem)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory decoding a %s message", name);
    if (d.r.bad)
        return eng_errorf(err, ENG_E_PROTOCOL, "Invalid %s message: %s", name, d.r.bad);
    return 0;
}
