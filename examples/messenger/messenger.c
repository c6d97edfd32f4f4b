/*
 * The messenger's data layer (messenger.h) on <cassandra.h>: three tables in keyspace
 * "messenger", prepared statements, and the time UUIDs that name messages.
 */
#include "messenger.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/cqlutil.h"

/* The offset between the UUID epoch (1582-10-15) and the unix epoch, in 100 ns units. */
#define UUID_EPOCH_OFFSET 0x01B21DD213814000LL

static const char *const schema_cql[] = {
    "CREATE KEYSPACE IF NOT EXISTS messenger WITH replication = "
    "{'class': 'SimpleStrategy', 'replication_factor': 1}",
    /* TalkMessages: a conversation's messages, one partition per pair of users and month. The
       pair is ordered (user_lo < user_hi) so both users name the same partitions. */
    "CREATE TABLE IF NOT EXISTS messenger.talk_messages ("
    " user_lo bigint, user_hi bigint, bucket int, id timeuuid, sender bigint, body text,"
    " PRIMARY KEY ((user_lo, user_hi, bucket), id)"
    ") WITH CLUSTERING ORDER BY (id DESC)",
    /* The months of a conversation that hold messages: history and unread counts visit
       these, never an empty month. One row per month, so this partition stays small. */
    "CREATE TABLE IF NOT EXISTS messenger.talk_buckets ("
    " user_lo bigint, user_hi bigint, bucket int,"
    " PRIMARY KEY ((user_lo, user_hi), bucket)"
    ") WITH CLUSTERING ORDER BY (bucket DESC)",
    /* TalkLastMessages: a user's talk partners. last is the newest message either way (id,
       sender, text) in one cell, last_in the newest one from the partner, read_mark the
       newest one the user has read. All three are written with the write timestamp of the
       message's (or mark's) own time, so the newest wins whatever order writes arrive in. */
    "CREATE TABLE IF NOT EXISTS messenger.talk_last_messages ("
    " uid bigint, partner bigint, last tuple<timeuuid, bigint, text>, last_in timeuuid,"
    " read_mark timeuuid,"
    " PRIMARY KEY (uid, partner))",
    NULL,
};

enum {
    S_INSERT_MSG,
    S_INSERT_BUCKET,
    S_LAST_OUT,
    S_LAST_IN,
    S_MARK,
    S_PARTNERS,
    S_PARTNER,
    S_NEWEST_BUCKET,
    S_OLDER_BUCKET,
    S_BUCKETS_FROM,
    S_PAGE,
    S_PAGE_BEFORE,
    S_COUNT_AFTER,
    N_STATEMENTS
};

static const char *const statement_cql[N_STATEMENTS] = {
    [S_INSERT_MSG] = "INSERT INTO messenger.talk_messages (user_lo, user_hi, bucket, id, sender, "
                     "body) VALUES (?, ?, ?, ?, ?, ?)",
    [S_INSERT_BUCKET] = "INSERT INTO messenger.talk_buckets (user_lo, user_hi, bucket) "
                        "VALUES (?, ?, ?)",
    [S_LAST_OUT] = "UPDATE messenger.talk_last_messages USING TIMESTAMP ? SET last = ? "
                   "WHERE uid = ? AND partner = ?",
    [S_LAST_IN] = "UPDATE messenger.talk_last_messages USING TIMESTAMP ? SET last = ?, "
                  "last_in = ? WHERE uid = ? AND partner = ?",
    [S_MARK] = "UPDATE messenger.talk_last_messages USING TIMESTAMP ? SET read_mark = ? "
               "WHERE uid = ? AND partner = ?",
    [S_PARTNERS] = "SELECT partner, last, last_in, read_mark FROM messenger.talk_last_messages "
                   "WHERE uid = ?",
    [S_PARTNER] = "SELECT last, last_in, read_mark FROM messenger.talk_last_messages "
                  "WHERE uid = ? AND partner = ?",
    [S_NEWEST_BUCKET] = "SELECT bucket FROM messenger.talk_buckets "
                        "WHERE user_lo = ? AND user_hi = ? LIMIT 1",
    [S_OLDER_BUCKET] = "SELECT bucket FROM messenger.talk_buckets "
                       "WHERE user_lo = ? AND user_hi = ? AND bucket < ? LIMIT 1",
    [S_BUCKETS_FROM] = "SELECT bucket FROM messenger.talk_buckets "
                       "WHERE user_lo = ? AND user_hi = ? AND bucket >= ?",
    [S_PAGE] = "SELECT id, sender, body FROM messenger.talk_messages "
               "WHERE user_lo = ? AND user_hi = ? AND bucket = ? LIMIT ?",
    [S_PAGE_BEFORE] = "SELECT id, sender, body FROM messenger.talk_messages "
                      "WHERE user_lo = ? AND user_hi = ? AND bucket = ? AND id < ? LIMIT ?",
    /* Filtering inside one partition, which the partition key bounds. */
    [S_COUNT_AFTER] = "SELECT COUNT(*) FROM messenger.talk_messages WHERE user_lo = ? AND "
                      "user_hi = ? AND bucket = ? AND id > ? AND sender = ? ALLOW FILTERING",
};

struct ms_db {
    CassSession *session;
    const CassPrepared *ps[N_STATEMENTS];
    ms_clock_fn clock;
    void *clock_arg;
    /* The time of the last id made, in microseconds: ids take strictly later times. */
    _Atomic int64_t last_micros;
    /* Clock sequence and node of this handle's ids: random, variant bits set (ms_open). */
    uint64_t lsb;
};

static void set_err(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

static CassError bad_params(char *err, size_t cap, const char *what)
{
    set_err(err, cap, "%s: %s", cass_error_desc(CASS_ERROR_LIB_BAD_PARAMS), what);
    return CASS_ERROR_LIB_BAD_PARAMS;
}

static CassError no_memory(char *err, size_t cap)
{
    set_err(err, cap, "%s: out of memory", cass_error_desc(CASS_ERROR_LIB_INTERNAL_ERROR));
    return CASS_ERROR_LIB_INTERNAL_ERROR;
}

static int64_t real_clock(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ------------------------------------------------------------------------ */
/* Time UUIDs                                                               */
/* ------------------------------------------------------------------------ */

int ms_uuid_cmp(CassUuid a, CassUuid b)
{
    uint64_t ta = a.time_and_version & 0x0FFFFFFFFFFFFFFFULL;
    uint64_t tb = b.time_and_version & 0x0FFFFFFFFFFFFFFFULL;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    /* Cassandra compares the low 8 bytes as signed bytes: flipping the sign bit of every byte
       but the first makes that a signed 64-bit comparison. */
    int64_t la = (int64_t)(a.clock_seq_and_node ^ 0x0080808080808080ULL);
    int64_t lb = (int64_t)(b.clock_seq_and_node ^ 0x0080808080808080ULL);
    return la < lb ? -1 : la > lb;
}

int32_t ms_bucket_of(int64_t micros)
{
    int64_t secs = micros / 1000000;
    if (micros % 1000000 < 0)
        secs--;
    time_t t = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return 0;
    return (int32_t)((tm.tm_year + 1900) * 100 + tm.tm_mon + 1);
}

/*
 * A new message id. Its time is the clock's, or one microsecond after the last id of this
 * handle when the clock has not moved past it (a test clock that stands still, a clock set
 * back), so ids of one handle are unique and their order is the order they were made in.
 * Ids of different handles, in this process or another, differ in their random clock
 * sequence and node even when their times are equal.
 */
static CassUuid new_id(ms_db *db, int64_t *micros)
{
    int64_t now = db->clock(db->clock_arg);
    int64_t prev = atomic_load(&db->last_micros), next;
    do {
        next = now > prev ? now : prev + 1;
    } while (!atomic_compare_exchange_weak(&db->last_micros, &prev, next));
    uint64_t ticks = (uint64_t)(next * 10 + UUID_EPOCH_OFFSET);
    CassUuid u;
    u.time_and_version = (ticks & 0x0FFFFFFFFFFFFFFFULL) | 0x1000000000000000ULL;
    u.clock_seq_and_node = db->lsb;
    *micros = next;
    return u;
}

/* The id below every message: time 0 of the UUID epoch. */
static CassUuid origin_id(void)
{
    CassUuid u = {0x1000000000000000ULL, 0x8000000000000000ULL};
    return u;
}

/* ------------------------------------------------------------------------ */
/* Handle                                                                   */
/* ------------------------------------------------------------------------ */

CassError ms_create_schema(CassSession *session, char *err, size_t cap)
{
    if (!session)
        return bad_params(err, cap, "no session");
    return cu_run_all(session, schema_cql, err, cap);
}

CassError ms_open(CassSession *session, ms_clock_fn clock, void *clock_arg, ms_db **out, char *err,
                  size_t cap)
{
    if (!session || !out)
        return bad_params(err, cap, "no session or no handle");
    *out = NULL;
    ms_db *db = calloc(1, sizeof *db);
    if (!db)
        return no_memory(err, cap);
    db->session = session;
    db->clock = clock ? clock : real_clock;
    db->clock_arg = clock ? clock_arg : NULL;
    atomic_init(&db->last_micros, INT64_MIN);
    CassUuidGen *gen = cass_uuid_gen_new();
    CassUuid r;
    cass_uuid_gen_random(gen, &r);
    cass_uuid_gen_free(gen);
    /* Variant 10, a random clock sequence, a random node with the multicast bit set (RFC 4122
       4.5: a node that is not a network card's address). The top bit of bytes 9 to 15 is
       cleared (byte 8's is the variant's 1): then Cassandra's two orders of ids with the same
       time agree -- timeuuid compares these bytes signed, and a write timestamp tie between
       two cells goes to the greater value compared unsigned -- so of two "last" messages or
       two read marks of the same microsecond, the cell kept is the later id. 55 random bits
       remain to tell handles apart. */
    db->lsb = (r.clock_seq_and_node & 0x3F7F7F7F7F7F7F7FULL) | 0x8000000000000000ULL | (1ULL << 40);
    CassError rc = cu_prepare_all(session, statement_cql, N_STATEMENTS, db->ps, err, cap);
    if (rc != CASS_OK) {
        ms_close(db);
        return rc;
    }
    *out = db;
    return CASS_OK;
}

void ms_close(ms_db *db)
{
    if (!db)
        return;
    cu_prepared_free_all(db->ps, N_STATEMENTS);
    free(db);
}

/* ------------------------------------------------------------------------ */
/* Reading values                                                           */
/* ------------------------------------------------------------------------ */

static int get_uuid(const CassRow *row, size_t i, CassUuid *u)
{
    const CassValue *v = cass_row_get_column(row, i);
    return v && !cass_value_is_null(v) && cass_value_get_uuid(v, u) == CASS_OK;
}

static int64_t get_int64(const CassRow *row, size_t i)
{
    cass_int64_t x = 0;
    const CassValue *v = cass_row_get_column(row, i);
    if (v && !cass_value_is_null(v))
        cass_value_get_int64(v, &x);
    return x;
}

static int32_t get_int32(const CassRow *row, size_t i)
{
    cass_int32_t x = 0;
    const CassValue *v = cass_row_get_column(row, i);
    if (v && !cass_value_is_null(v))
        cass_value_get_int32(v, &x);
    return x;
}

/* A text value as a new C string (empty for null); NULL when out of memory. */
static char *dup_text(const CassValue *v)
{
    const char *s = "";
    size_t len = 0;
    if (v && !cass_value_is_null(v) && cass_value_get_string(v, &s, &len) != CASS_OK)
        len = 0;
    char *out = malloc(len + 1);
    if (out) {
        memcpy(out, s, len);
        out[len] = '\0';
    }
    return out;
}

/* The (id, sender, text) tuple of a "last" column; 0 when it is null. *text is malloc'd. */
static int get_last(const CassRow *row, size_t i, CassUuid *id, int64_t *sender, char **text)
{
    const CassValue *v = cass_row_get_column(row, i);
    if (!v || cass_value_is_null(v))
        return 0;
    CassIterator *it = cass_iterator_from_tuple(v);
    if (!it)
        return 0;
    int ok = 1;
    *text = NULL;
    for (int k = 0; k < 3 && ok; k++) {
        ok = cass_iterator_next(it) == cass_true;
        const CassValue *item = ok ? cass_iterator_get_value(it) : NULL;
        if (!ok || !item)
            break;
        if (k == 0)
            ok = !cass_value_is_null(item) && cass_value_get_uuid(item, id) == CASS_OK;
        else if (k == 1) {
            cass_int64_t s = 0;
            if (!cass_value_is_null(item))
                cass_value_get_int64(item, &s);
            *sender = s;
        } else
            ok = (*text = dup_text(item)) != NULL;
    }
    cass_iterator_free(it);
    if (!ok || !*text) {
        free(*text);
        *text = NULL;
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */
/* ------------------------------------------------------------------------ */

static void order_pair(int64_t a, int64_t b, int64_t *lo, int64_t *hi)
{
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* A partner row's update of last (and last_in when incoming), at the message's time. */
static CassStatement *last_update(ms_db *db, int incoming, int64_t micros, CassUuid id,
                                  const CassTuple *last, int64_t uid, int64_t partner)
{
    CassStatement *st = cass_prepared_bind(db->ps[incoming ? S_LAST_IN : S_LAST_OUT]);
    size_t i = 0;
    cass_statement_bind_int64(st, i++, micros);
    cass_statement_bind_tuple(st, i++, last);
    if (incoming)
        cass_statement_bind_uuid(st, i++, id);
    cass_statement_bind_int64(st, i++, uid);
    cass_statement_bind_int64(st, i++, partner);
    return st;
}

CassError ms_send(ms_db *db, int64_t sender, int64_t target, const char *text, CassUuid *id_out,
                  char *err, size_t cap)
{
    if (!db || !text)
        return bad_params(err, cap, "no handle or no text");
    if (sender == target)
        return bad_params(err, cap, "a user cannot send to themselves");
    int64_t micros, lo, hi;
    CassUuid id = new_id(db, &micros);
    int32_t bucket = ms_bucket_of(micros);
    order_pair(sender, target, &lo, &hi);

    CassTuple *last = cass_tuple_new(3);
    cass_tuple_set_uuid(last, 0, id);
    cass_tuple_set_int64(last, 1, sender);
    cass_tuple_set_string(last, 2, text);

    CassStatement *st[4];
    st[0] = cass_prepared_bind(db->ps[S_INSERT_MSG]);
    cass_statement_bind_int64(st[0], 0, lo);
    cass_statement_bind_int64(st[0], 1, hi);
    cass_statement_bind_int32(st[0], 2, bucket);
    cass_statement_bind_uuid(st[0], 3, id);
    cass_statement_bind_int64(st[0], 4, sender);
    cass_statement_bind_string(st[0], 5, text);
    st[1] = cass_prepared_bind(db->ps[S_INSERT_BUCKET]);
    cass_statement_bind_int64(st[1], 0, lo);
    cass_statement_bind_int64(st[1], 1, hi);
    cass_statement_bind_int32(st[1], 2, bucket);
    st[2] = last_update(db, 0, micros, id, last, sender, target);
    st[3] = last_update(db, 1, micros, id, last, target, sender);

    /* Logged: the batch log makes the four writes all happen or none, so a message is never
       missing from the partner rows, nor a partner row pointing at a missing message. */
    CassBatch *batch = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    for (int i = 0; i < 4; i++)
        cass_batch_add_statement(batch, st[i]);
    CassError rc = cu_execute_batch(db->session, batch, NULL, err, cap);
    cass_batch_free(batch);
    for (int i = 0; i < 4; i++)
        cass_statement_free(st[i]);
    cass_tuple_free(last);
    if (rc == CASS_OK && id_out)
        *id_out = id;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* History                                                                  */
/* ------------------------------------------------------------------------ */

/* The newest month of the pair (older_than 0) or the newest one before older_than, in
 *bucket; 0 when there is none. */
static CassError next_bucket(ms_db *db, int64_t lo, int64_t hi, int32_t older_than, int32_t *bucket,
                             char *err, size_t cap)
{
    CassStatement *st = cass_prepared_bind(db->ps[older_than ? S_OLDER_BUCKET : S_NEWEST_BUCKET]);
    cass_statement_bind_int64(st, 0, lo);
    cass_statement_bind_int64(st, 1, hi);
    if (older_than)
        cass_statement_bind_int32(st, 2, older_than);
    const CassResult *r = NULL;
    CassError rc = cu_execute(db->session, st, &r, err, cap);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return rc;
    const CassRow *row = cass_result_first_row(r);
    *bucket = row ? get_int32(row, 0) : 0;
    cass_result_free(r);
    return CASS_OK;
}

/* Appends to (*msgs, *n) the rows of one month's page; *got is how many rows it had. */
static CassError read_page(ms_db *db, int64_t lo, int64_t hi, const ms_cursor *cur, size_t limit,
                           ms_message *msgs, size_t *n, size_t *got, char *err, size_t cap)
{
    CassStatement *st = cass_prepared_bind(db->ps[cur->has_before ? S_PAGE_BEFORE : S_PAGE]);
    size_t i = 0;
    cass_statement_bind_int64(st, i++, lo);
    cass_statement_bind_int64(st, i++, hi);
    cass_statement_bind_int32(st, i++, cur->bucket);
    if (cur->has_before)
        cass_statement_bind_uuid(st, i++, cur->before);
    cass_statement_bind_int32(st, i++, (cass_int32_t)limit);
    const CassResult *r = NULL;
    CassError rc = cu_execute(db->session, st, &r, err, cap);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return rc;
    *got = 0;
    CassIterator *it = cass_iterator_from_result(r);
    while (cass_iterator_next(it) && *got < limit) {
        const CassRow *row = cass_iterator_get_row(it);
        ms_message *m = &msgs[*n];
        memset(m, 0, sizeof *m);
        if (!get_uuid(row, 0, &m->id))
            continue;
        m->micros = cu_uuid_micros(m->id);
        m->sender = get_int64(row, 1);
        m->target = m->sender == lo ? hi : lo;
        m->text = dup_text(cass_row_get_column(row, 2));
        if (!m->text) {
            rc = no_memory(err, cap);
            break;
        }
        (*n)++;
        (*got)++;
    }
    cass_iterator_free(it);
    cass_result_free(r);
    return rc;
}

CassError ms_history(ms_db *db, int64_t a, int64_t b, ms_cursor *cur, size_t limit,
                     ms_message **msgs_out, size_t *n_out, char *err, size_t cap)
{
    if (!db || !cur || !msgs_out || !n_out || limit == 0 || limit > MS_HISTORY_MAX)
        return bad_params(err, cap, "no handle, cursor or output, or a limit not in 1..10000");
    *msgs_out = NULL;
    *n_out = 0;
    if (cur->done)
        return CASS_OK;
    int64_t lo, hi;
    order_pair(a, b, &lo, &hi);
    ms_message *msgs = calloc(limit, sizeof *msgs);
    if (!msgs)
        return no_memory(err, cap);
    size_t n = 0;
    ms_cursor c = *cur;
    CassError rc = CASS_OK;
    if (c.bucket == 0) {
        rc = next_bucket(db, lo, hi, 0, &c.bucket, err, cap);
        c.has_before = 0;
        if (rc == CASS_OK && c.bucket == 0)
            c.done = 1;
    }
    while (rc == CASS_OK && !c.done && n < limit) {
        size_t want = limit - n, got = 0;
        rc = read_page(db, lo, hi, &c, want, msgs, &n, &got, err, cap);
        if (rc != CASS_OK)
            break;
        if (got > 0) {
            c.has_before = 1;
            c.before = msgs[n - 1].id;
        }
        if (got == want)
            break; /* the month may hold more: the next page asks */
        /* This month is exhausted: on to the next older month that has messages. */
        int32_t older = 0;
        rc = next_bucket(db, lo, hi, c.bucket, &older, err, cap);
        if (rc != CASS_OK)
            break;
        c.bucket = older;
        c.has_before = 0;
        c.done = older == 0;
    }
    if (rc != CASS_OK) {
        ms_messages_free(msgs, n);
        return rc;
    }
    *cur = c;
    if (n == 0) {
        free(msgs);
        msgs = NULL;
    }
    *msgs_out = msgs;
    *n_out = n;
    return CASS_OK;
}

void ms_messages_free(ms_message *msgs, size_t n)
{
    if (!msgs)
        return;
    for (size_t i = 0; i < n; i++)
        free(msgs[i].text);
    free(msgs);
}

/* ------------------------------------------------------------------------ */
/* Read marks and unread counts                                             */
/* ------------------------------------------------------------------------ */

/* The partner row of uid: whether it exists, its last_in and read_mark. */
typedef struct partner_row {
    int has_last_in, has_mark;
    CassUuid last_in, mark;
} partner_row;

static CassError read_partner(ms_db *db, int64_t uid, int64_t partner, partner_row *p, char *err,
                              size_t cap)
{
    memset(p, 0, sizeof *p);
    CassStatement *st = cass_prepared_bind(db->ps[S_PARTNER]);
    cass_statement_bind_int64(st, 0, uid);
    cass_statement_bind_int64(st, 1, partner);
    const CassResult *r = NULL;
    CassError rc = cu_execute(db->session, st, &r, err, cap);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return rc;
    const CassRow *row = cass_result_first_row(r);
    if (row) {
        p->has_last_in = get_uuid(row, 1, &p->last_in);
        p->has_mark = get_uuid(row, 2, &p->mark);
    }
    cass_result_free(r);
    return CASS_OK;
}

/* The messages from partner to uid after mark (every one when has_mark is 0), in *count:
   one count per month from the mark's month on, the months taken from the bucket table. */
static CassError count_after(ms_db *db, int64_t uid, int64_t partner, int has_mark, CassUuid mark,
                             int64_t *count, char *err, size_t cap)
{
    int64_t lo, hi;
    order_pair(uid, partner, &lo, &hi);
    if (!has_mark)
        mark = origin_id();
    int32_t from = has_mark ? ms_bucket_of(cu_uuid_micros(mark)) : 0;
    CassStatement *st = cass_prepared_bind(db->ps[S_BUCKETS_FROM]);
    cass_statement_bind_int64(st, 0, lo);
    cass_statement_bind_int64(st, 1, hi);
    cass_statement_bind_int32(st, 2, from);
    cass_statement_set_paging_size(st, 1000);
    *count = 0;
    CassError rc = CASS_OK;
    for (;;) {
        const CassResult *r = NULL;
        rc = cu_execute(db->session, st, &r, err, cap);
        if (rc != CASS_OK)
            break;
        CassIterator *it = cass_iterator_from_result(r);
        while (rc == CASS_OK && cass_iterator_next(it)) {
            int32_t bucket = get_int32(cass_iterator_get_row(it), 0);
            CassStatement *cs = cass_prepared_bind(db->ps[S_COUNT_AFTER]);
            cass_statement_bind_int64(cs, 0, lo);
            cass_statement_bind_int64(cs, 1, hi);
            cass_statement_bind_int32(cs, 2, bucket);
            cass_statement_bind_uuid(cs, 3, mark);
            cass_statement_bind_int64(cs, 4, partner);
            const CassResult *cr = NULL;
            rc = cu_execute(db->session, cs, &cr, err, cap);
            cass_statement_free(cs);
            if (rc == CASS_OK) {
                const CassRow *row = cass_result_first_row(cr);
                *count += row ? get_int64(row, 0) : 0;
                cass_result_free(cr);
            }
        }
        cass_iterator_free(it);
        int more = rc == CASS_OK && cass_result_has_more_pages(r);
        if (more)
            cass_statement_set_paging_state(st, r);
        cass_result_free(r);
        if (!more)
            break;
    }
    cass_statement_free(st);
    return rc;
}

/* The unread count of a partner row: none when the newest message from the partner is not
   after the mark, else counted. */
static CassError unread_of(ms_db *db, int64_t uid, int64_t partner, const partner_row *p,
                           int64_t *count, char *err, size_t cap)
{
    *count = 0;
    if (!p->has_last_in || (p->has_mark && ms_uuid_cmp(p->last_in, p->mark) <= 0))
        return CASS_OK;
    return count_after(db, uid, partner, p->has_mark, p->mark, count, err, cap);
}

CassError ms_unread(ms_db *db, int64_t uid, int64_t partner, int64_t *count, char *err, size_t cap)
{
    if (!db || !count)
        return bad_params(err, cap, "no handle or no output");
    *count = 0;
    partner_row p;
    CassError rc = read_partner(db, uid, partner, &p, err, cap);
    if (rc != CASS_OK)
        return rc;
    return unread_of(db, uid, partner, &p, count, err, cap);
}

CassError ms_read_mark(ms_db *db, int64_t uid, int64_t partner, CassUuid *mark, int *has_mark,
                       char *err, size_t cap)
{
    if (!db || !mark || !has_mark)
        return bad_params(err, cap, "no handle or no output");
    *has_mark = 0;
    partner_row p;
    CassError rc = read_partner(db, uid, partner, &p, err, cap);
    if (rc != CASS_OK)
        return rc;
    *has_mark = p.has_mark;
    if (p.has_mark)
        *mark = p.mark;
    return CASS_OK;
}

CassError ms_mark_read(ms_db *db, int64_t reader, int64_t partner, const CassUuid *upto, char *err,
                       size_t cap)
{
    if (!db)
        return bad_params(err, cap, "no handle");
    CassUuid mark;
    if (upto) {
        mark = *upto;
    } else {
        partner_row p;
        CassError rc = read_partner(db, reader, partner, &p, err, cap);
        if (rc != CASS_OK)
            return rc;
        if (!p.has_last_in)
            return CASS_OK; /* nothing was sent to reader: nothing to mark */
        mark = p.last_in;
    }
    /* No read-modify-write: the write timestamp is the mark's own time, so of two marks the
       later one wins whichever is written last, and a stale mark never moves it back. */
    CassStatement *st = cass_prepared_bind(db->ps[S_MARK]);
    cass_statement_bind_int64(st, 0, cu_uuid_micros(mark));
    cass_statement_bind_uuid(st, 1, mark);
    cass_statement_bind_int64(st, 2, reader);
    cass_statement_bind_int64(st, 3, partner);
    CassError rc = cu_execute(db->session, st, NULL, err, cap);
    cass_statement_free(st);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Main view                                                                */
/* ------------------------------------------------------------------------ */

static int newest_first(const void *a, const void *b)
{
    const ms_talk *x = a, *y = b;
    return ms_uuid_cmp(y->last_id, x->last_id);
}

void ms_talks_free(ms_talk *talks, size_t n)
{
    if (!talks)
        return;
    for (size_t i = 0; i < n; i++)
        free(talks[i].last_text);
    free(talks);
}

CassError ms_main_view(ms_db *db, int64_t uid, ms_talk **talks_out, size_t *n_out, char *err,
                       size_t cap)
{
    if (!db || !talks_out || !n_out)
        return bad_params(err, cap, "no handle or no output");
    *talks_out = NULL;
    *n_out = 0;
    ms_talk *talks = NULL;
    partner_row *rows = NULL;
    size_t n = 0, room = 0;
    CassStatement *st = cass_prepared_bind(db->ps[S_PARTNERS]);
    cass_statement_bind_int64(st, 0, uid);
    cass_statement_set_paging_size(st, 1000);
    CassError rc = CASS_OK;
    for (;;) {
        const CassResult *r = NULL;
        rc = cu_execute(db->session, st, &r, err, cap);
        if (rc != CASS_OK)
            break;
        CassIterator *it = cass_iterator_from_result(r);
        while (rc == CASS_OK && cass_iterator_next(it)) {
            const CassRow *row = cass_iterator_get_row(it);
            if (n == room) {
                size_t nr = room ? room * 2 : 16;
                ms_talk *t = realloc(talks, nr * sizeof *t);
                if (t)
                    talks = t;
                partner_row *p = t ? realloc(rows, nr * sizeof *p) : NULL;
                if (p)
                    rows = p;
                if (!t || !p) {
                    rc = no_memory(err, cap);
                    break;
                }
                room = nr;
            }
            ms_talk *t = &talks[n];
            memset(t, 0, sizeof *t);
            t->partner = get_int64(row, 0);
            /* A row with a read mark and no message (a mark set ahead) is no conversation. */
            if (!get_last(row, 1, &t->last_id, &t->last_sender, &t->last_text))
                continue;
            t->last_micros = cu_uuid_micros(t->last_id);
            memset(&rows[n], 0, sizeof rows[n]);
            rows[n].has_last_in = get_uuid(row, 2, &rows[n].last_in);
            rows[n].has_mark = get_uuid(row, 3, &rows[n].mark);
            n++;
        }
        cass_iterator_free(it);
        int more = rc == CASS_OK && cass_result_has_more_pages(r);
        if (more)
            cass_statement_set_paging_state(st, r);
        cass_result_free(r);
        if (!more)
            break;
    }
    cass_statement_free(st);
    for (size_t i = 0; rc == CASS_OK && i < n; i++)
        rc = unread_of(db, uid, talks[i].partner, &rows[i], &talks[i].unread, err, cap);
    free(rows);
    if (rc != CASS_OK) {
        ms_talks_free(talks, n);
        return rc;
    }
    if (n == 0) {
        free(talks);
        talks = NULL;
    }
    if (n > 1)
        qsort(talks, n, sizeof *talks, newest_first);
    *talks_out = talks;
    *n_out = n;
    return CASS_OK;
}
