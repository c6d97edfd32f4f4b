/*
 * SELECT: a restriction set (restrict.c: partitions by key or token range,
 * clustering slices in clustering order, filters) turned into an engine
 * query with ORDER BY as a reversed read, LIMIT / PER PARTITION LIMIT,
 * DISTINCT, GROUP BY and static rows — and the selection: columns,
 * writetime(), ttl(), token(), count(*) and the aggregates count / min /
 * max / sum / avg, with Cassandra's column names. The filters (ALLOW
 * FILTERING, CONTAINS) and multi-column bounds over columns of different
 * directions are applied to each row the engine returns. Paging states
 * carry the engine's resume position and what remains of the LIMIT.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#include "cql/exec/arith.h"
#include "cql/exec/exec_int.h"
#include "cql/exec/json.h"
#include "cql/exec/literal.h"
#include "cql/exec/restrict.h"
#include "cql/exec/systables.h"
#include "cql/exec/trace.h"
#include "engine/value/token.h"

enum sel_kind {
    SEL_COLUMN = 1, SEL_WRITETIME, SEL_TTL, SEL_TOKEN, SEL_COUNT_ROWS, SEL_AGG, SEL_FN, SEL_CAST,
    SEL_TOJSON, SEL_FIELD,
    SEL_ELEMENT,            /* c[key]: an element of a set or map (ElementsSelector) */
    SEL_SLICE,              /* c[from..to]: a slice of a set or map */
    SEL_TERM,               /* a literal or bind marker with a type hint (TermSelector) */
    SEL_OP,                 /* a + b, -a (arith.c): arg and arg2, cast_to the CQL_OP_* */
    SEL_CONST,              /* a literal operand of SEL_OP, its value computed once */
};
enum agg_kind { AGG_COUNT = 1, AGG_MIN, AGG_MAX, AGG_SUM, AGG_AVG };

typedef struct selector selector;
struct selector {
    int kind;
    int col;                /* SEL_COLUMN / WRITETIME / TTL / AGG argument */
    int agg;                /* enum agg_kind */
    const eng_type *type;   /* result type */
    selector *arg;          /* SEL_FN / SEL_CAST / SEL_TOJSON / SEL_AGG: the argument (NULL for
                               none, and for count(*)) */
    cql_fn fn;              /* SEL_FN */
    int cast_to;            /* SEL_CAST: target kind; SEL_FIELD: the field's index */
    int has_agg;            /* an aggregate is this selector or inside it */
    int slot;               /* aggregate queries: its agg_state in the run */
    const cql_term *terms[2]; /* SEL_ELEMENT: the key; SEL_SLICE: from, to (NULL: open);
                                 SEL_TERM: the value; evaluated once per run (select_run) */
    const eng_type *term_type; /* their type */
    const char *arg_name;   /* the selected collection's name, for messages */
    selector *arg2;         /* SEL_OP: the right operand */
    eng_val value;          /* SEL_CONST: the value */
};

typedef struct select_plan {
    const eng_table *t;
    selector *sels;
    int n_sels;
    int n_slots;            /* selectors, nested ones included (agg_state per selector) */
    int aggregate;          /* every selector aggregates: one row */
    cql_restrictions r;     /* the WHERE clause (restrict.c) */
    int reversed;
    int order_with_in;      /* ORDER BY with IN on the partition key: rows need a sort */
    int *order_cols;        /* the ORDER BY columns, in order */
    int n_order;
    const cql_term *limit, *ppl;
    int distinct;
    int json;               /* SELECT JSON: one [json] column built from the selectors */
    int group_n;            /* GROUP BY: rows with equal values of the first group_n key columns
                               form one group (0: no GROUP BY) */
    int statics_queried_all; /* no non-key column is queried: everything is (ColumnFilter) */
    int *statics_queried;   /* else the queried static columns */
    int n_statics_queried;
    const char **names;     /* selector names (for JSON) */
    const eng_type **types;
} select_plan;

static const eng_type int_type = {.kind = ENG_INT};
static const eng_type bigint_type = {.kind = ENG_BIGINT};

/* ---- selection ---- */

static char *name_of(cql_analysis *a, const char *fmt, const char *arg)
{
    char buf[512];
    snprintf(buf, sizeof buf, fmt, arg);
    return cql_plan_strdup(a->plan, buf);
}

static int column_arg(cql_analysis *a, const eng_table *t, const cql_term *fn, int *col)
{
    if (fn->n_items != 1 || fn->items[0]->kind != CQL_T_COLUMN)
        return eng_errorf(a->err, ENG_E_INVALID, "Invalid arguments for function %s", fn->name);
    return cql_resolve_column(a, t, fn->items[0]->text, col);
}

static int agg_of(const char *name)
{
    if (!strcmp(name, "count"))
        return AGG_COUNT;
    if (!strcmp(name, "min"))
        return AGG_MIN;
    if (!strcmp(name, "max"))
        return AGG_MAX;
    if (!strcmp(name, "sum"))
        return AGG_SUM;
    if (!strcmp(name, "avg"))
        return AGG_AVG;
    return 0;
}

static int analyze_expr(cql_analysis *a, const eng_table *t, const cql_term *term, selector *sel,
                        const char **name);

static int analyze_function_selector(cql_analysis *a, const eng_table *t, const cql_term *fn,
                                     selector *s, const char **name)
{
    const char *f = fn->name;
    int rc;
    if (!strcmp(f, "writetime") || !strcmp(f, "ttl")) {
        if ((rc = column_arg(a, t, fn, &s->col)))
            return rc;
        const eng_column *c = &t->cols[s->col];
        if (c->kind == ENG_COL_PARTITION || c->kind == ENG_COL_CLUSTERING)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Cannot use selection function %s on PRIMARY KEY part %s",
                              f[0] == 'w' ? "writeTime" : "ttl", c->name);
        if (eng_type_is_multicell(c->type))
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Cannot use selection function %s on collections",
                              f[0] == 'w' ? "writeTime" : "ttl");
        s->kind = f[0] == 'w' ? SEL_WRITETIME : SEL_TTL;
        s->type = f[0] == 'w' ? &bigint_type : &int_type;
        *name = name_of(a, f[0] == 'w' ? "writetime(%s)" : "ttl(%s)", c->name);
        return 0;
    }
    if (!strcmp(f, "token")) {
        if (fn->n_items != t->n_pk)
            return eng_errorf(a->err, ENG_E_INVALID, "Invalid number of arguments in call to "
                                                     "function system.token: %d required but %d "
                                                     "provided",
                              t->n_pk, fn->n_items);
        eng_buf b = ENG_BUF_INIT;
        for (int i = 0; i < fn->n_items; i++) {
            int col;
            if (fn->items[i]->kind != CQL_T_COLUMN ||
                (rc = cql_resolve_column(a, t, fn->items[i]->text, &col)) || col != i) {
                eng_buf_free(&b);
                return eng_errorf(a->err, ENG_E_INVALID,
                                  "The token function arguments must be in the partition key "
                                  "order");
            }
            eng_buf_printf(&b, "%s%s", i ? ", " : "", t->cols[i].name);
        }
        s->kind = SEL_TOKEN;
        s->type = &bigint_type;
        *name = eng_buf_cstr(&b) ? name_of(a, "system.token(%s)", (char *)b.p) : NULL;
        eng_buf_free(&b);
        return *name ? 0 : eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    }
    int agg = agg_of(f);
    if (agg == AGG_COUNT && fn->n_items == 1 &&
        (fn->items[0]->kind == CQL_T_STAR || fn->items[0]->kind == CQL_T_INTEGER)) {
        s->kind = SEL_COUNT_ROWS;
        s->type = &bigint_type;
        s->has_agg = 1;
        *name = "count";
        return 0;
    }
    if (agg) {
        /* The argument is any selector that does not aggregate itself (AbstractFunctionSelector:
           max(unixTimestampOf(b)) is fine, max(sum(c)) is not). */
        if (fn->n_items != 1 || fn->items[0]->kind == CQL_T_STAR)
            return eng_errorf(a->err, ENG_E_INVALID, "Invalid arguments for function %s", f);
        const char *arg_name;
        s->arg = cql_plan_zalloc(a, sizeof *s->arg);
        if (!s->arg)
            return ENG_E_NOMEM;
        if ((rc = analyze_expr(a, t, fn->items[0], s->arg, &arg_name)))
            return rc;
        if (s->arg->has_agg)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "aggregate functions cannot be used as arguments of aggregate "
                              "functions");
        s->col = s->arg->kind == SEL_COLUMN ? s->arg->col : -1;
        int k = s->arg->type->kind;
        int numeric = k == ENG_TINYINT || k == ENG_SMALLINT || k == ENG_INT || k == ENG_BIGINT ||
                      k == ENG_VARINT || k == ENG_DECIMAL || k == ENG_FLOAT || k == ENG_DOUBLE ||
                      k == ENG_COUNTER;
        if ((agg == AGG_SUM || agg == AGG_AVG) && !numeric) {
            eng_buf tb = ENG_BUF_INIT;
            eng_type_to_cql(s->arg->type, &tb);
            rc = eng_errorf(a->err, ENG_E_INVALID,
                            "Invalid call to function %s, none of its type signatures match "
                            "(argument %s of type %s)",
                            f, arg_name, eng_buf_cstr(&tb) ? (char *)tb.p : "?");
            eng_buf_free(&tb);
            return rc;
        }
        s->kind = SEL_AGG;
        s->agg = agg;
        s->has_agg = 1;
        s->type = agg == AGG_COUNT ? &bigint_type : s->arg->type;
        char buf[300];
        snprintf(buf, sizeof buf, "system.%s(%%s)", f);
        *name = name_of(a, buf, arg_name);
        return 0;
    }
    return eng_errorf(a->err, ENG_E_INVALID, "Unknown function '%s'", f);
}

/* A scalar function applied to a selector: system.name(arg). */
static int analyze_scalar(cql_analysis *a, const eng_table *t, const cql_term *fn, selector *sel,
                          const char **name)
{
    if (fn->n_items > 1)
        return eng_errorf(a->err, ENG_E_INVALID, "Invalid number of arguments in call to function "
                                                 "system.%s",
                          fn->name);
    const char *arg_name = "";
    int arg_kind = 0;
    if (fn->n_items) {
        sel->arg = cql_plan_zalloc(a, sizeof *sel->arg);
        if (!sel->arg)
            return ENG_E_NOMEM;
        int rc = analyze_expr(a, t, fn->items[0], sel->arg, &arg_name);
        if (rc)
            return rc;
        arg_kind = sel->arg->type->kind;
    }
    int rc;
    if (!strcasecmp(fn->name, "fromjson"))
        return eng_errorf(a->err, ENG_E_INVALID,
                          "fromJson() cannot be used in the selection clause of a SELECT statement");
    if (!strcasecmp(fn->name, "tojson")) {
        if (!sel->arg)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "toJson() requires exactly 1 argument, but 0 were provided");
        sel->kind = SEL_TOJSON;
        sel->fn.name = "tojson";
        sel->type = cql_scalar_type(ENG_TEXT);
    } else if ((rc = cql_fn_find(fn->name, fn->n_items, arg_kind, &sel->fn, a->err))) {
        return rc;
    } else {
        sel->kind = SEL_FN;
        sel->type = cql_scalar_type(sel->fn.ret_kind);
    }
    sel->has_agg = sel->arg && sel->arg->has_agg;
    char buf[600];
    snprintf(buf, sizeof buf, "system.%s(%s)", sel->fn.name, arg_name);
    for (char *c = buf; *c && c < buf + 7 + strlen(sel->fn.name); c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c + 32);
    *name = cql_plan_strdup(a->plan, buf);
    return *name ? 0 : eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
}

/* CAST(x AS type): a cast to the argument's own type is the argument itself (CastFcts). */
static int analyze_cast(cql_analysis *a, const eng_table *t, const cql_term *term, selector *sel,
                        const char **name)
{
    const char *arg_name;
    selector *arg = cql_plan_zalloc(a, sizeof *arg);
    if (!arg)
        return ENG_E_NOMEM;
    int rc = analyze_expr(a, t, term->items[0], arg, &arg_name);
    if (rc)
        return rc;
    const char *tn = term->type ? term->type->name : "";
    int to = eng_kind_from_name(tn, strlen(tn));
    int from = arg->type->kind;
    if (to < 0 || !cql_cast_allowed(from, to))
        return eng_errorf(a->err, ENG_E_INVALID, "%s cannot be cast to %s",
                          eng_kind_name(from) ? eng_kind_name(from) : "value", tn);
    if (to == from) {
        *sel = *arg;
        *name = arg_name;
        return 0;
    }
    sel->kind = SEL_CAST;
    sel->arg = arg;
    sel->has_agg = arg->has_agg;
    sel->cast_to = to;
    sel->type = cql_scalar_type(to == ENG_ASCII ? ENG_TEXT : to);
    if (to == ENG_ASCII)
        sel->type = cql_scalar_type(ENG_ASCII);
    char buf[600];
    snprintf(buf, sizeof buf, "cast(%s as %s)", arg_name, eng_kind_name(to));
    *name = cql_plan_strdup(a->plan, buf);
    return *name ? 0 : eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
}

/* u.f: a field of a user type value (Selectable.WithFieldSelection). */
static int analyze_field(cql_analysis *a, const eng_table *t, const cql_term *term, selector *sel,
                         const char **name)
{
    const char *arg_name;
    selector *arg = cql_plan_zalloc(a, sizeof *arg);
    if (!arg)
        return ENG_E_NOMEM;
    int rc = analyze_expr(a, t, term->items[0], arg, &arg_name);
    if (rc)
        return rc;
    const eng_type *ut = arg->type;
    int field = -1;
    for (int i = 0; ut->kind == ENG_UDT && i < ut->n_sub && field < 0; i++)
        if (!strcmp(ut->fields[i], term->text))
            field = i;
    if (field < 0) {
        eng_buf tb = ENG_BUF_INIT;
        eng_type_to_cql(ut, &tb);
        const char *tn = eng_buf_cstr(&tb) ? (char *)tb.p : "?";
        if (ut->kind != ENG_UDT)
            rc = eng_errorf(a->err, ENG_E_INVALID,
                            "Invalid field selection: %s of type %s is not a user type", arg_name,
                            tn);
        else
            rc = eng_errorf(a->err, ENG_E_INVALID, "%s of type %s has no field %s", arg_name, tn,
                            term->text);
        eng_buf_free(&tb);
        return rc;
    }
    sel->kind = SEL_FIELD;
    sel->arg = arg;
    sel->cast_to = field;
    sel->type = ut->sub[field];
    sel->has_agg = arg->has_agg;
    char buf[600];
    snprintf(buf, sizeof buf, "%s.%s", arg_name, ut->fields[field]);
    *name = cql_plan_strdup(a->plan, buf);
    return *name ? 0 : eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
}

/* The term's text (Term.Raw.getText) in the plan's arena; a bind marker is "?". */
static const char *term_name(cql_analysis *a, const cql_term *term)
{
    if (!term)
        return "";
    if (term->kind == CQL_T_BIND)
        return "?";
    eng_buf b = ENG_BUF_INIT;
    cql_term_text(term, &b);
    const char *r = eng_buf_cstr(&b) ? cql_plan_strdup(a->plan, (char *)b.p) : NULL;
    eng_buf_free(&b);
    return r;
}

/*
 * c[key] and c[from..to] (Selectable.WithElementSelection / WithSliceSelection): on sets and
 * maps, frozen or not; the key, or each bound, is of the element (set) or key (map) type.
 */
static int analyze_subscript(cql_analysis *a, const eng_table *t, const cql_term *term,
                             selector *sel, const char **name)
{
    int slice = term->kind == CQL_T_SLICE;
    const char *arg_name;
    selector *arg = cql_plan_zalloc(a, sizeof *arg);
    if (!arg)
        return ENG_E_NOMEM;
    int rc = analyze_expr(a, t, term->items[0], arg, &arg_name);
    if (rc)
        return rc;
    const eng_type *ct = arg->type;
    if (!eng_type_is_collection(ct)) {
        eng_buf tb = ENG_BUF_INIT;
        eng_type_to_cql(ct, &tb);
        const char *tn = eng_buf_cstr(&tb) ? (char *)tb.p : "?";
        rc = slice ? eng_errorf(a->err, ENG_E_INVALID,
                                "Invalid slice selection: %s of type %s is not a collection",
                                arg_name, tn)
                   : eng_errorf(a->err, ENG_E_INVALID,
                                "Invalid element selection: %s is of type %s is not a collection",
                                arg_name, tn);
        eng_buf_free(&tb);
        return rc;
    }
    if (ct->kind == ENG_LIST)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "%s selection is only allowed on sets and maps, but %s is a list",
                          slice ? "Slice" : "Element", arg_name);
    const eng_type *kt = ct->sub[0];
    char receiver[300];
    snprintf(receiver, sizeof receiver, ct->kind == ENG_MAP ? "key(%s)" : "value(%s)", arg_name);
    const char *parts[2] = {"", ""};
    for (int i = 0; i < (slice ? 2 : 1); i++) {
        const cql_term *k = term->items[1 + i];
        sel->terms[i] = k;
        if (!k)
            continue;
        if ((rc = cql_bind_term(a, k, kt, t->ks, t->name, receiver)))
            return rc;
        if (!(parts[i] = term_name(a, k)))
            return ENG_E_NOMEM;
    }
    sel->kind = slice ? SEL_SLICE : SEL_ELEMENT;
    sel->arg = arg;
    sel->has_agg = arg->has_agg;
    sel->term_type = kt;
    sel->arg_name = arg_name;
    sel->type = slice ? ct : ct->kind == ENG_MAP ? ct->sub[1] : ct->sub[0];
    eng_buf b = ENG_BUF_INIT;
    if (slice)
        eng_buf_printf(&b, "%s[%s..%s]", arg_name, parts[0], parts[1]);
    else
        eng_buf_printf(&b, "%s[%s]", arg_name, parts[0]);
    *name = eng_buf_cstr(&b) ? cql_plan_strdup(a->plan, (char *)b.p) : NULL;
    eng_buf_free(&b);
    return *name ? 0 : eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
}

/* A literal, bind marker or collection of them: a term whose value a selector may be. */
static int is_value_term(const cql_term *t, int depth)
{
    if (!t || depth > 64)
        return 0;
    switch (t->kind) {
    case CQL_T_NULL: case CQL_T_INTEGER: case CQL_T_FLOAT: case CQL_T_STRING:
    case CQL_T_BOOLEAN: case CQL_T_UUID: case CQL_T_HEX: case CQL_T_DURATION: case CQL_T_BIND:
        return 1;
    case CQL_T_LIST: case CQL_T_SET: case CQL_T_MAP: case CQL_T_TUPLE: case CQL_T_UDT:
    case CQL_T_HINT:
        for (int i = 0; i < t->n_items; i++)
            if (!is_value_term(t->items[i], depth + 1))
                return 0;
        return 1;
    default:
        return 0;
    }
}

/*
 * (type) x (Selectable.WithTypeHint): over a literal or bind marker, a constant of that type
 * (TermSelector), named "(type)text"; over another selector, that selector when its type is
 * the hint's.
 */
static int analyze_hint(cql_analysis *a, const eng_table *t, const cql_term *term, selector *sel,
                        const char **name)
{
    eng_type *ty = NULL;
    int rc = cql_resolve_type(a, term->type, t->ks, &ty);
    if (rc)
        return rc;
    if (ty->kind == ENG_LIST || ty->kind == ENG_SET || ty->kind == ENG_MAP || ty->kind == ENG_UDT)
        ty->frozen = 1; /* the hint's type is frozen when it can be */
    const eng_type *type = cql_plan_keep_type(a->plan, ty);
    if (!type)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    eng_buf b = ENG_BUF_INIT, tb = ENG_BUF_INIT, yb = ENG_BUF_INIT;
    eng_type_to_cql(type, &yb);
    const char *tn = eng_buf_cstr(&yb) ? (char *)yb.p : "";
    cql_term hint = *term;
    hint.n_items = 0;
    cql_term_text(&hint, &tb); /* "(type)" as written, normalized */
    const cql_term *inner = term->items[0];
    const char *inner_name = NULL;
    if (is_value_term(inner, 0)) {
        if (inner->kind != CQL_T_BIND &&
            cql_term_test_assignment(inner, type) == CQL_NOT_ASSIGNABLE) {
            eng_buf vb = ENG_BUF_INIT;
            cql_term_text(term, &vb);
            const char *v = eng_buf_cstr(&vb) ? (char *)vb.p : "";
            rc = eng_errorf(a->err, ENG_E_INVALID, "Cannot assign value %s to %s of type %s", v,
                            v, tn);
            eng_buf_free(&vb);
        } else {
            rc = cql_bind_term(a, inner, type, t->ks, t->name, "[selection]");
        }
        if (!rc && !(inner_name = term_name(a, inner)))
            rc = ENG_E_NOMEM;
        sel->kind = SEL_TERM;
        sel->terms[0] = inner;
        sel->term_type = type;
        sel->type = type;
    } else {
        if (!(rc = analyze_expr(a, t, inner, sel, &inner_name)) &&
            !eng_type_equal(sel->type, type)) {
            eng_buf vb = ENG_BUF_INIT;
            cql_term_text(term, &vb);
            const char *v = eng_buf_cstr(&vb) ? (char *)vb.p : "";
            rc = eng_errorf(a->err, ENG_E_INVALID, "Cannot assign value %s to %s of type %s", v,
                            v, tn);
            eng_buf_free(&vb);
        }
        sel->type = type;
    }
    if (!rc) {
        int wrap = sel->kind == SEL_OP && sel->cast_to != CQL_OP_NEG; /* (int)((a + b) / c) */
        eng_buf_printf(&b, wrap ? "%s(%s)" : "%s%s", eng_buf_cstr(&tb) ? (char *)tb.p : "",
                       inner_name);
        *name = eng_buf_cstr(&b) ? cql_plan_strdup(a->plan, (char *)b.p) : NULL;
        if (!*name)
            rc = eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    }
    eng_buf_free(&tb);
    eng_buf_free(&yb);
    eng_buf_free(&b);
    return rc;
}

static int analyze_operation(cql_analysis *a, const eng_table *t, const cql_term *term,
                             selector *sel, const char **name);

static int analyze_expr(cql_analysis *a, const eng_table *t, const cql_term *term, selector *sel,
                        const char **name)
{
    int rc;
    if (cql_arith_op(term))
        return analyze_operation(a, t, term, sel, name);
    switch (term->kind) {
    case CQL_T_COLUMN:
        sel->kind = SEL_COLUMN;
        if ((rc = cql_resolve_column(a, t, term->text, &sel->col)))
            return rc;
        sel->type = t->cols[sel->col].type;
        *name = t->cols[sel->col].name;
        return 0;
    case CQL_T_FUNCTION: {
        const char *f = term->name;
        if (!strcmp(f, "writetime") || !strcmp(f, "ttl") || !strcmp(f, "token") || agg_of(f))
            return analyze_function_selector(a, t, term, sel, name);
        return analyze_scalar(a, t, term, sel, name);
    }
    case CQL_T_CAST:
        return analyze_cast(a, t, term, sel, name);
    case CQL_T_FIELD:
        return analyze_field(a, t, term, sel, name);
    case CQL_T_ELEMENT:
    case CQL_T_SLICE:
        return analyze_subscript(a, t, term, sel, name);
    case CQL_T_HINT:
        return analyze_hint(a, t, term, sel, name);
    default:
        if (is_value_term(term, 0)) {
            const char *v = term_name(a, term);
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Cannot infer type for term %s in selection clause (try using a "
                              "cast to force a type)",
                              v ? v : "");
        }
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported selector in SELECT");
    }
}

/* An operand of an operator: a selector, or a literal (with or without a type hint), typed as
   Cassandra prefers it (int, bigint or varint; double or decimal) or as hinted. */
static int analyze_operand(cql_analysis *a, const eng_table *t, const cql_term *term,
                           selector *sel, const char **name)
{
    const cql_term *lit = term;
    int kind;
    if (term->kind == CQL_T_HINT && term->n_items == 1) {
        const char *n = term->type && term->type->name ? term->type->name : "";
        lit = term->items[0];
        kind = eng_kind_from_name(n, strlen(n));
    } else {
        kind = cql_arith_literal_kind(term);
    }
    if (!cql_arith_literal_kind(lit) || !cql_scalar_type(kind))
        return analyze_expr(a, t, term, sel, name);
    eng_buf b = ENG_BUF_INIT;
    int state, rc = cql_term_value(lit, cql_scalar_type(kind), "value", NULL, &b, &state, a->err);
    if (!rc) {
        sel->kind = SEL_CONST;
        sel->type = cql_scalar_type(kind);
        sel->value = (eng_val){eng_arena_memdup(&a->plan->arena, b.p ? b.p : (const uint8_t *)"",
                                                b.len + 1),
                               state == CQL_VALUE ? (int32_t)b.len : ENG_NULL};
        *name = lit->text;
        if (lit != term) { /* (type)1, as TypeCast's text */
            eng_buf nb = ENG_BUF_INIT;
            cql_term hint = *term;
            hint.n_items = 0;
            cql_term_text(&hint, &nb);
            eng_buf_printf(&nb, "%s", lit->text ? lit->text : "");
            *name = eng_buf_cstr(&nb) ? cql_plan_strdup(a->plan, (char *)nb.p) : NULL;
            eng_buf_free(&nb);
            if (!*name)
                rc = eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
        }
        if (!rc && !sel->value.p)
            rc = eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    }
    eng_buf_free(&b);
    return rc;
}

static int op_precedence(const selector *s)
{
    if (s->kind != SEL_OP)
        return 4;
    if (s->cast_to == CQL_OP_NEG)
        return 3;
    return s->cast_to == CQL_OP_ADD || s->cast_to == CQL_OP_SUB ? 1 : 2;
}

/* a + b, -a, ...: named "a + b" (OperationFcts.columnName), parentheses kept where needed. */
static int analyze_operation(cql_analysis *a, const eng_table *t, const cql_term *term,
                             selector *sel, const char **name)
{
    int op = cql_arith_op(term), rc;
    const char *names[2] = {"", ""};
    selector *args[2] = {NULL, NULL};
    for (int i = 0; i < term->n_items && i < 2; i++) {
        if (!(args[i] = cql_plan_zalloc(a, sizeof *args[i])))
            return ENG_E_NOMEM;
        if ((rc = analyze_operand(a, t, cql_arith_operand(term, i), args[i], &names[i])))
            return rc;
        if (args[i]->kind == SEL_TERM)
            return eng_errorf(a->err, ENG_E_INVALID, "Unsupported selector in SELECT");
        sel->has_agg |= args[i]->has_agg; /* max(c) + 1: applied to the aggregated values */
    }
    int lk = args[0]->type->kind, rk = args[1] ? args[1]->type->kind : 0;
    int ret = cql_arith_result(op, lk, rk);
    if (!ret) {
        if (op == CQL_OP_NEG)
            return eng_errorf(a->err, ENG_E_INVALID, "the '-' operation is not supported on %s",
                              names[0]);
        return eng_errorf(a->err, ENG_E_INVALID,
                          "the '%c' operation is not supported between %s and %s",
                          cql_arith_symbol(op), names[0], names[1]);
    }
    sel->kind = SEL_OP;
    sel->cast_to = op;
    sel->arg = args[0];
    sel->arg2 = args[1];
    sel->type = cql_scalar_type(ret);
    int prec = op_precedence(sel);
    char buf[600];
    if (op == CQL_OP_NEG) {
        snprintf(buf, sizeof buf, op_precedence(args[0]) < 3 ? "-(%s)" : "-%s", names[0]);
    } else {
        int pl = op_precedence(args[0]) < prec, pr = op_precedence(args[1]) <= prec;
        snprintf(buf, sizeof buf, "%s%s%s %c %s%s%s", pl ? "(" : "", names[0], pl ? ")" : "",
                 cql_arith_symbol(op), pr ? "(" : "", names[1], pr ? ")" : "");
    }
    *name = cql_plan_strdup(a->plan, buf);
    return *name ? 0 : eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
}

/* Numbers a selector and those inside it: an aggregate query keeps an agg_state for each. */
static void assign_slots(selector *sel, int *n)
{
    sel->slot = (*n)++;
    if (sel->arg)
        assign_slots(sel->arg, n);
    if (sel->arg2)
        assign_slots(sel->arg2, n);
}

static int analyze_selection(cql_analysis *a, select_plan *sp, const cql_select *s)
{
    const eng_table *t = sp->t;
    int n = s->star ? (int)t->n_cols : s->n_sels;
    sp->sels = cql_plan_zalloc(a, (size_t)n * sizeof *sp->sels);
    sp->names = cql_plan_zalloc(a, (size_t)n * sizeof *sp->names);
    sp->types = cql_plan_zalloc(a, (size_t)n * sizeof *sp->types);
    cql_column_spec *cols = cql_plan_zalloc(a, (size_t)n * sizeof *cols);
    if (!sp->sels || !cols || !sp->names || !sp->types)
        return ENG_E_NOMEM;
    int aggregates = 0;
    for (int i = 0; i < n; i++) {
        selector *sel = &sp->sels[i];
        const char *name = NULL;
        int rc = 0;
        if (s->star) {
            sel->kind = SEL_COLUMN;
            sel->col = i;
            sel->type = t->cols[i].type;
            name = t->cols[i].name;
        } else {
            rc = analyze_expr(a, t, s->sels[i].term, sel, &name);
        }
        if (rc)
            return rc;
        if (!s->star && s->sels[i].alias)
            name = s->sels[i].alias;
        aggregates += sel->has_agg;
        assign_slots(sel, &sp->n_slots);
        cols[i] = (cql_column_spec){t->ks, t->name, name, sel->type};
        sp->names[i] = name;
        sp->types[i] = sel->type;
    }
    sp->n_sels = n;
    sp->aggregate = aggregates > 0;
    if (s->json) {
        static const eng_type text = {.kind = ENG_TEXT};
        cols = cql_plan_zalloc(a, sizeof *cols);
        if (!cols)
            return ENG_E_NOMEM;
        cols[0] = (cql_column_spec){t->ks, t->name, "[json]", &text};
        n = 1;
        sp->json = 1;
    }
    a->plan->cols = cols;
    a->plan->n_cols = (uint32_t)n;
    return 0;
}

/*
 * Whether a key column is restricted to one value: = v, an IN of one value (Cassandra makes it
 * an EQ), or a tuple = / IN of one tuple covering it (isColumnRestrictedByEq). IN (a, b) and
 * IN ? are not.
 */
static int restricted_to_one(const cql_restrictions *r, int col)
{
    const cql_key_restriction *k = &r->keys[col];
    if (k->given == CQL_RESTRICT_EQ && k->n == 1 && !k->in_marker)
        return 1;
    return r->n_multi_eq == 1 && !r->multi_in_marker && col >= r->multi_first &&
           col < r->multi_first + r->multi_n;
}

static int analyze_order(cql_analysis *a, select_plan *sp, const cql_select *s)
{
    const eng_table *t = sp->t;
    if (!s->n_order_by)
        return 0;
    if (!sp->r.has_pk)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "ORDER BY is only supported when the partition key is restricted by an "
                          "EQ or an IN.");
    int reversed = -1, next = t->n_pk;
    sp->order_cols = cql_plan_zalloc(a, (size_t)s->n_order_by * sizeof *sp->order_cols);
    if (!sp->order_cols)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    for (int i = 0; i < s->n_order_by; i++) {
        int col;
        int rc = cql_resolve_column(a, t, s->order_by[i].col, &col);
        if (rc)
            return rc;
        sp->order_cols[sp->n_order++] = col;
        if (t->cols[col].kind != ENG_COL_CLUSTERING)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Order by is currently only supported on the clustered columns of "
                              "the PRIMARY KEY, got %s",
                              t->cols[col].name);
        while (next < col && restricted_to_one(&sp->r, next))
            next++;
        if (col != next)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Order by currently only supports the ordering of columns following "
                              "their declared order in the PRIMARY KEY");
        next++;
        int r = s->order_by[i].desc != t->cols[col].desc;
        if (reversed >= 0 && r != reversed)
            return eng_errorf(a->err, ENG_E_INVALID, "Unsupported order by relation");
        reversed = r;
    }
    sp->reversed = reversed > 0;
    for (int i = 0; i < t->n_pk; i++)
        if (sp->r.keys[i].n > 1 || sp->r.keys[i].in_marker)
            sp->order_with_in = 1;
    return 0;
}

/* GROUP BY: a prefix of the primary key, columns restricted by = may be skipped. */
static int analyze_group_by(cql_analysis *a, select_plan *sp, const cql_select *s)
{
    const eng_table *t = sp->t;
    if (!s->n_group_by)
        return 0;
    int next = 0;
    for (int i = 0; i < s->n_group_by; i++) {
        int col;
        int rc = cql_resolve_column(a, t, s->group_by[i], &col);
        if (rc)
            return rc;
        if (col >= t->n_pk + t->n_ck)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Group by is currently only supported on the columns of the PRIMARY "
                              "KEY, got %s",
                              t->cols[col].name);
        while (next < col && sp->r.keys[next].given == CQL_RESTRICT_EQ &&
               sp->r.keys[next].n == 1 && !sp->r.keys[next].in_marker)
            next++;
        if (col != next)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Group by currently only support groups of columns following their "
                              "declared order in the PRIMARY KEY");
        next++;
    }
    if (next < t->n_pk && !sp->r.has_pk)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Group by is not supported on only a part of the partition key");
    if (next > t->n_pk && s->distinct)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Grouping on clustering columns is not allowed for SELECT DISTINCT "
                          "queries");
    sp->group_n = next;
    sp->aggregate = 1; /* rows of a group fold into one */
    return 0;
}

static int analyze_distinct(cql_analysis *a, select_plan *sp, const cql_select *s)
{
    const eng_table *t = sp->t;
    if (!s->distinct)
        return 0;
    for (int i = t->n_pk; i < t->n_pk + t->n_ck; i++)
        if (sp->r.keys[i].given)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "SELECT DISTINCT with WHERE clause only supports restriction by "
                              "partition key and/or static columns.");
    for (int i = 0; i < sp->r.n_filters; i++)
        if (t->cols[sp->r.filters[i].col].kind != ENG_COL_STATIC &&
            t->cols[sp->r.filters[i].col].kind != ENG_COL_PARTITION)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "SELECT DISTINCT with WHERE clause only supports restriction by "
                              "partition key and/or static columns.");
    if (s->per_partition_limit)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries");
    int pk_selected = 0;
    for (int i = 0; i < sp->n_sels; i++) {
        const selector *sel = &sp->sels[i];
        if (sel->kind != SEL_COLUMN && sel->kind != SEL_COUNT_ROWS)
            continue;
        if (sel->kind == SEL_COUNT_ROWS)
            continue;
        const eng_column *c = &t->cols[sel->col];
        if (c->kind != ENG_COL_PARTITION && c->kind != ENG_COL_STATIC)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "SELECT DISTINCT queries must only request partition key columns "
                              "and/or static columns (not %s)",
                              c->name);
        pk_selected += c->kind == ENG_COL_PARTITION;
    }
    if (!sp->r.has_pk && pk_selected < t->n_pk)
        for (int i = 0; i < t->n_pk; i++) {
            int found = 0;
            for (int j = 0; j < sp->n_sels; j++)
                found |= sp->sels[j].kind == SEL_COLUMN && sp->sels[j].col == i;
            if (!found)
                return eng_errorf(a->err, ENG_E_INVALID,
                                  "SELECT DISTINCT queries must request all the partition key "
                                  "columns (missing %s)",
                                  t->cols[i].name);
        }
    sp->distinct = 1;
    return 0;
}

/* Marks the non-key columns a selector reads (Selector.addFetchedColumns). */
static void mark_queried(const eng_table *t, const selector *s, uint8_t *queried)
{
    if ((s->kind == SEL_COLUMN || s->kind == SEL_WRITETIME || s->kind == SEL_TTL) &&
        t->cols[s->col].kind != ENG_COL_PARTITION && t->cols[s->col].kind != ENG_COL_CLUSTERING)
        queried[s->col] = 1;
    if (s->arg)
        mark_queried(t, s->arg, queried);
}

/*
 * The static columns a static-only partition must have data in to yield a row. Cassandra reads
 * a partition with a ColumnFilter of the queried non-key columns (selected, or restricted), then
 * keeps only their data (Row.withOnlyQueriedData): a static row left empty yields nothing
 * (SelectStatement.processPartition). With no non-key column queried, all are (ColumnFilter
 * Builder.build: a WildCardColumnFilter).
 */
static int analyze_queried_statics(cql_analysis *a, select_plan *sp, const cql_select *s)
{
    const eng_table *t = sp->t;
    uint8_t *queried = cql_plan_zalloc(a, t->n_cols);
    sp->statics_queried = cql_plan_zalloc(a, (size_t)t->n_cols * sizeof *sp->statics_queried);
    if (!queried || !sp->statics_queried)
        return ENG_E_NOMEM;
    if (s->star) {
        sp->statics_queried_all = 1;
        return 0;
    }
    for (int i = 0; i < sp->n_sels; i++)
        mark_queried(t, &sp->sels[i], queried);
    for (int i = 0; i < sp->r.n_filters; i++)
        queried[sp->r.filters[i].col] = 1;
    int any = 0;
    for (uint16_t i = 0; i < t->n_cols; i++) {
        any |= queried[i];
        if (queried[i] && t->cols[i].kind == ENG_COL_STATIC)
            sp->statics_queried[sp->n_statics_queried++] = i;
    }
    sp->statics_queried_all = !any;
    return 0;
}

int cql_analyze_select(cql_analysis *a)
{
    const cql_select *s = &a->stmt->u.select;
    const eng_table *t;
    int rc = cql_resolve_table(a, &s->table, &t);
    if (rc)
        return rc;
    select_plan *sp = cql_plan_zalloc(a, sizeof *sp);
    if (!sp)
        return ENG_E_NOMEM;
    sp->t = t;
    if ((rc = cql_restrict_init(a, &sp->r, t, CQL_S_SELECT)))
        return rc;
    a->plan->table = t;
    if ((rc = analyze_selection(a, sp, s)) ||
        (rc = cql_restrict_where(a, &sp->r, s->where, s->n_where, s->allow_filtering)) ||
        (rc = analyze_order(a, sp, s)) || (rc = analyze_distinct(a, sp, s)) ||
        (rc = analyze_group_by(a, sp, s)) || (rc = analyze_queried_statics(a, sp, s)))
        return rc;
    sp->limit = s->limit;
    sp->ppl = s->per_partition_limit;
    if (sp->ppl && sp->aggregate && !sp->group_n)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "PER PARTITION LIMIT is not allowed with aggregate queries.");
    if (s->limit && (rc = cql_bind_term(a, s->limit, &int_type, t->ks, t->name, "[limit]")))
        return rc;
    if (s->per_partition_limit &&
        (rc = cql_bind_term(a, s->per_partition_limit, &int_type, t->ks, t->name,
                            "[per_partition_limit]")))
        return rc;
    a->plan->detail = sp;
    return 0;
}

/* ---- execution ---- */

typedef struct agg_state {
    int64_t count;
    eng_buf best;        /* min / max: the value so far; a plain column: its first value */
    int has_best;
    int is_null;         /* a plain column's first value was null */
    double sum_d;        /* sum / avg of float and double */
    __int128 sum_i;      /* sum / avg of integers; of decimals, the unscaled sum at sum_scale */
    int32_t sum_scale;   /* decimals: the largest scale seen (BigDecimal.add keeps it) */
    int overflow;        /* a varint or decimal beyond 127 bits */
} agg_state;

typedef struct select_run {
    cql_exec *x;
    const select_plan *sp;
    eng_val *mixed_lo, *mixed_hi; /* multi-column bounds checked per row (mixed directions) */
    eng_val *filter_vals;
    cql_key_values *filter_lists; /* IN filters */
    eng_val *filter_keys;         /* map entry filters m[k] = v: each one's key */
    eng_val *term_vals;           /* two per selector slot: its terms' values (selector.terms) */
    agg_state *aggs;
    uint32_t rows;
    int64_t now_s;
    eng_buf group_key;      /* GROUP BY: the current group's key values */
    int group_rows;         /* rows folded into the current group */
    uint32_t limit;         /* GROUP BY: LIMIT counts groups (those it still allows) */
    uint32_t page_groups;   /* GROUP BY, paged: the groups of a page (the user's page size
                               counts groups: AggregationQueryPager), 0 unpaged */
    uint32_t ppl;           /* GROUP BY: PER PARTITION LIMIT counts groups too (GroupByLimits) */
    uint32_t part_groups;   /* groups begun in the current partition */
    eng_buf group_pk;       /* the current partition's key values */
    /* Post-query ordering (ORDER BY with IN on several partitions, unpaged): every result row
       remembers the values of the ORDER BY columns it came from, and the rows are sorted once
       the read ends (SelectStatement.orderResults). */
    int post_order;
    eng_buf order_keys;     /* per result row: [int len][bytes] for each ORDER BY column */
    eng_buf order_rows;     /* per result row: an order_entry */
    eng_buf group_order;    /* GROUP BY: the ordering values of the current group's first row */
} select_run;

/* Where a result row's bytes and ordering values lie, and its place in read order. */
typedef struct order_entry {
    size_t key_off, key_len;
    size_t row_off, row_len;
    uint32_t seq;
} order_entry;

static int is_integer_kind(int k)
{
    return k == ENG_INT || k == ENG_BIGINT || k == ENG_SMALLINT || k == ENG_TINYINT ||
           k == ENG_COUNTER || k == ENG_VARINT;
}

static int64_t int_value(const eng_val *v)
{
    int64_t n = 0;
    if (v->len > 0 && v->len <= 8) {
        n = (int8_t)v->p[0];
        for (int32_t i = 1; i < v->len; i++)
            n = (int64_t)((uint64_t)n << 8 | v->p[i]);
    }
    return n;
}

static double float_value(int kind, const eng_val *v)
{
    if (kind == ENG_FLOAT && v->len == 4) {
        uint32_t u = eng_be32(v->p);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    if (v->len == 8) {
        uint64_t u = eng_be64(v->p);
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    return 0;
}

/* The key of a map entry filter m[k] = v (RowFilter.MapEqualityExpression.validate). */
static int map_entry_key(cql_exec *x, const eng_table *t, const cql_filter *f, eng_val *out)
{
    const eng_column *c = &t->cols[f->col];
    int rc = cql_eval_val(x, f->key, c->type->sub[0], c->name, out);
    if (rc)
        return rc;
    if (out->len < 0)
        return eng_errorf(x->err, ENG_E_INVALID, "Unsupported %s map key for column %s",
                          out->len == ENG_NULL ? "null" : "unset", c->name);
    return 0;
}

/* 1 if the row's value satisfies the filter. */
static int filter_holds(const cql_filter *f, const eng_type *col_type, eng_val v, eng_val want)
{
    if (v.len < 0 || want.len < 0)
        return 0;
    if (f->op == CQL_OP_CONTAINS || f->op == CQL_OP_CONTAINS_KEY) {
        eng_items it;
        if (eng_items_begin(&it, v.p, (size_t)v.len) < 0)
            return 0;
        eng_val e, val;
        while (eng_items_next(&it, &e) == 1) {
            if (col_type->kind == ENG_MAP && eng_items_next(&it, &val) != 1)
                return 0;
            eng_val cand = (col_type->kind == ENG_MAP && f->op == CQL_OP_CONTAINS) ? val : e;
            if (cand.len >= 0 && eng_type_compare(f->type, cand.p, (size_t)cand.len, want.p,
                                                  (size_t)want.len) == 0)
                return 1;
        }
        return 0;
    }
    int c = eng_type_compare(f->type, v.p, (size_t)v.len, want.p, (size_t)want.len);
    switch (f->op) {
    case CQL_OP_EQ: return c == 0;
    case CQL_OP_LT: return c < 0;
    case CQL_OP_LE: return c <= 0;
    case CQL_OP_GT: return c > 0;
    case CQL_OP_GE: return c >= 0;
    default: return 0;
    }
}

static int passes_filters(select_run *r, const eng_row_view *v)
{
    const select_plan *sp = r->sp;
    for (int i = 0; i < sp->r.n_filters; i++) {
        const cql_filter *f = &sp->r.filters[i];
        eng_val val;
        if (eng_view_column(v, (uint16_t)f->col, &val, NULL, NULL, r->x->err))
            return -1;
        const eng_type *ct = sp->t->cols[f->col].type;
        if (f->key) { /* m[k] = v: the map holds k, with the value v */
            eng_val want = r->filter_keys[i], e, ev = {NULL, ENG_NULL};
            eng_items it;
            int found = 0;
            if (val.len >= 0 && eng_items_begin(&it, val.p, (size_t)val.len) >= 0)
                while (!found && eng_items_next(&it, &e) == 1 && eng_items_next(&it, &ev) == 1)
                    found = e.len >= 0 &&
                            eng_type_compare(ct->sub[0], e.p, (size_t)e.len, want.p,
                                             (size_t)want.len) == 0;
            if (!found || !filter_holds(f, ct, ev, r->filter_vals[i]))
                return 0;
            continue;
        }
        if (f->op != CQL_OP_IN) {
            if (!filter_holds(f, ct, val, r->filter_vals[i]))
                return 0;
            continue;
        }
        int any = 0;
        cql_filter eq = *f;
        eq.op = CQL_OP_EQ;
        const cql_key_values *l = &r->filter_lists[i];
        for (int j = 0; j < l->n && !any; j++)
            any = filter_holds(&eq, ct, val, l->vals[j]);
        if (!any)
            return 0;
    }
    return 1;
}

/* A two's complement big-endian integer of up to 16 bytes; -1 if wider. */
static int read_big(const uint8_t *p, size_t len, __int128 *out)
{
    while (len > 16 && (p[0] == 0 || p[0] == 0xFF) && ((p[0] ^ p[1]) & 0x80) == 0) {
        p++;
        len--;
    }
    if (len > 16)
        return -1;
    __int128 n = len ? (int8_t)p[0] : 0;
    for (size_t i = 1; i < len; i++)
        n = (__int128)((unsigned __int128)n << 8 | p[i]);
    *out = n;
    return 0;
}

static __int128 pow10_128(int32_t e)
{
    __int128 v = 1;
    while (e-- > 0)
        v *= 10;
    return v;
}

/* Adds a decimal to the running sum, aligning scales (BigDecimal.add keeps the larger). */
static void add_decimal(agg_state *st, const eng_val *v)
{
    __int128 n;
    if (v->len < 4 || read_big(v->p + 4, (size_t)v->len - 4, &n)) {
        st->overflow = 1;
        return;
    }
    int32_t scale = (int32_t)eng_be32(v->p);
    if (scale < 0 || scale > 30 || st->sum_scale > 30) {
        st->overflow = 1;
        return;
    }
    if (scale > st->sum_scale) {
        st->sum_i *= pow10_128(scale - st->sum_scale);
        st->sum_scale = scale;
    } else {
        n *= pow10_128(st->sum_scale - scale);
    }
    st->sum_i += n;
}

/* Minimal two's complement bytes of n. */
static size_t put_big(uint8_t *out, __int128 n)
{
    uint8_t b[16];
    unsigned __int128 u = (unsigned __int128)n;
    for (int i = 15; i >= 0; i--) {
        b[i] = (uint8_t)u;
        u >>= 8;
    }
    int i = 0;
    while (i < 15 && ((b[i] == 0 && !(b[i + 1] & 0x80)) || (b[i] == 0xFF && (b[i + 1] & 0x80))))
        i++;
    memcpy(out, b + i, (size_t)(16 - i));
    return (size_t)(16 - i);
}

/* Division rounding half to even (BigDecimal.divide with RoundingMode.HALF_EVEN). */
static __int128 div_half_even(__int128 a, __int128 b)
{
    __int128 q = a / b, r = a % b;
    __int128 twice = 2 * (r < 0 ? -r : r), ab = b < 0 ? -b : b;
    if (twice > ab || (twice == ab && (q & 1)))
        q += ((a < 0) != (b < 0)) ? -1 : 1;
    return q;
}

static int selected_value(select_run *r, const eng_row_view *v, const selector *s, eng_val *out,
                          uint8_t *scratch);

/*
 * The value a computation left in b (state CQL_VALUE, else null), copied into arena, and b
 * freed: rc, or the error of running out of memory on the way.
 */
static int computed_value(select_run *r, int rc, int state, eng_buf *b, eng_arena *arena,
                          eng_val *out)
{
    if (!rc && b->oom)
        rc = eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
    *out = (eng_val){NULL, ENG_NULL};
    if (!rc && state == CQL_VALUE) {
        out->p = eng_arena_memdup(arena, b->p ? b->p : (const uint8_t *)"", b->len);
        out->len = (int32_t)b->len;
        if (!out->p)
            rc = eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
    }
    eng_buf_free(b);
    return rc;
}

/* The value of the operation s (SEL_OP) on its operands' values lv and rv, in arena. */
static int operation_value(select_run *r, const selector *s, eng_val lv, eng_val rv,
                           eng_arena *arena, eng_val *out)
{
    eng_buf b = ENG_BUF_INIT;
    int state = CQL_VALUE_NULL;
    int rc = cql_arith_apply(s->cast_to, s->arg->type->kind, lv,
                             s->arg2 ? s->arg2->type->kind : 0, rv, s->type->kind, &b, &state,
                             r->x->err);
    return computed_value(r, rc, state, &b, arena, out);
}

/* Folds one row into an aggregate: the argument's value, nulls and empty values skipped. */
static void fold_value(select_run *r, const selector *s, agg_state *st, eng_val val)
{
    if (val.len <= 0)
        return;
    st->count++;
    int kind = s->arg->type->kind;
    if (s->agg == AGG_MIN || s->agg == AGG_MAX) {
        int c = st->has_best ? eng_type_compare(s->type, val.p, (size_t)val.len, st->best.p,
                                                st->best.len)
                             : 0;
        if (!st->has_best || (s->agg == AGG_MIN ? c < 0 : c > 0)) {
            eng_buf_reset(&st->best);
            eng_buf_put(&st->best, val.p, (size_t)val.len);
            st->has_best = 1;
        }
    } else if (s->agg == AGG_COUNT) {
        return;
    } else if (kind == ENG_DECIMAL) {
        add_decimal(st, &val);
    } else if (kind == ENG_VARINT) {
        __int128 n;
        if (read_big(val.p, (size_t)val.len, &n))
            st->overflow = 1;
        else
            st->sum_i += n;
    } else if (kind == ENG_FLOAT || kind == ENG_DOUBLE) {
        st->sum_d += float_value(kind, &val);
    } else if (is_integer_kind(kind)) {
        st->sum_i += int_value(&val);
    }
    (void)r;
}

/*
 * Folds one row into a selector of an aggregate query: aggregates accumulate, a function of an
 * aggregate folds its argument, and anything without an aggregate keeps the group's first row's
 * value (a plain column beside aggregates shows the first row's value, as in Cassandra).
 */
static int aggregate_sel(select_run *r, const eng_row_view *v, const selector *s)
{
    agg_state *st = &r->aggs[s->slot];
    if (!s->has_agg) {
        if (st->has_best)
            return 0;
        eng_val val;
        uint8_t scratch[16];
        st->has_best = 1;
        st->is_null = 1;
        int rc = selected_value(r, v, s, &val, scratch);
        if (rc)
            return rc;
        if (val.len >= 0) {
            eng_buf_put(&st->best, val.p, (size_t)val.len);
            st->is_null = 0;
        }
        return 0;
    }
    if (s->kind == SEL_COUNT_ROWS) {
        st->count++;
        return 0;
    }
    if (s->kind == SEL_AGG) {
        eng_val val;
        uint8_t scratch[16];
        int rc = selected_value(r, v, s->arg, &val, scratch);
        if (!rc)
            fold_value(r, s, st, val);
        return rc;
    }
    int rc = s->arg ? aggregate_sel(r, v, s->arg) : 0;
    return !rc && s->arg2 ? aggregate_sel(r, v, s->arg2) : rc;
}

static int aggregate_row(select_run *r, const eng_row_view *v)
{
    for (int i = 0; i < r->sp->n_sels; i++) {
        int rc = aggregate_sel(r, v, &r->sp->sels[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * c[key] or c[from..to] of a set or map value (ElementsSelector): the element's value (a set's
 * element itself), null when absent; the entries whose keys are within the bounds, both
 * included, an absent bound open; an empty slice is null for a non-frozen collection and empty
 * for a frozen one (CollectionSerializer.getSliceFromSerialized).
 */
static int subscript_value(select_run *r, const selector *s, eng_val arg, eng_arena *arena,
                           eng_val *out)
{
    const eng_type *ct = s->arg->type;
    const eng_val *lo = &r->term_vals[2 * s->slot], *hi = lo + 1;
    int map = ct->kind == ENG_MAP;
    *out = (eng_val){NULL, ENG_NULL};
    eng_items it;
    if (arg.len < 0 || eng_items_begin(&it, arg.p, (size_t)arg.len) < 0)
        return 0;
    if (s->kind == SEL_SLICE && lo->len == ENG_UNSET && hi->len == ENG_UNSET) {
        *out = arg;
        return 0;
    }
    eng_buf b = ENG_BUF_INIT;
    eng_buf_put_be32(&b, 0);
    int32_t count = 0;
    eng_val k, v = {NULL, ENG_NULL};
    while (eng_items_next(&it, &k) == 1) {
        if (map && eng_items_next(&it, &v) != 1)
            break;
        if (k.len < 0)
            continue;
        if (s->kind == SEL_ELEMENT) {
            if (eng_type_compare(s->term_type, k.p, (size_t)k.len, lo->p, (size_t)lo->len) == 0) {
                *out = map ? v : k;
                break;
            }
            continue;
        }
        if ((lo->len != ENG_UNSET &&
             eng_type_compare(s->term_type, k.p, (size_t)k.len, lo->p, (size_t)lo->len) < 0) ||
            (hi->len != ENG_UNSET &&
             eng_type_compare(s->term_type, k.p, (size_t)k.len, hi->p, (size_t)hi->len) > 0))
            continue;
        count++;
        eng_buf_put_be32(&b, (uint32_t)k.len);
        eng_buf_put(&b, k.p, (size_t)k.len);
        if (map) {
            eng_buf_put_be32(&b, (uint32_t)v.len);
            if (v.len > 0)
                eng_buf_put(&b, v.p, (size_t)v.len);
        }
    }
    int rc = 0;
    if (s->kind == SEL_SLICE && (count || ct->frozen)) {
        if (b.oom)
            rc = eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
        else if (!(out->p = eng_arena_memdup(arena, b.p, b.len)))
            rc = eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
        else {
            eng_put_be32((uint8_t *)out->p, (uint32_t)count);
            out->len = (int32_t)b.len;
        }
    }
    eng_buf_free(&b);
    return rc;
}

/* Evaluates the terms of the element, slice and literal selectors of s, once per run. */
static int eval_sel_terms(select_run *r, const selector *s)
{
    for (; s; s = s->arg) {
        if (s->kind != SEL_ELEMENT && s->kind != SEL_SLICE && s->kind != SEL_TERM)
            continue;
        for (int i = 0; i < 2; i++) {
            eng_val *v = &r->term_vals[2 * s->slot + i];
            *v = (eng_val){NULL, ENG_UNSET};
            if (!s->terms[i])
                continue;
            int rc = cql_eval_val(r->x, s->terms[i], s->term_type, "[selection]", v);
            if (rc)
                return rc;
            if (s->kind == SEL_TERM && v->len == ENG_UNSET)
                *v = (eng_val){NULL, ENG_NULL};
            if (s->kind == SEL_ELEMENT && v->len < 0)
                return eng_errorf(r->x->err, ENG_E_INVALID,
                                  "Invalid %s value for element selection on %s",
                                  v->len == ENG_NULL ? "null" : "unset", s->arg_name);
            if (s->kind == SEL_SLICE && v->len == ENG_NULL)
                return eng_errorf(r->x->err, ENG_E_INVALID,
                                  "Invalid null value for slice selection on %s", s->arg_name);
        }
    }
    return 0;
}

/* A scalar selector (function, CAST, toJson) applied to its argument's value; the result lives
   in the arena. */
static int apply_scalar(select_run *r, const selector *s, eng_val arg, eng_arena *arena,
                        eng_val *out)
{
    if (s->kind == SEL_ELEMENT || s->kind == SEL_SLICE)
        return subscript_value(r, s, arg, arena, out);
    if (s->kind == SEL_FIELD) {
        /* the field's [int32 length][bytes] in the value; a missing trailing field is null */
        *out = (eng_val){NULL, ENG_NULL};
        size_t off = 0;
        for (int i = 0; arg.len > 0 && off + 4 <= (size_t)arg.len; i++) {
            int32_t n = (int32_t)eng_be32(arg.p + off);
            off += 4;
            if (n >= 0 && off + (size_t)n > (size_t)arg.len)
                break;
            if (i == s->cast_to) {
                if (n >= 0)
                    *out = (eng_val){arg.p + off, n};
                break;
            }
            off += n > 0 ? (size_t)n : 0;
        }
        return 0;
    }
    eng_buf b = ENG_BUF_INIT;
    int state = CQL_VALUE;
    int rc = 0;
    if (s->kind == SEL_FN) {
        rc = cql_fn_apply(r->x, &s->fn, s->arg ? &arg : NULL, &b, &state);
    } else if (s->kind == SEL_TOJSON) {
        rc = cql_json_to_json(s->arg->type, arg, &b, r->x->err);
    } else if (arg.len <= 0) {
        state = CQL_VALUE_NULL; /* casts of null and empty values are null */
    } else {
        rc = cql_cast_value(s->arg->type, arg, s->cast_to, &b, r->x->err);
    }
    return computed_value(r, rc, state, &b, arena, out);
}

static int selected_value(select_run *r, const eng_row_view *v, const selector *s, eng_val *out,
                          uint8_t *scratch)
{
    int64_t wt;
    int32_t ttl;
    int rc;
    switch (s->kind) {
    case SEL_COLUMN:
        return eng_view_column(v, (uint16_t)s->col, out, NULL, NULL, r->x->err);
    case SEL_WRITETIME:
    case SEL_TTL:
        if ((rc = eng_view_column(v, (uint16_t)s->col, out, &wt, &ttl, r->x->err)))
            return rc;
        if (out->len < 0 || (s->kind == SEL_TTL && ttl <= 0)) {
            *out = (eng_val){NULL, ENG_NULL};
            return 0;
        }
        if (s->kind == SEL_WRITETIME) {
            eng_put_be64(scratch, (uint64_t)wt);
            *out = (eng_val){scratch, 8};
        } else {
            eng_put_be32(scratch, (uint32_t)ttl);
            *out = (eng_val){scratch, 4};
        }
        return 0;
    case SEL_TOKEN: {
        eng_buf key = ENG_BUF_INIT;
        eng_partition_key_compose(&key, v->pk, r->sp->t->n_pk);
        int64_t tok = eng_token(key.p, key.len);
        eng_buf_free(&key);
        eng_put_be64(scratch, (uint64_t)tok);
        *out = (eng_val){scratch, 8};
        return 0;
    }
    case SEL_TERM:
        *out = r->term_vals[2 * s->slot];
        return 0;
    case SEL_CONST:
        *out = s->value;
        return 0;
    case SEL_OP: {
        eng_val lv, rv = {NULL, ENG_NULL};
        uint8_t lb[16], rb[16];
        if ((rc = selected_value(r, v, s->arg, &lv, lb)) ||
            (s->arg2 && (rc = selected_value(r, v, s->arg2, &rv, rb))))
            return rc;
        return operation_value(r, s, lv, rv, v->arena, out);
    }
    case SEL_FN:
    case SEL_CAST:
    case SEL_TOJSON:
    case SEL_FIELD:
    case SEL_ELEMENT:
    case SEL_SLICE: {
        eng_val arg = {NULL, ENG_NULL};
        uint8_t inner[16];
        if (s->arg && (rc = selected_value(r, v, s->arg, &arg, inner)))
            return rc;
        return apply_scalar(r, s, arg, v->arena, out);
    }
    default:
        *out = (eng_val){NULL, ENG_NULL};
        return 0;
    }
}

/* SELECT JSON: the row's values as one [json] text value. */
static int json_row(select_run *r, const eng_val *vals)
{
    const select_plan *sp = r->sp;
    eng_buf b = ENG_BUF_INIT;
    int rc = cql_json_row(sp->names, sp->types, vals, sp->n_sels, &b, r->x->err);
    eng_val one = {b.p, (int32_t)b.len};
    if (!rc)
        rc = cql_result_add_row(r->x->result, &one) ? eng_errorf(r->x->err, ENG_E_NOMEM, "oom")
                                                     : 0;
    eng_buf_free(&b);
    return rc;
}

/* Appends one result row (its JSON text, or its columns); *row_off is where its bytes begin. */
static int add_result_row(select_run *r, const eng_val *vals, size_t *row_off)
{
    *row_off = r->x->result->data.len;
    if (r->sp->json)
        return json_row(r, vals);
    return cql_result_add_row(r->x->result, vals) ? eng_errorf(r->x->err, ENG_E_NOMEM,
                                                               "out of memory")
                                                   : 0;
}

/* The values of the ORDER BY columns in the row v, appended to out as [int len][bytes]. */
static int put_order_values(select_run *r, const eng_row_view *v, eng_buf *out)
{
    const eng_val *ck;
    if (eng_view_clustering(v, &ck, r->x->err))
        return r->x->err->code;
    const select_plan *sp = r->sp;
    for (int i = 0; i < sp->n_order; i++) {
        const eng_val *c = &ck[sp->order_cols[i] - sp->t->n_pk];
        eng_buf_put_be32(out, (uint32_t)c->len);
        if (c->len > 0)
            eng_buf_put(out, c->p, (size_t)c->len);
    }
    return out->oom ? eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory") : 0;
}

/* Records the result row appended from row_off on, whose ordering values are key. */
static int add_order_entry(select_run *r, size_t row_off, const uint8_t *key, size_t key_len)
{
    cql_result *res = r->x->result;
    order_entry e = {r->order_keys.len, key_len, row_off, res->data.len - row_off,
                     (uint32_t)(r->order_rows.len / sizeof e)};
    eng_buf_put(&r->order_keys, key, key_len);
    eng_buf_put(&r->order_rows, &e, sizeof e);
    if (r->order_keys.oom || r->order_rows.oom)
        return eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
    return 0;
}

/* Compares two rows' ordering values by the columns' clustering order, reversed as the query
   is; ties keep the read order (partitions in IN order). */
static int order_compare(const void *pa, const void *pb, void *arg)
{
    const select_run *r = arg;
    const order_entry *a = pa, *b = pb;
    const select_plan *sp = r->sp;
    const uint8_t *ka = r->order_keys.p + a->key_off, *kb = r->order_keys.p + b->key_off;
    for (int i = 0; i < sp->n_order; i++) {
        const eng_column *col = &sp->t->cols[sp->order_cols[i]];
        int32_t la = (int32_t)eng_be32(ka), lb = (int32_t)eng_be32(kb);
        ka += 4;
        kb += 4;
        int c;
        if (la < 0 || lb < 0)
            c = (la >= 0) - (lb >= 0); /* a static-only row has no clustering: it sorts first */
        else
            c = eng_type_compare(col->type, ka, (size_t)la, kb, (size_t)lb);
        if (col->desc)
            c = -c;
        if (sp->reversed)
            c = -c;
        if (c)
            return c;
        ka += la > 0 ? la : 0;
        kb += lb > 0 ? lb : 0;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorts the result rows by their ordering values and keeps the first limit (0: all). */
static int sort_result_rows(select_run *r, uint32_t limit)
{
    cql_result *res = r->x->result;
    size_t n = r->order_rows.len / sizeof(order_entry);
    order_entry *rows = (order_entry *)r->order_rows.p;
    if (n != res->n_rows)
        return eng_errorf(r->x->err, ENG_E_INVALID, "result rows without ordering values");
    if (n > 1)
        qsort_r(rows, n, sizeof *rows, order_compare, r);
    eng_buf sorted = ENG_BUF_INIT;
    if (res->data.len && eng_buf_reserve(&sorted, res->data.len))
        return eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        eng_buf_put(&sorted, res->data.p + rows[i].row_off, rows[i].row_len);
    if (sorted.oom) {
        eng_buf_free(&sorted);
        return eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
    }
    eng_buf_free(&res->data);
    res->data = sorted;
    if (limit && res->n_rows > limit)
        res->n_rows = limit;
    return 0;
}

/* Lexicographic comparison of the row's clustering tuple with a bound, natural order. */
static int tuple_cmp(const select_plan *sp, const eng_val *ck, const eng_val *b, int n)
{
    const eng_table *t = sp->t;
    for (int i = 0; i < n; i++) {
        const eng_column *c = &t->cols[sp->r.multi_first + i];
        const eng_val *x = &ck[c->position], *y = &b[i];
        int r = eng_type_compare(c->type, x->p, (size_t)x->len, y->p, (size_t)y->len);
        if (r)
            return r;
    }
    return 0;
}

static int in_mixed_bounds(select_run *r, const eng_row_view *v)
{
    const select_plan *sp = r->sp;
    const eng_val *ck;
    if (eng_view_clustering(v, &ck, r->x->err))
        return -1;
    if (r->mixed_lo) {
        int c = tuple_cmp(sp, ck, r->mixed_lo, sp->r.multi_lo_n);
        if (c < 0 || (c == 0 && !sp->r.multi_lo_incl))
            return 0;
    }
    if (r->mixed_hi) {
        int c = tuple_cmp(sp, ck, r->mixed_hi, sp->r.multi_hi_n);
        if (c > 0 || (c == 0 && !sp->r.multi_hi_incl))
            return 0;
    }
    return 1;
}

static int agg_result(select_run *r);

static void reset_aggs(select_run *r)
{
    for (int i = 0; i < r->sp->n_slots; i++) {
        eng_buf best = r->aggs[i].best;
        eng_buf_reset(&best);
        memset(&r->aggs[i], 0, sizeof r->aggs[i]);
        r->aggs[i].best = best;
    }
}

/* The GROUP BY key of a row: its first group_n key values, framed. */
static int group_key(select_run *r, const eng_row_view *v, eng_buf *out)
{
    const eng_table *t = r->sp->t;
    const eng_val *ck = NULL;
    for (int i = 0; i < r->sp->group_n; i++) {
        eng_val val;
        if (i < t->n_pk) {
            val = v->pk[i];
        } else {
            if (!ck && eng_view_clustering(v, &ck, r->x->err))
                return -1;
            val = ck[i - t->n_pk];
        }
        eng_buf_put_bytes(out, val.p, val.len);
    }
    return out->oom ? -1 : 0;
}

/* Starts a new group when the row's key differs, emitting the finished one. */
static int group_row(select_run *r, const eng_row_view *v)
{
    eng_buf key = ENG_BUF_INIT;
    if (group_key(r, v, &key)) {
        eng_buf_free(&key);
        return -(r->x->err->code ? r->x->err->code : ENG_E_NOMEM);
    }
    int same = r->group_rows && key.len == r->group_key.len &&
               memcmp(key.p, r->group_key.p, key.len) == 0;
    int rc = 0;
    if (!same && r->group_rows) {
        if (r->limit && r->x->result->n_rows >= r->limit)
            rc = 1; /* LIMIT counts groups: this row starts one too many */
        else if ((rc = agg_result(r)))
            rc = -rc;
        reset_aggs(r);
        r->group_rows = 0;
        if (!rc && r->page_groups && r->x->result->n_rows >= r->page_groups) {
            eng_buf_free(&key);
            return 3; /* the page is full: its next group starts the next page */
        }
    }
    if (!same) {
        eng_buf_reset(&r->group_key);
        eng_buf_put(&r->group_key, key.p, key.len);
        if (!rc && r->post_order) {
            eng_buf_reset(&r->group_order);
            if (put_order_values(r, v, &r->group_order))
                rc = -r->x->err->code;
        }
    }
    eng_buf_free(&key);
    if (rc || same || !r->ppl)
        return rc;
    /* A new group: past PER PARTITION LIMIT groups, the rest of the partition is skipped. */
    eng_buf pk = ENG_BUF_INIT;
    for (int i = 0; i < r->sp->t->n_pk; i++)
        eng_buf_put_bytes(&pk, v->pk[i].p, v->pk[i].len);
    if (pk.oom) {
        eng_buf_free(&pk);
        return -ENG_E_NOMEM;
    }
    if (pk.len != r->group_pk.len || memcmp(pk.p, r->group_pk.p, pk.len) != 0) {
        eng_buf_reset(&r->group_pk);
        eng_buf_put(&r->group_pk, pk.p, pk.len);
        r->part_groups = 0;
    }
    eng_buf_free(&pk);
    if (r->part_groups >= r->ppl)
        return 2;
    r->part_groups++;
    return 0;
}

/* 1 if a static-only row has data in a queried static column (analyze_queried_statics). */
static int static_row_queried(select_run *r, const eng_row_view *v)
{
    const select_plan *sp = r->sp;
    if (sp->statics_queried_all)
        return 1;
    for (int i = 0; i < sp->n_statics_queried; i++) {
        eng_val val;
        if (eng_view_column(v, (uint16_t)sp->statics_queried[i], &val, NULL, NULL, r->x->err))
            return -1;
        if (val.len >= 0)
            return 1;
    }
    return 0;
}

static int select_row(void *ctx, const eng_row_view *v)
{
    select_run *r = ctx;
    const select_plan *sp = r->sp;
    if (!v->row && !sp->distinct) { /* DISTINCT: a row per partition with any live data */
        int q = static_row_queried(r, v);
        if (q <= 0)
            return q < 0 ? -r->x->err->code : 0;
    }
    if (r->mixed_lo || r->mixed_hi) {
        int in = in_mixed_bounds(r, v);
        if (in <= 0)
            return in < 0 ? -r->x->err->code : 0;
    }
    int ok = passes_filters(r, v);
    if (ok < 0)
        return -r->x->err->code;
    if (!ok)
        return 0;
    r->rows++;
    if (sp->group_n) {
        int rc = group_row(r, v);
        if (rc == 3)
            return 2; /* stop before this row (eng_row_cb) */
        if (rc)
            return rc == 2 ? 0 : rc;
        if ((rc = aggregate_row(r, v)))
            return -rc;
        r->group_rows++;
        return 0;
    }
    if (sp->aggregate) {
        int rc = aggregate_row(r, v);
        return rc ? -rc : 0;
    }
    eng_val vals[256];
    uint8_t scratch[256][8];
    for (int i = 0; i < sp->n_sels && i < 256; i++) {
        int rc = selected_value(r, v, &sp->sels[i], &vals[i], scratch[i]);
        if (rc)
            return -rc;
    }
    size_t row_off;
    int rc = add_result_row(r, vals, &row_off);
    if (!rc && r->post_order) {
        eng_buf key = ENG_BUF_INIT;
        rc = put_order_values(r, v, &key);
        if (!rc)
            rc = add_order_entry(r, row_off, key.p, key.len);
        eng_buf_free(&key);
    }
    return rc ? -rc : 0;
}

/* The value of a selector of an aggregate query once its group's rows are folded. */
static int agg_output(select_run *r, const selector *s, eng_val *out, uint8_t *scratch)
{
    agg_state *st = &r->aggs[s->slot];
    *out = (eng_val){NULL, ENG_NULL};
    if (!s->has_agg) {
        if (st->has_best && !st->is_null)
            *out = (eng_val){st->best.p ? st->best.p : scratch, (int32_t)st->best.len};
        return 0;
    }
    if (s->kind == SEL_FN || s->kind == SEL_CAST || s->kind == SEL_TOJSON ||
        s->kind == SEL_FIELD || s->kind == SEL_ELEMENT || s->kind == SEL_SLICE) {
        /* a function of an aggregate: applied to the aggregate's value (todate(min(b))) */
        eng_val arg;
        uint8_t *inner = eng_arena_alloc(&r->x->arena, 16);
        if (!inner)
            return eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
        int rc = agg_output(r, s->arg, &arg, inner);
        return rc ? rc : apply_scalar(r, s, arg, &r->x->arena, out);
    }
    if (s->kind == SEL_OP) { /* an operation on aggregates: on their folded values */
        eng_val lv, rv = {NULL, ENG_NULL};
        uint8_t *lb = eng_arena_alloc(&r->x->arena, 32), *rb = lb ? lb + 16 : NULL;
        if (!lb)
            return eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
        int rc = agg_output(r, s->arg, &lv, lb);
        if (!rc && s->arg2)
            rc = agg_output(r, s->arg2, &rv, rb);
        return rc ? rc : operation_value(r, s, lv, rv, &r->x->arena, out);
    }
    if (s->kind == SEL_COUNT_ROWS || (s->kind == SEL_AGG && s->agg == AGG_COUNT)) {
        eng_put_be64(scratch, (uint64_t)st->count);
        *out = (eng_val){scratch, 8};
    } else if (s->kind == SEL_AGG && (s->agg == AGG_MIN || s->agg == AGG_MAX)) {
        if (st->has_best)
            *out = (eng_val){st->best.p, (int32_t)st->best.len};
    } else if (s->kind == SEL_AGG) {
        /* sum and avg keep the argument's type; avg of no rows is 0 (AggregateFcts). */
        int kind = s->type->kind;
        if (kind == ENG_FLOAT || kind == ENG_DOUBLE) {
            double d = st->sum_d;
            if (s->agg == AGG_AVG)
                d = st->count ? d / (double)st->count : 0;
            if (kind == ENG_FLOAT) {
                float f = (float)d;
                uint32_t u;
                memcpy(&u, &f, 4);
                eng_put_be32(scratch, u);
                *out = (eng_val){scratch, 4};
            } else {
                uint64_t u;
                memcpy(&u, &d, 8);
                eng_put_be64(scratch, u);
                *out = (eng_val){scratch, 8};
            }
        } else if (is_integer_kind(kind) && kind != ENG_VARINT) {
            __int128 n = st->sum_i;
            if (s->agg == AGG_AVG)
                n = st->count ? n / st->count : 0;
            int width = kind == ENG_TINYINT ? 1 : kind == ENG_SMALLINT ? 2
                                              : kind == ENG_INT       ? 4
                                                                      : 8;
            uint64_t u = (uint64_t)(int64_t)n;
            for (int b = 0; b < width; b++)
                scratch[b] = (uint8_t)(u >> (8 * (width - 1 - b)));
            *out = (eng_val){scratch, width};
        } else if (kind == ENG_VARINT || kind == ENG_DECIMAL) {
            if (st->overflow)
                return eng_errorf(r->x->err, ENG_E_INVALID,
                                  "sum and avg of %s values beyond 38 digits are not "
                                  "supported",
                                  eng_kind_name(kind));
            __int128 n = st->sum_i;
            if (s->agg == AGG_AVG)
                n = !st->count ? 0 : kind == ENG_VARINT ? n / st->count
                                                        : div_half_even(n, st->count);
            uint8_t *buf = eng_arena_alloc(&r->x->arena, 21);
            if (!buf)
                return eng_errorf(r->x->err, ENG_E_NOMEM, "out of memory");
            size_t off = 0;
            if (kind == ENG_DECIMAL) {
                eng_put_be32(buf, (uint32_t)st->sum_scale);
                off = 4;
            }
            *out = (eng_val){buf, (int32_t)(off + put_big(buf + off, n))};
        } else {
            return eng_errorf(r->x->err, ENG_E_INVALID, "sum and avg of %s are not defined",
                              eng_kind_name(kind));
        }
    }
    return 0;
}

static int agg_result(select_run *r)
{
    const select_plan *sp = r->sp;
    eng_val vals[256];
    uint8_t scratch[256][16];
    for (int i = 0; i < sp->n_sels && i < 256; i++) {
        int rc = agg_output(r, &sp->sels[i], &vals[i], scratch[i]);
        if (rc)
            return rc;
    }
    size_t row_off;
    int rc = add_result_row(r, vals, &row_off);
    if (!rc && r->post_order)
        rc = add_order_entry(r, row_off, r->group_order.p, r->group_order.len);
    return rc;
}

static int eval_int_option(cql_exec *x, const cql_term *t, const char *name, uint32_t *out)
{
    *out = 0;
    if (!t)
        return 0;
    if (t->kind == CQL_T_INTEGER) {
        /* A literal limit needs no conversion machinery on every execution. */
        char *end;
        long long n = strtoll(t->text, &end, 10);
        if (*end == 0 && n > 0 && n <= INT32_MAX) {
            *out = (uint32_t)n;
            return 0;
        }
    }
    eng_val v;
    int rc = cql_eval_val(x, t, &int_type, name, &v);
    if (rc)
        return rc;
    if (v.len == ENG_UNSET)
        return 0;
    if (v.len == ENG_NULL)
        return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value of limit");
    if (v.len != 4)
        return eng_errorf(x->err, ENG_E_INVALID, "Invalid limit value");
    int32_t n = (int32_t)eng_be32(v.p);
    if (n <= 0)
        return eng_errorf(x->err, ENG_E_INVALID, "LIMIT must be strictly positive");
    *out = (uint32_t)n;
    return 0;
}

/*
 * Paging state: the rows LIMIT still allows (be32, 0 without a LIMIT), the
 * id of the statement it came from (16 bytes: a state is only valid for the
 * statement that returned it, as the drivers require), the engine's resume
 * position, and an XXH3-64 of all that (be64). Cassandra's state carries its
 * lengths, so a cut or padded one is refused; the check does that here, and
 * keeps damaged bytes from ever reaching the engine as a position.
 */
#define PAGING_HEAD (4 + 16)
#define PAGING_CHECK 8

/*
 * A paging state that does not parse is a protocol error (ENG_E_PROTOCOL), not an invalid
 * query: Cassandra's PagingState.deserialize throws ProtocolException with this text. The
 * engine refuses a resume position it cannot parse the same way.
 */
static const char PAGING_STATE_MSG[] = "Invalid value for the paging state";

/*
 * The paging state: [int left][prepared id 16][GROUP BY only: int groups begun in the last
 * partition read, int length and bytes of its key][the engine's resume position][xxh3 64].
 * left is what LIMIT still allows (rows, or groups), 0 for no limit.
 */
static int parse_paging(cql_exec *x, uint32_t limit, select_run *run, uint32_t *remaining,
                        const uint8_t **resume, size_t *len)
{
    const cql_exec_options *o = x->opts;
    *remaining = limit;
    *resume = NULL;
    *len = 0;
    if (!o->paging_state || !o->paging_state_len)
        return 0;
    size_t n = o->paging_state_len;
    if (n <= PAGING_HEAD + PAGING_CHECK ||
        eng_be64(o->paging_state + n - PAGING_CHECK) !=
            (uint64_t)XXH3_64bits(o->paging_state, n - PAGING_CHECK))
        return eng_errorf(x->err, ENG_E_PROTOCOL, "%s", PAGING_STATE_MSG);
    /* Well formed but another statement's: Cassandra would resume at a meaningless position;
       refused instead, as an invalid request with the same text. */
    if (memcmp(o->paging_state + 4, x->prepared->id, 16) != 0)
        return eng_errorf(x->err, ENG_E_INVALID, "%s", PAGING_STATE_MSG);
    uint32_t left = eng_be32(o->paging_state);
    if (limit && left && left < limit)
        *remaining = left;
    *resume = o->paging_state + PAGING_HEAD;
    *len = n - PAGING_HEAD - PAGING_CHECK;
    if (run->sp->group_n) {
        /* PER PARTITION LIMIT counts the groups of a partition over pages (GroupByLimits) */
        uint32_t pk_len = *len >= 8 ? eng_be32(*resume + 4) : UINT32_MAX;
        if (pk_len > *len - 8)
            return eng_errorf(x->err, ENG_E_PROTOCOL, "%s", PAGING_STATE_MSG);
        run->part_groups = eng_be32(*resume);
        eng_buf_put(&run->group_pk, *resume + 8, pk_len);
        if (run->group_pk.oom)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        *resume += 8 + pk_len;
        *len -= 8 + pk_len;
    }
    return 0;
}

/* The consistency level ANY in the protocol's numbering (facts §8.1, [PV4] §3). */
#define CONSISTENCY_ANY 0

/* The steps Cassandra traces before a read: one partition's (SinglePartitionReadCommand), or
   a range's (StorageProxy.getRangeSlice, PartitionRangeReadCommand). */
static void trace_read_begin(cql_session *s, const eng_query *q)
{
    if (q->n_keys) {
        for (uint32_t i = 0; i < q->n_keys; i++) {
            CQL_TRACE(s, CQL_TRACE_READER, "Executing single-partition query on %s",
                      q->table->name);
            CQL_TRACE(s, CQL_TRACE_READER, "Acquiring sstable references");
            CQL_TRACE(s, CQL_TRACE_READER, "Merged data from memtables and 0 sstables");
        }
        return;
    }
    CQL_TRACE(s, CQL_TRACE_COORDINATOR, "Computing ranges to query");
    if (q->token_lo == ENG_TOKEN_MIN && q->token_hi == ENG_TOKEN_MAX)
        CQL_TRACE(s, CQL_TRACE_READER,
                  "Executing seq scan across 0 sstables for (min(%lld), min(%lld)]",
                  (long long)ENG_TOKEN_MIN, (long long)ENG_TOKEN_MIN);
    else
        CQL_TRACE(s, CQL_TRACE_READER, "Executing seq scan across 0 sstables for (%lld, %lld]",
                  (long long)q->token_lo, (long long)q->token_hi);
}

int cql_exec_select(cql_exec *x)
{
    const select_plan *sp = x->plan->detail;
    const eng_table *t = sp->t;
    cql_result *res = x->result;
    /* SelectStatement.execute: ConsistencyLevel.validateForRead before anything is read. */
    if (x->opts->consistency == CONSISTENCY_ANY)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "ANY ConsistencyLevel is only supported for writes");
    res->kind = CQL_RESULT_ROWS;
    if (cql_result_set_columns(res, x->plan->cols, x->plan->n_cols))
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    eng_query q;
    memset(&q, 0, sizeof q);
    q.table = t;
    q.now_s = x->opts->now_s;
    q.reversed = (uint8_t)sp->reversed;
    q.distinct = (uint8_t)sp->distinct;
    select_run run = {.x = x,
                      .sp = sp,
                      .group_key = ENG_BUF_INIT,
                      .group_pk = ENG_BUF_INIT,
                      .order_keys = ENG_BUF_INIT,
                      .order_rows = ENG_BUF_INIT,
                      .group_order = ENG_BUF_INIT};
    uint32_t limit = 0, ppl = 0;
    int rc = eval_int_option(x, sp->limit, "[limit]", &limit);
    if (!rc)
        rc = eval_int_option(x, sp->ppl, "[per_partition_limit]", &ppl);
    if (rc)
        return rc;
    /* With GROUP BY, PER PARTITION LIMIT counts groups, not rows. */
    q.per_partition_limit = sp->group_n ? 0 : ppl;
    run.ppl = sp->group_n ? ppl : 0;
    int empty = 0;
    const cql_restrictions *r = &sp->r;
    if (r->has_pk)
        rc = cql_restrict_partition_keys(x, r, &q);
    else
        rc = cql_restrict_token_range(x, r, &q);
    empty = rc == 1;
    rc = rc == 1 ? 0 : rc;
    if (!rc && r->has_pk && (r->tok_lo || r->tok_hi))
        rc = cql_restrict_keys_in_token_range(x, r, &q, &empty);
    if (!rc) {
        rc = cql_restrict_clustering_slices(x, r, &q, &run.mixed_lo, &run.mixed_hi);
        if (rc == 1) {
            empty = 1;
            rc = 0;
        }
    }
    if (rc)
        return rc;
    /* A partition with statics and no rows yields one row unless rows are restricted. */
    int regular_filter = 0;
    for (int i = 0; i < r->n_filters; i++)
        regular_filter |= t->cols[r->filters[i].col].kind == ENG_COL_REGULAR;
    q.static_rows = (uint8_t)(t->has_static && !q.n_slices && !regular_filter && !sp->distinct);
    run.filter_vals = eng_arena_alloc(&x->arena, (size_t)(r->n_filters + 1) * sizeof(eng_val));
    run.aggs = eng_arena_alloc(&x->arena, (size_t)(sp->n_slots + 1) * sizeof(agg_state));
    if (!run.filter_vals || !run.aggs)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    memset(run.aggs, 0, (size_t)(sp->n_slots + 1) * sizeof(agg_state));
    run.filter_lists =
        eng_arena_alloc(&x->arena, (size_t)(r->n_filters + 1) * sizeof *run.filter_lists);
    if (!run.filter_lists)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    run.term_vals = eng_arena_alloc(&x->arena, (size_t)(2 * sp->n_slots + 2) * sizeof(eng_val));
    run.filter_keys = eng_arena_alloc(&x->arena, (size_t)(r->n_filters + 1) * sizeof(eng_val));
    if (!run.term_vals || !run.filter_keys)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    for (int i = 0; i < sp->n_sels; i++)
        if ((rc = eval_sel_terms(&run, &sp->sels[i])))
            return rc;
    if ((rc = cql_restrict_filter_values(x, r, run.filter_vals, run.filter_lists)))
        return rc;
    for (int i = 0; i < r->n_filters; i++) {
        const cql_filter *f = &r->filters[i];
        run.filter_keys[i] = (eng_val){NULL, ENG_NULL};
        if (f->key && (rc = map_entry_key(x, t, f, &run.filter_keys[i])))
            return rc;
    }
    uint32_t remaining; /* rows LIMIT still allows on this page and after (0: no limit) */
    const uint8_t *resume;
    size_t resume_len;
    if ((rc = parse_paging(x, limit, &run, &remaining, &resume, &resume_len))) {
        eng_buf_free(&run.group_pk);
        return rc;
    }
    int32_t page = sp->aggregate ? 0 : x->opts->page_size;
    if (sp->order_with_in && q.n_keys > 1) {
        /* The user's page size, even for aggregates (SelectStatement.execute) */
        if (x->opts->page_size > 0) {
            eng_buf_free(&run.group_pk);
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Cannot page queries with both ORDER BY and a IN restriction on the "
                              "partition key; you must either remove the ORDER BY or the IN and "
                              "sort client side, or disable paging for this query");
        }
        /* Unpaged: every row is read, sorted, then LIMIT applies (getDataLimits drops the row
           limit when the results need post-query ordering; PER PARTITION LIMIT stays). One row
           of an aggregate over everything needs no sort. */
        run.post_order = !(sp->aggregate && !sp->group_n);
    }
    q.limit = sp->aggregate || run.post_order ? 0 : remaining; /* LIMIT applies to the
                                                                   aggregated rows */
    run.limit = sp->group_n && !run.post_order ? remaining : 0;
    run.page_groups = sp->group_n && !run.post_order && x->opts->page_size > 0
                          ? (uint32_t)x->opts->page_size
                          : 0;
    if (sp->aggregate && !r->has_pk && !cql_systable_served(t))
        res->warnings[res->n_warnings++] = "Aggregation query used without partition key";
    else if (sp->aggregate && r->has_pk && q.n_keys > 1)
        res->warnings[res->n_warnings++] =
            "Aggregation query used on multiple partition keys (IN restriction)";
    /* A LIMIT the page does not cut ends the query, when every row the engine hands over is
       a result row (no filter, no mixed bound, no static-only row that may be left out): the
       engine need not look past it. */
    int all_kept = !r->n_filters && !run.mixed_lo && !run.mixed_hi &&
                   !(q.static_rows && !sp->statics_queried_all);
    q.limit_ends = (uint8_t)(all_kept && q.limit && (page <= 0 || (uint32_t)page >= q.limit));
    if (page > 0 && (!q.limit || (uint32_t)page < q.limit))
        q.limit = (uint32_t)page;
    q.resume = resume;
    q.resume_len = resume_len;
    /* Filtering drops rows after the engine counted them: count here instead. */
    if (r->n_filters && q.limit && page <= 0) {
        q.limit = 0;
    }
    /* Plain columns, every row kept: the engine writes the result rows itself (projection). */
    uint16_t project[256];
    int projected = all_kept && !sp->json && !sp->aggregate && !sp->distinct &&
                    !run.post_order && sp->n_sels <= 256 && !cql_systable_served(t);
    for (int i = 0; projected && i < sp->n_sels; i++) {
        projected = sp->sels[i].kind == SEL_COLUMN;
        project[i] = (uint16_t)sp->sels[i].col;
    }
    if (projected) {
        q.project = project;
        q.n_project = (uint16_t)sp->n_sels;
        q.project_out = &res->data;
    }
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    cql_systable_ctx sys = {x->plan->schema, x->session->db, x->session->topology};
    if (cql_systable_served(t)) {
        q.vtable = cql_systable_fill;
        q.vtable_ctx = &sys;
    }
    if (x->session->trace)
        trace_read_begin(x->session, &q);
    if (!empty)
        rc = eng_read(x->session->db, &q, select_row, &run, &info, x->err);
    if (!rc)
        CQL_TRACE(x->session, CQL_TRACE_READER, "Read %u live rows and 0 tombstone cells",
                  info.rows);
    if (!rc && projected) { /* every row the engine returned is a result row */
        res->n_rows += info.rows;
        run.rows = info.rows;
    }
    if (!rc && sp->group_n && run.group_rows && (!run.limit || res->n_rows < run.limit))
        rc = agg_result(&run);
    else if (!rc && sp->aggregate && !sp->group_n)
        rc = agg_result(&run);
    if (!rc && run.post_order)
        rc = sort_result_rows(&run, limit);
    eng_buf_free(&run.group_key);
    eng_buf_free(&run.order_keys);
    eng_buf_free(&run.order_rows);
    eng_buf_free(&run.group_order);
    if (!rc && r->n_filters && remaining && res->n_rows > remaining)
        res->n_rows = remaining; /* rows beyond the limit are dropped (their data stays unused) */
    if (!rc && info.has_more && (!sp->aggregate || run.page_groups)) {
        uint32_t used = sp->group_n ? res->n_rows : run.rows; /* GROUP BY: LIMIT counts groups */
        uint32_t left = remaining ? remaining - (used < remaining ? used : remaining) : 0;
        if (!remaining || left > 0) {
            res->has_more = 1;
            eng_buf_put_be32(&res->paging_state, left);
            eng_buf_put(&res->paging_state, x->prepared->id, 16);
            if (sp->group_n) {
                eng_buf_put_be32(&res->paging_state, run.part_groups);
                eng_buf_put_be32(&res->paging_state, (uint32_t)run.group_pk.len);
                eng_buf_put(&res->paging_state, run.group_pk.p, run.group_pk.len);
            }
            eng_buf_put(&res->paging_state, info.resume.p, info.resume.len);
            if (!res->paging_state.oom) {
                uint64_t check = XXH3_64bits(res->paging_state.p, res->paging_state.len);
                eng_buf_put_be64(&res->paging_state, check);
            }
            if (res->paging_state.oom)
                rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        }
    }
    for (int i = 0; i < sp->n_slots; i++)
        eng_buf_free(&run.aggs[i].best);
    eng_buf_free(&run.group_pk);
    eng_read_info_free(&info);
    return rc;
}

/* A key column restricted to exactly one value (= v, or IN with one value, not IN ?). */
static int single_value(const cql_key_restriction *k)
{
    return k->given == CQL_RESTRICT_EQ && !k->in_marker && k->n == 1;
}

/* How many rows a literal LIMIT allows, or 0 when there is none (or it is a marker). */
static uint32_t literal_limit(const cql_term *t)
{
    if (!t || t->kind != CQL_T_INTEGER || t->len > 9 || t->text[0] == '-')
        return 0;
    return (uint32_t)strtoul(t->text, NULL, 10);
}

int cql_select_bounded(const cql_plan *plan, int32_t page_size, uint32_t max_rows)
{
    const select_plan *sp = plan->detail;
    const cql_restrictions *r = &sp->r;
    const eng_table *t = sp->t;
    int ok = !cql_systable_served(t) && !sp->aggregate && !sp->group_n && !r->n_filters &&
             !sp->order_with_in && r->has_pk && !r->tok_lo && !r->tok_hi;
    for (uint16_t i = 0; ok && i < t->n_pk; i++)
        ok = single_value(&r->keys[i]);
    if (ok) {
        /* the rows it may return: one when the whole primary key is given, else a LIMIT or
           the page bounds them */
        int point = r->n_ck_eq == t->n_ck && !r->ck_slice && !r->n_multi_eq && !r->multi_lo &&
                    !r->multi_hi;
        for (uint16_t i = 0; point && i < t->n_ck; i++)
            point = single_value(&r->keys[t->n_pk + i]);
        uint32_t bound = point ? 1 : literal_limit(sp->limit);
        if (page_size > 0 && (!bound || (uint32_t)page_size < bound))
            bound = (uint32_t)page_size;
        ok = bound > 0 && bound <= max_rows;
    }
    return ok;
}
