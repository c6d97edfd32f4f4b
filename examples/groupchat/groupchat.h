/*
 * Group chat retrieval: the messages of a group conversation that one user may read, newest
 * first, a page at a time, honouring every interval during which the user was a member.
 *
 * Two tables in the keyspace `groupchat` (gc_create_schema):
 *  - conversations_by_user, one row per (user, conversation): the conversation's type and the
 *    user's presence history as two sets of timestamps, joined_at and left_at, plus a count of
 *    presence changes that serialises joins and leaves (lightweight transactions).
 *  - messages_by_group_chat, partitioned by (conversation, quarter bucket) and clustered by a
 *    timeuuid message id, newest first.
 *
 * Presence rule. A user's presence is a list of half-open intervals [joined, left) in
 * milliseconds; the current one, while still a member, runs to the present millisecond
 * included (to its join if that was recorded ahead of the clock, see Time). A message is
 * visible to a user when its time (the millisecond in its id) falls in one of them: a message
 * stamped with the very millisecond of a join is visible, one stamped with the millisecond of
 * a leave is not. A user who was never a member is refused (GC_ERR_NOT_FOUND) rather than
 * shown an empty conversation. A user who left keeps reading what was sent while a member.
 *
 * Time. Every instant comes from the clock given to gc_open (milliseconds since the Unix
 * epoch; real time by default), so tests can drive history through years. A join or leave is
 * recorded at the clock's time, or one millisecond after the user's previous join or leave
 * when the clock has not passed it (the sets then never merge two events). A message is
 * stamped at the clock's time, or at the sender's latest join if that is later, so senders
 * always see their own messages (the other members, once the clock reaches that stamp).
 *
 * Message ids are version 1 UUIDs built from that stamp: its first 100 ns tick, or the tick
 * after the previous id's when that is not earlier, so the ids of one gc_chat strictly
 * increase, also within a millisecond (more than 10,000 messages in one millisecond, or a
 * clock that went back, move the stamp slightly ahead); random clock-sequence and node bits
 * keep the ids of different processes apart.
 *
 * Errors: functions return a gc_status; GC_ERR_DB carries the driver's code and the server's
 * message in err (err may be NULL, cap its size). Threads: a gc_chat may be used from several
 * threads at once; a gc_page belongs to one thread.
 */
#ifndef EXAMPLES_GROUPCHAT_H
#define EXAMPLES_GROUPCHAT_H

#include <cassandra.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gc_status {
    GC_OK = 0,
    GC_ERR_DB,             /* the driver or the server failed; the text is in err */
    GC_ERR_INVALID,        /* an argument is empty, too long, or a cursor is malformed */
    GC_ERR_NOT_FOUND,      /* the user was never a member of the conversation */
    GC_ERR_NOT_GROUP,      /* the user's conversation is not a group chat */
    GC_ERR_ALREADY_MEMBER, /* join: the user is a member already */
    GC_ERR_NOT_MEMBER,     /* leave, send: the user is not a member now */
    GC_ERR_CONFLICT,       /* concurrent joins and leaves of the same user kept winning */
    GC_ERR_CORRUPT,        /* the stored presence sets do not alternate join, leave, join... */
    GC_ERR_NOMEM
} gc_status;

/* A short English name of a status ("not a member"), static. */
const char *gc_status_text(gc_status st);

/* Milliseconds since the Unix epoch; arg is the one given to gc_open. */
typedef int64_t (*gc_clock_fn)(void *arg);

/* The largest page gc_read_page serves. */
#define GC_MAX_PAGE 1000
/* The size of a cursor's text, its NUL included. */
#define GC_CURSOR_SIZE 40
/* The longest user id, conversation id (bytes) and message body accepted. */
#define GC_MAX_ID 256
#define GC_MAX_BODY 65536

typedef struct gc_chat gc_chat;

/* The quarter of a time: year * 4 + (month - 1) / 3, in UTC (2024-04-01 is 2024 * 4 + 1). */
int gc_bucket_of(int64_t ms);

/* Creates the keyspace and its tables if they do not exist. */
gc_status gc_create_schema(CassSession *session, char *err, size_t cap);

/*
 * Opens the data layer on session (whose schema exists) and prepares its statements. clock
 * may be NULL for real time. On success *out is the caller's (gc_close); session must outlive
 * it.
 */
gc_status gc_open(CassSession *session, gc_clock_fn clock, void *clock_arg, gc_chat **out,
                  char *err, size_t cap);
/* Frees what gc_open made; NULL is ignored. No other call may be running on it. */
void gc_close(gc_chat *chat);

/*
 * Makes user a member of the group conversation conv, for the first time or again. The
 * instant recorded goes to *at_ms when at_ms is not NULL. GC_ERR_ALREADY_MEMBER when the user
 * is a member; GC_ERR_NOT_GROUP when the user's conversation of that id is not a group chat.
 */
gc_status gc_join(gc_chat *chat, const char *user, const char *conv, int64_t *at_ms, char *err,
                  size_t cap);
/* As gc_join, for a user who was a member before: GC_ERR_NOT_FOUND for one who never was. */
gc_status gc_rejoin(gc_chat *chat, const char *user, const char *conv, int64_t *at_ms, char *err,
                    size_t cap);
/* Ends the user's membership: GC_ERR_NOT_MEMBER when not a member now, GC_ERR_NOT_FOUND when
   never one. The instant recorded goes to *at_ms when at_ms is not NULL. */
gc_status gc_leave(gc_chat *chat, const char *user, const char *conv, int64_t *at_ms, char *err,
                   size_t cap);

/*
 * Sends body to conv from user, who must be a member (GC_ERR_NOT_MEMBER, GC_ERR_NOT_FOUND).
 * The new message's id goes to *id when id is not NULL. The membership is read, not locked: a
 * message sent while the sender leaves may be stamped after the leave, and stays visible to
 * the other members.
 */
gc_status gc_send(gc_chat *chat, const char *user, const char *conv, const char *body, CassUuid *id,
                  char *err, size_t cap);

typedef struct gc_message {
    CassUuid id;        /* a timeuuid; its millisecond is sent_at_ms */
    int64_t sent_at_ms; /* milliseconds since the Unix epoch */
    char *sender;
    char *body;
} gc_message;

typedef struct gc_page {
    gc_message *messages; /* newest first */
    size_t count;
    /* The cursor of the next (older) page; empty when this page is the last one. A full page
       always gives a cursor, and the page after it may then be empty. */
    char next_cursor[GC_CURSOR_SIZE];
    /* How many partitions (one bucket of one presence interval each) this page queried. */
    int partitions_read;
} gc_page;

/*
 * Reads up to page_size (1 to GC_MAX_PAGE) messages of conv that user may see, newest first,
 * older than the message the cursor names (NULL or "" for the newest). Only the buckets that
 * the user's presence intervals touch between the cursor and the page's oldest message are
 * queried, each interval's buckets newest first, each query limited to what the page still
 * needs. On success *page is the caller's (gc_page_free), also on an empty page; on failure it
 * is left empty. GC_ERR_NOT_FOUND when the user was never a member, GC_ERR_INVALID for a bad
 * page size or cursor. A cursor is opaque text that stays valid while messages are added.
 */
gc_status gc_read_page(gc_chat *chat, const char *user, const char *conv, const char *cursor,
                       int page_size, gc_page *page, char *err, size_t cap);
/* Frees the messages of page and empties it; a zeroed or emptied page is fine. */
void gc_page_free(gc_page *page);

/* A presence interval [from_ms, to_ms); to_ms is INT64_MAX while the user is a member. */
typedef struct gc_interval {
    int64_t from_ms;
    int64_t to_ms;
} gc_interval;

/*
 * The user's presence intervals in conv, oldest first, in *out (the caller's, free()) and *n.
 * GC_ERR_NOT_FOUND when the user was never a member.
 */
gc_status gc_presence(gc_chat *chat, const char *user, const char *conv, gc_interval **out,
                      size_t *n, char *err, size_t cap);

/* One of a user's conversations, as the overview lists it. */
typedef struct gc_conversation {
    char *id;
    char *type;       /* "group" for the ones this data layer makes */
    int member;       /* 1 while the user is a member of a group conversation */
    int64_t since_ms; /* the latest join (member) or leave (former member); 0 otherwise */
} gc_conversation;

/*
 * Every conversation of user (the one partition of conversations_by_user that holds them,
 * read in pages of 500), ordered by id, in *out (gc_conversations_free) and *n.
 */
gc_status gc_conversations(gc_chat *chat, const char *user, gc_conversation **out, size_t *n,
                           char *err, size_t cap);
void gc_conversations_free(gc_conversation *list, size_t n);

/* Partitions queried by gc_read_page over the life of chat (every page's partitions_read). */
uint64_t gc_partitions_read(gc_chat *chat);

#endif
