/*
 * Private to the CQL executor (cql/exec/): sessions, prepared statements,
 * their analysis and cache, and the helpers the statement kinds share.
 *
 * A prepared statement keeps its syntax tree (in its own arena) and an
 * analysis made against one schema snapshot: resolved table, typed bind
 * markers, result columns. When the schema has changed since, execution
 * analyzes the tree again against the current snapshot (Cassandra
 * invalidates prepared statements on schema changes; embedded, the
 * statement simply follows the schema).
 */
#ifndef CQL_EXEC_INT_H
#define CQL_EXEC_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "cql/lang/ast.h"
#include "cql/cql.h"

typedef struct cql_cache cql_cache;           /* prepared.c */
typedef struct cql_auth_state cql_auth_state; /* auth.c */

struct cql_session {
    eng_db *db;
    cql_cache *cache;     /* the database's statement cache */
    char *keyspace;       /* current keyspace (USE), or NULL */
    cql_auth_state *auth; /* the logged-in role whose permissions are enforced, or NULL */
    struct cql_trace *trace; /* the trace of the request running, or NULL (trace.h) */
    const cql_topology *topology; /* the cluster system.local/peers describe; NULL: one node */
};

/* The analysis of a statement against one schema snapshot. */
typedef struct cql_plan {
    _Atomic int refs;
    eng_schema *schema;      /* the snapshot analyzed against (referenced) */
    const eng_table *table;  /* the statement's table, if it has one */
    uint32_t n_binds;
    cql_column_spec *binds;  /* marker metadata */
    uint32_t n_cols;
    cql_column_spec *cols;   /* SELECT result columns */
    uint64_t shape;          /* the columns and markers hashed (prepared.c: plan_shape) */
    uint32_t n_pk_binds;
    uint16_t *pk_binds;      /* marker index of each partition key column, when all are markers */
    int16_t *bind_pk;        /* per marker: the position of the partition key column of `table`
                                whose value it is (its receiver is the column itself), or -1 */
    void *detail;            /* statement-specific analysis (stmt_*.c) */
    eng_type **owned;        /* types made by the analysis (marker types such as list<k> for
                                IN ?), freed with the plan */
    uint32_t n_owned, cap_owned;
    eng_arena arena;         /* everything above */
} cql_plan;

/*
 * A parsed statement. It belongs to no database: executed on a session, it is
 * analyzed against that session's schema (the plan is remade whenever the
 * snapshot differs), so a statement outlives any database it was cached in.
 */
/*
 * A thread shard's plan of a prepared statement (eng_thread_shard): its own
 * plan object, so that threads executing one statement at once neither take
 * one lock nor move one reference count. Two cache lines: the next slot's
 * lock is on another line whatever the statement's alignment.
 */
typedef union cql_plan_slot {
    struct {
        pthread_mutex_t lock;
        cql_plan *plan; /* a reference, or NULL */
    } s;
    char pad[2 * ENG_CACHE_LINE];
} cql_plan_slot;

struct cql_prepared {
    _Atomic int refs;
    uint8_t id[16];
    char *query;
    char *keyspace;          /* the session keyspace at prepare time (NULL if none) */
    cql_stmt *stmt;
    eng_arena arena;         /* the syntax tree */
    pthread_mutex_t lock;
    cql_plan *plan;          /* current analysis (under lock) */
    int plan_lent;           /* `plan` is also a shard's plan (under lock) */
    cql_plan_slot shard_plans[ENG_SHARDS]; /* what executions use (cql_plan_for) */
    uint64_t shape;          /* plan_shape of the analysis the last PREPARE described (under
                                lock): an EXECUTE by id finding another answers UNPREPARED */
    /* The statement cache (prepared.c), under its lock except where said: */
    _Atomic(cql_cache *) cache;  /* the cache holding it, or NULL (read without the lock) */
    _Atomic int used;            /* executed since the eviction sweep last passed it */
    int cls;                     /* which of the cache's lists: prepared or simple */
    size_t weight;               /* bytes it is counted for */
    struct cql_prepared *lru_prev, *lru_next, *hash_next;
};

/* Everything one execution needs. */
typedef struct cql_exec {
    cql_session *session;
    cql_prepared *prepared;
    cql_plan *plan;
    const cql_exec_options *opts;
    const cql_stmt *stmt;
    eng_err *err;
    cql_result *result;
    eng_arena arena;         /* scratch for this execution */
} cql_exec;

/* ---- analysis helpers (analyze.c) ---- */

/* Context of an analysis: the snapshot, the statement keyspace, the plan being built. */
typedef struct cql_analysis {
    const eng_schema *schema;
    const char *keyspace;    /* session keyspace at prepare, may be NULL */
    cql_plan *plan;
    const cql_stmt *stmt;
    eng_err *err;
} cql_analysis;

/* Keyspace of a qualified name (or the session's), with Cassandra's errors. */
int cql_resolve_keyspace(cql_analysis *a, const char *ks, const char **out);
/* The table named, with Cassandra's errors for a missing keyspace or table. */
int cql_resolve_table(cql_analysis *a, const cql_qname *name, const eng_table **out);
/* A column of t by name, or "Undefined column name %s in table %s.%s". */
int cql_resolve_column(cql_analysis *a, const eng_table *t, const char *name, int *index);
/* A written type as a descriptor (owned by the caller: eng_type_free). */
int cql_resolve_type(cql_analysis *a, const cql_typeref *ref, const char *ks, eng_type **out);
/* Records the type and name of every bind marker inside term (assigned to type, as receiver). */
int cql_bind_term(cql_analysis *a, const cql_term *term, const eng_type *type, const char *ks,
                  const char *table, const char *receiver);
/* Records one marker with an explicit name (e.g. "[ttl]", "partition key token"). */
void cql_bind_marker(cql_analysis *a, const cql_term *marker, const eng_type *type,
                     const char *ks, const char *table, const char *name);
/* Keeps a type made during analysis alive as long as the plan (takes ownership); NULL on OOM. */
const eng_type *cql_plan_keep_type(cql_plan *p, eng_type *t);
/* Arena copy of a string. */
char *cql_plan_strdup(cql_plan *p, const char *s);
/* n zeroed bytes in the plan's arena (at least 1), or NULL with an out-of-memory error. */
void *cql_plan_zalloc(cql_analysis *a, size_t n);

/* ---- values at execution ---- */

/*
 * The value of a term for a receiver of the given type: constants, bind
 * markers, collections, function calls. *state: CQL_VALUE, CQL_VALUE_NULL
 * or CQL_VALUE_UNSET (literal.h). The bytes go to `out` (reset first).
 */
int cql_eval_term(cql_exec *x, const cql_term *term, const eng_type *type, const char *receiver,
                  eng_buf *out, int *state);
/* Same, as an eng_val copied into the execution arena (len ENG_NULL / ENG_UNSET). */
int cql_eval_val(cql_exec *x, const cql_term *term, const eng_type *type, const char *receiver,
                 eng_val *out);

/* ---- functions (func.c) and casts (cast.c) ---- */

/* A native scalar function resolved for one argument kind. */
typedef struct cql_fn {
    const char *name; /* lower-case name, without "system." */
    int id;
    int n_args;
    int arg_kind;     /* the argument's type kind (0 if none) */
    int ret_kind;     /* the result's type kind */
} cql_fn;

/*
 * Finds a function by name (case-insensitive) for n_args arguments of kind
 * arg_kind (0: not known; overloads then take their first form), with
 * Cassandra's errors for an unknown function or a wrong argument.
 */
int cql_fn_find(const char *name, int n_args, int arg_kind, cql_fn *out, eng_err *err);
/* The function a call names (system keyspace or none), its argument kind resolved from the
   argument term as Cassandra picks an overload: 1 and *out, or 0 when there is none. */
int cql_fn_resolve_call(const cql_term *fn, cql_fn *out);
/* Appends f(arg) (arg NULL for no argument); *state as in literal.h. */
int cql_fn_apply(cql_exec *x, const cql_fn *f, const eng_val *arg, eng_buf *out, int *state);
/* 1 if a function's result of kind `have` may go where kind `want` is expected
   (AbstractType.isValueCompatibleWith, which FunctionCall checks). */
int cql_fn_result_fits(int want, int have);
/* A function call's argument and result types (for bind markers): 0, or -1 when unknown. */
int cql_function_signature(const cql_term *fn, const eng_type **arg, const eng_type **ret);
/* The scalar type descriptor of a kind (static), or NULL. */
const eng_type *cql_scalar_type(int kind);
/* 1 if CAST from one kind to another is defined (CastFcts). */
int cql_cast_allowed(int from, int to);
/* Appends v (non-null, non-empty, of type from) cast to kind `to`. */
int cql_cast_value(const eng_type *from, eng_val v, int to, eng_buf *out, eng_err *err);

/* ---- statements ---- */

/* How one statement kind is analyzed and executed; the table is prepared.c's. */
typedef struct cql_stmt_ops {
    int (*analyze)(cql_analysis *a);
    int (*exec)(cql_exec *x);
} cql_stmt_ops;
const cql_stmt_ops *cql_stmt_ops_of(const cql_stmt *s);

/* The statement cache (prepared.c): the session's database's, attached at cql_session_new;
   cql_cache_touch marks p executed on s, putting it back in s's cache when it is not there. */
int cql_cache_attach(cql_session *s, eng_err *err);
void cql_cache_touch(cql_session *s, cql_prepared *p);

int cql_analyze_schema_stmt(cql_analysis *a);
int cql_exec_schema_stmt(cql_exec *x);
int cql_analyze_modification(cql_analysis *a);
int cql_exec_modification(cql_exec *x);
int cql_analyze_batch(cql_analysis *a);
/* Runs a BATCH of n modifications whose plans are made (session.c checked each statement):
   BatchStatement.validate, then one atomic write or one compare-and-set. *out: the result. */
int cql_exec_batch(cql_session *s, int kind, cql_prepared **stmts, cql_plan **plans,
                   const cql_exec_options *options, uint32_t n, int64_t timestamp,
                   cql_result **out, eng_err *err);
int cql_exec_batch_stmt(cql_exec *x);
int cql_analyze_select(cql_analysis *a);
int cql_exec_select(cql_exec *x);
/* cql_prepared_bounded_read for a SELECT's plan. */
int cql_select_bounded(const cql_plan *plan, int32_t page_size, uint32_t max_rows);

/* Role and permission statements (auth.c). */
int cql_analyze_role_stmt(cql_analysis *a);
int cql_exec_role_stmt(cql_exec *x);
/* The permissions a statement needs (its authorize()), checked before it runs: the schema of
   the replicated system keyspaces is protected on every session; the rest only on a session
   that logged in. */
int cql_auth_authorize(cql_session *s, const cql_prepared *p, eng_err *err);
/* After a schema statement succeeded: the creator's grants on what it created, and no grant
   left on what it dropped (AuthSchemaChangeListener). Failures here do not fail the statement. */
void cql_auth_schema_changed(cql_session *s, const cql_stmt *st, const cql_result *r);
void cql_auth_state_free(cql_auth_state *a);

/* The prepared statement's plan for db's current schema (referenced; cql_plan_release). */
int cql_plan_for(cql_prepared *p, eng_db *db, cql_plan **out, eng_err *err);
void cql_plan_release(cql_plan *p);
/* Makes r hold a reference to p until cql_result_free (its column specs point into p). */
void cql_result_hold_plan(cql_result *r, cql_plan *p);

/* ---- results ---- */

/* The boolean type, for [applied]. */
const eng_type *cql_boolean_type(void);

#endif
