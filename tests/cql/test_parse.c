/*
 * The CQL parser (cql/lang/parse.c): every statement form of ast.h, every
 * literal, names and keywords, bind markers, positions, Cassandra's error
 * texts, robustness on prefixes, mutations and deep nesting, and the script
 * splitter. Expected texts come from Cassandra 4.1's grammar (Lexer.g,
 * Parser.g) and from error messages cqlsh printed against real clusters.
 */
#include "cql/lang/parse.h"
#include "cql/lang/lexer.h"
#include "cql/lang/script.h"
#include "harness.h"

/* Each test runs in its own process: one arena per test, freed by done(). */
static eng_arena g_arena;
static int g_arena_ready;

static eng_arena *arena(void)
{
    if (!g_arena_ready) {
        eng_arena_init(&g_arena, 0);
        g_arena_ready = 1;
    }
    return &g_arena;
}

static void done(void)
{
    if (g_arena_ready)
        eng_arena_free(&g_arena);
    g_arena_ready = 0;
}

/* Parses from an exact-size copy, so a read past the end is caught by ASAN. */
static int parse_len(const char *q, size_t len, cql_stmt **st, eng_err *err)
{
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return ENG_E_NOMEM;
    memcpy(copy, q, len);
    eng_err_clear(err);
    int rc = cql_parse(copy, len, arena(), st, err);
    free(copy);
    return rc;
}

static cql_stmt *parse_ok_at(const char *file, int line, const char *q)
{
    eng_err err;
    cql_stmt *st = NULL;
    int rc = parse_len(q, strlen(q), &st, &err);
    if (rc != 0 || !st)
        test_fail(file, line, "parse of [%s] failed: 0x%x %s", q, rc, err.msg);
    return st;
}

static void parse_err_at(const char *file, int line, const char *q, int code, const char *msg,
                         int prefix)
{
    eng_err err;
    cql_stmt *st = NULL;
    int rc = parse_len(q, strlen(q), &st, &err);
    if (rc != code || err.code != code || st)
        test_fail(file, line, "parse of [%s]: got 0x%x (%s), want 0x%x", q, rc, err.msg, code);
    if (prefix ? strncmp(err.msg, msg, strlen(msg)) != 0 : strcmp(err.msg, msg) != 0)
        test_fail(file, line, "parse of [%s]: message\n  got  \"%s\"\n  want \"%s\"%s", q, err.msg,
                  msg, prefix ? " (prefix)" : "");
}

#define OK(q) parse_ok_at(__FILE__, __LINE__, (q))
#define ERR(q, msg) parse_err_at(__FILE__, __LINE__, (q), ENG_E_SYNTAX, (msg), 0)
#define ERR_PREFIX(q, msg) parse_err_at(__FILE__, __LINE__, (q), ENG_E_SYNTAX, (msg), 1)
#define INVALID(q, msg) parse_err_at(__FILE__, __LINE__, (q), ENG_E_INVALID, (msg), 0)

/* The first WHERE value of a SELECT: the handiest place to look at one term. */
static const cql_term *where_value(const cql_stmt *st)
{
    ASSERT_EQ(st->kind, CQL_S_SELECT);
    ASSERT(st->u.select.n_where >= 1);
    ASSERT(st->u.select.where[0].n_values >= 1);
    return st->u.select.where[0].values[0];
}

static const cql_term *term_of_at(const char *file, int line, const char *term_text)
{
    char q[512];
    snprintf(q, sizeof q, "SELECT * FROM t WHERE k = %s", term_text);
    return where_value(parse_ok_at(file, line, q));
}

#define TERM(text) term_of_at(__FILE__, __LINE__, (text))

static void assert_literal_at(const char *file, int line, const char *src, int kind,
                              const char *text)
{
    const cql_term *t = term_of_at(file, line, src);
    if (t->kind != kind || !t->text || strcmp(t->text, text) != 0 || t->len != strlen(text))
        test_fail(file, line, "literal [%s]: got kind %d text \"%s\", want kind %d \"%s\"", src,
                  t->kind, t->text ? t->text : "(null)", kind, text);
}

#define LITERAL(src, kind, text) assert_literal_at(__FILE__, __LINE__, (src), (kind), (text))

/* ---- USE and keyspaces ---- */

TEST(test_use_lowercases_unquoted_keyspace_and_keeps_quoted_exact)
{
    cql_stmt *st = OK("USE MyKeyspace");
    ASSERT_EQ(st->kind, CQL_S_USE);
    ASSERT_STR_EQ(st->u.use_ks, "mykeyspace");
    st = OK("use \"MyKs\";");
    ASSERT_STR_EQ(st->u.use_ks, "MyKs");
    ASSERT_EQ(st->n_binds, 0);
    done();
}

TEST(test_create_keyspace_with_replication_map_and_durable_writes)
{
    cql_stmt *st = OK("CREATE KEYSPACE IF NOT EXISTS Ks WITH replication = "
                      "{'class': 'SimpleStrategy', 'replication_factor': 1} AND "
                      "DURABLE_WRITES = false");
    ASSERT_EQ(st->kind, CQL_S_CREATE_KEYSPACE);
    const cql_keyspace_stmt *k = &st->u.keyspace;
    ASSERT_EQ(k->if_flag, 1);
    ASSERT_STR_EQ(k->ks, "ks");
    ASSERT_EQ(k->n_props, 2);
    ASSERT_STR_EQ(k->props[0].name, "replication");
    const cql_term *m = k->props[0].value;
    ASSERT_EQ(m->kind, CQL_T_MAP);
    ASSERT_EQ(m->n_items, 4);
    ASSERT_STR_EQ(m->items[0]->text, "class");
    ASSERT_STR_EQ(m->items[1]->text, "SimpleStrategy");
    ASSERT_EQ(m->items[3]->kind, CQL_T_INTEGER);
    ASSERT_STR_EQ(m->items[3]->text, "1");
    ASSERT_STR_EQ(k->props[1].name, "durable_writes");
    ASSERT_EQ(k->props[1].value->kind, CQL_T_BOOLEAN);
    ASSERT_STR_EQ(k->props[1].value->text, "false");
    st = OK("CREATE SCHEMA ks2 WITH replication = {}");
    ASSERT_EQ(st->u.keyspace.if_flag, 0);
    ASSERT_EQ(st->u.keyspace.props[0].value->n_items, 0);
    done();
}

TEST(test_alter_and_drop_keyspace_if_exists)
{
    cql_stmt *st = OK("ALTER KEYSPACE IF EXISTS ks WITH durable_writes = true");
    ASSERT_EQ(st->kind, CQL_S_ALTER_KEYSPACE);
    ASSERT_EQ(st->u.keyspace.if_flag, 1);
    ASSERT_EQ(st->u.keyspace.n_props, 1);
    st = OK("DROP KEYSPACE IF EXISTS ks");
    ASSERT_EQ(st->kind, CQL_S_DROP_KEYSPACE);
    ASSERT_EQ(st->u.keyspace.if_flag, 1);
    ASSERT_STR_EQ(st->u.keyspace.ks, "ks");
    st = OK("DROP KEYSPACE ks");
    ASSERT_EQ(st->u.keyspace.if_flag, 0);
    done();
}

TEST(test_property_value_may_be_an_unreserved_keyword)
{
    cql_stmt *st = OK("ALTER TABLE t WITH caching = ALL AND comment = 'c' AND x = 1.5");
    ASSERT_EQ(st->u.alter_table.kind, CQL_ALTER_WITH);
    ASSERT_EQ(st->u.alter_table.n_props, 3);
    ASSERT_EQ(st->u.alter_table.props[0].value->kind, CQL_T_STRING);
    ASSERT_STR_EQ(st->u.alter_table.props[0].value->text, "ALL");
    ASSERT_EQ(st->u.alter_table.props[2].value->kind, CQL_T_FLOAT);
    done();
}

/* ---- CREATE TABLE ---- */

TEST(test_create_table_inline_primary_key)
{
    cql_stmt *st = OK("CREATE TABLE ks.Users (login text PRIMARY KEY, name text, age int)");
    ASSERT_EQ(st->kind, CQL_S_CREATE_TABLE);
    const cql_create_table *c = &st->u.create_table;
    ASSERT_STR_EQ(c->table.ks, "ks");
    ASSERT_STR_EQ(c->table.name, "users");
    ASSERT_EQ(c->n_cols, 3);
    ASSERT_STR_EQ(c->cols[0].name, "login");
    ASSERT_STR_EQ(c->cols[0].type->name, "text");
    ASSERT_EQ(c->cols[0].is_primary_key, 1);
    ASSERT_EQ(c->cols[1].is_primary_key, 0);
    ASSERT(c->pk == NULL);
    ASSERT_EQ(c->n_primary_key_clauses, 1);
    ASSERT_EQ(c->if_not_exists, 0);
    done();
}

TEST(test_create_table_composite_partition_key_and_clustering_columns)
{
    cql_stmt *st = OK("CREATE TABLE IF NOT EXISTS t (a int, b int, c int, d int, v text, "
                      "PRIMARY KEY ((a, b), c, d))");
    const cql_create_table *c = &st->u.create_table;
    ASSERT_EQ(c->if_not_exists, 1);
    ASSERT_EQ(c->n_pk, 2);
    ASSERT_STR_EQ(c->pk[0], "a");
    ASSERT_STR_EQ(c->pk[1], "b");
    ASSERT_EQ(c->n_ck, 2);
    ASSERT_STR_EQ(c->ck[0], "c");
    ASSERT_STR_EQ(c->ck[1], "d");
    ASSERT_EQ(c->n_primary_key_clauses, 1);
    st = OK("CREATE TABLE t (a int, c int, PRIMARY KEY (a, c))");
    ASSERT_EQ(st->u.create_table.n_pk, 1);
    ASSERT_STR_EQ(st->u.create_table.pk[0], "a");
    ASSERT_EQ(st->u.create_table.n_ck, 1);
    st = OK("CREATE COLUMNFAMILY t (a int, PRIMARY KEY (a))");
    ASSERT_EQ(st->u.create_table.n_ck, 0);
    done();
}

TEST(test_create_table_counts_every_primary_key_clause)
{
    cql_stmt *st = OK("CREATE TABLE t (a int PRIMARY KEY, b int, PRIMARY KEY (b))");
    ASSERT_EQ(st->u.create_table.n_primary_key_clauses, 2);
    st = OK("CREATE TABLE t (a int, b int)");
    ASSERT_EQ(st->u.create_table.n_primary_key_clauses, 0);
    done();
}

TEST(test_create_table_collection_frozen_tuple_and_udt_types)
{
    cql_stmt *st = OK("CREATE TABLE t (k int PRIMARY KEY, l list<int>, s set<frozen<list<text>>>, "
                      "m map<text, frozen<ks.address>>, tu tuple<int, text, blob>, "
                      "u frozen<Address>, q \"Quoted\")");
    const cql_column_decl *c = st->u.create_table.cols;
    ASSERT_EQ(st->u.create_table.n_cols, 7);
    ASSERT_STR_EQ(c[1].type->name, "list");
    ASSERT_EQ(c[1].type->n_args, 1);
    ASSERT_STR_EQ(c[1].type->args[0]->name, "int");
    ASSERT_STR_EQ(c[2].type->name, "set");
    ASSERT_STR_EQ(c[2].type->args[0]->name, "frozen");
    ASSERT_STR_EQ(c[2].type->args[0]->args[0]->name, "list");
    ASSERT_STR_EQ(c[2].type->args[0]->args[0]->args[0]->name, "text");
    ASSERT_STR_EQ(c[3].type->name, "map");
    ASSERT_EQ(c[3].type->n_args, 2);
    ASSERT_STR_EQ(c[3].type->args[1]->args[0]->ks, "ks");
    ASSERT_STR_EQ(c[3].type->args[1]->args[0]->name, "address");
    ASSERT_STR_EQ(c[4].type->name, "tuple");
    ASSERT_EQ(c[4].type->n_args, 3);
    ASSERT_STR_EQ(c[4].type->args[2]->name, "blob");
    ASSERT_STR_EQ(c[5].type->args[0]->name, "address");
    ASSERT(c[5].type->args[0]->ks == NULL);
    ASSERT_STR_EQ(c[6].type->name, "Quoted");
    done();
}

TEST(test_create_table_static_column_and_custom_type)
{
    cql_stmt *st = OK("CREATE TABLE t (k int, c int, s text STATIC, "
                      "x 'org.apache.cassandra.db.marshal.UTF8Type', PRIMARY KEY (k, c))");
    const cql_column_decl *c = st->u.create_table.cols;
    ASSERT_EQ(c[2].is_static, 1);
    ASSERT_EQ(c[1].is_static, 0);
    ASSERT_STR_EQ(c[3].type->custom, "org.apache.cassandra.db.marshal.UTF8Type");
    done();
}

TEST(test_create_table_options_clustering_order_and_compact_storage)
{
    cql_stmt *st = OK("CREATE TABLE t (k int, c int, d int, PRIMARY KEY (k, c, d)) WITH "
                      "CLUSTERING ORDER BY (c DESC, d ASC) AND comment = 'hi' AND "
                      "compaction = {'class': 'LeveledCompactionStrategy'} AND COMPACT STORAGE");
    const cql_create_table *c = &st->u.create_table;
    ASSERT_EQ(c->n_clustering_order, 2);
    ASSERT_STR_EQ(c->clustering_order[0].col, "c");
    ASSERT_EQ(c->clustering_order[0].desc, 1);
    ASSERT_STR_EQ(c->clustering_order[1].col, "d");
    ASSERT_EQ(c->clustering_order[1].desc, 0);
    ASSERT_EQ(c->compact_storage, 1);
    ASSERT_EQ(c->n_props, 2);
    ASSERT_STR_EQ(c->props[0].name, "comment");
    ASSERT_STR_EQ(c->props[1].name, "compaction");
    ASSERT_EQ(c->props[1].value->kind, CQL_T_MAP);
    done();
}

TEST(test_create_table_allows_empty_column_slots_as_cassandra_does)
{
    cql_stmt *st = OK("CREATE TABLE t (k int PRIMARY KEY, , v int,)");
    ASSERT_EQ(st->u.create_table.n_cols, 2);
    ERR_PREFIX("CREATE TABLE t (k int PRIMARY KEY",
               "line 0:-1 mismatched input '<EOF>' expecting ')'");
    done();
}

/* ---- ALTER / DROP TABLE, TRUNCATE ---- */

TEST(test_alter_table_add_single_list_and_if_not_exists)
{
    cql_stmt *st = OK("ALTER TABLE ks.t ADD v text");
    const cql_alter_table *a = &st->u.alter_table;
    ASSERT_EQ(st->kind, CQL_S_ALTER_TABLE);
    ASSERT_EQ(a->kind, CQL_ALTER_ADD);
    ASSERT_EQ(a->n_cols, 1);
    ASSERT_STR_EQ(a->cols[0].name, "v");
    ASSERT_STR_EQ(a->table.ks, "ks");
    st = OK("ALTER TABLE IF EXISTS t ADD IF NOT EXISTS (a int, b set<int> static, c text)");
    a = &st->u.alter_table;
    ASSERT_EQ(a->if_exists, 1);
    ASSERT_EQ(a->if_col, 1);
    ASSERT_EQ(a->n_cols, 3);
    ASSERT_EQ(a->cols[1].is_static, 1);
    ASSERT_STR_EQ(a->cols[1].type->name, "set");
    done();
}

TEST(test_alter_table_drop_rename_and_with)
{
    cql_stmt *st = OK("ALTER TABLE t DROP IF EXISTS v");
    const cql_alter_table *a = &st->u.alter_table;
    ASSERT_EQ(a->kind, CQL_ALTER_DROP);
    ASSERT_EQ(a->if_col, 1);
    ASSERT_EQ(a->n_names, 1);
    ASSERT_STR_EQ(a->names[0], "v");
    st = OK("ALTER TABLE t DROP (a, \"B\") USING TIMESTAMP 42");
    ASSERT_EQ(st->u.alter_table.n_names, 2);
    ASSERT_STR_EQ(st->u.alter_table.names[1], "B");
    st = OK("ALTER TABLE t RENAME IF EXISTS a TO b AND c TO d");
    a = &st->u.alter_table;
    ASSERT_EQ(a->kind, CQL_ALTER_RENAME);
    ASSERT_EQ(a->if_col, 1);
    ASSERT_EQ(a->n_names, 4);
    ASSERT_STR_EQ(a->names[0], "a");
    ASSERT_STR_EQ(a->names[1], "b");
    ASSERT_STR_EQ(a->names[3], "d");
    st = OK("ALTER TABLE t WITH gc_grace_seconds = 0 AND comment = 'x'");
    ASSERT_EQ(st->u.alter_table.kind, CQL_ALTER_WITH);
    ASSERT_EQ(st->u.alter_table.n_props, 2);
    done();
}

TEST(test_alter_column_type_is_refused_with_cassandras_message)
{
    INVALID("ALTER TABLE t ALTER v TYPE text", "Altering column types is no longer supported");
    INVALID("ALTER TYPE ty ALTER f TYPE text", "Altering field types is no longer supported");
    /* A syntax error later in the statement is reported first. */
    ERR_PREFIX("ALTER TABLE t ALTER v TYPE", "line 0:-1 no viable alternative at input '<EOF>'");
    done();
}

TEST(test_drop_table_and_truncate)
{
    cql_stmt *st = OK("DROP TABLE IF EXISTS ks.t");
    ASSERT_EQ(st->kind, CQL_S_DROP_TABLE);
    ASSERT_EQ(st->u.drop_table.if_exists, 1);
    ASSERT_STR_EQ(st->u.drop_table.table.name, "t");
    st = OK("TRUNCATE TABLE ks.t");
    ASSERT_EQ(st->kind, CQL_S_TRUNCATE);
    ASSERT_STR_EQ(st->u.drop_table.table.ks, "ks");
    st = OK("truncate t;");
    ASSERT_STR_EQ(st->u.drop_table.table.name, "t");
    ASSERT(st->u.drop_table.table.ks == NULL);
    done();
}

/* ---- types ---- */

TEST(test_create_type_with_fields)
{
    cql_stmt *st = OK("CREATE TYPE IF NOT EXISTS killrchat.User (login text, \"First\" text, "
                      "tags set<text>,)");
    const cql_type_stmt *t = &st->u.type;
    ASSERT_EQ(st->kind, CQL_S_CREATE_TYPE);
    ASSERT_EQ(t->if_flag, 1);
    ASSERT_STR_EQ(t->type.ks, "killrchat");
    ASSERT_STR_EQ(t->type.name, "user");
    ASSERT_EQ(t->n_fields, 3);
    ASSERT_STR_EQ(t->fields[1], "First");
    ASSERT_STR_EQ(t->types[2]->name, "set");
    done();
}

TEST(test_alter_type_add_and_rename_and_drop_type)
{
    cql_stmt *st = OK("ALTER TYPE IF EXISTS ty ADD IF NOT EXISTS f int");
    const cql_type_stmt *t = &st->u.type;
    ASSERT_EQ(st->kind, CQL_S_ALTER_TYPE);
    ASSERT_EQ(t->kind, CQL_ALTER_ADD);
    ASSERT_EQ(t->if_flag, 1);
    ASSERT_EQ(t->if_field, 1);
    ASSERT_EQ(t->n_fields, 1);
    ASSERT_STR_EQ(t->fields[0], "f");
    ASSERT_STR_EQ(t->types[0]->name, "int");
    st = OK("ALTER TYPE ks.ty RENAME a TO b AND c TO d");
    ASSERT_EQ(st->u.type.kind, CQL_ALTER_RENAME);
    ASSERT_EQ(st->u.type.n_fields, 4);
    ASSERT_STR_EQ(st->u.type.fields[2], "c");
    st = OK("DROP TYPE IF EXISTS ks.ty");
    ASSERT_EQ(st->kind, CQL_S_DROP_TYPE);
    ASSERT_EQ(st->u.type.if_flag, 1);
    ASSERT_STR_EQ(st->u.type.type.name, "ty");
    done();
}

/* ---- INSERT ---- */

TEST(test_insert_values_if_not_exists_and_using)
{
    cql_stmt *st = OK("INSERT INTO ks.t (k, \"V\") VALUES (1, 'x') IF NOT EXISTS "
                      "USING TTL 86400 AND TIMESTAMP 123");
    const cql_insert *i = &st->u.insert;
    ASSERT_EQ(st->kind, CQL_S_INSERT);
    ASSERT_EQ(i->n_cols, 2);
    ASSERT_STR_EQ(i->cols[1], "V");
    ASSERT_EQ(i->n_values, 2);
    ASSERT_EQ(i->values[1]->kind, CQL_T_STRING);
    ASSERT_EQ(i->if_not_exists, 1);
    ASSERT_STR_EQ(i->using.ttl->text, "86400");
    ASSERT_STR_EQ(i->using.timestamp->text, "123");
    ASSERT(i->json == NULL);
    st = OK("INSERT INTO t (k) VALUES (?) USING TIMESTAMP ?");
    ASSERT_EQ(st->u.insert.using.timestamp->kind, CQL_T_BIND);
    ASSERT(st->u.insert.using.ttl == NULL);
    ASSERT_EQ(st->n_binds, 2);
    done();
}

TEST(test_insert_json_with_default_unset_and_markers)
{
    cql_stmt *st = OK("INSERT INTO t JSON '{\"k\": 1}' DEFAULT UNSET IF NOT EXISTS USING TTL 5");
    const cql_insert *i = &st->u.insert;
    ASSERT_EQ(i->json->kind, CQL_T_STRING);
    ASSERT_STR_EQ(i->json->text, "{\"k\": 1}");
    ASSERT_EQ(i->json_default_unset, 1);
    ASSERT_EQ(i->if_not_exists, 1);
    ASSERT(i->using.ttl != NULL);
    st = OK("INSERT INTO t JSON ? DEFAULT NULL");
    ASSERT_EQ(st->u.insert.json->kind, CQL_T_BIND);
    ASSERT_EQ(st->u.insert.json_default_unset, 0);
    st = OK("INSERT INTO t JSON :doc");
    ASSERT_STR_EQ(st->u.insert.json->name, "doc");
    done();
}

/* ---- UPDATE ---- */

TEST(test_update_assignment_forms)
{
    cql_stmt *st = OK("UPDATE ks.t USING TTL 10 SET a = 1, l = l + [2], s = s - {3}, "
                      "l2 = [0] + l2, m['k'] = 'v', u.f = 4, c += 5, d -= 6 WHERE k = 0");
    const cql_update *u = &st->u.update;
    ASSERT_EQ(st->kind, CQL_S_UPDATE);
    ASSERT(u->using.ttl != NULL);
    ASSERT_EQ(u->n_sets, 8);
    ASSERT_EQ(u->sets[0].kind, CQL_SET_VALUE);
    ASSERT_EQ(u->sets[1].kind, CQL_SET_ADD);
    ASSERT_EQ(u->sets[1].value->kind, CQL_T_LIST);
    ASSERT_EQ(u->sets[2].kind, CQL_SET_SUB);
    ASSERT_EQ(u->sets[2].value->kind, CQL_T_SET);
    ASSERT_EQ(u->sets[3].kind, CQL_SET_PREPEND);
    ASSERT_STR_EQ(u->sets[3].col, "l2");
    ASSERT_EQ(u->sets[4].kind, CQL_SET_ELEMENT);
    ASSERT_STR_EQ(u->sets[4].key->text, "k");
    ASSERT_STR_EQ(u->sets[4].value->text, "v");
    ASSERT_EQ(u->sets[5].kind, CQL_SET_FIELD);
    ASSERT_STR_EQ(u->sets[5].field, "f");
    ASSERT_EQ(u->sets[6].kind, CQL_SET_ADD);
    ASSERT_STR_EQ(u->sets[6].value->text, "5");
    ASSERT_EQ(u->sets[7].kind, CQL_SET_SUB);
    ASSERT_EQ(u->n_where, 1);
    done();
}

TEST(test_update_counter_minus_adjacent_integer_is_an_addition_of_a_negative)
{
    /* "c = c -3" lexes as c, INTEGER(-3): Parser.g makes it an addition. */
    cql_stmt *st = OK("UPDATE t SET c = c -3 WHERE k = 0");
    ASSERT_EQ(st->u.update.sets[0].kind, CQL_SET_ADD);
    ASSERT_STR_EQ(st->u.update.sets[0].value->text, "-3");
    st = OK("UPDATE t SET c = c - 3 WHERE k = 0");
    ASSERT_EQ(st->u.update.sets[0].kind, CQL_SET_SUB);
    ASSERT_STR_EQ(st->u.update.sets[0].value->text, "3");
    done();
}

TEST(test_update_if_exists_and_conditions)
{
    cql_stmt *st = OK("UPDATE t SET v = 1 WHERE k = 0 IF EXISTS");
    ASSERT_EQ(st->u.update.if_exists, 1);
    ASSERT_EQ(st->u.update.n_conds, 0);
    st = OK("UPDATE t SET v = 1 WHERE k = 0 IF v = 2 AND m['a'] > 3 AND u.f IN (1, 2) AND "
            "w != null AND x IN ? AND exists = 1 AND s CONTAINS KEY 'k'");
    const cql_update *u = &st->u.update;
    ASSERT_EQ(u->if_exists, 0);
    ASSERT_EQ(u->n_conds, 7);
    ASSERT_STR_EQ(u->conds[0].col, "v");
    ASSERT_EQ(u->conds[0].op, CQL_OP_EQ);
    ASSERT_EQ(u->conds[1].op, CQL_OP_GT);
    ASSERT_STR_EQ(u->conds[1].elem->text, "a");
    ASSERT_STR_EQ(u->conds[2].field, "f");
    ASSERT_EQ(u->conds[2].op, CQL_OP_IN);
    ASSERT_EQ(u->conds[2].n_values, 2);
    ASSERT_EQ(u->conds[3].op, CQL_OP_NE);
    ASSERT_EQ(u->conds[3].values[0]->kind, CQL_T_NULL);
    ASSERT_EQ(u->conds[4].in_marker, 1);
    ASSERT_EQ(u->conds[4].values[0]->kind, CQL_T_BIND);
    ASSERT_STR_EQ(u->conds[5].col, "exists");
    ASSERT_EQ(u->conds[6].op, CQL_OP_CONTAINS_KEY);
    done();
}

TEST(test_update_incompatible_settings_are_rejected_by_the_parser)
{
    ERR("UPDATE t SET v = 1, v = 2 WHERE k = 0", "Multiple incompatible setting of column v");
    ERR("UPDATE t SET m = {}, m['x'] = 1 WHERE k = 0", "Multiple incompatible setting of column m");
    ERR("UPDATE t SET m['x'] = 1, m = {} WHERE k = 0", "Multiple incompatible setting of column m");
    ERR("UPDATE t SET u.a = 1, u.a = 2 WHERE k = 0", "Multiple incompatible setting of column u");
    ERR("UPDATE t SET \"V\" = 1, \"V\" = 2 WHERE k = 0",
        "Multiple incompatible setting of column V");
    /* Compatible: distinct fields, element updates, additions. */
    cql_stmt *st = OK("UPDATE t SET u.a = 1, u.b = 2, m['x'] = 1, m['y'] = 2, m = m + {'z': 3}, "
                      "\"V\" = 1, v = 2 WHERE k = 0");
    ASSERT_EQ(st->u.update.n_sets, 7);
    done();
}

TEST(test_update_only_expressions_of_the_form_messages)
{
    ERR("UPDATE t SET l = [1] + m WHERE k = 0",
        "Only expressions of the form X = <value> + X are supported.");
    ERR("UPDATE t SET c = d + 1 WHERE k = 0",
        "Only expressions of the form X = X +<value> are supported.");
    ERR("UPDATE t SET c = d - 1 WHERE k = 0",
        "Only expressions of the form X = X -<value> are supported.");
    ERR("UPDATE t SET c = d -1 WHERE k = 0",
        "Only expressions of the form X = X - <value> are supported.");
    done();
}

/* ---- DELETE ---- */

TEST(test_delete_targets_using_timestamp_and_conditions)
{
    cql_stmt *st = OK("DELETE v, m['k'], u.f FROM ks.t USING TIMESTAMP 99 WHERE k = 0 AND c > 1 "
                      "IF v = 3");
    const cql_delete *d = &st->u.del;
    ASSERT_EQ(st->kind, CQL_S_DELETE);
    ASSERT_EQ(d->n_targets, 3);
    ASSERT_STR_EQ(d->targets[0].col, "v");
    ASSERT(d->targets[0].key == NULL && d->targets[0].field == NULL);
    ASSERT_STR_EQ(d->targets[1].key->text, "k");
    ASSERT_STR_EQ(d->targets[2].field, "f");
    ASSERT_STR_EQ(d->using.timestamp->text, "99");
    ASSERT_EQ(d->n_where, 2);
    ASSERT_EQ(d->n_conds, 1);
    st = OK("DELETE FROM t WHERE k = 0 IF EXISTS");
    ASSERT_EQ(st->u.del.n_targets, 0);
    ASSERT_EQ(st->u.del.if_exists, 1);
    ERR_PREFIX("DELETE FROM t USING TTL 3 WHERE k = 0",
               "line 1:20 mismatched input 'TTL' expecting K_TIMESTAMP");
    done();
}

/* ---- BATCH ---- */

TEST(test_batch_kinds_members_and_using)
{
    cql_stmt *st = OK("BEGIN BATCH USING TIMESTAMP 5 INSERT INTO t (k) VALUES (1); "
                      "UPDATE t SET v = 2 WHERE k = 1 DELETE FROM t WHERE k = 2; APPLY BATCH;");
    const cql_batch *b = &st->u.batch;
    ASSERT_EQ(st->kind, CQL_S_BATCH);
    ASSERT_EQ(b->kind, CQL_BATCH_LOGGED);
    ASSERT_STR_EQ(b->using.timestamp->text, "5");
    ASSERT_EQ(b->n_stmts, 3);
    ASSERT_EQ(b->stmts[0]->kind, CQL_S_INSERT);
    ASSERT_EQ(b->stmts[1]->kind, CQL_S_UPDATE);
    ASSERT_EQ(b->stmts[2]->kind, CQL_S_DELETE);
    ASSERT_EQ(OK("BEGIN UNLOGGED BATCH APPLY BATCH")->u.batch.kind, CQL_BATCH_UNLOGGED);
    ASSERT_EQ(
        OK("begin counter batch update t set c = c + 1 where k = 1 apply batch")->u.batch.kind,
        CQL_BATCH_COUNTER);
    ERR_PREFIX("BEGIN BATCH SELECT * FROM t APPLY BATCH",
               "line 1:12 mismatched input 'SELECT' expecting K_APPLY");
    done();
}

TEST(test_batch_numbers_bind_markers_across_its_statements)
{
    cql_stmt *st = OK("BEGIN BATCH INSERT INTO t (k, v) VALUES (?, ?); "
                      "UPDATE t SET v = :v WHERE k = ?; APPLY BATCH");
    const cql_batch *b = &st->u.batch;
    ASSERT_EQ(st->n_binds, 4);
    ASSERT_EQ(b->stmts[0]->n_binds, 2);
    ASSERT_EQ(b->stmts[1]->n_binds, 2);
    ASSERT_EQ(b->stmts[0]->u.insert.values[0]->bind_index, 0);
    ASSERT_EQ(b->stmts[0]->u.insert.values[1]->bind_index, 1);
    ASSERT_EQ(b->stmts[1]->u.update.sets[0].value->bind_index, 2);
    ASSERT_STR_EQ(b->stmts[1]->u.update.sets[0].value->name, "v");
    ASSERT_EQ(b->stmts[1]->u.update.where[0].values[0]->bind_index, 3);
    done();
}

/* ---- SELECT ---- */

TEST(test_select_star_where_limit_allow_filtering)
{
    cql_stmt *st = OK("SELECT * FROM ks.t WHERE k = 1 AND c >= 2 LIMIT 10 ALLOW FILTERING;");
    const cql_select *s = &st->u.select;
    ASSERT_EQ(s->star, 1);
    ASSERT_EQ(s->n_sels, 0);
    ASSERT_STR_EQ(s->table.ks, "ks");
    ASSERT_EQ(s->n_where, 2);
    ASSERT_EQ(s->where[1].op, CQL_OP_GE);
    ASSERT_STR_EQ(s->limit->text, "10");
    ASSERT(s->per_partition_limit == NULL);
    ASSERT_EQ(s->allow_filtering, 1);
    ASSERT_EQ(s->json, 0);
    ASSERT_EQ(s->distinct, 0);
    done();
}

TEST(test_select_json_and_distinct_are_keywords_only_before_selectors)
{
    cql_stmt *st = OK("SELECT JSON * FROM t");
    ASSERT_EQ(st->u.select.json, 1);
    ASSERT_EQ(st->u.select.star, 1);
    st = OK("SELECT json FROM t");
    ASSERT_EQ(st->u.select.json, 0);
    ASSERT_STR_EQ(st->u.select.sels[0].term->text, "json");
    st = OK("SELECT JSON json FROM t");
    ASSERT_EQ(st->u.select.json, 1);
    ASSERT_STR_EQ(st->u.select.sels[0].term->text, "json");
    st = OK("SELECT DISTINCT k FROM t");
    ASSERT_EQ(st->u.select.distinct, 1);
    st = OK("SELECT distinct, json FROM t");
    ASSERT_EQ(st->u.select.distinct, 0);
    ASSERT_EQ(st->u.select.n_sels, 2);
    st = OK("SELECT JSON DISTINCT k, v FROM t");
    ASSERT_EQ(st->u.select.json, 1);
    ASSERT_EQ(st->u.select.distinct, 1);
    ASSERT_EQ(st->u.select.n_sels, 2);
    /* Trying the alternatives numbers no marker twice. */
    st = OK("SELECT JSON ? FROM t WHERE k = ?");
    ASSERT_EQ(st->n_binds, 2);
    ASSERT_EQ(st->u.select.sels[0].term->bind_index, 0);
    ASSERT_EQ(st->u.select.where[0].values[0]->bind_index, 1);
    done();
}

TEST(test_select_selector_functions_and_aliases)
{
    cql_stmt *st = OK("SELECT k AS key, writetime(v), TTL(v) AS t, token(k, c), count(*), "
                      "COUNT(v), CAST(v AS text), ks.fn(v, 1), now(), 'lit', ? , \"Q\" FROM t");
    const cql_select *s = &st->u.select;
    ASSERT_EQ(s->n_sels, 12);
    ASSERT_EQ(s->sels[0].term->kind, CQL_T_COLUMN);
    ASSERT_STR_EQ(s->sels[0].alias, "key");
    ASSERT_STR_EQ(s->sels[1].term->name, "writetime");
    ASSERT_EQ(s->sels[1].term->items[0]->kind, CQL_T_COLUMN);
    ASSERT_STR_EQ(s->sels[1].term->items[0]->text, "v");
    ASSERT_STR_EQ(s->sels[2].term->name, "ttl");
    ASSERT_STR_EQ(s->sels[2].alias, "t");
    ASSERT_STR_EQ(s->sels[3].term->name, "token");
    ASSERT_EQ(s->sels[3].term->n_items, 2);
    ASSERT_STR_EQ(s->sels[4].term->name, "count");
    ASSERT_EQ(s->sels[4].term->items[0]->kind, CQL_T_STAR);
    ASSERT_STR_EQ(s->sels[5].term->name, "count");
    ASSERT_EQ(s->sels[5].term->items[0]->kind, CQL_T_COLUMN);
    ASSERT_EQ(s->sels[6].term->kind, CQL_T_CAST);
    ASSERT_STR_EQ(s->sels[6].term->type->name, "text");
    ASSERT_STR_EQ(s->sels[6].term->items[0]->text, "v");
    ASSERT_STR_EQ(s->sels[7].term->ks, "ks");
    ASSERT_STR_EQ(s->sels[7].term->name, "fn");
    ASSERT_EQ(s->sels[7].term->n_items, 2);
    ASSERT_STR_EQ(s->sels[8].term->name, "now");
    ASSERT_EQ(s->sels[8].term->n_items, 0);
    ASSERT_EQ(s->sels[9].term->kind, CQL_T_STRING);
    ASSERT_EQ(s->sels[10].term->kind, CQL_T_BIND);
    ASSERT_STR_EQ(s->sels[11].term->text, "Q");
    done();
}

TEST(test_select_field_access_arithmetic_and_collections_in_selectors)
{
    cql_stmt *st = OK("SELECT u.addr.city, a + b * 2, -a, (int) 3, [a, 1], {a: 1}, {'x': b}, "
                      "(a), (a, b) FROM t");
    const cql_select *s = &st->u.select;
    ASSERT_EQ(s->n_sels, 9);
    const cql_term *f = s->sels[0].term;
    ASSERT_EQ(f->kind, CQL_T_FIELD);
    ASSERT_STR_EQ(f->text, "city");
    ASSERT_EQ(f->items[0]->kind, CQL_T_FIELD);
    ASSERT_STR_EQ(f->items[0]->text, "addr");
    ASSERT_STR_EQ(f->items[0]->items[0]->text, "u");
    const cql_term *add = s->sels[1].term;
    ASSERT_STR_EQ(add->name, "_add");
    ASSERT_STR_EQ(add->ks, "system");
    ASSERT_STR_EQ(add->items[1]->name, "_multiply");
    ASSERT_STR_EQ(s->sels[2].term->name, "_negate");
    ASSERT_EQ(s->sels[3].term->kind, CQL_T_HINT);
    ASSERT_STR_EQ(s->sels[3].term->type->name, "int");
    ASSERT_EQ(s->sels[4].term->kind, CQL_T_LIST);
    ASSERT_EQ(s->sels[5].term->kind, CQL_T_UDT);
    ASSERT_STR_EQ(s->sels[5].term->names[0], "a");
    ASSERT_EQ(s->sels[6].term->kind, CQL_T_MAP);
    ASSERT_EQ(s->sels[7].term->kind, CQL_T_COLUMN);
    ASSERT_EQ(s->sels[8].term->kind, CQL_T_TUPLE);
    done();
}

TEST(test_select_element_and_slice_selectors)
{
    cql_stmt *st = OK("SELECT m['k'], s[1..3], s[..2], s[1..], v.m[?][0..] FROM t");
    const cql_select *s = &st->u.select;
    ASSERT_EQ(s->n_sels, 5);
    const cql_term *e = s->sels[0].term;
    ASSERT_EQ(e->kind, CQL_T_ELEMENT);
    ASSERT_EQ(e->n_items, 2);
    ASSERT_STR_EQ(e->items[0]->text, "m");
    ASSERT_EQ(e->items[1]->kind, CQL_T_STRING);
    const cql_term *sl = s->sels[1].term;
    ASSERT_EQ(sl->kind, CQL_T_SLICE);
    ASSERT_EQ(sl->n_items, 3);
    ASSERT_STR_EQ(sl->items[1]->text, "1");
    ASSERT_STR_EQ(sl->items[2]->text, "3");
    ASSERT_EQ(s->sels[2].term->items[1] == NULL, 1);
    ASSERT_STR_EQ(s->sels[2].term->items[2]->text, "2");
    ASSERT_EQ(s->sels[3].term->items[2] == NULL, 1);
    const cql_term *n = s->sels[4].term;
    ASSERT_EQ(n->kind, CQL_T_SLICE);
    ASSERT_EQ(n->items[0]->kind, CQL_T_ELEMENT);
    ASSERT_EQ(n->items[0]->items[1]->kind, CQL_T_BIND);
    ASSERT_EQ(n->items[0]->items[0]->kind, CQL_T_FIELD);
    done();
}

TEST(test_select_group_by_order_by_per_partition_limit)
{
    cql_stmt *st = OK("SELECT k, c, count(*) FROM t WHERE k IN (1, 2) GROUP BY k, c "
                      "ORDER BY c DESC, d ASC, e PER PARTITION LIMIT 2 LIMIT ?");
    const cql_select *s = &st->u.select;
    ASSERT_EQ(s->n_group_by, 2);
    ASSERT_STR_EQ(s->group_by[1], "c");
    ASSERT_EQ(s->n_order_by, 3);
    ASSERT_EQ(s->order_by[0].desc, 1);
    ASSERT_EQ(s->order_by[1].desc, 0);
    ASSERT_STR_EQ(s->order_by[2].col, "e");
    ASSERT_STR_EQ(s->per_partition_limit->text, "2");
    ASSERT_EQ(s->limit->kind, CQL_T_BIND);
    done();
}

/* ---- relations ---- */

TEST(test_relations_every_operator)
{
    cql_stmt *st = OK("SELECT * FROM t WHERE a = 1 AND b < 2 AND c <= 3 AND d > 4 AND e >= 5 "
                      "AND f != 6 AND g CONTAINS 7 AND h CONTAINS KEY 8 AND i LIKE 'x%' AND "
                      "j IS NOT NULL AND l IN (1, 2) AND m IN ()");
    const cql_relation *r = st->u.select.where;
    static const int ops[] = {CQL_OP_EQ,   CQL_OP_LT,          CQL_OP_LE,       CQL_OP_GT,
                              CQL_OP_GE,   CQL_OP_NE,          CQL_OP_CONTAINS, CQL_OP_CONTAINS_KEY,
                              CQL_OP_LIKE, CQL_OP_IS_NOT_NULL, CQL_OP_IN,       CQL_OP_IN};
    ASSERT_EQ(st->u.select.n_where, 12);
    for (int i = 0; i < 12; i++) {
        ASSERT_EQ(r[i].kind, CQL_REL_COLUMN);
        ASSERT_EQ(r[i].op, ops[i]);
        ASSERT_EQ(r[i].n_cols, 1);
    }
    ASSERT_EQ(r[9].values[0]->kind, CQL_T_NULL);
    ASSERT_EQ(r[10].n_values, 2);
    ASSERT_EQ(r[10].in_marker, 0);
    ASSERT_EQ(r[11].n_values, 0);
    done();
}

TEST(test_relation_in_marker_token_and_map_element)
{
    cql_stmt *st = OK("SELECT * FROM t WHERE k IN ? AND c IN :cs AND token(a, b) > token(?, ?) "
                      "AND m['key'] = 'v'");
    const cql_relation *r = st->u.select.where;
    ASSERT_EQ(r[0].in_marker, 1);
    ASSERT_EQ(r[0].n_values, 1);
    ASSERT_EQ(r[0].values[0]->kind, CQL_T_BIND);
    ASSERT_EQ(r[1].in_marker, 1);
    ASSERT_STR_EQ(r[1].values[0]->name, "cs");
    ASSERT_EQ(r[2].kind, CQL_REL_TOKEN);
    ASSERT_EQ(r[2].n_cols, 2);
    ASSERT_STR_EQ(r[2].cols[1], "b");
    ASSERT_EQ(r[2].op, CQL_OP_GT);
    ASSERT_EQ(r[2].values[0]->kind, CQL_T_FUNCTION);
    ASSERT_STR_EQ(r[2].values[0]->name, "token");
    ASSERT_EQ(r[3].kind, CQL_REL_ELEMENT);
    ASSERT_STR_EQ(r[3].cols[0], "m");
    ASSERT_STR_EQ(r[3].key->text, "key");
    ASSERT_STR_EQ(r[3].values[0]->text, "v");
    ASSERT_EQ(st->n_binds, 4);
    done();
}

TEST(test_relation_multi_column_forms)
{
    cql_stmt *st = OK("SELECT * FROM t WHERE (c1, c2) > (1, 2) AND (c1, c2) = ? AND "
                      "(c1, c2) IN ((1, 2), (3, 4)) AND (c1) IN (?, :x) AND (c1, c2) IN ? AND "
                      "(c1, c2) IN ()");
    const cql_relation *r = st->u.select.where;
    ASSERT_EQ(st->u.select.n_where, 6);
    ASSERT_EQ(r[0].kind, CQL_REL_MULTI);
    ASSERT_EQ(r[0].n_cols, 2);
    ASSERT_EQ(r[0].values[0]->kind, CQL_T_TUPLE);
    ASSERT_EQ(r[0].values[0]->n_items, 2);
    ASSERT_EQ(r[1].values[0]->kind, CQL_T_BIND);
    ASSERT_EQ(r[1].in_marker, 0);
    ASSERT_EQ(r[2].op, CQL_OP_IN);
    ASSERT_EQ(r[2].n_values, 2);
    ASSERT_EQ(r[2].values[1]->items[0]->kind, CQL_T_INTEGER);
    ASSERT_EQ(r[3].n_cols, 1);
    ASSERT_EQ(r[3].n_values, 2);
    ASSERT_EQ(r[3].values[1]->kind, CQL_T_BIND);
    ASSERT_EQ(r[4].in_marker, 1);
    ASSERT_EQ(r[5].n_values, 0);
    done();
}

TEST(test_relation_in_parentheses)
{
    cql_stmt *st = OK("SELECT * FROM t WHERE (k = 1) AND ((c > 2))");
    ASSERT_EQ(st->u.select.n_where, 2);
    ASSERT_EQ(st->u.select.where[1].op, CQL_OP_GT);
    done();
}

/* ---- literals ---- */

TEST(test_string_literals_are_unescaped)
{
    LITERAL("'it''s'", CQL_T_STRING, "it's");
    LITERAL("''", CQL_T_STRING, "");
    LITERAL("''''", CQL_T_STRING, "'");
    LITERAL("'semi;colon -- not a comment'", CQL_T_STRING, "semi;colon -- not a comment");
    LITERAL("'caf\xc3\xa9'", CQL_T_STRING, "caf\xc3\xa9");
    LITERAL("'line\nbreak'", CQL_T_STRING, "line\nbreak");
    done();
}

TEST(test_pg_style_strings_keep_everything_between_dollars)
{
    LITERAL("$$it's; \"raw\" -- here$$", CQL_T_STRING, "it's; \"raw\" -- here");
    LITERAL("$$$$", CQL_T_STRING, "");
    LITERAL("$$a$b$$", CQL_T_STRING, "a$b");
    done();
}

TEST(test_string_literal_may_contain_nul_bytes)
{
    static const char q[] = "SELECT * FROM t WHERE k = 'a\0b'";
    eng_err err;
    cql_stmt *st = NULL;
    ASSERT_OK_ERR(parse_len(q, sizeof q - 1, &st, &err), &err);
    const cql_term *t = where_value(st);
    ASSERT_EQ(t->len, 3);
    ASSERT_MEM_EQ(t->text, "a\0b", 3);
    done();
}

TEST(test_integer_and_float_literals)
{
    LITERAL("123", CQL_T_INTEGER, "123");
    LITERAL("-5", CQL_T_INTEGER, "-5");
    LITERAL("1.5", CQL_T_FLOAT, "1.5");
    LITERAL("-2e10", CQL_T_FLOAT, "-2e10");
    LITERAL("3.", CQL_T_FLOAT, "3.");
    LITERAL("1E+5", CQL_T_FLOAT, "1E+5");
    LITERAL("1.5e-3", CQL_T_FLOAT, "1.5e-3");
    LITERAL("9223372036854775808", CQL_T_INTEGER, "9223372036854775808");
    done();
}

TEST(test_nan_and_infinity_literals)
{
    LITERAL("NaN", CQL_T_FLOAT, "NaN");
    LITERAL("nan", CQL_T_FLOAT, "NaN");
    LITERAL("-NaN", CQL_T_FLOAT, "NaN");
    LITERAL("Infinity", CQL_T_FLOAT, "Infinity");
    LITERAL("-infinity", CQL_T_FLOAT, "-Infinity");
    LITERAL("- Infinity", CQL_T_FLOAT, "-Infinity");
    done();
}

TEST(test_uuid_and_blob_literals)
{
    LITERAL("01234567-89ab-cdef-0123-456789ABCDEF", CQL_T_UUID,
            "01234567-89ab-cdef-0123-456789ABCDEF");
    LITERAL("deadbeef-0000-1000-8000-00aabbccddee", CQL_T_UUID,
            "deadbeef-0000-1000-8000-00aabbccddee");
    LITERAL("0xCAFE", CQL_T_HEX, "CAFE");
    LITERAL("0X00ff", CQL_T_HEX, "00ff");
    LITERAL("0x", CQL_T_HEX, "");
    done();
}

TEST(test_duration_literals_in_all_three_forms)
{
    LITERAL("1y2mo3w4d5h6m7s8ms9us10ns", CQL_T_DURATION, "1y2mo3w4d5h6m7s8ms9us10ns");
    LITERAL("1h30m", CQL_T_DURATION, "1h30m");
    LITERAL("-1H30M", CQL_T_DURATION, "-1H30M");
    LITERAL("12\xc2\xb5s", CQL_T_DURATION, "12\xc2\xb5s");
    LITERAL("P1Y2M3DT4H5M6S", CQL_T_DURATION, "P1Y2M3DT4H5M6S");
    LITERAL("PT1H", CQL_T_DURATION, "PT1H");
    LITERAL("P2W", CQL_T_DURATION, "P2W");
    LITERAL("-P1D", CQL_T_DURATION, "-P1D");
    LITERAL("P0001-02-03T04:05:06", CQL_T_DURATION, "P0001-02-03T04:05:06");
    done();
}

TEST(test_boolean_and_null_literals)
{
    LITERAL("TRUE", CQL_T_BOOLEAN, "true");
    LITERAL("false", CQL_T_BOOLEAN, "false");
    ASSERT_EQ(TERM("null")->kind, CQL_T_NULL);
    ASSERT_EQ(TERM("NULL")->kind, CQL_T_NULL);
    done();
}

TEST(test_collection_literals_and_the_empty_map)
{
    const cql_term *t = TERM("[1, 2, 3]");
    ASSERT_EQ(t->kind, CQL_T_LIST);
    ASSERT_EQ(t->n_items, 3);
    t = TERM("[]");
    ASSERT_EQ(t->kind, CQL_T_LIST);
    ASSERT_EQ(t->n_items, 0);
    t = TERM("{'a', 'b'}");
    ASSERT_EQ(t->kind, CQL_T_SET);
    ASSERT_EQ(t->n_items, 2);
    t = TERM("{'a': 1, 'b': 2}");
    ASSERT_EQ(t->kind, CQL_T_MAP);
    ASSERT_EQ(t->n_items, 4);
    ASSERT_STR_EQ(t->items[2]->text, "b");
    ASSERT_STR_EQ(t->items[3]->text, "2");
    t = TERM("{}");
    ASSERT_EQ(t->kind, CQL_T_MAP);
    ASSERT_EQ(t->n_items, 0);
    t = TERM("[[1], {2: [3]}]");
    ASSERT_EQ(t->items[1]->items[1]->kind, CQL_T_LIST);
    done();
}

TEST(test_udt_and_tuple_literals)
{
    const cql_term *t = TERM("{street: 'Main', \"Zip\": 1, key: ?}");
    ASSERT_EQ(t->kind, CQL_T_UDT);
    ASSERT_EQ(t->n_items, 3);
    ASSERT_STR_EQ(t->names[0], "street");
    ASSERT_STR_EQ(t->names[1], "Zip");
    ASSERT_STR_EQ(t->names[2], "key");
    ASSERT_EQ(t->items[2]->kind, CQL_T_BIND);
    t = TERM("(1, 'a', null)");
    ASSERT_EQ(t->kind, CQL_T_TUPLE);
    ASSERT_EQ(t->n_items, 3);
    t = TERM("(1)");
    ASSERT_EQ(t->kind, CQL_T_TUPLE);
    ASSERT_EQ(t->n_items, 1);
    done();
}

TEST(test_type_hints_and_casts_in_terms)
{
    const cql_term *t = TERM("(int) ?");
    ASSERT_EQ(t->kind, CQL_T_HINT);
    ASSERT_STR_EQ(t->type->name, "int");
    ASSERT_EQ(t->items[0]->kind, CQL_T_BIND);
    t = TERM("(frozen<list<int>>) [1]");
    ASSERT_STR_EQ(t->type->name, "frozen");
    ASSERT_EQ(t->items[0]->kind, CQL_T_LIST);
    t = TERM("(ks.addr) {street: 'x'}");
    ASSERT_STR_EQ(t->type->ks, "ks");
    ASSERT_EQ(t->items[0]->kind, CQL_T_UDT);
    t = TERM("((int) 1, (text) 'a')");
    ASSERT_EQ(t->kind, CQL_T_TUPLE);
    ASSERT_EQ(t->items[1]->kind, CQL_T_HINT);
    t = TERM("CAST(? AS bigint)");
    ASSERT_EQ(t->kind, CQL_T_CAST);
    ASSERT_STR_EQ(t->type->name, "bigint");
    done();
}

TEST(test_function_calls_in_terms)
{
    const cql_term *t = TERM("now()");
    ASSERT_EQ(t->kind, CQL_T_FUNCTION);
    ASSERT_STR_EQ(t->name, "now");
    ASSERT(t->ks == NULL);
    ASSERT_EQ(t->n_items, 0);
    t = TERM("minTimeuuid('2020-01-01')");
    ASSERT_STR_EQ(t->name, "mintimeuuid");
    ASSERT_EQ(t->n_items, 1);
    t = TERM("System.\"MyFn\"(1, [2])");
    ASSERT_STR_EQ(t->ks, "system");
    ASSERT_STR_EQ(t->name, "MyFn");
    ASSERT_EQ(t->n_items, 2);
    t = TERM("blob(1)");
    ASSERT_STR_EQ(t->name, "blob");
    t = TERM("token(1)");
    ASSERT_STR_EQ(t->name, "token");
    done();
}

TEST(test_negative_numbers_and_arithmetic_in_terms)
{
    LITERAL("- 5", CQL_T_INTEGER, "-5");
    LITERAL("-  2.5", CQL_T_FLOAT, "-2.5");
    LITERAL("- 1h", CQL_T_DURATION, "-1h");
    const cql_term *t = TERM("- ?");
    ASSERT_STR_EQ(t->name, "_negate");
    t = TERM("1 + 2 * 3 - 4 / 2 % 3");
    ASSERT_STR_EQ(t->name, "_substract");
    ASSERT_STR_EQ(t->items[0]->name, "_add");
    ASSERT_STR_EQ(t->items[0]->items[1]->name, "_multiply");
    ASSERT_STR_EQ(t->items[1]->name, "_modulo");
    ASSERT_STR_EQ(t->items[1]->items[0]->name, "_divide");
    /* "1 -2" is two integers in Cassandra's lexer, not a subtraction. */
    ERR_PREFIX("SELECT * FROM t WHERE k = 1 -2", "line 1:28 mismatched input '-2' expecting EOF");
    done();
}

/* ---- names, keywords, comments ---- */

TEST(test_quoted_identifiers_keep_case_and_unescape)
{
    cql_stmt *st =
        OK("SELECT \"MixedCase\", \"with \"\"quote\"\"\", \"select\" FROM \"Ks\".\"Tab\" "
           "WHERE \"K\" = 1");
    const cql_select *s = &st->u.select;
    ASSERT_STR_EQ(s->sels[0].term->text, "MixedCase");
    ASSERT_STR_EQ(s->sels[1].term->text, "with \"quote\"");
    ASSERT_STR_EQ(s->sels[2].term->text, "select");
    ASSERT_STR_EQ(s->table.ks, "Ks");
    ASSERT_STR_EQ(s->table.name, "Tab");
    ASSERT_STR_EQ(s->where[0].cols[0], "K");
    st = OK("UPDATE t SET \"\" = 1 WHERE k = 0");
    ASSERT_STR_EQ(st->u.update.sets[0].col, "");
    done();
}

TEST(test_keywords_and_unquoted_names_are_case_insensitive)
{
    cql_stmt *st = OK("sElEcT A, b FrOm KS.T wHeRe K = 1 LiMiT 5");
    const cql_select *s = &st->u.select;
    ASSERT_STR_EQ(s->sels[0].term->text, "a");
    ASSERT_STR_EQ(s->table.ks, "ks");
    ASSERT_STR_EQ(s->table.name, "t");
    ASSERT_STR_EQ(s->where[0].cols[0], "k");
    ASSERT_STR_EQ(s->limit->text, "5");
    done();
}

TEST(test_unreserved_keywords_are_identifiers)
{
    static const char *const words[] = {
        "key",       "type",     "ttl",    "writetime", "count",   "filtering", "values",
        "keys",      "contains", "json",   "timestamp", "date",    "time",      "text",
        "int",       "as",       "static", "frozen",    "list",    "map",       "tuple",
        "exists",    "like",     "per",    "partition", "group",   "default",   "unset",
        "distinct",  "cast",     "login",  "options",   "custom",  "trigger",   "counter",
        "all",       "user",     "role",   "function",  "storage", "compact",   "clustering",
        "keyspaces", "varchar"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(words); i++) {
        char q[256];
        snprintf(q, sizeof q, "SELECT %s FROM %s WHERE %s = 1", words[i], words[i], words[i]);
        cql_stmt *st = OK(q);
        ASSERT_EQ(st->u.select.sels[0].term->kind, CQL_T_COLUMN);
        ASSERT_STR_EQ(st->u.select.sels[0].term->text, words[i]);
        ASSERT_STR_EQ(st->u.select.table.name, words[i]);
        ASSERT_STR_EQ(st->u.select.where[0].cols[0], words[i]);
        snprintf(q, sizeof q, "CREATE TABLE t (%s int PRIMARY KEY)", words[i]);
        ASSERT_STR_EQ(OK(q)->u.create_table.cols[0].name, words[i]);
    }
    done();
}

TEST(test_reserved_keywords_are_not_identifiers)
{
    static const char *const words[] = {
        "select",      "from",     "where",  "and",          "insert",   "update",  "delete",
        "batch",       "apply",    "table",  "columnfamily", "keyspace", "schema",  "primary",
        "limit",       "order",    "by",     "allow",        "if",       "in",      "is",
        "not",         "null",     "set",    "token",        "to",       "with",    "using",
        "use",         "truncate", "create", "alter",        "drop",     "add",     "rename",
        "into",        "asc",      "desc",   "grant",        "revoke",   "nan",     "infinity",
        "or",          "of",       "on",     "index",        "view",     "begin",   "unlogged",
        "entries",     "full",     "modify", "authorize",    "describe", "execute", "norecursive",
        "materialized"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(words); i++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT * FROM t WHERE %s = 1", words[i]);
        ERR_PREFIX(q, "line 1:");
        snprintf(q, sizeof q, "CREATE TABLE t (%s int PRIMARY KEY)", words[i]);
        ERR_PREFIX(q, "line 1:");
    }
    done();
}

TEST(test_comments_of_all_three_styles_are_ignored)
{
    cql_stmt *st = OK("/* lead */ SELECT /* c1 */ a -- c2\n, b // c3\nFROM t /* multi\nline */ "
                      "WHERE k = 1; -- trailing\n");
    ASSERT_EQ(st->u.select.n_sels, 2);
    ASSERT_STR_EQ(st->u.select.sels[1].term->text, "b");
    ASSERT_EQ(st->line, 1);
    ASSERT_EQ(st->col, 12);
    done();
}

TEST(test_trailing_semicolons_and_whitespace_are_allowed)
{
    OK("SELECT * FROM t;");
    OK("SELECT * FROM t ; ;; \n\t");
    ERR("; SELECT * FROM t", "line 1:0 no viable alternative at input ';' ([;]...)");
    done();
}

/* ---- bind markers and positions ---- */

TEST(test_bind_markers_are_numbered_in_order_of_appearance)
{
    cql_stmt *st = OK("SELECT * FROM t WHERE a = ? AND b IN ? AND c = :x AND (d, e) = (?, :Y) "
                      "AND f = \"G\"(:\"Z\") LIMIT ?");
    const cql_relation *r = st->u.select.where;
    ASSERT_EQ(st->n_binds, 7);
    ASSERT_EQ(r[0].values[0]->bind_index, 0);
    ASSERT(r[0].values[0]->name == NULL);
    ASSERT_EQ(r[1].values[0]->bind_index, 1);
    ASSERT_EQ(r[2].values[0]->bind_index, 2);
    ASSERT_STR_EQ(r[2].values[0]->name, "x");
    ASSERT_EQ(r[3].values[0]->items[0]->bind_index, 3);
    ASSERT_EQ(r[3].values[0]->items[1]->bind_index, 4);
    ASSERT_STR_EQ(r[3].values[0]->items[1]->name, "y");
    ASSERT_STR_EQ(r[4].values[0]->items[0]->name, "Z");
    ASSERT_EQ(r[4].values[0]->items[0]->bind_index, 5);
    ASSERT_EQ(st->u.select.limit->bind_index, 6);
    done();
}

TEST(test_named_marker_needs_a_name_and_keeps_quoted_case)
{
    cql_stmt *st = OK("INSERT INTO t (k, v) VALUES (:Key, :\"Val\")");
    ASSERT_STR_EQ(st->u.insert.values[0]->name, "key");
    ASSERT_STR_EQ(st->u.insert.values[1]->name, "Val");
    /* LIMIT is reserved, so ":limit" is not a marker (as in Cassandra). */
    ERR_PREFIX("SELECT * FROM t LIMIT :limit", "line 1:23 no viable alternative at input 'limit'");
    done();
}

TEST(test_positions_are_one_based_line_and_column)
{
    cql_stmt *st = OK("\n  SELECT a\nFROM t\nWHERE  k = 'x'");
    ASSERT_EQ(st->line, 2);
    ASSERT_EQ(st->col, 3);
    const cql_select *s = &st->u.select;
    ASSERT_EQ(s->sels[0].term->line, 2);
    ASSERT_EQ(s->sels[0].term->col, 10);
    ASSERT_EQ(s->table.line, 3);
    ASSERT_EQ(s->table.col, 6);
    ASSERT_EQ(s->where[0].line, 4);
    ASSERT_EQ(s->where[0].col, 8);
    ASSERT_EQ(s->where[0].values[0]->line, 4);
    ASSERT_EQ(s->where[0].values[0]->col, 12);
    /* Columns count UTF-16 units, as ANTLR does: 'é' is one, an emoji two. */
    st = OK("SELECT * FROM t WHERE a = 'é' AND b = '\xf0\x9f\x98\x80' AND c = 1");
    ASSERT_EQ(st->u.select.where[1].col, 35);
    ASSERT_EQ(st->u.select.where[2].col, 48);
    done();
}

/* ---- errors ---- */

TEST(test_misspelled_statement_keyword_is_no_viable_alternative)
{
    ERR("SELEC * FROM t", "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)");
    ERR("CREATE TABEL t (k int PRIMARY KEY)",
        "line 1:7 no viable alternative at input 'TABEL' ([CREATE] TABEL...)");
    done();
}

TEST(test_missing_parenthesis_is_mismatched_input)
{
    ERR("INSERT INTO t (a, b VALUES (1, 2)",
        "line 1:20 mismatched input 'VALUES' expecting ')' (...INTO t (a, b [VALUES]...)");
    ERR("INSERT INTO MyBooks (id,title) VALUE (1,'x')",
        "line 1:31 mismatched input 'VALUE' expecting K_VALUES "
        "(...INTO MyBooks (id,title) [VALUE]...)");
    done();
}

TEST(test_errors_match_what_cqlsh_printed_against_cassandra)
{
    /* Texts cqlsh printed for these inputs against real clusters. */
    ERR("alter table employee_info update salary (primary key);",
        "line 1:26 no viable alternative at input 'update' (alter table [employee_info] "
        "update...)");
    ERR("alter table employee_info alter salary (primary key);",
        "line 1:39 mismatched input '(' expecting K_TYPE "
        "(alter table employee_info alter salary [(]...)");
    ERR("alter table employee_info alter salary text (primary key);",
        "line 1:39 mismatched input 'text' expecting K_TYPE "
        "(alter table employee_info alter salary [text]...)");
    ERR("select*\n;", "line 2:0 mismatched input ';' expecting K_FROM (select*[;])");
    ERR("SELECT", "line 0:-1 no viable alternative at input '<EOF>'");
    ERR("UPDATE my_table WHERE id = 1",
        "line 1:16 mismatched input 'WHERE' expecting K_SET (UPDATE my_table [WHERE]...)");
    done();
}

TEST(test_end_of_input_errors_have_cassandras_position_0_minus_1)
{
    ERR("SELECT * FROM t WHERE", "line 0:-1 no viable alternative at input '<EOF>'");
    ERR("INSERT INTO t (k) VALUES (1", "line 0:-1 mismatched input '<EOF>' expecting ')'");
    ERR("", "line 0:-1 no viable alternative at input '<EOF>'");
    ERR("  -- only a comment\n", "line 0:-1 no viable alternative at input '<EOF>'");
    done();
}

TEST(test_error_position_on_a_later_line)
{
    ERR("SELECT *\nFROM t\nWHERE k = = 1",
        "line 3:10 no viable alternative at input '=' (...FROM tWHERE k = [=]...)");
    done();
}

TEST(test_trailing_garbage_expects_eof)
{
    ERR("USE ks extra", "line 1:7 mismatched input 'extra' expecting EOF (USE ks [extra])");
    ERR_PREFIX("SELECT * FROM t WHERE k = 1 ALLOW", "line 0:-1 mismatched input '<EOF>' "
                                                    "expecting K_FILTERING");
    done();
}

TEST(test_table_name_followed_by_what_cannot_follow_it)
{
    ERR("SELECT * FROM t WERE k = 1",
        "line 1:16 no viable alternative at input 'WERE' (SELECT * FROM [t] WERE...)");
    done();
}

TEST(test_lexer_errors_unterminated_string_comment_and_bad_characters)
{
    ERR("SELECT * FROM t WHERE k = 'abc", "line 1:30 mismatched character '<EOF>' expecting '''");
    ERR("SELECT * FROM t WHERE k = \"abc", "line 1:30 mismatched character '<EOF>' expecting '\"'");
    ERR("SELECT * FROM t WHERE k = $$abc", "line 1:30 mismatched character 'c' expecting '$'");
    ERR("SELECT * FROM t /* open", "line 1:23 mismatched character '<EOF>' expecting '*'");
    ERR("SELECT * FROM t WHERE k @ 1", "line 1:24 no viable alternative at character '@'");
    ERR("SELECT * FROM t WHERE k ! 1", "line 1:25 mismatched character ' ' expecting '='");
    ERR("SELECT * FROM t WHERE k = $1", "line 1:27 mismatched character '1' expecting '$'");
    /* Cassandra's COMMENT token must end with a newline. */
    ERR("SELECT * FROM t -- trailing", "line 1:27 mismatched character '<EOF>' expecting set null");
    /* An earlier parser error wins over a lexer error further on. */
    ERR("SELEC 'abc", "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)");
    done();
}

TEST(test_error_display_escapes_newlines_and_drops_a_snippet_java_would_not_build)
{
    /* The token's text is the string's content: three characters for a source of five over
     * two lines, so Cassandra's snippet code fails and the message has none. */
    ERR("USE ks 'a\nb'", "line 1:7 mismatched input 'a\\nb' expecting EOF");
    done();
}

TEST(test_error_snippet_brackets_a_string_by_its_content_length_as_cassandra_does)
{
    ERR("USE ks 'abc'", "line 1:7 mismatched input 'abc' expecting EOF (USE ks ['ab]...)");
    done();
}

TEST(test_statement_keyword_errors_name_the_missing_token)
{
    ERR("INSERT t (k) VALUES (1)",
        "line 1:7 mismatched input 't' expecting K_INTO (INSERT [t]...)");
    ERR("CREATE TABLE t", "line 0:-1 mismatched input '<EOF>' expecting '('");
    ERR("UPDATE t SET", "line 0:-1 no viable alternative at input '<EOF>'");
    ERR("DELETE FROM", "line 0:-1 no viable alternative at input '<EOF>'");
    ERR("DROP KEYSPACE", "line 0:-1 no viable alternative at input '<EOF>'");
    ERR("SELECT * FROM t WHERE k = 1 GROUP k",
        "line 1:34 mismatched input 'k' expecting K_BY (...WHERE k = 1 GROUP [k])");
    ERR("CREATE TABLE t (k int, PRIMARY KEY (k)) WITH CLUSTERING ORDER BY (k)",
        "line 1:67 no viable alternative at input ')' (...WITH CLUSTERING ORDER BY (k[)])");
    done();
}

TEST(test_function_and_type_names_are_lowercased_unless_quoted)
{
    cql_stmt *st = OK("SELECT NOW(), \"F\"(), ToTimestamp(x), SYSTEM.Uuid() FROM t");
    const cql_select *s = &st->u.select;
    ASSERT_STR_EQ(s->sels[0].term->name, "now");
    ASSERT_STR_EQ(s->sels[1].term->name, "F");
    ASSERT_STR_EQ(s->sels[2].term->name, "totimestamp");
    ASSERT_STR_EQ(s->sels[3].term->ks, "system");
    ASSERT_STR_EQ(s->sels[3].term->name, "uuid");
    st = OK("CREATE TABLE t (k TEXT PRIMARY KEY, l Frozen<List<INT>>, u \"MyType\", w Ks.Addr)");
    const cql_column_decl *c = st->u.create_table.cols;
    ASSERT_STR_EQ(c[0].type->name, "text");
    ASSERT_STR_EQ(c[1].type->name, "frozen");
    ASSERT_STR_EQ(c[1].type->args[0]->name, "list");
    ASSERT_STR_EQ(c[1].type->args[0]->args[0]->name, "int");
    ASSERT_STR_EQ(c[2].type->name, "MyType");
    ASSERT_STR_EQ(c[3].type->ks, "ks");
    ASSERT_STR_EQ(c[3].type->name, "addr");
    done();
}

TEST(test_next_statement_reports_exact_offsets)
{
    const char *script = "  USE a;\n\nUSE b ;USE c";
    size_t pos = 0, start = 0, end = 0;
    ASSERT_EQ(cql_next_statement(script, strlen(script), &pos, &start, &end), 1);
    ASSERT_EQ(start, 2);
    ASSERT_EQ(end, 7);
    ASSERT_EQ(pos, 8);
    ASSERT_EQ(cql_next_statement(script, strlen(script), &pos, &start, &end), 1);
    ASSERT_EQ(start, 10);
    ASSERT_EQ(end, 16);
    ASSERT_EQ(pos, 17);
    ASSERT_EQ(cql_next_statement(script, strlen(script), &pos, &start, &end), 1);
    ASSERT_EQ(start, 17);
    ASSERT_EQ(end, 22);
    ASSERT_EQ(pos, 22);
    ASSERT_EQ(cql_next_statement(script, strlen(script), &pos, &start, &end), 0);
    done();
}

TEST(test_bind_markers_cannot_name_keyspaces_or_tables)
{
    ERR("SELECT * FROM ? WHERE k = 1", "Bind variables cannot be used for table names");
    ERR("SELECT * FROM ?.t WHERE k = 1", "Bind variables cannot be used for keyspace names");
    ERR("USE ?", "Bind variables cannot be used for keyspace names");
    done();
}

TEST(test_property_errors_of_cassandras_grammar_actions)
{
    ERR("CREATE KEYSPACE ks WITH durable_writes = true AND DURABLE_WRITES = false",
        "Multiple definition for property 'durable_writes'");
    ERR("CREATE KEYSPACE ks WITH replication = {'class': 'a', 'class': 'b'}",
        "Multiple definition for property class");
    ERR("CREATE KEYSPACE ks WITH replication = {'class': ?}",
        "Invalid property value: ? for property: 'class' (bind variables are not supported in "
        "DDL queries)");
    ERR("CREATE KEYSPACE ks WITH replication = {?: 'a'}",
        "Invalid property name: ? (bind variables are not supported in DDL queries)");
    ERR("CREATE KEYSPACE ks WITH replication = {'class': [1, 2]}",
        "Invalid property value: [1, 2] for property: 'class'");
    ERR_PREFIX("CREATE KEYSPACE ks WITH x = ?", "line 1:28 no viable alternative at input '?'");
    done();
}

TEST(test_type_errors_of_cassandras_grammar_actions)
{
    ERR("CREATE TABLE t (k int PRIMARY KEY, v frozen<int>)",
        "frozen<> is only allowed on collections, tuples, and user-defined types (got int)");
    ERR("CREATE TABLE t (k int PRIMARY KEY, v list<frozen<text>>)",
        "frozen<> is only allowed on collections, tuples, and user-defined types (got text)");
    ERR_PREFIX("CREATE TABLE t (k int PRIMARY KEY, m map<int>)",
               "line 1:44 mismatched input '>' expecting ','");
    ERR_PREFIX("CREATE TABLE t (k int PRIMARY KEY, l list<int, int>)",
               "line 1:45 mismatched input ',' expecting '>'");
    ERR("CREATE TYPE byte (a int)", "Invalid (reserved) user type name byte");
    ERR("CREATE TABLE t (k int PRIMARY KEY, v enum)", "Invalid (reserved) user type name enum");
    OK("CREATE TYPE Byte (a int)"); /* Parser.g compares case-sensitively */
    done();
}

TEST(test_statements_outside_the_tree_are_invalid_not_syntax_errors)
{
    INVALID("CREATE INDEX ON t (v)", "CREATE INDEX statements are not supported");
    INVALID("CREATE MATERIALIZED VIEW v AS SELECT * FROM t",
            "CREATE MATERIALIZED VIEW statements are not supported");
    INVALID("DROP INDEX i", "DROP INDEX statements are not supported");
    INVALID("GRANT EXECUTE ON FUNCTION ks.f(int) TO r", "FUNCTION resources are not supported");
    INVALID("DESCRIBE KEYSPACES", "DESCRIBE statements are not supported");
    INVALID("ALTER TABLE t DROP COMPACT STORAGE", "DROP COMPACT STORAGE is not supported");
    done();
}

/* Parser.g's role and permission statements (createRoleStatement ... listPermissionsStatement). */
TEST(test_role_and_permission_statements_follow_cassandras_grammar)
{
    OK("CREATE ROLE IF NOT EXISTS r WITH PASSWORD = 'p' AND LOGIN = true AND SUPERUSER = false");
    OK("CREATE ROLE 'Quoted Name' WITH ACCESS TO DATACENTERS {'dc1', 'dc2'}");
    OK("CREATE USER 'u' WITH PASSWORD 'p' NOSUPERUSER");
    OK("CREATE USER IF NOT EXISTS u WITH HASHED PASSWORD 'h' SUPERUSER");
    OK("ALTER ROLE r WITH OPTIONS = {'a': 'b'} AND ACCESS TO ALL DATACENTERS");
    OK("ALTER USER u WITH PASSWORD 'p'");
    OK("DROP USER IF EXISTS u");
    OK("DROP ROLE IF EXISTS \"R\"");
    OK("LIST ROLES OF r NORECURSIVE");
    OK("LIST USERS");
    OK("GRANT ALL PERMISSIONS ON ALL KEYSPACES TO r");
    OK("GRANT SELECT PERMISSION ON KEYSPACE ks TO r");
    OK("REVOKE MODIFY ON TABLE ks.t FROM r");
    OK("REVOKE ALTER ON t FROM r");
    OK("GRANT EXECUTE ON ALL FUNCTIONS IN KEYSPACE ks TO r");
    OK("GRANT DESCRIBE ON ALL MBEANS TO r");
    OK("GRANT AUTHORIZE ON ROLE other TO r");
    OK("GRANT r1 TO r2");
    OK("REVOKE r1 FROM r2");
    OK("LIST ALL OF r");
    OK("LIST SELECT ON ks.t NORECURSIVE");
    ERR("CREATE ROLE r WITH LOGIN = true AND LOGIN = false",
        "Multiple definition for property 'LOGIN'");
    ERR("CREATE USER \"u\"",
        "Quoted strings are are not supported for user names and USER is deprecated, please "
        "use ROLE");
    ERR("CREATE ROLE ?", "Bind variables cannot be used for role names");
    done();
}

/* ---- robustness ---- */

static const char *const valid_statements[] = {
    "USE ks",
    "CREATE ROLE IF NOT EXISTS r WITH PASSWORD = 'p' AND LOGIN = true AND OPTIONS = {'a': 'b'}",
    "GRANT SELECT ON ks.t TO r",
    "LIST ALL PERMISSIONS ON KEYSPACE ks OF r NORECURSIVE",
    "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1} AND durable_writes = true",
    "ALTER KEYSPACE ks WITH durable_writes = false",
    "DROP KEYSPACE IF EXISTS ks",
    "CREATE TABLE t (k int PRIMARY KEY, v text)",
    "CREATE TABLE IF NOT EXISTS ks.t (a int, b int, c timeuuid, s text static, "
    "m map<text, frozen<list<int>>>, PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC) "
    "AND comment = 'x'",
    "CREATE TABLE t (k int, u frozen<ks.addr>, tu tuple<int, text>, PRIMARY KEY (k))",
    "ALTER TABLE t ADD IF NOT EXISTS (a int, b set<text> static)",
    "ALTER TABLE t DROP (a, b)",
    "ALTER TABLE t RENAME a TO b AND c TO d",
    "ALTER TABLE t WITH gc_grace_seconds = 10",
    "DROP TABLE IF EXISTS ks.t",
    "TRUNCATE TABLE t",
    "CREATE TYPE IF NOT EXISTS ks.addr (street text, zip int)",
    "ALTER TYPE addr ADD city text",
    "ALTER TYPE addr RENAME street TO road AND zip TO code",
    "DROP TYPE IF EXISTS addr",
    "INSERT INTO t (k, v) VALUES (1, 'a''b') IF NOT EXISTS USING TTL 10 AND TIMESTAMP 5",
    "INSERT INTO t JSON '{\"k\": 1}' DEFAULT UNSET",
    "INSERT INTO t (k, l, s, m, u, tu) VALUES (?, [1, 2], {'a'}, {'k': 1.5}, {f: 1}, (1, 'x'))",
    "UPDATE t USING TTL 5 SET v = 'x', l = l + [1], l = [0] + l, m['a'] = 2, u.f = 3 "
    "WHERE k = 1 IF v = 'y' AND m['a'] > 1",
    "UPDATE t SET c = c + 1 WHERE k IN (1, 2, 3)",
    "UPDATE t SET c += 1, d -= 2 WHERE k = :k IF EXISTS",
    "DELETE v, m['a'], u.f FROM t USING TIMESTAMP 10 WHERE k = 1 IF EXISTS",
    "DELETE FROM t WHERE k = 1 AND c > now()",
    "BEGIN BATCH INSERT INTO t (k) VALUES (1); UPDATE t SET v = 2 WHERE k = 1; APPLY BATCH",
    "BEGIN UNLOGGED BATCH USING TIMESTAMP 1 DELETE FROM t WHERE k = 1 APPLY BATCH",
    "SELECT * FROM t",
    "SELECT JSON DISTINCT k FROM t WHERE k = ?",
    "SELECT k, writetime(v), ttl(v) AS t, count(*), CAST(v AS text) FROM t LIMIT 10",
    "SELECT token(k), now(), ks.f(v, 1) FROM t WHERE token(k) > token(5)",
    "SELECT * FROM t WHERE (c1, c2) > (1, 2) AND (c1, c2) IN ((1, 2), (3, 4)) ALLOW FILTERING",
    "SELECT * FROM t WHERE k = 1 GROUP BY k ORDER BY c DESC PER PARTITION LIMIT 2 LIMIT 5",
    "SELECT * FROM t WHERE m CONTAINS KEY 'a' AND s CONTAINS 1 AND v LIKE 'x%'",
    "SELECT * FROM t WHERE v IS NOT NULL AND m['k'] = 1 AND k IN ? AND c IN ()",
    "SELECT u.f, a + b * 2, -a, (int) 1, [a], {a: 1}, (a, b) FROM t",
    "SELECT * FROM t WHERE k = (int) ? AND d = 1h30m AND u = 01234567-89ab-cdef-0123-456789abcdef",
    "SELECT * FROM t WHERE b = 0xCAFE AND f = -1.5e3 AND n = NaN AND i = -Infinity",
    "SELECT * FROM t WHERE d = P1Y2M3DT4H AND e = P0001-02-03T04:05:06 AND x = true",
    "SELECT \"Quoted\" FROM \"Ks\".\"T\" WHERE \"K\" = $$raw ' text$$",
    "SELECT a /* c */ FROM t -- comment\n WHERE k = 1",
    "select * from t where k = 1;",
    "UPDATE t SET l = l - [1], s = s - {'a'}, m = m + {'b': 2} WHERE k = 1",
    "INSERT INTO t (k, v) VALUES (:k, :v) USING TTL :ttl",
    "SELECT * FROM t WHERE k = 1 AND (c = 2)",
    "CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c)) WITH COMPACT STORAGE",
    "ALTER TABLE IF EXISTS t DROP IF EXISTS v",
    "UPDATE t SET u = {a: 1, b: 'x'}, tu = (1, 2) WHERE k = 1",
    "SELECT * FROM t WHERE k = minTimeuuid('2020-01-01') AND c = 1 + 2 - 3",
    "INSERT INTO t (k, v) VALUES (1, {'a': [1, 2], 'b': []})",
};

TEST(test_every_prefix_of_valid_statements_parses_or_fails_cleanly)
{
    ASSERT(ENG_ARRAY_LEN(valid_statements) >= 50);
    for (size_t i = 0; i < ENG_ARRAY_LEN(valid_statements); i++) {
        const char *q = valid_statements[i];
        size_t len = strlen(q);
        eng_err err;
        cql_stmt *st = NULL;
        if (parse_len(q, len, &st, &err) != 0)
            test_fail(__FILE__, __LINE__, "valid statement [%s] failed: %s", q, err.msg);
        for (size_t k = 0; k < len; k++) {
            st = NULL;
            int rc = parse_len(q, k, &st, &err);
            if (rc != 0 && rc != ENG_E_SYNTAX)
                test_fail(__FILE__, __LINE__, "prefix %zu of [%s]: 0x%x %s", k, q, rc, err.msg);
            ASSERT(rc != 0 || st != NULL);
            ASSERT(rc == 0 || (st == NULL && err.msg[0]));
        }
        eng_arena_reset(arena());
    }
    done();
}

TEST(test_random_mutations_of_valid_statements_never_crash)
{
    static const char alphabet[] =
        "'\"$-/*;(){}[]<>=!?:.,+%0123456789abcdefxPTHMS \n\t\\@#\x00\xc3\xa9\xff";
    uint64_t seed = test_seed();
    char buf[512];
    for (int iter = 0; iter < 4000; iter++) {
        const char *q = valid_statements[test_rand(&seed) % ENG_ARRAY_LEN(valid_statements)];
        size_t len = strlen(q);
        if (len > sizeof buf - 16)
            len = sizeof buf - 16;
        memcpy(buf, q, len);
        int edits = 1 + (int)(test_rand(&seed) % 3);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = test_rand(&seed) % len;
            char c = alphabet[test_rand(&seed) % (sizeof alphabet - 1)];
            switch (test_rand(&seed) % 3) {
            case 0:
                buf[at] = c;
                break;
            case 1:
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
                break;
            default:
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = c;
                len++;
            }
        }
        eng_err err;
        cql_stmt *st = NULL;
        int rc = parse_len(buf, len, &st, &err);
        if (rc != 0 && rc != ENG_E_SYNTAX && rc != ENG_E_INVALID)
            test_fail(__FILE__, __LINE__, "mutation [%.*s]: 0x%x %s", (int)len, buf, rc, err.msg);
        ASSERT(rc == 0 ? st != NULL : err.msg[0] != 0);
        if (iter % 256 == 0)
            eng_arena_reset(arena());
    }
    done();
}

static void parse_nested_tail(const char *head, const char *open, const char *mid,
                              const char *close, int depth, const char *tail, int want)
{
    size_t cap =
        strlen(head) + depth * (strlen(open) + strlen(close)) + strlen(mid) + strlen(tail) + 1;
    char *q = malloc(cap);
    ASSERT(q != NULL);
    strcpy(q, head);
    for (int i = 0; i < depth; i++)
        strcat(q, open);
    strcat(q, mid);
    for (int i = 0; i < depth; i++)
        strcat(q, close);
    strcat(q, tail);
    eng_err err;
    cql_stmt *st = NULL;
    int rc = parse_len(q, strlen(q), &st, &err);
    if (rc != want)
        test_fail(__FILE__, __LINE__, "nesting %s%s x%d: 0x%x %s", head, open, depth, rc, err.msg);
    if (rc)
        ASSERT(strstr(err.msg, "nested too deeply") != NULL);
    free(q);
    eng_arena_reset(arena());
}

static void parse_nested(const char *head, const char *open, const char *mid, const char *close,
                         int depth, int want)
{
    parse_nested_tail(head, open, mid, close, depth, "", want);
}

TEST(test_deep_nesting_is_an_error_not_a_crash)
{
    const char *where = "SELECT * FROM t WHERE k = ";
    parse_nested(where, "[", "1", "]", 20, 0);
    parse_nested(where, "[", "1", "]", 100000, ENG_E_SYNTAX);
    parse_nested(where, "{", "1", "}", 100000, ENG_E_SYNTAX);
    parse_nested(where, "(", "1", ")", 5000, ENG_E_SYNTAX);
    parse_nested(where, "f(", "1", ")", 5000, ENG_E_SYNTAX);
    parse_nested(where, "(int)", "1", "", 5000, ENG_E_SYNTAX);
    parse_nested(where, "1 + ", "1", "", 5000, ENG_E_SYNTAX);
    parse_nested("SELECT * FROM t WHERE ", "(", "k = 1", ")", 5000, ENG_E_SYNTAX);
    parse_nested("SELECT ", "- ", "a", "", 5000, ENG_E_SYNTAX);
    parse_nested_tail("SELECT ", "(", "a", ")", 90, " FROM t", 0);
    parse_nested_tail("SELECT ", "- ", "a", "", 90, " FROM t", 0);
    parse_nested_tail("SELECT * FROM t WHERE ", "(", "k = 1", ")", 90, "", 0);
    parse_nested("SELECT ", "(", "a", ")", 5000, ENG_E_SYNTAX);
    parse_nested("CREATE TABLE t (k int PRIMARY KEY, v ", "list<", "int", ">", 5000, ENG_E_SYNTAX);
    done();
}

TEST(test_out_of_memory_is_reported_at_every_allocation)
{
    const char *q = "SELECT JSON k, count(*), ks.f(v) FROM ks.t WHERE k IN (1, 2, 'x', [1, 2]) "
                    "AND (a, b) > (?, ?) LIMIT 10";
    int failures = 0;
    for (long n = 0; n < 100000; n++) {
        eng_arena a;
        eng_arena_init(&a, 64);
        eng_err err;
        eng_err_clear(&err);
        cql_stmt *st = NULL;
        eng_alloc_fail_after(n);
        int rc = cql_parse(q, strlen(q), &a, &st, &err);
        eng_alloc_fail_after(-1);
        eng_arena_free(&a);
        if (rc == 0)
            break;
        ASSERT_EQ(rc, ENG_E_NOMEM);
        ASSERT(st == NULL);
        failures++;
    }
    ASSERT(failures > 3);
    done();
}

/* ---- cql_next_statement ---- */

static char *next_text(const char *script, size_t *pos)
{
    size_t start, end;
    static char out[1024];
    if (!cql_next_statement(script, strlen(script), pos, &start, &end))
        return NULL;
    ASSERT(end >= start && end - start < sizeof out);
    memcpy(out, script + start, end - start);
    out[end - start] = 0;
    return out;
}

TEST(test_next_statement_splits_a_script)
{
    const char *script = "-- header; comment\n"
                         "CREATE TABLE t (k int PRIMARY KEY, v text);\n"
                         "INSERT INTO t (k, v) VALUES (1, 'a;b');\n"
                         "INSERT INTO t (k, v) VALUES (2, $$c;d$$); /* x; y */\n"
                         "BEGIN BATCH\n"
                         "  INSERT INTO t (k, v) VALUES (3, 'e');\n"
                         "  UPDATE t SET v = 'f;' WHERE k = 4;\n"
                         "APPLY BATCH;\n"
                         "SELECT \"we;ird\" FROM t // trailing; comment\n"
                         ";;\n"
                         "  SELECT * FROM t -- last, no semicolon";
    static const char *const want[] = {
        "CREATE TABLE t (k int PRIMARY KEY, v text)",
        "INSERT INTO t (k, v) VALUES (1, 'a;b')",
        "INSERT INTO t (k, v) VALUES (2, $$c;d$$)",
        "BEGIN BATCH\n  INSERT INTO t (k, v) VALUES (3, 'e');\n"
        "  UPDATE t SET v = 'f;' WHERE k = 4;\nAPPLY BATCH",
        "SELECT \"we;ird\" FROM t // trailing; comment\n",
        "SELECT * FROM t",
    };
    size_t pos = 0;
    for (size_t i = 0; i < ENG_ARRAY_LEN(want); i++) {
        char *s = next_text(script, &pos);
        ASSERT(s != NULL);
        ASSERT_STR_EQ(s, want[i]);
        ASSERT_EQ(OK(s)->kind, i == 0   ? CQL_S_CREATE_TABLE
                               : i < 3  ? CQL_S_INSERT
                               : i == 3 ? CQL_S_BATCH
                                        : CQL_S_SELECT);
    }
    ASSERT(next_text(script, &pos) == NULL);
    ASSERT_EQ(pos, strlen(script));
    ASSERT(next_text(script, &pos) == NULL);
    done();
}

TEST(test_next_statement_batch_forms_and_statements_named_begin)
{
    const char *script = "begin unlogged batch delete from t where k = 1; apply batch ; "
                         "BEGIN COUNTER BATCH UPDATE t SET c = c + 1 WHERE k = 1; APPLY BATCH;"
                         "BEGIN; SELECT 1";
    size_t pos = 0;
    ASSERT_STR_EQ(next_text(script, &pos),
                  "begin unlogged batch delete from t where k = 1; apply batch ");
    ASSERT_STR_EQ(next_text(script, &pos),
                  "BEGIN COUNTER BATCH UPDATE t SET c = c + 1 WHERE k = 1; APPLY BATCH");
    ASSERT_STR_EQ(next_text(script, &pos), "BEGIN");
    ASSERT_STR_EQ(next_text(script, &pos), "SELECT 1");
    ASSERT(next_text(script, &pos) == NULL);
    done();
}

TEST(test_next_statement_on_empty_blank_and_unterminated_input)
{
    size_t pos = 0, start = 0, end = 0;
    ASSERT_EQ(cql_next_statement("", 0, &pos, &start, &end), 0);
    pos = 0;
    ASSERT_EQ(cql_next_statement(" ;; /* c */ -- d\n ", 18, &pos, &start, &end), 0);
    ASSERT_EQ(pos, 18);
    const char *open = "SELECT 'unterminated; still the string";
    pos = 0;
    ASSERT_EQ(cql_next_statement(open, strlen(open), &pos, &start, &end), 1);
    ASSERT_EQ(start, 0);
    ASSERT_EQ(end, strlen(open));
    ASSERT_EQ(pos, strlen(open));
    const char *comment = "SELECT 1 /* open; comment";
    pos = 0;
    ASSERT_EQ(cql_next_statement(comment, strlen(comment), &pos, &start, &end), 1);
    ASSERT_EQ(end, 8);
    done();
}

TEST(test_invalid_utf8_and_control_bytes_are_errors_not_crashes)
{
    static const char *const inputs[] = {
        "SELECT \xff FROM t", "SELECT * FROM t WHERE k = '\xff'", "\xc3", "SELECT * FROM \xe2\x82",
        "\x01\x02\x03",       "SELECT * FROM t WHERE k = 1\x7f"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(inputs); i++) {
        eng_err err;
        cql_stmt *st = NULL;
        int rc = parse_len(inputs[i], strlen(inputs[i]), &st, &err);
        ASSERT(rc == 0 || rc == ENG_E_SYNTAX);
    }
    ERR("SELECT \xc3\xa9 FROM t", "line 1:7 no viable alternative at character '\xc3\xa9'");
    /* Strings hold any bytes. */
    ASSERT_EQ(TERM("'\xff\xfe'")->len, 2);
    done();
}

/* The lexer's spellings come from its keyword table: every token's own name, in any case, and
   the second spellings Lexer.g gives (TABLE is K_COLUMNFAMILY, SCHEMA K_KEYSPACE). */
TEST(every_keyword_is_spelled_as_its_token_name_in_any_case)
{
    for (int kw = KW_NONE + 1; kw < N_KW; kw++) {
        if (kw == KW_POSITIVE_NAN || kw == KW_POSITIVE_INFINITY)
            continue;
        const char *name = cql_keywords[kw].name + 2;
        char lower[32];
        size_t n = strlen(name);
        ASSERT(n < sizeof lower);
        for (size_t i = 0; i <= n; i++)
            lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
        ASSERT_EQ(cql_keyword_of(name, n), kw);
        ASSERT_EQ(cql_keyword_of(lower, n), kw);
    }
    ASSERT_EQ(cql_keyword_of("table", 5), KW_COLUMNFAMILY);
    ASSERT_EQ(cql_keyword_of("Schema", 6), KW_KEYSPACE);
    ASSERT_EQ(cql_keyword_of("COLUMNFAMILIES", 14), KW_TABLES);
    ASSERT_EQ(cql_keyword_of("NaN", 3), KW_POSITIVE_NAN);
    ASSERT_EQ(cql_keyword_of("infinity", 8), KW_POSITIVE_INFINITY);
    ASSERT_EQ(cql_keyword_of("positive_nan", 12), KW_NONE);
    ASSERT_EQ(cql_keyword_of("tablex", 6), KW_NONE);
}
