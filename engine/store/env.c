/*
 * The database handle: one LMDB environment per directory, shared by every
 * eng_db_open of that directory in the process (LMDB forbids opening an
 * environment twice in one process), with the transaction discipline the
 * other modules rely on:
 *
 *  - The environment is opened with MDB_NOTLS: read transactions are not
 *    tied to threads, so reset ones are pooled and renewed by any thread
 *    (a fresh read transaction allocates per sub-database slot).
 *  - Every transaction holds the resize lock shared. When LMDB reports the
 *    map full, the write is aborted, the map doubled under the exclusive
 *    lock, and the write re-run from scratch: a full map grows, it never
 *    fails a write, and nothing half-done is ever committed.
 *  - The schema snapshot is checked against the version stored in meta at
 *    the start of each transaction, so a change made by another process is
 *    seen by the next statement here.
 *  - Write timestamps come from max(clock, high-water mark + 1), the mark
 *    being stored in meta inside the same write transaction: strictly
 *    increasing across threads and processes (facts §9).
 */
#include "engine/store/store_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAP_SIZE ((size_t)256 << 20)
#define MAX_MAP_SIZE (UINT64_C(1) << 46) /* 64 TiB: half of x86-64 user address space */
#define DEFAULT_MAX_TABLES 1024
#define DEFAULT_SYNC_PERIOD_MS 1000

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static eng_db *registry;

int eng_lmdb_err(eng_err *err, int rc, const char *what)
{
    switch (rc) {
    case ENOMEM:
        return eng_errorf(err, ENG_E_NOMEM, "out of memory (%s)", what);
    case MDB_MAP_FULL:
        return eng_errorf(err, ENG_MAP_FULL, "database map is full (%s)", what);
    case MDB_READERS_FULL:
        return eng_errorf(err, ENG_E_BUSY, "too many concurrent readers (%s)", what);
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
        return eng_errorf(err, ENG_E_CORRUPT, "database file is corrupted (%s: %s)", what,
                          mdb_strerror(rc));
    default:
        return eng_errorf(err, ENG_E_IO, "storage error (%s: %s)", what, mdb_strerror(rc));
    }
}

/* ---- read transactions ---- */

static int begin_txn(eng_db *db, unsigned flags, MDB_txn **txn)
{
    for (;;) {
        int rc = mdb_txn_begin(db->env, NULL, flags, txn);
        if (rc != MDB_MAP_RESIZED)
            return rc;
        /* Another process grew the map: adopt its size, then try again. */
        pthread_rwlock_unlock(&db->resize_lock);
        pthread_rwlock_wrlock(&db->resize_lock);
        mdb_env_set_mapsize(db->env, 0);
        pthread_rwlock_unlock(&db->resize_lock);
        pthread_rwlock_rdlock(&db->resize_lock);
    }
}

int eng_read_begin(eng_db *db, MDB_txn **txn, eng_err *err)
{
    pthread_rwlock_rdlock(&db->resize_lock);
    MDB_txn *t = NULL;
    pthread_mutex_lock(&db->pool_lock);
    if (db->n_pool)
        t = db->pool[--db->n_pool];
    pthread_mutex_unlock(&db->pool_lock);
    int rc;
    if (t) {
        rc = mdb_txn_renew(t);
        if (rc == MDB_MAP_RESIZED) {
            mdb_txn_abort(t);
            t = NULL;
            rc = begin_txn(db, MDB_RDONLY, &t);
        } else if (rc) {
            mdb_txn_abort(t);
            t = NULL;
        }
    } else {
        rc = begin_txn(db, MDB_RDONLY, &t);
    }
    if (rc) {
        pthread_rwlock_unlock(&db->resize_lock);
        return eng_lmdb_err(err, rc, "begin read transaction");
    }
    *txn = t;
    return 0;
}

void eng_read_end(eng_db *db, MDB_txn *txn)
{
    if (!txn)
        return;
    mdb_txn_reset(txn);
    pthread_mutex_lock(&db->pool_lock);
    if (db->n_pool < ENG_READ_POOL) {
        db->pool[db->n_pool++] = txn;
        txn = NULL;
    }
    pthread_mutex_unlock(&db->pool_lock);
    if (txn)
        mdb_txn_abort(txn);
    pthread_rwlock_unlock(&db->resize_lock);
}

/* ---- write transactions ---- */

int eng_write_begin(eng_db *db, MDB_txn **txn) { return begin_txn(db, 0, txn); }

/* Doubles the map. Called with no transaction of this thread open. */
int eng_grow_map(eng_db *db, eng_err *err)
{
    pthread_rwlock_wrlock(&db->resize_lock);
    MDB_envinfo info;
    mdb_env_info(db->env, &info);
    size_t want = info.me_mapsize * 2;
    int rc = mdb_env_set_mapsize(db->env, want);
    if (rc == 0)
        db->map_size = want;
    pthread_rwlock_unlock(&db->resize_lock);
    return rc ? eng_lmdb_err(err, rc, "grow the map") : 0;
}

/* One body in its own transaction, committed by the calling thread. */
static int write_direct(eng_db *db, eng_write_body body, void *ctx, eng_err *err)
{
    for (;;) {
        pthread_rwlock_rdlock(&db->resize_lock);
        MDB_txn *txn;
        int rc = begin_txn(db, 0, &txn);
        if (rc) {
            pthread_rwlock_unlock(&db->resize_lock);
            return eng_lmdb_err(err, rc, "begin write transaction");
        }
        eng_err local;
        eng_err_clear(&local);
        eng_schema *cur = NULL;
        int stale = 0;
        rc = eng_db_schema_in(db, txn, 0, &cur, &stale, &local);
        if (!rc && stale)
            rc = ENG_RESTART;
        if (!rc)
            rc = body(db, txn, cur, ctx, &local);
        if (cur)
            eng_schema_unref(cur);
        int full = 0;
        if (rc == 0) {
            int mrc = mdb_txn_commit(txn);
            if (mrc == MDB_MAP_FULL)
                full = 1;
            else if (mrc)
                rc = eng_lmdb_err(&local, mrc, "commit");
        } else {
            full = rc == ENG_MAP_FULL;
            mdb_txn_abort(txn);
        }
        pthread_rwlock_unlock(&db->resize_lock);
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

/* ---- schema ---- */

static int schema_version(MDB_txn *txn, MDB_dbi meta, uint64_t *v, eng_err *err)
{
    return eng_catalog_version(txn, meta, v, err);
}

/* Loads the newest stored schema and opens the sub-databases of its tables. */
static int reload_schema(eng_db *db, eng_err *err)
{
    pthread_mutex_lock(&db->schema_lock);
    MDB_txn *txn = NULL;
    eng_schema *s = NULL;
    int rc = begin_txn(db, MDB_RDONLY, &txn);
    if (rc) {
        rc = eng_lmdb_err(err, rc, "begin schema transaction");
        goto out;
    }
    uint64_t v;
    if ((rc = schema_version(txn, db->meta, &v, err)))
        goto out;
    if (db->schema && db->schema->version == v)
        goto out;
    if ((rc = eng_schema_load(txn, db->meta, &s, err)))
        goto out;
    for (uint32_t i = 0; i < s->n_tables; i++) {
        char name[34];
        eng_table_dbname(s->tables[i].id, name);
        MDB_dbi dbi;
        int mrc = mdb_dbi_open(txn, name, 0, &dbi);
        if (mrc) {
            rc = eng_lmdb_err(err, mrc, "open table storage");
            goto out;
        }
        s->tables[i].dbi = dbi;
    }
    /* Committing a read transaction makes the opened handles process-wide. */
    rc = mdb_txn_commit(txn);
    txn = NULL;
    if (rc) {
        rc = eng_lmdb_err(err, rc, "open table storage");
        goto out;
    }
    eng_schema *old = db->schema;
    db->schema = s;
    s = NULL;
    if (old)
        eng_schema_unref(old);
out:
    if (txn)
        mdb_txn_abort(txn);
    if (s)
        eng_schema_unref(s);
    pthread_mutex_unlock(&db->schema_lock);
    return rc;
}

int eng_db_schema_in(eng_db *db, MDB_txn *txn, int readonly, eng_schema **out, int *stale,
                     eng_err *err)
{
    *out = NULL;
    *stale = 0;
    /*
     * A committed snapshot never changes, so a read transaction on the
     * snapshot last checked needs no second look at the stored version.
     * Write transactions always look: their id is not yet a committed one.
     */
    uint64_t id = (uint64_t)mdb_txn_id(txn);
    pthread_mutex_lock(&db->schema_lock);
    if (readonly && db->schema && db->checked_txnid == id &&
        db->checked_version == db->schema->version) {
        *out = eng_schema_ref(db->schema);
        pthread_mutex_unlock(&db->schema_lock);
        return 0;
    }
    pthread_mutex_unlock(&db->schema_lock);
    uint64_t v;
    int rc = schema_version(txn, db->meta, &v, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&db->schema_lock);
    eng_schema *s = db->schema ? eng_schema_ref(db->schema) : NULL;
    if (s && s->version == v && readonly) {
        db->checked_txnid = id;
        db->checked_version = v;
    }
    pthread_mutex_unlock(&db->schema_lock);
    if (s && s->version == v) {
        *out = s;
        return 0;
    }
    if (s)
        eng_schema_unref(s);
    if ((rc = reload_schema(db, err)))
        return rc;
    *stale = 1;
    return 0;
}

int eng_db_schema(eng_db *db, eng_schema **out, eng_err *err)
{
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

int eng_next_timestamp(eng_db *db, MDB_txn *txn, int64_t *ts_us, eng_err *err)
{
    MDB_val k = {1, "h"}, v;
    int64_t hwm = INT64_MIN;
    int rc = mdb_get(txn, db->meta, &k, &v);
    if (rc == 0 && v.mv_size == 8)
        hwm = (int64_t)eng_be64(v.mv_data);
    else if (rc && rc != MDB_NOTFOUND)
        return eng_lmdb_err(err, rc, "read timestamp mark");
    int64_t now = eng_clock_now_us(&db->clock);
    int64_t ts = (hwm != INT64_MIN && now <= hwm) ? hwm + 1 : now;
    uint8_t buf[8];
    eng_put_be64(buf, (uint64_t)ts);
    v.mv_size = 8;
    v.mv_data = buf;
    if ((rc = mdb_put(txn, db->meta, &k, &v, 0)))
        return eng_lmdb_err(err, rc, "store timestamp mark");
    *ts_us = ts;
    return 0;
}

/* ---- open / close ---- */

int eng_durability_parse(const char *name, int *out)
{
    static const struct {
        const char *name;
        int durability;
    } names[] = {{"sync", ENG_DURABLE_SYNC},
                 {"nometasync", ENG_DURABLE_NOMETASYNC},
                 {"periodic", ENG_DURABLE_PERIODIC},
                 {"none", ENG_DURABLE_NONE}};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *out = names[i].durability;
            return 0;
        }
    return -1;
}

static int make_dirs(const char *path)
{
    char tmp[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof tmp)
        return ENAMETOOLONG;
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0755) && errno != EEXIST)
            return errno;
        *p = '/';
    }
    if (mkdir(tmp, 0755) && errno != EEXIST)
        return errno;
    return 0;
}

static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
                continue;
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

static void destroy(eng_db *db)
{
    eng_committer_stop(db); /* completes what is queued, while the environment is open */
    if (db->env) {
        eng_read_pool_free(db); /* their cursors go before the transactions */
        for (int i = 0; i < db->n_pool; i++)
            mdb_txn_abort(db->pool[i]);
        mdb_env_close(db->env);
    }
    if (db->schema)
        eng_schema_unref(db->schema);
    if (db->temporary && db->path)
        remove_dir(db->path);
    pthread_rwlock_destroy(&db->resize_lock);
    pthread_mutex_destroy(&db->schema_lock);
    pthread_mutex_destroy(&db->pool_lock);
    eng_free(db->path);
    eng_free(db);
}

static int open_env(eng_db *db, const eng_db_options *opts, eng_err *err)
{
    int rc = mdb_env_create(&db->env);
    if (rc) {
        db->env = NULL;
        return eng_lmdb_err(err, rc, "create environment");
    }
    db->map_size = opts && opts->map_size ? opts->map_size : DEFAULT_MAP_SIZE;
    /* LMDB records the size in the file before it maps it: a size no mmap can
     * give would leave a database that never opens again. */
    if ((uint64_t)db->map_size > MAX_MAP_SIZE)
        return eng_errorf(err, ENG_E_CONFIG, "map size %zu exceeds the limit of %llu bytes (64 TiB)",
                          db->map_size, (unsigned long long)MAX_MAP_SIZE);
    unsigned maxdbs = opts && opts->max_tables ? opts->max_tables : DEFAULT_MAX_TABLES;
    unsigned flags = MDB_NOTLS;
    db->durability = opts ? opts->durability : ENG_DURABLE_SYNC;
    if (db->durability == ENG_DURABLE_NOMETASYNC || db->durability == ENG_DURABLE_PERIODIC)
        flags |= MDB_NOMETASYNC;
    else if (db->durability == ENG_DURABLE_NONE)
        flags |= MDB_NOSYNC | MDB_NOMETASYNC;
    if ((rc = mdb_env_set_maxdbs(db->env, maxdbs + 1)) ||
        (rc = mdb_env_set_maxreaders(db->env, 1024)) ||
        (rc = mdb_env_set_mapsize(db->env, db->map_size)))
        return eng_lmdb_err(err, rc, "configure environment");
    if ((rc = mdb_env_open(db->env, db->path, flags, 0644))) {
        if (rc == EACCES || rc == ENOENT || rc == EROFS)
            return eng_errorf(err, ENG_E_IO, "cannot open database directory %s: %s", db->path,
                              strerror(rc));
        return eng_lmdb_err(err, rc, "open environment");
    }
    /* Adopt a larger size another process may have set. */
    if ((rc = mdb_env_set_mapsize(db->env, 0)))
        return eng_lmdb_err(err, rc, "map the database");
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(db->env, NULL, 0, &txn)))
        return eng_lmdb_err(err, rc, "begin");
    if ((rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &db->meta))) {
        mdb_txn_abort(txn);
        return eng_lmdb_err(err, rc, "open catalog");
    }
    if ((rc = mdb_txn_commit(txn)))
        return eng_lmdb_err(err, rc, "commit");
    if ((rc = reload_schema(db, err)))
        return rc;
    if (db->durability == ENG_DURABLE_NONE || (opts && opts->no_group_commit))
        return 0;
    uint64_t period = 0;
    if (db->durability == ENG_DURABLE_PERIODIC)
        period = opts && opts->sync_period_ms ? opts->sync_period_ms : DEFAULT_SYNC_PERIOD_MS;
    return eng_committer_start(db, period, err);
}

static int open_path(const char *path, int temporary, const eng_db_options *opts, eng_db **out,
                     eng_err *err)
{
    *out = NULL;
    int rc = make_dirs(path);
    if (rc)
        return eng_errorf(err, ENG_E_IO, "cannot create database directory %s: %s", path,
                          strerror(rc));
    struct stat st;
    if (stat(path, &st))
        return eng_errorf(err, ENG_E_IO, "cannot open database directory %s: %s", path,
                          strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return eng_errorf(err, ENG_E_IO, "%s is not a directory", path);
    pthread_mutex_lock(&registry_lock);
    for (eng_db *d = registry; d; d = d->next) {
        if (d->dev == st.st_dev && d->ino == st.st_ino && d->pid == getpid()) {
            d->refs++;
            pthread_mutex_unlock(&registry_lock);
            *out = d;
            return 0;
        }
    }
    eng_db *db = eng_calloc(1, sizeof *db);
    if (!db) {
        pthread_mutex_unlock(&registry_lock);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory opening %s", path);
    }
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    /* Prefer the (rare) map grower so steady readers cannot starve it. */
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&db->resize_lock, &ra);
    pthread_rwlockattr_destroy(&ra);
    pthread_mutex_init(&db->schema_lock, NULL);
    pthread_mutex_init(&db->pool_lock, NULL);
    db->refs = 1;
    db->pid = getpid();
    db->dev = st.st_dev;
    db->ino = st.st_ino;
    db->temporary = temporary;
    db->path = eng_strdup(path);
    eng_clock_init(&db->clock);
    eng_uuidgen_init(&db->uuidgen);
    rc = db->path ? open_env(db, opts, err) : eng_errorf(err, ENG_E_NOMEM, "out of memory");
    if (rc) {
        pthread_mutex_unlock(&registry_lock);
        destroy(db);
        return rc;
    }
    db->next = registry;
    registry = db;
    pthread_mutex_unlock(&registry_lock);
    *out = db;
    return 0;
}

int eng_db_open(const char *path, const eng_db_options *opts, eng_db **out, eng_err *err)
{
    return open_path(path, 0, opts, out, err);
}

int eng_db_open_temp(const eng_db_options *opts, eng_db **out, eng_err *err)
{
    char dir[PATH_MAX];
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0
                           ? "/dev/shm"
                           : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(dir, sizeof dir, "%s/cassette-XXXXXX", base);
    if (!mkdtemp(dir))
        return eng_errorf(err, ENG_E_IO, "cannot create a temporary directory in %s: %s", base,
                          strerror(errno));
    eng_db_options o = opts ? *opts : (eng_db_options){0};
    int rc = open_path(dir, 1, &o, out, err);
    if (rc)
        remove_dir(dir);
    return rc;
}

void eng_db_close(eng_db *db)
{
    if (!db)
        return;
    pthread_mutex_lock(&registry_lock);
    if (--db->refs > 0) {
        pthread_mutex_unlock(&registry_lock);
        return;
    }
    for (eng_db **p = &registry; *p; p = &(*p)->next) {
        if (*p == db) {
            *p = db->next;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    destroy(db);
}

const char *eng_db_path(const eng_db *db) { return db->path; }
eng_clock *eng_db_clock(eng_db *db) { return &db->clock; }
eng_uuidgen *eng_db_uuidgen(eng_db *db) { return &db->uuidgen; }
