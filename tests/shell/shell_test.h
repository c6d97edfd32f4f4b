/*
 * What the shell's tests share: a session on a "memory:" database with the
 * keyspace ks, one per test (each test runs in a process of its own), through
 * <cassandra.h> as the shell sees it.
 */
#ifndef SHELL_TEST_H
#define SHELL_TEST_H

#include "driver/driver_test.h"

static conn cn;

/* exit(0) ends a passing test: the session closes then, so a leak shows up as one. */
static void teardown(void)
{
    conn_close(&cn);
}

static inline void setup(void)
{
    MEMORY_CONNECT(&cn);
    atexit(teardown);
    RUN(cn.session, KS_CQL);
}

#endif
