/*
 * Futures of the driver API: the outcome of a connect, close, prepare or
 * execute. Embedded, the work runs in the calling thread, so a future is
 * normally set before the call that made it returns; the waiting functions
 * still wait, for futures a producer completes later (a group commit, the
 * remote backend).
 *
 * Guarantees, as the driver gives them:
 *  - A future is set once; its callback runs once, in the thread that sets
 *    it, or at once in the registering thread when it is already set.
 *  - Waiters in other threads wake only after the callback has returned, so
 *    they see what the callback did. A wait from inside the callback, in the
 *    setting thread, returns at once (the outcome is already stored), so a
 *    callback may read its own future.
 *  - The producer holds its own reference while it runs the callback, so the
 *    callback may free the future.
 *  - cass_future_get_result and cass_future_get_prepared return a new
 *    reference at each call (the future keeps its own until it is freed);
 *    cass_future_get_error_result returns a new copy at each call. Strings
 *    read from the future live until it is freed.
 *  - When memory runs out making a future, one shared, already-failed future
 *    stands in for it, so no API call ever returns a NULL future.
 *
 * Embedded, nobody ever waits: the future is set before the caller sees it.
 * So the condition variable is made only by the first thread that must wait
 * (under the lock; the setter broadcasts only when there is one, after
 * unlocking, so that a woken waiter does not block again on the lock the
 * setter still holds: one wake-up and one context switch per waiter, not
 * two; the setter keeps a reference across the broadcast), a future
 * without a callback is set in one critical section, and once `ready` is 1
 * (an atomic, stored with release under the lock) the outcome never changes
 * again, so the getters read it without the lock.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "cql/driver/driver_int.h"

/* ---- the stand-in future for out-of-memory ---- */

static char oom_message[] = "out of memory";

static CassFuture oom_future = {
    .refs = 1,
    .kind = CQL_DRV_FUTURE_GENERIC,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .ready = 1,
    .code = CASS_ERROR_LIB_INTERNAL_ERROR,
    .message = oom_message,
};

static pthread_once_t oom_once = PTHREAD_ONCE_INIT;

/* The code is whatever cql/driver/error.c gives an allocation failure, like every other OOM. */
static void oom_init(void)
{
    eng_err e;
    eng_err_clear(&e);
    eng_errorf(&e, ENG_E_NOMEM, "out of memory");
    oom_future.code = cql_drv_error_of(&e);
}

static CassFuture *oom(void)
{
    pthread_once(&oom_once, oom_init);
    return &oom_future;
}

/* ---- the futures this thread is setting (a callback may set further futures) ---- */

typedef struct setting_frame {
    const CassFuture *f;
    struct setting_frame *prev;
} setting_frame;

static _Thread_local setting_frame *setting_top;

static int set_by_this_thread(const CassFuture *f)
{
    for (const setting_frame *fr = setting_top; fr; fr = fr->prev)
        if (fr->f == f)
            return 1;
    return 0;
}

/* ---- error results ---- */

void cql_drv_error_result_destroy(CassErrorResult *e)
{
    if (!e)
        return;
    eng_free(e->keyspace);
    eng_free(e->table);
    eng_free(e->function);
    for (size_t i = 0; e->arg_types && i < e->n_arg_types; i++)
        eng_free(e->arg_types[i]);
    eng_free(e->arg_types);
    eng_free(e);
}

static int dup_opt(const char *s, char **out)
{
    *out = NULL;
    if (!s)
        return 0;
    *out = eng_strdup(s);
    return *out ? 0 : -1;
}

CassErrorResult *cql_drv_error_result_copy(const CassErrorResult *e)
{
    if (!e)
        return NULL;
    CassErrorResult *c = eng_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *e;
    c->keyspace = c->table = c->function = NULL;
    c->arg_types = NULL;
    c->n_arg_types = 0;
    if (dup_opt(e->keyspace, &c->keyspace) || dup_opt(e->table, &c->table) ||
        dup_opt(e->function, &c->function))
        goto fail;
    if (e->n_arg_types && e->arg_types) {
        c->arg_types = eng_calloc(e->n_arg_types, sizeof *c->arg_types);
        if (!c->arg_types)
            goto fail;
        c->n_arg_types = e->n_arg_types;
        for (size_t i = 0; i < e->n_arg_types; i++)
            if (dup_opt(e->arg_types[i], &c->arg_types[i]))
                goto fail;
    }
    return c;
fail:
    cql_drv_error_result_destroy(c);
    return NULL;
}

/* The server-side details of a failure; embedded, only ALREADY_EXISTS has extras. */
static CassErrorResult *error_result_new(CassError code, const eng_err *err)
{
    CassErrorResult *e = eng_calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->code = code;
    e->consistency = CASS_CONSISTENCY_UNKNOWN;
    e->write_type = CASS_WRITE_TYPE_UNKNOWN;
    e->data_present = cass_false;
    if (err && code == CASS_ERROR_SERVER_ALREADY_EXISTS) {
        /* Cassandra's AlreadyExistsException: the keyspace, and "" as table for a keyspace. */
        if (dup_opt(err->ks, &e->keyspace) || dup_opt(err->table, &e->table)) {
            cql_drv_error_result_destroy(e);
            return NULL;
        }
    }
    return e;
}

/* ---- life cycle ---- */

CassFuture *cql_drv_future_new(cql_drv_future_kind kind)
{
    CassFuture *f = eng_calloc(1, sizeof *f);
    if (!f)
        return oom();
    if (pthread_mutex_init(&f->lock, NULL)) {
        eng_free(f);
        return oom();
    }
    atomic_init(&f->refs, 1);
    atomic_init(&f->ready, 0);
    f->kind = kind;
    f->code = CASS_OK;
    return f;
}

/*
 * Under the lock: makes the condition variable the first time a thread must
 * wait. Timed waits count on the monotonic clock, immune to wall-clock steps.
 * 0, or -1 when it cannot be made (the waiter then polls).
 */
static int need_cond(CassFuture *f)
{
    if (f->has_cond)
        return 0;
    pthread_condattr_t ca;
    int ok = pthread_condattr_init(&ca) == 0;
    if (ok)
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&f->cond, ok ? &ca : NULL);
    if (ok)
        pthread_condattr_destroy(&ca);
    if (rc)
        return -1;
    f->has_cond = 1;
    return 0;
}

/* Under the lock, when the cond cannot be made: lets the setter in for a millisecond. */
static void poll_unlocked(CassFuture *f)
{
    pthread_mutex_unlock(&f->lock);
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
    pthread_mutex_lock(&f->lock);
}

static int is_set(const CassFuture *f)
{
    return atomic_load_explicit(&((CassFuture *)f)->ready, memory_order_acquire) == 1;
}

CassFuture *cql_drv_future_ref(CassFuture *f)
{
    if (f && f != &oom_future)
        atomic_fetch_add(&f->refs, 1);
    return f;
}

static void destroy(CassFuture *f)
{
    if (f->result)
        cass_result_free(f->result);
    if (f->prepared)
        cql_drv_prepared_unref(f->prepared);
    cql_drv_error_result_destroy(f->error);
    eng_free(f->message);
    if (f->has_cond)
        pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->lock);
    eng_free(f);
}

void cass_future_free(CassFuture *future)
{
    if (!future || future == &oom_future)
        return;
    if (atomic_fetch_sub(&future->refs, 1) == 1)
        destroy(future);
}

/* ---- completion ---- */

/*
 * Stores the outcome (taking over result / prepared / error), runs the
 * callback, then marks the future set and wakes the waiters. A future set
 * already keeps its first outcome; what the second call brought is freed.
 */
static void complete(CassFuture *f, CassError code, const char *message, CassResult *result,
                     CassPrepared *prepared, CassErrorResult *error)
{
    if (!f || f == &oom_future) {
        if (result)
            cass_result_free(result);
        if (prepared)
            cql_drv_prepared_unref(prepared);
        cql_drv_error_result_destroy(error);
        return;
    }
    char *msg = NULL;
    if (code != CASS_OK) {
        msg = eng_strdup(message ? message : cass_error_desc(code));
        /* Without memory for the text the code still tells what failed. */
    }
    pthread_mutex_lock(&f->lock);
    if (atomic_load_explicit(&f->ready, memory_order_relaxed)) {
        pthread_mutex_unlock(&f->lock);
        eng_free(msg);
        if (result)
            cass_result_free(result);
        if (prepared)
            cql_drv_prepared_unref(prepared);
        cql_drv_error_result_destroy(error);
        return;
    }
    f->code = code;
    f->message = msg;
    f->result = result;
    f->prepared = prepared;
    f->error = error;
    CassFutureCallback cb = f->callback;
    void *data = f->callback_data;
    if (!cb) {
        /* No callback to wait for: set at once. A callback registered from now on runs in
           the registering thread (cass_future_set_callback sees ready). */
        atomic_store_explicit(&f->ready, 1, memory_order_release);
        int waiters = f->has_cond;
        if (waiters)
            atomic_fetch_add(&f->refs, 1); /* the waiter may free f once it sees ready */
        pthread_mutex_unlock(&f->lock);
        if (waiters) {
            pthread_cond_broadcast(&f->cond);
            cass_future_free(f);
        }
        return;
    }
    atomic_store_explicit(&f->ready, CQL_DRV_FUTURE_SETTING, memory_order_relaxed);
    /* The callback may free the caller's reference; ours keeps f alive until the end. */
    atomic_fetch_add(&f->refs, 1);
    pthread_mutex_unlock(&f->lock);

    setting_frame frame = {f, setting_top};
    setting_top = &frame;
    cb(f, data);
    setting_top = frame.prev;

    pthread_mutex_lock(&f->lock);
    atomic_store_explicit(&f->ready, 1, memory_order_release);
    int waiters = f->has_cond;
    pthread_mutex_unlock(&f->lock);
    if (waiters)
        pthread_cond_broadcast(&f->cond);
    cass_future_free(f);
}

void cql_drv_future_set_result(CassFuture *f, CassResult *r)
{
    if (!r) {
        eng_err e;
        eng_err_clear(&e);
        eng_errorf(&e, ENG_E_NOMEM, "out of memory building a result");
        cql_drv_future_fail(f, &e);
        return;
    }
    complete(f, CASS_OK, NULL, r, NULL, NULL);
}

void cql_drv_future_set_prepared(CassFuture *f, CassPrepared *p)
{
    if (!p) {
        eng_err e;
        eng_err_clear(&e);
        eng_errorf(&e, ENG_E_NOMEM, "out of memory preparing a statement");
        cql_drv_future_fail(f, &e);
        return;
    }
    complete(f, CASS_OK, NULL, NULL, p, NULL);
}

void cql_drv_future_set_done(CassFuture *f)
{
    complete(f, CASS_OK, NULL, NULL, NULL, NULL);
}

void cql_drv_future_set_error(CassFuture *f, CassError code, const char *message,
                              const eng_err *err)
{
    if (code == CASS_OK) /* a failure always carries a code */
        code = CASS_ERROR_LIB_INTERNAL_ERROR;
    if (!message || !*message)
        message = err && err->msg[0] ? err->msg : cass_error_desc(code);
    CassErrorResult *er = NULL;
    if (((unsigned)code >> 24) == CASS_ERROR_SOURCE_SERVER)
        er = error_result_new(code, err); /* NULL on OOM: the code and message remain */
    complete(f, code, message, NULL, NULL, er);
}

void cql_drv_future_fail(CassFuture *f, const eng_err *err)
{
    CassError code = err && err->code ? cql_drv_error_of(err) : CASS_ERROR_LIB_INTERNAL_ERROR;
    cql_drv_future_set_error(f, code, err ? err->msg : NULL, err);
}

/* ---- waiting ---- */

/*
 * Waits until set (or until the callback of this thread's own setting is running). Afterwards
 * the outcome fields can be read without the lock: they do not change once set.
 */
static void wait_set(CassFuture *f)
{
    if (is_set(f) || set_by_this_thread(f))
        return;
    pthread_mutex_lock(&f->lock);
    while (atomic_load_explicit(&f->ready, memory_order_relaxed) != 1) {
        if (need_cond(f) == 0)
            pthread_cond_wait(&f->cond, &f->lock);
        else
            poll_unlocked(f);
    }
    pthread_mutex_unlock(&f->lock);
}

void cass_future_wait(CassFuture *future)
{
    if (future)
        wait_set(future);
}

cass_bool_t cass_future_wait_timed(CassFuture *future, cass_duration_t timeout_us)
{
    if (!future)
        return cass_false;
    if (is_set(future) || set_by_this_thread(future))
        return cass_true;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    /* Far-future deadlines saturate instead of overflowing. */
    uint64_t max_s = (uint64_t)INT64_MAX / 2;
    uint64_t add_s = timeout_us / 1000000u;
    if (add_s > max_s)
        add_s = max_s;
    ts.tv_sec += (time_t)add_s;
    ts.tv_nsec += (long)(timeout_us % 1000000u) * 1000;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&future->lock);
    int rc = 0;
    while (atomic_load_explicit(&future->ready, memory_order_relaxed) != 1 && rc != ETIMEDOUT) {
        if (need_cond(future) == 0) {
            rc = pthread_cond_timedwait(&future->cond, &future->lock, &ts);
        } else {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec > ts.tv_sec || (now.tv_sec == ts.tv_sec && now.tv_nsec >= ts.tv_nsec))
                rc = ETIMEDOUT;
            else
                poll_unlocked(future);
        }
    }
    cass_bool_t set = atomic_load_explicit(&future->ready, memory_order_relaxed) == 1;
    pthread_mutex_unlock(&future->lock);
    return set;
}

cass_bool_t cass_future_ready(CassFuture *future)
{
    /* As the driver: a future becomes ready once its callback has returned. */
    return future && is_set(future) ? cass_true : cass_false;
}

CassError cass_future_set_callback(CassFuture *future, CassFutureCallback callback, void *data)
{
    if (!future || !callback)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (future == &oom_future) {
        /* Shared by every caller: nothing is stored, the callback runs now. */
        callback(future, data);
        return CASS_OK;
    }
    pthread_mutex_lock(&future->lock);
    if (future->callback) {
        pthread_mutex_unlock(&future->lock);
        return CASS_ERROR_LIB_CALLBACK_ALREADY_SET;
    }
    future->callback = callback;
    future->callback_data = data;
    /* Set (or being set, past the point where the setter looked for a callback): run it here. */
    int run_now = atomic_load_explicit(&future->ready, memory_order_relaxed) != 0;
    pthread_mutex_unlock(&future->lock);
    if (run_now)
        callback(future, data); /* may free the future: nothing touches it after */
    return CASS_OK;
}

/* ---- outcome ---- */

const CassResult *cass_future_get_result(CassFuture *future)
{
    if (!future)
        return NULL;
    wait_set(future);
    if (future->kind != CQL_DRV_FUTURE_RESULT || future->code != CASS_OK)
        return NULL;
    return (CassResult *)cql_drv_result_ref(future->result); /* the caller frees its reference */
}

const CassPrepared *cass_future_get_prepared(CassFuture *future)
{
    if (!future)
        return NULL;
    wait_set(future);
    CassPrepared *p = NULL;
    if (future->kind == CQL_DRV_FUTURE_PREPARE && future->code == CASS_OK) {
        p = future->prepared; /* a new reference at each call, as the driver's */
        if (p)
            atomic_fetch_add(&p->refs, 1);
    }
    return p;
}

const CassErrorResult *cass_future_get_error_result(CassFuture *future)
{
    if (!future)
        return NULL;
    wait_set(future);
    return cql_drv_error_result_copy(future->error);
}

CassError cass_future_error_code(CassFuture *future)
{
    if (!future)
        return CASS_ERROR_LIB_BAD_PARAMS;
    wait_set(future);
    return future->code;
}

void cass_future_error_message(CassFuture *future, const char **message, size_t *message_length)
{
    const char *m = "";
    if (future) {
        wait_set(future);
        if (future->code != CASS_OK)
            m = future->message ? future->message : cass_error_desc(future->code);
    }
    if (message)
        *message = m;
    if (message_length)
        *message_length = strlen(m);
}

/* ---- custom payload and coordinator ---- */

/* The result a request's future holds once set: NULL for another kind or a failure. */
static const cql_result *response_of(CassFuture *future)
{
    wait_set(future);
    if (future->kind != CQL_DRV_FUTURE_RESULT || future->code != CASS_OK || !future->result)
        return NULL;
    return future->result->r;
}

size_t cass_future_custom_payload_item_count(CassFuture *future)
{
    if (!future)
        return 0;
    const cql_result *r = response_of(future);
    return r ? r->n_payload : 0;
}

CassError cass_future_custom_payload_item(CassFuture *future, size_t index, const char **name,
                                          size_t *name_length, const cass_byte_t **value,
                                          size_t *value_size)
{
    if (!future)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (future->kind != CQL_DRV_FUTURE_RESULT)
        return CASS_ERROR_LIB_INVALID_FUTURE_TYPE;
    const cql_result *r = response_of(future);
    if (!r)
        return CASS_ERROR_LIB_NO_CUSTOM_PAYLOAD;
    if (index >= r->n_payload)
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    const eng_val *n = &r->payload_names[index], *v = &r->payload_vals[index];
    if (name)
        *name = (const char *)n->p;
    if (name_length)
        *name_length = (size_t)n->len;
    if (value)
        *value = v->len >= 0 ? v->p : NULL;
    if (value_size)
        *value_size = v->len >= 0 ? (size_t)v->len : 0;
    return CASS_OK;
}

CassError cass_future_tracing_id(CassFuture *future, CassUuid *tracing_id)
{
    if (!future || !tracing_id)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (future->kind != CQL_DRV_FUTURE_RESULT)
        return CASS_ERROR_LIB_INVALID_FUTURE_TYPE;
    const cql_result *r = response_of(future);
    if (!r || !r->has_tracing_id)
        return CASS_ERROR_LIB_NO_TRACING_ID;
    cql_drv_uuid_from_bytes(r->tracing_id, tracing_id);
    return CASS_OK;
}

/* The node that answered: remote, the host the request ran on; embedded, none (NULL). */
const CassNode *cass_future_coordinator(CassFuture *future)
{
    if (!future || future->kind != CQL_DRV_FUTURE_RESULT)
        return NULL;
    wait_set(future);
    return future->coordinator.address.address_length ? &future->coordinator : NULL;
}
