/*
 * Evaluation of terms at execution time: constants, bind markers,
 * collection literals (literal.c does the walk), and the function calls and
 * type hints inside them, whose arguments are evaluated here before func.c
 * applies the function to the values. Statements get their values from
 * cql_eval_term / cql_eval_val and nothing else.
 */
#include <string.h>
#include <strings.h>

#include "cql/exec/arith.h"
#include "cql/exec/exec_int.h"
#include "cql/exec/json.h"
#include "cql/exec/literal.h"

static int call_term(void *ctx, const cql_term *term, const eng_type *want, eng_buf *out,
                     int *state, eng_err *err);

int cql_eval_term(cql_exec *x, const cql_term *term, const eng_type *type, const char *receiver,
                  eng_buf *out, int *state)
{
    cql_term_env env = {x->opts->values, x->opts->n_values, call_term, x};
    eng_buf_reset(out);
    return cql_term_value(term, type, receiver, &env, out, state, x->err);
}

int cql_eval_val(cql_exec *x, const cql_term *term, const eng_type *type, const char *receiver,
                 eng_val *out)
{
    /*
     * A bound value of a scalar type is used where it is: the caller's buffer outlives the
     * execution. Only validation is needed (collections still go through canonicalization).
     */
    if (term->kind == CQL_T_BIND && type && type->kind < ENG_LIST && term->bind_index >= 0 &&
        (uint32_t)term->bind_index < x->opts->n_values &&
        x->opts->values[term->bind_index].len >= ENG_UNSET &&
        (x->opts->values[term->bind_index].p || x->opts->values[term->bind_index].len <= 0)) {
        /* (other negative lengths take the long way, which refuses them) */
        eng_val v = x->opts->values[term->bind_index];
        if (v.len >= 0 && eng_type_validate(type, v.p, (size_t)v.len, x->err))
            return x->err->code;
        *out = v;
        return 0;
    }
    eng_buf b = ENG_BUF_INIT;
    int state;
    int rc = cql_eval_term(x, term, type, receiver, &b, &state);
    if (!rc) {
        if (state == CQL_VALUE_NULL) {
            *out = (eng_val){NULL, ENG_NULL};
        } else if (state == CQL_VALUE_UNSET) {
            *out = (eng_val){NULL, ENG_UNSET};
        } else {
            out->p = eng_arena_memdup(&x->arena, b.p, b.len);
            out->len = (int32_t)b.len;
            if (!out->p)
                rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        }
    }
    eng_buf_free(&b);
    return rc;
}

/* ---- function calls ---- */

/* fromJson(text) takes the type of what it is assigned to (FromJsonFct). */
static int call_from_json(cql_exec *x, const cql_term *fn, const eng_type *want, eng_buf *out,
                          int *state)
{
    if (fn->n_items != 1)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "fromJson() requires exactly 1 argument, but %d were provided",
                          fn->n_items);
    if (!want)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "fromJson() cannot be used in the selection clause of a SELECT statement");
    eng_buf json = ENG_BUF_INIT;
    int st;
    int rc = cql_eval_term(x, fn->items[0], cql_scalar_type(ENG_TEXT), "fromjson", &json, &st);
    if (!rc && st != CQL_VALUE)
        *state = CQL_VALUE_NULL;
    else if (!rc)
        rc = cql_json_from_json(want, (const char *)json.p, json.len, out, state, x->err);
    eng_buf_free(&json);
    return rc;
}

/* An operator call (system._add, ...): operand types picked for the receiver (arith.c). */
static int call_operator(cql_exec *x, const cql_term *fn, const eng_type *want, eng_buf *out,
                         int *state)
{
    int op = cql_arith_op(fn), lk, rk = 0, ret;
    int rc = cql_arith_term_kinds(fn, want, &lk, &rk, &ret, x->err);
    eng_buf a = ENG_BUF_INIT, b = ENG_BUF_INIT;
    int sa = CQL_VALUE, sb = CQL_VALUE;
    if (!rc)
        rc = cql_eval_term(x, cql_arith_operand(fn, 0), cql_scalar_type(lk), fn->name, &a, &sa);
    if (!rc && op != CQL_OP_NEG)
        rc = cql_eval_term(x, cql_arith_operand(fn, 1), cql_scalar_type(rk), fn->name, &b, &sb);
    if (!rc) {
        eng_val l = {a.p ? a.p : (const uint8_t *)"", sa == CQL_VALUE ? (int32_t)a.len : ENG_NULL};
        eng_val r = {b.p ? b.p : (const uint8_t *)"", sb == CQL_VALUE ? (int32_t)b.len : ENG_NULL};
        rc = cql_arith_apply(op, lk, l, rk, r, ret, out, state, x->err);
    }
    eng_buf_free(&a);
    eng_buf_free(&b);
    if (!rc && out->oom)
        rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    return rc;
}

static int call_function(cql_exec *x, const cql_term *fn, const eng_type *want, eng_buf *out,
                         int *state)
{
    if (cql_arith_op(fn))
        return call_operator(x, fn, want, out, state);
    if (!fn->ks || !strcmp(fn->ks, "system")) {
        if (!strcasecmp(fn->name, "fromjson"))
            return call_from_json(x, fn, want, out, state);
        if (!strcasecmp(fn->name, "tojson"))
            return eng_errorf(x->err, ENG_E_INVALID,
                              "toJson() may only be used within the selection clause of SELECT "
                              "statements");
    }
    cql_fn f;
    if (!cql_fn_resolve_call(fn, &f))
        return eng_errorf(x->err, ENG_E_INVALID, "Unknown function %s%s%s", fn->ks ? fn->ks : "",
                          fn->ks ? "." : "", fn->name);
    if (fn->n_items != f.n_args)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "Invalid number of arguments in call to function system.%s: %d "
                          "required but %d provided",
                          f.name, f.n_args, fn->n_items);
    const eng_type *ret = cql_scalar_type(f.ret_kind);
    if (want && !cql_fn_result_fits(want->kind, ret->kind)) { /* (analysis refuses it first) */
        eng_buf w = ENG_BUF_INIT, r = ENG_BUF_INIT;
        eng_type_to_cql(want, &w);
        eng_type_to_cql(ret, &r);
        int rc = eng_errorf(x->err, ENG_E_INVALID,
                            "Type error: cannot assign result of function system.%s (type %s) to "
                            "value (type %s)",
                            f.name, eng_buf_cstr(&r) ? (char *)r.p : "?",
                            eng_buf_cstr(&w) ? (char *)w.p : "?");
        eng_buf_free(&w);
        eng_buf_free(&r);
        return rc;
    }
    eng_buf arg = ENG_BUF_INIT;
    eng_val v = {NULL, ENG_NULL};
    int rc = 0;
    if (f.n_args) {
        int st;
        rc = cql_eval_term(x, fn->items[0], cql_scalar_type(f.arg_kind), f.name, &arg, &st);
        if (!rc && st == CQL_VALUE)
            v = (eng_val){arg.p ? arg.p : (const uint8_t *)"", (int32_t)arg.len};
    }
    if (!rc)
        rc = cql_fn_apply(x, &f, f.n_args ? &v : NULL, out, state);
    eng_buf_free(&arg);
    if (!rc && out->oom)
        rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    return rc;
}

/* The env->call of literal.h: function calls and type hints inside terms. */
static int call_term(void *ctx, const cql_term *term, const eng_type *want, eng_buf *out,
                      int *state, eng_err *err)
{
    cql_exec *x = ctx;
    (void)err; /* x->err is the same carrier */
    if (term->kind == CQL_T_FUNCTION)
        return call_function(x, term, want, out, state);
    if (term->kind == CQL_T_HINT) {
        const char *n = term->type ? term->type->name : "";
        int kind = eng_kind_from_name(n, strlen(n));
        const eng_type *t = cql_scalar_type(kind);
        if (!t || (want && want->kind != kind))
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid type hint (%s) for this value", n);
        eng_buf tmp = ENG_BUF_INIT;
        int rc = cql_eval_term(x, term->items[0], t, "value", &tmp, state);
        if (!rc)
            eng_buf_put(out, tmp.p, tmp.len);
        eng_buf_free(&tmp);
        return rc;
    }
    return eng_errorf(x->err, ENG_E_INVALID, "CAST is only supported in selections");
}
