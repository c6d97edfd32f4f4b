/*
 * Memory stays bounded under schema churn: a schema snapshot costs memory in
 * proportion to the schema, not to the product of its nesting (a user type
 * used by a column or a field is shared, not copied per use), a schema
 * change shares with the previous snapshot every user type it does not
 * change, and the statement cache keeps no old snapshot alive through the
 * plans of statements only it holds (cql/exec/prepared.c). Memory is
 * counted through the engine's allocator hook (eng_alloc_set).
 */
#include <malloc.h>
#include <stdatomic.h>

#include "cql/cql.h"
#include "exec_env.h"
#include "harness.h"

/* ---- counting every allocation of the engine ---- */

static _Atomic long long live_bytes, peak_bytes;

static void count(long long delta)
{
    long long now = atomic_fetch_add(&live_bytes, delta) + delta;
    long long peak = atomic_load(&peak_bytes);
    while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now))
        ;
}

static void *counted_malloc(size_t n)
{
    void *p = malloc(n);
    if (p)
        count((long long)malloc_usable_size(p));
    return p;
}

static void *counted_realloc(void *p, size_t n)
{
    long long before = p ? (long long)malloc_usable_size(p) : 0;
    void *q = realloc(p, n);
    if (q)
        count((long long)malloc_usable_size(q) - before);
    return q;
}

static void counted_free(void *p)
{
    if (p)
        count(-(long long)malloc_usable_size(p));
    free(p);
}

/* From here on every engine allocation is counted (each test runs in a process of its own). */
static void count_allocations(void)
{
    eng_alloc_set(counted_malloc, counted_realloc, counted_free);
}

#define MB (1024LL * 1024)

/* ---- a database and a session ---- */


static void runf(env *e, const char *fmt, int a, int b)
{
    char q[256];
    snprintf(q, sizeof q, fmt, a, b);
    env_run(e, q);
}

static cql_prepared *prepare(env *e, const char *cql)
{
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p = NULL;
    ASSERT_OK_ERR(cql_prepare(e->s, cql, strlen(cql), &p, &err), &err);
    return p;
}

static eng_schema *current(env *e)
{
    eng_err err;
    eng_err_clear(&err);
    eng_schema *s = NULL;
    ASSERT_OK_ERR(eng_db_schema(e->db, &s, &err), &err);
    return s;
}

static void keyspace(env *e)
{
    env_run(e, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    env_run(e, "USE ks");
}

/*
 * t1 (a int), t2 (a frozen<t1>), ... tn (a frozen<t(n-1)>), and table t (k int PRIMARY KEY,
 * v frozen<tn>). Fails as soon as the engine holds more than `bound` bytes.
 */
static void nested_chain(env *e, int n, long long bound)
{
    env_run(e, "CREATE TYPE t1 (a int)");
    for (int i = 2; i <= n; i++) {
        runf(e, "CREATE TYPE t%d (a frozen<t%d>)", i, i - 1);
        if (atomic_load(&live_bytes) > bound)
            test_fail(__FILE__, __LINE__, "%lld MB live after %d nested types",
                      atomic_load(&live_bytes) / MB, i);
    }
    runf(e, "CREATE TABLE t (k int PRIMARY KEY, v frozen<t%d>)", n, 0);
}

/* ---- the rule ---- */

TEST(memory_stays_bounded_preparing_across_schema_changes_with_1000_nested_types)
{
    /* Before snapshots shared their user types, 400 nested types peaked at 2.2 GB and 1,000
       ran out of memory: every snapshot copied each type into every type using it (n^2/2
       nodes), and every cached plan kept its own snapshot alive. */
    const long long bound = 64 * MB;
    count_allocations();
    env e;
    env_open(&e);
    keyspace(&e);
    nested_chain(&e, 1000, bound);
    for (int i = 0; i < 300; i++) {
        /* schema changes of every kind: a new table, a new column, and the type at the bottom
           of the chain, which every other type and the table's column use */
        if (i % 3 == 0)
            runf(&e, "CREATE TABLE x%d (k int PRIMARY KEY, v frozen<t%d>)", i, 1 + i % 1000);
        else if (i % 3 == 1)
            runf(&e, "ALTER TABLE t ADD c%d int", i, 0);
        else
            runf(&e, "ALTER TYPE t1 ADD f%d int", i, 0);
        char q[96];
        snprintf(q, sizeof q, "SELECT v FROM t WHERE k = %d", i);
        cql_prepared_unref(prepare(&e, q));
        cql_prepared_unref(prepare(&e, "SELECT v FROM t WHERE k = ?"));
        if (atomic_load(&live_bytes) > bound)
            test_fail(__FILE__, __LINE__, "%lld MB live after %d schema changes",
                      atomic_load(&live_bytes) / MB, i + 1);
    }
    long long peak = atomic_load(&peak_bytes);
    if (peak > bound)
        test_fail(__FILE__, __LINE__, "peak %lld MB, bound %lld MB", peak / MB, bound / MB);
    env_close(&e);
}

/* ---- its mechanisms ---- */

TEST(a_schema_change_shares_every_user_type_it_does_not_change)
{
    env e;
    env_open(&e);
    keyspace(&e);
    nested_chain(&e, 50, 1LL << 62);
    eng_schema *before = current(&e);
    env_run(&e, "CREATE TABLE other (k int PRIMARY KEY)");
    eng_schema *after = current(&e);
    ASSERT(after != before);
    for (int i = 1; i <= 50; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        ASSERT(eng_schema_udt(after, "ks", name) == eng_schema_udt(before, "ks", name));
    }
    /* the table's column is one node over the definition, whichever snapshot holds it */
    const eng_type *v = eng_table_column(eng_schema_table(after, "ks", "t"), "v")->type;
    ASSERT(v->base == eng_schema_udt(after, "ks", "t50"));
    eng_schema_unref(before);
    eng_schema_unref(after);
    env_close(&e);
}

TEST(altering_a_nested_type_rebuilds_every_type_that_uses_it)
{
    env e;
    env_open(&e);
    keyspace(&e);
    nested_chain(&e, 3, 1LL << 62);
    env_run(&e, "CREATE TYPE lone (x int)");
    eng_schema *before = current(&e);
    env_run(&e, "ALTER TYPE t1 ADD b text");
    eng_schema *after = current(&e);
    for (int i = 1; i <= 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        ASSERT(eng_schema_udt(after, "ks", name) != eng_schema_udt(before, "ks", name));
    }
    ASSERT(eng_schema_udt(after, "ks", "lone") == eng_schema_udt(before, "ks", "lone"));
    /* t.v -> t3.a -> t2.a -> t1, which has the new field in the new snapshot only */
    const eng_type *v = eng_table_column(eng_schema_table(after, "ks", "t"), "v")->type;
    ASSERT_EQ(v->sub[0]->sub[0]->n_sub, 2);
    ASSERT_STR_EQ(v->sub[0]->sub[0]->fields[1], "b");
    v = eng_table_column(eng_schema_table(before, "ks", "t"), "v")->type;
    ASSERT_EQ(v->sub[0]->sub[0]->n_sub, 1);
    eng_schema_unref(before);
    eng_schema_unref(after);
    /* and values of the new shape are written and read through all three levels */
    env_run(&e, "INSERT INTO t (k, v) VALUES (1, {a: {a: {a: 7, b: 'new'}}})");
    eng_err err;
    eng_err_clear(&err);
    cql_result *r = NULL;
    const char *q = "SELECT v FROM t WHERE k = 1";
    ASSERT_OK_ERR(cql_query(e.s, q, strlen(q), NULL, &r, &err), &err);
    ASSERT_EQ(r->n_rows, 1);
    cql_result_free(r);
    env_close(&e);
}

TEST(a_cached_plan_does_not_keep_an_old_snapshot_alive)
{
    env e;
    env_open(&e);
    keyspace(&e);
    env_run(&e, "CREATE TABLE t (k int PRIMARY KEY, v int)");
    cql_prepared_unref(prepare(&e, "SELECT v FROM t WHERE k = ?")); /* only the cache holds it */
    eng_schema *old = current(&e);
    ASSERT(atomic_load(&old->refs) > 2); /* ours, the database's, the cached plans' */
    env_run(&e, "ALTER TABLE t ADD w int");
    cql_prepared_unref(prepare(&e, "SELECT w FROM t WHERE k = ?")); /* sees the change */
    ASSERT_EQ(atomic_load(&old->refs), 1); /* ours alone */
    eng_schema_unref(old);
    env_close(&e);
}

TEST(a_statement_still_held_keeps_its_plan_until_executed_again)
{
    env e;
    env_open(&e);
    keyspace(&e);
    env_run(&e, "CREATE TABLE t (k int PRIMARY KEY, v int)");
    cql_prepared *held = prepare(&e, "SELECT v FROM t WHERE k = ?");
    const cql_column_spec *spec = cql_prepared_bind(held, 0);
    env_run(&e, "ALTER TABLE t ADD w int");
    cql_prepared_unref(prepare(&e, "SELECT w FROM t WHERE k = ?"));
    /* cql.h: the specs stay valid until the statement is analyzed again */
    ASSERT(cql_prepared_bind(held, 0) == spec);
    ASSERT_STR_EQ(spec->name, "k");
    eng_err err;
    eng_err_clear(&err);
    eng_val k = {(const uint8_t *)"\0\0\0\1", 4};
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = &k;
    o.n_values = 1;
    cql_result *r = NULL;
    ASSERT_OK_ERR(cql_execute(e.s, held, &o, &r, &err), &err);
    cql_result_free(r);
    cql_prepared_unref(held);
    env_close(&e);
}
