/*
 * USE and the schema statements (CREATE / ALTER / DROP of keyspaces,
 * tables and types, TRUNCATE): turns the syntax tree into the engine's
 * definitions and calls the catalog, which applies Cassandra's rules. The
 * result is Cassandra's: SET_KEYSPACE for USE, SCHEMA_CHANGE when
 * something changed, VOID when IF [NOT] EXISTS made it a no-op.
 */
#include <stdio.h>
#include <string.h>

#include "cql/exec/exec_int.h"

/* Schema statements take no bind markers and are analyzed when executed. */
int cql_analyze_schema_stmt(cql_analysis *a)
{
    if (a->stmt->n_binds)
        return eng_errorf(a->err, ENG_E_INVALID,
                          "Bind variables cannot be used in schema statements");
    return 0;
}

/* ---- property values as text ---- */

static void put_term_text(const cql_term *t, int quoted, eng_buf *out)
{
    switch (t->kind) {
    case CQL_T_STRING:
        if (!quoted) {
            eng_buf_put(out, t->text, t->len);
            return;
        }
        eng_buf_put_u8(out, '\'');
        for (size_t i = 0; i < t->len; i++) {
            if (t->text[i] == '\'')
                eng_buf_put_u8(out, '\'');
            eng_buf_put_u8(out, (uint8_t)t->text[i]);
        }
        eng_buf_put_u8(out, '\'');
        return;
    case CQL_T_MAP:
        eng_buf_put_u8(out, '{');
        for (int i = 0; i + 1 < t->n_items; i += 2) {
            if (i)
                eng_buf_put_str(out, ", ");
            put_term_text(t->items[i], 1, out);
            eng_buf_put_str(out, ": ");
            put_term_text(t->items[i + 1], 1, out);
        }
        eng_buf_put_u8(out, '}');
        return;
    default:
        eng_buf_put(out, t->text ? t->text : "", t->text ? t->len : 0);
        return;
    }
}

/* The WITH properties as catalog options (text values; arena copies). */
static int props_to_options(cql_exec *x, const cql_property *props, int n, eng_option **out)
{
    eng_option *o = eng_arena_alloc(&x->arena, (size_t)(n ? n : 1) * sizeof *o);
    if (!o)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(props[j].name, props[i].name))
                return eng_errorf(x->err, ENG_E_SYNTAX, "Multiple definition for property %s",
                                  props[i].name);
        eng_buf b = ENG_BUF_INIT;
        put_term_text(props[i].value, 0, &b);
        o[i].name = (char *)props[i].name;
        o[i].value = eng_buf_cstr(&b) ? eng_arena_memdup(&x->arena, b.p, b.len + 1) : NULL;
        eng_buf_free(&b);
        if (!o[i].value)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    }
    *out = o;
    return 0;
}

/* replication = {...} as options, durable_writes as -1 (absent), 0 or 1. */
static int keyspace_props(cql_exec *x, const cql_keyspace_stmt *k, eng_option **repl,
                          uint32_t *n_repl, int *durable)
{
    *repl = NULL;
    *n_repl = 0;
    *durable = -1;
    for (int i = 0; i < k->n_props; i++) {
        const cql_property *p = &k->props[i];
        if (!strcmp(p->name, "replication")) {
            if (p->value->kind != CQL_T_MAP)
                return eng_errorf(x->err, ENG_E_SYNTAX, "Invalid value for property 'replication'");
            int n = p->value->n_items / 2;
            eng_option *o = eng_arena_alloc(&x->arena, (size_t)(n ? n : 1) * sizeof *o);
            if (!o)
                return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
            for (int j = 0; j < n; j++) {
                eng_buf kb = ENG_BUF_INIT, vb = ENG_BUF_INIT;
                put_term_text(p->value->items[2 * j], 0, &kb);
                put_term_text(p->value->items[2 * j + 1], 0, &vb);
                o[j].name = eng_buf_cstr(&kb) ? eng_arena_memdup(&x->arena, kb.p, kb.len + 1) : NULL;
                o[j].value = eng_buf_cstr(&vb) ? eng_arena_memdup(&x->arena, vb.p, vb.len + 1) : NULL;
                eng_buf_free(&kb);
                eng_buf_free(&vb);
                if (!o[j].name || !o[j].value)
                    return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
            }
            *repl = o;
            *n_repl = (uint32_t)n;
        } else if (!strcmp(p->name, "durable_writes")) {
            const cql_term *v = p->value;
            const char *s = v->text ? v->text : "";
            if ((v->kind == CQL_T_BOOLEAN || v->kind == CQL_T_STRING) && !strcasecmp(s, "true"))
                *durable = 1;
            else if ((v->kind == CQL_T_BOOLEAN || v->kind == CQL_T_STRING) &&
                     !strcasecmp(s, "false"))
                *durable = 0;
            else
                return eng_errorf(x->err, ENG_E_SYNTAX,
                                  "Invalid boolean value %s for 'durable_writes'", s);
        } else {
            return eng_errorf(x->err, ENG_E_SYNTAX, "Unknown property '%s'", p->name);
        }
    }
    return 0;
}

/* ---- results ---- */

static int schema_change(cql_exec *x, int changed, const char *change, const char *target,
                         const char *ks, const char *object)
{
    cql_result *r = x->result;
    if (!changed)
        return 0; /* IF [NOT] EXISTS: nothing happened, a VOID result */
    r->kind = CQL_RESULT_SCHEMA_CHANGE;
    r->change = change;
    r->target = target;
    r->keyspace = eng_arena_memdup(&r->arena, ks, strlen(ks) + 1);
    r->object = eng_arena_memdup(&r->arena, object, strlen(object) + 1);
    return r->keyspace && r->object ? 0 : eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
}

static cql_analysis analysis_of(cql_exec *x, eng_schema *schema)
{
    cql_analysis a = {schema, x->session->keyspace, x->plan, x->stmt, x->err};
    return a;
}

/* ---- USE and keyspaces ---- */

static int exec_use(cql_exec *x)
{
    const char *ks = x->stmt->u.use_ks;
    if (!eng_schema_keyspace(x->plan->schema, ks)) {
        eng_schema *s;
        int rc = eng_db_schema(x->session->db, &s, x->err);
        if (rc)
            return rc;
        int exists = eng_schema_keyspace(s, ks) != NULL;
        eng_schema_unref(s);
        if (!exists)
            return eng_errorf(x->err, ENG_E_INVALID, "Keyspace '%s' does not exist", ks);
    }
    char *copy = eng_strdup(ks);
    if (!copy)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    eng_free(x->session->keyspace);
    x->session->keyspace = copy;
    x->result->kind = CQL_RESULT_SET_KEYSPACE;
    x->result->keyspace = eng_arena_memdup(&x->result->arena, ks, strlen(ks) + 1);
    return x->result->keyspace ? 0 : eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
}

static int exec_keyspace(cql_exec *x)
{
    const cql_keyspace_stmt *k = &x->stmt->u.keyspace;
    eng_option *repl;
    uint32_t n_repl;
    int durable, changed = 0, rc;
    eng_db *db = x->session->db;
    switch (x->stmt->kind) {
    case CQL_S_CREATE_KEYSPACE:
        rc = keyspace_props(x, k, &repl, &n_repl, &durable);
        if (!rc)
            rc = eng_create_keyspace(db, k->ks, repl, n_repl, durable < 0 ? 1 : durable,
                                     k->if_flag, &changed, x->err);
        return rc ? rc : schema_change(x, changed, "CREATED", "KEYSPACE", k->ks, "");
    case CQL_S_ALTER_KEYSPACE:
        rc = keyspace_props(x, k, &repl, &n_repl, &durable);
        if (!rc)
            rc = eng_alter_keyspace(db, k->ks, repl, n_repl, durable, k->if_flag, &changed,
                                    x->err);
        return rc ? rc : schema_change(x, changed, "UPDATED", "KEYSPACE", k->ks, "");
    default:
        /* A session whose keyspace is dropped keeps its name, as Cassandra's does: later
           statements fail with "keyspace ... does not exist". */
        rc = eng_drop_keyspace(db, k->ks, k->if_flag, &changed, x->err);
        return rc ? rc : schema_change(x, changed, "DROPPED", "KEYSPACE", k->ks, "");
    }
}

/* ---- tables ---- */

typedef struct table_build {
    eng_column_def *defs;
    eng_type **types;
    int n;
} table_build;

static void build_free(table_build *b)
{
    for (int i = 0; i < b->n; i++)
        eng_type_free(b->types[i]);
}

static int add_def(cql_exec *x, table_build *b, cql_analysis *a, const char *ks,
                   const char *name, const cql_typeref *type, int kind, int desc)
{
    eng_type *t = NULL;
    if (type) {
        int rc = cql_resolve_type(a, type, ks, &t);
        if (rc)
            return rc;
    }
    b->types[b->n] = t;
    b->defs[b->n] = (eng_column_def){name, t, (uint8_t)kind, (uint8_t)desc};
    b->n++;
    (void)x;
    return 0;
}

static const cql_column_decl *find_decl(const cql_create_table *c, const char *name)
{
    for (int i = 0; i < c->n_cols; i++)
        if (!strcmp(c->cols[i].name, name))
            return &c->cols[i];
    return NULL;
}

static int in_list(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

/*
 * DESC flags of the clustering columns from CLUSTERING ORDER BY, as Cassandra 4.1's
 * CreateTableStatement checks it: every column named must be a clustering column (all those
 * that are not, listed as Java prints a list), and the columns named must be the first ones of
 * the clustering key in its order -- a prefix may be given, the rest keep ASC.
 */
static int clustering_order(cql_exec *x, const cql_create_table *c, const char **ck, int n_ck,
                            int *desc)
{
    eng_buf bad = ENG_BUF_INIT;
    for (int i = 0; i < c->n_clustering_order; i++) {
        const char *col = c->clustering_order[i].col;
        if (in_list(ck, n_ck, col))
            continue;
        eng_buf_put_str(&bad, bad.len ? ", " : "[");
        eng_buf_put_str(&bad, col);
    }
    if (bad.len) {
        eng_buf_put_str(&bad, "]");
        int rc = bad.oom ? eng_errorf(x->err, ENG_E_NOMEM, "out of memory")
                         : eng_errorf(x->err, ENG_E_INVALID,
                                      "Only clustering key columns can be defined in CLUSTERING "
                                      "ORDER directive: %.*s are not clustering columns",
                                      (int)bad.len, (const char *)bad.p);
        eng_buf_free(&bad);
        return rc;
    }
    for (int i = 0; i < c->n_clustering_order; i++) {
        const cql_order *o = &c->clustering_order[i];
        if (i >= n_ck) /* a column named twice: the map Cassandra builds keeps one entry */
            break;
        if (strcmp(ck[i], o->col)) {
            int listed = 0;
            for (int j = 0; j < c->n_clustering_order; j++)
                listed |= !strcmp(c->clustering_order[j].col, ck[i]);
            if (!listed)
                return eng_errorf(x->err, ENG_E_INVALID, "Missing CLUSTERING ORDER for column %s",
                                  ck[i]);
            return eng_errorf(x->err, ENG_E_INVALID,
                              "The order of columns in the CLUSTERING ORDER directive must match "
                              "that of the clustering columns (%s must appear before %s)",
                              ck[i], o->col);
        }
        desc[i] = o->desc;
    }
    return 0;
}

static int exec_create_table(cql_exec *x)
{
    const cql_create_table *c = &x->stmt->u.create_table;
    eng_schema *schema = x->plan->schema;
    cql_analysis a = analysis_of(x, schema);
    const char *ks = NULL;
    int rc = cql_resolve_keyspace(&a, c->table.ks, &ks);
    if (rc)
        return rc;
    if (c->compact_storage)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "COMPACT STORAGE tables are not allowed starting with version 4.0");
    /* Cassandra names the table as the statement wrote it: ks.t or t. */
    char shown[600];
    snprintf(shown, sizeof shown, "%s%s%s", c->table.ks ? c->table.ks : "",
             c->table.ks ? "." : "", c->table.name);
    for (int i = 0; i < c->n_cols; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(c->cols[i].name, c->cols[j].name))
                return eng_errorf(x->err, ENG_E_INVALID,
                                  "Duplicate column '%s' declaration for table '%s'",
                                  c->cols[i].name, shown);
    if (c->n_primary_key_clauses == 0)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "No PRIMARY KEY specifed for table '%s' (exactly one required)", shown);
    if (c->n_primary_key_clauses > 1)
        return eng_errorf(x->err, ENG_E_INVALID,
                          "Multiple PRIMARY KEY specified for table '%s' (exactly one required)",
                          shown);
    const char **pk = c->pk, **ck = c->ck;
    int n_pk = c->n_pk, n_ck = c->n_ck;
    const char *inline_pk[1];
    if (!pk) {
        for (int i = 0; i < c->n_cols; i++)
            if (c->cols[i].is_primary_key)
                inline_pk[0] = c->cols[i].name;
        pk = inline_pk;
        n_pk = 1;
        n_ck = 0;
    }
    int total = n_pk + n_ck + c->n_cols;
    table_build b = {eng_arena_alloc(&x->arena, (size_t)total * sizeof *b.defs),
                     eng_arena_alloc(&x->arena, (size_t)total * sizeof *b.types), 0};
    int *desc = eng_arena_alloc(&x->arena, (size_t)(n_ck ? n_ck : 1) * sizeof *desc);
    if (!b.defs || !b.types || !desc)
        return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
    memset(desc, 0, (size_t)(n_ck ? n_ck : 1) * sizeof *desc);
    rc = clustering_order(x, c, ck, n_ck, desc);
    /* Key columns first, in key order: a name without a declaration has no type. */
    for (int i = 0; !rc && i < n_pk; i++) {
        const cql_column_decl *d = find_decl(c, pk[i]);
        rc = add_def(x, &b, &a, ks, pk[i], d ? d->type : NULL, ENG_COL_PARTITION, 0);
    }
    for (int i = 0; !rc && i < n_ck; i++) {
        const cql_column_decl *d = find_decl(c, ck[i]);
        rc = add_def(x, &b, &a, ks, ck[i], d ? d->type : NULL, ENG_COL_CLUSTERING, desc[i]);
    }
    for (int i = 0; !rc && i < c->n_cols; i++) {
        const cql_column_decl *d = &c->cols[i];
        int is_key = in_list(pk, n_pk, d->name) || in_list(ck, n_ck, d->name);
        int first = find_decl(c, d->name) == d;
        if (is_key && first && !d->is_static)
            continue;
        rc = add_def(x, &b, &a, ks, d->name, d->type,
                     d->is_static ? ENG_COL_STATIC : ENG_COL_REGULAR, 0);
    }
    eng_option *opts = NULL;
    if (!rc)
        rc = props_to_options(x, c->props, c->n_props, &opts);
    int changed = 0;
    if (!rc) {
        eng_table_def def = {ks, c->table.name, (uint32_t)b.n, b.defs, (uint32_t)c->n_props, opts};
        rc = eng_create_table(x->session->db, &def, c->if_not_exists, &changed, x->err);
    }
    build_free(&b);
    return rc ? rc : schema_change(x, changed, "CREATED", "TABLE", ks, c->table.name);
}

static int exec_alter_table(cql_exec *x)
{
    const cql_alter_table *c = &x->stmt->u.alter_table;
    cql_analysis a = analysis_of(x, x->plan->schema);
    const char *ks = NULL;
    int rc = cql_resolve_keyspace(&a, c->table.ks, &ks);
    if (rc)
        return rc;
    int flags = (c->if_exists ? ENG_IF_TABLE : 0) | (c->if_col ? ENG_IF_COLUMN : 0);
    int changed = 0;
    eng_db *db = x->session->db;
    switch (c->kind) {
    case CQL_ALTER_ADD: {
        table_build b = {eng_arena_alloc(&x->arena, (size_t)(c->n_cols + 1) * sizeof *b.defs),
                         eng_arena_alloc(&x->arena, (size_t)(c->n_cols + 1) * sizeof *b.types),
                         0};
        if (!b.defs || !b.types)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        for (int i = 0; !rc && i < c->n_cols; i++)
            rc = add_def(x, &b, &a, ks, c->cols[i].name, c->cols[i].type,
                         c->cols[i].is_static ? ENG_COL_STATIC : ENG_COL_REGULAR, 0);
        if (!rc)
            rc = eng_alter_table_add(db, ks, c->table.name, b.defs, (uint32_t)b.n, flags,
                                     &changed, x->err);
        build_free(&b);
        break;
    }
    case CQL_ALTER_DROP:
        rc = eng_alter_table_drop(db, ks, c->table.name, c->names, (uint32_t)c->n_names, flags,
                                  &changed, x->err);
        break;
    case CQL_ALTER_RENAME:
        for (int i = 0; !rc && i + 1 < c->n_names; i += 2) {
            int one = 0;
            rc = eng_alter_table_rename(db, ks, c->table.name, c->names[i], c->names[i + 1],
                                        flags, &one, x->err);
            changed |= one;
        }
        break;
    default: {
        eng_option *opts;
        rc = props_to_options(x, c->props, c->n_props, &opts);
        if (!rc)
            rc = eng_alter_table_options(db, ks, c->table.name, opts, (uint32_t)c->n_props,
                                         flags | ENG_IF_TABLE * c->if_exists, &changed, x->err);
        break;
    }
    }
    return rc ? rc : schema_change(x, changed, "UPDATED", "TABLE", ks, c->table.name);
}

static int exec_drop_table(cql_exec *x)
{
    cql_analysis a = analysis_of(x, x->plan->schema);
    const cql_qname *t = &x->stmt->u.drop_table.table;
    const char *ks = NULL;
    int rc = cql_resolve_keyspace(&a, t->ks, &ks);
    if (rc)
        return rc;
    if (x->stmt->kind == CQL_S_TRUNCATE) {
        if (!eng_schema_keyspace(x->plan->schema, ks))
            return eng_errorf(x->err, ENG_E_INVALID, "keyspace %s does not exist", ks);
        return eng_truncate(x->session->db, ks, t->name, x->err);
    }
    int changed = 0;
    rc = eng_drop_table(x->session->db, ks, t->name, x->stmt->u.drop_table.if_exists, &changed,
                        x->err);
    return rc ? rc : schema_change(x, changed, "DROPPED", "TABLE", ks, t->name);
}

/* ---- types ---- */

static int exec_type(cql_exec *x)
{
    const cql_type_stmt *t = &x->stmt->u.type;
    cql_analysis a = analysis_of(x, x->plan->schema);
    const char *ks = NULL;
    int rc = cql_resolve_keyspace(&a, t->type.ks, &ks);
    if (rc)
        return rc;
    eng_db *db = x->session->db;
    int changed = 0;
    const char *change = "UPDATED";
    if (x->stmt->kind == CQL_S_CREATE_TYPE) {
        eng_type **types = eng_arena_alloc(&x->arena, (size_t)(t->n_fields + 1) * sizeof *types);
        if (!types)
            return eng_errorf(x->err, ENG_E_NOMEM, "out of memory");
        int n = 0;
        for (; !rc && n < t->n_fields; n++) {
            rc = cql_resolve_type(&a, t->types[n], ks, &types[n]);
            if (rc)
                break;
        }
        if (!rc)
            rc = eng_create_type(db, ks, t->type.name, t->fields, (const eng_type *const *)types,
                                 (uint32_t)t->n_fields, t->if_flag, &changed, x->err);
        for (int i = 0; i < n; i++)
            eng_type_free(types[i]);
        change = "CREATED";
    } else if (x->stmt->kind == CQL_S_DROP_TYPE) {
        rc = eng_drop_type(db, ks, t->type.name, t->if_flag, &changed, x->err);
        change = "DROPPED";
    } else if (t->kind == CQL_ALTER_ADD) {
        eng_type *ty = NULL;
        rc = cql_resolve_type(&a, t->types[0], ks, &ty);
        if (!rc)
            rc = eng_alter_type_add(db, ks, t->type.name, t->fields[0], ty,
                                    (t->if_flag ? ENG_IF_TABLE : 0) |
                                        (t->if_field ? ENG_IF_COLUMN : 0),
                                    &changed, x->err);
        eng_type_free(ty);
    } else {
        for (int i = 0; !rc && i + 1 < t->n_fields; i += 2) {
            int one = 0;
            rc = eng_alter_type_rename(db, ks, t->type.name, t->fields[i], t->fields[i + 1],
                                       (t->if_flag ? ENG_IF_TABLE : 0) |
                                           (t->if_field ? ENG_IF_COLUMN : 0),
                                       &one, x->err);
            changed |= one;
        }
    }
    return rc ? rc : schema_change(x, changed, change, "TYPE", ks, t->type.name);
}

int cql_exec_schema_stmt(cql_exec *x)
{
    switch (x->stmt->kind) {
    case CQL_S_USE:
        return exec_use(x);
    case CQL_S_CREATE_KEYSPACE:
    case CQL_S_ALTER_KEYSPACE:
    case CQL_S_DROP_KEYSPACE:
        return exec_keyspace(x);
    case CQL_S_CREATE_TABLE:
        return exec_create_table(x);
    case CQL_S_ALTER_TABLE:
        return exec_alter_table(x);
    case CQL_S_DROP_TABLE:
    case CQL_S_TRUNCATE:
        return exec_drop_table(x);
    case CQL_S_CREATE_TYPE:
    case CQL_S_ALTER_TYPE:
    case CQL_S_DROP_TYPE:
        return exec_type(x);
    default:
        return eng_errorf(x->err, ENG_E_SERVER, "unknown statement kind %d", x->stmt->kind);
    }
}
