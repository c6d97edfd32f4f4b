/*
 * Errors, names and the log of the driver API (cassandra.h): the CassError
 * of an engine failure, the description strings of CassError codes, the
 * names of consistency levels, write types and log levels, the error result
 * of a failed request, the log, and the allocator hook.
 *
 * Error codes (cql_drv_error_of): cql/errors.h's table. The engine keeps the
 * native protocol's own error codes, so a server-side failure becomes
 * CASS_ERROR(CASS_ERROR_SOURCE_SERVER, code) exactly as the driver builds it
 * from an ERROR frame: 0x2200 is CASS_ERROR_SERVER_INVALID_QUERY, 0x2000
 * CASS_ERROR_SERVER_SYNTAX_ERROR, 0x2400 ALREADY_EXISTS, 0x1100
 * WRITE_TIMEOUT... The engine's own failures (ENG_E_SERVER, ENG_E_CORRUPT,
 * ENG_E_IO, ENG_E_BUSY) are what a Cassandra node reports as a "Server error"
 * (protocol 0x0000): CASS_ERROR_SERVER_SERVER_ERROR. Running out of memory
 * (ENG_E_NOMEM) happens in the application's own process, where the driver
 * has no dedicated code: it is reported as CASS_ERROR_LIB_INTERNAL_ERROR
 * ("Internal error"), the message saying what ran out.
 *
 * Names: the description, consistency, write type and log level strings are
 * those of the header's CASS_*_MAPPING tables (the driver's own), "" for a
 * value not listed.
 *
 * The log: a message passes when its level is at most the level set
 * (CASS_LOG_WARN by default; CASS_LOG_DISABLED passes nothing). It is
 * delivered synchronously, in the logging thread, to the application's
 * callback, or by default printed to stderr in the driver's format
 * "<seconds>.<millis> [<LEVEL>] (<file>:<line>:<function>): <message>".
 * There is no log thread or queue, so cass_log_set_queue_size and
 * cass_log_cleanup have nothing to do (both are no-ops in the driver 2.17
 * too).
 *
 * The allocator (cass_alloc_set_functions): cassette's own memory comes from
 * the engine's eng_malloc family (engine/value/common.c), which the functions given
 * replace; LMDB's and libuuid's allocations stay with the C library. A NULL
 * among the three restores the C library's for all of them, as the driver.
 *
 * Threads: every function may be called from any thread. The log level is
 * atomic; the callback and its data change together under a lock, and the
 * callback itself runs outside it (so it may log).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cql/driver/driver_int.h"
#include "cql/errors.h"

/* ------------------------------------------------------------------------ */
/* Codes                                                                     */
/* ------------------------------------------------------------------------ */

CassError cql_drv_error_of(const eng_err *err)
{
    if (!err || err->code == ENG_OK)
        return CASS_OK;
    switch (err->code) {
#define CASE_CODE(eng, proto, name, cass, cls, summary)                                            \
    case eng:                                                                                      \
        return cass;
        CQL_ERRORS(CASE_CODE)
#undef CASE_CODE
    default:
        /* A protocol code the table does not name still passes through (facts §8.1). */
        if (err->code > 0 && err->code <= 0xFFFF)
            return (CassError)CASS_ERROR(CASS_ERROR_SOURCE_SERVER, err->code);
        return CASS_ERROR_SERVER_SERVER_ERROR;
    }
}

const char *cass_error_desc(CassError error)
{
    switch (error) {
#define XX_DESC(source, _, code, desc)                                                             \
    case CASS_ERROR(source, code):                                                                 \
        return desc;
        CASS_ERROR_MAPPING(XX_DESC)
#undef XX_DESC
    default:
        return "";
    }
}

const char *cass_consistency_string(CassConsistency consistency)
{
    switch (consistency) {
#define XX_NAME(value, name)                                                                       \
    case value:                                                                                    \
        return name;
        CASS_CONSISTENCY_MAPPING(XX_NAME)
    default:
        return "";
    }
}

const char *cass_write_type_string(CassWriteType write_type)
{
    switch (write_type) {
        CASS_WRITE_TYPE_MAPPING(XX_NAME)
    default:
        return "";
    }
}

const char *cass_log_level_string(CassLogLevel log_level)
{
    switch (log_level) {
        CASS_LOG_LEVEL_MAPPING(XX_NAME)
#undef XX_NAME
    default:
        return "";
    }
}

/* ------------------------------------------------------------------------ */
/* Error results                                                             */
/* ------------------------------------------------------------------------ */

/* Error results are built by cql/driver/future.c; every part is owned and comes from eng_malloc
 * (cql/driver/driver_int.h), so freeing is independent of how the failure was reported. */
void cass_error_result_free(const CassErrorResult *error_result)
{
    CassErrorResult *e = (CassErrorResult *)error_result;
    if (!e)
        return;
    eng_free(e->keyspace);
    eng_free(e->table);
    eng_free(e->function);
    for (size_t i = 0; e->arg_types && i < e->n_arg_types; i++)
        eng_free(e->arg_types[i]);
    eng_free(e->arg_types);
    eng_free(e);
}

CassError cass_error_result_code(const CassErrorResult *error_result)
{
    return error_result ? error_result->code : CASS_ERROR_LIB_BAD_PARAMS;
}

/*
 * Which fields an ERROR frame carries, by code (native protocol spec §9): the consistency and
 * the received / required counts come with the unavailable, timeout and failure codes; the
 * failure count with the two failures; data_present with the read timeout and failure; the
 * write type with the write timeout and failure. For any other code the driver's accessors give
 * its defaults (CASS_CONSISTENCY_UNKNOWN, -1, cass_false, CASS_WRITE_TYPE_UNKNOWN), whatever
 * the error result was built with.
 */
static int carries_replicas(const CassErrorResult *e)
{
    switch (e->code) {
    case CASS_ERROR_SERVER_UNAVAILABLE:
    case CASS_ERROR_SERVER_READ_TIMEOUT:
    case CASS_ERROR_SERVER_WRITE_TIMEOUT:
    case CASS_ERROR_SERVER_READ_FAILURE:
    case CASS_ERROR_SERVER_WRITE_FAILURE:
        return 1;
    default:
        return 0;
    }
}

CassConsistency cass_error_result_consistency(const CassErrorResult *error_result)
{
    return error_result && carries_replicas(error_result) ? error_result->consistency
                                                          : CASS_CONSISTENCY_UNKNOWN;
}

cass_int32_t cass_error_result_responses_received(const CassErrorResult *error_result)
{
    return error_result && carries_replicas(error_result) ? error_result->received : -1;
}

cass_int32_t cass_error_result_responses_required(const CassErrorResult *error_result)
{
    return error_result && carries_replicas(error_result) ? error_result->required : -1;
}

cass_int32_t cass_error_result_num_failures(const CassErrorResult *error_result)
{
    if (!error_result || (error_result->code != CASS_ERROR_SERVER_READ_FAILURE &&
                          error_result->code != CASS_ERROR_SERVER_WRITE_FAILURE))
        return -1;
    return error_result->num_failures;
}

cass_bool_t cass_error_result_data_present(const CassErrorResult *error_result)
{
    if (!error_result || (error_result->code != CASS_ERROR_SERVER_READ_TIMEOUT &&
                          error_result->code != CASS_ERROR_SERVER_READ_FAILURE))
        return cass_false;
    return error_result->data_present ? cass_true : cass_false;
}

CassWriteType cass_error_result_write_type(const CassErrorResult *error_result)
{
    if (!error_result || (error_result->code != CASS_ERROR_SERVER_WRITE_TIMEOUT &&
                          error_result->code != CASS_ERROR_SERVER_WRITE_FAILURE))
        return CASS_WRITE_TYPE_UNKNOWN;
    return error_result->write_type;
}

/* A borrowed string field: "" when the failure did not carry it. */
static CassError string_field(const char *s, const char **out, size_t *out_len)
{
    if (!out || !out_len)
        return CASS_ERROR_LIB_BAD_PARAMS;
    *out = s ? s : "";
    *out_len = s ? strlen(s) : 0;
    return CASS_OK;
}

CassError cass_error_result_keyspace(const CassErrorResult *error_result, const char **keyspace,
                                     size_t *keyspace_length)
{
    if (!error_result)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (error_result->code != CASS_ERROR_SERVER_ALREADY_EXISTS &&
        error_result->code != CASS_ERROR_SERVER_FUNCTION_FAILURE)
        return CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE;
    return string_field(error_result->keyspace, keyspace, keyspace_length);
}

CassError cass_error_result_table(const CassErrorResult *error_result, const char **table,
                                  size_t *table_length)
{
    if (!error_result)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (error_result->code != CASS_ERROR_SERVER_ALREADY_EXISTS)
        return CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE;
    return string_field(error_result->table, table, table_length);
}

CassError cass_error_result_function(const CassErrorResult *error_result, const char **function,
                                     size_t *function_length)
{
    if (!error_result)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (error_result->code != CASS_ERROR_SERVER_FUNCTION_FAILURE)
        return CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE;
    return string_field(error_result->function, function, function_length);
}

size_t cass_error_num_arg_types(const CassErrorResult *error_result)
{
    if (!error_result || error_result->code != CASS_ERROR_SERVER_FUNCTION_FAILURE ||
        !error_result->arg_types)
        return 0;
    return error_result->n_arg_types;
}

CassError cass_error_result_arg_type(const CassErrorResult *error_result, size_t index,
                                     const char **arg_type, size_t *arg_type_length)
{
    if (!error_result)
        return CASS_ERROR_LIB_BAD_PARAMS;
    if (error_result->code != CASS_ERROR_SERVER_FUNCTION_FAILURE)
        return CASS_ERROR_LIB_INVALID_ERROR_RESULT_TYPE;
    if (index >= cass_error_num_arg_types(error_result))
        return CASS_ERROR_LIB_INDEX_OUT_OF_BOUNDS;
    return string_field(error_result->arg_types[index], arg_type, arg_type_length);
}

/* ------------------------------------------------------------------------ */
/* Log                                                                       */
/* ------------------------------------------------------------------------ */

static void stderr_callback(const CassLogMessage *message, void *data)
{
    (void)data;
    fprintf(stderr, "%u.%03u [%s] (%s:%d:%s): %s\n", (unsigned)(message->time_ms / 1000),
            (unsigned)(message->time_ms % 1000), cass_log_level_string(message->severity),
            message->file ? message->file : "", message->line,
            message->function ? message->function : "", message->message);
}

static void discard_callback(const CassLogMessage *message, void *data)
{
    (void)message;
    (void)data;
}

static _Atomic int log_level = CASS_LOG_WARN;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static CassLogCallback log_callback = stderr_callback; /* under log_lock */
static void *log_data;                                 /* under log_lock */

void cass_log_set_level(CassLogLevel level)
{
    atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
}

void cass_log_set_callback(CassLogCallback callback, void *data)
{
    pthread_mutex_lock(&log_lock);
    log_callback = callback ? callback : discard_callback; /* NULL silences, as the driver's */
    log_data = data;
    pthread_mutex_unlock(&log_lock);
}

void cass_log_set_queue_size(size_t queue_size)
{
    (void)queue_size; /* messages are delivered synchronously: there is no queue */
}

void cass_log_cleanup(void)
{
    /* no log thread to stop */
}

void cql_drv_log(CassLogLevel level, const char *file, int line, const char *function,
                 const char *fmt, ...)
{
    int set = atomic_load_explicit(&log_level, memory_order_relaxed);
    if (level <= CASS_LOG_DISABLED || (int)level > set || set <= CASS_LOG_DISABLED || !fmt)
        return;
    CassLogMessage m;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    m.time_ms = (cass_uint64_t)ts.tv_sec * 1000u + (cass_uint64_t)(ts.tv_nsec / 1000000);
    m.severity = level;
    m.file = file ? file : "";
    m.line = line;
    m.function = function ? function : "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.message, sizeof m.message, fmt, ap);
    va_end(ap);

    pthread_mutex_lock(&log_lock);
    CassLogCallback cb = log_callback;
    void *data = log_data;
    pthread_mutex_unlock(&log_lock);
    cb(&m, data);
}

/* ------------------------------------------------------------------------ */
/* Allocator                                                                 */
/* ------------------------------------------------------------------------ */

void cass_alloc_set_functions(CassMallocFunction malloc_func, CassReallocFunction realloc_func,
                              CassFreeFunction free_func)
{
    /* The three go together, as in the driver's Memory::set_functions: if any is NULL, all three
     * return to the C library's, never a mix that would free memory with the wrong function. */
    if (!malloc_func || !realloc_func || !free_func)
        eng_alloc_set(NULL, NULL, NULL);
    else
        eng_alloc_set(malloc_func, realloc_func, free_func);
}
