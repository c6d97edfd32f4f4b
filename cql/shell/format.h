/*
 * Text output as cqlsh prints it (cqlsh 6.x, non-interactive): result tables,
 * the form of conditional-statement results, server warnings and error
 * lines, from what cassandra.h hands out (CassResult, CassFuture). The shell
 * (cql/shell/main.c) writes these bytes as they are, so the golden tests in
 * tests/cql/ compare them with what cqlsh prints against Cassandra;
 * tests/cql/README.md describes the format.
 *
 * Every function appends to an eng_buf; a failed allocation sets the
 * buffer's oom flag (never fatal). Each line ends in '\n'.
 *
 * Threads: no shared state; results and futures are only read.
 */
#ifndef CQL_SHELL_FORMAT_H
#define CQL_SHELL_FORMAT_H

#include "cassandra.h"
#include "engine/value/common.h"

/*
 * A result as cqlsh prints it. lwt = 0 (a SELECT): an empty line, the
 * header, a separator, the rows, an empty line and "(N rows)"; with no rows
 * the header and separator are followed by two empty lines. lwt = 1 (a
 * conditional statement, first column [applied]): an empty line and the
 * table without a row count, nothing at all when there are no rows.
 * Values go through cql_render_value. A result without columns (a write,
 * USE, a schema change) appends nothing.
 */
void cql_format_result(const CassResult *r, int lwt, eng_buf *out);

/*
 * One page of a SELECT, for a shell that fetches pages itself: column
 * widths are those of this page only (cqlsh sizes each page on its own);
 * the header and separator only when with_header (the first page), then
 * the rows, or an empty line when the page has none. cqlsh frames the pages
 * with an empty line before the first and cql_format_row_count after the
 * last; pages after the first that have no rows are skipped.
 */
void cql_format_page(const CassResult *r, int with_header, eng_buf *out);

/* A page without rows under the given column names (ASCII): the header, the separator and an
   empty line, as cqlsh prints a result with no columns against a table's metadata. */
void cql_format_empty_page(const char *const *names, size_t n, eng_buf *out);

/* The end of a SELECT: an empty line and "(N rows)". */
void cql_format_row_count(uint64_t n_rows, eng_buf *out);

/*
 * Server warnings as cqlsh prints them after a statement's result: an
 * empty line, "Warnings :", then each warning followed by an empty line.
 * Nothing when n is 0.
 */
void cql_format_warnings(const char *const *warnings, size_t n, eng_buf *out);

/* A failed request as the driver reports it (texts not NUL-terminated, NULL when absent). */
typedef struct cql_failure {
    CassError code;
    const char *message;
    size_t message_len;
    const char *keyspace; /* CASS_ERROR_SERVER_ALREADY_EXISTS: its keyspace and table */
    size_t keyspace_len;
    const char *table; /* empty or NULL for a keyspace */
    size_t table_len;
} cql_failure;

/*
 * The line cqlsh writes to standard error for a failed statement:
 * "FILE:LINE:" then the Python driver's exception, by the code's row in
 * cql/errors.h:
 *   0x2200 InvalidRequest: Error from server: code=2200 [Invalid query] message="..."
 *   0x2100 Unauthorized: Error from server: code=2100 [Unauthorized] message="..."
 *   0x1100 WriteTimeout / 0x1500 WriteFailure: the same "Error from server" form, without
 *          the driver's trailing info={...} (consistency and replica counts)
 *   0x2400 AlreadyExists: Keyspace 'ks' already exists | Table 'ks.t' already exists
 *   0x2000 SyntaxException: MESSAGE, 0x2300 ConfigurationException: MESSAGE,
 *   0x0000 ServerError: MESSAGE (the exception's message attribute, no frame)
 * The code is printed as 4 lower-case hex digits. A code with no row (a
 * failure of the driver itself) prints as "ErrorMessage: MESSAGE".
 */
void cql_format_error(const char *file, int line, const cql_failure *f, eng_buf *out);

/*
 * cql_format_error for a request whose future failed: its error code and
 * message, and for ALREADY_EXISTS the keyspace and table of its error result.
 */
void cql_format_future_error(const char *file, int line, CassFuture *future, eng_buf *out);

/*
 * Terminal columns of UTF-8 text as cqlsh measures them (its wcwidth.py,
 * Markus Kuhn's wcwidth for Unicode 5.0): combining and format characters
 * and U+0000 take 0 columns, East Asian wide and full-width characters 2,
 * others 1; -1 if the text holds another C0/C1 control character (cqlsh's
 * rendering escapes those, so formatted values never do). A byte that does
 * not start valid UTF-8 counts as one column.
 */
int cql_display_width(const char *s, size_t len);

#endif
