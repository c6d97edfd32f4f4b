/*
 * Sessions of the driver API, embedded: connect opens the database the
 * contact point names ("file:DIR" or "memory:"; CASSETTE_URI replaces the
 * contact points when set), and prepare / execute / execute_batch run the
 * CQL executor in the calling thread, so their futures are set when the
 * call returns. Host names and addresses belong to the remote backend; until
 * it exists, connecting to one fails with CASS_ERROR_LIB_NO_HOSTS_AVAILABLE
 * and a message that names the host.
 *
 * Threads: a session serves any number of threads at once. An executor
 * session (cql_session) is single-threaded and holds only the current
 * keyspace, so each request borrows one from a per-session pool and returns
 * it afterwards; statements of different threads run concurrently (the
 * engine serializes writers, readers run in parallel). The session's
 * keyspace and a generation number live under the session lock: a USE
 * (its SET_KEYSPACE result) moves them on, and a pooled executor session
 * that is behind runs `USE "ks"` before its next request, as the driver's
 * connections do when the keyspace changes. Close waits until the requests
 * in flight have returned their executor sessions.
 *
 * The database opens with the cluster's cassette.h options (durability,
 * map size). Durability: cassette_cluster_set_durability when the
 * application called it, else the CASSETTE_DURABILITY variable, else SYNC;
 * memory: databases never sync, whatever is asked.
 *
 * Requests take, when the statement sets none of its own, the session's
 * consistency levels (from the cluster) and a timestamp from the cluster's
 * client-side generator (none: the engine assigns its strictly increasing
 * write timestamps).
 *
 * Also here: cassette.h's session extensions (virtual clock, reset,
 * snapshot), with LMDB-style int returns.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cassette.h"
#include "cql/driver/driver_int.h"

/* ---- the session object ---- */

enum session_state { ST_CLOSED, ST_CONNECTING, ST_CONNECTED, ST_CLOSING };

/* An executor session and the keyspace generation it is on. */
typedef struct exec_slot {
    cql_session *s;
    uint64_t gen;           /* SLOT_GEN_UNKNOWN: its keyspace must be set again */
    struct exec_slot *next; /* idle list */
} exec_slot;

#define SLOT_GEN_UNKNOWN UINT64_MAX

typedef struct session_impl {
    CassSession pub;      /* first: a CassSession * is a session_impl *; pub.lock guards all */
    pthread_cond_t cond;  /* state changes, `active` falling to 0 */
    int state;            /* enum session_state */
    unsigned active;      /* requests using pub.db right now */
    CassCluster *cluster; /* the copy connected with (NULL while closed) */
    char *keyspace;       /* the session's keyspace, NULL before the first USE */
    uint64_t ks_gen;      /* bumped at every keyspace change; 0 = no keyspace */
    exec_slot *idle;      /* executor sessions free for a request */
} session_impl;

static session_impl *impl_of(const CassSession *s)
{
    return (session_impl *)(uintptr_t)s;
}

/* A version 4 UUID in the driver's two-number form (see CassUuid). */
static CassUuid random_uuid(void)
{
    uint8_t b[16];
    eng_uuid_random(b);
    CassUuid u;
    cql_drv_uuid_from_bytes(b, &u);
    return u;
}

CassSession *cass_session_new(void)
{
    session_impl *si = eng_calloc(1, sizeof *si);
    if (!si)
        return NULL;
    if (pthread_mutex_init(&si->pub.lock, NULL)) {
        eng_free(si);
        return NULL;
    }
    if (pthread_cond_init(&si->cond, NULL)) {
        pthread_mutex_destroy(&si->pub.lock);
        eng_free(si);
        return NULL;
    }
    si->state = ST_CLOSED;
    si->pub.client_id = random_uuid();
    si->pub.consistency = CASS_CONSISTENCY_LOCAL_ONE;
    si->pub.serial_consistency = CASS_CONSISTENCY_ANY;
    return &si->pub;
}

/* ---- errors ---- */

static void fail_with(CassFuture *f, CassError code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_with(CassFuture *f, CassError code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cql_drv_future_set_error(f, code, msg, NULL);
}

/* An eng_err carrying an allocation failure. */
static int nomem(eng_err *err, const char *what)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory %s", what);
}

/* ---- requests: keeping the database open while they run ---- */

/* Registers a request on a connected session; *db stays open until end_request. */
static int begin_request(session_impl *si, eng_db **db)
{
    pthread_mutex_lock(&si->pub.lock);
    if (si->state != ST_CONNECTED || !si->pub.db) {
        pthread_mutex_unlock(&si->pub.lock);
        return -1;
    }
    si->active++;
    *db = si->pub.db;
    pthread_mutex_unlock(&si->pub.lock);
    return 0;
}

/* Under the lock. Only a close waits for `active` to fall to 0 (it set ST_CLOSING first). */
static void end_request_locked(session_impl *si)
{
    if (--si->active == 0 && si->state == ST_CLOSING)
        pthread_cond_broadcast(&si->cond);
}

static void end_request(session_impl *si)
{
    pthread_mutex_lock(&si->pub.lock);
    end_request_locked(si);
    pthread_mutex_unlock(&si->pub.lock);
}

static void fail_not_connected(CassFuture *f)
{
    /* The driver's words and code for a request on a session that is not connected. */
    cql_drv_future_set_error(f, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, "Session is not connected",
                             NULL);
}

/* ---- executor sessions ---- */

static void slot_free(exec_slot *slot)
{
    if (slot) {
        cql_session_free(slot->s);
        eng_free(slot);
    }
}

/* `USE "ks"`, quoted as the driver quotes it: the name is the keyspace's exact one. */
static int use_keyspace(cql_session *s, const char *ks, size_t len, cql_result **out, eng_err *err)
{
    eng_buf q = ENG_BUF_INIT;
    eng_buf_put_str(&q, "USE \"");
    for (size_t i = 0; i < len; i++) {
        if (ks[i] == '"')
            eng_buf_put_u8(&q, '"');
        eng_buf_put_u8(&q, (uint8_t)ks[i]);
    }
    eng_buf_put_u8(&q, '"');
    int rc = q.oom ? eng_errorf(err, ENG_E_NOMEM, "out of memory setting the keyspace")
                   : cql_query(s, (const char *)q.p, q.len, NULL, out, err);
    eng_buf_free(&q);
    return rc;
}

/*
 * Ends a request begun by start_request, under one lock: gives the executor
 * session back (slot may be NULL) and unregisters the request. A SET_KEYSPACE
 * result moves the session's keyspace on.
 */
static void finish_request(session_impl *si, exec_slot *slot, const cql_result *r)
{
    char *ks = NULL;
    if (slot && r && r->kind == CQL_RESULT_SET_KEYSPACE && r->keyspace)
        ks = eng_strdup(r->keyspace); /* on OOM the keyspace stays; the slot is resynced */
    pthread_mutex_lock(&si->pub.lock);
    if (slot) {
        if (ks) {
            eng_free(si->keyspace);
            si->keyspace = ks;
            slot->gen = ++si->ks_gen;
        } else if (r && r->kind == CQL_RESULT_SET_KEYSPACE) {
            slot->gen = SLOT_GEN_UNKNOWN;
        }
        slot->next = si->idle;
        si->idle = slot;
    }
    end_request_locked(si);
    pthread_mutex_unlock(&si->pub.lock);
}

/*
 * Starts a request: registers it on a connected session (its database stays
 * open until finish_request) and borrows an executor session on the
 * session's current keyspace, both under one lock. A pooled executor session
 * that is behind runs USE first; if that fails (the keyspace was dropped)
 * the request runs on a fresh executor session without a keyspace rather
 * than on the wrong one, and the next request tries again. Returns 0 (finish
 * it with finish_request), NOT_CONNECTED, or an engine code in err; on
 * failure there is nothing to finish.
 */
#define NOT_CONNECTED (-1)

static int start_request(session_impl *si, eng_db **db_out, exec_slot **out, eng_err *err)
{
    *out = NULL;
    pthread_mutex_lock(&si->pub.lock);
    if (si->state != ST_CONNECTED || !si->pub.db) {
        pthread_mutex_unlock(&si->pub.lock);
        return NOT_CONNECTED;
    }
    si->active++;
    eng_db *db = *db_out = si->pub.db;
    exec_slot *slot = si->idle;
    if (slot)
        si->idle = slot->next;
    uint64_t gen = si->ks_gen;
    char *ks = NULL;
    int oom = 0;
    if (si->keyspace && (!slot || slot->gen != gen))
        oom = !(ks = eng_strdup(si->keyspace));
    pthread_mutex_unlock(&si->pub.lock);
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
        if ((rc = cql_session_new(db, &slot->s, err))) {
            eng_free(slot);
            slot = NULL;
            goto fail;
        }
        slot->gen = 0; /* no keyspace yet */
    }
    if (slot->gen != gen) {
        eng_err ignored;
        eng_err_clear(&ignored);
        if (ks && use_keyspace(slot->s, ks, strlen(ks), NULL, &ignored) == 0) {
            slot->gen = gen;
        } else {
            /* No USE can take a session back to "no keyspace", and a failed one leaves the
               old keyspace: start over from a fresh executor session. */
            cql_session *fresh;
            if ((rc = cql_session_new(db, &fresh, err))) {
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
    finish_request(si, slot, NULL); /* a pooled slot goes back as it was */
    return rc;
}

/* ---- connect ---- */

/* One contact point of a comma-separated list, spaces around it dropped. */
typedef struct entry {
    const char *p;
    size_t len;
} entry;

/* Next entry at or after *pos; 0 when none is left. Empty entries are skipped. */
static int next_entry(const char *list, size_t *pos, entry *e)
{
    size_t n = strlen(list);
    while (*pos <= n) {
        size_t start = *pos, end = start;
        while (end < n && list[end] != ',')
            end++;
        *pos = end + 1;
        size_t s = start, t = end;
        while (s < t && (list[s] == ' ' || list[s] == '\t' || list[s] == '\n' || list[s] == '\r'))
            s++;
        while (t > s && (list[t - 1] == ' ' || list[t - 1] == '\t' || list[t - 1] == '\n' ||
                         list[t - 1] == '\r'))
            t--;
        if (t > s) {
            e->p = list + s;
            e->len = t - s;
            return 1;
        }
    }
    return 0;
}

static int has_prefix(const entry *e, const char *prefix)
{
    size_t n = strlen(prefix);
    return e->len >= n && strncasecmp(e->p, prefix, n) == 0;
}

static int durability_from_env(int *out, CassFuture *f)
{
    const char *d = getenv("CASSETTE_DURABILITY");
    *out = ENG_DURABLE_SYNC;
    if (!d || !*d || eng_durability_parse(d, out) == 0)
        return 0;
    fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
              "CASSETTE_DURABILITY must be sync, nometasync, periodic or none, not '%.100s'", d);
    return -1;
}

/*
 * Opens the database the contact points name. On failure the future is failed
 * with the driver's code and a message saying why, and -1 is returned.
 */
static int open_target(const CassCluster *c, eng_db **db, CassFuture *f)
{
    *db = NULL;
    const char *uri = getenv("CASSETTE_URI");
    int from_env = uri && *uri;
    const char *list = from_env ? uri : (c->contact_points ? c->contact_points : "");
    const char *origin = from_env ? " (from CASSETTE_URI)" : "";

    size_t pos = 0, count = 0;
    entry e, embedded = {NULL, 0};
    while (next_entry(list, &pos, &e)) {
        count++;
        if (!embedded.p && (has_prefix(&e, "file:") || has_prefix(&e, "memory:")))
            embedded = e;
    }
    if (count == 0) {
        fail_with(f, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE,
                  "No hosts provided or no hosts resolved: set a contact point (file:DIR or "
                  "memory: for an embedded database)");
        return -1;
    }
    if (!embedded.p) {
        fail_with(f, CASS_ERROR_LIB_NO_HOSTS_AVAILABLE,
                  "Cannot connect to %.400s%s: the remote backend is not available yet; use the "
                  "contact point file:DIR or memory: for an embedded database",
                  list, origin);
        return -1;
    }
    if (count > 1) {
        fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                  "The contact point '%.*s'%s must be the only one (contact points: %.400s)",
                  (int)ENG_MIN(embedded.len, 400), embedded.p, origin, list);
        return -1;
    }
    eng_db_options opts;
    int durability_set;
    cql_drv_cluster_db_options(c, &opts, &durability_set);
    eng_err err;
    eng_err_clear(&err);
    int rc;
    if (has_prefix(&embedded, "memory:")) {
        if (embedded.len != strlen("memory:")) {
            fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                      "Unknown contact point '%.*s'%s: an in-memory database is 'memory:'",
                      (int)ENG_MIN(embedded.len, 400), embedded.p, origin);
            return -1;
        }
        /* Nothing survives the last close: syncing would only cost time. */
        opts.durability = ENG_DURABLE_NONE;
        rc = eng_db_open_temp(&opts, db, &err);
    } else {
        size_t n = embedded.len - strlen("file:");
        if (n == 0) {
            fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT,
                      "The contact point 'file:'%s names no database directory (file:DIR)", origin);
            return -1;
        }
        /* The application's explicit choice wins; the variable is the default for code
           that makes none. */
        if (!durability_set && durability_from_env(&opts.durability, f))
            return -1;
        char *dir = eng_strndup(embedded.p + strlen("file:"), n);
        if (!dir) {
            fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "out of memory opening the database");
            return -1;
        }
        rc = eng_db_open(dir, &opts, db, &err);
        eng_free(dir);
    }
    if (rc) {
        *db = NULL;
        fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "%s", err.msg[0] ? err.msg : "cannot open");
        return -1;
    }
    return 0;
}

/* Frees what a connected session holds; the caller owns the fields it passes. */
static void teardown(exec_slot *idle, eng_db *db, CassCluster *cluster, char *keyspace,
                     CassTimestampGen *gen)
{
    while (idle) {
        exec_slot *next = idle->next;
        slot_free(idle);
        idle = next;
    }
    eng_db_close(db);
    cass_cluster_free(cluster);
    eng_free(keyspace);
    cass_timestamp_gen_free(gen);
}

static CassFuture *connect_keyspace(CassSession *session, const CassCluster *cluster,
                                    const char *keyspace, size_t keyspace_len)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_SESSION);
    if (!session || !cluster) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no cluster given");
        return f;
    }
    session_impl *si = impl_of(session);
    pthread_mutex_lock(&si->pub.lock);
    if (si->state != ST_CLOSED) {
        pthread_mutex_unlock(&si->pub.lock);
        fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "Already connecting, closing, or connected");
        return f;
    }
    si->state = ST_CONNECTING;
    pthread_mutex_unlock(&si->pub.lock);

    eng_db *db = NULL;
    exec_slot *slot = NULL;
    CassCluster *copy = cql_drv_cluster_copy(cluster);
    int failed = 0;
    if (!copy) {
        fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CONNECT, "out of memory connecting");
        failed = 1;
    } else if (open_target(copy, &db, f)) {
        failed = 1;
    }
    char *ks = NULL;
    uint64_t gen = 0;
    if (!failed && keyspace && keyspace_len) {
        /* The driver's connections start with USE "ks"; failing it fails the connect. */
        eng_err err;
        eng_err_clear(&err);
        slot = eng_calloc(1, sizeof *slot);
        cql_result *r = NULL;
        int rc = slot ? cql_session_new(db, &slot->s, &err)
                      : eng_errorf(&err, ENG_E_NOMEM, "out of memory setting the keyspace");
        if (!rc)
            rc = use_keyspace(slot->s, keyspace, keyspace_len, &r, &err);
        if (!rc && r && r->keyspace && !(ks = eng_strdup(r->keyspace)))
            rc = eng_errorf(&err, ENG_E_NOMEM, "out of memory setting the keyspace");
        cql_result_free(r);
        if (rc) {
            fail_with(f, CASS_ERROR_LIB_UNABLE_TO_SET_KEYSPACE, "%s", err.msg);
            failed = 1;
        } else {
            gen = 1;
            slot->gen = gen;
        }
    }
    if (failed) {
        teardown(slot, db, copy, ks, NULL);
        pthread_mutex_lock(&si->pub.lock);
        si->state = ST_CLOSED;
        pthread_cond_broadcast(&si->cond);
        pthread_mutex_unlock(&si->pub.lock);
        return f;
    }
    pthread_mutex_lock(&si->pub.lock);
    si->pub.db = db;
    si->pub.s = NULL;
    si->pub.consistency = copy->consistency;
    si->pub.serial_consistency = copy->serial_consistency;
    si->pub.timestamp_gen = cql_drv_timestamp_gen_ref(copy->timestamp_gen);
    if (copy->has_client_id)
        si->pub.client_id = copy->client_id;
    si->cluster = copy;
    si->keyspace = ks;
    si->ks_gen = gen;
    si->idle = slot;
    si->active = 0;
    si->state = ST_CONNECTED;
    pthread_cond_broadcast(&si->cond);
    pthread_mutex_unlock(&si->pub.lock);
    cql_drv_future_set_done(f);
    return f;
}

CassFuture *cass_session_connect(CassSession *session, const CassCluster *cluster)
{
    return connect_keyspace(session, cluster, NULL, 0);
}

CassFuture *cass_session_connect_keyspace(CassSession *session, const CassCluster *cluster,
                                          const char *keyspace)
{
    return connect_keyspace(session, cluster, keyspace, keyspace ? strlen(keyspace) : 0);
}

CassFuture *cass_session_connect_keyspace_n(CassSession *session, const CassCluster *cluster,
                                            const char *keyspace, size_t keyspace_length)
{
    return connect_keyspace(session, cluster, keyspace, keyspace ? keyspace_length : 0);
}

/* ---- close / free ---- */

/* Closes a connected session once its requests are done; -1 if it was not connected. */
static int close_session(session_impl *si)
{
    pthread_mutex_lock(&si->pub.lock);
    while (si->state == ST_CONNECTING)
        pthread_cond_wait(&si->cond, &si->pub.lock);
    if (si->state != ST_CONNECTED) {
        pthread_mutex_unlock(&si->pub.lock);
        return -1;
    }
    si->state = ST_CLOSING;
    while (si->active > 0)
        pthread_cond_wait(&si->cond, &si->pub.lock);
    exec_slot *idle = si->idle;
    eng_db *db = si->pub.db;
    CassCluster *cluster = si->cluster;
    char *ks = si->keyspace;
    CassTimestampGen *gen = si->pub.timestamp_gen;
    si->idle = NULL;
    si->pub.db = NULL;
    si->pub.timestamp_gen = NULL;
    si->cluster = NULL;
    si->keyspace = NULL;
    si->ks_gen = 0;
    pthread_mutex_unlock(&si->pub.lock);

    teardown(idle, db, cluster, ks, gen);

    pthread_mutex_lock(&si->pub.lock);
    si->state = ST_CLOSED;
    pthread_cond_broadcast(&si->cond);
    pthread_mutex_unlock(&si->pub.lock);
    return 0;
}

CassFuture *cass_session_close(CassSession *session)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_SESSION);
    if (!session || close_session(impl_of(session)))
        fail_with(f, CASS_ERROR_LIB_UNABLE_TO_CLOSE, "Already closing or closed");
    else
        cql_drv_future_set_done(f);
    return f;
}

void cass_session_free(CassSession *session)
{
    if (!session)
        return;
    session_impl *si = impl_of(session);
    close_session(si);
    /* A close running in another thread finishes first. */
    pthread_mutex_lock(&si->pub.lock);
    while (si->state != ST_CLOSED)
        pthread_cond_wait(&si->cond, &si->pub.lock);
    pthread_mutex_unlock(&si->pub.lock);
    pthread_cond_destroy(&si->cond);
    pthread_mutex_destroy(&si->pub.lock);
    eng_free(si);
}

/* ---- prepare ---- */

/* Prepares query; statements bound from the result inherit `settings` (may be NULL). */
static CassFuture *prepare_text(CassSession *session, const char *query, size_t len,
                                const CassStatement *settings)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_PREPARE);
    if (!session || !query) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no query given");
        return f;
    }
    session_impl *si = impl_of(session);
    eng_db *db;
    eng_err err;
    eng_err_clear(&err);
    exec_slot *slot;
    cql_prepared *p = NULL;
    int rc = start_request(si, &db, &slot, &err);
    if (rc == NOT_CONNECTED) {
        fail_not_connected(f);
        return f;
    }
    if (!rc) {
        rc = cql_prepare(slot->s, query, len, &p, &err);
        finish_request(si, slot, NULL);
    }
    if (rc)
        cql_drv_future_fail(f, &err);
    else
        /* NULL on OOM (p released) fails f */
        cql_drv_future_set_prepared(f, cql_drv_prepared_new_from(p, settings));
    return f;
}

CassFuture *cass_session_prepare(CassSession *session, const char *query)
{
    return prepare_text(session, query, query ? strlen(query) : 0, NULL);
}

CassFuture *cass_session_prepare_n(CassSession *session, const char *query, size_t query_length)
{
    return prepare_text(session, query, query_length, NULL);
}

CassFuture *cass_session_prepare_from_existing(CassSession *session, CassStatement *statement)
{
    if (statement && statement->prepared && statement->prepared->p) {
        const char *q = cql_prepared_query(statement->prepared->p);
        return prepare_text(session, q, q ? strlen(q) : 0, statement);
    }
    if (statement && statement->query)
        return prepare_text(session, statement->query, statement->query_len, statement);
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_PREPARE);
    fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No statement given");
    return f;
}

/* ---- execute ---- */

/* Values a request passes to the executor from the stack; more take an allocation. */
#define STACK_VALUES 16

/* The failure of cql_drv_statement_options: a CassError, or an engine code. */
static void options_error(int rc, eng_err *err)
{
    if (((unsigned)rc >> 24) != 0)
        eng_errorf(err, ENG_E_INVALID, "%s", cass_error_desc((CassError)rc));
    else if (rc == ENG_E_NOMEM)
        eng_errorf(err, rc, "out of memory binding the statement's values");
    else
        eng_errorf(err, rc, "cannot bind the statement's values");
}

/*
 * The values of a simple statement in marker order. Bound by name, each marker
 * takes the value bound under exactly its name: the driver sends names as the
 * application wrote them and Cassandra's QueryOptions with names compares them
 * with String.equals, so "K" does not reach the marker of column k. A marker
 * no name reaches leaves the count short, and the counts must agree.
 */
static int simple_values(const CassStatement *st, cql_prepared *p, cql_exec_options *o,
                         eng_val **mapped, eng_err *err)
{
    *mapped = NULL;
    uint32_t n = cql_prepared_bind_count(p);
    int named = 0;
    for (size_t j = 0; st->names && j < st->n_values; j++)
        named |= st->names[j] != NULL;
    if (named) {
        eng_val *v = eng_calloc(n ? n : 1, sizeof *v);
        if (!v)
            return eng_errorf(err, ENG_E_NOMEM, "out of memory binding values");
        for (uint32_t i = 0; i < n; i++) {
            const cql_column_spec *spec = cql_prepared_bind(p, i);
            size_t j = 0;
            while (j < st->n_values && j < o->n_values &&
                   !(st->names[j] && spec && spec->name && strcmp(spec->name, st->names[j]) == 0))
                j++;
            if (j == st->n_values || j >= o->n_values) {
                eng_free(v);
                return eng_errorf(err, ENG_E_INVALID, "Invalid amount of bind variables");
            }
            v[i] = o->values[j];
        }
        *mapped = v;
        o->values = v;
        o->n_values = n;
        return 0;
    }
    /* QueryProcessor.process words the count check this way for QUERY messages. */
    if (o->n_values != n)
        return eng_errorf(err, ENG_E_INVALID, "Invalid amount of bind variables");
    return 0;
}

/* Consistency levels and timestamp a request takes when the statement sets none. */
static void apply_defaults(const session_impl *si, CassConsistency consistency,
                           CassConsistency serial, int64_t timestamp, cql_exec_options *o)
{
    o->consistency =
        consistency != CASS_CONSISTENCY_UNKNOWN ? (int)consistency : (int)si->pub.consistency;
    if (serial != CASS_CONSISTENCY_UNKNOWN && serial != CASS_CONSISTENCY_ANY)
        o->serial_consistency = (int)serial;
    else if (si->pub.serial_consistency != CASS_CONSISTENCY_UNKNOWN &&
             si->pub.serial_consistency != CASS_CONSISTENCY_ANY)
        o->serial_consistency = (int)si->pub.serial_consistency;
    o->timestamp =
        timestamp != ENG_TS_NONE ? timestamp : cql_drv_timestamp_next(si->pub.timestamp_gen);
}

/*
 * Prepares (simple) or references (bound) the statement and fills its options.
 * The values' views go to buf when they fit its buf_n entries, else to *vals.
 * *p, *vals and *mapped are the caller's to release (also on failure).
 */
static int statement_request(const session_impl *si, exec_slot *slot, const CassStatement *st,
                             cql_prepared **p, cql_exec_options *o, eng_val *buf, size_t buf_n,
                             eng_val **vals, eng_val **mapped, eng_err *err)
{
    *p = NULL;
    *vals = NULL;
    *mapped = NULL;
    int rc;
    if (st->prepared) {
        if (!st->prepared->p)
            return eng_errorf(err, ENG_E_INVALID, "The prepared statement is not valid");
        *p = cql_prepared_ref(st->prepared->p);
    } else {
        if (!st->query)
            return eng_errorf(err, ENG_E_SYNTAX, "The statement has no query");
        if ((rc = cql_prepare(slot->s, st->query, st->query_len, p, err)))
            return rc;
    }
    if ((rc = cql_drv_statement_options(st, o, buf, buf_n, vals))) {
        options_error(rc, err);
        return err->code;
    }
    if (!st->prepared && (rc = simple_values(st, *p, o, mapped, err)))
        return rc;
    apply_defaults(si, st->consistency, st->serial_consistency, st->timestamp, o);
    return 0;
}

/* ---- writes that complete at their group commit ---- */

/*
 * On a database with group commit (a syncing durability), a plain write is
 * queued and its future set by the committer once the write is durable, so
 * that one thread can have many writes in flight (the driver's pipelining)
 * and they share syncs. The pending write keeps a request registered on the
 * session, so a close waits for it and the database stays open until then.
 */
typedef struct durable_wait {
    session_impl *si;
    CassFuture *f; /* a reference of its own */
} durable_wait;

static void write_durable(int rc, const eng_err *err, const eng_write_info *info, void *arg)
{
    durable_wait *w = arg;
    (void)info;
    if (rc)
        cql_drv_future_fail(w->f, err);
    else
        cql_drv_future_set_result(w->f, cql_drv_result_new(NULL)); /* a write's VOID result */
    cass_future_free(w->f);
    end_request(w->si);
    eng_free(w);
}

/* Arms o for a write that may complete later; NULL (synchronous) without group commit. */
static durable_wait *arm_durable(session_impl *si, eng_db *db, CassFuture *f, cql_exec_options *o)
{
    if (!eng_db_group_commit(db))
        return NULL;
    durable_wait *w = eng_malloc(sizeof *w);
    if (!w)
        return NULL; /* the write then waits for its commit */
    w->si = si;
    w->f = cql_drv_future_ref(f);
    pthread_mutex_lock(&si->pub.lock);
    si->active++; /* ended by write_durable, or by disarm_durable */
    pthread_mutex_unlock(&si->pub.lock);
    o->on_durable = write_durable;
    o->on_durable_arg = w;
    return w;
}

/* After the execution: 1 when the write went to the group commit (its callback sets f). */
static int disarm_durable(durable_wait *w, int rc, const cql_result *r)
{
    if (!w)
        return 0;
    if (!rc && r && r->pending)
        return 1;
    cass_future_free(w->f);
    end_request(w->si);
    eng_free(w);
    return 0;
}

CassFuture *cass_session_execute(CassSession *session, const CassStatement *statement)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_RESULT);
    if (!session || !statement) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no statement given");
        return f;
    }
    session_impl *si = impl_of(session);
    eng_db *db;
    eng_err err;
    eng_err_clear(&err);
    exec_slot *slot;
    cql_result *r = NULL;
    int rc = start_request(si, &db, &slot, &err);
    if (rc == NOT_CONNECTED) {
        fail_not_connected(f);
        return f;
    }
    if (!rc) {
        cql_prepared *p;
        cql_exec_options o;
        eng_val buf[STACK_VALUES], *vals, *mapped;
        rc =
            statement_request(si, slot, statement, &p, &o, buf, STACK_VALUES, &vals, &mapped, &err);
        durable_wait *w = rc ? NULL : arm_durable(si, db, f, &o);
        if (!rc)
            rc = cql_execute(slot->s, p, &o, &r, &err);
        int pending = disarm_durable(w, rc, r);
        eng_free(mapped);
        eng_free(vals);
        cql_prepared_unref(p);
        finish_request(si, slot, rc ? NULL : r);
        if (pending) {
            cql_result_free(r);
            return f;
        }
    }
    if (rc) {
        cql_result_free(r);
        cql_drv_future_fail(f, &err);
    } else {
        cql_drv_future_set_result(f, cql_drv_result_new(r)); /* NULL on OOM fails f */
    }
    return f;
}

CassFuture *cass_session_execute_batch(CassSession *session, const CassBatch *batch)
{
    CassFuture *f = cql_drv_future_new(CQL_DRV_FUTURE_RESULT);
    if (!session || !batch || (batch->n && !batch->stmts)) {
        fail_with(f, CASS_ERROR_LIB_BAD_PARAMS, "No session or no batch given");
        return f;
    }
    for (size_t i = 0; i < batch->n; i++) {
        const CassStatement *st = batch->stmts[i];
        for (size_t j = 0; st && !st->prepared && st->names && j < st->n_values; j++)
            if (st->names[j]) {
                /* The protocol's BATCH has no names for values: the driver refuses them. */
                fail_with(f, CASS_ERROR_LIB_BAD_PARAMS,
                          "Batches cannot contain queries with named values");
                return f;
            }
    }
    session_impl *si = impl_of(session);
    eng_db *db;
    eng_err err;
    eng_err_clear(&err);
    exec_slot *slot = NULL;
    int rc = start_request(si, &db, &slot, &err);
    if (rc == NOT_CONNECTED) {
        fail_not_connected(f);
        return f;
    }
    size_t n = batch->n;
    cql_prepared **ps = eng_calloc(n ? n : 1, sizeof *ps);
    cql_exec_options *os = eng_calloc(n ? n : 1, sizeof *os);
    eng_val **vals = eng_calloc(n ? n : 1, sizeof *vals);
    eng_val **mapped = eng_calloc(n ? n : 1, sizeof *mapped);
    cql_result *r = NULL;
    int pending = 0;
    if (!rc && (!ps || !os || !vals || !mapped))
        rc = eng_errorf(&err, ENG_E_NOMEM, "out of memory executing a batch");
    for (size_t i = 0; !rc && i < n; i++) {
        const CassStatement *st = batch->stmts[i];
        if (!st) {
            rc = eng_errorf(&err, ENG_E_INVALID, "The batch holds no statement at %zu", i);
            break;
        }
        rc = statement_request(si, slot, st, &ps[i], &os[i], NULL, 0, &vals[i], &mapped[i], &err);
        /* A BATCH message carries no per-statement timestamp or consistency. */
        os[i].timestamp = ENG_TS_NONE;
    }
    if (!rc) {
        cql_exec_options bo;
        cql_exec_options_init(&bo);
        apply_defaults(si, batch->consistency, batch->serial_consistency, batch->timestamp, &bo);
        for (size_t i = 0; i < n; i++) {
            os[i].consistency = bo.consistency;
            os[i].serial_consistency = bo.serial_consistency;
        }
        durable_wait *w = n ? arm_durable(si, db, f, &os[0]) : NULL;
        rc = cql_execute_batch(slot->s, (int)batch->type, ps, os, (uint32_t)n, bo.timestamp, &r,
                               &err);
        if (disarm_durable(w, rc, r)) {
            cql_result_free(r);
            r = NULL;
            pending = 1;
        }
    }
    if (slot)
        finish_request(si, slot, NULL);
    for (size_t i = 0; i < n; i++) {
        if (ps)
            cql_prepared_unref(ps[i]);
        if (vals)
            eng_free(vals[i]);
        if (mapped)
            eng_free(mapped[i]);
    }
    eng_free(ps);
    eng_free(os);
    eng_free(vals);
    eng_free(mapped);
    if (rc) {
        cql_result_free(r);
        cql_drv_future_fail(f, &err);
    } else if (!pending) {
        cql_drv_future_set_result(f, cql_drv_result_new(r));
    }
    return f;
}

/* ---- schema and client id ---- */

const CassSchemaMeta *cass_session_get_schema_meta(const CassSession *session)
{
    if (!session)
        return cql_drv_schema_meta_new(NULL);
    session_impl *si = impl_of(session);
    eng_db *db = NULL;
    pthread_mutex_lock(&si->pub.lock);
    if (si->state == ST_CONNECTED && si->pub.db && si->cluster && si->cluster->use_schema) {
        db = si->pub.db;
        si->active++;
    }
    pthread_mutex_unlock(&si->pub.lock);
    CassSchemaMeta *m = cql_drv_schema_meta_new(db);
    if (db)
        end_request(si);
    return m;
}

CassUuid cass_session_get_client_id(CassSession *session)
{
    CassUuid u = {0, 0};
    if (!session)
        return u;
    pthread_mutex_lock(&session->lock);
    u = session->client_id;
    pthread_mutex_unlock(&session->lock);
    return u;
}

/* ---- cassette.h extensions ---- */

/* Registers a request on the session and gives its database; returns 0 or a CassError. */
static int with_db(CassSession *session, eng_db **db)
{
    if (!session)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return begin_request(impl_of(session), db) ? CASS_ERROR_LIB_NO_HOSTS_AVAILABLE : 0;
}

static int engine_failure(const char *what, const eng_err *err)
{
    cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, what, "%s: %s", what, err->msg);
    return (int)cql_drv_error_of(err);
}

int cassette_session_clock_set(CassSession *session, int64_t unix_us)
{
    eng_db *db;
    int rc = with_db(session, &db);
    if (rc)
        return rc;
    eng_clock_set_virtual(eng_db_clock(db), unix_us);
    end_request(impl_of(session));
    return 0;
}

int cassette_session_clock_advance(CassSession *session, int64_t delta_us)
{
    eng_db *db;
    int rc = with_db(session, &db);
    if (rc)
        return rc;
    eng_clock *c = eng_db_clock(db);
    if (atomic_load(&c->is_virtual))
        eng_clock_advance(c, delta_us);
    else /* on real time: virtual time from now on, delta ahead */
        eng_clock_set_virtual(c, eng_clock_now_us(c) + delta_us);
    end_request(impl_of(session));
    return 0;
}

int cassette_session_clock_real(CassSession *session)
{
    eng_db *db;
    int rc = with_db(session, &db);
    if (rc)
        return rc;
    eng_clock_set_real(eng_db_clock(db));
    end_request(impl_of(session));
    return 0;
}

int cassette_session_reset(CassSession *session)
{
    eng_db *db;
    int rc = with_db(session, &db);
    if (rc)
        return rc;
    eng_err err;
    eng_err_clear(&err);
    if (eng_reset(db, &err))
        rc = engine_failure("cassette_session_reset", &err);
    end_request(impl_of(session));
    return rc;
}

int cassette_session_snapshot(CassSession *session, const char *dir)
{
    if (!dir || !*dir)
        return CASS_ERROR_LIB_BAD_PARAMS;
    eng_db *db;
    int rc = with_db(session, &db);
    if (rc)
        return rc;
    eng_err err;
    eng_err_clear(&err);
    if (eng_db_snapshot(db, dir, &err))
        rc = engine_failure("cassette_session_snapshot", &err);
    end_request(impl_of(session));
    return rc;
}
