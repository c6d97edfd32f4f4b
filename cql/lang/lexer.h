/*
 * The CQL lexer (Cassandra's Lexer.g), private to cql/lang: text in, the
 * array of tokens the parser reads, hidden ones (whitespace, comments)
 * included and EOF last, as ANTLR counts them. The keyword table is the one
 * place keywords are listed: their token names, the classes Parser.g gives
 * them and their spellings.
 *
 * A lexer error does not stop the lexer: it records the error and the index
 * of the token after it, which the parser reports only if it reads that far
 * (ANTLR's lazy token stream), so an earlier parser error wins.
 */
#ifndef CQL_LANG_LEXER_H
#define CQL_LANG_LEXER_H

#include "engine/value/common.h"

/* Longer texts are refused, so token offsets fit 32 bits (a protocol frame is 256 MB at most). */
#define CQL_MAX_TEXT ((size_t)1 << 30)

/*
 * KR reserved; KU basic_unreserved_keyword (identifier and function name);
 * KT native type name (unreserved too); KX unreserved_keyword only
 * (identifier, not function name): ttl, count, writetime, key, cast, json,
 * distinct. Cassandra 4.1's list: no MAXWRITETIME, MASKED, VECTOR yet.
 */
enum { KR = 0, KU = 1, KT = 2, KX = 3 };

/* clang-format off */
#define KEYWORDS(X) \
    X(ACCESS, KU) X(ADD, KR) X(AGGREGATE, KU) X(AGGREGATES, KU) \
    X(ALL, KU) X(ALLOW, KR) X(ALTER, KR) X(AND, KR) \
    X(APPLY, KR) X(AS, KU) X(ASC, KR) X(ASCII, KT) \
    X(AUTHORIZE, KR) X(BATCH, KR) X(BEGIN, KR) X(BIGINT, KT) \
    X(BLOB, KT) X(BOOLEAN, KT) X(BY, KR) X(CALLED, KU) \
    X(CAST, KX) X(CLUSTER, KU) X(CLUSTERING, KU) X(COLUMNFAMILY, KR) \
    X(COMPACT, KU) X(CONTAINS, KU) X(COUNT, KX) X(COUNTER, KT) \
    X(CREATE, KR) X(CUSTOM, KU) X(DATACENTERS, KU) X(DATE, KT) \
    X(DECIMAL, KT) X(DEFAULT, KU) X(DELETE, KR) X(DESC, KR) \
    X(DESCRIBE, KR) X(DISTINCT, KX) X(DOUBLE, KT) X(DROP, KR) \
    X(DURATION, KT) X(ENTRIES, KR) X(EXECUTE, KR) X(EXISTS, KU) \
    X(FILTERING, KU) X(FINALFUNC, KU) X(FLOAT, KT) X(FROM, KR) \
    X(FROZEN, KU) X(FULL, KR) X(FUNCTION, KU) X(FUNCTIONS, KU) \
    X(GRANT, KR) X(GROUP, KU) X(HASHED, KU) X(IF, KR) \
    X(IN, KR) X(INDEX, KR) X(INET, KT) X(INITCOND, KU) \
    X(INPUT, KU) X(INSERT, KR) X(INT, KT) X(INTERNALS, KU) \
    X(INTO, KR) X(IS, KR) X(JSON, KX) X(KEY, KX) \
    X(KEYS, KU) X(KEYSPACE, KR) X(KEYSPACES, KU) X(LANGUAGE, KU) \
    X(LIKE, KU) X(LIMIT, KR) X(LIST, KU) X(LOGIN, KU) \
    X(MAP, KU) X(MATERIALIZED, KR) X(MBEAN, KU) X(MBEANS, KU) \
    X(MODIFY, KR) X(NOLOGIN, KU) X(NORECURSIVE, KR) X(NOSUPERUSER, KU) \
    X(NOT, KR) X(NULL, KR) X(OF, KR) X(ON, KR) \
    X(ONLY, KU) X(OPTIONS, KU) X(OR, KR) X(ORDER, KR) \
    X(PARTITION, KU) X(PASSWORD, KU) X(PER, KU) X(PERMISSION, KU) \
    X(PERMISSIONS, KU) X(POSITIVE_INFINITY, KR) X(POSITIVE_NAN, KR) X(PRIMARY, KR) \
    X(RENAME, KR) X(REPLACE, KU) X(RETURNS, KU) X(REVOKE, KR) \
    X(ROLE, KU) X(ROLES, KU) X(SELECT, KR) X(SET, KR) \
    X(SFUNC, KU) X(SMALLINT, KT) X(STATIC, KU) X(STORAGE, KU) \
    X(STYPE, KU) X(SUPERUSER, KU) X(TABLES, KU) X(TEXT, KT) \
    X(TIME, KT) X(TIMESTAMP, KT) X(TIMEUUID, KT) X(TINYINT, KT) \
    X(TO, KR) X(TOKEN, KR) X(TRIGGER, KU) X(TRUNCATE, KR) \
    X(TTL, KX) X(TUPLE, KU) X(TYPE, KU) X(TYPES, KU) \
    X(UNLOGGED, KR) X(UNSET, KU) X(UPDATE, KR) X(USE, KR) \
    X(USER, KU) X(USERS, KU) X(USING, KR) X(UUID, KT) \
    X(VALUES, KU) X(VARCHAR, KT) X(VARINT, KT) X(VIEW, KR) \
    X(WHERE, KR) X(WITH, KR) X(WRITETIME, KX)

#define KW_ENUM(id, cls) KW_##id,
enum kw { KW_NONE, KEYWORDS(KW_ENUM) N_KW };
#undef KW_ENUM
/* clang-format on */


typedef struct cql_keyword_info {
    const char *name; /* ANTLR's token name, for "expecting K_FROM" */
    int cls;          /* KR, KU, KT or KX */
} cql_keyword_info;

/* Every keyword's token name and class, by enum kw (KW_NONE: "IDENT"). */
extern const cql_keyword_info cql_keywords[N_KW];

/* The keyword spelled s[0..n) in any case, or KW_NONE. */
int cql_keyword_of(const char *s, size_t n);

enum tok_kind {
    TK_EOF,
    TK_WS,      /* hidden, but counted in token indexes as ANTLR counts them */
    TK_COMMENT, /* hidden */
    TK_IDENT,   /* identifiers and keywords (kw != KW_NONE) */
    TK_QNAME,   /* "quoted name" */
    TK_EMPTY_QNAME,
    TK_STRING,
    TK_INTEGER,
    TK_FLOAT,
    TK_BOOLEAN,
    TK_DURATION,
    TK_UUID,
    TK_HEX,
    TK_QMARK,
    TK_NEG_NAN,
    TK_NEG_INF,
    TK_PUNCT,
};

/* Two-character operators as one punct code. */
#define P2(a, b) ((a) << 8 | (b))

typedef struct cql_tok {
    uint8_t kind;      /* enum tok_kind */
    uint8_t kw;        /* TK_IDENT: enum kw */
    uint16_t punct;    /* TK_PUNCT: the character or P2() */
    int32_t line;      /* 1-based; 0 for EOF, as Cassandra's EOF token */
    int32_t col;       /* 0-based, UTF-16 units; -1 for EOF */
    uint32_t off, len; /* source bytes (texts are at most CQL_MAX_TEXT bytes) */
    uint32_t line_off; /* byte offset of the token's line */
    uint32_t text_len;
    const char *text; /* TK_STRING, TK_QNAME: decoded content (arena, NUL-terminated) */
} cql_tok;

_Static_assert(N_KW <= UINT8_MAX, "keyword ids fit tok.kw");


/* The tokens of a text. */
typedef struct cql_tokens {
    cql_tok *toks;     /* every token, hidden ones included, EOF last (eng_malloc'ed) */
    int n;
    int err_tok;       /* index of the token after the first lexer error; -1 if none */
    char err_msg[256]; /* that error, as Cassandra's lexer words it */
} cql_tokens;

/*
 * Tokenizes text[0..len) (at most CQL_MAX_TEXT bytes). Decoded strings and quoted names go to
 * arena. Returns 0, or ENG_E_NOMEM (nothing to free). Free the tokens with eng_free(toks).
 */
int cql_lex(const char *text, size_t len, eng_arena *arena, cql_tokens *out);

#endif
