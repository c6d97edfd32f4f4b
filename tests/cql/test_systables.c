/*
 * The system tables served from the catalog (cql/exec/systables.c): their
 * descriptors (Cassandra 4.1's definitions in SchemaKeyspace and
 * SystemKeyspace, ids of TableId.forSystemTable), and the rows a scan hands
 * out for a real database, row by row, in token order of the partitions and
 * clustering order of the rows. Expected values come from Cassandra's
 * sources (SchemaKeyspace.addTableParamsToRowBuilder and
 * addColumnToSchemaMutation; the defaults and normalizations of TableParams,
 * CachingParams, CompactionParams, CompressionParams, SpeculativeRetryPolicy,
 * ReplicationParams; SystemKeyspace.persistLocalMetadata) and from what a
 * fresh 4.1 node lists; tests/cql/system_schema.out shows the same values as
 * cqlsh prints them against Cassandra. Values are compared as cqlsh renders
 * them (tests/render_cqlsh.c), doubles and timestamps by their numbers.
 */
#include "cql/exec/systables.h"
#include "harness.h"
#include "render_cqlsh.h"
#include "engine/value/token.h"

/* ---- rows collected from a scan ---- */

#define MAX_ROWS 512
#define MAX_COLS 40

typedef struct got_row {
    char *val[MAX_COLS];   /* as cqlsh renders it; "null" for no value */
    uint8_t *raw[MAX_COLS];/* the native bytes (copies) */
    int32_t len[MAX_COLS]; /* ENG_NULL for no value */
    int64_t wt[MAX_COLS];  /* writetime */
    int64_t token;         /* of the row's composed partition key */
} got_row;

typedef struct got {
    const eng_table *t;
    int n;
    got_row rows[MAX_ROWS];
    int stop_after; /* the callback returns 1 once it has this many rows (0: never) */
    int fail_code;  /* the callback returns -fail_code at the first row (0: never) */
} got;

static int collect(void *ctx, const eng_row_view *v)
{
    got *g = ctx;
    if (g->fail_code)
        return -g->fail_code;
    ASSERT(g->n < MAX_ROWS);
    ASSERT(v->table == g->t);
    ASSERT(v->row != NULL && v->static_row == NULL); /* clustering rows, no statics */
    ASSERT(g->t->n_cols <= MAX_COLS);
    got_row *r = &g->rows[g->n++];
    eng_buf key = ENG_BUF_INIT;
    eng_partition_key_compose(&key, v->pk, g->t->n_pk);
    r->token = eng_token(key.p, key.len);
    eng_buf_free(&key);
    for (uint16_t i = 0; i < g->t->n_cols; i++) {
        eng_val val;
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_view_column(v, i, &val, &r->wt[i], NULL, &err), &err);
        eng_buf b = ENG_BUF_INIT;
        if (val.len < 0)
            eng_buf_put_str(&b, "null");
        else
            test_render_cqlsh(g->t->cols[i].type, val.p, (size_t)val.len, 0, &b);
        ASSERT(eng_buf_cstr(&b));
        r->val[i] = (char *)b.p;
        r->len[i] = val.len;
        r->raw[i] = malloc(val.len > 0 ? (size_t)val.len : 1);
        ASSERT(r->raw[i]);
        if (val.len > 0)
            memcpy(r->raw[i], val.p, (size_t)val.len);
    }
    return g->stop_after && g->n >= g->stop_after ? 1 : 0;
}

/*
 * Every row of system table t described from snapshot s, read the way SELECT reads them: through
 * eng_read on the virtual table. db NULL: the provider sees no database (system.local without a
 * directory) and a scratch in-memory database does the reading.
 */
static int systable_scan(const eng_table *t, const eng_schema *s, eng_db *db, eng_row_cb cb,
                         void *ctx, eng_err *err)
{
    cql_systable_ctx sys = {s, db, NULL};
    if (!t)
        return cql_systable_fill(&sys, NULL, NULL, err);
    eng_db *reader = db;
    if (!reader) {
        int rc = eng_db_open_temp(NULL, &reader, err);
        if (rc)
            return rc;
    }
    eng_query q;
    memset(&q, 0, sizeof q);
    q.table = t;
    q.token_lo = ENG_TOKEN_MIN;
    q.token_hi = ENG_TOKEN_MAX;
    q.token_lo_incl = q.token_hi_incl = 1;
    q.vtable = cql_systable_fill;
    q.vtable_ctx = &sys;
    int rc = eng_read(reader, &q, cb, ctx, NULL, err);
    if (reader != db)
        eng_db_close(reader);
    return rc;
}

static void got_free(got *g)
{
    for (int k = 0; k < g->n; k++) {
        for (uint16_t i = 0; i < g->t->n_cols; i++) {
            free(g->rows[k].val[i]);
            free(g->rows[k].raw[i]);
        }
    }
    free(g);
}

static got *got_new(const char *ks, const char *name)
{
    got *g = calloc(1, sizeof *g);
    ASSERT(g);
    g->t = cql_systable(ks, name);
    ASSERT(g->t);
    return g;
}

/* Scans ks.name over the database's current schema. */
static got *scan(eng_db *db, const char *ks, const char *name)
{
    got *g = got_new(ks, name);
    eng_err err;
    eng_err_clear(&err);
    eng_schema *s;
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    int rc = systable_scan(g->t, s, db, collect, g, &err);
    eng_schema_unref(s);
    ASSERT_OK_ERR(rc, &err);
    return g;
}

static int col(const got *g, const char *name)
{
    int i = eng_table_column_index(g->t, name);
    if (i < 0)
        test_fail(__FILE__, __LINE__, "no column %s in %s.%s", name, g->t->ks, g->t->name);
    return i;
}

static const char *cell(const got *g, int row, const char *name)
{
    ASSERT(row >= 0 && row < g->n);
    return g->rows[row].val[col(g, name)];
}

static double dbl(const got *g, int row, const char *name)
{
    int i = col(g, name);
    ASSERT_EQ(g->rows[row].len[i], 8);
    uint64_t u = eng_be64(g->rows[row].raw[i]);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* The first row whose column a has value va (and b has vb, when b is not NULL); -1 if none. */
static int find(const got *g, const char *a, const char *va, const char *b, const char *vb)
{
    for (int r = 0; r < g->n; r++)
        if (!strcmp(cell(g, r, a), va) && (!b || !strcmp(cell(g, r, b), vb)))
            return r;
    return -1;
}

static int count(const got *g, const char *a, const char *va)
{
    int n = 0;
    for (int r = 0; r < g->n; r++)
        n += !strcmp(cell(g, r, a), va);
    return n;
}

/* Partitions come in token order, each one contiguous (no key seen again after it ended). */
static void check_partition_order(const got *g, const char *pk)
{
    for (int r = 1; r < g->n; r++) {
        ASSERT(g->rows[r - 1].token <= g->rows[r].token);
        if (strcmp(cell(g, r - 1, pk), cell(g, r, pk)) != 0)
            for (int k = 0; k < r; k++)
                ASSERT(strcmp(cell(g, k, pk), cell(g, r, pk)) != 0);
    }
}

/* Rows of one partition in clustering order: text columns compare by UTF-8 bytes. */
static void check_clustering_order(const got *g, const char *pk, const char *c1, const char *c2)
{
    for (int r = 1; r < g->n; r++) {
        if (strcmp(cell(g, r - 1, pk), cell(g, r, pk)) != 0)
            continue;
        int c = strcmp(cell(g, r - 1, c1), cell(g, r, c1));
        if (c == 0 && c2)
            c = strcmp(cell(g, r - 1, c2), cell(g, r, c2));
        ASSERT(c < 0);
    }
}

/* ---- fixture: keyspace ks with a user type and three tables ---- */

static const eng_option REPL[] = {{"class", "SimpleStrategy"}, {"replication_factor", "1"}};

static eng_db *open_db(void)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db *db;
    eng_db_options o = {ENG_DURABLE_NONE, 0, 0, 0, 0};
    ASSERT_OK_ERR(eng_db_open_temp(&o, &db, &err), &err);
    return db;
}

static void create_table(eng_db *db, const char *name, eng_column_def *cols, uint32_t n,
                         const eng_option *opts, uint32_t n_opts)
{
    eng_err err;
    eng_err_clear(&err);
    eng_table_def def = {"ks", name, n, cols, n_opts, opts};
    int rc = eng_create_table(db, &def, 0, NULL, &err);
    for (uint32_t i = 0; i < n; i++) /* the catalog keeps copies */
        eng_type_free((eng_type *)cols[i].type);
    ASSERT_OK_ERR(rc, &err);
}

static eng_type *T(int kind) { return eng_type_new(kind); }

/*
 * CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
 * CREATE TYPE ks.address (street text, zip int, phones frozen<list<text>>);
 * CREATE TABLE ks.events (day text, kind int, ts timeuuid, seq int, note text STATIC,
 *     body text, tags set<text>, home frozen<address>,
 *     PRIMARY KEY ((day, kind), ts, seq)) WITH CLUSTERING ORDER BY (ts DESC, seq ASC);
 * CREATE TABLE ks.counts (k text PRIMARY KEY, n counter);
 * CREATE TABLE ks.opts (k int PRIMARY KEY, v text) WITH <the options below>;
 */
static eng_db *fixture(void)
{
    eng_db *db = open_db();
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
    const char *fields[] = {"street", "zip", "phones"};
    eng_type *ftypes[] = {T(ENG_TEXT), T(ENG_INT), eng_type_new_list(T(ENG_TEXT), 1)};
    int rc = eng_create_type(db, "ks", "address", fields, (const eng_type *const *)ftypes, 3, 0,
                             NULL, &err);
    for (int i = 0; i < 3; i++)
        eng_type_free(ftypes[i]);
    ASSERT_OK_ERR(rc, &err);

    eng_column_def events[] = {
        {"day", T(ENG_TEXT), ENG_COL_PARTITION, 0},
        {"kind", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"ts", T(ENG_TIMEUUID), ENG_COL_CLUSTERING, 1},
        {"seq", T(ENG_INT), ENG_COL_CLUSTERING, 0},
        {"note", T(ENG_TEXT), ENG_COL_STATIC, 0},
        {"body", T(ENG_TEXT), ENG_COL_REGULAR, 0},
        {"tags", eng_type_new_set(T(ENG_TEXT), 0), ENG_COL_REGULAR, 0},
        {"home", eng_type_new_udt("ks", "address", NULL, NULL, 0, 1), ENG_COL_REGULAR, 0},
    };
    create_table(db, "events", events, 8, NULL, 0);

    eng_column_def counts[] = {
        {"k", T(ENG_TEXT), ENG_COL_PARTITION, 0},
        {"n", T(ENG_COUNTER), ENG_COL_REGULAR, 0},
    };
    create_table(db, "counts", counts, 2, NULL, 0);

    /* Option values as the CQL layer passes them: top-level strings unquoted, maps as literals. */
    static const eng_option opts[] = {
        {"compaction", "{'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 160}"},
        {"caching", "{'keys': 'none', 'rows_per_partition': 10}"},
        {"compression", "{'class': 'DeflateCompressor', 'chunk_length_in_kb': 64}"},
        {"comment", "it's mine"},
        {"default_time_to_live", "3600"},
        {"gc_grace_seconds", "7200"},
        {"speculative_retry", "99.5PERCENTILE"},
        {"additional_write_policy", "max(50MS, 99p)"},
        {"read_repair", "none"},
        {"crc_check_chance", "0.5"},
        {"memtable_flush_period_in_ms", "60000"},
        {"min_index_interval", "64"},
    };
    eng_column_def kv[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", T(ENG_TEXT), ENG_COL_REGULAR, 0},
    };
    create_table(db, "opts", kv, 2, opts, ENG_ARRAY_LEN(opts));
    return db;
}

static void uuid_text(const uint8_t u[16], char out[37]) { eng_uuid_format(u, out); }

/* ---- descriptors ---- */

TEST(descriptors_serve_every_table)
{
    static const char *const names[][2] = {
        {"system_schema", "keyspaces"}, {"system_schema", "tables"},
        {"system_schema", "columns"},   {"system_schema", "dropped_columns"},
        {"system_schema", "types"},     {"system_schema", "triggers"},
        {"system_schema", "views"},     {"system_schema", "indexes"},
        {"system_schema", "functions"}, {"system_schema", "aggregates"},
        {"system", "local"},            {"system", "peers"},
        {"system", "peers_v2"},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(names); i++) {
        const eng_table *t = cql_systable(names[i][0], names[i][1]);
        ASSERT(t);
        ASSERT(t == cql_systable(names[i][0], names[i][1])); /* built once */
        ASSERT_STR_EQ(t->ks, names[i][0]);
        ASSERT_STR_EQ(t->name, names[i][1]);
        /* ids 0..n-1 in SELECT * order; both lookups work */
        for (uint32_t c = 0; c < t->n_cols; c++) {
            ASSERT_EQ(t->cols[c].id, c);
            ASSERT_EQ(eng_table_column_index(t, t->cols[c].name), (int)c);
            ASSERT(eng_table_column_by_id(t, c) == &t->cols[c]);
            if (c >= (uint32_t)(t->n_pk + t->n_ck + 1))
                ASSERT(strcmp(t->cols[c - 1].name, t->cols[c].name) < 0);
        }
        ASSERT(eng_table_column_by_id(t, t->n_cols) == NULL);
        ASSERT_EQ(eng_table_column_index(t, "nope"), -1);
        /* the params of SchemaKeyspace.parse / SystemKeyspace.parse */
        ASSERT_EQ(t->gc_grace_s, strcmp(t->ks, "system") ? 604800 : 0);
        ASSERT_EQ(t->default_ttl_s, 0);
    }
    ASSERT(cql_systable("system_schema", "nope") == NULL);
    ASSERT(cql_systable("system", "keyspaces") == NULL);
    ASSERT(cql_systable("System", "local") == NULL);
    ASSERT(cql_systable("ks", "local") == NULL);
    ASSERT(cql_systable(NULL, "local") == NULL);
    ASSERT(cql_systable("system", NULL) == NULL);
}

/* The expected SELECT * column order of a few definitions (key columns, then by name). */
static void check_columns(const char *ks, const char *name, const char *const *expect,
                          const char *const *types, uint32_t n, uint16_t n_pk, uint16_t n_ck)
{
    const eng_table *t = cql_systable(ks, name);
    ASSERT(t);
    ASSERT_EQ(t->n_cols, n);
    ASSERT_EQ(t->n_pk, n_pk);
    ASSERT_EQ(t->n_ck, n_ck);
    for (uint32_t i = 0; i < n; i++) {
        ASSERT_STR_EQ(t->cols[i].name, expect[i]);
        eng_buf b = ENG_BUF_INIT;
        eng_type_to_cql(t->cols[i].type, &b);
        ASSERT_STR_EQ(eng_buf_cstr(&b), types[i]);
        eng_buf_free(&b);
        ASSERT_EQ(t->cols[i].kind, i < n_pk ? ENG_COL_PARTITION
                                   : i < (uint32_t)(n_pk + n_ck) ? ENG_COL_CLUSTERING
                                                                 : ENG_COL_REGULAR);
        ASSERT_EQ(t->cols[i].position, i < n_pk ? i : i < (uint32_t)(n_pk + n_ck) ? i - n_pk : 0);
    }
}

TEST(descriptors_follow_cassandra_definitions)
{
    static const char *const keyspaces[] = {"keyspace_name", "durable_writes", "replication"};
    static const char *const keyspaces_t[] = {"text", "boolean", "frozen<map<text, text>>"};
    check_columns("system_schema", "keyspaces", keyspaces, keyspaces_t, 3, 1, 0);

    static const char *const columns[] = {"keyspace_name", "table_name", "column_name",
                                          "clustering_order", "column_name_bytes", "kind",
                                          "position", "type"};
    static const char *const columns_t[] = {"text", "text", "text", "text",
                                            "blob", "text", "int",  "text"};
    check_columns("system_schema", "columns", columns, columns_t, 8, 1, 2);

    static const char *const tables[] = {
        "keyspace_name", "table_name", "additional_write_policy", "bloom_filter_fp_chance",
        "caching", "cdc", "comment", "compaction", "compression", "crc_check_chance",
        "dclocal_read_repair_chance", "default_time_to_live", "extensions", "flags",
        "gc_grace_seconds", "id", "max_index_interval", "memtable",
        "memtable_flush_period_in_ms", "min_index_interval", "read_repair",
        "read_repair_chance", "speculative_retry"};
    static const char *const tables_t[] = {
        "text", "text", "text", "double", "frozen<map<text, text>>", "boolean", "text",
        "frozen<map<text, text>>", "frozen<map<text, text>>", "double", "double", "int",
        "frozen<map<text, blob>>", "frozen<set<text>>", "int", "uuid", "int", "text", "int",
        "int", "text", "double", "text"};
    check_columns("system_schema", "tables", tables, tables_t, 23, 1, 1);

    static const char *const types[] = {"keyspace_name", "type_name", "field_names",
                                        "field_types"};
    static const char *const types_t[] = {"text", "text", "frozen<list<text>>",
                                          "frozen<list<text>>"};
    check_columns("system_schema", "types", types, types_t, 4, 1, 1);

    static const char *const dropped[] = {"keyspace_name", "table_name", "column_name",
                                          "dropped_time", "kind", "type"};
    static const char *const dropped_t[] = {"text", "text", "text", "timestamp", "text", "text"};
    check_columns("system_schema", "dropped_columns", dropped, dropped_t, 6, 1, 2);

    static const char *const local[] = {
        "key", "bootstrapped", "broadcast_address", "broadcast_port", "cluster_name",
        "cql_version", "data_center", "gossip_generation", "host_id", "listen_address",
        "listen_port", "native_protocol_version", "partitioner", "rack", "release_version",
        "rpc_address", "rpc_port", "schema_version", "tokens", "truncated_at"};
    static const char *const local_t[] = {
        "text", "text", "inet", "int", "text", "text", "text", "int", "uuid", "inet", "int",
        "text", "text", "text", "text", "inet", "int", "uuid", "set<text>", "map<uuid, blob>"};
    check_columns("system", "local", local, local_t, 20, 1, 0);
}

TEST(table_ids_are_cassandras)
{
    /* TableId.forSystemTable; the same ids name the tables' data directories on any node */
    static const char *const ids[][3] = {
        {"system", "local", "7ad54392-bcdd-35a6-8417-4e047860b377"},
        {"system", "peers", "37f71aca-7dc2-383b-a706-72528af04d4f"},
        {"system", "peers_v2", "c4325fbb-8e5e-3baf-bd07-0f9250ed818e"},
        {"system_schema", "keyspaces", "abac5682-dea6-31c5-b535-b3d6cffd0fb6"},
        {"system_schema", "tables", "afddfb9d-bc1e-3068-8056-eed6c302ba09"},
        {"system_schema", "columns", "24101c25-a2ae-3af7-87c1-b40ee1aca33f"},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(ids); i++) {
        char text[37];
        uuid_text(cql_systable(ids[i][0], ids[i][1])->id, text);
        ASSERT_STR_EQ(text, ids[i][2]);
    }
}

TEST(system_keyspace_names)
{
    static const char *const yes[] = {"system", "system_schema", "system_auth",
                                      "system_distributed", "system_traces", "system_views",
                                      "system_virtual_schema"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(yes); i++)
        ASSERT_EQ(cql_systable_keyspace(yes[i]), 1);
    static const char *const no[] = {"ks", "System", "systems", "system_", "", "SYSTEM_SCHEMA"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(no); i++)
        ASSERT_EQ(cql_systable_keyspace(no[i]), 0);
    ASSERT_EQ(cql_systable_keyspace(NULL), 0);
}

/* ---- system_schema.keyspaces ---- */

#define SIMPLE(rf)                                                                         \
    "{'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '" rf "'}"
#define LOCAL "{'class': 'org.apache.cassandra.locator.LocalStrategy'}"

TEST(keyspaces_rows)
{
    eng_db *db = fixture();
    eng_err err;
    eng_err_clear(&err);
    static const eng_option nts[] = {{"class", "NetworkTopologyStrategy"},
                                     {"replication_factor", "3"}};
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks_nts", nts, 2, 0, 0, NULL, &err), &err);
    static const eng_option dc[] = {
        {"class", "org.apache.cassandra.locator.NetworkTopologyStrategy"}, {"dc2", "2"}};
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks_dc", dc, 2, 1, 0, NULL, &err), &err);
    got *g = scan(db, "system_schema", "keyspaces");
    ASSERT_EQ(g->n, 8);
    static const char *const expect[][3] = {
        {"ks", "True", SIMPLE("1")},
        /* ReplicationParams: NetworkTopologyStrategy turns replication_factor into its DCs */
        {"ks_nts", "False",
         "{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'datacenter1': '3'}"},
        {"ks_dc", "True",
         "{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'dc2': '2'}"},
        /* what a fresh 4.1 node lists */
        {"system", "True", LOCAL},
        {"system_auth", "True", SIMPLE("1")},
        {"system_distributed", "True", SIMPLE("3")},
        {"system_schema", "True", LOCAL},
        {"system_traces", "True", SIMPLE("2")},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(expect); i++) {
        int r = find(g, "keyspace_name", expect[i][0], NULL, NULL);
        ASSERT(r >= 0);
        ASSERT_STR_EQ(cell(g, r, "durable_writes"), expect[i][1]);
        ASSERT_STR_EQ(cell(g, r, "replication"), expect[i][2]);
        ASSERT_EQ(g->rows[r].token, eng_token((const uint8_t *)expect[i][0],
                                              strlen(expect[i][0])));
        ASSERT_EQ(g->rows[r].wt[col(g, "durable_writes")], 0);
    }
    /* partitions strictly in token order (each keyspace is one partition) */
    for (int r = 1; r < g->n; r++)
        ASSERT(g->rows[r - 1].token < g->rows[r].token);
    /* the replication map's bytes: v4 frozen map, keys sorted */
    int r = find(g, "keyspace_name", "ks", NULL, NULL);
    int c = col(g, "replication");
    static const char bytes[] = "\0\0\0\2"
                                "\0\0\0\5class"
                                "\0\0\0\53org.apache.cassandra.locator.SimpleStrategy"
                                "\0\0\0\22replication_factor"
                                "\0\0\0\0011";
    ASSERT_EQ(g->rows[r].len[c], (int32_t)sizeof bytes - 1);
    ASSERT_MEM_EQ(g->rows[r].raw[c], bytes, sizeof bytes - 1);
    got_free(g);
    eng_db_close(db);
}

TEST(keyspaces_without_schema_or_database)
{
    got *g = got_new("system_schema", "keyspaces");
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(systable_scan(g->t, NULL, NULL, collect, g, &err), &err);
    ASSERT_EQ(g->n, 5);
    ASSERT(find(g, "keyspace_name", "system_views", NULL, NULL) < 0); /* virtual: not listed */
    got_free(g);
}

TEST(user_objects_under_system_names_are_left_out)
{
    eng_db *db = open_db();
    eng_err err;
    eng_err_clear(&err);
    /* the catalog itself does not reserve the names (the CQL layer refuses them) */
    ASSERT_OK_ERR(eng_create_keyspace(db, "system_auth", REPL, 2, 1, 0, NULL, &err), &err);
    got *g = scan(db, "system_schema", "keyspaces");
    ASSERT_EQ(g->n, 5);
    ASSERT_EQ(count(g, "keyspace_name", "system_auth"), 1);
    got_free(g);
    eng_db_close(db);
}

/* ---- system_schema.tables ---- */

TEST(tables_rows_with_defaults)
{
    eng_db *db = fixture();
    got *g = scan(db, "system_schema", "tables");
    check_partition_order(g, "keyspace_name");
    check_clustering_order(g, "keyspace_name", "table_name", NULL);
    ASSERT_EQ(count(g, "keyspace_name", "ks"), 3);
    int r = find(g, "keyspace_name", "ks", "table_name", "events");
    ASSERT(r >= 0);
    ASSERT_STR_EQ(cell(g, r - 1, "table_name"), "counts"); /* clustering order within ks */
    ASSERT_STR_EQ(cell(g, r + 1, "table_name"), "opts");
    /* TableParams defaults, as addTableParamsToRowBuilder writes them */
    ASSERT_STR_EQ(cell(g, r, "additional_write_policy"), "99p");
    ASSERT(dbl(g, r, "bloom_filter_fp_chance") == 0.01);
    ASSERT_STR_EQ(cell(g, r, "caching"), "{'keys': 'ALL', 'rows_per_partition': 'NONE'}");
    ASSERT_STR_EQ(cell(g, r, "cdc"), "null"); /* written only when cdc_enabled */
    ASSERT_STR_EQ(cell(g, r, "comment"), "");
    ASSERT_STR_EQ(cell(g, r, "compaction"),
                  "{'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', "
                  "'max_threshold': '32', 'min_threshold': '4'}");
    ASSERT_STR_EQ(cell(g, r, "compression"),
                  "{'chunk_length_in_kb': '16', "
                  "'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}");
    ASSERT(dbl(g, r, "crc_check_chance") == 1.0);
    ASSERT(dbl(g, r, "dclocal_read_repair_chance") == 0.0);
    ASSERT_STR_EQ(cell(g, r, "default_time_to_live"), "0");
    ASSERT_STR_EQ(cell(g, r, "extensions"), "{}");
    ASSERT_STR_EQ(cell(g, r, "flags"), "{'compound'}");
    ASSERT_STR_EQ(cell(g, r, "gc_grace_seconds"), "864000");
    ASSERT_STR_EQ(cell(g, r, "max_index_interval"), "2048");
    ASSERT_STR_EQ(cell(g, r, "memtable"), "null"); /* written only when not the default */
    ASSERT_STR_EQ(cell(g, r, "memtable_flush_period_in_ms"), "0");
    ASSERT_STR_EQ(cell(g, r, "min_index_interval"), "128");
    ASSERT_STR_EQ(cell(g, r, "read_repair"), "BLOCKING");
    ASSERT(dbl(g, r, "read_repair_chance") == 0.0);
    ASSERT_STR_EQ(cell(g, r, "speculative_retry"), "99p");
    /* the id is the table's own */
    eng_err err;
    eng_err_clear(&err);
    eng_schema *s;
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    const eng_table *events = eng_schema_table(s, "ks", "events");
    ASSERT_EQ(g->rows[r].len[col(g, "id")], 16);
    ASSERT_MEM_EQ(g->rows[r].raw[col(g, "id")], events->id, 16);
    eng_schema_unref(s);
    /* a counter table carries the counter flag (TableMetadata.Flag) */
    r = find(g, "keyspace_name", "ks", "table_name", "counts");
    ASSERT_STR_EQ(cell(g, r, "flags"), "{'compound', 'counter'}");
    got_free(g);
    eng_db_close(db);
}

TEST(tables_rows_normalize_options)
{
    eng_db *db = fixture();
    got *g = scan(db, "system_schema", "tables");
    int r = find(g, "keyspace_name", "ks", "table_name", "opts");
    ASSERT(r >= 0);
    /* CompactionParams: full class name, thresholds added; LCS tables default to fp 0.1 */
    ASSERT_STR_EQ(cell(g, r, "compaction"),
                  "{'class': 'org.apache.cassandra.db.compaction.LeveledCompactionStrategy', "
                  "'max_threshold': '32', 'min_threshold': '4', 'sstable_size_in_mb': '160'}");
    ASSERT(dbl(g, r, "bloom_filter_fp_chance") == 0.1);
    /* CachingParams.asMap */
    ASSERT_STR_EQ(cell(g, r, "caching"), "{'keys': 'NONE', 'rows_per_partition': '10'}");
    /* CompressionParams.asMap */
    ASSERT_STR_EQ(cell(g, r, "compression"),
                  "{'chunk_length_in_kb': '64', "
                  "'class': 'org.apache.cassandra.io.compress.DeflateCompressor'}");
    ASSERT_STR_EQ(cell(g, r, "comment"), "it's mine");
    ASSERT_STR_EQ(cell(g, r, "default_time_to_live"), "3600");
    ASSERT_STR_EQ(cell(g, r, "gc_grace_seconds"), "7200");
    /* SpeculativeRetryPolicy toString forms */
    ASSERT_STR_EQ(cell(g, r, "speculative_retry"), "99.5p");
    ASSERT_STR_EQ(cell(g, r, "additional_write_policy"), "MAX(99p,50ms)");
    ASSERT_STR_EQ(cell(g, r, "read_repair"), "NONE");
    ASSERT(dbl(g, r, "crc_check_chance") == 0.5);
    ASSERT_STR_EQ(cell(g, r, "memtable_flush_period_in_ms"), "60000");
    ASSERT_STR_EQ(cell(g, r, "min_index_interval"), "64");
    ASSERT_STR_EQ(cell(g, r, "max_index_interval"), "2048");
    got_free(g);
    eng_db_close(db);
}

TEST(tables_rows_more_option_forms)
{
    eng_db *db = open_db();
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
    static const eng_option opts[] = {
        {"compaction", "{'class': 'TimeWindowCompactionStrategy', "
                       "'compaction_window_unit': 'HOURS', 'compaction_window_size': 2, "
                       "'min_threshold': 6}"},
        {"caching", "{'rows_per_partition': 'all'}"},
        {"compression", "{'enabled': false}"},
        {"speculative_retry", "NONE"},
        {"additional_write_policy", "25.5ms"},
        {"memtable", "skiplist"},
    };
    eng_column_def kv[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    create_table(db, "t", kv, 1, opts, ENG_ARRAY_LEN(opts));
    got *g = scan(db, "system_schema", "tables");
    int r = find(g, "keyspace_name", "ks", "table_name", "t");
    ASSERT(r >= 0);
    ASSERT_STR_EQ(cell(g, r, "compaction"),
                  "{'class': 'org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy', "
                  "'compaction_window_size': '2', 'compaction_window_unit': 'HOURS', "
                  "'max_threshold': '32', 'min_threshold': '6'}");
    ASSERT(dbl(g, r, "bloom_filter_fp_chance") == 0.01);
    /* keys absent from a given caching map means keys NONE (CachingParams.fromMap) */
    ASSERT_STR_EQ(cell(g, r, "caching"), "{'keys': 'NONE', 'rows_per_partition': 'ALL'}");
    ASSERT_STR_EQ(cell(g, r, "compression"), "{'enabled': 'false'}");
    ASSERT_STR_EQ(cell(g, r, "speculative_retry"), "NEVER");
    ASSERT_STR_EQ(cell(g, r, "additional_write_policy"), "25ms");
    ASSERT_STR_EQ(cell(g, r, "memtable"), "skiplist");
    got_free(g);
    eng_db_close(db);
}

TEST(tables_rows_list_the_system_tables)
{
    eng_db *db = open_db();
    got *g = scan(db, "system_schema", "tables");
    check_partition_order(g, "keyspace_name");
    check_clustering_order(g, "keyspace_name", "table_name", NULL);
    static const char *const schema[] = {"aggregates", "columns", "dropped_columns",
                                         "functions",  "indexes", "keyspaces",
                                         "tables",     "triggers", "types", "views"};
    int r = find(g, "keyspace_name", "system_schema", NULL, NULL);
    ASSERT(r >= 0);
    for (size_t i = 0; i < ENG_ARRAY_LEN(schema); i++)
        ASSERT_STR_EQ(cell(g, r + (int)i, "table_name"), schema[i]);
    ASSERT_EQ(count(g, "keyspace_name", "system_schema"), 10);
    /* local, peers, peers_v2, and the estimates tools probe */
    ASSERT_EQ(count(g, "keyspace_name", "system"), 5);
    ASSERT_EQ(count(g, "keyspace_name", "system_distributed"), 3);
    /* virtual tables are described in system_virtual_schema, not here */
    ASSERT_EQ(count(g, "keyspace_name", "system_virtual_schema"), 0);
    /* system_traces: sessions and events (TraceKeyspace) */
    ASSERT_EQ(count(g, "keyspace_name", "system_traces"), 2);
    ASSERT_EQ(g->n, 20);
    /* SchemaKeyspace.parse: 7 days of gc grace, hourly flush, the description as comment */
    r = find(g, "keyspace_name", "system_schema", "table_name", "columns");
    ASSERT_STR_EQ(cell(g, r, "gc_grace_seconds"), "604800");
    ASSERT_STR_EQ(cell(g, r, "memtable_flush_period_in_ms"), "3600000");
    ASSERT_STR_EQ(cell(g, r, "comment"), "column definitions");
    ASSERT_STR_EQ(cell(g, r, "id"), "24101c25-a2ae-3af7-87c1-b40ee1aca33f");
    /* SystemKeyspace.parse: no gc grace */
    r = find(g, "keyspace_name", "system", "table_name", "local");
    ASSERT_STR_EQ(cell(g, r, "gc_grace_seconds"), "0");
    ASSERT_STR_EQ(cell(g, r, "comment"), "information about the local node");
    ASSERT_STR_EQ(cell(g, r, "flags"), "{'compound'}");
    got_free(g);
    eng_db_close(db);
}

/* ---- system_schema.columns ---- */

TEST(columns_rows)
{
    eng_db *db = fixture();
    got *g = scan(db, "system_schema", "columns");
    check_partition_order(g, "keyspace_name");
    check_clustering_order(g, "keyspace_name", "table_name", "column_name");
    /* addColumnToSchemaMutation; rows by column name (clustering order) */
    static const char *const expect[][5] = {
        {"body", "regular", "-1", "none", "text"},
        {"day", "partition_key", "0", "none", "text"},
        {"home", "regular", "-1", "none", "frozen<address>"},
        {"kind", "partition_key", "1", "none", "int"},
        {"note", "static", "-1", "none", "text"},
        {"seq", "clustering", "1", "asc", "int"},
        {"tags", "regular", "-1", "none", "set<text>"},
        {"ts", "clustering", "0", "desc", "timeuuid"},
    };
    int r = find(g, "keyspace_name", "ks", "table_name", "events");
    ASSERT(r >= 0);
    for (size_t i = 0; i < ENG_ARRAY_LEN(expect); i++, r++) {
        ASSERT_STR_EQ(cell(g, r, "table_name"), "events");
        ASSERT_STR_EQ(cell(g, r, "column_name"), expect[i][0]);
        ASSERT_STR_EQ(cell(g, r, "kind"), expect[i][1]);
        ASSERT_STR_EQ(cell(g, r, "position"), expect[i][2]);
        ASSERT_STR_EQ(cell(g, r, "clustering_order"), expect[i][3]);
        ASSERT_STR_EQ(cell(g, r, "type"), expect[i][4]);
        int c = col(g, "column_name_bytes");
        ASSERT_EQ(g->rows[r].len[c], (int32_t)strlen(expect[i][0]));
        ASSERT_MEM_EQ(g->rows[r].raw[c], expect[i][0], strlen(expect[i][0]));
    }
    ASSERT(r == g->n || strcmp(cell(g, r, "table_name"), "events") != 0);
    r = find(g, "table_name", "counts", "column_name", "n");
    ASSERT_STR_EQ(cell(g, r, "type"), "counter");
    ASSERT_EQ(count(g, "keyspace_name", "ks"), 8 + 2 + 2);
    /* the system tables describe themselves */
    r = find(g, "table_name", "local", "column_name", "tokens");
    ASSERT(r >= 0);
    ASSERT_STR_EQ(cell(g, r, "keyspace_name"), "system");
    ASSERT_STR_EQ(cell(g, r, "type"), "set<text>");
    r = find(g, "table_name", "columns", "column_name", "column_name");
    ASSERT_STR_EQ(cell(g, r, "kind"), "clustering");
    ASSERT_STR_EQ(cell(g, r, "position"), "1");
    ASSERT_STR_EQ(cell(g, r, "clustering_order"), "asc");
    got_free(g);
    eng_db_close(db);
}

TEST(columns_follow_schema_changes)
{
    eng_db *db = fixture();
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_drop_table(db, "ks", "counts", 0, NULL, &err), &err);
    got *g = scan(db, "system_schema", "columns");
    ASSERT_EQ(count(g, "table_name", "counts"), 0);
    ASSERT_EQ(count(g, "keyspace_name", "ks"), 8 + 2);
    got_free(g);
    eng_db_close(db);
}

/* ---- system_schema.types and dropped_columns ---- */

TEST(types_rows)
{
    eng_db *db = fixture();
    eng_err err;
    eng_err_clear(&err);
    const char *f[] = {"a"};
    eng_type *ty[] = {eng_type_new_map(T(ENG_TEXT), T(ENG_INT), 1)};
    int rc = eng_create_type(db, "ks", "aaa", f, (const eng_type *const *)ty, 1, 0, NULL, &err);
    eng_type_free(ty[0]);
    ASSERT_OK_ERR(rc, &err);
    got *g = scan(db, "system_schema", "types");
    ASSERT_EQ(g->n, 2);
    ASSERT_STR_EQ(cell(g, 0, "type_name"), "aaa");
    ASSERT_STR_EQ(cell(g, 0, "field_names"), "['a']");
    ASSERT_STR_EQ(cell(g, 0, "field_types"), "['frozen<map<text, int>>']");
    ASSERT_STR_EQ(cell(g, 1, "keyspace_name"), "ks");
    ASSERT_STR_EQ(cell(g, 1, "type_name"), "address");
    ASSERT_STR_EQ(cell(g, 1, "field_names"), "['street', 'zip', 'phones']");
    ASSERT_STR_EQ(cell(g, 1, "field_types"), "['text', 'int', 'frozen<list<text>>']");
    got_free(g);
    eng_db_close(db);
}

TEST(dropped_columns_rows)
{
    eng_db *db = fixture();
    eng_err err;
    eng_err_clear(&err);
    got *g = scan(db, "system_schema", "dropped_columns");
    ASSERT_EQ(g->n, 0);
    got_free(g);
    int64_t before = eng_clock_now_us(eng_db_clock(db));
    const char *names[] = {"note", "body"};
    ASSERT_OK_ERR(eng_alter_table_drop(db, "ks", "events", names, 2, 0, NULL, &err), &err);
    int64_t after = eng_clock_now_us(eng_db_clock(db));
    g = scan(db, "system_schema", "dropped_columns");
    ASSERT_EQ(g->n, 2);
    ASSERT_STR_EQ(cell(g, 0, "column_name"), "body");
    ASSERT_STR_EQ(cell(g, 0, "kind"), "regular");
    ASSERT_STR_EQ(cell(g, 0, "type"), "text");
    ASSERT_STR_EQ(cell(g, 1, "column_name"), "note");
    ASSERT_STR_EQ(cell(g, 1, "kind"), "static");
    for (int r = 0; r < 2; r++) {
        int c = col(g, "dropped_time");
        ASSERT_EQ(g->rows[r].len[c], 8);
        int64_t ms = (int64_t)eng_be64(g->rows[r].raw[c]);
        ASSERT(ms >= before / 1000 && ms <= after / 1000);
        /* written at the drop */
        int64_t wt = g->rows[r].wt[col(g, "kind")];
        ASSERT(wt >= before && wt <= after && wt / 1000 == ms);
    }
    got_free(g);
    g = scan(db, "system_schema", "columns");
    /* this test's table, and system_traces.events' 7 columns */
    ASSERT_EQ(count(g, "table_name", "events"), 6 + 7);
    got_free(g);
    eng_db_close(db);
}

/* ---- system.local ---- */

TEST(local_row)
{
    eng_db *db = fixture();
    got *g = scan(db, "system", "local");
    ASSERT_EQ(g->n, 1);
    ASSERT_STR_EQ(cell(g, 0, "key"), "local");
    ASSERT_STR_EQ(cell(g, 0, "bootstrapped"), "COMPLETED");
    ASSERT_STR_EQ(cell(g, 0, "broadcast_address"), "127.0.0.1");
    ASSERT_STR_EQ(cell(g, 0, "broadcast_port"), "7000");
    ASSERT_STR_EQ(cell(g, 0, "cluster_name"), "Test Cluster");
    ASSERT_STR_EQ(cell(g, 0, "cql_version"), "3.4.6");
    ASSERT_STR_EQ(cell(g, 0, "data_center"), "datacenter1");
    ASSERT_STR_EQ(cell(g, 0, "gossip_generation"), "null");
    ASSERT_STR_EQ(cell(g, 0, "listen_address"), "127.0.0.1");
    ASSERT_STR_EQ(cell(g, 0, "listen_port"), "7000");
    ASSERT_STR_EQ(cell(g, 0, "native_protocol_version"), "5");
    ASSERT_STR_EQ(cell(g, 0, "partitioner"), "org.apache.cassandra.dht.Murmur3Partitioner");
    ASSERT_STR_EQ(cell(g, 0, "rack"), "rack1");
    ASSERT(!strncmp(cell(g, 0, "release_version"), "4.1.", 4));
    ASSERT_STR_EQ(cell(g, 0, "rpc_address"), "127.0.0.1");
    ASSERT_STR_EQ(cell(g, 0, "rpc_port"), "9042");
    ASSERT_STR_EQ(cell(g, 0, "truncated_at"), "null");
    ASSERT_EQ(g->rows[0].token, eng_token((const uint8_t *)"local", 5));
    /* host_id and schema_version: name-based (version 3) UUIDs */
    int h = col(g, "host_id"), sv = col(g, "schema_version");
    ASSERT_EQ(g->rows[0].len[h], 16);
    ASSERT_EQ(eng_uuid_version(g->rows[0].raw[h]), 3);
    ASSERT_EQ(eng_uuid_version(g->rows[0].raw[sv]), 3);
    /* 16 tokens (num_tokens), each a Murmur3 token, the set sorted as text */
    const char *tokens = cell(g, 0, "tokens");
    ASSERT(tokens[0] == '{');
    int n = 0;
    char prev[32] = "";
    for (const char *p = tokens; (p = strchr(p, '\'')) != NULL; n++) {
        const char *end = strchr(p + 1, '\'');
        ASSERT(end && end - p - 1 < 32);
        char tok[32];
        memcpy(tok, p + 1, (size_t)(end - p - 1));
        tok[end - p - 1] = 0;
        ASSERT(strcmp(prev, tok) < 0);
        char *e;
        long long v = strtoll(tok, &e, 10);
        ASSERT(*e == 0 && v != INT64_MIN);
        memcpy(prev, tok, sizeof tok);
        p = end + 1;
    }
    ASSERT_EQ(n, 16);
    ASSERT_EQ(g->rows[0].wt[col(g, "tokens")], ENG_TS_NONE); /* a multi-cell set */

    /* stable for the database; schema_version moves with the schema */
    got *again = scan(db, "system", "local");
    ASSERT_MEM_EQ(again->rows[0].raw[h], g->rows[0].raw[h], 16);
    ASSERT_MEM_EQ(again->rows[0].raw[sv], g->rows[0].raw[sv], 16);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_drop_table(db, "ks", "counts", 0, NULL, &err), &err);
    got *changed = scan(db, "system", "local");
    ASSERT_MEM_EQ(changed->rows[0].raw[h], g->rows[0].raw[h], 16);
    ASSERT(memcmp(changed->rows[0].raw[sv], g->rows[0].raw[sv], 16) != 0);
    /* another database is another host */
    eng_db *other = open_db();
    got *o = scan(other, "system", "local");
    ASSERT(memcmp(o->rows[0].raw[h], g->rows[0].raw[h], 16) != 0);
    got_free(o);
    eng_db_close(other);
    got_free(changed);
    got_free(again);
    got_free(g);
    eng_db_close(db);
}

/* ---- empty tables, callbacks, errors ---- */

TEST(empty_tables)
{
    eng_db *db = fixture();
    static const char *const names[][2] = {
        {"system_schema", "triggers"}, {"system_schema", "views"},
        {"system_schema", "indexes"},  {"system_schema", "functions"},
        {"system_schema", "aggregates"}, {"system", "peers"},
        {"system", "peers_v2"},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(names); i++) {
        got *g = scan(db, names[i][0], names[i][1]);
        ASSERT_EQ(g->n, 0);
        got_free(g);
    }
    eng_db_close(db);
}

TEST(callback_stops_and_aborts)
{
    eng_db *db = fixture();
    eng_err err;
    eng_err_clear(&err);
    eng_schema *s;
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    got *g = got_new("system_schema", "columns");
    g->stop_after = 3;
    ASSERT_OK_ERR(systable_scan(g->t, s, db, collect, g, &err), &err);
    ASSERT_EQ(g->n, 3);
    got_free(g);

    g = got_new("system_schema", "columns");
    g->fail_code = ENG_E_INVALID;
    ASSERT_EQ(systable_scan(g->t, s, db, collect, g, &err), ENG_E_INVALID);
    ASSERT_EQ(err.code, ENG_E_INVALID);
    ASSERT_EQ(g->n, 0);
    got_free(g);

    eng_err_clear(&err);
    ASSERT_OK_ERR(systable_scan(cql_systable("system", "local"), s, db, NULL, NULL, &err),
                  &err);
    /* a table that is not one of these */
    ASSERT_EQ(systable_scan(eng_schema_table(s, "ks", "events"), s, db, NULL, NULL, &err),
              ENG_E_INVALID);
    eng_err_clear(&err);
    ASSERT_EQ(systable_scan(NULL, s, db, NULL, NULL, &err), ENG_E_INVALID);
    eng_schema_unref(s);
    eng_db_close(db);
}

static int count_rows(void *ctx, const eng_row_view *v)
{
    (void)v;
    (*(int *)ctx)++;
    return 0;
}

/* Every allocation of a scan fails in turn: ENG_E_NOMEM, nothing leaked, then success. */
TEST(out_of_memory_is_reported)
{
    eng_db *db = fixture();
    eng_err err;
    eng_err_clear(&err);
    eng_schema *s;
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    /* the descriptors themselves: NULL until they can be built */
    const eng_table *t = NULL;
    for (long n = 0; !t; n++) {
        ASSERT(n < 100000);
        eng_alloc_fail_after(n);
        t = cql_systable("system_schema", "tables");
        eng_alloc_fail_after(-1);
    }
    static const char *const names[][2] = {
        {"system_schema", "keyspaces"}, {"system_schema", "tables"},
        {"system_schema", "columns"},   {"system_schema", "types"},
        {"system", "local"},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(names); i++) {
        t = cql_systable(names[i][0], names[i][1]);
        int expect = 0;
        eng_err_clear(&err);
        ASSERT_OK_ERR(systable_scan(t, s, db, count_rows, &expect, &err), &err);
        for (long n = 0;; n++) {
            ASSERT(n < 100000);
            int rows = 0;
            eng_err_clear(&err);
            eng_alloc_fail_after(n);
            int rc = systable_scan(t, s, db, count_rows, &rows, &err);
            eng_alloc_fail_after(-1);
            if (rc == 0) {
                ASSERT_EQ(rows, expect);
                break;
            }
            if (rc != ENG_E_NOMEM)
                test_fail(__FILE__, __LINE__, "%s.%s fault %ld: 0x%x %s", names[i][0],
                          names[i][1], n, rc, err.msg);
            ASSERT_EQ(rows, 0); /* no row is handed out before all are built */
        }
    }
    eng_schema_unref(s);
    eng_db_close(db);
}

/* Views read like eng_read's: writetime of a system_schema cell is the catalog's 0. */
TEST(views_carry_timestamps)
{
    eng_db *db = fixture();
    got *g = scan(db, "system_schema", "tables");
    int r = find(g, "keyspace_name", "ks", "table_name", "events");
    ASSERT_EQ(g->rows[r].wt[col(g, "comment")], 0);
    ASSERT_EQ(g->rows[r].wt[col(g, "cdc")], ENG_TS_NONE);
    got_free(g);
    eng_db_close(db);
}
