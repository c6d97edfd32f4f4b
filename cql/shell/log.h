/*
 * The shell's driver log. The C/C++ driver hands a response's server
 * warnings to an application only through its log ("Server-side warning:
 * TEXT" at CASS_LOG_WARN, logged before the request's future is set), and
 * its default logger prints every message on standard error, which would mix
 * the driver's lines into cqlsh's output. The shell installs its own logger
 * once, before any other driver call (as cass_log_set_callback requires), and
 * opens a capture around each statement: the warnings logged meanwhile are
 * kept for cqlsh's "Warnings :" block; other messages are dropped, except
 * errors, which go to standard error as "cassette: MESSAGE".
 *
 * Threads: the logger may run in any thread (a remote session logs from its
 * I/O threads); the capture is guarded by a mutex. One capture at a time.
 */
#ifndef CQL_SHELL_LOG_H
#define CQL_SHELL_LOG_H

#include <stddef.h>

/* Installs the shell's logger; call first, before any other driver call. */
void cql_shell_log_install(void);

/* Forgets the warnings captured so far and captures those logged from now on. */
void cql_shell_warnings_begin(void);

/* Stops capturing; the warnings captured stay readable until the next begin. */
void cql_shell_warnings_end(void);

/*
 * The warnings captured (the texts after "Server-side warning: "), in the
 * order they were logged: *out is set to an array of n NUL-terminated texts,
 * valid until the next begin or cql_shell_log_release. Returns n. A warning
 * that could not be copied (out of memory) is left out: a warning is never
 * worth failing its statement.
 */
size_t cql_shell_warnings(const char *const **out);

/* Frees the captured warnings (at exit). The logger stays installed. */
void cql_shell_log_release(void);

#endif
