/*
 * The fixture executor tests share: a temporary database (durability NONE)
 * with one session on it, and a statement run that must succeed.
 */
#ifndef TESTS_CQL_EXEC_ENV_H
#define TESTS_CQL_EXEC_ENV_H

#include "cql/cql.h"
#include "harness.h"

typedef struct env {
    eng_db *db;
    cql_session *s;
} env;

static inline void env_open(env *e)
{
    eng_err err;
    eng_err_clear(&err);
    eng_db_options o = {ENG_DURABLE_NONE, 0, 0, 0, 0};
    ASSERT_OK_ERR(eng_db_open_temp(&o, &e->db, &err), &err);
    ASSERT_OK_ERR(cql_session_new(e->db, &e->s, &err), &err);
}

static inline void env_close(env *e)
{
    cql_session_free(e->s);
    eng_db_close(e->db);
}

/* Runs one statement, which must succeed; no result kept. */
static inline void env_run(env *e, const char *cql)
{
    eng_err err;
    eng_err_clear(&err);
    ASSERT_OK_ERR(cql_query(e->s, cql, strlen(cql), NULL, NULL, &err), &err);
}

#endif
