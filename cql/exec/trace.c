/*
 * Query tracing (trace.h): a trace gathers its parameters and events in memory while the
 * request runs and writes them in one eng_apply when it ends -- the session row (with its
 * duration) and every event row -- so a reader that gets the tracing id finds the whole
 * trace, where Cassandra's driver polls until the duration appears.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cql/exec/exec_int.h"
#include "cql/exec/trace.h"
#include "engine/value/text.h"
#include "engine/value/uuid.h"

#define TRACE_KS "system_traces"
#define TRACE_TTL_S 86400 /* tracetype_query_ttl: one day */
#define TRACE_PORT 7000   /* the node's storage port: coordinator_port, source_port */
#define BOUND_VALUE_MAX 1000

static const uint8_t LOOPBACK[4] = {127, 0, 0, 1};

typedef struct trace_param {
    char *name, *value;
    size_t value_len;
} trace_param;

typedef struct trace_event {
    uint8_t id[16];
    int32_t elapsed_us;
    const char *thread;
    char *activity;
} trace_event;

struct cql_trace {
    eng_db *db;
    int64_t mono_start_ns;
    int64_t started_us; /* the database's clock */
    uint8_t id[16];
    const char *request;
    uint8_t client[16];
    uint8_t client_len;
    trace_param *params;
    uint32_t n_params, cap_params;
    trace_event *events;
    uint32_t n_events, cap_events;
    eng_arena arena; /* names, values, activities */
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int32_t elapsed_us(const cql_trace *t)
{
    int64_t us = (mono_ns() - t->mono_start_ns) / 1000;
    return us > INT32_MAX ? INT32_MAX : (int32_t)us;
}

/* ConsistencyLevel.name() of a protocol code. */
static const char *consistency_name(int cl)
{
    static const char *const names[] = {"ANY",    "ONE",          "TWO",          "THREE",
                                        "QUORUM", "ALL",          "LOCAL_QUORUM", "EACH_QUORUM",
                                        "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"};
    return cl >= 0 && cl < (int)ENG_ARRAY_LEN(names) ? names[cl] : NULL;
}

cql_trace *cql_trace_begin(eng_db *db, const char *request, const cql_exec_options *o,
                           int with_page_size)
{
    cql_trace *t = eng_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->db = db;
    t->mono_start_ns = mono_ns();
    t->started_us = eng_clock_now_us(eng_db_clock(db));
    eng_uuidgen_next(eng_db_uuidgen(db), t->started_us, t->id);
    t->request = request;
    eng_arena_init(&t->arena, 1024);
    if (o->trace_client && (o->trace_client_len == 4 || o->trace_client_len == 16)) {
        memcpy(t->client, o->trace_client, o->trace_client_len);
        t->client_len = o->trace_client_len;
    } else {
        memcpy(t->client, LOOPBACK, sizeof LOOPBACK);
        t->client_len = sizeof LOOPBACK;
    }
    char page[16];
    if (with_page_size && o->page_size > 0) {
        int n = snprintf(page, sizeof page, "%d", (int)o->page_size);
        cql_trace_param(t, "page_size", page, (size_t)n);
    }
    const char *cl = consistency_name(o->consistency),
               *serial = consistency_name(o->serial_consistency);
    if (cl)
        cql_trace_param(t, "consistency_level", cl, strlen(cl));
    if (serial)
        cql_trace_param(t, "serial_consistency_level", serial, strlen(serial));
    return t;
}

void cql_trace_param(cql_trace *t, const char *name, const char *value, size_t len)
{
    for (uint32_t i = 0; i < t->n_params; i++)
        if (!strcmp(t->params[i].name, name))
            return; /* ImmutableMap: a name once */
    if (t->n_params == t->cap_params) {
        uint32_t cap = t->cap_params ? t->cap_params * 2 : 8;
        trace_param *grown = eng_realloc(t->params, cap * sizeof *grown);
        if (!grown)
            return;
        t->params = grown;
        t->cap_params = cap;
    }
    size_t nl = strlen(name);
    char *n = eng_arena_alloc(&t->arena, nl + 1), *v = eng_arena_alloc(&t->arena, len + 1);
    if (!n || !v)
        return;
    memcpy(n, name, nl + 1);
    memcpy(v, value, len);
    v[len] = '\0';
    t->params[t->n_params++] = (trace_param){n, v, len};
}

/* The CQL literal of a value (CQL3Type.toCQLLiteral): quoted text, 0x blobs, quoted dates and
   times, the type's text otherwise. 0, or -1 for a type written no literal here (collections,
   tuples, user types). */
static int cql_literal(const eng_type *type, eng_val v, eng_buf *out)
{
    if (v.len == ENG_NULL) {
        eng_buf_put(out, "null", 4);
        return 0;
    }
    if (v.len == ENG_UNSET) {
        eng_buf_put(out, "<unset>", 7);
        return 0;
    }
    static const char HEX[] = "0123456789abcdef";
    switch (type->kind) {
    case ENG_ASCII:
    case ENG_TEXT:
        eng_buf_put(out, "'", 1);
        for (int32_t i = 0; i < v.len; i++) {
            eng_buf_put(out, &v.p[i], 1);
            if (v.p[i] == '\'')
                eng_buf_put(out, "'", 1);
        }
        eng_buf_put(out, "'", 1);
        return 0;
    case ENG_BLOB:
        eng_buf_put(out, "0x", 2);
        for (int32_t i = 0; i < v.len; i++) {
            eng_buf_put(out, &HEX[v.p[i] >> 4], 1);
            eng_buf_put(out, &HEX[v.p[i] & 15], 1);
        }
        return 0;
    default:
        break;
    }
    int quoted = type->kind == ENG_TIMESTAMP || type->kind == ENG_DATE || type->kind == ENG_TIME ||
                 type->kind == ENG_INET;
    eng_err err;
    eng_err_clear(&err);
    if (quoted)
        eng_buf_put(out, "'", 1);
    if (eng_text_to_string(type, v.p, (size_t)v.len, out, &err))
        return -1;
    if (quoted)
        eng_buf_put(out, "'", 1);
    return 0;
}

void cql_trace_bound_var(cql_trace *t, uint32_t i, const cql_column_spec *spec, eng_val v)
{
    if (!spec || !spec->type)
        return;
    eng_buf lit = ENG_BUF_INIT;
    if (cql_literal(spec->type, v, &lit) == 0 && !lit.oom) {
        if (lit.len > BOUND_VALUE_MAX) {
            lit.len = BOUND_VALUE_MAX;
            eng_buf_put(&lit, "...'", 4);
        }
        char name[64 + 256];
        snprintf(name, sizeof name, "bound_var_%u_%s", i, spec->name ? spec->name : "");
        if (!lit.oom)
            cql_trace_param(t, name, lit.len ? (const char *)lit.p : "", lit.len);
    }
    eng_buf_free(&lit);
}

void cql_trace_event(cql_trace *t, const char *thread, const char *fmt, ...)
{
    if (t->n_events == t->cap_events) {
        uint32_t cap = t->cap_events ? t->cap_events * 2 : 16;
        trace_event *grown = eng_realloc(t->events, cap * sizeof *grown);
        if (!grown)
            return;
        t->events = grown;
        t->cap_events = cap;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    char *activity = eng_arena_alloc(&t->arena, len + 1);
    if (!activity)
        return;
    memcpy(activity, buf, len);
    activity[len] = '\0';
    trace_event *e = &t->events[t->n_events++];
    e->elapsed_us = elapsed_us(t);
    e->thread = thread;
    e->activity = activity;
    eng_uuidgen_next(eng_db_uuidgen(t->db), eng_clock_now_us(eng_db_clock(t->db)), e->id);
}

/* ---- the tables (TraceKeyspace) ---- */

enum { T_UUID, T_TIMEUUID, T_TEXT, T_INET, T_INT, T_TIMESTAMP, T_MAP };

typedef struct trace_table_spec {
    const char *name, *comment;
    struct {
        const char *name;
        int type;
        uint8_t kind;
    } cols[9];
    uint32_t n_cols;
} trace_table_spec;

static const trace_table_spec TRACE_TABLES[] = {
    {"sessions",
     "'tracing sessions'",
     {{"session_id", T_UUID, ENG_COL_PARTITION},
      {"client", T_INET, ENG_COL_REGULAR},
      {"command", T_TEXT, ENG_COL_REGULAR},
      {"coordinator", T_INET, ENG_COL_REGULAR},
      {"coordinator_port", T_INT, ENG_COL_REGULAR},
      {"duration", T_INT, ENG_COL_REGULAR},
      {"parameters", T_MAP, ENG_COL_REGULAR},
      {"request", T_TEXT, ENG_COL_REGULAR},
      {"started_at", T_TIMESTAMP, ENG_COL_REGULAR}},
     9},
    {"events",
     "'tracing events'",
     {{"session_id", T_UUID, ENG_COL_PARTITION},
      {"event_id", T_TIMEUUID, ENG_COL_CLUSTERING},
      {"activity", T_TEXT, ENG_COL_REGULAR},
      {"source", T_INET, ENG_COL_REGULAR},
      {"source_elapsed", T_INT, ENG_COL_REGULAR},
      {"source_port", T_INT, ENG_COL_REGULAR},
      {"thread", T_TEXT, ENG_COL_REGULAR}},
     7},
};

static eng_type *trace_type(int which)
{
    static const int kinds[] = {ENG_UUID, ENG_TIMEUUID, ENG_TEXT, ENG_INET, ENG_INT, ENG_TIMESTAMP};
    if (which == T_MAP)
        return eng_type_new_map(eng_type_new(ENG_TEXT), eng_type_new(ENG_TEXT), 0);
    return eng_type_new(kinds[which]);
}

/* The tables in a snapshot of db (held in *schema), made first when missing. */
static int trace_tables(eng_db *db, eng_schema **schema, const eng_table **sessions,
                        const eng_table **events, eng_err *err)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int rc = eng_db_schema(db, schema, err);
        if (rc)
            return rc;
        *sessions = eng_schema_table(*schema, TRACE_KS, "sessions");
        *events = eng_schema_table(*schema, TRACE_KS, "events");
        if (*sessions && *events)
            return 0;
        eng_schema_unref(*schema);
        *schema = NULL;
        if (attempt)
            break;
        char cls[] = "class", simple[] = "SimpleStrategy", rf[] = "replication_factor", two[] = "2";
        eng_option repl[2] = {{cls, simple}, {rf, two}};
        int changed;
        rc = eng_create_keyspace(db, TRACE_KS, repl, 2, 1, 1, &changed, err);
        for (size_t i = 0; !rc && i < ENG_ARRAY_LEN(TRACE_TABLES); i++) {
            const trace_table_spec *spec = &TRACE_TABLES[i];
            eng_column_def defs[9];
            eng_type *types[9] = {0};
            for (uint32_t c = 0; c < spec->n_cols; c++) {
                types[c] = trace_type(spec->cols[c].type);
                defs[c] = (eng_column_def){spec->cols[c].name, types[c], spec->cols[c].kind, 0};
                if (!types[c])
                    rc = eng_errorf(err, ENG_E_NOMEM, "out of memory making system_traces");
            }
            char comment[] = "comment", gc[] = "gc_grace_seconds", zero[] = "0";
            eng_option opts[2] = {{comment, (char *)spec->comment}, {gc, zero}};
            eng_table_def def = {TRACE_KS, spec->name, spec->n_cols, defs, 2, opts};
            if (!rc)
                rc = eng_create_table(db, &def, 1, &changed, err);
            for (uint32_t c = 0; c < spec->n_cols; c++)
                eng_type_free(types[c]);
        }
        if (rc)
            return rc;
    }
    return eng_errorf(err, ENG_E_SERVER, "the tables of system_traces are missing");
}

/* ---- writing a trace ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(((const trace_param *)a)->name, ((const trace_param *)b)->name);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

/* The operation on column `name` of t (the tables were made with these columns). */
static eng_cell_op op_on(const eng_table *t, const char *name, uint8_t kind, eng_val v)
{
    int c = eng_table_column_index(t, name);
    return (eng_cell_op){(uint16_t)(c < 0 ? 0 : c),
                         c < 0 ? ENG_OP_SET : kind,
                         {NULL, 0},
                         c < 0 ? (eng_val){NULL, ENG_UNSET} : v};
}

static eng_val text_val(const char *s)
{
    return (eng_val){(const uint8_t *)s, (int32_t)strlen(s)};
}

static int trace_write(cql_trace *t, eng_err *err)
{
    eng_schema *schema = NULL;
    const eng_table *sessions = NULL, *events = NULL;
    int rc = trace_tables(t->db, &schema, &sessions, &events, err);
    if (rc)
        return rc;
    int32_t duration = elapsed_us(t);
    if (duration < 1)
        duration = 1;
    uint8_t port[4], dur[4], started[8];
    put_be32(port, TRACE_PORT);
    put_be32(dur, (uint32_t)duration);
    put_be64(started, (uint64_t)(t->started_us / 1000));
    /* parameters: a map<text, text> in name order */
    qsort(t->params, t->n_params, sizeof *t->params, by_name);
    eng_buf map = ENG_BUF_INIT;
    eng_buf_put_be32(&map, t->n_params);
    for (uint32_t i = 0; i < t->n_params; i++) {
        size_t nl = strlen(t->params[i].name);
        eng_buf_put_be32(&map, (uint32_t)nl);
        eng_buf_put(&map, t->params[i].name, nl);
        eng_buf_put_be32(&map, (uint32_t)t->params[i].value_len);
        eng_buf_put(&map, t->params[i].value, t->params[i].value_len);
    }
    eng_cell_op sops[8] = {
        op_on(sessions, "client", ENG_OP_SET, (eng_val){t->client, t->client_len}),
        op_on(sessions, "command", ENG_OP_SET, text_val("QUERY")),
        op_on(sessions, "coordinator", ENG_OP_SET, (eng_val){LOOPBACK, 4}),
        op_on(sessions, "coordinator_port", ENG_OP_SET, (eng_val){port, 4}),
        op_on(sessions, "duration", ENG_OP_SET, (eng_val){dur, 4}),
        op_on(sessions, "parameters", ENG_OP_ADD,
              (eng_val){map.p ? map.p : (const uint8_t *)"", (int32_t)map.len}),
        op_on(sessions, "request", ENG_OP_SET, text_val(t->request)),
        op_on(sessions, "started_at", ENG_OP_SET, (eng_val){started, 8}),
    };
    eng_val id = {t->id, 16};
    eng_val no_ck = {NULL, 0}; /* the table's one row (a NULL ck is the static row) */
    eng_row_mut srow;
    memset(&srow, 0, sizeof srow);
    srow.ck = &no_ck;
    srow.insert_marker = 1;
    srow.n_ops = ENG_ARRAY_LEN(sops);
    srow.ops = sops;
    /* events: one row each, clustered by event id */
    size_t n = t->n_events;
    eng_row_mut *rows = eng_calloc(n ? n : 1, sizeof *rows);
    eng_val *cks = eng_calloc(n ? n : 1, sizeof *cks);
    eng_cell_op *eops = eng_calloc(n ? n * 5 : 1, sizeof *eops);
    uint8_t *ints = eng_calloc(n ? n * 4 : 1, 1);
    if (!rows || !cks || !eops || !ints || map.oom)
        rc = eng_errorf(err, ENG_E_NOMEM, "out of memory writing a trace");
    for (size_t i = 0; !rc && i < n; i++) {
        const trace_event *e = &t->events[i];
        cks[i] = (eng_val){e->id, 16};
        put_be32(ints + 4 * i, (uint32_t)e->elapsed_us);
        eng_cell_op *o = eops + 5 * i;
        o[0] = op_on(events, "activity", ENG_OP_SET, text_val(e->activity));
        o[1] = op_on(events, "source", ENG_OP_SET, (eng_val){LOOPBACK, 4});
        o[2] = op_on(events, "source_elapsed", ENG_OP_SET, (eng_val){ints + 4 * i, 4});
        o[3] = op_on(events, "source_port", ENG_OP_SET, (eng_val){port, 4});
        o[4] = op_on(events, "thread", ENG_OP_SET, text_val(e->thread));
        rows[i].ck = &cks[i];
        rows[i].insert_marker = 1;
        rows[i].n_ops = 5;
        rows[i].ops = o;
    }
    if (!rc) {
        eng_mutation m[2];
        memset(m, 0, sizeof m);
        m[0].table = sessions;
        m[0].pk = &id;
        m[0].ts_us = ENG_TS_NONE;
        m[0].ttl_s = TRACE_TTL_S;
        m[0].n_rows = 1;
        m[0].rows = &srow;
        m[1] = m[0];
        m[1].table = events;
        m[1].n_rows = (uint32_t)n;
        m[1].rows = rows;
        rc = eng_apply(t->db, m, n ? 2 : 1, NULL, err);
    }
    eng_free(rows);
    eng_free(cks);
    eng_free(eops);
    eng_free(ints);
    eng_buf_free(&map);
    eng_schema_unref(schema);
    return rc;
}

void cql_trace_end(cql_trace *t, cql_result *r)
{
    if (!t)
        return;
    eng_err err;
    eng_err_clear(&err);
    if (trace_write(t, &err) == 0 && r) {
        memcpy(r->tracing_id, t->id, 16);
        r->has_tracing_id = 1;
    }
    eng_free(t->params);
    eng_free(t->events);
    eng_arena_free(&t->arena);
    eng_free(t);
}
