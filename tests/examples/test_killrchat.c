/*
 * KillrChat's data layer (examples/killrchat/killrchat.h) end to end: accounts and passwords,
 * rooms and their participants, messages paged back across day buckets with a test clock, the
 * write-behind cache of day buckets, and the three races of room participants from the seed
 * (a join, a leave, or a stranger's delete racing the creator's delete), run by threads.
 * Embedded and, with CASSETTE_TEST_REMOTE=1, through a `cassette serve`.
 */
#include <cassandra.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "driver/driver_test.h"
#include "killrchat/killrchat.h"

/* ---- Helpers --------------------------------------------------------------------------- */

#define ASSERT_KC(call)                                                                   \
    do {                                                                                  \
        kc_err e_;                                                                        \
        kc_status s_ = (call);                                                            \
        if (s_ != KC_OK)                                                                  \
            test_fail(__FILE__, __LINE__, "%s: %s: %s", #call, kc_status_name(s_), e_.msg); \
    } while (0)

/* call must fail with status want (its kc_err is e_). */
#define ASSERT_KC_IS(want, call)                                                          \
    do {                                                                                  \
        kc_err e_;                                                                        \
        kc_status s_ = (call);                                                            \
        if (s_ != (want))                                                                 \
            test_fail(__FILE__, __LINE__, "%s: got %s (%s), want %s", #call,             \
                      kc_status_name(s_), e_.msg, kc_status_name(want));                  \
    } while (0)

/* The test clock: microseconds, moved by the tests. */
static _Atomic int64_t clock_now;

static int64_t test_clock(void *arg)
{
    (void)arg;
    return atomic_load(&clock_now);
}

/* 2026-01-10 00:00:00 UTC plus days and seconds, in microseconds. */
static int64_t day_time(int day, int64_t seconds)
{
    return (test_utc_s(2026, 1, 10, 0, 0, 0) + day * 86400LL + seconds) * 1000000;
}

/* Opens a kc_db on session: cheap passwords; the test clock unless real; flushes every
   flush_ms (0: only on kc_flush and close). */
static kc_db *open_db(CassSession *session, int real_clock, int flush_ms)
{
    kc_options o;
    kc_options_init(&o);
    o.password_cost = KC_PASSWORD_MIN;
    o.flush_interval_ms = flush_ms;
    if (!real_clock) {
        o.clock = test_clock;
        if (!atomic_load(&clock_now))
            atomic_store(&clock_now, day_time(0, 12 * 3600));
    }
    kc_db *db;
    ASSERT_KC(kc_open(session, &o, &db, &e_));
    return db;
}

static void close_db(kc_db *db)
{
    ASSERT_KC(kc_close(db, &e_));
}

static void add_user(kc_db *db, const char *login)
{
    char first[80];
    snprintf(first, sizeof first, "First-%s", login);
    ASSERT_KC(kc_create_user(db, login, "secret", first, "Last", NULL, NULL, &e_));
}

static kc_user user_of(kc_db *db, const char *login)
{
    kc_user u;
    ASSERT_KC(kc_login(db, login, "secret", &u, &e_));
    return u;
}

/* 1 when login's profile lists room. */
static int lists_room(kc_db *db, const char *login, const char *room)
{
    kc_profile p;
    ASSERT_KC(kc_get_profile(db, login, &p, &e_));
    int found = 0;
    for (size_t i = 0; i < p.n_rooms; i++)
        found |= strcmp(p.rooms[i], room) == 0;
    kc_profile_free(&p);
    return found;
}

static int in_room(const kc_room *r, const char *login)
{
    for (size_t i = 0; i < r->n_participants; i++)
        if (strcmp(r->participants[i].login, login) == 0)
            return 1;
    return 0;
}

/* The invariant of the seed's section III over users[0..n): a deleted room is listed by no
   one; a room that exists lists exactly the users whose room lists name it. */
static void check_room_invariant(kc_db *db, const char *room, char users[][16], int n)
{
    kc_room r;
    kc_err e;
    kc_status s = kc_get_room(db, room, &r, &e);
    ASSERT(s == KC_OK || s == KC_NOT_FOUND);
    for (int i = 0; i < n; i++) {
        int listed = lists_room(db, users[i], room);
        if (s == KC_NOT_FOUND) {
            if (listed)
                test_fail(__FILE__, __LINE__, "%s lists the deleted room %s", users[i], room);
        } else if (listed != in_room(&r, users[i])) {
            test_fail(__FILE__, __LINE__, "%s: listed %d, participant %d in %s", users[i],
                      listed, in_room(&r, users[i]), room);
        }
    }
    if (s == KC_OK) {
        /* No participant without an account here, nor a row of participants only. */
        ASSERT(r.creator.login[0] != '\0');
        kc_room_free(&r);
    }
}

static int64_t count_rows(CassSession *s, const char *cql)
{
    const CassResult *r = QUERY(s, cql);
    int64_t n = (int64_t)cass_result_row_count(r);
    cass_result_free(r);
    return n;
}

/* ---- Users ----------------------------------------------------------------------------- */

TEST(users_sign_up_and_log_in)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 0);
    ASSERT_KC(kc_create_user(db, "jdoe", "s3cret pass", "John", "Doe", "jdoe@example.com",
                             "likes chess", &e_));
    ASSERT_KC_IS(KC_EXISTS, kc_create_user(db, "jdoe", "other", "J", "D", NULL, NULL, &e_));

    kc_user u;
    ASSERT_KC(kc_login(db, "jdoe", "s3cret pass", &u, &e_));
    ASSERT_STR_EQ(u.login, "jdoe");
    ASSERT_STR_EQ(u.firstname, "John");
    ASSERT_STR_EQ(u.lastname, "Doe");
    kc_user_free(&u);
    ASSERT_KC_IS(KC_BAD_PASSWORD, kc_login(db, "jdoe", "s3cret", &u, &e_));
    ASSERT_KC_IS(KC_BAD_PASSWORD, kc_login(db, "jdoe", "", NULL, &e_));
    ASSERT_KC_IS(KC_NOT_FOUND, kc_login(db, "nobody", "x", &u, &e_));
    ASSERT_KC_IS(KC_INVALID, kc_create_user(db, "", "x", NULL, NULL, NULL, NULL, &e_));
    ASSERT_KC_IS(KC_INVALID, kc_create_user(db, "two words", "x", NULL, NULL, NULL, NULL, &e_));
    ASSERT_KC_IS(KC_INVALID, kc_create_user(db, "emptypass", "", NULL, NULL, NULL, NULL, &e_));

    kc_profile p;
    ASSERT_KC(kc_get_profile(db, "jdoe", &p, &e_));
    ASSERT_STR_EQ(p.email, "jdoe@example.com");
    ASSERT_STR_EQ(p.bio, "likes chess");
    ASSERT_EQ(p.n_rooms, 0);
    kc_profile_free(&p);
    ASSERT_KC_IS(KC_NOT_FOUND, kc_get_profile(db, "nobody", &p, &e_));

    /* Only a salted hash is stored: two accounts with one password store different hashes. */
    ASSERT_KC(kc_create_user(db, "jdoe2", "s3cret pass", "J", "D", NULL, NULL, &e_));
    const CassResult *r = QUERY(cn.session, "SELECT login, pass FROM killrchat.users");
    char hashes[2][256];
    int n = 0;
    CassIterator *it = cass_iterator_from_result(r);
    while (cass_iterator_next(it) && n < 2) {
        const char *h;
        size_t len;
        cass_value_get_string(cass_row_get_column_by_name(cass_iterator_get_row(it), "pass"), &h,
                              &len);
        snprintf(hashes[n++], sizeof hashes[0], "%.*s", (int)len, h);
    }
    cass_iterator_free(it);
    cass_result_free(r);
    ASSERT_EQ(n, 2);
    ASSERT(strncmp(hashes[0], "$argon2id$", 10) == 0);
    ASSERT(strstr(hashes[0], "s3cret") == NULL);
    ASSERT(strcmp(hashes[0], hashes[1]) != 0);
    close_db(db);
    conn_close(&cn);
}

/* ---- Rooms ----------------------------------------------------------------------------- */

/* The newest message of room. */
static void last_message(kc_db *db, const char *room, char *buf, size_t cap, int *system)
{
    kc_message_list l;
    ASSERT_KC(kc_messages_latest(db, room, 1, &l, &e_));
    ASSERT_EQ(l.count, 1);
    snprintf(buf, cap, "%s: %s", l.items[0].author.login, l.items[0].content);
    *system = l.items[0].system;
    kc_message_list_free(&l);
}

TEST(rooms_create_join_leave)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 0);
    add_user(db, "alice");
    add_user(db, "bob");
    ASSERT_KC(kc_create_room(db, "alice", "games", "Let's play", &e_));
    ASSERT_KC_IS(KC_EXISTS, kc_create_room(db, "bob", "games", NULL, &e_));
    ASSERT_KC_IS(KC_NOT_FOUND, kc_create_room(db, "nobody", "other", NULL, &e_));
    ASSERT_KC_IS(KC_INVALID, kc_create_room(db, "alice", "", NULL, &e_));

    kc_room r;
    ASSERT_KC(kc_get_room(db, "games", &r, &e_));
    ASSERT_STR_EQ(r.name, "games");
    ASSERT_STR_EQ(r.banner, "Let's play");
    ASSERT_STR_EQ(r.creator.login, "alice");
    ASSERT_STR_EQ(r.creator.firstname, "First-alice");
    ASSERT_EQ(r.creation_date, atomic_load(&clock_now) / 1000);
    ASSERT_EQ(r.n_participants, 1);
    ASSERT_STR_EQ(r.participants[0].login, "alice");
    kc_room_free(&r);
    ASSERT(lists_room(db, "alice", "games"));

    char text[256];
    int sys;
    last_message(db, "games", text, sizeof text, &sys);
    ASSERT_STR_EQ(text, "alice: alice created the room");
    ASSERT_EQ(sys, 1);

    ASSERT_KC(kc_join_room(db, "bob", "games", &e_));
    ASSERT(lists_room(db, "bob", "games"));
    ASSERT_KC(kc_get_room(db, "games", &r, &e_));
    ASSERT_EQ(r.n_participants, 2);
    ASSERT_STR_EQ(r.participants[1].login, "bob");
    ASSERT_STR_EQ(r.participants[1].lastname, "Last");
    kc_room_free(&r);
    last_message(db, "games", text, sizeof text, &sys);
    ASSERT_STR_EQ(text, "bob: bob joined");
    ASSERT_EQ(sys, 1);

    /* Joining again changes nothing and posts nothing. */
    ASSERT_KC(kc_join_room(db, "bob", "games", &e_));
    kc_message_list l;
    ASSERT_KC(kc_messages_latest(db, "games", 0, &l, &e_));
    ASSERT_EQ(l.count, 2);
    kc_message_list_free(&l);

    kc_user bob = user_of(db, "bob");
    ASSERT_KC(kc_post_message(db, &bob, "games", "hello", NULL, &e_));
    last_message(db, "games", text, sizeof text, &sys);
    ASSERT_STR_EQ(text, "bob: hello");
    ASSERT_EQ(sys, 0);
    ASSERT_KC_IS(KC_INVALID, kc_post_message(db, &bob, "games", "", NULL, &e_));
    char big[KC_MESSAGE_MAX + 2];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ASSERT_KC_IS(KC_INVALID, kc_post_message(db, &bob, "games", big, NULL, &e_));
    kc_user_free(&bob);

    ASSERT_KC(kc_leave_room(db, "bob", "games", &e_));
    ASSERT(!lists_room(db, "bob", "games"));
    ASSERT_KC(kc_get_room(db, "games", &r, &e_));
    ASSERT_EQ(r.n_participants, 1);
    ASSERT(!in_room(&r, "bob"));
    kc_room_free(&r);
    last_message(db, "games", text, sizeof text, &sys);
    ASSERT_STR_EQ(text, "bob: bob left");
    ASSERT_EQ(sys, 1);
    /* Leaving a room one is not in: nothing posted. */
    ASSERT_KC(kc_leave_room(db, "bob", "games", &e_));
    ASSERT_KC(kc_messages_latest(db, "games", 0, &l, &e_));
    ASSERT_EQ(l.count, 4);
    kc_message_list_free(&l);

    ASSERT_KC_IS(KC_NOT_FOUND, kc_join_room(db, "bob", "nowhere", &e_));
    ASSERT_KC_IS(KC_NOT_FOUND, kc_join_room(db, "nobody", "games", &e_));
    ASSERT_KC_IS(KC_NOT_FOUND, kc_leave_room(db, "bob", "nowhere", &e_));
    ASSERT(!lists_room(db, "bob", "nowhere"));
    close_db(db);
    conn_close(&cn);
}

TEST(rooms_delete_by_creator_only)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 0);
    add_user(db, "alice");
    add_user(db, "bob");
    add_user(db, "carol");
    ASSERT_KC(kc_create_room(db, "alice", "games", NULL, &e_));
    ASSERT_KC(kc_create_room(db, "alice", "music", NULL, &e_));
    ASSERT_KC(kc_join_room(db, "bob", "games", &e_));
    ASSERT_KC(kc_join_room(db, "carol", "games", &e_));
    ASSERT_KC(kc_join_room(db, "bob", "music", &e_));
    kc_user bob = user_of(db, "bob");
    ASSERT_KC(kc_post_message(db, &bob, "games", "gg", NULL, &e_));

    ASSERT_KC_IS(KC_FORBIDDEN, kc_delete_room(db, "bob", "games", &e_));
    ASSERT_KC_IS(KC_FORBIDDEN, kc_delete_room(db, "carol", "games", &e_));
    kc_room r;
    ASSERT_KC(kc_get_room(db, "games", &r, &e_));
    ASSERT_EQ(r.n_participants, 3);
    kc_room_free(&r);

    ASSERT_KC(kc_delete_room(db, "alice", "games", &e_));
    ASSERT_KC_IS(KC_NOT_FOUND, kc_get_room(db, "games", &r, &e_));
    ASSERT(!lists_room(db, "alice", "games"));
    ASSERT(!lists_room(db, "bob", "games"));
    ASSERT(!lists_room(db, "carol", "games"));
    ASSERT(lists_room(db, "bob", "music"));
    ASSERT(lists_room(db, "alice", "music"));
    ASSERT_KC_IS(KC_NOT_FOUND, kc_delete_room(db, "alice", "games", &e_));

    /* A deleted room cannot be joined, and joining it leaves no trace. */
    ASSERT_KC_IS(KC_NOT_FOUND, kc_join_room(db, "carol", "games", &e_));
    ASSERT(!lists_room(db, "carol", "games"));
    ASSERT_EQ(count_rows(cn.session, "SELECT * FROM killrchat.chat_rooms WHERE room_name = "
                                     "'games'"),
              0);

    /* Its messages went with it: the same name again starts empty. */
    ASSERT_KC(kc_create_room(db, "carol", "games", NULL, &e_));
    kc_message_list l;
    ASSERT_KC(kc_messages_latest(db, "games", 0, &l, &e_));
    ASSERT_EQ(l.count, 1);
    ASSERT_STR_EQ(l.items[0].content, "carol created the room");
    kc_message_list_free(&l);

    /* A creator who left can still delete the room, now without participants. */
    ASSERT_KC(kc_leave_room(db, "carol", "games", &e_));
    ASSERT_KC(kc_get_room(db, "games", &r, &e_));
    ASSERT_EQ(r.n_participants, 0);
    kc_room_free(&r);
    ASSERT_KC_IS(KC_FORBIDDEN, kc_delete_room(db, "alice", "games", &e_));
    ASSERT_KC(kc_delete_room(db, "carol", "games", &e_));
    ASSERT_KC_IS(KC_NOT_FOUND, kc_get_room(db, "games", &r, &e_));
    kc_user_free(&bob);
    close_db(db);
    conn_close(&cn);
}

TEST(rooms_list)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 0);
    add_user(db, "alice");
    kc_room_list l;
    ASSERT_KC(kc_list_rooms(db, 0, &l, &e_));
    ASSERT_EQ(l.count, 0);
    kc_room_list_free(&l);
    const char *names[] = {"zeta", "alpha", "mid", "beta"};
    for (int i = 0; i < 4; i++)
        ASSERT_KC(kc_create_room(db, "alice", names[i], names[i], &e_));
    ASSERT_KC(kc_list_rooms(db, 0, &l, &e_));
    ASSERT_EQ(l.count, 4);
    ASSERT_STR_EQ(l.items[0].name, "alpha");
    ASSERT_STR_EQ(l.items[1].name, "beta");
    ASSERT_STR_EQ(l.items[3].name, "zeta");
    ASSERT_STR_EQ(l.items[3].banner, "zeta");
    ASSERT_EQ(l.items[0].n_participants, 1);
    kc_room_list_free(&l);
    ASSERT_KC(kc_list_rooms(db, 2, &l, &e_));
    ASSERT_EQ(l.count, 2);
    ASSERT_STR_EQ(l.items[1].name, "beta");
    kc_room_list_free(&l);
    close_db(db);
    conn_close(&cn);
}

/* ---- Messages across day buckets ------------------------------------------------------- */

/* Posts count messages "d<day>-<i>" at noon of day, a second apart. */
static void post_day(kc_db *db, const kc_user *u, const char *room, int day, int count)
{
    for (int i = 0; i < count; i++) {
        atomic_store(&clock_now, day_time(day, 12 * 3600 + i));
        char text[32];
        snprintf(text, sizeof text, "d%d-%d", day, i);
        ASSERT_KC(kc_post_message(db, u, room, text, NULL, &e_));
    }
}

/* Reads the whole history of room back by pages of page: every message, oldest first, into
   texts; returns the count. */
static size_t read_back(kc_db *db, const char *room, int page, char texts[][32], size_t cap)
{
    kc_message_list l;
    ASSERT_KC(kc_messages_latest(db, room, page, &l, &e_));
    size_t total = 0;
    char pages[64][64][32];
    size_t sizes[64];
    int np = 0;
    while (l.count > 0) {
        ASSERT(l.count <= (size_t)page);
        ASSERT(np < 64);
        for (size_t i = 0; i < l.count; i++) {
            if (i > 0)
                ASSERT(l.items[i - 1].time_us < l.items[i].time_us);
            ASSERT_EQ(l.items[i].bucket, kc_day_bucket(l.items[i].time_us));
            snprintf(pages[np][i], 32, "%s", l.items[i].content);
        }
        sizes[np++] = l.count;
        CassUuid first = l.items[0].id;
        kc_message_list_free(&l);
        ASSERT_KC(kc_messages_before(db, room, first, page, &l, &e_));
    }
    kc_message_list_free(&l);
    for (int p = np; p-- > 0;)
        for (size_t i = 0; i < sizes[p]; i++) {
            ASSERT(total < cap);
            snprintf(texts[total++], 32, "%s", pages[p][i]);
        }
    return total;
}

/* texts[0..got) are the messages post_day posted over days[0..n) with counts[]. */
static void check_history_from(char texts[][32], size_t got, const int *days, const int *counts,
                               int n)
{
    size_t k = 0;
    for (int d = 0; d < n; d++)
        for (int i = 0; i < counts[d]; i++) {
            char want[32];
            snprintf(want, sizeof want, "d%d-%d", days[d], i);
            ASSERT(k < got);
            ASSERT_STR_EQ(texts[k], want);
            k++;
        }
    ASSERT_EQ(got, k);
}

TEST(messages_page_back_across_days)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 0);
    add_user(db, "alice");
    kc_user a = user_of(db, "alice");
    /* The room is created on day 0 at noon; messages on days 1, 4, 5, 9 and 30: empty days
       between, one of them a month long. */
    const char *room = "history";
    ASSERT_KC(kc_create_room(db, "alice", room, NULL, &e_));
    kc_message_list l;
    ASSERT_KC(kc_messages_latest(db, room, 10, &l, &e_));
    ASSERT_EQ(l.count, 1);
    CassUuid created = l.items[0].id;
    kc_message_list_free(&l);
    ASSERT_KC_IS(KC_OK, kc_messages_before(db, room, created, 10, &l, &e_));
    ASSERT_EQ(l.count, 0);
    kc_message_list_free(&l);

    int days[] = {1, 4, 5, 9, 30};
    int counts[] = {7, 3, 12, 1, 5};
    for (int d = 0; d < 5; d++)
        post_day(db, &a, room, days[d], counts[d]);

    /* The clock moves on, days later: the newest messages are still found. */
    atomic_store(&clock_now, day_time(33, 3600));
    ASSERT_KC(kc_messages_latest(db, room, 8, &l, &e_));
    ASSERT_EQ(l.count, 8);
    ASSERT_STR_EQ(l.items[0].content, "d5-10");
    ASSERT_STR_EQ(l.items[2].content, "d9-0");
    ASSERT_STR_EQ(l.items[3].content, "d30-0");
    ASSERT_STR_EQ(l.items[7].content, "d30-4");
    ASSERT_EQ(l.items[7].bucket, 20260209);
    kc_message_list_free(&l);

    /* Every page size, before any flush (the cache) and after it (messages_bucket). */
    int all_days[] = {0, 1, 4, 5, 9, 30};
    (void)all_days;
    for (int pass = 0; pass < 2; pass++) {
        int pages[] = {1, 2, 3, 5, 7, 50};
        for (int p = 0; p < 6; p++) {
            static char texts[512][32];
            size_t got = read_back(db, room, pages[p], texts, 512);
            ASSERT_EQ(got, 1 + 7 + 3 + 12 + 1 + 5);
            ASSERT_STR_EQ(texts[0], "alice created the room");
            check_history_from(texts + 1, got - 1, days, counts, 5);
        }
        ASSERT_KC(kc_flush(db, &e_));
    }
    /* messages_bucket holds exactly the days with messages, newest first. */
    const CassResult *r = QUERY(cn.session, "SELECT time_bucket FROM killrchat.messages_bucket "
                                            "WHERE room_name = 'history'");
    int want[] = {20260209, 20260119, 20260115, 20260114, 20260111, 20260110};
    ASSERT_EQ(cass_result_row_count(r), 6);
    CassIterator *it = cass_iterator_from_result(r);
    for (int i = 0; cass_iterator_next(it); i++) {
        cass_int32_t d;
        cass_value_get_int32(cass_row_get_column(cass_iterator_get_row(it), 0), &d);
        ASSERT_EQ(d, want[i]);
    }
    cass_iterator_free(it);
    cass_result_free(r);
    kc_user_free(&a);
    close_db(db);
    conn_close(&cn);
}

TEST(messages_ids_unique_within_a_tick)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 0);
    add_user(db, "alice");
    kc_user a = user_of(db, "alice");
    /* The clock stands still: 120 messages in one microsecond keep their order. */
    atomic_store(&clock_now, day_time(2, 100));
    CassUuid ids[120];
    for (int i = 0; i < 120; i++) {
        char text[16];
        snprintf(text, sizeof text, "m%d", i);
        ASSERT_KC(kc_post_message(db, &a, "still", text, &ids[i], &e_));
        if (i > 0)
            ASSERT(ids[i].time_and_version != ids[i - 1].time_and_version);
    }
    kc_message_list l;
    ASSERT_KC(kc_messages_latest(db, "still", 200, &l, &e_));
    ASSERT_EQ(l.count, 120);
    for (int i = 0; i < 120; i++) {
        char text[16];
        snprintf(text, sizeof text, "m%d", i);
        ASSERT_STR_EQ(l.items[i].content, text);
        ASSERT_EQ(l.items[i].bucket, 20260112);
    }
    kc_message_list_free(&l);
    /* A second db of the same process makes other ids for the same instant. */
    kc_db *db2 = open_db(cn.session, 0, 0);
    CassUuid other;
    ASSERT_KC(kc_post_message(db2, &a, "still", "from db2", &other, &e_));
    ASSERT(other.clock_seq_and_node != ids[0].clock_seq_and_node);
    ASSERT_KC(kc_messages_latest(db, "still", 200, &l, &e_));
    ASSERT_EQ(l.count, 121);
    kc_message_list_free(&l);
    close_db(db2);
    kc_user_free(&a);
    close_db(db);
    conn_close(&cn);
}

TEST(messages_after_for_pollers)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 0);
    add_user(db, "alice");
    kc_user a = user_of(db, "alice");
    atomic_store(&clock_now, day_time(3, 23 * 3600 + 3590));
    CassUuid first, id;
    ASSERT_KC(kc_post_message(db, &a, "poll", "one", &first, &e_));
    ASSERT_KC(kc_post_message(db, &a, "poll", "two", NULL, &e_));
    ASSERT_KC(kc_post_message(db, &a, "poll", "three", &id, &e_));
    kc_message_list l;
    ASSERT_KC(kc_messages_after(db, "poll", first, 10, &l, &e_));
    ASSERT_EQ(l.count, 2);
    ASSERT_STR_EQ(l.items[0].content, "two");
    ASSERT_STR_EQ(l.items[1].content, "three");
    kc_message_list_free(&l);
    ASSERT_KC(kc_messages_after(db, "poll", id, 10, &l, &e_));
    ASSERT_EQ(l.count, 0);
    kc_message_list_free(&l);

    /* Midnight passes; a poller of another db (its own cache, nothing flushed) sees the new
       day's messages through the clock's current day. */
    kc_db *poller = open_db(cn.session, 0, 0);
    atomic_store(&clock_now, day_time(4, 5));
    ASSERT_KC(kc_post_message(db, &a, "poll", "four", NULL, &e_));
    ASSERT_KC(kc_post_message(db, &a, "poll", "five", NULL, &e_));
    ASSERT_KC(kc_messages_after(poller, "poll", id, 1, &l, &e_));
    ASSERT_EQ(l.count, 1);
    ASSERT_STR_EQ(l.items[0].content, "four");
    CassUuid four = l.items[0].id;
    kc_message_list_free(&l);
    ASSERT_KC(kc_messages_after(poller, "poll", four, 10, &l, &e_));
    ASSERT_EQ(l.count, 1);
    ASSERT_STR_EQ(l.items[0].content, "five");
    kc_message_list_free(&l);
    /* And pages back over the day boundary. */
    ASSERT_KC(kc_messages_latest(poller, "poll", 4, &l, &e_));
    ASSERT_EQ(l.count, 4);
    ASSERT_STR_EQ(l.items[0].content, "two");
    ASSERT_STR_EQ(l.items[3].content, "five");
    kc_message_list_free(&l);
    /* Many days later, with days between, after() still crosses them (once flushed). */
    atomic_store(&clock_now, day_time(20, 0));
    ASSERT_KC(kc_post_message(db, &a, "poll", "six", NULL, &e_));
    ASSERT_KC(kc_flush(db, &e_));
    ASSERT_KC(kc_messages_after(poller, "poll", first, 100, &l, &e_));
    ASSERT_EQ(l.count, 5);
    ASSERT_STR_EQ(l.items[4].content, "six");
    kc_message_list_free(&l);
    close_db(poller);
    kc_user_free(&a);
    close_db(db);
    conn_close(&cn);
}

/* ---- The write-behind cache ------------------------------------------------------------ */

TEST(buckets_flushed_on_close)
{
    char dir[512], uri[600];
    snprintf(dir, sizeof dir, "%s/db", test_tmpdir());
    snprintf(uri, sizeof uri, "file:%s", dir);
    conn cn;
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(test_database(c, uri), CASS_OK);
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    kc_db *db = open_db(cn.session, 0, 0);
    add_user(db, "alice");
    kc_user a = user_of(db, "alice");
    int days[] = {1, 2, 6, 11};
    int counts[] = {3, 2, 4, 3};
    for (int d = 0; d < 4; d++)
        post_day(db, &a, "closing", days[d], counts[d]);
    /* Written behind: nothing in messages_bucket until the close. */
    ASSERT_EQ(count_rows(cn.session, "SELECT * FROM killrchat.messages_bucket"), 0);
    close_db(db);
    ASSERT_EQ(count_rows(cn.session, "SELECT * FROM killrchat.messages_bucket"), 4);
    conn_close(&cn);

    /* Another session, another db (an empty cache), the clock well past: all days found. */
    atomic_store(&clock_now, day_time(40, 0));
    c = cass_cluster_new();
    ASSERT_EQ(test_database(c, uri), CASS_OK);
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    db = open_db(cn.session, 0, 0);
    static char texts[64][32];
    size_t got = read_back(db, "closing", 2, texts, 64);
    check_history_from(texts, got, days, counts, 4);
    kc_user_free(&a);
    close_db(db);
    conn_close(&cn);
}

TEST(buckets_flushed_in_background)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 0, 20);
    add_user(db, "alice");
    kc_user a = user_of(db, "alice");
    post_day(db, &a, "bg", 1, 2);
    post_day(db, &a, "bg", 5, 2);
    int64_t n = 0;
    for (int i = 0; i < 300 && n < 2; i++) {
        n = count_rows(cn.session, "SELECT * FROM killrchat.messages_bucket");
        if (n < 2)
            usleep(10000);
    }
    ASSERT_EQ(n, 2);
    kc_user_free(&a);
    close_db(db);
    conn_close(&cn);
}

/* ---- The races of room participants (seed, section III) -------------------------------- */

#define RACERS 6

typedef struct racer {
    kc_db *db;
    const char *login;
    const char *room;
    int op;           /* 0 join, 1 leave, 2 delete (a stranger's), 3 join then leave */
    int rounds;
    uint64_t seed;
    _Atomic int *go;
    kc_status last;
    char msg[256];
} racer;

static void spin_until(_Atomic int *go)
{
    while (!atomic_load(go))
        ;
}

static void *racer_main(void *arg)
{
    racer *r = arg;
    kc_err e;
    spin_until(r->go);
    for (int i = 0; i < r->rounds; i++) {
        kc_status s = KC_OK;
        switch (r->op) {
        case 0:
            s = kc_join_room(r->db, r->login, r->room, &e);
            break;
        case 1:
            s = kc_leave_room(r->db, r->login, r->room, &e);
            break;
        case 2:
            s = kc_delete_room(r->db, r->login, r->room, &e);
            break;
        case 3:
            s = (test_rand(&r->seed) & 1) ? kc_join_room(r->db, r->login, r->room, &e)
                                          : kc_leave_room(r->db, r->login, r->room, &e);
            break;
        }
        r->last = s;
        if (s != KC_OK)
            snprintf(r->msg, sizeof r->msg, "%s", e.msg);
        else
            r->msg[0] = '\0';
    }
    return NULL;
}

/* Runs racers[0..n) and, at the same time, the creator's deletion of room when del is set;
   returns the deletion's status. */
static kc_status race(racer *racers, int n, kc_db *db, const char *creator, const char *room,
                      int del, uint64_t *seed)
{
    _Atomic int go = 0;
    pthread_t th[RACERS * 2];
    for (int i = 0; i < n; i++) {
        racers[i].go = &go;
        ASSERT_EQ(pthread_create(&th[i], NULL, racer_main, &racers[i]), 0);
    }
    atomic_store(&go, 1);
    kc_status s = KC_OK;
    kc_err e;
    if (del) {
        usleep((useconds_t)(test_rand(seed) % 400));
        s = kc_delete_room(db, creator, room, &e);
        if (s != KC_OK && s != KC_NOT_FOUND)
            test_fail(__FILE__, __LINE__, "delete %s: %s: %s", room, kc_status_name(s), e.msg);
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    return s;
}

static int race_rounds(void)
{
    return test_long() ? 40 : 6;
}

/* A: joins racing the deletion. A join after the deletion fails; a join before it is seen by
   the deletion's condition, whose retry cleans the joiner's list. No one lists the room. */
TEST(race_join_against_delete)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 1, 0);
    uint64_t seed = test_seed();
    char users[RACERS + 1][16];
    snprintf(users[RACERS], 16, "owner");
    add_user(db, "owner");
    for (int i = 0; i < RACERS; i++) {
        snprintf(users[i], 16, "u%d", i);
        add_user(db, users[i]);
    }
    int joined_some = 0, refused_some = 0;
    for (int round = 0; round < race_rounds(); round++) {
        char room[32];
        snprintf(room, sizeof room, "a%d", round);
        ASSERT_KC(kc_create_room(db, "owner", room, NULL, &e_));
        racer rs[RACERS];
        for (int i = 0; i < RACERS; i++)
            rs[i] = (racer){.db = db, .login = users[i], .room = room, .op = 0, .rounds = 1};
        ASSERT_EQ(race(rs, RACERS, db, "owner", room, 1, &seed), KC_OK);
        for (int i = 0; i < RACERS; i++) {
            if (rs[i].last != KC_OK && rs[i].last != KC_NOT_FOUND)
                test_fail(__FILE__, __LINE__, "join: %s: %s", kc_status_name(rs[i].last),
                          rs[i].msg);
            joined_some += rs[i].last == KC_OK;
            refused_some += rs[i].last == KC_NOT_FOUND;
        }
        kc_room r;
        ASSERT_KC_IS(KC_NOT_FOUND, kc_get_room(db, room, &r, &e_));
        check_room_invariant(db, room, users, RACERS + 1);
    }
    /* Both outcomes are possible; over the rounds some joins normally land on each side. */
    (void)joined_some;
    (void)refused_some;
    close_db(db);
    conn_close(&cn);
}

/* B: leaves racing the deletion: no transaction needed, the room ends deleted and listed by
   no one. */
TEST(race_leave_against_delete)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 1, 0);
    uint64_t seed = test_seed();
    char users[RACERS + 1][16];
    snprintf(users[RACERS], 16, "owner");
    add_user(db, "owner");
    for (int i = 0; i < RACERS; i++) {
        snprintf(users[i], 16, "u%d", i);
        add_user(db, users[i]);
    }
    for (int round = 0; round < race_rounds(); round++) {
        char room[32];
        snprintf(room, sizeof room, "b%d", round);
        ASSERT_KC(kc_create_room(db, "owner", room, NULL, &e_));
        for (int i = 0; i < RACERS; i++)
            ASSERT_KC(kc_join_room(db, users[i], room, &e_));
        racer rs[RACERS];
        for (int i = 0; i < RACERS; i++)
            rs[i] = (racer){.db = db, .login = users[i], .room = room, .op = 1, .rounds = 1};
        ASSERT_EQ(race(rs, RACERS, db, "owner", room, 1, &seed), KC_OK);
        for (int i = 0; i < RACERS; i++)
            if (rs[i].last != KC_OK && rs[i].last != KC_NOT_FOUND)
                test_fail(__FILE__, __LINE__, "leave: %s: %s", kc_status_name(rs[i].last),
                          rs[i].msg);
        check_room_invariant(db, room, users, RACERS + 1);
        kc_room r;
        ASSERT_KC_IS(KC_NOT_FOUND, kc_get_room(db, room, &r, &e_));
    }
    close_db(db);
    conn_close(&cn);
}

/* C: participants who are not the creator try to delete the room while others join and
   leave: every one of them is refused, and the room keeps exactly the participants whose
   lists name it (no one who left is listed). Then the creator deletes it while the others
   go on. */
TEST(race_strangers_delete_while_members_come_and_go)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 1, 0);
    uint64_t seed = test_seed();
    char users[RACERS + 1][16];
    snprintf(users[RACERS], 16, "owner");
    add_user(db, "owner");
    for (int i = 0; i < RACERS; i++) {
        snprintf(users[i], 16, "u%d", i);
        add_user(db, users[i]);
    }
    for (int round = 0; round < race_rounds() / 2; round++) {
        char room[32];
        snprintf(room, sizeof room, "c%d", round);
        ASSERT_KC(kc_create_room(db, "owner", room, NULL, &e_));
        racer rs[RACERS];
        for (int i = 0; i < RACERS; i++) {
            int stranger = i < 2;
            if (stranger)
                ASSERT_KC(kc_join_room(db, users[i], room, &e_));
            rs[i] = (racer){.db = db, .login = users[i], .room = room, .op = stranger ? 2 : 3,
                            .rounds = 4, .seed = seed + (uint64_t)i * 7919 + 1};
        }
        race(rs, RACERS, db, "owner", room, 0, &seed);
        for (int i = 0; i < RACERS; i++) {
            if (i < 2)
                ASSERT_EQ(rs[i].last, KC_FORBIDDEN);
            else if (rs[i].last != KC_OK)
                test_fail(__FILE__, __LINE__, "%s: %s: %s", users[i],
                          kc_status_name(rs[i].last), rs[i].msg);
        }
        check_room_invariant(db, room, users, RACERS + 1);
        kc_room r;
        ASSERT_KC(kc_get_room(db, room, &r, &e_));
        ASSERT_STR_EQ(r.creator.login, "owner");
        ASSERT(in_room(&r, "u0") && in_room(&r, "u1"));
        kc_room_free(&r);

        /* The creator's deletion against the same comings and goings. */
        for (int i = 2; i < RACERS; i++)
            rs[i].rounds = 3;
        race(rs + 2, RACERS - 2, db, "owner", room, 1, &seed);
        ASSERT_KC_IS(KC_NOT_FOUND, kc_get_room(db, room, &r, &e_));
        check_room_invariant(db, room, users, RACERS + 1);
    }
    close_db(db);
    conn_close(&cn);
}

/* Several threads post to one room on one db: every message is there once, in id order. */
enum { POSTERS = 4, POSTS_EACH = 40 };

typedef struct poster {
    kc_db *db;
    const kc_user *u;
    int t;
    int fails;
} poster;

static void *poster_main(void *arg)
{
    poster *p = arg;
    for (int i = 0; i < POSTS_EACH; i++) {
        char text[32];
        snprintf(text, sizeof text, "t%d-%d", p->t, i);
        if (kc_post_message(p->db, p->u, "busy", text, NULL, NULL) != KC_OK)
            p->fails++;
    }
    return NULL;
}

TEST(race_posters)
{
    conn cn;
    MEMORY_CONNECT(&cn);
    kc_db *db = open_db(cn.session, 1, 10);
    add_user(db, "alice");
    kc_user a = user_of(db, "alice");
    poster ps[POSTERS];
    pthread_t th[POSTERS];
    for (int t = 0; t < POSTERS; t++) {
        ps[t] = (poster){db, &a, t, 0};
        ASSERT_EQ(pthread_create(&th[t], NULL, poster_main, &ps[t]), 0);
    }
    for (int t = 0; t < POSTERS; t++) {
        pthread_join(th[t], NULL);
        ASSERT_EQ(ps[t].fails, 0);
    }
    kc_message_list l;
    ASSERT_KC(kc_messages_latest(db, "busy", 1000, &l, &e_));
    ASSERT_EQ(l.count, POSTERS * POSTS_EACH);
    int next[POSTERS] = {0};
    for (size_t i = 0; i < l.count; i++) {
        int t, k;
        ASSERT_EQ(sscanf(l.items[i].content, "t%d-%d", &t, &k), 2);
        ASSERT(t >= 0 && t < POSTERS);
        ASSERT_EQ(k, next[t]); /* each thread's messages in its order */
        next[t]++;
        if (i > 0)
            ASSERT(cass_uuid_timestamp(l.items[i - 1].id) <= cass_uuid_timestamp(l.items[i].id));
    }
    kc_message_list_free(&l);
    kc_user_free(&a);
    close_db(db);
    conn_close(&cn);
}
