/*
 * cassette, the shell: runs a CQL script against a database directory and
 * prints what cqlsh 6.x prints for it in non-interactive mode (cqlsh -f /
 * -e), so a script's output can be diffed with Cassandra's
 * (tests/cql/README.md). SELECTs print their table, conditional statements
 * their [applied] table, other statements nothing; a failed statement
 * prints one FILE:LINE: error line on standard error and the script goes
 * on; the exit status is 2 if any statement failed.
 *
 * Line numbers are cqlsh's: it reads a script line by line, runs the
 * statements it has once a line ends with a complete one, and reports
 * errors with its line counter, which is by then one past the line just
 * read. Standard output is flushed before each error line so that the two
 * streams, merged, keep the statements' order.
 *
 * The shell is a client of cassandra.h (and cassette.h) only: it connects a
 * session to the contact point file:DB, runs each statement as a simple
 * statement, pages through results as cqlsh does, and takes server warnings
 * from the driver's log (cql/shell/log.h), so it runs unchanged against any
 * session the driver can open.
 */
#include "cassandra.h"
#include "cassette.h"
#include "cql/lang/script.h"
#include "cql/shell/format.h"
#include "cql/shell/log.h"
#include "cql/shell/serve.h"
#include "engine/value/common.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

/* cqlsh's default_page_size: a SELECT is fetched, and laid out, 100 rows at a time. */
#define PAGE_SIZE 100
#define NO_TERM SIZE_MAX

/* One statement of a script. */
typedef struct stmt {
    size_t start, end; /* its text, without the ';' */
    size_t term;       /* offset of its ';', NO_TERM if the script ended first */
    int line;          /* line its errors report; 0: cqlsh never runs it */
    size_t chunk;      /* index of the last statement cqlsh runs in the same batch of lines */
} stmt;

typedef struct script {
    const char *name; /* file name in error lines: the -f argument or <stdin> */
    const char *text;
    size_t len;
    int one_line; /* -e: cqlsh takes the whole string as one line */
    stmt *stmts;
    size_t n;
    int incomplete; /* the text ends inside a statement (no ';'): cqlsh complains at EOF */
} script;

typedef struct shell {
    CassCluster *cluster;
    CassSession *session; /* connected */
    const script *sc;
    eng_buf out;
    int failed; /* a statement reported an error: exit status 2 */
    int stop;   /* EXIT or QUIT ran */
    int no_paging; /* PAGING OFF: every SELECT fetches all its rows at once */
    int depth;     /* SOURCE files being run, one inside the other */
    int page_size; /* PAGING n (0: cqlsh's default, PAGE_SIZE) */
} shell;

typedef struct options {
    const char *db;
    const char *execute; /* -e */
    const char *file;    /* -f */
} options;

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

static void flush_out(shell *sh)
{
    if (sh->out.oom) {
        fputs("cassette: out of memory\n", stderr);
        sh->failed = 1;
    } else if (sh->out.len) {
        fwrite(sh->out.p, 1, sh->out.len, stdout);
    }
    eng_buf_reset(&sh->out);
}

static void put_stderr(shell *sh, eng_buf *line)
{
    flush_out(sh);
    fflush(stdout);
    if (line->oom)
        fputs("cassette: out of memory\n", stderr);
    else
        fwrite(line->p, 1, line->len, stderr);
    sh->failed = 1;
}

/* A request that failed: the error line cqlsh prints for its exception. */
static void report_error(shell *sh, int line, CassFuture *f)
{
    eng_buf b = ENG_BUF_INIT;
    cql_format_future_error(sh->sc->name, line, f, &b);
    put_stderr(sh, &b);
    eng_buf_free(&b);
}

/* An error of the shell itself (printerr's plain text, after FILE:LINE:). */
static void report_text(shell *sh, int line, const char *text)
{
    eng_buf b = ENG_BUF_INIT;
    eng_buf_printf(&b, "%s:%d:%s\n", sh->sc->name, line, text);
    put_stderr(sh, &b);
    eng_buf_free(&b);
}

/* ------------------------------------------------------------------------ */
/* Statements                                                                */
/* ------------------------------------------------------------------------ */

/* The statement's first word, lower-cased and cut to the buffer ("" if none). */
static void first_word(const char *p, size_t len, char *word, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            break;
        word[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    word[n] = 0;
}

/* cqlsh's own commands (its do_* handlers), which no CQL statement starts with. */
static int is_shell_command(const char *word)
{
    static const char *const words[] = {
        "capture", "clear",    "cls",    "consistency", "copy",    "debug",
        "desc",    "describe", "expand", "help",        "history", "login",
        "paging",  "serial",   "show",   "source",      "tracing", "unicode",
    };
    for (size_t i = 0; i < ENG_ARRAY_LEN(words); i++)
        if (strcmp(word, words[i]) == 0)
            return 1;
    return 0;
}

/*
 * Runs the statement (one page of it) and waits for its result; NULL after
 * reporting the failure. The warnings captured are the last response's, as
 * the Python driver's future keeps only those of the page it fetched last.
 */
static const CassResult *execute(shell *sh, const CassStatement *st, int line)
{
    cql_shell_warnings_begin();
    CassFuture *f = cass_session_execute(sh->session, st);
    const CassResult *r = NULL;
    if (cass_future_error_code(f) != CASS_OK)
        report_error(sh, line, f);
    else if (!(r = cass_future_get_result(f)))
        report_text(sh, line, "ServerError: out of memory");
    cql_shell_warnings_end();
    cass_future_free(f);
    return r;
}

/*
 * The rest of a SELECT's pages. cqlsh prints each page as it arrives, rows
 * only and sized on their own, skipping empty ones. Takes r over; returns
 * -1 if fetching a page failed (reported: cqlsh then stops the table
 * without a row count).
 */
static int print_more_pages(shell *sh, CassStatement *st, const CassResult *r, int line,
                            uint64_t *total)
{
    while (cass_result_has_more_pages(r)) {
        flush_out(sh);
        CassError rc = cass_statement_set_paging_state(st, r);
        cass_result_free(r); /* only now: the statement has copied its paging state */
        if (rc != CASS_OK) {
            report_text(sh, line, "ServerError: out of memory");
            return -1;
        }
        if (!(r = execute(sh, st, line)))
            return -1;
        if (cass_result_row_count(r))
            cql_format_page(r, 0, &sh->out);
        *total += cass_result_row_count(r);
    }
    cass_result_free(r);
    return 0;
}

/* A SELECT: an empty line, the pages, an empty line and the row count. Takes r over. */
static int print_select(shell *sh, CassStatement *st, const CassResult *r, int line)
{
    uint64_t total = cass_result_row_count(r);
    eng_buf_put_u8(&sh->out, '\n');
    cql_format_page(r, 1, &sh->out);
    if (print_more_pages(sh, st, r, line, &total))
        return -1;
    cql_format_row_count(total, &sh->out);
    return 0;
}

/* cqlsh's perform_statement: the result, then the warnings of a statement that succeeded. */
static void run_cql(shell *sh, const char *text, size_t len, const char *word, int line)
{
    CassStatement *st = cass_statement_new_n(text, len, 0);
    int page = sh->no_paging ? -1 : sh->page_size ? sh->page_size : PAGE_SIZE;
    if (!st || cass_statement_set_paging_size(st, page) != CASS_OK) {
        report_text(sh, line, "ServerError: out of memory");
        cass_statement_free(st);
        return;
    }
    const CassResult *r = execute(sh, st, line);
    int ok = r != NULL;
    /* cqlsh: a statement starting with "select" or "list" prints its table (LIST against
       system_auth's tables: an empty one prints their columns); any other that returns rows
       (INSERT/UPDATE/DELETE/BATCH ... IF) prints the [applied] form */
    if (r && strcmp(word, "list") == 0 && cass_result_column_count(r) == 0) {
        static const char *const roles[] = {"role", "can_login", "is_superuser", "member_of",
                                            "salted_hash"};
        static const char *const perms[] = {"role", "resource", "permissions"};
        int of_roles = len >= 10 && (!strncasecmp(text, "list users", 10) ||
                                     !strncasecmp(text, "list roles", 10));
        eng_buf_put_u8(&sh->out, '\n');
        cql_format_empty_page(of_roles ? roles : perms, of_roles ? 5 : 3, &sh->out);
        cql_format_row_count(0, &sh->out);
        cass_result_free(r);
    } else if (r && (strcmp(word, "select") == 0 || strcmp(word, "list") == 0)) {
        ok = print_select(sh, st, r, line) == 0;
    } else if (r) {
        cql_format_result(r, 1, &sh->out);
        cass_result_free(r);
    }
    if (ok) {
        const char *const *warnings;
        size_t n = cql_shell_warnings(&warnings);
        cql_format_warnings(warnings, n, &sh->out);
    }
    cass_statement_free(st);
    flush_out(sh);
}

/*
 * cqlsh's PAGING [ON | OFF | n] (do_paging with its SwitchCommandWithValue, cqlsh 6.1): shows
 * or switches paging, and a number sets the page size and turns paging on.
 */
static void run_paging(shell *sh, const char *text, size_t len, int line)
{
    size_t i = 6; /* past "paging" */
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    size_t start = i;
    while (i < len && text[i] != ';' && text[i] != ' ' && text[i] != '\t' && text[i] != '\n' &&
           text[i] != '\r')
        i++;
    char arg[32];
    size_t n = i - start < sizeof arg ? i - start : sizeof arg - 1;
    memcpy(arg, text + start, n);
    arg[n] = 0;
    int on = !sh->no_paging;
    if (!n) {
        eng_buf_printf(&sh->out, on ? "Query paging is currently enabled. Use PAGING OFF to disable\n"
                                    : "Query paging is currently disabled. Use PAGING ON to enable.\n");
    } else if (!strcasecmp(arg, "on")) {
        if (on)
            report_text(sh, line, "Query paging is already enabled. Use PAGING OFF to disable.");
        else
            eng_buf_printf(&sh->out, "Now Query paging is enabled\n");
        on = 1;
    } else if (!strcasecmp(arg, "off")) {
        if (!on)
            report_text(sh, line, "Query paging is not enabled.");
        else
            eng_buf_printf(&sh->out, "Disabled Query paging.\n");
        on = 0;
    } else {
        char *end;
        long size = strtol(arg, &end, 10);
        if (!*end) { /* int(switch): a number turns paging on with that page size */
            on = 1;
            sh->page_size = (int)(size > INT32_MAX ? INT32_MAX : size < INT32_MIN ? INT32_MIN : size);
        }
    }
    sh->no_paging = !on;
    if (on)
        eng_buf_printf(&sh->out, "Page size: %d\n", sh->page_size ? sh->page_size : PAGE_SIZE);
    else
        sh->page_size = 0; /* back to the default page size */
    flush_out(sh);
}

static int split_script(script *sc);
static void run_script(shell *sh);
static int read_stream(FILE *f, eng_buf *b);

/* SOURCE files may include each other this deep (cqlsh stops at Python's recursion limit). */
#define SOURCE_DEPTH_MAX 16

/*
 * cqlsh's SOURCE 'file' (do_source): runs the file's statements as a shell of their own would,
 * errors naming that file and its lines, with paging back at cqlsh's default; EXIT in it ends
 * that file only. One difference: the file runs on this shell's session, so a USE in it stays
 * in effect after it (cqlsh's subshell has a session of its own).
 */
static void run_source(shell *sh, const char *text, size_t len, int line)
{
    size_t i = 6; /* past "source" */
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    eng_buf path = ENG_BUF_INIT;
    if (i >= len || text[i] != '\'') {
        report_text(sh, line, "Improper source command.");
        return;
    }
    for (i++; i < len; i++) {
        if (text[i] == '\'') {
            if (i + 1 < len && text[i + 1] == '\'') /* '' is a quote inside the name */
                i++;
            else
                break;
        }
        eng_buf_put_u8(&path, (uint8_t)text[i]);
    }
    const char *name = eng_buf_cstr(&path);
    eng_buf full = ENG_BUF_INIT;
    const char *home = getenv("HOME");
    if (name && name[0] == '~' && (name[1] == '/' || !name[1]) && home) { /* expanduser */
        eng_buf_printf(&full, "%s%s", home, name + 1);
        name = eng_buf_cstr(&full);
    }
    if (!name) {
        report_text(sh, line, "ServerError: out of memory");
        eng_buf_free(&path);
        eng_buf_free(&full);
        return;
    }
    eng_buf body = ENG_BUF_INIT;
    FILE *f = sh->depth < SOURCE_DEPTH_MAX ? fopen(name, "rb") : NULL;
    int err = f ? read_stream(f, &body) : sh->depth < SOURCE_DEPTH_MAX ? errno : ELOOP;
    if (f)
        fclose(f);
    if (err) {
        char msg[PATH_MAX * 2 + 128];
        snprintf(msg, sizeof msg, "Could not open '%s': [Errno %d] %s: '%s'", name, err,
                 strerror(err), name);
        report_text(sh, line, msg);
    } else {
        script sub = {.name = name, .text = body.p ? (const char *)body.p : "", .len = body.len};
        if (sub.len >= 3 && memcmp(sub.text, "\xEF\xBB\xBF", 3) == 0) {
            sub.text += 3;
            sub.len -= 3;
        }
        if (split_script(&sub)) {
            report_text(sh, line, "ServerError: out of memory");
        } else {
            const script *outer = sh->sc;
            int no_paging = sh->no_paging, page_size = sh->page_size;
            flush_out(sh);
            sh->sc = &sub;
            sh->no_paging = 0;
            sh->page_size = 0;
            sh->depth++;
            run_script(sh);
            sh->depth--;
            sh->sc = outer;
            sh->no_paging = no_paging;
            sh->page_size = page_size;
            sh->stop = 0; /* EXIT ended the sourced file's shell only */
        }
        eng_free(sub.stmts);
    }
    eng_buf_free(&body);
    eng_buf_free(&path);
    eng_buf_free(&full);
}

static void run_statement(shell *sh, const stmt *s)
{
    const char *text = sh->sc->text + s->start;
    size_t len = (s->term != NO_TERM ? s->term + 1 : s->end) - s->start;
    char word[16];
    first_word(text, len, word, sizeof word);
    if (strcmp(word, "exit") == 0 || strcmp(word, "quit") == 0) {
        sh->stop = 1;
    } else if (strcmp(word, "paging") == 0) {
        run_paging(sh, text, len, s->line);
    } else if (strcmp(word, "source") == 0) {
        run_source(sh, text, len, s->line);
    } else if (is_shell_command(word)) {
        char msg[96];
        for (char *c = word; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        snprintf(msg, sizeof msg, "%s is a cqlsh command that cassette does not support yet", word);
        report_text(sh, s->line, msg);
    } else {
        run_cql(sh, text, len, word, s->line);
    }
}

/* ------------------------------------------------------------------------ */
/* Scripts                                                                   */
/* ------------------------------------------------------------------------ */

static int add_stmt(script *sc, size_t *cap, size_t start, size_t end)
{
    if (sc->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        stmt *p = eng_realloc(sc->stmts, ncap * sizeof *p);
        if (!p)
            return ENG_E_NOMEM;
        sc->stmts = p;
        *cap = ncap;
    }
    stmt *s = &sc->stmts[sc->n++];
    s->start = start;
    s->end = end;
    s->term = end < sc->len && sc->text[end] == ';' ? end : NO_TERM;
    return 0;
}

/* Line numbers (from 1) of each statement's start and of its ';' (0 without one). */
static void find_lines(const script *sc, size_t *start_line, size_t *term_line)
{
    size_t line = 1, at = 0;
    for (size_t i = 0; i < sc->n; i++) {
        for (; at < sc->stmts[i].start; at++)
            line += sc->text[at] == '\n';
        start_line[i] = line;
        term_line[i] = 0;
        if (sc->stmts[i].term == NO_TERM)
            continue;
        for (; at < sc->stmts[i].term; at++)
            line += sc->text[at] == '\n';
        term_line[i] = line;
    }
}

/*
 * cqlsh's line numbers. It runs what it has read once a line ends with a
 * complete statement, so a statement whose ';' is followed on the same line
 * by the start of another runs with that one; the error line is one past
 * the last line read (its counter starts at 1 and counts lines as they are
 * read). Statements in an unfinished batch at the end never run.
 */
static int assign_lines(script *sc)
{
    size_t *start_line = eng_calloc(sc->n + 1, sizeof *start_line);
    size_t *term_line = eng_calloc(sc->n + 1, sizeof *term_line);
    if (!start_line || !term_line) {
        eng_free(start_line);
        eng_free(term_line);
        return ENG_E_NOMEM;
    }
    find_lines(sc, start_line, term_line);
    for (size_t i = sc->n; i-- > 0;) {
        stmt *s = &sc->stmts[i];
        if (!term_line[i]) {
            s->line = 0;
            s->chunk = i;
        } else if (i + 1 < sc->n && start_line[i + 1] == term_line[i]) {
            s->line = sc->stmts[i + 1].line;
            s->chunk = sc->stmts[i + 1].chunk;
        } else {
            s->line = (int)term_line[i] + 1;
            s->chunk = i;
        }
    }
    eng_free(start_line);
    eng_free(term_line);
    return 0;
}

static int split_script(script *sc)
{
    size_t pos = 0, start, end, cap = 0;
    while (pos < sc->len && cql_next_statement(sc->text, sc->len, &pos, &start, &end)) {
        if (add_stmt(sc, &cap, start, end))
            return ENG_E_NOMEM;
        if (pos <= start) /* no progress: never loop */
            break;
    }
    if (sc->one_line) {
        /* cqlsh -e appends a missing final ';' and reads one line: everything runs at line 1 */
        for (size_t i = 0; i < sc->n; i++) {
            sc->stmts[i].line = 1;
            sc->stmts[i].chunk = sc->n - 1;
        }
        return 0;
    }
    sc->incomplete = sc->n && sc->stmts[sc->n - 1].term == NO_TERM;
    return assign_lines(sc);
}

/* cqlsh's counter at the end of the file: the lines read, plus one. */
static int eof_line(const script *sc)
{
    int lines = 0;
    for (size_t i = 0; i < sc->len; i++)
        lines += sc->text[i] == '\n';
    if (sc->len && sc->text[sc->len - 1] != '\n')
        lines++;
    return lines + 1;
}

static void run_script(shell *sh)
{
    const script *sc = sh->sc;
    size_t stop_chunk = SIZE_MAX;
    for (size_t i = 0; i < sc->n; i++) {
        const stmt *s = &sc->stmts[i];
        if (!s->line || i > stop_chunk)
            break;
        run_statement(sh, s);
        if (sh->stop && stop_chunk == SIZE_MAX)
            stop_chunk = s->chunk; /* cqlsh finishes the lines it has read, then exits */
    }
    if (sc->incomplete && !sh->stop)
        report_text(sh, eof_line(sc), "Incomplete statement at end of file");
    flush_out(sh);
}

/* ------------------------------------------------------------------------ */
/* Command line                                                              */
/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs("usage: cassette DB [-e STATEMENTS | -f FILE]\n"
          "       cassette check DB\n"
          "       cassette serve (DB | --memory) [--listen ADDR] [--port N] [...]\n"
          "       cassette --version | --help\n",
          f);
}

static void help(void)
{
    usage(stdout);
    fputs("\n"
          "Runs CQL statements against the cassette database in directory DB (created\n"
          "if missing) and prints what cqlsh prints for them: SELECT results as tables,\n"
          "conditional statements as their [applied] table, nothing for the others.\n"
          "DB may also be memory: (a temporary database, gone at exit), file:DIR, or\n"
          "cql://host[:port] (a Cassandra node or a cassette serve).\n"
          "\n"
          "  -e, --execute STATEMENTS  run the statements (separated by ';') and exit\n"
          "  -f, --file FILE           run the statements in FILE and exit\n"
          "  -h, --help                show this help and exit\n"
          "  -v, --version             show the version and exit\n"
          "\n"
          "Without -e or -f the statements are read from standard input, which must not\n"
          "be a terminal. A failed statement prints FILE:LINE:ERROR on standard error\n"
          "(FILE is <stdin> for -e and standard input) and the next one runs; the exit\n"
          "status is 2 if any statement failed.\n"
          "\n"
          "cassette check DB verifies the database without changing it: every key and\n"
          "value of every table against its checksum, key order, tokens, the catalog.\n"
          "It prints what is damaged, or that nothing is; the exit status is 0 when\n"
          "nothing is damaged, 1 when something is, 2 when DB cannot be checked.\n"
          "\n"
          "cassette serve DB (or --memory, a temporary database) serves the database\n"
          "over Cassandra's native protocol (v3 to v5) on 127.0.0.1:9042, for the\n"
          "drivers of every language; --listen ADDR and --port N (0: a free port)\n"
          "choose where; --max-connections N, --max-frame-size BYTES and\n"
          "--max-inflight N (requests running per connection) bound what clients may\n"
          "take; --tls-cert PEM (and --tls-key PEM) make clients speak TLS, and\n"
          "--tls-client-ca PEM (with --tls-require-client-cert) checks theirs; --auth\n"
          "makes clients log in with a role (PasswordAuthenticator; the first start\n"
          "creates the superuser cassandra, password cassandra) and enforces GRANTs. It\n"
          "prints the address once listening and stops cleanly on SIGTERM or SIGINT.\n"
          "Servers on one directory (different ports or addresses) form a cluster that\n"
          "drivers discover through system.peers; --dc NAME and --rack NAME place the\n"
          "node (datacenter1, rack1), --broadcast-address ADDR names it to drivers.\n"
          "\n"
          "Environment:\n"
          "  CASSETTE_DURABILITY  when a commit reaches the disk:\n"
          "                       sync        (default) every commit is on disk when it returns\n"
          "                       nometasync  one sync per commit; a power loss may undo the\n"
          "                                   last commit\n"
          "                       periodic    as nometasync, and the last commit is synced\n"
          "                                   fully within the sync period\n"
          "                       none        no sync (tests); a power loss may corrupt the\n"
          "                                   database\n",
          stdout);
}

static int usage_error(const char *what, const char *arg)
{
    usage(stderr);
    fprintf(stderr, "cassette: error: %s%s\n", what, arg ? arg : "");
    return 2;
}

/* Returns -1 to go on, or the exit status (help, version, usage error). */
static int parse_args(int argc, char **argv, options *opt)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help();
            return 0;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--version")) {
            printf("cassette %s\n", cassette_version());
            return 0;
        } else if (!strcmp(a, "-e") || !strcmp(a, "--execute") || !strcmp(a, "-f") ||
                   !strcmp(a, "--file")) {
            int is_execute = !strcmp(a, "-e") || !strcmp(a, "--execute");
            if (i + 1 == argc)
                return usage_error("missing argument after ", a);
            if (opt->execute || opt->file)
                return usage_error("give one of -e and -f, once", NULL);
            if (is_execute)
                opt->execute = argv[++i];
            else
                opt->file = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option ", a);
        } else if (opt->db) {
            return usage_error("unexpected argument ", a);
        } else {
            opt->db = a;
        }
    }
    return opt->db ? -1 : usage_error("missing the database directory", NULL);
}

static int read_stream(FILE *f, eng_buf *b)
{
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        eng_buf_put(b, chunk, n);
    return ferror(f) ? EIO : b->oom ? ENOMEM : 0;
}

/* The script's text and name; 0, or the exit status after a message. */
static int load_script(const options *opt, script *sc, eng_buf *text)
{
    sc->name = "<stdin>";
    if (opt->execute) {
        sc->text = opt->execute;
        sc->len = strlen(opt->execute);
        sc->one_line = 1;
        return 0;
    }
    if (!opt->file && isatty(STDIN_FILENO))
        return usage_error("give -e or -f (there is no interactive mode yet)", NULL);
    FILE *f = opt->file ? fopen(opt->file, "rb") : stdin;
    int rc = f ? read_stream(f, text) : errno;
    if (f && f != stdin)
        fclose(f);
    if (rc) {
        fprintf(stderr, "Can't open '%s': %s\n", opt->file ? opt->file : "<stdin>", strerror(rc));
        return 1;
    }
    sc->name = opt->file ? opt->file : "<stdin>";
    sc->text = text->p ? (const char *)text->p : "";
    sc->len = text->len;
    if (sc->len >= 3 && memcmp(sc->text, "\xEF\xBB\xBF", 3) == 0) {
        sc->text += 3; /* cqlsh skips a UTF-8 byte order mark */
        sc->len -= 3;
    }
    return 0;
}

/*
 * Connects a session to the database directory: the driver opens it (creating
 * it if missing) with the durability CASSETTE_DURABILITY names. DB written as
 * the driver's contact points are taken as they are: cql://host[:port] is a
 * server, reached over the native protocol (the driver's remote backend);
 * memory: a temporary database, gone when the shell exits; file:DIR a
 * directory. Returns 0, or the exit status after a message.
 */
static int open_session(const options *opt, shell *sh)
{
    eng_buf contact = ENG_BUF_INIT;
    if (strncmp(opt->db, "cql://", 6) && strncmp(opt->db, "memory:", 7) &&
        strncmp(opt->db, "file:", 5))
        eng_buf_put_str(&contact, "file:");
    eng_buf_put_str(&contact, opt->db);
    sh->cluster = cass_cluster_new();
    sh->session = cass_session_new();
    if (!eng_buf_cstr(&contact) || !sh->cluster || !sh->session ||
        cass_cluster_set_contact_points_n(sh->cluster, (const char *)contact.p, contact.len) !=
            CASS_OK) {
        eng_buf_free(&contact);
        fputs("cassette: out of memory\n", stderr);
        return 1;
    }
    eng_buf_free(&contact);
    CassFuture *f = cass_session_connect(sh->session, sh->cluster);
    int rc = 0;
    if (cass_future_error_code(f) != CASS_OK) {
        const char *msg;
        size_t len;
        cass_future_error_message(f, &msg, &len);
        fprintf(stderr, "cassette: %s: %.*s\n", opt->db, (int)ENG_MIN(len, 4096), msg);
        cass_session_free(sh->session); /* never connected: nothing to close */
        sh->session = NULL;
        rc = 1;
    }
    cass_future_free(f);
    return rc;
}

/* Closes the session (its pending writes reach the database first) and frees the driver's. */
static void close_session(shell *sh)
{
    if (sh->session) {
        CassFuture *f = cass_session_close(sh->session);
        cass_future_wait(f);
        cass_future_free(f);
        cass_session_free(sh->session);
    }
    cass_cluster_free(sh->cluster);
}

/*
 * `cassette check DB`: cassette_check in a child process, so that damage
 * LMDB's own code faults on is reported as damage instead of killing the
 * shell. Exit status 0 intact, 1 damaged, 2 not checked.
 */
static int run_check(const char *db)
{
    int fds[2];
    if (pipe(fds)) {
        perror("cassette: pipe");
        return 2;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("cassette: fork");
        return 2;
    }
    if (pid == 0) {
        close(fds[0]);
        static char report[1 << 16];
        int rc = cassette_check(db, report, sizeof report);
        size_t n = strlen(report), done = 0;
        while (done < n) {
            ssize_t w = write(fds[1], report + done, n - done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        _exit(rc == CASS_OK ? 0 : rc == CASS_ERROR_SERVER_SERVER_ERROR ? 1 : 2);
    }
    close(fds[1]);
    eng_buf out = ENG_BUF_INIT;
    char chunk[4096];
    ssize_t n;
    while ((n = read(fds[0], chunk, sizeof chunk)) > 0)
        eng_buf_put(&out, chunk, (size_t)n);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int rc;
    if (WIFSIGNALED(status)) {
        printf("%s: damaged: the check died of signal %d following LMDB's pages (their "
               "structure is damaged)\n",
               db, WTERMSIG(status));
        rc = 1;
    } else {
        rc = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
        const char *text = eng_buf_cstr(&out);
        if (rc == 0) {
            printf("%s: no damage found\n", db);
        } else {
            FILE *to = rc == 1 ? stdout : stderr;
            for (const char *line = text; line && *line;) {
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                fprintf(to, "%s: %s%.*s\n", db, rc == 1 ? "damaged: " : "", (int)len, line);
                line += len + (nl != NULL);
            }
        }
    }
    eng_buf_free(&out);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "serve"))
        return cql_shell_serve(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "check")) {
        if (argc != 3)
            return usage_error("cassette check takes one database directory", NULL);
        return run_check(argv[2]);
    }
    options opt = {0};
    int rc = parse_args(argc, argv, &opt);
    if (rc >= 0)
        return rc;
    cql_shell_log_install(); /* before any call that may log */
    script sc = {0};
    eng_buf text = ENG_BUF_INIT;
    shell sh = {.sc = &sc, .out = ENG_BUF_INIT};
    if ((rc = load_script(&opt, &sc, &text)) || (rc = open_session(&opt, &sh)))
        goto done;
    if (split_script(&sc)) {
        fputs("cassette: out of memory\n", stderr);
        rc = 1;
        goto done;
    }
    run_script(&sh);
    rc = sh.failed ? 2 : 0;
done:
    fflush(stdout);
    eng_buf_free(&sh.out);
    close_session(&sh);
    cql_shell_log_release();
    eng_free(sc.stmts);
    eng_buf_free(&text);
    return rc;
}
