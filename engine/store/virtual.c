/*
 * Virtual tables: the rows a provider computes (engine.h's eng_vsink_row)
 * turned into exactly what the store would hold for them -- storage keys and
 * encoded rows, as an INSERT writes them (write.c) -- and sorted by key, so
 * that read.c walks them with the same code as a table's sub-database. A
 * virtual table is small (the schema's description, one local node), so the
 * rows are built afresh for every read: they always describe the snapshot
 * the read was planned against.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/store/store_int.h"

struct eng_vsink {
    eng_db *db;
    const eng_table *t;
    eng_buf offs;     /* per row: key offset, key length, value offset, value length (size_t) */
    eng_buf data;     /* keys and values */
    eng_buf key, val; /* the row being encoded */
    eng_cell_op *ops; /* one per column */
    eng_err *err;
};

static int nomem(eng_vsink *s)
{
    return eng_errorf(s->err, ENG_E_NOMEM, "out of memory building a virtual table");
}

int eng_vsink_row(eng_vsink *s, const eng_val *values, int64_t ts_us, eng_err *err)
{
    (void)err; /* the sink reports into the read's carrier, which err is */
    const eng_table *t = s->t;
    uint16_t n_keys = (uint16_t)(t->n_pk + t->n_ck);
    uint32_t n_ops = 0;
    for (uint32_t i = n_keys; i < t->n_cols; i++)
        if (values[i].len != ENG_NULL)
            s->ops[n_ops++] = (eng_cell_op){.col = (uint16_t)i, .kind = ENG_OP_SET,
                                            .value = values[i]};
    eng_row_mut rm = {.ck = values + t->n_pk, .insert_marker = 1, .n_ops = n_ops, .ops = s->ops};
    eng_buf_reset(&s->key);
    eng_buf_reset(&s->val);
    int rc = eng_write_encode_row(s->db, t, values, &rm, ts_us, &s->key, &s->val, s->err);
    if (rc)
        return rc;
    size_t entry[4] = {s->data.len, s->key.len, s->data.len + s->key.len, s->val.len};
    eng_buf_put(&s->data, s->key.p, s->key.len);
    eng_buf_put(&s->data, s->val.p, s->val.len);
    eng_buf_put(&s->offs, entry, sizeof entry);
    return s->data.oom || s->offs.oom ? nomem(s) : 0;
}

static int key_order(const void *a, const void *b)
{
    const MDB_val *x = a, *y = b;
    size_t n = x->mv_size < y->mv_size ? x->mv_size : y->mv_size;
    int c = memcmp(x->mv_data, y->mv_data, n);
    return c ? c : (x->mv_size > y->mv_size) - (x->mv_size < y->mv_size);
}

/* The rows as (key, value) pairs sorted by key; a key given twice is the provider's bug. */
static int sort_rows(eng_vsink *s, eng_vrows *out)
{
    size_t n = s->offs.len / (4 * sizeof(size_t));
    MDB_val *pairs = eng_malloc((n ? n : 1) * 2 * sizeof *pairs);
    if (!pairs)
        return nomem(s);
    const size_t *e = (const size_t *)(void *)s->offs.p;
    for (size_t i = 0; i < n; i++, e += 4) {
        pairs[2 * i] = (MDB_val){e[1], s->data.p + e[0]};
        pairs[2 * i + 1] = (MDB_val){e[3], s->data.p + e[2]};
    }
    qsort(pairs, n, 2 * sizeof *pairs, key_order);
    for (size_t i = 1; i < n; i++)
        if (key_order(&pairs[2 * (i - 1)], &pairs[2 * i]) == 0) {
            eng_free(pairs);
            return eng_errorf(s->err, ENG_E_SERVER, "virtual table %s.%s has a row twice",
                              s->t->ks, s->t->name);
        }
    out->n = n;
    out->pairs = pairs;
    return 0;
}

int eng_vrows_build(eng_db *db, const eng_query *q, eng_vrows *out, eng_err *err)
{
    memset(out, 0, sizeof *out);
    eng_vsink s;
    memset(&s, 0, sizeof s);
    s.db = db;
    s.t = q->table;
    s.err = err;
    s.ops = eng_malloc((q->table->n_cols ? q->table->n_cols : 1) * sizeof *s.ops);
    int rc = s.ops ? q->vtable(q->vtable_ctx, q->table, &s, err) : nomem(&s);
    if (!rc)
        rc = sort_rows(&s, out);
    out->data = s.data; /* the keys and values point into it */
    s.data = (eng_buf)ENG_BUF_INIT;
    eng_buf_free(&s.offs);
    eng_buf_free(&s.key);
    eng_buf_free(&s.val);
    eng_free(s.ops);
    return rc;
}

void eng_vrows_free(eng_vrows *rows)
{
    eng_free(rows->pairs);
    eng_buf_free(&rows->data);
    memset(rows, 0, sizeof *rows);
}
