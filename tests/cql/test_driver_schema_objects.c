/*
 * Secondary indexes, materialized views, user functions and aggregates in the schema metadata,
 * built from hand-made rows of system_schema.indexes, views, functions and aggregates through
 * cql_drv_schema_meta_from_rows (cql/driver/schema.c). The embedded engine has none of these
 * objects, so only rows made by hand (or a real Cassandra, remote) reach this part of the
 * builder; it reaches inside the driver for that, and reads everything back through
 * cassandra.h. (test_driver_schema.c covers keyspaces, tables, columns and user types.)
 *
 * The expectations are the DataStax C/C++ driver's (src/metadata.cpp): IndexMetadata::from_row
 * (kind case-insensitive, target from options["target"]), update_views (a view's columns are
 * the columns rows named after it; a view without its base table is left out), FunctionMetadata
 * and AggregateMetadata (full names "name(type1,type2)" with blanks removed, lookups by name and
 * comma-separated arguments, state and final functions found by their signatures, initcond a
 * text value), each kept in the driver's order: by name, functions and aggregates by full name.
 */
#include <cassandra.h>

#include <stdarg.h>

#include "cql/driver/driver_int.h"
#include "harness.h"

/* ------------------------------------------------------------------------ */
/* Results made by hand                                                      */
/* ------------------------------------------------------------------------ */

typedef struct spec_store {
    uint32_t n;
    char *names[20];
    eng_type *types[20];
} spec_store;

static void spec_store_free(void *arg)
{
    spec_store *st = arg;
    for (uint32_t i = 0; i < st->n; i++) {
        free(st->names[i]);
        eng_type_free(st->types[i]);
    }
    free(st);
}

/* text, int, boolean, blob, list (frozen<list<text>>) or map (frozen<map<text, text>>) */
static eng_type *spec_type(const char *word)
{
    if (!strcmp(word, "text"))
        return eng_type_new(ENG_TEXT);
    if (!strcmp(word, "int"))
        return eng_type_new(ENG_INT);
    if (!strcmp(word, "boolean"))
        return eng_type_new(ENG_BOOLEAN);
    if (!strcmp(word, "blob"))
        return eng_type_new(ENG_BLOB);
    if (!strcmp(word, "list"))
        return eng_type_new_list(eng_type_new(ENG_TEXT), 1);
    if (!strcmp(word, "map"))
        return eng_type_new_map(eng_type_new(ENG_TEXT), eng_type_new(ENG_TEXT), 1);
    return NULL;
}

/* A ROWS result with columns "name type, ...", in the order given. */
static cql_result *result_new(const char *cols)
{
    cql_result *r = cql_result_new(CQL_RESULT_ROWS);
    spec_store *st = calloc(1, sizeof *st);
    ASSERT(r && st);
    r->release = spec_store_free;
    r->release_arg = st;
    cql_column_spec specs[20];
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cols);
    for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        char name[64], type[16];
        ASSERT(st->n < 20 && sscanf(c, " %63s %15s", name, type) == 2);
        st->names[st->n] = strdup(name);
        st->types[st->n] = spec_type(type);
        ASSERT(st->names[st->n] && st->types[st->n]);
        specs[st->n] = (cql_column_spec){"system_schema", "t", st->names[st->n], st->types[st->n]};
        st->n++;
    }
    ASSERT_EQ(cql_result_set_columns(r, specs, st->n), 0);
    return r;
}

/* The items of a list ("a|b", "" empty) or a map ("k=v|k=v") as [int length][bytes] each. */
static uint32_t put_items(eng_buf *b, const char *v, int map)
{
    uint32_t n = 0;
    for (const char *p = v; *v; p += strcspn(p, "|") + 1) {
        size_t len = strcspn(p, "|");
        if (map) {
            const char *eq = memchr(p, '=', len);
            ASSERT(eq);
            eng_buf_put_be32(b, (uint32_t)(eq - p));
            eng_buf_put(b, p, (size_t)(eq - p));
            eng_buf_put_be32(b, (uint32_t)(len - (size_t)(eq - p) - 1));
            eng_buf_put(b, eq + 1, len - (size_t)(eq - p) - 1);
        } else {
            eng_buf_put_be32(b, (uint32_t)len);
            eng_buf_put(b, p, len);
        }
        n++;
        if (!p[len])
            break;
    }
    return n;
}

/* Appends a row: one string per column, NULL for a null (see put_items for lists and maps). */
static void result_row(cql_result *r, ...)
{
    const spec_store *st = r->release_arg;
    eng_val vals[20];
    eng_buf bytes[20];
    memset(bytes, 0, sizeof bytes);
    va_list ap;
    va_start(ap, r);
    for (uint32_t i = 0; i < st->n; i++) {
        const char *v = va_arg(ap, const char *);
        eng_buf *b = &bytes[i];
        vals[i].len = ENG_NULL;
        if (!v)
            continue;
        switch (st->types[i]->kind) {
        case ENG_INT:
            eng_buf_put_be32(b, (uint32_t)atoi(v));
            break;
        case ENG_BOOLEAN:
            eng_buf_put_u8(b, !strcmp(v, "true"));
            break;
        case ENG_LIST:
        case ENG_MAP:
            eng_buf_put_be32(b, 0);
            eng_put_be32(b->p, put_items(b, v, st->types[i]->kind == ENG_MAP));
            break;
        default:
            eng_buf_put_str(b, v);
        }
        vals[i].p = b->p;
        vals[i].len = (int32_t)b->len;
    }
    va_end(ap);
    ASSERT_EQ(cql_result_add_row(r, vals), 0);
    for (uint32_t i = 0; i < st->n; i++)
        eng_buf_free(&bytes[i]);
}

/* The columns Cassandra 4 gives these tables, in another order (found by name). */
#define INDEXES_COLS "options map, kind text, index_name text, table_name text, keyspace_name text"
#define VIEWS_COLS                                                                                 \
    "where_clause text, view_name text, include_all_columns boolean, base_table_name text, "       \
    "keyspace_name text"
#define FUNCTIONS_COLS                                                                             \
    "return_type text, language text, keyspace_name text, function_name text, "                    \
    "called_on_null_input boolean, body text, argument_types list, argument_names list"
#define AGGREGATES_COLS                                                                            \
    "state_type text, state_func text, return_type text, keyspace_name text, initcond text, "      \
    "final_func text, argument_types list, aggregate_name text"

typedef struct schema_rows {
    cql_result *r[CQL_DRV_SCHEMA_N];
} schema_rows;

static void rows_init(schema_rows *s)
{
    s->r[CQL_DRV_SCHEMA_KEYSPACES] = result_new("keyspace_name text");
    s->r[CQL_DRV_SCHEMA_TABLES] = result_new("keyspace_name text, table_name text");
    s->r[CQL_DRV_SCHEMA_COLUMNS] =
        result_new("keyspace_name text, table_name text, column_name text, kind text, "
                   "position int, clustering_order text, type text");
    s->r[CQL_DRV_SCHEMA_TYPES] = result_new("keyspace_name text, type_name text, "
                                            "field_names list, field_types list");
    s->r[CQL_DRV_SCHEMA_INDEXES] = result_new(INDEXES_COLS);
    s->r[CQL_DRV_SCHEMA_FUNCTIONS] = result_new(FUNCTIONS_COLS);
    s->r[CQL_DRV_SCHEMA_AGGREGATES] = result_new(AGGREGATES_COLS);
    s->r[CQL_DRV_SCHEMA_VIEWS] = result_new(VIEWS_COLS);
    s->r[CQL_DRV_SCHEMA_LOCAL] = result_new("key text, release_version text");
}

static void keyspace_row(schema_rows *s, const char *ks)
{
    result_row(s->r[CQL_DRV_SCHEMA_KEYSPACES], ks);
}

static void table_row(schema_rows *s, const char *ks, const char *table)
{
    result_row(s->r[CQL_DRV_SCHEMA_TABLES], ks, table);
}

static void column_row(schema_rows *s, const char *ks, const char *table, const char *column,
                       const char *kind, const char *position, const char *order, const char *type)
{
    result_row(s->r[CQL_DRV_SCHEMA_COLUMNS], ks, table, column, kind, position, order, type);
}

static void index_row(schema_rows *s, const char *ks, const char *table, const char *index,
                      const char *kind, const char *options)
{
    result_row(s->r[CQL_DRV_SCHEMA_INDEXES], options, kind, index, table, ks);
}

static void view_row(schema_rows *s, const char *ks, const char *view, const char *base,
                     const char *where)
{
    result_row(s->r[CQL_DRV_SCHEMA_VIEWS], where, view, "false", base, ks);
}

static void function_row(schema_rows *s, const char *ks, const char *name, const char *arg_names,
                         const char *arg_types, const char *ret, const char *body,
                         const char *called_on_null)
{
    result_row(s->r[CQL_DRV_SCHEMA_FUNCTIONS], ret, "java", ks, name, called_on_null, body,
               arg_types, arg_names);
}

static void aggregate_row(schema_rows *s, const char *ks, const char *name, const char *arg_types,
                          const char *state_func, const char *state_type, const char *final_func,
                          const char *ret, const char *initcond)
{
    result_row(s->r[CQL_DRV_SCHEMA_AGGREGATES], state_type, state_func, ret, ks, initcond,
               final_func, arg_types, name);
}

/* The snapshot of the rows; the results are freed (the snapshot holds copies). */
static CassSchemaMeta *rows_build(schema_rows *s)
{
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
        ASSERT_EQ(cql_result_finish(s->r[t]), 0);
    CassSchemaMeta *m = cql_drv_schema_meta_from_rows((const cql_result *const *)s->r, 1);
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++) {
        cql_result_free(s->r[t]);
        s->r[t] = NULL;
    }
    return m;
}

static int errors_logged;
static char last_error[CASS_LOG_MAX_MESSAGE_SIZE];

static void count_errors(const CassLogMessage *msg, void *data)
{
    (void)data;
    if (msg->severity == CASS_LOG_ERROR) {
        errors_logged++;
        snprintf(last_error, sizeof last_error, "%s", msg->message);
    }
}

static void capture_logs(void)
{
    cass_log_set_level(CASS_LOG_ERROR);
    cass_log_set_callback(count_errors, NULL);
    errors_logged = 0;
    last_error[0] = 0;
}

/* A (pointer, length) output as a C string in buf. */
static const char *str(const char *s, size_t n, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

#define NAME_OF(fn, obj, buf)                                                                      \
    do {                                                                                           \
        const char *s_;                                                                            \
        size_t n_;                                                                                 \
        fn((obj), &s_, &n_);                                                                       \
        str(s_, n_, (buf), sizeof(buf));                                                           \
    } while (0)

static void field_name_of(const CassIterator *it, const char **s, size_t *n)
{
    ASSERT_EQ(cass_iterator_get_meta_field_name(it, s, n), CASS_OK);
}

static const char *text_of(const CassValue *v, char *buf, size_t cap)
{
    const char *s;
    size_t n;
    if (!v || cass_value_get_string(v, &s, &n) != CASS_OK)
        return "(null)";
    return str(s, n, buf, cap);
}

/* ------------------------------------------------------------------------ */
/* Secondary indexes                                                         */
/* ------------------------------------------------------------------------ */

/* Indexes belong to their table, by name; kind KEYS / CUSTOM / COMPOSITES in any case (else
   unknown); the target is options["target"] ("" without one); options is the row's map, and
   every column of the row is a field. Indexes of an unknown table are left out. */
TEST(indexes_come_from_system_schema_indexes)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    keyspace_row(&s, "ks");
    table_row(&s, "ks", "t");
    table_row(&s, "ks", "u");
    column_row(&s, "ks", "t", "k", "partition_key", "0", "none", "int");
    column_row(&s, "ks", "t", "v", "regular", "-1", "none", "text");
    column_row(&s, "ks", "t", "m", "regular", "-1", "none", "map<text, int>");
    index_row(&s, "ks", "t", "t_v_idx", "COMPOSITES", "target=v");
    index_row(&s, "ks", "t", "m_keys", "composites", "target=keys(m)");
    index_row(&s, "ks", "t", "sai", "CUSTOM",
              "class_name=org.apache.cassandra.index.sai.StorageAttachedIndex|target=v");
    index_row(&s, "ks", "t", "odd", "whatever", NULL);
    index_row(&s, "ks", "t", "legacy", "KEYS", "");
    index_row(&s, "ks", "nosuch", "gone", "COMPOSITES", "target=x");
    CassSchemaMeta *m = rows_build(&s);
    ASSERT(m);
    ASSERT_EQ(errors_logged, 0);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    const CassTableMeta *t = cass_keyspace_meta_table_by_name(km, "t");
    ASSERT(t);
    ASSERT_EQ(cass_table_meta_index_count(cass_keyspace_meta_table_by_name(km, "u")), 0);
    ASSERT_EQ(cass_table_meta_index_count(t), 5);

    /* by name */
    static const char *const names[] = {"legacy", "m_keys", "odd", "sai", "t_v_idx"};
    static const CassIndexType kinds[] = {CASS_INDEX_TYPE_KEYS, CASS_INDEX_TYPE_COMPOSITES,
                                          CASS_INDEX_TYPE_UNKNOWN, CASS_INDEX_TYPE_CUSTOM,
                                          CASS_INDEX_TYPE_COMPOSITES};
    static const char *const targets[] = {"", "keys(m)", "", "v", "v"};
    char buf[256];
    CassIterator *it = cass_iterator_indexes_from_table_meta(t);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_INDEX_META);
    ASSERT(cass_iterator_get_index_meta(it) == NULL);
    for (size_t i = 0; i < 5; i++) {
        ASSERT(cass_iterator_next(it));
        const CassIndexMeta *im = cass_iterator_get_index_meta(it);
        ASSERT(im && im == cass_table_meta_index(t, i));
        NAME_OF(cass_index_meta_name, im, buf);
        ASSERT_STR_EQ(buf, names[i]);
        ASSERT(cass_table_meta_index_by_name(t, names[i]) == im);
        ASSERT_EQ(cass_index_meta_type(im), kinds[i]);
        NAME_OF(cass_index_meta_target, im, buf);
        ASSERT_STR_EQ(buf, targets[i]);
    }
    ASSERT(!cass_iterator_next(it));
    ASSERT(cass_iterator_get_table_meta(it) == NULL); /* another kind */
    cass_iterator_free(it);
    ASSERT(cass_table_meta_index(t, 5) == NULL);
    ASSERT(cass_table_meta_index_by_name(t, "gone") == NULL);
    ASSERT(cass_table_meta_index_by_name_n(t, "saiXX", 3) == cass_table_meta_index(t, 3));

    /* options: the map itself; null when the row's is */
    const CassIndexMeta *sai = cass_table_meta_index_by_name(t, "sai");
    const CassValue *opts = cass_index_meta_options(sai);
    ASSERT(opts);
    ASSERT_EQ(cass_value_type(opts), CASS_VALUE_TYPE_MAP);
    ASSERT_EQ(cass_value_item_count(opts), 2);
    it = cass_iterator_from_map(opts);
    ASSERT(cass_iterator_next(it));
    ASSERT_STR_EQ(text_of(cass_iterator_get_map_key(it), buf, sizeof buf), "class_name");
    cass_iterator_free(it);
    ASSERT(cass_value_is_null(cass_index_meta_options(cass_table_meta_index_by_name(t, "odd"))));
    ASSERT_EQ(cass_value_item_count(cass_index_meta_options(cass_table_meta_index(t, 0))), 0);

    /* fields: every column of the row, by name */
    ASSERT_STR_EQ(text_of(cass_index_meta_field_by_name(sai, "kind"), buf, sizeof buf), "CUSTOM");
    ASSERT_STR_EQ(
        text_of(cass_index_meta_field_by_name_n(sai, "table_nameXX", 10), buf, sizeof buf), "t");
    ASSERT(cass_index_meta_field_by_name(sai, "nope") == NULL);
    it = cass_iterator_fields_from_index_meta(sai);
    static const char *const fields[] = {"index_name", "keyspace_name", "kind", "options",
                                         "table_name"};
    for (size_t i = 0; i < 5; i++) {
        ASSERT(cass_iterator_next(it));
        NAME_OF(field_name_of, it, buf);
        ASSERT_STR_EQ(buf, fields[i]);
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);

    /* NULL objects */
    ASSERT_EQ(cass_index_meta_type(NULL), CASS_INDEX_TYPE_UNKNOWN);
    ASSERT(cass_index_meta_options(NULL) == NULL);
    ASSERT(cass_iterator_indexes_from_table_meta(NULL) == NULL);
    cass_schema_meta_free(m);
}

/* ------------------------------------------------------------------------ */
/* Materialized views                                                        */
/* ------------------------------------------------------------------------ */

/* A view's columns are the system_schema.columns rows named after it, in a table's order; it
   is listed by name in its keyspace and in its base table; a view whose base table is not in
   the keyspace is logged and left out (update_views). */
TEST(views_come_from_system_schema_views_and_their_columns)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    keyspace_row(&s, "ks");
    table_row(&s, "ks", "t");
    table_row(&s, "ks", "other");
    column_row(&s, "ks", "t", "k", "partition_key", "0", "none", "int");
    column_row(&s, "ks", "t", "c", "clustering", "0", "asc", "int");
    column_row(&s, "ks", "t", "v", "regular", "-1", "none", "text");
    column_row(&s, "ks", "other", "k", "partition_key", "0", "none", "int");
    /* t_by_v: PRIMARY KEY (v, k, c) WITH CLUSTERING ORDER BY (k DESC, c ASC) */
    column_row(&s, "ks", "t_by_v", "c", "clustering", "1", "asc", "int");
    column_row(&s, "ks", "t_by_v", "k", "clustering", "0", "desc", "int");
    column_row(&s, "ks", "t_by_v", "v", "partition_key", "0", "none", "text");
    column_row(&s, "ks", "a_view", "k", "partition_key", "0", "none", "int");
    view_row(&s, "ks", "t_by_v", "t", "v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL");
    view_row(&s, "ks", "a_view", "t", "k IS NOT NULL");
    view_row(&s, "ks", "orphan", "nosuch", "k IS NOT NULL");
    view_row(&s, "ks", "no_base", NULL, "k IS NOT NULL");
    CassSchemaMeta *m = rows_build(&s);
    ASSERT(m);
    ASSERT_EQ(errors_logged, 2);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    const CassTableMeta *t = cass_keyspace_meta_table_by_name(km, "t");
    char buf[256];

    /* the keyspace's views and the table's, by name */
    const CassMaterializedViewMeta *a = cass_keyspace_meta_materialized_view_by_name(km, "a_view");
    const CassMaterializedViewMeta *v = cass_keyspace_meta_materialized_view_by_name(km, "t_by_v");
    ASSERT(a && v);
    ASSERT(cass_keyspace_meta_materialized_view_by_name(km, "orphan") == NULL);
    ASSERT(cass_keyspace_meta_materialized_view_by_name(km, "no_base") == NULL);
    ASSERT(cass_keyspace_meta_materialized_view_by_name_n(km, "a_viewXX", 6) == a);
    ASSERT(cass_keyspace_meta_table_by_name(km, "t_by_v") == NULL); /* a view is no table */
    CassIterator *it = cass_iterator_materialized_views_from_keyspace_meta(km);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_MATERIALIZED_VIEW_META);
    ASSERT(cass_iterator_next(it) && cass_iterator_get_materialized_view_meta(it) == a);
    ASSERT(cass_iterator_next(it) && cass_iterator_get_materialized_view_meta(it) == v);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    ASSERT_EQ(cass_table_meta_materialized_view_count(t), 2);
    ASSERT(cass_table_meta_materialized_view(t, 0) == a);
    ASSERT(cass_table_meta_materialized_view(t, 1) == v);
    ASSERT(cass_table_meta_materialized_view(t, 2) == NULL);
    ASSERT(cass_table_meta_materialized_view_by_name(t, "t_by_v") == v);
    ASSERT(cass_table_meta_materialized_view_by_name_n(t, "t_by_vv", 6) == v);
    const CassTableMeta *other = cass_keyspace_meta_table_by_name(km, "other");
    ASSERT_EQ(cass_table_meta_materialized_view_count(other), 0);
    ASSERT(cass_table_meta_materialized_view_by_name(other, "t_by_v") == NULL);
    it = cass_iterator_materialized_views_from_table_meta(t);
    ASSERT(cass_iterator_next(it) && cass_iterator_get_materialized_view_meta(it) == a);
    ASSERT(cass_iterator_next(it) && cass_iterator_get_materialized_view_meta(it) == v);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);

    /* name, base table, keys and columns as a table's */
    NAME_OF(cass_materialized_view_meta_name, v, buf);
    ASSERT_STR_EQ(buf, "t_by_v");
    ASSERT(cass_materialized_view_meta_base_table(v) == t);
    ASSERT_EQ(cass_materialized_view_meta_column_count(v), 3);
    ASSERT_EQ(cass_materialized_view_meta_partition_key_count(v), 1);
    ASSERT_EQ(cass_materialized_view_meta_clustering_key_count(v), 2);
    const CassColumnMeta *pk = cass_materialized_view_meta_partition_key(v, 0);
    NAME_OF(cass_column_meta_name, pk, buf);
    ASSERT_STR_EQ(buf, "v");
    ASSERT_EQ(cass_data_type_type(cass_column_meta_data_type(pk)), CASS_VALUE_TYPE_VARCHAR);
    ASSERT(cass_materialized_view_meta_partition_key(v, 1) == NULL);
    NAME_OF(cass_column_meta_name, cass_materialized_view_meta_clustering_key(v, 0), buf);
    ASSERT_STR_EQ(buf, "k");
    NAME_OF(cass_column_meta_name, cass_materialized_view_meta_clustering_key(v, 1), buf);
    ASSERT_STR_EQ(buf, "c");
    ASSERT(cass_materialized_view_meta_clustering_key(v, 2) == NULL);
    ASSERT_EQ(cass_materialized_view_meta_clustering_key_order(v, 0), CASS_CLUSTERING_ORDER_DESC);
    ASSERT_EQ(cass_materialized_view_meta_clustering_key_order(v, 1), CASS_CLUSTERING_ORDER_ASC);
    ASSERT_EQ(cass_materialized_view_meta_clustering_key_order(v, 2), CASS_CLUSTERING_ORDER_NONE);
    ASSERT(cass_materialized_view_meta_column(v, 0) == pk);
    ASSERT(cass_materialized_view_meta_column(v, 3) == NULL);
    ASSERT(cass_materialized_view_meta_column_by_name(v, "c") ==
           cass_materialized_view_meta_clustering_key(v, 1));
    ASSERT(cass_materialized_view_meta_column_by_name_n(v, "kXX", 1) ==
           cass_materialized_view_meta_clustering_key(v, 0));
    ASSERT(cass_materialized_view_meta_column_by_name(v, "nope") == NULL);
    ASSERT_EQ(cass_column_meta_type(cass_materialized_view_meta_column_by_name(v, "k")),
              CASS_COLUMN_TYPE_CLUSTERING_KEY);
    /* the column iterator is a column iterator, in column order */
    it = cass_iterator_columns_from_materialized_view_meta(v);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_COLUMN_META);
    for (size_t i = 0; i < 3; i++) {
        ASSERT(cass_iterator_next(it));
        ASSERT(cass_iterator_get_column_meta(it) == cass_materialized_view_meta_column(v, i));
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    /* the base table keeps its own columns */
    ASSERT_EQ(cass_table_meta_column_count(t), 3);
    ASSERT_EQ(cass_table_meta_clustering_key_count(t), 1);

    /* fields: the view's row */
    ASSERT_STR_EQ(
        text_of(cass_materialized_view_meta_field_by_name(v, "base_table_name"), buf, sizeof buf),
        "t");
    ASSERT_STR_EQ(text_of(cass_materialized_view_meta_field_by_name_n(a, "where_clauseX", 12), buf,
                          sizeof buf),
                  "k IS NOT NULL");
    cass_bool_t all = cass_true;
    ASSERT_EQ(cass_value_get_bool(
                  cass_materialized_view_meta_field_by_name(v, "include_all_columns"), &all),
              CASS_OK);
    ASSERT(!all);
    it = cass_iterator_fields_from_materialized_view_meta(v);
    int n = 0;
    while (cass_iterator_next(it))
        n++;
    ASSERT_EQ(n, 5);
    cass_iterator_free(it);

    ASSERT(cass_materialized_view_meta_base_table(NULL) == NULL);
    ASSERT_EQ(cass_materialized_view_meta_column_count(NULL), 0);
    cass_schema_meta_free(m);
}

/* ------------------------------------------------------------------------ */
/* Functions and aggregates                                                  */
/* ------------------------------------------------------------------------ */

/* Two overloads and a function over a map: full names "name(type,type)" without blanks, by
   full name; found by name and comma-separated arguments written with any blanks; arguments
   paired name with type; body, language, called_on_null_input and return type from the row. */
TEST(functions_come_from_system_schema_functions)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    keyspace_row(&s, "ks");
    keyspace_row(&s, "ks2");
    function_row(&s, "ks", "plus", "a|b", "int|int", "int", "return a + b;", "false");
    function_row(&s, "ks", "plus", "a|b", "text|text", "text", "return a + b;", "true");
    function_row(&s, "ks", "keys_of", "m", "frozen<map<int, text>>", "frozen<set<int>>",
                 "return m.keySet();", "true");
    function_row(&s, "ks", "now_ish", "", "", "bigint", "return 0L;", NULL);
    function_row(&s, "ks", "bad", "x|y", "int<|int", "nonsense<", NULL, "true");
    CassSchemaMeta *m = rows_build(&s);
    ASSERT(m);
    ASSERT_EQ(errors_logged, 2); /* the type texts of bad that do not parse */
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    char buf[256];

    /* by full name */
    static const char *const full[] = {"bad(int<,int)", "keys_of(frozen<map<int,text>>)",
                                       "now_ish()", "plus(int,int)", "plus(text,text)"};
    CassIterator *it = cass_iterator_functions_from_keyspace_meta(km);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_FUNCTION_META);
    for (size_t i = 0; i < 5; i++) {
        ASSERT(cass_iterator_next(it));
        NAME_OF(cass_function_meta_full_name, cass_iterator_get_function_meta(it), buf);
        ASSERT_STR_EQ(buf, full[i]);
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    it = cass_iterator_functions_from_keyspace_meta(cass_schema_meta_keyspace_by_name(m, "ks2"));
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);

    /* lookups: arguments as an application writes them */
    const CassFunctionMeta *pi = cass_keyspace_meta_function_by_name(km, "plus", "int,int");
    const CassFunctionMeta *pt = cass_keyspace_meta_function_by_name(km, "plus", " text , text ");
    ASSERT(pi && pt && pi != pt);
    ASSERT(cass_keyspace_meta_function_by_name(km, "plus", "int, int") == pi);
    ASSERT(cass_keyspace_meta_function_by_name(km, "plus", "int,,int,") == pi);
    ASSERT(cass_keyspace_meta_function_by_name_n(km, "plusXX", 4, "int,intXX", 7) == pi);
    ASSERT(cass_keyspace_meta_function_by_name(km, "plus", "int") == NULL);
    ASSERT(cass_keyspace_meta_function_by_name(km, "plus", "") == NULL);
    ASSERT(cass_keyspace_meta_function_by_name(km, "plus", NULL) == NULL);
    ASSERT(cass_keyspace_meta_function_by_name(km, "now_ish", ""));
    const CassFunctionMeta *ko =
        cass_keyspace_meta_function_by_name(km, "keys_of", "frozen<map<int, text>>");
    ASSERT(ko);
    ASSERT(cass_keyspace_meta_function_by_name(km, "keys_of", "frozen < map < int,text > >") == ko);

    /* what a function says */
    NAME_OF(cass_function_meta_name, pi, buf);
    ASSERT_STR_EQ(buf, "plus");
    NAME_OF(cass_function_meta_body, pi, buf);
    ASSERT_STR_EQ(buf, "return a + b;");
    NAME_OF(cass_function_meta_language, pi, buf);
    ASSERT_STR_EQ(buf, "java");
    ASSERT(!cass_function_meta_called_on_null_input(pi));
    ASSERT(cass_function_meta_called_on_null_input(pt));
    ASSERT(!cass_function_meta_called_on_null_input(
        cass_keyspace_meta_function_by_name(km, "now_ish", "")));
    ASSERT_EQ(cass_data_type_type(cass_function_meta_return_type(pi)), CASS_VALUE_TYPE_INT);
    ASSERT_EQ(cass_data_type_type(cass_function_meta_return_type(pt)), CASS_VALUE_TYPE_VARCHAR);
    ASSERT_EQ(cass_function_meta_argument_count(pi), 2);
    const char *an;
    size_t ann;
    const CassDataType *at = NULL;
    ASSERT_EQ(cass_function_meta_argument(pt, 1, &an, &ann, &at), CASS_OK);
    ASSERT_STR_EQ(str(an, ann, buf, sizeof buf), "b");
    ASSERT_EQ(cass_data_type_type(at), CASS_VALUE_TYPE_VARCHAR);
    ASSERT_EQ(cass_function_meta_argument(pt, 2, &an, &ann, &at),
              CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT(cass_function_meta_argument_type_by_name(pi, "a") ==
           cass_function_meta_argument_type_by_name_n(pi, "aXX", 1));
    ASSERT_EQ(cass_data_type_type(cass_function_meta_argument_type_by_name(pi, "a")),
              CASS_VALUE_TYPE_INT);
    ASSERT(cass_function_meta_argument_type_by_name(pi, "c") == NULL);
    const CassDataType *mt = cass_function_meta_argument_type_by_name(ko, "m");
    ASSERT_EQ(cass_data_type_type(mt), CASS_VALUE_TYPE_MAP);
    ASSERT(cass_data_type_is_frozen(mt));
    ASSERT_EQ(cass_data_type_type(cass_data_type_sub_data_type(mt, 1)), CASS_VALUE_TYPE_VARCHAR);
    ASSERT_EQ(cass_data_type_type(cass_function_meta_return_type(ko)), CASS_VALUE_TYPE_SET);

    /* a type text that does not parse leaves that type NULL, the function stays */
    const CassFunctionMeta *bad = cass_keyspace_meta_function_by_name(km, "bad", "int<,int");
    ASSERT(bad);
    ASSERT_EQ(cass_function_meta_argument(bad, 0, &an, &ann, &at), CASS_OK);
    ASSERT(at == NULL);
    ASSERT_EQ(cass_data_type_type(cass_function_meta_argument_type_by_name(bad, "y")),
              CASS_VALUE_TYPE_INT);
    ASSERT(cass_function_meta_return_type(bad) == NULL);
    NAME_OF(cass_function_meta_body, bad, buf);
    ASSERT_STR_EQ(buf, "");

    /* fields */
    ASSERT_STR_EQ(text_of(cass_function_meta_field_by_name(pi, "function_name"), buf, sizeof buf),
                  "plus");
    ASSERT(cass_value_item_count(cass_function_meta_field_by_name_n(pi, "argument_typesX", 14)) ==
           2);
    it = cass_iterator_fields_from_function_meta(pi);
    const char *fname;
    size_t fn;
    ASSERT(cass_iterator_next(it));
    ASSERT_EQ(cass_iterator_get_meta_field_name(it, &fname, &fn), CASS_OK);
    ASSERT_STR_EQ(str(fname, fn, buf, sizeof buf), "argument_names");
    cass_iterator_free(it);

    ASSERT_EQ(cass_function_meta_argument_count(NULL), 0);
    ASSERT_EQ(cass_function_meta_argument(NULL, 0, &an, &ann, &at),
              CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS);
    ASSERT(cass_keyspace_meta_function_by_name(NULL, "plus", "int,int") == NULL);
    cass_schema_meta_free(m);
}

/* An average: state function avg_state(state type, int), final function avg_final(state type),
   found among the keyspace's functions by those signatures; argument, return and state types
   parsed; initcond a text value (Cassandra 3.0 on). An aggregate whose functions are missing
   keeps NULL for them; without initcond its init_cond is a null value. */
TEST(aggregates_come_from_system_schema_aggregates_and_name_their_functions)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    keyspace_row(&s, "ks");
    function_row(&s, "ks", "avg_state", "st|v", "frozen<tuple<int, bigint>>|int",
                 "frozen<tuple<int, bigint>>", "...", "true");
    function_row(&s, "ks", "avg_final", "st", "frozen<tuple<int, bigint>>", "double", "...",
                 "true");
    function_row(&s, "ks", "cat", "st|v", "text|text", "text", "return st + v;", "false");
    aggregate_row(&s, "ks", "average", "int", "avg_state", "frozen<tuple<int,bigint>>", "avg_final",
                  "double", "(0, 0)");
    aggregate_row(&s, "ks", "concat", "text", "cat", "text", NULL, "text", NULL);
    aggregate_row(&s, "ks", "lost", "int|text", "nowhere", "int", "gone", "int", "0");
    CassSchemaMeta *m = rows_build(&s);
    ASSERT(m);
    ASSERT_EQ(errors_logged, 0);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    char buf[256];

    CassIterator *it = cass_iterator_aggregates_from_keyspace_meta(km);
    ASSERT_EQ(cass_iterator_type(it), CASS_ITERATOR_TYPE_AGGREGATE_META);
    static const char *const full[] = {"average(int)", "concat(text)", "lost(int,text)"};
    for (size_t i = 0; i < 3; i++) {
        ASSERT(cass_iterator_next(it));
        NAME_OF(cass_aggregate_meta_full_name, cass_iterator_get_aggregate_meta(it), buf);
        ASSERT_STR_EQ(buf, full[i]);
        ASSERT(cass_iterator_get_function_meta(it) == NULL); /* another kind */
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);

    const CassAggregateMeta *avg = cass_keyspace_meta_aggregate_by_name(km, "average", "int");
    ASSERT(avg);
    ASSERT(cass_keyspace_meta_aggregate_by_name_n(km, "averageX", 7, " int X", 4) == avg);
    ASSERT(cass_keyspace_meta_aggregate_by_name(km, "average", "text") == NULL);
    ASSERT(cass_keyspace_meta_function_by_name(km, "average", "int") == NULL);
    NAME_OF(cass_aggregate_meta_name, avg, buf);
    ASSERT_STR_EQ(buf, "average");
    ASSERT_EQ(cass_aggregate_meta_argument_count(avg), 1);
    ASSERT_EQ(cass_data_type_type(cass_aggregate_meta_argument_type(avg, 0)), CASS_VALUE_TYPE_INT);
    ASSERT(cass_aggregate_meta_argument_type(avg, 1) == NULL);
    ASSERT_EQ(cass_data_type_type(cass_aggregate_meta_return_type(avg)), CASS_VALUE_TYPE_DOUBLE);
    const CassDataType *st = cass_aggregate_meta_state_type(avg);
    ASSERT_EQ(cass_data_type_type(st), CASS_VALUE_TYPE_TUPLE);
    ASSERT_EQ(cass_data_type_sub_type_count(st), 2);
    ASSERT(cass_aggregate_meta_state_func(avg) ==
           cass_keyspace_meta_function_by_name(km, "avg_state", "frozen<tuple<int,bigint>>,int"));
    ASSERT(cass_aggregate_meta_state_func(avg));
    ASSERT(cass_aggregate_meta_final_func(avg) ==
           cass_keyspace_meta_function_by_name(km, "avg_final", "frozen<tuple<int,bigint>>"));
    ASSERT(cass_aggregate_meta_final_func(avg));
    const CassValue *init = cass_aggregate_meta_init_cond(avg);
    ASSERT(init);
    ASSERT_EQ(cass_value_type(init), CASS_VALUE_TYPE_VARCHAR);
    ASSERT_STR_EQ(text_of(init, buf, sizeof buf), "(0, 0)");

    /* no final function, no initcond; the state function over text (read as varchar) */
    const CassAggregateMeta *cat = cass_keyspace_meta_aggregate_by_name(km, "concat", "text");
    ASSERT(cat);
    ASSERT(cass_aggregate_meta_state_func(cat) ==
           cass_keyspace_meta_function_by_name(km, "cat", "text,text"));
    ASSERT(cass_aggregate_meta_state_func(cat));
    ASSERT(cass_aggregate_meta_final_func(cat) == NULL);
    ASSERT(cass_aggregate_meta_init_cond(cat));
    ASSERT(cass_value_is_null(cass_aggregate_meta_init_cond(cat)));

    /* functions the snapshot does not have */
    const CassAggregateMeta *lost = cass_keyspace_meta_aggregate_by_name(km, "lost", "int, text");
    ASSERT(lost);
    ASSERT(cass_aggregate_meta_state_func(lost) == NULL);
    ASSERT(cass_aggregate_meta_final_func(lost) == NULL);
    ASSERT_EQ(cass_aggregate_meta_argument_count(lost), 2);

    /* fields */
    ASSERT_STR_EQ(text_of(cass_aggregate_meta_field_by_name(avg, "state_func"), buf, sizeof buf),
                  "avg_state");
    ASSERT_STR_EQ(
        text_of(cass_aggregate_meta_field_by_name_n(avg, "initcondXX", 8), buf, sizeof buf),
        "(0, 0)");
    it = cass_iterator_fields_from_aggregate_meta(avg);
    int n = 0;
    while (cass_iterator_next(it))
        n++;
    ASSERT_EQ(n, 8);
    cass_iterator_free(it);

    ASSERT(cass_aggregate_meta_init_cond(NULL) == NULL);
    ASSERT(cass_aggregate_meta_state_func(NULL) == NULL);
    cass_schema_meta_free(m);
}

/* Older servers (2.2) wrote initcond as a blob: it reads as a value of the state type. A row
   without argument_types cannot be named: logged and left out (update_functions,
   update_aggregates). */
TEST(blob_initcond_reads_as_the_state_type_and_unnamed_rows_are_left_out)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    cql_result_free(s.r[CQL_DRV_SCHEMA_AGGREGATES]);
    s.r[CQL_DRV_SCHEMA_AGGREGATES] =
        result_new("keyspace_name text, aggregate_name text, argument_types list, "
                   "state_type text, initcond blob");
    cql_result_free(s.r[CQL_DRV_SCHEMA_FUNCTIONS]);
    s.r[CQL_DRV_SCHEMA_FUNCTIONS] = result_new("keyspace_name text, function_name text");
    keyspace_row(&s, "ks");
    result_row(s.r[CQL_DRV_SCHEMA_AGGREGATES], "ks", "total", "int", "int", "\x01\x02\x03\x04");
    result_row(s.r[CQL_DRV_SCHEMA_FUNCTIONS], "ks", "f");
    CassSchemaMeta *m = rows_build(&s);
    ASSERT(m);
    ASSERT_EQ(errors_logged, 1);
    ASSERT(strstr(last_error, "ks.f"));
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    CassIterator *it = cass_iterator_functions_from_keyspace_meta(km);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    const CassAggregateMeta *total = cass_keyspace_meta_aggregate_by_name(km, "total", "int");
    ASSERT(total);
    const CassValue *init = cass_aggregate_meta_init_cond(total);
    ASSERT_EQ(cass_value_type(init), CASS_VALUE_TYPE_INT);
    cass_int32_t v = 0;
    ASSERT_EQ(cass_value_get_int32(init, &v), CASS_OK);
    ASSERT_EQ(v, 0x01020304);
    cass_schema_meta_free(m);
}

/* Index options or a signature that do not decode fail the snapshot, as a user type's lists
   do; the reason is logged. */
TEST(rows_of_these_tables_that_cannot_be_read_give_no_snapshot)
{
    capture_logs();
    for (int round = 0; round < 2; round++) {
        schema_rows s;
        rows_init(&s);
        keyspace_row(&s, "ks");
        table_row(&s, "ks", "t");
        if (round == 0)
            index_row(&s, "ks", "t", "i", "COMPOSITES", "target=v");
        else
            function_row(&s, "ks", "f", "a", "int", "int", "", "true");
        for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
            ASSERT_EQ(cql_result_finish(s.r[t]), 0);
        /* cut the map / list short: its count promises more than its bytes hold */
        eng_val *cell = round == 0 ? &s.r[CQL_DRV_SCHEMA_INDEXES]->cells[0]
                                   : &s.r[CQL_DRV_SCHEMA_FUNCTIONS]->cells[6];
        cell->len -= 3;
        CassSchemaMeta *m = cql_drv_schema_meta_from_rows((const cql_result *const *)s.r, 1);
        ASSERT(m == NULL);
        ASSERT_EQ(errors_logged, round + 1);
        ASSERT(strstr(last_error, round == 0 ? "ks.t.i" : "ks.f"));
        for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
            cql_result_free(s.r[t]);
    }
}

/* Every input has its query, the same for every backend; other numbers have none. */
TEST(each_schema_table_has_one_query)
{
    ASSERT_STR_EQ(cql_drv_schema_query(CQL_DRV_SCHEMA_INDEXES),
                  "SELECT * FROM system_schema.indexes");
    ASSERT_STR_EQ(cql_drv_schema_query(CQL_DRV_SCHEMA_FUNCTIONS),
                  "SELECT * FROM system_schema.functions");
    ASSERT_STR_EQ(cql_drv_schema_query(CQL_DRV_SCHEMA_AGGREGATES),
                  "SELECT * FROM system_schema.aggregates");
    ASSERT_STR_EQ(cql_drv_schema_query(CQL_DRV_SCHEMA_VIEWS), "SELECT * FROM system_schema.views");
    ASSERT_STR_EQ(cql_drv_schema_query(CQL_DRV_SCHEMA_LOCAL), "SELECT * FROM system.local");
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
        ASSERT(cql_drv_schema_query(t) != NULL);
    ASSERT(cql_drv_schema_query(-1) == NULL);
    ASSERT(cql_drv_schema_query(CQL_DRV_SCHEMA_N) == NULL);
}
