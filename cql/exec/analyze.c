/*
 * What every statement's analysis needs: names resolved against the schema
 * snapshot (keyspace, table, column, user type) with Cassandra's messages,
 * written types turned into descriptors with Cassandra's rules on nesting
 * and freezing, and bind markers typed and named (facts §2.6).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cql/exec/arith.h"
#include "cql/exec/exec_int.h"
#include "cql/exec/literal.h"
#include "cql/exec/systables.h"

int cql_resolve_keyspace(cql_analysis *a, const char *ks, const char **out)
{
    const char *name = ks ? ks : a->keyspace;
    if (!name)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "No keyspace has been specified. USE a keyspace, or explicitly "
                          "specify keyspace.tablename");
    *out = name;
    return 0;
}

int cql_resolve_table(cql_analysis *a, const cql_qname *name, const eng_table **out)
{
    const char *ks = NULL;
    int rc = cql_resolve_keyspace(a, name->ks, &ks);
    if (rc)
        return rc;
    /* system_auth's and system_traces' tables are stored ones (auth.c and trace.c make them;
       system_traces' are served empty until the first trace); the others are served */
    const eng_table *stored = !strcmp(ks, "system_auth") || !strcmp(ks, "system_traces")
                                  ? eng_schema_table(a->schema, ks, name->name)
                                  : NULL;
    if (stored) {
        *out = stored;
        return 0;
    }
    if (cql_systable_keyspace(ks)) {
        const eng_table *st = cql_systable(ks, name->name);
        if (!st)
            return eng_errorf(a->err, ENG_E_INVALID, "table %s does not exist", name->name);
        *out = st;
        return 0;
    }
    if (!eng_schema_keyspace(a->schema, ks))
        return eng_errorf(a->err, ENG_E_INVALID, "keyspace %s does not exist", ks);
    const eng_table *t = eng_schema_table(a->schema, ks, name->name);
    if (!t)
        return eng_errorf(a->err, ENG_E_INVALID, "table %s does not exist", name->name);
    *out = t;
    return 0;
}

int cql_resolve_column(cql_analysis *a, const eng_table *t, const char *name, int *index)
{
    int i = eng_table_column_index(t, name);
    if (i < 0)
        return eng_errorf(a->err, ENG_E_INVALID, "Undefined column name %s in table %s.%s", name,
                          t->ks, t->name);
    *index = i;
    return 0;
}

/* ---- types ---- */

static int resolve(cql_analysis *a, const cql_typeref *ref, const char *ks, int frozen,
                   int in_collection, eng_type **out);

static int unknown_type(cql_analysis *a, const cql_typeref *ref, const char *ks)
{
    return eng_errorf(a->err, ENG_E_INVALID, "Unknown type %s.%s", ref->ks ? ref->ks : ks,
                      ref->name);
}

static int arg_count(cql_analysis *a, const cql_typeref *ref, int want)
{
    if (ref->n_args != want)
        return eng_errorf(a->err, ENG_E_SYNTAX, "line %d:%d %s takes %d type argument%s",
                          ref->line, ref->col > 0 ? ref->col - 1 : 0, ref->name, want,
                          want == 1 ? "" : "s");
    return 0;
}

/* The type as written, for messages: set<list<int>>. */
static void put_typeref(const cql_typeref *ref, eng_buf *out)
{
    if (ref->ks)
        eng_buf_printf(out, "%s.", ref->ks);
    eng_buf_put_str(out, ref->name);
    if (!ref->n_args)
        return;
    eng_buf_put_u8(out, '<');
    for (int i = 0; i < ref->n_args; i++) {
        if (i)
            eng_buf_put_str(out, ", ");
        put_typeref(ref->args[i], out);
    }
    eng_buf_put_u8(out, '>');
}

static int is_plain_collection(const cql_typeref *ref)
{
    return !ref->ks && (!strcmp(ref->name, "list") || !strcmp(ref->name, "set") ||
                        !strcmp(ref->name, "map"));
}

/* A user type name (not frozen<...>, a collection, a tuple or a native type). */
static int is_plain_udt(const cql_typeref *ref)
{
    if (ref->ks)
        return 1;
    if (!strcmp(ref->name, "frozen") || !strcmp(ref->name, "tuple") || is_plain_collection(ref))
        return 0;
    return eng_kind_from_name(ref->name, strlen(ref->name)) < 0;
}

/*
 * CQL3Type.Raw.RawCollection.prepare: inside a collection that is not frozen,
 * the values' type, then the keys', must not be a collection or a user type
 * that is not frozen (throwNestedNonFrozenError, naming the collection as
 * written). frozen<...> freezes everything inside it, so a frozen collection
 * may hold any of them.
 */
static int check_nested_frozen(cql_analysis *a, const cql_typeref *ref, int frozen)
{
    if (frozen)
        return 0;
    for (int i = ref->n_args - 1; i >= 0; i--) {
        const char *what = is_plain_collection(ref->args[i]) ? "collections"
                           : is_plain_udt(ref->args[i])      ? "UDTs"
                                                             : NULL;
        if (!what)
            continue;
        eng_buf b = ENG_BUF_INIT;
        put_typeref(ref, &b);
        int rc = eng_errorf(a->err, ENG_E_INVALID,
                            "Non-frozen %s are not allowed inside collections: %s", what,
                            eng_buf_cstr(&b) ? (char *)b.p : ref->name);
        eng_buf_free(&b);
        return rc;
    }
    return 0;
}

static int resolve_collection(cql_analysis *a, const cql_typeref *ref, const char *ks, int frozen,
                              int kind, eng_type **out)
{
    int rc = arg_count(a, ref, kind == ENG_MAP ? 2 : 1);
    if (!rc)
        rc = check_nested_frozen(a, ref, frozen);
    if (rc)
        return rc;
    eng_type *k = NULL, *v = NULL;
    /* What is inside a frozen collection is frozen too (RawCollection.freeze). */
    rc = resolve(a, ref->args[0], ks, frozen, 1, &k);
    if (!rc && kind == ENG_MAP)
        rc = resolve(a, ref->args[1], ks, frozen, 1, &v);
    if (rc) {
        eng_type_free(k);
        return rc;
    }
    eng_type *t = kind == ENG_LIST  ? eng_type_new_list(k, frozen)
                  : kind == ENG_SET ? eng_type_new_set(k, frozen)
                                    : eng_type_new_map(k, v, frozen);
    if (!t)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory resolving a type");
    *out = t;
    return 0;
}

static int resolve_tuple(cql_analysis *a, const cql_typeref *ref, const char *ks, eng_type **out)
{
    if (ref->n_args < 1)
        return arg_count(a, ref, 1);
    eng_type **comps = eng_calloc((size_t)ref->n_args, sizeof *comps);
    if (!comps)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory resolving a type");
    int rc = 0, n = 0;
    for (; n < ref->n_args && !rc; n++)
        rc = resolve(a, ref->args[n], ks, 1, 1, &comps[n]);
    if (rc) {
        for (int i = 0; i < n; i++)
            eng_type_free(comps[i]);
        eng_free(comps);
        return rc;
    }
    eng_type *t = eng_type_new_tuple(comps, ref->n_args);
    eng_free(comps);
    if (!t)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory resolving a type");
    *out = t;
    return 0;
}

static int resolve_udt(cql_analysis *a, const cql_typeref *ref, const char *ks, int frozen,
                       eng_type **out)
{
    /* CQL3Type.Raw.RawUT.prepare: a type named with another keyspace than the statement's is
       refused before any lookup, whether or not that keyspace exists (CASSANDRA-6643). */
    if (ref->ks && ks && strcmp(ref->ks, ks) != 0)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Statement on keyspace %s cannot refer to a user type in keyspace %s; "
                          "user types can only be used in the keyspace they are defined in",
                          ks, ref->ks);
    const char *uks = ref->ks ? ref->ks : ks;
    const eng_type *u = uks ? eng_schema_udt(a->schema, uks, ref->name) : NULL;
    if (!u)
        return unknown_type(a, ref, ks ? ks : "");
    eng_type *t = eng_type_dup(u);
    if (!t)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory resolving a type");
    t->frozen = (uint8_t)frozen;
    *out = t;
    return 0;
}

static int resolve(cql_analysis *a, const cql_typeref *ref, const char *ks, int frozen,
                   int in_collection, eng_type **out)
{
    *out = NULL;
    const char *n = ref->name;
    if (!ref->ks && !strcmp(n, "frozen")) {
        int rc = arg_count(a, ref, 1);
        return rc ? rc : resolve(a, ref->args[0], ks, 1, in_collection, out);
    }
    if (!ref->ks && (!strcmp(n, "list") || !strcmp(n, "set") || !strcmp(n, "map"))) {
        int kind = n[0] == 'l' ? ENG_LIST : n[0] == 's' ? ENG_SET : ENG_MAP;
        return resolve_collection(a, ref, ks, frozen, kind, out);
    }
    if (!ref->ks && !strcmp(n, "tuple"))
        return resolve_tuple(a, ref, ks, out);
    int kind = ref->ks ? -1 : eng_kind_from_name(n, strlen(n));
    if (kind >= 0) {
        if (ref->n_args)
            return arg_count(a, ref, 0);
        *out = eng_type_new(kind);
        return *out ? 0 : eng_errorf(a->err, ENG_E_NOMEM, "out of memory resolving a type");
    }
    return resolve_udt(a, ref, ks, frozen || in_collection, out);
}

int cql_resolve_type(cql_analysis *a, const cql_typeref *ref, const char *ks, eng_type **out)
{
    return resolve(a, ref, ks, 0, 0, out);
}

/* ---- bind markers ---- */

void cql_bind_marker(cql_analysis *a, const cql_term *marker, const eng_type *type,
                     const char *ks, const char *table, const char *name)
{
    cql_plan *p = a->plan;
    if (marker->bind_index < 0 || (uint32_t)marker->bind_index >= p->n_binds)
        return;
    cql_column_spec *spec = &p->binds[marker->bind_index];
    spec->ks = cql_plan_strdup(p, ks);
    spec->table = cql_plan_strdup(p, table);
    spec->name = cql_plan_strdup(p, marker->name ? marker->name : name);
    spec->type = type;
    /* A marker whose receiver is a partition key column itself (not in(k), not a token) routes
       (VariableSpecifications.targetColumns); named markers keep their column. */
    const eng_table *t = ks && table ? eng_schema_table(a->schema, ks, table) : NULL;
    for (uint16_t i = 0; t && p->bind_pk && i < t->n_pk; i++)
        if (t->cols[i].type == type && name && !strcmp(t->cols[i].name, name))
            p->bind_pk[marker->bind_index] = (int16_t)t->cols[i].position;
}

typedef struct bind_ctx {
    cql_analysis *a;
    const char *ks, *table;
} bind_ctx;

static void record_marker(void *ctx, const cql_term *marker, const eng_type *type,
                          const char *name)
{
    bind_ctx *c = ctx;
    /* Types live as long as the schema snapshot the plan holds, or in the plan's arena. */
    cql_bind_marker(c->a, marker, type, c->ks, c->table, name);
}


int cql_bind_term(cql_analysis *a, const cql_term *term, const eng_type *type, const char *ks,
                  const char *table, const char *receiver)
{
    if (term->kind == CQL_T_FUNCTION && !strcasecmp(term->name, "tojson"))
        return eng_errorf(a->err, ENG_E_INVALID,
                          "toJson() may only be used within the selection clause of SELECT "
                          "statements");
    if (term->kind == CQL_T_FUNCTION) {
        if (cql_arith_op(term)) {
            /* operands of an operator take the types of the overload it resolves to */
            int k[2] = {0, 0}, ret, rc;
            if ((rc = cql_arith_term_kinds(term, type, &k[0], &k[1], &ret, a->err)))
                return rc;
            for (int i = 0; i < term->n_items && i < 2; i++) {
                char name[300];
                snprintf(name, sizeof name, "arg%d(system.%s)", i, term->name);
                if ((rc = cql_bind_term(a, cql_arith_operand(term, i), cql_scalar_type(k[i]), ks, table, name)))
                    return rc;
            }
            return 0;
        }
        /* Markers in a function's argument take its parameter type (FunctionCall.Raw). */
        const eng_type *arg, *ret;
        const char *fname = strncasecmp(term->name, "system.", 7) ? term->name : term->name + 7;
        /* FunctionCall.Raw.prepare: an aggregate is never a term (WHERE, VALUES, SET) */
        if (!strcasecmp(fname, "count") || !strcasecmp(fname, "min") || !strcasecmp(fname, "max") ||
            !strcasecmp(fname, "sum") || !strcasecmp(fname, "avg"))
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Aggregation function are not supported in the where clause");
        /* FunctionCall.Raw.prepare: the name as written (FunctionName), the receiver by name */
        if (cql_function_signature(term, &arg, &ret))
            return eng_errorf(a->err, ENG_E_INVALID, "Unknown function %s%s%s called",
                              term->ks ? term->ks : "", term->ks ? "." : "", term->name);
        if (type && ret && !cql_fn_result_fits(type->kind, ret->kind)) {
            eng_buf w = ENG_BUF_INIT, r = ENG_BUF_INIT;
            eng_type_to_cql(type, &w);
            eng_type_to_cql(ret, &r);
            int rc = eng_errorf(a->err, ENG_E_INVALID,
                                "Type error: cannot assign result of function system.%s (type %s) "
                                "to %s (type %s)",
                                fname, eng_buf_cstr(&r) ? (char *)r.p : "?",
                                receiver ? receiver : "value",
                                eng_buf_cstr(&w) ? (char *)w.p : "?");
            eng_buf_free(&w);
            eng_buf_free(&r);
            return rc;
        }
        if (!term->n_items || !arg)
            return 0;
        char name[300];
        snprintf(name, sizeof name, "arg0(system.%s)", term->name);
        return cql_bind_term(a, term->items[0], arg, ks, table, name);
    }
    bind_ctx c = {a, ks, table};
    return cql_term_bind_types(term, type, receiver, record_marker, &c, a->err);
}

/* ---- the plan's memory ---- */

const eng_type *cql_plan_keep_type(cql_plan *p, eng_type *t)
{
    if (!t)
        return NULL;
    if (p->n_owned == p->cap_owned) {
        uint32_t cap = p->cap_owned ? p->cap_owned * 2 : 8;
        eng_type **o = eng_realloc(p->owned, cap * sizeof *o);
        if (!o) {
            eng_type_free(t);
            return NULL;
        }
        p->owned = o;
        p->cap_owned = cap;
    }
    p->owned[p->n_owned++] = t;
    return t;
}

char *cql_plan_strdup(cql_plan *p, const char *s)
{
    if (!s)
        return NULL;
    return eng_arena_memdup(&p->arena, s, strlen(s) + 1);
}

void *cql_plan_zalloc(cql_analysis *a, size_t n)
{
    void *p = eng_arena_alloc(&a->plan->arena, n ? n : 1);
    if (p)
        memset(p, 0, n ? n : 1);
    else
        eng_errorf(a->err, ENG_E_NOMEM, "out of memory preparing a statement");
    return p;
}

static const eng_type boolean_type = {.kind = ENG_BOOLEAN};
const eng_type *cql_boolean_type(void) { return &boolean_type; }
