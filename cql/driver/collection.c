/*
 * Values an application builds to bind or nest: lists, sets and maps
 * (CassCollection), tuples (CassTuple) and user-defined type values
 * (CassUserType), in the native protocol v4 format (facts §2.3): a collection is
 * an int32 count (entries for a map) and its items as [bytes]; a tuple or user
 * type is one [bytes] per component or field, -1 for a null. Also the two
 * helpers every setter shares (cql/driver/codec.h): checking a value against the CQL
 * type it goes to, and storing it in a slot of a value array.
 *
 * All the typed setters are generated from cql/driver/codec.h's table; each one only
 * makes a cql_drv_val and hands it to collection_append, tuple_set, or
 * user_type_set_index / user_type_set_name, which apply the driver's rules
 * (collection.hpp, tuple.hpp, abstract_data.hpp):
 * - a container made from a data type checks each value against the item,
 *   component or field type (CASS_ERROR_LIB_INVALID_VALUE_TYPE); one made
 *   without (cass_collection_new, cass_tuple_new) takes anything, and the
 *   executor validates the bound value when the statement runs;
 * - map items alternate key and value types;
 * - an index past the last component / field is CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS,
 *   a name no field has CASS_ERROR_LIB_NAME_DOES_NOT_EXIST; a name set every
 *   field it names (case-insensitive unless double-quoted);
 * - a map value holding a key without its value is refused wherever it is used
 *   as a value (CASS_ERROR_LIB_INVALID_ITEM_COUNT; the driver checks it only for
 *   statements and user types and sends a malformed value otherwise).
 * Sets and maps are not sorted here: the executor canonicalizes what is bound.
 *
 * Values are copied in when set; a container may be freed as soon as it has been
 * bound or nested. Data types given to the constructors are copied too.
 */
#include <string.h>

#include "cql/driver/codec.h"

/* ---- checking a value against its target type ---- */

static int scalar_fits(const cql_drv_val *v, const CassDataType *target)
{
    unsigned vt = (unsigned)target->value_type;
    if (vt >= 64 || !((v->accepts >> vt) & 1))
        return 0;
    if (!v->custom)
        return 1;
    /* A custom value names its class; the driver wants the target's to be the same string. */
    const char *cls = target->class_name ? target->class_name : "";
    return strlen(cls) == v->class_len && memcmp(cls, v->class_name, v->class_len) == 0;
}

/* The data type of a composite value; its kind alone when it has none. */
static const CassDataType *own_type(const cql_drv_val *v, CassValueType *kind)
{
    switch (v->kind) {
    case CQL_DRV_VAL_COLLECTION: {
        const CassCollection *c = v->obj;
        *kind = (CassValueType)c->kind;
        return c->type;
    }
    case CQL_DRV_VAL_TUPLE:
        *kind = CASS_VALUE_TYPE_TUPLE;
        return ((const CassTuple *)v->obj)->type;
    default:
        *kind = CASS_VALUE_TYPE_UDT;
        return ((const CassUserType *)v->obj)->type;
    }
}

CassError cql_drv_val_check(const cql_drv_val *v, const CassDataType *target)
{
    if (v->kind == CQL_DRV_VAL_NULL)
        return CASS_OK;
    if (v->kind == CQL_DRV_VAL_SCALAR)
        return !target || scalar_fits(v, target) ? CASS_OK : CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    CassValueType kind;
    const CassDataType *own = own_type(v, &kind);
    if (target && !(own ? cql_drv_type_equals(own, target) : kind == target->value_type))
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    if (v->kind == CQL_DRV_VAL_COLLECTION) {
        const CassCollection *c = v->obj;
        if (c->kind == CASS_COLLECTION_TYPE_MAP && c->count % 2)
            return CASS_ERROR_LIB_INVALID_ITEM_COUNT;
    }
    return CASS_OK;
}

/* ---- storing a value ---- */

static void encode_composite(const cql_drv_val *v, eng_buf *out)
{
    if (v->kind == CQL_DRV_VAL_COLLECTION)
        cql_drv_collection_encode(v->obj, out);
    else if (v->kind == CQL_DRV_VAL_TUPLE)
        cql_drv_tuple_encode(v->obj, out);
    else
        cql_drv_user_type_encode(v->obj, out);
}

/*
 * Appends the native bytes of a non-null value to out; on failure out is as it was. A composite
 * is encoded apart first: it may own out itself (a tuple set into itself).
 */
static CassError put_body(const cql_drv_val *v, eng_buf *out)
{
    size_t start = out->len;
    if (v->kind == CQL_DRV_VAL_SCALAR) {
        if (v->tail_len > (size_t)INT32_MAX - v->head_len)
            return CASS_ERROR_LIB_BAD_PARAMS; /* no [bytes] can hold it */
        /* One reservation for both parts. */
        if (eng_buf_reserve(out, v->head_len + v->tail_len) == 0) {
            if (v->head_len)
                memcpy(out->p + out->len, v->head, v->head_len);
            if (v->tail_len)
                memcpy(out->p + out->len + v->head_len, v->tail, v->tail_len);
            out->len += v->head_len + v->tail_len;
        }
    } else {
        eng_buf tmp = ENG_BUF_INIT;
        encode_composite(v, &tmp);
        if (!tmp.oom && tmp.len > (size_t)INT32_MAX) {
            eng_buf_free(&tmp);
            return CASS_ERROR_LIB_BAD_PARAMS;
        }
        eng_buf_put(out, tmp.p, tmp.oom ? 0 : tmp.len);
        if (tmp.oom)
            out->oom = 1;
        eng_buf_free(&tmp);
    }
    if (out->oom) {
        out->len = start;
        out->oom = 0;
        return CQL_DRV_NOMEM;
    }
    return CASS_OK;
}

static const uint8_t *slot_bytes(const eng_buf *data, size_t off)
{
    return data->p ? data->p + off : (const uint8_t *)"";
}

/*
 * Rewrites data with only the live slots once replaced values take more than half of it. Called
 * when a value is dropped or moved to the end (a shorter value reuses its slot's room and adds
 * nothing), so rebinding values in a loop does not grow the buffer.
 */
static void compact(int32_t *len, size_t *off, size_t n, eng_buf *data)
{
    if (data->len <= 256)
        return;
    size_t live = 0;
    for (size_t i = 0; i < n; i++)
        live += len[i] > 0 ? (size_t)len[i] : 0;
    if (data->len <= 2 * live + 256)
        return;
    eng_buf fresh = ENG_BUF_INIT;
    if (eng_buf_reserve(&fresh, live))
        return; /* no memory to reclaim memory: keep the garbage */
    for (size_t i = 0; i < n; i++) {
        if (len[i] <= 0)
            continue;
        size_t at = fresh.len;
        eng_buf_put(&fresh, data->p + off[i], (size_t)len[i]); /* within the reserve */
        off[i] = at;
    }
    eng_buf_free(data);
    *data = fresh;
}

CassError cql_drv_slot_put(int32_t *len, size_t *off, size_t n, eng_buf *data, size_t i,
                           const cql_drv_val *v)
{
    int32_t old = len[i];
    if (v->kind == CQL_DRV_VAL_NULL) {
        len[i] = ENG_NULL;
        if (old > 0) /* its bytes are garbage now */
            compact(len, off, n, data);
        return CASS_OK;
    }
    size_t start = data->len;
    CassError rc = put_body(v, data);
    if (rc != CASS_OK)
        return rc;
    size_t size = data->len - start;
    if (old >= 0 && (size_t)old >= size) {
        /* Rebinding a value no longer than the last one reuses its room. */
        if (size)
            memmove(data->p + off[i], data->p + start, size);
        data->len = start;
    } else {
        off[i] = start;
    }
    len[i] = (int32_t)size;
    if (old > 0 && off[i] == start)
        compact(len, off, n, data);
    return CASS_OK;
}

/* ---- collections ---- */

static CassCollection *collection_make(CassDataType *type /* taken */)
{
    CassCollection *c = type ? eng_calloc(1, sizeof *c) : NULL;
    if (!c) {
        cql_drv_type_unref(type);
        return NULL;
    }
    c->kind = (CassCollectionType)type->value_type;
    c->type = type;
    return c;
}

/* The item count is a capacity hint; the item buffer grows by doubling anyway. */
CassCollection *cass_collection_new(CassCollectionType type, size_t item_count)
{
    (void)item_count;
    if (type != CASS_COLLECTION_TYPE_LIST && type != CASS_COLLECTION_TYPE_SET &&
        type != CASS_COLLECTION_TYPE_MAP)
        return NULL;
    /* Untyped: a list/set/map type without sub-types, as the driver makes it. */
    return collection_make(cql_drv_type_new((CassValueType)type));
}

CassCollection *cass_collection_new_from_data_type(const CassDataType *data_type,
                                                   size_t item_count)
{
    (void)item_count;
    if (!cql_drv_type_is_collection(data_type))
        return NULL;
    return collection_make(cql_drv_type_copy(data_type));
}

void cass_collection_free(CassCollection *collection)
{
    if (!collection)
        return;
    cql_drv_type_unref(collection->type);
    eng_buf_free(&collection->items);
    eng_free(collection);
}

const CassDataType *cass_collection_data_type(const CassCollection *collection)
{
    return collection ? collection->type : NULL;
}

/* The type the next item must have: the element type, or a map's key and value in turn. */
static const CassDataType *next_item_type(const CassCollection *c)
{
    const CassDataType *t = c->type;
    if (!t)
        return NULL;
    if (c->kind == CASS_COLLECTION_TYPE_MAP)
        return t->n_sub == 2 ? t->sub[c->count % 2] : NULL;
    return t->n_sub == 1 ? t->sub[0] : NULL;
}

static CassError collection_append(CassCollection *c, const cql_drv_val *v)
{
    if (!c)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (v->err != CASS_OK)
        return v->err;
    CassError rc = cql_drv_val_check(v, next_item_type(c));
    if (rc != CASS_OK)
        return rc;
    size_t start = c->items.len;
    eng_buf_put_be32(&c->items, (uint32_t)ENG_NULL); /* the length, patched below */
    if (c->items.oom) {
        c->items.len = start;
        c->items.oom = 0;
        return CQL_DRV_NOMEM;
    }
    if (v->kind != CQL_DRV_VAL_NULL) {
        if ((rc = put_body(v, &c->items)) != CASS_OK) {
            c->items.len = start;
            return rc;
        }
        eng_put_be32(c->items.p + start, (uint32_t)(c->items.len - start - 4));
    }
    c->count++;
    return CASS_OK;
}

/* Byte length of the first n [bytes] items of p. */
static size_t items_span(const uint8_t *p, size_t len, size_t n)
{
    size_t pos = 0;
    for (size_t i = 0; i < n && pos + 4 <= len; i++) {
        int32_t l = (int32_t)eng_be32(p + pos);
        pos += 4 + (l > 0 ? (size_t)l : 0);
    }
    return pos;
}

void cql_drv_collection_encode(const CassCollection *c, eng_buf *out)
{
    if (!c) {
        eng_buf_put_be32(out, 0);
        return;
    }
    size_t n = c->count, bytes = c->items.len;
    if (c->kind == CASS_COLLECTION_TYPE_MAP && n % 2) {
        n--; /* a key without its value never goes out (cql_drv_val_check refuses it) */
        bytes = items_span(c->items.p, c->items.len, n);
    }
    eng_buf_put_be32(out, (uint32_t)(c->kind == CASS_COLLECTION_TYPE_MAP ? n / 2 : n));
    eng_buf_put(out, c->items.p, bytes);
}

/* ---- tuples and user types: one slot per component / field ---- */

static int slots_init(cql_drv_slots *s, size_t n)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return 0;
    if (n > SIZE_MAX / sizeof(size_t))
        return -1;
    s->len = eng_malloc(n * sizeof *s->len);
    s->off = eng_calloc(n, sizeof *s->off);
    if (!s->len || !s->off) {
        eng_free(s->len);
        eng_free(s->off);
        memset(s, 0, sizeof *s);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        s->len[i] = ENG_NULL; /* unset components and fields are null */
    s->n = n;
    return 0;
}

static void slots_free(cql_drv_slots *s)
{
    eng_free(s->len);
    eng_free(s->off);
    eng_buf_free(&s->data);
}

static void slots_encode(const cql_drv_slots *s, eng_buf *out)
{
    for (size_t i = 0; i < s->n; i++) {
        int32_t len = s->len[i] >= 0 ? s->len[i] : ENG_NULL;
        eng_buf_put_bytes(out, slot_bytes(&s->data, s->off[i]), len);
    }
}

/* Sets slot i of s, whose component or field types are `type`'s sub-types when it has them. */
static CassError slots_set(cql_drv_slots *s, const CassDataType *type, size_t i,
                           const cql_drv_val *v)
{
    if (i >= s->n)
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    if (v->err != CASS_OK)
        return v->err;
    const CassDataType *target = type && i < type->n_sub ? type->sub[i] : NULL;
    CassError rc = cql_drv_val_check(v, target);
    if (rc != CASS_OK)
        return rc;
    return cql_drv_slot_put(s->len, s->off, s->n, &s->data, i, v);
}

/* ---- tuples ---- */

static CassTuple *tuple_make(CassDataType *type /* taken */, size_t n)
{
    CassTuple *t = type ? eng_calloc(1, sizeof *t) : NULL;
    if (!t || slots_init(&t->slots, n) != 0) {
        eng_free(t);
        cql_drv_type_unref(type);
        return NULL;
    }
    t->type = type;
    return t;
}

CassTuple *cass_tuple_new(size_t item_count)
{
    /* Untyped: a tuple type without component types, so that every set is accepted. */
    return tuple_make(cql_drv_type_new(CASS_VALUE_TYPE_TUPLE), item_count);
}

CassTuple *cass_tuple_new_from_data_type(const CassDataType *data_type)
{
    if (!data_type || data_type->value_type != CASS_VALUE_TYPE_TUPLE)
        return NULL;
    return tuple_make(cql_drv_type_copy(data_type), data_type->n_sub);
}

void cass_tuple_free(CassTuple *tuple)
{
    if (!tuple)
        return;
    cql_drv_type_unref(tuple->type);
    slots_free(&tuple->slots);
    eng_free(tuple);
}

const CassDataType *cass_tuple_data_type(const CassTuple *tuple)
{
    return tuple ? tuple->type : NULL;
}

static CassError tuple_set(CassTuple *t, size_t i, const cql_drv_val *v)
{
    return t ? slots_set(&t->slots, t->type, i, v) : CASS_ERROR_LIB_BAD_PARAMS;
}

void cql_drv_tuple_encode(const CassTuple *t, eng_buf *out)
{
    if (t)
        slots_encode(&t->slots, out);
}

/* ---- user types ---- */

CassUserType *cass_user_type_new_from_data_type(const CassDataType *data_type)
{
    if (!data_type || data_type->value_type != CASS_VALUE_TYPE_UDT)
        return NULL;
    CassDataType *type = cql_drv_type_copy(data_type);
    CassUserType *u = type ? eng_calloc(1, sizeof *u) : NULL;
    if (!u || slots_init(&u->slots, type->n_sub) != 0) {
        eng_free(u);
        cql_drv_type_unref(type);
        return NULL;
    }
    u->type = type;
    return u;
}

void cass_user_type_free(CassUserType *user_type)
{
    if (!user_type)
        return;
    cql_drv_type_unref(user_type->type);
    slots_free(&user_type->slots);
    eng_free(user_type);
}

const CassDataType *cass_user_type_data_type(const CassUserType *user_type)
{
    return user_type ? user_type->type : NULL;
}

static CassError user_type_set_index(CassUserType *u, size_t i, const cql_drv_val *v)
{
    return u ? slots_set(&u->slots, u->type, i, v) : CASS_ERROR_LIB_BAD_PARAMS;
}

/* Every field the name names (a type may repeat a name); stops at the first failure. */
static CassError user_type_set_name(CassUserType *u, const char *name, size_t name_len,
                                    const cql_drv_val *v)
{
    if (!u || !name)
        return CASS_ERROR_LIB_BAD_PARAMS;
    const CassDataType *t = u->type;
    int found = 0;
    for (size_t i = 0; t && t->sub_names && i < t->n_sub && i < u->slots.n; i++) {
        if (!cql_drv_name_eq(t->sub_names[i], name, name_len))
            continue;
        found = 1;
        CassError rc = user_type_set_index(u, i, v);
        if (rc != CASS_OK)
            return rc;
    }
    return found ? CASS_OK : CASS_ERROR_LIB_NAME_DOES_NOT_EXIST;
}

void cql_drv_user_type_encode(const CassUserType *u, eng_buf *out)
{
    if (u)
        slots_encode(&u->slots, out);
}

/* ---- the setters, generated from cql/driver/codec.h's table ---- */

#define COLLECTION_APPENDERS(s, p, fill, p_n, fill_n, has_n)                                       \
    CassError cass_collection_append_##s(CassCollection *collection CQL_DRV_UNPAREN p)             \
        CQL_DRV_VAL_BODY(fill, collection_append(collection, v))                                   \
    has_n(CassError cass_collection_append_##s##_n(CassCollection *collection                      \
                                                   CQL_DRV_UNPAREN p_n)                            \
              CQL_DRV_VAL_BODY(fill_n, collection_append(collection, v)))

#define TUPLE_SETTERS(s, p, fill, p_n, fill_n, has_n)                                              \
    CassError cass_tuple_set_##s(CassTuple *tuple, size_t index CQL_DRV_UNPAREN p)                 \
        CQL_DRV_VAL_BODY(fill, tuple_set(tuple, index, v))                                         \
    has_n(CassError cass_tuple_set_##s##_n(CassTuple *tuple, size_t index CQL_DRV_UNPAREN p_n)     \
              CQL_DRV_VAL_BODY(fill_n, tuple_set(tuple, index, v)))

#define USER_TYPE_SETTERS(s, p, fill, p_n, fill_n, has_n)                                          \
    CassError cass_user_type_set_##s(CassUserType *user_type, size_t index CQL_DRV_UNPAREN p)      \
        CQL_DRV_VAL_BODY(fill, user_type_set_index(user_type, index, v))                           \
    CassError cass_user_type_set_##s##_by_name(CassUserType *user_type,                            \
                                               const char *name CQL_DRV_UNPAREN p)                 \
        CQL_DRV_VAL_BODY(fill, user_type_set_name(user_type, name, name ? strlen(name) : 0, v))    \
    CassError cass_user_type_set_##s##_by_name_n(CassUserType *user_type, const char *name,        \
                                                 size_t name_length CQL_DRV_UNPAREN p_n)           \
        CQL_DRV_VAL_BODY(fill_n, user_type_set_name(user_type, name, name_length, v))              \
    has_n(CassError cass_user_type_set_##s##_n(CassUserType *user_type,                            \
                                               size_t index CQL_DRV_UNPAREN p_n)                   \
              CQL_DRV_VAL_BODY(fill_n, user_type_set_index(user_type, index, v)))

#define CQL_DRV_FAMILY(s, p, fill, p_n, fill_n, has_n, in_statement, in_collection)                \
    in_collection(COLLECTION_APPENDERS(s, p, fill, p_n, fill_n, has_n))                            \
    TUPLE_SETTERS(s, p, fill, p_n, fill_n, has_n)                                                  \
    USER_TYPE_SETTERS(s, p, fill, p_n, fill_n, has_n)

CQL_DRV_FOR_EACH_VALUE()
