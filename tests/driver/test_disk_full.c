/*
 * A full file system is an error, never a crash: opening a database where
 * there is no room fails saying so, a write that finds the disk full fails
 * saying the disk is full (never a bare "Input/output error"), nothing
 * acknowledged is lost, and writes work again once space is freed. "memory:"
 * goes elsewhere when /dev/shm is full. Each test mounts a small tmpfs in a
 * mount namespace of its own, and is skipped where it cannot (not root, no
 * namespaces). Only the public headers.
 */
#include <cassette.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "driver_test.h"

#define MAX_ROWS 4096

/* The length of row k's value: every third spans several overflow pages, whose
   write the full disk cuts short (LMDB's EIO), the others fit a leaf (ENOSPC). */
static size_t row_bytes(int k)
{
    return k % 3 ? 1000 : 24000;
}

/* Mounts a tmpfs of size bytes on dir in a mount namespace private to this
   test's process, so that nothing outlives it; skips the test when it cannot. */
static void mount_tmpfs(const char *dir, long size)
{
    if (unshare(CLONE_NEWNS))
        test_skip("cannot make a mount namespace: %s", strerror(errno));
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
        test_skip("cannot make mounts private: %s", strerror(errno));
    char opts[64];
    snprintf(opts, sizeof opts, "size=%ld", size);
    if (mount("tmpfs", dir, "tmpfs", 0, opts))
        test_skip("cannot mount a tmpfs on %s: %s", dir, strerror(errno));
}

/* Fills the file system of dir, leaving about room bytes, with the file dir/fill. */
static void fill(const char *dir, long room)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fill", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT(fd >= 0);
    static char block[4096];
    while (write(fd, block, sizeof block) == (ssize_t)sizeof block)
        ;
    ASSERT_EQ(errno, ENOSPC);
    off_t size = lseek(fd, 0, SEEK_END);
    ASSERT_EQ(ftruncate(fd, size > room ? size - room : 0), 0);
    close(fd);
}

static void unfill(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fill", dir);
    ASSERT_EQ(unlink(path), 0);
}

static CassCluster *file_cluster(const char *dir)
{
    char uri[512];
    snprintf(uri, sizeof uri, "file:%s/db", dir);
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, uri), CASS_OK);
    return c;
}

/* Connects to the database in dir; the future's code, its message in msg. */
static CassError try_connect(CassSession *s, CassCluster *c, char *msg, size_t cap)
{
    CassFuture *f = cass_session_connect(s, c);
    CassError rc = cass_future_error_code(f);
    future_message(f, msg, cap);
    cass_future_free(f);
    return rc;
}

TEST(opening_on_a_full_file_system_fails_with_a_clear_error)
{
    REMOTE_SKIP("a full disk under the embedded database");
    const char *dir = test_tmpdir();
    mount_tmpfs(dir, 1 << 20);
    for (long room = 0; room <= 64 << 10; room += 16 << 10) {
        fill(dir, room);
        CassCluster *c = file_cluster(dir);
        CassSession *s = cass_session_new();
        char msg[512], want[600];
        ASSERT_NE(try_connect(s, c, msg, sizeof msg), CASS_OK);
        snprintf(want, sizeof want, "cannot open database directory %s/db: No space left on device",
                 dir);
        ASSERT_STR_EQ(msg, want);
        cass_session_free(s);
        cass_cluster_free(c);
        unfill(dir);
    }
    /* with room, the same directory opens */
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, file_cluster(dir));
    RUN(cn.session, KS_CQL);
    conn_close(&cn);
    umount2(dir, MNT_DETACH);
}

/* Inserts row k; 0 or the failed future's code, its message in msg. */
static CassError insert(CassSession *s, const CassPrepared *p, int k, char *msg, size_t cap)
{
    static char value[24000];
    memset(value, 'a' + k % 26, row_bytes(k));
    CassStatement *st = cass_prepared_bind(p);
    ASSERT_EQ(cass_statement_bind_int32(st, 0, k), CASS_OK);
    ASSERT_EQ(cass_statement_bind_string_n(st, 1, value, row_bytes(k)), CASS_OK);
    CassFuture *f = cass_session_execute(s, st);
    CassError rc = cass_future_error_code(f);
    if (rc)
        future_message(f, msg, cap);
    cass_future_free(f);
    cass_statement_free(st);
    return rc;
}

/* Every acknowledged row reads back whole; no other row is there. */
static void check_rows(CassSession *s, const unsigned char *acked)
{
    const CassResult *r = QUERY(s, "SELECT k, v FROM ks.t");
    CassIterator *it = cass_iterator_from_result(r);
    int n = 0, want = 0;
    for (int k = 0; k < MAX_ROWS; k++)
        want += acked[k];
    while (cass_iterator_next(it)) {
        const CassRow *row = cass_iterator_get_row(it);
        cass_int32_t k;
        const char *v;
        size_t len;
        ASSERT_EQ(cass_value_get_int32(cass_row_get_column(row, 0), &k), CASS_OK);
        ASSERT_EQ(cass_value_get_string(cass_row_get_column(row, 1), &v, &len), CASS_OK);
        ASSERT(k >= 0 && k < MAX_ROWS);
        ASSERT_EQ(len, row_bytes(k));
        ASSERT_EQ(v[0], 'a' + k % 26);
        ASSERT_EQ(v[len - 1], 'a' + k % 26);
        /* a write that failed may still be there: only a committed one may not be missing */
        n += acked[k];
    }
    ASSERT_EQ(n, want);
    cass_iterator_free(it);
    cass_result_free(r);
}

TEST(a_full_disk_fails_writes_as_full_and_they_work_again_when_space_is_freed)
{
    REMOTE_SKIP("a full disk under the embedded database");
    const char *dir = test_tmpdir();
    mount_tmpfs(dir, 4 << 20);
    static unsigned char acked[MAX_ROWS];
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, file_cluster(dir));
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    const CassPrepared *p = PREPARE(cn.session, "INSERT INTO ks.t (k, v) VALUES (?, ?)");
    fill(dir, 256 << 10);
    int k = 0, failures = 0;
    char msg[512];
    for (; k < MAX_ROWS / 2 && failures < 50; k++) {
        CassError rc = insert(cn.session, p, k, msg, sizeof msg);
        if (rc == CASS_OK) {
            acked[k] = 1;
            continue;
        }
        ASSERT_EQ(rc, CASS_ERROR_SERVER_SERVER_ERROR);
        ASSERT_STR_EQ(msg, "the disk is full (commit: No space left on device)");
        failures++;
    }
    ASSERT(failures > 0);
    check_rows(cn.session, acked);
    unfill(dir);
    for (int i = 0; i < 50; i++, k++) {
        if (insert(cn.session, p, k, msg, sizeof msg))
            test_fail(__FILE__, __LINE__, "row %d after space was freed: %s", k, msg);
        acked[k] = 1;
    }
    check_rows(cn.session, acked);
    cass_prepared_free(p);
    conn_close(&cn);
    /* and after reopening */
    conn_open_cluster(__FILE__, __LINE__, &cn, file_cluster(dir));
    check_rows(cn.session, acked);
    conn_close(&cn);
    umount2(dir, MNT_DETACH);
}

TEST(schema_changes_on_a_full_disk_fail_as_full)
{
    REMOTE_SKIP("a full disk under the embedded database");
    const char *dir = test_tmpdir();
    mount_tmpfs(dir, 1 << 20);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, file_cluster(dir));
    RUN(cn.session, KS_CQL);
    fill(dir, 0);
    CassStatement *st = cass_statement_new("CREATE TABLE ks.t (k int PRIMARY KEY, v text)", 0);
    CassFuture *f = cass_session_execute(cn.session, st);
    char msg[512];
    ASSERT_EQ(cass_future_error_code(f), CASS_ERROR_SERVER_SERVER_ERROR);
    ASSERT_STR_EQ(future_message(f, msg, sizeof msg),
                  "the disk is full (commit: No space left on device)");
    cass_future_free(f);
    unfill(dir);
    f = cass_session_execute(cn.session, st);
    ASSERT_FUTURE_OK(f);
    cass_future_free(f);
    cass_statement_free(st);
    RUN(cn.session, "INSERT INTO ks.t (k, v) VALUES (1, 'one')");
    conn_close(&cn);
    umount2(dir, MNT_DETACH);
}

TEST(memory_goes_elsewhere_when_dev_shm_is_full)
{
    REMOTE_SKIP("a full disk under the embedded database");
    mount_tmpfs("/dev/shm", 1 << 20);
    fill("/dev/shm", 0);
    conn cn;
    MEMORY_CONNECT(&cn);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    RUN(cn.session, "INSERT INTO ks.t (k, v) VALUES (1, 'one')");
    const CassResult *r = QUERY(cn.session, "SELECT v FROM ks.t WHERE k = 1");
    ASSERT_EQ(cass_result_row_count(r), 1);
    cass_result_free(r);
    conn_close(&cn);
    umount2("/dev/shm", MNT_DETACH);
}
