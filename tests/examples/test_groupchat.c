/*
 * Group chat retrieval (examples/groupchat): joins, leaves and rejoins recorded as sets of
 * instants, pages of messages that honour every presence interval across quarter buckets,
 * the boundary rule (a message of the joining millisecond is visible, one of the leaving
 * millisecond is not), and a property test that pages random multi-year histories with every
 * page size from 1 to 50 against a brute-force filter of all messages.
 *
 * The data layer takes its time from a test clock (a variable the tests move), so histories
 * span years in a moment.
 */
#include <libgen.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/driver_test.h"
#include "groupchat/groupchat.h"

#define CONV "team"

static int64_t clock_of(void *arg)
{
    return *(const int64_t *)arg;
}

/* Milliseconds since the epoch of a UTC date and time. */
static int64_t utc_ms(int y, int mo, int d, int h, int mi, int s)
{
    return test_utc_s(y, mo, d, h, mi, s) * 1000;
}

/* A database with the schema and a data layer on the clock *now. */
typedef struct fixture {
    conn cn;
    gc_chat *chat;
    int64_t now;
} fixture;

static void fixture_open(fixture *fx, int64_t start)
{
    char err[512] = "";
    fx->now = start;
    MEMORY_CONNECT(&fx->cn);
    if (gc_create_schema(fx->cn.session, err, sizeof err) != GC_OK)
        test_fail(__FILE__, __LINE__, "schema: %s", err);
    if (gc_open(fx->cn.session, clock_of, &fx->now, &fx->chat, err, sizeof err) != GC_OK)
        test_fail(__FILE__, __LINE__, "open: %s", err);
}

static void fixture_close(fixture *fx)
{
    gc_close(fx->chat);
    conn_close(&fx->cn);
}

/* Calls that must succeed, failing the test with the data layer's text. */
#define OK(call)                                                                                   \
    do {                                                                                           \
        char err_[512] = "";                                                                       \
        (void)err_;                                                                                \
        gc_status st_ = (call);                                                                    \
        if (st_ != GC_OK)                                                                          \
            test_fail(__FILE__, __LINE__, "%s: %s", #call, gc_status_text(st_));                   \
    } while (0)

static int64_t join(fixture *fx, const char *user)
{
    int64_t at = 0;
    char err[512] = "";
    gc_status st = gc_join(fx->chat, user, CONV, &at, err, sizeof err);
    if (st != GC_OK)
        test_fail(__FILE__, __LINE__, "join %s: %s (%s)", user, gc_status_text(st), err);
    return at;
}

static int64_t leave(fixture *fx, const char *user)
{
    int64_t at = 0;
    char err[512] = "";
    gc_status st = gc_leave(fx->chat, user, CONV, &at, err, sizeof err);
    if (st != GC_OK)
        test_fail(__FILE__, __LINE__, "leave %s: %s (%s)", user, gc_status_text(st), err);
    return at;
}

static CassUuid send_msg(fixture *fx, const char *user, const char *body)
{
    CassUuid id;
    char err[512] = "";
    gc_status st = gc_send(fx->chat, user, CONV, body, &id, err, sizeof err);
    if (st != GC_OK)
        test_fail(__FILE__, __LINE__, "send %s: %s (%s)", user, gc_status_text(st), err);
    return id;
}

static int uuid_eq(CassUuid a, CassUuid b)
{
    return a.time_and_version == b.time_and_version && a.clock_seq_and_node == b.clock_seq_and_node;
}

/* Reads every page of user's view with page size ps; the bodies, newest first, joined by
 * spaces into out. Returns the number of pages. */
static int read_all(fixture *fx, const char *user, int ps, char *out, size_t cap)
{
    char cursor[GC_CURSOR_SIZE] = "";
    int pages = 0;
    out[0] = '\0';
    for (;;) {
        gc_page page;
        char err[512] = "";
        gc_status st = gc_read_page(fx->chat, user, CONV, cursor, ps, &page, err, sizeof err);
        if (st != GC_OK)
            test_fail(__FILE__, __LINE__, "read %s: %s (%s)", user, gc_status_text(st), err);
        pages++;
        for (size_t i = 0; i < page.count; i++) {
            size_t len = strlen(out);
            snprintf(out + len, cap - len, "%s%s", len ? " " : "", page.messages[i].body);
        }
        snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
        gc_page_free(&page);
        if (!cursor[0])
            return pages;
        ASSERT(pages < 10000);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Scenarios                                                                                  */
/* ------------------------------------------------------------------------------------------ */

TEST(bucket_is_the_calendar_quarter)
{
    ASSERT_EQ(gc_bucket_of(utc_ms(2024, 1, 1, 0, 0, 0)), 2024 * 4);
    ASSERT_EQ(gc_bucket_of(utc_ms(2024, 4, 1, 0, 0, 0) - 1), 2024 * 4);
    ASSERT_EQ(gc_bucket_of(utc_ms(2024, 4, 1, 0, 0, 0)), 2024 * 4 + 1);
    ASSERT_EQ(gc_bucket_of(utc_ms(2024, 9, 30, 23, 59, 59)), 2024 * 4 + 2);
    ASSERT_EQ(gc_bucket_of(utc_ms(2024, 12, 31, 23, 59, 59) + 999), 2024 * 4 + 3);
    ASSERT_EQ(gc_bucket_of(utc_ms(2025, 1, 1, 0, 0, 0)), 2025 * 4);
    /* the seed's (year * 12 + month) / 3 put December with the next January and February */
    ASSERT_NE(gc_bucket_of(utc_ms(2024, 12, 15, 0, 0, 0)),
              gc_bucket_of(utc_ms(2025, 1, 15, 0, 0, 0)));
    ASSERT_EQ(gc_bucket_of(-1), 1969 * 4 + 3);
}

TEST(join_send_read_newest_first)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 5, 1, 12, 0, 0));
    join(&fx, "alice");
    join(&fx, "bob");
    fx.now += 10;
    CassUuid a = send_msg(&fx, "alice", "a1");
    fx.now += 10;
    send_msg(&fx, "bob", "b1");
    fx.now += 10;
    CassUuid c = send_msg(&fx, "alice", "a2");

    gc_page page;
    OK(gc_read_page(fx.chat, "bob", CONV, NULL, 10, &page, err_, sizeof err_));
    ASSERT_EQ(page.count, 3);
    ASSERT_STR_EQ(page.messages[0].body, "a2");
    ASSERT_STR_EQ(page.messages[0].sender, "alice");
    ASSERT(uuid_eq(page.messages[0].id, c));
    ASSERT_EQ(page.messages[0].sent_at_ms, fx.now);
    ASSERT_STR_EQ(page.messages[1].body, "b1");
    ASSERT_STR_EQ(page.messages[1].sender, "bob");
    ASSERT(uuid_eq(page.messages[2].id, a));
    ASSERT_STR_EQ(page.next_cursor, ""); /* not full: the last page */
    ASSERT_EQ(page.partitions_read, 1);
    gc_page_free(&page);

    /* pages of two: a full page gives a cursor, which names a message, not a position */
    OK(gc_read_page(fx.chat, "bob", CONV, "", 2, &page, err_, sizeof err_));
    ASSERT_EQ(page.count, 2);
    ASSERT(page.next_cursor[0]);
    char cursor[GC_CURSOR_SIZE];
    snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
    gc_page_free(&page);
    fx.now += 10;
    send_msg(&fx, "bob", "b2"); /* newer messages do not shift the pages already read */
    OK(gc_read_page(fx.chat, "bob", CONV, cursor, 2, &page, err_, sizeof err_));
    ASSERT_EQ(page.count, 1);
    ASSERT_STR_EQ(page.messages[0].body, "a1");
    ASSERT_STR_EQ(page.next_cursor, "");
    gc_page_free(&page);
    ASSERT(gc_partitions_read(fx.chat) >= 3);
    fixture_close(&fx);
}

TEST(leave_hides_later_messages)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 5, 1, 12, 0, 0));
    join(&fx, "alice");
    join(&fx, "bob");
    fx.now += 1000;
    send_msg(&fx, "bob", "m1");
    fx.now += 1000;
    leave(&fx, "alice");
    fx.now += 1000;
    send_msg(&fx, "bob", "m2");
    char got[4096];
    read_all(&fx, "alice", 10, got, sizeof got);
    ASSERT_STR_EQ(got, "m1"); /* a former member keeps what was sent while a member */
    read_all(&fx, "bob", 10, got, sizeof got);
    ASSERT_STR_EQ(got, "m2 m1");
    char err[256];
    ASSERT_EQ(gc_send(fx.chat, "alice", CONV, "late", NULL, err, sizeof err), GC_ERR_NOT_MEMBER);
    ASSERT_EQ(gc_leave(fx.chat, "alice", CONV, NULL, err, sizeof err), GC_ERR_NOT_MEMBER);
    fixture_close(&fx);
}

TEST(rejoin_skips_the_absence)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 5, 1, 12, 0, 0));
    int64_t j1 = join(&fx, "alice");
    join(&fx, "bob");
    fx.now += 1000;
    send_msg(&fx, "bob", "m1");
    fx.now += 1000;
    int64_t l1 = leave(&fx, "alice");
    fx.now += 1000;
    send_msg(&fx, "bob", "gap1");
    fx.now += 1000;
    send_msg(&fx, "bob", "gap2");
    fx.now += 1000;
    int64_t j2 = 0;
    char err[256];
    OK(gc_rejoin(fx.chat, "alice", CONV, &j2, err_, sizeof err_));
    fx.now += 1000;
    send_msg(&fx, "bob", "m2");
    ASSERT_EQ(gc_join(fx.chat, "alice", CONV, NULL, err, sizeof err), GC_ERR_ALREADY_MEMBER);
    ASSERT_EQ(gc_rejoin(fx.chat, "alice", CONV, NULL, err, sizeof err), GC_ERR_ALREADY_MEMBER);

    char got[4096];
    for (int ps = 1; ps <= 4; ps++) {
        read_all(&fx, "alice", ps, got, sizeof got);
        ASSERT_STR_EQ(got, "m2 m1");
    }
    read_all(&fx, "bob", 3, got, sizeof got);
    ASSERT_STR_EQ(got, "m2 gap2 gap1 m1");

    gc_interval *iv;
    size_t n;
    OK(gc_presence(fx.chat, "alice", CONV, &iv, &n, err_, sizeof err_));
    ASSERT_EQ(n, 2);
    ASSERT_EQ(iv[0].from_ms, j1);
    ASSERT_EQ(iv[0].to_ms, l1);
    ASSERT_EQ(iv[1].from_ms, j2);
    ASSERT_EQ(iv[1].to_ms, INT64_MAX);
    free(iv);
    fixture_close(&fx);
}

/* A user who was never a member is refused, not shown an empty conversation. */
TEST(never_a_member_is_refused)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 5, 1, 12, 0, 0));
    join(&fx, "bob");
    send_msg(&fx, "bob", "hello");
    char err[256];
    gc_page page;
    ASSERT_EQ(gc_read_page(fx.chat, "carol", CONV, NULL, 10, &page, err, sizeof err),
              GC_ERR_NOT_FOUND);
    ASSERT_EQ(page.count, 0);
    ASSERT(page.messages == NULL);
    ASSERT_EQ(gc_send(fx.chat, "carol", CONV, "hi", NULL, err, sizeof err), GC_ERR_NOT_FOUND);
    ASSERT_EQ(gc_leave(fx.chat, "carol", CONV, NULL, err, sizeof err), GC_ERR_NOT_FOUND);
    ASSERT_EQ(gc_rejoin(fx.chat, "carol", CONV, NULL, err, sizeof err), GC_ERR_NOT_FOUND);
    gc_interval *iv;
    size_t n;
    ASSERT_EQ(gc_presence(fx.chat, "carol", CONV, &iv, &n, err, sizeof err), GC_ERR_NOT_FOUND);
    /* nor does membership of one conversation open another */
    ASSERT_EQ(gc_read_page(fx.chat, "bob", "elsewhere", NULL, 10, &page, err, sizeof err),
              GC_ERR_NOT_FOUND);
    fixture_close(&fx);
}

/*
 * The boundary rule: presence is [joined, left). A message stamped with the millisecond of a
 * join is visible to the joiner (even one sent just before the join in that millisecond); one
 * stamped with the millisecond of a leave is not visible to the leaver.
 */
TEST(boundary_instants)
{
    fixture fx;
    int64_t t0 = utc_ms(2024, 6, 30, 23, 59, 59) + 990;
    fixture_open(&fx, t0);
    join(&fx, "bob");
    fx.now = t0 + 5;
    send_msg(&fx, "bob", "before");
    fx.now = t0 + 6;
    send_msg(&fx, "bob", "at-join");
    ASSERT_EQ(join(&fx, "alice"), t0 + 6);
    fx.now = t0 + 9;
    send_msg(&fx, "bob", "inside");
    fx.now = t0 + 10; /* 2024-07-01 00:00:00.000: the first millisecond of the next bucket */
    send_msg(&fx, "bob", "at-leave");
    ASSERT_EQ(leave(&fx, "alice"), t0 + 10);
    send_msg(&fx, "bob", "after-leave");
    char got[4096];
    read_all(&fx, "alice", 10, got, sizeof got);
    ASSERT_STR_EQ(got, "inside at-join");

    /* Rejoining in the millisecond of the leave is recorded one millisecond later, so the two
       sets never hold the same instant twice; alice then sees her own message at once. */
    int64_t again = join(&fx, "alice");
    ASSERT_EQ(again, t0 + 11);
    CassUuid own = send_msg(&fx, "alice", "own");
    ASSERT_EQ((int64_t)cass_uuid_timestamp(own), t0 + 11);
    read_all(&fx, "alice", 1, got, sizeof got);
    ASSERT_STR_EQ(got, "own inside at-join");
    /* for the others it is ahead of the present until the clock reaches it */
    read_all(&fx, "bob", 2, got, sizeof got);
    ASSERT_STR_EQ(got, "after-leave at-leave inside at-join before");
    fx.now++;
    read_all(&fx, "bob", 2, got, sizeof got);
    ASSERT_STR_EQ(got, "own after-leave at-leave inside at-join before");
    fixture_close(&fx);
}

/* Intervals years apart read their own buckets and none in between. */
TEST(buckets_crossed_and_skipped)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2019, 1, 10, 0, 0, 0));
    join(&fx, "bob");
    int64_t alice_in[2][2] = {
        {utc_ms(2020, 2, 1, 0, 0, 0), utc_ms(2020, 5, 1, 0, 0, 0)},
        {utc_ms(2024, 11, 1, 0, 0, 0), 0},
    };
    int expect = 0, total = 0;
    for (int y = 2019; y <= 2025; y++) {
        for (int mo = 1; mo <= 12; mo++) {
            int64_t t = utc_ms(y, mo, 15, 12, 0, 0);
            if (y == 2025 && mo > 2)
                break;
            for (int k = 0; k < 2; k++) {
                if (alice_in[k][0] && fx.now < alice_in[k][0] && t >= alice_in[k][0]) {
                    fx.now = alice_in[k][0];
                    join(&fx, "alice");
                }
                if (alice_in[k][1] && fx.now < alice_in[k][1] && t >= alice_in[k][1]) {
                    fx.now = alice_in[k][1];
                    leave(&fx, "alice");
                }
            }
            fx.now = t;
            char body[32];
            snprintf(body, sizeof body, "%d-%02d", y, mo);
            send_msg(&fx, "bob", body);
            total++;
            if ((t >= alice_in[0][0] && t < alice_in[0][1]) || t >= alice_in[1][0])
                expect++;
        }
    }
    gc_page page;
    OK(gc_read_page(fx.chat, "alice", CONV, NULL, 100, &page, err_, sizeof err_));
    ASSERT_EQ(page.count, expect);
    ASSERT_EQ(expect, 3 + 2 + 2); /* Feb..Apr 2020, Nov..Dec 2024, Jan..Feb 2025 */
    ASSERT_STR_EQ(page.messages[0].body, "2025-02");
    ASSERT_STR_EQ(page.messages[3].body, "2024-11");
    ASSERT_STR_EQ(page.messages[4].body, "2020-04");
    ASSERT_STR_EQ(page.messages[6].body, "2020-02");
    /* 2025 Q1, 2024 Q4, 2020 Q2, 2020 Q1: the seventeen quarters between are never read */
    ASSERT_EQ(page.partitions_read, 4);
    gc_page_free(&page);

    /* A page that fills in the newest interval reads no further. */
    OK(gc_read_page(fx.chat, "alice", CONV, NULL, 2, &page, err_, sizeof err_));
    ASSERT_EQ(page.count, 2);
    ASSERT_EQ(page.partitions_read, 1);
    char cursor[GC_CURSOR_SIZE];
    snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
    gc_page_free(&page);
    OK(gc_read_page(fx.chat, "alice", CONV, cursor, 3, &page, err_, sizeof err_));
    ASSERT_EQ(page.count, 3);
    ASSERT_STR_EQ(page.messages[0].body, "2024-12");
    ASSERT_STR_EQ(page.messages[2].body, "2020-04");
    ASSERT_EQ(page.partitions_read, 3); /* 2025 Q1 below the cursor, 2024 Q4, 2020 Q2 */
    gc_page_free(&page);

    char got[8192];
    read_all(&fx, "bob", 7, got, sizeof got);
    ASSERT_EQ(strlen(got), (size_t)total * 8 - 1);
    fixture_close(&fx);
}

TEST(many_messages_in_one_millisecond)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 3, 31, 23, 59, 59) + 999);
    join(&fx, "bob");
    enum { N = 300 };
    CassUuid ids[N];
    for (int i = 0; i < N; i++) {
        char body[16];
        snprintf(body, sizeof body, "%d", i);
        ids[i] = send_msg(&fx, "bob", body);
        ASSERT_EQ((int64_t)cass_uuid_timestamp(ids[i]), fx.now);
        if (i > 0)
            ASSERT((ids[i].time_and_version & 0x0FFFFFFFFFFFFFFFULL) >
                   (ids[i - 1].time_and_version & 0x0FFFFFFFFFFFFFFFULL));
    }
    char cursor[GC_CURSOR_SIZE] = "";
    int next = N - 1;
    for (;;) {
        gc_page page;
        OK(gc_read_page(fx.chat, "bob", CONV, cursor, 7, &page, err_, sizeof err_));
        for (size_t i = 0; i < page.count; i++, next--)
            ASSERT(uuid_eq(page.messages[i].id, ids[next]));
        snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
        gc_page_free(&page);
        if (!cursor[0])
            break;
    }
    ASSERT_EQ(next, -1);
    fixture_close(&fx);
}

TEST(bad_arguments)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 5, 1, 12, 0, 0));
    join(&fx, "bob");
    char err[256];
    gc_page page;
    ASSERT_EQ(gc_read_page(fx.chat, "bob", CONV, NULL, 0, &page, err, sizeof err), GC_ERR_INVALID);
    ASSERT_EQ(gc_read_page(fx.chat, "bob", CONV, NULL, GC_MAX_PAGE + 1, &page, err, sizeof err),
              GC_ERR_INVALID);
    ASSERT_EQ(gc_read_page(fx.chat, "bob", CONV, "zzz", 5, &page, err, sizeof err), GC_ERR_INVALID);
    ASSERT_EQ(gc_read_page(fx.chat, "bob", CONV, "0a4f2b7e-9a31-4c7d-8b0e-2f3d1c9e8a77", 5, &page,
                           err, sizeof err),
              GC_ERR_INVALID); /* a version 4 UUID names no message */
    ASSERT_EQ(gc_read_page(fx.chat, "", CONV, NULL, 5, &page, err, sizeof err), GC_ERR_INVALID);
    ASSERT_EQ(gc_join(fx.chat, "bob", "", NULL, err, sizeof err), GC_ERR_INVALID);
    ASSERT_EQ(gc_send(fx.chat, "bob", CONV, NULL, NULL, err, sizeof err), GC_ERR_INVALID);
    fixture_close(&fx);
}

/* Rows that other writers left: a one-to-one conversation, and presence sets that do not
   alternate. */
TEST(foreign_rows)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 5, 1, 12, 0, 0));
    RUN(fx.cn.session,
        "INSERT INTO groupchat.conversations_by_user "
        "(user_id, conversation_id, conversation_type) VALUES ('bob', 'dm', 'user')");
    RUN(fx.cn.session, "INSERT INTO groupchat.conversations_by_user "
                       "(user_id, conversation_id, conversation_type, joined_at, presence_changes) "
                       "VALUES ('bob', 'odd', 'group', {'2024-01-01', '2024-02-01'}, 2)");
    char err[256];
    gc_page page;
    ASSERT_EQ(gc_read_page(fx.chat, "bob", "dm", NULL, 5, &page, err, sizeof err),
              GC_ERR_NOT_GROUP);
    ASSERT_EQ(gc_join(fx.chat, "bob", "dm", NULL, err, sizeof err), GC_ERR_NOT_GROUP);
    ASSERT_EQ(gc_read_page(fx.chat, "bob", "odd", NULL, 5, &page, err, sizeof err), GC_ERR_CORRUPT);
    ASSERT_EQ(gc_leave(fx.chat, "bob", "odd", NULL, err, sizeof err), GC_ERR_CORRUPT);
    fixture_close(&fx);
}

/* The overview: every conversation of a user, with the membership state. */
TEST(conversation_overview)
{
    fixture fx;
    fixture_open(&fx, utc_ms(2024, 5, 1, 12, 0, 0));
    char err[256];
    int64_t team = join(&fx, "alice");
    fx.now += 5;
    int64_t club = 0;
    OK(gc_join(fx.chat, "alice", "book-club", &club, err_, sizeof err_));
    fx.now += 5;
    int64_t left = 0;
    OK(gc_leave(fx.chat, "alice", "book-club", &left, err_, sizeof err_));
    RUN(fx.cn.session,
        "INSERT INTO groupchat.conversations_by_user "
        "(user_id, conversation_id, conversation_type) VALUES ('alice', 'dm', 'user')");
    gc_conversation *c;
    size_t n;
    OK(gc_conversations(fx.chat, "alice", &c, &n, err_, sizeof err_));
    ASSERT_EQ(n, 3);
    ASSERT_STR_EQ(c[0].id, "book-club");
    ASSERT_EQ(c[0].member, 0);
    ASSERT_EQ(c[0].since_ms, left);
    ASSERT_STR_EQ(c[1].id, "dm");
    ASSERT_STR_EQ(c[1].type, "user");
    ASSERT_EQ(c[1].member, 0);
    ASSERT_STR_EQ(c[2].id, CONV);
    ASSERT_STR_EQ(c[2].type, "group");
    ASSERT_EQ(c[2].member, 1);
    ASSERT_EQ(c[2].since_ms, team);
    gc_conversations_free(c, n);
    ASSERT(club > team);
    OK(gc_conversations(fx.chat, "nobody", &c, &n, err_, sizeof err_));
    ASSERT_EQ(n, 0);
    gc_conversations_free(c, n);
    ASSERT_EQ(gc_conversations(fx.chat, "", &c, &n, err, sizeof err), GC_ERR_INVALID);
    fixture_close(&fx);
}

/* ------------------------------------------------------------------------------------------ */
/* The command line                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Runs `groupchat DB ARGS` at the instant at (GROUPCHAT_TIME), its output in out; returns the
   exit status. The program is the one beside the shell: dirname($CASSETTE)/bin/groupchat. */
static int cli(const char *db, const char *at, const char *args, char *out, size_t cap)
{
    const char *shell = getenv("CASSETTE");
    char tmp[1024], cmd[4096];
    snprintf(tmp, sizeof tmp, "%s", shell ? shell : "build/release/cassette");
    char *dir = dirname(tmp);
    snprintf(cmd, sizeof cmd, "%s/bin/groupchat", dir);
    if (access(cmd, X_OK) != 0)
        test_fail(__FILE__, __LINE__, "no program at %s (make %s)", cmd, cmd);
    snprintf(cmd, sizeof cmd, "GROUPCHAT_TIME=%s %s/bin/groupchat '%s' %s 2>&1", at, dir, db, args);
    FILE *p = popen(cmd, "r");
    ASSERT(p != NULL);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(command_line_round_trip)
{
    char contact[600], db[700], out[8192];
    snprintf(contact, sizeof contact, "file:%s/chat", test_tmpdir());
    test_database_uri(contact, db, sizeof db);
    ASSERT_EQ(cli(db, "2023-12-20T09:00:00", "join bob team", out, sizeof out), 0);
    ASSERT_STR_EQ(out, "2023-12-20 09:00:00.000\n");
    ASSERT_EQ(cli(db, "2023-12-20T09:00:00", "join alice team", out, sizeof out), 0);
    ASSERT_EQ(cli(db, "2023-12-24T18:00:00", "send bob team 'merry christmas'", out, sizeof out),
              0);
    ASSERT_EQ(cli(db, "2024-01-10T08:00:00", "leave alice team", out, sizeof out), 0);
    ASSERT_EQ(cli(db, "2024-02-01T12:00:00", "send bob team 'not for alice'", out, sizeof out), 0);
    ASSERT_EQ(cli(db, "2024-03-31T23:59:59.999", "join alice team", out, sizeof out), 0);
    ASSERT_EQ(cli(db, "2024-04-01T00:00:00.000", "send alice team 'back for Q2'", out, sizeof out),
              0);
    ASSERT_EQ(cli(db, "2024-04-02T10:00:00", "history alice team 1", out, sizeof out), 0);
    ASSERT_STR_EQ(out, "2024-04-01 00:00:00.000  alice: back for Q2\n"
                       "2023-12-24 18:00:00.000  bob: merry christmas\n");
    ASSERT_EQ(cli(db, "2024-04-02T10:00:00", "read alice team 5", out, sizeof out), 0);
    ASSERT(strstr(out, "-- next: none (4 partitions read)\n")); /* 24Q2 24Q1, 24Q1 23Q4 */
    ASSERT_EQ(cli(db, "2024-04-02T10:00:00", "presence alice team", out, sizeof out), 0);
    ASSERT_STR_EQ(out, "2023-12-20 09:00:00.000 .. 2024-01-10 08:00:00.000\n"
                       "2024-03-31 23:59:59.999 .. now\n");
    ASSERT_EQ(cli(db, "2024-04-02T10:00:00", "read carol team", out, sizeof out), 1);
    ASSERT_STR_EQ(out, "groupchat: never a member of this conversation\n");
    ASSERT_EQ(cli(db, "2024-04-02T10:00:00", "join alice team", out, sizeof out), 1);
    ASSERT_STR_EQ(out, "groupchat: already a member\n");
    ASSERT_EQ(cli(db, "yesterday", "list alice", out, sizeof out), 2);
}

/* ------------------------------------------------------------------------------------------ */
/* Concurrent joins and leaves                                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct toggler {
    gc_chat *chat;
    int joins, leaves, refused;
    int failed;
} toggler;

static void *toggle(void *arg)
{
    toggler *t = arg;
    char err[256];
    for (int i = 0; i < 30; i++) {
        gc_status st = i % 2 ? gc_leave(t->chat, "alice", CONV, NULL, err, sizeof err)
                             : gc_join(t->chat, "alice", CONV, NULL, err, sizeof err);
        if (st == GC_OK)
            (*(i % 2 ? &t->leaves : &t->joins))++;
        else if (st == GC_ERR_ALREADY_MEMBER || st == GC_ERR_NOT_MEMBER || st == GC_ERR_CONFLICT)
            t->refused++;
        else
            t->failed++;
    }
    return NULL;
}

/* Two writers racing on one user's presence: the transaction on presence_changes keeps the
   sets alternating, so every interval is well formed. Real time. */
TEST(concurrent_presence_changes)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    char err[512] = "";
    if (gc_create_schema(cn.session, err, sizeof err) != GC_OK)
        test_fail(__FILE__, __LINE__, "schema: %s", err);
    toggler t[2] = {{0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        if (gc_open(cn.session, NULL, NULL, &t[i].chat, err, sizeof err) != GC_OK)
            test_fail(__FILE__, __LINE__, "open: %s", err);
    }
    for (int i = 0; i < 2; i++)
        ASSERT_EQ(pthread_create(&th[i], NULL, toggle, &t[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    gc_interval *iv;
    size_t n;
    ASSERT_EQ(gc_presence(t[0].chat, "alice", CONV, &iv, &n, err, sizeof err), GC_OK);
    ASSERT_EQ(t[0].failed + t[1].failed, 0);
    ASSERT_EQ(n, (size_t)(t[0].joins + t[1].joins));
    int open = iv[n - 1].to_ms == INT64_MAX;
    ASSERT_EQ(n - (size_t)open, (size_t)(t[0].leaves + t[1].leaves));
    for (size_t i = 0; i < n; i++) {
        ASSERT(iv[i].from_ms < iv[i].to_ms);
        if (i > 0)
            ASSERT(iv[i - 1].to_ms < iv[i].from_ms);
    }
    free(iv);
    for (int i = 0; i < 2; i++)
        gc_close(t[i].chat);
    conn_close(&cn);
}

/* ------------------------------------------------------------------------------------------ */
/* Property: random histories against a brute-force filter                                   */
/* ------------------------------------------------------------------------------------------ */

#define MAX_USERS 8
#define MAX_IV 512

typedef struct omsg {
    CassUuid id;
    int64_t t;
    char body[16];
} omsg;

typedef struct ouser {
    char name[16];
    int64_t from[MAX_IV], to[MAX_IV]; /* to INT64_MAX while a member */
    int n;
} ouser;

/* Cassandra's timeuuid order: the time, then the low bytes as signed bytes. */
static int cmp_timeuuid(CassUuid a, CassUuid b)
{
    uint64_t ta = a.time_and_version & 0x0FFFFFFFFFFFFFFFULL;
    uint64_t tb = b.time_and_version & 0x0FFFFFFFFFFFFFFFULL;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    uint64_t la = a.clock_seq_and_node ^ 0x8080808080808080ULL;
    uint64_t lb = b.clock_seq_and_node ^ 0x8080808080808080ULL;
    return la < lb ? -1 : la > lb;
}

static int cmp_newest_first(const void *x, const void *y)
{
    return -cmp_timeuuid(((const omsg *)x)->id, ((const omsg *)y)->id);
}

static int visible(const ouser *u, int64_t t, int64_t now)
{
    for (int i = 0; i < u->n; i++)
        if (t >= u->from[i] &&
            (u->to[i] == INT64_MAX ? t <= (now > u->from[i] ? now : u->from[i]) : t < u->to[i]))
            return 1;
    return 0;
}

/* The (interval, bucket) pairs whose milliseconds meet [lo, hi]: what a page spanning that
   range may query at most. */
static int pairs_within(const ouser *u, int64_t lo, int64_t hi, int64_t now)
{
    int n = 0;
    for (int i = 0; i < u->n; i++) {
        int64_t a = u->from[i] > lo ? u->from[i] : lo;
        int64_t b = u->to[i] != INT64_MAX ? u->to[i] - 1 : now > u->from[i] ? now : u->from[i];
        if (b > hi)
            b = hi;
        if (a <= b)
            n += gc_bucket_of(b) - gc_bucket_of(a) + 1;
    }
    return n;
}

static void property(uint64_t rs, int steps, int nusers)
{
    fixture fx;
    /* somewhere in 2019, then forward through several years */
    fixture_open(&fx, utc_ms(2019, 1, 1, 0, 0, 0) + (int64_t)(test_rand(&rs) % 365) * 86400000);
    ouser users[MAX_USERS + 1];
    memset(users, 0, sizeof users);
    for (int u = 0; u <= nusers; u++)
        snprintf(users[u].name, sizeof users[u].name, "user%d", u); /* the last never joins */
    omsg *msgs = calloc((size_t)steps, sizeof *msgs);
    int nm = 0;
    char err[512];

    for (int s = 0; s < steps; s++) {
        uint64_t r = test_rand(&rs) % 100;
        if (r < 25)
            ; /* the same millisecond */
        else if (r < 60)
            fx.now += 1 + (int64_t)(test_rand(&rs) % 5);
        else if (r < 85)
            fx.now += (int64_t)(test_rand(&rs) % (3 * 86400000ULL));
        else if (r < 95)
            fx.now += (int64_t)(20 + test_rand(&rs) % 60) * 86400000;
        else {
            /* onto a quarter boundary, or the millisecond before it */
            time_t secs = (time_t)(fx.now / 1000);
            struct tm tm;
            gmtime_r(&secs, &tm);
            int q = tm.tm_mon / 3 + 1;
            int64_t next = q == 4 ? utc_ms(tm.tm_year + 1900 + 1, 1, 1, 0, 0, 0)
                                  : utc_ms(tm.tm_year + 1900, q * 3 + 1, 1, 0, 0, 0);
            fx.now = next - (int64_t)(test_rand(&rs) % 2);
        }
        int u = (int)(test_rand(&rs) % (uint64_t)nusers);
        ouser *us = &users[u];
        int member = us->n > 0 && us->to[us->n - 1] == INT64_MAX;
        if (test_rand(&rs) % 100 < 30 || !member) {
            int64_t at = 0;
            gc_status st;
            if (member) {
                st = gc_leave(fx.chat, us->name, CONV, &at, err, sizeof err);
                if (st == GC_OK)
                    us->to[us->n - 1] = at;
            } else {
                ASSERT(us->n < MAX_IV);
                st = us->n ? gc_rejoin(fx.chat, us->name, CONV, &at, err, sizeof err)
                           : gc_join(fx.chat, us->name, CONV, &at, err, sizeof err);
                if (st == GC_OK) {
                    us->from[us->n] = at;
                    us->to[us->n++] = INT64_MAX;
                }
            }
            if (st != GC_OK)
                test_fail(__FILE__, __LINE__, "presence change: %s (%s)", gc_status_text(st), err);
        } else {
            omsg *m = &msgs[nm];
            snprintf(m->body, sizeof m->body, "m%d", nm);
            gc_status st = gc_send(fx.chat, us->name, CONV, m->body, &m->id, err, sizeof err);
            if (st != GC_OK)
                test_fail(__FILE__, __LINE__, "send: %s (%s)", gc_status_text(st), err);
            m->t = (int64_t)cass_uuid_timestamp(m->id);
            nm++;
        }
    }
    fx.now += (int64_t)(test_rand(&rs) % 3);
    int64_t now = fx.now;
    ASSERT(nm > 0);
    qsort(msgs, (size_t)nm, sizeof *msgs, cmp_newest_first);
    int buckets = gc_bucket_of(now) - gc_bucket_of(msgs[nm - 1].t) + 1;
    ASSERT(buckets >= 12);

    omsg *expect = calloc((size_t)nm + 1, sizeof *expect);
    for (int u = 0; u <= nusers; u++) {
        const ouser *us = &users[u];
        if (us->n == 0) {
            gc_page page;
            ASSERT_EQ(gc_read_page(fx.chat, us->name, CONV, NULL, 5, &page, err, sizeof err),
                      GC_ERR_NOT_FOUND);
            continue;
        }
        int ne = 0;
        for (int i = 0; i < nm; i++)
            if (visible(us, msgs[i].t, now))
                expect[ne++] = msgs[i];
        for (int ps = 1; ps <= 50; ps++) {
            char cursor[GC_CURSOR_SIZE] = "";
            /* the newest millisecond the next page may hold: the present, or a join recorded
               ahead of the clock (its interval holds that millisecond) */
            int64_t upper = now;
            if (us->to[us->n - 1] == INT64_MAX && us->from[us->n - 1] > now)
                upper = us->from[us->n - 1];
            int at = 0, pages = 0;
            for (;;) {
                gc_page page;
                gc_status st =
                    gc_read_page(fx.chat, us->name, CONV, cursor, ps, &page, err, sizeof err);
                if (st != GC_OK)
                    test_fail(__FILE__, __LINE__, "read: %s (%s)", gc_status_text(st), err);
                pages++;
                ASSERT(page.count <= (size_t)ps);
                for (size_t i = 0; i < page.count; i++, at++) {
                    if (at >= ne || !uuid_eq(page.messages[i].id, expect[at].id))
                        test_fail(__FILE__, __LINE__, "%s, page size %d: message %d is %s, want %s",
                                  us->name, ps, at, page.messages[i].body,
                                  at < ne ? expect[at].body : "none");
                    ASSERT_STR_EQ(page.messages[i].body, expect[at].body);
                }
                int full = page.count == (size_t)ps;
                ASSERT_EQ(full, page.next_cursor[0] != '\0');
                int64_t lower = full ? page.messages[page.count - 1].sent_at_ms : INT64_MIN;
                int bound = pairs_within(us, lower, upper, now);
                /* never more than the buckets the intervals touch between the cursor and the
                   page's oldest message; and no fewer either, as nothing tells an empty
                   bucket from a full one before reading it */
                if (page.partitions_read != bound)
                    test_fail(__FILE__, __LINE__,
                              "%s, page size %d, page %d: %d partitions read, want %d", us->name,
                              ps, pages, page.partitions_read, bound);
                if (full)
                    upper = page.messages[page.count - 1].sent_at_ms;
                snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
                gc_page_free(&page);
                if (!cursor[0])
                    break;
                ASSERT(pages <= ne / ps + 1);
            }
            if (at != ne)
                test_fail(__FILE__, __LINE__, "%s, page size %d: %d messages, want %d", us->name,
                          ps, at, ne);
        }
    }
    free(expect);
    free(msgs);
    fixture_close(&fx);
}

/* Histories of a few hundred events over five years or so, several users, each paged with
   every page size from 1 to 50. */
TEST(property_pages_match_brute_force)
{
    uint64_t rs = test_seed() ^ 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < 3; round++)
        property(test_rand(&rs), 300, 4 + round);
}

TEST(property_pages_match_brute_force_long)
{
    if (!test_long())
        test_skip("long mode only (CASSETTE_LONG=1)");
    uint64_t rs = test_seed() ^ 0x7f4a7c159e3779b9ULL;
    for (int round = 0; round < 10; round++)
        property(test_rand(&rs), 1500, MAX_USERS);
}
