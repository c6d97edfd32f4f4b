/*
 * A value as cqlsh prints it, from its native bytes (render_cqlsh.c), for
 * tests that check executor results without going through the driver API.
 * nested: 0 for a top-level cell (text unquoted), 1 inside a collection.
 */
#ifndef TEST_RENDER_CQLSH_H
#define TEST_RENDER_CQLSH_H

#include "engine/value/types.h"

void test_render_cqlsh(const eng_type *t, const uint8_t *p, size_t len, int nested, eng_buf *out);

#endif
