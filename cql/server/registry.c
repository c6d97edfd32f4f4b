/*
 * The node registry (registry.h): one locked file per serving process in the
 * database directory, listed anew whenever a session reads the peers tables
 * and once a second by the server's loop, which turns the differences into
 * TOPOLOGY_CHANGE and STATUS_CHANGE events.
 *
 * Liveness is the lock, not the file: an open file description lock
 * (F_OFD_SETLK) belongs to the open file, not to the process or a thread, so
 * a reader tests it with F_OFD_GETLK without taking it (no reader ever holds
 * up a node that registers), and a second server of the same process on the
 * same directory sees the first one's lock as any other process does.
 */
#include "cql/server/registry.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef F_OFD_SETLK
#error "the node registry needs open file description locks (F_OFD_SETLK, Linux 3.15+)"
#endif

#define FILE_PREFIX "cassette-node-"
#define FILE_MAX 4096 /* bytes of a registry file we read */

/* A member as listed: its node and whether its file says it left. */
typedef struct member {
    cql_node node;
    int left;
} member;

struct cql_registry {
    char *dir;
    char *name; /* our file's name in dir */
    int fd;     /* our file, locked */
    cql_node self;
    cql_topology topology;
    member *known; /* cql_registry_poll: the members at the last look (loop thread) */
    size_t n_known;
};

/* ---- the file ---- */

static int lock_file(int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    return fcntl(fd, F_OFD_SETLK, &fl);
}

/* 1 when another open file holds a lock on fd's file: its process serves. */
static int locked_elsewhere(int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
        return 0;
    return fl.l_type != F_UNLCK;
}

static void uuid_text(const uint8_t u[16], char out[37])
{
    static const char hex[] = "0123456789abcdef";
    int j = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[j++] = '-';
        out[j++] = hex[u[i] >> 4];
        out[j++] = hex[u[i] & 15];
    }
    out[j] = 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static int uuid_parse(const char *s, uint8_t out[16])
{
    int n = 0;
    for (; *s && n < 32; s++) {
        if (*s == '-')
            continue;
        int v = hexval(*s);
        if (v < 0)
            return -1;
        if (n % 2 == 0)
            out[n / 2] = (uint8_t)(v << 4);
        else
            out[n / 2] |= (uint8_t)v;
        n++;
    }
    return n == 32 && !*s ? 0 : -1;
}

static void set_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src);
}

/* The text of n's file. */
static int format_node(const cql_node *n, int left, char *out, size_t cap)
{
    char addr[INET6_ADDRSTRLEN], id[37];
    inet_ntop(n->addr_len == 4 ? AF_INET : AF_INET6, n->addr, addr, sizeof addr);
    uuid_text(n->host_id, id);
    int len = snprintf(out, cap,
                       "cassette-node 1\naddress %s\nnative_port %d\nstorage_port %d\n"
                       "data_center %s\nrack %s\nhost_id %s\ntokens",
                       addr, n->native_port, n->storage_port, n->dc, n->rack, id);
    for (int i = 0; i < n->n_tokens && len > 0 && (size_t)len < cap; i++)
        len += snprintf(out + len, cap - (size_t)len, " %lld", (long long)n->tokens[i]);
    if (len > 0 && (size_t)len < cap)
        len += snprintf(out + len, cap - (size_t)len, "\npid %ld\nstate %s\nend\n", (long)getpid(),
                        left ? "left" : "normal");
    return len > 0 && (size_t)len < cap ? len : -1;
}

/* Parses a file's text (NUL-terminated); 0, or -1 when it is not a whole registry file. */
static int parse_node(char *text, member *out)
{
    memset(out, 0, sizeof *out);
    int have = 0, ended = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *v = strchr(line, ' ');
        if (!strcmp(line, "end")) {
            ended = 1;
            break;
        }
        if (!v)
            continue;
        *v++ = 0;
        cql_node *n = &out->node;
        if (!strcmp(line, "address")) {
            if (inet_pton(AF_INET, v, n->addr) == 1)
                n->addr_len = 4;
            else if (inet_pton(AF_INET6, v, n->addr) == 1)
                n->addr_len = 16;
            else
                return -1;
            have |= 1;
        } else if (!strcmp(line, "native_port")) {
            n->native_port = atoi(v);
            have |= 2;
        } else if (!strcmp(line, "storage_port")) {
            n->storage_port = atoi(v);
        } else if (!strcmp(line, "data_center")) {
            set_text(n->dc, sizeof n->dc, v);
            have |= 4;
        } else if (!strcmp(line, "rack")) {
            set_text(n->rack, sizeof n->rack, v);
            have |= 8;
        } else if (!strcmp(line, "host_id")) {
            if (uuid_parse(v, n->host_id))
                return -1;
            have |= 16;
        } else if (!strcmp(line, "tokens")) {
            char *end;
            while (n->n_tokens < CQL_NODE_TOKENS) {
                errno = 0;
                long long t = strtoll(v, &end, 10);
                if (end == v || errno)
                    break;
                n->tokens[n->n_tokens++] = t;
                v = end;
            }
            have |= 32;
        } else if (!strcmp(line, "state")) {
            out->left = !strcmp(v, "left");
        }
    }
    return ended && have == 63 && out->node.n_tokens > 0 ? 0 : -1;
}

static int read_all(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = pread(fd, buf + len, cap - 1 - len, (off_t)len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = 0;
    return (int)len;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/*
 * Replaces our file with n's description (state left or normal), written aside and renamed
 * over it. keep_locked: the new file is opened and locked before the rename, and its
 * descriptor returned (else 0). -1 on failure.
 */
static int replace_file(cql_registry *r, int left, int keep_locked)
{
    char text[FILE_MAX], tmpname[256];
    int len = format_node(&r->self, left, text, sizeof text);
    snprintf(tmpname, sizeof tmpname, ".%s.%ld.tmp", r->name, (long)getpid());
    char *tmp = join(r->dir, tmpname), *path = join(r->dir, r->name);
    int fd = -1, rc = -1;
    if (len < 0 || !tmp || !path)
        goto done;
    fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        goto done;
    if ((keep_locked && lock_file(fd)) || pwrite(fd, text, (size_t)len, 0) != len ||
        rename(tmp, path)) {
        unlink(tmp);
        goto done;
    }
    rc = 0;
done:
    if (fd >= 0 && (rc || !keep_locked)) {
        close(fd);
        fd = -1;
    }
    free(tmp);
    free(path);
    return rc ? -1 : keep_locked ? fd : 0;
}

/* ---- listing ---- */

/*
 * The members of dir but `self_name` (NULL: all): *out, an array the caller frees, and their
 * count *n. 0, or -1 when the directory cannot be listed whole (nothing to free then).
 */
static int list_members(const char *dir, const char *self_name, member **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    member *list = NULL;
    int rc = 0;
    size_t cap = 0;
    struct dirent *e;
    char text[FILE_MAX];
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, FILE_PREFIX, strlen(FILE_PREFIX)) ||
            (self_name && !strcmp(e->d_name, self_name)))
            continue;
        char *path = join(dir, e->d_name);
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        free(path);
        if (fd < 0)
            continue;
        member m;
        int live = locked_elsewhere(fd);
        read_all(fd, text, sizeof text);
        close(fd);
        if (parse_node(text, &m))
            continue; /* not ours, or being replaced: the next look sees it whole */
        m.node.up = live;
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 8;
            member *grown = realloc(list, nc * sizeof *grown);
            if (!grown) {
                rc = -1;
                break;
            }
            list = grown;
            cap = nc;
        }
        list[(*n)++] = m;
    }
    closedir(d);
    if (rc) {
        free(list);
        *n = 0;
        return -1;
    }
    *out = list;
    return 0;
}

/* A member is in the ring while its process serves, or until it leaves cleanly. */
static int in_ring(const member *m)
{
    return m->node.up || !m->left;
}

static int same_node(const cql_node *a, const cql_node *b)
{
    return a->addr_len == b->addr_len && !memcmp(a->addr, b->addr, a->addr_len) &&
           a->native_port == b->native_port;
}

/* ---- the topology sessions see ---- */

static void topo_local(void *arg, cql_node *out)
{
    *out = ((cql_registry *)arg)->self;
}

static int topo_peers(void *arg, void (*fn)(void *, const cql_node *), void *fn_arg)
{
    cql_registry *r = arg;
    size_t n;
    member *list;
    if (list_members(r->dir, r->name, &list, &n))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (in_ring(&list[i]) && !same_node(&list[i].node, &r->self))
            fn(fn_arg, &list[i].node);
    free(list);
    return 0;
}

const cql_topology *cql_registry_topology(cql_registry *r)
{
    return &r->topology;
}

const cql_node *cql_registry_self(const cql_registry *r)
{
    return &r->self;
}

/* ---- registering ---- */

static int fail(char *errbuf, size_t errlen, const char *fmt, const char *a, const char *b)
{
    snprintf(errbuf, errlen, fmt, a, b);
    return -1;
}

/* Random tokens over Murmur3's range (its minimum excluded: no node owns it), as
   num_tokens' random allocation picks them. */
static int random_identity(cql_node *n)
{
    uint8_t buf[16 + 8 * CQL_NODE_TOKENS];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t k = getrandom(buf + got, sizeof buf - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    memcpy(n->host_id, buf, 16);
    n->host_id[6] = (uint8_t)((n->host_id[6] & 0x0f) | 0x40); /* version 4, random */
    n->host_id[8] = (uint8_t)((n->host_id[8] & 0x3f) | 0x80);
    n->n_tokens = CQL_NODE_TOKENS;
    for (int i = 0; i < CQL_NODE_TOKENS; i++) {
        uint64_t u;
        memcpy(&u, buf + 16 + 8 * i, 8);
        n->tokens[i] = (int64_t)u == INT64_MIN ? INT64_MIN + 1 : (int64_t)u;
    }
    return 0;
}

int cql_registry_open(const char *dir, const char *address, int port, const char *dc,
                      const char *rack, cql_registry **out, char *errbuf, size_t errlen)
{
    *out = NULL;
    cql_registry *r = calloc(1, sizeof *r);
    if (!r)
        return fail(errbuf, errlen, "%s%s", "out of memory", "");
    r->fd = -1;
    cql_node *n = &r->self;
    if (!address || !strcmp(address, "0.0.0.0") || !strcmp(address, "::"))
        address = "127.0.0.1"; /* a wildcard is no address to reach the node at */
    if (inet_pton(AF_INET, address, n->addr) == 1)
        n->addr_len = 4;
    else if (inet_pton(AF_INET6, address, n->addr) == 1)
        n->addr_len = 16;
    else {
        free(r);
        return fail(errbuf, errlen, "not an IP address: %s%s", address, "");
    }
    char addr[INET6_ADDRSTRLEN], name[128];
    inet_ntop(n->addr_len == 4 ? AF_INET : AF_INET6, n->addr, addr, sizeof addr);
    n->native_port = port;
    /* Nodes sharing an address need distinct (peer, peer_port) rows in peers_v2: the storage
       port follows the native port, 7000 for 9042 as in cassandra.yaml. */
    n->storage_port = (7000 + port - 9042 + 65536) % 65536;
    set_text(n->dc, sizeof n->dc, dc ? dc : CQL_REGISTRY_DC);
    set_text(n->rack, sizeof n->rack, rack ? rack : CQL_REGISTRY_RACK);
    n->up = 1;
    snprintf(name, sizeof name, FILE_PREFIX "%s-%d", addr, port);
    r->dir = strdup(dir);
    r->name = strdup(name);
    r->topology = (cql_topology){topo_local, topo_peers, r};
    char *path = r->dir && r->name ? join(dir, name) : NULL;
    if (!path) {
        cql_registry_close(r);
        return fail(errbuf, errlen, "%s%s", "out of memory", "");
    }
    /* Take the name: lock the file there now (one that was renamed over since we opened it
       is not the one there: open again). */
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            break;
        if (lock_file(fd)) {
            int busy = errno == EAGAIN || errno == EACCES;
            close(fd);
            fd = -1;
            snprintf(errbuf, errlen, "%s: %s", path,
                     busy ? "another cassette serve of this database is that node (address "
                            "and port)"
                          : strerror(errno));
            free(path);
            cql_registry_close(r);
            return -1;
        }
        struct stat a, b;
        if (fstat(fd, &a) || stat(path, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        fail(errbuf, errlen, "cannot register the node in %s: %s", path, strerror(errno));
        free(path);
        cql_registry_close(r);
        return -1;
    }
    /* A node that registered before at this address and port keeps its identity. */
    char text[FILE_MAX];
    member old;
    read_all(fd, text, sizeof text);
    if (parse_node(text, &old) == 0) {
        memcpy(n->host_id, old.node.host_id, 16);
        n->n_tokens = old.node.n_tokens;
        memcpy(n->tokens, old.node.tokens, sizeof n->tokens);
    } else if (random_identity(n)) {
        close(fd);
        fail(errbuf, errlen, "cannot register the node in %s: %s", path,
             "no random bytes for its host id");
        free(path);
        cql_registry_close(r);
        return -1;
    }
    r->fd = replace_file(r, 0, 1);
    close(fd); /* the old file's lock: the new one, renamed in, is locked already */
    if (r->fd < 0) {
        fail(errbuf, errlen, "cannot register the node in %s: %s", path, strerror(errno));
        free(path);
        cql_registry_close(r);
        return -1;
    }
    free(path);
    if (list_members(r->dir, r->name, &r->known, &r->n_known))
        r->n_known = 0;
    *out = r;
    return 0;
}

void cql_registry_close(cql_registry *r)
{
    if (!r)
        return;
    if (r->fd >= 0) {
        replace_file(r, 1, 0); /* left: its lock goes with the old file */
        close(r->fd);
    }
    free(r->known);
    free(r->dir);
    free(r->name);
    free(r);
}

/* ---- events ---- */

static const member *find_member(const member *list, size_t n, const cql_node *node)
{
    for (size_t i = 0; i < n; i++)
        if (same_node(&list[i].node, node))
            return &list[i];
    return NULL;
}

void cql_registry_poll(cql_registry *r,
                       void (*fn)(void *arg, const char *type, const char *change,
                                  const cql_node *node),
                       void *arg)
{
    size_t n;
    member *now;
    if (list_members(r->dir, r->name, &now, &n))
        return; /* judged at the next look */
    for (size_t i = 0; i < n; i++) {
        const member *m = &now[i];
        if (same_node(&m->node, &r->self))
            continue;
        const member *k = find_member(r->known, r->n_known, &m->node);
        if (k && memcmp(k->node.host_id, m->node.host_id, 16) && in_ring(k)) {
            /* another node took the address and port: the old one is gone */
            if (k->node.up)
                fn(arg, "STATUS_CHANGE", "DOWN", &k->node);
            fn(arg, "TOPOLOGY_CHANGE", "REMOVED_NODE", &k->node);
            k = NULL;
        }
        int was = k && in_ring(k), is = in_ring(m);
        if (!was && is) {
            fn(arg, "TOPOLOGY_CHANGE", "NEW_NODE", &m->node);
            if (m->node.up)
                fn(arg, "STATUS_CHANGE", "UP", &m->node);
        } else if (was && is && k->node.up != m->node.up) {
            fn(arg, "STATUS_CHANGE", m->node.up ? "UP" : "DOWN", &m->node);
        } else if (was && !is) {
            if (k->node.up)
                fn(arg, "STATUS_CHANGE", "DOWN", &m->node);
            fn(arg, "TOPOLOGY_CHANGE", "REMOVED_NODE", &m->node);
        }
    }
    for (size_t i = 0; i < r->n_known; i++) {
        const member *k = &r->known[i];
        if (in_ring(k) && !find_member(now, n, &k->node)) { /* its file was removed */
            if (k->node.up)
                fn(arg, "STATUS_CHANGE", "DOWN", &k->node);
            fn(arg, "TOPOLOGY_CHANGE", "REMOVED_NODE", &k->node);
        }
    }
    free(r->known);
    r->known = now;
    r->n_known = n;
}
