/*
 * Schema snapshots (engine/schema.h): their memory, reference counts and
 * lookups, and the column order and indexes every table descriptor keeps.
 * The catalog (catalog.c) builds snapshots from its records; the system
 * tables describe theirs in memory and index them here too.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/schema.h"

/* ------------------------------------------------------------------------ */
/* Snapshot memory and lookups                                               */
/* ------------------------------------------------------------------------ */

static void free_options(eng_option *o, uint32_t n)
{
    for (uint32_t i = 0; o && i < n; i++) {
        eng_free(o[i].name);
        eng_free(o[i].value);
    }
    eng_free(o);
}

static void free_table(eng_table *t)
{
    eng_free(t->ks);
    eng_free(t->name);
    for (uint32_t i = 0; t->cols && i < t->n_cols; i++) {
        eng_free(t->cols[i].name);
        eng_type_free(t->cols[i].type);
    }
    eng_free(t->cols);
    eng_free(t->comment);
    free_options(t->opts, t->n_opts);
    for (uint32_t i = 0; t->dropped && i < t->n_dropped; i++) {
        eng_free(t->dropped[i].name);
        eng_type_free(t->dropped[i].type);
    }
    eng_free(t->dropped);
    eng_table_index_free(t);
}

static void free_schema(eng_schema *s)
{
    for (uint32_t i = 0; s->keyspaces && i < s->n_keyspaces; i++) {
        eng_free(s->keyspaces[i].name);
        free_options(s->keyspaces[i].repl, s->keyspaces[i].n_repl);
    }
    eng_free(s->keyspaces);
    for (uint32_t i = 0; s->tables && i < s->n_tables; i++)
        free_table(&s->tables[i]);
    eng_free(s->tables);
    for (uint32_t i = 0; s->types && i < s->n_types; i++)
        eng_type_free(s->types[i]);
    eng_free(s->types);
    eng_free(s);
}

eng_schema *eng_schema_ref(eng_schema *s)
{
    if (s)
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

void eng_schema_unref(eng_schema *s)
{
    /* acq_rel: every use through other references happens before the free */
    if (s && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        free_schema(s);
}

static int cmp2(const char *a1, const char *a2, const char *b1, const char *b2)
{
    int c = strcmp(a1, b1);
    return c ? c : strcmp(a2, b2);
}

int eng_keyspace_order(const void *a, const void *b)
{
    return strcmp(((const eng_keyspace *)a)->name, ((const eng_keyspace *)b)->name);
}

int eng_table_order(const void *a, const void *b)
{
    const eng_table *x = a, *y = b;
    return cmp2(x->ks, x->name, y->ks, y->name);
}

int eng_udt_order(const void *a, const void *b)
{
    const eng_type *x = *(const eng_type *const *)a, *y = *(const eng_type *const *)b;
    return cmp2(x->ks, x->name, y->ks, y->name);
}

const eng_keyspace *eng_schema_keyspace(const eng_schema *s, const char *ks)
{
    if (!s || !ks)
        return NULL;
    uint32_t lo = 0, hi = s->n_keyspaces;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ks, s->keyspaces[mid].name);
        if (!c)
            return &s->keyspaces[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const eng_table *eng_schema_table(const eng_schema *s, const char *ks, const char *name)
{
    if (!s || !ks || !name)
        return NULL;
    uint32_t lo = 0, hi = s->n_tables;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = cmp2(ks, name, s->tables[mid].ks, s->tables[mid].name);
        if (!c)
            return &s->tables[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const eng_type *eng_schema_udt(const eng_schema *s, const char *ks, const char *name)
{
    if (!s || !ks || !name)
        return NULL;
    uint32_t lo = 0, hi = s->n_types;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = cmp2(ks, name, s->types[mid]->ks, s->types[mid]->name);
        if (!c)
            return s->types[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

int eng_table_column_index(const eng_table *t, const char *name)
{
    if (!t || !name || !t->by_name)
        return -1;
    uint32_t lo = 0, hi = t->n_cols;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t i = t->by_name[mid];
        int c = strcmp(name, t->cols[i].name);
        if (!c)
            return (int)i;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

const eng_column *eng_table_column(const eng_table *t, const char *name)
{
    int i = eng_table_column_index(t, name);
    return i < 0 ? NULL : &t->cols[i];
}

const eng_column *eng_table_column_by_id(const eng_table *t, uint32_t id)
{
    if (!t || !t->by_id)
        return NULL;
    uint32_t lo = 0, hi = t->n_cols;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const eng_column *c = &t->cols[t->by_id[mid]];
        if (c->id == id)
            return c;
        if (id < c->id)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Column order and table invariants                                         */
/* ------------------------------------------------------------------------ */

/*
 * SELECT * order (facts §7.2): partition key, clustering key (each in key
 * order), then static and regular columns each by the bytes of their name.
 * The kind values are already in that order.
 */
int eng_column_order(const void *a, const void *b)
{
    const eng_column *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->kind <= ENG_COL_CLUSTERING)
        return (x->position > y->position) - (x->position < y->position);
    return strcmp(x->name, y->name);
}

static int ptr_by_name(const void *a, const void *b)
{
    const eng_column *x = *(const eng_column *const *)a, *y = *(const eng_column *const *)b;
    return strcmp(x->name, y->name);
}

static int ptr_by_id(const void *a, const void *b)
{
    const eng_column *x = *(const eng_column *const *)a, *y = *(const eng_column *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Fills idx with the column indexes in the order of cmp; 1 if two columns compare equal. */
static int index_columns(const eng_table *t, uint32_t *idx, int (*cmp)(const void *, const void *),
                         const eng_column **tmp)
{
    for (uint32_t i = 0; i < t->n_cols; i++)
        tmp[i] = &t->cols[i];
    qsort(tmp, t->n_cols, sizeof *tmp, cmp);
    int dup = 0;
    for (uint32_t i = 0; i < t->n_cols; i++) {
        idx[i] = (uint32_t)(tmp[i] - t->cols);
        if (i && cmp(&tmp[i - 1], &tmp[i]) == 0)
            dup = 1;
    }
    return dup;
}

void eng_table_index_free(eng_table *t)
{
    eng_free(t->by_name);
    eng_free(t->by_id);
    t->by_name = t->by_id = NULL;
}

int eng_table_index(eng_table *t)
{
    qsort(t->cols, t->n_cols, sizeof *t->cols, eng_column_order);
    t->n_pk = t->n_ck = 0;
    t->has_static = 0;
    for (uint32_t i = 0; i < t->n_cols; i++) {
        const eng_column *c = &t->cols[i];
        if (c->kind == ENG_COL_PARTITION && c->position == t->n_pk)
            t->n_pk++;
        else if (c->kind == ENG_COL_CLUSTERING && c->position == t->n_ck)
            t->n_ck++;
        else if (c->kind == ENG_COL_STATIC)
            t->has_static = 1;
        else if (c->kind != ENG_COL_REGULAR)
            return ENG_E_CORRUPT;
        if (c->id >= t->next_col_id || (c->kind > ENG_COL_CLUSTERING && c->position))
            return ENG_E_CORRUPT;
    }
    if (t->n_pk == 0)
        return ENG_E_CORRUPT;
    t->by_name = eng_malloc(sizeof *t->by_name * t->n_cols);
    t->by_id = eng_malloc(sizeof *t->by_id * t->n_cols);
    const eng_column **tmp = eng_malloc(sizeof *tmp * t->n_cols);
    int rc = (t->by_name && t->by_id && tmp) ? 0 : ENG_E_NOMEM;
    if (!rc && (index_columns(t, t->by_name, ptr_by_name, tmp) ||
                index_columns(t, t->by_id, ptr_by_id, tmp)))
        rc = ENG_E_CORRUPT;
    eng_free(tmp);
    return rc;
}

