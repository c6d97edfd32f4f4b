/*
 * Snapshots: a consistent copy of a database in another directory, for
 * backups and for tests that start from a prepared state.
 *
 * LMDB does the copy (mdb_env_copy2 with MDB_CP_COMPACT): it reads one
 * snapshot through a read transaction, so writers go on meanwhile, and
 * leaves free pages out, so the copy is no bigger than the live data. The
 * copy is a complete environment; eng_db_open opens it like any other.
 *
 * Like every transaction of this process, the copy holds the resize lock
 * shared: the map cannot be grown under it (LMDB forbids resizing while a
 * transaction of the process is active); a writer that needs more room
 * waits for the copy to end.
 */
#include "engine/store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p; 0 or an errno value. */
static int make_dir(const char *path)
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
    struct stat st;
    if (stat(tmp, &st))
        return errno;
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

int eng_db_snapshot(eng_db *db, const char *dir, eng_err *err)
{
    if (!db || !dir || !*dir)
        return eng_errorf(err, ENG_E_INVALID, "no database or no snapshot directory given");
    int rc = make_dir(dir);
    if (rc)
        return eng_errorf(err, ENG_E_IO, "cannot create snapshot directory %s: %s", dir,
                          strerror(rc));
    char data[PATH_MAX];
    if (snprintf(data, sizeof data, "%s/data.mdb", dir) >= (int)sizeof data)
        return eng_errorf(err, ENG_E_IO, "snapshot directory name too long: %s", dir);
    /* LMDB refuses to overwrite (O_EXCL); say so in words, and leave it alone. */
    if (access(data, F_OK) == 0)
        return eng_errorf(err, ENG_E_IO, "snapshot directory %s already holds a database", dir);

    eng_resize_shared(db);
    rc = mdb_env_copy2(db->env, dir, MDB_CP_COMPACT);
    eng_resize_shared_end(db);
    if (rc == EEXIST) /* another copy got there between the check and ours: not ours to remove */
        return eng_errorf(err, ENG_E_IO, "snapshot directory %s already holds a database", dir);
    if (rc) {
        /* A half-written copy must not pass for a database. */
        unlink(data);
        if (rc == ENOMEM)
            return eng_errorf(err, ENG_E_NOMEM, "out of memory writing a snapshot to %s", dir);
        return eng_errorf(err, ENG_E_IO, "cannot write a snapshot to %s: %s", dir,
                          mdb_strerror(rc));
    }
    return 0;
}
