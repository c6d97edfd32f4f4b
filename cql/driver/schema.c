/*
 * Schema metadata of the driver API (cassandra.h): cass_schema_meta_*,
 * cass_keyspace_meta_*, cass_table_meta_*, cass_column_meta_*,
 * cass_index_meta_*, cass_materialized_view_meta_*, cass_function_meta_*,
 * cass_aggregate_meta_* and the iterators over them.
 *
 * The driver learns the schema only from rows: system_schema.keyspaces,
 * tables, columns, types, indexes, views, functions and aggregates, and
 * system.local, and keeps each row's columns as the "fields" of the object it
 * describes. A snapshot here is built the
 * same way and from nothing else (cql_drv_schema_meta_from_rows), so the
 * same code serves whichever backend fetched the rows, and what an
 * application reads through the metadata API is exactly what a SELECT on
 * those tables returns. What is read from which column:
 *  - keyspaces: keyspace_name; tables: keyspace_name, table_name;
 *  - columns: keyspace_name, table_name, column_name; kind (partition_key,
 *    clustering, static, else regular); position (the place in its key);
 *    clustering_order ("desc" reverses a clustering column); type, the CQL
 *    text of its data type, parsed by type_parser.c;
 *  - types: keyspace_name, type_name, field_names and field_types (CQL texts
 *    parsed the same way), a user type named in a type text resolved among
 *    the types of the same keyspace;
 *  - indexes: keyspace_name, table_name, index_name; kind (KEYS, CUSTOM,
 *    COMPOSITES in any case, else unknown); options, whose "target" entry is
 *    the target (the driver's IndexMetadata::from_row);
 *  - views: keyspace_name, view_name, base_table_name (a view whose base
 *    table is unknown is logged and left out, as update_views does); its
 *    columns are the system_schema.columns rows whose table_name is the view;
 *  - functions: keyspace_name, function_name, argument_types (a row without
 *    it is logged and left out), argument_names (paired with the types up to
 *    the shorter list), return_type, body, language, called_on_null_input;
 *  - aggregates: keyspace_name, aggregate_name, argument_types, return_type,
 *    state_type, state_func, final_func, initcond (see build_aggregate);
 *  - local: release_version, the server version.
 * Columns are found by name, never by position. A row whose keys cannot be
 * read fails the whole snapshot; a type text that does not parse leaves that
 * one type out, logged (the driver's behaviour).
 *
 * Everything a snapshot hands out lives in it: names, field values and
 * arrays in one arena, data types as references it holds; freeing the
 * snapshot frees all of it at once. A snapshot never changes once built,
 * so any number of threads may read it.
 *
 * Orders, as the driver keeps them: keyspaces, tables, views and user types
 * by name (the driver's maps; a table's views sorted by name, its indexes in
 * system_schema.indexes order, which is by name), functions and aggregates by
 * full name ("name(type1,type2)", the driver's map key), fields by name,
 * columns partition key first (in key order, by position), then clustering
 * columns (the same), then the others by name (system_schema.columns order).
 * Names are matched exactly (byte order).
 *
 * The embedded engine has no secondary indexes, views, functions or
 * aggregates: its system_schema tables for them are empty, so embedded their
 * lookups return NULL, their counts 0 and their iterators are empty; a remote
 * Cassandra fills them. No keyspace or table is virtual (the virtual
 * keyspaces are not listed in system_schema).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cql/driver/driver_int.h"

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
    int32_t position;          /* key columns: the place in their key (system_schema's) */
    const CassDataType *data_type;
    meta_fields fields;
};

/* A table, or the table part of a materialized view (then without indexes or views). */
struct CassTableMeta_ {
    const char *name;
    size_t name_len;
    meta_fields fields;
    size_t n_cols, n_pk, n_ck;
    const void **cols; /* const CassColumnMeta *: cols[0, n_pk) partition key, then n_ck
                          clustering columns, then the others by name */
    uint32_t *by_name; /* indexes into cols, by column name */
    size_t n_indexes;
    const void **indexes; /* const CassIndexMeta *, by name */
    size_t n_views;
    const void **views; /* const CassMaterializedViewMeta * built on this table, by name */
};

struct CassIndexMeta_ {
    const char *name;
    size_t name_len;
    CassIndexType type; /* from kind */
    const char *target; /* options["target"]; "" when absent */
    size_t target_len;
    const CassValue *options; /* the options field; NULL when the row has no such column */
    meta_fields fields;
};

struct CassMaterializedViewMeta_ {
    const char *name; /* the same as t.name, first for find_object */
    size_t name_len;
    CassTableMeta t; /* its columns and fields, built as a table's */
    const CassTableMeta *base_table;
};

struct CassFunctionMeta_ {
    const char *name; /* the full name, "name(type1,type2)": the key it is found by */
    size_t name_len;
    const char *simple_name; /* function_name */
    size_t simple_name_len;
    const char *body, *language; /* "" when absent or null */
    cass_bool_t called_on_null_input;
    size_t n_args;
    const char **arg_names;         /* NUL-terminated */
    const CassDataType **arg_types; /* parallel to arg_names; NULL: did not parse */
    const CassDataType *return_type;
    meta_fields fields;
};

struct CassAggregateMeta_ {
    const char *name; /* the full name, as a function's */
    size_t name_len;
    const char *simple_name; /* aggregate_name */
    size_t simple_name_len;
    size_t n_args;
    const CassDataType **arg_types; /* NULL: did not parse */
    const CassDataType *return_type, *state_type;
    const CassFunctionMeta *state_func, *final_func; /* NULL: not in the snapshot */
    CassValue init_cond;                             /* len -1 when there is none */
    meta_fields fields;
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
    size_t n_views;
    const void **views; /* const CassMaterializedViewMeta *, by name */
    size_t n_functions;
    const void **functions; /* const CassFunctionMeta *, by full name */
    size_t n_aggregates;
    const void **aggregates; /* const CassAggregateMeta *, by full name */
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
/* Reading the rows                                                          */
/* ------------------------------------------------------------------------ */

/* The inputs by their place in the array, for messages and queries. */
static const char *const TABLE_NAMES[CQL_DRV_SCHEMA_N] = {
    [CQL_DRV_SCHEMA_KEYSPACES] = "system_schema.keyspaces",
    [CQL_DRV_SCHEMA_TABLES] = "system_schema.tables",
    [CQL_DRV_SCHEMA_COLUMNS] = "system_schema.columns",
    [CQL_DRV_SCHEMA_TYPES] = "system_schema.types",
    [CQL_DRV_SCHEMA_INDEXES] = "system_schema.indexes",
    [CQL_DRV_SCHEMA_FUNCTIONS] = "system_schema.functions",
    [CQL_DRV_SCHEMA_AGGREGATES] = "system_schema.aggregates",
    [CQL_DRV_SCHEMA_VIEWS] = "system_schema.views",
    [CQL_DRV_SCHEMA_LOCAL] = "system.local",
};

/* The queries every backend fetches the inputs with: each table whole (SELECT * FROM ...). */
static const char *const QUERIES[CQL_DRV_SCHEMA_N] = {
    [CQL_DRV_SCHEMA_KEYSPACES] = "SELECT * FROM system_schema.keyspaces",
    [CQL_DRV_SCHEMA_TABLES] = "SELECT * FROM system_schema.tables",
    [CQL_DRV_SCHEMA_COLUMNS] = "SELECT * FROM system_schema.columns",
    [CQL_DRV_SCHEMA_TYPES] = "SELECT * FROM system_schema.types",
    [CQL_DRV_SCHEMA_INDEXES] = "SELECT * FROM system_schema.indexes",
    [CQL_DRV_SCHEMA_FUNCTIONS] = "SELECT * FROM system_schema.functions",
    [CQL_DRV_SCHEMA_AGGREGATES] = "SELECT * FROM system_schema.aggregates",
    [CQL_DRV_SCHEMA_VIEWS] = "SELECT * FROM system_schema.views",
    [CQL_DRV_SCHEMA_LOCAL] = "SELECT * FROM system.local",
};

const char *cql_drv_schema_query(int table)
{
    return table >= 0 && table < CQL_DRV_SCHEMA_N ? QUERIES[table] : NULL;
}

/* The key columns of each input, in key order: what places a row in the snapshot. Functions
   and aggregates are also keyed by argument_types (a list, not text): rows of one name are
   told apart by their full names (build_functions). */
static const char *const KEYS[CQL_DRV_SCHEMA_N][3] = {
    [CQL_DRV_SCHEMA_KEYSPACES] = {"keyspace_name"},
    [CQL_DRV_SCHEMA_TABLES] = {"keyspace_name", "table_name"},
    [CQL_DRV_SCHEMA_COLUMNS] = {"keyspace_name", "table_name", "column_name"},
    [CQL_DRV_SCHEMA_TYPES] = {"keyspace_name", "type_name"},
    [CQL_DRV_SCHEMA_INDEXES] = {"keyspace_name", "table_name", "index_name"},
    [CQL_DRV_SCHEMA_FUNCTIONS] = {"keyspace_name", "function_name"},
    [CQL_DRV_SCHEMA_AGGREGATES] = {"keyspace_name", "aggregate_name"},
    [CQL_DRV_SCHEMA_VIEWS] = {"keyspace_name", "view_name"},
};

/* One row of a system table: its keys as C strings, its columns as fields. */
typedef struct raw_row {
    const char *k[3]; /* the values of its table's KEYS; "" past them */
    meta_fields fields;
} raw_row;

/* The rows of one input, in the arena, sorted by their keys. */
typedef struct sys_rows {
    raw_row *rows;
    size_t n;
} sys_rows;

typedef struct build {
    CassSchemaMeta *m;
    eng_err *err;
} build;

static void *arena_alloc(CassSchemaMeta *m, size_t n)
{
    return eng_arena_alloc(&m->arena, n ? n : 1);
}

static const char *arena_str(CassSchemaMeta *m, const char *s)
{
    size_t n = strlen(s);
    char *p = arena_alloc(m, n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
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

/* A row the snapshot cannot be built from: ENG_E_CORRUPT, kept apart from ENG_E_INVALID, which
   the type parser returns for a type text it refuses (logged, and the build goes on). */
#define UNREADABLE ENG_E_CORRUPT

static int is_text(const CassValue *v)
{
    CassValueType t = v->type ? v->type->value_type : CASS_VALUE_TYPE_UNKNOWN;
    return t == CASS_VALUE_TYPE_VARCHAR || t == CASS_VALUE_TYPE_TEXT || t == CASS_VALUE_TYPE_ASCII;
}

/* A text field (the arena copy ends in a NUL), or NULL: absent, null or not text. */
static const CassValue *text_field(const meta_fields *f, const char *name)
{
    const CassValue *v = field_by_name(f, name, strlen(name));
    return v && v->len >= 0 && is_text(v) ? v : NULL;
}

static const char *field_text(const meta_fields *f, const char *name)
{
    const CassValue *v = text_field(f, name);
    return v ? (const char *)v->p : NULL;
}

/* Orders row r against the keys keys[0, nk) (its first nk keys only). */
static int key_cmp(const raw_row *r, const char *const *keys, int nk)
{
    int c = 0;
    for (int j = 0; !c && j < nk; j++)
        c = strcmp(r->k[j], keys[j]);
    return c;
}

static int raw_order(const void *a, const void *b)
{
    return key_cmp(a, ((const raw_row *)b)->k, 3);
}

/* Sorts the column indexes idx[0, n) of r by column name (few columns: an insertion sort). */
static void sort_specs_by_name(const cql_result *r, uint32_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t v = idx[i];
        const char *name = r->cols[v].name ? r->cols[v].name : "";
        size_t j = i;
        while (j > 0 &&
               strcmp(r->cols[idx[j - 1]].name ? r->cols[idx[j - 1]].name : "", name) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

/* One cell copied into the arena, one byte more than the value: a NUL, so text doubles as a C
   string. Null cells have len -1. */
static int copy_cell(CassSchemaMeta *m, const eng_val *cell, const CassDataType *type,
                     CassValue *out)
{
    out->type = type;
    out->p = NULL;
    out->len = ENG_NULL;
    if (cell->len < 0)
        return 0;
    uint8_t *p = arena_alloc(m, (size_t)cell->len + 1);
    if (!p)
        return ENG_E_NOMEM;
    if (cell->len)
        memcpy(p, cell->p, (size_t)cell->len);
    p[cell->len] = 0;
    out->p = p;
    out->len = cell->len;
    return 0;
}

/* Every row of input `table` (a ROWS result, or none) into out, with its keys, sorted. */
static int read_rows(build *b, const cql_result *r, int table, sys_rows *out)
{
    CassSchemaMeta *m = b->m;
    const char *what = TABLE_NAMES[table];
    memset(out, 0, sizeof *out);
    if (!r || r->kind != CQL_RESULT_ROWS || !r->n_rows)
        return 0;
    /* What the rows share: the column names in name order, and each column's data type. */
    uint32_t nc = r->n_cols;
    uint32_t *order = arena_alloc(m, sizeof *order * nc);
    const char **names = arena_alloc(m, sizeof *names * nc);
    CassDataType **types = arena_alloc(m, sizeof *types * nc);
    out->rows = arena_alloc(m, sizeof *out->rows * r->n_rows);
    if (!order || !names || !types || !out->rows)
        return nomem(b->err, what);
    for (uint32_t i = 0; i < nc; i++)
        order[i] = i;
    sort_specs_by_name(r, order, nc);
    for (uint32_t k = 0; k < nc; k++) {
        const cql_column_spec *spec = &r->cols[order[k]];
        if (!spec->type)
            return eng_errorf(b->err, UNREADABLE, "%s: column %s has no type", what,
                              spec->name ? spec->name : "");
        if (!(names[k] = arena_str(m, spec->name ? spec->name : "")))
            return nomem(b->err, what);
        types[k] = cql_drv_type_from_eng(spec->type);
        if (hold_type(m, types[k]))
            return nomem(b->err, what);
    }
    for (uint32_t i = 0; i < r->n_rows; i++) {
        raw_row *row = &out->rows[i];
        row->fields.n = nc;
        row->fields.names = names;
        row->fields.values = arena_alloc(m, sizeof *row->fields.values * nc);
        if (!row->fields.values)
            return nomem(b->err, what);
        for (uint32_t k = 0; k < nc; k++)
            if (copy_cell(m, &r->cells[(size_t)i * nc + order[k]], types[k],
                          &row->fields.values[k]))
                return nomem(b->err, what);
        for (int j = 0; j < 3; j++) {
            const char *key = KEYS[table][j];
            row->k[j] = key ? field_text(&row->fields, key) : "";
            if (!row->k[j])
                return eng_errorf(b->err, UNREADABLE, "%s row %u: %s is missing, null or not text",
                                  what, i, key);
        }
    }
    out->n = r->n_rows;
    qsort(out->rows, out->n, sizeof *out->rows, raw_order);
    return 0;
}

/* The rows whose first nk keys are keys[0, nk): how many, from *first (rows are sorted). */
static size_t key_range(const sys_rows *s, const char *const *keys, int nk, size_t *first)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&s->rows[mid], keys, nk) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = *first = lo;
    while (end < s->n && !key_cmp(&s->rows[end], keys, nk))
        end++;
    return end - lo;
}

/* ------------------------------------------------------------------------ */
/* User types (system_schema.types)                                          */
/* ------------------------------------------------------------------------ */

/*
 * A field may name a type whose row sorts after its own, so a definition may need another
 * built first. That one goes on a stack of our own and the first is built again once it is
 * done, rather than building it from inside the first: nesting has no bound the stack could
 * take (a chain of a thousand types is legal), and each row is parsed at most once more per
 * type it waits for.
 */
enum { UDT_NEW, UDT_BUILDING, UDT_DONE }; /* UDT_BUILDING: on the stack, waiting or being built */

typedef struct udt_def {
    const raw_row *row; /* its system_schema.types row */
    CassDataType *type; /* once built: the definition (held by the snapshot); NULL if skipped */
    int state;
    int logged; /* its row's own faults are logged (it may be made more than once) */
} udt_def;

/* The user types of one keyspace, built on first use: a field or a column may name a type
   whose row sorts after its own. */
typedef struct ks_types {
    build *b;
    const char *ks;
    const sys_rows *rows; /* system_schema.types */
    size_t first, n;      /* the keyspace's rows in it */
    udt_def *defs;        /* one per row, in the same order (by type name) */
    udt_def *missing;     /* set by udt_lookup: a type a field names that is not built yet */
} ks_types;

/* cql_drv_udt_lookup over the keyspace's rows. */
static int udt_lookup(void *ctx, const char *name, const CassDataType **out, eng_err *err)
{
    ks_types *kt = ctx;
    const char *keys[2] = {kt->ks, name};
    size_t at;
    *out = NULL;
    if (!key_range(kt->rows, keys, 2, &at))
        return 0;
    udt_def *d = &kt->defs[at - kt->first];
    (void)err;
    if (d->state == UDT_BUILDING) {
        /* Cassandra refuses a type that contains itself: the reference stays a user type
           without fields. */
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__, "User type %s.%s contains itself",
                    kt->ks, name);
        return 0;
    }
    if (d->state == UDT_NEW) {
        kt->missing = d; /* build_types builds it, then the type that named it again */
        return 0;
    }
    *out = d->type;
    return 0;
}

/* A list<text> column of `row`, a row of input `table`: its item count and a cursor over
   them, or an error when it does not decode (a count more items than its bytes could hold
   included: nothing is sized by a count the bytes do not back). Null or absent: *n = -1. */
static int text_list(const raw_row *row, int table, const char *name, eng_items *it, int32_t *n,
                     eng_err *err)
{
    const CassValue *v = field_by_name(&row->fields, name, strlen(name));
    *n = -1;
    if (!v || v->len < 0)
        return 0;
    if (!v->type ||
        (v->type->value_type != CASS_VALUE_TYPE_LIST &&
         v->type->value_type != CASS_VALUE_TYPE_SET) ||
        (*n = eng_items_begin(it, v->p, (size_t)v->len)) < 0 ||
        (size_t)*n > ((size_t)v->len - 4) / 4)
        return eng_errorf(err, UNREADABLE, "%s row %s.%s: %s does not decode", TABLE_NAMES[table],
                          row->k[0], row->k[1], name);
    return 0;
}

static int list_field(const udt_def *d, const char *name, eng_items *it, int32_t *n, eng_err *err)
{
    return text_list(d->row, CQL_DRV_SCHEMA_TYPES, name, it, n, err);
}

/*
 * Appends field fname, its type parsed from the text ftype, to the user type dt of keyspace
 * kt. A field that is null or whose type does not parse is logged and sets *stop: the fields
 * stop there, as the driver's do. Returns 0 or an error code.
 */
static int add_field(ks_types *kt, CassDataType *dt, eng_val fname, eng_val ftype, int *stop,
                     eng_err *err)
{
    if (fname.len < 0 || ftype.len < 0) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "User type %s.%s has a null field name or type", kt->ks, dt->type_name);
        *stop = 1;
        return 0;
    }
    eng_err perr;
    eng_err_clear(&perr);
    CassDataType *ft;
    int rc = cql_drv_type_parse((const char *)ftype.p, (size_t)ftype.len, kt->ks, udt_lookup, kt,
                                &ft, &perr);
    if (rc == ENG_E_INVALID) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "Field %.*s of user type %s.%s: %s", (int)fname.len, (const char *)fname.p,
                    kt->ks, dt->type_name, perr.msg);
        kt->missing = NULL; /* the fields stop here whatever it named: nothing to wait for */
        *stop = 1;
        return 0;
    }
    if (rc)
        return eng_errorf(err, rc, "%s", perr.msg);
    if (kt->missing) {
        /* a type not built yet: this definition is made again once it is */
        cql_drv_type_unref(ft);
        *stop = 1;
        return 0;
    }
    if (!(dt->sub_names[dt->n_sub] = eng_strndup((const char *)fname.p, (size_t)fname.len))) {
        cql_drv_type_unref(ft);
        return nomem(err, dt->type_name);
    }
    dt->sub[dt->n_sub++] = ft;
    return 0;
}

/*
 * The definition of d (UDT_BUILDING) from its row, as the driver's update_user_types makes it:
 * field i is field_names[i] with the type parsed from field_types[i]. A row without names or
 * types is left out; the fields stop at the first null or unparsable one (all logged). Lists
 * that do not decode fail the snapshot. When a field names a type not built yet, d is left
 * UDT_BUILDING with kt->missing set, for build_types to build that one first.
 */
static int build_udt(ks_types *kt, udt_def *d, eng_err *err)
{
    const char *ks = d->row->k[0], *name = d->row->k[1];
    eng_items names, types;
    int32_t n_names, n_types;
    int rc = list_field(d, "field_names", &names, &n_names, err);
    if (!rc)
        rc = list_field(d, "field_types", &types, &n_types, err);
    if (rc)
        return rc;
    if (n_names < 0 || n_types < 0) {
        d->state = UDT_DONE;
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "User type %s.%s has null field_names or field_types", ks, name);
        return 0;
    }
    if (n_names != n_types && !d->logged)
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "User type %s.%s has %d field_names but %d field_types", ks, name, n_names,
                    n_types);
    d->logged = 1; /* a definition made again says it once */
    size_t n = (size_t)(n_names < n_types ? n_names : n_types);
    CassDataType *dt = cql_drv_type_new(CASS_VALUE_TYPE_UDT);
    if (dt) {
        dt->keyspace = eng_strdup(ks);
        dt->type_name = eng_strdup(name);
        dt->sub = eng_calloc(n ? n : 1, sizeof *dt->sub);
        dt->sub_names = eng_calloc(n ? n : 1, sizeof *dt->sub_names);
    }
    if (!dt || !dt->keyspace || !dt->type_name || !dt->sub || !dt->sub_names) {
        cql_drv_type_unref(dt);
        return nomem(err, name);
    }
    int stop = 0;
    for (size_t i = 0; i < n && !rc && !stop; i++) {
        eng_val fname, ftype;
        int a = eng_items_next(&names, &fname), c = eng_items_next(&types, &ftype);
        if (a <= 0 || c <= 0)
            rc = eng_errorf(err, UNREADABLE,
                            "system_schema.types row %s.%s: its field lists do not decode", ks,
                            name);
        else
            rc = add_field(kt, dt, fname, ftype, &stop, err);
    }
    if (rc || kt->missing) {
        cql_drv_type_unref(dt);
        return rc;
    }
    d->state = UDT_DONE;
    if (hold_type(kt->b->m, dt))
        return nomem(err, name);
    d->type = dt;
    return 0;
}

/* The keyspace's user types, from its rows of system_schema.types, listed by name. */
static int build_types(build *b, ks_types *kt, CassKeyspaceMeta *km, const sys_rows *types)
{
    CassSchemaMeta *m = b->m;
    size_t n = key_range(types, &km->name, 1, &kt->first);
    kt->b = b;
    kt->ks = km->name;
    kt->rows = types;
    kt->n = n;
    kt->missing = NULL;
    kt->defs = arena_alloc(m, sizeof *kt->defs * n);
    km->types = arena_alloc(m, sizeof *km->types * n);
    km->type_names = arena_alloc(m, sizeof *km->type_names * n);
    udt_def **stack = arena_alloc(m, sizeof *stack * n);
    if (!kt->defs || !km->types || !km->type_names || !stack)
        return nomem(b->err, km->name);
    for (size_t i = 0; i < n; i++)
        kt->defs[i] = (udt_def){&types->rows[kt->first + i], NULL, UDT_NEW, 0};
    for (size_t i = 0; i < n; i++) {
        size_t depth = 0;
        if (kt->defs[i].state == UDT_NEW) {
            kt->defs[i].state = UDT_BUILDING;
            stack[depth++] = &kt->defs[i];
        }
        while (depth) {
            kt->missing = NULL;
            int rc = build_udt(kt, stack[depth - 1], b->err);
            if (rc)
                return rc;
            if (kt->missing) {
                kt->missing->state = UDT_BUILDING;
                stack[depth++] = kt->missing;
            } else {
                depth--;
            }
        }
        if (kt->defs[i].type) {
            km->types[km->n_types] = kt->defs[i].type;
            km->type_names[km->n_types++] = kt->defs[i].row->k[1];
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Tables and columns (system_schema.tables, system_schema.columns)          */
/* ------------------------------------------------------------------------ */

/* The driver's reading of system_schema.columns.kind: anything else is a regular column. */
static CassColumnType column_kind(const char *kind)
{
    if (!kind)
        return CASS_COLUMN_TYPE_REGULAR;
    if (!strcmp(kind, "partition_key"))
        return CASS_COLUMN_TYPE_PARTITION_KEY;
    if (!strcmp(kind, "clustering"))
        return CASS_COLUMN_TYPE_CLUSTERING_KEY;
    if (!strcmp(kind, "static"))
        return CASS_COLUMN_TYPE_STATIC;
    return CASS_COLUMN_TYPE_REGULAR;
}

/* The key position of a column: an int, 0 when absent, null or negative (the driver's). */
static int32_t column_position(const meta_fields *f)
{
    const CassValue *v = field_by_name(f, "position", 8);
    if (!v || !v->type || v->type->value_type != CASS_VALUE_TYPE_INT || v->len != 4)
        return 0;
    int32_t pos = (int32_t)eng_be32(v->p);
    return pos < 0 ? 0 : pos;
}

/* Partition key columns by position, clustering columns by position, the others by name. */
static int column_group(const CassColumnMeta *c)
{
    return c->type == CASS_COLUMN_TYPE_PARTITION_KEY    ? 0
           : c->type == CASS_COLUMN_TYPE_CLUSTERING_KEY ? 1
                                                        : 2;
}

static int column_order(const void *a, const void *b)
{
    const CassColumnMeta *x = *(const CassColumnMeta *const *)a;
    const CassColumnMeta *y = *(const CassColumnMeta *const *)b;
    int gx = column_group(x), gy = column_group(y);
    if (gx != gy)
        return gx - gy;
    if (gx < 2 && x->position != y->position)
        return x->position < y->position ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The data type of a column, parsed from its type text; a text that does not parse is logged
   and leaves the type NULL, as the driver leaves it. */
static int column_data_type(build *b, ks_types *kt, CassColumnMeta *col, const char *table)
{
    const CassValue *v = text_field(&col->fields, "type");
    if (!v)
        return 0;
    eng_err perr;
    eng_err_clear(&perr);
    CassDataType *dt;
    int rc =
        cql_drv_type_parse((const char *)v->p, (size_t)v->len, kt->ks, udt_lookup, kt, &dt, &perr);
    if (rc == ENG_E_INVALID) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__, "Column %s.%s.%s: %s", kt->ks,
                    table, col->name, perr.msg);
        return 0;
    }
    if (rc)
        return eng_errorf(b->err, rc, "%s", perr.msg);
    if (hold_type(b->m, dt))
        return nomem(b->err, table);
    col->data_type = dt;
    return 0;
}

/* The columns of table tm from its rows of system_schema.columns (rows[0, n)). */
static int build_columns(build *b, ks_types *kt, CassTableMeta *tm, const raw_row *rows, size_t n)
{
    CassSchemaMeta *m = b->m;
    CassColumnMeta *cm = arena_alloc(m, sizeof *cm * n);
    tm->cols = arena_alloc(m, sizeof *tm->cols * n);
    tm->by_name = arena_alloc(m, sizeof *tm->by_name * n);
    if (!cm || !tm->cols || !tm->by_name)
        return nomem(b->err, tm->name);
    for (size_t i = 0; i < n; i++) {
        CassColumnMeta *col = &cm[i];
        memset(col, 0, sizeof *col);
        col->name = rows[i].k[2];
        col->name_len = strlen(col->name);
        col->fields = rows[i].fields;
        col->type = column_kind(field_text(&col->fields, "kind"));
        col->position = column_position(&col->fields);
        const char *order = field_text(&col->fields, "clustering_order");
        col->order = col->type != CASS_COLUMN_TYPE_CLUSTERING_KEY ? CASS_CLUSTERING_ORDER_NONE
                     : order && !strcasecmp(order, "desc")        ? CASS_CLUSTERING_ORDER_DESC
                                                                  : CASS_CLUSTERING_ORDER_ASC;
        int rc = column_data_type(b, kt, col, tm->name);
        if (rc)
            return rc;
        tm->cols[i] = col;
        tm->n_pk += col->type == CASS_COLUMN_TYPE_PARTITION_KEY;
        tm->n_ck += col->type == CASS_COLUMN_TYPE_CLUSTERING_KEY;
    }
    qsort(tm->cols, n, sizeof *tm->cols, column_order);
    /* The name index: an insertion sort of the positions in cols by column name. */
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)i;
        const char *name = ((const CassColumnMeta *)tm->cols[v])->name;
        size_t j = i;
        while (j > 0 &&
               strcmp(((const CassColumnMeta *)tm->cols[tm->by_name[j - 1]])->name, name) > 0) {
            tm->by_name[j] = tm->by_name[j - 1];
            j--;
        }
        tm->by_name[j] = v;
    }
    tm->n_cols = n;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Indexes, views, functions and aggregates                                  */
/* ------------------------------------------------------------------------ */

static const char *arena_strn(CassSchemaMeta *m, const char *s, size_t n)
{
    char *p = arena_alloc(m, n + 1);
    if (p) {
        if (n)
            memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

/* The data type written as text[0, len), for `what` (a message's subject): a text that does
   not parse is logged and gives NULL, as the driver's parser gives it. */
static int parse_type(build *b, ks_types *kt, const char *text, size_t len, const char *what,
                      const CassDataType **out)
{
    *out = NULL;
    eng_err perr;
    eng_err_clear(&perr);
    CassDataType *dt;
    int rc = cql_drv_type_parse(text, len, kt->ks, udt_lookup, kt, &dt, &perr);
    if (rc == ENG_E_INVALID) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__, "%s: %s", what, perr.msg);
        return 0;
    }
    if (rc)
        return eng_errorf(b->err, rc, "%s", perr.msg);
    if (hold_type(b->m, dt))
        return nomem(b->err, what);
    *out = dt;
    return 0;
}

/* The type in text field `name` of f (parse_type), NULL when absent, null or not text. */
static int field_type(build *b, ks_types *kt, const meta_fields *f, const char *name,
                      const char *what, const CassDataType **out)
{
    const CassValue *v = text_field(f, name);
    *out = NULL;
    return v ? parse_type(b, kt, (const char *)v->p, (size_t)v->len, what, out) : 0;
}

/*
 * Appends to out the comma-separated argument types args[0, len) as a full name lists them:
 * blanks removed, empty ones skipped, a comma before each but the first (*first, kept across
 * calls). A comma inside a type (map<int, text>) splits it in two pieces joined again by the
 * same comma, so each type reads as written without its blanks. The driver's rule, both for
 * the full names it makes from system_schema rows (Metadata::full_function_name) and for the
 * arguments an application looks a function up by (append_arguments). Returns the bytes
 * written, at most len + 1.
 */
static size_t put_args(char *out, const char *args, size_t len, int *first)
{
    size_t o = 0, i = 0;
    for (;;) {
        size_t start = o + (*first ? 0 : 1), w = 0;
        for (; i < len && args[i] != ','; i++)
            if (!isspace((unsigned char)args[i]))
                out[start + w++] = args[i];
        if (w) {
            if (!*first)
                out[o] = ',';
            o = start + w;
            *first = 0;
        }
        if (i >= len)
            return o;
        i++; /* the comma */
    }
}

/* The object in items[0, n) (sorted by the name at name_off) whose full name is
   name(arguments), arguments written as an application writes them; NULL when none. */
static const void *find_full_name(const void *const *items, size_t n, size_t name_off,
                                  const char *name, size_t name_len, const char *args,
                                  size_t args_len)
{
    if (!name || !args || !n)
        return NULL;
    char stack[256];
    size_t cap = name_len + args_len + 3;
    char *buf = cap <= sizeof stack ? stack : eng_malloc(cap);
    if (!buf)
        return NULL;
    memcpy(buf, name, name_len);
    size_t o = name_len;
    int first = 1;
    buf[o++] = '(';
    o += put_args(buf + o, args, args_len, &first);
    buf[o++] = ')';
    long i = find_object(items, n, name_off, buf, o);
    if (buf != stack)
        eng_free(buf);
    return i < 0 ? NULL : items[i];
}

/* The full name of a function or aggregate: name(types[0], ..., types[n - 1]), each type a
   text of the row (put_args), in the arena. */
static const char *full_name(CassSchemaMeta *m, const char *name, const eng_val *types, size_t n,
                             size_t *out_len)
{
    size_t cap = strlen(name) + 3;
    for (size_t i = 0; i < n; i++)
        cap += (types[i].len > 0 ? (size_t)types[i].len : 0) + 1;
    char *buf = arena_alloc(m, cap);
    if (!buf)
        return NULL;
    size_t o = strlen(name);
    memcpy(buf, name, o);
    buf[o++] = '(';
    int first = 1;
    for (size_t i = 0; i < n; i++)
        if (types[i].len > 0)
            o += put_args(buf + o, (const char *)types[i].p, (size_t)types[i].len, &first);
    buf[o++] = ')';
    buf[o] = 0;
    *out_len = o;
    return buf;
}

/* The items of a text list (text_list) into the arena array *out of *n views; a null or absent
   list is empty. */
static int list_items(build *b, const raw_row *row, int table, const char *name, eng_val **out,
                      size_t *n)
{
    eng_items it;
    int32_t count;
    *out = NULL;
    *n = 0;
    int rc = text_list(row, table, name, &it, &count, b->err);
    if (rc || count <= 0)
        return rc;
    eng_val *items = arena_alloc(b->m, sizeof *items * (size_t)count);
    if (!items)
        return nomem(b->err, row->k[1]);
    for (int32_t i = 0; i < count; i++)
        if (eng_items_next(&it, &items[i]) <= 0)
            return eng_errorf(b->err, UNREADABLE, "%s row %s.%s: %s does not decode",
                              TABLE_NAMES[table], row->k[0], row->k[1], name);
    *out = items;
    *n = (size_t)count;
    return 0;
}

/* The driver's reading of system_schema.indexes.kind (IndexMetadata::index_type_from_string). */
static CassIndexType index_kind(const char *kind)
{
    if (!kind)
        return CASS_INDEX_TYPE_UNKNOWN;
    if (!strcasecmp(kind, "keys"))
        return CASS_INDEX_TYPE_KEYS;
    if (!strcasecmp(kind, "custom"))
        return CASS_INDEX_TYPE_CUSTOM;
    if (!strcasecmp(kind, "composites"))
        return CASS_INDEX_TYPE_COMPOSITES;
    return CASS_INDEX_TYPE_UNKNOWN;
}

/* The target of an index: the value of "target" in its options map<text, text>, "" when the
   map is absent, null or has no such key (IndexMetadata::update). A map that does not decode
   fails the snapshot, as a list does. */
static int index_target(build *b, CassIndexMeta *im, const raw_row *row)
{
    const CassValue *v = im->options;
    im->target = "";
    im->target_len = 0;
    if (!v || v->len < 0 || !v->type || v->type->value_type != CASS_VALUE_TYPE_MAP)
        return 0;
    eng_items it;
    int32_t n = eng_items_begin(&it, v->p, (size_t)v->len);
    if (n < 0 || (size_t)n > ((size_t)v->len - 4) / 8)
        goto bad;
    for (int32_t i = 0; i < n; i++) {
        eng_val key, val;
        if (eng_items_next(&it, &key) <= 0 || eng_items_next(&it, &val) <= 0)
            goto bad;
        if (key.len == 6 && !memcmp(key.p, "target", 6) && val.len >= 0) {
            if (!(im->target = arena_strn(b->m, (const char *)val.p, (size_t)val.len)))
                return nomem(b->err, im->name);
            im->target_len = (size_t)val.len;
        }
    }
    return 0;
bad:
    return eng_errorf(b->err, UNREADABLE, "system_schema.indexes row %s.%s.%s: bad options",
                      row->k[0], row->k[1], row->k[2]);
}

/* The secondary indexes of table tm from its rows of system_schema.indexes (rows[0, n), by
   index name). */
static int build_indexes(build *b, CassTableMeta *tm, const raw_row *rows, size_t n)
{
    CassIndexMeta *ims = arena_alloc(b->m, sizeof *ims * n);
    tm->indexes = arena_alloc(b->m, sizeof *tm->indexes * n);
    if (!ims || !tm->indexes)
        return nomem(b->err, tm->name);
    for (size_t i = 0; i < n; i++) {
        CassIndexMeta *im = &ims[i];
        memset(im, 0, sizeof *im);
        im->name = rows[i].k[2];
        im->name_len = strlen(im->name);
        im->fields = rows[i].fields;
        im->type = index_kind(field_text(&im->fields, "kind"));
        im->options = field_by_name(&im->fields, "options", 7);
        int rc = index_target(b, im, &rows[i]);
        if (rc)
            return rc;
        tm->indexes[tm->n_indexes++] = im;
    }
    return 0;
}

static int by_name_order(const void *a, const void *b)
{
    const char *x, *y; /* every object starts with its name */
    memcpy(&x, *(const void *const *)a, sizeof x);
    memcpy(&y, *(const void *const *)b, sizeof y);
    return strcmp(x, y);
}

/* The function of row `row` into fm; *kept 0 when it is left out. */
static int build_function(build *b, ks_types *kt, CassFunctionMeta *fm, const raw_row *row,
                          int *kept)
{
    CassSchemaMeta *m = b->m;
    const int table = CQL_DRV_SCHEMA_FUNCTIONS;
    memset(fm, 0, sizeof *fm);
    *kept = 0;
    fm->fields = row->fields;
    fm->simple_name = row->k[1];
    fm->simple_name_len = strlen(fm->simple_name);
    if (!field_by_name(&row->fields, "argument_types", 14)) {
        /* the driver needs the signature to name it */
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "Function %s.%s has no argument_types", row->k[0], row->k[1]);
        return 0;
    }
    eng_val *names, *types;
    size_t n_names, n_types;
    int rc = list_items(b, row, table, "argument_names", &names, &n_names);
    if (!rc)
        rc = list_items(b, row, table, "argument_types", &types, &n_types);
    if (rc)
        return rc;
    if (!(fm->name = full_name(m, fm->simple_name, types, n_types, &fm->name_len)))
        return nomem(b->err, fm->simple_name);
    /* the arguments: names and types paired up to the shorter list (the driver's) */
    size_t n = n_names < n_types ? n_names : n_types;
    fm->arg_names = arena_alloc(m, sizeof *fm->arg_names * n);
    fm->arg_types = arena_alloc(m, sizeof *fm->arg_types * n);
    if (!fm->arg_names || !fm->arg_types)
        return nomem(b->err, fm->name);
    char what[256];
    for (size_t i = 0; i < n; i++) {
        size_t len = names[i].len > 0 ? (size_t)names[i].len : 0;
        if (!(fm->arg_names[i] = arena_strn(m, (const char *)names[i].p, len)))
            return nomem(b->err, fm->name);
        fm->arg_types[i] = NULL;
        snprintf(what, sizeof what, "Argument %s of function %s.%s", fm->arg_names[i], kt->ks,
                 fm->name);
        if (types[i].len >= 0 && (rc = parse_type(b, kt, (const char *)types[i].p,
                                                  (size_t)types[i].len, what, &fm->arg_types[i])))
            return rc;
    }
    fm->n_args = n;
    snprintf(what, sizeof what, "Return type of function %s.%s", kt->ks, fm->name);
    if ((rc = field_type(b, kt, &row->fields, "return_type", what, &fm->return_type)))
        return rc;
    const char *body = field_text(&row->fields, "body");
    const char *language = field_text(&row->fields, "language");
    fm->body = body ? body : "";
    fm->language = language ? language : "";
    const CassValue *v = field_by_name(&row->fields, "called_on_null_input", 20);
    fm->called_on_null_input =
        v && v->len == 1 && v->type && v->type->value_type == CASS_VALUE_TYPE_BOOLEAN && v->p[0]
            ? cass_true
            : cass_false;
    *kept = 1;
    return 0;
}

/* The keyspace's functions, from its rows of system_schema.functions, by full name. */
static int build_functions(build *b, ks_types *kt, CassKeyspaceMeta *km, const sys_rows *in)
{
    size_t first, n = key_range(in, &km->name, 1, &first);
    CassFunctionMeta *fms = arena_alloc(b->m, sizeof *fms * n);
    km->functions = arena_alloc(b->m, sizeof *km->functions * n);
    if (!fms || !km->functions)
        return nomem(b->err, km->name);
    for (size_t i = 0; i < n; i++) {
        int kept, rc = build_function(b, kt, &fms[i], &in->rows[first + i], &kept);
        if (rc)
            return rc;
        if (kept)
            km->functions[km->n_functions++] = &fms[i];
    }
    qsort(km->functions, km->n_functions, sizeof *km->functions, by_name_order);
    return 0;
}

/* The function of the keyspace named func(types[0], ..., types[n - 1]), or NULL. */
static const CassFunctionMeta *find_function(build *b, const CassKeyspaceMeta *km, const char *func,
                                             const eng_val *types, size_t n)
{
    size_t len;
    const char *name = full_name(b->m, func, types, n, &len);
    if (!name)
        return NULL; /* out of memory: no function, as a lookup finding none */
    long i = FIND_BY_NAME(km->functions, km->n_functions, CassFunctionMeta, name, len);
    return i < 0 ? NULL : km->functions[i];
}

/*
 * The aggregate of row `row` into am, as the driver's AggregateMetadata reads it: argument,
 * return and state types parsed from their texts; the state function is the keyspace's
 * function state_func(state type, argument types...), the final function final_func(state
 * type), NULL when the snapshot has none. The driver rebuilds the state type's text from the
 * type it parsed; this uses the text of the row, which Cassandra writes as it writes the
 * function's argument_types (the same CQL text for the same type), so a type the parser
 * normalizes ("text" read as varchar) still finds its function. initcond: a text column
 * (Cassandra 3.0 on) is the value, text; a blob (older) is read as a value of the state type;
 * absent or of another type, the value is null.
 */
static int build_aggregate(build *b, ks_types *kt, const CassKeyspaceMeta *km,
                           CassAggregateMeta *am, const raw_row *row, int *kept)
{
    CassSchemaMeta *m = b->m;
    const int table = CQL_DRV_SCHEMA_AGGREGATES;
    memset(am, 0, sizeof *am);
    *kept = 0;
    am->fields = row->fields;
    am->simple_name = row->k[1];
    am->simple_name_len = strlen(am->simple_name);
    am->init_cond.len = ENG_NULL;
    if (!field_by_name(&row->fields, "argument_types", 14)) {
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                    "Aggregate %s.%s has no argument_types", row->k[0], row->k[1]);
        return 0;
    }
    eng_val *types;
    size_t n;
    int rc = list_items(b, row, table, "argument_types", &types, &n);
    if (rc)
        return rc;
    if (!(am->name = full_name(m, am->simple_name, types, n, &am->name_len)))
        return nomem(b->err, am->simple_name);
    am->arg_types = arena_alloc(m, sizeof *am->arg_types * n);
    if (!am->arg_types)
        return nomem(b->err, am->name);
    char what[256];
    for (size_t i = 0; i < n; i++) {
        am->arg_types[i] = NULL;
        snprintf(what, sizeof what, "Argument %zu of aggregate %s.%s", i + 1, kt->ks, am->name);
        if (types[i].len >= 0 && (rc = parse_type(b, kt, (const char *)types[i].p,
                                                  (size_t)types[i].len, what, &am->arg_types[i])))
            return rc;
    }
    am->n_args = n;
    snprintf(what, sizeof what, "Return type of aggregate %s.%s", kt->ks, am->name);
    if ((rc = field_type(b, kt, &row->fields, "return_type", what, &am->return_type)))
        return rc;
    snprintf(what, sizeof what, "State type of aggregate %s.%s", kt->ks, am->name);
    if ((rc = field_type(b, kt, &row->fields, "state_type", what, &am->state_type)))
        return rc;

    /* the signatures of its functions: the state type, then (state function) its arguments */
    const CassValue *st = text_field(&row->fields, "state_type");
    eng_val *sig = arena_alloc(m, sizeof *sig * (n + 1));
    if (!sig)
        return nomem(b->err, am->name);
    sig[0].p = st ? st->p : NULL;
    sig[0].len = st ? st->len : ENG_NULL;
    for (size_t i = 0; i < n; i++)
        sig[i + 1] = types[i];
    const char *func = field_text(&row->fields, "state_func");
    if (func)
        am->state_func = find_function(b, km, func, sig, n + 1);
    if ((func = field_text(&row->fields, "final_func")))
        am->final_func = find_function(b, km, func, sig, 1);

    const CassValue *init = field_by_name(&row->fields, "initcond", 8);
    if (init && init->type && is_text(init)) {
        am->init_cond = *init;
    } else if (init && init->type && init->type->value_type == CASS_VALUE_TYPE_BLOB) {
        am->init_cond = *init;
        am->init_cond.type = am->state_type;
    }
    *kept = 1;
    return 0;
}

/* The keyspace's aggregates, from its rows of system_schema.aggregates, by full name (after
   its functions, which they name). */
static int build_aggregates(build *b, ks_types *kt, CassKeyspaceMeta *km, const sys_rows *in)
{
    size_t first, n = key_range(in, &km->name, 1, &first);
    CassAggregateMeta *ams = arena_alloc(b->m, sizeof *ams * n);
    km->aggregates = arena_alloc(b->m, sizeof *km->aggregates * n);
    if (!ams || !km->aggregates)
        return nomem(b->err, km->name);
    for (size_t i = 0; i < n; i++) {
        int kept, rc = build_aggregate(b, kt, km, &ams[i], &in->rows[first + i], &kept);
        if (rc)
            return rc;
        if (kept)
            km->aggregates[km->n_aggregates++] = &ams[i];
    }
    qsort(km->aggregates, km->n_aggregates, sizeof *km->aggregates, by_name_order);
    return 0;
}

/*
 * The keyspace's materialized views, from its rows of system_schema.views (by view name), each
 * with its columns and listed both in the keyspace and in its base table (tms, the keyspace's
 * tables, parallel to km->tables). A view without base_table_name, or whose base table is not
 * in the keyspace, is logged and left out (the driver's update_views).
 */
static int build_views(build *b, ks_types *kt, CassKeyspaceMeta *km, CassTableMeta *tms,
                       const sys_rows in[CQL_DRV_SCHEMA_N])
{
    CassSchemaMeta *m = b->m;
    const sys_rows *views = &in[CQL_DRV_SCHEMA_VIEWS];
    size_t first, n = key_range(views, &km->name, 1, &first);
    CassMaterializedViewMeta *vms = arena_alloc(m, sizeof *vms * n);
    CassTableMeta **base = arena_alloc(m, sizeof *base * n);
    km->views = arena_alloc(m, sizeof *km->views * n);
    if (!vms || !base || !km->views)
        return nomem(b->err, km->name);
    /* each view's base table, and how many views each table has */
    for (size_t i = 0; i < n; i++) {
        const raw_row *row = &views->rows[first + i];
        const char *table = field_text(&row->fields, "base_table_name");
        long t = table ? FIND_BY_NAME(km->tables, km->n_tables, CassTableMeta, table, strlen(table))
                       : -1;
        base[i] = t < 0 ? NULL : &tms[t];
        if (!table)
            cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                        "View %s.%s has no base_table_name", row->k[0], row->k[1]);
        else if (t < 0)
            cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__,
                        "No table metadata for view %s.%s with base table name '%s'", row->k[0],
                        row->k[1], table);
        else
            base[i]->n_views++;
    }
    for (size_t t = 0; t < km->n_tables; t++) {
        if (!(tms[t].views = arena_alloc(m, sizeof *tms[t].views * tms[t].n_views)))
            return nomem(b->err, tms[t].name);
        tms[t].n_views = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!base[i])
            continue;
        const raw_row *row = &views->rows[first + i];
        CassMaterializedViewMeta *vm = &vms[i];
        memset(vm, 0, sizeof *vm);
        vm->name = vm->t.name = row->k[1];
        vm->name_len = vm->t.name_len = strlen(vm->name);
        vm->t.fields = row->fields;
        vm->base_table = base[i];
        size_t c0, nc = key_range(&in[CQL_DRV_SCHEMA_COLUMNS], row->k, 2, &c0);
        int rc = build_columns(b, kt, &vm->t, in[CQL_DRV_SCHEMA_COLUMNS].rows + c0, nc);
        if (rc)
            return rc;
        base[i]->views[base[i]->n_views++] = vm;
        km->views[km->n_views++] = vm;
    }
    return 0;
}

/* The keyspace of row ks with its user types, tables (each with its columns and indexes),
   views, functions and aggregates. */
static int build_keyspace(build *b, CassKeyspaceMeta *km, const raw_row *ks,
                          const sys_rows in[CQL_DRV_SCHEMA_N])
{
    CassSchemaMeta *m = b->m;
    memset(km, 0, sizeof *km);
    km->name = ks->k[0];
    km->name_len = strlen(km->name);
    km->fields = ks->fields;
    ks_types kt;
    int rc = build_types(b, &kt, km, &in[CQL_DRV_SCHEMA_TYPES]);
    if (rc)
        return rc;
    const sys_rows *tables = &in[CQL_DRV_SCHEMA_TABLES];
    size_t first, n = key_range(tables, &km->name, 1, &first);
    km->tables = arena_alloc(m, sizeof *km->tables * n);
    CassTableMeta *tms = arena_alloc(m, sizeof *tms * n);
    if (!km->tables || !tms)
        return nomem(b->err, km->name);
    for (size_t j = 0; j < n; j++) {
        const raw_row *row = &tables->rows[first + j];
        CassTableMeta *tm = &tms[j];
        memset(tm, 0, sizeof *tm);
        tm->name = row->k[1];
        tm->name_len = strlen(tm->name);
        tm->fields = row->fields;
        size_t c0, nc = key_range(&in[CQL_DRV_SCHEMA_COLUMNS], row->k, 2, &c0);
        if ((rc = build_columns(b, &kt, tm, in[CQL_DRV_SCHEMA_COLUMNS].rows + c0, nc)))
            return rc;
        size_t i0, ni = key_range(&in[CQL_DRV_SCHEMA_INDEXES], row->k, 2, &i0);
        if ((rc = build_indexes(b, tm, in[CQL_DRV_SCHEMA_INDEXES].rows + i0, ni)))
            return rc;
        km->tables[km->n_tables++] = tm;
    }
    if ((rc = build_views(b, &kt, km, tms, in)) ||
        (rc = build_functions(b, &kt, km, &in[CQL_DRV_SCHEMA_FUNCTIONS])))
        return rc;
    return build_aggregates(b, &kt, km, &in[CQL_DRV_SCHEMA_AGGREGATES]);
}

/* system.local's release_version, as "major.minor[.patch]". */
static void read_version(const sys_rows *local, CassVersion *out)
{
    const char *v = local->n ? field_text(&local->rows[0].fields, "release_version") : NULL;
    int major = 0, minor = 0, patch = 0;
    if (v && sscanf(v, "%d.%d.%d", &major, &minor, &patch) >= 2) {
        out->major_version = major;
        out->minor_version = minor;
        out->patch_version = patch;
    }
}

static int build_all(build *b, const cql_result *const rows[CQL_DRV_SCHEMA_N])
{
    CassSchemaMeta *m = b->m;
    sys_rows in[CQL_DRV_SCHEMA_N];
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++) {
        int rc = read_rows(b, rows ? rows[t] : NULL, t, &in[t]);
        if (rc)
            return rc;
    }
    read_version(&in[CQL_DRV_SCHEMA_LOCAL], &m->version);
    const sys_rows *ks = &in[CQL_DRV_SCHEMA_KEYSPACES];
    m->keyspaces = arena_alloc(m, sizeof *m->keyspaces * ks->n);
    CassKeyspaceMeta *kms = arena_alloc(m, sizeof *kms * ks->n);
    if (!m->keyspaces || !kms)
        return nomem(b->err, "keyspaces");
    for (size_t i = 0; i < ks->n; i++) {
        int rc = build_keyspace(b, &kms[i], &ks->rows[i], in);
        if (rc)
            return rc;
        m->keyspaces[m->n_keyspaces++] = &kms[i];
    }
    return 0;
}

CassSchemaMeta *cql_drv_schema_meta_from_rows(const cql_result *const rows[CQL_DRV_SCHEMA_N],
                                              cass_uint32_t snapshot_version)
{
    CassSchemaMeta *m = eng_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    eng_arena_init(&m->arena, 16384);
    m->snapshot_version = snapshot_version;
    eng_err err;
    eng_err_clear(&err);
    build b = {m, &err};
    int rc = build_all(&b, rows);
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
    if (!keyspace_meta)
        return NULL;
    long i = FIND_BY_NAME(keyspace_meta->views, keyspace_meta->n_views, CassMaterializedViewMeta,
                          view, view_length);
    return i < 0 ? NULL : keyspace_meta->views[i];
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
    if (!keyspace_meta)
        return NULL;
    return find_full_name(keyspace_meta->functions, keyspace_meta->n_functions,
                          offsetof(CassFunctionMeta, name), name, name_length, arguments,
                          arguments_length);
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
    if (!keyspace_meta)
        return NULL;
    return find_full_name(keyspace_meta->aggregates, keyspace_meta->n_aggregates,
                          offsetof(CassAggregateMeta, name), name, name_length, arguments,
                          arguments_length);
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
    if (!table_meta)
        return NULL;
    long i = FIND_BY_NAME(table_meta->indexes, table_meta->n_indexes, CassIndexMeta, index,
                          index_length);
    return i < 0 ? NULL : table_meta->indexes[i];
}

size_t cass_table_meta_index_count(const CassTableMeta *table_meta)
{
    return table_meta ? table_meta->n_indexes : 0;
}

const CassIndexMeta *cass_table_meta_index(const CassTableMeta *table_meta, size_t index)
{
    if (!table_meta || index >= table_meta->n_indexes)
        return NULL;
    return table_meta->indexes[index];
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
    if (!table_meta)
        return NULL;
    long i = FIND_BY_NAME(table_meta->views, table_meta->n_views, CassMaterializedViewMeta, view,
                          view_length);
    return i < 0 ? NULL : table_meta->views[i];
}

size_t cass_table_meta_materialized_view_count(const CassTableMeta *table_meta)
{
    return table_meta ? table_meta->n_views : 0;
}

const CassMaterializedViewMeta *cass_table_meta_materialized_view(const CassTableMeta *table_meta,
                                                                  size_t index)
{
    if (!table_meta || index >= table_meta->n_views)
        return NULL;
    return table_meta->views[index];
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
/* Materialized views: a table's accessors over the view's table part         */
/* ------------------------------------------------------------------------ */

void cass_materialized_view_meta_name(const CassMaterializedViewMeta *view_meta, const char **name,
                                      size_t *name_length)
{
    name_out(view_meta ? view_meta->name : NULL, view_meta ? view_meta->name_len : 0, name,
             name_length);
}

const CassTableMeta *
cass_materialized_view_meta_base_table(const CassMaterializedViewMeta *view_meta)
{
    return view_meta ? view_meta->base_table : NULL;
}

const CassColumnMeta *
cass_materialized_view_meta_column_by_name(const CassMaterializedViewMeta *view_meta,
                                           const char *column)
{
    return view_meta ? cass_table_meta_column_by_name(&view_meta->t, column) : NULL;
}

const CassColumnMeta *
cass_materialized_view_meta_column_by_name_n(const CassMaterializedViewMeta *view_meta,
                                             const char *column, size_t column_length)
{
    return view_meta ? cass_table_meta_column_by_name_n(&view_meta->t, column, column_length)
                     : NULL;
}

size_t cass_materialized_view_meta_column_count(const CassMaterializedViewMeta *view_meta)
{
    return view_meta ? view_meta->t.n_cols : 0;
}

const CassColumnMeta *cass_materialized_view_meta_column(const CassMaterializedViewMeta *view_meta,
                                                         size_t index)
{
    return view_meta ? cass_table_meta_column(&view_meta->t, index) : NULL;
}

size_t cass_materialized_view_meta_partition_key_count(const CassMaterializedViewMeta *view_meta)
{
    return view_meta ? view_meta->t.n_pk : 0;
}

const CassColumnMeta *
cass_materialized_view_meta_partition_key(const CassMaterializedViewMeta *view_meta, size_t index)
{
    return view_meta ? cass_table_meta_partition_key(&view_meta->t, index) : NULL;
}

size_t cass_materialized_view_meta_clustering_key_count(const CassMaterializedViewMeta *view_meta)
{
    return view_meta ? view_meta->t.n_ck : 0;
}

const CassColumnMeta *
cass_materialized_view_meta_clustering_key(const CassMaterializedViewMeta *view_meta, size_t index)
{
    return view_meta ? cass_table_meta_clustering_key(&view_meta->t, index) : NULL;
}

CassClusteringOrder
cass_materialized_view_meta_clustering_key_order(const CassMaterializedViewMeta *view_meta,
                                                 size_t index)
{
    return view_meta ? cass_table_meta_clustering_key_order(&view_meta->t, index)
                     : CASS_CLUSTERING_ORDER_NONE;
}

const CassValue *
cass_materialized_view_meta_field_by_name(const CassMaterializedViewMeta *view_meta,
                                          const char *name)
{
    return name ? cass_materialized_view_meta_field_by_name_n(view_meta, name, strlen(name)) : NULL;
}

const CassValue *
cass_materialized_view_meta_field_by_name_n(const CassMaterializedViewMeta *view_meta,
                                            const char *name, size_t name_length)
{
    return view_meta ? field_by_name(&view_meta->t.fields, name, name_length) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Secondary indexes                                                         */
/* ------------------------------------------------------------------------ */

void cass_index_meta_name(const CassIndexMeta *index_meta, const char **name, size_t *name_length)
{
    name_out(index_meta ? index_meta->name : NULL, index_meta ? index_meta->name_len : 0, name,
             name_length);
}

CassIndexType cass_index_meta_type(const CassIndexMeta *index_meta)
{
    return index_meta ? index_meta->type : CASS_INDEX_TYPE_UNKNOWN;
}

void cass_index_meta_target(const CassIndexMeta *index_meta, const char **target,
                            size_t *target_length)
{
    name_out(index_meta ? index_meta->target : NULL, index_meta ? index_meta->target_len : 0,
             target, target_length);
}

const CassValue *cass_index_meta_options(const CassIndexMeta *index_meta)
{
    return index_meta ? index_meta->options : NULL;
}

const CassValue *cass_index_meta_field_by_name(const CassIndexMeta *index_meta, const char *name)
{
    return name ? cass_index_meta_field_by_name_n(index_meta, name, strlen(name)) : NULL;
}

const CassValue *cass_index_meta_field_by_name_n(const CassIndexMeta *index_meta, const char *name,
                                                 size_t name_length)
{
    return index_meta ? field_by_name(&index_meta->fields, name, name_length) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Functions                                                                 */
/* ------------------------------------------------------------------------ */

void cass_function_meta_name(const CassFunctionMeta *function_meta, const char **name,
                             size_t *name_length)
{
    name_out(function_meta ? function_meta->simple_name : NULL,
             function_meta ? function_meta->simple_name_len : 0, name, name_length);
}

void cass_function_meta_full_name(const CassFunctionMeta *function_meta, const char **full_name,
                                  size_t *full_name_length)
{
    name_out(function_meta ? function_meta->name : NULL,
             function_meta ? function_meta->name_len : 0, full_name, full_name_length);
}

void cass_function_meta_body(const CassFunctionMeta *function_meta, const char **body,
                             size_t *body_length)
{
    const char *s = function_meta ? function_meta->body : NULL;
    name_out(s, s ? strlen(s) : 0, body, body_length);
}

void cass_function_meta_language(const CassFunctionMeta *function_meta, const char **language,
                                 size_t *language_length)
{
    const char *s = function_meta ? function_meta->language : NULL;
    name_out(s, s ? strlen(s) : 0, language, language_length);
}

cass_bool_t cass_function_meta_called_on_null_input(const CassFunctionMeta *function_meta)
{
    return function_meta ? function_meta->called_on_null_input : cass_false;
}

size_t cass_function_meta_argument_count(const CassFunctionMeta *function_meta)
{
    return function_meta ? function_meta->n_args : 0;
}

CassError cass_function_meta_argument(const CassFunctionMeta *function_meta, size_t index,
                                      const char **name, size_t *name_length,
                                      const CassDataType **type)
{
    if (!function_meta || index >= function_meta->n_args)
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    const char *s = function_meta->arg_names[index];
    name_out(s, strlen(s), name, name_length);
    if (type)
        *type = function_meta->arg_types[index];
    return CASS_OK;
}

const CassDataType *cass_function_meta_argument_type_by_name(const CassFunctionMeta *function_meta,
                                                             const char *name)
{
    return name ? cass_function_meta_argument_type_by_name_n(function_meta, name, strlen(name))
                : NULL;
}

/* The first argument of that name (the driver's std::find); arguments are few and unsorted. */
const CassDataType *
cass_function_meta_argument_type_by_name_n(const CassFunctionMeta *function_meta, const char *name,
                                           size_t name_length)
{
    if (!function_meta || !name)
        return NULL;
    for (size_t i = 0; i < function_meta->n_args; i++)
        if (!name_cmp(function_meta->arg_names[i], name, name_length))
            return function_meta->arg_types[i];
    return NULL;
}

const CassDataType *cass_function_meta_return_type(const CassFunctionMeta *function_meta)
{
    return function_meta ? function_meta->return_type : NULL;
}

const CassValue *cass_function_meta_field_by_name(const CassFunctionMeta *function_meta,
                                                  const char *name)
{
    return name ? cass_function_meta_field_by_name_n(function_meta, name, strlen(name)) : NULL;
}

const CassValue *cass_function_meta_field_by_name_n(const CassFunctionMeta *function_meta,
                                                    const char *name, size_t name_length)
{
    return function_meta ? field_by_name(&function_meta->fields, name, name_length) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Aggregates                                                                */
/* ------------------------------------------------------------------------ */

void cass_aggregate_meta_name(const CassAggregateMeta *aggregate_meta, const char **name,
                              size_t *name_length)
{
    name_out(aggregate_meta ? aggregate_meta->simple_name : NULL,
             aggregate_meta ? aggregate_meta->simple_name_len : 0, name, name_length);
}

void cass_aggregate_meta_full_name(const CassAggregateMeta *aggregate_meta, const char **full_name,
                                   size_t *full_name_length)
{
    name_out(aggregate_meta ? aggregate_meta->name : NULL,
             aggregate_meta ? aggregate_meta->name_len : 0, full_name, full_name_length);
}

size_t cass_aggregate_meta_argument_count(const CassAggregateMeta *aggregate_meta)
{
    return aggregate_meta ? aggregate_meta->n_args : 0;
}

const CassDataType *cass_aggregate_meta_argument_type(const CassAggregateMeta *aggregate_meta,
                                                      size_t index)
{
    if (!aggregate_meta || index >= aggregate_meta->n_args)
        return NULL;
    return aggregate_meta->arg_types[index];
}

const CassDataType *cass_aggregate_meta_return_type(const CassAggregateMeta *aggregate_meta)
{
    return aggregate_meta ? aggregate_meta->return_type : NULL;
}

const CassDataType *cass_aggregate_meta_state_type(const CassAggregateMeta *aggregate_meta)
{
    return aggregate_meta ? aggregate_meta->state_type : NULL;
}

const CassFunctionMeta *cass_aggregate_meta_state_func(const CassAggregateMeta *aggregate_meta)
{
    return aggregate_meta ? aggregate_meta->state_func : NULL;
}

const CassFunctionMeta *cass_aggregate_meta_final_func(const CassAggregateMeta *aggregate_meta)
{
    return aggregate_meta ? aggregate_meta->final_func : NULL;
}

const CassValue *cass_aggregate_meta_init_cond(const CassAggregateMeta *aggregate_meta)
{
    return aggregate_meta ? &aggregate_meta->init_cond : NULL;
}

const CassValue *cass_aggregate_meta_field_by_name(const CassAggregateMeta *aggregate_meta,
                                                   const char *name)
{
    return name ? cass_aggregate_meta_field_by_name_n(aggregate_meta, name, strlen(name)) : NULL;
}

const CassValue *cass_aggregate_meta_field_by_name_n(const CassAggregateMeta *aggregate_meta,
                                                     const char *name, size_t name_length)
{
    return aggregate_meta ? field_by_name(&aggregate_meta->fields, name, name_length) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Iterators (struct CassIterator_ and next / free live in cql/driver/result.c)     */
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

CassIterator *
cass_iterator_materialized_views_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta)
{
    if (!keyspace_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_MATERIALIZED_VIEW_META, keyspace_meta->views,
                          keyspace_meta->n_views);
}

CassIterator *cass_iterator_functions_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta)
{
    if (!keyspace_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_FUNCTION_META, keyspace_meta->functions,
                          keyspace_meta->n_functions);
}

CassIterator *cass_iterator_aggregates_from_keyspace_meta(const CassKeyspaceMeta *keyspace_meta)
{
    if (!keyspace_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_AGGREGATE_META, keyspace_meta->aggregates,
                          keyspace_meta->n_aggregates);
}

CassIterator *cass_iterator_indexes_from_table_meta(const CassTableMeta *table_meta)
{
    if (!table_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_INDEX_META, table_meta->indexes,
                          table_meta->n_indexes);
}

CassIterator *cass_iterator_materialized_views_from_table_meta(const CassTableMeta *table_meta)
{
    if (!table_meta)
        return NULL;
    return items_iterator(CASS_ITERATOR_TYPE_MATERIALIZED_VIEW_META, table_meta->views,
                          table_meta->n_views);
}

/* The driver's view column iterator is a column iterator (cass_iterator_get_column_meta). */
CassIterator *
cass_iterator_columns_from_materialized_view_meta(const CassMaterializedViewMeta *view_meta)
{
    return view_meta ? cass_iterator_columns_from_table_meta(&view_meta->t) : NULL;
}

CassIterator *
cass_iterator_fields_from_materialized_view_meta(const CassMaterializedViewMeta *view_meta)
{
    return view_meta ? fields_iterator(&view_meta->t.fields) : NULL;
}

CassIterator *cass_iterator_fields_from_index_meta(const CassIndexMeta *index_meta)
{
    return index_meta ? fields_iterator(&index_meta->fields) : NULL;
}

CassIterator *cass_iterator_fields_from_function_meta(const CassFunctionMeta *function_meta)
{
    return function_meta ? fields_iterator(&function_meta->fields) : NULL;
}

CassIterator *cass_iterator_fields_from_aggregate_meta(const CassAggregateMeta *aggregate_meta)
{
    return aggregate_meta ? fields_iterator(&aggregate_meta->fields) : NULL;
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

const CassMaterializedViewMeta *
cass_iterator_get_materialized_view_meta(const CassIterator *iterator)
{
    return current(iterator, CASS_ITERATOR_TYPE_MATERIALIZED_VIEW_META);
}

const CassFunctionMeta *cass_iterator_get_function_meta(const CassIterator *iterator)
{
    return current(iterator, CASS_ITERATOR_TYPE_FUNCTION_META);
}

const CassAggregateMeta *cass_iterator_get_aggregate_meta(const CassIterator *iterator)
{
    return current(iterator, CASS_ITERATOR_TYPE_AGGREGATE_META);
}

const CassIndexMeta *cass_iterator_get_index_meta(const CassIterator *iterator)
{
    return current(iterator, CASS_ITERATOR_TYPE_INDEX_META);
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
