/*
 * groupchat: group conversations from the command line, each user reading only what was sent
 * while a member.
 *
 *   groupchat DB join USER CONV             join, for the first time or again (prints the instant)
 *   groupchat DB leave USER CONV            leave (prints the instant)
 *   groupchat DB send USER CONV TEXT        send a message (prints its id)
 *   groupchat DB read USER CONV [N [CURSOR]]  one page of N (20), newest first, then the cursor
 *                                           of the next page and the partitions read
 *   groupchat DB history USER CONV [N]      every page of N
 *   groupchat DB presence USER CONV         the user's presence intervals
 *   groupchat DB list USER                  the user's conversations
 *
 * DB is a contact point as cassandra.h takes it: "file:DIR", "memory:" or hosts (cql://HOST:PORT
 * for one server). GROUPCHAT_TIME=YYYY-MM-DDTHH:MM:SS[.mmm] (UTC) sets the instant at which
 * the command happens, to build a history across months and years from the shell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/cqlutil.h"
#include "groupchat.h"

static void usage(void)
{
    fprintf(stderr, "usage: groupchat DB join USER CONV\n"
                    "       groupchat DB leave USER CONV\n"
                    "       groupchat DB send USER CONV TEXT\n"
                    "       groupchat DB read USER CONV [PAGE_SIZE [CURSOR]]\n"
                    "       groupchat DB history USER CONV [PAGE_SIZE]\n"
                    "       groupchat DB presence USER CONV\n"
                    "       groupchat DB list USER\n"
                    "GROUPCHAT_TIME=YYYY-MM-DDTHH:MM:SS[.mmm] sets the time (UTC)\n");
    exit(2);
}

static const char *when(int64_t ms, char *buf, size_t cap)
{
    if (ms == INT64_MAX)
        return "now";
    time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf + n, cap - n, ".%03d", (int)(ms - (int64_t)t * 1000));
    return buf;
}

/* The instant GROUPCHAT_TIME names, parsed once. */
static int64_t fixed_time(void *arg)
{
    return *(const int64_t *)arg;
}

static int parse_time(const char *s, int64_t *out)
{
    struct tm tm = {0};
    int ms = 0;
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest)
        return 0;
    if (*rest == '.') {
        char *end;
        ms = (int)strtol(rest + 1, &end, 10);
        if (end - (rest + 1) != 3)
            return 0;
        rest = end;
    }
    if (*rest)
        return 0;
    *out = (int64_t)timegm(&tm) * 1000 + ms;
    return 1;
}

static void print_page(const gc_page *page)
{
    char ts[48];
    for (size_t i = 0; i < page->count; i++)
        printf("%s  %s: %s\n", when(page->messages[i].sent_at_ms, ts, sizeof ts),
               page->messages[i].sender, page->messages[i].body);
}

static gc_status run(gc_chat *chat, int argc, char **argv, char *err, size_t cap)
{
    const char *cmd = argv[2];
    char ts[48];
    gc_status st;
    if ((strcmp(cmd, "join") == 0 || strcmp(cmd, "leave") == 0) && argc == 5) {
        int64_t at;
        st = cmd[0] == 'j' ? gc_join(chat, argv[3], argv[4], &at, err, cap)
                           : gc_leave(chat, argv[3], argv[4], &at, err, cap);
        if (st == GC_OK)
            printf("%s\n", when(at, ts, sizeof ts));
    } else if (strcmp(cmd, "send") == 0 && argc == 6) {
        CassUuid id;
        st = gc_send(chat, argv[3], argv[4], argv[5], &id, err, cap);
        if (st == GC_OK) {
            char s[CASS_UUID_STRING_LENGTH];
            cass_uuid_string(id, s);
            printf("%s\n", s);
        }
    } else if (strcmp(cmd, "read") == 0 && argc >= 5 && argc <= 7) {
        int size = argc >= 6 ? atoi(argv[5]) : 20;
        gc_page page;
        st =
            gc_read_page(chat, argv[3], argv[4], argc == 7 ? argv[6] : NULL, size, &page, err, cap);
        if (st == GC_OK) {
            print_page(&page);
            printf("-- next: %s (%d partitions read)\n",
                   page.next_cursor[0] ? page.next_cursor : "none", page.partitions_read);
            gc_page_free(&page);
        }
    } else if (strcmp(cmd, "history") == 0 && (argc == 5 || argc == 6)) {
        int size = argc == 6 ? atoi(argv[5]) : 20;
        char cursor[GC_CURSOR_SIZE] = "";
        do {
            gc_page page;
            st = gc_read_page(chat, argv[3], argv[4], cursor, size, &page, err, cap);
            if (st != GC_OK)
                break;
            print_page(&page);
            snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
            gc_page_free(&page);
        } while (cursor[0]);
    } else if (strcmp(cmd, "presence") == 0 && argc == 5) {
        gc_interval *iv;
        size_t n;
        st = gc_presence(chat, argv[3], argv[4], &iv, &n, err, cap);
        if (st == GC_OK) {
            for (size_t i = 0; i < n; i++) {
                printf("%s", when(iv[i].from_ms, ts, sizeof ts));
                printf(" .. %s\n", when(iv[i].to_ms, ts, sizeof ts));
            }
            free(iv);
        }
    } else if (strcmp(cmd, "list") == 0 && argc == 4) {
        gc_conversation *c;
        size_t n;
        st = gc_conversations(chat, argv[3], &c, &n, err, cap);
        if (st == GC_OK) {
            for (size_t i = 0; i < n; i++)
                printf("%s\t%s\t%s%s\n", c[i].id, c[i].type,
                       c[i].member     ? "member since "
                       : c[i].since_ms ? "left "
                                       : "",
                       c[i].since_ms ? when(c[i].since_ms, ts, sizeof ts) : "");
            gc_conversations_free(c, n);
        }
    } else {
        usage();
    }
    return st;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        usage();
    int64_t at = 0;
    const char *t = getenv("GROUPCHAT_TIME");
    if (t && *t && !parse_time(t, &at)) {
        fprintf(stderr, "groupchat: GROUPCHAT_TIME is not YYYY-MM-DDTHH:MM:SS[.mmm]: %s\n", t);
        return 2;
    }
    char err[1024] = "";
    CassCluster *cluster;
    CassSession *session;
    if (cu_connect(argv[1], &cluster, &session, err, sizeof err) != CASS_OK) {
        fprintf(stderr, "groupchat: %s\n", err);
        return 1;
    }
    gc_chat *chat = NULL;
    gc_status st = gc_create_schema(session, err, sizeof err);
    if (st == GC_OK)
        st = gc_open(session, t && *t ? fixed_time : NULL, &at, &chat, err, sizeof err);
    if (st == GC_OK)
        st = run(chat, argc, argv, err, sizeof err);
    if (st != GC_OK)
        fprintf(stderr, "groupchat: %s\n",
                (st == GC_ERR_DB || st == GC_ERR_INVALID) && err[0] ? err : gc_status_text(st));
    gc_close(chat);
    cu_disconnect(cluster, session);
    return st == GC_OK ? 0 : 1;
}
