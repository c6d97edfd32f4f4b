/*
 * The embedded backend (backend.h): the contact points "file:DIR" (a
 * database directory, created when missing) and "memory:" (a database in a
 * temporary directory, on /dev/shm when it has room, gone at close), run by
 * the CQL executor in the calling thread. The only file of the driver that
 * sees the executor and the engine.
 *
 * Executor sessions: an executor session (cql_session) is single-threaded and
 * holds only the current keyspace, so each request borrows one from a pool
 * and returns it afterwards; requests of different threads run concurrently
 * (the engine serializes writers, readers run in parallel). The backend's
 * keyspace and a generation number live under its lock: a USE (a
 * SET_KEYSPACE result) moves them on, and a pooled executor session that is
 * behind runs `USE "ks"` before its next request, as the driver's
 * connections do when the keyspace changes.
 *
 * Durable writes: on a database with group commit (a syncing durability), a
 * plain write is queued and its request completed by the committer thread
 * once the write is durable, so one thread can have many writes in flight
 * (the driver's pipelining) and they share syncs.
 *
 * Prepared statements: the handle is the executor's statement itself, which
 * belongs to no database, so it runs on any embedded session; one the
 * database's cache evicted goes back in when executed, as a re-prepare would
 * put it. A statement prepared by another backend is prepared here from its
 * text.
 *
 * The database opens with the cluster's cassette.h options. Durability:
 * cassette_cluster_set_durability when the application called it, else the
 * CASSETTE_DURABILITY variable, else SYNC; memory: databases never sync,
 * whatever is asked.
 */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cassette.h"
#include "cql/cql.h"
#include "cql/driver/backend.h"
#include "cql/driver/driver_int.h"

/* The enum values of cassette.h are the engine's. */
_Static_assert((int)CASSETTE_DURABILITY_SYNC == (int)ENG_DURABLE_SYNC &&
                   (int)CASSETTE_DURABILITY_NOMETASYNC == (int)ENG_DURABLE_NOMETASYNC &&
                   (int)CASSETTE_DURABILITY_NONE == (int)ENG_DURABLE_NONE &&
                   (int)CASSETTE_DURABILITY_PERIODIC == (int)ENG_DURABLE_PERIODIC,
               "cassette_durability mirrors enum eng_durability");

/* An executor session and the keyspace generation it is on. */
typedef struct exec_slot {
    cql_session *s;
    uint64_t gen;           /* SLOT_GEN_UNKNOWN: its keyspace must be set again */
    struct exec_slot *next; /* idle list */
} exec_slot;

#define SLOT_GEN_UNKNOWN UINT64_MAX

/* Executor sessions free for a request, one list per thread shard (eng_thread_shard), so
   that requests on different threads take no common lock. */
typedef union idle_list {
    struct {
        pthread_mutex_t lock;
        exec_slot *head;
    } l;
    char pad[(sizeof(pthread_mutex_t) / ENG_CACHE_LINE + 2) * ENG_CACHE_LINE];
} idle_list;

struct cql_backend {
    eng_db *db;
    pthread_mutex_t lock;     /* guards keyspace, and ks_gen's changes */
    char *keyspace;           /* the current keyspace, NULL before the first USE */
    _Atomic uint64_t ks_gen;  /* bumped at every keyspace change; 0 = no keyspace */
    idle_list idle[ENG_SHARDS];
};

static int nomem(eng_err *err, const char *what)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory %s", what);
}

/* ---- connect ---- */

static int has_prefix(const char *p, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && strncasecmp(p, prefix, n) == 0;
}

static CassError failure(eng_err *err, CassError code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static CassError failure(eng_err *err, CassError code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = ENG_E_SERVER; /* a message is there; the CassError is the return value */
    return code;
}

static eng_db_options db_options(const CassCluster *c, int *durability_set)
{
    cql_drv_embedded e;
    cql_drv_cluster_embedded(c, &e);
    eng_db_options o;
    memset(&o, 0, sizeof o);
    o.durability = e.durability >= 0 ? e.durability : ENG_DURABLE_SYNC;
    o.map_size = e.map_size;
    o.sync_period_ms = e.sync_period_ms;
    o.no_group_commit = e.no_group_commit;
    *durability_set = e.durability >= 0;
    return o;
}

/* The database the contact names ("file:DIR" or "memory:"). */
static CassError open_db(const CassCluster *c, const char *contact, size_t len,
                         const char *origin, eng_db **db, eng_err *err)
{
    int durability_set;
    eng_db_options opts = db_options(c, &durability_set);
    eng_err e;
    eng_err_clear(&e);
    int rc;
    if (has_prefix(contact, len, "memory:")) {
        if (len != strlen("memory:"))
            return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                           "Unknown contact point '%.*s'%s: an in-memory database is 'memory:'",
                           (int)ENG_MIN(len, 400), contact, origin);
        /* Nothing survives the last close: syncing would only cost time. */
        opts.durability = ENG_DURABLE_NONE;
        rc = eng_db_open_temp(&opts, db, &e);
    } else {
        size_t n = len - strlen("file:");
        if (n == 0)
            return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                           "The contact point 'file:'%s names no database directory (file:DIR)",
                           origin);
        /* The application's explicit choice wins; the variable is the default for code that
           makes none. */
        const char *d = getenv("CASSETTE_DURABILITY");
        if (!durability_set && d && *d && eng_durability_parse(d, &opts.durability))
            return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                           "CASSETTE_DURABILITY must be sync, nometasync, periodic or none, "
                           "not '%.100s'",
                           d);
        char *dir = eng_strndup(contact + strlen("file:"), n);
        if (!dir)
            return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                           "out of memory opening the database");
        rc = eng_db_open(dir, &opts, db, &e);
        eng_free(dir);
    }
    if (rc) {
        *db = NULL;
        return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "%s",
                       e.msg[0] ? e.msg : "cannot open");
    }
    return CASS_OK;
}

/* One entry of a comma-separated list, spaces around it dropped; 0 when none is left. */
static int next_entry(const char *list, size_t *pos, const char **p, size_t *len)
{
    size_t n = strlen(list);
    while (*pos <= n) {
        size_t start = *pos, end = start;
        while (end < n && list[end] != ',')
            end++;
        *pos = end + 1;
        while (start < end && strchr(" \t\r\n", list[start]))
            start++;
        while (end > start && strchr(" \t\r\n", list[end - 1]))
            end--;
        if (end > start) {
            *p = list + start;
            *len = end - start;
            return 1;
        }
    }
    return 0;
}

int cql_drv_is_embedded_contact(const char *p, size_t len)
{
    return has_prefix(p, len, "file:") || has_prefix(p, len, "memory:");
}

static CassError local_connect(const CassCluster *c, const char *contacts, const char *origin,
                               cql_backend **out, eng_err *err)
{
    *out = NULL;
    size_t pos = 0, count = 0, len = 0, elen = 0;
    const char *p, *embedded = NULL;
    while (next_entry(contacts, &pos, &p, &len)) {
        count++;
        if (!embedded && cql_drv_is_embedded_contact(p, len)) {
            embedded = p;
            elen = len;
        }
    }
    if (!embedded)
        return failure(err, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, "No embedded contact point in %.400s",
                       contacts);
    if (count > 1)
        return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                       "The contact point '%.*s'%s must be the only one (contact points: %.400s)",
                       (int)ENG_MIN(elen, 400), embedded, origin, contacts);
    cql_backend *b = eng_calloc(1, sizeof *b);
    if (!b)
        return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "out of memory connecting");
    CassError code = open_db(c, embedded, elen, origin, &b->db, err);
    if (code != CASS_OK) {
        eng_free(b);
        return code;
    }
    cql_drv_embedded e;
    cql_drv_cluster_embedded(c, &e);
    if (e.statement_cache && cql_cache_set_capacity(b->db, e.statement_cache)) {
        eng_db_close(b->db);
        eng_free(b);
        return failure(err, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "out of memory connecting");
    }
    pthread_mutex_init(&b->lock, NULL);
    for (int i = 0; i < ENG_SHARDS; i++)
        pthread_mutex_init(&b->idle[i].l.lock, NULL);
    *out = b;
    return CASS_OK;
}

static void slot_free(exec_slot *slot)
{
    if (slot) {
        cql_session_free(slot->s);
        eng_free(slot);
    }
}

static void local_close(cql_backend *b)
{
    for (int i = 0; i < ENG_SHARDS; i++) {
        exec_slot *slot = b->idle[i].l.head;
        while (slot) {
            exec_slot *next = slot->next;
            slot_free(slot);
            slot = next;
        }
        pthread_mutex_destroy(&b->idle[i].l.lock);
    }
    eng_db_close(b->db);
    eng_free(b->keyspace);
    pthread_mutex_destroy(&b->lock);
    eng_free(b);
}

/* ---- executor sessions ---- */

/* `USE "ks"`, quoted as the driver quotes it: the name is the keyspace's exact one. */
static int use_keyspace(cql_session *s, const char *ks, eng_err *err)
{
    eng_buf q = ENG_BUF_INIT;
    eng_buf_put_str(&q, "USE \"");
    for (const char *c = ks; *c; c++) {
        if (*c == '"')
            eng_buf_put_u8(&q, '"');
        eng_buf_put_u8(&q, (uint8_t)*c);
    }
    eng_buf_put_u8(&q, '"');
    int rc = q.oom ? nomem(err, "setting the keyspace")
                   : cql_query(s, (const char *)q.p, q.len, NULL, NULL, err);
    eng_buf_free(&q);
    return rc;
}

/*
 * Gives an executor session back (slot may be NULL). A SET_KEYSPACE result
 * moves the backend's keyspace on.
 */
static void slot_put(cql_backend *b, exec_slot *slot, const cql_result *r)
{
    if (!slot)
        return;
    char *ks = NULL;
    if (r && r->kind == CQL_RESULT_SET_KEYSPACE && r->keyspace)
        ks = eng_strdup(r->keyspace); /* on OOM the keyspace stays; the slot is resynced */
    if (ks) {
        pthread_mutex_lock(&b->lock);
        eng_free(b->keyspace);
        b->keyspace = ks;
        slot->gen = atomic_fetch_add(&b->ks_gen, 1) + 1;
        pthread_mutex_unlock(&b->lock);
    } else if (r && r->kind == CQL_RESULT_SET_KEYSPACE) {
        slot->gen = SLOT_GEN_UNKNOWN;
    }
    idle_list *idle = &b->idle[eng_thread_shard()];
    pthread_mutex_lock(&idle->l.lock);
    slot->next = idle->l.head;
    idle->l.head = slot;
    pthread_mutex_unlock(&idle->l.lock);
}

/*
 * Borrows an executor session on the backend's current keyspace. A pooled one that is behind
 * runs USE first; if that fails (the keyspace was dropped) the request runs on a fresh executor
 * session without a keyspace rather than on the wrong one, and the next request tries again.
 */
static int slot_get(cql_backend *b, exec_slot **out, eng_err *err)
{
    *out = NULL;
    idle_list *idle = &b->idle[eng_thread_shard()];
    pthread_mutex_lock(&idle->l.lock);
    exec_slot *slot = idle->l.head;
    if (slot)
        idle->l.head = slot->next;
    pthread_mutex_unlock(&idle->l.lock);
    uint64_t gen = atomic_load(&b->ks_gen);
    char *ks = NULL;
    int oom = 0;
    if (!slot || slot->gen != gen) {
        /* behind: the keyspace to catch up with, and the generation that goes with it */
        pthread_mutex_lock(&b->lock);
        gen = atomic_load(&b->ks_gen);
        if (b->keyspace)
            oom = !(ks = eng_strdup(b->keyspace));
        pthread_mutex_unlock(&b->lock);
    }
    int rc = 0;
    if (oom) {
        rc = nomem(err, "starting a request");
        goto fail;
    }
    if (!slot) {
        slot = eng_calloc(1, sizeof *slot);
        if (!slot) {
            rc = nomem(err, "starting a request");
            goto fail;
        }
        if ((rc = cql_session_new(b->db, &slot->s, err))) {
            eng_free(slot);
            slot = NULL;
            goto fail;
        }
        slot->gen = 0; /* no keyspace yet */
    }
    if (slot->gen != gen) {
        eng_err ignored;
        eng_err_clear(&ignored);
        if (ks && use_keyspace(slot->s, ks, &ignored) == 0) {
            slot->gen = gen;
        } else {
            /* No USE can take a session back to "no keyspace", and a failed one leaves the
               old keyspace: start over from a fresh executor session. */
            cql_session *fresh;
            if ((rc = cql_session_new(b->db, &fresh, err))) {
                slot_free(slot);
                slot = NULL;
                goto fail;
            }
            cql_session_free(slot->s);
            slot->s = fresh;
            slot->gen = ks ? SLOT_GEN_UNKNOWN : gen;
        }
    }
    eng_free(ks);
    *out = slot;
    return 0;
fail:
    eng_free(ks);
    slot_put(b, slot, NULL); /* a pooled slot goes back as it was */
    return rc;
}

/* ---- prepare ---- */

static int local_prepare(cql_backend *b, const char *query, size_t len, cql_result **meta,
                         void **handle, eng_err *err)
{
    *meta = NULL;
    *handle = NULL;
    exec_slot *slot;
    int rc = slot_get(b, &slot, err);
    if (rc)
        return rc;
    cql_prepared *p = NULL;
    rc = cql_prepare(slot->s, query, len, &p, err);
    if (!rc)
        rc = cql_prepared_describe(slot->s, p, meta, err);
    slot_put(b, slot, NULL);
    if (rc) {
        cql_prepared_unref(p);
        return rc;
    }
    *handle = p;
    return 0;
}

static void local_handle_free(void *handle) { cql_prepared_unref(handle); }

/* ---- execute ---- */

static void request_options(const cql_request *req, cql_exec_options *o)
{
    cql_exec_options_init(o);
    o->values = req->values;
    o->n_values = req->n_values;
    o->names = req->names;
    o->page_size = req->page_size;
    o->paging_state = req->paging_state;
    o->paging_state_len = req->paging_state_len;
    o->timestamp = req->timestamp;
    o->consistency = req->consistency;
    o->serial_consistency = req->serial_consistency;
    o->trace = req->tracing; /* the executor fills the result's tracing_id */
}

/*
 * The executor's statement of an EXECUTE: the handle, borrowed (*owned 0: the CassPrepared,
 * which the statement being executed holds, keeps it for the call), or the text prepared here
 * (*owned 1: the caller drops it). Borrowing moves no reference count that every thread
 * executing the statement would write.
 */
static int statement_of(cql_session *s, const CassPrepared *prepared, cql_prepared **out,
                        int *owned, eng_err *err)
{
    if (prepared->backend == &cql_backend_local && prepared->handle) {
        *out = prepared->handle;
        *owned = 0;
        return 0;
    }
    *owned = 1;
    return cql_prepare(s, prepared->query, prepared->query_len, out, err);
}

/* A write completing at its group commit: the request's done, from the committer thread. */
typedef struct durable_wait {
    cql_backend_done done;
    void *arg;
} durable_wait;

static void write_durable(int rc, const eng_err *err, const eng_write_info *info, void *arg)
{
    durable_wait w = *(durable_wait *)arg;
    (void)info;
    eng_free(arg);
    w.done(w.arg, rc, err, NULL); /* a write's result is VOID */
}

/* Arms o for a write that may complete later; NULL (it completes now) without group commit. */
static durable_wait *arm_durable(cql_backend *b, cql_exec_options *o, cql_backend_done done,
                                 void *arg)
{
    if (!eng_db_group_commit(b->db))
        return NULL;
    durable_wait *w = eng_malloc(sizeof *w);
    if (!w)
        return NULL; /* the write then waits for its commit */
    w->done = done;
    w->arg = arg;
    o->on_durable = write_durable;
    o->on_durable_arg = w;
    return w;
}

/* After the execution: 1 when the write went to the group commit (write_durable completes it). */
static int queued(durable_wait *w, int rc, const cql_result *r)
{
    if (!w)
        return 0;
    if (!rc && r && r->pending)
        return 1;
    eng_free(w);
    return 0;
}

static void local_execute(cql_backend *b, const cql_request *req, cql_backend_done done,
                          void *arg)
{
    eng_err err;
    eng_err_clear(&err);
    exec_slot *slot;
    cql_result *r = NULL;
    int rc = slot_get(b, &slot, &err);
    if (rc) {
        done(arg, rc, &err, NULL);
        return;
    }
    cql_exec_options o;
    request_options(req, &o);
    durable_wait *w = arm_durable(b, &o, done, arg);
    if (req->prepared) {
        cql_prepared *p = NULL;
        int owned = 0;
        rc = statement_of(slot->s, req->prepared, &p, &owned, &err);
        if (!rc)
            rc = cql_execute(slot->s, p, &o, &r, &err);
        if (owned)
            cql_prepared_unref(p);
    } else {
        rc = cql_query(slot->s, req->query, req->query_len, &o, &r, &err);
    }
    int pending = queued(w, rc, r);
    slot_put(b, slot, rc ? NULL : r);
    if (pending) {
        cql_result_free(r);
        return;
    }
    if (rc) {
        cql_result_free(r);
        done(arg, rc, &err, NULL);
    } else {
        done(arg, 0, NULL, r);
    }
}

static void local_execute_batch(cql_backend *b, const cql_batch_request *req,
                                cql_backend_done done, void *arg)
{
    eng_err err;
    eng_err_clear(&err);
    exec_slot *slot = NULL;
    uint32_t n = req->n;
    cql_prepared **ps = eng_calloc(n ? n : 1, sizeof *ps);
    cql_exec_options *os = eng_calloc(n ? n : 1, sizeof *os);
    cql_result *r = NULL;
    int pending = 0;
    int rc = (!ps || !os) ? nomem(&err, "executing a batch") : slot_get(b, &slot, &err);
    for (uint32_t i = 0; !rc && i < n; i++) {
        const cql_request *st = &req->stmts[i];
        int owned = 1;
        rc = st->prepared ? statement_of(slot->s, st->prepared, &ps[i], &owned, &err)
                          : cql_prepare_simple(slot->s, st->query, st->query_len, &ps[i], &err);
        if (!rc && !owned)
            cql_prepared_ref(ps[i]); /* each is dropped below */
        request_options(st, &os[i]);
        /* A BATCH message carries no per-statement timestamp or consistency. */
        os[i].timestamp = ENG_TS_NONE;
        os[i].consistency = req->consistency;
        os[i].serial_consistency = req->serial_consistency;
        os[i].trace = i == 0 && req->tracing; /* options[0]'s trace the batch */
    }
    if (!rc) {
        durable_wait *w = n ? arm_durable(b, &os[0], done, arg) : NULL;
        rc = cql_execute_batch(slot->s, req->kind, ps, os, n, req->timestamp, &r, &err);
        pending = queued(w, rc, r);
    }
    slot_put(b, slot, NULL);
    for (uint32_t i = 0; ps && i < n; i++)
        cql_prepared_unref(ps[i]);
    eng_free(ps);
    eng_free(os);
    if (pending) {
        cql_result_free(r);
    } else if (rc) {
        cql_result_free(r);
        done(arg, rc, &err, NULL);
    } else {
        done(arg, 0, NULL, r);
    }
}

/* ---- schema rows ---- */

static int local_schema_rows(cql_backend *b, int table, cql_result **out, eng_err *err)
{
    const char *query = cql_drv_schema_query(table);
    *out = NULL;
    if (!query)
        return eng_errorf(err, ENG_E_INVALID, "no schema table %d", table);
    exec_slot *slot;
    int rc = slot_get(b, &slot, err);
    if (rc)
        return rc;
    rc = cql_query(slot->s, query, strlen(query), NULL, out, err);
    slot_put(b, slot, NULL);
    return rc;
}

/* ---- cassette.h extensions ---- */

static int local_clock_set(cql_backend *b, int64_t unix_us)
{
    eng_clock_set_virtual(eng_db_clock(b->db), unix_us);
    return 0;
}

static int local_clock_advance(cql_backend *b, int64_t delta_us)
{
    eng_clock *c = eng_db_clock(b->db);
    if (atomic_load(&c->is_virtual))
        eng_clock_advance(c, delta_us);
    else /* on real time: virtual time from now on, delta ahead */
        eng_clock_set_virtual(c, eng_clock_now_us(c) + delta_us);
    return 0;
}

static int local_clock_real(cql_backend *b)
{
    eng_clock_set_real(eng_db_clock(b->db));
    return 0;
}

static int engine_failure(const char *what, const eng_err *err)
{
    cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, what, "%s: %s", what, err->msg);
    return (int)cql_drv_error_of(err);
}

static int local_reset(cql_backend *b)
{
    eng_err err;
    eng_err_clear(&err);
    return eng_reset(b->db, &err) ? engine_failure("cassette_session_reset", &err) : 0;
}

static int local_snapshot(cql_backend *b, const char *dir)
{
    eng_err err;
    eng_err_clear(&err);
    return eng_db_snapshot(b->db, dir, &err) ? engine_failure("cassette_session_snapshot", &err)
                                             : 0;
}

int cassette_check(const char *dir, char *report, size_t report_size)
{
    if (report && report_size)
        report[0] = 0;
    if (!dir || !*dir)
        return CASS_ERROR_LIB_BAD_PARAMS;
    char data[PATH_MAX];
    struct stat st;
    snprintf(data, sizeof data, "%s/data.mdb", dir);
    if (stat(data, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (report && report_size)
            snprintf(report, report_size, "no database in %s", dir);
        return CASS_ERROR_LIB_UNABLE_TO_CONNECT;
    }
    eng_db_options o;
    memset(&o, 0, sizeof o);
    o.durability = ENG_DURABLE_NONE; /* the check writes nothing: no committer, no syncs */
    o.no_group_commit = 1;
    eng_err err;
    eng_err_clear(&err);
    eng_db *db = NULL;
    eng_buf text = ENG_BUF_INIT;
    int rc = eng_db_open(dir, &o, &db, &err);
    if (!rc)
        rc = eng_db_check(db, &text, &err);
    eng_db_close(db);
    CassError result = CASS_OK;
    if (rc == ENG_E_CORRUPT) {
        if (!text.len) /* the database did not open: the damage is in what opening reads */
            eng_buf_printf(&text, "%s\n", err.msg);
        result = CASS_ERROR_SERVER_SERVER_ERROR;
    } else if (rc) {
        eng_buf_printf(&text, "%s\n", err.msg);
        result = CASS_ERROR_LIB_UNABLE_TO_CONNECT;
    }
    if (report && report_size)
        snprintf(report, report_size, "%.*s", (int)text.len, text.p ? (const char *)text.p : "");
    eng_buf_free(&text);
    return result;
}

const cql_backend_ops cql_backend_local = {
    .name = "embedded",
    .connect = local_connect,
    .close = local_close,
    .prepare = local_prepare,
    .handle_free = local_handle_free,
    .execute = local_execute,
    .execute_batch = local_execute_batch,
    .schema_rows = local_schema_rows,
    .clock_set = local_clock_set,
    .clock_advance = local_clock_advance,
    .clock_real = local_clock_real,
    .reset = local_reset,
    .snapshot = local_snapshot,
};
