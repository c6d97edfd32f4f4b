/*
 * Literal terms to native-serialized values (literal.h): one walk shared by
 * execution (cql_term_value builds bytes) and preparation
 * (cql_term_bind_types records markers); both apply the same checks in
 * Cassandra's order, so an error reads the same at prepare time and at
 * execution time. The text forms of the types themselves (a string for a
 * timestamp, a number's digits) are engine/value/text.c's.
 */
#include "cql/exec/literal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_TERM_DEPTH 256

static int nomem(eng_err *err)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------------ */
/* Term text (Term.Raw.getText) and type names for messages                  */
/* ------------------------------------------------------------------------ */

static void typeref_text(const cql_typeref *r, eng_buf *out, int depth)
{
    if (!r || depth > MAX_TERM_DEPTH)
        return;
    if (r->custom) {
        eng_buf_printf(out, "'%s'", r->custom);
        return;
    }
    if (r->ks)
        eng_buf_printf(out, "%s.", r->ks);
    eng_buf_put_str(out, r->name ? r->name : "");
    if (r->n_args > 0) {
        eng_buf_put_u8(out, '<');
        for (int i = 0; i < r->n_args; i++) {
            if (i)
                eng_buf_put_str(out, ", ");
            typeref_text(r->args[i], out, depth + 1);
        }
        eng_buf_put_u8(out, '>');
    }
}

static void term_text(const cql_term *t, eng_buf *out, int depth);

static void items_text(const cql_term *t, const char *open, const char *close, eng_buf *out,
                       int depth)
{
    eng_buf_put_str(out, open);
    int map = t->kind == CQL_T_MAP;
    for (int i = 0; i < t->n_items; i++) {
        if (i)
            eng_buf_put_str(out, map && i % 2 ? ": " : ", ");
        if (t->kind == CQL_T_UDT && t->names)
            eng_buf_printf(out, "%s: ", t->names[i] ? t->names[i] : "");
        term_text(t->items[i], out, depth + 1);
    }
    eng_buf_put_str(out, close);
}

static void term_text(const cql_term *t, eng_buf *out, int depth)
{
    if (!t || depth > MAX_TERM_DEPTH)
        return;
    const char *text = t->text ? t->text : "";
    size_t len = t->text ? t->len : 0;
    switch (t->kind) {
    case CQL_T_NULL:
        eng_buf_put_str(out, "NULL");
        break;
    case CQL_T_STRING:
        eng_buf_put_u8(out, '\'');
        eng_buf_put(out, text, len);
        eng_buf_put_u8(out, '\'');
        break;
    case CQL_T_HEX:
        eng_buf_put_str(out, "0x");
        eng_buf_put(out, text, len);
        break;
    case CQL_T_BIND:
        if (t->name)
            eng_buf_printf(out, ":%s", t->name);
        else
            eng_buf_put_u8(out, '?');
        break;
    case CQL_T_LIST:
        items_text(t, "[", "]", out, depth);
        break;
    case CQL_T_SET:
    case CQL_T_MAP:
    case CQL_T_UDT:
        items_text(t, "{", "}", out, depth);
        break;
    case CQL_T_TUPLE:
        items_text(t, "(", ")", out, depth);
        break;
    case CQL_T_FUNCTION:
        if (t->ks)
            eng_buf_printf(out, "%s.", t->ks);
        eng_buf_put_str(out, t->name ? t->name : "");
        items_text(t, "(", ")", out, depth);
        break;
    case CQL_T_CAST:
        eng_buf_put_str(out, "cast(");
        if (t->n_items > 0)
            term_text(t->items[0], out, depth + 1);
        eng_buf_put_str(out, " as ");
        typeref_text(t->type, out, 0);
        eng_buf_put_u8(out, ')');
        break;
    case CQL_T_HINT:
        eng_buf_put_u8(out, '(');
        typeref_text(t->type, out, 0);
        eng_buf_put_u8(out, ')');
        if (t->n_items > 0)
            term_text(t->items[0], out, depth + 1);
        break;
    case CQL_T_FIELD:
        if (t->n_items > 0)
            term_text(t->items[0], out, depth + 1);
        eng_buf_put_u8(out, '.');
        eng_buf_put(out, text, len);
        break;
    case CQL_T_STAR:
        eng_buf_put_u8(out, '*');
        break;
    default: /* constants and column names */
        eng_buf_put(out, text, len);
        break;
    }
}

void cql_term_text(const cql_term *t, eng_buf *out)
{
    term_text(t, out, 0);
}

/* Scratch strings for messages: a term's text and a type's CQL name, freed together. */
typedef struct msgbuf {
    eng_buf b[3];
} msgbuf;

static const char *msg_term(msgbuf *m, int slot, const cql_term *t)
{
    eng_buf_reset(&m->b[slot]);
    term_text(t, &m->b[slot], 0);
    const char *s = eng_buf_cstr(&m->b[slot]);
    return s ? s : "";
}

static const char *msg_type(msgbuf *m, int slot, const eng_type *t)
{
    eng_buf_reset(&m->b[slot]);
    eng_type_to_cql(t, &m->b[slot]);
    const char *s = eng_buf_cstr(&m->b[slot]);
    return s ? s : "";
}

static void msg_free(msgbuf *m)
{
    for (size_t i = 0; i < ENG_ARRAY_LEN(m->b); i++)
        eng_buf_free(&m->b[i]);
}

/* ------------------------------------------------------------------------ */
/* Assignment tests (AssignmentTestable)                                     */
/* ------------------------------------------------------------------------ */

static int is_constant(int kind)
{
    return kind >= CQL_T_INTEGER && kind <= CQL_T_DURATION;
}

/* Messages quote user text with %.*s: an int is enough for any message we keep. */
static int clen(size_t len)
{
    return len > 4096 ? 4096 : (int)len;
}

static const char *constant_kind_name(int kind)
{
    static const char *const names[] = {"INTEGER", "FLOAT", "STRING",  "BOOLEAN",
                                        "UUID",    "HEX",   "DURATION"};
    return is_constant(kind) ? names[kind - CQL_T_INTEGER] : "";
}

/* Constants.Type.getPreferedTypeFor: the type a constant is an exact match for (-1: none). */
static int preferred_kind(const cql_term *t)
{
    const char *s = t->text ? t->text : "";
    size_t len = t->text ? t->len : 0;
    int64_t v;
    uint8_t u[16];
    switch (t->kind) {
    case CQL_T_STRING:
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)s[i] >= 0x80)
                return ENG_TEXT;
        return ENG_ASCII;
    case CQL_T_INTEGER:
        if (!eng_text_parse_java_int(s, len, INT32_MIN, INT32_MAX, &v))
            return ENG_INT;
        if (!eng_text_parse_java_int(s, len, INT64_MIN, INT64_MAX, &v))
            return ENG_BIGINT;
        return ENG_VARINT;
    case CQL_T_UUID:
        if (eng_text_parse_uuid(s, len, u))
            return -1;
        return (u[6] >> 4) == 1 ? ENG_TIMEUUID : ENG_UUID;
    case CQL_T_FLOAT: {
        size_t i = (len && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
        if ((len - i == 3 && !memcmp(s + i, "NaN", 3)) ||
            (len - i == 8 && !memcmp(s + i, "Infinity", 8)))
            return ENG_DOUBLE;
        return eng_text_float_is_double(s, len) ? ENG_DOUBLE : ENG_DECIMAL;
    }
    case CQL_T_BOOLEAN:
        return ENG_BOOLEAN;
    case CQL_T_HEX:
        return ENG_BLOB;
    case CQL_T_DURATION:
        return ENG_DURATION;
    default:
        return -1;
    }
}

/* Constants.Literal.testAssignment. */
static int constant_test(const cql_term *t, const eng_type *type)
{
    int k = type->kind;
    if (eng_type_is_collection(type) || k == ENG_UDT)
        return CQL_NOT_ASSIGNABLE;
    if (k == ENG_TUPLE || k == ENG_CUSTOM) /* not CQL3Type.Native: validation skipped */
        return CQL_WEAKLY_ASSIGNABLE;
    if (preferred_kind(t) == k)
        return CQL_EXACT_MATCH;
    static const int string_ok[] = {ENG_ASCII, ENG_TEXT,      ENG_INET, ENG_DATE,
                                    ENG_TIME,  ENG_TIMESTAMP, 0};
    static const int integer_ok[] = {
        ENG_BIGINT, ENG_COUNTER,  ENG_DATE, ENG_DECIMAL,   ENG_DOUBLE,  ENG_DURATION, ENG_FLOAT,
        ENG_INT,    ENG_SMALLINT, ENG_TIME, ENG_TIMESTAMP, ENG_TINYINT, ENG_VARINT,   0};
    static const int uuid_ok[] = {ENG_UUID, ENG_TIMEUUID, 0};
    static const int float_ok[] = {ENG_DECIMAL, ENG_DOUBLE, ENG_FLOAT, 0};
    static const int boolean_ok[] = {ENG_BOOLEAN, 0};
    static const int hex_ok[] = {ENG_BLOB, 0};
    static const int duration_ok[] = {ENG_DURATION, 0};
    const int *ok = t->kind == CQL_T_STRING    ? string_ok
                    : t->kind == CQL_T_INTEGER ? integer_ok
                    : t->kind == CQL_T_UUID    ? uuid_ok
                    : t->kind == CQL_T_FLOAT   ? float_ok
                    : t->kind == CQL_T_BOOLEAN ? boolean_ok
                    : t->kind == CQL_T_HEX     ? hex_ok
                                               : duration_ok;
    for (; *ok; ok++)
        if (*ok == k)
            return CQL_WEAKLY_ASSIGNABLE;
    return CQL_NOT_ASSIGNABLE;
}

/* The native type a type hint names, or NULL (collections, UDTs, custom types). */
static eng_type *hint_type(const cql_typeref *r)
{
    if (!r || !r->name || r->custom || r->ks || r->n_args > 0)
        return NULL;
    int kind = eng_kind_from_name(r->name, strlen(r->name));
    return kind > 0 ? eng_type_new(kind) : NULL;
}

/* AbstractType.isValueCompatibleWith for native types (TypeCast's test). */
static int value_compatible(const eng_type *receiver, const eng_type *other)
{
    if (eng_type_equal(receiver, other))
        return 1;
    int r = receiver->kind, o = other->kind;
    switch (r) {
    case ENG_BLOB:
        return 1;
    case ENG_TEXT:
        return o == ENG_ASCII;
    case ENG_BIGINT:
        return o == ENG_TIMESTAMP;
    case ENG_TIMESTAMP:
    case ENG_TIME:
        return o == ENG_BIGINT;
    case ENG_DATE:
        return o == ENG_INT;
    case ENG_VARINT:
        return o == ENG_INT || o == ENG_BIGINT || o == ENG_TIMESTAMP;
    default:
        return 0;
    }
}

static int test_assign(const cql_term *t, const eng_type *type, int depth);

/* AssignmentTestable.TestResult.testAll over items[from], items[from+step], ... */
static int test_all(const cql_term *t, int from, int step, const eng_type *type, int depth)
{
    int res = CQL_EXACT_MATCH;
    for (int i = from; i < t->n_items; i += step) {
        int r = test_assign(t->items[i], type, depth + 1);
        if (r == CQL_NOT_ASSIGNABLE)
            return r;
        if (r == CQL_WEAKLY_ASSIGNABLE)
            res = r;
    }
    return res;
}

static int udt_field(const eng_type *type, const char *name)
{
    for (int i = 0; i < type->n_sub; i++)
        if (type->fields && type->fields[i] && name && !strcmp(type->fields[i], name))
            return i;
    return -1;
}

/* The literal's entry for a UDT field: the last one given (a HashMap put). */
static const cql_term *udt_entry(const cql_term *t, const char *field)
{
    const cql_term *found = NULL;
    for (int i = 0; i < t->n_items; i++)
        if (t->names && t->names[i] && field && !strcmp(t->names[i], field))
            found = t->items[i];
    return found;
}

static int test_shape(const cql_term *t, const eng_type *type, int depth)
{
    switch (t->kind) {
    case CQL_T_TUPLE:
        if (type->kind != ENG_TUPLE || t->n_items > type->n_sub)
            return CQL_NOT_ASSIGNABLE;
        for (int i = 0; i < t->n_items; i++)
            if (test_assign(t->items[i], type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
                return CQL_NOT_ASSIGNABLE;
        return CQL_WEAKLY_ASSIGNABLE;
    default: /* CQL_T_UDT */
        if (type->kind != ENG_UDT)
            return CQL_NOT_ASSIGNABLE;
        for (int i = 0; i < type->n_sub; i++) {
            const cql_term *v = udt_entry(t, type->fields ? type->fields[i] : NULL);
            if (v && test_assign(v, type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
                return CQL_NOT_ASSIGNABLE;
        }
        return CQL_WEAKLY_ASSIGNABLE;
    }
}

static int test_assign(const cql_term *t, const eng_type *type, int depth)
{
    if (!t || !type || depth > MAX_TERM_DEPTH)
        return CQL_NOT_ASSIGNABLE;
    if (is_constant(t->kind))
        return constant_test(t, type);
    int n = t->n_items;
    switch (t->kind) {
    case CQL_T_NULL:
        return type->kind == ENG_COUNTER ? CQL_NOT_ASSIGNABLE : CQL_WEAKLY_ASSIGNABLE;
    case CQL_T_BIND:
    case CQL_T_FUNCTION:
    case CQL_T_CAST:
        return CQL_WEAKLY_ASSIGNABLE;
    case CQL_T_LIST:
        if (type->kind != ENG_LIST)
            return CQL_NOT_ASSIGNABLE;
        return n == 0 ? CQL_WEAKLY_ASSIGNABLE : test_all(t, 0, 1, type->sub[0], depth);
    case CQL_T_SET:
    case CQL_T_MAP:
        if (n == 0) /* {} is an empty set literal that maps accept too */
            return type->kind == ENG_SET || type->kind == ENG_MAP ? CQL_WEAKLY_ASSIGNABLE
                                                                  : CQL_NOT_ASSIGNABLE;
        if (t->kind == CQL_T_SET)
            return type->kind == ENG_SET ? test_all(t, 0, 1, type->sub[0], depth)
                                         : CQL_NOT_ASSIGNABLE;
        if (type->kind != ENG_MAP)
            return CQL_NOT_ASSIGNABLE;
        {
            int a = test_all(t, 0, 2, type->sub[0], depth);
            int b = test_all(t, 1, 2, type->sub[1], depth);
            return a == CQL_NOT_ASSIGNABLE || b == CQL_NOT_ASSIGNABLE ? CQL_NOT_ASSIGNABLE
                   : a == CQL_EXACT_MATCH && b == CQL_EXACT_MATCH     ? CQL_EXACT_MATCH
                                                                      : CQL_WEAKLY_ASSIGNABLE;
        }
    case CQL_T_TUPLE:
    case CQL_T_UDT:
        return test_shape(t, type, depth);
    case CQL_T_HINT: {
        eng_type *h = hint_type(t->type);
        int r = !h                          ? CQL_WEAKLY_ASSIGNABLE
                : eng_type_equal(type, h)   ? CQL_EXACT_MATCH
                : value_compatible(type, h) ? CQL_WEAKLY_ASSIGNABLE
                                            : CQL_NOT_ASSIGNABLE;
        eng_type_free(h);
        return r;
    }
    default:
        return CQL_NOT_ASSIGNABLE;
    }
}

int cql_term_test_assignment(const cql_term *t, const eng_type *type)
{
    return test_assign(t, type, 0);
}

/* ------------------------------------------------------------------------ */
/* The walk: values at execution, marker types at preparation                */
/* ------------------------------------------------------------------------ */

enum { W_VALUE = 0, W_TYPES = 1 };

/* Prepare-time state of a marker or a call: its value is not known yet. */
#define STATE_UNKNOWN 3

typedef void (*record_fn)(void *ctx, const cql_term *marker, const eng_type *type,
                          const char *name);

typedef struct walk {
    int mode;                /* W_VALUE or W_TYPES */
    const cql_term_env *env; /* W_VALUE */
    record_fn record;        /* W_TYPES */
    void *rctx;
    eng_err *err;
    msgbuf msg;
} walk;

static int walk_term(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth);

static const cql_term null_term = {.kind = CQL_T_NULL};

/* Constants.Literal.prepare: assignable, then parsed by the receiver's fromString. */
static int walk_constant(walk *w, const cql_term *t, const eng_type *type, const char *name,
                         eng_buf *out)
{
    const char *text = t->text ? t->text : "";
    size_t len = t->text ? t->len : 0;
    if (constant_test(t, type) == CQL_NOT_ASSIGNABLE)
        return eng_invalidf(w->err, "Invalid %s constant (%s%.*s) for \"%s\" of type %s",
                       constant_kind_name(t->kind), t->kind == CQL_T_HEX ? "0x" : "", clen(len),
                       text, name, msg_type(&w->msg, 0, type));
    if (t->kind == CQL_T_HEX) { /* always BytesType, whatever the (blob or custom) receiver */
        if (eng_text_parse_hex(text, len, out))
            return eng_invalidf(w->err, "cannot parse '%.*s' as hex bytes", clen(len), text);
        return out->oom ? nomem(w->err) : 0;
    }
    return eng_text_from_string(type, text, len, out, w->err);
}

/* A type whose canonical form can differ from what a client sends. */
static int may_need_canon(const eng_type *t)
{
    return eng_type_is_collection(t) || t->kind == ENG_TUPLE || t->kind == ENG_UDT;
}

/* AbstractMarker: the bound value, validated (MarshalException text) and canonical. */
static int walk_bind(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state)
{
    if (w->mode == W_TYPES) {
        if (w->record)
            w->record(w->rctx, t, type, name);
        *state = STATE_UNKNOWN;
        return 0;
    }
    const cql_term_env *env = w->env;
    if (!env || !env->binds || t->bind_index < 0 || (uint32_t)t->bind_index >= env->n_binds)
        return eng_invalidf(w->err, "No value bound for bind marker %d", t->bind_index);
    eng_val v = env->binds[t->bind_index];
    if (v.len == ENG_NULL || v.len == ENG_UNSET) {
        *state = v.len == ENG_NULL ? CQL_VALUE_NULL : CQL_VALUE_UNSET;
        return 0;
    }
    if (v.len < 0 || (!v.p && v.len))
        return eng_invalidf(w->err, "Invalid bound value for %s", name);
    int rc = eng_type_validate(type, v.p, (size_t)v.len, w->err);
    if (rc)
        return rc;
    if (may_need_canon(type))
        return eng_type_canonicalize(type, v.p, (size_t)v.len, out, w->err);
    eng_buf_put(out, v.p, (size_t)v.len);
    return out->oom ? nomem(w->err) : 0;
}

/* A function call or CAST: the executor's business (function resolution and execution). */
static int walk_call(walk *w, const cql_term *t, const eng_type *type, eng_buf *out, int *state)
{
    if (w->mode == W_TYPES) {
        *state = STATE_UNKNOWN;
        return 0;
    }
    if (!w->env || !w->env->call)
        return eng_invalidf(w->err, "Function calls are not supported here");
    return w->env->call(w->env->ctx, t, type, out, state, w->err);
}

static const char *noun_of(int kind)
{
    return kind == ENG_LIST ? "list" : kind == ENG_SET ? "set" : "map";
}

/* Lists/Sets/Maps.Literal.validateAssignableTo. */
static int check_collection(walk *w, const cql_term *t, const eng_type *type, const char *name,
                            int depth)
{
    int want = t->kind == CQL_T_LIST ? ENG_LIST : t->kind == CQL_T_SET ? ENG_SET : ENG_MAP;
    if (t->n_items == 0 && t->kind != CQL_T_LIST) { /* {}: an empty set literal, maps take it too */
        if (type->kind == ENG_SET || type->kind == ENG_MAP)
            return 0;
        want = ENG_SET;
    }
    if (type->kind != want)
        return eng_invalidf(w->err, "Invalid %s literal for %s of type %s", noun_of(want), name,
                       msg_type(&w->msg, 0, type));
    int map = want == ENG_MAP;
    for (int i = 0; i < t->n_items; i++) {
        const eng_type *et = type->sub[map ? i % 2 : 0];
        if (test_assign(t->items[i], et, depth + 1) == CQL_NOT_ASSIGNABLE)
            return eng_invalidf(w->err, "Invalid %s literal for %s: %s %s is not of type %s",
                           noun_of(want), name, map && i % 2 == 0 ? "key" : "value",
                           msg_term(&w->msg, 1, t->items[i]), msg_type(&w->msg, 0, et));
    }
    return 0;
}

/*
 * Each element prepared for the element type (a marker there is typed and
 * named as Lists/Sets.valueSpecOf and Maps.keySpecOf/valueSpecOf name it:
 * value(l), key(m), value(m); the literal is then a DelayedValue).
 */
static int collection_elements(walk *w, const cql_term *t, const eng_type *type, const char *name,
                               eng_buf *body, int *st, int depth)
{
    int map = type->kind == ENG_MAP, rc = 0;
    eng_buf vname = ENG_BUF_INIT, kname = ENG_BUF_INIT;
    eng_buf_printf(&vname, "value(%s)", name);
    eng_buf_printf(&kname, "key(%s)", name);
    const char *vn = eng_buf_cstr(&vname), *kn = eng_buf_cstr(&kname);
    for (int i = 0; i < t->n_items && !rc; i++) {
        int key = map && i % 2 == 0;
        size_t at = body->len;
        eng_buf_put_be32(body, 0);
        rc = walk_term(w, t->items[i], type->sub[map ? i % 2 : 0], key ? kn : vn, body, &st[i],
                       depth + 1);
        if (!rc && !body->oom)
            eng_put_be32(body->p + at, (uint32_t)(body->len - at - 4));
    }
    if (!rc && (!vn || !kn || body->oom))
        rc = nomem(w->err);
    eng_buf_free(&vname);
    eng_buf_free(&kname);
    return rc;
}

/*
 * Lists/Sets/Maps.DelayedValue.bind, element by element: a null is refused,
 * an unset key is refused, an unset element or value makes the whole
 * collection unset. Returns 1 for "unset".
 */
static int collection_bind_checks(walk *w, const cql_term *t, int map, const int *st)
{
    for (int i = 0; i < t->n_items; i++) {
        if (st[i] == CQL_VALUE_NULL)
            return eng_invalidf(w->err, "null is not supported inside collections");
        if (st[i] == CQL_VALUE_UNSET && map && i % 2 == 0)
            return eng_invalidf(w->err, "unset value is not supported for map keys");
        if (st[i] == CQL_VALUE_UNSET)
            return 1;
    }
    return 0;
}

static int walk_collection(walk *w, const cql_term *t, const eng_type *type, const char *name,
                           eng_buf *out, int *state, int depth)
{
    int rc = check_collection(w, t, type, name, depth);
    if (rc)
        return rc;
    if (t->n_items == 0) {
        eng_buf_put_be32(out, 0);
        return out->oom ? nomem(w->err) : 0;
    }
    int map = type->kind == ENG_MAP, unknown = 0;
    int *st = eng_calloc((size_t)t->n_items, sizeof *st);
    eng_buf body = ENG_BUF_INIT, whole = ENG_BUF_INIT;
    rc = st ? collection_elements(w, t, type, name, &body, st, depth) : nomem(w->err);
    for (int i = 0; !rc && i < t->n_items; i++)
        unknown |= st[i] == STATE_UNKNOWN;
    if (!rc && !unknown) {
        rc = collection_bind_checks(w, t, map, st);
        if (rc == 1) {
            *state = CQL_VALUE_UNSET;
            rc = 0;
        } else if (!rc && w->mode == W_VALUE) {
            eng_buf_put_be32(&whole, (uint32_t)(map ? t->n_items / 2 : t->n_items));
            eng_buf_put(&whole, body.p, body.len);
            if (whole.oom)
                rc = nomem(w->err);
            else if (type->kind == ENG_LIST)
                eng_buf_put(out, whole.p, whole.len);
            else if (!(rc = eng_type_validate(type, whole.p, whole.len, w->err)))
                rc = eng_type_canonicalize(type, whole.p, whole.len, out, w->err);
        }
    }
    eng_free(st);
    eng_buf_free(&body);
    eng_buf_free(&whole);
    return rc ? rc : out->oom ? nomem(w->err) : 0;
}

/* Tuples.Literal.validateAssignableTo. */
static int check_tuple(walk *w, const cql_term *t, const eng_type *type, const char *name,
                       int depth)
{
    if (type->kind != ENG_TUPLE)
        return eng_invalidf(w->err, "Invalid tuple type literal for %s of type %s", name,
                       msg_type(&w->msg, 0, type));
    for (int i = 0; i < t->n_items; i++) {
        if (i >= type->n_sub)
            return eng_invalidf(w->err,
                           "Invalid tuple literal for %s: too many elements. Type %s expects %d "
                           "but got %d",
                           name, msg_type(&w->msg, 0, type), type->n_sub, t->n_items);
        if (test_assign(t->items[i], type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
            return eng_invalidf(w->err, "Invalid tuple literal for %s: component %d is not of type %s",
                           name, i, msg_type(&w->msg, 0, type->sub[i]));
    }
    return 0;
}

/* One component or field as [bytes]; null and unset are written as null (-1). */
static int walk_item(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth)
{
    size_t at = out->len;
    eng_buf_put_be32(out, 0);
    int rc = walk_term(w, t, type, name, out, state, depth + 1);
    if (!rc && !out->oom)
        eng_put_be32(out->p + at,
                     *state == CQL_VALUE ? (uint32_t)(out->len - at - 4) : (uint32_t)-1);
    return rc;
}

static int walk_tuple(walk *w, const cql_term *t, const eng_type *type, const char *name,
                      eng_buf *out, int depth)
{
    int rc = check_tuple(w, t, type, name, depth);
    eng_buf cname = ENG_BUF_INIT;
    for (int i = 0; i < t->n_items && !rc; i++) {
        eng_buf_reset(&cname);
        eng_buf_printf(&cname, "%s[%d]", name, i);
        const char *cn = eng_buf_cstr(&cname);
        int st;
        rc = cn ? walk_item(w, t->items[i], type->sub[i], cn, out, &st, depth) : nomem(w->err);
        /* a tuple is written whole: an unset component cannot keep an old value */
        if (!rc && st == CQL_VALUE_UNSET)
            rc = eng_invalidf(w->err, "Invalid unset value for tuple field number %d", i);
    }
    eng_buf_free(&cname);
    return rc ? rc : out->oom ? nomem(w->err) : 0;
}

/* UserTypes.Literal.validateAssignableTo, then prepare field by field, then unknown fields. */
static int walk_udt(walk *w, const cql_term *t, const eng_type *type, const char *name,
                    eng_buf *out, int depth)
{
    if (type->kind != ENG_UDT)
        return eng_invalidf(w->err, "Invalid user type literal for %s of type %s", name,
                       msg_type(&w->msg, 0, type));
    for (int i = 0; i < type->n_sub; i++) {
        const cql_term *v = udt_entry(t, type->fields ? type->fields[i] : NULL);
        if (v && test_assign(v, type->sub[i], depth + 1) == CQL_NOT_ASSIGNABLE)
            return eng_invalidf(w->err, "Invalid user type literal for %s: field %s is not of type %s",
                           name, type->fields[i], msg_type(&w->msg, 0, type->sub[i]));
    }
    eng_buf fname = ENG_BUF_INIT;
    int rc = 0;
    for (int i = 0; i < type->n_sub && !rc; i++) {
        const char *field = type->fields && type->fields[i] ? type->fields[i] : "";
        const cql_term *v = udt_entry(t, field);
        eng_buf_reset(&fname);
        eng_buf_printf(&fname, "%s.%s", name, field);
        const char *fn = eng_buf_cstr(&fname);
        int st;
        rc = fn ? walk_item(w, v ? v : &null_term, type->sub[i], fn, out, &st, depth)
                : nomem(w->err);
        /* a frozen UDT is written whole; a non-frozen one simply leaves the field null */
        if (!rc && st == CQL_VALUE_UNSET && type->frozen)
            rc = eng_invalidf(w->err, "Invalid unset value for field '%s' of user defined type %s",
                         field, type->name ? type->name : "");
    }
    eng_buf_free(&fname);
    for (int i = 0; i < t->n_items && !rc; i++)
        if (udt_field(type, t->names ? t->names[i] : NULL) < 0)
            rc = eng_invalidf(w->err, "Unknown field '%s' in value of user defined type %s",
                         t->names && t->names[i] ? t->names[i] : "", type->name ? type->name : "");
    return rc ? rc : out->oom ? nomem(w->err) : 0;
}

/*
 * TypeCast ("(int) ?"): the operand must be assignable to the hinted type
 * and the hinted type value-compatible with the receiver; the operand is
 * then prepared for the receiver itself (so a marker gets the receiver's
 * name and type). Hints Cassandra resolves against the schema (UDTs,
 * collections) go to the executor like a function call.
 */
static int walk_hint(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth)
{
    const cql_term *inner = t->n_items > 0 ? t->items[0] : NULL;
    if (!inner)
        return eng_invalidf(w->err, "Invalid type hint");
    eng_type *h = hint_type(t->type);
    if (!h)
        return w->mode == W_VALUE && w->env && w->env->call
                   ? walk_call(w, t, type, out, state)
                   : walk_term(w, inner, type, name, out, state, depth + 1);
    int rc = 0;
    if (test_assign(inner, h, depth + 1) == CQL_NOT_ASSIGNABLE) {
        eng_buf tn = ENG_BUF_INIT;
        typeref_text(t->type, &tn, 0);
        const char *s = eng_buf_cstr(&tn);
        rc = eng_invalidf(w->err, "Cannot cast value %s to type %s", msg_term(&w->msg, 1, inner),
                     s ? s : "");
        eng_buf_free(&tn);
    } else if (!value_compatible(type, h)) {
        rc = eng_invalidf(w->err, "Cannot assign value %s to %s of type %s", msg_term(&w->msg, 1, t),
                     name, msg_type(&w->msg, 0, type));
    }
    eng_type_free(h);
    return rc ? rc : walk_term(w, inner, type, name, out, state, depth + 1);
}

static int walk_term(walk *w, const cql_term *t, const eng_type *type, const char *name,
                     eng_buf *out, int *state, int depth)
{
    *state = CQL_VALUE;
    if (!t || !type)
        return eng_invalidf(w->err, "Invalid term");
    if (depth > MAX_TERM_DEPTH)
        return eng_invalidf(w->err, "Term is nested too deeply");
    if (is_constant(t->kind))
        return walk_constant(w, t, type, name, out);
    switch (t->kind) {
    case CQL_T_NULL:
        if (type->kind == ENG_COUNTER)
            return eng_invalidf(w->err, "Invalid null value for counter increment/decrement");
        *state = CQL_VALUE_NULL;
        return 0;
    case CQL_T_BIND:
        return walk_bind(w, t, type, name, out, state);
    case CQL_T_LIST:
    case CQL_T_SET:
    case CQL_T_MAP:
        return walk_collection(w, t, type, name, out, state, depth);
    case CQL_T_TUPLE:
        return walk_tuple(w, t, type, name, out, depth);
    case CQL_T_UDT:
        return walk_udt(w, t, type, name, out, depth);
    case CQL_T_FUNCTION:
    case CQL_T_CAST:
        return walk_call(w, t, type, out, state);
    case CQL_T_HINT:
        return walk_hint(w, t, type, name, out, state, depth);
    default:
        return eng_invalidf(w->err, "Cannot use %s as a value for %s", msg_term(&w->msg, 1, t), name);
    }
}

int cql_term_value(const cql_term *t, const eng_type *type, const char *receiver,
                   const cql_term_env *env, eng_buf *out, int *state, eng_err *err)
{
    int dummy;
    if (!state)
        state = &dummy;
    *state = CQL_VALUE;
    if (!out)
        return eng_invalidf(err, "Invalid term");
    walk w = {.mode = W_VALUE, .env = env, .err = err};
    size_t start = out->len;
    int rc = walk_term(&w, t, type, receiver ? receiver : "", out, state, 0);
    if (!rc && out->oom)
        rc = nomem(err);
    if (rc || *state != CQL_VALUE) {
        out->len = ENG_MIN(out->len, start); /* nothing of a failed or valueless term stays */
        if (rc)
            *state = CQL_VALUE_NULL;
    }
    msg_free(&w.msg);
    return rc;
}

int cql_term_bind_types(const cql_term *t, const eng_type *type, const char *receiver,
                        void (*record)(void *ctx, const cql_term *marker, const eng_type *type,
                                       const char *name),
                        void *ctx, eng_err *err)
{
    walk w = {.mode = W_TYPES, .record = record, .rctx = ctx, .err = err};
    eng_buf scratch = ENG_BUF_INIT;
    int state;
    int rc = walk_term(&w, t, type, receiver ? receiver : "", &scratch, &state, 0);
    if (!rc && scratch.oom)
        rc = nomem(err);
    eng_buf_free(&scratch);
    msg_free(&w.msg);
    return rc;
}
