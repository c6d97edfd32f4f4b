/*
 * CassDataType: the driver's description of a CQL type, built by applications
 * (cass_data_type_new and the add functions) or derived from the engine's type
 * descriptors: for schema metadata with their frozenness (cql_drv_type_from_eng),
 * for result columns and bind markers as the protocol carries them, never frozen
 * (cql_drv_type_from_protocol). Also the two rules every typed setter relies on: when
 * a value's type matches a target type (cql_drv_type_equals, the driver's
 * DataType::equals) and when a name given to a _by_name function names a field or
 * marker (cql_drv_name_eq, the driver's case-insensitive hash table rule).
 *
 * A data type is reference counted (atomically: types read from a prepared
 * statement or a result are shared between threads). Sub-types are owned
 * references. The add functions copy what they are given, deeply, so a type an
 * application keeps building never changes a value or statement made from it.
 *
 * Error codes are the driver's (data_type.cpp): CASS_ERROR_LIB_INVALID_VALUE_TYPE
 * when the operation does not apply to the kind of type, CASS_ERROR_LIB_BAD_PARAMS
 * when a list/set already has its item type or a map its two types,
 * CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS for a field index past the last. NULL handles
 * give CASS_ERROR_LIB_BAD_PARAMS (the driver would crash).
 */
#include <string.h>

#include "cql/driver/driver_int.h"

/* The v4 protocol carries duration as this custom class (facts §2.2); the driver maps it back. */
#define DURATION_CLASS "org.apache.cassandra.db.marshal.DurationType"

/* ---- life cycle ---- */

CassDataType *cql_drv_type_new(CassValueType t)
{
    CassDataType *dt = eng_calloc(1, sizeof *dt);
    if (!dt)
        return NULL;
    atomic_init(&dt->refs, 1);
    dt->value_type = t;
    /* Not frozen, tuples included, as the driver makes every type (data_type.cpp); frozenness
       comes only from schema metadata (cql_drv_type_from_eng). */
    dt->frozen = cass_false;
    return dt;
}

/*
 * The scalar types of result columns and bind markers, one per kind, shared by every result and
 * prepared statement instead of built for each column of each execution. They hold nothing to
 * free and nothing in them changes: their count stays at SHARED_REFS, which ref and unref leave
 * alone (they never touch the line every reading thread shares).
 */
#define SHARED_REFS (-1)
#define SHARED_TYPE(k) [k] = {.refs = SHARED_REFS, .value_type = (CassValueType)(k)}
#define SHARED_MAX ENG_DURATION

static CassDataType shared_types[SHARED_MAX + 1] = {
    SHARED_TYPE(0x01), SHARED_TYPE(0x02), SHARED_TYPE(0x03), SHARED_TYPE(0x04), SHARED_TYPE(0x05),
    SHARED_TYPE(0x06), SHARED_TYPE(0x07), SHARED_TYPE(0x08), SHARED_TYPE(0x09), SHARED_TYPE(0x0A),
    SHARED_TYPE(0x0B), SHARED_TYPE(0x0C), SHARED_TYPE(0x0D), SHARED_TYPE(0x0E), SHARED_TYPE(0x0F),
    SHARED_TYPE(0x10), SHARED_TYPE(0x11), SHARED_TYPE(0x12), SHARED_TYPE(0x13), SHARED_TYPE(0x14),
    SHARED_TYPE(0x15),
};

static int is_shared(const CassDataType *dt)
{
    return atomic_load_explicit(&((CassDataType *)dt)->refs, memory_order_relaxed) == SHARED_REFS;
}

CassDataType *cql_drv_type_ref(const CassDataType *dt)
{
    CassDataType *m = (CassDataType *)dt; /* the count is the one mutable part of a shared type */
    if (m && !is_shared(m))
        atomic_fetch_add(&m->refs, 1);
    return m;
}

static void type_destroy(CassDataType *dt)
{
    for (size_t i = 0; i < dt->n_sub; i++) {
        cql_drv_type_unref(dt->sub[i]);
        if (dt->sub_names)
            eng_free(dt->sub_names[i]);
    }
    eng_free(dt->sub);
    eng_free(dt->sub_names);
    eng_free(dt->type_name);
    eng_free(dt->keyspace);
    eng_free(dt->class_name);
    eng_free(dt);
}

void cql_drv_type_unref(const CassDataType *dt)
{
    CassDataType *m = (CassDataType *)dt;
    if (m && !is_shared(m) && atomic_fetch_sub(&m->refs, 1) == 1)
        type_destroy(m);
}

static int is_composite(CassValueType t)
{
    return t == CASS_VALUE_TYPE_LIST || t == CASS_VALUE_TYPE_SET || t == CASS_VALUE_TYPE_MAP ||
           t == CASS_VALUE_TYPE_TUPLE || t == CASS_VALUE_TYPE_UDT;
}

int cql_drv_type_is_collection(const CassDataType *dt)
{
    return dt && (dt->value_type == CASS_VALUE_TYPE_LIST || dt->value_type == CASS_VALUE_TYPE_SET ||
                  dt->value_type == CASS_VALUE_TYPE_MAP);
}

/*
 * Appends sub (taken over) and, for a UDT, its field name (taken over; NULL for other kinds).
 * Both are released on failure, so callers need no cleanup.
 */
static CassError push_sub(CassDataType *dt, CassDataType *sub, char *name)
{
    if (!sub || (dt->value_type == CASS_VALUE_TYPE_UDT && !name))
        goto nomem;
    CassDataType **subs = eng_realloc(dt->sub, (dt->n_sub + 1) * sizeof *subs);
    if (!subs)
        goto nomem;
    dt->sub = subs;
    if (dt->value_type == CASS_VALUE_TYPE_UDT) {
        char **names = eng_realloc(dt->sub_names, (dt->n_sub + 1) * sizeof *names);
        if (!names)
            goto nomem;
        dt->sub_names = names;
        names[dt->n_sub] = name;
    }
    subs[dt->n_sub++] = sub;
    return CASS_OK;
nomem:
    cql_drv_type_unref(sub);
    eng_free(name);
    return CQL_DRV_NOMEM;
}

static char *dup_or_null(const char *s)
{
    return s ? eng_strdup(s) : NULL;
}

/* Names set by the application: a copy of len bytes, or NULL for an empty name. */
static CassError set_name(char **slot, const char *s, size_t len)
{
    char *copy = NULL;
    if (!s && len)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (len && !(copy = eng_strndup(s, len)))
        return CQL_DRV_NOMEM;
    eng_free(*slot);
    *slot = copy;
    return CASS_OK;
}

/* The deep copy, or with `share` the sub types referenced instead of copied. */
static CassDataType *copy_type(const CassDataType *dt, int share)
{
    if (!dt)
        return NULL;
    CassDataType *c = cql_drv_type_new(dt->value_type);
    if (!c)
        return NULL;
    c->frozen = dt->frozen;
    if ((dt->type_name && !(c->type_name = eng_strdup(dt->type_name))) ||
        (dt->keyspace && !(c->keyspace = eng_strdup(dt->keyspace))) ||
        (dt->class_name && !(c->class_name = eng_strdup(dt->class_name))))
        goto fail;
    for (size_t i = 0; i < dt->n_sub; i++) {
        char *name = dt->sub_names ? dup_or_null(dt->sub_names[i]) : NULL;
        CassDataType *sub = share ? cql_drv_type_ref(dt->sub[i]) : copy_type(dt->sub[i], 0);
        if (push_sub(c, sub, name) != CASS_OK)
            goto fail;
    }
    return c;
fail:
    type_destroy(c);
    return NULL;
}

CassDataType *cql_drv_type_copy(const CassDataType *dt)
{
    return copy_type(dt, 0);
}

CassDataType *cql_drv_type_copy_top(const CassDataType *dt)
{
    return copy_type(dt, 1);
}

/* ---- from the engine's descriptors ---- */

static CassDataType *from_eng_node(const eng_type *t, int keep_frozen)
{
    /* Unfrozen scalars (every one the protocol decodes) are the shared ones. */
    if (!keep_frozen && t->kind > ENG_CUSTOM && t->kind <= SHARED_MAX && t->n_sub == 0)
        return &shared_types[t->kind];
    if (t->kind == ENG_CUSTOM && t->name && strcmp(t->name, DURATION_CLASS) == 0)
        return keep_frozen ? cql_drv_type_new(CASS_VALUE_TYPE_DURATION)
                           : &shared_types[CASS_VALUE_TYPE_DURATION];
    /* CassValueType ids are the protocol's option ids, as eng_kind's are. */
    CassDataType *dt = cql_drv_type_new((CassValueType)t->kind);
    if (!dt)
        return NULL;
    if (t->frozen && keep_frozen)
        dt->frozen = cass_true;
    if (t->kind == ENG_UDT) {
        dt->type_name = dup_or_null(t->name);
        dt->keyspace = dup_or_null(t->ks);
        if ((t->name && !dt->type_name) || (t->ks && !dt->keyspace))
            goto fail;
    } else if (t->kind == ENG_CUSTOM && t->name && !(dt->class_name = eng_strdup(t->name))) {
        goto fail;
    }
    return dt;
fail:
    type_destroy(dt);
    return NULL;
}

static CassDataType *from_eng(const eng_type *t, int keep_frozen)
{
    if (!t)
        return NULL;
    CassDataType *dt = from_eng_node(t, keep_frozen);
    if (!dt)
        return NULL;
    for (uint16_t i = 0; i < t->n_sub; i++) {
        const char *field = t->fields && t->fields[i] ? t->fields[i] : "";
        char *name = NULL;
        if (t->kind == ENG_UDT && !(name = eng_strdup(field)))
            goto fail;
        if (push_sub(dt, from_eng(t->sub[i], keep_frozen), name) != CASS_OK)
            goto fail;
    }
    return dt;
fail:
    type_destroy(dt);
    return NULL;
}

CassDataType *cql_drv_type_from_eng(const eng_type *t)
{
    return from_eng(t, 1);
}

/* The native protocol's type options carry no frozenness (facts §2.3), so the driver's decoded
   result and bind marker types are never frozen (result_response.cpp DataTypeDecoder). */
CassDataType *cql_drv_type_from_protocol(const eng_type *t)
{
    return from_eng(t, 0);
}

/* ---- the rules the setters share ---- */

/* Compared only when both sides name something (the driver's equals_both_not_empty). */
static int both_or_either_empty(const char *a, const char *b)
{
    return !a || !*a || !b || !*b || strcmp(a, b) == 0;
}

static int subs_equal(const CassDataType *a, const CassDataType *b)
{
    if (a->n_sub == 0 || b->n_sub == 0)
        return 1; /* an untyped collection or tuple matches any of its kind */
    if (a->n_sub != b->n_sub)
        return 0;
    for (size_t i = 0; i < a->n_sub; i++)
        if (!cql_drv_type_equals(a->sub[i], b->sub[i]))
            return 0;
    return 1;
}

static int udts_equal(const CassDataType *a, const CassDataType *b)
{
    if (!both_or_either_empty(a->keyspace, b->keyspace) ||
        !both_or_either_empty(a->type_name, b->type_name) || a->n_sub != b->n_sub)
        return 0;
    for (size_t i = 0; i < a->n_sub; i++) {
        const char *na = a->sub_names ? a->sub_names[i] : NULL;
        const char *nb = b->sub_names ? b->sub_names[i] : NULL;
        if (strcmp(na ? na : "", nb ? nb : "") != 0 || !cql_drv_type_equals(a->sub[i], b->sub[i]))
            return 0;
    }
    return 1;
}

static int is_text(CassValueType t)
{
    return t == CASS_VALUE_TYPE_TEXT || t == CASS_VALUE_TYPE_VARCHAR;
}

/* Frozenness is not compared: the driver does not, and the protocol does not carry it. */
int cql_drv_type_equals(const CassDataType *a, const CassDataType *b)
{
    if (!a || !b)
        return a == b;
    if (is_text(a->value_type)) /* text is an alias of varchar */
        return is_text(b->value_type);
    if (a->value_type != b->value_type)
        return 0;
    switch (a->value_type) {
    case CASS_VALUE_TYPE_CUSTOM:
        return both_or_either_empty(a->class_name, b->class_name);
    case CASS_VALUE_TYPE_LIST:
    case CASS_VALUE_TYPE_SET:
    case CASS_VALUE_TYPE_MAP:
    case CASS_VALUE_TYPE_TUPLE:
        return subs_equal(a, b);
    case CASS_VALUE_TYPE_UDT:
        return udts_equal(a, b);
    default:
        return 1;
    }
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/*
 * As CQL identifiers and the driver's lookups: a name in double quotes matches exactly (quotes
 * removed, nothing unescaped, as the driver), any other name case-insensitively (ASCII).
 */
int cql_drv_name_eq(const char *have, const char *want, size_t want_len)
{
    if (!have || !want)
        return 0;
    size_t have_len = strlen(have);
    if (want_len >= 2 && want[0] == '"' && want[want_len - 1] == '"')
        return have_len == want_len - 2 && memcmp(have, want + 1, have_len) == 0;
    if (have_len != want_len)
        return 0;
    for (size_t i = 0; i < want_len; i++)
        if (ascii_lower((unsigned char)have[i]) != ascii_lower((unsigned char)want[i]))
            return 0;
    return 1;
}

/* ---- construction ---- */

CassDataType *cass_data_type_new(CassValueType type)
{
    /* The driver takes any id below CASS_VALUE_TYPE_LAST_ENTRY, UNKNOWN excepted. */
    if ((unsigned)type >= CASS_VALUE_TYPE_LAST_ENTRY)
        return NULL;
    return cql_drv_type_new(type);
}

CassDataType *cass_data_type_new_from_existing(const CassDataType *data_type)
{
    return cql_drv_type_copy(data_type);
}

CassDataType *cass_data_type_new_tuple(size_t item_count)
{
    (void)item_count; /* a capacity hint; the arrays grow as items are added */
    return cql_drv_type_new(CASS_VALUE_TYPE_TUPLE);
}

CassDataType *cass_data_type_new_udt(size_t field_count)
{
    (void)field_count;
    return cql_drv_type_new(CASS_VALUE_TYPE_UDT);
}

void cass_data_type_free(CassDataType *data_type)
{
    cql_drv_type_unref(data_type);
}

/* ---- reading ---- */

CassValueType cass_data_type_type(const CassDataType *data_type)
{
    return data_type ? data_type->value_type : CASS_VALUE_TYPE_UNKNOWN;
}

cass_bool_t cass_data_type_is_frozen(const CassDataType *data_type)
{
    return data_type && data_type->frozen ? cass_true : cass_false;
}

/* A borrowed name of the type; the driver hands out "" for one never set. */
static CassError get_name(const CassDataType *dt, CassValueType kind, const char *name,
                          const char **out, size_t *out_len)
{
    if (!dt || !out || !out_len)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (dt->value_type != kind)
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    *out = name ? name : "";
    *out_len = name ? strlen(name) : 0;
    return CASS_OK;
}

CassError cass_data_type_type_name(const CassDataType *data_type, const char **type_name,
                                   size_t *type_name_length)
{
    return get_name(data_type, CASS_VALUE_TYPE_UDT, data_type ? data_type->type_name : NULL,
                    type_name, type_name_length);
}

CassError cass_data_type_keyspace(const CassDataType *data_type, const char **keyspace,
                                  size_t *keyspace_length)
{
    return get_name(data_type, CASS_VALUE_TYPE_UDT, data_type ? data_type->keyspace : NULL,
                    keyspace, keyspace_length);
}

CassError cass_data_type_class_name(const CassDataType *data_type, const char **class_name,
                                    size_t *class_name_length)
{
    return get_name(data_type, CASS_VALUE_TYPE_CUSTOM, data_type ? data_type->class_name : NULL,
                    class_name, class_name_length);
}

size_t cass_data_type_sub_type_count(const CassDataType *data_type)
{
    return data_type && is_composite(data_type->value_type) ? data_type->n_sub : 0;
}

size_t cass_data_sub_type_count(const CassDataType *data_type)
{
    return cass_data_type_sub_type_count(data_type);
}

const CassDataType *cass_data_type_sub_data_type(const CassDataType *data_type, size_t index)
{
    if (!data_type || !is_composite(data_type->value_type) || index >= data_type->n_sub)
        return NULL;
    return data_type->sub[index];
}

const CassDataType *cass_data_type_sub_data_type_by_name(const CassDataType *data_type,
                                                         const char *name)
{
    return cass_data_type_sub_data_type_by_name_n(data_type, name, name ? strlen(name) : 0);
}

/* The first field of that name, as the driver's lookup returns. */
const CassDataType *cass_data_type_sub_data_type_by_name_n(const CassDataType *data_type,
                                                           const char *name, size_t name_length)
{
    if (!data_type || data_type->value_type != CASS_VALUE_TYPE_UDT || !data_type->sub_names)
        return NULL;
    for (size_t i = 0; i < data_type->n_sub; i++)
        if (cql_drv_name_eq(data_type->sub_names[i], name, name_length))
            return data_type->sub[i];
    return NULL;
}

CassError cass_data_type_sub_type_name(const CassDataType *data_type, size_t index,
                                       const char **name, size_t *name_length)
{
    if (!data_type || !name || !name_length)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (data_type->value_type != CASS_VALUE_TYPE_UDT)
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    if (index >= data_type->n_sub)
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    const char *n = data_type->sub_names ? data_type->sub_names[index] : NULL;
    *name = n ? n : "";
    *name_length = n ? strlen(n) : 0;
    return CASS_OK;
}

/* ---- building ---- */

CassError cass_data_type_set_type_name(CassDataType *data_type, const char *type_name)
{
    return cass_data_type_set_type_name_n(data_type, type_name, type_name ? strlen(type_name) : 0);
}

CassError cass_data_type_set_type_name_n(CassDataType *data_type, const char *type_name,
                                         size_t type_name_length)
{
    if (!data_type)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (data_type->value_type != CASS_VALUE_TYPE_UDT)
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    return set_name(&data_type->type_name, type_name, type_name_length);
}

CassError cass_data_type_set_keyspace(CassDataType *data_type, const char *keyspace)
{
    return cass_data_type_set_keyspace_n(data_type, keyspace, keyspace ? strlen(keyspace) : 0);
}

CassError cass_data_type_set_keyspace_n(CassDataType *data_type, const char *keyspace,
                                        size_t keyspace_length)
{
    if (!data_type)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (data_type->value_type != CASS_VALUE_TYPE_UDT)
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    return set_name(&data_type->keyspace, keyspace, keyspace_length);
}

CassError cass_data_type_set_class_name(CassDataType *data_type, const char *class_name)
{
    return cass_data_type_set_class_name_n(data_type, class_name,
                                           class_name ? strlen(class_name) : 0);
}

CassError cass_data_type_set_class_name_n(CassDataType *data_type, const char *class_name,
                                          size_t class_name_length)
{
    if (!data_type)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (data_type->value_type != CASS_VALUE_TYPE_CUSTOM)
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    return set_name(&data_type->class_name, class_name, class_name_length);
}

/* Room for another item type: a list or set takes one, a map two, a tuple any number. */
static CassError positional_room(const CassDataType *dt)
{
    switch (dt->value_type) {
    case CASS_VALUE_TYPE_LIST:
    case CASS_VALUE_TYPE_SET:
        return dt->n_sub < 1 ? CASS_OK : CASS_ERROR_LIB_BAD_PARAMS;
    case CASS_VALUE_TYPE_MAP:
        return dt->n_sub < 2 ? CASS_OK : CASS_ERROR_LIB_BAD_PARAMS;
    case CASS_VALUE_TYPE_TUPLE:
        return CASS_OK;
    default:
        return CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    }
}

/* sub is NULL when making it ran out of memory. */
static CassError add_positional(CassDataType *dt, CassDataType *sub /* taken */)
{
    CassError rc = positional_room(dt);
    if (rc == CASS_OK && !sub)
        rc = CQL_DRV_NOMEM;
    if (rc != CASS_OK) {
        cql_drv_type_unref(sub);
        return rc;
    }
    return push_sub(dt, sub, NULL);
}

CassError cass_data_type_add_sub_type(CassDataType *data_type, const CassDataType *sub_data_type)
{
    if (!data_type || !sub_data_type)
        return CASS_ERROR_LIB_BAD_PARAMS;
    CassError rc = positional_room(data_type); /* before copying a type that would be refused */
    if (rc != CASS_OK)
        return rc;
    return add_positional(data_type, cql_drv_type_copy(sub_data_type));
}

CassError cass_data_type_add_sub_value_type(CassDataType *data_type, CassValueType sub_value_type)
{
    if (!data_type)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return add_positional(data_type, cql_drv_type_new(sub_value_type));
}

/* A field of a user-defined type; fields keep their order and may repeat a name (as the driver). */
static CassError add_field(CassDataType *dt, const char *name, size_t name_len,
                           CassDataType *sub /* taken */)
{
    CassError rc = CASS_OK;
    if (!dt || !name)
        rc = CASS_ERROR_LIB_BAD_PARAMS;
    else if (dt->value_type != CASS_VALUE_TYPE_UDT)
        rc = CASS_ERROR_LIB_INVALID_VALUE_TYPE;
    else if (!sub)
        rc = CQL_DRV_NOMEM;
    if (rc != CASS_OK) {
        cql_drv_type_unref(sub);
        return rc;
    }
    char *copy = eng_strndup(name, name_len);
    if (!copy) {
        cql_drv_type_unref(sub);
        return CQL_DRV_NOMEM;
    }
    return push_sub(dt, sub, copy);
}

CassError cass_data_type_add_sub_type_by_name(CassDataType *data_type, const char *name,
                                              const CassDataType *sub_data_type)
{
    return cass_data_type_add_sub_type_by_name_n(data_type, name, name ? strlen(name) : 0,
                                                 sub_data_type);
}

CassError cass_data_type_add_sub_type_by_name_n(CassDataType *data_type, const char *name,
                                                size_t name_length,
                                                const CassDataType *sub_data_type)
{
    if (!data_type || !sub_data_type)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return add_field(data_type, name, name_length, cql_drv_type_copy(sub_data_type));
}

CassError cass_data_type_add_sub_value_type_by_name(CassDataType *data_type, const char *name,
                                                    CassValueType sub_value_type)
{
    return cass_data_type_add_sub_value_type_by_name_n(data_type, name, name ? strlen(name) : 0,
                                                       sub_value_type);
}

CassError cass_data_type_add_sub_value_type_by_name_n(CassDataType *data_type, const char *name,
                                                      size_t name_length,
                                                      CassValueType sub_value_type)
{
    if (!data_type)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return add_field(data_type, name, name_length, cql_drv_type_new(sub_value_type));
}
