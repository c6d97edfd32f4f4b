/*
 * The email system (examples/email) end to end through its data layer: the seed's queries
 * Q1 to Q6, sending to several recipients with labels, read marks and the unread counters
 * (repeated and concurrent marks), attachments in chunks, overflowing folders, the failure
 * paths, and the sample data run through the shell. Each test runs on a database of its own,
 * embedded or (CASSETTE_TEST_REMOTE=1) served by `cassette serve`.
 */
#include <cassandra.h>

#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/driver_test.h"
#include "email/email.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static char err[1024];

#define EM_OK_(call)                                                                               \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != EM_OK)                                                                          \
            test_fail(__FILE__, __LINE__, "%s failed: %d %s", #call, rc_, err);                    \
    } while (0)

static em_db *open_db(conn *cn, int32_t threshold)
{
    MEMORY_CONNECT(cn);
    em_options o = {.bucket_threshold = threshold, .create_schema = 1};
    em_db *db;
    EM_OK_(em_attach(cn->session, &o, &db, err, sizeof err));
    return db;
}

static void close_db(conn *cn, em_db *db)
{
    em_close(db);
    conn_close(cn);
}

/* Sends subject from `from` to one recipient with the given labels (NULL: inbox). */
static CassUuid send1(em_db *db, const char *from, const char *to, const char *const *labels,
                      size_t n_labels, const char *subject, int64_t time_ms)
{
    em_rcpt r = {to, labels, n_labels};
    em_draft d = {
        .from = from, .to = &r, .n_to = 1, .subject = subject, .body = "body", .time_ms = time_ms};
    CassUuid id;
    EM_OK_(em_send(db, &d, &id, err, sizeof err));
    return id;
}

/* The unread quantity of one folder by Q2 (-1 when the folder has no counter). */
static int64_t unread_of(em_db *db, const char *user, const char *label)
{
    em_folder *f;
    size_t n;
    EM_OK_(em_unread_counts(db, user, &f, &n, err, sizeof err));
    int64_t v = -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].label, label) == 0)
            v = f[i].num_unread;
    em_folders_free(f, n);
    return v;
}

/* A whole folder listed by Q3 in pages of page_size; returns the count, ids in ids. */
static size_t list_all(em_db *db, const char *user, const char *label, size_t page_size,
                       CassUuid *ids, size_t cap, em_summary *last_out)
{
    em_cursor cur = EM_CURSOR_INIT;
    size_t total = 0;
    for (int pages = 0; !cur.done; pages++) {
        ASSERT(pages < 10000);
        em_summary *s;
        size_t n;
        EM_OK_(em_folder_page(db, user, label, page_size, &cur, &s, &n, err, sizeof err));
        ASSERT(n <= page_size);
        if (n < page_size)
            ASSERT(cur.done);
        for (size_t i = 0; i < n; i++) {
            ASSERT(total < cap);
            ids[total++] = s[i].id;
            if (last_out) {
                last_out->is_read = s[i].is_read;
                last_out->id = s[i].id;
            }
        }
        em_summaries_free(s, n);
    }
    return total;
}

static int uuid_eq(CassUuid a, CassUuid b)
{
    return a.time_and_version == b.time_and_version && a.clock_seq_and_node == b.clock_seq_and_node;
}

/* ------------------------------------------------------------------------ */
/* Q1, Q2: folders                                                           */
/* ------------------------------------------------------------------------ */

TEST(q1_lists_the_folders_of_a_user_with_their_colors)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    EM_OK_(em_folder_create(db, "joe@datastax.com", "inbox", "blue", err, sizeof err));
    EM_OK_(em_folder_create(db, "joe@datastax.com", "work", "red", err, sizeof err));
    EM_OK_(em_folder_create(db, "joe@datastax.com", "personal", "yellow", err, sizeof err));
    EM_OK_(em_folder_create(db, "jen@datastax.com", "inbox", "green", err, sizeof err));
    EM_OK_(em_folder_create(db, "joe@datastax.com", "work", "orange", err, sizeof err));
    em_folder *f;
    size_t n;
    EM_OK_(em_folders(db, "joe@datastax.com", &f, &n, err, sizeof err));
    ASSERT_EQ(n, 3);
    ASSERT_STR_EQ(f[0].label, "inbox");
    ASSERT_STR_EQ(f[0].color, "blue");
    ASSERT_STR_EQ(f[1].label, "personal");
    ASSERT_STR_EQ(f[1].color, "yellow");
    ASSERT_STR_EQ(f[2].label, "work");
    ASSERT_STR_EQ(f[2].color, "orange");
    em_folders_free(f, n);
    EM_OK_(em_folders(db, "nobody@datastax.com", &f, &n, err, sizeof err));
    ASSERT_EQ(n, 0);
    ASSERT(f == NULL);
    ASSERT_EQ(em_folders(db, "", &f, &n, err, sizeof err), EM_ERR_INVALID);
    ASSERT_EQ(em_folder_create(db, "joe@datastax.com", "", "red", err, sizeof err), EM_ERR_INVALID);
    close_db(&cn, db);
}

TEST(q2_counts_unread_emails_per_folder)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    static const char *const work[] = {"inbox", "work"};
    send1(db, "jen@datastax.com", "joe@datastax.com", work, 2, "Budget", 0);
    send1(db, "jen@datastax.com", "joe@datastax.com", NULL, 0, "Lunch", 0);
    send1(db, "jim@datastax.com", "joe@datastax.com", work, 2, "Build", 0);
    em_folder *f;
    size_t n;
    EM_OK_(em_unread_counts(db, "joe@datastax.com", &f, &n, err, sizeof err));
    ASSERT_EQ(n, 2);
    ASSERT_STR_EQ(f[0].label, "inbox");
    ASSERT_EQ(f[0].num_unread, 3);
    ASSERT_STR_EQ(f[1].label, "work");
    ASSERT_EQ(f[1].num_unread, 2);
    em_folders_free(f, n);
    /* The senders' copies are read: their sent folders have no unread counter. */
    ASSERT_EQ(unread_of(db, "jen@datastax.com", "sent"), -1);
    EM_OK_(em_unread_counts(db, "nobody@datastax.com", &f, &n, err, sizeof err));
    ASSERT_EQ(n, 0);
    close_db(&cn, db);
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                   */
/* ------------------------------------------------------------------------ */

TEST(sending_to_several_recipients_lists_the_email_in_each_label)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    EM_OK_(em_folder_create(db, "joe@datastax.com", "work", "red", err, sizeof err));
    static const char *const joe_labels[] = {"inbox", "work", "work"};
    static const char *const amy_labels[] = {"inbox", "projects"};
    em_rcpt to[] = {
        {"joe@datastax.com", joe_labels, 3},
        {"jim@datastax.com", NULL, 0},
        {"amy@datastax.com", amy_labels, 2},
        {"joe@datastax.com", NULL, 0}, /* twice: listed once */
    };
    em_draft d = {.from = "jen@datastax.com",
                  .to = to,
                  .n_to = 4,
                  .subject = "Design review",
                  .body = "Please review the data model."};
    CassUuid id;
    EM_OK_(em_send(db, &d, &id, err, sizeof err));

    struct {
        const char *user, *label;
        int read;
    } want[] = {
        {"joe@datastax.com", "inbox", 0},    {"joe@datastax.com", "work", 0},
        {"jim@datastax.com", "inbox", 0},    {"amy@datastax.com", "inbox", 0},
        {"amy@datastax.com", "projects", 0}, {"jen@datastax.com", "sent", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        em_cursor cur = EM_CURSOR_INIT;
        em_summary *s;
        size_t n;
        EM_OK_(em_folder_page(db, want[i].user, want[i].label, 10, &cur, &s, &n, err, sizeof err));
        ASSERT_EQ(n, 1);
        ASSERT(uuid_eq(s[0].id, id));
        ASSERT_STR_EQ(s[0].from, "jen@datastax.com");
        ASSERT_STR_EQ(s[0].subject, "Design review");
        ASSERT_EQ(s[0].is_read, want[i].read);
        em_summaries_free(s, n);
        ASSERT(cur.done);
        ASSERT_EQ(unread_of(db, want[i].user, want[i].label), want[i].read ? -1 : 1);
    }
    /* A folder a delivery made has no color; an existing one keeps its own. */
    em_folder *f;
    size_t n;
    EM_OK_(em_folders(db, "joe@datastax.com", &f, &n, err, sizeof err));
    ASSERT_EQ(n, 2);
    ASSERT_STR_EQ(f[0].label, "inbox");
    ASSERT_STR_EQ(f[0].color, "");
    ASSERT_STR_EQ(f[1].label, "work");
    ASSERT_STR_EQ(f[1].color, "red");
    em_folders_free(f, n);
    /* The labels of the email for each user. */
    char **labels;
    EM_OK_(em_email_labels(db, "amy@datastax.com", id, &labels, &n, err, sizeof err));
    ASSERT_EQ(n, 2);
    ASSERT_STR_EQ(labels[0], "inbox");
    ASSERT_STR_EQ(labels[1], "projects");
    em_labels_free(labels, n);
    close_db(&cn, db);
}

/* ------------------------------------------------------------------------ */
/* Q3: a folder, newest first                                                */
/* ------------------------------------------------------------------------ */

TEST(q3_lists_a_folder_newest_first_in_pages)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    enum { N = 25 };
    CassUuid sent[N];
    /* Ids of a test clock, several in one millisecond, and out of order. */
    for (int i = 0; i < N; i++) {
        char subject[32];
        snprintf(subject, sizeof subject, "email %d", i);
        sent[i] = send1(db, "jen@datastax.com", "joe@datastax.com", NULL, 0, subject,
                        1596268800000LL + i / 3);
    }
    for (size_t page = 1; page <= 26; page += 6) {
        CassUuid got[N];
        ASSERT_EQ(list_all(db, "joe@datastax.com", "inbox", page, got, N, NULL), N);
        for (int i = 0; i < N; i++)
            ASSERT(uuid_eq(got[i], sent[N - 1 - i]));
    }
    /* The time of an email comes from its id. */
    em_cursor cur = EM_CURSOR_INIT;
    em_summary *s;
    size_t n;
    EM_OK_(em_folder_page(db, "joe@datastax.com", "inbox", 1, &cur, &s, &n, err, sizeof err));
    ASSERT_EQ(n, 1);
    ASSERT_EQ(s[0].time_us / 1000, 1596268800000LL + (N - 1) / 3);
    ASSERT_STR_EQ(s[0].subject, "email 24");
    em_summaries_free(s, n);
    /* An unknown folder is empty. */
    em_cursor none = EM_CURSOR_INIT;
    EM_OK_(em_folder_page(db, "joe@datastax.com", "nothing", 5, &none, &s, &n, err, sizeof err));
    ASSERT_EQ(n, 0);
    ASSERT(none.done);
    ASSERT_EQ(em_folder_page(db, "joe@datastax.com", "inbox", 0, &none, &s, &n, err, sizeof err),
              EM_ERR_INVALID);
    close_db(&cn, db);
}

TEST(em_timeuuid_makes_distinct_increasing_ids_within_one_millisecond)
{
    enum { N = 2000 };
    static CassUuid ids[N];
    for (int i = 0; i < N; i++)
        ids[i] = em_timeuuid(1700000000123LL);
    const uint64_t mask = 0x0FFFFFFFFFFFFFFFULL;
    for (int i = 0; i < N; i++) {
        ASSERT_EQ(cass_uuid_version(ids[i]), 1);
        ASSERT_EQ(cass_uuid_timestamp(ids[i]), 1700000000123ULL);
        /* 100 ns ticks counting up within the millisecond */
        if (i > 0)
            ASSERT((ids[i].time_and_version & mask) > (ids[i - 1].time_and_version & mask));
    }
}

/* ------------------------------------------------------------------------ */
/* Overflow buckets                                                          */
/* ------------------------------------------------------------------------ */

TEST(an_overflowing_folder_is_listed_across_its_buckets_in_order)
{
    conn cn;
    em_db *db = open_db(&cn, 5);
    enum { N = 23 };
    CassUuid sent[N];
    static const char *const labels[] = {"inbox", "newsletters"};
    for (int i = 0; i < N; i++)
        sent[i] = send1(db, "news@datastax.com", "joe@datastax.com", i % 2 ? labels : NULL,
                        i % 2 ? 2 : 1, "news", 0);
    /* 23 emails at 5 a bucket: buckets 0 to 4, the newest holding 3. */
    const CassResult *r = QUERY(em_session(db), "SELECT bucket, num_emails FROM "
                                                "messaging_data.folder_buckets WHERE username = "
                                                "'joe@datastax.com' AND label = 'inbox'");
    ASSERT_EQ(cass_result_row_count(r), 5);
    cass_int32_t b;
    cass_int64_t count;
    cass_value_get_int32(cass_row_get_column(cass_result_first_row(r), 0), &b);
    cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 1), &count);
    ASSERT_EQ(b, 4);
    ASSERT_EQ(count, 3);
    cass_result_free(r);
    r = QUERY(em_session(db), "SELECT id FROM messaging_data.emails_by_user_folder WHERE "
                              "username = 'joe@datastax.com' AND label = 'inbox' AND bucket = 2");
    ASSERT_EQ(cass_result_row_count(r), 5);
    cass_result_free(r);

    /* Every page size, including the bucket size and ones that straddle buckets. */
    size_t sizes[] = {1, 2, 3, 4, 5, 6, 10, 22, 23, 24, 100};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        CassUuid got[N];
        ASSERT_EQ(list_all(db, "joe@datastax.com", "inbox", sizes[k], got, N, NULL), N);
        for (int i = 0; i < N; i++)
            ASSERT(uuid_eq(got[i], sent[N - 1 - i]));
    }
    /* The second label overflows on its own count: 11 emails, buckets 0 to 2. */
    CassUuid got[N];
    ASSERT_EQ(list_all(db, "joe@datastax.com", "newsletters", 4, got, N, NULL), 11);
    for (int i = 0; i < 11; i++)
        ASSERT(uuid_eq(got[i], sent[N - 2 - 2 * i]));
    /* Read marks reach the entry in its bucket; counters span the buckets. */
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), N);
    int changed;
    EM_OK_(em_mark_read(db, "joe@datastax.com", sent[1], 1, &changed, err, sizeof err));
    ASSERT_EQ(changed, 2);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), N - 1);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "newsletters"), 10);
    em_summary last;
    list_all(db, "joe@datastax.com", "newsletters", 100, got, N, &last);
    ASSERT(uuid_eq(last.id, sent[1]));
    ASSERT_EQ(last.is_read, 1);
    /* A listing that started before new emails arrived ends without them, none twice. */
    em_cursor cur = EM_CURSOR_INIT;
    em_summary *s;
    size_t n;
    EM_OK_(em_folder_page(db, "joe@datastax.com", "inbox", 4, &cur, &s, &n, err, sizeof err));
    ASSERT_EQ(n, 4);
    em_summaries_free(s, n);
    for (int i = 0; i < 4; i++)
        send1(db, "news@datastax.com", "joe@datastax.com", NULL, 0, "late", 0);
    size_t total = 4;
    while (!cur.done) {
        EM_OK_(em_folder_page(db, "joe@datastax.com", "inbox", 4, &cur, &s, &n, err, sizeof err));
        for (size_t i = 0; i < n; i++)
            ASSERT(uuid_eq(s[i].id, sent[N - 1 - total - i]));
        total += n;
        em_summaries_free(s, n);
    }
    ASSERT_EQ(total, N);
    close_db(&cn, db);
}

enum { SEND_THREADS = 4, SENDS = 10 };

typedef struct sender {
    em_db *db;
    CassUuid ids[SENDS];
    int rc;
    char err[512];
    atomic_int *start;
} sender;

static void *send_loop(void *arg)
{
    sender *s = arg;
    while (!atomic_load(s->start))
        ;
    em_rcpt to = {"joe@datastax.com", NULL, 0};
    em_draft d = {.from = "news@datastax.com", .to = &to, .n_to = 1, .subject = "race"};
    for (int i = 0; i < SENDS && s->rc == EM_OK; i++)
        s->rc = em_send(s->db, &d, &s->ids[i], s->err, sizeof s->err);
    return NULL;
}

TEST(concurrent_deliveries_into_an_overflowing_folder_are_all_listed_once)
{
    conn cn;
    em_db *db = open_db(&cn, 4);
    sender s[SEND_THREADS];
    pthread_t t[SEND_THREADS];
    atomic_int start = 0;
    for (int i = 0; i < SEND_THREADS; i++) {
        s[i] = (sender){.db = db, .start = &start};
        ASSERT_EQ(pthread_create(&t[i], NULL, send_loop, &s[i]), 0);
    }
    atomic_store(&start, 1);
    for (int i = 0; i < SEND_THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < SEND_THREADS; i++)
        if (s[i].rc != EM_OK)
            test_fail(__FILE__, __LINE__, "thread %d: %d %s", i, s[i].rc, s[i].err);
    enum { N = SEND_THREADS * SENDS };
    CassUuid got[N];
    ASSERT_EQ(list_all(db, "joe@datastax.com", "inbox", 3, got, N, NULL), N);
    /* Every email once (the threshold is soft under racing writers, and order across a bucket
       boundary follows arrival, so only membership is checked). */
    for (int i = 0; i < SEND_THREADS; i++)
        for (int j = 0; j < SENDS; j++) {
            int seen = 0;
            for (int k = 0; k < N; k++)
                seen += uuid_eq(got[k], s[i].ids[j]);
            ASSERT_EQ(seen, 1);
        }
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), N);
    const CassResult *r = QUERY(em_session(db), "SELECT SUM(num_emails) FROM "
                                                "messaging_data.folder_buckets WHERE username = "
                                                "'joe@datastax.com' AND label = 'inbox'");
    cass_int64_t total = 0;
    cass_value_get_int64(cass_row_get_column(cass_result_first_row(r), 0), &total);
    ASSERT_EQ(total, N);
    cass_result_free(r);
    close_db(&cn, db);
}

/* ------------------------------------------------------------------------ */
/* Q4: one email                                                             */
/* ------------------------------------------------------------------------ */

TEST(q4_returns_everything_about_an_email)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    em_rcpt to[] = {{"joe@datastax.com", NULL, 0}, {"jim@datastax.com", NULL, 0}};
    const uint8_t small[] = "a small file";
    em_file files[] = {{"notes.txt", "text/plain", small, sizeof small},
                       {"empty.bin", NULL, NULL, 0}};
    em_draft d = {.from = "jen@datastax.com",
                  .to = to,
                  .n_to = 2,
                  .subject = "Budget",
                  .body = "Hi Joe, the budget is attached.",
                  .files = files,
                  .n_files = 2,
                  .time_ms = 1596268800123LL};
    CassUuid id;
    EM_OK_(em_send(db, &d, &id, err, sizeof err));
    em_email *m;
    EM_OK_(em_email_get(db, id, &m, err, sizeof err));
    ASSERT(uuid_eq(m->id, id));
    ASSERT_EQ(m->time_us / 1000, 1596268800123LL);
    ASSERT_EQ(m->n_to, 2);
    ASSERT_STR_EQ(m->to[0], "joe@datastax.com");
    ASSERT_STR_EQ(m->to[1], "jim@datastax.com");
    ASSERT_STR_EQ(m->from, "jen@datastax.com");
    ASSERT_STR_EQ(m->subject, "Budget");
    ASSERT_STR_EQ(m->body, "Hi Joe, the budget is attached.");
    ASSERT_EQ(m->n_attachments, 2);
    ASSERT_STR_EQ(m->attachments[0].filename, "empty.bin");
    ASSERT_EQ(m->attachments[0].size, 0);
    ASSERT_STR_EQ(m->attachments[1].filename, "notes.txt");
    ASSERT_EQ(m->attachments[1].size, sizeof small);
    em_email_free(m);
    /* The empty file is one empty chunk; the default type is octet-stream. */
    em_blob b;
    EM_OK_(em_attachment_get(db, id, "empty.bin", &b, err, sizeof err));
    ASSERT_EQ(b.len, 0);
    ASSERT_STR_EQ(b.type, "application/octet-stream");
    em_blob_free(&b);
    close_db(&cn, db);
}

/* ------------------------------------------------------------------------ */
/* Q5, Q6: attachments in chunks                                             */
/* ------------------------------------------------------------------------ */

TEST(a_2416_kb_attachment_is_three_chunks_and_comes_back_whole)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    size_t big_len = 2416 * 1024, small_len = 530 * 1024;
    uint8_t *big = malloc(big_len), *small = malloc(small_len);
    ASSERT(big && small);
    uint64_t seed = test_seed();
    for (size_t i = 0; i < big_len; i++)
        big[i] = (uint8_t)test_rand(&seed);
    for (size_t i = 0; i < small_len; i++)
        small[i] = (uint8_t)(i * 7);
    em_rcpt to = {"joe@datastax.com", NULL, 0};
    em_file files[] = {{"Presentation.pptx", "application/vnd.ms-powerpoint", big, big_len},
                       {"Budget.xlsx", "application/vnd.ms-excel", small, small_len}};
    em_draft d = {.from = "jen@datastax.com",
                  .to = &to,
                  .n_to = 1,
                  .subject = "Budget",
                  .body = "Attached.",
                  .files = files,
                  .n_files = 2};
    CassUuid id;
    EM_OK_(em_send(db, &d, &id, err, sizeof err));

    /* Q5: the whole small file is chunk 1. */
    em_blob c;
    EM_OK_(em_attachment_chunk(db, id, "Budget.xlsx", 1, &c, err, sizeof err));
    ASSERT_EQ(c.len, small_len);
    ASSERT_MEM_EQ(c.data, small, small_len);
    ASSERT_STR_EQ(c.type, "application/vnd.ms-excel");
    em_blob_free(&c);
    ASSERT_EQ(em_attachment_chunk(db, id, "Budget.xlsx", 2, &c, err, sizeof err), EM_ERR_NOT_FOUND);
    /* The big one: chunks 1 and 2 full, chunk 3 the rest. */
    size_t lens[] = {EM_CHUNK_BYTES, EM_CHUNK_BYTES, big_len - 2 * EM_CHUNK_BYTES};
    for (int k = 0; k < 3; k++) {
        EM_OK_(em_attachment_chunk(db, id, "Presentation.pptx", k + 1, &c, err, sizeof err));
        ASSERT_EQ(c.len, lens[k]);
        ASSERT_MEM_EQ(c.data, big + (size_t)k * EM_CHUNK_BYTES, lens[k]);
        em_blob_free(&c);
    }
    ASSERT_EQ(em_attachment_chunk(db, id, "Presentation.pptx", 4, &c, err, sizeof err),
              EM_ERR_NOT_FOUND);
    /* Q6: reassembled. */
    em_blob b;
    EM_OK_(em_attachment_get(db, id, "Presentation.pptx", &b, err, sizeof err));
    ASSERT_EQ(b.len, big_len);
    ASSERT_MEM_EQ(b.data, big, big_len);
    ASSERT_STR_EQ(b.type, "application/vnd.ms-powerpoint");
    em_blob_free(&b);
    EM_OK_(em_attachment_get(db, id, "Budget.xlsx", &b, err, sizeof err));
    ASSERT_EQ(b.len, small_len);
    ASSERT_MEM_EQ(b.data, small, small_len);
    em_blob_free(&b);
    free(big);
    free(small);
    close_db(&cn, db);
}

/* ------------------------------------------------------------------------ */
/* Read state and the unread counters                                        */
/* ------------------------------------------------------------------------ */

TEST(marking_read_and_unread_moves_each_counter_once)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    static const char *const labels[] = {"inbox", "work"};
    CassUuid a = send1(db, "jen@datastax.com", "joe@datastax.com", labels, 2, "A", 0);
    send1(db, "jen@datastax.com", "joe@datastax.com", labels, 2, "B", 0);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 2);
    int changed;
    EM_OK_(em_mark_read(db, "joe@datastax.com", a, 1, &changed, err, sizeof err));
    ASSERT_EQ(changed, 2);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 1);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "work"), 1);
    for (int i = 0; i < 3; i++) {
        EM_OK_(em_mark_read(db, "joe@datastax.com", a, 1, &changed, err, sizeof err));
        ASSERT_EQ(changed, 0);
    }
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 1);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "work"), 1);
    EM_OK_(em_mark_read(db, "joe@datastax.com", a, 0, &changed, err, sizeof err));
    ASSERT_EQ(changed, 2);
    EM_OK_(em_mark_read(db, "joe@datastax.com", a, 0, &changed, err, sizeof err));
    ASSERT_EQ(changed, 0);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 2);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "work"), 2);
    /* The sender's copy is already read; marking it unread counts in the sent folder. */
    EM_OK_(em_mark_read(db, "jen@datastax.com", a, 1, &changed, err, sizeof err));
    ASSERT_EQ(changed, 0);
    EM_OK_(em_mark_read(db, "jen@datastax.com", a, 0, &changed, err, sizeof err));
    ASSERT_EQ(changed, 1);
    ASSERT_EQ(unread_of(db, "jen@datastax.com", "sent"), 1);
    /* Someone who did not get the email cannot mark it. */
    ASSERT_EQ(em_mark_read(db, "jim@datastax.com", a, 1, &changed, err, sizeof err),
              EM_ERR_NOT_FOUND);
    close_db(&cn, db);
}

enum { MARK_THREADS = 6, MARK_ROUNDS = 12 };

typedef struct marker {
    em_db *db;
    CassUuid id;
    int index;
    int flips; /* applied read marks minus applied unread marks */
    int rc;
    char err[512];
    atomic_int *start;
} marker;

static void *mark_loop(void *arg)
{
    marker *m = arg;
    while (!atomic_load(m->start))
        ;
    for (int i = 0; i < MARK_ROUNDS && m->rc == EM_OK; i++) {
        int read = (i + m->index) % 2 == 0, changed = 0;
        m->rc =
            em_mark_read(m->db, "joe@datastax.com", m->id, read, &changed, m->err, sizeof m->err);
        m->flips += read ? changed : -changed;
    }
    return NULL;
}

static void *mark_read_once(void *arg)
{
    marker *m = arg;
    int changed = 0;
    while (!atomic_load(m->start))
        ;
    m->rc = em_mark_read(m->db, "joe@datastax.com", m->id, 1, &changed, m->err, sizeof m->err);
    m->flips = changed;
    return NULL;
}

static void run_markers(em_db *db, CassUuid id, void *(*fn)(void *), marker *m)
{
    pthread_t t[MARK_THREADS];
    atomic_int start = 0;
    for (int i = 0; i < MARK_THREADS; i++) {
        m[i] = (marker){.db = db, .id = id, .index = i, .start = &start};
        ASSERT_EQ(pthread_create(&t[i], NULL, fn, &m[i]), 0);
    }
    atomic_store(&start, 1);
    for (int i = 0; i < MARK_THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < MARK_THREADS; i++)
        if (m[i].rc != EM_OK)
            test_fail(__FILE__, __LINE__, "thread %d: %d %s", i, m[i].rc, m[i].err);
}

TEST(concurrent_marks_on_one_email_leave_the_counters_right)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    static const char *const labels[] = {"inbox", "work"};
    CassUuid id = send1(db, "jen@datastax.com", "joe@datastax.com", labels, 2, "Race", 0);
    send1(db, "jen@datastax.com", "joe@datastax.com", labels, 2, "Other", 0);
    marker m[MARK_THREADS];

    /* Everyone marks it read at once: exactly one flip per folder. */
    run_markers(db, id, mark_read_once, m);
    int flips = 0;
    for (int i = 0; i < MARK_THREADS; i++)
        flips += m[i].flips;
    ASSERT_EQ(flips, 2);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 1);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "work"), 1);

    /* Read and unread marks racing: each folder's counter follows the flag that wins there
       (the two folders may end in different states; see em_mark_read). */
    run_markers(db, id, mark_loop, m);
    flips = 0;
    for (int i = 0; i < MARK_THREADS; i++)
        flips += m[i].flips;
    /* Starting read, each folder's flips alternate unread/read: -1 or 0 a folder. */
    ASSERT(flips >= -2 && flips <= 0);
    static const char *const folders[] = {"inbox", "work"};
    int64_t total_unread = 0;
    for (int k = 0; k < 2; k++) {
        CassUuid ids[2];
        em_summary oldest;
        ASSERT_EQ(list_all(db, "joe@datastax.com", folders[k], 10, ids, 2, &oldest), 2);
        ASSERT(uuid_eq(oldest.id, id));
        ASSERT_EQ(unread_of(db, "joe@datastax.com", folders[k]), oldest.is_read ? 1 : 2);
        total_unread += oldest.is_read ? 0 : 1;
        int64_t unread, delta;
        EM_OK_(em_unread_recount(db, "joe@datastax.com", folders[k], &unread, &delta, err,
                                 sizeof err));
        ASSERT_EQ(unread, oldest.is_read ? 1 : 2);
        ASSERT_EQ(delta, 0);
    }
    ASSERT_EQ(total_unread, -flips);
    /* One more mark brings the folders together. */
    int changed;
    EM_OK_(em_mark_read(db, "joe@datastax.com", id, 1, &changed, err, sizeof err));
    ASSERT_EQ(changed, total_unread);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 1);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "work"), 1);
    close_db(&cn, db);
}

TEST(a_recount_repairs_a_counter_that_drifted)
{
    conn cn;
    em_db *db = open_db(&cn, 3);
    for (int i = 0; i < 8; i++)
        send1(db, "jen@datastax.com", "joe@datastax.com", NULL, 0, "x", 0);
    /* As if a delivery failed after its batch, before its counters. */
    RUN(em_session(db), "UPDATE messaging_data.unread_email_stats SET num_unread = num_unread "
                        "- 3 WHERE username = 'joe@datastax.com' AND label = 'inbox'");
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 5);
    int64_t unread, delta;
    EM_OK_(em_unread_recount(db, "joe@datastax.com", "inbox", &unread, &delta, err, sizeof err));
    ASSERT_EQ(unread, 8);
    ASSERT_EQ(delta, 3);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 8);
    EM_OK_(em_unread_recount(db, "joe@datastax.com", "inbox", &unread, &delta, err, sizeof err));
    ASSERT_EQ(delta, 0);
    close_db(&cn, db);
}

/* ------------------------------------------------------------------------ */
/* Failures                                                                  */
/* ------------------------------------------------------------------------ */

TEST(unknown_emails_and_attachments_are_not_found)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    CassUuid nobody = em_timeuuid(0);
    em_email *m = (em_email *)1;
    ASSERT_EQ(em_email_get(db, nobody, &m, err, sizeof err), EM_ERR_NOT_FOUND);
    ASSERT(m == NULL);
    ASSERT(strstr(err, "no email") != NULL);
    int changed;
    ASSERT_EQ(em_mark_read(db, "joe@datastax.com", nobody, 1, &changed, err, sizeof err),
              EM_ERR_NOT_FOUND);
    em_blob b;
    ASSERT_EQ(em_attachment_get(db, nobody, "x.pdf", &b, err, sizeof err), EM_ERR_NOT_FOUND);
    ASSERT_EQ(em_attachment_chunk(db, nobody, "x.pdf", 1, &b, err, sizeof err), EM_ERR_NOT_FOUND);
    ASSERT_EQ(em_attachment_chunk(db, nobody, "x.pdf", 0, &b, err, sizeof err), EM_ERR_INVALID);
    CassUuid id = send1(db, "jen@datastax.com", "joe@datastax.com", NULL, 0, "no files", 0);
    ASSERT_EQ(em_attachment_get(db, id, "x.pdf", &b, err, sizeof err), EM_ERR_NOT_FOUND);
    ASSERT_STR_EQ(err, "the email has no attachment x.pdf");
    close_db(&cn, db);
}

TEST(a_missing_or_short_chunk_is_reported_as_corrupt)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    size_t len = 2 * EM_CHUNK_BYTES + 10;
    uint8_t *data = calloc(1, len);
    ASSERT(data);
    em_rcpt to = {"joe@datastax.com", NULL, 0};
    em_file f = {"big.bin", "application/octet-stream", data, len};
    em_draft d = {.from = "jen@datastax.com",
                  .to = &to,
                  .n_to = 1,
                  .subject = "big",
                  .files = &f,
                  .n_files = 1};
    CassUuid id;
    EM_OK_(em_send(db, &d, &id, err, sizeof err));
    free(data);
    char ids[CASS_UUID_STRING_LENGTH], cql[512];
    cass_uuid_string(id, ids);
    /* Chunk 2 shortened. */
    snprintf(cql, sizeof cql,
             "UPDATE messaging_data.attachments SET value = 0x00 WHERE email_id = %s AND "
             "filename = 'big.bin' AND chunk_number = 2",
             ids);
    RUN(em_session(db), cql);
    em_blob b;
    ASSERT_EQ(em_attachment_get(db, id, "big.bin", &b, err, sizeof err), EM_ERR_CORRUPT);
    ASSERT_STR_EQ(err, "attachment big.bin: chunk 2 of 3 has 1 bytes, not 1024000");
    ASSERT(b.data == NULL && b.len == 0);
    /* Chunk 3 gone. */
    snprintf(cql, sizeof cql,
             "DELETE FROM messaging_data.attachments WHERE email_id = %s AND filename = "
             "'big.bin' AND chunk_number = 3",
             ids);
    RUN(em_session(db), cql);
    snprintf(cql, sizeof cql,
             "DELETE FROM messaging_data.attachments WHERE email_id = %s AND filename = "
             "'big.bin' AND chunk_number = 2",
             ids);
    RUN(em_session(db), cql);
    ASSERT_EQ(em_attachment_get(db, id, "big.bin", &b, err, sizeof err), EM_ERR_CORRUPT);
    ASSERT_STR_EQ(err, "attachment big.bin: chunk 2 of 3 is missing");
    /* A size that cannot be. */
    snprintf(cql, sizeof cql,
             "UPDATE messaging_data.emails SET attachments['big.bin'] = -1 WHERE id = %s", ids);
    RUN(em_session(db), cql);
    ASSERT_EQ(em_attachment_get(db, id, "big.bin", &b, err, sizeof err), EM_ERR_CORRUPT);
    ASSERT_STR_EQ(err, "attachment big.bin: recorded size -1");
    close_db(&cn, db);
}

TEST(bad_drafts_are_refused_and_write_nothing)
{
    conn cn;
    em_db *db = open_db(&cn, 0);
    em_rcpt to = {"joe@datastax.com", NULL, 0};
    static const char *const bad_labels[] = {"inbox", ""};
    em_rcpt bad = {"joe@datastax.com", bad_labels, 2};
    const uint8_t x[] = "x";
    em_file twice[] = {{"a.txt", "text/plain", x, 1}, {"a.txt", "text/plain", x, 1}};
    em_draft drafts[] = {
        {.from = NULL, .to = &to, .n_to = 1},
        {.from = "jen@datastax.com", .to = NULL, .n_to = 0},
        {.from = "jen@datastax.com", .to = &bad, .n_to = 1},
        {.from = "jen@datastax.com", .to = &to, .n_to = 1, .files = twice, .n_files = 2},
        {.from = "jen@datastax.com", .to = &to, .n_to = 1, .time_ms = -5},
    };
    for (size_t i = 0; i < sizeof drafts / sizeof *drafts; i++)
        ASSERT_EQ(em_send(db, &drafts[i], NULL, err, sizeof err), EM_ERR_INVALID);
    ASSERT_STR_EQ(err, "time -5 is before 1970");
    CassUuid ids[1];
    ASSERT_EQ(list_all(db, "joe@datastax.com", "inbox", 10, ids, 1, NULL), 0);
    /* Options and opening. */
    em_db *other;
    em_options o = {.keyspace = "bad-name"};
    ASSERT_EQ(em_attach(em_session(db), &o, &other, err, sizeof err), EM_ERR_INVALID);
    ASSERT(other == NULL);
    o = (em_options){.keyspace = "no_such_keyspace"};
    ASSERT_EQ(em_attach(em_session(db), &o, &other, err, sizeof err), EM_ERR_DB);
    ASSERT(strstr(err, "no_such_keyspace") != NULL);
    close_db(&cn, db);
}

/* ------------------------------------------------------------------------ */
/* The sample data through the shell                                         */
/* ------------------------------------------------------------------------ */

/* Runs `$CASSETTE uri -f file`; its exit status. */
static int shell_file(const char *uri, const char *file)
{
    const char *shell = getenv("CASSETTE");
    if (!shell)
        test_skip("CASSETTE (the shell to run) is not set; make test sets it");
    if (access(file, R_OK) != 0)
        test_fail(__FILE__, __LINE__, "%s is missing (run from the source tree)", file);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s' -f '%s' >/dev/null", shell, uri, file);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(the_sample_data_runs_in_the_shell_and_answers_the_seed_queries)
{
    char contact[600], uri[700];
    snprintf(contact, sizeof contact, "file:%s/mail", test_tmpdir());
    test_database_uri(contact, uri, sizeof uri);
    ASSERT_EQ(shell_file(uri, "examples/email/schema.cql"), 0);
    ASSERT_EQ(shell_file(uri, "examples/email/messaging_data.cql"), 0);

    conn cn;
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(test_database(c, contact), CASS_OK);
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    em_db *db;
    EM_OK_(em_attach(cn.session, NULL, &db, err, sizeof err));

    /* Q1 and Q2 for joe. */
    em_folder *f;
    size_t n;
    EM_OK_(em_folders(db, "joe@datastax.com", &f, &n, err, sizeof err));
    ASSERT_EQ(n, 5);
    ASSERT_STR_EQ(f[0].label, "inbox");
    ASSERT_STR_EQ(f[0].color, "blue");
    em_folders_free(f, n);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 11);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "work"), 8);
    /* Q3: joe's inbox, newest first; the seed's email is the oldest. */
    CassUuid ids[64];
    em_summary last;
    ASSERT_EQ(list_all(db, "joe@datastax.com", "inbox", 5, ids, 64, &last), 18);
    for (int i = 1; i < 18; i++)
        ASSERT(cass_uuid_timestamp(ids[i]) < cass_uuid_timestamp(ids[i - 1]));
    CassUuid seed_id;
    ASSERT_EQ(cass_uuid_from_string("8ae31dd0-d361-11ea-a40e-5dd6331dfc45", &seed_id), CASS_OK);
    ASSERT(uuid_eq(last.id, seed_id));
    ASSERT_EQ(last.is_read, 0);
    /* Q4, Q5, Q6 on the seed's email. */
    em_email *m;
    EM_OK_(em_email_get(db, seed_id, &m, err, sizeof err));
    ASSERT_STR_EQ(m->from, "jen@datastax.com");
    ASSERT_STR_EQ(m->subject, "Budget");
    ASSERT_EQ(m->n_to, 1);
    ASSERT_EQ(m->n_attachments, 2);
    ASSERT_STR_EQ(m->attachments[0].filename, "Budget.xlsx");
    int32_t budget_size = m->attachments[0].size;
    em_email_free(m);
    em_blob chunk, whole;
    EM_OK_(em_attachment_chunk(db, seed_id, "Budget.xlsx", 1, &chunk, err, sizeof err));
    EM_OK_(em_attachment_get(db, seed_id, "Budget.xlsx", &whole, err, sizeof err));
    ASSERT_EQ(whole.len, budget_size);
    ASSERT_EQ(chunk.len, whole.len);
    ASSERT_MEM_EQ(chunk.data, whole.data, whole.len);
    ASSERT_EQ(whole.data[0], 0x41);
    ASSERT_EQ(whole.data[1], 0x1e);
    ASSERT_STR_EQ(whole.type, "application/vnd.ms-excel");
    em_blob_free(&chunk);
    em_blob_free(&whole);
    /* The data layer carries on from the sample's counters. */
    int changed;
    EM_OK_(em_mark_read(db, "joe@datastax.com", seed_id, 1, &changed, err, sizeof err));
    ASSERT_EQ(changed, 2);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 10);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "work"), 7);
    int64_t unread, delta;
    EM_OK_(em_unread_recount(db, "joe@datastax.com", "inbox", &unread, &delta, err, sizeof err));
    ASSERT_EQ(delta, 0);
    send1(db, "amy@datastax.com", "joe@datastax.com", NULL, 0, "After the sample", 0);
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 11);
    ASSERT_EQ(list_all(db, "joe@datastax.com", "inbox", 7, ids, 64, NULL), 19);
    em_close(db);
    conn_close(&cn);
}

TEST(the_sample_data_runs_alone_on_an_empty_database)
{
    char contact[600], uri[700];
    snprintf(contact, sizeof contact, "file:%s/alone", test_tmpdir());
    test_database_uri(contact, uri, sizeof uri);
    ASSERT_EQ(shell_file(uri, "examples/email/messaging_data.cql"), 0);
    conn cn;
    CassCluster *c = cass_cluster_new();
    ASSERT_EQ(test_database(c, contact), CASS_OK);
    conn_open_cluster(__FILE__, __LINE__, &cn, c);
    em_db *db;
    EM_OK_(em_attach(cn.session, NULL, &db, err, sizeof err));
    ASSERT_EQ(unread_of(db, "joe@datastax.com", "inbox"), 11);
    CassUuid ids[64];
    ASSERT_EQ(list_all(db, "jen@datastax.com", "sent", 4, ids, 64, NULL), 14);
    em_close(db);
    conn_close(&cn);
}
