/*
 * CQL type names as Cassandra writes them in system_schema (columns.type,
 * types.field_types), turned into CassDataType values: the rules of the
 * driver's DataTypeCqlNameParser (data_type_parser.cpp), so that schema
 * metadata built from those rows types every column as the driver would.
 *
 * What is accepted, as the driver accepts it:
 *  - a scalar name, case-insensitive ("int", "TEXT", "varchar", "duration");
 *    frozen<> around a scalar leaves it a plain scalar;
 *  - list<T>, set<T>, map<K, V>, tuple<T, ...> (at least one component) and
 *    frozen<T>, keywords case-insensitive, blanks (space, tab, newline)
 *    anywhere between the parts; frozen<> marks the type inside it frozen;
 *  - 'class.Name', a custom type by its Java class (the quotes removed), and
 *    "empty", the custom EmptyType;
 *  - any other name is a user type of the keyspace: bare ([A-Za-z0-9_+-.&]+,
 *    matched exactly, as Cassandra has already folded the case) or in double
 *    quotes (doubled quotes inside stand for one; the quotes removed before
 *    the lookup). A frozen reference is a frozen copy of the definition; a
 *    name the keyspace does not define stays a user type with its keyspace
 *    and name but no fields.
 *
 * Where this parser differs from the driver, knowingly:
 *  - "text" gives CASS_VALUE_TYPE_VARCHAR, as every text value of cassette
 *    does (results, markers and the metadata before this parser); the driver
 *    reports CASS_VALUE_TYPE_TEXT for the spelling "text".
 *  - A quoted user type name is looked up without its quotes; the driver
 *    looks it up with them and so never finds it.
 *  - Text the driver skips over silently (a missing '>', anything after a
 *    complete type, empty parameters between commas, a double quote inside a
 *    bare name) is refused here: Cassandra never writes it, and a type made
 *    up from a damaged text would be worse than none.
 *  - Nesting deeper than MAX_DEPTH is refused instead of recursing on.
 * Text that does not parse gives ENG_E_INVALID and a message naming the
 * text and the place; the caller reports it and leaves the type out, as the
 * driver logs and leaves its type null.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cql/driver/driver_int.h"

/* Deeper nesting than any schema needs; bounds the recursion on hostile text. */
#define MAX_DEPTH 64

#define EMPTY_CLASS "org.apache.cassandra.db.marshal.EmptyType"

typedef struct tparser {
    const char *s;
    size_t len, pos;
    const char *ks;            /* the keyspace user type names belong to */
    cql_drv_udt_lookup lookup; /* NULL: no user types are defined */
    void *ctx;
    eng_err *err;
    int depth;
} tparser;

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* The characters of a bare name (the driver's is_identifier_char). */
static int is_name_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '+' || c == '.' || c == '_' || c == '&';
}

static void skip_blanks(tparser *p)
{
    while (p->pos < p->len && is_blank(p->s[p->pos]))
        p->pos++;
}

static int invalid(tparser *p, const char *what)
{
    return eng_errorf(p->err, ENG_E_INVALID, "Invalid type \"%.*s\": %s at character %zu",
                      (int)(p->len > 200 ? 200 : p->len), p->s, what, p->pos);
}

static int nomem(tparser *p)
{
    return eng_errorf(p->err, ENG_E_NOMEM, "out of memory parsing a type");
}

/* A name as the text spells it: where it starts, its length, and how it is quoted. */
typedef struct tname {
    const char *p;
    size_t len;
    char quote; /* '"' or '\'' when quoted (p, len exclude the quotes), else 0 */
} tname;

static int read_name(tparser *p, tname *out)
{
    skip_blanks(p);
    memset(out, 0, sizeof *out);
    if (p->pos >= p->len)
        return invalid(p, "a type name is missing");
    char c = p->s[p->pos];
    if (c == '"' || c == '\'') {
        size_t start = ++p->pos;
        for (;;) {
            if (p->pos >= p->len)
                return invalid(p, "a quoted name is not closed");
            if (p->s[p->pos] == c) {
                /* Inside double quotes, a doubled quote is one quote (CQL identifiers). */
                if (c == '"' && p->pos + 1 < p->len && p->s[p->pos + 1] == '"') {
                    p->pos += 2;
                    continue;
                }
                break;
            }
            p->pos++;
        }
        *out = (tname){p->s + start, p->pos - start, c};
        p->pos++;
        return 0;
    }
    size_t start = p->pos;
    while (p->pos < p->len && is_name_char(p->s[p->pos]))
        p->pos++;
    if (p->pos == start)
        return invalid(p, "a type name is missing");
    *out = (tname){p->s + start, p->pos - start, 0};
    return 0;
}

static int name_is(const tname *n, const char *word)
{
    return !n->quote && strlen(word) == n->len && strncasecmp(n->p, word, n->len) == 0;
}

/* A double-quoted name without its quotes, doubled quotes made single (NULL on OOM). */
static char *unquote(const tname *n)
{
    char *s = eng_malloc(n->len + 1);
    if (!s)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n->len; i++) {
        s[k++] = n->p[i];
        if (n->quote == '"' && n->p[i] == '"')
            i++; /* read_name let only doubled quotes through */
    }
    s[k] = 0;
    return s;
}

static int parse_type(tparser *p, int frozen, CassDataType **out);

/* Steps over the '<' that opens the parameters of a keyword. */
static int expect_open(tparser *p)
{
    skip_blanks(p);
    if (p->pos >= p->len || p->s[p->pos] != '<')
        return invalid(p, "'<' expected");
    p->pos++;
    return 0;
}

/*
 * The parameters "<T, ...>" after a collection, tuple or frozen keyword, appended to dt's
 * sub-types (dt released on failure). want: the exact count, or -1 for one or more.
 */
static int parse_params(tparser *p, const char *kind, int want, CassDataType *dt)
{
    int rc = expect_open(p);
    if (rc) {
        cql_drv_type_unref(dt);
        return rc;
    }
    size_t cap = want > 0 ? (size_t)want : 4;
    dt->sub = eng_malloc(sizeof *dt->sub * cap);
    if (!dt->sub) {
        cql_drv_type_unref(dt);
        return nomem(p);
    }
    for (;;) {
        CassDataType *sub;
        rc = parse_type(p, 0, &sub);
        if (rc) {
            cql_drv_type_unref(dt);
            return rc;
        }
        if (dt->n_sub == cap) {
            CassDataType **subs = eng_realloc(dt->sub, sizeof *subs * cap * 2);
            if (!subs) {
                cql_drv_type_unref(sub);
                cql_drv_type_unref(dt);
                return nomem(p);
            }
            dt->sub = subs;
            cap *= 2;
        }
        dt->sub[dt->n_sub++] = sub;
        skip_blanks(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == '>') {
            p->pos++;
            break;
        }
        cql_drv_type_unref(dt);
        return invalid(p, "',' or '>' expected");
    }
    if (want > 0 && dt->n_sub != (size_t)want) {
        char what[64];
        snprintf(what, sizeof what, "%s takes %d parameter%s, not %zu", kind, want,
                 want == 1 ? "" : "s", dt->n_sub);
        cql_drv_type_unref(dt);
        return invalid(p, what);
    }
    return 0;
}

/*
 * frozen<T>: T read as frozen (the driver parses its one parameter with is_frozen set), so
 * collections and tuples are made frozen and a user type becomes a frozen copy.
 */
static int parse_frozen(tparser *p, CassDataType **out)
{
    int rc = expect_open(p);
    if (!rc)
        rc = parse_type(p, 1, out);
    if (rc)
        return rc;
    skip_blanks(p);
    if (p->pos < p->len && p->s[p->pos] == '>') {
        p->pos++;
        return 0;
    }
    cql_drv_type_unref(*out);
    *out = NULL;
    return invalid(p, p->pos < p->len && p->s[p->pos] == ',' ? "frozen takes 1 parameter, not more"
                                                             : "'>' expected");
}

/* A custom type of that class. */
static int custom_type(tparser *p, const char *cls, size_t len, CassDataType **out)
{
    CassDataType *dt = cql_drv_type_new(CASS_VALUE_TYPE_CUSTOM);
    if (!dt || !(dt->class_name = eng_strndup(cls, len))) {
        cql_drv_type_unref(dt);
        return nomem(p);
    }
    *out = dt;
    return 0;
}

/*
 * The user type named n: the keyspace's definition, or a frozen copy of it when the reference
 * is frozen (the driver copies too, since the definition is shared); for a name the keyspace
 * does not define, a user type with only a keyspace and a name, as the driver makes one.
 */
static int user_type(tparser *p, const tname *n, int frozen, CassDataType **out)
{
    char *name = unquote(n);
    if (!name)
        return nomem(p);
    const CassDataType *def = NULL;
    int rc = p->lookup ? p->lookup(p->ctx, name, &def, p->err) : 0;
    if (rc || def)
        eng_free(name);
    if (rc)
        return rc;
    CassDataType *dt;
    if (def && !def->frozen == !frozen) {
        *out = cql_drv_type_ref(def);
        return 0;
    }
    if (def) {
        dt = cql_drv_type_copy_top(def); /* its own frozenness; the fields shared */
    } else if ((dt = cql_drv_type_new(CASS_VALUE_TYPE_UDT))) {
        dt->type_name = name;
        dt->keyspace = eng_strdup(p->ks ? p->ks : "");
    } else {
        eng_free(name);
    }
    if (!dt || (!def && !dt->keyspace)) {
        cql_drv_type_unref(dt);
        return nomem(p);
    }
    dt->frozen = frozen ? cass_true : cass_false;
    *out = dt;
    return 0;
}

/* The parameterized kinds: the keyword, and how many parameters (-1: one or more). */
static const struct {
    const char *word;
    CassValueType type;
    int params;
} COMPOSITES[] = {
    {"list", CASS_VALUE_TYPE_LIST, 1},
    {"set", CASS_VALUE_TYPE_SET, 1},
    {"map", CASS_VALUE_TYPE_MAP, 2},
    {"tuple", CASS_VALUE_TYPE_TUPLE, -1},
};

static int parse_type(tparser *p, int frozen, CassDataType **out)
{
    *out = NULL;
    if (++p->depth > MAX_DEPTH)
        return invalid(p, "types nested too deeply");
    tname n;
    int rc = read_name(p, &n);
    if (rc)
        return rc;
    int kind = n.quote ? -1 : eng_kind_from_name(n.p, n.len);
    size_t c = 0;
    while (c < ENG_ARRAY_LEN(COMPOSITES) && !name_is(&n, COMPOSITES[c].word))
        c++;
    CassDataType *dt = NULL;
    if (kind >= 0) {
        /* Scalars ignore frozen<>, as the driver's cache of simple types does. */
        if (!(dt = cql_drv_type_new((CassValueType)kind)))
            return nomem(p);
    } else if (c < ENG_ARRAY_LEN(COMPOSITES)) {
        if (!(dt = cql_drv_type_new(COMPOSITES[c].type)))
            return nomem(p);
        dt->frozen = frozen ? cass_true : cass_false;
        if ((rc = parse_params(p, COMPOSITES[c].word, COMPOSITES[c].params, dt)))
            return rc;
    } else if (name_is(&n, "frozen")) {
        rc = parse_frozen(p, &dt);
    } else if (name_is(&n, "empty")) {
        rc = custom_type(p, EMPTY_CLASS, strlen(EMPTY_CLASS), &dt);
    } else if (n.quote == '\'') {
        rc = custom_type(p, n.p, n.len, &dt);
    } else {
        rc = user_type(p, &n, frozen, &dt);
    }
    p->depth--;
    *out = dt;
    return rc;
}

int cql_drv_type_parse(const char *text, size_t len, const char *keyspace,
                       cql_drv_udt_lookup lookup, void *ctx, CassDataType **out, eng_err *err)
{
    tparser p = {text ? text : "", text ? len : 0, 0, keyspace, lookup, ctx, err, 0};
    *out = NULL;
    CassDataType *dt;
    int rc = parse_type(&p, 0, &dt);
    if (rc)
        return rc;
    skip_blanks(&p);
    if (p.pos < p.len) {
        cql_drv_type_unref(dt);
        return invalid(&p, "unexpected text after the type");
    }
    *out = dt;
    return 0;
}
