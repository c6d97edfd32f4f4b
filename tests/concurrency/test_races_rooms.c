/*
 * KillrChat's chat rooms (seed 000, schema of seed 003) raced by threads and
 * by processes: the application logic exactly as the seed describes it, run
 * many times with random start offsets, and after every round the invariants
 * the seed's lightweight transactions are there to keep.
 *
 * The application:
 *  - users and rooms are created with INSERT ... IF NOT EXISTS;
 *  - joining: UPDATE chat_rooms SET participants = participants + {user}
 *    WHERE room_name = ? IF EXISTS, and only if applied, add the room to the
 *    user's users.chat_rooms;
 *  - leaving: plain removal from participants and from the user's list (the
 *    seed: no lightweight transaction needed, removals are tombstones);
 *  - deleting: read the participants, DELETE FROM chat_rooms WHERE
 *    room_name = ? IF creator_login = <me> AND participants = <what was
 *    read>; when refused, read again and retry (giving up when the refusal
 *    shows another creator or no room); once applied, remove the room from
 *    each deleted participant's list.
 *
 * The invariants, checked when every actor of a round has finished:
 *  1. no half-deleted room: a chat_rooms row is complete (creator,
 *     creator_login, creation_date, banner) or absent, never participants
 *     alone (the corruption the seed's IF EXISTS prevents);
 *  2. only the creator deletes a room: no other actor's DELETE applies;
 *  3. a live room's participants all list it, and nobody else does;
 *  4. nobody lists a deleted room -- with one exception the seed's logic
 *     allows: a joiner's own-list update that had not returned when the
 *     creator began removing the room from that joiner's list may land
 *     after the removal (the two writes race; the later timestamp wins). A
 *     dangling entry is a violation whenever the joiner's update returned
 *     before the removal was sent, since the removal then has the later
 *     timestamp (server timestamps strictly increase, facts §9);
 *  5. the applied DELETE's participants are exactly the joins that applied
 *     (an applied join is in the set; a refused one is not), plus the
 *     creator and the participants from before the round.
 * and each scenario's outcome: the creator's delete always succeeds in the
 * end; a non-creator's never does.
 *
 * Scenarios (seed 000 §III): (a) join vs delete, (b) leave vs delete,
 * (c) delete vs several new participants joining, (d) a non-creator trying
 * to delete, alone (the room survives) or against the creator's delete.
 * The last test runs (a) with the seed's naive join (no IF EXISTS) and
 * expects invariant 1 to catch the corruption the seed describes: the
 * checker can fail, and the start offsets do reach the interleaving.
 *
 * Short mode: 60 rounds per test; `make test-long`: 5000. Rooms and users are
 * new each round. CASSETTE_SEED replays the start offsets.
 */
#include "race_util.h"

#define NAME 40
#define MAX_ACTORS 6
#define MAX_USERS 8
#define MAX_DELETE_TRIES 1000

enum role { R_IDLE, R_DELETE, R_JOIN, R_JOIN_NO_IF, R_LEAVE };

enum scenario {
    SC_JOIN_VS_DELETE,
    SC_LEAVE_VS_DELETE,
    SC_DELETE_VS_NEW_PARTICIPANTS,
    SC_NON_CREATOR_DELETE,
    SC_NAIVE_JOIN_VS_DELETE
};

typedef struct actor {
    int role;
    char login[NAME];
    int jitter_us; /* start offset of this round */
    int after_delete; /* a joiner that starts only once actor 0's DELETE has returned */
    /* results */
    int join_applied;   /* 1 applied, 0 refused, -1 no join */
    long join_sent;     /* ticket before the joiner's UPDATE of chat_rooms was sent */
    long add_done;      /* ticket once the joiner's own-list add returned */
    int delete_applied; /* this actor's DELETE applied */
    long delete_done;   /* ticket once that DELETE returned */
    int gave_up;        /* a refusal showed another creator, or no room */
    int n_deleted;      /* the participants the applied DELETE had */
    char deleted[MAX_USERS][NAME];
    long cleanup[MAX_USERS]; /* ticket before removing the room from deleted[i]'s list */
} actor;

typedef struct rooms_shared {
    race_ctl ctl;
    char room[NAME];
    char creator[NAME];
    int n_actors;
    actor a[MAX_ACTORS];
    int n_users; /* every user of the round: creator, earlier participants, actors */
    char users[MAX_USERS][NAME];
    int n_before; /* participants before the round (creator first) */
    char before[MAX_USERS][NAME];
} rooms_shared;

/* A participant as the seed stores it: frozen<user> (login, firstname, lastname). */
typedef struct person {
    char login[NAME], first[NAME], last[NAME];
} person;

/* Appends src to the string in buf (cap bytes); the statement texts are bounded. */
static void put(char *buf, size_t cap, const char *src)
{
    size_t len = strlen(buf), n = strlen(src);
    if (len + n >= cap)
        RFAIL("text too long for its buffer");
    memcpy(buf + len, src, n + 1);
}

/* Copies a name (test names are short; a longer one is an error). */
static void copy_name(char *dst, const char *src)
{
    dst[0] = 0;
    put(dst, NAME, src);
}

static void person_of(person *p, const char *login)
{
    copy_name(p->login, login);
    copy_name(p->first, "F-");
    put(p->first, NAME, login);
    copy_name(p->last, "L-");
    put(p->last, NAME, login);
}

#define LITERAL (3 * NAME + 64)

/* The CQL literal of a user value. */
static char *user_literal(char *buf, size_t cap, const person *p)
{
    buf[0] = 0;
    put(buf, cap, "{login: '");
    put(buf, cap, p->login);
    put(buf, cap, "', firstname: '");
    put(buf, cap, p->first);
    put(buf, cap, "', lastname: '");
    put(buf, cap, p->last);
    put(buf, cap, "'}");
    return buf;
}

static char *user_literal_of(char *buf, size_t cap, const char *login)
{
    person p;
    person_of(&p, login);
    return user_literal(buf, cap, &p);
}

/* The CQL literal of a set of users, as read. */
static char *set_literal(char *buf, size_t cap, const person *ps, int n)
{
    buf[0] = 0;
    put(buf, cap, "{");
    for (int i = 0; i < n; i++) {
        char u[LITERAL];
        if (i)
            put(buf, cap, ", ");
        put(buf, cap, user_literal(u, sizeof u, &ps[i]));
    }
    put(buf, cap, "}");
    return buf;
}

/* Reads a set<frozen<user>> value into ps; returns the count (0 for null). */
static int read_people(const CassValue *v, person *ps, int max)
{
    if (!v || cass_value_is_null(v))
        return 0;
    CassIterator *it = cass_iterator_from_collection(v);
    RCHECK(it);
    int n = 0;
    while (cass_iterator_next(it)) {
        RCHECK(n < max);
        person *p = &ps[n++];
        memset(p, 0, sizeof *p);
        CassIterator *f = cass_iterator_fields_from_user_type(cass_iterator_get_value(it));
        RCHECK(f);
        while (cass_iterator_next(f)) {
            const char *name;
            size_t len;
            RCHECK(cass_iterator_get_user_type_field_name(f, &name, &len) == CASS_OK);
            const CassValue *fv = cass_iterator_get_user_type_field_value(f);
            if (len == 5 && !memcmp(name, "login", 5))
                race_text(fv, p->login, sizeof p->login);
            else if (len == 9 && !memcmp(name, "firstname", 9))
                race_text(fv, p->first, sizeof p->first);
            else if (len == 8 && !memcmp(name, "lastname", 8))
                race_text(fv, p->last, sizeof p->last);
        }
        cass_iterator_free(f);
    }
    cass_iterator_free(it);
    return n;
}

static int people_have(const person *ps, int n, const char *login)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(ps[i].login, login))
            return 1;
    return 0;
}

static int same_people(const person *a, int na, const person *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (!people_have(b, nb, a[i].login))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The application (seed 000)                                               */
/* ------------------------------------------------------------------------ */

static void create_user(CassSession *s, const char *login)
{
    person p;
    person_of(&p, login);
    const CassResult *r = RQUERY(s,
                                 "INSERT INTO killrchat.users (login, pass, lastname, firstname, "
                                 "bio, email, chat_rooms) VALUES ('%s', 'secret', '%s', '%s', "
                                 "'bio', '%s@killrchat.com', {}) IF NOT EXISTS",
                                 login, p.last, p.first, login);
    RCHECK(race_applied(r));
    cass_result_free(r);
}

static void create_room(CassSession *s, const char *room, const char *creator)
{
    char u[LITERAL];
    user_literal_of(u, sizeof u, creator);
    const CassResult *r = RQUERY(s,
                                 "INSERT INTO killrchat.chat_rooms (room_name, creation_date, "
                                 "banner, creator, creator_login, participants) VALUES ('%s', "
                                 "'2015-01-01 10:00:00+0000', 'Banner of %s', %s, '%s', {%s}) "
                                 "IF NOT EXISTS",
                                 room, room, u, creator, u);
    RCHECK(race_applied(r));
    cass_result_free(r);
    RRUN(s, "UPDATE killrchat.users SET chat_rooms = chat_rooms + {'%s'} WHERE login = '%s'", room,
         creator);
}

/* Joins: IF EXISTS (or the seed's naive form without it), then the user's own list. */
static void join_room(CassSession *s, actor *a, const char *room, int if_exists)
{
    char u[LITERAL];
    user_literal_of(u, sizeof u, a->login);
    a->join_sent = race_ticket();
    const CassResult *r = RQUERY(s,
                                 "UPDATE killrchat.chat_rooms SET participants = participants + "
                                 "{%s} WHERE room_name = '%s'%s",
                                 u, room, if_exists ? " IF EXISTS" : "");
    if (if_exists) {
        a->join_applied = race_applied(r);
        /* refused IF EXISTS: the row is gone, so the result is [applied] alone (facts §5.3) */
        if (!a->join_applied)
            RCHECK(cass_result_column_count(r) == 1);
    } else {
        a->join_applied = 1;
    }
    cass_result_free(r);
    if (a->join_applied) {
        RRUN(s, "UPDATE killrchat.users SET chat_rooms = chat_rooms + {'%s'} WHERE login = '%s'",
             room, a->login);
        a->add_done = race_ticket();
    }
}

static void leave_room(CassSession *s, actor *a, const char *room)
{
    char u[LITERAL];
    user_literal_of(u, sizeof u, a->login);
    RRUN(s,
         "UPDATE killrchat.chat_rooms SET participants = participants - {%s} "
         "WHERE room_name = '%s'",
         u, room);
    RRUN(s, "UPDATE killrchat.users SET chat_rooms = chat_rooms - {'%s'} WHERE login = '%s'", room,
         a->login);
}

/* Deletes as a->login, with the seed's conditions; retried on refusal after a fresh read. */
static void delete_room(CassSession *s, actor *a, const char *room)
{
    for (int tries = 0; tries < MAX_DELETE_TRIES; tries++) {
        const CassResult *r = RQUERY(
            s,
            "SELECT creator_login, participants FROM killrchat.chat_rooms WHERE room_name = '%s'",
            room);
        if (cass_result_row_count(r) == 0) {
            cass_result_free(r);
            a->gave_up = 1;
            return;
        }
        person ps[MAX_USERS];
        int n = read_people(cass_row_get_column(cass_result_first_row(r), 1), ps, MAX_USERS);
        cass_result_free(r);
        char set[MAX_USERS * LITERAL];
        set_literal(set, sizeof set, ps, n);
        r = RQUERY(s,
                   "DELETE FROM killrchat.chat_rooms WHERE room_name = '%s' "
                   "IF creator_login = '%s' AND participants = %s",
                   room, a->login, set);
        if (race_applied(r)) {
            RCHECK(cass_result_column_count(r) == 1);
            cass_result_free(r);
            a->delete_applied = 1;
            __atomic_store_n(&a->delete_done, race_ticket(), __ATOMIC_RELEASE); /* read by a forced joiner */
            a->n_deleted = n;
            for (int i = 0; i < n; i++) {
                copy_name(a->deleted[i], ps[i].login);
                a->cleanup[i] = race_ticket();
                RRUN(s,
                     "UPDATE killrchat.users SET chat_rooms = chat_rooms - {'%s'} "
                     "WHERE login = '%s'",
                     room, ps[i].login);
            }
            return;
        }
        if (cass_result_column_count(r) == 1) { /* no row any more */
            cass_result_free(r);
            a->gave_up = 1;
            return;
        }
        /* refused: the condition columns, regular ones in IF order (facts §5.3) */
        char name[64], creator[NAME];
        RCHECK(cass_result_column_count(r) == 3);
        RCHECK(!strcmp(race_column_name(r, 1, name, sizeof name), "creator_login"));
        RCHECK(!strcmp(race_column_name(r, 2, name, sizeof name), "participants"));
        const CassRow *row = cass_result_first_row(r);
        race_text(cass_row_get_column(row, 1), creator, sizeof creator);
        person now[MAX_USERS];
        int n_now = read_people(cass_row_get_column(row, 2), now, MAX_USERS);
        cass_result_free(r);
        if (strcmp(creator, a->login) != 0) {
            a->gave_up = 1; /* not the creator (or the row lost its creator) */
            return;
        }
        if (same_people(ps, n, now, n_now))
            RFAIL("%s: DELETE refused although creator_login = %s and participants = %s", room,
                  a->login, set);
    }
    RFAIL("%s: %s's DELETE refused %d times", room, a->login, MAX_DELETE_TRIES);
}

static void spin_us(int us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/* One actor's part of a round. */
static void actor_round(CassSession *s, int me, int round, void *arg)
{
    (void)round;
    rooms_shared *sh = arg;
    if (me >= sh->n_actors)
        return;
    actor *a = &sh->a[me];
    spin_us(a->jitter_us);
    if (a->after_delete) {
        /* the forced interleaving: the deleter (actor 0) set delete_done when its DELETE
           returned; give up after 10 s rather than hang (the round then fails its check) */
        for (int i = 0; i < 500000 && !__atomic_load_n(&sh->a[0].delete_done, __ATOMIC_ACQUIRE);
             i++)
            race_sleep_us(20);
    }
    switch (a->role) {
    case R_DELETE:
        delete_room(s, a, sh->room);
        break;
    case R_JOIN:
        join_room(s, a, sh->room, 1);
        break;
    case R_JOIN_NO_IF:
        join_room(s, a, sh->room, 0);
        break;
    case R_LEAVE:
        leave_room(s, a, sh->room);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* Rounds                                                                    */
/* ------------------------------------------------------------------------ */

static int scenario_actors(int sc)
{
    switch (sc) {
    case SC_DELETE_VS_NEW_PARTICIPANTS:
        return 4;
    case SC_NON_CREATOR_DELETE:
        return 3;
    default:
        return 2;
    }
}

static void add_actor(rooms_shared *sh, int role, const char *login)
{
    actor *a = &sh->a[sh->n_actors++];
    memset(a, 0, sizeof *a);
    a->role = role;
    a->join_applied = -1;
    copy_name(a->login, login);
}

static void add_user(rooms_shared *sh, const char *login)
{
    copy_name(sh->users[sh->n_users++], login);
}

/* The round's users and room, made by the test process; then the actors' parts. force: the
   naive scenario's joiner waits for the delete instead of a random start offset. */
static void setup_round(CassSession *s, rooms_shared *sh, int sc, int round, uint64_t *rng,
                        int force)
{
    char login[NAME];
    sh->n_actors = sh->n_users = sh->n_before = 0;
    snprintf(sh->room, NAME, "room-%d", round);
    snprintf(sh->creator, NAME, "r%d-creator", round);
    add_user(sh, sh->creator);
    copy_name(sh->before[sh->n_before++], sh->creator);
    /* who was in the room before the round */
    const char *earlier[2] = {NULL, NULL};
    if (sc == SC_LEAVE_VS_DELETE)
        earlier[0] = "leaver";
    else if (sc == SC_DELETE_VS_NEW_PARTICIPANTS)
        earlier[0] = "p1", earlier[1] = "p2";
    else if (sc == SC_NON_CREATOR_DELETE)
        earlier[0] = "other";
    for (int i = 0; i < 2 && earlier[i]; i++) {
        snprintf(login, NAME, "r%d-%s", round, earlier[i]);
        add_user(sh, login);
        copy_name(sh->before[sh->n_before++], login);
    }
    /* the actors */
    switch (sc) {
    case SC_JOIN_VS_DELETE:
    case SC_NAIVE_JOIN_VS_DELETE:
        add_actor(sh, R_DELETE, sh->creator);
        snprintf(login, NAME, "r%d-joiner", round);
        add_user(sh, login);
        add_actor(sh, sc == SC_JOIN_VS_DELETE ? R_JOIN : R_JOIN_NO_IF, login);
        break;
    case SC_LEAVE_VS_DELETE:
        add_actor(sh, R_DELETE, sh->creator);
        add_actor(sh, R_LEAVE, sh->before[1]);
        break;
    case SC_DELETE_VS_NEW_PARTICIPANTS:
        add_actor(sh, R_DELETE, sh->creator);
        for (int j = 1; j <= 3; j++) {
            snprintf(login, NAME, "r%d-joiner%d", round, j);
            add_user(sh, login);
            add_actor(sh, R_JOIN, login);
        }
        break;
    case SC_NON_CREATOR_DELETE:
        /* the creator deletes too in odd rounds; the other participant tries in every round */
        add_actor(sh, round % 2 ? R_DELETE : R_IDLE, sh->creator);
        add_actor(sh, R_DELETE, sh->before[1]);
        snprintf(login, NAME, "r%d-joiner", round);
        add_user(sh, login);
        add_actor(sh, R_JOIN, login);
        break;
    }
    /* start offsets: sometimes all at once, sometimes spread over a few operations */
    static const int spread[] = {0, 30, 100, 300, 1000};
    int max = spread[test_rand(rng) % (sizeof spread / sizeof spread[0])];
    for (int i = 0; i < sh->n_actors; i++)
        sh->a[i].jitter_us = max ? (int)(test_rand(rng) % (uint64_t)max) : 0;
    if (force && sc == SC_NAIVE_JOIN_VS_DELETE)
        sh->a[1].after_delete = 1;

    for (int i = 0; i < sh->n_users; i++)
        create_user(s, sh->users[i]);
    create_room(s, sh->room, sh->creator);
    for (int i = 1; i < sh->n_before; i++) {
        actor pre = {.join_applied = -1};
        copy_name(pre.login, sh->before[i]);
        join_room(s, &pre, sh->room, 1);
        RCHECK(pre.join_applied == 1);
    }
}

enum violation { V_NONE, V_HALF_DELETED, V_OTHER };

/* Checks the invariants after a round; V_NONE, or the first violation with its text in msg. */
static int check_round(CassSession *s, rooms_shared *sh, int sc, int round, int *late, char *msg,
                       size_t cap)
{
    const char *room = sh->room;
    const CassResult *r = RQUERY(s,
                                 "SELECT banner, creation_date, creator, creator_login, "
                                 "participants FROM killrchat.chat_rooms WHERE room_name = '%s'",
                                 room);
    int alive = cass_result_row_count(r) == 1;
    person ps[MAX_USERS];
    int n = 0;
    if (alive) {
        const CassRow *row = cass_result_first_row(r);
        char creator[NAME];
        for (size_t i = 0; i < 4; i++)
            if (cass_value_is_null(cass_row_get_column(row, i))) {
                cass_result_free(r);
                snprintf(msg, cap, "%s: half-deleted room (a row without creator, banner...)",
                         room);
                return V_HALF_DELETED;
            }
        race_text(cass_row_get_column(row, 3), creator, sizeof creator);
        n = read_people(cass_row_get_column(row, 4), ps, MAX_USERS);
        if (strcmp(creator, sh->creator) != 0) {
            cass_result_free(r);
            snprintf(msg, cap, "%s: creator_login %s, want %s", room, creator, sh->creator);
            return V_OTHER;
        }
    }
    cass_result_free(r);

    /* 2: only the creator's delete applies, once; 5: it deleted exactly the right people */
    actor *deleter = NULL;
    for (int i = 0; i < sh->n_actors; i++) {
        actor *a = &sh->a[i];
        if (!a->delete_applied)
            continue;
        if (strcmp(a->login, sh->creator) != 0 || deleter) {
            snprintf(msg, cap, "%s: deleted by %s, not only by its creator %s", room, a->login,
                     sh->creator);
            return V_OTHER;
        }
        deleter = a;
    }
    if (deleter && alive && sc != SC_NAIVE_JOIN_VS_DELETE) {
        snprintf(msg, cap, "%s: the creator's delete applied but the room is there", room);
        return V_OTHER;
    }
    if (deleter) {
        person del[MAX_USERS];
        for (int i = 0; i < deleter->n_deleted; i++)
            person_of(&del[i], deleter->deleted[i]);
        for (int i = 0; i < sh->n_before; i++) {
            int leaver = sc == SC_LEAVE_VS_DELETE && i == 1;
            if (!leaver && !people_have(del, deleter->n_deleted, sh->before[i])) {
                snprintf(msg, cap, "%s: deleted without participant %s", room, sh->before[i]);
                return V_OTHER;
            }
        }
        for (int i = 0; i < sh->n_actors; i++) {
            actor *a = &sh->a[i];
            if (a->role != R_JOIN)
                continue;
            if (a->join_applied != people_have(del, deleter->n_deleted, a->login)) {
                snprintf(msg, cap, "%s: %s's join %s but the delete's participants %s it", room,
                         a->login, a->join_applied ? "applied" : "was refused",
                         a->join_applied ? "lack" : "include");
                return V_OTHER;
            }
        }
    }

    /* 3 and 4: the users' lists */
    for (int u = 0; u < sh->n_users; u++) {
        const char *login = sh->users[u];
        r = RQUERY(s, "SELECT chat_rooms FROM killrchat.users WHERE login = '%s'", login);
        int has = 0;
        if (cass_result_row_count(r) == 1) {
            const CassValue *v = cass_row_get_column(cass_result_first_row(r), 0);
            if (!cass_value_is_null(v)) {
                CassIterator *it = cass_iterator_from_collection(v);
                while (cass_iterator_next(it)) {
                    char name[NAME];
                    race_text(cass_iterator_get_value(it), name, sizeof name);
                    has |= !strcmp(name, room);
                }
                cass_iterator_free(it);
            }
        }
        cass_result_free(r);
        if (alive) {
            if (has != people_have(ps, n, login)) {
                snprintf(msg, cap, "%s: %s %s the live room in its list but %s a participant", room,
                         login, has ? "has" : "lacks", has ? "is not" : "is");
                return V_OTHER;
            }
            continue;
        }
        if (!has)
            continue;
        /* 4's exception: the joiner's own add had not returned when the removal was sent */
        int tolerated = 0;
        for (int i = 0; i < sh->n_actors && deleter; i++) {
            actor *a = &sh->a[i];
            if (strcmp(a->login, login) != 0 || a->role != R_JOIN || !a->join_applied)
                continue;
            for (int d = 0; d < deleter->n_deleted; d++)
                if (!strcmp(deleter->deleted[d], login) && a->add_done > deleter->cleanup[d])
                    tolerated = 1;
        }
        if (!tolerated) {
            snprintf(msg, cap, "%s: %s still lists the deleted room", room, login);
            return V_OTHER;
        }
        (*late)++;
    }

    /* each scenario's outcome */
    int creator_deletes = sh->a[0].role == R_DELETE;
    if (sc != SC_NAIVE_JOIN_VS_DELETE && creator_deletes && (!deleter || alive)) {
        snprintf(msg, cap, "%s: the creator's delete did not succeed", room);
        return V_OTHER;
    }
    if (sc == SC_NON_CREATOR_DELETE) {
        actor *other = &sh->a[1], *joiner = &sh->a[2];
        if (!other->gave_up || other->delete_applied) {
            snprintf(msg, cap, "%s: the non-creator %s did not give up", room, other->login);
            return V_OTHER;
        }
        if (!creator_deletes && (!alive || n != 3 || joiner->join_applied != 1)) {
            snprintf(msg, cap, "%s: want the room alive with 3 participants (%d, %d)", room, alive,
                     n);
            return V_OTHER;
        }
    }
    (void)round;
    return V_NONE;
}

/* Seconds the naive scenario tries random start offsets before forcing the interleaving. */
#define NAIVE_RANDOM_S 2.0

static double elapsed_s(const struct timespec *start)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - start->tv_sec) + (double)(t.tv_nsec - start->tv_nsec) / 1e9;
}

/* Runs a scenario with its actors as processes or threads; returns how many rounds had a
   half-deleted room (only the naive scenario may have any: it stops at the first). */
static int run_scenario(int sc, int processes, int rounds)
{
    rooms_shared *sh = race_shared(sizeof *sh);
    race_c = &sh->ctl;
    int n = scenario_actors(sc);
    const char *dir = test_tmpdir();
    race_pool pool = {0};
    if (processes)
        race_pool_fork(&pool, dir, n, actor_round, sh);
    race_conn cn;
    race_connect(&cn, dir);
    CassSession *s = cn.session;
    RRUN(s, "CREATE KEYSPACE killrchat WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}");
    RRUN(s, "CREATE TABLE killrchat.users(login text, pass text, lastname text, firstname text, "
            "bio text, email text, chat_rooms set<text>, PRIMARY KEY(login))");
    RRUN(s, "CREATE TYPE killrchat.user(login text, firstname text, lastname text)");
    RRUN(s, "CREATE TABLE killrchat.chat_rooms(room_name text, creation_date timestamp, "
            "banner text, creator frozen<user>, creator_login text, "
            "participants set<frozen<user>>, PRIMARY KEY(room_name))");
    race_pool_go(&pool);
    if (!processes)
        race_pool_threads(&pool, s, n, actor_round, sh);
    uint64_t rng = test_seed() ^ ((uint64_t)sc << 56);
    int late = 0, half = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int r = 0; r < rounds; r++) {
        /* The naive scenario's random offsets usually reach the bad interleaving within a few
           rounds, but not always: after NAIVE_RANDOM_S seconds, or in its last round, the
           joiner waits for the delete, so the checker's catch never depends on luck. */
        int force = sc == SC_NAIVE_JOIN_VS_DELETE &&
                    (r == rounds - 1 || elapsed_s(&start) >= NAIVE_RANDOM_S);
        setup_round(s, sh, sc, r, &rng, force);
        race_pool_round(&pool);
        char msg[512];
        int v = check_round(s, sh, sc, r, &late, msg, sizeof msg);
        if (sc == SC_NAIVE_JOIN_VS_DELETE) {
            if (v == V_HALF_DELETED) {
                half++;
                break;
            }
            /* a naive join sent after the delete returned writes later: the row must show */
            if (sh->a[0].delete_applied && sh->a[1].join_sent > sh->a[0].delete_done)
                test_fail(__FILE__, __LINE__,
                          "round %d: the naive join was sent after the delete returned, "
                          "yet the room is not half-deleted (%s)",
                          r, v ? msg : "no violation");
            continue;
        }
        if (v != V_NONE)
            test_fail(__FILE__, __LINE__, "round %d (%s): %s", r,
                      processes ? "processes" : "threads", msg);
    }
    race_pool_stop(&pool);
    race_close(&cn);
    return half;
}

#define ROUNDS race_rounds(60, 5000)

TEST(join_vs_delete_threads)
{
    run_scenario(SC_JOIN_VS_DELETE, 0, ROUNDS);
}

TEST(join_vs_delete_processes)
{
    run_scenario(SC_JOIN_VS_DELETE, 1, ROUNDS);
}

TEST(leave_vs_delete_threads)
{
    run_scenario(SC_LEAVE_VS_DELETE, 0, ROUNDS);
}

TEST(leave_vs_delete_processes)
{
    run_scenario(SC_LEAVE_VS_DELETE, 1, ROUNDS);
}

TEST(delete_vs_new_participants_threads)
{
    run_scenario(SC_DELETE_VS_NEW_PARTICIPANTS, 0, ROUNDS);
}

TEST(delete_vs_new_participants_processes)
{
    run_scenario(SC_DELETE_VS_NEW_PARTICIPANTS, 1, ROUNDS);
}

/* Through the group commit (durability nometasync), fewer rounds: each commit syncs. */
TEST(delete_vs_new_participants_through_group_commit)
{
    race_durability = CASSETTE_DURABILITY_NOMETASYNC;
    run_scenario(SC_DELETE_VS_NEW_PARTICIPANTS, 0, race_rounds(10, 200));
}

TEST(non_creator_delete_threads)
{
    run_scenario(SC_NON_CREATOR_DELETE, 0, ROUNDS);
}

TEST(non_creator_delete_processes)
{
    run_scenario(SC_NON_CREATOR_DELETE, 1, ROUNDS);
}

/* The checker can fail: the seed's naive join (no IF EXISTS) racing a delete leaves, when it
   lands after the delete, a room row holding participants alone; invariant 1 must see it (it
   stops at the first). Random offsets for a while, then the interleaving forced: never flaky. */
TEST(naive_join_vs_delete_is_caught)
{
    ASSERT_EQ(run_scenario(SC_NAIVE_JOIN_VS_DELETE, 0, 500), 1);
}
