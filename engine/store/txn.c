/*
 * The transaction discipline every store module relies on:
 *
 *  - The environment is opened with MDB_NOTLS: read transactions are not
 *    tied to threads, so reset ones are pooled and renewed by any thread
 *    (a fresh read transaction allocates per sub-database slot).
 *  - Every transaction holds the resize lock shared. When LMDB reports the
 *    map full, the write is aborted, the map doubled under the exclusive
 *    lock, and the write re-run from scratch (commit.c): a full map grows,
 *    it never fails a write, and nothing half-done is ever committed.
 *  - The schema snapshot is checked against the version stored in meta at
 *    the start of each transaction, so a change made by another process is
 *    seen by the next statement here.
 *  - Write timestamps come from max(clock, high-water mark + 1), the mark
 *    being stored in meta inside the same write transaction: strictly
 *    increasing across threads and processes (facts §9).
 */
#include <string.h>

#include "engine/store/fault.h"
#include "engine/store/store_int.h"
#include "engine/store/catalog_int.h"

/* ---- the resize lock and the per-thread shards ---- */

static eng_shard *my_shard(eng_db *db) { return &db->shards[eng_thread_shard()].s; }

void eng_resize_shared(eng_db *db) { pthread_rwlock_rdlock(&my_shard(db)->resize); }

void eng_resize_shared_end(eng_db *db) { pthread_rwlock_unlock(&my_shard(db)->resize); }

void eng_resize_exclusive(eng_db *db)
{
    for (int i = 0; i < ENG_SHARDS; i++)
        pthread_rwlock_wrlock(&db->shards[i].s.resize);
}

void eng_resize_exclusive_end(eng_db *db)
{
    for (int i = ENG_SHARDS - 1; i >= 0; i--)
        pthread_rwlock_unlock(&db->shards[i].s.resize);
}

int eng_shards_init(eng_db *db)
{
    pthread_rwlockattr_t ra;
    if (pthread_rwlockattr_init(&ra))
        return -1;
    /* Prefer the (rare) map grower so steady readers cannot starve it. */
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    for (int i = 0; i < ENG_SHARDS; i++) {
        pthread_rwlock_init(&db->shards[i].s.resize, &ra);
        pthread_mutex_init(&db->shards[i].s.lock, NULL);
    }
    pthread_rwlockattr_destroy(&ra);
    return 0;
}

/* Called once no transaction is open, after the read states (their cursors) are gone. */
void eng_shards_free(eng_db *db)
{
    for (int i = 0; i < ENG_SHARDS; i++) {
        eng_shard *sh = &db->shards[i].s;
        for (int j = 0; j < sh->n_txns; j++)
            mdb_txn_abort(sh->txns[j]);
        sh->n_txns = 0;
        eng_schema_unref(sh->schema);
        sh->schema = NULL;
        pthread_rwlock_destroy(&sh->resize);
        pthread_mutex_destroy(&sh->lock);
    }
}

/* ---- read transactions ---- */

int eng_txn_begin(eng_db *db, unsigned flags, MDB_txn **txn)
{
    for (;;) {
        int rc = mdb_txn_begin(db->env, NULL, flags, txn);
        if (rc == 0 && !(flags & MDB_RDONLY)) {
            /* a new write transaction has put no timestamp mark yet (eng_next_timestamp) */
            pthread_mutex_lock(&db->schema_lock);
            db->txn_hwm_id = 0;
            pthread_mutex_unlock(&db->schema_lock);
        }
        if (rc != MDB_MAP_RESIZED)
            return rc;
        /* Another process grew the map: adopt its size, then try again. */
        eng_resize_shared_end(db);
        eng_resize_exclusive(db);
        mdb_env_set_mapsize(db->env, 0);
        eng_map_locate(db);
        eng_resize_exclusive_end(db);
        eng_resize_shared(db);
    }
}

int eng_read_begin(eng_db *db, MDB_txn **txn, eng_err *err)
{
    eng_shard *sh = my_shard(db);
    pthread_rwlock_rdlock(&sh->resize);
    MDB_txn *t = NULL;
    pthread_mutex_lock(&sh->lock);
    if (sh->n_txns)
        t = sh->txns[--sh->n_txns];
    pthread_mutex_unlock(&sh->lock);
    int rc;
    if (t) {
        rc = mdb_txn_renew(t);
        if (rc == MDB_MAP_RESIZED) {
            mdb_txn_abort(t);
            t = NULL;
            rc = eng_txn_begin(db, MDB_RDONLY, &t);
        } else if (rc) {
            mdb_txn_abort(t);
            t = NULL;
        }
    } else {
        rc = eng_txn_begin(db, MDB_RDONLY, &t);
    }
    if (rc) {
        pthread_rwlock_unlock(&sh->resize);
        return eng_lmdb_err(err, rc, "begin read transaction");
    }
    *txn = t;
    return 0;
}

void eng_read_abandon(eng_db *db, MDB_txn *txn)
{
    if (txn)
        mdb_txn_abort(txn);
    eng_resize_shared_end(db);
}

void eng_read_end(eng_db *db, MDB_txn *txn)
{
    if (!txn)
        return;
    mdb_txn_reset(txn);
    eng_shard *sh = my_shard(db);
    pthread_mutex_lock(&sh->lock);
    if (sh->n_txns < ENG_SHARD_POOL) {
        sh->txns[sh->n_txns++] = txn;
        txn = NULL;
    }
    pthread_mutex_unlock(&sh->lock);
    if (txn)
        mdb_txn_abort(txn);
    pthread_rwlock_unlock(&sh->resize);
}

/* ---- write transactions ---- */

int eng_write_begin(eng_db *db, MDB_txn **txn) { return eng_txn_begin(db, 0, txn); }

/* Doubles the map. Called with no transaction of this thread open. */
int eng_grow_map(eng_db *db, eng_err *err)
{
    eng_resize_exclusive(db);
    MDB_envinfo info;
    mdb_env_info(db->env, &info);
    size_t want = info.me_mapsize * 2;
    int rc = mdb_env_set_mapsize(db->env, want);
    if (rc == 0)
        db->map_size = want;
    eng_map_locate(db);
    eng_resize_exclusive_end(db);
    return rc ? eng_lmdb_err(err, rc, "grow the map") : 0;
}

/* ---- schema ---- */

static int schema_version(MDB_txn *txn, MDB_dbi meta, uint64_t *v, eng_err *err)
{
    return eng_catalog_version(txn, meta, v, err);
}

typedef struct schema_load {
    eng_db *db;
    MDB_txn *txn;
    eng_schema *s; /* the snapshot loaded (NULL: already current) */
    eng_err *err;
} schema_load;

/* Loads the stored schema unless db->schema is already at its version, and opens its tables'
   sub-databases in l->txn; under eng_fault_run. */
static int load_schema_in(void *arg)
{
    schema_load *l = arg;
    uint64_t v;
    int rc = schema_version(l->txn, l->db->meta, &v, l->err);
    if (rc || (l->db->schema && l->db->schema->version == v))
        return rc;
    if ((rc = eng_schema_load_after(l->txn, l->db->meta, l->db->schema, &l->s, l->err)))
        return rc;
    for (uint32_t i = 0; i < l->s->n_tables; i++) {
        char name[34];
        eng_table_dbname(l->s->tables[i].id, name);
        MDB_dbi dbi;
        int mrc = ENG_FAULT_CALL(mdb_dbi_open(l->txn, name, 0, &dbi));
        if (mrc)
            return eng_lmdb_err(l->err, mrc, "open table storage");
        l->s->tables[i].dbi = dbi;
    }
    return 0;
}

int eng_db_reload_schema(eng_db *db, eng_err *err)
{
    pthread_mutex_lock(&db->schema_lock);
    schema_load l = {db, NULL, NULL, err};
    int rc = eng_txn_begin(db, MDB_RDONLY, &l.txn);
    if (rc) {
        pthread_mutex_unlock(&db->schema_lock);
        return eng_lmdb_err(err, rc, "begin schema transaction");
    }
    if (eng_fault_run(load_schema_in, &l, &rc)) {
        /* LMDB faulted on a damaged catalog page */
        mdb_txn_abort(l.txn);
        if (l.s)
            eng_schema_unref(l.s);
        pthread_mutex_unlock(&db->schema_lock);
        return eng_errorf(err, ENG_E_CORRUPT,
                          "database file is corrupted (LMDB faulted reading the catalog)");
    }
    if (!rc && l.s) {
        /* Committing a read transaction makes the opened handles process-wide. */
        rc = mdb_txn_commit(l.txn);
        l.txn = NULL;
        if (rc) {
            rc = eng_lmdb_err(err, rc, "open table storage");
        } else {
            eng_schema *old = db->schema;
            db->schema = l.s;
            l.s = NULL;
            if (old)
                eng_schema_unref(old);
        }
    }
    if (l.txn)
        mdb_txn_abort(l.txn);
    if (l.s)
        eng_schema_unref(l.s);
    pthread_mutex_unlock(&db->schema_lock);
    return rc;
}

/* Remembers, in the calling thread's shard, that read snapshot `id` holds schema s. */
static void shard_note_checked(eng_db *db, uint64_t id, eng_schema *s)
{
    eng_shard *sh = my_shard(db);
    eng_schema *old = NULL;
    pthread_mutex_lock(&sh->lock);
    if (sh->schema != s) {
        old = sh->schema;
        sh->schema = eng_schema_ref(s);
    }
    sh->checked_txnid = id;
    pthread_mutex_unlock(&sh->lock);
    eng_schema_unref(old);
}

/* The schema the thread's shard knows read snapshot `id` holds (a reference), or NULL. */
static eng_schema *shard_checked(eng_db *db, uint64_t id)
{
    eng_shard *sh = my_shard(db);
    eng_schema *s = NULL;
    pthread_mutex_lock(&sh->lock);
    if (sh->schema && sh->checked_txnid == id)
        s = eng_schema_ref(sh->schema);
    pthread_mutex_unlock(&sh->lock);
    return s;
}

int eng_db_schema_in(eng_db *db, MDB_txn *txn, int readonly, eng_schema **out, int *stale,
                     eng_err *err)
{
    *out = NULL;
    *stale = 0;
    /*
     * A committed snapshot never changes, so a read transaction on a
     * snapshot already checked needs no second look at the stored version:
     * each thread's shard remembers the last it checked, so a stream of
     * reads takes no lock another thread takes. Write transactions look
     * unless they follow this process's own last commit (eng_note_commit):
     * their id is not yet a committed one.
     */
    uint64_t id = (uint64_t)mdb_txn_id(txn);
    if (readonly && (*out = shard_checked(db, id)))
        return 0;
    pthread_mutex_lock(&db->schema_lock);
    /* A write transaction right after this process's last commit starts from its state, and
       a read transaction on that commit's snapshot sees it. */
    int after_own = db->wrote_txnid && id == db->wrote_txnid + !readonly &&
                    db->wrote_version == (db->schema ? db->schema->version : UINT64_MAX);
    eng_schema *s = db->schema ? eng_schema_ref(db->schema) : NULL;
    pthread_mutex_unlock(&db->schema_lock);
    if (s && after_own) {
        if (readonly)
            shard_note_checked(db, id, s);
        *out = s;
        return 0;
    }
    uint64_t v;
    int rc = schema_version(txn, db->meta, &v, err);
    if (rc) {
        eng_schema_unref(s);
        return rc;
    }
    if (s && s->version == v) {
        if (readonly)
            shard_note_checked(db, id, s);
        *out = s;
        return 0;
    }
    eng_schema_unref(s);
    if ((rc = eng_db_reload_schema(db, err)))
        return rc;
    *stale = 1;
    return 0;
}

int eng_db_schema_known(eng_db *db, const eng_schema *s)
{
    MDB_envinfo info;
    if (!s || mdb_env_info(db->env, &info))
        return 0;
    eng_shard *sh = my_shard(db);
    pthread_mutex_lock(&sh->lock);
    int known = sh->schema == s && sh->checked_txnid == (uint64_t)info.me_last_txnid;
    pthread_mutex_unlock(&sh->lock);
    return known;
}

int eng_db_schema_hold(eng_db *db, MDB_txn *txn, eng_schema **held, int *stale, eng_err *err)
{
    *stale = 0;
    uint64_t id = (uint64_t)mdb_txn_id(txn);
    eng_shard *sh = my_shard(db);
    eng_schema *old = NULL;
    pthread_mutex_lock(&sh->lock);
    int known = sh->schema && sh->checked_txnid == id;
    if (known && sh->schema != *held) {
        old = *held;
        *held = eng_schema_ref(sh->schema);
    }
    pthread_mutex_unlock(&sh->lock);
    if (known) {
        eng_schema_unref(old);
        return 0;
    }
    eng_schema *s;
    int rc = eng_db_schema_in(db, txn, 1, &s, stale, err);
    if (rc || *stale)
        return rc;
    eng_schema_unref(*held);
    *held = s;
    return 0;
}

int eng_db_schema(eng_db *db, eng_schema **out, eng_err *err)
{
    /* Nothing committed since the snapshot this thread last checked: its schema stands,
       and no read transaction is needed to say so. */
    MDB_envinfo info;
    if (mdb_env_info(db->env, &info) == 0 && (*out = shard_checked(db, info.me_last_txnid)))
        return 0;
    for (;;) {
        MDB_txn *txn;
        int rc = eng_read_begin(db, &txn, err);
        if (rc)
            return rc;
        int stale;
        rc = eng_db_schema_in(db, txn, 1, out, &stale, err);
        eng_read_end(db, txn);
        if (rc || !stale)
            return rc;
    }
}

int eng_resolve_table(const eng_schema *cur, const eng_table *t, const eng_table **out,
                      eng_err *err)
{
    const eng_table *c = eng_schema_table(cur, t->ks, t->name);
    if (!c || memcmp(c->id, t->id, 16) != 0)
        return eng_errorf(err, ENG_E_INVALID, "table %s does not exist", t->name);
    *out = c;
    return 0;
}

/* ---- timestamps ---- */

/*
 * The stored mark "h" is a reservation: at least every timestamp this process or any other
 * handed out. It is moved RESERVE_US past a timestamp only when one reaches it, so a stream of
 * writes puts it once a millisecond instead of once a write; the newest timestamp handed out
 * is kept in memory. A writer that does not know the stored mark (another process wrote
 * since, or this one just opened) reads it and starts after it: at most RESERVE_US ahead of
 * its clock.
 */
#define RESERVE_US 1000

int eng_next_timestamp(eng_db *db, MDB_txn *txn, int64_t *ts_us, eng_err *err)
{
    uint64_t mark, id = (uint64_t)mdb_txn_id(txn);
    int64_t last, reserved = INT64_MIN;
    int rc = 0, known = 1;
    pthread_mutex_lock(&db->schema_lock);
    if (db->txn_hwm_id == id)
        reserved = db->txn_reserved;
    else if (db->wrote_txnid && id == db->wrote_txnid + 1)
        reserved = db->wrote_reserved;
    else
        known = 0;
    last = db->last_ts;
    pthread_mutex_unlock(&db->schema_lock);
    if (!known) {
        rc = eng_catalog_get_u64(txn, db->meta, "h", &mark, err);
        if (rc == 0) {
            reserved = (int64_t)mark;
            if (reserved > last) /* every timestamp handed out is at most the mark */
                last = reserved;
        } else if (rc != MDB_NOTFOUND) {
            return rc;
        }
    }
    int64_t now = eng_clock_now_us(&db->clock);
    int64_t ts = (last != INT64_MIN && now <= last) ? last + 1 : now;
    int put = reserved == INT64_MIN || ts > reserved;
    if (put) {
        int64_t r = ts <= INT64_MAX - RESERVE_US ? ts + RESERVE_US : INT64_MAX;
        if ((rc = eng_catalog_put_u64(txn, db->meta, "h", (uint64_t)r, err)))
            return rc;
        reserved = r;
    }
    pthread_mutex_lock(&db->schema_lock);
    if (ts > db->last_ts)
        db->last_ts = ts;
    db->txn_hwm_id = id;
    db->txn_reserved = reserved;
    if (put)
        db->txn_dirty_id = id;
    pthread_mutex_unlock(&db->schema_lock);
    *ts_us = ts;
    return 0;
}

void eng_txn_dirty(eng_db *db, MDB_txn *txn)
{
    pthread_mutex_lock(&db->schema_lock);
    db->txn_dirty_id = (uint64_t)mdb_txn_id(txn);
    pthread_mutex_unlock(&db->schema_lock);
}

void eng_write_state_take(eng_db *db, MDB_txn *txn, uint64_t version, eng_write_state *st)
{
    st->id = (uint64_t)mdb_txn_id(txn);
    st->version = version;
    pthread_mutex_lock(&db->schema_lock);
    st->dirty = db->txn_dirty_id == st->id;
    st->took = db->txn_hwm_id == st->id;
    st->reserved = db->txn_reserved;
    pthread_mutex_unlock(&db->schema_lock);
}

void eng_note_commit(eng_db *db, const eng_write_state *st)
{
    /* Which id the commit took: one that changed nothing takes none, and another writer may
       have committed since (then what is stored is not known). */
    MDB_envinfo info;
    uint64_t last = mdb_env_info(db->env, &info) ? 0 : (uint64_t)info.me_last_txnid;
    uint64_t id = st->id;
    pthread_mutex_lock(&db->schema_lock);
    if (!st->dirty && last + 1 == id) {
        /* nothing written, nobody else wrote: the state it started from stands */
    } else if (!st->dirty || last != id || eng_catalog_bumped_in(id)) {
        /* a commit not known to be this one's, another writer since, or a schema change */
        db->wrote_txnid = 0;
    } else if (st->took) {
        db->wrote_txnid = id;
        db->wrote_version = st->version;
        db->wrote_reserved = st->reserved;
    } else if (db->wrote_txnid && id == db->wrote_txnid + 1) {
        db->wrote_txnid = id; /* the mark and the version as they were */
    } else {
        db->wrote_txnid = 0; /* the mark it started from was never read: unknown */
    }
    pthread_mutex_unlock(&db->schema_lock);
}
