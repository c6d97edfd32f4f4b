/*
 * INSERT, UPDATE, DELETE and BATCH: Cassandra's rules for what a
 * modification may set and on which conditions (facts §4.3-§4.6, §5, §6,
 * §8.2), then engine mutations — one per partition the WHERE clause names —
 * and, with IF, a compare-and-set whose result has Cassandra's shape (facts
 * §5.3: [applied], then the current values of the columns the conditions
 * read). Which rows a statement names, its WHERE clause or INSERT's key
 * values, is restrict.c's.
 *
 * Analysis (at prepare) resolves columns, checks the statement's shape and
 * types every bind marker; execution evaluates the terms with the bound
 * values (for INSERT JSON, the object's members) and builds the mutations
 * for the partitions and rows restrict.c lists, static columns going to the
 * partition's static row.
 *
 * The not-applied result of a CAS follows CQL3CasRequest: the rows the
 * conditions name (or, with only static conditions, the partition's first
 * live row), each with the columns the check reads — all regular columns
 * when a statement writes rows, all statics when a conditional one writes
 * the static row, and the condition columns — and a row of statics alone
 * when the partition has static content but none of those rows.
 */
#include <stdio.h>
#include <string.h>

#include "cql/exec/exec_int.h"
#include "cql/exec/json.h"
#include "cql/exec/literal.h"
#include "cql/exec/restrict.h"
#include "cql/exec/trace.h"

#define MAX_TTL 630720000 /* 20 years (facts §4.6) */

typedef struct mod_op {
    int col;
    int kind; /* enum eng_op_kind */
    const cql_term *key;
    const cql_term *value;
    const eng_type *key_type;
    const eng_type *value_type;
    int negate;    /* counter c = c - n */
    int from_json; /* INSERT JSON: the value is the object's member for the column */
} mod_op;

typedef struct mod_cond {
    int col;
    int op;
    int elem;
    const cql_term *key;
    const eng_type *key_type;
    const eng_type *val_type;
    cql_term **vals;
    int n_vals;
    int in_marker;
} mod_cond;

typedef struct mod_plan {
    const cql_stmt *stmt;
    const eng_table *t;
    cql_restrictions r; /* the rows named: WHERE, or INSERT's key values (restrict.c) */
    mod_op *ops;
    int n_ops;
    int static_only;     /* only static columns written, no clustering given: the static row */
    int updates_regular; /* ModificationStatement.updatesRegularRows: no clustering columns or
                            some restricted */
    int updates_static;  /* updatesStaticRow: some static column written */
    int insert_marker;
    int delete_row;       /* DELETE without targets and a full clustering key */
    int delete_partition; /* DELETE without targets and no clustering restriction */
    const cql_term *ttl, *ts;
    int if_exists, if_not_exists;
    mod_cond *conds;
    int n_conds;
    const char *ks, *table; /* for marker metadata */
    const cql_term *json;   /* INSERT JSON: the object (string or marker) */
    int json_unset;         /* DEFAULT UNSET */
} mod_plan;

static int is_key(const eng_table *t, int col)
{
    return col < t->n_pk + t->n_ck;
}

/* ---- USING ---- */

static const eng_type int_type = {.kind = ENG_INT};
static const eng_type bigint_type = {.kind = ENG_BIGINT};

static int analyze_using(cql_analysis *a, mod_plan *m, const cql_using *u)
{
    m->ttl = u->ttl;
    m->ts = u->timestamp;
    int rc = 0;
    if (u->ttl)
        rc = cql_bind_term(a, u->ttl, &int_type, m->ks, m->table, "[ttl]");
    if (!rc && u->timestamp)
        rc = cql_bind_term(a, u->timestamp, &bigint_type, m->ks, m->table, "[timestamp]");
    return rc;
}

/* ---- SET / INSERT values / DELETE targets ---- */

/*
 * Records an operation and types its markers with Cassandra's receiver names
 * (facts §2.6): idx(l) / key(m) for an element's key, value(l) / value(m) /
 * value(s) for an element's value, u.f for a field, the column otherwise.
 */
static int add_op(cql_analysis *a, mod_plan *m, mod_op op, const char *field)
{
    const eng_table *t = m->t;
    const eng_column *c = &t->cols[op.col];
    mod_op *ops = cql_plan_zalloc(a, (size_t)(m->n_ops + 1) * sizeof *ops);
    if (!ops)
        return ENG_E_NOMEM;
    if (m->n_ops)
        memcpy(ops, m->ops, (size_t)m->n_ops * sizeof *ops);
    ops[m->n_ops++] = op;
    m->ops = ops;
    int rc = 0;
    int elem = op.kind == ENG_OP_ELEM_SET || op.kind == ENG_OP_ELEM_DELETE;
    char name[300];
    if (op.key && op.key_type && !field) {
        snprintf(name, sizeof name, "%s(%s)",
                 c->type->kind == ENG_LIST  ? "idx"
                 : c->type->kind == ENG_SET ? "value"
                                            : "key",
                 c->name);
        rc = cql_bind_term(a, op.key, op.key_type, m->ks, m->table, name);
    }
    if (!rc && op.value && op.value_type) {
        if (field)
            snprintf(name, sizeof name, "%s.%s", c->name, field);
        else if (elem)
            snprintf(name, sizeof name, "value(%s)", c->name);
        else
            snprintf(name, sizeof name, "%s", c->name);
        rc = cql_bind_term(a, op.value, op.value_type, m->ks, m->table, name);
    }
    return rc;
}

/*
 * Operation.Addition / Substraction / Prepend refusals: "Invalid operation (%s) for <what> column
 * %s", the operation as their toString writes it, the value as written (a marker is "?"):
 * "c = c + v", "c = c - v", and for a prepend "c = v - c" (sic).
 */
static int arith_error(cql_analysis *a, const eng_column *c, const cql_term *value, int kind,
                       const char *what)
{
    eng_buf v = ENG_BUF_INIT;
    cql_term_text(value, &v);
    const char *vt = eng_buf_cstr(&v) ? (char *)v.p : "?";
    int rc;
    if (kind == CQL_SET_PREPEND)
        rc = eng_errorf(a->err, ENG_E_INVALID, "Invalid operation (%s = %s - %s) for %s column %s",
                        c->name, vt, c->name, what, c->name);
    else
        rc = eng_errorf(a->err, ENG_E_INVALID, "Invalid operation (%s = %s %s %s) for %s column %s",
                        c->name, c->name, kind == CQL_SET_SUB ? "-" : "+", vt, what, c->name);
    eng_buf_free(&v);
    return rc;
}

/* c = c + v / c = c - v / c = v + c on collections and counters (facts §4.5, §6). */
static int arith_op(cql_analysis *a, mod_plan *m, const cql_assignment *s, int col)
{
    const eng_column *c = &m->t->cols[col];
    const eng_type *ty = c->type;
    mod_op op = {col, 0, NULL, s->value, NULL, ty, 0, 0};
    if (s->kind == CQL_SET_PREPEND && ty->kind != ENG_LIST)
        return arith_error(a, c, s->value, s->kind, "non list");
    if (ty->kind == ENG_COUNTER) {
        op.kind = ENG_OP_COUNTER_ADD;
        op.negate = s->kind == CQL_SET_SUB;
        op.value_type = ty;
        return add_op(a, m, op, NULL);
    }
    if (!eng_type_is_collection(ty))
        return arith_error(a, c, s->value, s->kind, "non counter");
    if (ty->frozen)
        return arith_error(a, c, s->value, s->kind,
                           s->kind == CQL_SET_PREPEND ? "frozen list" : "frozen collection");
    if (s->kind == CQL_SET_PREPEND) {
        op.kind = ENG_OP_PREPEND;
        return add_op(a, m, op, NULL);
    }
    if (ty->kind == ENG_LIST) {
        op.kind = s->kind == CQL_SET_ADD ? ENG_OP_APPEND : ENG_OP_LIST_REMOVE;
    } else if (ty->kind == ENG_SET) {
        op.kind = s->kind == CQL_SET_ADD ? ENG_OP_ADD : ENG_OP_REMOVE;
    } else if (s->kind == CQL_SET_ADD) {
        op.kind = ENG_OP_ADD;
    } else {
        /* m - {keys}: the value is a set of the key type. */
        eng_type *st = eng_type_new_set(eng_type_dup(ty->sub[0]), 1);
        op.value_type = cql_plan_keep_type(a->plan, st);
        if (!op.value_type)
            return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
        op.kind = ENG_OP_REMOVE;
    }
    int rc = add_op(a, m, op, NULL);
    if (rc == ENG_E_INVALID && ty->kind == ENG_MAP) {
        /* Operation.Addition / Substraction.prepare on a map: any refusal of the value becomes
           one message naming the value as written. */
        eng_buf v = ENG_BUF_INIT;
        cql_term_text(s->value, &v);
        eng_err_clear(a->err);
        rc = eng_errorf(a->err, ENG_E_INVALID, "Value for a map %s has to be a %s, but was: '%s'",
                        s->kind == CQL_SET_ADD ? "addition" : "substraction",
                        s->kind == CQL_SET_ADD ? "map" : "set",
                        eng_buf_cstr(&v) ? (char *)v.p : "?");
        eng_buf_free(&v);
    }
    return rc;
}

/* Operation.SetElement.toString: "l[0] = 3" as written. */
static int element_error(cql_analysis *a, const eng_column *c, const cql_term *key,
                         const cql_term *value, const char *what)
{
    eng_buf k = ENG_BUF_INIT, v = ENG_BUF_INIT;
    cql_term_text(key, &k);
    cql_term_text(value, &v);
    int rc = eng_errorf(a->err, ENG_E_INVALID, "Invalid operation (%s[%s] = %s) for %s column %s",
                        c->name, eng_buf_cstr(&k) ? (char *)k.p : "?",
                        eng_buf_cstr(&v) ? (char *)v.p : "?", what, c->name);
    eng_buf_free(&k);
    eng_buf_free(&v);
    return rc;
}

/* l[i] = v, m[k] = v (Operation.SetElement); DELETE l[i], s[e], m[k] (ElementDeletion). */
static int element_op(cql_analysis *a, mod_plan *m, int col, const cql_term *key,
                      const cql_term *value, int deleting)
{
    const eng_column *c = &m->t->cols[col];
    const eng_type *ty = c->type;
    mod_op op = {col, ENG_OP_ELEM_SET, key, value, NULL, NULL, 0, 0};
    int coll = ty->kind == ENG_LIST || ty->kind == ENG_SET || ty->kind == ENG_MAP;
    if (deleting) {
        if (!coll)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid deletion operation for non collection column %s", c->name);
        if (ty->frozen)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid deletion operation for frozen collection column %s",
                              c->name);
    } else {
        if (!coll)
            return element_error(a, c, key, value, "non collection");
        if (ty->frozen)
            return element_error(a, c, key, value, "frozen collection");
        if (ty->kind == ENG_SET)
            return element_error(a, c, key, value, "set");
    }
    if (ty->kind == ENG_LIST) {
        op.key_type = &int_type;
        op.value_type = ty->sub[0];
    } else if (ty->kind == ENG_MAP) {
        op.key_type = ty->sub[0];
        op.value_type = ty->sub[1];
    } else {
        /* DELETE s[e]: the element's cell (Sets.ElementDiscarder). */
        op.key_type = ty->sub[0];
    }
    if (deleting) {
        op.kind = ENG_OP_ELEM_DELETE;
        op.value_type = NULL;
    }
    return add_op(a, m, op, NULL);
}

/* UDT field writes: the key is the field's index as 2 bytes (engine convention). */
static int field_index(cql_analysis *a, const eng_column *c, const char *field, int *idx)
{
    const eng_type *ty = c->type;
    if (ty->kind != ENG_UDT)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Invalid field selection: %s of type %s is not a user type", c->name,
                          "non-UDT");
    for (int i = 0; i < ty->n_sub; i++)
        if (!strcmp(ty->fields[i], field)) {
            *idx = i;
            return 0;
        }
    return eng_errorf(a->err, ENG_E_INVALID, "Unknown field %s for column %s", field, c->name);
}

/* Operation.SetField.toString: "b.a = 0", the value as written. */
static int set_field_error(cql_analysis *a, const eng_column *c, const char *field,
                           const cql_term *value, const char *what)
{
    eng_buf v = ENG_BUF_INIT;
    cql_term_text(value, &v);
    int rc = eng_errorf(a->err, ENG_E_INVALID, "Invalid operation (%s.%s = %s) for %s column %s",
                        c->name, field, eng_buf_cstr(&v) ? (char *)v.p : "?", what, c->name);
    eng_buf_free(&v);
    return rc;
}

/*
 * u.f = v (Operation.SetField) and DELETE u.f (FieldDeletion): the column must be a UDT that
 * is not frozen, then have the field, checked in that order.
 */
static int field_op(cql_analysis *a, mod_plan *m, int col, const char *field, const cql_term *value,
                    int deleting)
{
    const eng_column *c = &m->t->cols[col];
    int udt = c->type->kind == ENG_UDT;
    if (deleting && !udt)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Invalid field deletion operation for non-UDT column %s", c->name);
    if (deleting && c->type->frozen)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Frozen UDT column %s does not support field deletions", c->name);
    if (!udt || c->type->frozen)
        return set_field_error(a, c, field, value, udt ? "frozen UDT" : "non-UDT");
    int idx = -1;
    for (int i = 0; i < c->type->n_sub && idx < 0; i++)
        if (!strcmp(c->type->fields[i], field))
            idx = i;
    if (idx < 0)
        return eng_errorf(a->err, ENG_E_INVALID, "UDT column %s does not have a field named %s",
                          c->name, field);
    uint8_t *key = eng_arena_alloc(&a->plan->arena, sizeof(cql_term) + 2);
    if (!key)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    /* A synthetic constant term holding the be16 index, evaluated as a blob. */
    cql_term *kt = (cql_term *)key;
    memset(kt, 0, sizeof *kt);
    kt->kind = CQL_T_HEX;
    char *hex = eng_arena_alloc(&a->plan->arena, 5);
    if (!hex)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    snprintf(hex, 5, "%04x", idx);
    kt->text = hex;
    kt->len = 4;
    static const eng_type blob = {.kind = ENG_BLOB};
    mod_op op = {col, ENG_OP_ELEM_SET, kt, value, &blob, c->type->sub[idx], 0, 0};
    if (deleting) {
        op.kind = ENG_OP_ELEM_DELETE;
        op.value_type = NULL;
    }
    return add_op(a, m, op, field);
}

static int resolve_write_column(cql_analysis *a, mod_plan *m, const char *name, int *col,
                                int in_set)
{
    int rc = cql_resolve_column(a, m->t, name, col);
    if (rc)
        return rc;
    if (is_key(m->t, *col))
        return in_set ? eng_errorf(a->err, ENG_E_INVALID, "PRIMARY KEY part %s found in SET part",
                                   name)
                      : eng_errorf(a->err, ENG_E_INVALID,
                                   "Invalid identifier %s for deletion (should not be a PRIMARY "
                                   "KEY part)",
                                   name);
    return 0;
}

static int analyze_set(cql_analysis *a, mod_plan *m, const cql_assignment *s)
{
    int col;
    int rc = resolve_write_column(a, m, s->col, &col, 1);
    if (rc)
        return rc;
    const eng_column *c = &m->t->cols[col];
    switch (s->kind) {
    case CQL_SET_VALUE: {
        if (c->type->kind == ENG_COUNTER)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Cannot set the value of counter column %s (counters can only be "
                              "incremented/decremented, not set)",
                              c->name);
        mod_op op = {col, ENG_OP_SET, NULL, s->value, NULL, c->type, 0, 0};
        return add_op(a, m, op, NULL);
    }
    case CQL_SET_ELEMENT:
        return element_op(a, m, col, s->key, s->value, 0);
    case CQL_SET_FIELD:
        return field_op(a, m, col, s->field, s->value, 0);
    default:
        return arith_op(a, m, s, col);
    }
}

static const eng_type text_type = {.kind = ENG_TEXT};

/*
 * INSERT JSON (UpdateStatement.ParsedInsertJson): every column of the table
 * is written, the key columns as restrictions and the others as setters,
 * each taking its value from the object at execution (null, or unset with
 * DEFAULT UNSET, when the object leaves it out). The object is one text
 * term: a string, or a marker named [json].
 */
static int analyze_insert_json(cql_analysis *a, mod_plan *m, const cql_insert *in)
{
    const eng_table *t = m->t;
    m->json = in->json;
    m->json_unset = in->json_default_unset;
    int rc = cql_bind_term(a, in->json, &text_type, m->ks, m->table, CQL_JSON_COLUMN);
    for (uint32_t i = 0; !rc && i < t->n_cols; i++) {
        if (is_key(t, (int)i)) {
            cql_restrict_insert_json(&m->r, (int)i);
        } else {
            mod_op op = {(int)i, ENG_OP_SET, NULL, NULL, NULL, t->cols[i].type, 0, 1};
            rc = add_op(a, m, op, NULL);
        }
    }
    if (!rc)
        rc = cql_restrict_insert_done(a, &m->r);
    m->insert_marker = 1;
    return rc;
}

static int analyze_insert(cql_analysis *a, mod_plan *m)
{
    const cql_insert *in = &m->stmt->u.insert;
    const eng_table *t = m->t;
    if (t->is_counter)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "INSERT statements are not allowed on counter tables, use UPDATE "
                          "instead");
    if (in->json)
        return analyze_insert_json(a, m, in);
    if (in->n_cols != in->n_values)
        return eng_errorf(a->err, ENG_E_INVALID, "Unmatched column names/values");
    if (in->n_cols == 0)
        return eng_errorf(a->err, ENG_E_INVALID, "No columns provided to INSERT");
    for (int i = 0; i < in->n_cols; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(in->cols[i], in->cols[j]))
                return eng_errorf(a->err, ENG_E_INVALID, "The column names contains duplicates");
        int col;
        int rc = cql_resolve_column(a, t, in->cols[i], &col);
        if (rc)
            return rc;
        if (is_key(t, col)) {
            rc = cql_restrict_insert_value(a, &m->r, col, &in->values[i]);
        } else {
            mod_op op = {col, ENG_OP_SET, NULL, in->values[i], NULL, t->cols[col].type, 0, 0};
            rc = add_op(a, m, op, NULL);
        }
        if (rc)
            return rc;
    }
    int rc = cql_restrict_insert_done(a, &m->r);
    m->insert_marker = 1;
    return rc;
}

/* ---- conditions ---- */

/* ColumnCondition.Raw.validateOperationOnDurations: durations have no order. */
static int check_duration_slice(cql_analysis *a, const eng_type *ty, int op)
{
    if (op < CQL_OP_LT || op > CQL_OP_GE || !eng_type_contains_kind(ty, ENG_DURATION))
        return 0;
    static const char *const ops[] = {[CQL_OP_LT] = "<", [CQL_OP_LE] = "<=", [CQL_OP_GT] = ">",
                                      [CQL_OP_GE] = ">="};
    const char *what = ty->kind == ENG_LIST || ty->kind == ENG_SET || ty->kind == ENG_MAP
                           ? "collections"
                       : ty->kind == ENG_TUPLE ? "tuples"
                       : ty->kind == ENG_UDT   ? "UDTs"
                                               : NULL;
    if (what)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Slice conditions are not supported on %s containing durations", what);
    return eng_errorf(a->err, ENG_E_INVALID,
                      "Slice conditions ( %s ) are not supported on durations", ops[op]);
}

/*
 * One condition, checked as ModificationStatement.Parsed.prepareColumnConditions
 * does: the column, then ColumnCondition.Raw.prepare (counters, element and field
 * access, durations, CONTAINS, the values' types), then the primary key rule.
 */
static int analyze_condition(cql_analysis *a, mod_plan *m, const cql_condition *c)
{
    const eng_table *t = m->t;
    int col;
    int rc = cql_resolve_column(a, t, c->col, &col);
    if (rc)
        return rc;
    const eng_column *column = &t->cols[col];
    const eng_type *ty = column->type;
    if (ty->kind == ENG_COUNTER)
        return eng_errorf(a->err, ENG_E_INVALID, "Conditions on counters are not supported");
    if (c->op < CQL_OP_EQ || c->op > CQL_OP_CONTAINS_KEY)
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported operator in condition on %s",
                          column->name);
    mod_cond mc = {col, c->op, 0, NULL, NULL, ty, c->values, c->n_values, c->in_marker};
    /* The values' receiver (facts §2.6): the column, value(l) / value(m), key(m) or u.f. */
    char receiver[300];
    snprintf(receiver, sizeof receiver, "%s", column->name);
    if (c->elem) {
        if (ty->kind == ENG_SET)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid element access syntax for set column %s", column->name);
        if (ty->kind != ENG_LIST && ty->kind != ENG_MAP)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid element access syntax for non-collection column %s",
                              column->name);
        mc.elem = 1;
        mc.key = c->elem;
        mc.key_type = ty->kind == ENG_LIST ? &int_type : ty->sub[0];
        mc.val_type = ty->kind == ENG_LIST ? ty->sub[0] : ty->sub[1];
        if ((rc = check_duration_slice(a, mc.val_type, c->op)))
            return rc;
        char name[300];
        snprintf(name, sizeof name, "%s(%s)", ty->kind == ENG_LIST ? "idx" : "key", column->name);
        if ((rc = cql_bind_term(a, c->elem, mc.key_type, m->ks, m->table, name)))
            return rc;
        snprintf(receiver, sizeof receiver, "value(%s)", column->name);
    } else if (c->field) {
        int idx = 0;
        if ((rc = field_index(a, column, c->field, &idx)))
            return rc;
        static const eng_type blob = {.kind = ENG_BLOB};
        cql_term *kt = cql_plan_zalloc(a, sizeof *kt);
        char *hex = cql_plan_zalloc(a, 5);
        if (!kt || !hex)
            return ENG_E_NOMEM;
        snprintf(hex, 5, "%04x", (unsigned)(uint16_t)idx); /* a field position: 16 bits */
        kt->kind = CQL_T_HEX;
        kt->text = hex;
        kt->len = 4;
        mc.elem = 1;
        mc.key = kt;
        mc.key_type = &blob;
        mc.val_type = ty->sub[idx];
        if ((rc = check_duration_slice(a, mc.val_type, c->op)))
            return rc;
        snprintf(receiver, sizeof receiver, "%s.%s", column->name, c->field);
    } else if ((rc = check_duration_slice(a, ty, c->op))) {
        return rc;
    }
    if (c->op == CQL_OP_CONTAINS_KEY && ty->kind != ENG_MAP)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot use CONTAINS KEY on non-map column %s",
                          column->name);
    if (c->op == CQL_OP_CONTAINS && ty->kind != ENG_LIST && ty->kind != ENG_SET &&
        ty->kind != ENG_MAP)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot use CONTAINS on non-collection column %s",
                          column->name);
    if (c->op == CQL_OP_CONTAINS || c->op == CQL_OP_CONTAINS_KEY) {
        /* CollectionType.makeCollectionReceiver: an element, a map value or a map key. */
        int key = c->op == CQL_OP_CONTAINS_KEY;
        mc.val_type = ty->kind == ENG_MAP && !key ? ty->sub[1] : ty->sub[0];
        snprintf(receiver, sizeof receiver, "%s(%s)", key ? "key" : "value", column->name);
    }
    if (c->in_marker) {
        eng_type *lt = eng_type_new_list(eng_type_dup(mc.val_type), 1);
        const eng_type *kept = cql_plan_keep_type(a->plan, lt);
        if (!kept)
            return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
        char name[310];
        snprintf(name, sizeof name, "in(%s)", receiver);
        cql_bind_marker(a, c->values[0], kept, m->ks, m->table, name);
    } else {
        for (int i = 0; i < c->n_values; i++)
            if ((rc = cql_bind_term(a, c->values[i], mc.val_type, m->ks, m->table, receiver)))
                return rc;
    }
    if (is_key(t, col))
        return eng_errorf(a->err, ENG_E_INVALID,
                          "PRIMARY KEY column '%s' cannot have IF conditions", column->name);
    mod_cond *conds = cql_plan_zalloc(a, (size_t)(m->n_conds + 1) * sizeof *conds);
    if (!conds)
        return ENG_E_NOMEM;
    if (m->n_conds)
        memcpy(conds, m->conds, (size_t)m->n_conds * sizeof *conds);
    conds[m->n_conds++] = mc;
    m->conds = conds;
    return 0;
}

/* ModificationStatement.Parsed.prepareConditions, before the SET and WHERE clauses. */
static int analyze_conditions(cql_analysis *a, mod_plan *m, int if_exists, int if_not_exists,
                              const cql_condition *conds, int n)
{
    m->if_exists = if_exists;
    m->if_not_exists = if_not_exists;
    if (n && m->ts)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for conditional updates");
    for (int i = 0; i < n; i++) {
        int rc = analyze_condition(a, m, &conds[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int is_conditional(const mod_plan *m)
{
    return m->n_conds || m->if_exists || m->if_not_exists;
}

/* The ModificationStatement constructor's checks, once the restrictions are known. */
static int check_conditional(cql_analysis *a, const mod_plan *m)
{
    if (!is_conditional(m))
        return 0;
    if (m->t->is_counter)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Conditional updates are not supported on counter tables");
    if (m->ts)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for conditional updates");
    return 0;
}

/* ---- the statement's shape ---- */

/*
 * Which rows the statement writes, with Cassandra's checks in its order:
 * StatementRestrictions (cql_restrict_check_written: static-only statements
 * take no clustering restriction; UPDATE and INSERT need the whole
 * clustering key), the ModificationStatement constructor
 * (check_conditional), then DeleteStatement's (a conditional DELETE without
 * the full primary key may only touch statics), then the range-deletion
 * rule of addUpdateForKey.
 */
static int finish_shape(cql_analysis *a, mod_plan *m)
{
    const eng_table *t = m->t;
    int kind = m->stmt->kind;
    int writes_regular = 0, writes_static = 0, cond_regular = 0, cond_static = 0;
    for (int i = 0; i < m->n_ops; i++) {
        if (t->cols[m->ops[i].col].kind == ENG_COL_STATIC)
            writes_static = 1;
        else
            writes_regular = 1;
    }
    for (int i = 0; i < m->n_conds; i++) {
        if (t->cols[m->conds[i].col].kind == ENG_COL_STATIC)
            cond_static = 1;
        else
            cond_regular = 1;
    }
    const cql_restrictions *r = &m->r;
    int ck_restricted = r->n_ck_eq > 0 || r->ck_slice;
    int full_ck = r->n_ck_eq == t->n_ck && !r->ck_slice;
    /* ModificationStatement.appliesOnlyToStaticColumns; Operations.appliesToRegularColumns:
       a DELETE of no column deletes rows, which applies to the regular columns. */
    int ops_regular = writes_regular || (kind == CQL_S_DELETE && !m->n_ops);
    int only_static = !ops_regular && !cond_regular && (writes_static || cond_static);
    m->updates_regular = t->n_ck == 0 || ck_restricted;
    m->updates_static = writes_static;
    int rc = cql_restrict_check_written(a, r, only_static);
    if (rc)
        return rc;
    if (kind == CQL_S_DELETE) {
        if ((rc = check_conditional(a, m)))
            return rc;
        /* Operations.appliesToRegularColumns: a DELETE of no column deletes rows. */
        if (is_conditional(m) && !full_ck && (writes_regular || !m->n_ops))
            return eng_errorf(a->err, ENG_E_INVALID,
                              "DELETE statements must restrict all PRIMARY KEY columns with "
                              "equality relations in order to delete non static columns");
        if (is_conditional(m) && !full_ck && cond_regular)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "DELETE statements must restrict all PRIMARY KEY columns with "
                              "equality relations in order to use IF condition on non static "
                              "columns");
        if (!m->n_ops) {
            if (r->ck_slice || (!full_ck && r->n_ck_eq > 0))
                return 0; /* range deletion */
            m->delete_row = t->n_ck > 0 && full_ck;
            m->delete_partition = !m->delete_row;
            return 0;
        }
        if (!full_ck && writes_regular)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Range deletions are not supported for specific columns");
        m->static_only = !full_ck;
        return 0;
    }
    m->static_only = !full_ck; /* the static row alone (the check above let it through) */
    return check_conditional(a, m);
}

/* ModificationStatement.validate, after the statement (and a batch's own checks). */
static int validate_statement(cql_analysis *a, const mod_plan *m)
{
    if (m->t->is_counter && m->ts)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for counter updates");
    if (m->t->is_counter && m->ttl)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot provide custom TTL for counter updates");
    return 0;
}

static int analyze_one(cql_analysis *a, const cql_stmt *st, mod_plan **out)
{
    const cql_qname *name = st->kind == CQL_S_INSERT   ? &st->u.insert.table
                            : st->kind == CQL_S_UPDATE ? &st->u.update.table
                                                       : &st->u.del.table;
    const eng_table *t;
    int rc = cql_resolve_table(a, name, &t);
    if (rc)
        return rc;
    mod_plan *m = cql_plan_zalloc(a, sizeof *m);
    if (!m)
        return ENG_E_NOMEM;
    m->stmt = st;
    m->t = t;
    m->ks = t->ks;
    m->table = t->name;
    if ((rc = cql_restrict_init(a, &m->r, t, st->kind)))
        return rc;
    if (st->kind == CQL_S_INSERT) {
        const cql_insert *in = &st->u.insert;
        rc = analyze_insert(a, m);
        if (!rc)
            rc = analyze_using(a, m, &in->using);
        if (!rc)
            rc = analyze_conditions(a, m, 0, in->if_not_exists, NULL, 0);
    } else if (st->kind == CQL_S_UPDATE) {
        const cql_update *u = &st->u.update;
        rc = analyze_using(a, m, &u->using);
        if (!rc)
            rc = analyze_conditions(a, m, u->if_exists, 0, u->conds, u->n_conds);
        for (int i = 0; !rc && i < u->n_sets; i++)
            rc = analyze_set(a, m, &u->sets[i]);
        if (!rc)
            rc = cql_restrict_where(a, &m->r, u->where, u->n_where, 0);
    } else {
        const cql_delete *d = &st->u.del;
        if (d->using.ttl)
            return eng_errorf(a->err, ENG_E_SYNTAX, "line %d:%d USING TTL is not allowed in DELETE",
                              st->line, st->col);
        rc = analyze_using(a, m, &d->using);
        if (!rc)
            rc = analyze_conditions(a, m, d->if_exists, 0, d->conds, d->n_conds);
        for (int i = 0; !rc && i < d->n_targets; i++) {
            const cql_delete_target *dt = &d->targets[i];
            int col;
            rc = resolve_write_column(a, m, dt->col, &col, 0);
            if (rc)
                break;
            if (dt->key)
                rc = element_op(a, m, col, dt->key, NULL, 1);
            else if (dt->field)
                rc = field_op(a, m, col, dt->field, NULL, 1);
            else
                rc = add_op(a, m, (mod_op){col, ENG_OP_DELETE, NULL, NULL, NULL, NULL, 0, 0}, NULL);
        }
        if (!rc)
            rc = cql_restrict_where(a, &m->r, d->where, d->n_where, 0);
    }
    if (!rc && st->kind != CQL_S_INSERT && t->is_counter && st->kind == CQL_S_UPDATE)
        for (int i = 0; i < m->n_ops; i++)
            if (m->ops[i].kind != ENG_OP_COUNTER_ADD)
                return eng_errorf(a->err, ENG_E_INVALID,
                                  "Cannot mix counter and non counter operations");
    if (!rc)
        rc = finish_shape(a, m);
    if (rc)
        return rc;
    if (!a->plan->table)
        a->plan->table = t;
    *out = m;
    return 0;
}

int cql_analyze_modification(cql_analysis *a)
{
    mod_plan *m;
    int rc = analyze_one(a, a->stmt, &m);
    if (!rc)
        rc = validate_statement(a, m);
    if (!rc)
        a->plan->detail = m;
    return rc;
}

/* ---- execution: values ---- */

/*
 * INSERT JSON: the value of every column of the table (in column order) from
 * the object, copied into the execution arena; *out NULL for other statements.
 */
static int eval_json(cql_exec *x, const mod_plan *m, eng_val **out)
{
    *out = NULL;
    if (!m->json)
        return 0;
    const eng_table *t = m->t;
    eng_val doc;
    int rc = cql_eval_val(x, m->json, &text_type, CQL_JSON_COLUMN, &doc);
    if (rc)
        return rc;
    /* QueryOptions.getJsonColumnValue: a null object; an unset one reads as "". */
    if (doc.len == ENG_NULL)
        return eng_errorf(x->err, ENG_E_INVALID, "Got null for INSERT JSON values");
    uint32_t n = t->n_cols;
    cql_json_column *cols = eng_arena_alloc(&x->arena, (n ? n : 1) * sizeof *cols);
    int *states = eng_arena_alloc(&x->arena, (n ? n : 1) * sizeof *states);
    eng_val *vals = eng_arena_alloc(&x->arena, (n ? n : 1) * sizeof *vals);
    eng_buf *bufs = eng_calloc(n ? n : 1, sizeof *bufs);
    if (!cols || !states || !vals || !bufs) {
        eng_free(bufs);
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        cols[i] = (cql_json_column){t->cols[i].name, t->cols[i].type};
    rc = cql_json_insert_values(doc.len > 0 ? (const char *)doc.p : "",
                                doc.len > 0 ? (size_t)doc.len : 0, cols, (int)n, m->json_unset,
                                bufs, states, x->err);
    for (uint32_t i = 0; !rc && i < n; i++) {
        if (states[i] == CQL_VALUE_NULL) {
            vals[i] = (eng_val){NULL, ENG_NULL};
        } else if (states[i] == CQL_VALUE_UNSET) {
            vals[i] = (eng_val){NULL, ENG_UNSET};
        } else {
            vals[i].p = eng_arena_memdup(&x->arena, bufs[i].p, bufs[i].len);
            vals[i].len = (int32_t)bufs[i].len;
            if (!vals[i].p || bufs[i].oom)
                rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        }
    }
    for (uint32_t i = 0; i < n; i++)
        eng_buf_free(&bufs[i]);
    eng_free(bufs);
    if (!rc)
        *out = vals;
    return rc;
}

static int eval_using(cql_exec *x, const mod_plan *m, int64_t *ts, int32_t *ttl)
{
    *ts = x->opts->timestamp;
    *ttl = -1;
    eng_val v;
    int rc;
    if (m->ttl) {
        if ((rc = cql_eval_val(x, m->ttl, &int_type, "[ttl]", &v)))
            return rc;
        if (v.len == ENG_NULL) {
            *ttl = 0;
        } else if (v.len == 4) {
            int32_t n = (int32_t)eng_be32(v.p);
            if (n < 0)
                return eng_errorf(x->err, ENG_E_INVALID,
                                  "A TTL must be greater or equal to 0, but was %d", n);
            if (n > MAX_TTL)
                return eng_errorf(x->err, ENG_E_INVALID,
                                  "ttl is too large. requested (%d) maximum (%d)", n, MAX_TTL);
            *ttl = n;
        } else if (v.len != ENG_UNSET) {
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid timestamp value");
        }
    }
    if (m->ts) {
        if ((rc = cql_eval_val(x, m->ts, &bigint_type, "[timestamp]", &v)))
            return rc;
        if (v.len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value of timestamp");
        if (v.len == 8) {
            int64_t t = (int64_t)eng_be64(v.p);
            if (t == INT64_MIN)
                return eng_errorf(x->err, ENG_E_INVALID,
                                  "Out of bound timestamp, must be in [%lld, %lld]",
                                  (long long)(INT64_MIN + 1), (long long)INT64_MAX);
            *ts = t;
        }
    }
    return 0;
}

static int eval_ops(cql_exec *x, const mod_plan *m, const eng_val *json, eng_cell_op **out)
{
    eng_cell_op *ops = eng_arena_alloc(&x->arena, (size_t)(m->n_ops ? m->n_ops : 1) * sizeof *ops);
    if (!ops)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    for (int i = 0; i < m->n_ops; i++) {
        const mod_op *o = &m->ops[i];
        const eng_column *c = &m->t->cols[o->col];
        eng_cell_op *e = &ops[i];
        e->col = (uint16_t)o->col;
        e->kind = (uint8_t)o->kind;
        e->key = (eng_val){NULL, 0};
        e->value = (eng_val){NULL, 0};
        int rc = 0;
        if (o->key)
            rc = cql_eval_val(x, o->key, o->key_type, c->name, &e->key);
        if (!rc && o->value)
            rc = cql_eval_val(x, o->value, o->value_type, c->name, &e->value);
        if (o->from_json)
            e->value = json[o->col];
        if (rc)
            return rc;
        /* Maps.SetterByKey / DiscarderByKey, Lists.SetterByIndex / DiscarderByIndex. */
        int elem = o->kind == ENG_OP_ELEM_SET || o->kind == ENG_OP_ELEM_DELETE;
        if (elem && c->type->kind == ENG_MAP && e->key.len < 0)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid %s map key",
                              e->key.len == ENG_NULL ? "null" : "unset");
        if (elem && c->type->kind == ENG_LIST && e->key.len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for list index");
        if (o->kind == ENG_OP_ELEM_SET && c->type->kind == ENG_LIST && e->key.len == ENG_UNSET)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid unset value for list index");
        if (o->kind == ENG_OP_ELEM_DELETE && e->key.len == ENG_UNSET)
            e->value = (eng_val){NULL, ENG_UNSET}; /* DELETE l[unset]: nothing to do */
        if (o->kind == ENG_OP_COUNTER_ADD) {
            if (e->value.len == ENG_NULL)
                return eng_errorf(x->err, ENG_E_INVALID,
                                  "Invalid null value for counter increment");
            if (o->negate && e->value.len == 8) {
                int64_t d = (int64_t)eng_be64(e->value.p);
                if (d == INT64_MIN)
                    return eng_errorf(x->err, ENG_E_INVALID,
                                      "The negation of -9223372036854775808 overflows supported "
                                      "counter precision (signed 8 bytes integer)");
                uint8_t *neg = eng_arena_alloc(&x->arena, 8);
                if (!neg)
                    return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
                eng_put_be64(neg, (uint64_t)-d);
                e->value.p = neg;
            }
        }
    }
    *out = ops;
    return 0;
}

/* ---- execution: mutations ---- */

typedef struct mut_list {
    eng_mutation *v;
    uint32_t n, cap;
} mut_list;

static int push_mutation(cql_exec *x, mut_list *l, const eng_mutation *m)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 4;
        eng_mutation *v = eng_arena_alloc(&x->arena, cap * sizeof *v);
        if (!v)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *m;
    return 0;
}

/* What a counter mutation adds to its size: its consistency level's name, as a [string]
   (CounterMutation.serializedSize). Levels by protocol code. */
static uint32_t counter_mutation_extra(int cl)
{
    static const char *const names[] = {"ANY",          "ONE",         "TWO",    "THREE",
                                        "QUORUM",       "ALL",         "LOCAL_QUORUM",
                                        "EACH_QUORUM",  "SERIAL",      "LOCAL_SERIAL",
                                        "LOCAL_ONE",    "NODE_LOCAL"};
    const char *name = cl >= 0 && cl < (int)ENG_ARRAY_LEN(names) ? names[cl] : "ONE";
    return 2 + (uint32_t)strlen(name);
}

/* Mutation.validateSize, as the coordinator builds a request's mutations: nothing is written
   when one of them is over max_mutation_size. */
static int check_mutation_size(cql_exec *x, const mut_list *muts, int cl)
{
    eng_db *db = x->session->db;
    return eng_check_mutation_size(muts->v, muts->n, eng_clock_now_us(eng_db_clock(db)),
                                   counter_mutation_extra(cl), x->err);
}

/*
 * The statement's mutations, one per partition it names. Writes to static
 * columns go to the partition's static row, once, whatever clustering the
 * statement names (the engine keeps statics in their own row); the rest,
 * the row marker and the row deletion go to each named clustering row.
 */
static int build_mutations(cql_exec *x, const mod_plan *m, mut_list *out)
{
    const eng_table *t = m->t;
    const cql_restrictions *r = &m->r;
    int n_keys = t->n_pk + t->n_ck;
    cql_key_values *kv = eng_arena_alloc(&x->arena, (size_t)(n_keys ? n_keys : 1) * sizeof *kv);
    if (!kv)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    eng_val *json = NULL;
    int rc = eval_json(x, m, &json);
    if (!rc) /* with ck_tuples the clustering comes from the groups, below */
        rc = cql_restrict_key_values(x, r, t->n_pk + (r->ck_tuples ? 0 : r->n_ck_eq), json, kv);
    int64_t ts;
    int32_t ttl;
    eng_cell_op *ops = NULL;
    if (!rc)
        rc = eval_using(x, m, &ts, &ttl);
    if (!rc)
        rc = eval_ops(x, m, json, &ops);
    if (rc)
        return rc;
    /* Static and regular operations apart, each keeping the statement's order. */
    eng_cell_op *split =
        eng_arena_alloc(&x->arena, (size_t)(m->n_ops ? m->n_ops : 1) * sizeof *split);
    if (!split)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    uint32_t n_static = 0, n_regular = 0;
    for (int i = 0; i < m->n_ops; i++)
        if (t->cols[ops[i].col].kind == ENG_COL_STATIC)
            split[n_static++] = ops[i];
    for (int i = 0; i < m->n_ops; i++)
        if (t->cols[ops[i].col].kind != ENG_COL_STATIC)
            split[n_static + n_regular++] = ops[i];
    /* A DELETE range: a clustering prefix and perhaps a slice on the next column. */
    int is_range =
        m->stmt->kind == CQL_S_DELETE && !m->n_ops && !m->delete_row && !m->delete_partition;
    /* Clustering rows are written unless the statement only touches the static row. */
    int clustering_rows = !m->static_only && !m->delete_partition &&
                          (is_range || n_regular || m->insert_marker || m->delete_row);
    uint32_t n_parts, n_rows;
    const eng_slice *ck_slices = NULL; /* ck_tuples: a full clustering or a range each */
    if (r->ck_tuples) {
        if ((rc = cql_restrict_write_count(x, r, kv, 0, &n_parts, &n_rows)))
            return rc;
        if (clustering_rows) {
            eng_query q;
            eng_val *mixed_lo = NULL, *mixed_hi = NULL; /* refused at prepare for writes */
            memset(&q, 0, sizeof q);
            rc = cql_restrict_clustering_slices(x, r, &q, &mixed_lo, &mixed_hi);
            if (rc < 0 || rc > 1)
                return rc;
            ck_slices = q.slices;
            n_rows = rc ? 0 : q.n_slices;
            if ((uint64_t)n_parts * n_rows > CQL_MAX_IN_COMBINATIONS)
                return eng_errorf(x->err, ENG_E_INVALID, "Too many IN combinations (%llu)",
                                  (unsigned long long)n_parts * n_rows);
        }
    } else if ((rc = cql_restrict_write_count(x, r, kv, clustering_rows, &n_parts, &n_rows))) {
        return rc;
    }
    cql_slice_bounds bounds;
    if (is_range && n_parts && n_rows && !ck_slices &&
        (rc = cql_restrict_slice_bounds(x, r, &bounds)))
        return rc;
    for (uint32_t p = 0; p < n_parts; p++) {
        eng_val *pk = eng_arena_alloc(&x->arena, (size_t)t->n_pk * sizeof *pk);
        eng_row_mut *rows = eng_arena_alloc(&x->arena, (n_rows + 1) * sizeof *rows);
        eng_slice *range =
            is_range ? eng_arena_alloc(&x->arena, (n_rows + 1) * sizeof *range) : NULL;
        if (!pk || !rows || (is_range && !range))
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        cql_restrict_combination(kv, 0, t->n_pk, p, pk);
        eng_mutation mu = {t, pk, ts, ttl, (uint8_t)m->delete_partition, 0, NULL, 0, rows, 0};
        if (n_static) {
            eng_row_mut *rm = &rows[mu.n_rows++];
            memset(rm, 0, sizeof *rm);
            rm->n_ops = n_static;
            rm->ops = split;
        }
        for (uint32_t row = 0; row < n_rows; row++) {
            if (ck_slices && is_range) {
                range[mu.n_range_dels++] = ck_slices[row];
                continue;
            }
            eng_val *ck = ck_slices ? (eng_val *)ck_slices[row].start.vals
                                    : eng_arena_alloc(&x->arena, (size_t)(t->n_ck + 1) * sizeof *ck);
            if (!ck)
                return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
            if (!ck_slices)
                cql_restrict_combination(kv, t->n_pk, r->n_ck_eq, row, ck);
            if (is_range) {
                if ((rc = cql_restrict_slice(x, r, ck, &bounds, &range[mu.n_range_dels++])))
                    return rc;
                continue;
            }
            eng_row_mut *rm = &rows[mu.n_rows++];
            rm->ck = ck;
            rm->insert_marker = (uint8_t)m->insert_marker;
            rm->delete_row = (uint8_t)m->delete_row;
            rm->n_ops = n_regular;
            rm->ops = split + n_static;
        }
        mu.range_dels = range;
        if ((rc = push_mutation(x, out, &mu)))
            return rc;
    }
    return 0;
}

/* ---- compare-and-set ---- */

static int eval_conditions(cql_exec *x, const mod_plan *m, eng_condition **out)
{
    eng_condition *c =
        eng_arena_alloc(&x->arena, (size_t)(m->n_conds ? m->n_conds : 1) * sizeof *c);
    if (!c)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    for (int i = 0; i < m->n_conds; i++) {
        const mod_cond *mc = &m->conds[i];
        const eng_column *col = &m->t->cols[mc->col];
        eng_condition *e = &c[i];
        memset(e, 0, sizeof *e);
        e->col = (uint16_t)mc->col;
        e->op = mc->op == CQL_OP_IN             ? ENG_CMP_IN
                 : mc->op == CQL_OP_CONTAINS     ? ENG_CMP_CONTAINS
                 : mc->op == CQL_OP_CONTAINS_KEY ? ENG_CMP_CONTAINS_KEY
                                                 : (uint8_t)(mc->op - CQL_OP_EQ + ENG_CMP_EQ);
        e->elem = (uint8_t)mc->elem;
        int rc = 0;
        if (mc->elem && (rc = cql_eval_val(x, mc->key, mc->key_type, col->name, &e->key)))
            return rc;
        if (mc->elem && e->key.len == ENG_NULL) /* ColumnCondition.ElementAccessBound */
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s element access",
                              col->type->kind == ENG_MAP ? "map" : "list");
        eng_val *vals;
        uint32_t n = 0;
        if (mc->in_marker) {
            eng_val list;
            const eng_type *lt = x->plan->binds[mc->vals[0]->bind_index].type;
            if ((rc = cql_eval_val(x, mc->vals[0], lt, col->name, &list)))
                return rc;
            if (list.len == ENG_NULL)
                return eng_errorf(x->err, ENG_E_INVALID, "Invalid null list in IN condition");
            eng_items it;
            int32_t cnt = list.len >= 0 ? eng_items_begin(&it, list.p, (size_t)list.len) : 0;
            vals = eng_arena_alloc(&x->arena, (size_t)(cnt > 0 ? cnt : 1) * sizeof *vals);
            if (!vals)
                return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
            eng_val v;
            while (cnt > 0 && eng_items_next(&it, &v) == 1)
                vals[n++] = v;
        } else {
            vals = eng_arena_alloc(&x->arena, (size_t)(mc->n_vals ? mc->n_vals : 1) * sizeof *vals);
            if (!vals)
                return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
            for (int j = 0; j < mc->n_vals; j++)
                if ((rc = cql_eval_val(x, mc->vals[j], mc->val_type, col->name, &vals[n++])))
                    return rc;
        }
        e->values = vals;
        e->n_values = n;
    }
    *out = c;
    return 0;
}

/*
 * The rows a CAS checks, as CQL3CasRequest keeps them: per clustering row
 * the regular-column conditions or an IF EXISTS / IF NOT EXISTS, and on the
 * static row the static-column conditions (or the EXISTS forms of a
 * statement that names no clustering). Built statement by statement, while
 * each statement's bound values are at hand.
 */
enum { CAS_COLUMNS = 0, CAS_EXISTS = 1, CAS_NOT_EXISTS = 2, CAS_PROBE = 3 };

typedef struct cas_builder {
    eng_cas_row *rows;
    uint8_t *kinds; /* per row: CAS_* */
    uint32_t n, cap;
    const eng_val *pk; /* the partition (of the first conditional statement) */
} cas_builder;

static int cas_begin(cql_exec *x, cas_builder *b, int n_stmts)
{
    memset(b, 0, sizeof *b);
    b->cap = (uint32_t)n_stmts * 2 + 1;
    b->rows = eng_arena_alloc(&x->arena, b->cap * sizeof *b->rows);
    b->kinds = eng_arena_alloc(&x->arena, b->cap);
    if (!b->rows || !b->kinds)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    return 0;
}

static int same_row(const eng_table *t, const eng_val *a, const eng_val *b)
{
    if (!a || !b)
        return a == b;
    for (int i = 0; i < t->n_ck; i++)
        if (a[i].len != b[i].len || (a[i].len > 0 && memcmp(a[i].p, b[i].p, (size_t)a[i].len)))
            return 0;
    return 1;
}

/* One row's condition, refusing the mixes CQL3CasRequest refuses on the same row. */
static int cas_add(cql_exec *x, cas_builder *b, const eng_table *t, const eng_val *ck, int kind,
                   const eng_condition *conds, uint32_t n_conds)
{
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->kinds[i] == CAS_PROBE || !same_row(t, b->rows[i].ck, ck))
            continue;
        int prev = b->kinds[i];
        if (kind != CAS_COLUMNS && prev == kind)
            return 0; /* the same EXISTS form twice (a batch): one is enough */
        if (kind != CAS_COLUMNS && prev != CAS_COLUMNS)
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row");
        if (kind != CAS_COLUMNS)
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Cannot mix IF conditions and IF %sEXISTS for the same row",
                              kind == CAS_NOT_EXISTS ? "NOT " : "");
        if (prev != CAS_COLUMNS)
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Cannot mix IF conditions and IF NOT EXISTS for the same row");
    }
    if (b->n == b->cap)
        return eng_errorf(x->err, ENG_E_SERVER, "too many conditional rows");
    eng_cas_row *r = &b->rows[b->n];
    memset(r, 0, sizeof *r);
    r->ck = ck;
    r->if_exists = kind == CAS_EXISTS;
    r->if_not_exists = kind == CAS_NOT_EXISTS;
    r->conds = conds;
    r->n_conds = n_conds;
    b->kinds[b->n++] = (uint8_t)kind;
    return 0;
}

/*
 * The key checks of makeCasRequest, at execution and in its order: no IN on
 * the partition key, then (batch members, `first` not NULL) the partition of
 * the batch's first statement, then no IN on the clustering columns. In a
 * batch, IN on the partition key is BatchStatement's IllegalArgumentException,
 * which reaches the client as a server error whose message is its toString.
 */
static int check_cas_keys(cql_exec *x, const mod_plan *m, const eng_val **first)
{
    const eng_table *t = m->t;
    const char *what = m->stmt->kind == CQL_S_UPDATE ? "updates" : "deletions";
    if (cql_restrict_has_in(&m->r, 0, t->n_pk)) {
        if (first)
            return eng_errorf(x->err, ENG_E_SERVER,
                              "java.lang.IllegalArgumentException: Batch with conditions cannot "
                              "span multiple partitions (you cannot use IN on the partition key)");
        return eng_errorf(x->err, ENG_E_INVALID,
                          "IN on the partition key is not supported with conditional %s", what);
    }
    if (first) {
        eng_val *json = NULL, *pk = eng_arena_alloc(&x->arena, t->n_pk * sizeof *pk);
        cql_key_values *kv = eng_arena_alloc(&x->arena, t->n_pk * sizeof *kv);
        if (!pk || !kv)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        int rc = eval_json(x, m, &json);
        if (!rc)
            rc = cql_restrict_key_values(x, &m->r, t->n_pk, json, kv);
        if (rc)
            return rc;
        for (int k = 0; k < t->n_pk; k++)
            pk[k] = kv[k].vals[0]; /* one value each: IN was refused above */
        if (!*first)
            *first = pk;
        for (int k = 0; k < t->n_pk; k++) {
            eng_val p = (*first)[k], q = pk[k];
            if (p.len != q.len || (p.len > 0 && memcmp(p.p, q.p, (size_t)p.len)))
                return eng_errorf(x->err, ENG_E_INVALID,
                                  "Batch with conditions cannot span multiple partitions");
        }
    }
    if (cql_restrict_has_in(&m->r, t->n_pk, t->n_pk + t->n_ck))
        return eng_errorf(x->err, ENG_E_INVALID,
                          "IN on the clustering key columns is not supported with conditional %s",
                          what);
    return 0;
}

/* The conditions of one statement (evaluated with its bound values). */
static int cas_add_statement(cql_exec *x, cas_builder *b, const mod_plan *m)
{
    if (!is_conditional(m))
        return 0;
    const eng_table *t = m->t;
    int n_keys = t->n_pk + t->n_ck;
    /* ck_tuples: the clustering from the groups (one row: check_cas_keys refused IN) */
    int n_named = t->n_pk + (m->r.ck_tuples ? 0 : m->r.n_ck_eq);
    cql_key_values *kv = eng_arena_alloc(&x->arena, (size_t)(n_keys + 1) * sizeof *kv);
    eng_val *key = eng_arena_alloc(&x->arena, (size_t)(n_keys + 1) * sizeof *key);
    if (!kv || !key)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    eng_val *json = NULL;
    int rc = eval_json(x, m, &json);
    if (!rc) /* one value each: check_cas_keys refused IN */
        rc = cql_restrict_key_values(x, &m->r, n_named, json, kv);
    if (rc)
        return rc;
    cql_restrict_combination(kv, 0, n_named, 0, key);
    if (m->r.ck_tuples && !m->static_only && m->r.n_ck_eq == t->n_ck) {
        eng_query q;
        eng_val *mixed_lo = NULL, *mixed_hi = NULL;
        memset(&q, 0, sizeof q);
        rc = cql_restrict_clustering_slices(x, &m->r, &q, &mixed_lo, &mixed_hi);
        if (rc == 1 || (!rc && q.n_slices != 1))
            return eng_errorf(x->err, ENG_E_INVALID,
                              "IN on the clustering key columns is not supported with "
                              "conditional %s",
                              m->stmt->kind == CQL_S_UPDATE ? "updates" : "deletions");
        if (rc)
            return rc;
        memcpy(key + t->n_pk, q.slices[0].start.vals, (size_t)t->n_ck * sizeof *key);
    }
    if (!b->pk)
        b->pk = key;
    eng_condition *conds = NULL;
    if ((rc = eval_conditions(x, m, &conds)))
        return rc;
    /* Regular-column conditions first, then the static ones (ColumnConditions). */
    eng_condition *sorted = eng_arena_alloc(&x->arena, (size_t)(m->n_conds + 1) * sizeof *sorted);
    if (!sorted)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    uint32_t n_regular = 0, n_static = 0;
    for (int i = 0; i < m->n_conds; i++)
        if (t->cols[conds[i].col].kind != ENG_COL_STATIC)
            sorted[n_regular++] = conds[i];
    for (int i = 0; i < m->n_conds; i++)
        if (t->cols[conds[i].col].kind == ENG_COL_STATIC)
            sorted[n_regular + n_static++] = conds[i];
    int kind = m->if_exists ? CAS_EXISTS : m->if_not_exists ? CAS_NOT_EXISTS : CAS_COLUMNS;
    if (m->static_only || m->r.n_ck_eq < t->n_ck) /* no clustering named: the static row */
        return cas_add(x, b, t, NULL, kind, sorted, (uint32_t)m->n_conds);
    if ((n_regular || kind != CAS_COLUMNS) &&
        (rc = cas_add(x, b, t, key + t->n_pk, kind, sorted, n_regular)))
        return rc;
    if (n_static)
        rc = cas_add(x, b, t, NULL, CAS_COLUMNS, sorted + n_regular, n_static);
    return rc;
}

/*
 * Shape of the result when not applied (facts §5.3, buildCasFailureResultSet):
 * every column (SELECT * order) if any statement has IF [NOT] EXISTS; else,
 * for a batch, the primary key columns, then each statement's condition
 * columns, regular ones before static ones, without repeats.
 */
static int shape_columns(const mod_plan *const *ms, int n, int batch, const eng_table *t, int *cols)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (ms[i]->if_exists || ms[i]->if_not_exists) {
            for (uint32_t c = 0; c < t->n_cols; c++)
                cols[k++] = (int)c;
            return k;
        }
    if (batch)
        for (int c = 0; c < t->n_pk + t->n_ck; c++)
            cols[k++] = c;
    for (int i = 0; i < n; i++)
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < ms[i]->n_conds; j++) {
                int col = ms[i]->conds[j].col;
                if ((t->cols[col].kind == ENG_COL_STATIC) != pass)
                    continue;
                int seen = 0;
                for (int q = 0; q < k && !seen; q++)
                    seen = cols[q] == col;
                if (!seen)
                    cols[k++] = col;
            }
    return k;
}

typedef struct lwt_ctx {
    cql_exec *x;
    const eng_table *t;
    int *cols; /* result columns after [applied] (table column indexes) */
    int n_cols;
    uint8_t *read; /* per table column: read by the check (CQL3CasRequest.columnsToRead) */
    const eng_cas_row *rows;
    uint32_t n_rows;
    int named_rows;   /* some row condition names a clustering: only those rows are read */
    eng_val *vals;    /* one result row */
    eng_val *statics; /* per table column: the static row's values */
    int statics_seen;
    int static_content; /* some read static column has a value */
    int columns_set;
    uint32_t added;
} lwt_ctx;

static int lwt_columns(lwt_ctx *c, int with_values)
{
    cql_result *r = c->x->result;
    uint32_t n = with_values ? (uint32_t)c->n_cols + 1 : 1;
    cql_column_spec *cols = eng_arena_alloc(&c->x->arena, n * sizeof *cols);
    if (!cols)
        return ENG_E_NOMEM;
    cols[0] = (cql_column_spec){c->t->ks, c->t->name, "[applied]", cql_boolean_type()};
    for (uint32_t i = 1; i < n; i++) {
        const eng_column *col = &c->t->cols[c->cols[i - 1]];
        cols[i] = (cql_column_spec){c->t->ks, c->t->name, col->name, col->type};
    }
    r->kind = CQL_RESULT_ROWS;
    c->columns_set = 1;
    return cql_result_set_columns(r, cols, n);
}

static int lwt_add(lwt_ctx *c)
{
    static const uint8_t no = 0;
    if (!c->columns_set && lwt_columns(c, 1))
        return ENG_E_NOMEM;
    c->vals[0] = (eng_val){&no, 1};
    c->added++;
    return cql_result_add_row(c->x->result, c->vals) ? ENG_E_NOMEM : 0;
}

/* Is the row of this view one the row conditions name? */
static int lwt_named(lwt_ctx *c, const eng_row_view *v, int *named)
{
    const eng_val *ck;
    int rc = eng_view_clustering(v, &ck, c->x->err);
    *named = 0;
    for (uint32_t i = 0; !rc && i < c->n_rows && !*named; i++)
        *named = c->rows[i].ck && same_row(c->t, c->rows[i].ck, ck);
    return rc;
}

/*
 * The engine's callback with the current rows when not applied: the rows
 * the check read, processed as SelectStatement.processPartition does — each
 * live row with its statics; the static row's values kept for a partition
 * where no such row exists. Columns not read show null.
 */
static int lwt_row(void *ctx, const eng_row_view *v)
{
    lwt_ctx *c = ctx;
    const eng_table *t = c->t;
    int rc = 0;
    if (!c->statics_seen) {
        c->statics_seen = 1;
        for (uint32_t i = 0; !rc && i < t->n_cols; i++) {
            c->statics[i] = (eng_val){NULL, ENG_NULL};
            if (t->cols[i].kind != ENG_COL_STATIC || !c->read[i])
                continue;
            eng_val s;
            rc = eng_view_column(v, (uint16_t)i, &s, NULL, NULL, c->x->err);
            if (!rc && s.len >= 0) {
                c->statics[i].p = eng_arena_memdup(&c->x->arena, s.p, (size_t)s.len);
                c->statics[i].len = s.len;
                c->static_content = 1;
                if (!c->statics[i].p)
                    rc = ENG_E_NOMEM;
            }
        }
    }
    if (rc)
        return -rc;
    if (!v->row)
        return 0; /* the static row alone */
    if (c->named_rows) {
        int named;
        if ((rc = lwt_named(c, v, &named)))
            return -rc;
        if (!named)
            return 0; /* a first live row read for the static row only */
    }
    for (int i = 0; i < c->n_cols; i++) {
        int col = c->cols[i];
        c->vals[i + 1] = (eng_val){NULL, ENG_NULL};
        if (c->read[col] &&
            (rc = eng_view_column(v, (uint16_t)col, &c->vals[i + 1], NULL, NULL, c->x->err)))
            return -rc;
    }
    return (rc = lwt_add(c)) ? -rc : 0;
}

/*
 * Runs the conditional statements ms (one, or a batch's members) whose
 * conditions are in b and whose writes are muts, and shapes the result.
 */
static int run_cas(cql_exec *x, cas_builder *b, const mod_plan *const *ms, int n, mut_list *muts,
                   int batch)
{
    const eng_table *t = ms[0]->t;
    if (!b->pk)
        return eng_errorf(x->err, ENG_E_SERVER, "conditional statement without a condition");
    lwt_ctx c;
    memset(&c, 0, sizeof c);
    c.x = x;
    c.t = t;
    c.cols = eng_arena_alloc(&x->arena, (t->n_cols + 1) * sizeof *c.cols * 2);
    c.read = eng_arena_alloc(&x->arena, t->n_cols + 1);
    c.vals = eng_arena_alloc(&x->arena, (t->n_cols * 2 + 2) * sizeof *c.vals);
    c.statics = eng_arena_alloc(&x->arena, (t->n_cols + 1) * sizeof *c.statics);
    if (!c.cols || !c.read || !c.vals || !c.statics)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    c.n_cols = shape_columns(ms, n, batch, t, c.cols);
    /* CQL3CasRequest.columnsToRead: all regulars if some statement writes regular rows, all
       statics if a conditional one writes the static row, and the condition columns. */
    int updates_regular = 0, updates_static = 0;
    for (int i = 0; i < n; i++) {
        updates_regular |= ms[i]->updates_regular;
        if (is_conditional(ms[i]))
            updates_static |= ms[i]->updates_static;
    }
    for (uint32_t i = 0; i < t->n_cols; i++)
        c.read[i] = t->cols[i].kind == ENG_COL_STATIC    ? (uint8_t)updates_static
                    : t->cols[i].kind == ENG_COL_REGULAR ? (uint8_t)updates_regular
                                                         : 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < ms[i]->n_conds; j++)
            c.read[ms[i]->conds[j].col] = 1;
    /* With rows named, those rows are read (and the static row if a static column is read);
       with none, the first live row of the partition and the static row. */
    int has_static_row = 0, reads_statics = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        c.named_rows |= b->rows[i].ck != NULL;
        has_static_row |= b->rows[i].ck == NULL;
    }
    for (uint32_t i = 0; i < t->n_cols; i++)
        reads_statics |= t->cols[i].kind == ENG_COL_STATIC && c.read[i];
    if (reads_statics && !has_static_row) {
        /* No condition on the static row: one without any, so that its values come back. */
        int rc = cas_add(x, b, t, NULL, CAS_PROBE, NULL, 0);
        if (rc)
            return rc;
    }
    c.rows = b->rows;
    c.n_rows = b->n;
    /* Paxos re-stamps every write with the ballot (facts §5.5): the client's default
       timestamp and an unconditional batch member's own are not errors, just unused. */
    for (uint32_t i = 0; i < muts->n; i++) {
        muts->v[i].ts_us = ENG_TS_NONE;
        muts->v[i].now_s = x->opts ? x->opts->now_s : 0;
    }
    /* Cassandra has no coordinator check for a conditional write (its Paxos commit fails on
       the replicas); cassette refuses it as a plain write is refused (docs/compat.md). */
    int rc = check_mutation_size(x, muts, x->opts ? x->opts->consistency : 1);
    if (rc)
        return rc;
    eng_cas cas = {t, b->pk, b->n, b->rows, muts->n, muts->v, x->opts ? x->opts->now_s : 0};
    int applied = 0;
    CQL_TRACE(x->session, CQL_TRACE_COORDINATOR, "Reading existing values for CAS precondition");
    rc = eng_cas_apply(x->session->db, &cas, &applied, lwt_row, &c, x->err);
    if (rc)
        return rc;
    if (!applied && !c.added && c.static_content) {
        /* A partition without the rows read but with static content: one row of its statics. */
        for (int i = 0; i < c.n_cols; i++) {
            const eng_column *col = &t->cols[c.cols[i]];
            c.vals[i + 1] = col->kind == ENG_COL_PARTITION ? b->pk[col->position]
                            : col->kind == ENG_COL_STATIC  ? c.statics[c.cols[i]]
                                                           : (eng_val){NULL, ENG_NULL};
        }
        if (lwt_add(&c))
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    }
    if (!c.added) {
        /* Applied, or nothing found: a single [applied] column. */
        static const uint8_t yes = 1, no = 0;
        eng_val v = {applied ? &yes : &no, 1};
        if (lwt_columns(&c, 0) || cql_result_add_row(x->result, &v))
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    }
    return 0;
}

/*
 * Consistency levels, checked as Cassandra's ConsistencyLevel does, whatever the number of
 * nodes (one node meets every level, but some levels mean nothing for some requests).
 * Numbers are the protocol's.
 */
enum { CL_ANY = 0, CL_SERIAL = 8, CL_LOCAL_SERIAL = 9 };

static int is_serial(int cl)
{
    return cl == CL_SERIAL || cl == CL_LOCAL_SERIAL;
}

/* ModificationStatement.executeWithoutCondition: validateCounterForWrite / validateForWrite,
   before the mutations are built. */
static int check_write_consistency(cql_exec *x, const mod_plan *m)
{
    int cl = x->opts->consistency;
    if (m->t->is_counter) {
        if (cl == CL_ANY)
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Consistency level ANY is not yet supported for counter table %s",
                              m->t->name);
        if (is_serial(cl))
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Counter operations are inherently non-serializable");
        return 0;
    }
    if (is_serial(cl))
        return eng_errorf(x->err, ENG_E_INVALID,
                          "You must use conditional updates for serializable writes");
    return 0;
}

/* StorageProxy.cas: validateForCas (the serial level) then validateForCasCommit (the commit
   level), once the request is built. */
static int check_cas_consistency(cql_exec *x, const cql_exec_options *o)
{
    if (!is_serial(o->serial_consistency))
        return eng_errorf(x->err, ENG_E_INVALID,
                          "Invalid consistency for conditional update. Must be one of SERIAL or "
                          "LOCAL_SERIAL");
    if (is_serial(o->consistency))
        return eng_errorf(x->err, ENG_E_INVALID,
                          "%s is not supported as conditional update commit consistency. Use ANY "
                          "if you mean \"make sure it is accepted but I don't care how many "
                          "replicas commit it for non-SERIAL reads\"",
                          o->consistency == CL_SERIAL ? "SERIAL" : "LOCAL_SERIAL");
    return 0;
}

static void trace_mutations(cql_session *s, const mut_list *muts)
{
    CQL_TRACE(s, CQL_TRACE_COORDINATOR, "Determining replicas for mutation");
    for (uint32_t i = 0; i < muts->n; i++) {
        CQL_TRACE(s, CQL_TRACE_WRITER, "Appending to commitlog");
        CQL_TRACE(s, CQL_TRACE_WRITER, "Adding to %s memtable", muts->v[i].table->name);
    }
}

/*
 * Applies the mutations of a plain write: queued for the group commit when the caller asked
 * for it (cql_exec_options.on_durable) and the database has one, else applied here.
 */
static int apply_plain(cql_exec *x, const cql_exec_options *o, const eng_schema *schema,
                       const mut_list *muts)
{
    eng_db *db = x->session->db;
    int rc = check_mutation_size(x, muts, o ? o->consistency : 1);
    if (rc)
        return rc;
    for (uint32_t i = 0; o && i < muts->n; i++)
        muts->v[i].now_s = o->now_s;
    if (x->session->trace) /* StorageProxy.mutate, then each mutation applied locally */
        trace_mutations(x->session, muts);
    if (!o || !o->on_durable || !schema || !eng_db_group_commit(db) || x->session->trace)
        return eng_apply(db, muts->v, muts->n, NULL, x->err);
    rc = eng_apply_async(db, (eng_schema *)schema, muts->v, muts->n, o->on_durable,
                         o->on_durable_arg, x->err);
    if (!rc && x->result)
        x->result->pending = 1;
    return rc;
}

int cql_exec_modification(cql_exec *x)
{
    const mod_plan *m = x->plan->detail;
    mut_list muts = {NULL, 0, 0};
    int rc = is_conditional(m) ? check_cas_keys(x, m, NULL) : check_write_consistency(x, m);
    if (!rc)
        rc = build_mutations(x, m, &muts);
    if (rc || !is_conditional(m))
        return rc ? rc : apply_plain(x, x->opts, x->plan->schema, &muts);
    cas_builder b;
    if ((rc = cas_begin(x, &b, 1)) || (rc = cas_add_statement(x, &b, m)) ||
        (rc = check_cas_consistency(x, x->opts)))
        return rc;
    return run_cas(x, &b, &m, 1, &muts, 0);
}

/* ---- BATCH ---- */

typedef struct batch_plan {
    mod_plan **members;
    int n;
    int conditional;
    int counter;
} batch_plan;

int cql_analyze_batch(cql_analysis *a)
{
    const cql_batch *b = &a->stmt->u.batch;
    batch_plan *bp = cql_plan_zalloc(a, sizeof *bp);
    if (!bp)
        return ENG_E_NOMEM;
    bp->members = cql_plan_zalloc(a, (size_t)(b->n_stmts ? b->n_stmts : 1) * sizeof *bp->members);
    if (!bp->members)
        return ENG_E_NOMEM;
    if (b->using.ttl)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Global TTL on the BATCH statement is not supported.");
    int has_counter = 0, has_regular = 0, member_ts = 0;
    for (int i = 0; i < b->n_stmts; i++) {
        int rc = analyze_one(a, b->stmts[i], &bp->members[i]);
        if (rc)
            return rc;
        const mod_plan *m = bp->members[i];
        member_ts |= m->ts != NULL;
        if (m->t->is_counter)
            has_counter = 1;
        else
            has_regular = 1;
        if (is_conditional(m))
            bp->conditional = 1;
    }
    bp->n = b->n_stmts;
    /* BatchStatement.validate, in its order. */
    if (b->using.timestamp && bp->conditional)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for conditional BATCH");
    if (b->using.timestamp && b->kind == CQL_BATCH_COUNTER)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for counter BATCH");
    if (b->using.timestamp && member_ts)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Timestamp must be set either on BATCH or individual statements");
    if (b->using.timestamp && has_counter)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for a BATCH containing counters");
    if (b->kind == CQL_BATCH_COUNTER && has_regular)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot include non-counter statement in a counter batch");
    if (has_counter && has_regular)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Counter and non-counter mutations cannot exist in the same batch");
    if (b->kind == CQL_BATCH_LOGGED && has_counter)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot include a counter statement in a logged batch");
    for (int i = 1; i < bp->n; i++) {
        if (memcmp(bp->members[i]->t->id, bp->members[0]->t->id, 16) == 0)
            continue;
        if (bp->conditional)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Batch with conditions cannot span multiple tables");
        a->plan->table = NULL; /* no statement table: no routing key (BatchStatement.Parsed) */
    }
    /* Then each statement's own validate(). */
    for (int i = 0; i < bp->n; i++) {
        int rc = validate_statement(a, bp->members[i]);
        if (rc)
            return rc;
    }
    if (b->using.timestamp) {
        int rc = cql_bind_term(a, b->using.timestamp, &bigint_type, NULL, NULL, "[timestamp]");
        if (rc)
            return rc;
    }
    a->plan->detail = bp;
    return 0;
}

int cql_exec_batch_stmt(cql_exec *x)
{
    const batch_plan *bp = x->plan->detail;
    const cql_batch *b = &x->stmt->u.batch;
    cql_exec_options o = *x->opts;
    if (b->using.timestamp) {
        eng_val v;
        int rc = cql_eval_val(x, b->using.timestamp, &bigint_type, "[timestamp]", &v);
        if (rc)
            return rc;
        if (v.len == 8)
            o.timestamp = (int64_t)eng_be64(v.p);
    }
    const cql_exec_options *saved = x->opts;
    x->opts = &o;
    mut_list muts = {NULL, 0, 0};
    cas_builder cb;
    const eng_val *first = NULL; /* a conditional batch's partition */
    int rc = bp->conditional ? cas_begin(x, &cb, bp->n) : 0;
    for (int i = 0; !rc && i < bp->n; i++) {
        if (bp->conditional)
            rc = check_cas_keys(x, bp->members[i], &first);
        if (!rc)
            rc = build_mutations(x, bp->members[i], &muts);
        if (!rc && bp->conditional)
            rc = cas_add_statement(x, &cb, bp->members[i]);
    }
    if (!rc && bp->conditional) {
        if (!(rc = check_cas_consistency(x, x->opts)))
            rc = run_cas(x, &cb, (const mod_plan *const *)bp->members, bp->n, &muts, 1);
    } else if (!rc) {
        rc = apply_plain(x, &o, x->plan->schema, &muts);
    }
    x->opts = saved;
    return rc;
}

/* ---- a batch of prepared statements, their plans made (session.c: cql_execute_batch) ---- */

int cql_exec_batch(cql_session *s, int kind, cql_prepared **stmts, cql_plan **plans,
                   const cql_exec_options *options, uint32_t n, int64_t timestamp,
                   cql_result **out, eng_err *err)
{
    *out = NULL;
    const mod_plan **members = eng_calloc(n ? n : 1, sizeof *members);
    cql_exec x;
    memset(&x, 0, sizeof x);
    x.session = s;
    x.err = err;
    eng_arena_init(&x.arena, 4096);
    x.result = cql_result_new(CQL_RESULT_VOID);
    int rc = (!members || !x.result) ? eng_errorf(err, ENG_E_NOMEM, "out of memory") : 0;
    int conditional = 0, counters = 0, regular = 0;
    for (uint32_t i = 0; !rc && i < n; i++) {
        members[i] = plans[i]->detail;
        conditional |= is_conditional(members[i]);
        if (members[i]->t->is_counter)
            counters = 1;
        else
            regular = 1;
    }
    /* BatchStatement.validate, in its order. */
    if (!rc && kind == CQL_BATCH_COUNTER && regular)
        rc = eng_errorf(err, ENG_E_INVALID,
                        "Cannot include non-counter statement in a counter batch");
    else if (!rc && counters && regular)
        rc = eng_errorf(err, ENG_E_INVALID,
                        "Counter and non-counter mutations cannot exist in the same batch");
    else if (!rc && kind == CQL_BATCH_LOGGED && counters)
        rc = eng_errorf(err, ENG_E_INVALID, "Cannot include a counter statement in a logged batch");
    for (uint32_t i = 1; !rc && conditional && i < n; i++)
        if (memcmp(members[i]->t->id, members[0]->t->id, 16) != 0)
            rc =
                eng_errorf(err, ENG_E_INVALID, "Batch with conditions cannot span multiple tables");
    mut_list muts = {NULL, 0, 0};
    cas_builder cb;
    const eng_val *first = NULL; /* a conditional batch's partition */
    if (!rc && conditional)
        rc = cas_begin(&x, &cb, (int)n);
    for (uint32_t i = 0; !rc && i < n; i++) {
        cql_exec_options o = options[i];
        if (timestamp != ENG_TS_NONE)
            o.timestamp = timestamp;
        x.opts = &o;
        x.plan = plans[i];
        x.stmt = stmts[i]->stmt;
        if (conditional)
            rc = check_cas_keys(&x, members[i], &first);
        if (!rc)
            rc = build_mutations(&x, members[i], &muts);
        if (!rc && conditional)
            rc = cas_add_statement(&x, &cb, members[i]);
        x.opts = NULL;
    }
    if (!rc && conditional) {
        x.opts = &options[0]; /* the batch's options: consistency, now_in_seconds */
        if (!(rc = check_cas_consistency(&x, &options[0])))
            rc = run_cas(&x, &cb, members, (int)n, &muts, 1);
        x.opts = NULL;
    } else if (!rc) {
        /* queued only when every member was analyzed against the same snapshot */
        int one_schema = 1;
        for (uint32_t i = 1; i < n; i++)
            one_schema &= plans[i]->schema == plans[0]->schema;
        if (!x.result && options[0].on_durable)
            x.result = cql_result_new(CQL_RESULT_VOID); /* to say `pending` */
        if (options[0].on_durable && !x.result)
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory");
        else
            rc = apply_plain(&x, &options[0], n && one_schema ? plans[0]->schema : NULL, &muts);
    }
    eng_free(members);
    eng_arena_free(&x.arena);
    if (!rc && x.result && x.result->kind == CQL_RESULT_ROWS && x.result->n_rows) {
        if (cql_result_finish(x.result))
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory");
    }
    if (rc)
        cql_result_free(x.result);
    else
        *out = x.result;
    return rc;
}
