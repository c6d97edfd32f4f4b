/*
 * cassette's own public header: what the Cassandra C/C++ driver API
 * (cassandra.h) has no words for. For now, the library's version; opening a
 * database with options, the virtual clock, snapshot and reset follow with
 * the driver API.
 */
#ifndef CASSETTE_H
#define CASSETTE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CASSETTE_EXPORT __attribute__((visibility("default")))
#else
#define CASSETTE_EXPORT
#endif

#define CASSETTE_VERSION_MAJOR 0
#define CASSETTE_VERSION_MINOR 1
#define CASSETTE_VERSION_PATCH 0

/*
 * The library's version as "MAJOR.MINOR.PATCH"; compare with the
 * CASSETTE_VERSION_* macros to detect a header/library mismatch.
 * Ownership: a static string, never freed. Threads: any.
 */
CASSETTE_EXPORT const char *cassette_version(void);

#ifdef __cplusplus
}
#endif

#endif
