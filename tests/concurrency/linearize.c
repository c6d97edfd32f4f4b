/*
 * The linearizability checker of linearize.h: Wing & Gong's search with
 * Lowe's memoization over a per-key register model (see the header for the
 * model and the algorithm). This file holds, in order: the model's step, the
 * event list the search walks (a doubly linked list from which a linearized
 * operation's invocation and response are lifted, and put back on
 * backtracking in reverse order, dancing-links style), the cache of explored
 * (set, state) pairs, the search over one key, and the per-key driver.
 */
#include "linearize.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_STEPS 100000000ull
/* The cache may hold this many bytes of linearized sets before the search gives up. */
#define CACHE_MAX_BYTES ((size_t)1 << 30)
/* How many operations a failure report lists, before and around the failure. */
#define REPORT_PREFIX 6
#define REPORT_PENDING 8

/* ---- the model ---- */

/*
 * Applies op to a register holding state: 1 and the new state in *next if op,
 * with the outputs it reported, can take effect now; 0 if not. An operation of
 * unknown outcome takes effect with no output to match.
 */
static int lin_model_step(const lin_op *op, int64_t state, int64_t *next)
{
    *next = state;
    switch (op->kind) {
    case LIN_READ:
        return !op->known || op->value == state;
    case LIN_WRITE:
        *next = op->arg;
        return 1;
    case LIN_CAS:
        if (state == op->expected) {
            *next = op->arg;
            return !op->known || op->applied;
        }
        return !op->known || (!op->applied && op->value == state);
    case LIN_INSERT:
        if (state == LIN_NULL) {
            *next = op->arg;
            return !op->known || op->applied;
        }
        return !op->known || (!op->applied && op->value == state);
    }
    return 0;
}

/* ---- the event list ---- */

typedef struct lin_node {
    struct lin_node *prev, *next;
    struct lin_node *match; /* an invocation: its response; a response: NULL */
    int64_t time;           /* ns; an unknown outcome's response: INT64_MAX */
    uint32_t op;            /* index into the key's operations */
    uint8_t is_call;
} lin_node;

static int lin_node_cmp(const void *pa, const void *pb)
{
    const lin_node *a = *(const lin_node *const *)pa, *b = *(const lin_node *const *)pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->is_call != b->is_call)
        return a->is_call ? -1 : 1; /* a tie counts as overlap: invocations first */
    return a->op < b->op ? -1 : a->op > b->op;
}

/* Takes an invocation and its response out of the list; their own links stay. */
static void lin_lift(lin_node *call)
{
    call->prev->next = call->next;
    call->next->prev = call->prev;
    lin_node *ret = call->match;
    ret->prev->next = ret->next;
    ret->next->prev = ret->prev;
}

/* Undoes the matching lin_lift(): the response first, then the invocation. */
static void lin_unlift(lin_node *call)
{
    lin_node *ret = call->match;
    ret->prev->next = ret;
    ret->next->prev = ret;
    call->prev->next = call;
    call->next->prev = call;
}

/* ---- the set of linearized operations ---- */

/*
 * One key's linearized operations, a bit per operation in invocation order.
 * The search linearizes roughly in that order, so the set is nearly always
 * "every operation up to some point, then a few": the cache stores only the
 * words from the first that is not all ones to the last that is not zero.
 */
typedef struct lin_set {
    uint64_t *bits;
    size_t words;
    size_t lo;     /* bits[0..lo) are all ones, bits[lo] is not (or lo == words) */
    size_t hi;     /* bits[hi..words) are zero: an upper bound, exact after lin_set_trim */
    uint64_t hash; /* Zobrist hash of the set: the XOR of its operations' keys */
} lin_set;

static void lin_set_add(lin_set *s, uint32_t i, uint64_t zob)
{
    size_t w = i / 64;
    s->bits[w] |= 1ull << (i % 64);
    s->hash ^= zob;
    if (w + 1 > s->hi)
        s->hi = w + 1;
    while (s->lo < s->words && s->bits[s->lo] == ~0ull)
        s->lo++;
}

static void lin_set_remove(lin_set *s, uint32_t i, uint64_t zob)
{
    size_t w = i / 64;
    s->bits[w] &= ~(1ull << (i % 64));
    s->hash ^= zob;
    if (w < s->lo)
        s->lo = w;
}

/* Makes hi exact, so that (lo, bits[lo..hi)) names the set canonically. */
static void lin_set_trim(lin_set *s)
{
    if (s->hi < s->lo)
        s->hi = s->lo;
    while (s->hi > s->lo && s->bits[s->hi - 1] == 0)
        s->hi--;
}

/* ---- the cache of explored (linearized set, state) pairs ---- */

typedef struct lin_slot {
    uint64_t hash;
    int64_t state;
    size_t off; /* the set's words bits[lo..lo+len) in the arena; SIZE_MAX: empty slot */
    uint32_t lo, len;
} lin_slot;

typedef struct lin_cache {
    lin_slot *slots;
    size_t cap, used; /* cap a power of two, used <= cap / 2 */
    uint64_t *arena;  /* the sets' windows */
    size_t arena_len, arena_cap;
} lin_cache;

static uint64_t lin_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static size_t lin_cache_bytes(const lin_cache *c, size_t slots, size_t arena)
{
    return slots * sizeof *c->slots + arena * sizeof *c->arena;
}

static int lin_cache_grow(lin_cache *c)
{
    size_t ncap = c->cap ? c->cap * 2 : 1024;
    if (lin_cache_bytes(c, ncap, c->arena_cap) > CACHE_MAX_BYTES)
        return -1;
    lin_slot *ns = malloc(ncap * sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < ncap; i++)
        ns[i].off = SIZE_MAX;
    for (size_t i = 0; i < c->cap; i++) {
        if (c->slots[i].off == SIZE_MAX)
            continue;
        size_t j = c->slots[i].hash & (ncap - 1);
        while (ns[j].off != SIZE_MAX)
            j = (j + 1) & (ncap - 1);
        ns[j] = c->slots[i];
    }
    free(c->slots);
    c->slots = ns;
    c->cap = ncap;
    return 0;
}

/* Adds (set, state): 1 if it was new, 0 if already there, -1 out of memory or over the cap. */
static int lin_cache_add(lin_cache *c, lin_set *set, int64_t state)
{
    if ((c->used + 1) * 2 > c->cap && lin_cache_grow(c) < 0)
        return -1;
    lin_set_trim(set);
    const uint64_t *win = set->bits + set->lo;
    size_t len = set->hi - set->lo;
    uint64_t h = set->hash ^ lin_mix64((uint64_t)state);
    size_t j = h & (c->cap - 1);
    for (; c->slots[j].off != SIZE_MAX; j = (j + 1) & (c->cap - 1)) {
        const lin_slot *s = &c->slots[j];
        if (s->hash == h && s->state == state && s->lo == set->lo && s->len == len &&
            memcmp(c->arena + s->off, win, len * sizeof *win) == 0)
            return 0;
    }
    if (c->arena_len + len > c->arena_cap) {
        size_t ncap = c->arena_cap ? c->arena_cap * 2 : 4096;
        while (ncap < c->arena_len + len)
            ncap *= 2;
        uint64_t *na = lin_cache_bytes(c, c->cap, ncap) <= CACHE_MAX_BYTES
                           ? realloc(c->arena, ncap * sizeof *na)
                           : NULL;
        if (!na)
            return -1;
        c->arena = na;
        c->arena_cap = ncap;
    }
    if (len)
        memcpy(c->arena + c->arena_len, win, len * sizeof *win);
    c->slots[j].hash = h;
    c->slots[j].state = state;
    c->slots[j].off = c->arena_len;
    c->slots[j].lo = (uint32_t)set->lo;
    c->slots[j].len = (uint32_t)len;
    c->arena_len += len;
    c->used++;
    return 1;
}

static void lin_cache_free(lin_cache *c)
{
    free(c->slots);
    free(c->arena);
}

/* ---- reports ---- */

static const char *lin_value_str(char *buf, size_t cap, int64_t v)
{
    if (v == LIN_NULL)
        snprintf(buf, cap, "null");
    else
        snprintf(buf, cap, "%" PRId64, v);
    return buf;
}

const char *lin_op_format(char *buf, size_t cap, const lin_op *op, int64_t t0_ns)
{
    char a[24], b[24], t[64];
    int n;
    switch (op->kind) {
    case LIN_READ:
        n = snprintf(buf, cap, "c%d read(k=%" PRId64 ") = %s", op->client, op->key,
                     op->known ? lin_value_str(a, sizeof a, op->value) : "?");
        break;
    case LIN_WRITE:
        if (op->arg == LIN_NULL)
            n = snprintf(buf, cap, "c%d delete(k=%" PRId64 ")%s", op->client, op->key,
                         op->known ? "" : " = ?");
        else
            n = snprintf(buf, cap, "c%d write(k=%" PRId64 ", %" PRId64 ")%s", op->client, op->key,
                         op->arg, op->known ? "" : " = ?");
        break;
    case LIN_CAS:
    case LIN_INSERT:
        if (op->kind == LIN_CAS)
            n = snprintf(buf, cap, "c%d cas(k=%" PRId64 ", %s->%s)", op->client, op->key,
                         lin_value_str(a, sizeof a, op->expected),
                         lin_value_str(b, sizeof b, op->arg));
        else
            n = snprintf(buf, cap, "c%d insert(k=%" PRId64 ", %s)", op->client, op->key,
                         lin_value_str(a, sizeof a, op->arg));
        if (n >= 0 && (size_t)n < cap) {
            if (!op->known)
                snprintf(buf + n, cap - (size_t)n, " = ?");
            else if (op->applied)
                snprintf(buf + n, cap - (size_t)n, " = applied");
            else
                snprintf(buf + n, cap - (size_t)n, " = not applied, v=%s",
                         lin_value_str(a, sizeof a, op->value));
        }
        break;
    default:
        snprintf(buf, cap, "c%d kind %d?", op->client, op->kind);
        return buf;
    }
    if (op->known)
        snprintf(t, sizeof t, " [+%.3f..+%.3f ms]", (double)(op->call_ns - t0_ns) / 1e6,
                 (double)(op->ret_ns - t0_ns) / 1e6);
    else
        snprintf(t, sizeof t, " [+%.3f..never ms]", (double)(op->call_ns - t0_ns) / 1e6);
    size_t len = strlen(buf);
    if (len < cap)
        snprintf(buf + len, cap - len, "%s", t);
    return buf;
}

const char *lin_result_name(lin_result r)
{
    switch (r) {
    case LIN_OK:
        return "linearizable";
    case LIN_VIOLATION:
        return "not linearizable";
    case LIN_UNKNOWN:
        return "unknown (step budget or cache exhausted)";
    case LIN_BAD_INPUT:
        return "bad input";
    }
    return "?";
}

/* Appends to the report's text. */
static void lin_say(lin_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void lin_say(lin_report *r, const char *fmt, ...)
{
    size_t len = strlen(r->text);
    if (len + 1 >= sizeof r->text)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text + len, sizeof r->text - len, fmt, ap);
    va_end(ap);
}

/* ---- the search over one key ---- */

typedef struct lin_frame {
    lin_node *call; /* the linearized operation's invocation */
    int64_t state;  /* the register before it */
} lin_frame;

/* Where the search got furthest, for the failure report. */
typedef struct lin_deepest {
    long depth;                     /* operations linearized then; -1 before the first dead end */
    int64_t state;                  /* the register then */
    uint32_t blocked;               /* the operation whose response ended that path */
    uint32_t prefix[REPORT_PREFIX]; /* the last operations linearized, oldest first */
    size_t n_prefix;
    uint32_t pending[REPORT_PENDING]; /* operations invoked before that response, not linearized */
    size_t n_pending, more_pending;
} lin_deepest;

static void lin_note_deepest(lin_deepest *d, long depth, int64_t state, const lin_node *blocked,
                             const lin_frame *stack, const lin_node *head)
{
    d->depth = depth;
    d->state = state;
    d->blocked = blocked->op;
    d->n_prefix = 0;
    for (long i = depth > REPORT_PREFIX ? depth - REPORT_PREFIX : 0; i < depth; i++)
        d->prefix[d->n_prefix++] = stack[i].call->op;
    d->n_pending = d->more_pending = 0;
    for (const lin_node *e = head->next; e != blocked; e = e->next) {
        if (!e->is_call || e->op == blocked->op)
            continue;
        if (d->n_pending < REPORT_PENDING)
            d->pending[d->n_pending++] = e->op;
        else
            d->more_pending++;
    }
}

/*
 * Checks one key's operations ops[0..m) (pointers into the history), adding
 * its statistics to rep; on a violation writes the report's text.
 */
static lin_result lin_check_key(const lin_op **ops, size_t m, uint64_t *budget, int64_t t0,
                                lin_report *rep)
{
    lin_result res = LIN_BAD_INPUT;
    lin_node *nodes = calloc(2 * m + 2, sizeof *nodes);
    lin_node **order = malloc(2 * m * sizeof *order);
    lin_frame *stack = malloc((m + 1) * sizeof *stack);
    uint64_t *zob = malloc(m * sizeof *zob);
    lin_set set = {.words = (m + 63) / 64};
    set.bits = calloc(set.words ? set.words : 1, sizeof *set.bits);
    lin_cache c = {0};
    lin_deepest d = {.depth = -1};
    if (!nodes || !order || !stack || !zob || !set.bits)
        goto done;

    for (size_t i = 0; i < m; i++) {
        lin_node *call = &nodes[2 * i], *ret = &nodes[2 * i + 1];
        call->is_call = 1;
        call->op = ret->op = (uint32_t)i;
        call->time = ops[i]->call_ns;
        ret->time = ops[i]->known ? ops[i]->ret_ns : INT64_MAX;
        call->match = ret;
        order[2 * i] = call;
        order[2 * i + 1] = ret;
        zob[i] = lin_mix64(i * 0x2545F4914F6CDD1Dull + 1);
    }
    qsort(order, 2 * m, sizeof *order, lin_node_cmp);
    lin_node *head = &nodes[2 * m], *tail = &nodes[2 * m + 1];
    lin_node *prev = head;
    for (size_t i = 0; i < 2 * m; i++) {
        prev->next = order[i];
        order[i]->prev = prev;
        prev = order[i];
    }
    prev->next = tail;
    tail->prev = prev;

    int64_t state = LIN_NULL; /* a register never written */
    long depth = 0;
    lin_node *e = head->next;
    while (head->next != tail) {
        if (e->is_call) {
            if (*budget == 0) {
                res = LIN_UNKNOWN;
                goto done;
            }
            (*budget)--;
            rep->steps++;
            int64_t next;
            uint32_t i = e->op;
            if (lin_model_step(ops[i], state, &next)) {
                lin_set_add(&set, i, zob[i]);
                int added = lin_cache_add(&c, &set, next);
                if (added < 0) {
                    res = LIN_UNKNOWN;
                    goto done;
                }
                if (added) {
                    stack[depth].call = e;
                    stack[depth].state = state;
                    depth++;
                    state = next;
                    lin_lift(e);
                    e = head->next;
                    continue;
                }
                lin_set_remove(&set, i, zob[i]);
            }
            e = e->next;
        } else {
            /* The response of an operation not linearized: this path is dead. */
            if (depth > d.depth)
                lin_note_deepest(&d, depth, state, e, stack, head);
            if (depth == 0) {
                res = LIN_VIOLATION;
                goto done;
            }
            lin_frame f = stack[--depth];
            uint32_t i = f.call->op;
            state = f.state;
            lin_set_remove(&set, i, zob[i]);
            lin_unlift(f.call);
            e = f.call->next;
        }
    }
    res = LIN_OK;

done:
    if (c.used > rep->cache_peak)
        rep->cache_peak = c.used;
    if (res == LIN_VIOLATION) {
        char line[256], v[24];
        lin_say(rep, "key %" PRId64 ": not linearizable (%zu operations)\n", ops[0]->key, m);
        lin_say(rep, "longest linearizable prefix found: %ld operations, register then %s", d.depth,
                lin_value_str(v, sizeof v, d.state));
        lin_say(rep, "%s\n", d.n_prefix ? "; it ends with:" : "");
        for (size_t i = 0; i < d.n_prefix; i++)
            lin_say(rep, "    %s\n", lin_op_format(line, sizeof line, ops[d.prefix[i]], t0));
        lin_say(rep,
                "then this operation's response comes, and neither it nor any pending one "
                "can take effect before it:\n    %s\n",
                lin_op_format(line, sizeof line, ops[d.blocked], t0));
        if (d.n_pending) {
            lin_say(rep, "pending then:\n");
            for (size_t i = 0; i < d.n_pending; i++)
                lin_say(rep, "    %s\n", lin_op_format(line, sizeof line, ops[d.pending[i]], t0));
            if (d.more_pending)
                lin_say(rep, "    ... and %zu more\n", d.more_pending);
        }
    }
    lin_cache_free(&c);
    free(set.bits);
    free(zob);
    free(stack);
    free(order);
    free(nodes);
    return res;
}

/* ---- the driver: validate, split per key, check each key ---- */

static int lin_by_key_then_call(const void *pa, const void *pb)
{
    const lin_op *a = *(const lin_op *const *)pa, *b = *(const lin_op *const *)pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->call_ns != b->call_ns)
        return a->call_ns < b->call_ns ? -1 : 1;
    return a < b ? -1 : a > b;
}

lin_result lin_check(const lin_op *ops, size_t n, uint64_t max_steps, lin_report *report)
{
    lin_report local;
    lin_report *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    uint64_t budget = max_steps ? max_steps : DEFAULT_MAX_STEPS;
    const lin_op **sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) {
        snprintf(rep->text, sizeof rep->text, "out of memory");
        return rep->result = LIN_BAD_INPUT;
    }
    size_t m = 0;
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const lin_op *o = &ops[i];
        if (o->kind > LIN_INSERT || (o->known && o->ret_ns < o->call_ns)) {
            char line[256];
            snprintf(rep->text, sizeof rep->text, "operation %zu is malformed: %s", i,
                     lin_op_format(line, sizeof line, o, o->call_ns));
            free(sorted);
            return rep->result = LIN_BAD_INPUT;
        }
        if (o->call_ns < t0)
            t0 = o->call_ns;
        if (o->kind == LIN_READ && !o->known)
            continue; /* a read that may not have happened changes nothing */
        sorted[m++] = o;
    }
    qsort(sorted, m, sizeof *sorted, lin_by_key_then_call);
    rep->ops = m;
    lin_result res = LIN_OK;
    for (size_t start = 0; start < m && res == LIN_OK;) {
        size_t end = start + 1;
        while (end < m && sorted[end]->key == sorted[start]->key)
            end++;
        rep->keys++;
        if (end - start > rep->max_key_ops)
            rep->max_key_ops = end - start;
        res = lin_check_key(sorted + start, end - start, &budget, t0, rep);
        if (res != LIN_OK)
            rep->key = sorted[start]->key;
        if (res == LIN_UNKNOWN)
            snprintf(rep->text, sizeof rep->text,
                     "key %" PRId64 ": gave up after %" PRIu64 " steps, %" PRIu64
                     " explored states (%zu operations)",
                     sorted[start]->key, rep->steps, rep->cache_peak, end - start);
        else if (res == LIN_BAD_INPUT)
            snprintf(rep->text, sizeof rep->text, "out of memory");
        start = end;
    }
    free(sorted);
    return rep->result = res;
}
