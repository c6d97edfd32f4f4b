/*
 * System tables computed from the catalog. Cassandra keeps its schema in
 * the tables of system_schema and describes the node in system.local;
 * drivers and cqlsh read them to learn the schema and the ring. cassette
 * keeps neither as data: they are virtual tables (engine.h) whose provider,
 * cql_systable_fill, rebuilds the rows from a schema snapshot at each read,
 * with the values Cassandra 4.1 stores (SchemaKeyspace's
 * addTableParamsToRowBuilder, addColumnToSchemaMutation, ...; SystemKeyspace's
 * persistLocalMetadata). The engine reads them like any table: token order,
 * clustering order, slices, limits, DISTINCT and paging are its own.
 *
 * The descriptors come from the column definitions of SchemaKeyspace and
 * SystemKeyspace (4.1), parsed once from the spec strings below and kept
 * for the life of the process. Table ids are TableId.forSystemTable: the
 * type-3 (MD5) name UUID of keyspace and table name, hence the small MD5.
 *
 * Values that have no stored source are fixed or derived (see "what a
 * single node reports" below): embedded, host_id is a name UUID of the
 * database directory's real path (stable while the database stays where it
 * is); schema_version is a name UUID of that same path UUID and the
 * catalog's schema version (it changes with every schema change, as
 * Cassandra's digest does, and is the same on every node serving the
 * directory, as a cluster in schema agreement reports it). A server tells
 * the node and its peers through a cql_topology (cql.h): their addresses,
 * ports, locations, host ids and tokens.
 */
#include "cql/exec/systables.h"
#include "cql/cql.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* ------------------------------------------------------------------------ */
/* What a single node reports                                                */
/* ------------------------------------------------------------------------ */

/* SystemKeyspace.persistLocalMetadata with cassandra.yaml's defaults and SimpleSnitch. */
#define CLUSTER_NAME "Test Cluster"
#define CQL_VERSION CQL_CQL_VERSION
#define RELEASE_VERSION "4.1.5"
#define NATIVE_PROTOCOL_VERSION "5"     /* ProtocolVersion.CURRENT */
#define PARTITIONER "org.apache.cassandra.dht.Murmur3Partitioner"
#define DATA_CENTER "datacenter1"
#define RACK "rack1"
#define STORAGE_PORT 7000               /* broadcast_port, listen_port */
#define NATIVE_PORT 9042                /* rpc_port */
#define NUM_TOKENS 16                   /* cassandra.yaml num_tokens in 4.x */

static const uint8_t LOOPBACK[4] = {127, 0, 0, 1};

/*
 * The system keyspaces. A fresh 4.1 node lists the first five in
 * system_schema.keyspaces: system and system_schema with LocalStrategy,
 * the others with SimpleStrategy and the factors of AuthKeyspace,
 * SystemDistributedKeyspace and TraceKeyspace. The virtual keyspaces are
 * reserved names but live in system_virtual_schema, not here.
 */
typedef struct sys_keyspace {
    const char *name;
    const char *rf; /* SimpleStrategy replication_factor; NULL: LocalStrategy */
    int listed;     /* a row of system_schema.keyspaces */
} sys_keyspace;

static const sys_keyspace SYS_KEYSPACES[] = {
    {"system", NULL, 1},
    {"system_auth", "1", 1},
    {"system_distributed", "3", 1},
    {"system_schema", NULL, 1},
    {"system_traces", "2", 1},
    {"system_views", NULL, 0},
    {"system_virtual_schema", NULL, 0},
};

#define LOCATOR "org.apache.cassandra.locator."
#define COMPACTION "org.apache.cassandra.db.compaction."
#define COMPRESSOR "org.apache.cassandra.io.compress."

int cql_systable_keyspace(const char *ks)
{
    for (size_t i = 0; ks && i < ENG_ARRAY_LEN(SYS_KEYSPACES); i++)
        if (!strcmp(ks, SYS_KEYSPACES[i].name))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* MD5 and name-based UUIDs (java.util.UUID.nameUUIDFromBytes)               */
/* ------------------------------------------------------------------------ */

typedef struct md5_ctx {
    uint32_t h[4];
    uint64_t len;
    uint8_t buf[64];
} md5_ctx;

/* RFC 1321: K[i] = floor(|sin(i + 1)| * 2^32), and the per-step rotations. */
static const uint32_t MD5_K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
    0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
    0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
    0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
    0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
    0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
    0xeb86d391,
};
static const uint8_t MD5_R[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23},
                                    {6, 10, 15, 21}};

static uint32_t rol32(uint32_t x, int c) { return x << c | x >> (32 - c); }

static void md5_block(uint32_t h[4], const uint8_t *p)
{
    uint32_t m[16];
    for (int i = 0; i < 16; i++)
        m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) % 16;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) % 16;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) % 16;
        }
        uint32_t t = d;
        d = c;
        c = b;
        b += rol32(a + f + MD5_K[i] + m[g], MD5_R[i / 16][i % 4]);
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

static void md5_init(md5_ctx *c)
{
    *c = (md5_ctx){{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}, 0, {0}};
}

static void md5_update(md5_ctx *c, const void *data, size_t n)
{
    const uint8_t *p = data;
    size_t used = (size_t)(c->len % 64);
    c->len += n;
    if (used) {
        size_t k = ENG_MIN(64 - used, n);
        memcpy(c->buf + used, p, k);
        p += k;
        n -= k;
        if (used + k < 64)
            return;
        md5_block(c->h, c->buf);
    }
    for (; n >= 64; p += 64, n -= 64)
        md5_block(c->h, p);
    if (n)
        memcpy(c->buf, p, n);
}

/* Finishes the digest and turns it into a version-3 UUID, as nameUUIDFromBytes does. */
static void md5_name_uuid(md5_ctx *c, uint8_t out[16])
{
    static const uint8_t pad[64] = {0x80};
    uint64_t bits = c->len * 8;
    size_t used = (size_t)(c->len % 64);
    md5_update(c, pad, used < 56 ? 56 - used : 120 - used);
    uint8_t len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (8 * i));
    md5_update(c, len, 8);
    for (int i = 0; i < 16; i++)
        out[i] = (uint8_t)(c->h[i / 4] >> (8 * (i % 4)));
    out[6] = (uint8_t)((out[6] & 0x0f) | 0x30);
    out[8] = (uint8_t)((out[8] & 0x3f) | 0x80);
}

/* TableId.forSystemTable: nameUUIDFromBytes(keyspace bytes ++ table bytes). */
static void system_table_id(const char *ks, const char *name, uint8_t out[16])
{
    md5_ctx c;
    md5_init(&c);
    md5_update(&c, ks, strlen(ks));
    md5_update(&c, name, strlen(name));
    md5_name_uuid(&c, out);
}

/* The node's host_id: a name UUID of the database directory's real path. */
static void host_id(eng_db *db, uint8_t out[16])
{
    char real[PATH_MAX];
    const char *path = db ? eng_db_path(db) : "";
    if (*path && realpath(path, real))
        path = real;
    md5_ctx c;
    md5_init(&c);
    md5_update(&c, "cassette host_id ", 17);
    md5_update(&c, path, strlen(path));
    md5_name_uuid(&c, out);
}

/* schema_version: a name UUID of the host and the catalog's version number. */
static void schema_version(const uint8_t host[16], uint64_t version, uint8_t out[16])
{
    uint8_t v[8];
    eng_put_be64(v, version);
    md5_ctx c;
    md5_init(&c);
    md5_update(&c, host, 16);
    md5_update(&c, v, 8);
    md5_name_uuid(&c, out);
}

/* ------------------------------------------------------------------------ */
/* Rows under construction                                                   */
/* ------------------------------------------------------------------------ */

/* A key/value pair of a map<text, text> being built (strings live in the scan's arena). */
typedef struct kv {
    const char *key;
    const char *val;
} kv;

#define MAX_PAIRS 32 /* sub-options of one table option we look at */

typedef struct scan {
    const eng_table *t;
    const eng_schema *s;
    eng_db *db;
    const cql_topology *topology; /* the cluster described; NULL: the embedded node */
    eng_vsink *sink;      /* where finished rows go */
    eng_err *err;
    eng_arena arena;      /* every value and string of the scan (a few MiB at most) */
    eng_val *values;      /* the row being built: one per column (t->cols order) */
    int in_row;           /* between row_begin and row_end */
    int64_t ts;           /* write timestamp of the row being built */
    eng_buf tmp;          /* serializes one value at a time */
    int rc;               /* the sink's first failure: the scan stops there */
    int failed;           /* an allocation failed: the scan reports ENG_E_NOMEM */
    const char *bug;      /* a row that does not fit its table: reported as a server error */
} scan;

static void *arena_alloc(scan *sc, size_t n)
{
    void *p = eng_arena_alloc(&sc->arena, n ? n : 1);
    if (!p)
        sc->failed = 1;
    return p;
}

/* A copy in the arena; "" once an allocation failed (the scan is then abandoned). */
static const char *arena_strn(scan *sc, const char *s, size_t n)
{
    char *p = arena_alloc(sc, n + 1);
    if (!p)
        return "";
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static const char *arena_str(scan *sc, const char *s) { return arena_strn(sc, s, strlen(s)); }

static const char *arena_cat(scan *sc, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *p = arena_alloc(sc, na + nb + 1);
    if (!p)
        return "";
    memcpy(p, a, na);
    memcpy(p + na, b, nb + 1);
    return p;
}

static void row_begin(scan *sc)
{
    for (uint32_t i = 0; i < sc->t->n_cols; i++)
        sc->values[i] = (eng_val){NULL, ENG_NULL};
    sc->in_row = 1;
}

/* Sets column `col` of the current row to the native bytes p[0..len). */
static void put_raw(scan *sc, const char *col, const void *p, size_t len)
{
    if (!sc->in_row)
        return;
    int i = eng_table_column_index(sc->t, col);
    if (i < 0) {
        sc->bug = col;
        return;
    }
    uint8_t *v = arena_alloc(sc, len);
    if (!v)
        return;
    if (len)
        memcpy(v, p, len);
    sc->values[i] = (eng_val){v, (int32_t)len};
}

/* Text; NULL leaves the column null. */
static void put_text(scan *sc, const char *col, const char *s)
{
    if (s)
        put_raw(sc, col, s, strlen(s));
}

static void put_int(scan *sc, const char *col, int32_t v)
{
    uint8_t b[4];
    eng_put_be32(b, (uint32_t)v);
    put_raw(sc, col, b, 4);
}

static void put_bool(scan *sc, const char *col, int v)
{
    uint8_t b = v ? 1 : 0;
    put_raw(sc, col, &b, 1);
}

static void put_double(scan *sc, const char *col, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    uint8_t b[8];
    eng_put_be64(b, u);
    put_raw(sc, col, b, 8);
}

static void put_bigint(scan *sc, const char *col, int64_t v)
{
    uint8_t b[8];
    eng_put_be64(b, (uint64_t)v);
    put_raw(sc, col, b, 8);
}

/* Puts the serialized value held in sc->tmp. */
static void put_tmp(scan *sc, const char *col)
{
    if (sc->tmp.oom)
        sc->failed = 1;
    else
        put_raw(sc, col, sc->tmp.p, sc->tmp.len);
}

static int kv_order(const void *a, const void *b)
{
    return strcmp(((const kv *)a)->key, ((const kv *)b)->key);
}

/* A frozen map<text, text> (v4 format), keys sorted as UTF8Type compares them: by bytes. */
static void put_map(scan *sc, const char *col, kv *items, uint32_t n)
{
    if (n > 1)
        qsort(items, n, sizeof *items, kv_order);
    eng_buf_reset(&sc->tmp);
    eng_buf_put_be32(&sc->tmp, n);
    for (uint32_t i = 0; i < n; i++) {
        eng_buf_put_bytes(&sc->tmp, (const uint8_t *)items[i].key, (int32_t)strlen(items[i].key));
        eng_buf_put_bytes(&sc->tmp, (const uint8_t *)items[i].val, (int32_t)strlen(items[i].val));
    }
    put_tmp(sc, col);
}

/* A list<text>, or a set<text> when the caller passes the strings sorted. */
static void put_strings(scan *sc, const char *col, const char *const *v, uint32_t n)
{
    eng_buf_reset(&sc->tmp);
    eng_buf_put_be32(&sc->tmp, n);
    for (uint32_t i = 0; i < n; i++)
        eng_buf_put_bytes(&sc->tmp, (const uint8_t *)v[i], (int32_t)strlen(v[i]));
    put_tmp(sc, col);
}

/* The type's text as system_schema stores it (a string in the arena). */
static const char *type_text(scan *sc, const eng_type *t)
{
    if (!t)
        return "";
    eng_buf_reset(&sc->tmp);
    eng_type_to_cql(t, &sc->tmp);
    if (sc->tmp.oom) {
        sc->failed = 1;
        return "";
    }
    return arena_strn(sc, (const char *)sc->tmp.p, sc->tmp.len);
}

/* Completes the row and hands it to the engine; the scan stops at the first failure. */
static void row_end(scan *sc)
{
    if (!sc->in_row)
        return;
    sc->in_row = 0;
    const eng_table *t = sc->t;
    for (uint16_t i = 0; i < t->n_pk + t->n_ck; i++)
        if (sc->values[i].len < 0) {
            sc->bug = t->cols[i].name;
            return;
        }
    if (!sc->failed && !sc->bug && !sc->rc)
        sc->rc = eng_vsink_row(sc->sink, sc->values, sc->ts, sc->err);
}

/* ------------------------------------------------------------------------ */
/* Table options as Cassandra normalizes and stores them                     */
/* ------------------------------------------------------------------------ */

/* The value of WITH option `name` (CQL text: strings unquoted, maps as literals), or NULL. */
static const char *opt(const eng_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_opts; i++)
        if (!strcmp(t->opts[i].name, name))
            return t->opts[i].value;
    return NULL;
}

static const char *kv_find(const kv *m, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(m[i].key, key))
            return m[i].val;
    return NULL;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A string of a map literal: 'quoted' (with '' for a quote) or a bare number / word. */
static const char *literal_item(scan *sc, const char **pp)
{
    const char *p = skip_space(*pp);
    if (*p != '\'') {
        const char *s = p;
        while (*p && !strchr(",:} \t\r\n", *p))
            p++;
        *pp = p;
        return p == s ? NULL : arena_strn(sc, s, (size_t)(p - s));
    }
    size_t n = 0;
    const char *q = ++p;
    for (; *q && !(*q == '\'' && q[1] != '\''); q += *q == '\'' ? 2 : 1)
        n++;
    if (*q != '\'')
        return NULL;
    char *out = arena_alloc(sc, n + 1);
    if (!out)
        return NULL;
    for (n = 0; p < q; p += *p == '\'' ? 2 : 1)
        out[n++] = *p;
    out[n] = 0;
    *pp = q + 1;
    return out;
}

/* Parses "{'k': 'v', 'n': 16}" into at most max pairs; -1 if s is not such a map. */
static int parse_map(scan *sc, const char *s, kv *out, int max)
{
    const char *p = skip_space(s);
    if (*p++ != '{')
        return -1;
    int n = 0;
    p = skip_space(p);
    if (*p == '}')
        return *skip_space(p + 1) ? -1 : 0;
    for (;;) {
        if (n == max)
            return -1;
        out[n].key = literal_item(sc, &p);
        p = skip_space(p);
        if (!out[n].key || *p++ != ':')
            return -1;
        out[n].val = literal_item(sc, &p);
        p = skip_space(p);
        if (!out[n++].val)
            return -1;
        if (*p == '}')
            return *skip_space(p + 1) ? -1 : n;
        if (*p++ != ',')
            return -1;
    }
}

/* An option given as a plain value: its text, without quotes if it still has them. */
static const char *scalar(scan *sc, const char *v)
{
    size_t n = strlen(v);
    if (n < 2 || v[0] != '\'' || v[n - 1] != '\'')
        return v;
    const char *p = v;
    const char *s = literal_item(sc, &p);
    return s ? s : v;
}

static int parse_int(const char *v, int32_t *out)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    if (end == v || *skip_space(end) || x < INT32_MIN || x > INT32_MAX)
        return -1;
    *out = (int32_t)x;
    return 0;
}

static double opt_double(scan *sc, const char *v, double dflt)
{
    if (!v)
        return dflt;
    v = scalar(sc, v);
    char *end;
    double d = strtod(v, &end);
    return end != v && !*skip_space(end) ? d : dflt;
}

static int32_t opt_int(scan *sc, const char *v, int32_t dflt)
{
    int32_t x;
    return v && parse_int(scalar(sc, v), &x) == 0 ? x : dflt;
}

static const char *upper(scan *sc, const char *v)
{
    char *u = (char *)arena_str(sc, v);
    for (char *p = u; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    return u;
}

/* A strategy or compressor class: short names live in Cassandra's own package. */
static const char *class_name(scan *sc, const char *name, const char *package)
{
    return strchr(name, '.') ? name : arena_cat(sc, package, name);
}

/* Java's Double.toString for the plain values an option takes ("1.5", "2.0"). */
static const char *java_double(scan *sc, double d)
{
    char buf[48];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (!strpbrk(buf, ".eEn"))
        strcat(buf, ".0");
    return arena_str(sc, buf);
}

/*
 * One speculative retry policy ("99p", "99.5PERCENTILE", "50ms") in the form
 * its toString gives: percentiles through DecimalFormat("#.####"), fixed
 * delays as whole milliseconds. *kind: 'p' or 'm'. 0 if v is neither form.
 */
static int retry_simple(const char *v, size_t n, char out[48], char *kind)
{
    size_t digits = strspn(v, "0123456789.");
    if (digits == 0 || digits > 32 || digits >= n)
        return 0;
    char num[40];
    memcpy(num, v, digits);
    num[digits] = 0;
    char *end;
    double d = strtod(num, &end);
    if (*end)
        return 0;
    const char *suffix = v + digits;
    size_t ns = n - digits;
    if ((ns == 1 && (*suffix == 'p' || *suffix == 'P')) ||
        (ns == 10 && !strncasecmp(suffix, "percentile", 10))) {
        snprintf(out, 48, "%.4f", d);
        char *z = out + strlen(out);
        while (z[-1] == '0')
            *--z = 0;
        if (z[-1] == '.')
            *--z = 0;
        strcat(out, "p");
        *kind = 'p';
        return 1;
    }
    if (ns == 2 && !strncasecmp(suffix, "ms", 2) && d < 2147483648.0) {
        snprintf(out, 48, "%dms", (int)d);
        *kind = 'm';
        return 1;
    }
    return 0;
}

/* MIN(a,b) / MAX(a,b) of one percentile and one fixed policy: "MIN(99p,50ms)". */
static const char *retry_hybrid(scan *sc, const char *v)
{
    size_t n = strlen(v);
    if (n < 6 || v[n - 1] != ')' || (strncasecmp(v, "MIN(", 4) && strncasecmp(v, "MAX(", 4)))
        return NULL;
    const char *comma = strchr(v + 4, ',');
    if (!comma)
        return NULL;
    const char *a = v + 4, *b = skip_space(comma + 1);
    size_t na = (size_t)(comma - a), nb = (size_t)(v + n - 1 - b);
    while (na && a[na - 1] == ' ')
        na--;
    char pa[48], pb[48], ka = 0, kb = 0;
    if (!retry_simple(a, na, pa, &ka) || !retry_simple(b, nb, pb, &kb) || ka == kb)
        return NULL;
    char out[112];
    snprintf(out, sizeof out, "%s(%s,%s)", strncasecmp(v, "MIN", 3) ? "MAX" : "MIN",
             ka == 'p' ? pa : pb, ka == 'p' ? pb : pa);
    return arena_str(sc, out);
}

/* SpeculativeRetryPolicy.fromString(v).toString() (speculative_retry, additional_write_policy). */
static const char *retry_policy(scan *sc, const char *v)
{
    if (!v)
        return "99p";
    v = scalar(sc, v);
    if (!strcasecmp(v, "ALWAYS"))
        return "ALWAYS";
    if (!strcasecmp(v, "NEVER") || !strcasecmp(v, "NONE"))
        return "NEVER";
    char buf[48], kind;
    if (retry_simple(v, strlen(v), buf, &kind))
        return arena_str(sc, buf);
    const char *h = retry_hybrid(sc, v);
    return h ? h : v;
}

static const char *decimal(scan *sc, int32_t v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", (int)v);
    return arena_str(sc, buf);
}

/* CachingParams.fromMap + asMap: keys ALL/NONE, rows_per_partition NONE/ALL/a count. */
static void caching_option(scan *sc, const char *v, kv out[2])
{
    const char *keys = "ALL", *rows = "NONE";
    kv m[MAX_PAIRS];
    int n = v ? parse_map(sc, v, m, MAX_PAIRS) : -1;
    if (n >= 0) {
        const char *k = kv_find(m, n, "keys"), *r = kv_find(m, n, "rows_per_partition");
        keys = k && !strcasecmp(k, "ALL") ? "ALL" : "NONE";
        int32_t count;
        if (r && !strcasecmp(r, "ALL"))
            rows = "ALL";
        else if (r && parse_int(r, &count) == 0 && count > 0)
            rows = count == INT32_MAX ? "ALL" : decimal(sc, count);
    }
    out[0] = (kv){"keys", keys};
    out[1] = (kv){"rows_per_partition", rows};
}

/*
 * CompactionParams.fromMap + asMap: the class under its full name, the other
 * sub-options as given, min_threshold 4 / max_threshold 32 added when absent
 * (every 4.1 strategy takes them). Returns the count; *lcs for the
 * LeveledCompactionStrategy, whose tables default bloom_filter_fp_chance to 0.1.
 */
static int compaction_option(scan *sc, const char *v, kv out[MAX_PAIRS + 3], int *lcs)
{
    int n = v ? parse_map(sc, v, out, MAX_PAIRS) : -1;
    if (n < 0)
        n = 0;
    int ci = 0;
    while (ci < n && strcmp(out[ci].key, "class"))
        ci++;
    if (ci == n)
        out[n++] = (kv){"class", "SizeTieredCompactionStrategy"};
    out[ci].val = class_name(sc, out[ci].val, COMPACTION);
    if (!kv_find(out, n, "min_threshold"))
        out[n++] = (kv){"min_threshold", "4"};
    if (!kv_find(out, n, "max_threshold"))
        out[n++] = (kv){"max_threshold", "32"};
    *lcs = !strcmp(out[ci].val, COMPACTION "LeveledCompactionStrategy");
    return n;
}

/*
 * CompressionParams.fromMap + asMap: {'enabled': 'false'} when disabled;
 * else the compressor's full class name, chunk_length_in_kb (16 by default),
 * min_compress_ratio only when not 0, and the compressor's own options.
 */
static int compression_option(scan *sc, const char *v, kv out[MAX_PAIRS + 2])
{
    kv m[MAX_PAIRS];
    int n = v ? parse_map(sc, v, m, MAX_PAIRS) : -1;
    const char *en = n > 0 ? kv_find(m, n, "enabled") : NULL;
    const char *cls = n > 0 ? kv_find(m, n, "class") : NULL;
    if ((en && !strcasecmp(en, "false")) || (cls && !*cls)) {
        out[0] = (kv){"enabled", "false"};
        return 1;
    }
    int k = 0;
    static const char *const handled[] = {"enabled", "class", "chunk_length_in_kb",
                                          "min_compress_ratio"};
    for (int i = 0; i < n; i++) {
        size_t h = 0;
        while (h < ENG_ARRAY_LEN(handled) && strcmp(m[i].key, handled[h]))
            h++;
        if (h == ENG_ARRAY_LEN(handled))
            out[k++] = m[i];
    }
    out[k++] = (kv){"class", class_name(sc, cls ? cls : "LZ4Compressor", COMPRESSOR)};
    int32_t kb;
    const char *chunk = n > 0 ? kv_find(m, n, "chunk_length_in_kb") : NULL;
    if (!chunk || parse_int(chunk, &kb) != 0)
        kb = 16;
    out[k++] = (kv){"chunk_length_in_kb", decimal(sc, kb)};
    const char *ratio = n > 0 ? kv_find(m, n, "min_compress_ratio") : NULL;
    double r = ratio ? strtod(ratio, NULL) : 0.0;
    if (r != 0.0)
        out[k++] = (kv){"min_compress_ratio", java_double(sc, r)};
    return k;
}

/* TableMetadata.Flag.toStringSet: every CQL table is compound; counter tables are flagged. */
static void put_flags(scan *sc, const eng_table *t)
{
    static const char *const compound[] = {"compound"};
    static const char *const counter[] = {"compound", "counter"};
    if (t->is_counter)
        put_strings(sc, "flags", counter, 2);
    else
        put_strings(sc, "flags", compound, 1);
}

/* ------------------------------------------------------------------------ */
/* The rows of each table                                                    */
/* ------------------------------------------------------------------------ */

#define N_SPECS 23 /* the definitions in SPECS below */

/* The descriptors of SPECS, in the same order. */
typedef struct sys_registry {
    eng_table tables[N_SPECS];
} sys_registry;

static const sys_registry *registry(void);

int cql_systable_served(const eng_table *t)
{
    /* The registry's tables are one array: a table is served when it is one of them (by
       address, with no name compared: every query asks). */
    const sys_registry *r = t ? registry() : NULL;
    uintptr_t a = (uintptr_t)t, lo = r ? (uintptr_t)&r->tables[0] : 0;
    return r && a >= lo && a < (uintptr_t)&r->tables[N_SPECS];
}

/* A table of a virtual keyspace: described in system_virtual_schema, not in system_schema. */
static int is_virtual(const eng_table *t)
{
    return !strcmp(t->ks, "system_virtual_schema");
}

/* Calls fn for every table described: the system tables served here, then the snapshot's. */
static void each_table(scan *sc, void (*fn)(scan *, const eng_table *))
{
    const sys_registry *reg = registry();
    for (uint32_t i = 0; reg && i < N_SPECS; i++)
        if (!is_virtual(&reg->tables[i]))
            fn(sc, &reg->tables[i]);
    for (uint32_t i = 0; sc->s && i < sc->s->n_tables; i++)
        if (!cql_systable_keyspace(sc->s->tables[i].ks) ||
            !strcmp(sc->s->tables[i].ks, "system_auth")) /* stored: roles and permissions */
            fn(sc, &sc->s->tables[i]);
}

static void keyspace_row(scan *sc, const char *name, int durable, kv *repl, uint32_t n)
{
    row_begin(sc);
    put_text(sc, "keyspace_name", name);
    put_bool(sc, "durable_writes", durable);
    put_map(sc, "replication", repl, n);
    row_end(sc);
}

/*
 * ReplicationParams as stored: the class under its full name; for
 * NetworkTopologyStrategy a 'replication_factor' is expanded into the
 * node's data center (NetworkTopologyStrategy.prepareOptions).
 */
static uint32_t replication(scan *sc, const eng_keyspace *k, kv *out)
{
    uint32_t n = 0;
    const char *rf = NULL;
    int nts = 0;
    for (uint32_t i = 0; i < k->n_repl; i++) {
        const char *key = k->repl[i].name, *val = k->repl[i].value;
        if (!strcmp(key, "class")) {
            val = class_name(sc, val, LOCATOR);
            nts = !strcmp(val, LOCATOR "NetworkTopologyStrategy");
        }
        out[n++] = (kv){key, val};
    }
    for (uint32_t i = 0; nts && i < n; i++) {
        if (!strcmp(out[i].key, "replication_factor")) {
            rf = out[i].val;
            out[i] = out[--n];
            break;
        }
    }
    if (rf && !kv_find(out, (int)n, DATA_CENTER))
        out[n++] = (kv){DATA_CENTER, rf};
    return n;
}

static void keyspaces_rows(scan *sc)
{
    for (size_t i = 0; i < ENG_ARRAY_LEN(SYS_KEYSPACES); i++) {
        const sys_keyspace *k = &SYS_KEYSPACES[i];
        if (!k->listed)
            continue;
        kv repl[2] = {{"class", k->rf ? LOCATOR "SimpleStrategy" : LOCATOR "LocalStrategy"},
                      {"replication_factor", k->rf}};
        keyspace_row(sc, k->name, 1, repl, k->rf ? 2 : 1);
    }
    for (uint32_t i = 0; sc->s && i < sc->s->n_keyspaces; i++) {
        const eng_keyspace *k = &sc->s->keyspaces[i];
        if (cql_systable_keyspace(k->name))
            continue;
        kv *repl = arena_alloc(sc, sizeof *repl * (k->n_repl + 1));
        if (repl)
            keyspace_row(sc, k->name, k->durable_writes, repl, replication(sc, k, repl));
    }
}

/* One row of system_schema.tables: TableParams as addTableParamsToRowBuilder writes them. */
static void table_row(scan *sc, const eng_table *t)
{
    kv caching[2], compaction[MAX_PAIRS + 3], compression[MAX_PAIRS + 2];
    int lcs;
    int n_compaction = compaction_option(sc, opt(t, "compaction"), compaction, &lcs);
    int n_compression = compression_option(sc, opt(t, "compression"), compression);
    caching_option(sc, opt(t, "caching"), caching);
    const char *memtable = opt(t, "memtable");
    memtable = memtable ? scalar(sc, memtable) : NULL;
    const char *read_repair = opt(t, "read_repair");

    row_begin(sc);
    put_text(sc, "keyspace_name", t->ks);
    put_text(sc, "table_name", t->name);
    put_text(sc, "additional_write_policy", retry_policy(sc, opt(t, "additional_write_policy")));
    put_double(sc, "bloom_filter_fp_chance",
               opt_double(sc, opt(t, "bloom_filter_fp_chance"), lcs ? 0.1 : 0.01));
    put_map(sc, "caching", caching, 2);
    /* cdc stays null: only a node with cdc_enabled writes it */
    put_text(sc, "comment", t->comment ? t->comment : "");
    put_map(sc, "compaction", compaction, (uint32_t)n_compaction);
    put_map(sc, "compression", compression, (uint32_t)n_compression);
    put_double(sc, "crc_check_chance", opt_double(sc, opt(t, "crc_check_chance"), 1.0));
    put_double(sc, "dclocal_read_repair_chance", 0.0);
    put_int(sc, "default_time_to_live", t->default_ttl_s);
    put_map(sc, "extensions", NULL, 0);
    put_flags(sc, t);
    put_int(sc, "gc_grace_seconds", t->gc_grace_s);
    put_raw(sc, "id", t->id, 16);
    put_int(sc, "max_index_interval", opt_int(sc, opt(t, "max_index_interval"), 2048));
    /* memtable: written only for a non-default configuration */
    put_text(sc, "memtable", memtable && strcasecmp(memtable, "default") ? memtable : NULL);
    put_int(sc, "memtable_flush_period_in_ms",
            opt_int(sc, opt(t, "memtable_flush_period_in_ms"), 0));
    put_int(sc, "min_index_interval", opt_int(sc, opt(t, "min_index_interval"), 128));
    put_text(sc, "read_repair", read_repair ? upper(sc, scalar(sc, read_repair)) : "BLOCKING");
    put_double(sc, "read_repair_chance", 0.0);
    put_text(sc, "speculative_retry", retry_policy(sc, opt(t, "speculative_retry")));
    row_end(sc);
}

static void tables_rows(scan *sc) { each_table(sc, table_row); }

static const char *const KIND_NAMES[] = {"partition_key", "clustering", "static", "regular"};

/* The rows of system_schema.columns for one table (addColumnToSchemaMutation). */
static void column_rows(scan *sc, const eng_table *t)
{
    for (uint32_t i = 0; i < t->n_cols; i++) {
        const eng_column *c = &t->cols[i];
        int key = c->kind == ENG_COL_PARTITION || c->kind == ENG_COL_CLUSTERING;
        const char *type = type_text(sc, c->type);
        row_begin(sc);
        put_text(sc, "keyspace_name", t->ks);
        put_text(sc, "table_name", t->name);
        put_text(sc, "column_name", c->name);
        put_text(sc, "clustering_order",
                 c->kind != ENG_COL_CLUSTERING ? "none" : c->desc ? "desc" : "asc");
        put_raw(sc, "column_name_bytes", c->name, strlen(c->name));
        put_text(sc, "kind", KIND_NAMES[c->kind & 3]);
        put_int(sc, "position", key ? c->position : -1);
        put_text(sc, "type", type);
        row_end(sc);
    }
}

static void columns_rows(scan *sc) { each_table(sc, column_rows); }

/*
 * system_virtual_schema describes the virtual keyspaces this node serves: itself (a 4.1 node
 * also has system_views, whose tables -- metrics, settings, clients -- cassette does not
 * serve, so it is not listed).
 */
static void virtual_keyspaces_rows(scan *sc)
{
    row_begin(sc);
    put_text(sc, "keyspace_name", "system_virtual_schema");
    row_end(sc);
}

static void virtual_tables_rows(scan *sc)
{
    const sys_registry *reg = registry();
    for (uint32_t i = 0; reg && i < N_SPECS; i++) {
        const eng_table *t = &reg->tables[i];
        if (!is_virtual(t))
            continue;
        row_begin(sc);
        put_text(sc, "keyspace_name", t->ks);
        put_text(sc, "table_name", t->name);
        put_text(sc, "comment", t->comment);
        row_end(sc);
    }
}

static void virtual_columns_rows(scan *sc)
{
    const sys_registry *reg = registry();
    for (uint32_t i = 0; reg && i < N_SPECS; i++)
        if (is_virtual(&reg->tables[i]))
            column_rows(sc, &reg->tables[i]);
}

/* system_schema.dropped_columns: written when the column was dropped. */
static void dropped_rows(scan *sc)
{
    for (uint32_t i = 0; sc->s && i < sc->s->n_tables; i++) {
        const eng_table *t = &sc->s->tables[i];
        if (cql_systable_keyspace(t->ks))
            continue;
        for (uint32_t k = 0; k < t->n_dropped; k++) {
            const eng_dropped_column *d = &t->dropped[k];
            const char *type = type_text(sc, d->type);
            sc->ts = d->dropped_us;
            row_begin(sc);
            put_text(sc, "keyspace_name", t->ks);
            put_text(sc, "table_name", t->name);
            put_text(sc, "column_name", d->name);
            put_bigint(sc, "dropped_time", d->dropped_us / 1000); /* MICROSECONDS.toMillis */
            put_text(sc, "kind", d->kind == ENG_COL_STATIC ? "static" : "regular");
            put_text(sc, "type", type);
            row_end(sc);
            sc->ts = 0;
        }
    }
}

/* system_schema.types: field names and the CQL text of their types, in declared order. */
static void types_rows(scan *sc)
{
    for (uint32_t i = 0; sc->s && i < sc->s->n_types; i++) {
        const eng_type *u = sc->s->types[i];
        if (cql_systable_keyspace(u->ks))
            continue;
        const char **types = arena_alloc(sc, sizeof *types * (u->n_sub ? u->n_sub : 1));
        if (!types)
            return;
        for (uint16_t f = 0; f < u->n_sub; f++)
            types[f] = type_text(sc, u->sub[f]);
        row_begin(sc);
        put_text(sc, "keyspace_name", u->ks);
        put_text(sc, "type_name", u->name);
        put_strings(sc, "field_names", (const char *const *)u->fields, u->n_sub);
        put_strings(sc, "field_types", types, u->n_sub);
        row_end(sc);
    }
}

static int str_order(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The embedded node's tokens: NUM_TOKENS evenly spaced ones, half a step off
 * the partitioner's minimum (which no node owns). One node owns the whole
 * ring whatever its tokens; drivers only need a valid set.
 */
static void even_tokens(int64_t out[NUM_TOKENS])
{
    uint64_t step = UINT64_C(1) << 60;
    for (int i = 0; i < NUM_TOKENS; i++)
        out[i] = (int64_t)((uint64_t)INT64_MIN + step / 2 + (uint64_t)i * step);
}

/* Tokens as a set<text> holds them: decimal strings sorted by UTF-8 bytes. */
static void put_tokens(scan *sc, const int64_t *tokens, int n)
{
    const char *text[CQL_NODE_TOKENS];
    if (n > CQL_NODE_TOKENS)
        n = CQL_NODE_TOKENS;
    for (int i = 0; i < n; i++) {
        char buf[24];
        snprintf(buf, sizeof buf, "%lld", (long long)tokens[i]);
        text[i] = arena_str(sc, buf);
    }
    qsort(text, (size_t)n, sizeof *text, str_order);
    put_strings(sc, "tokens", text, (uint32_t)n); /* non-frozen: the engine keeps one cell each */
}

/* The embedded node: 127.0.0.1, the default ports, SimpleSnitch's location. */
static void embedded_node(scan *sc, cql_node *n)
{
    memset(n, 0, sizeof *n);
    memcpy(n->addr, LOOPBACK, 4);
    n->addr_len = 4;
    n->native_port = NATIVE_PORT;
    n->storage_port = STORAGE_PORT;
    snprintf(n->dc, sizeof n->dc, "%s", DATA_CENTER);
    snprintf(n->rack, sizeof n->rack, "%s", RACK);
    host_id(sc->db, n->host_id);
    n->n_tokens = NUM_TOKENS;
    even_tokens(n->tokens);
    n->up = 1;
}

/* The schema version every node of the database reports (they share one catalog). */
static void cluster_schema_version(scan *sc, uint8_t out[16])
{
    uint8_t db[16];
    host_id(sc->db, db);
    schema_version(db, sc->s ? sc->s->version : 0, out);
}

static void local_rows(scan *sc)
{
    cql_node n;
    if (sc->topology)
        sc->topology->local(sc->topology->arg, &n);
    else
        embedded_node(sc, &n);
    uint8_t schema[16];
    cluster_schema_version(sc, schema);
    row_begin(sc);
    put_text(sc, "key", "local");
    put_text(sc, "bootstrapped", "COMPLETED");
    put_raw(sc, "broadcast_address", n.addr, n.addr_len);
    put_int(sc, "broadcast_port", n.storage_port);
    put_text(sc, "cluster_name", CLUSTER_NAME);
    put_text(sc, "cql_version", CQL_VERSION);
    put_text(sc, "data_center", n.dc);
    /* gossip_generation stays null: no gossip runs */
    put_raw(sc, "host_id", n.host_id, 16);
    put_raw(sc, "listen_address", n.addr, n.addr_len);
    put_int(sc, "listen_port", n.storage_port);
    put_text(sc, "native_protocol_version", NATIVE_PROTOCOL_VERSION);
    put_text(sc, "partitioner", PARTITIONER);
    put_text(sc, "rack", n.rack);
    put_text(sc, "release_version", RELEASE_VERSION);
    put_raw(sc, "rpc_address", n.addr, n.addr_len);
    put_int(sc, "rpc_port", n.native_port);
    put_raw(sc, "schema_version", schema, 16);
    put_tokens(sc, n.tokens, n.n_tokens);
    /* truncated_at stays null: truncations keep no commit log positions here */
    row_end(sc);
}

/*
 * The peers tables as SystemKeyspace.updatePeerInfo fills them from gossip:
 * location, host_id, release and schema versions, tokens, the native address
 * (rpc_address in the legacy table); preferred_ip and preferred_port stay
 * null (no snitch prefers another address). A down member keeps its row, as
 * Cassandra keeps a dead node until it is removed.
 */
typedef struct peer_scan {
    scan *sc;
    int v2;
    cql_node local;
    uint8_t schema[16];
    uint8_t (*seen)[16]; /* legacy table: addresses already given a row (keyed by peer alone) */
    int n_seen, cap_seen;
} peer_scan;

static int legacy_address_taken(peer_scan *ps, const cql_node *n)
{
    uint8_t key[16] = {0};
    memcpy(key, n->addr, n->addr_len);
    if (n->addr_len == ps->local.addr_len && !memcmp(n->addr, ps->local.addr, n->addr_len))
        return 1; /* the local node's address: that row would name this node */
    for (int i = 0; i < ps->n_seen; i++)
        if (!memcmp(ps->seen[i], key, 16))
            return 1;
    if (ps->n_seen == ps->cap_seen) {
        int cap = ps->cap_seen ? 2 * ps->cap_seen : 8;
        uint8_t(*grown)[16] = arena_alloc(ps->sc, (size_t)cap * 16);
        if (!grown)
            return 1;
        if (ps->n_seen)
            memcpy(grown, ps->seen, (size_t)ps->n_seen * 16);
        ps->seen = grown;
        ps->cap_seen = cap;
    }
    memcpy(ps->seen[ps->n_seen++], key, 16);
    return 0;
}

static void peer_row(void *arg, const cql_node *n)
{
    peer_scan *ps = arg;
    scan *sc = ps->sc;
    /* system.peers is keyed by address alone: of nodes sharing one, only the first has a row
       there (drivers find the others in peers_v2, keyed by address and port) */
    if (!ps->v2 && legacy_address_taken(ps, n))
        return;
    row_begin(sc);
    put_raw(sc, "peer", n->addr, n->addr_len);
    if (ps->v2) {
        put_int(sc, "peer_port", n->storage_port);
        put_raw(sc, "native_address", n->addr, n->addr_len);
        put_int(sc, "native_port", n->native_port);
    } else {
        put_raw(sc, "rpc_address", n->addr, n->addr_len);
    }
    put_text(sc, "data_center", n->dc);
    put_raw(sc, "host_id", n->host_id, 16);
    put_text(sc, "rack", n->rack);
    put_text(sc, "release_version", RELEASE_VERSION);
    put_raw(sc, "schema_version", ps->schema, 16);
    put_tokens(sc, n->tokens, n->n_tokens);
    row_end(sc);
}

static void peers_of(scan *sc, int v2)
{
    if (!sc->topology)
        return; /* embedded: one node, no peers */
    peer_scan ps;
    memset(&ps, 0, sizeof ps);
    ps.sc = sc;
    ps.v2 = v2;
    sc->topology->local(sc->topology->arg, &ps.local);
    cluster_schema_version(sc, ps.schema);
    sc->topology->peers(sc->topology->arg, peer_row, &ps);
}

static void peers_rows(scan *sc) { peers_of(sc, 0); }
static void peers_v2_rows(scan *sc) { peers_of(sc, 1); }

/* ------------------------------------------------------------------------ */
/* Definitions (SchemaKeyspace and SystemKeyspace of Cassandra 4.1)          */
/* ------------------------------------------------------------------------ */

typedef struct sys_spec {
    const char *ks, *name;
    const char *comment;      /* the table's description, its comment option */
    const char *pk, *ck;      /* key columns in key order, separated by spaces */
    const char *cols;         /* "name type, ..." for every column */
    void (*rows)(scan *sc);   /* NULL: always empty */
} sys_spec;

#define TABLE_PARAMS                                                                         \
    "bloom_filter_fp_chance double, caching frozen<map<text, text>>, comment text, "        \
    "compaction frozen<map<text, text>>, compression frozen<map<text, text>>, "             \
    "memtable text, crc_check_chance double, dclocal_read_repair_chance double, "           \
    "default_time_to_live int, extensions frozen<map<text, blob>>, gc_grace_seconds int, "  \
    "id uuid, max_index_interval int, memtable_flush_period_in_ms int, "                   \
    "min_index_interval int, read_repair_chance double, speculative_retry text, "          \
    "additional_write_policy text, cdc boolean, read_repair text"

static const sys_spec SPECS[] = {
    {"system_schema", "keyspaces", "keyspace definitions", "keyspace_name", "",
     "keyspace_name text, durable_writes boolean, replication frozen<map<text, text>>",
     keyspaces_rows},
    {"system_schema", "tables", "table definitions", "keyspace_name", "table_name",
     "keyspace_name text, table_name text, flags frozen<set<text>>, " TABLE_PARAMS, tables_rows},
    {"system_schema", "columns", "column definitions", "keyspace_name", "table_name column_name",
     "keyspace_name text, table_name text, column_name text, clustering_order text, "
     "column_name_bytes blob, kind text, position int, type text",
     columns_rows},
    {"system_schema", "triggers", "trigger definitions", "keyspace_name",
     "table_name trigger_name",
     "keyspace_name text, table_name text, trigger_name text, options frozen<map<text, text>>",
     NULL},
    {"system_schema", "dropped_columns", "dropped column registry", "keyspace_name",
     "table_name column_name",
     "keyspace_name text, table_name text, column_name text, dropped_time timestamp, "
     "kind text, type text",
     dropped_rows},
    {"system_schema", "views", "view definitions", "keyspace_name", "view_name",
     "keyspace_name text, view_name text, base_table_id uuid, base_table_name text, "
     "where_clause text, include_all_columns boolean, " TABLE_PARAMS,
     NULL},
    {"system_schema", "types", "user defined type definitions", "keyspace_name", "type_name",
     "keyspace_name text, type_name text, field_names frozen<list<text>>, "
     "field_types frozen<list<text>>",
     types_rows},
    {"system_schema", "functions", "user defined function definitions", "keyspace_name",
     "function_name argument_types",
     "keyspace_name text, function_name text, argument_types frozen<list<text>>, "
     "argument_names frozen<list<text>>, body text, language text, return_type text, "
     "called_on_null_input boolean",
     NULL},
    {"system_schema", "aggregates", "user defined aggregate definitions", "keyspace_name",
     "aggregate_name argument_types",
     "keyspace_name text, aggregate_name text, argument_types frozen<list<text>>, "
     "final_func text, initcond text, return_type text, state_func text, state_type text",
     NULL},
    {"system_schema", "indexes", "secondary index definitions", "keyspace_name",
     "table_name index_name",
     "keyspace_name text, table_name text, index_name text, kind text, "
     "options frozen<map<text, text>>",
     NULL},
    {"system", "local", "information about the local node", "key", "",
     "key text, bootstrapped text, broadcast_address inet, broadcast_port int, "
     "cluster_name text, cql_version text, data_center text, gossip_generation int, "
     "host_id uuid, listen_address inet, listen_port int, native_protocol_version text, "
     "partitioner text, rack text, release_version text, rpc_address inet, rpc_port int, "
     "schema_version uuid, tokens set<varchar>, truncated_at map<uuid, blob>",
     local_rows},
    {"system", "peers", "information about known peers in the cluster", "peer", "",
     "peer inet, data_center text, host_id uuid, preferred_ip inet, rack text, "
     "release_version text, rpc_address inet, schema_version uuid, tokens set<varchar>",
     peers_rows},
    {"system", "peers_v2", "information about known peers in the cluster", "peer", "peer_port",
     "peer inet, peer_port int, data_center text, host_id uuid, preferred_ip inet, "
     "preferred_port int, rack text, release_version text, native_address inet, "
     "native_port int, schema_version uuid, tokens set<varchar>",
     peers_v2_rows},
    /* Probed by drivers and tools (Spark's connector, the Java driver's token ranges):
       cassette keeps no per-range statistics, so they are empty, as on a node that has not
       computed them yet. */
    {"system", "size_estimates", "per-table primary range size estimates, table is deprecated "
     "in favor of table_estimates", "keyspace_name", "table_name range_start range_end",
     "keyspace_name text, table_name text, range_start text, range_end text, "
     "mean_partition_size bigint, partitions_count bigint",
     NULL},
    {"system", "table_estimates", "per-table range size estimates", "keyspace_name",
     "table_name range_type range_start range_end",
     "keyspace_name text, table_name text, range_type text, range_start text, range_end text, "
     "mean_partition_size bigint, partitions_count bigint",
     NULL},
    /* system_distributed: the repair history and view build status a cluster shares; one
       node that never repairs keeps them empty. */
    {"system_distributed", "repair_history", "Repair history", "keyspace_name columnfamily_name",
     "id",
     "keyspace_name text, columnfamily_name text, id timeuuid, parent_id timeuuid, "
     "range_begin text, range_end text, coordinator inet, coordinator_port int, "
     "participants set<inet>, participants_v2 set<text>, exception_message text, "
     "exception_stacktrace text, status text, started_at timestamp, finished_at timestamp",
     NULL},
    {"system_distributed", "parent_repair_history", "Repair history", "parent_id", "",
     "parent_id timeuuid, keyspace_name text, columnfamily_names set<text>, "
     "started_at timestamp, finished_at timestamp, exception_message text, "
     "exception_stacktrace text, requested_ranges set<text>, successful_ranges set<text>, "
     "options map<text, text>",
     NULL},
    {"system_distributed", "view_build_status", "Materialized View build status",
     "keyspace_name view_name", "host_id",
     "keyspace_name text, view_name text, host_id uuid, status text",
     NULL},
    /* system_traces (TraceKeyspace): stored once a trace is written (trace.c), empty until
       then; described from here either way. */
    {"system_traces", "sessions", "tracing sessions", "session_id", "",
     "session_id uuid, client inet, command text, coordinator inet, coordinator_port int, "
     "duration int, parameters map<text, text>, request text, started_at timestamp",
     NULL},
    {"system_traces", "events", "tracing events", "session_id", "event_id",
     "session_id uuid, event_id timeuuid, activity text, source inet, source_elapsed int, "
     "source_port int, thread text",
     NULL},
    /* The virtual keyspace drivers of 4.0 and later read for virtual tables' metadata. */
    {"system_virtual_schema", "keyspaces", "virtual keyspace definitions", "keyspace_name", "",
     "keyspace_name text",
     virtual_keyspaces_rows},
    {"system_virtual_schema", "tables", "virtual table definitions", "keyspace_name",
     "table_name",
     "keyspace_name text, table_name text, comment text",
     virtual_tables_rows},
    {"system_virtual_schema", "columns", "virtual column definitions", "keyspace_name",
     "table_name column_name",
     "keyspace_name text, table_name text, column_name text, clustering_order text, "
     "column_name_bytes blob, kind text, position int, type text",
     virtual_columns_rows},
};

_Static_assert(ENG_ARRAY_LEN(SPECS) == N_SPECS, "N_SPECS counts the definitions");

/* ------------------------------------------------------------------------ */
/* Descriptors built from the definitions                                    */
/* ------------------------------------------------------------------------ */

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* A type of the definitions: a scalar, frozen<T>, list<T>, set<T> or map<K, V>; NULL on failure. */
static eng_type *spec_type(const char **pp, int frozen)
{
    const char *p = skip_space(*pp), *w = p;
    while (is_word_char(*p))
        p++;
    size_t n = (size_t)(p - w);
    if (*p != '<') {
        int kind = eng_kind_from_name(w, n);
        *pp = p;
        return kind < 0 ? NULL : eng_type_new(kind);
    }
    p++;
    int is_frozen = n == 6 && !memcmp(w, "frozen", 6), is_map = n == 3 && !memcmp(w, "map", 3);
    eng_type *a = spec_type(&p, is_frozen), *b = NULL;
    if (is_map && *p == ',') {
        p++;
        b = spec_type(&p, 0);
    }
    eng_type *t = NULL;
    if (a && (b || !is_map) && *p == '>') {
        if (is_frozen)
            t = a;
        else if (is_map)
            t = eng_type_new_map(a, b, frozen);
        else if (n == 4 && !memcmp(w, "list", 4))
            t = eng_type_new_list(a, frozen);
        else if (n == 3 && !memcmp(w, "set", 3))
            t = eng_type_new_set(a, frozen);
        else
            eng_type_free(a);
        if (!is_map && !is_frozen)
            eng_type_free(b);
    } else {
        eng_type_free(a);
        eng_type_free(b);
    }
    *pp = p + (*p == '>');
    return t;
}

/* Fills t->cols from "name type, ..."; every column regular until the keys are applied. */
static int spec_columns(const char *spec, eng_table *t)
{
    uint32_t n = 1;
    int depth = 0; /* a comma inside map<K, V> does not end a column */
    for (const char *p = spec; *p; p++) {
        depth += (*p == '<') - (*p == '>');
        n += *p == ',' && depth == 0;
    }
    t->cols = eng_calloc(n, sizeof *t->cols);
    if (!t->cols)
        return ENG_E_NOMEM;
    const char *p = spec;
    for (t->n_cols = 0; t->n_cols < n; t->n_cols++) {
        eng_column *c = &t->cols[t->n_cols];
        const char *w = p = skip_space(p);
        while (is_word_char(*p))
            p++;
        c->name = eng_strndup(w, (size_t)(p - w));
        c->type = c->name ? spec_type(&p, 0) : NULL;
        c->kind = ENG_COL_REGULAR;
        if (!c->type) {
            t->n_cols++; /* so that the free releases this one too */
            return ENG_E_NOMEM;
        }
        p = skip_space(p);
        p += *p == ',';
    }
    return 0;
}

/* Marks the columns named in `names` (space-separated) as key columns of `kind`. */
static int spec_keys(const char *names, uint8_t kind, eng_table *t)
{
    uint16_t pos = 0;
    for (const char *p = skip_space(names); *p; p = skip_space(p)) {
        size_t n = strcspn(p, " ");
        uint32_t i = 0;
        while (i < t->n_cols && (strlen(t->cols[i].name) != n || memcmp(t->cols[i].name, p, n)))
            i++;
        if (i == t->n_cols)
            return ENG_E_SERVER;
        t->cols[i].kind = kind;
        t->cols[i].position = pos++;
        p += n;
    }
    return 0;
}

static void free_descriptor(eng_table *t)
{
    eng_free(t->ks);
    eng_free(t->name);
    for (uint32_t i = 0; t->cols && i < t->n_cols; i++) {
        eng_free(t->cols[i].name);
        eng_type_free(t->cols[i].type);
    }
    eng_free(t->cols);
    eng_free(t->comment);
    for (uint32_t i = 0; t->opts && i < t->n_opts; i++) {
        eng_free(t->opts[i].name);
        eng_free(t->opts[i].value);
    }
    eng_free(t->opts);
    eng_table_index_free(t);
    memset(t, 0, sizeof *t);
}

/*
 * The descriptor of one definition, with the params of parse() in
 * SchemaKeyspace / SystemKeyspace: gc_grace_seconds 7 days (system_schema)
 * or 0 (system), memtable_flush_period_in_ms one hour, the description as
 * comment, the id of TableId.forSystemTable.
 */
static int build_descriptor(const sys_spec *sp, eng_table *t)
{
    memset(t, 0, sizeof *t);
    t->ks = eng_strdup(sp->ks);
    t->name = eng_strdup(sp->name);
    t->comment = eng_strdup(sp->comment);
    t->opts = eng_calloc(1, sizeof *t->opts);
    if (!t->ks || !t->name || !t->comment || !t->opts)
        return ENG_E_NOMEM;
    t->n_opts = 1;
    t->opts[0].name = eng_strdup("memtable_flush_period_in_ms");
    t->opts[0].value = eng_strdup("3600000");
    if (!t->opts[0].name || !t->opts[0].value)
        return ENG_E_NOMEM;
    int rc = spec_columns(sp->cols, t);
    if (!rc)
        rc = spec_keys(sp->pk, ENG_COL_PARTITION, t);
    if (!rc)
        rc = spec_keys(sp->ck, ENG_COL_CLUSTERING, t);
    if (rc)
        return rc;
    /* Ids are the columns' places in SELECT * order; eng_table_index keeps that order. */
    qsort(t->cols, t->n_cols, sizeof *t->cols, eng_column_order);
    for (uint32_t i = 0; i < t->n_cols; i++)
        t->cols[i].id = i;
    t->next_col_id = t->n_cols;
    rc = eng_table_index(t);
    if (rc)
        return rc;
    t->gc_grace_s = strcmp(sp->ks, "system_schema") ? 0 : 7 * 24 * 3600;
    system_table_id(sp->ks, sp->name, t->id);
    return 0;
}

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(sys_registry *) registry_built;

static sys_registry *build_registry(void)
{
    sys_registry *r = eng_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < N_SPECS; i++) {
        if (build_descriptor(&SPECS[i], &r->tables[i])) {
            for (size_t k = 0; k <= i; k++)
                free_descriptor(&r->tables[k]);
            eng_free(r);
            return NULL;
        }
    }
    return r;
}

/* The descriptors, built on first use and kept for the process; NULL if that ran out of memory. */
static const sys_registry *registry(void)
{
    sys_registry *r = atomic_load_explicit(&registry_built, memory_order_acquire);
    if (r)
        return r;
    pthread_mutex_lock(&registry_lock);
    r = atomic_load_explicit(&registry_built, memory_order_relaxed);
    if (!r) {
        r = build_registry();
        atomic_store_explicit(&registry_built, r, memory_order_release);
    }
    pthread_mutex_unlock(&registry_lock);
    return r;
}

const eng_table *cql_systable(const char *ks, const char *name)
{
    const sys_registry *r = ks && name ? registry() : NULL;
    for (size_t i = 0; r && i < N_SPECS; i++)
        if (!strcmp(SPECS[i].ks, ks) && !strcmp(SPECS[i].name, name))
            return &r->tables[i];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The provider                                                              */
/* ------------------------------------------------------------------------ */

int cql_systable_fill(void *ctx, const eng_table *t, eng_vsink *sink, eng_err *err)
{
    const cql_systable_ctx *c = ctx;
    const sys_registry *reg = t ? registry() : NULL;
    size_t i = 0;
    while (reg && i < N_SPECS && t != &reg->tables[i])
        i++;
    if (!reg || i == N_SPECS)
        return eng_errorf(err, ENG_E_INVALID, "not a system table");
    scan sc;
    memset(&sc, 0, sizeof sc);
    sc.t = t;
    sc.s = c->schema;
    sc.db = c->db;
    sc.topology = c->topology;
    sc.sink = sink;
    sc.err = err;
    sc.values = eng_malloc(sizeof *sc.values * t->n_cols);
    eng_arena_init(&sc.arena, 4096);
    if (!sc.values)
        sc.failed = 1;
    else if (SPECS[i].rows)
        SPECS[i].rows(&sc);
    int rc = sc.rc;
    if (!rc && sc.failed)
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory reading %s.%s", t->ks, t->name);
    else if (!rc && sc.bug)
        rc = eng_errorf(err, ENG_E_SERVER, "system table %s.%s: cannot build a row (%s)", t->ks,
                        t->name, sc.bug);
    eng_free(sc.values);
    eng_buf_free(&sc.tmp);
    eng_arena_free(&sc.arena);
    return rc;
}
