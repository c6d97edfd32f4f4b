/*
 * The executor API (cql/cql.h) as the driver layer uses it: statements
 * prepared once with typed bind markers, executed with values in
 * native-protocol serialization, paged, conditional, batched, and followed
 * across schema changes. Every test runs on a fresh temporary database.
 *
 * Expectations are Cassandra 4.1's: marker names and types from
 * cql3/VariableSpecifications, Attributes, AbstractMarker, Lists/Sets/Maps
 * and TokenRelation (facts §2.6); value encodings and MarshalException texts
 * (facts §2.1-§2.5); LWT result shapes from
 * ModificationStatement.buildCasResultSet (facts §5.3, §5.4); batch rules
 * from BatchStatement.validate and BatchMessage (facts §5.4, §6); paging
 * from service/pager (facts §7.8); error codes and texts (facts §8).
 * Results are compared as native bytes, or as cqlsh renders them
 * (tests/render_cqlsh.c) joined with '|' per row and '\n' between rows.
 */
#include <pthread.h>
#include <time.h>

#include "cql/cql.h"
#include "exec_env.h"
#include "harness.h"
#include "render_cqlsh.h"

/* ---- a database, a session, and a keyspace ---- */


/* ---- bound values, native serialization, in a fixed buffer ---- */

typedef struct vals {
    eng_val v[64];
    uint32_t n;
    uint8_t buf[32768];
    size_t used;
} vals;

static void v_reset(vals *b)
{
    b->n = 0;
    b->used = 0;
}

static void v_raw(vals *b, const void *p, int32_t len)
{
    ASSERT(b->n < 64);
    eng_val *v = &b->v[b->n++];
    v->len = len;
    v->p = NULL;
    if (len >= 0) {
        ASSERT(b->used + (size_t)len <= sizeof b->buf);
        v->p = b->buf + b->used;
        if (len)
            memcpy(b->buf + b->used, p, (size_t)len);
        b->used += (size_t)len;
    }
}

static void v_int(vals *b, int32_t x)
{
    uint8_t p[4];
    eng_put_be32(p, (uint32_t)x);
    v_raw(b, p, 4);
}

static void v_bigint(vals *b, int64_t x)
{
    uint8_t p[8];
    eng_put_be64(p, (uint64_t)x);
    v_raw(b, p, 8);
}

static void v_text(vals *b, const char *s)
{
    v_raw(b, s, (int32_t)strlen(s));
}
static void v_null(vals *b)
{
    v_raw(b, NULL, ENG_NULL);
}
static void v_unset(vals *b)
{
    v_raw(b, NULL, ENG_UNSET);
}

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (const char *c = hex; *c; c++) {
        int d = *c >= '0' && *c <= '9'   ? *c - '0'
                : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
                : *c >= 'A' && *c <= 'F' ? *c - 'A' + 10
                                         : -1;
        if (d < 0)
            continue; /* spaces and dashes separate groups */
        if (hi < 0) {
            hi = d;
        } else {
            ASSERT(n < cap);
            out[n++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    ASSERT(hi < 0);
    return n;
}

/* A value written in hex; spaces and dashes are ignored ("00000001 61", a uuid). */
static void v_hex(vals *b, const char *hex)
{
    uint8_t p[4096];
    v_raw(b, p, (int32_t)unhex(hex, p, sizeof p));
}

/* ---- running statements ---- */

static void check_rc(int line, const char *what, int rc, const eng_err *err)
{
    if (rc)
        test_fail(__FILE__, line, "%s: 0x%x %s", what, rc, err->msg);
}

static cql_result *query_at(int line, env *e, const char *cql)
{
    eng_err err;
    eng_err_clear(&err);
    cql_result *r = NULL;
    check_rc(line, cql, cql_query(e->s, cql, strlen(cql), NULL, &r, &err), &err);
    if (!r)
        test_fail(__FILE__, line, "%s: no result", cql);
    return r;
}

static void ok_at(int line, env *e, const char *cql)
{
    cql_result_free(query_at(line, e, cql));
}

static cql_prepared *prep_at(int line, env *e, const char *cql)
{
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p = NULL;
    check_rc(line, cql, cql_prepare(e->s, cql, strlen(cql), &p, &err), &err);
    return p;
}

static cql_result *exec_at(int line, env *e, cql_prepared *p, const vals *b)
{
    eng_err err;
    eng_err_clear(&err);
    cql_exec_options o;
    cql_exec_options_init(&o);
    if (b) {
        o.values = b->v;
        o.n_values = b->n;
    }
    cql_result *r = NULL;
    check_rc(line, cql_prepared_query(p), cql_execute(e->s, p, &o, &r, &err), &err);
    return r;
}

/* Fails unless rc is an error with this code and this message. */
static void expect_err_at(int line, int rc, const eng_err *err, int code, const char *msg)
{
    if (rc == 0)
        test_fail(__FILE__, line, "succeeded; want 0x%x \"%s\"", code, msg);
    if (rc != code || err->code != code)
        test_fail(__FILE__, line, "code 0x%x (err 0x%x \"%s\"), want 0x%x", rc, err->code, err->msg,
                  code);
    if (msg && strcmp(err->msg, msg) != 0)
        test_fail(__FILE__, line, "message \"%s\", want \"%s\"", err->msg, msg);
}

static void query_err_at(int line, env *e, const char *cql, int code, const char *msg)
{
    eng_err err;
    eng_err_clear(&err);
    cql_result *r = NULL;
    int rc = cql_query(e->s, cql, strlen(cql), NULL, &r, &err);
    if (r)
        test_fail(__FILE__, line, "%s: a result on error", cql);
    expect_err_at(line, rc, &err, code, msg);
}

static void exec_err_at(int line, env *e, cql_prepared *p, const vals *b, int code, const char *msg)
{
    eng_err err;
    eng_err_clear(&err);
    cql_exec_options o;
    cql_exec_options_init(&o);
    if (b) {
        o.values = b->v;
        o.n_values = b->n;
    }
    cql_result *r = NULL;
    int rc = cql_execute(e->s, p, &o, &r, &err);
    if (r)
        test_fail(__FILE__, line, "a result on error");
    expect_err_at(line, rc, &err, code, msg);
}

#define QUERY(e, cql) query_at(__LINE__, e, cql)
#define OK(e, cql) ok_at(__LINE__, e, cql)
#define PREP(e, cql) prep_at(__LINE__, e, cql)
#define EXEC(e, p, b) exec_at(__LINE__, e, p, b)
#define QUERY_ERR(e, cql, code, msg) query_err_at(__LINE__, e, cql, code, msg)
#define EXEC_ERR(e, p, b, code, msg) exec_err_at(__LINE__, e, p, b, code, msg)

/* ---- reading results ---- */

static eng_val cell(const cql_result *r, uint32_t row, uint32_t col)
{
    ASSERT(r->kind == CQL_RESULT_ROWS);
    ASSERT(row < r->n_rows && col < r->n_cols);
    return r->cells[(size_t)row * r->n_cols + col];
}

/* The rows as cqlsh prints the values: '|' between cells, '\n' between rows. */
static const char *rows_text(const cql_result *r)
{
    static char ring[4][65536];
    static int next;
    char *out = ring[next++ % 4];
    eng_buf b = ENG_BUF_INIT;
    ASSERT(r->kind == CQL_RESULT_ROWS);
    for (uint32_t i = 0; i < r->n_rows; i++) {
        if (i)
            eng_buf_put_str(&b, "\n");
        for (uint32_t j = 0; j < r->n_cols; j++) {
            eng_val v = r->cells[(size_t)i * r->n_cols + j];
            if (j)
                eng_buf_put_str(&b, "|");
            if (v.len < 0)
                eng_buf_put_str(&b, "null");
            else
                test_render_cqlsh(r->cols[j].type, v.p, (size_t)v.len, 0, &b);
        }
    }
    ASSERT(!b.oom && b.len < sizeof ring[0]);
    if (b.len)
        memcpy(out, b.p, b.len);
    out[b.len] = 0;
    eng_buf_free(&b);
    return out;
}

/* Column names joined with ','. */
static const char *col_names(const cql_result *r)
{
    static char out[4][1024];
    static int next;
    char *o = out[next++ % 4];
    o[0] = 0;
    for (uint32_t i = 0; i < r->n_cols; i++) {
        ASSERT(strlen(o) + strlen(r->cols[i].name) + 2 < sizeof out[0]);
        if (i)
            strcat(o, ",");
        strcat(o, r->cols[i].name);
    }
    return o;
}

/* A type as Cassandra writes it ("int", "list<int>", "frozen<tuple<int, text>>"). */
static const char *type_text(const eng_type *t)
{
    static char out[4][256];
    static int next;
    char *o = out[next++ % 4];
    ASSERT(t != NULL);
    eng_buf b = ENG_BUF_INIT;
    eng_type_to_cql(t, &b);
    ASSERT(!b.oom && b.len < sizeof out[0]);
    memcpy(o, b.p, b.len);
    o[b.len] = 0;
    eng_buf_free(&b);
    return o;
}

/* "name type" of marker i, with its keyspace and table checked. */
static const char *marker(const cql_prepared *p, uint32_t i, const char *ks, const char *table)
{
    static char out[4][512];
    static int next;
    const cql_column_spec *s = cql_prepared_bind(p, i);
    ASSERT(s != NULL);
    ASSERT_STR_EQ(s->ks, ks);
    ASSERT_STR_EQ(s->table, table);
    char *o = out[next++ % 4];
    snprintf(o, sizeof out[0], "%s %s", s->name, type_text(s->type));
    return o;
}

static int64_t be64_of(eng_val v)
{
    ASSERT(v.len == 8);
    return (int64_t)eng_be64(v.p);
}

static int32_t be32_of(eng_val v)
{
    ASSERT(v.len == 4);
    return (int32_t)eng_be32(v.p);
}

static int64_t count_rows(env *e, const char *cql)
{
    cql_result *r = QUERY(e, cql);
    ASSERT_EQ(r->n_rows, 1);
    int64_t n = be64_of(cell(r, 0, 0));
    cql_result_free(r);
    return n;
}

/* ks with t (k int, c int, v text, PK (k, c)) and kv (k int PK, v int, w int). */
static void setup(env *e)
{
    env_open(e);
    OK(e, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
          "'replication_factor': 1}");
    OK(e, "USE ks");
    OK(e, "CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))");
    OK(e, "CREATE TABLE kv (k int PRIMARY KEY, v int, w int)");
}

/* ==== prepare: the query text ==== */

/* Cassandra decodes a query string strictly as UTF-8 and answers PROTOCOL_ERROR naming the bytes
   from the first malformed one (CBUtil.readString; dtest invalid_string_literals sends
   '\xc2\x01'). Found by fuzz_cql: a replication option holding such bytes reached
   system_schema as text that is not UTF-8. */
TEST(prepare_query_text_not_utf8_is_a_protocol_error)
{
    env e;
    setup(&e);
    QUERY_ERR(&e, "INSERT INTO t (k, c, v) VALUES (0, 0, '\xc2\x01')", ENG_E_PROTOCOL,
              "Cannot decode string as UTF8: 'c2012729'; "
              "java.nio.charset.MalformedInputException: Input length = 1");
    QUERY_ERR(&e, "CREATE KEYSPACE k2 WITH replication = {'class': 'Simple\xff'}", ENG_E_PROTOCOL,
              "Cannot decode string as UTF8: 'ff277d'; "
              "java.nio.charset.MalformedInputException: Input length = 1");
    cql_prepared *p = NULL;
    eng_err err;
    eng_err_clear(&err);
    const char *cut = "SELECT v FROM t WHERE k = 0 AND c = 0 -- \xe2\x82"; /* ends inside */
    ASSERT_EQ(cql_prepare(e.s, cut, strlen(cut), &p, &err), ENG_E_PROTOCOL);
    ASSERT_STR_EQ(err.msg, "Cannot decode string as UTF8: 'e282'; "
                           "java.nio.charset.MalformedInputException: Input length = 2");
    OK(&e, "INSERT INTO t (k, c, v) VALUES (0, 0, '\xc3\xa9t\xc3\xa9')");
    env_close(&e);
}

/* ==== prepare: bind markers ==== */

TEST(prepare_insert_markers_are_named_after_their_columns)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)");
    ASSERT_EQ(cql_prepared_bind_count(p), 3);
    ASSERT_STR_EQ(marker(p, 0, "ks", "t"), "k int");
    ASSERT_STR_EQ(marker(p, 1, "ks", "t"), "c int");
    ASSERT_STR_EQ(marker(p, 2, "ks", "t"), "v text");
    ASSERT(cql_prepared_bind(p, 3) == NULL);
    /* Routing metadata: the partition key k is marker 0. */
    ASSERT_EQ(cql_prepared_pk_count(p), 1);
    ASSERT_EQ(cql_prepared_pk_index(p, 0), 0);
    ASSERT_EQ(cql_prepared_is_write(p), 1);
    ASSERT_EQ(cql_prepared_column_count(p), 0);
    ASSERT_STR_EQ(cql_prepared_query(p), "INSERT INTO t (k, c, v) VALUES (?, ?, ?)");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_named_markers_keep_their_own_names)
{
    env e;
    setup(&e);
    /* VariableSpecifications.add: a named marker's spec takes the marker's name. */
    cql_prepared *p = PREP(&e, "INSERT INTO t (k, c, v) VALUES (:key, :ck, :val)");
    ASSERT_EQ(cql_prepared_bind_count(p), 3);
    ASSERT_STR_EQ(marker(p, 0, "ks", "t"), "key int");
    ASSERT_STR_EQ(marker(p, 1, "ks", "t"), "ck int");
    ASSERT_STR_EQ(marker(p, 2, "ks", "t"), "val text");
    ASSERT_EQ(cql_prepared_bind_index(p, "ck", 2), 1);
    ASSERT_EQ(cql_prepared_bind_index(p, "val", 3), 2);
    ASSERT_EQ(cql_prepared_bind_index(p, "v", 1), -1);
    ASSERT_EQ(cql_prepared_bind_index(p, "valx", 3), 2); /* the length given counts */
    ASSERT_EQ(cql_prepared_bind_index(p, "valx", 4), -1);
    /* Named markers still target their columns: k routes. */
    ASSERT_EQ(cql_prepared_pk_count(p), 1);
    ASSERT_EQ(cql_prepared_pk_index(p, 0), 0);
    cql_prepared_unref(p);
    /* '?' markers are found by their column name, the first one of that name. */
    p = PREP(&e, "SELECT v FROM t WHERE k = ? AND c >= ? AND c < ?");
    ASSERT_EQ(cql_prepared_bind_index(p, "c", 1), 1);
    ASSERT_EQ(cql_prepared_bind_index(p, "k", 1), 0);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_where_markers_equal_in_and_slices)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "SELECT * FROM t WHERE k = ? AND c IN ?");
    ASSERT_EQ(cql_prepared_bind_count(p), 2);
    ASSERT_STR_EQ(marker(p, 0, "ks", "t"), "k int");
    ASSERT_STR_EQ(marker(p, 1, "ks", "t"), "in(c) frozen<list<int>>"); /* frozen: not multi-cell */
    ASSERT_EQ(cql_prepared_bind_index(p, "in(c)", 5), 1);
    ASSERT_EQ(cql_prepared_is_write(p), 0);
    cql_prepared_unref(p);

    p = PREP(&e, "SELECT * FROM t WHERE k IN ? AND c > ? AND c <= ?");
    ASSERT_EQ(cql_prepared_bind_count(p), 3);
    ASSERT_STR_EQ(marker(p, 0, "ks", "t"), "in(k) frozen<list<int>>");
    ASSERT_STR_EQ(marker(p, 1, "ks", "t"), "c int");
    ASSERT_STR_EQ(marker(p, 2, "ks", "t"), "c int");
    /* in(k) is not the column itself: no routing key (getPartitionKeyBindVariableIndexes). */
    ASSERT_EQ(cql_prepared_pk_count(p), 0);
    cql_prepared_unref(p);

    p = PREP(&e, "DELETE FROM t WHERE k = ? AND c IN (?, ?)");
    ASSERT_EQ(cql_prepared_bind_count(p), 3);
    ASSERT_STR_EQ(marker(p, 1, "ks", "t"), "c int");
    ASSERT_STR_EQ(marker(p, 2, "ks", "t"), "c int");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_composite_partition_key_routing_indexes_follow_key_order)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE c2 (a int, b text, c int, v int, PRIMARY KEY ((b, a), c))");
    cql_prepared *p = PREP(&e, "SELECT v FROM c2 WHERE a = ? AND b = ? AND c = ?");
    ASSERT_EQ(cql_prepared_pk_count(p), 2);
    ASSERT_EQ(cql_prepared_pk_index(p, 0), 1); /* b, the first key column, is marker 1 */
    ASSERT_EQ(cql_prepared_pk_index(p, 1), 0);
    cql_prepared_unref(p);
    /* A key column given as a literal: no routing metadata. */
    p = PREP(&e, "SELECT v FROM c2 WHERE a = 1 AND b = ? AND c = ?");
    ASSERT_EQ(cql_prepared_pk_count(p), 0);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_using_ttl_and_timestamp_markers)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?) USING TTL ? AND TIMESTAMP ?");
    ASSERT_EQ(cql_prepared_bind_count(p), 4);
    ASSERT_STR_EQ(marker(p, 2, "ks", "kv"), "[ttl] int");
    ASSERT_STR_EQ(marker(p, 3, "ks", "kv"), "[timestamp] bigint");
    ASSERT_EQ(cql_prepared_bind_index(p, "[timestamp]", 11), 3);
    cql_prepared_unref(p);
    /* In UPDATE the USING clause comes before SET: its markers come first. */
    p = PREP(&e, "UPDATE kv USING TIMESTAMP ? AND TTL ? SET v = ? WHERE k = ?");
    ASSERT_STR_EQ(marker(p, 0, "ks", "kv"), "[timestamp] bigint");
    ASSERT_STR_EQ(marker(p, 1, "ks", "kv"), "[ttl] int");
    ASSERT_STR_EQ(marker(p, 2, "ks", "kv"), "v int");
    ASSERT_STR_EQ(marker(p, 3, "ks", "kv"), "k int");
    ASSERT_EQ(cql_prepared_pk_count(p), 1);
    ASSERT_EQ(cql_prepared_pk_index(p, 0), 3);
    cql_prepared_unref(p);
    p = PREP(&e, "DELETE FROM kv USING TIMESTAMP ? WHERE k = ?");
    ASSERT_STR_EQ(marker(p, 0, "ks", "kv"), "[timestamp] bigint");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_limit_markers_are_int)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "SELECT * FROM t PER PARTITION LIMIT ? LIMIT ?");
    ASSERT_EQ(cql_prepared_bind_count(p), 2);
    ASSERT_STR_EQ(marker(p, 0, "ks", "t"), "[per_partition_limit] int");
    ASSERT_STR_EQ(marker(p, 1, "ks", "t"), "[limit] int");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_token_markers_are_partition_key_token_bigint)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "SELECT k FROM t WHERE token(k) > ? AND token(k) <= ?");
    ASSERT_EQ(cql_prepared_bind_count(p), 2);
    ASSERT_STR_EQ(marker(p, 0, "ks", "t"), "partition key token bigint");
    ASSERT_STR_EQ(marker(p, 1, "ks", "t"), "partition key token bigint");
    ASSERT_EQ(cql_prepared_pk_count(p), 0);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_collection_element_markers)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE coll (k int PRIMARY KEY, m map<text, int>, l list<text>, s set<int>)");
    cql_prepared *p = PREP(&e, "UPDATE coll SET m[?] = ?, l[?] = ? WHERE k = ?");
    ASSERT_EQ(cql_prepared_bind_count(p), 5);
    ASSERT_STR_EQ(marker(p, 0, "ks", "coll"), "key(m) text");
    ASSERT_STR_EQ(marker(p, 1, "ks", "coll"), "value(m) int");
    ASSERT_STR_EQ(marker(p, 2, "ks", "coll"), "idx(l) int");
    ASSERT_STR_EQ(marker(p, 3, "ks", "coll"), "value(l) text");
    ASSERT_STR_EQ(marker(p, 4, "ks", "coll"), "k int");
    cql_prepared_unref(p);
    /* Whole-collection operands are the column itself. */
    p = PREP(&e, "UPDATE coll SET s = s + ?, m = m + ?, l = ? + l WHERE k = ?");
    ASSERT_STR_EQ(marker(p, 0, "ks", "coll"), "s set<int>");
    ASSERT_STR_EQ(marker(p, 1, "ks", "coll"), "m map<text, int>");
    ASSERT_STR_EQ(marker(p, 2, "ks", "coll"), "l list<text>");
    cql_prepared_unref(p);
    p = PREP(&e, "DELETE m[?], l[?] FROM coll WHERE k = ?");
    ASSERT_STR_EQ(marker(p, 0, "ks", "coll"), "key(m) text");
    ASSERT_STR_EQ(marker(p, 1, "ks", "coll"), "idx(l) int");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_condition_markers)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE cm (k int PRIMARY KEY, v int, m map<text, int>)");
    cql_prepared *p = PREP(&e, "UPDATE cm SET v = ? WHERE k = ? IF v = ? AND m[?] = ?");
    ASSERT_EQ(cql_prepared_bind_count(p), 5);
    ASSERT_STR_EQ(marker(p, 0, "ks", "cm"), "v int");
    ASSERT_STR_EQ(marker(p, 1, "ks", "cm"), "k int");
    ASSERT_STR_EQ(marker(p, 2, "ks", "cm"), "v int");
    ASSERT_STR_EQ(marker(p, 3, "ks", "cm"), "key(m) text");
    ASSERT_STR_EQ(marker(p, 4, "ks", "cm"), "value(m) int");
    cql_prepared_unref(p);
    p = PREP(&e, "DELETE FROM cm WHERE k = ? IF v IN ?");
    ASSERT_STR_EQ(marker(p, 1, "ks", "cm"), "in(v) frozen<list<int>>");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(prepare_select_result_columns_names_and_types)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE sel (k int, c int, s int static, b text, a int, PRIMARY KEY (k, c))");
    /* SELECT *: partition key, clustering, statics, then regulars alphabetically (facts §7.2). */
    cql_prepared *p = PREP(&e, "SELECT * FROM sel");
    ASSERT_EQ(cql_prepared_column_count(p), 5);
    const char *want[] = {"k int", "c int", "s int", "a int", "b text"};
    for (uint32_t i = 0; i < 5; i++) {
        const cql_column_spec *c = cql_prepared_column(p, i);
        ASSERT(c != NULL);
        ASSERT_STR_EQ(c->ks, "ks");
        ASSERT_STR_EQ(c->table, "sel");
        char got[128];
        snprintf(got, sizeof got, "%s %s", c->name, type_text(c->type));
        ASSERT_STR_EQ(got, want[i]);
    }
    ASSERT(cql_prepared_column(p, 5) == NULL);
    cql_prepared_unref(p);

    p = PREP(&e, "SELECT k, b AS label, writetime(b), ttl(b), token(k), CAST(a AS text) FROM sel");
    const char *want2[] = {"k int",
                           "label text",
                           "writetime(b) bigint",
                           "ttl(b) int",
                           "system.token(k) bigint",
                           "cast(a as text) text"};
    ASSERT_EQ(cql_prepared_column_count(p), 6);
    for (uint32_t i = 0; i < 6; i++) {
        const cql_column_spec *c = cql_prepared_column(p, i);
        char got[128];
        snprintf(got, sizeof got, "%s %s", c->name, type_text(c->type));
        ASSERT_STR_EQ(got, want2[i]);
    }
    cql_prepared_unref(p);

    p = PREP(&e, "SELECT count(*), max(a), count(b) AS n FROM sel WHERE k = ?");
    const char *want3[] = {"count bigint", "system.max(a) int", "n bigint"};
    ASSERT_EQ(cql_prepared_column_count(p), 3);
    for (uint32_t i = 0; i < 3; i++) {
        const cql_column_spec *c = cql_prepared_column(p, i);
        char got[128];
        snprintf(got, sizeof got, "%s %s", c->name, type_text(c->type));
        ASSERT_STR_EQ(got, want3[i]);
    }
    cql_prepared_unref(p);

    /* The metadata of an execution is the prepared one. */
    OK(&e, "INSERT INTO sel (k, c, s, b, a) VALUES (1, 2, 3, 'x', 4)");
    cql_result *r = QUERY(&e, "SELECT k, b AS label, a FROM sel");
    ASSERT_STR_EQ(col_names(r), "k,label,a");
    ASSERT_STR_EQ(rows_text(r), "1|x|4");
    cql_result_free(r);
    env_close(&e);
}

TEST(prepare_same_text_returns_the_same_statement)
{
    env e;
    setup(&e);
    const char *q = "SELECT v FROM kv WHERE k = ?";
    cql_prepared *a = PREP(&e, q);
    cql_prepared *b = PREP(&e, q);
    ASSERT(a == b);
    ASSERT_MEM_EQ(cql_prepared_id(a), cql_prepared_id(b), 16);
    /* Another session in the same keyspace shares it too. */
    eng_err err;
    eng_err_clear(&err);
    cql_session *s2;
    ASSERT_OK_ERR(cql_session_new(e.db, &s2, &err), &err);
    cql_result *r = NULL;
    ASSERT_OK_ERR(cql_query(s2, "USE ks", 6, NULL, &r, &err), &err);
    cql_result_free(r);
    cql_prepared *c = NULL;
    ASSERT_OK_ERR(cql_prepare(s2, q, strlen(q), &c, &err), &err);
    ASSERT(c == a);
    /* A different text (even by one space) is another statement. */
    cql_prepared *d = PREP(&e, "SELECT v FROM kv WHERE k =  ?");
    ASSERT(d != a);
    ASSERT(memcmp(cql_prepared_id(a), cql_prepared_id(d), 16) != 0);
    /* References are counted: dropping ours leaves the others usable. */
    cql_prepared_unref(a);
    cql_prepared_unref(c);
    vals v = {0};
    v_int(&v, 1);
    r = EXEC(&e, b, &v);
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    cql_prepared_unref(b);
    cql_prepared_unref(d);
    cql_session_free(s2);
    env_close(&e);
}

TEST(prepare_in_another_keyspace_gives_another_statement)
{
    env e;
    setup(&e);
    OK(&e, "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    OK(&e, "CREATE TABLE ks2.kv (k int PRIMARY KEY, v int, w int)");
    OK(&e, "INSERT INTO ks.kv (k, v) VALUES (1, 10)");
    OK(&e, "INSERT INTO ks2.kv (k, v) VALUES (1, 20)");
    const char *q = "SELECT v FROM kv WHERE k = 1";
    cql_prepared *a = PREP(&e, q);
    OK(&e, "USE ks2");
    cql_prepared *b = PREP(&e, q);
    ASSERT(a != b);
    ASSERT(memcmp(cql_prepared_id(a), cql_prepared_id(b), 16) != 0);
    ASSERT_STR_EQ(cql_prepared_column(b, 0)->ks, "ks2");
    /* Each keeps the keyspace it was prepared in, whatever the session's is now. */
    cql_result *r = EXEC(&e, a, NULL);
    ASSERT_STR_EQ(rows_text(r), "10");
    cql_result_free(r);
    r = EXEC(&e, b, NULL);
    ASSERT_STR_EQ(rows_text(r), "20");
    cql_result_free(r);
    /* A qualified name in no keyspace is a third statement. */
    eng_err err;
    eng_err_clear(&err);
    cql_session *s2;
    ASSERT_OK_ERR(cql_session_new(e.db, &s2, &err), &err);
    ASSERT(cql_session_keyspace(s2) == NULL);
    cql_prepared *c = NULL;
    const char *qq = "SELECT v FROM ks.kv WHERE k = 1";
    ASSERT_OK_ERR(cql_prepare(s2, qq, strlen(qq), &c, &err), &err);
    cql_prepared *d = PREP(&e, qq); /* same text, prepared in ks2 */
    ASSERT(c != d);
    cql_prepared_unref(a);
    cql_prepared_unref(b);
    cql_prepared_unref(c);
    cql_prepared_unref(d);
    cql_session_free(s2);
    env_close(&e);
}

TEST(prepare_errors_carry_protocol_codes)
{
    env e;
    setup(&e);
    eng_err err;
    eng_err_clear(&err);
    cql_prepared *p = (cql_prepared *)1;
    const char *q = "SELEC * FROM t";
    int rc = cql_prepare(e.s, q, strlen(q), &p, &err);
    ASSERT_EQ(rc, ENG_E_SYNTAX);
    ASSERT_EQ(err.code, ENG_E_SYNTAX);
    ASSERT(p == NULL);
    QUERY_ERR(&e, "SELECT * FROM nope", ENG_E_INVALID, "table nope does not exist");
    QUERY_ERR(&e, "SELECT * FROM nope.t", ENG_E_INVALID, "keyspace nope does not exist");
    QUERY_ERR(&e, "SELECT x FROM t", ENG_E_INVALID, "Undefined column name x in table ks.t");
    QUERY_ERR(&e, "INSERT INTO kv (k, v) VALUES (1, 'a')", ENG_E_INVALID,
              "Invalid STRING constant (a) for \"v\" of type int");
    /* Without a keyspace. */
    cql_session *s2;
    ASSERT_OK_ERR(cql_session_new(e.db, &s2, &err), &err);
    q = "SELECT * FROM t";
    eng_err_clear(&err);
    rc = cql_prepare(s2, q, strlen(q), &p, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "No keyspace has been specified. USE a keyspace, or explicitly specify "
                  "keyspace.tablename");
    cql_session_free(s2);
    env_close(&e);
}

/* ==== execute: values ==== */

TEST(execute_scalar_values_round_trip_in_native_serialization)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE sc (k int PRIMARY KEY, b bigint, t text, u uuid, tu timeuuid, "
           "ts timestamp, bl blob, bo boolean, d double, f float, sm smallint, ti tinyint, "
           "dt date, tm time, ip inet, vi varint, de decimal, a ascii)");
    cql_prepared *ins =
        PREP(&e, "INSERT INTO sc (k, b, t, u, tu, ts, bl, bo, d, f, sm, ti, dt, tm, ip, vi, de, a) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    ASSERT_EQ(cql_prepared_bind_count(ins), 18);
    const char *hex[18] = {
        "00000007",                             /* int 7 */
        "fffffffffffffffe",                     /* bigint -2 */
        "68c3a96c6c6f",                         /* text "héllo" */
        "550e8400-e29b-41d4-a716-446655440000", /* uuid v4 */
        "5a4cfb70-4b4b-11ec-8d3d-0242ac130003", /* timeuuid v1 */
        "00000176bb3e7000",                     /* timestamp 2021-01-01 */
        "00ff10",                               /* blob */
        "01",                                   /* true */
        "3ff8000000000000",                     /* double 1.5 */
        "bfc00000",                             /* float -1.5 */
        "8000",                                 /* smallint -32768 */
        "7f",                                   /* tinyint 127 */
        "800048c4",                             /* date 2021-01-01 */
        "000000003b9aca00",                     /* time 00:00:01 */
        "7f000001",                             /* inet 127.0.0.1 */
        "008000000000000000",                   /* varint 2^63 */
        "00000001 0f",                          /* decimal 1.5 */
        "616263",                               /* ascii abc */
    };
    vals v = {0};
    for (int i = 0; i < 18; i++)
        v_hex(&v, hex[i]);
    cql_result_free(EXEC(&e, ins, &v));
    cql_prepared *sel =
        PREP(&e, "SELECT k, b, t, u, tu, ts, bl, bo, d, f, sm, ti, dt, tm, ip, vi, de, a FROM sc "
                 "WHERE k = ?");
    vals key = {0};
    v_int(&key, 7);
    cql_result *r = EXEC(&e, sel, &key);
    ASSERT_EQ(r->n_rows, 1);
    ASSERT_EQ(r->n_cols, 18);
    for (uint32_t i = 0; i < 18; i++) {
        eng_val got = cell(r, 0, i);
        ASSERT_EQ(got.len, v.v[i].len);
        ASSERT_MEM_EQ(got.p, v.v[i].p, (size_t)got.len);
        /* Column specs carry the declared types. */
        ASSERT(r->cols[i].type != NULL);
    }
    ASSERT_STR_EQ(rows_text(r), "7|-2|héllo|550e8400-e29b-41d4-a716-446655440000|"
                                "5a4cfb70-4b4b-11ec-8d3d-0242ac130003|"
                                "2021-01-01 00:00:00.000000+0000|0x00ff10|True|1.5|-1.5|-32768|"
                                "127|2021-01-01|00:00:01.000000000|127.0.0.1|"
                                "9223372036854775808|1.5|abc");
    cql_result_free(r);
    cql_prepared_unref(ins);
    cql_prepared_unref(sel);
    env_close(&e);
}

TEST(execute_empty_value_is_not_null)
{
    env e;
    setup(&e);
    /* Empty (0-byte) values are legal for int and distinct from null (facts §2.1, §2.2). */
    cql_prepared *ins = PREP(&e, "INSERT INTO kv (k, v, w) VALUES (?, ?, ?)");
    vals v = {0};
    v_int(&v, 1);
    v_raw(&v, "", 0);
    v_null(&v);
    cql_result_free(EXEC(&e, ins, &v));
    cql_result *r = QUERY(&e, "SELECT v, w FROM kv WHERE k = 1");
    ASSERT_EQ(r->n_rows, 1);
    ASSERT_EQ(cell(r, 0, 0).len, 0);
    ASSERT_EQ(cell(r, 0, 1).len, ENG_NULL);
    cql_result_free(r);
    /* An empty value is not null for a condition either. */
    r = QUERY(&e, "UPDATE kv SET w = 5 WHERE k = 1 IF v = null");
    ASSERT_STR_EQ(col_names(r), "[applied],v");
    ASSERT_EQ(cell(r, 0, 1).len, 0);
    cql_result_free(r);
    cql_prepared_unref(ins);
    env_close(&e);
}

TEST(execute_collection_tuple_and_udt_values)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TYPE addr (street text, num int)");
    OK(&e, "CREATE TABLE co (k int PRIMARY KEY, l list<int>, s set<text>, m map<text, int>, "
           "fs frozen<set<int>>, tp tuple<int, text>, fa frozen<addr>, a addr)");
    cql_prepared *ins = PREP(&e, "INSERT INTO co (k, l, s, m, fs, tp, fa, a) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    ASSERT_STR_EQ(marker(ins, 5, "ks", "co"), "tp frozen<tuple<int, text>>");
    ASSERT_STR_EQ(marker(ins, 6, "ks", "co"), "fa frozen<addr>");
    ASSERT_STR_EQ(marker(ins, 7, "ks", "co"), "a addr");
    ASSERT_EQ(cql_prepared_bind(ins, 7)->type->kind, ENG_UDT);
    vals v = {0};
    v_int(&v, 1);
    v_hex(&v, "00000002 00000004 00000003 00000004 00000001"); /* [3, 1] */
    v_hex(&v, "00000003 00000001 62 00000001 61 00000001 62"); /* {'b', 'a', 'b'} */
    v_hex(&v, "00000002 00000001 7a 00000004 00000001 "        /* {'z': 1, */
              "00000001 61 00000004 00000002");                /*  'a': 2} */
    v_hex(&v, "00000002 00000004 00000009 00000004 00000002"); /* {9, 2} */
    v_hex(&v, "00000004 00000001 ffffffff");                   /* (1, null) */
    v_hex(&v, "00000001 79");                                  /* {street: 'y'}: fewer */
    v_hex(&v, "00000001 78 00000004 00000005");                /* {street: 'x', num: 5} */
    cql_result_free(EXEC(&e, ins, &v));
    cql_result *r = QUERY(&e, "SELECT l, s, m, fs, tp, fa, a FROM co WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "[3, 1]|{'a', 'b'}|{'a': 2, 'z': 1}|{2, 9}|(1, null)|"
                                "{street: 'y', num: null}|{street: 'x', num: 5}");
    /* Sets and maps come back sorted and deduplicated, in native form. */
    uint8_t want[64];
    size_t n = unhex("00000002 00000001 61 00000001 62", want, sizeof want);
    ASSERT_EQ(cell(r, 0, 1).len, n);
    ASSERT_MEM_EQ(cell(r, 0, 1).p, want, n);
    /* A frozen UDT bound with fewer fields is kept as bound (UserTypes.Value.fromSerialized);
       a non-frozen one is assembled from its field cells. */
    n = unhex("00000001 79", want, sizeof want);
    ASSERT_EQ(cell(r, 0, 5).len, n);
    ASSERT_MEM_EQ(cell(r, 0, 5).p, want, n);
    n = unhex("00000001 78 00000004 00000005", want, sizeof want);
    ASSERT_EQ(cell(r, 0, 6).len, n);
    ASSERT_MEM_EQ(cell(r, 0, 6).p, want, n);
    cql_result_free(r);
    /* A non-frozen UDT written with fewer fields: the missing ones are null. */
    cql_prepared *set_a = PREP(&e, "UPDATE co SET a = ? WHERE k = 1");
    v_reset(&v);
    v_hex(&v, "00000001 7a");
    cql_result_free(EXEC(&e, set_a, &v));
    r = QUERY(&e, "SELECT a FROM co WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "{street: 'z', num: null}");
    /* Every field is in the bytes, nulls included (UserType.serializeForNativeProtocol). */
    n = unhex("00000001 7a ffffffff", want, sizeof want);
    ASSERT_EQ(cell(r, 0, 0).len, n);
    ASSERT_MEM_EQ(cell(r, 0, 0).p, want, n);
    cql_result_free(r);
    cql_prepared_unref(set_a);

    /* Null inside a bound collection is refused. */
    v_reset(&v);
    v_int(&v, 2);
    v_hex(&v, "00000001 ffffffff");
    for (int i = 0; i < 6; i++)
        v_unset(&v);
    EXEC_ERR(&e, ins, &v, ENG_E_INVALID, "null is not supported inside collections");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM co WHERE k = 2"), 0);
    cql_prepared_unref(ins);
    env_close(&e);
}

TEST(execute_element_operations_with_markers)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE coll (k int PRIMARY KEY, m map<text, int>, l list<text>, s set<int>)");
    OK(&e, "INSERT INTO coll (k, m, l, s) VALUES (1, {'a': 1}, ['x', 'y'], {1})");
    cql_prepared *p = PREP(&e, "UPDATE coll SET m[?] = ?, l[?] = ?, s = s + ? WHERE k = ?");
    vals v = {0};
    v_text(&v, "b");
    v_int(&v, 2);
    v_int(&v, 1);
    v_text(&v, "z");
    v_hex(&v, "00000002 00000004 00000003 00000004 00000002"); /* {3, 2} */
    v_int(&v, 1);
    cql_result_free(EXEC(&e, p, &v));
    cql_result *r = QUERY(&e, "SELECT m, l, s FROM coll WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "{'a': 1, 'b': 2}|['x', 'z']|{1, 2, 3}");
    cql_result_free(r);
    /* Null or unset keys and indexes are refused (Maps.SetterByKey, Lists.SetterByIndex), an
       out-of-range index too; an unset value is a no-op. */
    struct {
        int key_state; /* 0: a value, ENG_NULL, ENG_UNSET */
        int list;      /* the bad key is l's index, else m's key */
        int idx;
        const char *msg;
    } cases[] = {
        {ENG_NULL, 0, 0, "Invalid null map key"},
        {ENG_UNSET, 0, 0, "Invalid unset map key"},
        {ENG_NULL, 1, 0, "Invalid null value for list index"},
        {ENG_UNSET, 1, 0, "Invalid unset value for list index"},
        {0, 1, 5, "List index 5 out of bound, list has size 2"},
        {0, 1, -1, "List index -1 out of bound, list has size 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        v_reset(&v);
        if (!cases[i].list && cases[i].key_state)
            v_raw(&v, NULL, cases[i].key_state);
        else
            v_text(&v, "c");
        v_int(&v, 3);
        if (cases[i].list && cases[i].key_state)
            v_raw(&v, NULL, cases[i].key_state);
        else
            v_int(&v, cases[i].idx);
        v_text(&v, "q");
        v_unset(&v);
        v_int(&v, 1);
        EXEC_ERR(&e, p, &v, ENG_E_INVALID, cases[i].msg);
    }
    v_reset(&v);
    v_text(&v, "a");
    v_unset(&v);
    v_int(&v, 0);
    v_unset(&v);
    v_unset(&v);
    v_int(&v, 1);
    cql_result_free(EXEC(&e, p, &v));
    r = QUERY(&e, "SELECT m, l, s FROM coll WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "{'a': 1, 'b': 2}|['x', 'z']|{1, 2, 3}");
    cql_result_free(r);
    /* Element deletions: a null or unset map key is refused, an unset list index does
       nothing (Maps.DiscarderByKey, Lists.DiscarderByIndex). */
    cql_prepared *d = PREP(&e, "DELETE m[?], l[?] FROM coll WHERE k = 1");
    v_reset(&v);
    v_null(&v);
    v_int(&v, 0);
    EXEC_ERR(&e, d, &v, ENG_E_INVALID, "Invalid null map key");
    v_reset(&v);
    v_unset(&v);
    v_int(&v, 0);
    EXEC_ERR(&e, d, &v, ENG_E_INVALID, "Invalid unset map key");
    v_reset(&v);
    v_text(&v, "a");
    v_null(&v);
    EXEC_ERR(&e, d, &v, ENG_E_INVALID, "Invalid null value for list index");
    v_reset(&v);
    v_text(&v, "a");
    v_unset(&v);
    cql_result_free(EXEC(&e, d, &v));
    r = QUERY(&e, "SELECT m, l FROM coll WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "{'b': 2}|['x', 'z']");
    cql_result_free(r);
    cql_prepared_unref(d);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(execute_null_value_writes_a_tombstone)
{
    env e;
    setup(&e);
    OK(&e, "INSERT INTO kv (k, v, w) VALUES (1, 10, 20)");
    cql_prepared *p = PREP(&e, "INSERT INTO kv (k, v, w) VALUES (?, ?, ?)");
    vals v = {0};
    v_int(&v, 1);
    v_null(&v);
    v_int(&v, 21);
    cql_result_free(EXEC(&e, p, &v));
    cql_result *r = QUERY(&e, "SELECT k, v, w FROM kv");
    ASSERT_STR_EQ(rows_text(r), "1|null|21");
    cql_result_free(r);
    /* UPDATE SET v = null deletes the cell; the row stays alive by its marker. */
    cql_prepared *u = PREP(&e, "UPDATE kv SET w = ? WHERE k = ?");
    v_reset(&v);
    v_null(&v);
    v_int(&v, 1);
    cql_result_free(EXEC(&e, u, &v));
    r = QUERY(&e, "SELECT k, v, w FROM kv");
    ASSERT_STR_EQ(rows_text(r), "1|null|null");
    cql_result_free(r);
    cql_prepared_unref(p);
    cql_prepared_unref(u);
    env_close(&e);
}

TEST(execute_unset_value_leaves_the_column_untouched)
{
    env e;
    setup(&e);
    OK(&e, "INSERT INTO kv (k, v, w) VALUES (1, 10, 20)");
    cql_prepared *p = PREP(&e, "INSERT INTO kv (k, v, w) VALUES (?, ?, ?)");
    vals v = {0};
    v_int(&v, 1);
    v_int(&v, 11);
    v_unset(&v);
    cql_result_free(EXEC(&e, p, &v));
    cql_result *r = QUERY(&e, "SELECT k, v, w FROM kv");
    ASSERT_STR_EQ(rows_text(r), "1|11|20");
    cql_result_free(r);
    /* UPDATE with every value unset writes nothing: no row appears. */
    cql_prepared *u = PREP(&e, "UPDATE kv SET v = ?, w = ? WHERE k = ?");
    v_reset(&v);
    v_unset(&v);
    v_unset(&v);
    v_int(&v, 2);
    cql_result_free(EXEC(&e, u, &v));
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv WHERE k = 2"), 0);
    /* Unset TTL and TIMESTAMP mean "not given". */
    cql_prepared *t = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?) USING TTL ? AND TIMESTAMP ?");
    v_reset(&v);
    v_int(&v, 3);
    v_int(&v, 30);
    v_unset(&v);
    v_unset(&v);
    cql_result_free(EXEC(&e, t, &v));
    r = QUERY(&e, "SELECT v, ttl(v) FROM kv WHERE k = 3");
    ASSERT_STR_EQ(rows_text(r), "30|null");
    cql_result_free(r);
    cql_prepared_unref(p);
    cql_prepared_unref(u);
    cql_prepared_unref(t);
    env_close(&e);
}

TEST(execute_ttl_and_timestamp_markers_apply)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?) USING TTL ? AND TIMESTAMP ?");
    vals v = {0};
    v_int(&v, 1);
    v_int(&v, 10);
    v_int(&v, 1000);
    v_bigint(&v, 123456789);
    cql_result_free(EXEC(&e, p, &v));
    cql_result *r = QUERY(&e, "SELECT writetime(v), ttl(v) FROM kv WHERE k = 1");
    ASSERT_EQ(be64_of(cell(r, 0, 0)), 123456789);
    int32_t ttl = be32_of(cell(r, 0, 1));
    ASSERT(ttl > 990 && ttl <= 1000);
    cql_result_free(r);
    /* A null TTL means no TTL (Attributes.getTimeToLive); a null timestamp is refused. */
    v_reset(&v);
    v_int(&v, 2);
    v_int(&v, 20);
    v_null(&v);
    v_bigint(&v, 5);
    cql_result_free(EXEC(&e, p, &v));
    r = QUERY(&e, "SELECT writetime(v), ttl(v) FROM kv WHERE k = 2");
    ASSERT_STR_EQ(rows_text(r), "5|null");
    cql_result_free(r);
    v_reset(&v);
    v_int(&v, 3);
    v_int(&v, 30);
    v_unset(&v);
    v_null(&v);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Invalid null value of timestamp");
    v_reset(&v);
    v_int(&v, 3);
    v_int(&v, 30);
    v_int(&v, -1);
    v_unset(&v);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "A TTL must be greater or equal to 0, but was -1");
    v_reset(&v);
    v_int(&v, 3);
    v_int(&v, 30);
    v_bigint(&v, 1);
    v_unset(&v);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Expected 4 or 0 byte int (8)");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv WHERE k = 3"), 0);
    /* The default timestamp of the options applies when the statement has none. */
    cql_prepared *q = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?)");
    v_reset(&v);
    v_int(&v, 4);
    v_int(&v, 40);
    eng_err err;
    eng_err_clear(&err);
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = v.v;
    o.n_values = v.n;
    o.timestamp = 777;
    ASSERT_OK_ERR(cql_execute(e.s, q, &o, NULL, &err), &err);
    r = QUERY(&e, "SELECT writetime(v) FROM kv WHERE k = 4");
    ASSERT_EQ(be64_of(cell(r, 0, 0)), 777);
    cql_result_free(r);
    cql_prepared_unref(p);
    cql_prepared_unref(q);
    env_close(&e);
}

TEST(execute_wrong_number_of_values_is_refused)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)");
    vals v = {0};
    v_int(&v, 1);
    v_int(&v, 2);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "there were 3 markers(?) in CQL but 2 bound variables");
    v_text(&v, "a");
    v_text(&v, "b");
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "there were 3 markers(?) in CQL but 4 bound variables");
    EXEC_ERR(&e, p, NULL, ENG_E_INVALID, "there were 3 markers(?) in CQL but 0 bound variables");
    /* A statement without markers given values. */
    cql_prepared *q = PREP(&e, "SELECT * FROM t");
    EXEC_ERR(&e, q, &v, ENG_E_INVALID, "there were 0 markers(?) in CQL but 4 bound variables");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM t"), 0);
    cql_prepared_unref(p);
    cql_prepared_unref(q);
    env_close(&e);
}

TEST(execute_malformed_value_is_invalid_and_writes_nothing)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "INSERT INTO kv (k, v, w) VALUES (?, ?, ?)");
    vals v = {0};
    v_int(&v, 1);
    v_bigint(&v, 5); /* 8 bytes for an int */
    v_int(&v, 2);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Expected 4 or 0 byte int (8)");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    /* In the key too. */
    v_reset(&v);
    v_raw(&v, "\x01\x02", 2);
    v_int(&v, 1);
    v_int(&v, 2);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Expected 4 or 0 byte int (2)");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    /* Other types' MarshalException texts (facts §2.2). */
    OK(&e, "CREATE TABLE ty (k int PRIMARY KEY, t text, tu timeuuid, u uuid, b bigint, "
           "d date, bo boolean)");
    cql_prepared *q =
        PREP(&e, "INSERT INTO ty (k, t, tu, u, b, d, bo) VALUES (1, ?, ?, ?, ?, ?, ?)");
    struct {
        int idx;
        const char *hex;
        const char *msg;
    } cases[] = {
        {0, "c328", "String didn't validate."},
        {1, "550e8400e29b41d4a716446655440000", "Invalid version for TimeUUID type."},
        {2, "0102", "UUID should be 16 or 0 bytes (2)"},
        {3, "01020304", "Expected 8 or 0 byte long (4)"},
        {4, "", "Expected 4 byte long for date (0)"},
        {5, "0101", "Expected 1 or 0 byte value (2)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        v_reset(&v);
        for (int j = 0; j < 6; j++) {
            if (j == cases[i].idx)
                v_hex(&v, cases[i].hex);
            else
                v_unset(&v);
        }
        EXEC_ERR(&e, q, &v, ENG_E_INVALID, cases[i].msg);
    }
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM ty"), 0);
    /* A negative length other than null and unset. */
    v_reset(&v);
    v_int(&v, 1);
    v_int(&v, 1);
    v_raw(&v, NULL, -3);
    eng_err err;
    eng_err_clear(&err);
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = v.v;
    o.n_values = v.n;
    ASSERT_NE(cql_execute(e.s, p, &o, NULL, &err), 0);
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    cql_prepared_unref(p);
    cql_prepared_unref(q);
    env_close(&e);
}

TEST(execute_unset_or_null_key_is_refused)
{
    env e;
    setup(&e);
    cql_prepared *p = PREP(&e, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)");
    vals v = {0};
    v_unset(&v);
    v_int(&v, 1);
    v_text(&v, "a");
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Invalid unset value for column k");
    v_reset(&v);
    v_int(&v, 1);
    v_unset(&v);
    v_text(&v, "a");
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Invalid unset value for column c");
    v_reset(&v);
    v_null(&v);
    v_int(&v, 1);
    v_text(&v, "a");
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Invalid null value in condition for column k");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM t"), 0);
    /* In a SELECT as well. */
    cql_prepared *s = PREP(&e, "SELECT * FROM t WHERE k = ?");
    v_reset(&v);
    v_unset(&v);
    EXEC_ERR(&e, s, &v, ENG_E_INVALID, "Invalid unset value for column k");
    cql_prepared_unref(p);
    cql_prepared_unref(s);
    env_close(&e);
}

TEST(execute_in_marker_binds_a_list)
{
    env e;
    setup(&e);
    for (int c = 0; c < 5; c++) {
        char q[128];
        snprintf(q, sizeof q, "INSERT INTO t (k, c, v) VALUES (1, %d, 'v%d')", c, c);
        OK(&e, q);
    }
    cql_prepared *p = PREP(&e, "SELECT c, v FROM t WHERE k = ? AND c IN ?");
    vals v = {0};
    v_int(&v, 1);
    v_hex(&v, "00000003 00000004 00000003 00000004 00000001 00000004 00000003"); /* [3,1,3] */
    cql_result *r = EXEC(&e, p, &v);
    ASSERT_STR_EQ(rows_text(r), "1|v1\n3|v3");
    cql_result_free(r);
    /* An empty list selects nothing, as IN () does; a null list is refused. */
    v_reset(&v);
    v_int(&v, 1);
    v_hex(&v, "00000000");
    r = EXEC(&e, p, &v);
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    r = QUERY(&e, "SELECT c FROM t WHERE k = 1 AND c IN ()");
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    r = QUERY(&e, "SELECT c FROM t WHERE k IN ()");
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    /* Written through IN ? as well: an empty list writes nothing. */
    cql_prepared *del = PREP(&e, "DELETE FROM t WHERE k = 1 AND c IN ?");
    v_reset(&v);
    v_hex(&v, "00000000");
    cql_result_free(EXEC(&e, del, &v));
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM t WHERE k = 1"), 5);
    v_reset(&v);
    v_hex(&v, "00000002 00000004 00000004 00000004 00000000"); /* [4, 0] */
    cql_result_free(EXEC(&e, del, &v));
    r = QUERY(&e, "SELECT c FROM t WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "1\n2\n3");
    cql_result_free(r);
    cql_prepared_unref(del);
    v_reset(&v);
    v_int(&v, 1);
    v_null(&v);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Invalid null value for c");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(execute_limit_marker)
{
    env e;
    setup(&e);
    for (int c = 0; c < 5; c++) {
        char q[128];
        snprintf(q, sizeof q, "INSERT INTO t (k, c, v) VALUES (1, %d, 'v%d')", c, c);
        OK(&e, q);
    }
    cql_prepared *p = PREP(&e, "SELECT c FROM t WHERE k = 1 LIMIT ?");
    vals v = {0};
    v_int(&v, 2);
    cql_result *r = EXEC(&e, p, &v);
    ASSERT_STR_EQ(rows_text(r), "0\n1");
    cql_result_free(r);
    /* Unset: no limit (facts §7.6). */
    v_reset(&v);
    v_unset(&v);
    r = EXEC(&e, p, &v);
    ASSERT_EQ(r->n_rows, 5);
    cql_result_free(r);
    v_reset(&v);
    v_int(&v, 0);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "LIMIT must be strictly positive");
    v_reset(&v);
    v_null(&v);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Invalid null value of limit");
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(execute_token_marker_selects_a_token_range)
{
    env e;
    setup(&e);
    for (int k = 0; k < 20; k++) {
        char q[128];
        snprintf(q, sizeof q, "INSERT INTO kv (k, v) VALUES (%d, %d)", k, k);
        OK(&e, q);
    }
    cql_result *all = QUERY(&e, "SELECT k, token(k) FROM kv");
    ASSERT_EQ(all->n_rows, 20);
    int64_t mid = be64_of(cell(all, 9, 1));
    cql_prepared *p = PREP(&e, "SELECT k, token(k) FROM kv WHERE token(k) > ?");
    vals v = {0};
    v_bigint(&v, mid);
    cql_result *r = EXEC(&e, p, &v);
    ASSERT_EQ(r->n_rows, 10);
    for (uint32_t i = 0; i < 10; i++) {
        ASSERT_EQ(be32_of(cell(r, i, 0)), be32_of(cell(all, i + 10, 0)));
        ASSERT(be64_of(cell(r, i, 1)) > mid);
    }
    cql_result_free(r);
    cql_result_free(all);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(query_takes_values_too)
{
    env e;
    setup(&e);
    /* QUERY with values: the driver's simple statements with '?'. */
    const char *q = "INSERT INTO kv (k, v) VALUES (?, ?)";
    vals v = {0};
    v_int(&v, 5);
    v_int(&v, 50);
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = v.v;
    o.n_values = v.n;
    eng_err err;
    eng_err_clear(&err);
    cql_result *r = NULL;
    ASSERT_OK_ERR(cql_query(e.s, q, strlen(q), &o, &r, &err), &err);
    ASSERT_EQ(r->kind, CQL_RESULT_VOID);
    ASSERT_EQ(r->n_cols, 0);
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    r = QUERY(&e, "SELECT k, v FROM kv");
    ASSERT_STR_EQ(rows_text(r), "5|50");
    cql_result_free(r);
    /* QUERY's count check has its own text (QueryProcessor.process). */
    o.n_values = 1;
    r = (cql_result *)1;
    int rc = cql_query(e.s, q, strlen(q), &o, &r, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID, "Invalid amount of bind variables");
    ASSERT(r == NULL);
    QUERY_ERR(&e, "SELECT * FROM kv WHERE k = ?", ENG_E_INVALID,
              "Invalid amount of bind variables");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 1);
    env_close(&e);
}

/* ==== paging ==== */

/* p (k int, c int, v text, PK (k, c)): 25 partitions of 100 rows (2,500), v 'ten' every 10th. */
static void paging_setup(env *e)
{
    setup(e);
    OK(e, "CREATE TABLE p (k int, c int, v text, PRIMARY KEY (k, c))");
    cql_prepared *ins = PREP(e, "INSERT INTO p (k, c, v) VALUES (?, ?, ?)");
    cql_prepared *stmts[100];
    cql_exec_options opts[100];
    static vals v[100];
    for (int k = 0; k < 25; k++) {
        for (int c = 0; c < 100; c++) {
            v_reset(&v[c]);
            v_int(&v[c], k);
            v_int(&v[c], c);
            v_text(&v[c], c % 10 == 0 ? "ten" : "other");
            stmts[c] = ins;
            cql_exec_options_init(&opts[c]);
            opts[c].values = v[c].v;
            opts[c].n_values = v[c].n;
        }
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(cql_execute_batch(e->s, 1, stmts, opts, 100, ENG_TS_NONE, NULL, &err), &err);
    }
    cql_prepared_unref(ins);
}

/* The rows of a result appended as [bytes] cells (for comparing whole results). */
static void append_rows(eng_buf *b, const cql_result *r)
{
    for (size_t i = 0; i < (size_t)r->n_rows * r->n_cols; i++) {
        eng_buf_put_be32(b, (uint32_t)r->cells[i].len);
        if (r->cells[i].len > 0)
            eng_buf_put(b, r->cells[i].p, (size_t)r->cells[i].len);
    }
}

typedef struct paged {
    eng_buf all; /* every row, in order */
    uint32_t rows;
    uint32_t pages;
    uint32_t short_pages; /* pages before the last with fewer rows than the page size */
} paged;

/* Runs p page by page until has_more is 0. */
static void run_paged(env *e, cql_prepared *p, const vals *b, int32_t page_size, paged *out)
{
    memset(out, 0, sizeof *out);
    cql_result *prev = NULL;
    for (;;) {
        cql_exec_options o;
        cql_exec_options_init(&o);
        if (b) {
            o.values = b->v;
            o.n_values = b->n;
        }
        o.page_size = page_size;
        if (prev) {
            o.paging_state = prev->paging_state.p;
            o.paging_state_len = prev->paging_state.len;
        }
        eng_err err;
        eng_err_clear(&err);
        cql_result *r = NULL;
        ASSERT_OK_ERR(cql_execute(e->s, p, &o, &r, &err), &err);
        cql_result_free(prev); /* only now: the paging state pointed into it */
        ASSERT_EQ(r->kind, CQL_RESULT_ROWS);
        ASSERT(r->n_rows <= (uint32_t)page_size);
        out->pages++;
        out->rows += r->n_rows;
        append_rows(&out->all, r);
        ASSERT(out->pages < 100000);
        if (!r->has_more) {
            cql_result_free(r);
            break;
        }
        ASSERT(r->paging_state.len > 0);
        if (r->n_rows < (uint32_t)page_size)
            out->short_pages++;
        prev = r;
    }
    ASSERT(!out->all.oom);
}

static void run_unpaged(env *e, cql_prepared *p, const vals *b, paged *out)
{
    memset(out, 0, sizeof *out);
    cql_result *r = EXEC(e, p, b);
    ASSERT_EQ(r->has_more, 0);
    ASSERT_EQ(r->paging_state.len, 0);
    out->rows = r->n_rows;
    out->pages = 1;
    append_rows(&out->all, r);
    cql_result_free(r);
}

static void assert_same_rows(const paged *a, const paged *b)
{
    ASSERT_EQ(a->rows, b->rows);
    ASSERT_EQ(a->all.len, b->all.len);
    ASSERT_MEM_EQ(a->all.p, b->all.p, a->all.len);
}

TEST(paging_concatenated_pages_equal_the_unpaged_result)
{
    env e;
    paging_setup(&e);
    cql_prepared *p = PREP(&e, "SELECT k, c, v FROM p");
    paged whole, pg;
    run_unpaged(&e, p, NULL, &whole);
    ASSERT_EQ(whole.rows, 2500);
    const int32_t sizes[] = {100, 7, 1000, 2500, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        run_paged(&e, p, NULL, sizes[i], &pg);
        assert_same_rows(&pg, &whole);
        /* Full pages until the last; at most one empty page at the end. */
        ASSERT_EQ(pg.short_pages, 0);
        uint32_t full = (2500 + (uint32_t)sizes[i] - 1) / (uint32_t)sizes[i];
        ASSERT(pg.pages == full || pg.pages == full + 1);
        eng_buf_free(&pg.all);
    }
    eng_buf_free(&whole.all);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(paging_last_page_has_no_more_and_no_state)
{
    env e;
    paging_setup(&e);
    cql_prepared *p = PREP(&e, "SELECT c FROM p WHERE k = 3");
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.page_size = 60;
    eng_err err;
    eng_err_clear(&err);
    cql_result *r1 = NULL, *r2 = NULL;
    ASSERT_OK_ERR(cql_execute(e.s, p, &o, &r1, &err), &err);
    ASSERT_EQ(r1->n_rows, 60);
    ASSERT_EQ(r1->has_more, 1);
    o.paging_state = r1->paging_state.p;
    o.paging_state_len = r1->paging_state.len;
    ASSERT_OK_ERR(cql_execute(e.s, p, &o, &r2, &err), &err);
    ASSERT_EQ(r2->n_rows, 40);
    ASSERT_EQ(r2->has_more, 0);
    ASSERT_EQ(r2->paging_state.len, 0);
    ASSERT_EQ(be32_of(cell(r2, 0, 0)), 60);
    ASSERT_EQ(be32_of(cell(r2, 39, 0)), 99);
    /* The same state replayed gives the same page (paging states are reusable). */
    cql_result *r3 = NULL;
    ASSERT_OK_ERR(cql_execute(e.s, p, &o, &r3, &err), &err);
    ASSERT_STR_EQ(rows_text(r3), rows_text(r2));
    cql_result_free(r1);
    cql_result_free(r2);
    cql_result_free(r3);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(paging_with_limit_stops_at_the_limit)
{
    env e;
    paging_setup(&e);
    cql_prepared *p = PREP(&e, "SELECT k, c FROM p LIMIT 250");
    paged whole, pg;
    run_unpaged(&e, p, NULL, &whole);
    ASSERT_EQ(whole.rows, 250);
    run_paged(&e, p, NULL, 100, &pg);
    assert_same_rows(&pg, &whole);
    ASSERT_EQ(pg.pages, 3); /* 100, 100, 50: the limit reached ends the paging */
    eng_buf_free(&pg.all);
    run_paged(&e, p, NULL, 7, &pg);
    assert_same_rows(&pg, &whole);
    eng_buf_free(&pg.all);
    /* A limit that is a multiple of the page: has_more is 0 once it is reached. */
    cql_prepared *q = PREP(&e, "SELECT k, c FROM p LIMIT ?");
    vals v = {0};
    v_int(&v, 200);
    run_paged(&e, q, &v, 100, &pg);
    ASSERT_EQ(pg.rows, 200);
    ASSERT_EQ(pg.pages, 2);
    eng_buf_free(&pg.all);
    eng_buf_free(&whole.all);
    cql_prepared_unref(p);
    cql_prepared_unref(q);
    env_close(&e);
}

TEST(paging_per_partition_limit_holds_across_pages)
{
    env e;
    paging_setup(&e);
    cql_prepared *p = PREP(&e, "SELECT k, c FROM p PER PARTITION LIMIT 3");
    paged whole, pg;
    run_unpaged(&e, p, NULL, &whole);
    ASSERT_EQ(whole.rows, 75);
    const int32_t sizes[] = {2, 7, 100};
    for (size_t i = 0; i < 3; i++) {
        run_paged(&e, p, NULL, sizes[i], &pg);
        assert_same_rows(&pg, &whole);
        eng_buf_free(&pg.all);
    }
    eng_buf_free(&whole.all);
    /* With a LIMIT as well (SelectLimitTest: PER PARTITION LIMIT, then LIMIT). */
    cql_prepared *q = PREP(&e, "SELECT k, c FROM p WHERE k IN (1, 2, 3) PER PARTITION LIMIT 2 "
                               "LIMIT 5");
    run_unpaged(&e, q, NULL, &whole);
    ASSERT_EQ(whole.rows, 5);
    run_paged(&e, q, NULL, 2, &pg);
    assert_same_rows(&pg, &whole);
    eng_buf_free(&pg.all);
    eng_buf_free(&whole.all);
    cql_prepared_unref(p);
    cql_prepared_unref(q);
    env_close(&e);
}

TEST(paging_a_descending_partition)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE d (k int, c int, v int, PRIMARY KEY (k, c)) "
           "WITH CLUSTERING ORDER BY (c DESC)");
    cql_prepared *ins = PREP(&e, "INSERT INTO d (k, c, v) VALUES (1, ?, ?)");
    for (int c = 0; c < 250; c++) {
        vals v = {0};
        v_int(&v, c);
        v_int(&v, c * 2);
        cql_result_free(EXEC(&e, ins, &v));
    }
    const char *queries[] = {"SELECT c, v FROM d WHERE k = 1",
                             "SELECT c, v FROM d WHERE k = 1 ORDER BY c ASC",
                             "SELECT c, v FROM d WHERE k = 1 AND c < 200 AND c >= 17"};
    for (int i = 0; i < 3; i++) {
        cql_prepared *p = PREP(&e, queries[i]);
        paged whole, pg;
        run_unpaged(&e, p, NULL, &whole);
        ASSERT_EQ(whole.rows, i == 2 ? 183 : 250);
        const int32_t sizes[] = {1, 7, 100};
        for (int j = 0; j < 3; j++) {
            run_paged(&e, p, NULL, sizes[j], &pg);
            assert_same_rows(&pg, &whole);
            eng_buf_free(&pg.all);
        }
        eng_buf_free(&whole.all);
        cql_prepared_unref(p);
    }
    cql_result *r = QUERY(&e, "SELECT c FROM d WHERE k = 1 LIMIT 2");
    ASSERT_STR_EQ(rows_text(r), "249\n248");
    cql_result_free(r);
    cql_prepared_unref(ins);
    env_close(&e);
}

TEST(paging_in_partitions_filtering_and_aggregates)
{
    env e;
    paging_setup(&e);
    const char *queries[] = {
        "SELECT k, c FROM p WHERE k IN (3, 1, 2)",
        "SELECT k, c FROM p WHERE k IN (3, 1, 2) AND c >= 95",
        "SELECT k, c FROM p WHERE v = 'ten' ALLOW FILTERING",
        "SELECT k, c FROM p WHERE v = 'ten' LIMIT 33 ALLOW FILTERING",
        "SELECT DISTINCT k FROM p",
    };
    const uint32_t want[] = {300, 15, 250, 33, 25};
    for (int i = 0; i < 5; i++) {
        cql_prepared *p = PREP(&e, queries[i]);
        paged whole, pg;
        run_unpaged(&e, p, NULL, &whole);
        ASSERT_EQ(whole.rows, want[i]);
        const int32_t sizes[] = {1, 7, 100};
        for (int j = 0; j < 3; j++) {
            run_paged(&e, p, NULL, sizes[j], &pg);
            assert_same_rows(&pg, &whole);
            eng_buf_free(&pg.all);
        }
        eng_buf_free(&whole.all);
        cql_prepared_unref(p);
    }
    /* An aggregate pages internally: one row, no more pages. */
    cql_prepared *p = PREP(&e, "SELECT count(*) FROM p");
    paged pg;
    run_paged(&e, p, NULL, 100, &pg);
    ASSERT_EQ(pg.rows, 1);
    ASSERT_EQ(pg.pages, 1);
    eng_buf_free(&pg.all);
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM p"), 2500);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(paging_static_rows_and_static_only_partitions)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE st (k int, c int, s int static, v int, PRIMARY KEY (k, c))");
    cql_prepared *row = PREP(&e, "INSERT INTO st (k, c, s, v) VALUES (?, ?, ?, ?)");
    cql_prepared *stat = PREP(&e, "INSERT INTO st (k, s) VALUES (?, ?)");
    for (int k = 0; k < 12; k++) {
        vals v = {0};
        if (k % 3 == 0) { /* a partition with only its static row */
            v_int(&v, k);
            v_int(&v, k * 100);
            cql_result_free(EXEC(&e, stat, &v));
            continue;
        }
        for (int c = 0; c < k % 4; c++) {
            v_reset(&v);
            v_int(&v, k);
            v_int(&v, c);
            v_int(&v, k * 100);
            v_int(&v, c);
            cql_result_free(EXEC(&e, row, &v));
        }
        if (k % 4 == 0) {
            v_reset(&v);
            v_int(&v, k);
            v_int(&v, k * 100);
            cql_result_free(EXEC(&e, stat, &v));
        }
    }
    const char *queries[] = {"SELECT * FROM st", "SELECT k, s FROM st WHERE k IN (0, 1, 3, 4, 5)",
                             "SELECT DISTINCT k, s FROM st",
                             "SELECT * FROM st PER PARTITION LIMIT 1", "SELECT * FROM st LIMIT 7"};
    for (int i = 0; i < 5; i++) {
        cql_prepared *p = PREP(&e, queries[i]);
        paged whole, pg;
        run_unpaged(&e, p, NULL, &whole);
        ASSERT(whole.rows > 0);
        const int32_t sizes[] = {1, 2, 3, 5};
        for (int j = 0; j < 4; j++) {
            run_paged(&e, p, NULL, sizes[j], &pg);
            if (pg.rows != whole.rows || pg.all.len != whole.all.len ||
                memcmp(pg.all.p, whole.all.p, pg.all.len) != 0)
                test_fail(__FILE__, __LINE__, "%s, pages of %d: %u rows, want %u", queries[i],
                          sizes[j], pg.rows, whole.rows);
            eng_buf_free(&pg.all);
        }
        eng_buf_free(&whole.all);
        cql_prepared_unref(p);
    }
    cql_prepared_unref(row);
    cql_prepared_unref(stat);
    env_close(&e);
}

TEST(paging_state_garbage_is_refused)
{
    env e;
    paging_setup(&e);
    cql_prepared *p = PREP(&e, "SELECT k, c FROM p");
    cql_prepared *one = PREP(&e, "SELECT k, c FROM p WHERE k = 4");
    uint64_t seed = test_seed();
    uint8_t junk[64];
    for (int round = 0; round < 200; round++) {
        size_t len = (size_t)(test_rand(&seed) % sizeof junk) + 1;
        for (size_t i = 0; i < len; i++)
            junk[i] = (uint8_t)test_rand(&seed);
        for (int q = 0; q < 2; q++) {
            cql_exec_options o;
            cql_exec_options_init(&o);
            o.page_size = 10;
            o.paging_state = junk;
            o.paging_state_len = len;
            eng_err err;
            eng_err_clear(&err);
            cql_result *r = NULL;
            int rc = cql_execute(e.s, q ? one : p, &o, &r, &err);
            /* Either refused with Cassandra's text, or (by chance) a valid position. */
            if (rc) {
                ASSERT(r == NULL);
                ASSERT_STR_EQ(err.msg, "Invalid value for the paging state");
            } else {
                ASSERT(r->n_rows <= 10);
                cql_result_free(r);
            }
        }
    }
    /* A few shapes that are never valid. */
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.page_size = 10;
    o.paging_state = (const uint8_t *)"\x00\x00";
    o.paging_state_len = 2;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_NE(cql_execute(e.s, p, &o, NULL, &err), 0);
    ASSERT_STR_EQ(err.msg, "Invalid value for the paging state");
    cql_prepared_unref(p);
    cql_prepared_unref(one);
    env_close(&e);
}

TEST(paging_state_of_another_statement_is_refused)
{
    env e;
    paging_setup(&e);
    OK(&e, "CREATE TABLE q (k int, c int, v text, PRIMARY KEY (k, c))");
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 30; c++) {
            char s[128];
            snprintf(s, sizeof s, "INSERT INTO q (k, c, v) VALUES (%d, %d, 'x')", k, c);
            OK(&e, s);
        }
    cql_prepared *a = PREP(&e, "SELECT k, c FROM p");
    cql_prepared *b = PREP(&e, "SELECT k, c FROM q");
    cql_prepared *b1 = PREP(&e, "SELECT k, c FROM q WHERE k = 1");
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.page_size = 10;
    eng_err err;
    eng_err_clear(&err);
    cql_result *r = NULL;
    ASSERT_OK_ERR(cql_execute(e.s, a, &o, &r, &err), &err);
    ASSERT(r->has_more);
    o.paging_state = r->paging_state.p;
    o.paging_state_len = r->paging_state.len;
    cql_result *r2 = NULL;
    int rc = cql_execute(e.s, b, &o, &r2, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID, "Invalid value for the paging state");
    eng_err_clear(&err);
    rc = cql_execute(e.s, b1, &o, &r2, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID, "Invalid value for the paging state");
    cql_result_free(r);
    cql_prepared_unref(a);
    cql_prepared_unref(b);
    cql_prepared_unref(b1);
    env_close(&e);
}

/* ==== lightweight transactions ==== */

static void assert_applied_column(const cql_result *r, const char *ks, const char *table)
{
    ASSERT_EQ(r->kind, CQL_RESULT_ROWS);
    ASSERT(r->n_cols >= 1);
    ASSERT_STR_EQ(r->cols[0].name, "[applied]");
    ASSERT_EQ(r->cols[0].type->kind, ENG_BOOLEAN);
    ASSERT_STR_EQ(r->cols[0].ks, ks);
    ASSERT_STR_EQ(r->cols[0].table, table);
}

TEST(lwt_insert_if_not_exists_result_shape)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE l (k int, c int, s int static, b text, a int, PRIMARY KEY (k, c))");
    cql_prepared *p = PREP(&e, "INSERT INTO l (k, c, a, b) VALUES (?, ?, ?, ?) IF NOT EXISTS");
    ASSERT_EQ(cql_prepared_column_count(p), 0); /* LWT results vary per execution */
    vals v = {0};
    v_int(&v, 1);
    v_int(&v, 2);
    v_int(&v, 3);
    v_text(&v, "x");
    cql_result *r = EXEC(&e, p, &v);
    assert_applied_column(r, "ks", "l");
    ASSERT_EQ(r->n_cols, 1);
    ASSERT_STR_EQ(rows_text(r), "True");
    ASSERT_EQ(cell(r, 0, 0).len, 1);
    ASSERT_EQ(cell(r, 0, 0).p[0], 1);
    cql_result_free(r);
    /* Not applied: [applied] then every column in SELECT * order, current values; the static
       column is not read by a statement that does not write it (facts §5.3). */
    v_reset(&v);
    v_int(&v, 1);
    v_int(&v, 2);
    v_int(&v, 9);
    v_text(&v, "y");
    r = EXEC(&e, p, &v);
    assert_applied_column(r, "ks", "l");
    ASSERT_STR_EQ(col_names(r), "[applied],k,c,s,a,b");
    ASSERT_STR_EQ(rows_text(r), "False|1|2|null|3|x");
    ASSERT_EQ(cell(r, 0, 0).p[0], 0);
    ASSERT_STR_EQ(r->cols[5].ks, "ks");
    ASSERT_STR_EQ(r->cols[5].table, "l");
    ASSERT_EQ(r->cols[5].type->kind, ENG_TEXT);
    cql_result_free(r);
    r = QUERY(&e, "SELECT a, b FROM l WHERE k = 1 AND c = 2");
    ASSERT_STR_EQ(rows_text(r), "3|x");
    cql_result_free(r);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(lwt_update_if_condition_result_shape)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE lu (k int PRIMARY KEY, v1 int, v2 text, v3 int)");
    cql_prepared *p = PREP(&e, "UPDATE lu SET v1 = ? WHERE k = ? IF v1 = ? AND v2 = ?");
    vals v = {0};
    v_int(&v, 5);
    v_int(&v, 0);
    v_int(&v, 3);
    v_text(&v, "foo");
    /* No row: a single [applied] = false column (InsertUpdateIfConditionTest). */
    cql_result *r = EXEC(&e, p, &v);
    assert_applied_column(r, "ks", "lu");
    ASSERT_EQ(r->n_cols, 1);
    ASSERT_STR_EQ(rows_text(r), "False");
    cql_result_free(r);
    OK(&e, "INSERT INTO lu (k, v1, v2) VALUES (0, 3, 'bar')");
    /* Condition columns only, in IF order. */
    r = EXEC(&e, p, &v);
    ASSERT_STR_EQ(col_names(r), "[applied],v1,v2");
    ASSERT_STR_EQ(rows_text(r), "False|3|bar");
    ASSERT_STR_EQ(r->cols[1].table, "lu");
    ASSERT_EQ(r->cols[1].type->kind, ENG_INT);
    cql_result_free(r);
    OK(&e, "UPDATE lu SET v2 = 'foo' WHERE k = 0");
    r = EXEC(&e, p, &v);
    ASSERT_STR_EQ(col_names(r), "[applied]");
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    r = QUERY(&e, "SELECT v1 FROM lu WHERE k = 0");
    ASSERT_STR_EQ(rows_text(r), "5");
    cql_result_free(r);
    /* IF EXISTS on a missing row. */
    r = QUERY(&e, "UPDATE lu SET v1 = 1 WHERE k = 9 IF EXISTS");
    ASSERT_STR_EQ(col_names(r), "[applied]");
    ASSERT_STR_EQ(rows_text(r), "False");
    cql_result_free(r);
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM lu WHERE k = 9"), 0);
    cql_prepared_unref(p);
    env_close(&e);
}

TEST(lwt_prepared_conditional_statement_executed_twice)
{
    env e;
    setup(&e);
    OK(&e, "INSERT INTO kv (k, v) VALUES (1, 0)");
    /* A compare-and-set counter: the second execution with the same values sees v = 1. */
    cql_prepared *p = PREP(&e, "UPDATE kv SET v = ? WHERE k = ? IF v = ?");
    vals v = {0};
    v_int(&v, 1);
    v_int(&v, 1);
    v_int(&v, 0);
    cql_result *r = EXEC(&e, p, &v);
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    r = EXEC(&e, p, &v);
    ASSERT_STR_EQ(col_names(r), "[applied],v");
    ASSERT_STR_EQ(rows_text(r), "False|1");
    cql_result_free(r);
    /* And the same with IF NOT EXISTS. */
    cql_prepared *q = PREP(&e, "INSERT INTO kv (k, v, w) VALUES (?, ?, ?) IF NOT EXISTS");
    v_reset(&v);
    v_int(&v, 2);
    v_int(&v, 20);
    v_null(&v);
    r = EXEC(&e, q, &v);
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    r = EXEC(&e, q, &v);
    ASSERT_STR_EQ(col_names(r), "[applied],k,v,w");
    ASSERT_STR_EQ(rows_text(r), "False|2|20|null");
    cql_result_free(r);
    cql_prepared_unref(p);
    cql_prepared_unref(q);
    env_close(&e);
}

TEST(lwt_condition_value_rules)
{
    env e;
    setup(&e);
    OK(&e, "INSERT INTO kv (k, v) VALUES (1, 0)");
    cql_prepared *p = PREP(&e, "UPDATE kv SET w = 1 WHERE k = 1 IF v = ?");
    vals v = {0};
    v_unset(&v);
    EXEC_ERR(&e, p, &v, ENG_E_INVALID, "Invalid 'unset' value in condition");
    cql_prepared *q = PREP(&e, "UPDATE kv SET w = 1 WHERE k = 1 IF v > ?");
    v_reset(&v);
    v_null(&v);
    EXEC_ERR(&e, q, &v, ENG_E_INVALID, "Invalid comparison with null for operator \">\"");
    cql_prepared *in = PREP(&e, "UPDATE kv SET w = 1 WHERE k = 1 IF v IN ?");
    v_reset(&v);
    v_null(&v);
    EXEC_ERR(&e, in, &v, ENG_E_INVALID, "Invalid null list in IN condition");
    v_reset(&v);
    v_hex(&v, "00000002 00000004 00000005 00000004 00000000"); /* [5, 0] */
    cql_result *r = EXEC(&e, in, &v);
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    QUERY_ERR(&e, "UPDATE kv USING TIMESTAMP 5 SET w = 1 WHERE k = 1 IF v = 0", ENG_E_INVALID,
              "Cannot provide custom timestamp for conditional updates");
    r = QUERY(&e, "SELECT w FROM kv WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "1");
    cql_result_free(r);
    cql_prepared_unref(p);
    cql_prepared_unref(q);
    cql_prepared_unref(in);
    env_close(&e);
}

/* ==== batches ==== */

typedef struct batch {
    cql_prepared *stmts[16];
    cql_exec_options opts[16];
    vals v[16];
    uint32_t n;
} batch;

static vals *batch_add(batch *b, cql_prepared *p)
{
    ASSERT(b->n < 16);
    uint32_t i = b->n++;
    b->stmts[i] = p;
    v_reset(&b->v[i]);
    return &b->v[i];
}

static int batch_run(env *e, batch *b, int kind, int64_t ts, cql_result **out, eng_err *err)
{
    for (uint32_t i = 0; i < b->n; i++) {
        cql_exec_options_init(&b->opts[i]);
        b->opts[i].values = b->v[i].v;
        b->opts[i].n_values = b->v[i].n;
    }
    eng_err_clear(err);
    return cql_execute_batch(e->s, kind, b->stmts, b->opts, b->n, ts, out, err);
}

TEST(lwt_writes_ignore_the_client_default_timestamp)
{
    env e;
    setup(&e);
    /* Paxos re-stamps a conditional write with its ballot (facts §5.5): the protocol's
       default timestamp is no error, and not the cells' writetime. */
    cql_prepared *p = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?) IF NOT EXISTS");
    vals v = {0};
    v_int(&v, 1);
    v_int(&v, 10);
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.values = v.v;
    o.n_values = v.n;
    o.timestamp = 1234;
    eng_err err;
    eng_err_clear(&err);
    cql_result *r = NULL;
    ASSERT_OK_ERR(cql_execute(e.s, p, &o, &r, &err), &err);
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    r = QUERY(&e, "SELECT writetime(v) FROM kv WHERE k = 1");
    ASSERT(be64_of(cell(r, 0, 0)) > 1000000000000000LL); /* now, in microseconds */
    cql_result_free(r);
    /* The same in a conditional batch, whose unconditional member has its own timestamp. */
    cql_prepared *plain = PREP(&e, "UPDATE kv USING TIMESTAMP 5 SET w = ? WHERE k = ?");
    static batch b;
    vals *bv = batch_add(&b, p);
    v_int(bv, 2);
    v_int(bv, 20);
    bv = batch_add(&b, plain);
    v_int(bv, 21);
    v_int(bv, 2);
    ASSERT_OK_ERR(batch_run(&e, &b, 0, 999, &r, &err), &err);
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    r = QUERY(&e, "SELECT v, w, writetime(v), writetime(w) FROM kv WHERE k = 2");
    ASSERT_STR_EQ(col_names(r), "v,w,writetime(v),writetime(w)");
    ASSERT_EQ(be32_of(cell(r, 0, 0)), 20);
    ASSERT_EQ(be32_of(cell(r, 0, 1)), 21);
    ASSERT(be64_of(cell(r, 0, 2)) > 1000000000000000LL);
    ASSERT_EQ(be64_of(cell(r, 0, 2)), be64_of(cell(r, 0, 3))); /* one ballot */
    cql_result_free(r);
    cql_prepared_unref(p);
    cql_prepared_unref(plain);
    env_close(&e);
}

TEST(batch_is_atomic_an_invalid_member_writes_nothing)
{
    env e;
    setup(&e);
    cql_prepared *ins = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?)");
    cql_prepared *upd = PREP(&e, "UPDATE t SET v = ? WHERE k = ? AND c = ?");
    static batch b;
    vals *v = batch_add(&b, ins);
    v_int(v, 1);
    v_int(v, 10);
    v = batch_add(&b, upd);
    v_text(v, "a");
    v_int(v, 1);
    v_int(v, 1);
    v = batch_add(&b, ins);
    v_int(v, 2);
    v_raw(v, "\x01", 1); /* malformed int */
    eng_err err;
    cql_result *r = NULL;
    int rc = batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID, "Expected 4 or 0 byte int (1)");
    ASSERT(r == NULL);
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM t"), 0);
    /* A wrong number of values in one member. */
    v_reset(v);
    v_int(v, 2);
    rc = batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "there were 2 markers(?) in CQL but 1 bound variables");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    /* Fixed, the whole batch applies, across tables and partitions, with one timestamp. */
    v_int(v, 20);
    rc = batch_run(&e, &b, 0, 4242, &r, &err);
    ASSERT_OK_ERR(rc, &err);
    ASSERT_EQ(r->kind, CQL_RESULT_VOID);
    cql_result_free(r);
    r = QUERY(&e, "SELECT k, v, writetime(v) FROM kv");
    ASSERT_STR_EQ(rows_text(r), "1|10|4242\n2|20|4242");
    cql_result_free(r);
    r = QUERY(&e, "SELECT k, c, v FROM t");
    ASSERT_STR_EQ(rows_text(r), "1|1|a");
    cql_result_free(r);
    cql_prepared_unref(ins);
    cql_prepared_unref(upd);
    env_close(&e);
}

TEST(batch_members_are_modifications_only)
{
    env e;
    setup(&e);
    cql_prepared *ins = PREP(&e, "INSERT INTO kv (k, v) VALUES (1, 1)");
    cql_prepared *sel = PREP(&e, "SELECT * FROM kv");
    static batch b;
    batch_add(&b, ins);
    batch_add(&b, sel);
    eng_err err;
    int rc = batch_run(&e, &b, 0, ENG_TS_NONE, NULL, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are "
                  "allowed.");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    /* An empty batch does nothing. */
    b.n = 0;
    cql_result *r = NULL;
    ASSERT_OK_ERR(batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err), &err);
    ASSERT_EQ(r->kind, CQL_RESULT_VOID);
    cql_result_free(r);
    cql_prepared_unref(ins);
    cql_prepared_unref(sel);
    env_close(&e);
}

TEST(batch_counter_rules)
{
    env e;
    setup(&e);
    OK(&e, "CREATE TABLE cnt (k int PRIMARY KEY, n counter)");
    cql_prepared *inc = PREP(&e, "UPDATE cnt SET n = n + ? WHERE k = ?");
    cql_prepared *dec = PREP(&e, "UPDATE cnt SET n = n - ? WHERE k = ?");
    cql_prepared *ins = PREP(&e, "INSERT INTO kv (k, v) VALUES (1, 1)");
    static batch b;
    vals *v = batch_add(&b, inc);
    v_bigint(v, 5);
    v_int(v, 1);
    v = batch_add(&b, inc);
    v_bigint(v, 7);
    v_int(v, 1);
    v = batch_add(&b, dec);
    v_bigint(v, 2);
    v_int(v, 2);
    eng_err err;
    /* Logged batches refuse counters (BatchStatement.validate). */
    int rc = batch_run(&e, &b, 0, ENG_TS_NONE, NULL, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "Cannot include a counter statement in a logged batch");
    /* A counter batch adds up every increment. */
    ASSERT_OK_ERR(batch_run(&e, &b, 2, ENG_TS_NONE, NULL, &err), &err);
    cql_result *r = QUERY(&e, "SELECT k, n FROM cnt");
    ASSERT_STR_EQ(rows_text(r), "1|12\n2|-2");
    cql_result_free(r);
    /* Unlogged batches take counters too. */
    ASSERT_OK_ERR(batch_run(&e, &b, 1, ENG_TS_NONE, NULL, &err), &err);
    r = QUERY(&e, "SELECT k, n FROM cnt");
    ASSERT_STR_EQ(rows_text(r), "1|24\n2|-4");
    cql_result_free(r);
    /* No regular statement in a counter batch, nor a mix in any batch. */
    v = batch_add(&b, ins);
    rc = batch_run(&e, &b, 2, ENG_TS_NONE, NULL, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "Cannot include non-counter statement in a counter batch");
    rc = batch_run(&e, &b, 1, ENG_TS_NONE, NULL, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "Counter and non-counter mutations cannot exist in the same batch");
    r = QUERY(&e, "SELECT k, n FROM cnt");
    ASSERT_STR_EQ(rows_text(r), "1|24\n2|-4");
    cql_result_free(r);
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    /* A counter delta of the wrong size. */
    b.n = 0;
    v = batch_add(&b, inc);
    v_int(v, 1);
    v_int(v, 1);
    rc = batch_run(&e, &b, 2, ENG_TS_NONE, NULL, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID, "Expected 8 or 0 byte long (4)");
    cql_prepared_unref(inc);
    cql_prepared_unref(dec);
    cql_prepared_unref(ins);
    env_close(&e);
}

TEST(batch_conditional)
{
    env e;
    setup(&e);
    cql_prepared *ins = PREP(&e, "INSERT INTO t (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS");
    cql_prepared *upd = PREP(&e, "UPDATE t SET v = ? WHERE k = ? AND c = ? IF v = ?");
    cql_prepared *plain = PREP(&e, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)");
    static batch b;
    vals *v = batch_add(&b, ins);
    v_int(v, 1);
    v_int(v, 1);
    v_text(v, "a");
    v = batch_add(&b, plain);
    v_int(v, 1);
    v_int(v, 2);
    v_text(v, "b");
    eng_err err;
    cql_result *r = NULL;
    ASSERT_OK_ERR(batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err), &err);
    assert_applied_column(r, "ks", "t");
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    /* Conditions fail: nothing applies; the rows read, with key columns then condition
       columns (facts §5.4). */
    b.n = 0;
    v = batch_add(&b, upd);
    v_text(v, "x");
    v_int(v, 1);
    v_int(v, 1);
    v_text(v, "a");
    v = batch_add(&b, upd);
    v_text(v, "y");
    v_int(v, 1);
    v_int(v, 2);
    v_text(v, "zzz");
    ASSERT_OK_ERR(batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err), &err);
    assert_applied_column(r, "ks", "t");
    ASSERT_STR_EQ(col_names(r), "[applied],k,c,v");
    ASSERT_STR_EQ(rows_text(r), "False|1|1|a\nFalse|1|2|b");
    cql_result_free(r);
    r = QUERY(&e, "SELECT c, v FROM t WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "1|a\n2|b");
    cql_result_free(r);
    /* Both hold: both apply. */
    v_reset(v);
    v_text(v, "y");
    v_int(v, 1);
    v_int(v, 2);
    v_text(v, "b");
    ASSERT_OK_ERR(batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err), &err);
    ASSERT_STR_EQ(rows_text(r), "True");
    cql_result_free(r);
    r = QUERY(&e, "SELECT c, v FROM t WHERE k = 1");
    ASSERT_STR_EQ(rows_text(r), "1|x\n2|y");
    cql_result_free(r);
    /* One partition, one table. */
    v = batch_add(&b, plain);
    v_int(v, 2);
    v_int(v, 1);
    v_text(v, "q");
    int rc = batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "Batch with conditions cannot span multiple partitions");
    cql_prepared *other = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?)");
    b.stmts[2] = other;
    v_reset(v);
    v_int(v, 1);
    v_int(v, 1);
    rc = batch_run(&e, &b, 0, ENG_TS_NONE, &r, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_INVALID,
                  "Batch with conditions cannot span multiple tables");
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 0);
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM t WHERE k = 2"), 0);
    cql_prepared_unref(ins);
    cql_prepared_unref(upd);
    cql_prepared_unref(plain);
    cql_prepared_unref(other);
    env_close(&e);
}

TEST(batch_statement_with_markers_through_execute)
{
    env e;
    setup(&e);
    /* A BATCH text prepared as one statement: its markers in order across members. */
    cql_prepared *p = PREP(&e, "BEGIN BATCH USING TIMESTAMP ? "
                               "INSERT INTO kv (k, v) VALUES (?, ?); "
                               "UPDATE t SET v = ? WHERE k = ? AND c = ?; "
                               "APPLY BATCH");
    ASSERT_EQ(cql_prepared_bind_count(p), 6);
    ASSERT_STR_EQ(marker(p, 1, "ks", "kv"), "k int");
    ASSERT_STR_EQ(marker(p, 3, "ks", "t"), "v text");
    ASSERT_STR_EQ(marker(p, 5, "ks", "t"), "c int");
    ASSERT_EQ(cql_prepared_is_write(p), 1);
    vals v = {0};
    v_bigint(&v, 99);
    v_int(&v, 1);
    v_int(&v, 10);
    v_text(&v, "a");
    v_int(&v, 1);
    v_int(&v, 2);
    cql_result *r = EXEC(&e, p, &v);
    ASSERT_EQ(r->kind, CQL_RESULT_VOID);
    cql_result_free(r);
    r = QUERY(&e, "SELECT v, writetime(v) FROM kv");
    ASSERT_STR_EQ(rows_text(r), "10|99");
    cql_result_free(r);
    r = QUERY(&e, "SELECT v, writetime(v) FROM t");
    ASSERT_STR_EQ(rows_text(r), "a|99");
    cql_result_free(r);
    cql_prepared_unref(p);
    env_close(&e);
}

/* ==== schema changes ==== */

TEST(schema_statement_prepared_before_alter_add_follows_the_table)
{
    env e;
    setup(&e);
    OK(&e, "INSERT INTO kv (k, v, w) VALUES (1, 2, 3)");
    cql_prepared *sel = PREP(&e, "SELECT * FROM kv");
    cql_prepared *ins = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?)");
    ASSERT_EQ(cql_prepared_column_count(sel), 3);
    OK(&e, "ALTER TABLE kv ADD x text");
    /* Preparing the text again gives the new metadata at once (a re-prepare). */
    cql_prepared *again = PREP(&e, "SELECT * FROM kv");
    ASSERT(again == sel);
    ASSERT_EQ(cql_prepared_column_count(again), 4);
    ASSERT_STR_EQ(cql_prepared_column(again, 3)->name, "x");
    cql_prepared_unref(again);
    vals v = {0};
    v_int(&v, 2);
    v_int(&v, 20);
    cql_result_free(EXEC(&e, ins, &v));
    cql_result *r = EXEC(&e, sel, NULL);
    ASSERT_STR_EQ(col_names(r), "k,v,w,x");
    ASSERT_STR_EQ(rows_text(r), "1|2|3|null\n2|20|null|null");
    cql_result_free(r);
    ASSERT_EQ(cql_prepared_column_count(sel), 4);
    /* A dropped column: SELECT * follows, a statement naming it fails on re-analysis. */
    cql_prepared *w = PREP(&e, "UPDATE kv SET w = ? WHERE k = ?");
    OK(&e, "ALTER TABLE kv DROP w");
    r = EXEC(&e, sel, NULL);
    ASSERT_STR_EQ(col_names(r), "k,v,x");
    cql_result_free(r);
    v_reset(&v);
    v_int(&v, 1);
    v_int(&v, 1);
    EXEC_ERR(&e, w, &v, ENG_E_INVALID, "Undefined column name w in table ks.kv");
    cql_prepared_unref(w);
    cql_prepared_unref(sel);
    cql_prepared_unref(ins);
    env_close(&e);
}

TEST(schema_change_leaves_earlier_results_intact)
{
    env e;
    setup(&e);
    OK(&e, "INSERT INTO kv (k, v, w) VALUES (1, 2, 3)");
    OK(&e, "CREATE TYPE addr (street text)");
    OK(&e, "CREATE TABLE u (k int PRIMARY KEY, a frozen<addr>)");
    OK(&e, "INSERT INTO u (k, a) VALUES (1, {street: 'x'})");
    /* A schema version that only these statements are analyzed against (the statement that
       made it was prepared against the one before). */
    OK(&e, "CREATE TABLE other (k int PRIMARY KEY)");
    cql_prepared *sel = PREP(&e, "SELECT k, v AS value, w FROM kv");
    cql_prepared *su = PREP(&e, "SELECT a FROM u");
    cql_prepared *lwt = PREP(&e, "UPDATE kv SET v = 5 WHERE k = 1 IF w = 0");
    cql_result *r1 = EXEC(&e, sel, NULL);
    cql_result *r2 = EXEC(&e, su, NULL);
    cql_result *r3 = EXEC(&e, lwt, NULL);
    eng_err err;
    eng_err_clear(&err);
    /* The schema moves on (through the engine, so that no statement holds the old
       version) and the statements run again: their new analyses replace the old ones.
       Results already handed out keep their metadata, which the caller still reads. */
    eng_type *int_t = eng_type_new(ENG_INT);
    ASSERT(int_t != NULL);
    eng_column_def x = {"x", int_t, ENG_COL_REGULAR, 0};
    int changed = 0;
    ASSERT_OK_ERR(eng_alter_table_add(e.db, "ks", "kv", &x, 1, 0, &changed, &err), &err);
    ASSERT_OK_ERR(eng_alter_type_add(e.db, "ks", "addr", "num", int_t, 0, &changed, &err), &err);
    eng_type_free(int_t);
    cql_result_free(EXEC(&e, sel, NULL));
    cql_result_free(EXEC(&e, su, NULL));
    cql_result_free(EXEC(&e, lwt, NULL));
    ASSERT_STR_EQ(col_names(r1), "k,value,w");
    ASSERT_STR_EQ(r1->cols[1].ks, "ks");
    ASSERT_STR_EQ(r1->cols[1].table, "kv");
    ASSERT_STR_EQ(rows_text(r1), "1|2|3");
    ASSERT_STR_EQ(rows_text(r2), "{street: 'x'}");
    ASSERT_STR_EQ(type_text(r2->cols[0].type), "frozen<addr>");
    ASSERT_STR_EQ(col_names(r3), "[applied],w");
    ASSERT_STR_EQ(rows_text(r3), "False|3");
    cql_result_free(r1);
    cql_result_free(r2);
    cql_result_free(r3);
    /* The same for the result of a conditional batch of prepared statements. */
    OK(&e, "CREATE TABLE other2 (k int PRIMARY KEY)");
    cql_prepared *member = PREP(&e, "UPDATE kv SET v = 6 WHERE k = 1 IF v = 0");
    cql_exec_options none;
    cql_exec_options_init(&none);
    cql_result *r4 = NULL;
    ASSERT_OK_ERR(cql_execute_batch(e.s, 0, &member, &none, 1, ENG_TS_NONE, &r4, &err), &err);
    eng_column_def y = {"y", NULL, ENG_COL_REGULAR, 0};
    int_t = eng_type_new(ENG_INT);
    ASSERT(int_t != NULL);
    y.type = int_t;
    ASSERT_OK_ERR(eng_alter_table_add(e.db, "ks", "kv", &y, 1, 0, &changed, &err), &err);
    eng_type_free(int_t);
    ASSERT_OK_ERR(cql_execute_batch(e.s, 0, &member, &none, 1, ENG_TS_NONE, NULL, &err), &err);
    ASSERT_STR_EQ(col_names(r4), "[applied],k,v");
    ASSERT_STR_EQ(rows_text(r4), "False|1|2");
    ASSERT_STR_EQ(r4->cols[1].table, "kv");
    cql_result_free(r4);
    cql_prepared_unref(member);
    cql_prepared_unref(sel);
    cql_prepared_unref(su);
    cql_prepared_unref(lwt);
    env_close(&e);
}

TEST(schema_statement_prepared_before_drop_table_fails)
{
    env e;
    setup(&e);
    cql_prepared *sel = PREP(&e, "SELECT * FROM kv WHERE k = ?");
    cql_prepared *ins = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?)");
    OK(&e, "DROP TABLE kv");
    vals v = {0};
    v_int(&v, 1);
    EXEC_ERR(&e, sel, &v, ENG_E_INVALID, "table kv does not exist");
    /* Preparing it again fails the same way. */
    QUERY_ERR(&e, "SELECT * FROM kv WHERE k = ?", ENG_E_INVALID, "table kv does not exist");
    v_int(&v, 1);
    EXEC_ERR(&e, ins, &v, ENG_E_INVALID, "table kv does not exist");
    /* Recreated (other columns): the statement follows the new table. */
    OK(&e, "CREATE TABLE kv (k int PRIMARY KEY, v int)");
    cql_result_free(EXEC(&e, ins, &v));
    v_reset(&v);
    v_int(&v, 1);
    cql_result *r = EXEC(&e, sel, &v);
    ASSERT_STR_EQ(col_names(r), "k,v");
    ASSERT_STR_EQ(rows_text(r), "1|1");
    cql_result_free(r);
    /* The keyspace gone: its own message. */
    OK(&e, "DROP KEYSPACE ks");
    EXEC_ERR(&e, sel, &v, ENG_E_INVALID, "keyspace ks does not exist");
    cql_prepared_unref(sel);
    cql_prepared_unref(ins);
    env_close(&e);
}

TEST(schema_use_sets_the_session_keyspace)
{
    env e;
    env_open(&e);
    ASSERT(cql_session_keyspace(e.s) == NULL);
    ASSERT(cql_session_db(e.s) == e.db);
    QUERY_ERR(&e, "USE ks", ENG_E_INVALID, "Keyspace 'ks' does not exist");
    OK(&e, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    OK(&e, "CREATE KEYSPACE \"Other\" WITH replication = {'class': 'SimpleStrategy', "
           "'replication_factor': 1}");
    cql_result *r = QUERY(&e, "USE ks");
    ASSERT_EQ(r->kind, CQL_RESULT_SET_KEYSPACE);
    ASSERT_STR_EQ(r->keyspace, "ks");
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    ASSERT_STR_EQ(cql_session_keyspace(e.s), "ks");
    r = QUERY(&e, "USE \"Other\"");
    ASSERT_STR_EQ(r->keyspace, "Other");
    cql_result_free(r);
    ASSERT_STR_EQ(cql_session_keyspace(e.s), "Other");
    /* Case folds without quotes. */
    r = QUERY(&e, "USE KS");
    ASSERT_STR_EQ(r->keyspace, "ks");
    cql_result_free(r);
    /* A failed USE keeps the current keyspace. */
    QUERY_ERR(&e, "USE nope", ENG_E_INVALID, "Keyspace 'nope' does not exist");
    ASSERT_STR_EQ(cql_session_keyspace(e.s), "ks");
    /* USE prepared and executed. */
    cql_prepared *p = PREP(&e, "USE \"Other\"");
    r = EXEC(&e, p, NULL);
    ASSERT_EQ(r->kind, CQL_RESULT_SET_KEYSPACE);
    cql_result_free(r);
    ASSERT_STR_EQ(cql_session_keyspace(e.s), "Other");
    cql_prepared_unref(p);
    env_close(&e);
}

static void assert_schema_change(cql_result *r, const char *change, const char *target,
                                 const char *ks, const char *object)
{
    ASSERT_EQ(r->kind, CQL_RESULT_SCHEMA_CHANGE);
    ASSERT_STR_EQ(r->change, change);
    ASSERT_STR_EQ(r->target, target);
    ASSERT_STR_EQ(r->keyspace, ks);
    ASSERT_STR_EQ(r->object, object);
    cql_result_free(r);
}

TEST(schema_change_results)
{
    env e;
    env_open(&e);
    assert_schema_change(QUERY(&e, "CREATE KEYSPACE ks WITH replication = "
                                   "{'class': 'SimpleStrategy', 'replication_factor': 1}"),
                         "CREATED", "KEYSPACE", "ks", "");
    assert_schema_change(QUERY(&e, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)"), "CREATED",
                         "TABLE", "ks", "t");
    assert_schema_change(QUERY(&e, "ALTER TABLE ks.t ADD w text"), "UPDATED", "TABLE", "ks", "t");
    assert_schema_change(QUERY(&e, "CREATE TYPE ks.addr (street text)"), "CREATED", "TYPE", "ks",
                         "addr");
    assert_schema_change(QUERY(&e, "ALTER TYPE ks.addr ADD num int"), "UPDATED", "TYPE", "ks",
                         "addr");
    assert_schema_change(QUERY(&e, "ALTER KEYSPACE ks WITH durable_writes = false"), "UPDATED",
                         "KEYSPACE", "ks", "");
    /* IF NOT EXISTS that changes nothing: a VOID result. */
    cql_result *r = QUERY(&e, "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)");
    ASSERT_EQ(r->kind, CQL_RESULT_VOID);
    cql_result_free(r);
    r = QUERY(&e, "DROP TABLE IF EXISTS ks.nope");
    ASSERT_EQ(r->kind, CQL_RESULT_VOID);
    cql_result_free(r);
    /* TRUNCATE is not a schema change. */
    r = QUERY(&e, "TRUNCATE ks.t");
    ASSERT_EQ(r->kind, CQL_RESULT_VOID);
    cql_result_free(r);
    assert_schema_change(QUERY(&e, "DROP TYPE ks.addr"), "DROPPED", "TYPE", "ks", "addr");
    assert_schema_change(QUERY(&e, "DROP TABLE ks.t"), "DROPPED", "TABLE", "ks", "t");
    assert_schema_change(QUERY(&e, "DROP KEYSPACE ks"), "DROPPED", "KEYSPACE", "ks", "");
    env_close(&e);
}

TEST(errors_already_exists_carry_keyspace_and_table)
{
    env e;
    setup(&e);
    eng_err err;
    eng_err_clear(&err);
    const char *q = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
                    "'replication_factor': 1}";
    int rc = cql_query(e.s, q, strlen(q), NULL, NULL, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_EXISTS, "Cannot add existing keyspace \"ks\"");
    ASSERT_STR_EQ(err.ks, "ks");
    ASSERT_STR_EQ(err.table, "");
    eng_err_clear(&err);
    q = "CREATE TABLE kv (k int PRIMARY KEY)";
    rc = cql_query(e.s, q, strlen(q), NULL, NULL, &err);
    expect_err_at(__LINE__, rc, &err, ENG_E_EXISTS,
                  "Cannot add already existing table \"kv\" to keyspace \"ks\"");
    ASSERT_STR_EQ(err.ks, "ks");
    ASSERT_STR_EQ(err.table, "kv");
    /* A type is an InvalidRequest (CreateTypeStatement). */
    OK(&e, "CREATE TYPE addr (street text)");
    QUERY_ERR(&e, "CREATE TYPE addr (street text)", ENG_E_INVALID,
              "A user type with name 'addr' already exists");
    env_close(&e);
}

TEST(errors_syntax_and_invalid_codes)
{
    env e;
    setup(&e);
    const char *bad[] = {"SELEC * FROM t", "SELECT * FROM", "INSERT INTO t (k) VALUES (1",
                         "SELECT * FROM t WHERE k = ? ?", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        eng_err err;
        eng_err_clear(&err);
        cql_prepared *p = NULL;
        int rc = cql_prepare(e.s, bad[i], strlen(bad[i]), &p, &err);
        if (rc != ENG_E_SYNTAX || err.code != ENG_E_SYNTAX || p != NULL || !err.msg[0])
            test_fail(__FILE__, __LINE__, "%s: 0x%x %s", bad[i], rc, err.msg);
    }
    /* Setting the same column twice is a parser error in Cassandra (facts §8.2). */
    QUERY_ERR(&e, "UPDATE kv SET v = 1, v = 2 WHERE k = 1", ENG_E_SYNTAX,
              "Multiple incompatible setting of column v");
    QUERY_ERR(&e, "SELECT * FROM kv WHERE v = 1", ENG_E_INVALID,
              "Cannot execute this query as it might involve data filtering and thus may have "
              "unpredictable performance. If you want to execute this query despite the "
              "performance unpredictability, use ALLOW FILTERING");
    QUERY_ERR(&e, "INSERT INTO t (k, v) VALUES (1, 'a')", ENG_E_INVALID,
              "Some clustering keys are missing: c");
    /* Errors leave no result and the session usable. */
    cql_result *r = QUERY(&e, "SELECT * FROM kv");
    ASSERT_EQ(r->n_rows, 0);
    cql_result_free(r);
    env_close(&e);
}

/* ==== threads ==== */

typedef struct worker {
    eng_db *db;
    cql_prepared *ins;
    cql_prepared *sel;
    int id;
    int failures;
    char msg[600];
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    eng_err err;
    eng_err_clear(&err);
    cql_session *s = NULL;
    if (cql_session_new(w->db, &s, &err)) {
        w->failures++;
        return NULL;
    }
    for (int i = 0; i < 200; i++) {
        vals *v = calloc(1, sizeof *v);
        if (!v) {
            w->failures++;
            break;
        }
        v_int(v, w->id * 1000 + i);
        v_int(v, i);
        cql_exec_options o;
        cql_exec_options_init(&o);
        o.values = v->v;
        o.n_values = v->n;
        eng_err_clear(&err);
        if (cql_execute(s, w->ins, &o, NULL, &err)) {
            w->failures++;
            snprintf(w->msg, sizeof w->msg, "%s", err.msg);
        }
        v_reset(v);
        v_int(v, w->id * 1000 + i);
        o.values = v->v;
        o.n_values = v->n;
        cql_result *r = NULL;
        eng_err_clear(&err);
        if (cql_execute(s, w->sel, &o, &r, &err) || r->n_rows != 1 || r->cells[0].len != 4 ||
            (int32_t)eng_be32(r->cells[0].p) != i) {
            w->failures++;
            snprintf(w->msg, sizeof w->msg, "read back: %s", err.msg);
        }
        cql_result_free(r);
        free(v);
    }
    cql_session_free(s);
    return NULL;
}

TEST(threads_share_one_prepared_statement)
{
    env e;
    setup(&e);
    /* Prepared in a keyspace; executed from sessions that never ran USE. */
    cql_prepared *ins = PREP(&e, "INSERT INTO kv (k, v) VALUES (?, ?)");
    cql_prepared *sel = PREP(&e, "SELECT v FROM kv WHERE k = ?");
    worker w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){e.db, ins, sel, i, 0, ""};
        ASSERT_EQ(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    /* Meanwhile the schema changes: every execution re-analyzes against it. */
    for (int i = 0; i < 5; i++) {
        char q[64];
        snprintf(q, sizeof q, "ALTER TABLE kv ADD x%d int", i);
        OK(&e, q);
    }
    for (int i = 0; i < 4; i++) {
        ASSERT_EQ(pthread_join(th[i], NULL), 0);
        if (w[i].failures)
            test_fail(__FILE__, __LINE__, "worker %d: %d failures (%s)", i, w[i].failures,
                      w[i].msg);
    }
    ASSERT_EQ(count_rows(&e, "SELECT count(*) FROM kv"), 800);
    cql_prepared_unref(ins);
    cql_prepared_unref(sel);
    env_close(&e);
}

/* ==== several databases ==== */

TEST(prepared_statements_belong_to_their_database)
{
    /* The same text on two databases (open together, then one after the other, so that the
       second may reuse the first one's memory) is prepared against each one's schema. */
    for (int round = 0; round < 4; round++) {
        env a, b;
        setup(&a);
        env_open(&b);
        OK(&b, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
               "'replication_factor': 1}");
        OK(&b, "USE ks");
        OK(&b, "CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))");
        OK(&b, round % 2 ? "CREATE TABLE kv (k int PRIMARY KEY, v text, w int)"
                         : "CREATE TABLE kv (k int PRIMARY KEY, v bigint, w int)");
        const char *q = "INSERT INTO kv (k, v) VALUES (?, ?)";
        cql_prepared *pa = PREP(&a, q);
        cql_prepared *pb = PREP(&b, q);
        ASSERT(pa != pb);
        ASSERT_STR_EQ(marker(pa, 1, "ks", "kv"), "v int");
        ASSERT_STR_EQ(marker(pb, 1, "ks", "kv"), round % 2 ? "v text" : "v bigint");
        vals v = {0};
        v_int(&v, 1);
        v_int(&v, 5);
        cql_result_free(EXEC(&a, pa, &v));
        ASSERT_EQ(count_rows(&a, "SELECT count(*) FROM kv"), 1);
        ASSERT_EQ(count_rows(&b, "SELECT count(*) FROM kv"), 0);
        cql_prepared_unref(pa);
        cql_prepared_unref(pb);
        env_close(&a);
        env_close(&b);
    }
}

/* ==== which reads are bounded (the server runs those on its I/O thread) ==== */

static int bounded(env *e, const char *q, int32_t page_size, uint32_t max_rows)
{
    cql_prepared *p = NULL;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_prepare(e->s, q, strlen(q), &p, &err), &err);
    int b = cql_prepared_bounded_read(e->s, p, page_size, max_rows);
    cql_prepared_unref(p);
    return b;
}

TEST(bounded_reads_are_single_partition_reads_of_few_rows)
{
    env e;
    setup(&e);
    /* the whole primary key: one row, whatever the page */
    ASSERT(bounded(&e, "SELECT v FROM t WHERE k = ? AND c = ?", -1, 1));
    ASSERT(bounded(&e, "SELECT v FROM t WHERE k = 1 AND c IN (2)", 5000, 1));
    /* one partition: a LIMIT or the page must bound it */
    ASSERT(bounded(&e, "SELECT v FROM t WHERE k = ? LIMIT 10", -1, 10));
    ASSERT(!bounded(&e, "SELECT v FROM t WHERE k = ? LIMIT 11", -1, 10));
    ASSERT(bounded(&e, "SELECT v FROM t WHERE k = ? LIMIT 50", 5, 10));
    ASSERT(!bounded(&e, "SELECT v FROM t WHERE k = ?", -1, 10));
    ASSERT(!bounded(&e, "SELECT v FROM t WHERE k = ? LIMIT ?", -1, 10));
    /* several partitions, scans, filtering, aggregates, system tables: never */
    ASSERT(!bounded(&e, "SELECT v FROM t WHERE k IN (1, 2) AND c = 1", -1, 10));
    ASSERT(!bounded(&e, "SELECT v FROM t WHERE k IN ? AND c = 1", -1, 10));
    ASSERT(!bounded(&e, "SELECT v FROM t LIMIT 1", -1, 10));
    ASSERT(!bounded(&e, "SELECT v FROM t WHERE token(k) > 0 LIMIT 1", -1, 10));
    ASSERT(!bounded(&e, "SELECT v FROM t WHERE k = 1 AND v = 'x' LIMIT 1 ALLOW FILTERING", -1,
                    10));
    ASSERT(!bounded(&e, "SELECT count(*) FROM t WHERE k = 1", -1, 10));
    ASSERT(!bounded(&e, "SELECT release_version FROM system.local WHERE key = 'local'", -1, 10));
    ASSERT(!bounded(&e, "INSERT INTO t (k, c, v) VALUES (1, 1, 'x')", -1, 10));
    env_close(&e);
}

/* ==== now_in_seconds (v5): the time TTLs count from, for writes and reads ==== */

static uint32_t rows_at(env *e, const char *q, int64_t now_s, int32_t *ttl)
{
    cql_exec_options o;
    cql_exec_options_init(&o);
    o.now_s = now_s;
    cql_result *r = NULL;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_query(e->s, q, strlen(q), &o, &r, &err), &err);
    uint32_t n = r->n_rows;
    if (ttl && n && r->cells[0].len == 4)
        *ttl = (int32_t)((uint32_t)r->cells[0].p[0] << 24 | (uint32_t)r->cells[0].p[1] << 16 |
                         (uint32_t)r->cells[0].p[2] << 8 | r->cells[0].p[3]);
    cql_result_free(r);
    return n;
}

TEST(now_in_seconds_is_the_time_ttls_count_from)
{
    env e;
    setup(&e);
    int64_t now = (int64_t)time(NULL);
    /* written "1000 s ago" for 500 s: expired at the clock's time */
    (void)rows_at(&e, "INSERT INTO kv (k, v) VALUES (1, 1) USING TTL 500", now - 1000, NULL);
    ASSERT_EQ(rows_at(&e, "SELECT v FROM kv WHERE k = 1", 0, NULL), 0);
    int32_t ttl = 0;
    ASSERT_EQ(rows_at(&e, "SELECT ttl(v) FROM kv WHERE k = 1", now - 800, &ttl), 1);
    ASSERT_EQ(ttl, 300);
    /* a conditional write reads at its now too */
    ASSERT_EQ(rows_at(&e, "INSERT INTO kv (k, v) VALUES (1, 2) IF NOT EXISTS", now - 800, NULL),
              1);
    ASSERT_EQ(rows_at(&e, "SELECT v FROM kv WHERE k = 1 AND v = 1 ALLOW FILTERING", now - 800,
                      NULL),
              1); /* not applied: the row was there then */
    env_close(&e);
}
