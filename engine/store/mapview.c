/*
 * Where data.mdb is mapped, so that a key or value LMDB hands back can be
 * checked before it is read. LMDB computes a value's address and length
 * from a node and a page number it does not check: a damaged node size or
 * overflow page number yields a value running past the end of the file
 * (reading it is a SIGBUS) or out of the map altogether (a SIGSEGV). A
 * read transaction sees only mapped pages, so every byte it is handed must
 * lie inside the file's mapped bytes; a write transaction also sees its own
 * dirty pages, which live on the heap, outside the map.
 *
 * LMDB does not publish its map address (mdb_env_info reports the fixed
 * address of MDB_FIXEDMAP, 0 here), so it is found in /proc/self/maps by
 * the file's device and inode, after every (re)map, with the resize lock
 * held exclusively or before the database is shared. Where it cannot be
 * found, the check is off (map_lo NULL) rather than wrong.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "engine/store/store_int.h"

static uint64_t data_file_len(const eng_db *db)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/data.mdb", db->path);
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

void eng_map_locate(eng_db *db)
{
    db->map_lo = NULL;
    db->map_len = 0;
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/data.mdb", db->path);
    FILE *f = stat(path, &st) == 0 ? fopen("/proc/self/maps", "r") : NULL;
    if (!f)
        return;
    char line[4352];
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        unsigned long long offset, inode;
        unsigned major, minor;
        char perms[8];
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %x:%x %llu", &lo, &hi, perms,
                   &offset, &major, &minor, &inode) != 7)
            continue;
        if (inode == (unsigned long long)st.st_ino && offset == 0 &&
            makedev(major, minor) == st.st_dev) {
            db->map_lo = (const uint8_t *)lo;
            db->map_len = hi - lo;
            break;
        }
    }
    fclose(f);
    atomic_store(&db->file_len, (uint64_t)st.st_size);
}

int eng_map_holds(eng_db *db, const void *p, size_t len, int readonly)
{
    const uint8_t *b = p, *lo = db->map_lo;
    if (!lo)
        return 1;
    if (b < lo || b >= lo + db->map_len) /* off the map: a dirty page of a write, or damage */
        return !readonly;
    uint64_t at = (uint64_t)(b - lo);
    if (len > db->map_len - at)
        return 0;
    if (at + len <= atomic_load_explicit(&db->file_len, memory_order_relaxed))
        return 1;
    /* The file may have grown since it was last measured: measure again before failing. */
    uint64_t now = data_file_len(db);
    atomic_store(&db->file_len, now);
    return at + len <= now;
}
