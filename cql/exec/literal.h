/*
 * Literal terms to values: the constants, collection, tuple and UDT
 * literals and bind markers of a statement turned into the native-protocol
 * serialization of the type that receives them, checked the way Cassandra
 * checks them and failing with Cassandra's messages (cql3/Constants, Lists,
 * Sets, Maps, Tuples, UserTypes; facts §2, §8.2). String constants for
 * non-text types are read with engine/value/text.h.
 *
 * Rules worth knowing before reading the code:
 * - A constant is assignable to a type by Constants.Literal.testAssignment:
 *   a STRING only to ascii, text, inet, date, time and timestamp; an
 *   INTEGER to every number type, date, time, timestamp and duration; a
 *   FLOAT to float, double and decimal; HEX only to blob. Otherwise:
 *   `Invalid INTEGER constant (0) for "k" of type text`.
 * - Bind markers are taken inside list, set, map, tuple and UDT literals,
 *   typed as the element and named `value(l)`, `key(m)` / `value(m)`,
 *   `t[0]` and `u.field`.
 * - `{}` is an empty set literal that a map also accepts.
 * - A null element of a collection is refused, an unset element (from a
 *   function) makes the whole list/set unset, an unset map key is refused.
 * - Sets and maps come out sorted and de-duplicated (eng_type_canonicalize).
 * - A string 'now' for a timestamp is the wall clock (Cassandra reads
 *   System.currentTimeMillis() there, not a query timestamp).
 * - Time zones: strings without a zone are read as UTC (Cassandra uses the
 *   JVM's default zone, UTC on every standard deployment).
 *
 * Thread-safe: no global state. Never reads outside what it is given;
 * allocation failure is ENG_E_NOMEM.
 */
#ifndef CQL_LITERAL_H
#define CQL_LITERAL_H

#include "cql/lang/ast.h"
#include "engine/value/text.h"
#include "engine/value/types.h"

/* What a term evaluated to (cql_term_value's *state). */
enum { CQL_VALUE = 0, CQL_VALUE_NULL = 1, CQL_VALUE_UNSET = 2 };

/*
 * Where a term's non-literal parts come from at execution time.
 * binds: the bound values in marker order (len ENG_NULL / ENG_UNSET for
 * null / unset); call: evaluates a function call, CAST, or a type hint whose
 * type is not a plain native type, for a receiver of type `want`, appending
 * the value to `out` and setting *state. env or call NULL: function calls
 * are refused ("Function calls are not supported here").
 */
typedef struct cql_term_env {
    const eng_val *binds;
    uint32_t n_binds;
    int (*call)(void *ctx, const cql_term *term, const eng_type *want, eng_buf *out, int *state,
                eng_err *err);
    void *ctx;
} cql_term_env;

/*
 * The value of a term assigned to a receiver of `type` named `receiver`
 * (the column name as Cassandra prints it, used in messages). Appends the
 * serialized value to `out` (nothing for null/unset) and sets *state.
 * A bound value is checked with eng_type_validate (the MarshalException
 * text on failure) and canonicalized.
 * @return 0, ENG_E_INVALID (Cassandra's message in err), ENG_E_NOMEM, or
 *         whatever env->call returned.
 * Ownership: nothing kept. Threads: any.
 */
int cql_term_value(const cql_term *t, const eng_type *type, const char *receiver,
                   const cql_term_env *env, eng_buf *out, int *state, eng_err *err);

/*
 * Prepare-time walk of a term that will be assigned to `type`: reports each
 * bind marker with the type and name Cassandra gives it (facts §2.6: the
 * receiver's name; `t[i]` in a tuple literal, `u.f` in a UDT literal,
 * `value(l)`, `key(m)`, `value(m)` in collection literals; a
 * marker inside a type hint gets the receiver) and fails on whatever
 * Cassandra refuses at prepare time: constants not assignable or not
 * parsable, literal shape errors.
 * Markers inside function calls are left to the function layer. `name`
 * passed to record is only valid during the call.
 */
int cql_term_bind_types(const cql_term *t, const eng_type *type, const char *receiver,
                        void (*record)(void *ctx, const cql_term *marker, const eng_type *type,
                                       const char *name),
                        void *ctx, eng_err *err);

/* AssignmentTestable.TestResult of a term for a type (function overloads). */
enum { CQL_NOT_ASSIGNABLE = 0, CQL_WEAKLY_ASSIGNABLE = 1, CQL_EXACT_MATCH = 2 };
int cql_term_test_assignment(const cql_term *t, const eng_type *type);

/* Appends the term as Cassandra prints it in messages (Term.Raw.getText). */
void cql_term_text(const cql_term *t, eng_buf *out);

#endif
