/*
 * The messenger (examples/messenger/messenger.h) end to end: sending, the main view, paged
 * history across month buckets under a test clock, read marks, messages of the same
 * microsecond, and unread counts under concurrent senders and readers, as threads of one
 * process and as processes with sessions of their own on one database. Only <cassandra.h>,
 * the data layer and the harness.
 */
#include <cassandra.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cqlutil.h"
#include "driver/driver_test.h"
#include "messenger/messenger.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static char err[1024];

#define MS_OK(call)                                                                                \
    do {                                                                                           \
        err[0] = '\0';                                                                             \
        CassError rc_ = (call);                                                                    \
        if (rc_ != CASS_OK)                                                                        \
            test_fail(__FILE__, __LINE__, "%s: %s", #call, err);                                   \
    } while (0)

/* A clock the test sets: microseconds since the epoch. */
typedef struct test_clock {
    _Atomic int64_t now;
} test_clock;

static int64_t read_clock(void *arg)
{
    return atomic_load(&((test_clock *)arg)->now);
}

/* Microseconds of a UTC date and time. */
static int64_t utc(int y, int mo, int d, int h, int mi, int s)
{
    return test_utc_s(y, mo, d, h, mi, s) * 1000000;
}

/* A session on a temporary database with the messenger's schema, and a handle on it. */
static void open_messenger(conn *cn, ms_db **db, test_clock *clock)
{
    MEMORY_CONNECT(cn);
    MS_OK(ms_create_schema(cn->session, err, sizeof err));
    MS_OK(ms_open(cn->session, clock ? read_clock : NULL, clock, db, err, sizeof err));
}

/* Every message between a and b, newest first, read page by page (page messages each). */
static ms_message *whole_history(ms_db *db, int64_t a, int64_t b, size_t page, size_t *n,
                                 int *pages)
{
    ms_message *all = NULL;
    size_t total = 0;
    ms_cursor cur = MS_CURSOR_START;
    *pages = 0;
    while (!cur.done) {
        ms_message *m;
        size_t k;
        MS_OK(ms_history(db, a, b, &cur, page, &m, &k, err, sizeof err));
        ASSERT(k <= page);
        if (k == 0) {
            ASSERT(cur.done);
            break;
        }
        (*pages)++;
        all = realloc(all, (total + k) * sizeof *all);
        ASSERT(all);
        memcpy(all + total, m, k * sizeof *m);
        free(m); /* the texts moved to all */
        total += k;
    }
    *n = total;
    return all;
}

static int uuid_eq(CassUuid a, CassUuid b)
{
    return a.time_and_version == b.time_and_version && a.clock_seq_and_node == b.clock_seq_and_node;
}

/* The messages from `from` in msgs after mark (all when has_mark is 0). */
static int64_t count_after(const ms_message *msgs, size_t n, int64_t from, int has_mark,
                           CassUuid mark)
{
    int64_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += msgs[i].sender == from && (!has_mark || ms_uuid_cmp(msgs[i].id, mark) > 0);
    return c;
}

static int64_t unread(ms_db *db, int64_t uid, int64_t partner)
{
    int64_t c = -1;
    MS_OK(ms_unread(db, uid, partner, &c, err, sizeof err));
    return c;
}

/* The unread count main view shows for partner (-1 when partner is not in it). */
static int64_t view_unread(ms_db *db, int64_t uid, int64_t partner)
{
    ms_talk *t;
    size_t n;
    MS_OK(ms_main_view(db, uid, &t, &n, err, sizeof err));
    int64_t c = -1;
    for (size_t i = 0; i < n; i++)
        if (t[i].partner == partner)
            c = t[i].unread;
    ms_talks_free(t, n);
    return c;
}

static int64_t row_count(CassSession *s, const char *q)
{
    const CassResult *r = QUERY(s, q);
    int64_t n = (int64_t)cass_result_row_count(r);
    cass_result_free(r);
    return n;
}

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

/* A conversation reads back newest first, with each message's sender, target and text. */
TEST(send_and_read_history)
{
    conn cn;
    ms_db *db;
    open_messenger(&cn, &db, NULL);
    const char *texts[] = {"Hello, how are you?", "I'm fine, thanks", "Good to hear", "And you?"};
    int64_t from[] = {2249, 9111, 2249, 9111};
    CassUuid ids[4];
    for (int i = 0; i < 4; i++)
        MS_OK(ms_send(db, from[i], from[i] == 2249 ? 9111 : 2249, texts[i], &ids[i], err,
                      sizeof err));
    for (int i = 1; i < 4; i++)
        ASSERT(ms_uuid_cmp(ids[i - 1], ids[i]) < 0);

    /* Either user names the same conversation. */
    for (int order = 0; order < 2; order++) {
        ms_cursor cur = MS_CURSOR_START;
        ms_message *m;
        size_t n;
        MS_OK(ms_history(db, order ? 9111 : 2249, order ? 2249 : 9111, &cur, 10, &m, &n, err,
                         sizeof err));
        ASSERT_EQ(n, 4);
        ASSERT(cur.done);
        for (int i = 0; i < 4; i++) {
            ASSERT(uuid_eq(m[i].id, ids[3 - i]));
            ASSERT_STR_EQ(m[i].text, texts[3 - i]);
            ASSERT_EQ(m[i].sender, from[3 - i]);
            ASSERT_EQ(m[i].target, from[3 - i] == 2249 ? 9111 : 2249);
            ASSERT_EQ(m[i].micros, cu_uuid_micros(ids[3 - i]));
        }
        ms_messages_free(m, n);
    }

    /* Pages of two within one month, then the end. */
    ms_cursor cur = MS_CURSOR_START;
    ms_message *m;
    size_t n;
    MS_OK(ms_history(db, 2249, 9111, &cur, 2, &m, &n, err, sizeof err));
    ASSERT_EQ(n, 2);
    ASSERT_STR_EQ(m[0].text, "And you?");
    ms_messages_free(m, n);
    MS_OK(ms_history(db, 2249, 9111, &cur, 2, &m, &n, err, sizeof err));
    ASSERT_EQ(n, 2);
    ASSERT_STR_EQ(m[1].text, "Hello, how are you?");
    ms_messages_free(m, n);
    if (!cur.done) {
        MS_OK(ms_history(db, 2249, 9111, &cur, 2, &m, &n, err, sizeof err));
        ASSERT_EQ(n, 0);
        ASSERT(m == NULL);
    }
    ASSERT(cur.done);

    /* A conversation that never happened is empty. */
    ms_cursor none = MS_CURSOR_START;
    MS_OK(ms_history(db, 1, 2, &none, 5, &m, &n, err, sizeof err));
    ASSERT_EQ(n, 0);
    ASSERT(none.done);
    ms_close(db);
    conn_close(&cn);
}

/* The main view lists partners, the most recent conversation first, with the last message
   either way and the unread count of the partner's messages only. */
TEST(main_view_orders_partners_and_counts_unread)
{
    conn cn;
    ms_db *db;
    test_clock clock = {0};
    atomic_store(&clock.now, utc(2026, 3, 1, 12, 0, 0));
    open_messenger(&cn, &db, &clock);
    /* 1 talks with 2 (two unread), 3 (1 replied last: none unread) and 4 (one unread). */
    MS_OK(ms_send(db, 2, 1, "from 2, first", NULL, err, sizeof err));
    atomic_fetch_add(&clock.now, 1000000);
    MS_OK(ms_send(db, 3, 1, "from 3", NULL, err, sizeof err));
    atomic_fetch_add(&clock.now, 1000000);
    MS_OK(ms_send(db, 2, 1, "from 2, second", NULL, err, sizeof err));
    atomic_fetch_add(&clock.now, 1000000);
    MS_OK(ms_send(db, 4, 1, "from 4", NULL, err, sizeof err));
    atomic_fetch_add(&clock.now, 1000000);
    MS_OK(ms_mark_read(db, 1, 3, NULL, err, sizeof err));
    MS_OK(ms_send(db, 1, 3, "reply to 3", NULL, err, sizeof err));

    ms_talk *t;
    size_t n;
    MS_OK(ms_main_view(db, 1, &t, &n, err, sizeof err));
    ASSERT_EQ(n, 3);
    ASSERT_EQ(t[0].partner, 3);
    ASSERT_STR_EQ(t[0].last_text, "reply to 3");
    ASSERT_EQ(t[0].last_sender, 1);
    ASSERT_EQ(t[0].unread, 0);
    ASSERT_EQ(t[1].partner, 4);
    ASSERT_STR_EQ(t[1].last_text, "from 4");
    ASSERT_EQ(t[1].unread, 1);
    ASSERT_EQ(t[2].partner, 2);
    ASSERT_STR_EQ(t[2].last_text, "from 2, second");
    ASSERT_EQ(t[2].last_sender, 2);
    ASSERT_EQ(t[2].unread, 2);
    ASSERT_EQ(t[2].last_micros, utc(2026, 3, 1, 12, 0, 2));
    ms_talks_free(t, n);

    /* The other side: 2 sees 1 with nothing unread (2 sent both). */
    MS_OK(ms_main_view(db, 2, &t, &n, err, sizeof err));
    ASSERT_EQ(n, 1);
    ASSERT_EQ(t[0].partner, 1);
    ASSERT_EQ(t[0].unread, 0);
    ASSERT_STR_EQ(t[0].last_text, "from 2, second");
    ms_talks_free(t, n);
    /* 3 sees the reply, unread. */
    ASSERT_EQ(view_unread(db, 3, 1), 1);

    /* A user without conversations has an empty view. */
    MS_OK(ms_main_view(db, 42, &t, &n, err, sizeof err));
    ASSERT_EQ(n, 0);
    ASSERT(t == NULL);
    ms_close(db);
    conn_close(&cn);
}

/* The newest message is the last one in the main view even when it arrives before an older
   one (two servers whose clocks disagree): last-write-wins on the message's own time. */
TEST(main_view_last_message_is_the_newest_whatever_the_arrival_order)
{
    conn cn;
    ms_db *late, *early;
    test_clock c_late = {0}, c_early = {0};
    atomic_store(&c_late.now, utc(2026, 5, 10, 9, 0, 5));
    atomic_store(&c_early.now, utc(2026, 5, 10, 9, 0, 1));
    open_messenger(&cn, &late, &c_late);
    MS_OK(ms_open(cn.session, read_clock, &c_early, &early, err, sizeof err));
    MS_OK(ms_send(late, 7, 8, "newer", NULL, err, sizeof err));
    MS_OK(ms_send(early, 8, 7, "older, arrives later", NULL, err, sizeof err));
    for (int uid = 7; uid <= 8; uid++) {
        ms_talk *t;
        size_t n;
        MS_OK(ms_main_view(late, uid, &t, &n, err, sizeof err));
        ASSERT_EQ(n, 1);
        ASSERT_STR_EQ(t[0].last_text, "newer");
        ASSERT_EQ(t[0].last_sender, 7);
        ms_talks_free(t, n);
    }
    /* History is in message time, not arrival order. */
    size_t n;
    int pages;
    ms_message *m = whole_history(late, 7, 8, 10, &n, &pages);
    ASSERT_EQ(n, 2);
    ASSERT_STR_EQ(m[0].text, "newer");
    ASSERT_STR_EQ(m[1].text, "older, arrives later");
    ms_messages_free(m, n);
    ms_close(early);
    ms_close(late);
    conn_close(&cn);
}

/* Marking read clears the partner's unread count; messages after the mark count again; a
   stale mark (an older message) never moves the mark back. */
TEST(mark_read_moves_forward_only)
{
    conn cn;
    ms_db *db;
    open_messenger(&cn, &db, NULL);
    CassUuid ids[5];
    /* Nothing sent: marking is a no-op and the count is 0. */
    MS_OK(ms_mark_read(db, 1, 2, NULL, err, sizeof err));
    ASSERT_EQ(unread(db, 1, 2), 0);
    int has;
    CassUuid mark;
    MS_OK(ms_read_mark(db, 1, 2, &mark, &has, err, sizeof err));
    ASSERT_EQ(has, 0);

    for (int i = 0; i < 3; i++)
        MS_OK(ms_send(db, 2, 1, "m", &ids[i], err, sizeof err));
    ASSERT_EQ(unread(db, 1, 2), 3);
    ASSERT_EQ(unread(db, 2, 1), 0);
    MS_OK(ms_mark_read(db, 1, 2, &ids[1], err, sizeof err)); /* seen up to the second */
    ASSERT_EQ(unread(db, 1, 2), 1);
    ASSERT_EQ(view_unread(db, 1, 2), 1);
    MS_OK(ms_mark_read(db, 1, 2, NULL, err, sizeof err)); /* up to the newest */
    ASSERT_EQ(unread(db, 1, 2), 0);
    ASSERT_EQ(view_unread(db, 1, 2), 0);
    MS_OK(ms_read_mark(db, 1, 2, &mark, &has, err, sizeof err));
    ASSERT_EQ(has, 1);
    ASSERT(uuid_eq(mark, ids[2]));

    /* A mark that arrives late (a second device still showing older messages) loses. */
    MS_OK(ms_mark_read(db, 1, 2, &ids[0], err, sizeof err));
    MS_OK(ms_read_mark(db, 1, 2, &mark, &has, err, sizeof err));
    ASSERT(uuid_eq(mark, ids[2]));
    ASSERT_EQ(unread(db, 1, 2), 0);

    /* 1's own messages never count as unread for 1. */
    MS_OK(ms_send(db, 1, 2, "reply", &ids[3], err, sizeof err));
    ASSERT_EQ(unread(db, 1, 2), 0);
    ASSERT_EQ(unread(db, 2, 1), 1);
    MS_OK(ms_send(db, 2, 1, "again", &ids[4], err, sizeof err));
    ASSERT_EQ(unread(db, 1, 2), 1);
    ms_close(db);
    conn_close(&cn);
}

/* Bad arguments are refused before anything is written. */
TEST(bad_arguments_are_refused)
{
    conn cn;
    ms_db *db;
    open_messenger(&cn, &db, NULL);
    ASSERT_EQ(ms_send(db, 5, 5, "me", NULL, err, sizeof err), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT(strstr(err, "themselves"));
    ASSERT_EQ(ms_send(db, 5, 6, NULL, NULL, err, sizeof err), CASS_ERROR_LIB_BAD_PARAMS);
    ms_cursor cur = MS_CURSOR_START;
    ms_message *m;
    size_t n;
    ASSERT_EQ(ms_history(db, 5, 6, &cur, 0, &m, &n, err, sizeof err), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(ms_history(db, 5, 6, &cur, MS_HISTORY_MAX + 1, &m, &n, err, sizeof err),
              CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(ms_open(NULL, NULL, NULL, &db, err, sizeof err), CASS_ERROR_LIB_BAD_PARAMS);
    ASSERT_EQ(row_count(cn.session, "SELECT * FROM messenger.talk_messages"), 0);
    ASSERT_EQ(row_count(cn.session, "SELECT * FROM messenger.talk_last_messages"), 0);
    ms_close(db);
    conn_close(&cn);
}

/* ------------------------------------------------------------------------ */
/* Month buckets                                                            */
/* ------------------------------------------------------------------------ */

/* ms_uuid_cmp is the order of a timeuuid clustering column: time first, then the low bytes as
   signed bytes (0x81 before 0x01), not the unsigned byte order a write timestamp tie uses. */
TEST(uuid_cmp_is_the_timeuuid_order)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    RUN(cn.session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
                    "'replication_factor': 1}");
    RUN(cn.session, "CREATE TABLE ks.t (k int, u timeuuid, PRIMARY KEY (k, u))");
    const char *ids[] = {
        "10000000-0000-1000-8001-000000000000", "10000000-0000-1000-8081-000000000000",
        "10000000-0000-1000-80ff-000000000000", "10000000-0000-1000-8000-7f0000000000",
        "10000000-0000-1000-8000-800000000000", "10000000-0000-1000-bf00-000000000000",
        "10000000-0000-1000-8000-000000000001", "10000001-0000-1000-8000-000000000000",
        "00000000-0001-1000-8000-000000000000", "00000000-0000-1001-8000-000000000000",
    };
    size_t n = sizeof ids / sizeof ids[0];
    for (size_t i = 0; i < n; i++) {
        char q[200];
        snprintf(q, sizeof q, "INSERT INTO ks.t (k, u) VALUES (1, %s)", ids[i]);
        RUN(cn.session, q);
    }
    const CassResult *r = QUERY(cn.session, "SELECT u FROM ks.t WHERE k = 1");
    ASSERT_EQ(cass_result_row_count(r), n);
    CassIterator *it = cass_iterator_from_result(r);
    CassUuid prev = {0, 0};
    for (size_t i = 0; cass_iterator_next(it); i++) {
        CassUuid u;
        ASSERT_EQ(cass_value_get_uuid(cass_row_get_column(cass_iterator_get_row(it), 0), &u),
                  CASS_OK);
        if (i > 0)
            ASSERT(ms_uuid_cmp(prev, u) < 0);
        ASSERT_EQ(ms_uuid_cmp(u, u), 0);
        prev = u;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    conn_close(&cn);
}

TEST(bucket_of_is_the_utc_month)
{
    ASSERT_EQ(ms_bucket_of(utc(2010, 9, 25, 12, 0, 0)), 201009);
    ASSERT_EQ(ms_bucket_of(utc(2026, 1, 1, 0, 0, 0)), 202601);
    ASSERT_EQ(ms_bucket_of(utc(2025, 12, 31, 23, 59, 59) + 999999), 202512);
    ASSERT_EQ(ms_bucket_of(0), 197001);
    ASSERT_EQ(ms_bucket_of(-1), 196912);
}

/* Months of messages with long empty stretches between them: history pages through all of
   them newest first, pages span months, and only the months with messages are recorded (one
   bucket row each), so the empty years cost nothing. */
TEST(history_pages_across_months)
{
    conn cn;
    ms_db *db;
    test_clock clock = {0};
    open_messenger(&cn, &db, &clock);
    /* 2010-09 (3), 2010-10 (1), 2011-02 (4), then nothing for fifteen years, 2026-11 (5). */
    struct {
        int y, mo, count;
    } months[] = {{2010, 9, 3}, {2010, 10, 1}, {2011, 2, 4}, {2026, 11, 5}};
    int total = 0;
    CassUuid ids[13];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < months[i].count; k++) {
            atomic_store(&clock.now, utc(months[i].y, months[i].mo, 1 + k * 7, 10, k, 0));
            char text[32];
            snprintf(text, sizeof text, "m%d", total);
            MS_OK(ms_send(db, total % 2 ? 100 : 200, total % 2 ? 200 : 100, text, &ids[total], err,
                          sizeof err));
            ASSERT_EQ(ms_bucket_of(cu_uuid_micros(ids[total])), months[i].y * 100 + months[i].mo);
            total++;
        }
    ASSERT_EQ(row_count(cn.session, "SELECT * FROM messenger.talk_buckets"), 4);
    ASSERT_EQ(row_count(cn.session, "SELECT * FROM messenger.talk_messages WHERE user_lo = 100 "
                                    "AND user_hi = 200 AND bucket = 201102"),
              4);

    for (size_t page = 1; page <= 14; page++) {
        size_t n;
        int pages;
        ms_message *m = whole_history(db, 200, 100, page, &n, &pages);
        ASSERT_EQ(n, total);
        ASSERT_EQ(pages, (total + (int)page - 1) / (int)page);
        for (int i = 0; i < total; i++) {
            char text[32];
            snprintf(text, sizeof text, "m%d", total - 1 - i);
            ASSERT_STR_EQ(m[i].text, text);
            ASSERT(uuid_eq(m[i].id, ids[total - 1 - i]));
        }
        ms_messages_free(m, n);
    }

    /* A page of 5 ends exactly at the end of 2026-11; the next one starts in 2011-02. */
    ms_cursor cur = MS_CURSOR_START;
    ms_message *m;
    size_t n;
    MS_OK(ms_history(db, 100, 200, &cur, 5, &m, &n, err, sizeof err));
    ASSERT_EQ(n, 5);
    ASSERT(!cur.done);
    ms_messages_free(m, n);
    MS_OK(ms_history(db, 100, 200, &cur, 5, &m, &n, err, sizeof err));
    ASSERT_EQ(n, 5);
    ASSERT_EQ(ms_bucket_of(m[0].micros), 201102);
    ASSERT_EQ(ms_bucket_of(m[4].micros), 201010);
    ms_messages_free(m, n);
    ms_close(db);
    conn_close(&cn);
}

/* Unread counts span months: a mark in one month, messages in the next ones. */
TEST(unread_counts_span_months)
{
    conn cn;
    ms_db *db;
    test_clock clock = {0};
    open_messenger(&cn, &db, &clock);
    CassUuid id;
    atomic_store(&clock.now, utc(2025, 11, 30, 23, 59, 0));
    MS_OK(ms_send(db, 2, 1, "november", NULL, err, sizeof err));
    MS_OK(ms_send(db, 2, 1, "november, read", &id, err, sizeof err));
    MS_OK(ms_mark_read(db, 1, 2, &id, err, sizeof err));
    MS_OK(ms_send(db, 2, 1, "november, unread", NULL, err, sizeof err));
    atomic_store(&clock.now, utc(2025, 12, 15, 0, 0, 0));
    MS_OK(ms_send(db, 2, 1, "december", NULL, err, sizeof err));
    MS_OK(ms_send(db, 1, 2, "december, from 1", NULL, err, sizeof err));
    atomic_store(&clock.now, utc(2026, 4, 1, 0, 0, 0));
    MS_OK(ms_send(db, 2, 1, "april", NULL, err, sizeof err));
    MS_OK(ms_send(db, 2, 1, "april again", NULL, err, sizeof err));
    ASSERT_EQ(unread(db, 1, 2), 4);
    ASSERT_EQ(view_unread(db, 1, 2), 4);
    ASSERT_EQ(unread(db, 2, 1), 1); /* 2 never marked: all of 1's messages */
    MS_OK(ms_mark_read(db, 1, 2, NULL, err, sizeof err));
    ASSERT_EQ(unread(db, 1, 2), 0);
    ms_close(db);
    conn_close(&cn);
}

/* ------------------------------------------------------------------------ */
/* Messages of the same microsecond                                         */
/* ------------------------------------------------------------------------ */

/* A clock that stands still: messages of one handle, and of two handles (two servers of the
   same application) sending at the very same microsecond, all stay, with distinct ids. */
TEST(same_microsecond_messages_both_kept)
{
    conn cn;
    ms_db *a, *b;
    test_clock clock = {0};
    int64_t t = utc(2010, 9, 25, 18, 30, 0) + 123456;
    atomic_store(&clock.now, t);
    open_messenger(&cn, &a, &clock);
    MS_OK(ms_open(cn.session, read_clock, &clock, &b, err, sizeof err));
    CassUuid ia, ib, ia2;
    MS_OK(ms_send(a, 2249, 9111, "from 2249", &ia, err, sizeof err));
    MS_OK(ms_send(b, 9111, 2249, "from 9111", &ib, err, sizeof err));
    ASSERT_EQ(cu_uuid_micros(ia), t);
    ASSERT_EQ(cu_uuid_micros(ib), t); /* the same microsecond, different ids */
    ASSERT(!uuid_eq(ia, ib));
    /* Bytes 9-15 keep their top bit clear, so that signed (timeuuid) and unsigned (write
       timestamp tie) comparisons of ids of the same time agree. */
    ASSERT_EQ(ia.clock_seq_and_node & 0x0080808080808080ULL, 0);
    ASSERT_EQ(ib.clock_seq_and_node & 0x0080808080808080ULL, 0);
    /* Of two messages (and two read marks) of the same microsecond, the later id is kept as
       the last message and as the mark, whichever arrives last. */
    CassUuid hi = ms_uuid_cmp(ia, ib) > 0 ? ia : ib, lo = ms_uuid_cmp(ia, ib) > 0 ? ib : ia;
    for (int uid = 2249; uid <= 9111; uid += 9111 - 2249) {
        ms_talk *v;
        size_t k;
        MS_OK(ms_main_view(a, uid, &v, &k, err, sizeof err));
        ASSERT_EQ(k, 1);
        ASSERT(uuid_eq(v[0].last_id, hi));
        ms_talks_free(v, k);
    }
    CassUuid mark;
    int has;
    MS_OK(ms_mark_read(a, 2249, 9111, &lo, err, sizeof err));
    MS_OK(ms_mark_read(a, 2249, 9111, &hi, err, sizeof err));
    MS_OK(ms_read_mark(a, 2249, 9111, &mark, &has, err, sizeof err));
    ASSERT(has && uuid_eq(mark, hi));
    MS_OK(ms_mark_read(b, 9111, 2249, &hi, err, sizeof err));
    MS_OK(ms_mark_read(b, 9111, 2249, &lo, err, sizeof err));
    MS_OK(ms_read_mark(b, 9111, 2249, &mark, &has, err, sizeof err));
    ASSERT(has && uuid_eq(mark, hi));
    /* A handle's next message at the same clock reading takes the next microsecond. */
    MS_OK(ms_send(a, 2249, 9111, "again from 2249", &ia2, err, sizeof err));
    ASSERT_EQ(cu_uuid_micros(ia2), t + 1);

    size_t n;
    int pages;
    ms_message *m = whole_history(a, 2249, 9111, 10, &n, &pages);
    ASSERT_EQ(n, 3);
    ASSERT_STR_EQ(m[0].text, "again from 2249");
    int seen_a = 0, seen_b = 0;
    for (size_t i = 1; i < 3; i++) {
        seen_a += strcmp(m[i].text, "from 2249") == 0 && m[i].sender == 2249;
        seen_b += strcmp(m[i].text, "from 9111") == 0 && m[i].sender == 9111;
    }
    ASSERT_EQ(seen_a, 1);
    ASSERT_EQ(seen_b, 1);
    ms_messages_free(m, n);
    /* Both read up to hi, which covers ia and ib: only "again from 2249" is unread. */
    ASSERT_EQ(unread(a, 2249, 9111), 0);
    ASSERT_EQ(unread(a, 9111, 2249), 1);
    ms_close(b);
    ms_close(a);
    conn_close(&cn);
}

/* ------------------------------------------------------------------------ */
/* Concurrency                                                              */
/* ------------------------------------------------------------------------ */

#define READER 1
#define PARTNER 2
#define MAX_SENT 16384

/*
 * What the concurrent workers share (in shared memory, for processes): every id sent, the
 * newest mark the reader made, and the first failure.
 */
typedef struct shared {
    atomic_int go;
    atomic_int reader_ready;
    atomic_int senders_done;
    atomic_int n_sent;
    atomic_int marks;
    atomic_int failed;
    CassUuid sent[MAX_SENT];
    int64_t sent_from[MAX_SENT];
    CassUuid max_mark;
    int has_max_mark;
    char msg[1024];
} shared;

static shared *sh;
static int in_child;

static void worker_fail(const char *file, int line, const char *what, const char *detail)
{
    int expect = 0;
    if (atomic_compare_exchange_strong(&sh->failed, &expect, 1))
        snprintf(sh->msg, sizeof sh->msg, "%s:%d: %s: %s", file, line, what, detail);
    if (in_child)
        _exit(3);
    test_fail(file, line, "%s: %s", what, detail);
}

#define WK_OK(call, e)                                                                             \
    do {                                                                                           \
        if ((call) != CASS_OK)                                                                     \
            worker_fail(__FILE__, __LINE__, #call, (e));                                           \
    } while (0)
#define W_CHECK(expr)                                                                              \
    do {                                                                                           \
        if (!(expr))                                                                               \
            worker_fail(__FILE__, __LINE__, #expr, "false");                                       \
    } while (0)

/* Sends count messages: from PARTNER to READER, or (reply) the other way. */
static void send_messages(ms_db *db, int count, int reply, int worker)
{
    char e[512], text[64];
    for (int i = 0; i < count; i++) {
        CassUuid id;
        snprintf(text, sizeof text, "w%d #%d", worker, i);
        int64_t from = reply ? READER : PARTNER;
        WK_OK(ms_send(db, from, reply ? PARTNER : READER, text, &id, e, sizeof e), e);
        int k = atomic_fetch_add(&sh->n_sent, 1);
        W_CHECK(k < MAX_SENT);
        sh->sent[k] = id;
        sh->sent_from[k] = from;
    }
}

/*
 * The reader: while senders run, reads the newest page of the conversation and marks read up
 * to the newest message of PARTNER in it, as a chat window does; every other round it also
 * replays a stale mark (an older message), which must change nothing. After each mark the
 * stored mark is the newest one made.
 */
static void read_and_mark(ms_db *db)
{
    char e[512];
    /* Three more rounds once the senders are done: the last marks see every message. */
    for (int round = 0, after = 0; after < 3; round++) {
        after += atomic_load(&sh->senders_done) != 0;
        /* The newest page holding a message of PARTNER (the reader's own replies may fill
           the newest ones). */
        ms_cursor cur = MS_CURSOR_START;
        ms_message *m = NULL;
        size_t n = 0;
        const ms_message *newest = NULL, *oldest = NULL;
        while (!newest && !cur.done) {
            ms_messages_free(m, n);
            WK_OK(ms_history(db, READER, PARTNER, &cur, 8, &m, &n, e, sizeof e), e);
            for (size_t i = 0; i < n; i++)
                if (m[i].sender == PARTNER) {
                    if (!newest)
                        newest = &m[i];
                    oldest = &m[i];
                }
        }
        if (newest) {
            WK_OK(ms_mark_read(db, READER, PARTNER, &newest->id, e, sizeof e), e);
            if (!sh->has_max_mark || ms_uuid_cmp(newest->id, sh->max_mark) > 0) {
                sh->max_mark = newest->id;
                sh->has_max_mark = 1;
            }
            atomic_fetch_add(&sh->marks, 1);
            if (round % 2 && oldest != newest)
                WK_OK(ms_mark_read(db, READER, PARTNER, &oldest->id, e, sizeof e), e);
            CassUuid stored;
            int has;
            WK_OK(ms_read_mark(db, READER, PARTNER, &stored, &has, e, sizeof e), e);
            W_CHECK(has && uuid_eq(stored, sh->max_mark));
            int64_t c;
            WK_OK(ms_unread(db, READER, PARTNER, &c, e, sizeof e), e);
            W_CHECK(c >= 0);
        }
        ms_messages_free(m, n);
    }
}

/*
 * The end state: every message sent is in the history exactly once, the stored mark is the
 * newest mark made, and the unread count (ms_unread and the main view) is the number of
 * PARTNER's messages after it. Then marking everything read leaves none.
 */
static void check_end_state(ms_db *db, int expect_sent)
{
    ASSERT_EQ(atomic_load(&sh->failed), 0);
    int sent = atomic_load(&sh->n_sent);
    ASSERT_EQ(sent, expect_sent);
    size_t n;
    int pages;
    ms_message *m = whole_history(db, PARTNER, READER, 37, &n, &pages);
    ASSERT_EQ(n, sent);
    for (int i = 0; i < sent; i++) {
        int found = 0;
        for (size_t k = 0; k < n; k++)
            if (uuid_eq(m[k].id, sh->sent[i])) {
                found++;
                ASSERT_EQ(m[k].sender, sh->sent_from[i]);
            }
        ASSERT_EQ(found, 1);
    }
    for (size_t k = 1; k < n; k++)
        ASSERT(ms_uuid_cmp(m[k - 1].id, m[k].id) > 0);
    ASSERT(atomic_load(&sh->marks) > 0);
    CassUuid stored;
    int has;
    MS_OK(ms_read_mark(db, READER, PARTNER, &stored, &has, err, sizeof err));
    ASSERT(has);
    ASSERT(uuid_eq(stored, sh->max_mark));
    int64_t want = count_after(m, n, PARTNER, 1, stored);
    ASSERT_EQ(unread(db, READER, PARTNER), want);
    ASSERT_EQ(view_unread(db, READER, PARTNER), want);
    /* The partner never marked: every message of the reader is unread for it. */
    ASSERT_EQ(unread(db, PARTNER, READER), count_after(m, n, READER, 0, stored));
    ms_messages_free(m, n);
    MS_OK(ms_mark_read(db, READER, PARTNER, NULL, err, sizeof err));
    ASSERT_EQ(unread(db, READER, PARTNER), 0);
}

static shared *new_shared(void)
{
    shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ASSERT(s != MAP_FAILED);
    return s;
}

typedef struct thread_arg {
    ms_db *db;
    int worker;
    int count;
} thread_arg;

#define THREAD_SENDERS 4

static void *sender_thread(void *p)
{
    thread_arg *a = p;
    /* Worker 0 is the reader answering: its messages never count as unread for it. */
    send_messages(a->db, a->count, a->worker == 0, a->worker);
    return NULL;
}

static void *reader_thread(void *p)
{
    read_and_mark(((thread_arg *)p)->db);
    return NULL;
}

/* Senders and a reader as threads of one process, on one session: senders share one handle,
   the reader has its own (a second device of the application). */
TEST(unread_counts_with_concurrent_threads)
{
    sh = new_shared();
    conn cn;
    ms_db *db, *rdb;
    open_messenger(&cn, &db, NULL);
    MS_OK(ms_open(cn.session, NULL, NULL, &rdb, err, sizeof err));
    int per = test_long() ? 2000 : 200;
    pthread_t senders[THREAD_SENDERS], reader;
    thread_arg args[THREAD_SENDERS], rarg = {rdb, 99, 0};
    ASSERT_EQ(pthread_create(&reader, NULL, reader_thread, &rarg), 0);
    for (int i = 0; i < THREAD_SENDERS; i++) {
        args[i] = (thread_arg){db, i, per};
        ASSERT_EQ(pthread_create(&senders[i], NULL, sender_thread, &args[i]), 0);
    }
    for (int i = 0; i < THREAD_SENDERS; i++)
        ASSERT_EQ(pthread_join(senders[i], NULL), 0);
    atomic_store(&sh->senders_done, 1);
    ASSERT_EQ(pthread_join(reader, NULL), 0);
    check_end_state(db, THREAD_SENDERS * per);
    ms_close(rdb);
    ms_close(db);
    conn_close(&cn);
}

#define PROC_SENDERS 3

/* A forked worker: waits for the schema, connects a session of its own to uri, works, and
   leaves by _exit (never through the harness). */
static void child_main(const char *uri, int worker, int count)
{
    in_child = 1;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    while (!atomic_load(&sh->go))
        usleep(1000);
    char e[512];
    CassCluster *cluster;
    CassSession *session;
    cass_log_set_level(CASS_LOG_ERROR);
    WK_OK(cu_connect(uri, &cluster, &session, e, sizeof e), e);
    ms_db *db;
    WK_OK(ms_open(session, NULL, NULL, &db, e, sizeof e), e);
    if (worker < 0) {
        atomic_store(&sh->reader_ready, 1);
        read_and_mark(db);
    } else {
        /* Senders start when the reader can read: the two interleave from the first message. */
        while (!atomic_load(&sh->reader_ready))
            usleep(1000);
        send_messages(db, count, worker == 0, worker);
    }
    ms_close(db);
    cu_disconnect(cluster, session);
    _exit(0);
}

/* Senders and a reader as processes, each with its own session on one database directory
   (remote: one server for the directory, each process a client of it). */
TEST(unread_counts_with_concurrent_processes)
{
    sh = new_shared();
    /* Commits need not reach the disk for this: the processes share the directory. */
    ASSERT_EQ(setenv("CASSETTE_DURABILITY", "none", 1), 0);
    char contact[600], uri[700];
    snprintf(contact, sizeof contact, "file:%s/db", test_tmpdir());
    test_database_uri(contact, uri, sizeof uri);
    int per = test_long() ? 1000 : 100;
    /* Fork before this process opens the database: a child must not inherit an open one. */
    pid_t senders[PROC_SENDERS], reader;
    for (int i = 0; i < PROC_SENDERS; i++) {
        senders[i] = fork();
        ASSERT(senders[i] >= 0);
        if (senders[i] == 0)
            child_main(uri, i, per);
    }
    reader = fork();
    ASSERT(reader >= 0);
    if (reader == 0)
        child_main(uri, -1, 0);

    CassCluster *cluster = cass_cluster_new();
    ASSERT_EQ(test_database(cluster, contact), CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, cluster);
    MS_OK(ms_create_schema(cn.session, err, sizeof err));
    atomic_store(&sh->go, 1);

    int status;
    for (int i = 0; i < PROC_SENDERS; i++) {
        ASSERT_EQ(waitpid(senders[i], &status, 0), senders[i]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            test_fail(__FILE__, __LINE__, "sender %d: status 0x%x: %s", i, status, sh->msg);
    }
    atomic_store(&sh->senders_done, 1);
    ASSERT_EQ(waitpid(reader, &status, 0), reader);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        test_fail(__FILE__, __LINE__, "reader: status 0x%x: %s", status, sh->msg);

    ms_db *db;
    MS_OK(ms_open(cn.session, NULL, NULL, &db, err, sizeof err));
    check_end_state(db, PROC_SENDERS * per);
    ms_close(db);
    conn_close(&cn);
}
