/*
 * The text form of every CQL type, in one place: what Cassandra reads
 * (AbstractType.fromString: CQL string constants for non-text types,
 * fromJson() strings, CAST) and what it writes (Java's number formatting,
 * TypeSerializer.toString, Duration.toString). Literals, CAST and JSON use
 * these, so a value reads and prints the same everywhere; the shell's cqlsh
 * rendering is a display form of its own, not one of Cassandra's texts.
 *
 * Rules worth knowing before reading the code:
 * - Numbers follow Java's grammars exactly: Integer.parseInt for int and
 *   the smaller types, BigInteger / BigDecimal for varint and decimal,
 *   Double.valueOf for float and double (hex floats, "NaN", "Infinity").
 * - Timestamps: TimestampSerializer's patterns, read strictly; strings
 *   without a zone are UTC (Cassandra uses the JVM's default zone, UTC on
 *   every standard deployment); before 1582-10-15 the Julian calendar
 *   applies, as java.util.GregorianCalendar does. A string 'now' is the
 *   wall clock (System.currentTimeMillis()).
 * - Durations: the standard form ("1h30m"), ISO 8601 ("PT1H30M") and its
 *   alternative form ("P0001-00-00T01:30:00").
 * - Written text is TypeSerializer.toString's, as CAST(x AS text) returns it
 *   (CastFcts: toCQLLiteral, which is toString for every castable type but
 *   the timestamp, written in UTC as "2015-05-21T11:03:02.000Z").
 *
 * Thread-safe: no global state. Never reads outside what it is given;
 * allocation failure is ENG_E_NOMEM (or the output buffer's oom flag).
 */
#ifndef ENG_TEXT_H
#define ENG_TEXT_H

#include "engine/value/types.h"

/*
 * AbstractType.fromString: the value of `type` written as text s[0..len)
 * (int from "42", timestamp from "2021-01-01 12:00:00+0000", duration from
 * "1h30m", blob from hex digits without 0x, ...). An empty string is the
 * empty value for the types Cassandra allows it. Appends to out.
 * @return 0, ENG_E_INVALID with Cassandra's MarshalException text, ENG_E_NOMEM.
 */
int eng_text_from_string(const eng_type *type, const char *s, size_t len, eng_buf *out,
                         eng_err *err);

/*
 * TypeSerializer.toString of a value of `type` (p[0..len), native
 * serialization), appended to out: "42", "5.2", "1E+3", "true",
 * "127.0.0.1", "0:0:0:0:0:0:0:1" (InetAddress.getHostAddress), "2015-05-21",
 * "11:03:02.000000000", lower-case uuids, "1h30m", hex without 0x for blobs,
 * text as it is. A timestamp is written as CAST writes it (toCQLLiteral:
 * "yyyy-MM-dd'T'HH:mm:ss.SSSX" in UTC; toString's own "yyyy-MM-dd HH:mmXX"
 * in the JVM's zone drops the seconds). An empty value is "" (toString of
 * null). eng_text_from_string reads the text back to the same bytes, bar
 * what Java's forms do not keep: the era of a timestamp before year 1, the
 * 16-byte form of an IPv4-mapped address, a NaN's payload, the zero
 * duration (Duration.toString gives "").
 * @return 0, ENG_E_INVALID for a value that does not validate (the
 *         MarshalException text) or a collection, tuple or UDT (Cassandra
 *         casts none of them to text), ENG_E_NOMEM.
 */
int eng_text_to_string(const eng_type *type, const uint8_t *p, size_t len, eng_buf *out,
                       eng_err *err);

/* ---- Java's number grammars ---- */

/* An optional sign then ASCII digits (Integer.parseInt, Long.parseLong) within [min, max]:
   0 and *out, or -1. */
int eng_text_parse_java_int(const char *s, size_t len, int64_t min, int64_t max, int64_t *out);
/* Double.valueOf / Float.valueOf (is_float) of s: 0 and *out, or -1 if not a Java
   floating-point literal. */
int eng_text_parse_java_float(const char *s, size_t len, int is_float, double *out);
/* 1 if the decimal text is exactly Java's Double.toString of its nearest double
   (BigDecimal(text).compareTo(BigDecimal.valueOf(double)) == 0), as Cassandra decides whether a
   FLOAT constant prefers double or decimal. */
int eng_text_float_is_double(const char *s, size_t len);

/* ---- UTF-8 ---- */

/*
 * Where Java's strict UTF-8 decoder (StandardCharsets.UTF_8.newDecoder(), which reports
 * malformed input) stops on p[0..len): 0 if the bytes decode, else 1 with *at the offset of
 * the first malformed sequence and *n its length as MalformedInputException's "Input length"
 * gives it (1 for a bad lead or second byte, more for a sequence cut short: the bytes left
 * when it ends the input). Overlong forms, surrogates and C0 80 are malformed here, unlike
 * in UTF8Type's validator. Cassandra decodes every protocol string this way (CBUtil).
 */
int eng_text_utf8_malformed(const uint8_t *p, size_t len, size_t *at, size_t *n);

/* ---- blobs ---- */

/* Hex.hexToBytes: appends the bytes of an even number of hex digits (no 0x); 0, or -1. */
int eng_text_parse_hex(const char *s, size_t len, eng_buf *out);

/* ---- uuids ---- */

/* UUIDType's form [A-Fa-f0-9]{8}-{4}-{4}-{4}-{12}, exactly: 0 and the 16 bytes, or -1. */
int eng_text_parse_uuid(const char *s, size_t len, uint8_t out[16]);

/* ---- calendars ---- */

/* A date value (days + 2^31) of a day count, or Cassandra's "Input date ... is less than
   min supported date ..." naming src (NULL: the day itself) when the day is out of range. */
int eng_text_date_of_days(int64_t days, const char *src, size_t src_len, uint32_t *out,
                          eng_err *err);
/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t eng_days_from_civil(int64_t y, int m, int d);
void eng_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* ---- numbers ---- */

/*
 * Java's Double.toString / Float.toString: the shortest digits that read
 * back to the same value, "123.0", "1.0E7", "1.0E-4"; "NaN", "Infinity".
 */
void eng_text_java_double(double v, eng_buf *out);
void eng_text_java_float(float v, eng_buf *out);

/* Decimal digits (with '-') of a big-endian two's-complement integer of any length. */
void eng_text_varint(const uint8_t *p, size_t len, eng_buf *out);

/* BigDecimal.toString of a serialized decimal (be32 scale, then the unscaled varint): "1.50",
   "1.5E+3", "1E-7"; -1 if shorter than its scale. */
int eng_text_decimal(const uint8_t *p, size_t len, eng_buf *out);

/* BigDecimal.valueOf(d) serialized (the decimal of Double.toString(d): 6.3 -> scale 1,
   unscaled 63); -1 for NaN and the infinities, which BigDecimal refuses. */
int eng_text_decimal_of_double(double d, eng_buf *out);

/* ---- timestamps ---- */

/* SimpleDateFormat "yyyy-MM-dd<sep>HH:mm:ss.SSSX" in UTC of milliseconds since the epoch:
   sep 'T' for CAST (TimestampSerializer's UTC format), ' ' for JSON (its JSON format). Julian
   calendar before 1582-10-15, years of the era. */
void eng_text_timestamp(int64_t ms, char sep, eng_buf *out);

/* ---- durations ---- */

/* Duration.toString of a serialized duration ("1y2mo3d4h5m6s7ms8us9ns", "-1d"); -1 if malformed. */
int eng_text_duration(const uint8_t *p, size_t len, eng_buf *out);

#endif
