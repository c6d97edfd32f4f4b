/*
 * The catalog on a real LMDB environment: every schema change persisted and
 * seen again after the environment is closed and reopened, SELECT * column
 * order (facts §7.2), each Cassandra validation rule with its exact message
 * and code (facts §8.2, §6, §7.1, §4.6, Cassandra 4.1 sources), version
 * bumps, user types resolved at load, corrupt records, and snapshot
 * lifetimes. Under ASAN every test ends with a leak check of its own, so a
 * leak fails the test that made it, with the fixture's state in view.
 */
#include <lmdb.h>
#include <sys/stat.h>

#include "engine/store/catalog.h"
#include "harness.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

/* ---- fixture: one LMDB environment with a "meta" database ---- */

typedef struct fx {
    MDB_env *env;
    MDB_dbi meta;
    MDB_txn *txn;    /* the write transaction of the change under way */
    eng_schema *cur; /* its snapshot */
    eng_err err;
    int changed;
} fx;

#define MAX_KEPT 256
static eng_type *kept[MAX_KEPT];
static int n_kept;

/* Test-owned type descriptors, freed when the fixture closes. */
static eng_type *keep(eng_type *t)
{
    ASSERT(t != NULL);
    ASSERT(n_kept < MAX_KEPT);
    kept[n_kept++] = t;
    return t;
}

static eng_type *T(int kind)
{
    return keep(eng_type_new(kind));
}

static eng_type *LIST(int kind, int frozen)
{
    return keep(eng_type_new_list(eng_type_new(kind), frozen));
}

/* A UDT named only by keyspace ("" = the statement's) and name, as the CQL layer may pass it. */
static eng_type *UDT(const char *ks, const char *name, int frozen)
{
    return keep(eng_type_new_udt(ks, name, NULL, NULL, 0, frozen));
}

static void fx_open_env(fx *f)
{
    ASSERT_EQ(mdb_env_create(&f->env), 0);
    ASSERT_EQ(mdb_env_set_maxdbs(f->env, 8), 0);
    ASSERT_EQ(mdb_env_set_mapsize(f->env, 64u << 20), 0);
    ASSERT_EQ(mdb_env_open(f->env, test_tmpdir(), 0, 0600), 0);
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(f->env, NULL, 0, &txn), 0);
    ASSERT_EQ(mdb_dbi_open(txn, "meta", MDB_CREATE, &f->meta), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
}

static void fx_open(fx *f)
{
    memset(f, 0, sizeof *f);
    fx_open_env(f);
}

static void fx_close_env(fx *f)
{
    mdb_env_close(f->env);
    f->env = NULL;
}

static void leak_check(void)
{
#if defined(__SANITIZE_ADDRESS__)
    if (__lsan_do_recoverable_leak_check())
        test_fail(__FILE__, __LINE__, "memory leaked (see LeakSanitizer report)");
#endif
}

static void fx_close(fx *f)
{
    fx_close_env(f);
    for (int i = 0; i < n_kept; i++)
        eng_type_free(kept[i]);
    n_kept = 0;
    leak_check();
}

static void fx_reopen(fx *f)
{
    fx_close_env(f);
    fx_open_env(f);
}

/* Begins a write transaction and loads its snapshot, as the write path does before a change. */
static void begin(fx *f)
{
    ASSERT_EQ(mdb_txn_begin(f->env, NULL, 0, &f->txn), 0);
    eng_err_clear(&f->err);
    ASSERT_OK_ERR(eng_schema_load(f->txn, f->meta, &f->cur, &f->err), &f->err);
    f->changed = -1;
}

/* Commits on success, aborts on error; returns the change's code. */
static int end(fx *f, int rc)
{
    if (rc == 0)
        ASSERT_EQ(mdb_txn_commit(f->txn), 0);
    else
        mdb_txn_abort(f->txn);
    f->txn = NULL;
    eng_schema_unref(f->cur);
    f->cur = NULL;
    return rc;
}

/* One schema change in its own transaction; `call` uses f->txn, f->meta, f->cur. */
#define CHANGE(f, call) (begin(f), end((f), (call)))

#define ASSERT_FAILS(f, call, want_code, want_msg)                                                 \
    do {                                                                                           \
        ASSERT_EQ(CHANGE(f, call), want_code);                                                     \
        ASSERT_EQ((f)->err.code, want_code);                                                       \
        ASSERT_STR_EQ((f)->err.msg, want_msg);                                                     \
    } while (0)

#define ASSERT_CHANGES(f, call)                                                                    \
    do {                                                                                           \
        ASSERT_OK_ERR(CHANGE(f, call), &(f)->err);                                                 \
        ASSERT_EQ((f)->changed, 1);                                                                \
    } while (0)

/* A snapshot read in its own read transaction. */
static eng_schema *load(fx *f)
{
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(f->env, NULL, MDB_RDONLY, &txn), 0);
    eng_schema *s = NULL;
    eng_err err;
    eng_err_clear(&err);
    int rc = eng_schema_load(txn, f->meta, &s, &err);
    mdb_txn_abort(txn);
    ASSERT_OK_ERR(rc, &err);
    return s;
}

static uint64_t version(fx *f)
{
    eng_schema *s = load(f);
    uint64_t v = s->version;
    eng_schema_unref(s);
    return v;
}

static const eng_option simple_rf1[] = {
    {"class", "SimpleStrategy"},
    {"replication_factor", "1"},
};

static int create_ks(fx *f, const char *ks)
{
    return CHANGE(f, eng_catalog_create_keyspace(f->txn, f->meta, f->cur, ks, simple_rf1, 2, 1, 0,
                                                 &f->changed, &f->err));
}

static int create_table(fx *f, const char *ks, const char *name, const eng_column_def *cols,
                        uint32_t n, const eng_option *opts, uint32_t n_opts)
{
    eng_table_def def = {ks, name, n, cols, n_opts, opts};
    uint8_t id[16];
    return CHANGE(f, eng_catalog_create_table(f->txn, f->meta, f->cur, &def, 0, 1000, id,
                                              &f->changed, &f->err));
}

#define CREATE_TABLE(f, ks, name, cols)                                                            \
    create_table(f, ks, name, cols, ENG_ARRAY_LEN(cols), NULL, 0)

/* ks "ks" with t (k int, c int, v text, PRIMARY KEY (k, c)). */
static void std_table(fx *f)
{
    ASSERT_OK_ERR(create_ks(f, "ks"), &f->err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"c", T(ENG_INT), ENG_COL_CLUSTERING, 0},
        {"v", T(ENG_TEXT), ENG_COL_REGULAR, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(f, "ks", "t", cols), &f->err);
}

static void create_type(fx *f, const char *ks, const char *name, const char *const *fields,
                        eng_type **types, uint32_t n)
{
    ASSERT_CHANGES(f, eng_catalog_create_type(f->txn, f->meta, f->cur, ks, name, fields,
                                              (const eng_type *const *)types, n, 0, &f->changed,
                                              &f->err));
}

static char *type_cql(const eng_type *t)
{
    static char s[256];
    eng_buf b = ENG_BUF_INIT;
    eng_type_to_cql(t, &b);
    snprintf(s, sizeof s, "%.*s", (int)b.len, b.p ? (const char *)b.p : "");
    eng_buf_free(&b);
    return s;
}

/* ---- versions and keyspaces ---- */

TEST(test_new_database_has_version_zero_and_nothing_in_it)
{
    fx f;
    fx_open(&f);
    eng_schema *s = load(&f);
    ASSERT_EQ(s->version, 0);
    ASSERT_EQ(s->n_keyspaces + s->n_tables + s->n_types, 0);
    ASSERT(eng_schema_keyspace(s, "ks") == NULL);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_create_keyspace_is_persisted_across_reopen)
{
    fx f;
    fx_open(&f);
    const eng_option repl[] = {{"replication_factor", "3"}, {"class", "SimpleStrategy"}};
    ASSERT_CHANGES(&f, eng_catalog_create_keyspace(f.txn, f.meta, f.cur, "Ks1", repl, 2, 0, 0,
                                                   &f.changed, &f.err));
    fx_reopen(&f);
    eng_schema *s = load(&f);
    ASSERT_EQ(s->version, 1);
    const eng_keyspace *k = eng_schema_keyspace(s, "Ks1");
    ASSERT(k != NULL);
    ASSERT(eng_schema_keyspace(s, "ks1") == NULL); /* names are case-sensitive */
    ASSERT_EQ(k->durable_writes, 0);
    ASSERT_EQ(k->n_repl, 2);
    ASSERT_STR_EQ(k->repl[0].name, "class"); /* sorted by name */
    ASSERT_STR_EQ(k->repl[0].value, "SimpleStrategy");
    ASSERT_STR_EQ(k->repl[1].name, "replication_factor");
    ASSERT_STR_EQ(k->repl[1].value, "3");
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_keyspaces_are_sorted_for_lookup)
{
    fx f;
    fx_open(&f);
    const char *names[] = {"m", "a", "z", "b"};
    for (int i = 0; i < 4; i++)
        ASSERT_OK_ERR(create_ks(&f, names[i]), &f.err);
    eng_schema *s = load(&f);
    ASSERT_EQ(s->n_keyspaces, 4);
    ASSERT_STR_EQ(s->keyspaces[0].name, "a");
    ASSERT_STR_EQ(s->keyspaces[3].name, "z");
    for (int i = 0; i < 4; i++)
        ASSERT_STR_EQ(eng_schema_keyspace(s, names[i])->name, names[i]);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_create_existing_keyspace_is_already_exists)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    ASSERT_EQ(create_ks(&f, "ks"), ENG_E_EXISTS);
    ASSERT_STR_EQ(f.err.msg, "Cannot add existing keyspace \"ks\"");
    ASSERT_STR_EQ(f.err.ks, "ks");
    ASSERT_STR_EQ(f.err.table, "");
    fx_close(&f);
}

TEST(test_create_keyspace_if_not_exists_is_a_no_op)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const eng_option other[] = {{"class", "NetworkTopologyStrategy"}, {"dc1", "3"}};
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_create_keyspace(f.txn, f.meta, f.cur, "ks", other, 2, 1, 1,
                                                         &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    ASSERT_EQ(version(&f), 1);
    eng_schema *s = load(&f);
    ASSERT_STR_EQ(eng_schema_keyspace(s, "ks")->repl[0].value, "SimpleStrategy");
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_keyspace_name_must_be_word_characters_of_at_most_48)
{
    fx f;
    fx_open(&f);
    ASSERT_EQ(create_ks(&f, "bad-name"), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Keyspace name must not be empty, more than 48 characters long, or "
                             "contain non-alphanumeric-underscore characters (got 'bad-name')");
    char longname[50];
    memset(longname, 'a', 49);
    longname[49] = 0;
    ASSERT_EQ(create_ks(&f, longname), ENG_E_INVALID);
    ASSERT_EQ(create_ks(&f, ""), ENG_E_INVALID);
    longname[48] = 0;
    ASSERT_OK_ERR(create_ks(&f, longname), &f.err);
    ASSERT_OK_ERR(create_ks(&f, "_Under_9"), &f.err);
    fx_close(&f);
}

TEST(test_system_keyspaces_are_not_user_modifiable)
{
    fx f;
    fx_open(&f);
    ASSERT_EQ(create_ks(&f, "system"), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "System keyspace 'system' is not user-modifiable");
    ASSERT_EQ(create_ks(&f, "System_Schema"), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "System keyspace 'System_Schema' is not user-modifiable");
    ASSERT_EQ(create_ks(&f, "system_views"), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Virtual keyspace 'system_views' is not user-modifiable");
    fx_close(&f);
}

TEST(test_create_keyspace_needs_replication_with_a_class)
{
    fx f;
    fx_open(&f);
    ASSERT_FAILS(
        &f,
        eng_catalog_create_keyspace(f.txn, f.meta, f.cur, "ks", NULL, 0, 1, 0, &f.changed, &f.err),
        ENG_E_INVALID, "Missing mandatory option 'replication'");
    const eng_option no_class[] = {{"replication_factor", "1"}};
    ASSERT_FAILS(&f,
                 eng_catalog_create_keyspace(f.txn, f.meta, f.cur, "ks", no_class, 1, 1, 0,
                                             &f.changed, &f.err),
                 ENG_E_CONFIG, "Missing replication strategy class");
    ASSERT_EQ(version(&f), 0);
    fx_close(&f);
}

TEST(test_alter_keyspace_replaces_replication_and_keeps_what_is_not_given)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const eng_option nts[] = {{"class", "NetworkTopologyStrategy"}, {"dc1", "2"}};
    ASSERT_CHANGES(&f, eng_catalog_alter_keyspace(f.txn, f.meta, f.cur, "ks", nts, 2, -1, 0,
                                                  &f.changed, &f.err));
    ASSERT_CHANGES(&f, eng_catalog_alter_keyspace(f.txn, f.meta, f.cur, "ks", NULL, 0, 0, 0,
                                                  &f.changed, &f.err));
    /* the same values again change nothing */
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_alter_keyspace(f.txn, f.meta, f.cur, "ks", nts, 2, 0, 0,
                                                        &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    fx_reopen(&f);
    eng_schema *s = load(&f);
    ASSERT_EQ(s->version, 3);
    const eng_keyspace *k = eng_schema_keyspace(s, "ks");
    ASSERT_EQ(k->durable_writes, 0);
    ASSERT_EQ(k->n_repl, 2);
    ASSERT_STR_EQ(k->repl[0].value, "NetworkTopologyStrategy");
    ASSERT_STR_EQ(k->repl[1].name, "dc1");
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_alter_or_drop_of_missing_keyspace_says_it_does_not_exist)
{
    fx f;
    fx_open(&f);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_keyspace(f.txn, f.meta, f.cur, "nope", simple_rf1, 2, 1, 0,
                                            &f.changed, &f.err),
                 ENG_E_INVALID, "Keyspace 'nope' doesn't exist");
    ASSERT_FAILS(
        &f, eng_catalog_drop_keyspace(f.txn, f.meta, f.cur, "nope", 0, &f.changed, NULL, &f.err),
        ENG_E_INVALID, "Keyspace 'nope' doesn't exist");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_drop_keyspace(f.txn, f.meta, f.cur, "nope", 1, &f.changed,
                                                       NULL, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_alter_keyspace(f.txn, f.meta, f.cur, "nope", NULL, 0, 1, 1,
                                                        &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    ASSERT_EQ(version(&f), 0);
    fx_close(&f);
}

TEST(test_drop_keyspace_returns_its_table_ids_and_removes_tables_and_types)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    ASSERT_OK_ERR(create_ks(&f, "other"), &f.err);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "u", cols), &f.err);
    ASSERT_OK_ERR(CREATE_TABLE(&f, "other", "w", cols), &f.err);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "pt", fields, types, 1);
    eng_schema *s = load(&f);
    uint8_t t_id[16], u_id[16];
    memcpy(t_id, eng_schema_table(s, "ks", "t")->id, 16);
    memcpy(u_id, eng_schema_table(s, "ks", "u")->id, 16);
    eng_schema_unref(s);

    eng_buf ids = ENG_BUF_INIT;
    ASSERT_CHANGES(
        &f, eng_catalog_drop_keyspace(f.txn, f.meta, f.cur, "ks", 0, &f.changed, &ids, &f.err));
    ASSERT_EQ(ids.len, 32);
    ASSERT_MEM_EQ(ids.p, t_id, 16);
    ASSERT_MEM_EQ(ids.p + 16, u_id, 16);
    eng_buf_free(&ids);
    fx_reopen(&f);
    s = load(&f);
    ASSERT(eng_schema_keyspace(s, "ks") == NULL);
    ASSERT(eng_schema_table(s, "ks", "t") == NULL);
    ASSERT(eng_schema_udt(s, "ks", "pt") == NULL);
    ASSERT_EQ(s->n_tables, 1);
    ASSERT(eng_schema_table(s, "other", "w") != NULL);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_every_change_bumps_the_version_by_one)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    ASSERT_EQ(version(&f), 2);
    eng_column_def add[] = {{"w", T(ENG_INT), ENG_COL_REGULAR, 0}};
    ASSERT_CHANGES(&f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", add, 1, 0,
                                               &f.changed, &f.err));
    ASSERT_EQ(version(&f), 3);
    const char *names[] = {"w", "v"};
    ASSERT_CHANGES(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", names, 2, 0, 5,
                                                &f.changed, &f.err));
    ASSERT_EQ(version(&f), 4);
    /* a failed change leaves it alone */
    ASSERT_EQ(create_ks(&f, "ks"), ENG_E_EXISTS);
    ASSERT_EQ(version(&f), 4);
    fx_close(&f);
}

TEST(test_a_stale_snapshot_is_refused)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "a"), &f.err);
    eng_schema *old = load(&f);
    ASSERT_OK_ERR(create_ks(&f, "b"), &f.err);
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(f.env, NULL, 0, &txn), 0);
    eng_err_clear(&f.err);
    int rc =
        eng_catalog_create_keyspace(txn, f.meta, old, "c", simple_rf1, 2, 1, 0, &f.changed, &f.err);
    mdb_txn_abort(txn);
    ASSERT_EQ(rc, ENG_E_SERVER);
    eng_schema_unref(old);
    fx_close(&f);
}

/* ---- tables ---- */

TEST(test_select_star_order_is_partition_clustering_static_regular_by_name)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"zz", T(ENG_TEXT), ENG_COL_REGULAR, 0},     {"b", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"s2", T(ENG_INT), ENG_COL_STATIC, 0},       {"y", T(ENG_UUID), ENG_COL_CLUSTERING, 1},
        {"a", T(ENG_INT), ENG_COL_PARTITION, 0},     {"B", T(ENG_INT), ENG_COL_REGULAR, 0},
        {"s1", T(ENG_INT), ENG_COL_STATIC, 0},       {"x", T(ENG_INT), ENG_COL_CLUSTERING, 0},
        {"m", LIST(ENG_INT, 0), ENG_COL_REGULAR, 0},
    };
    ASSERT_CHANGES(&f, eng_catalog_create_table(
                           f.txn, f.meta, f.cur,
                           &(eng_table_def){"ks", "t", ENG_ARRAY_LEN(cols), cols, 0, NULL}, 0, 1,
                           (uint8_t[16]){0}, &f.changed, &f.err));
    fx_reopen(&f);
    eng_schema *s = load(&f);
    const eng_table *t = eng_schema_table(s, "ks", "t");
    ASSERT(t != NULL);
    const char *want[] = {"b", "a", "y", "x", "s1", "s2", "B", "m", "zz"};
    ASSERT_EQ(t->n_cols, 9);
    for (int i = 0; i < 9; i++) {
        ASSERT_STR_EQ(t->cols[i].name, want[i]);
        ASSERT_EQ(eng_table_column_index(t, want[i]), i);
    }
    ASSERT_EQ(t->n_pk, 2);
    ASSERT_EQ(t->n_ck, 2);
    ASSERT_EQ(t->has_static, 1);
    ASSERT_EQ(t->is_counter, 0);
    ASSERT_EQ(t->cols[1].position, 1);
    ASSERT_EQ(t->cols[2].desc, 1);
    ASSERT_EQ(t->cols[3].desc, 0);
    ASSERT_EQ(t->cols[2].kind, ENG_COL_CLUSTERING);
    ASSERT_STR_EQ(type_cql(t->cols[7].type), "list<int>");
    ASSERT(eng_table_column(t, "Zz") == NULL);
    ASSERT_EQ(eng_table_column_index(t, "nope"), -1);
    /* ids are distinct and found again */
    for (int i = 0; i < 9; i++)
        ASSERT(eng_table_column_by_id(t, t->cols[i].id) == &t->cols[i]);
    ASSERT(eng_table_column_by_id(t, t->next_col_id) == NULL);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_new_table_gets_default_options_and_keeps_the_others_sorted)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "plain", cols), &f.err);
    const eng_option opts[] = {
        {"compaction", "{'class': 'LeveledCompactionStrategy'}"},
        {"default_time_to_live", "3600"},
        {"bloom_filter_fp_chance", "0.01"},
        {"comment", "'it''s mine'"},
        {"gc_grace_seconds", "'0'"},
    };
    ASSERT_OK_ERR(create_table(&f, "ks", "opts", cols, 1, opts, 5), &f.err);
    fx_reopen(&f);
    eng_schema *s = load(&f);
    const eng_table *p = eng_schema_table(s, "ks", "plain");
    ASSERT_EQ(p->default_ttl_s, 0);
    ASSERT_EQ(p->gc_grace_s, 864000);
    ASSERT_STR_EQ(p->comment, "");
    ASSERT_EQ(p->n_opts, 0);
    const eng_table *o = eng_schema_table(s, "ks", "opts");
    ASSERT_EQ(o->default_ttl_s, 3600);
    ASSERT_EQ(o->gc_grace_s, 0);
    ASSERT_STR_EQ(o->comment, "it's mine");
    ASSERT_EQ(o->n_opts, 2);
    ASSERT_STR_EQ(o->opts[0].name, "bloom_filter_fp_chance");
    ASSERT_STR_EQ(o->opts[0].value, "0.01");
    ASSERT_STR_EQ(o->opts[1].name, "compaction");
    ASSERT(memcmp(p->id, o->id, 16) != 0);
    ASSERT_EQ(o->id[6] >> 4, 1); /* a time UUID */
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_table_dbname_is_d_and_the_hex_of_the_id)
{
    uint8_t id[16];
    for (int i = 0; i < 16; i++)
        id[i] = (uint8_t)(i * 17);
    char name[34];
    eng_table_dbname(id, name);
    ASSERT_STR_EQ(name, "d00112233445566778899aabbccddeeff");
}

TEST(test_create_table_in_missing_keyspace_says_keyspace_does_not_exist)
{
    fx f;
    fx_open(&f);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    ASSERT_EQ(CREATE_TABLE(&f, "nope", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Keyspace 'nope' doesn't exist");
    fx_close(&f);
}

TEST(test_create_existing_table_is_already_exists_with_keyspace_and_table)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_EXISTS);
    ASSERT_STR_EQ(f.err.msg, "Cannot add already existing table \"t\" to keyspace \"ks\"");
    ASSERT_STR_EQ(f.err.ks, "ks");
    ASSERT_STR_EQ(f.err.table, "t");
    fx_close(&f);
}

TEST(test_create_table_if_not_exists_is_a_no_op_giving_the_existing_id)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_schema *s = load(&f);
    uint8_t want[16], got[16];
    memcpy(want, eng_schema_table(s, "ks", "t")->id, 16);
    eng_schema_unref(s);
    eng_column_def cols[] = {{"other", T(ENG_INT), ENG_COL_PARTITION, 0}};
    eng_table_def def = {"ks", "t", 1, cols, 0, NULL};
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_create_table(f.txn, f.meta, f.cur, &def, 1, 1, got,
                                                      &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    ASSERT_MEM_EQ(got, want, 16);
    ASSERT_EQ(version(&f), 2);
    fx_close(&f);
}

TEST(test_unknown_column_referenced_in_primary_key)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"nope", NULL, ENG_COL_CLUSTERING, 0},
        {"v", T(ENG_INT), ENG_COL_REGULAR, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Unknown column 'nope' referenced in PRIMARY KEY for table 't'");
    fx_close(&f);
}

TEST(test_duplicate_column_in_primary_key_clause)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"k", T(ENG_INT), ENG_COL_CLUSTERING, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Duplicate column 'k' in PRIMARY KEY clause for table 't'");
    fx_close(&f);
}

TEST(test_duplicate_column_declaration_comes_before_keyspace_checks)
{
    fx f;
    fx_open(&f);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", T(ENG_INT), ENG_COL_REGULAR, 0},
        {"v", T(ENG_TEXT), ENG_COL_REGULAR, 0},
    };
    /* a parse-time error in Cassandra: reported although the keyspace is missing */
    ASSERT_EQ(CREATE_TABLE(&f, "nope", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Duplicate column 'v' declaration for table 't'");
    fx_close(&f);
}

TEST(test_non_frozen_collection_or_udt_in_primary_key)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"c", LIST(ENG_INT, 0), ENG_COL_CLUSTERING, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg,
                  "Invalid non-frozen collection type list<int> for PRIMARY KEY column 'c'");
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    eng_column_def ucols[] = {{"k", UDT("ks", "ut", 0), ENG_COL_PARTITION, 0}};
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", ucols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg,
                  "Invalid non-frozen user-defined type \"ks.ut\" for PRIMARY KEY column 'k'");
    /* frozen ones are fine */
    eng_column_def ok[] = {
        {"k", UDT("ks", "ut", 1), ENG_COL_PARTITION, 0},
        {"c", LIST(ENG_INT, 1), ENG_COL_CLUSTERING, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t", ok), &f.err);
    fx_close(&f);
}

TEST(test_counter_and_duration_are_not_allowed_in_primary_key)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def ccols[] = {{"k", T(ENG_COUNTER), ENG_COL_PARTITION, 0}};
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", ccols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "counter type is not supported for PRIMARY KEY column 'k'");
    eng_column_def dcols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"d", LIST(ENG_DURATION, 1), ENG_COL_CLUSTERING, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", dcols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "duration type is not supported for PRIMARY KEY column 'd'");
    fx_close(&f);
}

TEST(test_static_column_cannot_be_part_of_primary_key)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_STATIC, 0},
        {"k", NULL, ENG_COL_PARTITION, 0},
        {"c", T(ENG_INT), ENG_COL_CLUSTERING, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    /* the PRIMARY KEY reference borrows nothing: it is an unknown column first */
    ASSERT_STR_EQ(f.err.msg, "Unknown column 'k' referenced in PRIMARY KEY for table 't'");
    cols[1].type = T(ENG_INT);
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Static column 'k' cannot be part of the PRIMARY KEY");
    fx_close(&f);
}

TEST(test_static_columns_need_a_clustering_column)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"s", T(ENG_INT), ENG_COL_STATIC, 0},
    };
    const char *msg = "Static columns are only useful (and thus allowed) if the table has at "
                      "least one clustering column";
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, msg);
    ASSERT_OK_ERR(create_table(&f, "ks", "t", cols, 1, NULL, 0), &f.err);
    ASSERT_FAILS(&f,
                 eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", cols + 1, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, msg);
    fx_close(&f);
}

TEST(test_only_clustering_columns_take_a_clustering_order)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"c", T(ENG_INT), ENG_COL_CLUSTERING, 1},
        {"v", T(ENG_INT), ENG_COL_REGULAR, 1},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg,
                  "Only clustering columns can be defined in CLUSTERING ORDER directive");
    fx_close(&f);
}

TEST(test_counter_tables_take_only_counters)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def mixed[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"n", T(ENG_COUNTER), ENG_COL_REGULAR, 0},
        {"v", T(ENG_INT), ENG_COL_REGULAR, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", mixed), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Cannot mix counter and non counter columns in the same table");
    eng_column_def ok[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"c", T(ENG_INT), ENG_COL_CLUSTERING, 0},
        {"n", T(ENG_COUNTER), ENG_COL_REGULAR, 0},
        {"s", T(ENG_COUNTER), ENG_COL_STATIC, 0}, /* static counters are allowed */
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "c", ok), &f.err);
    eng_schema *s = load(&f);
    ASSERT_EQ(eng_schema_table(s, "ks", "c")->is_counter, 1);
    eng_schema_unref(s);
    /* TableMetadata.validate on ALTER ADD: ConfigurationException with the table as prefix */
    eng_column_def v[] = {{"v", T(ENG_INT), ENG_COL_REGULAR, 0}};
    ASSERT_FAILS(
        &f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "c", v, 1, 0, &f.changed, &f.err),
        ENG_E_CONFIG, "ks.c: Cannot have a non counter column (\"v\") in a counter table");
    eng_column_def plain[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "p", plain), &f.err);
    eng_column_def n[] = {{"n", T(ENG_COUNTER), ENG_COL_REGULAR, 0}};
    ASSERT_FAILS(
        &f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "p", n, 1, 0, &f.changed, &f.err),
        ENG_E_CONFIG, "ks.p: Cannot have a counter column (\"n\") in a non counter table");
    fx_close(&f);
}

TEST(test_counter_tables_cannot_have_a_default_ttl)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"n", T(ENG_COUNTER), ENG_COL_REGULAR, 0},
    };
    const eng_option ttl[] = {{"default_time_to_live", "10"}};
    const char *msg = "Cannot set default_time_to_live on a table with counters";
    ASSERT_EQ(create_table(&f, "ks", "c", cols, 2, ttl, 1), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, msg);
    ASSERT_OK_ERR(create_table(&f, "ks", "c", cols, 2, NULL, 0), &f.err);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_table_options(f.txn, f.meta, f.cur, "ks", "c", ttl, 1, 0,
                                                 &f.changed, &f.err),
                 ENG_E_INVALID, msg);
    const eng_option zero[] = {{"default_time_to_live", "0"}};
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_alter_table_options(f.txn, f.meta, f.cur, "ks", "c", zero,
                                                             1, 0, &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0); /* already 0 */
    fx_close(&f);
}

TEST(test_counters_and_durations_inside_collections_and_tuples)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"l", keep(eng_type_new_set(eng_type_new(ENG_COUNTER), 1)), ENG_COL_REGULAR, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Counters are not allowed inside collections: frozen<set<counter>>");
    cols[1].type = keep(eng_type_new_set(eng_type_new(ENG_DURATION), 0));
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Durations are not allowed inside sets: set<duration>");
    cols[1].type = keep(eng_type_new_map(eng_type_new(ENG_DURATION), eng_type_new(ENG_INT), 0));
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Durations are not allowed as map keys: map<duration, int>");
    eng_type *comps[] = {eng_type_new(ENG_INT), eng_type_new(ENG_COUNTER)};
    cols[1].type = keep(eng_type_new_tuple(comps, 2));
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Counters are not allowed inside tuples");
    fx_close(&f);
}

TEST(test_default_time_to_live_must_be_between_0_and_20_years)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    const eng_option neg[] = {{"default_time_to_live", "-1"}};
    ASSERT_EQ(create_table(&f, "ks", "t", cols, 1, neg, 1), ENG_E_CONFIG);
    ASSERT_STR_EQ(f.err.msg, "default_time_to_live must be greater than or equal to 0 (got -1)");
    const eng_option big[] = {{"default_time_to_live", "630720001"}};
    ASSERT_EQ(create_table(&f, "ks", "t", cols, 1, big, 1), ENG_E_CONFIG);
    ASSERT_STR_EQ(f.err.msg,
                  "default_time_to_live must be less than or equal to 630720000 (got 630720001)");
    const eng_option max[] = {{"default_time_to_live", "630720000"}};
    ASSERT_OK_ERR(create_table(&f, "ks", "t", cols, 1, max, 1), &f.err);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_table_options(f.txn, f.meta, f.cur, "ks", "t", big, 1, 0,
                                                 &f.changed, &f.err),
                 ENG_E_CONFIG,
                 "default_time_to_live must be less than or equal to 630720000 (got 630720001)");
    fx_close(&f);
}

TEST(test_gc_grace_seconds_must_not_be_negative)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    const eng_option neg[] = {{"gc_grace_seconds", "-5"}};
    ASSERT_EQ(create_table(&f, "ks", "t", cols, 1, neg, 1), ENG_E_CONFIG);
    ASSERT_STR_EQ(f.err.msg, "gc_grace_seconds must be greater than or equal to 0 (got -5)");
    fx_close(&f);
}

TEST(test_non_integer_table_option_is_a_syntax_error)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    const eng_option bad[] = {{"default_time_to_live", "'ten'"}};
    ASSERT_EQ(create_table(&f, "ks", "t", cols, 1, bad, 1), ENG_E_SYNTAX);
    ASSERT_STR_EQ(f.err.msg, "Invalid integer value ten for 'default_time_to_live'");
    const eng_option huge[] = {{"gc_grace_seconds", "2147483648"}};
    ASSERT_EQ(create_table(&f, "ks", "t", cols, 1, huge, 1), ENG_E_SYNTAX);
    ASSERT_STR_EQ(f.err.msg, "Invalid integer value 2147483648 for 'gc_grace_seconds'");
    fx_close(&f);
}

TEST(test_table_name_must_be_word_characters_of_at_most_222)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "my-table", cols), ENG_E_CONFIG);
    ASSERT_STR_EQ(f.err.msg, "ks.my-table: Table name must not be empty or not contain "
                             "non-alphanumeric-underscore characters (got \"my-table\")");
    char name[224];
    memset(name, 'x', 223);
    name[223] = 0;
    ASSERT_EQ(CREATE_TABLE(&f, "ks", name, cols), ENG_E_CONFIG);
    char want[600];
    snprintf(want, sizeof want,
             "ks.%s: Table name must not be more than 222 characters long (got 223 characters "
             "for \"%s\")",
             name, name);
    want[sizeof f.err.msg - 1] = 0; /* the message is cut to what eng_err holds */
    ASSERT_STR_EQ(f.err.msg, want);
    name[222] = 0; /* longer than Cassandra 3's 48, accepted since 4.0 */
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", name, cols), &f.err);
    fx_close(&f);
}

TEST(test_drop_table_gives_its_id_and_missing_tables_are_reported)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_schema *s = load(&f);
    uint8_t want[16], got[16];
    memcpy(want, eng_schema_table(s, "ks", "t")->id, 16);
    eng_schema_unref(s);
    ASSERT_CHANGES(
        &f, eng_catalog_drop_table(f.txn, f.meta, f.cur, "ks", "t", 0, got, &f.changed, &f.err));
    ASSERT_MEM_EQ(got, want, 16);
    ASSERT_FAILS(
        &f, eng_catalog_drop_table(f.txn, f.meta, f.cur, "ks", "t", 0, got, &f.changed, &f.err),
        ENG_E_INVALID, "Table 'ks.t' doesn't exist");
    ASSERT_FAILS(
        &f, eng_catalog_drop_table(f.txn, f.meta, f.cur, "nope", "t", 0, got, &f.changed, &f.err),
        ENG_E_INVALID, "Table 'nope.t' doesn't exist");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_drop_table(f.txn, f.meta, f.cur, "ks", "t", 1, got,
                                                    &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    fx_reopen(&f);
    s = load(&f);
    ASSERT(eng_schema_table(s, "ks", "t") == NULL);
    ASSERT(eng_schema_keyspace(s, "ks") != NULL);
    eng_schema_unref(s);
    fx_close(&f);
}

/* ---- ALTER TABLE ---- */

TEST(test_alter_add_of_an_existing_column_name)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_column_def v[] = {{"v", T(ENG_INT), ENG_COL_REGULAR, 0}};
    ASSERT_FAILS(
        &f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", v, 1, 0, &f.changed, &f.err),
        ENG_E_INVALID, "Column with name 'v' already exists");
    eng_column_def twice[] = {
        {"w", T(ENG_INT), ENG_COL_REGULAR, 0},
        {"w", T(ENG_INT), ENG_COL_REGULAR, 0},
    };
    ASSERT_FAILS(
        &f,
        eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", twice, 2, 0, &f.changed, &f.err),
        ENG_E_INVALID, "Column with name 'w' already exists");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", v, 1,
                                                     ENG_IF_COLUMN, &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    ASSERT_EQ(version(&f), 2);
    fx_close(&f);
}

TEST(test_alter_on_a_missing_table_unless_if_exists)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def v[] = {{"v", T(ENG_INT), ENG_COL_REGULAR, 0}};
    ASSERT_FAILS(&f,
                 eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", v, 1, ENG_IF_COLUMN,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "Table 'ks.t' doesn't exist");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", v, 1,
                                                     ENG_IF_TABLE, &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    const char *names[] = {"v"};
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", names, 1,
                                                      ENG_IF_TABLE, 1, &f.changed, &f.err)),
                  &f.err);
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_alter_table_options(f.txn, f.meta, f.cur, "ks", "t", NULL,
                                                             0, 1, &f.changed, &f.err)),
                  &f.err);
    ASSERT_FAILS(
        &f,
        eng_catalog_rename_column(f.txn, f.meta, f.cur, "ks", "t", "a", "b", 0, &f.changed, &f.err),
        ENG_E_INVALID, "Table 'ks.t' doesn't exist");
    fx_close(&f);
}

TEST(test_dropped_column_is_recorded_and_a_re_added_one_gets_a_fresh_id)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_schema *s = load(&f);
    uint32_t old_id = eng_table_column(eng_schema_table(s, "ks", "t"), "v")->id;
    eng_schema_unref(s);
    const char *names[] = {"v"};
    ASSERT_CHANGES(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", names, 1, 0,
                                                1234567, &f.changed, &f.err));
    eng_column_def v[] = {{"v", T(ENG_TEXT), ENG_COL_REGULAR, 0}};
    ASSERT_CHANGES(
        &f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", v, 1, 0, &f.changed, &f.err));
    fx_reopen(&f);
    s = load(&f);
    const eng_table *t = eng_schema_table(s, "ks", "t");
    ASSERT_EQ(t->n_cols, 3);
    const eng_column *c = eng_table_column(t, "v");
    ASSERT(c->id != old_id);
    ASSERT_EQ(c->id, 3);
    ASSERT_EQ(t->next_col_id, 4);
    ASSERT(eng_table_column_by_id(t, old_id) == NULL);
    ASSERT(eng_table_column_by_id(t, c->id) == c);
    ASSERT_EQ(t->n_dropped, 1);
    ASSERT_STR_EQ(t->dropped[0].name, "v");
    ASSERT_EQ(t->dropped[0].dropped_us, 1234567);
    ASSERT_EQ(t->dropped[0].kind, ENG_COL_REGULAR);
    ASSERT_STR_EQ(type_cql(t->dropped[0].type), "text");
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_alter_drop_of_primary_key_or_missing_column)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    const char *pk[] = {"c"};
    ASSERT_FAILS(
        &f,
        eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", pk, 1, 0, 1, &f.changed, &f.err),
        ENG_E_INVALID, "Cannot drop PRIMARY KEY column c");
    const char *missing[] = {"nope"};
    ASSERT_FAILS(&f,
                 eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", missing, 1, 0, 1,
                                          &f.changed, &f.err),
                 ENG_E_INVALID, "Column nope was not found in table 'ks.t'");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", missing, 1,
                                                      ENG_IF_COLUMN, 1, &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    ASSERT_EQ(version(&f), 2);
    fx_close(&f);
}

TEST(test_re_adding_a_dropped_column_must_match_its_type_and_kind)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    const char *names[] = {"v"};
    ASSERT_CHANGES(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", names, 1, 0, 1,
                                                &f.changed, &f.err));
    eng_column_def as_int[] = {{"v", T(ENG_INT), ENG_COL_REGULAR, 0}};
    ASSERT_FAILS(
        &f,
        eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", as_int, 1, 0, &f.changed, &f.err),
        ENG_E_INVALID,
        "Cannot re-add previously dropped column 'v' of type int, incompatible with "
        "previous type text");
    eng_column_def as_static[] = {{"v", T(ENG_TEXT), ENG_COL_STATIC, 0}};
    ASSERT_FAILS(&f,
                 eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", as_static, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID,
                 "Cannot re-add previously dropped column 'v' of kind STATIC, incompatible with "
                 "previous kind REGULAR");
    eng_column_def as_blob[] = {{"v", T(ENG_BLOB), ENG_COL_REGULAR, 0}};
    ASSERT_CHANGES(&f, eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "t", as_blob, 1, 0,
                                               &f.changed, &f.err));
    fx_close(&f);
}

TEST(test_a_dropped_counter_column_cannot_be_re_added)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"n", T(ENG_COUNTER), ENG_COL_REGULAR, 0},
        {"m", T(ENG_COUNTER), ENG_COL_REGULAR, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "c", cols), &f.err);
    const char *names[] = {"n", "m"};
    ASSERT_CHANGES(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "c", names, 2, 0, 1,
                                                &f.changed, &f.err));
    /* a counter table stays one with only its key left */
    eng_schema *s = load(&f);
    ASSERT_EQ(eng_schema_table(s, "ks", "c")->is_counter, 1);
    ASSERT_EQ(eng_schema_table(s, "ks", "c")->n_cols, 1);
    eng_schema_unref(s);
    ASSERT_FAILS(&f,
                 eng_catalog_add_columns(f.txn, f.meta, f.cur, "ks", "c", cols + 1, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "Cannot re-add previously dropped counter column n");
    fx_close(&f);
}

TEST(test_alter_rename_is_only_for_primary_key_columns)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    ASSERT_FAILS(
        &f,
        eng_catalog_rename_column(f.txn, f.meta, f.cur, "ks", "t", "v", "w", 0, &f.changed, &f.err),
        ENG_E_INVALID, "Cannot rename non PRIMARY KEY column v");
    ASSERT_FAILS(
        &f,
        eng_catalog_rename_column(f.txn, f.meta, f.cur, "ks", "t", "c", "v", 0, &f.changed, &f.err),
        ENG_E_INVALID,
        "Cannot rename column c to v in table 'ks.t'; another column with that name "
        "already exists");
    /* IF EXISTS does not forgive a missing column: Cassandra looks it up first */
    ASSERT_FAILS(&f,
                 eng_catalog_rename_column(f.txn, f.meta, f.cur, "ks", "t", "Nope", "x",
                                           ENG_IF_COLUMN, &f.changed, &f.err),
                 ENG_E_INVALID, "Undefined column name \"Nope\" in table ks.t");
    fx_close(&f);
}

TEST(test_alter_rename_keeps_position_and_id_across_reopen)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    ASSERT_CHANGES(&f, eng_catalog_rename_column(f.txn, f.meta, f.cur, "ks", "t", "c", "z", 0,
                                                 &f.changed, &f.err));
    ASSERT_CHANGES(&f, eng_catalog_rename_column(f.txn, f.meta, f.cur, "ks", "t", "k", "a", 0,
                                                 &f.changed, &f.err));
    fx_reopen(&f);
    eng_schema *s = load(&f);
    const eng_table *t = eng_schema_table(s, "ks", "t");
    ASSERT_STR_EQ(t->cols[0].name, "a");
    ASSERT_STR_EQ(t->cols[1].name, "z");
    ASSERT_EQ(t->cols[1].kind, ENG_COL_CLUSTERING);
    ASSERT_EQ(t->cols[0].id, 0);
    ASSERT_EQ(t->cols[1].id, 1);
    ASSERT(eng_table_column(t, "c") == NULL);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_alter_table_options_replace_the_given_and_keep_the_rest)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    const eng_option opts[] = {
        {"compaction", "{'class': 'A'}"}, {"caching", "{'keys': 'ALL'}"}, {"comment", "'first'"}};
    ASSERT_OK_ERR(create_table(&f, "ks", "t", cols, 1, opts, 3), &f.err);
    const eng_option change[] = {{"compaction", "{'class': 'B'}"},
                                 {"gc_grace_seconds", "10"},
                                 {"speculative_retry", "'99p'"}};
    ASSERT_CHANGES(&f, eng_catalog_alter_table_options(f.txn, f.meta, f.cur, "ks", "t", change, 3,
                                                       0, &f.changed, &f.err));
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_alter_table_options(f.txn, f.meta, f.cur, "ks", "t",
                                                             change, 3, 0, &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    fx_reopen(&f);
    eng_schema *s = load(&f);
    const eng_table *t = eng_schema_table(s, "ks", "t");
    ASSERT_EQ(s->version, 3);
    ASSERT_EQ(t->gc_grace_s, 10);
    ASSERT_STR_EQ(t->comment, "first");
    ASSERT_EQ(t->n_opts, 3);
    ASSERT_STR_EQ(t->opts[0].name, "caching");
    ASSERT_STR_EQ(t->opts[1].name, "compaction");
    ASSERT_STR_EQ(t->opts[1].value, "{'class': 'B'}");
    ASSERT_STR_EQ(t->opts[2].name, "speculative_retry");
    eng_schema_unref(s);
    fx_close(&f);
}

/* ---- user types ---- */

TEST(test_udt_column_sees_a_field_added_by_alter_type_after_reload)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"street", "zip"};
    eng_type *types[] = {T(ENG_TEXT), T(ENG_INT)};
    create_type(&f, "ks", "address", fields, types, 2);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"home", UDT("ks", "address", 1), ENG_COL_REGULAR, 0},
        {"work", UDT("", "address", 0), ENG_COL_REGULAR, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t", cols), &f.err);
    ASSERT_CHANGES(&f, eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "address", "city",
                                                  T(ENG_TEXT), 0, &f.changed, &f.err));
    fx_reopen(&f);
    eng_schema *s = load(&f);
    const eng_table *t = eng_schema_table(s, "ks", "t");
    const eng_type *home = eng_table_column(t, "home")->type;
    ASSERT_EQ(home->kind, ENG_UDT);
    ASSERT_EQ(home->frozen, 1);
    ASSERT_EQ(home->n_sub, 3);
    ASSERT_STR_EQ(home->fields[2], "city");
    ASSERT_EQ(home->sub[2]->kind, ENG_TEXT);
    const eng_type *work = eng_table_column(t, "work")->type;
    ASSERT_EQ(work->frozen, 0);
    ASSERT_STR_EQ(work->ks, "ks");
    ASSERT_EQ(work->n_sub, 3);
    const eng_type *def = eng_schema_udt(s, "ks", "address");
    ASSERT(def != NULL);
    ASSERT_STR_EQ(def->fields[0], "street");
    ASSERT_EQ(s->n_types, 1);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_types_load_in_dependency_order)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    /* "z" is stored after "a" but "a" uses "z", and "m" uses "a" */
    const char *zf[] = {"n"};
    eng_type *zt[] = {T(ENG_INT)};
    create_type(&f, "ks", "z", zf, zt, 1);
    const char *af[] = {"inner", "many"};
    eng_type *at[] = {UDT("ks", "z", 1),
                      keep(eng_type_new_list(eng_type_new_udt("ks", "z", NULL, NULL, 0, 1), 0))};
    create_type(&f, "ks", "a", af, at, 2);
    const char *mf[] = {"x"};
    eng_type *mt[] = {UDT("ks", "a", 1)};
    create_type(&f, "ks", "m", mf, mt, 1);
    ASSERT_CHANGES(&f, eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "z", "extra",
                                                  T(ENG_TEXT), 0, &f.changed, &f.err));
    fx_reopen(&f);
    eng_schema *s = load(&f);
    ASSERT_EQ(s->n_types, 3);
    ASSERT_STR_EQ(s->types[0]->name, "a");
    ASSERT_STR_EQ(s->types[1]->name, "m");
    const eng_type *m = eng_schema_udt(s, "ks", "m");
    /* m.x is an a, whose inner is a z with the field added after both were created */
    ASSERT_EQ(m->sub[0]->sub[0]->n_sub, 2);
    ASSERT_STR_EQ(m->sub[0]->sub[0]->fields[1], "extra");
    ASSERT_STR_EQ(type_cql(eng_schema_udt(s, "ks", "a")->sub[1]), "list<frozen<z>>");
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_type_referencing_an_unknown_type)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    ASSERT_OK_ERR(create_ks(&f, "other"), &f.err);
    const char *fields[] = {"a"};
    const eng_type *types[] = {UDT("ks", "nope", 1)};
    ASSERT_FAILS(&f,
                 eng_catalog_create_type(f.txn, f.meta, f.cur, "ks", "t", fields, types, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "Unknown type ks.nope");
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", UDT("", "nope", 1), ENG_COL_REGULAR, 0},
    };
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Unknown type ks.nope");
    const eng_type *own[] = {T(ENG_INT)};
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_create_type(f.txn, f.meta, f.cur, "other", "o", fields,
                                                     own, 1, 0, &f.changed, &f.err)),
                  &f.err);
    cols[1].type = UDT("other", "o", 1);
    ASSERT_EQ(CREATE_TABLE(&f, "ks", "t", cols), ENG_E_INVALID);
    ASSERT_STR_EQ(f.err.msg, "Statement on keyspace ks cannot refer to a user type in keyspace "
                             "other; user types can only be used in the keyspace they are "
                             "defined in");
    fx_close(&f);
}

TEST(test_create_type_rules)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a", "a"};
    const eng_type *types[] = {T(ENG_INT), T(ENG_TEXT)};
    ASSERT_FAILS(&f,
                 eng_catalog_create_type(f.txn, f.meta, f.cur, "nope", "t", fields, types, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "Keyspace 'nope' doesn't exist");
    ASSERT_FAILS(&f,
                 eng_catalog_create_type(f.txn, f.meta, f.cur, "ks", "t", fields, types, 2, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "Duplicate field name 'a' in type 't'");
    const eng_type *counter[] = {T(ENG_COUNTER)};
    ASSERT_FAILS(&f,
                 eng_catalog_create_type(f.txn, f.meta, f.cur, "ks", "t", fields, counter, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "A user type cannot contain counters");
    ASSERT_CHANGES(&f, eng_catalog_create_type(f.txn, f.meta, f.cur, "ks", "t", fields, types, 1, 0,
                                               &f.changed, &f.err));
    const eng_type *nonfrozen[] = {UDT("ks", "t", 0)};
    ASSERT_FAILS(&f,
                 eng_catalog_create_type(f.txn, f.meta, f.cur, "ks", "u", fields, nonfrozen, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "A user type cannot contain non-frozen UDTs");
    ASSERT_FAILS(&f,
                 eng_catalog_create_type(f.txn, f.meta, f.cur, "ks", "t", fields, types, 1, 0,
                                         &f.changed, &f.err),
                 ENG_E_INVALID, "A user type with name 't' already exists");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_create_type(f.txn, f.meta, f.cur, "ks", "t", fields, types,
                                                     1, 1, &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    fx_close(&f);
}

TEST(test_drop_type_still_used_by_a_table_or_another_type)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "base", fields, types, 1);
    eng_type *uses[] = {
        keep(eng_type_new_set(eng_type_new_udt("ks", "base", NULL, NULL, 0, 1), 1))};
    create_type(&f, "ks", "outer", fields, uses, 1);
    ASSERT_FAILS(&f,
                 eng_catalog_drop_type(f.txn, f.meta, f.cur, "ks", "base", 0, &f.changed, &f.err),
                 ENG_E_INVALID,
                 "Cannot drop user type 'ks.base' as it is still used by user "
                 "types outer");
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", UDT("ks", "outer", 1), ENG_COL_REGULAR, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t2", cols), &f.err);
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t1", cols), &f.err);
    ASSERT_FAILS(&f,
                 eng_catalog_drop_type(f.txn, f.meta, f.cur, "ks", "outer", 0, &f.changed, &f.err),
                 ENG_E_INVALID,
                 "Cannot drop user type 'ks.outer' as it is still used by tables "
                 "t1, t2");
    fx_close(&f);
}

TEST(test_drop_type_removes_it_and_missing_types_are_reported)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    ASSERT_CHANGES(&f,
                   eng_catalog_drop_type(f.txn, f.meta, f.cur, "ks", "ut", 0, &f.changed, &f.err));
    ASSERT_FAILS(&f, eng_catalog_drop_type(f.txn, f.meta, f.cur, "ks", "ut", 0, &f.changed, &f.err),
                 ENG_E_INVALID, "Type 'ks.ut' doesn't exist");
    ASSERT_OK_ERR(
        CHANGE(&f, eng_catalog_drop_type(f.txn, f.meta, f.cur, "ks", "ut", 1, &f.changed, &f.err)),
        &f.err);
    ASSERT_EQ(f.changed, 0);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "ut", "b", T(ENG_INT), 0,
                                            &f.changed, &f.err),
                 ENG_E_INVALID, "Type ks.ut doesn't exist");
    ASSERT_OK_ERR(
        CHANGE(&f, eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "ut", "b", T(ENG_INT),
                                              ENG_IF_TABLE, &f.changed, &f.err)),
        &f.err);
    fx_reopen(&f);
    eng_schema *s = load(&f);
    ASSERT_EQ(s->n_types, 0);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_a_dropped_udt_column_keeps_a_tuple_so_the_type_can_go)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a", "b"};
    eng_type *types[] = {T(ENG_INT), T(ENG_TEXT)};
    create_type(&f, "ks", "ut", fields, types, 2);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", UDT("ks", "ut", 1), ENG_COL_REGULAR, 0},
        {"w", UDT("ks", "ut", 0), ENG_COL_REGULAR, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t", cols), &f.err);
    /* a non-frozen UDT has no tuple form to be kept as */
    const char *w[] = {"w"};
    ASSERT_FAILS(
        &f,
        eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", w, 1, 0, 1, &f.changed, &f.err),
        ENG_E_INVALID, "Cannot drop non-frozen column w of user type ut");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_drop_table(f.txn, f.meta, f.cur, "ks", "t", 0, NULL,
                                                    &f.changed, &f.err)),
                  &f.err);
    ASSERT_OK_ERR(create_table(&f, "ks", "t", cols, 2, NULL, 0), &f.err);
    const char *v[] = {"v"};
    ASSERT_CHANGES(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", v, 1, 0, 1,
                                                &f.changed, &f.err));
    ASSERT_CHANGES(&f,
                   eng_catalog_drop_type(f.txn, f.meta, f.cur, "ks", "ut", 0, &f.changed, &f.err));
    fx_reopen(&f);
    eng_schema *s = load(&f);
    ASSERT(eng_schema_udt(s, "ks", "ut") == NULL);
    ASSERT_STR_EQ(type_cql(eng_schema_table(s, "ks", "t")->dropped[0].type),
                  "frozen<tuple<int, text>>");
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_alter_type_add_of_an_existing_field)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "ut", "a", T(ENG_TEXT), 0,
                                            &f.changed, &f.err),
                 ENG_E_INVALID,
                 "Cannot add field a to type ks.ut: a field with name a already exists");
    ASSERT_OK_ERR(
        CHANGE(&f, eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "ut", "a", T(ENG_TEXT),
                                              ENG_IF_COLUMN, &f.changed, &f.err)),
        &f.err);
    ASSERT_EQ(f.changed, 0);
    fx_close(&f);
}

TEST(test_alter_type_add_refuses_circular_references_and_partition_key_types)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "ut", "self",
                                            UDT("ks", "ut", 1), 0, &f.changed, &f.err),
                 ENG_E_INVALID,
                 "Cannot add new field self of type frozen<ks.ut> to user type ks.ut as it would "
                 "create a circular reference");
    eng_column_def cols[] = {{"k", UDT("ks", "ut", 1), ENG_COL_PARTITION, 0}};
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t", cols), &f.err);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_type_add(f.txn, f.meta, f.cur, "ks", "ut", "b", T(ENG_INT), 0,
                                            &f.changed, &f.err),
                 ENG_E_INVALID,
                 "Cannot add new field b of type int to user type ks.ut as the type is being "
                 "used in partition key by the following tables: ks.t");
    fx_close(&f);
}

TEST(test_alter_type_rename_to_an_existing_field_or_of_an_unknown_one)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a", "b"};
    eng_type *types[] = {T(ENG_INT), T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 2);
    ASSERT_FAILS(&f,
                 eng_catalog_alter_type_rename(f.txn, f.meta, f.cur, "ks", "ut", "a", "b", 0,
                                               &f.changed, &f.err),
                 ENG_E_INVALID, "Duplicate field name b in type ks");
    ASSERT_FAILS(&f,
                 eng_catalog_alter_type_rename(f.txn, f.meta, f.cur, "ks", "ut", "x", "y", 0,
                                               &f.changed, &f.err),
                 ENG_E_INVALID, "Unkown field x in user type ks.ut");
    ASSERT_OK_ERR(CHANGE(&f, eng_catalog_alter_type_rename(f.txn, f.meta, f.cur, "ks", "ut", "x",
                                                           "y", ENG_IF_COLUMN, &f.changed, &f.err)),
                  &f.err);
    ASSERT_EQ(f.changed, 0);
    fx_close(&f);
}

TEST(test_alter_type_rename_reaches_columns_after_reload)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a", "b"};
    eng_type *types[] = {T(ENG_INT), T(ENG_TEXT)};
    create_type(&f, "ks", "ut", fields, types, 2);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", UDT("ks", "ut", 1), ENG_COL_REGULAR, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t", cols), &f.err);
    ASSERT_CHANGES(&f, eng_catalog_alter_type_rename(f.txn, f.meta, f.cur, "ks", "ut", "b", "bee",
                                                     0, &f.changed, &f.err));
    fx_reopen(&f);
    eng_schema *s = load(&f);
    const eng_type *v = eng_table_column(eng_schema_table(s, "ks", "t"), "v")->type;
    ASSERT_STR_EQ(v->fields[1], "bee");
    ASSERT_EQ(v->sub[1]->kind, ENG_TEXT);
    eng_schema_unref(s);
    fx_close(&f);
}

/* ---- stored bytes are input too ---- */

static void put_raw(fx *f, const void *key, size_t klen, const void *val, size_t vlen)
{
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(f->env, NULL, 0, &txn), 0);
    MDB_val k = {klen, (void *)key}, v = {vlen, (void *)val};
    ASSERT_EQ(mdb_put(txn, f->meta, &k, &v, 0), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
}

static MDB_val get_raw(fx *f, MDB_txn **txn, const void *key, size_t klen)
{
    ASSERT_EQ(mdb_txn_begin(f->env, NULL, MDB_RDONLY, txn), 0);
    MDB_val k = {klen, (void *)key}, v;
    ASSERT_EQ(mdb_get(*txn, f->meta, &k, &v), 0);
    return v;
}

static int load_rc(fx *f, eng_err *err)
{
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(f->env, NULL, MDB_RDONLY, &txn), 0);
    eng_schema *s = (eng_schema *)1;
    eng_err_clear(err);
    int rc = eng_schema_load(txn, f->meta, &s, err);
    mdb_txn_abort(txn);
    if (rc)
        ASSERT(s == NULL);
    eng_schema_unref(s);
    return rc;
}

TEST(test_every_truncation_of_a_table_record_is_corrupt_not_a_crash)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    MDB_txn *txn;
    static const char key[] = "T\0ks\0t";
    MDB_val v = get_raw(&f, &txn, key, sizeof key - 1);
    size_t n = v.mv_size;
    uint8_t *orig = malloc(n);
    memcpy(orig, v.mv_data, n);
    mdb_txn_abort(txn);
    eng_err err;
    for (size_t len = 0; len < n; len++) {
        put_raw(&f, key, sizeof key - 1, orig, len);
        ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
        ASSERT_STR_EQ(err.msg, "corrupt catalog record for table ks.t");
    }
    /* trailing bytes, a flipped format byte, an impossible kind */
    uint8_t *longer = malloc(n + 1);
    memcpy(longer, orig, n);
    longer[n] = 0;
    put_raw(&f, key, sizeof key - 1, longer, n + 1);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    longer[0] = 9;
    put_raw(&f, key, sizeof key - 1, longer, n);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    put_raw(&f, key, sizeof key - 1, orig, n);
    ASSERT_EQ(load_rc(&f, &err), 0);
    free(orig);
    free(longer);
    fx_close(&f);
}

TEST(test_random_bytes_in_any_record_are_corrupt_not_a_crash)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    uint64_t rs = test_seed();
    static const char *keys[] = {"K\0ks", "T\0ks\0t", "Y\0ks\0ut"};
    static const size_t klen[] = {4, 6, 7};
    eng_err err;
    for (int round = 0; round < 300; round++) {
        int which = (int)(test_rand(&rs) % 3);
        MDB_txn *txn;
        MDB_val v = get_raw(&f, &txn, keys[which], klen[which]);
        size_t n = v.mv_size;
        uint8_t buf[512];
        ASSERT(n <= sizeof buf);
        memcpy(buf, v.mv_data, n);
        mdb_txn_abort(txn);
        size_t at = 1 + test_rand(&rs) % (n - 1);
        uint8_t old = buf[at];
        buf[at] = (uint8_t)test_rand(&rs);
        put_raw(&f, keys[which], klen[which], buf, n);
        int rc = load_rc(&f, &err);
        ASSERT(rc == 0 || rc == ENG_E_CORRUPT);
        buf[at] = old;
        put_raw(&f, keys[which], klen[which], buf, n);
    }
    ASSERT_EQ(load_rc(&f, &err), 0);
    fx_close(&f);
}

TEST(test_corrupt_version_keys_and_dangling_references_are_corrupt)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_err err;
    put_raw(&f, "v", 1, "abc", 3);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "database file is corrupted (catalog entry v)");
    /* a checksummed version whose checksum does not hold */
    uint8_t v12[12] = {0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 3, 4};
    put_raw(&f, "v", 1, v12, 12);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    /* the 8-byte form of earlier versions is still read */
    uint8_t v8[8] = {0, 0, 0, 0, 0, 0, 0, 2};
    put_raw(&f, "v", 1, v8, 8);
    ASSERT_EQ(load_rc(&f, &err), 0);
    /* a table key without its table name, and a table of a keyspace that is not there */
    put_raw(&f, "T\0ks", 4, "x", 1);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(f.env, NULL, 0, &txn), 0);
    MDB_val k = {4, "T\0ks"};
    ASSERT_EQ(mdb_del(txn, f.meta, &k, NULL), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
    MDB_val tv = get_raw(&f, &txn, "T\0ks\0t", 6);
    uint8_t copy[512];
    size_t n = tv.mv_size;
    memcpy(copy, tv.mv_data, n);
    mdb_txn_abort(txn);
    put_raw(&f, "T\0gone\0t", 8, copy, n);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "corrupt catalog record for table gone.t");
    fx_close(&f);
}

/* A record verifies only under its own key: intact bytes under another key are damage, and
   so is a key of no known shape (it was skipped, and its table silently gone). */
TEST(test_catalog_records_are_bound_to_their_keys)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_err err;
    MDB_txn *txn;
    MDB_val tv = get_raw(&f, &txn, "T\0ks\0t", 6);
    uint8_t copy[512];
    size_t n = tv.mv_size;
    ASSERT(n <= sizeof copy);
    memcpy(copy, tv.mv_data, n);
    mdb_txn_abort(txn);
    put_raw(&f, "T\0ks\0u", 6, copy, n);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "corrupt catalog record for table ks.u");
    ASSERT_EQ(mdb_txn_begin(f.env, NULL, 0, &txn), 0);
    MDB_val k = {6, "T\0ks\0u"};
    ASSERT_EQ(mdb_del(txn, f.meta, &k, NULL), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
    ASSERT_EQ(load_rc(&f, &err), 0);
    put_raw(&f, "X\0ks\0t", 6, copy, n);
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "database file is corrupted (an unknown key in the catalog)");
    fx_close(&f);
}

TEST(test_a_column_of_a_type_with_no_record_is_corrupt)
{
    fx f;
    fx_open(&f);
    ASSERT_OK_ERR(create_ks(&f, "ks"), &f.err);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", UDT("ks", "ut", 1), ENG_COL_REGULAR, 0},
    };
    ASSERT_OK_ERR(CREATE_TABLE(&f, "ks", "t", cols), &f.err);
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(f.env, NULL, 0, &txn), 0);
    MDB_val k = {7, "Y\0ks\0ut"};
    ASSERT_EQ(mdb_del(txn, f.meta, &k, NULL), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
    eng_err err;
    ASSERT_EQ(load_rc(&f, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "corrupt catalog record for table ks.t");
    fx_close(&f);
}

/* ---- snapshots ---- */

TEST(test_a_snapshot_lives_until_its_last_reference)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    eng_schema *s = load(&f);
    ASSERT(eng_schema_ref(s) == s);
    ASSERT(eng_schema_ref(NULL) == NULL);
    eng_schema_unref(NULL);
    const eng_table *t = eng_schema_table(s, "ks", "t");
    eng_schema_unref(s);
    /* a schema change and a reload do not touch the snapshot still referenced */
    const char *names[] = {"v"};
    ASSERT_CHANGES(&f, eng_catalog_drop_columns(f.txn, f.meta, f.cur, "ks", "t", names, 1, 0, 1,
                                                &f.changed, &f.err));
    eng_schema *fresh = load(&f);
    ASSERT_EQ(eng_schema_table(fresh, "ks", "t")->n_cols, 2);
    ASSERT_EQ(t->n_cols, 3);
    ASSERT_STR_EQ(t->cols[2].name, "v");
    eng_schema_unref(fresh);
    eng_schema_unref(s);
    fx_close(&f);
}

TEST(test_load_and_create_table_fail_cleanly_at_every_allocation)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    eng_err err;
    int done = 0;
    for (long n = 0; !done && n < 10000; n++) {
        eng_alloc_fail_after(n);
        int rc = load_rc(&f, &err);
        eng_alloc_fail_after(-1);
        ASSERT(rc == 0 || rc == ENG_E_NOMEM);
        done = rc == 0;
    }
    ASSERT(done);
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"c", T(ENG_INT), ENG_COL_CLUSTERING, 1},
        {"u", UDT("ks", "ut", 1), ENG_COL_REGULAR, 0},
        {"l", LIST(ENG_TEXT, 0), ENG_COL_STATIC, 0},
    };
    const eng_option opts[] = {{"comment", "'x'"}, {"compaction", "{}"}};
    eng_table_def def = {"ks", "t2", 4, cols, 2, opts};
    done = 0;
    for (long n = 0; !done && n < 10000; n++) {
        begin(&f);
        uint8_t id[16];
        eng_alloc_fail_after(n);
        int rc = eng_catalog_create_table(f.txn, f.meta, f.cur, &def, 0, 1, id, &f.changed, &f.err);
        eng_alloc_fail_after(-1);
        ASSERT(rc == 0 || rc == ENG_E_NOMEM);
        done = rc == 0;
        end(&f, rc);
    }
    ASSERT(done);
    eng_schema *s = load(&f);
    ASSERT(eng_schema_table(s, "ks", "t2") != NULL);
    eng_schema_unref(s);
    fx_close(&f);
}

/* Runs `fn` in a fresh transaction with the Nth allocation failing, N = 0, 1, ... until it
 * succeeds: every failure must be a clean ENG_E_NOMEM. */
static void walk_allocations(fx *f, int (*fn)(fx *f))
{
    for (long n = 0; n < 10000; n++) {
        begin(f);
        eng_alloc_fail_after(n);
        int rc = fn(f);
        eng_alloc_fail_after(-1);
        if (rc != 0 && rc != ENG_E_NOMEM)
            test_fail(__FILE__, __LINE__, "allocation %ld: 0x%x %s", n, rc, f->err.msg);
        end(f, rc);
        if (rc == 0)
            return;
    }
    test_fail(__FILE__, __LINE__, "never succeeded");
}

/* made before the walks: the test's own allocations must not meet the injected failure */
static eng_column_def walk_cols[2];
static eng_type *walk_list;

static int add_two(fx *f)
{
    return eng_catalog_add_columns(f->txn, f->meta, f->cur, "ks", "t", walk_cols, 2, 0, &f->changed,
                                   &f->err);
}

static int drop_two(fx *f)
{
    const char *names[] = {"w", "v"};
    return eng_catalog_drop_columns(f->txn, f->meta, f->cur, "ks", "t", names, 2, 0, 7, &f->changed,
                                    &f->err);
}

static int type_add(fx *f)
{
    return eng_catalog_alter_type_add(f->txn, f->meta, f->cur, "ks", "ut", "b", walk_list, 0,
                                      &f->changed, &f->err);
}

static int type_rename(fx *f)
{
    return eng_catalog_alter_type_rename(f->txn, f->meta, f->cur, "ks", "ut", "b", "c", 0,
                                         &f->changed, &f->err);
}

static int set_options(fx *f)
{
    const eng_option opts[] = {{"comment", "'c'"}, {"caching", "{}"}, {"gc_grace_seconds", "1"}};
    return eng_catalog_alter_table_options(f->txn, f->meta, f->cur, "ks", "t", opts, 3, 0,
                                           &f->changed, &f->err);
}

static int alter_ks(fx *f)
{
    const eng_option nts[] = {{"class", "NetworkTopologyStrategy"}, {"dc1", "2"}};
    return eng_catalog_alter_keyspace(f->txn, f->meta, f->cur, "ks", nts, 2, 0, 0, &f->changed,
                                      &f->err);
}

static int drop_ks(fx *f)
{
    eng_buf ids = ENG_BUF_INIT;
    int rc =
        eng_catalog_drop_keyspace(f->txn, f->meta, f->cur, "ks", 0, &f->changed, &ids, &f->err);
    eng_buf_free(&ids);
    return rc;
}

TEST(test_schema_changes_fail_cleanly_at_every_allocation)
{
    fx f;
    fx_open(&f);
    std_table(&f);
    const char *fields[] = {"a"};
    eng_type *types[] = {T(ENG_INT)};
    create_type(&f, "ks", "ut", fields, types, 1);
    walk_cols[0] = (eng_column_def){"w", UDT("ks", "ut", 1), ENG_COL_REGULAR, 0};
    walk_cols[1] = (eng_column_def){"s", T(ENG_INT), ENG_COL_STATIC, 0};
    walk_list = LIST(ENG_TEXT, 1);
    int (*steps[])(fx *) = {add_two,     type_add, type_rename, drop_two,
                            set_options, alter_ks, drop_ks};
    for (size_t i = 0; i < ENG_ARRAY_LEN(steps); i++)
        walk_allocations(&f, steps[i]);
    eng_schema *s = load(&f);
    ASSERT_EQ(s->version, 2 + 1 + ENG_ARRAY_LEN(steps));
    ASSERT_EQ(s->n_keyspaces, 0);
    eng_schema_unref(s);
    fx_close(&f);
}
