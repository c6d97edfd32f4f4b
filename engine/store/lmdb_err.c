/*
 * LMDB's return codes as engine errors: the one place that decides which
 * LMDB failure is the application's problem (out of memory, too many
 * readers), a damaged file, a full map the write path grows, or an I/O
 * error. A leaf: every store module reports through it.
 */
#include <errno.h>
#include <lmdb.h>
#include <string.h>
#include <sys/statvfs.h>

#include "engine/store/store_int.h"

int eng_lmdb_err(eng_err *err, int rc, const char *what)
{
    switch (rc) {
    case ENOMEM:
        return eng_errorf(err, ENG_E_NOMEM, "out of memory (%s)", what);
    case MDB_MAP_FULL:
        return eng_errorf(err, ENG_MAP_FULL, "database map is full (%s)", what);
    case ENOSPC:
    case EDQUOT:
        return eng_errorf(err, ENG_E_IO, "the disk is full (%s: %s)", what, strerror(rc));
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

/* Below this much room a write that stopped short is taken for the disk filling. */
#define NEARLY_FULL_BYTES ((uint64_t)1 << 20)

static int nearly_full(const char *path)
{
    struct statvfs fs;
    return path && statvfs(path, &fs) == 0 &&
           (uint64_t)fs.f_bavail * fs.f_frsize < NEARLY_FULL_BYTES;
}

int eng_lmdb_write_err(const eng_db *db, eng_err *err, int rc, const char *what)
{
    /* LMDB reports a write(2) that wrote part of its pages as EIO: on a file
       system left without room, that is the disk filling, not the device failing. */
    if (rc == EIO && nearly_full(db->path))
        rc = ENOSPC;
    return eng_lmdb_err(err, rc, what);
}
