/*
 * Sessions, prepared statements and their cache, execution dispatch and
 * results. A statement is parsed once; its analysis (resolved table, typed
 * bind markers, result columns) is kept with the schema snapshot it was
 * made against and made again when the schema has moved on.
 *
 * The cache of prepared statements is process-wide, keyed by database and
 * an XXH3-128 hash of the keyspace and the query text, so preparing the
 * same text twice (from any session on that database) returns the same
 * statement, as a Cassandra node does.
 */
#include <string.h>
#include <xxhash.h>

#include "cql/exec/exec_int.h"
#include "cql/exec/literal.h"
#include "cql/lang/parse.h"

#define CACHE_BUCKETS 1024

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cql_prepared *cache[CACHE_BUCKETS];

/* ---- sessions ---- */

int cql_session_new(eng_db *db, cql_session **out, eng_err *err)
{
    cql_session *s = eng_calloc(1, sizeof *s);
    if (!s)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory creating a session");
    s->db = db;
    *out = s;
    return 0;
}

void cql_session_free(cql_session *s)
{
    if (!s)
        return;
    eng_free(s->keyspace);
    eng_free(s);
}

const char *cql_session_keyspace(const cql_session *s) { return s->keyspace; }
eng_db *cql_session_db(const cql_session *s) { return s->db; }

/* ---- plans ---- */

static void plan_unref(cql_plan *p)
{
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    if (p->schema)
        eng_schema_unref(p->schema);
    for (uint32_t i = 0; i < p->n_owned; i++)
        eng_type_free(p->owned[i]);
    eng_free(p->owned);
    eng_arena_free(&p->arena);
    eng_free(p);
}

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

/*
 * The marker of each partition key column of the statement's table, when
 * every one has a marker (VariableSpecifications.getPartitionKeyBindVariableIndexes:
 * the last marker of a column wins); none otherwise, nor for a batch over
 * several tables (plan->table NULL).
 */
static int routing_indexes(cql_plan *p, eng_err *err)
{
    const eng_table *t = p->table;
    if (!t || !t->n_pk || !p->n_binds)
        return 0;
    uint16_t *pos = eng_arena_alloc(&p->arena, t->n_pk * sizeof *pos);
    uint8_t *seen = eng_arena_alloc(&p->arena, t->n_pk);
    if (!pos || !seen)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement");
    memset(seen, 0, t->n_pk);
    for (uint32_t i = 0; i < p->n_binds; i++) {
        int k = p->bind_pk[i];
        if (k < 0 || k >= t->n_pk || !p->binds[i].ks || !p->binds[i].table ||
            strcmp(p->binds[i].ks, t->ks) || strcmp(p->binds[i].table, t->name))
            continue;
        pos[k] = (uint16_t)i;
        seen[k] = 1;
    }
    for (uint16_t k = 0; k < t->n_pk; k++)
        if (!seen[k])
            return 0;
    p->pk_binds = pos;
    p->n_pk_binds = t->n_pk;
    return 0;
}

static int analyze(cql_prepared *ps, eng_schema *schema, cql_plan **out, eng_err *err)
{
    cql_plan *p = eng_calloc(1, sizeof *p);
    if (!p)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement");
    atomic_init(&p->refs, 1);
    eng_arena_init(&p->arena, 2048);
    p->schema = eng_schema_ref(schema);
    cql_analysis a = {schema, ps->keyspace, p, ps->stmt, err};
    int rc = 0;
    p->n_binds = (uint32_t)ps->stmt->n_binds;
    if (p->n_binds) {
        p->binds = eng_arena_alloc(&p->arena, p->n_binds * sizeof *p->binds);
        p->bind_pk = eng_arena_alloc(&p->arena, p->n_binds * sizeof *p->bind_pk);
        if (!p->binds || !p->bind_pk) {
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement");
        } else {
            memset(p->binds, 0, p->n_binds * sizeof *p->binds);
            for (uint32_t i = 0; i < p->n_binds; i++)
                p->bind_pk[i] = -1;
        }
    }
    if (rc) {
        plan_unref(p);
        return rc;
    }
    switch (ps->stmt->kind) {
    case CQL_S_INSERT:
    case CQL_S_UPDATE:
    case CQL_S_DELETE:
        rc = cql_analyze_modification(&a);
        break;
    case CQL_S_BATCH:
        rc = cql_analyze_batch(&a);
        break;
    case CQL_S_SELECT:
        rc = cql_analyze_select(&a);
        break;
    default:
        rc = cql_analyze_schema_stmt(&a);
        break;
    }
    for (uint32_t i = 0; !rc && i < p->n_binds; i++)
        if (!p->binds[i].type)
            rc = eng_errorf(err, ENG_E_INVALID, "Cannot infer the type of bind marker %u", i);
    if (!rc)
        rc = routing_indexes(p, err);
    if (rc) {
        plan_unref(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* The plan for the current schema: the cached one, or a new analysis. */
static int current_plan(cql_prepared *ps, cql_plan **out, eng_err *err)
{
    eng_schema *schema;
    int rc = eng_db_schema(ps->db, &schema, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&ps->lock);
    cql_plan *p = ps->plan;
    /* The same snapshot object, not just the same version number: the plan holds its
       snapshot, so another database (even one opened at a closed one's address, whose
       versions count alike) never matches. */
    if (p && p->schema == schema) {
        atomic_fetch_add(&p->refs, 1);
        pthread_mutex_unlock(&ps->lock);
        eng_schema_unref(schema);
        *out = p;
        return 0;
    }
    pthread_mutex_unlock(&ps->lock);
    cql_plan *fresh = NULL;
    rc = analyze(ps, schema, &fresh, err);
    eng_schema_unref(schema);
    if (rc)
        return rc;
    pthread_mutex_lock(&ps->lock);
    cql_plan *old = ps->plan;
    ps->plan = fresh;
    atomic_fetch_add(&fresh->refs, 1);
    pthread_mutex_unlock(&ps->lock);
    plan_unref(old);
    *out = fresh;
    return 0;
}

int cql_plan_for(cql_prepared *p, cql_plan **out, eng_err *err)
{
    return current_plan(p, out, err);
}

void cql_plan_release(cql_plan *p) { plan_unref(p); }

/* ---- prepared statements ---- */

static void prepared_destroy(cql_prepared *ps)
{
    plan_unref(ps->plan);
    pthread_mutex_destroy(&ps->lock);
    eng_arena_free(&ps->arena);
    eng_free(ps->query);
    eng_free(ps->keyspace);
    eng_free(ps);
}

cql_prepared *cql_prepared_ref(cql_prepared *p)
{
    atomic_fetch_add(&p->refs, 1);
    return p;
}

void cql_prepared_unref(cql_prepared *p)
{
    if (p && atomic_fetch_sub(&p->refs, 1) == 1)
        prepared_destroy(p);
}

/* XXH3-128 of the query text, seeded with a hash of the keyspace it is prepared in. */
static void statement_id(const char *ks, const char *query, size_t len, uint8_t id[16])
{
    XXH64_hash_t seed = ks ? XXH3_64bits(ks, strlen(ks)) : 0;
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_withSeed(query, len, seed));
    memcpy(id, c.digest, 16);
}

static cql_prepared *cache_find(eng_db *db, const uint8_t id[16])
{
    cql_prepared *p = cache[id[0] | (id[1] & 3) << 8];
    for (; p; p = p->next)
        if (p->db == db && memcmp(p->id, id, 16) == 0)
            return cql_prepared_ref(p);
    return NULL;
}

/* Keeps the statement in the cache (one reference held by the cache). */
static cql_prepared *cache_insert(cql_prepared *ps)
{
    unsigned b = ps->id[0] | (ps->id[1] & 3) << 8;
    pthread_mutex_lock(&cache_lock);
    cql_prepared *dup = cache_find(ps->db, ps->id);
    if (dup) {
        pthread_mutex_unlock(&cache_lock);
        cql_prepared_unref(ps);
        return dup;
    }
    ps->next = cache[b];
    cache[b] = cql_prepared_ref(ps);
    pthread_mutex_unlock(&cache_lock);
    return ps;
}

int cql_prepare(cql_session *s, const char *query, size_t len, cql_prepared **out, eng_err *err)
{
    *out = NULL;
    uint8_t id[16];
    statement_id(s->keyspace, query, len, id);
    pthread_mutex_lock(&cache_lock);
    cql_prepared *hit = cache_find(s->db, id);
    pthread_mutex_unlock(&cache_lock);
    if (hit) {
        /* Preparing again follows the schema, as a re-prepare does in Cassandra: fresh
           metadata, or the error if the table has gone. */
        cql_plan *plan = NULL;
        int rc = current_plan(hit, &plan, err);
        if (rc) {
            cql_prepared_unref(hit);
            return rc;
        }
        plan_unref(plan);
        *out = hit;
        return 0;
    }
    cql_prepared *ps = eng_calloc(1, sizeof *ps);
    if (!ps)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement");
    atomic_init(&ps->refs, 1);
    pthread_mutex_init(&ps->lock, NULL);
    eng_arena_init(&ps->arena, 4096);
    memcpy(ps->id, id, 16);
    ps->db = s->db;
    ps->query = eng_strndup(query, len);
    ps->keyspace = s->keyspace ? eng_strdup(s->keyspace) : NULL;
    int rc = (!ps->query || (s->keyspace && !ps->keyspace))
                 ? eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement")
                 : cql_parse(query, len, &ps->arena, &ps->stmt, err);
    cql_plan *plan = NULL;
    if (!rc)
        rc = current_plan(ps, &plan, err);
    if (rc) {
        cql_prepared_unref(ps);
        return rc;
    }
    plan_unref(plan);
    *out = cache_insert(ps);
    return 0;
}

const uint8_t *cql_prepared_id(const cql_prepared *p) { return p->id; }
const char *cql_prepared_query(const cql_prepared *p) { return p->query; }

uint32_t cql_prepared_bind_count(const cql_prepared *p) { return (uint32_t)p->stmt->n_binds; }

const cql_column_spec *cql_prepared_bind(const cql_prepared *p, uint32_t i)
{
    return p->plan && i < p->plan->n_binds ? &p->plan->binds[i] : NULL;
}

int cql_prepared_bind_index(const cql_prepared *p, const char *name, size_t len)
{
    for (uint32_t i = 0; p->plan && i < p->plan->n_binds; i++) {
        const char *n = p->plan->binds[i].name;
        if (n && strlen(n) == len && memcmp(n, name, len) == 0)
            return (int)i;
    }
    return -1;
}

uint32_t cql_prepared_column_count(const cql_prepared *p) { return p->plan ? p->plan->n_cols : 0; }

const cql_column_spec *cql_prepared_column(const cql_prepared *p, uint32_t i)
{
    return p->plan && i < p->plan->n_cols ? &p->plan->cols[i] : NULL;
}

uint32_t cql_prepared_pk_count(const cql_prepared *p) { return p->plan ? p->plan->n_pk_binds : 0; }

uint16_t cql_prepared_pk_index(const cql_prepared *p, uint32_t i)
{
    return p->plan && i < p->plan->n_pk_binds ? p->plan->pk_binds[i] : 0;
}

int cql_prepared_is_write(const cql_prepared *p)
{
    int k = p->stmt->kind;
    return k == CQL_S_INSERT || k == CQL_S_UPDATE || k == CQL_S_DELETE || k == CQL_S_BATCH;
}

/* ---- results ---- */

static const eng_type boolean_type = {.kind = ENG_BOOLEAN};
const eng_type *cql_boolean_type(void) { return &boolean_type; }

cql_result *cql_result_new(int kind)
{
    cql_result *r = eng_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->kind = kind;
    eng_arena_init(&r->arena, 1024);
    return r;
}

int cql_result_set_columns(cql_result *r, const cql_column_spec *cols, uint32_t n)
{
    r->cols = eng_arena_alloc(&r->arena, (n ? n : 1) * sizeof *r->cols);
    if (!r->cols)
        return ENG_E_NOMEM;
    memcpy(r->cols, cols, n * sizeof *cols);
    r->n_cols = n;
    return 0;
}

/*
 * Rows are kept as offsets while the data buffer grows and turned into
 * views when the result is complete (cells point into `data`).
 */
int cql_result_add_row(cql_result *r, const eng_val *vals)
{
    size_t need = 0;
    for (uint32_t i = 0; i < r->n_cols; i++)
        need += 4 + (vals[i].len > 0 ? (size_t)vals[i].len : 0);
    /* One reservation per row; a page of rows usually fits in the first 8 KiB. */
    if (r->data.len + need + 1 > r->data.cap &&
        eng_buf_reserve(&r->data, need > 8192 ? need : 8192))
        return ENG_E_NOMEM;
    uint8_t *p = r->data.p + r->data.len;
    for (uint32_t i = 0; i < r->n_cols; i++) {
        eng_put_be32(p, (uint32_t)vals[i].len);
        p += 4;
        if (vals[i].len > 0) {
            memcpy(p, vals[i].p, (size_t)vals[i].len);
            p += vals[i].len;
        }
    }
    r->data.len += need;
    r->n_rows++;
    return 0;
}

int cql_result_finish(cql_result *r)
{
    if (!r->n_rows || !r->n_cols)
        return 0;
    r->cells = eng_arena_alloc(&r->arena, (size_t)r->n_rows * r->n_cols * sizeof *r->cells);
    if (!r->cells)
        return ENG_E_NOMEM;
    const uint8_t *p = r->data.p;
    for (size_t i = 0; i < (size_t)r->n_rows * r->n_cols; i++) {
        int32_t len = (int32_t)eng_be32(p);
        p += 4;
        r->cells[i].len = len;
        r->cells[i].p = len > 0 ? p : NULL;
        if (len > 0)
            p += len;
    }
    return 0;
}

void cql_result_free(cql_result *r)
{
    if (!r)
        return;
    eng_buf_free(&r->data);
    eng_buf_free(&r->paging_state);
    eng_arena_free(&r->arena);
    plan_unref(r->plan);
    eng_free(r);
}

/* ---- values ---- */

int cql_call_function(void *ctx, const cql_term *term, const eng_type *want, eng_buf *out,
                      int *state, eng_err *err);

int cql_eval_term(cql_exec *x, const cql_term *term, const eng_type *type, const char *receiver,
                  eng_buf *out, int *state)
{
    cql_term_env env = {x->opts->values, x->opts->n_values, cql_call_function, x};
    eng_buf_reset(out);
    return cql_term_value(term, type, receiver, &env, out, state, x->err);
}

int cql_eval_val(cql_exec *x, const cql_term *term, const eng_type *type, const char *receiver,
                 eng_val *out)
{
    /*
     * A bound value of a scalar type is used where it is: the caller's buffer outlives the
     * execution. Only validation is needed (collections still go through canonicalization).
     */
    if (term->kind == CQL_T_BIND && type && type->kind < ENG_LIST && term->bind_index >= 0 &&
        (uint32_t)term->bind_index < x->opts->n_values &&
        x->opts->values[term->bind_index].len >= ENG_UNSET &&
        (x->opts->values[term->bind_index].p || x->opts->values[term->bind_index].len <= 0)) {
        /* (other negative lengths take the long way, which refuses them) */
        eng_val v = x->opts->values[term->bind_index];
        if (v.len >= 0 && eng_type_validate(type, v.p, (size_t)v.len, x->err))
            return x->err->code;
        *out = v;
        return 0;
    }
    eng_buf b = ENG_BUF_INIT;
    int state;
    int rc = cql_eval_term(x, term, type, receiver, &b, &state);
    if (!rc) {
        if (state == CQL_VALUE_NULL) {
            *out = (eng_val){NULL, ENG_NULL};
        } else if (state == CQL_VALUE_UNSET) {
            *out = (eng_val){NULL, ENG_UNSET};
        } else {
            out->p = eng_arena_memdup(&x->arena, b.p, b.len);
            out->len = (int32_t)b.len;
            if (!out->p)
                rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        }
    }
    eng_buf_free(&b);
    return rc;
}

/* ---- execution ---- */

void cql_exec_options_init(cql_exec_options *o)
{
    memset(o, 0, sizeof *o);
    o->timestamp = ENG_TS_NONE;
    o->consistency = 1;        /* ONE */
    o->serial_consistency = 8; /* SERIAL */
}

static int check_values(const cql_prepared *p, const cql_exec_options *o, eng_err *err)
{
    if (o->n_values != (uint32_t)p->stmt->n_binds)
        return eng_errorf(err, ENG_E_INVALID,
                          "there were %d markers(?) in CQL but %u bound variables",
                          p->stmt->n_binds, o->n_values);
    return 0;
}

static int run(cql_exec *x)
{
    switch (x->stmt->kind) {
    case CQL_S_INSERT:
    case CQL_S_UPDATE:
    case CQL_S_DELETE:
        return cql_exec_modification(x);
    case CQL_S_BATCH:
        return cql_exec_batch_stmt(x);
    case CQL_S_SELECT:
        return cql_exec_select(x);
    default:
        return cql_exec_schema_stmt(x);
    }
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
    int rc = check_values(p, o, err);
    if (rc)
        return rc;
    cql_exec x;
    memset(&x, 0, sizeof x);
    x.session = s;
    x.prepared = p;
    x.opts = o;
    x.stmt = p->stmt;
    x.err = err;
    eng_arena_init(&x.arena, 4096);
    rc = current_plan(p, &x.plan, err);
    if (!rc) {
        x.result = cql_result_new(CQL_RESULT_VOID);
        rc = x.result ? run(&x) : eng_errorf(err, ENG_E_NOMEM, "out of memory");
    }
    if (!rc && cql_result_finish(x.result))
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory building a result");
    if (x.result) {
        x.result->plan = x.plan; /* its column specs point into the plan and its schema */
        x.plan = NULL;
    }
    eng_arena_free(&x.arena);
    if (rc || !out)
        cql_result_free(x.result);
    else
        *out = x.result;
    plan_unref(x.plan);
    return rc;
}

int cql_query(cql_session *s, const char *query, size_t len, const cql_exec_options *o,
              cql_result **out, eng_err *err)
{
    cql_prepared *p;
    if (out)
        *out = NULL;
    int rc = cql_prepare(s, query, len, &p, err);
    if (rc)
        return rc;
    /* QueryProcessor.process words the count check its own way (EXECUTE's is check_values). */
    if ((o ? o->n_values : 0) != (uint32_t)p->stmt->n_binds)
        rc = eng_errorf(err, ENG_E_INVALID, "Invalid amount of bind variables");
    else
        rc = cql_execute(s, p, o, out, err);
    cql_prepared_unref(p);
    return rc;
}
