/*
 * Statements of a script, found without parsing them: for shells and script
 * runners, which send each statement on its own. No state, no allocation.
 */
#ifndef CQL_LANG_SCRIPT_H
#define CQL_LANG_SCRIPT_H

#include <stddef.h>

/*
 * Finds the next statement of a script starting at *pos: skips whitespace
 * and comments, then returns in [*start, *end) the statement text up to
 * (not including) its terminating ';' — a ';' inside a string, a $$ string,
 * a quoted identifier or a comment does not count — and sets *pos past the
 * ';'. A BEGIN BATCH ... APPLY BATCH is one statement although its members
 * end in ';'. Returns 1 if a statement was found, 0 at the end of the text
 * (a final statement without ';' is returned too).
 */
int cql_next_statement(const char *text, size_t len, size_t *pos, size_t *start, size_t *end);

#endif
