/*
 * The arithmetic operators (Cassandra's OperationFcts): + - * / % between
 * numbers, unary -, and timestamp / date +/- duration. The parser turns
 * `a + b` into system._add(a, b); this file types such calls (the result
 * type is the wider operand as OperationFcts.returnType decides: the larger
 * fixed size, floating point if either side is, varint and decimal
 * unbounded) and evaluates them as the Java types do: integers wrap,
 * floats follow IEEE, varint and decimal are exact (decimal division as 4.1's
 * DecimalType.divide: at least 32 decimals, HALF_UP, trailing zeros
 * stripped). Failures carry Cassandra's text "the
 * operation 'int / int' failed: / by zero" (code 0x1400).
 *
 * varint and decimal values are computed in 128 bits: an operand or result
 * beyond 38 digits is refused ("arithmetic on varint and decimal values
 * beyond 38 digits is not supported").
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cql/exec/arith.h"
#include "cql/exec/exec_int.h"
#include "cql/exec/literal.h"
#include "engine/value/text.h"

typedef __int128 i128;

static const char *const op_names[] = {NULL, "_add", "_substract", "_multiply", "_divide",
                                       "_modulo", "_negate"};
static const char op_symbols[] = {0, '+', '-', '*', '/', '%', '-'};

int cql_arith_op(const cql_term *t)
{
    if (t->kind != CQL_T_FUNCTION || !t->ks || strcmp(t->ks, "system") != 0 || !t->name)
        return 0;
    for (int i = 1; i <= CQL_OP_NEG; i++)
        if (!strcmp(t->name, op_names[i]))
            return i;
    return 0;
}

const cql_term *cql_arith_operand(const cql_term *fn, int i)
{
    const cql_term *t = fn->items[i];
    while (t->kind == CQL_T_TUPLE && t->n_items == 1)
        t = t->items[0]; /* (x) */
    return t;
}

char cql_arith_symbol(int op) { return op > 0 && op <= CQL_OP_NEG ? op_symbols[op] : '?'; }

int cql_arith_is_number(int k)
{
    return k == ENG_TINYINT || k == ENG_SMALLINT || k == ENG_INT || k == ENG_BIGINT ||
           k == ENG_FLOAT || k == ENG_DOUBLE || k == ENG_DECIMAL || k == ENG_VARINT ||
           k == ENG_COUNTER;
}

static int size_of(int k)
{
    switch (k) {
    case ENG_TINYINT: return 1;
    case ENG_SMALLINT: return 2;
    case ENG_INT: case ENG_FLOAT: return 4;
    case ENG_BIGINT: case ENG_DOUBLE: case ENG_COUNTER: return 8;
    default: return 1 << 30;
    }
}

static int is_fp(int k) { return k == ENG_FLOAT || k == ENG_DOUBLE || k == ENG_DECIMAL; }

int cql_arith_result(int op, int l, int r)
{
    if (op == CQL_OP_NEG)
        return cql_arith_is_number(l) ? l : 0;
    if ((op == CQL_OP_ADD || op == CQL_OP_SUB) && (l == ENG_TIMESTAMP || l == ENG_DATE) &&
        r == ENG_DURATION)
        return l;
    if (!cql_arith_is_number(l) || !cql_arith_is_number(r))
        return 0;
    int size = size_of(l) > size_of(r) ? size_of(l) : size_of(r);
    if (is_fp(l) || is_fp(r))
        return size == 4 ? ENG_FLOAT : size == 8 ? ENG_DOUBLE : ENG_DECIMAL;
    return size == 1 ? ENG_TINYINT : size == 2 ? ENG_SMALLINT : size == 4 ? ENG_INT
           : size == 8 ? ENG_BIGINT : ENG_VARINT;
}

/* ---- numbers ---- */

typedef struct num {
    int64_t i;   /* integers up to bigint */
    double d;    /* float, double */
    i128 u;      /* varint, decimal: the unscaled value */
    int32_t scale;
} num;

static int too_big(eng_err *err)
{
    return eng_errorf(err, ENG_E_INVALID,
                      "arithmetic on varint and decimal values beyond 38 digits is not supported");
}

static int big_of_bytes(const uint8_t *p, size_t len, i128 *out)
{
    if (len > 16)
        return -1;
    i128 v = len && (p[0] & 0x80) ? -1 : 0;
    for (size_t i = 0; i < len; i++)
        v = (i128)(((unsigned __int128)v << 8) | p[i]);
    *out = v;
    return 0;
}

static void put_big(eng_buf *out, i128 v)
{
    uint8_t b[16];
    for (int i = 15; i >= 0; i--, v >>= 8)
        b[i] = (uint8_t)(v & 0xff);
    int s = 0; /* minimal two's complement */
    while (s < 15 && ((b[s] == 0 && !(b[s + 1] & 0x80)) || (b[s] == 0xff && (b[s + 1] & 0x80))))
        s++;
    eng_buf_put(out, b + s, (size_t)(16 - s));
}

static double be_double(const uint8_t *p)
{
    uint64_t bits = eng_be64(p);
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static float be_float(const uint8_t *p)
{
    uint32_t bits = eng_be32(p);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static int64_t int_value(int k, const uint8_t *p)
{
    switch (k) {
    case ENG_TINYINT: return (int8_t)p[0];
    case ENG_SMALLINT: return (int16_t)eng_be16(p);
    case ENG_INT: return (int32_t)eng_be32(p);
    default: return (int64_t)eng_be64(p);
    }
}

static double double_value(int k, const num *n)
{
    if (k == ENG_FLOAT || k == ENG_DOUBLE)
        return n->d;
    if (k == ENG_VARINT)
        return (double)n->u;
    if (k == ENG_DECIMAL) {
        double d = (double)n->u;
        return n->scale >= 0 ? d / pow(10, n->scale) : d * pow(10, -n->scale);
    }
    return (double)n->i;
}

static int read_num(int k, const uint8_t *p, size_t len, num *n, eng_err *err)
{
    memset(n, 0, sizeof *n);
    switch (k) {
    case ENG_FLOAT:
        n->d = len == 4 ? (double)be_float(p) : 0;
        return 0;
    case ENG_DOUBLE:
        n->d = len == 8 ? be_double(p) : 0;
        return 0;
    case ENG_VARINT:
        return big_of_bytes(p, len, &n->u) ? too_big(err) : 0;
    case ENG_DECIMAL:
        if (len < 4)
            return eng_errorf(err, ENG_E_INVALID, "invalid decimal");
        n->scale = (int32_t)eng_be32(p);
        return big_of_bytes(p + 4, len - 4, &n->u) ? too_big(err) : 0;
    default:
        n->i = int_value(k, p);
        return 0;
    }
}

static int digits(i128 v)
{
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    int n = 1;
    while (m >= 10) {
        m /= 10;
        n++;
    }
    return n;
}

static i128 pow10_128(int k)
{
    i128 p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* The BigDecimal of an operand: varint and decimal as they are, the others through their
   double (DecimalType.toBigDecimal: BigDecimal.valueOf(number.doubleValue())). */
static int to_decimal(int k, const num *n, num *out, const char **why, eng_err *err)
{
    *out = *n;
    if (k == ENG_DECIMAL || k == ENG_VARINT)
        return 0;
    double d = double_value(k, n);
    if (isnan(d) || isinf(d)) {
        *why = isnan(d) ? "A NaN cannot be converted into a decimal"
                        : "An infinite number cannot be converted into a decimal";
        return -1;
    }
    eng_buf b = ENG_BUF_INIT;
    int rc = eng_text_decimal_of_double(d, &b);
    if (!rc && (b.oom || b.len < 4))
        rc = -1;
    if (!rc) {
        out->scale = (int32_t)eng_be32(b.p);
        rc = big_of_bytes(b.p + 4, b.len - 4, &out->u);
    }
    eng_buf_free(&b);
    return rc ? too_big(err) : 0;
}

static int align(num *a, num *b, eng_err *err)
{
    while (a->scale < b->scale) {
        if (__builtin_mul_overflow(a->u, (i128)10, &a->u))
            return too_big(err);
        a->scale++;
    }
    while (b->scale < a->scale) {
        if (__builtin_mul_overflow(b->u, (i128)10, &b->u))
            return too_big(err);
        b->scale++;
    }
    return 0;
}

/* DecimalType.divide (4.1): x.divide(y, scale, HALF_UP).stripTrailingZeros(), the scale
   being 32 - (the quotient's first digit position), at least 32 and the operands' scales,
   at most 1000. Digits come by long division, so no intermediate grows past the quotient. */
static int decimal_divide(const num *x, const num *y, num *q, eng_err *err)
{
    unsigned __int128 n = x->u < 0 ? -(unsigned __int128)x->u : (unsigned __int128)x->u;
    unsigned __int128 d = y->u < 0 ? -(unsigned __int128)y->u : (unsigned __int128)y->u;
    if (d > ((unsigned __int128)1 << 120))
        return too_big(err);
    int neg = (x->u < 0) != (y->u < 0);
    int64_t first = ((int64_t)digits(x->u) - x->scale) - ((int64_t)digits(y->u) - y->scale);
    int64_t s = 32 - first;
    if (s < x->scale)
        s = x->scale;
    if (s < y->scale)
        s = y->scale;
    if (s < 32)
        s = 32;
    if (s > 1000)
        s = 1000;
    /* the quotient's unscaled value: n * 10^e / d, e = s + y.scale - x.scale */
    int64_t e = s + (int64_t)y->scale - x->scale;
    unsigned __int128 u = n / d, r = n % d;
    int up = 0;
    if (e >= 0) {
        for (int64_t i = 0; i < e; i++) {
            if (u > ((unsigned __int128)1 << 122))
                return too_big(err);
            r *= 10;
            u = u * 10 + r / d;
            r %= d;
        }
        up = r && r >= d - r; /* HALF_UP: 2r >= d */
    } else {
        /* drop -e digits of the integral quotient, the remainder counting as sticky */
        int64_t k = -e;
        if (k > 38) {
            u = 0;
        } else {
            unsigned __int128 p = (unsigned __int128)pow10_128((int)k), rr = u % p;
            u /= p;
            up = rr >= p / 2;
        }
    }
    if (up)
        u++;
    i128 v = (i128)u;
    int32_t scale = (int32_t)s;
    while (v != 0 && v % 10 == 0) {
        v /= 10;
        scale--;
    }
    if (v == 0)
        scale = 0;
    if (digits(v) > 38)
        return too_big(err);
    q->u = neg ? -v : v;
    q->scale = scale;
    return 0;
}

/* BigDecimal.remainder: x - y * divideToIntegralValue(x / y) */
static int decimal_remainder(const num *x, const num *y, num *out, eng_err *err)
{
    num a = *x, b = *y;
    if (align(&a, &b, err))
        return err->code;
    i128 iq = a.u / b.u; /* truncated integral quotient */
    /* divideToIntegralValue's scale: the preferred x.scale - y.scale, trailing zeros of the
       integer stripped down to it when it is negative */
    int32_t pref = x->scale - y->scale, qs = 0;
    if (iq == 0) {
        qs = pref;
    } else if (pref > 0) {
        for (qs = 0; qs < pref; qs++)
            if (__builtin_mul_overflow(iq, (i128)10, &iq))
                return too_big(err);
    } else {
        while (qs > pref && iq % 10 == 0) {
            iq /= 10;
            qs--;
        }
    }
    num prod = {.u = 0, .scale = qs + y->scale};
    if (__builtin_mul_overflow(iq, y->u, &prod.u))
        return too_big(err);
    num l = *x;
    if (align(&l, &prod, err))
        return err->code;
    out->u = l.u - prod.u;
    out->scale = l.scale;
    return 0;
}

static const char *kind_name(int k)
{
    const char *n = eng_kind_name(k);
    return n ? n : "?";
}

static int failed(eng_err *err, int op, int lk, int rk, const char *why)
{
    if (op == CQL_OP_NEG)
        return eng_errorf(err, ENG_E_FUNCTION_FAILURE, "the operation '-%s' failed: %s",
                          kind_name(lk), why);
    return eng_errorf(err, ENG_E_FUNCTION_FAILURE, "the operation '%s %c %s' failed: %s",
                      kind_name(lk), cql_arith_symbol(op), kind_name(rk), why);
}

static int64_t wrap(int k, int64_t v)
{
    switch (k) {
    case ENG_TINYINT: return (int8_t)v;
    case ENG_SMALLINT: return (int16_t)v;
    case ENG_INT: return (int32_t)v;
    default: return v;
    }
}

static int integer_op(int op, int k, int64_t a, int64_t b, int64_t *out)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case CQL_OP_ADD: *out = (int64_t)(ua + ub); break;
    case CQL_OP_SUB: *out = (int64_t)(ua - ub); break;
    case CQL_OP_MUL: *out = (int64_t)(ua * ub); break;
    case CQL_OP_NEG: *out = (int64_t)(0 - ua); break;
    case CQL_OP_DIV:
        if (!b)
            return -1;
        *out = b == -1 ? (int64_t)(0 - ua) : a / b;
        break;
    default:
        if (!b)
            return -1;
        *out = b == -1 ? 0 : a % b;
        break;
    }
    *out = wrap(k, *out);
    return 0;
}

static int numeric(int op, int lk, const num *l, int rk, const num *r, int ret, eng_buf *out,
                   eng_err *err)
{
    switch (ret) {
    case ENG_TINYINT: case ENG_SMALLINT: case ENG_INT: case ENG_BIGINT: case ENG_COUNTER: {
        int64_t v;
        if (integer_op(op, ret, l->i, op == CQL_OP_NEG ? 0 : r->i, &v))
            return failed(err, op, lk, rk, "/ by zero");
        if (ret == ENG_TINYINT)
            eng_buf_put_u8(out, (uint8_t)v);
        else if (ret == ENG_SMALLINT)
            eng_buf_put_be16(out, (uint16_t)v);
        else if (ret == ENG_INT)
            eng_buf_put_be32(out, (uint32_t)v);
        else
            eng_buf_put_be64(out, (uint64_t)v);
        return 0;
    }
    case ENG_FLOAT: {
        float a = (float)double_value(lk, l), b = op == CQL_OP_NEG ? 0 : (float)double_value(rk, r);
        float v = op == CQL_OP_ADD ? a + b : op == CQL_OP_SUB ? a - b : op == CQL_OP_MUL ? a * b
                : op == CQL_OP_DIV ? a / b : op == CQL_OP_MOD ? fmodf(a, b) : -a;
        uint32_t bits;
        memcpy(&bits, &v, 4);
        eng_buf_put_be32(out, bits);
        return 0;
    }
    case ENG_DOUBLE: {
        double a = double_value(lk, l), b = op == CQL_OP_NEG ? 0 : double_value(rk, r);
        double v = op == CQL_OP_ADD ? a + b : op == CQL_OP_SUB ? a - b : op == CQL_OP_MUL ? a * b
                 : op == CQL_OP_DIV ? a / b : op == CQL_OP_MOD ? fmod(a, b) : -a;
        uint64_t bits;
        memcpy(&bits, &v, 8);
        eng_buf_put_be64(out, bits);
        return 0;
    }
    case ENG_VARINT: {
        i128 a = lk == ENG_VARINT ? l->u : (i128)l->i, v = 0;
        i128 b = op == CQL_OP_NEG ? 0 : rk == ENG_VARINT ? r->u : (i128)r->i;
        int ovf = 0;
        switch (op) {
        case CQL_OP_ADD: ovf = __builtin_add_overflow(a, b, &v); break;
        case CQL_OP_SUB: ovf = __builtin_sub_overflow(a, b, &v); break;
        case CQL_OP_MUL: ovf = __builtin_mul_overflow(a, b, &v); break;
        case CQL_OP_NEG: ovf = __builtin_sub_overflow((i128)0, a, &v); break;
        default:
            if (!b)
                return failed(err, op, lk, rk, "BigInteger divide by zero");
            v = b == -1 ? (op == CQL_OP_DIV ? -a : 0) : op == CQL_OP_DIV ? a / b : a % b;
        }
        if (ovf)
            return too_big(err);
        put_big(out, v);
        return 0;
    }
    default: { /* decimal */
        num a, b = {0}, v = {0};
        const char *why = NULL;
        int rc = to_decimal(lk, l, &a, &why, err);
        if (!rc && op != CQL_OP_NEG)
            rc = to_decimal(rk, r, &b, &why, err);
        if (rc)
            return why ? failed(err, op, lk, rk, why) : rc;
        switch (op) {
        case CQL_OP_NEG:
            v.u = -a.u;
            v.scale = a.scale;
            break;
        case CQL_OP_ADD:
        case CQL_OP_SUB:
            if (align(&a, &b, err))
                return err->code;
            if (op == CQL_OP_ADD ? __builtin_add_overflow(a.u, b.u, &v.u)
                                 : __builtin_sub_overflow(a.u, b.u, &v.u))
                return too_big(err);
            v.scale = a.scale;
            break;
        case CQL_OP_MUL:
            if (__builtin_mul_overflow(a.u, b.u, &v.u))
                return too_big(err);
            v.scale = a.scale + b.scale;
            break;
        default:
            if (!b.u && op == CQL_OP_MOD)
                return failed(err, op, lk, rk, a.u ? "Division by zero" : "Division undefined");
            if (!b.u) /* BigDecimal.divide(y, scale, HALF_UP): the long path when x * 10^32 fits */
                return failed(err, op, lk, rk,
                              a.u == 0 || (a.scale >= 32 + b.scale && digits(a.u) < 19)
                                  ? "/ by zero" : "BigInteger divide by zero");
            if ((op == CQL_OP_DIV ? decimal_divide(&a, &b, &v, err)
                                  : decimal_remainder(&a, &b, &v, err)))
                return err->code;
        }
        eng_buf_put_be32(out, (uint32_t)v.scale);
        put_big(out, v.u);
        return 0;
    }
    }
}

/* ---- temporals ---- */

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

static int64_t add_months(int64_t ms, int64_t months)
{
    int64_t days = floor_div(ms, 86400000), rest = ms - days * 86400000;
    int64_t y;
    int m, d;
    eng_civil_from_days(days, &y, &m, &d);
    int64_t total = y * 12 + (m - 1) + months;
    y = floor_div(total, 12);
    m = (int)(total - y * 12) + 1;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int last = mdays[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    if (d > last)
        d = last;
    return eng_days_from_civil(y, m, d) * 86400000 + rest;
}

static int temporal(int op, int lk, const eng_val *l, const eng_val *r, eng_buf *out,
                    eng_err *err)
{
    int64_t months, days, nanos;
    size_t a = eng_get_vint(r->p, (size_t)r->len, &months), b = 0, c = 0;
    if (a)
        b = eng_get_vint(r->p + a, (size_t)r->len - a, &days);
    if (b)
        c = eng_get_vint(r->p + a + b, (size_t)r->len - a - b, &nanos);
    if (!c || (lk == ENG_TIMESTAMP && l->len != 8) || (lk == ENG_DATE && l->len != 4))
        return eng_errorf(err, ENG_E_INVALID, "invalid duration");
    if ((lk == ENG_TIMESTAMP && nanos % 1000000) || (lk == ENG_DATE && nanos)) {
        eng_buf t = ENG_BUF_INIT;
        eng_text_duration(r->p, (size_t)r->len, &t);
        char why[160];
        snprintf(why, sizeof why, "The duration must have a %s precision. Was: %s",
                 lk == ENG_DATE ? "day" : "millisecond", eng_buf_cstr(&t) ? (char *)t.p : "?");
        eng_buf_free(&t);
        return failed(err, op, lk, ENG_DURATION, why);
    }
    if (op == CQL_OP_SUB) {
        months = -months;
        days = -days;
        nanos = -nanos;
    }
    int64_t ms = lk == ENG_TIMESTAMP ? (int64_t)eng_be64(l->p)
                                     : ((int64_t)eng_be32(l->p) - ((int64_t)1 << 31)) * 86400000;
    if (months)
        ms = add_months(ms, months);
    ms += days * 86400000 + nanos / 1000000;
    if (lk == ENG_TIMESTAMP) {
        eng_buf_put_be64(out, (uint64_t)ms);
        return 0;
    }
    uint32_t date;
    if (eng_text_date_of_days(floor_div(ms, 86400000), NULL, 0, &date, err))
        return err->code;
    eng_buf_put_be32(out, date);
    return 0;
}

int cql_arith_apply(int op, int lk, eng_val l, int rk, eng_val r, int ret, eng_buf *out,
                    int *state, eng_err *err)
{
    *state = CQL_VALUE_NULL;
    if (l.len <= 0 || (op != CQL_OP_NEG && r.len <= 0))
        return 0; /* null or empty operands give null */
    *state = CQL_VALUE;
    if (rk == ENG_DURATION)
        return temporal(op, lk, &l, &r, out, err);
    num a, b = {0};
    int rc = read_num(lk, l.p, (size_t)l.len, &a, err);
    if (!rc && op != CQL_OP_NEG)
        rc = read_num(rk, r.p, (size_t)r.len, &b, err);
    return rc ? rc : numeric(op, lk, &a, rk, &b, ret, out, err);
}

/* ---- typing of operands written as terms ---- */

int cql_arith_literal_kind(const cql_term *t)
{
    switch (t->kind) {
    case CQL_T_INTEGER: {
        int64_t v;
        if (!eng_text_parse_java_int(t->text, t->len, INT32_MIN, INT32_MAX, &v))
            return ENG_INT;
        if (!eng_text_parse_java_int(t->text, t->len, INT64_MIN, INT64_MAX, &v))
            return ENG_BIGINT;
        return ENG_VARINT;
    }
    case CQL_T_FLOAT:
        if (strstr(t->text, "NaN") || strstr(t->text, "Infinity"))
            return ENG_DOUBLE;
        return eng_text_float_is_double(t->text, t->len) ? ENG_DOUBLE : ENG_DECIMAL;
    case CQL_T_DURATION:
        return ENG_DURATION;
    case CQL_T_STRING:
        return ENG_TEXT;
    case CQL_T_BOOLEAN:
        return ENG_BOOLEAN;
    case CQL_T_UUID:
        return ENG_UUID;
    case CQL_T_HEX:
        return ENG_BLOB;
    default:
        return 0;
    }
}

/* How an operand term fits an argument of kind k: 2 exactly, 1 weakly, 0 not. */
static int fits(const cql_term *t, int k, int *marker)
{
    switch (t->kind) {
    case CQL_T_BIND:
        *marker = 1;
        return 1;
    case CQL_T_INTEGER:
        return cql_arith_is_number(k) || k == ENG_TIMESTAMP || k == ENG_DATE ? 1 : 0;
    case CQL_T_STRING:
        return k == ENG_TIMESTAMP || k == ENG_DATE ? 1 : 0;
    case CQL_T_FLOAT:
        if (strstr(t->text, "NaN") || strstr(t->text, "Infinity"))
            return k == ENG_FLOAT || k == ENG_DOUBLE;
        return k == ENG_FLOAT || k == ENG_DOUBLE || k == ENG_DECIMAL;
    case CQL_T_DURATION:
        return k == ENG_DURATION;
    case CQL_T_HINT: {
        const char *n = t->type && t->type->name ? t->type->name : "";
        return eng_kind_from_name(n, strlen(n)) == k ? 2 : 0;
    }
    case CQL_T_FUNCTION: {
        if (cql_arith_op(t)) {
            int kind;
            eng_err e = {0};
            if (!cql_arith_term_kinds(t, NULL, NULL, NULL, &kind, &e))
                return kind == k ? 2 : 0;
            return cql_arith_is_number(k) || k == ENG_TIMESTAMP || k == ENG_DATE;
        }
        cql_fn f;
        if (cql_fn_resolve_call(t, &f))
            return f.ret_kind == k ? 2 : 0;
        return 1;
    }
    default:
        return 0;
    }
}

static void operand_text(const cql_term *t, char *buf, size_t n)
{
    if (t->kind == CQL_T_BIND)
        snprintf(buf, n, "?");
    else if (t->text && t->kind != CQL_T_FUNCTION && t->kind != CQL_T_HINT)
        snprintf(buf, n, "%s", t->text);
    else if (t->kind == CQL_T_FUNCTION)
        snprintf(buf, n, "%s", t->name);
    else
        snprintf(buf, n, "(%s)", t->type && t->type->name ? t->type->name : "?");
}

static const int numeric_kinds[] = {ENG_TINYINT, ENG_SMALLINT, ENG_INT, ENG_BIGINT, ENG_FLOAT,
                                    ENG_DOUBLE, ENG_DECIMAL, ENG_VARINT, ENG_COUNTER};

int cql_arith_term_kinds(const cql_term *fn, const eng_type *want, int *lk, int *rk, int *ret,
                         eng_err *err)
{
    int op = cql_arith_op(fn);
    int cand[100][2], n = 0;
    for (size_t i = 0; i < ENG_ARRAY_LEN(numeric_kinds); i++) {
        if (op == CQL_OP_NEG) {
            cand[n][0] = numeric_kinds[i];
            cand[n++][1] = 0;
            continue;
        }
        for (size_t j = 0; j < ENG_ARRAY_LEN(numeric_kinds); j++) {
            cand[n][0] = numeric_kinds[i];
            cand[n++][1] = numeric_kinds[j];
        }
    }
    if (op == CQL_OP_ADD || op == CQL_OP_SUB) {
        cand[n][0] = ENG_TIMESTAMP;
        cand[n++][1] = ENG_DURATION;
        cand[n][0] = ENG_DATE;
        cand[n++][1] = ENG_DURATION;
    }
    int compat[100], nc = 0, marker = 0;
    for (int c = 0; c < n; c++) {
        int res = cql_arith_result(op, cand[c][0], cand[c][1]);
        if (want && res != want->kind &&
            !(want->kind == ENG_BLOB || (want->kind == ENG_VARINT && (res == ENG_INT ||
                                                                      res == ENG_BIGINT))))
            continue;
        int m = fits(cql_arith_operand(fn, 0), cand[c][0], &marker);
        if (m && op != CQL_OP_NEG)
            m = m < fits(cql_arith_operand(fn, 1), cand[c][1], &marker) ? m : fits(cql_arith_operand(fn, 1), cand[c][1],
                                                                        &marker);
        if (m == 2) {
            nc = 0;
            compat[nc++] = c;
            break;
        }
        if (m)
            compat[nc++] = c;
    }
    if (nc > 1 && want && !marker)
        for (int i = 0; i < nc; i++)
            if (cand[compat[i]][0] == want->kind &&
                (op == CQL_OP_NEG || cand[compat[i]][1] == want->kind)) {
                compat[0] = compat[i];
                nc = 1;
            }
    char a[64], b[64];
    operand_text(cql_arith_operand(fn, 0), a, sizeof a);
    if (op != CQL_OP_NEG)
        operand_text(cql_arith_operand(fn, 1), b, sizeof b);
    if (!nc) {
        if (op == CQL_OP_NEG)
            return eng_errorf(err, ENG_E_INVALID, "the '-' operation is not supported on %s", a);
        return eng_errorf(err, ENG_E_INVALID, "the '%c' operation is not supported between %s and %s",
                          cql_arith_symbol(op), a, b);
    }
    if (nc > 1) {
        if (op == CQL_OP_NEG)
            return eng_errorf(err, ENG_E_INVALID, "Ambiguous negation: use type casts to disambiguate");
        return eng_errorf(err, ENG_E_INVALID,
                          "Ambiguous '%c' operation with args %s and %s: use type casts to "
                          "disambiguate",
                          cql_arith_symbol(op), a, b);
    }
    if (lk)
        *lk = cand[compat[0]][0];
    if (rk)
        *rk = cand[compat[0]][1];
    *ret = cql_arith_result(op, cand[compat[0]][0], cand[compat[0]][1]);
    return 0;
}
