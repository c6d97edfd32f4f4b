/*
 * Fuzz target for the text forms of values: CQL literals (cql/exec/literal.c), the string
 * form of every type (engine/value/text.c: fromString and toString) and JSON
 * (cql/exec/json.c: fromJson, INSERT JSON, toJson), for every type of the fuzz schema
 * (fz_columns) and counter.
 *
 * Input: a type choice, a mode byte, then text. Per mode:
 *  - literal: the text is parsed as the term of `UPDATE t SET c = <text> WHERE k = 0` and
 *    assigned to the type (the prepare-time walk, assignability, then the value itself,
 *    with three bound values for its markers: an int, a null, an unset);
 *  - string: eng_text_from_string;
 *  - JSON: cql_json_decode, and fromJson's wrapper;
 *  - INSERT JSON: the text as the object of an INSERT JSON into every column at once.
 * Whatever comes out as a value must validate for its type and render: toString
 * (collections refuse, nothing crashes) and JSON always succeed. Text forms are stable:
 * reading back what toString wrote and writing it again gives the same text, and so does
 * JSON (what either drops on the first pass, it drops every time).
 */
#include <stdio.h>
#include <string.h>

#include "cql/exec/json.h"
#include "cql/exec/literal.h"
#include "cql/lang/parse.h"
#include "fuzz.h"

static const eng_type *type_of_choice(uint8_t choice)
{
    int i = choice % (fz_n_columns + 1);
    return i == fz_n_columns ? fz_counter_type() : fz_column_type(i);
}

static int is_scalar(const eng_type *t)
{
    return t->kind < ENG_LIST;
}

/* toString written, read back and written again gives the same text. */
static void check_string_stable(const eng_type *t, const eng_buf *v)
{
    eng_buf s1 = ENG_BUF_INIT, v2 = ENG_BUF_INIT, s2 = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    int rc = eng_text_to_string(t, v->p, v->len, &s1, &err);
    if (rc != 0) {
        if (is_scalar(t) && rc != ENG_E_NOMEM)
            fz_fail("literal: toString of a valid %s fails: %s", eng_kind_name(t->kind), err.msg);
        goto done;
    }
    eng_err_clear(&err);
    if (eng_text_from_string(t, (const char *)s1.p, s1.len, &v2, &err) != 0)
        fz_fail("literal: fromString refuses what toString wrote (%s \"%.*s\"): %s",
                eng_kind_name(t->kind), (int)s1.len, (const char *)s1.p, err.msg);
    if (s1.len == 0) /* "" reads as the empty value (the zero duration's text is "") */
        goto done;
    eng_err_clear(&err);
    if (eng_text_to_string(t, v2.p, v2.len, &s2, &err) != 0)
        fz_fail("literal: toString fails on what fromString read back: %s", err.msg);
    if (s1.len != s2.len || memcmp(s1.p, s2.p, s1.len) != 0)
        fz_fail("literal: %s text is not stable: \"%.*s\" then \"%.*s\"", eng_kind_name(t->kind),
                (int)s1.len, (const char *)s1.p, (int)s2.len, (const char *)s2.p);
done:
    eng_buf_free(&s1);
    eng_buf_free(&v2);
    eng_buf_free(&s2);
}

/* toJson written, read back and written again gives the same JSON. */
static void check_json_stable(const eng_type *t, const eng_buf *v)
{
    eng_buf j1 = ENG_BUF_INIT, v2 = ENG_BUF_INIT, j2 = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    if (cql_json_value(t, v->p, v->len, &j1, &err) != 0) {
        if (err.code != ENG_E_NOMEM)
            fz_fail("literal: toJson of a valid value fails: %s", err.msg);
        goto done;
    }
    int state = CQL_VALUE;
    eng_err_clear(&err);
    /* JSON has no NaN (toJson writes null), and null is no collection element: those fail
       to read back, as in Cassandra. Anything read back is held to stability. */
    if (cql_json_decode(t, (const char *)j1.p, j1.len, &v2, &state, &err) != 0 ||
        state != CQL_VALUE || v2.len == 0) /* "" reads as the empty value, as above */
        goto done;
    eng_err_clear(&err);
    if (eng_type_validate(t, v2.p, v2.len, &err) != 0)
        fz_fail("literal: fromJson of toJson gives an invalid value: %s", err.msg);
    eng_err_clear(&err);
    if (cql_json_value(t, v2.p, v2.len, &j2, &err) != 0)
        fz_fail("literal: toJson fails on what fromJson read back: %s", err.msg);
    /* A decimal goes through a double on the way back (Jackson reads JSON numbers as
       Double, DecimalType takes its text): "0E-42" returns as 0.0, as in Cassandra. */
    if (eng_type_contains_kind(t, ENG_DECIMAL))
        goto done;
    if (j1.len != j2.len || memcmp(j1.p, j2.p, j1.len) != 0)
        fz_fail("literal: JSON is not stable: %.*s then %.*s", (int)j1.len, (const char *)j1.p,
                (int)j2.len, (const char *)j2.p);
done:
    eng_buf_free(&j1);
    eng_buf_free(&v2);
    eng_buf_free(&j2);
}

/* Renders a value that need not be valid: errors are fine, crashes are not. */
static void render_any(const eng_type *t, const eng_buf *v)
{
    eng_buf text = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    (void)eng_text_to_string(t, v->p, v->len, &text, &err); /* p NULL when empty */
    eng_err_clear(&err);
    (void)cql_json_value(t, v->p, v->len, &text, &err);
    eng_buf_free(&text);
}

/* A value some parser produced: valid for its type, and its text forms hold. Cassandra's
   fromString turns "" into the empty value of every type, even of those whose validator
   refuses it (smallint, tinyint, date, time); and a constant given to a tuple, at the top or
   as an element of a collection literal, is not validated (`unchecked`: Constants.Literal
   skips types that are not CQL3Type.Native, and nothing checks the collection's elements
   after). Such values are only rendered. */
static void check_value(const eng_type *t, const eng_buf *v, const char *who, int unchecked)
{
    eng_err err;
    eng_err_clear(&err);
    if (v->oom)
        return;
    if (v->len == 0) {
        render_any(t, v);
        return;
    }
    if (eng_type_validate(t, v->p, v->len, &err) != 0) {
        if (unchecked) {
            render_any(t, v);
            return;
        }
        fz_fail("literal: %s produced an invalid value: %s", who, err.msg);
    }
    check_string_stable(t, v);
    check_json_stable(t, v);
}

static void record_marker(void *ctx, const cql_term *marker, const eng_type *type, const char *name)
{
    (void)ctx;
    (void)marker;
    if (!type || !name)
        fz_fail("literal: a marker is recorded without a type or name");
}

static void check_term(const eng_type *t, const char *text, size_t len)
{
    static const char head[] = "UPDATE t SET c = ", tail[] = " WHERE k = 0";
    eng_buf stmt_text = ENG_BUF_INIT, out = ENG_BUF_INIT;
    eng_buf_put(&stmt_text, head, sizeof head - 1);
    eng_buf_put(&stmt_text, text, len);
    eng_buf_put(&stmt_text, tail, sizeof tail - 1);
    eng_arena a;
    eng_arena_init(&a, 4096);
    cql_stmt *stmt = NULL;
    eng_err err;
    eng_err_clear(&err);
    if (stmt_text.oom ||
        cql_parse((const char *)stmt_text.p, stmt_text.len, &a, &stmt, &err) != 0 ||
        stmt->kind != CQL_S_UPDATE || stmt->u.update.n_sets != 1 ||
        stmt->u.update.sets[0].kind != CQL_SET_VALUE)
        goto done;
    const cql_term *term = stmt->u.update.sets[0].value;
    (void)cql_term_test_assignment(term, t);
    eng_buf printed = ENG_BUF_INIT;
    cql_term_text(term, &printed);
    eng_buf_free(&printed);
    eng_err_clear(&err);
    if (cql_term_bind_types(term, t, "c", record_marker, NULL, &err) != 0)
        goto done;
    static const uint8_t int_bytes[4] = {0, 0, 0, 42};
    const eng_val binds[3] = {{int_bytes, 4}, {NULL, ENG_NULL}, {NULL, ENG_UNSET}};
    cql_term_env env = {binds, 3, NULL, NULL};
    int state = CQL_VALUE;
    eng_err_clear(&err);
    if (cql_term_value(term, t, "c", &env, &out, &state, &err) == 0 && state == CQL_VALUE)
        check_value(t, &out, "a literal", eng_type_contains_kind(t, ENG_TUPLE));
done:
    eng_arena_free(&a);
    eng_buf_free(&stmt_text);
    eng_buf_free(&out);
}

static void check_from_string(const eng_type *t, const char *text, size_t len)
{
    eng_buf out = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    if (eng_text_from_string(t, text, len, &out, &err) == 0)
        check_value(t, &out, "fromString", 0);
    eng_buf_free(&out);
}

static void check_from_json(const eng_type *t, const char *text, size_t len, int wrapped)
{
    eng_buf out = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    int state = CQL_VALUE;
    int rc = wrapped ? cql_json_from_json(t, text, len, &out, &state, &err)
                     : cql_json_decode(t, text, len, &out, &state, &err);
    if (rc == 0 && state == CQL_VALUE)
        check_value(t, &out, "fromJson", 0);
    eng_buf_free(&out);
}

static void check_insert_json(const char *text, size_t len, int default_unset)
{
    cql_json_column cols[64];
    eng_buf vals[64]; /* one buffer per column */
    int states[64];
    int n = fz_n_columns;
    for (int i = 0; i < n; i++) {
        cols[i].name = fz_columns[i].name;
        cols[i].type = fz_column_type(i);
        eng_buf empty = ENG_BUF_INIT;
        vals[i] = empty;
    }
    eng_err err;
    eng_err_clear(&err);
    if (cql_json_insert_values(text, len, cols, n, default_unset, vals, states, &err) == 0) {
        for (int i = 0; i < n; i++)
            if (states[i] == CQL_VALUE)
                check_value(cols[i].type, &vals[i], "INSERT JSON", 0);
    }
    for (int i = 0; i < n; i++)
        eng_buf_free(&vals[i]);
    cql_json_field *fields = NULL;
    int n_fields = 0;
    eng_err_clear(&err);
    if (cql_json_object_fields(text, len, &fields, &n_fields, &err) == 0)
        cql_json_fields_free(fields, n_fields);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in = fz_input_of(data, size);
    const eng_type *t = type_of_choice(fz_u8(&in));
    uint8_t mode = fz_u8(&in);
    const char *text = (const char *)in.p;
    size_t len = fz_left(&in);
    switch (mode & 3) {
    case 0:
        check_term(t, text, len);
        break;
    case 1:
        check_from_string(t, text, len);
        break;
    case 2:
        check_from_json(t, text, len, mode & 4);
        break;
    default:
        check_insert_json(text, len, mode & 4);
        break;
    }
    return 0;
}
