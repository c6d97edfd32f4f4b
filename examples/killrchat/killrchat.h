/*
 * KillrChat: the data layer of a chat application on Cassandra, after DuyHai Doan's reference
 * application (docs/examples.md). Users sign up and log in, create chat rooms, join and leave
 * them, and post messages; the history of a room is paged back day by day.
 *
 * Tables (keyspace killrchat):
 *   users               one partition per login: salted password hash, names, the set of rooms
 *                       the user joined
 *   chat_rooms          one partition per room: creator (frozen<user>), banner, creation date and
 *                       the participants (set<frozen<user>>)
 *   chat_room_messages  one partition per room and UTC day (time_bucket = yyyymmdd), messages
 *                       newest first by their timeuuid
 *   messages_bucket     the days of a room that hold messages, newest first, so that paging back
 *                       skips empty days; written behind a cache of this process (below)
 *
 * Concurrency on room participants (the three cases of the seed): joining is a lightweight
 * transaction (IF EXISTS) so a deleted room is never brought back by a join; leaving needs none
 * (removals are tombstones); deleting is a lightweight transaction on the creator and on the
 * exact participant set read before, retried when that set changed, so every participant's room
 * list is cleaned afterwards. A joiner that lost a race with the deletion removes the room from
 * its own list again.
 *
 * Written against <cassandra.h> alone: it compiles unchanged against the DataStax C/C++ driver.
 *
 * Errors: every fallible function returns a kc_status and, when err is not NULL, fills *err with
 * the same code and one line of text (the server's message for KC_ERROR).
 * Memory: results are the caller's and are freed with the matching kc_*_free function; strings
 * passed in are copied, never kept.
 * Threads: a kc_db may be used from any number of threads at once, as its CassSession may.
 *
 * The day-bucket cache: each kc_db remembers, per room, the newest days it saw messages on (at
 * most 32 a room; a day not yet written is never dropped) and writes a day to messages_bucket
 * once. Another kc_db, in this process or elsewhere, sees those days once they are flushed
 * (kc_options.flush_interval_ms, kc_flush, kc_close); the clock's current and previous day are
 * always read, so with a real clock nothing recent is missed before a flush.
 */
#ifndef EXAMPLES_KILLRCHAT_H
#define EXAMPLES_KILLRCHAT_H

#include <cassandra.h>
#include <stddef.h>
#include <stdint.h>

typedef enum kc_status {
    KC_OK = 0,
    KC_ERROR,         /* the database failed the request (driver or server message in err) */
    KC_INVALID,       /* an argument is empty, too long or malformed */
    KC_EXISTS,        /* the login or room name is taken */
    KC_NOT_FOUND,     /* no such user or room (a deleted room included) */
    KC_BAD_PASSWORD,  /* the password does not match */
    KC_FORBIDDEN,     /* only the creator of a room may delete it */
    KC_CONFLICT,      /* a room kept changing while it was being deleted; try again */
    KC_NOMEM          /* out of memory */
} kc_status;

typedef struct kc_err {
    kc_status code;
    char msg[256];
} kc_err;

/* The name of a status ("ok", "not found", ...); never NULL. */
const char *kc_status_name(kc_status s);

/* The limits kc_* functions check (KC_INVALID beyond them). Logins and room names are 1 to 64
   bytes without spaces or control characters; a message is 1 to 4096 bytes. */
#define KC_NAME_MAX 64
#define KC_MESSAGE_MAX 4096
/* Messages returned by kc_messages_latest when the caller does not say (the seed's 50). */
#define KC_PAGE_DEFAULT 50

/* The clock of a kc_db: microseconds since 1970-01-01 UTC. */
typedef int64_t (*kc_clock_fn)(void *arg);

/* How expensive password hashing is (libsodium's crypto_pwhash limits). Verification reads the
   cost from the stored hash, so databases may mix them. */
typedef enum kc_password_cost {
    KC_PASSWORD_INTERACTIVE = 0, /* crypto_pwhash_*_INTERACTIVE: for people (the default) */
    KC_PASSWORD_MODERATE,        /* crypto_pwhash_*_MODERATE */
    KC_PASSWORD_MIN              /* crypto_pwhash_*_MIN: tests and benchmarks only */
} kc_password_cost;

typedef struct kc_options {
    /* Time source for message ids, day buckets and creation dates; NULL is the real clock.
       Called from any thread that uses the kc_db. */
    kc_clock_fn clock;
    void *clock_arg;
    /* Milliseconds of real time between flushes of the day-bucket cache by a background thread
       (default 1000); 0 runs no thread: the cache is flushed by kc_flush and kc_close only. */
    int flush_interval_ms;
    /* Create the keyspace, type and tables if missing (default 1). */
    int create_schema;
    kc_password_cost password_cost;
} kc_options;

/* Fills *o with the defaults (real clock, flush every second, create schema, interactive). */
void kc_options_init(kc_options *o);

/* A login with the names shown next to it: the CQL type killrchat.user. */
typedef struct kc_user {
    char *login;
    char *firstname;
    char *lastname;
} kc_user;

typedef struct kc_profile {
    kc_user user;
    char *email;
    char *bio;
    char **rooms;   /* the rooms the user joined, sorted */
    size_t n_rooms;
} kc_profile;

typedef struct kc_room {
    char *name;
    char *banner;
    kc_user creator;
    int64_t creation_date;  /* milliseconds since the epoch */
    kc_user *participants;  /* sorted by login */
    size_t n_participants;
} kc_room;

typedef struct kc_room_list {
    kc_room *items;
    size_t count;
} kc_room_list;

typedef struct kc_message {
    CassUuid id;            /* a timeuuid: the position of the message in its room */
    int64_t time_us;        /* the time in id, microseconds since the epoch */
    int32_t bucket;         /* the UTC day of time_us, yyyymmdd */
    kc_user author;
    char *content;
    int system;             /* 1 for "X joined" / "X left" notices */
} kc_message;

/* Messages, oldest first. */
typedef struct kc_message_list {
    kc_message *items;
    size_t count;
} kc_message_list;

typedef struct kc_db kc_db;

/*
 * Opens the data layer on session, which stays the caller's and must outlive the kc_db: creates
 * the schema when asked, prepares the statements and starts the flush thread. options may be
 * NULL for the defaults. On success *out is the caller's (kc_close).
 * Errors: KC_ERROR (schema or prepare failed), KC_NOMEM.
 */
kc_status kc_open(CassSession *session, const kc_options *options, kc_db **out, kc_err *err);

/*
 * Stops the flush thread, writes every day bucket still in the cache and frees db (always, even
 * when that write fails: the status says whether it did). NULL is ignored. No other call may
 * be running on db.
 */
kc_status kc_close(kc_db *db, kc_err *err);

/* Writes the day buckets of the cache not yet in messages_bucket. KC_ERROR leaves them in the
   cache for the next flush. */
kc_status kc_flush(kc_db *db, kc_err *err);

/* The current time of db's clock, microseconds since the epoch. */
int64_t kc_now(const kc_db *db);

/* The UTC day of a time in microseconds as yyyymmdd (the time_bucket of its messages). */
int32_t kc_day_bucket(int64_t time_us);

/* ---- Users --------------------------------------------------------------------------- */

/*
 * Creates an account (INSERT ... IF NOT EXISTS): the password is stored only as a salted
 * crypto_pwhash_str hash. firstname, lastname, email and bio may be NULL (empty).
 * Errors: KC_INVALID (login, empty password), KC_EXISTS (login taken), KC_ERROR, KC_NOMEM.
 */
kc_status kc_create_user(kc_db *db, const char *login, const char *password,
                         const char *firstname, const char *lastname, const char *email,
                         const char *bio, kc_err *err);

/*
 * Checks a login's password. On success, when user is not NULL, *user is the caller's
 * (kc_user_free).
 * Errors: KC_NOT_FOUND (no such login), KC_BAD_PASSWORD, KC_INVALID, KC_ERROR, KC_NOMEM.
 */
kc_status kc_login(kc_db *db, const char *login, const char *password, kc_user *user,
                   kc_err *err);

/* A user's profile, with the rooms joined. *out is the caller's (kc_profile_free).
   Errors: KC_NOT_FOUND, KC_INVALID, KC_ERROR, KC_NOMEM. */
kc_status kc_get_profile(kc_db *db, const char *login, kc_profile *out, kc_err *err);

void kc_user_free(kc_user *u);
void kc_profile_free(kc_profile *p);

/* ---- Rooms --------------------------------------------------------------------------- */

/*
 * Creates a room (INSERT ... IF NOT EXISTS) with creator as its first participant, adds it to
 * the creator's rooms and posts "LOGIN created the room". banner may be NULL.
 * Errors: KC_EXISTS (name taken), KC_NOT_FOUND (no such creator), KC_INVALID, KC_ERROR.
 */
kc_status kc_create_room(kc_db *db, const char *creator_login, const char *room,
                         const char *banner, kc_err *err);

/*
 * Adds login to a room's participants (UPDATE ... IF EXISTS), the room to the user's rooms, and
 * posts "X joined". Joining a room one is already in changes nothing and succeeds.
 * Errors: KC_NOT_FOUND (no such room, deleted included, or no such user), KC_INVALID, KC_ERROR.
 */
kc_status kc_join_room(kc_db *db, const char *login, const char *room, kc_err *err);

/*
 * Removes login from a room's participants and the room from the user's rooms, and posts
 * "X left" when the user was a participant. A user who was not in the room: KC_OK, nothing
 * posted.
 * Errors: KC_NOT_FOUND (no such room, whose name is still removed from the user's rooms, or
 * no such user), KC_INVALID, KC_ERROR.
 */
kc_status kc_leave_room(kc_db *db, const char *login, const char *room, kc_err *err);

/*
 * Deletes a room: DELETE ... IF creator_login = login AND participants = <as read>, retried
 * while participants change; then removes the room from every participant's rooms and deletes
 * its messages and day buckets.
 * Errors: KC_FORBIDDEN (login is not the creator), KC_NOT_FOUND, KC_CONFLICT (participants
 * changed on every one of many attempts), KC_INVALID, KC_ERROR.
 */
kc_status kc_delete_room(kc_db *db, const char *login, const char *room, kc_err *err);

/* One room. *out is the caller's (kc_room_free). Errors: KC_NOT_FOUND, KC_INVALID, KC_ERROR. */
kc_status kc_get_room(kc_db *db, const char *room, kc_room *out, kc_err *err);

/* Up to limit rooms (all when limit <= 0), sorted by name: a scan of chat_rooms, for small
   deployments and the client's /rooms. *out is the caller's (kc_room_list_free). */
kc_status kc_list_rooms(kc_db *db, int limit, kc_room_list *out, kc_err *err);

void kc_room_free(kc_room *r);
void kc_room_list_free(kc_room_list *l);

/* ---- Messages ------------------------------------------------------------------------ */

/*
 * Posts content to room as author (a user as kc_login returned it; the caller vouches that the
 * author joined the room). The message id is a timeuuid of db's clock, unique within the
 * process even within one clock tick; it goes to *id when id is not NULL. The day bucket is
 * recorded in the cache, written to messages_bucket behind.
 * Errors: KC_INVALID (empty or longer than KC_MESSAGE_MAX, bad names), KC_ERROR, KC_NOMEM.
 */
kc_status kc_post_message(kc_db *db, const kc_user *author, const char *room,
                          const char *content, CassUuid *id, kc_err *err);

/*
 * The last limit messages of a room (KC_PAGE_DEFAULT when limit <= 0), oldest first, over as
 * many day buckets as needed. *out is the caller's (kc_message_list_free); an empty room gives
 * an empty list.
 */
kc_status kc_messages_latest(kc_db *db, const char *room, int limit, kc_message_list *out,
                             kc_err *err);

/*
 * The limit messages just before message id before (exclusive), oldest first: the next page
 * back is the one before out->items[0].id. Crosses day buckets, skipping empty days through
 * messages_bucket; an empty list means the start of the room's history.
 */
kc_status kc_messages_before(kc_db *db, const char *room, CassUuid before, int limit,
                             kc_message_list *out, kc_err *err);

/*
 * The first limit messages after message id after (exclusive), oldest first: what a poller
 * shows when its newest message is after. Calling it again with the last id returned
 * continues.
 */
kc_status kc_messages_after(kc_db *db, const char *room, CassUuid after, int limit,
                            kc_message_list *out, kc_err *err);

void kc_message_list_free(kc_message_list *l);

/* The id as text (CASS_UUID_STRING_LENGTH bytes with the NUL) into buf. */
void kc_uuid_string(CassUuid id, char buf[CASS_UUID_STRING_LENGTH]);

#endif
