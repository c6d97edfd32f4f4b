/*
 * `cassette serve` processes for the remote backend's tests: started on a
 * free port (or a given one) with a database directory or --memory, their
 * port read from the line they print, stopped with SIGTERM or killed. A
 * server dies with the test (PR_SET_PDEATHSIG) and inherits none of its
 * descriptors. The shell is CASSETTE's, else build/release/cassette.
 */
#ifndef SERVE_TEST_H
#define SERVE_TEST_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver_test.h"

typedef struct server {
    pid_t pid;
    int port;
} server;

/* Starts `cassette serve (DB | --memory) --port PORT [extra...]` and reads the port it printed. */
static inline void server_start_argv(server *s, const char *db, int port, const char *const *extra,
                              int n_extra)
{
    const char *bin = getenv("CASSETTE");
    if (!bin || !*bin)
        bin = "build/release/cassette";
    int fds[2];
    ASSERT(pipe(fds) == 0);
    s->pid = fork();
    ASSERT(s->pid >= 0);
    if (s->pid == 0) {
        /* the server dies with the test, and holds none of the harness's descriptors */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        dup2(fds[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        setenv("CASSETTE_DURABILITY", "none", 1);
        char p[16];
        snprintf(p, sizeof p, "%d", port);
        const char *argv[16] = {bin, "serve", db ? db : "--memory", "--port", p};
        int n = 5;
        for (int i = 0; i < n_extra && n < 15; i++)
            argv[n++] = extra[i];
        argv[n] = NULL;
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char line[256] = "";
    size_t n = 0;
    while (n + 1 < sizeof line && read(fds[0], line + n, 1) == 1 && line[n] != '\n')
        n++;
    line[n] = '\0';
    close(fds[0]);
    const char *at = strstr(line, "listening on ");
    const char *colon = at ? strrchr(at, ':') : NULL;
    if (!colon)
        test_fail(__FILE__, __LINE__, "cassette serve did not start (%s): %s", bin, line);
    s->port = atoi(colon + 1);
}

static inline void server_start_on(server *s, const char *db, int port, const char *extra)
{
    server_start_argv(s, db, port, &extra, extra ? 1 : 0);
}

static inline void server_start(server *s, const char *extra) { server_start_on(s, NULL, 0, extra); }

/* Kills the server at once (SIGKILL): a node that dies. */
static inline void server_kill(server *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGKILL);
    int status;
    waitpid(s->pid, &status, 0);
    s->pid = 0;
}

static inline void server_stop(server *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGTERM);
    int status;
    waitpid(s->pid, &status, 0);
    s->pid = 0;
}

static inline CassCluster *remote_cluster(const server *s, int version)
{
    CassCluster *c = cass_cluster_new();
    ASSERT(c);
    ASSERT_EQ(cass_cluster_set_contact_points(c, "127.0.0.1"), CASS_OK);
    ASSERT_EQ(cass_cluster_set_port(c, s->port), CASS_OK);
    if (version == 5) /* v5 is the driver's beta protocol */
        ASSERT_EQ(cass_cluster_set_use_beta_protocol_version(c, cass_true), CASS_OK);
    else if (version)
        ASSERT_EQ(cass_cluster_set_protocol_version(c, version), CASS_OK);
    return c;
}

#endif
