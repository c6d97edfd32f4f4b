/*
 * Roles and permissions, as Cassandra's PasswordAuthenticator,
 * CassandraRoleManager and CassandraAuthorizer keep them: in the tables of
 * the system_auth keyspace, stored in the database like any other table
 * (made the first time they are needed), with passwords as bcrypt hashes
 * ($2a$, 10 rounds, through libcrypt) and permissions as sets of names per
 * role and resource ("data", "data/ks", "data/ks/table", "roles",
 * "roles/name", ...).
 *
 * The statements (CREATE/ALTER/DROP ROLE and USER, LIST ROLES and USERS,
 * GRANT, REVOKE, LIST PERMISSIONS) run on any session and read and write
 * those tables through the engine's calls. Permissions are enforced
 * only on a session that logged in (cql_session_login: the server started
 * with --auth); every other session acts as Cassandra's
 * AllowAllAuthenticator does, as the system itself.
 *
 * A logged-in session keeps what its role may do (its superuser status and
 * the permissions of every role granted to it) and reloads it when a role
 * or permission changed in this process, or after two seconds
 * (permissions_validity_in_ms): another process's change is seen then.
 */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cql/exec/exec_int.h"
#include "cql/exec/systables.h"
#include "engine/value/token.h"

#define AUTH_KS "system_auth"
#define VALIDITY_MS 2000
/* Roles granted through roles granted ... at most this deep (a cycle is refused when granted). */
#define MAX_ROLE_DEPTH 64

/* Bumped by every change of a role, a grant or a drop that revokes: cached states reload. */
static _Atomic uint64_t auth_generation = 1;

static void auth_changed(void) { atomic_fetch_add(&auth_generation, 1); }

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------ */
/* system_auth through the engine                                            */
/* ------------------------------------------------------------------------ */

/*
 * The tables are read and written with the engine's calls, not CQL: the statements that use
 * them run inside the executor, which must not call itself.
 */

static eng_val text_val(const char *s) { return (eng_val){(const uint8_t *)s, (int32_t)strlen(s)}; }

static const uint8_t TRUE_BYTE = 1, FALSE_BYTE = 0;
static eng_val bool_val(int b) { return (eng_val){b ? &TRUE_BYTE : &FALSE_BYTE, 1}; }

/* A table of system_auth in the current snapshot (held until auth_tab_close). */
typedef struct auth_tab {
    eng_schema *schema;
    const eng_table *t;
} auth_tab;

static int auth_tab_open(eng_db *db, const char *name, auth_tab *a, eng_err *err)
{
    int rc = eng_db_schema(db, &a->schema, err);
    if (rc)
        return rc;
    if (!(a->t = eng_schema_table(a->schema, AUTH_KS, name))) {
        eng_schema_unref(a->schema);
        a->schema = NULL;
        return eng_errorf(err, ENG_E_SERVER, "the table system_auth.%s is missing", name);
    }
    return 0;
}

static void auth_tab_close(auth_tab *a) { eng_schema_unref(a->schema); }

/* Rows read: n_cols values per row, copied (views valid until auth_rows_free). */
typedef struct auth_rows {
    uint32_t n_cols, n_rows;
    int cols[4];
    struct cell_at {
        size_t off;
        int32_t len;
    } *cells;
    size_t cap;
    eng_buf data;
    eng_err *err;
} auth_rows;

static void auth_rows_free(auth_rows *r)
{
    eng_free(r->cells);
    eng_buf_free(&r->data);
    memset(r, 0, sizeof *r);
}

static eng_val auth_cell(const auth_rows *r, uint32_t row, uint32_t col)
{
    const struct cell_at *c = &r->cells[row * r->n_cols + col];
    return (eng_val){c->len > 0 ? r->data.p + c->off : (const uint8_t *)"", c->len};
}

static int collect_row(void *ctx, const eng_row_view *v)
{
    auth_rows *r = ctx;
    if ((r->n_rows + 1) * r->n_cols > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16 * r->n_cols;
        struct cell_at *grown = eng_realloc(r->cells, cap * sizeof *grown);
        if (!grown)
            return eng_errorf(r->err, ENG_E_NOMEM, "out of memory reading system_auth");
        r->cells = grown;
        r->cap = cap;
    }
    for (uint32_t j = 0; j < r->n_cols; j++) {
        eng_val val;
        int rc = eng_view_column(v, (uint16_t)r->cols[j], &val, NULL, NULL, r->err);
        if (rc)
            return rc < 0 ? rc : -rc;
        struct cell_at *c = &r->cells[r->n_rows * r->n_cols + j];
        c->off = r->data.len;
        c->len = val.len;
        if (val.len > 0)
            eng_buf_put(&r->data, val.p, (size_t)val.len);
    }
    r->n_rows++;
    return r->data.oom ? eng_errorf(r->err, ENG_E_NOMEM, "out of memory reading system_auth") : 0;
}

/* The named columns of table's rows: the partition of key (text), or every row when NULL. */
static int auth_read(eng_db *db, const char *table, const char *key, const char *const *cols,
                     uint32_t n_cols, auth_rows *out, eng_err *err)
{
    memset(out, 0, sizeof *out);
    out->n_cols = n_cols;
    out->err = err;
    auth_tab at;
    int rc = auth_tab_open(db, table, &at, err);
    if (rc)
        return rc;
    for (uint32_t j = 0; j < n_cols; j++)
        if ((out->cols[j] = eng_table_column_index(at.t, cols[j])) < 0)
            rc = eng_errorf(err, ENG_E_SERVER, "system_auth.%s has no column %s", table, cols[j]);
    eng_query q;
    memset(&q, 0, sizeof q);
    q.table = at.t;
    eng_val k = key ? text_val(key) : (eng_val){NULL, 0};
    const eng_val *keys[1] = {&k};
    if (key) {
        q.n_keys = 1;
        q.keys = keys;
    } else {
        q.token_lo = ENG_TOKEN_MIN;
        q.token_hi = ENG_TOKEN_MAX;
        q.token_lo_incl = q.token_hi_incl = 1;
    }
    eng_read_info info = {0, 0, ENG_BUF_INIT};
    if (!rc)
        rc = eng_read(db, &q, collect_row, out, &info, err);
    if (rc < 0)
        rc = err->code ? err->code : ENG_E_SERVER;
    eng_read_info_free(&info);
    auth_tab_close(&at);
    if (rc)
        auth_rows_free(out);
    return rc;
}

/* One operation of an auth_write on a column named. */
typedef struct auth_op {
    const char *col;
    uint8_t kind; /* enum eng_op_kind */
    eng_val value;
} auth_op;

enum { WRITE_ROW, DELETE_ROW, DELETE_PARTITION };

/*
 * One write to a system_auth table: partition pk (text), row ck (text, or NULL for a table
 * without clustering), the operations (with the row marker when `insert`), or a deletion.
 * ts: ENG_TS_NONE for now.
 */
static int auth_write(eng_db *db, const char *table, const char *pk, const char *ck, int what,
                      int insert, const auth_op *ops, uint32_t n_ops, int64_t ts, eng_err *err)
{
    auth_tab at;
    int rc = auth_tab_open(db, table, &at, err);
    if (rc)
        return rc;
    eng_cell_op cops[4];
    for (uint32_t i = 0; i < n_ops && i < 4; i++) {
        int c = eng_table_column_index(at.t, ops[i].col);
        if (c < 0) {
            auth_tab_close(&at);
            return eng_errorf(err, ENG_E_SERVER, "system_auth.%s has no column %s", table,
                              ops[i].col);
        }
        cops[i] = (eng_cell_op){(uint16_t)c, ops[i].kind, {NULL, 0}, ops[i].value};
    }
    eng_val pkv = text_val(pk), ckv = ck ? text_val(ck) : (eng_val){NULL, 0};
    eng_row_mut row;
    memset(&row, 0, sizeof row);
    row.ck = &ckv;
    row.insert_marker = (uint8_t)insert;
    row.delete_row = what == DELETE_ROW;
    row.n_ops = n_ops < 4 ? n_ops : 4;
    row.ops = cops;
    eng_mutation m;
    memset(&m, 0, sizeof m);
    m.table = at.t;
    m.pk = &pkv;
    m.ts_us = ts;
    m.ttl_s = 0;
    m.delete_partition = what == DELETE_PARTITION;
    m.n_rows = what == DELETE_PARTITION ? 0 : 1;
    m.rows = &row;
    rc = eng_apply(db, &m, 1, NULL, err);
    auth_tab_close(&at);
    return rc;
}

/* A set<text> of the given strings, serialized into b. */
static int text_set(eng_buf *b, const char *const *items, uint32_t n)
{
    eng_buf_put_be32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        eng_buf_put_be32(b, (uint32_t)strlen(items[i]));
        eng_buf_put(b, items[i], strlen(items[i]));
    }
    return b->oom ? -1 : 0;
}

/* The tables of AuthKeyspace, made when missing. */
typedef struct auth_table_spec {
    const char *name, *comment;
    struct {
        const char *name;
        int type; /* 0 text, 1 boolean, 2 set<text>, 3 frozen<set<text>> */
        uint8_t kind;
    } cols[5];
    uint32_t n_cols;
} auth_table_spec;

static const auth_table_spec AUTH_TABLES[] = {
    {"roles", "'role definitions'",
     {{"role", 0, ENG_COL_PARTITION},
      {"can_login", 1, ENG_COL_REGULAR},
      {"is_superuser", 1, ENG_COL_REGULAR},
      {"member_of", 2, ENG_COL_REGULAR},
      {"salted_hash", 0, ENG_COL_REGULAR}},
     5},
    {"role_members", "'role memberships lookup table'",
     {{"role", 0, ENG_COL_PARTITION}, {"member", 0, ENG_COL_CLUSTERING}},
     2},
    {"role_permissions", "'permissions granted to db roles'",
     {{"role", 0, ENG_COL_PARTITION},
      {"resource", 0, ENG_COL_CLUSTERING},
      {"permissions", 2, ENG_COL_REGULAR}},
     3},
    {"resource_role_permissons_index", "'index of db roles with permissions granted on a resource'",
     {{"resource", 0, ENG_COL_PARTITION}, {"role", 0, ENG_COL_CLUSTERING}},
     2},
    {"network_permissions", "'user network permissions'",
     {{"role", 0, ENG_COL_PARTITION}, {"dcs", 3, ENG_COL_REGULAR}},
     2},
};

/* 1 when db's schema has every table of system_auth. */
static int auth_tables_exist(eng_db *db)
{
    eng_schema *s;
    eng_err e;
    eng_err_clear(&e);
    if (eng_db_schema(db, &s, &e))
        return 0;
    int ok = 1;
    for (size_t i = 0; i < ENG_ARRAY_LEN(AUTH_TABLES); i++)
        ok &= eng_schema_table(s, AUTH_KS, AUTH_TABLES[i].name) != NULL;
    eng_schema_unref(s);
    return ok;
}

static eng_type *auth_type(int which)
{
    switch (which) {
    case 0:
        return eng_type_new(ENG_TEXT);
    case 1:
        return eng_type_new(ENG_BOOLEAN);
    default:
        return eng_type_new_set(eng_type_new(ENG_TEXT), which == 3);
    }
}

static int auth_tables_ensure(eng_db *db, eng_err *err)
{
    if (auth_tables_exist(db))
        return 0;
    char cls[] = "class", simple[] = "SimpleStrategy", rf[] = "replication_factor", one[] = "1";
    eng_option repl[2] = {{cls, simple}, {rf, one}};
    int changed, rc = eng_create_keyspace(db, AUTH_KS, repl, 2, 1, 1, &changed, err);
    for (size_t i = 0; !rc && i < ENG_ARRAY_LEN(AUTH_TABLES); i++) {
        const auth_table_spec *spec = &AUTH_TABLES[i];
        eng_column_def defs[5];
        eng_type *types[5] = {0};
        for (uint32_t c = 0; c < spec->n_cols; c++) {
            types[c] = auth_type(spec->cols[c].type);
            defs[c] = (eng_column_def){spec->cols[c].name, types[c], spec->cols[c].kind, 0};
            if (!types[c])
                rc = eng_errorf(err, ENG_E_NOMEM, "out of memory making system_auth");
        }
        char comment[] = "comment", gc[] = "gc_grace_seconds", days90[] = "7776000";
        eng_option opts[2] = {{comment, (char *)spec->comment}, {gc, days90}};
        eng_table_def def = {AUTH_KS, spec->name, spec->n_cols, defs, 2, opts};
        if (!rc)
            rc = eng_create_table(db, &def, 1, &changed, err);
        for (uint32_t c = 0; c < spec->n_cols; c++)
            eng_type_free(types[c]);
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Passwords                                                                 */
/* ------------------------------------------------------------------------ */

/* bcrypt of a password with a fresh salt, as CassandraRoleManager hashes (BCrypt.gensalt(10)). */
static int hash_password(const char *pw, size_t len, char *out, size_t cap, eng_err *err)
{
    if (memchr(pw, 0, len))
        return eng_errorf(err, ENG_E_INVALID, "Password must not contain a NUL character");
    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    if (!crypt_gensalt_rn("$2a$", 10, NULL, 0, salt, sizeof salt))
        return eng_errorf(err, ENG_E_SERVER, "could not make a password salt");
    struct crypt_data *cd = eng_calloc(1, sizeof *cd);
    if (!cd)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory hashing a password");
    char *copy = eng_strndup(pw, len);
    const char *h = copy ? crypt_r(copy, salt, cd) : NULL;
    int rc = 0;
    if (!copy)
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory hashing a password");
    else if (!h || h[0] != '$' || strlen(h) >= cap)
        rc = eng_errorf(err, ENG_E_SERVER, "could not hash a password");
    else
        strcpy(out, h);
    if (copy)
        explicit_bzero(copy, len);
    eng_free(copy);
    explicit_bzero(cd, sizeof *cd);
    eng_free(cd);
    return rc;
}

/* 1 when pw matches the stored bcrypt hash (compared in constant time), else 0. */
static int password_matches(const char *pw, size_t len, const char *hash, size_t hash_len)
{
    if (memchr(pw, 0, len) || hash_len < 7 || hash[0] != '$')
        return 0;
    struct crypt_data *cd = eng_calloc(1, sizeof *cd);
    char *copy = eng_strndup(pw, len), *salt = eng_strndup(hash, hash_len);
    int ok = 0;
    if (cd && copy && salt) {
        const char *h = crypt_r(copy, salt, cd);
        if (h && strlen(h) == hash_len) {
            unsigned char diff = 0;
            for (size_t i = 0; i < hash_len; i++)
                diff |= (unsigned char)(h[i] ^ hash[i]);
            ok = diff == 0;
        }
    }
    if (copy)
        explicit_bzero(copy, len);
    eng_free(copy);
    eng_free(salt);
    if (cd)
        explicit_bzero(cd, sizeof *cd);
    eng_free(cd);
    return ok;
}

/* A HASHED PASSWORD must be a bcrypt hash (what BCrypt.checkpw can use). */
static int valid_bcrypt(const char *h, size_t len)
{
    if (len != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$')
        return 0;
    if (h[2] != 'a' && h[2] != 'b' && h[2] != 'y')
        return 0;
    for (size_t i = 7; i < len; i++)
        if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') ||
              (h[i] >= '0' && h[i] <= '9') || h[i] == '.' || h[i] == '/'))
            return 0;
    return h[4] >= '0' && h[4] <= '3' && h[5] >= '0' && h[5] <= '9';
}

/* ------------------------------------------------------------------------ */
/* Roles as stored                                                           */
/* ------------------------------------------------------------------------ */

typedef struct role_row {
    int exists;
    int can_login, is_superuser;
    char *salted_hash;      /* NULL when none */
    char **member_of;       /* roles granted to it */
    uint32_t n_member_of;
} role_row;

static void role_row_free(role_row *r)
{
    for (uint32_t i = 0; i < r->n_member_of; i++)
        eng_free(r->member_of[i]);
    eng_free(r->member_of);
    eng_free(r->salted_hash);
    memset(r, 0, sizeof *r);
}

static int cell_bool(eng_val v) { return v.len == 1 && v.p[0] != 0; }

static char *cell_text(eng_val v) { return v.len >= 0 ? eng_strndup((const char *)v.p, (size_t)v.len) : NULL; }

/* The elements of a set<text> cell as strings (*n 0 for null or empty). */
static int cell_text_set(eng_val v, char ***out, uint32_t *n, eng_err *err)
{
    *out = NULL;
    *n = 0;
    if (v.len <= 0)
        return 0;
    eng_items it;
    int32_t count = eng_items_begin(&it, v.p, (size_t)v.len);
    if (count < 0)
        return eng_errorf(err, ENG_E_SERVER, "malformed set in system_auth");
    char **a = eng_calloc(count ? (size_t)count : 1, sizeof *a);
    if (!a)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory reading roles");
    eng_val e;
    uint32_t k = 0;
    while (k < (uint32_t)count && eng_items_next(&it, &e) == 1) {
        if (e.len < 0 || !(a[k] = cell_text(e))) {
            for (uint32_t i = 0; i < k; i++)
                eng_free(a[i]);
            eng_free(a);
            return eng_errorf(err, ENG_E_NOMEM, "out of memory reading roles");
        }
        k++;
    }
    *out = a;
    *n = k;
    return 0;
}

/* Reads a role (r->exists 0 when there is none, or no system_auth yet). */
static int role_load(eng_db *db, const char *name, role_row *r, eng_err *err)
{
    memset(r, 0, sizeof *r);
    if (!auth_tables_exist(db))
        return 0;
    static const char *const cols[] = {"can_login", "is_superuser", "salted_hash", "member_of"};
    auth_rows rows;
    int rc = auth_read(db, "roles", name, cols, 4, &rows, err);
    if (!rc && rows.n_rows) {
        eng_val hash = auth_cell(&rows, 0, 2);
        r->exists = 1;
        r->can_login = cell_bool(auth_cell(&rows, 0, 0));
        r->is_superuser = cell_bool(auth_cell(&rows, 0, 1));
        if (hash.len >= 0 && !(r->salted_hash = cell_text(hash)))
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory reading roles");
        if (!rc)
            rc = cell_text_set(auth_cell(&rows, 0, 3), &r->member_of, &r->n_member_of, err);
    }
    auth_rows_free(&rows);
    if (rc)
        role_row_free(r);
    return rc;
}

static int role_exists(eng_db *db, const char *name, int *exists, eng_err *err)
{
    role_row r;
    int rc = role_load(db, name, &r, err);
    *exists = r.exists;
    role_row_free(&r);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Resources                                                                 */
/* ------------------------------------------------------------------------ */

static const char *const PERM_NAMES[CQL_N_PERMISSIONS] = {
    "CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE", "DESCRIBE", "EXECUTE", "UNMASK",
    "SELECT_MASKED",
};

static unsigned perm_of_name(const char *s, size_t n)
{
    for (int i = 0; i < CQL_N_PERMISSIONS; i++)
        if (strlen(PERM_NAMES[i]) == n && !memcmp(PERM_NAMES[i], s, n))
            return 1u << i;
    return 0;
}

static const char *perm_name(unsigned bit)
{
    for (int i = 0; i < CQL_N_PERMISSIONS; i++)
        if (bit == 1u << i)
            return PERM_NAMES[i];
    return "?";
}

#define P(x) CQL_PERM_##x
/* What GRANT ALL gives and GRANT may name, per resource level (Permission.java's sets). */
static unsigned applicable(int kind)
{
    switch (kind) {
    case CQL_RES_ALL_KEYSPACES:
    case CQL_RES_KEYSPACE:
        return P(CREATE) | P(ALTER) | P(DROP) | P(SELECT) | P(MODIFY) | P(AUTHORIZE) | P(UNMASK) |
               P(SELECT_MASKED);
    case CQL_RES_TABLE:
        return P(ALTER) | P(DROP) | P(SELECT) | P(MODIFY) | P(AUTHORIZE) | P(UNMASK) |
               P(SELECT_MASKED);
    case CQL_RES_ALL_ROLES:
        return P(CREATE) | P(ALTER) | P(DROP) | P(AUTHORIZE) | P(DESCRIBE);
    case CQL_RES_ROLE:
        return P(ALTER) | P(DROP) | P(AUTHORIZE);
    case CQL_RES_ALL_FUNCTIONS:
    case CQL_RES_KS_FUNCTIONS:
        return P(CREATE) | P(ALTER) | P(DROP) | P(AUTHORIZE) | P(EXECUTE);
    case CQL_RES_ALL_MBEANS:
    case CQL_RES_MBEAN:
        return P(AUTHORIZE) | P(DESCRIBE) | P(EXECUTE) | P(MODIFY) | P(SELECT);
    }
    return 0;
}

/* The stored name of a resource ("data/ks/t") and its display ("<table ks.t>"). */
typedef struct res_name {
    char stored[512];
    char shown[512];
    int kind;
} res_name;

/* How each resource level is stored and shown; %s takes the keyspace (or the role or MBean
   name), then the table. */
static const struct res_format {
    int kind;
    const char *stored, *shown;
} RES_FORMATS[] = {
    {CQL_RES_ALL_KEYSPACES, "data", "<all keyspaces>"},
    {CQL_RES_KEYSPACE, "data/%s", "<keyspace %s>"},
    {CQL_RES_TABLE, "data/%s/%s", "<table %s.%s>"},
    {CQL_RES_ALL_ROLES, "roles", "<all roles>"},
    {CQL_RES_ROLE, "roles/%s", "<role %s>"},
    {CQL_RES_ALL_FUNCTIONS, "functions", "<all functions>"},
    {CQL_RES_KS_FUNCTIONS, "functions/%s", "<all functions in %s>"},
    {CQL_RES_ALL_MBEANS, "mbean", "<all mbeans>"},
    {CQL_RES_MBEAN, "mbean/%s", "<mbean %s>"},
};

static void res_make(res_name *r, int kind, const char *ks, const char *name)
{
    const struct res_format *f = &RES_FORMATS[ENG_ARRAY_LEN(RES_FORMATS) - 1];
    for (size_t i = 0; i < ENG_ARRAY_LEN(RES_FORMATS); i++)
        if (RES_FORMATS[i].kind == kind)
            f = &RES_FORMATS[i];
    const char *first = kind == CQL_RES_ROLE || kind == CQL_RES_MBEAN ? name : ks;
    first = first ? first : "";
    name = name ? name : "";
    r->kind = f->kind;
    snprintf(r->stored, sizeof r->stored, f->stored, first, name);
    snprintf(r->shown, sizeof r->shown, f->shown, first, name);
}

/* The display of a stored resource name ("data/ks" -> "<keyspace ks>"). */
static void res_from_stored(res_name *r, const char *stored)
{
    char ks[256] = "", name[256] = "";
    const char *slash;
    if (!strncmp(stored, "data", 4) && (stored[4] == 0 || stored[4] == '/')) {
        if (!stored[4])
            return res_make(r, CQL_RES_ALL_KEYSPACES, NULL, NULL);
        const char *rest = stored + 5;
        if ((slash = strchr(rest, '/'))) {
            snprintf(ks, sizeof ks, "%.*s", (int)(slash - rest), rest);
            snprintf(name, sizeof name, "%s", slash + 1);
            return res_make(r, CQL_RES_TABLE, ks, name);
        }
        return res_make(r, CQL_RES_KEYSPACE, rest, NULL);
    }
    if (!strncmp(stored, "roles", 5) && (stored[5] == 0 || stored[5] == '/'))
        return res_make(r, stored[5] ? CQL_RES_ROLE : CQL_RES_ALL_ROLES, NULL, stored + 6);
    if (!strncmp(stored, "functions", 9) && (stored[9] == 0 || stored[9] == '/'))
        return res_make(r, stored[9] ? CQL_RES_KS_FUNCTIONS : CQL_RES_ALL_FUNCTIONS, stored + 10,
                        NULL);
    if (!strcmp(stored, "mbean"))
        return res_make(r, CQL_RES_ALL_MBEANS, NULL, NULL);
    res_make(r, CQL_RES_MBEAN, NULL, !strncmp(stored, "mbean/", 6) ? stored + 6 : stored);
}

/* The parent of a resource level (table -> keyspace -> all keyspaces), or 0 at the root. */
static int res_parent(const res_name *r, res_name *parent)
{
    const char *slash = strrchr(r->stored, '/');
    if (!slash)
        return 0;
    char up[512];
    snprintf(up, sizeof up, "%.*s", (int)(slash - r->stored), r->stored);
    if (r->kind == CQL_RES_MBEAN)
        snprintf(up, sizeof up, "mbean");
    res_from_stored(parent, up);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* A logged-in session's view of its role                                    */
/* ------------------------------------------------------------------------ */

typedef struct grant_entry {
    char *resource;   /* stored name */
    unsigned perms;
} grant_entry;

struct cql_auth_state {
    char *role;               /* the logged-in role */
    uint64_t generation;      /* auth_generation when loaded (0: never) */
    int64_t loaded_ms;
    int superuser;            /* the role or a role granted to it is a superuser */
    char **roles;             /* the role and every role granted to it, transitively */
    uint32_t n_roles;
    grant_entry *grants;      /* their permissions, merged per resource */
    uint32_t n_grants;
};

static void state_clear(cql_auth_state *a)
{
    for (uint32_t i = 0; i < a->n_roles; i++)
        eng_free(a->roles[i]);
    eng_free(a->roles);
    for (uint32_t i = 0; i < a->n_grants; i++)
        eng_free(a->grants[i].resource);
    eng_free(a->grants);
    a->roles = NULL;
    a->grants = NULL;
    a->n_roles = a->n_grants = 0;
    a->superuser = 0;
    a->generation = 0;
}

static int has_role(char *const *roles, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(roles[i], name))
            return 1;
    return 0;
}

static int push_str(char ***v, uint32_t *n, const char *s, eng_err *err)
{
    char **grown = eng_realloc(*v, (*n + 1) * sizeof **v);
    char *copy = grown ? eng_strdup(s) : NULL;
    if (grown)
        *v = grown;
    if (!copy)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory reading roles");
    (*v)[(*n)++] = copy;
    return 0;
}

/*
 * The roles a role has, itself first, through every grant (Roles.getRoles), and whether any
 * is a superuser. A grant to a role that no longer exists is skipped.
 */
static int roles_of(eng_db *db, const char *name, char ***out, uint32_t *n, int *superuser,
                    eng_err *err)
{
    *out = NULL;
    *n = 0;
    if (superuser)
        *superuser = 0;
    int rc = push_str(out, n, name, err);
    for (uint32_t i = 0; !rc && i < *n && i < 4096; i++) {
        role_row r;
        if ((rc = role_load(db, (*out)[i], &r, err)))
            break;
        if (r.exists && superuser && r.is_superuser)
            *superuser = 1;
        for (uint32_t k = 0; !rc && r.exists && k < r.n_member_of; k++)
            if (!has_role(*out, *n, r.member_of[k]))
                rc = push_str(out, n, r.member_of[k], err);
        role_row_free(&r);
    }
    return rc;
}

static int add_grant(cql_auth_state *a, const char *resource, unsigned perms, eng_err *err)
{
    for (uint32_t i = 0; i < a->n_grants; i++) {
        if (!strcmp(a->grants[i].resource, resource)) {
            a->grants[i].perms |= perms;
            return 0;
        }
    }
    grant_entry *g = eng_realloc(a->grants, (a->n_grants + 1) * sizeof *g);
    if (!g)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory reading permissions");
    a->grants = g;
    if (!(g[a->n_grants].resource = eng_strdup(resource)))
        return eng_errorf(err, ENG_E_NOMEM, "out of memory reading permissions");
    g[a->n_grants++].perms = perms;
    return 0;
}

/* Permissions names of a set<text> cell as bits (unknown names are skipped). */
static unsigned perms_of_cell(eng_val v)
{
    unsigned bits = 0;
    eng_items it;
    eng_val e;
    if (v.len <= 0 || eng_items_begin(&it, v.p, (size_t)v.len) < 0)
        return 0;
    while (eng_items_next(&it, &e) == 1)
        if (e.len > 0)
            bits |= perm_of_name((const char *)e.p, (size_t)e.len);
    return bits;
}

static int state_load(eng_db *db, cql_auth_state *a, eng_err *err)
{
    state_clear(a);
    uint64_t gen = atomic_load(&auth_generation);
    int rc = roles_of(db, a->role, &a->roles, &a->n_roles, &a->superuser, err);
    static const char *const cols[] = {"resource", "permissions"};
    for (uint32_t i = 0; !rc && !a->superuser && auth_tables_exist(db) && i < a->n_roles; i++) {
        auth_rows rows;
        rc = auth_read(db, "role_permissions", a->roles[i], cols, 2, &rows, err);
        for (uint32_t r = 0; !rc && r < rows.n_rows; r++) {
            char *resource = cell_text(auth_cell(&rows, r, 0));
            rc = resource ? add_grant(a, resource, perms_of_cell(auth_cell(&rows, r, 1)), err)
                          : eng_errorf(err, ENG_E_NOMEM, "out of memory");
            eng_free(resource);
        }
        if (!rc)
            auth_rows_free(&rows);
    }
    if (rc) {
        state_clear(a);
        return rc;
    }
    a->generation = gen;
    a->loaded_ms = mono_ms();
    return 0;
}

static int state_fresh(eng_db *db, cql_auth_state *a, eng_err *err)
{
    if (a->generation == atomic_load(&auth_generation) && mono_ms() - a->loaded_ms < VALIDITY_MS)
        return 0;
    return state_load(db, a, err);
}

void cql_auth_state_free(cql_auth_state *a)
{
    if (!a)
        return;
    state_clear(a);
    eng_free(a->role);
    eng_free(a);
}

int cql_session_login(cql_session *s, const char *role, eng_err *err)
{
    if (!role) {
        cql_auth_state_free(s->auth);
        s->auth = NULL;
        return 0;
    }
    if (s->auth && !strcmp(s->auth->role, role))
        return 0;
    cql_auth_state *a = eng_calloc(1, sizeof *a);
    if (!a || !(a->role = eng_strdup(role))) {
        eng_free(a);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory logging in");
    }
    cql_auth_state_free(s->auth);
    s->auth = a;
    return 0;
}

const char *cql_session_user(const cql_session *s) { return s->auth ? s->auth->role : NULL; }

/* 1 when the session's role may `perm` on r or one of its parents. */
static int permitted(const cql_auth_state *a, unsigned perm, const res_name *r)
{
    if (a->superuser)
        return 1;
    res_name cur = *r, up;
    for (;;) {
        for (uint32_t i = 0; i < a->n_grants; i++)
            if ((a->grants[i].perms & perm) && !strcmp(a->grants[i].resource, cur.stored))
                return 1;
        if (!res_parent(&cur, &up))
            return 0;
        cur = up;
    }
}

static int ensure(cql_session *s, unsigned perm, const res_name *r, eng_err *err)
{
    int rc = state_fresh(s->db, s->auth, err);
    if (rc)
        return rc;
    if (permitted(s->auth, perm, r))
        return 0;
    return eng_errorf(err, ENG_E_UNAUTHORIZED, "User %s has no %s permission on %s or any of its parents",
                      s->auth->role, perm_name(perm), r->shown);
}

/* ------------------------------------------------------------------------ */
/* What each statement needs                                                 */
/* ------------------------------------------------------------------------ */

static int is_replicated_system_ks(const char *ks)
{
    return !strcmp(ks, "system_auth") || !strcmp(ks, "system_distributed") ||
           !strcmp(ks, "system_traces");
}

/* Tables every logged-in role reads (ClientState.READABLE_SYSTEM_RESOURCES): drivers need them. */
static int readable_system_table(const char *ks, const char *table)
{
    if (!strcmp(ks, "system_schema") || !strcmp(ks, "system_virtual_schema"))
        return 1;
    return !strcmp(ks, "system") &&
           (!strcmp(table, "local") || !strcmp(table, "peers") || !strcmp(table, "peers_v2"));
}

/*
 * ClientState.preventSystemKSSchemaModification, for every session: the replicated system
 * keyspaces take no schema change but a new replication of the keyspace itself (the local ones
 * are refused by the engine).
 */
static int prevent_system_change(unsigned perm, const res_name *r, const char *ks, eng_err *err)
{
    if (!is_replicated_system_ks(ks) ||
        (perm != CQL_PERM_CREATE && perm != CQL_PERM_ALTER && perm != CQL_PERM_DROP))
        return 0;
    if (perm == CQL_PERM_ALTER && r->kind == CQL_RES_KEYSPACE)
        return 0;
    return eng_errorf(err, ENG_E_UNAUTHORIZED, "Cannot %s %s", perm_name(perm), r->shown);
}

/* ClientState.ensurePermission(keyspace, perm, resource) for a data resource. */
static int need_data(cql_session *s, unsigned perm, int kind, const char *ks, const char *table,
                     eng_err *err)
{
    /* Reads and writes of a session without a login (embedded, or a server without --auth)
       need nothing checked: no resource name is built on that path, taken by every query. */
    if (!s->auth && perm != CQL_PERM_CREATE && perm != CQL_PERM_ALTER && perm != CQL_PERM_DROP)
        return 0;
    res_name r;
    res_make(&r, kind, ks, table);
    int rc = kind == CQL_RES_ALL_KEYSPACES ? 0 : prevent_system_change(perm, &r, ks, err);
    if (rc || !s->auth)
        return rc;
    if (perm == CQL_PERM_SELECT && kind == CQL_RES_TABLE && readable_system_table(ks, table))
        return 0;
    return ensure(s, perm, &r, err);
}

static const char *stmt_ks(const cql_prepared *p, const char *ks)
{
    return ks ? ks : p->keyspace ? p->keyspace : "";
}

static int authorize_modification(cql_session *s, const cql_prepared *p, const cql_stmt *st,
                                  eng_err *err)
{
    const cql_qname *q = st->kind == CQL_S_INSERT   ? &st->u.insert.table
                         : st->kind == CQL_S_UPDATE ? &st->u.update.table
                                                    : &st->u.del.table;
    int conditional = st->kind == CQL_S_INSERT   ? st->u.insert.if_not_exists
                      : st->kind == CQL_S_UPDATE ? st->u.update.if_exists || st->u.update.n_conds
                                                 : st->u.del.if_exists || st->u.del.n_conds;
    const char *ks = stmt_ks(p, q->ks);
    int rc = need_data(s, CQL_PERM_MODIFY, CQL_RES_TABLE, ks, q->name, err);
    if (!rc && conditional) /* a condition reads */
        rc = need_data(s, CQL_PERM_SELECT, CQL_RES_TABLE, ks, q->name, err);
    return rc;
}

/* The checks of a statement's authorize() (checkAccess in 3.x), before it runs. */
int cql_auth_authorize(cql_session *s, const cql_prepared *p, eng_err *err)
{
    const cql_stmt *st = p->stmt;
    switch (st->kind) {
    case CQL_S_SELECT:
        return need_data(s, CQL_PERM_SELECT, CQL_RES_TABLE, stmt_ks(p, st->u.select.table.ks),
                         st->u.select.table.name, err);
    case CQL_S_INSERT:
    case CQL_S_UPDATE:
    case CQL_S_DELETE:
        return authorize_modification(s, p, st, err);
    case CQL_S_BATCH:
        for (int i = 0; i < st->u.batch.n_stmts; i++) {
            int rc = authorize_modification(s, p, st->u.batch.stmts[i], err);
            if (rc)
                return rc;
        }
        return 0;
    case CQL_S_TRUNCATE:
        return need_data(s, CQL_PERM_MODIFY, CQL_RES_TABLE, stmt_ks(p, st->u.drop_table.table.ks),
                         st->u.drop_table.table.name, err);
    case CQL_S_CREATE_KEYSPACE:
        return need_data(s, CQL_PERM_CREATE, CQL_RES_ALL_KEYSPACES, NULL, NULL, err);
    case CQL_S_ALTER_KEYSPACE:
        return need_data(s, CQL_PERM_ALTER, CQL_RES_KEYSPACE, st->u.keyspace.ks, NULL, err);
    case CQL_S_DROP_KEYSPACE:
        return need_data(s, CQL_PERM_DROP, CQL_RES_KEYSPACE, st->u.keyspace.ks, NULL, err);
    case CQL_S_CREATE_TABLE:
        return need_data(s, CQL_PERM_CREATE, CQL_RES_KEYSPACE,
                         stmt_ks(p, st->u.create_table.table.ks), NULL, err);
    case CQL_S_ALTER_TABLE:
        return need_data(s, CQL_PERM_ALTER, CQL_RES_TABLE, stmt_ks(p, st->u.alter_table.table.ks),
                         st->u.alter_table.table.name, err);
    case CQL_S_DROP_TABLE:
        return need_data(s, CQL_PERM_DROP, CQL_RES_TABLE, stmt_ks(p, st->u.drop_table.table.ks),
                         st->u.drop_table.table.name, err);
    case CQL_S_CREATE_TYPE:
        return need_data(s, CQL_PERM_CREATE, CQL_RES_KEYSPACE, stmt_ks(p, st->u.type.type.ks),
                         NULL, err);
    case CQL_S_ALTER_TYPE:
        return need_data(s, CQL_PERM_ALTER, CQL_RES_KEYSPACE, stmt_ks(p, st->u.type.type.ks), NULL,
                         err);
    case CQL_S_DROP_TYPE:
        return need_data(s, CQL_PERM_DROP, CQL_RES_KEYSPACE, stmt_ks(p, st->u.type.type.ks), NULL,
                         err);
    default: /* USE needs nothing; role statements check as they run */
        return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Setup and login                                                           */
/* ------------------------------------------------------------------------ */

int cql_auth_setup(eng_db *db, eng_err *err)
{
    int rc = auth_tables_ensure(db, err);
    static const char *const cols[] = {"role"};
    auth_rows rows;
    if (!rc && !(rc = auth_read(db, "roles", NULL, cols, 1, &rows, err))) {
        if (rows.n_rows == 0) {
            /* CassandraRoleManager.setupDefaultRole: at timestamp 0, so any change wins */
            char hash[128];
            if (!(rc = hash_password("cassandra", 9, hash, sizeof hash, err))) {
                auth_op ops[3] = {{"is_superuser", ENG_OP_SET, bool_val(1)},
                                  {"can_login", ENG_OP_SET, bool_val(1)},
                                  {"salted_hash", ENG_OP_SET, text_val(hash)}};
                rc = auth_write(db, "roles", "cassandra", NULL, WRITE_ROW, 1, ops, 3, 0, err);
            }
            auth_changed();
        }
        auth_rows_free(&rows);
    }
    return rc;
}

int cql_auth_login(eng_db *db, const char *user, size_t user_len, const char *password,
                   size_t password_len, eng_err *err)
{
    char *name = eng_strndup(user, user_len);
    if (!name)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory logging in");
    role_row r;
    int rc = memchr(user, 0, user_len) ? 0 : role_load(db, name, &r, err);
    if (rc) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        eng_err_clear(err);
        rc = eng_errorf(err, ENG_E_BAD_CREDENTIALS, "Unable to perform authentication: %.400s",
                        why);
    } else if (memchr(user, 0, user_len) || !r.exists || !r.salted_hash ||
               !password_matches(password, password_len, r.salted_hash, strlen(r.salted_hash))) {
        rc = eng_errorf(err, ENG_E_BAD_CREDENTIALS,
                        "Provided username %s and/or password are incorrect", name);
    } else if (!r.can_login) {
        rc = eng_errorf(err, ENG_E_BAD_CREDENTIALS, "%s is not permitted to log in", name);
    }
    if (!memchr(user, 0, user_len))
        role_row_free(&r);
    eng_free(name);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Role and permission statements                                            */
/* ------------------------------------------------------------------------ */

/* Names of the result columns of the LIST statements (ListRolesStatement, ...). */
typedef struct list_plan {
    const eng_type *options_type; /* map<text, text> */
} list_plan;

int cql_analyze_role_stmt(cql_analysis *a)
{
    int k = a->stmt->kind;
    if (k != CQL_S_LIST_ROLES)
        return 0;
    list_plan *lp = cql_plan_zalloc(a, sizeof *lp);
    if (!lp)
        return ENG_E_NOMEM;
    eng_type *m = eng_type_new_map(eng_type_new(ENG_TEXT), eng_type_new(ENG_TEXT), 0);
    if (!m || !(lp->options_type = cql_plan_keep_type(a->plan, m)))
        return eng_errorf(a->err, ENG_E_NOMEM, "out of memory preparing a statement");
    a->plan->detail = lp;
    return 0;
}

/* AuthenticationStatement.checkPermission: any refusal worded as one. */
static int check_permission(cql_exec *x, unsigned perm, const res_name *r)
{
    cql_session *s = x->session;
    if (!s->auth)
        return 0;
    int rc = ensure(s, perm, r, x->err);
    if (rc == ENG_E_UNAUTHORIZED) {
        eng_err_clear(x->err);
        rc = eng_errorf(x->err, ENG_E_UNAUTHORIZED,
                        "User %s does not have sufficient privileges to perform the requested "
                        "operation",
                        s->auth->role);
    }
    return rc;
}

/* 1 when the session acts as a superuser: no login (the system), or a superuser role. */
static int acting_superuser(cql_exec *x, int *super)
{
    cql_session *s = x->session;
    *super = 1;
    if (!s->auth)
        return 0;
    int rc = state_fresh(s->db, s->auth, x->err);
    *super = !rc && s->auth->superuser;
    return rc;
}

/* RoleOptions.validate for CassandraRoleManager with PasswordAuthenticator. */
static int validate_role_options(cql_exec *x, const cql_role_stmt *r)
{
    if (r->options)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "org.apache.cassandra.auth.CassandraRoleManager doesn't support OPTIONS");
    if (r->hashed && !valid_bcrypt(r->password, r->password_len))
        return eng_errorf(x->err, ENG_E_INVALID,
                          "Invalid hashed password value. Please use jBcrypt.");
    return 0;
}

/* The stored hash of the statement's PASSWORD / HASHED PASSWORD into out (cap bytes). */
static int statement_hash(cql_exec *x, const cql_role_stmt *r, char *out, size_t cap)
{
    if (r->hashed) {
        snprintf(out, cap, "%.*s", (int)r->password_len, r->password);
        return 0;
    }
    return hash_password(r->password, r->password_len, out, cap, x->err);
}

static int write_role_flags(cql_exec *x, const cql_role_stmt *r, int creating)
{
    char hash[128];
    auth_op ops[3];
    uint32_t n = 0;
    int rc = r->password ? statement_hash(x, r, hash, sizeof hash) : 0;
    if (rc)
        return rc;
    /* createRole writes both flags (false when not given); alterRole only those given */
    if (creating || r->superuser >= 0)
        ops[n++] = (auth_op){"is_superuser", ENG_OP_SET, bool_val(r->superuser == 1)};
    if (creating || r->login >= 0)
        ops[n++] = (auth_op){"can_login", ENG_OP_SET, bool_val(r->login == 1)};
    if (r->password)
        ops[n++] = (auth_op){"salted_hash", ENG_OP_SET, text_val(hash)};
    if (n) /* ALTER with ACCESS TO ... alone stores nothing */
        rc = auth_write(x->session->db, "roles", r->role, NULL, WRITE_ROW, creating, ops, n,
                        ENG_TS_NONE, x->err);
    explicit_bzero(hash, sizeof hash);
    return rc;
}

static int granted_on(eng_db *db, const char *role, const char *resource, unsigned *out,
                      eng_err *err);

/* Adds (add 1) or removes permissions of role on a resource, keeping the index table. */
static int change_grant(eng_db *db, const char *role, const char *resource, unsigned perms,
                        int add, eng_err *err)
{
    const char *names[CQL_N_PERMISSIONS];
    uint32_t n = 0;
    for (int i = 0; i < CQL_N_PERMISSIONS; i++)
        if (perms & (1u << i))
            names[n++] = PERM_NAMES[i];
    eng_buf set = ENG_BUF_INIT;
    if (text_set(&set, names, n)) {
        eng_buf_free(&set);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory granting permissions");
    }
    auth_op op = {"permissions", add ? ENG_OP_ADD : ENG_OP_REMOVE, {set.p, (int32_t)set.len}};
    int rc = auth_write(db, "role_permissions", role, resource, WRITE_ROW, 0, &op, 1, ENG_TS_NONE,
                        err);
    eng_buf_free(&set);
    if (!rc && add)
        rc = auth_write(db, "resource_role_permissons_index", resource, role, WRITE_ROW, 1, NULL,
                        0, ENG_TS_NONE, err);
    unsigned left = 0;
    if (!rc && !add && !(rc = granted_on(db, role, resource, &left, err)) && !left)
        rc = auth_write(db, "resource_role_permissons_index", resource, role, DELETE_ROW, 0, NULL,
                        0, ENG_TS_NONE, err);
    auth_changed();
    return rc;
}

/* The permissions role holds on a resource (0 when none). */
static int granted_on(eng_db *db, const char *role, const char *resource, unsigned *out,
                      eng_err *err)
{
    static const char *const cols[] = {"resource", "permissions"};
    auth_rows rows;
    *out = 0;
    int rc = auth_read(db, "role_permissions", role, cols, 2, &rows, err);
    for (uint32_t i = 0; !rc && i < rows.n_rows; i++) {
        eng_val res = auth_cell(&rows, i, 0);
        if (res.len >= 0 && (size_t)res.len == strlen(resource) &&
            !memcmp(res.p, resource, (size_t)res.len))
            *out = perms_of_cell(auth_cell(&rows, i, 1));
    }
    if (!rc)
        auth_rows_free(&rows);
    return rc;
}

/* The grants on a creator's new object (AlterSchemaStatement / CreateRoleStatement). */
static int grant_to_creator(cql_session *s, int kind, const char *ks, const char *name,
                            eng_err *err)
{
    if (!s->auth)
        return 0;
    res_name r;
    res_make(&r, kind, ks, name);
    unsigned perms = kind == CQL_RES_ROLE ? P(ALTER) | P(DROP) | P(AUTHORIZE) : applicable(kind);
    return change_grant(s->db, s->auth->role, r.stored, perms, 1, err);
}

/*
 * CassandraAuthorizer.revokeAllOn: every grant on the resource (stored name), and with
 * `prefix` set on the resources below it too ("data/ks" takes "data/ks/t").
 */
static int revoke_all_on(eng_db *db, const char *resource, int prefix, eng_err *err)
{
    if (!auth_tables_exist(db))
        return 0;
    static const char *const cols[] = {"resource", "role"};
    auth_rows rows;
    int rc = auth_read(db, "resource_role_permissons_index", NULL, cols, 2, &rows, err);
    size_t len = strlen(resource);
    for (uint32_t i = 0; !rc && i < rows.n_rows; i++) {
        char *res = cell_text(auth_cell(&rows, i, 0)), *role = cell_text(auth_cell(&rows, i, 1));
        if (!res || !role) {
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory revoking permissions");
        } else if (!strcmp(res, resource) ||
                   (prefix && !strncmp(res, resource, len) && res[len] == '/')) {
            rc = auth_write(db, "role_permissions", role, res, DELETE_ROW, 0, NULL, 0,
                            ENG_TS_NONE, err);
            if (!rc)
                rc = auth_write(db, "resource_role_permissons_index", res, role, DELETE_ROW, 0,
                                NULL, 0, ENG_TS_NONE, err);
        }
        eng_free(res);
        eng_free(role);
    }
    if (!rc)
        auth_rows_free(&rows);
    auth_changed();
    return rc;
}

/* CassandraAuthorizer.revokeAllFrom: every grant the role holds. */
static int revoke_all_from(eng_db *db, const char *role, eng_err *err)
{
    static const char *const cols[] = {"resource"};
    auth_rows rows;
    int rc = auth_read(db, "role_permissions", role, cols, 1, &rows, err);
    for (uint32_t i = 0; !rc && i < rows.n_rows; i++) {
        char *res = cell_text(auth_cell(&rows, i, 0));
        rc = res ? auth_write(db, "resource_role_permissons_index", res, role, DELETE_ROW, 0, NULL,
                              0, ENG_TS_NONE, err)
                 : eng_errorf(err, ENG_E_NOMEM, "out of memory revoking permissions");
        eng_free(res);
    }
    if (!rc) {
        auth_rows_free(&rows);
        rc = auth_write(db, "role_permissions", role, NULL, DELETE_PARTITION, 0, NULL, 0,
                        ENG_TS_NONE, err);
    }
    auth_changed();
    return rc;
}

void cql_auth_schema_changed(cql_session *s, const cql_stmt *st, const cql_result *r)
{
    if (!r || r->kind != CQL_RESULT_SCHEMA_CHANGE || !r->change)
        return;
    eng_err e;
    const char *ks = r->keyspace;
    int created = !strcmp(r->change, "CREATED"), dropped = !strcmp(r->change, "DROPPED");
    switch (st->kind) {
    case CQL_S_CREATE_KEYSPACE:
        if (created && !grant_to_creator(s, CQL_RES_KEYSPACE, ks, NULL, &e))
            (void)grant_to_creator(s, CQL_RES_KS_FUNCTIONS, ks, NULL, &e);
        break;
    case CQL_S_CREATE_TABLE:
        if (created)
            (void)grant_to_creator(s, CQL_RES_TABLE, ks, r->object, &e);
        break;
    case CQL_S_DROP_KEYSPACE:
        if (dropped) {
            res_name d, f;
            res_make(&d, CQL_RES_KEYSPACE, ks, NULL);
            res_make(&f, CQL_RES_KS_FUNCTIONS, ks, NULL);
            if (!revoke_all_on(s->db, d.stored, 1, &e))
                (void)revoke_all_on(s->db, f.stored, 0, &e);
        }
        break;
    case CQL_S_DROP_TABLE:
        if (dropped) {
            res_name t;
            res_make(&t, CQL_RES_TABLE, ks, r->object);
            (void)revoke_all_on(s->db, t.stored, 0, &e);
        }
        break;
    default:
        break;
    }
}

static int role_missing(cql_exec *x, const char *fmt, const char *name)
{
    return eng_errorf(x->err, ENG_E_INVALID, fmt, name);
}

static int exec_create_role(cql_exec *x, const cql_role_stmt *r)
{
    res_name all;
    res_make(&all, CQL_RES_ALL_ROLES, NULL, NULL);
    int super, rc = check_permission(x, CQL_PERM_CREATE, &all);
    if (!rc)
        rc = acting_superuser(x, &super);
    if (!rc && r->superuser == 1 && !super)
        rc = eng_errorf(x->err, ENG_E_UNAUTHORIZED,
                        "Only superusers can create a role with superuser status");
    if (!rc)
        rc = validate_role_options(x, r);
    if (!rc && !r->role[0])
        rc = eng_errorf(x->err, ENG_E_INVALID, "Role name can't be an empty string");
    int exists = 0;
    if (!rc)
        rc = auth_tables_ensure(x->session->db, x->err);
    if (!rc)
        rc = role_exists(x->session->db, r->role, &exists, x->err);
    if (rc || (exists && r->if_flag))
        return rc;
    if (exists)
        return eng_errorf(x->err, ENG_E_INVALID, "%s already exists", r->role);
    if (!(rc = write_role_flags(x, r, 1)))
        rc = grant_to_creator(x->session, CQL_RES_ROLE, NULL, r->role, x->err);
    auth_changed();
    return rc;
}

static const char *const ROLE_OPTION_NAMES[] = {"PASSWORD", "LOGIN", "SUPERUSER", "OPTIONS"};

static int exec_alter_role(cql_exec *x, const cql_role_stmt *r)
{
    cql_session *s = x->session;
    int super, rc = acting_superuser(x, &super);
    if (!rc && r->superuser >= 0 && s->auth && has_role(s->auth->roles, s->auth->n_roles, r->role))
        return eng_errorf(x->err, ENG_E_UNAUTHORIZED,
                          "You aren't allowed to alter your own superuser status or that of a "
                          "role granted to you");
    if (!rc && r->superuser >= 0 && !super)
        return eng_errorf(x->err, ENG_E_UNAUTHORIZED,
                          "Only superusers are allowed to alter superuser status");
    if (!rc && !super) {
        if (!strcmp(s->auth->role, r->role)) {
            /* one's own password only (CassandraRoleManager.alterableOptions) */
            int given[4] = {0, r->login >= 0, r->superuser >= 0, r->options != NULL};
            for (int i = 1; i < 4; i++)
                if (given[i])
                    return eng_errorf(x->err, ENG_E_UNAUTHORIZED, "You aren't allowed to alter %s",
                                      ROLE_OPTION_NAMES[i]);
        } else {
            res_name target;
            res_make(&target, CQL_RES_ROLE, NULL, r->role);
            rc = check_permission(x, CQL_PERM_ALTER, &target);
        }
    }
    if (!rc)
        rc = validate_role_options(x, r);
    if (!rc && !r->password && r->login < 0 && r->superuser < 0 && !r->options &&
        !r->access_given)
        rc = eng_errorf(x->err, ENG_E_INVALID, "ALTER [ROLE|USER] can't be empty");
    int exists = 0;
    if (!rc)
        rc = role_exists(s->db, r->role, &exists, x->err);
    if (rc || (!exists && r->if_flag))
        return rc;
    if (!exists)
        return role_missing(x, "%s doesn't exist", r->role);
    rc = write_role_flags(x, r, 0);
    auth_changed();
    return rc;
}

static int exec_drop_role(cql_exec *x, const cql_role_stmt *r)
{
    cql_session *s = x->session;
    res_name target;
    res_make(&target, CQL_RES_ROLE, NULL, r->role);
    int super, rc = check_permission(x, CQL_PERM_DROP, &target);
    if (!rc)
        rc = acting_superuser(x, &super);
    char **held = NULL;
    uint32_t n_held = 0;
    int target_super = 0, exists = 0;
    if (!rc)
        rc = role_exists(s->db, r->role, &exists, x->err);
    if (!rc && exists && !super &&
        !(rc = roles_of(s->db, r->role, &held, &n_held, &target_super, x->err)) && target_super)
        rc = eng_errorf(x->err, ENG_E_UNAUTHORIZED,
                        "Only superusers can drop a role with superuser status");
    for (uint32_t i = 0; i < n_held; i++)
        eng_free(held[i]);
    eng_free(held);
    if (!rc && !exists && !r->if_flag)
        rc = role_missing(x, "%s doesn't exist", r->role);
    if (!rc && s->auth && !strcmp(s->auth->role, r->role))
        rc = eng_errorf(x->err, ENG_E_INVALID, "Cannot DROP primary role for current login");
    if (rc || !exists)
        return rc;
    /* CassandraRoleManager.dropRole, then the authorizer's revokeAllFrom and revokeAllOn */
    static const char *const cols[] = {"member"};
    const char *self[1] = {r->role};
    auth_rows members;
    eng_buf set = ENG_BUF_INIT;
    rc = auth_write(s->db, "roles", r->role, NULL, DELETE_PARTITION, 0, NULL, 0, ENG_TS_NONE,
                    x->err);
    if (!rc && text_set(&set, self, 1))
        rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    if (!rc && !(rc = auth_read(s->db, "role_members", r->role, cols, 1, &members, x->err))) {
        for (uint32_t i = 0; !rc && i < members.n_rows; i++) {
            char *member = cell_text(auth_cell(&members, i, 0));
            auth_op op = {"member_of", ENG_OP_REMOVE, {set.p, (int32_t)set.len}};
            rc = member ? auth_write(s->db, "roles", member, NULL, WRITE_ROW, 0, &op, 1,
                                     ENG_TS_NONE, x->err)
                        : eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
            eng_free(member);
        }
        auth_rows_free(&members);
    }
    eng_buf_free(&set);
    if (!rc)
        rc = auth_write(s->db, "role_members", r->role, NULL, DELETE_PARTITION, 0, NULL, 0,
                        ENG_TS_NONE, x->err);
    if (!rc)
        rc = revoke_all_from(s->db, r->role, x->err);
    if (!rc)
        rc = revoke_all_on(s->db, target.stored, 0, x->err);
    auth_changed();
    return rc;
}

static int exec_grant_role(cql_exec *x, const cql_role_stmt *r, int grant)
{
    cql_session *s = x->session;
    res_name target;
    res_make(&target, CQL_RES_ROLE, NULL, r->role);
    int rc = check_permission(x, CQL_PERM_AUTHORIZE, &target);
    int exists = 0;
    if (!rc && !(rc = role_exists(s->db, r->role, &exists, x->err)) && !exists)
        rc = role_missing(x, "%s doesn't exist", r->role);
    if (!rc && !(rc = role_exists(s->db, r->grantee, &exists, x->err)) && !exists)
        rc = role_missing(x, "%s doesn't exist", r->grantee);
    if (rc)
        return rc;
    char **held = NULL;
    uint32_t n_held = 0;
    if (grant) {
        /* CassandraRoleManager.grantRole: no second grant, no cycle */
        if (!(rc = roles_of(s->db, r->grantee, &held, &n_held, NULL, x->err)) &&
            has_role(held, n_held, r->role))
            rc = eng_errorf(x->err, ENG_E_INVALID, "%s is a member of %s", r->grantee, r->role);
        for (uint32_t i = 0; i < n_held; i++)
            eng_free(held[i]);
        eng_free(held);
        held = NULL;
        n_held = 0;
        if (!rc && !(rc = roles_of(s->db, r->role, &held, &n_held, NULL, x->err)) &&
            has_role(held, n_held, r->grantee))
            rc = eng_errorf(x->err, ENG_E_INVALID, "%s is a member of %s", r->role, r->grantee);
    } else {
        role_row g;
        if (!(rc = role_load(s->db, r->grantee, &g, x->err)) &&
            !has_role(g.member_of, g.n_member_of, r->role))
            rc = eng_errorf(x->err, ENG_E_INVALID, "%s is not a member of %s", r->grantee,
                            r->role);
        role_row_free(&g);
    }
    for (uint32_t i = 0; i < n_held; i++)
        eng_free(held[i]);
    eng_free(held);
    if (rc)
        return rc;
    const char *granted[1] = {r->role};
    eng_buf set = ENG_BUF_INIT;
    if (text_set(&set, granted, 1)) {
        eng_buf_free(&set);
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    }
    auth_op op = {"member_of", grant ? ENG_OP_ADD : ENG_OP_REMOVE, {set.p, (int32_t)set.len}};
    rc = auth_write(s->db, "roles", r->grantee, NULL, WRITE_ROW, 0, &op, 1, ENG_TS_NONE, x->err);
    eng_buf_free(&set);
    if (!rc)
        rc = auth_write(s->db, "role_members", r->role, r->grantee, grant ? WRITE_ROW : DELETE_ROW,
                        grant, NULL, 0, ENG_TS_NONE, x->err);
    auth_changed();
    return rc;
}

static const char *resource_class(int kind)
{
    switch (kind) {
    case CQL_RES_ALL_KEYSPACES:
    case CQL_RES_KEYSPACE:
    case CQL_RES_TABLE:
        return "DataResource";
    case CQL_RES_ALL_ROLES:
    case CQL_RES_ROLE:
        return "RoleResource";
    case CQL_RES_ALL_FUNCTIONS:
    case CQL_RES_KS_FUNCTIONS:
        return "FunctionResource";
    default:
        return "JMXResource";
    }
}

/* The statement's resource, a table's keyspace taken from the session when not written. */
static int statement_resource(cql_exec *x, const cql_resource *res, res_name *out)
{
    const char *ks = res->ks;
    if (res->kind == CQL_RES_TABLE && !ks && !(ks = x->prepared->keyspace))
        return eng_errorf(x->err, ENG_E_INVALID,
                          "No keyspace has been specified. USE a keyspace, or explicitly specify "
                          "keyspace.tablename");
    res_make(out, res->kind, ks, res->name);
    return 0;
}

/* IResource.exists for the statement's resource. */
static int resource_exists(cql_exec *x, const cql_resource *res, const res_name *r, int *exists)
{
    const eng_schema *sc = x->plan->schema;
    const char *ks = res->kind == CQL_RES_TABLE && !res->ks ? x->prepared->keyspace : res->ks;
    switch (res->kind) {
    case CQL_RES_KEYSPACE:
    case CQL_RES_KS_FUNCTIONS:
        *exists = eng_schema_keyspace(sc, ks) != NULL || cql_systable_keyspace(ks);
        return 0;
    case CQL_RES_TABLE:
        *exists = eng_schema_table(sc, ks, res->name) != NULL || cql_systable(ks, res->name);
        return 0;
    case CQL_RES_ROLE:
        return role_exists(x->session->db, res->name, exists, x->err);
    case CQL_RES_MBEAN:
        *exists = 0; /* no MBeans in an embedded database */
        return 0;
    default:
        (void)r;
        *exists = 1;
        return 0;
    }
}

static int exec_grant_permissions(cql_exec *x, const cql_role_stmt *r, int grant)
{
    cql_session *s = x->session;
    unsigned perms = r->perms & applicable(r->resource.kind);
    if (!perms)
        return eng_errorf(x->err, ENG_E_SYNTAX,
                          "Resource type %s does not support any of the requested permissions",
                          resource_class(r->resource.kind));
    res_name res;
    int rc = statement_resource(x, &r->resource, &res);
    if (!rc && s->auth) {
        rc = ensure(s, CQL_PERM_AUTHORIZE, &res, x->err);
        for (int i = 0; !rc && i < CQL_N_PERMISSIONS; i++)
            if (perms & (1u << i))
                rc = ensure(s, 1u << i, &res, x->err);
    }
    int exists = 0;
    if (!rc && !(rc = role_exists(s->db, r->grantee, &exists, x->err)) && !exists)
        rc = role_missing(x, "Role %s doesn't exist", r->grantee);
    if (!rc && !(rc = resource_exists(x, &r->resource, &res, &exists)) && !exists)
        rc = eng_errorf(x->err, ENG_E_INVALID, "Resource %s doesn't exist", res.shown);
    unsigned before = 0;
    if (!rc)
        rc = granted_on(s->db, r->grantee, res.stored, &before, x->err);
    if (!rc)
        rc = change_grant(s->db, r->grantee, res.stored, perms, grant, x->err);
    /* 4.1's warning on what did not change (none for ALL) */
    unsigned same = grant ? perms & before : perms & ~before;
    if (!rc && same && !r->all_perms && x->result->n_warnings < CQL_RESULT_MAX_WARNINGS) {
        char list[160] = "";
        for (int i = 0; i < CQL_N_PERMISSIONS; i++) {
            if (same & (1u << i)) {
                if (list[0])
                    strcat(list, ", ");
                strcat(list, PERM_NAMES[i]);
            }
        }
        char msg[1200];
        snprintf(msg, sizeof msg, grant ? "Role '%s' was already granted %s on %s"
                                        : "Role '%s' was not granted %s on %s",
                 r->grantee, list, res.shown);
        const char *w = eng_arena_memdup(&x->result->arena, msg, strlen(msg) + 1);
        if (w)
            x->result->warnings[x->result->n_warnings++] = w;
    }
    return rc;
}

/* ---- LIST ---- */

typedef struct role_info {
    char *name;
    int is_superuser, can_login;
} role_info;

static int cmp_role_info(const void *a, const void *b)
{
    return strcmp(((const role_info *)a)->name, ((const role_info *)b)->name);
}

static void role_infos_free(role_info *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        eng_free(v[i].name);
    eng_free(v);
}

/* The roles named (or every role when names is NULL), sorted by name; missing ones skipped. */
static int role_infos(eng_db *db, char **names, uint32_t n_names, role_info **out, uint32_t *n,
                      eng_err *err)
{
    *out = NULL;
    *n = 0;
    if (!auth_tables_exist(db))
        return 0;
    static const char *const cols[] = {"role", "is_superuser", "can_login"};
    auth_rows res;
    int rc = auth_read(db, "roles", NULL, cols, 3, &res, err);
    if (rc)
        return rc;
    role_info *v = eng_calloc(res.n_rows ? res.n_rows : 1, sizeof *v);
    if (!v)
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory listing roles");
    uint32_t k = 0;
    for (uint32_t i = 0; !rc && i < res.n_rows; i++) {
        char *name = cell_text(auth_cell(&res, i, 0));
        if (!name) {
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory listing roles");
            break;
        }
        if (names && !has_role(names, n_names, name)) {
            eng_free(name);
            continue;
        }
        v[k++] = (role_info){name, cell_bool(auth_cell(&res, i, 1)),
                             cell_bool(auth_cell(&res, i, 2))};
    }
    auth_rows_free(&res);
    if (rc) {
        role_infos_free(v, k);
        return rc;
    }
    qsort(v, k, sizeof *v, cmp_role_info);
    *out = v;
    *n = k;
    return 0;
}

static void free_names(char **v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        eng_free(v[i]);
    eng_free(v);
}

/* Roles::getRoles(grantee, recursive): the role, and the roles granted to it (all or direct). */
static int granted_roles(eng_db *db, const char *role, int recursive, char ***out, uint32_t *n,
                         eng_err *err)
{
    if (recursive)
        return roles_of(db, role, out, n, NULL, err);
    *out = NULL;
    *n = 0;
    role_row r;
    int rc = push_str(out, n, role, err);
    if (!rc)
        rc = role_load(db, role, &r, err);
    for (uint32_t i = 0; !rc && i < r.n_member_of; i++)
        rc = push_str(out, n, r.member_of[i], err);
    if (!rc)
        role_row_free(&r);
    return rc;
}

static const eng_type text_type = {.kind = ENG_TEXT};

static int exec_list_roles(cql_exec *x, const cql_role_stmt *r, int users)
{
    cql_session *s = x->session;
    int describe = 1, rc = 0;
    if (s->auth) {
        res_name all;
        res_make(&all, CQL_RES_ALL_ROLES, NULL, NULL);
        if ((rc = state_fresh(s->db, s->auth, x->err)))
            return rc;
        describe = permitted(s->auth, CQL_PERM_DESCRIBE, &all);
    }
    int exists = 1;
    if (r->role && (rc = role_exists(s->db, r->role, &exists, x->err)))
        return rc;
    if (!exists)
        return eng_errorf(x->err, ENG_E_INVALID, "<role %s> doesn't exist", r->role);
    /* which roles: every one with DESCRIBE on <all roles>, else those the caller holds */
    char **names = NULL;
    uint32_t n_names = 0;
    int every = 0;
    if (users) {
        every = describe;
        if (!every)
            rc = granted_roles(s->db, s->auth->role, 0, &names, &n_names, x->err);
    } else if (!r->role) {
        every = describe;
        if (!every)
            rc = granted_roles(s->db, s->auth->role, !r->norecursive, &names, &n_names, x->err);
    } else if (!describe && !has_role(s->auth->roles, s->auth->n_roles, r->role)) {
        return eng_errorf(x->err, ENG_E_UNAUTHORIZED,
                          "You are not authorized to view roles granted to %s ", r->role);
    } else {
        rc = granted_roles(s->db, r->role, !r->norecursive, &names, &n_names, x->err);
    }
    role_info *v = NULL;
    uint32_t n = 0;
    if (!rc)
        rc = role_infos(s->db, every ? NULL : names, n_names, &v, &n, x->err);
    free_names(names, n_names);
    if (rc)
        return rc;
    const list_plan *lp = x->plan->detail;
    cql_column_spec roles_cols[5] = {
        {AUTH_KS, "roles", "role", &text_type},
        {AUTH_KS, "roles", "super", cql_boolean_type()},
        {AUTH_KS, "roles", "login", cql_boolean_type()},
        {AUTH_KS, "roles", "options", lp ? lp->options_type : NULL},
        {AUTH_KS, "roles", "datacenters", &text_type},
    };
    cql_column_spec users_cols[3] = {
        {AUTH_KS, "users", "name", &text_type},
        {AUTH_KS, "users", "super", cql_boolean_type()},
        {AUTH_KS, "users", "datacenters", &text_type},
    };
    uint32_t shown = 0;
    static const uint8_t T = 1, F = 0, EMPTY_MAP[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; !rc && i < n; i++) {
        if (users && !v[i].can_login)
            continue;
        if (!shown++ && (rc = cql_result_set_columns(x->result, users ? users_cols : roles_cols,
                                                     users ? 3 : 5)))
            break;
        x->result->kind = CQL_RESULT_ROWS;
        eng_val row[5];
        if (users) {
            int super = 0;
            char **held = NULL;
            uint32_t n_held = 0;
            rc = roles_of(s->db, v[i].name, &held, &n_held, &super, x->err);
            free_names(held, n_held);
            row[0] = text_val(v[i].name);
            row[1] = (eng_val){super ? &T : &F, 1};
            row[2] = text_val("ALL");
        } else {
            row[0] = text_val(v[i].name);
            row[1] = (eng_val){v[i].is_superuser ? &T : &F, 1};
            row[2] = (eng_val){v[i].can_login ? &T : &F, 1};
            row[3] = (eng_val){EMPTY_MAP, 4};
            row[4] = text_val("ALL");
        }
        if (!rc && cql_result_add_row(x->result, row))
            rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory listing roles");
    }
    role_infos_free(v, n);
    return rc;
}

typedef struct perm_row {
    char *role, *resource; /* grantee, stored resource name */
    unsigned perms;
} perm_row;

static int cmp_perm_row(const void *a, const void *b)
{
    const perm_row *x = a, *y = b;
    int c = strcmp(x->role, y->role);
    return c ? c : strcmp(x->resource, y->resource);
}

static int exec_list_permissions(cql_exec *x, const cql_role_stmt *r)
{
    cql_session *s = x->session;
    res_name res = {0};
    int rc = 0, exists = 1;
    if (r->resource.kind) {
        if ((rc = statement_resource(x, &r->resource, &res)) ||
            (rc = resource_exists(x, &r->resource, &res, &exists)))
            return rc;
        if (!exists)
            return eng_errorf(x->err, ENG_E_INVALID, "%s doesn't exist", res.shown);
    }
    if (r->role && (rc = role_exists(s->db, r->role, &exists, x->err)))
        return rc;
    if (r->role && !exists)
        return eng_errorf(x->err, ENG_E_INVALID, "<role %s> doesn't exist", r->role);
    if (s->auth) {
        if ((rc = state_fresh(s->db, s->auth, x->err)))
            return rc;
        if (!s->auth->superuser && (!r->role || !has_role(s->auth->roles, s->auth->n_roles, r->role)))
            return eng_errorf(x->err, ENG_E_UNAUTHORIZED,
                              "You are not authorized to view %s's permissions",
                              r->role ? r->role : "everyone");
    }
    if (!auth_tables_exist(s->db))
        return 0;
    char **grantees = NULL;
    uint32_t n_grantees = 0;
    /* OF a role: its grants and those of every role granted to it, whatever NORECURSIVE (which
       only keeps the resource's parents out: CassandraAuthorizer.list) */
    if (r->role && (rc = roles_of(s->db, r->role, &grantees, &n_grantees, NULL, x->err)))
        return rc;
    /* the resources asked for: the one named and (recursive) its parents, or all */
    res_name chain[8];
    int n_chain = 0;
    if (r->resource.kind) {
        chain[n_chain++] = res;
        while (!r->norecursive && n_chain < 8 && res_parent(&chain[n_chain - 1], &chain[n_chain]))
            n_chain++;
    }
    static const char *const read_cols[] = {"role", "resource", "permissions"};
    auth_rows all;
    if ((rc = auth_read(s->db, "role_permissions", NULL, read_cols, 3, &all, x->err))) {
        free_names(grantees, n_grantees);
        return rc;
    }
    perm_row *rows = eng_calloc(all.n_rows ? all.n_rows : 1, sizeof *rows);
    if (!rows)
        rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory listing permissions");
    uint32_t n = 0;
    for (uint32_t i = 0; !rc && i < all.n_rows; i++) {
        char *role = cell_text(auth_cell(&all, i, 0)), *resource = cell_text(auth_cell(&all, i, 1));
        unsigned perms = perms_of_cell(auth_cell(&all, i, 2)) & r->perms;
        int keep = role && resource && perms;
        if (keep && grantees)
            keep = has_role(grantees, n_grantees, role);
        if (keep && n_chain) {
            int found = 0;
            for (int k = 0; k < n_chain; k++)
                found |= !strcmp(chain[k].stored, resource);
            keep = found;
        }
        if (!keep) {
            eng_free(role);
            eng_free(resource);
            continue;
        }
        rows[n++] = (perm_row){role, resource, perms};
    }
    auth_rows_free(&all);
    free_names(grantees, n_grantees);
    if (!rc)
        qsort(rows, n, sizeof *rows, cmp_perm_row);
    static const cql_column_spec cols[4] = {
        {AUTH_KS, "permissions", "role", &text_type},
        {AUTH_KS, "permissions", "username", &text_type},
        {AUTH_KS, "permissions", "resource", &text_type},
        {AUTH_KS, "permissions", "permission", &text_type},
    };
    for (uint32_t i = 0; !rc && i < n; i++) {
        res_name shown;
        res_from_stored(&shown, rows[i].resource);
        for (int p = 0; !rc && p < CQL_N_PERMISSIONS; p++) {
            if (!(rows[i].perms & (1u << p)))
                continue;
            if (x->result->kind != CQL_RESULT_ROWS) {
                if ((rc = cql_result_set_columns(x->result, cols, 4)))
                    break;
                x->result->kind = CQL_RESULT_ROWS;
            }
            eng_val row[4] = {text_val(rows[i].role), text_val(rows[i].role),
                              text_val(shown.shown), text_val(PERM_NAMES[p])};
            if (cql_result_add_row(x->result, row))
                rc = eng_errorf(x->err, ENG_E_NOMEM, "out of memory listing permissions");
        }
    }
    for (uint32_t i = 0; rows && i < n; i++) {
        eng_free(rows[i].role);
        eng_free(rows[i].resource);
    }
    eng_free(rows);
    return rc;
}

int cql_exec_role_stmt(cql_exec *x)
{
    const cql_role_stmt *r = &x->stmt->u.role;
    int rc = auth_tables_ensure(x->session->db, x->err);
    if (rc)
        return rc;
    switch (x->stmt->kind) {
    case CQL_S_CREATE_ROLE:
        return exec_create_role(x, r);
    case CQL_S_ALTER_ROLE:
        return exec_alter_role(x, r);
    case CQL_S_DROP_ROLE:
        return exec_drop_role(x, r);
    case CQL_S_GRANT_ROLE:
    case CQL_S_REVOKE_ROLE:
        return exec_grant_role(x, r, x->stmt->kind == CQL_S_GRANT_ROLE);
    case CQL_S_GRANT_PERMISSIONS:
    case CQL_S_REVOKE_PERMISSIONS:
        return exec_grant_permissions(x, r, x->stmt->kind == CQL_S_GRANT_PERMISSIONS);
    case CQL_S_LIST_ROLES:
    case CQL_S_LIST_USERS:
        return exec_list_roles(x, r, x->stmt->kind == CQL_S_LIST_USERS);
    default:
        return exec_list_permissions(x, r);
    }
}
