/*
 * `cassette serve [DB | --memory] [--listen ADDR] [--port N] [--max-connections N]
 * [--max-frame-size BYTES] [--max-inflight N] [--tls-cert PEM [--tls-key PEM]
 * [--tls-client-ca PEM [--tls-require-client-cert]]] [--auth] [--dc NAME] [--rack NAME]
 * [--broadcast-address ADDR]`: parses the command line, runs the server,
 * and prints "listening on ADDR:PORT" once the socket is bound (on standard output, flushed: a test
 * suite waiting for the port reads it there).
 */
#include "cql/shell/serve.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql/server/server.h"

static int serve_usage(const char *what, const char *arg)
{
    fputs("usage: cassette serve (DB | --memory) [--listen ADDR] [--port N]\n"
          "                      [--max-connections N] [--max-frame-size BYTES]\n"
          "                      [--max-inflight N] [--tls-cert PEM [--tls-key PEM]\n"
          "                      [--tls-client-ca PEM [--tls-require-client-cert]]]\n"
          "                      [--auth] [--dc NAME] [--rack NAME]\n"
          "                      [--broadcast-address ADDR]\n",
          stderr);
    fprintf(stderr, "cassette: error: %s%s\n", what, arg ? arg : "");
    return 2;
}

/* A whole number in [lo, hi], or -1. */
static long number(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    return v;
}

static void on_listening(const char *address, int port, void *arg)
{
    const char *db = arg;
    printf("cassette serve: listening on %s:%d (%s)\n", address, port,
           db ? db : "a temporary database");
    fflush(stdout);
}

int cql_shell_serve(int argc, char **argv)
{
    cql_server_config cfg;
    cql_server_config_init(&cfg);
    int memory = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--memory")) {
            memory = 1;
        } else if (!strcmp(a, "--listen") && v) {
            cfg.listen = v;
            i++;
        } else if (!strcmp(a, "--port") && v) {
            if ((n = number(v, 0, 65535)) < 0)
                return serve_usage("--port takes 0 to 65535, not ", v);
            cfg.port = (int)n;
            i++;
        } else if (!strcmp(a, "--max-connections") && v) {
            if ((n = number(v, 1, INT_MAX)) < 0)
                return serve_usage("--max-connections takes a positive number, not ", v);
            cfg.max_connections = (int)n;
            i++;
        } else if (!strcmp(a, "--max-frame-size") && v) {
            if ((n = number(v, 1024, 256L << 20)) < 0)
                return serve_usage("--max-frame-size takes 1024 to 268435456 bytes, not ", v);
            cfg.max_frame_size = (uint32_t)n;
            i++;
        } else if (!strcmp(a, "--max-inflight") && v) {
            if ((n = number(v, 1, 1L << 20)) < 0)
                return serve_usage("--max-inflight takes 1 to 1048576 requests, not ", v);
            cfg.max_inflight = (uint32_t)n;
            i++;
        } else if (!strcmp(a, "--tls-cert") && v) {
            cfg.tls_cert = v;
            i++;
        } else if (!strcmp(a, "--tls-key") && v) {
            cfg.tls_key = v;
            i++;
        } else if (!strcmp(a, "--tls-client-ca") && v) {
            cfg.tls_client_ca = v;
            i++;
        } else if (!strcmp(a, "--tls-require-client-cert")) {
            cfg.tls_require_client_cert = 1;
        } else if (!strcmp(a, "--auth")) {
            cfg.auth = 1;
        } else if ((!strcmp(a, "--dc") || !strcmp(a, "--rack")) && v) {
            if (!*v || strlen(v) > 63 || strpbrk(v, "\n\r"))
                return serve_usage(a[2] == 'd' ? "--dc takes a name of 1 to 63 bytes, not "
                                               : "--rack takes a name of 1 to 63 bytes, not ",
                                   v);
            if (a[2] == 'd')
                cfg.dc = v;
            else
                cfg.rack = v;
            i++;
        } else if (!strcmp(a, "--broadcast-address") && v) {
            cfg.broadcast_address = v;
            i++;
        } else if (a[0] == '-') {
            return serve_usage("unknown option or missing value: ", a);
        } else if (!cfg.db) {
            cfg.db = a;
        } else {
            return serve_usage("unexpected argument ", a);
        }
    }
    if (memory == !!cfg.db)
        return serve_usage("give a database directory or --memory", NULL);
    if (!cfg.tls_cert && (cfg.tls_key || cfg.tls_client_ca))
        return serve_usage("--tls-key and --tls-client-ca need --tls-cert", NULL);
    if (cfg.tls_require_client_cert && !cfg.tls_client_ca)
        return serve_usage("--tls-require-client-cert needs --tls-client-ca", NULL);
    char err[512];
    if (cql_server_run(&cfg, on_listening, (void *)cfg.db, err, sizeof err) != 0) {
        fprintf(stderr, "cassette serve: %s\n", err);
        return 1;
    }
    return 0;
}
