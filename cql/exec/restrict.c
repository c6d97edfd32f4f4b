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
 * (filtering, CONTAINS: SELECT) and
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
 * (token(), another column, a slice) is refused as it comes,
 * where Cassandra first merges every relation and refuses later.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cql/exec/literal.h"
#include "cql/exec/restrict.h"
#include "engine/value/token.h"

#define MAX_IN_COMBINATIONS CQL_MAX_IN_COMBINATIONS

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

/* = or IN on a partition key column, merged with what the column already has
   (SingleColumnRestriction.EQRestriction / INRestriction / SliceRestriction.mergeWith). */
static int add_eq(restrict_ctx *x, const cql_relation *rel, int col)
{
    cql_restrictions *r = x->r;
    const eng_column *c = &r->t->cols[col];
    cql_key_restriction *k = &r->keys[col];
    if (k->given == CQL_RESTRICT_SLICE)
        return eq_and_slice(x->a, c);
    if (k->given)
        return more_than_one(x->a, c, k->n == 1 && !k->in_marker ? "an Equal" : "a IN");
    k->given = CQL_RESTRICT_EQ;
    k->vals = rel->values;
    k->n = rel->n_values;
    k->in_marker = rel->in_marker;
    return bind_values(x->a, r->t, c, rel);
}

/* <, <=, >, >= on a partition key column: one bound of its slice (SliceRestriction). */
static int add_slice(restrict_ctx *x, const cql_relation *rel, int col)
{
    cql_restrictions *r = x->r;
    const eng_column *c = &r->t->cols[col];
    cql_key_restriction *k = &r->keys[col];
    int lower = rel->op == CQL_OP_GT || rel->op == CQL_OP_GE;
    if (k->given == CQL_RESTRICT_EQ)
        return more_than_one(x->a, c, k->n == 1 && !k->in_marker ? "an Equal" : "a IN");
    if ((lower && k->lo) || (!lower && k->hi))
        return eng_errorf(x->a->err, ENG_E_INVALID,
                          "More than one restriction was found for the %s bound on %s",
                          lower ? "start" : "end", c->name);
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

/* A relation as Cassandra prints it in messages (Relation.toString): "(b, c) > (1, ?)". */
static void relation_text(const cql_relation *rel, eng_buf *b)
{
    static const char *const ops[] = {"", "=", "!=", "<", "<=", ">", ">=", "IN", "CONTAINS",
                                      "CONTAINS KEY", "LIKE", "IS NOT"};
    if (rel->kind == CQL_REL_MULTI) {
        eng_buf_put_str(b, "(");
        for (int i = 0; i < rel->n_cols; i++)
            eng_buf_printf(b, "%s%s", i ? ", " : "", rel->cols[i]);
        eng_buf_put_str(b, ")");
    } else {
        eng_buf_put_str(b, rel->cols[0]);
    }
    eng_buf_printf(b, " %s ", rel->op > 0 && rel->op <= CQL_OP_IS_NOT_NULL ? ops[rel->op] : "?");
    if (rel->op == CQL_OP_IN && !rel->in_marker) {
        eng_buf_put_str(b, "(");
        for (int i = 0; i < rel->n_values; i++) {
            if (i)
                eng_buf_put_str(b, ", ");
            cql_term_text(rel->values[i], b);
        }
        eng_buf_put_str(b, ")");
    } else if (rel->n_values) {
        cql_term_text(rel->values[0], b);
    }
}

/* An error whose message ends with the relation's text: "<what>: <relation>". */
static int relation_error(cql_analysis *a, const char *what, const cql_relation *rel)
{
    eng_buf b = ENG_BUF_INIT;
    relation_text(rel, &b);
    int rc = eng_errorf(a->err, ENG_E_INVALID, "%s%s", what,
                        eng_buf_cstr(&b) ? (char *)b.p : "");
    eng_buf_free(&b);
    return rc;
}

static int bind_tuple(cql_analysis *a, const eng_table *t, int first, int n, const cql_term *v,
                      const eng_type *tt, const char *name)
{
    if (v->kind == CQL_T_TUPLE) {
        if (v->n_items != n) {
            eng_buf b = ENG_BUF_INIT;
            cql_term_text(v, &b);
            int rc = eng_errorf(a->err, ENG_E_INVALID,
                                "Expected %d elements in value tuple, but got %d: %s", n,
                                v->n_items, eng_buf_cstr(&b) ? (char *)b.p : "");
            eng_buf_free(&b);
            return rc;
        }
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
    if (n == 1) /* (c) = 1: a parenthesised single value */
        return cql_bind_term(a, v, t->cols[first].type, t->ks, t->name, t->cols[first].name);
    return eng_errorf(a->err, ENG_E_INVALID, "Invalid value for a multi-column relation");
}

/* A group on one clustering column taking one relation's values. */
static int group_is_in(const cql_ck_group *g)
{
    return g->given == CQL_RESTRICT_EQ && (g->n_vals != 1 || g->in_marker);
}

/* MultiColumnRestriction.getColumnsInCommons: the columns both restrict, joined by " ,". */
static void commons(const eng_table *t, const cql_ck_group *e, const cql_ck_group *g, char *out,
                    size_t size)
{
    out[0] = 0;
    int lo = e->first > g->first ? e->first : g->first;
    int hi = e->first + e->n < g->first + g->n ? e->first + e->n : g->first + g->n;
    for (int c = lo; c < hi; c++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", c > lo ? " ," : "",
                 t->cols[c].name);
}

/*
 * e.mergeWith(g) (SingleColumnRestriction / MultiColumnRestriction): an
 * equality or IN takes no other relation; two slices merge when they start
 * at the same column and give each bound once, over the wider column set.
 */
static int merge_group(cql_analysis *a, const eng_table *t, const cql_ck_group *e,
                       const cql_ck_group *g, cql_ck_group *out)
{
    char names[600];
    commons(t, e, g, names, sizeof names);
    if (e->given == CQL_RESTRICT_EQ)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "%s cannot be restricted by more than one relation if it includes %s",
                          names, group_is_in(e) ? "a IN" : "an Equal");
    if (g->given != CQL_RESTRICT_SLICE)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Column \"%s\" cannot be restricted by both an equality and an "
                          "inequality relation",
                          names);
    if (e->first != g->first)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Column \"%s\" cannot be restricted by two inequalities not starting "
                          "with the same column",
                          t->cols[e->first > g->first ? e->first : g->first].name);
    if (e->lo && g->lo)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "More than one restriction was found for the start bound on %s", names);
    if (e->hi && g->hi)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "More than one restriction was found for the end bound on %s", names);
    *out = *e;
    out->multi = e->multi || g->multi;
    out->n = e->n > g->n ? e->n : g->n;
    if (g->lo) {
        out->lo = g->lo;
        out->lo_n = g->lo_n;
        out->lo_tuple = g->lo_tuple;
        out->lo_incl = g->lo_incl;
    }
    if (g->hi) {
        out->hi = g->hi;
        out->hi_n = g->hi_n;
        out->hi_tuple = g->hi_tuple;
        out->hi_incl = g->hi_incl;
    }
    return 0;
}

/*
 * Adds one clustering restriction (RestrictionSet.addRestriction, merging with
 * the restrictions on the same columns), then, unless the query allows
 * filtering, ClusteringColumnRestrictions.Builder's checks against the
 * restriction on the last column restricted so far.
 */
static int add_group(restrict_ctx *x, const cql_ck_group *g)
{
    cql_analysis *a = x->a;
    cql_restrictions *r = x->r;
    const eng_table *t = r->t;
    int last = -1; /* the group on the highest column before this one */
    for (int i = 0; i < r->n_groups; i++)
        if (last < 0 || r->groups[i].first + r->groups[i].n > r->groups[last].first +
                                                                  r->groups[last].n)
            last = i;
    cql_ck_group last_g = last >= 0 ? r->groups[last] : (cql_ck_group){0};
    cql_ck_group *gs = cql_plan_zalloc(a, (size_t)(r->n_groups + 1) * sizeof *gs);
    if (!gs)
        return ENG_E_NOMEM;
    cql_ck_group merged = *g;
    int n = 0, overlapped = 0;
    for (int i = 0; i < r->n_groups; i++) {
        const cql_ck_group *e = &r->groups[i];
        if (e->first + e->n <= g->first || g->first + g->n <= e->first) {
            gs[n++] = *e;
            continue;
        }
        int rc = merge_group(a, t, overlapped ? &merged : e, g, &merged);
        if (rc)
            return rc;
        overlapped = 1;
    }
    /* keep the set ordered by first column, without overlaps */
    int w = 0;
    for (int i = 0; i < n; i++)
        if (gs[i].first + gs[i].n <= merged.first || merged.first + merged.n <= gs[i].first)
            gs[w++] = gs[i];
    n = w;
    int at = 0;
    while (at < n && gs[at].first < merged.first)
        at++;
    memmove(&gs[at + 1], &gs[at], (size_t)(n - at) * sizeof *gs);
    gs[at] = merged;
    r->groups = gs;
    r->n_groups = n + 1;
    if (last < 0 || x->allow_filtering)
        return 0;
    if (last_g.given == CQL_RESTRICT_SLICE && g->first > last_g.first)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Clustering column \"%s\" cannot be restricted (preceding column \"%s\" "
                          "is restricted by a non-EQ relation)",
                          t->cols[g->first].name, t->cols[last_g.first].name);
    if (g->first < last_g.first && g->given == CQL_RESTRICT_SLICE) {
        /* RestrictionSet.nextColumn: the column restricted next after g's first */
        int next = g->first + 1;
        while (next < t->n_pk + t->n_ck) {
            int found = 0;
            for (int i = 0; i < r->n_groups && !found; i++)
                found = next >= r->groups[i].first && next < r->groups[i].first + r->groups[i].n;
            if (found)
                break;
            next++;
        }
        return eng_errorf(a->err, ENG_E_INVALID,
                          "PRIMARY KEY column \"%s\" cannot be restricted (preceding column \"%s\" "
                          "is restricted by a non-EQ relation)",
                          t->cols[next].name, t->cols[g->first].name);
    }
    return 0;
}

/* col = / IN / < ... on a clustering column: a restriction on that column alone. */
static int add_ck_single(restrict_ctx *x, const cql_relation *rel, int col)
{
    const eng_table *t = x->r->t;
    cql_ck_group g = {.first = col, .n = 1};
    if (rel->op == CQL_OP_EQ || rel->op == CQL_OP_IN) {
        g.given = CQL_RESTRICT_EQ;
        g.vals = rel->values;
        g.n_vals = rel->n_values;
        g.in_marker = rel->in_marker;
    } else {
        g.given = CQL_RESTRICT_SLICE;
        if (rel->op == CQL_OP_GT || rel->op == CQL_OP_GE) {
            g.lo = rel->values[0];
            g.lo_n = 1;
            g.lo_incl = rel->op == CQL_OP_GE;
        } else {
            g.hi = rel->values[0];
            g.hi_n = 1;
            g.hi_incl = rel->op == CQL_OP_LE;
        }
    }
    int rc = bind_values(x->a, t, &t->cols[col], rel);
    return rc ? rc : add_group(x, &g);
}

/* (c1, c2) = / IN / < ... on clustering columns in their order (MultiColumnRelation). */
static int add_multi(restrict_ctx *x, const cql_relation *rel)
{
    cql_analysis *a = x->a;
    cql_restrictions *r = x->r;
    const eng_table *t = r->t;
    int first = -1;
    char name[600] = "(";
    /* Relation.toRestriction refuses != before it looks at the columns */
    if (rel->op == CQL_OP_NE)
        return relation_error(a, "Unsupported \"!=\" relation: ", rel);
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
            return relation_error(a,
                                  "Clustering columns must appear in the PRIMARY KEY order in "
                                  "multi-column relations: ",
                                  rel);
        snprintf(name + strlen(name), sizeof name - strlen(name), "%s%s", i ? "," : "",
                 t->cols[col].name);
    }
    strncat(name, ")", sizeof name - strlen(name) - 1);
    int n = rel->n_cols;
    const eng_type *tt = tuple_of(a, t, first, n);
    if (!tt)
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
    cql_ck_group g = {.first = first, .n = n, .multi = 1};
    int rc = 0;
    if (rel->op == CQL_OP_EQ || rel->op == CQL_OP_IN) {
        g.given = CQL_RESTRICT_EQ;
        g.vals = rel->values;
        g.n_vals = rel->n_values;
        g.in_marker = rel->in_marker;
        if (rel->in_marker) {
            eng_type *lt = eng_type_new_list(eng_type_dup(tt), 1);
            const eng_type *kept = cql_plan_keep_type(a->plan, lt);
            if (!kept)
                return eng_errorf(a->err, ENG_E_NOMEM, "out of memory");
            cql_bind_marker(a, rel->values[0], kept, t->ks, t->name, name);
        } else {
            for (int i = 0; i < rel->n_values && !rc; i++)
                rc = bind_tuple(a, t, first, n, rel->values[i], tt, name);
        }
    } else if (is_slice_op(rel->op)) {
        g.given = CQL_RESTRICT_SLICE;
        const cql_term *v = rel->values[0];
        int tuple = v->kind == CQL_T_TUPLE || v->kind == CQL_T_BIND || n > 1;
        if (rel->op == CQL_OP_GT || rel->op == CQL_OP_GE) {
            g.lo = v;
            g.lo_n = n;
            g.lo_tuple = tuple;
            g.lo_incl = rel->op == CQL_OP_GE;
        } else {
            g.hi = v;
            g.hi_n = n;
            g.hi_tuple = tuple;
            g.hi_incl = rel->op == CQL_OP_LE;
        }
        rc = bind_tuple(a, t, first, n, v, tt, name);
        if (!rc && r->kind == CQL_S_UPDATE)
            /* StatementType.allowClusteringColumnSlices: SELECT and DELETE */
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Slice restrictions are not supported on the clustering columns in "
                              "%s statements",
                              kind_name(r->kind));
    } else {
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported operator in a multi-column relation");
    }
    return rc ? rc : add_group(x, &g);
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

/* Operator.toString, as messages print an operator. */
static const char *op_text(int op)
{
    static const char *const ops[] = {"", "=", "!=", "<", "<=", ">", ">=", "IN", "CONTAINS",
                                      "CONTAINS KEY", "LIKE", "IS NOT"};
    return op > 0 && op <= CQL_OP_IS_NOT_NULL ? ops[op] : "?";
}

static int type_error(cql_analysis *a, const char *fmt, const eng_column *c, const char *op)
{
    eng_buf b = ENG_BUF_INIT;
    eng_type_to_cql(c->type, &b);
    int rc = eng_errorf(a->err, ENG_E_INVALID, fmt, c->name, eng_buf_cstr(&b) ? (char *)b.p : "",
                        op);
    eng_buf_free(&b);
    return rc;
}

/*
 * The checks of SingleColumnRelation on the column a relation names
 * (newSliceRestriction's duration rule, then toReceivers): IN on columns
 * outside the key, CONTAINS on what is no collection, map entries, non-frozen
 * user types and collections.
 */
static int check_receiver(cql_analysis *a, const cql_relation *rel, const eng_column *c)
{
    const eng_type *ty = c->type;
    if (is_slice_op(rel->op) && eng_type_contains_kind(ty, ENG_DURATION)) {
        if (eng_type_is_collection(ty))
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Slice restrictions are not supported on collections containing "
                              "durations");
        if (ty->kind == ENG_TUPLE)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Slice restrictions are not supported on tuples containing "
                              "durations");
        if (ty->kind == ENG_UDT)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Slice restrictions are not supported on UDTs containing durations");
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Slice restrictions are not supported on duration columns");
    }
    if (rel->op == CQL_OP_IN && c->kind != ENG_COL_PARTITION && c->kind != ENG_COL_CLUSTERING &&
        (rel->in_marker || rel->n_values != 1))
        return eng_errorf(a->err, ENG_E_INVALID,
                          "IN predicates on non-primary-key columns (%s) is not yet supported",
                          c->name);
    if (rel->op == CQL_OP_CONTAINS_KEY && ty->kind != ENG_MAP)
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot use CONTAINS KEY on non-map column %s",
                          c->name);
    if (rel->op == CQL_OP_CONTAINS && !eng_type_is_collection(ty))
        return eng_errorf(a->err, ENG_E_INVALID, "Cannot use CONTAINS on non-collection column %s",
                          c->name);
    if (rel->kind == CQL_REL_ELEMENT) {
        if (ty->kind == ENG_LIST)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Indexes on list entries (%s[index] = value) are not currently "
                              "supported.",
                              c->name);
        if (ty->kind != ENG_MAP)
            return eng_errorf(a->err, ENG_E_INVALID, "Column %s cannot be used as a map",
                              c->name);
        if (ty->frozen)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Map-entry equality predicates on frozen map column %s are not "
                              "supported",
                              c->name);
        if (rel->op != CQL_OP_EQ)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Only EQ relations are supported on map entries");
    }
    if (ty->kind == ENG_UDT && !ty->frozen)
        return type_error(a, "Non-frozen UDT column '%s' (%s) cannot be restricted by any "
                             "relation%s",
                          c, "");
    if (eng_type_is_collection(ty) && !ty->frozen && rel->op != CQL_OP_CONTAINS &&
        rel->op != CQL_OP_CONTAINS_KEY && !(rel->kind == CQL_REL_ELEMENT && rel->op == CQL_OP_EQ))
        return type_error(a, "Collection column '%s' (%s) cannot be restricted by a '%s' relation",
                          c, op_text(rel->op));
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
    if (rel->op == CQL_OP_CONTAINS)
        vt = c->type->kind == ENG_MAP ? c->type->sub[1] : c->type->sub[0];
    else if (rel->op == CQL_OP_CONTAINS_KEY)
        vt = c->type->sub[0];
    if (rel->kind == CQL_REL_ELEMENT) {
        /* m[k] = v (SingleColumnRelation with a map key: receivers key(m) and value(m)) */
        char kname[300], vname[300];
        snprintf(kname, sizeof kname, "key(%s)", c->name);
        snprintf(vname, sizeof vname, "value(%s)", c->name);
        int rc = cql_bind_term(a, rel->key, c->type->sub[0], t->ks, t->name, kname);
        if (!rc)
            rc = cql_bind_term(a, rel->values[0], c->type->sub[1], t->ks, t->name, vname);
        if (!rc)
            rc = add_filter(a, x->r, (cql_filter){col, CQL_OP_EQ, rel->values[0], rel->key,
                                                  c->type->sub[1], NULL, 0, 0});
        return rc;
    }
    if (rel->op == CQL_OP_LIKE || rel->op == CQL_OP_IS_NOT_NULL || rel->op == CQL_OP_NE)
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported restriction on column %s", c->name);
    int op = rel->op == CQL_OP_IN ? CQL_OP_EQ : rel->op; /* IN (v): an equality */
    int rc = cql_bind_term(a, rel->values[0], vt, t->ks, t->name, c->name);
    if (!rc)
        rc = add_filter(a, x->r, (cql_filter){col, op, rel->values[0], NULL, vt, NULL, 0, 0});
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
    if (rel->op == CQL_OP_IS_NOT_NULL) {
        /* StatementRestrictions: IS NOT NULL is for materialized views only */
        const char *col = rel->kind == CQL_REL_MULTI ? NULL : rel->cols[0];
        if (col)
            return eng_errorf(a->err, ENG_E_INVALID, "Unsupported restriction: %s IS NOT NULL", col);
    }
    if (rel->kind == CQL_REL_MULTI)
        return add_multi(x, rel);
    if (rel->op == CQL_OP_NE)
        return relation_error(a, "Unsupported \"!=\" relation: ", rel);
    int col;
    int rc = cql_resolve_column(a, r->t, rel->cols[0], &col);
    if (rc)
        return rc;
    const eng_column *c = &r->t->cols[col];
    if ((rc = check_receiver(a, rel, c)))
        return rc;
    if (c->kind != ENG_COL_PARTITION && c->kind != ENG_COL_CLUSTERING) {
        if (!select)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Non PRIMARY KEY columns found in where clause: %s ", c->name);
        return add_column_filter(x, rel, col);
    }
    if (rel->kind == CQL_REL_ELEMENT)
        return eng_errorf(a->err, ENG_E_INVALID, "Column %s cannot be used as a map", c->name);
    if (c->kind == ENG_COL_PARTITION) {
        if (rel->op == CQL_OP_EQ || rel->op == CQL_OP_IN)
            return add_eq(x, rel, col);
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
        return add_slice(x, rel, col);
    }
    if (rel->op == CQL_OP_CONTAINS || rel->op == CQL_OP_CONTAINS_KEY) {
        /* processClusteringColumnsRestrictions: CONTAINS on a (frozen collection) clustering
           column filters the rows */
        if (!select || !x->allow_filtering)
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Clustering columns can only be restricted with CONTAINS with a "
                              "secondary index or filtering");
        return add_column_filter(x, rel, col);
    }
    if (is_slice_op(rel->op) && r->kind == CQL_S_UPDATE)
        /* StatementType.allowClusteringColumnSlices: SELECT and DELETE */
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Slice restrictions are not supported on the clustering columns in %s "
                          "statements",
                          kind_name(r->kind));
    if (rel->op != CQL_OP_EQ && rel->op != CQL_OP_IN && !is_slice_op(rel->op))
        return eng_errorf(a->err, ENG_E_INVALID, "Unsupported restriction on column %s", c->name);
    return add_ck_single(x, rel, col);
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

/* A clustering group the read cannot use becomes checks on each row (addToRowFilter). */
static int group_to_filters(cql_analysis *a, cql_restrictions *r, const cql_ck_group *g)
{
    const eng_table *t = r->t;
    if (!g->multi) {
        cql_key_restriction *k = &r->keys[g->first];
        *k = (cql_key_restriction){g->given, g->vals, g->n_vals, g->in_marker, 0,
                                   g->lo, g->hi, g->lo_incl, g->hi_incl};
        return key_to_filters(a, r, g->first);
    }
    if (g->given == CQL_RESTRICT_SLICE)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Multi-column slice restrictions cannot be used for filtering.");
    if (group_is_in(g) && g->n > 1)
        return eng_errorf(a->err, ENG_E_INVALID, "Multicolumn IN filters are not supported");
    for (int i = 0; i < g->n_vals || g->in_marker; i++)
        if (g->in_marker || g->vals[i]->kind != CQL_T_TUPLE)
            /* (cassette) a tuple given whole by a marker is not taken apart for filtering */
            return eng_errorf(a->err, ENG_E_INVALID,
                              "Multi-column relations on bind markers cannot be used for "
                              "filtering here");
    if (group_is_in(g)) { /* (c) IN ((1), (2)): c IN (1, 2) */
        cql_term **items = cql_plan_zalloc(a, (size_t)(g->n_vals + 1) * sizeof *items);
        if (!items)
            return ENG_E_NOMEM;
        for (int i = 0; i < g->n_vals; i++)
            items[i] = g->vals[i]->items[0];
        return add_filter(a, r, (cql_filter){g->first, CQL_OP_IN, g->n_vals ? items[0] : NULL,
                                             NULL, t->cols[g->first].type, items, g->n_vals, 0});
    }
    for (int i = 0; i < g->n; i++) {
        int rc = add_filter(a, r, (cql_filter){g->first + i, CQL_OP_EQ, g->vals[0]->items[i],
                                               NULL, t->cols[g->first + i].type, NULL, 0, 0});
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * processClusteringColumnsRestrictions: the groups that start where the
 * equalities before them end, up to the first slice, are read; the others
 * need filtering (ClusteringColumnRestrictions.needFiltering), refused as a
 * gap without ALLOW FILTERING, else checked on rows. keys[] gets the
 * single-column groups (and the columns of (c1, c2) = (v1, v2)) for the
 * writes and the point-read test.
 */
static int process_clustering(restrict_ctx *x)
{
    cql_restrictions *r = x->r;
    const eng_table *t = r->t;
    int select = is_select(r);
    int pos = t->n_pk, sliced = 0, gap = -1;
    for (int i = 0; i < r->n_groups; i++) {
        const cql_ck_group *g = &r->groups[i];
        if (sliced || g->first != pos) {
            if (gap < 0)
                gap = i;
            continue;
        }
        if (g->given == CQL_RESTRICT_SLICE)
            sliced = 1;
        else
            pos += g->n;
    }
    if (gap >= 0) {
        if (!select) {
            /* (cassette) UPDATE and DELETE give this text for every gap: for UPDATE Cassandra
               says "Some clustering keys are missing" */
            int j = r->groups[gap].first;
            return preceding(x->a, t, j, 0);
        }
        x->needs_filtering = 1;
        if (!x->allow_filtering) {
            /* the restricted columns against the clustering columns, in order */
            int k = t->n_pk;
            for (int i = 0; i < r->n_groups; i++)
                for (int c = r->groups[i].first; c < r->groups[i].first + r->groups[i].n; c++) {
                    if (c != k)
                        return eng_errorf(x->a->err, ENG_E_INVALID,
                                          "PRIMARY KEY column \"%s\" cannot be restricted as "
                                          "preceding column \"%s\" is not restricted",
                                          t->cols[c].name, t->cols[k].name);
                    k++;
                }
            return eng_errorf(x->a->err, ENG_E_INVALID, "%s", FILTERING_MSG);
        }
        for (int i = gap; i < r->n_groups; i++) {
            int rc = group_to_filters(x->a, r, &r->groups[i]);
            if (rc)
                return rc;
        }
        r->n_groups = gap;
    }
    r->n_ck_eq = 0;
    r->ck_slice = 0;
    r->n_multi_eq = 0;
    for (int i = 0; i < r->n_groups; i++) {
        const cql_ck_group *g = &r->groups[i];
        for (int c = g->first; c < g->first + g->n; c++)
            r->keys[c].given = g->given;
        if (g->given == CQL_RESTRICT_EQ) {
            r->n_ck_eq += g->n;
            if (!g->multi) {
                cql_key_restriction *k = &r->keys[g->first];
                k->vals = g->vals;
                k->n = g->n_vals;
                k->in_marker = g->in_marker;
            } else if (!group_is_in(g) && g->vals[0]->kind == CQL_T_TUPLE) {
                for (int c = 0; c < g->n; c++) {
                    r->keys[g->first + c].vals = &g->vals[0]->items[c];
                    r->keys[g->first + c].n = 1;
                }
                r->n_multi_eq++;
            } else {
                /* a tuple IN, or a tuple given by a marker: writes take the rows from the
                   groups; keys[] only tells whether there is an IN */
                for (int c = 0; c < g->n; c++) {
                    r->keys[g->first + c].n = g->n_vals;
                    r->keys[g->first + c].in_marker = g->in_marker;
                }
                r->ck_tuples = !select;
                r->n_multi_eq++;
            }
            continue;
        }
        r->ck_slice = 1;
        if (!g->multi) {
            cql_key_restriction *k = &r->keys[g->first];
            k->lo = g->lo;
            k->hi = g->hi;
            k->lo_incl = g->lo_incl;
            k->hi_incl = g->hi_incl;
            continue;
        }
        r->ck_tuples = !select;
        r->multi_first = g->first;
        r->multi_n = g->n;
        r->multi_lo = g->lo;
        r->multi_hi = g->hi;
        r->multi_lo_n = g->lo_n;
        r->multi_hi_n = g->hi_n;
        r->multi_lo_incl = g->lo_incl;
        r->multi_hi_incl = g->hi_incl;
        for (int c = 1; c < g->n; c++)
            if (t->cols[g->first + c].desc != t->cols[g->first].desc)
                r->multi_mixed = 1;
        if (r->multi_mixed && !select)
            /* (cassette) Cassandra deletes the ranges such a bound makes (one more at each
               change of direction) */
            return eng_errorf(x->a->err, ENG_E_INVALID,
                              "Multi-column slices on clustering columns of different orders are "
                              "not supported in %s statements",
                              kind_name(r->kind));
    }
    if (select && !r->has_pk && r->n_groups)
        x->needs_filtering = 1;
    return 0;
}

int cql_restrict_where(cql_analysis *a, cql_restrictions *r, const cql_relation *where, int n,
                       int allow_filtering)
{
    restrict_ctx x = {a, r, allow_filtering, 0, 0};
    /* Every relation is checked (Relation.toRestriction) before the partition key's
       filtering error, even after a key slice that will stop the reading. */
    for (int i = 0; i < n; i++) {
        int rc = add_relation(&x, &where[i]);
        if (rc)
            return rc;
    }
    /* processPartitionKeyRestrictions: a key slice without ALLOW FILTERING, refused first */
    if (x.stopped)
        return eng_errorf(a->err, ENG_E_INVALID, "%s", FILTERING_MSG);
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
    eng_val **keys = NULL;
    uint32_t n = 0;
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

/* The values of a tuple term for columns [first, first + n); null components refused with
   null_msg ("%s": the column) unless it is NULL. */
static int eval_tuple(cql_exec *x, const cql_restrictions *r, int first, const cql_term *v,
                      eng_val *out, int n, const char *null_msg)
{
    const eng_table *t = r->t;
    /* a marker stands for a whole tuple in a multi-column relation ((c, d) > ?, (c) > ?), for
       one value when a single column's bound was merged into the slice (c >= ?) */
    const eng_type *bt = v->kind == CQL_T_BIND ? x->plan->binds[v->bind_index].type : NULL;
    if (bt && (n > 1 || (bt->kind == ENG_TUPLE && !eng_type_equal(bt, t->cols[first].type)))) {
        eng_val tv;
        const eng_type *tt = bt;
        int rc = cql_eval_val(x, v, tt, "tuple", &tv);
        if (rc)
            return rc;
        if (tv.len < 0)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for column %s",
                              t->cols[first].name);
        eng_items it;
        eng_items_begin_raw(&it, tv.p, (size_t)tv.len);
        for (int i = 0; i < n; i++)
            if (eng_items_next(&it, &out[i]) != 1)
                out[i] = (eng_val){NULL, ENG_NULL};
    } else if (v->kind == CQL_T_TUPLE) {
        for (int i = 0; i < n; i++) {
            int rc = cql_eval_val(x, v->items[i], t->cols[first + i].type,
                                  t->cols[first + i].name, &out[i]);
            if (rc)
                return rc;
        }
    } else { /* one value: (c) = 1, or a single column's bound merged into a tuple slice */
        int rc = cql_eval_val(x, v, t->cols[first].type, t->cols[first].name, &out[0]);
        if (rc)
            return rc;
    }
    for (int i = 0; null_msg && i < n; i++)
        if (out[i].len < 0)
            return eng_errorf(x->err, ENG_E_INVALID, null_msg, t->cols[first + i].name);
    return 0;
}

/* The candidate tuples of an EQ group (MultiColumnRestriction.appendTo): *out gets count
   arrays of g->n values. */
static int group_tuples(cql_exec *x, const cql_restrictions *r, const cql_ck_group *g,
                        eng_val ***out, uint32_t *count)
{
    const eng_table *t = r->t;
    int n = g->n;
    if (!g->multi) {
        cql_key_restriction k = {CQL_RESTRICT_EQ, g->vals, g->n_vals, g->in_marker, 0,
                                 NULL, NULL, 0, 0};
        cql_key_values kv;
        int rc = candidates(x, r, g->first, &k, NULL, &kv);
        if (rc)
            return rc;
        eng_val **ts = eng_arena_alloc(&x->arena, (size_t)(kv.n ? kv.n : 1) * sizeof *ts);
        if (!ts)
            return oom(x);
        for (int i = 0; i < kv.n; i++)
            ts[i] = &kv.vals[i];
        *out = ts;
        *count = (uint32_t)kv.n;
        return 0;
    }
    uint32_t c = (uint32_t)g->n_vals;
    eng_items it;
    if (g->in_marker) {
        eng_val list;
        const eng_type *lt = x->plan->binds[g->vals[0]->bind_index].type;
        int rc = cql_eval_val(x, g->vals[0], lt, "in", &list);
        if (rc)
            return rc;
        if (list.len < 0)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for IN restriction");
        int32_t m = eng_items_begin(&it, list.p, (size_t)list.len);
        c = m > 0 ? (uint32_t)m : 0;
    }
    eng_val **ts = eng_arena_alloc(&x->arena, (c ? c : 1) * sizeof *ts);
    if (!ts)
        return oom(x);
    for (uint32_t i = 0; i < c; i++) {
        ts[i] = eng_arena_alloc(&x->arena, (size_t)n * sizeof **ts);
        if (!ts[i])
            return oom(x);
        if (g->in_marker) {
            eng_val tv;
            eng_items_next(&it, &tv);
            eng_items ti;
            eng_items_begin_raw(&ti, tv.p, tv.len > 0 ? (size_t)tv.len : 0);
            for (int j = 0; j < n; j++)
                if (eng_items_next(&ti, &ts[i][j]) != 1)
                    ts[i][j] = (eng_val){NULL, ENG_NULL};
        } else {
            int rc = eval_tuple(x, r, g->first, g->vals[i], ts[i], n, NULL);
            if (rc)
                return rc;
        }
        for (int j = 0; j < n; j++) {
            if (ts[i][j].len >= 0)
                continue;
            if (c == 1 && !g->in_marker) /* = (tuple) or IN of one tuple: an equality */
                return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for column %s",
                                  t->cols[g->first + j].name);
            eng_buf b = ENG_BUF_INIT;
            for (int k = 0; k < n; k++)
                eng_buf_printf(&b, "%s%s", k ? ", " : "[", t->cols[g->first + k].name);
            eng_buf_put_str(&b, "]");
            int rc = eng_errorf(x->err, ENG_E_INVALID,
                                "Invalid null value in condition for columns: %s",
                                eng_buf_cstr(&b) ? (char *)b.p : "");
            eng_buf_free(&b);
            return rc;
        }
    }
    *out = ts;
    *count = c;
    return 0;
}

int cql_restrict_clustering_slices(cql_exec *x, const cql_restrictions *r, eng_query *q,
                                   eng_val **mixed_lo, eng_val **mixed_hi)
{
    const eng_table *t = r->t;
    if (!r->n_groups)
        return 0;
    /* the clustering prefixes of the EQ groups (MultiCBuilder): every combination */
    int width = 0, sort = 0;
    uint32_t n_pre = 1;
    eng_val **pre = eng_arena_alloc(&x->arena, sizeof *pre);
    if (!pre)
        return oom(x);
    pre[0] = NULL;
    const cql_ck_group *slice = NULL;
    for (int gi = 0; gi < r->n_groups; gi++) {
        const cql_ck_group *g = &r->groups[gi];
        if (g->given == CQL_RESTRICT_SLICE) {
            slice = g;
            break;
        }
        eng_val **ts = NULL;
        uint32_t c = 0;
        int rc = group_tuples(x, r, g, &ts, &c);
        if (rc)
            return rc;
        if (!c)
            return 1; /* IN (): no row can match */
        uint64_t total = (uint64_t)n_pre * c;
        if (total > MAX_IN_COMBINATIONS)
            return eng_errorf(x->err, ENG_E_INVALID, "Too many IN combinations (%llu)",
                              (unsigned long long)total);
        eng_val **next = eng_arena_alloc(&x->arena, (size_t)total * sizeof *next);
        if (!next)
            return oom(x);
        for (uint32_t p = 0; p < n_pre; p++)
            for (uint32_t i = 0; i < c; i++) {
                eng_val *v = eng_arena_alloc(&x->arena, (size_t)(width + g->n) * sizeof *v);
                if (!v)
                    return oom(x);
                if (width)
                    memcpy(v, pre[p], (size_t)width * sizeof *v);
                memcpy(v + width, ts[i], (size_t)g->n * sizeof *v);
                next[p * c + i] = v;
            }
        pre = next;
        n_pre = (uint32_t)total;
        width += g->n;
        sort |= g->multi;
    }
    eng_slice *slices = eng_arena_alloc(&x->arena, n_pre * sizeof *slices);
    if (!slices)
        return oom(x);
    for (uint32_t i = 0; i < n_pre; i++)
        slices[i] = (eng_slice){{pre[i], (uint16_t)width, 1}, {pre[i], (uint16_t)width, 1}};
    if (sort) { /* tuples come in the order written: put the prefixes in clustering order */
        for (uint32_t i = 1; i < n_pre; i++)
            for (uint32_t j = i; j > 0; j--) {
                if (clustering_cmp(t, slices[j].start.vals, &slices[j - 1].start) >= 0)
                    break;
                eng_slice tmp = slices[j - 1];
                slices[j - 1] = slices[j];
                slices[j] = tmp;
            }
        uint32_t w = 0;
        for (uint32_t i = 0; i < n_pre; i++)
            if (!w || clustering_cmp(t, slices[i].start.vals, &slices[w - 1].start) != 0)
                slices[w++] = slices[i];
        n_pre = w;
    }
    if (slice) {
        /* the bounds of the slice after each prefix */
        const char *null_msg = "Invalid null value in condition for column %s";
        eng_val *lo = eng_arena_alloc(&x->arena, (size_t)(slice->n + 1) * sizeof *lo);
        eng_val *hi = eng_arena_alloc(&x->arena, (size_t)(slice->n + 1) * sizeof *hi);
        if (!lo || !hi)
            return oom(x);
        int rc = 0;
        int lo_n = slice->lo ? slice->lo_n : 0, hi_n = slice->hi ? slice->hi_n : 0;
        if (slice->lo)
            rc = eval_tuple(x, r, slice->first, slice->lo, lo, lo_n, null_msg);
        if (!rc && slice->hi)
            rc = eval_tuple(x, r, slice->first, slice->hi, hi, hi_n, null_msg);
        if (rc)
            return rc;
        int mixed = slice->multi && r->multi_mixed;
        if (mixed) {
            /* directions differ: read the first column's range inclusively; rows are then
               compared as tuples in the columns' natural order (select.c) */
            *mixed_lo = slice->lo ? lo : NULL;
            *mixed_hi = slice->hi ? hi : NULL;
        }
        for (uint32_t i = 0; i < n_pre; i++) {
            eng_val *s = eng_arena_alloc(&x->arena, (size_t)(width + lo_n + 1) * sizeof *s);
            eng_val *e = eng_arena_alloc(&x->arena, (size_t)(width + hi_n + 1) * sizeof *e);
            if (!s || !e)
                return oom(x);
            if (width) {
                memcpy(s, slices[i].start.vals, (size_t)width * sizeof *s);
                memcpy(e, slices[i].start.vals, (size_t)width * sizeof *e);
            }
            memcpy(s + width, lo, (size_t)lo_n * sizeof *s);
            memcpy(e + width, hi, (size_t)hi_n * sizeof *e);
            eng_slice sl = {{s, (uint16_t)width, 1}, {e, (uint16_t)width, 1}};
            if (slice->lo)
                sl.start = (eng_bound){s, (uint16_t)(width + (mixed ? 1 : lo_n)),
                                       (uint8_t)(mixed ? 1 : slice->lo_incl)};
            if (slice->hi)
                sl.end = (eng_bound){e, (uint16_t)(width + (mixed ? 1 : hi_n)),
                                     (uint8_t)(mixed ? 1 : slice->hi_incl)};
            /* bounds are given in the natural order: a DESC column's lower value ends it */
            if (t->cols[slice->first].desc) {
                eng_bound tmp = sl.start;
                sl.start = sl.end;
                sl.end = tmp;
            }
            slices[i] = sl;
        }
    }
    q->slices = slices;
    q->n_slices = n_pre;
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
        if (f->key && vals[i].len < 0) /* RowFilter.MapEqualityExpression.validate */
            return eng_errorf(x->err, ENG_E_INVALID, "Unsupported %s map value for column %s",
                              vals[i].len == ENG_NULL ? "null" : "unset", t->cols[f->col].name);
        if (vals[i].len == ENG_NULL)
            return eng_errorf(x->err, ENG_E_INVALID, "Invalid null value for %s",
                              t->cols[f->col].name);
    }
    return 0;
}
