/*
 * The schema rows of the embedded engine, for cass_session_get_schema_meta:
 * the five queries of enum cql_drv_schema_table run through the executor on
 * the session's database, their results handed to
 * cql_drv_schema_meta_from_rows (schema.c), which knows nothing else.
 *
 * TEMPORARY, and the only file of the schema metadata that includes the
 * executor (cql/cql.h): it goes away when the backend seam lands and each
 * backend fetches these rows on its own query path.
 *
 * The rows must describe one schema. Each query reads the schema current
 * when it runs, so a schema change between two of them could pair a table
 * with another version's columns; the engine's schema version, read before
 * and after the queries, tells when that happened, and the queries then run
 * again. That version is also the snapshot version.
 */
#include <string.h>

#include "cql/cql.h"
#include "cql/driver/driver_int.h"

/* Schema changes racing the five queries this many times in a row are taken as they come. */
#define MAX_ATTEMPTS 8

static const char *const QUERIES[CQL_DRV_SCHEMA_N] = {
    [CQL_DRV_SCHEMA_KEYSPACES] = "SELECT * FROM system_schema.keyspaces",
    [CQL_DRV_SCHEMA_TABLES] = "SELECT * FROM system_schema.tables",
    [CQL_DRV_SCHEMA_COLUMNS] = "SELECT * FROM system_schema.columns",
    [CQL_DRV_SCHEMA_TYPES] = "SELECT * FROM system_schema.types",
    [CQL_DRV_SCHEMA_LOCAL] = "SELECT * FROM system.local",
};

static int schema_version(eng_db *db, uint64_t *out, eng_err *err)
{
    eng_schema *s = NULL;
    int rc = eng_db_schema(db, &s, err);
    if (!rc) {
        *out = s->version;
        eng_schema_unref(s);
    }
    return rc;
}

/* The five results, all describing schema version *version (unless the schema kept changing). */
static int fetch_rows(eng_db *db, cql_result *rows[CQL_DRV_SCHEMA_N], uint64_t *version,
                      eng_err *err)
{
    cql_session *s = NULL;
    int rc = cql_session_new(db, &s, err);
    if (rc)
        return rc;
    for (int attempt = 1;; attempt++) {
        uint64_t after = 0;
        rc = schema_version(db, version, err);
        for (int t = 0; !rc && t < CQL_DRV_SCHEMA_N; t++) {
            cql_exec_options o;
            cql_exec_options_init(&o);
            rc = cql_query(s, QUERIES[t], strlen(QUERIES[t]), &o, &rows[t], err);
        }
        if (!rc)
            rc = schema_version(db, &after, err);
        if (rc || after == *version || attempt == MAX_ATTEMPTS)
            break;
        for (int t = 0; t < CQL_DRV_SCHEMA_N; t++) {
            cql_result_free(rows[t]);
            rows[t] = NULL;
        }
    }
    cql_session_free(s);
    return rc;
}

CassSchemaMeta *cql_drv_schema_meta_new(eng_db *db)
{
    cql_result *rows[CQL_DRV_SCHEMA_N] = {0};
    uint64_t version = 0;
    eng_err err;
    eng_err_clear(&err);
    int rc = db ? fetch_rows(db, rows, &version, &err) : 0;
    CassSchemaMeta *m = NULL;
    if (!rc)
        m = cql_drv_schema_meta_from_rows((const cql_result *const *)rows, (cass_uint32_t)version);
    else if (rc != ENG_E_NOMEM)
        cql_drv_log(CASS_LOG_ERROR, __FILE__, __LINE__, __func__, "Unable to read the schema: %s",
                    err.msg);
    for (int t = 0; t < CQL_DRV_SCHEMA_N; t++)
        cql_result_free(rows[t]);
    return m;
}
