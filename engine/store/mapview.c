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

void eng_map_bounds(eng_db *db, const uint8_t **lo, const uint8_t **end)
{
    *lo = db->map_lo;
    uint64_t len = atomic_load_explicit(&db->file_len, memory_order_relaxed);
    *end = db->map_lo ? db->map_lo + (len < db->map_len ? len : db->map_len) : NULL;
    if (!db->map_lo) /* unknown: every address passes (end = the top of the address space) */
        *end = (const uint8_t *)UINTPTR_MAX;
}

int eng_map_holds_txn(MDB_txn *txn, const void *p, size_t len)
{
    eng_db *db = mdb_env_get_userctx(mdb_txn_env(txn));
    return db ? eng_map_holds(db, p, len, 0) : 1;
}

int eng_stored_bounds(MDB_txn *txn, const eng_table *t, const MDB_val *k, const MDB_val *v,
                      eng_err *err)
{
    if (eng_map_holds_txn(txn, k->mv_data, k->mv_size) &&
        eng_map_holds_txn(txn, v->mv_data, v->mv_size))
        return 0;
    return eng_errorf(err, ENG_E_CORRUPT,
                      "database file is corrupted (a key or value runs past the end of the file "
                      "in table %s.%s)",
                      t->ks, t->name);
}

/* ---- the meta pages ----
 *
 * LMDB keeps two meta pages and trusts the one with the higher transaction
 * id; it checks their magic and version but nothing else. A damaged id
 * makes it pick the older one (the last commit silently gone) and a damaged
 * root or last page number sends every read into garbage. Commits alternate
 * between the two pages and raise the id by one, so in a sound file the ids
 * are 0 and 0 (nothing committed) or differ by exactly one, and the newer
 * page's page numbers lie inside the file. LMDB 0.9's layout, native byte
 * order: a 16-byte page header (flags at 10), then the meta: magic at 0,
 * version at 4, map size at 16, two 48-byte database records at 24 (page
 * size in the first one's first word, depth at 6, root at 40), the last
 * page at 120 and the transaction id at 128.
 */
#define META_AT 16
#define META_MAGIC 0xBEEFC0DEu
#define META_FLAG 0x08
#define NO_PAGE UINT64_MAX

static uint64_t u64_at(const uint8_t *p, size_t at)
{
    uint64_t v;
    memcpy(&v, p + at, 8);
    return v;
}

static uint32_t u32_at(const uint8_t *p, size_t at)
{
    uint32_t v;
    memcpy(&v, p + at, 4);
    return v;
}

static int meta_corrupt(eng_err *err, const char *why)
{
    return eng_errorf(err, ENG_E_CORRUPT, "database file is corrupted (meta pages: %s)", why);
}

int eng_meta_pages_check(eng_db *db, eng_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data.mdb", db->path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0; /* LMDB opened it: a file we cannot read back is not ours to judge */
    uint8_t page0[256], page1[256];
    struct stat st;
    int ok = fstat(fileno(f), &st) == 0 && fread(page0, 1, sizeof page0, f) == sizeof page0;
    uint32_t psize = ok ? u32_at(page0, META_AT + 24) : 0;
    ok = ok && psize >= 512 && psize <= 65536 && (psize & (psize - 1)) == 0 &&
         fseek(f, (long)psize, SEEK_SET) == 0 && fread(page1, 1, sizeof page1, f) == sizeof page1;
    fclose(f);
    if (!ok)
        return meta_corrupt(err, "unreadable or of an impossible page size");
    const uint8_t *m[2] = {page0, page1};
    for (int i = 0; i < 2; i++) {
        uint16_t flags;
        memcpy(&flags, m[i] + 10, 2);
        if (u64_at(m[i], 0) != (uint64_t)i || !(flags & META_FLAG) ||
            u32_at(m[i], META_AT) != META_MAGIC || u32_at(m[i], META_AT + 4) != 1)
            return meta_corrupt(err, "a meta page is not one");
    }
    uint64_t t0 = u64_at(page0, META_AT + 128), t1 = u64_at(page1, META_AT + 128);
    if (!(t0 == 0 && t1 == 0) && t0 + 1 != t1 && t1 + 1 != t0)
        return meta_corrupt(err, "their transaction ids are not consecutive");
    const uint8_t *newer = t1 > t0 ? page1 : page0;
    uint64_t last = u64_at(newer, META_AT + 120);
    uint64_t pages = (uint64_t)st.st_size / psize;
    if (last < 1 || last >= pages || u64_at(newer, META_AT + 16) / psize < last + 1)
        return meta_corrupt(err, "the last page lies past the end of the file");
    for (int d = 0; d < 2; d++) {
        size_t rec = META_AT + 24 + 48 * (size_t)d;
        uint64_t root = u64_at(newer, rec + 40);
        uint16_t depth;
        memcpy(&depth, newer + rec + 6, 2);
        if (root == NO_PAGE ? depth != 0 : (root < 2 || root > last || depth == 0 || depth > 32))
            return meta_corrupt(err, "a root page lies outside the file");
    }
    return 0;
}
