/*
 * The seeds' workloads: the chat applications of examples/ run through their own data layers
 * (killrchat.h, email.h, groupchat.h) on cassette, embedded and over `cassette serve`, beside
 * the same tables and the same logic written for SQLite, and beside raw LMDB where it is a
 * floor. Every answer is checked against an in-memory model while the run goes on.
 *
 * Workloads (one operation each):
 *  - join or leave a room: kc_join_room (a read of the user and the room, UPDATE ... IF EXISTS
 *    on the participants, the user's room list, a SERIAL re-read, a "joined" notice) or
 *    kc_leave_room (reads, participant removed, room list, a "left" notice), whichever the
 *    model says; every room's participants checked after each figure;
 *  - mark read: em_mark_read of one email, read then unread again (per folder of the email an
 *    UPDATE ... IF is_read = old and, when applied, the folder's unread counter moved); the
 *    number of folders flipped checked per call, every unread counter after each figure;
 *  - folder list: em_folders and em_unread_counts of one user (two partitions), labels,
 *    colors and counts checked;
 *  - store an attachment: em_send of an email carrying a 2,416 KB file (three chunks of
 *    1,000 KB, the folder entries, the counters);
 *  - read an attachment: em_attachment_chunk of its three chunks, then em_attachment_get of
 *    the whole file, every byte checked;
 *  - a group-chat page: gc_read_page of 50 messages for a reader with three presence
 *    intervals over ten quarters, from the newest or from a cursor, the page's messages
 *    checked against a brute-force filter of every message by the reader's intervals.
 *
 * Systems, each its own database under the run's directory:
 *  - cassette: "file:DIR" through cassandra.h, the data layer on its session;
 *  - cassette remote: `cassette serve DIR --port 0` on loopback, the same data layer on a
 *    session of the remote backend;
 *  - SQLite: WAL, WITHOUT ROWID tables with the same primary keys and clustering order (a set
 *    column becomes a child table, a list or map column a text column), timeuuids as 16-byte
 *    blobs in time order, prepared statements, one connection per thread, and the data layer's
 *    logic in C: a lightweight transaction becomes BEGIN IMMEDIATE, the check, the write,
 *    COMMIT; a counter becomes an upsert adding to the column; a logged batch one transaction;
 *  - raw LMDB, for the attachments only: each chunk a value under (email id, filename, chunk
 *    number), the three put in one write transaction and read back with mdb_get. The other
 *    workloads have no raw LMDB peer: each is several statements of application logic over
 *    sets, conditions and counters, and writing it on raw LMDB would be writing a database.
 * Durability: NONE (cassette CASSETTE_DURABILITY_NONE, the server with
 * CASSETTE_DURABILITY=none, SQLite synchronous=OFF, LMDB MDB_NOSYNC | MDB_NOMETASYNC) for
 * every workload, and SYNC (cassette's default with group commit, the server with
 * CASSETTE_DURABILITY=sync, SQLite synchronous=FULL, LMDB synced commits) for the three that
 * write: join or leave, mark read, store an attachment. Each durability has its own databases.
 *
 * Method, as peers_bench's: each figure runs every system on the same operations: a warm-up,
 * then rounds, every system once per round, in turn, the first one rotating from round to
 * round. An operation is timed alone (CLOCK_MONOTONIC around the data layer's call, or the
 * SQL or LMDB code in its place, results copied out); a round's rate is its operations over
 * the sum of their times, per thread, summed over threads; the figure is the median round,
 * the spread the lowest and highest round, p50 and p99 from every timed operation. A wrong
 * answer or a failed call exits non-zero.
 *
 *   seeds_bench [--quick] [--rounds K] [--csv FILE] [--report FILE] [--dir D]
 *               [--cassette PATH] [--no-remote]
 */
#include <cassandra.h>
#include <cassette.h>
#include <errno.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "seeds_bench"
#include "bench/bench.h"

#include "email/email.h"
#include "groupchat/groupchat.h"
#include "killrchat/killrchat.h"

#define MAX_THREADS 2
#define PAGE 50
#define FILE_BYTES (2416 * 1024) /* three chunks: 1000 KB, 1000 KB, 416 KB */
#define N_CHUNKS 3
#define MAX_ROOMS 64
#define MAX_LABELS 2
#define UUID_EPOCH_MS 12219292800000LL    /* the Unix epoch after the UUID epoch */
#define GC_T0_MS 1704067200000LL          /* 2024-01-01 00:00 UTC */
#define GC_SPAN_MS (900LL * 86400 * 1000) /* the group's history: ten quarters */
#define SEED 0x5eed2026c0ffee15ULL
#define NODE UINT64_C(0x8000123456789abc)
#define ERR_CAP 256

struct bench {
    int unused;
};

/* ---- failures (with bench.h's) ---- */

__attribute__((noreturn)) static void die_sqlite(const char *what, sqlite3 *db)
{
    bench_die("SQLite error in %s: %s", what, db ? sqlite3_errmsg(db) : "cannot open");
}

__attribute__((noreturn)) static void die_mdb(const char *what, int rc)
{
    bench_die("LMDB error in %s: %s", what, mdb_strerror(rc));
}

/* ---- workloads, systems, durabilities ---- */

enum work { W_JOIN, W_MARK, W_FOLDERS, W_ATT_WRITE, W_ATT_READ, W_PAGE, N_WORK };
static const char *const WORK_ID[N_WORK] = {"join_leave",   "mark_read",   "folder_list",
                                            "attach_store", "attach_read", "group_page"};
static const char *const WORK_NAME[N_WORK] = {
    "join or leave a room (LWT)", "mark an email read/unread", "folder list with unread counts",
    "store a 2.4 MB attachment",  "read a 2.4 MB attachment",  "group-chat page of 50"};
static const char *const WORK_CALLS[N_WORK] = {"kc_join_room / kc_leave_room",
                                               "em_mark_read",
                                               "em_folders + em_unread_counts",
                                               "em_send (3 chunks)",
                                               "3 x em_attachment_chunk + em_attachment_get",
                                               "gc_read_page"};

enum kind { K_CASS, K_REMOTE, K_SQLITE, K_LMDB, N_KINDS };
static const char *const KIND_ID[N_KINDS] = {"cassette", "cassette_remote", "sqlite", "lmdb"};
static const char *const KIND_NAME[N_KINDS] = {"cassette", "cassette remote", "SQLite", "raw LMDB"};

enum dur { D_NONE, D_SYNC, N_DUR };
static const char *const DUR_ID[N_DUR] = {"none", "sync"};
static const char *const DUR_NAME[N_DUR] = {"durability NONE", "durability SYNC"};

/* ---- sizes ---- */

typedef struct sizes {
    int kc_users, kc_rooms;    /* KillrChat: users joining and leaving, rooms */
    int em_users, em_per_user; /* email: users, emails each receives */
    int gc_readers, gc_msgs;   /* group chat: readers, messages */
    long ops[N_DUR][N_WORK];   /* timed operations per round and system; 0: not run */
} sizes;

static sizes sz;

/* splitmix64 of (i, salt): the same pick for every system at position i. */
static uint64_t mix(uint64_t i, uint64_t salt)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ULL + SEED + salt * 0xd1b54a32d192ed03ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- ids: time uuids and their 16 bytes in time order ---- */

static void uuid_bytes(CassUuid u, uint8_t b[16])
{
    for (int j = 0; j < 8; j++) {
        b[j] = (uint8_t)(u.time_and_version >> (56 - 8 * j));
        b[8 + j] = (uint8_t)(u.clock_seq_and_node >> (56 - 8 * j));
    }
}

/* The uuid of ticks (100 ns since 1582) with this run's node. */
static CassUuid uuid_of_ticks(uint64_t ticks)
{
    CassUuid u = {UINT64_C(0x1000000000000000) | (ticks & UINT64_C(0x0FFFFFFFFFFFFFFF)), NODE};
    return u;
}

/* A new time uuid for the SQLite side: now, strictly increasing over the process. */
static CassUuid sq_new_id(void)
{
    static uint64_t last;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t t = ((uint64_t)ts.tv_sec * 1000 + (uint64_t)UUID_EPOCH_MS) * 10000 +
                 (uint64_t)ts.tv_nsec / 100 % 10000;
    uint64_t prev = __atomic_load_n(&last, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t next = t > prev ? t : prev + 1;
        if (__atomic_compare_exchange_n(&last, &prev, next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return uuid_of_ticks(next);
    }
}

/* minTimeuuid(ms) as time-ordered bytes: nothing of that millisecond sorts below it. */
static void min_id_bytes(int64_t ms, uint8_t b[16])
{
    uuid_bytes(uuid_of_ticks((uint64_t)(ms + UUID_EPOCH_MS) * 10000), b);
    memset(b + 8, 0, 8);
}

static int32_t day_bucket_now(void)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

/* ---- the model: what every database must hold ---- */

static char kc_login_of[256][16];
static char kc_room_of[MAX_ROOMS][16];
static unsigned char *kc_member; /* [user * kc_rooms + room] */

static char em_user_of[1024][24];
static unsigned char *em_read; /* [user * per_user + email]: 1 read */
static int *em_unread;         /* [user * 2 + (0 inbox, 1 work)] */

/* Email j of a user is listed in inbox, and in work too when j is even. */
static int em_labels_of(int j)
{
    return j % 2 == 0 ? 2 : 1;
}

static const char *const EM_FOLDER_LABELS[] = {"archive", "inbox", "sent", "travel", "work"};
static const char *const EM_FOLDER_COLORS[] = {"green", "red", "", "yellow", "blue"};
#define EM_N_FOLDERS 5
static const char EM_FILE_FROM[] = "files-from@mail";
static const char EM_FILE_TO[] = "files-to@mail";
static const char EM_FILE_NAME[] = "report.pdf";

/* The group: message k at GC_T0_MS + k * gc_step_ms; each reader's presence intervals. */
typedef struct gc_reader {
    char name[16];
    int64_t ev_ms[5]; /* join, leave, join, leave, join: three intervals, the last open */
    int ev_msg[5];    /* the event happens just before message ev_msg[e] */
    int *visible;     /* the messages the reader may see, newest first */
    int n_visible;
} gc_reader;

static gc_reader *gc_readers;
static int64_t gc_clock_ms; /* the groupchat data layer's clock */
static const char GC_CONV[] = "conv-seeds";
static const char GC_POSTER[] = "poster";

static int64_t gc_clock(void *arg)
{
    (void)arg;
    return __atomic_load_n(&gc_clock_ms, __ATOMIC_RELAXED);
}

static int64_t gc_step_ms; /* between two messages: GC_SPAN_MS over the messages */

static int64_t gc_msg_ms(int k)
{
    return GC_T0_MS + (int64_t)k * gc_step_ms;
}

/* The attachments: one base file, each stored copy stamped with its number per chunk. */
static uint8_t *file_base;
static uint8_t *file_buf[MAX_THREADS];
static long files_made; /* file numbers 0 .. files_made-1 are stored on every system */

static void stamp_file(uint8_t *buf, long f)
{
    for (int c = 0; c < N_CHUNKS; c++)
        memcpy(buf + (size_t)c * EM_CHUNK_BYTES, &f, sizeof f);
}

/* Whether data[0..len) is chunk c (0-based; c < 0: the whole file) of file number f. */
static int file_matches(const uint8_t *data, size_t len, int c, long f)
{
    size_t off = c < 0 ? 0 : (size_t)c * EM_CHUNK_BYTES;
    size_t want = c < 0 ? FILE_BYTES
                        : (FILE_BYTES - off < EM_CHUNK_BYTES ? FILE_BYTES - off : EM_CHUNK_BYTES);
    if (len != want)
        return 0;
    for (size_t at = 0; at < len; at += EM_CHUNK_BYTES) {
        size_t n = len - at < EM_CHUNK_BYTES ? len - at : EM_CHUNK_BYTES;
        if (memcmp(data + at, &f, sizeof f) ||
            memcmp(data + at + sizeof f, file_base + off + at + sizeof f, n - sizeof f))
            return 0;
    }
    return 1;
}

/* ---- one system ---- */

/* The SQLite statements: the data layers' statements, and what their logic needs besides. */
enum sq {
    SQ_BEGIN,
    SQ_COMMIT,
    SQ_KC_USER_GET,
    SQ_KC_USER_ROOMS,
    SQ_KC_ROOM_GET,
    SQ_KC_PARTS,
    SQ_KC_ROOM_EXISTS,
    SQ_KC_JOIN,
    SQ_KC_LEAVE,
    SQ_KC_ADD_ROOM,
    SQ_KC_DEL_ROOM,
    SQ_KC_POST,
    SQ_KC_USER_PUT,
    SQ_KC_ROOM_PUT,
    SQ_EM_LABELS_OF,
    SQ_EM_MARK,
    SQ_EM_UNREAD_ADD,
    SQ_EM_FOLDERS,
    SQ_EM_COUNTS,
    SQ_EM_FOLDER_SET,
    SQ_EM_FOLDER_TOUCH,
    SQ_EM_BUCKET_NEWEST,
    SQ_EM_BUCKET_ADD,
    SQ_EM_ENTRY,
    SQ_EM_LABEL,
    SQ_EM_EMAIL,
    SQ_EM_CHUNK_PUT,
    SQ_EM_CHUNK_GET,
    SQ_EM_EMAIL_GET,
    SQ_GC_ROW,
    SQ_GC_TIMES,
    SQ_GC_SLICE,
    SQ_GC_CONV_PUT,
    SQ_GC_TIME_PUT,
    SQ_GC_SEND,
    N_SQ
};

static const char *const SQ_SCHEMA[] = {
    "CREATE TABLE kc_users (login TEXT NOT NULL PRIMARY KEY, pass TEXT, firstname TEXT, "
    "lastname TEXT, email TEXT, bio TEXT) WITHOUT ROWID",
    "CREATE TABLE kc_user_rooms (login TEXT NOT NULL, room TEXT NOT NULL, "
    "PRIMARY KEY (login, room)) WITHOUT ROWID",
    "CREATE TABLE kc_rooms (room_name TEXT NOT NULL PRIMARY KEY, creator_login TEXT, "
    "creator_first TEXT, creator_last TEXT, creation_date INTEGER, banner TEXT) WITHOUT ROWID",
    "CREATE TABLE kc_participants (room_name TEXT NOT NULL, login TEXT NOT NULL, "
    "firstname TEXT, lastname TEXT, PRIMARY KEY (room_name, login)) WITHOUT ROWID",
    "CREATE TABLE kc_messages (room_name TEXT NOT NULL, time_bucket INTEGER NOT NULL, "
    "message_id BLOB NOT NULL, author_login TEXT, author_first TEXT, author_last TEXT, "
    "content TEXT, system_message INTEGER, "
    "PRIMARY KEY (room_name, time_bucket, message_id DESC)) WITHOUT ROWID",
    "CREATE TABLE em_folders (username TEXT NOT NULL, label TEXT NOT NULL, color TEXT, "
    "PRIMARY KEY (username, label)) WITHOUT ROWID",
    "CREATE TABLE em_unread (username TEXT NOT NULL, label TEXT NOT NULL, num_unread INTEGER, "
    "PRIMARY KEY (username, label)) WITHOUT ROWID",
    "CREATE TABLE em_entries (username TEXT NOT NULL, label TEXT NOT NULL, bucket INTEGER NOT "
    "NULL, id BLOB NOT NULL, sender TEXT, subject TEXT, is_read INTEGER, "
    "PRIMARY KEY (username, label, bucket, id DESC)) WITHOUT ROWID",
    "CREATE TABLE em_emails (id BLOB NOT NULL PRIMARY KEY, to_list TEXT, sender TEXT, "
    "subject TEXT, body TEXT, attachments TEXT) WITHOUT ROWID",
    "CREATE TABLE em_chunks (email_id BLOB NOT NULL, filename TEXT NOT NULL, chunk_number "
    "INTEGER NOT NULL, type TEXT, value BLOB, PRIMARY KEY (email_id, filename, chunk_number)) "
    "WITHOUT ROWID",
    "CREATE TABLE em_buckets (username TEXT NOT NULL, label TEXT NOT NULL, bucket INTEGER NOT "
    "NULL, num_emails INTEGER, PRIMARY KEY (username, label, bucket DESC)) WITHOUT ROWID",
    "CREATE TABLE em_labels (username TEXT NOT NULL, id BLOB NOT NULL, label TEXT NOT NULL, "
    "bucket INTEGER, PRIMARY KEY (username, id, label)) WITHOUT ROWID",
    "CREATE TABLE gc_convs (user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, "
    "conversation_type TEXT, presence_changes INTEGER, PRIMARY KEY (user_id, conversation_id)) "
    "WITHOUT ROWID",
    "CREATE TABLE gc_presence (user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, "
    "kind INTEGER NOT NULL, at_ms INTEGER NOT NULL, "
    "PRIMARY KEY (user_id, conversation_id, kind, at_ms)) WITHOUT ROWID",
    "CREATE TABLE gc_messages (conversation_id TEXT NOT NULL, bucket INTEGER NOT NULL, "
    "message_id BLOB NOT NULL, sender_id TEXT, body TEXT, "
    "PRIMARY KEY (conversation_id, bucket, message_id DESC)) WITHOUT ROWID",
};

static const char *const SQ[N_SQ] = {
    [SQ_BEGIN] = "BEGIN IMMEDIATE",
    [SQ_COMMIT] = "COMMIT",
    [SQ_KC_USER_GET] = "SELECT login, pass, firstname, lastname, email, bio FROM kc_users "
                       "WHERE login = ?",
    [SQ_KC_USER_ROOMS] = "SELECT room FROM kc_user_rooms WHERE login = ? ORDER BY room",
    [SQ_KC_ROOM_GET] = "SELECT room_name, creator_login, creator_first, creator_last, "
                       "creation_date, banner FROM kc_rooms WHERE room_name = ?",
    [SQ_KC_PARTS] = "SELECT login, firstname, lastname FROM kc_participants WHERE room_name = ? "
                    "ORDER BY login",
    [SQ_KC_ROOM_EXISTS] = "SELECT 1 FROM kc_rooms WHERE room_name = ?",
    [SQ_KC_JOIN] = "INSERT OR IGNORE INTO kc_participants (room_name, login, firstname, "
                   "lastname) VALUES (?, ?, ?, ?)",
    [SQ_KC_LEAVE] = "DELETE FROM kc_participants WHERE room_name = ? AND login = ?",
    [SQ_KC_ADD_ROOM] = "INSERT OR IGNORE INTO kc_user_rooms (login, room) VALUES (?, ?)",
    [SQ_KC_DEL_ROOM] = "DELETE FROM kc_user_rooms WHERE login = ? AND room = ?",
    [SQ_KC_POST] = "INSERT INTO kc_messages (room_name, time_bucket, message_id, author_login, "
                   "author_first, author_last, content, system_message) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    [SQ_KC_USER_PUT] = "INSERT INTO kc_users (login, pass, firstname, lastname, email, bio) "
                       "VALUES (?, 'x', ?, ?, '', '')",
    [SQ_KC_ROOM_PUT] = "INSERT INTO kc_rooms (room_name, creator_login, creator_first, "
                       "creator_last, creation_date, banner) VALUES (?, ?, ?, ?, ?, '')",
    [SQ_EM_LABELS_OF] = "SELECT label, bucket FROM em_labels WHERE username = ? AND id = ? "
                        "ORDER BY label",
    [SQ_EM_MARK] = "UPDATE em_entries SET is_read = ? WHERE username = ? AND label = ? AND "
                   "bucket = ? AND id = ? AND is_read = ?",
    [SQ_EM_UNREAD_ADD] = "INSERT INTO em_unread (username, label, num_unread) VALUES (?, ?, ?) "
                         "ON CONFLICT (username, label) DO UPDATE SET "
                         "num_unread = num_unread + excluded.num_unread",
    [SQ_EM_FOLDERS] = "SELECT label, color FROM em_folders WHERE username = ? ORDER BY label",
    [SQ_EM_COUNTS] = "SELECT label, num_unread FROM em_unread WHERE username = ? "
                     "ORDER BY label",
    [SQ_EM_FOLDER_SET] = "INSERT INTO em_folders (username, label, color) VALUES (?, ?, ?) "
                         "ON CONFLICT (username, label) DO UPDATE SET color = excluded.color",
    [SQ_EM_FOLDER_TOUCH] = "INSERT INTO em_folders (username, label, color) VALUES (?, ?, '') "
                           "ON CONFLICT (username, label) DO NOTHING",
    [SQ_EM_BUCKET_NEWEST] = "SELECT bucket, num_emails FROM em_buckets WHERE username = ? AND "
                            "label = ? ORDER BY bucket DESC LIMIT 1",
    [SQ_EM_BUCKET_ADD] = "INSERT INTO em_buckets (username, label, bucket, num_emails) "
                         "VALUES (?, ?, ?, 1) ON CONFLICT (username, label, bucket) DO UPDATE "
                         "SET num_emails = num_emails + 1",
    [SQ_EM_ENTRY] = "INSERT INTO em_entries (username, label, bucket, id, sender, subject, "
                    "is_read) VALUES (?, ?, ?, ?, ?, ?, ?)",
    [SQ_EM_LABEL] = "INSERT INTO em_labels (username, id, label, bucket) VALUES (?, ?, ?, ?)",
    [SQ_EM_EMAIL] = "INSERT INTO em_emails (id, to_list, sender, subject, body, attachments) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
    [SQ_EM_CHUNK_PUT] = "INSERT INTO em_chunks (email_id, filename, chunk_number, type, value) "
                        "VALUES (?, ?, ?, ?, ?)",
    [SQ_EM_CHUNK_GET] = "SELECT type, value FROM em_chunks WHERE email_id = ? AND filename = ? "
                        "AND chunk_number = ?",
    [SQ_EM_EMAIL_GET] = "SELECT id, to_list, sender, subject, body, attachments FROM em_emails "
                        "WHERE id = ?",
    [SQ_GC_ROW] = "SELECT conversation_type, presence_changes FROM gc_convs WHERE user_id = ? "
                  "AND conversation_id = ?",
    [SQ_GC_TIMES] = "SELECT kind, at_ms FROM gc_presence WHERE user_id = ? AND "
                    "conversation_id = ? ORDER BY kind, at_ms",
    [SQ_GC_SLICE] = "SELECT message_id, sender_id, body FROM gc_messages WHERE "
                    "conversation_id = ? AND bucket = ? AND message_id >= ? AND message_id < ? "
                    "ORDER BY message_id DESC LIMIT ?",
    [SQ_GC_CONV_PUT] = "INSERT INTO gc_convs (user_id, conversation_id, conversation_type, "
                       "presence_changes) VALUES (?, ?, 'group', ?)",
    [SQ_GC_TIME_PUT] = "INSERT INTO gc_presence (user_id, conversation_id, kind, at_ms) "
                       "VALUES (?, ?, ?, ?)",
    [SQ_GC_SEND] = "INSERT INTO gc_messages (conversation_id, bucket, message_id, sender_id, "
                   "body) VALUES (?, ?, ?, ?, ?)",
};

typedef struct sys {
    enum kind kind;
    enum dur dur;
    /* cassette, embedded or remote, and the data layers on its session */
    CassCluster *cluster;
    CassSession *session;
    pid_t server;
    kc_db *kc;
    em_db *em;
    gc_chat *gc;
    /* SQLite: a connection per thread */
    sqlite3 *db[MAX_THREADS];
    sqlite3_stmt *st[MAX_THREADS][N_SQ];
    /* raw LMDB */
    MDB_env *env;
    MDB_dbi dbi;
    /* this system's ids */
    CassUuid *mail_ids; /* the fixture emails: [user * em_per_user + j] */
    CassUuid *file_ids; /* the attachment emails, by file number */
    CassUuid *gc_ids;   /* the group's messages, by number */
} sys;

/* ---- one operation's input, made before timing, and its answer ---- */

typedef struct task {
    int user; /* join: user; mark, folders: email user; page: reader */
    int item; /* join: room; mark: email; attachments: file number; page: messages skipped */
    int flag; /* join: 1 join, 0 leave; mark: 1 read, 0 unread */
    int want; /* mark: folders expected to flip */
} task;

typedef struct answer {
    int rc; /* the data layer's status (0: ok) */
    char msg[ERR_CAP];
    int changed;
    em_folder *folders, *counts;
    size_t n_folders, n_counts;
    em_blob chunk[N_CHUNKS], whole;
    gc_page page;
} answer;

static void answer_clear(answer *a)
{
    em_folders_free(a->folders, a->n_folders);
    em_folders_free(a->counts, a->n_counts);
    for (int c = 0; c < N_CHUNKS; c++)
        em_blob_free(&a->chunk[c]);
    em_blob_free(&a->whole);
    gc_page_free(&a->page);
    memset(a, 0, sizeof *a);
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        bench_die_nomem();
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

/* ---- cassette: the data layers, embedded or remote ---- */

static void cass_join(sys *s, const task *t, answer *a)
{
    kc_err err = {KC_OK, ""};
    const char *login = kc_login_of[t->user], *room = kc_room_of[t->item];
    kc_status st =
        t->flag ? kc_join_room(s->kc, login, room, &err) : kc_leave_room(s->kc, login, room, &err);
    a->rc = (int)st;
    if (st != KC_OK)
        snprintf(a->msg, sizeof a->msg, "%s: %s", kc_status_name(st), err.msg);
}

static void cass_mark(sys *s, const task *t, answer *a)
{
    CassUuid id = s->mail_ids[t->user * sz.em_per_user + t->item];
    a->rc =
        em_mark_read(s->em, em_user_of[t->user], id, t->flag, &a->changed, a->msg, sizeof a->msg);
}

static void cass_folders(sys *s, const task *t, answer *a)
{
    const char *user = em_user_of[t->user];
    a->rc = em_folders(s->em, user, &a->folders, &a->n_folders, a->msg, sizeof a->msg);
    if (a->rc == EM_OK)
        a->rc = em_unread_counts(s->em, user, &a->counts, &a->n_counts, a->msg, sizeof a->msg);
}

static void cass_att_write(sys *s, int th, const task *t, answer *a)
{
    stamp_file(file_buf[th], t->item);
    em_rcpt to = {EM_FILE_TO, NULL, 0};
    em_file f = {EM_FILE_NAME, "application/pdf", file_buf[th], FILE_BYTES};
    em_draft d = {EM_FILE_FROM, &to, 1, "the report", "attached", &f, 1, 0};
    a->rc = em_send(s->em, &d, &s->file_ids[t->item], a->msg, sizeof a->msg);
}

static void cass_att_read(sys *s, const task *t, answer *a)
{
    CassUuid id = s->file_ids[t->item];
    for (int c = 0; c < N_CHUNKS && a->rc == EM_OK; c++)
        a->rc = em_attachment_chunk(s->em, id, EM_FILE_NAME, c + 1, &a->chunk[c], a->msg,
                                    sizeof a->msg);
    if (a->rc == EM_OK)
        a->rc = em_attachment_get(s->em, id, EM_FILE_NAME, &a->whole, a->msg, sizeof a->msg);
}

static void cass_page(sys *s, const task *t, answer *a)
{
    const gc_reader *r = &gc_readers[t->user];
    char cursor[CASS_UUID_STRING_LENGTH] = "";
    if (t->item > 0)
        cass_uuid_string(s->gc_ids[r->visible[t->item - 1]], cursor);
    a->rc =
        (int)gc_read_page(s->gc, r->name, GC_CONV, cursor, PAGE, &a->page, a->msg, sizeof a->msg);
}

/* ---- SQLite: the same tables, the data layers' logic in SQL and C ---- */

static void sq_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        bench_die("SQLite error in %s: %s", sql, msg ? msg : "?");
}

static sqlite3 *sq_connect(const char *path, enum dur d)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        die_sqlite("open", db);
    sqlite3_busy_timeout(db, 60000);
    sq_exec(db, "PRAGMA journal_mode=WAL");
    sq_exec(db, d == D_SYNC ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF");
    sq_exec(db, "PRAGMA mmap_size=68719476736");
    sq_exec(db, "PRAGMA cache_size=-65536");
    return db;
}

static void sq_open(sys *s, const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/sqlite.db", dir);
    for (int t = 0; t < MAX_THREADS; t++) {
        s->db[t] = sq_connect(path, s->dur);
        if (t == 0)
            for (size_t i = 0; i < sizeof SQ_SCHEMA / sizeof *SQ_SCHEMA; i++)
                sq_exec(s->db[0], SQ_SCHEMA[i]);
        for (int q = 0; q < N_SQ; q++)
            if (sqlite3_prepare_v2(s->db[t], SQ[q], -1, &s->st[t][q], NULL) != SQLITE_OK)
                die_sqlite(SQ[q], s->db[t]);
    }
}

static void sq_close(sys *s)
{
    for (int t = 0; t < MAX_THREADS; t++) {
        for (int q = 0; q < N_SQ; q++)
            sqlite3_finalize(s->st[t][q]);
        sqlite3_close(s->db[t]);
    }
}

static void bt(sqlite3_stmt *st, int i, const char *v)
{
    if (sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) != SQLITE_OK)
        bench_die("SQLite: binding text %d failed", i);
}

static void bb(sqlite3_stmt *st, int i, const void *v, size_t n)
{
    if (sqlite3_bind_blob(st, i, v, (int)n, SQLITE_TRANSIENT) != SQLITE_OK)
        bench_die("SQLite: binding a blob %d failed", i);
}

static void bi(sqlite3_stmt *st, int i, int64_t v)
{
    if (sqlite3_bind_int64(st, i, v) != SQLITE_OK)
        bench_die("SQLite: binding an integer %d failed", i);
}

static void bu(sqlite3_stmt *st, int i, CassUuid id)
{
    uint8_t b[16];
    uuid_bytes(id, b);
    bb(st, i, b, 16);
}

static sqlite3_stmt *sq_st(sys *s, int th, enum sq q)
{
    return s->st[th][q];
}

/* Steps a statement that returns no row, and resets it. */
static void sq_done(sys *s, int th, enum sq q)
{
    sqlite3_stmt *st = s->st[th][q];
    if (sqlite3_step(st) != SQLITE_DONE)
        die_sqlite(SQ[q], s->db[th]);
    sqlite3_reset(st);
}

/* One step: 1 for a row, 0 at the end (the caller resets). */
static int sq_row(sys *s, int th, enum sq q)
{
    int rc = sqlite3_step(s->st[th][q]);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc != SQLITE_DONE)
        die_sqlite(SQ[q], s->db[th]);
    return 0;
}

static void sq_reset(sys *s, int th, enum sq q)
{
    sqlite3_reset(s->st[th][q]);
}

static char *sq_strdup(sqlite3_stmt *st, int col)
{
    const char *v = (const char *)sqlite3_column_text(st, col);
    return xstrndup(v ? v : "", (size_t)sqlite3_column_bytes(st, col));
}

static void sq_copy(sqlite3_stmt *st, int col, char *dst, size_t cap)
{
    const char *v = (const char *)sqlite3_column_text(st, col);
    size_t n = (size_t)sqlite3_column_bytes(st, col);
    if (n >= cap)
        bench_die("SQLite: a text of %zu bytes where at most %zu fit", n, cap - 1);
    memcpy(dst, v ? v : "", n);
    dst[n] = 0;
}

static CassUuid sq_uuid(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_bytes(st, col) != 16)
        bench_die("SQLite: an id of %d bytes", sqlite3_column_bytes(st, col));
    const uint8_t *b = sqlite3_column_blob(st, col);
    CassUuid u = {0, 0};
    for (int j = 0; j < 8; j++) {
        u.time_and_version = u.time_and_version << 8 | b[j];
        u.clock_seq_and_node = u.clock_seq_and_node << 8 | b[8 + j];
    }
    return u;
}

/* KillrChat: a user as kc's user_read reads it (the row, then the set of rooms). */
typedef struct sq_user {
    int found;
    char first[32], last[32], scratch[64];
} sq_user;

static void sq_user_read(sys *s, int th, const char *login, sq_user *u)
{
    sqlite3_stmt *st = sq_st(s, th, SQ_KC_USER_GET);
    bt(st, 1, login);
    u->found = sq_row(s, th, SQ_KC_USER_GET);
    if (u->found) {
        sq_copy(st, 2, u->first, sizeof u->first);
        sq_copy(st, 3, u->last, sizeof u->last);
        sq_copy(st, 4, u->scratch, sizeof u->scratch);
    }
    sq_reset(s, th, SQ_KC_USER_GET);
    if (!u->found)
        return;
    st = sq_st(s, th, SQ_KC_USER_ROOMS);
    bt(st, 1, login);
    while (sq_row(s, th, SQ_KC_USER_ROOMS))
        sq_copy(st, 0, u->scratch, sizeof u->scratch);
    sq_reset(s, th, SQ_KC_USER_ROOMS);
}

/* A room and its participants, as kc's room_read; returns whether login is one of them. */
static int sq_room_read(sys *s, int th, const char *room, const char *login, int *found)
{
    char buf[64];
    sqlite3_stmt *st = sq_st(s, th, SQ_KC_ROOM_GET);
    bt(st, 1, room);
    *found = sq_row(s, th, SQ_KC_ROOM_GET);
    if (*found)
        sq_copy(st, 1, buf, sizeof buf);
    sq_reset(s, th, SQ_KC_ROOM_GET);
    if (!*found)
        return 0;
    int in = 0;
    st = sq_st(s, th, SQ_KC_PARTS);
    bt(st, 1, room);
    while (sq_row(s, th, SQ_KC_PARTS)) {
        sq_copy(st, 0, buf, sizeof buf);
        in |= strcmp(buf, login) == 0;
    }
    sq_reset(s, th, SQ_KC_PARTS);
    return in;
}

static void sq_post(sys *s, int th, const char *room, const char *login, const sq_user *u,
                    const char *what)
{
    char text[96];
    snprintf(text, sizeof text, "%s %s", login, what);
    sqlite3_stmt *st = sq_st(s, th, SQ_KC_POST);
    bt(st, 1, room);
    bi(st, 2, day_bucket_now());
    bu(st, 3, sq_new_id());
    bt(st, 4, login);
    bt(st, 5, u->first);
    bt(st, 6, u->last);
    bt(st, 7, text);
    bi(st, 8, 1);
    sq_done(s, th, SQ_KC_POST);
}

/* kc_join_room: reads, the conditional add in BEGIN IMMEDIATE, the room list, a re-read,
   the notice. */
static void sq_join(sys *s, int th, const task *t, answer *a)
{
    const char *login = kc_login_of[t->user], *room = kc_room_of[t->item];
    sq_user u;
    int found;
    sq_user_read(s, th, login, &u);
    int in = u.found ? sq_room_read(s, th, room, login, &found) : 0;
    if (!u.found || !found) {
        a->rc = KC_NOT_FOUND;
        return;
    }
    if (!in) {
        sq_done(s, th, SQ_BEGIN);
        bt(sq_st(s, th, SQ_KC_ROOM_EXISTS), 1, room);
        int exists = sq_row(s, th, SQ_KC_ROOM_EXISTS);
        sq_reset(s, th, SQ_KC_ROOM_EXISTS);
        if (exists) {
            sqlite3_stmt *st = sq_st(s, th, SQ_KC_JOIN);
            bt(st, 1, room);
            bt(st, 2, login);
            bt(st, 3, u.first);
            bt(st, 4, u.last);
            sq_done(s, th, SQ_KC_JOIN);
        }
        sq_done(s, th, SQ_COMMIT);
        if (!exists) {
            a->rc = KC_NOT_FOUND;
            return;
        }
    }
    bt(sq_st(s, th, SQ_KC_ADD_ROOM), 1, login);
    bt(sq_st(s, th, SQ_KC_ADD_ROOM), 2, room);
    sq_done(s, th, SQ_KC_ADD_ROOM);
    if (!sq_room_read(s, th, room, login, &found)) {
        a->rc = KC_NOT_FOUND;
        return;
    }
    if (!in)
        sq_post(s, th, room, login, &u, "joined");
}

/* kc_leave_room: reads, the participant removed, the room list, the notice. */
static void sq_leave(sys *s, int th, const task *t, answer *a)
{
    const char *login = kc_login_of[t->user], *room = kc_room_of[t->item];
    sq_user u;
    int found = 0;
    sq_user_read(s, th, login, &u);
    int in = u.found ? sq_room_read(s, th, room, login, &found) : 0;
    if (!u.found) {
        a->rc = KC_NOT_FOUND;
        return;
    }
    if (in) {
        bt(sq_st(s, th, SQ_KC_LEAVE), 1, room);
        bt(sq_st(s, th, SQ_KC_LEAVE), 2, login);
        sq_done(s, th, SQ_KC_LEAVE);
    }
    bt(sq_st(s, th, SQ_KC_DEL_ROOM), 1, login);
    bt(sq_st(s, th, SQ_KC_DEL_ROOM), 2, room);
    sq_done(s, th, SQ_KC_DEL_ROOM);
    if (in)
        sq_post(s, th, room, login, &u, "left");
    if (!found)
        a->rc = KC_NOT_FOUND;
}

/* em_mark_read: the folders of the email, then per folder the conditional flip and the
   counter in one BEGIN IMMEDIATE transaction. */
static void sq_mark(sys *s, int th, const task *t, answer *a)
{
    const char *user = em_user_of[t->user];
    CassUuid id = s->mail_ids[t->user * sz.em_per_user + t->item];
    char labels[4][16];
    int64_t buckets[4];
    int n = 0;
    sqlite3_stmt *st = sq_st(s, th, SQ_EM_LABELS_OF);
    bt(st, 1, user);
    bu(st, 2, id);
    while (n < 4 && sq_row(s, th, SQ_EM_LABELS_OF)) {
        sq_copy(st, 0, labels[n], sizeof labels[n]);
        buckets[n++] = sqlite3_column_int64(st, 1);
    }
    sq_reset(s, th, SQ_EM_LABELS_OF);
    if (n == 0) {
        a->rc = EM_ERR_NOT_FOUND;
        return;
    }
    for (int i = 0; i < n; i++) {
        sq_done(s, th, SQ_BEGIN);
        st = sq_st(s, th, SQ_EM_MARK);
        bi(st, 1, t->flag);
        bt(st, 2, user);
        bt(st, 3, labels[i]);
        bi(st, 4, buckets[i]);
        bu(st, 5, id);
        bi(st, 6, !t->flag);
        sq_done(s, th, SQ_EM_MARK);
        if (sqlite3_changes(s->db[th]) == 1) {
            st = sq_st(s, th, SQ_EM_UNREAD_ADD);
            bt(st, 1, user);
            bt(st, 2, labels[i]);
            bi(st, 3, t->flag ? -1 : 1);
            sq_done(s, th, SQ_EM_UNREAD_ADD);
            a->changed++;
        }
        sq_done(s, th, SQ_COMMIT);
    }
}

/* Q1 or Q2 of a user into a new array, as em_folders and em_unread_counts return them. */
static em_folder *sq_folder_list(sys *s, int th, enum sq q, const char *user, size_t *n)
{
    size_t cap = 8;
    em_folder *f = calloc(cap, sizeof *f);
    if (!f)
        bench_die_nomem();
    sqlite3_stmt *st = sq_st(s, th, q);
    bt(st, 1, user);
    *n = 0;
    while (sq_row(s, th, q)) {
        if (*n == cap)
            bench_die("SQLite: more than %zu folders", cap);
        f[*n].label = sq_strdup(st, 0);
        if (q == SQ_EM_COUNTS) {
            f[*n].color = xstrndup("", 0);
            f[*n].num_unread = sqlite3_column_int64(st, 1);
        } else {
            f[*n].color = sq_strdup(st, 1);
        }
        (*n)++;
    }
    sq_reset(s, th, q);
    return f;
}

static void sq_folders(sys *s, int th, const task *t, answer *a)
{
    const char *user = em_user_of[t->user];
    a->folders = sq_folder_list(s, th, SQ_EM_FOLDERS, user, &a->n_folders);
    a->counts = sq_folder_list(s, th, SQ_EM_COUNTS, user, &a->n_counts);
}

/* One folder entry of an email being sent. */
typedef struct sq_entry {
    const char *user, *label;
    int is_read;
    int64_t bucket;
} sq_entry;

static void sq_chunks_put(sys *s, int th, CassUuid id, const uint8_t *data, size_t len)
{
    sq_done(s, th, SQ_BEGIN);
    for (size_t off = 0, c = 1; off < len; off += EM_CHUNK_BYTES, c++) {
        sqlite3_stmt *st = sq_st(s, th, SQ_EM_CHUNK_PUT);
        bu(st, 1, id);
        bt(st, 2, EM_FILE_NAME);
        bi(st, 3, (int64_t)c);
        bt(st, 4, "application/pdf");
        bb(st, 5, data + off, len - off < EM_CHUNK_BYTES ? len - off : EM_CHUNK_BYTES);
        sq_done(s, th, SQ_EM_CHUNK_PUT);
    }
    sq_done(s, th, SQ_COMMIT);
}

/* Each entry's bucket: the newest, or the next when the newest is full; counted at once. */
static void sq_buckets(sys *s, int th, sq_entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        sqlite3_stmt *st = sq_st(s, th, SQ_EM_BUCKET_NEWEST);
        bt(st, 1, e[i].user);
        bt(st, 2, e[i].label);
        int found = sq_row(s, th, SQ_EM_BUCKET_NEWEST);
        e[i].bucket = found ? sqlite3_column_int64(st, 0) : 0;
        if (found && sqlite3_column_int64(st, 1) >= EM_DEFAULT_BUCKET_THRESHOLD)
            e[i].bucket++;
        sq_reset(s, th, SQ_EM_BUCKET_NEWEST);
    }
    sq_done(s, th, SQ_BEGIN);
    for (int i = 0; i < n; i++) {
        sqlite3_stmt *st = sq_st(s, th, SQ_EM_BUCKET_ADD);
        bt(st, 1, e[i].user);
        bt(st, 2, e[i].label);
        bi(st, 3, e[i].bucket);
        sq_done(s, th, SQ_EM_BUCKET_ADD);
    }
    sq_done(s, th, SQ_COMMIT);
}

/* The email, its folder entries and their labels in one transaction (the logged batch). */
static void sq_email_put(sys *s, int th, CassUuid id, const char *from, const char *to,
                         const char *files, const sq_entry *e, int n)
{
    sq_done(s, th, SQ_BEGIN);
    sqlite3_stmt *st = sq_st(s, th, SQ_EM_EMAIL);
    bu(st, 1, id);
    bt(st, 2, to);
    bt(st, 3, from);
    bt(st, 4, "the report");
    bt(st, 5, "attached");
    bt(st, 6, files);
    sq_done(s, th, SQ_EM_EMAIL);
    for (int i = 0; i < n; i++) {
        bt(sq_st(s, th, SQ_EM_FOLDER_TOUCH), 1, e[i].user);
        bt(sq_st(s, th, SQ_EM_FOLDER_TOUCH), 2, e[i].label);
        sq_done(s, th, SQ_EM_FOLDER_TOUCH);
        st = sq_st(s, th, SQ_EM_ENTRY);
        bt(st, 1, e[i].user);
        bt(st, 2, e[i].label);
        bi(st, 3, e[i].bucket);
        bu(st, 4, id);
        bt(st, 5, from);
        bt(st, 6, "the report");
        bi(st, 7, e[i].is_read);
        sq_done(s, th, SQ_EM_ENTRY);
        st = sq_st(s, th, SQ_EM_LABEL);
        bt(st, 1, e[i].user);
        bu(st, 2, id);
        bt(st, 3, e[i].label);
        bi(st, 4, e[i].bucket);
        sq_done(s, th, SQ_EM_LABEL);
    }
    sq_done(s, th, SQ_COMMIT);
}

/* em_send in SQL: the chunks, the buckets, the email with its entries, the counters. */
static CassUuid sq_em_send(sys *s, int th, const char *from, const char *to, int n_labels,
                           const uint8_t *data, size_t len)
{
    static const char *const labels[MAX_LABELS] = {EM_INBOX_LABEL, "work"};
    sq_entry e[MAX_LABELS + 1];
    int n = 0;
    for (int i = 0; i < n_labels; i++)
        e[n++] = (sq_entry){to, labels[i], 0, 0};
    e[n++] = (sq_entry){from, EM_SENT_LABEL, 1, 0};
    CassUuid id = sq_new_id();
    char files[64] = "";
    if (data) {
        sq_chunks_put(s, th, id, data, len);
        snprintf(files, sizeof files, "%s=%zu", EM_FILE_NAME, len);
    }
    sq_buckets(s, th, e, n);
    sq_email_put(s, th, id, from, to, files, e, n);
    sq_done(s, th, SQ_BEGIN);
    for (int i = 0; i < n; i++) {
        if (e[i].is_read)
            continue;
        sqlite3_stmt *st = sq_st(s, th, SQ_EM_UNREAD_ADD);
        bt(st, 1, e[i].user);
        bt(st, 2, e[i].label);
        bi(st, 3, 1);
        sq_done(s, th, SQ_EM_UNREAD_ADD);
    }
    sq_done(s, th, SQ_COMMIT);
    return id;
}

static void sq_att_write(sys *s, int th, const task *t, answer *a)
{
    (void)a;
    stamp_file(file_buf[th], t->item);
    s->file_ids[t->item] = sq_em_send(s, th, EM_FILE_FROM, EM_FILE_TO, 1, file_buf[th], FILE_BYTES);
}

/* Chunk c (from 1) into out (a new copy) or, when into is not NULL, into it; its length. */
static size_t sq_chunk(sys *s, int th, CassUuid id, int c, em_blob *out, uint8_t *into)
{
    sqlite3_stmt *st = sq_st(s, th, SQ_EM_CHUNK_GET);
    bu(st, 1, id);
    bt(st, 2, EM_FILE_NAME);
    bi(st, 3, c);
    if (!sq_row(s, th, SQ_EM_CHUNK_GET))
        bench_die("SQLite: chunk %d of an attachment is missing", c);
    size_t len = (size_t)sqlite3_column_bytes(st, 1);
    const void *v = sqlite3_column_blob(st, 1);
    if (into) {
        if (len > EM_CHUNK_BYTES)
            bench_die("SQLite: a chunk of %zu bytes", len);
        memcpy(into, v, len);
    } else {
        out->type = sq_strdup(st, 0);
        out->data = malloc(len ? len : 1);
        if (!out->data)
            bench_die_nomem();
        memcpy(out->data, v, len);
        out->len = len;
    }
    sq_reset(s, th, SQ_EM_CHUNK_GET);
    return len;
}

/* em_attachment_get in SQL: the email (its attachment sizes), then every chunk. */
static void sq_att_whole(sys *s, int th, CassUuid id, em_blob *out)
{
    sqlite3_stmt *st = sq_st(s, th, SQ_EM_EMAIL_GET);
    bu(st, 1, id);
    if (!sq_row(s, th, SQ_EM_EMAIL_GET))
        bench_die("SQLite: an attachment's email is missing");
    char *cols[5];
    for (int c = 0; c < 5; c++)
        cols[c] = sq_strdup(st, c + 1);
    sq_reset(s, th, SQ_EM_EMAIL_GET);
    const char *eq = strchr(cols[4], '=');
    size_t size = eq ? (size_t)strtoull(eq + 1, NULL, 10) : 0;
    for (int c = 0; c < 5; c++)
        free(cols[c]);
    out->data = malloc(size ? size : 1);
    if (!out->data)
        bench_die_nomem();
    size_t got = 0;
    for (int c = 1; got < size; c++)
        got += sq_chunk(s, th, id, c, NULL, out->data + got);
    out->len = got;
    out->type = xstrndup("application/pdf", 15);
}

static void sq_att_read(sys *s, int th, const task *t, answer *a)
{
    CassUuid id = s->file_ids[t->item];
    for (int c = 0; c < N_CHUNKS; c++)
        sq_chunk(s, th, id, c + 1, &a->chunk[c], NULL);
    sq_att_whole(s, th, id, &a->whole);
}

/* Group chat: one interval's slice of one bucket, as gc's read_slice. */
static void sq_slice(sys *s, int th, int bucket, int64_t from_ms, const CassUuid *cursor,
                     int64_t upper_ms, gc_page *page)
{
    uint8_t lo[16], hi[16];
    min_id_bytes(from_ms, lo);
    if (cursor)
        uuid_bytes(*cursor, hi);
    else
        min_id_bytes(upper_ms, hi);
    sqlite3_stmt *st = sq_st(s, th, SQ_GC_SLICE);
    bt(st, 1, GC_CONV);
    bi(st, 2, bucket);
    bb(st, 3, lo, 16);
    bb(st, 4, hi, 16);
    bi(st, 5, PAGE - (int)page->count);
    while ((int)page->count < PAGE && sq_row(s, th, SQ_GC_SLICE)) {
        gc_message *m = &page->messages[page->count++];
        m->id = sq_uuid(st, 0);
        m->sent_at_ms = (int64_t)cass_uuid_timestamp(m->id);
        m->sender = sq_strdup(st, 1);
        m->body = sq_strdup(st, 2);
    }
    sq_reset(s, th, SQ_GC_SLICE);
    page->partitions_read++;
}

/* The reader's presence intervals (joins and leaves), as gc's read_presence; 0 if none. */
static int sq_presence(sys *s, int th, const char *user, gc_interval *iv, int cap)
{
    sqlite3_stmt *st = sq_st(s, th, SQ_GC_ROW);
    bt(st, 1, user);
    bt(st, 2, GC_CONV);
    int found = sq_row(s, th, SQ_GC_ROW);
    sq_reset(s, th, SQ_GC_ROW);
    if (!found)
        return 0;
    int64_t t[2][8];
    int n[2] = {0, 0};
    st = sq_st(s, th, SQ_GC_TIMES);
    bt(st, 1, user);
    bt(st, 2, GC_CONV);
    while (sq_row(s, th, SQ_GC_TIMES)) {
        int k = sqlite3_column_int(st, 0) != 0;
        if (n[k] == 8)
            bench_die("SQLite: more than 8 presence events of a kind");
        t[k][n[k]++] = sqlite3_column_int64(st, 1);
    }
    sq_reset(s, th, SQ_GC_TIMES);
    if (n[0] > cap || (n[0] != n[1] && n[0] != n[1] + 1))
        bench_die("SQLite: presence of %s does not alternate", user);
    for (int i = 0; i < n[0]; i++)
        iv[i] = (gc_interval){t[0][i], i < n[1] ? t[1][i] : INT64_MAX};
    return n[0];
}

/* gc_read_page in SQL: the presence, then each interval's buckets newest first. */
static void sq_page(sys *s, int th, const task *t, answer *a)
{
    const gc_reader *r = &gc_readers[t->user];
    int has_cursor = t->item > 0;
    CassUuid cur = has_cursor ? s->gc_ids[r->visible[t->item - 1]] : (CassUuid){0, 0};
    int64_t cursor_ms = has_cursor ? (int64_t)cass_uuid_timestamp(cur) : 0;
    gc_interval iv[8];
    int n = sq_presence(s, th, r->name, iv, 8);
    if (n == 0) {
        a->rc = GC_ERR_NOT_FOUND;
        return;
    }
    gc_page *page = &a->page;
    page->messages = calloc(PAGE, sizeof *page->messages);
    if (!page->messages)
        bench_die_nomem();
    int64_t now = gc_clock(NULL);
    for (int i = n; i-- > 0 && (int)page->count < PAGE;) {
        int64_t from = iv[i].from_ms;
        int64_t top = iv[i].to_ms != INT64_MAX ? iv[i].to_ms - 1 : now > from ? now : from;
        int by_cursor = 0;
        if (has_cursor) {
            if (cursor_ms < from)
                continue;
            if (cursor_ms <= top) {
                top = cursor_ms;
                by_cursor = 1;
            }
        }
        if (from > top)
            continue;
        for (int b = gc_bucket_of(top), first = gc_bucket_of(from);
             b >= first && (int)page->count < PAGE; b--)
            sq_slice(s, th, b, from, by_cursor ? &cur : NULL, top + 1, page);
    }
}

/* ---- raw LMDB: the attachment chunks by key ---- */

/* The email id's 16 bytes, the filename, a 0 byte, the chunk number big-endian. */
static size_t lm_key(uint8_t *k, CassUuid id, int c)
{
    size_t n = strlen(EM_FILE_NAME);
    uuid_bytes(id, k);
    memcpy(k + 16, EM_FILE_NAME, n + 1);
    for (int j = 0; j < 4; j++)
        k[17 + n + (size_t)j] = (uint8_t)((uint32_t)c >> (24 - 8 * j));
    return 21 + n;
}

static void lm_open(sys *s, const char *dir)
{
    int rc;
    unsigned flags = MDB_NOTLS | (s->dur == D_NONE ? MDB_NOSYNC | MDB_NOMETASYNC : 0);
    MDB_txn *txn;
    if ((rc = mdb_env_create(&s->env)) || (rc = mdb_env_set_mapsize(s->env, (size_t)1 << 34)) ||
        (rc = mdb_env_open(s->env, dir, flags, 0600)))
        die_mdb("open", rc);
    if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) || (rc = mdb_dbi_open(txn, NULL, 0, &s->dbi)) ||
        (rc = mdb_txn_commit(txn)))
        die_mdb("open the database", rc);
}

static void lm_att_write(sys *s, int th, const task *t)
{
    uint8_t kb[64];
    MDB_txn *txn;
    int rc;
    stamp_file(file_buf[th], t->item);
    CassUuid id = sq_new_id();
    if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)))
        die_mdb("begin", rc);
    for (int c = 0; c < N_CHUNKS; c++) {
        size_t off = (size_t)c * EM_CHUNK_BYTES;
        MDB_val k = {lm_key(kb, id, c + 1), kb};
        MDB_val v = {FILE_BYTES - off < EM_CHUNK_BYTES ? FILE_BYTES - off : EM_CHUNK_BYTES,
                     file_buf[th] + off};
        if ((rc = mdb_put(txn, s->dbi, &k, &v, 0)))
            die_mdb("put a chunk", rc);
    }
    if ((rc = mdb_txn_commit(txn)))
        die_mdb("commit", rc);
    s->file_ids[t->item] = id;
}

static MDB_val lm_get(sys *s, MDB_txn *txn, CassUuid id, int c)
{
    uint8_t kb[64];
    MDB_val k = {lm_key(kb, id, c), kb}, v;
    int rc = mdb_get(txn, s->dbi, &k, &v);
    if (rc)
        die_mdb("get a chunk", rc);
    return v;
}

static void lm_att_read(sys *s, const task *t, answer *a)
{
    MDB_txn *txn;
    int rc;
    CassUuid id = s->file_ids[t->item];
    if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)))
        die_mdb("begin", rc);
    for (int c = 0; c < N_CHUNKS; c++) {
        MDB_val v = lm_get(s, txn, id, c + 1);
        if (!(a->chunk[c].data = malloc(v.mv_size)))
            bench_die_nomem();
        memcpy(a->chunk[c].data, v.mv_data, v.mv_size);
        a->chunk[c].len = v.mv_size;
    }
    if (!(a->whole.data = malloc(FILE_BYTES)))
        bench_die_nomem();
    for (int c = 0; c < N_CHUNKS; c++) {
        MDB_val v = lm_get(s, txn, id, c + 1);
        if (a->whole.len + v.mv_size > FILE_BYTES)
            bench_die("raw LMDB: the chunks exceed the file");
        memcpy(a->whole.data + a->whole.len, v.mv_data, v.mv_size);
        a->whole.len += v.mv_size;
    }
    mdb_txn_abort(txn);
}

/* ---- cassette: connecting, embedded or through a server ---- */

static void cass_connect(sys *s, const char *point, int port)
{
    s->cluster = cass_cluster_new();
    s->session = cass_session_new();
    if (!s->cluster || !s->session)
        bench_die_nomem();
    CassError rc;
    if ((rc = cass_cluster_set_contact_points(s->cluster, point)) != CASS_OK)
        bench_die_cass("cass_cluster_set_contact_points", rc);
    cass_cluster_set_request_timeout(s->cluster, 120000);
    if (port) {
        if ((rc = cass_cluster_set_port(s->cluster, port)) != CASS_OK)
            bench_die_cass("cass_cluster_set_port", rc);
    } else {
        cassette_durability d =
            s->dur == D_SYNC ? CASSETTE_DURABILITY_SYNC : CASSETTE_DURABILITY_NONE;
        if ((rc = (CassError)cassette_cluster_set_durability(s->cluster, d)) != CASS_OK ||
            (rc = (CassError)cassette_cluster_set_group_commit(s->cluster, 1)) != CASS_OK ||
            (rc = (CassError)cassette_cluster_set_map_size(s->cluster, UINT64_C(1) << 30)) !=
                CASS_OK)
            bench_die_cass("cassette_cluster_set_*", rc);
    }
    CassFuture *f = cass_session_connect(s->session, s->cluster);
    if (cass_future_error_code(f) != CASS_OK)
        bench_die_future(point, f);
    cass_future_free(f);
}

/* Connects and opens the three data layers on the session (their schemas created). */
static void cass_open(sys *s, const char *dir, const char *cassette)
{
    char point[PATH_MAX + 8], err[ERR_CAP];
    int port = 0;
    if (s->kind == K_REMOTE) {
        s->server = bench_serve_start(cassette, dir, DUR_ID[s->dur], &port);
        snprintf(point, sizeof point, "127.0.0.1");
    } else {
        snprintf(point, sizeof point, "file:%s", dir);
    }
    cass_connect(s, point, port);
    kc_options o;
    kc_options_init(&o);
    o.flush_interval_ms = 0; /* no background thread in the timings: flushed at the end */
    o.password_cost = KC_PASSWORD_MIN;
    kc_err kerr;
    if (kc_open(s->session, &o, &s->kc, &kerr) != KC_OK)
        bench_die("kc_open: %s", kerr.msg);
    em_options eo = {NULL, 0, 1};
    if (em_attach(s->session, &eo, &s->em, err, sizeof err) != EM_OK)
        bench_die("em_attach: %s", err);
    if (gc_create_schema(s->session, err, sizeof err) != GC_OK ||
        gc_open(s->session, gc_clock, NULL, &s->gc, err, sizeof err) != GC_OK)
        bench_die("gc_open: %s", err);
}

static void cass_close(sys *s)
{
    kc_err kerr;
    if (kc_close(s->kc, &kerr) != KC_OK)
        bench_die("kc_close: %s", kerr.msg);
    em_close(s->em);
    gc_close(s->gc);
    CassFuture *f = cass_session_close(s->session);
    cass_future_wait(f);
    cass_future_free(f);
    cass_session_free(s->session);
    cass_cluster_free(s->cluster);
    if (s->kind == K_REMOTE) {
        int status;
        kill(s->server, SIGTERM);
        if (waitpid(s->server, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            bench_die("cassette serve did not stop cleanly");
    }
}

/* ---- the model and the fixtures ---- */

static void make_model(void)
{
    for (int u = 0; u < sz.kc_users; u++)
        snprintf(kc_login_of[u], sizeof kc_login_of[u], "u%04d", u);
    for (int r = 0; r < sz.kc_rooms; r++)
        snprintf(kc_room_of[r], sizeof kc_room_of[r], "room%03d", r);
    for (int u = 0; u < sz.em_users; u++)
        snprintf(em_user_of[u], sizeof em_user_of[u], "user%04d@mail", u);
    free(kc_member);
    free(em_read);
    free(em_unread);
    kc_member = calloc((size_t)(sz.kc_users * sz.kc_rooms), 1);
    em_read = calloc((size_t)(sz.em_users * sz.em_per_user), 1);
    em_unread = calloc((size_t)sz.em_users * 2, sizeof *em_unread);
    if (!kc_member || !em_read || !em_unread)
        bench_die_nomem();
    for (int u = 0; u < sz.em_users; u++) {
        em_unread[u * 2] = sz.em_per_user;
        em_unread[u * 2 + 1] = (sz.em_per_user + 1) / 2;
    }
}

/* Three presence intervals per reader, different for each, over 90% of the history. */
static void make_group(void)
{
    int n = sz.gc_msgs;
    gc_step_ms = GC_SPAN_MS / n;
    gc_readers = calloc((size_t)sz.gc_readers, sizeof *gc_readers);
    if (!gc_readers)
        bench_die_nomem();
    for (int r = 0; r < sz.gc_readers; r++) {
        gc_reader *g = &gc_readers[r];
        snprintf(g->name, sizeof g->name, "reader%02d", r);
        int *e = g->ev_msg;
        e[0] = n / 20 + (r * 37) % (n / 10);
        e[1] = e[0] + n / 5 + (r * 13) % (n / 20);
        e[2] = e[1] + n / 10 + (r * 7) % (n / 20);
        e[3] = e[2] + n / 5;
        e[4] = e[3] + n / 10 + (r * 11) % (n / 20);
        for (int k = 0; k < 5; k++)
            g->ev_ms[k] = gc_msg_ms(e[k]) - gc_step_ms / 2;
        g->visible = malloc((size_t)n * sizeof *g->visible);
        if (!g->visible)
            bench_die_nomem();
        for (int k = n - 1; k >= 0; k--)
            if ((k >= e[0] && k < e[1]) || (k >= e[2] && k < e[3]) || k >= e[4])
                g->visible[g->n_visible++] = k;
    }
}

static void kc_load_cass(sys *s)
{
    kc_err err;
    if (kc_create_user(s->kc, "owner", "secret", "Owner", "Last", NULL, NULL, &err) != KC_OK)
        bench_die("kc_create_user: %s", err.msg);
    for (int u = 0; u < sz.kc_users; u++)
        if (kc_create_user(s->kc, kc_login_of[u], "secret", "First", "Last", NULL, NULL, &err) !=
            KC_OK)
            bench_die("kc_create_user: %s", err.msg);
    for (int r = 0; r < sz.kc_rooms; r++)
        if (kc_create_room(s->kc, "owner", kc_room_of[r], NULL, &err) != KC_OK)
            bench_die("kc_create_room: %s", err.msg);
}

static void kc_load_sq(sys *s)
{
    sqlite3_stmt *st;
    sq_exec(s->db[0], "BEGIN");
    for (int u = -1; u < sz.kc_users; u++) {
        st = sq_st(s, 0, SQ_KC_USER_PUT);
        bt(st, 1, u < 0 ? "owner" : kc_login_of[u]);
        bt(st, 2, u < 0 ? "Owner" : "First");
        bt(st, 3, "Last");
        sq_done(s, 0, SQ_KC_USER_PUT);
    }
    for (int r = 0; r < sz.kc_rooms; r++) {
        st = sq_st(s, 0, SQ_KC_ROOM_PUT);
        bt(st, 1, kc_room_of[r]);
        bt(st, 2, "owner");
        bt(st, 3, "Owner");
        bt(st, 4, "Last");
        bi(st, 5, (int64_t)time(NULL) * 1000);
        sq_done(s, 0, SQ_KC_ROOM_PUT);
        st = sq_st(s, 0, SQ_KC_JOIN);
        bt(st, 1, kc_room_of[r]);
        bt(st, 2, "owner");
        bt(st, 3, "Owner");
        bt(st, 4, "Last");
        sq_done(s, 0, SQ_KC_JOIN);
        bt(sq_st(s, 0, SQ_KC_ADD_ROOM), 1, "owner");
        bt(sq_st(s, 0, SQ_KC_ADD_ROOM), 2, kc_room_of[r]);
        sq_done(s, 0, SQ_KC_ADD_ROOM);
    }
    sq_exec(s->db[0], "COMMIT");
}

/* Every user: four folders with colors, then em_per_user emails from the next user. */
static void em_load(sys *s)
{
    static const char *const labels[MAX_LABELS] = {EM_INBOX_LABEL, "work"};
    char err[ERR_CAP];
    for (int u = 0; u < sz.em_users; u++)
        for (int f = 0; f < EM_N_FOLDERS; f++) {
            if (!*EM_FOLDER_COLORS[f])
                continue;
            if (s->kind == K_SQLITE) {
                sqlite3_stmt *st = sq_st(s, 0, SQ_EM_FOLDER_SET);
                bt(st, 1, em_user_of[u]);
                bt(st, 2, EM_FOLDER_LABELS[f]);
                bt(st, 3, EM_FOLDER_COLORS[f]);
                sq_done(s, 0, SQ_EM_FOLDER_SET);
            } else if (em_folder_create(s->em, em_user_of[u], EM_FOLDER_LABELS[f],
                                        EM_FOLDER_COLORS[f], err, sizeof err) != EM_OK) {
                bench_die("em_folder_create: %s", err);
            }
        }
    for (int j = 0; j < sz.em_per_user; j++)
        for (int u = 0; u < sz.em_users; u++) {
            const char *from = em_user_of[(u + 1) % sz.em_users];
            CassUuid *id = &s->mail_ids[u * sz.em_per_user + j];
            if (s->kind == K_SQLITE) {
                *id = sq_em_send(s, 0, from, em_user_of[u], em_labels_of(j), NULL, 0);
                continue;
            }
            em_rcpt to = {em_user_of[u], labels, (size_t)em_labels_of(j)};
            em_draft d = {from, &to, 1, "the report", "attached", NULL, 0, 0};
            if (em_send(s->em, &d, id, err, sizeof err) != EM_OK)
                bench_die("em_send: %s", err);
        }
}

/* One presence event e of reader r through the data layer, at the model's time. */
static void gc_event_cass(sys *s, int r, int e)
{
    char err[ERR_CAP];
    const gc_reader *g = &gc_readers[r];
    int64_t at = 0;
    __atomic_store_n(&gc_clock_ms, g->ev_ms[e], __ATOMIC_RELAXED);
    gc_status st = e == 0  ? gc_join(s->gc, g->name, GC_CONV, &at, err, sizeof err)
                   : e % 2 ? gc_leave(s->gc, g->name, GC_CONV, &at, err, sizeof err)
                           : gc_rejoin(s->gc, g->name, GC_CONV, &at, err, sizeof err);
    if (st != GC_OK)
        bench_die("%s: presence event %d of %s: %s", KIND_NAME[s->kind], e, g->name, err);
    if (at != g->ev_ms[e])
        bench_die("%s: %s's event recorded at %lld, not %lld", KIND_NAME[s->kind], g->name,
                  (long long)at, (long long)g->ev_ms[e]);
}

static void gc_load_cass(sys *s)
{
    char err[ERR_CAP], body[16];
    __atomic_store_n(&gc_clock_ms, GC_T0_MS - 1000, __ATOMIC_RELAXED);
    if (gc_join(s->gc, GC_POSTER, GC_CONV, NULL, err, sizeof err) != GC_OK)
        bench_die("gc_join: %s", err);
    for (int k = 0; k < sz.gc_msgs; k++) {
        for (int r = 0; r < sz.gc_readers; r++)
            for (int e = 0; e < 5; e++)
                if (gc_readers[r].ev_msg[e] == k)
                    gc_event_cass(s, r, e);
        __atomic_store_n(&gc_clock_ms, gc_msg_ms(k), __ATOMIC_RELAXED);
        snprintf(body, sizeof body, "m%05d", k);
        if (gc_send(s->gc, GC_POSTER, GC_CONV, body, &s->gc_ids[k], err, sizeof err) != GC_OK)
            bench_die("gc_send: %s", err);
        if ((int64_t)cass_uuid_timestamp(s->gc_ids[k]) != gc_msg_ms(k))
            bench_die("%s: message %d stamped off its time", KIND_NAME[s->kind], k);
    }
}

static void gc_put_presence(sys *s, const char *user, int changes, const int64_t *at, int n)
{
    sqlite3_stmt *st = sq_st(s, 0, SQ_GC_CONV_PUT);
    bt(st, 1, user);
    bt(st, 2, GC_CONV);
    bi(st, 3, changes);
    sq_done(s, 0, SQ_GC_CONV_PUT);
    for (int e = 0; e < n; e++) {
        st = sq_st(s, 0, SQ_GC_TIME_PUT);
        bt(st, 1, user);
        bt(st, 2, GC_CONV);
        bi(st, 3, e % 2);
        bi(st, 4, at[e]);
        sq_done(s, 0, SQ_GC_TIME_PUT);
    }
}

static void gc_load_sq(sys *s)
{
    char body[16];
    int64_t poster_join = GC_T0_MS - 1000;
    sq_exec(s->db[0], "BEGIN");
    gc_put_presence(s, GC_POSTER, 1, &poster_join, 1);
    for (int r = 0; r < sz.gc_readers; r++)
        gc_put_presence(s, gc_readers[r].name, 5, gc_readers[r].ev_ms, 5);
    for (int k = 0; k < sz.gc_msgs; k++) {
        int64_t ms = gc_msg_ms(k);
        s->gc_ids[k] = uuid_of_ticks((uint64_t)(ms + UUID_EPOCH_MS) * 10000);
        snprintf(body, sizeof body, "m%05d", k);
        sqlite3_stmt *st = sq_st(s, 0, SQ_GC_SEND);
        bt(st, 1, GC_CONV);
        bi(st, 2, gc_bucket_of(ms));
        bu(st, 3, s->gc_ids[k]);
        bt(st, 4, GC_POSTER);
        bt(st, 5, body);
        sq_done(s, 0, SQ_GC_SEND);
    }
    sq_exec(s->db[0], "COMMIT");
}

/* ---- one system's operation, and its check ---- */

static void do_op(sys *s, int th, enum work w, const task *t, answer *a)
{
    int sq = s->kind == K_SQLITE, lm = s->kind == K_LMDB;
    switch (w) {
    case W_JOIN:
        if (sq)
            (t->flag ? sq_join : sq_leave)(s, th, t, a);
        else
            cass_join(s, t, a);
        break;
    case W_MARK:
        sq ? sq_mark(s, th, t, a) : cass_mark(s, t, a);
        break;
    case W_FOLDERS:
        sq ? sq_folders(s, th, t, a) : cass_folders(s, t, a);
        break;
    case W_ATT_WRITE:
        lm ? lm_att_write(s, th, t) : sq ? sq_att_write(s, th, t, a) : cass_att_write(s, th, t, a);
        break;
    case W_ATT_READ:
        lm ? lm_att_read(s, t, a) : sq ? sq_att_read(s, th, t, a) : cass_att_read(s, t, a);
        break;
    case W_PAGE:
        sq ? sq_page(s, th, t, a) : cass_page(s, t, a);
        break;
    default:
        break;
    }
}

static void check_folders(enum kind k, int u, const answer *a)
{
    const char *user = em_user_of[u];
    if (a->n_folders != EM_N_FOLDERS)
        bench_die("%s: %s has %zu folders, expected %d", KIND_NAME[k], user, a->n_folders,
                  EM_N_FOLDERS);
    for (int f = 0; f < EM_N_FOLDERS; f++)
        if (strcmp(a->folders[f].label, EM_FOLDER_LABELS[f]) ||
            strcmp(a->folders[f].color, EM_FOLDER_COLORS[f]))
            bench_die("%s: folder %d of %s is %s/%s, expected %s/%s", KIND_NAME[k], f, user,
                      a->folders[f].label, a->folders[f].color, EM_FOLDER_LABELS[f],
                      EM_FOLDER_COLORS[f]);
    static const char *const counted[2] = {EM_INBOX_LABEL, "work"};
    if (a->n_counts != 2)
        bench_die("%s: %s has %zu unread counters, expected 2", KIND_NAME[k], user, a->n_counts);
    for (int c = 0; c < 2; c++)
        if (strcmp(a->counts[c].label, counted[c]) ||
            a->counts[c].num_unread != em_unread[u * 2 + c])
            bench_die("%s: %s's %s holds %lld unread, expected %d", KIND_NAME[k], user,
                      a->counts[c].label, (long long)a->counts[c].num_unread, em_unread[u * 2 + c]);
}

static void check_page(enum kind k, const task *t, const answer *a)
{
    const gc_reader *r = &gc_readers[t->user];
    int want = r->n_visible - t->item < PAGE ? r->n_visible - t->item : PAGE;
    if ((int)a->page.count != want)
        bench_die_rows(KIND_NAME[k], (long)a->page.count, want);
    for (int i = 0; i < want; i++) {
        const gc_message *m = &a->page.messages[i];
        int n = r->visible[t->item + i];
        if (atoi(m->body + 1) != n || m->body[0] != 'm' || m->sent_at_ms != gc_msg_ms(n) ||
            strcmp(m->sender, GC_POSTER))
            bench_die("%s: row %d of %s's page after %d is %s, expected m%05d", KIND_NAME[k], i,
                      r->name, t->item, m->body, n);
    }
}

static void check_attachment(enum kind k, const task *t, const answer *a)
{
    for (int c = 0; c < N_CHUNKS; c++)
        if (!file_matches(a->chunk[c].data, a->chunk[c].len, c, t->item))
            bench_die("%s: chunk %d of file %d does not match what was stored", KIND_NAME[k], c + 1,
                      t->item);
    if (!file_matches(a->whole.data, a->whole.len, -1, t->item))
        bench_die("%s: file %d does not match what was stored", KIND_NAME[k], t->item);
}

static void check(enum kind k, enum work w, const task *t, const answer *a)
{
    if (a->rc != 0)
        bench_die("%s: %s failed (status %d): %s", KIND_NAME[k], WORK_NAME[w], a->rc, a->msg);
    switch (w) {
    case W_MARK:
        if (a->changed != t->want)
            bench_die("%s: marking email %d of %s flipped %d folders, expected %d", KIND_NAME[k],
                      t->item, em_user_of[t->user], a->changed, t->want);
        break;
    case W_FOLDERS:
        check_folders(k, t->user, a);
        break;
    case W_ATT_READ:
        check_attachment(k, t, a);
        break;
    case W_PAGE:
        check_page(k, t, a);
        break;
    default:
        break;
    }
}

/* Appends item to a comma-separated list of cap bytes. */
static void list_add(char *list, size_t cap, const char *item)
{
    size_t used = strlen(list), n = strlen(item);
    if (used + n + 2 > cap)
        bench_die("a participant list longer than %zu bytes", cap);
    if (used)
        list[used++] = ',';
    memcpy(list + used, item, n + 1);
}

/* After the joins and leaves: every room's participants, the owner and the model's members. */
static void check_rooms(sys *s)
{
    for (int r = 0; r < sz.kc_rooms; r++) {
        char got[4096] = "", want[4096] = "owner";
        for (int u = 0; u < sz.kc_users; u++)
            if (kc_member[u * sz.kc_rooms + r])
                list_add(want, sizeof want, kc_login_of[u]);
        if (s->kind == K_SQLITE) {
            sqlite3_stmt *st = sq_st(s, 0, SQ_KC_PARTS);
            bt(st, 1, kc_room_of[r]);
            while (sq_row(s, 0, SQ_KC_PARTS))
                list_add(got, sizeof got, (const char *)sqlite3_column_text(st, 0));
            sq_reset(s, 0, SQ_KC_PARTS);
        } else {
            kc_room room;
            kc_err err;
            if (kc_get_room(s->kc, kc_room_of[r], &room, &err) != KC_OK)
                bench_die("kc_get_room: %s", err.msg);
            for (size_t i = 0; i < room.n_participants; i++)
                list_add(got, sizeof got, room.participants[i].login);
            kc_room_free(&room);
        }
        if (strcmp(got, want))
            bench_die("%s: %s has participants %s, expected %s", KIND_NAME[s->kind], kc_room_of[r],
                      got, want);
    }
}

/* After the read marks: every user's folders and unread counters. */
static void check_counts(sys *s)
{
    answer a;
    memset(&a, 0, sizeof a);
    for (int u = 0; u < sz.em_users; u++) {
        task t = {u, 0, 0, 0};
        do_op(s, 0, W_FOLDERS, &t, &a);
        check(s->kind, W_FOLDERS, &t, &a);
        answer_clear(&a);
    }
}

/* ---- tasks: made before timing, the model moved as they will move it ---- */

static void make_task(task *x, enum work w, long i, uint64_t salt)
{
    uint64_t z = mix((uint64_t)i, salt);
    int parity = (int)(i % 2); /* a user's operations all run on one thread (see figure) */
    memset(x, 0, sizeof *x);
    switch (w) {
    case W_JOIN: {
        x->user = 2 * (int)(z % (uint64_t)(sz.kc_users / 2)) + parity;
        x->item = (int)((z >> 24) % (uint64_t)sz.kc_rooms);
        unsigned char *m = &kc_member[x->user * sz.kc_rooms + x->item];
        x->flag = !*m;
        *m = (unsigned char)x->flag;
        break;
    }
    case W_MARK: {
        x->user = 2 * (int)(z % (uint64_t)(sz.em_users / 2)) + parity;
        x->item = (int)((z >> 24) % (uint64_t)sz.em_per_user);
        unsigned char *r = &em_read[x->user * sz.em_per_user + x->item];
        x->flag = !*r;
        *r = (unsigned char)x->flag;
        x->want = em_labels_of(x->item);
        for (int l = 0; l < x->want; l++)
            em_unread[x->user * 2 + l] += x->flag ? -1 : 1;
        break;
    }
    case W_FOLDERS:
        x->user = (int)(z % (uint64_t)sz.em_users);
        break;
    case W_ATT_WRITE:
        x->item = (int)(files_made + i);
        break;
    case W_ATT_READ:
        if (files_made == 0)
            bench_die("no attachment was stored to read");
        x->item = (int)(z % (uint64_t)files_made);
        break;
    case W_PAGE: {
        x->user = (int)(z % (uint64_t)sz.gc_readers);
        int nv = gc_readers[x->user].n_visible;
        x->item = (z >> 24) % 4 == 0 ? 0 : (int)((z >> 28) % (uint64_t)nv);
        break;
    }
    default:
        break;
    }
}

/* ---- a figure: every system on the same operations, in rounds ---- */

typedef struct config {
    int rounds, quick, remote;
    const char *base, *cassette, *csv, *report;
    char command[1024];
} config;

typedef bench_result result;

/* A span's context (bench_run_span): the system, the operation and its tasks. */
typedef struct span_ctx {
    sys *s;
    enum work w;
    const task *tasks;
} span_ctx;

static void *span_start(void *ctx)
{
    (void)ctx;
    answer *a = calloc(1, sizeof *a);
    if (!a)
        bench_die_nomem();
    return a;
}

static void span_op(void *ctx, int th, long i, void *a)
{
    span_ctx *c = ctx;
    do_op(c->s, th, c->w, &c->tasks[i], a);
}

static void span_check(void *ctx, long i, void *a)
{
    span_ctx *c = ctx;
    check(c->s->kind, c->w, &c->tasks[i], a);
    answer_clear(a);
}

static void span_end(void *ctx, void *a)
{
    (void)ctx;
    free(a);
}

/* Runs positions [lo, hi) on `threads` threads; returns the rate (ops over busy time). */
static double run_span(sys *s, enum work w, int threads, const task *tasks, long lo,
                       long hi, float *lat)
{
    span_ctx c = {s, w, tasks};
    bench_span span = {&c, span_start, span_op, span_check, span_end};
    return bench_run_span(&span, threads, lo, hi, lat);
}

/* Every figure, for the summary, the CSV and the report. */
typedef struct figrec {
    enum dur dur;
    enum work work;
    int threads, rounds;
    long per_round;
    int ran[N_KINDS];
    result res[N_KINDS];
} figrec;

#define MAX_FIGS 64
static figrec figs[MAX_FIGS];
static int n_figs;
static FILE *csv;

/* Operations per round and warm-up: even, so that position i runs on thread i % 2. */
static long even(long n)
{
    return n < 2 ? 2 : n + n % 2;
}

static void print_figure(const figrec *f)
{
    printf("\n%s, %s (%s), %d thread%s\n", DUR_NAME[f->dur], WORK_NAME[f->work],
           WORK_CALLS[f->work], f->threads, f->threads > 1 ? "s" : "");
    printf("  %-16s %10s %21s %10s %10s %14s\n", "system", "ops/s", "rounds min-max", "p50 us",
           "p99 us", "cassette/this");
    for (int k = 0; k < N_KINDS; k++) {
        if (!f->ran[k])
            continue;
        const result *r = &f->res[k];
        char spread[48];
        snprintf(spread, sizeof spread, "%.0f-%.0f", r->lo, r->hi);
        printf("  %-16s %10.0f %21s %10.1f %10.1f %14.2f\n", KIND_NAME[k], r->med, spread, r->p50,
               r->p99, bench_ratio(f->res[K_CASS].med, r->med));
        if (csv)
            fprintf(csv, "%s,%s,%d,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%ld\n", DUR_ID[f->dur],
                    WORK_ID[f->work], f->threads, KIND_ID[k], r->med, r->lo, r->hi, r->p50, r->p99,
                    f->rounds, f->per_round);
    }
    if (csv)
        fflush(csv);
    fflush(stdout);
}

static void figure(const config *c, sys **systems, int nsys, enum dur d, enum work w, int threads,
                   uint64_t salt)
{
    long per = even(sz.ops[d][w]), warm = even(per / 5);
    long total = warm + (long)c->rounds * per;
    task *tasks = malloc((size_t)total * sizeof *tasks);
    float *lat = malloc((size_t)nsys * (size_t)c->rounds * (size_t)per * sizeof *lat);
    if (!tasks || !lat || n_figs == MAX_FIGS)
        bench_die_nomem();
    for (long i = 0; i < total; i++)
        make_task(&tasks[i], w, i, salt);
    figrec *f = &figs[n_figs++];
    memset(f, 0, sizeof *f);
    *f = (figrec){.dur = d, .work = w, .threads = threads, .rounds = c->rounds, .per_round = per};
    for (int i = 0; i < nsys; i++)
        run_span(systems[i], w, threads, tasks, 0, warm, NULL);
    for (int k = 0; k < c->rounds; k++) {
        long lo = warm + k * per;
        for (int j = 0; j < nsys; j++) {
            int i = (j + k) % nsys;
            float *l = lat + ((size_t)i * (size_t)c->rounds + (size_t)k) * (size_t)per;
            f->res[systems[i]->kind].rate[k] =
                run_span(systems[i], w, threads, tasks, lo, lo + per, l);
        }
    }
    if (w == W_ATT_WRITE)
        files_made += total;
    for (int i = 0; i < nsys; i++) {
        enum kind k = systems[i]->kind;
        f->ran[k] = 1;
        bench_summarise(&f->res[k], lat + (size_t)i * (size_t)c->rounds * (size_t)per,
                  (long)c->rounds * per, c->rounds);
        if (w == W_JOIN && k != K_LMDB)
            check_rooms(systems[i]);
        if (w == W_MARK && k != K_LMDB)
            check_counts(systems[i]);
    }
    print_figure(f);
    free(tasks);
    free(lat);
}

/* ---- one durability: open and load every system, run its figures, close ---- */

static void open_system(const config *c, sys *s, const char *dir)
{
    if (s->kind == K_CASS || s->kind == K_REMOTE) {
        cass_open(s, dir, c->cassette);
        kc_load_cass(s);
        em_load(s);
        if (s->dur == D_NONE)
            gc_load_cass(s);
    } else if (s->kind == K_SQLITE) {
        sq_open(s, dir);
        kc_load_sq(s);
        em_load(s);
        if (s->dur == D_NONE)
            gc_load_sq(s);
    } else {
        lm_open(s, dir);
    }
}

static void close_system(sys *s)
{
    if (s->kind == K_CASS || s->kind == K_REMOTE)
        cass_close(s);
    else if (s->kind == K_SQLITE)
        sq_close(s);
    else
        mdb_env_close(s->env);
    free(s->mail_ids);
    free(s->file_ids);
    free(s->gc_ids);
}

static void run_pass(const config *c, enum dur d, long file_cap)
{
    static sys store[N_KINDS];
    sys *all[N_KINDS];
    int n = 0;
    memset(store, 0, sizeof store);
    make_model();
    files_made = 0;
    for (int k = 0; k < N_KINDS; k++) {
        if (k == K_REMOTE && !c->remote)
            continue;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s-%s", bench_root, DUR_ID[d], KIND_ID[k]);
        if (mkdir(dir, 0700))
            bench_die("cannot create %s: %s", dir, strerror(errno));
        sys *s = &store[k];
        s->kind = (enum kind)k;
        s->dur = d;
        s->mail_ids = calloc((size_t)(sz.em_users * sz.em_per_user), sizeof *s->mail_ids);
        s->file_ids = calloc((size_t)file_cap, sizeof *s->file_ids);
        s->gc_ids = calloc((size_t)sz.gc_msgs, sizeof *s->gc_ids);
        if (!s->mail_ids || !s->file_ids || !s->gc_ids)
            bench_die_nomem();
        double t0 = bench_now_s();
        open_system(c, s, dir);
        fprintf(stderr, BENCH_NAME ": %s, %s: fixtures loaded in %.1f s\n", DUR_NAME[d],
                KIND_NAME[k], bench_now_s() - t0);
        all[n++] = s;
    }
    uint64_t salt = (uint64_t)d * 100;
    for (int w = 0; w < N_WORK; w++) {
        if (!sz.ops[d][w])
            continue;
        sys *sel[N_KINDS];
        int ns = 0;
        for (int i = 0; i < n; i++)
            if (all[i]->kind != K_LMDB || w == W_ATT_WRITE || w == W_ATT_READ)
                sel[ns++] = all[i];
        for (int th = 1; th <= MAX_THREADS; th++)
            figure(c, sel, ns, d, (enum work)w, th, salt++);
    }
    for (int i = 0; i < n; i++) {
        close_system(all[i]);
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s-%s", bench_root, DUR_ID[d], KIND_ID[all[i]->kind]);
        nftw(dir, bench_remove_entry, 16, FTW_DEPTH | FTW_PHYS); /* the attachments add up */
    }
}

/* ---- the summary, the report and main ---- */

static void print_summary(void)
{
    printf("\nsummary: cassette's throughput over each peer's (median rounds; > 1: cassette "
           "faster)\n");
    printf("  %-5s %-32s %3s %10s %10s %10s\n", "dur", "workload", "thr", "/remote", "/SQLite",
           "/raw LMDB");
    for (int i = 0; i < n_figs; i++) {
        const figrec *f = &figs[i];
        printf("  %-5s %-32s %3d", DUR_ID[f->dur], WORK_NAME[f->work], f->threads);
        for (int k = K_REMOTE; k < N_KINDS; k++)
            if (f->ran[k])
                printf(" %10.2f", bench_ratio(f->res[K_CASS].med, f->res[k].med));
            else
                printf(" %10s", "-");
        printf("\n");
    }
}

static void report_cell(FILE *out, const figrec *f, enum kind k, int spread)
{
    const result *r = &f->res[k];
    if (!f->ran[k])
        fprintf(out, " | | ");
    else if (spread)
        fprintf(out, " | %.0f (%.0f-%.0f) | %.1f / %.1f", r->med, r->lo, r->hi, r->p50, r->p99);
    else
        fprintf(out, " | %.0f | %.1f / %.1f", r->med, r->p50, r->p99);
}

static void report_table(FILE *out, enum dur d)
{
    fprintf(out, "\n### %s\n\n", DUR_NAME[d]);
    fprintf(out, "| workload | threads | cassette ops/s (rounds) | p50 / p99 µs | remote ops/s | "
                 "p50 / p99 | SQLite ops/s | p50 / p99 | raw LMDB ops/s | p50 / p99 | "
                 "÷ remote | ÷ SQLite | ÷ LMDB |\n");
    fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n_figs; i++) {
        const figrec *f = &figs[i];
        if (f->dur != d)
            continue;
        fprintf(out, "| %s | %d", WORK_NAME[f->work], f->threads);
        for (int k = 0; k < N_KINDS; k++)
            report_cell(out, f, (enum kind)k, k == K_CASS);
        for (int k = K_REMOTE; k < N_KINDS; k++)
            if (f->ran[k])
                fprintf(out, " | %.2f", bench_ratio(f->res[K_CASS].med, f->res[k].med));
            else
                fprintf(out, " | ");
        fprintf(out, " |\n");
    }
}

static const char REPORT_HEAD[] =
    "<!-- seeds:begin -->\n"
    "## The seeds' workloads beside SQLite and raw LMDB (`bench/seeds_bench.c`)\n\n"
    "<!-- Generated by bench/seeds_bench.c (--report FILE), spliced in by "
    "scripts/bench-splice.sh; edits here are lost. -->\n\n"
    "What it measures: the chat applications of `examples/` through their own data layers, "
    "as an application calls them, on cassette embedded (`file:DIR`) and over `cassette "
    "serve` on loopback (the remote backend, the same data layer), beside SQLite running the "
    "same tables and the same logic, and beside raw LMDB for the attachments. Every answer "
    "is checked against an in-memory model during the run; a wrong one exits non-zero.\n\n"
    "| workload | data layer calls (cassette) | SQLite | raw LMDB |\n"
    "|---|---|---|---|\n"
    "| join or leave a room (LWT) | `kc_join_room` (user and room read, `UPDATE ... IF "
    "EXISTS` on the participants, the user's room set, a SERIAL re-read, a notice posted) or "
    "`kc_leave_room` (reads, participant removed, room set, notice), as the model says | the "
    "same reads; the join's check and insert in `BEGIN IMMEDIATE`; sets as child tables | "
    "none |\n"
    "| mark an email read/unread | `em_mark_read`: the email's folders, then per folder "
    "`UPDATE ... IF is_read = old` and, if applied, the unread counter moved | per folder "
    "`BEGIN IMMEDIATE`, `UPDATE ... WHERE is_read = old`, the counter `+ 1` / `- 1` when a "
    "row changed, `COMMIT` | none |\n"
    "| folder list with unread counts | `em_folders` + `em_unread_counts` (two partitions) | "
    "two `SELECT`s | none |\n"
    "| store a 2.4 MB attachment | `em_send` of an email with a 2,416 KB file: three chunks "
    "of 1,000 KB in flight, the folder buckets, a logged batch with the email and its "
    "entries, the unread counter | the chunks in one transaction, the bucket reads and "
    "upserts, the email and entries in one transaction, the counters in one | the three "
    "chunks `mdb_put` in one write transaction (no email, no folders: a floor) |\n"
    "| read a 2.4 MB attachment | `em_attachment_chunk` of chunks 1-3, then "
    "`em_attachment_get` (the email, then the chunks in parallel) | the same `SELECT`s, bytes "
    "copied out | `mdb_get` of the three chunks, twice, copied out |\n"
    "| group-chat page of 50 | `gc_read_page` for a reader with three presence intervals "
    "over ten quarter buckets, from the newest message or from a cursor | the presence rows, "
    "then one `SELECT ... ORDER BY message_id DESC LIMIT ?` per (interval, bucket), as the "
    "data layer walks them | none |\n\n"
    "Only the attachments have a raw LMDB peer: the other workloads are several statements "
    "of application logic over sets, conditions and counters, and written on raw LMDB they "
    "would be a second database, not a floor.\n\n"
    "Checks: after each join/leave figure every room's participants against the model; each "
    "read mark flips the folders the model expects, and after each mark figure every user's "
    "unread counters match; each folder list has the model's labels, colors and counts; each "
    "attachment read returns the bytes stored (per chunk and whole); each group page holds "
    "exactly the messages a brute-force filter of every message by the reader's intervals "
    "gives, in order.\n\n"
    "Peers' set-up:\n"
    "- SQLite: WAL, `WITHOUT ROWID` tables with the data layers' primary keys and clustering "
    "order (`message_id DESC`, `id DESC`, `bucket DESC`), a set column as a child table, a "
    "list or map column as text, time UUIDs as 16-byte blobs in time order, prepared "
    "statements, one connection per thread, `mmap_size` 64 GiB and a 64 MiB cache. A "
    "lightweight transaction is `BEGIN IMMEDIATE`, the check, the write, `COMMIT`; a counter "
    "an upsert adding to its column; a logged batch one transaction. KillrChat writes its "
    "day-bucket table from a cache, once per day and process (here when it closes), so the "
    "SQLite side leaves that table out.\n"
    "- Raw LMDB: one database; a chunk's key is the email id's 16 bytes, the filename and "
    "the chunk number.\n"
    "- cassette remote: `cassette serve DIR --port 0` with `CASSETTE_DURABILITY` set to the "
    "pass's durability, one driver session shared by the threads.\n"
    "- Durability NONE: cassette `CASSETTE_DURABILITY_NONE`, SQLite `synchronous=OFF`, LMDB "
    "`MDB_NOSYNC | MDB_NOMETASYNC`. SYNC (the three writing workloads, on new databases): "
    "cassette's default, every write durable when its future is set, with group commit; "
    "SQLite `synchronous=FULL`; LMDB synced commits.\n\n"
    "Method, as `peers_bench`'s: each figure runs every system on the same operations, a "
    "warm-up then rounds, every system once per round in turn, the first one rotating. An "
    "operation is timed alone (`CLOCK_MONOTONIC` around the data layer's call, or the SQL "
    "or LMDB code in its place, results copied out); a round's rate is its operations over "
    "the sum of their times, per thread, summed over the threads; the figure is the median "
    "round and its spread the lowest and highest round; p50 / p99 come from every timed "
    "operation. With two threads a user's operations all run on one thread (the model's "
    "order), users of both threads sharing the rooms, folders and conversation.\n\n";

static void write_report(const config *c, const char *machine_line, const char *fs,
                         const char *versions, const char *date)
{
    FILE *out = fopen(c->report, "w");
    if (!out)
        bench_die("cannot write %s: %s", c->report, strerror(errno));
    fputs(REPORT_HEAD, out);
    fprintf(out,
            "Data: KillrChat %d users and %d rooms (each with its owner); email %d users with "
            "%d emails each (all in inbox, every other one in work too) and five folders; the "
            "group %d messages over ten quarters, %d readers.\n\n",
            sz.kc_users, sz.kc_rooms, sz.em_users, sz.em_per_user, sz.gc_msgs, sz.gc_readers);
    fprintf(out, "Machine: %s. Databases on %s. %s. Run on %s.\n\n", machine_line, fs, versions,
            date);
    fprintf(out,
            "Command. `make bench` runs it with `--quick` (figures in "
            "`build/release/bench/seeds.csv`); `make bench-full` runs the full form and "
            "splices this section in with `scripts/bench-splice.sh`. These figures come "
            "from:\n\n    %s\n\n",
            c->command);
    fprintf(out,
            "Rates in operations per second (median of %d rounds), latencies in "
            "microseconds, ÷ columns cassette's rate over the peer's (> 1: cassette "
            "faster).\n",
            c->rounds);
    report_table(out, D_NONE);
    report_table(out, D_SYNC);
    fprintf(out, "<!-- seeds:end -->\n");
    if (fclose(out))
        bench_die("cannot write %s", c->report);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: seeds_bench [--quick] [--rounds K] [--csv FILE] [--report FILE] [--dir D]\n"
            "                   [--cassette PATH] [--no-remote]\n"
            "  --quick        small fixtures and rounds, 3 rounds (about 10 s)\n"
            "  (default)      larger fixtures and rounds, 5 rounds (about a minute)\n"
            "  --rounds K     rounds per figure (at most %d)\n"
            "  --csv FILE     write every figure to FILE\n"
            "  --report FILE  write the markdown section of docs/benchmarks.md to FILE\n"
            "  --dir D        put the databases under D (default $TMPDIR or /tmp)\n"
            "  --cassette P   the cassette program to serve with (default build/release/cassette)\n"
            "  --no-remote    leave out cassette over `cassette serve`\n",
            BENCH_MAX_ROUNDS);
    exit(2);
}

/* The attachment's bytes (pseudo-random, so no layer compresses them) and a copy per thread. */
static void make_files(void)
{
    file_base = malloc(FILE_BYTES);
    for (int t = 0; t < MAX_THREADS; t++)
        file_buf[t] = malloc(FILE_BYTES);
    if (!file_base || !file_buf[0] || !file_buf[1])
        bench_die_nomem();
    for (size_t i = 0; i < FILE_BYTES; i += 8) {
        uint64_t z = mix(i, 99);
        memcpy(file_base + i, &z, FILE_BYTES - i < 8 ? FILE_BYTES - i : 8);
    }
    for (int t = 0; t < MAX_THREADS; t++)
        memcpy(file_buf[t], file_base, FILE_BYTES);
}

static void set_sizes(int quick)
{
    static const sizes q = {
        32, 8, 16, 6, 8, 1200, {{120, 160, 1000, 8, 12, 400}, {40, 40, 0, 6, 0, 0}}};
    static const sizes full = {
        128, 32, 64, 12, 16, 4000, {{600, 800, 5000, 16, 40, 2000}, {150, 150, 0, 12, 0, 0}}};
    sz = quick ? q : full;
}

static void parse_args(int argc, char **argv, config *c)
{
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof c->command; i++)
        used += (size_t)snprintf(c->command + used, sizeof c->command - used, "%s%s", i ? " " : "",
                                 argv[i]);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick"))
            c->quick = 1;
        else if (!strcmp(a, "--no-remote"))
            c->remote = 0;
        else if (!v)
            usage();
        else if (!strcmp(a, "--rounds") && (c->rounds = atoi(v)) >= 1 &&
                 c->rounds <= BENCH_MAX_ROUNDS)
            i++;
        else if (!strcmp(a, "--csv"))
            c->csv = argv[++i];
        else if (!strcmp(a, "--report"))
            c->report = argv[++i];
        else if (!strcmp(a, "--dir"))
            c->base = argv[++i];
        else if (!strcmp(a, "--cassette"))
            c->cassette = argv[++i];
        else
            usage();
    }
}

int main(int argc, char **argv)
{
    config c = {.rounds = 0, .remote = 1, .cassette = "build/release/cassette"};
    const char *tmp = getenv("TMPDIR");
    c.base = tmp && *tmp ? tmp : "/tmp";
    parse_args(argc, argv, &c);
    set_sizes(c.quick);
    if (!c.rounds)
        c.rounds = c.quick ? 3 : 5;
    double t_start = bench_now_s();
    signal(SIGPIPE, SIG_IGN);
    cass_log_set_level(CASS_LOG_ERROR);
    const char *root = bench_make_root(c.base, "cassette-seeds");
    if (c.csv && !(csv = fopen(c.csv, "w")))
        bench_die("cannot write %s: %s", c.csv, strerror(errno));
    make_files();
    make_group();

    int lmaj, lmin, lpatch;
    mdb_version(&lmaj, &lmin, &lpatch);
    char versions[128], host[512], date[32];
    snprintf(versions, sizeof versions, "cassette %s, SQLite %s, LMDB %d.%d.%d", cassette_version(),
             sqlite3_libversion(), lmaj, lmin, lpatch);
    const char *fs = bench_fs_name(root, "tmpfs (in memory: syncs cost nothing)");
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    bench_machine(host, sizeof host);
    printf("seeds_bench: the seeds' workloads through their data layers on cassette%s, beside "
           "SQLite and raw LMDB, same run\n%s; %s; databases under %s (%s); %s\n",
           c.remote ? " and cassette serve" : "", versions, host, root, fs, date);
    if (csv) {
        fprintf(csv,
                "# command: %s\n# date: %s\n# versions: %s\n# file system: %s\n"
                "# machine: %s\n",
                c.command, date, versions, fs, host);
        fprintf(csv, "durability,workload,threads,system,ops_per_s,min_ops_per_s,max_ops_per_s,"
                     "p50_us,p99_us,rounds,ops_per_round\n");
    }
    fflush(stdout);
    for (int d = 0; d < N_DUR; d++) {
        long per = even(sz.ops[d][W_ATT_WRITE]);
        run_pass(&c, (enum dur)d, MAX_THREADS * (even(per / 5) + (long)c.rounds * per));
    }
    print_summary();
    printf("\nchecked: every answer above; rooms and unread counters after each figure; "
           "%.1f s in all\n",
           bench_now_s() - t_start);
    if (csv && fclose(csv))
        bench_die("cannot write %s", c.csv);
    if (c.report)
        write_report(&c, host, fs, versions, date);
    for (int r = 0; r < sz.gc_readers; r++)
        free(gc_readers[r].visible);
    free(gc_readers);
    free(kc_member);
    free(em_read);
    free(em_unread);
    free(file_base);
    for (int t = 0; t < MAX_THREADS; t++)
        free(file_buf[t]);
    return 0;
}
