/*
 * Schema changes: CREATE, ALTER and DROP of keyspaces, tables and user
 * types, each checked against a snapshot and written as catalog.c's records
 * through the helpers of catalog_int.h.
 *
 * A schema change checks the snapshot it is given with Cassandra 4.1's rules,
 * in Cassandra's order, with its messages and error codes; then it writes its
 * records and bumps the version "v" by one, all in the caller's transaction,
 * or writes nothing at all. A change that changes nothing (an IF [NOT]
 * EXISTS no-op, an ALTER to the same values) writes nothing either.
 *
 * The snapshot is never modified: a changed table is built as a draft that
 * borrows the snapshot's strings and types and is only ever encoded.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "engine/store/catalog_int.h"

#define NAME_LENGTH 48          /* Cassandra's SchemaConstants.NAME_LENGTH (keyspace names) */
#define TABLE_NAME_LENGTH 222   /* Cassandra's table name limit (CASSANDRA-20389) */
#define MAX_TTL 630720000       /* 20 years, Cassandra's Attributes.MAX_TTL (facts §4.6) */
#define DEFAULT_GC_GRACE 864000 /* 10 days (facts §4.7) */

/* ------------------------------------------------------------------------ */
/* Errors and names                                                          */
/* ------------------------------------------------------------------------ */

/* AlreadyExists carries the keyspace and table besides its message (facts §8.1). */
static int already_exists(eng_err *err, const char *ks, const char *table, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int already_exists(eng_err *err, const char *ks, const char *table, const char *fmt, ...)
{
    if (!err)
        return ENG_E_EXISTS;
    if (err->code)
        return err->code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = ENG_E_EXISTS;
    snprintf(err->ks, sizeof err->ks, "%s", ks);
    snprintf(err->table, sizeof err->table, "%s", table ? table : "");
    return ENG_E_EXISTS;
}

/* Cassandra's \w+ (ASCII letters, digits, underscore), non-empty. */
static int is_word(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

/*
 * Appends a name as Cassandra's ColumnIdentifier.maybeQuote writes it. The
 * rule (and its reserved-word list) lives in types.c's UDT rendering, so a
 * throwaway UDT descriptor borrows it rather than keeping a second copy.
 */
static void put_quoted(eng_buf *b, const char *name)
{
    eng_type *t = eng_type_new_udt("", name, NULL, NULL, 0, 0);
    if (t)
        eng_type_to_cql(t, b);
    else
        b->oom = 1;
    eng_type_free(t);
}

/* Appends "ks.table" with both parts maybe-quoted, as TableMetadata.toString writes it. */
static void put_qualified(eng_buf *b, const char *ks, const char *name)
{
    put_quoted(b, ks);
    eng_buf_put_u8(b, '.');
    put_quoted(b, name);
}

/* Message built in a buffer; reports OOM if the buffer could not grow. */
static int error_buf(eng_err *err, int code, eng_buf *b)
{
    char *s = eng_buf_cstr(b);
    int rc = s ? eng_errorf(err, code, "%s", s) : eng_catalog_nomem(err);
    eng_buf_free(b);
    return rc;
}

static int type_cql_error(eng_err *err, const char *prefix, const eng_type *t, const char *suffix)
{
    eng_buf b = ENG_BUF_INIT;
    eng_buf_put_str(&b, prefix);
    eng_type_to_cql(t, &b);
    eng_buf_put_str(&b, suffix);
    return error_buf(err, ENG_E_INVALID, &b);
}

/* ------------------------------------------------------------------------ */
/* Checks every schema change makes                                          */
/* ------------------------------------------------------------------------ */

static int ascii_ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a + 32) : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b + 32) : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/*
 * What Cassandra checks before any schema statement runs
 * (AlterSchemaStatement.execute), after making sure `cur` is what txn holds:
 * local system and virtual keyspaces are read-only, and the keyspace name
 * must be a valid one (InvalidRequest, single quotes, as Cassandra 4.x says).
 */
static int ddl_begin(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                     int *changed, eng_err *err)
{
    *changed = 0;
    if (!cur || !ks)
        return eng_errorf(err, ENG_E_SERVER, "schema change without a snapshot or keyspace");
    uint64_t v;
    int rc = eng_catalog_version(txn, meta, &v, err);
    if (rc)
        return rc;
    if (v != cur->version)
        return eng_errorf(err, ENG_E_SERVER, "schema snapshot is stale (version %llu, stored %llu)",
                          (unsigned long long)cur->version, (unsigned long long)v);
    if (ascii_ieq(ks, "system") || ascii_ieq(ks, "system_schema"))
        return eng_errorf(err, ENG_E_INVALID, "System keyspace '%s' is not user-modifiable", ks);
    if (ascii_ieq(ks, "system_views") || ascii_ieq(ks, "system_virtual_schema"))
        return eng_errorf(err, ENG_E_INVALID, "Virtual keyspace '%s' is not user-modifiable", ks);
    if (!is_word(ks) || strlen(ks) > NAME_LENGTH)
        return eng_errorf(err, ENG_E_INVALID,
                          "Keyspace name must not be empty, more than %d characters long, or "
                          "contain non-alphanumeric-underscore characters (got '%s')",
                          NAME_LENGTH, ks);
    return 0;
}

static int ddl_done(MDB_txn *txn, MDB_dbi meta, int *changed, eng_err *err)
{
    int rc = eng_catalog_bump_version(txn, meta, err);
    if (!rc)
        *changed = 1;
    return rc;
}

static int table_missing(eng_err *err, const char *ks, const char *table)
{
    return eng_errorf(err, ENG_E_INVALID, "Table '%s.%s' doesn't exist", ks, table);
}

/* ------------------------------------------------------------------------ */
/* Types in schema changes                                                   */
/* ------------------------------------------------------------------------ */

static int malformed_type(eng_err *err)
{
    return eng_errorf(err, ENG_E_INVALID, "malformed type descriptor");
}

static int prepare_type(const eng_schema *cur, const char *ks, const eng_type *t, eng_type **out,
                        eng_err *err);

static int prepare_udt(const eng_schema *cur, const char *ks, const eng_type *t, eng_type **out,
                       eng_err *err)
{
    const char *tks = (t->ks && *t->ks) ? t->ks : ks;
    /* Cassandra keeps user types to their own keyspace (CASSANDRA-6643). */
    if (strcmp(tks, ks) != 0)
        return eng_errorf(err, ENG_E_INVALID,
                          "Statement on keyspace %s cannot refer to a user type in keyspace %s; "
                          "user types can only be used in the keyspace they are defined in",
                          ks, tks);
    const eng_type *def = eng_schema_udt(cur, ks, t->name ? t->name : "");
    if (!def)
        return eng_errorf(err, ENG_E_INVALID, "Unknown type %s.%s", ks, t->name ? t->name : "");
    if (!(*out = eng_type_dup(def)))
        return eng_catalog_nomem(err);
    (*out)->frozen = t->frozen;
    return 0;
}

/* CQL3Type.Raw's collection rules, checked on the type as written. */
static int prepare_collection(const eng_schema *cur, const char *ks, const eng_type *t,
                              eng_type **out, eng_err *err)
{
    int n = t->kind == ENG_MAP ? 2 : 1;
    if (t->n_sub != n || !t->sub || !t->sub[0] || (n == 2 && !t->sub[1]))
        return malformed_type(err);
    const eng_type *vals = t->sub[n - 1], *keys = n == 2 ? t->sub[0] : NULL;
    if (vals->kind == ENG_COUNTER)
        return type_cql_error(err, "Counters are not allowed inside collections: ", t, "");
    if (t->kind == ENG_SET && vals->kind == ENG_DURATION)
        return type_cql_error(err, "Durations are not allowed inside sets: ", t, "");
    if (keys && keys->kind == ENG_DURATION)
        return type_cql_error(err, "Durations are not allowed as map keys: ", t, "");
    eng_type *a = NULL, *b = NULL;
    int rc = prepare_type(cur, ks, t->sub[0], &a, err);
    if (!rc && n == 2)
        rc = prepare_type(cur, ks, t->sub[1], &b, err);
    if (rc) {
        eng_type_free(a);
        eng_type_free(b);
        return rc;
    }
    *out = t->kind == ENG_LIST  ? eng_type_new_list(a, t->frozen)
           : t->kind == ENG_SET ? eng_type_new_set(a, t->frozen)
                                : eng_type_new_map(a, b, t->frozen);
    return *out ? 0 : eng_catalog_nomem(err);
}

static int prepare_tuple(const eng_schema *cur, const char *ks, const eng_type *t, eng_type **out,
                         eng_err *err)
{
    if (t->n_sub && !t->sub)
        return malformed_type(err);
    for (int i = 0; i < t->n_sub; i++) {
        if (!t->sub[i])
            return malformed_type(err);
        if (t->sub[i]->kind == ENG_COUNTER)
            return eng_errorf(err, ENG_E_INVALID, "Counters are not allowed inside tuples");
    }
    eng_type **comps = eng_calloc(t->n_sub ? t->n_sub : 1, sizeof *comps);
    if (!comps)
        return eng_catalog_nomem(err);
    int rc = 0;
    for (int i = 0; !rc && i < t->n_sub; i++)
        rc = prepare_type(cur, ks, t->sub[i], &comps[i], err);
    if (rc) {
        for (int i = 0; i < t->n_sub; i++)
            eng_type_free(comps[i]);
    } else if (!(*out = eng_type_new_tuple(comps, t->n_sub))) {
        rc = eng_catalog_nomem(err);
    }
    eng_free(comps);
    return rc;
}

/*
 * A column or field type as Cassandra prepares it (CQL3Type.Raw.prepare):
 * every user type is replaced by the keyspace's definition, with the
 * frozenness written, checking the rules Cassandra applies on the way.
 */
static int prepare_type(const eng_schema *cur, const char *ks, const eng_type *t, eng_type **out,
                        eng_err *err)
{
    *out = NULL;
    switch (t->kind) {
    case ENG_UDT:
        return prepare_udt(cur, ks, t, out, err);
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        return prepare_collection(cur, ks, t, out, err);
    case ENG_TUPLE:
        return prepare_tuple(cur, ks, t, out, err);
    default:
        /* a kind the stored form could not read back would make the catalog unloadable */
        if (t->kind != ENG_CUSTOM && !eng_kind_name(t->kind))
            return malformed_type(err);
        *out = eng_type_dup(t);
        return *out ? 0 : eng_catalog_nomem(err);
    }
}

/* Index of the user type ks.name in cur->types, or -1. */
static long udt_index(const eng_schema *cur, const char *ks, const char *name)
{
    const eng_type *u = ks && name ? eng_schema_udt(cur, ks, name) : NULL;
    if (!u)
        return -1;
    uint32_t lo = 0, hi = cur->n_types;
    while (lo < hi) { /* the same order eng_schema_udt searched */
        uint32_t mid = lo + (hi - lo) / 2;
        if (cur->types[mid] == u)
            return (long)mid;
        if (eng_udt_order(&u, &cur->types[mid]) < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

/*
 * The user types that use one type, at any depth (UserType.referencesUserType),
 * as a mark per entry of cur->types (the type itself marked too). Found from
 * what each type's fields name directly, without looking inside the types
 * they name, repeated until nothing changes: walking into every use instead
 * costs twice as much per level for a type that uses another twice: a
 * tenth of a second at 22 levels, hours at 40.
 */
typedef struct udt_users {
    const eng_schema *cur;
    uint8_t *marks;
} udt_users;

/* Does t (a column's or a field's type) name a marked user type, itself or in a collection or
   tuple? */
static int names_marked(const udt_users *uu, const eng_type *t)
{
    if (!t)
        return 0;
    if (t->kind == ENG_UDT) {
        long i = udt_index(uu->cur, t->ks, t->name);
        return i >= 0 && uu->marks[i];
    }
    for (int i = 0; i < t->n_sub; i++)
        if (names_marked(uu, t->sub[i]))
            return 1;
    return 0;
}

static int find_users(udt_users *uu, const eng_schema *cur, const char *ks, const char *name,
                      eng_err *err)
{
    uu->cur = cur;
    if (!(uu->marks = eng_calloc(cur->n_types ? cur->n_types : 1, 1)))
        return eng_catalog_nomem(err);
    long u = udt_index(cur, ks, name);
    if (u >= 0)
        uu->marks[u] = 1;
    for (int changed = u >= 0; changed;) {
        changed = 0;
        for (uint32_t i = 0; i < cur->n_types; i++) {
            const eng_type *t = cur->types[i];
            for (int f = 0; !uu->marks[i] && !strcmp(t->ks, ks) && f < t->n_sub; f++)
                if (names_marked(uu, t->sub[f]))
                    uu->marks[i] = 1, changed = 1;
        }
    }
    return 0;
}

/* A non-frozen UDT may not hold a non-frozen collection (CreateTableStatement). */
static int udt_nests_multicell(const eng_type *t)
{
    if (t->kind != ENG_UDT || !eng_type_is_multicell(t))
        return 0;
    for (int i = 0; i < t->n_sub; i++)
        if (eng_type_is_multicell(t->sub[i]))
            return 1;
    return 0;
}

/*
 * Types nest at most ENG_MAX_TYPE_DEPTH levels (engine/value/types.h says
 * why; Cassandra itself has no such limit). A schema change that would make
 * a column or a user type deeper is refused, naming it.
 */
static int check_depth(uint32_t levels, const char *what, const char *ks, const char *name,
                       eng_err *err)
{
    if (levels <= ENG_MAX_TYPE_DEPTH)
        return 0;
    eng_buf b = ENG_BUF_INIT;
    eng_buf_printf(&b, "%s ", what);
    if (ks)
        put_qualified(&b, ks, name);
    else
        put_quoted(&b, name);
    eng_buf_printf(&b, " would nest %u levels of types, more than the %d supported", levels,
                   ENG_MAX_TYPE_DEPTH);
    return error_buf(err, ENG_E_INVALID, &b);
}

/* A user type with these prepared field types: one level over the deepest. */
static uint32_t udt_levels(eng_type *const *fields, uint32_t n)
{
    uint32_t deepest = 0;
    for (uint32_t i = 0; i < n; i++)
        if (eng_type_depth(fields[i]) > deepest)
            deepest = eng_type_depth(fields[i]);
    return deepest + 1;
}

/*
 * ALTER TYPE u ADD a field that makes u `more` levels deeper: every type and
 * column using u (uu) may grow as much (at most: their deepest path may not
 * go through u), and none may pass the limit.
 */
static int check_users_depth(const udt_users *uu, const eng_type *u, uint32_t more,
                             eng_err *err)
{
    const eng_schema *cur = uu->cur;
    int rc = 0;
    for (uint32_t i = 0; !rc && i < cur->n_types; i++)
        if (uu->marks[i])
            rc = check_depth(eng_type_depth(cur->types[i]) + more, "User type", cur->types[i]->ks,
                             cur->types[i]->name, err);
    for (uint32_t i = 0; !rc && i < cur->n_tables; i++) {
        const eng_table *t = &cur->tables[i];
        for (uint32_t c = 0; !rc && !strcmp(t->ks, u->ks) && c < t->n_cols; c++)
            if (names_marked(uu, t->cols[c].type))
                rc = check_depth(eng_type_depth(t->cols[c].type) + more, "Column", NULL,
                                 t->cols[c].name, err);
    }
    return rc;
}

/*
 * Most descriptors a dropped column's type may have written out. Its record
 * keeps it with every user type expanded, which is the type's tree size
 * (eng_type_tree_size): a type using one user type twice per level, small
 * shared, doubles per level written out -- Cassandra's expandUserTypes would
 * too -- and every snapshot decodes the record.
 */
#define MAX_DROPPED_TYPE_SIZE 65536

/* Whether a dropped column's type can be recorded and read back. */
static int check_dropped_type(const eng_type *t, const char *column, eng_err *err)
{
    if (eng_type_depth(t) > ENG_MAX_TYPE_DEPTH) /* made before types were bounded */
        return eng_errorf(err, ENG_E_INVALID,
                          "Cannot drop column %s: its type nests %u levels, more than the %d a "
                          "dropped column's record can keep",
                          column, eng_type_depth(t), ENG_MAX_TYPE_DEPTH);
    uint32_t size = eng_type_tree_size(t); /* saturates at UINT32_MAX */
    if (size > MAX_DROPPED_TYPE_SIZE)
        return eng_errorf(err, ENG_E_INVALID,
                          "Cannot drop column %s: with its user types written out, as a dropped "
                          "column is recorded, its type has %s%u components, more than the %d a "
                          "record keeps",
                          column, size == UINT32_MAX ? "over " : "",
                          size == UINT32_MAX ? size - 1 : size, MAX_DROPPED_TYPE_SIZE);
    return 0;
}

/*
 * The type a dropped column keeps: user types become tuples of their
 * fields (Cassandra's AbstractType.expandUserTypes), so the record never
 * depends on a type that may be dropped later.
 */
static eng_type *expand_udts(const eng_type *t)
{
    if (t->kind != ENG_UDT && t->kind != ENG_LIST && t->kind != ENG_SET && t->kind != ENG_MAP &&
        t->kind != ENG_TUPLE)
        return eng_type_dup(t);
    eng_type **subs = eng_calloc(t->n_sub ? t->n_sub : 1, sizeof *subs);
    int ok = subs != NULL;
    for (int i = 0; ok && i < t->n_sub; i++)
        ok = (subs[i] = expand_udts(t->sub[i])) != NULL;
    eng_type *r = NULL;
    if (!ok) {
        for (int i = 0; subs && i < t->n_sub; i++)
            eng_type_free(subs[i]);
    } else if (t->kind == ENG_UDT || t->kind == ENG_TUPLE) {
        r = eng_type_new_tuple(subs, t->n_sub);
    } else if (t->kind == ENG_MAP) {
        r = eng_type_new_map(subs[0], subs[1], t->frozen);
    } else {
        r = t->kind == ENG_LIST ? eng_type_new_list(subs[0], t->frozen)
                                : eng_type_new_set(subs[0], t->frozen);
    }
    eng_free(subs);
    return r;
}

/* Bytes of a fixed-length value, 0 for variable-length kinds (AbstractType.valueLengthIfFixed). */
static int fixed_length(int kind)
{
    switch (kind) {
    case ENG_BIGINT:
    case ENG_COUNTER:
    case ENG_DOUBLE:
    case ENG_TIMESTAMP:
    case ENG_TIME:
        return 8;
    case ENG_INT:
    case ENG_FLOAT:
    case ENG_DATE:
        return 4;
    case ENG_UUID:
    case ENG_TIMEUUID:
        return 16;
    case ENG_SMALLINT:
        return 2;
    case ENG_TINYINT:
    case ENG_BOOLEAN:
        return 1;
    default:
        return 0;
    }
}

/* Can stored values of `old` be read as `nu` (AbstractType.isValueCompatibleWith)? */
static int value_compatible(const eng_type *nu, const eng_type *old)
{
    if (eng_type_equal(nu, old))
        return 1;
    if (nu->kind == ENG_BLOB)
        return !eng_type_is_multicell(old);
    if ((nu->kind == ENG_TEXT && old->kind == ENG_ASCII) ||
        (nu->kind == ENG_BIGINT && old->kind == ENG_TIMESTAMP) ||
        (nu->kind == ENG_TIMESTAMP && old->kind == ENG_BIGINT) ||
        (nu->kind == ENG_UUID && old->kind == ENG_TIMEUUID))
        return 1;
    if (nu->kind != old->kind || nu->frozen != old->frozen)
        return 0;
    if (nu->kind == ENG_LIST || nu->kind == ENG_SET || nu->kind == ENG_MAP ||
        nu->kind == ENG_TUPLE) {
        if (nu->n_sub < old->n_sub || (nu->kind != ENG_TUPLE && nu->n_sub != old->n_sub))
            return 0;
        for (int i = 0; i < old->n_sub; i++)
            if (!value_compatible(nu->sub[i], old->sub[i]))
                return 0;
        return 1;
    }
    return 0;
}

/* Re-adding a dropped column (AbstractType.isSerializationCompatibleWith). */
static int serialization_compatible(const eng_type *nu, const eng_type *old)
{
    return value_compatible(nu, old) && fixed_length(nu->kind) == fixed_length(old->kind) &&
           eng_type_is_multicell(nu) == eng_type_is_multicell(old);
}

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */

static int is_table_param(const char *name)
{
    return !strcmp(name, "default_time_to_live") || !strcmp(name, "gc_grace_seconds") ||
           !strcmp(name, "comment");
}

/* A property's string value: a CQL string literal loses its quotes (and '' becomes '). */
static char *unquote(const char *v)
{
    size_t n = strlen(v);
    if (n < 2 || v[0] != '\'' || v[n - 1] != '\'')
        return eng_strdup(v);
    char *s = eng_malloc(n);
    if (!s)
        return NULL;
    size_t j = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        s[j++] = v[i];
        if (v[i] == '\'' && v[i + 1] == '\'' && i + 2 < n)
            i++;
    }
    s[j] = 0;
    return s;
}

/* Java's Integer.parseInt: optional sign, decimal digits, within int32. */
static int parse_java_int(const char *s, int32_t *out)
{
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return -1;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > (int64_t)INT32_MAX + 1)
            return -1;
    }
    if (neg)
        v = -v;
    if (v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

static int int_param(const char *name, const char *value, int32_t *out, eng_err *err)
{
    char *v = unquote(value);
    if (!v)
        return eng_catalog_nomem(err);
    int rc = parse_java_int(v, out) == 0
                 ? 0
                 : eng_errorf(err, ENG_E_SYNTAX, "Invalid integer value %s for '%s'", v, name);
    eng_free(v);
    return rc;
}

/*
 * The options Cassandra's TableParams interprets, applied over *ttl, *gc and
 * *comment (a fresh string replaces *comment when given), then validated as
 * TableParams.validate does (ConfigurationException).
 */
static int table_params(const eng_option *opts, uint32_t n, int32_t *ttl, int32_t *gc,
                        char **comment, eng_err *err)
{
    int rc = 0;
    for (uint32_t i = 0; !rc && i < n; i++) {
        if (!opts[i].name || !opts[i].value)
            return eng_errorf(err, ENG_E_INVALID, "malformed table option");
        if (!strcmp(opts[i].name, "default_time_to_live")) {
            rc = int_param(opts[i].name, opts[i].value, ttl, err);
        } else if (!strcmp(opts[i].name, "gc_grace_seconds")) {
            rc = int_param(opts[i].name, opts[i].value, gc, err);
        } else if (!strcmp(opts[i].name, "comment")) {
            char *c = unquote(opts[i].value);
            if (!c)
                return eng_catalog_nomem(err);
            eng_free(*comment);
            *comment = c;
        }
    }
    if (rc)
        return rc;
    if (*ttl < 0)
        return eng_errorf(err, ENG_E_CONFIG,
                          "default_time_to_live must be greater than or equal to 0 (got %d)",
                          (int)*ttl);
    if (*ttl > MAX_TTL)
        return eng_errorf(err, ENG_E_CONFIG,
                          "default_time_to_live must be less than or equal to %d (got %d)", MAX_TTL,
                          (int)*ttl);
    if (*gc < 0)
        return eng_errorf(err, ENG_E_CONFIG,
                          "gc_grace_seconds must be greater than or equal to 0 (got %d)", (int)*gc);
    return 0;
}

static int opt_order(const void *a, const void *b)
{
    return strcmp(((const eng_option *)a)->name, ((const eng_option *)b)->name);
}

/*
 * base (sorted, may be NULL) with the given options replacing or adding, the
 * last of a repeated name winning, sorted by name; `skip_params` leaves out
 * the options TableParams interprets. Entries borrow the inputs' strings.
 */
static int merge_options(const eng_option *base, uint32_t n_base, const eng_option *given,
                         uint32_t n_given, int skip_params, eng_option **out, uint32_t *n_out)
{
    eng_option *o = eng_malloc(sizeof *o * (n_base + n_given + 1));
    if (!o)
        return ENG_E_NOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < n_base; i++)
        o[n++] = base[i];
    for (uint32_t i = 0; i < n_given; i++) {
        if (!given[i].name || !given[i].value) {
            eng_free(o);
            return ENG_E_INVALID;
        }
        if (skip_params && is_table_param(given[i].name))
            continue;
        uint32_t j = 0;
        while (j < n && strcmp(o[j].name, given[i].name) != 0)
            j++;
        o[j] = given[i];
        n += j == n;
    }
    qsort(o, n, sizeof *o, opt_order);
    *out = o;
    *n_out = n;
    return 0;
}

static int same_options(const eng_option *a, uint32_t na, const eng_option *b, uint32_t nb)
{
    if (na != nb)
        return 0;
    for (uint32_t i = 0; i < na; i++)
        if (strcmp(a[i].name, b[i].name) || strcmp(a[i].value, b[i].value))
            return 0;
    return 1;
}

static const char *find_option(const eng_option *o, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(o[i].name, name))
            return o[i].value;
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Table drafts                                                              */
/* ------------------------------------------------------------------------ */

/*
 * A table being changed: a copy of the snapshot's table (or a new one) whose
 * arrays are the draft's own. Strings and types are borrowed from the
 * snapshot or the caller, except those in `owned` and `comment_owned`, which
 * the draft frees. Only ever encoded, never published.
 */
typedef struct draft {
    eng_table t;
    eng_type **owned;
    uint32_t n_owned, cap_owned;
    char *comment_owned;
    eng_option *opts_owned;
} draft;

static int draft_init(draft *d, const eng_table *src, uint32_t more_cols, uint32_t more_owned)
{
    memset(d, 0, sizeof *d);
    d->t = *src;
    d->t.by_name = d->t.by_id = NULL;
    d->t.cols = eng_malloc(sizeof *d->t.cols * (src->n_cols + more_cols + 1));
    d->t.dropped = eng_malloc(sizeof *d->t.dropped * (src->n_dropped + more_cols + 1));
    d->owned = eng_malloc(sizeof *d->owned * (more_owned + 1));
    d->cap_owned = more_owned + 1;
    if (!d->t.cols || !d->t.dropped || !d->owned)
        return ENG_E_NOMEM;
    if (src->n_cols)
        memcpy(d->t.cols, src->cols, sizeof *d->t.cols * src->n_cols);
    if (src->n_dropped)
        memcpy(d->t.dropped, src->dropped, sizeof *d->t.dropped * src->n_dropped);
    return 0;
}

static void draft_free(draft *d)
{
    eng_free(d->t.cols);
    eng_free(d->t.dropped);
    for (uint32_t i = 0; i < d->n_owned; i++)
        eng_type_free(d->owned[i]);
    eng_free(d->owned);
    eng_free(d->comment_owned);
    eng_free(d->opts_owned);
}

/* Hands a type to the draft (room was reserved by draft_init). */
static eng_type *draft_own(draft *d, eng_type *t)
{
    if (t && d->n_owned < d->cap_owned)
        d->owned[d->n_owned++] = t;
    return t;
}

static int draft_column(const draft *d, const char *name)
{
    for (uint32_t i = 0; i < d->t.n_cols; i++)
        if (!strcmp(d->t.cols[i].name, name))
            return (int)i;
    return -1;
}

static int put_draft(MDB_txn *txn, MDB_dbi meta, draft *d, eng_err *err)
{
    eng_buf key = ENG_BUF_INIT, val = ENG_BUF_INIT;
    qsort(d->t.cols, d->t.n_cols, sizeof *d->t.cols, eng_column_order);
    eng_catalog_make_key(&key, 'T', d->t.ks, d->t.name);
    eng_catalog_encode_table(&val, &d->t);
    int rc = eng_catalog_meta_put(txn, meta, &key, &val, err);
    eng_buf_free(&key);
    eng_buf_free(&val);
    return rc;
}

/*
 * Cassandra's TableMetadata.validate on counters: a counter table takes
 * counters only, any other table none (ConfigurationException, "ks.table: ").
 */
static int check_counter_mix(const draft *d, eng_err *err)
{
    for (uint32_t i = 0; i < d->t.n_cols; i++) {
        const eng_column *c = &d->t.cols[i];
        if (c->kind <= ENG_COL_CLUSTERING || !eng_type_is_counter(c->type) == !d->t.is_counter)
            continue;
        return eng_errorf(
            err, ENG_E_CONFIG,
            d->t.is_counter ? "%s.%s: Cannot have a non counter column (\"%s\") in a counter table"
                            : "%s.%s: Cannot have a counter column (\"%s\") in a non counter table",
            d->t.ks, d->t.name, c->name);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Keyspaces                                                                 */
/* ------------------------------------------------------------------------ */

/* KeyspaceAttributes: a replication map must name its strategy class. */
static int check_replication(const eng_option *repl, uint32_t n, eng_err *err)
{
    for (uint32_t i = 0; i < n; i++)
        if (!repl[i].name || !repl[i].value)
            return eng_errorf(err, ENG_E_INVALID, "malformed replication option");
    if (n && !find_option(repl, n, "class"))
        return eng_errorf(err, ENG_E_CONFIG, "Missing replication strategy class");
    return 0;
}

static int put_keyspace(MDB_txn *txn, MDB_dbi meta, const char *ks, const eng_option *repl,
                        uint32_t n, int durable, eng_err *err)
{
    eng_buf key = ENG_BUF_INIT, val = ENG_BUF_INIT;
    eng_catalog_make_key(&key, 'K', ks, NULL);
    eng_catalog_encode_keyspace(&val, repl, n, durable);
    int rc = eng_catalog_meta_put(txn, meta, &key, &val, err);
    eng_buf_free(&key);
    eng_buf_free(&val);
    return rc;
}

int eng_catalog_create_keyspace(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                                const eng_option *repl, uint32_t n_repl, int durable_writes,
                                int if_not_exists, int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    if (!n_repl)
        return eng_errorf(err, ENG_E_INVALID, "Missing mandatory option 'replication'");
    if ((rc = check_replication(repl, n_repl, err)))
        return rc;
    if (eng_schema_keyspace(cur, ks)) {
        if (if_not_exists)
            return 0;
        return already_exists(err, ks, "", "Cannot add existing keyspace \"%s\"", ks);
    }
    eng_option *o;
    uint32_t n;
    if (merge_options(NULL, 0, repl, n_repl, 0, &o, &n))
        return eng_catalog_nomem(err);
    rc = put_keyspace(txn, meta, ks, o, n, durable_writes != 0, err);
    eng_free(o);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

int eng_catalog_alter_keyspace(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                               const eng_option *repl, uint32_t n_repl, int durable_writes,
                               int if_exists, int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc || (rc = check_replication(repl, n_repl, err)))
        return rc;
    const eng_keyspace *k = eng_schema_keyspace(cur, ks);
    if (!k)
        return if_exists ? 0 : eng_errorf(err, ENG_E_INVALID, "Keyspace '%s' doesn't exist", ks);
    eng_option *o;
    uint32_t n;
    /* a new replication map replaces the old one whole (KeyspaceParams) */
    if (n_repl ? merge_options(NULL, 0, repl, n_repl, 0, &o, &n)
               : merge_options(k->repl, k->n_repl, NULL, 0, 0, &o, &n))
        return eng_catalog_nomem(err);
    int durable = durable_writes < 0 ? k->durable_writes : durable_writes != 0;
    if (durable == k->durable_writes && same_options(o, n, k->repl, k->n_repl)) {
        eng_free(o);
        return 0;
    }
    rc = put_keyspace(txn, meta, ks, o, n, durable, err);
    eng_free(o);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

int eng_catalog_drop_keyspace(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                              int if_exists, int *changed, eng_buf *dropped_ids, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    if (!eng_schema_keyspace(cur, ks))
        return if_exists ? 0 : eng_errorf(err, ENG_E_INVALID, "Keyspace '%s' doesn't exist", ks);
    eng_buf key = ENG_BUF_INIT;
    for (uint32_t i = 0; !rc && i < cur->n_tables; i++) {
        const eng_table *t = &cur->tables[i];
        if (strcmp(t->ks, ks) != 0)
            continue;
        eng_catalog_make_key(&key, 'T', ks, t->name);
        rc = eng_catalog_meta_del(txn, meta, &key, err);
        if (!rc && dropped_ids) {
            eng_buf_put(dropped_ids, t->id, 16);
            if (dropped_ids->oom)
                rc = eng_catalog_nomem(err);
        }
    }
    for (uint32_t i = 0; !rc && i < cur->n_types; i++) {
        if (strcmp(cur->types[i]->ks, ks) != 0)
            continue;
        eng_catalog_make_key(&key, 'Y', ks, cur->types[i]->name);
        rc = eng_catalog_meta_del(txn, meta, &key, err);
    }
    if (!rc) {
        eng_catalog_make_key(&key, 'K', ks, NULL);
        rc = eng_catalog_meta_del(txn, meta, &key, err);
    }
    eng_buf_free(&key);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

/* ------------------------------------------------------------------------ */
/* CREATE TABLE / DROP TABLE                                                 */
/* ------------------------------------------------------------------------ */

static int is_key_kind(int kind)
{
    return kind == ENG_COL_PARTITION || kind == ENG_COL_CLUSTERING;
}

/*
 * The rules Cassandra applies while parsing CREATE TABLE, before anything
 * else: no column declared twice, a PRIMARY KEY present. Repeats that stand
 * for PRIMARY KEY mistakes (see eng_column_def) are reported later, in
 * Cassandra's order.
 */
static int check_declarations(const eng_table_def *def, eng_err *err)
{
    int has_pk = 0;
    for (uint32_t i = 0; i < def->n_cols; i++) {
        const eng_column_def *c = &def->cols[i];
        if (!c->name || c->kind > ENG_COL_REGULAR || (!c->type && !is_key_kind(c->kind)))
            return eng_errorf(err, ENG_E_INVALID, "malformed column definition");
        has_pk |= c->kind == ENG_COL_PARTITION;
        for (uint32_t j = 0; j < i; j++) {
            int ki = is_key_kind(c->kind), kj = is_key_kind(def->cols[j].kind);
            if (strcmp(c->name, def->cols[j].name) != 0 || (ki && kj) ||
                (ki && def->cols[j].kind == ENG_COL_STATIC) || (kj && c->kind == ENG_COL_STATIC))
                continue;
            return eng_errorf(err, ENG_E_INVALID,
                              "Duplicate column '%s' declaration for table '%s'", c->name,
                              def->name);
        }
    }
    if (!has_pk)
        return eng_errorf(err, ENG_E_INVALID,
                          "No PRIMARY KEY specifed for table '%s' (exactly one required)",
                          def->name);
    return 0;
}

/* Cassandra names a non-frozen UDT here by its quoted "ks.name" (CQL3Type.UserDefined). */
static int non_frozen_key_udt(eng_err *err, const eng_type *t, const char *column)
{
    eng_buf b = ENG_BUF_INIT, full = ENG_BUF_INIT;
    eng_buf_printf(&full, "%s.%s", t->ks ? t->ks : "", t->name ? t->name : "");
    eng_buf_put_str(&b, "Invalid non-frozen user-defined type ");
    const char *s = eng_buf_cstr(&full);
    if (s)
        put_quoted(&b, s);
    else
        b.oom = 1;
    eng_buf_printf(&b, " for PRIMARY KEY column '%s'", column);
    eng_buf_free(&full);
    return error_buf(err, ENG_E_INVALID, &b);
}

/* One PRIMARY KEY column, in the order of CreateTableStatement's checks. */
static int check_key_column(const eng_table_def *def, uint32_t i, const eng_type *t,
                            const char *const *seen, uint32_t n_seen, eng_err *err)
{
    const char *name = def->cols[i].name;
    if (!t)
        return eng_errorf(err, ENG_E_INVALID,
                          "Unknown column '%s' referenced in PRIMARY KEY for table '%s'", name,
                          def->name);
    for (uint32_t j = 0; j < n_seen; j++)
        if (!strcmp(seen[j], name))
            return eng_errorf(err, ENG_E_INVALID,
                              "Duplicate column '%s' in PRIMARY KEY clause for table '%s'", name,
                              def->name);
    if (eng_type_is_multicell(t)) {
        if (t->kind == ENG_UDT)
            return non_frozen_key_udt(err, t, name);
        eng_buf b = ENG_BUF_INIT;
        eng_buf_put_str(&b, "Invalid non-frozen collection type ");
        eng_type_to_cql(t, &b);
        eng_buf_printf(&b, " for PRIMARY KEY column '%s'", name);
        return error_buf(err, ENG_E_INVALID, &b);
    }
    if (eng_type_is_counter(t))
        return eng_errorf(err, ENG_E_INVALID,
                          "counter type is not supported for PRIMARY KEY column '%s'", name);
    if (eng_type_contains_kind(t, ENG_DURATION))
        return eng_errorf(err, ENG_E_INVALID,
                          "duration type is not supported for PRIMARY KEY column '%s'", name);
    for (uint32_t j = 0; j < def->n_cols; j++)
        if (def->cols[j].kind == ENG_COL_STATIC && !strcmp(def->cols[j].name, name))
            return eng_errorf(err, ENG_E_INVALID,
                              "Static column '%s' cannot be part of the PRIMARY KEY", name);
    return 0;
}

/* Partition key columns in order, then clustering columns in order. */
static int check_primary_key(const eng_table_def *def, eng_type *const *prep, eng_err *err)
{
    const char **seen = eng_malloc(sizeof *seen * (def->n_cols + 1));
    if (!seen)
        return eng_catalog_nomem(err);
    uint32_t n_seen = 0;
    int rc = 0;
    for (int kind = ENG_COL_PARTITION; !rc && kind <= ENG_COL_CLUSTERING; kind++)
        for (uint32_t i = 0; !rc && i < def->n_cols; i++) {
            if (def->cols[i].kind != kind)
                continue;
            rc = check_key_column(def, i, prep[i], seen, n_seen, err);
            seen[n_seen++] = def->cols[i].name;
        }
    eng_free(seen);
    return rc;
}

/* Types as Cassandra prepares them, then its check on non-frozen UDTs. */
static int prepare_columns(const eng_schema *cur, const eng_table_def *def, draft *d,
                           eng_type **prep, eng_err *err)
{
    for (uint32_t i = 0; i < def->n_cols; i++) {
        if (!def->cols[i].type)
            continue;
        int rc = prepare_type(cur, def->ks, def->cols[i].type, &prep[i], err);
        draft_own(d, prep[i]);
        if (!rc)
            rc = check_depth(eng_type_depth(prep[i]), "Column", NULL, def->cols[i].name, err);
        if (rc)
            return rc;
    }
    for (uint32_t i = 0; i < def->n_cols; i++)
        if (prep[i] && udt_nests_multicell(prep[i]))
            return eng_errorf(
                err, ENG_E_INVALID,
                "Non-frozen UDTs with nested non-frozen collections are not supported");
    return 0;
}

/* Columns in the draft; the key positions follow the order of appearance. */
static void add_def_columns(draft *d, const eng_table_def *def, eng_type *const *prep)
{
    uint16_t npk = 0, nck = 0;
    for (uint32_t i = 0; i < def->n_cols; i++) {
        const eng_column_def *c = &def->cols[i];
        eng_column *col = &d->t.cols[d->t.n_cols++];
        memset(col, 0, sizeof *col);
        col->name = (char *)c->name; /* borrowed: the draft is only encoded */
        col->type = prep[i];
        col->kind = c->kind;
        col->desc = c->kind == ENG_COL_CLUSTERING && c->desc;
        col->position = c->kind == ENG_COL_PARTITION    ? npk++
                        : c->kind == ENG_COL_CLUSTERING ? nck++
                                                        : 0;
    }
    d->t.n_pk = npk;
    d->t.n_ck = nck;
}

/* What CreateTableStatement checks once the key is sound, then TableMetadata.validate. */
static int check_table_shape(const eng_table_def *def, draft *d, eng_err *err)
{
    /* Ours, not Cassandra's: see ENG_MAX_KEY_COLUMNS (docs/compat.md). */
    if (d->t.n_pk > ENG_MAX_KEY_COLUMNS || d->t.n_ck > ENG_MAX_KEY_COLUMNS)
        return eng_errorf(err, ENG_E_INVALID,
                          "Table %s.%s has %u %s key columns: cassette allows at most %d",
                          def->ks, def->name, d->t.n_pk > ENG_MAX_KEY_COLUMNS ? d->t.n_pk : d->t.n_ck,
                          d->t.n_pk > ENG_MAX_KEY_COLUMNS ? "partition" : "clustering",
                          ENG_MAX_KEY_COLUMNS);
    for (uint32_t i = 0; i < def->n_cols; i++)
        if (def->cols[i].desc && def->cols[i].kind != ENG_COL_CLUSTERING)
            return eng_errorf(
                err, ENG_E_INVALID,
                "Only clustering columns can be defined in CLUSTERING ORDER directive");
    int has_static = 0, has_counter = 0, has_other = 0;
    for (uint32_t i = 0; i < d->t.n_cols; i++) {
        const eng_column *c = &d->t.cols[i];
        has_static |= c->kind == ENG_COL_STATIC;
        has_counter |= eng_type_is_counter(c->type);
        has_other |= !is_key_kind(c->kind) && !eng_type_is_counter(c->type);
    }
    if (has_static && d->t.n_ck == 0)
        return eng_errorf(err, ENG_E_INVALID,
                          "Static columns are only useful (and thus allowed) "
                          "if the table has at least one clustering column");
    if (has_counter && has_other)
        return eng_errorf(err, ENG_E_INVALID,
                          "Cannot mix counter and non counter columns in the same table");
    if (has_counter && d->t.default_ttl_s > 0)
        return eng_errorf(err, ENG_E_INVALID,
                          "Cannot set default_time_to_live on a table with counters");
    d->t.is_counter = (uint8_t)has_counter;
    const char *ks = def->ks, *name = def->name;
    if (!is_word(name))
        return eng_errorf(err, ENG_E_CONFIG,
                          "%s.%s: Table name must not be empty or not contain "
                          "non-alphanumeric-underscore characters (got \"%s\")",
                          ks, name, name);
    if (strlen(name) > TABLE_NAME_LENGTH)
        return eng_errorf(err, ENG_E_CONFIG,
                          "%s.%s: Table name must not be more than %d characters long (got %zu "
                          "characters for \"%s\")",
                          ks, name, TABLE_NAME_LENGTH, strlen(name), name);
    return 0;
}

/* Column ids in SELECT * order; a table id from libuuid's time UUIDs (no hot path). */
static void assign_ids(draft *d)
{
    qsort(d->t.cols, d->t.n_cols, sizeof *d->t.cols, eng_column_order);
    for (uint32_t i = 0; i < d->t.n_cols; i++)
        d->t.cols[i].id = i;
    d->t.next_col_id = d->t.n_cols;
    uuid_t u;
    uuid_generate_time(u);
    memcpy(d->t.id, u, 16);
}

static int build_new_table(const eng_schema *cur, const eng_table_def *def, draft *d, eng_err *err)
{
    static char no_comment[] = "";
    eng_table base;
    memset(&base, 0, sizeof base);
    base.ks = (char *)def->ks; /* borrowed: the draft is only encoded */
    base.name = (char *)def->name;
    base.gc_grace_s = DEFAULT_GC_GRACE;
    base.comment = no_comment;
    if (draft_init(d, &base, def->n_cols, def->n_cols))
        return eng_catalog_nomem(err);
    int rc = table_params(def->opts, def->n_opts, &d->t.default_ttl_s, &d->t.gc_grace_s,
                          &d->comment_owned, err);
    if (rc)
        return rc;
    if (d->comment_owned)
        d->t.comment = d->comment_owned;
    rc = merge_options(NULL, 0, def->opts, def->n_opts, 1, &d->opts_owned, &d->t.n_opts);
    if (rc)
        return rc == ENG_E_NOMEM ? eng_catalog_nomem(err)
                                 : eng_errorf(err, rc, "malformed table option");
    d->t.opts = d->opts_owned;
    eng_type **prep = eng_calloc(def->n_cols + 1, sizeof *prep);
    if (!prep)
        return eng_catalog_nomem(err);
    rc = prepare_columns(cur, def, d, prep, err);
    if (!rc)
        rc = check_primary_key(def, prep, err);
    if (!rc) {
        add_def_columns(d, def, prep);
        rc = check_table_shape(def, d, err);
    }
    eng_free(prep);
    if (!rc)
        assign_ids(d);
    return rc;
}

int eng_catalog_create_table(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur,
                             const eng_table_def *def, int if_not_exists, int64_t now_us,
                             uint8_t id_out[16], int *changed, eng_err *err)
{
    (void)now_us;
    int dummy;
    changed = changed ? changed : &dummy;
    *changed = 0;
    if (!def || !def->ks || !def->name || (def->n_cols && !def->cols) ||
        (def->n_opts && !def->opts) || def->n_cols > UINT16_MAX)
        return eng_errorf(err, ENG_E_INVALID, "malformed table definition");
    int rc = check_declarations(def, err);
    if (rc || (rc = ddl_begin(txn, meta, cur, def->ks, changed, err)))
        return rc;
    if (!eng_schema_keyspace(cur, def->ks))
        return eng_errorf(err, ENG_E_INVALID, "Keyspace '%s' doesn't exist", def->ks);
    const eng_table *old = eng_schema_table(cur, def->ks, def->name);
    if (old) {
        if (!if_not_exists)
            return already_exists(err, def->ks, def->name,
                                  "Cannot add already existing table \"%s\" to keyspace \"%s\"",
                                  def->name, def->ks);
        if (id_out)
            memcpy(id_out, old->id, 16);
        return 0;
    }
    draft d;
    rc = build_new_table(cur, def, &d, err);
    if (!rc)
        rc = put_draft(txn, meta, &d, err);
    if (!rc && id_out)
        memcpy(id_out, d.t.id, 16);
    draft_free(&d);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

int eng_catalog_drop_table(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                           const char *name, int if_exists, uint8_t id_out[16], int *changed,
                           eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    const eng_table *t = name ? eng_schema_table(cur, ks, name) : NULL;
    if (!t)
        return if_exists ? 0 : table_missing(err, ks, name ? name : "");
    eng_buf key = ENG_BUF_INIT;
    eng_catalog_make_key(&key, 'T', ks, name);
    rc = eng_catalog_meta_del(txn, meta, &key, err);
    eng_buf_free(&key);
    if (!rc && id_out)
        memcpy(id_out, t->id, 16);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

/* ------------------------------------------------------------------------ */
/* ALTER TABLE                                                               */
/* ------------------------------------------------------------------------ */

/* The table of an ALTER TABLE, or NULL with *rc = 0 when IF EXISTS makes it a no-op. */
static const eng_table *altered_table(const eng_schema *cur, const char *ks, const char *table,
                                      int if_exists, int *rc, eng_err *err)
{
    const eng_table *t = table ? eng_schema_table(cur, ks, table) : NULL;
    *rc = 0;
    if (!t && !if_exists)
        *rc = table_missing(err, ks, table ? table : "");
    return t;
}

static const eng_dropped_column *find_dropped(const eng_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_dropped; i++)
        if (!strcmp(t->dropped[i].name, name))
            return &t->dropped[i];
    return NULL;
}

static const char *kind_name(int kind)
{
    return kind == ENG_COL_STATIC ? "STATIC" : "REGULAR";
}

/* AlterTableStatement.AddColumns: re-adding a dropped column must match what it was. */
static int check_readd(const eng_table *t, const char *name, const eng_type *type, int kind,
                       eng_err *err)
{
    const eng_dropped_column *dc = find_dropped(t, name);
    if (!dc)
        return 0;
    eng_type *expanded = expand_udts(type);
    if (!expanded)
        return eng_catalog_nomem(err);
    int ok = serialization_compatible(expanded, dc->type);
    eng_type_free(expanded);
    if (!ok) {
        eng_buf b = ENG_BUF_INIT;
        eng_buf_printf(&b, "Cannot re-add previously dropped column '%s' of type ", name);
        eng_type_to_cql(type, &b);
        eng_buf_put_str(&b, ", incompatible with previous type ");
        eng_type_to_cql(dc->type, &b);
        return error_buf(err, ENG_E_INVALID, &b);
    }
    if (dc->kind != kind)
        return eng_errorf(err, ENG_E_INVALID,
                          "Cannot re-add previously dropped column '%s' of kind %s, incompatible "
                          "with previous kind %s",
                          name, kind_name(kind), kind_name(dc->kind));
    /* counters cannot come back: their old shards would be read again (CASSANDRA-7831) */
    if (t->is_counter)
        return eng_errorf(err, ENG_E_INVALID, "Cannot re-add previously dropped counter column %s",
                          name);
    return 0;
}

/* One column of ALTER TABLE ADD, in AddColumns.addColumn's order; *skip for IF NOT EXISTS. */
static int add_one_column(const eng_schema *cur, draft *d, const eng_table *t,
                          const eng_column_def *c, int if_not_exists, eng_err *err)
{
    if (!c->name || !c->type || (c->kind != ENG_COL_STATIC && c->kind != ENG_COL_REGULAR))
        return eng_errorf(err, ENG_E_INVALID, "malformed column definition");
    eng_type *type = NULL;
    int rc = prepare_type(cur, t->ks, c->type, &type, err);
    draft_own(d, type);
    if (!rc)
        rc = check_depth(eng_type_depth(type), "Column", NULL, c->name, err);
    if (rc)
        return rc;
    if (draft_column(d, c->name) >= 0)
        return if_not_exists ? 0
                             : eng_errorf(err, ENG_E_INVALID,
                                          "Column with name '%s' already exists", c->name);
    if (c->kind == ENG_COL_STATIC && t->n_ck == 0)
        return eng_errorf(err, ENG_E_INVALID,
                          "Static columns are only useful (and thus allowed) "
                          "if the table has at least one clustering column");
    if (udt_nests_multicell(type))
        return eng_errorf(err, ENG_E_INVALID,
                          "Non-frozen UDTs with nested non-frozen collections are not supported "
                          "for column %s",
                          c->name);
    if ((rc = check_readd(t, c->name, type, c->kind, err)))
        return rc;
    eng_column *col = &d->t.cols[d->t.n_cols++];
    memset(col, 0, sizeof *col);
    col->name = (char *)c->name; /* borrowed: the draft is only encoded */
    col->type = type;
    col->kind = c->kind;
    col->id = d->t.next_col_id++; /* never reused: old cells of a dropped column stay dead */
    return 0;
}

int eng_catalog_add_columns(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                            const char *table, const eng_column_def *cols, uint32_t n,
                            int if_not_exists, int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    const eng_table *t = altered_table(cur, ks, table, if_not_exists & ENG_IF_TABLE, &rc, err);
    if (!t)
        return rc;
    if (n && !cols)
        return eng_errorf(err, ENG_E_INVALID, "malformed column definition");
    draft d;
    rc = draft_init(&d, t, n, n) ? eng_catalog_nomem(err) : 0;
    for (uint32_t i = 0; !rc && i < n; i++)
        rc = add_one_column(cur, &d, t, &cols[i], if_not_exists & ENG_IF_COLUMN, err);
    int added = d.t.n_cols > t->n_cols;
    if (!rc && added)
        rc = check_counter_mix(&d, err);
    if (!rc && added)
        rc = put_draft(txn, meta, &d, err);
    draft_free(&d);
    return (rc || !added) ? rc : ddl_done(txn, meta, changed, err);
}

/* One column of ALTER TABLE DROP, in DropColumns.dropColumn's order. */
static int drop_one_column(draft *d, const eng_table *t, const char *name, int if_exists,
                           int64_t now_us, eng_err *err)
{
    int i = name ? draft_column(d, name) : -1;
    if (i < 0) {
        if (if_exists || (name && find_dropped(&d->t, name) && eng_table_column(t, name)))
            return 0; /* IF EXISTS, or named twice in this DROP */
        eng_buf b = ENG_BUF_INIT;
        eng_buf_printf(&b, "Column %s was not found in table '", name ? name : "");
        put_qualified(&b, t->ks, t->name);
        eng_buf_put_u8(&b, '\'');
        return error_buf(err, ENG_E_INVALID, &b);
    }
    const eng_column *c = &d->t.cols[i];
    if (is_key_kind(c->kind))
        return eng_errorf(err, ENG_E_INVALID, "Cannot drop PRIMARY KEY column %s", name);
    /* a non-frozen UDT cannot be recorded as a (frozen) tuple */
    if (c->type->kind == ENG_UDT && eng_type_is_multicell(c->type)) {
        eng_buf b = ENG_BUF_INIT;
        eng_buf_printf(&b, "Cannot drop non-frozen column %s of user type ", name);
        eng_type_to_cql(c->type, &b);
        return error_buf(err, ENG_E_INVALID, &b);
    }
    int rc = check_dropped_type(c->type, name, err);
    if (rc)
        return rc;
    eng_type *kept = draft_own(d, expand_udts(c->type));
    if (!kept)
        return eng_catalog_nomem(err);
    uint32_t j = 0;
    while (j < d->t.n_dropped && strcmp(d->t.dropped[j].name, name) != 0)
        j++;
    d->t.dropped[j] = (eng_dropped_column){c->name, kept, now_us, c->kind};
    d->t.n_dropped += j == d->t.n_dropped;
    d->t.cols[i] = d->t.cols[--d->t.n_cols];
    return 0;
}

int eng_catalog_drop_columns(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                             const char *table, const char *const *names, uint32_t n, int if_exists,
                             int64_t now_us, int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    const eng_table *t = altered_table(cur, ks, table, if_exists & ENG_IF_TABLE, &rc, err);
    if (!t)
        return rc;
    if (n && !names)
        return eng_errorf(err, ENG_E_INVALID, "malformed column list");
    draft d;
    rc = draft_init(&d, t, n, n) ? eng_catalog_nomem(err) : 0;
    for (uint32_t i = 0; !rc && i < n; i++)
        rc = drop_one_column(&d, t, names[i], if_exists & ENG_IF_COLUMN, now_us, err);
    int dropped = d.t.n_cols < t->n_cols;
    if (!rc && dropped)
        rc = put_draft(txn, meta, &d, err);
    draft_free(&d);
    return (rc || !dropped) ? rc : ddl_done(txn, meta, changed, err);
}

/*
 * RENAME reads the column through TableMetadata.getExistingColumn, which
 * fails before IF EXISTS is consulted (Cassandra 4.1 and 5.0 alike).
 */
static int check_rename(const eng_table *t, const char *from, const char *to, eng_err *err)
{
    const eng_column *c = eng_table_column(t, from);
    eng_buf b = ENG_BUF_INIT;
    if (!c) {
        eng_buf_put_str(&b, "Undefined column name ");
        put_quoted(&b, from);
        eng_buf_put_str(&b, " in table ");
        put_qualified(&b, t->ks, t->name);
        return error_buf(err, ENG_E_INVALID, &b);
    }
    if (!is_key_kind(c->kind))
        return eng_errorf(err, ENG_E_INVALID, "Cannot rename non PRIMARY KEY column %s", from);
    if (eng_table_column(t, to)) {
        eng_buf_printf(&b, "Cannot rename column %s to %s in table '", from, to);
        put_qualified(&b, t->ks, t->name);
        eng_buf_put_str(&b, "'; another column with that name already exists");
        return error_buf(err, ENG_E_INVALID, &b);
    }
    return 0;
}

int eng_catalog_rename_column(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                              const char *table, const char *from, const char *to, int if_exists,
                              int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    const eng_table *t = altered_table(cur, ks, table, if_exists & ENG_IF_TABLE, &rc, err);
    if (!t)
        return rc;
    if (!from || !to)
        return eng_errorf(err, ENG_E_INVALID, "malformed column name");
    if ((rc = check_rename(t, from, to, err)))
        return rc;
    draft d;
    rc = draft_init(&d, t, 0, 0) ? eng_catalog_nomem(err) : 0;
    if (!rc) {
        d.t.cols[draft_column(&d, from)].name = (char *)to; /* borrowed: only encoded */
        rc = put_draft(txn, meta, &d, err);
    }
    draft_free(&d);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

int eng_catalog_alter_table_options(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur,
                                    const char *ks, const char *table, const eng_option *opts,
                                    uint32_t n, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    const eng_table *t = altered_table(cur, ks, table, if_exists, &rc, err);
    if (!t)
        return rc;
    if (n && !opts)
        return eng_errorf(err, ENG_E_INVALID, "malformed table option");
    draft d;
    rc = draft_init(&d, t, 0, 0) ? eng_catalog_nomem(err) : 0;
    if (!rc)
        rc = table_params(opts, n, &d.t.default_ttl_s, &d.t.gc_grace_s, &d.comment_owned, err);
    if (!rc && t->is_counter && d.t.default_ttl_s > 0)
        rc = eng_errorf(err, ENG_E_INVALID,
                        "Cannot set default_time_to_live on a table with counters");
    if (!rc && merge_options(t->opts, t->n_opts, opts, n, 1, &d.opts_owned, &d.t.n_opts))
        rc = eng_catalog_nomem(err);
    d.t.opts = d.opts_owned;
    if (d.comment_owned)
        d.t.comment = d.comment_owned;
    int same = !rc && d.t.default_ttl_s == t->default_ttl_s && d.t.gc_grace_s == t->gc_grace_s &&
               !strcmp(d.t.comment, t->comment) &&
               same_options(d.t.opts, d.t.n_opts, t->opts, t->n_opts);
    if (!rc && !same)
        rc = put_draft(txn, meta, &d, err);
    draft_free(&d);
    return (rc || same) ? rc : ddl_done(txn, meta, changed, err);
}

/* ------------------------------------------------------------------------ */
/* User types                                                                */
/* ------------------------------------------------------------------------ */

static int put_udt(MDB_txn *txn, MDB_dbi meta, const char *ks, const char *name,
                   const eng_type *udt, eng_err *err)
{
    eng_buf key = ENG_BUF_INIT, val = ENG_BUF_INIT;
    eng_catalog_make_key(&key, 'Y', ks, name);
    eng_catalog_encode_udt(&val, udt);
    int rc = 0;
    MDB_env *env = mdb_txn_env(txn);
    if (!key.oom && key.len > (size_t)mdb_env_get_maxkeysize(env))
        rc = eng_errorf(err, ENG_E_INVALID,
                        "User type name %s is too long: keyspace and type names must fit in %d "
                        "bytes",
                        name, mdb_env_get_maxkeysize(env) - 3);
    if (!rc)
        rc = eng_catalog_meta_put(txn, meta, &key, &val, err);
    eng_buf_free(&key);
    eng_buf_free(&val);
    return rc;
}

/* The user type of an ALTER TYPE, or NULL with *rc = 0 when IF EXISTS makes it a no-op. */
static const eng_type *altered_udt(const eng_schema *cur, const char *ks, const char *name,
                                   int if_exists, int *rc, eng_err *err)
{
    const eng_type *t = name ? eng_schema_udt(cur, ks, name) : NULL;
    *rc = 0;
    if (!t && !if_exists)
        *rc = eng_errorf(err, ENG_E_INVALID, "Type %s.%s doesn't exist", ks, name ? name : "");
    return t;
}

/* CreateTypeStatement's rules on a field type as written. */
static int check_field_type(const eng_type *t, eng_err *err)
{
    if (!t)
        return malformed_type(err);
    if (t->kind == ENG_COUNTER)
        return eng_errorf(err, ENG_E_INVALID, "A user type cannot contain counters");
    if (t->kind == ENG_UDT && !t->frozen)
        return eng_errorf(err, ENG_E_INVALID, "A user type cannot contain non-frozen UDTs");
    return 0;
}

/* A new user type record: fields (borrowed names) and prepared types. */
static eng_type *new_udt(const char *ks, const char *name, const char *const *fields,
                         eng_type **types, uint32_t n)
{
    char **names = eng_calloc(n + 1, sizeof *names);
    int ok = names != NULL;
    for (uint32_t i = 0; ok && i < n; i++)
        ok = (names[i] = eng_strdup(fields[i])) != NULL;
    if (!ok) {
        for (uint32_t i = 0; names && i < n; i++)
            eng_free(names[i]);
        for (uint32_t i = 0; i < n; i++)
            eng_type_free(types[i]);
        eng_free(names);
        return NULL;
    }
    eng_type *t = eng_type_new_udt(ks, name, names, types, (int)n, 0);
    eng_free(names);
    return t;
}

/* Prepares every field type; on failure the ones made are freed. */
static int prepare_fields(const eng_schema *cur, const char *ks, const eng_type *const *types,
                          uint32_t n, eng_type **out, eng_err *err)
{
    int rc = 0;
    for (uint32_t i = 0; !rc && i < n; i++)
        rc = check_field_type(types[i], err);
    for (uint32_t i = 0; !rc && i < n; i++)
        rc = prepare_type(cur, ks, types[i], &out[i], err);
    if (rc)
        for (uint32_t i = 0; i < n; i++) {
            eng_type_free(out[i]);
            out[i] = NULL;
        }
    return rc;
}

int eng_catalog_create_type(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                            const char *name, const char *const *fields,
                            const eng_type *const *types, uint32_t n, int if_not_exists,
                            int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    if (!name || (n && (!fields || !types)) || n > UINT16_MAX)
        return eng_errorf(err, ENG_E_INVALID, "malformed type definition");
    if (!eng_schema_keyspace(cur, ks))
        return eng_errorf(err, ENG_E_INVALID, "Keyspace '%s' doesn't exist", ks);
    if (eng_schema_udt(cur, ks, name))
        return if_not_exists ? 0
                             : eng_errorf(err, ENG_E_INVALID,
                                          "A user type with name '%s' already exists", name);
    for (uint32_t i = 0; i < n; i++) {
        if (!fields[i])
            return eng_errorf(err, ENG_E_INVALID, "malformed type definition");
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(fields[i], fields[j]))
                return eng_errorf(err, ENG_E_INVALID, "Duplicate field name '%s' in type '%s'",
                                  fields[i], name);
    }
    eng_type **prep = eng_calloc(n + 1, sizeof *prep);
    if (!prep)
        return eng_catalog_nomem(err);
    rc = prepare_fields(cur, ks, types, n, prep, err);
    if (!rc && (rc = check_depth(udt_levels(prep, n), "User type", ks, name, err)))
        for (uint32_t i = 0; i < n; i++)
            eng_type_free(prep[i]);
    eng_type *udt = rc ? NULL : new_udt(ks, name, fields, prep, n);
    eng_free(prep);
    if (!rc && !udt)
        rc = eng_catalog_nomem(err);
    if (!rc)
        rc = put_udt(txn, meta, ks, name, udt, err);
    eng_type_free(udt);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

/* Names (of user types or tables) that use ks.name (uu), sorted, joined by ", ". */
static void list_users(const udt_users *uu, const char *ks, const char *name, int tables,
                       eng_buf *out)
{
    const eng_schema *cur = uu->cur;
    int first = 1;
    if (!tables) {
        for (uint32_t i = 0; i < cur->n_types; i++) {
            const eng_type *u = cur->types[i];
            if (!uu->marks[i] || strcmp(u->ks, ks) || !strcmp(u->name, name))
                continue;
            eng_buf_printf(out, "%s%s", first ? "" : ", ", u->name);
            first = 0;
        }
        return;
    }
    for (uint32_t i = 0; i < cur->n_tables; i++) {
        const eng_table *t = &cur->tables[i];
        if (strcmp(t->ks, ks))
            continue;
        for (uint32_t c = 0; c < t->n_cols; c++)
            if (names_marked(uu, t->cols[c].type)) {
                eng_buf_printf(out, "%s%s", first ? "" : ", ", t->name);
                first = 0;
                break;
            }
    }
}

/* DropTypeStatement: a type still used by another type or a table stays. */
static int check_type_unused(const eng_schema *cur, const char *ks, const char *name, eng_err *err)
{
    udt_users uu;
    int rc = find_users(&uu, cur, ks, name, err);
    for (int tables = 0; !rc && tables <= 1; tables++) {
        eng_buf users = ENG_BUF_INIT;
        list_users(&uu, ks, name, tables, &users);
        if (!users.len && !users.oom)
            continue;
        const char *s = eng_buf_cstr(&users);
        rc = s ? eng_errorf(err, ENG_E_INVALID,
                            "Cannot drop user type '%s.%s' as it is still used by %s %s", ks, name,
                            tables ? "tables" : "user types", s)
               : eng_catalog_nomem(err);
        eng_buf_free(&users);
    }
    eng_free(uu.marks);
    return rc;
}

int eng_catalog_drop_type(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                          const char *name, int if_exists, int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    if (!name || !eng_schema_udt(cur, ks, name))
        return if_exists ? 0
                         : eng_errorf(err, ENG_E_INVALID, "Type '%s.%s' doesn't exist", ks,
                                      name ? name : "");
    if ((rc = check_type_unused(cur, ks, name, err)))
        return rc;
    eng_buf key = ENG_BUF_INIT;
    eng_catalog_make_key(&key, 'Y', ks, name);
    rc = eng_catalog_meta_del(txn, meta, &key, err);
    eng_buf_free(&key);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

/*
 * A type as CQL3Type.Raw prints it once prepared: user types by "ks.name",
 * unquoted, frozen<> only where written (tuples never). AddField's messages
 * print the new field's type this way.
 */
static void put_raw_type(eng_buf *b, const eng_type *t)
{
    int wrap = t->frozen && t->kind != ENG_TUPLE;
    if (t->kind != ENG_UDT && t->kind != ENG_LIST && t->kind != ENG_SET && t->kind != ENG_MAP &&
        t->kind != ENG_TUPLE) {
        eng_type_to_cql(t, b);
        return;
    }
    if (wrap)
        eng_buf_put_str(b, "frozen<");
    if (t->kind == ENG_UDT) {
        eng_buf_printf(b, "%s.%s", t->ks ? t->ks : "", t->name ? t->name : "");
    } else {
        eng_buf_put_str(b, t->kind == ENG_LIST  ? "list<"
                           : t->kind == ENG_SET ? "set<"
                           : t->kind == ENG_MAP ? "map<"
                                                : "tuple<");
        for (int i = 0; i < t->n_sub; i++) {
            eng_buf_put_str(b, i ? ", " : "");
            put_raw_type(b, t->sub[i]);
        }
        eng_buf_put_u8(b, '>');
    }
    if (wrap)
        eng_buf_put_u8(b, '>');
}

/* UserType.getCqlTypeName: "ks.name", each part maybe-quoted. */
static void put_udt_name(eng_buf *b, const eng_type *u)
{
    put_qualified(b, u->ks, u->name);
}

/* AlterTypeStatement.AddField's checks on the new field's prepared type. */
static int check_added_field(const udt_users *uu, const eng_type *u, const char *field,
                             const eng_type *type, eng_err *err)
{
    const eng_schema *cur = uu->cur;
    const char *why = NULL;
    eng_buf tables = ENG_BUF_INIT;
    if (names_marked(uu, type)) {
        why = " as it would create a circular reference";
    } else {
        for (uint32_t i = 0; i < cur->n_tables; i++) {
            const eng_table *t = &cur->tables[i];
            for (uint16_t c = 0; !strcmp(t->ks, u->ks) && c < t->n_pk; c++)
                if (names_marked(uu, t->cols[c].type)) {
                    eng_buf_put_str(&tables, tables.len ? ", " : "");
                    put_qualified(&tables, t->ks, t->name);
                    break;
                }
        }
        if (tables.len || tables.oom)
            why = " as the type is being used in partition key by the following tables: ";
    }
    if (!why) {
        eng_buf_free(&tables);
        return 0;
    }
    eng_buf b = ENG_BUF_INIT;
    eng_buf_printf(&b, "Cannot add new field %s of type ", field);
    put_raw_type(&b, type);
    eng_buf_put_str(&b, " to user type ");
    put_udt_name(&b, u);
    eng_buf_put_str(&b, why);
    eng_buf_put(&b, tables.p, tables.len);
    b.oom |= tables.oom;
    eng_buf_free(&tables);
    return error_buf(err, ENG_E_INVALID, &b);
}

/* u with its fields (borrowed) and one change: a field added, or one renamed. */
static int put_changed_udt(MDB_txn *txn, MDB_dbi meta, const eng_type *u, int rename_at,
                           const char *new_name, eng_type *added, eng_err *err)
{
    uint32_t n = u->n_sub + (added ? 1 : 0);
    eng_type view;
    memset(&view, 0, sizeof view);
    view.kind = ENG_UDT;
    view.n_sub = (uint16_t)n;
    view.fields = eng_malloc(sizeof *view.fields * (n + 1));
    view.sub = eng_malloc(sizeof *view.sub * (n + 1));
    int rc = (view.fields && view.sub) ? 0 : eng_catalog_nomem(err);
    for (uint32_t i = 0; !rc && i < u->n_sub; i++) {
        view.fields[i] = (int)i == rename_at ? (char *)new_name : u->fields[i];
        view.sub[i] = u->sub[i];
    }
    if (!rc && added) {
        view.fields[n - 1] = (char *)new_name;
        view.sub[n - 1] = added;
    }
    if (!rc && n > UINT16_MAX)
        rc = eng_errorf(err, ENG_E_INVALID, "too many fields in user type %s", u->name);
    if (!rc)
        rc = put_udt(txn, meta, u->ks, u->name, &view, err);
    eng_free(view.fields);
    eng_free(view.sub);
    return rc;
}

static int field_index(const eng_type *u, const char *name)
{
    for (int i = 0; i < u->n_sub; i++)
        if (!strcmp(u->fields[i], name))
            return i;
    return -1;
}

int eng_catalog_alter_type_add(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                               const char *name, const char *field, const eng_type *type,
                               int if_exists, int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    const eng_type *u = altered_udt(cur, ks, name, if_exists & ENG_IF_TABLE, &rc, err);
    if (!u)
        return rc;
    if (!field || !type)
        return eng_errorf(err, ENG_E_INVALID, "malformed type definition");
    if (field_index(u, field) >= 0) {
        if (if_exists & ENG_IF_COLUMN)
            return 0;
        eng_buf b = ENG_BUF_INIT;
        eng_buf_printf(&b, "Cannot add field %s to type ", field);
        put_udt_name(&b, u);
        eng_buf_printf(&b, ": a field with name %s already exists", field);
        return error_buf(err, ENG_E_INVALID, &b);
    }
    eng_type *prep = NULL;
    udt_users uu = {cur, NULL};
    rc = prepare_fields(cur, ks, &type, 1, &prep, err);
    if (!rc)
        rc = find_users(&uu, cur, u->ks, u->name, err);
    if (!rc)
        rc = check_added_field(&uu, u, field, prep, err);
    if (!rc && udt_levels(&prep, 1) > eng_type_depth(u))
        rc = check_users_depth(&uu, u, udt_levels(&prep, 1) - eng_type_depth(u), err);
    eng_free(uu.marks);
    if (!rc)
        rc = put_changed_udt(txn, meta, u, -1, field, prep, err);
    eng_type_free(prep);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

int eng_catalog_alter_type_rename(MDB_txn *txn, MDB_dbi meta, const eng_schema *cur, const char *ks,
                                  const char *name, const char *from, const char *to, int if_exists,
                                  int *changed, eng_err *err)
{
    int dummy;
    changed = changed ? changed : &dummy;
    int rc = ddl_begin(txn, meta, cur, ks, changed, err);
    if (rc)
        return rc;
    const eng_type *u = altered_udt(cur, ks, name, if_exists & ENG_IF_TABLE, &rc, err);
    if (!u)
        return rc;
    if (!from || !to)
        return eng_errorf(err, ENG_E_INVALID, "malformed field name");
    int at = field_index(u, from);
    if (at < 0) {
        if (if_exists & ENG_IF_COLUMN)
            return 0;
        eng_buf b = ENG_BUF_INIT;
        eng_buf_printf(&b, "Unkown field %s in user type ", from); /* sic, Cassandra's text */
        put_udt_name(&b, u);
        return error_buf(err, ENG_E_INVALID, &b);
    }
    int other = field_index(u, to);
    if (other >= 0 && other != at)
        /* Cassandra's format has one %s too few: the keyspace lands where the type would */
        return eng_errorf(err, ENG_E_INVALID, "Duplicate field name %s in type %s", to, ks);
    if (other == at)
        return 0;
    rc = put_changed_udt(txn, meta, u, at, to, NULL, err);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}
