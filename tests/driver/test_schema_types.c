/*
 * The CQL type names of system_schema (columns.type, types.field_types) as the schema metadata
 * reads them: cql_drv_type_parse (cql/driver/type_parser.c). Unlike the other driver tests this
 * one reaches inside the library, since no public call takes a type text; the types it checks
 * are read back through cassandra.h only.
 *
 * The expectations are the driver's DataTypeCqlNameParser (DataStax C/C++ driver,
 * data_type_parser.cpp) on the texts Cassandra writes: scalar names case-insensitive and
 * never frozen, frozen<> marking the collection, tuple or user type inside it, a user type
 * resolved in its keyspace or, unknown, kept as a user type with a keyspace and a name but no
 * fields, a quoted class name a custom type. Where cassette knowingly differs (type_parser.c
 * lists it) the test says so: "text" is CASS_VALUE_TYPE_VARCHAR, a quoted user type name is
 * found without its quotes, text the driver skips over is refused.
 */
#include <cassandra.h>

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
