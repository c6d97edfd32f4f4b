/*
 * killrchat-demo: a narrated KillrChat scenario on an embedded database, what `make demo`
 * runs. Two people sign up (a third loses the race for a login), rooms are created and joined,
 * a participant who did not create a room cannot delete it, a conversation runs across UTC
 * midnight into two day buckets, the history is paged back across them, and a room is deleted.
 *
 * The data layer (killrchat.h) takes its time from a clock function; here that clock is the
 * demo's own, moved on by minutes and days, and cassette's virtual clock (cassette.h) follows it
 * so the database's write times agree. The data layer itself knows nothing of cassette.
 *
 *   killrchat-demo [DIR]    DIR: the database directory (default: a new one under /tmp)
 */
#include <cassandra.h>
#include <cassette.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../common/cqlutil.h"
#include "killrchat.h"

#define MINUTE_US (60LL * 1000000)
#define DAY_US (24LL * 60 * MINUTE_US)

/* The demo's clock: read by the data layer, moved by the story. */
static int64_t demo_now_us;
static CassSession *demo_session;

static int64_t demo_clock(void *arg)
{
    (void)arg;
    return __atomic_load_n(&demo_now_us, __ATOMIC_SEQ_CST);
}

/* Moves both clocks (the data layer's and the database's) to t. */
static void set_time(int64_t t)
{
    __atomic_store_n(&demo_now_us, t, __ATOMIC_SEQ_CST);
    cassette_session_clock_set(demo_session, t);
}

static void advance(int64_t delta_us)
{
    set_time(demo_now_us + delta_us);
}

static const char *clock_text(int64_t t_us, char *buf, size_t cap)
{
    time_t s = (time_t)(t_us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

/* Ends the demo when a step that must succeed did not. */
static void must(kc_status s, const kc_err *err, const char *what)
{
    if (s != KC_OK) {
        fprintf(stderr, "killrchat-demo: %s failed: %s\n", what, err->msg);
        exit(1);
    }
}

static void print_messages(const kc_message_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        const kc_message *m = &l->items[i];
        char when[32];
        if (m->system)
            say("      %s  -- %s\n", clock_text(m->time_us, when, sizeof when), m->content);
        else
            say("      %s  %s: %s\n", clock_text(m->time_us, when, sizeof when), m->author.login,
                m->content);
    }
}

/* ---- the race for one login ---- */

typedef struct signup {
    kc_db *db;
    const char *who;
    kc_status status;
} signup;

static void *race_signup(void *arg)
{
    signup *s = arg;
    kc_err err;
    s->status = kc_create_user(s->db, "bob", s->who, "Bob", s->who, NULL, NULL, &err);
    return NULL;
}

/* Returns the winner's password (the name it signed up with). */
static const char *login_race(kc_db *db)
{
    signup a = {db, "Builder", KC_ERROR}, b = {db, "Dylan", KC_ERROR};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, race_signup, &a);
    pthread_create(&tb, NULL, race_signup, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    const signup *won = a.status == KC_OK ? &a : &b, *lost = won == &a ? &b : &a;
    say("  Bob Builder and Bob Dylan both sign up as \"bob\" at the same moment.\n"
        "  INSERT ... IF NOT EXISTS lets exactly one win: Bob %s gets the login,\n"
        "  Bob %s is told: %s.\n",
        won->who, lost->who, kc_status_name(lost->status));
    if (won->status != KC_OK || lost->status != KC_EXISTS) {
        fprintf(stderr, "killrchat-demo: the login race ended %s / %s\n",
                kc_status_name(a.status), kc_status_name(b.status));
        exit(1);
    }
    return won->who;
}

static void story(kc_db *db)
{
    kc_err err;
    char when[32];
    say("\n1. Accounts (passwords kept only as salted Argon2 hashes)\n");
    must(kc_create_user(db, "alice", "wonderland", "Alice", "Liddell", "alice@example.org",
                        "Curious.", &err),
         &err, "sign up alice");
    say("  alice signs up.\n");
    const char *bob_password = login_race(db);
    kc_user alice, bob;
    kc_status s = kc_login(db, "alice", "looking-glass", NULL, &err);
    say("  alice mistypes her password: %s.\n", kc_status_name(s));
    must(kc_login(db, "alice", "wonderland", &alice, &err), &err, "log in alice");
    must(kc_login(db, "bob", bob_password, &bob, &err), &err, "log in bob");
    say("  alice and bob log in.\n");

    say("\n2. Rooms (created with IF NOT EXISTS, joined with IF EXISTS)\n");
    must(kc_create_room(db, "alice", "tea-party", "Mad hatters only", &err), &err,
         "create tea-party");
    s = kc_create_room(db, "bob", "tea-party", NULL, &err);
    say("  alice creates \"tea-party\"; bob tries the same name: %s.\n", kc_status_name(s));
    must(kc_create_room(db, "bob", "workshop", "Can we fix it?", &err), &err, "create workshop");
    must(kc_join_room(db, "bob", "tea-party", &err), &err, "join tea-party");
    say("  bob creates \"workshop\" and joins \"tea-party\".\n");
    s = kc_delete_room(db, "bob", "tea-party", &err);
    say("  bob tries to delete \"tea-party\": %s (only its creator may:\n"
        "  DELETE ... IF creator_login = 'alice' AND participants = {...}).\n",
        kc_status_name(s));

    say("\n3. A conversation across midnight (messages are bucketed by UTC day)\n");
    say("  It is %s.\n", clock_text(demo_now_us, when, sizeof when));
    static const char *const lines[][2] = {
        {"alice", "Have you guessed the riddle yet?"},
        {"bob", "No, I give it up. What's the answer?"},
        {"alice", "I haven't the slightest idea."},
        {"bob", "Then why ask riddles with no answers?"},
        {"alice", "It's always six o'clock here: always tea-time."},
        {"bob", "Which is why there are so many cups?"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        must(kc_post_message(db, strcmp(lines[i][0], "alice") ? &bob : &alice, "tea-party",
                             lines[i][1], NULL, &err),
             &err, "post");
        advance(MINUTE_US);
    }
    say("  Six messages later it is %s: the last ones went to a new day.\n",
        clock_text(demo_now_us, when, sizeof when));

    kc_message_list page;
    must(kc_messages_latest(db, "tea-party", 4, &page, &err), &err, "latest");
    say("\n  The newest 4 messages (one query per day bucket touched):\n");
    print_messages(&page);
    CassUuid oldest = page.items[0].id;
    kc_message_list_free(&page);
    must(kc_messages_before(db, "tea-party", oldest, 4, &page, &err), &err, "page back");
    say("  The page before them, found through the room's bucket list:\n");
    print_messages(&page);
    kc_message_list_free(&page);

    say("\n4. Leaving and deleting\n");
    must(kc_leave_room(db, "bob", "tea-party", &err), &err, "leave");
    say("  bob leaves \"tea-party\" (a system message says so).\n");
    must(kc_join_room(db, "alice", "workshop", &err), &err, "join workshop");
    must(kc_delete_room(db, "bob", "workshop", &err), &err, "delete workshop");
    kc_profile p;
    must(kc_get_profile(db, "alice", &p, &err), &err, "profile");
    say("  alice joins \"workshop\", bob deletes it; alice's rooms are now:");
    for (size_t i = 0; i < p.n_rooms; i++)
        say(" %s", p.rooms[i]);
    say("\n");
    kc_profile_free(&p);
    s = kc_join_room(db, "alice", "workshop", &err);
    say("  Joining the deleted room: %s (IF EXISTS does not bring it back).\n",
        kc_status_name(s));
    kc_user_free(&alice);
    kc_user_free(&bob);
}

int main(int argc, char **argv)
{
    char dir[256];
    if (argc > 1) {
        snprintf(dir, sizeof dir, "%s", argv[1]);
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            perror(dir);
            return 1;
        }
    } else {
        snprintf(dir, sizeof dir, "/tmp/killrchat-demo.XXXXXX");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            return 1;
        }
    }
    char contact[300], msg[512];
    snprintf(contact, sizeof contact, "file:%s", dir);
    CassCluster *cluster;
    if (cu_connect(contact, &cluster, &demo_session, msg, sizeof msg) != CASS_OK) {
        fprintf(stderr, "killrchat-demo: %s\n", msg);
        return 1;
    }
    /* Two days ago, ten minutes before midnight UTC: the talk crosses into the next day. */
    int64_t today = (int64_t)time(NULL) * 1000000 / DAY_US * DAY_US;
    set_time(today - 2 * DAY_US + DAY_US - 3 * MINUTE_US);

    say("KillrChat on cassette: the data model of DuyHai Doan's KillrChat, run embedded\n"
        "through the Cassandra C/C++ driver API, in %s.\n", dir);
    kc_options o;
    kc_options_init(&o);
    o.clock = demo_clock;
    o.flush_interval_ms = 0;
    kc_db *db;
    kc_err err;
    must(kc_open(demo_session, &o, &db, &err), &err, "open");
    story(db);
    must(kc_close(db, &err), &err, "close");
    cassette_session_clock_real(demo_session);
    cu_disconnect(cluster, demo_session);

    say("\nEverything above is in %s. Chat in it yourself, in two terminals:\n"
        "    build/release/bin/killrchat file:%s\n"
        "(log in as alice / wonderland, or sign up; /help lists the commands).\n",
        dir, dir);
    return 0;
}
