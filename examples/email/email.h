/*
 * The email system of the messaging data model: users own folders (labels with a color), an
 * email is stored once and listed in every folder of every recipient it carries a label for,
 * attachments are cut into chunks of EM_CHUNK_BYTES, and each folder keeps an unread counter.
 *
 * The queries of the model, one function each:
 *   Q1 em_folders            folder labels and colors of a user
 *   Q2 em_unread_counts      folder labels and unread quantities of a user
 *   Q3 em_folder_page        the emails of one folder, newest first, a page at a time
 *   Q4 em_email_get          everything about one email
 *   Q5 em_attachment_chunk   one chunk (one partition) of an attachment
 *   Q6 em_attachment_get     a whole attachment, its chunks read in parallel and checked
 * and the writes that keep the tables in step: em_send, em_mark_read, em_folder_create.
 *
 * Large folders overflow: when the newest partition (bucket) of a folder holds the threshold
 * of emails (em_options.bucket_threshold), new emails go to the next bucket. Readers never see
 * buckets; em_folder_page walks them from the newest down.
 *
 * Written against <cassandra.h> alone: it runs embedded on cassette and, unchanged, against a
 * Cassandra 4.1 cluster through the DataStax C/C++ driver.
 *
 * Errors: functions return EM_OK (0) or a negative EM_ERR_* code and, when err is not NULL,
 * write one line of text to err (cap bytes): the driver's code and the server's message for
 * EM_ERR_DB, what is missing or wrong otherwise.
 * Threads: an em_db is safe to use from any number of threads at once (its session is
 * thread-safe and its prepared statements are read-only). Results handed to the caller belong
 * to the caller and are used by one thread at a time.
 */
#ifndef EXAMPLES_EMAIL_H
#define EXAMPLES_EMAIL_H

#include <cassandra.h>
#include <stddef.h>
#include <stdint.h>

/* Result codes. */
enum {
    EM_OK = 0,
    EM_ERR_INVALID = -1,   /* an argument is missing or out of range */
    EM_ERR_NOT_FOUND = -2, /* no such email, folder entry or attachment */
    EM_ERR_CORRUPT = -3,   /* stored data fails its check (a chunk missing or of a wrong size) */
    EM_ERR_DB = -4,        /* the database refused or failed a statement */
    EM_ERR_NOMEM = -5      /* out of memory */
};

/* The keyspace the seed names. */
#define EM_DEFAULT_KEYSPACE "messaging_data"
/* Emails per folder partition before the folder overflows into a new bucket. */
#define EM_DEFAULT_BUCKET_THRESHOLD 1000
/* Attachment chunk size: 1000 KB, so a 2416 KB file is three chunks. */
#define EM_CHUNK_BYTES (1000 * 1024)
/* The largest page em_folder_page returns. */
#define EM_MAX_PAGE 5000
/* The folder a sender's copy of an email is listed in (already read). */
#define EM_SENT_LABEL "sent"
/* The folder of a recipient given no labels. */
#define EM_INBOX_LABEL "inbox"

typedef struct em_db em_db;

/* Settings of em_open and em_attach; zeros mean the defaults. */
typedef struct em_options {
    const char *keyspace;     /* NULL: EM_DEFAULT_KEYSPACE; letters, digits, '_' only */
    int32_t bucket_threshold; /* 0: EM_DEFAULT_BUCKET_THRESHOLD; > 0 */
    int create_schema;        /* 1: create the keyspace and tables if missing */
} em_options;

/*
 * Creates the keyspace (SimpleStrategy, replication 1) and the seven tables if they are
 * missing; schema.cql holds the same statements for the default keyspace.
 * @param[in] session  a connected session (stays the caller's)
 * @param[in] keyspace NULL for EM_DEFAULT_KEYSPACE
 * @return EM_OK, EM_ERR_INVALID (bad keyspace name) or EM_ERR_DB.
 * Ownership: nothing is kept. Threads: any thread.
 */
int em_schema_create(CassSession *session, const char *keyspace, char *err, size_t cap);

/*
 * Connects to contact ("memory:", "file:DIR", hosts, or cql://HOST:PORT; see cu_connect)
 * and prepares the statements of the data layer.
 * @param[in]  opts NULL for the defaults
 * @param[out] out  the handle, or NULL on failure
 * @return EM_OK, EM_ERR_INVALID, EM_ERR_DB (connection refused, schema missing) or
 *         EM_ERR_NOMEM.
 * Ownership: *out is the caller's; em_close frees it and the connection.
 * Threads: any thread.
 */
int em_open(const char *contact, const em_options *opts, em_db **out, char *err, size_t cap);

/*
 * As em_open, on a session the caller already has. The session must stay open until
 * em_close; em_close leaves it open.
 */
int em_attach(CassSession *session, const em_options *opts, em_db **out, char *err, size_t cap);

/* Frees db (and closes its connection when em_open made it). NULL is ignored. Do not call
   while another thread still uses db. */
void em_close(em_db *db);

/* The session of db, for statements of the caller's own (borrowed; valid until em_close). */
CassSession *em_session(em_db *db);

/* ------------------------------------------------------------------------ */
/* Folders (Q1, Q2)                                                          */
/* ------------------------------------------------------------------------ */

/* A folder of a user: Q1 fills label and color, Q2 label and num_unread. */
typedef struct em_folder {
    char *label;
    char *color;        /* "" when the folder was made by a delivery and has no color */
    int64_t num_unread; /* Q2 only; 0 in Q1 */
} em_folder;

/*
 * Creates the folder label of username, or sets its color if it exists.
 * @return EM_OK, EM_ERR_INVALID (empty names) or EM_ERR_DB.
 * Ownership: the strings are copied. Threads: any thread.
 */
int em_folder_create(em_db *db, const char *username, const char *label, const char *color,
                     char *err, size_t cap);

/*
 * Q1: every folder of username (label and color), in label order.
 * @param[out] out, n the folders (NULL and 0 when the user has none)
 * @return EM_OK, EM_ERR_INVALID, EM_ERR_DB or EM_ERR_NOMEM.
 * Ownership: *out is the caller's; free it with em_folders_free(*out, *n).
 * Threads: any thread.
 */
int em_folders(em_db *db, const char *username, em_folder **out, size_t *n, char *err, size_t cap);

/*
 * Q2: the unread quantity of every folder of username that has ever received an email, in
 * label order (label and num_unread; color is ""). As em_folders for the rest.
 */
int em_unread_counts(em_db *db, const char *username, em_folder **out, size_t *n, char *err,
                     size_t cap);

/* Frees what em_folders or em_unread_counts returned. NULL is ignored. */
void em_folders_free(em_folder *folders, size_t n);

/* ------------------------------------------------------------------------ */
/* Sending (the writes behind Q2 to Q6)                                      */
/* ------------------------------------------------------------------------ */

/* One recipient of a draft and the folders the email is listed in for them. */
typedef struct em_rcpt {
    const char *username;
    const char *const *labels; /* NULL or n_labels 0: { EM_INBOX_LABEL } */
    size_t n_labels;
} em_rcpt;

/* One attachment of a draft. */
typedef struct em_file {
    const char *filename; /* unique within the draft */
    const char *type;     /* a media type, e.g. "application/pdf" */
    const uint8_t *data;
    size_t len; /* at most INT32_MAX bytes */
} em_file;

typedef struct em_draft {
    const char *from;
    const em_rcpt *to;
    size_t n_to; /* at least one */
    const char *subject;
    const char *body;
    const em_file *files;
    size_t n_files;
    int64_t time_ms; /* the email's time; 0 for now */
} em_draft;

/*
 * Sends an email: stores it once (emails, attachments in chunks), lists it in every label of
 * every recipient (unread, each label's unread counter + 1) and in the sender's EM_SENT_LABEL
 * folder (read). Folders that do not exist yet are created without a color. A folder at its
 * bucket threshold overflows into the next bucket.
 *
 * Order of the writes, so that no reader meets a dangling reference: the attachment chunks,
 * then one logged batch with the email and its folder entries, then the counters. Counter
 * updates are not idempotent and cannot be in a logged batch: a failure after the batch
 * leaves the unread counters short, which em_unread_recount repairs.
 *
 * @param[out] id the email's id (a timeuuid of draft->time_ms or now); may be NULL
 * @return EM_OK, EM_ERR_INVALID (no sender or recipient, empty label, duplicate or oversized
 *         attachment), EM_ERR_DB or EM_ERR_NOMEM.
 * Ownership: the draft is copied. Threads: any thread.
 */
int em_send(em_db *db, const em_draft *draft, CassUuid *id, char *err, size_t cap);

/* ------------------------------------------------------------------------ */
/* Listing a folder (Q3)                                                     */
/* ------------------------------------------------------------------------ */

typedef struct em_summary {
    CassUuid id;
    int64_t time_us; /* from the id */
    char *from;
    char *subject;
    int is_read;
} em_summary;

/* Where a listing stands; start it zeroed (EM_CURSOR_INIT) and pass it back unchanged. */
typedef struct em_cursor {
    int started;      /* 0 before the first page */
    int done;         /* 1 once the oldest email was returned */
    int32_t bucket;   /* the bucket the next page starts in */
    int has_last;     /* 1 when last_id is set */
    CassUuid last_id; /* the last id returned in that bucket */
} em_cursor;

/* clang-format off */
#define EM_CURSOR_INIT {0}
/* clang-format on */

/*
 * Q3: the next page (page_size from 1 to EM_MAX_PAGE emails) of the emails in folder label of
 * username, newest first, across the folder's buckets. A page shorter than page_size is the last
 * one and sets cur->done; when the folder ends exactly at the end of a page, the next call returns
 * no emails and sets it. Once done, calls return no emails. An unknown folder is empty.
 *
 * Order: exact within a bucket; buckets are listed newest first, so the whole listing is
 * newest first as long as emails arrive in the order of their ids (ids made for now; an email
 * sent with an older draft time than one already in a newer bucket is listed with its
 * bucket). Emails delivered while a listing runs may or may not appear in it; none appears
 * twice. On failure the cursor is left as it was, so the call can be repeated.
 * @return EM_OK, EM_ERR_INVALID, EM_ERR_DB or EM_ERR_NOMEM.
 * Ownership: *out is the caller's (em_summaries_free(*out, *n)); NULL when *n is 0.
 * Threads: any thread; one cursor is used by one thread at a time.
 */
int em_folder_page(em_db *db, const char *username, const char *label, size_t page_size,
                   em_cursor *cur, em_summary **out, size_t *n, char *err, size_t cap);

void em_summaries_free(em_summary *summaries, size_t n);

/* ------------------------------------------------------------------------ */
/* One email (Q4) and its attachments (Q5, Q6)                               */
/* ------------------------------------------------------------------------ */

typedef struct em_attachment_info {
    char *filename;
    int32_t size; /* bytes; the chunks are ceil(size / EM_CHUNK_BYTES), numbered from 1 */
} em_attachment_info;

typedef struct em_email {
    CassUuid id;
    int64_t time_us;
    char **to; /* recipients' usernames */
    size_t n_to;
    char *from;
    char *subject;
    char *body;
    em_attachment_info *attachments; /* in filename order */
    size_t n_attachments;
} em_email;

/*
 * Q4: everything about email id.
 * @return EM_OK, EM_ERR_NOT_FOUND, EM_ERR_DB or EM_ERR_NOMEM.
 * Ownership: *out is the caller's (em_email_free). Threads: any thread.
 */
int em_email_get(em_db *db, CassUuid id, em_email **out, char *err, size_t cap);

void em_email_free(em_email *email);

/* An attachment, or one chunk of it. */
typedef struct em_blob {
    char *type;
    uint8_t *data;
    size_t len;
} em_blob;

/*
 * Q5: chunk chunk_number (from 1) of attachment filename of email email_id: one partition.
 * @return EM_OK, EM_ERR_NOT_FOUND (no such chunk), EM_ERR_DB or EM_ERR_NOMEM.
 * Ownership: out's fields are the caller's (em_blob_free). Threads: any thread.
 */
int em_attachment_chunk(em_db *db, CassUuid email_id, const char *filename, int32_t chunk_number,
                        em_blob *out, char *err, size_t cap);

/*
 * Q6: attachment filename of email email_id, whole. Its size comes from the email (Q4); the
 * chunks are read in parallel, one partition each, and reassembled. Every chunk but the last
 * must be EM_CHUNK_BYTES long and the total must be the recorded size.
 * @return EM_OK, EM_ERR_NOT_FOUND (no such email or attachment), EM_ERR_CORRUPT (a chunk
 *         missing or of the wrong size), EM_ERR_DB or EM_ERR_NOMEM.
 * Ownership: out's fields are the caller's (em_blob_free). Threads: any thread.
 */
int em_attachment_get(em_db *db, CassUuid email_id, const char *filename, em_blob *out, char *err,
                      size_t cap);

/* Frees the fields of blob (not blob itself) and zeroes them. NULL is ignored. */
void em_blob_free(em_blob *blob);

/* ------------------------------------------------------------------------ */
/* Read state                                                                */
/* ------------------------------------------------------------------------ */

/*
 * Marks email id read (read = 1) or unread (read = 0) for username, in every folder of
 * theirs it is listed in, and moves those folders' unread counters.
 *
 * Guarantee: each folder entry flips with a lightweight transaction (UPDATE ... IF is_read =
 * old), and only the caller whose transaction applied moves the counter, by one. Marking
 * twice, or from many threads or clients at once, moves each counter once per actual flip, so
 * a counter equals the number of unread entries of its folder (barring a failure between the
 * flip and the counter update, which em_unread_recount repairs).
 * The folders are flipped one after the other, not atomically together: a read mark racing an
 * unread mark of the same email can leave it read in one folder and unread in another (each
 * counter still right); the next mark brings them together.
 * @param[out] changed the number of folder entries that flipped (0 when already so); may be
 *             NULL
 * @return EM_OK, EM_ERR_INVALID, EM_ERR_NOT_FOUND (username has no such email), EM_ERR_DB.
 * Threads: any thread.
 */
int em_mark_read(em_db *db, const char *username, CassUuid id, int read, int *changed, char *err,
                 size_t cap);

/*
 * Counts the unread entries of folder label of username across its buckets and adds the
 * difference to its unread counter, so that they agree again.
 * Run it while nothing else writes to that folder: a delivery or mark between the count and
 * the correction is counted twice or not at all.
 * @param[out] unread the number of unread entries found; may be NULL
 * @param[out] delta  what was added to the counter; may be NULL
 * @return EM_OK, EM_ERR_INVALID, EM_ERR_DB.
 */
int em_unread_recount(em_db *db, const char *username, const char *label, int64_t *unread,
                      int64_t *delta, char *err, size_t cap);

/*
 * The labels of username that list email id (the folders em_mark_read touches), in label
 * order. Ownership: *out is the caller's (em_labels_free(*out, *n)).
 * @return EM_OK (possibly *n == 0), EM_ERR_INVALID, EM_ERR_DB, EM_ERR_NOMEM.
 */
int em_email_labels(em_db *db, const char *username, CassUuid id, char ***out, size_t *n, char *err,
                    size_t cap);

void em_labels_free(char **labels, size_t n);

/* ------------------------------------------------------------------------ */
/* Ids                                                                       */
/* ------------------------------------------------------------------------ */

/*
 * A version-1 UUID (timeuuid) for time_ms, unique even for ids made in the same millisecond
 * (successive ids of one millisecond count up in its 100 ns ticks, up to 10000, and carry
 * random clock sequence and node bits). time_ms 0 means now.
 * Threads: any thread.
 */
CassUuid em_timeuuid(int64_t time_ms);

#endif
