/*
 * The schema as the layers above the store see it: keyspaces, tables,
 * columns and user-defined types in an immutable, reference-counted
 * snapshot (eng_schema), and the definitions schema changes take. The
 * catalog (engine/store/catalog.c) persists them; nothing here touches
 * LMDB.
 *
 * Snapshots are read-only and safe to share between threads; every pointer
 * reached from a snapshot stays valid until its last reference is dropped.
 * A snapshot shares with the one it replaced every user type a schema change
 * left as it was (reference-counted descriptors, engine/value/types.h), and
 * a column or field using a user type holds one node over its definition: a
 * snapshot's memory follows the size of the schema, not its nesting.
 */
#ifndef ENG_SCHEMA_H
#define ENG_SCHEMA_H

#include <stdatomic.h>

#include "engine/value/types.h"

/*
 * Most columns a partition key, and most a clustering key, may have. Not a
 * Cassandra limit (it has none below 65535): rows are read with the key
 * values on the stack, and a table that could be created and written but
 * not read would be worse than a clear refusal at CREATE TABLE.
 */
#define ENG_MAX_KEY_COLUMNS 64

enum eng_column_kind {
    ENG_COL_PARTITION = 0,
    ENG_COL_CLUSTERING = 1,
    ENG_COL_STATIC = 2,
    ENG_COL_REGULAR = 3,
};

typedef struct eng_option {
    char *name;  /* option name, lower case ("compaction", "bloom_filter_fp_chance") */
    char *value; /* its value as CQL text ("{'class': 'SizeTieredCompactionStrategy'}", "0.01") */
} eng_option;

typedef struct eng_column {
    char *name;       /* exact (case-preserved) column name */
    eng_type *type;
    uint8_t kind;     /* enum eng_column_kind */
    uint8_t desc;     /* clustering column declared DESC */
    uint16_t position;/* index within the partition key or the clustering key; 0 otherwise */
    uint32_t id;      /* cell column id; never reused within a table (a re-added column gets a new one) */
} eng_column;

typedef struct eng_dropped_column {
    char *name;
    eng_type *type;     /* its type then, user types expanded to tuples (as Cassandra records it) */
    int64_t dropped_us; /* when it was dropped (write timestamp units) */
    uint8_t kind;       /* ENG_COL_STATIC or ENG_COL_REGULAR when it was dropped */
} eng_dropped_column;

typedef struct eng_table {
    char *ks;
    char *name;
    uint8_t id[16];          /* table id (a time UUID); names the table's sub-database */
    uint32_t n_cols;
    eng_column *cols;        /* SELECT * order (facts §7.2): partition key columns in key order,
                                clustering columns in key order, static columns by name,
                                regular columns by name (byte order of the UTF-8 name) */
    uint16_t n_pk;           /* cols[0 .. n_pk) */
    uint16_t n_ck;           /* cols[n_pk .. n_pk + n_ck) */
    uint8_t is_counter;      /* declared with counters: every non-key column is a counter (kept
                                even when the table has no non-key column left) */
    uint8_t has_static;
    int32_t default_ttl_s;   /* default_time_to_live (0 = none) */
    int32_t gc_grace_s;      /* gc_grace_seconds (default 864000) */
    char *comment;           /* comment ("" by default) */
    uint32_t n_opts;
    eng_option *opts;        /* the other WITH options, sorted by name */
    uint32_t n_dropped;
    eng_dropped_column *dropped;
    uint32_t next_col_id;
    uint32_t dbi;            /* LMDB handle of the table's sub-database (set by store/txn.c) */
    uint32_t *by_name;       /* indexes into cols ordered by name (for eng_table_column) */
    uint32_t *by_id;         /* indexes into cols ordered by id (for eng_table_column_by_id) */
} eng_table;

typedef struct eng_keyspace {
    char *name;
    uint32_t n_repl;
    eng_option *repl;        /* replication map, e.g. class / replication_factor, sorted by name */
    uint8_t durable_writes;
} eng_keyspace;

typedef struct eng_schema {
    _Atomic int refs;
    uint64_t version;        /* the stored schema version this snapshot reflects */
    uint32_t n_keyspaces;
    eng_keyspace *keyspaces; /* sorted by name */
    uint32_t n_tables;
    eng_table *tables;       /* sorted by (ks, name) */
    uint32_t n_types;
    eng_type **types;        /* user types (kind ENG_UDT, ks and name set), sorted by (ks, name) */
} eng_schema;

/* ---- snapshots ---- */

eng_schema *eng_schema_ref(eng_schema *s);
void eng_schema_unref(eng_schema *s);

/* The qsort orders of eng_schema's arrays, which the lookups below binary-search: keyspaces by
   name, tables by (ks, name), user types (eng_type *) by (ks, name). */
int eng_keyspace_order(const void *a, const void *b);
int eng_table_order(const void *a, const void *b);
int eng_udt_order(const void *a, const void *b);

/* Lookups by exact (case-sensitive) name; NULL if absent. */
const eng_keyspace *eng_schema_keyspace(const eng_schema *s, const char *ks);
const eng_table *eng_schema_table(const eng_schema *s, const char *ks, const char *name);
const eng_type *eng_schema_udt(const eng_schema *s, const char *ks, const char *name);
const eng_column *eng_table_column(const eng_table *t, const char *name);
int eng_table_column_index(const eng_table *t, const char *name); /* -1 if absent */
/* Column by cell id; NULL if no current column has it (dropped). */
const eng_column *eng_table_column_by_id(const eng_table *t, uint32_t id);

/*
 * Puts t->cols in SELECT * order and builds t's lookup indexes (by_name,
 * by_id), deriving n_pk, n_ck and has_static. For the catalog's tables and
 * for tables described in memory (system tables). Returns 0, ENG_E_NOMEM,
 * or ENG_E_CORRUPT when the columns break the table invariants (key
 * positions 0..n-1 without gaps, at least one partition key column, unique
 * names and ids, ids below next_col_id).
 */
int eng_table_index(eng_table *t);
/* qsort order of eng_column: SELECT * order (facts §7.2), as eng_table.cols keeps it. */
int eng_column_order(const void *a, const void *b);
/* Frees what eng_table_index built (by_name, by_id); not the columns. */
void eng_table_index_free(eng_table *t);

/* ---- definitions passed to schema changes ---- */

/*
 * A column of CREATE TABLE or ALTER TABLE ADD. The CQL layer normally lists
 * each declared column once with its final kind. So that the catalog can
 * report Cassandra's PRIMARY KEY errors itself, a create may also carry:
 *  - a key column (PARTITION/CLUSTERING) with type NULL: named in PRIMARY KEY
 *    but never declared ("Unknown column '%s' referenced in PRIMARY KEY ...");
 *  - one name twice with key kinds: named twice in PRIMARY KEY;
 *  - one name as STATIC and again with a key kind: a static column named in
 *    PRIMARY KEY ("Static column '%s' cannot be part of the PRIMARY KEY");
 *  - any other repeated name: a column declared twice.
 * desc set on a column that is not a clustering column means it was named in
 * CLUSTERING ORDER BY ("Only clustering columns can be defined in CLUSTERING
 * ORDER directive"); the order of that clause is the CQL layer's to check.
 * UDTs in `type` may be given by keyspace and name only (keyspace "" = the
 * statement's): they are resolved against the snapshot's user types
 * ("Unknown type ks.name" otherwise); the same holds for UDT fields.
 */
typedef struct eng_column_def {
    const char *name;
    const eng_type *type;  /* copied */
    uint8_t kind;          /* enum eng_column_kind; key order = order of appearance */
    uint8_t desc;          /* clustering order DESC */
} eng_column_def;

typedef struct eng_table_def {
    const char *ks;
    const char *name;
    uint32_t n_cols;
    const eng_column_def *cols;
    uint32_t n_opts;
    const eng_option *opts; /* copied; default_time_to_live, gc_grace_seconds and comment are
                               interpreted (a value in single quotes is unquoted first), the
                               rest kept as given */
} eng_table_def;

/*
 * The IF [NOT] EXISTS argument of the ALTER TABLE and ALTER TYPE calls carries
 * two clauses: ENG_IF_COLUMN for the column's or field's own clause (ADD IF
 * NOT EXISTS c, DROP IF EXISTS c, ALTER TYPE t ADD IF NOT EXISTS f, RENAME IF
 * EXISTS f TO g) -- so a plain boolean 1 means that clause -- and ENG_IF_TABLE
 * for ALTER TABLE IF EXISTS t / ALTER TYPE IF EXISTS t. ALTER TABLE ... WITH has
 * only the table's clause: any non-zero value. As in Cassandra 4.1, RENAME IF
 * EXISTS on a missing column still fails ("Undefined column name ...").
 */
#define ENG_IF_COLUMN 1
#define ENG_IF_TABLE 2

#endif
