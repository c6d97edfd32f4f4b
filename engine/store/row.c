/*
 * Cassandra's cell / row / partition-header model (facts §4, §6): the
 * reconciliation rules that decide between two versions of the same data,
 * the merge of an update into a stored row, liveness, purge, range tombstone
 * coverage, and the byte format of row and partition-header values in LMDB.
 *
 * Guarantees: reconciliation is Cassandra 4.0+'s and independent of the
 * clock (facts §4.2); it is commutative except between two expiring cells
 * equal in ts, expiry and value but not in TTL, where, as in Cassandra, the
 * first argument is kept. Merge is commutative and associative on the same
 * terms, so write order never matters. Decoding never reads outside its
 * input and rejects any stored value whose checksum or structure is wrong
 * with ENG_E_CORRUPT; nothing here aborts on bad bytes or on OOM.
 *
 * Stored row, format 1 (all vints are the protocol v5 vints of facts §2.4;
 * "svint" is the signed zig-zag form):
 *
 *   u8     format = 2
 *   be32   checksum: low 32 bits of XXH3_64bits_withSeed(body, seal), where
 *          the seal is the caller's hash of the table and the LMDB key the
 *          value is stored under (eng_storage_seal). The checksum so binds
 *          the value to its key: a damaged key byte, or a value read under
 *          another key or from another table's page, fails it like a
 *          damaged value byte. Four bytes suffice to catch a torn or
 *          flipped value; the row is small and hot. Format 1 (the checksum
 *          of the body alone) is still read, never written.
 *   body:
 *   u8     row flags: 0x01 base ts present, 0x02 marker, 0x04 marker has a
 *          TTL, 0x08 row deletion, 0x10 complex deletions; other bits zero
 *   svint  base ts (µs) when 0x01. It is the marker's ts if there is a
 *          marker, else the first cell's, else the row deletion's, else the
 *          first complex deletion's. base_s = base / 1e6 (C division).
 *          Every other ts is stored as svint(ts - base), every deletion time
 *          and expiring write time as svint(t - base_s), all in wrapping
 *          64-bit arithmetic, so any int64 round-trips exactly while the
 *          common case (one statement, one timestamp) costs one byte.
 *   marker: its ts is the base; with 0x04: uvint ttl (1..INT32_MAX),
 *          svint (expiry - ttl - base_s)
 *   deletion (0x08): svint (ts - base), svint (ldt - base_s)
 *   complex deletions (0x10): uvint n >= 1, then per deletion, columns
 *          strictly increasing: uvint column delta (the first: the column
 *          id), svint (ts - base), svint (ldt - base_s)
 *   cells, up to the end of the body, in strictly increasing
 *          (column, path) order:
 *     u8     header: bits 0-2 ENG_CELL_* flags, 0x08 path present,
 *            0x10 ts differs from base, bits 5-7 column delta from the
 *            previous cell (0 for the first); 7 means uvint (delta - 7) follows
 *     [uvint column delta - 7]
 *     [svint ts - base]                      when 0x10
 *     [uvint ttl, svint (expiry-ttl-base_s)] expiring
 *     [svint ldt - base_s]                   tombstone
 *     [uvint path len, path bytes]           when 0x08
 *     [uvint value len, value bytes]         unless a tombstone (live
 *                                            counters: exactly 8 bytes)
 *
 * A row of three live cells written by one INSERT (marker and cells at the
 * same ts, no TTL, small column ids and values) costs 1 + 4 + 1 + 8 bytes
 * for the row plus 2 per cell beyond the value bytes.
 *
 * Stored partition header, format 2: u8 format = 2, be32 checksum as above,
 * then u8 flags (0x01 partition deletion), [svint ts, svint ldt], uvint
 * number of range tombstones, and per range tombstone: u8 bound flags
 * (0x01 lo inclusive, 0x02 hi inclusive), uvint lo len, lo bytes, uvint hi
 * len, hi bytes, svint ts, svint ldt. Each ts / ldt is a delta from the
 * previous one stored (from 0 for the first).
 */
#include "engine/store/row.h"

#include <string.h>
/* inlined: a row is hashed on every read, and XXH3 of a short input is a few instructions */
#define XXH_INLINE_ALL
#include <xxhash.h>

#define STORED_FORMAT 2     /* the checksum is seeded with the key's seal */
#define STORED_FORMAT_V1 1  /* the checksum of the body alone: read, never written */
#define STORED_HDR_LEN 5    /* format byte + be32 checksum */

enum {
    RF_BASE = 0x01,
    RF_MARKER = 0x02,
    RF_MARKER_TTL = 0x04,
    RF_DELETION = 0x08,
    RF_CDELS = 0x10,
    RF_KNOWN = 0x1F,
};

enum {
    CH_FLAGS = 0x07, /* ENG_CELL_TOMBSTONE | ENG_CELL_EXPIRING | ENG_CELL_COUNTER */
    CH_PATH = 0x08,
    CH_TS = 0x10,
    CH_COL_SHIFT = 5,
    CH_COL_ESCAPE = 7,
};

enum { BF_LO_INCL = 0x01, BF_HI_INCL = 0x02, BF_KNOWN = 0x03 };

#define COUNTER_LEN 8
#define MV_EXPIRED_TTL INT32_MAX /* facts §4.3: the materialized-view "expired" marker */

/* Non-NULL pointer for empty values, so that no caller ever memcmp()s NULL. */
static const uint8_t empty_bytes[1];

static const eng_deletion no_deletion = {ENG_TS_NONE, ENG_LDT_LIVE};
static const eng_liveness no_marker = {ENG_TS_NONE, 0, ENG_LDT_LIVE};

/* Timestamps are opaque int64 (facts §4.8): deltas wrap instead of overflowing. */
static int64_t wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wrap_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* ---- orders and reconciliation ---- */

/* Unsigned lexicographic order, a proper prefix first (facts §4.2 d). */
static int bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = ENG_MIN(alen, blen);
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

static size_t val_len(const eng_val *v)
{
    return v->len > 0 ? (size_t)v->len : 0;
}

static int val_cmp(const eng_val *a, const eng_val *b)
{
    return bytes_cmp(a->p, val_len(a), b->p, val_len(b));
}

void eng_row_init(eng_row *r)
{
    memset(r, 0, sizeof *r);
    r->marker = no_marker;
    r->deletion = no_deletion;
}

int eng_row_is_empty(const eng_row *r)
{
    return r->marker.ts_us == ENG_TS_NONE && r->deletion.ts_us == ENG_TS_NONE &&
           r->n_cdels == 0 && r->n_cells == 0;
}

int eng_cell_position_cmp(const eng_cell *a, const eng_cell *b)
{
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    int pa = a->path.len >= 0, pb = b->path.len >= 0;
    if (!pa || !pb)
        return pa - pb;
    return val_cmp(&a->path, &b->path);
}

static int is_tombstone(const eng_cell *c)
{
    return (c->flags & ENG_CELL_TOMBSTONE) != 0;
}

static int is_expiring(const eng_cell *c)
{
    return !is_tombstone(c) && (c->flags & ENG_CELL_EXPIRING);
}

static int is_live_counter(const eng_cell *c)
{
    return !is_tombstone(c) && (c->flags & ENG_CELL_COUNTER);
}

int eng_cell_b_wins(const eng_cell *a, const eng_cell *b)
{
    int ta = is_tombstone(a), tb = is_tombstone(b);
    /* facts §6 (CASSANDRA-7346): against a live counter the tombstone wins, whatever the ts.
       Two live counters are summed by eng_row_merge; here they order like regular cells. */
    if ((is_live_counter(a) || is_live_counter(b)) && ta != tb)
        return tb;
    if (a->ts_us != b->ts_us)
        return b->ts_us > a->ts_us;
    /* facts §4.2 a: at one ts, "will be dead" (expiring or tombstone) beats live, so the
       outcome never depends on the clock at reconciliation time. */
    int da = ta || is_expiring(a), db = tb || is_expiring(b);
    if (da != db)
        return db;
    if (da) {
        if (ta != tb) /* facts §4.2 b */
            return tb;
        if (a->ldt_s != b->ldt_s) /* facts §4.2 c */
            return b->ldt_s > a->ldt_s;
    }
    /* facts §4.2 d: greater value, unsigned; a full tie keeps a (either is the same cell). */
    return val_cmp(&b->value, &a->value) > 0;
}

int eng_deletion_supersedes(const eng_deletion *a, const eng_deletion *b)
{
    return a->ts_us > b->ts_us || (a->ts_us == b->ts_us && a->ldt_s > b->ldt_s);
}

static int marker_is_expiring(const eng_liveness *l)
{
    return l->ttl_s > 0;
}

static int64_t marker_expiry(const eng_liveness *l)
{
    return marker_is_expiring(l) ? l->expiry_s : ENG_LDT_LIVE;
}

int eng_liveness_supersedes(const eng_liveness *a, const eng_liveness *b)
{
    if (a->ts_us != b->ts_us)
        return a->ts_us > b->ts_us;
    /* facts §4.3: the view "expired" marker acts as a primary key tombstone and wins a tie */
    int xa = a->ttl_s == MV_EXPIRED_TTL, xb = b->ttl_s == MV_EXPIRED_TTL;
    if (xa != xb)
        return xa;
    /* then the later expiry (a non-expiring marker never expires), else the expiring one */
    if (marker_is_expiring(a) == marker_is_expiring(b))
        return marker_expiry(a) > marker_expiry(b);
    return marker_is_expiring(a);
}

int eng_cell_is_live(const eng_cell *c, int64_t now_s)
{
    if (is_tombstone(c))
        return 0;
    return !is_expiring(c) || now_s < c->ldt_s; /* facts §4.7: dead at the expiry second */
}

int eng_liveness_is_live(const eng_liveness *l, int64_t now_s)
{
    if (l->ts_us == ENG_TS_NONE || l->ttl_s == MV_EXPIRED_TTL)
        return 0;
    return !marker_is_expiring(l) || now_s < l->expiry_s;
}

/* ---- deletions over a row ---- */

static eng_deletion superseding(const eng_deletion *a, const eng_deletion *b)
{
    return eng_deletion_supersedes(a, b) ? *a : *b;
}

/*
 * The complex deletion of column col, found by a cursor that only moves
 * forward: callers visit cells in column order.
 */
static const eng_deletion *cdel_of(const eng_row *r, uint32_t col, uint32_t *k)
{
    while (*k < r->n_cdels && r->cdels[*k].col < col)
        (*k)++;
    if (*k < r->n_cdels && r->cdels[*k].col == col)
        return &r->cdels[*k].del;
    return NULL;
}

/* Shadowed by the row-level deletion or by its column's complex deletion (facts §4.1). */
static int cell_shadowed(const eng_cell *c, const eng_deletion *row_del, const eng_deletion *cdel)
{
    return eng_deletion_deletes(row_del, c->ts_us) ||
           (cdel && eng_deletion_deletes(cdel, c->ts_us));
}

int eng_row_has_live_data(const eng_row *r, const eng_deletion *covering, int64_t now_s)
{
    eng_deletion eff = covering ? superseding(covering, &r->deletion) : r->deletion;
    if (eng_liveness_is_live(&r->marker, now_s) && !eng_deletion_deletes(&eff, r->marker.ts_us))
        return 1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->n_cells; i++) {
        const eng_cell *c = &r->cells[i];
        const eng_deletion *cdel = cdel_of(r, c->col, &k);
        if (eng_cell_is_live(c, now_s) && !cell_shadowed(c, &eff, cdel))
            return 1;
    }
    return 0;
}

/* ---- merge ---- */

/*
 * Complex deletions of the merge: per column the superseding one, kept only
 * if it supersedes the merged row deletion (a weaker one deletes nothing the
 * row deletion does not already delete).
 */
static int merge_cdels(const eng_row *x, const eng_row *y, eng_row *m, eng_arena *a,
                       eng_err *err)
{
    uint32_t i = 0, j = 0, n = 0, cap = x->n_cdels + y->n_cdels;
    if (!cap)
        return 0;
    eng_complex_del *d = eng_arena_alloc(a, cap * sizeof *d);
    if (!d)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory merging a row");
    while (i < x->n_cdels || j < y->n_cdels) {
        eng_complex_del cd;
        if (j >= y->n_cdels || (i < x->n_cdels && x->cdels[i].col < y->cdels[j].col)) {
            cd = x->cdels[i++];
        } else if (i >= x->n_cdels || y->cdels[j].col < x->cdels[i].col) {
            cd = y->cdels[j++];
        } else {
            cd = eng_deletion_supersedes(&x->cdels[i].del, &y->cdels[j].del) ? x->cdels[i]
                                                                              : y->cdels[j];
            i++;
            j++;
        }
        if (cd.del.ts_us != ENG_TS_NONE && eng_deletion_supersedes(&cd.del, &m->deletion))
            d[n++] = cd;
    }
    m->cdels = n ? d : NULL;
    m->n_cdels = n;
    return 0;
}

/* facts §6: two live counters add up (int64 wrap-around) and keep the greater ts. */
static int sum_counters(const eng_cell *x, const eng_cell *y, eng_cell *out, eng_arena *a,
                        eng_err *err)
{
    if (x->value.len != COUNTER_LEN || y->value.len != COUNTER_LEN)
        return eng_errorf(err, ENG_E_INVALID, "counter cell of column %u has a %d-byte value, "
                          "not 8", x->col, x->value.len != COUNTER_LEN ? x->value.len
                                                                     : y->value.len);
    uint8_t *v = eng_arena_alloc(a, COUNTER_LEN);
    if (!v)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory merging a row");
    eng_put_be64(v, eng_be64(x->value.p) + eng_be64(y->value.p));
    *out = *x;
    out->flags = ENG_CELL_COUNTER;
    out->ts_us = ENG_MAX(x->ts_us, y->ts_us);
    out->ttl_s = 0;
    out->ldt_s = ENG_LDT_LIVE;
    out->value.p = v;
    out->value.len = COUNTER_LEN;
    return 0;
}

static int reconcile(const eng_cell *old, const eng_cell *upd, eng_cell *out, eng_arena *a,
                     eng_err *err)
{
    if (is_live_counter(old) && is_live_counter(upd))
        return sum_counters(old, upd, out, a, err);
    *out = eng_cell_b_wins(old, upd) ? *upd : *old;
    return 0;
}

/*
 * Cells of the merge. Shadowed cells are dropped from each side before the
 * two are reconciled, as Cassandra does: this matters for counters, where a
 * delta newer than a row deletion must not be added to the deleted total.
 */
static int merge_cells(const eng_row *x, const eng_row *y, eng_row *m, eng_arena *a,
                       eng_err *err)
{
    uint32_t i = 0, j = 0, k = 0, n = 0, cap = x->n_cells + y->n_cells;
    if (!cap)
        return 0;
    eng_cell *cells = eng_arena_alloc(a, cap * sizeof *cells);
    if (!cells)
        return eng_errorf(err, ENG_E_NOMEM, "out of memory merging a row");
    while (i < x->n_cells || j < y->n_cells) {
        const eng_cell *cx = i < x->n_cells ? &x->cells[i] : NULL;
        const eng_cell *cy = j < y->n_cells ? &y->cells[j] : NULL;
        int cmp = !cx ? 1 : !cy ? -1 : eng_cell_position_cmp(cx, cy);
        if (cmp > 0)
            cx = NULL;
        if (cmp < 0)
            cy = NULL;
        i += cx != NULL;
        j += cy != NULL;
        const eng_deletion *cdel = cdel_of(m, cx ? cx->col : cy->col, &k);
        if (cx && cell_shadowed(cx, &m->deletion, cdel))
            cx = NULL;
        if (cy && cell_shadowed(cy, &m->deletion, cdel))
            cy = NULL;
        if (cx && cy) {
            int rc = reconcile(cx, cy, &cells[n], a, err);
            if (rc)
                return rc;
            n++;
        } else if (cx || cy) {
            cells[n++] = cx ? *cx : *cy;
        }
    }
    m->cells = n ? cells : NULL;
    m->n_cells = n;
    return 0;
}

int eng_row_merge(const eng_row *old, const eng_row *upd, eng_row *out, eng_arena *a,
                  eng_err *err)
{
    eng_row m;
    eng_row_init(&m);
    m.deletion = superseding(&old->deletion, &upd->deletion);
    if (m.deletion.ts_us == ENG_TS_NONE)
        m.deletion = no_deletion;
    m.marker = eng_liveness_supersedes(&old->marker, &upd->marker) ? old->marker : upd->marker;
    if (m.marker.ts_us == ENG_TS_NONE || eng_deletion_deletes(&m.deletion, m.marker.ts_us))
        m.marker = no_marker;
    int rc = merge_cdels(old, upd, &m, a, err);
    if (!rc)
        rc = merge_cells(old, upd, &m, a, err);
    if (rc)
        return rc;
    *out = m; /* last, so out may alias old or upd */
    return 0;
}

/* ---- purge ---- */

/* facts §4.7: an expired cell is a tombstone from its write second on. */
static void expire_to_tombstone(eng_cell *c)
{
    c->flags = (uint8_t)(ENG_CELL_TOMBSTONE | (c->flags & ENG_CELL_COUNTER));
    c->ldt_s = wrap_sub(c->ldt_s, c->ttl_s);
    c->ttl_s = 0;
    c->value.p = empty_bytes;
    c->value.len = 0;
}

/* Drops data under the deletions, keeping a deletion only if a covering one does not subsume it. */
static void drop_shadowed(eng_row *r, const eng_deletion *covering)
{
    eng_deletion eff = superseding(covering, &r->deletion);
    if (eng_deletion_supersedes(covering, &r->deletion))
        r->deletion = no_deletion;
    if (eng_deletion_deletes(&eff, r->marker.ts_us))
        r->marker = no_marker;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_cdels; i++)
        if (eng_deletion_supersedes(&r->cdels[i].del, &eff))
            r->cdels[n++] = r->cdels[i];
    r->n_cdels = n;
    uint32_t k = 0;
    n = 0;
    for (uint32_t i = 0; i < r->n_cells; i++) {
        const eng_deletion *cdel = cdel_of(r, r->cells[i].col, &k);
        if (!cell_shadowed(&r->cells[i], &eff, cdel))
            r->cells[n++] = r->cells[i];
    }
    r->n_cells = n;
}

/* Drops tombstones and deletions whose grace period is over (facts §4.7). */
static void drop_gcable(eng_row *r, int64_t now_s, int64_t gc_before_s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_cells; i++) {
        eng_cell *c = &r->cells[i];
        if (is_expiring(c) && now_s >= c->ldt_s)
            expire_to_tombstone(c);
        if (!is_tombstone(c) || c->ldt_s >= gc_before_s)
            r->cells[n++] = *c;
    }
    r->n_cells = n;
    /* An expired marker is kept as it is until its expiry leaves the grace period. */
    if (r->marker.ts_us != ENG_TS_NONE && !eng_liveness_is_live(&r->marker, now_s) &&
        r->marker.expiry_s < gc_before_s)
        r->marker = no_marker;
    if (r->deletion.ts_us != ENG_TS_NONE && r->deletion.ldt_s < gc_before_s)
        r->deletion = no_deletion;
    n = 0;
    for (uint32_t i = 0; i < r->n_cdels; i++)
        if (r->cdels[i].del.ldt_s >= gc_before_s)
            r->cdels[n++] = r->cdels[i];
    r->n_cdels = n;
}

int eng_row_purge(eng_row *r, const eng_deletion *covering, int64_t now_s, int64_t gc_before_s)
{
    drop_shadowed(r, covering ? covering : &no_deletion);
    drop_gcable(r, now_s, gc_before_s);
    if (!r->n_cells)
        r->cells = NULL;
    if (!r->n_cdels)
        r->cdels = NULL;
    return eng_row_is_empty(r);
}

/* ---- stored form: writing ---- */

static void put_val(eng_buf *b, const eng_val *v)
{
    eng_buf_put_uvint(b, val_len(v));
    eng_buf_put(b, v->p, val_len(v));
}

/* Format byte and a checksum placeholder, sealed by seal() once the body is written. */
static void open_stored(eng_buf *out)
{
    uint8_t hdr[STORED_HDR_LEN] = {STORED_FORMAT};
    eng_buf_put(out, hdr, sizeof hdr);
}

static uint32_t body_checksum(uint8_t format, const uint8_t *body, size_t len, uint64_t seal)
{
    return (uint32_t)(format == STORED_FORMAT_V1 ? XXH3_64bits(body, len)
                                                 : XXH3_64bits_withSeed(body, len, seal));
}

static void close_stored(eng_buf *out, size_t start, uint64_t seal)
{
    if (out->oom)
        return;
    const uint8_t *body = out->p + start + STORED_HDR_LEN;
    eng_put_be32(out->p + start + 1,
                 body_checksum(STORED_FORMAT, body, out->len - start - STORED_HDR_LEN, seal));
}

static int64_t pick_base(const eng_row *r)
{
    if (r->marker.ts_us != ENG_TS_NONE)
        return r->marker.ts_us;
    if (r->n_cells)
        return r->cells[0].ts_us;
    if (r->deletion.ts_us != ENG_TS_NONE)
        return r->deletion.ts_us;
    return r->n_cdels ? r->cdels[0].del.ts_us : ENG_TS_NONE;
}

static void put_cell(eng_buf *b, const eng_cell *c, uint32_t prev_col, int64_t base,
                     int64_t base_s)
{
    uint8_t flags = c->flags & CH_FLAGS;
    if (flags & ENG_CELL_TOMBSTONE)
        flags &= (uint8_t)~ENG_CELL_EXPIRING;
    uint32_t delta = c->col - prev_col;
    uint8_t h = flags;
    h |= (uint8_t)((delta < CH_COL_ESCAPE ? delta : CH_COL_ESCAPE) << CH_COL_SHIFT);
    if (c->path.len >= 0)
        h |= CH_PATH;
    if (c->ts_us != base)
        h |= CH_TS;
    eng_buf_put_u8(b, h);
    if (delta >= CH_COL_ESCAPE)
        eng_buf_put_uvint(b, delta - CH_COL_ESCAPE);
    if (h & CH_TS)
        eng_buf_put_vint(b, wrap_sub(c->ts_us, base));
    if (flags & ENG_CELL_EXPIRING) {
        eng_buf_put_uvint(b, (uint32_t)c->ttl_s);
        eng_buf_put_vint(b, wrap_sub(wrap_sub(c->ldt_s, c->ttl_s), base_s));
    } else if (flags & ENG_CELL_TOMBSTONE) {
        eng_buf_put_vint(b, wrap_sub(c->ldt_s, base_s));
    }
    if (h & CH_PATH)
        put_val(b, &c->path);
    if (!(flags & ENG_CELL_TOMBSTONE))
        put_val(b, &c->value);
}

static void put_row_body(const eng_row *r, eng_buf *b)
{
    int64_t base = pick_base(r), base_s = base / 1000000;
    int has_marker = r->marker.ts_us != ENG_TS_NONE;
    uint8_t flags = 0;
    if (has_marker || r->deletion.ts_us != ENG_TS_NONE || r->n_cdels || r->n_cells)
        flags |= RF_BASE;
    if (has_marker)
        flags |= RF_MARKER | (marker_is_expiring(&r->marker) ? RF_MARKER_TTL : 0);
    if (r->deletion.ts_us != ENG_TS_NONE)
        flags |= RF_DELETION;
    if (r->n_cdels)
        flags |= RF_CDELS;
    eng_buf_put_u8(b, flags);
    if (flags & RF_BASE)
        eng_buf_put_vint(b, base);
    if (flags & RF_MARKER_TTL) {
        eng_buf_put_uvint(b, (uint32_t)r->marker.ttl_s);
        eng_buf_put_vint(b, wrap_sub(wrap_sub(r->marker.expiry_s, r->marker.ttl_s), base_s));
    }
    if (flags & RF_DELETION) {
        eng_buf_put_vint(b, wrap_sub(r->deletion.ts_us, base));
        eng_buf_put_vint(b, wrap_sub(r->deletion.ldt_s, base_s));
    }
    if (flags & RF_CDELS) {
        eng_buf_put_uvint(b, r->n_cdels);
        for (uint32_t i = 0; i < r->n_cdels; i++) {
            eng_buf_put_uvint(b, r->cdels[i].col - (i ? r->cdels[i - 1].col : 0));
            eng_buf_put_vint(b, wrap_sub(r->cdels[i].del.ts_us, base));
            eng_buf_put_vint(b, wrap_sub(r->cdels[i].del.ldt_s, base_s));
        }
    }
    for (uint32_t i = 0; i < r->n_cells; i++)
        put_cell(b, &r->cells[i], i ? r->cells[i - 1].col : 0, base, base_s);
}

void eng_row_encode(const eng_row *r, uint64_t seal, eng_buf *out)
{
    size_t start = out->len;
    open_stored(out);
    put_row_body(r, out);
    close_stored(out, start, seal);
}

/* ---- stored form: reading ---- */

/*
 * Bounds-checked cursor over a body. The first failure is kept in `why`;
 * after it every read returns zeros, so parsers check once per item.
 */
typedef struct reader {
    const uint8_t *p, *end;
    const char *why;
} reader;

static void rd_fail(reader *r, const char *why)
{
    if (!r->why)
        r->why = why;
    r->p = r->end;
}

static size_t rd_left(const reader *r)
{
    return (size_t)(r->end - r->p);
}

static uint8_t rd_u8(reader *r)
{
    if (r->p >= r->end) {
        rd_fail(r, "truncated");
        return 0;
    }
    return *r->p++;
}

static uint64_t rd_uvint(reader *r)
{
    /* One-byte values (< 128) are by far the most common: deltas, lengths. */
    if (r->p < r->end && *r->p < 0x80)
        return *r->p++;
    uint64_t v = 0;
    size_t n = r->why ? 0 : eng_get_uvint(r->p, rd_left(r), &v);
    if (!n) {
        rd_fail(r, "truncated");
        return 0;
    }
    r->p += n;
    return v;
}

static int64_t rd_vint(reader *r)
{
    uint64_t z = rd_uvint(r);
    return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

/* uvint length, then that many bytes, as a view into the input. */
static eng_val rd_val(reader *r)
{
    eng_val v = {empty_bytes, 0};
    uint64_t n = rd_uvint(r);
    if (n > rd_left(r) || n > INT32_MAX) {
        rd_fail(r, "a length runs past the end");
        return v;
    }
    if (n)
        v.p = r->p;
    v.len = (int32_t)n;
    r->p += n;
    return v;
}

static int32_t rd_ttl(reader *r)
{
    uint64_t ttl = rd_uvint(r);
    if (ttl == 0 || ttl > INT32_MAX) {
        rd_fail(r, "TTL out of range");
        return 1;
    }
    return (int32_t)ttl;
}

/* Adds a stored column delta to *col, refusing ids past uint32. */
static void rd_col(reader *r, uint64_t delta, uint32_t *col)
{
    if (delta > UINT32_MAX - *col) {
        rd_fail(r, "column id out of range");
        return;
    }
    *col += (uint32_t)delta;
}

int eng_stored_verify(const uint8_t *p, size_t len, uint64_t seal, const char *what,
                      eng_err *err)
{
    if (len < STORED_HDR_LEN)
        return eng_errorf(err, ENG_E_CORRUPT, "stored %s is malformed: %zu bytes is too short",
                          what, len);
    if (p[0] != STORED_FORMAT && p[0] != STORED_FORMAT_V1)
        return eng_errorf(err, ENG_E_CORRUPT, "stored %s is malformed: unknown format %u",
                          what, p[0]);
    uint32_t want = eng_be32(p + 1);
    if (body_checksum(p[0], p + STORED_HDR_LEN, len - STORED_HDR_LEN, seal) != want)
        return eng_errorf(err, ENG_E_CORRUPT, "stored %s failed its checksum", what);
    return 0;
}

/* Checks the format byte and the checksum; on success r spans the body. */
static int open_body(const uint8_t *p, size_t len, uint64_t seal, const char *what, reader *r,
                     eng_err *err)
{
    int rc = eng_stored_verify(p, len, seal, what, err);
    if (rc)
        return rc;
    r->p = p + STORED_HDR_LEN;
    r->end = p + len;
    r->why = NULL;
    return 0;
}

typedef struct row_base {
    int64_t ts_us, s;
} row_base;

static void rd_cell(reader *r, const row_base *b, uint32_t prev_col, eng_cell *c)
{
    uint8_t h = rd_u8(r);
    uint64_t delta = h >> CH_COL_SHIFT;
    if (delta == CH_COL_ESCAPE)
        delta += rd_uvint(r);
    c->col = prev_col;
    rd_col(r, delta, &c->col);
    c->flags = h & CH_FLAGS;
    if ((c->flags & ENG_CELL_TOMBSTONE) && (c->flags & ENG_CELL_EXPIRING))
        rd_fail(r, "a cell is both a tombstone and expiring");
    c->ts_us = (h & CH_TS) ? wrap_add(b->ts_us, rd_vint(r)) : b->ts_us;
    c->ttl_s = 0;
    c->ldt_s = ENG_LDT_LIVE;
    if (c->flags & ENG_CELL_EXPIRING) {
        c->ttl_s = rd_ttl(r);
        c->ldt_s = wrap_add(wrap_add(b->s, rd_vint(r)), c->ttl_s);
    } else if (c->flags & ENG_CELL_TOMBSTONE) {
        c->ldt_s = wrap_add(b->s, rd_vint(r));
    }
    c->path.p = NULL;
    c->path.len = ENG_NULL;
    if (h & CH_PATH)
        c->path = rd_val(r);
    c->value.p = empty_bytes;
    c->value.len = 0;
    if (!(c->flags & ENG_CELL_TOMBSTONE))
        c->value = rd_val(r);
    if (is_live_counter(c) && c->value.len != COUNTER_LEN)
        rd_fail(r, "a counter value is not 8 bytes");
}

static int corrupt(eng_err *err, const char *what, const char *why);
static int nomem(eng_err *err, const char *what);

/* Cells are ordered by column, then path bytes (a simple cell, without path, first). */
static int cell_after(const eng_cell *prev, const eng_cell *c)
{
    if (c->col != prev->col)
        return c->col > prev->col;
    if (prev->path.len < 0)
        return c->path.len >= 0;
    if (c->path.len < 0)
        return 0;
    return bytes_cmp(prev->path.p, val_len(&prev->path), c->path.p, val_len(&c->path)) < 0;
}

/*
 * Reads the cells to the end of the body in one pass, into an arena array
 * that starts small and doubles (rows usually have a handful of cells).
 */
static int rd_cells(reader *r, const row_base *b, eng_row *row, eng_arena *a, eng_err *err)
{
    uint32_t cap = 8, n = 0;
    eng_cell *cells = NULL;
    while (!r->why && r->p < r->end) {
        if (!cells || n == cap) {
            uint32_t ncap = cells ? cap * 2 : cap;
            if (cells && cap > UINT32_MAX / 2)
                return corrupt(err, "row", "too many cells");
            eng_cell *bigger = eng_arena_alloc(a, (size_t)ncap * sizeof *bigger);
            if (!bigger)
                return nomem(err, "row");
            if (n)
                memcpy(bigger, cells, (size_t)n * sizeof *cells);
            cells = bigger;
            cap = ncap;
        }
        eng_cell *c = &cells[n];
        rd_cell(r, b, n ? cells[n - 1].col : 0, c);
        if (!r->why && n && !cell_after(&cells[n - 1], c))
            rd_fail(r, "cells are out of order");
        n++;
    }
    if (r->why)
        return corrupt(err, "row", r->why);
    row->cells = n ? cells : NULL;
    row->n_cells = n;
    return 0;
}

static void rd_cdels(reader *r, const row_base *b, eng_complex_del *out, uint32_t n)
{
    uint32_t col = 0;
    for (uint32_t i = 0; i < n && !r->why; i++) {
        uint64_t delta = rd_uvint(r);
        if (i && delta == 0)
            rd_fail(r, "complex deletions are out of order");
        rd_col(r, delta, &col);
        out[i].col = col;
        out[i].del.ts_us = wrap_add(b->ts_us, rd_vint(r));
        out[i].del.ldt_s = wrap_add(b->s, rd_vint(r));
    }
}

static int corrupt(eng_err *err, const char *what, const char *why)
{
    return eng_errorf(err, ENG_E_CORRUPT, "stored %s is malformed: %s", what, why);
}

static int nomem(eng_err *err, const char *what)
{
    return eng_errorf(err, ENG_E_NOMEM, "out of memory decoding a stored %s", what);
}

/* The row flags, base, marker, row deletion and complex deletions. */
static int rd_row_head(reader *r, eng_row *row, row_base *b, eng_arena *a, eng_err *err)
{
    uint8_t flags = rd_u8(r);
    if (flags & ~RF_KNOWN)
        rd_fail(r, "unknown row flags");
    if ((flags & RF_MARKER_TTL) && !(flags & RF_MARKER))
        rd_fail(r, "a marker TTL without a marker");
    b->ts_us = (flags & RF_BASE) ? rd_vint(r) : ENG_TS_NONE;
    b->s = b->ts_us / 1000000;
    if (!(flags & RF_BASE) && (flags || r->p < r->end))
        rd_fail(r, "row data without a base timestamp");
    /* ENG_TS_NONE means "none": a marker or deletion at it is never written (the encoder
       leaves it out), so one read back is damage, not a row. */
    if ((flags & RF_MARKER) && b->ts_us == ENG_TS_NONE)
        rd_fail(r, "a row marker without a timestamp");
    if (flags & RF_MARKER) {
        row->marker.ts_us = b->ts_us;
        if (flags & RF_MARKER_TTL) {
            row->marker.ttl_s = rd_ttl(r);
            row->marker.expiry_s = wrap_add(wrap_add(b->s, rd_vint(r)), row->marker.ttl_s);
        }
    }
    if (flags & RF_DELETION) {
        row->deletion.ts_us = wrap_add(b->ts_us, rd_vint(r));
        row->deletion.ldt_s = wrap_add(b->s, rd_vint(r));
        if (row->deletion.ts_us == ENG_TS_NONE)
            rd_fail(r, "a row deletion without a timestamp");
    }
    if (!(flags & RF_CDELS) || r->why)
        return r->why ? corrupt(err, "row", r->why) : 0;
    uint64_t n = rd_uvint(r);
    if (n == 0 || n > rd_left(r) / 3) /* each takes at least three bytes */
        rd_fail(r, "bad complex deletion count");
    if (r->why)
        return corrupt(err, "row", r->why);
    row->cdels = eng_arena_alloc(a, (size_t)n * sizeof *row->cdels);
    if (!row->cdels)
        return nomem(err, "row");
    row->n_cdels = (uint32_t)n;
    rd_cdels(r, b, row->cdels, row->n_cdels);
    return r->why ? corrupt(err, "row", r->why) : 0;
}

int eng_row_decode(const uint8_t *p, size_t len, uint64_t seal, eng_row *out, eng_arena *a,
                   eng_err *err)
{
    eng_row_init(out);
    reader r;
    int rc = open_body(p, len, seal, "row", &r, err);
    if (rc)
        return rc;
    return eng_row_decode_body(r.p, len - STORED_HDR_LEN, out, a, err);
}

int eng_row_decode_body(const uint8_t *p, size_t len, eng_row *out, eng_arena *a, eng_err *err)
{
    eng_row_init(out);
    reader r = {p, p + len, NULL};
    int rc;
    eng_row row;
    eng_row_init(&row);
    row_base b;
    if ((rc = rd_row_head(&r, &row, &b, a, err)) || (rc = rd_cells(&r, &b, &row, a, err)))
        return rc;
    *out = row;
    return 0;
}

/* A uvint at *q (one byte inline), moving *q past it; 0 when it runs past end. */
static inline int plain_uvint(const uint8_t **q, const uint8_t *end, uint64_t *v)
{
    if (*q < end && **q < 0x80) {
        *v = *(*q)++;
        return 1;
    }
    size_t n = *q < end ? eng_get_uvint(*q, (size_t)(end - *q), v) : 0;
    *q += n;
    return n != 0;
}

int eng_row_read_plain(const uint8_t *p, size_t len, uint64_t seal, eng_plain_row *out,
                       eng_err *err)
{
    out->checked = 0;
    if (len > 0 && p[0] != STORED_FORMAT)
        return 0; /* the old format: the full decoder reads (and checks) it */
    int rc = eng_stored_verify(p, len, seal, "row", err);
    if (rc)
        return -rc;
    out->checked = 1;
    const uint8_t *q = p + STORED_HDR_LEN, *end = p + len;
    uint64_t x;
    if (q == end || (*q != RF_BASE && *q != (RF_BASE | RF_MARKER)))
        return 0;
    out->has_marker = (*q++ & RF_MARKER) != 0;
    if (!plain_uvint(&q, end, &x)) /* the base timestamp: nothing here for it to matter to */
        return 0;
    uint32_t n = 0, col = 0;
    while (q < end) {
        uint8_t h = *q++;
        if ((h & (CH_FLAGS & ~ENG_CELL_COUNTER)) || (h & CH_PATH) || n == ENG_PLAIN_MAX_CELLS)
            return 0; /* a tombstone, a TTL, a collection element, or many cells */
        uint64_t delta = h >> CH_COL_SHIFT;
        if (delta == CH_COL_ESCAPE) {
            if (!plain_uvint(&q, end, &x))
                return 0;
            delta += x;
        }
        if ((n && delta == 0) || delta > UINT32_MAX - col)
            return 0; /* out of order or out of range: damage the full decoder reports */
        col += (uint32_t)delta;
        if ((h & CH_TS) && !plain_uvint(&q, end, &x))
            return 0;
        if (!plain_uvint(&q, end, &x) || x > (uint64_t)(end - q) || x > INT32_MAX)
            return 0;
        if ((h & ENG_CELL_COUNTER) && x != COUNTER_LEN)
            return 0;
        out->cells[n].col = col;
        out->cells[n].value = (eng_val){x ? q : empty_bytes, (int32_t)x};
        q += x;
        n++;
    }
    if (!out->has_marker && !n)
        return 0;
    out->n_cells = n;
    return 1;
}

int eng_row_decode_checked(const uint8_t *p, size_t len, eng_row *out, eng_arena *a,
                           eng_err *err)
{
    return eng_row_decode_body(p + STORED_HDR_LEN, len - STORED_HDR_LEN, out, a, err);
}

/* ---- partition header ---- */

void eng_pheader_init(eng_pheader *h)
{
    h->partition_del = no_deletion;
    h->n_rts = 0;
    h->rts = NULL;
}

/* Deletions as deltas from the previous one stored. */
static void put_deletion_delta(eng_buf *b, const eng_deletion *d, eng_deletion *prev)
{
    eng_buf_put_vint(b, wrap_sub(d->ts_us, prev->ts_us));
    eng_buf_put_vint(b, wrap_sub(d->ldt_s, prev->ldt_s));
    *prev = *d;
}

static void rd_deletion_delta(reader *r, eng_deletion *d, eng_deletion *prev)
{
    d->ts_us = wrap_add(prev->ts_us, rd_vint(r));
    d->ldt_s = wrap_add(prev->ldt_s, rd_vint(r));
    *prev = *d;
}

void eng_pheader_encode(const eng_pheader *h, uint64_t seal, eng_buf *out)
{
    size_t start = out->len;
    eng_deletion prev = {0, 0};
    open_stored(out);
    int has_pdel = h->partition_del.ts_us != ENG_TS_NONE;
    eng_buf_put_u8(out, has_pdel ? 1 : 0);
    if (has_pdel)
        put_deletion_delta(out, &h->partition_del, &prev);
    eng_buf_put_uvint(out, h->n_rts);
    for (uint32_t i = 0; i < h->n_rts; i++) {
        const eng_range_tomb *rt = &h->rts[i];
        eng_buf_put_u8(out, (uint8_t)((rt->lo_incl ? BF_LO_INCL : 0) |
                                      (rt->hi_incl ? BF_HI_INCL : 0)));
        put_val(out, &rt->lo);
        put_val(out, &rt->hi);
        put_deletion_delta(out, &rt->del, &prev);
    }
    close_stored(out, start, seal);
}

static void rd_range_tomb(reader *r, eng_range_tomb *rt, eng_deletion *prev)
{
    uint8_t f = rd_u8(r);
    if (f & ~BF_KNOWN)
        rd_fail(r, "unknown bound flags");
    rt->lo_incl = (f & BF_LO_INCL) != 0;
    rt->hi_incl = (f & BF_HI_INCL) != 0;
    rt->lo = rd_val(r);
    rt->hi = rd_val(r);
    rd_deletion_delta(r, &rt->del, prev);
}

int eng_pheader_decode(const uint8_t *p, size_t len, uint64_t seal, eng_pheader *out,
                       eng_arena *a, eng_err *err)
{
    eng_pheader_init(out);
    reader r;
    int rc = open_body(p, len, seal, "partition header", &r, err);
    if (rc)
        return rc;
    return eng_pheader_decode_body(r.p, len - STORED_HDR_LEN, out, a, err);
}

int eng_pheader_decode_body(const uint8_t *p, size_t len, eng_pheader *out, eng_arena *a,
                            eng_err *err)
{
    eng_pheader_init(out);
    reader r = {p, p + len, NULL};
    eng_pheader h;
    eng_pheader_init(&h);
    eng_deletion prev = {0, 0};
    uint8_t flags = rd_u8(&r);
    if (flags & ~1u)
        rd_fail(&r, "unknown flags");
    if (flags & 1) {
        rd_deletion_delta(&r, &h.partition_del, &prev);
        if (h.partition_del.ts_us == ENG_TS_NONE) /* never written, as a row deletion */
            rd_fail(&r, "a partition deletion without a timestamp");
    }
    uint64_t n = rd_uvint(&r);
    if (n > rd_left(&r) / 5) /* each range tombstone takes at least five bytes */
        rd_fail(&r, "bad range tombstone count");
    if (r.why)
        return corrupt(err, "partition header", r.why);
    if (n) {
        h.rts = eng_arena_alloc(a, (size_t)n * sizeof *h.rts);
        if (!h.rts)
            return nomem(err, "partition header");
        h.n_rts = (uint32_t)n;
    }
    for (uint32_t i = 0; i < h.n_rts && !r.why; i++)
        rd_range_tomb(&r, &h.rts[i], &prev);
    if (!r.why && r.p != r.end)
        rd_fail(&r, "trailing bytes");
    if (r.why)
        return corrupt(err, "partition header", r.why);
    *out = h;
    return 0;
}

/* ---- range tombstone coverage ---- */

static int starts_with(const uint8_t *k, size_t klen, const eng_val *prefix)
{
    size_t n = val_len(prefix);
    return klen >= n && (!n || memcmp(k, prefix->p, n) == 0);
}

/*
 * A bound is a clustering prefix: every key that starts with it sits "at"
 * the bound, inside it when the bound is inclusive and outside otherwise.
 */
static int above_lo(const eng_range_tomb *rt, const uint8_t *k, size_t klen)
{
    if (rt->lo.len <= 0)
        return 1;
    if (starts_with(k, klen, &rt->lo))
        return rt->lo_incl;
    return bytes_cmp(k, klen, rt->lo.p, val_len(&rt->lo)) > 0;
}

static int below_hi(const eng_range_tomb *rt, const uint8_t *k, size_t klen)
{
    if (rt->hi.len <= 0)
        return 1;
    if (starts_with(k, klen, &rt->hi))
        return rt->hi_incl;
    return bytes_cmp(k, klen, rt->hi.p, val_len(&rt->hi)) < 0;
}

int eng_range_tomb_covers(const eng_range_tomb *rt, const uint8_t *k, size_t klen)
{
    return above_lo(rt, k, klen) && below_hi(rt, k, klen);
}

eng_deletion eng_pheader_covering(const eng_pheader *h, const uint8_t *k, size_t klen)
{
    eng_deletion best = h->partition_del.ts_us != ENG_TS_NONE ? h->partition_del : no_deletion;
    for (uint32_t i = 0; i < h->n_rts; i++) {
        const eng_range_tomb *rt = &h->rts[i];
        if (rt->del.ts_us != ENG_TS_NONE && eng_deletion_supersedes(&rt->del, &best) &&
            eng_range_tomb_covers(rt, k, klen))
            best = rt->del;
    }
    return best;
}
