/*
 * The catalog: Cassandra's schema kept as records in the `meta`
 * sub-database, and the immutable snapshot (eng_schema) built from them.
 *
 * A schema change checks the snapshot it is given with Cassandra 4.1's rules,
 * in Cassandra's order, with its messages and error codes; then it writes its
 * records and bumps the version "v" by one, all in the caller's transaction,
 * or writes nothing at all. A change that changes nothing (an IF [NOT]
 * EXISTS no-op, an ALTER to the same values) writes nothing either.
 *
 * Columns and UDT fields store a user type by keyspace and name only, and a
 * snapshot resolves them at load time, so ALTER TYPE reaches every column
 * that uses the type. Dropped columns keep their type with user types
 * expanded to tuples, as Cassandra records them, so a later DROP TYPE cannot
 * orphan them.
 *
 * Records (all start with a format byte, REC_FORMAT; str = uvint length +
 * UTF-8 bytes; type = uvint length + eng_type_serialize bytes):
 *   keyspace  format, u8 durable_writes, uvint n, n x (str name, str value)
 *   user type format, uvint n, n x (str field, type)
 *   table     format, 16-byte id, u8 flags (1 = counter table),
 *             vint default_ttl_s, vint gc_grace_s, str comment, uvint next_col_id,
 *             uvint n, n x (str name, u8 kind, u8 desc, uvint position, uvint id, type),
 *             uvint n, n x (str option, str value),
 *             uvint n, n x (str name, u8 kind, vint dropped_us, type)
 * Every read is bounds-checked: a record that does not decode exactly is
 * ENG_E_CORRUPT, never a crash.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "catalog.h"
#include "env_int.h" /* ENG_MAP_FULL: env.c grows the map and runs the change again */

#define REC_FORMAT 1
#define NAME_LENGTH 48          /* Cassandra's SchemaConstants.NAME_LENGTH (keyspace names) */
#define TABLE_NAME_LENGTH 222   /* Cassandra's table name limit (CASSANDRA-20389) */
#define MAX_TTL 630720000       /* 20 years, Cassandra's Attributes.MAX_TTL (facts §4.6) */
#define DEFAULT_GC_GRACE 864000 /* 10 days (facts §4.7) */

/* ------------------------------------------------------------------------ */
/* Errors and names                                                          */
/* ------------------------------------------------------------------------ */

static int nomem(eng_err *err)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory updating the schema");
}

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

static int lmdb_fail(eng_err *err, int rc, const char *what)
{
    switch (rc) {
    case ENOMEM:
        return eng_errorf(err, ENG_E_NOMEM, "out of memory (%s)", what);
    case MDB_MAP_FULL:
        return eng_errorf(err, ENG_MAP_FULL, "database map is full (%s)", what);
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
        return eng_errorf(err, ENG_E_CORRUPT, "database file is corrupted (%s: %s)", what,
                          mdb_strerror(rc));
    default:
        return eng_errorf(err, ENG_E_IO, "storage error (%s: %s)", what, mdb_strerror(rc));
    }
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
    int rc = s ? eng_errorf(err, code, "%s", s) : nomem(err);
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
/* Record encoding                                                           */
/* ------------------------------------------------------------------------ */

static void put_str(eng_buf *b, const char *s)
{
    size_t n = strlen(s);
    eng_buf_put_uvint(b, n);
    eng_buf_put(b, s, n);
}

static void put_type(eng_buf *b, const eng_type *t)
{
    eng_buf tmp = ENG_BUF_INIT;
    eng_type_serialize(t, &tmp);
    if (tmp.oom)
        b->oom = 1;
    eng_buf_put_uvint(b, tmp.len);
    eng_buf_put(b, tmp.p, tmp.len);
    eng_buf_free(&tmp);
}

/* Bounds-checked reader over one record; `bad` and `oom` stick once set. */
typedef struct rd {
    const uint8_t *p, *end;
    int bad, oom;
} rd;

static size_t rd_left(const rd *r)
{
    return (size_t)(r->end - r->p);
}

static const uint8_t *rd_bytes(rd *r, uint64_t n)
{
    if (r->bad || r->oom || n > rd_left(r)) {
        r->bad = r->bad || !r->oom;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

static uint8_t rd_u8(rd *r)
{
    const uint8_t *p = rd_bytes(r, 1);
    return p ? *p : 0;
}

static uint64_t rd_uvint(rd *r)
{
    uint64_t v = 0;
    size_t n = (r->bad || r->oom) ? 0 : eng_get_uvint(r->p, rd_left(r), &v);
    if (!n) {
        r->bad = r->bad || !r->oom;
        return 0;
    }
    r->p += n;
    return v;
}

static int64_t rd_vint(rd *r)
{
    int64_t v = 0;
    size_t n = (r->bad || r->oom) ? 0 : eng_get_vint(r->p, rd_left(r), &v);
    if (!n) {
        r->bad = r->bad || !r->oom;
        return 0;
    }
    r->p += n;
    return v;
}

/* A count of items that each take at least one byte, so it cannot exceed what is left. */
static uint32_t rd_count(rd *r)
{
    uint64_t n = rd_uvint(r);
    if (n > rd_left(r) || n > UINT32_MAX) {
        r->bad = 1;
        return 0;
    }
    return (uint32_t)n;
}

static char *rd_str(rd *r)
{
    uint64_t n = rd_uvint(r);
    const uint8_t *p = rd_bytes(r, n);
    if (!p)
        return NULL;
    if (memchr(p, 0, n)) {
        r->bad = 1;
        return NULL;
    }
    char *s = eng_strndup((const char *)p, n);
    if (!s)
        r->oom = 1;
    return s;
}

/* A length-prefixed type that must decode to exactly its length. */
static eng_type *rd_type(rd *r, eng_udt_resolver resolve, void *ctx)
{
    uint64_t n = rd_uvint(r);
    const uint8_t *p = rd_bytes(r, n);
    if (!p)
        return NULL;
    const uint8_t *end = p + n;
    eng_err terr;
    eng_err_clear(&terr);
    eng_type *t = eng_type_deserialize(&p, end, resolve, ctx, &terr);
    if (!t || p != end) {
        eng_type_free(t);
        if (terr.code == ENG_E_NOMEM)
            r->oom = 1;
        else
            r->bad = 1;
        return NULL;
    }
    return t;
}

/* ------------------------------------------------------------------------ */
/* Keys and LMDB access                                                      */
/* ------------------------------------------------------------------------ */

/* tag 0 ks [0 name]: names never hold a NUL, so byte order is (ks, name) order. */
static void make_key(eng_buf *b, char tag, const char *ks, const char *name)
{
    eng_buf_reset(b);
    eng_buf_put_u8(b, (uint8_t)tag);
    eng_buf_put_u8(b, 0);
    eng_buf_put_str(b, ks);
    if (name) {
        eng_buf_put_u8(b, 0);
        eng_buf_put_str(b, name);
    }
}

static int meta_put(MDB_txn *txn, MDB_dbi meta, const eng_buf *key, const eng_buf *val,
                    eng_err *err)
{
    if (key->oom || val->oom)
        return nomem(err);
    MDB_val k = {key->len, key->p}, v = {val->len, val->p};
    int rc = mdb_put(txn, meta, &k, &v, 0);
    return rc ? lmdb_fail(err, rc, "write schema") : 0;
}

static int meta_del(MDB_txn *txn, MDB_dbi meta, const eng_buf *key, eng_err *err)
{
    if (key->oom)
        return nomem(err);
    MDB_val k = {key->len, key->p};
    int rc = mdb_del(txn, meta, &k, NULL);
    return (rc && rc != MDB_NOTFOUND) ? lmdb_fail(err, rc, "write schema") : 0;
}

int eng_catalog_version(MDB_txn *txn, MDB_dbi meta, uint64_t *out, eng_err *err)
{
    MDB_val k = {1, "v"}, v;
    *out = 0;
    int rc = mdb_get(txn, meta, &k, &v);
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return lmdb_fail(err, rc, "read schema version");
    if (v.mv_size != 8)
        return eng_errorf(err, ENG_E_CORRUPT, "corrupt schema version record");
    *out = eng_be64(v.mv_data);
    return 0;
}

static int bump_version(MDB_txn *txn, MDB_dbi meta, eng_err *err)
{
    uint64_t v;
    int rc = eng_catalog_version(txn, meta, &v, err);
    if (rc)
        return rc;
    uint8_t buf[8];
    eng_put_be64(buf, v + 1);
    MDB_val k = {1, "v"}, val = {8, buf};
    rc = mdb_put(txn, meta, &k, &val, 0);
    return rc ? lmdb_fail(err, rc, "write schema version") : 0;
}

void eng_table_dbname(const uint8_t id[16], char out[34])
{
    static const char hex[] = "0123456789abcdef";
    out[0] = 'd';
    for (int i = 0; i < 16; i++) {
        out[1 + 2 * i] = hex[id[i] >> 4];
        out[2 + 2 * i] = hex[id[i] & 15];
    }
    out[33] = 0;
}

/* ------------------------------------------------------------------------ */
/* Snapshot memory and lookups                                               */
/* ------------------------------------------------------------------------ */

static void free_options(eng_option *o, uint32_t n)
{
    for (uint32_t i = 0; o && i < n; i++) {
        eng_free(o[i].name);
        eng_free(o[i].value);
    }
    eng_free(o);
}

static void free_table(eng_table *t)
{
    eng_free(t->ks);
    eng_free(t->name);
    for (uint32_t i = 0; t->cols && i < t->n_cols; i++) {
        eng_free(t->cols[i].name);
        eng_type_free(t->cols[i].type);
    }
    eng_free(t->cols);
    eng_free(t->comment);
    free_options(t->opts, t->n_opts);
    for (uint32_t i = 0; t->dropped && i < t->n_dropped; i++) {
        eng_free(t->dropped[i].name);
        eng_type_free(t->dropped[i].type);
    }
    eng_free(t->dropped);
    eng_free(t->by_name);
    eng_free(t->by_id);
}

static void free_schema(eng_schema *s)
{
    for (uint32_t i = 0; s->keyspaces && i < s->n_keyspaces; i++) {
        eng_free(s->keyspaces[i].name);
        free_options(s->keyspaces[i].repl, s->keyspaces[i].n_repl);
    }
    eng_free(s->keyspaces);
    for (uint32_t i = 0; s->tables && i < s->n_tables; i++)
        free_table(&s->tables[i]);
    eng_free(s->tables);
    for (uint32_t i = 0; s->types && i < s->n_types; i++)
        eng_type_free(s->types[i]);
    eng_free(s->types);
    eng_free(s);
}

eng_schema *eng_schema_ref(eng_schema *s)
{
    if (s)
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

void eng_schema_unref(eng_schema *s)
{
    /* acq_rel: every use through other references happens before the free */
    if (s && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        free_schema(s);
}

static int cmp2(const char *a1, const char *a2, const char *b1, const char *b2)
{
    int c = strcmp(a1, b1);
    return c ? c : strcmp(a2, b2);
}

const eng_keyspace *eng_schema_keyspace(const eng_schema *s, const char *ks)
{
    if (!s || !ks)
        return NULL;
    uint32_t lo = 0, hi = s->n_keyspaces;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ks, s->keyspaces[mid].name);
        if (!c)
            return &s->keyspaces[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const eng_table *eng_schema_table(const eng_schema *s, const char *ks, const char *name)
{
    if (!s || !ks || !name)
        return NULL;
    uint32_t lo = 0, hi = s->n_tables;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = cmp2(ks, name, s->tables[mid].ks, s->tables[mid].name);
        if (!c)
            return &s->tables[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const eng_type *eng_schema_udt(const eng_schema *s, const char *ks, const char *name)
{
    if (!s || !ks || !name)
        return NULL;
    uint32_t lo = 0, hi = s->n_types;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = cmp2(ks, name, s->types[mid]->ks, s->types[mid]->name);
        if (!c)
            return s->types[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

int eng_table_column_index(const eng_table *t, const char *name)
{
    if (!t || !name || !t->by_name)
        return -1;
    uint32_t lo = 0, hi = t->n_cols;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t i = t->by_name[mid];
        int c = strcmp(name, t->cols[i].name);
        if (!c)
            return (int)i;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

const eng_column *eng_table_column(const eng_table *t, const char *name)
{
    int i = eng_table_column_index(t, name);
    return i < 0 ? NULL : &t->cols[i];
}

const eng_column *eng_table_column_by_id(const eng_table *t, uint32_t id)
{
    if (!t || !t->by_id)
        return NULL;
    uint32_t lo = 0, hi = t->n_cols;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const eng_column *c = &t->cols[t->by_id[mid]];
        if (c->id == id)
            return c;
        if (id < c->id)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Column order and table invariants                                         */
/* ------------------------------------------------------------------------ */

/*
 * SELECT * order (facts §7.2): partition key, clustering key (each in key
 * order), then static and regular columns each by the bytes of their name.
 * The kind values are already in that order.
 */
static int col_order(const void *a, const void *b)
{
    const eng_column *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->kind <= ENG_COL_CLUSTERING)
        return (x->position > y->position) - (x->position < y->position);
    return strcmp(x->name, y->name);
}

static int ptr_by_name(const void *a, const void *b)
{
    const eng_column *x = *(const eng_column *const *)a, *y = *(const eng_column *const *)b;
    return strcmp(x->name, y->name);
}

static int ptr_by_id(const void *a, const void *b)
{
    const eng_column *x = *(const eng_column *const *)a, *y = *(const eng_column *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Fills idx with the column indexes in the order of cmp; 1 if two columns compare equal. */
static int index_columns(const eng_table *t, uint32_t *idx, int (*cmp)(const void *, const void *),
                         const eng_column **tmp)
{
    for (uint32_t i = 0; i < t->n_cols; i++)
        tmp[i] = &t->cols[i];
    qsort(tmp, t->n_cols, sizeof *tmp, cmp);
    int dup = 0;
    for (uint32_t i = 0; i < t->n_cols; i++) {
        idx[i] = (uint32_t)(tmp[i] - t->cols);
        if (i && cmp(&tmp[i - 1], &tmp[i]) == 0)
            dup = 1;
    }
    return dup;
}

/*
 * Puts the columns in SELECT * order and derives the counts, flags and
 * lookup indexes. ENG_E_CORRUPT if the columns break the table invariants
 * (key positions 0..n-1 without gaps, at least one partition key column,
 * unique names and ids, ids below next_col_id).
 */
static int finish_table(eng_table *t)
{
    qsort(t->cols, t->n_cols, sizeof *t->cols, col_order);
    t->n_pk = t->n_ck = 0;
    t->has_static = 0;
    for (uint32_t i = 0; i < t->n_cols; i++) {
        const eng_column *c = &t->cols[i];
        if (c->kind == ENG_COL_PARTITION && c->position == t->n_pk)
            t->n_pk++;
        else if (c->kind == ENG_COL_CLUSTERING && c->position == t->n_ck)
            t->n_ck++;
        else if (c->kind == ENG_COL_STATIC)
            t->has_static = 1;
        else if (c->kind != ENG_COL_REGULAR)
            return ENG_E_CORRUPT;
        if (c->id >= t->next_col_id || (c->kind > ENG_COL_CLUSTERING && c->position))
            return ENG_E_CORRUPT;
    }
    if (t->n_pk == 0)
        return ENG_E_CORRUPT;
    t->by_name = eng_malloc(sizeof *t->by_name * t->n_cols);
    t->by_id = eng_malloc(sizeof *t->by_id * t->n_cols);
    const eng_column **tmp = eng_malloc(sizeof *tmp * t->n_cols);
    int rc = (t->by_name && t->by_id && tmp) ? 0 : ENG_E_NOMEM;
    if (!rc && (index_columns(t, t->by_name, ptr_by_name, tmp) ||
                index_columns(t, t->by_id, ptr_by_id, tmp)))
        rc = ENG_E_CORRUPT;
    eng_free(tmp);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Records                                                                   */
/* ------------------------------------------------------------------------ */

static void encode_keyspace(eng_buf *b, const eng_option *repl, uint32_t n, int durable)
{
    eng_buf_put_u8(b, REC_FORMAT);
    eng_buf_put_u8(b, durable ? 1 : 0);
    eng_buf_put_uvint(b, n);
    for (uint32_t i = 0; i < n; i++) {
        put_str(b, repl[i].name);
        put_str(b, repl[i].value);
    }
}

static void encode_udt(eng_buf *b, const eng_type *udt)
{
    eng_buf_put_u8(b, REC_FORMAT);
    eng_buf_put_uvint(b, udt->n_sub);
    for (uint16_t i = 0; i < udt->n_sub; i++) {
        put_str(b, udt->fields[i]);
        put_type(b, udt->sub[i]);
    }
}

static void encode_table(eng_buf *b, const eng_table *t)
{
    eng_buf_put_u8(b, REC_FORMAT);
    eng_buf_put(b, t->id, 16);
    eng_buf_put_u8(b, t->is_counter ? 1 : 0);
    eng_buf_put_vint(b, t->default_ttl_s);
    eng_buf_put_vint(b, t->gc_grace_s);
    put_str(b, t->comment);
    eng_buf_put_uvint(b, t->next_col_id);
    eng_buf_put_uvint(b, t->n_cols);
    for (uint32_t i = 0; i < t->n_cols; i++) {
        const eng_column *c = &t->cols[i];
        put_str(b, c->name);
        eng_buf_put_u8(b, c->kind);
        eng_buf_put_u8(b, c->desc);
        eng_buf_put_uvint(b, c->position);
        eng_buf_put_uvint(b, c->id);
        put_type(b, c->type);
    }
    eng_buf_put_uvint(b, t->n_opts);
    for (uint32_t i = 0; i < t->n_opts; i++) {
        put_str(b, t->opts[i].name);
        put_str(b, t->opts[i].value);
    }
    eng_buf_put_uvint(b, t->n_dropped);
    for (uint32_t i = 0; i < t->n_dropped; i++) {
        const eng_dropped_column *d = &t->dropped[i];
        put_str(b, d->name);
        eng_buf_put_u8(b, d->kind);
        eng_buf_put_vint(b, d->dropped_us);
        put_type(b, d->type);
    }
}

/* 0, ENG_E_NOMEM or ENG_E_CORRUPT from a reader that has finished its record. */
static int rd_result(const rd *r)
{
    if (r->oom)
        return ENG_E_NOMEM;
    return (r->bad || r->p != r->end) ? ENG_E_CORRUPT : 0;
}

static rd rd_record(const MDB_val *v)
{
    rd r = {v->mv_data, (const uint8_t *)v->mv_data + v->mv_size, 0, 0};
    if (rd_u8(&r) != REC_FORMAT)
        r.bad = 1;
    return r;
}

static eng_option *rd_options(rd *r, uint32_t *n_out)
{
    uint32_t n = rd_count(r);
    *n_out = 0;
    if (!n)
        return NULL;
    eng_option *o = eng_calloc(n, sizeof *o);
    if (!o) {
        r->oom = 1;
        return NULL;
    }
    *n_out = n;
    for (uint32_t i = 0; i < n && !r->bad && !r->oom; i++) {
        o[i].name = rd_str(r);
        o[i].value = rd_str(r);
    }
    return o;
}

static int decode_keyspace(const MDB_val *v, eng_keyspace *ks)
{
    rd r = rd_record(v);
    uint8_t durable = rd_u8(&r);
    if (durable > 1)
        r.bad = 1;
    ks->durable_writes = durable;
    ks->repl = rd_options(&r, &ks->n_repl);
    return rd_result(&r);
}

static int rd_int32(rd *r, int32_t *out)
{
    int64_t v = rd_vint(r);
    if (v < INT32_MIN || v > INT32_MAX)
        r->bad = 1;
    *out = (int32_t)v;
    return 0;
}

static const eng_type *schema_resolver(void *ctx, const char *ks, const char *name)
{
    return eng_schema_udt(ctx, ks, name);
}

static void rd_columns(rd *r, eng_table *t, eng_schema *s)
{
    uint32_t n = rd_count(r);
    if (!n)
        return;
    if (!(t->cols = eng_calloc(n, sizeof *t->cols))) {
        r->oom = 1;
        return;
    }
    t->n_cols = n;
    for (uint32_t i = 0; i < n && !r->bad && !r->oom; i++) {
        eng_column *c = &t->cols[i];
        c->name = rd_str(r);
        c->kind = rd_u8(r);
        c->desc = rd_u8(r);
        uint64_t pos = rd_uvint(r), id = rd_uvint(r);
        if (c->kind > ENG_COL_REGULAR || c->desc > 1 || pos > UINT16_MAX || id > UINT32_MAX)
            r->bad = 1;
        c->position = (uint16_t)pos;
        c->id = (uint32_t)id;
        c->type = rd_type(r, schema_resolver, s);
    }
}

static void rd_dropped(rd *r, eng_table *t, eng_schema *s)
{
    uint32_t n = rd_count(r);
    if (!n)
        return;
    if (!(t->dropped = eng_calloc(n, sizeof *t->dropped))) {
        r->oom = 1;
        return;
    }
    t->n_dropped = n;
    for (uint32_t i = 0; i < n && !r->bad && !r->oom; i++) {
        eng_dropped_column *d = &t->dropped[i];
        d->name = rd_str(r);
        d->kind = rd_u8(r);
        if (d->kind != ENG_COL_STATIC && d->kind != ENG_COL_REGULAR)
            r->bad = 1;
        d->dropped_us = rd_vint(r);
        d->type = rd_type(r, schema_resolver, s);
    }
}

/* Table record into t (ks and name already set); user types resolve through s. */
static int decode_table(const MDB_val *v, eng_table *t, eng_schema *s)
{
    rd r = rd_record(v);
    const uint8_t *id = rd_bytes(&r, 16);
    if (id)
        memcpy(t->id, id, 16);
    uint8_t flags = rd_u8(&r);
    if (flags > 1)
        r.bad = 1;
    t->is_counter = flags & 1;
    rd_int32(&r, &t->default_ttl_s);
    rd_int32(&r, &t->gc_grace_s);
    t->comment = rd_str(&r);
    uint64_t next = rd_uvint(&r);
    if (next > UINT32_MAX)
        r.bad = 1;
    t->next_col_id = (uint32_t)next;
    rd_columns(&r, t, s);
    t->opts = rd_options(&r, &t->n_opts);
    rd_dropped(&r, t, s);
    int rc = rd_result(&r);
    return rc ? rc : finish_table(t);
}

/* "K" 0 ks, or "T"/"Y" 0 ks 0 name (with_name): the names, or ENG_E_CORRUPT / ENG_E_NOMEM. */
static int split_key(const MDB_val *k, int with_name, char **ks, char **name)
{
    const char *p = (const char *)k->mv_data + 2, *end = (const char *)k->mv_data + k->mv_size;
    const char *sep = with_name ? memchr(p, 0, (size_t)(end - p)) : end;
    *ks = *name = NULL;
    if (!sep || sep == p || memchr(p, 0, (size_t)(sep - p)))
        return ENG_E_CORRUPT;
    if (with_name && (sep + 1 == end || memchr(sep + 1, 0, (size_t)(end - sep - 1))))
        return ENG_E_CORRUPT;
    *ks = eng_strndup(p, (size_t)(sep - p));
    if (*ks && with_name)
        *name = eng_strndup(sep + 1, (size_t)(end - sep - 1));
    return (!*ks || (with_name && !*name)) ? ENG_E_NOMEM : 0;
}

/* ------------------------------------------------------------------------ */
/* Loading a snapshot                                                        */
/* ------------------------------------------------------------------------ */

/* The K, T and Y records found in meta (values point into the map until txn ends). */
typedef struct kv_list {
    MDB_val *k, *v;
    uint32_t n, cap;
} kv_list;

static int kv_push(kv_list *l, const MDB_val *k, const MDB_val *v)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        MDB_val *nk = eng_realloc(l->k, cap * sizeof *nk);
        if (!nk)
            return ENG_E_NOMEM;
        l->k = nk;
        MDB_val *nv = eng_realloc(l->v, cap * sizeof *nv);
        if (!nv)
            return ENG_E_NOMEM;
        l->v = nv;
        l->cap = cap;
    }
    l->k[l->n] = *k;
    l->v[l->n] = *v;
    l->n++;
    return 0;
}

static int scan_meta(MDB_txn *txn, MDB_dbi meta, kv_list lists[3], eng_err *err)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, meta, &cur);
    if (rc)
        return lmdb_fail(err, rc, "read schema");
    MDB_val k, v;
    MDB_cursor_op op = MDB_FIRST;
    while ((rc = mdb_cursor_get(cur, &k, &v, op)) == 0) {
        op = MDB_NEXT;
        const uint8_t *p = k.mv_data;
        if (k.mv_size < 2 || p[1] != 0)
            continue;
        int which = p[0] == 'K' ? 0 : p[0] == 'T' ? 1 : p[0] == 'Y' ? 2 : -1;
        if (which >= 0 && kv_push(&lists[which], &k, &v)) {
            rc = ENOMEM;
            break;
        }
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : lmdb_fail(err, rc, "read schema");
}

static int load_error(eng_err *err, int rc, const char *what, const char *ks, const char *name)
{
    if (rc == ENG_E_NOMEM)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory loading the schema");
    return eng_errorf(err, ENG_E_CORRUPT, "corrupt catalog record for %s %s%s%s", what,
                      ks ? ks : "?", name ? "." : "", name ? name : "");
}

static int ks_order(const void *a, const void *b)
{
    return strcmp(((const eng_keyspace *)a)->name, ((const eng_keyspace *)b)->name);
}

static int table_order(const void *a, const void *b)
{
    const eng_table *x = a, *y = b;
    return cmp2(x->ks, x->name, y->ks, y->name);
}

static int udt_order(const void *a, const void *b)
{
    const eng_type *x = *(const eng_type *const *)a, *y = *(const eng_type *const *)b;
    return cmp2(x->ks, x->name, y->ks, y->name);
}

static int load_keyspaces(eng_schema *s, const kv_list *l, eng_err *err)
{
    if (!l->n)
        return 0;
    if (!(s->keyspaces = eng_calloc(l->n, sizeof *s->keyspaces)))
        return load_error(err, ENG_E_NOMEM, NULL, NULL, NULL);
    for (uint32_t i = 0; i < l->n; i++) {
        eng_keyspace *ks = &s->keyspaces[i];
        char *none;
        s->n_keyspaces = i + 1;
        int rc = split_key(&l->k[i], 0, &ks->name, &none);
        if (!rc)
            rc = decode_keyspace(&l->v[i], ks);
        if (rc)
            return load_error(err, rc, "keyspace", ks->name, NULL);
    }
    qsort(s->keyspaces, s->n_keyspaces, sizeof *s->keyspaces, ks_order);
    return 0;
}

/* While user types are being built, s->types holds the ones built so far, unsorted. */
static const eng_type *built_resolver(void *ctx, const char *ks, const char *name)
{
    const eng_schema *s = ctx;
    for (uint32_t i = 0; i < s->n_types; i++)
        if (!strcmp(s->types[i]->ks, ks) && !strcmp(s->types[i]->name, name))
            return s->types[i];
    return NULL;
}

typedef struct udt_raw {
    char *ks, *name;
    const MDB_val *v;
    int built;
} udt_raw;

static int has_dup_name(char *const *names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                return 1;
    return 0;
}

/* One user type, if every type it uses is built: 0, ENG_E_NOMEM or ENG_E_CORRUPT. */
static int build_udt(const udt_raw *u, eng_schema *s, eng_type **out)
{
    rd r = rd_record(u->v);
    uint32_t n = rd_count(&r);
    if (n > UINT16_MAX)
        r.bad = 1;
    char **names = n ? eng_calloc(n, sizeof *names) : NULL;
    eng_type **types = n ? eng_calloc(n, sizeof *types) : NULL;
    if (n && (!names || !types))
        r.oom = 1;
    for (uint32_t i = 0; i < n && !r.bad && !r.oom; i++) {
        names[i] = rd_str(&r);
        types[i] = rd_type(&r, built_resolver, s);
    }
    int rc = rd_result(&r);
    if (!rc && has_dup_name(names, n))
        rc = ENG_E_CORRUPT;
    if (!rc) {
        /* takes over the names and types, also when it fails */
        *out = eng_type_new_udt(u->ks, u->name, names, types, (int)n, 0);
        rc = *out ? 0 : ENG_E_NOMEM;
    } else {
        for (uint32_t i = 0; i < n && names && types; i++) {
            eng_free(names[i]);
            eng_type_free(types[i]);
        }
    }
    eng_free(names);
    eng_free(types);
    return rc;
}

/*
 * A user type may use other types of its keyspace, declared in any order, so
 * types are built in passes until all are; a pass that builds none means a
 * reference that no record satisfies.
 */
static int build_udts(eng_schema *s, udt_raw *raw, uint32_t n, eng_err *err)
{
    uint32_t left = n;
    while (left) {
        uint32_t built = 0, first_bad = n;
        for (uint32_t i = 0; i < n; i++) {
            if (raw[i].built)
                continue;
            eng_type *t = NULL;
            int rc = build_udt(&raw[i], s, &t);
            if (rc == ENG_E_NOMEM)
                return load_error(err, rc, NULL, NULL, NULL);
            if (rc) {
                first_bad = first_bad < n ? first_bad : i;
                continue;
            }
            s->types[s->n_types++] = t;
            raw[i].built = 1;
            built++;
            left--;
        }
        if (left && !built)
            return load_error(err, ENG_E_CORRUPT, "user type", raw[first_bad].ks,
                              raw[first_bad].name);
    }
    return 0;
}

static int load_types(eng_schema *s, const kv_list *l, eng_err *err)
{
    if (!l->n)
        return 0;
    udt_raw *raw = eng_calloc(l->n, sizeof *raw);
    s->types = eng_calloc(l->n, sizeof *s->types);
    int rc = (raw && s->types) ? 0 : load_error(err, ENG_E_NOMEM, NULL, NULL, NULL);
    for (uint32_t i = 0; !rc && i < l->n; i++) {
        raw[i].v = &l->v[i];
        rc = split_key(&l->k[i], 1, &raw[i].ks, &raw[i].name);
        if (!rc && !eng_schema_keyspace(s, raw[i].ks))
            rc = ENG_E_CORRUPT;
        if (rc)
            rc = load_error(err, rc, "user type", raw[i].ks, raw[i].name);
    }
    if (!rc)
        rc = build_udts(s, raw, l->n, err);
    for (uint32_t i = 0; raw && i < l->n; i++) {
        eng_free(raw[i].ks);
        eng_free(raw[i].name);
    }
    eng_free(raw);
    if (!rc)
        qsort(s->types, s->n_types, sizeof *s->types, udt_order);
    return rc;
}

static int load_tables(eng_schema *s, const kv_list *l, eng_err *err)
{
    if (!l->n)
        return 0;
    if (!(s->tables = eng_calloc(l->n, sizeof *s->tables)))
        return load_error(err, ENG_E_NOMEM, NULL, NULL, NULL);
    for (uint32_t i = 0; i < l->n; i++) {
        eng_table *t = &s->tables[i];
        s->n_tables = i + 1;
        int rc = split_key(&l->k[i], 1, &t->ks, &t->name);
        if (!rc)
            rc = eng_schema_keyspace(s, t->ks) ? decode_table(&l->v[i], t, s) : ENG_E_CORRUPT;
        if (rc)
            return load_error(err, rc, "table", t->ks, t->name);
    }
    qsort(s->tables, s->n_tables, sizeof *s->tables, table_order);
    return 0;
}

int eng_schema_load(MDB_txn *txn, MDB_dbi meta, eng_schema **out, eng_err *err)
{
    *out = NULL;
    eng_schema *s = eng_calloc(1, sizeof *s);
    if (!s)
        return load_error(err, ENG_E_NOMEM, NULL, NULL, NULL);
    atomic_init(&s->refs, 1);
    kv_list lists[3];
    memset(lists, 0, sizeof lists);
    int rc = eng_catalog_version(txn, meta, &s->version, err);
    if (!rc)
        rc = scan_meta(txn, meta, lists, err);
    if (!rc)
        rc = load_keyspaces(s, &lists[0], err);
    if (!rc)
        rc = load_types(s, &lists[2], err);
    if (!rc)
        rc = load_tables(s, &lists[1], err);
    for (int i = 0; i < 3; i++) {
        eng_free(lists[i].k);
        eng_free(lists[i].v);
    }
    if (rc) {
        free_schema(s);
        return rc;
    }
    *out = s;
    return 0;
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
    int rc = bump_version(txn, meta, err);
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
        return nomem(err);
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
    return *out ? 0 : nomem(err);
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
        return nomem(err);
    int rc = 0;
    for (int i = 0; !rc && i < t->n_sub; i++)
        rc = prepare_type(cur, ks, t->sub[i], &comps[i], err);
    if (rc) {
        for (int i = 0; i < t->n_sub; i++)
            eng_type_free(comps[i]);
    } else if (!(*out = eng_type_new_tuple(comps, t->n_sub))) {
        rc = nomem(err);
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
        return *out ? 0 : nomem(err);
    }
}

/* Does t use the user type ks.name, at any depth (UserType.referencesUserType)? */
static int uses_udt(const eng_type *t, const char *ks, const char *name)
{
    if (!t)
        return 0;
    if (t->kind == ENG_UDT && t->ks && t->name && !strcmp(t->ks, ks) && !strcmp(t->name, name))
        return 1;
    for (int i = 0; i < t->n_sub; i++)
        if (uses_udt(t->sub[i], ks, name))
            return 1;
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
        return nomem(err);
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
                return nomem(err);
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
    qsort(d->t.cols, d->t.n_cols, sizeof *d->t.cols, col_order);
    make_key(&key, 'T', d->t.ks, d->t.name);
    encode_table(&val, &d->t);
    int rc = meta_put(txn, meta, &key, &val, err);
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
    make_key(&key, 'K', ks, NULL);
    encode_keyspace(&val, repl, n, durable);
    int rc = meta_put(txn, meta, &key, &val, err);
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
        return nomem(err);
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
        return nomem(err);
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
        make_key(&key, 'T', ks, t->name);
        rc = meta_del(txn, meta, &key, err);
        if (!rc && dropped_ids) {
            eng_buf_put(dropped_ids, t->id, 16);
            if (dropped_ids->oom)
                rc = nomem(err);
        }
    }
    for (uint32_t i = 0; !rc && i < cur->n_types; i++) {
        if (strcmp(cur->types[i]->ks, ks) != 0)
            continue;
        make_key(&key, 'Y', ks, cur->types[i]->name);
        rc = meta_del(txn, meta, &key, err);
    }
    if (!rc) {
        make_key(&key, 'K', ks, NULL);
        rc = meta_del(txn, meta, &key, err);
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
        return nomem(err);
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
    qsort(d->t.cols, d->t.n_cols, sizeof *d->t.cols, col_order);
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
        return nomem(err);
    int rc = table_params(def->opts, def->n_opts, &d->t.default_ttl_s, &d->t.gc_grace_s,
                          &d->comment_owned, err);
    if (rc)
        return rc;
    if (d->comment_owned)
        d->t.comment = d->comment_owned;
    rc = merge_options(NULL, 0, def->opts, def->n_opts, 1, &d->opts_owned, &d->t.n_opts);
    if (rc)
        return rc == ENG_E_NOMEM ? nomem(err) : eng_errorf(err, rc, "malformed table option");
    d->t.opts = d->opts_owned;
    eng_type **prep = eng_calloc(def->n_cols + 1, sizeof *prep);
    if (!prep)
        return nomem(err);
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
    make_key(&key, 'T', ks, name);
    rc = meta_del(txn, meta, &key, err);
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
        return nomem(err);
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
    rc = draft_init(&d, t, n, n) ? nomem(err) : 0;
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
    eng_type *kept = draft_own(d, expand_udts(c->type));
    if (!kept)
        return nomem(err);
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
    rc = draft_init(&d, t, n, n) ? nomem(err) : 0;
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
    rc = draft_init(&d, t, 0, 0) ? nomem(err) : 0;
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
    rc = draft_init(&d, t, 0, 0) ? nomem(err) : 0;
    if (!rc)
        rc = table_params(opts, n, &d.t.default_ttl_s, &d.t.gc_grace_s, &d.comment_owned, err);
    if (!rc && t->is_counter && d.t.default_ttl_s > 0)
        rc = eng_errorf(err, ENG_E_INVALID,
                        "Cannot set default_time_to_live on a table with counters");
    if (!rc && merge_options(t->opts, t->n_opts, opts, n, 1, &d.opts_owned, &d.t.n_opts))
        rc = nomem(err);
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
    make_key(&key, 'Y', ks, name);
    encode_udt(&val, udt);
    int rc = 0;
    MDB_env *env = mdb_txn_env(txn);
    if (!key.oom && key.len > (size_t)mdb_env_get_maxkeysize(env))
        rc = eng_errorf(err, ENG_E_INVALID,
                        "User type name %s is too long: keyspace and type names must fit in %d "
                        "bytes",
                        name, mdb_env_get_maxkeysize(env) - 3);
    if (!rc)
        rc = meta_put(txn, meta, &key, &val, err);
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
        return nomem(err);
    rc = prepare_fields(cur, ks, types, n, prep, err);
    eng_type *udt = rc ? NULL : new_udt(ks, name, fields, prep, n);
    eng_free(prep);
    if (!rc && !udt)
        rc = nomem(err);
    if (!rc)
        rc = put_udt(txn, meta, ks, name, udt, err);
    eng_type_free(udt);
    return rc ? rc : ddl_done(txn, meta, changed, err);
}

/* Names (of user types or tables) that use ks.name, sorted, joined by ", ". */
static void list_users(const eng_schema *cur, const char *ks, const char *name, int tables,
                       eng_buf *out)
{
    int first = 1;
    if (!tables) {
        for (uint32_t i = 0; i < cur->n_types; i++) {
            const eng_type *u = cur->types[i];
            if (strcmp(u->ks, ks) || !strcmp(u->name, name))
                continue;
            for (int f = 0; f < u->n_sub; f++)
                if (uses_udt(u->sub[f], ks, name)) {
                    eng_buf_printf(out, "%s%s", first ? "" : ", ", u->name);
                    first = 0;
                    break;
                }
        }
        return;
    }
    for (uint32_t i = 0; i < cur->n_tables; i++) {
        const eng_table *t = &cur->tables[i];
        if (strcmp(t->ks, ks))
            continue;
        for (uint32_t c = 0; c < t->n_cols; c++)
            if (uses_udt(t->cols[c].type, ks, name)) {
                eng_buf_printf(out, "%s%s", first ? "" : ", ", t->name);
                first = 0;
                break;
            }
    }
}

/* DropTypeStatement: a type still used by another type or a table stays. */
static int check_type_unused(const eng_schema *cur, const char *ks, const char *name, eng_err *err)
{
    for (int tables = 0; tables <= 1; tables++) {
        eng_buf users = ENG_BUF_INIT;
        list_users(cur, ks, name, tables, &users);
        if (!users.len && !users.oom)
            continue;
        const char *s = eng_buf_cstr(&users);
        int rc = s ? eng_errorf(err, ENG_E_INVALID,
                                "Cannot drop user type '%s.%s' as it is still used by %s %s", ks,
                                name, tables ? "tables" : "user types", s)
                   : nomem(err);
        eng_buf_free(&users);
        return rc;
    }
    return 0;
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
    make_key(&key, 'Y', ks, name);
    rc = meta_del(txn, meta, &key, err);
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
static int check_added_field(const eng_schema *cur, const eng_type *u, const char *field,
                             const eng_type *type, eng_err *err)
{
    const char *why = NULL;
    eng_buf tables = ENG_BUF_INIT;
    if (uses_udt(type, u->ks, u->name)) {
        why = " as it would create a circular reference";
    } else {
        for (uint32_t i = 0; i < cur->n_tables; i++) {
            const eng_table *t = &cur->tables[i];
            for (uint16_t c = 0; !strcmp(t->ks, u->ks) && c < t->n_pk; c++)
                if (uses_udt(t->cols[c].type, u->ks, u->name)) {
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
    int rc = (view.fields && view.sub) ? 0 : nomem(err);
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
    rc = prepare_fields(cur, ks, &type, 1, &prep, err);
    if (!rc)
        rc = check_added_field(cur, u, field, prep, err);
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
