/*
 * Group commit. One sync costs ~115-200 µs on the machines cassette runs on,
 * so a durable write that commits alone cannot go faster than a few thousand
 * per second, whatever the engine does. When the database syncs (durability
 * SYNC, NOMETASYNC or PERIODIC), every write transaction is a job handed to
 * one committer thread per open database, which runs the jobs queued so far
 * in ONE LMDB write transaction and commits it with one sync, then completes
 * them all. The jobs queued while a group's jobs run join its transaction
 * before it commits (take_more): writers that each wait on their write are
 * woken one after the other by the previous group's completions, and those
 * woken last would otherwise wait a whole extra commit; a thread pipelining
 * futures keeps queueing while the group runs. Writers in other threads
 * wait on their job; a write queued with eng_apply_async does not wait, and
 * its completion runs in the committer thread once the transaction is
 * durable (the driver API's pipelined futures). With durability NONE there
 * is nothing to share and writes commit in the calling thread (write_direct
 * below). Every write of the engine enters here, through eng_write_txn /
 * eng_write_txn_exclusive.
 *
 * Invariants:
 *  - Jobs run in the order they were queued, directly in the group's
 *    transaction (those that joined it after the others). A job that fails
 *    on its own (an error of its body) is left out and the group runs again
 *    without it, on a fresh transaction: it leaves no trace and the others
 *    still commit. (Nested transactions would do the same without the
 *    rerun, but LMDB allocates and clears a child's page lists on every
 *    begin, which costs more than a whole plain write; failed jobs are rare,
 *    most errors being caught before a write is queued.) A job is
 *    completed only after the group's commit returned: nothing is
 *    acknowledged before it is durable, and nothing a job wrote is visible
 *    before then.
 *  - A full map or a schema reload restarts the whole group on a fresh
 *    transaction (after growing the map), as eng_write_txn does for one
 *    body: bodies are restartable by contract, and nothing was completed.
 *  - Exclusive jobs (schema changes) run alone: they open and drop
 *    sub-databases, whose handles an aborted transaction takes with it, so
 *    they must not share a transaction that another job's failure reruns;
 *    and the writes after them must see the new schema.
 *  - Reads never wait for a group: they run on their own read snapshots.
 *  - A job submitted from the committer thread itself (a completion that
 *    writes again) runs at once in that thread when it must be waited for,
 *    since the committer cannot wait for itself; when it need not be waited
 *    for, it is queued for the next group.
 *  - PERIODIC: groups commit with MDB_NOMETASYNC (the data pages are synced,
 *    the meta page is not), and the committer syncs the meta page at most
 *    `period` after a commit: a power loss undoes at most the writes of
 *    that last period, and never corrupts (LMDB's ordering is kept).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "engine/store/fault.h"
#include "engine/store/store_int.h"

#define GROUP_MAX 1024 /* jobs per transaction: bounds the latency of the first */

struct eng_committer {
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a job was queued, or stop */
    pthread_cond_t done;   /* a group was completed */
    eng_job *head, **tail; /* queued, in order */
    int stop;
    pthread_t thread;
    uint64_t period_ns;    /* PERIODIC: the longest a commit's meta page stays unsynced */
    int unsynced;          /* PERIODIC: a commit since the last meta sync */
    uint64_t unsynced_since_ns;
    uint64_t groups, jobs; /* counted for eng_db_commit_stats */
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- running one group ---- */

/* Before a run of the group: every job not left out starts afresh. */
static void reset_jobs(eng_job *jobs, size_t n)
{
    for (eng_job *j = jobs; n--; j = j->next)
        if (!j->left_out) {
            j->rc = 0;
            eng_err_clear(&j->err);
        }
}

static void fail_jobs(eng_job *jobs, size_t n, int rc, const eng_err *err)
{
    for (eng_job *j = jobs; n--; j = j->next) {
        j->rc = rc;
        j->err = *err;
    }
}

/* A job failed on its own: the group runs again without it. */
#define GROUP_RERUN 0x10102

/*
 * Runs the jobs not left out in txn, in order. Returns 0 when they all ran
 * (*applied counts them), ENG_MAP_FULL or ENG_RESTART when the whole group
 * must run again, or GROUP_RERUN when a job failed and was left out.
 */
static int run_jobs(eng_db *db, MDB_txn *txn, const eng_schema *cur, eng_job *jobs, size_t n,
                    int *applied)
{
    eng_job *j = jobs;
    for (size_t i = 0; i < n; i++, j = j->next) {
        if (j->left_out)
            continue;
        int rc = j->body(db, txn, cur, j->ctx, &j->err);
        if (rc == ENG_MAP_FULL || rc == ENG_RESTART)
            return rc;
        if (rc) {
            j->rc = rc;
            j->left_out = 1;
            return GROUP_RERUN;
        }
        (*applied)++;
    }
    return 0;
}

static int fault_error(eng_err *e)
{
    return eng_errorf(e, ENG_E_CORRUPT,
                      "database file is corrupted (LMDB faulted reading it during a write)");
}

typedef struct group_run {
    eng_db *db;
    MDB_txn *txn;
    eng_schema *cur;
    eng_job *jobs;
    size_t n;
    int applied;
} group_run;

/* The jobs' bodies, under eng_fault_run: 0, or why the group must run again. */
static int run_group_in(void *arg)
{
    group_run *g = arg;
    if (g->n == 1 && g->jobs->exclusive) {
        /* top level: the body may open and drop sub-databases */
        eng_job *j = g->jobs;
        j->rc = j->body(g->db, g->txn, g->cur, j->ctx, &j->err);
        g->applied = j->rc == 0;
        return j->rc == ENG_MAP_FULL || j->rc == ENG_RESTART ? j->rc : 0;
    }
    return run_jobs(g->db, g->txn, g->cur, g->jobs, g->n, &g->applied);
}

/*
 * Takes up to max jobs off the queue, under c->lock: an exclusive job alone, or the plain
 * jobs before the next exclusive one; none when plain_only and an exclusive job is first.
 * Returns how many, *first the first.
 */
static size_t take_jobs(eng_committer *c, eng_job **first, size_t max, int plain_only)
{
    eng_job *j = c->head;
    if (!j || (plain_only && j->exclusive))
        return 0;
    size_t n = 1;
    if (!j->exclusive)
        while (n < max && j->next && !j->next->exclusive) {
            j = j->next;
            n++;
        }
    *first = c->head;
    c->head = j->next;
    if (!c->head)
        c->tail = &c->head;
    j->next = NULL;
    return n;
}

/*
 * Takes up to max plain jobs off the queue for a group whose transaction is still open:
 * writes queued while the group's jobs ran join it rather than wait a whole commit for the
 * next. Returns how many, *first the first.
 */
static size_t take_more(eng_committer *c, eng_job **first, size_t max)
{
    pthread_mutex_lock(&c->lock);
    size_t n = take_jobs(c, first, max, 1);
    pthread_mutex_unlock(&c->lock);
    return n;
}

/*
 * Runs n jobs from `jobs` in one transaction (an exclusive job is always alone), with the
 * plain jobs queued meanwhile, appended to the list. Returns how many jobs the group holds.
 */
static size_t run_group(eng_db *db, eng_job *jobs, size_t n)
{
    eng_job *last = jobs;
    while (last->next)
        last = last->next;
    for (;;) {
        reset_jobs(jobs, n);
        eng_err e;
        eng_err_clear(&e);
        eng_resize_shared(db);
        MDB_txn *txn;
        int rc = eng_write_begin(db, &txn);
        if (rc) {
            eng_resize_shared_end(db);
            fail_jobs(jobs, n, eng_lmdb_err(&e, rc, "begin write transaction"), &e);
            return n;
        }
        eng_schema *cur = NULL;
        int stale = 0, again = 0, applied = 0;
        rc = eng_db_schema_in(db, txn, 0, &cur, &stale, &e);
        if (rc) {
            mdb_txn_abort(txn);
            eng_resize_shared_end(db);
            fail_jobs(jobs, n, rc, &e);
            return n;
        }
        group_run g = {db, txn, cur, jobs, n, 0};
        int faulted = 0;
        if (stale)
            again = ENG_RESTART;
        else
            faulted = eng_fault_run(run_group_in, &g, &again);
        applied = g.applied;
        /* the writes queued while these ran join the transaction (never an exclusive group) */
        size_t k;
        eng_job *more;
        while (!faulted && !again && !jobs->exclusive && n < GROUP_MAX &&
               (k = take_more(db->committer, &more, GROUP_MAX - n))) {
            last->next = more;
            while (last->next)
                last = last->next;
            n += k;
            reset_jobs(more, k);
            group_run m = {db, txn, cur, more, k, 0};
            faulted = eng_fault_run(run_group_in, &m, &again);
            applied += m.applied;
        }
        if (faulted) {
            /* LMDB faulted on a damaged page: nothing of the group is committed */
            eng_schema_unref(cur);
            mdb_txn_abort(txn);
            eng_resize_shared_end(db);
            fail_jobs(jobs, n, fault_error(&e), &e);
            return n;
        }
        eng_write_state ws;
        eng_write_state_take(db, txn, cur ? cur->version : 0, &ws);
        int had_schema = cur != NULL;
        eng_schema_unref(cur);
        int mrc = 0;
        if (again || !applied)
            mdb_txn_abort(txn);
        else if ((mrc = mdb_txn_commit(txn)) == 0 && had_schema)
            eng_note_commit(db, &ws);
        eng_resize_shared_end(db);
        if (again == ENG_MAP_FULL || mrc == MDB_MAP_FULL) {
            if ((rc = eng_grow_map(db, &e))) {
                fail_jobs(jobs, n, rc, &e);
                return n;
            }
            continue;
        }
        if (again == ENG_RESTART || again == GROUP_RERUN)
            continue;
        if (mrc) {
            rc = eng_lmdb_write_err(db, &e, mrc, "commit");
            for (eng_job *j = jobs; j; j = j->next)
                if (j->rc == 0) {
                    j->rc = rc;
                    j->err = e;
                }
        }
        return n;
    }
}

/* ---- the committer thread ---- */

/* PERIODIC: syncs the meta page when the oldest unsynced commit is `period` old. */
static void periodic_sync(eng_db *db, eng_committer *c)
{
    if (!c->period_ns || !c->unsynced || mono_ns() - c->unsynced_since_ns < c->period_ns)
        return;
    c->unsynced = 0;
    pthread_mutex_unlock(&c->lock);
    mdb_env_sync(db->env, 1);
    pthread_mutex_lock(&c->lock);
}

/* Waits for work; with unsynced commits, no longer than until their sync is due. */
static void wait_for_work(eng_committer *c)
{
    if (!c->period_ns || !c->unsynced) {
        pthread_cond_wait(&c->work, &c->lock);
        return;
    }
    uint64_t due = c->unsynced_since_ns + c->period_ns;
    struct timespec ts = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
    pthread_cond_timedwait(&c->work, &c->lock, &ts);
}

/* Takes the next group off the queue (not empty): an exclusive job alone, or the plain jobs
   before one. */
static size_t take_group(eng_committer *c, eng_job **first)
{
    return take_jobs(c, first, GROUP_MAX, 0);
}

static void *committer_main(void *arg)
{
    eng_db *db = arg;
    eng_committer *c = db->committer;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        periodic_sync(db, c);
        if (!c->head) {
            if (c->stop)
                break;
            wait_for_work(c);
            continue;
        }
        eng_job *jobs;
        size_t n = take_group(c, &jobs);
        pthread_mutex_unlock(&c->lock);
        n = run_group(db, jobs, n);
        /* Completions: async jobs own themselves and may queue more work, so they
           run outside the lock; a waited-for job belongs to its waiter the moment
           `finished` is set, so it is not touched after that. */
        eng_job *async = NULL, **async_tail = &async;
        pthread_mutex_lock(&c->lock);
        for (eng_job *j = jobs, *next; j; j = next) {
            next = j->next;
            if (j->complete) {
                j->next = NULL;
                *async_tail = j;
                async_tail = &j->next;
            } else {
                j->finished = 1;
            }
        }
        c->groups++;
        c->jobs += n;
        if (c->period_ns && !c->unsynced) {
            c->unsynced = 1;
            c->unsynced_since_ns = mono_ns();
        }
        pthread_cond_broadcast(&c->done);
        pthread_mutex_unlock(&c->lock);
        for (eng_job *j = async, *next; j; j = next) {
            next = j->next;
            j->complete(j);
        }
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    if (c->period_ns)
        mdb_env_sync(db->env, 1); /* a clean close leaves nothing unsynced */
    return NULL;
}

int eng_committer_start(eng_db *db, uint64_t period_ms, eng_err *err)
{
    eng_committer *c = eng_calloc(1, sizeof *c);
    if (!c)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory starting the committer");
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->work, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&c->done, NULL);
    c->tail = &c->head;
    c->period_ns = period_ms * 1000000u;
    db->committer = c;
    int rc = pthread_create(&c->thread, NULL, committer_main, db);
    if (rc) {
        db->committer = NULL;
        pthread_cond_destroy(&c->work);
        pthread_cond_destroy(&c->done);
        pthread_mutex_destroy(&c->lock);
        eng_free(c);
        return eng_errorf(err, ENG_E_IO, "cannot start the committer thread: %s", strerror(rc));
    }
    return 0;
}

void eng_committer_stop(eng_db *db)
{
    eng_committer *c = db->committer;
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL); /* it drains the queue first */
    db->committer = NULL;
    pthread_cond_destroy(&c->work);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->lock);
    eng_free(c);
}

int eng_in_committer(const eng_db *db)
{
    return db->committer && pthread_equal(pthread_self(), db->committer->thread);
}

void eng_committer_queue(eng_db *db, eng_job *job)
{
    eng_committer *c = db->committer;
    job->next = NULL;
    job->finished = 0;
    job->left_out = 0;
    pthread_mutex_lock(&c->lock);
    *c->tail = job;
    c->tail = &job->next;
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->lock);
}

void eng_committer_wait(eng_db *db, eng_job *job)
{
    eng_committer *c = db->committer;
    pthread_mutex_lock(&c->lock);
    while (!job->finished)
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

void eng_db_commit_stats(eng_db *db, eng_commit_stats *out)
{
    eng_committer *c = db->committer;
    out->groups = out->jobs = 0;
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    out->groups = c->groups;
    out->jobs = c->jobs;
    pthread_mutex_unlock(&c->lock);
}

/* ---- write transactions: the entry points ---- */

typedef struct direct_run {
    eng_db *db;
    MDB_txn *txn;
    eng_schema *cur;
    eng_write_body body;
    void *ctx;
    eng_err *err;
} direct_run;

static int run_direct_in(void *arg)
{
    direct_run *d = arg;
    return d->body(d->db, d->txn, d->cur, d->ctx, d->err);
}

/* One body in its own transaction, committed by the calling thread. */
static int write_direct(eng_db *db, eng_write_body body, void *ctx, eng_err *err)
{
    for (;;) {
        eng_resize_shared(db);
        MDB_txn *txn;
        int rc = eng_txn_begin(db, 0, &txn);
        if (rc) {
            eng_resize_shared_end(db);
            return eng_lmdb_err(err, rc, "begin write transaction");
        }
        eng_err local;
        eng_err_clear(&local);
        eng_schema *cur = NULL;
        int stale = 0;
        rc = eng_db_schema_in(db, txn, 0, &cur, &stale, &local);
        if (!rc && stale)
            rc = ENG_RESTART;
        direct_run d = {db, txn, cur, body, ctx, &local};
        if (!rc && eng_fault_run(run_direct_in, &d, &rc)) {
            if (cur)
                eng_schema_unref(cur);
            mdb_txn_abort(txn);
            eng_resize_shared_end(db);
            return fault_error(err);
        }
        eng_write_state ws;
        eng_write_state_take(db, txn, cur ? cur->version : 0, &ws);
        int had_schema = cur != NULL;
        if (cur)
            eng_schema_unref(cur);
        int full = 0;
        if (rc == 0) {
            int mrc = mdb_txn_commit(txn);
            if (mrc == MDB_MAP_FULL)
                full = 1;
            else if (mrc)
                rc = eng_lmdb_write_err(db, &local, mrc, "commit");
            else if (had_schema)
                eng_note_commit(db, &ws);
        } else {
            full = rc == ENG_MAP_FULL;
            mdb_txn_abort(txn);
        }
        eng_resize_shared_end(db);
        if (full) {
            int grc = eng_grow_map(db, err);
            if (grc)
                return grc;
            continue;
        }
        if (rc == ENG_RESTART)
            continue;
        if (rc && err && !err->code)
            *err = local;
        return rc;
    }
}

/* Through the committer when there is one (commit.c), so that concurrent writers share
   a transaction and its sync; directly with durability NONE, or in the committer itself. */
static int write_txn(eng_db *db, eng_write_body body, void *ctx, int exclusive, eng_err *err)
{
    if (!db->committer || eng_in_committer(db))
        return write_direct(db, body, ctx, err);
    eng_job job = {.body = body, .ctx = ctx, .exclusive = exclusive};
    eng_committer_queue(db, &job);
    eng_committer_wait(db, &job);
    if (job.rc && err && !err->code)
        *err = job.err;
    return job.rc;
}

int eng_write_txn(eng_db *db, eng_write_body body, void *ctx, eng_err *err)
{
    return write_txn(db, body, ctx, 0, err);
}

int eng_write_txn_exclusive(eng_db *db, eng_write_body body, void *ctx, eng_err *err)
{
    return write_txn(db, body, ctx, 1, err);
}
