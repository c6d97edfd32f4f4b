/*
 * A program written for the Cassandra C/C++ driver and nothing else: it
 * includes <cassandra.h> only and uses no cassette extension, so the same
 * source builds against the real driver and runs against a cluster given as
 * the first argument (for example "127.0.0.1"). Built against an installed
 * cassette with `pkg-config --cflags --libs cassette`, it runs embedded with
 * the contact point "memory:" (the default) or "file:DIR".
 *
 * It walks what a chat application does: connect, create its schema,
 * prepare, bind, execute, page through a room's messages, iterate rows and
 * collections, claim a user name with a lightweight transaction, and write
 * with a batch. It prints "driver app: ok" and exits 0 when every answer is
 * the one Cassandra gives; otherwise it names the first wrong answer.
 */
#include <cassandra.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_MESSAGES 2500
#define PAGE_SIZE 100

static int failures;

static void fail(const char *what, CassFuture *future)
{
    if (future) {
        const char *msg;
        size_t len;
        cass_future_error_message(future, &msg, &len);
        fprintf(stderr, "driver app: %s: %s: %.*s\n", what,
                cass_error_desc(cass_future_error_code(future)), (int)len, msg);
    } else {
        fprintf(stderr, "driver app: %s\n", what);
    }
    failures++;
}

/* Runs one statement and returns its result, or NULL after reporting the error. */
static const CassResult *run(CassSession *session, CassStatement *statement, const char *what)
{
    CassFuture *future = cass_session_execute(session, statement);
    const CassResult *result = NULL;
    if (cass_future_error_code(future) == CASS_OK)
        result = cass_future_get_result(future);
    else
        fail(what, future);
    cass_future_free(future);
    return result;
}

static int run_query(CassSession *session, const char *query)
{
    CassStatement *statement = cass_statement_new(query, 0);
    const CassResult *result = run(session, statement, query);
    cass_statement_free(statement);
    if (!result)
        return -1;
    cass_result_free(result);
    return 0;
}

static const CassPrepared *prepare(CassSession *session, const char *query)
{
    CassFuture *future = cass_session_prepare(session, query);
    const CassPrepared *prepared = NULL;
    if (cass_future_error_code(future) == CASS_OK)
        prepared = cass_future_get_prepared(future);
    else
        fail(query, future);
    cass_future_free(future);
    return prepared;
}

static int create_schema(CassSession *session)
{
    static const char *const ddl[] = {
        "CREATE KEYSPACE IF NOT EXISTS chat_app WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE IF NOT EXISTS chat_app.users (login text PRIMARY KEY, "
        "firstname text, lastname text, chat_rooms set<text>)",
        "CREATE TABLE IF NOT EXISTS chat_app.messages (room_name text, message_id timeuuid, "
        "author text, content text, PRIMARY KEY (room_name, message_id)) "
        "WITH CLUSTERING ORDER BY (message_id DESC)",
        "CREATE TABLE IF NOT EXISTS chat_app.room_stats (room_name text PRIMARY KEY, "
        "messages counter)",
        /* a rerun on the same database starts from empty tables */
        "TRUNCATE chat_app.users",
        "TRUNCATE chat_app.messages",
        "TRUNCATE chat_app.room_stats",
    };
    for (size_t i = 0; i < sizeof ddl / sizeof ddl[0]; i++)
        if (run_query(session, ddl[i]) != 0)
            return -1;
    return 0;
}

/* Posts N_MESSAGES messages with one prepared statement and time UUIDs made client-side. */
static int post_messages(CassSession *session, CassUuidGen *gen)
{
    const CassPrepared *insert = prepare(
        session, "INSERT INTO chat_app.messages (room_name, message_id, author, content) "
                 "VALUES (?, ?, ?, ?)");
    if (!insert)
        return -1;
    char content[64];
    for (int i = 0; i < N_MESSAGES && !failures; i++) {
        CassUuid id;
        cass_uuid_gen_time(gen, &id);
        snprintf(content, sizeof content, "message %d", i);
        CassStatement *statement = cass_prepared_bind(insert);
        cass_statement_bind_string(statement, 0, "lobby");
        cass_statement_bind_uuid_by_name(statement, "message_id", id);
        cass_statement_bind_string_by_name(statement, "author", i % 2 ? "alice" : "bob");
        cass_statement_bind_string_n(statement, 3, content, strlen(content));
        const CassResult *result = run(session, statement, "insert message");
        cass_statement_free(statement);
        if (result)
            cass_result_free(result);
    }
    cass_prepared_free(insert);
    return failures ? -1 : 0;
}

/* Reads the room newest first, PAGE_SIZE rows at a time, carrying the paging state. */
static int page_messages(CassSession *session)
{
    CassStatement *statement =
        cass_statement_new("SELECT message_id, content FROM chat_app.messages WHERE room_name = ?", 1);
    cass_statement_bind_string(statement, 0, "lobby");
    cass_statement_set_paging_size(statement, PAGE_SIZE);
    int expected = N_MESSAGES - 1, pages = 0;
    CassUuid previous = {0, 0};
    int have_previous = 0;
    for (;;) {
        const CassResult *result = run(session, statement, "page messages");
        if (!result)
            break;
        pages++;
        CassIterator *rows = cass_iterator_from_result(result);
        while (!failures && cass_iterator_next(rows)) {
            const CassRow *row = cass_iterator_get_row(rows);
            CassUuid id;
            const char *text;
            size_t len;
            char want[64];
            cass_value_get_uuid(cass_row_get_column(row, 0), &id);
            cass_value_get_string(cass_row_get_column_by_name(row, "content"), &text, &len);
            snprintf(want, sizeof want, "message %d", expected--);
            if (len != strlen(want) || memcmp(text, want, len) != 0)
                fail("messages out of order", NULL);
            if (have_previous && cass_uuid_timestamp(id) > cass_uuid_timestamp(previous))
                fail("message ids not newest first", NULL);
            previous = id;
            have_previous = 1;
        }
        cass_iterator_free(rows);
        cass_bool_t more = cass_result_has_more_pages(result);
        if (more)
            cass_statement_set_paging_state(statement, result);
        cass_result_free(result);
        if (!more || failures)
            break;
    }
    cass_statement_free(statement);
    if (!failures && (expected != -1 || pages != N_MESSAGES / PAGE_SIZE + (N_MESSAGES % PAGE_SIZE != 0)))
        fail("paging did not return every message exactly once", NULL);
    return failures ? -1 : 0;
}

static cass_bool_t applied(const CassResult *result)
{
    cass_bool_t was_applied = cass_false;
    const CassRow *row = cass_result_first_row(result);
    if (row)
        cass_value_get_bool(cass_row_get_column_by_name(row, "[applied]"), &was_applied);
    return was_applied;
}

/* Claims a login with INSERT ... IF NOT EXISTS: the first claim wins, the second sees the owner. */
static int claim_login(CassSession *session)
{
    const char *query = "INSERT INTO chat_app.users (login, firstname, lastname, chat_rooms) "
                        "VALUES (?, ?, ?, ?) IF NOT EXISTS";
    const char *names[2][2] = {{"Alice", "Liddell"}, {"Alicia", "Keys"}};
    for (int attempt = 0; attempt < 2; attempt++) {
        CassStatement *statement = cass_statement_new(query, 4);
        CassCollection *rooms = cass_collection_new(CASS_COLLECTION_TYPE_SET, 1);
        cass_collection_append_string(rooms, "lobby");
        cass_statement_bind_string(statement, 0, "alice");
        cass_statement_bind_string(statement, 1, names[attempt][0]);
        cass_statement_bind_string(statement, 2, names[attempt][1]);
        cass_statement_bind_collection(statement, 3, rooms);
        cass_collection_free(rooms);
        cass_statement_set_serial_consistency(statement, CASS_CONSISTENCY_LOCAL_SERIAL);
        const CassResult *result = run(session, statement, "claim login");
        cass_statement_free(statement);
        if (!result)
            return -1;
        if (applied(result) != (attempt == 0))
            fail(attempt == 0 ? "first claim not applied" : "second claim applied", NULL);
        if (attempt == 1) {
            const char *first;
            size_t len;
            const CassRow *row = cass_result_first_row(result);
            if (cass_value_get_string(cass_row_get_column_by_name(row, "firstname"), &first,
                                      &len) != CASS_OK ||
                len != 5 || memcmp(first, "Alice", 5) != 0)
                fail("a refused claim does not show the owner's row", NULL);
            CassIterator *it =
                cass_iterator_from_collection(cass_row_get_column_by_name(row, "chat_rooms"));
            if (!it || !cass_iterator_next(it))
                fail("the owner's rooms are missing", NULL);
            cass_iterator_free(it);
        }
        cass_result_free(result);
    }
    return failures ? -1 : 0;
}

/* A logged batch of two plain writes, then a counter batch; read both back. */
static int write_batches(CassSession *session)
{
    CassBatch *batch = cass_batch_new(CASS_BATCH_TYPE_LOGGED);
    CassStatement *a = cass_statement_new(
        "UPDATE chat_app.users SET chat_rooms = chat_rooms + {'games'} WHERE login = 'alice'", 0);
    CassStatement *b = cass_statement_new(
        "INSERT INTO chat_app.users (login, firstname) VALUES ('bob', 'Bob')", 0);
    cass_batch_add_statement(batch, a);
    cass_batch_add_statement(batch, b);
    cass_statement_free(a);
    cass_statement_free(b);
    CassFuture *future = cass_session_execute_batch(session, batch);
    if (cass_future_error_code(future) != CASS_OK)
        fail("logged batch", future);
    cass_future_free(future);
    cass_batch_free(batch);

    batch = cass_batch_new(CASS_BATCH_TYPE_COUNTER);
    for (int i = 0; i < 3; i++) {
        CassStatement *inc = cass_statement_new(
            "UPDATE chat_app.room_stats SET messages = messages + ? WHERE room_name = ?", 2);
        cass_statement_bind_int64(inc, 0, 1000);
        cass_statement_bind_string(inc, 1, "lobby");
        cass_batch_add_statement(batch, inc);
        cass_statement_free(inc);
    }
    future = cass_session_execute_batch(session, batch);
    if (cass_future_error_code(future) != CASS_OK)
        fail("counter batch", future);
    cass_future_free(future);
    cass_batch_free(batch);

    CassStatement *check = cass_statement_new(
        "SELECT messages FROM chat_app.room_stats WHERE room_name = 'lobby'", 0);
    const CassResult *result = run(session, check, "read counter");
    cass_statement_free(check);
    if (result) {
        cass_int64_t count = 0;
        cass_value_get_int64(cass_row_get_column(cass_result_first_row(result), 0), &count);
        if (count != 3000)
            fail("counter batch did not add 3000", NULL);
        cass_result_free(result);
    }

    check = cass_statement_new("SELECT chat_rooms FROM chat_app.users WHERE login = 'alice'", 0);
    result = run(session, check, "read rooms");
    cass_statement_free(check);
    if (result) {
        const CassValue *rooms = cass_row_get_column(cass_result_first_row(result), 0);
        if (cass_value_item_count(rooms) != 2)
            fail("batch did not add the room", NULL);
        cass_result_free(result);
    }
    return failures ? -1 : 0;
}

/* A statement Cassandra refuses gives the server's error code and message. */
static void check_error(CassSession *session)
{
    CassStatement *statement = cass_statement_new("SELECT * FROM chat_app.no_such_table", 0);
    CassFuture *future = cass_session_execute(session, statement);
    if (cass_future_error_code(future) != CASS_ERROR_SERVER_INVALID_QUERY)
        fail("unknown table is not an invalid query", NULL);
    cass_future_free(future);
    cass_statement_free(statement);
}

int main(int argc, char **argv)
{
    const char *contact_points = argc > 1 ? argv[1] : "memory:";
    CassCluster *cluster = cass_cluster_new();
    CassSession *session = cass_session_new();
    CassUuidGen *gen = cass_uuid_gen_new();
    cass_cluster_set_contact_points(cluster, contact_points);
    cass_cluster_set_consistency(cluster, CASS_CONSISTENCY_LOCAL_QUORUM);

    CassFuture *connect = cass_session_connect(session, cluster);
    if (cass_future_error_code(connect) != CASS_OK) {
        fail("connect", connect);
    } else if (create_schema(session) == 0 && post_messages(session, gen) == 0 &&
               page_messages(session) == 0 && claim_login(session) == 0 &&
               write_batches(session) == 0) {
        check_error(session);
    }
    cass_future_free(connect);

    CassFuture *close = cass_session_close(session);
    cass_future_wait(close);
    cass_future_free(close);
    cass_uuid_gen_free(gen);
    cass_session_free(session);
    cass_cluster_free(cluster);
    if (failures)
        return 1;
    printf("driver app: ok\n");
    return 0;
}
