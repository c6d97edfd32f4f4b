/*
 * CQL types: descriptors, validation of native-protocol bytes, Cassandra's
 * comparison, canonical forms, and the binary form the catalog persists.
 *
 * Descriptors are immutable once built and may be shared read-only between
 * threads. A descriptor made by a constructor owns its children and strings;
 * one made by eng_type_dup (as every user type a column or field uses is)
 * is a single node that shares the rest -- children, field names, keyspace
 * and name -- with the descriptor it copies, holding a reference on it. So a
 * type nested n levels deep costs n nodes however many columns, fields and
 * schema snapshots use it, not a copy per use (which, levels inside levels,
 * grows with the product of the nesting). eng_type_free drops one reference
 * and frees a node when its last one goes.
 *
 * Values are always in native-protocol serialization (facts §2): the body
 * of a [bytes], no length prefix. Collections, tuples and UDTs use the v4
 * format (int32 counts, int32-length-prefixed elements).
 */
#ifndef ENG_TYPES_H
#define ENG_TYPES_H

#include <stdatomic.h>

#include "engine/value/common.h"

/* Type kinds are the native protocol's [option] ids (facts §2.2, §2.3). */
enum eng_kind {
    ENG_CUSTOM = 0x0000,
    ENG_ASCII = 0x0001,
    ENG_BIGINT = 0x0002,
    ENG_BLOB = 0x0003,
    ENG_BOOLEAN = 0x0004,
    ENG_COUNTER = 0x0005,
    ENG_DECIMAL = 0x0006,
    ENG_DOUBLE = 0x0007,
    ENG_FLOAT = 0x0008,
    ENG_INT = 0x0009,
    ENG_TIMESTAMP = 0x000B,
    ENG_UUID = 0x000C,
    ENG_TEXT = 0x000D, /* varchar is an alias */
    ENG_VARINT = 0x000E,
    ENG_TIMEUUID = 0x000F,
    ENG_INET = 0x0010,
    ENG_DATE = 0x0011,
    ENG_TIME = 0x0012,
    ENG_SMALLINT = 0x0013,
    ENG_TINYINT = 0x0014,
    ENG_DURATION = 0x0015,
    ENG_LIST = 0x0020,
    ENG_MAP = 0x0021,
    ENG_SET = 0x0022,
    ENG_UDT = 0x0030,
    ENG_TUPLE = 0x0031,
};

/*
 * Most levels a type may nest: int is one level, list<int> two, a user type
 * whose one field is frozen<t1> with t1 (a int) three. Not Cassandra's limit
 * (it has none; its own bound is the JVM stack): every walk over a type, and
 * over a value of it, recurses once per level, so the schema refuses a deeper
 * type with a clear error instead of letting a value of it exhaust the stack,
 * and the catalog reads a deeper stored type as corrupt. At this depth the
 * deepest walk, validating a value, takes under half a megabyte of stack
 * (a megabyte and a half under AddressSanitizer).
 */
#define ENG_MAX_TYPE_DEPTH 2048

typedef struct eng_type eng_type;
struct eng_type {
    uint16_t kind;    /* enum eng_kind */
    uint8_t frozen;   /* declared frozen<...>; tuples are always frozen */
    uint16_t n_sub;   /* number of children */
    eng_type **sub;   /* list/set: [element]; map: [key, value]; tuple: components;
                         udt: field types in declared order */
    char **fields;    /* udt: field names (n_sub of them), else NULL */
    char *ks;         /* udt: keyspace; else NULL */
    char *name;       /* udt: type name; custom: Java class name; else NULL */
    /* Sharing (types.c): when base is set, sub, fields, ks and name above are base's, borrowed
       while this node holds its reference on base. */
    eng_type *base;
    _Atomic uint32_t shares; /* references beyond the first: a zeroed descriptor has one owner */
    uint32_t levels;         /* eng_type_depth, kept by the constructors (0 in a static scalar) */
    uint32_t tree_size;      /* eng_type_tree_size, likewise */
    uint64_t kinds;          /* bit k set when kind k occurs in the type (likewise; all kinds
                                are below 64), so eng_type_contains_kind never walks it */
};

/* ---- construction (NULL on OOM or bad arguments; constructors taking children
 *      take ownership of them, also on failure). Collections, tuples and UDTs
 *      given as list/set/map/tuple children are marked frozen, as Cassandra
 *      freezes every nested type. ---- */
eng_type *eng_type_new(int kind);                       /* scalar kinds only */
eng_type *eng_type_new_list(eng_type *elem, int frozen);
eng_type *eng_type_new_set(eng_type *elem, int frozen);
eng_type *eng_type_new_map(eng_type *key, eng_type *value, int frozen);
eng_type *eng_type_new_tuple(eng_type **comps, int n); /* takes the array's elements, not the array */
/* names[i] and types[i] are taken over; ks and name are copied */
eng_type *eng_type_new_udt(const char *ks, const char *name, char **names, eng_type **types, int n,
                           int frozen);
eng_type *eng_type_new_custom(const char *class_name);
/*
 * A new top node equal to t, whose own fields (frozen) the caller may change;
 * everything below it is shared with t, immutable, and stays alive as long as
 * the copy does. Constant time. t must come from the constructors (or be a
 * scalar): a static descriptor with children or names cannot be shared.
 */
eng_type *eng_type_dup(const eng_type *t);
/* Another reference to t itself, released by eng_type_free (same condition on t). */
eng_type *eng_type_ref(const eng_type *t);
/* Drops one reference; the last frees the node and drops its references on the rest. */
void eng_type_free(eng_type *t);

/* Levels the type nests, itself included (1 for a scalar); constant time. */
uint32_t eng_type_depth(const eng_type *t);
/*
 * Descriptors the type has written out as a tree, each use of a user type
 * expanded (as Cassandra's expandUserTypes and the protocol's type options
 * spell it), saturating at UINT32_MAX; constant time. A type whose fields
 * use one user type twice, level after level, is small shared but doubles
 * in this size per level.
 */
uint32_t eng_type_tree_size(const eng_type *t);

/* Structural equality (kind, frozenness, children, udt names and fields). */
int eng_type_equal(const eng_type *a, const eng_type *b);

/* CQL name of a scalar kind ("int", "text", ...), NULL for non-scalars. */
const char *eng_kind_name(int kind);
/* Scalar kind from a CQL name, case-insensitive ("varchar" gives ENG_TEXT); -1 if unknown. */
int eng_kind_from_name(const char *name, size_t len);

/*
 * Appends the type as Cassandra writes it in system_schema and DESCRIBE:
 * "int", "list<text>", "frozen<map<text, int>>", a UDT by its name
 * (double-quoted when it needs quoting), "frozen<address>". Tuples are
 * written "frozen<tuple<int, text>>" (CQL3Type.Tuple.toString always wraps
 * them), and collections/UDTs nested in another type always as frozen<>.
 */
void eng_type_to_cql(const eng_type *t, eng_buf *out);

/*
 * Appends an identifier as Cassandra's ColumnIdentifier.maybeQuote writes it
 * (the rule eng_type_to_cql uses for UDT names): bare when it matches
 * [a-z][a-z0-9_]* and is not a reserved keyword, else double-quoted with
 * embedded double quotes doubled.
 */
void eng_type_put_ident(eng_buf *out, const char *name);

int eng_type_is_collection(const eng_type *t);  /* list, set or map */
int eng_type_is_multicell(const eng_type *t);   /* non-frozen collection or non-frozen UDT */
int eng_type_is_counter(const eng_type *t);
/* 1 if the type (or anything inside it) is a counter / duration. */
int eng_type_contains_kind(const eng_type *t, int kind);

/*
 * Checks that bytes are a valid value of the type (facts §2.2/§2.3): on
 * failure reports ENG_E_INVALID with Cassandra's MarshalException text
 * ("Expected 4 or 0 byte int (8)", "String didn't validate.", ...).
 * Nested values are checked recursively; null elements inside collections
 * are refused ("null is not supported inside collections").
 */
int eng_type_validate(const eng_type *t, const uint8_t *p, size_t len, eng_err *err);

/*
 * Cassandra's comparison (facts §3): <0, 0, >0. Empty values sort first.
 * Both inputs must have been validated. Uses the base (ASC) order; callers
 * negate for DESC.
 */
int eng_type_compare(const eng_type *t, const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen);

/*
 * Canonical stored form: sets sorted by element order and de-duplicated, maps
 * sorted by key and de-duplicated (last value for a key wins), recursively
 * inside every nested collection, tuple and UDT; other values copied as they
 * are. Input must be valid.
 */
int eng_type_canonicalize(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out,
                          eng_err *err);

/*
 * Binary form persisted in the catalog: kind (be16), frozen (u8), then per
 * kind: children, or for a UDT only its keyspace and name (resolved at load
 * time through `resolve`, so ALTER TYPE reaches every column using it).
 */
void eng_type_serialize(const eng_type *t, eng_buf *out);
typedef const eng_type *(*eng_udt_resolver)(void *ctx, const char *ks, const char *name);
eng_type *eng_type_deserialize(const uint8_t **pp, const uint8_t *end, eng_udt_resolver resolve,
                               void *ctx, eng_err *err);

/* ---- small readers for collection framing (v4: int32 counts and lengths) ---- */

/* Iterates the [bytes] items of a collection/tuple body. */
typedef struct eng_items {
    const uint8_t *p, *end;
} eng_items;
/* For list/set/map bodies: reads the element count; returns -1 if truncated. */
int32_t eng_items_begin(eng_items *it, const uint8_t *p, size_t len);
/* For tuple/UDT bodies (no count). */
void eng_items_begin_raw(eng_items *it, const uint8_t *p, size_t len);
/* Next item: 1 and *out set (len ENG_NULL for a null), 0 at the end, -1 if malformed. */
int eng_items_next(eng_items *it, eng_val *out);

#endif
