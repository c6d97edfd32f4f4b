/*
 * Values as cqlsh shows them: what the Python driver decodes a value to, then
 * cqlshlib/formatting.py's text for it, read from a CassValue through the
 * public driver API only, so the shell renders a remote session's results the
 * same way as an embedded one's.
 *
 * Guarantees: any bytes are tolerated; a value the Python driver could not
 * decode (text that is not strict UTF-8, a time out of range, a malformed
 * collection...) is shown whole as its 0x... blob form, never as partial
 * text; allocation failure sets the buffer's oom flag, never fatal.
 *
 * Threads: no shared state; values are only read.
 */
#ifndef CQL_SHELL_RENDER_H
#define CQL_SHELL_RENDER_H

#include "cassandra.h"
#include "engine/value/common.h"

/*
 * A result cell as cqlsh prints it: "null" for null; text unquoted with
 * Python's escapes; True / False; integers, varints and decimals exactly;
 * floats and doubles with 5 significant digits; timestamps
 * "2021-01-01 00:00:00.000000+0000" (UTC); dates, times, durations, uuids,
 * inets; blobs 0x...; [lists], {sets}, {maps}, (tuples), {udt: fields} with
 * their items rendered as nested values (text, timestamps and inets quoted),
 * sets and maps of uuids and inets in the order Python sorts them; an empty
 * (0-byte) value blank, except blobs (0x) and text. Appends to out.
 */
void cql_render_value(const CassValue *value, eng_buf *out);

/*
 * Text shown through cqlsh's text formatter, unquoted (column names): Python's
 * escapes for backslashes and control characters; text that is not strict
 * UTF-8 is shown as its 0x... blob form.
 */
void cql_render_text(const char *s, size_t len, eng_buf *out);

/* ---- scalar pieces, shared with the tests' raw-bytes renderer ---- */

/* 0x followed by the bytes in lower-case hex. */
void cql_render_hex(const uint8_t *p, size_t len, eng_buf *out);
/* Text with Python's escapes, 'quoted' (quotes doubled) when quote is set; -1 (nothing
   appended) when it is not strict UTF-8, or not ASCII for an ascii value. */
int cql_render_text_bytes(int ascii, const uint8_t *p, size_t len, int quote, eng_buf *out);
/* cqlsh's format_floating_point_type with precision prec (5 for floats and doubles). */
void cql_render_floating(double v, int prec, eng_buf *out);
/* A timestamp (ms since the epoch) as "2021-01-01 00:00:00.000000+0000", 'quoted' when quote
   is set; outside Python's datetime range, the milliseconds. */
void cql_render_timestamp(int64_t ms, int quote, eng_buf *out);
/* A date (days since the epoch + 2^31) as "2021-01-01"; outside Python's range, the days. */
void cql_render_date(uint32_t raw, eng_buf *out);
/* A time (ns since midnight) as "12:00:00.000000000"; -1 (nothing appended) out of range. */
int cql_render_time(int64_t ns, eng_buf *out);

#endif
