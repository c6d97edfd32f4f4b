/*
 * The database handle: one LMDB environment per directory, shared by every
 * eng_db_open of that directory in the process (LMDB forbids opening an
 * environment twice in one process), opened with the durability asked for,
 * its group committer started, and torn down by the last close. The
 * transaction discipline itself is txn.c's; the write path's, commit.c's.
 */
#include "engine/store/store_int.h"
#include "engine/store/fault.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define DEFAULT_MAP_SIZE ((size_t)256 << 20)
#define MAX_MAP_SIZE (UINT64_C(1) << 46) /* 64 TiB: half of x86-64 user address space */
#define DEFAULT_MAX_TABLES 1024
#define DEFAULT_SYNC_PERIOD_MS 1000
#define MAX_READERS 1024
/* The size LMDB gives lock.mdb for MAX_READERS: a header of three cache lines
   holding the first reader slot, then one cache line per further reader. */
#define LOCK_FILE_BYTES ((off_t)(MAX_READERS - 1) * 64 + 192)

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static eng_db *registry;

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
    if (db->client_destroy)
        db->client_destroy(db->client_data);
    eng_write_pool_free(db);
    eng_read_pool_free(db); /* their cursors go before the transactions, */
    eng_shards_free(db);    /* and the transactions before the environment */
    if (db->env)
        mdb_env_close(db->env);
    if (db->schema)
        eng_schema_unref(db->schema);
    if (db->temporary && db->path)
        remove_dir(db->path);
    pthread_mutex_destroy(&db->schema_lock);
    pthread_mutex_destroy(&db->client_lock);
    eng_free(db->path);
    eng_free(db);
}

/*
 * Gives lock.mdb its blocks before LMDB maps it. LMDB extends a new lock file
 * with ftruncate, which allocates nothing, and then writes its header through
 * the map: on a full file system that write is a SIGBUS instead of an error.
 * Allocated here, the lack of space is ENOSPC from posix_fallocate. An
 * existing file keeps its size (a process using it has mapped that size) and
 * only has its holes filled; a new one gets the size LMDB would give it, and
 * LMDB adopts whatever size it finds.
 */
static int reserve_lock_file(const char *dir, eng_err *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/lock.mdb", dir) >= (int)sizeof path)
        return eng_errorf(err, ENG_E_IO, "cannot open database directory %s: %s", dir,
                          strerror(ENAMETOOLONG));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) /* read-only or missing: mdb_env_open reports it */
        return 0;
    struct stat st;
    int rc = fstat(fd, &st) ? errno : 0;
    if (!rc)
        rc = posix_fallocate(fd, 0, st.st_size ? st.st_size : LOCK_FILE_BYTES);
    close(fd);
    if (rc == ENOSPC || rc == EDQUOT)
        return eng_errorf(err, ENG_E_IO, "cannot open database directory %s: %s", dir,
                          strerror(rc));
    return 0; /* any other failure is LMDB's to report, as it would without this step */
}

typedef struct catalog_open {
    eng_db *db;
    MDB_txn *txn;
    eng_err *err;
} catalog_open;

static int open_catalog_in(void *arg)
{
    catalog_open *o = arg;
    int rc = eng_meta_pages_check(o->db, o->err);
    if (!rc && (rc = ENG_FAULT_CALL(mdb_dbi_open(o->txn, "meta", MDB_CREATE, &o->db->meta))))
        rc = eng_lmdb_err(o->err, rc, "open catalog");
    return rc;
}

/*
 * Opens (creating it in a new database) the catalog's sub-database, in a
 * write transaction: no other process commits meanwhile, so the meta pages
 * checked here are the ones this transaction started from.
 */
static int open_catalog(eng_db *db, eng_err *err)
{
    catalog_open o = {db, NULL, err};
    int rc = mdb_txn_begin(db->env, NULL, 0, &o.txn);
    if (rc)
        return eng_lmdb_err(err, rc, "begin");
    if (eng_fault_run(open_catalog_in, &o, &rc)) {
        mdb_txn_abort(o.txn);
        return eng_errorf(err, ENG_E_CORRUPT,
                          "database file is corrupted (LMDB faulted reading its root pages)");
    }
    if (rc) {
        mdb_txn_abort(o.txn);
        return rc;
    }
    if ((rc = mdb_txn_commit(o.txn)))
        return eng_lmdb_write_err(db, err, rc, "commit");
    return 0;
}

static int open_env(eng_db *db, const eng_db_options *opts, eng_err *err)
{
    eng_fault_install();
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
        (rc = mdb_env_set_maxreaders(db->env, MAX_READERS)) ||
        (rc = mdb_env_set_mapsize(db->env, db->map_size)))
        return eng_lmdb_err(err, rc, "configure environment");
    if ((rc = reserve_lock_file(db->path, err)))
        return rc;
    if ((rc = mdb_env_open(db->env, db->path, flags, 0644))) {
        if (rc == EACCES || rc == ENOENT || rc == EROFS || rc == ENOSPC || rc == EDQUOT)
            return eng_errorf(err, ENG_E_IO, "cannot open database directory %s: %s", db->path,
                              strerror(rc));
        return eng_lmdb_err(err, rc, "open environment");
    }
    /* Adopt a larger size another process may have set. */
    if ((rc = mdb_env_set_mapsize(db->env, 0)))
        return eng_lmdb_err(err, rc, "map the database");
    eng_map_locate(db);
    mdb_env_set_userctx(db->env, db);
    if ((rc = open_catalog(db, err)))
        return rc;
    if ((rc = eng_db_reload_schema(db, err)))
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
    if (db)
        db->last_ts = INT64_MIN; /* no write timestamp handed out yet */
    if (!db) {
        pthread_mutex_unlock(&registry_lock);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory opening %s", path);
    }
    eng_shards_init(db);
    pthread_mutex_init(&db->schema_lock, NULL);
    pthread_mutex_init(&db->client_lock, NULL);
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

/* A temporary database goes where there is room for more than its first pages. */
#define TEMP_MIN_FREE ((uint64_t)8 << 20)

static int has_room(const char *dir)
{
    struct statvfs fs;
    return access(dir, W_OK) == 0 && statvfs(dir, &fs) == 0 &&
           (uint64_t)fs.f_bavail * fs.f_frsize >= TEMP_MIN_FREE;
}

/*
 * In the first of /dev/shm (memory), $TMPDIR and /tmp that has room: chosen
 * by free space, not by writability alone, since a full /dev/shm (64 MiB in
 * many containers) is writable. When every one is short of room the database
 * is still tried in each, and the first failure is the one reported.
 */
int eng_db_open_temp(const eng_db_options *opts, eng_db **out, eng_err *err)
{
    const char *tmp = getenv("TMPDIR");
    const char *bases[] = {"/dev/shm", tmp && *tmp ? tmp : "/tmp", "/tmp"};
    int n_bases = tmp && *tmp && strcmp(tmp, "/tmp") ? 3 : 2;
    eng_db_options o = opts ? *opts : (eng_db_options){0};
    eng_err first;
    eng_err_clear(&first);
    for (int roomy = 1; roomy >= 0; roomy--) {
        for (int i = 0; i < n_bases; i++) {
            if (has_room(bases[i]) != roomy)
                continue;
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s/cassette-XXXXXX", bases[i]);
            if (!mkdtemp(dir)) {
                eng_errorf(&first, ENG_E_IO, "cannot create a temporary directory in %s: %s",
                           bases[i], strerror(errno));
                continue;
            }
            eng_err e;
            eng_err_clear(&e);
            if (open_path(dir, 1, &o, out, &e) == 0)
                return 0;
            remove_dir(dir);
            if (!first.code)
                first = e;
        }
    }
    if (err && !err->code)
        *err = first;
    return first.code ? first.code : eng_errorf(err, ENG_E_IO, "no temporary directory");
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

void *eng_db_client_data(eng_db *db, void *(*create)(eng_db *db), void (*release)(void *))
{
    pthread_mutex_lock(&db->client_lock);
    if (!db->client_data && create) {
        db->client_data = create(db);
        db->client_destroy = db->client_data ? release : NULL;
    }
    void *data = db->client_data;
    pthread_mutex_unlock(&db->client_lock);
    return data;
}

const char *eng_db_path(const eng_db *db) { return db->path; }
eng_clock *eng_db_clock(eng_db *db) { return &db->clock; }
eng_uuidgen *eng_db_uuidgen(eng_db *db) { return &db->uuidgen; }
