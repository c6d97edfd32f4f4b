/*
 * Building and reading row keys (layout in rowkey.h). Key values arrive in
 * native serialization; this is where Cassandra's key checks happen
 * (facts §1.5: null, empty single-column partition key, 65535-byte limit)
 * and where LMDB's 511-byte key limit is turned into a clear refusal.
 */
#include "engine/store/rowkey.h"

#include "engine/store/keycodec.h"
#include "engine/value/token.h"


uint64_t eng_storage_prefix_seal(const eng_table *t, const uint8_t *prefix, size_t len)
{
    return XXH3_64bits_withSeed(prefix, len, eng_be64(t->id) ^ eng_be64(t->id + 8));
}

uint64_t eng_storage_seal(const eng_table *t, const uint8_t *key, size_t len)
{
    const uint8_t *p = key;
    if (eng_key_get_partition(&p, key + len, NULL, NULL, NULL))
        /* no partition prefix to be found: a seal no stored value was sealed with */
        return ~eng_storage_prefix_seal(t, key, len);
    size_t plen = (size_t)(p - key);
    return eng_storage_row_seal(eng_storage_prefix_seal(t, key, plen), key + plen, len - plen);
}

int eng_storage_check_key(size_t len, eng_err *err)
{
    if (len > ENG_MAX_KEY)
        return eng_errorf(err, ENG_E_INVALID,
                          "Key too large: the encoded partition and clustering key takes %zu "
                          "bytes, more than the storage limit of %d bytes",
                          len, ENG_MAX_KEY);
    return 0;
}

int eng_storage_partition(eng_buf *out, const eng_table *t, const eng_val *pk, eng_buf *pk_bytes,
                          eng_err *err)
{
    for (int i = 0; i < t->n_pk; i++) {
        if (pk[i].len < 0)
            return eng_errorf(err, ENG_E_INVALID, "Invalid %s value for partition key part %s",
                              pk[i].len == ENG_UNSET ? "unset" : "null", t->cols[i].name);
        if (pk[i].len > 65535)
            return eng_errorf(err, ENG_E_INVALID,
                              "Key length of %d is longer than maximum of 65535", pk[i].len);
    }
    eng_buf local = ENG_BUF_INIT;
    eng_buf *kb = pk_bytes ? pk_bytes : &local;
    size_t start = kb->len;
    eng_partition_key_compose(kb, pk, t->n_pk);
    int rc = 0;
    if (kb->oom) {
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory building a key");
    } else if (kb->len == start) {
        rc = eng_errorf(err, ENG_E_INVALID, "Key may not be empty");
    } else if (kb->len - start > 65535) {
        rc = eng_errorf(err, ENG_E_INVALID, "Key length of %zu is longer than maximum of 65535",
                        kb->len - start);
    } else {
        const uint8_t *key = kb->p + start;
        size_t n = kb->len - start;
        eng_key_put_partition(out, eng_token(key, n), key, n);
        if (out->oom)
            rc = eng_errorf(err, ENG_E_NOMEM, "out of memory building a key");
    }
    eng_buf_free(&local);
    return rc;
}

int eng_storage_clustering(eng_buf *out, const eng_table *t, const eng_val *ck, int n,
                           eng_err *err)
{
    for (int i = 0; i < n; i++) {
        const eng_column *c = &t->cols[t->n_pk + i];
        if (ck[i].len < 0)
            return eng_errorf(err, ENG_E_INVALID, "Invalid %s value for clustering column %s",
                              ck[i].len == ENG_UNSET ? "unset" : "null", c->name);
        if (ck[i].len > 65535)
            return eng_errorf(err, ENG_E_INVALID,
                              "Key length of %d is longer than maximum of 65535", ck[i].len);
        int rc = eng_key_put(out, c->type, ck[i].p, (size_t)ck[i].len, eng_ck_desc(t, i), err);
        if (rc)
            return rc;
    }
    return out->oom ? eng_errorf(err, ENG_E_NOMEM, "out of memory building a key") : 0;
}

/*
 * What a key decodes to must be a valid value of its column's type (a time
 * UUID of version 1, text in UTF-8, ...): a key that decodes but holds
 * anything else was damaged, or written by something that is not cassette.
 */
static int validate_key_values(const eng_table *t, int first, const eng_val *vals, int n,
                               eng_err *err)
{
    for (int i = 0; i < n; i++) {
        const eng_column *c = &t->cols[first + i];
        eng_err e;
        eng_err_clear(&e);
        if (vals[i].len > 0 && eng_type_validate(c->type, vals[i].p, (size_t)vals[i].len, &e))
            return eng_errorf(err, ENG_E_CORRUPT,
                              "database file is corrupted (a stored key holds an invalid %s "
                              "for %s: %s)",
                              eng_kind_name(c->type->kind), c->name, e.msg);
    }
    return 0;
}

static int decode_clustering(const eng_table *t, const uint8_t *p, const uint8_t *end,
                             eng_buf *scratch, eng_val *ck, int validate, eng_err *err);

int eng_storage_decode_clustering(const eng_table *t, const uint8_t *p, const uint8_t *end,
                                  eng_buf *scratch, eng_val *ck, eng_err *err)
{
    return decode_clustering(t, p, end, scratch, ck, 1, err);
}

int eng_storage_decode_clustering_sealed(const eng_table *t, const uint8_t *p,
                                         const uint8_t *end, eng_buf *scratch, eng_val *ck,
                                         eng_err *err)
{
    return decode_clustering(t, p, end, scratch, ck, 0, err);
}

static int decode_clustering(const eng_table *t, const uint8_t *p, const uint8_t *end,
                             eng_buf *scratch, eng_val *ck, int validate, eng_err *err)
{
    size_t offs[ENG_MAX_KEY_COLUMNS];
    int n = t->n_ck;
    if (n > ENG_MAX_KEY_COLUMNS)
        return eng_errorf(err, ENG_E_SERVER, "too many clustering columns");
    for (int i = 0; i < n; i++) {
        const eng_type *ty = t->cols[t->n_pk + i].type;
        offs[i] = scratch->len;
        uint8_t fixed[16];
        int w = eng_key_get_fixed(ty, &p, end, eng_ck_desc(t, i), fixed);
        if (w < 0)
            w = 0; /* damage: the general decoder reads it again and says what is wrong */
        if (w == ENG_KEY_EMPTY) {
            ck[i].len = 0;
            continue;
        }
        if (w) {
            eng_buf_put(scratch, fixed, (size_t)w);
        } else {
            int rc = eng_key_get(ty, &p, end, eng_ck_desc(t, i), scratch, err);
            if (rc)
                return rc;
        }
        ck[i].len = (int32_t)(scratch->len - offs[i]);
    }
    if (scratch->oom)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory decoding a key");
    /* Views are set once the buffer stopped moving. */
    for (int i = 0; i < n; i++)
        ck[i].p = scratch->p + offs[i];
    return validate ? validate_key_values(t, t->n_pk, ck, n, err) : 0;
}

int eng_storage_split_partition(const eng_table *t, const uint8_t *pk_bytes, size_t len,
                                eng_val *pk, eng_err *err)
{
    int rc = eng_partition_key_split(pk_bytes, len, pk, t->n_pk, err);
    return rc ? rc : validate_key_values(t, 0, pk, t->n_pk, err);
}

int eng_storage_slice(const eng_table *t, const eng_slice *s, eng_buf *lo, int *lo_incl,
                      eng_buf *hi, int *hi_incl, eng_err *err)
{
    const eng_bound *first = &s->start, *last = &s->end;
    if (eng_storage_reversed(t)) {
        first = &s->end;
        last = &s->start;
    }
    int rc = eng_storage_clustering(lo, t, first->vals, first->n, err);
    if (!rc)
        rc = eng_storage_clustering(hi, t, last->vals, last->n, err);
    *lo_incl = first->n == 0 || first->inclusive;
    *hi_incl = last->n == 0 || last->inclusive;
    return rc;
}

int eng_storage_successor(eng_buf *p)
{
    while (p->len > 0 && p->p[p->len - 1] == 0xFF)
        p->len--;
    if (p->len == 0)
        return 0;
    p->p[p->len - 1]++;
    return 1;
}
