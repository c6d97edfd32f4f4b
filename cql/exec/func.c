/*
 * Native scalar functions usable in terms (VALUES, SET, WHERE, IF): the
 * time-UUID and time functions (now, uuid, minTimeuuid, maxTimeuuid,
 * toTimestamp, toDate, toUnixTimestamp, dateOf, unixTimestampOf,
 * currentTimestamp, currentDate, currentTime, currentTimeUUID) and the blob
 * conversions (typeAsBlob / blobAsType), plus type hints `(type) term`.
 * One table describes every function; every notion of "now" comes from the
 * database's clock (a test can make it virtual), time UUIDs from its
 * generator (facts §9).
 */
#include <string.h>
#include <strings.h>

#include "cql/exec/exec_int.h"
#include "cql/exec/json.h"
#include "cql/exec/literal.h"

enum fn_id {
    FN_NOW = 1, FN_UUID, FN_CUR_TIMESTAMP, FN_CUR_DATE, FN_CUR_TIME, FN_MIN_TIMEUUID,
    FN_MAX_TIMEUUID, FN_TO_TIMESTAMP, FN_TO_DATE, FN_TO_UNIX, FN_AS_BLOB, FN_BLOB_AS,
};

typedef cql_fn fn_def; /* in the table, arg_kind 0 means "overloaded: see overload_arg" */

static const fn_def functions[] = {
    {"now", FN_NOW, 0, 0, ENG_TIMEUUID},
    {"currenttimeuuid", FN_NOW, 0, 0, ENG_TIMEUUID},
    {"uuid", FN_UUID, 0, 0, ENG_UUID},
    {"currenttimestamp", FN_CUR_TIMESTAMP, 0, 0, ENG_TIMESTAMP},
    {"currentdate", FN_CUR_DATE, 0, 0, ENG_DATE},
    {"currenttime", FN_CUR_TIME, 0, 0, ENG_TIME},
    {"mintimeuuid", FN_MIN_TIMEUUID, 1, ENG_TIMESTAMP, ENG_TIMEUUID},
    {"maxtimeuuid", FN_MAX_TIMEUUID, 1, ENG_TIMESTAMP, ENG_TIMEUUID},
    {"totimestamp", FN_TO_TIMESTAMP, 1, 0, ENG_TIMESTAMP},
    {"dateof", FN_TO_TIMESTAMP, 1, ENG_TIMEUUID, ENG_TIMESTAMP},
    {"todate", FN_TO_DATE, 1, 0, ENG_DATE},
    {"tounixtimestamp", FN_TO_UNIX, 1, 0, ENG_BIGINT},
    {"unixtimestampof", FN_TO_UNIX, 1, ENG_TIMEUUID, ENG_BIGINT},
};

static const eng_type scalar_types[0x16] = {
    [ENG_ASCII] = {.kind = ENG_ASCII},         [ENG_BIGINT] = {.kind = ENG_BIGINT},
    [ENG_BLOB] = {.kind = ENG_BLOB},           [ENG_BOOLEAN] = {.kind = ENG_BOOLEAN},
    [ENG_COUNTER] = {.kind = ENG_COUNTER},     [ENG_DECIMAL] = {.kind = ENG_DECIMAL},
    [ENG_DOUBLE] = {.kind = ENG_DOUBLE},       [ENG_FLOAT] = {.kind = ENG_FLOAT},
    [ENG_INT] = {.kind = ENG_INT},             [ENG_TIMESTAMP] = {.kind = ENG_TIMESTAMP},
    [ENG_UUID] = {.kind = ENG_UUID},           [ENG_TEXT] = {.kind = ENG_TEXT},
    [ENG_VARINT] = {.kind = ENG_VARINT},       [ENG_TIMEUUID] = {.kind = ENG_TIMEUUID},
    [ENG_INET] = {.kind = ENG_INET},           [ENG_DATE] = {.kind = ENG_DATE},
    [ENG_TIME] = {.kind = ENG_TIME},           [ENG_SMALLINT] = {.kind = ENG_SMALLINT},
    [ENG_TINYINT] = {.kind = ENG_TINYINT},     [ENG_DURATION] = {.kind = ENG_DURATION},
};

static const eng_type *scalar(int kind)
{
    return kind > 0 && kind < (int)ENG_ARRAY_LEN(scalar_types) ? &scalar_types[kind] : NULL;
}

const eng_type *cql_scalar_type(int kind) { return scalar(kind); }

/* Blob conversions are named after a type: intAsBlob, blobAsInt, ... (type names of eng_kind). */
static int conversion(const char *name, fn_def *out)
{
    size_t n = strlen(name);
    if (n > 6 && !strcmp(name + n - 6, "asblob")) {
        int k = eng_kind_from_name(name, n - 6);
        if (k <= 0 || !scalar(k))
            return 0;
        *out = (fn_def){name, FN_AS_BLOB, 1, k, ENG_BLOB};
        return 1;
    }
    if (n > 6 && !strncmp(name, "blobas", 6)) {
        int k = eng_kind_from_name(name + 6, n - 6);
        if (k <= 0 || !scalar(k))
            return 0;
        *out = (fn_def){name, FN_BLOB_AS, 1, ENG_BLOB, k};
        return 1;
    }
    return 0;
}

static int lookup_name(const char *name, fn_def *out)
{
    for (size_t i = 0; i < ENG_ARRAY_LEN(functions); i++)
        if (!strcasecmp(functions[i].name, name)) {
            *out = functions[i];
            return 1;
        }
    char lower[64];
    size_t n = strlen(name);
    if (n >= sizeof lower)
        return 0;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
    return conversion(lower, out) ? (out->name = name, 1) : 0;
}

static int lookup(const cql_term *fn, fn_def *out)
{
    if (fn->ks && strcmp(fn->ks, "system") != 0)
        return 0;
    return lookup_name(fn->name, out);
}

/* The argument type of an overloaded time function, from the argument as written. */
static int overload_arg(const fn_def *f, const cql_term *arg)
{
    if (f->arg_kind)
        return f->arg_kind;
    int from = 0;
    if (arg->kind == CQL_T_FUNCTION) {
        fn_def inner;
        if (lookup(arg, &inner))
            from = inner.ret_kind;
    } else if (arg->kind == CQL_T_UUID) {
        from = ENG_TIMEUUID;
    } else if (arg->kind == CQL_T_HINT && arg->type && arg->type->name) {
        from = eng_kind_from_name(arg->type->name, strlen(arg->type->name));
    } else if (arg->kind == CQL_T_INTEGER) {
        from = ENG_BIGINT;
    }
    switch (f->id) {
    case FN_TO_TIMESTAMP:
        return from == ENG_DATE ? ENG_DATE : ENG_TIMEUUID;
    case FN_TO_DATE:
        return from == ENG_TIMESTAMP ? ENG_TIMESTAMP : ENG_TIMEUUID;
    default: /* toUnixTimestamp */
        return from == ENG_TIMESTAMP || from == ENG_DATE ? from : ENG_TIMEUUID;
    }
}

/* The argument kind an overloaded time function takes for an argument of kind `from`. */
static int overload_for_kind(const fn_def *f, int from)
{
    if (f->arg_kind)
        return f->arg_kind;
    switch (f->id) {
    case FN_TO_TIMESTAMP:
        return from == ENG_DATE ? ENG_DATE : ENG_TIMEUUID;
    case FN_TO_DATE:
        return from == ENG_TIMESTAMP ? ENG_TIMESTAMP : ENG_TIMEUUID;
    default:
        return from == ENG_TIMESTAMP || from == ENG_DATE ? from : ENG_TIMEUUID;
    }
}

int cql_fn_find(const char *name, int n_args, int arg_kind, cql_fn *out, eng_err *err)
{
    fn_def f;
    if (!lookup_name(name, &f))
        return eng_errorf(err, ENG_E_INVALID, "Unknown function '%s'", name);
    if (n_args != f.n_args)
        return eng_errorf(err, ENG_E_INVALID,
                          "Invalid number of arguments in call to function system.%s: %d "
                          "required but %d provided",
                          f.name, f.n_args, n_args);
    if (f.n_args) {
        int want = overload_for_kind(&f, arg_kind);
        int ok = !arg_kind || arg_kind == want ||
                 (want == ENG_TEXT && arg_kind == ENG_ASCII) ||
                 (want == ENG_TIMESTAMP && arg_kind == ENG_TIMESTAMP);
        if (!ok) {
            const char *have = eng_kind_name(arg_kind);
            return eng_errorf(err, ENG_E_INVALID,
                              "Type error: %s cannot be passed as argument 0 of function "
                              "system.%s of type %s",
                              have ? have : "value", f.name, eng_kind_name(want));
        }
        f.arg_kind = want;
    }
    *out = f;
    return 0;
}

static int apply(cql_exec *x, const fn_def *f, int arg_kind, const eng_buf *arg, eng_buf *out,
                 int *state);

int cql_fn_apply(cql_exec *x, const cql_fn *f, const eng_val *arg, eng_buf *out, int *state)
{
    eng_buf a = ENG_BUF_INIT;
    if (arg && arg->len > 0)
        eng_buf_put(&a, arg->p, (size_t)arg->len);
    if (f->n_args && (!arg || arg->len < 0)) {
        *state = CQL_VALUE_NULL; /* functions of null are null */
        eng_buf_free(&a);
        return 0;
    }
    int rc = a.oom ? eng_errorf(x->err, ENG_E_NOMEM, "out of memory")
                   : apply(x, f, f->arg_kind, &a, out, state);
    eng_buf_free(&a);
    return rc;
}

/*
 * Whether a function's result of kind `have` can go where kind `want` is
 * expected (AbstractType.isValueCompatibleWith, which FunctionCall.Raw.prepare
 * checks): blob takes anything, text takes ascii, uuid takes timeuuid,
 * timestamp and bigint take each other, time takes bigint, date takes int,
 * varint takes int and bigint (and so timestamp).
 */
int cql_fn_result_fits(int want, int have)
{
    switch (want) {
    case ENG_BLOB:
        return 1;
    case ENG_TEXT:
        return have == ENG_TEXT || have == ENG_ASCII;
    case ENG_UUID:
        return have == ENG_UUID || have == ENG_TIMEUUID;
    case ENG_TIMESTAMP:
    case ENG_TIME:
        return have == want || have == ENG_BIGINT;
    case ENG_DATE:
        return have == ENG_DATE || have == ENG_INT;
    case ENG_BIGINT:
        return have == ENG_BIGINT || have == ENG_TIMESTAMP;
    case ENG_VARINT:
        return have == ENG_VARINT || have == ENG_INT || have == ENG_BIGINT ||
               have == ENG_TIMESTAMP;
    default:
        return want == have;
    }
}

/* Types of a function call's (single) argument and result, for bind markers. */
int cql_function_signature(const cql_term *fn, const eng_type **arg, const eng_type **ret)
{
    if (!strcasecmp(fn->name, "fromjson") || !strcasecmp(fn->name, "tojson")) {
        *arg = scalar(ENG_TEXT);
        *ret = NULL;
        return 0;
    }
    fn_def f;
    if (!lookup(fn, &f))
        return -1;
    *arg = f.n_args ? scalar(fn->n_items ? overload_arg(&f, fn->items[0]) : f.arg_kind) : NULL;
    *ret = scalar(f.ret_kind);
    return 0;
}

/* ---- evaluation ---- */

static int64_t date_days(const uint8_t *p) { return (int64_t)eng_be32(p) - ((int64_t)1 << 31); }

static void put_timestamp(eng_buf *out, int64_t ms) { eng_buf_put_be64(out, (uint64_t)ms); }

static void put_date(eng_buf *out, int64_t days)
{
    eng_buf_put_be32(out, (uint32_t)(days + ((int64_t)1 << 31)));
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* Milliseconds of the argument (a timeuuid, timestamp or date). */
static int arg_ms(int kind, const eng_buf *v, int64_t *ms)
{
    if (kind == ENG_TIMEUUID && v->len == 16) {
        *ms = eng_timeuuid_unix_ms(v->p);
        return 0;
    }
    if (kind == ENG_TIMESTAMP && v->len == 8) {
        *ms = (int64_t)eng_be64(v->p);
        return 0;
    }
    if (kind == ENG_DATE && v->len == 4) {
        *ms = date_days(v->p) * 86400000;
        return 0;
    }
    return -1;
}

/*
 * blobAs<type>: the bytes unchanged once the type validates them; otherwise
 * BytesConversionFcts.makeFromBlobFunction's text, which names the function,
 * the bytes and the type in place of the type's own MarshalException.
 */
static int blob_as(cql_exec *x, const fn_def *f, const eng_buf *arg, eng_buf *out)
{
    eng_err scratch = {0};
    if (!eng_type_validate(scalar(f->ret_kind), arg->p, arg->len, &scratch)) {
        eng_buf_put(out, arg->p, arg->len);
        return 0;
    }
    static const char digits[] = "0123456789abcdef";
    char name[64];
    size_t n = 0;
    for (; f->name[n] && n + 1 < sizeof name; n++)
        name[n] = (char)((f->name[n] >= 'A' && f->name[n] <= 'Z') ? f->name[n] + 32 : f->name[n]);
    name[n] = 0;
    eng_buf hex = ENG_BUF_INIT;
    for (size_t i = 0; i < arg->len; i++) {
        eng_buf_put(&hex, &digits[arg->p[i] >> 4], 1);
        eng_buf_put(&hex, &digits[arg->p[i] & 15], 1);
    }
    int rc = hex.oom || !eng_buf_cstr(&hex)
                 ? eng_errorf(x->err, ENG_E_NOMEM, "out of memory")
                 : eng_errorf(x->err, ENG_E_INVALID,
                              "In call to function system.%s, value 0x%s is not a valid binary "
                              "representation for type %s",
                              name, (char *)hex.p, eng_kind_name(f->ret_kind));
    eng_buf_free(&hex);
    return rc;
}

static int apply(cql_exec *x, const fn_def *f, int arg_kind, const eng_buf *arg, eng_buf *out,
                 int *state)
{
    eng_db *db = x->session->db;
    int64_t now_us = eng_clock_now_us(eng_db_clock(db));
    uint8_t u[16];
    int64_t ms;
    *state = CQL_VALUE;
    switch (f->id) {
    case FN_NOW:
        eng_uuidgen_next(eng_db_uuidgen(db), now_us, u);
        eng_buf_put(out, u, 16);
        return 0;
    case FN_UUID:
        eng_uuid_random(u);
        eng_buf_put(out, u, 16);
        return 0;
    case FN_CUR_TIMESTAMP:
        put_timestamp(out, floor_div(now_us, 1000));
        return 0;
    case FN_CUR_DATE:
        put_date(out, floor_div(now_us, 86400000000LL));
        return 0;
    case FN_CUR_TIME:
        eng_buf_put_be64(out, (uint64_t)((now_us - floor_div(now_us, 86400000000LL) *
                                                       86400000000LL) *
                                         1000));
        return 0;
    case FN_AS_BLOB:
        eng_buf_put(out, arg->p, arg->len);
        return 0;
    case FN_BLOB_AS:
        return blob_as(x, f, arg, out);
    default:
        break;
    }
    if (arg->len == 0) {
        *state = CQL_VALUE_NULL; /* an empty argument gives null (facts §9) */
        return 0;
    }
    if (arg_ms(arg_kind, arg, &ms))
        return eng_errorf(x->err, ENG_E_INVALID, "Invalid argument for function %s", f->name);
    switch (f->id) {
    case FN_MIN_TIMEUUID:
        eng_timeuuid_min(ms, u);
        eng_buf_put(out, u, 16);
        return 0;
    case FN_MAX_TIMEUUID:
        eng_timeuuid_max(ms, u);
        eng_buf_put(out, u, 16);
        return 0;
    case FN_TO_TIMESTAMP:
        put_timestamp(out, ms);
        return 0;
    case FN_TO_DATE: {
        uint32_t date;
        if (eng_text_date_of_days(floor_div(ms, 86400000), NULL, 0, &date, x->err))
            return x->err->code;
        eng_buf_put_be32(out, date);
        return 0;
    }
    default: /* FN_TO_UNIX */
        eng_buf_put_be64(out, (uint64_t)ms);
        return 0;
    }
}

int cql_fn_resolve_call(const cql_term *fn, cql_fn *out)
{
    fn_def f;
    if (!lookup(fn, &f))
        return 0;
    if (f.n_args && fn->n_items == f.n_args)
        f.arg_kind = overload_arg(&f, fn->items[0]);
    *out = f;
    return 1;
}
