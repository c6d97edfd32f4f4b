/*
 * Results (result.h): building them row by row and freeing them. Rows are
 * appended as [bytes] into one growing buffer and turned into cell views
 * once complete, so a page of rows costs one buffer and one array.
 */
#include <string.h>

#include "cql/result.h"

cql_result *cql_result_new(int kind)
{
    cql_result *r = eng_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->kind = kind;
    eng_arena_init(&r->arena, 960);
    return r;
}

int cql_result_set_columns(cql_result *r, const cql_column_spec *cols, uint32_t n)
{
    r->cols = eng_arena_alloc(&r->arena, (n ? n : 1) * sizeof *r->cols);
    if (!r->cols)
        return ENG_E_NOMEM;
    if (n) /* a statement without result columns may have none to give */
        memcpy(r->cols, cols, n * sizeof *cols);
    r->n_cols = n;
    return 0;
}

/*
 * Rows are kept as offsets while the data buffer grows and turned into
 * views when the result is complete (cells point into `data`).
 */
int cql_result_add_row(cql_result *r, const eng_val *vals)
{
    size_t need = 0;
    for (uint32_t i = 0; i < r->n_cols; i++)
        need += 4 + (vals[i].len > 0 ? (size_t)vals[i].len : 0);
    /* One reservation per row; a page of rows usually fits in the first 8 KiB. */
    if (r->data.len + need + 1 > r->data.cap &&
        eng_buf_reserve(&r->data, need > 8192 ? need : 8192))
        return ENG_E_NOMEM;
    uint8_t *p = r->data.p + r->data.len;
    for (uint32_t i = 0; i < r->n_cols; i++) {
        eng_put_be32(p, (uint32_t)vals[i].len);
        p += 4;
        if (vals[i].len > 0) {
            memcpy(p, vals[i].p, (size_t)vals[i].len);
            p += vals[i].len;
        }
    }
    r->data.len += need;
    r->n_rows++;
    return 0;
}

int cql_result_finish(cql_result *r)
{
    if (!r->n_rows || !r->n_cols)
        return 0;
    r->cells = eng_arena_alloc(&r->arena, (size_t)r->n_rows * r->n_cols * sizeof *r->cells);
    if (!r->cells)
        return ENG_E_NOMEM;
    const uint8_t *p = r->data.p;
    for (size_t i = 0; i < (size_t)r->n_rows * r->n_cols; i++) {
        int32_t len = (int32_t)eng_be32(p);
        p += 4;
        r->cells[i].len = len;
        r->cells[i].p = len > 0 ? p : NULL;
        if (len > 0)
            p += len;
    }
    return 0;
}

void cql_result_free(cql_result *r)
{
    if (!r)
        return;
    eng_buf_free(&r->data);
    eng_buf_free(&r->paging_state);
    eng_arena_free(&r->arena);
    if (r->release)
        r->release(r->release_arg);
    eng_free(r);
}
