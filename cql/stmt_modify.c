/*
 * INSERT, UPDATE, DELETE and BATCH: Cassandra's rules for what a
 * modification may restrict and set (facts §4.3-§4.6, §5, §6, §7.9, §8.2),
 * then engine mutations — one per partition the WHERE clause names — and,
 * with IF, a compare-and-set whose result has Cassandra's shape (facts
 * §5.3: [applied], then the current values of the columns the conditions
 * read).
 *
 * Analysis (at prepare) resolves columns, checks the statement's shape and
 * types every bind marker; execution evaluates the terms with the bound
 * values and builds the mutations.
 */
#include <stdio.h>
#include <string.h>

#include "exec_int.h"
#include "literal.h"

#define MAX_TTL 630720000 /* 20 years (facts §4.6) */

/* Values restricting one key column: = term, IN (terms), or IN ? (one marker, a list). */
typedef struct key_rel {
    cql_term **vals;
    int n;
    int in_marker;
    int given;
} key_rel;

typedef struct mod_op {
    int col;
    int kind;              /* enum eng_op_kind */
    const cql_term *key;
    const cql_term *value;
    const eng_type *key_type;
    const eng_type *value_type;
    int negate;            /* counter c = c - n */
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
    key_rel *keys;         /* per key column (n_pk + n_ck) */
    int n_ck_given;        /* clustering prefix restricted by = / IN */
    int has_slice;         /* DELETE: a slice on clustering column n_ck_given */
    const cql_term *slice_lo, *slice_hi;
    int lo_incl, hi_incl;
    mod_op *ops;
    int n_ops;
    int static_only;       /* every write is to a static column: the static row */
    int has_regular;       /* some write / condition touches a regular column */
    int insert_marker;
    int delete_row;        /* DELETE without targets and a full clustering key */
    int delete_partition;  /* DELETE without targets and no clustering restriction */
    const cql_term *ttl, *ts;
    int if_exists, if_not_exists;
    mod_cond *conds;
    int n_conds;
    const char *ks, *table; /* for marker metadata */
} mod_plan;

static const char *kind_name(int kind)
{
    return kind == CQL_S_INSERT ? "INSERT" : kind == CQL_S_UPDATE ? "UPDATE" : "DELETE";
}

static void *plan_alloc(cql_analysis *a, size_t n)
{
    void *p = eng_arena_alloc(&a->plan->arena, n ? n : 1);
    if (p)
        memset(p, 0, n ? n : 1);
    else
        eng_errorf(a->err, ENG_E_NOMEM, "out of memory preparing a statement");
    return p;
}

static int is_key(const eng_table *t, int col) { return col < t->n_pk + t->n_ck; }

/* ---- WHERE of UPDATE / DELETE ---- */

static int column_list(cql_analysis *a, const eng_table *t, const char *what, int missing_from,
                       int missing_to, const key_rel *keys)
{
    eng_buf b = ENG_BUF_INIT;
    for (int i = missing_from; i < missing_to; i++)
        if (!keys[i].given) {
            if (b.len)
                eng_buf_put_str(&b, ", ");
            eng_buf_put_str(&b, t->cols[i].name);
        }
    int rc = eng_errorf(a->err, ENG_E_INVALID, "%s%s", what, eng_buf_cstr(&b) ? (char *)b.p : "");
    eng_buf_free(&b);
    return rc;
}

static int where_key(cql_analysis *a, mod_plan *m, const cql_relation *r, int col)
{
    const eng_table *t = m->t;
    const eng_column *c = &t->cols[col];
    int kind = m->stmt->kind;
    key_rel *k = &m->keys[col];
    if (r->op == CQL_OP_EQ || r->op == CQL_OP_IN) {
        if (k->given)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "%s cannot be restricted by more than one relation if it includes "
                              "an %s",
                              c->name, r->op == CQL_OP_EQ ? "Equal" : "IN");
        k->given = 1;
        k->vals = r->values;
        k->n = r->n_values;
        k->in_marker = r->in_marker;
        if (r->in_marker) {
            eng_type *lt = eng_type_new_list(eng_type_dup(c->type), 1);
            const eng_type *kept = cql_plan_keep_type(a->plan, lt);
            if (!kept)
                return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
            char name[300];
            snprintf(name, sizeof name, "in(%s)", c->name);
            cql_bind_marker(a, r->values[0], kept, m->ks, m->table, name);
            return 0;
        }
        for (int i = 0; i < r->n_values; i++) {
            int rc = cql_bind_term(a, r->values[i], c->type, m->ks, m->table, c->name);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (c->kind == ENG_COL_PARTITION)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Only EQ and IN relation are supported on the partition key (unless you "
                          "use the token() function) for %s statements",
                          kind_name(kind));
    if (kind != CQL_S_DELETE || r->op < CQL_OP_LT || r->op > CQL_OP_GE)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Slice restrictions are not supported on the clustering columns in %s "
                          "statements",
                          kind_name(kind));
    /* DELETE range: a slice on the column right after the = / IN prefix. */
    if (m->has_slice && m->keys[col].given != 2)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Column \"%s\" cannot be restricted by both an equality and an "
                          "inequality relation",
                          c->name);
    m->has_slice = 1;
    k->given = 2;
    int lower = r->op == CQL_OP_GT || r->op == CQL_OP_GE;
    if (lower) {
        m->slice_lo = r->values[0];
        m->lo_incl = r->op == CQL_OP_GE;
    } else {
        m->slice_hi = r->values[0];
        m->hi_incl = r->op == CQL_OP_LE;
    }
    return cql_bind_term(a, r->values[0], c->type, m->ks, m->table, c->name);
}

static int analyze_where(cql_analysis *a, mod_plan *m, const cql_relation *where, int n)
{
    const eng_table *t = m->t;
    for (int i = 0; i < n; i++) {
        const cql_relation *r = &where[i];
        if (r->kind == CQL_REL_TOKEN)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "The token function cannot be used in WHERE clauses for %s "
                              "statements",
                              kind_name(m->stmt->kind));
        if (r->kind != CQL_REL_COLUMN)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Multi-column relations are not supported in %s statements",
                              kind_name(m->stmt->kind));
        int col;
        int rc = cql_resolve_column(a, t, r->cols[0], &col);
        if (rc)
            return rc;
        if (!is_key(t, col))
            return eng_errorf(a->err, ENG_E_INVALID, "Non PRIMARY KEY columns found in where "
                                                     "clause: %s ",
                              t->cols[col].name);
        if ((rc = where_key(a, m, r, col)))
            return rc;
    }
    for (int i = 0; i < t->n_pk; i++)
        if (!m->keys[i].given)
            return column_list(a, t, "Some partition key parts are missing: ", 0, t->n_pk,
                               m->keys);
    /* The clustering columns restricted by = / IN form a prefix; a slice may follow it. */
    int i = t->n_pk;
    while (i < t->n_pk + t->n_ck && m->keys[i].given == 1)
        i++;
    m->n_ck_given = i - t->n_pk;
    for (int j = i + (m->has_slice ? 1 : 0); j < t->n_pk + t->n_ck; j++)
        if (m->keys[j].given)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "PRIMARY KEY column \"%s\" cannot be restricted as preceding column "
                              "\"%s\" is not restricted",
                              t->cols[j].name, t->cols[j - 1].name);
    if (m->has_slice && m->keys[i].given != 2)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "PRIMARY KEY column \"%s\" cannot be restricted as preceding column "
                          "\"%s\" is not restricted",
                          t->cols[i].name, t->cols[i - 1].name);
    return 0;
}

/* ---- USING ---- */

static const eng_type int_type = {.kind = ENG_INT};
static const eng_type bigint_type = {.kind = ENG_BIGINT};

static int analyze_using(cql_analysis *a, mod_plan *m, const cql_using *u)
{
    const eng_table *t = m->t;
    if (u->ttl && t->is_counter)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot provide custom TTL for counter updates");
    if (u->timestamp && t->is_counter)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for counter updates");
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

static int add_op(cql_analysis *a, mod_plan *m, mod_op op)
{
    const eng_table *t = m->t;
    const eng_column *c = &t->cols[op.col];
    if (c->kind == ENG_COL_STATIC)
        ;
    else
        m->has_regular = 1;
    mod_op *ops = plan_alloc(a, (size_t)(m->n_ops + 1) * sizeof *ops);
    if (!ops)
        return ENG_E_NOMEM;
    if (m->n_ops)
        memcpy(ops, m->ops, (size_t)m->n_ops * sizeof *ops);
    ops[m->n_ops++] = op;
    m->ops = ops;
    int rc = 0;
    if (op.key && op.key_type)
        rc = cql_bind_term(a, op.key, op.key_type, m->ks, m->table,
                           c->type->kind == ENG_LIST ? "idx" : "key");
    if (!rc && op.value && op.value_type)
        rc = cql_bind_term(a, op.value, op.value_type, m->ks, m->table, c->name);
    return rc;
}

static const char *op_text(int kind)
{
    switch (kind) {
    case CQL_SET_ADD:
        return "+";
    case CQL_SET_SUB:
        return "-";
    case CQL_SET_PREPEND:
        return "prepend";
    default:
        return "=";
    }
}

/* c = c + v / c = c - v / c = v + c on collections and counters (facts §4.5, §6). */
static int arith_op(cql_analysis *a, mod_plan *m, const cql_assignment *s, int col)
{
    const eng_column *c = &m->t->cols[col];
    const eng_type *ty = c->type;
    mod_op op = {col, 0, NULL, s->value, NULL, ty, 0};
    if (ty->kind == ENG_COUNTER) {
        if (s->kind == CQL_SET_PREPEND)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid operation (%s = %s + %s) for non list column %s", c->name,
                              "?", c->name, c->name);
        op.kind = ENG_OP_COUNTER_ADD;
        op.negate = s->kind == CQL_SET_SUB;
        op.value_type = ty;
        return add_op(a, m, op);
    }
    if (!eng_type_is_collection(ty))
        return eng_errorf(a->err, ENG_E_INVALID, "Invalid operation (%s = %s %s ?) for non counter column %s",
                          c->name, c->name, op_text(s->kind), c->name);
    if (ty->frozen)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Invalid operation (%s = %s %s ?) for frozen collection column %s",
                          c->name, c->name, op_text(s->kind), c->name);
    if (s->kind == CQL_SET_PREPEND) {
        if (ty->kind != ENG_LIST)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid operation (%s = ? + %s) for non list column %s", c->name,
                              c->name, c->name);
        op.kind = ENG_OP_PREPEND;
        return add_op(a, m, op);
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
    return add_op(a, m, op);
}

static int element_op(cql_analysis *a, mod_plan *m, int col, const cql_term *key,
                      const cql_term *value, int deleting)
{
    const eng_column *c = &m->t->cols[col];
    const eng_type *ty = c->type;
    mod_op op = {col, deleting ? ENG_OP_ELEM_DELETE : ENG_OP_ELEM_SET, key, value, NULL, NULL, 0};
    if (ty->kind == ENG_LIST) {
        op.key_type = &int_type;
        op.value_type = ty->sub[0];
    } else if (ty->kind == ENG_MAP) {
        op.key_type = ty->sub[0];
        op.value_type = ty->sub[1];
    } else if (ty->kind == ENG_SET) {
        return eng_errorf(a->err, ENG_E_INVALID, "Invalid operation (%s[?] = ?) for set column %s",
                          c->name, c->name);
    } else {
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Invalid element access syntax for non-collection column %s", c->name);
    }
    if (ty->frozen)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Invalid operation (%s[?] = ?) for frozen collection column %s",
                          c->name, c->name);
    if (deleting)
        op.value_type = NULL;
    return add_op(a, m, op);
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

static int field_op(cql_analysis *a, mod_plan *m, int col, const char *field,
                    const cql_term *value, int deleting)
{
    const eng_column *c = &m->t->cols[col];
    int idx;
    int rc = field_index(a, c, field, &idx);
    if (rc)
        return rc;
    if (c->type->frozen)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Invalid operation (%s.%s = ?) for frozen UDT column %s", c->name, field,
                          c->name);
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
    mod_op op = {col, deleting ? ENG_OP_ELEM_DELETE : ENG_OP_ELEM_SET, kt, value, &blob,
                 deleting ? NULL : c->type->sub[idx], 0};
    return add_op(a, m, op);
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
        mod_op op = {col, ENG_OP_SET, NULL, s->value, NULL, c->type, 0};
        return add_op(a, m, op);
    }
    case CQL_SET_ELEMENT:
        return element_op(a, m, col, s->key, s->value, 0);
    case CQL_SET_FIELD:
        return field_op(a, m, col, s->field, s->value, 0);
    default:
        return arith_op(a, m, s, col);
    }
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
        return eng_errorf(a->err, ENG_E_INVALID, "INSERT JSON is not supported yet");
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
            key_rel *k = &m->keys[col];
            k->given = 1;
            k->vals = &in->values[i];
            k->n = 1;
            rc = cql_bind_term(a, in->values[i], t->cols[col].type, m->ks, m->table,
                               t->cols[col].name);
        } else {
            mod_op op = {col, ENG_OP_SET, NULL, in->values[i], NULL, t->cols[col].type, 0};
            rc = add_op(a, m, op);
        }
        if (rc)
            return rc;
    }
    for (int i = 0; i < t->n_pk; i++)
        if (!m->keys[i].given)
            return column_list(a, t, "Some partition key parts are missing: ", 0, t->n_pk,
                               m->keys);
    int i = t->n_pk;
    while (i < t->n_pk + t->n_ck && m->keys[i].given)
        i++;
    m->n_ck_given = i - t->n_pk;
    m->insert_marker = 1;
    return 0;
}

/* ---- conditions ---- */

static int analyze_condition(cql_analysis *a, mod_plan *m, const cql_condition *c)
{
    const eng_table *t = m->t;
    int col;
    int rc = cql_resolve_column(a, t, c->col, &col);
    if (rc)
        return rc;
    const eng_column *column = &t->cols[col];
    if (is_key(t, col))
        return eng_errorf(a->err, ENG_E_INVALID, "PRIMARY KEY column '%s' cannot have IF conditions",
                          column->name);
    if (column->type->kind == ENG_COUNTER)
        return eng_errorf(a->err, ENG_E_INVALID, "Conditions on counters are not supported");
    if (c->op != CQL_OP_IN && (c->op < CQL_OP_EQ || c->op > CQL_OP_GE))
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported operator in condition on %s",
                          column->name);
    mod_cond mc = {col, c->op, 0, NULL, NULL, column->type, c->values, c->n_values, c->in_marker};
    if (c->elem) {
        const eng_type *ty = column->type;
        if (ty->kind == ENG_SET)
            return eng_errorf(a->err, ENG_E_INVALID, "Invalid element access syntax for set column %s",
                              column->name);
        if (ty->kind != ENG_LIST && ty->kind != ENG_MAP)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid element access syntax for non-collection column %s",
                              column->name);
        mc.elem = 1;
        mc.key = c->elem;
        mc.key_type = ty->kind == ENG_LIST ? &int_type : ty->sub[0];
        mc.val_type = ty->kind == ENG_LIST ? ty->sub[0] : ty->sub[1];
        char name[300];
        snprintf(name, sizeof name, "%s(%s)", ty->kind == ENG_LIST ? "idx" : "key", column->name);
        if ((rc = cql_bind_term(a, c->elem, mc.key_type, m->ks, m->table, name)))
            return rc;
    } else if (c->field) {
        int idx;
        if ((rc = field_index(a, column, c->field, &idx)))
            return rc;
        static const eng_type blob = {.kind = ENG_BLOB};
        cql_term *kt = plan_alloc(a, sizeof *kt);
        char *hex = plan_alloc(a, 5);
        if (!kt || !hex)
            return ENG_E_NOMEM;
        snprintf(hex, 5, "%04x", idx);
        kt->kind = CQL_T_HEX;
        kt->text = hex;
        kt->len = 4;
        mc.elem = 1;
        mc.key = kt;
        mc.key_type = &blob;
        mc.val_type = column->type->sub[idx];
    }
    if (column->kind == ENG_COL_REGULAR)
        m->has_regular = 1;
    if (c->in_marker) {
        eng_type *lt = eng_type_new_list(eng_type_dup(mc.val_type), 1);
        const eng_type *kept = cql_plan_keep_type(a->plan, lt);
        if (!kept)
            return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
        cql_bind_marker(a, c->values[0], kept, m->ks, m->table, column->name);
    } else {
        for (int i = 0; i < c->n_values; i++)
            if ((rc = cql_bind_term(a, c->values[i], mc.val_type, m->ks, m->table, column->name)))
                return rc;
    }
    mod_cond *conds = plan_alloc(a, (size_t)(m->n_conds + 1) * sizeof *conds);
    if (!conds)
        return ENG_E_NOMEM;
    if (m->n_conds)
        memcpy(conds, m->conds, (size_t)m->n_conds * sizeof *conds);
    conds[m->n_conds++] = mc;
    m->conds = conds;
    return 0;
}

static int analyze_conditions(cql_analysis *a, mod_plan *m, int if_exists, int if_not_exists,
                              const cql_condition *conds, int n)
{
    m->if_exists = if_exists;
    m->if_not_exists = if_not_exists;
    if (!if_exists && !if_not_exists && !n)
        return 0;
    if (m->t->is_counter)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Conditional updates are not supported on counter tables");
    if (m->ts)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot provide custom timestamp for conditional updates");
    for (int i = 0; i < n; i++) {
        int rc = analyze_condition(a, m, &conds[i]);
        if (rc)
            return rc;
    }
    const eng_table *t = m->t;
    for (int i = t->n_pk; i < t->n_pk + t->n_ck; i++)
        if (m->keys[i].given && m->keys[i].n != 1)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "IN on the clustering key columns is not supported with "
                              "conditional %s",
                              m->stmt->kind == CQL_S_DELETE ? "deletions" : "updates");
    for (int i = 0; i < t->n_pk; i++)
        if (m->keys[i].n != 1 || m->keys[i].in_marker)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "IN on the partition key is not supported with conditional %s",
                              m->stmt->kind == CQL_S_DELETE ? "deletions" : "updates");
    return 0;
}

/* ---- the statement's shape ---- */

static int finish_shape(cql_analysis *a, mod_plan *m)
{
    const eng_table *t = m->t;
    int kind = m->stmt->kind;
    int writes_regular = 0, writes_static = 0;
    for (int i = 0; i < m->n_ops; i++) {
        if (t->cols[m->ops[i].col].kind == ENG_COL_STATIC)
            writes_static = 1;
        else
            writes_regular = 1;
    }
    int full_ck = m->n_ck_given == t->n_ck;
    if (kind == CQL_S_DELETE && !m->n_ops) {
        if (m->has_slice || (!full_ck && m->n_ck_given > 0))
            return 0; /* range deletion */
        if (t->n_ck == 0 || full_ck) {
            m->delete_row = t->n_ck > 0;
            m->delete_partition = t->n_ck == 0;
        } else {
            m->delete_partition = 1;
        }
        return 0;
    }
    if (m->has_slice)
        return eng_errorf(a->err, ENG_E_INVALID, "Range deletions are not supported for specific "
                                                 "columns");
    m->static_only = writes_static && !writes_regular && !m->has_regular;
    if (m->static_only && t->n_ck > 0) {
        if (m->n_ck_given > 0 && kind != CQL_S_INSERT)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid restrictions on clustering columns since the %s statement "
                              "modifies only static columns",
                              kind_name(kind));
        if (kind == CQL_S_INSERT && m->n_ck_given > 0 && !full_ck)
            return column_list(a, t, "Some clustering keys are missing: ", t->n_pk,
                               t->n_pk + t->n_ck, m->keys);
        if (kind == CQL_S_INSERT && full_ck)
            m->static_only = 0; /* INSERT with the full key writes a row too */
        return 0;
    }
    if (!full_ck) {
        if (kind == CQL_S_DELETE)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "DELETE statements must restrict all PRIMARY KEY columns with "
                              "equality relations in order to delete non static columns");
        return column_list(a, t, "Some clustering keys are missing: ", t->n_pk, t->n_pk + t->n_ck,
                           m->keys);
    }
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
    mod_plan *m = plan_alloc(a, sizeof *m);
    if (!m)
        return ENG_E_NOMEM;
    m->stmt = st;
    m->t = t;
    m->ks = t->ks;
    m->table = t->name;
    m->keys = plan_alloc(a, (size_t)(t->n_pk + t->n_ck) * sizeof *m->keys);
    if (!m->keys)
        return ENG_E_NOMEM;
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
        for (int i = 0; !rc && i < u->n_sets; i++)
            rc = analyze_set(a, m, &u->sets[i]);
        if (!rc)
            rc = analyze_where(a, m, u->where, u->n_where);
        if (!rc)
            rc = analyze_conditions(a, m, u->if_exists, 0, u->conds, u->n_conds);
    } else {
        const cql_delete *d = &st->u.del;
        if (d->using.ttl)
            return eng_errorf(a->err, ENG_E_SYNTAX, "line %d:%d USING TTL is not allowed in DELETE",
                              st->line, st->col);
        rc = analyze_using(a, m, &d->using);
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
                rc = add_op(a, m, (mod_op){col, ENG_OP_DELETE, NULL, NULL, NULL, NULL, 0});
        }
        if (!rc)
            rc = analyze_where(a, m, d->where, d->n_where);
        if (!rc)
            rc = analyze_conditions(a, m, d->if_exists, 0, d->conds, d->n_conds);
    }
    if (!rc && st->kind != CQL_S_INSERT && t->is_counter && st->kind == CQL_S_UPDATE)
        for (int i = 0; i < m->n_ops; i++)
            if (m->ops[i].kind != ENG_OP_COUNTER_ADD)
                return eng_errorf(a->err, ENG_E_INVALID, "Cannot mix counter and non counter "
                                                         "operations");
    if (!rc)
        rc = finish_shape(a, m);
    if (!rc && m->n_conds && m->stmt->kind == CQL_S_DELETE && m->n_ck_given < t->n_ck &&
        m->has_regular)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "DELETE statements must restrict all PRIMARY KEY columns with equality "
                          "relations in order to use IF condition on non static columns");
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
        a->plan->detail = m;
    return rc;
}

/* ---- execution: values ---- */

typedef struct key_values {
    eng_val *vals; /* one list of candidate values per key column */
    int n;
} key_values;

/* The candidate values of one key column (several for IN), sorted and deduplicated. */
static int eval_key(cql_exec *x, const mod_plan *m, int col, key_values *out)
{
    const key_rel *k = &m->keys[col];
    const eng_column *c = &m->t->cols[col];
    out->n = 0;
    if (k->in_marker) {
        eng_val list;
        const eng_type *lt = x->plan->binds[k->vals[0]->bind_index].type;
        int rc = cql_eval_val(x, k->vals[0], lt, c->name, &list);
        if (rc)
            return rc;
        if (list.len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s", c->name);
        if (list.len == ENG_UNSET)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid unset value for column %s", c->name);
        eng_items it;
        int32_t n = eng_items_begin(&it, list.p, (size_t)list.len);
        if (n < 0)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid list value for %s", c->name);
        out->vals = eng_arena_alloc(&x->arena, (size_t)(n ? n : 1) * sizeof *out->vals);
        if (!out->vals)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        eng_val e;
        while (eng_items_next(&it, &e) == 1)
            out->vals[out->n++] = e;
    } else {
        out->vals = eng_arena_alloc(&x->arena, (size_t)(k->n ? k->n : 1) * sizeof *out->vals);
        if (!out->vals)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        for (int i = 0; i < k->n; i++) {
            eng_val v;
            int rc = cql_eval_val(x, k->vals[i], c->type, c->name, &v);
            if (rc)
                return rc;
            out->vals[out->n++] = v;
        }
    }
    for (int i = 0; i < out->n; i++) {
        if (out->vals[i].len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value in condition for column %s",
                              c->name);
        if (out->vals[i].len == ENG_UNSET)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid unset value for column %s", c->name);
    }
    /* IN lists are sorted by the column type and deduplicated (facts §7.4). */
    for (int i = 1; i < out->n; i++)
        for (int j = i; j > 0; j--) {
            eng_val *p = &out->vals[j - 1], *q = &out->vals[j];
            if (eng_type_compare(c->type, p->p, (size_t)p->len, q->p, (size_t)q->len) <= 0)
                break;
            eng_val tmp = *p;
            *p = *q;
            *q = tmp;
        }
    int w = 0;
    for (int i = 0; i < out->n; i++)
        if (!w || eng_type_compare(c->type, out->vals[w - 1].p, (size_t)out->vals[w - 1].len,
                                   out->vals[i].p, (size_t)out->vals[i].len) != 0)
            out->vals[w++] = out->vals[i];
    out->n = w;
    return 0;
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

static int eval_ops(cql_exec *x, const mod_plan *m, eng_cell_op **out)
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
        if (rc)
            return rc;
        if (o->kind == ENG_OP_ELEM_SET && e->key.len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s %s",
                              c->type->kind == ENG_LIST ? "list index" : "map key", c->name);
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

/* Cartesian product of per-column candidate lists: combination number idx. */
static void combination(const key_values *kv, int from, int n, uint32_t idx, eng_val *out)
{
    for (int i = from + n - 1; i >= from; i--) {
        uint32_t k = (uint32_t)kv[i].n;
        out[i - from] = kv[i].vals[idx % k];
        idx /= k;
    }
}

static uint32_t combinations(const key_values *kv, int from, int n)
{
    uint32_t total = 1;
    for (int i = from; i < from + n; i++)
        total *= (uint32_t)kv[i].n;
    return total;
}

static int build_mutations(cql_exec *x, const mod_plan *m, mut_list *out)
{
    const eng_table *t = m->t;
    int n_keys = t->n_pk + t->n_ck;
    key_values *kv = eng_arena_alloc(&x->arena, (size_t)(n_keys ? n_keys : 1) * sizeof *kv);
    if (!kv)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    int rc = 0;
    for (int i = 0; !rc && i < t->n_pk + m->n_ck_given; i++)
        rc = eval_key(x, m, i, &kv[i]);
    int64_t ts;
    int32_t ttl;
    eng_cell_op *ops = NULL;
    if (!rc)
        rc = eval_using(x, m, &ts, &ttl);
    if (!rc)
        rc = eval_ops(x, m, &ops);
    if (rc)
        return rc;
    /* A DELETE range: a clustering prefix and perhaps a slice on the next column. */
    eng_slice *range = NULL;
    int is_range = m->stmt->kind == CQL_S_DELETE && !m->n_ops && !m->delete_row &&
                   !m->delete_partition;
    uint32_t n_parts = combinations(kv, 0, t->n_pk);
    uint32_t n_rows = combinations(kv, t->n_pk, m->n_ck_given);
    if (n_parts * (uint64_t)n_rows > 65536)
        return eng_errorf(x->err, ENG_E_INVALID, "Too many IN combinations (%llu)",
                          (unsigned long long)n_parts * n_rows);
    for (uint32_t p = 0; p < n_parts; p++) {
        eng_val *pk = eng_arena_alloc(&x->arena, (size_t)t->n_pk * sizeof *pk);
        eng_row_mut *rows = eng_arena_alloc(&x->arena, n_rows * sizeof *rows);
        if (!pk || !rows)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        combination(kv, 0, t->n_pk, p, pk);
        eng_mutation mu = {t, pk, ts, ttl, (uint8_t)m->delete_partition, 0, NULL, 0, rows};
        if (is_range) {
            range = eng_arena_alloc(&x->arena, n_rows * sizeof *range);
            if (!range)
                return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        }
        for (uint32_t r = 0; !m->delete_partition && r < n_rows; r++) {
            eng_val *ck = eng_arena_alloc(&x->arena, (size_t)(t->n_ck + 1) * sizeof *ck);
            if (!ck)
                return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
            combination(kv, t->n_pk, m->n_ck_given, r, ck);
            if (is_range) {
                int n = m->n_ck_given;
                eng_val *hi = eng_arena_alloc(&x->arena, (size_t)(n + 1) * sizeof *hi);
                if (!hi)
                    return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
                memcpy(hi, ck, (size_t)n * sizeof *hi);
                eng_slice s = {{ck, (uint16_t)n, 1}, {hi, (uint16_t)n, 1}};
                const eng_column *c = &t->cols[t->n_pk + n];
                if (m->slice_lo) {
                    if ((rc = cql_eval_val(x, m->slice_lo, c->type, c->name, &ck[n])))
                        return rc;
                    s.start.n = (uint16_t)(n + 1);
                    s.start.inclusive = (uint8_t)m->lo_incl;
                }
                if (m->slice_hi) {
                    if ((rc = cql_eval_val(x, m->slice_hi, c->type, c->name, &hi[n])))
                        return rc;
                    s.end.n = (uint16_t)(n + 1);
                    s.end.inclusive = (uint8_t)m->hi_incl;
                }
                /* In clustering order a DESC column's lower value comes last. */
                if (c->desc && (m->slice_lo || m->slice_hi)) {
                    eng_bound tmp = s.start;
                    s.start = s.end;
                    s.end = tmp;
                }
                range[mu.n_range_dels++] = s;
                continue;
            }
            eng_row_mut *rm = &rows[mu.n_rows++];
            rm->ck = m->static_only ? NULL : ck;
            rm->insert_marker = (uint8_t)(m->insert_marker && !m->static_only);
            rm->delete_row = (uint8_t)m->delete_row;
            rm->n_ops = (uint32_t)m->n_ops;
            rm->ops = ops;
            if (m->static_only)
                break; /* one static row per partition */
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
    eng_condition *c = eng_arena_alloc(&x->arena, (size_t)(m->n_conds ? m->n_conds : 1) * sizeof *c);
    if (!c)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    for (int i = 0; i < m->n_conds; i++) {
        const mod_cond *mc = &m->conds[i];
        const eng_column *col = &m->t->cols[mc->col];
        eng_condition *e = &c[i];
        memset(e, 0, sizeof *e);
        e->col = (uint16_t)mc->col;
        e->op = mc->op == CQL_OP_IN ? ENG_CMP_IN : (uint8_t)(mc->op - CQL_OP_EQ + ENG_CMP_EQ);
        e->elem = (uint8_t)mc->elem;
        int rc = 0;
        if (mc->elem && (rc = cql_eval_val(x, mc->key, mc->key_type, col->name, &e->key)))
            return rc;
        if (mc->elem && e->key.len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s element access",
                              col->name);
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

/* Result columns when not applied (facts §5.3). */
typedef struct lwt_shape {
    int *cols;
    int n;
} lwt_shape;

static int add_shape_col(lwt_shape *s, int col)
{
    for (int i = 0; i < s->n; i++)
        if (s->cols[i] == col)
            return 0;
    s->cols[s->n++] = col;
    return 0;
}

static void shape_for(const mod_plan *const *ms, int n, int batch, const eng_table *t, lwt_shape *s)
{
    int star = 0;
    for (int i = 0; i < n; i++)
        star |= ms[i]->if_exists || ms[i]->if_not_exists;
    if (star) {
        for (uint32_t c = 0; c < t->n_cols; c++)
            s->cols[s->n++] = (int)c;
        return;
    }
    if (batch)
        for (int c = 0; c < t->n_pk + t->n_ck; c++)
            add_shape_col(s, c);
    /* Regular-column conditions first, then static ones, each in IF order. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < ms[i]->n_conds; j++) {
                int col = ms[i]->conds[j].col;
                int is_static = t->cols[col].kind == ENG_COL_STATIC;
                if (is_static == pass)
                    add_shape_col(s, col);
            }
}

typedef struct lwt_ctx {
    cql_exec *x;
    const eng_table *t;
    lwt_shape shape;
    int columns_set;
} lwt_ctx;

static int lwt_columns(lwt_ctx *c, int with_values)
{
    cql_result *r = c->x->result;
    uint32_t n = with_values ? (uint32_t)c->shape.n + 1 : 1;
    cql_column_spec *cols = eng_arena_alloc(&c->x->arena, n * sizeof *cols);
    if (!cols)
        return ENG_E_NOMEM;
    cols[0] = (cql_column_spec){c->t->ks, c->t->name, "[applied]", cql_boolean_type()};
    for (uint32_t i = 1; i < n; i++) {
        const eng_column *col = &c->t->cols[c->shape.cols[i - 1]];
        cols[i] = (cql_column_spec){c->t->ks, c->t->name, col->name, col->type};
    }
    r->kind = CQL_RESULT_ROWS;
    c->columns_set = 1;
    return cql_result_set_columns(r, cols, n);
}

static int lwt_row(void *ctx, const eng_row_view *v)
{
    lwt_ctx *c = ctx;
    if (!c->columns_set && lwt_columns(c, 1))
        return -ENG_E_NOMEM;
    eng_val vals[1 + 1024];
    static const uint8_t no = 0;
    vals[0] = (eng_val){&no, 1};
    for (int i = 0; i < c->shape.n && i < 1024; i++) {
        int rc = eng_view_column(v, (uint16_t)c->shape.cols[i], &vals[i + 1], NULL, NULL,
                                 c->x->err);
        if (rc)
            return -rc;
    }
    return cql_result_add_row(c->x->result, vals) ? -ENG_E_NOMEM : 0;
}

static int run_cas(cql_exec *x, const mod_plan *const *ms, int n, mut_list *muts, int batch)
{
    const eng_table *t = ms[0]->t;
    eng_cas_row *rows = eng_arena_alloc(&x->arena, (size_t)n * sizeof *rows);
    if (!rows)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    uint32_t n_rows = 0;
    const eng_val *pk = NULL;
    for (int i = 0; i < n; i++) {
        const mod_plan *m = ms[i];
        if (!m->n_conds && !m->if_exists && !m->if_not_exists)
            continue;
        key_values *kv = eng_arena_alloc(&x->arena, (size_t)(t->n_pk + t->n_ck + 1) * sizeof *kv);
        if (!kv)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        int rc = 0;
        for (int k = 0; !rc && k < t->n_pk + m->n_ck_given; k++)
            rc = eval_key(x, m, k, &kv[k]);
        if (rc)
            return rc;
        eng_val *key = eng_arena_alloc(&x->arena, (size_t)(t->n_pk + t->n_ck + 1) * sizeof *key);
        if (!key)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        combination(kv, 0, t->n_pk + m->n_ck_given, 0, key);
        if (!pk)
            pk = key;
        eng_cas_row *r = &rows[n_rows++];
        memset(r, 0, sizeof *r);
        /* Statics-only conditions and writes look at the static row. */
        r->ck = (m->static_only || m->n_ck_given < t->n_ck) ? NULL : key + t->n_pk;
        r->if_exists = (uint8_t)m->if_exists;
        r->if_not_exists = (uint8_t)m->if_not_exists;
        eng_condition *conds = NULL;
        if ((rc = eval_conditions(x, m, &conds)))
            return rc;
        r->conds = conds;
        r->n_conds = (uint32_t)m->n_conds;
    }
    if (!pk)
        return eng_errorf(x->err, ENG_E_SERVER, "conditional statement without a condition");
    lwt_ctx ctx = {x, t, {NULL, 0}, 0};
    ctx.shape.cols = eng_arena_alloc(&x->arena, (t->n_cols + 1) * sizeof(int) * 4);
    if (!ctx.shape.cols)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    shape_for(ms, n, batch, t, &ctx.shape);
    eng_cas cas = {t, pk, n_rows, rows, muts->n, muts->v};
    int applied = 0;
    int rc = eng_cas_apply(x->session->db, &cas, &applied, lwt_row, &ctx, x->err);
    if (rc)
        return rc;
    if (!ctx.columns_set) {
        /* Applied, or nothing found: a single [applied] column. */
        if (lwt_columns(&ctx, 0))
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        static const uint8_t yes = 1, no = 0;
        eng_val v = {applied ? &yes : &no, 1};
        if (cql_result_add_row(x->result, &v))
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    }
    return 0;
}

int cql_exec_modification(cql_exec *x)
{
    const mod_plan *m = x->plan->detail;
    mut_list muts = {NULL, 0, 0};
    int rc = build_mutations(x, m, &muts);
    if (rc)
        return rc;
    if (m->n_conds || m->if_exists || m->if_not_exists)
        return run_cas(x, &m, 1, &muts, 0);
    return eng_apply(x->session->db, muts.v, muts.n, NULL, x->err);
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
    batch_plan *bp = plan_alloc(a, sizeof *bp);
    if (!bp)
        return ENG_E_NOMEM;
    bp->members = plan_alloc(a, (size_t)(b->n_stmts ? b->n_stmts : 1) * sizeof *bp->members);
    if (!bp->members)
        return ENG_E_NOMEM;
    if (b->using.ttl)
        return eng_errorf(a->err, ENG_E_INVALID, "Global TTL on the BATCH statement is not supported.");
    int has_counter = 0, has_regular = 0;
    for (int i = 0; i < b->n_stmts; i++) {
        int rc = analyze_one(a, b->stmts[i], &bp->members[i]);
        if (rc)
            return rc;
        const mod_plan *m = bp->members[i];
        if (b->using.timestamp && m->ts)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Timestamp must be set either on BATCH or individual statements");
        if (m->t->is_counter)
            has_counter = 1;
        else
            has_regular = 1;
        if (m->n_conds || m->if_exists || m->if_not_exists)
            bp->conditional = 1;
    }
    bp->n = b->n_stmts;
    if (has_counter && has_regular)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Counter and non-counter mutations cannot exist in the same batch");
    if (b->kind == CQL_BATCH_LOGGED && has_counter)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot include a counter statement in a logged batch");
    if (b->kind == CQL_BATCH_COUNTER && has_regular)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Cannot include non-counter statement in a counter batch");
    if (has_counter && b->using.timestamp)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot provide custom timestamp for counter BATCH");
    if (bp->conditional) {
        if (b->using.timestamp)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Cannot provide custom timestamp for conditional BATCH");
        for (int i = 1; i < bp->n; i++)
            if (memcmp(bp->members[i]->t->id, bp->members[0]->t->id, 16) != 0)
                return eng_errorf(a->err, ENG_E_INVALID,
                                  "Batch with conditions cannot span multiple tables");
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
    int rc = 0;
    for (int i = 0; !rc && i < bp->n; i++)
        rc = build_mutations(x, bp->members[i], &muts);
    if (!rc && bp->conditional) {
        for (uint32_t i = 1; !rc && i < muts.n; i++)
            for (uint16_t k = 0; k < muts.v[0].table->n_pk; k++) {
                eng_val p = muts.v[0].pk[k], q = muts.v[i].pk[k];
                if (p.len != q.len || (p.len > 0 && memcmp(p.p, q.p, (size_t)p.len)))
                    rc = eng_errorf(x->err, ENG_E_INVALID,
                                    "Batch with conditions cannot span multiple partitions");
            }
        if (!rc)
            rc = run_cas(x, (const mod_plan *const *)bp->members, bp->n, &muts, 1);
    } else if (!rc) {
        rc = eng_apply(x->session->db, muts.v, muts.n, NULL, x->err);
    }
    x->opts = saved;
    return rc;
}

/* ---- a batch of prepared statements (the driver's cass_session_execute_batch) ---- */

int cql_execute_batch(cql_session *s, int kind, cql_prepared **stmts,
                      const cql_exec_options *options, uint32_t n, int64_t timestamp,
                      cql_result **out, eng_err *err)
{
    if (out)
        *out = NULL;
    cql_plan **plans = eng_calloc(n ? n : 1, sizeof *plans);
    const mod_plan **members = eng_calloc(n ? n : 1, sizeof *members);
    cql_exec x;
    memset(&x, 0, sizeof x);
    x.session = s;
    x.err = err;
    eng_arena_init(&x.arena, 4096);
    x.result = cql_result_new(CQL_RESULT_VOID);
    int rc = (!plans || !members || !x.result) ? eng_errorf(err, ENG_E_NOMEM, "out of memory") : 0;
    int conditional = 0, counters = 0, regular = 0;
    for (uint32_t i = 0; !rc && i < n; i++) {
        int k = stmts[i]->stmt->kind;
        if (k != CQL_S_INSERT && k != CQL_S_UPDATE && k != CQL_S_DELETE) {
            rc = eng_errorf(err, ENG_E_INVALID,
                            "Invalid statement in batch: only UPDATE, INSERT and DELETE statements "
                            "are allowed.");
            break;
        }
        if (options[i].n_values != (uint32_t)stmts[i]->stmt->n_binds) {
            rc = eng_errorf(err, ENG_E_INVALID,
                            "there were %d markers(?) in CQL but %u bound variables",
                            stmts[i]->stmt->n_binds, options[i].n_values);
            break;
        }
        if ((rc = cql_plan_for(stmts[i], &plans[i], err)))
            break;
        members[i] = plans[i]->detail;
        conditional |= members[i]->n_conds || members[i]->if_exists || members[i]->if_not_exists;
        if (members[i]->t->is_counter)
            counters = 1;
        else
            regular = 1;
    }
    if (!rc && counters && regular)
        rc = eng_errorf(err, ENG_E_INVALID,
                        "Counter and non-counter mutations cannot exist in the same batch");
    else if (!rc && kind == CQL_BATCH_LOGGED && counters)
        rc = eng_errorf(err, ENG_E_INVALID, "Cannot include a counter statement in a logged batch");
    else if (!rc && kind == CQL_BATCH_COUNTER && regular)
        rc = eng_errorf(err, ENG_E_INVALID, "Cannot include non-counter statement in a counter batch");
    mut_list muts = {NULL, 0, 0};
    for (uint32_t i = 0; !rc && i < n; i++) {
        cql_exec_options o = options[i];
        if (timestamp != ENG_TS_NONE)
            o.timestamp = timestamp;
        x.opts = &o;
        x.plan = plans[i];
        x.stmt = stmts[i]->stmt;
        rc = build_mutations(&x, members[i], &muts);
        x.opts = NULL;
    }
    if (!rc && conditional) {
        x.opts = &options[0];
        x.plan = plans[0];
        rc = run_cas(&x, members, (int)n, &muts, 1);
    } else if (!rc) {
        rc = eng_apply(s->db, muts.v, muts.n, NULL, err);
    }
    for (uint32_t i = 0; plans && i < n; i++)
        cql_plan_release(plans[i]);
    eng_free(plans);
    eng_free(members);
    eng_arena_free(&x.arena);
    if (!rc && out && x.result && x.result->kind == CQL_RESULT_ROWS && x.result->n_rows) {
        if (cql_result_finish(x.result))
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory");
    }
    if (rc || !out)
        cql_result_free(x.result);
    else
        *out = x.result;
    return rc;
}
