/*
 * Types nest at most ENG_MAX_TYPE_DEPTH levels (engine/value/types.h: not a
 * Cassandra limit, a bound on the stack every walk over a type or a value
 * takes), and every level up to it works: a value nested 1,000 user types
 * deep is validated, stored, read, written and read as JSON, and its column
 * dropped with a record the catalog reads back. A schema change that would
 * nest deeper is refused, naming what would. A type that uses another twice
 * per level is as cheap as its declarations, except written out: dropping a
 * column of one is refused rather than recorded exponentially large.
 */
#include <malloc.h>
#include <stdatomic.h>

#include "cql/cql.h"
#include "exec_env.h"
#include "harness.h"

/* The fixture, with keyspace ks in use. */
static void env_open_ks(env *e)
{
    env_open(e);
    env_run(e, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
               "'replication_factor': 1}");
    env_run(e, "USE ks");
}

/* Runs cql; its result (NULL when out is NULL) and 0, or the error in *err. */
static int query(env *e, const char *cql, cql_result **out, eng_err *err)
{
    eng_err_clear(err);
    return cql_query(e->s, cql, strlen(cql), NULL, out, err);
}

static void run(env *e, const char *cql)
{
    eng_err err;
    ASSERT_OK_ERR(query(e, cql, NULL, &err), &err);
}

static void runf(env *e, const char *fmt, int a, int b)
{
    char q[256];
    snprintf(q, sizeof q, fmt, a, b);
    run(e, q);
}

/* cql fails with exactly msg. */
static void refused(env *e, const char *cql, const char *msg)
{
    eng_err err;
    ASSERT_EQ(query(e, cql, NULL, &err), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, msg);
}

/* The single cell of a one-row, one-column result of cql, copied into buf (len returned). */
static size_t cell(env *e, const char *cql, uint8_t *buf, size_t cap)
{
    eng_err err;
    cql_result *r = NULL;
    ASSERT_OK_ERR(query(e, cql, &r, &err), &err);
    ASSERT_EQ(r->n_rows, 1);
    ASSERT_EQ(r->n_cols, 1);
    ASSERT(r->cells[0].len >= 0 && (size_t)r->cells[0].len <= cap);
    size_t n = (size_t)r->cells[0].len;
    memcpy(buf, r->cells[0].p, n);
    cql_result_free(r);
    return n;
}

/* t1 (a int), t2 (a frozen<t1>), ..., tn (a frozen<t(n-1)>). */
static void chain(env *e, int n)
{
    run(e, "CREATE TYPE t1 (a int)");
    for (int i = 2; i <= n; i++)
        runf(e, "CREATE TYPE t%d (a frozen<t%d>)", i, i - 1);
}

/* The value of tn whose innermost int is 42: n user type bodies of one field each. */
static uint8_t *nested_value(int n, size_t *len)
{
    *len = 4 + 4 * (size_t)n;
    uint8_t *v = malloc(*len);
    ASSERT(v != NULL);
    for (int i = 0; i < n; i++) {
        uint32_t l = (uint32_t)(*len - 4 * (size_t)(i + 1)); /* the length of what follows */
        v[4 * i] = (uint8_t)(l >> 24);
        v[4 * i + 1] = (uint8_t)(l >> 16);
        v[4 * i + 2] = (uint8_t)(l >> 8);
        v[4 * i + 3] = (uint8_t)l;
    }
    memcpy(v + *len - 4, "\0\0\0\x2a", 4);
    return v;
}

TEST(a_value_nested_1000_user_types_deep_is_stored_read_and_its_column_dropped)
{
    enum { N = 1000 };
    env e;
    env_open_ks(&e);
    chain(&e, N);
    runf(&e, "CREATE TABLE t (k int PRIMARY KEY, v frozen<t%d>, w int)", N, 0);

    /* bound, validated, stored and read back as it was */
    size_t len;
    uint8_t *v = nested_value(N, &len);
    eng_err err;
    eng_err_clear(&err);
    const char *ins = "INSERT INTO t (k, v) VALUES (1, ?)";
    cql_prepared *p = NULL;
    ASSERT_OK_ERR(cql_prepare(e.s, ins, strlen(ins), &p, &err), &err);
    eng_val val = {v, (int32_t)len};
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = &val;
    o.n_values = 1;
    ASSERT_OK_ERR(cql_execute(e.s, p, &o, NULL, &err), &err);
    cql_prepared_unref(p);
    static uint8_t back[64 * 1024];
    ASSERT_EQ(cell(&e, "SELECT v FROM t WHERE k = 1", back, sizeof back), len);
    ASSERT_MEM_EQ(back, v, len);

    /* as JSON, both ways: {"a": {"a": ... {"a": 42} ... }} */
    size_t jn = cell(&e, "SELECT toJson(v) FROM t WHERE k = 1", back, sizeof back);
    ASSERT_EQ(jn, (size_t)N * 7 + 2); /* {"a":  and } per level, and 42 */
    ASSERT_MEM_EQ(back, "{\"a\": {\"a\": ", 12);
    ASSERT_MEM_EQ(back + jn - N - 2, "42}}", 4);
    ASSERT_EQ(back[jn - 1], '}');
    static char q[64 * 1024];
    snprintf(q, sizeof q, "INSERT INTO t JSON '{\"k\": 2, \"v\": %.*s}'", (int)jn, (char *)back);
    run(&e, q);
    ASSERT_EQ(cell(&e, "SELECT v FROM t WHERE k = 2", back, sizeof back), len);
    ASSERT_MEM_EQ(back, v, len);
    free(v);

    /* dropped: the record keeps the type written out, 1,001 levels of tuples, and reads back */
    run(&e, "ALTER TABLE t DROP v");
    run(&e, "INSERT INTO t (k, w) VALUES (3, 3)");
    ASSERT_EQ(cell(&e, "SELECT w FROM t WHERE k = 3", back, sizeof back), 4);
    ASSERT_EQ(cell(&e, "SELECT column_name FROM system_schema.dropped_columns WHERE "
                       "keyspace_name = 'ks' AND table_name = 't'",
                   back, sizeof back),
              1);
    env_close(&e);
}

/*
 * u1 (a int) has 2 levels; u(k) (a tuple<... 92 tuples ... frozen<u(k-1)>>) 93 more: u23 has
 * 2 + 22 * 93 = 2,048 levels, the most a type may have.
 */
static void deepest_types(env *e)
{
    run(e, "CREATE TYPE u1 (a int)");
    for (int k = 2; k <= 23; k++) {
        char q[2048];
        int n = snprintf(q, sizeof q, "CREATE TYPE u%d (a ", k);
        for (int i = 0; i < 92; i++)
            n += snprintf(q + n, sizeof q - (size_t)n, "tuple<");
        n += snprintf(q + n, sizeof q - (size_t)n, "frozen<u%d>", k - 1);
        for (int i = 0; i < 92; i++)
            n += snprintf(q + n, sizeof q - (size_t)n, ">");
        snprintf(q + n, sizeof q - (size_t)n, ")");
        run(e, q);
    }
}

/* The JSON of a value of u(k) whose innermost int is 7: {"a": [[...[{"a": ...}]...]]}. */
static size_t deepest_json(char *out, size_t cap, int k)
{
    size_t n = 0;
    for (int level = k; level > 1; level--) {
        n += (size_t)snprintf(out + n, cap - n, "{\"a\": ");
        for (int i = 0; i < 92; i++)
            out[n++] = '[';
    }
    n += (size_t)snprintf(out + n, cap - n, "{\"a\": 7}");
    for (int level = k; level > 1; level--) {
        for (int i = 0; i < 92; i++)
            out[n++] = ']';
        out[n++] = '}';
    }
    out[n] = 0;
    ASSERT(n < cap);
    return n;
}

TEST(a_type_nesting_deeper_than_the_limit_is_refused_naming_what_would)
{
    ASSERT_EQ(ENG_MAX_TYPE_DEPTH, 2048);
    env e;
    env_open_ks(&e);
    deepest_types(&e);
    run(&e, "CREATE TABLE t (k int PRIMARY KEY, v frozen<u23>)");
    /* a value of the deepest type, in and out as JSON (a row object around it: one more level) */
    static char json[8192], q[8192 + 64];
    static uint8_t back[8192];
    size_t jn = deepest_json(json, sizeof json, 23);
    snprintf(q, sizeof q, "INSERT INTO t JSON '{\"k\": 1, \"v\": %s}'", json);
    run(&e, q);
    ASSERT_EQ(cell(&e, "SELECT toJson(v) FROM t WHERE k = 1", back, sizeof back), jn);
    ASSERT_MEM_EQ(back, json, jn);
    refused(&e, "CREATE TYPE u24 (a frozen<u23>)",
            "User type ks.u24 would nest 2049 levels of types, more than the 2048 supported");
    refused(&e, "CREATE TABLE t2 (k int PRIMARY KEY, v list<frozen<u23>>)",
            "Column v would nest 2049 levels of types, more than the 2048 supported");
    refused(&e, "ALTER TABLE t ADD w list<frozen<u23>>",
            "Column w would nest 2049 levels of types, more than the 2048 supported");
    /* u1 one level deeper makes every type and column using it one deeper */
    refused(&e, "ALTER TYPE u1 ADD b frozen<tuple<int>>",
            "User type ks.u23 would nest 2049 levels of types, more than the 2048 supported");
    run(&e, "ALTER TYPE u1 ADD b int"); /* no deeper */
    /* the deepest column is dropped with a record the catalog reads back */
    run(&e, "ALTER TABLE t DROP v");
    run(&e, "INSERT INTO t (k) VALUES (1)");
    env_close(&e);
}

/* d1 (a int, b int), d(k) (a frozen<d(k-1)>, b frozen<d(k-1)>): written out, d(k) has 2^k ints
   and 2^(k+1) - 1 descriptors. */
static void doubling_types(env *e, int n)
{
    run(e, "CREATE TYPE d1 (a int, b int)");
    for (int i = 2; i <= n; i++) {
        char q[128];
        snprintf(q, sizeof q, "CREATE TYPE d%d (a frozen<d%d>, b frozen<d%d>)", i, i - 1, i - 1);
        run(e, q);
    }
}

TEST(a_type_using_another_twice_per_level_costs_what_its_declarations_do)
{
    /* 40 levels: 2^40 ints written out. Any walk of it written out would not end within the
       test's time, any copy of it not within memory. */
    env e;
    env_open_ks(&e);
    doubling_types(&e, 40);
    run(&e, "CREATE TABLE t (k int, c frozen<d40>, v frozen<d40>, PRIMARY KEY (k, c))");
    run(&e, "INSERT INTO t (k, c, v) VALUES (1, {a: null, b: null}, {a: {a: null, b: null}})");
    uint8_t back[64];
    ASSERT_EQ(cell(&e, "SELECT c FROM t WHERE k = 1", back, sizeof back), 8);
    run(&e, "CREATE TYPE lone (x int)");
    run(&e, "DROP TYPE lone"); /* looks for users among all the types */
    refused(&e, "DROP TYPE d1",
            "Cannot drop user type 'ks.d1' as it is still used by user types d10, d11, d12, d13, "
            "d14, d15, d16, d17, d18, d19, d2, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, "
            "d3, d30, d31, d32, d33, d34, d35, d36, d37, d38, d39, d4, d40, d5, d6, d7, d8, d9");
    run(&e, "ALTER TYPE d1 ADD x frozen<tuple<int>>"); /* one level deeper, through every use */
    /* the one thing written out: a dropped column's record */
    refused(&e, "ALTER TABLE t DROP v",
            "Cannot drop column v: with its user types written out, as a dropped column is "
            "recorded, its type has over 4294967294 components, more than the 65536 a record "
            "keeps");
    env_close(&e);
}

TEST(a_column_of_a_type_doubling_per_level_is_dropped_while_its_record_stays_small)
{
    env e;
    env_open_ks(&e);
    doubling_types(&e, 16);
    run(&e, "CREATE TABLE t (k int PRIMARY KEY, v frozen<d15>, w frozen<d16>)");
    run(&e, "ALTER TABLE t DROP v"); /* 65,535 descriptors written out */
    run(&e, "INSERT INTO t (k) VALUES (1)");
    refused(&e, "ALTER TABLE t DROP w",
            "Cannot drop column w: with its user types written out, as a dropped column is "
            "recorded, its type has 131071 components, more than the 65536 a record keeps");
    env_close(&e);
}
