/*
 * CQL types: the descriptor trees every other layer holds, and everything the
 * engine knows about a value of a type — whether native-protocol bytes are a
 * valid value (Cassandra's serializers' validate, facts §2.2/§2.3), how two
 * values order (Cassandra's AbstractType comparators, facts §3) and the
 * canonical stored form of sets and maps. The text forms are text.c's (the
 * helpers the two files share are in types_int.h); how cqlsh prints a value
 * is the shell's.
 *
 * Guarantees: every function that reads value bytes tolerates any input
 * (truncated, garbage, hostile lengths) without reading out of bounds;
 * validation reports Cassandra's MarshalException text; descriptors are
 * immutable once built and safe to share between threads; allocation failure
 * is reported (NULL, ENG_E_NOMEM or the buffer's oom flag), never fatal.
 */
#include "engine/value/types_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Descriptors                                                               */
/* ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    uint16_t kind;
} scalar_names[] = {
    {"ascii", ENG_ASCII},         {"bigint", ENG_BIGINT},     {"blob", ENG_BLOB},
    {"boolean", ENG_BOOLEAN},     {"counter", ENG_COUNTER},   {"date", ENG_DATE},
    {"decimal", ENG_DECIMAL},     {"double", ENG_DOUBLE},     {"duration", ENG_DURATION},
    {"float", ENG_FLOAT},         {"inet", ENG_INET},         {"int", ENG_INT},
    {"smallint", ENG_SMALLINT},   {"text", ENG_TEXT},         {"time", ENG_TIME},
    {"timestamp", ENG_TIMESTAMP}, {"timeuuid", ENG_TIMEUUID}, {"tinyint", ENG_TINYINT},
    {"uuid", ENG_UUID},           {"varchar", ENG_TEXT},      {"varint", ENG_VARINT},
};

const char *eng_kind_name(int kind)
{
    /* "text" comes before "varchar" in the table, so the alias never wins here. */
    for (size_t i = 0; i < ENG_ARRAY_LEN(scalar_names); i++)
        if (scalar_names[i].kind == kind)
            return scalar_names[i].name;
    return NULL;
}

int eng_kind_from_name(const char *name, size_t len)
{
    for (size_t i = 0; i < ENG_ARRAY_LEN(scalar_names); i++) {
        const char *n = scalar_names[i].name;
        if (strlen(n) != len)
            continue;
        size_t j = 0;
        while (j < len) {
            char c = name[j];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (c != n[j])
                break;
            j++;
        }
        if (j == len)
            return scalar_names[i].kind;
    }
    return -1;
}

static uint64_t kind_bit(int kind)
{
    return kind >= 0 && kind < 64 ? (uint64_t)1 << kind : 0;
}

static eng_type *type_alloc(int kind, int frozen, int n_sub)
{
    eng_type *t = eng_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = (uint16_t)kind;
    t->frozen = frozen ? 1 : 0;
    t->n_sub = (uint16_t)n_sub;
    t->levels = 1;
    t->tree_size = 1;
    t->kinds = kind_bit(kind);
    if (n_sub > 0) {
        t->sub = eng_calloc((size_t)n_sub, sizeof *t->sub);
        if (!t->sub) {
            eng_free(t);
            return NULL;
        }
    }
    return t;
}

/*
 * The constructors keep levels, tree_size and kinds in every descriptor they
 * make; a descriptor made by hand (a static scalar, a view over another's
 * children) has them zero, and they are counted from its children.
 */
uint32_t eng_type_depth(const eng_type *t)
{
    if (!t)
        return 0;
    if (t->levels)
        return t->levels;
    uint32_t deepest = 0;
    for (int i = 0; t->sub && i < t->n_sub; i++)
        if (eng_type_depth(t->sub[i]) > deepest)
            deepest = eng_type_depth(t->sub[i]);
    return deepest < UINT32_MAX ? deepest + 1 : deepest;
}

uint32_t eng_type_tree_size(const eng_type *t)
{
    if (!t)
        return 0;
    if (t->tree_size)
        return t->tree_size;
    uint64_t size = 1;
    for (int i = 0; t->sub && i < t->n_sub; i++)
        size += eng_type_tree_size(t->sub[i]);
    return size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
}

/* The kinds in t, as a mask of kind_bit. */
static uint64_t kinds_of(const eng_type *t)
{
    if (t->kinds)
        return t->kinds;
    uint64_t kinds = kind_bit(t->kind);
    for (int i = 0; t->sub && i < t->n_sub; i++)
        if (t->sub[i])
            kinds |= kinds_of(t->sub[i]);
    return kinds;
}

/* Once t's children are in place, what the accessors above report for it: one level more than
   the deepest child, the children's sizes plus one, and the kinds in any of them. */
static void measure(eng_type *t)
{
    uint32_t deepest = 0;
    uint64_t size = 1;
    t->kinds = kind_bit(t->kind);
    for (int i = 0; t->sub && i < t->n_sub; i++) {
        if (t->sub[i])
            t->kinds |= kinds_of(t->sub[i]);
        if (eng_type_depth(t->sub[i]) > deepest)
            deepest = eng_type_depth(t->sub[i]);
        size += eng_type_tree_size(t->sub[i]);
        if (size > UINT32_MAX)
            size = UINT32_MAX;
    }
    t->levels = deepest < UINT32_MAX ? deepest + 1 : deepest;
    t->tree_size = (uint32_t)size;
}

/*
 * Drops one reference: 1 when it was the last, so the caller frees the node.
 * A plain load suffices when no other reference exists (no one could add one
 * without holding one); acquire, so every use through a reference dropped
 * elsewhere happens before the free.
 */
static int last_reference(eng_type *t)
{
    if (atomic_load_explicit(&t->shares, memory_order_acquire) == 0)
        return 1;
    return atomic_fetch_sub_explicit(&t->shares, 1, memory_order_acq_rel) == 0;
}

/*
 * Iterative along the last child and the base, so freeing a long chain of
 * nested user types (each one's last field the next) does not take a stack
 * frame per level.
 */
void eng_type_free(eng_type *t)
{
    while (t && last_reference(t)) {
        eng_type *next = t->base;
        if (!next) {
            for (int i = 0; i < t->n_sub; i++) {
                if (t->fields)
                    eng_free(t->fields[i]);
                if (!t->sub)
                    continue;
                if (i + 1 < t->n_sub)
                    eng_type_free(t->sub[i]);
                else
                    next = t->sub[i];
            }
            eng_free(t->sub);
            eng_free(t->fields);
            eng_free(t->ks);
            eng_free(t->name);
        }
        eng_free(t);
        t = next;
    }
}

eng_type *eng_type_ref(const eng_type *t)
{
    eng_type *m = (eng_type *)t; /* descriptors are immutable; only the count changes */
    if (m)
        atomic_fetch_add_explicit(&m->shares, 1, memory_order_relaxed);
    return m;
}

/* The scalar kinds are exactly those with a CQL name. */
static int is_scalar_kind(int kind)
{
    return eng_kind_name(kind) != NULL;
}

eng_type *eng_type_new(int kind)
{
    if (!is_scalar_kind(kind))
        return NULL;
    return type_alloc(kind, 0, 0);
}

/*
 * Cassandra freezes every collection or UDT nested in another type (a nested
 * type is never multi-cell), so children are marked frozen on the way in. A
 * child someone else also holds is not changed: it is replaced by a copy of
 * its top node. Takes the caller's reference on c; NULL when out of memory.
 */
static eng_type *freeze_child(eng_type *c)
{
    if (!c || c->frozen ||
        !(c->kind == ENG_LIST || c->kind == ENG_SET || c->kind == ENG_MAP ||
          c->kind == ENG_UDT || c->kind == ENG_TUPLE))
        return c;
    if (atomic_load_explicit(&c->shares, memory_order_acquire) != 0) {
        eng_type *own = eng_type_dup(c);
        eng_type_free(c);
        if (!own)
            return NULL;
        c = own;
    }
    c->frozen = 1;
    return c;
}

static eng_type *new_collection(int kind, eng_type *a, eng_type *b, int frozen)
{
    int n = kind == ENG_MAP ? 2 : 1;
    a = freeze_child(a);
    if (n == 2)
        b = freeze_child(b);
    eng_type *t = (a && (n == 1 || b)) ? type_alloc(kind, frozen, n) : NULL;
    if (!t) {
        eng_type_free(a);
        eng_type_free(b);
        return NULL;
    }
    t->sub[0] = a;
    if (n == 2)
        t->sub[1] = b;
    measure(t);
    return t;
}

eng_type *eng_type_new_list(eng_type *elem, int frozen)
{
    return new_collection(ENG_LIST, elem, NULL, frozen);
}

eng_type *eng_type_new_set(eng_type *elem, int frozen)
{
    return new_collection(ENG_SET, elem, NULL, frozen);
}

eng_type *eng_type_new_map(eng_type *key, eng_type *value, int frozen)
{
    return new_collection(ENG_MAP, key, value, frozen);
}

static void free_types(eng_type **types, int n)
{
    for (int i = 0; types && i < n; i++)
        eng_type_free(types[i]);
}

static int any_null_type(eng_type **types, int n)
{
    for (int i = 0; i < n; i++)
        if (!types[i])
            return 1;
    return 0;
}

eng_type *eng_type_new_tuple(eng_type **comps, int n)
{
    eng_type *t = NULL;
    int ok = n >= 0 && n <= UINT16_MAX && (n == 0 || comps);
    for (int i = 0; ok && i < n; i++)
        comps[i] = freeze_child(comps[i]);
    if (ok && !any_null_type(comps, n))
        t = type_alloc(ENG_TUPLE, 1, n);
    if (!t) {
        free_types(comps, n);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        t->sub[i] = comps[i];
    measure(t);
    return t;
}

static void free_names(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        eng_free(names[i]);
}

eng_type *eng_type_new_udt(const char *ks, const char *name, char **names, eng_type **types, int n,
                           int frozen)
{
    eng_type *t = NULL;
    int ok = n >= 0 && n <= UINT16_MAX && ks && name;
    for (int i = 0; ok && i < n; i++)
        ok = names && types && names[i] && types[i];
    if (ok)
        t = type_alloc(ENG_UDT, frozen, n);
    if (t) {
        t->ks = eng_strdup(ks);
        t->name = eng_strdup(name);
        if (n > 0)
            t->fields = eng_calloc((size_t)n, sizeof *t->fields);
    }
    if (!t || !t->ks || !t->name || (n > 0 && !t->fields)) {
        eng_type_free(t); /* its sub/fields are still empty: nothing taken yet */
        free_types(types, n);
        free_names(names, n);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        /* UDT fields keep their declared frozenness: a field declared list<int> prints so in
         * system_schema.types; Cassandra freezes it only where the UDT itself is frozen. */
        t->sub[i] = types[i];
        t->fields[i] = names[i];
    }
    measure(t);
    return t;
}

eng_type *eng_type_new_custom(const char *class_name)
{
    if (!class_name)
        return NULL;
    eng_type *t = type_alloc(ENG_CUSTOM, 0, 0);
    if (t && !(t->name = eng_strdup(class_name))) {
        eng_free(t);
        t = NULL;
    }
    return t;
}

/* A scalar's node holds nothing to share: it is copied, so a static scalar can be dup'd too. */
eng_type *eng_type_dup(const eng_type *t)
{
    if (!t)
        return NULL;
    eng_type *d = type_alloc(t->kind, t->frozen, 0);
    if (!d)
        return NULL;
    const eng_type *body = t->base ? t->base : t;
    d->n_sub = body->n_sub;
    d->levels = eng_type_depth(body);
    d->tree_size = eng_type_tree_size(body);
    d->kinds = kinds_of(body);
    if (body->sub || body->fields || body->ks || body->name) {
        d->base = eng_type_ref(body);
        d->sub = body->sub;
        d->fields = body->fields;
        d->ks = body->ks;
        d->name = body->name;
    }
    return d;
}

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

int eng_type_equal(const eng_type *a, const eng_type *b)
{
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    if (a->kind != b->kind || a->frozen != b->frozen || a->n_sub != b->n_sub)
        return 0;
    if ((a->base ? a->base : a) == (b->base ? b->base : b))
        return 1; /* one body, shared */
    if (!str_eq(a->ks, b->ks) || !str_eq(a->name, b->name))
        return 0;
    for (int i = 0; i < a->n_sub; i++) {
        if (!eng_type_equal(a->sub[i], b->sub[i]))
            return 0;
        if ((a->fields != NULL) != (b->fields != NULL))
            return 0;
        if (a->fields && !str_eq(a->fields[i], b->fields[i]))
            return 0;
    }
    return 1;
}

int eng_type_is_collection(const eng_type *t)
{
    return t && (t->kind == ENG_LIST || t->kind == ENG_SET || t->kind == ENG_MAP);
}

int eng_type_is_multicell(const eng_type *t)
{
    return t && !t->frozen && (eng_type_is_collection(t) || t->kind == ENG_UDT);
}

int eng_type_is_counter(const eng_type *t)
{
    return t && t->kind == ENG_COUNTER;
}

int eng_type_contains_kind(const eng_type *t, int kind)
{
    if (!t)
        return 0;
    if (t->kind == kind)
        return 1;
    if (kind_bit(kind))
        return (kinds_of(t) & kind_bit(kind)) != 0;
    for (int i = 0; i < t->n_sub; i++)
        if (eng_type_contains_kind(t->sub[i], kind))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* CQL text of a type                                                        */
/* ------------------------------------------------------------------------ */

/* Cassandra 4.x reserved keywords (cql3/ReservedKeywords): such names must be quoted. */
static const char *const reserved_words[] = {
    "add",      "allow",    "alter",        "and",          "apply",  "asc",         "authorize",
    "batch",    "begin",    "by",           "columnfamily", "create", "delete",      "desc",
    "describe", "drop",     "entries",      "execute",      "from",   "full",        "grant",
    "if",       "in",       "index",        "infinity",     "insert", "into",        "is",
    "keyspace", "limit",    "materialized", "modify",       "nan",    "norecursive", "not",
    "null",     "of",       "on",           "or",           "order",  "primary",     "rename",
    "revoke",   "schema",   "select",       "set",          "table",  "to",          "token",
    "truncate", "unlogged", "update",       "use",          "using",  "view",        "where",
    "with",
};

static int is_reserved_word(const char *s)
{
    char low[16];
    size_t n = strlen(s);
    if (n >= sizeof low)
        return 0;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] - 'A' + 'a' : s[i]);
    for (size_t i = 0; i < ENG_ARRAY_LEN(reserved_words); i++)
        if (strcmp(low, reserved_words[i]) == 0)
            return 1;
    return 0;
}

static int is_plain_identifier(const char *s)
{
    if (!(s[0] >= 'a' && s[0] <= 'z'))
        return 0;
    for (const char *c = s + 1; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return !is_reserved_word(s);
}

/*
 * Cassandra's ColumnIdentifier.maybeQuote: a name that lexes back to itself
 * unquoted ([a-z][a-z0-9_]*, not a reserved keyword) is written bare, any
 * other is double-quoted with embedded double quotes doubled.
 */
void eng_type_put_ident(eng_buf *out, const char *s)
{
    if (is_plain_identifier(s)) {
        eng_buf_put_str(out, s);
        return;
    }
    eng_buf_put_u8(out, '"');
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            eng_buf_put_u8(out, '"');
        eng_buf_put_u8(out, (uint8_t)*c);
    }
    eng_buf_put_u8(out, '"');
}

static void type_to_cql(const eng_type *t, eng_buf *out, int nested);

static void subs_to_cql(const eng_type *t, eng_buf *out)
{
    for (int i = 0; i < t->n_sub; i++) {
        if (i)
            eng_buf_put_str(out, ", ");
        type_to_cql(t->sub[i], out, 1);
    }
}

/*
 * Mirrors CQL3Type.toString: a frozen (non multi-cell) collection or UDT is
 * wrapped in frozen<>, and so is every tuple (Tuple.toString always adds it).
 * A collection or UDT nested in another type is never multi-cell in
 * Cassandra, so it is written frozen whatever its flag says.
 */
static void type_to_cql(const eng_type *t, eng_buf *out, int nested)
{
    if (!t)
        return;
    int frozen = t->frozen || nested || t->kind == ENG_TUPLE;
    switch (t->kind) {
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
    case ENG_TUPLE:
        if (frozen)
            eng_buf_put_str(out, "frozen<");
        eng_buf_put_str(out, t->kind == ENG_LIST  ? "list<"
                             : t->kind == ENG_SET ? "set<"
                             : t->kind == ENG_MAP ? "map<"
                                                  : "tuple<");
        subs_to_cql(t, out);
        eng_buf_put_str(out, frozen ? ">>" : ">");
        break;
    case ENG_UDT:
        if (frozen)
            eng_buf_put_str(out, "frozen<");
        eng_type_put_ident(out, t->name ? t->name : "");
        if (frozen)
            eng_buf_put_u8(out, '>');
        break;
    case ENG_CUSTOM:
        /* CQL3Type.Custom prints the class name as a string literal. */
        eng_buf_put_u8(out, '\'');
        eng_buf_put_str(out, t->name ? t->name : "");
        eng_buf_put_u8(out, '\'');
        break;
    default: {
        const char *n = eng_kind_name(t->kind);
        eng_buf_put_str(out, n ? n : "blob");
        break;
    }
    }
}

void eng_type_to_cql(const eng_type *t, eng_buf *out)
{
    type_to_cql(t, out, 0);
}

/* ------------------------------------------------------------------------ */
/* Persisted binary form                                                     */
/* ------------------------------------------------------------------------ */

static void put_str16(eng_buf *out, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > UINT16_MAX)
        n = UINT16_MAX;
    eng_buf_put_be16(out, (uint16_t)n);
    eng_buf_put(out, s, n);
}

void eng_type_serialize(const eng_type *t, eng_buf *out)
{
    eng_buf_put_be16(out, t->kind);
    eng_buf_put_u8(out, t->frozen);
    switch (t->kind) {
    case ENG_CUSTOM:
        put_str16(out, t->name);
        break;
    case ENG_LIST:
    case ENG_SET:
        eng_type_serialize(t->sub[0], out);
        break;
    case ENG_MAP:
        eng_type_serialize(t->sub[0], out);
        eng_type_serialize(t->sub[1], out);
        break;
    case ENG_TUPLE:
        eng_buf_put_be16(out, t->n_sub);
        for (int i = 0; i < t->n_sub; i++)
            eng_type_serialize(t->sub[i], out);
        break;
    case ENG_UDT:
        put_str16(out, t->ks);
        put_str16(out, t->name);
        break;
    default:
        break;
    }
}

typedef struct reader {
    const uint8_t *p, *end;
    eng_udt_resolver resolve;
    void *ctx;
    eng_err *err;
} reader;

static int rd_corrupt(reader *r, const char *what)
{
    eng_errorf(r->err, ENG_E_CORRUPT, "Corrupt stored type: %s", what);
    return ENG_E_CORRUPT;
}

static int rd_u16(reader *r, uint16_t *out)
{
    if (r->end - r->p < 2)
        return rd_corrupt(r, "truncated");
    *out = eng_be16(r->p);
    r->p += 2;
    return 0;
}

static int rd_str(reader *r, char **out)
{
    uint16_t n;
    if (rd_u16(r, &n))
        return ENG_E_CORRUPT;
    if (r->end - r->p < n)
        return rd_corrupt(r, "truncated");
    if (memchr(r->p, 0, n))
        return rd_corrupt(r, "NUL in name");
    *out = eng_strndup((const char *)r->p, n);
    if (!*out) {
        eng_errorf(r->err, ENG_E_NOMEM, "Out of memory");
        return ENG_E_NOMEM;
    }
    r->p += n;
    return 0;
}

static eng_type *rd_type(reader *r, int depth);

static int rd_children(reader *r, eng_type *t, int depth)
{
    for (int i = 0; i < t->n_sub; i++) {
        t->sub[i] = rd_type(r, depth + 1);
        if (!t->sub[i])
            return ENG_E_CORRUPT;
    }
    return 0;
}

static eng_type *rd_udt(reader *r, int frozen)
{
    char *ks = NULL, *name = NULL;
    eng_type *t = NULL;
    if (rd_str(r, &ks) || rd_str(r, &name))
        goto done;
    const eng_type *def = r->resolve ? r->resolve(r->ctx, ks, name) : NULL;
    if (!def || def->kind != ENG_UDT) {
        eng_errorf(r->err, ENG_E_CORRUPT, "Unknown type %s.%s", ks, name);
        goto done;
    }
    t = eng_type_dup(def);
    if (!t) {
        eng_errorf(r->err, ENG_E_NOMEM, "Out of memory");
        goto done;
    }
    t->frozen = (uint8_t)frozen;
done:
    eng_free(ks);
    eng_free(name);
    return t;
}

static eng_type *rd_type(reader *r, int depth)
{
    uint16_t kind;
    if (depth >= ENG_MAX_TYPE_DEPTH) {
        rd_corrupt(r, "nesting too deep");
        return NULL;
    }
    if (rd_u16(r, &kind))
        return NULL;
    if (r->p >= r->end) {
        rd_corrupt(r, "truncated");
        return NULL;
    }
    uint8_t frozen = *r->p++;
    if (frozen > 1) {
        rd_corrupt(r, "bad frozen flag");
        return NULL;
    }
    if (kind == ENG_UDT)
        return rd_udt(r, frozen);
    uint16_t n = 0;
    if (kind == ENG_LIST || kind == ENG_SET)
        n = 1;
    else if (kind == ENG_MAP)
        n = 2;
    else if (kind == ENG_TUPLE && rd_u16(r, &n))
        return NULL;
    else if (kind != ENG_TUPLE && kind != ENG_CUSTOM && !is_scalar_kind(kind)) {
        rd_corrupt(r, "unknown kind");
        return NULL;
    }
    eng_type *t = type_alloc(kind, frozen, n);
    if (!t) {
        eng_errorf(r->err, ENG_E_NOMEM, "Out of memory");
        return NULL;
    }
    if ((kind == ENG_CUSTOM && rd_str(r, &t->name)) || rd_children(r, t, depth)) {
        eng_type_free(t);
        return NULL;
    }
    measure(t);
    return t;
}

eng_type *eng_type_deserialize(const uint8_t **pp, const uint8_t *end, eng_udt_resolver resolve,
                               void *ctx, eng_err *err)
{
    reader r = {*pp, end, resolve, ctx, err};
    if (!r.p || r.p > end) {
        eng_errorf(err, ENG_E_CORRUPT, "Corrupt stored type: truncated");
        return NULL;
    }
    eng_type *t = rd_type(&r, 0);
    if (t)
        *pp = r.p;
    return t;
}

/* ------------------------------------------------------------------------ */
/* Collection framing                                                        */
/* ------------------------------------------------------------------------ */

int32_t eng_items_begin(eng_items *it, const uint8_t *p, size_t len)
{
    it->p = p;
    it->end = p ? p + len : p;
    if (!p || len < 4)
        return -1;
    int32_t n = (int32_t)eng_be32(p);
    it->p += 4;
    return n < 0 ? -1 : n;
}

void eng_items_begin_raw(eng_items *it, const uint8_t *p, size_t len)
{
    it->p = p;
    it->end = p ? p + len : p;
}

int eng_items_next(eng_items *it, eng_val *out)
{
    size_t left = (size_t)(it->end - it->p);
    if (left == 0)
        return 0;
    if (left < 4)
        return -1;
    int32_t n = (int32_t)eng_be32(it->p);
    if (n < 0) {
        it->p += 4;
        out->p = NULL;
        out->len = ENG_NULL;
        return 1;
    }
    if ((size_t)n > left - 4)
        return -1;
    out->p = it->p + 4;
    out->len = n;
    it->p += 4 + (size_t)n;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Arbitrary-precision magnitudes (varint, decimal)                          */
/* ------------------------------------------------------------------------ */

/*
 * Magnitudes are little-endian arrays of 32-bit limbs with no leading zero
 * limbs (n = 0 is zero). Callers size the arrays: eng_mag_limbs(len) limbs hold
 * the magnitude of any len-byte two's-complement value.
 */
size_t eng_mag_limbs(size_t nbytes)
{
    return nbytes / 4 + 2;
}

void eng_mag_trim(const uint32_t *m, size_t *n)
{
    while (*n && m[*n - 1] == 0)
        (*n)--;
}

/* Magnitude of a big-endian two's-complement integer; returns 1 if negative. */
int eng_mag_from_twos(const uint8_t *p, size_t len, uint32_t *m, size_t *n)
{
    int neg = len > 0 && (p[0] & 0x80);
    size_t nl = (len + 3) / 4;
    uint64_t carry = neg ? 1 : 0;
    for (size_t i = 0; i < nl; i++) {
        uint32_t limb = 0;
        for (size_t b = 0; b < 4; b++) {
            size_t k = i * 4 + b; /* byte k from the end */
            uint8_t byte = k < len ? p[len - 1 - k] : (neg ? 0xFF : 0);
            limb |= (uint32_t)byte << (8 * b);
        }
        if (neg) {
            uint64_t v = (uint64_t)(uint32_t)~limb + carry;
            limb = (uint32_t)v;
            carry = v >> 32;
        }
        m[i] = limb;
    }
    *n = nl;
    if (neg && carry)
        m[(*n)++] = (uint32_t)carry;
    eng_mag_trim(m, n);
    return neg;
}

static void mag_mul_small(uint32_t *m, size_t *n, uint32_t mul, uint32_t add)
{
    uint64_t carry = add;
    for (size_t i = 0; i < *n; i++) {
        uint64_t v = (uint64_t)m[i] * mul + carry;
        m[i] = (uint32_t)v;
        carry = v >> 32;
    }
    if (carry)
        m[(*n)++] = (uint32_t)carry;
}

static int mag_cmp(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    if (na != nb)
        return na < nb ? -1 : 1;
    for (size_t i = na; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static uint64_t mag_bitlen(const uint32_t *m, size_t n)
{
    if (!n)
        return 0;
    return (uint64_t)(n - 1) * 32 + (uint64_t)(32 - __builtin_clz(m[n - 1]));
}

/* ------------------------------------------------------------------------ */
/* Validation (facts §2.2, §2.3)                                             */
/* ------------------------------------------------------------------------ */

static int invalid(eng_err *err, const char *fmt, long long n)
{
    eng_errorf(err, ENG_E_INVALID, fmt, n);
    return ENG_E_INVALID;
}

static int invalid_msg(eng_err *err, const char *msg)
{
    eng_errorf(err, ENG_E_INVALID, "%s", msg);
    return ENG_E_INVALID;
}

/*
 * UTF8Serializer's validator, state for state (facts §2.2 notes): more
 * lenient than strict UTF-8. After E0 it only refuses 80..9F (any other byte
 * is taken as the second byte), after F0 it only refuses bytes whose bits
 * 0x30 are clear, lead bytes up to F7 are allowed and surrogates pass.
 */
enum utf8_state { U_START, U_TWO, U_TWO_80, U_E0, U_CONT1, U_CONT2, U_F0, U_CONT3 };

static int utf8_valid(const uint8_t *p, size_t len)
{
    enum utf8_state st = U_START;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = p[i];
        switch (st) {
        case U_START:
            if (b < 0x80)
                break;
            if ((b & 0xE0) == 0xC0) {
                if (b == 0xC0)
                    st = U_TWO_80; /* modified UTF-8 NUL: C0 80 only */
                else if ((b & 0x1E) == 0)
                    return 0;
                else
                    st = U_TWO;
            } else if ((b & 0xF0) == 0xE0) {
                st = b == 0xE0 ? U_E0 : U_CONT2;
            } else if ((b & 0xF8) == 0xF0) {
                st = b == 0xF0 ? U_F0 : U_CONT3;
            } else {
                return 0;
            }
            break;
        case U_TWO:
        case U_CONT1:
            if ((b & 0xC0) != 0x80)
                return 0;
            st = U_START;
            break;
        case U_TWO_80:
            if (b != 0x80)
                return 0;
            st = U_START;
            break;
        case U_E0:
            if ((b & 0xE0) == 0x80)
                return 0;
            st = U_CONT1;
            break;
        case U_CONT2:
        case U_CONT3:
            if ((b & 0xC0) != 0x80)
                return 0;
            st = st == U_CONT3 ? U_CONT2 : U_CONT1;
            break;
        case U_F0:
            if ((b & 0x30) == 0)
                return 0;
            st = U_CONT2;
            break;
        }
    }
    return st == U_START;
}

static int validate_duration(const uint8_t *p, size_t len, eng_err *err)
{
    if (len < 3)
        return invalid(err, "Expected at least 3 bytes for a duration (%lld)", (long long)len);
    int64_t v[3];
    size_t off = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = eng_get_vint(p + off, len - off, &v[i]);
        if (!n) /* Cassandra fails with an internal error here; we report it as invalid */
            return invalid(err, "Not enough bytes to read a duration (%lld)", (long long)len);
        off += n;
    }
    if (v[0] != (int32_t)v[0])
        return invalid(err, "The duration months must be a 32 bits integer but was: %lld",
                       (long long)v[0]);
    if (v[1] != (int32_t)v[1])
        return invalid(err, "The duration days must be a 32 bits integer but was: %lld",
                       (long long)v[1]);
    if (!((v[0] >= 0 && v[1] >= 0 && v[2] >= 0) || (v[0] <= 0 && v[1] <= 0 && v[2] <= 0))) {
        eng_errorf(err, ENG_E_INVALID,
                   "The duration months, days and nanoseconds must be all of the same sign "
                   "(%lld, %lld, %lld)",
                   (long long)v[0], (long long)v[1], (long long)v[2]);
        return ENG_E_INVALID;
    }
    return 0;
}

static int validate_inet(const uint8_t *p, size_t len, eng_err *err)
{
    if (len == 0 || len == 4 || len == 16)
        return 0;
    char hex[2 * 32 + 1];
    size_t shown = len > 32 ? 32 : len;
    eng_buf b = ENG_BUF_INIT;
    for (size_t i = 0; i < len; i++)
        eng_buf_printf(&b, "%02x", p[i]);
    const char *s = eng_buf_cstr(&b);
    if (!s) { /* out of memory: show a prefix rather than nothing */
        for (size_t i = 0; i < shown; i++)
            sprintf(hex + 2 * i, "%02x", p[i]);
        s = hex;
    }
    eng_errorf(err, ENG_E_INVALID, "Expected 4 or 16 byte inetaddress; got %s", s);
    eng_buf_free(&b);
    return ENG_E_INVALID;
}

static int validate_scalar(int kind, const uint8_t *p, size_t len, eng_err *err)
{
    long long n = (long long)len;
    switch (kind) {
    case ENG_ASCII:
        for (size_t i = 0; i < len; i++)
            if (p[i] > 127)
                return invalid(err, "Invalid byte for ascii: %lld", (long long)(int8_t)p[i]);
        return 0;
    case ENG_BIGINT:
    case ENG_COUNTER: /* CounterSerializer is a LongSerializer */
        return len == 8 || len == 0 ? 0 : invalid(err, "Expected 8 or 0 byte long (%lld)", n);
    case ENG_BOOLEAN:
        return len <= 1 ? 0 : invalid(err, "Expected 1 or 0 byte value (%lld)", n);
    case ENG_DECIMAL:
        return len == 0 || len >= 4 ? 0 : invalid(err, "Expected 0 or at least 4 bytes (%lld)", n);
    case ENG_DOUBLE:
        return len == 8 || len == 0
                   ? 0
                   : invalid(err, "Expected 8 or 0 byte value for a double (%lld)", n);
    case ENG_FLOAT:
        return len == 4 || len == 0
                   ? 0
                   : invalid(err, "Expected 4 or 0 byte value for a float (%lld)", n);
    case ENG_INT:
        return len == 4 || len == 0 ? 0 : invalid(err, "Expected 4 or 0 byte int (%lld)", n);
    case ENG_TIMESTAMP:
        return len == 8 || len == 0 ? 0
                                    : invalid(err, "Expected 8 or 0 byte long for date (%lld)", n);
    case ENG_UUID:
        return len == 16 || len == 0 ? 0 : invalid(err, "UUID should be 16 or 0 bytes (%lld)", n);
    case ENG_TIMEUUID:
        if (len != 16 && len != 0)
            return invalid(err, "UUID should be 16 or 0 bytes (%lld)", n);
        if (len == 16 && (p[6] & 0xF0) != 0x10)
            return invalid_msg(err, "Invalid version for TimeUUID type.");
        return 0;
    case ENG_TEXT:
        return utf8_valid(p, len) ? 0 : invalid_msg(err, "String didn't validate.");
    case ENG_INET:
        return validate_inet(p, len, err);
    case ENG_DATE:
        return len == 4 ? 0 : invalid(err, "Expected 4 byte long for date (%lld)", n);
    case ENG_TIME:
        return len == 8 ? 0 : invalid(err, "Expected 8 byte long for time (%lld)", n);
    case ENG_SMALLINT:
        return len == 2 ? 0 : invalid(err, "Expected 2 bytes for a smallint (%lld)", n);
    case ENG_TINYINT:
        return len == 1 ? 0 : invalid(err, "Expected 1 byte for a tinyint (%lld)", n);
    case ENG_DURATION:
        return validate_duration(p, len, err);
    default: /* blob, varint, custom: any bytes */
        return 0;
    }
}

static const char *collection_noun(int kind)
{
    return kind == ENG_LIST ? "list" : kind == ENG_SET ? "set" : "map";
}

/*
 * List/Set/MapSerializer.validate: an empty set or map value is valid, an
 * empty list is not (ListSerializer has no such shortcut); every framing
 * fault is "Not enough bytes to read a <kind>", and leftovers are refused.
 */
static int validate_collection(const eng_type *t, const uint8_t *p, size_t len, eng_err *err)
{
    const char *noun = collection_noun(t->kind);
    if (len == 0 && t->kind != ENG_LIST)
        return 0;
    if (len < 4) {
        eng_errorf(err, ENG_E_INVALID, "Not enough bytes to read a %s", noun);
        return ENG_E_INVALID;
    }
    int32_t n = (int32_t)eng_be32(p);
    if (n < 0) { /* passes Cassandra's validate but fails its deserializer right after */
        eng_errorf(err, ENG_E_INVALID, "The data cannot be deserialized as a %s", noun);
        return ENG_E_INVALID;
    }
    eng_items it;
    eng_items_begin(&it, p, len);
    int per = t->kind == ENG_MAP ? 2 : 1;
    for (int64_t i = 0; i < (int64_t)n * per; i++) {
        eng_val e;
        if (eng_items_next(&it, &e) != 1) {
            eng_errorf(err, ENG_E_INVALID, "Not enough bytes to read a %s", noun);
            return ENG_E_INVALID;
        }
        if (e.len < 0) {
            eng_errorf(err, ENG_E_INVALID, "null is not supported inside collections");
            return ENG_E_INVALID;
        }
        int rc = eng_type_validate(t->sub[t->kind == ENG_MAP ? i % 2 : 0], e.p, (size_t)e.len, err);
        if (rc)
            return rc;
    }
    if (it.p != it.end) {
        eng_errorf(err, ENG_E_INVALID, "Unexpected extraneous bytes after %s value", noun);
        return ENG_E_INVALID;
    }
    return 0;
}

/*
 * Tuple/UserTypeSerializer.validate: fewer components than declared are
 * fine (trailing ones read as null), more are not. The UDT messages number
 * fields by a counter that skips null fields, as Cassandra's does.
 */
static int validate_tuple(const eng_type *t, const uint8_t *p, size_t len, eng_err *err)
{
    int udt = t->kind == ENG_UDT;
    size_t off = 0;
    int shown = 0; /* the UDT message's field number */
    for (int i = 0; i < t->n_sub && off < len; i++) {
        const char *fname = t->fields ? t->fields[i] : "";
        int32_t n = len - off >= 4 ? (int32_t)eng_be32(p + off) : 0;
        if (len - off < 4 && udt)
            return eng_errorf(err, ENG_E_INVALID, "Not enough bytes to read size of %dth field %s",
                              shown, fname);
        if (len - off < 4)
            return eng_errorf(err, ENG_E_INVALID, "Not enough bytes to read size of %dth component",
                              i);
        off += 4;
        if (n < 0)
            continue;
        if ((size_t)n > len - off && udt)
            return eng_errorf(err, ENG_E_INVALID, "Not enough bytes to read %dth field %s", shown,
                              fname);
        if ((size_t)n > len - off)
            return eng_errorf(err, ENG_E_INVALID, "Not enough bytes to read %dth component", i);
        int rc = eng_type_validate(t->sub[i], p + off, (size_t)n, err);
        if (rc)
            return rc;
        off += (size_t)n;
        shown++;
    }
    if (off != len) {
        eng_errorf(err, ENG_E_INVALID, "Invalid remaining data after end of %s value",
                   udt ? "UDT" : "tuple");
        return ENG_E_INVALID;
    }
    return 0;
}

int eng_type_validate(const eng_type *t, const uint8_t *p, size_t len, eng_err *err)
{
    if (!t)
        return eng_errorf(err, ENG_E_INVALID, "Unknown type");
    if (!p && len)
        return eng_errorf(err, ENG_E_INVALID, "null value");
    switch (t->kind) {
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        return validate_collection(t, p, len, err);
    case ENG_TUPLE:
    case ENG_UDT:
        return validate_tuple(t, p, len, err);
    default:
        return validate_scalar(t->kind, p, len, err);
    }
}

/* ------------------------------------------------------------------------ */
/* Comparison (facts §3)                                                     */
/* ------------------------------------------------------------------------ */

/* BYTE_ORDER types: unsigned bytes, a proper prefix first. */
int eng_cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

/* Fixed-width integers: the first byte signed, the rest unsigned. */
static int cmp_signed_fixed(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int d = (int8_t)a[0] - (int8_t)b[0];
    if (d)
        return d < 0 ? -1 : 1;
    return eng_cmp_bytes(a, alen, b, blen);
}

static int cmp_boolean(const uint8_t *a, const uint8_t *b)
{
    /* any non-zero byte is true, so 0x01 and 0x02 are equal */
    return (a[0] != 0) - (b[0] != 0);
}

/* Java's Double.compare: -0.0 < 0.0, every NaN equal and above +Infinity. */
static int cmp_java_double(double x, double y)
{
    int xn = isnan(x), yn = isnan(y);
    if (xn || yn)
        return xn - yn;
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    int xs = signbit(x) != 0, ys = signbit(y) != 0; /* only ±0 reach here differing */
    return ys - xs;
}

double eng_get_double(const uint8_t *p)
{
    uint64_t bits = eng_be64(p);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

float eng_get_float(const uint8_t *p)
{
    uint32_t bits = eng_be32(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/*
 * Varint order without big arithmetic: sign first, then the number of
 * significant bytes (redundant sign-extension bytes dropped, facts §3), then
 * the bytes unsigned — same-length two's-complement values of one sign
 * order like their unsigned bytes.
 */
static size_t varint_skip_redundant(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i + 1 < len &&
           ((p[i] == 0x00 && !(p[i + 1] & 0x80)) || (p[i] == 0xFF && (p[i + 1] & 0x80))))
        i++;
    return i;
}

static int cmp_varint(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int an = a[0] >> 7, bn = b[0] >> 7;
    if (an != bn)
        return an ? -1 : 1;
    size_t sa = varint_skip_redundant(a, alen), sb = varint_skip_redundant(b, blen);
    size_t la = alen - sa, lb = blen - sb;
    if (la != lb)
        return (la < lb) != an ? -1 : 1;
    int c = memcmp(a + sa, b + sb, la);
    return c < 0 ? -1 : c > 0;
}

static int varint_sign(const uint8_t *p, size_t len)
{
    if (p[0] & 0x80)
        return -1;
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return 1;
    return 0;
}

/* log10 of |x| for a two's-complement integer, from its leading bytes. */
static double twos_log10(const uint8_t *p, size_t len)
{
    int neg = p[0] >> 7;
    size_t skip = varint_skip_redundant(p, len);
    p += skip;
    len -= skip;
    double top = 0;
    size_t n = len < 8 ? len : 8;
    for (size_t i = 0; i < n; i++)
        top = top * 256 + (neg ? (uint8_t)~p[i] : p[i]);
    return log10(top + 1) + (double)(len - n) * 8 * log10(2.0);
}

/* Used only when memory for the exact comparison is not available. */
static int cmp_scaled_estimate(const uint8_t *a, size_t alen, int64_t k, const uint8_t *b,
                               size_t blen)
{
    double x = twos_log10(a, alen) + (double)k, y = twos_log10(b, blen);
    return x < y ? -1 : x > y;
}

/*
 * |a| * 10^k against |b| for magnitudes of non-zero values (k >= 0).
 * 10^k > 2^(3k), so 3k >= bitlen(b) settles it without multiplying; below
 * that the product is computed exactly, its size bounded by the inputs'.
 */
static int cmp_scaled_mag(const uint8_t *a, size_t alen, int64_t k, const uint8_t *b, size_t blen)
{
    uint32_t small[64];
    size_t need = eng_mag_limbs(alen) + 2 * eng_mag_limbs(blen) + 4;
    uint32_t *ma = need <= ENG_ARRAY_LEN(small) ? small : eng_malloc(need * sizeof *ma);
    uint32_t *mb = ma ? eng_malloc(eng_mag_limbs(blen) * sizeof *mb) : NULL;
    if (!mb) {
        if (ma != small)
            eng_free(ma);
        return cmp_scaled_estimate(a, alen, k, b, blen);
    }
    size_t na, nb;
    eng_mag_from_twos(a, alen, ma, &na);
    eng_mag_from_twos(b, blen, mb, &nb);
    int c;
    if ((uint64_t)k * 3 >= mag_bitlen(mb, nb) && na) {
        c = 1;
    } else {
        for (; k >= 9; k -= 9)
            mag_mul_small(ma, &na, 1000000000u, 0);
        for (; k > 0; k--)
            mag_mul_small(ma, &na, 10, 0);
        c = mag_cmp(ma, na, mb, nb);
    }
    eng_free(mb);
    if (ma != small)
        eng_free(ma);
    return c;
}

/* BigDecimal.compareTo: the value only, scale ignored (1.0 == 1.00). */
static int cmp_decimal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int32_t sa = (int32_t)eng_be32(a), sb = (int32_t)eng_be32(b);
    const uint8_t *ua = a + 4, *ub = b + 4;
    size_t la = alen - 4, lb = blen - 4;
    int ga = la ? varint_sign(ua, la) : 0, gb = lb ? varint_sign(ub, lb) : 0;
    if (ga != gb || ga == 0)
        return ga < gb ? -1 : ga > gb;
    /* same non-zero sign: compare magnitudes ua*10^-sa vs ub*10^-sb */
    int64_t k = (int64_t)sb - sa;
    int c = k >= 0 ? cmp_scaled_mag(ua, la, k, ub, lb) : -cmp_scaled_mag(ub, lb, -k, ua, la);
    return ga < 0 ? -c : c;
}

/* Time-ordered reading of a v1 uuid's MSB: time_hi | time_mid | time_low (facts §3.1). */
static int64_t uuid_v1_time(const uint8_t *p)
{
    uint64_t msb = eng_be64(p);
    return (int64_t)(msb << 48 | (msb << 16 & 0xFFFF00000000ULL) | msb >> 32);
}

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_timeuuid(const uint8_t *a, const uint8_t *b)
{
    int c = cmp_i64(uuid_v1_time(a), uuid_v1_time(b));
    if (c)
        return c;
    /* the LSB as signed bytes (facts §3.1): flip each byte's sign bit, compare unsigned */
    const uint64_t flip = 0x8080808080808080ULL;
    return cmp_u64(eng_be64(a + 8) ^ flip, eng_be64(b + 8) ^ flip);
}

static int cmp_uuid(const uint8_t *a, const uint8_t *b)
{
    int va = a[6] >> 4, vb = b[6] >> 4;
    if (va != vb)
        return va < vb ? -1 : 1;
    int c = va == 1 ? cmp_i64(uuid_v1_time(a), uuid_v1_time(b)) : cmp_u64(eng_be64(a), eng_be64(b));
    return c ? c : cmp_u64(eng_be64(a + 8), eng_be64(b + 8));
}

/* A null element (never in validated collections) sorts before any value. */
static int cmp_item(const eng_type *t, const eng_val *x, const eng_val *y)
{
    if (x->len < 0 || y->len < 0)
        return (x->len >= 0) - (y->len >= 0);
    return eng_type_compare(t, x->p, (size_t)x->len, y->p, (size_t)y->len);
}

/* Frozen list/set/map: element by element (map: key then value), then the shorter first. */
static int cmp_collection(const eng_type *t, const uint8_t *a, size_t alen, const uint8_t *b,
                          size_t blen)
{
    eng_items ia, ib;
    int32_t na = eng_items_begin(&ia, a, alen), nb = eng_items_begin(&ib, b, blen);
    int per = t->kind == ENG_MAP ? 2 : 1;
    int32_t n = na < nb ? na : nb;
    for (int64_t i = 0; i < (int64_t)n * per; i++) {
        eng_val x, y;
        if (eng_items_next(&ia, &x) != 1 || eng_items_next(&ib, &y) != 1)
            break; /* malformed: inputs must have been validated */
        int c = cmp_item(t->sub[t->kind == ENG_MAP ? i % 2 : 0], &x, &y);
        if (c)
            return c;
    }
    return na < nb ? -1 : na > nb;
}

/* Whether the rest of a tuple holds only null (or empty) components. */
static int only_nulls_left(eng_items *it)
{
    eng_val v;
    int r;
    while ((r = eng_items_next(it, &v)) == 1)
        if (v.len > 0)
            return 0;
    return 1;
}

/*
 * TupleType.compareCustom (UDTs too): component-wise, a null component
 * before any value; when one side runs out, it is equal if the other has
 * only nulls left — Cassandra counts an empty component as null there too.
 */
static int cmp_tuple(const eng_type *t, const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen)
{
    eng_items ia, ib;
    eng_items_begin_raw(&ia, a, alen);
    eng_items_begin_raw(&ib, b, blen);
    for (int i = 0; i < t->n_sub && ia.p < ia.end && ib.p < ib.end; i++) {
        eng_val x, y;
        if (eng_items_next(&ia, &x) != 1 || eng_items_next(&ib, &y) != 1)
            return 0; /* malformed: inputs must have been validated */
        int c = cmp_item(t->sub[i], &x, &y);
        if (c)
            return c;
    }
    if (!only_nulls_left(&ia))
        return 1;
    if (!only_nulls_left(&ib))
        return -1;
    return 0;
}

int eng_type_compare(const eng_type *t, const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen)
{
    if (!t)
        return eng_cmp_bytes(a, alen, b, blen);
    /* every comparator puts the empty value first (facts §3) */
    if (alen == 0 || blen == 0)
        return (alen != 0) - (blen != 0);
    switch (t->kind) {
    case ENG_TINYINT:
    case ENG_SMALLINT:
    case ENG_INT:
    case ENG_BIGINT:
    case ENG_COUNTER:
    case ENG_TIMESTAMP:
        return cmp_signed_fixed(a, alen, b, blen);
    case ENG_BOOLEAN:
        return cmp_boolean(a, b);
    case ENG_FLOAT:
        if (alen == 4 && blen == 4)
            return cmp_java_double(eng_get_float(a), eng_get_float(b));
        break;
    case ENG_DOUBLE:
        if (alen == 8 && blen == 8)
            return cmp_java_double(eng_get_double(a), eng_get_double(b));
        break;
    case ENG_DECIMAL:
        if (alen >= 4 && blen >= 4)
            return cmp_decimal(a, alen, b, blen);
        break;
    case ENG_VARINT:
        return cmp_varint(a, alen, b, blen);
    case ENG_UUID:
        if (alen == 16 && blen == 16)
            return cmp_uuid(a, b);
        break;
    case ENG_TIMEUUID:
        if (alen == 16 && blen == 16)
            return cmp_timeuuid(a, b);
        break;
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        return cmp_collection(t, a, alen, b, blen);
    case ENG_TUPLE:
    case ENG_UDT:
        return cmp_tuple(t, a, alen, b, blen);
    default:
        break;
    }
    /* byte-order types, and a defined order for unvalidated input */
    return eng_cmp_bytes(a, alen, b, blen);
}

/* ------------------------------------------------------------------------ */
/* Canonical form (facts §2.3)                                               */
/* ------------------------------------------------------------------------ */

/* Whether any set or map sits in the type, i.e. whether canonicalizing can change bytes. */
static int needs_canon(const eng_type *t)
{
    return eng_type_contains_kind(t, ENG_SET) || eng_type_contains_kind(t, ENG_MAP);
}

static int malformed(eng_err *err, const eng_type *t)
{
    eng_errorf(err, ENG_E_INVALID, "Not enough bytes to read a %s",
               t->kind == ENG_TUPLE ? "tuple"
               : t->kind == ENG_UDT ? "UDT"
                                    : collection_noun(t->kind));
    return ENG_E_INVALID;
}

static int nomem(eng_err *err)
{
    eng_errorf(err, ENG_E_NOMEM, "Out of memory");
    return ENG_E_NOMEM;
}

static int canon(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, eng_err *err);

/* Appends [bytes] framing around the canonical form of one item (null stays null). */
static int canon_item(const eng_type *t, const eng_val *v, eng_buf *out, eng_err *err)
{
    if (v->len < 0) {
        eng_buf_put_be32(out, (uint32_t)-1);
        return 0;
    }
    size_t at = out->len;
    eng_buf_put_be32(out, 0);
    int rc = canon(t, v->p, (size_t)v->len, out, err);
    if (rc)
        return rc;
    if (out->oom)
        return nomem(err);
    eng_put_be32(out->p + at, (uint32_t)(out->len - at - 4));
    return 0;
}

/* Lists, tuples and UDTs keep their order; only their items are canonicalized. */
static int canon_sequence(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out,
                          eng_err *err)
{
    eng_items it;
    if (t->kind == ENG_LIST) {
        if (eng_items_begin(&it, p, len) < 0)
            return malformed(err, t);
        eng_buf_put(out, p, 4);
    } else {
        eng_items_begin_raw(&it, p, len);
    }
    eng_val v;
    int r, i = 0;
    while ((r = eng_items_next(&it, &v)) == 1) {
        const eng_type *sub = t->kind == ENG_LIST ? t->sub[0] : i < t->n_sub ? t->sub[i] : NULL;
        if (!sub)
            return malformed(err, t);
        int rc = canon_item(sub, &v, out, err);
        if (rc)
            return rc;
        i++;
    }
    return r < 0 ? malformed(err, t) : 0;
}

/* One set element or map entry, canonicalized into the scratch buffer. */
typedef struct entry {
    size_t key_off, val_off; /* offsets of [bytes] items in the scratch buffer */
    int32_t key_len, val_len;
} entry;

typedef struct sorter {
    const eng_type *key_type;
    const uint8_t *base;
} sorter;

static int entry_cmp(const sorter *s, const entry *x, const entry *y)
{
    eng_val a = {s->base + x->key_off + 4, x->key_len}, b = {s->base + y->key_off + 4, y->key_len};
    return cmp_item(s->key_type, &a, &b);
}

/* Stable merge sort: among equal keys the earliest stays first. */
static void merge_sort(const sorter *s, entry *e, entry *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(s, e, tmp, h);
    merge_sort(s, e + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = entry_cmp(s, &e[j], &e[i]) < 0 ? e[j++] : e[i++];
    while (i < h)
        tmp[k++] = e[i++];
    while (j < n)
        tmp[k++] = e[j++];
    memcpy(e, tmp, n * sizeof *e);
}

static int read_entries(const eng_type *t, const uint8_t *p, size_t len, eng_buf *scratch, entry *e,
                        int32_t n, eng_err *err)
{
    eng_items it;
    eng_items_begin(&it, p, len);
    for (int32_t i = 0; i < n; i++) {
        eng_val k, v;
        if (eng_items_next(&it, &k) != 1)
            return malformed(err, t);
        e[i].key_off = scratch->len;
        int rc = canon_item(t->sub[0], &k, scratch, err);
        if (rc)
            return rc;
        e[i].key_len = (int32_t)eng_be32(scratch->p + e[i].key_off);
        if (t->kind != ENG_MAP)
            continue;
        if (eng_items_next(&it, &v) != 1)
            return malformed(err, t);
        e[i].val_off = scratch->len;
        if ((rc = canon_item(t->sub[1], &v, scratch, err)))
            return rc;
        e[i].val_len = (int32_t)eng_be32(scratch->p + e[i].val_off);
    }
    return it.p == it.end ? 0 : malformed(err, t);
}

/*
 * Sets keep the first of equal elements (TreeSet.add keeps the present one);
 * maps keep the first key bytes with the last value (TreeMap.put replaces
 * only the value) — facts §2.3.
 */
static void write_sorted(const eng_type *t, const uint8_t *base, entry *e, size_t n, eng_buf *out)
{
    sorter s = {t->sub[0], base};
    size_t count_at = out->len, kept = 0;
    eng_buf_put_be32(out, 0);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && entry_cmp(&s, &e[i], &e[j]) == 0)
            j++;
        eng_buf_put(out, base + e[i].key_off, 4 + (size_t)ENG_MAX(e[i].key_len, 0));
        if (t->kind == ENG_MAP)
            eng_buf_put(out, base + e[j - 1].val_off, 4 + (size_t)ENG_MAX(e[j - 1].val_len, 0));
        kept++;
        i = j;
    }
    if (!out->oom)
        eng_put_be32(out->p + count_at, (uint32_t)kept);
}

static int canon_sorted(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, eng_err *err)
{
    eng_items it;
    int32_t n = eng_items_begin(&it, p, len);
    if (n < 0 || (size_t)n > len / 4)
        return malformed(err, t);
    eng_buf scratch = ENG_BUF_INIT;
    entry *e = eng_malloc((size_t)n * 2 * sizeof *e);
    int rc = e ? read_entries(t, p, len, &scratch, e, n, err) : nomem(err);
    if (!rc && scratch.oom)
        rc = nomem(err);
    if (!rc) {
        sorter s = {t->sub[0], scratch.p};
        merge_sort(&s, e, e + n, (size_t)n);
        write_sorted(t, scratch.p, e, (size_t)n, out);
        if (out->oom)
            rc = nomem(err);
    }
    eng_free(e);
    eng_buf_free(&scratch);
    return rc;
}

static int canon(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, eng_err *err)
{
    if (len == 0 || !needs_canon(t)) {
        eng_buf_put(out, p, len);
        return out->oom ? nomem(err) : 0;
    }
    switch (t->kind) {
    case ENG_SET:
    case ENG_MAP:
        return canon_sorted(t, p, len, out, err);
    case ENG_LIST:
    case ENG_TUPLE:
    case ENG_UDT:
        return canon_sequence(t, p, len, out, err);
    default:
        eng_buf_put(out, p, len);
        return out->oom ? nomem(err) : 0;
    }
}

int eng_type_canonicalize(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out,
                          eng_err *err)
{
    if (!t)
        return eng_errorf(err, ENG_E_INVALID, "Unknown type");
    return canon(t, p, len, out, err);
}
