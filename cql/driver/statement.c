/*
 * Statements, prepared statements and batches of the driver API: the query (or
 * the prepared statement), the bound values in native-protocol serialization and
 * the per-request options, kept until the session runs them
 * (cql_drv_statement_request turns a statement into a backend request).
 *
 * Binding follows the driver (statement.cpp, abstract_data.hpp, query_request.cpp,
 * execute_request.cpp):
 * - by index: CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS past the parameters; on a bound
 *   statement the value must suit the marker's CQL type
 *   (CASS_ERROR_LIB_INVALID_VALUE_TYPE, rules in codec.h); on a simple
 *   statement anything goes and the executor validates it;
 * - by name on a bound statement: every marker of that name is bound (names as
 *   CQL identifiers: case-insensitive unless double-quoted), none is
 *   CASS_ERROR_LIB_NAME_DOES_NOT_EXIST;
 * - by name on a simple statement: the name is recorded for the next free slot
 *   (or the slot already given that name), and the session maps slots to the
 *   markers once it has prepared the text; with every slot named already,
 *   CASS_ERROR_LIB_NAME_DOES_NOT_EXIST;
 * - values never bound stay unset (ENG_UNSET), which the executor treats as
 *   protocol v4 does.
 * Every binder is generated from codec.h's table.
 *
 * A bound statement inherits its prepared statement's settings (consistency,
 * serial consistency, request timeout, idempotence, keyspace) when it was made
 * by cass_session_prepare_from_existing; a batch copies each statement it is
 * given. Prepared statements are reference counted (atomically: any number of
 * threads bind from one at once) and hold the driver's view of each marker's type.
 */
#include <string.h>

#include "cql/driver/backend.h"
#include "cql/driver/codec.h"

/* ---- prepared statements ---- */

/*
 * Every CassPrepared is the head of one of these, so the settings a statement passed to
 * cass_session_prepare_from_existing can reach the statements bound from it.
 */
typedef struct prepared_ext {
    CassPrepared base;          /* first member: a CassPrepared * is a prepared_ext * */
    int inherit;                /* made with settings: bound statements copy the levels below */
    CassConsistency consistency;
    CassConsistency serial_consistency;
    cass_uint64_t request_timeout_ms;
    cass_bool_t idempotent;
    char *keyspace;             /* the settings' keyspace, else the markers' / columns', or NULL */
} prepared_ext;

static const prepared_ext *ext_of(const CassPrepared *p)
{
    return (const prepared_ext *)p;
}

CassPrepared *cql_drv_prepared_ref(const CassPrepared *p)
{
    CassPrepared *m = (CassPrepared *)p; /* the count is the one mutable part */
    atomic_fetch_add(&m->refs, 1);
    return m;
}

static void prepared_destroy(prepared_ext *e)
{
    for (size_t i = 0; i < e->base.n_params; i++)
        cql_drv_type_unref(e->base.param_types[i]);
    eng_free(e->base.param_types);
    if (e->base.handle)
        e->base.backend->handle_free(e->base.handle);
    cql_result_free(e->base.meta);
    eng_free(e->base.query);
    eng_free(e->keyspace);
    eng_free(e);
}

void cql_drv_use_query(eng_buf *q, const char *ks, size_t len)
{
    eng_buf_put_str(q, "USE \"");
    for (size_t i = 0; i < len; i++) {
        if (ks[i] == '"')
            eng_buf_put_u8(q, '"');
        eng_buf_put_u8(q, (uint8_t)ks[i]);
    }
    eng_buf_put_u8(q, '"');
}

void cql_drv_prepared_unref(const CassPrepared *p)
{
    CassPrepared *m = (CassPrepared *)p;
    if (m && atomic_fetch_sub(&m->refs, 1) == 1)
        prepared_destroy((prepared_ext *)m);
}

/* The keyspace the driver gives bound statements: the one of the prepared result's tables. */
static const char *prepared_keyspace(const cql_result *meta)
{
    for (uint32_t i = 0; i < meta->n_binds; i++)
        if (meta->binds[i].ks && *meta->binds[i].ks)
            return meta->binds[i].ks;
    for (uint32_t i = 0; i < meta->n_cols; i++)
        if (meta->cols[i].ks && *meta->cols[i].ks)
            return meta->cols[i].ks;
    return NULL;
}

/* The driver's view of each marker's type; 0 or -1 (OOM). */
static int param_types_init(CassPrepared *base)
{
    uint32_t n = base->meta->n_binds;
    if (n == 0)
        return 0;
    base->param_types = eng_calloc(n, sizeof *base->param_types);
    if (!base->param_types)
        return -1;
    base->n_params = n;
    for (uint32_t i = 0; i < n; i++) {
        const cql_column_spec *spec = &base->meta->binds[i];
        if (spec->type && !(base->param_types[i] = cql_drv_type_from_protocol(spec->type)))
            return -1;
    }
    return 0;
}

static void inherit_settings(prepared_ext *e, const CassStatement *settings)
{
    e->inherit = 1;
    e->consistency = settings->consistency;
    e->serial_consistency = settings->serial_consistency;
    e->request_timeout_ms = settings->request_timeout_ms;
    e->idempotent = settings->idempotent;
}

CassPrepared *cql_drv_prepared_new(const struct cql_backend_ops *backend, cql_result *meta,
                                   void *handle, const char *query, size_t query_len,
                                   const CassStatement *settings)
{
    prepared_ext *e = meta ? eng_calloc(1, sizeof *e) : NULL;
    if (!e) {
        if (handle)
            backend->handle_free(handle);
        cql_result_free(meta);
        return NULL;
    }
    atomic_init(&e->base.refs, 1);
    e->base.meta = meta;
    e->base.backend = backend;
    e->base.handle = handle;
    e->base.query = eng_strndup(query, query_len);
    e->base.query_len = query_len;
    if (settings)
        inherit_settings(e, settings);
    const char *ks = settings && settings->keyspace ? settings->keyspace : prepared_keyspace(meta);
    if (!e->base.query || param_types_init(&e->base) != 0 ||
        (ks && !(e->keyspace = eng_strdup(ks)))) {
        prepared_destroy(e);
        return NULL;
    }
    return &e->base;
}

void cass_prepared_free(const CassPrepared *prepared)
{
    cql_drv_prepared_unref(prepared);
}

CassError cass_prepared_parameter_name(const CassPrepared *prepared, size_t index,
                                       const char **name, size_t *name_length)
{
    if (!prepared || !name || !name_length)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (index >= prepared->n_params)
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    const cql_column_spec *spec = &prepared->meta->binds[index];
    *name = spec->name ? spec->name : "";
    *name_length = strlen(*name);
    return CASS_OK;
}

const CassDataType *cass_prepared_parameter_data_type(const CassPrepared *prepared, size_t index)
{
    if (!prepared || index >= prepared->n_params)
        return NULL;
    return prepared->param_types[index];
}

const CassDataType *cass_prepared_parameter_data_type_by_name(const CassPrepared *prepared,
                                                              const char *name)
{
    return cass_prepared_parameter_data_type_by_name_n(prepared, name, name ? strlen(name) : 0);
}

/* The first marker of that name, as the driver's lookup returns. */
const CassDataType *cass_prepared_parameter_data_type_by_name_n(const CassPrepared *prepared,
                                                                const char *name,
                                                                size_t name_length)
{
    if (!prepared || !name)
        return NULL;
    for (size_t i = 0; i < prepared->n_params; i++) {
        const cql_column_spec *spec = &prepared->meta->binds[i];
        if (cql_drv_name_eq(spec->name, name, name_length))
            return prepared->param_types[i];
    }
    return NULL;
}

/* ---- statements: life cycle ---- */

/*
 * Room reserved for a bound statement's values when it is made, so binding does not grow the
 * buffer from nothing (64, 128, 256 bytes...): a row of a few numbers, ids and short texts fits.
 */
#define VALUE_RESERVE 256

/* Bytes of n value slots: the offsets, then the lengths (so the block stays aligned). */
static int slots_size(size_t n, size_t *size)
{
    if (n > SIZE_MAX / (sizeof(size_t) + sizeof(int32_t)))
        return -1;
    *size = n * (sizeof(size_t) + sizeof(int32_t));
    return 0;
}

/* Points off and len at the n slots laid out at `block`, all unset. */
static void slots_init(void *block, size_t n, int32_t **len, size_t **off)
{
    *off = n ? block : NULL;
    *len = n ? (int32_t *)((size_t *)block + n) : NULL;
    for (size_t i = 0; i < n; i++) {
        (*off)[i] = 0;
        (*len)[i] = ENG_UNSET;
    }
}

static void names_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        eng_free(names[i]);
    eng_free(names);
}

static void statement_destroy(CassStatement *s)
{
    eng_free(s->query);
    if (!s->prepared)
        eng_free(s->keyspace); /* a bound statement's is its prepared statement's */
    cql_drv_prepared_unref(s->prepared);
    eng_free(s->slots_block);
    names_free(s->names, s->n_values);
    eng_buf_free(&s->data);
    eng_buf_free(&s->paging_state);
    eng_free(s->profile);
    cass_custom_payload_free(s->payload);
    cass_retry_policy_free(s->retry_policy);
    eng_free(s);
}

/* The statement's own block is the struct, then its first n value slots. */
#define SLOTS_AT                                                                                   \
    ((sizeof(CassStatement) + _Alignof(size_t) - 1) / _Alignof(size_t) * _Alignof(size_t))

/*
 * A statement with n unset values and the driver's defaults (levels unknown: the session's apply;
 * no paging), in one allocation with its value slots. No query: the caller sets it.
 */
static CassStatement *statement_alloc(size_t n)
{
    size_t slots;
    if (slots_size(n, &slots) || slots > SIZE_MAX - SLOTS_AT)
        return NULL;
    CassStatement *s = eng_malloc(SLOTS_AT + slots);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    slots_init((char *)s + SLOTS_AT, n, &s->len, &s->off);
    s->n_values = n;
    s->paging_size = -1;
    s->timestamp = ENG_TS_NONE;
    s->consistency = CASS_CONSISTENCY_UNKNOWN;
    s->serial_consistency = CASS_CONSISTENCY_UNKNOWN;
    s->request_timeout_ms = CASS_UINT64_MAX;
    return s;
}

/* A simple statement: a copy of the query. */
static CassStatement *simple_alloc(const char *query, size_t query_len, size_t n)
{
    CassStatement *s = statement_alloc(n);
    if (!s)
        return NULL;
    s->query_len = query ? query_len : 0;
    s->query = eng_strndup(query ? query : "", s->query_len);
    if (!s->query) {
        statement_destroy(s);
        return NULL;
    }
    return s;
}

CassStatement *cass_statement_new(const char *query, size_t parameter_count)
{
    return cass_statement_new_n(query, query ? strlen(query) : 0, parameter_count);
}

CassStatement *cass_statement_new_n(const char *query, size_t query_length,
                                    size_t parameter_count)
{
    return simple_alloc(query, query_length, parameter_count);
}

/*
 * A bound statement runs its prepared statement, so it keeps no query text, and it borrows the
 * prepared statement's keyspace (it holds a reference to it, and a bound statement's keyspace
 * cannot be changed).
 */
CassStatement *cass_prepared_bind(const CassPrepared *prepared)
{
    if (!prepared)
        return NULL;
    const prepared_ext *e = ext_of(prepared);
    CassStatement *s = statement_alloc(prepared->n_params);
    if (!s)
        return NULL;
    s->prepared = cql_drv_prepared_ref(prepared);
    s->keyspace = e->keyspace;
    if (e->inherit) {
        s->consistency = e->consistency;
        s->serial_consistency = e->serial_consistency;
        s->request_timeout_ms = e->request_timeout_ms;
        s->idempotent = e->idempotent;
    }
    if (prepared->n_params && eng_buf_reserve(&s->data, VALUE_RESERVE - 1)) {
        statement_destroy(s);
        return NULL;
    }
    return s;
}

void cass_statement_free(CassStatement *statement)
{
    if (statement)
        statement_destroy(statement);
}

/* The driver resizes the value list of simple and bound statements alike. */
CassError cass_statement_reset_parameters(CassStatement *statement, size_t count)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    size_t size;
    void *block = NULL;
    if (slots_size(count, &size) || (count && !(block = eng_malloc(size))))
        return CQL_DRV_NOMEM;
    eng_free(statement->slots_block);
    names_free(statement->names, statement->n_values);
    statement->names = NULL;
    statement->slots_block = block;
    slots_init(block, count, &statement->len, &statement->off);
    statement->n_values = count;
    eng_buf_reset(&statement->data);
    return CASS_OK;
}

/* ---- statements: options ---- */

/* Replaces a name; NULL or empty clears it. */
static CassError str_assign(char **slot, const char *s, size_t len)
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

/* Replaces a byte string, keeping the old one when memory runs out. */
static CassError buf_assign(eng_buf *b, const void *p, size_t len)
{
    eng_buf fresh = ENG_BUF_INIT;
    if (!p && len)
        return CASS_ERROR_LIB_BAD_PARAMS;
    eng_buf_put(&fresh, p, len);
    if (fresh.oom)
        return CQL_DRV_NOMEM;
    eng_buf_free(b);
    *b = fresh;
    return CASS_OK;
}

/* The remote backend's routing key of a simple statement; embedded, nothing to route. */
CassError cass_statement_add_key_index(CassStatement *statement, size_t index)
{
    if (!statement || statement->prepared || index >= statement->n_values ||
        statement->n_key_indices >= CQL_DRV_MAX_KEY_INDICES)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->key_indices[statement->n_key_indices++] = index;
    return CASS_OK;
}

CassError cass_statement_set_retry_policy(CassStatement *statement,
                                          CassRetryPolicy *retry_policy)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    CassRetryPolicy *old = statement->retry_policy;
    statement->retry_policy = retry_policy ? cql_drv_retry_policy_ref(retry_policy) : NULL;
    cass_retry_policy_free(old);
    return CASS_OK;
}

CassError cass_batch_set_retry_policy(CassBatch *batch, CassRetryPolicy *retry_policy)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    CassRetryPolicy *old = batch->retry_policy;
    batch->retry_policy = retry_policy ? cql_drv_retry_policy_ref(retry_policy) : NULL;
    cass_retry_policy_free(old);
    return CASS_OK;
}

/* The node a statement must run on: an address (numeric, as the driver requires) and port. */
CassError cass_statement_set_host_n(CassStatement *statement, const char *host,
                                    size_t host_length, int port)
{
    CassInet inet;
    if (!statement || !host || cass_inet_from_string_n(host, host_length, &inet) != CASS_OK)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return cass_statement_set_host_inet(statement, &inet, port);
}

CassError cass_statement_set_host(CassStatement *statement, const char *host, int port)
{
    return cass_statement_set_host_n(statement, host, host ? strlen(host) : 0, port);
}

CassError cass_statement_set_host_inet(CassStatement *statement, const CassInet *host, int port)
{
    if (!statement || !host ||
        (host->address_length != CASS_INET_V4_LENGTH &&
         host->address_length != CASS_INET_V6_LENGTH))
        return CASS_ERROR_LIB_BAD_PARAMS;
    cass_inet_string(*host, statement->host);
    statement->host_port = port;
    return CASS_OK;
}

CassError cass_statement_set_node(CassStatement *statement, const CassNode *node)
{
    if (!statement || !node)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return cass_statement_set_host_inet(statement, &node->address, node->port);
}

/* A bound statement's keyspace is its prepared statement's (driver: statement.cpp). */
CassError cass_statement_set_keyspace(CassStatement *statement, const char *keyspace)
{
    return cass_statement_set_keyspace_n(statement, keyspace, keyspace ? strlen(keyspace) : 0);
}

CassError cass_statement_set_keyspace_n(CassStatement *statement, const char *keyspace,
                                        size_t keyspace_length)
{
    if (!statement || statement->prepared)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return str_assign(&statement->keyspace, keyspace, keyspace_length);
}

/* The driver keeps a reference to the payload; here it is copied (NULL: none). */
static CassError payload_assign(CassCustomPayload **slot, const CassCustomPayload *payload)
{
    CassCustomPayload *copy;
    if (cql_drv_payload_copy(payload, &copy))
        return CQL_DRV_NOMEM;
    cass_custom_payload_free(*slot);
    *slot = copy;
    return CASS_OK;
}

CassError cass_statement_set_custom_payload(CassStatement *statement,
                                            const CassCustomPayload *payload)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return payload_assign(&statement->payload, payload);
}

CassError cass_statement_set_tracing(CassStatement *statement, cass_bool_t enabled)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->tracing = enabled ? cass_true : cass_false;
    return CASS_OK;
}

CassError cass_statement_set_consistency(CassStatement *statement, CassConsistency consistency)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->consistency = consistency;
    return CASS_OK;
}

CassError cass_statement_set_serial_consistency(CassStatement *statement,
                                                CassConsistency serial_consistency)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->serial_consistency = serial_consistency;
    return CASS_OK;
}

CassError cass_statement_set_paging_size(CassStatement *statement, int page_size)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->paging_size = page_size;
    return CASS_OK;
}

CassError cass_statement_set_paging_state(CassStatement *statement, const CassResult *result)
{
    if (!statement || !result)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return buf_assign(&statement->paging_state, result->paging_state.p, result->paging_state.len);
}

/* The token is our own paging state's bytes (cass_result_paging_state_token). */
CassError cass_statement_set_paging_state_token(CassStatement *statement, const char *paging_state,
                                                size_t paging_state_size)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return buf_assign(&statement->paging_state, paging_state, paging_state_size);
}

CassError cass_statement_set_timestamp(CassStatement *statement, cass_int64_t timestamp)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->timestamp = timestamp;
    return CASS_OK;
}

CassError cass_statement_set_request_timeout(CassStatement *statement, cass_uint64_t timeout_ms)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->request_timeout_ms = timeout_ms;
    return CASS_OK;
}

CassError cass_statement_set_is_idempotent(CassStatement *statement, cass_bool_t is_idempotent)
{
    if (!statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    statement->idempotent = is_idempotent ? cass_true : cass_false;
    return CASS_OK;
}

/* ---- statements: binding ---- */

static const CassDataType *param_type(const CassStatement *s, size_t i)
{
    return s->prepared && i < s->prepared->n_params ? s->prepared->param_types[i] : NULL;
}

static CassError bind_index(CassStatement *s, size_t i, const cql_drv_val *v)
{
    if (!s)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (i >= s->n_values)
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    if (v->err != CASS_OK)
        return v->err;
    CassError rc = cql_drv_val_check(v, param_type(s, i));
    if (rc != CASS_OK)
        return rc;
    return cql_drv_slot_put(s->len, s->off, s->n_values, &s->data, i, v);
}

/* Every marker the name names; stops at the first failure, as the driver does. */
static CassError bind_marker_name(CassStatement *s, const char *name, size_t name_len,
                                  const cql_drv_val *v)
{
    int found = 0;
    for (size_t i = 0; i < s->prepared->n_params; i++) {
        const cql_column_spec *spec = &s->prepared->meta->binds[i];
        if (!cql_drv_name_eq(spec->name, name, name_len))
            continue;
        found = 1;
        CassError rc = bind_index(s, i, v);
        if (rc != CASS_OK)
            return rc;
    }
    return found ? CASS_OK : CASS_ERROR_LIB_NAME_DOES_NOT_EXIST;
}

static int is_quoted(const char *s, size_t len)
{
    return len >= 2 && s[0] == '"' && s[len - 1] == '"';
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/*
 * Whether a name recorded for a slot and a name now given reach the same slot: the driver keeps
 * recorded names unquoted and looks new ones up case-insensitively unless they are quoted.
 */
static int same_slot_name(const char *recorded, const char *name, size_t len)
{
    size_t rlen = strlen(recorded);
    if (is_quoted(recorded, rlen)) {
        recorded++;
        rlen -= 2;
    }
    int exact = is_quoted(name, len);
    if (exact) {
        name++;
        len -= 2;
    }
    if (rlen != len)
        return 0;
    for (size_t i = 0; i < len; i++) {
        int a = (unsigned char)recorded[i], b = (unsigned char)name[i];
        if (exact ? a != b : ascii_lower(a) != ascii_lower(b))
            return 0;
    }
    return 1;
}

/* The slot already given this name, else the next unnamed one (named in order of first use). */
static CassError bind_simple_name(CassStatement *s, const char *name, size_t name_len,
                                  const cql_drv_val *v)
{
    if (!s->names && s->n_values && !(s->names = eng_calloc(s->n_values, sizeof *s->names)))
        return CQL_DRV_NOMEM;
    size_t i = 0;
    for (; i < s->n_values && s->names[i]; i++)
        if (same_slot_name(s->names[i], name, name_len))
            return bind_index(s, i, v);
    if (i == s->n_values)
        return CASS_ERROR_LIB_NAME_DOES_NOT_EXIST; /* every slot has a name already */
    if (!(s->names[i] = eng_strndup(name, name_len)))
        return CQL_DRV_NOMEM;
    CassError rc = bind_index(s, i, v);
    if (rc != CASS_OK) {
        eng_free(s->names[i]);
        s->names[i] = NULL;
    }
    return rc;
}

static CassError bind_name(CassStatement *s, const char *name, size_t name_len,
                           const cql_drv_val *v)
{
    if (!s || !name)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (s->prepared)
        return bind_marker_name(s, name, name_len, v);
    return bind_simple_name(s, name, name_len, v);
}

#define STATEMENT_BINDERS(s, p, fill, p_n, fill_n, has_n)                                          \
    CassError cass_statement_bind_##s(CassStatement *statement, size_t index CQL_DRV_UNPAREN p)    \
        CQL_DRV_VAL_BODY(fill, bind_index(statement, index, v))                                    \
    CassError cass_statement_bind_##s##_by_name(CassStatement *statement,                          \
                                                const char *name CQL_DRV_UNPAREN p)                \
        CQL_DRV_VAL_BODY(fill, bind_name(statement, name, name ? strlen(name) : 0, v))             \
    CassError cass_statement_bind_##s##_by_name_n(CassStatement *statement, const char *name,      \
                                                  size_t name_length CQL_DRV_UNPAREN p_n)          \
        CQL_DRV_VAL_BODY(fill_n, bind_name(statement, name, name_length, v))                       \
    has_n(CassError cass_statement_bind_##s##_n(CassStatement *statement,                          \
                                                size_t index CQL_DRV_UNPAREN p_n)                  \
              CQL_DRV_VAL_BODY(fill_n, bind_index(statement, index, v)))

#define CQL_DRV_FAMILY(s, p, fill, p_n, fill_n, has_n, in_statement, in_collection)                \
    in_statement(STATEMENT_BINDERS(s, p, fill, p_n, fill_n, has_n))

CQL_DRV_FOR_EACH_VALUE()

/* ---- statements: what the session runs ---- */

int cql_drv_statement_request(const CassStatement *s, cql_request *req, eng_val *buf,
                              size_t buf_n, eng_val **heap)
{
    memset(req, 0, sizeof *req);
    *heap = NULL;
    if (s->n_values > UINT32_MAX)
        return ENG_E_NOMEM; /* no protocol request carries that many values */
    eng_val *vals = buf;
    if (s->n_values > buf_n && !(vals = *heap = eng_malloc(s->n_values * sizeof *vals)))
        return ENG_E_NOMEM;
    for (size_t i = 0; i < s->n_values; i++) {
        vals[i].len = s->len[i];
        vals[i].p =
            s->len[i] >= 0 ? (s->data.p ? s->data.p + s->off[i] : (const uint8_t *)"") : NULL;
    }
    req->query = s->query;
    req->query_len = s->query_len;
    req->prepared = s->prepared;
    req->values = s->n_values ? vals : NULL;
    req->n_values = (uint32_t)s->n_values;
    for (size_t i = 0; !s->prepared && s->names && i < s->n_values; i++)
        if (s->names[i])
            req->names = (const char *const *)s->names; /* bound by name */
    req->page_size = s->paging_size;
    if (s->paging_state.len) {
        req->paging_state = s->paging_state.p;
        req->paging_state_len = s->paging_state.len;
    }
    req->timestamp = s->timestamp;
    req->consistency = (int)s->consistency;
    req->serial_consistency = (int)s->serial_consistency;
    if (s->payload && s->payload->n) {
        req->n_payload = s->payload->n;
        req->payload_names = s->payload->names;
        req->payload_values = s->payload->vals;
    }
    req->tracing = s->tracing == cass_true;
    req->idempotent = s->idempotent == cass_true;
    req->retry_policy = s->retry_policy;
    req->keyspace = s->keyspace;
    if (s->n_key_indices) {
        req->key_indices = s->key_indices;
        req->n_key_indices = s->n_key_indices;
    }
    if (s->host[0]) {
        req->host = s->host;
        req->host_port = s->host_port;
    }
    return 0;
}

/* ---- batches ---- */

static char **names_copy(char *const *names, size_t n)
{
    char **copy = eng_calloc(n, sizeof *copy);
    for (size_t i = 0; copy && i < n; i++) {
        if (names[i] && !(copy[i] = eng_strdup(names[i]))) {
            names_free(copy, n);
            return NULL;
        }
    }
    return copy;
}

/* A deep copy: the batch must not see later changes to the application's statement. */
static CassStatement *statement_copy(const CassStatement *s)
{
    CassStatement *c = s->prepared ? statement_alloc(s->n_values)
                                   : simple_alloc(s->query, s->query_len, s->n_values);
    if (!c)
        return NULL;
    if (s->n_values) {
        memcpy(c->len, s->len, s->n_values * sizeof *c->len);
        memcpy(c->off, s->off, s->n_values * sizeof *c->off);
    }
    eng_buf_put(&c->data, s->data.p, s->data.len);
    eng_buf_put(&c->paging_state, s->paging_state.p, s->paging_state.len);
    c->prepared = s->prepared ? cql_drv_prepared_ref(s->prepared) : NULL;
    c->paging_size = s->paging_size;
    c->timestamp = s->timestamp;
    c->consistency = s->consistency;
    c->serial_consistency = s->serial_consistency;
    c->request_timeout_ms = s->request_timeout_ms;
    c->idempotent = s->idempotent;
    memcpy(c->key_indices, s->key_indices, sizeof c->key_indices);
    c->n_key_indices = s->n_key_indices;
    if (s->prepared)
        c->keyspace = s->keyspace; /* borrowed from the prepared statement, as s's */
    else
        c->keyspace = s->keyspace ? eng_strdup(s->keyspace) : NULL;
    c->names = s->names && s->n_values ? names_copy(s->names, s->n_values) : NULL;
    if (c->data.oom || c->paging_state.oom || (s->keyspace && !c->keyspace) ||
        (s->names && s->n_values && !c->names)) {
        statement_destroy(c);
        return NULL;
    }
    return c;
}

/* The driver takes the type as given; the session refuses an unknown one when it runs. */
CassBatch *cass_batch_new(CassBatchType type)
{
    CassBatch *b = eng_calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->type = type;
    b->timestamp = ENG_TS_NONE;
    b->consistency = CASS_CONSISTENCY_UNKNOWN;
    b->serial_consistency = CASS_CONSISTENCY_UNKNOWN;
    b->request_timeout_ms = CASS_UINT64_MAX;
    return b;
}

void cass_batch_free(CassBatch *batch)
{
    if (!batch)
        return;
    for (size_t i = 0; i < batch->n; i++)
        statement_destroy(batch->stmts[i]);
    eng_free(batch->stmts);
    eng_free(batch->keyspace);
    eng_free(batch->profile);
    cass_custom_payload_free(batch->payload);
    cass_retry_policy_free(batch->retry_policy);
    eng_free(batch);
}

CassError cass_batch_set_custom_payload(CassBatch *batch, const CassCustomPayload *payload)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return payload_assign(&batch->payload, payload);
}

CassError cass_batch_set_tracing(CassBatch *batch, cass_bool_t enabled)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    batch->tracing = enabled ? cass_true : cass_false;
    return CASS_OK;
}

CassError cass_batch_set_keyspace(CassBatch *batch, const char *keyspace)
{
    return cass_batch_set_keyspace_n(batch, keyspace, keyspace ? strlen(keyspace) : 0);
}

CassError cass_batch_set_keyspace_n(CassBatch *batch, const char *keyspace,
                                    size_t keyspace_length)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return str_assign(&batch->keyspace, keyspace, keyspace_length);
}

CassError cass_batch_set_consistency(CassBatch *batch, CassConsistency consistency)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    batch->consistency = consistency;
    return CASS_OK;
}

CassError cass_batch_set_serial_consistency(CassBatch *batch, CassConsistency serial_consistency)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    batch->serial_consistency = serial_consistency;
    return CASS_OK;
}

CassError cass_batch_set_timestamp(CassBatch *batch, cass_int64_t timestamp)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    batch->timestamp = timestamp;
    return CASS_OK;
}

CassError cass_batch_set_request_timeout(CassBatch *batch, cass_uint64_t timeout_ms)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    batch->request_timeout_ms = timeout_ms;
    return CASS_OK;
}

CassError cass_batch_set_is_idempotent(CassBatch *batch, cass_bool_t is_idempotent)
{
    if (!batch)
        return CASS_ERROR_LIB_BAD_PARAMS;
    batch->idempotent = is_idempotent ? cass_true : cass_false;
    return CASS_OK;
}

/*
 * A batch without a keyspace of its own takes the first one a statement brings (driver:
 * batch_request.cpp). Statements bound by name are accepted here; the driver refuses them when
 * the batch runs ("Batches cannot contain queries with named values").
 */
CassError cass_batch_add_statement(CassBatch *batch, CassStatement *statement)
{
    if (!batch || !statement)
        return CASS_ERROR_LIB_BAD_PARAMS;
    CassStatement **stmts = eng_realloc(batch->stmts, (batch->n + 1) * sizeof *stmts);
    if (!stmts)
        return CQL_DRV_NOMEM;
    batch->stmts = stmts;
    CassStatement *copy = statement_copy(statement);
    if (!copy)
        return CQL_DRV_NOMEM;
    if (!batch->keyspace && copy->keyspace && !(batch->keyspace = eng_strdup(copy->keyspace))) {
        statement_destroy(copy);
        return CQL_DRV_NOMEM;
    }
    stmts[batch->n++] = copy;
    return CASS_OK;
}
