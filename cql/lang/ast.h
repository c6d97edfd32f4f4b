/*
 * The syntax tree of CQL statements, as the parser (parse.c) builds it and
 * the analyzer reads it. Every node lives in the statement's arena and is
 * freed with it; strings are NUL-terminated copies in the same arena.
 *
 * Names: an unquoted identifier is stored lower-cased (CQL identifiers are
 * case-insensitive), a "quoted" one exactly as written, without quotes —
 * the analyzer compares names byte for byte. Positions (line, col) are
 * 1-based and point at the first character of the construct, for
 * Cassandra-style error messages ("line 1:7 ...").
 */
#ifndef CQL_AST_H
#define CQL_AST_H

#include "engine/value/common.h"

/* ---- types as written (resolved against the catalog by the analyzer) ---- */

typedef struct cql_typeref cql_typeref;
struct cql_typeref {
    const char *name;      /* "int", "text", "list", "map", "set", "tuple", "frozen", or a UDT
                              name; lower-cased unless quoted */
    const char *ks;        /* keyspace of a qualified UDT name (ks.type), else NULL */
    const char *custom;    /* a custom type given as a string literal ('org.apache...'), else NULL */
    cql_typeref **args;    /* type arguments: list<x>, map<k, v>, tuple<...>, frozen<x> */
    int n_args;
    int line, col;
};

/* ---- terms: literals, bind markers, functions, collections ---- */

enum cql_term_kind {
    CQL_T_NULL = 1,   /* null */
    CQL_T_INTEGER,    /* 123, -5: text holds the digits (with sign) */
    CQL_T_FLOAT,      /* 1.5, -2e10, NaN, Infinity, -Infinity: text as written */
    CQL_T_STRING,     /* 'it''s' or $$...$$: text holds the unescaped content */
    CQL_T_BOOLEAN,    /* true / false: text "true" or "false" */
    CQL_T_UUID,       /* 01234567-89ab-...: text as written */
    CQL_T_HEX,        /* 0xCAFE: text holds the hex digits without 0x */
    CQL_T_DURATION,   /* 1h30m, P1DT2H, P0001-02-03T04:05:06: text as written */
    CQL_T_BIND,       /* ? (name NULL) or :name */
    CQL_T_LIST,       /* [a, b] */
    CQL_T_SET,        /* {a, b} */
    CQL_T_MAP,        /* {k: v, ...}: items are k0, v0, k1, v1, ...; {} parses as an empty map */
    CQL_T_TUPLE,      /* (a, b) with at least two items, or a parenthesised single term
                         where a tuple is expected */
    CQL_T_UDT,        /* {field: value, ...} with identifier keys: names[] + items[] */
    CQL_T_FUNCTION,   /* name(args) or ks.name(args); also token(...), writetime(c), ttl(c),
                         count(*) (one item of kind CQL_T_STAR) */
    CQL_T_CAST,       /* CAST(term AS type) */
    CQL_T_HINT,       /* (type) term */
    CQL_T_COLUMN,     /* a column name (in selectors, in `SET c = c + x`) */
    CQL_T_FIELD,      /* term.field (UDT field of a column, in selectors) */
    CQL_T_STAR,       /* * as the argument of count(*) */
    CQL_T_ELEMENT,    /* selector[key] (element selection): items[0] the collection, items[1]
                         the key */
    CQL_T_SLICE,      /* selector[from..to] (slice selection): items[0] the collection,
                         items[1] from, items[2] to, either NULL when left out */
};

typedef struct cql_term cql_term;
struct cql_term {
    int kind;              /* enum cql_term_kind */
    const char *text;      /* literal text (see kinds) / column name / field name */
    size_t len;            /* length of text in bytes (strings may contain NUL bytes) */
    const char *name;      /* function name, bind marker name (":name" without ':') */
    const char *ks;        /* function keyspace (ks.fn), else NULL */
    cql_term **items;      /* collection elements, tuple components, function arguments,
                              CAST / HINT operand (items[0]), FIELD operand (items[0]) */
    int n_items;
    const char **names;    /* UDT literal field names (n_items of them) */
    cql_typeref *type;     /* CAST / HINT target type */
    int bind_index;        /* BIND: 0-based position among the statement's markers */
    int line, col;
};

/* ---- WHERE relations and IF conditions ---- */

enum cql_op {
    CQL_OP_EQ = 1, CQL_OP_NE, CQL_OP_LT, CQL_OP_LE, CQL_OP_GT, CQL_OP_GE,
    CQL_OP_IN, CQL_OP_CONTAINS, CQL_OP_CONTAINS_KEY, CQL_OP_LIKE, CQL_OP_IS_NOT_NULL,
};

enum cql_rel_kind {
    CQL_REL_COLUMN = 1, /* col op term, col IN (terms) / IN ? */
    CQL_REL_TOKEN,      /* token(c1, c2) op term */
    CQL_REL_MULTI,      /* (c1, c2) op (t1, t2) / (c1, c2) IN ((..), (..)) / IN ? */
    CQL_REL_ELEMENT,    /* col[key] op term (map element filtering) */
};

typedef struct cql_relation {
    int kind;              /* enum cql_rel_kind */
    int op;                /* enum cql_op */
    const char **cols;     /* column name(s): one for COLUMN/ELEMENT, the list for TOKEN/MULTI */
    int n_cols;
    cql_term *key;         /* ELEMENT: the key term */
    cql_term **values;     /* one value, or the IN list (n_values may be 0: IN ()); a single
                              BIND item for IN ? / IN :name (flag in_marker set) */
    int n_values;
    int in_marker;         /* IN ? : values[0] binds the whole list */
    int line, col;
} cql_relation;

typedef struct cql_condition {
    const char *col;       /* column name */
    cql_term *elem;        /* col[elem] condition, else NULL */
    const char *field;     /* col.field condition (UDT), else NULL */
    int op;                /* enum cql_op (EQ..GE, IN; CONTAINS, CONTAINS_KEY parse too) */
    cql_term **values;     /* one value, or the IN list */
    int n_values;
    int in_marker;
    int line, col_no;
} cql_condition;

/* ---- statements ---- */

enum cql_stmt_kind {
    CQL_S_USE = 1,
    CQL_S_CREATE_KEYSPACE, CQL_S_ALTER_KEYSPACE, CQL_S_DROP_KEYSPACE,
    CQL_S_CREATE_TABLE, CQL_S_ALTER_TABLE, CQL_S_DROP_TABLE, CQL_S_TRUNCATE,
    CQL_S_CREATE_TYPE, CQL_S_ALTER_TYPE, CQL_S_DROP_TYPE,
    CQL_S_INSERT, CQL_S_UPDATE, CQL_S_DELETE, CQL_S_BATCH, CQL_S_SELECT,
    CQL_S_CREATE_ROLE, CQL_S_ALTER_ROLE, CQL_S_DROP_ROLE, CQL_S_LIST_ROLES, CQL_S_LIST_USERS,
    CQL_S_GRANT_ROLE, CQL_S_REVOKE_ROLE,
    CQL_S_GRANT_PERMISSIONS, CQL_S_REVOKE_PERMISSIONS, CQL_S_LIST_PERMISSIONS,
};

/* WITH options: name = term (maps as CQL_T_MAP, numbers, strings, booleans). */
typedef struct cql_property {
    const char *name;      /* lower-cased */
    cql_term *value;
    int line, col;
} cql_property;

typedef struct cql_qname {
    const char *ks;        /* NULL when not qualified */
    const char *name;
    int line, col;
} cql_qname;

typedef struct cql_column_decl {
    const char *name;
    cql_typeref *type;
    int is_static;
    int is_primary_key;    /* `col type PRIMARY KEY` */
    int line, col;
} cql_column_decl;

typedef struct cql_order {
    const char *col;
    int desc;
    int line, col_no;
} cql_order;

typedef struct cql_create_table {
    cql_qname table;
    int if_not_exists;
    cql_column_decl *cols;
    int n_cols;
    const char **pk;       /* partition key columns from PRIMARY KEY (...), NULL if declared inline */
    int n_pk;
    const char **ck;       /* clustering columns */
    int n_ck;
    int n_primary_key_clauses; /* PRIMARY KEY clauses seen (inline + table-level); must be 1 */
    cql_order *clustering_order;
    int n_clustering_order;
    int compact_storage;
    cql_property *props;
    int n_props;
} cql_create_table;

enum cql_alter_table_kind {
    CQL_ALTER_ADD = 1, CQL_ALTER_DROP, CQL_ALTER_RENAME, CQL_ALTER_WITH,
};

typedef struct cql_alter_table {
    cql_qname table;
    int if_exists;         /* ALTER TABLE IF EXISTS t */
    int kind;              /* enum cql_alter_table_kind */
    int if_col;            /* ADD IF NOT EXISTS / DROP IF EXISTS / RENAME IF EXISTS */
    cql_column_decl *cols; /* ADD */
    int n_cols;
    const char **names;    /* DROP: names; RENAME: from0, to0, from1, to1, ... */
    int n_names;
    cql_property *props;   /* WITH */
    int n_props;
} cql_alter_table;

typedef struct cql_keyspace_stmt {
    const char *ks;
    int if_flag;           /* IF NOT EXISTS (create) / IF EXISTS (alter, drop) */
    cql_property *props;   /* replication = {...}, durable_writes = bool */
    int n_props;
} cql_keyspace_stmt;

typedef struct cql_type_stmt {
    cql_qname type;
    int if_flag;           /* IF NOT EXISTS / IF EXISTS */
    int kind;              /* ALTER TYPE: CQL_ALTER_ADD or CQL_ALTER_RENAME */
    int if_field;          /* ADD IF NOT EXISTS / RENAME IF EXISTS */
    const char **fields;   /* CREATE: field names; ADD: one; RENAME: from0, to0, ... */
    cql_typeref **types;   /* CREATE: field types; ADD: one */
    int n_fields;
} cql_type_stmt;

/* USING TTL / TIMESTAMP (terms: literals or bind markers). */
typedef struct cql_using {
    cql_term *ttl;         /* NULL when absent */
    cql_term *timestamp;
} cql_using;

enum cql_assign_kind {
    CQL_SET_VALUE = 1,     /* c = term */
    CQL_SET_ELEMENT,       /* c[key] = term */
    CQL_SET_FIELD,         /* c.field = term */
    CQL_SET_ADD,           /* c = c + term (counters, sets, maps, lists append) */
    CQL_SET_SUB,           /* c = c - term */
    CQL_SET_PREPEND,       /* c = term + c */
};

typedef struct cql_assignment {
    int kind;              /* enum cql_assign_kind */
    const char *col;
    cql_term *key;         /* SET_ELEMENT */
    const char *field;     /* SET_FIELD */
    cql_term *value;
    int line, col_no;
} cql_assignment;

/* DELETE selection item: col, col[key], col.field. */
typedef struct cql_delete_target {
    const char *col;
    cql_term *key;
    const char *field;
    int line, col_no;
} cql_delete_target;

typedef struct cql_insert {
    cql_qname table;
    const char **cols;     /* VALUES form */
    int n_cols;
    cql_term **values;
    int n_values;
    cql_term *json;        /* JSON form: the string or bind marker */
    int json_default_unset;/* DEFAULT UNSET (DEFAULT NULL is the default) */
    int if_not_exists;
    cql_using using;
} cql_insert;

typedef struct cql_update {
    cql_qname table;
    cql_using using;
    cql_assignment *sets;
    int n_sets;
    cql_relation *where;
    int n_where;
    int if_exists;
    cql_condition *conds;  /* IF conditions (n_conds > 0) */
    int n_conds;
} cql_update;

typedef struct cql_delete {
    cql_qname table;
    cql_delete_target *targets; /* empty: delete rows / partitions */
    int n_targets;
    cql_using using;       /* TIMESTAMP only */
    cql_relation *where;
    int n_where;
    int if_exists;
    cql_condition *conds;
    int n_conds;
} cql_delete;

typedef struct cql_stmt cql_stmt;

enum cql_batch_kind { CQL_BATCH_LOGGED = 0, CQL_BATCH_UNLOGGED = 1, CQL_BATCH_COUNTER = 2 };

typedef struct cql_batch {
    int kind;              /* enum cql_batch_kind */
    cql_using using;       /* TIMESTAMP (and TTL, refused by the analyzer) */
    cql_stmt **stmts;      /* INSERT / UPDATE / DELETE only */
    int n_stmts;
} cql_batch;

typedef struct cql_selector {
    cql_term *term;        /* CQL_T_COLUMN, CQL_T_FUNCTION (incl. count(*), writetime, ttl,
                              token), CQL_T_CAST, CQL_T_FIELD, literals */
    const char *alias;     /* AS alias, else NULL */
} cql_selector;

typedef struct cql_select {
    cql_qname table;
    int json;
    int distinct;
    int star;              /* SELECT * */
    cql_selector *sels;
    int n_sels;
    cql_relation *where;
    int n_where;
    const char **group_by;
    int n_group_by;
    cql_order *order_by;
    int n_order_by;
    cql_term *per_partition_limit; /* NULL when absent */
    cql_term *limit;
    int allow_filtering;
} cql_select;

/* Permissions (Cassandra's auth/Permission), one bit each, in Cassandra's order. */
enum cql_permission {
    CQL_PERM_CREATE = 1 << 0,
    CQL_PERM_ALTER = 1 << 1,
    CQL_PERM_DROP = 1 << 2,
    CQL_PERM_SELECT = 1 << 3,
    CQL_PERM_MODIFY = 1 << 4,
    CQL_PERM_AUTHORIZE = 1 << 5,
    CQL_PERM_DESCRIBE = 1 << 6,
    CQL_PERM_EXECUTE = 1 << 7,
    CQL_PERM_UNMASK = 1 << 8,
    CQL_PERM_SELECT_MASKED = 1 << 9,
};
#define CQL_N_PERMISSIONS 10

/* A resource of GRANT, REVOKE and LIST PERMISSIONS. */
enum cql_resource_kind {
    CQL_RES_ALL_KEYSPACES = 1, /* ALL KEYSPACES */
    CQL_RES_KEYSPACE,          /* KEYSPACE ks */
    CQL_RES_TABLE,             /* [TABLE] [ks.]t */
    CQL_RES_ALL_ROLES,         /* ALL ROLES */
    CQL_RES_ROLE,              /* ROLE r */
    CQL_RES_ALL_FUNCTIONS,     /* ALL FUNCTIONS */
    CQL_RES_KS_FUNCTIONS,      /* ALL FUNCTIONS IN KEYSPACE ks */
    CQL_RES_ALL_MBEANS,        /* ALL MBEANS */
    CQL_RES_MBEAN,             /* MBEAN 'name' / MBEANS 'pattern' */
};

typedef struct cql_resource {
    int kind;              /* enum cql_resource_kind; 0: none given (LIST PERMISSIONS) */
    const char *ks;        /* KEYSPACE, TABLE (NULL: the session's), KS_FUNCTIONS */
    const char *name;      /* TABLE, ROLE, MBEAN */
    int line, col;
} cql_resource;

/* Role and permission statements (CassandraRoleManager, CassandraAuthorizer). */
typedef struct cql_role_stmt {
    const char *role;      /* the role created, altered, dropped or granted; LIST: OF role or
                              NULL. Unquoted names lower-cased, quoted and string names exact. */
    const char *grantee;   /* GRANT / REVOKE: the role that gains or loses */
    int if_flag;           /* IF NOT EXISTS / IF EXISTS */
    int is_user;           /* the deprecated USER forms */
    const char *password;  /* PASSWORD / HASHED PASSWORD = '...', else NULL */
    size_t password_len;
    int hashed;
    int login, superuser;  /* 1 / 0, -1 when not given */
    cql_term *options;     /* OPTIONS = {...}, else NULL */
    int access_given;      /* ACCESS TO ... DATACENTERS */
    unsigned perms;        /* enum cql_permission bits (ALL: every bit) */
    int all_perms;         /* ALL [PERMISSIONS] */
    cql_resource resource;
    int norecursive;
} cql_role_stmt;

struct cql_stmt {
    int kind;              /* enum cql_stmt_kind */
    int line, col;
    int n_binds;           /* bind markers in the statement (batch: in all its statements) */
    union {
        const char *use_ks;
        cql_keyspace_stmt keyspace;
        cql_create_table create_table;
        cql_alter_table alter_table;
        struct {
            cql_qname table;
            int if_exists;
        } drop_table;      /* DROP TABLE and TRUNCATE (if_exists unused) */
        cql_type_stmt type;
        cql_insert insert;
        cql_update update;
        cql_delete del;
        cql_batch batch;
        cql_select select;
        cql_role_stmt role;
    } u;
};

#endif
