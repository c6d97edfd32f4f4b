/*
 * cqlsh's output, byte for byte: the tables print_formatted_result draws
 * (bin/cqlsh.py), the error lines printerr writes, and the column widths
 * its wcwidth gives, from CassResult and CassFuture alone. Values are
 * rendered by cql/shell/render.c, which follows cqlshlib/formatting.py;
 * this file only lays them out.
 *
 * A page is laid out in two passes: every name and value is rendered once
 * into one buffer (remembering where each starts and how wide it shows),
 * then the lines are written with each column padded to its widest entry.
 */
#include "cql/shell/format.h"
#include "cql/errors.h"
#include "cql/shell/render.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* Display width (cqlshlib/wcwidth.py: Markus Kuhn's wcwidth, Unicode 5.0)   */
/* ------------------------------------------------------------------------ */

typedef struct cp_range {
    uint32_t lo, hi;
} cp_range;

/*
 * Zero-width code points: Unicode 5.0 categories Mn, Me and Cf, without
 * U+00AD (SOFT HYPHEN, one column) and with the Hangul medial vowels and
 * final consonants U+1160-11FF and U+200B. The same set cqlsh uses, so a
 * table with accents or joiners lines up as it does in cqlsh.
 */
static const cp_range zero_width[] = {
    {0x0300, 0x036F},   {0x0483, 0x0486},   {0x0488, 0x0489},   {0x0591, 0x05BD},
    {0x05BF, 0x05BF},   {0x05C1, 0x05C2},   {0x05C4, 0x05C5},   {0x05C7, 0x05C7},
    {0x0600, 0x0603},   {0x0610, 0x0615},   {0x064B, 0x065E},   {0x0670, 0x0670},
    {0x06D6, 0x06E4},   {0x06E7, 0x06E8},   {0x06EA, 0x06ED},   {0x070F, 0x070F},
    {0x0711, 0x0711},   {0x0730, 0x074A},   {0x07A6, 0x07B0},   {0x07EB, 0x07F3},
    {0x0901, 0x0902},   {0x093C, 0x093C},   {0x0941, 0x0948},   {0x094D, 0x094D},
    {0x0951, 0x0954},   {0x0962, 0x0963},   {0x0981, 0x0981},   {0x09BC, 0x09BC},
    {0x09C1, 0x09C4},   {0x09CD, 0x09CD},   {0x09E2, 0x09E3},   {0x0A01, 0x0A02},
    {0x0A3C, 0x0A3C},   {0x0A41, 0x0A42},   {0x0A47, 0x0A48},   {0x0A4B, 0x0A4D},
    {0x0A70, 0x0A71},   {0x0A81, 0x0A82},   {0x0ABC, 0x0ABC},   {0x0AC1, 0x0AC5},
    {0x0AC7, 0x0AC8},   {0x0ACD, 0x0ACD},   {0x0AE2, 0x0AE3},   {0x0B01, 0x0B01},
    {0x0B3C, 0x0B3C},   {0x0B3F, 0x0B3F},   {0x0B41, 0x0B43},   {0x0B4D, 0x0B4D},
    {0x0B56, 0x0B56},   {0x0B82, 0x0B82},   {0x0BC0, 0x0BC0},   {0x0BCD, 0x0BCD},
    {0x0C3E, 0x0C40},   {0x0C46, 0x0C48},   {0x0C4A, 0x0C4D},   {0x0C55, 0x0C56},
    {0x0CBC, 0x0CBC},   {0x0CBF, 0x0CBF},   {0x0CC6, 0x0CC6},   {0x0CCC, 0x0CCD},
    {0x0CE2, 0x0CE3},   {0x0D41, 0x0D43},   {0x0D4D, 0x0D4D},   {0x0DCA, 0x0DCA},
    {0x0DD2, 0x0DD4},   {0x0DD6, 0x0DD6},   {0x0E31, 0x0E31},   {0x0E34, 0x0E3A},
    {0x0E47, 0x0E4E},   {0x0EB1, 0x0EB1},   {0x0EB4, 0x0EB9},   {0x0EBB, 0x0EBC},
    {0x0EC8, 0x0ECD},   {0x0F18, 0x0F19},   {0x0F35, 0x0F35},   {0x0F37, 0x0F37},
    {0x0F39, 0x0F39},   {0x0F71, 0x0F7E},   {0x0F80, 0x0F84},   {0x0F86, 0x0F87},
    {0x0F90, 0x0F97},   {0x0F99, 0x0FBC},   {0x0FC6, 0x0FC6},   {0x102D, 0x1030},
    {0x1032, 0x1032},   {0x1036, 0x1037},   {0x1039, 0x1039},   {0x1058, 0x1059},
    {0x1160, 0x11FF},   {0x135F, 0x135F},   {0x1712, 0x1714},   {0x1732, 0x1734},
    {0x1752, 0x1753},   {0x1772, 0x1773},   {0x17B4, 0x17B5},   {0x17B7, 0x17BD},
    {0x17C6, 0x17C6},   {0x17C9, 0x17D3},   {0x17DD, 0x17DD},   {0x180B, 0x180D},
    {0x18A9, 0x18A9},   {0x1920, 0x1922},   {0x1927, 0x1928},   {0x1932, 0x1932},
    {0x1939, 0x193B},   {0x1A17, 0x1A18},   {0x1B00, 0x1B03},   {0x1B34, 0x1B34},
    {0x1B36, 0x1B3A},   {0x1B3C, 0x1B3C},   {0x1B42, 0x1B42},   {0x1B6B, 0x1B73},
    {0x1DC0, 0x1DCA},   {0x1DFE, 0x1DFF},   {0x200B, 0x200F},   {0x202A, 0x202E},
    {0x2060, 0x2063},   {0x206A, 0x206F},   {0x20D0, 0x20EF},   {0x302A, 0x302F},
    {0x3099, 0x309A},   {0xA806, 0xA806},   {0xA80B, 0xA80B},   {0xA825, 0xA826},
    {0xFB1E, 0xFB1E},   {0xFE00, 0xFE0F},   {0xFE20, 0xFE23},   {0xFEFF, 0xFEFF},
    {0xFFF9, 0xFFFB},   {0x10A01, 0x10A03}, {0x10A05, 0x10A06}, {0x10A0C, 0x10A0F},
    {0x10A38, 0x10A3A}, {0x10A3F, 0x10A3F}, {0x1D167, 0x1D169}, {0x1D173, 0x1D182},
    {0x1D185, 0x1D18B}, {0x1D1AA, 0x1D1AD}, {0x1D242, 0x1D244}, {0xE0001, 0xE0001},
    {0xE0020, 0xE007F}, {0xE0100, 0xE01EF},
};

/* Two-column code points: East Asian Wide and Full-width (UAX #11) as cqlsh has them. */
static const cp_range wide[] = {
    {0x1100, 0x115F},   /* Hangul Jamo initial consonants */
    {0x2329, 0x232A},   /* angle brackets */
    {0x2E80, 0x303E},   /* CJK radicals .. CJK symbols (U+303F is narrow) */
    {0x3040, 0xA4CF},   /* kana .. CJK ideographs .. Yi */
    {0xAC00, 0xD7A3},   /* Hangul syllables */
    {0xF900, 0xFAFF},   /* CJK compatibility ideographs */
    {0xFE10, 0xFE19},   /* vertical forms */
    {0xFE30, 0xFE6F},   /* CJK compatibility forms */
    {0xFF00, 0xFF60},   /* full-width forms */
    {0xFFE0, 0xFFE6},   /* full-width signs */
    {0x20000, 0x2FFFD}, /* CJK extension planes */
    {0x30000, 0x3FFFD},
};

static int in_ranges(uint32_t c, const cp_range *r, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c > r[mid].hi)
            lo = mid + 1;
        else if (c < r[mid].lo)
            hi = mid;
        else
            return 1;
    }
    return 0;
}

static int char_width(uint32_t c)
{
    if (c == 0)
        return 0;
    if (c < 0x20 || (c >= 0x7F && c < 0xA0))
        return -1;
    if (in_ranges(c, zero_width, ENG_ARRAY_LEN(zero_width)))
        return 0;
    return in_ranges(c, wide, ENG_ARRAY_LEN(wide)) ? 2 : 1;
}

/* Decodes one code point; a byte that does not start valid UTF-8 stands for itself. */
static size_t utf8_decode(const uint8_t *p, size_t len, uint32_t *cp)
{
    size_t n = p[0] < 0x80             ? 1
               : (p[0] & 0xE0) == 0xC0 ? 2
               : (p[0] & 0xF0) == 0xE0 ? 3
               : (p[0] & 0xF8) == 0xF0 ? 4
                                       : 0;
    if (n == 1 || n == 0 || n > len) {
        *cp = n == 1 ? p[0] : 0xFFFD;
        return 1;
    }
    uint32_t c = p[0] & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        c = c << 6 | (p[i] & 0x3Fu);
    }
    *cp = c;
    return n;
}

int cql_display_width(const char *s, size_t len)
{
    const uint8_t *p = (const uint8_t *)s;
    int width = 0;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        i += utf8_decode(p + i, len - i, &c);
        int w = char_width(c);
        if (w < 0)
            return -1; /* wcswidth: a control character makes the whole string unmeasurable */
        width += w;
    }
    return width;
}

/* ------------------------------------------------------------------------ */
/* Tables (print_formatted_result)                                           */
/* ------------------------------------------------------------------------ */

/* A rendered name or value: where its text lies in the page's buffer. */
typedef struct cell {
    size_t off;
    size_t len;
    int width; /* display columns */
} cell;

/* One page, rendered: names first (n_cols cells), then the values row by row. */
typedef struct page {
    size_t n_cols, n_rows;
    eng_buf text;
    cell *cells;
    int *widths; /* per column: the widest of its name and values */
} page;

/* Closes the cell whose text starts at off, measuring it. */
static void end_cell(page *pg, cell *c, size_t off)
{
    c->off = off;
    c->len = pg->text.oom ? 0 : pg->text.len - off;
    c->width =
        pg->text.oom ? 0 : cql_display_width((const char *)eng_buf_at(&pg->text, off), c->len);
}

/* cqlsh shows a column name through the text formatter (escapes included). */
static void render_names(page *pg, const CassResult *r)
{
    for (size_t i = 0; i < pg->n_cols; i++) {
        const char *name = "";
        size_t len = 0;
        if (cass_result_column_name(r, i, &name, &len) != CASS_OK)
            len = 0;
        size_t off = pg->text.len;
        cql_render_text(name, len, &pg->text);
        end_cell(pg, &pg->cells[i], off);
        pg->widths[i] = pg->cells[i].width;
    }
}

static void render_row(page *pg, const CassRow *row, cell *cells)
{
    for (size_t i = 0; i < pg->n_cols; i++) {
        size_t off = pg->text.len;
        cql_render_value(cass_row_get_column(row, i), &pg->text);
        end_cell(pg, &cells[i], off);
        pg->widths[i] = ENG_MAX(pg->widths[i], cells[i].width);
    }
}

static int page_render(page *pg, const CassResult *r)
{
    pg->cells = eng_calloc((pg->n_rows + 1) * pg->n_cols, sizeof *pg->cells);
    pg->widths = eng_calloc(pg->n_cols, sizeof *pg->widths);
    if (!pg->cells || !pg->widths)
        return -1;
    render_names(pg, r);
    if (!pg->n_rows)
        return pg->text.oom ? -1 : 0;
    CassIterator *it = cass_iterator_from_result(r);
    if (!it)
        return -1;
    for (size_t row = 0; row < pg->n_rows && cass_iterator_next(it); row++)
        render_row(pg, cass_iterator_get_row(it), pg->cells + (row + 1) * pg->n_cols);
    cass_iterator_free(it);
    return pg->text.oom ? -1 : 0;
}

static void put_repeat(eng_buf *out, char ch, int n)
{
    for (int i = 0; i < n; i++)
        eng_buf_put_u8(out, (uint8_t)ch);
}

/* A cell padded to its column: ljust for names, rjust for values (FormattedValue). */
static void put_cell(eng_buf *out, const page *pg, const cell *c, int width, int left)
{
    int pad = width > c->width ? width - c->width : 0;
    if (!left)
        put_repeat(out, ' ', pad);
    eng_buf_put(out, eng_buf_at(&pg->text, c->off), c->len);
    if (left)
        put_repeat(out, ' ', pad);
}

/* " name | name" right-stripped, then "-----+-----". */
static void put_header(eng_buf *out, const page *pg)
{
    size_t n = pg->n_cols;
    size_t start = out->len;
    eng_buf_put_u8(out, ' ');
    for (size_t i = 0; i < n; i++) {
        if (i)
            eng_buf_put_str(out, " | ");
        put_cell(out, pg, &pg->cells[i], pg->widths[i], 1);
    }
    while (!out->oom && out->len > start && out->p[out->len - 1] == ' ')
        out->len--;
    eng_buf_put_u8(out, '\n');
    eng_buf_put_u8(out, '-');
    for (size_t i = 0; i < n; i++) {
        if (i)
            eng_buf_put_str(out, "-+-");
        put_repeat(out, '-', pg->widths[i]);
    }
    eng_buf_put_str(out, "-\n");
}

static void put_rows(eng_buf *out, const page *pg)
{
    size_t n = pg->n_cols;
    for (size_t row = 0; row < pg->n_rows; row++) {
        const cell *cells = pg->cells + (row + 1) * n;
        eng_buf_put_u8(out, ' ');
        for (size_t i = 0; i < n; i++) {
            if (i)
                eng_buf_put_str(out, " | ");
            put_cell(out, pg, &cells[i], pg->widths[i], 0);
        }
        eng_buf_put_u8(out, '\n');
    }
}

void cql_format_page(const CassResult *r, int with_header, eng_buf *out)
{
    /* print_static_result: a result without column metadata prints nothing */
    size_t n_cols = cass_result_column_count(r);
    if (n_cols == 0)
        return;
    page pg = {.n_cols = n_cols, .n_rows = cass_result_row_count(r), .text = ENG_BUF_INIT};
    if (page_render(&pg, r)) {
        out->oom = 1;
    } else {
        /* a page without rows is only ever the first one, and gets its header */
        if (with_header || pg.n_rows == 0)
            put_header(out, &pg);
        if (pg.n_rows == 0)
            eng_buf_put_u8(out, '\n');
        else
            put_rows(out, &pg);
    }
    eng_buf_free(&pg.text);
    eng_free(pg.cells);
    eng_free(pg.widths);
}

void cql_format_empty_page(const char *const *names, size_t n, eng_buf *out)
{
    eng_buf_put_u8(out, ' ');
    for (size_t i = 0; i < n; i++)
        eng_buf_printf(out, i + 1 < n ? "%s | " : "%s", names[i]);
    eng_buf_put_str(out, "\n-");
    for (size_t i = 0; i < n; i++) {
        if (i)
            eng_buf_put_str(out, "-+-");
        put_repeat(out, '-', strlen(names[i]));
    }
    eng_buf_put_str(out, "-\n\n");
}

void cql_format_row_count(uint64_t n_rows, eng_buf *out)
{
    eng_buf_printf(out, "\n(%llu rows)\n", (unsigned long long)n_rows);
}

void cql_format_result(const CassResult *r, int lwt, eng_buf *out)
{
    /* only rows have columns; writes, USE and schema changes print nothing */
    if (cass_result_column_count(r) == 0)
        return;
    /* cqlsh prints a conditional result only when it has rows (ResultSet is falsy otherwise) */
    if (lwt && cass_result_row_count(r) == 0)
        return;
    eng_buf_put_u8(out, '\n');
    cql_format_page(r, 1, out);
    if (!lwt)
        cql_format_row_count(cass_result_row_count(r), out);
}

void cql_format_warnings(const char *const *warnings, size_t n, eng_buf *out)
{
    if (n == 0)
        return;
    eng_buf_put_str(out, "\nWarnings :\n");
    for (size_t i = 0; i < n; i++) {
        eng_buf_put_str(out, warnings[i]);
        eng_buf_put_str(out, "\n\n");
    }
}

/* ------------------------------------------------------------------------ */
/* Errors (perform_simple_statement + printerr)                              */
/* ------------------------------------------------------------------------ */

/*
 * The Python driver's exception for an error. Codes with a summary are
 * turned into exceptions whose text is the whole "Error from server: ..."
 * frame (to_exception(self.summary_msg())); the others are raised as the
 * error message itself, and cqlsh prints its `message` attribute: the
 * server's text alone.
 */
typedef struct error_kind {
    CassError code;
    int protocol_code;
    const char *class_name;
    const char *summary; /* NULL: printed as the bare message */
} error_kind;

/* The driver and cqlsh columns of cql/errors.h (the first row of a CassError wins). */
static const error_kind error_kinds[] = {
#define KIND_ROW(eng, proto, name, cass, cls, summary) {cass, proto, cls, summary},
    CQL_ERRORS(KIND_ROW)
#undef KIND_ROW
};

static const error_kind *find_error_kind(CassError code)
{
    static const error_kind unknown = {CASS_OK, -1, "ErrorMessage", NULL};
    for (size_t i = 0; i < ENG_ARRAY_LEN(error_kinds); i++)
        if (error_kinds[i].code == code)
            return &error_kinds[i];
    return &unknown;
}

/* The driver's AlreadyExists builds its own text from the error's keyspace and table. */
static void put_already_exists(const cql_failure *f, eng_buf *out)
{
    int ks_len = (int)ENG_MIN(f->keyspace ? f->keyspace_len : 0, 4096);
    int table_len = (int)ENG_MIN(f->table ? f->table_len : 0, 4096);
    const char *ks = f->keyspace ? f->keyspace : "";
    if (table_len)
        eng_buf_printf(out, "AlreadyExists: Table '%.*s.%.*s' already exists\n", ks_len, ks,
                       table_len, f->table);
    else
        eng_buf_printf(out, "AlreadyExists: Keyspace '%.*s' already exists\n", ks_len, ks);
}

void cql_format_error(const char *file, int line, const cql_failure *f, eng_buf *out)
{
    eng_buf_printf(out, "%s:%d:", file, line);
    if (f->code == CASS_ERROR_SERVER_ALREADY_EXISTS) {
        put_already_exists(f, out);
        return;
    }
    const error_kind *k = find_error_kind(f->code);
    const char *msg = f->message ? f->message : "";
    size_t msg_len = f->message ? f->message_len : 0;
    if (k->summary)
        eng_buf_printf(out, "%s: Error from server: code=%04x [%s] message=\"", k->class_name,
                       (unsigned)k->protocol_code, k->summary);
    else
        eng_buf_printf(out, "%s: ", k->class_name);
    eng_buf_put(out, msg, msg_len);
    eng_buf_put_str(out, k->summary ? "\"\n" : "\n");
}

void cql_format_future_error(const char *file, int line, CassFuture *future, eng_buf *out)
{
    cql_failure f = {cass_future_error_code(future), NULL, 0, NULL, 0, NULL, 0};
    cass_future_error_message(future, &f.message, &f.message_len);
    const CassErrorResult *e = NULL;
    if (f.code == CASS_ERROR_SERVER_ALREADY_EXISTS && (e = cass_future_get_error_result(future))) {
        if (cass_error_result_keyspace(e, &f.keyspace, &f.keyspace_len) != CASS_OK)
            f.keyspace = NULL;
        if (cass_error_result_table(e, &f.table, &f.table_len) != CASS_OK)
            f.table = NULL;
    }
    cql_format_error(file, line, &f, out);
    cass_error_result_free(e);
}
