/*
 * The WHERE rules: Cassandra's StatementRestrictions for SELECT, UPDATE and
 * DELETE (and INSERT's key values), each check written once here with
 * Cassandra's message (facts §4.3, §7.3-§7.9, §8.2).
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
