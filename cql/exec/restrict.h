/*
 * The WHERE rules of SELECT, UPDATE and DELETE, in one place: what a
 * statement may restrict, checked and recorded as one restriction set
 * (Cassandra's cql3/restrictions: StatementRestrictions and the partition
 * key, clustering and filtering sets it builds), and the helpers that turn a
 * restriction set, with the bound values of one execution, into partition
 * keys, clustering prefixes, slices and token ranges.
 *
 * Cassandra checks one WHERE clause with one class whose rules depend on
 * the statement kind (StatementType): only SELECT takes token() relations,
 * partition key ranges and restrictions on other columns (filtering,
 * CONTAINS); SELECT and DELETE take clustering slices, single or
 * multi-column;
 * UPDATE and INSERT name whole rows. The restriction set carries its kind
 * and every rule below asks it. INSERT has no WHERE clause, but its key
 * values are restrictions too (UpdateStatement.ParsedInsert turns them into
 * equalities), so that every write reaches its rows the same way.
 *
 * Analysis runs at prepare, in the plan's arena (cql_analysis); the
 * execution helpers allocate in the execution's arena (cql_exec) and report
 * errors through it.
 */
#ifndef CQL_EXEC_RESTRICT_H
#define CQL_EXEC_RESTRICT_H

#include "cql/exec/exec_int.h"

/* How one primary key column is restricted. */
enum cql_restrict_given {
    CQL_RESTRICT_NONE = 0,
    CQL_RESTRICT_EQ = 1,    /* = value or IN (values) / IN ? */
    CQL_RESTRICT_SLICE = 2, /* <, <=, >, >= (one bound or both) */
};

/* The restriction of one primary key column. */
typedef struct cql_key_restriction {
    int given;              /* enum cql_restrict_given */
    cql_term **vals;        /* EQ: the value or the IN list; a single marker for IN ? */
    int n;                  /* EQ: number of vals (0 for IN ()) */
    int in_marker;          /* EQ: IN ?, vals[0] binds the whole list */
    int from_json;          /* INSERT JSON: the value is the object's member for the column */
    const cql_term *lo, *hi;/* SLICE: the lower and upper bounds (NULL: open) */
    int lo_incl, hi_incl;
} cql_key_restriction;

/* A restriction checked on each row a SELECT reads (filtering, CONTAINS). */
typedef struct cql_filter {
    int col;
    int op;                 /* enum cql_op */
    const cql_term *value;
    const cql_term *key;    /* map element restriction m[k] = v */
    const eng_type *type;   /* type of value */
    cql_term **in_vals;     /* op IN: the list (or one marker for IN ?) */
    int n_in;
    int in_marker;
} cql_filter;

/*
 * One restriction on clustering columns [first, first + n) once the WHERE
 * relations on them are merged (an entry of Cassandra's clustering
 * RestrictionSet): a single column's, or a tuple's (multi: (c1, c2) = ...).
 */
typedef struct cql_ck_group {
    int first, n;           /* table columns covered */
    int multi;              /* tuple notation: EQ values are tuples */
    int given;              /* CQL_RESTRICT_EQ (= or IN) or CQL_RESTRICT_SLICE */
    cql_term **vals;        /* EQ: the value or the IN list; a single marker for IN ? */
    int n_vals;
    int in_marker;
    const cql_term *lo, *hi;/* SLICE: the bounds (NULL: open) */
    int lo_n, hi_n;         /* SLICE: columns each bound covers */
    int lo_tuple, hi_tuple; /* SLICE: the bound is a tuple (else one value of column first) */
    int lo_incl, hi_incl;
} cql_ck_group;

/* The restrictions of one statement's WHERE clause (or INSERT's key values) on its table. */
typedef struct cql_restrictions {
    const eng_table *t;
    int kind;               /* CQL_S_SELECT, CQL_S_INSERT, CQL_S_UPDATE or CQL_S_DELETE */
    cql_key_restriction *keys; /* per primary key column, in table order */
    int has_pk;             /* SELECT: the partition key is restricted by = / IN (no range) */
    int n_ck_eq;            /* clustering columns restricted by = / IN, as a prefix */
    int ck_slice;           /* a slice on clustering column n_ck_eq, right after that prefix */
    /* SELECT: token(pk) bounds (TokenRestriction) */
    const cql_term *tok_lo, *tok_hi;
    int tok_lo_incl, tok_hi_incl;
    /* SELECT: restrictions checked on each row */
    cql_filter *filters;
    int n_filters;
    /* WHERE: the clustering restrictions, merged, in column order */
    cql_ck_group *groups;
    int n_groups;
    /* SELECT: the multi-column slice (on columns from multi_first) and whether EQ groups are
       tuples (n_multi_eq) */
    int multi_first, multi_n;
    cql_term **multi_eq;    /* = (tuple) or IN ((tuple), ...): whole prefixes */
    int n_multi_eq;
    int multi_in_marker;
    const cql_term *multi_lo, *multi_hi;
    int multi_lo_n, multi_hi_n;
    int multi_lo_incl, multi_hi_incl;
    int multi_mixed;        /* the columns' directions differ: rows are checked one by one */
    /* UPDATE, DELETE: the clustering rows or ranges come from the groups
       (cql_restrict_clustering_slices), not from keys[]: a tuple IN, a tuple
       given by a marker, a tuple slice */
    int ck_tuples;
} cql_restrictions;

/* Partition keys, clustering prefixes or rows one statement may name through IN lists
   (cassette's bound on the cartesian product MultiCBuilder would build). */
#define CQL_MAX_IN_COMBINATIONS 65536

/* ---- analysis (prepare) ---- */

/* An empty restriction set of statement kind `kind` on t (in the plan's arena). */
int cql_restrict_init(cql_analysis *a, cql_restrictions *r, const eng_table *t, int kind);

/*
 * Checks and records the WHERE relations in Cassandra's order, typing their
 * bind markers: each relation as it comes (the column, the operator the
 * statement kind allows, merging with earlier relations on the column), then
 * the partition key, the clustering columns and, for SELECT, whether the
 * query filters (allow_filtering: ALLOW FILTERING was given).
 */
int cql_restrict_where(cql_analysis *a, cql_restrictions *r, const cql_relation *where, int n,
                       int allow_filtering);

/* INSERT: key column col takes *value (VALUES); its marker is typed like an equality's. */
int cql_restrict_insert_value(cql_analysis *a, cql_restrictions *r, int col, cql_term **value);
/* INSERT JSON: key column col takes the object's member. */
void cql_restrict_insert_json(cql_restrictions *r, int col);
/* INSERT: the partition key must be complete; the clustering prefix given is recorded. */
int cql_restrict_insert_done(cql_analysis *a, cql_restrictions *r);

/*
 * A modification's clustering rules once its written and conditioned columns
 * are known (only_static: it touches static columns only): such a statement
 * restricts no clustering column (UPDATE, DELETE), and UPDATE and INSERT
 * name whole rows unless they write the static row alone.
 */
int cql_restrict_check_written(cql_analysis *a, const cql_restrictions *r, int only_static);

/* 1 if some key column in [from, to) is restricted by IN (a marker's list, whatever its size). */
int cql_restrict_has_in(const cql_restrictions *r, int from, int to);

/* ---- execution ---- */

/* The candidate values of one key column: one, or an IN list's. */
typedef struct cql_key_values {
    eng_val *vals;
    int n;
} cql_key_values;

/*
 * The candidate values of key columns [0, n) with this execution's bound
 * values: checked (no null, no unset), sorted by the column type and
 * deduplicated; a SELECT lists a DESC clustering column's values in
 * clustering order. json: INSERT JSON's values per table column, else NULL.
 */
int cql_restrict_key_values(cql_exec *x, const cql_restrictions *r, int n, const eng_val *json,
                            cql_key_values *kv);

/* Combination number idx of the candidates of columns [from, from + n), the last varying first. */
void cql_restrict_combination(const cql_key_values *kv, int from, int n, uint64_t idx,
                              eng_val *out);

/*
 * The partitions and clustering rows (rows: 0 when the statement writes no
 * clustering row) a modification names, within Cassandra's limit on IN
 * combinations.
 */
int cql_restrict_write_count(cql_exec *x, const cql_restrictions *r, const cql_key_values *kv,
                             int rows, uint32_t *n_parts, uint32_t *n_rows);

/* The bounds of the clustering slice, evaluated once per execution. */
typedef struct cql_slice_bounds {
    eng_val lo, hi;
} cql_slice_bounds;

int cql_restrict_slice_bounds(cql_exec *x, const cql_restrictions *r, cql_slice_bounds *b);
/* The slice of one clustering prefix (n_ck_eq values), bounded by the slice if there is one. */
int cql_restrict_slice(cql_exec *x, const cql_restrictions *r, const eng_val *prefix,
                       const cql_slice_bounds *b, eng_slice *out);

/* SELECT: the partition keys a query reads; 1 (no error) when none can match (IN ()). */
int cql_restrict_partition_keys(cql_exec *x, const cql_restrictions *r, eng_query *q);
/* SELECT: the token range a query reads; 1 (no error) when it is empty. */
int cql_restrict_token_range(cql_exec *x, const cql_restrictions *r, eng_query *q);
/* SELECT: keeps the partition keys inside the token range too (*empty: none is left). */
int cql_restrict_keys_in_token_range(cql_exec *x, const cql_restrictions *r, eng_query *q,
                                     int *empty);
/*
 * SELECT (and UPDATE, DELETE with ck_tuples: the rows, each a slice of one
 * full clustering, or the range deletions): the clustering slices a query
 * reads (none: all rows); 1 (no error)
 * when no row can match. With multi-column bounds on columns of different
 * directions, *mixed_lo / *mixed_hi get the tuple bounds each row is then
 * compared with.
 */
int cql_restrict_clustering_slices(cql_exec *x, const cql_restrictions *r, eng_query *q,
                                   eng_val **mixed_lo, eng_val **mixed_hi);
/* SELECT: each filter's value (vals[i]) or, for IN, its candidate list (lists[i]). */
int cql_restrict_filter_values(cql_exec *x, const cql_restrictions *r, eng_val *vals,
                               cql_key_values *lists);

#endif
