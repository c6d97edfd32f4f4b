/*
 * email: the email system from the command line, one query or write per run, over the data
 * layer of email.h. The database is a directory (DIR or file:DIR), memory: (gone at exit),
 * or a Cassandra node or cassette serve (cql://HOST:PORT, or hosts).
 *
 *   email DB folders USER                        Q1 and Q2: labels, colors, unread counts
 *   email DB list USER LABEL [N]                 Q3: the N newest emails of a folder (20)
 *   email DB show ID                             Q4: one email
 *   email DB attachment ID FILENAME [OUT]        Q6: an attachment, written to OUT
 *   email DB send FROM TO[,TO...] SUBJECT BODY [-l LABEL]... [-a FILE]...
 *   email DB read USER ID | email DB unread USER ID
 *   email DB folder USER LABEL COLOR
 */
#include "email.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int usage(void)
{
    fprintf(stderr, "usage: email DB folders USER\n"
                    "       email DB list USER LABEL [N]\n"
                    "       email DB show ID\n"
                    "       email DB attachment ID FILENAME [OUT]\n"
                    "       email DB send FROM TO[,TO...] SUBJECT BODY [-l LABEL]... [-a FILE]...\n"
                    "       email DB read USER ID\n"
                    "       email DB unread USER ID\n"
                    "       email DB folder USER LABEL COLOR\n"
                    "DB is DIR, file:DIR, memory:, cql://HOST:PORT or hosts.\n");
    return 2;
}

static int die(const char *what, const char *err)
{
    fprintf(stderr, "email: %s: %s\n", what, err);
    return 1;
}

static int parse_id(const char *s, CassUuid *id)
{
    if (cass_uuid_from_string(s, id) != CASS_OK) {
        fprintf(stderr, "email: not a uuid: %s\n", s);
        return -1;
    }
    return 0;
}

static void print_time(int64_t time_us)
{
    time_t t = (time_t)(time_us / 1000000);
    struct tm tm;
    char buf[32];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    printf("%s", buf);
}

static int cmd_folders(em_db *db, const char *user, char *err, size_t cap)
{
    em_folder *f, *u;
    size_t n, nu;
    if (em_folders(db, user, &f, &n, err, cap) != EM_OK)
        return die("folders", err);
    if (em_unread_counts(db, user, &u, &nu, err, cap) != EM_OK) {
        em_folders_free(f, n);
        return die("unread counts", err);
    }
    for (size_t i = 0; i < n; i++) {
        int64_t unread = 0;
        for (size_t j = 0; j < nu; j++)
            if (strcmp(u[j].label, f[i].label) == 0)
                unread = u[j].num_unread;
        printf("%-16s %-8s %lld unread\n", f[i].label, *f[i].color ? f[i].color : "-",
               (long long)unread);
    }
    em_folders_free(f, n);
    em_folders_free(u, nu);
    return 0;
}

static int cmd_list(em_db *db, const char *user, const char *label, size_t want, char *err,
                    size_t cap)
{
    em_cursor cur = EM_CURSOR_INIT;
    size_t shown = 0;
    while (shown < want && !cur.done) {
        em_summary *s;
        size_t n;
        size_t page = want - shown < 50 ? want - shown : 50;
        if (em_folder_page(db, user, label, page, &cur, &s, &n, err, cap) != EM_OK)
            return die("list", err);
        for (size_t i = 0; i < n; i++) {
            char id[CASS_UUID_STRING_LENGTH];
            cass_uuid_string(s[i].id, id);
            printf("%s %c ", id, s[i].is_read ? ' ' : '*');
            print_time(s[i].time_us);
            printf("  %-20s %s\n", s[i].from, s[i].subject);
        }
        shown += n;
        em_summaries_free(s, n);
    }
    return 0;
}

static int cmd_show(em_db *db, const char *ids, char *err, size_t cap)
{
    CassUuid id;
    em_email *m;
    if (parse_id(ids, &id) != 0)
        return 1;
    if (em_email_get(db, id, &m, err, cap) != EM_OK)
        return die("show", err);
    printf("From:    %s\nTo:      ", m->from);
    for (size_t i = 0; i < m->n_to; i++)
        printf("%s%s", i ? ", " : "", m->to[i]);
    printf("\nDate:    ");
    print_time(m->time_us);
    printf(" UTC\nSubject: %s\n", m->subject);
    for (size_t i = 0; i < m->n_attachments; i++)
        printf("Attached: %s (%d bytes)\n", m->attachments[i].filename,
               (int)m->attachments[i].size);
    printf("\n%s\n", m->body);
    em_email_free(m);
    return 0;
}

static int cmd_attachment(em_db *db, const char *ids, const char *name, const char *out, char *err,
                          size_t cap)
{
    CassUuid id;
    em_blob b;
    if (parse_id(ids, &id) != 0)
        return 1;
    if (em_attachment_get(db, id, name, &b, err, cap) != EM_OK)
        return die("attachment", err);
    int rc = 0;
    if (out) {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
            perror(out);
            rc = 1;
        }
    }
    printf("%s: %zu bytes, %s, %zu chunk(s)\n", name, b.len, b.type,
           b.len ? (b.len + EM_CHUNK_BYTES - 1) / EM_CHUNK_BYTES : 1);
    em_blob_free(&b);
    return rc;
}

/* The bytes of a file, in a new buffer. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, capacity = 0;
    for (;;) {
        if (n == capacity) {
            capacity = capacity ? capacity * 2 : 65536;
            uint8_t *b = realloc(buf, capacity);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, capacity - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int cmd_send(em_db *db, int argc, char **argv, char *err, size_t cap)
{
    /* argv: FROM TO SUBJECT BODY [-l LABEL]... [-a FILE]... */
    if (argc < 4)
        return usage();
    const char *labels[32];
    em_file files[32];
    size_t nl = 0, nf = 0;
    int rc = 0;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "-l") == 0 && i + 1 < argc && nl < 32) {
            labels[nl++] = argv[++i];
        } else if (strcmp(argv[i], "-a") == 0 && i + 1 < argc && nf < 32) {
            const char *path = argv[++i];
            const char *base = strrchr(path, '/');
            files[nf] = (em_file){base ? base + 1 : path, "application/octet-stream", NULL, 0};
            uint8_t *data = slurp(path, &files[nf].len);
            if (!data) {
                perror(path);
                rc = 1;
                break;
            }
            files[nf++].data = data;
        } else {
            rc = usage();
            break;
        }
    }
    em_rcpt to[32];
    size_t nt = 0;
    char *list = strdup(argv[1]);
    for (char *save = NULL, *p = strtok_r(list, ",", &save); p && nt < 32;
         p = strtok_r(NULL, ",", &save))
        to[nt++] = (em_rcpt){p, nl ? labels : NULL, nl};
    if (rc == 0) {
        em_draft d = {.from = argv[0],
                      .to = to,
                      .n_to = nt,
                      .subject = argv[2],
                      .body = argv[3],
                      .files = files,
                      .n_files = nf};
        CassUuid id;
        if (em_send(db, &d, &id, err, cap) != EM_OK) {
            rc = die("send", err);
        } else {
            char s[CASS_UUID_STRING_LENGTH];
            cass_uuid_string(id, s);
            printf("%s\n", s);
        }
    }
    free(list);
    for (size_t i = 0; i < nf; i++)
        free((void *)files[i].data);
    return rc;
}

static int cmd_mark(em_db *db, const char *user, const char *ids, int read, char *err, size_t cap)
{
    CassUuid id;
    int changed;
    if (parse_id(ids, &id) != 0)
        return 1;
    if (em_mark_read(db, user, id, read, &changed, err, cap) != EM_OK)
        return die(read ? "read" : "unread", err);
    printf("%d folder(s) changed\n", changed);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    char contact[4096];
    struct stat st;
    const char *db_arg = argv[1], *cmd = argv[2];
    if (strncmp(db_arg, "memory:", 7) == 0 || strncmp(db_arg, "file:", 5) == 0 ||
        strncmp(db_arg, "cql://", 6) == 0 || (!strchr(db_arg, '/') && stat(db_arg, &st) != 0))
        snprintf(contact, sizeof contact, "%s", db_arg);
    else
        snprintf(contact, sizeof contact, "file:%s", db_arg);

    char err[1024];
    em_db *db;
    em_options o = {.create_schema = 1};
    if (em_open(contact, &o, &db, err, sizeof err) != EM_OK)
        return die(db_arg, err);
    int rc;
    int n = argc - 3;
    char **a = argv + 3;
    if (strcmp(cmd, "folders") == 0 && n == 1)
        rc = cmd_folders(db, a[0], err, sizeof err);
    else if (strcmp(cmd, "list") == 0 && (n == 2 || n == 3))
        rc = cmd_list(db, a[0], a[1], n == 3 ? (size_t)strtoul(a[2], NULL, 10) : 20, err,
                      sizeof err);
    else if (strcmp(cmd, "show") == 0 && n == 1)
        rc = cmd_show(db, a[0], err, sizeof err);
    else if (strcmp(cmd, "attachment") == 0 && (n == 2 || n == 3))
        rc = cmd_attachment(db, a[0], a[1], n == 3 ? a[2] : NULL, err, sizeof err);
    else if (strcmp(cmd, "send") == 0)
        rc = cmd_send(db, n, a, err, sizeof err);
    else if ((strcmp(cmd, "read") == 0 || strcmp(cmd, "unread") == 0) && n == 2)
        rc = cmd_mark(db, a[0], a[1], strcmp(cmd, "read") == 0, err, sizeof err);
    else if (strcmp(cmd, "folder") == 0 && n == 3)
        rc = em_folder_create(db, a[0], a[1], a[2], err, sizeof err) == EM_OK ? 0
                                                                              : die("folder", err);
    else
        rc = usage();
    em_close(db);
    return rc;
}
