/*
 * Cells, rows and partition headers: reconciliation (facts §4.2, §4.3, §6),
 * deletions (§4.1), liveness (§4.3), collection overwrite (§4.5), purge
 * (§4.7), range tombstone prefix coverage (row.h), and the stored format:
 * round trips, corruption always detected, size of the common case.
 */
#include "engine/store/row.h"
#include "harness.h"

#include <xxhash.h>

#define T0 1700000000000000LL /* a write timestamp, µs */
#define S0 1700000000LL       /* its second */
#define TEST_SEAL 0x5EA1C0FFEE15F00DULL /* the seal of the key the test values are stored under */

/* ---- builders ---- */

static eng_val str_val(const char *s)
{
    eng_val v = {(const uint8_t *)s, (int32_t)strlen(s)};
    return v;
}

static eng_val no_path(void)
{
    eng_val v = {NULL, ENG_NULL};
    return v;
}

static eng_cell live(uint32_t col, int64_t ts, const char *v)
{
    eng_cell c = {col, 0, ts, 0, ENG_LDT_LIVE, no_path(), str_val(v)};
    return c;
}

static eng_cell tomb(uint32_t col, int64_t ts, int64_t ldt)
{
    eng_cell c = {col, ENG_CELL_TOMBSTONE, ts, 0, ldt, no_path(), str_val("")};
    return c;
}

static eng_cell expiring(uint32_t col, int64_t ts, int32_t ttl, int64_t expiry, const char *v)
{
    eng_cell c = {col, ENG_CELL_EXPIRING, ts, ttl, expiry, no_path(), str_val(v)};
    return c;
}

/* A live counter cell; buf holds its 8-byte big-endian value. */
static eng_cell counter(uint32_t col, int64_t ts, int64_t v, uint8_t buf[8])
{
    eng_put_be64(buf, (uint64_t)v);
    eng_cell c = {col, ENG_CELL_COUNTER, ts, 0, ENG_LDT_LIVE, no_path(), {buf, 8}};
    return c;
}

static eng_cell at_path(eng_cell c, const char *path)
{
    c.path = str_val(path);
    return c;
}

static eng_deletion del(int64_t ts, int64_t ldt)
{
    eng_deletion d = {ts, ldt};
    return d;
}

static eng_liveness marker(int64_t ts, int32_t ttl, int64_t expiry)
{
    eng_liveness l = {ts, ttl, ttl ? expiry : ENG_LDT_LIVE};
    return l;
}

static eng_row row_of(eng_cell *cells, uint32_t n)
{
    eng_row r;
    eng_row_init(&r);
    r.cells = cells;
    r.n_cells = n;
    return r;
}

static int64_t counter_value(const eng_cell *c)
{
    ASSERT_EQ(c->value.len, 8);
    return (int64_t)eng_be64(c->value.p);
}

static int val_eq(eng_val a, eng_val b)
{
    if (a.len < 0 || b.len < 0)
        return a.len == b.len;
    return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, (size_t)a.len) == 0);
}

static int cell_eq(const eng_cell *a, const eng_cell *b)
{
    return a->col == b->col && a->flags == b->flags && a->ts_us == b->ts_us &&
           a->ttl_s == b->ttl_s && a->ldt_s == b->ldt_s && val_eq(a->path, b->path) &&
           val_eq(a->value, b->value);
}

static int deletion_eq(eng_deletion a, eng_deletion b)
{
    return a.ts_us == b.ts_us && (a.ts_us == ENG_TS_NONE || a.ldt_s == b.ldt_s);
}

static int row_eq(const eng_row *a, const eng_row *b)
{
    if (a->marker.ts_us != b->marker.ts_us || a->n_cells != b->n_cells ||
        a->n_cdels != b->n_cdels || !deletion_eq(a->deletion, b->deletion))
        return 0;
    if (a->marker.ts_us != ENG_TS_NONE &&
        (a->marker.ttl_s != b->marker.ttl_s ||
         (a->marker.ttl_s && a->marker.expiry_s != b->marker.expiry_s)))
        return 0;
    for (uint32_t i = 0; i < a->n_cdels; i++)
        if (a->cdels[i].col != b->cdels[i].col || !deletion_eq(a->cdels[i].del, b->cdels[i].del))
            return 0;
    for (uint32_t i = 0; i < a->n_cells; i++)
        if (!cell_eq(&a->cells[i], &b->cells[i]))
            return 0;
    return 1;
}

/* The winner of a and b (a wins a full tie, as the header states). */
static const eng_cell *winner(const eng_cell *a, const eng_cell *b)
{
    return eng_cell_b_wins(a, b) ? b : a;
}

static void merge_ok(const eng_row *old, const eng_row *upd, eng_row *out, eng_arena *a)
{
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_row_merge(old, upd, out, a, &err), &err);
}

/* ---- cell reconciliation (facts §4.2) ---- */

TEST(test_higher_timestamp_wins)
{
    eng_cell a = live(1, T0, "zzz"), b = live(1, T0 + 1, "aaa");
    ASSERT(winner(&a, &b) == &b);
    ASSERT(winner(&b, &a) == &b);
    eng_cell t = tomb(1, T0 - 1, S0), e = expiring(1, T0 - 1, 10, S0 + 10, "x");
    ASSERT(winner(&a, &t) == &a); /* newer live beats older tombstone */
    ASSERT(winner(&e, &a) == &a);
}

TEST(test_tombstone_beats_live_at_equal_timestamp)
{
    eng_cell a = live(1, T0, "\xff\xff"), t = tomb(1, T0, S0);
    ASSERT(winner(&a, &t) == &t);
    ASSERT(winner(&t, &a) == &t);
}

TEST(test_expiring_beats_live_at_equal_timestamp)
{
    /* the live value is greater, yet the expiring cell wins (CASSANDRA-14592) */
    eng_cell a = live(1, T0, "\xff"), e = expiring(1, T0, 100, S0 + 100, "\x01");
    ASSERT(winner(&a, &e) == &e);
    ASSERT(winner(&e, &a) == &e);
}

TEST(test_tombstone_beats_expiring_at_equal_timestamp)
{
    /* even when the expiring cell expires later than the deletion time */
    eng_cell e = expiring(1, T0, 100, S0 + 100, "v"), t = tomb(1, T0, S0);
    ASSERT(winner(&e, &t) == &t);
    ASSERT(winner(&t, &e) == &t);
}

TEST(test_larger_ldt_wins_between_two_expiring)
{
    /* the value is not consulted: the smaller value with the later expiry wins */
    eng_cell a = expiring(1, T0, 100, S0 + 100, "\xff"), b = expiring(1, T0, 200, S0 + 200, "\x00");
    ASSERT(winner(&a, &b) == &b);
    ASSERT(winner(&b, &a) == &b);
}

TEST(test_larger_ldt_wins_between_two_tombstones)
{
    eng_cell a = tomb(1, T0, S0 + 5), b = tomb(1, T0, S0 + 7);
    ASSERT(winner(&a, &b) == &b);
    ASSERT(winner(&b, &a) == &b);
}

TEST(test_greater_value_wins_final_tie_unsigned)
{
    eng_cell lo = live(1, T0, "\x7f"), hi = live(1, T0, "\x80");
    ASSERT(winner(&lo, &hi) == &hi); /* 0x80 > 0x7f unsigned (signed would say otherwise) */
    ASSERT(winner(&hi, &lo) == &hi);
    eng_cell e1 = expiring(1, T0, 10, S0 + 10, "\x7f"), e2 = expiring(1, T0, 10, S0 + 10, "\x80");
    ASSERT(winner(&e1, &e2) == &e2);
    ASSERT(winner(&e2, &e1) == &e2);
}

TEST(test_longer_value_wins_when_one_is_a_prefix)
{
    eng_cell a = live(1, T0, "ab"), b = live(1, T0, "abc"), empty = live(1, T0, "");
    ASSERT(winner(&a, &b) == &b);
    ASSERT(winner(&b, &a) == &b);
    ASSERT(winner(&empty, &a) == &a);
}

TEST(test_reconciliation_is_commutative)
{
    static const char *vals[] = {"", "\x7f", "\x80", "a", "ab", "\xff"};
    uint64_t s = test_seed();
    for (int iter = 0; iter < 20000; iter++) {
        eng_cell c[2];
        for (int k = 0; k < 2; k++) {
            int64_t ts = T0 + (int64_t)(test_rand(&s) % 3);
            int32_t ttl = 1 + (int32_t)(test_rand(&s) % 3); /* ldt decides ttl: ties are exact */
            const char *v = vals[test_rand(&s) % ENG_ARRAY_LEN(vals)];
            switch (test_rand(&s) % 3) {
            case 0: c[k] = live(1, ts, v); break;
            case 1: c[k] = tomb(1, ts, S0 + ttl); break;
            default: c[k] = expiring(1, ts, ttl, S0 + ttl, v); break;
            }
        }
        ASSERT(cell_eq(winner(&c[0], &c[1]), winner(&c[1], &c[0])));
    }
}

TEST(test_reconciliation_does_not_depend_on_expiry_having_passed)
{
    /* an already expired cell still wins a tie against a live one by the same rule */
    eng_cell a = live(1, T0, "\xff"), e = expiring(1, T0, 1, 1, "\x00");
    ASSERT(winner(&a, &e) == &e);
}

/* ---- DeletionTime and LivenessInfo (facts §4.1, §4.3) ---- */

TEST(test_deletion_deletes_equal_timestamp)
{
    eng_deletion d = del(T0, S0);
    ASSERT(eng_deletion_deletes(&d, T0));
    ASSERT(eng_deletion_deletes(&d, T0 - 1));
    ASSERT(!eng_deletion_deletes(&d, T0 + 1));
    eng_deletion none = del(ENG_TS_NONE, ENG_LDT_LIVE);
    ASSERT(!eng_deletion_deletes(&none, INT64_MIN + 1));
}

TEST(test_deletion_supersedes_by_ts_then_ldt)
{
    eng_deletion a = del(T0, S0 + 100), b = del(T0 + 1, S0);
    ASSERT(eng_deletion_supersedes(&b, &a));
    ASSERT(!eng_deletion_supersedes(&a, &b));
    eng_deletion c = del(T0, S0 + 101);
    ASSERT(eng_deletion_supersedes(&c, &a));
    ASSERT(!eng_deletion_supersedes(&a, &c));
    ASSERT(!eng_deletion_supersedes(&a, &a));
}

TEST(test_marker_higher_timestamp_supersedes)
{
    eng_liveness a = marker(T0, 0, 0), b = marker(T0 + 1, 0, 0), none = marker(ENG_TS_NONE, 0, 0);
    ASSERT(eng_liveness_supersedes(&b, &a));
    ASSERT(!eng_liveness_supersedes(&a, &b));
    ASSERT(eng_liveness_supersedes(&a, &none));
}

TEST(test_marker_expiring_beats_non_expiring_at_equal_ts)
{
    eng_liveness plain = marker(T0, 0, 0), exp = marker(T0, 60, S0 + 60);
    ASSERT(eng_liveness_supersedes(&exp, &plain));
    ASSERT(!eng_liveness_supersedes(&plain, &exp));
}

TEST(test_marker_later_expiry_wins_between_expiring)
{
    eng_liveness a = marker(T0, 60, S0 + 60), b = marker(T0, 30, S0 + 90);
    ASSERT(eng_liveness_supersedes(&b, &a));
    ASSERT(!eng_liveness_supersedes(&a, &b));
    eng_liveness p1 = marker(T0, 0, 0), p2 = marker(T0, 0, 0);
    ASSERT(!eng_liveness_supersedes(&p1, &p2)); /* equal: neither supersedes */
}

/* ---- counters (facts §6) ---- */

TEST(test_counter_tombstone_beats_newer_live_counter)
{
    uint8_t buf[8];
    eng_cell t = tomb(1, T0, S0), c = counter(1, T0 + 1000000, 5, buf);
    t.flags |= ENG_CELL_COUNTER;
    ASSERT(winner(&t, &c) == &t);
    ASSERT(winner(&c, &t) == &t);
    eng_cell plain_t = tomb(1, T0, S0); /* a tombstone without the counter flag too */
    ASSERT(winner(&c, &plain_t) == &plain_t);

    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row old = row_of(&t, 1), upd = row_of(&c, 1), out;
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cells, 1);
    ASSERT(cell_eq(&out.cells[0], &t)); /* incrementing a deleted counter does not revive it */
    merge_ok(&upd, &old, &out, &a);
    ASSERT(cell_eq(&out.cells[0], &t));
    eng_arena_free(&a);
}

TEST(test_counter_deltas_sum_with_wraparound)
{
    uint8_t b1[8], b2[8], b3[8];
    eng_cell total = counter(2, T0 + 5, INT64_MAX, b1), delta = counter(2, T0 + 1, 1, b2);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row old = row_of(&total, 1), upd = row_of(&delta, 1), out;
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cells, 1);
    ASSERT_EQ(counter_value(&out.cells[0]), INT64_MIN);
    ASSERT_EQ(out.cells[0].ts_us, T0 + 5); /* the greater timestamp */
    ASSERT_EQ(out.cells[0].flags, ENG_CELL_COUNTER);
    ASSERT_EQ(counter_value(&total), INT64_MAX); /* inputs untouched */

    eng_cell minus = counter(2, T0 + 9, -7, b3);
    eng_row upd2 = row_of(&minus, 1), out2;
    merge_ok(&out, &upd2, &out2, &a);
    ASSERT_EQ(counter_value(&out2.cells[0]), INT64_MAX - 6); /* wraps back */
    ASSERT_EQ(out2.cells[0].ts_us, T0 + 9);
    eng_arena_free(&a);
}

TEST(test_counter_delta_after_row_deletion_starts_from_zero)
{
    uint8_t b1[8], b2[8];
    eng_cell total = counter(1, T0, 40, b1), delta = counter(1, T0 + 10, 2, b2);
    eng_row old = row_of(&total, 1), upd = row_of(&delta, 1), out;
    old.deletion = del(T0 + 5, S0); /* deletes the total, not the newer delta */
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cells, 1);
    ASSERT_EQ(counter_value(&out.cells[0]), 2);
    eng_arena_free(&a);
}

TEST(test_counter_merge_rejects_bad_counter_length)
{
    uint8_t b1[8];
    eng_cell total = counter(1, T0, 1, b1), bad = counter(1, T0 + 1, 0, b1);
    bad.value.len = 4;
    eng_row old = row_of(&total, 1), upd = row_of(&bad, 1), out;
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(eng_row_merge(&old, &upd, &out, &a, &err), ENG_E_INVALID);
    eng_arena_free(&a);
}

/* ---- liveness (facts §4.3, §4.7) ---- */

TEST(test_row_with_marker_stays_live_with_all_cells_deleted)
{
    eng_cell cells[] = {tomb(1, T0 + 1, S0), tomb(2, T0 + 2, S0)};
    eng_row r = row_of(cells, 2);
    r.marker = marker(T0, 0, 0);
    ASSERT(eng_row_has_live_data(&r, NULL, S0 + 10));
    eng_deletion none = del(ENG_TS_NONE, ENG_LDT_LIVE);
    ASSERT(eng_row_has_live_data(&r, &none, S0 + 10));
}

TEST(test_row_without_marker_dies_when_its_cells_are_deleted)
{
    eng_cell cells[] = {live(1, T0, "a"), live(2, T0, "b")};
    eng_row r = row_of(cells, 2);
    ASSERT(eng_row_has_live_data(&r, NULL, S0));
    cells[0] = tomb(1, T0 + 1, S0);
    ASSERT(eng_row_has_live_data(&r, NULL, S0));
    cells[1] = tomb(2, T0 + 1, S0);
    ASSERT(!eng_row_has_live_data(&r, NULL, S0));
}

TEST(test_expired_ttl_cell_not_live_at_expiry_second)
{
    eng_cell e = expiring(1, T0, 10, S0 + 10, "v");
    ASSERT(eng_cell_is_live(&e, S0 + 9));
    ASSERT(!eng_cell_is_live(&e, S0 + 10));
    eng_row r = row_of(&e, 1);
    ASSERT(eng_row_has_live_data(&r, NULL, S0 + 9));
    ASSERT(!eng_row_has_live_data(&r, NULL, S0 + 10));
    eng_cell t = tomb(1, T0, S0 + 100);
    ASSERT(!eng_cell_is_live(&t, S0));
}

TEST(test_expiring_marker_not_live_at_expiry_second)
{
    eng_liveness m = marker(T0, 10, S0 + 10), none = marker(ENG_TS_NONE, 0, 0);
    ASSERT(eng_liveness_is_live(&m, S0 + 9));
    ASSERT(!eng_liveness_is_live(&m, S0 + 10));
    ASSERT(!eng_liveness_is_live(&none, S0));
    eng_liveness plain = marker(T0, 0, 0);
    ASSERT(eng_liveness_is_live(&plain, INT64_MAX - 1));
}

TEST(test_covering_deletion_hides_older_row_data)
{
    eng_cell cells[] = {live(1, T0, "a")};
    eng_row r = row_of(cells, 1);
    r.marker = marker(T0, 0, 0);
    eng_deletion pdel = del(T0, S0); /* ties go to the deletion */
    ASSERT(!eng_row_has_live_data(&r, &pdel, S0));
    cells[0].ts_us = T0 + 1; /* a newer write lives again */
    ASSERT(eng_row_has_live_data(&r, &pdel, S0));
    r.deletion = del(T0 + 1, S0);
    ASSERT(!eng_row_has_live_data(&r, &pdel, S0));
}

TEST(test_complex_deletion_hides_older_elements)
{
    eng_cell cells[] = {at_path(live(3, T0, ""), "a"), at_path(live(3, T0, ""), "b")};
    eng_complex_del cd = {3, del(T0, S0)};
    eng_row r = row_of(cells, 2);
    r.cdels = &cd;
    r.n_cdels = 1;
    ASSERT(!eng_row_has_live_data(&r, NULL, S0));
    cells[1].ts_us = T0 + 1;
    ASSERT(eng_row_has_live_data(&r, NULL, S0));
}

/* ---- merge ---- */

TEST(test_merge_drops_cells_shadowed_by_row_deletion_keeps_newer)
{
    eng_cell old_cells[] = {live(1, T0, "old1"), live(2, T0 + 20, "new2"), live(3, T0 + 10, "eq")};
    eng_row old = row_of(old_cells, 3), upd, out;
    old.marker = marker(T0, 0, 0);
    eng_row_init(&upd);
    upd.deletion = del(T0 + 10, S0);
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cells, 1);
    ASSERT(cell_eq(&out.cells[0], &old_cells[1]));
    ASSERT_EQ(out.marker.ts_us, ENG_TS_NONE); /* the marker is shadowed too */
    ASSERT_EQ(out.deletion.ts_us, T0 + 10);
    eng_arena_free(&a);
}

TEST(test_tombstone_shadows_older_write_arriving_later)
{
    eng_cell t = tomb(1, T0 + 10, S0), w = live(1, T0, "late");
    eng_row rt = row_of(&t, 1), rw = row_of(&w, 1), out1, out2;
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&rt, &rw, &out1, &a);
    merge_ok(&rw, &rt, &out2, &a);
    ASSERT_EQ(out1.n_cells, 1);
    ASSERT(cell_eq(&out1.cells[0], &t));
    ASSERT(row_eq(&out1, &out2));

    /* the same with a row deletion instead of a cell tombstone */
    eng_row rd;
    eng_row_init(&rd);
    rd.deletion = del(T0 + 10, S0);
    merge_ok(&rd, &rw, &out1, &a);
    merge_ok(&rw, &rd, &out2, &a);
    ASSERT_EQ(out1.n_cells, 0);
    ASSERT(row_eq(&out1, &out2));
    eng_arena_free(&a);
}

TEST(test_collection_overwrite_keeps_new_elements_drops_old)
{
    /* stored: {a, b} at T0; SET s = {b, c} at T0+10 writes cdel at T0+9 plus cells at T0+10 */
    eng_cell old_cells[] = {live(1, T0, "v"), at_path(live(4, T0, ""), "a"),
                            at_path(live(4, T0, ""), "b")};
    eng_cell upd_cells[] = {at_path(live(4, T0 + 10, ""), "b"), at_path(live(4, T0 + 10, ""), "c")};
    eng_complex_del cd = {4, del(T0 + 9, S0)};
    eng_row old = row_of(old_cells, 3), upd = row_of(upd_cells, 2), out;
    upd.cdels = &cd;
    upd.n_cdels = 1;
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cells, 3);
    ASSERT(cell_eq(&out.cells[0], &old_cells[0])); /* other columns untouched */
    ASSERT(cell_eq(&out.cells[1], &upd_cells[0]));
    ASSERT(cell_eq(&out.cells[2], &upd_cells[1]));
    ASSERT_EQ(out.n_cdels, 1);
    ASSERT_EQ(out.cdels[0].del.ts_us, T0 + 9);
    eng_arena_free(&a);
}

TEST(test_complex_deletion_shadows_older_element_arriving_later)
{
    eng_complex_del cd = {4, del(T0 + 9, S0)};
    eng_cell keep = at_path(live(4, T0 + 10, ""), "new");
    eng_row old = row_of(&keep, 1), upd, out;
    old.cdels = &cd;
    old.n_cdels = 1;
    eng_cell late[] = {at_path(live(4, T0 + 9, ""), "late"), at_path(live(4, T0 + 11, ""), "x")};
    upd = row_of(late, 2);
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cells, 2);
    ASSERT(cell_eq(&out.cells[0], &keep));
    ASSERT(cell_eq(&out.cells[1], &late[1]));
    eng_arena_free(&a);
}

TEST(test_complex_deletion_dropped_when_row_deletion_supersedes_it)
{
    eng_complex_del cd = {4, del(T0, S0)};
    eng_row old, upd, out;
    eng_row_init(&old);
    old.cdels = &cd;
    old.n_cdels = 1;
    eng_row_init(&upd);
    upd.deletion = del(T0 + 1, S0);
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cdels, 0);
    ASSERT_EQ(out.deletion.ts_us, T0 + 1);
    upd.deletion = del(T0 - 1, S0); /* weaker row deletion: the complex deletion stays */
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cdels, 1);
    eng_arena_free(&a);
}

TEST(test_merge_takes_winner_per_position_in_order)
{
    eng_cell old_cells[] = {live(1, T0, "o1"), live(3, T0 + 5, "o3"),
                            at_path(live(5, T0, ""), "b")};
    eng_cell upd_cells[] = {live(2, T0, "u2"), live(3, T0 + 1, "u3"), at_path(live(5, T0, ""), "a"),
                            at_path(tomb(5, T0, S0), "b"), live(9, T0, "u9")};
    eng_row old = row_of(old_cells, 3), upd = row_of(upd_cells, 5), out;
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.n_cells, 6);
    ASSERT(cell_eq(&out.cells[0], &old_cells[0]));
    ASSERT(cell_eq(&out.cells[1], &upd_cells[0]));
    ASSERT(cell_eq(&out.cells[2], &old_cells[1])); /* older update loses */
    ASSERT(cell_eq(&out.cells[3], &upd_cells[2]));
    ASSERT(cell_eq(&out.cells[4], &upd_cells[3])); /* tombstone wins the tie */
    ASSERT(cell_eq(&out.cells[5], &upd_cells[4]));
    eng_arena_free(&a);
}

TEST(test_merge_marker_takes_superseding_one)
{
    eng_row old, upd, out;
    eng_row_init(&old);
    eng_row_init(&upd);
    old.marker = marker(T0, 0, 0);
    upd.marker = marker(T0, 100, S0 + 100);
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.marker.ttl_s, 100); /* expiring wins at equal ts */
    upd.marker = marker(T0 - 1, 0, 0);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.marker.ts_us, T0);
    eng_row_init(&upd);
    merge_ok(&old, &upd, &out, &a);
    ASSERT_EQ(out.marker.ts_us, T0);
    eng_arena_free(&a);
}

TEST(test_merge_output_may_alias_input)
{
    eng_cell old_cells[] = {live(1, T0, "a")}, upd_cells[] = {live(1, T0 + 1, "b")};
    eng_row old = row_of(old_cells, 1), upd = row_of(upd_cells, 1);
    eng_arena a;
    eng_arena_init(&a, 0);
    merge_ok(&old, &upd, &old, &a);
    ASSERT_EQ(old.n_cells, 1);
    ASSERT(cell_eq(&old.cells[0], &upd_cells[0]));
    eng_arena_free(&a);
}

TEST(test_merge_out_of_memory_reports_nomem)
{
    eng_cell old_cells[] = {live(1, T0, "a")}, upd_cells[] = {live(2, T0, "b")};
    eng_row old = row_of(old_cells, 1), upd = row_of(upd_cells, 1), out;
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_err err;
    eng_err_clear(&err);
    eng_alloc_fail_after(0);
    int rc = eng_row_merge(&old, &upd, &out, &a, &err);
    eng_alloc_fail_after(-1);
    ASSERT_EQ(rc, ENG_E_NOMEM);
    eng_arena_free(&a);
}

static const char *small_vals[] = {"", "\x7f", "\x80", "a"};

/* A regular cell over a tiny domain, so that ties are frequent; ttl follows from ldt. */
static eng_cell small_cell(uint64_t *s, uint32_t col)
{
    int64_t ts = T0 + (int64_t)(test_rand(s) % 3);
    int32_t ttl = 1 + (int32_t)(test_rand(s) % 2);
    const char *v = small_vals[test_rand(s) % ENG_ARRAY_LEN(small_vals)];
    switch (test_rand(s) % 3) {
    case 0: return live(col, ts, v);
    case 1: return tomb(col, ts, S0 + ttl);
    default: return expiring(col, ts, ttl, S0 + ttl, v);
    }
}

/* Simple columns 1 and 2, a collection column 3 with paths "a" and "b". */
static eng_row small_row(uint64_t *s, eng_cell cells[4], eng_complex_del *cdel)
{
    static const char *paths[] = {"a", "b"};
    eng_row r;
    eng_row_init(&r);
    if (test_rand(s) % 2) {
        int32_t ttl = (int32_t)(test_rand(s) % 3);
        r.marker = marker(T0 + (int64_t)(test_rand(s) % 3), ttl, S0 + ttl);
    }
    if (test_rand(s) % 3 == 0)
        r.deletion = del(T0 + (int64_t)(test_rand(s) % 3), S0 + (int64_t)(test_rand(s) % 2));
    uint32_t n = 0;
    for (uint32_t col = 1; col <= 2; col++)
        if (test_rand(s) % 2)
            cells[n++] = small_cell(s, col);
    for (int p = 0; p < 2; p++)
        if (test_rand(s) % 2)
            cells[n++] = at_path(small_cell(s, 3), paths[p]);
    r.cells = cells;
    r.n_cells = n;
    if (test_rand(s) % 3 == 0) {
        cdel->col = 3;
        cdel->del = del(T0 + (int64_t)(test_rand(s) % 3), S0 + (int64_t)(test_rand(s) % 2));
        r.cdels = cdel;
        r.n_cdels = 1;
    }
    return r;
}

TEST(test_merge_is_commutative_and_associative)
{
    /* the order in which writes reach a row never changes what it ends up holding */
    uint64_t s = test_seed();
    eng_arena a;
    eng_arena_init(&a, 0);
    for (int iter = 0; iter < 20000; iter++) {
        eng_cell ca[4], cb[4], cc[4];
        eng_complex_del da, db, dc;
        eng_row x = small_row(&s, ca, &da), y = small_row(&s, cb, &db), z = small_row(&s, cc, &dc);
        eng_row xy, yx, xy_z, yz, x_yz;
        merge_ok(&x, &y, &xy, &a);
        merge_ok(&y, &x, &yx, &a);
        ASSERT(row_eq(&xy, &yx));
        merge_ok(&xy, &z, &xy_z, &a);
        merge_ok(&y, &z, &yz, &a);
        merge_ok(&x, &yz, &x_yz, &a);
        ASSERT(row_eq(&xy_z, &x_yz));
        eng_arena_reset(&a);
    }
    eng_arena_free(&a);
}

/* ---- purge (facts §4.7) ---- */

TEST(test_purge_converts_expired_cell_to_tombstone_then_drops_it_after_gc_grace)
{
    const int64_t grace = 864000;
    eng_cell cells[] = {expiring(1, T0, 100, S0 + 100, "v")};
    eng_row r = row_of(cells, 1);
    int64_t now = S0 + 100; /* the expiry second */
    ASSERT_EQ(eng_row_purge(&r, NULL, now, now - grace), 0);
    ASSERT_EQ(r.n_cells, 1);
    ASSERT_EQ(r.cells[0].flags, ENG_CELL_TOMBSTONE);
    ASSERT_EQ(r.cells[0].ts_us, T0);
    ASSERT_EQ(r.cells[0].ldt_s, S0); /* expiry - ttl: grace counts from the write */
    ASSERT_EQ(r.cells[0].ttl_s, 0);
    ASSERT_EQ(r.cells[0].value.len, 0);
    /* gc_before = S0 keeps it (ldt < gc_before is needed), S0 + 1 drops it */
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + grace, S0), 0);
    ASSERT_EQ(r.n_cells, 1);
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + 1 + grace, S0 + 1), 1);
    ASSERT_EQ(r.n_cells, 0);
}

TEST(test_purge_drops_expired_cell_whose_write_is_past_gc_grace)
{
    eng_cell cells[] = {expiring(1, T0, 100, S0 + 100, "v"), live(2, T0, "x")};
    eng_row r = row_of(cells, 2);
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + 1000, S0 + 50), 0);
    ASSERT_EQ(r.n_cells, 1);
    ASSERT_EQ(r.cells[0].col, 2);
}

TEST(test_purge_keeps_young_tombstones_and_live_data)
{
    eng_cell cells[] = {tomb(1, T0, S0), live(2, T0, "x"), expiring(3, T0, 100, S0 + 100, "y")};
    eng_row r = row_of(cells, 3);
    r.deletion = del(T0 - 5, S0);
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + 50, S0 - 10), 0);
    ASSERT_EQ(r.n_cells, 3);
    ASSERT_EQ(r.cells[2].flags, ENG_CELL_EXPIRING); /* not yet expired */
    ASSERT_EQ(r.deletion.ts_us, T0 - 5);
}

TEST(test_purge_drops_row_and_complex_deletions_after_gc_grace)
{
    eng_complex_del cds[] = {{4, del(T0, S0)}, {5, del(T0, S0 + 10)}};
    eng_row r;
    eng_row_init(&r);
    r.deletion = del(T0 - 1, S0);
    r.cdels = cds;
    r.n_cdels = 2;
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + 20, S0 + 5), 0);
    ASSERT_EQ(r.deletion.ts_us, ENG_TS_NONE);
    ASSERT_EQ(r.n_cdels, 1);
    ASSERT_EQ(r.cdels[0].col, 5);
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + 20, S0 + 11), 1);
}

TEST(test_purge_drops_data_shadowed_by_covering_row_and_complex_deletions)
{
    eng_cell cells[] = {live(1, T0, "a"), live(2, T0 + 20, "b"), at_path(live(4, T0 + 12, ""), "x"),
                        at_path(live(4, T0 + 16, ""), "y")};
    eng_complex_del cd = {4, del(T0 + 15, S0)};
    eng_row r = row_of(cells, 4);
    r.marker = marker(T0 + 5, 0, 0);
    r.deletion = del(T0 + 2, S0);
    r.cdels = &cd;
    r.n_cdels = 1;
    eng_deletion cov = del(T0 + 10, S0);
    ASSERT_EQ(eng_row_purge(&r, &cov, S0, S0 - 1), 0);
    ASSERT_EQ(r.marker.ts_us, ENG_TS_NONE);
    ASSERT_EQ(r.deletion.ts_us, ENG_TS_NONE); /* subsumed by the covering deletion */
    ASSERT_EQ(r.n_cdels, 1);
    ASSERT_EQ(r.n_cells, 2);
    ASSERT_EQ(r.cells[0].col, 2);
    ASSERT_EQ(r.cells[1].ts_us, T0 + 16);
}

TEST(test_purge_keeps_expired_marker_until_its_expiry_leaves_gc_grace)
{
    eng_row r;
    eng_row_init(&r);
    r.marker = marker(T0, 10, S0 + 10);
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + 20, S0 + 10), 0);
    ASSERT_EQ(r.marker.ts_us, T0);
    ASSERT_EQ(eng_row_purge(&r, NULL, S0 + 20, S0 + 11), 1);
    ASSERT_EQ(r.marker.ts_us, ENG_TS_NONE);
}

/* ---- stored row format ---- */

static uint8_t pool[512];

static void fill_pool(uint64_t *s)
{
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)test_rand(s);
}

static eng_val pool_val(uint64_t *s, size_t max_len)
{
    size_t len = test_rand(s) % (max_len + 1);
    eng_val v = {pool + test_rand(s) % (sizeof pool - max_len), (int32_t)len};
    return v;
}

static int64_t rand_ts(uint64_t *s, int64_t base)
{
    switch (test_rand(s) % 4) {
    case 0: return base;
    case 1: return base + (int64_t)(test_rand(s) % 1000) - 500;
    case 2: return (int64_t)(test_rand(s) | 1); /* odd, so never ENG_TS_NONE */
    default: return base + (int64_t)(test_rand(s) % 100000000);
    }
}

static eng_cell rand_cell(uint64_t *s, uint32_t col, int64_t base, uint8_t *ctr)
{
    eng_cell c = live(col, rand_ts(s, base), "");
    c.value = pool_val(s, 40);
    switch (test_rand(s) % 5) {
    case 0: break;
    case 1: c = tomb(col, c.ts_us, S0 + (int64_t)(test_rand(s) % 100000) - 50000); break;
    case 2:
        c.flags = ENG_CELL_EXPIRING;
        c.ttl_s = 1 + (int32_t)(test_rand(s) % 630720000);
        c.ldt_s = S0 + c.ttl_s + (int64_t)(test_rand(s) % 1000);
        break;
    case 3: c = counter(col, c.ts_us, (int64_t)test_rand(s), ctr); break;
    default: c = tomb(col, c.ts_us, (int64_t)test_rand(s)); c.flags |= ENG_CELL_COUNTER; break;
    }
    if (test_rand(s) % 2)
        c.path = pool_val(s, 6);
    return c;
}

static int position_qsort_cmp(const void *a, const void *b)
{
    return eng_cell_position_cmp(a, b);
}

/* A random well-formed row in cells[max] / cdels[max]. */
static eng_row rand_row(uint64_t *s, eng_cell *cells, eng_complex_del *cdels, uint8_t (*ctr)[8],
                        uint32_t max)
{
    eng_row r;
    eng_row_init(&r);
    int64_t base = T0 + (int64_t)(test_rand(s) % 1000000000);
    if (test_rand(s) % 3)
        r.marker = test_rand(s) % 2 ? marker(base, 0, 0)
                                    : marker(base, 1 + (int32_t)(test_rand(s) % 1000), S0 + 999);
    if (test_rand(s) % 3 == 0)
        r.deletion = del(rand_ts(s, base), S0 + (int64_t)(test_rand(s) % 1000));
    uint32_t n = (uint32_t)(test_rand(s) % (max + 1)), col = 0;
    for (uint32_t i = 0; i < n; i++) {
        col += (uint32_t)(test_rand(s) % 4 == 0 ? test_rand(s) % 100000 : test_rand(s) % 3);
        cells[i] = rand_cell(s, col, base, ctr[i]);
    }
    qsort(cells, n, sizeof *cells, position_qsort_cmp);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!m || eng_cell_position_cmp(&cells[m - 1], &cells[i]) < 0)
            cells[m++] = cells[i];
    r.cells = m ? cells : NULL;
    r.n_cells = m;
    uint32_t nd = (uint32_t)(test_rand(s) % 3), dcol = 0;
    for (uint32_t i = 0; i < nd; i++) {
        dcol += 1 + (uint32_t)(test_rand(s) % 300);
        cdels[i].col = dcol;
        cdels[i].del = del(rand_ts(s, base), S0 + (int64_t)(test_rand(s) % 1000));
    }
    r.cdels = nd ? cdels : NULL;
    r.n_cdels = nd;
    return r;
}

static int decode_copy(const uint8_t *p, size_t len, eng_row *out, eng_arena *a, eng_err *err)
{
    uint8_t *copy = malloc(len ? len : 1); /* exact size, so ASAN sees any over-read */
    ASSERT(copy);
    if (len)
        memcpy(copy, p, len);
    eng_err_clear(err);
    int rc = eng_row_decode(copy, len, TEST_SEAL, out, a, err);
    free(copy);
    return rc;
}

TEST(test_row_round_trip_random)
{
    uint64_t s = test_seed();
    fill_pool(&s);
    eng_arena a;
    eng_arena_init(&a, 0);
    for (int iter = 0; iter < 3000; iter++) {
        eng_cell cells[24];
        eng_complex_del cdels[3];
        uint8_t ctr[24][8];
        eng_row r = rand_row(&s, cells, cdels, ctr, 24), back;
        eng_buf b = ENG_BUF_INIT;
        eng_row_encode(&r, TEST_SEAL, &b);
        ASSERT(!b.oom);
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_row_decode(b.p, b.len, TEST_SEAL, &back, &a, &err), &err);
        ASSERT(row_eq(&r, &back));
        for (uint32_t i = 0; i < back.n_cells; i++) /* values are views into the bytes */
            if (back.cells[i].value.len > 0)
                ASSERT(back.cells[i].value.p >= b.p && back.cells[i].value.p < b.p + b.len);
        eng_buf_free(&b);
        eng_arena_reset(&a);
    }
    eng_arena_free(&a);
}

TEST(test_row_round_trip_extreme_values)
{
    eng_cell cells[] = {live(0, INT64_MAX, "a"), live(1, INT64_MIN + 1, "b"),
                        tomb(7, -1, INT64_MIN), tomb(8, 0, INT64_MAX),
                        expiring(UINT32_MAX, INT64_MAX, INT32_MAX, INT64_MAX, "c")};
    eng_complex_del cd = {UINT32_MAX - 1, del(INT64_MIN + 1, INT64_MAX)};
    eng_row r = row_of(cells, 5), back;
    r.marker = marker(INT64_MIN + 1, INT32_MAX, INT64_MIN);
    r.deletion = del(INT64_MAX, INT64_MIN);
    r.cdels = &cd;
    r.n_cdels = 1;
    eng_buf b = ENG_BUF_INIT;
    eng_row_encode(&r, TEST_SEAL, &b);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_row_decode(b.p, b.len, TEST_SEAL, &back, &a, &err), &err);
    ASSERT(row_eq(&r, &back));
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_row_empty_round_trip)
{
    eng_row r, back;
    eng_row_init(&r);
    eng_buf b = ENG_BUF_INIT;
    eng_row_encode(&r, TEST_SEAL, &b);
    ASSERT_EQ(b.len, 6); /* format, checksum, flags */
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_row_decode(b.p, b.len, TEST_SEAL, &back, &a, &err), &err);
    ASSERT(eng_row_is_empty(&back));
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_row_encode_appends_after_existing_bytes)
{
    eng_cell c = live(1, T0, "v");
    eng_row r = row_of(&c, 1), back;
    eng_buf b = ENG_BUF_INIT;
    eng_buf_put_str(&b, "prefix");
    eng_row_encode(&r, TEST_SEAL, &b);
    ASSERT_MEM_EQ(b.p, "prefix", 6);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_row_decode(b.p + 6, b.len - 6, TEST_SEAL, &back, &a, &err), &err);
    ASSERT(row_eq(&r, &back));
    eng_buf_free(&b);
    eng_arena_free(&a);
}

/* A row using every feature of the format. */
static void encode_rich_row(eng_buf *b, uint8_t ctr[8])
{
    eng_cell cells[] = {live(1, T0, "hello"), tomb(2, T0 + 3, S0),
                        expiring(3, T0, 60, S0 + 60, "ttl"), counter(9, T0 - 1, 77, ctr),
                        at_path(live(20, T0, ""), "k1"), at_path(tomb(20, T0, S0), "k2"),
                        live(400, T0 + 1000000, "far")};
    eng_complex_del cd = {20, del(T0 - 1, S0)};
    eng_row r = row_of(cells, ENG_ARRAY_LEN(cells));
    r.marker = marker(T0, 60, S0 + 60);
    r.deletion = del(T0 - 100, S0 - 1);
    r.cdels = &cd;
    r.n_cdels = 1;
    eng_row_encode(&r, TEST_SEAL, b);
}

TEST(test_row_every_single_bit_flip_is_rejected)
{
    uint8_t ctr[8];
    eng_buf b = ENG_BUF_INIT;
    encode_rich_row(&b, ctr);
    eng_arena a;
    eng_arena_init(&a, 0);
    for (size_t i = 0; i < b.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            b.p[i] ^= (uint8_t)(1u << bit);
            eng_row out;
            eng_err err;
            ASSERT_EQ(decode_copy(b.p, b.len, &out, &a, &err), ENG_E_CORRUPT);
            ASSERT(strstr(err.msg, "stored row") == err.msg);
            ASSERT(eng_row_is_empty(&out));
            b.p[i] ^= (uint8_t)(1u << bit);
        }
    }
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_row_every_truncation_is_rejected)
{
    uint8_t ctr[8];
    eng_buf b = ENG_BUF_INIT;
    encode_rich_row(&b, ctr);
    eng_arena a;
    eng_arena_init(&a, 0);
    for (size_t n = 0; n < b.len; n++) {
        eng_row out;
        eng_err err;
        ASSERT_EQ(decode_copy(b.p, n, &out, &a, &err), ENG_E_CORRUPT);
    }
    eng_row out;
    eng_err err;
    ASSERT_EQ(decode_copy(b.p, b.len, &out, &a, &err), 0);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_row_corruption_messages)
{
    uint8_t ctr[8];
    eng_buf b = ENG_BUF_INIT;
    encode_rich_row(&b, ctr);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row out;
    eng_err err;
    b.p[b.len - 1] ^= 1;
    ASSERT_EQ(decode_copy(b.p, b.len, &out, &a, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "stored row failed its checksum");
    b.p[b.len - 1] ^= 1;
    b.p[0] = 3;
    ASSERT_EQ(decode_copy(b.p, b.len, &out, &a, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "stored row is malformed: unknown format 3");
    ASSERT_EQ(decode_copy(b.p, 3, &out, &a, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "stored row is malformed: 3 bytes is too short");
    eng_buf_free(&b);
    eng_arena_free(&a);
}

/* Format byte and a valid checksum around an arbitrary body. */
static void forge(eng_buf *b, const uint8_t *body, size_t len)
{
    eng_buf_reset(b);
    eng_buf_put_u8(b, 2);
    eng_buf_put_be32(b, (uint32_t)XXH3_64bits_withSeed(body, len, TEST_SEAL));
    eng_buf_put(b, body, len);
}

TEST(test_row_checksum_binds_the_value_to_its_key)
{
    uint8_t ctr[8];
    eng_buf b = ENG_BUF_INIT;
    encode_rich_row(&b, ctr);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row out;
    eng_err err;
    eng_err_clear(&err);
    /* intact bytes under another key (another seal) are as wrong as damaged bytes */
    ASSERT_EQ(eng_row_decode(b.p, b.len, TEST_SEAL ^ 1, &out, &a, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, "stored row failed its checksum");
    eng_err_clear(&err);
    ASSERT_EQ(eng_stored_verify(b.p, b.len, TEST_SEAL, "row", &err), 0);
    ASSERT_EQ(eng_stored_verify(b.p, b.len, TEST_SEAL + 1, "row", &err), ENG_E_CORRUPT);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_row_format_1_without_a_seal_is_still_read)
{
    uint8_t ctr[8];
    eng_buf b = ENG_BUF_INIT;
    encode_rich_row(&b, ctr);
    /* the same body as format 1 wrote it: the checksum of the body alone */
    b.p[0] = 1;
    eng_put_be32(b.p + 1, (uint32_t)XXH3_64bits(b.p + 5, b.len - 5));
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row out;
    eng_err err;
    ASSERT_OK_ERR(decode_copy(b.p, b.len, &out, &a, &err), &err);
    ASSERT_EQ(out.marker.ts_us != ENG_TS_NONE || out.n_cells > 0, 1);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

static void expect_malformed(const uint8_t *body, size_t len, const char *msg)
{
    eng_buf b = ENG_BUF_INIT;
    forge(&b, body, len);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row out;
    eng_err err;
    ASSERT_EQ(decode_copy(b.p, b.len, &out, &a, &err), ENG_E_CORRUPT);
    ASSERT_STR_EQ(err.msg, msg);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_row_malformed_body_with_valid_checksum_is_rejected)
{
    /* flags: base; base ts 0; cell col 1 with a value length past the end */
    const uint8_t past_end[] = {0x01, 0x00, 0x20, 0x05, 'a'};
    expect_malformed(past_end, sizeof past_end,
                     "stored row is malformed: a length runs past the end");
    const uint8_t bad_flags[] = {0x81};
    expect_malformed(bad_flags, sizeof bad_flags, "stored row is malformed: unknown row flags");
    /* two cells at column 1, the second not after the first */
    const uint8_t dup[] = {0x01, 0x00, 0x20, 0x01, 'a', 0x00, 0x01, 'b'};
    expect_malformed(dup, sizeof dup, "stored row is malformed: cells are out of order");
    /* a cell both tombstone and expiring */
    const uint8_t both[] = {0x01, 0x00, 0x23, 0x01, 0x00};
    expect_malformed(both, sizeof both,
                     "stored row is malformed: a cell is both a tombstone and expiring");
    /* expiring cell with TTL 0 */
    const uint8_t ttl0[] = {0x01, 0x00, 0x22, 0x00, 0x00, 0x00};
    expect_malformed(ttl0, sizeof ttl0, "stored row is malformed: TTL out of range");
    /* live counter with a 2-byte value */
    const uint8_t ctr[] = {0x01, 0x00, 0x24, 0x02, 'a', 'b'};
    expect_malformed(ctr, sizeof ctr, "stored row is malformed: a counter value is not 8 bytes");
    /* a cell without a base timestamp */
    const uint8_t nobase[] = {0x00, 0x20, 0x00};
    expect_malformed(nobase, sizeof nobase,
                     "stored row is malformed: row data without a base timestamp");
    /* complex deletion count larger than the body */
    const uint8_t cdn[] = {0x11, 0x00, 0x7f, 0x01, 0x00, 0x00};
    expect_malformed(cdn, sizeof cdn, "stored row is malformed: bad complex deletion count");
    /* column id overflowing uint32: escape with a 5-byte uvint delta */
    const uint8_t col[] = {0x01, 0x00, 0xE0, 0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00};
    expect_malformed(col, sizeof col, "stored row is malformed: column id out of range");
}

TEST(test_row_random_bodies_with_valid_checksum_never_crash)
{
    uint64_t s = test_seed();
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_buf b = ENG_BUF_INIT;
    int ok = 0;
    for (int iter = 0; iter < 50000; iter++) {
        uint8_t body[24];
        size_t len = test_rand(&s) % sizeof body;
        for (size_t i = 0; i < len; i++)
            body[i] = (uint8_t)test_rand(&s);
        if (len)
            body[0] &= 0x1F; /* mostly valid flags, to get past the first check */
        forge(&b, body, len);
        eng_row out;
        eng_err err;
        int rc = decode_copy(b.p, b.len, &out, &a, &err);
        ASSERT(rc == 0 || rc == ENG_E_CORRUPT);
        ok += rc == 0;
        if (rc == 0) { /* whatever decodes must be well-formed */
            for (uint32_t i = 1; i < out.n_cells; i++)
                ASSERT(eng_cell_position_cmp(&out.cells[i - 1], &out.cells[i]) < 0);
        }
        eng_arena_reset(&a);
    }
    ASSERT(ok > 0);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

/* ENG_TS_NONE stands for "no marker" / "no deletion": the encoder never writes one at it, so a
   body that decodes to one is damaged, not a row with a marker nobody can see (fuzz_row). */
TEST(test_row_marker_or_deletion_at_no_timestamp_is_corrupt)
{
    /* zig-zag INT64_MIN is all ones: the 9-byte uvint FF FF FF FF FF FF FF FF FF */
    static const uint8_t marker_at_none[] = {0x03, 0xff, 0xff, 0xff, 0xff,
                                             0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t deletion_at_none[] = {0x09, 0x00, 0xff, 0xff, 0xff, 0xff,
                                               0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
    static const uint8_t pdel_at_none[] = {0x01, 0xff, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 0xff, 0xff, 0x00, 0x00};
    static const uint8_t marker_at_zero[] = {0x03, 0x00};
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row row;
    eng_pheader h;
    eng_err err;
    eng_err_clear(&err);
    ASSERT_EQ(eng_row_decode_body(marker_at_none, sizeof marker_at_none, &row, &a, &err),
              ENG_E_CORRUPT);
    eng_err_clear(&err);
    ASSERT_EQ(eng_row_decode_body(deletion_at_none, sizeof deletion_at_none, &row, &a, &err),
              ENG_E_CORRUPT);
    eng_err_clear(&err);
    ASSERT_EQ(eng_pheader_decode_body(pdel_at_none, sizeof pdel_at_none, &h, &a, &err),
              ENG_E_CORRUPT);
    eng_err_clear(&err);
    ASSERT_OK_ERR(eng_row_decode_body(marker_at_zero, sizeof marker_at_zero, &row, &a, &err), &err);
    ASSERT_EQ(row.marker.ts_us, 0);
    eng_arena_free(&a);
}

TEST(test_row_decode_out_of_memory_reports_nomem)
{
    uint8_t ctr[8];
    eng_buf b = ENG_BUF_INIT;
    encode_rich_row(&b, ctr);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_row out;
    eng_err err;
    eng_err_clear(&err);
    eng_alloc_fail_after(0);
    int rc = eng_row_decode(b.p, b.len, TEST_SEAL, &out, &a, &err);
    eng_alloc_fail_after(-1);
    ASSERT_EQ(rc, ENG_E_NOMEM);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_row_three_same_ts_cells_overhead_is_small)
{
    /* INSERT INTO messages (..., author, body, sent) at one ts, no TTL */
    eng_cell cells[] = {live(2, T0, "alice"), live(3, T0, "hello, how are you?"),
                        live(4, T0, "\x00\x00\x01\x8b\xcf\xe5\x68\x00")};
    cells[2].value.len = 8;
    eng_row r = row_of(cells, 3);
    r.marker = marker(T0, 0, 0);
    eng_buf b = ENG_BUF_INIT;
    eng_row_encode(&r, TEST_SEAL, &b);
    size_t values = 5 + 19 + 8;
    /* format 1 + checksum 4 + flags 1 + base ts 8, then 2 bytes per cell */
    ASSERT_EQ(b.len - values, 20);
    eng_buf_free(&b);
}

/* ---- partition header ---- */

static eng_range_tomb rt_of(const char *lo, int lo_incl, const char *hi, int hi_incl)
{
    eng_range_tomb rt = {str_val(lo), str_val(hi), (uint8_t)lo_incl, (uint8_t)hi_incl,
                         {T0, S0}};
    return rt;
}

static int covers(const eng_range_tomb *rt, const char *k)
{
    return eng_range_tomb_covers(rt, (const uint8_t *)k, strlen(k));
}

TEST(test_range_inclusive_lo_covers_keys_starting_with_bound)
{
    eng_range_tomb rt = rt_of("b", 1, "", 0);
    ASSERT(covers(&rt, "b"));
    ASSERT(covers(&rt, "b\x00"));
    ASSERT(covers(&rt, "bz"));
    ASSERT(covers(&rt, "c"));
    ASSERT(!covers(&rt, "a"));
    ASSERT(!covers(&rt, "az"));
}

TEST(test_range_exclusive_lo_skips_keys_starting_with_bound)
{
    eng_range_tomb rt = rt_of("b", 0, "", 0);
    ASSERT(!covers(&rt, "b"));
    ASSERT(!covers(&rt, "b\x00"));
    ASSERT(!covers(&rt, "bzzz"));
    ASSERT(covers(&rt, "c"));
    ASSERT(covers(&rt, "c\x00"));
    ASSERT(!covers(&rt, "a"));
}

TEST(test_range_inclusive_hi_covers_keys_starting_with_bound)
{
    eng_range_tomb rt = rt_of("", 0, "m", 1);
    ASSERT(covers(&rt, "m"));
    ASSERT(covers(&rt, "m\xff\xff"));
    ASSERT(covers(&rt, "a"));
    ASSERT(covers(&rt, "l\xff"));
    ASSERT(!covers(&rt, "n"));
    ASSERT(!covers(&rt, "n\x00"));
}

TEST(test_range_exclusive_hi_skips_keys_starting_with_bound)
{
    eng_range_tomb rt = rt_of("", 0, "m", 0);
    ASSERT(!covers(&rt, "m"));
    ASSERT(!covers(&rt, "m\x00"));
    ASSERT(covers(&rt, "l"));
    ASSERT(covers(&rt, "l\xff\xff"));
    ASSERT(!covers(&rt, "n"));
}

TEST(test_range_with_both_bounds_and_unbounded_range)
{
    eng_range_tomb rt = rt_of("b", 1, "d", 0);
    ASSERT(covers(&rt, "b1"));
    ASSERT(covers(&rt, "c"));
    ASSERT(!covers(&rt, "d1"));
    ASSERT(!covers(&rt, "a"));
    eng_range_tomb all = rt_of("", 0, "", 0);
    ASSERT(covers(&all, ""));
    ASSERT(covers(&all, "\xff\xff"));
    eng_range_tomb same = rt_of("k", 1, "k", 1); /* DELETE ... WHERE c1 = k */
    ASSERT(covers(&same, "k"));
    ASSERT(covers(&same, "k7"));
    ASSERT(!covers(&same, "j"));
    ASSERT(!covers(&same, "l"));
}

TEST(test_covering_picks_superseding_deletion)
{
    eng_range_tomb rts[] = {rt_of("a", 1, "z", 1), rt_of("c", 1, "d", 1), rt_of("c", 1, "c", 1)};
    rts[0].del = del(T0 + 1, S0);
    rts[1].del = del(T0 + 5, S0);
    rts[2].del = del(T0 + 5, S0 + 9); /* same ts, later ldt supersedes */
    eng_pheader h;
    eng_pheader_init(&h);
    h.partition_del = del(T0 + 2, S0);
    h.rts = rts;
    h.n_rts = 3;
    eng_deletion d = eng_pheader_covering(&h, (const uint8_t *)"b", 1);
    ASSERT_EQ(d.ts_us, T0 + 2); /* the partition deletion beats the weaker range */
    d = eng_pheader_covering(&h, (const uint8_t *)"d1", 2);
    ASSERT_EQ(d.ts_us, T0 + 5);
    ASSERT_EQ(d.ldt_s, S0);
    d = eng_pheader_covering(&h, (const uint8_t *)"c1", 2);
    ASSERT_EQ(d.ldt_s, S0 + 9);
    h.partition_del = del(ENG_TS_NONE, ENG_LDT_LIVE);
    d = eng_pheader_covering(&h, (const uint8_t *)"\x01", 1);
    ASSERT_EQ(d.ts_us, ENG_TS_NONE);
}

static void pheader_eq(const eng_pheader *a, const eng_pheader *b)
{
    ASSERT(deletion_eq(a->partition_del, b->partition_del));
    ASSERT_EQ(a->n_rts, b->n_rts);
    for (uint32_t i = 0; i < a->n_rts; i++) {
        ASSERT(val_eq(a->rts[i].lo, b->rts[i].lo));
        ASSERT(val_eq(a->rts[i].hi, b->rts[i].hi));
        ASSERT_EQ(a->rts[i].lo_incl, b->rts[i].lo_incl);
        ASSERT_EQ(a->rts[i].hi_incl, b->rts[i].hi_incl);
        ASSERT(deletion_eq(a->rts[i].del, b->rts[i].del));
    }
}

static void sample_pheader(eng_pheader *h, eng_range_tomb rts[3])
{
    rts[0] = rt_of("a", 1, "c", 0);
    rts[1] = rt_of("", 0, "q\x00\xff", 1);
    rts[2] = rt_of("x", 0, "", 0);
    rts[1].del = del(INT64_MAX, INT64_MIN);
    rts[2].del = del(-5, 3);
    eng_pheader_init(h);
    h->partition_del = del(T0 - 7, S0);
    h->rts = rts;
    h->n_rts = 3;
}

TEST(test_pheader_round_trip)
{
    eng_range_tomb rts[3];
    eng_pheader h, back;
    sample_pheader(&h, rts);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_err err;
    eng_err_clear(&err);
    eng_buf b = ENG_BUF_INIT;
    eng_pheader_encode(&h, TEST_SEAL, &b);
    ASSERT_OK_ERR(eng_pheader_decode(b.p, b.len, TEST_SEAL, &back, &a, &err), &err);
    pheader_eq(&h, &back);

    eng_pheader_init(&h); /* and the empty header */
    eng_buf_reset(&b);
    eng_pheader_encode(&h, TEST_SEAL, &b);
    ASSERT_OK_ERR(eng_pheader_decode(b.p, b.len, TEST_SEAL, &back, &a, &err), &err);
    pheader_eq(&h, &back);
    ASSERT_EQ(back.partition_del.ts_us, ENG_TS_NONE);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

static int pheader_decode_copy(const uint8_t *p, size_t len, eng_arena *a, eng_err *err)
{
    uint8_t *copy = malloc(len ? len : 1);
    ASSERT(copy);
    if (len)
        memcpy(copy, p, len);
    eng_err_clear(err);
    eng_pheader out;
    int rc = eng_pheader_decode(copy, len, TEST_SEAL, &out, a, err);
    free(copy);
    return rc;
}

TEST(test_pheader_every_bit_flip_and_truncation_is_rejected)
{
    eng_range_tomb rts[3];
    eng_pheader h;
    sample_pheader(&h, rts);
    eng_buf b = ENG_BUF_INIT;
    eng_pheader_encode(&h, TEST_SEAL, &b);
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_err err;
    for (size_t i = 0; i < b.len; i++)
        for (int bit = 0; bit < 8; bit++) {
            b.p[i] ^= (uint8_t)(1u << bit);
            ASSERT_EQ(pheader_decode_copy(b.p, b.len, &a, &err), ENG_E_CORRUPT);
            ASSERT(strstr(err.msg, "stored partition header") == err.msg);
            b.p[i] ^= (uint8_t)(1u << bit);
        }
    for (size_t n = 0; n < b.len; n++)
        ASSERT_EQ(pheader_decode_copy(b.p, n, &a, &err), ENG_E_CORRUPT);
    ASSERT_EQ(pheader_decode_copy(b.p, b.len, &a, &err), 0);
    eng_buf_free(&b);
    eng_arena_free(&a);
}

TEST(test_pheader_random_bodies_with_valid_checksum_never_crash)
{
    uint64_t s = test_seed();
    eng_arena a;
    eng_arena_init(&a, 0);
    eng_buf b = ENG_BUF_INIT;
    for (int iter = 0; iter < 30000; iter++) {
        uint8_t body[20];
        size_t len = test_rand(&s) % sizeof body;
        for (size_t i = 0; i < len; i++)
            body[i] = (uint8_t)(test_rand(&s) % 4 ? test_rand(&s) % 4 : test_rand(&s));
        forge(&b, body, len);
        eng_err err;
        int rc = pheader_decode_copy(b.p, b.len, &a, &err);
        ASSERT(rc == 0 || rc == ENG_E_CORRUPT);
        eng_arena_reset(&a);
    }
    eng_buf_free(&b);
    eng_arena_free(&a);
}

/* ---- positions ---- */

TEST(test_cell_position_orders_column_then_path_with_no_path_first)
{
    eng_cell a = live(1, T0, ""), b = at_path(live(1, T0, ""), "");
    eng_cell c = at_path(live(1, T0, ""), "\x80");
    eng_cell d = at_path(live(1, T0, ""), "\x80\x00"), e = live(2, T0, "");
    d.path.len = 2;
    ASSERT(eng_cell_position_cmp(&a, &b) < 0);
    ASSERT(eng_cell_position_cmp(&b, &c) < 0);
    ASSERT(eng_cell_position_cmp(&c, &d) < 0);
    ASSERT(eng_cell_position_cmp(&d, &e) < 0);
    ASSERT(eng_cell_position_cmp(&e, &a) > 0);
    ASSERT_EQ(eng_cell_position_cmp(&c, &c), 0);
}

/* ---- the plain form (eng_row_read_plain) ---- */

/* Whether a decoded row has the plain form: a marker without TTL or none, no deletion, and
   at most ENG_PLAIN_MAX_CELLS live simple cells without TTL (values or counter totals). */
static int row_is_plain(const eng_row *r)
{
    if (r->deletion.ts_us != ENG_TS_NONE || r->n_cdels || r->marker.ttl_s ||
        r->n_cells > ENG_PLAIN_MAX_CELLS || (r->marker.ts_us == ENG_TS_NONE && !r->n_cells))
        return 0;
    for (uint32_t i = 0; i < r->n_cells; i++)
        if ((r->cells[i].flags & ~ENG_CELL_COUNTER) || r->cells[i].path.len >= 0)
            return 0;
    return 1;
}

/* A random row, half the time stripped down to what the plain form may hold. */
static eng_row rand_maybe_plain_row(uint64_t *s, eng_cell *cells, eng_complex_del *cdels,
                                    uint8_t (*ctr)[8], uint32_t max)
{
    eng_row r = rand_row(s, cells, cdels, ctr, max);
    if (test_rand(s) % 2)
        return r;
    r.deletion = (eng_deletion){ENG_TS_NONE, ENG_LDT_LIVE};
    r.n_cdels = 0;
    r.cdels = NULL;
    if (r.marker.ttl_s)
        r.marker = marker(r.marker.ts_us, 0, 0);
    uint32_t m = 0;
    for (uint32_t i = 0; i < r.n_cells; i++)
        if (!(r.cells[i].flags & ~ENG_CELL_COUNTER) && r.cells[i].path.len < 0)
            cells[m++] = r.cells[i];
    r.cells = m ? cells : NULL;
    r.n_cells = m;
    return r;
}

TEST(test_plain_read_answers_as_the_full_decoder)
{
    /* every stored row is either read in the plain form with exactly the decoder's cells, or
       left to the decoder because it holds something the plain form does not */
    uint64_t s = test_seed();
    fill_pool(&s);
    eng_arena a;
    eng_arena_init(&a, 0);
    int plain_seen = 0;
    for (int iter = 0; iter < 5000; iter++) {
        eng_cell cells[40];
        eng_complex_del cdels[3];
        uint8_t ctr[40][8];
        eng_row r = rand_maybe_plain_row(&s, cells, cdels, ctr, 40), back;
        eng_buf b = ENG_BUF_INIT;
        eng_row_encode(&r, TEST_SEAL, &b);
        ASSERT(!b.oom);
        eng_err err;
        eng_err_clear(&err);
        ASSERT_OK_ERR(eng_row_decode(b.p, b.len, TEST_SEAL, &back, &a, &err), &err);
        eng_plain_row p;
        int rc = eng_row_read_plain(b.p, b.len, TEST_SEAL, &p, &err);
        ASSERT(rc == 0 || rc == 1);
        ASSERT_EQ(rc, row_is_plain(&back));
        if (rc == 1) {
            plain_seen++;
            ASSERT_EQ(p.has_marker, back.marker.ts_us != ENG_TS_NONE);
            ASSERT_EQ(p.n_cells, back.n_cells);
            for (uint32_t i = 0; i < p.n_cells; i++) {
                ASSERT_EQ(p.cells[i].col, back.cells[i].col);
                ASSERT_EQ(p.cells[i].value.len, back.cells[i].value.len);
                ASSERT(!p.cells[i].value.len ||
                       !memcmp(p.cells[i].value.p, back.cells[i].value.p,
                               (size_t)p.cells[i].value.len));
            }
        }
        eng_buf_free(&b);
        eng_arena_reset(&a);
    }
    ASSERT(plain_seen > 1000); /* the generator reaches both forms */
    eng_arena_free(&a);
}

TEST(test_plain_read_catches_every_flipped_byte)
{
    /* a damaged plain row is never read as plain: the checksum fails it, or (the format
       byte) it is left to the decoder, which refuses it */
    uint64_t s = test_seed();
    fill_pool(&s);
    eng_arena a;
    eng_arena_init(&a, 0);
    for (int iter = 0; iter < 200; iter++) {
        eng_cell cells[8];
        eng_complex_del cdels[3];
        uint8_t ctr[8][8];
        eng_row r = rand_maybe_plain_row(&s, cells, cdels, ctr, 8);
        eng_buf b = ENG_BUF_INIT;
        eng_row_encode(&r, TEST_SEAL, &b);
        ASSERT(!b.oom);
        for (size_t i = 0; i < b.len; i++) {
            uint8_t bit = (uint8_t)(1u << (test_rand(&s) % 8));
            b.p[i] ^= bit;
            eng_plain_row p;
            eng_err err;
            eng_err_clear(&err);
            int rc = eng_row_read_plain(b.p, b.len, TEST_SEAL, &p, &err);
            ASSERT(rc != 1);
            if (rc < 0)
                ASSERT_EQ(-rc, ENG_E_CORRUPT);
            eng_row back;
            ASSERT_EQ(decode_copy(b.p, b.len, &back, &a, &err), ENG_E_CORRUPT);
            b.p[i] ^= bit;
            eng_arena_reset(&a);
        }
        eng_buf_free(&b);
    }
    eng_arena_free(&a);
}
