/*
 * Schema metadata of the driver API (cassandra.h): cass_schema_meta_*,
 * cass_keyspace_meta_*, cass_table_meta_*, cass_column_meta_* and the
 * iterators over them.
 *
 * The driver learns the schema by reading system_schema.keyspaces, tables,
 * columns and types, and keeps each row's columns as the "fields" of the
 * object it describes. A snapshot here is built the same way, from the rows
 * cql/systables.c serves for one schema snapshot of the database, so what an
 * application reads through the metadata API is exactly what a SELECT on
 * system_schema returns: the system keyspaces are listed (system,
 * system_schema, system_auth, system_distributed, system_traces) with the
 * system_schema and system tables served, and every field holds Cassandra's
 * normalized value (the replication class under its full name, compaction
 * maps, ...). Column data types come from the catalog's own types; user
 * types are the catalog's, as CassDataType values (ready for
 * cass_user_type_new_from_data_type).
 *
 * Everything a snapshot hands out lives in it: names, field values and
 * arrays in one arena, data types as references it holds; freeing the
 * snapshot frees all of it at once. A snapshot never changes after
 * cql_drv_schema_meta_new returns, so any number of threads may read it.
 *
 * Orders, as the driver keeps them: keyspaces, tables and user types by name
 * (the driver's maps), fields by name, columns partition key first (in key
 * order), then clustering columns (in key order), then the others by name
 * (system_schema.columns order). Names are matched exactly (byte order).
 *
 * Materialized views, secondary indexes, functions and aggregates do not
 * exist in cassette: their lookups return NULL and their counts 0, which is
 * the right answer for a schema without them. No keyspace or table is
 * virtual (the virtual keyspaces are not listed in system_schema).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql/driver/driver_int.h"
#include "cql/exec/systables.h"
#include "engine/value/token.h"

/* ------------------------------------------------------------------------ */
/* The snapshot's objects                                                    */
/* ------------------------------------------------------------------------ */

/* The columns of one system_schema row, sorted by name. */
typedef struct meta_fields {
    size_t n;
    const char **names; /* NUL-terminated (the system table's column names) */
    CassValue *values;  /* views into the arena; null columns have len -1 */
} meta_fields;

struct CassColumnMeta_ {
    const char *name;
    size_t name_len;
    CassColumnType type;
    CassClusteringOrder order; /* clustering columns; NONE otherwise */
    const CassDataType *data_type;
    meta_fields fields;
};

struct CassTableMeta_ {
    const char *name;
    size_t name_len;
    meta_fields fields;
    size_t n_cols, n_pk, n_ck;
    const void **cols; /* const CassColumnMeta *: cols[0, n_pk) partition key, then n_ck
                          clustering columns, then the others by name */
    uint32_t *by_name; /* indexes into cols, by column name */
};

struct CassKeyspaceMeta_ {
    const char *name;
    size_t name_len;
    meta_fields fields;
    size_t n_tables;
    const void **tables; /* const CassTableMeta *, by name */
    size_t n_types;
    const void **types;      /* const CassDataType * (user types), by name */
    const char **type_names; /* their names, parallel to types */
};

struct CassSchemaMeta_ {
    cass_uint32_t snapshot_version;
    CassVersion version;
    size_t n_keyspaces;
    const void **keyspaces; /* const CassKeyspaceMeta *, by name */
    eng_arena arena;        /* every name, value and array above */
    CassDataType **refs;    /* data type references held (field, column and user types) */
    size_t n_refs, cap_refs;
};

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

/* Orders a NUL-terminated name against name[0, len): byte order, as strcmp. */
static int name_cmp(const char *s, const char *name, size_t len)
{
    size_t n = strlen(s);
    int c = memcmp(s, name, n < len ? n : len);
    return c ? c : (n > len) - (n < len);
}

/* Binary search of name[0, len) in names[0, n) sorted by strcmp; -1 when absent. */
static long find_name(const char *const *names, size_t n, const char *name, size_t len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = name_cmp(names[mid], name, len);
        if (!c)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static const CassValue *field_by_name(const meta_fields *f, const char *name, size_t len)
{
    if (!name)
        return NULL;
    long i = find_name(f->names, f->n, name, len);
    return i < 0 ? NULL : &f->values[i];
}

/* The index of the object named key[0, len) in items[0, n) (objects of `type`, by name). */
#define FIND_BY_NAME(items, n, type, key, len)                                                     \
    find_object((items), (n), offsetof(type, name), (key), (len))

static long find_object(const void *const *items, size_t n, size_t name_off, const char *name,
                        size_t len)
{
    if (!name)
        return -1;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *s;
        memcpy(&s, (const char *)items[mid] + name_off, sizeof s);
        int c = name_cmp(s, name, len);
        if (!c)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Building                                                                  */
/* ------------------------------------------------------------------------ */

/* One row of a system_schema table, its keys as C strings ("" when null). */
typedef struct raw_row {
    const char *k[3]; /* keyspace_name, then table_name / column_name as the table has them */
    meta_fields fields;
} raw_row;

/* A scan of one system table into raw rows. */
typedef struct collect {
    CassSchemaMeta *m;
    const eng_table *t;
    CassDataType **types; /* per column of t (its cols index) */
    uint32_t *order;      /* column indexes of t by name */
    int key[3];           /* column indexes of the keys (-1: none) */
    raw_row *rows;
    size_t n, cap;
    eng_err *err;
} collect;

typedef struct build {
    CassSchemaMeta *m;
    eng_db *db;
    const eng_schema *s;
    eng_err *err;
} build;

static void *arena_alloc(CassSchemaMeta *m, size_t n)
{
    return eng_arena_alloc(&m->arena, n ? n : 1);
}

/* Keeps a data type reference for the life of the snapshot (released on failure too). */
static int hold_type(CassSchemaMeta *m, CassDataType *dt)
{
    if (!dt)
        return ENG_E_NOMEM;
    if (m->n_refs == m->cap_refs) {
        size_t cap = m->cap_refs ? 2 * m->cap_refs : 64;
        CassDataType **refs = eng_realloc(m->refs, sizeof *refs * cap);
        if (!refs) {
            cql_drv_type_unref(dt);
            return ENG_E_NOMEM;
        }
        m->refs = refs;
        m->cap_refs = cap;
    }
    m->refs[m->n_refs++] = dt;
    return 0;
}

static int nomem(eng_err *err, const char *what)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory building the schema metadata (%s)", what);
}

/* Sorts idx (column indexes of t) by column name: an insertion sort, tables have few columns. */
static void sort_columns_by_name(const eng_table *t, uint32_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t v = idx[i];
        size_t j = i;
        while (j > 0 && strcmp(t->cols[idx[j - 1]].name, t->cols[v].name) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

/* Every row of system table t, described from b's snapshot, through the engine's read path. */
static int read_systable(build *b, const eng_table *t, eng_row_cb cb, void *ctx)
{
    cql_systable_ctx sys = {b->s, b->db};
    eng_query q;
    memset(&q, 0, sizeof q);
    q.table = t;
    q.token_lo = ENG_TOKEN_MIN;
    q.token_hi = ENG_TOKEN_MAX;
    q.token_lo_incl = q.token_hi_incl = 1;
    q.vtable = cql_systable_fill;
    q.vtable_ctx = &sys;
    return eng_read(b->db, &q, cb, ctx, NULL, b->err);
}

static int collect_row(void *ctx, const eng_row_view *v)
{
    collect *c = ctx;
    CassSchemaMeta *m = c->m;
    const eng_table *t = c->t;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        raw_row *rows = eng_realloc(c->rows, sizeof *rows * cap);
        if (!rows)
            return -nomem(c->err, t->name);
        c->rows = rows;
        c->cap = cap;
    }
    raw_row *r = &c->rows[c->n];
    memset(r, 0, sizeof *r);
    r->fields.names = arena_alloc(m, sizeof *r->fields.names * t->n_cols);
    r->fields.values = arena_alloc(m, sizeof *r->fields.values * t->n_cols);
    if (!r->fields.names || !r->fields.values)
        return -nomem(c->err, t->name);
    for (uint32_t k = 0; k < t->n_cols; k++) {
        uint32_t i = c->order[k];
        eng_val val;
        int rc = eng_view_column(v, (uint16_t)i, &val, NULL, NULL, c->err);
        if (rc)
            return -rc;
        CassValue *out = &r->fields.values[k];
        out->type = c->types[i];
        out->p = NULL;
        out->len = ENG_NULL;
        if (val.len >= 0) {
            /* One byte more than the value: a NUL, so text values double as C strings. */
            uint8_t *p = arena_alloc(m, (size_t)val.len + 1);
            if (!p)
                return -nomem(c->err, t->name);
            if (val.len)
                memcpy(p, val.p, (size_t)val.len);
            p[val.len] = 0;
            out->p = p;
            out->len = val.len;
        }
        /* The descriptors of the system tables live for the whole process. */
        r->fields.names[k] = t->cols[i].name;
        for (int j = 0; j < 3; j++)
            if (c->key[j] == (int)i)
                r->k[j] = out->p ? (const char *)out->p : "";
    }
    r->fields.n = t->n_cols;
    c->n++;
    return 0;
}

/* Reads every row of system table ks.name into c (keys named by k0..k2, NULL for none). */
static int collect_rows(build *b, collect *c, const char *name, const char *k0, const char *k1,
                        const char *k2)
{
    memset(c, 0, sizeof *c);
    c->m = b->m;
    c->err = b->err;
    const eng_table *t = cql_systable("system_schema", name);
    if (!t)
        return nomem(b->err, name); /* the descriptors could not be built */
    c->t = t;
    c->types = arena_alloc(b->m, sizeof *c->types * t->n_cols);
    c->order = arena_alloc(b->m, sizeof *c->order * t->n_cols);
    if (!c->types || !c->order)
        return nomem(b->err, name);
    for (uint32_t i = 0; i < t->n_cols; i++) {
        c->types[i] = cql_drv_type_from_eng(t->cols[i].type);
        if (hold_type(b->m, c->types[i]))
            return nomem(b->err, name);
        c->order[i] = i;
    }
    sort_columns_by_name(t, c->order, t->n_cols);
    const char *keys[3] = {k0, k1, k2};
    for (int j = 0; j < 3; j++)
        c->key[j] = keys[j] ? eng_table_column_index(t, keys[j]) : -1;
    return read_systable(b, t, collect_row, c);
}

static int raw_order(const void *a, const void *b)
{
    const raw_row *x = a, *y = b;
    for (int j = 0; j < 3; j++) {
        int c = strcmp(x->k[j] ? x->k[j] : "", y->k[j] ? y->k[j] : "");
        if (c)
            return c;
    }
    return 0;
}

/* The column row of ks.table.column among sorted column rows, or NULL. */
static const raw_row *find_column_row(const collect *cols, const char *ks, const char *table,
                                      const char *column)
{
    raw_row key;
    memset(&key, 0, sizeof key);
    key.k[0] = ks;
    key.k[1] = table;
    key.k[2] = column;
    return bsearch(&key, cols->rows, cols->n, sizeof *cols->rows, raw_order);
}

static const char *arena_str(CassSchemaMeta *m, const char *s)
{
    size_t n = strlen(s);
    char *p = arena_alloc(m, n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

static CassColumnType column_type(uint8_t kind)
{
    switch (kind) {
    case ENG_COL_PARTITION:
        return CASS_COLUMN_TYPE_PARTITION_KEY;
    case ENG_COL_CLUSTERING:
        return CASS_COLUMN_TYPE_CLUSTERING_KEY;
    case ENG_COL_STATIC:
        return CASS_COLUMN_TYPE_STATIC;
    default:
        return CASS_COLUMN_TYPE_REGULAR;
    }
}

/* The columns of table tm (described by t), with their system_schema.columns rows. */
static int build_columns(build *b, CassTableMeta *tm, const char *ks, const eng_table *t,
                         const collect *cols)
{
    CassSchemaMeta *m = b->m;
    size_t n = t->n_cols;
    uint32_t *idx = arena_alloc(m, sizeof *idx * n);
    CassColumnMeta *cm = arena_alloc(m, sizeof *cm * n);
    tm->cols = arena_alloc(m, sizeof *tm->cols * n);
    tm->by_name = arena_alloc(m, sizeof *tm->by_name * n);
    if (!idx || !cm || !tm->cols || !tm->by_name)
        return nomem(b->err, t->name);
    /* Keys in key order (cols holds them first, by position), then the rest by name. */
    size_t n_keys = (size_t)t->n_pk + t->n_ck;
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    if (n > n_keys)
        sort_columns_by_name(t, idx + n_keys, n - n_keys);
    for (size_t i = 0; i < n; i++) {
        const eng_column *c = &t->cols[idx[i]];
        CassColumnMeta *col = &cm[i];
        memset(col, 0, sizeof *col);
        col->name = arena_str(m, c->name);
        if (!col->name)
            return nomem(b->err, t->name);
        col->name_len = strlen(col->name);
        col->type = column_type(c->kind);
        col->order = c->kind != ENG_COL_CLUSTERING ? CASS_CLUSTERING_ORDER_NONE
                     : c->desc                     ? CASS_CLUSTERING_ORDER_DESC
                                                   : CASS_CLUSTERING_ORDER_ASC;
        CassDataType *dt = cql_drv_type_from_eng(c->type);
        if (hold_type(m, dt))
            return nomem(b->err, t->name);
        col->data_type = dt;
        const raw_row *row = find_column_row(cols, ks, tm->name, c->name);
        if (row)
            col->fields = row->fields;
        tm->cols[i] = col;
    }
    /* The name index: the non-key columns are already in name order; merge the keys in. */
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)i;
        size_t j = i;
        while (j > 0 && strcmp(cm[tm->by_name[j - 1]].name, cm[v].name) > 0) {
            tm->by_name[j] = tm->by_name[j - 1];
            j--;
        }
        tm->by_name[j] = v;
    }
    tm->n_cols = n;
    tm->n_pk = t->n_pk;
    tm->n_ck = t->n_ck;
    return 0;
}

/* The table described by a row of system_schema.tables. */
static const eng_table *table_of(const eng_schema *s, const char *ks, const char *name)
{
    if (cql_systable_keyspace(ks))
        return cql_systable(ks, name);
    return s ? eng_schema_table(s, ks, name) : NULL;
}

/* A user type and its name, for sorting. */
typedef struct named_type {
    const char *name;
    const CassDataType *type;
} named_type;

static int named_type_order(const void *a, const void *b)
{
    return strcmp(((const named_type *)a)->name, ((const named_type *)b)->name);
}

/* The keyspace's user types, from the catalog (system_schema.types lists the same ones). */
static int build_types(build *b, CassKeyspaceMeta *km)
{
    CassSchemaMeta *m = b->m;
    const eng_schema *s = b->s;
    size_t n = 0;
    if (cql_systable_keyspace(km->name))
        return 0; /* system_schema.types leaves system keyspaces out */
    for (uint32_t i = 0; s && i < s->n_types; i++)
        n += s->types[i]->ks && !strcmp(s->types[i]->ks, km->name);
    if (!n)
        return 0;
    named_type *nt = arena_alloc(m, sizeof *nt * n);
    km->types = arena_alloc(m, sizeof *km->types * n);
    km->type_names = arena_alloc(m, sizeof *km->type_names * n);
    if (!nt || !km->types || !km->type_names)
        return nomem(b->err, km->name);
    size_t k = 0;
    for (uint32_t i = 0; i < s->n_types && k < n; i++) {
        const eng_type *u = s->types[i];
        if (!u->ks || strcmp(u->ks, km->name))
            continue;
        CassDataType *dt = cql_drv_type_from_eng(u);
        if (hold_type(m, dt))
            return nomem(b->err, km->name);
        nt[k].name = arena_str(m, u->name ? u->name : "");
        if (!nt[k].name)
            return nomem(b->err, km->name);
        nt[k++].type = dt;
    }
    qsort(nt, k, sizeof *nt, named_type_order);
    for (size_t i = 0; i < k; i++) {
        km->types[i] = nt[i].type;
        km->type_names[i] = nt[i].name;
    }
    km->n_types = k;
    return 0;
}

/* system.local's release_version, as "major.minor.patch". */
static int local_row(void *ctx, const eng_row_view *v)
{
    CassVersion *out = ctx;
    int i = eng_table_column_index(v->table, "release_version");
    eng_val val;
    if (i < 0 || eng_view_column(v, (uint16_t)i, &val, NULL, NULL, NULL) || val.len <= 0 ||
        val.len >= 32)
        return 1;
    char text[32];
    memcpy(text, val.p, (size_t)val.len);
    text[val.len] = 0;
    int major = 0, minor = 0, patch = 0;
    if (sscanf(text, "%d.%d.%d", &major, &minor, &patch) >= 2) {
        out->major_version = major;
        out->minor_version = minor;
        out->patch_version = patch;
    }
    return 1;
}

static int build_all(build *b)
{
    CassSchemaMeta *m = b->m;
    int rc;
    m->snapshot_version = (cass_uint32_t)b->s->version;

    const eng_table *local = cql_systable("system", "local");
    if (!local)
        return nomem(b->err, "system.local");
    rc = read_systable(b, local, local_row, &m->version);
    if (rc)
        return rc;

    collect ks, tables, cols;
    memset(&tables, 0, sizeof tables);
    memset(&cols, 0, sizeof cols);
    rc = collect_rows(b, &ks, "keyspaces", "keyspace_name", NULL, NULL);
    if (!rc)
        rc = collect_rows(b, &tables, "tables", "keyspace_name", "table_name", NULL);
    if (!rc)
        rc = collect_rows(b, &cols, "columns", "keyspace_name", "table_name", "column_name");
    if (rc)
        goto done;
    qsort(ks.rows, ks.n, sizeof *ks.rows, raw_order);
    qsort(tables.rows, tables.n, sizeof *tables.rows, raw_order);
    qsort(cols.rows, cols.n, sizeof *cols.rows, raw_order);

    m->keyspaces = arena_alloc(m, sizeof *m->keyspaces * ks.n);
    CassKeyspaceMeta *kms = arena_alloc(m, sizeof *kms * ks.n);
    if (!m->keyspaces || !kms) {
        rc = nomem(b->err, "keyspaces");
        goto done;
    }
    size_t t0 = 0; /* first table row not yet placed (both lists sorted by keyspace) */
    for (size_t i = 0; i < ks.n; i++) {
        CassKeyspaceMeta *km = &kms[i];
        memset(km, 0, sizeof *km);
        km->name = ks.rows[i].k[0];
        km->name_len = strlen(km->name);
        km->fields = ks.rows[i].fields;
        m->keyspaces[m->n_keyspaces++] = km;

        while (t0 < tables.n && strcmp(tables.rows[t0].k[0], km->name) < 0)
            t0++;
        size_t t1 = t0;
        while (t1 < tables.n && !strcmp(tables.rows[t1].k[0], km->name))
            t1++;
        size_t n = t1 - t0;
        km->tables = arena_alloc(m, sizeof *km->tables * n);
        CassTableMeta *tms = arena_alloc(m, sizeof *tms * n);
        if (!km->tables || !tms) {
            rc = nomem(b->err, km->name);
            goto done;
        }
        for (size_t j = 0; j < n; j++) {
            const raw_row *row = &tables.rows[t0 + j];
            CassTableMeta *tm = &tms[j];
            memset(tm, 0, sizeof *tm);
            tm->name = row->k[1];
            tm->name_len = strlen(tm->name);
            tm->fields = row->fields;
            const eng_table *t = table_of(b->s, km->name, tm->name);
            if (t && (rc = build_columns(b, tm, km->name, t, &cols)))
                goto done;
            km->tables[km->n_tables++] = tm;
        }
        t0 = t1;
        if ((rc = build_types(b, km)))
            goto done;
    }
done:
    eng_free(ks.rows);
    eng_free(tables.rows);
    eng_free(cols.rows);
    return rc;
}

CassSchemaMeta *cql_drv_schema_meta_new(eng_db *db)
{
    CassSchemaMeta *m = eng_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    eng_arena_init(&m->arena, 16384);
    if (!db)
        return m;
    eng_err err;
    eng_err_clear(&err);
    eng_schema *s = NULL;
    int rc = eng_db_schema(db, &s, &err);
    if (!rc) {
        build b = {m, db, s, &err};
        rc = build_all(&b);
    }
    if (s)
        eng_schema_unref(s);
    if (rc) {
        if (rc != ENG_E_NOMEM)
            cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                        "Unable to build the schema metadata: %s", err.msg);
        cass_schema_meta_free(m);
        return NULL;
    }
    return m;
}

void cass_schema_meta_free(const CassSchemaMeta *schema_meta)
{
    CassSchemaMeta *m = (CassSchemaMeta *)schema_meta;
    if (!m)
        return;
    for (size_t i = 0; i < m->n_refs; i++)
        cql_drv_type_unref(m->refs[i]);
    eng_free(m->refs);
    eng_arena_free(&m->arena);
    eng_free(m);
}

/* ------------------------------------------------------------------------ */
/* Schema                                                                    */
/* ------------------------------------------------------------------------ */

cass_uint32_t cass_schema_meta_snapshot_version(const CassSchemaMeta *schema_meta)
{
    return schema_meta ? schema_meta->snapshot_version : 0;
}

CassVersion cass_schema_meta_version(const CassSchemaMeta *schema_meta)
{
    CassVersion none = {0, 0, 0};
    return schema_meta ? schema_meta->version : none;
}

const CassKeyspaceMeta *cass_schema_meta_keyspace_by_name(const CassSchemaMeta *schema_meta,
                                                          const char *keyspace)
{
    return keyspace ? cass_schema_meta_keyspace_by_name_n(schema_meta, keyspace, strlen(keyspace))
                    : NULL;
}

const CassKeyspaceMeta *cass_schema_meta_keyspace_by_name_n(const CassSchemaMeta *schema_meta,
                                                            const char *keyspace,
                                                            size_t keyspace_length)
{
    if (!schema_meta)
        return NULL;
    long i = FIND_BY_NAME(schema_meta->keyspaces, schema_meta->n_keyspaces, CassKeyspaceMeta,
                          keyspace, keyspace_length);
    return i < 0 ? NULL : schema_meta->keyspaces[i];
}

/* ------------------------------------------------------------------------ */
/* Keyspaces                                                                 */
/* ------------------------------------------------------------------------ */

/* Hands out a borrowed name; "" for a NULL object. */
static void name_out(const char *name, size_t len, const char **out, size_t *out_len)
{
    if (out)
        *out = name ? name : "";
    if (out_len)
        *out_len = name ? len : 0;
}

void cass_keyspace_meta_name(const CassKeyspaceMeta *keyspace_meta, const char **name,
                             size_t *name_length)
{
    name_out(keyspace_meta ? keyspace_meta->name : NULL,
             keyspace_meta ? keyspace_meta->name_len : 0, name, name_length);
}

cass_bool_t cass_keyspace_meta_is_virtual(const CassKeyspaceMeta *keyspace_meta)
{
    (void)keyspace_meta; /* system_views and system_virtual_schema are not listed */
    return cass_false;
}

const CassTableMeta *cass_keyspace_meta_table_by_name(const CassKeyspaceMeta *keyspace_meta,
                                                      const char *table)
{
    return table ? cass_keyspace_meta_table_by_name_n(keyspace_meta, table, strlen(table)) : NULL;
}

const CassTableMeta *cass_keyspace_meta_table_by_name_n(const CassKeyspaceMeta *keyspace_meta,
                                                        const char *table, size_t table_length)
{
    if (!keyspace_meta)
        return NULL;
    long i = FIND_BY_NAME(keyspace_meta->tables, keyspace_meta->n_tables, CassTableMeta, table,
                          table_length);
    return i < 0 ? NULL : keyspace_meta->tables[i];
}

const CassMaterializedViewMeta *
cass_keyspace_meta_materialized_view_by_name(const CassKeyspaceMeta *keyspace_meta,
                                             const char *view)
{
    return view ? cass_keyspace_meta_materialized_view_by_name_n(keyspace_meta, view, strlen(view))
                : NULL;
}

const CassMaterializedViewMeta *
cass_keyspace_meta_materialized_view_by_name_n(const CassKeyspaceMeta *keyspace_meta,
                                               const char *view, size_t view_length)
{
    (void)keyspace_meta, (void)view, (void)view_length; /* no materialized views exist */
    return NULL;
}

const CassDataType *cass_keyspace_meta_user_type_by_name(const CassKeyspaceMeta *keyspace_meta,
                                                         const char *type)
{
    return type ? cass_keyspace_meta_user_type_by_name_n(keyspace_meta, type, strlen(type)) : NULL;
}

const CassDataType *cass_keyspace_meta_user_type_by_name_n(const CassKeyspaceMeta *keyspace_meta,
                                                           const char *type, size_t type_length)
{
    if (!keyspace_meta || !type)
        return NULL;
    long i = find_name(keyspace_meta->type_names, keyspace_meta->n_types, type, type_length);
    return i < 0 ? NULL : keyspace_meta->types[i];
}

const CassFunctionMeta *cass_keyspace_meta_function_by_name(const CassKeyspaceMeta *keyspace_meta,
                                                            const char *name, const char *arguments)
{
    return name && arguments ? cass_keyspace_meta_function_by_name_n(
                                   keyspace_meta, name, strlen(name), arguments, strlen(arguments))
                             : NULL;
}

const CassFunctionMeta *cass_keyspace_meta_function_by_name_n(const CassKeyspaceMeta *keyspace_meta,
                                                              const char *name, size_t name_length,
                                                              const char *arguments,
                                                              size_t arguments_length)
{
    (void)keyspace_meta, (void)name, (void)name_length, (void)arguments, (void)arguments_length;
    return NULL; /* no user-defined functions exist */
}

const CassAggregateMeta *cass_keyspace_meta_aggregate_by_name(const CassKeyspaceMeta *keyspace_meta,
                                                              const char *name,
                                                              const char *arguments)
{
    return name && arguments ? cass_keyspace_meta_aggregate_by_name_n(
                                   keyspace_meta, name, strlen(name), arguments, strlen(arguments))
                             : NULL;
}

const CassAggregateMeta *
cass_keyspace_meta_aggregate_by_name_n(const CassKeyspaceMeta *keyspace_meta, const char *name,
                                       size_t name_length, const char *arguments,
                                       size_t arguments_length)
{
    (void)keyspace_meta, (void)name, (void)name_length, (void)arguments, (void)arguments_length;
    return NULL; /* no user-defined aggregates exist */
}

const CassValue *cass_keyspace_meta_field_by_name(const CassKeyspaceMeta *keyspace_meta,
                                                  const char *name)
{
    return name ? cass_keyspace_meta_field_by_name_n(keyspace_meta, name, strlen(name)) : NULL;
}

const CassValue *cass_keyspace_meta_field_by_name_n(const CassKeyspaceMeta *keyspace_meta,
                                                    const char *name, size_t name_length)
{
    return keyspace_meta ? field_by_name(&keyspace_meta->fields, name, name_length) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

void cass_table_meta_name(const CassTableMeta *table_meta, const char **name, size_t *name_length)
{
    name_out(table_meta ? table_meta->name : NULL, table_meta ? table_meta->name_len : 0, name,
             name_length);
}

cass_bool_t cass_table_meta_is_virtual(const CassTableMeta *table_meta)
{
    (void)table_meta; /* virtual tables are not listed in system_schema */
    return cass_false;
}

const CassColumnMeta *cass_table_meta_column_by_name(const CassTableMeta *table_meta,
                                                     const char *column)
{
    return column ? cass_table_meta_column_by_name_n(table_meta, column, strlen(column)) : NULL;
}

const CassColumnMeta *cass_table_meta_column_by_name_n(const CassTableMeta *table_meta,
                                                       const char *column, size_t column_length)
{
    if (!table_meta || !column)
        return NULL;
    size_t lo = 0, hi = table_meta->n_cols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const CassColumnMeta *c = table_meta->cols[table_meta->by_name[mid]];
        int cmp = name_cmp(c->name, column, column_length);
        if (!cmp)
            return c;
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t cass_table_meta_column_count(const CassTableMeta *table_meta)
{
    return table_meta ? table_meta->n_cols : 0;
}

const CassColumnMeta *cass_table_meta_column(const CassTableMeta *table_meta, size_t index)
{
    if (!table_meta || index >= table_meta->n_cols)
        return NULL;
    return table_meta->cols[index];
}

const CassIndexMeta *cass_table_meta_index_by_name(const CassTableMeta *table_meta,
                                                   const char *index)
{
    return index ? cass_table_meta_index_by_name_n(table_meta, index, strlen(index)) : NULL;
}

const CassIndexMeta *cass_table_meta_index_by_name_n(const CassTableMeta *table_meta,
                                                     const char *index, size_t index_length)
{
    (void)table_meta, (void)index, (void)index_length; /* no secondary indexes exist */
    return NULL;
}

size_t cass_table_meta_index_count(const CassTableMeta *table_meta)
{
    (void)table_meta;
    return 0;
}

const CassIndexMeta *cass_table_meta_index(const CassTableMeta *table_meta, size_t index)
{
    (void)table_meta, (void)index;
    return NULL;
}

const CassMaterializedViewMeta *
cass_table_meta_materialized_view_by_name(const CassTableMeta *table_meta, const char *view)
{
    return view ? cass_table_meta_materialized_view_by_name_n(table_meta, view, strlen(view))
                : NULL;
}

const CassMaterializedViewMeta *
cass_table_meta_materialized_view_by_name_n(const CassTableMeta *table_meta, const char *view,
                                            size_t view_length)
{
    (void)table_meta, (void)view, (void)view_length; /* no materialized views exist */
    return NULL;
}

size_t cass_table_meta_materialized_view_count(const CassTableMeta *table_meta)
{
    (void)table_meta;
    return 0;
}

const CassMaterializedViewMeta *cass_table_meta_materialized_view(const CassTableMeta *table_meta,
                                                                  size_t index)
{
    (void)table_meta, (void)index;
    return NULL;
}

size_t cass_table_meta_partition_key_count(const CassTableMeta *table_meta)
{
    return table_meta ? table_meta->n_pk : 0;
}

const CassColumnMeta *cass_table_meta_partition_key(const CassTableMeta *table_meta, size_t index)
{
    if (!table_meta || index >= table_meta->n_pk)
        return NULL;
    return table_meta->cols[index];
}

size_t cass_table_meta_clustering_key_count(const CassTableMeta *table_meta)
{
    return table_meta ? table_meta->n_ck : 0;
}

const CassColumnMeta *cass_table_meta_clustering_key(const CassTableMeta *table_meta, size_t index)
{
    if (!table_meta || index >= table_meta->n_ck)
        return NULL;
    return table_meta->cols[table_meta->n_pk + index];
}

CassClusteringOrder cass_table_meta_clustering_key_order(const CassTableMeta *table_meta,
                                                         size_t index)
{
    const CassColumnMeta *c = cass_table_meta_clustering_key(table_meta, index);
    return c ? c->order : CASS_CLUSTERING_ORDER_NONE;
}

const CassValue *cass_table_meta_field_by_name(const CassTableMeta *table_meta, const char *name)
{
    return name ? cass_table_meta_field_by_name_n(table_meta, name, strlen(name)) : NULL;
}

const CassValue *cass_table_meta_field_by_name_n(const CassTableMeta *table_meta, const char *name,
                                                 size_t name_length)
{
    return table_meta ? field_by_name(&table_meta->fields, name, name_length) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Columns                                                                   */
/* ------------------------------------------------------------------------ */

void cass_column_meta_name(const CassColumnMeta *column_meta, const char **name,
                           size_t *name_length)
{
    name_out(column_meta ? column_meta->name : NULL, column_meta ? column_meta->name_len : 0, name,
             name_length);
}

CassColumnType cass_column_meta_type(const CassColumnMeta *column_meta)
{
    return column_meta ? column_meta->type : CASS_COLUMN_TYPE_REGULAR;
}

const CassDataType *cass_column_meta_data_type(const CassColumnMeta *column_meta)
{
    return column_meta ? column_meta->data_type : NULL;
}

const CassValue *cass_column_meta_field_by_name(const CassColumnMeta *column_meta, const char *name)
{
    return name ? cass_column_meta_field_by_name_n(column_meta, name, strlen(name)) : NULL;
}

const CassValue *cass_column_meta_field_by_name_n(const CassColumnMeta *column_meta,
                                                  const char *name, size_t name_length)
{
    return column_meta ? field_by_name(&column_meta->fields, name, name_length) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Iterators (struct CassIterator_ and next / free live in drv_result.c)     */
/* ------------------------------------------------------------------------ */

static CassIterator *items_iterator(CassIteratorType type, const void *const *items, size_t n)
{
    CassIterator *it = cql_drv_iterator_new(type, n);
    if (it)
        it->u.meta.items = items;
    return it;
}

static CassIterator *fields_iterator(const meta_fields *f)
{
    CassIterator *it = cql_drv_iterator_new(CASS_ITERATOR_TYPE_META_FIELD, f->n);
    if (it) {
        it->u.meta.names = (const char *const *)f->names;
        it->u.meta.values = f->values;
    }
    return it;
}

CassIterator *cass_iterator_keyspaces_from_schema_meta(const CassSchemaMeta *schema_meta)
{
    if (!schema_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_KEYSPACE_META, schema_meta->keyspaces,
                          schema_meta->n_keyspaces);
}

CassIterator *cass_iterator_tables_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta)
{
    if (!keyspace_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_TABLE_META, keyspace_meta->tables,
                          keyspace_meta->n_tables);
}

CassIterator *cass_iterator_user_types_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta)
{
    if (!keyspace_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_TYPE_META, keyspace_meta->types,
                          keyspace_meta->n_types);
}

CassIterator *cass_iterator_fields_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta)
{
    return keyspace_meta ? fields_iterator(&keyspace_meta->fields) : NULL;
}

CassIterator *cass_iterator_columns_from_table_meta(const CassTableMeta *table_meta)
{
    if (!table_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_COLUMN_META, table_meta->cols, table_meta->n_cols);
}

CassIterator *cass_iterator_fields_from_table_meta(const CassTableMeta *table_meta)
{
    return table_meta ? fields_iterator(&table_meta->fields) : NULL;
}

CassIterator *cass_iterator_fields_from_column_meta(const CassColumnMeta *column_meta)
{
    return column_meta ? fields_iterator(&column_meta->fields) : NULL;
}

/* The current item of a metadata iterator of that kind, or NULL (wrong kind, no current item). */
static const void *current(const CassIterator *it, CassIteratorType type)
{
    if (!it || it->type != type || it->pos == 0 || it->pos > it->count || !it->u.meta.items)
        return NULL;
    return it->u.meta.items[it->pos - 1];
}

const CassKeyspaceMeta *cass_iterator_get_keyspace_meta(const CassIterator *iterator)
{
    return current(iterator, CASS_ITERATOR_TYPE_KEYSPACE_META);
}

const CassTableMeta *cass_iterator_get_table_meta(const CassIterator *iterator)
{
    return current(iterator, CASS_ITERATOR_TYPE_TABLE_META);
}

const CassColumnMeta *cass_iterator_get_column_meta(const CassIterator *iterator)
{
    return current(iterator, CASS_ITERATOR_TYPE_COLUMN_META);
}

static int current_field(const CassIterator *it)
{
    return it && it->type == CASS_ITERATOR_TYPE_META_FIELD && it->pos > 0 && it->pos <= it->count &&
           it->u.meta.names && it->u.meta.values;
}

CassError cass_iterator_get_meta_field_name(const CassIterator *iterator, const char **name,
                                            size_t *name_length)
{
    if (!current_field(iterator) || !name || !name_length)
        return CASS_ERROR_LIB_BAD_PARAMS;
    *name = iterator->u.meta.names[iterator->pos - 1];
    *name_length = strlen(*name);
    return CASS_OK;
}

const CassValue *cass_iterator_get_meta_field_value(const CassIterator *iterator)
{
    return current_field(iterator) ? &iterator->u.meta.values[iterator->pos - 1] : NULL;
}
