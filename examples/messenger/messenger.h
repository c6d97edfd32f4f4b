/*
 * A Facebook-style messenger on Cassandra: the two column families of a 2010 design
 * (TalkMessages, every message of a conversation; TalkLastMessages, a user's talk partners
 * with the last message and the unread count) as CQL tables in keyspace "messenger", and the
 * operations of the chat: send, the main view, a conversation's history, mark read.
 *
 * Three flaws of the original design are fixed here (docs/examples.md tells the whole story):
 *
 *   - Unread counts never get lost. The original kept a counter in a JSON value that sending
 *     incremented and reading reset, each by read-modify-write, so a message sent between the
 *     read and the write of "mark read" vanished from the count. Here nothing is read and
 *     written back: marking read stores a read mark (the id of the newest message the reader
 *     has seen), and the unread count is computed as the partner's messages after the mark.
 *     The mark only moves forward, by last-write-wins on a write timestamp equal to the mark's
 *     own time, so two marks arriving out of order keep the later one.
 *   - A conversation no longer lives in one partition that grows without bound: messages are
 *     bucketed by month ((user_lo, user_hi, bucket) is the partition key), and a small table
 *     records which buckets exist, so history pages across buckets without probing empty
 *     months.
 *   - Messages are keyed by a time UUID, not by a microsecond timestamp: two messages of the
 *     same microsecond have different ids and both stay.
 *
 * Errors: every fallible function returns the driver's CassError (CASS_OK on success) and
 * writes one line to err (cap bytes, NUL-terminated; err may be NULL): the server's code and
 * message for a failed statement ("Invalid query: ..."), CASS_ERROR_LIB_BAD_PARAMS for bad
 * arguments (nothing is written then), CASS_ERROR_LIB_INTERNAL_ERROR when out of memory. A
 * failed call leaves its outputs empty (NULL arrays, counts 0) and a cursor unchanged.
 * Threads: an ms_db may be used from any number of threads at once (the session is
 * thread-safe, prepared statements are read-only, id generation is atomic). Cursors and the
 * arrays returned belong to the caller and are not shared by the library.
 */
#ifndef EXAMPLES_MESSENGER_H
#define EXAMPLES_MESSENGER_H

#include <cassandra.h>
#include <stddef.h>
#include <stdint.h>

/* Microseconds since the epoch, from a clock; arg is what ms_open was given. */
typedef int64_t (*ms_clock_fn)(void *arg);

typedef struct ms_db ms_db;

/*
 * Creates keyspace "messenger" and its three tables if missing (SimpleStrategy, replication
 * factor 1: change it for a real cluster). Idempotent; run it once before ms_open.
 */
CassError ms_create_schema(CassSession *session, char *err, size_t cap);

/*
 * Prepares the statements of the messenger on session and returns the handle in *db. clock
 * gives message times (NULL: the real time, CLOCK_REALTIME); clock_arg is passed to it. The
 * session stays the caller's and must outlive the handle. Message ids are unique per handle
 * (their times strictly increase, at least one microsecond apart) and across handles (a
 * random clock sequence and node per handle), whatever the clock says.
 */
CassError ms_open(CassSession *session, ms_clock_fn clock, void *clock_arg, ms_db **db, char *err,
                  size_t cap);
/* Frees the handle (NULL is ignored); the session is left open. */
void ms_close(ms_db *db);

/*
 * Sends text from sender to target (two different users): one logged batch writes the
 * message, its month bucket and both users' partner rows (Cassandra's batch log applies all
 * of it once any of it is applied), so a partner row never names a missing message. The id
 * of the message goes to *id when id is not NULL. A failed send may still be applied (a
 * timeout): sending again makes a second message.
 */
CassError ms_send(ms_db *db, int64_t sender, int64_t target, const char *text, CassUuid *id,
                  char *err, size_t cap);

/* A message of a conversation. */
typedef struct ms_message {
    CassUuid id;    /* a time UUID: the message's time and its identity */
    int64_t micros; /* the time of id, microseconds since the epoch */
    int64_t sender;
    int64_t target;
    char *text; /* owned by the array (ms_messages_free) */
} ms_message;

/* Where a conversation's history continues. Zero it (or use MS_CURSOR_START) to start at the
   newest message; ms_history advances it; done is set when the oldest message was returned. */
typedef struct ms_cursor {
    int32_t bucket; /* the month (yyyymm) to read next; 0: the newest month */
    int has_before; /* 1: read that month's messages older than before only */
    CassUuid before;
    int done;
} ms_cursor;

#define MS_CURSOR_START ((ms_cursor){0})

/*
 * One page of the conversation between users a and b, newest first: up to limit messages
 * older than those of the previous pages of the cursor. A page may span months; the months
 * come from the bucket table, so empty months cost nothing. On success *msgs (NULL when *n is
 * 0) is the caller's, freed with ms_messages_free. A page shorter than limit does not mean
 * the end: cur->done does. limit is 1 to MS_HISTORY_MAX.
 */
#define MS_HISTORY_MAX 10000
CassError ms_history(ms_db *db, int64_t a, int64_t b, ms_cursor *cur, size_t limit,
                     ms_message **msgs, size_t *n, char *err, size_t cap);
/* Frees n messages from ms_history and their texts (NULL is ignored). */
void ms_messages_free(ms_message *msgs, size_t n);

/*
 * Marks the messages partner sent to reader as read up to and including upto (the newest
 * message the reader was shown), or, when upto is NULL, up to the newest message partner has
 * sent reader. A mark older than the stored one changes nothing: the mark only moves forward,
 * whatever order concurrent marks arrive in. Messages after the mark stay unread. "After" is
 * the order of ids, which is the senders' clocks: a message whose id is older than the mark
 * but whose write lands after the mark (a send slower than the reader's read and mark, or a
 * sender's clock behind by more than that) counts as read.
 */
CassError ms_mark_read(ms_db *db, int64_t reader, int64_t partner, const CassUuid *upto, char *err,
                       size_t cap);

/* The number of messages partner sent to uid after uid's read mark (all of them when uid has
   marked nothing read), in *count. */
CassError ms_unread(ms_db *db, int64_t uid, int64_t partner, int64_t *count, char *err, size_t cap);

/* The read mark of uid for partner in *mark; *has_mark is 0 when uid has marked nothing. */
CassError ms_read_mark(ms_db *db, int64_t uid, int64_t partner, CassUuid *mark, int *has_mark,
                       char *err, size_t cap);

/* A talk partner in the main view. */
typedef struct ms_talk {
    int64_t partner;
    CassUuid last_id;    /* the newest message between the two, either way */
    int64_t last_micros; /* its time */
    int64_t last_sender;
    char *last_text; /* owned by the array (ms_talks_free) */
    int64_t unread;  /* messages from partner after the read mark */
} ms_talk;

/*
 * The main view of uid: every talk partner, the most recent conversation first, with the
 * last message and the unread count. One query reads the partner rows; a count query runs
 * only for a partner whose newest message to uid is after uid's read mark. On success *talks
 * (NULL when *n is 0) is the caller's, freed with ms_talks_free.
 */
CassError ms_main_view(ms_db *db, int64_t uid, ms_talk **talks, size_t *n, char *err, size_t cap);
/* Frees n talks from ms_main_view and their texts (NULL is ignored). */
void ms_talks_free(ms_talk *talks, size_t n);

/* Orders time UUIDs as Cassandra's timeuuid type does: by time, then by the low 8 bytes
   compared as signed bytes. Negative, 0 or positive, as strcmp. */
int ms_uuid_cmp(CassUuid a, CassUuid b);

/* The month bucket (yyyymm, UTC) of a time in microseconds since the epoch. */
int32_t ms_bucket_of(int64_t micros);

#endif
