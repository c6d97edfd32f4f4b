/*
 * The email system's data layer (email.h) over seven tables: the seed's five
 * (folders_by_user, unread_email_stats, emails_by_user_folder, emails, attachments) and two
 * that its physical model implies without drawing: folder_buckets, which counts the emails of
 * each overflow bucket of a folder so that writers know when to start the next one and readers
 * know which buckets exist, and email_labels_by_user, which tells which folders (and buckets)
 * of a user list an email, so that marking it read reaches every copy of its read flag.
 *
 * Every statement is prepared once, in em_attach, with the keyspace written into it.
 */
#include "email.h"

#include "../common/cqlutil.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The offset between the UUID epoch (1582-10-15) and the unix epoch, in 100 ns ticks. */
#define UUID_EPOCH_TICKS 0x01B21DD213814000LL

/* The prepared statements; %s is the keyspace. */
enum {
    P_FOLDER_SET,
    P_FOLDER_TOUCH,
    P_FOLDERS,
    P_UNREAD,
    P_UNREAD_ONE,
    P_UNREAD_ADD,
    P_BUCKET_NEWEST,
    P_BUCKET_ADD,
    P_ENTRY_INSERT,
    P_LABEL_INSERT,
    P_EMAIL_INSERT,
    P_CHUNK_INSERT,
    P_PAGE_FIRST,
    P_PAGE_AFTER,
    P_EMAIL_GET,
    P_CHUNK_GET,
    P_LABELS_OF,
    P_MARK,
    P_COUNT_UNREAD,
    P_COUNT
};

static const char *const prepared_cql[P_COUNT] = {
    [P_FOLDER_SET] = "INSERT INTO %s.folders_by_user (username, label, color) VALUES (?, ?, ?)",
    /* Only the primary key: makes the folder if missing and leaves an existing color alone. */
    [P_FOLDER_TOUCH] = "INSERT INTO %s.folders_by_user (username, label) VALUES (?, ?)",
    [P_FOLDERS] = "SELECT label, color FROM %s.folders_by_user WHERE username = ?",
    [P_UNREAD] = "SELECT label, num_unread FROM %s.unread_email_stats WHERE username = ?",
    [P_UNREAD_ONE] = "SELECT num_unread FROM %s.unread_email_stats WHERE username = ? AND "
                     "label = ?",
    [P_UNREAD_ADD] = "UPDATE %s.unread_email_stats SET num_unread = num_unread + ? WHERE "
                     "username = ? AND label = ?",
    [P_BUCKET_NEWEST] = "SELECT bucket, num_emails FROM %s.folder_buckets WHERE username = ? "
                        "AND label = ? LIMIT 1",
    [P_BUCKET_ADD] = "UPDATE %s.folder_buckets SET num_emails = num_emails + 1 WHERE "
                     "username = ? AND label = ? AND bucket = ?",
    [P_ENTRY_INSERT] = "INSERT INTO %s.emails_by_user_folder (username, label, bucket, id, "
                       "\"from\", subject, is_read) VALUES (?, ?, ?, ?, ?, ?, ?)",
    [P_LABEL_INSERT] = "INSERT INTO %s.email_labels_by_user (username, id, label, bucket) "
                       "VALUES (?, ?, ?, ?)",
    [P_EMAIL_INSERT] = "INSERT INTO %s.emails (id, \"to\", \"from\", subject, body, "
                       "attachments) VALUES (?, ?, ?, ?, ?, ?)",
    [P_CHUNK_INSERT] = "INSERT INTO %s.attachments (email_id, filename, chunk_number, type, "
                       "value) VALUES (?, ?, ?, ?, ?)",
    [P_PAGE_FIRST] = "SELECT id, \"from\", subject, is_read FROM %s.emails_by_user_folder "
                     "WHERE username = ? AND label = ? AND bucket = ? LIMIT ?",
    [P_PAGE_AFTER] = "SELECT id, \"from\", subject, is_read FROM %s.emails_by_user_folder "
                     "WHERE username = ? AND label = ? AND bucket = ? AND id < ? LIMIT ?",
    [P_EMAIL_GET] = "SELECT id, \"to\", \"from\", subject, body, attachments FROM %s.emails "
                    "WHERE id = ?",
    [P_CHUNK_GET] = "SELECT type, value FROM %s.attachments WHERE email_id = ? AND "
                    "filename = ? AND chunk_number = ?",
    [P_LABELS_OF] = "SELECT label, bucket FROM %s.email_labels_by_user WHERE username = ? AND "
                    "id = ?",
    [P_MARK] = "UPDATE %s.emails_by_user_folder SET is_read = ? WHERE username = ? AND "
               "label = ? AND bucket = ? AND id = ? IF is_read = ?",
    [P_COUNT_UNREAD] = "SELECT COUNT(*) FROM %s.emails_by_user_folder WHERE username = ? AND "
                       "label = ? AND bucket = ? AND is_read = false ALLOW FILTERING",
};

/* The schema; schema.cql has the same statements for the default keyspace. */
static const char *const schema_cql[] = {
    "CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE IF NOT EXISTS %s.folders_by_user (username TEXT, label TEXT, color TEXT, "
    "PRIMARY KEY ((username), label))",
    "CREATE TABLE IF NOT EXISTS %s.unread_email_stats (username TEXT, label TEXT, "
    "num_unread COUNTER, PRIMARY KEY ((username), label))",
    "CREATE TABLE IF NOT EXISTS %s.emails_by_user_folder (username TEXT, label TEXT, "
    "bucket INT, id TIMEUUID, \"from\" TEXT, subject TEXT, is_read BOOLEAN, "
    "PRIMARY KEY ((username, label, bucket), id)) WITH CLUSTERING ORDER BY (id DESC)",
    "CREATE TABLE IF NOT EXISTS %s.emails (id TIMEUUID, \"to\" LIST<TEXT>, \"from\" TEXT, "
    "subject TEXT, body TEXT, attachments MAP<TEXT, INT>, PRIMARY KEY ((id)))",
    "CREATE TABLE IF NOT EXISTS %s.attachments (email_id TIMEUUID, filename TEXT, "
    "chunk_number INT, type TEXT, value BLOB, PRIMARY KEY ((email_id, filename, "
    "chunk_number)))",
    "CREATE TABLE IF NOT EXISTS %s.folder_buckets (username TEXT, label TEXT, bucket INT, "
    "num_emails COUNTER, PRIMARY KEY ((username, label), bucket)) "
    "WITH CLUSTERING ORDER BY (bucket DESC)",
    "CREATE TABLE IF NOT EXISTS %s.email_labels_by_user (username TEXT, id TIMEUUID, "
    "label TEXT, bucket INT, PRIMARY KEY ((username, id), label))",
    NULL,
};

struct em_db {
    CassCluster *cluster; /* NULL when the session is the caller's */
    CassSession *session;
    const CassPrepared *ps[P_COUNT];
    int32_t threshold;
};

/* ------------------------------------------------------------------------ */
/* Errors and small helpers                                                  */
/* ------------------------------------------------------------------------ */

static int fail(char *err, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t cap, int code, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return code;
}

static int nomem(char *err, size_t cap)
{
    return fail(err, cap, EM_ERR_NOMEM, "out of memory");
}

static int empty(const char *s)
{
    return !s || !*s;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* A text value as a new string ("" for null); NULL only when out of memory. */
static char *value_str(const CassValue *v)
{
    const char *s = "";
    size_t n = 0;
    if (v && !cass_value_is_null(v) && cass_value_get_string(v, &s, &n) != CASS_OK)
        n = 0;
    return dup_n(s, n);
}

static int64_t value_i64(const CassValue *v)
{
    cass_int64_t x = 0;
    if (v && !cass_value_is_null(v))
        cass_value_get_int64(v, &x);
    return x;
}

static int32_t value_i32(const CassValue *v)
{
    cass_int32_t x = 0;
    if (v && !cass_value_is_null(v))
        cass_value_get_int32(v, &x);
    return x;
}

static int valid_keyspace(const char *ks)
{
    if (empty(ks) || strlen(ks) > 48)
        return 0;
    for (const char *p = ks; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

static CassStatement *stmt(em_db *db, int which)
{
    return cass_prepared_bind(db->ps[which]);
}

/* Executes st (freed here) and hands back its result when result is not NULL. */
static int run(em_db *db, CassStatement *st, const CassResult **result, char *err, size_t cap)
{
    if (!st)
        return nomem(err, cap);
    CassError rc = cu_execute(db->session, st, result, err, cap);
    cass_statement_free(st);
    return rc == CASS_OK ? EM_OK : EM_ERR_DB;
}

static int run_batch(em_db *db, CassBatch *batch, char *err, size_t cap)
{
    CassError rc = cu_execute_batch(db->session, batch, NULL, err, cap);
    return rc == CASS_OK ? EM_OK : EM_ERR_DB;
}

/* ------------------------------------------------------------------------ */
/* Ids                                                                       */
/* ------------------------------------------------------------------------ */

static pthread_once_t gen_once = PTHREAD_ONCE_INIT;
static CassUuidGen *gen;
static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t last_tick;

static void gen_init(void)
{
    gen = cass_uuid_gen_new();
}

CassUuid em_timeuuid(int64_t time_ms)
{
    CassUuid id;
    pthread_once(&gen_once, gen_init);
    if (time_ms == 0) {
        cass_uuid_gen_time(gen, &id);
        return id;
    }
    /* cass_uuid_gen_from_time keeps the millisecond and the generator's node, so two ids of
       one millisecond would be equal: count up in the millisecond's 10000 ticks instead, and
       take the clock sequence and node from a random UUID (whose variant bits sit where a
       time UUID's do). */
    int64_t tick = time_ms * 10000 + UUID_EPOCH_TICKS;
    pthread_mutex_lock(&tick_lock);
    if (tick <= last_tick && last_tick - tick < 9999)
        tick = last_tick + 1;
    if (tick > last_tick)
        last_tick = tick;
    pthread_mutex_unlock(&tick_lock);
    CassUuid rnd;
    cass_uuid_gen_random(gen, &rnd);
    id.time_and_version = ((cass_uint64_t)tick & 0x0FFFFFFFFFFFFFFFULL) | 0x1000000000000000ULL;
    id.clock_seq_and_node = rnd.clock_seq_and_node;
    return id;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

int em_schema_create(CassSession *session, const char *keyspace, char *err, size_t cap)
{
    if (!keyspace)
        keyspace = EM_DEFAULT_KEYSPACE;
    if (!valid_keyspace(keyspace))
        return fail(err, cap, EM_ERR_INVALID, "bad keyspace name '%s'", keyspace);
    for (const char *const *q = schema_cql; *q; q++) {
        char cql[1024];
        snprintf(cql, sizeof cql, *q, keyspace);
        if (cu_run(session, cql, err, cap) != CASS_OK)
            return EM_ERR_DB;
    }
    return EM_OK;
}

static int attach(CassCluster *cluster, CassSession *session, const em_options *opts, em_db **out,
                  char *err, size_t cap)
{
    em_options def = {0};
    if (!opts)
        opts = &def;
    const char *ks = opts->keyspace ? opts->keyspace : EM_DEFAULT_KEYSPACE;
    *out = NULL;
    if (!valid_keyspace(ks))
        return fail(err, cap, EM_ERR_INVALID, "bad keyspace name '%s'", ks);
    if (opts->bucket_threshold < 0)
        return fail(err, cap, EM_ERR_INVALID, "bucket threshold %d is negative",
                    (int)opts->bucket_threshold);
    if (opts->create_schema) {
        int rc = em_schema_create(session, ks, err, cap);
        if (rc != EM_OK)
            return rc;
    }
    em_db *db = calloc(1, sizeof *db);
    if (!db)
        return nomem(err, cap);
    db->session = session;
    db->threshold = opts->bucket_threshold ? opts->bucket_threshold : EM_DEFAULT_BUCKET_THRESHOLD;
    for (int i = 0; i < P_COUNT; i++) {
        char cql[1024];
        snprintf(cql, sizeof cql, prepared_cql[i], ks);
        if (cu_prepare(session, cql, &db->ps[i], err, cap) != CASS_OK) {
            em_close(db);
            return EM_ERR_DB;
        }
    }
    db->cluster = cluster;
    *out = db;
    return EM_OK;
}

int em_attach(CassSession *session, const em_options *opts, em_db **out, char *err, size_t cap)
{
    return attach(NULL, session, opts, out, err, cap);
}

int em_open(const char *contact, const em_options *opts, em_db **out, char *err, size_t cap)
{
    CassCluster *cluster;
    CassSession *session;
    *out = NULL;
    if (empty(contact))
        return fail(err, cap, EM_ERR_INVALID, "no contact point");
    if (cu_connect(contact, &cluster, &session, err, cap) != CASS_OK)
        return EM_ERR_DB;
    int rc = attach(cluster, session, opts, out, err, cap);
    if (rc != EM_OK)
        cu_disconnect(cluster, session);
    return rc;
}

void em_close(em_db *db)
{
    if (!db)
        return;
    cu_prepared_free_all(db->ps, P_COUNT);
    if (db->cluster)
        cu_disconnect(db->cluster, db->session);
    free(db);
}

CassSession *em_session(em_db *db)
{
    return db->session;
}

/* ------------------------------------------------------------------------ */
/* Folders                                                                   */
/* ------------------------------------------------------------------------ */

int em_folder_create(em_db *db, const char *username, const char *label, const char *color,
                     char *err, size_t cap)
{
    if (empty(username) || empty(label))
        return fail(err, cap, EM_ERR_INVALID, "a folder needs a username and a label");
    CassStatement *st = stmt(db, P_FOLDER_SET);
    cass_statement_bind_string(st, 0, username);
    cass_statement_bind_string(st, 1, label);
    if (color)
        cass_statement_bind_string(st, 2, color);
    else
        cass_statement_bind_null(st, 2);
    return run(db, st, NULL, err, cap);
}

void em_folders_free(em_folder *folders, size_t n)
{
    if (!folders)
        return;
    for (size_t i = 0; i < n; i++) {
        free(folders[i].label);
        free(folders[i].color);
    }
    free(folders);
}

/* Q1 (with_counts 0) and Q2 (1): one partition of folders_by_user or unread_email_stats. */
static int list_folders(em_db *db, const char *username, int with_counts, em_folder **out,
                        size_t *n, char *err, size_t cap)
{
    *out = NULL;
    *n = 0;
    if (empty(username))
        return fail(err, cap, EM_ERR_INVALID, "no username");
    CassStatement *st = stmt(db, with_counts ? P_UNREAD : P_FOLDERS);
    cass_statement_bind_string(st, 0, username);
    const CassResult *r;
    int rc = run(db, st, &r, err, cap);
    if (rc != EM_OK)
        return rc;
    size_t rows = cass_result_row_count(r);
    em_folder *f = rows ? calloc(rows, sizeof *f) : NULL;
    if (rows && !f) {
        cass_result_free(r);
        return nomem(err, cap);
    }
    size_t k = 0;
    CassIterator *it = cass_iterator_from_result(r);
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        f[k].label = value_str(cass_row_get_column(row, 0));
        if (with_counts) {
            f[k].color = dup_n("", 0);
            f[k].num_unread = value_i64(cass_row_get_column(row, 1));
        } else {
            f[k].color = value_str(cass_row_get_column(row, 1));
        }
        k++;
        if (!f[k - 1].label || !f[k - 1].color) {
            rc = nomem(err, cap);
            break;
        }
    }
    cass_iterator_free(it);
    cass_result_free(r);
    if (rc != EM_OK) {
        em_folders_free(f, k);
        return rc;
    }
    *out = f;
    *n = k;
    return EM_OK;
}

int em_folders(em_db *db, const char *username, em_folder **out, size_t *n, char *err, size_t cap)
{
    return list_folders(db, username, 0, out, n, err, cap);
}

int em_unread_counts(em_db *db, const char *username, em_folder **out, size_t *n, char *err,
                     size_t cap)
{
    return list_folders(db, username, 1, out, n, err, cap);
}

/* The newest bucket of a folder and its email count; *bucket -1 when the folder has none. */
static int newest_bucket(em_db *db, const char *username, const char *label, int32_t *bucket,
                         int64_t *count, char *err, size_t cap)
{
    CassStatement *st = stmt(db, P_BUCKET_NEWEST);
    cass_statement_bind_string(st, 0, username);
    cass_statement_bind_string(st, 1, label);
    const CassResult *r;
    int rc = run(db, st, &r, err, cap);
    if (rc != EM_OK)
        return rc;
    const CassRow *row = cass_result_first_row(r);
    *bucket = row ? value_i32(cass_row_get_column(row, 0)) : -1;
    if (count)
        *count = row ? value_i64(cass_row_get_column(row, 1)) : 0;
    cass_result_free(r);
    return EM_OK;
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                   */
/* ------------------------------------------------------------------------ */

/* One folder entry an email gets: a (username, label) pair and the bucket it lands in. */
typedef struct entry {
    const char *username;
    const char *label;
    int is_read;
    int32_t bucket;
} entry;

static size_t chunk_count(size_t len)
{
    return len == 0 ? 1 : (len + EM_CHUNK_BYTES - 1) / EM_CHUNK_BYTES;
}

static int check_draft(const em_draft *d, char *err, size_t cap)
{
    if (!d || empty(d->from))
        return fail(err, cap, EM_ERR_INVALID, "an email needs a sender");
    if (d->n_to == 0 || !d->to)
        return fail(err, cap, EM_ERR_INVALID, "an email needs a recipient");
    if (d->time_ms < 0)
        return fail(err, cap, EM_ERR_INVALID, "time %lld is before 1970", (long long)d->time_ms);
    for (size_t i = 0; i < d->n_to; i++) {
        if (empty(d->to[i].username))
            return fail(err, cap, EM_ERR_INVALID, "recipient %zu has no username", i + 1);
        for (size_t j = 0; d->to[i].labels && j < d->to[i].n_labels; j++)
            if (empty(d->to[i].labels[j]))
                return fail(err, cap, EM_ERR_INVALID, "recipient %s: empty label",
                            d->to[i].username);
    }
    for (size_t i = 0; i < d->n_files; i++) {
        const em_file *f = &d->files[i];
        if (empty(f->filename))
            return fail(err, cap, EM_ERR_INVALID, "attachment %zu has no filename", i + 1);
        if (f->len > INT32_MAX)
            return fail(err, cap, EM_ERR_INVALID, "attachment %s: %zu bytes is too large",
                        f->filename, f->len);
        if (f->len && !f->data)
            return fail(err, cap, EM_ERR_INVALID, "attachment %s has no data", f->filename);
        for (size_t j = 0; j < i; j++)
            if (strcmp(d->files[j].filename, f->filename) == 0)
                return fail(err, cap, EM_ERR_INVALID, "attachment %s is given twice", f->filename);
    }
    return EM_OK;
}

/* Adds (username, label) to the entries unless it is there already. */
static void add_entry(entry *e, size_t *n, const char *username, const char *label, int is_read)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(e[i].username, username) == 0 && strcmp(e[i].label, label) == 0)
            return;
    e[*n] = (entry){username, label, is_read, 0};
    (*n)++;
}

/* Stores the chunks of every attachment, all of them in flight at once. */
static int store_chunks(em_db *db, CassUuid id, const em_draft *d, char *err, size_t cap)
{
    size_t total = 0;
    for (size_t i = 0; i < d->n_files; i++)
        total += chunk_count(d->files[i].len);
    if (total == 0)
        return EM_OK;
    CassFuture **fs = calloc(total, sizeof *fs);
    if (!fs)
        return nomem(err, cap);
    size_t k = 0;
    for (size_t i = 0; i < d->n_files; i++) {
        const em_file *f = &d->files[i];
        size_t chunks = chunk_count(f->len);
        for (size_t c = 0; c < chunks; c++) {
            size_t off = c * EM_CHUNK_BYTES;
            size_t len = f->len - off < EM_CHUNK_BYTES ? f->len - off : EM_CHUNK_BYTES;
            CassStatement *st = stmt(db, P_CHUNK_INSERT);
            cass_statement_bind_uuid(st, 0, id);
            cass_statement_bind_string(st, 1, f->filename);
            cass_statement_bind_int32(st, 2, (cass_int32_t)(c + 1));
            cass_statement_bind_string(st, 3, f->type ? f->type : "application/octet-stream");
            cass_statement_bind_bytes(st, 4, len ? f->data + off : (const cass_byte_t *)"", len);
            fs[k++] = cass_session_execute(db->session, st);
            cass_statement_free(st);
        }
    }
    int rc = EM_OK;
    for (size_t i = 0; i < k; i++) {
        CassError e = cass_future_error_code(fs[i]);
        if (e != CASS_OK && rc == EM_OK) {
            const char *m;
            size_t len;
            cass_future_error_message(fs[i], &m, &len);
            rc = fail(err, cap, EM_ERR_DB, "%s: %.*s", cass_error_desc(e), (int)len, m);
        }
        cass_future_free(fs[i]);
    }
    free(fs);
    return rc;
}

int em_send(em_db *db, const em_draft *d, CassUuid *id_out, char *err, size_t cap)
{
    int rc = check_draft(d, err, cap);
    if (rc != EM_OK)
        return rc;
    static const char *const inbox[] = {EM_INBOX_LABEL};
    size_t max = 1;
    for (size_t i = 0; i < d->n_to; i++)
        max += d->to[i].labels && d->to[i].n_labels ? d->to[i].n_labels : 1;
    entry *e = calloc(max, sizeof *e);
    if (!e)
        return nomem(err, cap);
    size_t n = 0;
    for (size_t i = 0; i < d->n_to; i++) {
        const em_rcpt *r = &d->to[i];
        const char *const *labels = r->labels && r->n_labels ? r->labels : inbox;
        size_t nl = r->labels && r->n_labels ? r->n_labels : 1;
        for (size_t j = 0; j < nl; j++)
            add_entry(e, &n, r->username, labels[j], 0);
    }
    add_entry(e, &n, d->from, EM_SENT_LABEL, 1);

    CassUuid id = em_timeuuid(d->time_ms);
    CassBatch *counters = NULL, *batch = NULL;
    CassCollection *to = NULL, *files = NULL;

    /* 1. The attachments, before anything refers to them. */
    rc = store_chunks(db, id, d, err, cap);
    if (rc != EM_OK)
        goto done;

    /* 2. A bucket for each entry, counted before any entry is written, so that a reader
       finding a bucket number in folder_buckets finds every bucket that has entries. */
    counters = cass_batch_new(CASS_BATCH_TYPE_COUNTER);
    for (size_t i = 0; i < n; i++) {
        int64_t count;
        rc = newest_bucket(db, e[i].username, e[i].label, &e[i].bucket, &count, err, cap);
        if (rc != EM_OK)
            goto done;
        if (e[i].bucket < 0)
            e[i].bucket = 0;
        else if (count >= db->threshold)
            e[i].bucket++;
        CassStatement *st = stmt(db, P_BUCKET_ADD);
        cass_statement_bind_string(st, 0, e[i].username);
        cass_statement_bind_string(st, 1, e[i].label);
        cass_statement_bind_int32(st, 2, e[i].bucket);
        cass_batch_add_statement(counters, st);
        cass_statement_free(st);
    }
    rc = run_batch(db, counters, err, cap);
    cass_batch_free(counters);
    counters = NULL;
    if (rc != EM_OK)
        goto done;

    /* 3. The email and every folder entry, all or nothing (a logged batch). */
    batch = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    to = cass_collection_new(CASS_COLLECTION_TYPE_LIST, d->n_to);
    files = cass_collection_new(CASS_COLLECTION_TYPE_MAP, d->n_files);
    for (size_t i = 0; i < d->n_to; i++)
        cass_collection_append_string(to, d->to[i].username);
    for (size_t i = 0; i < d->n_files; i++) {
        cass_collection_append_string(files, d->files[i].filename);
        cass_collection_append_int32(files, (cass_int32_t)d->files[i].len);
    }
    CassStatement *st = stmt(db, P_EMAIL_INSERT);
    cass_statement_bind_uuid(st, 0, id);
    cass_statement_bind_collection(st, 1, to);
    cass_statement_bind_string(st, 2, d->from);
    cass_statement_bind_string(st, 3, d->subject ? d->subject : "");
    cass_statement_bind_string(st, 4, d->body ? d->body : "");
    cass_statement_bind_collection(st, 5, files);
    cass_batch_add_statement(batch, st);
    cass_statement_free(st);
    for (size_t i = 0; i < n; i++) {
        st = stmt(db, P_FOLDER_TOUCH);
        cass_statement_bind_string(st, 0, e[i].username);
        cass_statement_bind_string(st, 1, e[i].label);
        cass_batch_add_statement(batch, st);
        cass_statement_free(st);
        st = stmt(db, P_ENTRY_INSERT);
        cass_statement_bind_string(st, 0, e[i].username);
        cass_statement_bind_string(st, 1, e[i].label);
        cass_statement_bind_int32(st, 2, e[i].bucket);
        cass_statement_bind_uuid(st, 3, id);
        cass_statement_bind_string(st, 4, d->from);
        cass_statement_bind_string(st, 5, d->subject ? d->subject : "");
        cass_statement_bind_bool(st, 6, e[i].is_read ? cass_true : cass_false);
        cass_batch_add_statement(batch, st);
        cass_statement_free(st);
        st = stmt(db, P_LABEL_INSERT);
        cass_statement_bind_string(st, 0, e[i].username);
        cass_statement_bind_uuid(st, 1, id);
        cass_statement_bind_string(st, 2, e[i].label);
        cass_statement_bind_int32(st, 3, e[i].bucket);
        cass_batch_add_statement(batch, st);
        cass_statement_free(st);
    }
    rc = run_batch(db, batch, err, cap);
    if (rc != EM_OK)
        goto done;

    /* 4. The unread counters of the recipients' folders. */
    counters = cass_batch_new(CASS_BATCH_TYPE_COUNTER);
    size_t unread = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].is_read)
            continue;
        st = stmt(db, P_UNREAD_ADD);
        cass_statement_bind_int64(st, 0, 1);
        cass_statement_bind_string(st, 1, e[i].username);
        cass_statement_bind_string(st, 2, e[i].label);
        cass_batch_add_statement(counters, st);
        cass_statement_free(st);
        unread++;
    }
    if (unread)
        rc = run_batch(db, counters, err, cap);
    if (rc == EM_OK && id_out)
        *id_out = id;
done:
    if (counters)
        cass_batch_free(counters);
    if (batch)
        cass_batch_free(batch);
    if (to)
        cass_collection_free(to);
    if (files)
        cass_collection_free(files);
    free(e);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Listing a folder                                                          */
/* ------------------------------------------------------------------------ */

void em_summaries_free(em_summary *s, size_t n)
{
    if (!s)
        return;
    for (size_t i = 0; i < n; i++) {
        free(s[i].from);
        free(s[i].subject);
    }
    free(s);
}

/* Appends at most want rows of one bucket after cur->last_id to s; *got counts them. */
static int page_bucket(em_db *db, const char *username, const char *label, em_cursor *cur,
                       size_t want, em_summary *s, size_t *got, char *err, size_t cap)
{
    CassStatement *st = stmt(db, cur->has_last ? P_PAGE_AFTER : P_PAGE_FIRST);
    size_t i = 0;
    cass_statement_bind_string(st, i++, username);
    cass_statement_bind_string(st, i++, label);
    cass_statement_bind_int32(st, i++, cur->bucket);
    if (cur->has_last)
        cass_statement_bind_uuid(st, i++, cur->last_id);
    cass_statement_bind_int32(st, i, (cass_int32_t)want);
    const CassResult *r;
    int rc = run(db, st, &r, err, cap);
    if (rc != EM_OK)
        return rc;
    *got = 0;
    CassIterator *it = cass_iterator_from_result(r);
    while (cass_iterator_next(it) && *got < want) {
        const CassRow *row = cass_iterator_get_row(it);
        em_summary *x = &s[*got];
        cass_bool_t is_read = cass_false;
        cass_value_get_uuid(cass_row_get_column(row, 0), &x->id);
        x->time_us = cu_uuid_micros(x->id);
        x->from = value_str(cass_row_get_column(row, 1));
        x->subject = value_str(cass_row_get_column(row, 2));
        cass_value_get_bool(cass_row_get_column(row, 3), &is_read);
        x->is_read = is_read == cass_true;
        (*got)++;
        if (!x->from || !x->subject) {
            rc = nomem(err, cap);
            break;
        }
    }
    cass_iterator_free(it);
    cass_result_free(r);
    return rc;
}

int em_folder_page(em_db *db, const char *username, const char *label, size_t page_size,
                   em_cursor *cursor, em_summary **out, size_t *n, char *err, size_t cap)
{
    *out = NULL;
    *n = 0;
    if (empty(username) || empty(label) || !cursor)
        return fail(err, cap, EM_ERR_INVALID, "a listing needs a username, label and cursor");
    if (page_size == 0 || page_size > EM_MAX_PAGE)
        return fail(err, cap, EM_ERR_INVALID, "page size %zu is not within 1 to %d", page_size,
                    EM_MAX_PAGE);
    /* The cursor moves only when the whole page was read: a failed call can be retried. */
    em_cursor cur = *cursor;
    if (cur.done)
        return EM_OK;
    if (!cur.started) {
        int32_t newest;
        int rc = newest_bucket(db, username, label, &newest, NULL, err, cap);
        if (rc != EM_OK)
            return rc;
        cur.started = 1;
        cur.bucket = newest;
        cur.has_last = 0;
        if (newest < 0) {
            cur.done = 1;
            *cursor = cur;
            return EM_OK;
        }
    }
    em_summary *s = calloc(page_size, sizeof *s);
    if (!s)
        return nomem(err, cap);
    size_t k = 0;
    int rc = EM_OK;
    while (k < page_size && !cur.done) {
        size_t want = page_size - k, got = 0;
        rc = page_bucket(db, username, label, &cur, want, s + k, &got, err, cap);
        k += got;
        if (rc != EM_OK)
            break;
        if (got > 0) {
            cur.has_last = 1;
            cur.last_id = s[k - 1].id;
        }
        if (got < want) {
            /* This bucket is exhausted: the next older one starts from its newest email. */
            cur.has_last = 0;
            if (--cur.bucket < 0)
                cur.done = 1;
        }
    }
    if (rc != EM_OK) {
        em_summaries_free(s, k);
        return rc;
    }
    if (k == 0) {
        free(s);
        s = NULL;
    }
    *cursor = cur;
    *out = s;
    *n = k;
    return EM_OK;
}

/* ------------------------------------------------------------------------ */
/* One email and its attachments                                             */
/* ------------------------------------------------------------------------ */

void em_email_free(em_email *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_to; i++)
        free(m->to[i]);
    free(m->to);
    for (size_t i = 0; i < m->n_attachments; i++)
        free(m->attachments[i].filename);
    free(m->attachments);
    free(m->from);
    free(m->subject);
    free(m->body);
    free(m);
}

static int read_email(const CassRow *row, em_email *m)
{
    cass_value_get_uuid(cass_row_get_column(row, 0), &m->id);
    m->time_us = cu_uuid_micros(m->id);
    m->from = value_str(cass_row_get_column(row, 2));
    m->subject = value_str(cass_row_get_column(row, 3));
    m->body = value_str(cass_row_get_column(row, 4));
    if (!m->from || !m->subject || !m->body)
        return -1;
    const CassValue *to = cass_row_get_column(row, 1);
    if (!cass_value_is_null(to)) {
        size_t count = cass_value_item_count(to);
        m->to = calloc(count ? count : 1, sizeof *m->to);
        if (!m->to)
            return -1;
        CassIterator *it = cass_iterator_from_collection(to);
        while (cass_iterator_next(it) && m->n_to < count) {
            char *s = value_str(cass_iterator_get_value(it));
            if (!s)
                break;
            m->to[m->n_to++] = s;
        }
        cass_iterator_free(it);
        if (m->n_to < count)
            return -1;
    }
    const CassValue *files = cass_row_get_column(row, 5);
    if (!cass_value_is_null(files)) {
        size_t count = cass_value_item_count(files);
        m->attachments = calloc(count ? count : 1, sizeof *m->attachments);
        if (!m->attachments)
            return -1;
        CassIterator *it = cass_iterator_from_map(files);
        while (cass_iterator_next(it) && m->n_attachments < count) {
            em_attachment_info *a = &m->attachments[m->n_attachments];
            a->filename = value_str(cass_iterator_get_map_key(it));
            if (!a->filename)
                break;
            a->size = value_i32(cass_iterator_get_map_value(it));
            m->n_attachments++;
        }
        cass_iterator_free(it);
        if (m->n_attachments < count)
            return -1;
    }
    return 0;
}

int em_email_get(em_db *db, CassUuid id, em_email **out, char *err, size_t cap)
{
    *out = NULL;
    CassStatement *st = stmt(db, P_EMAIL_GET);
    cass_statement_bind_uuid(st, 0, id);
    const CassResult *r;
    int rc = run(db, st, &r, err, cap);
    if (rc != EM_OK)
        return rc;
    const CassRow *row = cass_result_first_row(r);
    if (!row) {
        char s[CASS_UUID_STRING_LENGTH];
        cass_uuid_string(id, s);
        cass_result_free(r);
        return fail(err, cap, EM_ERR_NOT_FOUND, "no email %s", s);
    }
    em_email *m = calloc(1, sizeof *m);
    if (!m || read_email(row, m) != 0) {
        cass_result_free(r);
        em_email_free(m);
        return nomem(err, cap);
    }
    cass_result_free(r);
    *out = m;
    return EM_OK;
}

void em_blob_free(em_blob *b)
{
    if (!b)
        return;
    free(b->type);
    free(b->data);
    b->type = NULL;
    b->data = NULL;
    b->len = 0;
}

/* The type and bytes of a chunk row; *found 0 when the result has no row. */
static int read_chunk(const CassResult *r, int *found, char **type, const cass_byte_t **data,
                      size_t *len)
{
    const CassRow *row = cass_result_first_row(r);
    *found = row != NULL;
    *len = 0;
    *data = NULL;
    if (!row)
        return 0;
    *type = value_str(cass_row_get_column(row, 0));
    const CassValue *v = cass_row_get_column(row, 1);
    if (!cass_value_is_null(v))
        cass_value_get_bytes(v, data, len);
    return *type ? 0 : -1;
}

static CassStatement *chunk_stmt(em_db *db, CassUuid email_id, const char *filename,
                                 int32_t chunk_number)
{
    CassStatement *st = stmt(db, P_CHUNK_GET);
    cass_statement_bind_uuid(st, 0, email_id);
    cass_statement_bind_string(st, 1, filename);
    cass_statement_bind_int32(st, 2, chunk_number);
    return st;
}

int em_attachment_chunk(em_db *db, CassUuid email_id, const char *filename, int32_t chunk_number,
                        em_blob *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (empty(filename) || chunk_number < 1)
        return fail(err, cap, EM_ERR_INVALID, "a chunk needs a filename and a number from 1");
    const CassResult *r;
    int rc = run(db, chunk_stmt(db, email_id, filename, chunk_number), &r, err, cap);
    if (rc != EM_OK)
        return rc;
    int found;
    const cass_byte_t *data;
    size_t len;
    char *type = NULL;
    if (read_chunk(r, &found, &type, &data, &len) != 0) {
        rc = nomem(err, cap);
    } else if (!found) {
        rc = fail(err, cap, EM_ERR_NOT_FOUND, "no chunk %d of attachment %s", (int)chunk_number,
                  filename);
    } else if (!(out->data = malloc(len ? len : 1))) {
        rc = nomem(err, cap);
    } else {
        memcpy(out->data, data, len);
        out->len = len;
        out->type = type;
        type = NULL;
    }
    free(type);
    cass_result_free(r);
    return rc;
}

int em_attachment_get(em_db *db, CassUuid email_id, const char *filename, em_blob *out, char *err,
                      size_t cap)
{
    memset(out, 0, sizeof *out);
    if (empty(filename))
        return fail(err, cap, EM_ERR_INVALID, "no attachment filename");
    em_email *m;
    int rc = em_email_get(db, email_id, &m, err, cap);
    if (rc != EM_OK)
        return rc;
    int64_t size = 0;
    int listed = 0;
    for (size_t i = 0; i < m->n_attachments; i++)
        if (strcmp(m->attachments[i].filename, filename) == 0) {
            size = m->attachments[i].size;
            listed = 1;
        }
    em_email_free(m);
    if (!listed)
        return fail(err, cap, EM_ERR_NOT_FOUND, "the email has no attachment %s", filename);
    if (size < 0)
        return fail(err, cap, EM_ERR_CORRUPT, "attachment %s: recorded size %lld", filename,
                    (long long)size);
    size_t chunks = chunk_count((size_t)size);
    CassFuture **fs = calloc(chunks, sizeof *fs);
    out->data = malloc(size ? (size_t)size : 1);
    if (!fs || !out->data) {
        free(fs);
        em_blob_free(out);
        return nomem(err, cap);
    }
    /* Every chunk is a partition of its own: ask for all of them at once. */
    for (size_t c = 0; c < chunks; c++) {
        CassStatement *st = chunk_stmt(db, email_id, filename, (int32_t)(c + 1));
        fs[c] = cass_session_execute(db->session, st);
        cass_statement_free(st);
    }
    for (size_t c = 0; c < chunks; c++) {
        CassError e = cass_future_error_code(fs[c]);
        if (rc != EM_OK)
            continue;
        if (e != CASS_OK) {
            const char *msg;
            size_t len;
            cass_future_error_message(fs[c], &msg, &len);
            rc = fail(err, cap, EM_ERR_DB, "%s: %.*s", cass_error_desc(e), (int)len, msg);
            continue;
        }
        const CassResult *r = cass_future_get_result(fs[c]);
        int found;
        const cass_byte_t *data;
        size_t len;
        char *type = NULL;
        size_t want = c + 1 < chunks ? EM_CHUNK_BYTES : (size_t)size - c * EM_CHUNK_BYTES;
        if (read_chunk(r, &found, &type, &data, &len) != 0)
            rc = nomem(err, cap);
        else if (!found)
            rc = fail(err, cap, EM_ERR_CORRUPT, "attachment %s: chunk %zu of %zu is missing",
                      filename, c + 1, chunks);
        else if (len != want)
            rc = fail(err, cap, EM_ERR_CORRUPT,
                      "attachment %s: chunk %zu of %zu has %zu bytes, not %zu", filename, c + 1,
                      chunks, len, want);
        else {
            memcpy(out->data + c * EM_CHUNK_BYTES, data, len);
            if (!out->type) {
                out->type = type;
                type = NULL;
            }
        }
        free(type);
        cass_result_free(r);
    }
    for (size_t c = 0; c < chunks; c++)
        cass_future_free(fs[c]);
    free(fs);
    if (rc != EM_OK) {
        em_blob_free(out);
        return rc;
    }
    out->len = (size_t)size;
    return EM_OK;
}

/* ------------------------------------------------------------------------ */
/* Read state                                                                */
/* ------------------------------------------------------------------------ */

/* The (label, bucket) rows of email_labels_by_user for (username, id). */
static int labels_of(em_db *db, const char *username, CassUuid id, const CassResult **r, char *err,
                     size_t cap)
{
    CassStatement *st = stmt(db, P_LABELS_OF);
    cass_statement_bind_string(st, 0, username);
    cass_statement_bind_uuid(st, 1, id);
    return run(db, st, r, err, cap);
}

void em_labels_free(char **labels, size_t n)
{
    if (!labels)
        return;
    for (size_t i = 0; i < n; i++)
        free(labels[i]);
    free(labels);
}

int em_email_labels(em_db *db, const char *username, CassUuid id, char ***out, size_t *n, char *err,
                    size_t cap)
{
    *out = NULL;
    *n = 0;
    if (empty(username))
        return fail(err, cap, EM_ERR_INVALID, "no username");
    const CassResult *r;
    int rc = labels_of(db, username, id, &r, err, cap);
    if (rc != EM_OK)
        return rc;
    size_t rows = cass_result_row_count(r), k = 0;
    char **l = rows ? calloc(rows, sizeof *l) : NULL;
    CassIterator *it = cass_iterator_from_result(r);
    while (l && cass_iterator_next(it) && k < rows) {
        if (!(l[k] = value_str(cass_row_get_column(cass_iterator_get_row(it), 0))))
            break;
        k++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    if (k < rows) {
        em_labels_free(l, k);
        return nomem(err, cap);
    }
    *out = l;
    *n = k;
    return EM_OK;
}

static int add_unread(em_db *db, const char *username, const char *label, int64_t delta, char *err,
                      size_t cap)
{
    CassStatement *st = stmt(db, P_UNREAD_ADD);
    cass_statement_bind_int64(st, 0, delta);
    cass_statement_bind_string(st, 1, username);
    cass_statement_bind_string(st, 2, label);
    return run(db, st, NULL, err, cap);
}

int em_mark_read(em_db *db, const char *username, CassUuid id, int read, int *changed, char *err,
                 size_t cap)
{
    if (changed)
        *changed = 0;
    if (empty(username))
        return fail(err, cap, EM_ERR_INVALID, "no username");
    const CassResult *r;
    int rc = labels_of(db, username, id, &r, err, cap);
    if (rc != EM_OK)
        return rc;
    if (cass_result_row_count(r) == 0) {
        char s[CASS_UUID_STRING_LENGTH];
        cass_uuid_string(id, s);
        cass_result_free(r);
        return fail(err, cap, EM_ERR_NOT_FOUND, "%s has no email %s", username, s);
    }
    CassIterator *it = cass_iterator_from_result(r);
    while (rc == EM_OK && cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        const char *label;
        size_t label_len;
        cass_value_get_string(cass_row_get_column(row, 0), &label, &label_len);
        char *l = dup_n(label, label_len);
        if (!l) {
            rc = nomem(err, cap);
            break;
        }
        /* The flag flips only from the other state, and only one of any number of racing
           callers sees its flip applied: that caller alone moves the counter. */
        CassStatement *st = stmt(db, P_MARK);
        cass_statement_bind_bool(st, 0, read ? cass_true : cass_false);
        cass_statement_bind_string(st, 1, username);
        cass_statement_bind_string(st, 2, l);
        cass_statement_bind_int32(st, 3, value_i32(cass_row_get_column(row, 1)));
        cass_statement_bind_uuid(st, 4, id);
        cass_statement_bind_bool(st, 5, read ? cass_false : cass_true);
        const CassResult *lwt;
        rc = run(db, st, &lwt, err, cap);
        if (rc == EM_OK) {
            int applied = cu_applied(lwt);
            cass_result_free(lwt);
            if (applied == 1) {
                rc = add_unread(db, username, l, read ? -1 : 1, err, cap);
                if (rc == EM_OK && changed)
                    (*changed)++;
            }
        }
        free(l);
    }
    cass_iterator_free(it);
    cass_result_free(r);
    return rc;
}

int em_unread_recount(em_db *db, const char *username, const char *label, int64_t *unread,
                      int64_t *delta, char *err, size_t cap)
{
    if (unread)
        *unread = 0;
    if (delta)
        *delta = 0;
    if (empty(username) || empty(label))
        return fail(err, cap, EM_ERR_INVALID, "a recount needs a username and a label");
    int32_t newest;
    int rc = newest_bucket(db, username, label, &newest, NULL, err, cap);
    if (rc != EM_OK)
        return rc;
    int64_t count = 0;
    for (int32_t b = newest; b >= 0; b--) {
        CassStatement *st = stmt(db, P_COUNT_UNREAD);
        cass_statement_bind_string(st, 0, username);
        cass_statement_bind_string(st, 1, label);
        cass_statement_bind_int32(st, 2, b);
        const CassResult *r;
        rc = run(db, st, &r, err, cap);
        if (rc != EM_OK)
            return rc;
        const CassRow *row = cass_result_first_row(r);
        count += row ? value_i64(cass_row_get_column(row, 0)) : 0;
        cass_result_free(r);
    }
    CassStatement *st = stmt(db, P_UNREAD_ONE);
    cass_statement_bind_string(st, 0, username);
    cass_statement_bind_string(st, 1, label);
    const CassResult *r;
    rc = run(db, st, &r, err, cap);
    if (rc != EM_OK)
        return rc;
    const CassRow *row = cass_result_first_row(r);
    int64_t stored = row ? value_i64(cass_row_get_column(row, 0)) : 0;
    cass_result_free(r);
    if (count != stored) {
        rc = add_unread(db, username, label, count - stored, err, cap);
        if (rc != EM_OK)
            return rc;
    }
    if (unread)
        *unread = count;
    if (delta)
        *delta = count - stored;
    return EM_OK;
}
