/*
 * Prepared statements, their analyses (plans), and the statement cache of
 * each database.
 *
 * A statement is parsed once; its analysis (resolved table, typed bind
 * markers, result columns) is kept with the schema snapshot it was made
 * against and made again when the schema has moved on.
 *
 * The cache (Cassandra's QueryProcessor.preparedStatements): per database,
 * keyed by the statement id, an XXH3-128 of the keyspace and the query text,
 * so preparing the same text twice from any session of the database returns
 * the same statement, as a Cassandra node does. It is bounded by bytes, not
 * by count, in two classes kept apart:
 *  - statements prepared explicitly (PREPARE, cass_session_prepare): up to
 *    CQL_CACHE_DEFAULT_BYTES (Cassandra's prepared_statements_cache_size
 *    floor, 10 MiB), or what cql_cache_set_capacity / CASSETTE_PREPARED_CACHE_MB
 *    set;
 *  - simple statements (QUERY): Cassandra parses those every time; a small
 *    class (CQL_CACHE_SIMPLE_BYTES) keeps a script's or a loop's repeated
 *    texts fast without letting a stream of distinct texts grow memory.
 * Eviction takes the least recently used statement, with a second chance for
 * one executed since the sweep last passed it (the CLOCK approximation of
 * LRU: executing a statement only sets a flag, no lock). A statement is
 * counted for the bytes of its text, its syntax tree and its first plan.
 *
 * A plan holds the schema snapshot it was made against. Once the schema has
 * moved on, the plans of cached statements no one else holds are released
 * (cache_release_stale): the next use analyzes them again anyway, and kept
 * they would each keep an old snapshot alive, memory the bytes above do not
 * count. So the snapshots the cache keeps alive are the current one and
 * those of statements a client still holds.
 *
 * An evicted id is gone: looking it up answers Cassandra's UNPREPARED error,
 * so a client prepares it again. Whoever still holds the statement (a
 * driver's prepared statement) may go on executing it: execution puts it
 * back in the cache, as re-preparing it would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cql/exec/exec_int.h"
#include "cql/lang/parse.h"
#include "engine/value/text.h"

/* What each class holds at most, unless configured (bytes). */
#define CQL_CACHE_DEFAULT_BYTES ((size_t)10 << 20)
#define CQL_CACHE_SIMPLE_BYTES ((size_t)1 << 20)

enum { CLS_PREPARED = 0, CLS_SIMPLE = 1 };

typedef struct lru {
    cql_prepared *head, *tail; /* most recently used first */
    size_t bytes, cap, count;
} lru;

struct cql_cache {
    pthread_mutex_t lock;
    cql_prepared **buckets; /* chained by hash_next; n_buckets is a power of two */
    size_t n_buckets;
    lru cls[2];
    uint64_t evictions;
    _Atomic uint64_t swept_version; /* the schema version stale plans were last released for */
};

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

static void plan_release_hook(void *p) { plan_unref(p); }

void cql_plan_release(cql_plan *p) { plan_unref(p); }

void cql_result_hold_plan(cql_result *r, cql_plan *p)
{
    r->release = plan_release_hook;
    r->release_arg = p;
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

/* What each statement kind is analyzed and executed by (the statement files). */
static const cql_stmt_ops modification_ops = {cql_analyze_modification, cql_exec_modification};
static const cql_stmt_ops batch_ops = {cql_analyze_batch, cql_exec_batch_stmt};
static const cql_stmt_ops select_ops = {cql_analyze_select, cql_exec_select};
static const cql_stmt_ops schema_ops = {cql_analyze_schema_stmt, cql_exec_schema_stmt};
static const cql_stmt_ops role_ops = {cql_analyze_role_stmt, cql_exec_role_stmt};

static const cql_stmt_ops *const stmt_ops[] = {
    [CQL_S_USE] = &schema_ops,           [CQL_S_CREATE_KEYSPACE] = &schema_ops,
    [CQL_S_ALTER_KEYSPACE] = &schema_ops, [CQL_S_DROP_KEYSPACE] = &schema_ops,
    [CQL_S_CREATE_TABLE] = &schema_ops,  [CQL_S_ALTER_TABLE] = &schema_ops,
    [CQL_S_DROP_TABLE] = &schema_ops,    [CQL_S_TRUNCATE] = &schema_ops,
    [CQL_S_CREATE_TYPE] = &schema_ops,   [CQL_S_ALTER_TYPE] = &schema_ops,
    [CQL_S_DROP_TYPE] = &schema_ops,     [CQL_S_INSERT] = &modification_ops,
    [CQL_S_UPDATE] = &modification_ops,  [CQL_S_DELETE] = &modification_ops,
    [CQL_S_BATCH] = &batch_ops,          [CQL_S_SELECT] = &select_ops,
    [CQL_S_CREATE_ROLE] = &role_ops,     [CQL_S_ALTER_ROLE] = &role_ops,
    [CQL_S_DROP_ROLE] = &role_ops,       [CQL_S_LIST_ROLES] = &role_ops,
    [CQL_S_LIST_USERS] = &role_ops,      [CQL_S_GRANT_ROLE] = &role_ops,
    [CQL_S_REVOKE_ROLE] = &role_ops,     [CQL_S_GRANT_PERMISSIONS] = &role_ops,
    [CQL_S_REVOKE_PERMISSIONS] = &role_ops, [CQL_S_LIST_PERMISSIONS] = &role_ops,
};

int cql_prepared_bounded_read(cql_session *s, cql_prepared *p, int32_t page_size,
                              uint32_t max_rows)
{
    if (p->stmt->kind != CQL_S_SELECT)
        return 0;
    cql_plan *plan;
    eng_err err;
    eng_err_clear(&err);
    if (cql_plan_for(p, s->db, &plan, &err))
        return 0;
    int bounded = cql_select_bounded(plan, page_size, max_rows);
    cql_plan_release(plan);
    return bounded;
}

const cql_stmt_ops *cql_stmt_ops_of(const cql_stmt *s)
{
    int k = s->kind;
    return k > 0 && k < (int)ENG_ARRAY_LEN(stmt_ops) && stmt_ops[k] ? stmt_ops[k] : &schema_ops;
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
    if (!rc)
        rc = cql_stmt_ops_of(ps->stmt)->analyze(&a);
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

static cql_cache *cache_of(eng_db *db);
static void cache_release_stale(cql_cache *c, const eng_schema *cur);
static uint64_t plan_shape(const cql_plan *p);

/* The slot's plan (a new reference) when it was analyzed against schema, or, schema NULL,
   against a snapshot known to be current without a transaction; else NULL. */
static cql_plan *slot_plan(cql_plan_slot *slot, eng_db *db, const eng_schema *schema)
{
    pthread_mutex_lock(&slot->s.lock);
    cql_plan *p = slot->s.plan;
    if (p && (schema ? p->schema == schema : eng_db_schema_known(db, p->schema)))
        atomic_fetch_add(&p->refs, 1);
    else
        p = NULL;
    pthread_mutex_unlock(&slot->s.lock);
    return p;
}

/*
 * A plan of ps against schema for a shard (a new reference): the statement's current
 * analysis if no shard has it yet, else a fresh one. A fresh analysis against a snapshot
 * the current one was not made with becomes the current one.
 */
static int shard_plan_new(cql_prepared *ps, eng_db *db, eng_schema *schema, cql_plan **out,
                          eng_err *err)
{
    pthread_mutex_lock(&ps->lock);
    cql_plan *p = ps->plan;
    int current = p && p->schema == schema;
    if (current && !ps->plan_lent) {
        ps->plan_lent = 1;
        atomic_fetch_add(&p->refs, 1);
        pthread_mutex_unlock(&ps->lock);
        *out = p;
        return 0;
    }
    pthread_mutex_unlock(&ps->lock);
    cql_plan *fresh = NULL;
    int rc = analyze(ps, schema, &fresh, err);
    if (rc)
        return rc;
    fresh->shape = plan_shape(fresh);
    *out = fresh;
    if (current)
        return 0; /* the current analysis is another shard's */
    pthread_mutex_lock(&ps->lock);
    cql_plan *old = ps->plan;
    ps->plan = fresh;
    ps->plan_lent = 1;
    atomic_fetch_add(&fresh->refs, 1);
    pthread_mutex_unlock(&ps->lock);
    plan_unref(old);
    /* A new analysis is how a schema change shows here first: the other plans made before it
       can go. Without a cache (out of memory) they stay, as before. */
    cql_cache *c = cache_of(db);
    if (c)
        cache_release_stale(c, schema);
    return 0;
}

int cql_plan_for(cql_prepared *ps, eng_db *db, cql_plan **out, eng_err *err)
{
    cql_plan_slot *slot = &ps->shard_plans[eng_thread_shard()];
    /* The common case: this thread's plan, its snapshot still current, no lock shared. */
    if ((*out = slot_plan(slot, db, NULL)))
        return 0;
    eng_schema *schema;
    int rc = eng_db_schema(db, &schema, err);
    if (rc)
        return rc;
    /* The same snapshot object, not just the same version number: the plan holds its
       snapshot, so another database (even one opened at a closed one's address, whose
       versions count alike) never matches. */
    if ((*out = slot_plan(slot, db, schema))) {
        eng_schema_unref(schema);
        return 0;
    }
    cql_plan *p = NULL;
    rc = shard_plan_new(ps, db, schema, &p, err);
    eng_schema_unref(schema);
    if (rc)
        return rc;
    pthread_mutex_lock(&slot->s.lock);
    cql_plan *old = slot->s.plan;
    slot->s.plan = p;
    atomic_fetch_add(&p->refs, 1);
    pthread_mutex_unlock(&slot->s.lock);
    plan_unref(old);
    *out = p;
    return 0;
}

/*
 * What a client was told of a statement: its result columns and its markers (names and
 * types), hashed. An ALTER TABLE that changes them makes Cassandra drop the statements of the
 * table (QueryProcessor's listener, onAlterTable with affectsStatements), so the next EXECUTE
 * answers UNPREPARED and the client prepares again and learns the new columns; a client that
 * skips result metadata would otherwise read the new rows with the old columns.
 */
static uint64_t plan_shape(const cql_plan *p)
{
    eng_buf b = ENG_BUF_INIT;
    const cql_column_spec *lists[2] = {p->cols, p->binds};
    uint32_t counts[2] = {p->n_cols, p->n_binds};
    for (int l = 0; l < 2; l++) {
        eng_buf_put(&b, &counts[l], sizeof counts[l]);
        for (uint32_t i = 0; i < counts[l]; i++) {
            const cql_column_spec *c = &lists[l][i];
            eng_buf_put_str(&b, c->name ? c->name : "");
            eng_buf_put_u8(&b, 0);
            if (c->type)
                eng_type_to_cql(c->type, &b);
            eng_buf_put_u8(&b, 0);
        }
    }
    uint64_t h = b.oom ? 0 : XXH3_64bits(b.p, b.len);
    eng_buf_free(&b);
    return h;
}

/* Records that the client was just told the statement as plan describes it (PREPARE). */
static void shape_told(cql_prepared *ps, const cql_plan *plan)
{
    pthread_mutex_lock(&ps->lock);
    ps->shape = plan->shape;
    pthread_mutex_unlock(&ps->lock);
}

/* ---- prepared statements ---- */

static void prepared_destroy(cql_prepared *ps)
{
    plan_unref(ps->plan);
    for (int i = 0; i < ENG_SHARDS; i++) {
        plan_unref(ps->shard_plans[i].s.plan);
        pthread_mutex_destroy(&ps->shard_plans[i].s.lock);
    }
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

/* ---- the cache ---- */

static size_t bucket_of(const cql_cache *c, const uint8_t id[16])
{
    return (size_t)eng_be64(id) & (c->n_buckets - 1);
}

static void *cache_create(eng_db *db)
{
    (void)db;
    cql_cache *c = eng_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->n_buckets = 256;
    c->buckets = eng_calloc(c->n_buckets, sizeof *c->buckets);
    if (!c->buckets) {
        eng_free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->cls[CLS_PREPARED].cap = CQL_CACHE_DEFAULT_BYTES;
    c->cls[CLS_SIMPLE].cap = CQL_CACHE_SIMPLE_BYTES;
    const char *mb = getenv("CASSETTE_PREPARED_CACHE_MB");
    if (mb && *mb) {
        char *end;
        unsigned long long v = strtoull(mb, &end, 10);
        if (!*end && v > 0 && v < ((unsigned long long)SIZE_MAX >> 20))
            c->cls[CLS_PREPARED].cap = (size_t)v << 20;
    }
    return c;
}

/* The last close of the database: every statement leaves the cache (holders keep theirs). */
static void cache_destroy(void *arg)
{
    cql_cache *c = arg;
    for (int k = 0; k < 2; k++) {
        cql_prepared *p = c->cls[k].head;
        while (p) {
            cql_prepared *next = p->lru_next;
            atomic_store(&p->cache, NULL);
            p->lru_prev = p->lru_next = p->hash_next = NULL;
            cql_prepared_unref(p);
            p = next;
        }
    }
    pthread_mutex_destroy(&c->lock);
    eng_free(c->buckets);
    eng_free(c);
}

/* The cache of db, made on first use; NULL when memory ran out. */
static cql_cache *cache_of(eng_db *db)
{
    return eng_db_client_data(db, cache_create, cache_destroy);
}

/* Under the lock. */
static cql_prepared *cache_find(cql_cache *c, const uint8_t id[16])
{
    for (cql_prepared *p = c->buckets[bucket_of(c, id)]; p; p = p->hash_next)
        if (memcmp(p->id, id, 16) == 0)
            return p;
    return NULL;
}

static void lru_unlink(lru *l, cql_prepared *p)
{
    if (p->lru_prev)
        p->lru_prev->lru_next = p->lru_next;
    else
        l->head = p->lru_next;
    if (p->lru_next)
        p->lru_next->lru_prev = p->lru_prev;
    else
        l->tail = p->lru_prev;
    p->lru_prev = p->lru_next = NULL;
}

static void lru_push_front(lru *l, cql_prepared *p)
{
    p->lru_prev = NULL;
    p->lru_next = l->head;
    if (l->head)
        l->head->lru_prev = p;
    l->head = p;
    if (!l->tail)
        l->tail = p;
}

/* Under the lock: takes p out of the cache and drops the cache's reference. */
static void cache_remove(cql_cache *c, cql_prepared *p)
{
    cql_prepared **pp = &c->buckets[bucket_of(c, p->id)];
    while (*pp != p)
        pp = &(*pp)->hash_next;
    *pp = p->hash_next;
    p->hash_next = NULL;
    lru *l = &c->cls[p->cls];
    lru_unlink(l, p);
    l->bytes -= p->weight;
    l->count--;
    atomic_store(&p->cache, NULL);
    c->evictions++;
    cql_prepared_unref(p);
}

/*
 * Under the lock: evicts from the tail of class k until it fits its capacity. A statement
 * executed since the sweep last passed it goes back to the front once (its flag cleared).
 * `keep` (just inserted) is never evicted, even when it alone is larger than the class.
 */
static void cache_trim(cql_cache *c, int k, const cql_prepared *keep)
{
    lru *l = &c->cls[k];
    size_t chances = l->count;
    while (l->bytes > l->cap && l->tail && l->tail != keep) {
        cql_prepared *p = l->tail;
        if (chances > 0 && atomic_exchange(&p->used, 0)) {
            chances--;
            lru_unlink(l, p);
            lru_push_front(l, p);
            continue;
        }
        cache_remove(c, p);
    }
}

/* Under the lock: doubles the buckets when the chains get long (load factor 2). */
static void cache_grow(cql_cache *c)
{
    size_t count = c->cls[0].count + c->cls[1].count;
    if (count < 2 * c->n_buckets)
        return;
    size_t n = c->n_buckets * 2;
    cql_prepared **b = eng_calloc(n, sizeof *b);
    if (!b)
        return; /* longer chains, still correct */
    for (size_t i = 0; i < c->n_buckets; i++) {
        cql_prepared *p = c->buckets[i];
        while (p) {
            cql_prepared *next = p->hash_next;
            size_t j = (size_t)eng_be64(p->id) & (n - 1);
            p->hash_next = b[j];
            b[j] = p;
            p = next;
        }
    }
    eng_free(c->buckets);
    c->buckets = b;
    c->n_buckets = n;
}

/* The bytes a statement is counted for: its text, syntax tree and current plan. */
static size_t weight_of(cql_prepared *p)
{
    size_t w = sizeof *p + strlen(p->query) + (p->keyspace ? strlen(p->keyspace) : 0) +
               eng_arena_size(&p->arena);
    pthread_mutex_lock(&p->lock);
    const cql_plan *current = p->plan;
    if (current)
        w += sizeof *current + eng_arena_size(&current->arena);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < ENG_SHARDS; i++) {
        cql_plan_slot *slot = &p->shard_plans[i];
        pthread_mutex_lock(&slot->s.lock);
        if (slot->s.plan && slot->s.plan != current)
            w += sizeof *slot->s.plan + eng_arena_size(&slot->s.plan->arena);
        pthread_mutex_unlock(&slot->s.lock);
    }
    return w;
}

/*
 * Under the lock: drops p's plan when it was made against a snapshot older than cur and the
 * cache's is the only reference to p. No one else can then reach p, or the plan through it,
 * without the cache's lock (results that hold the plan keep their own reference on it).
 */
static int plan_is_stale(const cql_plan *p, const eng_schema *cur)
{
    return p && p->schema != cur && p->schema->version <= cur->version;
}

static void release_plan_if_stale(cql_prepared *p, const eng_schema *cur)
{
    if (atomic_load(&p->refs) != 1)
        return;
    cql_plan *stale = NULL;
    pthread_mutex_lock(&p->lock);
    if (plan_is_stale(p->plan, cur)) {
        stale = p->plan;
        p->plan = NULL;
        p->plan_lent = 0;
    }
    pthread_mutex_unlock(&p->lock);
    plan_unref(stale);
    for (int i = 0; i < ENG_SHARDS; i++) {
        cql_plan_slot *slot = &p->shard_plans[i];
        pthread_mutex_lock(&slot->s.lock);
        stale = plan_is_stale(slot->s.plan, cur) ? slot->s.plan : NULL;
        if (stale)
            slot->s.plan = NULL;
        pthread_mutex_unlock(&slot->s.lock);
        plan_unref(stale);
    }
}

/*
 * Releases the plans made before cur (the database's current snapshot) of the statements only
 * the cache holds, once per schema version: what a cached statement keeps alive stays within
 * the cache's bound, whatever the number of schema changes it has seen.
 */
static void cache_release_stale(cql_cache *c, const eng_schema *cur)
{
    if (atomic_load_explicit(&c->swept_version, memory_order_relaxed) >= cur->version)
        return;
    pthread_mutex_lock(&c->lock);
    if (atomic_load_explicit(&c->swept_version, memory_order_relaxed) < cur->version) {
        atomic_store_explicit(&c->swept_version, cur->version, memory_order_relaxed);
        for (int k = 0; k < 2; k++)
            for (cql_prepared *p = c->cls[k].head; p; p = p->lru_next)
                release_plan_if_stale(p, cur);
    }
    pthread_mutex_unlock(&c->lock);
}

/*
 * Puts ps in class k of the cache, or returns the statement already cached under its id
 * (promoted to the prepared class when k is). Returns a new reference.
 */
static cql_prepared *cache_insert(cql_cache *c, cql_prepared *ps, int k)
{
    size_t w = weight_of(ps);
    pthread_mutex_lock(&c->lock);
    cql_prepared *p = cache_find(c, ps->id);
    if (p) {
        lru_unlink(&c->cls[p->cls], p);
        if (k == CLS_PREPARED && p->cls == CLS_SIMPLE) {
            c->cls[CLS_SIMPLE].bytes -= p->weight;
            c->cls[CLS_SIMPLE].count--;
            p->cls = CLS_PREPARED;
            c->cls[CLS_PREPARED].bytes += p->weight;
            c->cls[CLS_PREPARED].count++;
        }
        lru_push_front(&c->cls[p->cls], p);
        cql_prepared_ref(p);
        cache_trim(c, p->cls, p);
        pthread_mutex_unlock(&c->lock);
        return p;
    }
    ps->cls = k;
    ps->weight = w;
    size_t b = bucket_of(c, ps->id);
    ps->hash_next = c->buckets[b];
    c->buckets[b] = cql_prepared_ref(ps); /* the cache's reference */
    lru_push_front(&c->cls[k], ps);
    c->cls[k].bytes += w;
    c->cls[k].count++;
    atomic_store(&ps->used, 0);
    atomic_store(&ps->cache, c);
    cache_trim(c, k, ps);
    cache_grow(c);
    pthread_mutex_unlock(&c->lock);
    return cql_prepared_ref(ps);
}

/* The cached statement with that id and class at least as strong (a new reference), or NULL. */
static cql_prepared *cache_lookup(cql_cache *c, const uint8_t id[16], int promote)
{
    pthread_mutex_lock(&c->lock);
    cql_prepared *p = cache_find(c, id);
    if (p) {
        lru *l = &c->cls[p->cls];
        lru_unlink(l, p);
        if (promote && p->cls == CLS_SIMPLE) {
            l->bytes -= p->weight;
            l->count--;
            p->cls = CLS_PREPARED;
            l = &c->cls[CLS_PREPARED];
            l->bytes += p->weight;
            l->count++;
        }
        lru_push_front(l, p);
        cql_prepared_ref(p);
        if (promote)
            cache_trim(c, CLS_PREPARED, p);
    }
    pthread_mutex_unlock(&c->lock);
    return p;
}

int cql_cache_attach(cql_session *s, eng_err *err)
{
    s->cache = cache_of(s->db);
    return s->cache ? 0 : eng_errorf(err, ENG_E_NOMEM, "out of memory creating a session");
}

void cql_cache_touch(cql_session *s, cql_prepared *p)
{
    if (atomic_load_explicit(&p->cache, memory_order_relaxed) == s->cache) {
        if (!atomic_load_explicit(&p->used, memory_order_relaxed))
            atomic_store_explicit(&p->used, 1, memory_order_relaxed);
        return;
    }
    /* Evicted since, or cached in another database: back into this one, as a re-prepare
       would put it (the statement itself belongs to no database). */
    cql_prepared *held = cache_insert(s->cache, p, CLS_PREPARED);
    cql_prepared_unref(held);
}

/* ---- preparing ---- */

static int parse_new(cql_session *s, const char *query, size_t len, const uint8_t id[16],
                     cql_prepared **out, eng_err *err)
{
    cql_prepared *ps = eng_calloc(1, sizeof *ps);
    if (!ps)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement");
    atomic_init(&ps->refs, 1);
    atomic_init(&ps->cache, NULL);
    atomic_init(&ps->used, 0);
    pthread_mutex_init(&ps->lock, NULL);
    for (int i = 0; i < ENG_SHARDS; i++)
        pthread_mutex_init(&ps->shard_plans[i].s.lock, NULL);
    eng_arena_init(&ps->arena, 4096);
    memcpy(ps->id, id, 16);
    ps->query = eng_strndup(query, len);
    ps->keyspace = s->keyspace ? eng_strdup(s->keyspace) : NULL;
    int rc = (!ps->query || (s->keyspace && !ps->keyspace))
                 ? eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement")
                 : cql_parse(query, len, &ps->arena, &ps->stmt, err);
    cql_plan *plan = NULL;
    if (!rc)
        rc = cql_plan_for(ps, s->db, &plan, err);
    if (!rc)
        shape_told(ps, plan);
    plan_unref(plan);
    if (rc) {
        cql_prepared_unref(ps);
        return rc;
    }
    *out = ps;
    return 0;
}

/* cql_prepare (class prepared) and the statements of cql_query (class simple). */
/*
 * A query text must be UTF-8: Cassandra decodes every protocol string strictly and answers a
 * PROTOCOL_ERROR otherwise (CBUtil.readString; dtest invalid_string_literals), naming the
 * bytes from the first malformed one on (the decoder has consumed those before it). Nothing
 * downstream (names, options, messages) then ever holds bytes that are not text.
 */
static int check_query_text(const char *query, size_t len, eng_err *err)
{
    size_t at, n;
    if (!eng_text_utf8_malformed((const uint8_t *)query, len, &at, &n))
        return 0;
    char hex[2 * 96 + 1];
    size_t shown = ENG_MIN(len - at, (size_t)96);
    for (size_t i = 0; i < shown; i++)
        snprintf(hex + 2 * i, 3, "%02x", (uint8_t)query[at + i]);
    hex[2 * shown] = 0;
    return eng_errorf(err, ENG_E_PROTOCOL,
                      "Cannot decode string as UTF8: '%s%s'; "
                      "java.nio.charset.MalformedInputException: Input length = %zu",
                      hex, shown < len - at ? "..." : "", n);
}

static int prepare_in(cql_session *s, const char *query, size_t len, int k, cql_prepared **out,
                      eng_err *err)
{
    *out = NULL;
    int bad = check_query_text(query, len, err);
    if (bad)
        return bad;
    uint8_t id[16];
    statement_id(s->keyspace, query, len, id);
    cql_prepared *hit = cache_lookup(s->cache, id, k == CLS_PREPARED);
    if (hit) {
        /* Preparing again follows the schema, as a re-prepare does in Cassandra: fresh
           metadata, or the error if the table has gone. */
        cql_plan *plan = NULL;
        int rc = cql_plan_for(hit, s->db, &plan, err);
        if (!rc)
            shape_told(hit, plan);
        plan_unref(plan);
        if (rc) {
            cql_prepared_unref(hit);
            return rc;
        }
        *out = hit;
        return 0;
    }
    cql_prepared *ps = NULL;
    int rc = parse_new(s, query, len, id, &ps, err);
    if (rc)
        return rc;
    *out = cache_insert(s->cache, ps, k);
    cql_prepared_unref(ps);
    return 0;
}

int cql_prepare(cql_session *s, const char *query, size_t len, cql_prepared **out, eng_err *err)
{
    return prepare_in(s, query, len, CLS_PREPARED, out, err);
}

int cql_prepare_simple(cql_session *s, const char *query, size_t len, cql_prepared **out,
                       eng_err *err)
{
    return prepare_in(s, query, len, CLS_SIMPLE, out, err);
}

/* 1 if a schema change altered what the last PREPARE of p told its client (plan_shape). A
   statement that no longer analyzes is left to its execution, which says why. */
static int changed_since_prepared(cql_session *s, cql_prepared *p)
{
    cql_plan *plan = NULL;
    eng_err ignored;
    eng_err_clear(&ignored);
    if (cql_plan_for(p, s->db, &plan, &ignored))
        return 0;
    uint64_t now = plan->shape;
    plan_unref(plan);
    pthread_mutex_lock(&p->lock);
    int changed = p->shape && now && p->shape != now;
    pthread_mutex_unlock(&p->lock);
    return changed;
}

/* Takes p out of c, if it is still there. */
static void cache_forget(cql_cache *c, cql_prepared *p)
{
    pthread_mutex_lock(&c->lock);
    if (atomic_load(&p->cache) == c)
        cache_remove(c, p);
    pthread_mutex_unlock(&c->lock);
}

int cql_prepared_lookup(cql_session *s, const uint8_t *id, size_t len, cql_prepared **out,
                        eng_err *err)
{
    *out = NULL;
    cql_prepared *p = len == 16 ? cache_lookup(s->cache, id, 0) : NULL;
    if (p && changed_since_prepared(s, p)) { /* dropped, as Cassandra drops it */
        cache_forget(s->cache, p);
        cql_prepared_unref(p);
        p = NULL;
    }
    if (!p) {
        /* ExecuteMessage.execute's text, the id in hex as Cassandra's ByteBufferUtil.bytesToHex. */
        char hex[2 * 64 + 1];
        size_t n = len < 64 ? len : 64;
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", id[i]);
        hex[2 * n] = 0;
        return eng_errorf(err, ENG_E_UNPREPARED,
                          "Prepared query with ID %s not found (either the query was not prepared "
                          "on this host (maybe the host has been restarted?) or you have prepared "
                          "too many queries and it has been evicted from the internal cache)",
                          hex);
    }
    *out = p;
    return 0;
}

int cql_prepared_describe(cql_session *s, cql_prepared *p, cql_result **out, eng_err *err)
{
    *out = NULL;
    cql_plan *plan;
    int rc = cql_plan_for(p, s->db, &plan, err);
    if (rc)
        return rc;
    cql_result *r = cql_result_new(CQL_RESULT_PREPARED);
    if (!r) {
        plan_unref(plan);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement");
    }
    cql_result_hold_plan(r, plan); /* the specs point into it */
    r->prepared_id.p = eng_arena_memdup(&r->arena, p->id, 16);
    r->prepared_id.len = 16;
    r->n_binds = plan->n_binds;
    r->binds = plan->binds;
    r->n_pk_binds = plan->n_pk_binds;
    r->pk_binds = plan->pk_binds;
    if (!r->prepared_id.p || cql_result_set_columns(r, plan->cols, plan->n_cols)) {
        cql_result_free(r);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory preparing a statement");
    }
    *out = r;
    return 0;
}

/* ---- configuration and statistics ---- */

int cql_cache_set_capacity(eng_db *db, size_t bytes)
{
    cql_cache *c = cache_of(db);
    if (!c)
        return ENG_E_NOMEM;
    pthread_mutex_lock(&c->lock);
    c->cls[CLS_PREPARED].cap = bytes ? bytes : CQL_CACHE_DEFAULT_BYTES;
    cache_trim(c, CLS_PREPARED, NULL);
    pthread_mutex_unlock(&c->lock);
    return 0;
}

void cql_cache_stats(eng_db *db, cql_cache_info *out)
{
    memset(out, 0, sizeof *out);
    cql_cache *c = cache_of(db);
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    out->prepared = c->cls[CLS_PREPARED].count;
    out->prepared_bytes = c->cls[CLS_PREPARED].bytes;
    out->prepared_capacity = c->cls[CLS_PREPARED].cap;
    out->simple = c->cls[CLS_SIMPLE].count;
    out->simple_bytes = c->cls[CLS_SIMPLE].bytes;
    out->simple_capacity = c->cls[CLS_SIMPLE].cap;
    out->evictions = c->evictions;
    pthread_mutex_unlock(&c->lock);
}
