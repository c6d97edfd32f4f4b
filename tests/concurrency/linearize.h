/*
 * A linearizability checker for histories of operations on registers, one
 * register per key: the oracle of the concurrency tests. A history is a list
 * of operations, each with the time it was invoked and the time its response
 * came back; it is linearizable when every operation can be given one
 * instant inside its own [invoke, response] interval such that, taken in the
 * order of those instants, the operations behave like a single register per
 * key, each returning exactly what it did return (Herlihy & Wing 1990).
 *
 * The search is Wing & Gong's (1993) with Lowe's memoization ("Testing for
 * linearizability", 2017), as Knossos and Porcupine run it:
 *   - the history is split per key and each key is checked alone
 *     (P-compositionality: a history of independent registers is
 *     linearizable iff each register's sub-history is);
 *   - invocations and responses are sorted by time into one list; the search
 *     walks it from the front, tries to linearize any operation whose
 *     invocation comes before the first pending response (a minimal
 *     operation), applies it to the model and lifts it out of the list;
 *     reaching a response of an operation not yet linearized means the
 *     choices so far were wrong: it backtracks the last one and tries the
 *     next candidate;
 *   - a (set of linearized operations, register state) pair already explored
 *     is never explored again: what follows depends only on that pair.
 * At equal times an invocation sorts before a response (the two operations
 * count as concurrent), so a tie never makes the checker reject.
 *
 * The model, per key: the register holds a value or null (never written, or
 * deleted).
 *   read            -> the value, or null.
 *   write(v)        -> always succeeds; v may be LIN_NULL (a row deletion).
 *   cas(e, n)       -> applied iff the register holds e (e may be LIN_NULL:
 *                      "IF v = null"); then it holds n. When not applied the
 *                      operation reports the value it found, which must be the
 *                      register's value (Cassandra's LWT result, facts §5.3).
 *   insert(v)       -> insert-if-not-exists: applied iff the register is null,
 *                      then it holds v; when not applied it reports the current
 *                      value, which must be the register's (and so not null).
 *
 * Operations whose outcome is unknown (the request failed or timed out: it
 * may or may not have taken effect) are given an infinite response time and
 * no expected output: the search may linearize them anywhere after their
 * invocation, and "never took effect" is the same as "took effect after
 * everything else". Reads of unknown outcome are dropped (they change
 * nothing).
 *
 * The search is exponential in the worst case (the problem is NP-complete);
 * a step budget turns a search that runs away into LIN_UNKNOWN rather than a
 * hang. What it costs grows with how many operations overlap, not with the
 * length of the history: thousands of operations per key with a dozen
 * concurrent clients take milliseconds to accept. Refuting a history costs
 * more, since every order must fail; and each operation of unknown outcome
 * still pending may take effect at any later point, so refuting may take up
 * to twice as long per such operation: a handful per key is cheap, forty is
 * not.
 *
 * Threads: lin_check keeps no global state; it may run in several threads at
 * once on different histories.
 */
#ifndef TESTS_LINEARIZE_H
#define TESTS_LINEARIZE_H

#include <stddef.h>
#include <stdint.h>

/* The null value: reads of a missing row, "IF v = null", deletions. Not a storable value. */
#define LIN_NULL INT64_MIN

typedef enum lin_kind {
    LIN_READ = 0,  /* out: value */
    LIN_WRITE = 1, /* in: arg (LIN_NULL: delete) */
    LIN_CAS = 2,   /* in: expected, arg (the new value); out: applied, value if not applied */
    LIN_INSERT = 3 /* in: arg; out: applied, value if not applied */
} lin_kind;

/* One completed (or abandoned) operation of a history. */
typedef struct lin_op {
    int64_t key;      /* the register */
    int64_t arg;      /* write / insert: the value written; cas: the new value */
    int64_t expected; /* cas: the value the condition compares with (LIN_NULL: "= null") */
    int64_t value;    /* read: the value read; cas / insert not applied: the value reported */
    int64_t call_ns;  /* invocation, CLOCK_MONOTONIC ns (any common clock will do) */
    int64_t ret_ns;   /* response, same clock; ignored when !known */
    int32_t client;   /* who ran it (process and thread), for reports only */
    uint8_t kind;     /* a lin_kind */
    uint8_t known;    /* 1: the response arrived and the outputs hold; 0: outcome unknown */
    uint8_t applied;  /* cas / insert: 1 applied, 0 not applied */
    uint8_t pad_;
} lin_op;

typedef enum lin_result {
    LIN_OK = 0,        /* linearizable */
    LIN_VIOLATION = 1, /* not linearizable: report.text says where the search got stuck */
    LIN_UNKNOWN = 2,   /* the step budget ran out before an answer */
    LIN_BAD_INPUT = 3, /* a response before its invocation, an unknown kind, or no memory */
} lin_result;

typedef struct lin_report {
    lin_result result;
    int64_t key;         /* the key whose sub-history failed (LIN_OK: unused) */
    size_t keys;         /* keys checked */
    size_t ops;          /* operations checked (after dropping reads of unknown outcome) */
    size_t max_key_ops;  /* operations of the largest key */
    uint64_t steps;      /* linearization attempts, all keys */
    uint64_t cache_peak; /* explored (set, state) pairs of the largest search */
    char text[4096];     /* for a failure: a description for the test's message */
} lin_report;

/*
 * Checks that ops[0..n) is linearizable against the per-key register model.
 * @param[in] ops The history, in any order; not modified.
 * @param[in] n Its length.
 * @param[in] max_steps Linearization attempts allowed over all keys before
 *     giving up with LIN_UNKNOWN; 0 for the default (100 million).
 * @param[out] report The verdict and statistics; on LIN_VIOLATION, the first
 *     failing key (keys are checked in increasing order), the longest
 *     linearizable prefix the search found for it, the operation that could
 *     not be placed before its response, and the operations still pending
 *     there. May be NULL.
 * @return The verdict (also report->result).
 * Ownership: nothing changes hands; the search's memory is freed before return.
 * Threads: any; no global state.
 */
lin_result lin_check(const lin_op *ops, size_t n, uint64_t max_steps, lin_report *report);

/*
 * Writes a one-line description of op into buf, e.g.
 * "c3 cas(k=2, 1->4) = not applied, v=3 [+12.345..+12.401 ms]", with times
 * relative to t0_ns. Returns buf.
 */
const char *lin_op_format(char *buf, size_t cap, const lin_op *op, int64_t t0_ns);

/* The name of a verdict: "linearizable", "not linearizable", ... */
const char *lin_result_name(lin_result r);

#endif
