/*
 * Fuzz target for the stored-row and partition-header decoders (engine/store/row.c).
 *
 * The checksum in front of a stored value is left out on purpose: the fuzzer would spend
 * its time failing it, and its format is not this target's business. The bodies are fed
 * through eng_row_decode_body / eng_pheader_decode_body, which decode what follows a
 * checksum that held.
 *
 * Input: a mode byte, then
 *  - row / header body mode: arbitrary bytes. Decoding may fail (ENG_E_CORRUPT) but never
 *    reads outside them; a row that decodes is handed to the row logic (live data, purge,
 *    merge with itself) and must survive a round trip through eng_row_encode and the
 *    checked eng_row_decode unchanged (likewise a header);
 *  - round-trip mode: a row (or header) built from the input with the invariants row.h
 *    states (cells in (column, path) order, tombstones without values, live counters of
 *    8 bytes, TTLs in 1..INT32_MAX), any timestamps; encode then decode gives it back
 *    field for field, and so does the merge of two such rows.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/store/row.h"
#include "fuzz.h"

/* ---- equality of decoded rows and headers ---- */

static int val_eq(const eng_val *a, const eng_val *b)
{
    if (a->len != b->len)
        return 0;
    return a->len <= 0 || memcmp(a->p, b->p, (size_t)a->len) == 0;
}

static int deletion_eq(const eng_deletion *a, const eng_deletion *b)
{
    return a->ts_us == b->ts_us && (a->ts_us == ENG_TS_NONE || a->ldt_s == b->ldt_s);
}

static int cell_eq(const eng_cell *a, const eng_cell *b)
{
    return a->col == b->col && a->flags == b->flags && a->ts_us == b->ts_us &&
           a->ttl_s == b->ttl_s && a->ldt_s == b->ldt_s && val_eq(&a->path, &b->path) &&
           val_eq(&a->value, &b->value);
}

static void check_row_eq(const eng_row *a, const eng_row *b, const char *what)
{
    if (a->marker.ts_us != b->marker.ts_us || a->marker.ttl_s != b->marker.ttl_s ||
        (a->marker.ttl_s > 0 && a->marker.expiry_s != b->marker.expiry_s))
        fz_fail("row: %s changes the marker", what);
    if (!deletion_eq(&a->deletion, &b->deletion))
        fz_fail("row: %s changes the row deletion", what);
    if (a->n_cdels != b->n_cdels)
        fz_fail("row: %s changes the complex deletions", what);
    for (uint32_t i = 0; i < a->n_cdels; i++)
        if (a->cdels[i].col != b->cdels[i].col || !deletion_eq(&a->cdels[i].del, &b->cdels[i].del))
            fz_fail("row: %s changes complex deletion %u", what, i);
    if (a->n_cells != b->n_cells)
        fz_fail("row: %s changes the cell count (%u, %u)", what, a->n_cells, b->n_cells);
    for (uint32_t i = 0; i < a->n_cells; i++)
        if (!cell_eq(&a->cells[i], &b->cells[i]))
            fz_fail("row: %s changes cell %u", what, i);
}

/* Any seal will do (eng_storage_seal hashes a table and a key); the other one must not. */
#define SEAL UINT64_C(0x6a09e667f3bcc908)
#define OTHER_SEAL (SEAL ^ 1)

/* encode then decode (checksum and all) gives the row back; under another key's seal the
   same bytes are damage. */
static void check_row_round_trip(const eng_row *r, eng_arena *a)
{
    eng_buf buf = ENG_BUF_INIT;
    eng_row_encode(r, SEAL, &buf);
    if (buf.oom)
        fz_fail("row: out of memory encoding");
    eng_row back;
    eng_err err;
    eng_err_clear(&err);
    if (eng_row_decode(buf.p, buf.len, SEAL, &back, a, &err) != 0)
        fz_fail("row: an encoded row does not decode: %s", err.msg);
    eng_row other;
    if (eng_row_decode(buf.p, buf.len, OTHER_SEAL, &other, a, &err) != ENG_E_CORRUPT)
        fz_fail("row: an encoded row decodes under another key");
    check_row_eq(r, &back, "encode and decode");
    eng_buf_free(&buf);
}

static void check_header_round_trip(const eng_pheader *h, eng_arena *a)
{
    eng_buf buf = ENG_BUF_INIT;
    eng_pheader_encode(h, SEAL, &buf);
    eng_pheader back;
    eng_err err;
    eng_err_clear(&err);
    if (buf.oom || eng_pheader_decode(buf.p, buf.len, SEAL, &back, a, &err) != 0)
        fz_fail("header: an encoded header does not decode: %s", err.msg);
    eng_pheader other;
    if (eng_pheader_decode(buf.p, buf.len, OTHER_SEAL, &other, a, &err) != ENG_E_CORRUPT)
        fz_fail("header: an encoded header decodes under another key");
    if (!deletion_eq(&h->partition_del, &back.partition_del) || h->n_rts != back.n_rts)
        fz_fail("header: encode and decode change the header");
    for (uint32_t i = 0; i < h->n_rts; i++) {
        const eng_range_tomb *x = &h->rts[i], *y = &back.rts[i];
        if (!val_eq(&x->lo, &y->lo) || !val_eq(&x->hi, &y->hi) || x->lo_incl != y->lo_incl ||
            x->hi_incl != y->hi_incl || x->del.ts_us != y->del.ts_us ||
            x->del.ldt_s != y->del.ldt_s)
            fz_fail("header: encode and decode change range tombstone %u", i);
    }
    eng_buf_free(&buf);
}

/* What reads and writes do with a row: none of it may fail on a decoded one. */
static void exercise_row(const eng_row *r, int64_t now_s, eng_arena *a)
{
    eng_deletion none = {ENG_TS_NONE, ENG_LDT_LIVE};
    (void)eng_row_has_live_data(r, &none, now_s);
    eng_row merged;
    eng_err err;
    eng_err_clear(&err);
    if (eng_row_merge(r, r, &merged, a, &err) != 0 && err.code != ENG_E_NOMEM)
        fz_fail("row: merge with itself fails: %s", err.msg);
    check_row_round_trip(r, a);
    /* purge works in place: on a copy of the arrays */
    eng_row copy = *r;
    copy.cells = r->n_cells ? eng_arena_memdup(a, r->cells, r->n_cells * sizeof *r->cells) : NULL;
    copy.cdels = r->n_cdels ? eng_arena_memdup(a, r->cdels, r->n_cdels * sizeof *r->cdels) : NULL;
    if ((r->n_cells && !copy.cells) || (r->n_cdels && !copy.cdels))
        return;
    (void)eng_row_purge(&copy, &none, now_s, now_s - 864000);
    check_row_round_trip(&copy, a);
}

/* ---- rows and headers built from the input ---- */

static int64_t take_i64(fz_input *in)
{
    uint8_t width = fz_u8(in) & 3; /* 1, 2, 4 or 8 bytes: small deltas and extremes alike */
    int bytes = 1 << width;
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | fz_u8(in);
    if (bytes < 8 && (v >> (8 * bytes - 1)) & 1)
        v |= ~UINT64_C(0) << (8 * bytes); /* sign-extend */
    return (int64_t)v;
}

static int64_t take_ts(fz_input *in)
{
    int64_t ts = take_i64(in);
    return ts == ENG_TS_NONE ? ts + 1 : ts;
}

static int32_t take_ttl(fz_input *in)
{
    uint32_t t = (uint32_t)take_i64(in) & 0x7FFFFFFFu;
    return t ? (int32_t)t : 1;
}

static eng_val take_bytes(fz_input *in, size_t max)
{
    const uint8_t *p;
    size_t n = fz_take(in, fz_u8(in) % (max + 1), &p);
    eng_val v = {p, (int32_t)n};
    return v;
}

static int cmp_position(const void *x, const void *y)
{
    return eng_cell_position_cmp(x, y);
}

static void build_row(fz_input *in, eng_row *r, eng_arena *a)
{
    eng_row_init(r);
    uint8_t flags = fz_u8(in);
    if (flags & 1) {
        r->marker.ts_us = take_ts(in);
        if (flags & 2) {
            r->marker.ttl_s = take_ttl(in);
            r->marker.expiry_s = take_i64(in);
        }
    }
    if (flags & 4) {
        r->deletion.ts_us = take_ts(in);
        r->deletion.ldt_s = take_i64(in);
    }
    uint32_t n_cdels = (flags >> 3) & 3;
    if (n_cdels) {
        r->cdels = eng_arena_alloc(a, n_cdels * sizeof *r->cdels);
        uint32_t col = 0;
        for (uint32_t i = 0; r->cdels && i < n_cdels; i++) {
            col += (i ? 1 : 0) + fz_u8(in) % 40;
            r->cdels[i].col = col;
            r->cdels[i].del.ts_us = take_i64(in);
            r->cdels[i].del.ldt_s = take_i64(in);
        }
        r->n_cdels = r->cdels ? n_cdels : 0;
    }
    uint32_t n = fz_u8(in) % 12;
    eng_cell *cells = n ? eng_arena_alloc(a, n * sizeof *cells) : NULL;
    if (!cells)
        return;
    for (uint32_t i = 0; i < n; i++) {
        eng_cell *c = &cells[i];
        uint8_t h = fz_u8(in);
        c->col = h & 0x80 ? (uint32_t)take_i64(in) : h % 20;
        c->flags = fz_u8(in) & 7;
        if (c->flags & ENG_CELL_TOMBSTONE)
            c->flags &= (uint8_t)~ENG_CELL_EXPIRING;
        c->ts_us = take_i64(in);
        c->ttl_s = 0;
        c->ldt_s = ENG_LDT_LIVE;
        if (c->flags & ENG_CELL_EXPIRING) {
            c->ttl_s = take_ttl(in);
            c->ldt_s = take_i64(in);
        } else if (c->flags & ENG_CELL_TOMBSTONE) {
            c->ldt_s = take_i64(in);
        }
        c->path.p = NULL;
        c->path.len = ENG_NULL;
        if (h & 0x40)
            c->path = take_bytes(in, 20);
        c->value.p = NULL;
        c->value.len = 0;
        if (c->flags & ENG_CELL_TOMBSTONE)
            continue;
        if (c->flags & ENG_CELL_COUNTER) {
            const uint8_t *p;
            if (fz_take(in, 8, &p) < 8) {
                c->flags &= (uint8_t)~ENG_CELL_COUNTER;
                continue;
            }
            c->value.p = p;
            c->value.len = 8;
        } else {
            c->value = take_bytes(in, 40);
        }
    }
    /* (column, path) order, one cell per position */
    qsort(cells, n, sizeof *cells, cmp_position);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!kept || eng_cell_position_cmp(&cells[kept - 1], &cells[i]) != 0)
            cells[kept++] = cells[i];
    r->cells = cells;
    r->n_cells = kept;
}

static void build_header(fz_input *in, eng_pheader *h, eng_arena *a)
{
    eng_pheader_init(h);
    if (fz_u8(in) & 1) {
        h->partition_del.ts_us = take_ts(in);
        h->partition_del.ldt_s = take_i64(in);
    }
    uint32_t n = fz_u8(in) % 6;
    h->rts = n ? eng_arena_alloc(a, n * sizeof *h->rts) : NULL;
    if (!h->rts)
        return;
    h->n_rts = n;
    for (uint32_t i = 0; i < n; i++) {
        eng_range_tomb *rt = &h->rts[i];
        uint8_t f = fz_u8(in);
        rt->lo_incl = f & 1;
        rt->hi_incl = (f >> 1) & 1;
        rt->lo = take_bytes(in, 16);
        rt->hi = take_bytes(in, 16);
        rt->del.ts_us = take_i64(in);
        rt->del.ldt_s = take_i64(in);
    }
}

/* ---- the entry point ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in = fz_input_of(data, size);
    uint8_t mode = fz_u8(&in);
    int64_t now_s = 1700000000 + (int64_t)(mode >> 4) * 100000;
    eng_arena a;
    eng_arena_init(&a, 4096);
    eng_err err;
    eng_err_clear(&err);
    switch (mode & 3) {
    case 0: {
        eng_row r;
        if (eng_row_decode_body(in.p, fz_left(&in), &r, &a, &err) == 0)
            exercise_row(&r, now_s, &a);
        else if (err.code != ENG_E_CORRUPT && err.code != ENG_E_NOMEM)
            fz_fail("row: a bad body fails with code %d", err.code);
        break;
    }
    case 1: {
        eng_pheader h;
        if (eng_pheader_decode_body(in.p, fz_left(&in), &h, &a, &err) == 0) {
            check_header_round_trip(&h, &a);
            uint8_t k[4] = {0};
            (void)eng_pheader_covering(&h, k, mode & 4 ? 4 : 0);
        } else if (err.code != ENG_E_CORRUPT && err.code != ENG_E_NOMEM) {
            fz_fail("header: a bad body fails with code %d", err.code);
        }
        break;
    }
    case 2: {
        eng_row r1, r2, merged;
        build_row(&in, &r1, &a);
        build_row(&in, &r2, &a);
        check_row_round_trip(&r1, &a);
        if (eng_row_merge(&r1, &r2, &merged, &a, &err) == 0)
            exercise_row(&merged, now_s, &a);
        else if (err.code != ENG_E_NOMEM)
            fz_fail("row: merge fails: %s", err.msg);
        break;
    }
    default: {
        eng_pheader h;
        build_header(&in, &h, &a);
        check_header_round_trip(&h, &a);
        break;
    }
    }
    eng_arena_free(&a);
    return 0;
}
