/*
 * Group chat retrieval (groupchat.h) on <cassandra.h>: presence kept as two sets of
 * timestamps, messages in quarter buckets, and pages of messages that walk the user's
 * presence intervals newest first, one bucket query per (interval, bucket) pair.
 *
 * Why one query per pair: CQL restricts a clustering column to one slice per query, so two
 * intervals that share a bucket need two slices, and the gap between them must never be
 * read (its messages are not the user's to see). Each query asks only for what the page
 * still lacks (LIMIT), and the walk stops as soon as the page is full.
 */
#include "groupchat.h"

#include "../common/cqlutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The Unix epoch in milliseconds after the UUID epoch (1582-10-15). */
#define UUID_EPOCH_OFFSET_MS 12219292800000LL
#define TICKS_PER_MS 10000ULL
#define TICKS_MASK 0x0FFFFFFFFFFFFFFFULL
#define UUID_VERSION_1 0x1000000000000000ULL
/* Joins and leaves of one user that lose a lightweight transaction are retried this often. */
#define MAX_ATTEMPTS 16

static const char *const SCHEMA[] = {
    "CREATE KEYSPACE IF NOT EXISTS groupchat WITH replication = "
    "{'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TABLE IF NOT EXISTS groupchat.conversations_by_user ("
    "user_id text, conversation_id text, conversation_type text, "
    "joined_at set<timestamp>, left_at set<timestamp>, presence_changes int, "
    "PRIMARY KEY (user_id, conversation_id))",
    "CREATE TABLE IF NOT EXISTS groupchat.messages_by_group_chat ("
    "conversation_id text, bucket int, message_id timeuuid, sender_id text, body text, "
    "PRIMARY KEY ((conversation_id, bucket), message_id)) "
    "WITH CLUSTERING ORDER BY (message_id DESC)",
    NULL,
};

enum {
    Q_ROW,
    Q_FIRST_JOIN,
    Q_JOIN,
    Q_LEAVE,
    Q_SEND,
    Q_RANGE_TIME,
    Q_RANGE_CURSOR,
    Q_LIST,
    Q_COUNT
};

static const char *const QUERIES[Q_COUNT] = {
    [Q_ROW] = "SELECT conversation_type, joined_at, left_at, presence_changes "
              "FROM groupchat.conversations_by_user WHERE user_id = ? AND conversation_id = ?",
    [Q_FIRST_JOIN] = "INSERT INTO groupchat.conversations_by_user "
                     "(user_id, conversation_id, conversation_type, joined_at, presence_changes) "
                     "VALUES (?, ?, 'group', ?, 1) IF NOT EXISTS",
    [Q_JOIN] = "UPDATE groupchat.conversations_by_user SET joined_at = joined_at + ?, "
               "presence_changes = ? WHERE user_id = ? AND conversation_id = ? "
               "IF presence_changes = ?",
    [Q_LEAVE] = "UPDATE groupchat.conversations_by_user SET left_at = left_at + ?, "
                "presence_changes = ? WHERE user_id = ? AND conversation_id = ? "
                "IF presence_changes = ?",
    [Q_SEND] = "INSERT INTO groupchat.messages_by_group_chat "
               "(conversation_id, bucket, message_id, sender_id, body) VALUES (?, ?, ?, ?, ?)",
    /* One interval's slice of one bucket, bounded above by a time (the interval's end)... */
    [Q_RANGE_TIME] = "SELECT message_id, sender_id, body FROM groupchat.messages_by_group_chat "
                     "WHERE conversation_id = ? AND bucket = ? "
                     "AND message_id >= minTimeuuid(?) AND message_id < minTimeuuid(?) LIMIT ?",
    /* ...or by the cursor's message, exclusive. */
    [Q_RANGE_CURSOR] = "SELECT message_id, sender_id, body FROM groupchat.messages_by_group_chat "
                       "WHERE conversation_id = ? AND bucket = ? "
                       "AND message_id >= minTimeuuid(?) AND message_id < ? LIMIT ?",
    [Q_LIST] = "SELECT conversation_id, conversation_type, joined_at, left_at "
               "FROM groupchat.conversations_by_user WHERE user_id = ?",
};

struct gc_chat {
    CassSession *session;
    gc_clock_fn clock;
    void *clock_arg;
    CassUuidGen *gen;
    const CassPrepared *q[Q_COUNT];
    pthread_mutex_t lock;     /* guards the two fields below */
    uint64_t last_ticks;      /* the ticks of the latest message id made */
    uint64_t partitions_read; /* every page's partitions_read */
};

/* One user's row of conversations_by_user. */
typedef struct presence {
    int exists;
    int is_group;
    int32_t changes;
    gc_interval *iv; /* oldest first; the last one open (to_ms INT64_MAX) while a member */
    size_t n;
    int member;
    int64_t last_event; /* the latest join or leave */
} presence;

const char *gc_status_text(gc_status st)
{
    switch (st) {
    case GC_OK:
        return "ok";
    case GC_ERR_DB:
        return "database error";
    case GC_ERR_INVALID:
        return "invalid argument";
    case GC_ERR_NOT_FOUND:
        return "never a member of this conversation";
    case GC_ERR_NOT_GROUP:
        return "not a group conversation";
    case GC_ERR_ALREADY_MEMBER:
        return "already a member";
    case GC_ERR_NOT_MEMBER:
        return "not a member";
    case GC_ERR_CONFLICT:
        return "too many concurrent membership changes";
    case GC_ERR_CORRUPT:
        return "inconsistent presence history";
    case GC_ERR_NOMEM:
        return "out of memory";
    }
    return "unknown status";
}

static gc_status fail(gc_status st, char *err, size_t cap, const char *what)
{
    if (err && cap)
        snprintf(err, cap, "%s", what);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Time, buckets and message ids                                                              */
/* ------------------------------------------------------------------------------------------ */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int gc_bucket_of(int64_t ms)
{
    time_t secs = (time_t)floor_div(ms, 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    return (tm.tm_year + 1900) * 4 + tm.tm_mon / 3;
}

static int64_t real_time_ms(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_ms(gc_chat *chat)
{
    return chat->clock(chat->clock_arg);
}

/*
 * A message id for the millisecond ms: its first tick, or the tick after the previous id's
 * when that is not earlier, so ids of one gc_chat strictly increase (a burst of more than
 * 10,000 messages in one millisecond, or a clock that went back, moves the stamp a little
 * ahead); random bits below keep ids of different processes apart.
 */
static CassUuid make_message_id(gc_chat *chat, int64_t ms)
{
    uint64_t t = (uint64_t)(ms + UUID_EPOCH_OFFSET_MS) * TICKS_PER_MS;
    pthread_mutex_lock(&chat->lock);
    if (chat->last_ticks >= t)
        t = chat->last_ticks + 1;
    chat->last_ticks = t;
    pthread_mutex_unlock(&chat->lock);

    CassUuid random;
    cass_uuid_gen_random(chat->gen, &random);
    CassUuid id;
    id.time_and_version = (t & TICKS_MASK) | UUID_VERSION_1;
    id.clock_seq_and_node = random.clock_seq_and_node; /* the RFC 4122 variant bits included */
    return id;
}

/* ------------------------------------------------------------------------------------------ */
/* Opening                                                                                    */
/* ------------------------------------------------------------------------------------------ */

gc_status gc_create_schema(CassSession *session, char *err, size_t cap)
{
    return cu_run_all(session, SCHEMA, err, cap) == CASS_OK ? GC_OK : GC_ERR_DB;
}

gc_status gc_open(CassSession *session, gc_clock_fn clock, void *clock_arg, gc_chat **out,
                  char *err, size_t cap)
{
    *out = NULL;
    gc_chat *chat = calloc(1, sizeof *chat);
    if (!chat)
        return fail(GC_ERR_NOMEM, err, cap, "out of memory");
    chat->session = session;
    chat->clock = clock ? clock : real_time_ms;
    chat->clock_arg = clock_arg;
    chat->gen = cass_uuid_gen_new();
    if (!chat->gen || pthread_mutex_init(&chat->lock, NULL) != 0) {
        cass_uuid_gen_free(chat->gen);
        free(chat);
        return fail(GC_ERR_NOMEM, err, cap, "out of memory");
    }
    if (cu_prepare_all(session, QUERIES, Q_COUNT, chat->q, err, cap) != CASS_OK) {
        gc_close(chat);
        return GC_ERR_DB;
    }
    *out = chat;
    return GC_OK;
}

void gc_close(gc_chat *chat)
{
    if (!chat)
        return;
    cu_prepared_free_all(chat->q, Q_COUNT);
    cass_uuid_gen_free(chat->gen);
    pthread_mutex_destroy(&chat->lock);
    free(chat);
}

uint64_t gc_partitions_read(gc_chat *chat)
{
    pthread_mutex_lock(&chat->lock);
    uint64_t n = chat->partitions_read;
    pthread_mutex_unlock(&chat->lock);
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Presence                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static int valid_id(const char *s)
{
    return s && *s && strlen(s) <= GC_MAX_ID;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The timestamps of a set<timestamp> column, sorted, in a new array (*n of them). */
static gc_status read_times(const CassValue *v, int64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!v || cass_value_is_null(v))
        return GC_OK;
    size_t cap = cass_value_item_count(v);
    if (cap == 0)
        return GC_OK;
    int64_t *t = malloc(cap * sizeof *t);
    if (!t)
        return GC_ERR_NOMEM;
    CassIterator *it = cass_iterator_from_collection(v);
    size_t k = 0;
    while (it && k < cap && cass_iterator_next(it)) {
        cass_int64_t x;
        if (cass_value_get_int64(cass_iterator_get_value(it), &x) == CASS_OK)
            t[k++] = x;
    }
    cass_iterator_free(it);
    qsort(t, k, sizeof *t, cmp_i64);
    *out = t;
    *n = k;
    return GC_OK;
}

/*
 * Pairs the sorted joins and leaves into intervals: join 0 < leave 0 <= join 1 < leave 1 ...,
 * with one join more than leaves while the user is a member.
 */
static gc_status build_intervals(presence *p, const int64_t *j, size_t nj, const int64_t *l,
                                 size_t nl)
{
    if (nj == 0 || (nj != nl && nj != nl + 1))
        return GC_ERR_CORRUPT;
    p->iv = malloc(nj * sizeof *p->iv);
    if (!p->iv)
        return GC_ERR_NOMEM;
    for (size_t i = 0; i < nj; i++) {
        if (i < nl && l[i] <= j[i])
            return GC_ERR_CORRUPT;
        if (i > 0 && j[i] < l[i - 1])
            return GC_ERR_CORRUPT;
        p->iv[i].from_ms = j[i];
        p->iv[i].to_ms = i < nl ? l[i] : INT64_MAX;
    }
    p->n = nj;
    p->member = nj == nl + 1;
    p->last_event = p->member ? j[nj - 1] : l[nl - 1];
    return GC_OK;
}

static void presence_free(presence *p)
{
    free(p->iv);
    memset(p, 0, sizeof *p);
}

/* Reads the user's row of conv into *p (p->exists 0 when there is none). */
static gc_status read_presence(gc_chat *chat, const char *user, const char *conv, presence *p,
                               char *err, size_t cap)
{
    memset(p, 0, sizeof *p);
    CassStatement *st = cass_prepared_bind(chat->q[Q_ROW]);
    cass_statement_bind_string(st, 0, user);
    cass_statement_bind_string(st, 1, conv);
    const CassResult *res = NULL;
    CassError rc = cu_execute(chat->session, st, &res, err, cap);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return GC_ERR_DB;
    gc_status s = GC_OK;
    const CassRow *row = cass_result_first_row(res);
    if (row) {
        char type[32];
        p->exists = 1;
        p->is_group =
            strcmp(cu_get_string(row, "conversation_type", type, sizeof type), "group") == 0;
        const CassValue *cv = cass_row_get_column_by_name(row, "presence_changes");
        if (!cv || cass_value_is_null(cv) || cass_value_get_int32(cv, &p->changes) != CASS_OK)
            p->changes = 0;
        if (p->is_group) {
            int64_t *j = NULL, *l = NULL;
            size_t nj = 0, nl = 0;
            s = read_times(cass_row_get_column_by_name(row, "joined_at"), &j, &nj);
            if (s == GC_OK)
                s = read_times(cass_row_get_column_by_name(row, "left_at"), &l, &nl);
            if (s == GC_OK)
                s = build_intervals(p, j, nj, l, nl);
            if (s == GC_OK && (size_t)p->changes != nj + nl)
                s = GC_ERR_CORRUPT;
            free(j);
            free(l);
        }
    }
    cass_result_free(res);
    if (s != GC_OK) {
        presence_free(p);
        return fail(s, err, cap, gc_status_text(s));
    }
    return GC_OK;
}

/* Runs a join or leave transaction; *applied tells whether it took. */
static gc_status run_cas(gc_chat *chat, CassStatement *st, int *applied, char *err, size_t cap)
{
    const CassResult *res = NULL;
    CassError rc = cu_execute(chat->session, st, &res, err, cap);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return GC_ERR_DB;
    *applied = cu_applied(res) == 1;
    cass_result_free(res);
    return GC_OK;
}

static CassCollection *time_set(int64_t t)
{
    CassCollection *c = cass_collection_new(CASS_COLLECTION_TYPE_SET, 1);
    cass_collection_append_int64(c, t);
    return c;
}

/*
 * Records a join (joining 1) or a leave (0) of user in conv, retrying while concurrent
 * changes of the same row win the transaction on presence_changes.
 */
static gc_status change_presence(gc_chat *chat, const char *user, const char *conv, int joining,
                                 int must_have_been, int64_t *at_ms, char *err, size_t cap)
{
    if (!valid_id(user) || !valid_id(conv))
        return fail(GC_ERR_INVALID, err, cap, "empty or too long user or conversation id");
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        presence p;
        gc_status s = read_presence(chat, user, conv, &p, err, cap);
        if (s != GC_OK)
            return s;
        int64_t t = now_ms(chat);
        CassStatement *st;
        if (!p.exists) {
            if (!joining || must_have_been)
                return fail(GC_ERR_NOT_FOUND, err, cap, gc_status_text(GC_ERR_NOT_FOUND));
            st = cass_prepared_bind(chat->q[Q_FIRST_JOIN]);
            cass_statement_bind_string(st, 0, user);
            cass_statement_bind_string(st, 1, conv);
            CassCollection *set = time_set(t);
            cass_statement_bind_collection(st, 2, set);
            cass_collection_free(set);
        } else {
            s = !p.is_group             ? GC_ERR_NOT_GROUP
                : joining && p.member   ? GC_ERR_ALREADY_MEMBER
                : !joining && !p.member ? GC_ERR_NOT_MEMBER
                                        : GC_OK;
            int64_t last = p.last_event;
            int32_t changes = p.changes;
            presence_free(&p);
            if (s != GC_OK)
                return fail(s, err, cap, gc_status_text(s));
            if (t <= last)
                t = last + 1; /* two events of one set never share a millisecond */
            st = cass_prepared_bind(chat->q[joining ? Q_JOIN : Q_LEAVE]);
            CassCollection *set = time_set(t);
            cass_statement_bind_collection(st, 0, set);
            cass_collection_free(set);
            cass_statement_bind_int32(st, 1, changes + 1);
            cass_statement_bind_string(st, 2, user);
            cass_statement_bind_string(st, 3, conv);
            cass_statement_bind_int32(st, 4, changes);
        }
        int applied = 0;
        s = run_cas(chat, st, &applied, err, cap);
        if (s != GC_OK)
            return s;
        if (applied) {
            if (at_ms)
                *at_ms = t;
            return GC_OK;
        }
    }
    return fail(GC_ERR_CONFLICT, err, cap, gc_status_text(GC_ERR_CONFLICT));
}

gc_status gc_join(gc_chat *chat, const char *user, const char *conv, int64_t *at_ms, char *err,
                  size_t cap)
{
    return change_presence(chat, user, conv, 1, 0, at_ms, err, cap);
}

gc_status gc_rejoin(gc_chat *chat, const char *user, const char *conv, int64_t *at_ms, char *err,
                    size_t cap)
{
    return change_presence(chat, user, conv, 1, 1, at_ms, err, cap);
}

gc_status gc_leave(gc_chat *chat, const char *user, const char *conv, int64_t *at_ms, char *err,
                   size_t cap)
{
    return change_presence(chat, user, conv, 0, 1, at_ms, err, cap);
}

gc_status gc_presence(gc_chat *chat, const char *user, const char *conv, gc_interval **out,
                      size_t *n, char *err, size_t cap)
{
    *out = NULL;
    *n = 0;
    if (!valid_id(user) || !valid_id(conv))
        return fail(GC_ERR_INVALID, err, cap, "empty or too long user or conversation id");
    presence p;
    gc_status s = read_presence(chat, user, conv, &p, err, cap);
    if (s != GC_OK)
        return s;
    s = !p.exists ? GC_ERR_NOT_FOUND : !p.is_group ? GC_ERR_NOT_GROUP : GC_OK;
    if (s != GC_OK) {
        presence_free(&p);
        return fail(s, err, cap, gc_status_text(s));
    }
    *out = p.iv;
    *n = p.n;
    return GC_OK;
}

static gc_status add_conversation(const CassRow *row, gc_conversation *c)
{
    memset(c, 0, sizeof *c);
    char buf[GC_MAX_ID + 1];
    c->id = strdup(cu_get_string(row, "conversation_id", buf, sizeof buf));
    c->type = strdup(cu_get_string(row, "conversation_type", buf, sizeof buf));
    if (!c->id || !c->type)
        return GC_ERR_NOMEM;
    if (strcmp(c->type, "group") != 0)
        return GC_OK;
    int64_t *j = NULL, *l = NULL;
    size_t nj = 0, nl = 0;
    gc_status s = read_times(cass_row_get_column_by_name(row, "joined_at"), &j, &nj);
    if (s == GC_OK)
        s = read_times(cass_row_get_column_by_name(row, "left_at"), &l, &nl);
    if (s == GC_OK && nj > 0) {
        c->member = nj == nl + 1;
        c->since_ms = c->member ? j[nj - 1] : nl ? l[nl - 1] : 0;
    }
    free(j);
    free(l);
    return s;
}

gc_status gc_conversations(gc_chat *chat, const char *user, gc_conversation **out, size_t *n,
                           char *err, size_t cap)
{
    *out = NULL;
    *n = 0;
    if (!valid_id(user))
        return fail(GC_ERR_INVALID, err, cap, "empty or too long user id");
    gc_conversation *list = NULL;
    size_t count = 0, room = 0;
    gc_status s = GC_OK;
    CassStatement *st = cass_prepared_bind(chat->q[Q_LIST]);
    cass_statement_bind_string(st, 0, user);
    cass_statement_set_paging_size(st, 500);
    for (int more = 1; more && s == GC_OK;) {
        const CassResult *res = NULL;
        if (cu_execute(chat->session, st, &res, err, cap) != CASS_OK) {
            s = GC_ERR_DB;
            break;
        }
        CassIterator *it = cass_iterator_from_result(res);
        while (s == GC_OK && cass_iterator_next(it)) {
            if (count == room) {
                size_t want = room ? room * 2 : 16;
                gc_conversation *bigger = realloc(list, want * sizeof *list);
                if (!bigger) {
                    s = fail(GC_ERR_NOMEM, err, cap, "out of memory");
                    break;
                }
                list = bigger;
                room = want;
            }
            s = add_conversation(cass_iterator_get_row(it), &list[count++]);
            if (s != GC_OK)
                fail(s, err, cap, gc_status_text(s));
        }
        cass_iterator_free(it);
        more = cass_result_has_more_pages(res);
        if (more)
            cass_statement_set_paging_state(st, res);
        cass_result_free(res);
    }
    cass_statement_free(st);
    if (s != GC_OK) {
        gc_conversations_free(list, count);
        return s;
    }
    *out = list;
    *n = count;
    return GC_OK;
}

void gc_conversations_free(gc_conversation *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(list[i].id);
        free(list[i].type);
    }
    free(list);
}

/* ------------------------------------------------------------------------------------------ */
/* Messages                                                                                   */
/* ------------------------------------------------------------------------------------------ */

gc_status gc_send(gc_chat *chat, const char *user, const char *conv, const char *body, CassUuid *id,
                  char *err, size_t cap)
{
    if (!valid_id(user) || !valid_id(conv) || !body || strlen(body) > GC_MAX_BODY)
        return fail(GC_ERR_INVALID, err, cap, "bad user, conversation or body");
    presence p;
    gc_status s = read_presence(chat, user, conv, &p, err, cap);
    if (s != GC_OK)
        return s;
    s = !p.exists     ? GC_ERR_NOT_FOUND
        : !p.is_group ? GC_ERR_NOT_GROUP
        : !p.member   ? GC_ERR_NOT_MEMBER
                      : GC_OK;
    int64_t joined = p.member ? p.iv[p.n - 1].from_ms : 0;
    presence_free(&p);
    if (s != GC_OK)
        return fail(s, err, cap, gc_status_text(s));

    int64_t t = now_ms(chat);
    if (t < joined)
        t = joined; /* the join was stamped ahead of the clock: the sender still sees it */
    CassUuid mid = make_message_id(chat, t);
    t = (int64_t)cass_uuid_timestamp(mid); /* the bucket is the id's, which may be later */
    CassStatement *st = cass_prepared_bind(chat->q[Q_SEND]);
    cass_statement_bind_string(st, 0, conv);
    cass_statement_bind_int32(st, 1, gc_bucket_of(t));
    cass_statement_bind_uuid(st, 2, mid);
    cass_statement_bind_string(st, 3, user);
    cass_statement_bind_string(st, 4, body);
    CassError rc = cu_execute(chat->session, st, NULL, err, cap);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return GC_ERR_DB;
    if (id)
        *id = mid;
    return GC_OK;
}

void gc_page_free(gc_page *page)
{
    if (!page)
        return;
    for (size_t i = 0; i < page->count; i++) {
        free(page->messages[i].sender);
        free(page->messages[i].body);
    }
    free(page->messages);
    memset(page, 0, sizeof *page);
}

static char *dup_string(const CassRow *row, const char *column)
{
    const char *s = "";
    size_t len = 0;
    const CassValue *v = cass_row_get_column_by_name(row, column);
    if (v && !cass_value_is_null(v) && cass_value_get_string(v, &s, &len) != CASS_OK)
        len = 0;
    char *out = malloc(len + 1);
    if (out) {
        memcpy(out, s, len);
        out[len] = '\0';
    }
    return out;
}

/*
 * Queries one interval's slice [from_ms, upper) of one bucket, where upper is the cursor's
 * message when cursor is not NULL and minTimeuuid(upper_ms) otherwise, appending at most
 * page_size - page->count rows to page.
 */
static gc_status read_slice(gc_chat *chat, const char *conv, int bucket, int64_t from_ms,
                            const CassUuid *cursor, int64_t upper_ms, int page_size, gc_page *page,
                            char *err, size_t cap)
{
    CassStatement *st = cass_prepared_bind(chat->q[cursor ? Q_RANGE_CURSOR : Q_RANGE_TIME]);
    cass_statement_bind_string(st, 0, conv);
    cass_statement_bind_int32(st, 1, bucket);
    cass_statement_bind_int64(st, 2, from_ms);
    if (cursor)
        cass_statement_bind_uuid(st, 3, *cursor);
    else
        cass_statement_bind_int64(st, 3, upper_ms);
    cass_statement_bind_int32(st, 4, page_size - (int)page->count);
    const CassResult *res = NULL;
    CassError rc = cu_execute(chat->session, st, &res, err, cap);
    cass_statement_free(st);
    if (rc != CASS_OK)
        return GC_ERR_DB;
    page->partitions_read++;
    gc_status s = GC_OK;
    CassIterator *it = cass_iterator_from_result(res);
    while (s == GC_OK && (int)page->count < page_size && cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        gc_message *m = &page->messages[page->count];
        if (cass_value_get_uuid(cass_row_get_column(row, 0), &m->id) != CASS_OK) {
            s = fail(GC_ERR_DB, err, cap, "message without an id");
            break;
        }
        m->sent_at_ms = (int64_t)cass_uuid_timestamp(m->id);
        m->sender = dup_string(row, "sender_id");
        m->body = dup_string(row, "body");
        page->count++; /* counted before the check so gc_page_free frees what was made */
        if (!m->sender || !m->body)
            s = fail(GC_ERR_NOMEM, err, cap, "out of memory");
    }
    cass_iterator_free(it);
    cass_result_free(res);
    return s;
}

/* Reads the cursor's message id: the text of a version 1 UUID. */
static int parse_cursor(const char *cursor, CassUuid *out)
{
    return strlen(cursor) == CASS_UUID_STRING_LENGTH - 1 &&
           cass_uuid_from_string(cursor, out) == CASS_OK && cass_uuid_version(*out) == 1;
}

gc_status gc_read_page(gc_chat *chat, const char *user, const char *conv, const char *cursor,
                       int page_size, gc_page *page, char *err, size_t cap)
{
    memset(page, 0, sizeof *page);
    if (!valid_id(user) || !valid_id(conv))
        return fail(GC_ERR_INVALID, err, cap, "empty or too long user or conversation id");
    if (page_size < 1 || page_size > GC_MAX_PAGE)
        return fail(GC_ERR_INVALID, err, cap, "page size out of range");
    CassUuid cur;
    int has_cursor = cursor && *cursor;
    if (has_cursor && !parse_cursor(cursor, &cur))
        return fail(GC_ERR_INVALID, err, cap, "malformed cursor");
    int64_t cursor_ms = has_cursor ? (int64_t)cass_uuid_timestamp(cur) : 0;

    presence p;
    gc_status s = read_presence(chat, user, conv, &p, err, cap);
    if (s != GC_OK)
        return s;
    s = !p.exists ? GC_ERR_NOT_FOUND : !p.is_group ? GC_ERR_NOT_GROUP : GC_OK;
    if (s != GC_OK) {
        presence_free(&p);
        return fail(s, err, cap, gc_status_text(s));
    }
    page->messages = calloc((size_t)page_size, sizeof *page->messages);
    if (!page->messages) {
        presence_free(&p);
        return fail(GC_ERR_NOMEM, err, cap, "out of memory");
    }

    int64_t now = now_ms(chat);
    for (size_t i = p.n; i-- > 0 && s == GC_OK && (int)page->count < page_size;) {
        /* The interval's milliseconds are [from, top]; the open one ends at the present, or
           at its join when that was recorded ahead of the clock. */
        int64_t from = p.iv[i].from_ms;
        int64_t top = p.iv[i].to_ms != INT64_MAX ? p.iv[i].to_ms - 1 : now > from ? now : from;
        int by_cursor = 0;
        if (has_cursor) {
            if (cursor_ms < from)
                continue; /* all of it is newer than the cursor: read on earlier pages */
            if (cursor_ms <= top) {
                top = cursor_ms; /* the cursor's millisecond, below its message */
                by_cursor = 1;
            }
        }
        if (from > top)
            continue;
        for (int b = gc_bucket_of(top), first = gc_bucket_of(from);
             b >= first && s == GC_OK && (int)page->count < page_size; b--)
            s = read_slice(chat, conv, b, from, by_cursor ? &cur : NULL, top + 1, page_size, page,
                           err, cap);
    }
    presence_free(&p);

    pthread_mutex_lock(&chat->lock);
    chat->partitions_read += (uint64_t)page->partitions_read;
    pthread_mutex_unlock(&chat->lock);
    if (s != GC_OK) {
        gc_page_free(page);
        return s;
    }
    if ((int)page->count == page_size)
        cass_uuid_string(page->messages[page->count - 1].id, page->next_cursor);
    return GC_OK;
}
