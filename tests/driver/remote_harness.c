/*
 * The driver tests' remote mode. Embedded, test_database() sets a cluster's
 * contact point to the database a test names ("memory:", "file:DIR").
 * Remote (CASSETTE_TEST_REMOTE=1: tests/run.sh's second run of every
 * tests/driver/ program), a `cassette serve` serves that database instead,
 * on a free port, and the contact point is 127.0.0.1:PORT:
 *
 *   - "memory:": a server of its own, `cassette serve --memory`, a fresh
 *     database as "memory:" is; stopped when conn_close() closes the
 *     cluster's connection, or when the test ends;
 *   - "file:DIR": `cassette serve DIR`, one per directory, so that every
 *     session a test opens on DIR talks to the same server (to the same
 *     database, as embedded); stopped when the test ends.
 *
 * The servers are the shell named by CASSETTE (tests/run.sh sets it), else
 * build/release/cassette, run with CASSETTE_DURABILITY=none. Stopping one is
 * SIGTERM, then waiting for it (SIGKILL after 10 s). None outlives its test:
 * the harness runs test_at_end hooks when a test passes, fails or skips, and
 * a test that crashes or times out takes them with it (PR_SET_PDEATHSIG).
 * Only <cassandra.h>, the harness and POSIX (and prctl, Linux).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver_test.h"

extern char **environ;

#define MAX_SERVERS 32

/* A server this test started: for a "memory:" database, the cluster it serves (owner); for
   "file:DIR", dir. */
typedef struct served {
    pid_t pid;
    int port;
    const CassCluster *owner;
    char dir[512];
} served;

static served servers[MAX_SERVERS];
static int n_servers;

/* The environment of a server: the test's, with CASSETTE_DURABILITY=none and without the
   variables that would send it elsewhere. Allocated before fork (the child only execs). */
static char **server_environ(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "CASSETTE_URI=", 13) != 0 &&
            strncmp(environ[i], "CASSETTE_DURABILITY=", 20) != 0 &&
            strncmp(environ[i], "CASSETTE_TEST_REMOTE=", 21) != 0)
            env[k++] = environ[i];
    env[k++] = "CASSETTE_DURABILITY=none";
    env[k] = NULL;
    return env;
}

/* Waits for pid to exit, for up to ms milliseconds; 0 and its status if it did. */
static int wait_exit(pid_t pid, int ms, int *status)
{
    for (int waited = 0;; waited++) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return 0;
        if (waited >= ms)
            return -1;
        struct timespec ms1 = {0, 1000000};
        nanosleep(&ms1, NULL);
    }
}

/* Stops servers[i] and waits for it; 0 if it ran until told to stop, else -1 and why in msg. */
static int server_stop(int i, char *msg, size_t cap)
{
    served *s = &servers[i];
    int status = 0, rc = 0;
    kill(s->pid, SIGTERM);
    if (wait_exit(s->pid, 10000, &status)) {
        kill(s->pid, SIGKILL);
        wait_exit(s->pid, 10000, &status);
        snprintf(msg, cap, "cassette serve (port %d) did not stop on SIGTERM", s->port);
        rc = -1;
    } else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM) {
        snprintf(msg, cap, "cassette serve (port %d) died of signal %d", s->port, WTERMSIG(status));
        rc = -1;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        snprintf(msg, cap, "cassette serve (port %d) exited with status %d", s->port,
                 WEXITSTATUS(status));
        rc = -1;
    }
    servers[i] = servers[--n_servers];
    return rc;
}

/* The test's end: every server it left running. */
static void stop_all(void)
{
    while (n_servers > 0) {
        char msg[256];
        if (server_stop(n_servers - 1, msg, sizeof msg))
            printf("# remote: %s\n", msg);
    }
    fflush(stdout);
}

/* Starts `cassette serve (DIR | --memory) --port 0` and reads the port it printed. */
static served *server_start(const char *dir, const CassCluster *owner)
{
    if (n_servers == MAX_SERVERS)
        test_fail(__FILE__, __LINE__, "more than %d servers in one test", MAX_SERVERS);
    const char *bin = getenv("CASSETTE");
    if (!bin || !*bin)
        bin = "build/release/cassette";
    /* the largest frames the server takes (256 MiB, not 16): the tests of the 16 MiB mutation
       limit send mutations over it (Cassandra's own frame limit is configurable too) */
    char *const argv[] = {(char *)bin, "serve", dir ? (char *)dir : "--memory",
                          "--port",    "0",     "--max-frame-size",
                          "268435456", NULL};
    char **env = server_environ();
    int fds[2];
    if (!env || pipe(fds))
        test_fail(__FILE__, __LINE__, "cannot start cassette serve: %s", strerror(errno));
    test_at_end(stop_all);
    fflush(stdout);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        test_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* async-signal-safe calls only: the test may have threads */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        dup2(fds[1], 1);
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        execve(bin, argv, env);
        _exit(127);
    }
    free(env);
    close(fds[1]);
    char line[512] = "";
    size_t n = 0;
    struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
    while (n + 1 < sizeof line && poll(&pfd, 1, 30000) == 1 && read(fds[0], line + n, 1) == 1 &&
           line[n] != '\n')
        n++;
    line[n] = '\0';
    close(fds[0]);
    const char *at = strstr(line, "listening on ");
    const char *colon = at ? strchr(at, ':') : NULL;
    int port = colon ? atoi(colon + 1) : 0;
    if (port <= 0) {
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        test_fail(__FILE__, __LINE__, "%s serve %s did not start: \"%s\"", bin,
                  dir ? dir : "--memory", line);
    }
    served *s = &servers[n_servers++];
    s->pid = pid;
    s->port = port;
    s->owner = owner;
    snprintf(s->dir, sizeof s->dir, "%s", dir ? dir : "");
    return s;
}

/* The server of contact, started if need be (for "memory:", owned by owner); NULL when contact
   is no database ("memory:" or "file:DIR"). */
static served *server_of(const char *contact, const CassCluster *owner)
{
    if (!strcmp(contact, "memory:"))
        return server_start(NULL, owner);
    if (strncmp(contact, "file:", 5) != 0 || !contact[5])
        return NULL;
    for (int i = 0; i < n_servers; i++)
        if (!servers[i].owner && !strcmp(servers[i].dir, contact + 5))
            return &servers[i];
    return server_start(contact + 5, NULL);
}

CassError test_database(CassCluster *cluster, const char *contact)
{
    served *s = test_remote() && cluster && contact ? server_of(contact, cluster) : NULL;
    if (!s)
        return cass_cluster_set_contact_points(cluster, contact);
    char hostport[64];
    snprintf(hostport, sizeof hostport, "127.0.0.1:%d", s->port);
    return cass_cluster_set_contact_points(cluster, hostport);
}

const char *test_database_uri(const char *contact, char *buf, size_t cap)
{
    served *s = test_remote() && contact ? server_of(contact, NULL) : NULL;
    if (s)
        snprintf(buf, cap, "cql://127.0.0.1:%d", s->port);
    else
        snprintf(buf, cap, "%s", contact ? contact : "");
    return buf;
}

void test_database_release(const char *file, int line, const CassCluster *cluster)
{
    for (int i = n_servers - 1; i >= 0; i--) {
        if (cluster && servers[i].owner == cluster) {
            char msg[256];
            if (server_stop(i, msg, sizeof msg))
                test_fail(file, line, "%s", msg);
        }
    }
}
