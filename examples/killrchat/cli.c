/*
 * killrchat: a terminal chat client on the KillrChat data layer.
 *
 *   killrchat DB      DB: file:DIR, memory:, or cql://HOST:PORT (a `cassette serve` or a
 *                     Cassandra node); without DB, CASSETTE_URI names the database.
 *
 * It asks for a login (and signs the user up when the login is new), then a room. Lines typed
 * are posted to the room; messages of others appear as they arrive (the room is polled every
 * half second while stdin is idle). Commands: /rooms, /join ROOM, /leave, /create ROOM
 * [banner], /delete, /history, /who, /help, /quit. Plain line input and output: with stdin
 * not a terminal, the lines are read as they come, so a session can be scripted.
 */
#include "killrchat.h"

#include "../common/cqlutil.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 500
/* Every so many idle polls, check that the open room still exists. */
#define ROOM_CHECK_POLLS 10
#define HISTORY_PAGE 20

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* ---- Line input with a timeout --------------------------------------------------------- */

static char inbuf[8192];
static size_t inlen;
static int in_eof;

/* Takes one line from inbuf into line (without the newline). 1 if there was one. */
static int take_line(char *line, size_t cap)
{
    char *nl = memchr(inbuf, '\n', inlen);
    if (!nl && !(in_eof && inlen > 0) && inlen < sizeof inbuf)
        return 0;
    size_t n = nl ? (size_t)(nl - inbuf) : inlen;
    size_t copy = n < cap - 1 ? n : cap - 1;
    memcpy(line, inbuf, copy);
    line[copy] = '\0';
    if (copy && line[copy - 1] == '\r')
        line[copy - 1] = '\0';
    size_t used = nl ? n + 1 : n;
    memmove(inbuf, inbuf + used, inlen - used);
    inlen -= used;
    return 1;
}

/* Reads a line from stdin, waiting at most timeout_ms (-1: for ever). 1 a line, 0 the time
   ran out (or a signal), -1 end of input. */
static int read_line(char *line, size_t cap, int timeout_ms)
{
    for (;;) {
        if (take_line(line, cap))
            return 1;
        if (in_eof || stop)
            return stop ? 0 : -1;
        struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
        int rc = poll(&pfd, 1, timeout_ms);
        if (rc < 0 && errno == EINTR)
            return 0;
        if (rc <= 0)
            return 0;
        ssize_t n = read(STDIN_FILENO, inbuf + inlen, sizeof inbuf - inlen);
        if (n < 0 && errno == EINTR)
            return 0;
        if (n <= 0)
            in_eof = 1;
        else
            inlen += (size_t)n;
    }
}

/* Asks a question and reads the answer; hidden turns the terminal's echo off. -1 at the end
   of input. */
static int ask(const char *prompt, char *line, size_t cap, int hidden)
{
    struct termios old, quiet;
    int tty = hidden && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    }
    printf("%s", prompt);
    fflush(stdout);
    int rc;
    do
        rc = read_line(line, cap, -1);
    while (rc == 0 && !stop);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSANOW, &old);
        printf("\n");
    }
    return rc == 1 ? 0 : -1;
}

/* ---- The chat state -------------------------------------------------------------------- */

typedef struct chat {
    kc_db *db;
    kc_user me;
    char room[KC_NAME_MAX + 1]; /* "" when no room is open */
    CassUuid newest, oldest;    /* the newest and oldest message shown */
    int have_newest, have_oldest;
    int32_t last_day;           /* the day of the last message printed */
    int idle_polls;
} chat;

static void say_err(const char *what, const kc_err *e)
{
    printf("! %s: %s\n", what, e->msg[0] ? e->msg : kc_status_name(e->code));
}

static void print_message(chat *c, const kc_message *m)
{
    time_t t = (time_t)(m->time_us / 1000000);
    struct tm tm;
    localtime_r(&t, &tm);
    int32_t day = (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
    if (day != c->last_day) {
        printf("--- %04d-%02d-%02d ---\n", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
        c->last_day = day;
    }
    if (m->system)
        printf("[%02d:%02d:%02d] * %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec, m->content);
    else
        printf("[%02d:%02d:%02d] <%s> %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec, m->author.login,
               m->content);
}

/* Prints the messages after the newest shown. */
static void poll_room(chat *c)
{
    if (!c->room[0])
        return;
    kc_message_list l;
    kc_err e;
    if (!c->have_newest) {
        /* An empty room so far: everything from a minute ago on. */
        cass_uuid_max_from_time((cass_uint64_t)(kc_now(c->db) / 1000 - 60000), &c->newest);
        c->have_newest = 1;
    }
    for (;;) {
        if (kc_messages_after(c->db, c->room, c->newest, 100, &l, &e) != KC_OK) {
            say_err("reading messages", &e);
            return;
        }
        for (size_t i = 0; i < l.count; i++)
            print_message(c, &l.items[i]);
        if (l.count) {
            c->newest = l.items[l.count - 1].id;
            if (!c->have_oldest) {
                c->oldest = l.items[0].id;
                c->have_oldest = 1;
            }
        }
        size_t n = l.count;
        kc_message_list_free(&l);
        if (n < 100)
            break;
    }
    fflush(stdout);
}

/* Opens room: shows its banner, participants and last messages. */
static void open_room(chat *c, const char *room)
{
    kc_room r;
    kc_err e;
    if (kc_get_room(c->db, room, &r, &e) != KC_OK) {
        say_err(room, &e);
        return;
    }
    snprintf(c->room, sizeof c->room, "%s", room);
    c->have_newest = c->have_oldest = 0;
    c->last_day = 0;
    c->idle_polls = 0;
    printf("=== %s%s%s (created by %s, %zu here) ===\n", r.name, r.banner[0] ? ": " : "",
           r.banner, r.creator.login, r.n_participants);
    kc_room_free(&r);
    kc_message_list l;
    if (kc_messages_latest(c->db, room, HISTORY_PAGE, &l, &e) != KC_OK) {
        say_err("reading messages", &e);
        return;
    }
    for (size_t i = 0; i < l.count; i++)
        print_message(c, &l.items[i]);
    if (l.count) {
        c->oldest = l.items[0].id;
        c->newest = l.items[l.count - 1].id;
        c->have_oldest = c->have_newest = 1;
    }
    kc_message_list_free(&l);
    fflush(stdout);
}

static void join_and_open(chat *c, const char *room)
{
    kc_err e;
    if (kc_join_room(c->db, c->me.login, room, &e) != KC_OK) {
        say_err(room, &e);
        if (e.code == KC_NOT_FOUND)
            printf("  (/create %s makes it)\n", room);
        return;
    }
    open_room(c, room);
}

static void cmd_rooms(chat *c)
{
    kc_room_list l;
    kc_err e;
    if (kc_list_rooms(c->db, 200, &l, &e) != KC_OK) {
        say_err("rooms", &e);
        return;
    }
    if (l.count == 0)
        printf("no rooms yet: /create ROOM [banner]\n");
    for (size_t i = 0; i < l.count; i++) {
        int mine = 0;
        for (size_t j = 0; j < l.items[i].n_participants; j++)
            mine |= strcmp(l.items[i].participants[j].login, c->me.login) == 0;
        printf("%c %-20s %3zu here  %s\n", mine ? '*' : ' ', l.items[i].name,
               l.items[i].n_participants, l.items[i].banner);
    }
    kc_room_list_free(&l);
}

static void cmd_who(chat *c)
{
    kc_room r;
    kc_err e;
    if (kc_get_room(c->db, c->room, &r, &e) != KC_OK) {
        say_err(c->room, &e);
        return;
    }
    for (size_t i = 0; i < r.n_participants; i++)
        printf("  %s (%s %s)\n", r.participants[i].login, r.participants[i].firstname,
               r.participants[i].lastname);
    kc_room_free(&r);
}

static void cmd_history(chat *c)
{
    kc_message_list l;
    kc_err e;
    if (!c->have_oldest) {
        printf("(no earlier messages)\n");
        return;
    }
    if (kc_messages_before(c->db, c->room, c->oldest, HISTORY_PAGE, &l, &e) != KC_OK) {
        say_err("history", &e);
        return;
    }
    if (l.count == 0)
        printf("(the start of %s)\n", c->room);
    else
        printf("--- earlier in %s ---\n", c->room);
    int32_t keep = c->last_day;
    c->last_day = 0;
    for (size_t i = 0; i < l.count; i++)
        print_message(c, &l.items[i]);
    if (l.count) {
        c->oldest = l.items[0].id;
        printf("--- (back to now) ---\n");
    }
    c->last_day = keep;
    kc_message_list_free(&l);
}

static void help(void)
{
    printf("Type a line to post it to the open room. Commands:\n"
           "  /rooms                  every room (* the ones you are in)\n"
           "  /join ROOM              join a room and open it\n"
           "  /create ROOM [banner]   create a room and open it\n"
           "  /leave                  leave the open room\n"
           "  /delete                 delete the open room (its creator only)\n"
           "  /history                the messages before the oldest shown\n"
           "  /who                    the participants of the open room\n"
           "  /help, /quit\n");
}

/* Runs one command line; returns 1 to quit. */
static int command(chat *c, char *line)
{
    char *cmd = strtok(line, " \t");
    char *arg = strtok(NULL, " \t");
    char *rest = arg ? strtok(NULL, "") : NULL;
    kc_err e;
    if (strcmp(cmd, "/quit") == 0 || strcmp(cmd, "/exit") == 0)
        return 1;
    if (strcmp(cmd, "/help") == 0) {
        help();
    } else if (strcmp(cmd, "/rooms") == 0) {
        cmd_rooms(c);
    } else if (strcmp(cmd, "/join") == 0) {
        if (!arg)
            printf("usage: /join ROOM\n");
        else
            join_and_open(c, arg);
    } else if (strcmp(cmd, "/create") == 0) {
        if (!arg) {
            printf("usage: /create ROOM [banner]\n");
        } else if (kc_create_room(c->db, c->me.login, arg, rest, &e) != KC_OK) {
            say_err(arg, &e);
        } else {
            open_room(c, arg);
        }
    } else if (!c->room[0] && (strcmp(cmd, "/leave") == 0 || strcmp(cmd, "/delete") == 0 ||
                               strcmp(cmd, "/history") == 0 || strcmp(cmd, "/who") == 0)) {
        printf("no room open: /join ROOM\n");
    } else if (strcmp(cmd, "/leave") == 0) {
        if (kc_leave_room(c->db, c->me.login, c->room, &e) != KC_OK && e.code != KC_NOT_FOUND)
            say_err(c->room, &e);
        else
            printf("* you left %s\n", c->room);
        c->room[0] = '\0';
    } else if (strcmp(cmd, "/delete") == 0) {
        if (kc_delete_room(c->db, c->me.login, c->room, &e) != KC_OK) {
            say_err(c->room, &e);
        } else {
            printf("* %s deleted\n", c->room);
            c->room[0] = '\0';
        }
    } else if (strcmp(cmd, "/history") == 0) {
        cmd_history(c);
    } else if (strcmp(cmd, "/who") == 0) {
        cmd_who(c);
    } else {
        printf("unknown command %s (/help)\n", cmd);
    }
    fflush(stdout);
    return 0;
}

/* ---- Signing in ------------------------------------------------------------------------ */

/* Logs in or signs up; 0 with c->me set, -1 at the end of input. */
static int sign_in(chat *c)
{
    char login[256], pass[256], again[256], first[256], last[256];
    kc_err e;
    for (;;) {
        if (ask("login: ", login, sizeof login, 0) < 0)
            return -1;
        if (!login[0])
            continue;
        kc_profile p;
        kc_status s = kc_get_profile(c->db, login, &p, &e);
        if (s == KC_OK) {
            kc_profile_free(&p);
            for (int tries = 0; tries < 3; tries++) {
                if (ask("password: ", pass, sizeof pass, 1) < 0)
                    return -1;
                s = kc_login(c->db, login, pass, &c->me, &e);
                if (s == KC_OK)
                    return 0;
                say_err("login", &e);
            }
            continue;
        }
        if (s != KC_NOT_FOUND) {
            say_err("login", &e);
            continue;
        }
        printf("No account '%s' yet: signing up.\n", login);
        if (ask("password: ", pass, sizeof pass, 1) < 0 ||
            ask("password again: ", again, sizeof again, 1) < 0)
            return -1;
        if (strcmp(pass, again) != 0) {
            printf("! the passwords differ\n");
            continue;
        }
        if (ask("first name: ", first, sizeof first, 0) < 0 ||
            ask("last name: ", last, sizeof last, 0) < 0)
            return -1;
        s = kc_create_user(c->db, login, pass, first, last, NULL, NULL, &e);
        if (s != KC_OK) {
            say_err("sign up", &e);
            continue;
        }
        if (kc_login(c->db, login, pass, &c->me, &e) == KC_OK) {
            printf("Welcome, %s!\n", first[0] ? first : login);
            return 0;
        }
        say_err("login", &e);
    }
}

/* Asks for the first room: one of the user's, or any other name to join. */
static int choose_room(chat *c)
{
    kc_profile p;
    kc_err e;
    if (kc_get_profile(c->db, c->me.login, &p, &e) != KC_OK) {
        say_err("profile", &e);
        return 0;
    }
    char prompt[512], line[256];
    if (p.n_rooms) {
        printf("Your rooms:");
        for (size_t i = 0; i < p.n_rooms; i++)
            printf(" %s", p.rooms[i]);
        printf("\n");
        snprintf(prompt, sizeof prompt, "room [%s]: ", p.rooms[0]);
    } else {
        printf("You are in no room yet (/rooms lists them, /create ROOM makes one).\n");
        snprintf(prompt, sizeof prompt, "room (empty: none): ");
    }
    if (ask(prompt, line, sizeof line, 0) < 0) {
        kc_profile_free(&p);
        return -1;
    }
    if (line[0] == '/')
        command(c, line);
    else if (line[0])
        join_and_open(c, line);
    else if (p.n_rooms)
        join_and_open(c, p.rooms[0]);
    kc_profile_free(&p);
    return 0;
}

int main(int argc, char **argv)
{
    const char *contact = argc > 1 ? argv[1] : getenv("CASSETTE_URI");
    if (!contact || !*contact || (argc > 1 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: killrchat DB   (DB: file:DIR, memory:, cql://HOST:PORT; "
                        "or set CASSETTE_URI)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    CassCluster *cluster;
    CassSession *session;
    char msg[512];
    if (cu_connect(contact, &cluster, &session, msg, sizeof msg) != CASS_OK) {
        fprintf(stderr, "killrchat: %s: %s\n", contact, msg);
        return 1;
    }
    chat c;
    memset(&c, 0, sizeof c);
    kc_err e;
    if (kc_open(session, NULL, &c.db, &e) != KC_OK) {
        fprintf(stderr, "killrchat: %s\n", e.msg);
        cu_disconnect(cluster, session);
        return 1;
    }
    printf("KillrChat on %s. /help lists the commands.\n", contact);
    int rc = 0;
    if (sign_in(&c) == 0 && choose_room(&c) == 0) {
        char line[KC_MESSAGE_MAX + 2];
        while (!stop) {
            int r = read_line(line, sizeof line, c.room[0] ? POLL_MS : -1);
            if (r < 0)
                break;
            if (r == 0) {
                poll_room(&c);
                if (c.room[0] && ++c.idle_polls >= ROOM_CHECK_POLLS) {
                    kc_room room;
                    c.idle_polls = 0;
                    if (kc_get_room(c.db, c.room, &room, &e) == KC_OK) {
                        kc_room_free(&room);
                    } else if (e.code == KC_NOT_FOUND) {
                        printf("* %s was deleted\n", c.room);
                        c.room[0] = '\0';
                    }
                }
                continue;
            }
            if (!line[0])
                continue;
            if (line[0] == '/') {
                if (command(&c, line))
                    break;
            } else if (!c.room[0]) {
                printf("no room open: /join ROOM or /create ROOM\n");
            } else if (kc_post_message(c.db, &c.me, c.room, line, NULL, &e) != KC_OK) {
                say_err("post", &e);
            }
            poll_room(&c);
        }
        /* Whatever arrived last, before leaving. */
        poll_room(&c);
    }
    kc_user_free(&c.me);
    if (kc_close(c.db, &e) != KC_OK) {
        fprintf(stderr, "killrchat: %s\n", e.msg);
        rc = 1;
    }
    cu_disconnect(cluster, session);
    return rc;
}
