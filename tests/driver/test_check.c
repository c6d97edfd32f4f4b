/*
 * The verifier: cassette_check finds a damaged value and a damaged key,
 * naming the table, finds nothing wrong in a sound database, and says why
 * when there is no database to check; the shell's `cassette check DB`
 * prints the same and exits 0, 1 or 2. Only the public headers (and the
 * shell binary the tests were built with, $CASSETTE).
 */
#include <cassette.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver_test.h"

static void make_db(const char *dir)
{
    REMOTE_SKIP("cassette_check reads an embedded database's directory");
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(cass_cluster_set_contact_points(c, uri), CASS_OK);
    conn cn;
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    RUN(cn.session, KS_CQL);
    RUN(cn.session, "CREATE TABLE ks.notes (owner text, n int, body text, "
                    "PRIMARY KEY (owner, n))");
    RUN(cn.session, "INSERT INTO ks.notes (owner, n, body) VALUES ('zebra-partition', 1, "
                    "'a body to damage')");
    RUN(cn.session, "INSERT INTO ks.notes (owner, n, body) VALUES ('other', 2, 'intact')");
    conn_close(&cn);
}

/* Flips one bit of the first occurrence of needle in dir/data.mdb. */
static void damage(const char *dir, const char *needle)
{
    char path[600];
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    int fd = open(path, O_RDWR);
    ASSERT(fd >= 0);
    struct stat st;
    ASSERT_EQ(fstat(fd, &st), 0);
    char *bytes = malloc((size_t)st.st_size);
    ASSERT(bytes);
    ASSERT_EQ(read(fd, bytes, (size_t)st.st_size), st.st_size);
    char *at = memmem(bytes, (size_t)st.st_size, needle, strlen(needle));
    ASSERT(at);
    char b = (char)(*at ^ 0x04);
    ASSERT_EQ(pwrite(fd, &b, 1, at - bytes), 1);
    free(bytes);
    close(fd);
}

static const char *db_dir(const char *name)
{
    static char dir[600];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), name);
    return dir;
}

TEST(a_sound_database_checks_clean)
{
    const char *dir = db_dir("sound");
    make_db(dir);
    char report[1024] = "x";
    ASSERT_EQ(cassette_check(dir, report, sizeof report), 0);
    ASSERT_STR_EQ(report, "");
}

TEST(a_damaged_value_is_reported_with_its_table)
{
    const char *dir = db_dir("value");
    make_db(dir);
    damage(dir, "a body to damage");
    char report[1024];
    ASSERT_EQ(cassette_check(dir, report, sizeof report), CASS_ERROR_SERVER_SERVER_ERROR);
    ASSERT_STR_EQ(report, "ks.notes: a damaged row: stored row failed its checksum\n");
}

TEST(a_damaged_key_is_reported)
{
    const char *dir = db_dir("key");
    make_db(dir);
    damage(dir, "zebra-partition");
    char report[1024];
    ASSERT_EQ(cassette_check(dir, report, sizeof report), CASS_ERROR_SERVER_SERVER_ERROR);
    /* the key no longer hashes to its token, or sorts out of place */
    ASSERT(!strncmp(report, "ks.notes: ", 10));
}

TEST(no_database_is_not_damage)
{
    char report[256];
    ASSERT_EQ(cassette_check(NULL, report, sizeof report), CASS_ERROR_LIB_BAD_PARAMS);
    const char *dir = db_dir("nothing");
    ASSERT_EQ(cassette_check(dir, report, sizeof report), CASS_ERROR_LIB_UNABLE_TO_CONNECT);
    char want[700];
    snprintf(want, sizeof want, "no database in %s", dir);
    ASSERT_STR_EQ(report, want);
    /* and nothing was created */
    struct stat st;
    ASSERT(stat(dir, &st) != 0);
}

/* Runs `$CASSETTE check dir`; its exit status, its standard output in out. */
static int shell_check(const char *dir, char *out, size_t cap)
{
    const char *shell = getenv("CASSETTE");
    if (!shell)
        test_skip("CASSETTE (the shell to run) is not set; make test sets it");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s check '%s' 2>/dev/null", shell, dir);
    FILE *p = popen(cmd, "r");
    ASSERT(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(the_shell_check_exits_0_intact_1_damaged_2_not_checked)
{
    const char *dir = db_dir("shell");
    make_db(dir);
    char out[2048], want[2048];
    ASSERT_EQ(shell_check(dir, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s: no damage found\n", dir);
    ASSERT_STR_EQ(out, want);
    damage(dir, "a body to damage");
    ASSERT_EQ(shell_check(dir, out, sizeof out), 1);
    snprintf(want, sizeof want,
             "%s: damaged: ks.notes: a damaged row: stored row failed its checksum\n", dir);
    ASSERT_STR_EQ(out, want);
    ASSERT_EQ(shell_check(db_dir("none"), out, sizeof out), 2);
}
