/*
 * The value codecs of the driver API, as one table. Every C value an application hands to a
 * statement, collection, tuple or user type (cass_statement_bind_X, cass_collection_append_X,
 * cass_tuple_set_X, cass_user_type_set_X and their _by_name / _n forms) goes through a row of
 * CQL_DRV_SCALAR_CODECS, CQL_DRV_COMPOSITE_CODECS or CQL_DRV_NULL_CODEC: the row names the C
 * value, how it becomes native-protocol bytes (facts §2.2-2.4) and which CQL types take it. The
 * functions themselves are generated from these rows (CQL_DRV_FOR_EACH_VALUE) by cql/driver/statement.c
 * and cql/driver/collection.c, so the 155 setters share one body per owner and cannot drift apart. The
 * fixed-size rows also give the way back: cql/driver/result.c generates the getters cass_value_get_int8
 * ... cass_value_get_uuid from the same rows, so a C type reads exactly the CQL types it binds to
 * (as the driver's value.cpp checks) and its decoder undoes its encoder.
 *
 * A value travels as a cql_drv_val: a short head encoded in place (numbers, uuid, inet, the
 * decimal's scale, the duration's three vints) plus a borrowed tail (text, bytes, the decimal's
 * varint), or a borrowed collection / tuple / user type that is encoded when it is stored. The
 * owner checks the value against the CQL type it goes to (cql_drv_val_check: the driver's
 * IsValidDataType rules) and stores it (cql_drv_slot_put, or a collection's item list).
 *
 * Which types take which C value follows the driver (data_type.hpp, IsValidDataType<T>): a string
 * may also go to blob, varint and custom types; an int64 to bigint, counter, timestamp and time; a
 * uint32 only to date; a custom value only to a custom type of the same class; a collection, tuple
 * or user type to a type equal to its own (cql_drv_type_equals, sub-types compared only when both
 * sides have them). Null goes anywhere. Values are not range-checked here: the executor validates
 * every bound value against its column (eng_type_validate) with Cassandra's messages.
 */
#ifndef CQL_DRV_CODEC_H
#define CQL_DRV_CODEC_H

#include <string.h>

#include "cql/driver/driver_int.h"

/* ---- the C values that take more than one argument ---- */

typedef struct cql_drv_string {
    const char *p;
    size_t len;
} cql_drv_string;

typedef struct cql_drv_bytes {
    const cass_byte_t *p;
    size_t len;
} cql_drv_bytes;

typedef struct cql_drv_custom {
    const char *class_name; /* the Java class the target custom type must name */
    size_t class_len;
    const cass_byte_t *p;
    size_t len;
} cql_drv_custom;

typedef struct cql_drv_decimal {
    const cass_byte_t *varint; /* unscaled value, big-endian two's complement */
    size_t len;
    cass_int32_t scale;
} cql_drv_decimal;

typedef struct cql_drv_duration {
    cass_int32_t months, days;
    cass_int64_t nanos;
} cql_drv_duration;

/* ---- a value on its way into a statement, collection, tuple or user type ---- */

enum cql_drv_val_kind {
    CQL_DRV_VAL_SCALAR,
    CQL_DRV_VAL_NULL,
    CQL_DRV_VAL_COLLECTION,
    CQL_DRV_VAL_TUPLE,
    CQL_DRV_VAL_USER_TYPE,
};

typedef struct cql_drv_val {
    int kind;               /* enum cql_drv_val_kind */
    CassError err;          /* an argument refused as it is made (NULL with a length) */
    uint64_t accepts;       /* scalars: bit 1 << CassValueType per type that takes the value */
    int custom;             /* scalars: a custom value; the target must name class_name */
    const char *class_name;
    size_t class_len;
    const void *obj;        /* the CassCollection / CassTuple / CassUserType of a composite */
    uint8_t head[24];       /* encoded in place; 24 > 3 vints (5 + 5 + 9 bytes) */
    size_t head_len;
    const uint8_t *tail;    /* borrowed from the caller; appended after head */
    size_t tail_len;
} cql_drv_val;

#define CQL_DRV_VAL_INIT {.kind = CQL_DRV_VAL_SCALAR}

/* Bit of a CassValueType in an accepts mask (every type id is below 64). */
#define CQL_DRV_VT(t) (UINT64_C(1) << CASS_VALUE_TYPE_##t)

/*
 * CASS_OK when target takes v (target NULL: a simple statement or untyped container, where
 * anything goes); CASS_ERROR_LIB_INVALID_VALUE_TYPE when it does not;
 * CASS_ERROR_LIB_INVALID_ITEM_COUNT for a map holding a key without its value. (cql/driver/collection.c)
 */
CassError cql_drv_val_check(const cql_drv_val *v, const CassDataType *target);

/*
 * Stores v as slot i of a value array (len/off/data as in CassStatement and cql_drv_slots; n
 * slots): null sets len[i] = ENG_NULL, anything else its encoded bytes. Space of a replaced value
 * is reused or reclaimed, so rebinding in a loop does not grow the buffer. Returns CASS_OK,
 * CQL_DRV_NOMEM (slot unchanged) or CASS_ERROR_LIB_BAD_PARAMS for a value over 2 GiB.
 * (cql/driver/collection.c)
 */
CassError cql_drv_slot_put(int32_t *len, size_t *off, size_t n, eng_buf *data, size_t i,
                           const cql_drv_val *v);

/* ---- encoders: C value -> native bytes (facts §2.2-2.4) ---- */

static inline void cql_drv_head_be(cql_drv_val *v, uint64_t x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v->head[i] = (uint8_t)(x >> (8 * (n - 1 - i)));
    v->head_len = n;
}

/* A borrowed tail; NULL with a length is refused as the driver's callers would crash on it. */
static inline void cql_drv_tail(cql_drv_val *v, const void *p, size_t len)
{
    if (!p && len)
        v->err = CASS_ERROR_LIB_BAD_PARAMS;
    v->tail = p ? (const uint8_t *)p : (const uint8_t *)"";
    v->tail_len = p ? len : 0;
}

static inline void cql_drv_enc_int8(cql_drv_val *v, cass_int8_t x)
{
    cql_drv_head_be(v, (uint8_t)x, 1);
}

static inline void cql_drv_enc_int16(cql_drv_val *v, cass_int16_t x)
{
    cql_drv_head_be(v, (uint16_t)x, 2);
}

static inline void cql_drv_enc_int32(cql_drv_val *v, cass_int32_t x)
{
    cql_drv_head_be(v, (uint32_t)x, 4);
}

static inline void cql_drv_enc_uint32(cql_drv_val *v, cass_uint32_t x)
{
    cql_drv_head_be(v, x, 4);
}

static inline void cql_drv_enc_int64(cql_drv_val *v, cass_int64_t x)
{
    cql_drv_head_be(v, (uint64_t)x, 8);
}

static inline void cql_drv_enc_float(cql_drv_val *v, cass_float_t x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits); /* IEEE-754 binary32, big-endian on the wire */
    cql_drv_head_be(v, bits, 4);
}

static inline void cql_drv_enc_double(cql_drv_val *v, cass_double_t x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    cql_drv_head_be(v, bits, 8);
}

/* Cassandra writes 0x01 for true; any non-zero C value is true. */
static inline void cql_drv_enc_bool(cql_drv_val *v, cass_bool_t x)
{
    cql_drv_head_be(v, x != cass_false, 1);
}

static inline void cql_drv_enc_string(cql_drv_val *v, cql_drv_string x)
{
    cql_drv_tail(v, x.p, x.len);
}

static inline void cql_drv_enc_bytes(cql_drv_val *v, cql_drv_bytes x)
{
    cql_drv_tail(v, x.p, x.len);
}

static inline void cql_drv_enc_custom(cql_drv_val *v, cql_drv_custom x)
{
    v->custom = 1;
    if (!x.class_name && x.class_len)
        v->err = CASS_ERROR_LIB_BAD_PARAMS;
    v->class_name = x.class_name ? x.class_name : "";
    v->class_len = x.class_name ? x.class_len : 0;
    cql_drv_tail(v, x.p, x.len);
}

/* The 16 RFC 4122 bytes, through the converter every uuid reader and writer shares (cql/driver/uuid.c). */
static inline void cql_drv_enc_uuid(cql_drv_val *v, CassUuid x)
{
    cql_drv_uuid_to_bytes(x, v->head);
    v->head_len = 16;
}

/* The address bytes as given; a length other than 4 or 16 is the executor's to refuse. */
static inline void cql_drv_enc_inet(cql_drv_val *v, CassInet x)
{
    size_t n = x.address_length <= CASS_INET_V6_LENGTH ? x.address_length : CASS_INET_V6_LENGTH;
    memcpy(v->head, x.address, n);
    v->head_len = n;
}

/* decimal: [int scale] then the unscaled varint (facts §2.2). */
static inline void cql_drv_enc_decimal(cql_drv_val *v, cql_drv_decimal x)
{
    cql_drv_head_be(v, (uint32_t)x.scale, 4);
    cql_drv_tail(v, x.varint, x.len);
}

/* duration: vint months, vint days, vint nanoseconds (facts §2.4). */
static inline void cql_drv_enc_duration(cql_drv_val *v, cql_drv_duration x)
{
    size_t n = eng_put_vint(v->head, x.months);
    n += eng_put_vint(v->head + n, x.days);
    n += eng_put_vint(v->head + n, x.nanos);
    v->head_len = n;
}

/* ---- decoders: native bytes -> C value, for the rows with a fixed-size getter ----
 *
 * p holds at least the row's size bytes (the getter has checked); each undoes the encoder of the
 * same suffix above.
 */

static inline void cql_drv_dec_int8(const uint8_t *p, cass_int8_t *out)
{
    *out = (cass_int8_t)p[0];
}

static inline void cql_drv_dec_int16(const uint8_t *p, cass_int16_t *out)
{
    *out = (cass_int16_t)eng_be16(p);
}

static inline void cql_drv_dec_int32(const uint8_t *p, cass_int32_t *out)
{
    *out = (cass_int32_t)eng_be32(p);
}

static inline void cql_drv_dec_uint32(const uint8_t *p, cass_uint32_t *out)
{
    *out = eng_be32(p);
}

static inline void cql_drv_dec_int64(const uint8_t *p, cass_int64_t *out)
{
    *out = (cass_int64_t)eng_be64(p);
}

static inline void cql_drv_dec_float(const uint8_t *p, cass_float_t *out)
{
    uint32_t bits = eng_be32(p);
    memcpy(out, &bits, sizeof bits);
}

static inline void cql_drv_dec_double(const uint8_t *p, cass_double_t *out)
{
    uint64_t bits = eng_be64(p);
    memcpy(out, &bits, sizeof bits);
}

/* Cassandra reads any non-zero byte as true (facts §2.2). */
static inline void cql_drv_dec_bool(const uint8_t *p, cass_bool_t *out)
{
    *out = p[0] ? cass_true : cass_false;
}

static inline void cql_drv_dec_uuid(const uint8_t *p, CassUuid *out)
{
    cql_drv_uuid_from_bytes(p, out);
}

/* ---- composite values and null: borrowed, encoded when stored ---- */

static inline void cql_drv_val_of(cql_drv_val *v, int kind, const void *obj)
{
    v->kind = kind;
    v->obj = obj;
    if (!obj)
        v->err = CASS_ERROR_LIB_BAD_PARAMS;
}

static inline void cql_drv_val_of_null(cql_drv_val *v) { v->kind = CQL_DRV_VAL_NULL; }

/* ---- the tables ---- */

/* Column helpers: a row's flags are one of these two, applied to what they govern. */
#define CQL_DRV_YES(...) __VA_ARGS__
#define CQL_DRV_NO(...)
/* Parameter lists are written "(, type name, ...)" so that () is the empty list. */
#define CQL_DRV_UNPAREN(...) __VA_ARGS__

#define CQL_DRV_STR(s) ((cql_drv_string){(s), (s) ? strlen(s) : 0})
#define CQL_DRV_CLASS(c) (c), (c) ? strlen(c) : 0

/*
 * X(suffix, ctype, params, make, params_n, make_n, has_n, in_statement, accepts, get, size)
 *
 *   suffix        cass_statement_bind_<suffix>, cass_collection_append_<suffix>, ... and the
 *                 encoder cql_drv_enc_<suffix>(cql_drv_val *, ctype)
 *   params, make  the C parameters and the ctype made of them
 *   params_n, make_n  the same for the length-taking form: cass_X_<suffix>_n and every
 *                 _by_name_n; equal to params/make for values that have no such form
 *   has_n         CQL_DRV_YES when <suffix>_n functions exist (string, custom)
 *   in_statement  CQL_DRV_YES when statements bind it (every row today)
 *   accepts       the CQL types that take it (driver: data_type.hpp IsValidDataType<T>), and
 *                 the types cass_value_get_<suffix> reads when the row has `get`
 *   get, size     CQL_DRV_YES when the value has a fixed size of `size` bytes, read back by the
 *                 getter cql/driver/result.c generates: cass_value_get_<suffix>(value, ctype *), which
 *                 decodes with cql_drv_dec_<suffix>. CQL_DRV_NO (size 0) for values of varying
 *                 size, whose getters cql/driver/result.c writes by hand (string, bytes, inet, decimal,
 *                 duration) or that have none (custom)
 *
 * This table generates: the cass_statement_bind_<suffix>*, cass_collection_append_<suffix>*,
 * cass_tuple_set_<suffix>* and cass_user_type_set_<suffix>* functions (cql/driver/statement.c,
 * cql/driver/collection.c, through CQL_DRV_FOR_EACH_VALUE), and cass_value_get_int8, _int16, _int32,
 * _uint32, _int64, _float, _double, _bool and _uuid (cql/driver/result.c).
 */
/* clang-format off */
#define CQL_DRV_SCALAR_CODECS(X)                                                                   \
    X(int8, cass_int8_t, (, cass_int8_t value), (value), (, cass_int8_t value), (value),           \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(TINY_INT), CQL_DRV_YES, 1)                               \
    X(int16, cass_int16_t, (, cass_int16_t value), (value), (, cass_int16_t value), (value),       \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(SMALL_INT), CQL_DRV_YES, 2)                              \
    X(int32, cass_int32_t, (, cass_int32_t value), (value), (, cass_int32_t value), (value),       \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(INT), CQL_DRV_YES, 4)                                    \
    X(uint32, cass_uint32_t, (, cass_uint32_t value), (value), (, cass_uint32_t value), (value),   \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(DATE), CQL_DRV_YES, 4)                                   \
    X(int64, cass_int64_t, (, cass_int64_t value), (value), (, cass_int64_t value), (value),       \
      CQL_DRV_NO, CQL_DRV_YES,                                                                     \
      CQL_DRV_VT(BIGINT) | CQL_DRV_VT(COUNTER) | CQL_DRV_VT(TIMESTAMP) | CQL_DRV_VT(TIME),         \
      CQL_DRV_YES, 8)                                                                              \
    X(float, cass_float_t, (, cass_float_t value), (value), (, cass_float_t value), (value),       \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(FLOAT), CQL_DRV_YES, 4)                                  \
    X(double, cass_double_t, (, cass_double_t value), (value), (, cass_double_t value), (value),   \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(DOUBLE), CQL_DRV_YES, 8)                                 \
    X(bool, cass_bool_t, (, cass_bool_t value), (value), (, cass_bool_t value), (value),           \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(BOOLEAN), CQL_DRV_YES, 1)                                \
    X(string, cql_drv_string, (, const char *value), (CQL_DRV_STR(value)),                         \
      (, const char *value, size_t value_length), ((cql_drv_string){value, value_length}),         \
      CQL_DRV_YES, CQL_DRV_YES,                                                                    \
      CQL_DRV_VT(ASCII) | CQL_DRV_VT(TEXT) | CQL_DRV_VT(VARCHAR) | CQL_DRV_VT(BLOB) |              \
      CQL_DRV_VT(VARINT) | CQL_DRV_VT(CUSTOM), CQL_DRV_NO, 0)                                      \
    X(bytes, cql_drv_bytes, (, const cass_byte_t *value, size_t value_size),                       \
      ((cql_drv_bytes){value, value_size}), (, const cass_byte_t *value, size_t value_size),       \
      ((cql_drv_bytes){value, value_size}), CQL_DRV_NO, CQL_DRV_YES,                               \
      CQL_DRV_VT(BLOB) | CQL_DRV_VT(VARINT) | CQL_DRV_VT(CUSTOM), CQL_DRV_NO, 0)                   \
    X(custom, cql_drv_custom,                                                                      \
      (, const char *class_name, const cass_byte_t *value, size_t value_size),                     \
      ((cql_drv_custom){CQL_DRV_CLASS(class_name), value, value_size}),                            \
      (, const char *class_name, size_t class_name_length, const cass_byte_t *value,               \
       size_t value_size),                                                                         \
      ((cql_drv_custom){class_name, class_name_length, value, value_size}),                        \
      CQL_DRV_YES, CQL_DRV_YES, CQL_DRV_VT(CUSTOM), CQL_DRV_NO, 0)                                 \
    X(uuid, CassUuid, (, CassUuid value), (value), (, CassUuid value), (value),                    \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(UUID) | CQL_DRV_VT(TIMEUUID), CQL_DRV_YES, 16)           \
    X(inet, CassInet, (, CassInet value), (value), (, CassInet value), (value),                    \
      CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_VT(INET), CQL_DRV_NO, 0)                                    \
    X(decimal, cql_drv_decimal,                                                                    \
      (, const cass_byte_t *varint, size_t varint_size, cass_int32_t scale),                       \
      ((cql_drv_decimal){varint, varint_size, scale}),                                             \
      (, const cass_byte_t *varint, size_t varint_size, cass_int32_t scale),                       \
      ((cql_drv_decimal){varint, varint_size, scale}), CQL_DRV_NO, CQL_DRV_YES,                    \
      CQL_DRV_VT(DECIMAL), CQL_DRV_NO, 0)                                                          \
    X(duration, cql_drv_duration,                                                                  \
      (, cass_int32_t months, cass_int32_t days, cass_int64_t nanos),                              \
      ((cql_drv_duration){months, days, nanos}),                                                   \
      (, cass_int32_t months, cass_int32_t days, cass_int64_t nanos),                              \
      ((cql_drv_duration){months, days, nanos}), CQL_DRV_NO, CQL_DRV_YES,                          \
      CQL_DRV_VT(DURATION), CQL_DRV_NO, 0)

/*
 * X(suffix, params, fill): collections, tuples and user types as values. fill sets up the
 * cql_drv_val *v; the value is checked against the target by its data type and encoded by
 * cql_drv_collection_encode / cql_drv_tuple_encode / cql_drv_user_type_encode when stored.
 */
#define CQL_DRV_COMPOSITE_CODECS(X)                                                                \
    X(collection, (, const CassCollection *value),                                                 \
      cql_drv_val_of(v, CQL_DRV_VAL_COLLECTION, value))                                            \
    X(tuple, (, const CassTuple *value), cql_drv_val_of(v, CQL_DRV_VAL_TUPLE, value))              \
    X(user_type, (, const CassUserType *value), cql_drv_val_of(v, CQL_DRV_VAL_USER_TYPE, value))

/* Null: bound to statements, tuples and user types (collections hold no nulls). */
#define CQL_DRV_NULL_CODEC(X) X(null, (), cql_drv_val_of_null(v))
/* clang-format on */

/*
 * Every value kind, fed to CQL_DRV_FAMILY(suffix, params, fill, params_n, fill_n, has_n,
 * in_statement, in_collection), which the including file defines before expanding
 * CQL_DRV_FOR_EACH_VALUE(). fill/fill_n are expressions over a cql_drv_val *v in scope.
 */
#define CQL_DRV_SCALAR_FILL(suffix, acc, make)                                                     \
    ((v)->accepts = (acc), cql_drv_enc_##suffix((v), make))

#define CQL_DRV_SCALAR_FAMILY_(suffix, ctype, params, make, params_n, make_n, has_n, in_stmt, acc, \
                               get, size)                                                          \
    CQL_DRV_FAMILY(suffix, params, CQL_DRV_SCALAR_FILL(suffix, acc, make), params_n,               \
                   CQL_DRV_SCALAR_FILL(suffix, acc, make_n), has_n, in_stmt, CQL_DRV_YES)

#define CQL_DRV_COMPOSITE_FAMILY_(suffix, params, fill)                                            \
    CQL_DRV_FAMILY(suffix, params, (fill), params, (fill), CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_YES)

#define CQL_DRV_NULL_FAMILY_(suffix, params, fill)                                                 \
    CQL_DRV_FAMILY(suffix, params, (fill), params, (fill), CQL_DRV_NO, CQL_DRV_YES, CQL_DRV_NO)

/* A generated setter's body: make the value from the arguments (fill), then hand it on (call). */
#define CQL_DRV_VAL_BODY(fill, call)                                                               \
    {                                                                                              \
        cql_drv_val val_ = CQL_DRV_VAL_INIT, *v = &val_;                                           \
        fill;                                                                                      \
        return call;                                                                               \
    }

#define CQL_DRV_FOR_EACH_VALUE()                                                                   \
    CQL_DRV_SCALAR_CODECS(CQL_DRV_SCALAR_FAMILY_)                                                  \
    CQL_DRV_COMPOSITE_CODECS(CQL_DRV_COMPOSITE_FAMILY_)                                            \
    CQL_DRV_NULL_CODEC(CQL_DRV_NULL_FAMILY_)

#endif
