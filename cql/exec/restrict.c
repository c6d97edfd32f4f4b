/*
 * The WHERE rules: Cassandra's StatementRestrictions for SELECT, UPDATE and
 * DELETE (and INSERT's key values), each check written once here with
 * Cassandra's message (facts §4.3, §7.3-§7.9, §8.2); then, at execution,
 * the partition keys, clustering prefixes, slices and token ranges those
 * restrictions name with the bound values.
 *
 * A restriction set has the statement kind, and the rules that differ ask
 * it, as Cassandra's StatementType does: allowPartitionKeyRanges (token(),
 * slices on the partition key: SELECT), allowNonPrimaryKeyInWhereClause
 * (filtering, CONTAINS, multi-column relations: SELECT) and
 * allowClusteringColumnSlices (SELECT, DELETE).
 *
 * Analysis works on one relation at a time, as Relation.toRestriction and
 * RestrictionSet.addRestriction do (the column, the operator, the merge
 * with the column's earlier restriction, typing the values' markers), then
 * processes the partition key and the clustering columns as a whole
 * (processPartitionKeyRestrictions, processClusteringColumnsRestrictions)
 * and decides whether a SELECT filters. Nothing here reads data.
 *
 * Where cassette still answers otherwise than Cassandra, the difference is
 * kept and marked "(cassette)": changing an answer is a change of behaviour
 * of its own. The general one: a relation the statement kind does not take
 * (token(), multi-column, another column, a slice) is refused as it comes,
 * where Cassandra first merges every relation and refuses later.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cql/exec/literal.h"
#include "cql/exec/restrict.h"
#include "engine/value/token.h"

/* Partition keys, clustering prefixes or rows one statement may name through IN lists
   (cassette's bound on the cartesian product MultiCBuilder would build). */
#define MAX_IN_COMBINATIONS 65536

static const eng_type bigint_type = {.kind = ENG_BIGINT};

static const char FILTERING_MSG[] =
    "Cannot execute this query as it might involve data filtering and thus may have "
    "unpredictable performance. If you want to execute this query despite the performance "
    "unpredictability, use ALLOW FILTERING";

/* StatementType.allowPartitionKeyRanges / allowNonPrimaryKeyInWhereClause: SELECT alone. */
static int is_select(const cql_restrictions *r)
{
    return r->kind == CQL_S_SELECT;
}

/* StatementType.toString, as messages name the statement. */
static const char *kind_name(int kind)
{
    return kind == CQL_S_SELECT   ? "SELECT"
           : kind == CQL_S_INSERT ? "INSERT"
           : kind == CQL_S_UPDATE ? "UPDATE"
                                  : "DELETE";
}

static int is_slice_op(int op)
{
    return op >= CQL_OP_LT && op <= CQL_OP_GE;
}

int cql_restrict_init(cql_analysis *a, cql_restrictions *r, const eng_table *t, int kind)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    r->kind = kind;
    r->keys = cql_plan_zalloc(a, (size_t)(t->n_pk + t->n_ck + 1) * sizeof *r->keys);
    return r->keys ? 0 : ENG_E_NOMEM;
}

/* ---- messages said in more than one place ---- */

/* "Some partition key parts are missing: a, b": the key columns in [from, to) not restricted. */
static int missing(cql_analysis *a, const cql_restrictions *r, const char *what, int from, int to)
{
    eng_buf b = ENG_BUF_INIT;
    for (int i = from; i < to; i++)
        if (!r->keys[i].given) {
            if (b.len)
                eng_buf_put_str(&b, ", ");
            eng_buf_put_str(&b, r->t->cols[i].name);
        }
    int rc = eng_errorf(a->err, ENG_E_INVALID, "%s%s", what, eng_buf_cstr(&b) ? (char *)b.p : "");
    eng_buf_free(&b);
    return rc;
}

/* SingleColumnRestriction.EQRestriction / INRestriction.mergeWith. */
static int more_than_one(cql_analysis *a, const eng_column *c, const char *what)
{
    return eng_errorf(a->err, ENG_E_INVALID,
                      "%s cannot be restricted by more than one relation if it includes %s",
                      c->name, what);
}

/* SliceRestriction.mergeWith: an equality and a slice on one column. */
static int eq_and_slice(cql_analysis *a, const eng_column *c)
{
    return eng_errorf(a->err, ENG_E_INVALID,
                      "Column \"%s\" cannot be restricted by both an equality and an inequality "
                      "relation",
                      c->name);
}

/* A clustering column restricted while the one before it is not (or only by a slice). */
static int preceding(cql_analysis *a, const eng_table *t, int col, int after_slice)
{
    if (after_slice) /* ClusteringColumnRestrictions.mergeWith */
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Clustering column \"%s\" cannot be restricted (preceding column \"%s\" "
                          "is restricted by a non-EQ relation)",
                          t->cols[col].name, t->cols[col - 1].name);
    return eng_errorf(a->err, ENG_E_INVALID,
                      "PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" "
                      "is not restricted",
                      t->cols[col].name, t->cols[col - 1].name);
}

/* ---- one relation at a time ---- */

typedef struct restrict_ctx {
    cql_analysis *a;
    cql_restrictions *r;
    int allow_filtering;
    int needs_filtering; /* SELECT: some restriction is checked on the rows read */
    int any_slice;       /* a clustering slice was seen (DELETE) */
    int stopped;         /* SELECT: a key range without ALLOW FILTERING ends the reading */
} restrict_ctx;

/* Types the markers of a relation's values for column c: in(c) for IN ?, else c (facts §2.6). */
static int bind_values(cql_analysis *a, const eng_table *t, const eng_column *c,
                       const cql_relation *rel)
{
    if (rel->in_marker) {
        eng_type *lt = eng_type_new_list(eng_type_dup(c->type), 1);
        const eng_type *kept = cql_plan_keep_type(a->plan, lt);
        if (!kept)
            return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
        char name[300];
        snprintf(name, sizeof name, "in(%s)", c->name);
        cql_bind_marker(a, rel->values[0], kept, t->ks, t->name, name);
        return 0;
    }
    for (int i = 0; i < rel->n_values; i++) {
        int rc = cql_bind_term(a, rel->values[i], c->type, t->ks, t->name, c->name);
        if (rc)
            return rc;
    }
    return 0;
}

/* = or IN on a key column, merged with what the column already has. */
static int add_eq(restrict_ctx *x, const cql_relation *rel, int col)
{
    cql_restrictions *r = x->r;
    const eng_column *c = &r->t->cols[col];
    cql_key_restriction *k = &r->keys[col];
    if (k->given) {
        /* (cassette) UPDATE and DELETE name the new relation (and say "an IN"); Cassandra names
           the one already there, as SELECT does */
        if (!is_select(r))
            return more_than_one(x->a, c, rel->op == CQL_OP_EQ ? "an Equal" : "an IN");
        if (k->given == CQL_RESTRICT_SLICE)
            return eq_and_slice(x->a, c);
        return more_than_one(x->a, c, k->n == 1 && !k->in_marker ? "an Equal" : "a IN");
    }
    k->given = CQL_RESTRICT_EQ;
    k->vals = rel->values;
    k->n = rel->n_values;
    k->in_marker = rel->in_marker;
    return bind_values(x->a, r->t, c, rel);
}

/* <, <=, >, >= on a key column: one bound of its slice (SliceRestriction). */
static int add_slice(restrict_ctx *x, const cql_relation *rel, int col)
{
    cql_restrictions *r = x->r;
    const eng_column *c = &r->t->cols[col];
    cql_key_restriction *k = &r->keys[col];
    int lower = rel->op == CQL_OP_GT || rel->op == CQL_OP_GE;
    if (is_select(r)) {
        /* (cassette) after an equality Cassandra says "... if it includes an Equal" */
        if (k->given == CQL_RESTRICT_EQ)
            return eq_and_slice(x->a, c);
        if ((lower && k->lo) || (!lower && k->hi))
            return eng_errorf(x->a->err, ENG_E_INVALID,
                              "More than one restriction was found for the %s bound on %s",
                              lower ? "start" : "end", c->name);
    } else if (x->any_slice && k->given != CQL_RESTRICT_SLICE) {
        /* (cassette) a DELETE takes a slice on one column only, and lets it replace an
           equality on that column or a bound given twice; Cassandra refuses those as SELECT
           does, and a slice on a later column as "Clustering column ... is restricted by a
           non-EQ relation" */
        return eq_and_slice(x->a, c);
    }
    x->any_slice = 1;
    k->given = CQL_RESTRICT_SLICE;
    if (lower) {
        k->lo = rel->values[0];
        k->lo_incl = rel->op == CQL_OP_GE;
    } else {
        k->hi = rel->values[0];
        k->hi_incl = rel->op == CQL_OP_LE;
    }
    return bind_values(x->a, r->t, c, rel);
}

/* token(pk...) op term (TokenRelation, TokenRestriction): the token range read. */
static int add_token(restrict_ctx *x, const cql_relation *rel)
{
    cql_analysis *a = x->a;
    cql_restrictions *r = x->r;
    const eng_table *t = r->t;
    if (rel->n_cols != t->n_pk)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "The token() function must be applied to all partition key components "
                          "or none of them");
    for (int i = 0; i < rel->n_cols; i++) {
        int col;
        int rc = cql_resolve_column(a, t, rel->cols[i], &col);
        if (rc)
            return rc;
        if (col >= t->n_pk)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "The token() function must contains only partition key components");
        if (col != i) {
            eng_buf b = ENG_BUF_INIT;
            for (int j = 0; j < t->n_pk; j++)
                eng_buf_printf(&b, "%s%s", j ? ", " : "", t->cols[j].name);
            rc = eng_errorf(a->err, ENG_E_INVALID,
                            "The token function arguments must be in the partition key order: %s",
                            eng_buf_cstr(&b) ? (char *)b.p : "");
            eng_buf_free(&b);
            return rc;
        }
    }
    const cql_term *v = rel->values[0];
    switch (rel->op) {
    case CQL_OP_EQ:
        r->tok_lo = r->tok_hi = v;
        r->tok_lo_incl = r->tok_hi_incl = 1;
        break;
    case CQL_OP_GT:
    case CQL_OP_GE:
        r->tok_lo = v;
        r->tok_lo_incl = rel->op == CQL_OP_GE;
        break;
    case CQL_OP_LT:
    case CQL_OP_LE:
        r->tok_hi = v;
        r->tok_hi_incl = rel->op == CQL_OP_LE;
        break;
    default:
        return eng_errorf(a->err, ENG_E_INVALID, "%s cannot be used with the token function",
                          rel->op == CQL_OP_IN ? "IN" : "CONTAINS");
    }
    if (v->kind == CQL_T_FUNCTION && !strcasecmp(v->name, "token")) {
        /* token(literal, ...) on the right: the token of those key values */
        if (v->n_items != t->n_pk)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Invalid number of arguments in call to function system.token: %d "
                              "required but %d provided",
                              t->n_pk, v->n_items);
        for (int i = 0; i < v->n_items; i++) {
            int rc = cql_bind_term(a, v->items[i], t->cols[i].type, t->ks, t->name,
                                   t->cols[i].name);
            if (rc)
                return rc;
        }
        return 0;
    }
    return cql_bind_term(a, v, &bigint_type, t->ks, t->name, "partition key token");
}

/* The tuple type of columns [first, first + n), owned by the plan. */
static const eng_type *tuple_of(cql_analysis *a, const eng_table *t, int first, int n)
{
    eng_type *comps[64];
    for (int i = 0; i < n && i < 64; i++)
        comps[i] = eng_type_dup(t->cols[first + i].type);
    return cql_plan_keep_type(a->plan, eng_type_new_tuple(comps, n));
}

static int bind_tuple(cql_analysis *a, const eng_table *t, int first, int n, const cql_term *v,
                      const eng_type *tt, const char *name)
{
    if (v->kind == CQL_T_TUPLE) {
        if (v->n_items != n)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Expected %d elements in value tuple, but got %d", n, v->n_items);
        for (int i = 0; i < n; i++) {
            int rc = cql_bind_term(a, v->items[i], t->cols[first + i].type, t->ks, t->name,
                                   t->cols[first + i].name);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (v->kind == CQL_T_BIND) {
        cql_bind_marker(a, v, tt, t->ks, t->name, name);
        return 0;
    }
    return eng_errorf(a->err, ENG_E_INVALID, "Invalid value for a multi-column relation");
}

/* (c1, c2) = / IN / < ... on clustering columns in their order (MultiColumnRelation). */
static int add_multi(restrict_ctx *x, const cql_relation *rel)
{
    cql_analysis *a = x->a;
    cql_restrictions *r = x->r;
    const eng_table *t = r->t;
    int first = -1;
    char name[600] = "(";
    for (int i = 0; i < rel->n_cols; i++) {
        int col;
        int rc = cql_resolve_column(a, t, rel->cols[i], &col);
        if (rc)
            return rc;
        if (t->cols[col].kind != ENG_COL_CLUSTERING)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Multi-column relations can only be applied to clustering columns "
                              "but was applied to: %s",
                              t->cols[col].name);
        if (i == 0)
            first = col;
        else if (col != first + i)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Clustering columns must appear in the PRIMARY KEY order in "
                              "multi-column relations: %s",
                              t->cols[col].name);
        snprintf(name + strlen(name), sizeof name - strlen(name), "%s%s", i ? "," : "",
                 t->cols[col].name);
    }
    strncat(name, ")", sizeof name - strlen(name) - 1);
    int n = rel->n_cols;
    if (r->multi_n && (r->multi_first != first || r->multi_n != n))
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Mixing multi-column relations on different column sets is not "
                          "supported");
    r->multi_first = first;
    r->multi_n = n;
    const eng_type *tt = tuple_of(a, t, first, n);
    if (!tt)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    int rc = 0;
    if (rel->op == CQL_OP_EQ || rel->op == CQL_OP_IN) {
        if (r->multi_eq || r->multi_lo || r->multi_hi)
            return more_than_one(a, &t->cols[first], "an Equal");
        r->multi_eq = rel->values;
        r->n_multi_eq = rel->n_values;
        r->multi_in_marker = rel->in_marker;
        if (rel->in_marker) {
            eng_type *lt = eng_type_new_list(eng_type_dup(tt), 1);
            const eng_type *kept = cql_plan_keep_type(a->plan, lt);
            if (!kept)
                return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
            cql_bind_marker(a, rel->values[0], kept, t->ks, t->name, name);
            return 0;
        }
        for (int i = 0; i < rel->n_values && !rc; i++)
            rc = bind_tuple(a, t, first, n, rel->values[i], tt, name);
        for (int i = 0; i < n; i++)
            r->keys[first + i].given = CQL_RESTRICT_EQ;
        return rc;
    }
    if (!is_slice_op(rel->op))
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported operator in a multi-column relation");
    int lower = rel->op == CQL_OP_GT || rel->op == CQL_OP_GE;
    if (lower) {
        r->multi_lo = rel->values[0];
        r->multi_lo_n = n;
        r->multi_lo_incl = rel->op == CQL_OP_GE;
    } else {
        r->multi_hi = rel->values[0];
        r->multi_hi_n = n;
        r->multi_hi_incl = rel->op == CQL_OP_LE;
    }
    r->keys[first].given = CQL_RESTRICT_SLICE;
    for (int i = 1; i < n; i++)
        if (t->cols[first + i].desc != t->cols[first].desc)
            r->multi_mixed = 1;
    return bind_tuple(a, t, first, n, rel->values[0], tt, name);
}

static int add_filter(cql_analysis *a, cql_restrictions *r, cql_filter f)
{
    cql_filter *fs = cql_plan_zalloc(a, (size_t)(r->n_filters + 1) * sizeof *fs);
    if (!fs)
        return ENG_E_NOMEM;
    if (r->n_filters)
        memcpy(fs, r->filters, (size_t)r->n_filters * sizeof *fs);
    fs[r->n_filters++] = f;
    r->filters = fs;
    return 0;
}

/* A restriction on a column outside the primary key: checked on each row (RowFilter). */
static int add_column_filter(restrict_ctx *x, const cql_relation *rel, int col)
{
    cql_analysis *a = x->a;
    const eng_table *t = x->r->t;
    const eng_column *c = &t->cols[col];
    x->needs_filtering = 1;
    const eng_type *vt = c->type;
    if (rel->op == CQL_OP_CONTAINS && eng_type_is_collection(c->type))
        vt = c->type->kind == ENG_MAP ? c->type->sub[1] : c->type->sub[0];
    else if (rel->op == CQL_OP_CONTAINS_KEY && c->type->kind == ENG_MAP)
        vt = c->type->sub[0];
    else if (rel->op == CQL_OP_CONTAINS || rel->op == CQL_OP_CONTAINS_KEY)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot use CONTAINS on non-collection column %s",
                          c->name);
    if (rel->op == CQL_OP_IN || rel->op == CQL_OP_LIKE || rel->op == CQL_OP_IS_NOT_NULL ||
        rel->op == CQL_OP_NE)
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported restriction on column %s", c->name);
    int rc = cql_bind_term(a, rel->values[0], vt, t->ks, t->name, c->name);
    if (!rc)
        rc = add_filter(a, x->r, (cql_filter){col, rel->op, rel->values[0], NULL, vt, NULL, 0, 0});
    return rc;
}

/*
 * One relation (Relation.toRestriction, then the merge into the partition
 * key, clustering or other-column set), refused as soon as the statement
 * kind does not take it.
 */
static int add_relation(restrict_ctx *x, const cql_relation *rel)
{
    cql_analysis *a = x->a;
    cql_restrictions *r = x->r;
    int select = is_select(r);
    if (rel->kind == CQL_REL_TOKEN) {
        if (!select)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "The token function cannot be used in WHERE clauses for %s "
                              "statements",
                              kind_name(r->kind));
        return add_token(x, rel);
    }
    if (rel->kind != CQL_REL_COLUMN) {
        /* (cassette) Cassandra takes multi-column relations on the clustering columns of UPDATE
           and DELETE too (UpdateTest, DeleteTest) */
        if (!select)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Multi-column relations are not supported in %s statements",
                              kind_name(r->kind));
        if (rel->kind == CQL_REL_MULTI)
            return add_multi(x, rel);
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Element relations are not supported in WHERE clauses here");
    }
    if (select && rel->op == CQL_OP_NE) {
        eng_buf b = ENG_BUF_INIT;
        cql_term_text(rel->values[0], &b);
        int rc = eng_errorf(a->err, ENG_E_INVALID, "Unsupported \"!=\" relation: %s != %s",
                            rel->cols[0], eng_buf_cstr(&b) ? (char *)b.p : "?");
        eng_buf_free(&b);
        return rc;
    }
    int col;
    int rc = cql_resolve_column(a, r->t, rel->cols[0], &col);
    if (rc)
        return rc;
    const eng_column *c = &r->t->cols[col];
    if (c->kind != ENG_COL_PARTITION && c->kind != ENG_COL_CLUSTERING) {
        if (!select)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Non PRIMARY KEY columns found in where clause: %s ", c->name);
        return add_column_filter(x, rel, col);
    }
    if (rel->op == CQL_OP_EQ || rel->op == CQL_OP_IN)
        return add_eq(x, rel, col);
    if (c->kind == ENG_COL_PARTITION) {
        /* (cassette) for CONTAINS Cassandra first says "Cannot use CONTAINS on non-collection
           column %s", here and on clustering columns */
        if (!select)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Only EQ and IN relation are supported on the partition key (unless "
                              "you use the token() function) for %s statements",
                              kind_name(r->kind));
        /* Since CASSANDRA-11031 (3.10) a slice on a partition key column is a filter of a range
           scan when the query allows filtering; without, nothing more is read. */
        x->needs_filtering = 1;
        if (!x->allow_filtering) {
            x->stopped = 1;
            return 0;
        }
        if (!is_slice_op(rel->op))
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Only EQ and IN relation are supported on the partition key (unless "
                              "you use the token() function)");
    } else if (!is_slice_op(rel->op) || r->kind == CQL_S_UPDATE) {
        /* StatementType.allowClusteringColumnSlices: SELECT and DELETE */
        if (select)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Clustering columns can only be restricted with CONTAINS with a "
                              "secondary index or filtering");
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Slice restrictions are not supported on the clustering columns in %s "
                          "statements",
                          kind_name(r->kind));
    }
    return add_slice(x, rel, col);
}

/* ---- the key as a whole ---- */

/* A key restriction the read cannot use becomes a check on each row (ALLOW FILTERING). */
static int key_to_filters(cql_analysis *a, cql_restrictions *r, int col)
{
    cql_key_restriction *k = &r->keys[col];
    const eng_type *ty = r->t->cols[col].type;
    int rc = 0;
    if (k->given == CQL_RESTRICT_EQ) {
        cql_filter f = {col, k->n == 1 && !k->in_marker ? CQL_OP_EQ : CQL_OP_IN,
                        k->n ? k->vals[0] : NULL, NULL, ty, k->vals, k->n, k->in_marker};
        rc = add_filter(a, r, f);
    } else {
        if (k->lo)
            rc = add_filter(a, r, (cql_filter){col, k->lo_incl ? CQL_OP_GE : CQL_OP_GT, k->lo,
                                               NULL, ty, NULL, 0, 0});
        if (!rc && k->hi)
            rc = add_filter(a, r, (cql_filter){col, k->hi_incl ? CQL_OP_LE : CQL_OP_LT, k->hi,
                                               NULL, ty, NULL, 0, 0});
    }
    memset(k, 0, sizeof *k);
    return rc;
}

/*
 * processPartitionKeyRestrictions: a modification names whole partition
 * keys; a SELECT restricts all of them by = / IN (has_pk) or reads a range,
 * the columns it does restrict then being filters.
 */
static int process_partition_key(restrict_ctx *x)
{
    cql_restrictions *r = x->r;
    const eng_table *t = r->t;
    int pk_given = 0, pk_any = 0;
    for (int i = 0; i < t->n_pk; i++) {
        pk_given += r->keys[i].given == CQL_RESTRICT_EQ;
        pk_any += r->keys[i].given != CQL_RESTRICT_NONE;
    }
    r->has_pk = pk_given == t->n_pk;
    if (!is_select(r)) {
        if (pk_given < t->n_pk)
            return missing(x->a, r, "Some partition key parts are missing: ", 0, t->n_pk);
        return 0;
    }
    if (pk_any && !r->has_pk) {
        x->needs_filtering = 1;
        if (x->allow_filtering)
            for (int i = 0; i < t->n_pk; i++)
                if (r->keys[i].given) {
                    int rc = key_to_filters(x->a, r, i);
                    if (rc)
                        return rc;
                }
    }
    return 0;
}

/* The clustering columns restricted by = / IN as a prefix, then a slice; the column after. */
static int clustering_prefix(cql_restrictions *r)
{
    const eng_table *t = r->t;
    int i = t->n_pk, end = t->n_pk + t->n_ck;
    while (i < end && r->keys[i].given == CQL_RESTRICT_EQ)
        i++;
    r->n_ck_eq = i - t->n_pk;
    if (i < end && r->keys[i].given == CQL_RESTRICT_SLICE) {
        r->ck_slice = 1;
        i++;
    }
    return i;
}

/*
 * processClusteringColumnsRestrictions: restrictions past the prefix and its
 * slice are refused, or, in a SELECT that allows filtering, checked on rows.
 */
static int process_clustering(restrict_ctx *x)
{
    cql_restrictions *r = x->r;
    const eng_table *t = r->t;
    for (int j = clustering_prefix(r); j < t->n_pk + t->n_ck; j++) {
        if (!r->keys[j].given)
            continue;
        /* (cassette) UPDATE and DELETE give this text for every gap: Cassandra gives the
           non-EQ one after a slice, and for UPDATE "Some clustering keys are missing" */
        if (!is_select(r))
            return preceding(x->a, t, j, 0);
        x->needs_filtering = 1;
        if (x->allow_filtering) {
            int rc = key_to_filters(x->a, r, j);
            if (rc)
                return rc;
        } else if (r->has_pk) {
            return preceding(x->a, t, j, r->keys[j - 1].given == CQL_RESTRICT_SLICE);
        }
    }
    if (is_select(r) && !r->has_pk && (r->n_ck_eq || r->ck_slice))
        x->needs_filtering = 1;
    return 0;
}

int cql_restrict_where(cql_analysis *a, cql_restrictions *r, const cql_relation *where, int n,
                       int allow_filtering)
{
    restrict_ctx x = {a, r, allow_filtering, 0, 0, 0};
    for (int i = 0; i < n && !x.stopped; i++) {
        int rc = add_relation(&x, &where[i]);
        if (rc)
            return rc;
    }
    int rc = process_partition_key(&x);
    if (!rc)
        rc = process_clustering(&x);
    if (!rc && x.needs_filtering && !allow_filtering)
        rc = eng_errorf(a->err, ENG_E_INVALID, "%s", FILTERING_MSG);
    return rc;
}

/* ---- INSERT's key values (UpdateStatement.ParsedInsert: equalities on the key) ---- */

int cql_restrict_insert_value(cql_analysis *a, cql_restrictions *r, int col, cql_term **value)
{
    const eng_table *t = r->t;
    cql_key_restriction *k = &r->keys[col];
    k->given = CQL_RESTRICT_EQ;
    k->vals = value;
    k->n = 1;
    return cql_bind_term(a, *value, t->cols[col].type, t->ks, t->name, t->cols[col].name);
}

void cql_restrict_insert_json(cql_restrictions *r, int col)
{
    cql_key_restriction *k = &r->keys[col];
    k->given = CQL_RESTRICT_EQ;
    k->n = 1;
    k->from_json = 1;
}

int cql_restrict_insert_done(cql_analysis *a, cql_restrictions *r)
{
    for (int i = 0; i < r->t->n_pk; i++)
        if (!r->keys[i].given)
            return missing(a, r, "Some partition key parts are missing: ", 0, r->t->n_pk);
    r->has_pk = 1;
    clustering_prefix(r);
    return 0;
}

int cql_restrict_check_written(cql_analysis *a, const cql_restrictions *r, int only_static)
{
    const eng_table *t = r->t;
    int ck_restricted = r->n_ck_eq > 0 || r->ck_slice;
    int full_ck = r->n_ck_eq == t->n_ck && !r->ck_slice;
    /* Naming a row while writing only its partition's statics suggests a mistake; an INSERT
       must name the row all the same. */
    if (only_static && t->n_ck > 0 && ck_restricted && r->kind != CQL_S_INSERT)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Invalid restrictions on clustering columns since the %s statement "
                          "modifies only static columns",
                          kind_name(r->kind));
    if (r->kind == CQL_S_DELETE || full_ck)
        return 0;
    /* The static row alone, unless an INSERT names some clustering column
       (ParsedInsert's applyOnlyToStaticColumns). */
    if (only_static && t->n_ck > 0 && !(r->kind == CQL_S_INSERT && r->n_ck_eq > 0))
        return 0;
    return missing(a, r, "Some clustering keys are missing: ", t->n_pk, t->n_pk + t->n_ck);
}

int cql_restrict_has_in(const cql_restrictions *r, int from, int to)
{
    for (int i = from; i < to; i++)
        if (r->keys[i].given == CQL_RESTRICT_EQ && (r->keys[i].n != 1 || r->keys[i].in_marker))
            return 1;
    return 0;
}

/* ---- execution: key values ---- */

static int oom(cql_exec *x)
{
    return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
}

/*
 * The candidate values of column col restricted by k: the JSON object's, the
 * IN ? list's or the terms' (INRestriction.getValues), each checked, sorted
 * by the column type and deduplicated (facts §7.4).
 */
static int candidates(cql_exec *x, const cql_restrictions *r, int col,
                      const cql_key_restriction *k, const eng_val *json, cql_key_values *out)
{
    const eng_column *c = &r->t->cols[col];
    int select = is_select(r);
    out->n = 0;
    if (k->from_json) {
        out->vals = eng_arena_alloc(&x->arena, sizeof *out->vals);
        if (!out->vals)
            return oom(x);
        out->vals[out->n++] = json[col];
    } else if (k->in_marker) {
        eng_val list;
        const eng_type *lt = x->plan->binds[k->vals[0]->bind_index].type;
        int rc = cql_eval_val(x, k->vals[0], lt, c->name, &list);
        if (rc)
            return rc;
        /* (cassette) Cassandra says "Invalid null value for column %s" and "Invalid unset value
           for column %s" (InRestrictionWithMarker), whatever the statement */
        if (list.len == ENG_NULL || (select && list.len == ENG_UNSET))
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s", c->name);
        if (list.len == ENG_UNSET)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid unset value for column %s", c->name);
        eng_items it;
        int32_t n = eng_items_begin(&it, list.p, (size_t)list.len);
        if (n < 0 && !select)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid list value for %s", c->name);
        out->vals = eng_arena_alloc(&x->arena, (size_t)(n > 0 ? n : 1) * sizeof *out->vals);
        if (!out->vals)
            return oom(x);
        eng_val e;
        while (n > 0 && eng_items_next(&it, &e) == 1)
            out->vals[out->n++] = e;
    } else {
        out->vals = eng_arena_alloc(&x->arena, (size_t)(k->n ? k->n : 1) * sizeof *out->vals);
        if (!out->vals)
            return oom(x);
        for (int i = 0; i < k->n; i++) {
            int rc = cql_eval_val(x, k->vals[i], c->type, c->name, &out->vals[out->n++]);
            if (rc)
                return rc;
        }
    }
    eng_val *v = out->vals;
    for (int i = 0; i < out->n; i++) {
        if (v[i].len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Invalid null value in condition for column %s", c->name);
        if (v[i].len == ENG_UNSET)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid unset value for column %s", c->name);
    }
    for (int i = 1; i < out->n; i++)
        for (int j = i; j > 0; j--) {
            if (eng_type_compare(c->type, v[j - 1].p, (size_t)v[j - 1].len, v[j].p,
                                 (size_t)v[j].len) <= 0)
                break;
            eng_val tmp = v[j - 1];
            v[j - 1] = v[j];
            v[j] = tmp;
        }
    int w = 0;
    for (int i = 0; i < out->n; i++)
        if (!w || eng_type_compare(c->type, v[w - 1].p, (size_t)v[w - 1].len, v[i].p,
                                   (size_t)v[i].len) != 0)
            v[w++] = v[i];
    out->n = w;
    /* A read goes in clustering order: a DESC column's largest value first. */
    if (select && c->kind == ENG_COL_CLUSTERING && c->desc)
        for (int i = 0; i < w / 2; i++) {
            eng_val tmp = v[i];
            v[i] = v[w - 1 - i];
            v[w - 1 - i] = tmp;
        }
    return 0;
}

/* The candidates of key columns [from, to), into kv[from..to). */
static int key_range_values(cql_exec *x, const cql_restrictions *r, int from, int to,
                            const eng_val *json, cql_key_values *kv)
{
    for (int i = from; i < to; i++) {
        int rc = candidates(x, r, i, &r->keys[i], json, &kv[i]);
        if (rc)
            return rc;
    }
    return 0;
}

int cql_restrict_key_values(cql_exec *x, const cql_restrictions *r, int n, const eng_val *json,
                            cql_key_values *kv)
{
    return key_range_values(x, r, 0, n, json, kv);
}

/* ---- execution: IN combinations ---- */

/* The number of combinations of columns [from, from + n), saturating at UINT64_MAX
   (far above the limit, so a saturated count is always refused). */
static uint64_t combinations(const cql_key_values *kv, int from, int n)
{
    uint64_t total = 1;
    for (int i = from; i < from + n; i++) {
        uint64_t k = (uint64_t)kv[i].n;
        if (k && total > UINT64_MAX / k)
            return UINT64_MAX;
        total *= k;
    }
    return total;
}

/* Refuses a statement naming more than MAX_IN_COMBINATIONS keys. The message
   gives the exact product of the IN list sizes of columns [from, from + n),
   computed in decimal so that no count wraps however many lists there are. */
static int too_many(cql_exec *x, const cql_key_values *kv, int from, int n)
{
    char digits[1024]; /* little-endian decimal digits: 64 lists of 2^31 values need 600 */
    size_t len = 1;
    digits[0] = 1;
    for (int i = from; i < from + n; i++) {
        uint64_t carry = 0;
        for (size_t d = 0; d < len; d++) {
            carry += (uint64_t)digits[d] * (uint64_t)kv[i].n;
            digits[d] = (char)(carry % 10);
            carry /= 10;
        }
        while (carry && len < sizeof digits) {
            digits[len++] = (char)(carry % 10);
            carry /= 10;
        }
    }
    char text[sizeof digits + 1];
    for (size_t d = 0; d < len; d++)
        text[d] = (char)('0' + digits[len - 1 - d]);
    text[len] = 0;
    return eng_errorf(x->err, ENG_E_INVALID, "Too many IN combinations (%s)", text);
}

void cql_restrict_combination(const cql_key_values *kv, int from, int n, uint64_t idx,
                              eng_val *out)
{
    for (int i = from + n - 1; i >= from; i--) {
        uint64_t k = (uint64_t)kv[i].n;
        out[i - from] = kv[i].vals[idx % k];
        idx /= k;
    }
}

int cql_restrict_write_count(cql_exec *x, const cql_restrictions *r, const cql_key_values *kv,
                             int rows, uint32_t *n_parts, uint32_t *n_rows)
{
    const eng_table *t = r->t;
    int n_keys = t->n_pk + (rows ? r->n_ck_eq : 0); /* every key column the write names */
    uint64_t parts = combinations(kv, 0, t->n_pk);
    uint64_t total = combinations(kv, 0, n_keys);
    if (total > MAX_IN_COMBINATIONS)
        return too_many(x, kv, 0, n_keys);
    *n_parts = (uint32_t)parts;
    *n_rows = rows ? (uint32_t)combinations(kv, t->n_pk, r->n_ck_eq) : 0;
    return 0;
}

/* Every combination of columns [from, from + n) as a tuple of n values. */
static int product(cql_exec *x, const cql_key_values *kv, int from, int n, eng_val ***out,
                   uint32_t *n_out)
{
    uint64_t total = combinations(kv, from, n);
    if (total > MAX_IN_COMBINATIONS)
        return too_many(x, kv, from, n);
    eng_val **tuples = eng_arena_alloc(&x->arena, (size_t)(total ? total : 1) * sizeof *tuples);
    if (!tuples)
        return oom(x);
    for (uint64_t i = 0; i < total; i++) {
        tuples[i] = eng_arena_alloc(&x->arena, (size_t)(n ? n : 1) * sizeof *tuples[i]);
        if (!tuples[i])
            return oom(x);
        cql_restrict_combination(kv, from, n, i, tuples[i]);
    }
    *out = tuples;
    *n_out = (uint32_t)total;
    return 0;
}

/* ---- execution: partition keys and token ranges ---- */

int cql_restrict_partition_keys(cql_exec *x, const cql_restrictions *r, eng_query *q)
{
    const eng_table *t = r->t;
    cql_key_values *kv = eng_arena_alloc(&x->arena, (size_t)(t->n_pk ? t->n_pk : 1) * sizeof *kv);
    if (!kv)
        return oom(x);
    int rc = key_range_values(x, r, 0, t->n_pk, NULL, kv);
    if (rc)
        return rc;
    eng_val **keys;
    uint32_t n;
    if ((rc = product(x, kv, 0, t->n_pk, &keys, &n)))
        return rc;
    q->keys = (const eng_val *const *)keys;
    q->n_keys = n;
    return n ? 0 : 1; /* IN (): nothing to read */
}

/* The token a bound names: a bigint, or token(values...) of key values. */
static int eval_token(cql_exec *x, const eng_table *table, const cql_term *t, int64_t *out)
{
    if (t->kind == CQL_T_FUNCTION && !strcasecmp(t->name, "token")) {
        eng_val parts[64];
        for (int i = 0; i < t->n_items && i < 64; i++) {
            int rc = cql_eval_val(x, t->items[i], table->cols[i].type, table->cols[i].name,
                                  &parts[i]);
            if (rc)
                return rc;
            if (parts[i].len < 0)
                return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s",
                                  table->cols[i].name);
        }
        eng_buf key = ENG_BUF_INIT;
        eng_partition_key_compose(&key, parts, t->n_items);
        *out = eng_token(key.p, key.len);
        int bad = key.oom;
        eng_buf_free(&key);
        return bad ? oom(x) : 0;
    }
    eng_val v;
    int rc = cql_eval_val(x, t, &bigint_type, "partition key token", &v);
    if (rc)
        return rc;
    if (v.len != 8)
        return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for partition key token");
    *out = (int64_t)eng_be64(v.p);
    return 0;
}

/* Token bounds; the minimum token as a bound means unbounded (facts §7.3). */
int cql_restrict_token_range(cql_exec *x, const cql_restrictions *r, eng_query *q)
{
    q->token_lo = ENG_TOKEN_MIN;
    q->token_hi = ENG_TOKEN_MAX;
    q->token_lo_incl = q->token_hi_incl = 1;
    int64_t v;
    int rc;
    if (r->tok_lo) {
        if ((rc = eval_token(x, r->t, r->tok_lo, &v)))
            return rc;
        if (v != ENG_TOKEN_MIN) {
            q->token_lo = v;
            q->token_lo_incl = (uint8_t)r->tok_lo_incl;
        }
    }
    if (r->tok_hi) {
        if ((rc = eval_token(x, r->t, r->tok_hi, &v)))
            return rc;
        if (v != ENG_TOKEN_MIN) {
            q->token_hi = v;
            q->token_hi_incl = (uint8_t)r->tok_hi_incl;
        }
    }
    if (q->token_lo > q->token_hi ||
        (q->token_lo == q->token_hi && (!q->token_lo_incl || !q->token_hi_incl)))
        return 1; /* empty range, no wrap-around (CASSANDRA-5573) */
    return 0;
}

/* token() restrictions next to = / IN on the key keep the keys inside the range (TokenFilter). */
int cql_restrict_keys_in_token_range(cql_exec *x, const cql_restrictions *r, eng_query *q,
                                     int *empty)
{
    eng_query range = *q;
    int rc = cql_restrict_token_range(x, r, &range);
    if (rc == 1) {
        *empty = 1;
        return 0;
    }
    if (rc)
        return rc;
    uint32_t kept = 0;
    const eng_val **keys = (const eng_val **)q->keys;
    for (uint32_t i = 0; i < q->n_keys; i++) {
        eng_buf key = ENG_BUF_INIT;
        eng_partition_key_compose(&key, keys[i], r->t->n_pk);
        int64_t tok = eng_token(key.p, key.len);
        eng_buf_free(&key);
        int lo_ok = range.token_lo_incl ? tok >= range.token_lo : tok > range.token_lo;
        int hi_ok = range.token_hi_incl ? tok <= range.token_hi : tok < range.token_hi;
        if (lo_ok && hi_ok)
            keys[kept++] = keys[i];
    }
    q->n_keys = kept;
    *empty = kept == 0;
    return 0;
}

/* ---- execution: clustering slices ---- */

/* Clustering values against a bound prefix, in clustering order (DESC columns reversed). */
static int clustering_cmp(const eng_table *t, const eng_val *ck, const eng_bound *b)
{
    for (uint16_t i = 0; i < b->n; i++) {
        const eng_column *c = &t->cols[t->n_pk + i];
        int r = eng_type_compare(c->type, ck[i].p, (size_t)ck[i].len, b->vals[i].p,
                                 (size_t)b->vals[i].len);
        if (r)
            return c->desc ? -r : r;
    }
    return 0;
}

int cql_restrict_slice_bounds(cql_exec *x, const cql_restrictions *r, cql_slice_bounds *b)
{
    b->lo = b->hi = (eng_val){NULL, ENG_NULL};
    if (!r->ck_slice)
        return 0;
    int col = r->t->n_pk + r->n_ck_eq;
    const eng_column *c = &r->t->cols[col];
    const cql_key_restriction *k = &r->keys[col];
    int rc = 0;
    if (k->lo)
        rc = cql_eval_val(x, k->lo, c->type, c->name, &b->lo);
    if (!rc && k->hi)
        rc = cql_eval_val(x, k->hi, c->type, c->name, &b->hi);
    return rc;
}

int cql_restrict_slice(cql_exec *x, const cql_restrictions *r, const eng_val *prefix,
                       const cql_slice_bounds *b, eng_slice *out)
{
    int n = r->n_ck_eq;
    eng_val *s = eng_arena_alloc(&x->arena, (size_t)(n + 1) * sizeof *s);
    eng_val *e = eng_arena_alloc(&x->arena, (size_t)(n + 1) * sizeof *e);
    if (!s || !e)
        return oom(x);
    memcpy(s, prefix, (size_t)n * sizeof *s);
    memcpy(e, prefix, (size_t)n * sizeof *e);
    eng_slice sl = {{s, (uint16_t)n, 1}, {e, (uint16_t)n, 1}};
    if (r->ck_slice) {
        const cql_key_restriction *k = &r->keys[r->t->n_pk + n];
        if (k->lo) {
            s[n] = b->lo;
            sl.start.n = (uint16_t)(n + 1);
            sl.start.inclusive = (uint8_t)k->lo_incl;
        }
        if (k->hi) {
            e[n] = b->hi;
            sl.end.n = (uint16_t)(n + 1);
            sl.end.inclusive = (uint8_t)k->hi_incl;
        }
        /* Bounds are given in clustering order: a DESC column's lower value ends the slice. */
        if (r->t->cols[r->t->n_pk + n].desc) {
            eng_bound tmp = sl.start;
            sl.start = sl.end;
            sl.end = tmp;
        }
    }
    *out = sl;
    return 0;
}

/* The values of a tuple term for columns [first, first + n). */
static int eval_tuple(cql_exec *x, const cql_restrictions *r, const cql_term *v, eng_val *out,
                      int n)
{
    const eng_table *t = r->t;
    int first = r->multi_first;
    if (v->kind == CQL_T_TUPLE) {
        for (int i = 0; i < n; i++) {
            int rc = cql_eval_val(x, v->items[i], t->cols[first + i].type,
                                  t->cols[first + i].name, &out[i]);
            if (rc)
                return rc;
        }
    } else {
        eng_val tv;
        const eng_type *tt = x->plan->binds[v->bind_index].type;
        int rc = cql_eval_val(x, v, tt, "tuple", &tv);
        if (rc)
            return rc;
        if (tv.len < 0)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value in condition for "
                                                     "columns");
        eng_items it;
        eng_items_begin_raw(&it, tv.p, (size_t)tv.len);
        for (int i = 0; i < n; i++)
            if (eng_items_next(&it, &out[i]) != 1)
                out[i] = (eng_val){NULL, ENG_NULL};
    }
    for (int i = 0; i < n; i++)
        if (out[i].len < 0)
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Invalid null value in condition for column %s",
                              t->cols[first + i].name);
    return 0;
}

/* Points of a multi-column = / IN: one slice per tuple, in clustering order, without repeats. */
static int multi_points(cql_exec *x, const cql_restrictions *r, eng_query *q)
{
    const eng_table *t = r->t;
    int n = r->multi_n;
    uint32_t count = (uint32_t)r->n_multi_eq;
    const cql_term *const *tuples = (const cql_term *const *)r->multi_eq;
    eng_val list = {NULL, 0};
    eng_items it;
    if (r->multi_in_marker) {
        const eng_type *lt = x->plan->binds[r->multi_eq[0]->bind_index].type;
        int rc = cql_eval_val(x, r->multi_eq[0], lt, "in", &list);
        if (rc)
            return rc;
        int32_t c = list.len >= 0 ? eng_items_begin(&it, list.p, (size_t)list.len) : 0;
        count = c > 0 ? (uint32_t)c : 0;
    }
    eng_slice *slices = eng_arena_alloc(&x->arena, (count ? count : 1) * sizeof *slices);
    if (!slices)
        return oom(x);
    for (uint32_t i = 0; i < count; i++) {
        eng_val *vals = eng_arena_alloc(&x->arena, (size_t)n * sizeof *vals);
        if (!vals)
            return oom(x);
        if (r->multi_in_marker) {
            eng_val tv;
            eng_items_next(&it, &tv);
            eng_items ti;
            eng_items_begin_raw(&ti, tv.p, tv.len > 0 ? (size_t)tv.len : 0);
            for (int j = 0; j < n; j++)
                if (eng_items_next(&ti, &vals[j]) != 1)
                    vals[j] = (eng_val){NULL, ENG_NULL};
        } else {
            int rc = eval_tuple(x, r, tuples[i], vals, n);
            if (rc)
                return rc;
        }
        slices[i] = (eng_slice){{vals, (uint16_t)n, 1}, {vals, (uint16_t)n, 1}};
    }
    for (uint32_t i = 1; i < count; i++)
        for (uint32_t j = i; j > 0; j--) {
            if (clustering_cmp(t, slices[j].start.vals, &slices[j - 1].start) >= 0)
                break;
            eng_slice tmp = slices[j - 1];
            slices[j - 1] = slices[j];
            slices[j] = tmp;
        }
    uint32_t w = 0;
    for (uint32_t i = 0; i < count; i++)
        if (!w || clustering_cmp(t, slices[i].start.vals, &slices[w - 1].start) != 0)
            slices[w++] = slices[i];
    q->slices = slices;
    q->n_slices = w;
    return w ? 0 : 1;
}

/* The slice of multi-column bounds (c1, c2) > (..) AND (c1, c2) < (..). */
static int multi_slice(cql_exec *x, const cql_restrictions *r, eng_query *q, eng_val **mlo,
                       eng_val **mhi)
{
    const eng_table *t = r->t;
    int n = r->multi_n;
    eng_slice *sl = eng_arena_alloc(&x->arena, sizeof *sl);
    eng_val *lo = eng_arena_alloc(&x->arena, (size_t)n * sizeof *lo);
    eng_val *hi = eng_arena_alloc(&x->arena, (size_t)n * sizeof *hi);
    if (!sl || !lo || !hi)
        return oom(x);
    memset(sl, 0, sizeof *sl);
    int rc = 0;
    if (r->multi_lo && !(rc = eval_tuple(x, r, r->multi_lo, lo, r->multi_lo_n)))
        sl->start = (eng_bound){lo, (uint16_t)r->multi_lo_n, (uint8_t)r->multi_lo_incl};
    if (!rc && r->multi_hi && !(rc = eval_tuple(x, r, r->multi_hi, hi, r->multi_hi_n)))
        sl->end = (eng_bound){hi, (uint16_t)r->multi_hi_n, (uint8_t)r->multi_hi_incl};
    if (rc)
        return rc;
    if (r->multi_mixed) {
        /* Directions differ: read the first column's range inclusively; rows are then compared
           as tuples in the columns' natural order (select.c). */
        *mlo = r->multi_lo ? lo : NULL;
        *mhi = r->multi_hi ? hi : NULL;
        if (r->multi_lo)
            sl->start = (eng_bound){lo, 1, 1};
        if (r->multi_hi)
            sl->end = (eng_bound){hi, 1, 1};
    }
    if (t->cols[t->n_pk].desc) {
        eng_bound tmp = sl->start;
        sl->start = sl->end;
        sl->end = tmp;
    }
    q->slices = sl;
    q->n_slices = 1;
    return 0;
}

int cql_restrict_clustering_slices(cql_exec *x, const cql_restrictions *r, eng_query *q,
                                   eng_val **mixed_lo, eng_val **mixed_hi)
{
    const eng_table *t = r->t;
    if (r->multi_n) {
        if (r->multi_first != t->n_pk)
            return eng_errorf(x->err, ENG_E_INVALID,
                              "Multi-column relations must start at the first clustering column "
                              "here");
        return r->multi_eq ? multi_points(x, r, q) : multi_slice(x, r, q, mixed_lo, mixed_hi);
    }
    if (!r->n_ck_eq && !r->ck_slice)
        return 0;
    int n = r->n_ck_eq;
    cql_key_values *kv = eng_arena_alloc(&x->arena, (size_t)(t->n_pk + n + 1) * sizeof *kv);
    if (!kv)
        return oom(x);
    int rc = key_range_values(x, r, t->n_pk, t->n_pk + n, NULL, kv);
    if (rc)
        return rc;
    eng_val **prefixes;
    uint32_t n_prefixes;
    if ((rc = product(x, kv, t->n_pk, n, &prefixes, &n_prefixes)))
        return rc;
    if (!n_prefixes)
        return 1; /* c IN (): no row can match (no slices would read them all) */
    eng_slice *slices = eng_arena_alloc(&x->arena, n_prefixes * sizeof *slices);
    if (!slices)
        return oom(x);
    cql_slice_bounds b;
    if ((rc = cql_restrict_slice_bounds(x, r, &b)))
        return rc;
    for (uint32_t i = 0; i < n_prefixes; i++)
        if ((rc = cql_restrict_slice(x, r, prefixes[i], &b, &slices[i])))
            return rc;
    q->slices = slices;
    q->n_slices = n_prefixes;
    return 0;
}

/* ---- execution: filters ---- */

int cql_restrict_filter_values(cql_exec *x, const cql_restrictions *r, eng_val *vals,
                               cql_key_values *lists)
{
    const eng_table *t = r->t;
    for (int i = 0; i < r->n_filters; i++) {
        const cql_filter *f = &r->filters[i];
        int rc;
        if (f->op == CQL_OP_IN) {
            cql_key_restriction k = {CQL_RESTRICT_EQ, f->in_vals, f->n_in, f->in_marker, 0,
                                     NULL, NULL, 0, 0};
            if ((rc = candidates(x, r, f->col, &k, NULL, &lists[i])))
                return rc;
            vals[i] = (eng_val){NULL, 0};
            continue;
        }
        if ((rc = cql_eval_val(x, f->value, f->type, t->cols[f->col].name, &vals[i])))
            return rc;
        if (vals[i].len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s",
                              t->cols[f->col].name);
    }
    return 0;
}
