/*
 * Values through the driver API, as an application sees them: only <cassandra.h>. Data types
 * built by hand and read from results and prepared statements; every bind function of a
 * statement (by index, by name, by name with a length, the _n string forms) for every CQL type,
 * on bound and on simple statements, each value written and read back with its getter; null and
 * unset; the builders of collections, tuples and user types with their checks; results, rows,
 * iterators and the getters' error codes.
 *
 * Every expectation is the real driver's (DataStax C/C++ driver 2.17: data_type.cpp,
 * data_type.hpp IsValidDataType, abstract_data.cpp, collection.cpp, tuple.cpp,
 * user_type_value.cpp, query_request.cpp, hash_table.hpp, value.cpp, decoder.hpp,
 * result_response.cpp, iterator.cpp) or Cassandra 4's (the value encodings and validation
 * messages of the facts sheet §2, the marker names of §2.6, unset values of §2.1).
 */
#include <cassandra.h>

#include <pthread.h>
#include <stdarg.h>

#include "driver_test.h"

/* ------------------------------------------------------------------------ */
/* Sessions and statements                                                   */
/* ------------------------------------------------------------------------ */

/* Executes a statement that must succeed, and frees the statement. */
#define EXEC_FREE(s, st) exec_free(__FILE__, __LINE__, (s), (st))

static void exec_free(const char *file, int line, CassSession *s, CassStatement *st)
{
    cass_result_free(exec_ok(file, line, s, st));
    cass_statement_free(st);
}

/* Executes a statement that must fail: its code, its message in msg. */
static CassError exec_err(CassSession *s, const CassStatement *st, char *msg, size_t cap)
{
    CassFuture *f = cass_session_execute(s, st);
    CassError rc = cass_future_error_code(f);
    const char *m;
    size_t n;
    cass_future_error_message(f, &m, &n);
    snprintf(msg, cap, "%.*s", (int)n, m);
    cass_future_free(f);
    return rc;
}

/* The first row's column i of a query (the result stays in *res for the caller to free). */
#define CELL(s, q, i, res) cell_of(__FILE__, __LINE__, (s), (q), (i), (res))

static const CassValue *cell_of(const char *file, int line, CassSession *s, const char *q, size_t i,
                                const CassResult **res)
{
    *res = query_ok(file, line, s, q);
    const CassRow *row = cass_result_first_row(*res);
    if (!row)
        test_fail(file, line, "no row for %s", q);
    const CassValue *v = cass_row_get_column(row, i);
    if (!v)
        test_fail(file, line, "no column %zu for %s", i, q);
    return v;
}

/* s followed by junk in buf: what a _n function must read only the first strlen(s) bytes of. */
static const char *padded(char *buf, size_t cap, const char *s, size_t len)
{
    ASSERT(len + 4 <= cap);
    memcpy(buf, s, len);
    memcpy(buf + len, "#~!", 4);
    return buf;
}

/* Lower-case hex of n bytes (for comparing encodings with the facts sheet's). */
static const char *hex(const void *p, size_t n, char *buf, size_t cap)
{
    const uint8_t *b = p;
    ASSERT(2 * n + 1 <= cap);
    for (size_t i = 0; i < n; i++)
        snprintf(buf + 2 * i, 3, "%02x", b[i]);
    buf[2 * n] = '\0';
    return buf;
}

/* The bytes of a value as hex. */
static const char *value_hex(const CassValue *v, char *buf, size_t cap)
{
    const cass_byte_t *p;
    size_t n;
    ASSERT_EQ(cass_value_get_bytes(v, &p, &n), CASS_OK);
    return hex(p, n, buf, cap);
}

/* ------------------------------------------------------------------------ */
/* One value of every CQL type, and the C value that carries it              */
/* ------------------------------------------------------------------------ */

/* The C value of a bind / append / set / get function (its suffix). */
enum ckind {
    K_INT8,
    K_INT16,
    K_INT32,
    K_UINT32,
    K_INT64,
    K_FLOAT,
    K_DOUBLE,
    K_BOOL,
    K_STRING,
    K_BYTES,
    K_UUID,
    K_INET,
    K_DECIMAL,
    K_DURATION,
    K_NKINDS
};

static const char *const KIND_NAMES[K_NKINDS] = {
    "int8", "int16",  "int32", "uint32", "int64", "float",   "double",
    "bool", "string", "bytes", "uuid",   "inet",  "decimal", "duration",
};

typedef struct sval {
    enum ckind kind;
    int64_t i;            /* integers, bool; a duration's nanoseconds */
    int32_t months, days; /* duration */
    double d;             /* float, double */
    const char *s;        /* string; uuid and inet in text form */
    const uint8_t *b;     /* bytes; a decimal's unscaled varint */
    size_t n;             /* length of b, or of s when set (a string holding NULs) */
    int32_t scale;        /* decimal */
} sval;

typedef struct scase {
    const char *col;    /* column of ks.v and field of ks.allt: "c_" + the type */
    const char *cql;    /* its CQL type */
    CassValueType type; /* the value type results report (text travels as varchar) */
    sval v;
} scase;

static const uint8_t BLOB[] = {0x00, 0x01, 0xfe, 0xff};
static const uint8_t VARINT_128[] = {0x00, 0x80}; /* facts §2.5: 128 */
static const uint8_t DEC_15[] = {0x0f};           /* with scale 1: 1.5 (facts §2.5) */

/* ks.v has one column per row; ks.allt one field; ks.coll a list, set and map of each. */
static const scase CASES[] = {
    {"c_ascii", "ascii", CASS_VALUE_TYPE_ASCII, {.kind = K_STRING, .s = "plain ascii"}},
    {"c_bigint", "bigint", CASS_VALUE_TYPE_BIGINT, {.kind = K_INT64, .i = -1234567890123}},
    {"c_blob", "blob", CASS_VALUE_TYPE_BLOB, {.kind = K_BYTES, .b = BLOB, .n = sizeof BLOB}},
    {"c_boolean", "boolean", CASS_VALUE_TYPE_BOOLEAN, {.kind = K_BOOL, .i = cass_true}},
    {"c_date", "date", CASS_VALUE_TYPE_DATE, {.kind = K_UINT32, .i = 2147483648u + 18628}},
    {"c_decimal",
     "decimal",
     CASS_VALUE_TYPE_DECIMAL,
     {.kind = K_DECIMAL, .b = DEC_15, .n = sizeof DEC_15, .scale = 1}},
    {"c_double", "double", CASS_VALUE_TYPE_DOUBLE, {.kind = K_DOUBLE, .d = -2.5e300}},
    {"c_duration",
     "duration",
     CASS_VALUE_TYPE_DURATION,
     {.kind = K_DURATION, .months = -14, .days = -3, .i = -3000000001}},
    {"c_float", "float", CASS_VALUE_TYPE_FLOAT, {.kind = K_FLOAT, .d = 1.5}},
    {"c_inet4", "inet", CASS_VALUE_TYPE_INET, {.kind = K_INET, .s = "127.0.0.1"}},
    {"c_inet6", "inet", CASS_VALUE_TYPE_INET, {.kind = K_INET, .s = "2001:db8::1"}},
    {"c_int", "int", CASS_VALUE_TYPE_INT, {.kind = K_INT32, .i = -42}},
    {"c_smallint", "smallint", CASS_VALUE_TYPE_SMALL_INT, {.kind = K_INT16, .i = -300}},
    {"c_text",
     "text",
     CASS_VALUE_TYPE_VARCHAR,
     {.kind = K_STRING, .s = "h\xc3\xa9llo w\xc3\xb6rld"}},
    {"c_time", "time", CASS_VALUE_TYPE_TIME, {.kind = K_INT64, .i = 3723000000001}},
    {"c_timestamp", "timestamp", CASS_VALUE_TYPE_TIMESTAMP, {.kind = K_INT64, .i = -1}},
    {"c_timeuuid",
     "timeuuid",
     CASS_VALUE_TYPE_TIMEUUID,
     {.kind = K_UUID, .s = "50554d6e-29bb-11e5-b345-feff819cdc9f"}},
    {"c_tinyint", "tinyint", CASS_VALUE_TYPE_TINY_INT, {.kind = K_INT8, .i = -7}},
    {"c_uuid",
     "uuid",
     CASS_VALUE_TYPE_UUID,
     {.kind = K_UUID, .s = "550e8400-e29b-41d4-a716-446655440000"}},
    {"c_varint",
     "varint",
     CASS_VALUE_TYPE_VARINT,
     {.kind = K_BYTES, .b = VARINT_128, .n = sizeof VARINT_128}},
};

#define NCASES (sizeof CASES / sizeof CASES[0])

/* The case of a column. */
static const scase *case_of(const char *col)
{
    for (size_t i = 0; i < NCASES; i++)
        if (strcmp(CASES[i].col, col) == 0)
            return &CASES[i];
    test_fail(__FILE__, __LINE__, "no case %s", col);
}

/* A value of each C kind (the first case that has it). */
static const sval *sample(enum ckind k)
{
    for (size_t i = 0; i < NCASES; i++)
        if (CASES[i].v.kind == k)
            return &CASES[i].v;
    test_fail(__FILE__, __LINE__, "no sample of kind %d", (int)k);
}

/* The CQL types each C value binds to (driver: data_type.hpp, IsValidDataType<T>). */
static int kind_binds_to(enum ckind k, CassValueType t)
{
    switch (k) {
    case K_INT8:
        return t == CASS_VALUE_TYPE_TINY_INT;
    case K_INT16:
        return t == CASS_VALUE_TYPE_SMALL_INT;
    case K_INT32:
        return t == CASS_VALUE_TYPE_INT;
    case K_UINT32:
        return t == CASS_VALUE_TYPE_DATE;
    case K_INT64:
        return t == CASS_VALUE_TYPE_BIGINT || t == CASS_VALUE_TYPE_COUNTER ||
               t == CASS_VALUE_TYPE_TIMESTAMP || t == CASS_VALUE_TYPE_TIME;
    case K_FLOAT:
        return t == CASS_VALUE_TYPE_FLOAT;
    case K_DOUBLE:
        return t == CASS_VALUE_TYPE_DOUBLE;
    case K_BOOL:
        return t == CASS_VALUE_TYPE_BOOLEAN;
    case K_STRING: /* strings also go to the "bytes" types */
        return t == CASS_VALUE_TYPE_ASCII || t == CASS_VALUE_TYPE_TEXT ||
               t == CASS_VALUE_TYPE_VARCHAR || t == CASS_VALUE_TYPE_BLOB ||
               t == CASS_VALUE_TYPE_VARINT || t == CASS_VALUE_TYPE_CUSTOM;
    case K_BYTES:
        return t == CASS_VALUE_TYPE_BLOB || t == CASS_VALUE_TYPE_VARINT ||
               t == CASS_VALUE_TYPE_CUSTOM;
    case K_UUID:
        return t == CASS_VALUE_TYPE_UUID || t == CASS_VALUE_TYPE_TIMEUUID;
    case K_INET:
        return t == CASS_VALUE_TYPE_INET;
    case K_DECIMAL:
        return t == CASS_VALUE_TYPE_DECIMAL;
    case K_DURATION:
        return t == CASS_VALUE_TYPE_DURATION;
    default:
        return 0;
    }
}

/*
 * The types each getter reads (driver: value.cpp): the string and bytes getters take any value,
 * every other the types its C value binds to.
 */
static int kind_reads(enum ckind k, CassValueType t)
{
    return k == K_STRING || k == K_BYTES || kind_binds_to(k, t);
}

static size_t sval_len(const sval *v)
{
    return v->n ? v->n : strlen(v->s);
}

static CassUuid uuid_of(const char *s)
{
    CassUuid u;
    ASSERT_EQ(cass_uuid_from_string(s, &u), CASS_OK);
    return u;
}

static CassInet inet_of(const char *s)
{
    CassInet in;
    ASSERT_EQ(cass_inet_from_string(s, &in), CASS_OK);
    return in;
}

/* How a value reaches its marker or field. */
enum how {
    BY_INDEX,   /* cass_X_<kind>(obj, index, ...) */
    BY_INDEX_N, /* strings: cass_X_string_n(obj, index, value, length); others as BY_INDEX */
    BY_NAME,    /* cass_X_<kind>_by_name(obj, name, ...) */
    BY_NAME_N,  /* cass_X_<kind>_by_name_n(obj, name, length, ...), strings with their length */
};

static const char *const HOW_NAMES[] = {"by index", "by index (_n)", "by name", "by name_n"};

/* One of the three forms of a setter family, picked by `how` (strings are handled apart). */
#define PICK(how, f, obj, index, name, nbuf, nlen, ...)                                            \
    ((how) == BY_NAME     ? f##_by_name((obj), (name), __VA_ARGS__)                                \
     : (how) == BY_NAME_N ? f##_by_name_n((obj), (nbuf), (nlen), __VA_ARGS__)                      \
                          : f((obj), (index), __VA_ARGS__))

/* Binds v to a statement's marker. */
static CassError bind_sval(CassStatement *st, enum how how, size_t index, const char *name,
                           const sval *v)
{
    char nbuf[128], vbuf[256];
    size_t nlen = name ? strlen(name) : 0;
    if (name)
        padded(nbuf, sizeof nbuf, name, nlen);
#define SB(f, ...) PICK(how, cass_statement_bind_##f, st, index, name, nbuf, nlen, __VA_ARGS__)
    switch (v->kind) {
    case K_INT8:
        return SB(int8, (cass_int8_t)v->i);
    case K_INT16:
        return SB(int16, (cass_int16_t)v->i);
    case K_INT32:
        return SB(int32, (cass_int32_t)v->i);
    case K_UINT32:
        return SB(uint32, (cass_uint32_t)v->i);
    case K_INT64:
        return SB(int64, (cass_int64_t)v->i);
    case K_FLOAT:
        return SB(float, (cass_float_t)v->d);
    case K_DOUBLE:
        return SB(double, v->d);
    case K_BOOL:
        return SB(bool, (cass_bool_t)v->i);
    case K_BYTES:
        return SB(bytes, v->b, v->n);
    case K_UUID:
        return SB(uuid, uuid_of(v->s));
    case K_INET:
        return SB(inet, inet_of(v->s));
    case K_DECIMAL:
        return SB(decimal, v->b, v->n, v->scale);
    case K_DURATION:
        return SB(duration, v->months, v->days, v->i);
    case K_STRING: {
        size_t len = sval_len(v);
        const char *p = padded(vbuf, sizeof vbuf, v->s, len);
        if (how == BY_INDEX_N)
            return cass_statement_bind_string_n(st, index, p, len);
        if (how == BY_NAME_N)
            return cass_statement_bind_string_by_name_n(st, nbuf, nlen, p, len);
        if (how == BY_NAME)
            return cass_statement_bind_string_by_name(st, name, v->s);
        return cass_statement_bind_string(st, index, v->s);
    }
    default:
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
#undef SB
}

/* Sets field `index` / `name` of a user type value to v. */
static CassError udt_set_sval(CassUserType *ut, enum how how, size_t index, const char *name,
                              const sval *v)
{
    char nbuf[128], vbuf[256];
    size_t nlen = name ? strlen(name) : 0;
    if (name)
        padded(nbuf, sizeof nbuf, name, nlen);
#define US(f, ...) PICK(how, cass_user_type_set_##f, ut, index, name, nbuf, nlen, __VA_ARGS__)
    switch (v->kind) {
    case K_INT8:
        return US(int8, (cass_int8_t)v->i);
    case K_INT16:
        return US(int16, (cass_int16_t)v->i);
    case K_INT32:
        return US(int32, (cass_int32_t)v->i);
    case K_UINT32:
        return US(uint32, (cass_uint32_t)v->i);
    case K_INT64:
        return US(int64, (cass_int64_t)v->i);
    case K_FLOAT:
        return US(float, (cass_float_t)v->d);
    case K_DOUBLE:
        return US(double, v->d);
    case K_BOOL:
        return US(bool, (cass_bool_t)v->i);
    case K_BYTES:
        return US(bytes, v->b, v->n);
    case K_UUID:
        return US(uuid, uuid_of(v->s));
    case K_INET:
        return US(inet, inet_of(v->s));
    case K_DECIMAL:
        return US(decimal, v->b, v->n, v->scale);
    case K_DURATION:
        return US(duration, v->months, v->days, v->i);
    case K_STRING: {
        size_t len = sval_len(v);
        const char *p = padded(vbuf, sizeof vbuf, v->s, len);
        if (how == BY_INDEX_N)
            return cass_user_type_set_string_n(ut, index, p, len);
        if (how == BY_NAME_N)
            return cass_user_type_set_string_by_name_n(ut, nbuf, nlen, p, len);
        if (how == BY_NAME)
            return cass_user_type_set_string_by_name(ut, name, v->s);
        return cass_user_type_set_string(ut, index, v->s);
    }
    default:
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
#undef US
}

/* Sets component `index` of a tuple to v (strings through cass_tuple_set_string_n when use_n). */
static CassError tuple_set_sval(CassTuple *t, size_t index, const sval *v, int use_n)
{
    char vbuf[256];
    switch (v->kind) {
    case K_INT8:
        return cass_tuple_set_int8(t, index, (cass_int8_t)v->i);
    case K_INT16:
        return cass_tuple_set_int16(t, index, (cass_int16_t)v->i);
    case K_INT32:
        return cass_tuple_set_int32(t, index, (cass_int32_t)v->i);
    case K_UINT32:
        return cass_tuple_set_uint32(t, index, (cass_uint32_t)v->i);
    case K_INT64:
        return cass_tuple_set_int64(t, index, (cass_int64_t)v->i);
    case K_FLOAT:
        return cass_tuple_set_float(t, index, (cass_float_t)v->d);
    case K_DOUBLE:
        return cass_tuple_set_double(t, index, v->d);
    case K_BOOL:
        return cass_tuple_set_bool(t, index, (cass_bool_t)v->i);
    case K_BYTES:
        return cass_tuple_set_bytes(t, index, v->b, v->n);
    case K_UUID:
        return cass_tuple_set_uuid(t, index, uuid_of(v->s));
    case K_INET:
        return cass_tuple_set_inet(t, index, inet_of(v->s));
    case K_DECIMAL:
        return cass_tuple_set_decimal(t, index, v->b, v->n, v->scale);
    case K_DURATION:
        return cass_tuple_set_duration(t, index, v->months, v->days, v->i);
    case K_STRING:
        if (use_n) {
            size_t len = sval_len(v);
            return cass_tuple_set_string_n(t, index, padded(vbuf, sizeof vbuf, v->s, len), len);
        }
        return cass_tuple_set_string(t, index, v->s);
    default:
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
}

/* Appends v to a collection (strings through cass_collection_append_string_n when use_n). */
static CassError append_sval(CassCollection *c, const sval *v, int use_n)
{
    char vbuf[256];
    switch (v->kind) {
    case K_INT8:
        return cass_collection_append_int8(c, (cass_int8_t)v->i);
    case K_INT16:
        return cass_collection_append_int16(c, (cass_int16_t)v->i);
    case K_INT32:
        return cass_collection_append_int32(c, (cass_int32_t)v->i);
    case K_UINT32:
        return cass_collection_append_uint32(c, (cass_uint32_t)v->i);
    case K_INT64:
        return cass_collection_append_int64(c, (cass_int64_t)v->i);
    case K_FLOAT:
        return cass_collection_append_float(c, (cass_float_t)v->d);
    case K_DOUBLE:
        return cass_collection_append_double(c, v->d);
    case K_BOOL:
        return cass_collection_append_bool(c, (cass_bool_t)v->i);
    case K_BYTES:
        return cass_collection_append_bytes(c, v->b, v->n);
    case K_UUID:
        return cass_collection_append_uuid(c, uuid_of(v->s));
    case K_INET:
        return cass_collection_append_inet(c, inet_of(v->s));
    case K_DECIMAL:
        return cass_collection_append_decimal(c, v->b, v->n, v->scale);
    case K_DURATION:
        return cass_collection_append_duration(c, v->months, v->days, v->i);
    case K_STRING:
        if (use_n) {
            size_t len = sval_len(v);
            return cass_collection_append_string_n(c, padded(vbuf, sizeof vbuf, v->s, len), len);
        }
        return cass_collection_append_string(c, v->s);
    default:
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
}

/* Calls the getter of kind k on v, for its return code only. */
static CassError get_kind(const CassValue *v, enum ckind k)
{
    cass_int8_t i8;
    cass_int16_t i16;
    cass_int32_t i32, months, days;
    cass_uint32_t u32;
    cass_int64_t i64, nanos;
    cass_float_t f;
    cass_double_t d;
    cass_bool_t b;
    const char *s;
    const cass_byte_t *bytes;
    size_t n;
    CassUuid u;
    CassInet in;
    switch (k) {
    case K_INT8:
        return cass_value_get_int8(v, &i8);
    case K_INT16:
        return cass_value_get_int16(v, &i16);
    case K_INT32:
        return cass_value_get_int32(v, &i32);
    case K_UINT32:
        return cass_value_get_uint32(v, &u32);
    case K_INT64:
        return cass_value_get_int64(v, &i64);
    case K_FLOAT:
        return cass_value_get_float(v, &f);
    case K_DOUBLE:
        return cass_value_get_double(v, &d);
    case K_BOOL:
        return cass_value_get_bool(v, &b);
    case K_STRING:
        return cass_value_get_string(v, &s, &n);
    case K_BYTES:
        return cass_value_get_bytes(v, &bytes, &n);
    case K_UUID:
        return cass_value_get_uuid(v, &u);
    case K_INET:
        return cass_value_get_inet(v, &in);
    case K_DECIMAL:
        return cass_value_get_decimal(v, &bytes, &n, &i32);
    case K_DURATION:
        return cass_value_get_duration(v, &months, &days, &nanos);
    default:
        return CASS_ERROR_LIB_BAD_PARAMS;
    }
}

/* Reads v with the getter of want's kind and compares; `what` names it in a failure. */
#define CHECK_VAL(what, v, want) check_val(__FILE__, __LINE__, (what), (v), (want))

#define CHECK_GET(call, cond, fmt, ...)                                                            \
    do {                                                                                           \
        CassError rc_ = (call);                                                                    \
        if (rc_ != CASS_OK)                                                                        \
            test_fail(file, line, "%s: %s gave %s", what, #call, cass_error_desc(rc_));            \
        if (!(cond))                                                                               \
            test_fail(file, line, "%s: " fmt, what, __VA_ARGS__);                                  \
    } while (0)

static void check_val(const char *file, int line, const char *what, const CassValue *v,
                      const sval *w)
{
    if (!v)
        test_fail(file, line, "%s: no value", what);
    if (cass_value_is_null(v))
        test_fail(file, line, "%s: null", what);
    switch (w->kind) {
    case K_INT8: {
        cass_int8_t x = 0;
        CHECK_GET(cass_value_get_int8(v, &x), x == w->i, "got %d", x);
        break;
    }
    case K_INT16: {
        cass_int16_t x = 0;
        CHECK_GET(cass_value_get_int16(v, &x), x == w->i, "got %d", x);
        break;
    }
    case K_INT32: {
        cass_int32_t x = 0;
        CHECK_GET(cass_value_get_int32(v, &x), x == w->i, "got %d", x);
        break;
    }
    case K_UINT32: {
        cass_uint32_t x = 0;
        CHECK_GET(cass_value_get_uint32(v, &x), x == w->i, "got %u", x);
        break;
    }
    case K_INT64: {
        cass_int64_t x = 0;
        CHECK_GET(cass_value_get_int64(v, &x), x == w->i, "got %lld", (long long)x);
        break;
    }
    case K_FLOAT: {
        cass_float_t x = 0;
        CHECK_GET(cass_value_get_float(v, &x), x == (cass_float_t)w->d, "got %g", x);
        break;
    }
    case K_DOUBLE: {
        cass_double_t x = 0;
        CHECK_GET(cass_value_get_double(v, &x), x == w->d, "got %g", x);
        break;
    }
    case K_BOOL: {
        cass_bool_t x = cass_false;
        CHECK_GET(cass_value_get_bool(v, &x), x == (cass_bool_t)w->i, "got %d", (int)x);
        break;
    }
    case K_STRING: {
        const char *p = NULL;
        size_t n = 0, want = sval_len(w);
        CHECK_GET(cass_value_get_string(v, &p, &n), n == want && memcmp(p, w->s, n) == 0,
                  "got \"%.*s\" (%zu bytes)", (int)n, p, n);
        break;
    }
    case K_BYTES: {
        const cass_byte_t *p = NULL;
        size_t n = 0;
        char a[128], b[128];
        CHECK_GET(cass_value_get_bytes(v, &p, &n), n == w->n && memcmp(p, w->b, n) == 0,
                  "got %s, want %s", hex(p, n, a, sizeof a), hex(w->b, w->n, b, sizeof b));
        break;
    }
    case K_UUID: {
        CassUuid x = {0, 0};
        char text[CASS_UUID_STRING_LENGTH];
        cass_uuid_string(x, text);
        CHECK_GET(cass_value_get_uuid(v, &x), (cass_uuid_string(x, text), strcmp(text, w->s) == 0),
                  "got %s", text);
        break;
    }
    case K_INET: {
        CassInet x, want = inet_of(w->s);
        memset(&x, 0, sizeof x);
        char text[CASS_INET_STRING_LENGTH];
        CHECK_GET(cass_value_get_inet(v, &x),
                  x.address_length == want.address_length &&
                      memcmp(x.address, want.address, x.address_length) == 0,
                  "got %s", (cass_inet_string(x, text), text));
        break;
    }
    case K_DECIMAL: {
        const cass_byte_t *p = NULL;
        size_t n = 0;
        cass_int32_t scale = 0;
        CHECK_GET(cass_value_get_decimal(v, &p, &n, &scale),
                  n == w->n && memcmp(p, w->b, n) == 0 && scale == w->scale,
                  "got %zu bytes, scale %d", n, scale);
        break;
    }
    case K_DURATION: {
        cass_int32_t months = 0, days = 0;
        cass_int64_t nanos = 0;
        CHECK_GET(cass_value_get_duration(v, &months, &days, &nanos),
                  months == w->months && days == w->days && nanos == w->i,
                  "got %d months %d days %lld ns", months, days, (long long)nanos);
        break;
    }
    default:
        test_fail(file, line, "%s: bad kind", what);
    }
}

/* ------------------------------------------------------------------------ */
/* The schema every session test starts from                                 */
/* ------------------------------------------------------------------------ */

/* Appends printf output to buf (cap bytes, *len used so far). */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    ASSERT(n >= 0 && (size_t)n < cap - *len);
    *len += (size_t)n;
}

/* The list of every case type, "ascii, bigint, ..." (a tuple's components). */
static const char *all_types(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NCASES; i++)
        put(buf, cap, &n, "%s%s", i ? ", " : "", CASES[i].cql);
    return buf;
}

/*
 * ks.allt: a field per case. ks.addr: two fields, one quoted. ks.bag: a user type of composites.
 * ks.v: a column per case, a tuple of every type, user type columns frozen and not.
 * ks.coll: per case l_<type> list<T>, s_<type> frozen<set<T>> (no durations in sets: facts
 * §2.3 / Cassandra), m_<type> map<int, T>. ks.c: a counter. ks.q: a quoted and a plain name.
 * ks.nest: nested collections, tuples and user types.
 */
static void setup(CassSession *s)
{
    char q[8192], types[1024];
    size_t n = 0;
    RUN(s, KS_CQL);
    put(q, sizeof q, &n, "CREATE TYPE ks.allt (");
    for (size_t i = 0; i < NCASES; i++)
        put(q, sizeof q, &n, "%s%s %s", i ? ", " : "", CASES[i].col, CASES[i].cql);
    put(q, sizeof q, &n, ")");
    RUN(s, q);
    RUN(s, "CREATE TYPE ks.addr (street text, \"Zip\" int)");
    RUN(s, "CREATE TYPE ks.bag (tags frozen<set<text>>, scores frozen<map<text, int>>, "
           "pos frozen<tuple<int, int>>, home frozen<addr>)");

    n = 0;
    put(q, sizeof q, &n, "CREATE TABLE ks.v (k int PRIMARY KEY");
    for (size_t i = 0; i < NCASES; i++)
        put(q, sizeof q, &n, ", %s %s", CASES[i].col, CASES[i].cql);
    put(q, sizeof q, &n, ", tup frozen<tuple<%s>>, u frozen<allt>, un allt, a frozen<addr>)",
        all_types(types, sizeof types));
    RUN(s, q);

    n = 0;
    put(q, sizeof q, &n, "CREATE TABLE ks.coll (k int PRIMARY KEY");
    for (size_t i = 0; i < NCASES; i++) {
        const scase *c = &CASES[i];
        put(q, sizeof q, &n, ", l_%s list<%s>, m_%s map<int, %s>", c->col + 2, c->cql, c->col + 2,
            c->cql);
        if (c->v.kind != K_DURATION)
            put(q, sizeof q, &n, ", s_%s frozen<set<%s>>", c->col + 2, c->cql);
    }
    put(q, sizeof q, &n, ", mt map<text, int>)");
    RUN(s, q);

    RUN(s, "CREATE TABLE ks.c (k int PRIMARY KEY, n counter)");
    RUN(s, "CREATE TABLE ks.q (k int PRIMARY KEY, \"Mixed\" int, mixed int)");
    RUN(s,
        "CREATE TABLE ks.nest (k int PRIMARY KEY, lm list<frozen<map<text, frozen<list<int>>>>>, "
        "st set<frozen<tuple<int, text>>>, lu list<frozen<addr>>, bg frozen<bag>, "
        "ub bag)");
}

static void open_setup(conn *cn)
{
    MEMORY_CONNECT(cn);
    setup(cn->session);
}

/* ------------------------------------------------------------------------ */
/* Data types                                                                */
/* ------------------------------------------------------------------------ */

/*
 * A name out of a (name, length) getter, as a C string: name_of(getter(..., &p, &n), &p, &n, buf,
 * cap). p and n are read through pointers, after the getter has run.
 */
static const char *name_of(CassError rc, const char *const *p, const size_t *n, char *buf,
                           size_t cap)
{
    ASSERT_EQ(rc, CASS_OK);
    snprintf(buf, cap, "%.*s", (int)*n, *p);
    return buf;
}

TEST(data_type_new_takes_every_known_type_but_unknown)
{
    CassValueType known[] = {
        CASS_VALUE_TYPE_CUSTOM, CASS_VALUE_TYPE_ASCII,   CASS_VALUE_TYPE_INT,
        CASS_VALUE_TYPE_TEXT,   CASS_VALUE_TYPE_VARCHAR, CASS_VALUE_TYPE_DURATION,
        CASS_VALUE_TYPE_LIST,   CASS_VALUE_TYPE_MAP,     CASS_VALUE_TYPE_SET,
        CASS_VALUE_TYPE_UDT,    CASS_VALUE_TYPE_TUPLE};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        CassDataType *dt = cass_data_type_new(known[i]);
        ASSERT(dt);
        ASSERT_EQ(cass_data_type_type(dt), known[i]);
        ASSERT_EQ(cass_data_type_sub_type_count(dt), 0);
        cass_data_type_free(dt);
    }
    /* data_type.cpp: UNKNOWN is refused, as is anything from CASS_VALUE_TYPE_LAST_ENTRY on */
    ASSERT(cass_data_type_new(CASS_VALUE_TYPE_UNKNOWN) == NULL);
    ASSERT(cass_data_type_new(CASS_VALUE_TYPE_LAST_ENTRY) == NULL);
}

TEST(data_types_made_by_the_application_are_not_frozen)
{
    /* data_type.cpp makes every new type with is_frozen false, tuples included */
    CassValueType kinds[] = {CASS_VALUE_TYPE_INT, CASS_VALUE_TYPE_LIST,  CASS_VALUE_TYPE_MAP,
                             CASS_VALUE_TYPE_SET, CASS_VALUE_TYPE_TUPLE, CASS_VALUE_TYPE_UDT};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        CassDataType *dt = cass_data_type_new(kinds[i]);
        ASSERT_EQ(cass_data_type_is_frozen(dt), cass_false);
        cass_data_type_free(dt);
    }
    CassDataType *t = cass_data_type_new_tuple(2), *u = cass_data_type_new_udt(2);
    ASSERT_EQ(cass_data_type_type(t), CASS_VALUE_TYPE_TUPLE);
    ASSERT_EQ(cass_data_type_type(u), CASS_VALUE_TYPE_UDT);
    ASSERT_EQ(cass_data_type_is_frozen(t), cass_false);
    ASSERT_EQ(cass_data_type_is_frozen(u), cass_false);
    /* the count is a capacity: no sub-types until added */
    ASSERT_EQ(cass_data_type_sub_type_count(t), 0);
    ASSERT_EQ(cass_data_type_sub_type_count(u), 0);
    cass_data_type_free(t);
    cass_data_type_free(u);
}

TEST(add_sub_type_gives_a_list_or_set_one_type_a_map_two_a_tuple_any)
{
    CassDataType *list = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    CassDataType *set = cass_data_type_new(CASS_VALUE_TYPE_SET);
    CassDataType *map = cass_data_type_new(CASS_VALUE_TYPE_MAP);
    CassDataType *tup = cass_data_type_new_tuple(0);
    CassDataType *text = cass_data_type_new(CASS_VALUE_TYPE_TEXT);

    ASSERT_EQ(cass_data_type_add_sub_type(list, text), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(list, CASS_VALUE_TYPE_INT),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_data_type_add_sub_type(list, text), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_data_type_add_sub_value_type(set, CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(set, CASS_VALUE_TYPE_INT),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(cass_data_type_add_sub_value_type(map, CASS_VALUE_TYPE_TEXT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type(map, list), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(map, CASS_VALUE_TYPE_INT),
              CASS_ERROR_LIB_BAD_PARAMS);
    for (int i = 0; i < 5; i++)
        ASSERT_EQ(cass_data_type_add_sub_value_type(tup, CASS_VALUE_TYPE_BIGINT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type(tup, map), CASS_OK);

    ASSERT_EQ(cass_data_type_sub_type_count(list), 1);
    ASSERT_EQ(cass_data_type_sub_type_count(set), 1);
    ASSERT_EQ(cass_data_type_sub_type_count(map), 2);
    ASSERT_EQ(cass_data_type_sub_type_count(tup), 6);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(list, 0)), CASS_VALUE_TYPE_TEXT);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(set, 0)), CASS_VALUE_TYPE_INT);
    const CassDataType *mv = cass_data_type_sub_data_type(map, 1);
    ASSERT_EQ(cass_data_type_type(mv), CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(mv, 0)), CASS_VALUE_TYPE_TEXT);
    const CassDataType *last = cass_data_type_sub_data_type(tup, 5);
    ASSERT_EQ(cass_data_type_type(last), CASS_VALUE_TYPE_MAP);
    ASSERT(cass_data_type_sub_data_type(tup, 6) == NULL);
    ASSERT(cass_data_type_sub_data_type(list, 1) == NULL);
    ASSERT(cass_data_type_sub_data_type(text, 0) == NULL);

    /* the parent keeps what it was given: freeing the application's handles changes nothing */
    cass_data_type_free(list);
    cass_data_type_free(text);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(mv, 0)), CASS_VALUE_TYPE_TEXT);
    cass_data_type_free(set);
    cass_data_type_free(map);
    cass_data_type_free(tup);
}

TEST(add_sub_type_to_a_scalar_or_user_type_is_invalid_value_type)
{
    /* data_type.cpp: only collections and tuples take positional sub-types */
    CassDataType *i = cass_data_type_new(CASS_VALUE_TYPE_INT);
    CassDataType *u = cass_data_type_new_udt(1);
    CassDataType *text = cass_data_type_new(CASS_VALUE_TYPE_TEXT);
    ASSERT_EQ(cass_data_type_add_sub_type(i, text), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_add_sub_value_type(i, CASS_VALUE_TYPE_INT),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_add_sub_type(u, text), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_add_sub_value_type(u, CASS_VALUE_TYPE_INT),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_sub_type_count(i), 0);
    ASSERT_EQ(cass_data_type_sub_type_count(u), 0);
    cass_data_type_free(i);
    cass_data_type_free(u);
    cass_data_type_free(text);
}

TEST(fields_by_name_go_only_to_user_types)
{
    CassDataType *u = cass_data_type_new_udt(4);
    CassDataType *tup = cass_data_type_new_tuple(1);
    CassDataType *text = cass_data_type_new(CASS_VALUE_TYPE_TEXT);
    char buf[64];

    ASSERT_EQ(cass_data_type_add_sub_type_by_name(u, "street", text), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(u, "Zip", CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type_by_name_n(u, padded(buf, sizeof buf, "note", 4), 4, text),
              CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name_n(u, padded(buf, sizeof buf, "at", 2), 2,
                                                          CASS_VALUE_TYPE_TIMESTAMP),
              CASS_OK);
    /* data_type.cpp: a tuple or scalar takes no named field */
    ASSERT_EQ(cass_data_type_add_sub_type_by_name(tup, "x", text),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(text, "x", CASS_VALUE_TYPE_INT),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name_n(tup, "x", 1, CASS_VALUE_TYPE_INT),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_add_sub_type_by_name_n(tup, "x", 1, text),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);

    ASSERT_EQ(cass_data_type_sub_type_count(u), 4);
    const char *p;
    size_t n;
    char nm[64];
    const char *want[] = {"street", "Zip", "note", "at"};
    for (size_t i = 0; i < 4; i++)
        ASSERT_STR_EQ(name_of(cass_data_type_sub_type_name(u, i, &p, &n), &p, &n, nm, sizeof nm),
                      want[i]);
    ASSERT_EQ(cass_data_type_sub_type_name(u, 4, &p, &n), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_data_type_sub_type_name(tup, 0, &p, &n), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(u, 3)), CASS_VALUE_TYPE_TIMESTAMP);

    /* lookups: case-insensitive unless double-quoted (hash_table.hpp get_indices) */
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type_by_name(u, "STREET")),
              CASS_VALUE_TYPE_TEXT);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type_by_name(u, "zip")),
              CASS_VALUE_TYPE_INT);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type_by_name(u, "\"Zip\"")),
              CASS_VALUE_TYPE_INT);
    ASSERT(cass_data_type_sub_data_type_by_name(u, "\"zip\"") == NULL);
    ASSERT(cass_data_type_sub_data_type_by_name(u, "nosuch") == NULL);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type_by_name_n(u, "attic", 2)),
              CASS_VALUE_TYPE_TIMESTAMP);
    ASSERT(cass_data_type_sub_data_type_by_name_n(u, "streets", 7) == NULL);
    /* data_type.cpp: only a user type has fields by name */
    ASSERT(cass_data_type_sub_data_type_by_name(tup, "x") == NULL);

    cass_data_type_free(u);
    cass_data_type_free(tup);
    cass_data_type_free(text);
}

TEST(type_name_and_keyspace_belong_to_user_types_only)
{
    CassDataType *u = cass_data_type_new_udt(0);
    CassDataType *l = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    const char *p = "unchanged";
    size_t n = 99;
    char buf[64];

    /* never set: the empty name (UserType's type_name_ / keyspace_ start empty) */
    ASSERT_EQ(cass_data_type_type_name(u, &p, &n), CASS_OK);
    ASSERT_EQ(n, 0);
    ASSERT_EQ(cass_data_type_keyspace(u, &p, &n), CASS_OK);
    ASSERT_EQ(n, 0);

    ASSERT_EQ(cass_data_type_set_type_name(u, "addr"), CASS_OK);
    ASSERT_EQ(cass_data_type_set_keyspace(u, "ks"), CASS_OK);
    ASSERT_STR_EQ(name_of(cass_data_type_type_name(u, &p, &n), &p, &n, buf, sizeof buf), "addr");
    ASSERT_STR_EQ(name_of(cass_data_type_keyspace(u, &p, &n), &p, &n, buf, sizeof buf), "ks");
    ASSERT_EQ(cass_data_type_set_type_name_n(u, "person_x", 6), CASS_OK);
    ASSERT_EQ(cass_data_type_set_keyspace_n(u, "other_x", 5), CASS_OK);
    ASSERT_STR_EQ(name_of(cass_data_type_type_name(u, &p, &n), &p, &n, buf, sizeof buf), "person");
    ASSERT_STR_EQ(name_of(cass_data_type_keyspace(u, &p, &n), &p, &n, buf, sizeof buf), "other");

    ASSERT_EQ(cass_data_type_set_type_name(l, "x"), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_set_type_name_n(l, "x", 1), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_set_keyspace(l, "x"), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_set_keyspace_n(l, "x", 1), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_type_name(l, &p, &n), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_keyspace(l, &p, &n), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    cass_data_type_free(u);
    cass_data_type_free(l);
}

TEST(class_name_belongs_to_custom_types_only)
{
    CassDataType *c = cass_data_type_new(CASS_VALUE_TYPE_CUSTOM);
    CassDataType *b = cass_data_type_new(CASS_VALUE_TYPE_BLOB);
    const char *p;
    size_t n = 99;
    char buf[128];
    ASSERT_EQ(cass_data_type_class_name(c, &p, &n), CASS_OK);
    ASSERT_EQ(n, 0);
    ASSERT_EQ(cass_data_type_set_class_name(c, "org.example.Point"), CASS_OK);
    ASSERT_STR_EQ(name_of(cass_data_type_class_name(c, &p, &n), &p, &n, buf, sizeof buf),
                  "org.example.Point");
    ASSERT_EQ(cass_data_type_set_class_name_n(c, "org.example.Pointer", 15), CASS_OK);
    ASSERT_STR_EQ(name_of(cass_data_type_class_name(c, &p, &n), &p, &n, buf, sizeof buf),
                  "org.example.Poi");
    ASSERT_EQ(cass_data_type_set_class_name(b, "x"), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_set_class_name_n(b, "x", 1), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_data_type_class_name(b, &p, &n), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    cass_data_type_free(c);
    cass_data_type_free(b);
}

TEST(new_from_existing_is_a_deep_copy_the_original_may_change)
{
    CassDataType *u = cass_data_type_new_udt(2);
    CassDataType *inner = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_add_sub_value_type(inner, CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_set_type_name(u, "t"), CASS_OK);
    ASSERT_EQ(cass_data_type_set_keyspace(u, "ks"), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type_by_name(u, "xs", inner), CASS_OK);

    CassDataType *copy = cass_data_type_new_from_existing(u);
    ASSERT(copy);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(u, "later", CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_set_type_name(u, "renamed"), CASS_OK);
    cass_data_type_free(u);
    cass_data_type_free(inner);

    const char *p;
    size_t n;
    char buf[64];
    ASSERT_EQ(cass_data_type_type(copy), CASS_VALUE_TYPE_UDT);
    ASSERT_EQ(cass_data_type_sub_type_count(copy), 1);
    ASSERT_STR_EQ(name_of(cass_data_type_type_name(copy, &p, &n), &p, &n, buf, sizeof buf), "t");
    ASSERT_STR_EQ(name_of(cass_data_type_keyspace(copy, &p, &n), &p, &n, buf, sizeof buf), "ks");
    ASSERT_STR_EQ(name_of(cass_data_type_sub_type_name(copy, 0, &p, &n), &p, &n, buf, sizeof buf),
                  "xs");
    const CassDataType *xs = cass_data_type_sub_data_type_by_name(copy, "xs");
    ASSERT_EQ(cass_data_type_type(xs), CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(xs, 0)), CASS_VALUE_TYPE_INT);
    cass_data_type_free(copy);

    CassDataType *cu = cass_data_type_new(CASS_VALUE_TYPE_CUSTOM);
    ASSERT_EQ(cass_data_type_set_class_name(cu, "a.B"), CASS_OK);
    CassDataType *cc = cass_data_type_new_from_existing(cu);
    cass_data_type_free(cu);
    ASSERT_STR_EQ(name_of(cass_data_type_class_name(cc, &p, &n), &p, &n, buf, sizeof buf), "a.B");
    cass_data_type_free(cc);
}

/* ------------------------------------------------------------------------ */
/* Statements: binding every type                                            */
/* ------------------------------------------------------------------------ */

/* Binds the key marker (index 0, name "k") the way `how` binds. */
static CassError bind_key(CassStatement *st, enum how how, int32_t key)
{
    sval k = {.kind = K_INT32, .i = key};
    return bind_sval(st, how, 0, "k", &k);
}

/*
 * Writes each case's value into its column of row ks.v (key = case number + 1) through a bound
 * statement (prepared) or a simple one with ? markers, bound `how`, and reads it back with its
 * getter. A simple statement's markers are named after their columns (facts §2.6), which is
 * what its by-name binds refer to.
 */
static void roundtrip_scalars(CassSession *s, int prepared, enum how how)
{
    for (size_t i = 0; i < NCASES; i++) {
        const scase *c = &CASES[i];
        char q[256], what[128];
        int32_t key = (int32_t)i + 1;
        snprintf(what, sizeof what, "%s %s statement, %s", c->col, prepared ? "bound" : "simple",
                 HOW_NAMES[how]);
        snprintf(q, sizeof q, "INSERT INTO ks.v (k, %s) VALUES (?, ?)", c->col);
        const CassPrepared *p = prepared ? PREPARE(s, q) : NULL;
        CassStatement *st = p ? cass_prepared_bind(p) : cass_statement_new(q, 2);
        ASSERT_EQ(bind_key(st, how, key), CASS_OK);
        CassError rc = bind_sval(st, how, 1, c->col, &c->v);
        if (rc != CASS_OK)
            test_fail(__FILE__, __LINE__, "%s: bind gave %s", what, cass_error_desc(rc));
        EXEC_FREE(s, st);
        cass_prepared_free(p);

        snprintf(q, sizeof q, "SELECT %s FROM ks.v WHERE k = %d", c->col, key);
        const CassResult *r;
        const CassValue *v = CELL(s, q, 0, &r);
        if (cass_value_type(v) != c->type)
            test_fail(__FILE__, __LINE__, "%s: value type 0x%x, want 0x%x", what,
                      (unsigned)cass_value_type(v), (unsigned)c->type);
        CHECK_VAL(what, v, &c->v);
        cass_result_free(r);
    }
}

#define ROUNDTRIP_TEST(name, prepared, how)                                                        \
    TEST(name)                                                                                     \
    {                                                                                              \
        conn cn;                                                                                   \
        open_setup(&cn);                                                                           \
        roundtrip_scalars(cn.session, (prepared), (how));                                          \
        conn_close(&cn);                                                                           \
    }

ROUNDTRIP_TEST(bound_statement_binds_every_type_by_index_and_reads_it_back, 1, BY_INDEX)
ROUNDTRIP_TEST(bound_statement_binds_every_type_by_name_and_reads_it_back, 1, BY_NAME)
ROUNDTRIP_TEST(bound_statement_binds_every_type_by_name_n_and_reads_it_back, 1, BY_NAME_N)
ROUNDTRIP_TEST(bound_statement_binds_strings_with_the_n_forms, 1, BY_INDEX_N)
ROUNDTRIP_TEST(simple_statement_binds_every_type_by_index_and_reads_it_back, 0, BY_INDEX)
ROUNDTRIP_TEST(simple_statement_binds_every_type_by_name_and_reads_it_back, 0, BY_NAME)
ROUNDTRIP_TEST(simple_statement_binds_every_type_by_name_n_and_reads_it_back, 0, BY_NAME_N)
ROUNDTRIP_TEST(simple_statement_binds_strings_with_the_n_forms, 0, BY_INDEX_N)

TEST(bind_string_n_keeps_embedded_nul_bytes)
{
    conn cn;
    open_setup(&cn);
    sval v = {.kind = K_STRING, .s = "a\0b\0", .n = 4};
    const CassPrepared *p =
        PREPARE(cn.session, "INSERT INTO ks.v (k, c_text, c_blob) VALUES (?, ?, ?)");
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(bind_sval(st, BY_INDEX_N, 1, NULL, &v), CASS_OK);
    /* a string binds to a blob too (IsValidDataType<CassString>) */
    ASSERT_EQ(bind_sval(st, BY_NAME_N, 0, "c_blob", &v), CASS_OK);
    EXEC_FREE(cn.session, st);
    const CassResult *r;
    CHECK_VAL("c_text", CELL(cn.session, "SELECT c_text FROM ks.v WHERE k = 1", 0, &r), &v);
    cass_result_free(r);
    sval b = {.kind = K_BYTES, .b = (const uint8_t *)"a\0b\0", .n = 4};
    CHECK_VAL("c_blob", CELL(cn.session, "SELECT c_blob FROM ks.v WHERE k = 1", 0, &r), &b);
    cass_result_free(r);
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(counter_takes_an_int64_and_reads_back_with_get_int64)
{
    conn cn;
    open_setup(&cn);
    /* the marker of "n = n + ?" is named after the counter (facts §2.6) */
    const CassPrepared *p = PREPARE(cn.session, "UPDATE ks.c SET n = n + ? WHERE k = ?");
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 5), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_statement_bind_int64(st, 0, 5), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, 1), CASS_OK);
    EXEC_FREE(cn.session, st);
    st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int64_by_name(st, "n", 30), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32_by_name_n(st, "k_", 1, 1), CASS_OK);
    EXEC_FREE(cn.session, st);
    st = cass_statement_new("UPDATE ks.c SET n = n + ? WHERE k = ?", 2);
    ASSERT_EQ(cass_statement_bind_int64(st, 0, -3), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, 1), CASS_OK);
    EXEC_FREE(cn.session, st);
    cass_prepared_free(p);

    const CassResult *r;
    const CassValue *v = CELL(cn.session, "SELECT n FROM ks.c WHERE k = 1", 0, &r);
    ASSERT_EQ(cass_value_type(v), CASS_VALUE_TYPE_COUNTER);
    sval want = {.kind = K_INT64, .i = 32};
    CHECK_VAL("n", v, &want);
    cass_int32_t i32;
    ASSERT_EQ(cass_value_get_int32(v, &i32), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    cass_result_free(r);
    conn_close(&cn);
}

/* INSERT INTO ks.v (k, <every case column>) VALUES (?, ...), marker i + 1 for case i. */
static const CassPrepared *prepare_all_columns(CassSession *s)
{
    char q[2048];
    size_t n = 0;
    put(q, sizeof q, &n, "INSERT INTO ks.v (k");
    for (size_t i = 0; i < NCASES; i++)
        put(q, sizeof q, &n, ", %s", CASES[i].col);
    put(q, sizeof q, &n, ") VALUES (?");
    for (size_t i = 0; i < NCASES; i++)
        put(q, sizeof q, &n, ", ?");
    put(q, sizeof q, &n, ")");
    return PREPARE(s, q);
}

TEST(bound_statement_refuses_a_c_value_its_marker_type_does_not_take)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = prepare_all_columns(cn.session);
    CassStatement *st = cass_prepared_bind(p);
    for (size_t i = 0; i < NCASES; i++) {
        const scase *c = &CASES[i];
        for (int k = 0; k < K_NKINDS; k++) {
            CassError want =
                kind_binds_to((enum ckind)k, c->type) ? CASS_OK : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
            for (int how = BY_INDEX; how <= BY_NAME_N; how++) {
                CassError rc = bind_sval(st, (enum how)how, i + 1, c->col, sample((enum ckind)k));
                if (rc != want)
                    test_fail(__FILE__, __LINE__, "%s <- %s %s: got %s, want %s", c->col,
                              KIND_NAMES[k], HOW_NAMES[how], cass_error_desc(rc),
                              cass_error_desc(want));
            }
        }
        /* collections, tuples and user types do not fit a scalar; null fits anything */
        CassCollection *l = cass_collection_new(CASS_COLLECTION_TYPE_LIST, 0);
        CassTuple *t = cass_tuple_new(1);
        ASSERT_EQ(cass_statement_bind_collection(st, i + 1, l), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
        ASSERT_EQ(cass_statement_bind_tuple_by_name(st, c->col, t),
                  CASS_ERROR_LIB_INVALID_VALUE_TYPE);
        ASSERT_EQ(cass_statement_bind_null(st, i + 1), CASS_OK);
        ASSERT_EQ(cass_statement_bind_null_by_name(st, c->col), CASS_OK);
        ASSERT_EQ(cass_statement_bind_null_by_name_n(st, c->col, strlen(c->col)), CASS_OK);
        cass_collection_free(l);
        cass_tuple_free(t);
    }
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(simple_statement_takes_any_c_value_and_the_server_validates_it)
{
    conn cn;
    open_setup(&cn);
    char msg[512];
    /* no types to check against: the bind succeeds, Cassandra refuses the bytes (facts §2.2) */
    CassStatement *st = cass_statement_new("INSERT INTO ks.v (k, c_bigint) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, 7), CASS_OK);
    ASSERT_EQ(exec_err(cn.session, st, msg, sizeof msg), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, "Expected 8 or 0 byte long (4)");
    cass_statement_free(st);

    st = cass_statement_new("INSERT INTO ks.v (k, c_text) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_bytes(st, 1, (const cass_byte_t *)"\xff", 1), CASS_OK);
    ASSERT_EQ(exec_err(cn.session, st, msg, sizeof msg), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, "String didn't validate.");
    cass_statement_free(st);

    /* a value that happens to have the right shape is taken as it is */
    st = cass_statement_new("INSERT INTO ks.v (k, c_int) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_float(st, 1, 1.0f), CASS_OK);
    EXEC_FREE(cn.session, st);
    const CassResult *r;
    sval want = {.kind = K_INT32, .i = 0x3f800000};
    CHECK_VAL("c_int", CELL(cn.session, "SELECT c_int FROM ks.v WHERE k = 1", 0, &r), &want);
    cass_result_free(r);
    conn_close(&cn);
}

/* Every bind by index at `index`, which must all give `want`. */
static void bind_every_kind_at(CassStatement *st, size_t index, CassError want)
{
    for (int k = 0; k < K_NKINDS; k++) {
        for (int how = BY_INDEX; how <= BY_INDEX_N; how++) {
            CassError rc = bind_sval(st, (enum how)how, index, NULL, sample((enum ckind)k));
            if (rc != want)
                test_fail(__FILE__, __LINE__, "%s at %zu: got %s, want %s", KIND_NAMES[k], index,
                          cass_error_desc(rc), cass_error_desc(want));
        }
    }
    CassCollection *l = cass_collection_new(CASS_COLLECTION_TYPE_LIST, 0);
    CassTuple *t = cass_tuple_new(0);
    CassDataType *dt = cass_data_type_new_udt(0);
    CassUserType *u = cass_user_type_new_from_data_type(dt);
    ASSERT_EQ(cass_statement_bind_null(st, index), want);
    ASSERT_EQ(cass_statement_bind_collection(st, index, l), want);
    ASSERT_EQ(cass_statement_bind_tuple(st, index, t), want);
    ASSERT_EQ(cass_statement_bind_user_type(st, index, u), want);
    cass_collection_free(l);
    cass_tuple_free(t);
    cass_user_type_free(u);
    cass_data_type_free(dt);
}

TEST(binding_past_the_last_marker_is_index_out_of_bounds)
{
    conn cn;
    open_setup(&cn);
    /* abstract_data.cpp checks the index before the type */
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.v (k, c_int) VALUES (?, ?)");
    CassStatement *st = cass_prepared_bind(p);
    bind_every_kind_at(st, 2, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    bind_every_kind_at(st, 1000, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    cass_statement_free(st);
    cass_prepared_free(p);
    /* a simple statement has the parameter count it was made with */
    st = cass_statement_new("INSERT INTO ks.v (k, c_int) VALUES (?, ?)", 2);
    bind_every_kind_at(st, 2, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    cass_statement_free(st);
    st = cass_statement_new("SELECT * FROM ks.v", 0);
    bind_every_kind_at(st, 0, CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    cass_statement_free(st);
    conn_close(&cn);
}

TEST(binding_a_name_no_marker_has_is_name_does_not_exist)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.v (k, c_int) VALUES (?, ?)");
    CassStatement *st = cass_prepared_bind(p);
    for (int k = 0; k < K_NKINDS; k++) {
        for (int how = BY_NAME; how <= BY_NAME_N; how++) {
            CassError rc = bind_sval(st, (enum how)how, 0, "nosuch", sample((enum ckind)k));
            if (rc != CASS_ERROR_LIB_NAME_DOES_NOT_EXIST)
                test_fail(__FILE__, __LINE__, "%s %s: got %s", KIND_NAMES[k], HOW_NAMES[how],
                          cass_error_desc(rc));
        }
    }
    CassCollection *l = cass_collection_new(CASS_COLLECTION_TYPE_LIST, 0);
    CassTuple *t = cass_tuple_new(0);
    CassDataType *dt = cass_data_type_new_udt(0);
    CassUserType *u = cass_user_type_new_from_data_type(dt);
    ASSERT_EQ(cass_statement_bind_null_by_name(st, "nosuch"), CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    ASSERT_EQ(cass_statement_bind_collection_by_name(st, "nosuch", l),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    ASSERT_EQ(cass_statement_bind_tuple_by_name_n(st, "nosuch", 6, t),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    ASSERT_EQ(cass_statement_bind_user_type_by_name(st, "nosuch", u),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    /* the length counts: a prefix of a name, or a name with more after it, is another name */
    ASSERT_EQ(cass_statement_bind_int32_by_name_n(st, "c_int", 3, 1),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    ASSERT_EQ(cass_statement_bind_int32_by_name_n(st, "c_intx", 6, 1),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    /* the name is checked before the value's type */
    ASSERT_EQ(cass_statement_bind_string_by_name(st, "nosuch", "x"),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    cass_collection_free(l);
    cass_tuple_free(t);
    cass_user_type_free(u);
    cass_data_type_free(dt);
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&cn);
}

/* "Mixed" and mixed of ks.q row k, as two ints (INT32_MIN for null). */
static void read_mixed(CassSession *s, int k, int32_t *quoted, int32_t *plain)
{
    char q[128];
    snprintf(q, sizeof q, "SELECT \"Mixed\", mixed FROM ks.q WHERE k = %d", k);
    const CassResult *r = QUERY(s, q);
    const CassRow *row = cass_result_first_row(r);
    ASSERT(row);
    *quoted = *plain = INT32_MIN;
    cass_value_get_int32(cass_row_get_column(row, 0), quoted);
    cass_value_get_int32(cass_row_get_column(row, 1), plain);
    cass_result_free(r);
}

TEST(quoted_names_are_case_sensitive_and_plain_names_match_any_case)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p =
        PREPARE(cn.session, "INSERT INTO ks.q (k, \"Mixed\", mixed) VALUES (?, ?, ?)");
    const char *name;
    size_t len;
    char buf[64];
    ASSERT_STR_EQ(
        name_of(cass_prepared_parameter_name(p, 1, &name, &len), &name, &len, buf, sizeof buf),
        "Mixed");
    ASSERT_STR_EQ(
        name_of(cass_prepared_parameter_name(p, 2, &name, &len), &name, &len, buf, sizeof buf),
        "mixed");
    ASSERT_EQ(cass_prepared_parameter_name(p, 3, &name, &len), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);

    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    /* hash_table.hpp get_indices: a plain name reaches every marker equal ignoring case */
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "MIXED", 7), CASS_OK);
    /* a quoted one only the marker spelled exactly so */
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "\"Mixed\"", 8), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "\"MIXED\"", 9),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    ASSERT_EQ(cass_statement_bind_int32_by_name_n(st, "\"mixed\"", 7, 9), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32_by_name_n(st, "\"mixed\"x", 7, 6), CASS_OK);
    EXEC_FREE(cn.session, st);
    int32_t quoted, plain;
    read_mixed(cn.session, 1, &quoted, &plain);
    ASSERT_EQ(quoted, 8);
    ASSERT_EQ(plain, 6);

    ASSERT_EQ(cass_data_type_type(cass_prepared_parameter_data_type_by_name(p, "\"Mixed\"")),
              CASS_VALUE_TYPE_INT);
    ASSERT(cass_prepared_parameter_data_type_by_name(p, "\"MIXED\"") == NULL);
    ASSERT_EQ(cass_data_type_type(cass_prepared_parameter_data_type_by_name_n(p, "Kx", 1)),
              CASS_VALUE_TYPE_INT);
    ASSERT(cass_prepared_parameter_data_type_by_name(p, "nosuch") == NULL);
    ASSERT(cass_prepared_parameter_data_type(p, 3) == NULL);
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(a_name_used_by_several_markers_binds_all_of_them)
{
    conn cn;
    open_setup(&cn);
    const char *q = "INSERT INTO ks.q (k, \"Mixed\", mixed) VALUES (:k, :x, :x)";
    const CassPrepared *p = PREPARE(cn.session, q);
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "k", 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "x", 5), CASS_OK);
    EXEC_FREE(cn.session, st);
    /* a value the markers do not take is refused */
    st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_string_by_name(st, "X", "no"), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    cass_statement_free(st);
    cass_prepared_free(p);
    int32_t quoted, plain;
    read_mixed(cn.session, 1, &quoted, &plain);
    ASSERT_EQ(quoted, 5);
    ASSERT_EQ(plain, 5);

    /* a simple statement sends the name once; Cassandra gives its value to every marker so named */
    st = cass_statement_new(q, 2);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "k", 2), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "x", 6), CASS_OK);
    EXEC_FREE(cn.session, st);
    read_mixed(cn.session, 2, &quoted, &plain);
    ASSERT_EQ(quoted, 6);
    ASSERT_EQ(plain, 6);

    /* Cassandra matches a simple statement's names exactly (QueryOptions with names compares
       with String.equals): "K" reaches no marker, so the values fall short. */
    st = cass_statement_new(q, 2);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "K", 3), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32_by_name(st, "x", 7), CASS_OK);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    const char *msg;
    size_t len;
    cass_future_error_message(f, &msg, &len);
    ASSERT_EQ(len, strlen("Invalid amount of bind variables"));
    ASSERT(memcmp(msg, "Invalid amount of bind variables", len) == 0);
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
}

/* Row k of ks.v: c_int and c_text as an int (INT32_MIN for null) and a string ("" for null). */
static void read_int_text(CassSession *s, int k, int32_t *i, char *text, size_t cap)
{
    char q[128];
    snprintf(q, sizeof q, "SELECT c_int, c_text FROM ks.v WHERE k = %d", k);
    const CassResult *r = QUERY(s, q);
    const CassRow *row = cass_result_first_row(r);
    ASSERT(row);
    *i = INT32_MIN;
    if (!cass_value_is_null(cass_row_get_column(row, 0)))
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 0), i), CASS_OK);
    const char *p = "";
    size_t n = 0;
    if (!cass_value_is_null(cass_row_get_column(row, 1)))
        ASSERT_EQ(cass_value_get_string(cass_row_get_column(row, 1), &p, &n), CASS_OK);
    snprintf(text, cap, "%.*s", (int)n, p);
    cass_result_free(r);
}

TEST(a_value_left_unbound_leaves_its_column_unchanged)
{
    conn cn;
    open_setup(&cn);
    RUN(cn.session, "INSERT INTO ks.v (k, c_int, c_text) VALUES (1, 5, 'kept')");
    RUN(cn.session, "INSERT INTO ks.v (k, c_int, c_text) VALUES (2, 5, 'kept')");
    const char *q = "INSERT INTO ks.v (k, c_int, c_text) VALUES (?, ?, ?)";
    /* driver v4: an unbound value goes out as "unset", a no-op for its column (facts §2.1) */
    const CassPrepared *p = PREPARE(cn.session, q);
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, 6), CASS_OK);
    EXEC_FREE(cn.session, st);
    st = cass_statement_new(q, 3);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 2), CASS_OK);
    ASSERT_EQ(cass_statement_bind_string(st, 2, "new"), CASS_OK);
    EXEC_FREE(cn.session, st);
    int32_t i;
    char text[64];
    read_int_text(cn.session, 1, &i, text, sizeof text);
    ASSERT_EQ(i, 6);
    ASSERT_STR_EQ(text, "kept");
    read_int_text(cn.session, 2, &i, text, sizeof text);
    ASSERT_EQ(i, 5);
    ASSERT_STR_EQ(text, "new");

    /* an unset key is refused (facts §2.1) */
    char msg[256];
    st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 1, 6), CASS_OK);
    ASSERT_EQ(exec_err(cn.session, st, msg, sizeof msg), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, "Invalid unset value for column k");
    cass_statement_free(st);
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(binding_null_deletes_the_column)
{
    conn cn;
    open_setup(&cn);
    const char *q = "INSERT INTO ks.v (k, c_int, c_text) VALUES (?, ?, ?)";
    const CassPrepared *p = PREPARE(cn.session, q);
    char text[64];
    int32_t i;
    for (int k = 1; k <= 4; k++) {
        char ins[128];
        snprintf(ins, sizeof ins, "INSERT INTO ks.v (k, c_int, c_text) VALUES (%d, 5, 'x')", k);
        RUN(cn.session, ins);
        CassStatement *st = k <= 3 ? cass_prepared_bind(p) : cass_statement_new(q, 3);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, k), CASS_OK);
        ASSERT_EQ(cass_statement_bind_int32(st, 1, 9), CASS_OK);
        if (k == 1 || k == 4)
            ASSERT_EQ(cass_statement_bind_null(st, 2), CASS_OK);
        else if (k == 2)
            ASSERT_EQ(cass_statement_bind_null_by_name(st, "C_TEXT"), CASS_OK);
        else
            ASSERT_EQ(cass_statement_bind_null_by_name_n(st, "c_textual", 6), CASS_OK);
        EXEC_FREE(cn.session, st);
        read_int_text(cn.session, k, &i, text, sizeof text);
        ASSERT_EQ(i, 9);
        ASSERT_STR_EQ(text, "");
    }
    const CassResult *r;
    const CassValue *v = CELL(cn.session, "SELECT c_text FROM ks.v WHERE k = 1", 0, &r);
    ASSERT(cass_value_is_null(v));
    const char *s;
    size_t n;
    ASSERT_EQ(cass_value_get_string(v, &s, &n), CASS_ERROR_LIB_NULL_VALUE);
    cass_result_free(r);
    cass_prepared_free(p);
    conn_close(&cn);
}

typedef struct bind_job {
    CassSession *session;
    const CassPrepared *prepared;
    int first, count;
    int failures;
} bind_job;

static void *bind_worker(void *arg)
{
    bind_job *j = arg;
    for (int k = j->first; k < j->first + j->count; k++) {
        char text[32];
        snprintf(text, sizeof text, "row %d", k);
        CassStatement *st = cass_prepared_bind(j->prepared);
        if (cass_statement_bind_int32_by_name(st, "k", k) != CASS_OK ||
            cass_statement_bind_int32(st, 1, k * 3) != CASS_OK ||
            cass_statement_bind_string_by_name(st, "c_text", text) != CASS_OK)
            j->failures++;
        CassFuture *f = cass_session_execute(j->session, st);
        if (cass_future_error_code(f) != CASS_OK)
            j->failures++;
        cass_future_free(f);
        cass_statement_free(st);
    }
    return NULL;
}

TEST(one_prepared_statement_is_bound_from_several_threads_at_once)
{
    enum { THREADS = 4, PER = 50 };
    conn cn;
    open_setup(&cn);
    const CassPrepared *p =
        PREPARE(cn.session, "INSERT INTO ks.v (k, c_int, c_text) VALUES (?, ?, ?)");
    pthread_t th[THREADS];
    bind_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (bind_job){cn.session, p, t * PER, PER, 0};
        ASSERT_EQ(pthread_create(&th[t], NULL, bind_worker, &jobs[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        ASSERT_EQ(pthread_join(th[t], NULL), 0);
        ASSERT_EQ(jobs[t].failures, 0);
    }
    cass_prepared_free(p);
    for (int k = 0; k < THREADS * PER; k++) {
        int32_t i;
        char text[32], want[32];
        read_int_text(cn.session, k, &i, text, sizeof text);
        snprintf(want, sizeof want, "row %d", k);
        ASSERT_EQ(i, k * 3);
        ASSERT_STR_EQ(text, want);
    }
    conn_close(&cn);
}

/* ------------------------------------------------------------------------ */
/* Collections, tuples and user types                                        */
/* ------------------------------------------------------------------------ */

/* Walks a list or set value: every item must equal want; returns how many there were. */
static size_t check_items(const char *what, const CassValue *v, const sval *want)
{
    CassIterator *it = cass_iterator_from_collection(v);
    ASSERT(it);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_COLLECTION);
    size_t n = 0;
    while (cass_iterator_next(it)) {
        CHECK_VAL(what, cass_iterator_get_value(it), want);
        n++;
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    return n;
}

TEST(collection_append_round_trips_every_type_in_lists_sets_and_maps)
{
    conn cn;
    open_setup(&cn);
    CassSession *s = cn.session;
    for (size_t i = 0; i < NCASES; i++) {
        const scase *c = &CASES[i];
        const char *t = c->col + 2;
        int has_set = c->v.kind != K_DURATION;
        char q[256], what[128];
        snprintf(q, sizeof q, "INSERT INTO ks.coll (k, l_%s, m_%s%s%s) VALUES (?, ?, ?%s)", t, t,
                 has_set ? ", s_" : "", has_set ? t : "", has_set ? ", ?" : "");
        const CassPrepared *p = PREPARE(s, q);
        /* typed from the markers' types, and untyped (cass_collection_new) */
        for (int typed = 0; typed <= 1; typed++) {
            int32_t key = (int32_t)(2 * i + (size_t)typed);
            CassCollection *l, *m, *set = NULL;
            if (typed) {
                l = cass_collection_new_from_data_type(cass_prepared_parameter_data_type(p, 1), 2);
                m = cass_collection_new_from_data_type(cass_prepared_parameter_data_type(p, 2), 2);
                if (has_set)
                    set = cass_collection_new_from_data_type(
                        cass_prepared_parameter_data_type(p, 3), 1);
            } else {
                l = cass_collection_new(CASS_COLLECTION_TYPE_LIST, 2);
                m = cass_collection_new(CASS_COLLECTION_TYPE_MAP, 2);
                if (has_set)
                    set = cass_collection_new(CASS_COLLECTION_TYPE_SET, 1);
            }
            ASSERT(l && m && (set || !has_set));
            snprintf(what, sizeof what, "%s list (%s)", t, typed ? "typed" : "untyped");
            ASSERT_EQ(append_sval(l, &c->v, 0), CASS_OK);
            ASSERT_EQ(append_sval(l, &c->v, 1), CASS_OK);
            ASSERT_EQ(cass_collection_append_int32(m, 7), CASS_OK);
            ASSERT_EQ(append_sval(m, &c->v, 1), CASS_OK);
            if (set)
                ASSERT_EQ(append_sval(set, &c->v, 0), CASS_OK);

            CassStatement *st = cass_prepared_bind(p);
            ASSERT_EQ(cass_statement_bind_int32(st, 0, key), CASS_OK);
            ASSERT_EQ(cass_statement_bind_collection(st, 1, l), CASS_OK);
            ASSERT_EQ(cass_statement_bind_collection(st, 2, m), CASS_OK);
            if (set)
                ASSERT_EQ(cass_statement_bind_collection(st, 3, set), CASS_OK);
            /* the statement keeps a copy: the collections may go */
            cass_collection_free(l);
            cass_collection_free(m);
            cass_collection_free(set);
            EXEC_FREE(s, st);

            snprintf(q, sizeof q, "SELECT l_%s, m_%s%s%s FROM ks.coll WHERE k = %d", t, t,
                     has_set ? ", s_" : "", has_set ? t : "", key);
            const CassResult *r = QUERY(s, q);
            const CassRow *row = cass_result_first_row(r);
            const CassValue *lv = cass_row_get_column(row, 0);
            ASSERT_EQ(cass_value_type(lv), CASS_VALUE_TYPE_LIST);
            ASSERT(cass_value_is_collection(lv));
            ASSERT_EQ(cass_value_primary_sub_type(lv), c->type);
            ASSERT_EQ(cass_value_secondary_sub_type(lv), CASS_VALUE_TYPE_UNKNOWN);
            ASSERT_EQ(cass_value_item_count(lv), 2);
            ASSERT_EQ(check_items(what, lv, &c->v), 2);

            const CassValue *mv = cass_row_get_column(row, 1);
            ASSERT_EQ(cass_value_type(mv), CASS_VALUE_TYPE_MAP);
            ASSERT_EQ(cass_value_primary_sub_type(mv), CASS_VALUE_TYPE_INT);
            ASSERT_EQ(cass_value_secondary_sub_type(mv), c->type);
            ASSERT_EQ(cass_value_item_count(mv), 1);
            CassIterator *it = cass_iterator_from_map(mv);
            ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_MAP);
            ASSERT(cass_iterator_next(it));
            sval seven = {.kind = K_INT32, .i = 7};
            CHECK_VAL(what, cass_iterator_get_map_key(it), &seven);
            CHECK_VAL(what, cass_iterator_get_map_value(it), &c->v);
            ASSERT(!cass_iterator_next(it));
            cass_iterator_free(it);
            /* iterator.cpp: a map walked as a collection gives key, value, key, value... */
            it = cass_iterator_from_collection(mv);
            ASSERT(cass_iterator_next(it));
            CHECK_VAL(what, cass_iterator_get_value(it), &seven);
            ASSERT(cass_iterator_next(it));
            CHECK_VAL(what, cass_iterator_get_value(it), &c->v);
            ASSERT(!cass_iterator_next(it));
            cass_iterator_free(it);

            if (has_set) {
                const CassValue *sv = cass_row_get_column(row, 2);
                ASSERT_EQ(cass_value_type(sv), CASS_VALUE_TYPE_SET);
                ASSERT_EQ(cass_value_primary_sub_type(sv), c->type);
                ASSERT_EQ(check_items(what, sv, &c->v), 1);
            }
            cass_result_free(r);
        }
        cass_prepared_free(p);
    }
    conn_close(&cn);
}

TEST(typed_collections_refuse_items_of_another_type)
{
    CassDataType *li = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_add_sub_value_type(li, CASS_VALUE_TYPE_INT), CASS_OK);
    CassCollection *l = cass_collection_new_from_data_type(li, 1);
    for (int k = 0; k < K_NKINDS; k++) {
        CassError want = kind_binds_to((enum ckind)k, CASS_VALUE_TYPE_INT)
                             ? CASS_OK
                             : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
        for (int use_n = 0; use_n <= 1; use_n++)
            if (append_sval(l, sample((enum ckind)k), use_n) != want)
                test_fail(__FILE__, __LINE__, "list<int> <- %s", KIND_NAMES[k]);
    }
    /* the collection's type is the one it was made from, sub-types included */
    const CassDataType *dt = cass_collection_data_type(l);
    ASSERT_EQ(cass_data_type_type(dt), CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(dt, 0)), CASS_VALUE_TYPE_INT);
    cass_collection_free(l);

    /* a map's items alternate key and value types (collection.hpp check) */
    CassDataType *mt = cass_data_type_new(CASS_VALUE_TYPE_MAP);
    ASSERT_EQ(cass_data_type_add_sub_value_type(mt, CASS_VALUE_TYPE_TEXT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(mt, CASS_VALUE_TYPE_INT), CASS_OK);
    CassCollection *m = cass_collection_new_from_data_type(mt, 2);
    ASSERT_EQ(cass_collection_append_int32(m, 1), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_collection_append_string(m, "a"), CASS_OK);
    ASSERT_EQ(cass_collection_append_string(m, "b"), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_collection_append_int32(m, 1), CASS_OK);
    ASSERT_EQ(cass_collection_append_string_n(m, "bc", 1), CASS_OK);
    cass_collection_free(m);

    /* nested: a collection fits when its type equals the item type, sub-types compared when
       both have some (DataType::equals) */
    CassDataType *ll = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_add_sub_type(ll, li), CASS_OK);
    CassCollection *outer = cass_collection_new_from_data_type(ll, 3);
    CassCollection *ints = cass_collection_new_from_data_type(li, 0);
    CassCollection *untyped = cass_collection_new(CASS_COLLECTION_TYPE_LIST, 0);
    CassCollection *set = cass_collection_new(CASS_COLLECTION_TYPE_SET, 0);
    CassDataType *lt = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_add_sub_value_type(lt, CASS_VALUE_TYPE_TEXT), CASS_OK);
    CassCollection *texts = cass_collection_new_from_data_type(lt, 0);
    CassTuple *tup = cass_tuple_new(1);
    ASSERT_EQ(cass_collection_append_collection(outer, ints), CASS_OK);
    ASSERT_EQ(cass_collection_append_collection(outer, untyped), CASS_OK);
    ASSERT_EQ(cass_collection_append_collection(outer, texts), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_collection_append_collection(outer, set), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_collection_append_tuple(outer, tup), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_collection_append_int32(outer, 1), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    cass_collection_free(outer);
    cass_collection_free(ints);
    cass_collection_free(untyped);
    cass_collection_free(set);
    cass_collection_free(texts);
    cass_tuple_free(tup);

    /* a custom value goes only to a custom type of the same class */
    CassDataType *cu = cass_data_type_new(CASS_VALUE_TYPE_CUSTOM);
    ASSERT_EQ(cass_data_type_set_class_name(cu, "org.example.Point"), CASS_OK);
    CassDataType *lc = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_add_sub_type(lc, cu), CASS_OK);
    CassCollection *pts = cass_collection_new_from_data_type(lc, 2);
    const cass_byte_t raw[] = {1, 2};
    ASSERT_EQ(cass_collection_append_custom(pts, "org.example.Point", raw, 2), CASS_OK);
    ASSERT_EQ(cass_collection_append_custom_n(pts, "org.example.Pointy", 17, raw, 2), CASS_OK);
    ASSERT_EQ(cass_collection_append_custom(pts, "org.example.Line", raw, 2),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    /* strings and bytes also go to custom types */
    ASSERT_EQ(cass_collection_append_bytes(pts, raw, 2), CASS_OK);
    ASSERT_EQ(cass_collection_append_string(pts, "x"), CASS_OK);
    cass_collection_free(pts);
    CassCollection *blobs = cass_collection_new_from_data_type(li, 1);
    ASSERT_EQ(cass_collection_append_custom(blobs, "org.example.Point", raw, 2),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    cass_collection_free(blobs);
    cass_data_type_free(cu);
    cass_data_type_free(lc);
    cass_data_type_free(lt);
    cass_data_type_free(ll);
    cass_data_type_free(mt);
    cass_data_type_free(li);
}

TEST(constructors_from_a_data_type_refuse_another_kind)
{
    CassDataType *i = cass_data_type_new(CASS_VALUE_TYPE_INT);
    CassDataType *t = cass_data_type_new_tuple(0);
    CassDataType *u = cass_data_type_new_udt(0);
    CassDataType *l = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    ASSERT(cass_collection_new_from_data_type(i, 1) == NULL);
    ASSERT(cass_collection_new_from_data_type(t, 1) == NULL);
    ASSERT(cass_collection_new_from_data_type(u, 1) == NULL);
    ASSERT(cass_tuple_new_from_data_type(l) == NULL);
    ASSERT(cass_tuple_new_from_data_type(u) == NULL);
    ASSERT(cass_user_type_new_from_data_type(t) == NULL);
    ASSERT(cass_user_type_new_from_data_type(i) == NULL);
    CassCollection *c = cass_collection_new_from_data_type(l, 0);
    CassTuple *tv = cass_tuple_new_from_data_type(t);
    CassUserType *uv = cass_user_type_new_from_data_type(u);
    ASSERT(c && tv && uv);
    ASSERT_EQ(cass_data_type_type(cass_collection_data_type(c)), CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_type(cass_tuple_data_type(tv)), CASS_VALUE_TYPE_TUPLE);
    ASSERT_EQ(cass_data_type_type(cass_user_type_data_type(uv)), CASS_VALUE_TYPE_UDT);
    /* cass_collection_new gives a list, set or map type without sub-types */
    CassCollection *s = cass_collection_new(CASS_COLLECTION_TYPE_SET, 4);
    ASSERT_EQ(cass_data_type_type(cass_collection_data_type(s)), CASS_VALUE_TYPE_SET);
    ASSERT_EQ(cass_data_type_sub_type_count(cass_collection_data_type(s)), 0);
    CassTuple *tn = cass_tuple_new(3);
    ASSERT_EQ(cass_data_type_type(cass_tuple_data_type(tn)), CASS_VALUE_TYPE_TUPLE);
    cass_collection_free(s);
    cass_tuple_free(tn);
    cass_collection_free(c);
    cass_tuple_free(tv);
    cass_user_type_free(uv);
    cass_data_type_free(i);
    cass_data_type_free(t);
    cass_data_type_free(u);
    cass_data_type_free(l);
}

TEST(binding_a_map_with_a_key_but_no_value_is_invalid_item_count)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.coll (k, mt) VALUES (?, ?)");
    CassCollection *m = cass_collection_new(CASS_COLLECTION_TYPE_MAP, 1);
    ASSERT_EQ(cass_collection_append_string(m, "lonely"), CASS_OK);
    CassStatement *st = cass_prepared_bind(p);
    /* abstract_data.cpp: statements and user types refuse an odd map */
    ASSERT_EQ(cass_statement_bind_collection(st, 1, m), CASS_ERROR_LIB_INVALID_ITEM_COUNT);
    ASSERT_EQ(cass_statement_bind_collection_by_name(st, "mt", m),
              CASS_ERROR_LIB_INVALID_ITEM_COUNT);
    CassStatement *simple = cass_statement_new("INSERT INTO ks.coll (k, mt) VALUES (?, ?)", 2);
    ASSERT_EQ(cass_statement_bind_collection(simple, 1, m), CASS_ERROR_LIB_INVALID_ITEM_COUNT);
    const CassPrepared *pb = PREPARE(cn.session, "INSERT INTO ks.nest (k, bg) VALUES (?, ?)");
    CassUserType *bag = cass_user_type_new_from_data_type(cass_prepared_parameter_data_type(pb, 1));
    ASSERT(bag);
    ASSERT_EQ(cass_user_type_set_collection_by_name(bag, "scores", m),
              CASS_ERROR_LIB_INVALID_ITEM_COUNT);
    /* completed, it binds */
    ASSERT_EQ(cass_collection_append_int32(m, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_collection(st, 1, m), CASS_OK);
    ASSERT_EQ(cass_user_type_set_collection_by_name(bag, "scores", m), CASS_OK);
    cass_user_type_free(bag);
    cass_statement_free(simple);
    cass_statement_free(st);
    cass_collection_free(m);
    cass_prepared_free(p);
    cass_prepared_free(pb);
    conn_close(&cn);
}

TEST(untyped_collections_bind_anywhere_and_the_server_validates_them)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.coll (k, l_int) VALUES (?, ?)");
    CassCollection *l = cass_collection_new(CASS_COLLECTION_TYPE_LIST, 1);
    ASSERT_EQ(cass_collection_append_string(l, "hello"), CASS_OK);
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    /* list without sub-types equals list<int> (DataType::equals compares sub-types only when
       both have some) */
    ASSERT_EQ(cass_statement_bind_collection(st, 1, l), CASS_OK);
    char msg[256];
    ASSERT_EQ(exec_err(cn.session, st, msg, sizeof msg), CASS_ERROR_SERVER_INVALID_QUERY);
    ASSERT_STR_EQ(msg, "Expected 4 or 0 byte int (5)");
    cass_statement_free(st);
    /* but a set is no list */
    CassCollection *set = cass_collection_new(CASS_COLLECTION_TYPE_SET, 1);
    st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_collection(st, 1, set), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    cass_statement_free(st);
    cass_collection_free(set);
    cass_collection_free(l);
    cass_prepared_free(p);
    conn_close(&cn);
}

/* The tuple of ks.v.tup holding every case's value, made from `type` (NULL: cass_tuple_new). */
static CassTuple *tuple_of_cases(const CassDataType *type, int use_n)
{
    CassTuple *t = type ? cass_tuple_new_from_data_type(type) : cass_tuple_new(NCASES);
    ASSERT(t);
    for (size_t i = 0; i < NCASES; i++) {
        CassError rc = tuple_set_sval(t, i, &CASES[i].v, use_n);
        if (rc != CASS_OK)
            test_fail(__FILE__, __LINE__, "tuple %s: %s", CASES[i].col, cass_error_desc(rc));
    }
    return t;
}

TEST(tuple_set_round_trips_every_type)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.v (k, tup) VALUES (?, ?)");
    const CassDataType *tt = cass_prepared_parameter_data_type(p, 1);
    ASSERT_EQ(cass_data_type_type(tt), CASS_VALUE_TYPE_TUPLE);
    ASSERT_EQ(cass_data_type_sub_type_count(tt), NCASES);
    char first[1024], hx[1024];
    for (int k = 0; k < 3; k++) {
        /* typed, typed with the _n string setters, untyped */
        CassTuple *t = tuple_of_cases(k < 2 ? tt : NULL, k == 1);
        CassStatement *st = cass_prepared_bind(p);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, k), CASS_OK);
        ASSERT_EQ(k == 2 ? cass_statement_bind_tuple_by_name(st, "tup", t)
                         : cass_statement_bind_tuple(st, 1, t),
                  CASS_OK);
        cass_tuple_free(t);
        EXEC_FREE(cn.session, st);

        char q[128];
        snprintf(q, sizeof q, "SELECT tup FROM ks.v WHERE k = %d", k);
        const CassResult *r;
        const CassValue *v = CELL(cn.session, q, 0, &r);
        ASSERT_EQ(cass_value_type(v), CASS_VALUE_TYPE_TUPLE);
        ASSERT(!cass_value_is_collection(v));
        /* value.cpp: a tuple's item count is its component count */
        ASSERT_EQ(cass_value_item_count(v), NCASES);
        /* value.hpp: sub-types are a collection's only */
        ASSERT_EQ(cass_value_primary_sub_type(v), CASS_VALUE_TYPE_UNKNOWN);
        ASSERT(cass_iterator_from_collection(v) == NULL);
        ASSERT(cass_iterator_from_map(v) == NULL);
        CassIterator *it = cass_iterator_from_tuple(v);
        ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_TUPLE);
        for (size_t i = 0; i < NCASES; i++) {
            ASSERT(cass_iterator_next(it));
            const CassValue *item = cass_iterator_get_value(it);
            ASSERT_EQ(cass_value_type(item), CASES[i].type);
            CHECK_VAL(CASES[i].col, item, &CASES[i].v);
        }
        ASSERT(!cass_iterator_next(it));
        cass_iterator_free(it);
        /* the three ways make the same bytes */
        value_hex(v, hx, sizeof hx);
        if (k == 0)
            snprintf(first, sizeof first, "%s", hx);
        else
            ASSERT_STR_EQ(hx, first);
        cass_result_free(r);
    }
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(tuple_set_checks_the_index_and_the_component_type)
{
    CassDataType *tt = cass_data_type_new_tuple(6);
    CassDataType *li = cass_data_type_new(CASS_VALUE_TYPE_LIST);
    CassDataType *t1 = cass_data_type_new_tuple(1);
    CassDataType *ut = cass_data_type_new_udt(1);
    CassDataType *cu = cass_data_type_new(CASS_VALUE_TYPE_CUSTOM);
    ASSERT_EQ(cass_data_type_add_sub_value_type(li, CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(t1, CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(ut, "f", CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_set_class_name(cu, "org.example.Point"), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(tt, CASS_VALUE_TYPE_INT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type(tt, CASS_VALUE_TYPE_TEXT), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type(tt, li), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type(tt, t1), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type(tt, ut), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type(tt, cu), CASS_OK);

    CassTuple *t = cass_tuple_new_from_data_type(tt);
    for (int k = 0; k < K_NKINDS; k++) {
        for (int use_n = 0; use_n <= 1; use_n++) {
            const sval *v = sample((enum ckind)k);
            CassError w0 = kind_binds_to((enum ckind)k, CASS_VALUE_TYPE_INT)
                               ? CASS_OK
                               : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
            CassError w1 = kind_binds_to((enum ckind)k, CASS_VALUE_TYPE_TEXT)
                               ? CASS_OK
                               : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
            if (tuple_set_sval(t, 0, v, use_n) != w0 || tuple_set_sval(t, 1, v, use_n) != w1)
                test_fail(__FILE__, __LINE__, "tuple<int, text> <- %s", KIND_NAMES[k]);
            /* past the last component, whatever the value (tuple.hpp checks the index first) */
            if (tuple_set_sval(t, 6, v, use_n) != CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS)
                test_fail(__FILE__, __LINE__, "tuple index 6 <- %s", KIND_NAMES[k]);
        }
    }
    ASSERT_EQ(cass_tuple_set_null(t, 1), CASS_OK);
    ASSERT_EQ(cass_tuple_set_null(t, 6), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);

    CassCollection *ints = cass_collection_new_from_data_type(li, 1);
    CassCollection *set = cass_collection_new(CASS_COLLECTION_TYPE_SET, 0);
    CassTuple *inner = cass_tuple_new_from_data_type(t1);
    CassUserType *u = cass_user_type_new_from_data_type(ut);
    ASSERT_EQ(cass_tuple_set_collection(t, 2, ints), CASS_OK);
    ASSERT_EQ(cass_tuple_set_collection(t, 2, set), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_tuple_set_collection(t, 3, ints), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_tuple_set_tuple(t, 3, inner), CASS_OK);
    ASSERT_EQ(cass_tuple_set_tuple(t, 4, inner), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_tuple_set_user_type(t, 4, u), CASS_OK);
    ASSERT_EQ(cass_tuple_set_user_type(t, 3, u), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_tuple_set_user_type(t, 6, u), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    const cass_byte_t raw[] = {9};
    ASSERT_EQ(cass_tuple_set_custom(t, 5, "org.example.Point", raw, 1), CASS_OK);
    ASSERT_EQ(cass_tuple_set_custom_n(t, 5, "org.example.Pointless", 17, raw, 1), CASS_OK);
    ASSERT_EQ(cass_tuple_set_custom(t, 5, "org.example.Line", raw, 1),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_tuple_set_custom(t, 0, "org.example.Point", raw, 1),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);

    /* cass_tuple_new: any value at any index below the count */
    CassTuple *any = cass_tuple_new(2);
    for (int k = 0; k < K_NKINDS; k++) {
        ASSERT_EQ(tuple_set_sval(any, 0, sample((enum ckind)k), 0), CASS_OK);
        ASSERT_EQ(tuple_set_sval(any, 2, sample((enum ckind)k), 0),
                  CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    }
    ASSERT_EQ(cass_tuple_set_custom(any, 1, "a.B", raw, 1), CASS_OK);
    ASSERT_EQ(cass_tuple_set_user_type(any, 1, u), CASS_OK);
    cass_tuple_free(any);

    cass_collection_free(ints);
    cass_collection_free(set);
    cass_tuple_free(inner);
    cass_user_type_free(u);
    cass_tuple_free(t);
    cass_data_type_free(tt);
    cass_data_type_free(li);
    cass_data_type_free(t1);
    cass_data_type_free(ut);
    cass_data_type_free(cu);
}

TEST(user_type_set_round_trips_every_type_by_index_name_and_name_n)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p =
        PREPARE(cn.session, "INSERT INTO ks.v (k, u, un, tup) VALUES (?, ?, ?, ?)");
    const CassDataType *ut = cass_prepared_parameter_data_type(p, 1);
    const char *s;
    size_t n;
    char buf[64];
    ASSERT_EQ(cass_data_type_type(ut), CASS_VALUE_TYPE_UDT);
    ASSERT_STR_EQ(name_of(cass_data_type_type_name(ut, &s, &n), &s, &n, buf, sizeof buf), "allt");
    ASSERT_STR_EQ(name_of(cass_data_type_keyspace(ut, &s, &n), &s, &n, buf, sizeof buf), "ks");
    ASSERT_EQ(cass_data_type_sub_type_count(ut), NCASES);
    for (int how = BY_INDEX; how <= BY_NAME_N; how++) {
        CassUserType *u = cass_user_type_new_from_data_type(ut);
        CassUserType *un =
            cass_user_type_new_from_data_type(cass_prepared_parameter_data_type(p, 2));
        ASSERT(u && un);
        for (size_t i = 0; i < NCASES; i++) {
            const scase *c = &CASES[i];
            CassError rc = udt_set_sval(u, (enum how)how, i, c->col, &c->v);
            if (rc == CASS_OK)
                rc = udt_set_sval(un, (enum how)how, i, c->col, &c->v);
            if (rc != CASS_OK)
                test_fail(__FILE__, __LINE__, "field %s %s: %s", c->col, HOW_NAMES[how],
                          cass_error_desc(rc));
        }
        CassTuple *t = tuple_of_cases(cass_prepared_parameter_data_type(p, 3), 0);
        CassStatement *st = cass_prepared_bind(p);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, how), CASS_OK);
        ASSERT_EQ(cass_statement_bind_user_type(st, 1, u), CASS_OK);
        ASSERT_EQ(cass_statement_bind_user_type_by_name(st, "un", un), CASS_OK);
        ASSERT_EQ(cass_statement_bind_tuple_by_name_n(st, "tupx", 3, t), CASS_OK);
        cass_user_type_free(u);
        cass_user_type_free(un);
        cass_tuple_free(t);
        EXEC_FREE(cn.session, st);

        char q[128], hu[1024], hun[1024], ht[1024];
        snprintf(q, sizeof q, "SELECT u, un, tup FROM ks.v WHERE k = %d", how);
        const CassResult *r = QUERY(cn.session, q);
        const CassRow *row = cass_result_first_row(r);
        const CassValue *uv = cass_row_get_column(row, 0);
        ASSERT_EQ(cass_value_type(uv), CASS_VALUE_TYPE_UDT);
        ASSERT_EQ(cass_value_item_count(uv), NCASES);
        ASSERT(!cass_value_is_collection(uv));
        ASSERT(cass_iterator_from_tuple(uv) == NULL);
        ASSERT(cass_iterator_from_collection(uv) == NULL);
        const CassDataType *vt = cass_value_data_type(uv);
        for (size_t i = 0; i < NCASES; i++) {
            ASSERT_STR_EQ(
                name_of(cass_data_type_sub_type_name(vt, i, &s, &n), &s, &n, buf, sizeof buf),
                CASES[i].col);
            ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(vt, i)), CASES[i].type);
        }
        /* The field iterator gives every field, in order, with its name and value. */
        CassIterator *fit = cass_iterator_fields_from_user_type(uv);
        ASSERT_EQ(cass_iterator_type(fit), CASS_ITERATOR_TYPE_USER_TYPE_FIELD);
        ASSERT_EQ(cass_iterator_get_user_type_field_name(fit, &s, &n), CASS_ERROR_LIB_BAD_PARAMS);
        for (size_t i = 0; i < NCASES; i++) {
            ASSERT(cass_iterator_next(fit));
            ASSERT_STR_EQ(name_of(cass_iterator_get_user_type_field_name(fit, &s, &n), &s, &n,
                                  buf, sizeof buf),
                          CASES[i].col);
            const CassValue *fv = cass_iterator_get_user_type_field_value(fit);
            ASSERT_EQ(cass_value_type(fv), CASES[i].type);
            CHECK_VAL(CASES[i].col, fv, &CASES[i].v);
        }
        ASSERT(!cass_iterator_next(fit));
        cass_iterator_free(fit);
        ASSERT(cass_iterator_fields_from_user_type(cass_row_get_column(row, 2)) == NULL);
        /* A user type's encoding is a tuple's, field for field (facts §2.3). */
        ASSERT_STR_EQ(value_hex(uv, hu, sizeof hu),
                      value_hex(cass_row_get_column(row, 2), ht, sizeof ht));
        ASSERT_STR_EQ(value_hex(cass_row_get_column(row, 1), hun, sizeof hun), ht);
        cass_result_free(r);
    }
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(user_type_set_checks_the_index_the_name_and_the_field_type)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.v (k, a) VALUES (?, ?)");
    const CassDataType *at = cass_prepared_parameter_data_type(p, 1);
    CassUserType *u = cass_user_type_new_from_data_type(at);
    ASSERT(u);
    for (int k = 0; k < K_NKINDS; k++) {
        const sval *v = sample((enum ckind)k);
        for (int how = BY_INDEX; how <= BY_NAME_N; how++) {
            CassError w0 = kind_binds_to((enum ckind)k, CASS_VALUE_TYPE_VARCHAR)
                               ? CASS_OK
                               : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
            CassError w1 = kind_binds_to((enum ckind)k, CASS_VALUE_TYPE_INT)
                               ? CASS_OK
                               : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
            if (udt_set_sval(u, (enum how)how, 0, "street", v) != w0 ||
                udt_set_sval(u, (enum how)how, 1, "zip", v) != w1)
                test_fail(__FILE__, __LINE__, "addr <- %s %s", KIND_NAMES[k], HOW_NAMES[how]);
            CassError w2 = how == BY_NAME || how == BY_NAME_N ? CASS_ERROR_LIB_NAME_DOES_NOT_EXIST
                                                              : CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
            if (udt_set_sval(u, (enum how)how, 2, "nosuch", v) != w2)
                test_fail(__FILE__, __LINE__, "addr missing field <- %s %s", KIND_NAMES[k],
                          HOW_NAMES[how]);
        }
    }
    /* names: case-insensitive unless double-quoted; the _n length counts */
    ASSERT_EQ(cass_user_type_set_int32_by_name(u, "\"zip\"", 1),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    ASSERT_EQ(cass_user_type_set_int32_by_name(u, "\"Zip\"", 5), CASS_OK);
    ASSERT_EQ(cass_user_type_set_string_by_name_n(u, "streets", 6, "Main", 4), CASS_OK);
    ASSERT_EQ(cass_user_type_set_string_by_name_n(u, "street", 3, "Main", 4),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    /* composites do not fit text or int fields */
    CassCollection *l = cass_collection_new(CASS_COLLECTION_TYPE_LIST, 0);
    CassTuple *t = cass_tuple_new(0);
    ASSERT_EQ(cass_user_type_set_collection(u, 0, l), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_collection_by_name(u, "zip", l),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_collection_by_name_n(u, "zip", 3, l),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_tuple(u, 1, t), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_tuple_by_name(u, "street", t), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_tuple_by_name_n(u, "street", 6, t),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_user_type(u, 1, u), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_user_type_by_name(u, "zip", u), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_user_type_by_name_n(u, "zip", 3, u),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_collection(u, 2, l), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_user_type_set_null(u, 2), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_user_type_set_null_by_name(u, "nosuch"), CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    cass_collection_free(l);
    cass_tuple_free(t);

    /* a null field reads back as a null [bytes] (facts §2.3) */
    ASSERT_EQ(cass_user_type_set_null_by_name(u, "STREET"), CASS_OK);
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_user_type_by_name_n(st, "ab", 1, u), CASS_OK);
    EXEC_FREE(cn.session, st);
    ASSERT_EQ(cass_user_type_set_string(u, 0, "x"), CASS_OK);
    ASSERT_EQ(cass_user_type_set_null_by_name_n(u, "streets", 6), CASS_OK);
    ASSERT_EQ(cass_user_type_set_null(u, 1), CASS_OK);
    st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 2), CASS_OK);
    ASSERT_EQ(cass_statement_bind_user_type(st, 1, u), CASS_OK);
    EXEC_FREE(cn.session, st);
    cass_user_type_free(u);
    const CassResult *r;
    char hx[128];
    const CassValue *v = CELL(cn.session, "SELECT a FROM ks.v WHERE k = 1", 0, &r);
    ASSERT_STR_EQ(value_hex(v, hx, sizeof hx), "ffffffff"
                                               "00000004"
                                               "00000005");
    cass_result_free(r);
    v = CELL(cn.session, "SELECT a FROM ks.v WHERE k = 2", 0, &r);
    ASSERT_STR_EQ(value_hex(v, hx, sizeof hx), "ffffffff"
                                               "ffffffff");
    cass_result_free(r);
    cass_prepared_free(p);

    /* custom fields take a custom value of their class */
    CassDataType *ct = cass_data_type_new_udt(1);
    CassDataType *cu = cass_data_type_new(CASS_VALUE_TYPE_CUSTOM);
    ASSERT_EQ(cass_data_type_set_class_name(cu, "org.example.Point"), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_type_by_name(ct, "pt", cu), CASS_OK);
    CassUserType *cv = cass_user_type_new_from_data_type(ct);
    const cass_byte_t raw[] = {1};
    const char *cls = "org.example.Point";
    ASSERT_EQ(cass_user_type_set_custom(cv, 0, cls, raw, 1), CASS_OK);
    ASSERT_EQ(cass_user_type_set_custom_n(cv, 0, cls, 17, raw, 1), CASS_OK);
    ASSERT_EQ(cass_user_type_set_custom_by_name(cv, "PT", cls, raw, 1), CASS_OK);
    ASSERT_EQ(cass_user_type_set_custom_by_name_n(cv, "ptx", 2, "org.example.Pointer", 17, raw, 1),
              CASS_OK);
    ASSERT_EQ(cass_user_type_set_custom(cv, 0, "org.example.Line", raw, 1),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_custom_by_name(cv, "nosuch", cls, raw, 1),
              CASS_ERROR_LIB_NAME_DOES_NOT_EXIST);
    ASSERT_EQ(cass_user_type_set_custom(cv, 1, cls, raw, 1), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    cass_user_type_free(cv);
    cass_data_type_free(cu);
    cass_data_type_free(ct);
    conn_close(&cn);
}

/* A user type made by hand: fields (name, type) in order; type name / keyspace when not NULL. */
static CassDataType *addr_like(const char *ks, const char *name, const char *f0, CassValueType t0,
                               const char *f1, CassValueType t1)
{
    CassDataType *dt = cass_data_type_new_udt(2);
    if (ks)
        ASSERT_EQ(cass_data_type_set_keyspace(dt, ks), CASS_OK);
    if (name)
        ASSERT_EQ(cass_data_type_set_type_name(dt, name), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(dt, f0, t0), CASS_OK);
    if (f1)
        ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(dt, f1, t1), CASS_OK);
    return dt;
}

TEST(a_user_type_value_binds_to_a_marker_of_an_equal_type)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.v (k, a) VALUES (?, ?)");
    const CassValueType TEXT = CASS_VALUE_TYPE_TEXT, INT = CASS_VALUE_TYPE_INT;
    /*
     * UserType::equals: keyspace and name compared only when both are set, field names exactly
     * and field types (text and varchar alike); frozenness is not compared.
     */
    struct {
        CassDataType *dt;
        CassError want;
    } cases[] = {
        {addr_like(NULL, NULL, "street", TEXT, "Zip", INT), CASS_OK},
        {addr_like("ks", "addr", "street", CASS_VALUE_TYPE_VARCHAR, "Zip", INT), CASS_OK},
        {addr_like(NULL, "addr", "street", TEXT, "Zip", INT), CASS_OK},
        {addr_like("other", NULL, "street", TEXT, "Zip", INT), CASS_ERROR_LIB_INVALID_VALUE_TYPE},
        {addr_like(NULL, "address", "street", TEXT, "Zip", INT), CASS_ERROR_LIB_INVALID_VALUE_TYPE},
        {addr_like(NULL, NULL, "street", TEXT, "zip", INT), CASS_ERROR_LIB_INVALID_VALUE_TYPE},
        {addr_like(NULL, NULL, "street", TEXT, "Zip", CASS_VALUE_TYPE_BIGINT),
         CASS_ERROR_LIB_INVALID_VALUE_TYPE},
        {addr_like(NULL, NULL, "street", TEXT, NULL, INT), CASS_ERROR_LIB_INVALID_VALUE_TYPE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CassUserType *u = cass_user_type_new_from_data_type(cases[i].dt);
        ASSERT_EQ(cass_user_type_set_string(u, 0, "Main"), CASS_OK);
        CassStatement *st = cass_prepared_bind(p);
        ASSERT_EQ(cass_statement_bind_int32(st, 0, (int32_t)i), CASS_OK);
        CassError rc = cass_statement_bind_user_type(st, 1, u);
        if (rc != cases[i].want)
            test_fail(__FILE__, __LINE__, "case %zu: got %s", i, cass_error_desc(rc));
        if (rc == CASS_OK)
            EXEC_FREE(cn.session, st);
        else
            cass_statement_free(st);
        cass_user_type_free(u);
        cass_data_type_free(cases[i].dt);
    }
    const CassResult *r;
    char hx[128];
    const CassValue *v = CELL(cn.session, "SELECT a FROM ks.v WHERE k = 0", 0, &r);
    /* a field never set is null */
    ASSERT_STR_EQ(value_hex(v, hx, sizeof hx), "00000004"
                                               "4d61696e"
                                               "ffffffff");
    cass_result_free(r);
    cass_prepared_free(p);
    conn_close(&cn);
}

TEST(nested_collections_tuples_and_user_types_round_trip)
{
    conn cn;
    open_setup(&cn);
    const CassPrepared *p = PREPARE(
        cn.session, "INSERT INTO ks.nest (k, lm, st, lu, bg, ub) VALUES (?, ?, ?, ?, ?, ?)");
    const CassDataType *lm_t = cass_prepared_parameter_data_type(p, 1);
    const CassDataType *map_t = cass_data_type_sub_data_type(lm_t, 0);
    const CassDataType *list_t = cass_data_type_sub_data_type(map_t, 1);
    const CassDataType *st_t = cass_prepared_parameter_data_type(p, 2);
    const CassDataType *tup_t = cass_data_type_sub_data_type(st_t, 0);
    const CassDataType *lu_t = cass_prepared_parameter_data_type(p, 3);
    const CassDataType *addr_t = cass_data_type_sub_data_type(lu_t, 0);
    const CassDataType *bag_t = cass_prepared_parameter_data_type(p, 4);
    ASSERT_EQ(cass_data_type_type(list_t), CASS_VALUE_TYPE_LIST);
    ASSERT_EQ(cass_data_type_type(tup_t), CASS_VALUE_TYPE_TUPLE);
    ASSERT_EQ(cass_data_type_type(addr_t), CASS_VALUE_TYPE_UDT);
    ASSERT_EQ(cass_data_type_type(bag_t), CASS_VALUE_TYPE_UDT);

    /* lm = [{'a': [1, 2]}] */
    CassCollection *ints = cass_collection_new_from_data_type(list_t, 2);
    ASSERT_EQ(cass_collection_append_int32(ints, 1), CASS_OK);
    ASSERT_EQ(cass_collection_append_int32(ints, 2), CASS_OK);
    CassCollection *map = cass_collection_new_from_data_type(map_t, 2);
    ASSERT_EQ(cass_collection_append_string(map, "a"), CASS_OK);
    ASSERT_EQ(cass_collection_append_collection(map, ints), CASS_OK);
    CassCollection *lm = cass_collection_new_from_data_type(lm_t, 1);
    ASSERT_EQ(cass_collection_append_collection(lm, map), CASS_OK);
    /* st = {(1, 'x'), (2, null)}: a component never set is null */
    CassTuple *t1 = cass_tuple_new_from_data_type(tup_t),
              *t2 = cass_tuple_new_from_data_type(tup_t);
    ASSERT_EQ(cass_tuple_set_int32(t1, 0, 1), CASS_OK);
    ASSERT_EQ(cass_tuple_set_string(t1, 1, "x"), CASS_OK);
    ASSERT_EQ(cass_tuple_set_int32(t2, 0, 2), CASS_OK);
    CassCollection *set = cass_collection_new_from_data_type(st_t, 2);
    ASSERT_EQ(cass_collection_append_tuple(set, t1), CASS_OK);
    ASSERT_EQ(cass_collection_append_tuple(set, t2), CASS_OK);
    /* lu = [{street: 's', Zip: 5}] */
    CassUserType *home = cass_user_type_new_from_data_type(addr_t);
    ASSERT_EQ(cass_user_type_set_string_by_name(home, "street", "s"), CASS_OK);
    ASSERT_EQ(cass_user_type_set_int32_by_name(home, "zip", 5), CASS_OK);
    CassCollection *lu = cass_collection_new_from_data_type(lu_t, 1);
    ASSERT_EQ(cass_collection_append_user_type(lu, home), CASS_OK);
    ASSERT_EQ(cass_collection_append_user_type(set, home), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_collection_append_tuple(lu, t1), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    /* bg, ub = {tags: {'a', 'b'}, scores: {'x': 1}, pos: (1, 2), home: {street: 's', Zip: 5}} */
    CassCollection *tags = cass_collection_new(CASS_COLLECTION_TYPE_SET, 2);
    ASSERT_EQ(cass_collection_append_string(tags, "a"), CASS_OK);
    ASSERT_EQ(cass_collection_append_string(tags, "b"), CASS_OK);
    CassCollection *scores = cass_collection_new(CASS_COLLECTION_TYPE_MAP, 2);
    ASSERT_EQ(cass_collection_append_string(scores, "x"), CASS_OK);
    ASSERT_EQ(cass_collection_append_int32(scores, 1), CASS_OK);
    CassTuple *pos = cass_tuple_new(2);
    ASSERT_EQ(cass_tuple_set_int32(pos, 0, 1), CASS_OK);
    ASSERT_EQ(cass_tuple_set_int32(pos, 1, 2), CASS_OK);
    CassUserType *bg = cass_user_type_new_from_data_type(bag_t);
    ASSERT_EQ(cass_user_type_set_collection_by_name(bg, "tags", tags), CASS_OK);
    ASSERT_EQ(cass_user_type_set_collection_by_name_n(bg, "scoresX", 6, scores), CASS_OK);
    ASSERT_EQ(cass_user_type_set_tuple_by_name(bg, "POS", pos), CASS_OK);
    ASSERT_EQ(cass_user_type_set_user_type_by_name_n(bg, "home", 4, home), CASS_OK);
    ASSERT_EQ(cass_user_type_set_collection_by_name(bg, "pos", tags),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_user_type_set_user_type_by_name(bg, "tags", home),
              CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    CassUserType *ub = cass_user_type_new_from_data_type(cass_prepared_parameter_data_type(p, 5));
    ASSERT_EQ(cass_user_type_set_collection(ub, 0, tags), CASS_OK);
    ASSERT_EQ(cass_user_type_set_collection(ub, 1, scores), CASS_OK);
    ASSERT_EQ(cass_user_type_set_tuple(ub, 2, pos), CASS_OK);
    ASSERT_EQ(cass_user_type_set_user_type(ub, 3, home), CASS_OK);
    ASSERT_EQ(cass_user_type_set_tuple(ub, 3, pos), CASS_ERROR_LIB_INVALID_VALUE_TYPE);

    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, 1), CASS_OK);
    ASSERT_EQ(cass_statement_bind_collection_by_name(st, "lm", lm), CASS_OK);
    ASSERT_EQ(cass_statement_bind_collection_by_name_n(st, "st", 2, set), CASS_OK);
    ASSERT_EQ(cass_statement_bind_collection(st, 3, lu), CASS_OK);
    ASSERT_EQ(cass_statement_bind_user_type(st, 4, bg), CASS_OK);
    ASSERT_EQ(cass_statement_bind_user_type_by_name(st, "ub", ub), CASS_OK);
    ASSERT_EQ(cass_statement_bind_collection(st, 4, lu), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    ASSERT_EQ(cass_statement_bind_user_type(st, 3, bg), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    EXEC_FREE(cn.session, st);
    cass_collection_free(ints);
    cass_collection_free(map);
    cass_collection_free(lm);
    cass_tuple_free(t1);
    cass_tuple_free(t2);
    cass_collection_free(set);
    cass_collection_free(lu);
    cass_collection_free(tags);
    cass_collection_free(scores);
    cass_tuple_free(pos);
    cass_user_type_free(home);
    cass_user_type_free(bg);
    cass_user_type_free(ub);
    cass_prepared_free(p);

    const CassResult *r = QUERY(cn.session, "SELECT lm, st, lu, bg, ub FROM ks.nest WHERE k = 1");
    const CassRow *row = cass_result_first_row(r);
    char hx[512];
    /* lm: list -> map -> list */
    CassIterator *outer = cass_iterator_from_collection(cass_row_get_column(row, 0));
    ASSERT(cass_iterator_next(outer));
    const CassValue *mv = cass_iterator_get_value(outer);
    ASSERT_EQ(cass_value_type(mv), CASS_VALUE_TYPE_MAP);
    ASSERT_EQ(cass_value_secondary_sub_type(mv), CASS_VALUE_TYPE_LIST);
    CassIterator *mi = cass_iterator_from_map(mv);
    ASSERT(cass_iterator_next(mi));
    sval a = {.kind = K_STRING, .s = "a"};
    CHECK_VAL("lm key", cass_iterator_get_map_key(mi), &a);
    CassIterator *li = cass_iterator_from_collection(cass_iterator_get_map_value(mi));
    for (int i = 1; i <= 2; i++) {
        sval want = {.kind = K_INT32, .i = i};
        ASSERT(cass_iterator_next(li));
        CHECK_VAL("lm item", cass_iterator_get_value(li), &want);
    }
    ASSERT(!cass_iterator_next(li));
    ASSERT(!cass_iterator_next(mi));
    ASSERT(!cass_iterator_next(outer));
    cass_iterator_free(li);
    cass_iterator_free(mi);
    cass_iterator_free(outer);
    /* st: set -> tuple */
    const CassValue *sv = cass_row_get_column(row, 1);
    ASSERT_EQ(cass_value_primary_sub_type(sv), CASS_VALUE_TYPE_TUPLE);
    outer = cass_iterator_from_collection(sv);
    for (int i = 1; i <= 2; i++) {
        ASSERT(cass_iterator_next(outer));
        CassIterator *ti = cass_iterator_from_tuple(cass_iterator_get_value(outer));
        ASSERT(ti);
        sval want = {.kind = K_INT32, .i = i}, x = {.kind = K_STRING, .s = "x"};
        ASSERT(cass_iterator_next(ti));
        CHECK_VAL("st int", cass_iterator_get_value(ti), &want);
        ASSERT(cass_iterator_next(ti));
        const CassValue *tv = cass_iterator_get_value(ti);
        if (i == 1) {
            CHECK_VAL("st text", tv, &x);
        } else {
            const char *s;
            size_t n;
            ASSERT(cass_value_is_null(tv));
            ASSERT_EQ(cass_value_get_string(tv, &s, &n), CASS_ERROR_LIB_NULL_VALUE);
        }
        ASSERT(!cass_iterator_next(ti));
        cass_iterator_free(ti);
    }
    cass_iterator_free(outer);
    /* lu: list -> user type, its bytes one [bytes] per field (facts §2.3) */
    outer = cass_iterator_from_collection(cass_row_get_column(row, 2));
    ASSERT(cass_iterator_next(outer));
    const CassValue *uv = cass_iterator_get_value(outer);
    ASSERT_EQ(cass_value_type(uv), CASS_VALUE_TYPE_UDT);
    ASSERT_EQ(cass_value_item_count(uv), 2);
    ASSERT_STR_EQ(value_hex(uv, hx, sizeof hx), "00000001"
                                                "73"
                                                "00000004"
                                                "00000005");
    cass_iterator_free(outer);
    /* bg and ub: the set, the map, the tuple and the user type, each as [bytes] */
    const char *bag_hex = "0000000e"
                          "00000002"
                          "00000001"
                          "61"
                          "00000001"
                          "62"
                          "00000011"
                          "00000001"
                          "00000001"
                          "78"
                          "00000004"
                          "00000001"
                          "00000010"
                          "00000004"
                          "00000001"
                          "00000004"
                          "00000002"
                          "0000000d"
                          "00000001"
                          "73"
                          "00000004"
                          "00000005";
    ASSERT_STR_EQ(value_hex(cass_row_get_column(row, 3), hx, sizeof hx), bag_hex);
    ASSERT_STR_EQ(value_hex(cass_row_get_column(row, 4), hx, sizeof hx), bag_hex);
    ASSERT_EQ(cass_value_item_count(cass_row_get_column(row, 3)), 4);
    cass_result_free(r);
    conn_close(&cn);
}

/* ------------------------------------------------------------------------ */
/* Results, rows and values                                                  */
/* ------------------------------------------------------------------------ */

/* Writes every case's value into row k of ks.v with one bound statement. */
static void insert_all_cases(CassSession *s, int32_t k)
{
    const CassPrepared *p = prepare_all_columns(s);
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, k), CASS_OK);
    for (size_t i = 0; i < NCASES; i++)
        ASSERT_EQ(bind_sval(st, BY_INDEX, i + 1, NULL, &CASES[i].v), CASS_OK);
    EXEC_FREE(s, st);
    cass_prepared_free(p);
}

TEST(result_columns_have_names_types_and_data_types)
{
    conn cn;
    open_setup(&cn);
    RUN(cn.session, "INSERT INTO ks.v (k, c_int) VALUES (1, 1)");
    const CassResult *r =
        QUERY(cn.session, "SELECT k, c_text, c_duration, tup, u, a FROM ks.v WHERE k = 1");
    ASSERT_EQ(cass_result_column_count(r), 6);
    const char *names[] = {"k", "c_text", "c_duration", "tup", "u", "a"};
    /* text travels as varchar (0x000D); duration as its own type (decoder maps the v4 class) */
    CassValueType types[] = {CASS_VALUE_TYPE_INT,      CASS_VALUE_TYPE_VARCHAR,
                             CASS_VALUE_TYPE_DURATION, CASS_VALUE_TYPE_TUPLE,
                             CASS_VALUE_TYPE_UDT,      CASS_VALUE_TYPE_UDT};
    const char *p;
    size_t n;
    char buf[64];
    for (size_t i = 0; i < 6; i++) {
        ASSERT_STR_EQ(name_of(cass_result_column_name(r, i, &p, &n), &p, &n, buf, sizeof buf),
                      names[i]);
        ASSERT_EQ(cass_result_column_type(r, i), types[i]);
        ASSERT_EQ(cass_data_type_type(cass_result_column_data_type(r, i)), types[i]);
    }
    /* result_response.cpp */
    ASSERT_EQ(cass_result_column_name(r, 6, &p, &n), CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT_EQ(cass_result_column_type(r, 6), CASS_VALUE_TYPE_UNKNOWN);
    ASSERT(cass_result_column_data_type(r, 6) == NULL);

    const CassDataType *tt = cass_result_column_data_type(r, 3);
    ASSERT_EQ(cass_data_type_sub_type_count(tt), NCASES);
    for (size_t i = 0; i < NCASES; i++)
        ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(tt, i)), CASES[i].type);
    const CassDataType *at = cass_result_column_data_type(r, 5);
    ASSERT_STR_EQ(name_of(cass_data_type_type_name(at, &p, &n), &p, &n, buf, sizeof buf), "addr");
    ASSERT_STR_EQ(name_of(cass_data_type_keyspace(at, &p, &n), &p, &n, buf, sizeof buf), "ks");
    ASSERT_STR_EQ(name_of(cass_data_type_sub_type_name(at, 1, &p, &n), &p, &n, buf, sizeof buf),
                  "Zip");
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type_by_name(at, "\"Zip\"")),
              CASS_VALUE_TYPE_INT);
    /* the protocol does not say frozen: the driver's result types never are (result_response.cpp)
     */
    ASSERT_EQ(cass_data_type_is_frozen(at), cass_false);
    ASSERT_EQ(cass_data_type_is_frozen(tt), cass_false);
    cass_result_free(r);

    /* nor are a prepared statement's */
    const CassPrepared *pr = PREPARE(cn.session, "INSERT INTO ks.v (k, tup, a) VALUES (?, ?, ?)");
    ASSERT_EQ(cass_data_type_is_frozen(cass_prepared_parameter_data_type(pr, 1)), cass_false);
    ASSERT_EQ(cass_data_type_is_frozen(cass_prepared_parameter_data_type(pr, 2)), cass_false);
    cass_prepared_free(pr);

    /* a write has no rows and no columns */
    CassStatement *st = cass_statement_new("INSERT INTO ks.v (k) VALUES (2)", 0);
    r = EXEC(cn.session, st);
    ASSERT_EQ(cass_result_row_count(r), 0);
    ASSERT_EQ(cass_result_column_count(r), 0);
    ASSERT(cass_result_first_row(r) == NULL);
    cass_result_free(r);
    cass_statement_free(st);
    conn_close(&cn);
}

TEST(rows_are_reached_by_first_row_and_by_iterator)
{
    conn cn;
    open_setup(&cn);
    const CassResult *r = QUERY(cn.session, "SELECT k FROM ks.v");
    ASSERT_EQ(cass_result_row_count(r), 0);
    ASSERT_EQ(cass_result_column_count(r), 1);
    ASSERT(cass_result_first_row(r) == NULL);
    CassIterator *it = cass_iterator_from_result(r);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_RESULT);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    cass_result_free(r);

    RUN(cn.session, "INSERT INTO ks.q (k, \"Mixed\", mixed) VALUES (1, 10, 100)");
    RUN(cn.session, "INSERT INTO ks.q (k, \"Mixed\", mixed) VALUES (2, 20, 200)");
    RUN(cn.session, "INSERT INTO ks.q (k, \"Mixed\", mixed) VALUES (3, 30, 300)");
    r = QUERY(cn.session, "SELECT k, \"Mixed\", mixed FROM ks.q");
    ASSERT_EQ(cass_result_row_count(r), 3);
    it = cass_iterator_from_result(r);
    int seen = 0, sum = 0;
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        ASSERT(row);
        if (seen == 0)
            ASSERT(row == cass_result_first_row(r));
        cass_int32_t k, quoted, plain;
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 0), &k), CASS_OK);
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column_by_name(row, "\"Mixed\""), &quoted),
                  CASS_OK);
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column_by_name(row, "\"mixed\""), &plain),
                  CASS_OK);
        ASSERT_EQ(quoted, 10 * k);
        ASSERT_EQ(plain, 100 * k);
        /* a plain name matches ignoring case, and the first such column wins (row.cpp
           get_by_name takes the first of hash_table.hpp's indices, in column order) */
        ASSERT(cass_row_get_column_by_name(row, "mixed") == cass_row_get_column(row, 1));
        ASSERT(cass_row_get_column_by_name(row, "MIXED") == cass_row_get_column(row, 1));
        ASSERT(cass_row_get_column_by_name(row, "\"MIXED\"") == NULL);
        ASSERT(cass_row_get_column_by_name_n(row, "\"mixed\"x", 7) == cass_row_get_column(row, 2));
        ASSERT(cass_row_get_column_by_name_n(row, "kx", 1) == cass_row_get_column(row, 0));
        ASSERT(cass_row_get_column_by_name_n(row, "mix", 3) == NULL);
        ASSERT(cass_row_get_column_by_name(row, "nosuch") == NULL);
        ASSERT(cass_row_get_column(row, 3) == NULL);

        CassIterator *ci = cass_iterator_from_row(row);
        ASSERT_EQ(cass_iterator_type(ci), CASS_ITERATOR_TYPE_ROW);
        size_t cols = 0;
        while (cass_iterator_next(ci)) {
            ASSERT(cass_iterator_get_column(ci) == cass_row_get_column(row, cols));
            cols++;
        }
        ASSERT_EQ(cols, 3);
        cass_iterator_free(ci);
        sum += k;
        seen++;
    }
    ASSERT(!cass_iterator_next(it));
    ASSERT_EQ(seen, 3);
    ASSERT_EQ(sum, 6);
    cass_iterator_free(it);
    cass_result_free(r);
    conn_close(&cn);
}

TEST(every_getter_gives_null_value_for_a_null_or_missing_value)
{
    conn cn;
    open_setup(&cn);
    RUN(cn.session, "INSERT INTO ks.v (k) VALUES (1)");
    const CassResult *r = QUERY(cn.session, "SELECT * FROM ks.v WHERE k = 1");
    const CassRow *row = cass_result_first_row(r);
    for (size_t i = 0; i < NCASES; i++) {
        const CassValue *v = cass_row_get_column_by_name(row, CASES[i].col);
        ASSERT(v);
        ASSERT(cass_value_is_null(v));
        /* a null value keeps its column's type */
        ASSERT_EQ(cass_value_type(v), CASES[i].type);
        /* value.cpp checks null before the type: every getter says NULL_VALUE */
        for (int k = 0; k < K_NKINDS; k++) {
            CassError rc = get_kind(v, (enum ckind)k);
            if (rc != CASS_ERROR_LIB_NULL_VALUE)
                test_fail(__FILE__, __LINE__, "get_%s of null %s: %s", KIND_NAMES[k], CASES[i].col,
                          cass_error_desc(rc));
        }
    }
    /* so does a value that is not there at all */
    for (int k = 0; k < K_NKINDS; k++)
        ASSERT_EQ(get_kind(cass_row_get_column_by_name(row, "nosuch"), (enum ckind)k),
                  CASS_ERROR_LIB_NULL_VALUE);
    /* a null collection, tuple or user type: no items, no iterator (iterator.cpp) */
    const CassValue *tup = cass_row_get_column_by_name(row, "tup");
    ASSERT(cass_value_is_null(tup));
    ASSERT_EQ(cass_value_item_count(tup), 0);
    ASSERT(cass_iterator_from_tuple(tup) == NULL);
    cass_result_free(r);
    r = QUERY(cn.session, "SELECT l_int, m_int FROM ks.coll");
    ASSERT_EQ(cass_result_row_count(r), 0);
    cass_result_free(r);
    RUN(cn.session, "INSERT INTO ks.coll (k) VALUES (1)");
    r = QUERY(cn.session, "SELECT l_int, m_int FROM ks.coll WHERE k = 1");
    row = cass_result_first_row(r);
    ASSERT(cass_value_is_null(cass_row_get_column(row, 0)));
    ASSERT_EQ(cass_value_item_count(cass_row_get_column(row, 0)), 0);
    ASSERT(cass_iterator_from_collection(cass_row_get_column(row, 0)) == NULL);
    ASSERT(cass_iterator_from_map(cass_row_get_column(row, 1)) == NULL);
    cass_result_free(r);
    conn_close(&cn);
}

TEST(every_getter_gives_invalid_value_type_for_a_type_it_does_not_read)
{
    conn cn;
    open_setup(&cn);
    insert_all_cases(cn.session, 1);
    const CassResult *r = QUERY(cn.session, "SELECT * FROM ks.v WHERE k = 1");
    const CassRow *row = cass_result_first_row(r);
    for (size_t i = 0; i < NCASES; i++) {
        const CassValue *v = cass_row_get_column_by_name(row, CASES[i].col);
        CHECK_VAL(CASES[i].col, v, &CASES[i].v);
        for (int k = 0; k < K_NKINDS; k++) {
            CassError want = kind_reads((enum ckind)k, CASES[i].type)
                                 ? CASS_OK
                                 : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
            CassError rc = get_kind(v, (enum ckind)k);
            if (rc != want)
                test_fail(__FILE__, __LINE__, "get_%s of %s: %s, want %s", KIND_NAMES[k],
                          CASES[i].col, cass_error_desc(rc), cass_error_desc(want));
        }
    }
    cass_result_free(r);
    /* composites: only the string and bytes getters read them */
    RUN(cn.session, "UPDATE ks.v SET a = {street: 'x', \"Zip\": 1} WHERE k = 1");
    r = QUERY(cn.session, "SELECT a FROM ks.v WHERE k = 1");
    const CassValue *a = cass_row_get_column(cass_result_first_row(r), 0);
    for (int k = 0; k < K_NKINDS; k++)
        ASSERT_EQ(get_kind(a, (enum ckind)k) == CASS_OK, k == K_STRING || k == K_BYTES);
    cass_result_free(r);
    conn_close(&cn);
}

TEST(fixed_size_getters_give_not_enough_data_for_an_empty_value)
{
    conn cn;
    open_setup(&cn);
    /* Cassandra stores empty values of these types (facts §2.2), distinct from null */
    RUN(cn.session, "INSERT INTO ks.v (k, c_int, c_bigint, c_boolean, c_double, c_float, c_uuid, "
                    "c_timeuuid, c_timestamp, c_decimal, c_inet4, c_text, c_blob, c_varint) VALUES "
                    "(1, blobAsInt(0x), blobAsBigint(0x), blobAsBoolean(0x), blobAsDouble(0x), "
                    "blobAsFloat(0x), blobAsUuid(0x), blobAsTimeuuid(0x), blobAsTimestamp(0x), "
                    "blobAsDecimal(0x), blobAsInet(0x), '', 0x, blobAsVarint(0x))");
    const CassResult *r = QUERY(cn.session, "SELECT c_int, c_bigint, c_boolean, c_double, "
                                            "c_float, c_uuid, c_timeuuid, c_timestamp, "
                                            "c_decimal, c_inet4, c_text, c_blob, c_varint "
                                            "FROM ks.v WHERE k = 1");
    const CassRow *row = cass_result_first_row(r);
    const char *cols[] = {"c_int",  "c_bigint",   "c_boolean",   "c_double", "c_float",
                          "c_uuid", "c_timeuuid", "c_timestamp", "c_decimal"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        const scase *c = case_of(cols[i]);
        const CassValue *v = cass_row_get_column_by_name(row, c->col);
        ASSERT(!cass_value_is_null(v));
        CassError rc = get_kind(v, c->v.kind);
        if (rc != CASS_ERROR_LIB_NOT_ENOUGH_DATA)
            test_fail(__FILE__, __LINE__, "empty %s: %s", c->col, cass_error_desc(rc));
        /* the type is still checked first */
        ASSERT_EQ(cass_value_get_int8(v, &(cass_int8_t){0}), CASS_ERROR_LIB_INVALID_VALUE_TYPE);
    }
    /* an empty inet has an address of length 0 (decoder.cpp as_inet) */
    CassInet in;
    ASSERT_EQ(cass_value_get_inet(cass_row_get_column_by_name(row, "c_inet4"), &in), CASS_OK);
    ASSERT_EQ(in.address_length, 0);
    /* empty text, blob and varint are values of no bytes */
    const char *s = NULL;
    size_t n = 99;
    ASSERT_EQ(cass_value_get_string(cass_row_get_column_by_name(row, "c_text"), &s, &n), CASS_OK);
    ASSERT_EQ(n, 0);
    ASSERT(s != NULL);
    const cass_byte_t *b = NULL;
    ASSERT_EQ(cass_value_get_bytes(cass_row_get_column_by_name(row, "c_blob"), &b, &n), CASS_OK);
    ASSERT_EQ(n, 0);
    ASSERT_EQ(cass_value_get_bytes(cass_row_get_column_by_name(row, "c_varint"), &b, &n), CASS_OK);
    ASSERT_EQ(n, 0);
    cass_result_free(r);
    /* a decimal of a scale and no varint is one Cassandra takes and the driver cannot read
       (decoder.hpp as_decimal wants a varint byte) */
    RUN(cn.session, "INSERT INTO ks.v (k, c_decimal) VALUES (2, blobAsDecimal(0x00000001))");
    const CassValue *v = CELL(cn.session, "SELECT c_decimal FROM ks.v WHERE k = 2", 0, &r);
    cass_int32_t scale;
    ASSERT_EQ(cass_value_get_decimal(v, &b, &n, &scale), CASS_ERROR_LIB_NOT_ENOUGH_DATA);
    cass_result_free(r);
    conn_close(&cn);
}

TEST(collection_values_describe_themselves)
{
    conn cn;
    open_setup(&cn);
    RUN(cn.session, "INSERT INTO ks.coll (k, l_int, mt, s_text, m_int) "
                    "VALUES (1, [1, 2], {'b': 2, 'a': 1}, {}, {})");
    RUN(cn.session, "INSERT INTO ks.v (k, c_duration, c_int) VALUES (1, 1mo2d3ns, 3)");
    const CassResult *r =
        QUERY(cn.session, "SELECT l_int, mt, s_text, m_int FROM ks.coll WHERE k = 1");
    const CassRow *row = cass_result_first_row(r);
    const CassValue *l = cass_row_get_column(row, 0), *m = cass_row_get_column(row, 1);
    char hx[256];
    ASSERT(cass_value_is_collection(l));
    ASSERT(cass_value_is_collection(m));
    ASSERT(!cass_value_is_duration(l));
    ASSERT_EQ(cass_value_item_count(l), 2);
    ASSERT_EQ(cass_value_item_count(m), 2);
    ASSERT_EQ(cass_value_primary_sub_type(m), CASS_VALUE_TYPE_VARCHAR);
    ASSERT_EQ(cass_value_secondary_sub_type(m), CASS_VALUE_TYPE_INT);
    /* value.cpp: the bytes of a collection start after its element count (facts §2.5) */
    ASSERT_STR_EQ(value_hex(l, hx, sizeof hx), "00000004"
                                               "00000001"
                                               "00000004"
                                               "00000002");
    const char *s;
    size_t n;
    ASSERT_EQ(cass_value_get_string(l, &s, &n), CASS_OK);
    ASSERT_EQ(n, 16);
    /* map keys come back in their type's order (facts §2.3) */
    CassIterator *it = cass_iterator_from_map(m);
    ASSERT(cass_iterator_next(it));
    sval a = {.kind = K_STRING, .s = "a"}, one = {.kind = K_INT32, .i = 1};
    CHECK_VAL("mt key", cass_iterator_get_map_key(it), &a);
    CHECK_VAL("mt value", cass_iterator_get_map_value(it), &one);
    /* a map iterator gives no plain values, a collection iterator no keys */
    ASSERT(cass_iterator_get_value(it) == NULL);
    cass_iterator_free(it);
    it = cass_iterator_from_collection(l);
    ASSERT(cass_iterator_next(it));
    ASSERT(cass_iterator_get_map_key(it) == NULL);
    ASSERT(cass_iterator_get_row(it) == NULL);
    ASSERT(cass_iterator_get_column(it) == NULL);
    ASSERT(cass_iterator_get_user_type_field_value(it) == NULL);
    cass_iterator_free(it);
    /* iterators only over their own kinds */
    ASSERT(cass_iterator_from_map(l) == NULL);
    ASSERT(cass_iterator_from_tuple(l) == NULL);
    /* an empty frozen set is a value (facts §2.5), an empty non-frozen map null (§4.5) */
    const CassValue *es = cass_row_get_column(row, 2);
    ASSERT(!cass_value_is_null(es));
    ASSERT_EQ(cass_value_item_count(es), 0);
    ASSERT_STR_EQ(value_hex(es, hx, sizeof hx), "");
    it = cass_iterator_from_collection(es);
    ASSERT(it);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    ASSERT(cass_value_is_null(cass_row_get_column(row, 3)));
    cass_result_free(r);

    r = QUERY(cn.session, "SELECT c_duration, c_int FROM ks.v WHERE k = 1");
    row = cass_result_first_row(r);
    const CassValue *d = cass_row_get_column(row, 0), *i = cass_row_get_column(row, 1);
    ASSERT(cass_value_is_duration(d));
    ASSERT(!cass_value_is_duration(i));
    ASSERT(!cass_value_is_collection(d));
    ASSERT(!cass_value_is_collection(i));
    ASSERT_EQ(cass_value_item_count(i), 0);
    ASSERT_EQ(cass_value_primary_sub_type(i), CASS_VALUE_TYPE_UNKNOWN);
    ASSERT_EQ(cass_value_secondary_sub_type(i), CASS_VALUE_TYPE_UNKNOWN);
    /* 1mo2d3ns = 020406 (facts §2.4) */
    ASSERT_STR_EQ(value_hex(d, hx, sizeof hx), "020406");
    sval want = {.kind = K_DURATION, .months = 1, .days = 2, .i = 3};
    CHECK_VAL("c_duration", d, &want);
    ASSERT(cass_iterator_from_collection(i) == NULL);
    ASSERT(cass_iterator_from_tuple(i) == NULL);
    ASSERT(cass_iterator_from_map(i) == NULL);
    cass_result_free(r);
    conn_close(&cn);
}

TEST(future_get_result_hands_out_a_reference_per_call)
{
    conn cn;
    open_setup(&cn);
    RUN(cn.session, "INSERT INTO ks.v (k, c_text) VALUES (1, 'kept')");
    CassStatement *st = cass_statement_new("SELECT c_text FROM ks.v WHERE k = 1", 0);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    /* future.cpp: each call hands out a reference of its own */
    const CassResult *r1 = cass_future_get_result(f);
    const CassResult *r2 = cass_future_get_result(f);
    ASSERT(r1 && r1 == r2);
    cass_future_free(f);
    cass_statement_free(st);
    sval want = {.kind = K_STRING, .s = "kept"};
    CHECK_VAL("r1", cass_row_get_column(cass_result_first_row(r1), 0), &want);
    cass_result_free(r1);
    /* r2 outlives the future and the first reference */
    CHECK_VAL("r2", cass_row_get_column(cass_result_first_row(r2), 0), &want);
    cass_result_free(r2);
    conn_close(&cn);
}

/* The list of a row as strings: how many, and whether each equals want[i]. */
static void list_is(CassSession *s, const char *const *want, size_t n)
{
    const CassResult *r = QUERY(s, "SELECT l FROM ks.big WHERE k = 0");
    const CassValue *v = cass_row_get_column(cass_result_first_row(r), 0);
    if (n == 0) {
        ASSERT(cass_value_is_null(v));
        cass_result_free(r);
        return;
    }
    CassIterator *it = cass_iterator_from_collection(v);
    ASSERT(it);
    size_t i = 0;
    while (cass_iterator_next(it)) {
        const char *p;
        size_t len;
        ASSERT(i < n);
        ASSERT_EQ(cass_value_get_string(cass_iterator_get_value(it), &p, &len), CASS_OK);
        ASSERT_EQ(len, strlen(want[i]));
        ASSERT(memcmp(p, want[i], len) == 0);
        i++;
    }
    ASSERT_EQ(i, n);
    cass_iterator_free(it);
    cass_result_free(r);
}

/* CollectionsTest.testListWithElementsBiggerThan64K (Cassandra 4.1), its big elements bound
   through markers inside list literals (Lists.Literal with markers, a DelayedValue): list
   elements longer than an unsigned short's range go in, come out, and are set, removed and
   appended whole. */
TEST(list_elements_bigger_than_64k_are_written_and_read_whole)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.big (k int PRIMARY KEY, l list<text>)");
    size_t n = 65535 + 11;
    char *x = malloc(n + 1), *y = malloc(n + 1);
    ASSERT(x && y);
    memset(x, 'x', n);
    memset(y, 'y', n);
    x[n] = y[n] = '\0';
    CassStatement *st = cass_statement_new("INSERT INTO ks.big (k, l) VALUES (0, [?, 'v2'])", 1);
    cass_statement_bind_string(st, 0, x);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    list_is(cn.session, (const char *[]){x, "v2"}, 2);
    RUN(cn.session, "DELETE l[0] FROM ks.big WHERE k = 0");
    list_is(cn.session, (const char *[]){"v2"}, 1);
    st = cass_statement_new("UPDATE ks.big SET l[0] = ? WHERE k = 0", 1);
    cass_statement_bind_string(st, 0, x);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    list_is(cn.session, (const char *[]){x}, 1);
    st = cass_statement_new("UPDATE ks.big SET l = ['v1', ?] WHERE k = 0", 1);
    cass_statement_bind_string(st, 0, x);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    list_is(cn.session, (const char *[]){"v1", x}, 2);
    st = cass_statement_new("UPDATE ks.big SET l = l + ['v2', ?] WHERE k = 0", 1);
    cass_statement_bind_string(st, 0, y);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    list_is(cn.session, (const char *[]){"v1", x, "v2", y}, 4);
    st = cass_statement_new("UPDATE ks.big SET l = l - [?, 'v2'] WHERE k = 0", 1);
    cass_statement_bind_string(st, 0, x);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    list_is(cn.session, (const char *[]){"v1", y}, 2);
    RUN(cn.session, "DELETE l FROM ks.big WHERE k = 0");
    list_is(cn.session, NULL, 0);
    free(x);
    free(y);
    conn_close(&cn);
}

/* Parameter i of a prepared statement: its name and its type's kind. */
static void param_is(const CassPrepared *p, size_t i, const char *name, CassValueType type)
{
    const char *got;
    size_t n;
    ASSERT_EQ(cass_prepared_parameter_name(p, i, &got, &n), CASS_OK);
    ASSERT_EQ(n, strlen(name));
    ASSERT(memcmp(got, name, n) == 0);
    ASSERT_EQ(cass_data_type_type(cass_prepared_parameter_data_type(p, i)), type);
}

/* The row of ks.lit as CQL text: "l | s | m" from the values read back. */
static void lit_row_is(CassSession *s, const char *l0, const char *l1, const char *s0,
                       const char *s1, const char *mk, int32_t mv)
{
    const CassResult *r = QUERY(s, "SELECT l, s, m FROM ks.lit WHERE k = 0");
    const CassRow *row = cass_result_first_row(r);
    ASSERT(row);
    const char *want_l[] = {l0, l1}, *want_s[] = {s0, s1};
    for (int c = 0; c < 2; c++) {
        CassIterator *it = cass_iterator_from_collection(cass_row_get_column(row, (size_t)c));
        ASSERT(it);
        size_t i = 0;
        while (cass_iterator_next(it)) {
            const char *p;
            size_t len;
            ASSERT(i < 2);
            ASSERT_EQ(cass_value_get_string(cass_iterator_get_value(it), &p, &len), CASS_OK);
            const char *want = c == 0 ? want_l[i] : want_s[i];
            ASSERT_EQ(len, strlen(want));
            ASSERT(memcmp(p, want, len) == 0);
            i++;
        }
        ASSERT_EQ(i, 2);
        cass_iterator_free(it);
    }
    CassIterator *it = cass_iterator_from_map(cass_row_get_column(row, 2));
    ASSERT(it);
    ASSERT(cass_iterator_next(it));
    const char *p;
    size_t len;
    int32_t v;
    ASSERT_EQ(cass_value_get_string(cass_iterator_get_map_key(it), &p, &len), CASS_OK);
    ASSERT(len == strlen(mk) && memcmp(p, mk, len) == 0);
    ASSERT_EQ(cass_value_get_int32(cass_iterator_get_map_value(it), &v), CASS_OK);
    ASSERT_EQ(v, mv);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    cass_result_free(r);
}

/* Lists/Sets/Maps.Literal with bind markers (a DelayedValue, Cassandra 4.1): each marker
   takes the element type and is named value(l), value(s), key(m), value(m)
   (Lists.valueSpecOf, Sets.valueSpecOf, Maps.keySpecOf / valueSpecOf); the literal is then
   built from the bound values, as a simple statement and as a prepared one. */
TEST(markers_inside_collection_literals_are_bound_per_element)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.lit (k int PRIMARY KEY, l list<text>, s set<text>, "
                    "m map<text, int>)");
    CassStatement *st = cass_statement_new(
        "INSERT INTO ks.lit (k, l, s, m) VALUES (0, ['v1', ?], {?, 'a'}, {'k': ?})", 3);
    ASSERT_EQ(cass_statement_bind_string(st, 0, "v2"), CASS_OK);
    ASSERT_EQ(cass_statement_bind_string(st, 1, "b"), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 2, 7), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    lit_row_is(cn.session, "v1", "v2", "a", "b", "k", 7);

    const CassPrepared *p = PREPARE(
        cn.session, "UPDATE ks.lit SET l = [?, 'w2'], s = {'c', ?}, m = {?: ?} WHERE k = 0");
    param_is(p, 0, "value(l)", CASS_VALUE_TYPE_VARCHAR);
    param_is(p, 1, "value(s)", CASS_VALUE_TYPE_VARCHAR);
    param_is(p, 2, "key(m)", CASS_VALUE_TYPE_VARCHAR);
    param_is(p, 3, "value(m)", CASS_VALUE_TYPE_INT);
    st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_string(st, 0, "w1"), CASS_OK);
    ASSERT_EQ(cass_statement_bind_string(st, 1, "a"), CASS_OK);
    ASSERT_EQ(cass_statement_bind_string(st, 2, "x"), CASS_OK);
    ASSERT_EQ(cass_statement_bind_int32(st, 3, 9), CASS_OK);
    cass_result_free(EXEC(cn.session, st));
    cass_statement_free(st);
    cass_prepared_free(p);
    lit_row_is(cn.session, "w1", "w2", "a", "c", "x", 9);

    /* Lists.DelayedValue.bind: a null element is refused */
    st = cass_statement_new("UPDATE ks.lit SET l = ['v1', ?] WHERE k = 0", 1);
    ASSERT_EQ(cass_statement_bind_null(st, 0), CASS_OK);
    CassFuture *f = cass_session_execute(cn.session, st);
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_INVALID_QUERY);
    char msg[256];
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg), "null is not supported inside collections");
    cass_future_free(f);
    cass_statement_free(st);
    conn_close(&cn);
}
