/*
 * Cells, rows and partition headers: Cassandra's storage model (facts §4)
 * in memory and in the bytes stored as LMDB values, and the reconciliation
 * rules that merge two versions of the same data (facts §4.2, §4.3, §6).
 *
 * A stored row value carries a format byte, an XXH3 checksum of everything
 * after it, the row marker (liveness), the row deletion, complex
 * (collection) deletions and the cells. eng_row_decode verifies the checksum
 * on every read: a mismatch is ENG_E_CORRUPT, never garbage.
 *
 * Cells are ordered by (column id, path bytes). Paths of collection
 * elements are key-codec encodings of the element (set), key (map) or time
 * UUID (list), so memcmp order of paths is the collection's order; a UDT
 * field's path is its field index as 2 big-endian bytes.
 *
 * Memory: decoded rows are views. Arrays come from the arena passed in;
 * paths and values point into the decoded bytes (or into the inputs of a
 * merge), which must outlive the row.
 */
#ifndef ENG_ROW_H
#define ENG_ROW_H

#include "engine/value/common.h"

#define ENG_LDT_LIVE INT64_MAX /* local deletion time of a live, non-expiring cell */

/* DeletionTime: deletes everything with ts_us <= this ts_us (ties go to the deletion). */
typedef struct eng_deletion {
    int64_t ts_us; /* markedForDeleteAt; ENG_TS_NONE = no deletion */
    int64_t ldt_s; /* local deletion time, seconds since the epoch */
} eng_deletion;

/* Row marker (primary key liveness), written by INSERT only. */
typedef struct eng_liveness {
    int64_t ts_us;    /* ENG_TS_NONE = no marker */
    int32_t ttl_s;    /* 0 = not expiring */
    int64_t expiry_s; /* ttl_s > 0: nowInSec + ttl at write; else ENG_LDT_LIVE */
} eng_liveness;

enum {
    ENG_CELL_TOMBSTONE = 1, /* value empty; ldt_s = deletion time */
    ENG_CELL_EXPIRING = 2,  /* ttl_s > 0; ldt_s = expiry time */
    ENG_CELL_COUNTER = 4,   /* value is an 8-byte big-endian total (or delta in an update) */
};

typedef struct eng_cell {
    uint32_t col;   /* column id (stable within the table) */
    uint8_t flags;  /* ENG_CELL_* */
    int64_t ts_us;  /* write timestamp, microseconds */
    int32_t ttl_s;  /* expiring: the TTL written; else 0 */
    int64_t ldt_s;  /* tombstone: deletion time; expiring: expiry; live: ENG_LDT_LIVE */
    eng_val path;   /* element path; path.len == ENG_NULL for a simple cell */
    eng_val value;  /* cell value (native bytes); empty for tombstones */
} eng_cell;

/* Deletion of a whole non-frozen collection / UDT column in one row. */
typedef struct eng_complex_del {
    uint32_t col;
    eng_deletion del;
} eng_complex_del;

typedef struct eng_row {
    eng_liveness marker;
    eng_deletion deletion;   /* row deletion */
    uint32_t n_cdels;
    eng_complex_del *cdels;  /* sorted by col, at most one per col */
    uint32_t n_cells;
    eng_cell *cells;         /* sorted by (col, path), at most one per position */
} eng_row;

/* An empty row: no marker, no deletion, no cells. */
void eng_row_init(eng_row *r);
int eng_row_is_empty(const eng_row *r);

/* Total orders used by the row model. */
int eng_cell_position_cmp(const eng_cell *a, const eng_cell *b); /* (col, path bytes; no path first) */

/*
 * Cell reconciliation, Cassandra 4.0+ (facts §4.2): returns 1 if b wins over
 * a, 0 if a wins. Higher timestamp wins; at equal timestamps a tombstone or
 * expiring cell beats a plain live one, a tombstone beats an expiring one,
 * the larger local deletion time wins between two of a kind, and finally
 * the greater value (unsigned bytes). Counter cells (facts §6): a tombstone
 * beats any live counter whatever the timestamps. Two live counters are not
 * a choice but a sum (eng_row_merge); here they compare like regular cells.
 */
int eng_cell_b_wins(const eng_cell *a, const eng_cell *b);
/* DeletionTime.supersedes: larger ts, then larger ldt. */
int eng_deletion_supersedes(const eng_deletion *a, const eng_deletion *b);
/* LivenessInfo.supersedes (facts §4.3). */
int eng_liveness_supersedes(const eng_liveness *a, const eng_liveness *b);

/* Live at now_s: not a tombstone, and not expired (now_s < expiry). */
int eng_cell_is_live(const eng_cell *c, int64_t now_s);
int eng_liveness_is_live(const eng_liveness *l, int64_t now_s);
/* 1 if del (may have ts ENG_TS_NONE) deletes data written at ts_us. */
static inline int eng_deletion_deletes(const eng_deletion *del, int64_t ts_us)
{
    return del->ts_us != ENG_TS_NONE && ts_us <= del->ts_us;
}

/*
 * Live data of a row (facts §4.3): a live marker, or any live cell, after
 * applying `covering` (the partition deletion / range tombstone over the
 * row, ts ENG_TS_NONE if none), the row deletion and complex deletions.
 */
int eng_row_has_live_data(const eng_row *r, const eng_deletion *covering, int64_t now_s);

/*
 * Merges upd into old (either may be empty) with the reconciliation rules:
 * per position the winning cell; the superseding marker, row deletion and
 * complex deletions; cells shadowed by the resulting row or complex
 * deletions are dropped. A counter cell of upd whose flags include
 * ENG_CELL_COUNTER is a delta: it is added to old's live counter (wrapping
 * int64 arithmetic), taking the greater timestamp; a counter tombstone on
 * either side wins. Result arrays come from the arena; values point into
 * old/upd, or into the arena for summed counters.
 */
int eng_row_merge(const eng_row *old, const eng_row *upd, eng_row *out, eng_arena *a,
                  eng_err *err);

/*
 * Compaction of one row in place (facts §4.7): drops data shadowed by
 * `covering` or by the row's own deletions; turns expired cells into
 * tombstones with ldt = expiry - ttl; drops tombstones and deletions whose
 * ldt < gc_before_s. Returns 1 if nothing is left.
 * A marker has no tombstone form: an expired marker stays, dead, until its
 * expiry_s < gc_before_s (Cassandra's purger tests a marker's expiry). A row
 * or complex deletion that `covering` (or the row deletion) supersedes is
 * dropped along with the data it shadowed.
 */
int eng_row_purge(eng_row *r, const eng_deletion *covering, int64_t now_s, int64_t gc_before_s);

/*
 * Stored values (rows and partition headers) carry a checksum seeded with a
 * seal: the hash of the table and of the key they are stored under
 * (eng_storage_seal), so a value verifies only under its own key.
 */

/* Appends the stored form (format byte, checksum, body) of r under a key of this seal. */
void eng_row_encode(const eng_row *r, uint64_t seal, eng_buf *out);
/* Decodes and verifies a stored row; ENG_E_CORRUPT on checksum or format failure. */
int eng_row_decode(const uint8_t *p, size_t len, uint64_t seal, eng_row *out, eng_arena *a,
                   eng_err *err);
/* 0 if [p, p + len) is a stored row or header of a known format whose checksum holds under
   seal; else ENG_E_CORRUPT naming `what`. Reads nothing outside [p, p + len). */
int eng_stored_verify(const uint8_t *p, size_t len, uint64_t seal, const char *what,
                      eng_err *err);
/*
 * The common stored row, read without building cells: a row whose only deletion-free,
 * clock-free content is a marker without TTL (or no marker) and live simple cells without
 * TTL (plain values or counter totals, no collection elements). Such a row is live when it
 * has a marker or a cell of an existing column, and its values are the cells' bytes,
 * whatever their timestamps — nothing in it can shadow anything else.
 */
#define ENG_PLAIN_MAX_CELLS 32

typedef struct eng_plain_cell {
    uint32_t col;
    eng_val value;           /* a view into the stored bytes */
} eng_plain_cell;

typedef struct eng_plain_row {
    int checked;             /* the checksum held (a row not plain: eng_row_decode_checked) */
    int has_marker;
    uint32_t n_cells;        /* in increasing column order */
    eng_plain_cell cells[ENG_PLAIN_MAX_CELLS];
} eng_plain_row;

/*
 * Verifies a stored row (as eng_row_decode does) and, when it has the plain form above, fills
 * *out and returns 1. Returns 0 for any other row — another form, more than
 * ENG_PLAIN_MAX_CELLS cells, the old format, or a body the full decoder would refuse (it then
 * reports it): the caller decodes it with eng_row_decode. ENG_E_CORRUPT (negated) when the
 * checksum fails. Reads nothing outside [p, p + len).
 */
int eng_row_read_plain(const uint8_t *p, size_t len, uint64_t seal, eng_plain_row *out,
                       eng_err *err);
/* eng_row_decode of a row whose checksum eng_row_read_plain verified (checked): the body is
   decoded without hashing it again. */
int eng_row_decode_checked(const uint8_t *p, size_t len, eng_row *out, eng_arena *a,
                           eng_err *err);

/* The body alone, after the format byte and checksum eng_row_decode checked: the decoder the
   fuzzer drives with arbitrary bytes (tests/fuzz/fuzz_row.c), ENG_E_CORRUPT on any bad byte. */
int eng_row_decode_body(const uint8_t *p, size_t len, eng_row *out, eng_arena *a, eng_err *err);

/*
 * Partition header: the partition deletion and the range tombstones of one
 * partition, stored under the partition's header key. Range bounds are
 * encoded clustering prefixes in storage byte order (see engine read/write
 * code): a key k is covered when lo <= k <= hi with prefix semantics — an
 * inclusive bound covers every key that starts with it, an exclusive one
 * none of them; an empty lo / hi means unbounded on that side.
 */
typedef struct eng_range_tomb {
    eng_val lo, hi;
    uint8_t lo_incl, hi_incl;
    eng_deletion del;
} eng_range_tomb;

typedef struct eng_pheader {
    eng_deletion partition_del;
    uint32_t n_rts;
    eng_range_tomb *rts;
} eng_pheader;

void eng_pheader_init(eng_pheader *h);
void eng_pheader_encode(const eng_pheader *h, uint64_t seal, eng_buf *out);
int eng_pheader_decode(const uint8_t *p, size_t len, uint64_t seal, eng_pheader *out,
                       eng_arena *a, eng_err *err);
/* The body alone, as eng_row_decode_body. */
int eng_pheader_decode_body(const uint8_t *p, size_t len, eng_pheader *out, eng_arena *a,
                            eng_err *err);
/* 1 if the stored clustering key bytes k lie inside the range tombstone. */
int eng_range_tomb_covers(const eng_range_tomb *rt, const uint8_t *k, size_t klen);
/*
 * The deletion covering clustering key k: the superseding one among the
 * partition deletion and every range tombstone covering k (ts ENG_TS_NONE if none).
 */
eng_deletion eng_pheader_covering(const eng_pheader *h, const uint8_t *k, size_t klen);

#endif
