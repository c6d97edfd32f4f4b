/*
 * What the fuzz targets share (tests/fuzz/fuzz_NAME.c, one libFuzzer entry point each):
 * the entry point's prototype, a reader that turns the fuzzer's bytes into choices, the
 * table of CQL types every target covers, and a generator of valid values of those types.
 *
 * A target reports a broken property with fz_fail (message, then abort), which libFuzzer
 * and the replayer (replay.c) both treat as a crash; memory errors and UB are the
 * sanitizers' to report. Nothing here keeps state between inputs but the type table, built
 * once and read-only afterwards.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "engine/value/types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Prints the message and aborts: a property the input broke. */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- the input as a stream of choices: past its end every read is zero ---- */

typedef struct fz_input {
    const uint8_t *p, *end;
} fz_input;

static inline fz_input fz_input_of(const uint8_t *data, size_t size)
{
    fz_input in = {data, data + size};
    return in;
}

static inline size_t fz_left(const fz_input *in)
{
    return (size_t)(in->end - in->p);
}

static inline uint8_t fz_u8(fz_input *in)
{
    return in->p < in->end ? *in->p++ : 0;
}

/* Up to n bytes (fewer at the end of the input): returns how many, *out points at them. */
static inline size_t fz_take(fz_input *in, size_t n, const uint8_t **out)
{
    size_t k = n < fz_left(in) ? n : fz_left(in);
    *out = in->p;
    in->p += k;
    return k;
}

/* ---- the CQL types covered: one column of the fuzz schema each ---- */

typedef struct fz_column {
    const char *name; /* column of the fuzz table `all_types` (keyspace ks) */
    const char *cql;  /* its type as written in CREATE TABLE */
} fz_column;

/* Every scalar type but counter, collections frozen and not, tuples, a UDT, nestings. */
extern const fz_column fz_columns[];
extern const int fz_n_columns;
/* The UDT `addr` the table uses, as CREATE TYPE writes it. */
extern const char fz_udt_cql[];

/* The engine type of a type written in CQL (the types of fz_columns and fz_udt_cql's addr;
   any other name fails the run). Ownership: the caller's, eng_type_free. */
eng_type *fz_type_parse(const char *cql);
/* The engine type of column i (built once; never freed). */
const eng_type *fz_column_type(int i);
/* The counter type (a column of the table `counters`). */
const eng_type *fz_counter_type(void);
/* The type of column i as a key column can have it: collections and the UDT frozen; NULL
   for types no key can have (duration, or anything holding one). */
const eng_type *fz_key_type(int i);

/*
 * Appends a value of type t made from the input: usually valid (text is UTF-8, times in
 * range, durations signed alike, sets and maps possibly unsorted and with duplicates as a
 * client may send them), sometimes empty (0 bytes) where the type allows it, and rarely
 * raw bytes as they come. Validate before relying on it.
 */
void fz_gen_value(const eng_type *t, fz_input *in, eng_buf *out);

#endif
