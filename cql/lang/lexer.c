/*
 * The CQL lexer (lexer.h): Cassandra 4.1's Lexer.g by hand -- the same
 * tokens, literal forms (strings with doubled-quote escapes, $$ strings,
 * numbers, durations, uuids, blobs), quoted names, comments, and its error
 * texts ("no viable alternative at character '@'", "mismatched character
 * '<EOF>' expecting ..."). Positions are ANTLR's: 1-based lines, 0-based
 * columns in UTF-16 units.
 *
 * Never reads outside text[0..len) and never aborts; any byte sequence
 * gives tokens or an error.
 */
#include "cql/lang/lexer.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KW_INFO(id, cls) {"K_" #id, cls},
const cql_keyword_info cql_keywords[N_KW] = {{"IDENT", KR}, KEYWORDS(KW_INFO)};
#undef KW_INFO

/*
 * The spellings that are not their token's name in lower case: second
 * spellings (TABLE is K_COLUMNFAMILY, SCHEMA K_KEYSPACE, COLUMNFAMILIES
 * K_TABLES) and the tokens named apart from their text (K_POSITIVE_NAN is
 * NaN, K_POSITIVE_INFINITY Infinity), which have no other.
 */
static const struct {
    const char *word;
    int kw;
} other_spellings[] = {
    {"columnfamilies", KW_TABLES}, {"infinity", KW_POSITIVE_INFINITY}, {"nan", KW_POSITIVE_NAN},
    {"schema", KW_KEYSPACE},       {"table", KW_COLUMNFAMILY},
};

/* Every spelling, derived from the keyword table and sorted once for bsearch. */
typedef struct spelling {
    char word[24];
    int kw;
} spelling;

static spelling spellings[N_KW + ENG_ARRAY_LEN(other_spellings)];
static size_t n_spellings;
static pthread_once_t spellings_once = PTHREAD_ONCE_INIT;

static int spelling_order(const void *a, const void *b)
{
    return strcmp(((const spelling *)a)->word, ((const spelling *)b)->word);
}

static void add_spelling(const char *word, int kw)
{
    spelling *s = &spellings[n_spellings++];
    size_t i = 0;
    for (; word[i] && i + 1 < sizeof s->word; i++)
        s->word[i] = (char)(word[i] >= 'A' && word[i] <= 'Z' ? word[i] + ('a' - 'A') : word[i]);
    s->word[i] = 0;
    s->kw = kw;
}

static void build_spellings(void)
{
    for (int kw = KW_NONE + 1; kw < N_KW; kw++)
        if (kw != KW_POSITIVE_INFINITY && kw != KW_POSITIVE_NAN)
            add_spelling(cql_keywords[kw].name + 2, kw); /* "K_SELECT" -> "select" */
    for (size_t i = 0; i < ENG_ARRAY_LEN(other_spellings); i++)
        add_spelling(other_spellings[i].word, other_spellings[i].kw);
    qsort(spellings, n_spellings, sizeof *spellings, spelling_order);
}

static int lower_ascii(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int cql_keyword_of(const char *s, size_t n)
{
    char w[16];
    if (n >= sizeof w)
        return KW_NONE;
    for (size_t i = 0; i < n; i++)
        w[i] = (char)lower_ascii((unsigned char)s[i]);
    w[n] = 0;
    pthread_once(&spellings_once, build_spellings);
    size_t lo = 0, hi = n_spellings;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(w, spellings[mid].word);
        if (c == 0)
            return spellings[mid].kw;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return KW_NONE;
}


typedef cql_tok tok;

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int is_letter(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_hexdigit(int c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* UTF-16 units a UTF-8 byte adds to a column: continuation bytes none, 4-byte leads two. */
static int byte_units(unsigned char c)
{
    return (c & 0xC0) == 0x80 ? 0 : c >= 0xF0 ? 2 : 1;
}

/* ---- lexer ---- */

typedef struct lexer {
    const char *s;
    size_t n;
    size_t i;      /* next byte */
    int line, col; /* position of s[i] */
    size_t line_off;
    eng_arena *arena;
    tok *toks;
    int n_toks, cap;
    int oom;
    int err_tok; /* index of the token after the first lexer error; -1 if none */
    char err_msg[256];
} lexer;

static int ch(const lexer *lx, size_t i)
{
    return i < lx->n ? (unsigned char)lx->s[i] : -1;
}

static void lx_advance(lexer *lx, size_t k)
{
    size_t end = k > lx->n - lx->i ? lx->n : lx->i + k;
    for (size_t j = lx->i; j < end; j++) {
        unsigned char c = (unsigned char)lx->s[j];
        if (c == '\n') {
            lx->line++;
            lx->col = 0;
            lx->line_off = j + 1;
        } else {
            lx->col += byte_units(c);
        }
    }
    lx->i = end;
}

static tok *emit(lexer *lx, int kind, size_t len)
{
    if (lx->n_toks == lx->cap) {
        /* Token indexes are ints: refuse inputs that would need 2^28 of them. */
        int cap = !lx->cap ? 64 : lx->cap < (1 << 27) ? lx->cap * 2 : 0;
        tok *t = cap ? eng_realloc(lx->toks, (size_t)cap * sizeof *t) : NULL;
        if (!t) {
            lx->oom = 1;
            return NULL;
        }
        lx->toks = t;
        lx->cap = cap;
    }
    tok *t = &lx->toks[lx->n_toks++];
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)kind;
    t->off = (uint32_t)lx->i;
    t->len = (uint32_t)len;
    t->line = lx->line;
    t->col = lx->col;
    t->line_off = (uint32_t)lx->line_off;
    lx_advance(lx, len);
    return t;
}

/* ANTLR's getCharErrorDisplay: <EOF>, escaped \n \r \t, else the character. */
static void char_display(const lexer *lx, size_t i, char *out, size_t cap)
{
    int c = ch(lx, i);
    if (c < 0) {
        snprintf(out, cap, "<EOF>");
    } else if (c == '\n' || c == '\r' || c == '\t') {
        snprintf(out, cap, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
    } else {
        size_t k = 1;
        while (k < 4 && i + k < lx->n && byte_units((unsigned char)lx->s[i + k]) == 0)
            k++;
        snprintf(out, cap, "%.*s", (int)k, lx->s + i);
    }
}

/*
 * Records the first lexer error, at byte `at`, and stops: what follows is
 * never looked at, since only the first error is reported.
 */
static void lx_fail(lexer *lx, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void lx_fail(lexer *lx, size_t at, const char *fmt, ...)
{
    if (at > lx->i)
        lx_advance(lx, at - lx->i);
    int n = snprintf(lx->err_msg, sizeof lx->err_msg, "line %d:%d ", lx->line, lx->col);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof lx->err_msg)
        vsnprintf(lx->err_msg + n, sizeof lx->err_msg - (size_t)n, fmt, ap);
    va_end(ap);
    lx->err_tok = lx->n_toks;
    lx->i = lx->n;
}

static void lx_fail_char(lexer *lx, size_t at, const char *expecting)
{
    char c[16];
    char_display(lx, at, c, sizeof c);
    lx_fail(lx, at, "mismatched character '%s' expecting %s", c, expecting);
}

/* Copies s[from..to) into the arena, turning each doubled quote q into one. */
static const char *unquote(lexer *lx, size_t from, size_t to, char q, size_t *out_len)
{
    char *d = eng_arena_alloc(lx->arena, to - from + 1);
    if (!d) {
        lx->oom = 1;
        return NULL;
    }
    size_t n = 0;
    for (size_t j = from; j < to; j++) {
        d[n++] = lx->s[j];
        if (lx->s[j] == q)
            j++;
    }
    d[n] = 0;
    *out_len = n;
    return d;
}

static void lex_quoted(lexer *lx, char q, int kind)
{
    size_t i = lx->i, j = i + 1;
    for (;;) {
        if (j >= lx->n) {
            lx_fail_char(lx, lx->n, q == '\'' ? "'''" : "'\"'");
            return;
        }
        if (lx->s[j] == q) {
            if (j + 1 < lx->n && lx->s[j + 1] == q) {
                j += 2;
                continue;
            }
            break;
        }
        j++;
    }
    size_t tlen;
    const char *text = unquote(lx, i + 1, j, q, &tlen);
    tok *t = text ? emit(lx, kind, j + 1 - i) : NULL;
    if (t) {
        t->text = text;
        t->text_len = (uint32_t)tlen;
    }
}

/* $$pg-style$$: everything up to the next $$, with no escapes. */
static void lex_pg_string(lexer *lx)
{
    size_t i = lx->i, n = lx->n;
    if (ch(lx, i + 1) != '$') {
        lx_fail_char(lx, i + 1, "'$'");
        return;
    }
    size_t j = i + 2;
    while (n - j > 1 && !(lx->s[j] == '$' && lx->s[j + 1] == '$'))
        j++;
    if (n - j <= 1) {
        lx_fail_char(lx, ch(lx, j) == '$' ? j + 1 : j, "'$'");
        return;
    }
    char *d = eng_arena_memdup(lx->arena, lx->s + i + 2, j - i - 2 + 1);
    tok *t = d ? emit(lx, TK_STRING, j + 2 - i) : NULL;
    if (!d)
        lx->oom = 1;
    if (t) {
        d[j - i - 2] = 0;
        t->text = d;
        t->text_len = (uint32_t)(j - i - 2);
    }
}

static void lex_comment(lexer *lx)
{
    size_t i = lx->i, j = i + 2;
    if (lx->s[i + 1] == '*') {
        while (j + 1 < lx->n && !(lx->s[j] == '*' && lx->s[j + 1] == '/'))
            j++;
        if (j + 1 >= lx->n)
            lx_fail_char(lx, lx->n, "'*'");
        else
            emit(lx, TK_COMMENT, j + 2 - i);
        return;
    }
    while (j < lx->n && lx->s[j] != '\n' && lx->s[j] != '\r')
        j++;
    if (j >= lx->n)
        lx_fail_char(lx, lx->n, "set null"); /* COMMENT must end with a newline */
    else
        emit(lx, TK_COMMENT, j + 1 - i);
}

static size_t skip_digits(const lexer *lx, size_t i)
{
    while (is_digit(ch(lx, i)))
        i++;
    return i;
}

static int match_ci(const lexer *lx, size_t i, const char *word)
{
    for (; *word; word++, i++)
        if (lower_ascii(ch(lx, i)) != *word)
            return 0;
    return 1;
}

/* INTEGER or FLOAT: '-'? DIGIT+ ('.' DIGIT*)? EXPONENT? */
static size_t scan_number(const lexer *lx, size_t i, int *is_float)
{
    size_t j = i + (ch(lx, i) == '-');
    size_t d = skip_digits(lx, j);
    if (d == j)
        return 0;
    j = d;
    *is_float = 0;
    if (ch(lx, j) == '.' && ch(lx, j + 1) != '.') { /* "1..2" is a range, not 1. */
        j = skip_digits(lx, j + 1);
        *is_float = 1;
    }
    if (lower_ascii(ch(lx, j)) == 'e') {
        size_t k = j + 1;
        if (ch(lx, k) == '+' || ch(lx, k) == '-')
            k++;
        size_t e = skip_digits(lx, k);
        if (e > k) {
            j = e;
            *is_float = 1;
        }
    }
    return j - i;
}

/* A duration unit at i (y mo w d h m s ms us µs ns, any case): its length, or 0. */
static size_t scan_unit(const lexer *lx, size_t i)
{
    int c = lower_ascii(ch(lx, i)), c1 = lower_ascii(ch(lx, i + 1));
    switch (c) {
    case 'y':
    case 'w':
    case 'd':
    case 'h':
    case 's':
        return 1;
    case 'm':
        return c1 == 'o' || c1 == 's' ? 2 : 1;
    case 'u':
    case 'n':
        return c1 == 's' ? 2 : 0;
    case 0xC2:
        return ch(lx, i + 1) == 0xB5 && lower_ascii(ch(lx, i + 2)) == 's' ? 3 : 0;
    default:
        return 0;
    }
}

/* '-'? (DIGIT+ UNIT)+ */
static size_t scan_duration_units(const lexer *lx, size_t i)
{
    size_t j = i + (ch(lx, i) == '-'), end = 0;
    for (;;) {
        size_t d = skip_digits(lx, j);
        size_t u = d > j ? scan_unit(lx, d) : 0;
        if (!u)
            return end ? end - i : 0;
        j = end = d + u;
    }
}

/* DIGIT+ L pairs with the letters L taken in the order of `letters`, at least one. */
static size_t scan_designators(const lexer *lx, size_t j, const char *letters)
{
    size_t start = j;
    for (;;) {
        size_t d = skip_digits(lx, j);
        int c = ch(lx, d);
        const char *hit = d > j && c > 0 ? strchr(letters, c) : NULL;
        if (!hit)
            break;
        j = d + 1;
        letters = hit + 1;
        if (!*letters)
            break;
    }
    return j - start;
}

static int digits_at(const lexer *lx, size_t i, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!is_digit(ch(lx, i + k)))
            return 0;
    return 1;
}

/* The ISO 8601 forms (upper-case designators only, as in Lexer.g): the longest match. */
static size_t scan_iso_duration(const lexer *lx, size_t i)
{
    size_t j = i + (ch(lx, i) == '-');
    if (ch(lx, j) != 'P')
        return 0;
    j++;
    size_t best = 0;
    /* P0001-02-03T04:05:06 */
    if (digits_at(lx, j, 4) && ch(lx, j + 4) == '-' && digits_at(lx, j + 5, 2) &&
        ch(lx, j + 7) == '-' && digits_at(lx, j + 8, 2) && ch(lx, j + 10) == 'T' &&
        digits_at(lx, j + 11, 2) && ch(lx, j + 13) == ':' && digits_at(lx, j + 14, 2) &&
        ch(lx, j + 16) == ':' && digits_at(lx, j + 17, 2))
        best = j + 19 - i;
    size_t d = skip_digits(lx, j);
    if (d > j && ch(lx, d) == 'W' && d + 1 - i > best)
        best = d + 1 - i;
    size_t k = j + scan_designators(lx, j, "YMD");
    if (ch(lx, k) == 'T') {
        size_t t = scan_designators(lx, k + 1, "HMS");
        if (t)
            k += 1 + t;
    }
    if (k > j && k - i > best)
        best = k - i;
    return best;
}

static size_t scan_uuid(const lexer *lx, size_t i)
{
    for (size_t k = 0; k < 36; k++) {
        int c = ch(lx, i + k);
        if (k == 8 || k == 13 || k == 18 || k == 23 ? c != '-' : !is_hexdigit(c))
            return 0;
    }
    return 36;
}

/* Numbers, durations, uuids and blobs overlap: the longest match wins, then Lexer.g's order. */
static void lex_number(lexer *lx)
{
    size_t i = lx->i;
    int neg = ch(lx, i) == '-';
    if (neg && match_ci(lx, i + 1, "nan")) {
        emit(lx, TK_NEG_NAN, 4);
        return;
    }
    if (neg && match_ci(lx, i + 1, "infinity")) {
        emit(lx, TK_NEG_INF, 9);
        return;
    }
    int is_float = 0, kind = TK_PUNCT;
    size_t best = scan_number(lx, i, &is_float);
    if (best)
        kind = is_float ? TK_FLOAT : TK_INTEGER;
    size_t dur = scan_duration_units(lx, i), iso = scan_iso_duration(lx, i);
    if (iso > dur)
        dur = iso;
    if (dur > best) {
        best = dur;
        kind = TK_DURATION;
    }
    if (!neg && ch(lx, i) == '0' && lower_ascii(ch(lx, i + 1)) == 'x') {
        size_t j = i + 2;
        while (is_hexdigit(ch(lx, j)))
            j++;
        if (j - i > best) {
            best = j - i;
            kind = TK_HEX;
        }
    }
    if (!neg && scan_uuid(lx, i) > best) {
        best = 36;
        kind = TK_UUID;
    }
    if (!best) { /* a lone minus */
        tok *t = emit(lx, TK_PUNCT, 1);
        if (t)
            t->punct = '-';
        return;
    }
    emit(lx, kind, best);
}

static void lex_word(lexer *lx)
{
    size_t i = lx->i, j = i + 1;
    while (is_letter(ch(lx, j)) || is_digit(ch(lx, j)) || ch(lx, j) == '_')
        j++;
    size_t w = j - i, iso = scan_iso_duration(lx, i);
    if (scan_uuid(lx, i)) {
        emit(lx, TK_UUID, 36);
    } else if (iso && iso >= w) { /* DURATION comes before IDENT in Lexer.g */
        emit(lx, TK_DURATION, iso);
    } else if ((w == 4 && match_ci(lx, i, "true")) || (w == 5 && match_ci(lx, i, "false"))) {
        emit(lx, TK_BOOLEAN, w);
    } else {
        int kw = cql_keyword_of(lx->s + i, w);
        tok *t = emit(lx, TK_IDENT, w);
        if (t)
            t->kw = (uint8_t)kw;
    }
}

static void lex_punct(lexer *lx)
{
    size_t i = lx->i;
    int c = ch(lx, i), c1 = ch(lx, i + 1), code = c;
    size_t len = 1;
    switch (c) {
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case ',':
    case ';':
    case ':':
    case '*':
    case '/':
    case '%':
    case '=':
    case '?':
        break;
    case '.':
        if (c1 == '.') {
            code = P2('.', '.');
            len = 2;
        }
        break;
    case '<':
    case '>':
    case '+':
    case '-':
    case '!':
        if (c1 == '=') {
            code = P2(c, '=');
            len = 2;
        } else if (c == '!') {
            lx_fail_char(lx, i + 1, "'='");
            return;
        }
        break;
    default: {
        char d[16];
        char_display(lx, i, d, sizeof d);
        lx_fail(lx, i, "no viable alternative at character '%s'", d);
        return;
    }
    }
    tok *t = emit(lx, c == '?' ? TK_QMARK : TK_PUNCT, len);
    if (t)
        t->punct = (uint16_t)code;
}

static void lex_one(lexer *lx)
{
    size_t i = lx->i;
    int c = ch(lx, i), c1 = ch(lx, i + 1);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        size_t j = i;
        while (ch(lx, j) == ' ' || ch(lx, j) == '\t' || ch(lx, j) == '\n' || ch(lx, j) == '\r')
            j++;
        emit(lx, TK_WS, j - i);
    } else if ((c == '-' && c1 == '-') || (c == '/' && (c1 == '/' || c1 == '*'))) {
        lex_comment(lx);
    } else if (c == '\'') {
        lex_quoted(lx, '\'', TK_STRING);
    } else if (c == '"') {
        if (c1 == '"' && ch(lx, i + 2) != '"')
            emit(lx, TK_EMPTY_QNAME, 2);
        else
            lex_quoted(lx, '"', TK_QNAME);
    } else if (c == '$') {
        lex_pg_string(lx);
    } else if (is_digit(c) || (c == '-' && (is_digit(c1) || c1 == 'P' || lower_ascii(c1) == 'n' ||
                                            lower_ascii(c1) == 'i'))) {
        lex_number(lx);
    } else if (is_letter(c)) {
        lex_word(lx);
    } else {
        lex_punct(lx);
    }
}

/* Tokenizes everything; the array ends with EOF. Returns 0 or ENG_E_NOMEM. */
static int lex_all(lexer *lx)
{
    while (lx->i < lx->n && !lx->oom)
        lex_one(lx);
    tok *t = lx->oom ? NULL : emit(lx, TK_EOF, 0);
    if (!t)
        return ENG_E_NOMEM;
    t->line = 0; /* Cassandra's EOF token has no position: "line 0:-1" */
    t->col = -1;
    return 0;
}

int cql_lex(const char *text, size_t len, eng_arena *arena, cql_tokens *out)
{
    memset(out, 0, sizeof *out);
    lexer lx;
    memset(&lx, 0, sizeof lx);
    lx.s = text ? text : "";
    lx.n = len;
    lx.line = 1;
    lx.arena = arena;
    lx.err_tok = -1;
    if (lex_all(&lx) != 0) {
        eng_free(lx.toks);
        return ENG_E_NOMEM;
    }
    out->toks = lx.toks;
    out->n = lx.n_toks;
    out->err_tok = lx.err_tok;
    memcpy(out->err_msg, lx.err_msg, sizeof out->err_msg);
    return 0;
}
