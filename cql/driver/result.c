/*
 * Results, rows, values and iterators of the driver API (cassandra.h): the
 * read side of a query. A CassResult wraps one executor result page
 * (cql_result) in one allocation with its column types (the shared scalar
 * types for scalar columns) and the views of its first row. As the C++
 * driver's ResultIterator, a result iterator builds the views of the row it
 * stands on in its own storage: a row and its values handed out by the
 * iterator last until the next cass_iterator_next (cassandra.h's rule), the
 * first row, column types and names until cass_result_free. Nothing in a
 * result is written after construction, which is what makes it safe to read
 * from many threads at once, each with its own iterators.
 *
 * Values are native-protocol bytes (facts §2) with their CassDataType. The
 * typed getters follow the driver's checks in its order (src/value.cpp): a
 * missing or null value gives CASS_ERROR_LIB_NULL_VALUE, another CQL type
 * CASS_ERROR_LIB_INVALID_VALUE_TYPE, too few bytes for the type (an "empty"
 * int, say, which Cassandra allows) CASS_ERROR_LIB_NOT_ENOUGH_DATA; the
 * string and bytes getters take any type. The fixed-size getters are generated
 * from cql/driver/codec.h's codec table, the rows the binders come from, so each C
 * type reads back exactly the CQL types it binds to. As in the driver, a
 * list, set or map value's bytes start after its element count: the element
 * count is the collection's header, the rest its items.
 *
 * Iterators over collections, maps, tuples and user types decode their items
 * one at a time from the parent's bytes into a view held by the iterator, so
 * cass_iterator_next ends the previous item's view as the driver documents.
 * Items of a tuple or user type value missing at its end (a value written
 * before ALTER TYPE ... ADD) read as null (facts §2.3). struct CassIterator_
 * is shared with the schema metadata iterators (cql/driver/driver_int.h); next, type and
 * free serve every kind.
 *
 * A response's server warnings (Cassandra's aggregation warnings) are logged
 * at CASS_LOG_WARN as "Server-side warning: TEXT" when its result is made, as
 * the driver does while decoding; cassandra.h has no other way to them.
 */
#include <stddef.h>
#include <string.h>

#include "cql/driver/codec.h"

/* Bytes handed out for an empty value, whose view may carry no pointer. */
static const uint8_t empty_bytes[1];

#define DURATION_CLASS "org.apache.cassandra.db.marshal.DurationType"

/* ---- data type helpers ---- */

static CassValueType type_of(const CassDataType *t)
{
    return t ? t->value_type : CASS_VALUE_TYPE_UNKNOWN;
}

static const CassDataType *sub_type(const CassDataType *t, size_t i)
{
    return t && i < t->n_sub ? t->sub[i] : NULL;
}

static int is_collection_type(CassValueType t)
{
    return t == CASS_VALUE_TYPE_LIST || t == CASS_VALUE_TYPE_SET || t == CASS_VALUE_TYPE_MAP;
}

/* The driver maps the v4 custom class of a duration to the duration type. */
static int is_duration_type(const CassDataType *t)
{
    if (!t)
        return 0;
    if (t->value_type == CASS_VALUE_TYPE_DURATION)
        return 1;
    return t->value_type == CASS_VALUE_TYPE_CUSTOM && t->class_name &&
           strcmp(t->class_name, DURATION_CLASS) == 0;
}

/* ---- results ---- */

static size_t result_rows(const CassResult *res)
{
    return res ? res->n_rows : 0;
}

static size_t result_cols(const CassResult *res)
{
    return res ? res->n_cols : 0;
}

/* The column types are the shared scalars (cql/driver/datatype.c) or, for the others, owned. */
static void result_destroy(CassResult *res)
{
    for (size_t c = 0; c < res->n_cols; c++)
        cql_drv_type_unref(res->col_types[c]);
    eng_buf_free(&res->paging_state);
    cql_result_free(res->r);
    eng_free(res);
}

/* Lays n items of `each` bytes out at the end of a block of *size bytes: *at is their offset,
   aligned for any type; -1 on overflow. */
static int block_at(size_t *size, size_t *at, size_t n, size_t each)
{
    size_t align = _Alignof(max_align_t), start = (*size + align - 1) / align * align;
    if (start < *size || (n && each > (SIZE_MAX - start) / n))
        return -1;
    *at = start;
    *size = start + n * each;
    return 0;
}

/* The views of row i of res: one per column, each with the column's type. */
static void row_fill(const CassResult *res, size_t i, CassRow *row)
{
    size_t nc = res->n_cols;
    CassDataType *const *types = res->col_types;
    const eng_val *cell = res->r->cells + i * nc;
    CassValue *v = row->values;
    for (size_t c = 0; c < nc; c++) {
        v[c].type = types[c];
        v[c].p = cell[c].p;
        v[c].len = cell[c].len < 0 ? ENG_NULL : cell[c].len;
    }
}

/*
 * One allocation per result: the CassResult, then its column types and the
 * views of its first row (cass_result_first_row); an iterator builds the views
 * of each row it stands on, as the driver's ResultIterator decodes them. r may
 * be NULL (an execution that asked for no result): the wrapper is then an
 * empty result, as the driver's VOID result, so NULL means only OOM.
 */
CassResult *cql_drv_result_new(cql_result *r)
{
    /* The C/C++ driver logs each warning of a response as it decodes it, before the request's
       future is set; that log is the only way its API hands warnings to an application. */
    for (uint32_t i = 0; r && i < r->n_warnings; i++)
        cql_drv_log(CASS_LOG_WARN, __FILE__, __LINE__, __func__, "Server-side warning: %s",
                    r->warnings[i]);
    int rows = r && r->kind == CQL_RESULT_ROWS;
    size_t nr = rows ? r->n_rows : 0, nc = rows ? r->n_cols : 0;
    size_t size = sizeof(CassResult), types_at, values_at;
    if (block_at(&size, &types_at, nc, sizeof(CassDataType *)) ||
        block_at(&size, &values_at, nr ? nc : 0, sizeof(CassValue))) {
        cql_result_free(r);
        return NULL;
    }
    char *block = eng_malloc(size);
    if (!block) {
        cql_result_free(r);
        return NULL;
    }
    CassResult *res = (CassResult *)block;
    memset(res, 0, sizeof *res);
    atomic_init(&res->refs, 1);
    res->r = r;
    res->col_types = (CassDataType **)(block + types_at);
    for (size_t c = 0; c < nc; c++) {
        res->col_types[c] = cql_drv_type_from_protocol(r->cols[c].type);
        if (!res->col_types[c])
            goto fail;
        res->n_cols = c + 1; /* the types result_destroy releases */
    }
    res->n_rows = nr;
    res->first_row.result = res;
    res->first_row.n_cols = nc;
    if (nr && nc) {
        res->first_row.values = (CassValue *)(block + values_at);
        row_fill(res, 0, &res->first_row);
    }
    if (r && r->has_more) {
        eng_buf_put(&res->paging_state, r->paging_state.p, r->paging_state.len);
        if (res->paging_state.oom)
            goto fail;
    }
    return res;
fail:
    result_destroy(res);
    return NULL;
}

const CassResult *cql_drv_result_ref(const CassResult *res)
{
    if (res)
        atomic_fetch_add(&((CassResult *)res)->refs, 1);
    return res;
}

void cass_result_free(const CassResult *result)
{
    CassResult *res = (CassResult *)result;
    if (res && atomic_fetch_sub(&res->refs, 1) == 1)
        result_destroy(res);
}

size_t cass_result_row_count(const CassResult *result)
{
    return result_rows(result);
}

size_t cass_result_column_count(const CassResult *result)
{
    return result_cols(result);
}

CassError cass_result_column_name(const CassResult *result, size_t index, const char **name,
                                  size_t *name_length)
{
    if (index >= result_cols(result))
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    if (!name || !name_length)
        return CASS_ERROR_LIB_BAD_PARAMS;
    const char *s = result->r->cols[index].name;
    *name = s ? s : "";
    *name_length = s ? strlen(s) : 0;
    return CASS_OK;
}

CassValueType cass_result_column_type(const CassResult *result, size_t index)
{
    if (index >= result_cols(result))
        return CASS_VALUE_TYPE_UNKNOWN;
    return type_of(result->col_types[index]);
}

const CassDataType *cass_result_column_data_type(const CassResult *result, size_t index)
{
    if (index >= result_cols(result))
        return NULL;
    return result->col_types[index];
}

const CassRow *cass_result_first_row(const CassResult *result)
{
    return result_rows(result) ? &result->first_row : NULL;
}

cass_bool_t cass_result_has_more_pages(const CassResult *result)
{
    return result && result->r && result->r->has_more ? cass_true : cass_false;
}

CassError cass_result_paging_state_token(const CassResult *result, const char **paging_state,
                                         size_t *paging_state_size)
{
    if (!cass_result_has_more_pages(result))
        return CASS_ERROR_LIB_NO_PAGING_STATE;
    if (!paging_state || !paging_state_size)
        return CASS_ERROR_LIB_BAD_PARAMS;
    const uint8_t *p = result->paging_state.p;
    *paging_state = (const char *)(p ? p : empty_bytes);
    *paging_state_size = result->paging_state.len;
    return CASS_OK;
}

/* ---- rows ---- */

const CassValue *cass_row_get_column(const CassRow *row, size_t index)
{
    if (!row || index >= row->n_cols)
        return NULL;
    return &row->values[index];
}

const CassValue *cass_row_get_column_by_name(const CassRow *row, const char *name)
{
    return cass_row_get_column_by_name_n(row, name, name ? strlen(name) : 0);
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* 1 if s (NUL-terminated) equals name[0..len), exactly or ignoring ASCII case. */
static int name_equals(const char *s, const char *name, size_t len, int exact)
{
    size_t i = 0;
    for (; i < len; i++) {
        if (!s[i])
            return 0;
        if (exact ? s[i] != name[i]
                  : ascii_lower((unsigned char)s[i]) != ascii_lower((unsigned char)name[i]))
            return 0;
    }
    return s[i] == '\0';
}

/*
 * The driver's lookup (CaseInsensitiveHashTable::get_indices): a name in
 * double quotes matches exactly (the quotes stripped, nothing unescaped),
 * any other ignoring ASCII case; the first matching column wins.
 */
const CassValue *cass_row_get_column_by_name_n(const CassRow *row, const char *name,
                                               size_t name_length)
{
    if (!row || !name)
        return NULL;
    int exact = name_length >= 2 && name[0] == '"' && name[name_length - 1] == '"';
    if (exact) {
        name++;
        name_length -= 2;
    }
    for (size_t c = 0; c < row->n_cols; c++) {
        const char *s = row->result->r->cols[c].name;
        if (s && name_equals(s, name, name_length, exact))
            return &row->values[c];
    }
    return NULL;
}

/* ---- values ---- */

static CassValueType value_type(const CassValue *v)
{
    return v ? type_of(v->type) : CASS_VALUE_TYPE_UNKNOWN;
}

/* The bytes of a collection value after its element count (empty if it has none). */
static void collection_body(const CassValue *v, const uint8_t **p, size_t *len)
{
    if (v->len < 4) {
        *p = empty_bytes;
        *len = 0;
        return;
    }
    *p = v->p + 4;
    *len = (size_t)v->len - 4;
}

/* The element count a collection value starts with; 0 if missing or negative. */
static size_t collection_count(const CassValue *v)
{
    if (v->len < 4)
        return 0;
    int32_t n = (int32_t)eng_be32(v->p);
    return n > 0 ? (size_t)n : 0;
}

/*
 * The checks every fixed-size getter makes, in the driver's order: a missing
 * or null value, a type outside `types` (a mask of CassValueType bits), then
 * fewer bytes than the type needs.
 */
static CassError fixed(const CassValue *v, uint64_t types, size_t size, const void *out)
{
    if (!v || v->len < 0)
        return CASS_ERROR_LIB_NULL_VALUE;
    CassValueType t = value_type(v);
    if ((unsigned)t >= 64 || !(types & (UINT64_C(1) << t)))
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    if (!out)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if ((size_t)v->len < size)
        return CASS_ERROR_LIB_NOT_ENOUGH_DATA;
    return CASS_OK;
}

const CassDataType *cass_value_data_type(const CassValue *value)
{
    return value ? value->type : NULL;
}

/*
 * The fixed-size getters cass_value_get_int8, _int16, _int32, _uint32, _int64, _float, _double,
 * _bool and _uuid: one per row of cql/driver/codec.h's CQL_DRV_SCALAR_CODECS marked `get`. A getter reads
 * the CQL types its C value binds to (the row's accepts: the driver's value.cpp checks the same
 * types IsValidDataType allows) and decodes `size` bytes with the row's cql_drv_dec_<suffix>.
 */
#define VALUE_GETTER(suffix, ctype, acc, size)                                                     \
    CassError cass_value_get_##suffix(const CassValue *value, ctype *output)                       \
    {                                                                                              \
        CassError rc = fixed(value, (acc), (size), output);                                        \
        if (rc == CASS_OK)                                                                         \
            cql_drv_dec_##suffix(value->p, output);                                                \
        return rc;                                                                                 \
    }

#define SCALAR_GETTER_(suffix, ctype, params, make, params_n, make_n, has_n, in_stmt, acc, get,    \
                       size)                                                                       \
    get(VALUE_GETTER(suffix, ctype, acc, size))

CQL_DRV_SCALAR_CODECS(SCALAR_GETTER_)

/* As the driver: the address length is the value's length; more than 16 bytes is invalid. */
CassError cass_value_get_inet(const CassValue *value, CassInet *output)
{
    CassError rc = fixed(value, CQL_DRV_VT(INET), 0, output);
    if (rc != CASS_OK)
        return rc;
    if (value->len > CASS_INET_V6_LENGTH)
        return CASS_ERROR_LIB_INVALID_DATA;
    memset(output, 0, sizeof *output);
    if (value->len)
        memcpy(output->address, value->p, (size_t)value->len);
    output->address_length = (cass_uint8_t)value->len;
    return CASS_OK;
}

/* The bytes the string and bytes getters hand out: any type, a collection after its count. */
static CassError raw_bytes(const CassValue *value, const uint8_t **p, size_t *len)
{
    if (!value || value->len < 0)
        return CASS_ERROR_LIB_NULL_VALUE;
    if (is_collection_type(value_type(value))) {
        collection_body(value, p, len);
    } else {
        *p = value->len && value->p ? value->p : empty_bytes;
        *len = (size_t)value->len;
    }
    return CASS_OK;
}

CassError cass_value_get_string(const CassValue *value, const char **output, size_t *output_size)
{
    const uint8_t *p;
    size_t len;
    CassError rc = raw_bytes(value, &p, &len);
    if (rc != CASS_OK)
        return rc;
    if (!output || !output_size)
        return CASS_ERROR_LIB_BAD_PARAMS;
    *output = (const char *)p;
    *output_size = len;
    return CASS_OK;
}

CassError cass_value_get_bytes(const CassValue *value, const cass_byte_t **output,
                               size_t *output_size)
{
    const uint8_t *p;
    size_t len;
    CassError rc = raw_bytes(value, &p, &len);
    if (rc != CASS_OK)
        return rc;
    if (!output || !output_size)
        return CASS_ERROR_LIB_BAD_PARAMS;
    *output = p;
    *output_size = len;
    return CASS_OK;
}

/*
 * [int scale] then the unscaled varint (facts §2.2). As the driver, the
 * varint must have at least one byte, so the empty decimal has too few.
 */
CassError cass_value_get_decimal(const CassValue *value, const cass_byte_t **varint,
                                 size_t *varint_size, cass_int32_t *scale)
{
    CassError rc = fixed(value, CQL_DRV_VT(DECIMAL), 5, varint);
    if (rc != CASS_OK)
        return rc;
    if (!varint_size || !scale)
        return CASS_ERROR_LIB_BAD_PARAMS;
    *scale = (cass_int32_t)eng_be32(value->p);
    *varint = value->p + 4;
    *varint_size = (size_t)value->len - 4;
    return CASS_OK;
}

/* Three zig-zag vints: months, days, nanoseconds (facts §2.4); trailing bytes are ignored. */
CassError cass_value_get_duration(const CassValue *value, cass_int32_t *months, cass_int32_t *days,
                                  cass_int64_t *nanos)
{
    if (!value || value->len < 0)
        return CASS_ERROR_LIB_NULL_VALUE;
    if (!is_duration_type(value->type))
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    if (!months || !days || !nanos)
        return CASS_ERROR_LIB_BAD_PARAMS;
    const uint8_t *p = value->p;
    size_t left = (size_t)value->len;
    int64_t part[3];
    for (int i = 0; i < 3; i++) {
        size_t n = eng_get_vint(p, left, &part[i]);
        if (!n)
            return CASS_ERROR_LIB_NOT_ENOUGH_DATA; /* truncated, as the driver reports it */
        p += n;
        left -= n;
    }
    *months = (cass_int32_t)part[0];
    *days = (cass_int32_t)part[1];
    *nanos = part[2];
    return CASS_OK;
}

CassValueType cass_value_type(const CassValue *value)
{
    return value_type(value);
}

cass_bool_t cass_value_is_null(const CassValue *value)
{
    return !value || value->len < 0 ? cass_true : cass_false;
}

cass_bool_t cass_value_is_collection(const CassValue *value)
{
    return is_collection_type(value_type(value)) ? cass_true : cass_false;
}

cass_bool_t cass_value_is_duration(const CassValue *value)
{
    return value && is_duration_type(value->type) ? cass_true : cass_false;
}

/* Collections: the count their bytes start with; tuples and user types: their declared size. */
size_t cass_value_item_count(const CassValue *collection)
{
    if (!collection || collection->len < 0)
        return 0;
    CassValueType t = value_type(collection);
    if (is_collection_type(t))
        return collection_count(collection);
    if (t == CASS_VALUE_TYPE_TUPLE || t == CASS_VALUE_TYPE_UDT)
        return collection->type->n_sub;
    return 0;
}

CassValueType cass_value_primary_sub_type(const CassValue *collection)
{
    if (!is_collection_type(value_type(collection)))
        return CASS_VALUE_TYPE_UNKNOWN;
    return type_of(sub_type(collection->type, 0));
}

CassValueType cass_value_secondary_sub_type(const CassValue *collection)
{
    if (value_type(collection) != CASS_VALUE_TYPE_MAP)
        return CASS_VALUE_TYPE_UNKNOWN;
    return type_of(sub_type(collection->type, 1));
}

/* ---- iterators ---- */

CassIterator *cql_drv_iterator_new(CassIteratorType type, size_t count)
{
    CassIterator *it = eng_calloc(1, sizeof *it);
    if (!it)
        return NULL;
    it->type = type;
    it->count = count;
    return it;
}

void cass_iterator_free(CassIterator *iterator)
{
    if (!iterator)
        return;
    eng_free(iterator->owned);
    eng_free(iterator);
}

CassIteratorType cass_iterator_type(CassIterator *iterator)
{
    return iterator ? iterator->type : CASS_ITERATOR_TYPE_RESULT;
}

/* One allocation: the iterator, then the views of the row it stands on. */
CassIterator *cass_iterator_from_result(const CassResult *result)
{
    if (!result)
        return NULL;
    size_t size = sizeof(CassIterator), values_at;
    if (block_at(&size, &values_at, result->n_cols, sizeof(CassValue)))
        return NULL;
    char *block = eng_malloc(size);
    if (!block)
        return NULL;
    CassIterator *it = (CassIterator *)block;
    memset(it, 0, sizeof *it);
    it->type = CASS_ITERATOR_TYPE_RESULT;
    it->count = result->n_rows;
    it->u.rows.result = result;
    it->u.rows.row.result = result;
    it->u.rows.row.n_cols = result->n_cols;
    it->u.rows.row.values = result->n_cols ? (CassValue *)(block + values_at) : NULL;
    return it;
}

CassIterator *cass_iterator_from_row(const CassRow *row)
{
    if (!row)
        return NULL;
    CassIterator *it = cql_drv_iterator_new(CASS_ITERATOR_TYPE_ROW, row->n_cols);
    if (it)
        it->u.row = row;
    return it;
}

/*
 * An iterator over the items of a collection, map, tuple or user type value.
 * It points at the value's type and bytes, both owned by the result rather
 * than by the view, so it outlives the view it was made from (the current
 * item of another iterator) but not the result.
 */
static CassIterator *value_iterator(const CassValue *v, CassIteratorType kind)
{
    CassValueType t = value_type(v);
    size_t count;
    eng_items items;
    switch (kind) {
    case CASS_ITERATOR_TYPE_COLLECTION:
    case CASS_ITERATOR_TYPE_MAP:
        if (kind == CASS_ITERATOR_TYPE_COLLECTION ? !is_collection_type(t)
                                                  : t != CASS_VALUE_TYPE_MAP)
            return NULL;
        if (v->len < 0)
            return NULL;
        count = collection_count(v);
        if (kind == CASS_ITERATOR_TYPE_COLLECTION && t == CASS_VALUE_TYPE_MAP)
            count *= 2; /* key, value, key, value... */
        if (eng_items_begin(&items, v->p, (size_t)v->len) < 0)
            eng_items_begin_raw(&items, NULL, 0);
        break;
    default: /* TUPLE, USER_TYPE_FIELD */
        if (t != (kind == CASS_ITERATOR_TYPE_TUPLE ? CASS_VALUE_TYPE_TUPLE : CASS_VALUE_TYPE_UDT))
            return NULL;
        if (v->len < 0)
            return NULL;
        count = v->type->n_sub;
        eng_items_begin_raw(&items, v->p, (size_t)v->len);
        break;
    }
    CassIterator *it = cql_drv_iterator_new(kind, count);
    if (!it)
        return NULL;
    it->u.value.type = v->type;
    it->u.value.items = items;
    return it;
}

CassIterator *cass_iterator_from_collection(const CassValue *value)
{
    return value_iterator(value, CASS_ITERATOR_TYPE_COLLECTION);
}

CassIterator *cass_iterator_from_map(const CassValue *value)
{
    return value_iterator(value, CASS_ITERATOR_TYPE_MAP);
}

CassIterator *cass_iterator_from_tuple(const CassValue *value)
{
    return value_iterator(value, CASS_ITERATOR_TYPE_TUPLE);
}

CassIterator *cass_iterator_fields_from_user_type(const CassValue *value)
{
    return value_iterator(value, CASS_ITERATOR_TYPE_USER_TYPE_FIELD);
}

/*
 * Reads the next [bytes] item into out with type t: 1, or 0 at the end of
 * the bytes when `missing_is_null` is 0, or -1 if malformed. With
 * missing_is_null an item past the end reads as null (tuples, user types).
 */
static int read_item(eng_items *items, const CassDataType *t, CassValue *out, int missing_is_null)
{
    eng_val v;
    int rc = eng_items_next(items, &v);
    if (rc == 0 && missing_is_null) {
        v.p = NULL;
        v.len = ENG_NULL;
        rc = 1;
    }
    if (rc != 1)
        return rc;
    out->type = t;
    out->p = v.p;
    out->len = v.len < 0 ? ENG_NULL : v.len;
    return 1;
}

/* Kept out of line so that walking rows, the common case, stays a short call. */
static __attribute__((noinline)) cass_bool_t value_iterator_next(CassIterator *it)
{
    const CassDataType *t = it->u.value.type;
    eng_items *items = &it->u.value.items;
    switch (it->type) {
    case CASS_ITERATOR_TYPE_COLLECTION: {
        size_t sub = type_of(t) == CASS_VALUE_TYPE_MAP ? it->pos % 2 : 0;
        if (read_item(items, sub_type(t, sub), &it->u.value.value, 0) != 1)
            return cass_false;
        break;
    }
    case CASS_ITERATOR_TYPE_MAP:
        if (read_item(items, sub_type(t, 0), &it->u.value.key, 0) != 1 ||
            read_item(items, sub_type(t, 1), &it->u.value.value, 0) != 1)
            return cass_false;
        break;
    default: /* TUPLE, USER_TYPE_FIELD */
        if (read_item(items, sub_type(t, it->pos), &it->u.value.value, 1) != 1)
            return cass_false;
        break;
    }
    it->pos++;
    return cass_true;
}

cass_bool_t cass_iterator_next(CassIterator *iterator)
{
    if (!iterator || iterator->pos >= iterator->count)
        return cass_false;
    switch (iterator->type) {
    case CASS_ITERATOR_TYPE_RESULT: /* the views of the row it moves to; row 0 has its own */
        if (iterator->pos > 0)
            row_fill(iterator->u.rows.result, iterator->pos, &iterator->u.rows.row);
        break;
    case CASS_ITERATOR_TYPE_COLLECTION:
    case CASS_ITERATOR_TYPE_MAP:
    case CASS_ITERATOR_TYPE_TUPLE:
    case CASS_ITERATOR_TYPE_USER_TYPE_FIELD:
        return value_iterator_next(iterator);
    default: /* columns, schema metadata: views built in advance */
        break;
    }
    iterator->pos++;
    return cass_true;
}

/* 1 if the iterator is of that kind and stands on an item. */
static int on_item(const CassIterator *it, CassIteratorType type)
{
    return it && it->type == type && it->pos > 0 && it->pos <= it->count;
}

const CassRow *cass_iterator_get_row(const CassIterator *iterator)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_RESULT))
        return NULL;
    /* As the driver's ResultIterator: the first row is the result's own. */
    return iterator->pos == 1 ? &iterator->u.rows.result->first_row : &iterator->u.rows.row;
}

const CassValue *cass_iterator_get_column(const CassIterator *iterator)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_ROW))
        return NULL;
    return &iterator->u.row->values[iterator->pos - 1];
}

const CassValue *cass_iterator_get_value(const CassIterator *iterator)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_COLLECTION) &&
        !on_item(iterator, CASS_ITERATOR_TYPE_TUPLE))
        return NULL;
    return &iterator->u.value.value;
}

const CassValue *cass_iterator_get_map_key(const CassIterator *iterator)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_MAP))
        return NULL;
    return &iterator->u.value.key;
}

const CassValue *cass_iterator_get_map_value(const CassIterator *iterator)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_MAP))
        return NULL;
    return &iterator->u.value.value;
}

const CassValue *cass_iterator_get_user_type_field_value(const CassIterator *iterator)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_USER_TYPE_FIELD))
        return NULL;
    return &iterator->u.value.value;
}

CassError cass_iterator_get_user_type_field_name(const CassIterator *iterator, const char **name,
                                                 size_t *name_length)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_USER_TYPE_FIELD) || !name || !name_length)
        return CASS_ERROR_LIB_BAD_PARAMS;
    const CassDataType *t = iterator->u.value.type;
    size_t i = iterator->pos - 1;
    *name = t->sub_names && t->sub_names[i] ? t->sub_names[i] : "";
    *name_length = strlen(*name);
    return CASS_OK;
}

const CassDataType *cass_iterator_get_user_type(const CassIterator *iterator)
{
    if (!on_item(iterator, CASS_ITERATOR_TYPE_TYPE_META) || !iterator->u.meta.items)
        return NULL;
    return (const CassDataType *)iterator->u.meta.items[iterator->pos - 1];
}
