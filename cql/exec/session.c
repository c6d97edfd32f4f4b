/*
 * Sessions and execution: what a QUERY and an EXECUTE message do, for every
 * caller (the driver's embedded backend, the server, the tests). A session
 * is a database and a current keyspace; a statement runs with its values
 * after the rules every request checks -- the values matched to the bind
 * markers by position or by name (QueryOptions), their count -- and is
 * dispatched to its kind's executor (prepared.c's table).
 */
#include <string.h>

#include "cql/exec/exec_int.h"
#include "cql/exec/trace.h"

/* ---- sessions ---- */

int cql_session_new(eng_db *db, cql_session **out, eng_err *err)
{
    cql_session *s = eng_calloc(1, sizeof *s);
    if (!s)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory creating a session");
    s->db = db;
    int rc = cql_cache_attach(s, err);
    if (rc) {
        eng_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void cql_session_free(cql_session *s)
{
    if (!s)
        return;
    eng_free(s->keyspace);
    cql_auth_state_free(s->auth);
    eng_free(s);
}

const char *cql_session_keyspace(const cql_session *s) { return s->keyspace; }

int cql_session_use_unchecked(cql_session *s, const char *ks, size_t len, eng_err *err)
{
    if (!ks) {
        eng_free(s->keyspace);
        s->keyspace = NULL;
        return 0;
    }
    char *copy = eng_strndup(ks, len);
    if (!copy)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory setting the keyspace");
    eng_free(s->keyspace);
    s->keyspace = copy;
    return 0;
}
eng_db *cql_session_db(const cql_session *s) { return s->db; }

void cql_session_set_topology(cql_session *s, const cql_topology *t) { s->topology = t; }

/* ---- values ---- */

void cql_exec_options_init(cql_exec_options *o)
{
    memset(o, 0, sizeof *o);
    o->timestamp = ENG_TS_NONE;
    o->consistency = 1;        /* ONE */
    o->serial_consistency = 8; /* SERIAL */
}

/*
 * Values given by name (QueryOptions with names): each marker takes the value
 * bound under exactly its name -- Cassandra compares them with String.equals,
 * so "K" does not reach the marker of column k. A marker no name reaches
 * leaves the count short, and the counts must agree. Returns the values in
 * marker order in *mapped (the caller frees it).
 */
static int values_by_name(const cql_prepared *p, const cql_exec_options *o, eng_val **mapped,
                          eng_err *err)
{
    uint32_t n = cql_prepared_bind_count(p);
    eng_val *v = eng_calloc(n ? n : 1, sizeof *v);
    if (!v)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory binding values");
    for (uint32_t i = 0; i < n; i++) {
        const cql_column_spec *spec = cql_prepared_bind(p, i);
        uint32_t j = 0;
        while (j < o->n_values &&
               !(o->names[j] && spec && spec->name && strcmp(spec->name, o->names[j]) == 0))
            j++;
        if (j == o->n_values) {
            eng_free(v);
            return eng_errorf(err, ENG_E_INVALID, "Invalid amount of bind variables");
        }
        v[i] = o->values[j];
    }
    *mapped = v;
    return 0;
}

/* ---- execution ---- */

/* EXECUTE's count check (ExecuteMessage via QueryOptions.prepare). */
static int check_values(const cql_prepared *p, const cql_exec_options *o, eng_err *err)
{
    if (o->n_values != (uint32_t)p->stmt->n_binds)
        return eng_errorf(err, ENG_E_INVALID,
                          "there were %d markers(?) in CQL but %u bound variables",
                          p->stmt->n_binds, o->n_values);
    return 0;
}

/* One statement with values already in marker order. */
static int run(cql_session *s, cql_prepared *p, const cql_exec_options *o, cql_result **out,
               eng_err *err)
{
    cql_exec x;
    memset(&x, 0, sizeof x);
    x.session = s;
    x.prepared = p;
    x.opts = o;
    x.stmt = p->stmt;
    x.err = err;
    eng_arena_init(&x.arena, 4096);
    int rc = cql_plan_for(p, s->db, &x.plan, err);
    if (!rc)
        rc = cql_auth_authorize(s, p, err);
    if (!rc) {
        x.result = cql_result_new(CQL_RESULT_VOID);
        rc = x.result ? cql_stmt_ops_of(p->stmt)->exec(&x)
                      : eng_errorf(err, ENG_E_NOMEM, "out of memory");
    }
    if (!rc && x.result->kind == CQL_RESULT_SCHEMA_CHANGE)
        cql_auth_schema_changed(s, p->stmt, x.result);
    if (!rc && cql_result_finish(x.result))
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory building a result");
    if (x.result) {
        cql_result_hold_plan(x.result, x.plan); /* its column specs point into the plan */
        x.plan = NULL;
    }
    eng_arena_free(&x.arena);
    if (rc || !out)
        cql_result_free(x.result);
    else
        *out = x.result;
    cql_plan_release(x.plan);
    return rc;
}

int cql_execute(cql_session *s, cql_prepared *p, const cql_exec_options *o, cql_result **out,
                eng_err *err)
{
    if (out)
        *out = NULL;
    cql_exec_options defaults;
    if (!o) {
        cql_exec_options_init(&defaults);
        o = &defaults;
    }
    cql_cache_touch(s, p);
    /* EXECUTE traced (ExecuteMessage.traceQuery); a QUERY's trace began in cql_query */
    cql_trace *t = NULL;
    if (o->trace && !s->trace && (t = s->trace = cql_trace_begin(s->db,
                                                                 "Execute CQL3 prepared query",
                                                                 o, 1))) {
        const char *q = cql_prepared_query(p);
        cql_trace_param(t, "query", q, strlen(q));
    }
    eng_val *mapped = NULL;
    cql_exec_options named;
    int rc = 0;
    if (o->names) {
        if (!(rc = values_by_name(p, o, &mapped, err))) {
            named = *o;
            named.values = mapped;
            named.n_values = cql_prepared_bind_count(p);
            named.names = NULL;
            o = &named;
        }
    } else {
        rc = check_values(p, o, err);
    }
    for (uint32_t i = 0; t && !rc && i < o->n_values; i++)
        cql_trace_bound_var(t, i, cql_prepared_bind(p, i), o->values[i]);
    if (!rc)
        rc = run(s, p, o, out, err);
    eng_free(mapped);
    if (t) {
        s->trace = NULL;
        cql_trace_end(t, !rc && out ? *out : NULL);
    }
    return rc;
}

int cql_query(cql_session *s, const char *query, size_t len, const cql_exec_options *o,
              cql_result **out, eng_err *err)
{
    cql_prepared *p;
    if (out)
        *out = NULL;
    /* QUERY traced (QueryMessage.traceQuery, then QueryProcessor.getStatement's steps) */
    cql_trace *t = NULL;
    if (o && o->trace && !s->trace &&
        (t = s->trace = cql_trace_begin(s->db, "Execute CQL3 query", o, 1))) {
        cql_trace_param(t, "query", query, len);
        cql_trace_event(t, CQL_TRACE_COORDINATOR, "Parsing %.*s", (int)(len > 400 ? 400 : len),
                        query);
        cql_trace_event(t, CQL_TRACE_COORDINATOR, "Preparing statement");
    }
    int rc = cql_prepare_simple(s, query, len, &p, err);
    if (!rc) {
        /* QueryProcessor.process words the count check its own way (EXECUTE's is
           check_values). */
        if (!(o && o->names) && (o ? o->n_values : 0) != (uint32_t)p->stmt->n_binds)
            rc = eng_errorf(err, ENG_E_INVALID, "Invalid amount of bind variables");
        else
            rc = cql_execute(s, p, o, out, err);
        cql_prepared_unref(p);
    }
    if (t) {
        s->trace = NULL;
        cql_trace_end(t, !rc && out ? *out : NULL);
    }
    return rc;
}

/*
 * BATCH: each statement checked (BatchMessage: only modifications, the values of each) and
 * analyzed against s's schema, then run together (modify.c).
 */
int cql_execute_batch(cql_session *s, int kind, cql_prepared **stmts,
                      const cql_exec_options *options, uint32_t n, int64_t timestamp,
                      cql_result **out, eng_err *err)
{
    if (out)
        *out = NULL;
    /* BATCH traced (BatchMessage.traceQuery: the levels, no query) */
    cql_trace *t = NULL;
    if (n && options[0].trace && !s->trace)
        t = s->trace = cql_trace_begin(s->db, "Execute batch of CQL3 queries", &options[0], 0);
    cql_plan **plans = eng_calloc(n ? n : 1, sizeof *plans);
    int rc = plans ? 0 : eng_errorf(err, ENG_E_NOMEM, "out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) {
        int k = stmts[i]->stmt->kind;
        if (k != CQL_S_INSERT && k != CQL_S_UPDATE && k != CQL_S_DELETE) {
            rc = eng_errorf(err, ENG_E_INVALID,
                            "Invalid statement in batch: only UPDATE, INSERT and DELETE statements "
                            "are allowed.");
            break;
        }
        if ((rc = check_values(stmts[i], &options[i], err)))
            break;
        cql_cache_touch(s, stmts[i]);
        if (!(rc = cql_plan_for(stmts[i], s->db, &plans[i], err)))
            rc = cql_auth_authorize(s, stmts[i], err);
    }
    cql_result *r = NULL;
    if (!rc)
        rc = cql_exec_batch(s, kind, stmts, plans, options, n, timestamp, &r, err);
    if (r && n) {
        cql_result_hold_plan(r, plans[0]); /* the [applied] columns point into it */
        plans[0] = NULL;
    }
    for (uint32_t i = 0; plans && i < n; i++)
        cql_plan_release(plans[i]);
    eng_free(plans);
    if (t) {
        s->trace = NULL;
        cql_trace_end(t, rc ? NULL : r);
    }
    if (rc || !out)
        cql_result_free(r);
    else
        *out = r;
    return rc;
}
