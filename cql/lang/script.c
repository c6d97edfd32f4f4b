/*
 * Splitting a script into statements without parsing them (script.h): what
 * a CQL shell does before it runs each one, shared by the `cassette` shell
 * and whatever reads scripts. It knows only the lexical units that may hold
 * a ';' that ends nothing: strings, quoted names, $$ strings and comments,
 * and BEGIN ... APPLY BATCH, whose members end in ';'.
 */
#include <string.h>

#include "cql/lang/script.h"

static int word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static char lower(unsigned char c) { return (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); }

static size_t skip_blank(const char *s, size_t n, size_t i)
{
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            i++;
        if (i + 1 < n && ((s[i] == '-' && s[i + 1] == '-') || (s[i] == '/' && s[i + 1] == '/'))) {
            while (i < n && s[i] != '\n')
                i++;
        } else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            i += 2;
            while (i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/'))
                i++;
            i = i < n ? i + 2 : n;
        } else {
            return i;
        }
    }
}

/* End of the lexical unit at i (string, quoted name, $$ string, word, or one byte). */
static size_t skip_unit(const char *s, size_t n, size_t i)
{
    char c = s[i];
    if (c == '\'' || c == '"') {
        for (i++; i < n; i++) {
            if (s[i] == c) {
                if (i + 1 < n && s[i + 1] == c)
                    i++;
                else
                    return i + 1;
            }
        }
        return n;
    }
    if (c == '$' && i + 1 < n && s[i + 1] == '$') {
        for (i += 2; i + 1 < n; i++)
            if (s[i] == '$' && s[i + 1] == '$')
                return i + 2;
        return n;
    }
    if (word_char((unsigned char)c)) {
        while (i < n &&
               word_char((unsigned char)s[i]))
            i++;
        return i;
    }
    return i + 1;
}

static int word_is(const char *s, size_t from, size_t to, const char *word)
{
    size_t n = strlen(word);
    if (to - from != n)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (lower((unsigned char)s[from + k]) != word[k])
            return 0;
    return 1;
}

/* BEGIN [UNLOGGED | COUNTER] BATCH at i: its ';'s do not end the statement. */
static int starts_batch(const char *s, size_t n, size_t i)
{
    size_t e = skip_unit(s, n, i);
    if (!word_is(s, i, e, "begin"))
        return 0;
    i = skip_blank(s, n, e);
    e = i < n ? skip_unit(s, n, i) : i;
    if (word_is(s, i, e, "unlogged") || word_is(s, i, e, "counter")) {
        i = skip_blank(s, n, e);
        e = i < n ? skip_unit(s, n, i) : i;
    }
    return word_is(s, i, e, "batch");
}

int cql_next_statement(const char *text, size_t len, size_t *pos, size_t *start, size_t *end)
{
    size_t i = *pos < len ? *pos : len;
    for (;;) {
        i = skip_blank(text, len, i);
        if (i < len && text[i] == ';')
            i++;
        else
            break;
    }
    if (i >= len) {
        *pos = len;
        return 0;
    }
    *start = i;
    int batch = starts_batch(text, len, i), applied = 0, after_apply = 0;
    size_t last = i; /* end of the last unit that is not blank */
    while (i < len) {
        if (text[i] == ';' && (!batch || applied)) {
            *end = i;
            *pos = i + 1;
            return 1;
        }
        size_t e = skip_unit(text, len, i);
        if (batch && !applied) {
            applied = after_apply && word_is(text, i, e, "batch");
            after_apply = word_is(text, i, e, "apply");
        }
        last = e;
        i = skip_blank(text, len, e);
    }
    *end = last; /* no ';': the statement ends with its last token */
    *pos = len;
    return 1;
}
