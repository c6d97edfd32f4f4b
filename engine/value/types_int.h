/*
 * Private to engine/value (types.c, text.c) and the tests' cqlsh renderer:
 * the helpers that the text forms share with validation and comparison, so
 * that all read numbers and order bytes the one same way.
 *
 * Like the rest of the module they never read out of bounds of what the
 * caller says it gives them, and they allocate nothing.
 */
#ifndef ENG_TYPES_INT_H
#define ENG_TYPES_INT_H

#include "engine/value/types.h"

/* ---- arbitrary-precision magnitudes (varint, decimal; layout: types.c) ---- */

/* Limbs an array needs to hold the magnitude of any nbytes-byte two's-complement value. */
size_t eng_mag_limbs(size_t nbytes);
/* Drops the leading zero limbs from the count *n. */
void eng_mag_trim(const uint32_t *m, size_t *n);
/* Magnitude of a big-endian two's-complement integer; returns 1 if negative. */
int eng_mag_from_twos(const uint8_t *p, size_t len, uint32_t *m, size_t *n);

/* ---- fixed-width values ---- */

/* BYTE_ORDER types: unsigned bytes, a proper prefix first (-1, 0 or 1). */
int eng_cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* The big-endian IEEE 754 double (8 bytes) or float (4 bytes) at p. */
double eng_get_double(const uint8_t *p);
float eng_get_float(const uint8_t *p);

#endif
