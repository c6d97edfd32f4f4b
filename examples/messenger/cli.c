/*
 * messenger: the messenger's operations from the command line.
 *
 *   messenger DB send FROM TO TEXT     send a message (prints its id)
 *   messenger DB view UID              the main view: partners, last message, unread count
 *   messenger DB history A B [N]       the conversation, newest first, N per page (all pages)
 *   messenger DB read READER PARTNER   mark what PARTNER sent READER as read
 *
 * DB is a contact point as cassandra.h takes it: "file:DIR", "memory:" or hosts (cql://HOST:PORT
 * for one server). Users are numbers, as in the original design.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/cqlutil.h"
#include "messenger.h"

static void usage(void)
{
    fprintf(stderr, "usage: messenger DB send FROM TO TEXT\n"
                    "       messenger DB view UID\n"
                    "       messenger DB history A B [PAGE_SIZE]\n"
                    "       messenger DB read READER PARTNER\n");
    exit(2);
}

static int64_t user(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*s == '\0' || *end != '\0') {
        fprintf(stderr, "messenger: not a user id: %s\n", s);
        exit(2);
    }
    return v;
}

static const char *when(int64_t micros, char *buf, size_t cap)
{
    time_t t = (time_t)(micros / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

static int run(ms_db *db, int argc, char **argv, char *err, size_t cap)
{
    const char *cmd = argv[2];
    char ts[32];
    if (strcmp(cmd, "send") == 0 && argc == 6) {
        CassUuid id;
        if (ms_send(db, user(argv[3]), user(argv[4]), argv[5], &id, err, cap) != CASS_OK)
            return 1;
        char s[CASS_UUID_STRING_LENGTH];
        cass_uuid_string(id, s);
        printf("%s\n", s);
    } else if (strcmp(cmd, "view") == 0 && argc == 4) {
        ms_talk *t;
        size_t n;
        if (ms_main_view(db, user(argv[3]), &t, &n, err, cap) != CASS_OK)
            return 1;
        for (size_t i = 0; i < n; i++)
            printf("%lld\t%s\t%lld unread\t%lld: %s\n", (long long)t[i].partner,
                   when(t[i].last_micros, ts, sizeof ts), (long long)t[i].unread,
                   (long long)t[i].last_sender, t[i].last_text);
        ms_talks_free(t, n);
    } else if (strcmp(cmd, "history") == 0 && (argc == 5 || argc == 6)) {
        long page = argc == 6 ? atol(argv[5]) : 20;
        if (page <= 0)
            usage();
        ms_cursor cur = MS_CURSOR_START;
        for (int p = 1; !cur.done; p++) {
            ms_message *m;
            size_t n;
            if (ms_history(db, user(argv[3]), user(argv[4]), &cur, (size_t)page, &m, &n, err,
                           cap) != CASS_OK)
                return 1;
            if (n)
                printf("-- page %d\n", p);
            for (size_t i = 0; i < n; i++)
                printf("%s\t%lld -> %lld: %s\n", when(m[i].micros, ts, sizeof ts),
                       (long long)m[i].sender, (long long)m[i].target, m[i].text);
            ms_messages_free(m, n);
        }
    } else if (strcmp(cmd, "read") == 0 && argc == 5) {
        if (ms_mark_read(db, user(argv[3]), user(argv[4]), NULL, err, cap) != CASS_OK)
            return 1;
    } else {
        usage();
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage();
    char err[1024];
    CassCluster *cluster;
    CassSession *session;
    cass_log_set_level(CASS_LOG_ERROR);
    if (cu_connect(argv[1], &cluster, &session, err, sizeof err) != CASS_OK) {
        fprintf(stderr, "messenger: %s: %s\n", argv[1], err);
        return 1;
    }
    ms_db *db = NULL;
    int rc = 1;
    if (ms_create_schema(session, err, sizeof err) == CASS_OK &&
        ms_open(session, NULL, NULL, &db, err, sizeof err) == CASS_OK)
        rc = run(db, argc, argv, err, sizeof err);
    if (rc)
        fprintf(stderr, "messenger: %s\n", err);
    ms_close(db);
    cu_disconnect(cluster, session);
    return rc;
}
