/*
 * KillrChat's data layer (killrchat.h): the four tables of the seed, the lightweight
 * transactions on room participants, and the write-behind cache of the days that hold messages.
 *
 * Day buckets. A room's messages are partitioned by UTC day. Reading back walks the days from
 * newest to oldest; the next older day comes from messages_bucket (one row per day that holds
 * messages), merged with this process's cache of days not yet written there, plus the current
 * and previous day of the clock, which a writer elsewhere may not have flushed yet. A day is
 * written to messages_bucket once per process: the cache remembers the days already written.
 */
#include "killrchat.h"

#include "../common/cqlutil.h"

#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The offset between the UUID epoch (1582-10-15) and the unix epoch, in 100 ns units. */
#define UUID_EPOCH_OFFSET 0x01B21DD213814000ULL
#define DAY_US (86400LL * 1000000LL)
/* Attempts of a room deletion whose participants keep changing. */
#define DELETE_ATTEMPTS 200
/* Days of one room the cache keeps (the newest; days being written are never dropped). */
#define CACHE_DAYS_PER_ROOM 32
#define CACHE_SLOTS 1024

static const char *const schema_cql[] = {
    "CREATE KEYSPACE IF NOT EXISTS killrchat WITH replication = "
    "{'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TYPE IF NOT EXISTS killrchat.user (login text, firstname text, lastname text)",
    "CREATE TABLE IF NOT EXISTS killrchat.users (login text PRIMARY KEY, pass text, "
    "firstname text, lastname text, email text, bio text, chat_rooms set<text>)",
    "CREATE TABLE IF NOT EXISTS killrchat.chat_rooms (room_name text PRIMARY KEY, "
    "creator frozen<user>, creator_login text, creation_date timestamp, banner text, "
    "participants set<frozen<user>>)",
    "CREATE TABLE IF NOT EXISTS killrchat.chat_room_messages (room_name text, time_bucket int, "
    "message_id timeuuid, author frozen<user>, content text, system_message boolean, "
    "PRIMARY KEY ((room_name, time_bucket), message_id)) "
    "WITH CLUSTERING ORDER BY (message_id DESC)",
    "CREATE TABLE IF NOT EXISTS killrchat.messages_bucket (room_name text, time_bucket int, "
    "PRIMARY KEY (room_name, time_bucket)) WITH CLUSTERING ORDER BY (time_bucket DESC)",
    NULL,
};

enum {
    P_USER_INSERT,
    P_USER_GET,
    P_USER_ADD_ROOM,
    P_USER_DEL_ROOM,
    P_ROOM_INSERT,
    P_ROOM_GET,
    P_ROOM_LIST,
    P_ROOM_JOIN,
    P_ROOM_LEAVE,
    P_ROOM_DELETE,
    P_MSG_INSERT,
    P_MSG_LATEST,
    P_MSG_BEFORE,
    P_MSG_AFTER,
    P_MSG_DELETE_DAY,
    P_DAY_INSERT,
    P_DAY_BELOW,
    P_DAY_ABOVE,
    P_DAY_NEWEST,
    P_DAY_ALL,
    P_DAY_DELETE,
    P_COUNT
};

#define MSG_COLUMNS "SELECT message_id, author, content, system_message " \
                    "FROM killrchat.chat_room_messages WHERE room_name = ? AND time_bucket = ? "
#define ROOM_COLUMNS "SELECT room_name, creator, creator_login, creation_date, banner, " \
                     "participants FROM killrchat.chat_rooms"

static const char *const prepared_cql[P_COUNT] = {
    [P_USER_INSERT] = "INSERT INTO killrchat.users (login, pass, firstname, lastname, email, bio) "
                      "VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS",
    [P_USER_GET] = "SELECT login, pass, firstname, lastname, email, bio, chat_rooms "
                   "FROM killrchat.users WHERE login = ?",
    [P_USER_ADD_ROOM] = "UPDATE killrchat.users SET chat_rooms = chat_rooms + ? WHERE login = ?",
    [P_USER_DEL_ROOM] = "UPDATE killrchat.users SET chat_rooms = chat_rooms - ? WHERE login = ?",
    [P_ROOM_INSERT] = "INSERT INTO killrchat.chat_rooms (room_name, creator, creator_login, "
                      "creation_date, banner, participants) VALUES (?, ?, ?, ?, ?, ?) "
                      "IF NOT EXISTS",
    [P_ROOM_GET] = ROOM_COLUMNS " WHERE room_name = ?",
    [P_ROOM_LIST] = ROOM_COLUMNS,
    [P_ROOM_JOIN] = "UPDATE killrchat.chat_rooms SET participants = participants + ? "
                    "WHERE room_name = ? IF EXISTS",
    [P_ROOM_LEAVE] = "UPDATE killrchat.chat_rooms SET participants = participants - ? "
                     "WHERE room_name = ?",
    [P_ROOM_DELETE] = "DELETE FROM killrchat.chat_rooms WHERE room_name = ? "
                      "IF creator_login = ? AND participants = ?",
    [P_MSG_INSERT] = "INSERT INTO killrchat.chat_room_messages (room_name, time_bucket, "
                     "message_id, author, content, system_message) VALUES (?, ?, ?, ?, ?, ?)",
    [P_MSG_LATEST] = MSG_COLUMNS "LIMIT ?",
    [P_MSG_BEFORE] = MSG_COLUMNS "AND message_id < ? LIMIT ?",
    [P_MSG_AFTER] = MSG_COLUMNS "AND message_id > ? ORDER BY message_id ASC LIMIT ?",
    [P_MSG_DELETE_DAY] = "DELETE FROM killrchat.chat_room_messages "
                         "WHERE room_name = ? AND time_bucket = ?",
    [P_DAY_INSERT] = "INSERT INTO killrchat.messages_bucket (room_name, time_bucket) "
                     "VALUES (?, ?)",
    [P_DAY_BELOW] = "SELECT time_bucket FROM killrchat.messages_bucket "
                    "WHERE room_name = ? AND time_bucket < ? LIMIT 1",
    [P_DAY_ABOVE] = "SELECT time_bucket FROM killrchat.messages_bucket "
                    "WHERE room_name = ? AND time_bucket > ? ORDER BY time_bucket ASC LIMIT 1",
    [P_DAY_NEWEST] = "SELECT time_bucket FROM killrchat.messages_bucket "
                     "WHERE room_name = ? LIMIT 1",
    [P_DAY_ALL] = "SELECT time_bucket FROM killrchat.messages_bucket WHERE room_name = ?",
    [P_DAY_DELETE] = "DELETE FROM killrchat.messages_bucket WHERE room_name = ?",
};

/* The days of one room in the cache, newest first. */
enum { DAY_WRITTEN = 0, DAY_DIRTY = 1, DAY_FLUSHING = 2 };

typedef struct cache_room {
    struct cache_room *next;
    char *name;
    int32_t *days;
    unsigned char *state;
    size_t n, cap;
} cache_room;

struct kc_db {
    CassSession *session;
    kc_options opt;
    const CassPrepared *prep[P_COUNT];
    const CassDataType *user_type;   /* killrchat.user, from P_ROOM_INSERT's metadata */
    const CassDataType *users_type;  /* set<frozen<user>> */

    pthread_mutex_t id_lock;         /* message ids */
    uint64_t last_ticks;
    uint64_t clock_seq_and_node;

    pthread_mutex_t cache_lock;      /* the day-bucket cache */
    cache_room *slots[CACHE_SLOTS];

    pthread_mutex_t flush_lock;      /* the flush thread's stop flag */
    pthread_cond_t flush_cond;
    pthread_t flush_thread;
    int flush_running, flush_stop;
};

/* ---- Errors and small helpers ---------------------------------------------------------- */

const char *kc_status_name(kc_status s)
{
    switch (s) {
    case KC_OK: return "ok";
    case KC_ERROR: return "database error";
    case KC_INVALID: return "invalid argument";
    case KC_EXISTS: return "already exists";
    case KC_NOT_FOUND: return "not found";
    case KC_BAD_PASSWORD: return "wrong password";
    case KC_FORBIDDEN: return "forbidden";
    case KC_CONFLICT: return "conflict";
    case KC_NOMEM: return "out of memory";
    }
    return "unknown status";
}

__attribute__((format(printf, 3, 4)))
static kc_status fail(kc_err *err, kc_status s, const char *fmt, ...)
{
    if (err) {
        err->code = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

static kc_status ok(kc_err *err)
{
    if (err) {
        err->code = KC_OK;
        err->msg[0] = '\0';
    }
    return KC_OK;
}

static kc_status nomem(kc_err *err)
{
    return fail(err, KC_NOMEM, "out of memory");
}

/* A copy of n bytes of s (NULL s: ""), or NULL without memory. */
static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static char *dup0(const char *s)
{
    return dupn(s ? s : "", s ? strlen(s) : 0);
}

/* 1 when name is 1 to KC_NAME_MAX bytes without spaces or control characters. */
static int valid_name(const char *name)
{
    if (!name)
        return 0;
    size_t n = strlen(name);
    if (n == 0 || n > KC_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= ' ' || c == 0x7f)
            return 0;
    }
    return 1;
}

static kc_status check_name(const char *what, const char *name, kc_err *err)
{
    if (!valid_name(name))
        return fail(err, KC_INVALID, "%s must be 1 to %d characters without spaces", what,
                    KC_NAME_MAX);
    return KC_OK;
}

/* Executes st (freed here) and waits; *res, when res is not NULL, is the caller's. */
static kc_status run(kc_db *db, CassStatement *st, const CassResult **res, kc_err *err)
{
    char msg[sizeof err->msg];
    CassError rc = cu_execute(db->session, st, res, msg, sizeof msg);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return fail(err, KC_ERROR, "%s", msg);
    return KC_OK;
}

/* run for a lightweight transaction: *applied is its [applied] column (1, 0, or -1: none). */
static kc_status run_applied(kc_db *db, CassStatement *st, int *applied, kc_err *err)
{
    const CassResult *res;
    kc_status s = run(db, st, &res, err);
    if (s != KC_OK)
        return s;
    *applied = cu_applied(res);
    cass_result_free(res);
    return KC_OK;
}

/* Sleeps a random time growing with attempt (up to about 5 ms): lets racing writers spread. */
static void sleep_us_random(int attempt)
{
    uint32_t cap = (uint32_t)(attempt < 50 ? attempt : 50) * 100;
    struct timespec ts = {0, (long)randombytes_uniform(cap + 1) * 1000};
    nanosleep(&ts, NULL);
}

static CassStatement *bound(kc_db *db, int which)
{
    return cass_prepared_bind(db->prep[which]);
}

int64_t kc_now(const kc_db *db)
{
    if (db->opt.clock)
        return db->opt.clock(db->opt.clock_arg);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int32_t kc_day_bucket(int64_t time_us)
{
    int64_t secs = time_us / 1000000;
    if (time_us < 0 && time_us % 1000000)
        secs--;
    time_t t = (time_t)secs;
    struct tm tm;
    gmtime_r(&t, &tm);
    return (int32_t)((tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday);
}

void kc_uuid_string(CassUuid id, char buf[CASS_UUID_STRING_LENGTH])
{
    cass_uuid_string(id, buf);
}

/* A new message id: a version-1 UUID of time now_us, after every id this db made before. */
static CassUuid new_message_id(kc_db *db, int64_t now_us)
{
    uint64_t ticks = (uint64_t)now_us * 10 + UUID_EPOCH_OFFSET;
    pthread_mutex_lock(&db->id_lock);
    if (ticks <= db->last_ticks)
        ticks = db->last_ticks + 1;
    db->last_ticks = ticks;
    pthread_mutex_unlock(&db->id_lock);
    CassUuid id;
    id.time_and_version = (ticks & 0x0FFFFFFFFFFFFFFFULL) | (1ULL << 60);
    id.clock_seq_and_node = db->clock_seq_and_node;
    return id;
}

/* ---- Reading values -------------------------------------------------------------------- */

static char *value_string(const CassValue *v)
{
    const char *s = NULL;
    size_t n = 0;
    if (!v || cass_value_is_null(v) || cass_value_get_string(v, &s, &n) != CASS_OK)
        n = 0;
    return dupn(s, n);
}

static char *column_string(const CassRow *row, const char *column)
{
    return value_string(cass_row_get_column_by_name(row, column));
}

void kc_user_free(kc_user *u)
{
    if (!u)
        return;
    free(u->login);
    free(u->firstname);
    free(u->lastname);
    memset(u, 0, sizeof *u);
}

/* Reads a killrchat.user value into *u (fields the caller's). 0, or -1 without memory. */
static int read_user(const CassValue *v, kc_user *u)
{
    memset(u, 0, sizeof *u);
    if (v && !cass_value_is_null(v)) {
        CassIterator *it = cass_iterator_fields_from_user_type(v);
        while (it && cass_iterator_next(it)) {
            const char *name;
            size_t n;
            if (cass_iterator_get_user_type_field_name(it, &name, &n) != CASS_OK)
                continue;
            char **dst = NULL;
            if (n == 5 && memcmp(name, "login", 5) == 0)
                dst = &u->login;
            else if (n == 9 && memcmp(name, "firstname", 9) == 0)
                dst = &u->firstname;
            else if (n == 8 && memcmp(name, "lastname", 8) == 0)
                dst = &u->lastname;
            if (dst && !*dst)
                *dst = value_string(cass_iterator_get_user_type_field_value(it));
        }
        cass_iterator_free(it);
    }
    if (!u->login)
        u->login = dup0(NULL);
    if (!u->firstname)
        u->firstname = dup0(NULL);
    if (!u->lastname)
        u->lastname = dup0(NULL);
    if (!u->login || !u->firstname || !u->lastname) {
        kc_user_free(u);
        return -1;
    }
    return 0;
}

static int user_cmp(const void *a, const void *b)
{
    return strcmp(((const kc_user *)a)->login, ((const kc_user *)b)->login);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- Writing values -------------------------------------------------------------------- */

/* A killrchat.user value of u, or NULL. The caller frees it. */
static CassUserType *user_value(kc_db *db, const kc_user *u)
{
    CassUserType *ut = cass_user_type_new_from_data_type(db->user_type);
    if (!ut)
        return NULL;
    if (cass_user_type_set_string_by_name(ut, "login", u->login) != CASS_OK ||
        cass_user_type_set_string_by_name(ut, "firstname", u->firstname) != CASS_OK ||
        cass_user_type_set_string_by_name(ut, "lastname", u->lastname) != CASS_OK) {
        cass_user_type_free(ut);
        return NULL;
    }
    return ut;
}

/* A set<frozen<user>> of n users, or NULL. The caller frees it. */
static CassCollection *users_value(kc_db *db, const kc_user *users, size_t n)
{
    CassCollection *c = cass_collection_new_from_data_type(db->users_type, n);
    if (!c)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        CassUserType *ut = user_value(db, &users[i]);
        CassError rc = ut ? cass_collection_append_user_type(c, ut) : CASS_ERROR_LIB_BAD_PARAMS;
        cass_user_type_free(ut);
        if (rc != CASS_OK) {
            cass_collection_free(c);
            return NULL;
        }
    }
    return c;
}

static CassCollection *text_set(const char *s)
{
    CassCollection *c = cass_collection_new(CASS_COLLECTION_TYPE_SET, 1);
    if (c && cass_collection_append_string(c, s) != CASS_OK) {
        cass_collection_free(c);
        c = NULL;
    }
    return c;
}

/* ---- Users ----------------------------------------------------------------------------- */

void kc_profile_free(kc_profile *p)
{
    if (!p)
        return;
    kc_user_free(&p->user);
    free(p->email);
    free(p->bio);
    for (size_t i = 0; i < p->n_rooms; i++)
        free(p->rooms[i]);
    free(p->rooms);
    memset(p, 0, sizeof *p);
}

/* Reads a users row; *pass (when pass is not NULL) gets the stored hash. */
static kc_status user_read(kc_db *db, const char *login, kc_profile *out, char **pass,
                           kc_err *err)
{
    memset(out, 0, sizeof *out);
    if (pass)
        *pass = NULL;
    CassStatement *st = bound(db, P_USER_GET);
    cass_statement_bind_string(st, 0, login);
    const CassResult *res;
    kc_status s = run(db, st, &res, err);
    if (s != KC_OK)
        return s;
    const CassRow *row = cass_result_first_row(res);
    if (!row) {
        cass_result_free(res);
        return fail(err, KC_NOT_FOUND, "no user '%s'", login);
    }
    out->user.login = column_string(row, "login");
    out->user.firstname = column_string(row, "firstname");
    out->user.lastname = column_string(row, "lastname");
    out->email = column_string(row, "email");
    out->bio = column_string(row, "bio");
    int bad = !out->user.login || !out->user.firstname || !out->user.lastname || !out->email ||
              !out->bio;
    const CassValue *rooms = cass_row_get_column_by_name(row, "chat_rooms");
    if (!bad && rooms && !cass_value_is_null(rooms)) {
        size_t n = cass_value_item_count(rooms);
        out->rooms = calloc(n ? n : 1, sizeof *out->rooms);
        CassIterator *it = out->rooms ? cass_iterator_from_collection(rooms) : NULL;
        bad = !it;
        while (!bad && out->n_rooms < n && cass_iterator_next(it)) {
            char *r = value_string(cass_iterator_get_value(it));
            if (!r)
                bad = 1;
            else
                out->rooms[out->n_rooms++] = r;
        }
        cass_iterator_free(it);
        if (!bad)
            qsort(out->rooms, out->n_rooms, sizeof *out->rooms, str_cmp);
    }
    if (!bad && pass && !(*pass = column_string(row, "pass")))
        bad = 1;
    cass_result_free(res);
    if (bad) {
        kc_profile_free(out);
        if (pass) {
            free(*pass);
            *pass = NULL;
        }
        return nomem(err);
    }
    return ok(err);
}

kc_status kc_create_user(kc_db *db, const char *login, const char *password,
                         const char *firstname, const char *lastname, const char *email,
                         const char *bio, kc_err *err)
{
    kc_status s = check_name("a login", login, err);
    if (s != KC_OK)
        return s;
    if (!password || !*password)
        return fail(err, KC_INVALID, "the password is empty");
    unsigned long long ops;
    size_t mem;
    switch (db->opt.password_cost) {
    case KC_PASSWORD_MIN:
        ops = crypto_pwhash_OPSLIMIT_MIN;
        mem = crypto_pwhash_MEMLIMIT_MIN;
        break;
    case KC_PASSWORD_MODERATE:
        ops = crypto_pwhash_OPSLIMIT_MODERATE;
        mem = crypto_pwhash_MEMLIMIT_MODERATE;
        break;
    default:
        ops = crypto_pwhash_OPSLIMIT_INTERACTIVE;
        mem = crypto_pwhash_MEMLIMIT_INTERACTIVE;
        break;
    }
    char hash[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(hash, password, strlen(password), ops, mem) != 0)
        return nomem(err);
    CassStatement *st = bound(db, P_USER_INSERT);
    cass_statement_bind_string(st, 0, login);
    cass_statement_bind_string(st, 1, hash);
    cass_statement_bind_string(st, 2, firstname ? firstname : "");
    cass_statement_bind_string(st, 3, lastname ? lastname : "");
    cass_statement_bind_string(st, 4, email ? email : "");
    cass_statement_bind_string(st, 5, bio ? bio : "");
    sodium_memzero(hash, sizeof hash);
    int applied;
    if ((s = run_applied(db, st, &applied, err)) != KC_OK)
        return s;
    if (applied != 1)
        return fail(err, KC_EXISTS, "the login '%s' is taken", login);
    return ok(err);
}

kc_status kc_login(kc_db *db, const char *login, const char *password, kc_user *user,
                   kc_err *err)
{
    if (user)
        memset(user, 0, sizeof *user);
    kc_status s = check_name("a login", login, err);
    if (s != KC_OK)
        return s;
    if (!password)
        return fail(err, KC_INVALID, "no password");
    kc_profile p;
    char *hash;
    s = user_read(db, login, &p, &hash, err);
    if (s != KC_OK)
        return s;
    int good = crypto_pwhash_str_verify(hash, password, strlen(password)) == 0;
    free(hash);
    if (!good) {
        kc_profile_free(&p);
        return fail(err, KC_BAD_PASSWORD, "wrong password for '%s'", login);
    }
    if (user) {
        *user = p.user;
        memset(&p.user, 0, sizeof p.user);
    }
    kc_profile_free(&p);
    return ok(err);
}

kc_status kc_get_profile(kc_db *db, const char *login, kc_profile *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status s = check_name("a login", login, err);
    if (s != KC_OK)
        return s;
    return user_read(db, login, out, NULL, err);
}

/* Adds (add = 1) or removes room in login's chat_rooms. */
static kc_status user_rooms_update(kc_db *db, const char *login, const char *room, int add,
                                   kc_err *err)
{
    CassCollection *c = text_set(room);
    if (!c)
        return nomem(err);
    CassStatement *st = bound(db, add ? P_USER_ADD_ROOM : P_USER_DEL_ROOM);
    cass_statement_bind_collection(st, 0, c);
    cass_statement_bind_string(st, 1, login);
    cass_collection_free(c);
    return run(db, st, NULL, err);
}

/* ---- Rooms ----------------------------------------------------------------------------- */

void kc_room_free(kc_room *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->banner);
    kc_user_free(&r->creator);
    for (size_t i = 0; i < r->n_participants; i++)
        kc_user_free(&r->participants[i]);
    free(r->participants);
    memset(r, 0, sizeof *r);
}

void kc_room_list_free(kc_room_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        kc_room_free(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Reads a chat_rooms row into *r. 0, or -1 without memory. */
static int room_from_row(const CassRow *row, kc_room *r)
{
    memset(r, 0, sizeof *r);
    r->name = column_string(row, "room_name");
    r->banner = column_string(row, "banner");
    cass_int64_t date = 0;
    const CassValue *v = cass_row_get_column_by_name(row, "creation_date");
    if (v && !cass_value_is_null(v))
        cass_value_get_int64(v, &date);
    r->creation_date = date;
    int bad = !r->name || !r->banner ||
              read_user(cass_row_get_column_by_name(row, "creator"), &r->creator) != 0;
    v = cass_row_get_column_by_name(row, "participants");
    if (!bad && v && !cass_value_is_null(v)) {
        size_t n = cass_value_item_count(v);
        r->participants = calloc(n ? n : 1, sizeof *r->participants);
        CassIterator *it = r->participants ? cass_iterator_from_collection(v) : NULL;
        bad = !it;
        while (!bad && r->n_participants < n && cass_iterator_next(it)) {
            if (read_user(cass_iterator_get_value(it), &r->participants[r->n_participants]) != 0)
                bad = 1;
            else
                r->n_participants++;
        }
        cass_iterator_free(it);
        if (!bad)
            qsort(r->participants, r->n_participants, sizeof *r->participants, user_cmp);
    }
    if (bad) {
        kc_room_free(r);
        return -1;
    }
    return 0;
}

/* Reads one room; serial reads it at SERIAL consistency (after every committed transaction). */
static kc_status room_read(kc_db *db, const char *room, int serial, kc_room *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    CassStatement *st = bound(db, P_ROOM_GET);
    cass_statement_bind_string(st, 0, room);
    if (serial)
        cass_statement_set_consistency(st, CASS_CONSISTENCY_SERIAL);
    const CassResult *res;
    kc_status s = run(db, st, &res, err);
    if (s != KC_OK)
        return s;
    const CassRow *row = cass_result_first_row(res);
    if (!row) {
        cass_result_free(res);
        return fail(err, KC_NOT_FOUND, "no room '%s'", room);
    }
    int bad = room_from_row(row, out);
    cass_result_free(res);
    return bad ? nomem(err) : ok(err);
}

static int is_participant(const kc_room *r, const char *login)
{
    for (size_t i = 0; i < r->n_participants; i++)
        if (strcmp(r->participants[i].login, login) == 0)
            return 1;
    return 0;
}

kc_status kc_get_room(kc_db *db, const char *room, kc_room *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status s = check_name("a room name", room, err);
    if (s != KC_OK)
        return s;
    return room_read(db, room, 0, out, err);
}

static int room_cmp(const void *a, const void *b)
{
    return strcmp(((const kc_room *)a)->name, ((const kc_room *)b)->name);
}

kc_status kc_list_rooms(kc_db *db, int limit, kc_room_list *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    kc_status s = KC_OK;
    CassStatement *st = bound(db, P_ROOM_LIST);
    cass_statement_set_paging_size(st, 200);
    for (;;) {
        const CassResult *res;
        char msg[sizeof err->msg];
        if (cu_execute(db->session, st, &res, msg, sizeof msg) != CASS_OK) {
            s = fail(err, KC_ERROR, "%s", msg);
            break;
        }
        CassIterator *it = cass_iterator_from_result(res);
        while (s == KC_OK && cass_iterator_next(it)) {
            if (out->count == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                kc_room *items = realloc(out->items, ncap * sizeof *items);
                if (!items) {
                    s = nomem(err);
                    break;
                }
                out->items = items;
                cap = ncap;
            }
            if (room_from_row(cass_iterator_get_row(it), &out->items[out->count]) != 0)
                s = nomem(err);
            else
                out->count++;
        }
        cass_iterator_free(it);
        int more = s == KC_OK && cass_result_has_more_pages(res);
        if (more)
            cass_statement_set_paging_state(st, res);
        cass_result_free(res);
        if (!more)
            break;
    }
    cass_statement_free(st);
    if (s != KC_OK) {
        kc_room_list_free(out);
        return s;
    }
    if (out->count)
        qsort(out->items, out->count, sizeof *out->items, room_cmp);
    if (limit > 0 && out->count > (size_t)limit) {
        for (size_t i = (size_t)limit; i < out->count; i++)
            kc_room_free(&out->items[i]);
        out->count = (size_t)limit;
    }
    return ok(err);
}

static kc_status post(kc_db *db, const kc_user *author, const char *room, const char *content,
                      int system, CassUuid *id, kc_err *err);

/* Posts "login joined" or "login left" as u. */
static kc_status post_notice(kc_db *db, const kc_user *u, const char *room, const char *what,
                             kc_err *err)
{
    char text[KC_NAME_MAX + 32];
    snprintf(text, sizeof text, "%s %s", u->login, what);
    return post(db, u, room, text, 1, NULL, err);
}

kc_status kc_create_room(kc_db *db, const char *creator_login, const char *room,
                         const char *banner, kc_err *err)
{
    kc_status s = check_name("a login", creator_login, err);
    if (s == KC_OK)
        s = check_name("a room name", room, err);
    if (s != KC_OK)
        return s;
    kc_profile p;
    if ((s = user_read(db, creator_login, &p, NULL, err)) != KC_OK)
        return s;
    CassUserType *creator = user_value(db, &p.user);
    CassCollection *participants = users_value(db, &p.user, 1);
    if (!creator || !participants) {
        cass_user_type_free(creator);
        cass_collection_free(participants);
        kc_profile_free(&p);
        return nomem(err);
    }
    CassStatement *st = bound(db, P_ROOM_INSERT);
    cass_statement_bind_string(st, 0, room);
    cass_statement_bind_user_type(st, 1, creator);
    cass_statement_bind_string(st, 2, creator_login);
    cass_statement_bind_int64(st, 3, kc_now(db) / 1000);
    cass_statement_bind_string(st, 4, banner ? banner : "");
    cass_statement_bind_collection(st, 5, participants);
    cass_user_type_free(creator);
    cass_collection_free(participants);
    int applied;
    s = run_applied(db, st, &applied, err);
    if (s == KC_OK && applied != 1)
        s = fail(err, KC_EXISTS, "the room '%s' exists", room);
    if (s == KC_OK)
        s = user_rooms_update(db, creator_login, room, 1, err);
    if (s == KC_OK)
        s = post_notice(db, &p.user, room, "created the room", err);
    kc_profile_free(&p);
    return s == KC_OK ? ok(err) : s;
}

/* A login and a room name, both checked; with p, the login's profile is read too (the
   caller's on KC_OK). */
static kc_status check_member(kc_db *db, const char *login, const char *room, kc_profile *p,
                              kc_err *err)
{
    kc_status s = check_name("a login", login, err);
    if (s == KC_OK)
        s = check_name("a room name", room, err);
    if (s == KC_OK && p)
        s = user_read(db, login, p, NULL, err);
    return s;
}

kc_status kc_join_room(kc_db *db, const char *login, const char *room, kc_err *err)
{
    kc_profile p;
    kc_status s = check_member(db, login, room, &p, err);
    if (s != KC_OK)
        return s;
    kc_room r;
    s = room_read(db, room, 0, &r, err);
    if (s != KC_OK) {
        kc_profile_free(&p);
        return s;
    }
    int joining = !is_participant(&r, login);
    kc_room_free(&r);
    if (joining) {
        /* IF EXISTS: a room deleted meanwhile is not brought back as a row of participants
           only. */
        CassCollection *me = users_value(db, &p.user, 1);
        if (!me) {
            kc_profile_free(&p);
            return nomem(err);
        }
        CassStatement *st = bound(db, P_ROOM_JOIN);
        cass_statement_bind_collection(st, 0, me);
        cass_statement_bind_string(st, 1, room);
        cass_collection_free(me);
        int applied;
        s = run_applied(db, st, &applied, err);
        if (s == KC_OK && applied != 1)
            s = fail(err, KC_NOT_FOUND, "no room '%s'", room);
    }
    if (s == KC_OK)
        s = user_rooms_update(db, login, room, 1, err);
    if (s == KC_OK) {
        /* A deletion that read the participants with this user in it may have cleaned the
           user's list before the line above wrote it: look again, after every transaction. */
        s = room_read(db, room, 1, &r, err);
        if (s == KC_OK) {
            int still = is_participant(&r, login);
            kc_room_free(&r);
            if (!still)
                s = fail(err, KC_NOT_FOUND, "the room '%s' was deleted", room);
        }
        if (s == KC_NOT_FOUND) {
            kc_err e2;
            if (user_rooms_update(db, login, room, 0, &e2) != KC_OK)
                s = fail(err, e2.code, "%s", e2.msg);
        }
    }
    if (s == KC_OK && joining)
        s = post_notice(db, &p.user, room, "joined", err);
    kc_profile_free(&p);
    return s == KC_OK ? ok(err) : s;
}

kc_status kc_leave_room(kc_db *db, const char *login, const char *room, kc_err *err)
{
    kc_profile p;
    kc_status s = check_member(db, login, room, &p, err);
    if (s != KC_OK)
        return s;
    kc_room r;
    kc_status found = room_read(db, room, 0, &r, err);
    if (found != KC_OK && found != KC_NOT_FOUND) {
        kc_profile_free(&p);
        return found;
    }
    int was_in = found == KC_OK && is_participant(&r, login);
    if (found == KC_OK)
        kc_room_free(&r);
    /* No transaction: removing an element writes a tombstone, harmless on a deleted room. */
    if (was_in) {
        CassCollection *me = users_value(db, &p.user, 1);
        if (!me) {
            kc_profile_free(&p);
            return nomem(err);
        }
        CassStatement *st = bound(db, P_ROOM_LEAVE);
        cass_statement_bind_collection(st, 0, me);
        cass_statement_bind_string(st, 1, room);
        cass_collection_free(me);
        s = run(db, st, NULL, err);
    }
    if (s == KC_OK)
        s = user_rooms_update(db, login, room, 0, err);
    if (s == KC_OK && was_in)
        s = post_notice(db, &p.user, room, "left", err);
    kc_profile_free(&p);
    if (s != KC_OK)
        return s;
    if (found == KC_NOT_FOUND)
        return fail(err, KC_NOT_FOUND, "no room '%s'", room);
    return ok(err);
}

static kc_status delete_messages(kc_db *db, const char *room, kc_err *err);

kc_status kc_delete_room(kc_db *db, const char *login, const char *room, kc_err *err)
{
    kc_status s = check_member(db, login, room, NULL, err);
    if (s != KC_OK)
        return s;
    kc_room r;
    int deleted = 0;
    for (int attempt = 0; attempt < DELETE_ATTEMPTS && !deleted; attempt++) {
        if (attempt > 8)
            sleep_us_random(attempt);
        if ((s = room_read(db, room, attempt > 0, &r, err)) != KC_OK)
            return s;
        if (strcmp(r.creator.login, login) != 0) {
            kc_room_free(&r);
            return fail(err, KC_FORBIDDEN, "only the creator of '%s' may delete it", room);
        }
        /* IF creator_login = login AND participants = <as read>: a participant who joined since
           the read fails the condition, so no one's list keeps a deleted room. */
        CassCollection *ps = r.n_participants ? users_value(db, r.participants, r.n_participants)
                                              : NULL;
        if (r.n_participants && !ps) {
            kc_room_free(&r);
            return nomem(err);
        }
        CassStatement *st = bound(db, P_ROOM_DELETE);
        cass_statement_bind_string(st, 0, room);
        cass_statement_bind_string(st, 1, login);
        if (ps)
            cass_statement_bind_collection(st, 2, ps);
        else
            cass_statement_bind_null(st, 2);
        cass_collection_free(ps);
        int applied;
        if ((s = run_applied(db, st, &applied, err)) != KC_OK) {
            kc_room_free(&r);
            return s;
        }
        deleted = applied == 1;
        if (!deleted)
            kc_room_free(&r);
    }
    if (!deleted)
        return fail(err, KC_CONFLICT, "the participants of '%s' kept changing", room);
    /* Not atomic with the deletion: each participant's list is cleaned after it (all of
       them, even after a failure; the first failure is the one reported). */
    for (size_t i = 0; i < r.n_participants; i++) {
        kc_err e2;
        kc_status s2 = user_rooms_update(db, r.participants[i].login, room, 0, &e2);
        if (s2 != KC_OK && s == KC_OK)
            s = fail(err, s2, "%s", e2.msg);
    }
    kc_room_free(&r);
    if (s == KC_OK)
        s = delete_messages(db, room, err);
    return s == KC_OK ? ok(err) : s;
}

/* ---- The day-bucket cache -------------------------------------------------------------- */

static size_t slot_of(const char *room)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)room; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)(h % CACHE_SLOTS);
}

/* The cache entry of room (cache_lock held); created when create is set. NULL if none. */
static cache_room *cache_find(kc_db *db, const char *room, int create)
{
    size_t slot = slot_of(room);
    for (cache_room *c = db->slots[slot]; c; c = c->next)
        if (strcmp(c->name, room) == 0)
            return c;
    if (!create)
        return NULL;
    cache_room *c = calloc(1, sizeof *c);
    if (!c || !(c->name = dup0(room))) {
        free(c);
        return NULL;
    }
    c->next = db->slots[slot];
    db->slots[slot] = c;
    return c;
}

static void cache_room_free(cache_room *c)
{
    free(c->name);
    free(c->days);
    free(c->state);
    free(c);
}

/* Records that room has messages on day. 0, or -1 without memory. */
static int cache_note(kc_db *db, const char *room, int32_t day)
{
    int rc = 0;
    pthread_mutex_lock(&db->cache_lock);
    cache_room *c = cache_find(db, room, 1);
    size_t i = 0;
    if (!c) {
        rc = -1;
        goto out;
    }
    while (i < c->n && c->days[i] > day)
        i++;
    if (i < c->n && c->days[i] == day)
        goto out;
    /* Over the limit, the oldest day already written goes. */
    if (c->n >= CACHE_DAYS_PER_ROOM) {
        for (size_t j = c->n; j-- > 0;)
            if (c->state[j] == DAY_WRITTEN && j != i) {
                memmove(c->days + j, c->days + j + 1, (c->n - j - 1) * sizeof *c->days);
                memmove(c->state + j, c->state + j + 1, c->n - j - 1);
                c->n--;
                if (j < i)
                    i--;
                break;
            }
    }
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 4;
        int32_t *days = realloc(c->days, ncap * sizeof *days);
        if (days)
            c->days = days;
        unsigned char *state = days ? realloc(c->state, ncap) : NULL;
        if (!state) {
            rc = -1;
            goto out;
        }
        c->state = state;
        c->cap = ncap;
    }
    memmove(c->days + i + 1, c->days + i, (c->n - i) * sizeof *c->days);
    memmove(c->state + i + 1, c->state + i, c->n - i);
    c->days[i] = day;
    c->state[i] = DAY_DIRTY;
    c->n++;
out:
    pthread_mutex_unlock(&db->cache_lock);
    return rc;
}

/* The newest cached day of room below (dir < 0) or the oldest above (dir > 0) day; 0 if none.
   dir == 0: the newest day of all. */
static int32_t cache_next(kc_db *db, const char *room, int32_t day, int dir)
{
    int32_t best = 0;
    pthread_mutex_lock(&db->cache_lock);
    cache_room *c = cache_find(db, room, 0);
    for (size_t i = 0; c && i < c->n; i++) {
        int32_t d = c->days[i];
        if (dir == 0 ? 1 : dir < 0 ? d < day : d > day) {
            if (!best || (dir > 0 ? d < best : d > best))
                best = d;
        }
    }
    pthread_mutex_unlock(&db->cache_lock);
    return best;
}

/* Drops room from the cache (its messages are gone). */
static void cache_drop(kc_db *db, const char *room)
{
    pthread_mutex_lock(&db->cache_lock);
    cache_room **pp = &db->slots[slot_of(room)];
    while (*pp) {
        if (strcmp((*pp)->name, room) == 0) {
            cache_room *c = *pp;
            *pp = c->next;
            cache_room_free(c);
            break;
        }
        pp = &(*pp)->next;
    }
    pthread_mutex_unlock(&db->cache_lock);
}

/* Marks one day of room written (done) or dirty again (failed) after a flush. */
static void cache_mark(kc_db *db, const char *room, int32_t day, int done)
{
    pthread_mutex_lock(&db->cache_lock);
    cache_room *c = cache_find(db, room, 0);
    for (size_t i = 0; c && i < c->n; i++)
        if (c->days[i] == day && c->state[i] == DAY_FLUSHING)
            c->state[i] = done ? DAY_WRITTEN : DAY_DIRTY;
    pthread_mutex_unlock(&db->cache_lock);
}

typedef struct pending_day {
    char *room;
    int32_t day;
} pending_day;

kc_status kc_flush(kc_db *db, kc_err *err)
{
    pending_day *unwritten = NULL;
    size_t n = 0, cap = 0;
    kc_status s = KC_OK;
    pthread_mutex_lock(&db->cache_lock);
    for (size_t slot = 0; slot < CACHE_SLOTS && s == KC_OK; slot++)
        for (cache_room *c = db->slots[slot]; c && s == KC_OK; c = c->next)
            for (size_t i = 0; i < c->n; i++) {
                if (c->state[i] != DAY_DIRTY)
                    continue;
                if (n == cap) {
                    size_t ncap = cap ? cap * 2 : 16;
                    pending_day *t = realloc(unwritten, ncap * sizeof *t);
                    if (!t) {
                        s = KC_NOMEM;
                        break;
                    }
                    unwritten = t;
                    cap = ncap;
                }
                if (!(unwritten[n].room = dup0(c->name))) {
                    s = KC_NOMEM;
                    break;
                }
                unwritten[n++].day = c->days[i];
                c->state[i] = DAY_FLUSHING;
            }
    pthread_mutex_unlock(&db->cache_lock);
    kc_err e = {KC_OK, ""};
    for (size_t i = 0; i < n; i++) {
        int done = 0;
        if (s == KC_OK) {
            CassStatement *st = bound(db, P_DAY_INSERT);
            cass_statement_bind_string(st, 0, unwritten[i].room);
            cass_statement_bind_int32(st, 1, unwritten[i].day);
            s = run(db, st, NULL, &e);
            done = s == KC_OK;
        }
        cache_mark(db, unwritten[i].room, unwritten[i].day, done);
        free(unwritten[i].room);
    }
    free(unwritten);
    if (s == KC_NOMEM)
        return nomem(err);
    if (s != KC_OK)
        return fail(err, s, "%s", e.msg);
    return ok(err);
}

static void *flush_main(void *arg)
{
    kc_db *db = arg;
    pthread_mutex_lock(&db->flush_lock);
    while (!db->flush_stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t ns = ts.tv_nsec + (int64_t)db->opt.flush_interval_ms * 1000000;
        ts.tv_sec += (time_t)(ns / 1000000000);
        ts.tv_nsec = (long)(ns % 1000000000);
        int rc = 0;
        while (!db->flush_stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&db->flush_cond, &db->flush_lock, &ts);
        if (db->flush_stop)
            break;
        pthread_mutex_unlock(&db->flush_lock);
        kc_flush(db, NULL); /* a failure keeps the days for the next round */
        pthread_mutex_lock(&db->flush_lock);
    }
    pthread_mutex_unlock(&db->flush_lock);
    return NULL;
}

/* ---- Messages -------------------------------------------------------------------------- */

void kc_message_list_free(kc_message_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        kc_user_free(&l->items[i].author);
        free(l->items[i].content);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

static kc_status post(kc_db *db, const kc_user *author, const char *room, const char *content,
                      int system, CassUuid *id, kc_err *err)
{
    kc_status s = check_name("a room name", room, err);
    if (s == KC_OK && (!author || !valid_name(author->login)))
        s = fail(err, KC_INVALID, "no author");
    if (s != KC_OK)
        return s;
    size_t len = content ? strlen(content) : 0;
    if (len == 0 || len > KC_MESSAGE_MAX)
        return fail(err, KC_INVALID, "a message is 1 to %d bytes", KC_MESSAGE_MAX);
    CassUuid mid = new_message_id(db, kc_now(db));
    int32_t day = kc_day_bucket(cu_uuid_micros(mid));
    kc_user a = {author->login, author->firstname ? author->firstname : "",
                 author->lastname ? author->lastname : ""};
    CassUserType *ut = user_value(db, &a);
    /* The day is recorded first: a day without the message costs one empty read, a message
       without its day could not be paged back to. */
    if (!ut || cache_note(db, room, day) != 0) {
        cass_user_type_free(ut);
        return nomem(err);
    }
    CassStatement *st = bound(db, P_MSG_INSERT);
    cass_statement_bind_string(st, 0, room);
    cass_statement_bind_int32(st, 1, day);
    cass_statement_bind_uuid(st, 2, mid);
    cass_statement_bind_user_type(st, 3, ut);
    cass_statement_bind_string(st, 4, content);
    cass_statement_bind_bool(st, 5, system ? cass_true : cass_false);
    cass_user_type_free(ut);
    s = run(db, st, NULL, err);
    if (s != KC_OK)
        return s;
    if (id)
        *id = mid;
    return ok(err);
}

kc_status kc_post_message(kc_db *db, const kc_user *author, const char *room,
                          const char *content, CassUuid *id, kc_err *err)
{
    return post(db, author, room, content, 0, id, err);
}

/* Appends the rows of res to out. */
static kc_status append_messages(const CassResult *res, int32_t day, kc_message_list *out,
                                 size_t *cap, kc_err *err)
{
    CassIterator *it = cass_iterator_from_result(res);
    kc_status s = KC_OK;
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        if (out->count == *cap) {
            size_t ncap = *cap ? *cap * 2 : 64;
            kc_message *items = realloc(out->items, ncap * sizeof *items);
            if (!items) {
                s = nomem(err);
                break;
            }
            out->items = items;
            *cap = ncap;
        }
        kc_message *m = &out->items[out->count];
        memset(m, 0, sizeof *m);
        cass_value_get_uuid(cass_row_get_column_by_name(row, "message_id"), &m->id);
        m->time_us = cu_uuid_micros(m->id);
        m->bucket = day;
        cass_bool_t sys = cass_false;
        const CassValue *v = cass_row_get_column_by_name(row, "system_message");
        if (v && !cass_value_is_null(v))
            cass_value_get_bool(v, &sys);
        m->system = sys == cass_true;
        m->content = column_string(row, "content");
        if (!m->content || read_user(cass_row_get_column_by_name(row, "author"), &m->author)) {
            free(m->content);
            s = nomem(err);
            break;
        }
        out->count++;
    }
    cass_iterator_free(it);
    return s;
}

/* The first time_bucket of a messages_bucket query (which: P_DAY_*), 0 if none. */
static kc_status stored_day(kc_db *db, int which, const char *room, int32_t day, int32_t *out,
                            kc_err *err)
{
    *out = 0;
    CassStatement *st = bound(db, which);
    cass_statement_bind_string(st, 0, room);
    if (which != P_DAY_NEWEST)
        cass_statement_bind_int32(st, 1, day);
    const CassResult *res;
    kc_status s = run(db, st, &res, err);
    if (s != KC_OK)
        return s;
    const CassRow *row = cass_result_first_row(res);
    if (row) {
        cass_int32_t d;
        if (cass_value_get_int32(cass_row_get_column_by_name(row, "time_bucket"), &d) == CASS_OK)
            *out = d;
    }
    cass_result_free(res);
    return KC_OK;
}

/* The day of room that may hold messages next to day: the newest below it (dir < 0) or the
   oldest above it (dir > 0), from messages_bucket, the cache, and the clock's current and
   previous day (which a writer elsewhere may not have flushed yet). 0 if none. */
static kc_status next_day(kc_db *db, const char *room, int32_t day, int dir, int32_t *out,
                          kc_err *err)
{
    int32_t stored;
    kc_status s = stored_day(db, dir < 0 ? P_DAY_BELOW : P_DAY_ABOVE, room, day, &stored, err);
    if (s != KC_OK)
        return s;
    int64_t now = kc_now(db);
    int32_t cand[] = {stored, cache_next(db, room, day, dir), kc_day_bucket(now),
                      kc_day_bucket(now - DAY_US)};
    int32_t best = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int32_t d = cand[i];
        if (!d || (dir < 0 ? d >= day : d <= day))
            continue;
        if (!best || (dir < 0 ? d > best : d < best))
            best = d;
    }
    *out = best;
    return KC_OK;
}

/* Reads up to limit messages of room on day: the newest (from == NULL), the newest before
   *from (dir < 0), or the oldest after *from (dir > 0). Appends them in the order read. */
static kc_status read_day(kc_db *db, const char *room, int32_t day, const CassUuid *from,
                          int dir, size_t limit, kc_message_list *out, size_t *cap, kc_err *err)
{
    int which = !from ? P_MSG_LATEST : dir < 0 ? P_MSG_BEFORE : P_MSG_AFTER;
    CassStatement *st = bound(db, which);
    size_t i = 0;
    cass_statement_bind_string(st, i++, room);
    cass_statement_bind_int32(st, i++, day);
    if (from)
        cass_statement_bind_uuid(st, i++, *from);
    cass_statement_bind_int32(st, i, (cass_int32_t)limit);
    const CassResult *res;
    kc_status s = run(db, st, &res, err);
    if (s != KC_OK)
        return s;
    s = append_messages(res, day, out, cap, err);
    cass_result_free(res);
    return s;
}

static kc_status page_limit(int limit, size_t *n, kc_err *err)
{
    if (limit <= 0)
        limit = KC_PAGE_DEFAULT;
    if (limit > 10000)
        return fail(err, KC_INVALID, "at most 10000 messages a page");
    *n = (size_t)limit;
    return KC_OK;
}

static void reverse(kc_message_list *l)
{
    for (size_t i = 0, j = l->count; i + 1 < j; i++, j--) {
        kc_message t = l->items[i];
        l->items[i] = l->items[j - 1];
        l->items[j - 1] = t;
    }
}

/* Walks back from day (from: exclusive bound inside it, or NULL) until limit messages. */
static kc_status walk_back(kc_db *db, const char *room, int32_t day, const CassUuid *from,
                           size_t limit, kc_message_list *out, kc_err *err)
{
    size_t cap = 0;
    kc_status s = KC_OK;
    while (day && out->count < limit) {
        s = read_day(db, room, day, from, -1, limit - out->count, out, &cap, err);
        if (s != KC_OK)
            break;
        from = NULL;
        s = next_day(db, room, day, -1, &day, err);
        if (s != KC_OK)
            break;
    }
    if (s != KC_OK) {
        kc_message_list_free(out);
        return s;
    }
    reverse(out);
    return ok(err);
}

kc_status kc_messages_latest(kc_db *db, const char *room, int limit, kc_message_list *out,
                             kc_err *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    kc_status s = check_name("a room name", room, err);
    if (s == KC_OK)
        s = page_limit(limit, &n, err);
    if (s != KC_OK)
        return s;
    /* The newest day: today, or a later one written by a clock ahead of this one. */
    int32_t stored, day = kc_day_bucket(kc_now(db)), cached = cache_next(db, room, 0, 0);
    if ((s = stored_day(db, P_DAY_NEWEST, room, 0, &stored, err)) != KC_OK)
        return s;
    if (stored > day)
        day = stored;
    if (cached > day)
        day = cached;
    return walk_back(db, room, day, NULL, n, out, err);
}

kc_status kc_messages_before(kc_db *db, const char *room, CassUuid before, int limit,
                             kc_message_list *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    kc_status s = check_name("a room name", room, err);
    if (s == KC_OK)
        s = page_limit(limit, &n, err);
    if (s != KC_OK)
        return s;
    return walk_back(db, room, kc_day_bucket(cu_uuid_micros(before)), &before, n, out, err);
}

kc_status kc_messages_after(kc_db *db, const char *room, CassUuid after, int limit,
                            kc_message_list *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0, cap = 0;
    kc_status s = check_name("a room name", room, err);
    if (s == KC_OK)
        s = page_limit(limit, &n, err);
    if (s != KC_OK)
        return s;
    int32_t day = kc_day_bucket(cu_uuid_micros(after));
    const CassUuid *from = &after;
    while (day && out->count < n) {
        s = read_day(db, room, day, from, 1, n - out->count, out, &cap, err);
        if (s != KC_OK)
            break;
        /* Every later day starts after the id: the bound stays, it costs nothing. */
        s = next_day(db, room, day, 1, &day, err);
        if (s != KC_OK)
            break;
    }
    if (s != KC_OK) {
        kc_message_list_free(out);
        return s;
    }
    return ok(err);
}

/* Deletes the messages of a deleted room, day by day, and its days. */
static kc_status delete_messages(kc_db *db, const char *room, kc_err *err)
{
    int32_t *days = NULL;
    size_t n = 0, cap = 0;
    kc_status s = KC_OK;
    int64_t now = kc_now(db);
    int32_t extra[2] = {kc_day_bucket(now), kc_day_bucket(now - DAY_US)};
    pthread_mutex_lock(&db->cache_lock);
    cache_room *c = cache_find(db, room, 0);
    size_t nc = c ? c->n : 0;
    cap = nc + 2;
    days = malloc(cap * sizeof *days);
    if (days) {
        for (size_t i = 0; i < nc; i++)
            days[n++] = c->days[i];
        days[n++] = extra[0];
        days[n++] = extra[1];
    }
    pthread_mutex_unlock(&db->cache_lock);
    if (!days)
        return nomem(err);
    CassStatement *st = bound(db, P_DAY_ALL);
    cass_statement_bind_string(st, 0, room);
    cass_statement_set_paging_size(st, 1000);
    for (int more = 1; more && s == KC_OK;) {
        const CassResult *res;
        char msg[sizeof err->msg];
        if (cu_execute(db->session, st, &res, msg, sizeof msg) != CASS_OK) {
            s = fail(err, KC_ERROR, "%s", msg);
            break;
        }
        CassIterator *it = cass_iterator_from_result(res);
        while (s == KC_OK && cass_iterator_next(it)) {
            cass_int32_t d;
            if (cass_value_get_int32(cass_row_get_column_by_name(cass_iterator_get_row(it),
                                                                 "time_bucket"),
                                     &d) != CASS_OK)
                continue;
            if (n == cap) {
                int32_t *t = realloc(days, cap * 2 * sizeof *t);
                if (!t) {
                    s = nomem(err);
                    break;
                }
                days = t;
                cap *= 2;
            }
            days[n++] = d;
        }
        cass_iterator_free(it);
        more = s == KC_OK && cass_result_has_more_pages(res);
        if (more)
            cass_statement_set_paging_state(st, res);
        cass_result_free(res);
    }
    cass_statement_free(st);
    for (size_t i = 0; i < n && s == KC_OK; i++) {
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = days[j] == days[i];
        if (dup)
            continue;
        CassStatement *del = bound(db, P_MSG_DELETE_DAY);
        cass_statement_bind_string(del, 0, room);
        cass_statement_bind_int32(del, 1, days[i]);
        s = run(db, del, NULL, err);
    }
    free(days);
    if (s == KC_OK) {
        CassStatement *del = bound(db, P_DAY_DELETE);
        cass_statement_bind_string(del, 0, room);
        s = run(db, del, NULL, err);
    }
    if (s == KC_OK)
        cache_drop(db, room);
    return s;
}

/* ---- Opening and closing --------------------------------------------------------------- */

void kc_options_init(kc_options *o)
{
    memset(o, 0, sizeof *o);
    o->flush_interval_ms = 1000;
    o->create_schema = 1;
    o->password_cost = KC_PASSWORD_INTERACTIVE;
}

static void db_free(kc_db *db)
{
    cu_prepared_free_all(db->prep, P_COUNT);
    for (size_t slot = 0; slot < CACHE_SLOTS; slot++)
        while (db->slots[slot]) {
            cache_room *c = db->slots[slot];
            db->slots[slot] = c->next;
            cache_room_free(c);
        }
    pthread_mutex_destroy(&db->id_lock);
    pthread_mutex_destroy(&db->cache_lock);
    pthread_mutex_destroy(&db->flush_lock);
    pthread_cond_destroy(&db->flush_cond);
    free(db);
}

kc_status kc_open(CassSession *session, const kc_options *options, kc_db **out, kc_err *err)
{
    *out = NULL;
    if (sodium_init() < 0)
        return fail(err, KC_ERROR, "libsodium failed to start");
    kc_db *db = calloc(1, sizeof *db);
    if (!db)
        return nomem(err);
    db->session = session;
    if (options)
        db->opt = *options;
    else
        kc_options_init(&db->opt);
    pthread_mutex_init(&db->id_lock, NULL);
    pthread_mutex_init(&db->cache_lock, NULL);
    pthread_mutex_init(&db->flush_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&db->flush_cond, &ca);
    pthread_condattr_destroy(&ca);
    /* Ids of this db: a random clock sequence and node (multicast bit set, as RFC 4122 asks of
       a node that is not a MAC address), so that two processes never make the same id. */
    uint64_t r;
    randombytes_buf(&r, sizeof r);
    db->clock_seq_and_node = (r & ~(3ULL << 62)) | (2ULL << 62) | (1ULL << 40);

    char msg[sizeof err->msg];
    if (db->opt.create_schema && cu_run_all(session, schema_cql, msg, sizeof msg) != CASS_OK) {
        db_free(db);
        return fail(err, KC_ERROR, "creating the schema: %s", msg);
    }
    for (int i = 0; i < P_COUNT; i++)
        if (cu_prepare(session, prepared_cql[i], &db->prep[i], msg, sizeof msg) != CASS_OK) {
            db_free(db);
            return fail(err, KC_ERROR, "preparing \"%s\": %s", prepared_cql[i], msg);
        }
    db->users_type = cass_prepared_parameter_data_type(db->prep[P_ROOM_INSERT], 5);
    db->user_type = db->users_type ? cass_data_type_sub_data_type(db->users_type, 0) : NULL;
    if (!db->user_type) {
        db_free(db);
        return fail(err, KC_ERROR, "no type killrchat.user in the prepared metadata");
    }
    if (db->opt.flush_interval_ms > 0) {
        if (pthread_create(&db->flush_thread, NULL, flush_main, db) != 0) {
            db_free(db);
            return fail(err, KC_ERROR, "cannot start the flush thread");
        }
        db->flush_running = 1;
    }
    *out = db;
    return ok(err);
}

kc_status kc_close(kc_db *db, kc_err *err)
{
    if (!db)
        return ok(err);
    if (db->flush_running) {
        pthread_mutex_lock(&db->flush_lock);
        db->flush_stop = 1;
        pthread_cond_signal(&db->flush_cond);
        pthread_mutex_unlock(&db->flush_lock);
        pthread_join(db->flush_thread, NULL);
    }
    kc_status s = kc_flush(db, err);
    db_free(db);
    return s;
}
