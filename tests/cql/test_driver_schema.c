/*
 * Schema metadata built from system table rows, the way the driver builds it: the CQL type
 * names of system_schema (columns.type, types.field_types) through cql_drv_type_parse
 * (cql/driver/type_parser.c), and whole snapshots from hand-made rows through
 * cql_drv_schema_meta_from_rows (cql/driver/schema.c). It reaches inside the driver (so it sits
 * with the cql/ internals' tests, not with tests/driver/, which see the public headers only),
 * since no public call takes a type text or a set of rows; what it checks is read back through
 * cassandra.h only. (test_session.c covers the same metadata as
 * an application gets it from a session.)
 *
 * The expectations are the driver's (DataStax C/C++ driver: DataTypeCqlNameParser in
 * data_type_parser.cpp, ColumnMetadata, build_keys_and_sort and update_user_types in
 * metadata.cpp) on the texts and rows Cassandra writes: scalar names case-insensitive and
 * never frozen, frozen<> marking the collection, tuple or user type inside it, a user type
 * resolved in its keyspace or, unknown, kept as a user type with a keyspace and a name but no
 * fields, a quoted class name a custom type; key columns by kind and position, the others by
 * name. Where cassette knowingly differs (type_parser.c lists it) the test says so: "text" is
 * CASS_VALUE_TYPE_VARCHAR, a quoted user type name is found without its quotes, text the
 * driver skips over is refused.
 */
#include <cassandra.h>

#include <stdarg.h>

#include "cql/driver/driver_int.h"
#include "harness.h"

/* ------------------------------------------------------------------------ */
/* Describing a data type                                                    */
/* ------------------------------------------------------------------------ */

static const char *scalar_name(CassValueType t)
{
    switch (t) {
#define XX(name, type, cql, klass)                                                                 \
    case name:                                                                                     \
        return cql;
        CASS_VALUE_TYPE_MAPPING(XX)
#undef XX
    default:
        return "?";
    }
}

/* dt in a compact CQL-like form: frozen<...> when frozen, user types as ks.name{field type,
   ...}, custom types as 'class', text as "text", varchar as "varchar". */
static void describe_into(const CassDataType *dt, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    char *p = buf + len;
    size_t room = cap - len;
    if (!dt) {
        snprintf(p, room, "NULL");
        return;
    }
    CassValueType t = cass_data_type_type(dt);
    int frozen = cass_data_type_is_frozen(dt);
    if (frozen)
        snprintf(p, room, "frozen<");
    const char *s;
    size_t n;
    if (t == CASS_VALUE_TYPE_UDT) {
        const char *ks;
        size_t ksn;
        cass_data_type_keyspace(dt, &ks, &ksn);
        cass_data_type_type_name(dt, &s, &n);
        len = strlen(buf);
        snprintf(buf + len, cap - len, "%.*s.%.*s{", (int)ksn, ks, (int)n, s);
        for (size_t i = 0; i < cass_data_type_sub_type_count(dt); i++) {
            cass_data_type_sub_type_name(dt, i, &s, &n);
            len = strlen(buf);
            snprintf(buf + len, cap - len, "%s%.*s ", i ? ", " : "", (int)n, s);
            describe_into(cass_data_type_sub_data_type(dt, i), buf, cap);
        }
        len = strlen(buf);
        snprintf(buf + len, cap - len, "}");
    } else if (t == CASS_VALUE_TYPE_CUSTOM) {
        cass_data_type_class_name(dt, &s, &n);
        len = strlen(buf);
        snprintf(buf + len, cap - len, "'%.*s'", (int)n, s);
    } else {
        len = strlen(buf);
        snprintf(buf + len, cap - len, "%s", scalar_name(t));
        size_t k = cass_data_type_sub_type_count(dt);
        for (size_t i = 0; i < k; i++) {
            len = strlen(buf);
            snprintf(buf + len, cap - len, i ? ", " : "<");
            describe_into(cass_data_type_sub_data_type(dt, i), buf, cap);
        }
        len = strlen(buf);
        if (k)
            snprintf(buf + len, cap - len, ">");
    }
    len = strlen(buf);
    if (frozen)
        snprintf(buf + len, cap - len, ">");
}

static const char *describe(const CassDataType *dt, char *buf, size_t cap)
{
    buf[0] = 0;
    describe_into(dt, buf, cap);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* A keyspace "ks" with two user types, as the schema builder would hand them */
/* ------------------------------------------------------------------------ */

typedef struct fake_ks {
    CassDataType *addr;   /* ks.addr (street text, zip int) */
    CassDataType *mytype; /* ks."My""Type" (a int) */
    int lookups;          /* calls of the lookup */
    int fail;             /* the lookup fails with ENG_E_NOMEM */
} fake_ks;

static CassDataType *udt(const char *name, const char *f, CassValueType ft)
{
    CassDataType *dt = cass_data_type_new_udt(1);
    ASSERT(dt);
    ASSERT_EQ(cass_data_type_set_keyspace(dt, "ks"), CASS_OK);
    ASSERT_EQ(cass_data_type_set_type_name(dt, name), CASS_OK);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(dt, f, ft), CASS_OK);
    return dt;
}

static void fake_init(fake_ks *k)
{
    memset(k, 0, sizeof *k);
    k->addr = udt("addr", "street", CASS_VALUE_TYPE_VARCHAR);
    ASSERT_EQ(cass_data_type_add_sub_value_type_by_name(k->addr, "zip", CASS_VALUE_TYPE_INT),
              CASS_OK);
    k->mytype = udt("My\"Type", "a", CASS_VALUE_TYPE_INT);
}

static void fake_free(fake_ks *k)
{
    cass_data_type_free(k->addr);
    cass_data_type_free(k->mytype);
}

static int fake_lookup(void *ctx, const char *name, const CassDataType **out, eng_err *err)
{
    fake_ks *k = ctx;
    k->lookups++;
    *out = NULL;
    if (k->fail)
        return eng_errorf(err, ENG_E_NOMEM, "no memory (test)");
    if (!strcmp(name, "addr"))
        *out = k->addr;
    else if (!strcmp(name, "My\"Type"))
        *out = k->mytype;
    return 0;
}

/* The type text parses; its description is want. */
#define ASSERT_PARSES(k, text, want) assert_parses(__FILE__, __LINE__, (k), (text), (want))

static void assert_parses(const char *file, int line, fake_ks *k, const char *text,
                          const char *want)
{
    eng_err err;
    eng_err_clear(&err);
    CassDataType *dt = (CassDataType *)1;
    int rc = cql_drv_type_parse(text, strlen(text), "ks", fake_lookup, k, &dt, &err);
    if (rc)
        test_fail(file, line, "\"%s\" did not parse (%d): %s", text, rc, err.msg);
    char buf[1024];
    describe(dt, buf, sizeof buf);
    cql_drv_type_unref(dt);
    if (strcmp(buf, want))
        test_fail(file, line, "\"%s\" is %s, want %s", text, buf, want);
}

/* The type text is refused with ENG_E_INVALID and a message. */
#define ASSERT_REFUSED(k, text) assert_refused(__FILE__, __LINE__, (k), (text), strlen(text))

static void assert_refused(const char *file, int line, fake_ks *k, const char *text, size_t len)
{
    eng_err err;
    eng_err_clear(&err);
    CassDataType *dt = (CassDataType *)1;
    int rc = cql_drv_type_parse(text, len, "ks", fake_lookup, k, &dt, &err);
    if (rc != ENG_E_INVALID || dt || !strstr(err.msg, "Invalid type")) {
        char buf[256];
        test_fail(file, line, "\"%s\": rc %d, type %s, message \"%s\"", text, rc,
                  describe(rc ? NULL : dt, buf, sizeof buf), err.msg);
    }
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

/* Every scalar name of CQL, as system_schema spells it and in other cases, is its value type,
   never frozen. "text" is VARCHAR, as every text of cassette (the driver: TEXT). */
TEST(every_scalar_name_is_its_value_type)
{
    static const struct {
        const char *text;
        CassValueType want;
    } cases[] = {
        {"ascii", CASS_VALUE_TYPE_ASCII},
        {"bigint", CASS_VALUE_TYPE_BIGINT},
        {"blob", CASS_VALUE_TYPE_BLOB},
        {"boolean", CASS_VALUE_TYPE_BOOLEAN},
        {"counter", CASS_VALUE_TYPE_COUNTER},
        {"decimal", CASS_VALUE_TYPE_DECIMAL},
        {"double", CASS_VALUE_TYPE_DOUBLE},
        {"float", CASS_VALUE_TYPE_FLOAT},
        {"int", CASS_VALUE_TYPE_INT},
        {"text", CASS_VALUE_TYPE_VARCHAR},
        {"timestamp", CASS_VALUE_TYPE_TIMESTAMP},
        {"uuid", CASS_VALUE_TYPE_UUID},
        {"varchar", CASS_VALUE_TYPE_VARCHAR},
        {"varint", CASS_VALUE_TYPE_VARINT},
        {"timeuuid", CASS_VALUE_TYPE_TIMEUUID},
        {"inet", CASS_VALUE_TYPE_INET},
        {"date", CASS_VALUE_TYPE_DATE},
        {"time", CASS_VALUE_TYPE_TIME},
        {"smallint", CASS_VALUE_TYPE_SMALL_INT},
        {"tinyint", CASS_VALUE_TYPE_TINY_INT},
        {"duration", CASS_VALUE_TYPE_DURATION},
        {"INT", CASS_VALUE_TYPE_INT},
        {"BigInt", CASS_VALUE_TYPE_BIGINT},
        {"  timestamp\t", CASS_VALUE_TYPE_TIMESTAMP},
    };
    fake_ks k;
    fake_init(&k);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        eng_err err;
        eng_err_clear(&err);
        CassDataType *dt = NULL;
        ASSERT_OK_ERR(cql_drv_type_parse(cases[i].text, strlen(cases[i].text), "ks", fake_lookup,
                                         &k, &dt, &err),
                      &err);
        if (cass_data_type_type(dt) != cases[i].want)
            test_fail(__FILE__, __LINE__, "\"%s\" is 0x%x, want 0x%x", cases[i].text,
                      cass_data_type_type(dt), cases[i].want);
        ASSERT(!cass_data_type_is_frozen(dt));
        ASSERT_EQ(cass_data_type_sub_type_count(dt), 0);
        cql_drv_type_unref(dt);
    }
    /* frozen<> around a scalar leaves a plain scalar (the driver's simple type cache) */
    ASSERT_PARSES(&k, "frozen<int>", "int");
    ASSERT_EQ(k.lookups, 0); /* no scalar is looked up as a user type */
    fake_free(&k);
}

/* Collections as Cassandra writes them: a non-frozen collection bare, every nested one in
   frozen<>; map keys and values; keywords in any case; blanks anywhere between the parts. */
TEST(collections_nest_and_keep_their_frozenness)
{
    fake_ks k;
    fake_init(&k);
    ASSERT_PARSES(&k, "list<int>", "list<int>");
    ASSERT_PARSES(&k, "set<text>", "set<varchar>");
    ASSERT_PARSES(&k, "map<text, int>", "map<varchar, int>");
    ASSERT_PARSES(&k, "frozen<list<int>>", "frozen<list<int>>");
    ASSERT_PARSES(&k, "frozen<map<text, int>>", "frozen<map<varchar, int>>");
    ASSERT_PARSES(&k, "list<frozen<list<int>>>", "list<frozen<list<int>>>");
    ASSERT_PARSES(&k, "set<frozen<map<text, int>>>", "set<frozen<map<varchar, int>>>");
    ASSERT_PARSES(&k, "map<frozen<set<int>>, frozen<list<frozen<map<text, bigint>>>>>",
                  "map<frozen<set<int>>, frozen<list<frozen<map<varchar, bigint>>>>>");
    ASSERT_PARSES(&k, "frozen<map<text, frozen<list<int>>>>",
                  "frozen<map<varchar, frozen<list<int>>>>");
    ASSERT_PARSES(&k, "frozen<frozen<list<int>>>", "frozen<list<int>>");
    ASSERT_PARSES(&k, "LIST<Frozen<SET<INT>>>", "list<frozen<set<int>>>");
    ASSERT_PARSES(&k, " map < text ,\tint >\n", "map<varchar, int>");
    ASSERT_PARSES(&k, "map<text,int>", "map<varchar, int>");
    fake_free(&k);
}

/* Tuples: Cassandra always writes them frozen; a bare tuple<> is not frozen (the driver's
   TupleType takes frozenness from the text); components may be anything. */
TEST(tuples_take_any_components)
{
    fake_ks k;
    fake_init(&k);
    ASSERT_PARSES(&k, "frozen<tuple<int, text>>", "frozen<tuple<int, varchar>>");
    ASSERT_PARSES(&k, "tuple<int>", "tuple<int>");
    ASSERT_PARSES(&k, "frozen<tuple<int, frozen<list<int>>, frozen<tuple<text, uuid>>>>",
                  "frozen<tuple<int, frozen<list<int>>, frozen<tuple<varchar, uuid>>>>");
    ASSERT_PARSES(&k, "list<frozen<tuple<int, frozen<addr>>>>",
                  "list<frozen<tuple<int, frozen<ks.addr{street varchar, zip int}>>>>");
    fake_free(&k);
}

/* A user type by its bare name is the keyspace's definition itself; a frozen reference is a
   frozen copy with the same fields; inside collections and maps too. */
TEST(user_types_resolve_in_their_keyspace)
{
    fake_ks k;
    fake_init(&k);
    eng_err err;
    eng_err_clear(&err);
    CassDataType *dt = NULL;
    ASSERT_OK_ERR(cql_drv_type_parse("addr", 4, "ks", fake_lookup, &k, &dt, &err), &err);
    ASSERT(dt == k.addr);
    cql_drv_type_unref(dt);
    ASSERT_OK_ERR(cql_drv_type_parse("frozen<addr>", 12, "ks", fake_lookup, &k, &dt, &err), &err);
    ASSERT(dt != k.addr);
    ASSERT(cass_data_type_is_frozen(dt));
    ASSERT(!cass_data_type_is_frozen(k.addr)); /* the definition is left as it was */
    ASSERT_EQ(cass_data_type_sub_type_count(dt), 2);
    cql_drv_type_unref(dt);
    ASSERT_PARSES(&k, "frozen<addr>", "frozen<ks.addr{street varchar, zip int}>");
    ASSERT_PARSES(&k, "list<frozen<addr>>", "list<frozen<ks.addr{street varchar, zip int}>>");
    ASSERT_PARSES(&k, "map<text, frozen<addr>>",
                  "map<varchar, frozen<ks.addr{street varchar, zip int}>>");
    ASSERT_PARSES(&k, "frozen<map<frozen<addr>, frozen<set<frozen<addr>>>>>",
                  "frozen<map<frozen<ks.addr{street varchar, zip int}>, "
                  "frozen<set<frozen<ks.addr{street varchar, zip int}>>>>>");
    fake_free(&k);
}

/* Cassandra double-quotes a user type name that is not a plain lower-case identifier (and
   doubles the quotes inside): found without its quotes. A quoted scalar name is a user type
   name (CQL: "int" quoted is an identifier, not the type). */
TEST(quoted_user_type_names_are_unquoted)
{
    fake_ks k;
    fake_init(&k);
    ASSERT_PARSES(&k, "\"My\"\"Type\"", "ks.My\"Type{a int}");
    ASSERT_PARSES(&k, "frozen<\"My\"\"Type\">", "frozen<ks.My\"Type{a int}>");
    ASSERT_PARSES(&k, "list<frozen<\"My\"\"Type\">>", "list<frozen<ks.My\"Type{a int}>>");
    ASSERT_PARSES(&k, "\"int\"", "ks.int{}");
    ASSERT_PARSES(&k, "frozen<\"Odd, <name>\">", "frozen<ks.Odd, <name>{}>");
    fake_free(&k);
}

/* A user type the keyspace does not define stays a user type with the keyspace and the name
   but no fields, frozen as referenced (the driver's get_or_create_user_type); names are
   matched exactly, as Cassandra has already folded the case of unquoted ones. */
TEST(unknown_user_types_keep_keyspace_and_name)
{
    fake_ks k;
    fake_init(&k);
    ASSERT_PARSES(&k, "nope", "ks.nope{}");
    ASSERT_PARSES(&k, "frozen<nope>", "frozen<ks.nope{}>");
    ASSERT_PARSES(&k, "list<frozen<nope>>", "list<frozen<ks.nope{}>>");
    ASSERT_PARSES(&k, "frozen<Addr>", "frozen<ks.Addr{}>");
    ASSERT_PARSES(&k, "\"MyType\"", "ks.MyType{}");
    /* without a lookup nothing is defined */
    eng_err err;
    eng_err_clear(&err);
    CassDataType *dt = NULL;
    ASSERT_OK_ERR(cql_drv_type_parse("frozen<addr>", 12, "other", NULL, NULL, &dt, &err), &err);
    char buf[256];
    ASSERT_STR_EQ(describe(dt, buf, sizeof buf), "frozen<other.addr{}>");
    cql_drv_type_unref(dt);
    fake_free(&k);
}

/* A quoted class name is a custom type of that class; "empty" is the custom EmptyType. */
TEST(custom_types_by_class_name)
{
    fake_ks k;
    fake_init(&k);
    ASSERT_PARSES(&k, "'org.apache.cassandra.db.marshal.LexicalUUIDType'",
                  "'org.apache.cassandra.db.marshal.LexicalUUIDType'");
    ASSERT_PARSES(&k, "list<'com.example.MyType'>", "list<'com.example.MyType'>");
    ASSERT_PARSES(&k, "empty", "'org.apache.cassandra.db.marshal.EmptyType'");
    ASSERT_PARSES(&k, "EMPTY", "'org.apache.cassandra.db.marshal.EmptyType'");
    fake_free(&k);
}

/* Text that is not a type is refused with a message, never a crash and never a type made up
   from part of it: wrong parameter counts (the driver's own refusals), missing names and
   brackets, unclosed quotes, text after a complete type (which the driver skips). */
TEST(malformed_type_texts_are_refused)
{
    fake_ks k;
    fake_init(&k);
    const char *bad[] = {
        "",
        "   ",
        "list",
        "list<>",
        "list<int, int>",
        "set<int, text>",
        "map<int>",
        "map<int, int, int>",
        "tuple<>",
        "frozen",
        "frozen<>",
        "frozen<int, int>",
        "list<int",
        "map<text, int",
        "list<int>>",
        "int int",
        "int<text>",
        "addr<int>",
        "list<int>x",
        "map<text,,int>",
        "map<,int>",
        "<int>",
        ",",
        "\"unclosed",
        "frozen<\"unclosed>",
        "'unclosed",
        "list<'a.B'",
        "a\"b",
        "list(int)",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_refused(__FILE__, __LINE__, &k, bad[i], strlen(bad[i]));
    /* a NUL inside the text is not part of any name */
    assert_refused(__FILE__, __LINE__, &k, "int\0x", 5);
    /* deeper nesting than any schema needs is refused, not recursed into */
    char deep[1200] = "";
    for (int i = 0; i < 100; i++)
        strcat(deep, "list<");
    strcat(deep, "int");
    for (int i = 0; i < 100; i++)
        strcat(deep, ">");
    ASSERT_REFUSED(&k, deep);
    /* ... while 25 levels are fine */
    char ok[400] = "", want[400] = "";
    for (int i = 0; i < 25; i++)
        strcat(ok, "frozen<list<"), strcat(want, "frozen<list<");
    strcat(ok, "int"), strcat(want, "int");
    for (int i = 0; i < 25; i++)
        strcat(ok, ">>"), strcat(want, ">>");
    ASSERT_PARSES(&k, ok, want);
    fake_free(&k);
}

/* The lookup's failure (memory, in the schema builder) is the parse's, with nothing leaked. */
TEST(lookup_failures_propagate)
{
    fake_ks k;
    fake_init(&k);
    k.fail = 1;
    eng_err err;
    eng_err_clear(&err);
    CassDataType *dt = (CassDataType *)1;
    const char *text = "map<text, frozen<list<frozen<addr>>>>";
    ASSERT_EQ(cql_drv_type_parse(text, strlen(text), "ks", fake_lookup, &k, &dt, &err),
              ENG_E_NOMEM);
    ASSERT(dt == NULL);
    ASSERT_EQ(k.lookups, 1);
    fake_free(&k);
}

/* ------------------------------------------------------------------------ */
/* Metadata built from rows: results made by hand                            */
/* ------------------------------------------------------------------------ */

/* What a hand-made result's column specs point to, freed with it (its release hook). */
typedef struct spec_store {
    uint32_t n;
    char *names[16];
    eng_type *types[16];
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

/* The types a hand-made result's columns may have. */
static eng_type *spec_type(const char *word)
{
    if (!strcmp(word, "text"))
        return eng_type_new(ENG_TEXT);
    if (!strcmp(word, "int"))
        return eng_type_new(ENG_INT);
    if (!strcmp(word, "boolean"))
        return eng_type_new(ENG_BOOLEAN);
    if (!strcmp(word, "list"))
        return eng_type_new_list(eng_type_new(ENG_TEXT), 1);
    return NULL;
}

/* A ROWS result with columns "name type, ...", type one of text, int, boolean or list (a
   frozen<list<text>>), in the order given: the builder must find them by name. */
static cql_result *result_new(const char *cols)
{
    cql_result *r = cql_result_new(CQL_RESULT_ROWS);
    spec_store *st = calloc(1, sizeof *st);
    ASSERT(r && st);
    r->release = spec_store_free;
    r->release_arg = st;
    cql_column_spec specs[16];
    char buf[512];
    snprintf(buf, sizeof buf, "%s", cols);
    for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        char name[64], type[16];
        ASSERT(st->n < 16 && sscanf(c, " %63s %15s", name, type) == 2);
        st->names[st->n] = strdup(name);
        st->types[st->n] = spec_type(type);
        ASSERT(st->names[st->n] && st->types[st->n]);
        specs[st->n] = (cql_column_spec){"system_schema", "t", st->names[st->n], st->types[st->n]};
        st->n++;
    }
    ASSERT_EQ(cql_result_set_columns(r, specs, st->n), 0);
    return r;
}

/* Appends a row: one string per column, NULL for a null; an int in decimal, a boolean as
   "true" / "false", a list as its items separated by '|' ("" is the empty list). */
static void result_row(cql_result *r, ...)
{
    const spec_store *st = r->release_arg;
    eng_val vals[16];
    eng_buf bytes[16];
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
        case ENG_LIST: {
            /* the count, then each item as [int length][bytes] */
            uint32_t n = 0;
            eng_buf_put_be32(b, 0);
            for (const char *p = v; *v; p += strcspn(p, "|") + 1) {
                size_t len = strcspn(p, "|");
                eng_buf_put_be32(b, (uint32_t)len);
                eng_buf_put(b, p, len);
                n++;
                if (!p[len])
                    break;
            }
            eng_put_be32(b->p, n);
            break;
        }
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

#define KEYSPACES_COLS "durable_writes boolean, keyspace_name text"
#define TABLES_COLS "table_name text, comment text, keyspace_name text"
#define COLUMNS_COLS                                                                               \
    "type text, position int, kind text, column_name text, clustering_order text, "                \
    "table_name text, keyspace_name text"
#define TYPES_COLS "field_types list, type_name text, keyspace_name text, field_names list"
#define LOCAL_COLS "key text, release_version text"

/* The five inputs of a schema. */
typedef struct schema_rows {
    cql_result *r[CQL_DRV_SCHEMA_N];
} schema_rows;

static void rows_init(schema_rows *s)
{
    s->r[CQL_DRV_SCHEMA_KEYSPACES] = result_new(KEYSPACES_COLS);
    s->r[CQL_DRV_SCHEMA_TABLES] = result_new(TABLES_COLS);
    s->r[CQL_DRV_SCHEMA_COLUMNS] = result_new(COLUMNS_COLS);
    s->r[CQL_DRV_SCHEMA_TYPES] = result_new(TYPES_COLS);
    s->r[CQL_DRV_SCHEMA_LOCAL] = result_new(LOCAL_COLS);
    /* indexes, functions, aggregates, views: none (test_driver_schema_objects.c has them) */
    s->r[CQL_DRV_SCHEMA_INDEXES] = result_new("keyspace_name text");
    s->r[CQL_DRV_SCHEMA_FUNCTIONS] = result_new("keyspace_name text");
    s->r[CQL_DRV_SCHEMA_AGGREGATES] = result_new("keyspace_name text");
    s->r[CQL_DRV_SCHEMA_VIEWS] = result_new("keyspace_name text");
}

static void keyspace_row(schema_rows *s, const char *ks)
{
    result_row(s->r[CQL_DRV_SCHEMA_KEYSPACES], "true", ks);
}

static void table_row(schema_rows *s, const char *ks, const char *table)
{
    result_row(s->r[CQL_DRV_SCHEMA_TABLES], table, "", ks);
}

static void column_row(schema_rows *s, const char *ks, const char *table, const char *column,
                       const char *kind, const char *position, const char *order, const char *type)
{
    result_row(s->r[CQL_DRV_SCHEMA_COLUMNS], type, position, kind, column, order, table, ks);
}

static void type_row(schema_rows *s, const char *ks, const char *name, const char *field_names,
                     const char *field_types)
{
    result_row(s->r[CQL_DRV_SCHEMA_TYPES], field_types, name, ks, field_names);
}

/* The snapshot of the rows (the results are freed: the snapshot must hold copies). */
static CassSchemaMeta *rows_build(schema_rows *s, cass_uint32_t version)
{
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
        ASSERT_EQ(cql_result_finish(s->r[t]), 0);
    CassSchemaMeta *m = cql_drv_schema_meta_from_rows((const cql_result *const *)s->r, version);
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++) {
        cql_result_free(s->r[t]);
        s->r[t] = NULL;
    }
    return m;
}

/* Errors logged, and the last one's text. */
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

static const char *column_name(const CassColumnMeta *c, char *buf, size_t cap)
{
    const char *s;
    size_t n;
    cass_column_meta_name(c, &s, &n);
    snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

/* The text of a text field, or "(null)". */
static const char *text_of(const CassValue *v, char *buf, size_t cap)
{
    const char *s;
    size_t n;
    if (!v || cass_value_get_string(v, &s, &n) != CASS_OK)
        return "(null)";
    snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* Tests of the builder                                                      */
/* ------------------------------------------------------------------------ */

/* Columns come from their rows whatever the order of rows and result columns: partition key
   then clustering columns by position, the others by name; kinds, clustering orders and data
   types from kind, clustering_order and type; every column of a row kept as a field. Rows of
   an unknown keyspace or table are left out; the version is system.local's. */
TEST(rows_give_keyspaces_tables_and_columns)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    keyspace_row(&s, "ks");
    table_row(&s, "ks", "t");
    table_row(&s, "ks", "a");
    table_row(&s, "gone", "t");
    column_row(&s, "ks", "t", "v", "regular", "-1", "none", "text");
    column_row(&s, "ks", "t", "k2", "partition_key", "1", "none", "int");
    column_row(&s, "ks", "t", "c2", "clustering", "1", "desc", "timestamp");
    column_row(&s, "ks", "t", "k1", "partition_key", "0", "none", "text");
    column_row(&s, "ks", "t", "s", "static", "-1", "none", "int");
    column_row(&s, "ks", "t", "c1", "clustering", "0", "asc", "int");
    column_row(&s, "ks", "t", "b", "regular", "-1", "none", "map<text, frozen<list<int>>>");
    column_row(&s, "ks", "nosuch", "x", "regular", "-1", "none", "int");
    column_row(&s, "ks", "a", "k", "partition_key", "0", "none", "uuid");
    result_row(s.r[CQL_DRV_SCHEMA_LOCAL], "local", "4.0.11");
    CassSchemaMeta *m = rows_build(&s, 7);
    ASSERT(m);
    ASSERT_EQ(errors_logged, 0);
    ASSERT_EQ(cass_schema_meta_snapshot_version(m), 7);
    CassVersion v = cass_schema_meta_version(m);
    ASSERT(v.major_version == 4 && v.minor_version == 0 && v.patch_version == 11);
    ASSERT(cass_schema_meta_keyspace_by_name(m, "gone") == NULL);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    ASSERT(km);
    cass_bool_t durable = cass_false;
    ASSERT_EQ(cass_value_get_bool(cass_keyspace_meta_field_by_name(km, "durable_writes"), &durable),
              CASS_OK);
    ASSERT(durable);
    CassIterator *it = cass_iterator_tables_from_keyspace_meta(km);
    ASSERT(cass_iterator_next(it));
    ASSERT(cass_iterator_get_table_meta(it) == cass_keyspace_meta_table_by_name(km, "a"));
    ASSERT(cass_iterator_next(it));
    ASSERT(cass_iterator_get_table_meta(it) == cass_keyspace_meta_table_by_name(km, "t"));
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);

    const CassTableMeta *tm = cass_keyspace_meta_table_by_name(km, "t");
    char buf[256];
    ASSERT_STR_EQ(text_of(cass_table_meta_field_by_name(tm, "comment"), buf, sizeof buf), "");
    ASSERT_EQ(cass_table_meta_column_count(tm), 7);
    ASSERT_EQ(cass_table_meta_partition_key_count(tm), 2);
    ASSERT_EQ(cass_table_meta_clustering_key_count(tm), 2);
    const char *order[] = {"k1", "k2", "c1", "c2", "b", "s", "v"};
    const CassColumnType kinds[] = {
        CASS_COLUMN_TYPE_PARTITION_KEY,  CASS_COLUMN_TYPE_PARTITION_KEY,
        CASS_COLUMN_TYPE_CLUSTERING_KEY, CASS_COLUMN_TYPE_CLUSTERING_KEY,
        CASS_COLUMN_TYPE_REGULAR,        CASS_COLUMN_TYPE_STATIC,
        CASS_COLUMN_TYPE_REGULAR};
    const char *types[] = {
        "varchar", "int", "int", "timestamp", "map<varchar, frozen<list<int>>>", "int", "varchar"};
    for (size_t i = 0; i < 7; i++) {
        const CassColumnMeta *cm = cass_table_meta_column(tm, i);
        ASSERT_STR_EQ(column_name(cm, buf, sizeof buf), order[i]);
        ASSERT(cass_table_meta_column_by_name(tm, order[i]) == cm);
        ASSERT_EQ(cass_column_meta_type(cm), kinds[i]);
        ASSERT_STR_EQ(describe(cass_column_meta_data_type(cm), buf, sizeof buf), types[i]);
    }
    ASSERT_STR_EQ(column_name(cass_table_meta_partition_key(tm, 1), buf, sizeof buf), "k2");
    ASSERT_STR_EQ(column_name(cass_table_meta_clustering_key(tm, 1), buf, sizeof buf), "c2");
    ASSERT_EQ(cass_table_meta_clustering_key_order(tm, 0), CASS_CLUSTERING_ORDER_ASC);
    ASSERT_EQ(cass_table_meta_clustering_key_order(tm, 1), CASS_CLUSTERING_ORDER_DESC);
    /* a column's fields: all seven columns of its row, by name */
    const CassColumnMeta *c2 = cass_table_meta_column_by_name(tm, "c2");
    it = cass_iterator_fields_from_column_meta(c2);
    const char *fields[] = {"clustering_order", "column_name", "keyspace_name", "kind",
                            "position",         "table_name",  "type"};
    for (size_t i = 0; i < 7; i++) {
        const char *name;
        size_t n;
        ASSERT(cass_iterator_next(it));
        ASSERT_EQ(cass_iterator_get_meta_field_name(it, &name, &n), CASS_OK);
        ASSERT(n == strlen(fields[i]) && !memcmp(name, fields[i], n));
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    cass_int32_t pos = -1;
    ASSERT_EQ(cass_value_get_int32(cass_column_meta_field_by_name(c2, "position"), &pos), CASS_OK);
    ASSERT_EQ(pos, 1);
    ASSERT_STR_EQ(text_of(cass_column_meta_field_by_name(c2, "type"), buf, sizeof buf),
                  "timestamp");
    ASSERT_EQ(cass_table_meta_column_count(cass_keyspace_meta_table_by_name(km, "a")), 1);
    cass_schema_meta_free(m);
}

/* User types resolve in their own keyspace whatever the order of their rows (a field may name
   a type whose row comes later), through collections and quoted names; a bare reference is the
   keyspace's definition itself; a type of another keyspace is not found there. */
TEST(rows_resolve_user_types_in_their_keyspace)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    keyspace_row(&s, "ks");
    keyspace_row(&s, "ks2");
    type_row(&s, "ks", "a", "x", "frozen<b>");
    type_row(&s, "ks", "b", "y|z", "int|frozen<list<frozen<c>>>");
    type_row(&s, "ks", "c", "w", "text");
    type_row(&s, "ks", "Quoted Name", "q", "frozen<\"Quoted Name2\">");
    type_row(&s, "ks", "Quoted Name2", "r", "boolean");
    type_row(&s, "ks2", "c", "other", "int");
    table_row(&s, "ks", "t");
    column_row(&s, "ks", "t", "k", "partition_key", "0", "none", "int");
    column_row(&s, "ks", "t", "la", "regular", "-1", "none", "list<frozen<a>>");
    column_row(&s, "ks", "t", "c", "regular", "-1", "none", "c");
    column_row(&s, "ks", "t", "q", "regular", "-1", "none", "frozen<\"Quoted Name\">");
    table_row(&s, "ks2", "t");
    column_row(&s, "ks2", "t", "k", "partition_key", "0", "none", "frozen<a>");
    column_row(&s, "ks2", "t", "c", "regular", "-1", "none", "frozen<c>");
    CassSchemaMeta *m = rows_build(&s, 1);
    ASSERT(m);
    ASSERT_EQ(errors_logged, 0);
    char buf[512];
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    const CassTableMeta *tm = cass_keyspace_meta_table_by_name(km, "t");
    ASSERT_STR_EQ(
        describe(cass_column_meta_data_type(cass_table_meta_column_by_name(tm, "la")), buf,
                 sizeof buf),
        "list<frozen<ks.a{x frozen<ks.b{y int, z frozen<list<frozen<ks.c{w varchar}>>>}>}>>");
    ASSERT_STR_EQ(describe(cass_column_meta_data_type(cass_table_meta_column_by_name(tm, "q")), buf,
                           sizeof buf),
                  "frozen<ks.Quoted Name{q frozen<ks.Quoted Name2{r boolean}>}>");
    /* a non-frozen reference is the definition the keyspace lists */
    const CassDataType *c = cass_keyspace_meta_user_type_by_name(km, "c");
    ASSERT(c);
    ASSERT(cass_column_meta_data_type(cass_table_meta_column_by_name(tm, "c")) == c);
    /* the keyspace lists its types by name (byte order) */
    const char *names[] = {"Quoted Name", "Quoted Name2", "a", "b", "c"};
    CassIterator *it = cass_iterator_user_types_from_keyspace_meta(km);
    for (size_t i = 0; i < 5; i++) {
        ASSERT(cass_iterator_next(it));
        const char *name;
        size_t n;
        ASSERT_EQ(cass_data_type_type_name(cass_iterator_get_user_type(it), &name, &n), CASS_OK);
        ASSERT(n == strlen(names[i]) && !memcmp(name, names[i], n));
    }
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    ASSERT_STR_EQ(describe(cass_keyspace_meta_user_type_by_name(km, "b"), buf, sizeof buf),
                  "ks.b{y int, z frozen<list<frozen<ks.c{w varchar}>>>}");
    /* ks2: its own c; a, defined only in ks, stays a bare user type of ks2 */
    const CassKeyspaceMeta *km2 = cass_schema_meta_keyspace_by_name(m, "ks2");
    const CassTableMeta *t2 = cass_keyspace_meta_table_by_name(km2, "t");
    ASSERT_STR_EQ(describe(cass_column_meta_data_type(cass_table_meta_column_by_name(t2, "k")), buf,
                           sizeof buf),
                  "frozen<ks2.a{}>");
    ASSERT_STR_EQ(describe(cass_column_meta_data_type(cass_table_meta_column_by_name(t2, "c")), buf,
                           sizeof buf),
                  "frozen<ks2.c{other int}>");
    ASSERT(cass_keyspace_meta_user_type_by_name(km2, "a") == NULL);
    cass_schema_meta_free(m);
}

/* A type text that does not parse is logged and leaves that one data type out (the driver's
   null type); the rest of the schema is built. A user type's fields stop at the first one
   that cannot be read; a type without its field lists is left out; a type that contains
   itself (which Cassandra refuses) ends in a user type without fields. */
TEST(rows_with_bad_type_texts_are_logged_and_built)
{
    capture_logs();
    schema_rows s;
    rows_init(&s);
    keyspace_row(&s, "ks");
    type_row(&s, "ks", "broken", "a|b|c", "int|map<int>|text");
    type_row(&s, "ks", "short", "a|b", "int");
    type_row(&s, "ks", "nolists", NULL, "int");
    type_row(&s, "ks", "loop", "x", "frozen<list<frozen<loop>>>");
    table_row(&s, "ks", "t");
    column_row(&s, "ks", "t", "k", "partition_key", "0", "none", "int");
    column_row(&s, "ks", "t", "bad", "regular", "-1", "none", "list<int");
    column_row(&s, "ks", "t", "untyped", "regular", "-1", "none", NULL);
    column_row(&s, "ks", "t", "n", "regular", "-1", "none", "frozen<nolists>");
    CassSchemaMeta *m = rows_build(&s, 1);
    ASSERT(m);
    /* broken's b, short's counts, nolists, loop, column bad */
    ASSERT_EQ(errors_logged, 5);
    char buf[512];
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    const CassTableMeta *tm = cass_keyspace_meta_table_by_name(km, "t");
    ASSERT_EQ(cass_table_meta_column_count(tm), 4);
    const CassColumnMeta *bad = cass_table_meta_column_by_name(tm, "bad");
    ASSERT(bad);
    ASSERT(cass_column_meta_data_type(bad) == NULL);
    ASSERT_STR_EQ(text_of(cass_column_meta_field_by_name(bad, "type"), buf, sizeof buf),
                  "list<int");
    ASSERT(cass_column_meta_data_type(cass_table_meta_column_by_name(tm, "untyped")) == NULL);
    ASSERT_STR_EQ(describe(cass_keyspace_meta_user_type_by_name(km, "broken"), buf, sizeof buf),
                  "ks.broken{a int}");
    ASSERT_STR_EQ(describe(cass_keyspace_meta_user_type_by_name(km, "short"), buf, sizeof buf),
                  "ks.short{a int}");
    ASSERT(cass_keyspace_meta_user_type_by_name(km, "nolists") == NULL);
    ASSERT_STR_EQ(describe(cass_column_meta_data_type(cass_table_meta_column_by_name(tm, "n")), buf,
                           sizeof buf),
                  "frozen<ks.nolists{}>");
    ASSERT_STR_EQ(describe(cass_keyspace_meta_user_type_by_name(km, "loop"), buf, sizeof buf),
                  "ks.loop{x frozen<list<frozen<ks.loop{}>>>}");
    cass_schema_meta_free(m);
}

/* A row the snapshot cannot be placed by: a key column missing, null or not text, or a list
   that does not decode. No snapshot, and the reason logged. */
TEST(rows_that_cannot_be_read_give_no_snapshot)
{
    capture_logs();
    /* the columns have no column_name */
    schema_rows s;
    rows_init(&s);
    cql_result_free(s.r[CQL_DRV_SCHEMA_COLUMNS]);
    s.r[CQL_DRV_SCHEMA_COLUMNS] = result_new("keyspace_name text, table_name text, type text");
    keyspace_row(&s, "ks");
    table_row(&s, "ks", "t");
    result_row(s.r[CQL_DRV_SCHEMA_COLUMNS], "ks", "t", "int");
    ASSERT(rows_build(&s, 1) == NULL);
    ASSERT_EQ(errors_logged, 1);
    ASSERT(strstr(last_error, "column_name"));

    /* a null keyspace name */
    rows_init(&s);
    keyspace_row(&s, NULL);
    ASSERT(rows_build(&s, 1) == NULL);
    ASSERT_EQ(errors_logged, 2);
    ASSERT(strstr(last_error, "keyspace_name"));

    /* a key that is not text */
    rows_init(&s);
    cql_result_free(s.r[CQL_DRV_SCHEMA_TABLES]);
    s.r[CQL_DRV_SCHEMA_TABLES] = result_new("keyspace_name text, table_name int");
    keyspace_row(&s, "ks");
    result_row(s.r[CQL_DRV_SCHEMA_TABLES], "ks", "3");
    ASSERT(rows_build(&s, 1) == NULL);
    ASSERT_EQ(errors_logged, 3);
    ASSERT(strstr(last_error, "table_name"));

    /* field_names counts two items and holds one; then a count its bytes cannot back */
    for (int round = 0; round < 2; round++) {
        rows_init(&s);
        keyspace_row(&s, "ks");
        type_row(&s, "ks", "u", "a|b", "int|int");
        for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
            ASSERT_EQ(cql_result_finish(s.r[t]), 0);
        /* the row's last cell is field_names: [count 2][len 1]a[len 1]b */
        eng_val *names = &s.r[CQL_DRV_SCHEMA_TYPES]->cells[3];
        if (round == 0)
            names->len -= 5;
        else
            eng_put_be32((uint8_t *)names->p, 1u << 30);
        CassSchemaMeta *m = cql_drv_schema_meta_from_rows((const cql_result *const *)s.r, 1);
        ASSERT(m == NULL);
        ASSERT_EQ(errors_logged, 4 + round);
        ASSERT(strstr(last_error, "ks.u"));
        for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
            cql_result_free(s.r[t]);
    }
}

/* No rows (NULL inputs, results of another kind) is an empty schema: no keyspaces, version
   0.0.0, the snapshot version as given. */
TEST(no_rows_give_an_empty_snapshot)
{
    const cql_result *none[CQL_DRV_SCHEMA_N] = {0};
    CassSchemaMeta *m = cql_drv_schema_meta_from_rows(none, 42);
    ASSERT(m);
    ASSERT_EQ(cass_schema_meta_snapshot_version(m), 42);
    CassVersion v = cass_schema_meta_version(m);
    ASSERT(v.major_version == 0 && v.minor_version == 0 && v.patch_version == 0);
    CassIterator *it = cass_iterator_keyspaces_from_schema_meta(m);
    ASSERT(!cass_iterator_next(it));
    cass_iterator_free(it);
    cass_schema_meta_free(m);

    cql_result *rows[CQL_DRV_SCHEMA_N];
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
        rows[t] = cql_result_new(CQL_RESULT_VOID);
    m = cql_drv_schema_meta_from_rows((const cql_result *const *)rows, 0);
    ASSERT(m);
    ASSERT(cass_schema_meta_keyspace_by_name(m, "ks") == NULL);
    cass_schema_meta_free(m);
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
        cql_result_free(rows[t]);
}
