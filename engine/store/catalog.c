/*
 * The catalog: Cassandra's schema kept as records in the `meta`
 * sub-database, and the immutable snapshot (eng_schema) built from them.
 * This file owns the records -- their keys, their encoding, their checked
 * decoding and the schema version -- and the snapshots: loading, reference
 * counts and lookups. Schema changes (catalog_ddl.c) check a snapshot and
 * write records only through the helpers catalog_int.h declares, so the
 * record formats below are defined here alone.
 *
 * Columns and UDT fields store a user type by keyspace and name only, and a
 * snapshot resolves them at load time, so ALTER TYPE reaches every column
 * that uses the type. Dropped columns keep their type with user types
 * expanded to tuples, as Cassandra records them, so a later DROP TYPE cannot
 * orphan them.
 *
 * Records start with a format byte, REC_FORMAT (2), and a be32 checksum:
 * the low 32 bits of XXH3 of the rest seeded with a hash of the record's
 * key (record_seal), so a record verifies only under its own key: a damaged
 * byte of a key or of a value is an error, never a keyspace, type or table
 * that silently goes missing or changes. Format 1 records (no checksum) are
 * still read. The rest (str = uvint length + UTF-8 bytes; type = uvint
 * length + eng_type_serialize bytes):
 *   keyspace  format, u8 durable_writes, uvint n, n x (str name, str value)
 *   user type format, uvint n, n x (str field, type)
 *   table     format, 16-byte id, u8 flags (1 = counter table),
 *             vint default_ttl_s, vint gc_grace_s, str comment, uvint next_col_id,
 *             uvint n, n x (str name, u8 kind, u8 desc, uvint position, uvint id, type),
 *             uvint n, n x (str option, str value),
 *             uvint n, n x (str name, u8 kind, vint dropped_us, type)
 * The schema version ("v") and the write-timestamp mark ("h") are be64
 * values followed by the same kind of be32 checksum (8-byte values without
 * it are still read). Every other key in meta is one of the records above;
 * anything else there is damage.
 *
 * Every read is bounds-checked: a record that does not decode exactly is
 * ENG_E_CORRUPT, never a crash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "engine/store/catalog_int.h"
#include "engine/store/fault.h"
#include "engine/store/store_int.h" /* eng_lmdb_err; ENG_MAP_FULL makes commit.c grow the map and rerun */

#define REC_FORMAT 2    /* format byte, be32 checksum, body */
#define REC_FORMAT_V1 1 /* format byte, body: read, never written */
#define REC_HDR_LEN 5
#define CATALOG_SEED UINT64_C(0x636173736574746d) /* seeds the hash of a record's key */

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

int eng_catalog_nomem(eng_err *err)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory updating the schema");
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
/* Checksums bound to keys                                                   */
/* ------------------------------------------------------------------------ */

static uint64_t record_seal(const void *key, size_t len)
{
    return XXH3_64bits_withSeed(key, len, CATALOG_SEED);
}

static uint32_t record_checksum(const void *key, size_t klen, const uint8_t *body, size_t len)
{
    return (uint32_t)XXH3_64bits_withSeed(body, len, record_seal(key, klen));
}

/* ------------------------------------------------------------------------ */
/* Keys and LMDB access                                                      */
/* ------------------------------------------------------------------------ */

/* tag 0 ks [0 name]: names never hold a NUL, so byte order is (ks, name) order. */
void eng_catalog_make_key(eng_buf *b, char tag, const char *ks, const char *name)
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

int eng_catalog_meta_put(MDB_txn *txn, MDB_dbi meta, const eng_buf *key, eng_buf *val,
                         eng_err *err)
{
    if (key->oom || val->oom)
        return eng_catalog_nomem(err);
    if (val->len < REC_HDR_LEN || val->p[0] != REC_FORMAT)
        return eng_errorf(err, ENG_E_SERVER, "a catalog record without its header");
    eng_put_be32(val->p + 1, record_checksum(key->p, key->len, val->p + REC_HDR_LEN,
                                             val->len - REC_HDR_LEN));
    MDB_val k = {key->len, key->p}, v = {val->len, val->p};
    int rc = ENG_FAULT_CALL(mdb_put(txn, meta, &k, &v, 0));
    return rc ? eng_lmdb_err(err, rc, "write schema") : 0;
}

int eng_catalog_meta_del(MDB_txn *txn, MDB_dbi meta, const eng_buf *key, eng_err *err)
{
    if (key->oom)
        return eng_catalog_nomem(err);
    MDB_val k = {key->len, key->p};
    int rc = ENG_FAULT_CALL(mdb_del(txn, meta, &k, NULL));
    return (rc && rc != MDB_NOTFOUND) ? eng_lmdb_err(err, rc, "write schema") : 0;
}

int eng_catalog_get_u64(MDB_txn *txn, MDB_dbi meta, const char *key, uint64_t *out,
                        eng_err *err)
{
    MDB_val k = {strlen(key), (void *)key}, v;
    int rc = ENG_FAULT_CALL(mdb_get(txn, meta, &k, &v));
    if (rc == MDB_NOTFOUND)
        return MDB_NOTFOUND;
    if (rc)
        return eng_lmdb_err(err, rc, "read the catalog");
    const uint8_t *p = v.mv_data;
    if (!eng_map_holds_txn(txn, v.mv_data, v.mv_size))
        return eng_errorf(err, ENG_E_CORRUPT, "database file is corrupted (catalog entry %s)",
                          key);
    if (v.mv_size != 8 &&
        (v.mv_size != 12 || eng_be32(p + 8) != record_checksum(key, k.mv_size, p, 8)))
        return eng_errorf(err, ENG_E_CORRUPT, "database file is corrupted (catalog entry %s)",
                          key);
    *out = eng_be64(p);
    return 0;
}

int eng_catalog_put_u64(MDB_txn *txn, MDB_dbi meta, const char *key, uint64_t value,
                        eng_err *err)
{
    uint8_t buf[12];
    eng_put_be64(buf, value);
    eng_put_be32(buf + 8, record_checksum(key, strlen(key), buf, 8));
    MDB_val k = {strlen(key), (void *)key}, v = {sizeof buf, buf};
    int rc = ENG_FAULT_CALL(mdb_put(txn, meta, &k, &v, 0));
    return rc ? eng_lmdb_err(err, rc, "write the catalog") : 0;
}

int eng_catalog_version(MDB_txn *txn, MDB_dbi meta, uint64_t *out, eng_err *err)
{
    *out = 0;
    int rc = eng_catalog_get_u64(txn, meta, "v", out, err);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

/* The write transaction in which this thread last bumped a schema version (a schema change
   runs its whole transaction, commit included, on one thread). */
static __thread uint64_t bumped_txnid;

int eng_catalog_bump_version(MDB_txn *txn, MDB_dbi meta, eng_err *err)
{
    uint64_t v;
    bumped_txnid = (uint64_t)mdb_txn_id(txn);
    int rc = eng_catalog_version(txn, meta, &v, err);
    return rc ? rc : eng_catalog_put_u64(txn, meta, "v", v + 1, err);
}

int eng_catalog_bumped_in(uint64_t id)
{
    return bumped_txnid == id;
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
/* Records                                                                   */
/* ------------------------------------------------------------------------ */

void eng_catalog_encode_keyspace(eng_buf *b, const eng_option *repl, uint32_t n, int durable)
{
    eng_buf_put_u8(b, REC_FORMAT);
    eng_buf_put_be32(b, 0); /* the checksum: eng_catalog_meta_put seals the record */
    eng_buf_put_u8(b, durable ? 1 : 0);
    eng_buf_put_uvint(b, n);
    for (uint32_t i = 0; i < n; i++) {
        put_str(b, repl[i].name);
        put_str(b, repl[i].value);
    }
}

void eng_catalog_encode_udt(eng_buf *b, const eng_type *udt)
{
    eng_buf_put_u8(b, REC_FORMAT);
    eng_buf_put_be32(b, 0); /* the checksum: eng_catalog_meta_put seals the record */
    eng_buf_put_uvint(b, udt->n_sub);
    for (uint16_t i = 0; i < udt->n_sub; i++) {
        put_str(b, udt->fields[i]);
        put_type(b, udt->sub[i]);
    }
}

void eng_catalog_encode_table(eng_buf *b, const eng_table *t)
{
    eng_buf_put_u8(b, REC_FORMAT);
    eng_buf_put_be32(b, 0); /* the checksum: eng_catalog_meta_put seals the record */
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

/* A reader over the body of the record v stored under key k, its checksum verified. */
static rd rd_record(const MDB_val *k, const MDB_val *v)
{
    rd r = {v->mv_data, (const uint8_t *)v->mv_data + v->mv_size, 0, 0};
    uint8_t format = rd_u8(&r);
    if (format == REC_FORMAT) {
        const uint8_t *sum = rd_bytes(&r, 4);
        if (!sum || eng_be32(sum) != record_checksum(k->mv_data, k->mv_size, r.p, rd_left(&r)))
            r.bad = 1;
    } else if (format != REC_FORMAT_V1) {
        r.bad = 1;
    }
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

static int decode_keyspace(const MDB_val *k, const MDB_val *v, eng_keyspace *ks)
{
    rd r = rd_record(k, v);
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
static int decode_table(const MDB_val *k, const MDB_val *v, eng_table *t, eng_schema *s)
{
    rd r = rd_record(k, v);
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
    return rc ? rc : eng_table_index(t);
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
    int rc = ENG_FAULT_CALL(mdb_cursor_open(txn, meta, &cur));
    if (rc)
        return eng_lmdb_err(err, rc, "read schema");
    MDB_val k, v;
    MDB_cursor_op op = MDB_FIRST;
    while ((rc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, op))) == 0) {
        op = MDB_NEXT;
        if (!eng_map_holds_txn(txn, k.mv_data, k.mv_size) ||
            !eng_map_holds_txn(txn, v.mv_data, v.mv_size)) {
            mdb_cursor_close(cur);
            return eng_errorf(err, ENG_E_CORRUPT,
                              "database file is corrupted (a catalog record runs past the end "
                              "of the file)");
        }
        const uint8_t *p = k.mv_data;
        if (k.mv_size == 1 && (p[0] == 'v' || p[0] == 'h'))
            continue; /* the version and the timestamp mark */
        int which = k.mv_size < 2 || p[1] != 0 ? -1
                    : p[0] == 'K'              ? 0
                    : p[0] == 'T'              ? 1
                    : p[0] == 'Y'              ? 2
                                               : -1;
        if (which < 0) { /* a record whose key lost its shape: never skip it silently */
            rc = MDB_NOTFOUND;
            mdb_cursor_close(cur);
            return eng_errorf(err, ENG_E_CORRUPT,
                              "database file is corrupted (an unknown key in the catalog)");
        }
        if (kv_push(&lists[which], &k, &v)) {
            rc = ENOMEM;
            break;
        }
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : eng_lmdb_err(err, rc, "read schema");
}

static int load_error(eng_err *err, int rc, const char *what, const char *ks, const char *name)
{
    if (rc == ENG_E_NOMEM)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory loading the schema");
    return eng_errorf(err, ENG_E_CORRUPT, "corrupt catalog record for %s %s%s%s", what,
                      ks ? ks : "?", name ? "." : "", name ? name : "");
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
            rc = decode_keyspace(&l->k[i], &l->v[i], ks);
        if (rc)
            return load_error(err, rc, "keyspace", ks->name, NULL);
    }
    qsort(s->keyspaces, s->n_keyspaces, sizeof *s->keyspaces, eng_keyspace_order);
    return 0;
}

/*
 * User types are built from their records, in key order, which is (ks, name)
 * order. A type may use others of its keyspace, whatever their names, so a
 * record that names one not built yet waits for it: the one it needs is built
 * first (depth-first with a stack of our own, not recursion: nesting has no
 * limit), each record being tried at most once more per type it uses.
 */
enum { UDT_NEW, UDT_WAITING, UDT_BUILT };

typedef struct udt_raw {
    char *ks, *name;
    const MDB_val *k, *v; /* the record's key and value */
    eng_type *type;       /* once built; s->types takes it over */
    int state;            /* UDT_NEW, UDT_WAITING (on the stack), UDT_BUILT */
} udt_raw;

typedef struct udt_load {
    eng_schema *s;
    const eng_schema *prev; /* the snapshot this one replaces, or NULL */
    udt_raw *raw;           /* the records, in (ks, name) order */
    uint32_t n;
    uint32_t missing;       /* set by udt_resolver: the record of a type used and not built yet
                               (n: no record defines it) */
} udt_load;

static const eng_type *udt_resolver(void *ctx, const char *ks, const char *name)
{
    udt_load *l = ctx;
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ks, l->raw[mid].ks);
        c = c ? c : strcmp(name, l->raw[mid].name);
        if (!c) {
            if (l->raw[mid].type)
                return l->raw[mid].type;
            l->missing = mid;
            return NULL;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    l->missing = l->n;
    return NULL;
}

static int has_dup_name(char *const *names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                return 1;
    return 0;
}

static int same_str(const char *a, const char *b)
{
    return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

/*
 * A field type just decoded against the snapshot being built, and the one
 * the previous snapshot holds: the same, with a user type the same only as
 * the very definition both resolve to. A definition rebuilt in this snapshot
 * (changed, or using one that changed) is another object, so a type that
 * uses it is rebuilt too and never keeps pointing at the old one.
 */
static int same_field_type(const eng_type *a, const eng_type *b)
{
    if (a->kind != b->kind || a->frozen != b->frozen || a->n_sub != b->n_sub)
        return 0;
    if (a->kind == ENG_UDT)
        return a->base && a->base == b->base;
    if (!same_str(a->name, b->name))
        return 0;
    for (int i = 0; i < a->n_sub; i++)
        if (!same_field_type(a->sub[i], b->sub[i]))
            return 0;
    return 1;
}

/* prev's definition of u, when the record still describes exactly it; else NULL. */
static eng_type *unchanged_udt(const udt_load *l, const udt_raw *u, char *const *names,
                               eng_type *const *types, uint32_t n)
{
    const eng_type *old = eng_schema_udt(l->prev, u->ks, u->name);
    if (!old || old->n_sub != n)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(old->fields[i], names[i]) || !same_field_type(types[i], old->sub[i]))
            return NULL;
    return (eng_type *)old;
}

/*
 * One user type, if every type it uses is built: 0, ENG_E_NOMEM or
 * ENG_E_CORRUPT (l->missing then names a type it uses that is not built).
 * A type whose record and the types it uses are unchanged is the previous
 * snapshot's definition, shared: a schema change copies only what it changes.
 */
static int build_udt(udt_load *l, const udt_raw *u, eng_type **out)
{
    rd r = rd_record(u->k, u->v);
    uint32_t n = rd_count(&r);
    if (n > UINT16_MAX)
        r.bad = 1;
    char **names = n ? eng_calloc(n, sizeof *names) : NULL;
    eng_type **types = n ? eng_calloc(n, sizeof *types) : NULL;
    if (n && (!names || !types))
        r.oom = 1;
    for (uint32_t i = 0; i < n && !r.bad && !r.oom; i++) {
        names[i] = rd_str(&r);
        types[i] = rd_type(&r, udt_resolver, l);
    }
    int rc = rd_result(&r);
    if (!rc && has_dup_name(names, n))
        rc = ENG_E_CORRUPT;
    eng_type *old = rc ? NULL : unchanged_udt(l, u, names, types, n);
    if (!rc && !old) {
        /* takes over the names and types, also when it fails */
        *out = eng_type_new_udt(u->ks, u->name, names, types, (int)n, 0);
        rc = *out ? 0 : ENG_E_NOMEM;
    } else {
        for (uint32_t i = 0; i < n && names && types; i++) {
            eng_free(names[i]);
            eng_type_free(types[i]);
        }
        if (old)
            *out = eng_type_ref(old);
    }
    eng_free(names);
    eng_free(types);
    return rc;
}

static int build_udts(udt_load *l, eng_err *err)
{
    uint32_t *stack = eng_malloc(sizeof *stack * l->n), depth = 0;
    if (!stack)
        return load_error(err, ENG_E_NOMEM, NULL, NULL, NULL);
    int rc = 0;
    for (uint32_t first = 0; !rc && first < l->n; first++) {
        if (l->raw[first].state != UDT_NEW)
            continue;
        l->raw[first].state = UDT_WAITING;
        stack[depth++] = first;
        while (!rc && depth) {
            udt_raw *u = &l->raw[stack[depth - 1]];
            l->missing = l->n;
            rc = build_udt(l, u, &u->type);
            if (!rc) {
                u->state = UDT_BUILT;
                depth--;
            } else if (rc == ENG_E_CORRUPT && l->missing < l->n &&
                       l->raw[l->missing].state == UDT_NEW) {
                /* it uses a type not built yet: that one first */
                l->raw[l->missing].state = UDT_WAITING;
                stack[depth++] = l->missing;
                rc = 0;
            } else {
                /* a record that does not decode, a type no record defines, or a cycle */
                rc = load_error(err, rc, "user type", u->ks, u->name);
            }
        }
    }
    eng_free(stack);
    return rc;
}

static int load_types(eng_schema *s, const eng_schema *prev, const kv_list *l, eng_err *err)
{
    if (!l->n)
        return 0;
    udt_load ld = {s, prev, eng_calloc(l->n, sizeof *ld.raw), l->n, l->n};
    s->types = eng_calloc(l->n, sizeof *s->types);
    int rc = (ld.raw && s->types) ? 0 : load_error(err, ENG_E_NOMEM, NULL, NULL, NULL);
    for (uint32_t i = 0; !rc && i < l->n; i++) {
        ld.raw[i].k = &l->k[i];
        ld.raw[i].v = &l->v[i];
        rc = split_key(&l->k[i], 1, &ld.raw[i].ks, &ld.raw[i].name);
        if (!rc && !eng_schema_keyspace(s, ld.raw[i].ks))
            rc = ENG_E_CORRUPT;
        if (rc)
            rc = load_error(err, rc, "user type", ld.raw[i].ks, ld.raw[i].name);
    }
    if (!rc)
        rc = build_udts(&ld, err);
    for (uint32_t i = 0; ld.raw && i < l->n; i++) {
        if (ld.raw[i].type)
            s->types[s->n_types++] = ld.raw[i].type; /* freed with s, also on failure */
        eng_free(ld.raw[i].ks);
        eng_free(ld.raw[i].name);
    }
    eng_free(ld.raw);
    if (!rc)
        qsort(s->types, s->n_types, sizeof *s->types, eng_udt_order);
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
            rc = eng_schema_keyspace(s, t->ks) ? decode_table(&l->k[i], &l->v[i], t, s)
                                               : ENG_E_CORRUPT;
        if (rc)
            return load_error(err, rc, "table", t->ks, t->name);
    }
    qsort(s->tables, s->n_tables, sizeof *s->tables, eng_table_order);
    return 0;
}

int eng_schema_load(MDB_txn *txn, MDB_dbi meta, eng_schema **out, eng_err *err)
{
    return eng_schema_load_after(txn, meta, NULL, out, err);
}

int eng_schema_load_after(MDB_txn *txn, MDB_dbi meta, const eng_schema *prev, eng_schema **out,
                          eng_err *err)
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
        rc = load_types(s, prev, &lists[2], err);
    if (!rc)
        rc = load_tables(s, &lists[1], err);
    for (int i = 0; i < 3; i++) {
        eng_free(lists[i].k);
        eng_free(lists[i].v);
    }
    if (rc) {
        eng_schema_unref(s); /* the only reference */
        return rc;
    }
    *out = s;
    return 0;
}
