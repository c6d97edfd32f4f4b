/*
 * The engine API end to end on real LMDB environments: writes, reads,
 * slices, paging, tombstones, TTL on a virtual clock, statics, collections,
 * counters, compare-and-set, purge, schema persistence, map growth, bad
 * input and corruption. Expected results are Cassandra's (facts §4-§7).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/store/store_int.h"
#include "harness.h"
#include "engine/store/keycodec.h"
#include "engine/store/rowkey.h"
#include "engine/value/token.h"

/* ---- fixtures ---- */

static const eng_option REPL[] = {{"class", "SimpleStrategy"}, {"replication_factor", "1"}};

static eng_db *open_temp(void)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db *db;
    eng_db_options o = {ENG_DURABLE_NONE, 0, 0, 0, 0};
    ASSERT_OK_ERR(eng_db_open_temp(&o, &db, &err), &err);
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
    return db;
}

static void create_table(eng_db *db, const char *name, const eng_column_def *cols, uint32_t n,
                         const eng_option *opts, uint32_t n_opts)
{
    eng_err err;
    eng_err_clear(&err);
    eng_table_def def = {"ks", name, n, cols, n_opts, opts};
    ASSERT_OK_ERR(eng_create_table(db, &def, 0, NULL, &err), &err);
    for (uint32_t i = 0; i < n; i++) /* the catalog keeps copies */
        eng_type_free((eng_type *)cols[i].type);
}

/* Snapshots handed out by table(), released when the test process exits. */
static eng_schema *held[256];
static int n_held;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER; /* race tests call table() */

static void release_held(void)
{
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < n_held; i++)
        eng_schema_unref(held[i]);
    n_held = 0;
    pthread_mutex_unlock(&held_lock);
}

/* The table from the current snapshot; the snapshot stays referenced until exit. */
static const eng_table *table(eng_db *db, const char *name)
{
    eng_err err;
    eng_err_clear(&err);
    eng_schema *s;
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    pthread_mutex_lock(&held_lock);
    if (n_held == 0)
        atexit(release_held);
    if (n_held == 256)
        eng_schema_unref(held[--n_held]);
    held[n_held++] = s;
    pthread_mutex_unlock(&held_lock);
    const eng_table *t = eng_schema_table(s, "ks", name);
    ASSERT(t);
    return t;
}

static int col(const eng_table *t, const char *name)
{
    int i = eng_table_column_index(t, name);
    ASSERT(i >= 0);
    return i;
}

static eng_type *T(int kind) { return eng_type_new(kind); }

/* Integer values: a small pool of be32 ints so eng_vals can point at them. */
static uint8_t intpool[4096][4];
static _Atomic unsigned intpool_n; /* threads of the race tests take slots too */
static eng_val I(int32_t v)
{
    uint8_t *p = intpool[atomic_fetch_add(&intpool_n, 1) % 4096];
    eng_put_be32(p, (uint32_t)v);
    return (eng_val){p, 4};
}
static eng_val S(const char *s) { return (eng_val){(const uint8_t *)s, (int32_t)strlen(s)}; }
static const eng_val NUL = {NULL, ENG_NULL};
static const eng_val UNSET = {NULL, ENG_UNSET};

/* messages(room text, ts int DESC clustering, body text) and kv(k int, c int, v int, w int) */
static void make_tables(eng_db *db)
{
    eng_column_def msg[] = {
        {"room", T(ENG_TEXT), ENG_COL_PARTITION, 0},
        {"ts", T(ENG_INT), ENG_COL_CLUSTERING, 1},
        {"body", T(ENG_TEXT), ENG_COL_REGULAR, 0},
    };
    create_table(db, "messages", msg, 3, NULL, 0);
    eng_column_def kv[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"c", T(ENG_INT), ENG_COL_CLUSTERING, 0},
        {"v", T(ENG_INT), ENG_COL_REGULAR, 0},
        {"w", T(ENG_INT), ENG_COL_REGULAR, 0},
        {"s", T(ENG_INT), ENG_COL_STATIC, 0},
    };
    create_table(db, "kv", kv, 5, NULL, 0);
}

/* Writes one row of kv: INSERT (marker) or UPDATE, v and w (ENG_UNSET to leave out). */
static int put_kv(eng_db *db, int insert, int k, int c, eng_val v, eng_val w, int64_t ts,
                  int32_t ttl, eng_err *err)
{
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(k)}, ck[1] = {I(c)};
    eng_cell_op ops[2] = {
        {(uint16_t)col(t, "v"), ENG_OP_SET, {NULL, 0}, v},
        {(uint16_t)col(t, "w"), ENG_OP_SET, {NULL, 0}, w},
    };
    eng_row_mut rm = {ck, (uint8_t)insert, 0, 2, ops};
    eng_mutation m = {t, pk, ts, ttl, 0, 0, NULL, 1, &rm, 0};
    return eng_apply(db, &m, 1, NULL, err);
}

/* Collected rows: each as "k,c,v,w" with "null" for nulls. */
typedef struct collected {
    char rows[512][128];
    int n;
    const int *cols;
    int ncols;
} collected;

static void fmt_val(char *out, size_t n, eng_val v)
{
    if (v.len < 0)
        snprintf(out, n, "null");
    else if (v.len == 4)
        snprintf(out, n, "%d", (int32_t)eng_be32(v.p));
    else
        snprintf(out, n, "%.*s", (int)v.len, v.p);
}

static int collect(void *ctx, const eng_row_view *v)
{
    collected *c = ctx;
    char *row = c->rows[c->n % 512];
    row[0] = 0;
    for (int i = 0; i < c->ncols; i++) {
        eng_val x;
        eng_err err;
        eng_err_clear(&err);
        if (eng_view_column(v, (uint16_t)c->cols[i], &x, NULL, NULL, &err))
            return -err.code;
        char one[64];
        fmt_val(one, sizeof one, x);
        if (i)
            strcat(row, ",");
        strcat(row, one);
    }
    c->n++;
    return 0;
}

static void read_all(eng_db *db, eng_query *q, collected *c, const char *const *colnames, int n)
{
    static int cols[16];
    for (int i = 0; i < n; i++)
        cols[i] = col(q->table, colnames[i]);
    c->n = 0;
    c->cols = cols;
    c->ncols = n;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_read(db, q, collect, c, NULL, &err), &err);
}

static const char *const KV[] = {"k", "c", "v", "w"};

static void read_partition_kv(eng_db *db, int k, collected *c)
{
    eng_val pk[1] = {I(k)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = table(db, "kv"), .n_keys = 1, .keys = keys};
    read_all(db, &q, c, KV, 4);
}

/* ---- writes and reads ---- */

TEST(test_insert_then_read_partition_in_clustering_order)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int c = 5; c >= 1; c--)
        ASSERT_OK_ERR(put_kv(db, 1, 1, c, I(c * 10), NUL, ENG_TS_NONE, -1, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 5);
    ASSERT_STR_EQ(got.rows[0], "1,1,10,null");
    ASSERT_STR_EQ(got.rows[4], "1,5,50,null");
    eng_db_close(db);
}

TEST(test_row_created_by_insert_survives_with_all_columns_null)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(1), I(2), ENG_TS_NONE, -1, &err), &err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, NUL, NUL, ENG_TS_NONE, -1, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "1,1,null,null");
    eng_db_close(db);
}

TEST(test_row_created_by_update_disappears_when_its_cells_are_deleted)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(1), I(2), ENG_TS_NONE, -1, &err), &err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, NUL, NUL, ENG_TS_NONE, -1, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 0);
    eng_db_close(db);
}

TEST(test_tombstone_shadows_older_write_arriving_later)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, NUL, UNSET, 100, -1, &err), &err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(7), UNSET, 50, -1, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 0);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(8), UNSET, 101, -1, &err), &err);
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "1,1,8,null");
    eng_db_close(db);
}

TEST(test_cell_tombstone_wins_a_timestamp_tie)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(7), I(1), 100, -1, &err), &err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, NUL, UNSET, 100, -1, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "1,1,null,1");
    eng_db_close(db);
}

TEST(test_greater_value_wins_a_timestamp_tie_between_live_cells)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(9), UNSET, 100, -1, &err), &err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(3), UNSET, 100, -1, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_STR_EQ(got.rows[0], "1,1,9,null");
    eng_db_close(db);
}

TEST(test_ttl_expires_on_the_virtual_clock)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_clock_set_virtual(eng_db_clock(db), 1700000000LL * 1000000);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(1), UNSET, ENG_TS_NONE, 10, &err), &err);
    eng_clock_advance(eng_db_clock(db), 9 * 1000000LL);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    eng_clock_advance(eng_db_clock(db), 1 * 1000000LL);
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 0); /* marker and cell expired together: the row is gone */
    eng_db_close(db);
}

TEST(test_ttl_of_a_cell_counts_down)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_clock_set_virtual(eng_db_clock(db), 1700000000LL * 1000000);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(1), UNSET, ENG_TS_NONE, 100, &err), &err);
    eng_clock_advance(eng_db_clock(db), 30 * 1000000LL);
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(1)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    struct ttl_ctx {
        int32_t ttl;
        int64_t wt;
        int col;
    } ctx = {0, 0, col(t, "v")};
    eng_row_cb cb = NULL;
    (void)cb;
    int ttl_cb(void *c, const eng_row_view *v);
    ASSERT_OK_ERR(eng_read(db, &q, ttl_cb, &ctx, NULL, &err), &err);
    ASSERT_EQ(ctx.ttl, 70);
    ASSERT(ctx.wt == 1700000000LL * 1000000);
    eng_db_close(db);
}

int ttl_cb(void *c, const eng_row_view *v);
int ttl_cb(void *c, const eng_row_view *v)
{
    struct {
        int32_t ttl;
        int64_t wt;
        int col;
    } *ctx = c;
    eng_val x;
    eng_err err;
    eng_err_clear(&err);
    return eng_view_column(v, (uint16_t)ctx->col, &x, &ctx->wt, &ctx->ttl, &err);
}

TEST(test_default_time_to_live_applies_and_ttl_zero_overrides_it)
{
    eng_db *db = open_temp();
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"v", T(ENG_INT), ENG_COL_REGULAR, 0},
    };
    eng_option opts[] = {{"default_time_to_live", "5"}};
    create_table(db, "t", cols, 2, opts, 1);
    const eng_table *t = table(db, "t");
    ASSERT_EQ(t->default_ttl_s, 5);
    eng_clock_set_virtual(eng_db_clock(db), 1700000000LL * 1000000);
    eng_err err;
    eng_err_clear(&err);
    for (int k = 1; k <= 2; k++) {
        eng_val pk[1] = {I(k)};
        eng_cell_op op = {1, ENG_OP_SET, {NULL, 0}, I(k)};
        eng_row_mut rm = {NULL, 1, 0, 1, &op};
        eng_val none[1];
        rm.ck = none;
        eng_mutation m = {t, pk, ENG_TS_NONE, k == 1 ? -1 : 0, 0, 0, NULL, 1, &rm, 0};
        ASSERT_OK_ERR(eng_apply(db, &m, 1, NULL, &err), &err);
    }
    eng_clock_advance(eng_db_clock(db), 6 * 1000000LL);
    eng_query q = {.table = t, .token_lo = ENG_TOKEN_MIN, .token_hi = ENG_TOKEN_MAX,
                   .token_lo_incl = 1, .token_hi_incl = 1};
    static const char *const cols2[] = {"k", "v"};
    collected got;
    read_all(db, &q, &got, cols2, 2);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "2,2");
    eng_db_close(db);
}

/* ---- deletions ---- */

static int delete_kv(eng_db *db, int k, int partition, const eng_slice *range, int64_t ts,
                     eng_err *err)
{
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(k)};
    eng_mutation m = {t, pk, ts, -1, (uint8_t)partition, range ? 1 : 0, range, 0, NULL, 0};
    return eng_apply(db, &m, 1, NULL, err);
}

TEST(test_partition_delete_covers_rows_and_statics_until_newer_writes)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int c = 1; c <= 3; c++)
        ASSERT_OK_ERR(put_kv(db, 1, 1, c, I(c), UNSET, 100, -1, &err), &err);
    ASSERT_OK_ERR(delete_kv(db, 1, 1, NULL, 200, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 0);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 2, I(5), UNSET, 150, -1, &err), &err); /* older: shadowed */
    ASSERT_OK_ERR(put_kv(db, 1, 1, 3, I(6), UNSET, 250, -1, &err), &err); /* newer: lives */
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "1,3,6,null");
    eng_db_close(db);
}

TEST(test_range_delete_covers_only_its_slice)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int c = 1; c <= 6; c++)
        ASSERT_OK_ERR(put_kv(db, 1, 1, c, I(c), UNSET, 100, -1, &err), &err);
    eng_val lo[1] = {I(2)}, hi[1] = {I(4)};
    eng_slice s = {{lo, 1, 0}, {hi, 1, 1}}; /* 2 < c <= 4 */
    ASSERT_OK_ERR(delete_kv(db, 1, 0, &s, 200, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 4);
    ASSERT_STR_EQ(got.rows[1], "1,2,2,null");
    ASSERT_STR_EQ(got.rows[2], "1,5,5,null");
    eng_db_close(db);
}

TEST(test_row_delete_keeps_static_columns)
{
    eng_db *db = open_temp();
    make_tables(db);
    const eng_table *t = table(db, "kv");
    eng_err err;
    eng_err_clear(&err);
    eng_val pk[1] = {I(1)}, ck[1] = {I(1)};
    eng_cell_op sop = {(uint16_t)col(t, "s"), ENG_OP_SET, {NULL, 0}, I(42)};
    eng_row_mut rows[2] = {{NULL, 0, 0, 1, &sop}, {ck, 1, 0, 0, NULL}};
    eng_mutation m = {t, pk, 100, -1, 0, 0, NULL, 2, rows, 0};
    ASSERT_OK_ERR(eng_apply(db, &m, 1, NULL, &err), &err);
    eng_row_mut del = {ck, 0, 1, 0, NULL};
    eng_mutation d = {t, pk, 200, -1, 0, 0, NULL, 1, &del, 0};
    ASSERT_OK_ERR(eng_apply(db, &d, 1, NULL, &err), &err);
    /* No rows left, but the partition's static row is still returned once (facts §7.1). */
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys, .static_rows = 1};
    static const char *const cols[] = {"k", "c", "s", "v"};
    collected got;
    read_all(db, &q, &got, cols, 4);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "1,null,42,null");
    q.static_rows = 0;
    read_all(db, &q, &got, cols, 4);
    ASSERT_EQ(got.n, 0);
    eng_db_close(db);
}

/* ---- slices, order, limits, paging ---- */

static void put_message(eng_db *db, const char *room, int ts, const char *body)
{
    const eng_table *t = table(db, "messages");
    eng_val pk[1] = {S(room)}, ck[1] = {I(ts)};
    eng_cell_op op = {2, ENG_OP_SET, {NULL, 0}, S(body)};
    eng_row_mut rm = {ck, 1, 0, 1, &op};
    eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_apply(db, &m, 1, NULL, &err), &err);
}

static const char *const MSG[] = {"room", "ts", "body"};

TEST(test_desc_clustering_reads_newest_first_and_appends_in_storage)
{
    eng_db *db = open_temp();
    make_tables(db);
    for (int i = 1; i <= 20; i++) {
        char body[16];
        snprintf(body, sizeof body, "m%d", i);
        put_message(db, "lobby", i, body);
    }
    const eng_table *t = table(db, "messages");
    eng_val pk[1] = {S("lobby")};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys, .limit = 3};
    collected got;
    read_all(db, &q, &got, MSG, 3);
    ASSERT_EQ(got.n, 3);
    ASSERT_STR_EQ(got.rows[0], "lobby,20,m20");
    ASSERT_STR_EQ(got.rows[2], "lobby,18,m18");
    q.reversed = 1;
    read_all(db, &q, &got, MSG, 3);
    ASSERT_STR_EQ(got.rows[0], "lobby,1,m1");
    /* Storage keeps the newest last: the last key of the table is ts 20. */
    MDB_txn *txn;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_read_begin(db, &txn, &err), &err);
    MDB_cursor *c;
    ASSERT_EQ(mdb_cursor_open(txn, t->dbi, &c), 0);
    MDB_val k, v;
    ASSERT_EQ(mdb_cursor_get(c, &k, &v, MDB_LAST), 0);
    eng_buf ckb = ENG_BUF_INIT;
    eng_val ck[1];
    const uint8_t *kp = k.mv_data;
    ASSERT_OK_ERR(eng_storage_decode_clustering(t, kp + k.mv_size - 5, kp + k.mv_size, &ckb, ck,
                                                &err),
                  &err);
    ASSERT_EQ((int32_t)eng_be32(ck[0].p), 20);
    eng_buf_free(&ckb);
    mdb_cursor_close(c);
    eng_read_end(db, txn);
    eng_db_close(db);
}

/* A stored key that decodes to a value its column's type refuses is damage, not data. */
TEST(test_stored_keys_holding_invalid_values_are_corrupt)
{
    eng_db *db = open_temp();
    eng_column_def cols[] = {
        {"p", eng_type_new(ENG_TEXT), ENG_COL_PARTITION, 0},
        {"c", eng_type_new(ENG_TEXT), ENG_COL_CLUSTERING, 0},
    };
    create_table(db, "keyed", cols, 2, NULL, 0);
    const eng_table *t = table(db, "keyed");
    eng_err err;
    eng_err_clear(&err);
    /* the encoding of bytes no UTF-8 text holds */
    eng_buf enc = ENG_BUF_INIT, scratch = ENG_BUF_INIT;
    eng_type *text = eng_type_new(ENG_TEXT);
    ASSERT_OK_ERR(eng_key_put(&enc, text, (const uint8_t *)"\xff\xfe", 2, 0, &err), &err);
    eng_val ck[1];
    ASSERT_EQ(eng_storage_decode_clustering(t, enc.p, enc.p + enc.len, &scratch, ck, &err),
              ENG_E_CORRUPT);
    ASSERT(strstr(err.msg, "database file is corrupted (a stored key holds an invalid text for c"));
    /* the same for a partition key's bytes */
    eng_val pk[1];
    eng_err_clear(&err);
    ASSERT_EQ(eng_storage_split_partition(t, (const uint8_t *)"\xc3", 1, pk, &err), ENG_E_CORRUPT);
    eng_type_free(text);
    eng_buf_free(&enc);
    eng_buf_free(&scratch);
    eng_db_close(db);
}

TEST(test_slice_bounds_inclusive_and_exclusive_in_both_directions)
{
    eng_db *db = open_temp();
    make_tables(db);
    for (int i = 1; i <= 10; i++)
        put_message(db, "r", i, "x");
    const eng_table *t = table(db, "messages");
    eng_val pk[1] = {S("r")};
    const eng_val *keys[1] = {pk};
    /* Clustering order is ts DESC: "ts <= 8 AND ts > 3" is start [8] incl, end [3] excl. */
    eng_val a[1] = {I(8)}, b[1] = {I(3)};
    eng_slice s = {{a, 1, 1}, {b, 1, 0}};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys, .n_slices = 1, .slices = &s};
    collected got;
    read_all(db, &q, &got, MSG, 3);
    ASSERT_EQ(got.n, 5);
    ASSERT_STR_EQ(got.rows[0], "r,8,x");
    ASSERT_STR_EQ(got.rows[4], "r,4,x");
    q.reversed = 1;
    read_all(db, &q, &got, MSG, 3);
    ASSERT_EQ(got.n, 5);
    ASSERT_STR_EQ(got.rows[0], "r,4,x");
    s.start.inclusive = 0;
    s.end.inclusive = 1;
    q.reversed = 0;
    read_all(db, &q, &got, MSG, 3);
    ASSERT_EQ(got.n, 5);
    ASSERT_STR_EQ(got.rows[0], "r,7,x");
    ASSERT_STR_EQ(got.rows[4], "r,3,x");
    eng_db_close(db);
}

TEST(test_paging_resumes_strictly_after_the_last_row)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int k = 1; k <= 7; k++)
        for (int c = 1; c <= 13; c++)
            ASSERT_OK_ERR(put_kv(db, 1, k, c, I(k * 100 + c), UNSET, ENG_TS_NONE, -1, &err),
                          &err);
    const eng_table *t = table(db, "kv");
    eng_query full = {.table = t, .token_lo = ENG_TOKEN_MIN, .token_hi = ENG_TOKEN_MAX,
                      .token_lo_incl = 1, .token_hi_incl = 1};
    collected all;
    read_all(db, &full, &all, KV, 4);
    ASSERT_EQ(all.n, 91);
    for (uint32_t page = 1; page <= 20; page += 6) {
        eng_query q = full;
        q.limit = page;
        eng_buf state = ENG_BUF_INIT;
        int seen = 0;
        for (;;) {
            collected got;
            static int cols[4];
            for (int i = 0; i < 4; i++)
                cols[i] = col(t, KV[i]);
            got.n = 0;
            got.cols = cols;
            got.ncols = 4;
            eng_read_info info = {0, 0, ENG_BUF_INIT};
            q.resume = state.p;
            q.resume_len = state.len;
            ASSERT_OK_ERR(eng_read(db, &q, collect, &got, &info, &err), &err);
            ASSERT(got.n <= (int)page);
            for (int i = 0; i < got.n; i++)
                ASSERT_STR_EQ(got.rows[i], all.rows[seen + i]);
            seen += got.n;
            eng_buf_reset(&state);
            eng_buf_put(&state, info.resume.p, info.resume.len);
            int more = info.has_more;
            eng_read_info_free(&info);
            if (!more)
                break;
        }
        ASSERT_EQ(seen, 91);
        eng_buf_free(&state);
    }
    eng_db_close(db);
}

TEST(test_per_partition_limit_then_limit)
{
    /* SelectLimitTest: a IN (1,2,3) PER PARTITION LIMIT 2 LIMIT 3 -> (1,0),(1,1),(2,0) */
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int k = 1; k <= 3; k++)
        for (int c = 0; c < 3; c++)
            ASSERT_OK_ERR(put_kv(db, 1, k, c, I(c), UNSET, ENG_TS_NONE, -1, &err), &err);
    eng_val k1[1] = {I(1)}, k2[1] = {I(2)}, k3[1] = {I(3)};
    const eng_val *keys[3] = {k1, k2, k3};
    eng_query q = {.table = table(db, "kv"), .n_keys = 3, .keys = keys, .limit = 3,
                   .per_partition_limit = 2};
    collected got;
    read_all(db, &q, &got, KV, 4);
    ASSERT_EQ(got.n, 3);
    ASSERT_STR_EQ(got.rows[0], "1,0,0,null");
    ASSERT_STR_EQ(got.rows[1], "1,1,1,null");
    ASSERT_STR_EQ(got.rows[2], "2,0,0,null");
    eng_db_close(db);
}

TEST(test_full_scan_returns_partitions_in_token_order)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int k = 1; k <= 20; k++)
        ASSERT_OK_ERR(put_kv(db, 1, k, 0, I(k), UNSET, ENG_TS_NONE, -1, &err), &err);
    eng_query q = {.table = table(db, "kv"), .token_lo = ENG_TOKEN_MIN,
                   .token_hi = ENG_TOKEN_MAX, .token_lo_incl = 1, .token_hi_incl = 1};
    collected got;
    read_all(db, &q, &got, KV, 4);
    ASSERT_EQ(got.n, 20);
    int64_t prev = INT64_MIN;
    for (int i = 0; i < got.n; i++) {
        int k = atoi(got.rows[i]);
        uint8_t b[4];
        eng_put_be32(b, (uint32_t)k);
        int64_t tok = eng_token(b, 4);
        ASSERT(tok > prev);
        prev = tok;
    }
    /* facts §1.6 V14: int 5 has the smallest token of 1..20, -7509452495886106294 */
    ASSERT_EQ(atoi(got.rows[0]), 5);
    /* A token range: token(k) > token(5) AND token(k) <= token(1) */
    q.token_lo = -7509452495886106294LL;
    q.token_lo_incl = 0;
    q.token_hi = -4069959284402364209LL;
    read_all(db, &q, &got, KV, 4);
    ASSERT(got.n >= 1);
    ASSERT_EQ(atoi(got.rows[got.n - 1]), 1);
    eng_db_close(db);
}

TEST(test_distinct_returns_one_row_per_live_partition)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int k = 1; k <= 4; k++)
        for (int c = 0; c < 3; c++)
            ASSERT_OK_ERR(put_kv(db, 1, k, c, I(c), UNSET, 100, -1, &err), &err);
    ASSERT_OK_ERR(delete_kv(db, 3, 1, NULL, 200, &err), &err);
    eng_query q = {.table = table(db, "kv"), .token_lo = ENG_TOKEN_MIN,
                   .token_hi = ENG_TOKEN_MAX, .token_lo_incl = 1, .token_hi_incl = 1,
                   .distinct = 1};
    static const char *const cols[] = {"k"};
    collected got;
    read_all(db, &q, &got, cols, 1);
    ASSERT_EQ(got.n, 3);
    eng_db_close(db);
}

/* ---- collections and counters ---- */

static eng_val list_of_ints(eng_buf *b, const int *v, int n)
{
    eng_buf_reset(b);
    eng_buf_put_be32(b, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        eng_buf_put_be32(b, 4);
        eng_buf_put_be32(b, (uint32_t)v[i]);
    }
    return (eng_val){b->p, (int32_t)b->len};
}

static void coll_table(eng_db *db)
{
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"l", eng_type_new_list(T(ENG_INT), 0), ENG_COL_REGULAR, 0},
        {"m", eng_type_new_map(T(ENG_TEXT), T(ENG_INT), 0), ENG_COL_REGULAR, 0},
        {"s", eng_type_new_set(T(ENG_INT), 0), ENG_COL_REGULAR, 0},
    };
    create_table(db, "coll", cols, 4, NULL, 0);
}

static int coll_op(eng_db *db, const char *column, int kind, eng_val key, eng_val value,
                   eng_err *err)
{
    const eng_table *t = table(db, "coll");
    eng_val pk[1] = {I(1)};
    eng_cell_op op = {(uint16_t)col(t, column), (uint8_t)kind, key, value};
    eng_val none[1];
    eng_row_mut rm = {none, 0, 0, 1, &op};
    eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    return eng_apply(db, &m, 1, NULL, err);
}

/* The list column rendered as "a b c". */
static void read_list(eng_db *db, char *out, size_t n)
{
    const eng_table *t = table(db, "coll");
    eng_val pk[1] = {I(1)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    struct lctx {
        char *out;
        size_t n;
        int col;
    } ctx = {out, n, col(t, "l")};
    out[0] = 0;
    int list_cb(void *c, const eng_row_view *v);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_read(db, &q, list_cb, &ctx, NULL, &err), &err);
}

int list_cb(void *c, const eng_row_view *v);
int list_cb(void *c, const eng_row_view *v)
{
    struct lctx {
        char *out;
        size_t n;
        int col;
    } *ctx = c;
    eng_val x;
    eng_err err;
    eng_err_clear(&err);
    if (eng_view_column(v, (uint16_t)ctx->col, &x, NULL, NULL, &err))
        return -err.code;
    if (x.len < 0) {
        snprintf(ctx->out, ctx->n, "null");
        return 0;
    }
    eng_items it;
    eng_items_begin(&it, x.p, (size_t)x.len);
    eng_val e;
    while (eng_items_next(&it, &e) == 1) {
        char one[16];
        snprintf(one, sizeof one, "%s%d", ctx->out[0] ? " " : "", (int32_t)eng_be32(e.p));
        strncat(ctx->out, one, ctx->n - strlen(ctx->out) - 1);
    }
    return 0;
}

TEST(test_list_append_prepend_set_index_and_remove_all_occurrences)
{
    eng_db *db = open_temp();
    coll_table(db);
    eng_err err;
    eng_err_clear(&err);
    eng_buf b = ENG_BUF_INIT;
    int a[] = {1, 2, 3};
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_SET, NUL, list_of_ints(&b, a, 3), &err), &err);
    int more[] = {4, 2};
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_APPEND, NUL, list_of_ints(&b, more, 2), &err), &err);
    int front[] = {8, 9};
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_PREPEND, NUL, list_of_ints(&b, front, 2), &err), &err);
    int front2[] = {7};
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_PREPEND, NUL, list_of_ints(&b, front2, 1), &err), &err);
    char got[128];
    read_list(db, got, sizeof got);
    ASSERT_STR_EQ(got, "7 8 9 1 2 3 4 2");
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_ELEM_SET, I(3), I(100), &err), &err);
    int two[] = {2};
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_LIST_REMOVE, NUL, list_of_ints(&b, two, 1), &err), &err);
    read_list(db, got, sizeof got);
    ASSERT_STR_EQ(got, "7 8 9 100 3 4");
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_ELEM_DELETE, I(0), NUL, &err), &err);
    read_list(db, got, sizeof got);
    ASSERT_STR_EQ(got, "8 9 100 3 4");
    ASSERT_EQ(coll_op(db, "l", ENG_OP_ELEM_SET, I(5), I(1), &err), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "List index 5 out of bound, list has size 5");
    eng_buf_free(&b);
    eng_db_close(db);
}

TEST(test_collection_overwrite_replaces_all_elements)
{
    eng_db *db = open_temp();
    coll_table(db);
    eng_err err;
    eng_err_clear(&err);
    eng_buf b = ENG_BUF_INIT;
    int a[] = {1, 2, 3}, c[] = {5};
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_SET, NUL, list_of_ints(&b, a, 3), &err), &err);
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_SET, NUL, list_of_ints(&b, c, 1), &err), &err);
    char got[64];
    read_list(db, got, sizeof got);
    ASSERT_STR_EQ(got, "5");
    ASSERT_OK_ERR(coll_op(db, "l", ENG_OP_DELETE, NUL, NUL, &err), &err);
    read_list(db, got, sizeof got); /* only the row's collection existed: the row is gone */
    ASSERT_STR_EQ(got, "");
    ASSERT_EQ(coll_op(db, "l", ENG_OP_ELEM_SET, I(0), I(1), &err), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Attempted to set an element on a list which is null");
    eng_buf_free(&b);
    eng_db_close(db);
}

TEST(test_set_and_map_elements_are_sorted_and_removable)
{
    eng_db *db = open_temp();
    coll_table(db);
    eng_err err;
    eng_err_clear(&err);
    eng_buf b = ENG_BUF_INIT;
    int vals[] = {30, -5, 10, 30};
    eng_val set = list_of_ints(&b, vals, 4); /* same framing as a set<int> */
    ASSERT_OK_ERR(coll_op(db, "s", ENG_OP_ADD, NUL, set, &err), &err);
    int rm[] = {10};
    ASSERT_OK_ERR(coll_op(db, "s", ENG_OP_REMOVE, NUL, list_of_ints(&b, rm, 1), &err), &err);
    ASSERT_OK_ERR(coll_op(db, "m", ENG_OP_ELEM_SET, S("b"), I(2), &err), &err);
    ASSERT_OK_ERR(coll_op(db, "m", ENG_OP_ELEM_SET, S("a"), I(1), &err), &err);
    ASSERT_OK_ERR(coll_op(db, "m", ENG_OP_ELEM_DELETE, S("b"), NUL, &err), &err);
    const eng_table *t = table(db, "coll");
    eng_val pk[1] = {I(1)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    struct {
        eng_buf s, m;
    } out = {ENG_BUF_INIT, ENG_BUF_INIT};
    int sm_cb(void *c, const eng_row_view *v);
    ASSERT_OK_ERR(eng_read(db, &q, sm_cb, &out, NULL, &err), &err);
    /* set<int> {-5, 30}: sorted, deduplicated, 10 removed */
    static const uint8_t want_s[] = {0, 0, 0, 2, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xfb,
                                     0, 0, 0, 4, 0, 0, 0, 30};
    ASSERT_EQ(out.s.len, sizeof want_s);
    ASSERT_MEM_EQ(out.s.p, want_s, sizeof want_s);
    static const uint8_t want_m[] = {0, 0, 0, 1, 0, 0, 0, 1, 'a', 0, 0, 0, 4, 0, 0, 0, 1};
    ASSERT_EQ(out.m.len, sizeof want_m);
    ASSERT_MEM_EQ(out.m.p, want_m, sizeof want_m);
    eng_buf_free(&out.s);
    eng_buf_free(&out.m);
    eng_buf_free(&b);
    eng_db_close(db);
}

int sm_cb(void *c, const eng_row_view *v);
int sm_cb(void *c, const eng_row_view *v)
{
    struct {
        eng_buf s, m;
    } *out = c;
    eng_val x;
    eng_err err;
    eng_err_clear(&err);
    if (eng_view_column(v, (uint16_t)eng_table_column_index(v->table, "s"), &x, NULL, NULL, &err))
        return -err.code;
    eng_buf_put(&out->s, x.p, (size_t)x.len);
    if (eng_view_column(v, (uint16_t)eng_table_column_index(v->table, "m"), &x, NULL, NULL, &err))
        return -err.code;
    eng_buf_put(&out->m, x.p, (size_t)x.len);
    return 0;
}

TEST(test_counter_increments_add_up)
{
    eng_db *db = open_temp();
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"n", T(ENG_COUNTER), ENG_COL_REGULAR, 0},
    };
    create_table(db, "ctr", cols, 2, NULL, 0);
    const eng_table *t = table(db, "ctr");
    ASSERT(t->is_counter);
    eng_err err;
    eng_err_clear(&err);
    int64_t deltas[] = {5, -2, 40};
    for (int i = 0; i < 3; i++) {
        uint8_t d[8];
        eng_put_be64(d, (uint64_t)deltas[i]);
        eng_val pk[1] = {I(1)}, none[1];
        eng_cell_op op = {1, ENG_OP_COUNTER_ADD, {NULL, 0}, {d, 8}};
        eng_row_mut rm = {none, 0, 0, 1, &op};
        eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
        ASSERT_OK_ERR(eng_apply(db, &m, 1, NULL, &err), &err);
    }
    eng_val pk[1] = {I(1)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    int64_t total = 0;
    int ctr_cb(void *c, const eng_row_view *v);
    ASSERT_OK_ERR(eng_read(db, &q, ctr_cb, &total, NULL, &err), &err);
    ASSERT_EQ(total, 43);
    eng_db_close(db);
}

int ctr_cb(void *c, const eng_row_view *v);
int ctr_cb(void *c, const eng_row_view *v)
{
    eng_val x;
    eng_err err;
    eng_err_clear(&err);
    if (eng_view_column(v, 1, &x, NULL, NULL, &err) || x.len != 8)
        return -ENG_E_SERVER;
    *(int64_t *)c = (int64_t)eng_be64(x.p);
    return 0;
}

/* ---- compare-and-set ---- */

static int cas_insert(eng_db *db, int k, int c, int v, int *applied, collected *current)
{
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(k)}, ck[1] = {I(c)};
    eng_cell_op op = {(uint16_t)col(t, "v"), ENG_OP_SET, {NULL, 0}, I(v)};
    eng_row_mut rm = {ck, 1, 0, 1, &op};
    eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    eng_cas_row row = {ck, 0, 1, 0, NULL};
    eng_cas cas = {t, pk, 1, &row, 1, &m, 0};
    static _Thread_local int cols[4]; /* outlives the call: `current` points at it */
    for (int i = 0; i < 4; i++)
        cols[i] = col(t, KV[i]);
    current->n = 0;
    current->cols = cols;
    current->ncols = 4;
    eng_err err;
    eng_err_clear(&err);
    return eng_cas_apply(db, &cas, applied, collect, current, &err);
}

TEST(test_insert_if_not_exists_applies_once_and_reports_the_winner)
{
    eng_db *db = open_temp();
    make_tables(db);
    int applied;
    collected cur;
    ASSERT_EQ(cas_insert(db, 1, 1, 10, &applied, &cur), 0);
    ASSERT_EQ(applied, 1);
    ASSERT_EQ(cur.n, 0);
    ASSERT_EQ(cas_insert(db, 1, 1, 20, &applied, &cur), 0);
    ASSERT_EQ(applied, 0);
    ASSERT_EQ(cur.n, 1);
    ASSERT_STR_EQ(cur.rows[0], "1,1,10,null");
    eng_db_close(db);
}

static int cas_update_if(eng_db *db, int op, eng_val cond_value, int new_v, int *applied,
                         eng_err *err)
{
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(1)}, ck[1] = {I(1)};
    eng_cell_op set = {(uint16_t)col(t, "v"), ENG_OP_SET, {NULL, 0}, I(new_v)};
    eng_row_mut rm = {ck, 0, 0, 1, &set};
    eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    eng_condition cond = {(uint16_t)col(t, "w"), (uint8_t)op, 0, {NULL, 0}, 1, &cond_value};
    eng_cas_row row = {ck, 0, 0, 1, &cond};
    eng_cas cas = {t, pk, 1, &row, 1, &m, 0};
    return eng_cas_apply(db, &cas, applied, NULL, NULL, err);
}

TEST(test_conditions_treat_missing_cells_as_null)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    int applied;
    /* no row: w = null holds, w != 3 holds, w = 3 does not */
    ASSERT_OK_ERR(cas_update_if(db, ENG_CMP_EQ, I(3), 1, &applied, &err), &err);
    ASSERT_EQ(applied, 0);
    ASSERT_OK_ERR(cas_update_if(db, ENG_CMP_NE, I(3), 1, &applied, &err), &err);
    ASSERT_EQ(applied, 1);
    ASSERT_OK_ERR(cas_update_if(db, ENG_CMP_EQ, NUL, 2, &applied, &err), &err);
    ASSERT_EQ(applied, 1);
    ASSERT_EQ(cas_update_if(db, ENG_CMP_LT, NUL, 2, &applied, &err), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Invalid comparison with null for operator \"<\"");
    eng_db_close(db);
}

TEST(test_conditional_delete_is_stamped_one_below_its_writes)
{
    /* facts §5.5: the deletions of a conditional statement get T-1, so its own writes at T survive them. */
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(1)}, ck[1] = {I(1)};
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(1), UNSET, ENG_TS_NONE, -1, &err), &err);
    /* DELETE row + SET v in one conditional statement: the new v survives the deletion. */
    eng_cell_op set = {(uint16_t)col(t, "v"), ENG_OP_SET, {NULL, 0}, I(9)};
    eng_row_mut rm = {ck, 0, 1, 1, &set};
    eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    eng_cas_row row = {ck, 1, 0, 0, NULL};
    eng_cas cas = {t, pk, 1, &row, 1, &m, 0};
    int applied;
    ASSERT_OK_ERR(eng_cas_apply(db, &cas, &applied, NULL, NULL, &err), &err);
    ASSERT_EQ(applied, 1);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "1,1,9,null");
    /* A custom timestamp is refused. */
    m.ts_us = 5;
    ASSERT_EQ(eng_cas_apply(db, &cas, &applied, NULL, NULL, &err), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Cannot provide custom timestamp for conditional updates");
    eng_db_close(db);
}

typedef struct race {
    eng_db *db;
    int id;
    int applied;
} race;

static void *race_insert(void *p)
{
    race *r = p;
    collected cur;
    if (cas_insert(r->db, 7, 7, r->id, &r->applied, &cur))
        r->applied = -1;
    return NULL;
}

TEST(test_concurrent_insert_if_not_exists_has_exactly_one_winner)
{
    eng_db *db = open_temp();
    make_tables(db);
    for (int round = 0; round < 20; round++) {
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_truncate(db, "ks", "kv", &err), &err);
        pthread_t th[8];
        race r[8];
        for (int i = 0; i < 8; i++) {
            r[i] = (race){db, i + 1, 0};
            pthread_create(&th[i], NULL, race_insert, &r[i]);
        }
        int winners = 0, winner = 0;
        for (int i = 0; i < 8; i++) {
            pthread_join(th[i], NULL);
            ASSERT(r[i].applied >= 0);
            if (r[i].applied) {
                winners++;
                winner = r[i].id;
            }
        }
        ASSERT_EQ(winners, 1);
        collected got;
        read_partition_kv(db, 7, &got);
        char want[64];
        snprintf(want, sizeof want, "7,7,%d,null", winner);
        ASSERT_STR_EQ(got.rows[0], want);
    }
    eng_db_close(db);
}

/* ---- timestamps ---- */

typedef struct ts_run {
    eng_db *db;
    int64_t ts[500];
} ts_run;

static void *write_many(void *p)
{
    ts_run *r = p;
    const eng_table *t = table(r->db, "kv");
    for (int i = 0; i < 500; i++) {
        eng_val pk[1] = {I(i)}, ck[1] = {I(0)};
        eng_row_mut rm = {ck, 1, 0, 0, NULL};
        eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
        eng_write_info info;
        eng_err err;
        eng_err_clear(&err);
        if (eng_apply(r->db, &m, 1, &info, &err))
            return NULL;
        r->ts[i] = info.ts_us;
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

TEST(test_write_timestamps_strictly_increase_across_threads)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_clock_set_virtual(eng_db_clock(db), 1000); /* a frozen clock: only the mark moves */
    static ts_run runs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        runs[i].db = db;
        pthread_create(&th[i], NULL, write_many, &runs[i]);
    }
    static int64_t all[2000];
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        for (int j = 0; j < 500; j++) {
            if (j)
                ASSERT(runs[i].ts[j] > runs[i].ts[j - 1]);
            all[i * 500 + j] = runs[i].ts[j];
        }
    }
    qsort(all, 2000, sizeof all[0], cmp_i64);
    for (int i = 1; i < 2000; i++)
        ASSERT(all[i] > all[i - 1]);
    eng_db_close(db);
}

TEST(test_write_timestamps_strictly_increase_across_processes)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/db", test_tmpdir());
    eng_err err;
    eng_err_clear(&err);
    eng_db_options o = {ENG_DURABLE_NONE, 0, 0, 0, 0};
    eng_db *db;
    ASSERT_OK_ERR(eng_db_open(dir, &o, &db, &err), &err);
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
    make_tables(db);
    eng_db_close(db);
    int fds[2][2];
    pid_t pids[2];
    for (int p = 0; p < 2; p++) {
        ASSERT_EQ(pipe(fds[p]), 0);
        pids[p] = fork();
        if (pids[p] == 0) {
            eng_db *cdb;
            if (eng_db_open(dir, &o, &cdb, &err))
                _exit(2);
            eng_clock_set_virtual(eng_db_clock(cdb), 1000);
            static ts_run r;
            r.db = cdb;
            write_many(&r);
            ssize_t w = write(fds[p][1], r.ts, sizeof r.ts);
            _exit(w == (ssize_t)sizeof r.ts ? 0 : 3);
        }
        close(fds[p][1]);
    }
    static int64_t all[1000];
    for (int p = 0; p < 2; p++) {
        size_t got = 0;
        while (got < 500 * sizeof(int64_t)) {
            ssize_t n = read(fds[p][0], (char *)&all[p * 500] + got, 500 * sizeof(int64_t) - got);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        int status;
        waitpid(pids[p], &status, 0);
        ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ASSERT_EQ(got, 500 * sizeof(int64_t));
    }
    qsort(all, 1000, sizeof all[0], cmp_i64);
    for (int i = 1; i < 1000; i++)
        ASSERT(all[i] > all[i - 1]);
}

/* ---- purge ---- */

TEST(test_purge_drops_tombstones_only_after_gc_grace)
{
    eng_db *db = open_temp();
    eng_column_def cols[] = {
        {"k", T(ENG_INT), ENG_COL_PARTITION, 0},
        {"c", T(ENG_INT), ENG_COL_CLUSTERING, 0},
        {"v", T(ENG_INT), ENG_COL_REGULAR, 0},
        {"w", T(ENG_INT), ENG_COL_REGULAR, 0},
        {"s", T(ENG_INT), ENG_COL_STATIC, 0},
    };
    eng_option opts[] = {{"gc_grace_seconds", "100"}};
    create_table(db, "kv", cols, 5, opts, 1);
    eng_clock_set_virtual(eng_db_clock(db), 1700000000LL * 1000000);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(1), UNSET, 100, -1, &err), &err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, NUL, UNSET, 200, -1, &err), &err);
    ASSERT_OK_ERR(put_kv(db, 1, 2, 1, I(1), UNSET, ENG_TS_NONE, 10, &err), &err);
    eng_purge_stats st;
    ASSERT_OK_ERR(eng_purge(db, NULL, &st, &err), &err);
    ASSERT_EQ(st.rows_removed, 0); /* the tombstone is young */
    eng_clock_advance(eng_db_clock(db), 50 * 1000000LL);
    ASSERT_OK_ERR(eng_purge(db, NULL, &st, &err), &err);
    ASSERT_EQ(st.rows_removed, 0);
    ASSERT_EQ(st.rows_rewritten, 1); /* the expired row became tombstones */
    eng_clock_advance(eng_db_clock(db), 101 * 1000000LL);
    ASSERT_OK_ERR(eng_purge(db, NULL, &st, &err), &err);
    ASSERT_EQ(st.rows_removed, 2);
    /* After purge the old tombstone no longer shadows: an old write is visible again,
       exactly as in Cassandra once gc grace has passed. */
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, I(5), UNSET, 150, -1, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    eng_db_close(db);
}

/* ---- bad input, limits and faults ---- */

/* LMDB writes the map size into a new file before mapping it, so an unmappable size is
   refused before anything reaches the directory: it opens normally afterwards. */
TEST(test_map_size_beyond_limit_is_refused_and_leaves_directory_usable)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db_options huge = {ENG_DURABLE_NONE, (size_t)1 << 62, 0, 0, 0};
    eng_db *db = NULL;
    ASSERT_EQ(eng_db_open(test_tmpdir(), &huge, &db, &err), ENG_E_CONFIG);
    ASSERT(db == NULL);
    ASSERT(strstr(err.msg, "64 TiB") != NULL);
    eng_db_options o = {ENG_DURABLE_NONE, 0, 0, 0, 0};
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_open(test_tmpdir(), &o, &db, &err), &err);
    eng_db_close(db);
}

TEST(test_full_map_grows_instead_of_failing)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db_options o = {ENG_DURABLE_NONE, 1 << 20, 0, 0, 0};
    eng_db *db;
    ASSERT_OK_ERR(eng_db_open_temp(&o, &db, &err), &err);
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
    make_tables(db);
    const eng_table *t = table(db, "messages");
    static char body[2000];
    memset(body, 'x', sizeof body - 1);
    for (int i = 0; i < 5000; i++) {
        eng_val pk[1] = {S("big")}, ck[1] = {I(i)};
        eng_cell_op op = {2, ENG_OP_SET, {NULL, 0}, S(body)};
        eng_row_mut rm = {ck, 1, 0, 1, &op};
        eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
        ASSERT_OK_ERR(eng_apply(db, &m, 1, NULL, &err), &err);
    }
    ASSERT(db->map_size > (1 << 20));
    eng_val pk[1] = {S("big")};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    ASSERT_OK_ERR(eng_read(db, &q, NULL, NULL, &info, &err), &err);
    ASSERT_EQ(info.rows, 5000);
    eng_read_info_free(&info);
    eng_db_close(db);
}

TEST(test_key_too_large_is_refused_naming_the_limit)
{
    eng_db *db = open_temp();
    make_tables(db);
    static char room[600];
    memset(room, 'r', sizeof room - 1);
    const eng_table *t = table(db, "messages");
    eng_val pk[1] = {S(room)}, ck[1] = {I(1)};
    eng_row_mut rm = {ck, 1, 0, 0, NULL};
    eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(eng_apply(db, &m, 1, NULL, &err), ENG_E_INVALID);
    ASSERT(strstr(err.msg, "511"));
    eng_val empty[1] = {S("")};
    eng_mutation m2 = {t, empty, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    eng_err_clear(&err);
    ASSERT_EQ(eng_apply(db, &m2, 1, NULL, &err), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Key may not be empty");
    eng_db_close(db);
}

TEST(test_failed_batch_leaves_the_database_unchanged)
{
    eng_db *db = open_temp();
    make_tables(db);
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(1)}, ck[1] = {I(1)}, bad[1] = {NUL};
    eng_cell_op op = {(uint16_t)col(t, "v"), ENG_OP_SET, {NULL, 0}, I(1)};
    eng_row_mut good = {ck, 1, 0, 1, &op};
    eng_row_mut wrong = {bad, 1, 0, 1, &op};
    eng_mutation m[2] = {{t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &good, 0},
                         {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &wrong, 0}};
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(eng_apply(db, m, 2, NULL, &err), ENG_E_INVALID);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 0);
    eng_db_close(db);
}

TEST(test_corrupted_row_is_reported_not_returned)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(1), I(2), ENG_TS_NONE, -1, &err), &err);
    const eng_table *t = table(db, "kv");
    /* Flip one byte of the stored row behind the engine's back. */
    MDB_txn *txn;
    ASSERT_EQ(mdb_txn_begin(db->env, NULL, 0, &txn), 0);
    MDB_cursor *c;
    ASSERT_EQ(mdb_cursor_open(txn, t->dbi, &c), 0);
    MDB_val k, v;
    ASSERT_EQ(mdb_cursor_get(c, &k, &v, MDB_LAST), 0);
    uint8_t copy[256];
    ASSERT(v.mv_size < sizeof copy);
    memcpy(copy, v.mv_data, v.mv_size);
    copy[v.mv_size - 1] ^= 0x40;
    MDB_val nv = {v.mv_size, copy};
    ASSERT_EQ(mdb_cursor_put(c, &k, &nv, MDB_CURRENT), 0);
    mdb_cursor_close(c);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
    eng_val pk[1] = {I(1)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    ASSERT_EQ(eng_read(db, &q, NULL, NULL, NULL, &err), ENG_E_CORRUPT);
    eng_err_clear(&err);
    ASSERT_EQ(put_kv(db, 0, 1, 1, I(3), UNSET, ENG_TS_NONE, -1, &err), ENG_E_CORRUPT);
    eng_db_close(db);
}

/* ---- schema ---- */

TEST(test_schema_persists_across_reopen)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/db", test_tmpdir());
    eng_err err;
    eng_err_clear(&err);
    eng_db *db;
    ASSERT_OK_ERR(eng_db_open(dir, NULL, &db, &err), &err);
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
    make_tables(db);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(11), UNSET, ENG_TS_NONE, -1, &err), &err);
    eng_db_close(db);
    ASSERT_OK_ERR(eng_db_open(dir, NULL, &db, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "1,1,11,null");
    eng_db_close(db);
}

/* The child is forked before this process opens the database and waits for a byte on a pipe:
   LMDB forbids using an environment across fork(), and a fork while the committer thread runs
   would copy its locks in whatever state they are (ThreadSanitizer refuses such a child). */
TEST(test_schema_change_in_one_process_is_seen_by_another)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/db", test_tmpdir());
    eng_err err;
    eng_err_clear(&err);
    int go[2];
    ASSERT_EQ(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(go[1]);
        char byte;
        if (read(go[0], &byte, 1) != 1)
            _exit(4);
        eng_db *cdb;
        if (eng_db_open(dir, NULL, &cdb, &err))
            _exit(2);
        make_tables(cdb);
        if (put_kv(cdb, 1, 3, 3, I(33), UNSET, ENG_TS_NONE, -1, &err))
            _exit(3);
        _exit(0);
    }
    close(go[0]);
    eng_db *db;
    ASSERT_OK_ERR(eng_db_open(dir, NULL, &db, &err), &err);
    ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
    eng_schema *s;
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    ASSERT(eng_schema_table(s, "ks", "kv") == NULL);
    eng_schema_unref(s);
    ASSERT_EQ(write(go[1], "g", 1), 1);
    close(go[1]);
    int status;
    waitpid(pid, &status, 0);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    collected got;
    read_partition_kv(db, 3, &got);
    ASSERT_EQ(got.n, 1);
    ASSERT_STR_EQ(got.rows[0], "3,3,33,null");
    eng_db_close(db);
}

TEST(test_dropped_column_data_is_invisible_and_readding_starts_empty)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 0, 1, 1, UNSET, I(5), ENG_TS_NONE, -1, &err), &err);
    const char *names[] = {"w"};
    ASSERT_OK_ERR(eng_alter_table_drop(db, "ks", "kv", names, 1, 0, NULL, &err), &err);
    eng_val pk[1] = {I(1)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = table(db, "kv"), .n_keys = 1, .keys = keys};
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    ASSERT_OK_ERR(eng_read(db, &q, NULL, NULL, &info, &err), &err);
    ASSERT_EQ(info.rows, 0); /* the row only had a w cell and no marker */
    eng_column_def add[] = {{"w", T(ENG_INT), ENG_COL_REGULAR, 0}};
    ASSERT_OK_ERR(eng_alter_table_add(db, "ks", "kv", add, 1, 0, NULL, &err), &err);
    eng_type_free((eng_type *)add[0].type);
    q.table = table(db, "kv");
    ASSERT_OK_ERR(eng_read(db, &q, NULL, NULL, &info, &err), &err);
    ASSERT_EQ(info.rows, 0);
    eng_read_info_free(&info);
    eng_db_close(db);
}

TEST(test_stale_table_handle_of_a_dropped_table_is_refused)
{
    eng_db *db = open_temp();
    make_tables(db);
    const eng_table *t = table(db, "kv");
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_drop_table(db, "ks", "kv", 0, NULL, &err), &err);
    eng_val pk[1] = {I(1)}, ck[1] = {I(1)};
    eng_row_mut rm = {ck, 1, 0, 0, NULL};
    eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
    ASSERT_EQ(eng_apply(db, &m, 1, NULL, &err), ENG_E_INVALID);
    eng_db_close(db);
}

TEST(test_truncate_and_reset_empty_tables_but_keep_them)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(1), UNSET, ENG_TS_NONE, -1, &err), &err);
    put_message(db, "r", 1, "x");
    ASSERT_OK_ERR(eng_reset(db, &err), &err);
    collected got;
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 0);
    ASSERT_OK_ERR(put_kv(db, 1, 1, 1, I(1), UNSET, ENG_TS_NONE, -1, &err), &err);
    read_partition_kv(db, 1, &got);
    ASSERT_EQ(got.n, 1);
    eng_db_close(db);
}

/* ---- allocation failures ---- */

static int kv_rows(eng_db *db, int k)
{
    collected got;
    read_partition_kv(db, k, &got);
    return got.n;
}

TEST(test_allocation_failure_anywhere_in_a_write_leaves_no_trace)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    int done = 0;
    for (long n = 0; n < 5000 && !done; n++) {
        eng_err_clear(&err);
        (void)table(db, "kv"); /* the fixture's own allocations happen outside the walk */
        eng_alloc_fail_after(n);
        int rc = put_kv(db, 1, 9, n % 7, I(1), I(2), ENG_TS_NONE, -1, &err);
        eng_alloc_fail_after(-1);
        if (rc == 0) {
            ASSERT_EQ(kv_rows(db, 9), 1);
            done = 1;
        } else {
            ASSERT_EQ(rc, ENG_E_NOMEM);
            ASSERT_EQ(kv_rows(db, 9), 0);
        }
    }
    ASSERT(done);
    eng_db_close(db);
}

TEST(test_allocation_failure_anywhere_in_a_read_or_cas_is_an_error_not_a_crash)
{
    eng_db *db = open_temp();
    make_tables(db);
    eng_err err;
    eng_err_clear(&err);
    for (int c = 0; c < 20; c++)
        ASSERT_OK_ERR(put_kv(db, 1, 1, c, I(c), UNSET, ENG_TS_NONE, -1, &err), &err);
    const eng_table *t = table(db, "kv");
    eng_val pk[1] = {I(1)};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys, .limit = 7};
    static int cols[4];
    for (int i = 0; i < 4; i++)
        cols[i] = col(t, KV[i]);
    int read_done = 0, cas_done = 0;
    for (long n = 0; n < 5000 && !(read_done && cas_done); n++) {
        collected got = {.cols = cols, .ncols = 4};
        eng_read_info info = {0, 0, ENG_BUF_INIT};
        eng_err_clear(&err);
        eng_alloc_fail_after(n);
        int rc = eng_read(db, &q, collect, &got, &info, &err);
        eng_alloc_fail_after(-1);
        eng_read_info_free(&info);
        if (rc == 0) {
            read_done = 1;
            ASSERT_EQ(got.n, 7);
        } else
            ASSERT_EQ(rc, ENG_E_NOMEM);
        int applied = -1;
        collected cur;
        eng_alloc_fail_after(n);
        rc = cas_insert(db, 1, 3, 99, &applied, &cur);
        eng_alloc_fail_after(-1);
        if (rc == 0) {
            cas_done = 1;
            ASSERT_EQ(applied, 0);
        } else
            ASSERT_EQ(rc, ENG_E_NOMEM);
    }
    ASSERT(read_done && cas_done);
    eng_db_close(db);
}

/* ---- group commit (commit.c) ---- */

/* A database in the test's directory (a real file system, so syncs cost what they cost). */
static eng_db *open_durable(int durability, size_t map_size)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db *db;
    eng_db_options o = {durability, map_size, 0, 50, 0};
    ASSERT_OK_ERR(eng_db_open(test_tmpdir(), &o, &db, &err), &err);
    eng_schema *s;
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    int fresh = !eng_schema_keyspace(s, "ks");
    eng_schema_unref(s);
    if (fresh) {
        ASSERT_OK_ERR(eng_create_keyspace(db, "ks", REPL, 2, 1, 0, NULL, &err), &err);
        make_tables(db);
    }
    return db;
}

/* One kv row (k, 0, v) as a mutation whose values live in *buf. */
typedef struct kv_write {
    uint8_t k[4], c[4], v[4];
    eng_val pk[1], ck[1];
    eng_cell_op op;
    eng_row_mut rm;
    eng_mutation m;
} kv_write;

static const eng_mutation *kv_mutation(kv_write *w, const eng_table *t, int k, int v)
{
    eng_put_be32(w->k, (uint32_t)k);
    eng_put_be32(w->c, 0);
    eng_put_be32(w->v, (uint32_t)v);
    w->pk[0] = (eng_val){w->k, 4};
    w->ck[0] = (eng_val){w->c, 4};
    w->op = (eng_cell_op){(uint16_t)col(t, "v"), ENG_OP_SET, {NULL, 0}, {w->v, 4}};
    w->rm = (eng_row_mut){w->ck, 1, 0, 1, &w->op};
    w->m = (eng_mutation){t, w->pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &w->rm, 0};
    return &w->m;
}

/* Completions of asynchronous writes: outcome per write, in completion order. */
typedef struct completions {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int n, order[2000], rc[2000];
    pthread_t thread[2000];
    int64_t ts[2000];
} completions;

typedef struct pending {
    completions *c;
    int index;
} pending;

static void on_durable(int rc, const eng_err *err, const eng_write_info *info, void *arg)
{
    pending *p = arg;
    completions *c = p->c;
    (void)err;
    pthread_mutex_lock(&c->lock);
    c->order[c->n] = p->index;
    c->rc[p->index] = rc;
    c->thread[p->index] = pthread_self();
    c->ts[p->index] = info ? info->ts_us : 0;
    c->n++;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void wait_completions(completions *c, int n)
{
    pthread_mutex_lock(&c->lock);
    while (c->n < n)
        pthread_cond_wait(&c->cond, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

static completions *new_completions(void)
{
    completions *c = calloc(1, sizeof *c);
    ASSERT(c);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    return c;
}

/* Queues kv writes (i, 0, i) for i in [from, to) without waiting; p[i] records write i. */
static void queue_kv_writes(eng_db *db, eng_schema *s, const eng_table *t, completions *c,
                            pending *p, int from, int to)
{
    eng_err err;
    eng_err_clear(&err);
    for (int i = from; i < to; i++) {
        kv_write w; /* the engine copies it: reused at once */
        p[i] = (pending){c, i};
        ASSERT_OK_ERR(eng_apply_async(db, s, kv_mutation(&w, t, i, i), 1, on_durable, &p[i], &err),
                      &err);
    }
}

typedef struct writer_run {
    eng_db *db;
    const eng_table *t;
    int first, n, failures;
} writer_run;

static void *write_rows(void *p)
{
    writer_run *r = p;
    for (int i = 0; i < r->n; i++) {
        kv_write w;
        eng_err err;
        eng_err_clear(&err);
        if (eng_apply(r->db, kv_mutation(&w, r->t, r->first + i, i), 1, NULL, &err))
            r->failures++;
    }
    return NULL;
}

static int count_kv_rows(eng_db *db, const eng_table *t)
{
    eng_query q = {.table = t, .token_lo = ENG_TOKEN_MIN, .token_hi = ENG_TOKEN_MAX,
                   .token_lo_incl = 1, .token_hi_incl = 1};
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_read(db, &q, NULL, NULL, &info, &err), &err);
    eng_read_info_free(&info);
    return (int)info.rows;
}

TEST(test_group_commit_writers_in_threads_share_transactions)
{
    eng_db *db = open_durable(ENG_DURABLE_SYNC, 0);
    ASSERT(eng_db_group_commit(db));
    const eng_table *t = table(db, "kv");
    eng_commit_stats before, after;
    eng_db_commit_stats(db, &before);
    writer_run runs[8];
    pthread_t th[8];
    for (int i = 0; i < 8; i++) {
        runs[i] = (writer_run){db, t, i * 1000, 40, 0};
        ASSERT_EQ(pthread_create(&th[i], NULL, write_rows, &runs[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        ASSERT_EQ(runs[i].failures, 0);
    }
    eng_db_commit_stats(db, &after);
    ASSERT_EQ(after.jobs - before.jobs, 320);
    /* eight writers each waiting on a sync: groups carry more than one write */
    ASSERT(after.groups - before.groups < 320);
    ASSERT_EQ(count_kv_rows(db, t), 320);
    eng_db_close(db);
}

/* A group held open in the committer (its body waits for the test): reads still run, on the
   last committed snapshot. Were a read to wait for the group, the test would hang (and time out). */
typedef struct held_group {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int inside, release;
    eng_db *db;
} held_group;

static int hold_group_body(eng_db *db, MDB_txn *txn, const eng_schema *cur, void *ctx, eng_err *err)
{
    (void)db, (void)txn, (void)cur, (void)err;
    held_group *h = ctx;
    pthread_mutex_lock(&h->lock);
    h->inside = 1;
    pthread_cond_broadcast(&h->cond);
    while (!h->release)
        pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
    return 0;
}

static void *hold_group(void *p)
{
    held_group *h = p;
    eng_err err;
    eng_err_clear(&err);
    return (void *)(intptr_t)eng_write_txn(h->db, hold_group_body, h, &err);
}

TEST(test_reads_never_wait_for_a_group_commit)
{
    eng_db *db = open_durable(ENG_DURABLE_SYNC, 0);
    const eng_table *t = table(db, "kv");
    writer_run before = {db, t, 0, 5, 0};
    write_rows(&before);
    held_group h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, db};
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, hold_group, &h), 0);
    pthread_mutex_lock(&h.lock);
    while (!h.inside)
        pthread_cond_wait(&h.cond, &h.lock);
    pthread_mutex_unlock(&h.lock);
    /* the committer is inside a group's transaction now */
    for (int i = 0; i < 100; i++)
        ASSERT_EQ(count_kv_rows(db, t), 5);
    pthread_mutex_lock(&h.lock);
    h.release = 1;
    pthread_cond_broadcast(&h.cond);
    pthread_mutex_unlock(&h.lock);
    void *rc;
    pthread_join(th, &rc);
    ASSERT_EQ((intptr_t)rc, 0);
    eng_db_close(db);
}

TEST(test_async_writes_complete_in_order_once_durable_in_the_committer)
{
    eng_db *db = open_durable(ENG_DURABLE_NOMETASYNC, 0);
    const eng_table *t = table(db, "kv");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    completions *c = new_completions();
    static pending p[500];
    queue_kv_writes(db, s, t, c, p, 0, 500);
    wait_completions(c, 500);
    eng_commit_stats st;
    eng_db_commit_stats(db, &st);
    ASSERT(st.groups < st.jobs); /* one thread pipelining: writes shared commits */
    for (int i = 0; i < 500; i++) {
        ASSERT_EQ(c->order[i], i);
        ASSERT_EQ(c->rc[i], 0);
        ASSERT(!pthread_equal(c->thread[i], pthread_self()));
        if (i)
            ASSERT(c->ts[i] > c->ts[i - 1]);
    }
    ASSERT_EQ(count_kv_rows(db, t), 500);
    eng_schema_unref(s);
    eng_db_close(db);
    free(c);
}

TEST(test_async_write_without_group_commit_completes_before_returning)
{
    eng_db *db = open_temp();
    make_tables(db);
    ASSERT(!eng_db_group_commit(db));
    const eng_table *t = table(db, "kv");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    completions *c = new_completions();
    pending p = {c, 0};
    kv_write w;
    ASSERT_OK_ERR(eng_apply_async(db, s, kv_mutation(&w, t, 1, 1), 1, on_durable, &p, &err), &err);
    ASSERT_EQ(c->n, 1);
    ASSERT(pthread_equal(c->thread[0], pthread_self()));
    eng_schema_unref(s);
    eng_db_close(db);
    free(c);
}

/* A failing write in a group is rolled back alone (nested transaction): the others commit. */
TEST(test_group_commit_failed_write_leaves_the_others_applied)
{
    eng_db *db = open_durable(ENG_DURABLE_SYNC, 0);
    const eng_table *t = table(db, "messages");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    completions *c = new_completions();
    static pending p[60];
    static char big[600];
    memset(big, 'r', sizeof big - 1); /* a partition key over the 511-byte limit */
    for (int i = 0; i < 60; i++) {
        uint8_t ts[4];
        eng_put_be32(ts, (uint32_t)i);
        eng_val pk[1] = {i % 5 == 4 ? S(big) : S("room")}, ck[1] = {{ts, 4}};
        eng_cell_op op = {2, ENG_OP_SET, {NULL, 0}, S("hello")};
        eng_row_mut rm = {ck, 1, 0, 1, &op};
        eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
        p[i] = (pending){c, i};
        ASSERT_OK_ERR(eng_apply_async(db, s, &m, 1, on_durable, &p[i], &err), &err);
    }
    wait_completions(c, 60);
    for (int i = 0; i < 60; i++)
        ASSERT_EQ(c->rc[i], i % 5 == 4 ? ENG_E_INVALID : 0);
    eng_val pk[1] = {S("room")};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    ASSERT_OK_ERR(eng_read(db, &q, NULL, NULL, &info, &err), &err);
    ASSERT_EQ(info.rows, 48);
    eng_read_info_free(&info);
    eng_schema_unref(s);
    eng_db_close(db);
    free(c);
}

/* Writes queued while a group's jobs run join its transaction instead of waiting for the next
   commit; in order, with their own timestamps, and a failing one still fails alone. */
TEST(test_group_commit_writes_queued_while_a_group_runs_join_it)
{
    eng_db *db = open_durable(ENG_DURABLE_SYNC, 0);
    const eng_table *t = table(db, "messages");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    eng_commit_stats before, after;
    eng_db_commit_stats(db, &before);
    held_group h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, db};
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, hold_group, &h), 0);
    pthread_mutex_lock(&h.lock);
    while (!h.inside)
        pthread_cond_wait(&h.cond, &h.lock);
    pthread_mutex_unlock(&h.lock);
    /* the committer runs the held group's job: these queue behind it */
    completions *c = new_completions();
    static pending p[10];
    static char big[600];
    memset(big, 'r', sizeof big - 1); /* a partition key over the 511-byte limit */
    for (int i = 0; i < 10; i++) {
        uint8_t ts[4];
        eng_put_be32(ts, (uint32_t)i);
        eng_val pk[1] = {i % 5 == 4 ? S(big) : S("room")}, ck[1] = {{ts, 4}};
        eng_cell_op op = {2, ENG_OP_SET, {NULL, 0}, S("hello")};
        eng_row_mut rm = {ck, 1, 0, 1, &op};
        eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
        p[i] = (pending){c, i};
        ASSERT_OK_ERR(eng_apply_async(db, s, &m, 1, on_durable, &p[i], &err), &err);
    }
    pthread_mutex_lock(&h.lock);
    h.release = 1;
    pthread_cond_broadcast(&h.cond);
    pthread_mutex_unlock(&h.lock);
    void *rc;
    pthread_join(th, &rc);
    ASSERT_EQ((intptr_t)rc, 0);
    wait_completions(c, 10);
    int64_t last = 0;
    for (int i = 0; i < 10; i++) {
        ASSERT_EQ(c->order[i], i);
        ASSERT_EQ(c->rc[i], i % 5 == 4 ? ENG_E_INVALID : 0);
        if (!c->rc[i]) {
            ASSERT(c->ts[i] > last);
            last = c->ts[i];
        }
    }
    eng_db_commit_stats(db, &after);
    ASSERT_EQ(after.groups - before.groups, 1); /* one transaction for the held job and all ten */
    ASSERT_EQ(after.jobs - before.jobs, 11);
    eng_val pk[1] = {S("room")};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    ASSERT_OK_ERR(eng_read(db, &q, NULL, NULL, &info, &err), &err);
    ASSERT_EQ(info.rows, 8);
    eng_read_info_free(&info);
    eng_schema_unref(s);
    eng_db_close(db);
    free(c);
}

/* A completion runs in the committer: a synchronous write from there must not wait for itself. */
typedef struct rewrite {
    eng_db *db;
    const eng_table *t;
    int rc;
    _Atomic int done;
} rewrite;

static void write_again(int rc, const eng_err *err, const eng_write_info *info, void *arg)
{
    rewrite *r = arg;
    (void)err;
    (void)info;
    kv_write w;
    eng_err e;
    eng_err_clear(&e);
    r->rc = rc ? rc : eng_apply(r->db, kv_mutation(&w, r->t, 2, 2), 1, NULL, &e);
    r->done = 1;
}

TEST(test_completion_may_write_synchronously)
{
    eng_db *db = open_durable(ENG_DURABLE_SYNC, 0);
    const eng_table *t = table(db, "kv");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    rewrite r = {db, t, -1, 0};
    kv_write w;
    ASSERT_OK_ERR(eng_apply_async(db, s, kv_mutation(&w, t, 1, 1), 1, write_again, &r, &err), &err);
    while (!r.done)
        usleep(1000);
    ASSERT_EQ(r.rc, 0);
    ASSERT_EQ(count_kv_rows(db, t), 2);
    eng_schema_unref(s);
    eng_db_close(db);
}

/* Closing completes every queued write first; reopened, they are all there. */
TEST(test_close_completes_queued_writes)
{
    eng_db *db = open_durable(ENG_DURABLE_SYNC, 0);
    const eng_table *t = table(db, "kv");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    completions *c = new_completions();
    static pending p[200];
    queue_kv_writes(db, s, t, c, p, 0, 200);
    eng_schema_unref(s);
    release_held();
    eng_db_close(db);
    ASSERT_EQ(c->n, 200);
    db = open_durable(ENG_DURABLE_SYNC, 0);
    ASSERT_EQ(count_kv_rows(db, table(db, "kv")), 200);
    eng_db_close(db);
    free(c);
}

/* Schema changes run alone between queued writes; the writes on either side commit. */
TEST(test_schema_change_between_queued_writes)
{
    eng_db *db = open_durable(ENG_DURABLE_NOMETASYNC, 0);
    const eng_table *t = table(db, "kv");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    completions *c = new_completions();
    static pending p[200];
    queue_kv_writes(db, s, t, c, p, 0, 100);
    eng_column_def cols[] = {{"k", T(ENG_INT), ENG_COL_PARTITION, 0}};
    create_table(db, "extra", cols, 1, NULL, 0);
    queue_kv_writes(db, s, t, c, p, 100, 200);
    wait_completions(c, 200);
    for (int i = 0; i < 200; i++)
        ASSERT_EQ(c->rc[i], 0);
    ASSERT_EQ(count_kv_rows(db, table(db, "kv")), 200);
    ASSERT(table(db, "extra"));
    eng_schema_unref(s);
    eng_db_close(db);
    free(c);
}

/* A group that fills the map is rerun whole after the map grows: nothing lost, nothing twice. */
TEST(test_group_commit_grows_a_full_map)
{
    eng_db *db = open_durable(ENG_DURABLE_NOMETASYNC, 1 << 20);
    const eng_table *t = table(db, "messages");
    eng_schema *s;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_db_schema(db, &s, &err), &err);
    completions *c = new_completions();
    static pending p[1500];
    static char body[2000];
    memset(body, 'x', sizeof body - 1);
    for (int i = 0; i < 1500; i++) {
        uint8_t ts[4];
        eng_put_be32(ts, (uint32_t)i);
        eng_val pk[1] = {S("big")}, ck[1] = {{ts, 4}};
        eng_cell_op op = {2, ENG_OP_SET, {NULL, 0}, S(body)};
        eng_row_mut rm = {ck, 1, 0, 1, &op};
        eng_mutation m = {t, pk, ENG_TS_NONE, -1, 0, 0, NULL, 1, &rm, 0};
        p[i] = (pending){c, i};
        ASSERT_OK_ERR(eng_apply_async(db, s, &m, 1, on_durable, &p[i], &err), &err);
    }
    wait_completions(c, 1500);
    for (int i = 0; i < 1500; i++)
        ASSERT_EQ(c->rc[i], 0);
    ASSERT(db->map_size > (1 << 20));
    eng_val pk[1] = {S("big")};
    const eng_val *keys[1] = {pk};
    eng_query q = {.table = t, .n_keys = 1, .keys = keys};
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    ASSERT_OK_ERR(eng_read(db, &q, NULL, NULL, &info, &err), &err);
    ASSERT_EQ(info.rows, 1500);
    eng_read_info_free(&info);
    eng_schema_unref(s);
    eng_db_close(db);
    free(c);
}

TEST(test_periodic_durability_keeps_writes_across_reopen)
{
    eng_db *db = open_durable(ENG_DURABLE_PERIODIC, 0);
    ASSERT(eng_db_group_commit(db));
    writer_run r = {db, table(db, "kv"), 0, 100, 0};
    write_rows(&r);
    ASSERT_EQ(r.failures, 0);
    usleep(120 * 1000); /* past the 50 ms period: the committer synced the meta page */
    release_held();
    eng_db_close(db);
    db = open_durable(ENG_DURABLE_PERIODIC, 0);
    ASSERT_EQ(count_kv_rows(db, table(db, "kv")), 100);
    eng_db_close(db);
}
