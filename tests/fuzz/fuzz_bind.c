/*
 * Fuzz target for bound values through the driver API (cassandra.h), as an application
 * sends them: bytes bound to a column of each type of the fuzz schema (fz_columns), as a
 * whole or built with collections, tuples and user types, then read back every way there
 * is.
 *
 * Input: a column choice, a mode byte, then the value's bytes:
 *  - raw: the bytes as they are, bound (cass_statement_bind_bytes) to a marker of a
 *    simple statement, where the driver checks nothing and the executor validates;
 *  - made: a value made for the column's type by fz_gen_value, bound the same way;
 *  - built: the value assembled from driver objects (CassCollection, CassTuple,
 *    CassUserType from the prepared statement's data type) whose items are raw or made
 *    bytes, bound to a prepared statement;
 *  - keyed: three made values bound as the composite primary key of the table `keyed`.
 * A value the server takes is read back with SELECT, SELECT JSON, toJson, CAST(... AS
 * text) and writetime, each result walked with the driver's getters (iterators into
 * collections, tuples and user types) and rendered as cqlsh does (cql_format_result).
 * Errors are expected; crashes, sanitizer reports and leaks are the findings.
 *
 * Reproducible runs: one database, emptied (cassette_session_reset) after every input
 * that wrote to it; inputs never change the schema.
 */
#include <cassandra.h>
#include <cassette.h>
#include <stdio.h>
#include <string.h>

#include "cql/shell/format.h"
#include "fuzz.h"

static CassCluster *cluster;
static CassSession *session;
static const CassPrepared *insert_prepared[64];
static const CassPrepared *keyed_prepared;

/* ---- the database ---- */

static CassError run(const char *q, CassStatement *st, const CassResult **out)
{
    CassStatement *own = st ? NULL : cass_statement_new(q, 0);
    CassFuture *f = cass_session_execute(session, st ? st : own);
    CassError rc = cass_future_error_code(f);
    if (out)
        *out = rc == CASS_OK ? cass_future_get_result(f) : NULL;
    cass_future_free(f);
    cass_statement_free(own);
    return rc;
}

static void setup(const char *q)
{
    if (run(q, NULL, NULL) != CASS_OK)
        fz_fail("bind: setup statement failed: %s", q);
}

static const CassPrepared *prepare(const char *q)
{
    CassFuture *f = cass_session_prepare(session, q);
    const CassPrepared *p = cass_future_get_prepared(f);
    cass_future_free(f);
    if (!p)
        fz_fail("bind: cannot prepare %s", q);
    return p;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char q[4096];
    cluster = cass_cluster_new();
    session = cass_session_new();
    cass_cluster_set_contact_points(cluster, "memory:");
    CassFuture *f = cass_session_connect(session, cluster);
    if (cass_future_error_code(f) != CASS_OK)
        fz_fail("bind: cannot connect");
    cass_future_free(f);
    setup("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
          "'replication_factor': 1}");
    setup("USE ks");
    snprintf(q, sizeof q, "CREATE TYPE %s", fz_udt_cql);
    setup(q);
    size_t n = (size_t)snprintf(q, sizeof q, "CREATE TABLE all_types (k int, c text, c2 int");
    for (int i = 0; i < fz_n_columns; i++)
        n +=
            (size_t)snprintf(q + n, sizeof q - n, ", %s %s", fz_columns[i].name, fz_columns[i].cql);
    snprintf(q + n, sizeof q - n,
             ", PRIMARY KEY (k, c, c2)) WITH CLUSTERING ORDER BY "
             "(c DESC, c2 ASC)");
    setup(q);
    setup("CREATE TABLE keyed (k frozen<tuple<int, text>>, c1 frozen<addr>, "
          "c2 frozen<list<int>>, v text, PRIMARY KEY (k, c1, c2)) "
          "WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)");
    for (int i = 0; i < fz_n_columns; i++) {
        snprintf(q, sizeof q, "INSERT INTO all_types (k, c, c2, %s) VALUES (0, 'x', 0, ?)",
                 fz_columns[i].name);
        insert_prepared[i] = prepare(q);
    }
    keyed_prepared = prepare("INSERT INTO keyed (k, c1, c2, v) VALUES (?, ?, ?, 'v')");
    return 0;
}

/* ---- reading back ---- */

static void walk_value(const CassValue *v, int depth);

static void walk_items(CassIterator *it, int pairs, int depth)
{
    while (it && cass_iterator_next(it)) {
        if (pairs) {
            walk_value(cass_iterator_get_map_key(it), depth + 1);
            walk_value(cass_iterator_get_map_value(it), depth + 1);
        } else {
            walk_value(cass_iterator_get_value(it), depth + 1);
        }
    }
    cass_iterator_free(it);
}

/* Every getter that suits the value's type, then its items. */
static void walk_value(const CassValue *v, int depth)
{
    if (!v || cass_value_is_null(v) || depth > 8)
        return;
    const cass_byte_t *bytes;
    size_t len;
    (void)cass_value_get_bytes(v, &bytes, &len);
    cass_int32_t i32;
    cass_int64_t i64;
    cass_uint32_t u32;
    cass_double_t dbl;
    cass_float_t flt;
    cass_bool_t b;
    CassUuid uuid;
    CassInet inet;
    const char *s;
    (void)cass_value_get_int32(v, &i32);
    (void)cass_value_get_int64(v, &i64);
    (void)cass_value_get_uint32(v, &u32);
    (void)cass_value_get_double(v, &dbl);
    (void)cass_value_get_float(v, &flt);
    (void)cass_value_get_bool(v, &b);
    (void)cass_value_get_uuid(v, &uuid);
    (void)cass_value_get_inet(v, &inet);
    (void)cass_value_get_string(v, &s, &len);
    cass_int32_t scale, months, days;
    cass_int64_t nanos;
    (void)cass_value_get_decimal(v, &bytes, &len, &scale);
    (void)cass_value_get_duration(v, &months, &days, &nanos);
    (void)cass_value_item_count(v);
    switch (cass_value_type(v)) {
    case CASS_VALUE_TYPE_LIST:
    case CASS_VALUE_TYPE_SET:
        walk_items(cass_iterator_from_collection(v), 0, depth);
        break;
    case CASS_VALUE_TYPE_MAP:
        walk_items(cass_iterator_from_map(v), 1, depth);
        break;
    case CASS_VALUE_TYPE_TUPLE:
        walk_items(cass_iterator_from_tuple(v), 0, depth);
        break;
    case CASS_VALUE_TYPE_UDT: {
        CassIterator *it = cass_iterator_fields_from_user_type(v);
        while (it && cass_iterator_next(it))
            walk_value(cass_iterator_get_user_type_field_value(it), depth + 1);
        cass_iterator_free(it);
        break;
    }
    default:
        break;
    }
}

static void read_back(const char *q)
{
    const CassResult *r = NULL;
    if (run(q, NULL, &r) != CASS_OK || !r)
        return;
    CassIterator *rows = cass_iterator_from_result(r);
    while (cass_iterator_next(rows)) {
        const CassRow *row = cass_iterator_get_row(rows);
        for (size_t i = 0; i < cass_result_column_count(r); i++)
            walk_value(cass_row_get_column(row, i), 0);
    }
    cass_iterator_free(rows);
    eng_buf shown = ENG_BUF_INIT;
    cql_format_result(r, 0, &shown);
    eng_buf_free(&shown);
    cass_result_free(r);
}

static void read_column(const char *col)
{
    static const char *const forms[] = {
        "SELECT %s FROM all_types WHERE k = 0",
        "SELECT JSON %s FROM all_types WHERE k = 0",
        "SELECT toJson(%s) FROM all_types WHERE k = 0",
        "SELECT CAST(%s AS text) FROM all_types WHERE k = 0",
        "SELECT writetime(%s) FROM all_types WHERE k = 0 AND c = 'x' AND c2 = 0",
        "SELECT * FROM all_types WHERE %s = 0x00 ALLOW FILTERING",
    };
    char q[256];
    for (size_t i = 0; i < ENG_ARRAY_LEN(forms); i++) {
        snprintf(q, sizeof q, forms[i], col);
        read_back(q);
    }
}

/* ---- binding ---- */

/* Bytes for one item of a composite: raw from the input or made for the type. */
static void item_bytes(const eng_type *t, fz_input *in, eng_buf *out)
{
    if (fz_u8(in) & 1) {
        const uint8_t *p;
        eng_buf_put(out, NULL, 0);
        size_t n = fz_take(in, fz_u8(in) % 24, &p);
        eng_buf_put(out, p, n);
    } else {
        fz_gen_value(t, in, out);
    }
}

static CassCollection *build_collection(const eng_type *t, fz_input *in)
{
    CassCollectionType kind = t->kind == ENG_LIST  ? CASS_COLLECTION_TYPE_LIST
                              : t->kind == ENG_SET ? CASS_COLLECTION_TYPE_SET
                                                   : CASS_COLLECTION_TYPE_MAP;
    int n = fz_u8(in) % 4;
    CassCollection *c = cass_collection_new(kind, (size_t)n);
    for (int i = 0; i < n * (t->kind == ENG_MAP ? 2 : 1); i++) {
        eng_buf b = ENG_BUF_INIT;
        item_bytes(t->sub[t->kind == ENG_MAP ? i % 2 : 0], in, &b);
        (void)cass_collection_append_bytes(c, b.len ? b.p : (const cass_byte_t *)"", b.len);
        eng_buf_free(&b);
    }
    return c;
}

static CassTuple *build_tuple(const eng_type *t, fz_input *in)
{
    CassTuple *tu = cass_tuple_new(t->n_sub);
    for (int i = 0; i < t->n_sub; i++) {
        if ((fz_u8(in) & 7) == 0) {
            (void)cass_tuple_set_null(tu, (size_t)i);
            continue;
        }
        eng_buf b = ENG_BUF_INIT;
        item_bytes(t->sub[i], in, &b);
        (void)cass_tuple_set_bytes(tu, (size_t)i, b.len ? b.p : (const cass_byte_t *)"", b.len);
        eng_buf_free(&b);
    }
    return tu;
}

static CassUserType *build_udt(const eng_type *t, const CassDataType *dt, fz_input *in)
{
    CassUserType *u = cass_user_type_new_from_data_type(dt);
    for (int i = 0; u && i < t->n_sub; i++) {
        if ((fz_u8(in) & 3) == 0)
            continue; /* left unset: a null field */
        eng_buf b = ENG_BUF_INIT;
        item_bytes(t->sub[i], in, &b);
        (void)cass_user_type_set_bytes(u, (size_t)i, b.len ? b.p : (const cass_byte_t *)"", b.len);
        eng_buf_free(&b);
    }
    return u;
}

/* Binds a value built from driver objects (or, for a scalar, its bytes) to marker 0. */
static void bind_built(CassStatement *st, const CassPrepared *p, size_t marker, const eng_type *t,
                       fz_input *in)
{
    if (t->kind == ENG_LIST || t->kind == ENG_SET || t->kind == ENG_MAP) {
        CassCollection *c = build_collection(t, in);
        (void)cass_statement_bind_collection(st, marker, c);
        cass_collection_free(c);
    } else if (t->kind == ENG_TUPLE) {
        CassTuple *tu = build_tuple(t, in);
        (void)cass_statement_bind_tuple(st, marker, tu);
        cass_tuple_free(tu);
    } else if (t->kind == ENG_UDT) {
        CassUserType *u = build_udt(t, cass_prepared_parameter_data_type(p, marker), in);
        if (u)
            (void)cass_statement_bind_user_type(st, marker, u);
        cass_user_type_free(u);
    } else {
        eng_buf b = ENG_BUF_INIT;
        item_bytes(t, in, &b);
        (void)cass_statement_bind_bytes(st, marker, b.len ? b.p : (const cass_byte_t *)"", b.len);
        eng_buf_free(&b);
    }
}

static int insert_column(int col, int mode, fz_input *in)
{
    const eng_type *t = fz_column_type(col);
    CassStatement *st;
    if (mode == 2) {
        st = cass_prepared_bind(insert_prepared[col]);
        bind_built(st, insert_prepared[col], 0, t, in);
    } else {
        char q[256];
        snprintf(q, sizeof q, "INSERT INTO all_types (k, c, c2, %s) VALUES (0, 'x', 0, ?)",
                 fz_columns[col].name);
        st = cass_statement_new(q, 1);
        eng_buf b = ENG_BUF_INIT;
        if (mode == 0) {
            eng_buf_put(&b, in->p, fz_left(in));
        } else {
            fz_gen_value(t, in, &b);
        }
        (void)cass_statement_bind_bytes(st, 0, b.len ? b.p : (const cass_byte_t *)"", b.len);
        eng_buf_free(&b);
    }
    CassError rc = run(NULL, st, NULL);
    cass_statement_free(st);
    return rc == CASS_OK;
}

static int insert_keyed(fz_input *in)
{
    /* the types of keyed's primary key columns, in order */
    static const char *const cql[] = {"frozen<tuple<int, text>>", "frozen<addr>",
                                      "frozen<list<int>>"};
    static eng_type *types[3];
    CassStatement *st = cass_prepared_bind(keyed_prepared);
    for (size_t i = 0; i < ENG_ARRAY_LEN(cql); i++) {
        if (!types[i])
            types[i] = fz_type_parse(cql[i]);
        bind_built(st, keyed_prepared, i, types[i], in);
    }
    CassError rc = run(NULL, st, NULL);
    cass_statement_free(st);
    return rc == CASS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in = fz_input_of(data, size);
    int col = fz_u8(&in) % fz_n_columns;
    int mode = fz_u8(&in) & 3;
    int wrote;
    if (mode == 3) {
        wrote = insert_keyed(&in);
        if (wrote)
            read_back("SELECT * FROM keyed");
        read_back("SELECT JSON * FROM keyed");
    } else {
        wrote = insert_column(col, mode, &in);
        if (wrote)
            read_column(fz_columns[col].name);
    }
    if (wrote && cassette_session_reset(session) != 0)
        fz_fail("bind: cannot reset the database");
    return 0;
}
