/*
 * The shell's driver logger (log.h): one process-wide capture of the server
 * warnings logged while a statement runs. The texts are copied, since a log
 * message lives only as long as the callback.
 */
#include "cql/shell/log.h"
#include "cassandra.h"
#include "engine/value/common.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The driver's prefix for a response's warnings (cpp-driver's Decoder::decode_warnings). */
#define WARNING_PREFIX "Server-side warning: "

typedef struct capture {
    pthread_mutex_t lock;
    int active;   /* between begin and end */
    char **texts; /* owned copies */
    size_t n, cap;
} capture;

static capture warnings_capture = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, 0};

/* Under the lock. On failure the text is dropped: a warning is not worth failing a statement. */
static void keep(capture *c, const char *text)
{
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 4;
        char **p = eng_realloc(c->texts, ncap * sizeof *p);
        if (!p)
            return;
        c->texts = p;
        c->cap = ncap;
    }
    char *copy = eng_strdup(text);
    if (copy)
        c->texts[c->n++] = copy;
}

/* Under the lock. */
static void forget(capture *c)
{
    for (size_t i = 0; i < c->n; i++)
        eng_free(c->texts[i]);
    c->n = 0;
}

static void on_log(const CassLogMessage *m, void *data)
{
    capture *c = data;
    size_t prefix = strlen(WARNING_PREFIX);
    if (m->severity == CASS_LOG_WARN && strncmp(m->message, WARNING_PREFIX, prefix) == 0) {
        pthread_mutex_lock(&c->lock);
        if (c->active)
            keep(c, m->message + prefix);
        pthread_mutex_unlock(&c->lock);
        return;
    }
    /* cqlsh silences its driver's log; only a failure of the library itself is worth a line */
    if (m->severity == CASS_LOG_CRITICAL || m->severity == CASS_LOG_ERROR)
        fprintf(stderr, "cassette: %s\n", m->message);
}

void cql_shell_log_install(void)
{
    cass_log_set_callback(on_log, &warnings_capture);
}

void cql_shell_warnings_begin(void)
{
    pthread_mutex_lock(&warnings_capture.lock);
    forget(&warnings_capture);
    warnings_capture.active = 1;
    pthread_mutex_unlock(&warnings_capture.lock);
}

void cql_shell_warnings_end(void)
{
    pthread_mutex_lock(&warnings_capture.lock);
    warnings_capture.active = 0;
    pthread_mutex_unlock(&warnings_capture.lock);
}

size_t cql_shell_warnings(const char *const **out)
{
    pthread_mutex_lock(&warnings_capture.lock);
    *out = (const char *const *)warnings_capture.texts;
    size_t n = warnings_capture.n;
    pthread_mutex_unlock(&warnings_capture.lock);
    return n;
}

void cql_shell_log_release(void)
{
    pthread_mutex_lock(&warnings_capture.lock);
    forget(&warnings_capture);
    eng_free(warnings_capture.texts);
    warnings_capture.texts = NULL;
    warnings_capture.cap = 0;
    warnings_capture.active = 0;
    pthread_mutex_unlock(&warnings_capture.lock);
}
