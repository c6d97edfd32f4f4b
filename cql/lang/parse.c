/*
 * The CQL parser (parse.h), over the lexer's tokens (lexer.c): statement text in, syntax tree
 * (ast.h) or Cassandra's syntax error out. Hand-written recursive descent
 * over the grammar of Cassandra 4.1 (src/antlr/Lexer.g, Parser.g): the same
 * tokens, the same reserved and unreserved keywords, the same literal
 * forms, and the checks Cassandra's grammar actions make while parsing.
 *
 * Guarantees: any input (invalid UTF-8, NUL bytes, deep nesting, a prefix
 * of anything) yields a tree or an error, never a crash, an abort or a read
 * outside text[0..len). The tree lives in the caller's arena; the token
 * array is private and freed before returning. No global state.
 *
 * Error messages, code ENG_E_SYNTAX unless said otherwise, chosen to read
 * like what Cassandra's ANTLR 3 parser prints (facts §8.2):
 *  - "line L:C mismatched input 'X' expecting T" when a required token is
 *    not there, T spelled as ANTLR names tokens: K_FROM for a keyword, ')'
 *    for punctuation, EOF after a complete statement.
 *  - "line L:C no viable alternative at input 'X'" when nothing can start
 *    with X: a misspelled statement keyword, a term that is not a term, a
 *    table name followed by something that cannot follow one. As in ANTLR,
 *    X may be a token or two past the parser's position.
 *  - L is 1-based; C is ANTLR's 0-based column in UTF-16 units (nodes store
 *    C + 1). At the end of input the position is "line 0:-1": Cassandra's
 *    lexer hands the parser an EOF token that has no position.
 *  - Both end with Cassandra's snippet (its ErrorCollector): the source of
 *    the tokens from ten before the parser's position to two after it, as
 *    far as the parser has read, with the token at the position in brackets:
 *    "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)". It is
 *    left out when it would include the position-less EOF token, as there.
 *  - Lexer errors, without snippet: "line L:C no viable alternative at
 *    character '@'", "line L:C mismatched character '<EOF>' expecting '''"
 *    (unterminated string), "... expecting '*'" (unterminated comment),
 *    "... expecting set null" (a -- or // comment that ends the text without
 *    a newline: Cassandra's lexer requires one). They are reported when the
 *    parser reads past them, as with ANTLR's lazy token stream, so an
 *    earlier parser error wins.
 *  - Errors of Cassandra's grammar actions keep their exact text and have no
 *    position: "Multiple incompatible setting of column v", "Only
 *    expressions of the form X = <value> + X are supported.", "Multiple
 *    definition for property 'x'", "Bind variables cannot be used for table
 *    names", "frozen<> is only allowed on collections, tuples, and
 *    user-defined types (got int)", "Invalid (reserved) user type name byte".
 *  - The first error wins, as Cassandra throws the first one it collected.
 *  - Inputs nested more than MAX_DEPTH levels: "line L:C expression nested
 *    too deeply at input 'X'" (Cassandra would run out of stack instead).
 *  - Valid CQL that cassette does not run gets ENG_E_INVALID: Cassandra's
 *    "Altering column types is no longer supported" (and its field-type
 *    twin), and "<STATEMENT> statements are not supported" for CREATE INDEX,
 *    GRANT, DESCRIBE and the other statements outside ast.h.
 *
 * Tree conventions beyond ast.h:
 *  - Arithmetic in terms and selectors becomes calls of Cassandra's operator
 *    functions (CQL_T_FUNCTION, ks "system", names _add, _substract,
 *    _multiply, _divide, _modulo, _negate); a minus sign written apart from
 *    a number or duration literal is folded into the literal. Chains longer
 *    than MAX_DEPTH operators are refused like deep nesting.
 *  - IS NOT NULL has one value, a CQL_T_NULL term.
 *  - In selectors, {k: v} is a CQL_T_UDT when every key is a bare name (the
 *    analyzer decides, as Cassandra does), else a CQL_T_MAP; (x) is x.
 *  - A custom type 'class' has name == custom == the class.
 *  - ALTER TYPE ... RENAME: fields[] holds from0, to0, from1, ... and
 *    n_fields counts them all; types[] is empty.
 *  - A BATCH member's n_binds counts its own markers; bind_index is global.
 *  - ALTER TABLE ... DROP ... USING TIMESTAMP n parses; the timestamp is
 *    dropped (ast.h has no field for it).
 */
#include "cql/lang/parse.h"
#include "cql/lang/lexer.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Deeper nesting is refused: the parser recurses, and so do its consumers. */
enum { MAX_DEPTH = 100 };


typedef cql_tok tok;
#define kw_info cql_keywords

static int lower_ascii(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* UTF-16 units a UTF-8 byte adds to a column: continuation bytes none, 4-byte leads two. */
static int byte_units(unsigned char c)
{
    return (c & 0xC0) == 0x80 ? 0 : c >= 0xF0 ? 2 : 1;
}

/* ---- parser state, token access, errors ---- */

typedef struct parser {
    const char *src;
    size_t len;
    const tok *toks; /* every token, hidden ones included, EOF last */
    int n_toks;
    const int *on; /* indexes of the tokens the parser sees (not WS, comments) */
    int n_on;
    int pos;         /* LT(1) is toks[on[pos]] */
    int fetched;     /* highest token index ANTLR's lazy stream would have read */
    int lex_err_tok; /* reading this token index reports the lexer's error */
    const char *lex_err_msg;
    eng_arena *arena;
    eng_err *err;
    int code;        /* code of the error recorded, 0 if none */
    int failed;      /* the current parse (or speculation) failed */
    int speculating; /* trying an alternative: failures are not recorded */
    int n_binds;
    int depth;
    int deferred_code; /* an error to report if the statement parses */
    const char *deferred_msg;
} parser;

typedef struct sbuf {
    char *p;
    size_t cap; /* bytes at p, NUL included */
    size_t len;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + 1 >= b->cap)
        return;
    if (n > b->cap - 1 - b->len)
        n = b->cap - 1 - b->len;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void sb_puts(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void record(parser *p, int code, const char *msg)
{
    if (!p->code) {
        p->code = code;
        eng_errorf(p->err, code, "%s", msg);
    }
    p->failed = 1;
}

static void report_lex_error(parser *p)
{
    record(p, ENG_E_SYNTAX, p->lex_err_msg);
    p->lex_err_tok = INT_MAX;
}

/* LT(k) of ANTLR: the k-th visible token from the position, k >= 1. */
static const tok *lt(parser *p, int k)
{
    int i = p->pos + k - 1 < p->n_on ? p->pos + k - 1 : p->n_on - 1;
    int raw = p->on[i];
    if (raw > p->fetched)
        p->fetched = raw;
    if (raw >= p->lex_err_tok)
        report_lex_error(p);
    return &p->toks[raw];
}

static void advance(parser *p)
{
    if (p->pos < p->n_on - 1)
        p->pos++;
    (void)lt(p, 1); /* ANTLR's consume() reads up to the next visible token */
}

static const char *tok_text(const parser *p, const tok *t, size_t *len)
{
    if (t->kind == TK_STRING || t->kind == TK_QNAME) {
        *len = t->text_len;
        return t->text;
    }
    *len = t->len;
    return p->src + t->off;
}

/* ANTLR's getTokenErrorDisplay: the token's text, quoted, with \n \r \t escaped. */
static void put_token_display(sbuf *b, const parser *p, const tok *t)
{
    sb_puts(b, "'");
    if (t->kind == TK_EOF) {
        sb_puts(b, "<EOF>");
    } else {
        size_t n;
        const char *s = tok_text(p, t, &n);
        for (size_t i = 0; i < n; i++) {
            char c = s[i];
            if (c == '\n' || c == '\r' || c == '\t')
                sb_puts(b, c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t");
            else
                sb_put(b, &c, 1);
        }
    }
    sb_puts(b, "'");
}

static long units_of(const char *s, size_t n)
{
    long u = 0;
    for (size_t i = 0; i < n; i++)
        u += byte_units((unsigned char)s[i]);
    return u;
}

/* Byte offset in a line of UTF-16 column `units`; -1 if the line is shorter. */
static long units_to_byte(const char *ln, size_t len, long units)
{
    size_t i = 0;
    long u = 0;
    while (u < units) {
        if (i >= len)
            return -1;
        u += byte_units((unsigned char)ln[i++]);
    }
    while (i < len && byte_units((unsigned char)ln[i]) == 0)
        i++;
    return (long)i;
}

typedef struct snippet_toks {
    const tok *from, *to, *off;
    long to_end; /* column after the last token */
} snippet_toks;

/*
 * One line of the snippet, as ErrorCollector edits it: cut after the last
 * token, brackets around the offending token, cut before the first token.
 * Returns 0 where Java's substring would throw (Cassandra then has no
 * snippet either; a token's text may be shorter than its source).
 */
static int snippet_line(const parser *p, sbuf *b, size_t ls, size_t le, int line,
                        const snippet_toks *st)
{
    const char *ln = p->src + ls;
    size_t len = le - ls;
    long end = units_of(ln, len), lb = -1, rb = -1, start = 0;
    if (line == st->to->line && st->to_end < end)
        end = st->to_end;
    if (line == st->off->line) {
        size_t n;
        const char *s = tok_text(p, st->off, &n);
        lb = st->off->col;
        rb = lb + units_of(s, n);
        if (rb > end)
            return 0;
    }
    if (line == st->from->line) {
        start = st->from->col;
        if (start > end || (lb >= 0 && start > lb))
            return 0;
    }
    long bs = units_to_byte(ln, len, start), be = units_to_byte(ln, len, end);
    long bl = lb >= 0 ? units_to_byte(ln, len, lb) : -1;
    long br = rb >= 0 ? units_to_byte(ln, len, rb) : -1;
    if (bs < 0 || be < 0 || (lb >= 0 && (bl < 0 || br < 0)))
        return 0;
    if (lb < 0) {
        sb_put(b, ln + bs, (size_t)(be - bs));
        return 1;
    }
    sb_put(b, ln + bs, (size_t)(bl - bs));
    sb_puts(b, "[");
    sb_put(b, ln + bl, (size_t)(br - bl));
    sb_puts(b, "]");
    sb_put(b, ln + br, (size_t)(be - br));
    return 1;
}

/* Cassandra's ErrorCollector snippet: " (...tokens [offending] tokens...)". */
static void append_snippet(const parser *p, sbuf *b, int at)
{
    int from = at - 10 < 0 ? 0 : at - 10;
    int to = at + 2 < p->fetched ? at + 2 : p->fetched;
    snippet_toks st = {&p->toks[from], &p->toks[to], &p->toks[at], 0};
    if (st.from->line <= 0 || st.to->line <= 0 || st.off->line <= 0)
        return; /* the position-less EOF token: Cassandra prints no snippet */
    size_t n;
    const char *s = tok_text(p, st.to, &n);
    st.to_end = st.to->col + units_of(s, n);
    /* The query split on '\n' as Java does, which drops trailing empty lines. */
    size_t e = p->len;
    while (e > 0 && p->src[e - 1] == '\n')
        e--;
    int n_lines = 1;
    for (size_t i = 0; i < e; i++)
        n_lines += p->src[i] == '\n';
    size_t last = e;
    while (last > 0 && p->src[last - 1] != '\n')
        last--;
    if (st.to->line > n_lines)
        return;
    char buf[400];
    sbuf out = {buf, sizeof buf, 0};
    buf[0] = 0;
    sb_puts(&out, " (");
    if (!(st.from->line == 1 && st.from->col == 0))
        sb_puts(&out, "...");
    size_t ls = st.from->line_off;
    for (int line = st.from->line; line <= st.to->line; line++) {
        size_t le = ls;
        while (le < p->len && p->src[le] != '\n')
            le++;
        if (!snippet_line(p, &out, ls, le, line, &st))
            return;
        ls = le + 1;
    }
    if (!(st.to->line == n_lines && st.to_end == units_of(p->src + last, e - last)))
        sb_puts(&out, "...");
    sb_puts(&out, ")");
    sb_puts(b, buf);
}

/*
 * A syntax error as ANTLR reports it: the message names LT(k), the snippet
 * is centred on LT(1) (ANTLR rewinds to the decision's start).
 */
static void fail_antlr(parser *p, int k, const char *expecting)
{
    const tok *t = lt(p, k);
    if (p->speculating || p->code) {
        p->failed = 1;
        return;
    }
    char msg[512];
    sbuf b = {msg, sizeof msg, 0};
    msg[0] = 0;
    sb_printf(&b, "line %d:%d ", t->line, t->col);
    sb_puts(&b, expecting ? "mismatched input " : "no viable alternative at input ");
    put_token_display(&b, p, t);
    if (expecting) {
        sb_puts(&b, " expecting ");
        sb_puts(&b, expecting);
    }
    append_snippet(p, &b, p->on[p->pos]);
    record(p, ENG_E_SYNTAX, msg);
}

static void fail_noviable(parser *p, int k)
{
    fail_antlr(p, k, NULL);
}

static void fail_expecting(parser *p, const char *expecting)
{
    fail_antlr(p, 1, expecting);
}

/* An error of a grammar action (or of cassette): exact text, no position. */
static void fail_text(parser *p, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_text(parser *p, int code, const char *fmt, ...)
{
    if (p->speculating || p->code) {
        p->failed = 1;
        return;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    record(p, code, msg);
}

static void fail_nomem(parser *p)
{
    record(p, ENG_E_NOMEM, "out of memory"); /* even while speculating: it is real */
}

static void fail_depth(parser *p)
{
    const tok *t = lt(p, 1);
    if (p->speculating || p->code) {
        p->failed = 1;
        return;
    }
    char msg[512];
    sbuf b = {msg, sizeof msg, 0};
    msg[0] = 0;
    sb_printf(&b, "line %d:%d expression nested too deeply at input ", t->line, t->col);
    put_token_display(&b, p, t);
    record(p, ENG_E_SYNTAX, msg);
}

static int enter(parser *p)
{
    if (p->depth >= MAX_DEPTH) {
        fail_depth(p);
        return -1;
    }
    p->depth++;
    return 0;
}

static void leave(parser *p)
{
    p->depth--;
}

/*
 * Tries an alternative without committing: ANTLR's syntactic predicates
 * ((K_JSON selectClause)=> ...). Consumes nothing, records nothing, numbers
 * no bind marker; returns 1 if `fn` parsed without failing.
 */
typedef void (*spec_fn)(parser *p, void *arg);

static int speculate(parser *p, spec_fn fn, void *arg)
{
    int pos = p->pos, binds = p->n_binds, depth = p->depth, spec = p->speculating;
    int failed = p->failed;
    p->speculating = 1;
    p->failed = 0;
    fn(p, arg);
    int ok = !p->failed;
    p->pos = pos;
    p->n_binds = binds;
    p->depth = depth;
    p->speculating = spec;
    p->failed = failed || p->code; /* a lexer error or OOM met on the way is real */
    return ok && !p->code;
}

/* ---- token tests and expectations ---- */

static int is_p(const tok *t, int punct)
{
    return t->kind == TK_PUNCT && t->punct == punct;
}

static int is_kw(const tok *t, int kw)
{
    return t->kind == TK_IDENT && t->kw == kw;
}

static const char *punct_name(int punct)
{
    switch (punct) {
    case '(':
        return "'('";
    case ')':
        return "')'";
    case '[':
        return "'['";
    case ']':
        return "']'";
    case '{':
        return "'{'";
    case '}':
        return "'}'";
    case ',':
        return "','";
    case ':':
        return "':'";
    case '=':
        return "'='";
    case '<':
        return "'<'";
    case '>':
        return "'>'";
    case '.':
        return "'.'";
    default:
        return "set null";
    }
}

static int expect_p(parser *p, int punct)
{
    if (!is_p(lt(p, 1), punct)) {
        fail_expecting(p, punct_name(punct));
        return -1;
    }
    advance(p);
    return 0;
}

static int expect_kw(parser *p, int kw)
{
    if (!is_kw(lt(p, 1), kw)) {
        fail_expecting(p, kw_info[kw].name);
        return -1;
    }
    advance(p);
    return 0;
}

static int accept_kw(parser *p, int kw)
{
    if (!is_kw(lt(p, 1), kw))
        return 0;
    advance(p);
    return 1;
}

static int accept_p(parser *p, int punct)
{
    if (!is_p(lt(p, 1), punct))
        return 0;
    advance(p);
    return 1;
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        if ((expr) < 0)                                                                            \
            return -1;                                                                             \
    } while (0)

/* ---- allocation ---- */

static void *mk(parser *p, size_t n)
{
    void *m = eng_arena_alloc(p->arena, n ? n : 1);
    if (!m) {
        fail_nomem(p);
        return NULL;
    }
    memset(m, 0, n ? n : 1);
    return m;
}

static char *dup_str(parser *p, const char *s, size_t n)
{
    char *d = mk(p, n + 1);
    if (d)
        memcpy(d, s, n);
    return d;
}

static char *dup_lower(parser *p, const char *s, size_t n)
{
    char *d = dup_str(p, s, n);
    for (size_t i = 0; d && i < n; i++)
        d[i] = (char)lower_ascii((unsigned char)d[i]);
    return d;
}

/* A growable array in the arena (the old copy is left behind, as arenas do). */
typedef struct vec {
    char *a;
    int n, cap;
} vec;

static void *vec_push(parser *p, vec *v, size_t size)
{
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 4;
        char *a = v->cap < INT_MAX / 4 ? mk(p, size * (size_t)cap) : NULL;
        if (!a) {
            if (v->cap >= INT_MAX / 4)
                fail_nomem(p);
            return NULL;
        }
        if (v->n)
            memcpy(a, v->a, size * (size_t)v->n);
        v->a = a;
        v->cap = cap;
    }
    void *slot = v->a + size * (size_t)v->n++;
    memset(slot, 0, size);
    return slot;
}

static int push_ptr(parser *p, vec *v, const void *ptr)
{
    const void **slot = vec_push(p, v, sizeof ptr);
    if (!slot)
        return -1;
    *slot = ptr;
    return 0;
}

/* ---- names ---- */

enum name_class {
    NC_IDENT,     /* ident, noncol_ident, fident, sident, ksName, cfName */
    NC_CIDENT,    /* cident: ident or "" */
    NC_FUNC,      /* allowedFunctionName */
    NC_TYPE_NAME, /* non_type_ident */
};

static int is_name(const tok *t, int nc)
{
    if (t->kind == TK_QNAME)
        return 1;
    if (t->kind == TK_EMPTY_QNAME)
        return nc == NC_CIDENT;
    if (t->kind != TK_IDENT)
        return 0;
    if (t->kw == KW_NONE)
        return 1;
    int cls = kw_info[t->kw].cls;
    switch (nc) {
    case NC_FUNC:
        return cls == KU || cls == KT || t->kw == KW_TOKEN || t->kw == KW_COUNT;
    case NC_TYPE_NAME:
        return cls == KU || t->kw == KW_KEY;
    default:
        return cls != KR;
    }
}

/* Unquoted names are case-insensitive (stored lower-cased), quoted ones exact. */
static const char *name_text(parser *p, const tok *t)
{
    if (t->kind == TK_QNAME)
        return t->text;
    if (t->kind == TK_EMPTY_QNAME)
        return "";
    return dup_lower(p, p->src + t->off, t->len);
}

static const char *take_name(parser *p, int nc)
{
    const tok *t = lt(p, 1);
    if (!is_name(t, nc)) {
        fail_noviable(p, 1);
        return NULL;
    }
    const char *s = name_text(p, t);
    if (s)
        advance(p);
    return s;
}

static void set_pos(int *line, int *col, const tok *t)
{
    *line = t->line;
    *col = t->col + 1;
}

/*
 * What may follow a table name anywhere in Cassandra's grammar: ANTLR
 * decides `(ksName '.')? cfName` on the token after the name, so anything
 * else is "no viable alternative" at that token.
 */
static int follows_table_name(const tok *t)
{
    static const int kws[] = {KW_WHERE,   KW_GROUP, KW_ORDER, KW_PER,  KW_LIMIT,
                              KW_ALLOW,   KW_JSON,  KW_USING, KW_SET,  KW_AS,
                              KW_PRIMARY, KW_ALTER, KW_ADD,   KW_DROP, KW_RENAME,
                              KW_WITH,    KW_TO,    KW_FROM,  KW_OF,   KW_NORECURSIVE};
    if (t->kind == TK_EOF || is_p(t, '.') || is_p(t, ';') || is_p(t, '('))
        return 1;
    for (size_t i = 0; i < ENG_ARRAY_LEN(kws); i++)
        if (is_kw(t, kws[i]))
            return 1;
    return 0;
}

/* ksName / cfName: a name, or a bind marker that Cassandra's grammar refuses by name. */
static const char *take_object_name(parser *p, const char *what)
{
    if (lt(p, 1)->kind == TK_QMARK) {
        fail_text(p, ENG_E_SYNTAX, "Bind variables cannot be used for %s names", what);
        return NULL;
    }
    return take_name(p, NC_IDENT);
}

static int parse_table_name(parser *p, cql_qname *q)
{
    const tok *t = lt(p, 1);
    set_pos(&q->line, &q->col, t);
    if (!is_name(t, NC_IDENT) && t->kind != TK_QMARK) {
        fail_noviable(p, 1);
        return -1;
    }
    if (is_p(lt(p, 2), '.')) {
        q->ks = take_object_name(p, "keyspace");
        if (!q->ks)
            return -1;
        advance(p);
    } else if (!follows_table_name(lt(p, 2))) {
        fail_noviable(p, 2);
        return -1;
    }
    q->name = take_object_name(p, "table");
    return q->name ? 0 : -1;
}

static const char *parse_keyspace_name(parser *p)
{
    return take_object_name(p, "keyspace");
}

/* ---- types ---- */

static cql_typeref *new_typeref(parser *p, const tok *at, const char *name)
{
    cql_typeref *t = mk(p, sizeof *t);
    if (t) {
        t->name = name;
        set_pos(&t->line, &t->col, at);
    }
    return t;
}

static cql_typeref *parse_type(parser *p);
static cql_typeref *parse_type_ex(parser *p, int *native);

/* '<' type, ... '>': exactly `n` types, or one or more if n is 0 (tuple<...>). */
static int parse_type_args(parser *p, cql_typeref *t, int n)
{
    vec args = {0};
    TRY(expect_p(p, '<'));
    for (int i = 1;; i++) {
        cql_typeref *a = parse_type(p);
        if (!a || push_ptr(p, &args, a) < 0)
            return -1;
        if (n ? i == n : !is_p(lt(p, 1), ','))
            break;
        TRY(expect_p(p, ','));
    }
    TRY(expect_p(p, '>'));
    t->args = (cql_typeref **)args.a;
    t->n_args = args.n;
    return 0;
}

/* Names Parser.g keeps for future types (checked case-sensitively, as there). */
static int reserved_type_name(const char *s, size_t n)
{
    static const char *const names[] = {"byte",     "complex", "enum",     "date",
                                        "interval", "macaddr", "bitstring"};
    for (size_t i = 0; i < ENG_ARRAY_LEN(names); i++)
        if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
            return 1;
    return 0;
}

/* userTypeName: (noncol_ident '.')? non_type_ident */
static int parse_udt_name(parser *p, const char **ks, const char **name)
{
    *ks = NULL;
    if (is_p(lt(p, 2), '.')) {
        if (!(*ks = take_name(p, NC_IDENT)))
            return -1;
        advance(p);
    }
    const tok *t = lt(p, 1);
    if (!is_name(t, NC_TYPE_NAME)) {
        fail_noviable(p, 1);
        return -1;
    }
    if (t->kind == TK_IDENT && t->kw == KW_NONE && reserved_type_name(p->src + t->off, t->len)) {
        fail_text(p, ENG_E_SYNTAX, "Invalid (reserved) user type name %.*s", (int)t->len,
                  p->src + t->off);
        return -1;
    }
    *name = name_text(p, t);
    if (!*name)
        return -1;
    advance(p);
    return 0;
}

static int is_native_type(const tok *t)
{
    return t->kind == TK_IDENT && t->kw != KW_NONE && kw_info[t->kw].cls == KT;
}

/* frozen '<' type '>': Cassandra freezes after matching '>' and refuses scalars. */
static cql_typeref *parse_frozen(parser *p, cql_typeref *r)
{
    int native;
    cql_typeref **args = mk(p, sizeof *args);
    if (!args || expect_p(p, '<') < 0 || !(args[0] = parse_type_ex(p, &native)) ||
        expect_p(p, '>') < 0)
        return NULL;
    if (native || args[0]->custom) {
        const char *q = native ? "" : "'";
        fail_text(p, ENG_E_SYNTAX,
                  "frozen<> is only allowed on collections, tuples, and user-defined types "
                  "(got %s%s%s)",
                  q, args[0]->name, q);
        return NULL;
    }
    r->args = args;
    r->n_args = 1;
    return r;
}

static int is_parametrized_type(const tok *t)
{
    return is_kw(t, KW_MAP) || is_kw(t, KW_LIST) || is_kw(t, KW_SET) || is_kw(t, KW_TUPLE) ||
           is_kw(t, KW_FROZEN);
}

/* comparatorType; *native tells frozen<> whether the type is a scalar. */
static cql_typeref *parse_type_ex(parser *p, int *native)
{
    const tok *t = lt(p, 1), *t2 = lt(p, 2);
    cql_typeref *r = NULL;
    *native = 0;
    if (enter(p) < 0)
        return NULL;
    if (t->kind == TK_STRING) {
        if ((r = new_typeref(p, t, t->text)) != NULL) {
            r->custom = t->text;
            advance(p);
        }
    } else if (is_native_type(t) && !is_p(t2, '.')) {
        *native = 1;
        if ((r = new_typeref(p, t, name_text(p, t))) != NULL && r->name)
            advance(p);
    } else if (is_parametrized_type(t) && is_p(t2, '<')) {
        if ((r = new_typeref(p, t, name_text(p, t))) != NULL && r->name) {
            advance(p);
            if (is_kw(t, KW_FROZEN))
                r = parse_frozen(p, r);
            else if (parse_type_args(p, r, is_kw(t, KW_MAP) ? 2 : is_kw(t, KW_TUPLE) ? 0 : 1) < 0)
                r = NULL;
        }
    } else if (is_name(t, NC_IDENT)) {
        const char *ks, *name;
        if (parse_udt_name(p, &ks, &name) == 0 && (r = new_typeref(p, t, name)) != NULL)
            r->ks = ks;
    } else {
        fail_noviable(p, 1);
    }
    leave(p);
    return p->failed ? NULL : r;
}

static cql_typeref *parse_type(parser *p)
{
    int native;
    return parse_type_ex(p, &native);
}

static cql_typeref *parse_native_type(parser *p)
{
    const tok *t = lt(p, 1);
    if (!is_native_type(t)) {
        fail_noviable(p, 1);
        return NULL;
    }
    cql_typeref *r = new_typeref(p, t, name_text(p, t));
    if (!r || !r->name)
        return NULL;
    advance(p);
    return r;
}

/* ---- terms ---- */

static cql_term *new_term(parser *p, int kind, const tok *at)
{
    cql_term *t = mk(p, sizeof *t);
    if (t) {
        t->kind = kind;
        set_pos(&t->line, &t->col, at);
    }
    return t;
}

static void set_items(cql_term *t, const vec *items)
{
    t->items = (cql_term **)items->a;
    t->n_items = items->n;
}

static cql_term *new_bind(parser *p, const tok *at, const char *name)
{
    cql_term *t = new_term(p, CQL_T_BIND, at);
    if (t) {
        t->name = name;
        t->bind_index = p->n_binds++;
    }
    return t;
}

/* '?' or ':' name */
static cql_term *parse_bind(parser *p)
{
    const tok *t = lt(p, 1);
    if (t->kind == TK_QMARK) {
        advance(p);
        return new_bind(p, t, NULL);
    }
    if (!is_p(t, ':')) {
        fail_noviable(p, 1);
        return NULL;
    }
    advance(p);
    const char *name = take_name(p, NC_IDENT);
    return name ? new_bind(p, t, name) : NULL;
}

static int is_bind_start(const tok *t)
{
    return t->kind == TK_QMARK || is_p(t, ':');
}

static int is_constant(const tok *t)
{
    switch (t->kind) {
    case TK_STRING:
    case TK_INTEGER:
    case TK_FLOAT:
    case TK_BOOLEAN:
    case TK_DURATION:
    case TK_UUID:
    case TK_HEX:
    case TK_NEG_NAN:
    case TK_NEG_INF:
        return 1;
    default:
        return is_kw(t, KW_POSITIVE_NAN) || is_kw(t, KW_POSITIVE_INFINITY);
    }
}

static cql_term *parse_constant(parser *p)
{
    const tok *t = lt(p, 1);
    static const int kinds[] = {
        [TK_STRING] = CQL_T_STRING,   [TK_INTEGER] = CQL_T_INTEGER,   [TK_FLOAT] = CQL_T_FLOAT,
        [TK_BOOLEAN] = CQL_T_BOOLEAN, [TK_DURATION] = CQL_T_DURATION, [TK_UUID] = CQL_T_UUID,
        [TK_HEX] = CQL_T_HEX,         [TK_NEG_NAN] = CQL_T_FLOAT,     [TK_NEG_INF] = CQL_T_FLOAT,
        [TK_IDENT] = CQL_T_FLOAT, /* NaN, Infinity */
    };
    cql_term *r = new_term(p, kinds[t->kind], t);
    if (!r)
        return NULL;
    const char *s = p->src + t->off;
    size_t n = t->len;
    switch (t->kind) {
    case TK_STRING:
        r->text = t->text;
        r->len = t->text_len;
        break;
    case TK_BOOLEAN:
        r->text = lower_ascii((unsigned char)s[0]) == 't' ? "true" : "false";
        break;
    case TK_HEX:
        r->text = dup_str(p, s + 2, n - 2);
        break;
    case TK_NEG_NAN:
        r->text = "NaN"; /* Cassandra reads -NaN as NaN */
        break;
    case TK_NEG_INF:
        r->text = "-Infinity";
        break;
    case TK_IDENT:
        r->text = t->kw == KW_POSITIVE_NAN ? "NaN" : "Infinity";
        break;
    default:
        r->text = dup_str(p, s, n);
    }
    if (!r->text)
        return NULL;
    if (t->kind != TK_STRING)
        r->len = strlen(r->text);
    advance(p);
    return r;
}

/* An operator call: Cassandra's parser turns `a + b` into system._add(a, b). */
static cql_term *new_op(parser *p, const tok *at, const char *fn, cql_term *a, cql_term *b)
{
    cql_term *t = new_term(p, CQL_T_FUNCTION, at);
    cql_term **items = mk(p, 2 * sizeof *items);
    if (!t || !items)
        return NULL;
    t->name = fn;
    t->ks = "system";
    items[0] = a;
    items[1] = b;
    t->items = items;
    t->n_items = b ? 2 : 1;
    return t;
}

/* '-' x: folded into a number or duration literal, else system._negate(x). */
static cql_term *negate(parser *p, const tok *minus, cql_term *x)
{
    if ((x->kind == CQL_T_INTEGER || x->kind == CQL_T_FLOAT || x->kind == CQL_T_DURATION) &&
        x->text[0] != '-') {
        if (strcmp(x->text, "NaN") == 0)
            return x;
        char *s = mk(p, x->len + 2);
        if (!s)
            return NULL;
        s[0] = '-';
        memcpy(s + 1, x->text, x->len);
        x->text = s;
        x->len++;
        set_pos(&x->line, &x->col, minus);
        return x;
    }
    return new_op(p, minus, "_negate", x, NULL);
}

static cql_term *parse_term(parser *p);
static cql_term *parse_simple_term(parser *p);

/* '(' term (',' term)* ')' */
static cql_term *parse_tuple(parser *p)
{
    const tok *at = lt(p, 1);
    vec items = {0};
    if (expect_p(p, '(') < 0)
        return NULL;
    do {
        cql_term *t = parse_term(p);
        if (!t || push_ptr(p, &items, t) < 0)
            return NULL;
    } while (accept_p(p, ','));
    if (expect_p(p, ')') < 0)
        return NULL;
    cql_term *r = new_term(p, CQL_T_TUPLE, at);
    if (r)
        set_items(r, &items);
    return r;
}

/* [a, b], {a, b}, {k: v}, {} (an empty map), {field: v} */
static cql_term *parse_collection(parser *p)
{
    const tok *at = lt(p, 1);
    vec items = {0}, names = {0};
    cql_term *r;
    if (accept_p(p, '[')) {
        if (!(r = new_term(p, CQL_T_LIST, at)))
            return NULL;
        if (!is_p(lt(p, 1), ']')) {
            do {
                cql_term *t = parse_term(p);
                if (!t || push_ptr(p, &items, t) < 0)
                    return NULL;
            } while (accept_p(p, ','));
        }
        if (expect_p(p, ']') < 0)
            return NULL;
        set_items(r, &items);
        return r;
    }
    if (expect_p(p, '{') < 0 || !(r = new_term(p, CQL_T_MAP, at)))
        return NULL;
    if (accept_p(p, '}'))
        return r;
    if (is_name(lt(p, 1), NC_IDENT) && is_p(lt(p, 2), ':')) {
        /* A user type literal: fields are identifiers, which are not terms. */
        r->kind = CQL_T_UDT;
        do {
            const char *f = take_name(p, NC_IDENT);
            cql_term *v = f && expect_p(p, ':') == 0 ? parse_term(p) : NULL;
            if (!v || push_ptr(p, &names, f) < 0 || push_ptr(p, &items, v) < 0)
                return NULL;
        } while (accept_p(p, ','));
        r->names = (const char **)names.a;
    } else {
        int is_map = 0;
        for (int i = 0;; i++) {
            cql_term *k = parse_term(p);
            if (!k || push_ptr(p, &items, k) < 0)
                return NULL;
            if (i == 0)
                is_map = is_p(lt(p, 1), ':');
            if (is_map) {
                cql_term *v = expect_p(p, ':') == 0 ? parse_term(p) : NULL;
                if (!v || push_ptr(p, &items, v) < 0)
                    return NULL;
            }
            if (!accept_p(p, ','))
                break;
        }
        r->kind = is_map ? CQL_T_MAP : CQL_T_SET;
    }
    if (expect_p(p, '}') < 0)
        return NULL;
    set_items(r, &items);
    return r;
}

/*
 * functionName: (ks '.')? name, with the '(' that must follow checked too:
 * ANTLR decides on those tokens and reports the first that does not fit.
 */
static int parse_function_name(parser *p, const char **ks, const char **name)
{
    *ks = NULL;
    if (is_p(lt(p, 2), '.')) {
        if (!is_name(lt(p, 1), NC_IDENT)) {
            fail_noviable(p, 1);
            return -1;
        }
        if (!is_name(lt(p, 3), NC_FUNC) || !is_p(lt(p, 4), '(')) {
            fail_noviable(p, is_name(lt(p, 3), NC_FUNC) ? 4 : 3);
            return -1;
        }
        if (!(*ks = name_text(p, lt(p, 1))))
            return -1;
        advance(p);
        advance(p);
    } else if (!is_name(lt(p, 1), NC_FUNC) || !is_p(lt(p, 2), '(')) {
        fail_noviable(p, is_name(lt(p, 1), NC_FUNC) ? 2 : 1);
        return -1;
    }
    if (!(*name = name_text(p, lt(p, 1))))
        return -1;
    advance(p);
    return 0;
}

static cql_term *parse_function(parser *p)
{
    const tok *at = lt(p, 1);
    vec args = {0};
    const char *ks, *name;
    if (parse_function_name(p, &ks, &name) < 0 || expect_p(p, '(') < 0)
        return NULL;
    if (!is_p(lt(p, 1), ')')) {
        do {
            cql_term *a = parse_term(p);
            if (!a || push_ptr(p, &args, a) < 0)
                return NULL;
        } while (accept_p(p, ','));
    }
    if (expect_p(p, ')') < 0)
        return NULL;
    cql_term *r = new_term(p, CQL_T_FUNCTION, at);
    if (r) {
        r->ks = ks;
        r->name = name;
        set_items(r, &args);
    }
    return r;
}

static int can_start_simple_term(const tok *t)
{
    return is_constant(t) || is_kw(t, KW_NULL) || is_bind_start(t) || is_p(t, '(') ||
           is_p(t, '[') || is_p(t, '{') || is_name(t, NC_IDENT) || is_name(t, NC_FUNC);
}

/* The type hint alternative, '(' type ')' followed by what may start its operand. */
static void spec_term_hint(parser *p, void *arg)
{
    (void)arg;
    advance(p);
    if (parse_type(p) && expect_p(p, ')') == 0 && !can_start_simple_term(lt(p, 1)))
        p->failed = 1;
}

static cql_term *parse_hint_rest(parser *p, const tok *at, cql_term *(*operand)(parser *))
{
    cql_term *r = new_term(p, CQL_T_HINT, at);
    if (!r || expect_p(p, '(') < 0 || !(r->type = parse_type(p)) || expect_p(p, ')') < 0)
        return NULL;
    cql_term *x = operand(p);
    cql_term **items = x ? mk(p, sizeof *items) : NULL;
    if (!items)
        return NULL;
    items[0] = x;
    r->items = items;
    r->n_items = 1;
    return r;
}

/* CAST '(' operand AS native_type ')' */
static cql_term *parse_cast(parser *p, cql_term *(*operand)(parser *))
{
    const tok *at = lt(p, 1);
    cql_term *r = new_term(p, CQL_T_CAST, at);
    if (!r)
        return NULL;
    advance(p);
    cql_term *x = expect_p(p, '(') == 0 ? operand(p) : NULL;
    cql_term **items = x ? mk(p, sizeof *items) : NULL;
    if (!items || expect_kw(p, KW_AS) < 0 || !(r->type = parse_native_type(p)) ||
        expect_p(p, ')') < 0)
        return NULL;
    items[0] = x;
    r->items = items;
    r->n_items = 1;
    return r;
}

/* simpleTerm: value | function | '(' type ')' simpleTerm | CAST '(' simpleTerm AS type ')' */
static cql_term *parse_simple_term(parser *p)
{
    const tok *t = lt(p, 1);
    cql_term *r = NULL;
    if (enter(p) < 0)
        return NULL;
    if (is_constant(t)) {
        r = parse_constant(p);
    } else if (is_kw(t, KW_NULL)) {
        if ((r = new_term(p, CQL_T_NULL, t)) != NULL) {
            r->text = "null";
            r->len = 4;
            advance(p);
        }
    } else if (is_bind_start(t)) {
        r = parse_bind(p);
    } else if (is_p(t, '[') || is_p(t, '{')) {
        r = parse_collection(p);
    } else if (is_p(t, '(')) {
        r = speculate(p, spec_term_hint, NULL) ? parse_hint_rest(p, t, parse_simple_term)
                                               : parse_tuple(p);
    } else if (is_kw(t, KW_CAST) && is_p(lt(p, 2), '(')) {
        r = parse_cast(p, parse_simple_term);
    } else if (is_name(t, NC_IDENT) || is_name(t, NC_FUNC)) {
        r = parse_function(p);
    } else {
        fail_noviable(p, 1);
    }
    leave(p);
    return p->failed ? NULL : r;
}

/* termGroup: simpleTerm | '-' simpleTerm */
static cql_term *parse_term_group(parser *p)
{
    const tok *t = lt(p, 1);
    if (!is_p(t, '-'))
        return parse_simple_term(p);
    advance(p);
    cql_term *x = parse_simple_term(p);
    return x ? negate(p, t, x) : NULL;
}

static const char *mult_op(const tok *t)
{
    return is_p(t, '*') ? "_multiply" : is_p(t, '/') ? "_divide" : is_p(t, '%') ? "_modulo" : NULL;
}

static cql_term *parse_term_mult(parser *p)
{
    cql_term *l = parse_term_group(p);
    for (int n = 0; l; n++) {
        const tok *t = lt(p, 1);
        const char *fn = mult_op(t);
        if (!fn)
            break;
        if (n >= MAX_DEPTH) {
            fail_depth(p);
            return NULL;
        }
        advance(p);
        cql_term *r = parse_term_group(p);
        l = r ? new_op(p, t, fn, l, r) : NULL;
    }
    return l;
}

/*
 * term: termMultiplication (('+' | '-') termMultiplication)*. A '+' followed
 * by a column name ends the term: `SET l = [1] + l` prepends.
 */
static cql_term *parse_term(parser *p)
{
    cql_term *l = parse_term_mult(p);
    for (int n = 0; l; n++) {
        const tok *t = lt(p, 1);
        if (!is_p(t, '+') && !is_p(t, '-'))
            break;
        if (is_p(t, '+') && is_name(lt(p, 2), NC_CIDENT) && !is_p(lt(p, 3), '(') &&
            !is_p(lt(p, 3), '.'))
            break;
        if (n >= MAX_DEPTH) {
            fail_depth(p);
            return NULL;
        }
        advance(p);
        cql_term *r = parse_term_mult(p);
        l = r ? new_op(p, t, is_p(t, '+') ? "_add" : "_substract", l, r) : NULL;
    }
    return l;
}

/* intValue: INTEGER | bind marker (LIMIT, USING TTL / TIMESTAMP) */
static cql_term *parse_int_value(parser *p)
{
    const tok *t = lt(p, 1);
    if (t->kind == TK_INTEGER)
        return parse_constant(p);
    if (is_bind_start(t))
        return parse_bind(p);
    fail_noviable(p, 1);
    return NULL;
}

/* ---- selectors ---- */

static cql_term *parse_sel(parser *p);
static cql_term *parse_sel_nofield(parser *p);

/* Selectors up to `close`, separated by commas (none if `close` comes first and may_be_empty). */
static int parse_sel_items(parser *p, vec *items, int close, int may_be_empty)
{
    if (!(may_be_empty && is_p(lt(p, 1), close))) {
        do {
            cql_term *t = parse_sel(p);
            if (!t || push_ptr(p, items, t) < 0)
                return -1;
        } while (accept_p(p, ','));
    }
    return expect_p(p, close);
}

static cql_term *new_function(parser *p, const tok *at, const char *name, cql_term *arg)
{
    cql_term *t = new_term(p, CQL_T_FUNCTION, at);
    cql_term **items = mk(p, sizeof *items);
    if (!t || !items)
        return NULL;
    t->name = name;
    items[0] = arg;
    t->items = items;
    t->n_items = 1;
    return t;
}

/* count(*), writetime(c), ttl(c): fixed forms of Parser.g's selectionFunction. */
static cql_term *parse_sel_special(parser *p, const tok *t)
{
    if (is_kw(t, KW_COUNT)) {
        const tok *star = lt(p, 3);
        advance(p);
        advance(p);
        advance(p);
        cql_term *s = new_term(p, CQL_T_STAR, star);
        if (!s || expect_p(p, ')') < 0)
            return NULL;
        s->text = "*";
        s->len = 1;
        return new_function(p, t, "count", s);
    }
    advance(p);
    advance(p);
    const tok *ct = lt(p, 1);
    const char *col = take_name(p, NC_IDENT);
    cql_term *c = col ? new_term(p, CQL_T_COLUMN, ct) : NULL;
    if (!c || expect_p(p, ')') < 0)
        return NULL;
    c->text = col;
    c->len = strlen(col);
    return new_function(p, t, is_kw(t, KW_TTL) ? "ttl" : "writetime", c);
}

static int starts_sel_function(parser *p)
{
    const tok *t = lt(p, 1), *t2 = lt(p, 2);
    if (is_p(t2, '('))
        return is_name(t, NC_FUNC);
    return is_p(t2, '.') && is_name(t, NC_IDENT) && is_name(lt(p, 3), NC_FUNC) &&
           is_p(lt(p, 4), '(');
}

/* simpleUnaliasedSelector: a column, a literal or a function call. */
static cql_term *parse_sel_simple(parser *p)
{
    const tok *t = lt(p, 1), *t2 = lt(p, 2);
    if (is_kw(t, KW_COUNT) && is_p(t2, '(') && is_p(lt(p, 3), '*'))
        return parse_sel_special(p, t);
    if ((is_kw(t, KW_WRITETIME) || is_kw(t, KW_TTL)) && is_p(t2, '('))
        return parse_sel_special(p, t);
    if (is_kw(t, KW_CAST) && is_p(t2, '('))
        return parse_cast(p, parse_sel);
    if (starts_sel_function(p)) {
        const char *ks, *name;
        vec args = {0};
        if (parse_function_name(p, &ks, &name) < 0 || expect_p(p, '(') < 0 ||
            parse_sel_items(p, &args, ')', 1) < 0)
            return NULL;
        cql_term *r = new_term(p, CQL_T_FUNCTION, t);
        if (r) {
            r->ks = ks;
            r->name = name;
            set_items(r, &args);
        }
        return r;
    }
    if (is_name(t, NC_IDENT)) {
        cql_term *r = new_term(p, CQL_T_COLUMN, t);
        if (!r || !(r->text = name_text(p, t)))
            return NULL;
        r->len = strlen(r->text);
        advance(p);
        return r;
    }
    if (is_constant(t) || is_kw(t, KW_NULL) || is_bind_start(t))
        return parse_simple_term(p);
    fail_noviable(p, 1);
    return NULL;
}

/* {k: v, ...} in a selector is a map, or a UDT literal when every key is a bare name. */
static cql_term *parse_sel_braces(parser *p, const tok *at)
{
    vec items = {0};
    cql_term *r = new_term(p, CQL_T_MAP, at);
    if (!r)
        return NULL;
    advance(p);
    if (accept_p(p, '}'))
        return r;
    cql_term *first = parse_sel(p);
    if (!first || push_ptr(p, &items, first) < 0)
        return NULL;
    if (!is_p(lt(p, 1), ':')) {
        r->kind = CQL_T_SET;
        if (accept_p(p, ',') ? parse_sel_items(p, &items, '}', 0) < 0 : expect_p(p, '}') < 0)
            return NULL;
        set_items(r, &items);
        return r;
    }
    int udt = first->kind == CQL_T_COLUMN;
    for (int i = 0;; i++) {
        if (i > 0) {
            cql_term *k = parse_sel(p);
            if (!k || push_ptr(p, &items, k) < 0)
                return NULL;
            udt = udt && k->kind == CQL_T_COLUMN;
        }
        cql_term *v = expect_p(p, ':') == 0 ? parse_sel(p) : NULL;
        if (!v || push_ptr(p, &items, v) < 0)
            return NULL;
        if (!accept_p(p, ','))
            break;
    }
    if (expect_p(p, '}') < 0)
        return NULL;
    cql_term **kv = (cql_term **)items.a;
    if (!udt) {
        set_items(r, &items);
        return r;
    }
    int n = items.n / 2;
    const char **names = mk(p, (size_t)n * sizeof *names);
    cql_term **vals = mk(p, (size_t)n * sizeof *vals);
    if (!names || !vals)
        return NULL;
    for (int i = 0; i < n; i++) {
        names[i] = kv[2 * i]->text;
        vals[i] = kv[2 * i + 1];
    }
    r->kind = CQL_T_UDT;
    r->names = names;
    r->items = vals;
    r->n_items = n;
    return r;
}

/* selectionGroupWithoutField: type hint, tuple or parenthesised selector, list, set, map */
static cql_term *parse_sel_nofield(parser *p)
{
    const tok *t = lt(p, 1);
    cql_term *r = NULL;
    if (enter(p) < 0)
        return NULL;
    if (is_p(t, '(') && speculate(p, spec_term_hint, NULL)) {
        r = parse_hint_rest(p, t, parse_sel_nofield);
    } else if (is_p(t, '(')) {
        vec items = {0};
        advance(p);
        if (parse_sel_items(p, &items, ')', 0) == 0) {
            if (items.n == 1)
                r = ((cql_term **)items.a)[0];
            else if ((r = new_term(p, CQL_T_TUPLE, t)) != NULL)
                set_items(r, &items);
        }
    } else if (is_p(t, '[')) {
        vec items = {0};
        advance(p);
        if (parse_sel_items(p, &items, ']', 1) == 0 && (r = new_term(p, CQL_T_LIST, t)) != NULL)
            set_items(r, &items);
    } else if (is_p(t, '{')) {
        r = parse_sel_braces(p, t);
    } else {
        r = parse_sel_simple(p);
    }
    leave(p);
    return p->failed ? NULL : r;
}

/* '[' collectionSubSelection ']' after a selector: [key], [from..to], [from..], [..to]. */
static cql_term *parse_sel_subscript(parser *p, cql_term *selected)
{
    const tok *at = lt(p, 1);
    cql_term *from = NULL, *to = NULL;
    int slice = 0;
    advance(p); /* [ */
    if (!is_p(lt(p, 1), P2('.', '.')) && !(from = parse_term(p)))
        return NULL;
    if (accept_p(p, P2('.', '.'))) {
        slice = 1;
        if ((!from || !is_p(lt(p, 1), ']')) && !(to = parse_term(p)))
            return NULL;
    }
    if (expect_p(p, ']') < 0)
        return NULL;
    cql_term *r = new_term(p, slice ? CQL_T_SLICE : CQL_T_ELEMENT, at);
    cql_term **items = r ? mk(p, 3 * sizeof *items) : NULL;
    if (!items)
        return NULL;
    r->line = selected->line;
    r->col = selected->col;
    items[0] = selected;
    items[1] = from;
    items[2] = to;
    r->items = items;
    r->n_items = slice ? 3 : 2;
    return r;
}

/* selectionGroup: '-' group | group ('.' field | '[' subselection ']')* */
static cql_term *parse_sel_group(parser *p)
{
    const tok *t = lt(p, 1);
    cql_term *r = NULL;
    if (is_p(t, '-')) {
        if (enter(p) < 0)
            return NULL;
        advance(p);
        cql_term *x = parse_sel_group(p);
        r = x ? negate(p, t, x) : NULL;
        leave(p);
    } else {
        r = parse_sel_nofield(p);
        while (r && (is_p(lt(p, 1), '.') || is_p(lt(p, 1), '['))) {
            if (is_p(lt(p, 1), '[')) {
                r = parse_sel_subscript(p, r);
                continue;
            }
            advance(p);
            const char *f = take_name(p, NC_IDENT);
            cql_term *fld = f ? new_term(p, CQL_T_FIELD, t) : NULL;
            cql_term **items = fld ? mk(p, sizeof *items) : NULL;
            if (items) {
                fld->text = f;
                fld->len = strlen(f);
                items[0] = r;
                fld->items = items;
                fld->n_items = 1;
            }
            r = items ? fld : NULL;
        }
    }
    return p->failed ? NULL : r;
}

static cql_term *parse_sel_mult(parser *p)
{
    cql_term *l = parse_sel_group(p);
    for (int n = 0; l; n++) {
        const tok *t = lt(p, 1);
        const char *fn = mult_op(t);
        if (!fn)
            break;
        if (n >= MAX_DEPTH) {
            fail_depth(p);
            return NULL;
        }
        advance(p);
        cql_term *r = parse_sel_group(p);
        l = r ? new_op(p, t, fn, l, r) : NULL;
    }
    return l;
}

/* unaliasedSelector: selectionMultiplication (('+' | '-') selectionMultiplication)* */
static cql_term *parse_sel(parser *p)
{
    cql_term *l = parse_sel_mult(p);
    for (int n = 0; l; n++) {
        const tok *t = lt(p, 1);
        if (!is_p(t, '+') && !is_p(t, '-'))
            break;
        if (n >= MAX_DEPTH) {
            fail_depth(p);
            return NULL;
        }
        advance(p);
        cql_term *r = parse_sel_mult(p);
        l = r ? new_op(p, t, is_p(t, '+') ? "_add" : "_substract", l, r) : NULL;
    }
    return l;
}

static int parse_selectors(parser *p, cql_select *s)
{
    vec sels = {0};
    if (accept_p(p, '*')) {
        s->star = 1;
        return 0;
    }
    do {
        cql_selector *sel = vec_push(p, &sels, sizeof *sel);
        if (!sel || !(sel->term = parse_sel(p)))
            return -1;
        if (accept_kw(p, KW_AS) && !(sel->alias = take_name(p, NC_IDENT)))
            return -1;
    } while (accept_p(p, ','));
    s->sels = (cql_selector *)sels.a;
    s->n_sels = sels.n;
    return 0;
}

static void spec_selectors(parser *p, void *arg)
{
    cql_select scratch;
    (void)arg;
    memset(&scratch, 0, sizeof scratch);
    advance(p); /* DISTINCT */
    (void)parse_selectors(p, &scratch);
}

/* DISTINCT and JSON are also column names: they are keywords only if selectors follow. */
static int parse_select_clause(parser *p, cql_select *s)
{
    if (is_kw(lt(p, 1), KW_DISTINCT) && speculate(p, spec_selectors, NULL)) {
        advance(p);
        s->distinct = 1;
    }
    return parse_selectors(p, s);
}

static void spec_select_clause(parser *p, void *arg)
{
    cql_select scratch;
    (void)arg;
    memset(&scratch, 0, sizeof scratch);
    advance(p); /* JSON */
    (void)parse_select_clause(p, &scratch);
}

/* ---- WHERE relations and IF conditions ---- */

static int rel_op(const tok *t)
{
    if (t->kind != TK_PUNCT)
        return 0;
    switch (t->punct) {
    case '=':
        return CQL_OP_EQ;
    case '<':
        return CQL_OP_LT;
    case P2('<', '='):
        return CQL_OP_LE;
    case '>':
        return CQL_OP_GT;
    case P2('>', '='):
        return CQL_OP_GE;
    case P2('!', '='):
        return CQL_OP_NE;
    default:
        return 0;
    }
}

/* After IN: '(' terms ')' or a marker for the whole list. */
static int parse_in_values(parser *p, vec *values, int *in_marker)
{
    const tok *t = lt(p, 1);
    if (is_bind_start(t)) {
        cql_term *b = parse_bind(p);
        *in_marker = 1;
        return b ? push_ptr(p, values, b) : -1;
    }
    if (!is_p(t, '(')) {
        fail_noviable(p, 1);
        return -1;
    }
    advance(p);
    if (!is_p(lt(p, 1), ')')) {
        do {
            cql_term *v = parse_term(p);
            if (!v || push_ptr(p, values, v) < 0)
                return -1;
        } while (accept_p(p, ','));
    }
    return expect_p(p, ')');
}

static int parse_name_tuple(parser *p, vec *cols)
{
    TRY(expect_p(p, '('));
    do {
        const char *c = take_name(p, NC_CIDENT);
        if (!c || push_ptr(p, cols, c) < 0)
            return -1;
    } while (accept_p(p, ','));
    return expect_p(p, ')');
}

static int take_rel_op(parser *p, int *op)
{
    if (!(*op = rel_op(lt(p, 1)))) {
        fail_noviable(p, 1);
        return -1;
    }
    advance(p);
    return 0;
}

static int push_term(parser *p, vec *v, cql_term *t)
{
    return t ? push_ptr(p, v, t) : -1;
}

/* (c1, c2) op (t1, t2) | op ? | IN ((..), (..)) | IN (?, ?) | IN ? | IN () */
static int parse_multi_values(parser *p, cql_relation *r, vec *values)
{
    if (!accept_kw(p, KW_IN)) {
        TRY(take_rel_op(p, &r->op));
        const tok *t = lt(p, 1);
        if (!is_p(t, '(') && !is_bind_start(t)) {
            fail_noviable(p, 1);
            return -1;
        }
        return push_term(p, values, is_p(t, '(') ? parse_tuple(p) : parse_bind(p));
    }
    r->op = CQL_OP_IN;
    const tok *t = lt(p, 1), *t2 = lt(p, 2);
    if (is_p(t, '(') && is_p(t2, ')')) {
        advance(p);
        advance(p);
        return 0;
    }
    if (is_bind_start(t)) {
        r->in_marker = 1;
        return push_term(p, values, parse_bind(p));
    }
    if (!is_p(t, '(') || (!is_p(t2, '(') && !is_bind_start(t2))) {
        fail_noviable(p, is_p(t, '(') ? 2 : 1);
        return -1;
    }
    int tuples = is_p(t2, '(');
    advance(p);
    do
        TRY(push_term(p, values, tuples ? parse_tuple(p) : parse_bind(p)));
    while (accept_p(p, ','));
    return expect_p(p, ')');
}

static int starts_column_relation_op(const tok *t)
{
    return rel_op(t) || is_kw(t, KW_LIKE) || is_kw(t, KW_IS) || is_kw(t, KW_IN) ||
           is_kw(t, KW_CONTAINS) || is_p(t, '[');
}

/* col op term | col LIKE | col IS NOT NULL | col IN ... | col CONTAINS [KEY] | col[k] op term */
static int parse_column_relation(parser *p, cql_relation *r, vec *cols, vec *values)
{
    if (!starts_column_relation_op(lt(p, 2))) {
        fail_noviable(p, 2);
        return -1;
    }
    const char *name = take_name(p, NC_CIDENT);
    if (!name || push_ptr(p, cols, name) < 0)
        return -1;
    r->kind = CQL_REL_COLUMN;
    const tok *t = lt(p, 1);
    if (accept_p(p, '[')) {
        r->kind = CQL_REL_ELEMENT;
        if (!(r->key = parse_term(p)) || expect_p(p, ']') < 0 || take_rel_op(p, &r->op) < 0)
            return -1;
    } else if (accept_kw(p, KW_IS)) {
        r->op = CQL_OP_IS_NOT_NULL;
        TRY(expect_kw(p, KW_NOT));
        const tok *nt = lt(p, 1);
        TRY(expect_kw(p, KW_NULL));
        cql_term *n = new_term(p, CQL_T_NULL, nt);
        if (!n)
            return -1;
        n->text = "null";
        n->len = 4;
        return push_ptr(p, values, n);
    } else if (accept_kw(p, KW_IN)) {
        r->op = CQL_OP_IN;
        return parse_in_values(p, values, &r->in_marker);
    } else if (accept_kw(p, KW_LIKE)) {
        r->op = CQL_OP_LIKE;
    } else if (accept_kw(p, KW_CONTAINS)) {
        r->op = accept_kw(p, KW_KEY) ? CQL_OP_CONTAINS_KEY : CQL_OP_CONTAINS;
    } else {
        r->op = rel_op(t);
        advance(p);
    }
    return push_term(p, values, parse_term(p));
}

static int parse_relation(parser *p, vec *rels);

static int parse_relation_body(parser *p, vec *rels)
{
    const tok *t = lt(p, 1);
    if (is_p(t, '(') &&
        !(is_name(lt(p, 2), NC_CIDENT) && (is_p(lt(p, 3), ',') || is_p(lt(p, 3), ')')))) {
        advance(p); /* '(' relation ')' */
        TRY(parse_relation(p, rels));
        return expect_p(p, ')');
    }
    cql_relation *r = vec_push(p, rels, sizeof *r);
    vec cols = {0}, values = {0};
    if (!r)
        return -1;
    set_pos(&r->line, &r->col, t);
    if (is_kw(t, KW_TOKEN)) {
        r->kind = CQL_REL_TOKEN;
        advance(p);
        if (parse_name_tuple(p, &cols) < 0 || take_rel_op(p, &r->op) < 0 ||
            push_term(p, &values, parse_term(p)) < 0)
            return -1;
    } else if (is_p(t, '(')) {
        r->kind = CQL_REL_MULTI;
        if (parse_name_tuple(p, &cols) < 0 || parse_multi_values(p, r, &values) < 0)
            return -1;
    } else if (is_name(t, NC_CIDENT)) {
        TRY(parse_column_relation(p, r, &cols, &values));
    } else {
        fail_noviable(p, 1);
        return -1;
    }
    r->cols = (const char **)cols.a;
    r->n_cols = cols.n;
    r->values = (cql_term **)values.a;
    r->n_values = values.n;
    return 0;
}

static int parse_relation(parser *p, vec *rels)
{
    if (enter(p) < 0)
        return -1;
    int rc = parse_relation_body(p, rels);
    leave(p);
    return rc;
}

static int parse_where(parser *p, cql_relation **out, int *n)
{
    vec rels = {0};
    do
        TRY(parse_relation(p, &rels));
    while (accept_kw(p, KW_AND));
    *out = (cql_relation *)rels.a;
    *n = rels.n;
    return 0;
}

/* col op term | col IN ... | col CONTAINS [KEY] term | col[e] ... | col.f ... */
static int parse_condition(parser *p, vec *conds)
{
    cql_condition *c = vec_push(p, conds, sizeof *c);
    vec values = {0};
    if (!c)
        return -1;
    set_pos(&c->line, &c->col_no, lt(p, 1));
    if (!(c->col = take_name(p, NC_CIDENT)))
        return -1;
    int plain = 1;
    if (accept_p(p, '[')) {
        plain = 0;
        if (!(c->elem = parse_term(p)) || expect_p(p, ']') < 0)
            return -1;
    } else if (accept_p(p, '.')) {
        plain = 0;
        if (!(c->field = take_name(p, NC_IDENT)))
            return -1;
    }
    const tok *t = lt(p, 1);
    if (rel_op(t)) {
        c->op = rel_op(t);
        advance(p);
        TRY(push_term(p, &values, parse_term(p)));
    } else if (accept_kw(p, KW_IN)) {
        c->op = CQL_OP_IN;
        TRY(parse_in_values(p, &values, &c->in_marker));
    } else if (plain && accept_kw(p, KW_CONTAINS)) {
        c->op = accept_kw(p, KW_KEY) ? CQL_OP_CONTAINS_KEY : CQL_OP_CONTAINS;
        TRY(push_term(p, &values, parse_term(p)));
    } else {
        fail_noviable(p, 1);
        return -1;
    }
    c->values = (cql_term **)values.a;
    c->n_values = values.n;
    return 0;
}

static int starts_condition_op(const tok *t)
{
    return rel_op(t) || is_kw(t, KW_IN) || is_kw(t, KW_CONTAINS) || is_p(t, '[') || is_p(t, '.');
}

/* IF EXISTS | IF condition (AND condition)*; `exists` may also be a column. */
static int parse_if_clause(parser *p, int *if_exists, cql_condition **out, int *n)
{
    vec conds = {0};
    advance(p); /* IF */
    if (is_kw(lt(p, 1), KW_EXISTS) && !starts_condition_op(lt(p, 2))) {
        advance(p);
        *if_exists = 1;
        return 0;
    }
    do
        TRY(parse_condition(p, &conds));
    while (accept_kw(p, KW_AND));
    *out = (cql_condition *)conds.a;
    *n = conds.n;
    return 0;
}

/* ---- WITH properties ---- */

/* Term.Raw's toString, for the texts of convertPropertyMap's errors. */
static void render_term(sbuf *b, const cql_term *t)
{
    static const char *const open[] = {
        [CQL_T_LIST] = "[", [CQL_T_SET] = "{",   [CQL_T_MAP] = "{",
        [CQL_T_UDT] = "{",  [CQL_T_TUPLE] = "(", [CQL_T_FUNCTION] = "("};
    switch (t->kind) {
    case CQL_T_STRING:
        sb_puts(b, "'");
        sb_put(b, t->text, t->len);
        sb_puts(b, "'");
        return;
    case CQL_T_HEX:
        sb_puts(b, "0x");
        sb_puts(b, t->text);
        return;
    case CQL_T_BIND:
        sb_puts(b, "?");
        return;
    case CQL_T_CAST:
    case CQL_T_HINT:
        sb_puts(b, t->kind == CQL_T_CAST ? "CAST(" : "(");
        sb_puts(b, t->type->name);
        sb_puts(b, ")");
        render_term(b, t->items[0]);
        return;
    case CQL_T_FIELD:
        render_term(b, t->items[0]);
        sb_puts(b, ".");
        sb_puts(b, t->text);
        return;
    case CQL_T_LIST:
    case CQL_T_SET:
    case CQL_T_MAP:
    case CQL_T_UDT:
    case CQL_T_TUPLE:
    case CQL_T_FUNCTION:
        break;
    default:
        sb_puts(b, t->text ? t->text : "");
        return;
    }
    if (t->kind == CQL_T_FUNCTION)
        sb_printf(b, "%s%s%s", t->ks ? t->ks : "", t->ks ? "." : "", t->name);
    sb_puts(b, open[t->kind]);
    for (int i = 0; i < t->n_items; i++) {
        if (i > 0)
            sb_puts(b, t->kind == CQL_T_MAP && i % 2 ? ": " : ", ");
        if (t->kind == CQL_T_UDT)
            sb_printf(b, "%s: ", t->names[i]);
        render_term(b, t->items[i]);
    }
    sb_puts(b, t->kind == CQL_T_LIST                                 ? "]"
               : t->kind == CQL_T_TUPLE || t->kind == CQL_T_FUNCTION ? ")"
                                                                     : "}");
}

static int is_literal(const cql_term *t)
{
    return t->kind >= CQL_T_INTEGER && t->kind <= CQL_T_DURATION;
}

/* A constant's raw text (Constants.Literal.getRawText). */
static void render_raw(sbuf *b, const cql_term *t)
{
    if (t->kind == CQL_T_HEX)
        sb_puts(b, "0x");
    sb_put(b, t->text, t->len);
}

/* Parser.g's convertPropertyMap: keys and values must be constants, keys distinct. */
static int check_property_map(parser *p, const cql_term *m)
{
    for (int i = 0; i + 1 < m->n_items; i += 2) {
        const cql_term *k = m->items[i], *v = m->items[i + 1];
        const char *ddl = " (bind variables are not supported in DDL queries)";
        char msg[512];
        sbuf b = {msg, sizeof msg, 0};
        msg[0] = 0;
        if (!is_literal(k)) {
            sb_puts(&b, "Invalid property name: ");
            render_term(&b, k);
            sb_puts(&b, k->kind == CQL_T_BIND ? ddl : "");
        } else if (!is_literal(v)) {
            sb_puts(&b, "Invalid property value: ");
            render_term(&b, v);
            sb_puts(&b, " for property: ");
            render_term(&b, k);
            sb_puts(&b, v->kind == CQL_T_BIND ? ddl : "");
        } else {
            for (int j = 0; j < i; j += 2) {
                const cql_term *o = m->items[j];
                if ((o->kind == CQL_T_HEX) == (k->kind == CQL_T_HEX) && o->len == k->len &&
                    memcmp(o->text, k->text, k->len) == 0) {
                    sb_puts(&b, "Multiple definition for property ");
                    render_raw(&b, k);
                    break;
                }
            }
        }
        if (b.len) {
            fail_text(p, ENG_E_SYNTAX, "%s", msg);
            return -1;
        }
    }
    return 0;
}

/* '{' (term ':' term (',' term ':' term)*)? '}' */
static cql_term *parse_property_map(parser *p)
{
    vec items = {0};
    cql_term *m = new_term(p, CQL_T_MAP, lt(p, 1));
    if (!m || expect_p(p, '{') < 0)
        return NULL;
    if (!is_p(lt(p, 1), '}')) {
        do {
            cql_term *k = parse_term(p);
            cql_term *v = k && expect_p(p, ':') == 0 ? parse_term(p) : NULL;
            if (!v || push_ptr(p, &items, k) < 0 || push_ptr(p, &items, v) < 0)
                return NULL;
        } while (accept_p(p, ','));
    }
    if (expect_p(p, '}') < 0)
        return NULL;
    set_items(m, &items);
    return check_property_map(p, m) < 0 ? NULL : m;
}

/* name '=' (constant | unreserved keyword | map) */
static int parse_property(parser *p, vec *props)
{
    const tok *at = lt(p, 1);
    const char *name = take_name(p, NC_IDENT);
    if (!name || expect_p(p, '=') < 0)
        return -1;
    const tok *t = lt(p, 1);
    cql_term *v = NULL;
    if (is_p(t, '{')) {
        v = parse_property_map(p);
    } else if (is_constant(t)) {
        v = parse_constant(p);
    } else if (t->kind == TK_IDENT && t->kw != KW_NONE && kw_info[t->kw].cls != KR) {
        /* Cassandra keeps the keyword as written (native type names lower-cased). */
        if ((v = new_term(p, CQL_T_STRING, t)) != NULL) {
            v->text =
                kw_info[t->kw].cls == KT ? name_text(p, t) : dup_str(p, p->src + t->off, t->len);
            v->len = t->len;
            advance(p);
        }
    } else {
        fail_noviable(p, 1);
    }
    if (!v || p->failed)
        return -1;
    const cql_property *prev = (const cql_property *)props->a;
    for (int i = 0; i < props->n; i++) {
        if (strcmp(prev[i].name, name) == 0) {
            fail_text(p, ENG_E_SYNTAX, "Multiple definition for property '%s'", name);
            return -1;
        }
    }
    cql_property *prop = vec_push(p, props, sizeof *prop);
    if (!prop)
        return -1;
    prop->name = name;
    prop->value = v;
    set_pos(&prop->line, &prop->col, at);
    return 0;
}

static int parse_properties(parser *p, cql_property **out, int *n)
{
    vec props = {0};
    do
        TRY(parse_property(p, &props));
    while (accept_kw(p, KW_AND));
    *out = (cql_property *)props.a;
    *n = props.n;
    return 0;
}

/* ---- DDL ---- */

static int parse_if_not_exists(parser *p, int *flag)
{
    if (!accept_kw(p, KW_IF))
        return 0;
    TRY(expect_kw(p, KW_NOT));
    TRY(expect_kw(p, KW_EXISTS));
    *flag = 1;
    return 0;
}

static int parse_if_exists(parser *p, int *flag)
{
    if (!accept_kw(p, KW_IF))
        return 0;
    TRY(expect_kw(p, KW_EXISTS));
    *flag = 1;
    return 0;
}

/* Valid CQL that cassette refuses: reported only if the rest of the statement parses. */
static void defer_error(parser *p, int code, const char *msg)
{
    if (!p->deferred_code) {
        p->deferred_code = code;
        p->deferred_msg = msg;
    }
}

static int parse_keyspace_stmt(parser *p, cql_stmt *st)
{
    cql_keyspace_stmt *k = &st->u.keyspace;
    if (st->kind == CQL_S_CREATE_KEYSPACE)
        TRY(parse_if_not_exists(p, &k->if_flag));
    else
        TRY(parse_if_exists(p, &k->if_flag));
    if (!(k->ks = parse_keyspace_name(p)))
        return -1;
    if (st->kind == CQL_S_DROP_KEYSPACE)
        return 0;
    TRY(expect_kw(p, KW_WITH));
    return parse_properties(p, &k->props, &k->n_props);
}

static int push_name(parser *p, vec *v, int nc)
{
    const char *s = take_name(p, nc);
    return s ? push_ptr(p, v, s) : -1;
}

/* PRIMARY KEY (k | (k1, k2), c1, c2) */
static int parse_primary_key_clause(parser *p, cql_create_table *c)
{
    vec pk = {0}, ck = {0};
    TRY(expect_kw(p, KW_KEY));
    TRY(expect_p(p, '('));
    if (accept_p(p, '(')) {
        do
            TRY(push_name(p, &pk, NC_IDENT));
        while (accept_p(p, ','));
        TRY(expect_p(p, ')'));
    } else {
        TRY(push_name(p, &pk, NC_IDENT));
    }
    while (accept_p(p, ','))
        TRY(push_name(p, &ck, NC_IDENT));
    TRY(expect_p(p, ')'));
    c->pk = (const char **)pk.a;
    c->n_pk = pk.n;
    c->ck = (const char **)ck.a;
    c->n_ck = ck.n;
    c->n_primary_key_clauses++;
    return 0;
}

/* name type [STATIC] */
static cql_column_decl *parse_column_decl(parser *p, vec *cols)
{
    cql_column_decl *d = vec_push(p, cols, sizeof *d);
    if (!d)
        return NULL;
    set_pos(&d->line, &d->col, lt(p, 1));
    if (!(d->name = take_name(p, NC_IDENT)) || !(d->type = parse_type(p)))
        return NULL;
    d->is_static = accept_kw(p, KW_STATIC);
    return d;
}

static int parse_table_element(parser *p, cql_create_table *c, vec *cols)
{
    if (accept_kw(p, KW_PRIMARY))
        return parse_primary_key_clause(p, c);
    if (!is_name(lt(p, 1), NC_IDENT)) {
        fail_noviable(p, 1);
        return -1;
    }
    cql_column_decl *d = parse_column_decl(p, cols);
    if (!d)
        return -1;
    if (accept_kw(p, KW_PRIMARY)) {
        TRY(expect_kw(p, KW_KEY));
        d->is_primary_key = 1;
        c->n_primary_key_clauses++;
    }
    return 0;
}

static int parse_table_option(parser *p, cql_create_table *c, vec *props, vec *order)
{
    const tok *t = lt(p, 1), *t2 = lt(p, 2);
    if (is_kw(t, KW_COMPACT) && is_kw(t2, KW_STORAGE)) {
        advance(p);
        advance(p);
        c->compact_storage = 1;
        return 0;
    }
    if (!(is_kw(t, KW_CLUSTERING) && is_kw(t2, KW_ORDER)))
        return parse_property(p, props);
    advance(p);
    advance(p);
    TRY(expect_kw(p, KW_BY));
    TRY(expect_p(p, '('));
    do {
        cql_order *o = vec_push(p, order, sizeof *o);
        if (!o)
            return -1;
        set_pos(&o->line, &o->col_no, lt(p, 1));
        if (!(o->col = take_name(p, NC_IDENT)))
            return -1;
        o->desc = accept_kw(p, KW_DESC);
        if (!o->desc && !accept_kw(p, KW_ASC)) {
            fail_noviable(p, 1);
            return -1;
        }
    } while (accept_p(p, ','));
    return expect_p(p, ')');
}

static int parse_create_table(parser *p, cql_create_table *c)
{
    vec cols = {0}, props = {0}, order = {0};
    TRY(parse_if_not_exists(p, &c->if_not_exists));
    TRY(parse_table_name(p, &c->table));
    TRY(expect_p(p, '('));
    TRY(parse_table_element(p, c, &cols));
    while (accept_p(p, ',')) { /* Parser.g lets columns be empty: (a int, , b int,) */
        const tok *t = lt(p, 1);
        if (is_kw(t, KW_PRIMARY) || is_name(t, NC_IDENT))
            TRY(parse_table_element(p, c, &cols));
    }
    TRY(expect_p(p, ')'));
    if (accept_kw(p, KW_WITH)) {
        do
            TRY(parse_table_option(p, c, &props, &order));
        while (accept_kw(p, KW_AND));
    }
    c->cols = (cql_column_decl *)cols.a;
    c->n_cols = cols.n;
    c->props = (cql_property *)props.a;
    c->n_props = props.n;
    c->clustering_order = (cql_order *)order.a;
    c->n_clustering_order = order.n;
    return 0;
}

static int parse_alter_add(parser *p, cql_alter_table *a)
{
    vec cols = {0};
    a->kind = CQL_ALTER_ADD;
    TRY(parse_if_not_exists(p, &a->if_col));
    if (accept_p(p, '(')) {
        do
            if (!parse_column_decl(p, &cols))
                return -1;
        while (accept_p(p, ','));
        TRY(expect_p(p, ')'));
    } else if (!parse_column_decl(p, &cols)) {
        return -1;
    }
    a->cols = (cql_column_decl *)cols.a;
    a->n_cols = cols.n;
    return 0;
}

static int parse_alter_drop(parser *p, cql_alter_table *a)
{
    vec names = {0};
    a->kind = CQL_ALTER_DROP;
    TRY(parse_if_exists(p, &a->if_col));
    if (accept_p(p, '(')) {
        do
            TRY(push_name(p, &names, NC_IDENT));
        while (accept_p(p, ','));
        TRY(expect_p(p, ')'));
    } else {
        TRY(push_name(p, &names, NC_IDENT));
    }
    /* DROP ... USING TIMESTAMP n: parsed; ast.h has no field for it, so it is ignored. */
    if (accept_kw(p, KW_USING)) {
        TRY(expect_kw(p, KW_TIMESTAMP));
        if (lt(p, 1)->kind != TK_INTEGER) {
            fail_expecting(p, "INTEGER");
            return -1;
        }
        advance(p);
    }
    a->names = (const char **)names.a;
    a->n_names = names.n;
    return 0;
}

/* from TO to (AND from TO to)*: names[] gets from0, to0, from1, to1, ... */
static int parse_renames(parser *p, vec *names, int nc)
{
    do {
        TRY(push_name(p, names, nc));
        TRY(expect_kw(p, KW_TO));
        TRY(push_name(p, names, nc));
    } while (accept_kw(p, KW_AND));
    return 0;
}

static int parse_alter_table(parser *p, cql_alter_table *a)
{
    TRY(parse_if_exists(p, &a->if_exists));
    TRY(parse_table_name(p, &a->table));
    const tok *t = lt(p, 1);
    if (accept_kw(p, KW_ALTER)) {
        if (!take_name(p, NC_CIDENT) || expect_kw(p, KW_TYPE) < 0 || !parse_type(p))
            return -1;
        defer_error(p, ENG_E_INVALID, "Altering column types is no longer supported");
        return 0;
    }
    if (accept_kw(p, KW_ADD))
        return parse_alter_add(p, a);
    if (is_kw(t, KW_DROP) && is_kw(lt(p, 2), KW_COMPACT) && is_kw(lt(p, 3), KW_STORAGE)) {
        advance(p);
        advance(p);
        advance(p);
        /* cassette has no compact tables (Cassandra 4 creates none either). */
        defer_error(p, ENG_E_INVALID, "DROP COMPACT STORAGE is not supported");
        return 0;
    }
    if (accept_kw(p, KW_DROP))
        return parse_alter_drop(p, a);
    if (accept_kw(p, KW_RENAME)) {
        vec names = {0};
        a->kind = CQL_ALTER_RENAME;
        TRY(parse_if_exists(p, &a->if_col));
        TRY(parse_renames(p, &names, NC_IDENT));
        a->names = (const char **)names.a;
        a->n_names = names.n;
        return 0;
    }
    if (accept_kw(p, KW_WITH)) {
        a->kind = CQL_ALTER_WITH;
        return parse_properties(p, &a->props, &a->n_props);
    }
    fail_noviable(p, 1);
    return -1;
}

static int parse_type_name(parser *p, cql_qname *q)
{
    set_pos(&q->line, &q->col, lt(p, 1));
    return parse_udt_name(p, &q->ks, &q->name);
}

/* A field and its type, into parallel arrays. */
static int parse_field_decl(parser *p, vec *fields, vec *types)
{
    TRY(push_name(p, fields, NC_IDENT));
    cql_typeref *t = parse_type(p);
    return t ? push_ptr(p, types, t) : -1;
}

static int parse_create_type(parser *p, cql_type_stmt *ts)
{
    vec fields = {0}, types = {0};
    TRY(parse_if_not_exists(p, &ts->if_flag));
    TRY(parse_type_name(p, &ts->type));
    TRY(expect_p(p, '('));
    TRY(parse_field_decl(p, &fields, &types));
    while (accept_p(p, ',')) {
        if (is_name(lt(p, 1), NC_IDENT))
            TRY(parse_field_decl(p, &fields, &types));
    }
    TRY(expect_p(p, ')'));
    ts->fields = (const char **)fields.a;
    ts->types = (cql_typeref **)types.a;
    ts->n_fields = fields.n;
    return 0;
}

static int parse_alter_type(parser *p, cql_type_stmt *ts)
{
    vec fields = {0}, types = {0};
    TRY(parse_if_exists(p, &ts->if_flag));
    TRY(parse_type_name(p, &ts->type));
    if (accept_kw(p, KW_ALTER)) {
        if (!take_name(p, NC_IDENT) || expect_kw(p, KW_TYPE) < 0 || !parse_type(p))
            return -1;
        defer_error(p, ENG_E_INVALID, "Altering field types is no longer supported");
        return 0;
    }
    if (accept_kw(p, KW_ADD)) {
        ts->kind = CQL_ALTER_ADD;
        TRY(parse_if_not_exists(p, &ts->if_field));
        TRY(parse_field_decl(p, &fields, &types));
    } else if (accept_kw(p, KW_RENAME)) {
        ts->kind = CQL_ALTER_RENAME;
        TRY(parse_if_exists(p, &ts->if_field));
        TRY(parse_renames(p, &fields, NC_IDENT));
    } else {
        fail_noviable(p, 1);
        return -1;
    }
    ts->fields = (const char **)fields.a;
    ts->types = (cql_typeref **)types.a;
    ts->n_fields = fields.n;
    return 0;
}

/* CREATE / ALTER / DROP of KEYSPACE, TABLE, TYPE */
static int parse_ddl(parser *p, cql_stmt *st)
{
    static const int kinds[3][3] = {
        {CQL_S_CREATE_KEYSPACE, CQL_S_CREATE_TABLE, CQL_S_CREATE_TYPE},
        {CQL_S_ALTER_KEYSPACE, CQL_S_ALTER_TABLE, CQL_S_ALTER_TYPE},
        {CQL_S_DROP_KEYSPACE, CQL_S_DROP_TABLE, CQL_S_DROP_TYPE},
    };
    const tok *verb = lt(p, 1), *obj = lt(p, 2);
    int v = is_kw(verb, KW_CREATE) ? 0 : is_kw(verb, KW_ALTER) ? 1 : 2;
    int o = is_kw(obj, KW_KEYSPACE)       ? 0
            : is_kw(obj, KW_COLUMNFAMILY) ? 1
            : is_kw(obj, KW_TYPE)         ? 2
                                          : -1;
    if (o < 0) {
        fail_noviable(p, 2);
        return -1;
    }
    advance(p);
    advance(p);
    st->kind = kinds[v][o];
    switch (st->kind) {
    case CQL_S_CREATE_TABLE:
        return parse_create_table(p, &st->u.create_table);
    case CQL_S_ALTER_TABLE:
        return parse_alter_table(p, &st->u.alter_table);
    case CQL_S_DROP_TABLE:
        TRY(parse_if_exists(p, &st->u.drop_table.if_exists));
        return parse_table_name(p, &st->u.drop_table.table);
    case CQL_S_CREATE_TYPE:
        return parse_create_type(p, &st->u.type);
    case CQL_S_ALTER_TYPE:
        return parse_alter_type(p, &st->u.type);
    case CQL_S_DROP_TYPE:
        TRY(parse_if_exists(p, &st->u.type.if_flag));
        return parse_type_name(p, &st->u.type.type);
    default:
        return parse_keyspace_stmt(p, st);
    }
}

/* ---- DML ---- */

/* USING (TTL n | TIMESTAMP n) (AND ...)* */
static int parse_using(parser *p, cql_using *u)
{
    advance(p); /* USING */
    do {
        int ttl = is_kw(lt(p, 1), KW_TTL);
        if (!ttl && !is_kw(lt(p, 1), KW_TIMESTAMP)) {
            fail_noviable(p, 1);
            return -1;
        }
        advance(p);
        cql_term *v = parse_int_value(p);
        if (!v)
            return -1;
        *(ttl ? &u->ttl : &u->timestamp) = v;
    } while (accept_kw(p, KW_AND));
    return 0;
}

static int parse_terms_in_parens(parser *p, cql_term ***out, int *n)
{
    vec items = {0};
    TRY(expect_p(p, '('));
    do
        TRY(push_term(p, &items, parse_term(p)));
    while (accept_p(p, ','));
    TRY(expect_p(p, ')'));
    *out = (cql_term **)items.a;
    *n = items.n;
    return 0;
}

static int parse_insert(parser *p, cql_insert *ins)
{
    advance(p); /* INSERT */
    TRY(expect_kw(p, KW_INTO));
    TRY(parse_table_name(p, &ins->table));
    const tok *t = lt(p, 1);
    if (is_p(t, '(')) {
        vec cols = {0};
        TRY(parse_name_tuple(p, &cols));
        ins->cols = (const char **)cols.a;
        ins->n_cols = cols.n;
        TRY(expect_kw(p, KW_VALUES));
        TRY(parse_terms_in_parens(p, &ins->values, &ins->n_values));
    } else if (accept_kw(p, KW_JSON)) {
        const tok *j = lt(p, 1);
        if (j->kind == TK_STRING)
            ins->json = parse_constant(p);
        else if (is_bind_start(j))
            ins->json = parse_bind(p);
        else
            fail_noviable(p, 1);
        if (!ins->json)
            return -1;
        if (accept_kw(p, KW_DEFAULT)) {
            if (accept_kw(p, KW_UNSET)) {
                ins->json_default_unset = 1;
            } else if (!accept_kw(p, KW_NULL)) {
                fail_noviable(p, 1);
                return -1;
            }
        }
    } else {
        fail_noviable(p, 1);
        return -1;
    }
    TRY(parse_if_not_exists(p, &ins->if_not_exists));
    if (is_kw(lt(p, 1), KW_USING))
        TRY(parse_using(p, &ins->using));
    return 0;
}

/*
 * Parser.g's addRawUpdate: a column set outright cannot be touched again;
 * element and field updates combine, except two updates of one field.
 */
static int compatible(const cql_assignment *prev, const cql_assignment *next)
{
    if (prev->kind == CQL_SET_VALUE)
        return 0;
    if (prev->kind == CQL_SET_FIELD && next->kind == CQL_SET_FIELD)
        return strcmp(prev->field, next->field) != 0;
    return next->kind != CQL_SET_VALUE;
}

/* After `col =`: value, value + col (prepend), col + value, col - value, col INTEGER. */
static int parse_assignment_value(parser *p, cql_assignment *a)
{
    const tok *t = lt(p, 1), *t2 = lt(p, 2);
    if (is_name(t, NC_CIDENT) && !is_p(t2, '(') && !is_p(t2, '.')) {
        if (!is_p(t2, '+') && !is_p(t2, '-') && t2->kind != TK_INTEGER) {
            fail_noviable(p, 2);
            return -1;
        }
        const char *c = take_name(p, NC_CIDENT);
        if (!c)
            return -1;
        if (t2->kind == TK_INTEGER) { /* "c = c -3" lexes as c, -3: an addition */
            if (strcmp(c, a->col) != 0) {
                fail_text(p, ENG_E_SYNTAX,
                          "Only expressions of the form X = X %c <value> are "
                          "supported.",
                          p->src[t2->off] == '-' ? '-' : '+');
                return -1;
            }
            a->kind = CQL_SET_ADD;
            return (a->value = parse_constant(p)) ? 0 : -1;
        }
        advance(p);
        if (strcmp(c, a->col) != 0) {
            fail_text(p, ENG_E_SYNTAX,
                      "Only expressions of the form X = X %c<value> are "
                      "supported.",
                      is_p(t2, '+') ? '+' : '-');
            return -1;
        }
        a->kind = is_p(t2, '+') ? CQL_SET_ADD : CQL_SET_SUB;
        return (a->value = parse_term(p)) ? 0 : -1;
    }
    if (!(a->value = parse_term(p)))
        return -1;
    a->kind = CQL_SET_VALUE;
    if (accept_p(p, '+')) {
        const char *c = take_name(p, NC_CIDENT);
        if (!c)
            return -1;
        if (strcmp(c, a->col) != 0) {
            fail_text(p, ENG_E_SYNTAX,
                      "Only expressions of the form X = <value> + X are supported.");
            return -1;
        }
        a->kind = CQL_SET_PREPEND;
    }
    return 0;
}

static int parse_assignment(parser *p, vec *sets)
{
    cql_assignment *a = vec_push(p, sets, sizeof *a);
    if (!a)
        return -1;
    set_pos(&a->line, &a->col_no, lt(p, 1));
    if (!(a->col = take_name(p, NC_CIDENT)))
        return -1;
    const tok *t = lt(p, 1);
    if (accept_p(p, '=')) {
        TRY(parse_assignment_value(p, a));
    } else if (is_p(t, P2('+', '=')) || is_p(t, P2('-', '='))) {
        advance(p);
        a->kind = is_p(t, P2('+', '=')) ? CQL_SET_ADD : CQL_SET_SUB;
        if (!(a->value = parse_term(p)))
            return -1;
    } else if (accept_p(p, '[')) {
        a->kind = CQL_SET_ELEMENT;
        if (!(a->key = parse_term(p)) || expect_p(p, ']') < 0 || expect_p(p, '=') < 0 ||
            !(a->value = parse_term(p)))
            return -1;
    } else if (accept_p(p, '.')) {
        a->kind = CQL_SET_FIELD;
        if (!(a->field = take_name(p, NC_IDENT)) || expect_p(p, '=') < 0 ||
            !(a->value = parse_term(p)))
            return -1;
    } else {
        fail_noviable(p, 1);
        return -1;
    }
    const cql_assignment *all = (const cql_assignment *)sets->a;
    for (int i = 0; i < sets->n - 1; i++) {
        if (strcmp(all[i].col, a->col) == 0 && !compatible(&all[i], a)) {
            fail_text(p, ENG_E_SYNTAX, "Multiple incompatible setting of column %s", a->col);
            return -1;
        }
    }
    return 0;
}

static int parse_update(parser *p, cql_update *u)
{
    vec sets = {0};
    advance(p); /* UPDATE */
    TRY(parse_table_name(p, &u->table));
    if (is_kw(lt(p, 1), KW_USING))
        TRY(parse_using(p, &u->using));
    TRY(expect_kw(p, KW_SET));
    do
        TRY(parse_assignment(p, &sets));
    while (accept_p(p, ','));
    u->sets = (cql_assignment *)sets.a;
    u->n_sets = sets.n;
    TRY(expect_kw(p, KW_WHERE));
    TRY(parse_where(p, &u->where, &u->n_where));
    if (is_kw(lt(p, 1), KW_IF))
        TRY(parse_if_clause(p, &u->if_exists, &u->conds, &u->n_conds));
    return 0;
}

/* col | col[key] | col.field */
static int parse_delete_target(parser *p, vec *targets)
{
    cql_delete_target *d = vec_push(p, targets, sizeof *d);
    if (!d)
        return -1;
    set_pos(&d->line, &d->col_no, lt(p, 1));
    if (!(d->col = take_name(p, NC_CIDENT)))
        return -1;
    if (accept_p(p, '[')) {
        if (!(d->key = parse_term(p)) || expect_p(p, ']') < 0)
            return -1;
    } else if (accept_p(p, '.')) {
        if (!(d->field = take_name(p, NC_IDENT)))
            return -1;
    }
    return 0;
}

static int parse_delete(parser *p, cql_delete *d)
{
    vec targets = {0};
    advance(p); /* DELETE */
    if (!is_kw(lt(p, 1), KW_FROM)) {
        if (!is_name(lt(p, 1), NC_CIDENT)) {
            fail_noviable(p, 1);
            return -1;
        }
        do
            TRY(parse_delete_target(p, &targets));
        while (accept_p(p, ','));
    }
    d->targets = (cql_delete_target *)targets.a;
    d->n_targets = targets.n;
    TRY(expect_kw(p, KW_FROM));
    TRY(parse_table_name(p, &d->table));
    if (accept_kw(p, KW_USING)) {
        TRY(expect_kw(p, KW_TIMESTAMP));
        if (!(d->using.timestamp = parse_int_value(p)))
            return -1;
    }
    TRY(expect_kw(p, KW_WHERE));
    TRY(parse_where(p, &d->where, &d->n_where));
    if (is_kw(lt(p, 1), KW_IF))
        TRY(parse_if_clause(p, &d->if_exists, &d->conds, &d->n_conds));
    return 0;
}

static int parse_dml(parser *p, cql_stmt *st)
{
    const tok *t = lt(p, 1);
    set_pos(&st->line, &st->col, t);
    if (is_kw(t, KW_INSERT)) {
        st->kind = CQL_S_INSERT;
        return parse_insert(p, &st->u.insert);
    }
    if (is_kw(t, KW_UPDATE)) {
        st->kind = CQL_S_UPDATE;
        return parse_update(p, &st->u.update);
    }
    st->kind = CQL_S_DELETE;
    return parse_delete(p, &st->u.del);
}

/* BEGIN [UNLOGGED | COUNTER] BATCH [USING ...] (stmt ';'?)* APPLY BATCH */
static int parse_batch(parser *p, cql_batch *b)
{
    vec stmts = {0};
    advance(p); /* BEGIN */
    if (accept_kw(p, KW_UNLOGGED))
        b->kind = CQL_BATCH_UNLOGGED;
    else if (accept_kw(p, KW_COUNTER))
        b->kind = CQL_BATCH_COUNTER;
    TRY(expect_kw(p, KW_BATCH));
    if (is_kw(lt(p, 1), KW_USING))
        TRY(parse_using(p, &b->using));
    for (;;) {
        const tok *t = lt(p, 1);
        if (!is_kw(t, KW_INSERT) && !is_kw(t, KW_UPDATE) && !is_kw(t, KW_DELETE))
            break;
        cql_stmt *m = mk(p, sizeof *m);
        int before = p->n_binds;
        if (!m || parse_dml(p, m) < 0 || push_ptr(p, &stmts, m) < 0)
            return -1;
        m->n_binds = p->n_binds - before;
        accept_p(p, ';');
    }
    TRY(expect_kw(p, KW_APPLY));
    TRY(expect_kw(p, KW_BATCH));
    b->stmts = (cql_stmt **)stmts.a;
    b->n_stmts = stmts.n;
    return 0;
}

static int parse_select(parser *p, cql_select *s)
{
    advance(p); /* SELECT */
    if (is_kw(lt(p, 1), KW_JSON) && speculate(p, spec_select_clause, NULL)) {
        advance(p);
        s->json = 1;
    }
    TRY(parse_select_clause(p, s));
    TRY(expect_kw(p, KW_FROM));
    TRY(parse_table_name(p, &s->table));
    if (accept_kw(p, KW_WHERE))
        TRY(parse_where(p, &s->where, &s->n_where));
    if (accept_kw(p, KW_GROUP)) {
        vec cols = {0};
        TRY(expect_kw(p, KW_BY));
        do
            TRY(push_name(p, &cols, NC_CIDENT));
        while (accept_p(p, ','));
        s->group_by = (const char **)cols.a;
        s->n_group_by = cols.n;
    }
    if (accept_kw(p, KW_ORDER)) {
        vec order = {0};
        TRY(expect_kw(p, KW_BY));
        do {
            cql_order *o = vec_push(p, &order, sizeof *o);
            if (!o)
                return -1;
            set_pos(&o->line, &o->col_no, lt(p, 1));
            if (!(o->col = take_name(p, NC_CIDENT)))
                return -1;
            o->desc = accept_kw(p, KW_DESC);
            if (!o->desc)
                accept_kw(p, KW_ASC);
        } while (accept_p(p, ','));
        s->order_by = (cql_order *)order.a;
        s->n_order_by = order.n;
    }
    if (accept_kw(p, KW_PER)) {
        TRY(expect_kw(p, KW_PARTITION));
        TRY(expect_kw(p, KW_LIMIT));
        if (!(s->per_partition_limit = parse_int_value(p)))
            return -1;
    }
    if (accept_kw(p, KW_LIMIT) && !(s->limit = parse_int_value(p)))
        return -1;
    if (accept_kw(p, KW_ALLOW)) {
        TRY(expect_kw(p, KW_FILTERING));
        s->allow_filtering = 1;
    }
    return 0;
}

/* ---- roles and permissions ---- */

/* userOrRoleName: a name (unquoted lower-cased) or a string literal (exact). */
static const char *parse_role_name(parser *p)
{
    const tok *t = lt(p, 1);
    if (t->kind == TK_QMARK) {
        fail_text(p, ENG_E_SYNTAX, "Bind variables cannot be used for role names");
        return NULL;
    }
    if (t->kind == TK_STRING) {
        advance(p);
        return t->text;
    }
    return take_name(p, NC_IDENT);
}

/* username of the USER forms: an identifier or a string, both kept as written; a quoted name
   is refused by name. */
static const char *parse_user_name(parser *p)
{
    const tok *t = lt(p, 1);
    if (t->kind == TK_QNAME) {
        fail_text(p, ENG_E_SYNTAX,
                  "Quoted strings are are not supported for user names and USER is deprecated, "
                  "please use ROLE");
        return NULL;
    }
    if (t->kind == TK_IDENT && is_name(t, NC_IDENT)) {
        const char *s = dup_str(p, p->src + t->off, t->len);
        if (s)
            advance(p);
        return s;
    }
    return parse_role_name(p);
}

static int role_option_once(parser *p, unsigned *seen, unsigned bit, const char *name)
{
    if (*seen & bit) {
        fail_text(p, ENG_E_SYNTAX, "Multiple definition for property '%s'", name);
        return -1;
    }
    *seen |= bit;
    return 0;
}

static int parse_role_password(parser *p, cql_role_stmt *r)
{
    const tok *t = lt(p, 1);
    if (t->kind != TK_STRING) {
        fail_noviable(p, 1);
        return -1;
    }
    r->password = t->text;
    r->password_len = t->text_len;
    advance(p);
    return 0;
}

static int parse_role_bool(parser *p, int *out)
{
    const tok *t = lt(p, 1);
    if (t->kind != TK_BOOLEAN) {
        fail_noviable(p, 1);
        return -1;
    }
    *out = lower_ascii((unsigned char)p->src[t->off]) == 't';
    advance(p);
    return 0;
}

/* ACCESS TO ALL DATACENTERS | ACCESS TO DATACENTERS {'dc', ...} (one node: one datacenter). */
static int parse_role_access(parser *p, cql_role_stmt *r)
{
    TRY(expect_kw(p, KW_TO));
    r->access_given = 1;
    if (accept_kw(p, KW_ALL))
        return expect_kw(p, KW_DATACENTERS);
    TRY(expect_kw(p, KW_DATACENTERS));
    TRY(expect_p(p, '{'));
    do {
        if (lt(p, 1)->kind != TK_STRING) {
            fail_noviable(p, 1);
            return -1;
        }
        advance(p);
    } while (accept_p(p, ','));
    return expect_p(p, '}');
}

/* roleOptions: roleOption (AND roleOption)* */
static int parse_role_options(parser *p, cql_role_stmt *r)
{
    unsigned seen = 0;
    do {
        const tok *t = lt(p, 1);
        if (accept_kw(p, KW_PASSWORD) || (is_kw(t, KW_HASHED) && is_kw(lt(p, 2), KW_PASSWORD))) {
            int hashed = is_kw(t, KW_HASHED);
            if (hashed)
                advance(p);
            TRY(role_option_once(p, &seen, 1, hashed ? "HASHED_PASSWORD" : "PASSWORD"));
            TRY(expect_p(p, '='));
            TRY(parse_role_password(p, r));
            r->hashed = hashed;
        } else if (accept_kw(p, KW_SUPERUSER)) {
            TRY(role_option_once(p, &seen, 2, "SUPERUSER"));
            TRY(expect_p(p, '='));
            TRY(parse_role_bool(p, &r->superuser));
        } else if (accept_kw(p, KW_LOGIN)) {
            TRY(role_option_once(p, &seen, 4, "LOGIN"));
            TRY(expect_p(p, '='));
            TRY(parse_role_bool(p, &r->login));
        } else if (accept_kw(p, KW_OPTIONS)) {
            TRY(role_option_once(p, &seen, 8, "OPTIONS"));
            TRY(expect_p(p, '='));
            if (!is_p(lt(p, 1), '{')) {
                fail_noviable(p, 1);
                return -1;
            }
            if (!(r->options = parse_collection(p)))
                return -1;
        } else if (accept_kw(p, KW_ACCESS)) {
            TRY(parse_role_access(p, r));
        } else {
            fail_noviable(p, 1);
            return -1;
        }
    } while (accept_kw(p, KW_AND));
    return 0;
}

/* The USER forms' tail: [WITH [HASHED] PASSWORD 'x'] [SUPERUSER | NOSUPERUSER]. */
static int parse_user_options(parser *p, cql_role_stmt *r)
{
    if (accept_kw(p, KW_WITH)) {
        r->hashed = accept_kw(p, KW_HASHED);
        TRY(expect_kw(p, KW_PASSWORD));
        TRY(parse_role_password(p, r));
    }
    if (accept_kw(p, KW_SUPERUSER))
        r->superuser = 1;
    else if (accept_kw(p, KW_NOSUPERUSER))
        r->superuser = 0;
    return 0;
}

/* CREATE|ALTER|DROP ROLE|USER, after the verb. */
static int parse_role_ddl(parser *p, cql_stmt *st, int verb)
{
    cql_role_stmt *r = &st->u.role;
    r->login = r->superuser = -1;
    r->is_user = is_kw(lt(p, 1), KW_USER);
    advance(p);
    st->kind = verb == KW_CREATE ? CQL_S_CREATE_ROLE
               : verb == KW_ALTER ? CQL_S_ALTER_ROLE
                                  : CQL_S_DROP_ROLE;
    if (verb == KW_CREATE)
        TRY(parse_if_not_exists(p, &r->if_flag));
    else
        TRY(parse_if_exists(p, &r->if_flag));
    if (!(r->role = r->is_user ? parse_user_name(p) : parse_role_name(p)))
        return -1;
    if (verb == KW_DROP)
        return 0;
    if (r->is_user) {
        if (verb == KW_CREATE)
            r->login = 1; /* a user logs in */
        return parse_user_options(p, r);
    }
    return accept_kw(p, KW_WITH) ? parse_role_options(p, r) : 0;
}

static const int permission_kws[CQL_N_PERMISSIONS] = {
    KW_CREATE, KW_ALTER, KW_DROP, KW_SELECT, KW_MODIFY, KW_AUTHORIZE, KW_DESCRIBE, KW_EXECUTE,
};

static int permission_of(const parser *p, const tok *t)
{
    for (int i = 0; i < CQL_N_PERMISSIONS; i++)
        if (permission_kws[i] && is_kw(t, permission_kws[i]))
            return 1 << i;
    /* UNMASK and SELECT_MASKED (5.0) are not keywords of 4.1's lexer */
    if (t->kind == TK_IDENT && t->kw == KW_NONE) {
        if (t->len == 6 && !strncasecmp(p->src + t->off, "unmask", 6))
            return CQL_PERM_UNMASK;
        if (t->len == 13 && !strncasecmp(p->src + t->off, "select_masked", 13))
            return CQL_PERM_SELECT_MASKED;
    }
    return 0;
}

/* permissionOrAll: ALL [PERMISSIONS] | permission [PERMISSION] */
static int parse_permissions(parser *p, cql_role_stmt *r)
{
    if (accept_kw(p, KW_ALL)) {
        accept_kw(p, KW_PERMISSIONS);
        r->all_perms = 1;
        r->perms = (unsigned)CQL_PERM_EXECUTE * 2 - 1; /* CREATE..EXECUTE: 4.1's ALL */
        return 0;
    }
    int perm = permission_of(p, lt(p, 1));
    if (!perm) {
        fail_noviable(p, 1);
        return -1;
    }
    advance(p);
    accept_kw(p, KW_PERMISSION);
    r->perms = (unsigned)perm;
    return 0;
}

/* resource: data, role, function or MBean resource. */
static int parse_resource(parser *p, cql_resource *res)
{
    const tok *t = lt(p, 1);
    set_pos(&res->line, &res->col, t);
    if (accept_kw(p, KW_ALL)) {
        if (accept_kw(p, KW_KEYSPACES)) {
            res->kind = CQL_RES_ALL_KEYSPACES;
        } else if (accept_kw(p, KW_ROLES)) {
            res->kind = CQL_RES_ALL_ROLES;
        } else if (accept_kw(p, KW_MBEANS)) {
            res->kind = CQL_RES_ALL_MBEANS;
        } else {
            TRY(expect_kw(p, KW_FUNCTIONS));
            res->kind = CQL_RES_ALL_FUNCTIONS;
            if (accept_kw(p, KW_IN)) {
                TRY(expect_kw(p, KW_KEYSPACE));
                res->kind = CQL_RES_KS_FUNCTIONS;
                if (!(res->ks = parse_keyspace_name(p)))
                    return -1;
            }
        }
        return 0;
    }
    if (accept_kw(p, KW_KEYSPACE)) {
        res->kind = CQL_RES_KEYSPACE;
        return (res->ks = parse_keyspace_name(p)) ? 0 : -1;
    }
    if (accept_kw(p, KW_ROLE)) {
        res->kind = CQL_RES_ROLE;
        return (res->name = parse_role_name(p)) ? 0 : -1;
    }
    if (is_kw(t, KW_MBEAN) || is_kw(t, KW_MBEANS)) {
        advance(p);
        const tok *name = lt(p, 1);
        if (name->kind != TK_STRING) {
            fail_noviable(p, 1);
            return -1;
        }
        res->kind = CQL_RES_MBEAN;
        res->name = name->text;
        advance(p);
        return 0;
    }
    if (is_kw(t, KW_FUNCTION)) {
        defer_error(p, ENG_E_INVALID, "FUNCTION resources are not supported");
        advance(p);
        const char *ks = NULL, *name = NULL;
        TRY(parse_function_name(p, &ks, &name));
        TRY(expect_p(p, '('));
        if (!is_p(lt(p, 1), ')'))
            do
                if (!parse_type(p))
                    return -1;
            while (accept_p(p, ','));
        return expect_p(p, ')');
    }
    accept_kw(p, KW_COLUMNFAMILY);
    cql_qname q = {0};
    TRY(parse_table_name(p, &q));
    res->kind = CQL_RES_TABLE;
    res->ks = q.ks;
    res->name = q.name;
    return 0;
}

/* GRANT / REVOKE: permissions ON resource TO|FROM role, or role TO|FROM role. */
static int parse_grant(parser *p, cql_stmt *st)
{
    cql_role_stmt *r = &st->u.role;
    int grant = is_kw(lt(p, 1), KW_GRANT);
    advance(p);
    const tok *t1 = lt(p, 1), *t2 = lt(p, 2);
    int perms = is_kw(t2, KW_ON) || is_kw(t2, KW_PERMISSION) || is_kw(t2, KW_PERMISSIONS) ||
                (is_kw(t1, KW_ALL) && !is_kw(t2, KW_TO) && !is_kw(t2, KW_FROM)) ||
                (permission_of(p, t1) && kw_info[t1->kw].cls == KR);
    if (perms) {
        st->kind = grant ? CQL_S_GRANT_PERMISSIONS : CQL_S_REVOKE_PERMISSIONS;
        TRY(parse_permissions(p, r));
        TRY(expect_kw(p, KW_ON));
        TRY(parse_resource(p, &r->resource));
    } else {
        st->kind = grant ? CQL_S_GRANT_ROLE : CQL_S_REVOKE_ROLE;
        if (!(r->role = parse_role_name(p)))
            return -1;
    }
    TRY(expect_kw(p, grant ? KW_TO : KW_FROM));
    return (r->grantee = parse_role_name(p)) ? 0 : -1;
}

/* LIST ROLES [OF r] [NORECURSIVE] | LIST USERS | LIST perms [ON res] [OF r] [NORECURSIVE] */
static int parse_list(parser *p, cql_stmt *st)
{
    cql_role_stmt *r = &st->u.role;
    advance(p);
    if (accept_kw(p, KW_USERS)) {
        st->kind = CQL_S_LIST_USERS;
        return 0;
    }
    if (accept_kw(p, KW_ROLES)) {
        st->kind = CQL_S_LIST_ROLES;
    } else {
        st->kind = CQL_S_LIST_PERMISSIONS;
        TRY(parse_permissions(p, r));
        if (accept_kw(p, KW_ON))
            TRY(parse_resource(p, &r->resource));
    }
    if (accept_kw(p, KW_OF) && !(r->role = parse_role_name(p)))
        return -1;
    r->norecursive = accept_kw(p, KW_NORECURSIVE);
    return 0;
}

/* ---- statements ---- */

/* Statements Cassandra parses that ast.h has no node for. */
static const struct {
    int verb, object;
    const char *what;
} unsupported[] = {
    {KW_CREATE, KW_INDEX, "CREATE INDEX"},
    {KW_CREATE, KW_CUSTOM, "CREATE CUSTOM INDEX"},
    {KW_CREATE, KW_MATERIALIZED, "CREATE MATERIALIZED VIEW"},
    {KW_CREATE, KW_TRIGGER, "CREATE TRIGGER"},
    {KW_CREATE, KW_FUNCTION, "CREATE FUNCTION"},
    {KW_CREATE, KW_AGGREGATE, "CREATE AGGREGATE"},
    {KW_CREATE, KW_OR, "CREATE OR REPLACE"},
    {KW_ALTER, KW_MATERIALIZED, "ALTER MATERIALIZED VIEW"},
    {KW_DROP, KW_INDEX, "DROP INDEX"},
    {KW_DROP, KW_MATERIALIZED, "DROP MATERIALIZED VIEW"},
    {KW_DROP, KW_TRIGGER, "DROP TRIGGER"},
    {KW_DROP, KW_FUNCTION, "DROP FUNCTION"},
    {KW_DROP, KW_AGGREGATE, "DROP AGGREGATE"},
    {KW_DESCRIBE, KW_NONE, "DESCRIBE"},
    {KW_DESC, KW_NONE, "DESCRIBE"},
};

static int parse_statement(parser *p, cql_stmt *st)
{
    const tok *t = lt(p, 1);
    int kw = t->kind == TK_IDENT ? t->kw : KW_NONE;
    for (size_t i = 0; kw && i < ENG_ARRAY_LEN(unsupported); i++) {
        if (kw == unsupported[i].verb &&
            (!unsupported[i].object || is_kw(lt(p, 2), unsupported[i].object))) {
            fail_text(p, ENG_E_INVALID, "%s statements are not supported", unsupported[i].what);
            return -1;
        }
    }
    switch (kw) {
    case KW_SELECT:
        st->kind = CQL_S_SELECT;
        return parse_select(p, &st->u.select);
    case KW_INSERT:
    case KW_UPDATE:
    case KW_DELETE:
        return parse_dml(p, st);
    case KW_BEGIN:
        st->kind = CQL_S_BATCH;
        return parse_batch(p, &st->u.batch);
    case KW_USE:
        st->kind = CQL_S_USE;
        advance(p);
        return (st->u.use_ks = parse_keyspace_name(p)) ? 0 : -1;
    case KW_TRUNCATE:
        st->kind = CQL_S_TRUNCATE;
        advance(p);
        accept_kw(p, KW_COLUMNFAMILY);
        return parse_table_name(p, &st->u.drop_table.table);
    case KW_CREATE:
    case KW_ALTER:
    case KW_DROP:
        if (is_kw(lt(p, 2), KW_ROLE) || is_kw(lt(p, 2), KW_USER)) {
            advance(p);
            return parse_role_ddl(p, st, kw);
        }
        return parse_ddl(p, st);
    case KW_GRANT:
    case KW_REVOKE:
        return parse_grant(p, st);
    case KW_LIST:
        return parse_list(p, st);
    default:
        fail_noviable(p, 1);
        return -1;
    }
}

/* query: statement ';'* EOF */
static cql_stmt *parse_query(parser *p)
{
    cql_stmt *st = mk(p, sizeof *st);
    if (!st)
        return NULL;
    set_pos(&st->line, &st->col, lt(p, 1));
    if (parse_statement(p, st) < 0 || p->failed)
        return NULL;
    while (accept_p(p, ';'))
        ;
    if (lt(p, 1)->kind != TK_EOF)
        fail_expecting(p, "EOF");
    if (!p->failed && p->deferred_code)
        fail_text(p, p->deferred_code, "%s", p->deferred_msg);
    if (p->failed)
        return NULL;
    st->n_binds = p->n_binds;
    return st;
}

int cql_parse(const char *text, size_t len, eng_arena *arena, cql_stmt **out, eng_err *err)
{
    if (out)
        *out = NULL;
    if (!text)
        len = 0;
    if (len > CQL_MAX_TEXT)
        return eng_errorf(err, ENG_E_INVALID, "CQL text of %zu bytes exceeds the limit of %zu", len,
                          CQL_MAX_TEXT);
    cql_tokens lx;
    int *on = NULL;
    if (cql_lex(text, len, arena, &lx) != 0 || !(on = eng_malloc((size_t)lx.n * sizeof *on))) {
        eng_free(lx.toks);
        return eng_errorf(err, ENG_E_NOMEM, "out of memory");
    }
    parser p;
    memset(&p, 0, sizeof p);
    p.src = text ? text : "";
    p.len = len;
    p.toks = lx.toks;
    p.n_toks = lx.n;
    for (int i = 0; i < lx.n; i++)
        if (lx.toks[i].kind != TK_WS && lx.toks[i].kind != TK_COMMENT)
            on[p.n_on++] = i;
    p.on = on;
    p.fetched = -1;
    p.lex_err_tok = lx.err_tok >= 0 ? lx.err_tok : INT_MAX;
    p.lex_err_msg = lx.err_msg;
    p.arena = arena;
    p.err = err;
    (void)lt(&p, 1);
    cql_stmt *st = parse_query(&p);
    eng_free(lx.toks);
    eng_free(on);
    if (!st)
        return p.code ? p.code : eng_errorf(err, ENG_E_SYNTAX, "Invalid or malformed CQL query");
    if (out)
        *out = st;
    return 0;
}
