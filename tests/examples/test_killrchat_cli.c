/*
 * The killrchat terminal client (examples/killrchat/cli.c) under pseudo-terminals: two clients
 * on one database sign up, meet in a room and each sees what the other writes; a third run
 * logs back in. The client is the program beside the shell: dirname($CASSETTE)/bin/killrchat
 * (`make build/MODE/bin/killrchat`). Embedded, both clients open the same directory; remote,
 * both talk to the `cassette serve` of that directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/driver_test.h"

/* How long any expected text may take to appear. */
#define EXPECT_MS 15000

typedef struct client {
    pid_t pid;
    int fd;
    char out[65536];  /* everything the client printed */
    size_t len;
    size_t seen;      /* expect() matched up to here */
    const char *name;
} client;

static client *live[4];

static void kill_clients(void)
{
    for (int i = 0; i < 4; i++)
        if (live[i] && live[i]->pid > 0) {
            kill(live[i]->pid, SIGKILL);
            waitpid(live[i]->pid, NULL, 0);
            live[i]->pid = 0;
        }
}

static const char *client_path(char *buf, size_t cap)
{
    const char *shell = getenv("CASSETTE");
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", shell ? shell : "build/release/cassette");
    snprintf(buf, cap, "%s/bin/killrchat", dirname(tmp));
    return buf;
}

static void start(client *c, const char *name, const char *db)
{
    char path[1100];
    client_path(path, sizeof path);
    if (access(path, X_OK) != 0)
        test_fail(__FILE__, __LINE__, "no client at %s (make %s)", path, path);
    memset(c, 0, sizeof *c);
    c->name = name;
    struct winsize ws = {.ws_row = 40, .ws_col = 120};
    pid_t pid = forkpty(&c->fd, NULL, NULL, &ws);
    ASSERT(pid >= 0);
    if (pid == 0) {
        setenv("CASSETTE_URI", db, 1);
        execl(path, path, db, (char *)NULL);
        _exit(127);
    }
    c->pid = pid;
    for (int i = 0; i < 4; i++)
        if (!live[i]) {
            live[i] = c;
            break;
        }
}

/* Reads what c printed, for up to ms milliseconds. */
static void pump(client *c, int ms)
{
    struct pollfd p = {c->fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return;
    if (c->len + 1 >= sizeof c->out)
        test_fail(__FILE__, __LINE__, "%s printed too much", c->name);
    ssize_t n = read(c->fd, c->out + c->len, sizeof c->out - c->len - 1);
    if (n > 0) {
        c->len += (size_t)n;
        c->out[c->len] = '\0';
    }
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until c prints text (after what was matched before). */
#define EXPECT(c, text) expect(__FILE__, __LINE__, (c), (text))

static void expect(const char *file, int line, client *c, const char *text)
{
    int64_t end = now_ms() + EXPECT_MS;
    for (;;) {
        char *at = strstr(c->out + c->seen, text);
        if (at) {
            c->seen = (size_t)(at - c->out) + strlen(text);
            return;
        }
        int64_t left = end - now_ms();
        if (left <= 0)
            test_fail(file, line, "%s never printed \"%s\"; it printed:\n%s", c->name, text,
                      c->out + c->seen);
        pump(c, (int)(left < 200 ? left : 200));
    }
}

static void send_line(client *c, const char *text)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s\n", text);
    ASSERT_EQ(write(c->fd, buf, (size_t)n), n);
}

/* Waits for c to exit by itself; returns its exit status. */
static int finish(client *c)
{
    int64_t end = now_ms() + EXPECT_MS;
    int status = 0;
    for (;;) {
        pump(c, 50);
        pid_t r = waitpid(c->pid, &status, WNOHANG);
        if (r == c->pid)
            break;
        if (now_ms() > end)
            test_fail(__FILE__, __LINE__, "%s did not exit; it printed:\n%s", c->name,
                      c->out + c->seen);
    }
    c->pid = 0;
    close(c->fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void sign_up(client *c, const char *login, const char *pass, const char *first)
{
    EXPECT(c, "login: ");
    send_line(c, login);
    EXPECT(c, "signing up");
    EXPECT(c, "password: ");
    send_line(c, pass);
    EXPECT(c, "password again: ");
    send_line(c, pass);
    EXPECT(c, "first name: ");
    send_line(c, first);
    EXPECT(c, "last name: ");
    send_line(c, "Tester");
    EXPECT(c, "Welcome");
}

TEST(two_clients_chat_in_one_room)
{
    test_at_end(kill_clients);
    char contact[600], uri[700];
    snprintf(contact, sizeof contact, "file:%s/chat", test_tmpdir());
    test_database_uri(contact, uri, sizeof uri);

    static client a, b, again;
    start(&a, "alice's client", uri);
    sign_up(&a, "alice", "wonderland", "Alice");
    EXPECT(&a, "room (empty: none): ");
    send_line(&a, "/create lobby Say hello");
    EXPECT(&a, "=== lobby: Say hello (created by alice, 1 here) ===");
    EXPECT(&a, "* alice created the room");

    start(&b, "bob's client", uri);
    sign_up(&b, "bob", "builder", "Bob");
    EXPECT(&b, "room (empty: none): ");
    send_line(&b, "lobby");
    EXPECT(&b, "(created by alice, 2 here)");
    EXPECT(&b, "* bob joined");

    /* Each sees the other, by polling. */
    EXPECT(&a, "* bob joined");
    send_line(&b, "hello from bob");
    EXPECT(&a, "<bob> hello from bob");
    send_line(&a, "hi bob, alice here");
    EXPECT(&b, "<alice> hi bob, alice here");
    send_line(&a, "/who");
    EXPECT(&a, "bob (Bob Tester)");
    send_line(&b, "/delete");
    EXPECT(&b, "only the creator");
    send_line(&b, "/quit");
    ASSERT_EQ(finish(&b), 0);
    send_line(&a, "/quit");
    ASSERT_EQ(finish(&a), 0);

    /* Back again: a wrong password, then the right one; the room and its history are there. */
    start(&again, "alice's second client", uri);
    EXPECT(&again, "login: ");
    send_line(&again, "alice");
    EXPECT(&again, "password: ");
    send_line(&again, "rabbit");
    EXPECT(&again, "wrong password");
    EXPECT(&again, "password: ");
    send_line(&again, "wonderland");
    EXPECT(&again, "Your rooms: lobby");
    EXPECT(&again, "room [lobby]: ");
    send_line(&again, "");
    EXPECT(&again, "<bob> hello from bob");
    EXPECT(&again, "<alice> hi bob, alice here");
    send_line(&again, "/history");
    EXPECT(&again, "(the start of lobby)");
    send_line(&again, "/rooms");
    EXPECT(&again, "* lobby");
    send_line(&again, "/quit");
    ASSERT_EQ(finish(&again), 0);
}

/* With stdin a pipe (no terminal), the client reads the lines as they come: a script. */
TEST(scripted_session_through_a_pipe)
{
    test_at_end(kill_clients);
    char contact[600], uri[700], path[1100];
    snprintf(contact, sizeof contact, "file:%s/script", test_tmpdir());
    test_database_uri(contact, uri, sizeof uri);
    client_path(path, sizeof path);
    if (access(path, X_OK) != 0)
        test_fail(__FILE__, __LINE__, "no client at %s (make %s)", path, path);
    const char *script = "carol\nsecret\nsecret\nCarol\nC\n\n"
                         "/create book-club Reading together\n"
                         "first post\n"
                         "/rooms\n"
                         "/who\n"
                         "/bogus\n"
                         "/leave\n"
                         "typed with no room\n"
                         "/join book-club\n"
                         "/quit\n";
    int in[2], out[2];
    ASSERT_EQ(pipe(in), 0);
    ASSERT_EQ(pipe(out), 0);
    static client c;
    memset(&c, 0, sizeof c);
    c.name = "scripted client";
    c.pid = fork();
    ASSERT(c.pid >= 0);
    if (c.pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        close(in[1]);
        close(out[0]);
        execl(path, path, uri, (char *)NULL);
        _exit(127);
    }
    live[3] = &c;
    close(in[0]);
    close(out[1]);
    c.fd = out[0];
    ASSERT_EQ(write(in[1], script, strlen(script)), (ssize_t)strlen(script));
    close(in[1]);
    ASSERT_EQ(finish(&c), 0);
    EXPECT(&c, "No account 'carol' yet");
    EXPECT(&c, "=== book-club: Reading together (created by carol, 1 here) ===");
    EXPECT(&c, "<carol> first post");
    EXPECT(&c, "* book-club");
    EXPECT(&c, "carol (Carol C)");
    EXPECT(&c, "unknown command /bogus");
    EXPECT(&c, "* you left book-club");
    EXPECT(&c, "no room open");
    EXPECT(&c, "(created by carol, 1 here)");
    EXPECT(&c, "* carol left");
    EXPECT(&c, "* carol joined");
}
