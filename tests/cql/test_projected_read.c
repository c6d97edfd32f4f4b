/*
 * A projected read (eng_query.project: the engine writes result rows itself, reading rows in
 * their plain stored form without decoding them in full) answers exactly as the same read with
 * every row decoded in full: random histories of inserts with and without TTL and timestamps,
 * updates without a row marker, cell, row, range and partition deletions, collection elements
 * and static columns, each read at several times (TTLs expire), in both directions, with and
 * without limits and per-partition limits, and page by page.
 */
#include <string.h>
#include <time.h>

#include "engine/value/token.h"
#include "exec_env.h"

#define PARTS 3
#define ROWS 12
#define BASE_S 1700000000LL

static int have_n = 1; /* column n exists (it is dropped and added again midway) */

static uint64_t rnd(uint64_t *s, uint64_t n)
{
    return test_rand(s) % n;
}

/* One random write: what a table of a chat application sees, and every kind of deletion. */
static void random_write(env *e, uint64_t *s)
{
    char q[512], using[96] = "";
    int k = (int)rnd(s, PARTS), c = (int)rnd(s, ROWS);
    int64_t ts = (BASE_S * 1000000) + (int64_t)rnd(s, 50) * 1000000;
    switch (rnd(s, 3)) {
    case 0: snprintf(using, sizeof using, " USING TIMESTAMP %lld", (long long)ts); break;
    case 1:
        snprintf(using, sizeof using, " USING TTL %d AND TIMESTAMP %lld", 1 + (int)rnd(s, 40),
                 (long long)ts);
        break;
    default: break; /* the database's clock: newer than every explicit timestamp */
    }
    switch (rnd(s, 12)) {
    case 0:
    case 1:
    case 2:
        snprintf(q, sizeof q,
                 "INSERT INTO ks.t (k, c, a, b, f%s) VALUES (%d, %d, %d, 'v%d', [%d, %d]%s)%s",
                 have_n ? ", n" : "", k, c, (int)rnd(s, 100), (int)rnd(s, 100), (int)rnd(s, 9),
                 (int)rnd(s, 9), have_n ? ", 2" : "", using);
        break;
    case 3:
        snprintf(q, sizeof q, "INSERT INTO ks.t (k, c, b) VALUES (%d, %d, 'only b')%s", k, c,
                 using);
        break;
    case 4:
        snprintf(q, sizeof q, "UPDATE ks.t%s SET a = %d WHERE k = %d AND c = %d", using,
                 (int)rnd(s, 100), k, c);
        break;
    case 5:
        snprintf(q, sizeof q, "UPDATE ks.t%s SET l = l + [%d] WHERE k = %d AND c = %d", using,
                 (int)rnd(s, 9), k, c);
        break;
    case 6:
        snprintf(q, sizeof q, "DELETE %s FROM ks.t WHERE k = %d AND c = %d",
                 rnd(s, 2) ? "a" : "b, f", k, c);
        break;
    case 7: snprintf(q, sizeof q, "DELETE FROM ks.t WHERE k = %d AND c = %d", k, c); break;
    case 8:
        snprintf(q, sizeof q, "DELETE FROM ks.t WHERE k = %d AND c > %d AND c <= %d", k, c,
                 c + (int)rnd(s, 4));
        break;
    case 9:
        if (rnd(s, 4)) /* partition deletions are rarer: they empty everything */
            return random_write(e, s);
        snprintf(q, sizeof q, "DELETE FROM ks.t%s WHERE k = %d",
                 using[0] && strstr(using, "TTL") ? "" : using, k);
        break;
    case 10:
        snprintf(q, sizeof q, "UPDATE ks.t%s SET s = %d WHERE k = %d", using, (int)rnd(s, 100),
                 k);
        break;
    default:
        snprintf(q, sizeof q, "UPDATE ks.t%s SET b = null WHERE k = %d AND c = %d", using, k, c);
        break;
    }
    env_run(e, q);
}

typedef struct read_out {
    eng_buf rows;
    uint32_t n;
    uint32_t pages;
    uint64_t more_trace; /* has_more of every page, one bit each */
} read_out;

/* Reads q page by page (page rows at a time; 0: at once, up to q.limit) into out. */
static void read_all(env *e, eng_query q, uint32_t page, int full, read_out *out)
{
    q.project_out = &out->rows;
    q.project_full = (uint8_t)full;
    eng_buf resume = ENG_BUF_INIT;
    uint32_t left = q.limit; /* what the limit still allows (0: no limit) */
    for (out->pages = 0; out->pages < 1000; out->pages++) {
        eng_read_info info = {0, 0, ENG_BUF_INIT};
        q.limit = page ? (left && left < page ? left : page) : left;
        q.resume = resume.len ? resume.p : NULL;
        q.resume_len = resume.len;
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_read(e->db, &q, NULL, NULL, &info, &err), &err);
        out->n += info.rows;
        out->more_trace = out->more_trace << 1 | info.has_more;
        int limited = left != 0;
        if (left)
            left -= info.rows < left ? info.rows : left;
        eng_buf_reset(&resume);
        eng_buf_put(&resume, info.resume.p, info.resume.len);
        int more = info.has_more;
        eng_read_info_free(&info);
        if (!page || !more || (limited && !left))
            break;
    }
    eng_buf_free(&resume);
}

/* The property over the table `create` makes (ks.t with the columns random_write writes). */
static void projected_reads_as_full_decoding(const char *create)
{
    uint64_t s = test_seed();
    env e;
    env_open(&e);
    have_n = 1;
    env_run(&e, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
                "'replication_factor': 1}");
    env_run(&e, create);
    eng_schema *schema;
    eng_err err;
    eng_err_clear(&err);
    int reads = 0, rounds = test_long() ? 200 : 40;
    for (int round = 0; round < rounds; round++) {
        int writes = 1 + (int)rnd(&s, 25);
        for (int i = 0; i < writes; i++)
            random_write(&e, &s);
        if (round == rounds / 2) { /* cells of a dropped column hide; a new one starts empty */
            env_run(&e, "ALTER TABLE ks.t DROP n");
            have_n = 0;
        }
        if (round == rounds / 2 + 1) {
            env_run(&e, "ALTER TABLE ks.t ADD n int");
            have_n = 1;
        }
        ASSERT_OK_ERR(eng_db_schema(e.db, &schema, &err), &err);
        const eng_table *t = eng_schema_table(schema, "ks", "t");
        ASSERT(t);
        for (int probe = 0; probe < 6; probe++) {
            /* a random projection of the columns, repeats allowed */
            uint16_t cols[8];
            uint16_t n = (uint16_t)(1 + rnd(&s, 8));
            for (uint16_t i = 0; i < n; i++)
                cols[i] = (uint16_t)rnd(&s, t->n_cols);
            int key = (int)rnd(&s, PARTS);
            uint8_t kb[4] = {0, 0, 0, (uint8_t)key};
            eng_val kv = {kb, 4};
            const eng_val *keys[1] = {&kv};
            eng_query q;
            memset(&q, 0, sizeof q);
            q.table = t;
            q.project = cols;
            q.n_project = n;
            q.reversed = (uint8_t)rnd(&s, 2);
            q.static_rows = (uint8_t)rnd(&s, 2);
            /* TTLs count from the database's clock at the write: read up to a minute on */
            q.now_s = (int64_t)time(NULL) + (int64_t)rnd(&s, 60);
            if (rnd(&s, 3)) {
                q.n_keys = 1;
                q.keys = keys;
            } else {
                q.token_lo = ENG_TOKEN_MIN;
                q.token_hi = ENG_TOKEN_MAX;
            }
            if (rnd(&s, 2))
                q.limit = 1 + (uint32_t)rnd(&s, 10);
            if (rnd(&s, 3) == 0)
                q.per_partition_limit = 1 + (uint32_t)rnd(&s, 4);
            q.limit_ends = (uint8_t)(q.limit && rnd(&s, 2));
            uint32_t page = rnd(&s, 2) ? 0 : 1 + (uint32_t)rnd(&s, 4);
            read_out plain = {ENG_BUF_INIT, 0, 0, 0};
            read_out full = {ENG_BUF_INIT, 0, 0, 0};
            read_all(&e, q, page, 0, &plain);
            read_all(&e, q, page, 1, &full);
            ASSERT_EQ(plain.n, full.n);
            ASSERT_EQ(plain.pages, full.pages);
            ASSERT(plain.more_trace == full.more_trace);
            ASSERT_EQ(plain.rows.len, full.rows.len);
            ASSERT(!plain.rows.len || !memcmp(plain.rows.p, full.rows.p, plain.rows.len));
            eng_buf_free(&plain.rows);
            eng_buf_free(&full.rows);
            reads++;
        }
        eng_schema_unref(schema);
    }
    ASSERT(reads > 0);
    env_close(&e);
}

TEST(projected_reads_answer_as_full_decoding)
{
    projected_reads_as_full_decoding("CREATE TABLE ks.t (k int, c int, s int static, a int, "
                                     "b text, f frozen<list<int>>, l list<int>, n int, "
                                     "PRIMARY KEY (k, c))");
}

/* A descending fixed-width first clustering column is taken straight from the key's bytes. */
TEST(projected_reads_of_a_descending_clustering_answer_as_full_decoding)
{
    projected_reads_as_full_decoding("CREATE TABLE ks.t (k int, c bigint, s int static, a int, "
                                     "b text, f frozen<list<int>>, l list<int>, n int, "
                                     "PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)");
}
