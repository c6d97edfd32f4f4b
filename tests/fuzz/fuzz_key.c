/*
 * Fuzz target for the order-preserving key codec (engine/store/keycodec.c), over every
 * type a key column can have (fz_key_type).
 *
 * Input: a type choice, a flags byte, then
 *  - decode mode: arbitrary bytes handed to eng_key_get and eng_key_skip. They may fail
 *    (ENG_E_CORRUPT) but never read outside the input; when they succeed they agree on the
 *    length read, and encoding the value decoded gives back exactly the bytes read (the
 *    codec accepts nothing it would not produce);
 *  - pair mode: two values made from the input (fz_gen_value). Each valid one encodes,
 *    decodes to a value equal to it (eng_type_compare) whose encoding is the same bytes,
 *    and the two encodings, concatenated, decode one after the other (prefix-free). The
 *    memcmp order of the encodings is eng_type_compare's order (reversed for DESC), bar
 *    the one exception keycodec.h documents: a tuple or UDT with a trailing empty
 *    component, which Cassandra's comparator calls equal to the same value without it
 *    (anywhere inside either value: it reorders the collections holding it too).
 */
#include <string.h>

#include "engine/store/keycodec.h"
#include "fuzz.h"

static int sign(int c)
{
    return (c > 0) - (c < 0);
}

static void check_decode(const eng_type *t, int desc, fz_input *in)
{
    const uint8_t *start = in->p, *p = in->p, *q = in->p;
    eng_buf out = ENG_BUF_INIT, again = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    int rc = eng_key_get(t, &p, in->end, desc, &out, &err);
    eng_err_clear(&err);
    int skip_rc = eng_key_skip(t, &q, in->end, desc, &err);
    if (rc == 0) {
        if (skip_rc != 0 || q != p)
            fz_fail("key: eng_key_skip disagrees with eng_key_get (rc %d)", skip_rc);
        /* The codec is exact about bytes, not about values: what it decodes need not
           validate (text that is not UTF-8, an empty list). Keys are only ever encoded
           from validated values, and stored ones are checked by their checksum. */
        eng_err_clear(&err);
        if (eng_key_put(&again, t, out.p, out.len, desc, &err) != 0)
            fz_fail("key: a decoded value does not encode: %s", err.msg);
        if (again.len != (size_t)(p - start) || memcmp(again.p, start, again.len) != 0)
            fz_fail("key: a decoded value encodes to other bytes than were read");
    }
    eng_buf_free(&out);
    eng_buf_free(&again);
}

/* A value of t from the input, canonical (sets and maps sorted); 0 if it is not valid. */
static int make_value(const eng_type *t, fz_input *in, eng_buf *out)
{
    eng_buf raw = ENG_BUF_INIT;
    eng_err err;
    eng_err_clear(&err);
    fz_gen_value(t, in, &raw);
    int ok = !raw.oom && eng_type_validate(t, raw.p, raw.len, &err) == 0 &&
             eng_type_canonicalize(t, raw.p, raw.len, out, &err) == 0 && !out->oom;
    eng_buf_free(&raw);
    return ok;
}

/*
 * Whether the value holds, at any depth, a tuple or UDT whose trailing run of null or empty
 * components has an empty one: Cassandra's TupleType.compare ignores that run when the other
 * side has ended, the codec keeps the empty components (keycodec.h), so the two orders part
 * there, and so do the orders of every collection or tuple holding such a value.
 */
static int has_trailing_empty(const eng_type *t, const uint8_t *p, size_t len)
{
    eng_items it;
    eng_val v;
    int i = 0, run_empty = 0;
    switch (t->kind) {
    case ENG_LIST:
    case ENG_SET:
    case ENG_MAP:
        if (eng_items_begin(&it, p, len) < 0)
            return 0;
        for (; eng_items_next(&it, &v) == 1; i++) {
            const eng_type *sub = t->sub[t->kind == ENG_MAP ? i % 2 : 0];
            if (v.len > 0 && has_trailing_empty(sub, v.p, (size_t)v.len))
                return 1;
        }
        return 0;
    case ENG_TUPLE:
    case ENG_UDT:
        eng_items_begin_raw(&it, p, len);
        for (; i < t->n_sub && eng_items_next(&it, &v) == 1; i++) {
            if (v.len > 0) {
                if (has_trailing_empty(t->sub[i], v.p, (size_t)v.len))
                    return 1;
                run_empty = 0;
            } else if (v.len == 0) {
                run_empty = 1;
            }
        }
        return run_empty;
    default:
        return 0;
    }
}

static void round_trip(const eng_type *t, int desc, const eng_buf *v, eng_buf *enc)
{
    eng_err err;
    eng_err_clear(&err);
    if (eng_key_put(enc, t, v->p, v->len, desc, &err) != 0)
        fz_fail("key: a valid value does not encode: %s", err.msg);
    eng_buf dec = ENG_BUF_INIT, again = ENG_BUF_INIT;
    const uint8_t *p = enc->p;
    if (eng_key_get(t, &p, enc->p + enc->len, desc, &dec, &err) != 0)
        fz_fail("key: an encoding does not decode: %s", err.msg);
    if (p != enc->p + enc->len)
        fz_fail("key: decoding read %zu of %zu bytes", (size_t)(p - enc->p), enc->len);
    if (eng_type_compare(t, v->p, v->len, dec.p, dec.len) != 0)
        fz_fail("key: a value decodes to one that compares unequal");
    if (eng_key_put(&again, t, dec.p, dec.len, desc, &err) != 0 || again.len != enc->len ||
        memcmp(again.p, enc->p, enc->len) != 0)
        fz_fail("key: a decoded value encodes differently");
    eng_buf_free(&dec);
    eng_buf_free(&again);
}

static void check_pair(const eng_type *t, int desc, fz_input *in)
{
    eng_buf a = ENG_BUF_INIT, b = ENG_BUF_INIT, ea = ENG_BUF_INIT, eb = ENG_BUF_INIT;
    if (make_value(t, in, &a) && make_value(t, in, &b)) {
        round_trip(t, desc, &a, &ea);
        round_trip(t, desc, &b, &eb);
        /* prefix-free: a's encoding followed by b's reads back as two components */
        eng_buf both = ENG_BUF_INIT, dec = ENG_BUF_INIT;
        eng_buf_put(&both, ea.p, ea.len);
        eng_buf_put(&both, eb.p, eb.len);
        const uint8_t *p = both.p, *end = both.p + both.len;
        eng_err err;
        eng_err_clear(&err);
        if (eng_key_get(t, &p, end, desc, &dec, &err) != 0 || p != both.p + ea.len)
            fz_fail("key: an encoding followed by another does not read back alone");
        eng_buf_free(&both);
        eng_buf_free(&dec);
        int cmp = sign(eng_type_compare(t, a.p, a.len, b.p, b.len));
        size_t n = ENG_MIN(ea.len, eb.len);
        int mem = sign(memcmp(ea.p, eb.p, n));
        if (!mem)
            mem = sign((ea.len > eb.len) - (ea.len < eb.len));
        if (desc)
            mem = -mem;
        if (mem != cmp && !has_trailing_empty(t, a.p, a.len) && !has_trailing_empty(t, b.p, b.len))
            fz_fail("key: memcmp order %d but compare order %d", mem, cmp);
    }
    eng_buf_free(&a);
    eng_buf_free(&b);
    eng_buf_free(&ea);
    eng_buf_free(&eb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in = fz_input_of(data, size);
    int choice = fz_u8(&in) % fz_n_columns;
    const eng_type *t = NULL;
    for (int i = 0; !t && i < fz_n_columns; i++)
        t = fz_key_type((choice + i) % fz_n_columns);
    uint8_t flags = fz_u8(&in);
    int desc = flags & 1;
    if (flags & 2)
        check_decode(t, desc, &in);
    else
        check_pair(t, desc, &in);
    return 0;
}
