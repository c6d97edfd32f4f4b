/*
 * Literal terms to values (cql/exec/literal.c): constants checked against their
 * receivers and read by the receiver's text form, collection, tuple and UDT
 * literals, bind markers, and the prepare-time walk. The text forms
 * themselves (every grammar of fromString) are tested in
 * tests/engine/test_text.c. Expectations come from Cassandra's sources and
 * tests (Constants, Lists, Sets, Maps, Tuples, UserTypes, the facts sheet
 * §2 and §8.2); byte strings were computed from the encoding rules, not
 * from this code.
 */
#include "cql/exec/literal.h"
#include "harness.h"

#include <stdarg.h>

/* ---- terms from a static pool (nothing to free) ---- */

static cql_term pool[512];
static int npool;
static cql_term *item_pool[2048];
static int nitem;
static const char *name_pool[256];
static int nname;

static cql_term *term(int kind, const char *text)
{
    cql_term *t = &pool[npool++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->text = text;
    t->len = text ? strlen(text) : 0;
    return t;
}

#define INT(s) term(CQL_T_INTEGER, s)
#define FLT(s) term(CQL_T_FLOAT, s)
#define STR(s) term(CQL_T_STRING, s)
#define BOOL(s) term(CQL_T_BOOLEAN, s)
#define UUID_(s) term(CQL_T_UUID, s)
#define HEX(s) term(CQL_T_HEX, s)
#define DUR(s) term(CQL_T_DURATION, s)
#define NUL() term(CQL_T_NULL, NULL)

static cql_term *marker(int idx)
{
    cql_term *t = term(CQL_T_BIND, NULL);
    t->bind_index = idx;
    return t;
}

static cql_term *coll(int kind, int n, ...)
{
    cql_term *t = term(kind, NULL);
    va_list ap;
    va_start(ap, n);
    t->items = &item_pool[nitem];
    for (int i = 0; i < n; i++)
        item_pool[nitem++] = va_arg(ap, cql_term *);
    va_end(ap);
    t->n_items = n;
    return t;
}

#define LIST(n, ...) coll(CQL_T_LIST, n, ##__VA_ARGS__)
#define SET(n, ...) coll(CQL_T_SET, n, ##__VA_ARGS__)
#define MAP(n, ...) coll(CQL_T_MAP, 2 * (n), ##__VA_ARGS__)
#define TUPLE(n, ...) coll(CQL_T_TUPLE, n, ##__VA_ARGS__)
#define CALL(name, n, ...) fn(coll(CQL_T_FUNCTION, n, ##__VA_ARGS__), name)

static cql_term *fn(cql_term *t, const char *name)
{
    t->name = name;
    return t;
}

/* {name: value, ...} */
static cql_term *udt_lit(int n, ...)
{
    cql_term *t = term(CQL_T_UDT, NULL);
    va_list ap;
    va_start(ap, n);
    t->items = &item_pool[nitem];
    t->names = &name_pool[nname];
    for (int i = 0; i < n; i++) {
        name_pool[nname++] = va_arg(ap, const char *);
        item_pool[nitem++] = va_arg(ap, cql_term *);
    }
    va_end(ap);
    t->n_items = n;
    return t;
}

static cql_typeref typerefs[16];
static int ntyperef;

static cql_term *hint(const char *type_name, cql_term *operand)
{
    cql_typeref *r = &typerefs[ntyperef++];
    memset(r, 0, sizeof *r);
    r->name = type_name;
    cql_term *t = coll(CQL_T_HINT, 1, operand);
    t->type = r;
    return t;
}

/* ---- types (top-level ones are freed by done()) ---- */

static eng_type *kept[64];
static int nkept;

static eng_type *keep(eng_type *t)
{
    kept[nkept++] = t;
    return t;
}

static eng_type *ty(int kind)
{
    return keep(eng_type_new(kind));
}
static eng_type *sub(int kind)
{
    return eng_type_new(kind);
}

static eng_type *list_of(int kind)
{
    return keep(eng_type_new_list(sub(kind), 0));
}
static eng_type *set_of(int kind)
{
    return keep(eng_type_new_set(sub(kind), 0));
}
static eng_type *map_of(int k, int v)
{
    return keep(eng_type_new_map(sub(k), sub(v), 0));
}

static eng_type *tuple2(int a, int b)
{
    eng_type *c[2] = {sub(a), sub(b)};
    return keep(eng_type_new_tuple(c, 2));
}

/* frozen<addr> with fields (a int, b text) */
static eng_type *addr_type(int frozen)
{
    char *names[2] = {eng_strdup("a"), eng_strdup("b")}; /* the strings are taken, not the array */
    eng_type *types[2] = {sub(ENG_INT), sub(ENG_TEXT)};
    return keep(eng_type_new_udt("ks", "addr", names, types, 2, frozen));
}

static void done(void)
{
    for (int i = 0; i < nkept; i++)
        eng_type_free(kept[i]);
    nkept = 0;
}

/* ---- conversions ---- */

static eng_err err;
static int state;
static char hexbuf[8192];

static void to_hex(const eng_buf *b)
{
    size_t k = 0;
    for (size_t i = 0; i < b->len && k + 3 < sizeof hexbuf; i++)
        k += (size_t)sprintf(hexbuf + k, "%02x", b->p[i]);
    hexbuf[k] = 0;
}

static int val_env(const cql_term *t, const eng_type *type, const char *recv,
                   const cql_term_env *env)
{
    eng_err_clear(&err);
    eng_buf b = ENG_BUF_INIT;
    int rc = cql_term_value(t, type, recv, env, &b, &state, &err);
    to_hex(&b);
    eng_buf_free(&b);
    return rc;
}

static int val(const cql_term *t, const eng_type *type)
{
    return val_env(t, type, "k", NULL);
}

#define ASSERT_VAL(t, type, want)                                                                  \
    do {                                                                                           \
        ASSERT_OK_ERR(val(t, type), &err);                                                         \
        ASSERT_EQ(state, CQL_VALUE);                                                               \
        ASSERT_STR_EQ(hexbuf, want);                                                               \
    } while (0)

#define ASSERT_VAL_ERR(t, type, recv, message)                                                     \
    do {                                                                                           \
        ASSERT_EQ(val_env(t, type, recv, NULL), ENG_E_INVALID);                                    \
        ASSERT_STR_EQ(err.msg, message);                                                           \
    } while (0)

/* ---- bind_types recording ---- */

typedef struct rec {
    int n;
    int index[8];
    int kind[8];
    char name[8][64];
} rec;

static void record(void *ctx, const cql_term *m, const eng_type *type, const char *name)
{
    rec *r = ctx;
    if (r->n < 8) {
        r->index[r->n] = m->bind_index;
        r->kind[r->n] = type->kind;
        snprintf(r->name[r->n], sizeof r->name[0], "%s", name);
        r->n++;
    }
}

/* ======================================================================== */
/* Integers                                                                  */
/* ======================================================================== */

TEST(integer_constant_for_int_is_four_big_endian_bytes)
{
    ASSERT_VAL(INT("42"), ty(ENG_INT), "0000002a");
    ASSERT_VAL(INT("-1"), ty(ENG_INT), "ffffffff");
    done();
}

TEST(integer_literal_out_of_range_fails_with_the_marshal_message)
{
    ASSERT_VAL_ERR(INT("99999999999"), ty(ENG_INT), "k", "Unable to make int from '99999999999'");
    done();
}

TEST(string_constant_for_int_is_refused_with_kind_and_receiver)
{
    /* facts §8.2 */
    ASSERT_VAL_ERR(STR("foo"), ty(ENG_INT), "k",
                   "Invalid STRING constant (foo) for \"k\" of type int");
    done();
}

TEST(integer_constant_for_text_is_refused)
{
    ASSERT_VAL_ERR(INT("0"), ty(ENG_TEXT), "k",
                   "Invalid INTEGER constant (0) for \"k\" of type text");
    done();
}

TEST(float_constant_for_int_is_refused)
{
    ASSERT_VAL_ERR(FLT("1.5"), ty(ENG_INT), "v",
                   "Invalid FLOAT constant (1.5) for \"v\" of type int");
    done();
}

TEST(counter_takes_integers_as_bigint_and_refuses_null)
{
    ASSERT_VAL(INT("5"), ty(ENG_COUNTER), "0000000000000005");
    ASSERT_VAL_ERR(NUL(), ty(ENG_COUNTER), "c",
                   "Invalid null value for counter increment/decrement");
    done();
}

/* ======================================================================== */
/* varint and decimal                                                        */
/* ======================================================================== */

TEST(varint_from_integer_constant_of_any_size)
{
    /* facts §2.5: minimal two's complement */
    ASSERT_VAL(INT("0"), ty(ENG_VARINT), "00");
    ASSERT_VAL(INT("128"), ty(ENG_VARINT), "0080");
    ASSERT_VAL(INT("-128"), ty(ENG_VARINT), "80");
    ASSERT_VAL(INT("-129"), ty(ENG_VARINT), "ff7f");
    ASSERT_VAL(INT("9223372036854775808"), ty(ENG_VARINT), "008000000000000000");
    ASSERT_VAL(INT("170141183460469231731687303715884105728"), ty(ENG_VARINT),
               "0080000000000000000000000000000000");
    done();
}

TEST(decimal_keeps_the_scale_written)
{
    /* facts §2.5: scale then unscaled varint */
    ASSERT_VAL(FLT("1.5"), ty(ENG_DECIMAL), "000000010f");
    ASSERT_VAL(FLT("1.50"), ty(ENG_DECIMAL), "000000020096");
    ASSERT_VAL(FLT("-0.01"), ty(ENG_DECIMAL), "00000002ff");
    ASSERT_VAL(INT("100"), ty(ENG_DECIMAL), "0000000064");
    ASSERT_VAL(FLT("1E+3"), ty(ENG_DECIMAL), "fffffffd01");
    ASSERT_VAL(FLT("0.00"), ty(ENG_DECIMAL), "0000000200");
    done();
}

/* ======================================================================== */
/* float, double, boolean                                                    */
/* ======================================================================== */

TEST(float_and_double_from_constants)
{
    ASSERT_VAL(FLT("1.5"), ty(ENG_DOUBLE), "3ff8000000000000");
    ASSERT_VAL(FLT("1.5"), ty(ENG_FLOAT), "3fc00000");
    ASSERT_VAL(INT("123123"), ty(ENG_FLOAT), "47f07980");
    ASSERT_VAL(FLT("NaN"), ty(ENG_DOUBLE), "7ff8000000000000");
    ASSERT_VAL(FLT("-Infinity"), ty(ENG_DOUBLE), "fff0000000000000");
    done();
}

TEST(boolean_constant_is_one_byte)
{
    ASSERT_VAL(BOOL("true"), ty(ENG_BOOLEAN), "01");
    done();
}

TEST(string_constant_for_boolean_is_refused)
{
    ASSERT_VAL_ERR(STR("true"), ty(ENG_BOOLEAN), "b",
                   "Invalid STRING constant (true) for \"b\" of type boolean");
    done();
}

/* ======================================================================== */
/* text, ascii, blob                                                         */
/* ======================================================================== */

TEST(string_constant_for_text_and_ascii)
{
    ASSERT_VAL(STR("hi"), ty(ENG_TEXT), "6869");
    ASSERT_VAL(STR(""), ty(ENG_TEXT), "");
    ASSERT_VAL(STR("hi"), ty(ENG_ASCII), "6869");
    done();
}

TEST(non_ascii_string_for_ascii_fails_like_the_java_encoder)
{
    ASSERT_VAL_ERR(STR("caf\xc3\xa9"), ty(ENG_ASCII), "a",
                   "Invalid ASCII character in string literal: "
                   "java.nio.charset.UnmappableCharacterException: Input length = 1");
    done();
}

TEST(hex_constant_is_only_for_blobs)
{
    ASSERT_VAL(HEX("CAFE"), ty(ENG_BLOB), "cafe");
    ASSERT_VAL(HEX(""), ty(ENG_BLOB), "");
    ASSERT_VAL_ERR(HEX("cafe"), ty(ENG_INT), "k",
                   "Invalid HEX constant (0xcafe) for \"k\" of type int");
    ASSERT_VAL_ERR(HEX("abc"), ty(ENG_BLOB), "b", "cannot parse 'abc' as hex bytes");
    done();
}

TEST(string_constant_for_blob_is_refused)
{
    ASSERT_VAL_ERR(STR("cafe"), ty(ENG_BLOB), "b",
                   "Invalid STRING constant (cafe) for \"b\" of type blob");
    done();
}

/* ======================================================================== */
/* timestamps                                                                */
/* ======================================================================== */

TEST(timestamp_date_only_is_midnight_utc)
{
    ASSERT_VAL(STR("2021-01-01"), ty(ENG_TIMESTAMP), "00000176bb3e7000");
    done();
}

TEST(integer_constant_for_timestamp_is_milliseconds)
{
    ASSERT_VAL(INT("1000"), ty(ENG_TIMESTAMP), "00000000000003e8");
    done();
}

/* ======================================================================== */
/* dates and times                                                           */
/* ======================================================================== */

TEST(date_from_string_and_integer_constants)
{
    /* facts §2.5 */
    ASSERT_VAL(STR("2021-01-01"), ty(ENG_DATE), "800048c4");
    ASSERT_VAL(INT("0"), ty(ENG_DATE), "00000000");
    done();
}

TEST(string_constant_for_time)
{
    ASSERT_VAL(STR("08:12:54"), ty(ENG_TIME), "00001ae5bbc3bc00");
    done();
}

/* ======================================================================== */
/* uuid, timeuuid, inet                                                      */
/* ======================================================================== */

TEST(uuid_constant_for_uuid_and_timeuuid)
{
    ASSERT_VAL(UUID_("6BDDC89A-5644-11E4-97FC-56847AFE9799"), ty(ENG_TIMEUUID),
               "6bddc89a564411e497fc56847afe9799");
    ASSERT_VAL(UUID_("2dd2cd62-6af3-4cf6-96fc-91b9ab62eedc"), ty(ENG_UUID),
               "2dd2cd626af34cf696fc91b9ab62eedc");
    done();
}

TEST(timeuuid_accepts_only_version_1)
{
    ASSERT_VAL_ERR(UUID_("2dd2cd62-6af3-4cf6-96fc-91b9ab62eedc"), ty(ENG_TIMEUUID), "t",
                   "TimeUUID supports only version 1 UUIDs");
    done();
}

TEST(string_constant_for_uuid_is_refused)
{
    ASSERT_VAL_ERR(STR("2dd2cd62-6af3-4cf6-96fc-91b9ab62eedc"), ty(ENG_UUID), "u",
                   "Invalid STRING constant (2dd2cd62-6af3-4cf6-96fc-91b9ab62eedc) for \"u\" of "
                   "type uuid");
    done();
}

TEST(string_constant_for_inet)
{
    /* facts §2.5 */
    ASSERT_VAL(STR("127.0.0.1"), ty(ENG_INET), "7f000001");
    done();
}

/* ======================================================================== */
/* durations                                                                 */
/* ======================================================================== */

TEST(duration_constants_are_read_as_durations)
{
    /* facts §2.4 vectors; the grammar itself is tested with the text forms (test_text.c) */
    ASSERT_VAL(DUR("1h"), ty(ENG_DURATION), "0000fc068c61714000");
    ASSERT_VAL(DUR("P2W"), ty(ENG_DURATION), "001c00");
    done();
}

TEST(integer_constant_for_duration_is_assignable_but_unparsable)
{
    ASSERT_VAL_ERR(INT("5"), ty(ENG_DURATION), "d", "Unable to convert '5' to a duration");
    done();
}

/* ======================================================================== */
/* tuples from text (TupleType.fromString)                                   */
/* ======================================================================== */

/* ======================================================================== */
/* collections                                                               */
/* ======================================================================== */

TEST(list_literal_serializes_in_order)
{
    /* facts §2.5 */
    ASSERT_VAL(LIST(2, INT("1"), INT("2")), list_of(ENG_INT),
               "00000002"
               "0000000400000001"
               "0000000400000002");
    ASSERT_VAL(LIST(0), list_of(ENG_INT), "00000000");
    done();
}

TEST(list_literal_for_a_set_column_is_refused)
{
    ASSERT_VAL_ERR(LIST(1, INT("1")), set_of(ENG_INT), "s",
                   "Invalid list literal for s of type set<int>");
    done();
}

TEST(list_element_of_wrong_kind_names_value_and_element_type)
{
    ASSERT_VAL_ERR(LIST(2, INT("1"), STR("a")), list_of(ENG_INT), "l",
                   "Invalid list literal for l: value 'a' is not of type int");
    done();
}

/* Lists/Sets/Maps.Literal with markers: each marker takes the element type and is named
   value(l), value(s), key(m), value(m) (Lists.valueSpecOf, Sets.valueSpecOf,
   Maps.keySpecOf / valueSpecOf). */
TEST(bind_marker_inside_collection_literal_is_named_after_the_element)
{
    rec r = {0};
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_term_bind_types(LIST(2, INT("1"), marker(0)), list_of(ENG_INT), "l", record,
                                      &r, &err),
                  &err);
    ASSERT_OK_ERR(cql_term_bind_types(SET(1, marker(1)), set_of(ENG_TEXT), "s", record, &r, &err),
                  &err);
    ASSERT_OK_ERR(cql_term_bind_types(MAP(1, marker(2), marker(3)), map_of(ENG_TEXT, ENG_INT), "m",
                                      record, &r, &err),
                  &err);
    ASSERT_EQ(r.n, 4);
    ASSERT_STR_EQ(r.name[0], "value(l)");
    ASSERT_EQ(r.kind[0], ENG_INT);
    ASSERT_STR_EQ(r.name[1], "value(s)");
    ASSERT_EQ(r.kind[1], ENG_TEXT);
    ASSERT_STR_EQ(r.name[2], "key(m)");
    ASSERT_EQ(r.kind[2], ENG_TEXT);
    ASSERT_STR_EQ(r.name[3], "value(m)");
    ASSERT_EQ(r.kind[3], ENG_INT);
    done();
}

/* Lists/Sets/Maps.DelayedValue.bind: the bound elements make the value; null is refused, an
   unset element makes the collection unset, an unset map key is refused. */
TEST(bind_marker_inside_collection_literal_takes_the_bound_element)
{
    eng_val binds[2] = {{(const uint8_t *)"\0\0\0\2", 4}, {NULL, ENG_UNSET}};
    cql_term_env env = {binds, 2, NULL, NULL};
    ASSERT_OK_ERR(val_env(LIST(2, INT("1"), marker(0)), list_of(ENG_INT), "l", &env), &err);
    ASSERT_EQ(state, CQL_VALUE);
    ASSERT_STR_EQ(hexbuf, "00000002"
                          "0000000400000001"
                          "0000000400000002");
    ASSERT_OK_ERR(val_env(SET(2, marker(0), INT("1")), set_of(ENG_INT), "s", &env), &err);
    ASSERT_STR_EQ(hexbuf, "00000002"
                          "0000000400000001"
                          "0000000400000002");
    ASSERT_OK_ERR(val_env(LIST(2, INT("1"), marker(1)), list_of(ENG_INT), "l", &env), &err);
    ASSERT_EQ(state, CQL_VALUE_UNSET);
    ASSERT_EQ(val_env(MAP(1, marker(1), INT("1")), map_of(ENG_INT, ENG_INT), "m", &env),
              ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "unset value is not supported for map keys");
    eng_val nul[1] = {{NULL, ENG_NULL}};
    cql_term_env env_null = {nul, 1, NULL, NULL};
    ASSERT_EQ(val_env(MAP(1, STR("a"), marker(0)), map_of(ENG_TEXT, ENG_INT), "m", &env_null),
              ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "null is not supported inside collections");
    done();
}

TEST(null_inside_collection_literal_is_refused)
{
    ASSERT_VAL_ERR(LIST(2, INT("1"), NUL()), list_of(ENG_INT), "l",
                   "null is not supported inside collections");
    ASSERT_VAL_ERR(SET(1, NUL()), set_of(ENG_INT), "s", "null is not supported inside collections");
    ASSERT_VAL_ERR(MAP(1, STR("a"), NUL()), map_of(ENG_TEXT, ENG_INT), "m",
                   "null is not supported inside collections");
    done();
}

TEST(set_literal_is_sorted_and_deduplicated)
{
    ASSERT_VAL(SET(3, INT("3"), INT("1"), INT("3")), set_of(ENG_INT),
               "00000002"
               "0000000400000001"
               "0000000400000003");
    done();
}

TEST(map_literal_is_sorted_by_key_last_value_wins)
{
    /* facts §2.3: maps sorted by key; a repeated key keeps one entry */
    ASSERT_VAL(MAP(3, STR("b"), INT("1"), STR("a"), INT("2"), STR("b"), INT("3")),
               map_of(ENG_TEXT, ENG_INT),
               "00000002"
               "0000000161"
               "0000000400000002"
               "0000000162"
               "0000000400000003");
    done();
}

TEST(map_literal_key_of_wrong_kind)
{
    ASSERT_VAL_ERR(MAP(1, INT("1"), INT("2")), map_of(ENG_TEXT, ENG_INT), "m",
                   "Invalid map literal for m: key 1 is not of type text");
    done();
}

TEST(empty_braces_are_an_empty_set_that_maps_accept)
{
    ASSERT_VAL(MAP(0), map_of(ENG_TEXT, ENG_INT), "00000000");
    ASSERT_VAL(SET(0), set_of(ENG_INT), "00000000");
    ASSERT_VAL(MAP(0), set_of(ENG_INT), "00000000");
    ASSERT_VAL_ERR(MAP(0), list_of(ENG_INT), "l", "Invalid set literal for l of type list<int>");
    done();
}

TEST(map_literal_for_a_udt_is_refused)
{
    ASSERT_VAL_ERR(MAP(1, STR("a"), INT("1")), addr_type(1), "u",
                   "Invalid map literal for u of type frozen<addr>");
    done();
}

TEST(constant_for_a_collection_is_refused)
{
    ASSERT_VAL_ERR(INT("1"), list_of(ENG_INT), "l",
                   "Invalid INTEGER constant (1) for \"l\" of type list<int>");
    done();
}

/* ======================================================================== */
/* tuples and UDTs                                                           */
/* ======================================================================== */

TEST(tuple_literal_with_null_component)
{
    /* facts §2.5 */
    ASSERT_VAL(TUPLE(2, INT("1"), NUL()), tuple2(ENG_INT, ENG_TEXT), "0000000400000001ffffffff");
    ASSERT_VAL(TUPLE(2, INT("1"), STR("a")), tuple2(ENG_INT, ENG_TEXT),
               "0000000400000001"
               "0000000161");
    done();
}

TEST(tuple_literal_shape_errors)
{
    ASSERT_VAL_ERR(TUPLE(3, INT("1"), STR("a"), INT("2")), tuple2(ENG_INT, ENG_TEXT), "t",
                   "Invalid tuple literal for t: too many elements. Type frozen<tuple<int, text>> "
                   "expects 2 but got 3");
    ASSERT_VAL_ERR(TUPLE(2, INT("1"), INT("2")), tuple2(ENG_INT, ENG_TEXT), "t",
                   "Invalid tuple literal for t: component 1 is not of type text");
    ASSERT_VAL_ERR(TUPLE(2, INT("1"), INT("2")), ty(ENG_INT), "k",
                   "Invalid tuple type literal for k of type int");
    done();
}

TEST(tuple_marker_is_named_after_its_component)
{
    rec r = {0};
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_term_bind_types(TUPLE(2, marker(0), marker(1)), tuple2(ENG_INT, ENG_TEXT),
                                      "t", record, &r, &err),
                  &err);
    ASSERT_EQ(r.n, 2);
    ASSERT_STR_EQ(r.name[0], "t[0]");
    ASSERT_EQ(r.kind[0], ENG_INT);
    ASSERT_STR_EQ(r.name[1], "t[1]");
    ASSERT_EQ(r.kind[1], ENG_TEXT);
    done();
}

TEST(tuple_component_unset_is_refused)
{
    eng_val binds[2] = {{(const uint8_t *)"\0\0\0\1", 4}, {NULL, ENG_UNSET}};
    cql_term_env env = {binds, 2, NULL, NULL};
    ASSERT_EQ(val_env(TUPLE(2, marker(0), marker(1)), tuple2(ENG_INT, ENG_TEXT), "t", &env),
              ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Invalid unset value for tuple field number 1");
    done();
}

TEST(udt_literal_fields_in_declared_order_missing_are_null)
{
    ASSERT_VAL(udt_lit(1, "b", STR("x")), addr_type(1),
               "ffffffff"
               "0000000178");
    ASSERT_VAL(udt_lit(2, "b", STR("x"), "a", INT("7")), addr_type(1),
               "0000000400000007"
               "0000000178");
    done();
}

TEST(udt_literal_unknown_field)
{
    ASSERT_VAL_ERR(udt_lit(2, "a", INT("1"), "zz", INT("2")), addr_type(1), "u",
                   "Unknown field 'zz' in value of user defined type addr");
    done();
}

TEST(udt_literal_field_of_wrong_kind)
{
    ASSERT_VAL_ERR(udt_lit(1, "a", STR("x")), addr_type(1), "u",
                   "Invalid user type literal for u: field a is not of type int");
    ASSERT_VAL_ERR(udt_lit(1, "a", INT("1")), ty(ENG_INT), "k",
                   "Invalid user type literal for k of type int");
    done();
}

TEST(udt_marker_is_named_column_dot_field)
{
    rec r = {0};
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_term_bind_types(udt_lit(2, "a", marker(0), "b", marker(1)), addr_type(1), "u",
                                      record, &r, &err),
                  &err);
    ASSERT_EQ(r.n, 2);
    ASSERT_STR_EQ(r.name[0], "u.a");
    ASSERT_STR_EQ(r.name[1], "u.b");
    ASSERT_EQ(r.kind[1], ENG_TEXT);
    done();
}

TEST(frozen_udt_field_unset_is_refused)
{
    eng_val binds[1] = {{NULL, ENG_UNSET}};
    cql_term_env env = {binds, 1, NULL, NULL};
    ASSERT_EQ(val_env(udt_lit(1, "a", marker(0)), addr_type(1), "u", &env), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Invalid unset value for field 'a' of user defined type addr");
    done();
}

/* ======================================================================== */
/* bind markers                                                              */
/* ======================================================================== */

TEST(top_level_marker_is_named_after_the_receiver)
{
    rec r = {0};
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_term_bind_types(marker(3), ty(ENG_BIGINT), "v", record, &r, &err), &err);
    ASSERT_EQ(r.n, 1);
    ASSERT_EQ(r.index[0], 3);
    ASSERT_STR_EQ(r.name[0], "v");
    ASSERT_EQ(r.kind[0], ENG_BIGINT);
    done();
}

TEST(bound_value_is_validated_with_the_marshal_message)
{
    eng_val binds[1] = {{(const uint8_t *)"\0\0\0\0\0\0\0\1", 8}};
    cql_term_env env = {binds, 1, NULL, NULL};
    ASSERT_EQ(val_env(marker(0), ty(ENG_INT), "k", &env), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "Expected 4 or 0 byte int (8)");
    done();
}

TEST(bound_null_and_unset_become_states)
{
    eng_val binds[2] = {{NULL, ENG_NULL}, {NULL, ENG_UNSET}};
    cql_term_env env = {binds, 2, NULL, NULL};
    ASSERT_OK_ERR(val_env(marker(0), ty(ENG_INT), "k", &env), &err);
    ASSERT_EQ(state, CQL_VALUE_NULL);
    ASSERT_OK_ERR(val_env(marker(1), ty(ENG_INT), "k", &env), &err);
    ASSERT_EQ(state, CQL_VALUE_UNSET);
    done();
}

TEST(bound_set_is_made_canonical)
{
    static const uint8_t set[] = {0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 4, 0, 0, 0, 1};
    eng_val binds[1] = {{set, sizeof set}};
    cql_term_env env = {binds, 1, NULL, NULL};
    ASSERT_OK_ERR(val_env(marker(0), set_of(ENG_INT), "s", &env), &err);
    ASSERT_STR_EQ(hexbuf, "00000002"
                          "0000000400000001"
                          "0000000400000009");
    done();
}

TEST(bound_collection_with_null_element_is_refused)
{
    static const uint8_t list[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff};
    eng_val binds[1] = {{list, sizeof list}};
    cql_term_env env = {binds, 1, NULL, NULL};
    ASSERT_EQ(val_env(marker(0), list_of(ENG_INT), "l", &env), ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "null is not supported inside collections");
    done();
}

/* ======================================================================== */
/* function calls and type hints                                             */
/* ======================================================================== */

static int calls;

/* A stand-in executor: every call returns int 7, "unset()" returns unset. */
static int fake_call(void *ctx, const cql_term *t, const eng_type *want, eng_buf *out, int *st,
                     eng_err *e)
{
    (void)ctx;
    (void)e;
    calls++;
    if (!strcmp(t->name, "unset")) {
        *st = CQL_VALUE_UNSET;
        return 0;
    }
    ASSERT_EQ(want->kind, ENG_INT);
    eng_buf_put_be32(out, 7);
    *st = CQL_VALUE;
    return 0;
}

TEST(function_call_without_executor_is_refused)
{
    ASSERT_VAL_ERR(CALL("now", 0), ty(ENG_INT), "k", "Function calls are not supported here");
    done();
}

TEST(function_calls_go_to_the_executor_with_the_receiver_type)
{
    cql_term_env env = {NULL, 0, fake_call, NULL};
    calls = 0;
    ASSERT_OK_ERR(val_env(LIST(2, CALL("f", 0), INT("1")), list_of(ENG_INT), "l", &env), &err);
    ASSERT_EQ(calls, 1);
    ASSERT_STR_EQ(hexbuf, "00000002"
                          "0000000400000007"
                          "0000000400000001");
    done();
}

TEST(unset_element_makes_the_whole_list_unset)
{
    /* Lists.DelayedValue.bind returns UNSET_VALUE for an unset element */
    cql_term_env env = {NULL, 0, fake_call, NULL};
    ASSERT_OK_ERR(val_env(LIST(2, INT("1"), CALL("unset", 0)), list_of(ENG_INT), "l", &env), &err);
    ASSERT_EQ(state, CQL_VALUE_UNSET);
    ASSERT_STR_EQ(hexbuf, "");
    done();
}

TEST(unset_map_key_is_refused_unset_value_unsets_the_map)
{
    cql_term_env env = {NULL, 0, fake_call, NULL};
    ASSERT_EQ(val_env(MAP(1, CALL("unset", 0), INT("1")), map_of(ENG_INT, ENG_INT), "m", &env),
              ENG_E_INVALID);
    ASSERT_STR_EQ(err.msg, "unset value is not supported for map keys");
    ASSERT_OK_ERR(val_env(MAP(1, INT("1"), CALL("unset", 0)), map_of(ENG_INT, ENG_INT), "m", &env),
                  &err);
    ASSERT_EQ(state, CQL_VALUE_UNSET);
    done();
}

TEST(type_hint_marker_takes_the_receiver)
{
    /* TypeCast.prepare prepares the operand for the receiver itself */
    rec r = {0};
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_term_bind_types(hint("int", marker(0)), ty(ENG_INT), "k", record, &r, &err),
                  &err);
    ASSERT_EQ(r.n, 1);
    ASSERT_STR_EQ(r.name[0], "k");
    ASSERT_EQ(r.kind[0], ENG_INT);
    done();
}

TEST(type_hint_errors)
{
    ASSERT_VAL_ERR(hint("text", marker(0)), ty(ENG_INT), "k",
                   "Cannot assign value (text)? to k of type int");
    ASSERT_VAL_ERR(hint("int", STR("a")), ty(ENG_INT), "k", "Cannot cast value 'a' to type int");
    ASSERT_VAL(hint("int", INT("5")), ty(ENG_INT), "00000005");
    done();
}

/* ======================================================================== */
/* assignment tests and text                                                 */
/* ======================================================================== */

TEST(constant_assignment_exactness_follows_preferred_types)
{
    ASSERT_EQ(cql_term_test_assignment(INT("1"), ty(ENG_INT)), CQL_EXACT_MATCH);
    ASSERT_EQ(cql_term_test_assignment(INT("1"), ty(ENG_BIGINT)), CQL_WEAKLY_ASSIGNABLE);
    ASSERT_EQ(cql_term_test_assignment(INT("3000000000"), ty(ENG_BIGINT)), CQL_EXACT_MATCH);
    ASSERT_EQ(cql_term_test_assignment(STR("a"), ty(ENG_INT)), CQL_NOT_ASSIGNABLE);
    ASSERT_EQ(cql_term_test_assignment(STR("a"), ty(ENG_ASCII)), CQL_EXACT_MATCH);
    ASSERT_EQ(cql_term_test_assignment(STR("\xc3\xa9"), ty(ENG_TEXT)), CQL_EXACT_MATCH);
    /* FLOAT prefers double when Double.toString gives back the same decimal */
    ASSERT_EQ(cql_term_test_assignment(FLT("0.1"), ty(ENG_DOUBLE)), CQL_EXACT_MATCH);
    ASSERT_EQ(cql_term_test_assignment(FLT("1.50"), ty(ENG_DOUBLE)), CQL_EXACT_MATCH);
    ASSERT_EQ(cql_term_test_assignment(FLT("0.1000000000000000055511151231257827"), ty(ENG_DOUBLE)),
              CQL_WEAKLY_ASSIGNABLE);
    ASSERT_EQ(cql_term_test_assignment(FLT("1.0000000000000000001"), ty(ENG_DECIMAL)),
              CQL_EXACT_MATCH);
    ASSERT_EQ(cql_term_test_assignment(LIST(1, INT("1")), list_of(ENG_INT)), CQL_EXACT_MATCH);
    ASSERT_EQ(cql_term_test_assignment(LIST(0), list_of(ENG_INT)), CQL_WEAKLY_ASSIGNABLE);
    done();
}

TEST(term_text_as_cassandra_prints_terms)
{
    eng_buf b = ENG_BUF_INIT;
    cql_term_text(MAP(1, STR("a"), LIST(2, INT("1"), NUL())), &b);
    ASSERT_STR_EQ(eng_buf_cstr(&b), "{'a': [1, NULL]}");
    eng_buf_reset(&b);
    cql_term_text(CALL("f", 2, HEX("ab"), marker(0)), &b);
    ASSERT_STR_EQ(eng_buf_cstr(&b), "f(0xab, ?)");
    eng_buf_free(&b);
    done();
}

TEST(nothing_is_kept_from_a_failed_term)
{
    eng_buf b = ENG_BUF_INIT;
    eng_buf_put_str(&b, "xy");
    eng_err_clear(&err);
    int st;
    ASSERT_EQ(
        cql_term_value(LIST(2, INT("1"), STR("a")), list_of(ENG_INT), "l", NULL, &b, &st, &err),
        ENG_E_INVALID);
    ASSERT_EQ(b.len, 2);
    eng_buf_free(&b);
    done();
}

/* Random bytes as constant text for every scalar type: errors, never a crash. */
/* Every allocation failing in turn: an error code, never a crash or a leak. */
TEST(allocation_failures_are_reported)
{
    eng_type *t = map_of(ENG_TEXT, ENG_VARINT);
    cql_term *lit = MAP(2, STR("b"), INT("123456789012345678901234567890"), STR("a"), INT("-5"));
    for (long n = 0; n < 200; n++) {
        eng_buf b = ENG_BUF_INIT;
        eng_err_clear(&err);
        eng_alloc_fail_after(n);
        int rc = cql_term_value(lit, t, "m", NULL, &b, &state, &err);
        eng_alloc_fail_after(-1);
        ASSERT(rc == 0 || rc == ENG_E_NOMEM);
        eng_buf_free(&b);
        if (rc == 0)
            break;
    }
    done();
}
