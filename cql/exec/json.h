/*
 * JSON in CQL: SELECT JSON and toJson() output (AbstractType.toJSONString
 * per type), fromJson() and INSERT JSON input (fromJSONObject per type over
 * the object model Jackson builds), with Cassandra's texts (cql3/Json.java,
 * db/marshal/...Type, cql3/functions/FromJsonFct; JsonTest is the reference
 * for the behaviour).
 *
 * Output in brief: numbers bare (floats as Java prints them, NaN and
 * infinities as null), text quoted and escaped like Jackson, blobs
 * "0x..", timestamps "2021-01-01 00:00:00.000Z", dates, times, uuids,
 * inets and durations quoted, lists/sets/tuples as arrays, maps and UDTs as
 * objects (map keys always strings: a non-string key is written as its JSON
 * and then quoted), an empty value as its type writes it ("" for numbers).
 *
 * Input: a small JSON tokenizer of our own that accepts what Jackson's
 * default ObjectMapper accepts (no comments, no NaN, no leading zeros;
 * integers are Integer, Long or BigInteger by size, other numbers Double;
 * duplicate keys keep the last value; anything after the first value is
 * ignored) and never reads outside its input. Parser error texts follow
 * Jackson's in spirit only (class name and main message, no exact location).
 *
 * Thread-safe: no global state.
 */
#ifndef CQL_JSON_H
#define CQL_JSON_H

#include "cql/exec/literal.h"

/* The one column of SELECT JSON (Json.JSON_COLUMN_ID); also the INSERT JSON marker's name. */
#define CQL_JSON_COLUMN "[json]"

/*
 * Appends the JSON of a non-null value (toJSONString). A value that does
 * not decode for its type (it cannot come out of validated storage) fails.
 * @return 0, ENG_E_INVALID, ENG_E_NOMEM.
 */
int cql_json_value(const eng_type *t, const uint8_t *p, size_t len, eng_buf *out, eng_err *err);

/* toJson(): the value's JSON, "null" for a null. */
int cql_json_to_json(const eng_type *t, eng_val v, eng_buf *out, eng_err *err);

/*
 * The [json] value of one SELECT JSON row: {"name": value, ...} in column
 * order, null for a null; a name that is not all lower case is written
 * quoted ("\"Foo\""), as Cassandra does so that it reads back.
 */
int cql_json_row(const char *const *names, const eng_type *const *types, const eng_val *vals, int n,
                 eng_buf *out, eng_err *err);

/*
 * fromJSONObject of JSON text: the value of type t (appended to out), or
 * *state CQL_VALUE_NULL for JSON null. Errors carry the bare
 * MarshalException text ("Unable to make int from 'x'", "Expected a list,
 * but got a Integer: 1") or, for text that is not JSON, "Could not decode
 * JSON string '%s': <Jackson exception>" (ENG_E_INVALID).
 */
int cql_json_decode(const eng_type *t, const char *json, size_t len, eng_buf *out, int *state,
                    eng_err *err);

/*
 * The fromJson() function: cql_json_decode with the failure wrapped as
 * FromJsonFct does, ENG_E_FUNCTION_FAILURE "execution of
 * 'system.fromjson[text]' failed: ...".
 */
int cql_json_from_json(const eng_type *t, const char *json, size_t len, eng_buf *out, int *state,
                       eng_err *err);

/* A receiving column of INSERT JSON. */
typedef struct cql_json_column {
    const char *name; /* as declared (case preserved) */
    const eng_type *type;
} cql_json_column;

/*
 * INSERT JSON: the object's members matched to columns (a key is lower
 * cased unless it is written in double quotes, "\"MyCol\""), each value
 * decoded for its column into vals[i] (appended) with states[i] CQL_VALUE,
 * CQL_VALUE_NULL for an explicit null, and for a missing column
 * CQL_VALUE_NULL or, with default_unset (DEFAULT UNSET), CQL_VALUE_UNSET.
 * Errors: "Could not decode JSON string as a map: %s. (String was: %s)",
 * "Got null for INSERT JSON values", "JSON values map contains
 * unrecognized column: %s", "Error decoding JSON value for %s: %s".
 */
int cql_json_insert_values(const char *json, size_t len, const cql_json_column *cols, int n_cols,
                           int default_unset, eng_buf *vals, int *states, eng_err *err);

/*
 * The same object as (column name, value text) pairs, names already case
 * handled, in the order Cassandra's map iterates them; value is the member's
 * JSON text ("null" for a null), usable with cql_json_decode.
 * Ownership: free with cql_json_fields_free.
 */
typedef struct cql_json_field {
    char *name;
    char *value;
    size_t value_len;
} cql_json_field;
int cql_json_object_fields(const char *json, size_t len, cql_json_field **out, int *n,
                           eng_err *err);
void cql_json_fields_free(cql_json_field *fields, int n);

#endif
