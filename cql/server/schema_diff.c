/*
 * The differences between two schema snapshots as SCHEMA_CHANGE events
 * (schema_diff.h). The snapshots' arrays are sorted (keyspaces by name,
 * tables and types by keyspace and name: engine/schema.h), so each kind is
 * one merge walk.
 */
#include "cql/server/schema_diff.h"

#include <string.h>

typedef void (*change_fn)(void *arg, const cql_result *change);

static void emit(change_fn fn, void *arg, const char *change, const char *target, const char *ks,
                 const char *object)
{
    cql_result r;
    memset(&r, 0, sizeof r);
    r.kind = CQL_RESULT_SCHEMA_CHANGE;
    r.change = change;
    r.target = target;
    r.keyspace = ks;
    r.object = object;
    fn(arg, &r);
}

static int options_differ(const eng_option *a, uint32_t na, const eng_option *b, uint32_t nb)
{
    if (na != nb)
        return 1;
    for (uint32_t i = 0; i < na; i++)
        if (strcmp(a[i].name, b[i].name) || strcmp(a[i].value, b[i].value))
            return 1;
    return 0;
}

static int keyspace_changed(const eng_keyspace *a, const eng_keyspace *b)
{
    return a->durable_writes != b->durable_writes ||
           options_differ(a->repl, a->n_repl, b->repl, b->n_repl);
}

/* ALTER TABLE: columns added, dropped or renamed, options changed. */
static int table_changed(const eng_table *a, const eng_table *b)
{
    if (a->n_cols != b->n_cols || a->next_col_id != b->next_col_id ||
        a->n_dropped != b->n_dropped || a->default_ttl_s != b->default_ttl_s ||
        a->gc_grace_s != b->gc_grace_s || strcmp(a->comment ? a->comment : "",
                                                 b->comment ? b->comment : "") ||
        options_differ(a->opts, a->n_opts, b->opts, b->n_opts))
        return 1;
    for (uint32_t i = 0; i < a->n_cols; i++)
        if (strcmp(a->cols[i].name, b->cols[i].name) || a->cols[i].id != b->cols[i].id)
            return 1;
    return 0;
}

/* ALTER TYPE: fields added or renamed. */
static int type_changed(const eng_type *a, const eng_type *b)
{
    if (a->n_sub != b->n_sub)
        return 1;
    for (uint16_t i = 0; i < a->n_sub; i++)
        if (strcmp(a->fields[i], b->fields[i]))
            return 1;
    return 0;
}

static int by_ks_name(const char *ks1, const char *n1, const char *ks2, const char *n2)
{
    int c = strcmp(ks1, ks2);
    return c ? c : strcmp(n1, n2);
}

/* Tables (created ones when `created`, else dropped and altered ones). */
static void tables(const eng_schema *x, const eng_schema *y, int created, change_fn fn, void *arg)
{
    uint32_t i = 0, j = 0;
    while (i < x->n_tables || j < y->n_tables) {
        const eng_table *a = i < x->n_tables ? &x->tables[i] : NULL;
        const eng_table *b = j < y->n_tables ? &y->tables[j] : NULL;
        int c = !a ? 1 : !b ? -1 : by_ks_name(a->ks, a->name, b->ks, b->name);
        if (c < 0) {
            if (!created)
                emit(fn, arg, "DROPPED", "TABLE", a->ks, a->name);
            i++;
        } else if (c > 0) {
            if (created)
                emit(fn, arg, "CREATED", "TABLE", b->ks, b->name);
            j++;
        } else {
            int recreated = memcmp(a->id, b->id, 16) != 0;
            if (recreated)
                emit(fn, arg, created ? "CREATED" : "DROPPED", "TABLE", a->ks, a->name);
            else if (!created && table_changed(a, b))
                emit(fn, arg, "UPDATED", "TABLE", a->ks, a->name);
            i++;
            j++;
        }
    }
}

static void types(const eng_schema *x, const eng_schema *y, int created, change_fn fn, void *arg)
{
    uint32_t i = 0, j = 0;
    while (i < x->n_types || j < y->n_types) {
        const eng_type *a = i < x->n_types ? x->types[i] : NULL;
        const eng_type *b = j < y->n_types ? y->types[j] : NULL;
        int c = !a ? 1 : !b ? -1 : by_ks_name(a->ks, a->name, b->ks, b->name);
        if (c < 0) {
            if (!created)
                emit(fn, arg, "DROPPED", "TYPE", a->ks, a->name);
            i++;
        } else if (c > 0) {
            if (created)
                emit(fn, arg, "CREATED", "TYPE", b->ks, b->name);
            j++;
        } else {
            if (!created && type_changed(a, b))
                emit(fn, arg, "UPDATED", "TYPE", a->ks, a->name);
            i++;
            j++;
        }
    }
}

/* Keyspaces: created ones (created = 1), else altered (2) or dropped (0) ones. */
static void keyspaces(const eng_schema *x, const eng_schema *y, int what, change_fn fn, void *arg)
{
    uint32_t i = 0, j = 0;
    while (i < x->n_keyspaces || j < y->n_keyspaces) {
        const eng_keyspace *a = i < x->n_keyspaces ? &x->keyspaces[i] : NULL;
        const eng_keyspace *b = j < y->n_keyspaces ? &y->keyspaces[j] : NULL;
        int c = !a ? 1 : !b ? -1 : strcmp(a->name, b->name);
        if (c < 0) {
            if (what == 0)
                emit(fn, arg, "DROPPED", "KEYSPACE", a->name, "");
            i++;
        } else if (c > 0) {
            if (what == 1)
                emit(fn, arg, "CREATED", "KEYSPACE", b->name, "");
            j++;
        } else {
            if (what == 2 && keyspace_changed(a, b))
                emit(fn, arg, "UPDATED", "KEYSPACE", a->name, "");
            i++;
            j++;
        }
    }
}

void cql_schema_diff(const eng_schema *before, const eng_schema *after, change_fn fn, void *arg)
{
    if (!before || !after || before->version == after->version)
        return;
    keyspaces(before, after, 2, fn, arg);
    /* what went: types after the tables that used them, keyspaces last */
    tables(before, after, 0, fn, arg);
    types(before, after, 0, fn, arg);
    keyspaces(before, after, 0, fn, arg);
    /* what came: keyspaces first, types before the tables that use them */
    keyspaces(before, after, 1, fn, arg);
    types(before, after, 1, fn, arg);
    tables(before, after, 1, fn, arg);
}
