/*
 * The linearizability checker (linearize.h) on histories whose verdict is
 * known: written by hand from the definition (a stale read after a completed
 * write, two applied compare-and-sets from one expected value, a read of a
 * value never written, a not-applied result that reports the wrong current
 * value, operations of unknown outcome, ties), generated from a sequential
 * register and then damaged, and random small histories judged again by brute
 * force over every order. A checker that accepted everything, or rejected
 * everything, fails here.
 */
#include "harness.h"
#include "linearize.c" /* the checker is part of this program (no Makefile rule needed) */

#define NUL LIN_NULL

/* ---- building histories ---- */

static lin_op op_make(lin_kind kind, int64_t key, int64_t t1, int64_t t2)
{
    lin_op o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.key = key;
    o.call_ns = t1;
    o.ret_ns = t2;
    o.known = 1;
    o.arg = o.expected = o.value = NUL;
    return o;
}

/* read of key k returned v, invoked at t1, answered at t2 */
static lin_op RD(int64_t k, int64_t v, int64_t t1, int64_t t2)
{
    lin_op o = op_make(LIN_READ, k, t1, t2);
    o.value = v;
    return o;
}

static lin_op WR(int64_t k, int64_t v, int64_t t1, int64_t t2)
{
    lin_op o = op_make(LIN_WRITE, k, t1, t2);
    o.arg = v;
    return o;
}

/* cas(k, expected e -> new n): applied, or not applied reporting current value cur */
static lin_op CAS(int64_t k, int64_t e, int64_t n, int applied, int64_t cur, int64_t t1, int64_t t2)
{
    lin_op o = op_make(LIN_CAS, k, t1, t2);
    o.expected = e;
    o.arg = n;
    o.applied = (uint8_t)applied;
    o.value = applied ? NUL : cur;
    return o;
}

static lin_op INS(int64_t k, int64_t v, int applied, int64_t cur, int64_t t1, int64_t t2)
{
    lin_op o = op_make(LIN_INSERT, k, t1, t2);
    o.arg = v;
    o.applied = (uint8_t)applied;
    o.value = applied ? NUL : cur;
    return o;
}

/* The same operation with its outcome unknown (it failed or timed out). */
static lin_op LOST(lin_op o)
{
    o.known = 0;
    o.ret_ns = 0;
    o.applied = 0;
    o.value = NUL;
    return o;
}

#define N_OPS(a) (sizeof(a) / sizeof(a)[0])

static void expect_verdict(const char *file, int line, const lin_op *ops, size_t n, lin_result want)
{
    lin_report rep;
    lin_result got = lin_check(ops, n, 0, &rep);
    if (got != want)
        test_fail(file, line, "got %s, want %s\n%s", lin_result_name(got), lin_result_name(want),
                  rep.text);
    if (got == LIN_VIOLATION && !strstr(rep.text, "not linearizable"))
        test_fail(file, line, "a violation without a report: \"%s\"", rep.text);
}

#define LINEARIZABLE(...)                                                                          \
    do {                                                                                           \
        const lin_op h_[] = {__VA_ARGS__};                                                         \
        expect_verdict(__FILE__, __LINE__, h_, N_OPS(h_), LIN_OK);                                 \
    } while (0)

#define NOT_LINEARIZABLE(...)                                                                      \
    do {                                                                                           \
        const lin_op h_[] = {__VA_ARGS__};                                                         \
        expect_verdict(__FILE__, __LINE__, h_, N_OPS(h_), LIN_VIOLATION);                          \
    } while (0)

/* ---- hand-written histories: reads and writes ---- */

TEST(empty_history_is_linearizable)
{
    lin_report rep;
    ASSERT_EQ(lin_check(NULL, 0, 0, &rep), LIN_OK);
    ASSERT_EQ(rep.keys, 0);
}

TEST(register_starts_null)
{
    LINEARIZABLE(RD(1, NUL, 0, 10));
    LINEARIZABLE(RD(1, NUL, 0, 10), WR(1, 1, 20, 30), RD(1, 1, 40, 50));
}

TEST(read_of_a_value_never_written_is_rejected)
{
    NOT_LINEARIZABLE(RD(1, 7, 0, 10));
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), WR(1, 2, 5, 20), RD(1, 3, 0, 30));
}

TEST(read_after_completed_write_sees_it)
{
    LINEARIZABLE(WR(1, 1, 0, 10), RD(1, 1, 20, 30));
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), RD(1, NUL, 20, 30));
}

TEST(stale_read_after_completed_write_is_rejected)
{
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), WR(1, 2, 20, 30), RD(1, 1, 40, 50));
    /* the same read overlapping the second write may see either value */
    LINEARIZABLE(WR(1, 1, 0, 10), WR(1, 2, 20, 45), RD(1, 1, 40, 50));
    LINEARIZABLE(WR(1, 1, 0, 10), WR(1, 2, 20, 45), RD(1, 2, 40, 50));
}

TEST(reads_never_go_back_in_time)
{
    /* once a read saw the concurrent write, a later read cannot miss it */
    NOT_LINEARIZABLE(WR(1, 1, 0, 100), RD(1, 1, 10, 20), RD(1, NUL, 30, 40));
    LINEARIZABLE(WR(1, 1, 0, 100), RD(1, NUL, 10, 20), RD(1, 1, 30, 40));
    /* overlapping reads may disagree: one before the write, one after */
    LINEARIZABLE(WR(1, 1, 0, 100), RD(1, 1, 10, 50), RD(1, NUL, 20, 60));
    /* a read cannot see a write that started after it answered */
    NOT_LINEARIZABLE(RD(1, 1, 0, 10), WR(1, 1, 20, 30));
}

TEST(write_order_is_real_time_order)
{
    /* two sequential writes: the last one wins for every later read */
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), WR(1, 2, 20, 30), RD(1, 2, 40, 50), RD(1, 1, 60, 70));
    /* concurrent writes: either order, but one order for everybody */
    LINEARIZABLE(WR(1, 1, 0, 30), WR(1, 2, 0, 30), RD(1, 1, 40, 50), RD(1, 1, 60, 70));
    NOT_LINEARIZABLE(WR(1, 1, 0, 30), WR(1, 2, 0, 30), RD(1, 1, 40, 50), RD(1, 2, 60, 70));
    /* a delete is a write of null */
    LINEARIZABLE(WR(1, 1, 0, 10), WR(1, NUL, 20, 30), RD(1, NUL, 40, 50));
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), WR(1, NUL, 20, 30), RD(1, 1, 40, 50));
}

TEST(equal_times_count_as_concurrent)
{
    /* a response and an invocation at the same instant: either order */
    LINEARIZABLE(WR(1, 1, 0, 10), RD(1, NUL, 10, 20));
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), RD(1, NUL, 11, 20));
}

/* ---- compare-and-set ---- */

TEST(two_applied_cas_from_one_expected_value_are_rejected)
{
    NOT_LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 0, 1, 1, 0, 10, 20), CAS(1, 0, 2, 1, 0, 10, 20));
    /* unless a write puts the expected value back in between */
    LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 0, 1, 1, 0, 10, 20), WR(1, 0, 10, 20),
                 CAS(1, 0, 2, 1, 0, 10, 20));
    /* the loser reports the winner's value */
    LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 0, 1, 1, 0, 10, 20), CAS(1, 0, 2, 0, 1, 10, 20));
    LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 0, 1, 0, 2, 10, 20), CAS(1, 0, 2, 1, 0, 10, 20));
}

TEST(cas_not_applied_must_report_the_current_value)
{
    /* not applied although the register held the expected value */
    NOT_LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 0, 2, 0, 0, 10, 20));
    /* not applied, reporting a value nobody wrote */
    NOT_LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 1, 2, 0, 3, 10, 20));
    LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 1, 2, 0, 0, 10, 20));
    /* not applied on a missing row: the current value is null */
    LINEARIZABLE(CAS(1, 1, 2, 0, NUL, 0, 10));
    NOT_LINEARIZABLE(CAS(1, 1, 2, 0, 1, 0, 10));
    /* not applied, reporting a value that was overwritten before the cas began */
    NOT_LINEARIZABLE(WR(1, 0, 0, 1), WR(1, 5, 2, 3), CAS(1, 1, 2, 0, 0, 10, 20));
}

TEST(cas_applied_only_on_the_expected_value)
{
    NOT_LINEARIZABLE(WR(1, 0, 0, 1), CAS(1, 1, 2, 1, 0, 10, 20));
    /* a concurrent write of the expected value makes it possible */
    LINEARIZABLE(WR(1, 0, 0, 1), WR(1, 1, 5, 15), CAS(1, 1, 2, 1, 0, 10, 20), RD(1, 2, 30, 40));
    NOT_LINEARIZABLE(WR(1, 0, 0, 1), WR(1, 1, 5, 15), CAS(1, 1, 2, 1, 0, 10, 20), RD(1, 1, 30, 40));
    /* IF v = null: applies on a missing or deleted row only */
    LINEARIZABLE(CAS(1, NUL, 1, 1, 0, 0, 10), RD(1, 1, 20, 30));
    LINEARIZABLE(WR(1, 4, 0, 10), WR(1, NUL, 20, 30), CAS(1, NUL, 1, 1, 0, 40, 50));
    NOT_LINEARIZABLE(WR(1, 4, 0, 10), CAS(1, NUL, 1, 1, 0, 20, 30));
    LINEARIZABLE(WR(1, 4, 0, 10), CAS(1, NUL, 1, 0, 4, 20, 30));
}

/* ---- insert if not exists ---- */

TEST(insert_if_not_exists)
{
    LINEARIZABLE(INS(1, 1, 1, 0, 0, 10), RD(1, 1, 20, 30));
    /* two applied inserts on one key, concurrent or not */
    NOT_LINEARIZABLE(INS(1, 1, 1, 0, 0, 10), INS(1, 2, 1, 0, 5, 15));
    NOT_LINEARIZABLE(INS(1, 1, 1, 0, 0, 10), INS(1, 2, 1, 0, 20, 30));
    /* the loser reports the winner's value, not its own, not null */
    LINEARIZABLE(INS(1, 1, 1, 0, 0, 10), INS(1, 2, 0, 1, 5, 15));
    NOT_LINEARIZABLE(INS(1, 1, 1, 0, 0, 10), INS(1, 2, 0, 2, 5, 15));
    NOT_LINEARIZABLE(INS(1, 1, 1, 0, 0, 10), INS(1, 2, 0, NUL, 5, 15));
    /* a row written by a plain write exists; a deleted one does not */
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), INS(1, 3, 1, 0, 20, 30));
    LINEARIZABLE(WR(1, 1, 0, 10), WR(1, NUL, 20, 30), INS(1, 3, 1, 0, 40, 50));
    LINEARIZABLE(WR(1, 1, 0, 10), INS(1, 3, 0, 1, 20, 30), CAS(1, 1, 2, 1, 0, 40, 50),
                 INS(1, 3, 0, 2, 60, 70));
}

/* ---- operations of unknown outcome ---- */

TEST(unknown_write_may_or_may_not_take_effect)
{
    lin_op w5 = LOST(WR(1, 5, 20, 0));
    LINEARIZABLE(WR(1, 1, 0, 10), w5, RD(1, 5, 30, 40));
    LINEARIZABLE(WR(1, 1, 0, 10), w5, RD(1, 1, 30, 40));
    /* late, but once seen it has happened */
    LINEARIZABLE(WR(1, 1, 0, 10), w5, RD(1, 1, 30, 40), RD(1, 5, 50, 60));
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), w5, RD(1, 5, 30, 40), RD(1, 1, 50, 60));
    /* never before its invocation */
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), RD(1, 5, 12, 18), w5);
}

TEST(unknown_cas_applies_only_on_its_expected_value)
{
    lin_op c = LOST(CAS(1, 0, 3, 0, 0, 20, 0));
    LINEARIZABLE(WR(1, 0, 0, 10), c, RD(1, 3, 30, 40));
    LINEARIZABLE(WR(1, 0, 0, 10), c, RD(1, 0, 30, 40), RD(1, 3, 50, 60));
    NOT_LINEARIZABLE(WR(1, 0, 0, 10), c, RD(1, 3, 30, 40), RD(1, 0, 50, 60));
    NOT_LINEARIZABLE(WR(1, 9, 0, 10), c, RD(1, 3, 30, 40));
    /* an unknown insert cannot apply over an existing row */
    NOT_LINEARIZABLE(WR(1, 9, 0, 10), LOST(INS(1, 4, 0, 0, 20, 0)), RD(1, 4, 30, 40));
    LINEARIZABLE(LOST(INS(1, 4, 0, 0, 0, 0)), RD(1, NUL, 10, 20), RD(1, 4, 30, 40));
}

TEST(unknown_read_is_ignored)
{
    lin_report rep;
    lin_op h[] = {WR(1, 1, 0, 10), LOST(RD(1, 7, 20, 30))};
    ASSERT_EQ(lin_check(h, N_OPS(h), 0, &rep), LIN_OK);
    ASSERT_EQ(rep.ops, 1);
}

/* ---- keys are independent registers ---- */

TEST(keys_are_checked_independently)
{
    LINEARIZABLE(WR(1, 1, 0, 10), RD(2, NUL, 20, 30), RD(1, 1, 20, 30));
    NOT_LINEARIZABLE(WR(1, 1, 0, 10), RD(2, 1, 20, 30));
    lin_report rep;
    lin_op h[] = {WR(3, 1, 0, 10), RD(3, 1, 20, 30), WR(7, 2, 0, 10), RD(7, 1, 20, 30),
                  WR(5, 1, 0, 10)};
    ASSERT_EQ(lin_check(h, N_OPS(h), 0, &rep), LIN_VIOLATION);
    ASSERT_EQ(rep.key, 7);
    ASSERT(strstr(rep.text, "key 7"));
    ASSERT(strstr(rep.text, "c0 read(k=7) = 1"));
}

/* ---- the checker's own limits ---- */

TEST(malformed_history_and_budget)
{
    lin_report rep;
    lin_op bad[] = {WR(1, 1, 10, 5)};
    ASSERT_EQ(lin_check(bad, 1, 0, &rep), LIN_BAD_INPUT);
    lin_op kind[] = {WR(1, 1, 0, 5)};
    kind[0].kind = 9;
    ASSERT_EQ(lin_check(kind, 1, 0, &rep), LIN_BAD_INPUT);
    lin_op h[] = {WR(1, 1, 0, 10), WR(1, 2, 0, 10), RD(1, 2, 20, 30), RD(1, 2, 40, 50)};
    ASSERT_EQ(lin_check(h, N_OPS(h), 1, &rep), LIN_UNKNOWN);
    ASSERT_EQ(lin_check(h, N_OPS(h), 0, &rep), LIN_OK);
}

/* ---- generated histories ---- */

/*
 * A linearizable history by construction: operations run one at a time on a
 * sequential register, operation i taking effect at time 100*i; each is then
 * given an interval around that instant, up to `spread` wide on each side, so
 * that many overlap. Values are small so that reads are ambiguous.
 */
static size_t gen_linearizable(lin_op *h, size_t n, int keys, int64_t spread, uint64_t *rs)
{
    int64_t reg[8];
    int lost = 0;
    for (int k = 0; k < 8; k++)
        reg[k] = NUL;
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)(test_rand(rs) % (uint64_t)keys);
        int64_t at = 100 * (int64_t)i;
        int64_t t1 = at - (int64_t)(test_rand(rs) % (uint64_t)spread);
        int64_t t2 = at + (int64_t)(test_rand(rs) % (uint64_t)spread);
        int64_t v = (int64_t)(test_rand(rs) % 4);
        int64_t e = test_rand(rs) % 5 == 0 ? NUL : (int64_t)(test_rand(rs) % 4);
        int64_t *s = &reg[k];
        switch (test_rand(rs) % 6) {
        case 0:
        case 1:
            h[i] = RD(k, *s, t1, t2);
            break;
        case 2:
            h[i] = WR(k, test_rand(rs) % 8 == 0 ? NUL : v, t1, t2);
            *s = h[i].arg;
            break;
        case 3:
        case 4:
            h[i] = CAS(k, e, v, *s == e, *s, t1, t2);
            if (*s == e)
                *s = v;
            break;
        default:
            h[i] = INS(k, v, *s == NUL, *s, t1, t2);
            if (*s == NUL)
                *s = v;
            break;
        }
        h[i].client = (int32_t)(i % 7);
        /* it did take effect, but nobody knows; a few only: every one still pending can go
           anywhere, so refuting a history costs up to twice as much per unknown operation */
        if (lost < 5 && test_rand(rs) % 50 == 0 && h[i].kind != LIN_READ) {
            h[i] = LOST(h[i]);
            lost++;
        }
    }
    return n;
}

TEST(generated_linearizable_histories_pass_and_damaged_ones_fail)
{
    uint64_t rs = test_seed() | 1;
    size_t n = test_long() ? 3000 : 600;
    int rounds = test_long() ? 200 : 20;
    lin_op *h = malloc(n * sizeof *h);
    ASSERT(h);
    int undecided = 0; /* damaged histories the search gave up on */
    for (int r = 0; r < rounds; r++) {
        int keys = 1 + r % 3;
        int64_t spread = 150 + 100 * (r % 5); /* up to ~12 operations overlap */
        gen_linearizable(h, n, keys, spread, &rs);
        lin_report rep;
        lin_result res = lin_check(h, n, 0, &rep);
        if (res != LIN_OK)
            test_fail(__FILE__, __LINE__, "round %d: %s\n%s", r, lin_result_name(res), rep.text);
        /* one read now returns a value never written */
        size_t i = (size_t)(test_rand(&rs) % n);
        while (h[i].kind != LIN_READ || !h[i].known)
            i = (i + 1) % n;
        h[i].value = 42;
        res = lin_check(h, n, 0, &rep);
        /* A damaged history must never pass. Refuting one means exhausting every order, and a
           long one (3000 operations in the long mode) can exceed the search budget: the checker
           then says it does not know, which is honest; only a few rounds may end that way. */
        if (res == LIN_UNKNOWN)
            undecided++;
        else if (res != LIN_VIOLATION)
            test_fail(__FILE__, __LINE__, "round %d: damaged history: %s\n%s", r,
                      lin_result_name(res), rep.text);
    }
    if (undecided > rounds / 10)
        test_fail(__FILE__, __LINE__, "%d of %d damaged histories left undecided", undecided,
                  rounds);
    free(h);
}

/* Brute force: is there an order of all operations, respecting real time, that the model takes? */
static int brute_search(const lin_op *h, size_t n, uint32_t done, int64_t *state)
{
    if (done == (1u << n) - 1)
        return 1;
    for (size_t i = 0; i < n; i++) {
        if (done & (1u << i))
            continue;
        /* i may go next only if no remaining operation answered before i was invoked */
        int minimal = 1;
        for (size_t j = 0; j < n && minimal; j++)
            if (j != i && !(done & (1u << j)) && h[j].known && h[j].ret_ns < h[i].call_ns)
                minimal = 0;
        if (!minimal)
            continue;
        int64_t before = state[h[i].key], next;
        if (!lin_model_step(&h[i], before, &next))
            continue;
        state[h[i].key] = next;
        if (brute_search(h, n, done | (1u << i), state))
            return 1;
        state[h[i].key] = before;
    }
    return 0;
}

static int brute_linearizable(const lin_op *h, size_t n)
{
    int64_t state[2] = {NUL, NUL};
    return brute_search(h, n, 0, state);
}

static int64_t rand_value(uint64_t *rs)
{
    uint64_t x = test_rand(rs) % 4;
    return x == 3 ? NUL : (int64_t)x;
}

TEST(random_small_histories_agree_with_brute_force)
{
    uint64_t rs = test_seed() | 1;
    int trials = test_long() ? 200000 : 20000, yes = 0, no = 0;
    lin_op h[8];
    for (int t = 0; t < trials; t++) {
        size_t n = 1 + (size_t)(test_rand(&rs) % 8);
        for (size_t i = 0; i < n; i++) {
            int64_t k = (int64_t)(test_rand(&rs) % 2);
            int64_t t1 = (int64_t)(test_rand(&rs) % 20);
            int64_t t2 = t1 + (int64_t)(test_rand(&rs) % 12);
            int applied = (int)(test_rand(&rs) % 2);
            switch (test_rand(&rs) % 4) {
            case 0:
                h[i] = RD(k, rand_value(&rs), t1, t2);
                break;
            case 1:
                h[i] = WR(k, rand_value(&rs), t1, t2);
                break;
            case 2:
                h[i] = CAS(k, rand_value(&rs), rand_value(&rs), applied, rand_value(&rs), t1, t2);
                break;
            default:
                h[i] = INS(k, rand_value(&rs), applied, rand_value(&rs), t1, t2);
                break;
            }
            if (test_rand(&rs) % 10 == 0)
                h[i] = LOST(h[i]);
        }
        int want = brute_linearizable(h, n);
        lin_report rep;
        lin_result got = lin_check(h, n, 0, &rep);
        if (got != (want ? LIN_OK : LIN_VIOLATION)) {
            char line[256];
            fprintf(stdout, "history (%zu operations):\n", n);
            for (size_t i = 0; i < n; i++)
                fprintf(stdout, "    %s\n", lin_op_format(line, sizeof line, &h[i], 0));
            test_fail(__FILE__, __LINE__, "trial %d: checker says %s, brute force %s", t,
                      lin_result_name(got), want ? "linearizable" : "not");
        }
        if (want)
            yes++;
        else
            no++;
    }
    /* both verdicts must be well represented, or the comparison proves little */
    ASSERT(yes > trials / 10);
    ASSERT(no > trials / 10);
}
