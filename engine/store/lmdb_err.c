/*
 * LMDB's return codes as engine errors: the one place that decides which
 * LMDB failure is the application's problem (out of memory, too many
 * readers), a damaged file, a full map the write path grows, or an I/O
 * error. A leaf: every store module reports through it.
 */
#include <errno.h>
#include <lmdb.h>

#include "engine/store/store_int.h"

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
