/*
 * CQL types: descriptors and their CQL text, the persisted binary form,
 * validation messages (facts §2.2/§2.3), Cassandra's comparators (facts §3),
 * canonical set/map forms. Expected values come from the facts sheet and
 * Cassandra's sources. (The cqlsh rendering is the shell's: tests/shell.)
 */
#include "harness.h"
#include "engine/value/text.h"
#include "engine/value/types.h"

#include <math.h>

/* ---- helpers ---- */

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    for (const char *c = hex; *c;) {
        if (*c == ' ') {
            c++;
            continue;
        }
        unsigned v;
        sscanf(c, "%2x", &v);
        out[n++] = (uint8_t)v;
        c += 2;
    }
    return n;
}

static eng_type *T(int kind)
{
    eng_type *t = eng_type_new(kind);
    ASSERT(t != NULL);
    return t;
}

static char *cql_of(const eng_type *t)
{
    static char s[512];
    eng_buf b = ENG_BUF_INIT;
    eng_type_to_cql(t, &b);
    ASSERT(!b.oom);
    snprintf(s, sizeof s, "%s", eng_buf_cstr(&b));
    eng_buf_free(&b);
    return s;
}

static eng_type *address_udt(int frozen)
{
    char **names = eng_malloc(2 * sizeof *names);
    eng_type **types = eng_malloc(2 * sizeof *types);
    names[0] = eng_strdup("street");
    names[1] = eng_strdup("zip");
    types[0] = T(ENG_TEXT);
    types[1] = T(ENG_INT);
    eng_type *t = eng_type_new_udt("ks", "address", names, types, 2, frozen);
    eng_free(names);
    eng_free(types);
    ASSERT(t != NULL);
    return t;
}

/* ---- names and descriptors ---- */

TEST(test_kind_from_name_accepts_every_native_name_case_insensitively)
{
    static const struct {
        const char *name;
        int kind;
    } v[] = {
        {"ascii", ENG_ASCII},         {"bigint", ENG_BIGINT},     {"blob", ENG_BLOB},
        {"boolean", ENG_BOOLEAN},     {"counter", ENG_COUNTER},   {"date", ENG_DATE},
        {"decimal", ENG_DECIMAL},     {"double", ENG_DOUBLE},     {"duration", ENG_DURATION},
        {"float", ENG_FLOAT},         {"inet", ENG_INET},         {"int", ENG_INT},
        {"smallint", ENG_SMALLINT},   {"text", ENG_TEXT},         {"time", ENG_TIME},
        {"timestamp", ENG_TIMESTAMP}, {"timeuuid", ENG_TIMEUUID}, {"tinyint", ENG_TINYINT},
        {"uuid", ENG_UUID},           {"VarChar", ENG_TEXT},      {"VARINT", ENG_VARINT},
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++)
        ASSERT_EQ(eng_kind_from_name(v[i].name, strlen(v[i].name)), v[i].kind);
    ASSERT_EQ(eng_kind_from_name("integer", 7), -1);
    ASSERT_EQ(eng_kind_from_name("intx", 3), ENG_INT); /* only len bytes are read */
    ASSERT_EQ(eng_kind_from_name("list", 4), -1);
}

TEST(test_kind_name_prints_text_for_varchar_alias)
{
    ASSERT_STR_EQ(eng_kind_name(ENG_TEXT), "text");
    ASSERT_STR_EQ(eng_kind_name(ENG_TIMEUUID), "timeuuid");
    ASSERT_STR_EQ(eng_kind_name(ENG_DURATION), "duration");
    ASSERT(eng_kind_name(ENG_LIST) == NULL);
    ASSERT(eng_kind_name(ENG_UDT) == NULL);
}

TEST(test_type_new_refuses_non_scalar_kinds)
{
    ASSERT(eng_type_new(ENG_LIST) == NULL);
    ASSERT(eng_type_new(ENG_UDT) == NULL);
    ASSERT(eng_type_new(0x000A) == NULL);
}

TEST(test_to_cql_matches_system_schema_type_text)
{
    eng_type *t = T(ENG_INT);
    ASSERT_STR_EQ(cql_of(t), "int");
    eng_type_free(t);
    t = eng_type_new_list(T(ENG_TEXT), 0);
    ASSERT_STR_EQ(cql_of(t), "list<text>");
    eng_type_free(t);
    t = eng_type_new_map(T(ENG_TEXT), T(ENG_INT), 1);
    ASSERT_STR_EQ(cql_of(t), "frozen<map<text, int>>");
    eng_type_free(t);
    t = eng_type_new_set(T(ENG_TIMEUUID), 0);
    ASSERT_STR_EQ(cql_of(t), "set<timeuuid>");
    eng_type_free(t);
}

TEST(test_to_cql_tuple_is_always_written_frozen)
{
    /* CQL3Type.Tuple.toString() wraps tuples in frozen<> */
    eng_type *c[2] = {T(ENG_INT), T(ENG_TEXT)};
    eng_type *t = eng_type_new_tuple(c, 2);
    ASSERT_STR_EQ(cql_of(t), "frozen<tuple<int, text>>");
    eng_type_free(t);
}

TEST(test_to_cql_nested_collections_and_udts_are_frozen)
{
    eng_type *c[2] = {T(ENG_INT), eng_type_new_list(T(ENG_TEXT), 0)};
    eng_type *t = eng_type_new_map(T(ENG_TEXT), eng_type_new_tuple(c, 2), 0);
    ASSERT_STR_EQ(cql_of(t), "map<text, frozen<tuple<int, frozen<list<text>>>>>");
    eng_type_free(t);
    t = eng_type_new_list(address_udt(0), 0);
    ASSERT_STR_EQ(cql_of(t), "list<frozen<address>>");
    eng_type_free(t);
    t = eng_type_new_set(eng_type_new_map(T(ENG_INT), T(ENG_BLOB), 0), 1);
    ASSERT_STR_EQ(cql_of(t), "frozen<set<frozen<map<int, blob>>>>");
    eng_type_free(t);
}

TEST(test_to_cql_udt_by_name_quoted_only_when_needed)
{
    eng_type *t = address_udt(0);
    ASSERT_STR_EQ(cql_of(t), "address");
    t->frozen = 1;
    ASSERT_STR_EQ(cql_of(t), "frozen<address>");
    eng_type_free(t);
    char **names = eng_malloc(sizeof *names);
    eng_type **types = eng_malloc(sizeof *types);
    names[0] = eng_strdup("a");
    types[0] = T(ENG_INT);
    t = eng_type_new_udt("ks", "My\"Type", names, types, 1, 0);
    ASSERT_STR_EQ(cql_of(t), "\"My\"\"Type\"");
    eng_type_free(t);
    names[0] = eng_strdup("a");
    types[0] = T(ENG_INT);
    t = eng_type_new_udt("ks", "select", names, types, 1, 1); /* reserved keyword */
    ASSERT_STR_EQ(cql_of(t), "frozen<\"select\">");
    eng_type_free(t);
    eng_free(names);
    eng_free(types);
}

TEST(test_dup_is_one_new_node_sharing_the_rest)
{
    eng_type *c[3] = {T(ENG_INT), address_udt(1), eng_type_new_custom("com.example.X")};
    eng_type *t = eng_type_new_list(eng_type_new_tuple(c, 3), 1);
    eng_type *d = eng_type_dup(t);
    ASSERT(d != NULL && d != t);
    ASSERT(eng_type_equal(t, d));
    ASSERT(d->sub == t->sub); /* shared, not copied: a dup costs one node whatever t holds */
    d->frozen = 0;            /* its own top node: t does not change */
    ASSERT(t->frozen == 1);
    ASSERT(!eng_type_equal(t, d));
    eng_type_free(t); /* the copy keeps what it shares alive */
    ASSERT_STR_EQ(d->sub[0]->sub[1]->fields[1], "zip");
    eng_type_free(d);
}

TEST(test_a_shared_child_is_not_frozen_in_place)
{
    eng_type *u = address_udt(0);
    eng_type *l = eng_type_new_list(eng_type_ref(u), 1);
    ASSERT(l != NULL);
    ASSERT(l->sub[0]->frozen == 1); /* frozen as a nested type ... */
    ASSERT(u->frozen == 0);         /* ... on a copy of the top node: u's other holder sees no change */
    eng_type *comps[1] = {eng_type_ref(u)};
    eng_type *tup = eng_type_new_tuple(comps, 1);
    ASSERT(tup != NULL && tup->sub[0]->frozen == 1 && u->frozen == 0);
    eng_type_free(l);
    eng_type_free(tup);
    eng_type_free(u);
}

TEST(test_equal_distinguishes_frozenness_fields_and_names)
{
    eng_type *a = eng_type_new_list(T(ENG_INT), 0), *b = eng_type_new_list(T(ENG_INT), 1);
    ASSERT(!eng_type_equal(a, b));
    eng_type_free(a);
    eng_type_free(b);
    a = address_udt(1);
    b = address_udt(1);
    ASSERT(eng_type_equal(a, b));
    b->fields[0][0] = 'S';
    ASSERT(!eng_type_equal(a, b));
    eng_type_free(b);
    b = address_udt(1);
    b->ks[0] = 'x';
    ASSERT(!eng_type_equal(a, b));
    eng_type_free(a);
    eng_type_free(b);
}

TEST(test_predicates_multicell_counter_contains)
{
    eng_type *l = eng_type_new_list(T(ENG_INT), 0), *fl = eng_type_new_list(T(ENG_INT), 1);
    eng_type *u = address_udt(0), *fu = address_udt(1), *ctr = T(ENG_COUNTER);
    ASSERT(eng_type_is_collection(l) && eng_type_is_collection(fl) && !eng_type_is_collection(u));
    ASSERT(eng_type_is_multicell(l) && !eng_type_is_multicell(fl));
    ASSERT(eng_type_is_multicell(u) && !eng_type_is_multicell(fu));
    ASSERT(eng_type_is_counter(ctr) && !eng_type_is_counter(l));
    eng_type *m = eng_type_new_map(T(ENG_TEXT), eng_type_new_list(T(ENG_DURATION), 0), 0);
    ASSERT(eng_type_contains_kind(m, ENG_DURATION));
    ASSERT(!eng_type_contains_kind(m, ENG_COUNTER));
    ASSERT(eng_type_contains_kind(ctr, ENG_COUNTER));
    eng_type_free(l);
    eng_type_free(fl);
    eng_type_free(u);
    eng_type_free(fu);
    eng_type_free(ctr);
    eng_type_free(m);
}

TEST(test_constructors_free_children_on_bad_arguments)
{
    /* ownership of children passes also on failure: ASAN's leak check verifies */
    ASSERT(eng_type_new_map(T(ENG_INT), NULL, 0) == NULL);
    eng_type *c[2] = {T(ENG_INT), NULL};
    ASSERT(eng_type_new_tuple(c, 2) == NULL);
}

TEST(test_constructors_survive_every_allocation_failure)
{
    for (long n = 0; n < 64; n++) {
        eng_type *c[2] = {T(ENG_INT), address_udt(0)};
        eng_alloc_fail_after(n);
        eng_type *tup = eng_type_new_tuple(c, 2);
        eng_type *t = eng_type_new_map(eng_type_new(ENG_TEXT), tup, 1);
        eng_type *d = eng_type_dup(t);
        eng_alloc_fail_after(-1);
        if (d)
            ASSERT(eng_type_equal(t, d));
        eng_type_free(t);
        eng_type_free(d);
    }
}

/* ---- persisted form ---- */

typedef struct resolver_ctx {
    eng_type *udt;
    int calls;
} resolver_ctx;

static const eng_type *resolve_udt(void *ctx, const char *ks, const char *name)
{
    resolver_ctx *rc = ctx;
    rc->calls++;
    if (strcmp(ks, rc->udt->ks) == 0 && strcmp(name, rc->udt->name) == 0)
        return rc->udt;
    return NULL;
}

static eng_type *nested_sample(void)
{
    eng_type *c[3] = {T(ENG_VARINT), address_udt(1), eng_type_new_custom("a.b.C")};
    return eng_type_new_map(T(ENG_TIMEUUID), eng_type_new_list(eng_type_new_tuple(c, 3), 1), 0);
}

TEST(test_serialize_round_trips_nested_types_with_udt_resolved)
{
    resolver_ctx rc = {address_udt(0), 0};
    eng_type *t = nested_sample();
    eng_buf b = ENG_BUF_INIT;
    eng_type_serialize(t, &b);
    ASSERT(!b.oom);
    const uint8_t *p = b.p;
    eng_err err;
    eng_err_clear(&err);
    eng_type *back = eng_type_deserialize(&p, b.p + b.len, resolve_udt, &rc, &err);
    ASSERT(back != NULL);
    ASSERT(p == b.p + b.len);
    ASSERT_EQ(rc.calls, 1);
    ASSERT(eng_type_equal(t, back));
    ASSERT_STR_EQ(cql_of(back),
                  "map<timeuuid, frozen<list<frozen<tuple<varint, frozen<address>, 'a.b.C'>>>>>");
    eng_type_free(back);
    eng_type_free(t);
    eng_type_free(rc.udt);
    eng_buf_free(&b);
}

TEST(test_deserialize_udt_picks_up_the_current_definition)
{
    /* ALTER TYPE reaches columns: the stored form names the UDT, the resolver supplies fields */
    eng_type *col = address_udt(0);
    eng_buf b = ENG_BUF_INIT;
    eng_type_serialize(col, &b);
    resolver_ctx rc = {address_udt(1), 0};
    char **names = eng_realloc(rc.udt->fields, 3 * sizeof(char *));
    eng_type **types = eng_realloc(rc.udt->sub, 3 * sizeof(eng_type *));
    rc.udt->fields = names;
    rc.udt->sub = types;
    names[2] = eng_strdup("city");
    types[2] = T(ENG_TEXT);
    rc.udt->n_sub = 3;
    const uint8_t *p = b.p;
    eng_err err;
    eng_err_clear(&err);
    eng_type *back = eng_type_deserialize(&p, b.p + b.len, resolve_udt, &rc, &err);
    ASSERT(back != NULL);
    ASSERT_EQ(back->n_sub, 3);
    ASSERT_EQ(back->frozen, 0); /* the column's own frozenness, not the definition's */
    ASSERT_STR_EQ(back->fields[2], "city");
    eng_type_free(back);
    eng_type_free(col);
    eng_type_free(rc.udt);
    eng_buf_free(&b);
}

TEST(test_deserialize_unknown_udt_is_reported)
{
    eng_type *col = address_udt(1);
    eng_buf b = ENG_BUF_INIT;
    eng_type_serialize(col, &b);
    const uint8_t *p = b.p;
    eng_err err;
    eng_err_clear(&err);
    ASSERT(eng_type_deserialize(&p, b.p + b.len, NULL, NULL, &err) == NULL);
    ASSERT_EQ(err.code, ENG_E_CORRUPT);
    ASSERT(p == b.p);
    eng_type_free(col);
    eng_buf_free(&b);
}

TEST(test_deserialize_every_truncation_is_corrupt_not_a_crash)
{
    resolver_ctx rc = {address_udt(0), 0};
    eng_type *t = nested_sample();
    eng_buf b = ENG_BUF_INIT;
    eng_type_serialize(t, &b);
    for (size_t n = 0; n < b.len; n++) {
        uint8_t *copy = eng_memdup(b.p, n); /* exact-size copy so ASAN sees overreads */
        const uint8_t *p = copy;
        eng_err err;
        eng_err_clear(&err);
        eng_type *back = eng_type_deserialize(&p, copy + n, resolve_udt, &rc, &err);
        ASSERT(back == NULL);
        ASSERT_EQ(err.code, ENG_E_CORRUPT);
        eng_free(copy);
    }
    eng_type_free(t);
    eng_type_free(rc.udt);
    eng_buf_free(&b);
}

TEST(test_deserialize_random_garbage_never_crashes)
{
    uint64_t st = test_seed();
    resolver_ctx rc = {address_udt(0), 0};
    for (int i = 0; i < 20000; i++) {
        size_t n = test_rand(&st) % 24;
        uint8_t *buf = eng_malloc(n ? n : 1);
        for (size_t j = 0; j < n; j++) {
            uint64_t r = test_rand(&st);
            /* bias toward small valid kinds so the parser goes deep */
            buf[j] = (uint8_t)(r % 4 == 0 ? 0 : r % 4 == 1 ? 0x20 + (r >> 8) % 2 : r >> 16);
        }
        const uint8_t *p = buf;
        eng_err err;
        eng_err_clear(&err);
        eng_type *t = eng_type_deserialize(&p, buf + n, resolve_udt, &rc, &err);
        if (t)
            ASSERT(p <= buf + n);
        else
            ASSERT(err.code == ENG_E_CORRUPT || err.code == ENG_E_NOMEM);
        eng_type_free(t);
        eng_free(buf);
    }
    eng_type_free(rc.udt);
}

TEST(test_deserialize_refuses_absurd_nesting)
{
    eng_buf b = ENG_BUF_INIT;
    for (int i = 0; i < 10000; i++) {
        eng_buf_put_be16(&b, ENG_LIST);
        eng_buf_put_u8(&b, 1);
    }
    eng_buf_put_be16(&b, ENG_INT);
    eng_buf_put_u8(&b, 0);
    const uint8_t *p = b.p;
    eng_err err;
    eng_err_clear(&err);
    ASSERT(eng_type_deserialize(&p, b.p + b.len, NULL, NULL, &err) == NULL);
    ASSERT_EQ(err.code, ENG_E_CORRUPT);
    eng_buf_free(&b);
}

/* `levels` nested lists around an int, in the persisted form. */
static void nested_lists(eng_buf *b, int levels)
{
    for (int i = 1; i < levels; i++) {
        eng_buf_put_be16(b, ENG_LIST);
        eng_buf_put_u8(b, 1);
    }
    eng_buf_put_be16(b, ENG_INT);
    eng_buf_put_u8(b, 0);
}

TEST(test_deserialize_reads_back_the_deepest_type_a_schema_may_hold)
{
    for (int levels = ENG_MAX_TYPE_DEPTH; levels <= ENG_MAX_TYPE_DEPTH + 1; levels++) {
        eng_buf b = ENG_BUF_INIT;
        nested_lists(&b, levels);
        const uint8_t *p = b.p;
        eng_err err;
        eng_err_clear(&err);
        eng_type *t = eng_type_deserialize(&p, b.p + b.len, NULL, NULL, &err);
        if (levels == ENG_MAX_TYPE_DEPTH) {
            ASSERT(t != NULL);
            ASSERT_EQ(eng_type_depth(t), ENG_MAX_TYPE_DEPTH);
        } else {
            ASSERT(t == NULL);
            ASSERT_EQ(err.code, ENG_E_CORRUPT);
        }
        eng_type_free(t);
        eng_buf_free(&b);
    }
}

/* d(k) = udt(a: d(k-1), b: d(k-1)) over shared definitions, d(1) = udt(a: int, b: int). */
static eng_type *doubling_udt(int k)
{
    char **names = eng_calloc(2, sizeof *names);
    eng_type **types = eng_calloc(2, sizeof *types);
    eng_type *below = k > 1 ? doubling_udt(k - 1) : NULL;
    names[0] = eng_strdup("a");
    names[1] = eng_strdup("b");
    types[0] = below ? eng_type_dup(below) : T(ENG_INT);
    types[1] = below ? eng_type_dup(below) : T(k == 1 ? ENG_COUNTER : ENG_INT);
    eng_type_free(below); /* the copies keep it */
    eng_type *t = eng_type_new_udt("ks", "d", names, types, 2, 1);
    eng_free(names);
    eng_free(types);
    return t;
}

TEST(test_depth_size_and_kinds_of_a_shared_type_take_no_walk)
{
    eng_type *t = doubling_udt(60); /* 2^61 - 1 descriptors written out, 60 shared */
    ASSERT(t != NULL);
    ASSERT_EQ(eng_type_depth(t), 61);
    ASSERT_EQ(eng_type_tree_size(t), UINT32_MAX); /* saturated */
    ASSERT(eng_type_contains_kind(t, ENG_COUNTER));
    ASSERT(!eng_type_contains_kind(t, ENG_DURATION));
    eng_type *d = eng_type_dup(t);
    ASSERT(eng_type_equal(t, d)); /* one body: no walk either */
    eng_type_free(t);
    eng_type_free(d);
    /* a descriptor made by hand (a view over another's children) is counted from them */
    eng_type *l = eng_type_new_list(T(ENG_DURATION), 1);
    eng_type view = {.kind = ENG_SET, .n_sub = 1, .sub = l->sub};
    ASSERT_EQ(eng_type_depth(&view), 2);
    ASSERT_EQ(eng_type_tree_size(&view), 2);
    ASSERT(eng_type_contains_kind(&view, ENG_DURATION));
    eng_type_free(l);
}

/* ---- item readers ---- */

TEST(test_items_reader_walks_v4_list_and_tuple_framing)
{
    uint8_t v[64];
    size_t n = unhex("00000002 00000004 00000001 00000004 00000002", v); /* facts §2.5 */
    eng_items it;
    eng_val e;
    ASSERT_EQ(eng_items_begin(&it, v, n), 2);
    ASSERT_EQ(eng_items_next(&it, &e), 1);
    ASSERT_EQ(e.len, 4);
    ASSERT_EQ(e.p[3], 1);
    ASSERT_EQ(eng_items_next(&it, &e), 1);
    ASSERT_EQ(e.p[3], 2);
    ASSERT_EQ(eng_items_next(&it, &e), 0);
    n = unhex("00000004 00000001 ffffffff", v);
    eng_items_begin_raw(&it, v, n);
    ASSERT_EQ(eng_items_next(&it, &e), 1);
    ASSERT_EQ(eng_items_next(&it, &e), 1);
    ASSERT_EQ(e.len, ENG_NULL);
    ASSERT_EQ(eng_items_next(&it, &e), 0);
}

TEST(test_items_reader_reports_truncation)
{
    uint8_t v[64];
    size_t n = unhex("00000002 00000004 000000", v);
    eng_items it;
    eng_val e;
    ASSERT_EQ(eng_items_begin(&it, v, 3), -1);
    ASSERT_EQ(eng_items_begin(&it, v, n), 2);
    ASSERT_EQ(eng_items_next(&it, &e), -1);
    eng_items_begin_raw(&it, v + 4, 2);
    ASSERT_EQ(eng_items_next(&it, &e), -1);
    n = unhex("ffffffff", v);
    ASSERT_EQ(eng_items_begin(&it, v, n), -1); /* negative count */
}

/* ---- validation (facts §2.2, §2.3; messages from Cassandra's serializers) ---- */

typedef struct hexval {
    uint8_t b[512];
    size_t n;
} hexval;

static hexval H(const char *hex)
{
    hexval v;
    v.n = unhex(hex, v.b);
    return v;
}

/* Validates hex bytes against a scalar kind; returns the message ("" when valid). */
static const char *check_kind(int kind, const char *hex)
{
    static eng_err err;
    eng_type *t = T(kind);
    hexval v = H(hex);
    eng_err_clear(&err);
    int rc = eng_type_validate(t, v.b, v.n, &err);
    eng_type_free(t);
    if (rc)
        ASSERT_EQ(err.code, ENG_E_INVALID);
    return rc ? err.msg : "";
}

static const char *check_type(const eng_type *t, const char *hex)
{
    static eng_err err;
    hexval v = H(hex);
    eng_err_clear(&err);
    int rc = eng_type_validate(t, v.b, v.n, &err);
    if (rc)
        ASSERT_EQ(err.code, ENG_E_INVALID);
    return rc ? err.msg : "";
}

TEST(test_validate_fixed_width_numbers_allow_empty_and_name_the_size)
{
    ASSERT_STR_EQ(check_kind(ENG_INT, "00000001"), "");
    ASSERT_STR_EQ(check_kind(ENG_INT, ""), "");
    ASSERT_STR_EQ(check_kind(ENG_INT, "0000000000000001"), "Expected 4 or 0 byte int (8)");
    ASSERT_STR_EQ(check_kind(ENG_BIGINT, "0000000000000001"), "");
    ASSERT_STR_EQ(check_kind(ENG_BIGINT, ""), "");
    ASSERT_STR_EQ(check_kind(ENG_BIGINT, "00000001"), "Expected 8 or 0 byte long (4)");
    ASSERT_STR_EQ(check_kind(ENG_COUNTER, "0001"), "Expected 8 or 0 byte long (2)");
    ASSERT_STR_EQ(check_kind(ENG_TIMESTAMP, "ffffffffffffffff"), "");
    ASSERT_STR_EQ(check_kind(ENG_TIMESTAMP, "00"), "Expected 8 or 0 byte long for date (1)");
    ASSERT_STR_EQ(check_kind(ENG_DOUBLE, "3ff0000000000000"), "");
    ASSERT_STR_EQ(check_kind(ENG_DOUBLE, "3f800000"),
                  "Expected 8 or 0 byte value for a double (4)");
    ASSERT_STR_EQ(check_kind(ENG_FLOAT, "3f800000"), "");
    ASSERT_STR_EQ(check_kind(ENG_FLOAT, "3ff0000000000000"),
                  "Expected 4 or 0 byte value for a float (8)");
    ASSERT_STR_EQ(check_kind(ENG_BOOLEAN, "01"), "");
    ASSERT_STR_EQ(check_kind(ENG_BOOLEAN, ""), "");
    ASSERT_STR_EQ(check_kind(ENG_BOOLEAN, "0001"), "Expected 1 or 0 byte value (2)");
}

TEST(test_validate_date_time_smallint_tinyint_refuse_empty)
{
    ASSERT_STR_EQ(check_kind(ENG_DATE, "80000000"), "");
    ASSERT_STR_EQ(check_kind(ENG_DATE, ""), "Expected 4 byte long for date (0)");
    ASSERT_STR_EQ(check_kind(ENG_DATE, "0000000000"), "Expected 4 byte long for date (5)");
    ASSERT_STR_EQ(check_kind(ENG_TIME, "000000003b9aca00"), "");
    ASSERT_STR_EQ(check_kind(ENG_TIME, ""), "Expected 8 byte long for time (0)");
    ASSERT_STR_EQ(check_kind(ENG_TIME, "3b9aca00"), "Expected 8 byte long for time (4)");
    ASSERT_STR_EQ(check_kind(ENG_SMALLINT, "0001"), "");
    ASSERT_STR_EQ(check_kind(ENG_SMALLINT, ""), "Expected 2 bytes for a smallint (0)");
    ASSERT_STR_EQ(check_kind(ENG_SMALLINT, "000001"), "Expected 2 bytes for a smallint (3)");
    ASSERT_STR_EQ(check_kind(ENG_TINYINT, "ff"), "");
    ASSERT_STR_EQ(check_kind(ENG_TINYINT, ""), "Expected 1 byte for a tinyint (0)");
    ASSERT_STR_EQ(check_kind(ENG_TINYINT, "0001"), "Expected 1 byte for a tinyint (2)");
}

TEST(test_validate_decimal_needs_four_scale_bytes_varint_and_blob_anything)
{
    ASSERT_STR_EQ(check_kind(ENG_DECIMAL, "00000001 0f"), "");
    ASSERT_STR_EQ(check_kind(ENG_DECIMAL, "00000001"), "");
    ASSERT_STR_EQ(check_kind(ENG_DECIMAL, ""), "");
    ASSERT_STR_EQ(check_kind(ENG_DECIMAL, "000001"), "Expected 0 or at least 4 bytes (3)");
    ASSERT_STR_EQ(check_kind(ENG_VARINT, ""), "");
    ASSERT_STR_EQ(check_kind(ENG_VARINT, "ff7f0000000000000000000000"), "");
    ASSERT_STR_EQ(check_kind(ENG_BLOB, "00ff80"), "");
}

TEST(test_validate_ascii_names_the_signed_byte)
{
    ASSERT_STR_EQ(check_kind(ENG_ASCII, "616263007f"), "");
    ASSERT_STR_EQ(check_kind(ENG_ASCII, "6180"), "Invalid byte for ascii: -128");
    ASSERT_STR_EQ(check_kind(ENG_ASCII, "ff"), "Invalid byte for ascii: -1");
}

TEST(test_validate_uuid_size_and_timeuuid_version_nibble)
{
    ASSERT_STR_EQ(check_kind(ENG_UUID, "00112233445566778899aabbccddeeff"), "");
    ASSERT_STR_EQ(check_kind(ENG_UUID, ""), "");
    ASSERT_STR_EQ(check_kind(ENG_UUID, "00112233445566778899aabbccddee"),
                  "UUID should be 16 or 0 bytes (15)");
    ASSERT_STR_EQ(check_kind(ENG_TIMEUUID, "138140001dd211b28080808080808080"), "");
    ASSERT_STR_EQ(check_kind(ENG_TIMEUUID, "138140001dd241b28080808080808080"),
                  "Invalid version for TimeUUID type.");
    ASSERT_STR_EQ(check_kind(ENG_TIMEUUID, "1381"), "UUID should be 16 or 0 bytes (2)");
    ASSERT_STR_EQ(check_kind(ENG_TIMEUUID, ""), "");
}

TEST(test_validate_inet_four_or_sixteen_bytes_with_hex_in_message)
{
    ASSERT_STR_EQ(check_kind(ENG_INET, "7f000001"), "");
    ASSERT_STR_EQ(check_kind(ENG_INET, "00000000000000000000000000000001"), "");
    ASSERT_STR_EQ(check_kind(ENG_INET, ""), "");
    ASSERT_STR_EQ(check_kind(ENG_INET, "0102030405"),
                  "Expected 4 or 16 byte inetaddress; got 0102030405");
}

TEST(test_validate_text_accepts_cassandra_lenient_utf8)
{
    /* facts §2.2 notes: modified-UTF-8 NUL, encoded surrogates and F0..F7 leads pass */
    ASSERT_STR_EQ(check_kind(ENG_TEXT, "68c3a9e282acf09f9880"), ""); /* hé€😀 */
    ASSERT_STR_EQ(check_kind(ENG_TEXT, "c080"), "");
    ASSERT_STR_EQ(check_kind(ENG_TEXT, "eda080"), "");
    ASSERT_STR_EQ(check_kind(ENG_TEXT, "f4908080"), "");
    ASSERT_STR_EQ(check_kind(ENG_TEXT, "f7bfbfbf"), "");
    /* UTF8Validator after E0 only refuses 80..9F and after F0 only bytes with 0x30 clear */
    ASSERT_STR_EQ(check_kind(ENG_TEXT, "e04180"), "");
    ASSERT_STR_EQ(check_kind(ENG_TEXT, "f0508080"), "");
}

TEST(test_validate_text_refuses_overlongs_strays_and_truncation)
{
    static const char *bad[] = {"c041",     "c180",     "c1bf", "e08080", "e09fbf",
                                "f0808080", "f08fbfbf", "80",   "61bf",   "e282",
                                "f09f98",   "f8",       "ff",   "c3",     "e041"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(bad); i++)
        ASSERT_STR_EQ(check_kind(ENG_TEXT, bad[i]), "String didn't validate.");
}

TEST(test_validate_duration_vints_int32_and_same_sign)
{
    ASSERT_STR_EQ(check_kind(ENG_DURATION, "020406"), ""); /* facts §2.4 vectors */
    ASSERT_STR_EQ(check_kind(ENG_DURATION, "000100"), "");
    ASSERT_STR_EQ(check_kind(ENG_DURATION, "0000fc068c61714000"), "");
    ASSERT_STR_EQ(check_kind(ENG_DURATION, ""), "Expected at least 3 bytes for a duration (0)");
    ASSERT_STR_EQ(check_kind(ENG_DURATION, "0204"), "Expected at least 3 bytes for a duration (2)");
    ASSERT_STR_EQ(check_kind(ENG_DURATION, "020100"), /* 1 month, -1 day */
                  "The duration months, days and nanoseconds must be all of the same sign "
                  "(1, -1, 0)");
    /* months 2^31: zig-zag 2^32, a 5-byte vint f1 00000000 */
    ASSERT_STR_EQ(check_kind(ENG_DURATION, "f100000000 00 00"),
                  "The duration months must be a 32 bits integer but was: 2147483648");
    ASSERT_STR_EQ(check_kind(ENG_DURATION, "00 f100000001 00"),
                  "The duration days must be a 32 bits integer but was: -2147483649");
    ASSERT(strlen(check_kind(ENG_DURATION, "00f000")) > 0); /* truncated vint refused */
}

TEST(test_validate_list_framing_messages)
{
    eng_type *t = eng_type_new_list(T(ENG_INT), 0);
    ASSERT_STR_EQ(check_type(t, "00000002 00000004 00000001 00000004 00000002"), "");
    ASSERT_STR_EQ(check_type(t, "00000000"), "");
    ASSERT_STR_EQ(check_type(t, ""), "Not enough bytes to read a list");
    ASSERT_STR_EQ(check_type(t, "000000"), "Not enough bytes to read a list");
    ASSERT_STR_EQ(check_type(t, "00000002 00000004 00000001"), "Not enough bytes to read a list");
    ASSERT_STR_EQ(check_type(t, "00000001 00000004 000001"), "Not enough bytes to read a list");
    ASSERT_STR_EQ(check_type(t, "00000001 00000004 00000001 00"),
                  "Unexpected extraneous bytes after list value");
    ASSERT_STR_EQ(check_type(t, "00000001 00000002 0001"), "Expected 4 or 0 byte int (2)");
    ASSERT_STR_EQ(check_type(t, "ffffffff"), "The data cannot be deserialized as a list");
    eng_type_free(t);
}

TEST(test_validate_collections_refuse_null_elements)
{
    eng_type *l = eng_type_new_list(T(ENG_INT), 1);
    eng_type *s = eng_type_new_set(T(ENG_TEXT), 1);
    eng_type *m = eng_type_new_map(T(ENG_TEXT), T(ENG_INT), 0);
    ASSERT_STR_EQ(check_type(l, "00000001 ffffffff"), "null is not supported inside collections");
    ASSERT_STR_EQ(check_type(s, "00000001 ffffffff"), "null is not supported inside collections");
    ASSERT_STR_EQ(check_type(m, "00000001 ffffffff 00000004 00000001"),
                  "null is not supported inside collections");
    ASSERT_STR_EQ(check_type(m, "00000001 00000001 61 ffffffff"),
                  "null is not supported inside collections");
    eng_type_free(l);
    eng_type_free(s);
    eng_type_free(m);
}

TEST(test_validate_set_and_map_messages_and_empty_value)
{
    eng_type *s = eng_type_new_set(T(ENG_INT), 1);
    eng_type *m = eng_type_new_map(T(ENG_TEXT), T(ENG_INT), 1);
    ASSERT_STR_EQ(check_type(s, ""), ""); /* SetSerializer: empty values are still valid */
    ASSERT_STR_EQ(check_type(m, ""), "");
    ASSERT_STR_EQ(check_type(s, "00000001 00000004"), "Not enough bytes to read a set");
    ASSERT_STR_EQ(check_type(s, "00000000 01"), "Unexpected extraneous bytes after set value");
    ASSERT_STR_EQ(check_type(m, "00000001 00000001 61 00000004 00000001"), "");
    ASSERT_STR_EQ(check_type(m, "00000001 00000001 61"), "Not enough bytes to read a map");
    ASSERT_STR_EQ(check_type(m, "00000001 00000001 61 00000004 00000001 ff"),
                  "Unexpected extraneous bytes after map value");
    ASSERT_STR_EQ(check_type(m, "00000001 00000001 ff 00000004 00000001"),
                  "String didn't validate.");
    eng_type_free(s);
    eng_type_free(m);
}

TEST(test_validate_tuple_allows_fewer_components_not_more)
{
    eng_type *c[2] = {T(ENG_INT), T(ENG_TEXT)};
    eng_type *t = eng_type_new_tuple(c, 2);
    ASSERT_STR_EQ(check_type(t, "00000004 00000001 ffffffff"), ""); /* facts §2.5 */
    ASSERT_STR_EQ(check_type(t, "00000004 00000001"), "");
    ASSERT_STR_EQ(check_type(t, ""), "");
    ASSERT_STR_EQ(check_type(t, "00000004 00000001 ffffffff 00"),
                  "Invalid remaining data after end of tuple value");
    ASSERT_STR_EQ(check_type(t, "00000004 00000001 0000"),
                  "Not enough bytes to read size of 1th component");
    ASSERT_STR_EQ(check_type(t, "00000004 00000001 00000002 61"),
                  "Not enough bytes to read 1th component");
    ASSERT_STR_EQ(check_type(t, "00000002 0001"), "Expected 4 or 0 byte int (2)");
    eng_type_free(t);
}

TEST(test_validate_udt_messages_name_the_field_and_skip_nulls_in_numbering)
{
    eng_type *u = address_udt(1);
    ASSERT_STR_EQ(check_type(u, "00000001 61 00000004 00000001"), "");
    ASSERT_STR_EQ(check_type(u, "00000001 61"), ""); /* fewer fields than declared */
    ASSERT_STR_EQ(check_type(u, "00000001 61 00000004 000001"),
                  "Not enough bytes to read 1th field zip");
    ASSERT_STR_EQ(check_type(u, "00000001 61 0000"),
                  "Not enough bytes to read size of 1th field zip");
    /* UserTypeSerializer counts only the non-null fields it has read */
    ASSERT_STR_EQ(check_type(u, "ffffffff 0000"), "Not enough bytes to read size of 0th field zip");
    ASSERT_STR_EQ(check_type(u, "00000001 61 00000004 00000001 00"),
                  "Invalid remaining data after end of UDT value");
    eng_type_free(u);
}

TEST(test_validate_recurses_into_nested_values)
{
    eng_type *c[1] = {eng_type_new_set(T(ENG_TIMEUUID), 1)};
    eng_type *t = eng_type_new_list(eng_type_new_tuple(c, 1), 1);
    ASSERT_STR_EQ(check_type(t, "00000001 0000001c 00000018 00000001 00000010"
                                "138140001dd211b28080808080808080"),
                  "");
    ASSERT_STR_EQ(check_type(t, "00000001 0000001c 00000018 00000001 00000010"
                                "138140001dd241b28080808080808080"),
                  "Invalid version for TimeUUID type.");
    eng_type_free(t);
}

/* ---- comparison (facts §3) ---- */

static int cmp_kind(int kind, const char *a, const char *b)
{
    eng_type *t = T(kind);
    hexval x = H(a), y = H(b);
    int c = eng_type_compare(t, x.b, x.n, y.b, y.n);
    int r = eng_type_compare(t, y.b, y.n, x.b, x.n);
    eng_type_free(t);
    ASSERT((c < 0) == (r > 0) && (c == 0) == (r == 0)); /* antisymmetric */
    return c < 0 ? -1 : c > 0;
}

static int cmp_type(const eng_type *t, const char *a, const char *b)
{
    hexval x = H(a), y = H(b);
    int c = eng_type_compare(t, x.b, x.n, y.b, y.n);
    int r = eng_type_compare(t, y.b, y.n, x.b, x.n);
    ASSERT((c < 0) == (r > 0) && (c == 0) == (r == 0));
    return c < 0 ? -1 : c > 0;
}

TEST(test_compare_empty_sorts_before_every_value)
{
    static const struct {
        int kind;
        const char *smallest;
    } v[] = {{ENG_INT, "80000000"},
             {ENG_BIGINT, "8000000000000000"},
             {ENG_TEXT, "00"},
             {ENG_BLOB, "00"},
             {ENG_BOOLEAN, "00"},
             {ENG_DOUBLE, "fff0000000000000"},
             {ENG_FLOAT, "ff800000"},
             {ENG_VARINT, "80"},
             {ENG_DECIMAL, "00000000 80"},
             {ENG_UUID, "00000000000000000000000000000000"},
             {ENG_TIMEUUID, "00000000000010008080808080808080"},
             {ENG_INET, "00000000"},
             {ENG_TIMESTAMP, "8000000000000000"}};
    for (size_t i = 0; i < ENG_ARRAY_LEN(v); i++) {
        ASSERT_EQ(cmp_kind(v[i].kind, "", v[i].smallest), -1);
        ASSERT_EQ(cmp_kind(v[i].kind, "", ""), 0);
    }
    eng_type *c[1] = {T(ENG_INT)};
    eng_type *t = eng_type_new_tuple(c, 1);
    ASSERT_EQ(cmp_type(t, "", "ffffffff"), -1);
    eng_type_free(t);
}

TEST(test_compare_fixed_integers_are_signed)
{
    ASSERT_EQ(cmp_kind(ENG_INT, "ffffffff", "00000000"), -1);
    ASSERT_EQ(cmp_kind(ENG_INT, "80000000", "7fffffff"), -1);
    ASSERT_EQ(cmp_kind(ENG_INT, "00000100", "000000ff"), 1);
    ASSERT_EQ(cmp_kind(ENG_TINYINT, "80", "7f"), -1);
    ASSERT_EQ(cmp_kind(ENG_SMALLINT, "ff00", "feff"), 1);
    ASSERT_EQ(cmp_kind(ENG_TIMESTAMP, "ffffffffffffffff", "00000000000003e8"), -1);
    ASSERT_EQ(cmp_kind(ENG_BIGINT, "0000000000000001", "0000000000000001"), 0);
}

TEST(test_compare_date_is_unsigned_day_count)
{
    ASSERT_EQ(cmp_kind(ENG_DATE, "7fffffff", "80000000"), -1); /* 1969-12-31 < 1970-01-01 */
    ASSERT_EQ(cmp_kind(ENG_DATE, "00000000", "ffffffff"), -1);
}

TEST(test_compare_text_is_unsigned_byte_order_with_prefix_first)
{
    ASSERT_EQ(cmp_kind(ENG_TEXT, "42", "61"), -1);   /* "B" < "a": no collation */
    ASSERT_EQ(cmp_kind(ENG_TEXT, "61", "6162"), -1); /* prefix first */
    ASSERT_EQ(cmp_kind(ENG_TEXT, "7a", "c3a9"), -1); /* code point order */
    ASSERT_EQ(cmp_kind(ENG_BLOB, "ff", "00ff"), 1);
}

TEST(test_compare_timeuuid_by_timestamp_then_signed_lsb_bytes)
{
    /* facts §3.3 vectors: min/max timeuuid of 0 ms and of 2013-01-01T00:05Z */
    const char *min0 = "138140001dd211b28080808080808080";
    const char *max0 = "1381670f1dd211b27f7f7f7f7f7f7f7f";
    const char *min2013 = "e23f1e0053a611e28080808080808080";
    const char *min2021 = "4a8b04b04bc411eb8080808080808080";
    ASSERT_EQ(cmp_kind(ENG_TIMEUUID, min0, max0), -1);
    ASSERT_EQ(cmp_kind(ENG_TIMEUUID, max0, min2013), -1);
    /* time_low bytes 4a < e2, but 2021 is later than 2013: time_hi is compared first */
    ASSERT_EQ(cmp_kind(ENG_TIMEUUID, min2021, min2013), 1);
    /* same timestamp: LSB as signed bytes, so 0x80 sorts before 0x7f and 0x00 */
    ASSERT_EQ(cmp_kind(ENG_TIMEUUID, "138140001dd211b28000000000000000",
                       "138140001dd211b27f00000000000000"),
              -1);
    ASSERT_EQ(cmp_kind(ENG_TIMEUUID, "138140001dd211b200000000000000ff",
                       "138140001dd211b20000000000000001"),
              -1);
    ASSERT_EQ(cmp_kind(ENG_TIMEUUID, min0, min0), 0);
}

TEST(test_compare_uuid_version_first_then_unsigned)
{
    /* every v1 before every v4, whatever the bytes */
    ASSERT_EQ(
        cmp_kind(ENG_UUID, "ffffffffffff1fffffffffffffffffff", "00000000000040000000000000000000"),
        -1);
    /* same version (4): MSB unsigned */
    ASSERT_EQ(
        cmp_kind(ENG_UUID, "80000000000040000000000000000000", "7fffffffffff40000000000000000000"),
        1);
    /* same MSB: LSB unsigned (0x80 after 0x7f, unlike timeuuid) */
    ASSERT_EQ(
        cmp_kind(ENG_UUID, "00000000000040008000000000000000", "00000000000040007f00000000000000"),
        1);
    /* version 1: timestamp order as timeuuid */
    ASSERT_EQ(
        cmp_kind(ENG_UUID, "4a8b04b04bc411eb8080808080808080", "e23f1e0053a611e28080808080808080"),
        1);
}

TEST(test_compare_boolean_any_nonzero_is_true)
{
    ASSERT_EQ(cmp_kind(ENG_BOOLEAN, "01", "02"), 0);
    ASSERT_EQ(cmp_kind(ENG_BOOLEAN, "00", "01"), -1);
    ASSERT_EQ(cmp_kind(ENG_BOOLEAN, "ff", "00"), 1);
}

TEST(test_compare_floating_java_total_order)
{
    /* -Inf < -1 < -0.0 < 0.0 < 1 < +Inf < NaN; all NaNs equal */
    const char *d[] = {"fff0000000000000", "bff0000000000000", "8000000000000000",
                       "0000000000000000", "3ff0000000000000", "7ff0000000000000",
                       "7ff8000000000000"};
    for (size_t i = 0; i + 1 < ENG_ARRAY_LEN(d); i++)
        ASSERT_EQ(cmp_kind(ENG_DOUBLE, d[i], d[i + 1]), -1);
    ASSERT_EQ(cmp_kind(ENG_DOUBLE, "7ff8000000000000", "fff8000000000001"), 0);
    ASSERT_EQ(cmp_kind(ENG_FLOAT, "80000000", "00000000"), -1);
    ASSERT_EQ(cmp_kind(ENG_FLOAT, "7f800000", "7fc00000"), -1);
    ASSERT_EQ(cmp_kind(ENG_FLOAT, "7fc00000", "ffc00001"), 0);
    ASSERT_EQ(cmp_kind(ENG_FLOAT, "bf800000", "3f800000"), -1);
}

TEST(test_compare_decimal_by_value_ignoring_scale)
{
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000001 0a", "00000002 64"), 0);    /* 1.0 == 1.00 */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000000 02", "00000004 4e1f"), 1);  /* 2 > 1.9999 */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000002 ff", "00000000 00"), -1);   /* -0.01 < 0 */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000002 00", "fffffffd 00"), 0);    /* 0.00 == 0E+3 */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "fffffffd 01", "00000000 03e8"), 0);  /* 1E+3 == 1000 */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000000 ff", "00000003 fc19"), -1); /* -1 < -0.999 */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000001 f1", "00000000 ff"), -1);   /* -1.5 < -1 */
    /* 10^40 / 10^40 == 1: unscaled values wider than 64 bits */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000028 1d6329f1c35ca4bfabb9f5610000000000", "00000000 01"),
              0);
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "00000028 1d6329f1c35ca4bfabb9f5610000000001", "00000000 01"),
              1);
    /* extreme scales settle without materializing 10^(2^31) */
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "80000000 01", "7fffffff 7f"), 1);
    ASSERT_EQ(cmp_kind(ENG_DECIMAL, "80000000 ff", "00000000 01"), -1);
}

TEST(test_compare_varint_numeric_ignoring_redundant_sign_bytes)
{
    ASSERT_EQ(cmp_kind(ENG_VARINT, "0001", "01"), 0);
    ASSERT_EQ(cmp_kind(ENG_VARINT, "ff80", "80"), 0);
    ASSERT_EQ(cmp_kind(ENG_VARINT, "ff7f", "80"), -1); /* -129 < -128 */
    ASSERT_EQ(cmp_kind(ENG_VARINT, "0080", "7f"), 1);  /* 128 > 127 */
    ASSERT_EQ(cmp_kind(ENG_VARINT, "ff", "00"), -1);
    ASSERT_EQ(cmp_kind(ENG_VARINT, "008000000000000000", "7fffffffffffffff"), 1);
    ASSERT_EQ(cmp_kind(ENG_VARINT, "ff7fffffffffffffff", "8000000000000000"), -1);
}

TEST(test_compare_varint_matches_numeric_order_randomized)
{
    uint64_t st = test_seed();
    for (int i = 0; i < 5000; i++) {
        int64_t a = (int64_t)test_rand(&st) >> (test_rand(&st) % 64);
        int64_t b = (int64_t)test_rand(&st) >> (test_rand(&st) % 64);
        uint8_t x[10], y[10];
        /* full 8 bytes, optionally with a redundant sign byte in front */
        size_t px = test_rand(&st) % 2, py = test_rand(&st) % 2;
        x[0] = a < 0 ? 0xFF : 0;
        y[0] = b < 0 ? 0xFF : 0;
        eng_put_be64(x + px, (uint64_t)a);
        eng_put_be64(y + py, (uint64_t)b);
        eng_type *t = T(ENG_VARINT);
        int c = eng_type_compare(t, x, 8 + px, y, 8 + py);
        eng_type_free(t);
        ASSERT_EQ(c < 0 ? -1 : c > 0, a < b ? -1 : a > b);
    }
}

TEST(test_compare_decimal_matches_cross_multiplication_randomized)
{
    uint64_t st = test_seed();
    for (int i = 0; i < 5000; i++) {
        int32_t ua = (int32_t)(test_rand(&st) % 200001) - 100000;
        int32_t ub = (int32_t)(test_rand(&st) % 200001) - 100000;
        int sa = (int)(test_rand(&st) % 9) - 4, sb = (int)(test_rand(&st) % 9) - 4;
        /* ua*10^-sa vs ub*10^-sb  <=>  ua*10^(8-sa) vs ub*10^(8-sb) */
        long long l = ua, r = ub;
        for (int k = 0; k < 8 - sa; k++)
            l *= 10;
        for (int k = 0; k < 8 - sb; k++)
            r *= 10;
        uint8_t x[8], y[8];
        eng_put_be32(x, (uint32_t)sa);
        eng_put_be32(x + 4, (uint32_t)ua);
        eng_put_be32(y, (uint32_t)sb);
        eng_put_be32(y + 4, (uint32_t)ub);
        eng_type *t = T(ENG_DECIMAL);
        int c = eng_type_compare(t, x, 8, y, 8);
        eng_type_free(t);
        ASSERT_EQ(c < 0 ? -1 : c > 0, l < r ? -1 : l > r);
    }
}

TEST(test_compare_inet_raw_bytes_without_family_grouping)
{
    const char *v1 = "00000000000000000000000000000001"; /* ::1 */
    ASSERT_EQ(cmp_kind(ENG_INET, v1, "0a000001"), -1);
    ASSERT_EQ(cmp_kind(ENG_INET, "0a000001", "7f000001"), -1);
    ASSERT_EQ(cmp_kind(ENG_INET, "7f000001", "fe800000000000000000000000000001"), -1);
    /* a 4-byte value equal to the first 4 bytes of a 16-byte one sorts first */
    ASSERT_EQ(cmp_kind(ENG_INET, "0a000001", "0a000001000000000000000000000000"), -1);
}

TEST(test_compare_tuple_null_component_sorts_first)
{
    eng_type *c[2] = {T(ENG_INT), T(ENG_INT)};
    eng_type *t = eng_type_new_tuple(c, 2);
    ASSERT_EQ(cmp_type(t, "ffffffff 00000004 00000001", "00000004 80000000 00000004 00000000"), -1);
    ASSERT_EQ(cmp_type(t, "00000004 00000001 ffffffff", "00000004 00000001 00000004 80000000"), -1);
    ASSERT_EQ(cmp_type(t, "ffffffff ffffffff", "ffffffff ffffffff"), 0);
    ASSERT_EQ(cmp_type(t, "00000004 00000002", "00000004 00000001 00000004 00000009"), 1);
    eng_type_free(t);
}

TEST(test_compare_tuple_missing_trailing_components_equal_trailing_nulls)
{
    eng_type *c[3] = {T(ENG_INT), T(ENG_INT), T(ENG_INT)};
    eng_type *t = eng_type_new_tuple(c, 3);
    ASSERT_EQ(cmp_type(t, "00000004 00000001", "00000004 00000001 ffffffff ffffffff"), 0);
    ASSERT_EQ(cmp_type(t, "00000004 00000001", "00000004 00000001 ffffffff 00000004 00000000"), -1);
    eng_type_free(t);
    eng_type *u = address_udt(1);
    ASSERT_EQ(cmp_type(u, "00000001 61", "00000001 61 ffffffff"), 0);
    ASSERT_EQ(cmp_type(u, "00000001 61", "00000001 61 00000004 80000000"), -1);
    eng_type_free(u);
}

TEST(test_compare_frozen_list_and_set_elementwise_shorter_first)
{
    eng_type *l = eng_type_new_list(T(ENG_INT), 1);
    ASSERT_EQ(cmp_type(l, "00000002 00000004 00000001 00000004 00000002",
                       "00000002 00000004 00000001 00000004 00000003"),
              -1);
    ASSERT_EQ(
        cmp_type(l, "00000001 00000004 00000001", "00000002 00000004 00000001 00000004 80000000"),
        -1);
    ASSERT_EQ(
        cmp_type(l, "00000001 00000004 00000002", "00000002 00000004 00000001 00000004 00000005"),
        1);
    ASSERT_EQ(cmp_type(l, "00000000", "00000001 00000004 80000000"), -1);
    /* elements use their own comparator: -1 < 1 as int, not as bytes */
    ASSERT_EQ(cmp_type(l, "00000001 00000004 ffffffff", "00000001 00000004 00000001"), -1);
    eng_type_free(l);
    eng_type *s = eng_type_new_set(T(ENG_TEXT), 1);
    ASSERT_EQ(cmp_type(s, "00000001 00000001 62", "00000002 00000001 61 00000001 7a"), 1);
    eng_type_free(s);
}

TEST(test_compare_frozen_map_key_then_value_then_size)
{
    eng_type *m = eng_type_new_map(T(ENG_INT), T(ENG_INT), 1);
    ASSERT_EQ(cmp_type(m, "00000001 00000004 00000001 00000004 00000002",
                       "00000001 00000004 00000001 00000004 00000003"),
              -1);
    ASSERT_EQ(cmp_type(m, "00000001 00000004 00000001 00000004 00000005",
                       "00000001 00000004 00000002 00000004 00000000"),
              -1);
    ASSERT_EQ(cmp_type(m, "00000001 00000004 00000001 00000004 00000005",
                       "00000002 00000004 00000001 00000004 00000005 00000004 00000002 00000004 "
                       "00000000"),
              -1);
    eng_type_free(m);
}

/* ---- canonical form (facts §2.3) ---- */

static void check_canon(const eng_type *t, const char *in, const char *want)
{
    hexval x = H(in), w = H(want);
    eng_buf out = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_type_canonicalize(t, x.b, x.n, &out, &err), &err);
    ASSERT_EQ(out.len, w.n);
    ASSERT_MEM_EQ(out.p, w.b, w.n);
    eng_buf_free(&out);
}

TEST(test_canonicalize_set_sorts_and_drops_duplicates)
{
    eng_type *s = eng_type_new_set(T(ENG_INT), 1);
    check_canon(s,
                "00000004 00000004 00000003 00000004 ffffffff 00000004 00000003 00000004 00000002",
                "00000003 00000004 ffffffff 00000004 00000002 00000004 00000003");
    check_canon(s, "00000000", "00000000");
    check_canon(s, "", "");
    eng_type_free(s);
}

TEST(test_canonicalize_set_keeps_first_of_comparator_equal_elements)
{
    /* decimal 1.00 and 1.0 are one element (TreeSet keeps the one already present) */
    eng_type *s = eng_type_new_set(T(ENG_DECIMAL), 1);
    check_canon(s, "00000002 00000005 00000002 64 00000005 00000001 0a",
                "00000001 00000005 00000002 64");
    eng_type_free(s);
}

TEST(test_canonicalize_map_sorts_by_key_last_value_wins)
{
    eng_type *m = eng_type_new_map(T(ENG_TEXT), T(ENG_INT), 0);
    /* {'b': 1, 'a': 2, 'b': 3} -> {'a': 2, 'b': 3} */
    check_canon(m,
                "00000003 00000001 62 00000004 00000001 00000001 61 00000004 00000002 "
                "00000001 62 00000004 00000003",
                "00000002 00000001 61 00000004 00000002 00000001 62 00000004 00000003");
    eng_type_free(m);
}

TEST(test_canonicalize_recurses_into_lists_tuples_and_map_values)
{
    /* list<frozen<set<int>>>: the list keeps its order, each set is sorted */
    eng_type *l = eng_type_new_list(eng_type_new_set(T(ENG_INT), 1), 0);
    check_canon(l,
                "00000002 00000014 00000002 00000004 00000002 00000004 00000001 "
                "0000000c 00000001 00000004 00000000",
                "00000002 00000014 00000002 00000004 00000001 00000004 00000002 "
                "0000000c 00000001 00000004 00000000");
    eng_type_free(l);
    /* tuple<int, frozen<set<text>>> with a null first component */
    eng_type *c[2] = {T(ENG_INT), eng_type_new_set(T(ENG_TEXT), 1)};
    eng_type *t = eng_type_new_tuple(c, 2);
    check_canon(t, "ffffffff 0000000e 00000002 00000001 7a 00000001 61",
                "ffffffff 0000000e 00000002 00000001 61 00000001 7a");
    eng_type_free(t);
    /* set<frozen<set<int>>>: inner sets canonicalized before the outer sort and dedup */
    eng_type *ss = eng_type_new_set(eng_type_new_set(T(ENG_INT), 1), 1);
    check_canon(ss,
                "00000002 00000014 00000002 00000004 00000002 00000004 00000001 "
                "00000014 00000002 00000004 00000001 00000004 00000002",
                "00000001 00000014 00000002 00000004 00000001 00000004 00000002");
    eng_type_free(ss);
}

TEST(test_canonicalize_copies_values_without_sets_or_maps)
{
    eng_type *l = eng_type_new_list(T(ENG_INT), 0);
    check_canon(l, "00000002 00000004 00000002 00000004 00000001",
                "00000002 00000004 00000002 00000004 00000001");
    eng_type_free(l);
    eng_type *v = T(ENG_VARINT);
    check_canon(v, "0001", "0001"); /* canonical form is for collections, not number encodings */
    eng_type_free(v);
}

TEST(test_canonicalize_reports_malformed_input)
{
    eng_type *s = eng_type_new_set(T(ENG_INT), 1);
    hexval x = H("00000002 00000004 00000001");
    eng_buf out = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    ASSERT(eng_type_canonicalize(s, x.b, x.n, &out, &err) != 0);
    ASSERT_EQ(err.code, ENG_E_INVALID);
    eng_buf_free(&out);
    eng_type_free(s);
}

TEST(test_canonicalize_survives_allocation_failures)
{
    eng_type *m = eng_type_new_map(T(ENG_TEXT), eng_type_new_set(T(ENG_INT), 1), 0);
    hexval x = H("00000002 00000001 62 0000000c 00000001 00000004 00000001 "
                 "00000001 61 00000014 00000002 00000004 00000002 00000004 00000001");
    for (long n = 0; n < 16; n++) {
        eng_buf out = ENG_BUF_INIT;
        eng_err err;
        eng_err_clear(&err);
        eng_alloc_fail_after(n);
        int rc = eng_type_canonicalize(m, x.b, x.n, &out, &err);
        eng_alloc_fail_after(-1);
        ASSERT(rc == 0 || rc == ENG_E_NOMEM);
        eng_buf_free(&out);
    }
    eng_type_free(m);
}

/* ---- robustness: any bytes in, no crash; valid values keep their invariants ---- */

static const int scalar_kinds[] = {
    ENG_ASCII, ENG_BIGINT,    ENG_BLOB,     ENG_BOOLEAN, ENG_DECIMAL, ENG_DOUBLE,   ENG_FLOAT,
    ENG_INT,   ENG_TIMESTAMP, ENG_UUID,     ENG_TEXT,    ENG_VARINT,  ENG_TIMEUUID, ENG_INET,
    ENG_DATE,  ENG_TIME,      ENG_SMALLINT, ENG_TINYINT, ENG_DURATION};

static eng_type *random_type(uint64_t *st, int depth)
{
    uint64_t r = test_rand(st) % (depth > 2 ? 1 : 8);
    if (r == 0 || r > 4)
        return T(scalar_kinds[test_rand(st) % ENG_ARRAY_LEN(scalar_kinds)]);
    if (r == 1)
        return eng_type_new_list(random_type(st, depth + 1), 1);
    if (r == 2)
        return eng_type_new_set(random_type(st, depth + 1), 1);
    if (r == 3)
        return eng_type_new_map(random_type(st, depth + 1), random_type(st, depth + 1), 1);
    int n = 1 + (int)(test_rand(st) % 3);
    eng_type *c[3];
    for (int i = 0; i < n; i++)
        c[i] = random_type(st, depth + 1);
    return eng_type_new_tuple(c, n);
}

/* Appends a value that is usually valid for t. */
static void random_value(uint64_t *st, const eng_type *t, eng_buf *b)
{
    static const int sizes[] = {
        [ENG_BIGINT] = 8, [ENG_BOOLEAN] = 1,   [ENG_DOUBLE] = 8, [ENG_FLOAT] = 4,
        [ENG_INT] = 4,    [ENG_TIMESTAMP] = 8, [ENG_UUID] = 16,  [ENG_TIMEUUID] = 16,
        [ENG_INET] = 4,   [ENG_DATE] = 4,      [ENG_TIME] = 8,   [ENG_SMALLINT] = 2,
        [ENG_TINYINT] = 1};
    size_t n = t->kind < (int)ENG_ARRAY_LEN(sizes) ? (size_t)sizes[t->kind] : 0;
    if (t->kind == ENG_LIST || t->kind == ENG_SET || t->kind == ENG_MAP) {
        uint32_t k = (uint32_t)(test_rand(st) % 4);
        eng_buf_put_be32(b, k);
        for (uint32_t i = 0; i < k * (t->kind == ENG_MAP ? 2 : 1); i++) {
            size_t at = b->len;
            eng_buf_put_be32(b, 0);
            random_value(st, t->sub[t->kind == ENG_MAP ? i % 2 : 0], b);
            eng_put_be32(b->p + at, (uint32_t)(b->len - at - 4));
        }
    } else if (t->kind == ENG_TUPLE) {
        for (int i = 0; i < t->n_sub; i++) {
            size_t at = b->len;
            eng_buf_put_be32(b, 0);
            if (test_rand(st) % 5 == 0) {
                eng_put_be32(b->p + at, (uint32_t)-1);
                continue;
            }
            random_value(st, t->sub[i], b);
            eng_put_be32(b->p + at, (uint32_t)(b->len - at - 4));
        }
    } else if (t->kind == ENG_DURATION) {
        int64_t s = test_rand(st) % 2 ? 1 : -1;
        eng_buf_put_vint(b, s * (int64_t)(test_rand(st) % 100));
        eng_buf_put_vint(b, s * (int64_t)(test_rand(st) % 100));
        eng_buf_put_vint(b, s * (int64_t)(test_rand(st) >> 20));
    } else {
        if (!n)
            n = test_rand(st) % 6 + (t->kind == ENG_DECIMAL ? 4 : 0);
        for (size_t i = 0; i < n; i++) {
            uint8_t c = (uint8_t)test_rand(st);
            if (t->kind == ENG_ASCII || t->kind == ENG_TEXT)
                c &= 0x7F;
            if (t->kind == ENG_TIMEUUID && i == 6)
                c = (uint8_t)(0x10 | (c & 15));
            if (t->kind == ENG_TIME && i < 3)
                c = 0;
            eng_buf_put_u8(b, c);
        }
    }
}

TEST(test_random_values_keep_validate_canonicalize_compare_invariants)
{
    uint64_t st = test_seed();
    for (int round = 0; round < 3000; round++) {
        eng_type *t = random_type(&st, 0);
        eng_buf v = ENG_BUF_INIT, c = ENG_BUF_INIT, c2 = ENG_BUF_INIT, r = ENG_BUF_INIT;
        random_value(&st, t, &v);
        eng_err err;
        eng_err_clear(&err);
        const uint8_t *p = v.p ? v.p : (const uint8_t *)"";
        if (eng_type_validate(t, p, v.len, &err) == 0) {
            ASSERT_OK_ERR(eng_type_canonicalize(t, p, v.len, &c, &err), &err);
            const uint8_t *cp = c.p ? c.p : (const uint8_t *)"";
            ASSERT_OK_ERR(eng_type_validate(t, cp, c.len, &err), &err);
            ASSERT_EQ(eng_type_compare(t, cp, c.len, cp, c.len), 0);
            ASSERT_OK_ERR(eng_type_canonicalize(t, cp, c.len, &c2, &err), &err);
            ASSERT_EQ(c2.len, c.len); /* idempotent */
            ASSERT(c.len == 0 || memcmp(c.p, c2.p, c.len) == 0);
            eng_err_clear(&err);
            int trc = eng_text_to_string(t, cp, c.len, &r, &err); /* collections: refused */
            ASSERT(trc == 0 || trc == ENG_E_INVALID);
        } else {
            ASSERT_EQ(err.code, ENG_E_INVALID);
        }
        eng_buf_free(&v);
        eng_buf_free(&c);
        eng_buf_free(&c2);
        eng_buf_free(&r);
        eng_type_free(t);
    }
}

TEST(test_garbage_and_truncated_values_never_crash)
{
    uint64_t st = test_seed();
    for (int round = 0; round < 2000; round++) {
        eng_type *t = random_type(&st, 0);
        eng_buf v = ENG_BUF_INIT;
        random_value(&st, t, &v);
        /* flip a byte now and then, then try every prefix in an exact-size copy */
        if (v.len && test_rand(&st) % 2)
            v.p[test_rand(&st) % v.len] ^= (uint8_t)test_rand(&st);
        for (size_t n = 0; n <= v.len; n++) {
            uint8_t *copy = eng_memdup(v.p ? v.p : (const uint8_t *)"", n ? n : 1);
            eng_buf out = ENG_BUF_INIT;
            eng_err err;
            eng_err_clear(&err);
            if (eng_type_validate(t, copy, n, &err) == 0)
                ASSERT_OK_ERR(eng_type_canonicalize(t, copy, n, &out, &err), &err);
            eng_buf_reset(&out);
            eng_type_canonicalize(t, copy, n, &out, &err); /* may refuse, must not crash */
            eng_buf_reset(&out);
            eng_err_clear(&err);
            (void)eng_text_to_string(t, copy, n, &out, &err); /* may refuse, must not crash */
            (void)eng_type_compare(t, copy, n, v.p ? v.p : copy, v.len);
            eng_buf_free(&out);
            eng_free(copy);
        }
        eng_buf_free(&v);
        eng_type_free(t);
    }
}

TEST(test_canonical_sets_are_strictly_increasing)
{
    uint64_t st = test_seed();
    for (int round = 0; round < 2000; round++) {
        eng_type *t = eng_type_new_set(random_type(&st, 1), 1);
        eng_buf v = ENG_BUF_INIT, c = ENG_BUF_INIT;
        random_value(&st, t, &v);
        eng_err err;
        eng_err_clear(&err);
        if (eng_type_validate(t, v.p, v.len, &err) == 0) {
            ASSERT_OK_ERR(eng_type_canonicalize(t, v.p, v.len, &c, &err), &err);
            eng_items it;
            eng_val prev = {NULL, ENG_NULL}, e;
            eng_items_begin(&it, c.p, c.len);
            while (eng_items_next(&it, &e) == 1) {
                if (prev.len >= 0)
                    ASSERT(eng_type_compare(t->sub[0], prev.p, (size_t)prev.len, e.p,
                                            (size_t)e.len) < 0);
                prev = e;
            }
        }
        eng_buf_free(&v);
        eng_buf_free(&c);
        eng_type_free(t);
    }
}
