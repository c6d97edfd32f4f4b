/*
 * Session helpers of the example data layers (cqlutil.h): each call waits on its future and
 * turns a failure into one line of text.
 */
#include "cqlutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The offset between the UUID epoch (1582-10-15) and the unix epoch, in 100 ns units. */
#define UUID_EPOCH_OFFSET 0x01B21DD213814000LL

static void set_error(char *err, size_t cap, CassError rc, const char *msg, size_t len)
{
    if (!err || cap == 0)
        return;
    snprintf(err, cap, "%s: %.*s", cass_error_desc(rc), (int)len, msg);
}

/* Waits on f and, on failure, writes its message to err. f stays the caller's. */
static CassError wait_future(CassFuture *f, char *err, size_t cap)
{
    CassError rc = cass_future_error_code(f);
    if (rc != CASS_OK) {
        const char *msg;
        size_t len;
        cass_future_error_message(f, &msg, &len);
        set_error(err, cap, rc, msg, len);
    }
    return rc;
}

CassError cu_connect(const char *contact, CassCluster **cluster, CassSession **session,
                     char *err, size_t cap)
{
    *cluster = cass_cluster_new();
    *session = cass_session_new();
    CassError rc = CASS_OK;
    const char *hosts = contact;
    char buf[512];
    if (strncmp(contact, "cql://", 6) == 0) {
        /* cql://HOST:PORT -> host and port, which the real driver takes apart. */
        snprintf(buf, sizeof buf, "%s", contact + 6);
        char *slash = strchr(buf, '/');
        if (slash)
            *slash = '\0';
        char *colon = strrchr(buf, ':');
        if (colon && !strchr(colon, ']')) {
            *colon = '\0';
            rc = cass_cluster_set_port(*cluster, atoi(colon + 1));
        }
        hosts = buf;
    }
    if (rc == CASS_OK)
        rc = cass_cluster_set_contact_points(*cluster, hosts);
    if (rc != CASS_OK) {
        const char *m = "bad contact points";
        set_error(err, cap, rc, m, strlen(m));
    } else {
        CassFuture *f = cass_session_connect(*session, *cluster);
        rc = wait_future(f, err, cap);
        cass_future_free(f);
    }
    if (rc != CASS_OK) {
        cass_session_free(*session);
        cass_cluster_free(*cluster);
        *session = NULL;
        *cluster = NULL;
    }
    return rc;
}

void cu_disconnect(CassCluster *cluster, CassSession *session)
{
    if (session) {
        CassFuture *f = cass_session_close(session);
        cass_future_wait(f);
        cass_future_free(f);
        cass_session_free(session);
    }
    if (cluster)
        cass_cluster_free(cluster);
}

static CassError finish(CassFuture *f, const CassResult **result, char *err, size_t cap)
{
    CassError rc = wait_future(f, err, cap);
    if (rc == CASS_OK && result)
        *result = cass_future_get_result(f);
    cass_future_free(f);
    return rc;
}

CassError cu_execute(CassSession *session, const CassStatement *st, const CassResult **result,
                     char *err, size_t cap)
{
    return finish(cass_session_execute(session, st), result, err, cap);
}

CassError cu_execute_batch(CassSession *session, const CassBatch *batch,
                           const CassResult **result, char *err, size_t cap)
{
    return finish(cass_session_execute_batch(session, batch), result, err, cap);
}

CassError cu_run(CassSession *session, const char *cql, char *err, size_t cap)
{
    CassStatement *st = cass_statement_new(cql, 0);
    CassError rc = cu_execute(session, st, NULL, err, cap);
    cass_statement_free(st);
    return rc;
}

CassError cu_run_all(CassSession *session, const char *const *cql, char *err, size_t cap)
{
    for (; *cql; cql++) {
        CassError rc = cu_run(session, *cql, err, cap);
        if (rc != CASS_OK)
            return rc;
    }
    return CASS_OK;
}

CassError cu_prepare(CassSession *session, const char *cql, const CassPrepared **prepared,
                     char *err, size_t cap)
{
    CassFuture *f = cass_session_prepare(session, cql);
    CassError rc = wait_future(f, err, cap);
    *prepared = rc == CASS_OK ? cass_future_get_prepared(f) : NULL;
    cass_future_free(f);
    return rc;
}

CassError cu_prepare_all(CassSession *session, const char *const *cql, size_t n,
                         const CassPrepared **out, char *err, size_t cap)
{
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        CassError rc = cu_prepare(session, cql[i], &out[i], err, cap);
        if (rc != CASS_OK) {
            cu_prepared_free_all(out, i);
            memset(out, 0, n * sizeof *out);
            return rc;
        }
    }
    return CASS_OK;
}

void cu_prepared_free_all(const CassPrepared **ps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ps[i])
            cass_prepared_free(ps[i]);
}

int cu_applied(const CassResult *result)
{
    const CassRow *row = cass_result_first_row(result);
    if (!row)
        return -1;
    cass_bool_t applied;
    const CassValue *v = cass_row_get_column_by_name(row, "[applied]");
    if (!v || cass_value_get_bool(v, &applied) != CASS_OK)
        return -1;
    return applied == cass_true;
}

const char *cu_get_string(const CassRow *row, const char *column, char *buf, size_t cap)
{
    const char *s;
    size_t len;
    const CassValue *v = cass_row_get_column_by_name(row, column);
    if (cap == 0)
        return buf;
    if (!v || cass_value_is_null(v) || cass_value_get_string(v, &s, &len) != CASS_OK)
        len = 0;
    if (len >= cap)
        len = cap - 1;
    if (len)
        memcpy(buf, s, len);
    buf[len] = '\0';
    return buf;
}

int64_t cu_uuid_micros(CassUuid uuid)
{
    int64_t ticks = (int64_t)(uuid.time_and_version & 0x0FFFFFFFFFFFFFFFULL);
    return (ticks - UUID_EPOCH_OFFSET) / 10;
}
