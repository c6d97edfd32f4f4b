/*
 * The size limit of one mutation (Cassandra's max_mutation_size, by default
 * half of the 32 MiB commitlog_segment_size: 16 MiB).
 *
 * Cassandra's coordinator turns a statement into mutations, one per
 * partition key; a batch into one per keyspace and partition key bytes, so
 * that a batch's statements on one partition -- in one table or several
 * tables of a keyspace -- make one mutation (SingleTableUpdatesCollector,
 * BatchUpdatesCollector). Before anything is sent or applied it measures
 * each one as it would be serialized in the commit log, plus the log entry's
 * 12-byte header (Mutation.validateSize), and refuses the whole request when
 * one is over the limit: InvalidRequest "Rejected an oversized mutation
 * (<size>/<limit>) for keyspace: <ks>. Top keys are: <table>.<key>, ..."
 * (MutationExceededMaxSizeException), the partition updates listed largest
 * first. A counter mutation also counts its consistency level's name.
 *
 * Sizes follow the serializers of messaging version 4.0 (Cassandra 4.1):
 *
 *   mutation  = uvint(#updates), then each partition update
 *   update    = table id (16), key (uvint length + bytes), flags (1); when
 *               not empty: encoding stats (3 uvints), the static columns'
 *               names (with a static row) and the regular ones' (uvint count,
 *               uvint length + name each), the partition deletion, the static
 *               row, uvint(#rows), the rows and range tombstone markers, an
 *               end byte
 *   row       = flags (1, +1 for the static row), clustering (a uvint header
 *               per 32 values, then each non-empty value), liveness, deletion,
 *               the subset of the header's columns it has (when not all), and
 *               its columns
 *   cell      = flags (1), timestamp unless the row's, deletion time and TTL
 *               when tombstone or expiring and not the row's, path (uvint
 *               length + bytes) in a collection or UDT, value unless empty
 *               (its bytes for a fixed-length type, else uvint length + bytes)
 *   complex   = its deletion time when the row has one, uvint(#cells), cells
 *
 * Timestamps, deletion times and TTLs are uvints of their distance to the
 * update's minimum (EncodingStats), deletion times and TTLs computed in Java's
 * 32-bit int arithmetic. Cells of a statement's operations are derived as the
 * write path does (write.c: apply_op). The count is exact for what a
 * statement states; where cassette cannot know what Cassandra would write
 * without reading the partition it approximates (docs/compat.md): a list
 * element set by index counts one cell with a time UUID path, a list removal
 * by value counts nothing, and collection elements written by several
 * statements of a batch to the same row are counted once per statement.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/value/text.h"

#define ENTRY_OVERHEAD 12  /* CommitLogSegment.ENTRY_OVERHEAD_SIZE: length and two checksums */
#define TABLE_ID_SIZE 16   /* TableId: a UUID */
#define TIMESTAMP_EPOCH_US 1442880000000000LL /* EncodingStats' epoch, 2015-09-22T00:00Z, in µs */
#define DELETION_TIME_EPOCH_S 1442880000      /* the same in seconds */
#define LIST_PATH_SIZE 17  /* a list cell's path: uvint length 16, a time UUID */
#define UDT_PATH_SIZE 3    /* a UDT field's path: uvint length 2, the field's index as a short */
#define COUNTER_UPDATE_SIZE 36 /* CounterContext.createUpdate: header (4) and one local shard (32) */
#define TOP_KEYS_LIMIT 1024    /* MutationExceededMaxSizeException.PARTITION_MESSAGE_LIMIT */
#define LARGE_SUBSET 64        /* Columns.serializeSubset: a bitmap below this many columns */

/* ---- encodings ---- */

/* VIntCoding.computeUnsignedVIntSize: 7 bits in 1 byte ... 56 in 8, 9 bytes beyond. */
static uint64_t uvint_size(uint64_t v)
{
    int nlz = __builtin_clzll(v | 1);
    return (uint64_t)((639 - nlz * 9) >> 6);
}

/* A difference of two Java ints (wrapping), widened to long and written unsigned. */
static uint64_t int_delta_size(int32_t a, int32_t b)
{
    return uvint_size((uint64_t)(int64_t)(int32_t)((uint32_t)a - (uint32_t)b));
}

/* ByteBufferUtil.writeWithVIntLength */
static uint64_t bytes_size(int32_t len)
{
    return len > 0 ? uvint_size((uint64_t)len) + (uint64_t)len : 1;
}

/* AbstractType.valueLengthIfFixed of the types that have one. */
static int fixed_length(const eng_type *t)
{
    switch (t->kind) {
    case ENG_BOOLEAN:
        return 1;
    case ENG_INT:
    case ENG_FLOAT:
        return 4;
    case ENG_BIGINT:
    case ENG_DOUBLE:
    case ENG_TIMESTAMP:
        return 8;
    case ENG_UUID:
    case ENG_TIMEUUID:
        return 16;
    default:
        return -1;
    }
}

/* AbstractType.writeValue of a cell's value; an empty value is only a flag of the cell. */
static uint64_t value_size(const eng_type *t, eng_val v)
{
    if (v.len <= 0)
        return 0;
    return fixed_length(t) >= 0 ? (uint64_t)v.len : bytes_size(v.len);
}

/* ClusteringPrefix.Serializer.valuesWithoutSizeSerializedSize: a header of two bits per value
   (empty, null) for each 32 values, then the values that are neither. */
static uint64_t clustering_size(const eng_table *t, const eng_val *v, uint32_t n)
{
    uint64_t size = 0;
    for (uint32_t block = 0; block < n; block += 32) {
        uint64_t header = 0;
        for (uint32_t i = block; i < n && i < block + 32; i++) {
            if (v[i].len < 0)
                header |= 1ull << ((i - block) * 2 + 1);
            else if (v[i].len == 0)
                header |= 1ull << ((i - block) * 2);
        }
        size += uvint_size(header);
    }
    for (uint32_t i = 0; i < n; i++) {
        const eng_type *ty = t->cols[t->n_pk + i].type;
        if (v[i].len > 0)
            size += fixed_length(ty) >= 0 ? (uint64_t)v[i].len : bytes_size(v[i].len);
    }
    return size;
}

/* ---- what a statement writes ---- */

enum { ITEM_CELL, ITEM_CELLS, ITEM_CDEL };

/* What one operation writes into one column of one row. */
typedef struct item {
    uint32_t row;      /* the merged row (index into sizer.rows) */
    uint32_t seq;      /* the mutation's place in the request */
    uint16_t col;
    uint8_t kind;      /* ITEM_CELL: one simple cell; ITEM_CELLS: cells of a collection or UDT;
                          ITEM_CDEL: a deletion of a whole collection or UDT */
    uint8_t tomb;      /* the cells are tombstones */
    uint8_t lost;      /* ITEM_CELL: another statement's cell wins the column (Cells.reconcile) */
    int32_t ttl;       /* > 0: the cells expire */
    int64_t ts;
    uint64_t n_cells;  /* ITEM_CELLS */
    uint64_t payload;  /* encoded value (ITEM_CELL), or paths and values (ITEM_CELLS) */
    eng_val value;     /* ITEM_CELL: compared when timestamps tie */
} item;

/* A row one mutation writes (a clustering row or the static row). The references to one row
   from several statements of a batch are merged as PartitionUpdate.Builder merges them: the
   first of them in sorted order (its leader) holds the merged liveness and deletion. */
typedef struct row {
    const eng_mutation *m;
    const eng_row_mut *rm;
    size_t key_off, key_len; /* its identity in sizer.keys: clustering values, length-prefixed */
    uint32_t seq;            /* the mutation's place in the request */
    uint32_t leader;
    uint8_t has_live, has_del;
    int32_t live_ttl;
    int64_t live_ts, del_ts;
} row;

/* The minimums an update's timestamps, deletion times and TTLs are written against. */
typedef struct stats {
    int64_t ts;
    int32_t ldt, ttl;
    uint8_t has_ts, has_ldt, has_ttl;
} stats;

/* The header columns of one table: every operation's column in the request (a batch's
   PartitionUpdate.Builder gets the columns all its statements on the table update), each with
   its place in Cassandra's order of its kind (simple before complex, then by name). */
typedef struct header {
    const eng_table *t;
    uint32_t *pos;                /* per column of t: its place; UINT32_MAX if not a header column */
    uint32_t n_static, n_regular;
    uint64_t static_size, regular_size; /* Columns.serializedSize: uvint count, names */
} header;

typedef struct sizer {
    int64_t now_us;
    int32_t now_s;
    const eng_mutation *muts;
    eng_buf keys;      /* partition keys (as Cassandra composes them), then rows' identities */
    size_t keys_pk_end;
    size_t *pk_off, *pk_len;
    header *headers;
    uint32_t n_headers, *header_of;
    row *rows;
    uint32_t n_rows, cap_rows;
    uint32_t *row_order;              /* rows sorted by identity, then request order */
    uint32_t *item_begin, *item_end;  /* per leader row: its items */
    item *items;
    uint32_t n_items, cap_items;
    uint8_t *present;  /* scratch: a row's header columns */
    stats st;
    eng_err *err;
} sizer;

static int nomem(sizer *z) { return eng_errorf(z->err, ENG_E_NOMEM, "out of memory measuring a write"); }

/* The mutation's write timestamp: its own, or the one the write will take, now. */
static int64_t mutation_ts(const sizer *z, const eng_mutation *m)
{
    return m->ts_us != ENG_TS_NONE ? m->ts_us : z->now_us;
}

static int32_t mutation_ttl(const eng_mutation *m)
{
    return m->ttl_s < 0 ? m->table->default_ttl_s : m->ttl_s;
}

/* ---- the items of an operation (write.c: apply_op and its helpers) ---- */

static item *new_item(sizer *z, uint32_t r, uint16_t col, uint8_t kind)
{
    if (z->n_items == z->cap_items) {
        uint32_t cap = z->cap_items ? z->cap_items * 2 : 64;
        item *v = eng_realloc(z->items, cap * sizeof *v);
        if (!v)
            return NULL;
        z->items = v;
        z->cap_items = cap;
    }
    item *it = &z->items[z->n_items++];
    memset(it, 0, sizeof *it);
    it->row = z->rows[r].leader;
    it->seq = z->rows[r].seq;
    it->col = col;
    it->kind = kind;
    it->ts = mutation_ts(z, z->rows[r].m);
    return it;
}

/* The cells of a serialized collection or UDT value, as write.c's add_all makes them: list
   elements get time UUID paths, set elements and map keys are the paths, UDT fields are paths
   of their index; tombstones carry paths only. A malformed value counts nothing (the write
   refuses it). */
static void element_cells(const eng_type *ty, eng_val v, int tomb, uint64_t *n, uint64_t *size)
{
    eng_items it;
    eng_val a, b;
    if (ty->kind == ENG_UDT) {
        eng_items_begin_raw(&it, v.p, (size_t)v.len);
        for (uint16_t i = 0; i < ty->n_sub && eng_items_next(&it, &a) == 1; i++) {
            if (a.len < 0 && !tomb)
                continue; /* a null field of an overwrite is absent */
            (*n)++;
            *size += UDT_PATH_SIZE + (tomb ? 0 : value_size(ty->sub[i], a));
        }
        return;
    }
    if (eng_items_begin(&it, v.p, (size_t)v.len) < 0)
        return;
    while (eng_items_next(&it, &a) == 1) {
        if (ty->kind == ENG_MAP && !tomb) {
            if (eng_items_next(&it, &b) != 1)
                return;
            *size += bytes_size(a.len) + value_size(ty->sub[1], b);
        } else if (ty->kind == ENG_LIST && !tomb) {
            *size += LIST_PATH_SIZE + value_size(ty->sub[0], a);
        } else {
            *size += bytes_size(a.len);
        }
        (*n)++;
    }
}

static int add_elements(sizer *z, uint32_t r, uint16_t col, const eng_type *ty, eng_val v,
                        int tomb)
{
    item *it = new_item(z, r, col, ITEM_CELLS);
    if (!it)
        return nomem(z);
    it->tomb = (uint8_t)tomb;
    it->ttl = tomb ? 0 : mutation_ttl(z->rows[r].m);
    element_cells(ty, v, tomb, &it->n_cells, &it->payload);
    return 0;
}

/* One element of a collection or UDT: its path and, unless a tombstone, its value. */
static int add_element(sizer *z, uint32_t r, uint16_t col, uint64_t path_size,
                       const eng_type *vt, eng_val v, int tomb)
{
    item *it = new_item(z, r, col, ITEM_CELLS);
    if (!it)
        return nomem(z);
    it->tomb = (uint8_t)(tomb || v.len < 0);
    it->ttl = it->tomb ? 0 : mutation_ttl(z->rows[r].m);
    it->n_cells = 1;
    it->payload = path_size + (it->tomb ? 0 : value_size(vt, v));
    return 0;
}

static int add_complex_deletion(sizer *z, uint32_t r, uint16_t col, int64_t ts)
{
    item *it = new_item(z, r, col, ITEM_CDEL);
    if (!it)
        return nomem(z);
    it->ts = ts;
    return 0;
}

static int add_simple(sizer *z, uint32_t r, uint16_t col, eng_val v, uint64_t payload)
{
    item *it = new_item(z, r, col, ITEM_CELL);
    if (!it)
        return nomem(z);
    it->tomb = v.len < 0;
    it->ttl = it->tomb ? 0 : mutation_ttl(z->rows[r].m);
    it->value = v;
    it->payload = payload;
    return 0;
}

static int op_items(sizer *z, uint32_t r, const eng_cell_op *op)
{
    const eng_mutation *m = z->rows[r].m;
    const eng_table *t = m->table;
    if (op->col >= t->n_cols || op->value.len == ENG_UNSET ||
        (op->kind == ENG_OP_ELEM_SET && op->key.len == ENG_UNSET))
        return 0;
    const eng_type *ty = t->cols[op->col].type;
    int multi = eng_type_is_multicell(ty);
    switch (op->kind) {
    case ENG_OP_SET:
        if (!multi)
            return add_simple(z, r, op->col, op->value, value_size(ty, op->value));
        /* an overwrite: the old elements deleted at ts - 1, the new ones written at ts */
        if (add_complex_deletion(z, r, op->col, mutation_ts(z, m) - 1))
            return ENG_E_NOMEM;
        return op->value.len < 0 ? 0 : add_elements(z, r, op->col, ty, op->value, 0);
    case ENG_OP_DELETE:
        if (multi)
            return add_complex_deletion(z, r, op->col, mutation_ts(z, m));
        return add_simple(z, r, op->col, (eng_val){NULL, ENG_NULL}, 0);
    case ENG_OP_ELEM_SET:
    case ENG_OP_ELEM_DELETE: {
        int tomb = op->kind == ENG_OP_ELEM_DELETE;
        if (!multi)
            return 0;
        if (ty->kind == ENG_LIST) /* the stored element's time UUID path */
            return add_element(z, r, op->col, LIST_PATH_SIZE, ty->sub[0], op->value, tomb);
        if (ty->kind == ENG_UDT) {
            uint16_t f = op->key.len == 2 ? eng_be16(op->key.p) : UINT16_MAX;
            return f < ty->n_sub
                       ? add_element(z, r, op->col, UDT_PATH_SIZE, ty->sub[f], op->value, tomb)
                       : 0;
        }
        return add_element(z, r, op->col, bytes_size(op->key.len),
                           ty->kind == ENG_MAP ? ty->sub[1] : ty->sub[0], op->value, tomb);
    }
    case ENG_OP_ADD:
    case ENG_OP_REMOVE:
    case ENG_OP_APPEND:
    case ENG_OP_PREPEND:
        if (!multi || op->value.len < 0)
            return 0;
        if (op->kind == ENG_OP_REMOVE && ty->kind == ENG_MAP) {
            /* m - {keys}: the keys come as a set of the key type */
            eng_type as_set = {.kind = ENG_SET, .n_sub = 1, .sub = ty->sub};
            return add_elements(z, r, op->col, &as_set, op->value, 1);
        }
        return add_elements(z, r, op->col, ty, op->value, op->kind == ENG_OP_REMOVE);
    case ENG_OP_COUNTER_ADD: {
        eng_val update = {NULL, COUNTER_UPDATE_SIZE}; /* its bytes are never compared */
        return add_simple(z, r, op->col, update, bytes_size(COUNTER_UPDATE_SIZE));
    }
    default: /* ENG_OP_LIST_REMOVE: its tombstones depend on the stored list */
        return 0;
    }
}

/* ---- rows: references, merged ---- */

static int add_row(sizer *z, const eng_mutation *m, const eng_row_mut *rm, uint32_t seq)
{
    if (z->n_rows == z->cap_rows) {
        uint32_t cap = z->cap_rows ? z->cap_rows * 2 : 16;
        row *v = eng_realloc(z->rows, cap * sizeof *v);
        if (v)
            z->rows = v;
        uint32_t *o = v ? eng_realloc(z->row_order, cap * sizeof *o) : NULL;
        if (o)
            z->row_order = o;
        uint32_t *b = o ? eng_realloc(z->item_begin, cap * sizeof *b) : NULL;
        if (b)
            z->item_begin = b;
        uint32_t *e = b ? eng_realloc(z->item_end, cap * sizeof *e) : NULL;
        if (!e)
            return nomem(z);
        z->item_end = e;
        z->cap_rows = cap;
    }
    row *r = &z->rows[z->n_rows];
    memset(r, 0, sizeof *r);
    r->m = m;
    r->rm = rm;
    r->seq = seq;
    r->key_off = z->keys.len;
    for (uint32_t i = 0; rm->ck && i < m->table->n_ck; i++) {
        eng_buf_put_be32(&z->keys, (uint32_t)rm->ck[i].len);
        if (rm->ck[i].len > 0)
            eng_buf_put(&z->keys, rm->ck[i].p, (size_t)rm->ck[i].len);
    }
    r->key_len = z->keys.len - r->key_off;
    if (rm->insert_marker) {
        r->has_live = 1;
        r->live_ts = mutation_ts(z, m);
        r->live_ttl = mutation_ttl(m);
    }
    if (rm->delete_row) {
        r->has_del = 1;
        r->del_ts = mutation_ts(z, m);
    }
    z->row_order[z->n_rows] = z->n_rows;
    z->n_rows++;
    return z->keys.oom ? nomem(z) : 0;
}

/* Same row: both static, or the same clustering values. */
static int row_key_cmp(const sizer *z, const row *a, const row *b)
{
    if (!a->rm->ck != !b->rm->ck)
        return a->rm->ck ? 1 : -1; /* the static row first */
    size_t n = ENG_MIN(a->key_len, b->key_len);
    int c = n ? memcmp(z->keys.p + a->key_off, z->keys.p + b->key_off, n) : 0;
    if (c)
        return c;
    return a->key_len < b->key_len ? -1 : a->key_len > b->key_len;
}

static int row_order_cmp(const void *pa, const void *pb, void *ctx)
{
    const sizer *z = ctx;
    const row *a = &z->rows[*(const uint32_t *)pa], *b = &z->rows[*(const uint32_t *)pb];
    int c = row_key_cmp(z, a, b);
    return c ? c : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

/* LivenessInfo.supersedes, for two row markers of one request (same local time): the later
   timestamp, then the one expiring later. */
static void merge_row(row *into, const row *r)
{
    if (r->has_live && (!into->has_live || r->live_ts > into->live_ts ||
                        (r->live_ts == into->live_ts && r->live_ttl > into->live_ttl))) {
        into->has_live = 1;
        into->live_ts = r->live_ts;
        into->live_ttl = r->live_ttl;
    }
    if (r->has_del && (!into->has_del || r->del_ts > into->del_ts)) {
        into->has_del = 1;
        into->del_ts = r->del_ts;
    }
}

/* Sorts the row references and points each at the leader of its row. */
static void merge_rows(sizer *z)
{
    qsort_r(z->row_order, z->n_rows, sizeof *z->row_order, row_order_cmp, z);
    uint32_t leader = 0;
    for (uint32_t i = 0; i < z->n_rows; i++) {
        row *r = &z->rows[z->row_order[i]];
        if (i == 0 || row_key_cmp(z, &z->rows[leader], r) != 0)
            leader = z->row_order[i];
        r->leader = leader;
        if (leader != z->row_order[i])
            merge_row(&z->rows[leader], r);
    }
}

/* ---- items: sorted per row and column, simple cells reconciled ---- */

static int item_cmp(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int32_t item_ldt(const sizer *z, const item *it)
{
    return it->tomb ? z->now_s : (int32_t)((uint32_t)z->now_s + (uint32_t)it->ttl);
}

/* Cells.resolveRegular: 1 when cell a wins over b (written in this order). */
static int wins(const sizer *z, const item *a, const item *b)
{
    if (a->ts != b->ts)
        return a->ts > b->ts;
    int a_dies = a->tomb || a->ttl > 0, b_dies = b->tomb || b->ttl > 0;
    if (a_dies != b_dies)
        return a_dies; /* a tombstone or expiring cell beats a live one */
    if (a_dies) {
        if (a->tomb != b->tomb)
            return a->tomb;
        if (item_ldt(z, a) != item_ldt(z, b))
            return item_ldt(z, a) > item_ldt(z, b);
    }
    int32_t la = ENG_MAX(a->value.len, 0), lb = ENG_MAX(b->value.len, 0);
    int c = a->value.p && b->value.p ? memcmp(a->value.p, b->value.p, (size_t)ENG_MIN(la, lb)) : 0;
    return c ? c > 0 : la >= lb;
}

/* Several statements of a batch setting one simple column of one row leave one cell. */
static void reconcile(sizer *z)
{
    qsort(z->items, z->n_items, sizeof *z->items, item_cmp);
    for (uint32_t i = 1; i < z->n_items; i++) {
        item *a = &z->items[i - 1], *b = &z->items[i];
        if (a->kind != ITEM_CELL || b->kind != ITEM_CELL || a->row != b->row || a->col != b->col)
            continue;
        /* a holds the run's winner so far */
        if (wins(z, a, b)) {
            item tmp = *a;
            *a = *b;
            *b = tmp;
        }
        a->lost = 1;
    }
}

/* ---- stats ---- */

static void see_ts(stats *s, int64_t ts)
{
    s->ts = s->has_ts ? ENG_MIN(s->ts, ts) : ts;
    s->has_ts = 1;
}

static void see_ldt(stats *s, int32_t ldt)
{
    s->ldt = s->has_ldt ? ENG_MIN(s->ldt, ldt) : ldt;
    s->has_ldt = 1;
}

static void see_ttl(stats *s, int32_t ttl)
{
    s->ttl = s->has_ttl ? ENG_MIN(s->ttl, ttl) : ttl;
    s->has_ttl = 1;
}

static void see_deletion(sizer *z, int64_t ts)
{
    see_ts(&z->st, ts);
    see_ldt(&z->st, z->now_s);
}

/* EncodingStats.Collector over the update (the cells that lost reconciliation are gone). */
static void collect_stats(sizer *z, const uint32_t *ms, uint32_t n)
{
    memset(&z->st, 0, sizeof z->st);
    for (uint32_t i = 0; i < n; i++) {
        const eng_mutation *m = &z->muts[ms[i]];
        if (m->delete_partition || m->n_range_dels)
            see_deletion(z, mutation_ts(z, m));
    }
    for (uint32_t i = 0; i < z->n_rows; i++) {
        const row *r = &z->rows[i];
        if (r->leader != i)
            continue;
        if (r->has_live) {
            see_ts(&z->st, r->live_ts);
            if (r->live_ttl > 0) {
                see_ttl(&z->st, r->live_ttl);
                see_ldt(&z->st, (int32_t)((uint32_t)z->now_s + (uint32_t)r->live_ttl));
            }
        }
        if (r->has_del)
            see_deletion(z, r->del_ts);
    }
    for (uint32_t i = 0; i < z->n_items; i++) {
        const item *it = &z->items[i];
        if (it->lost || (it->kind == ITEM_CELLS && !it->n_cells))
            continue;
        if (it->kind == ITEM_CDEL) {
            see_deletion(z, it->ts);
            continue;
        }
        see_ts(&z->st, it->ts);
        if (it->tomb)
            see_ldt(&z->st, z->now_s);
        else if (it->ttl > 0) {
            see_ttl(&z->st, it->ttl);
            see_ldt(&z->st, item_ldt(z, it));
        }
    }
    /* EncodingStats: what nothing set is written as the epoch itself */
    if (!z->st.has_ts)
        z->st.ts = TIMESTAMP_EPOCH_US;
    if (!z->st.has_ldt || z->st.ldt == INT32_MAX)
        z->st.ldt = DELETION_TIME_EPOCH_S;
    if (!z->st.has_ttl)
        z->st.ttl = 0;
}

static uint64_t stats_size(const stats *s)
{
    return uvint_size((uint64_t)s->ts - (uint64_t)TIMESTAMP_EPOCH_US) +
           int_delta_size(s->ldt, DELETION_TIME_EPOCH_S) + int_delta_size(s->ttl, 0);
}

/* SerializationHeader.timestampSerializedSize and the like. */
static uint64_t ts_size(const sizer *z, int64_t ts)
{
    return uvint_size((uint64_t)ts - (uint64_t)z->st.ts);
}

static uint64_t ldt_size(const sizer *z, int32_t ldt) { return int_delta_size(ldt, z->st.ldt); }
static uint64_t ttl_size(const sizer *z, int32_t ttl) { return int_delta_size(ttl, z->st.ttl); }

static uint64_t deletion_size(const sizer *z, int64_t ts)
{
    return ts_size(z, ts) + ldt_size(z, z->now_s);
}

/* ---- sizes ---- */

/* Cell.Serializer: flags, and the timestamp, deletion time and TTL the row does not carry. */
static uint64_t cell_overhead(const sizer *z, const row *r, const item *it)
{
    int expiring = !it->tomb && it->ttl > 0;
    int use_row_ts = r->has_live && it->ts == r->live_ts;
    int use_row_ttl = expiring && r->has_live && r->live_ttl == it->ttl;
    uint64_t size = 1;
    if (!use_row_ts)
        size += ts_size(z, it->ts);
    if ((it->tomb || expiring) && !use_row_ttl)
        size += ldt_size(z, item_ldt(z, it));
    if (expiring && !use_row_ttl)
        size += ttl_size(z, it->ttl);
    return size;
}

/* Columns.serializedSubsetSize: which of the header's n columns a row has. A row with all of
   them says so in its flags (HAS_ALL_COLUMNS) and writes nothing. */
static uint64_t subset_size(const uint8_t *present, uint32_t n, uint32_t n_present)
{
    if (n_present == n)
        return 0;
    if (n < LARGE_SUBSET) {
        uint64_t missing = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!present[i])
                missing |= 1ull << i;
        return uvint_size(missing);
    }
    uint64_t size = uvint_size(n - n_present);
    int list_present = n_present < n / 2;
    for (uint32_t i = 0; i < n; i++)
        if (!present[i] == !list_present)
            size += uvint_size(i);
    return size;
}

/* One column of a row, its items [i, j); *present set when the row has the column. */
static uint64_t column_size(const sizer *z, const row *r, const item *its, uint32_t n,
                            int row_has_cdel, int *present)
{
    uint64_t size = 0, cells = 0;
    int64_t cdel = 0;
    int has_cdel = 0;
    *present = 0;
    for (uint32_t i = 0; i < n; i++) {
        const item *it = &its[i];
        if (it->kind == ITEM_CELL) {
            if (!it->lost) {
                *present = 1;
                size += cell_overhead(z, r, it) + it->payload;
            }
        } else if (it->kind == ITEM_CDEL) {
            cdel = has_cdel ? ENG_MAX(cdel, it->ts) : it->ts;
            has_cdel = 1;
        } else if (it->n_cells) {
            cells += it->n_cells;
            size += it->n_cells * cell_overhead(z, r, it) + it->payload;
        }
    }
    if (its[0].kind == ITEM_CELL)
        return size;
    *present = has_cdel || cells;
    if (!*present)
        return 0;
    size += uvint_size(cells);
    if (row_has_cdel) /* every complex column writes a deletion time, DeletionTime.LIVE if none */
        size += has_cdel ? deletion_size(z, cdel)
                         : ts_size(z, INT64_MIN) + ldt_size(z, INT32_MAX);
    return size;
}

/* UnfilteredSerializer.serializedSize of a merged row, its items [i, j); 0 for a row left
   empty (PartitionUpdate.Builder drops it). */
static uint64_t row_size(sizer *z, const header *h, const row *r, uint32_t i, uint32_t j)
{
    int is_static = r->rm->ck == NULL;
    uint32_t n_header = is_static ? h->n_static : h->n_regular;
    int row_has_cdel = 0;
    for (uint32_t k = i; k < j; k++)
        row_has_cdel |= z->items[k].kind == ITEM_CDEL;
    memset(z->present, 0, n_header ? n_header : 1);
    uint64_t cols = 0;
    uint32_t n_present = 0;
    for (uint32_t k = i; k < j;) {
        uint32_t e = k;
        while (e < j && z->items[e].col == z->items[k].col)
            e++;
        int present;
        cols += column_size(z, r, &z->items[k], e - k, row_has_cdel, &present);
        uint16_t col = z->items[k].col;
        uint32_t pos = col < h->t->n_cols ? h->pos[col] : UINT32_MAX;
        if (present && pos < n_header && !z->present[pos]) {
            z->present[pos] = 1;
            n_present++;
        }
        k = e;
    }
    if (!r->has_live && !r->has_del && !n_present)
        return 0;
    uint64_t size = 1 + (uint64_t)is_static; /* flags, and extended flags saying static */
    if (!is_static)
        size += clustering_size(r->m->table, r->rm->ck, r->m->table->n_ck);
    if (r->has_live) {
        size += ts_size(z, r->live_ts);
        if (r->live_ttl > 0)
            size += ttl_size(z, r->live_ttl) +
                    ldt_size(z, (int32_t)((uint32_t)z->now_s + (uint32_t)r->live_ttl));
    }
    if (r->has_del)
        size += deletion_size(z, r->del_ts);
    return size + subset_size(z->present, n_header, n_present) + cols;
}

/* Two markers per range tombstone: flags, the bound (kind, size, values), the deletion. */
static uint64_t range_size(const sizer *z, const eng_mutation *m, const eng_slice *s)
{
    uint64_t del = deletion_size(z, mutation_ts(z, m));
    return 2 * (1 + 1 + 2 + del) + clustering_size(m->table, s->start.vals, s->start.n) +
           clustering_size(m->table, s->end.vals, s->end.n);
}

/* Gathers the rows and items of the update of mutations ms (one table, one partition). */
static int gather(sizer *z, const uint32_t *ms, uint32_t n)
{
    z->keys.len = z->keys_pk_end;
    z->n_rows = z->n_items = 0;
    for (uint32_t i = 0; i < n; i++) {
        const eng_mutation *m = &z->muts[ms[i]];
        for (uint32_t k = 0; k < m->n_rows; k++)
            if (add_row(z, m, &m->rows[k], ms[i]))
                return ENG_E_NOMEM;
    }
    merge_rows(z);
    for (uint32_t r = 0; r < z->n_rows; r++)
        for (uint32_t k = 0; k < z->rows[r].rm->n_ops; k++)
            if (op_items(z, r, &z->rows[r].rm->ops[k]))
                return ENG_E_NOMEM;
    reconcile(z);
    return 0;
}

/* PartitionUpdate.serializer.serializedSize of the update of mutations ms. */
static int update_size(sizer *z, const uint32_t *ms, uint32_t n, uint64_t *out)
{
    const header *h = &z->headers[z->header_of[ms[0]]];
    if (gather(z, ms, n))
        return ENG_E_NOMEM;
    collect_stats(z, ms, n);
    for (uint32_t r = 0; r < z->n_rows; r++)
        z->item_begin[r] = z->item_end[r] = 0;
    for (uint32_t i = z->n_items; i-- > 0;) { /* items are sorted by row */
        uint32_t r = z->items[i].row;
        if (!z->item_end[r])
            z->item_end[r] = i + 1;
        z->item_begin[r] = i;
    }
    uint64_t static_row = 0, rows = 0, markers = 0, n_rows = 0;
    for (uint32_t r = 0; r < z->n_rows; r++) {
        if (z->rows[r].leader != r)
            continue;
        uint64_t size = row_size(z, h, &z->rows[r], z->item_begin[r], z->item_end[r]);
        if (!z->rows[r].rm->ck)
            static_row = size;
        else if (size) {
            rows += size;
            n_rows++;
        }
    }
    int64_t pdel = 0;
    int has_pdel = 0;
    for (uint32_t i = 0; i < n; i++) {
        const eng_mutation *m = &z->muts[ms[i]];
        if (m->delete_partition) {
            pdel = has_pdel ? ENG_MAX(pdel, mutation_ts(z, m)) : mutation_ts(z, m);
            has_pdel = 1;
        }
        for (uint32_t k = 0; k < m->n_range_dels; k++)
            markers += range_size(z, m, &m->range_dels[k]);
    }
    uint64_t size = TABLE_ID_SIZE + bytes_size((int32_t)z->pk_len[ms[0]]) + 1;
    if (has_pdel || markers || static_row || n_rows) { /* else IS_EMPTY: nothing follows */
        size += stats_size(&z->st) + h->regular_size + (static_row ? h->static_size : 0);
        if (has_pdel)
            size += deletion_size(z, pdel);
        size += static_row + uvint_size(n_rows) + rows + markers + 1;
    }
    *out = size;
    return 0;
}

/* ---- the request: partition keys, header columns, mutations ---- */

/* The partition key as Cassandra holds it: the value of a one-column key, else CompositeType's
   bytes (per component a short length, the bytes, an end-of-component byte). */
static void compose_key(eng_buf *out, const eng_mutation *m)
{
    const eng_table *t = m->table;
    for (uint16_t i = 0; i < t->n_pk; i++) {
        int32_t len = ENG_MAX(m->pk[i].len, 0);
        if (t->n_pk > 1)
            eng_buf_put_be16(out, (uint16_t)len);
        if (len)
            eng_buf_put(out, m->pk[i].p, (size_t)len);
        if (t->n_pk > 1)
            eng_buf_put_u8(out, 0);
    }
}

/* Columns' order: ColumnMetadata.compareTo puts simple columns before complex ones, then
   compares names (byte order for the names CQL allows). */
static int column_order_cmp(const void *pa, const void *pb, void *ctx)
{
    const eng_table *t = ctx;
    const eng_column *a = &t->cols[*(const uint32_t *)pa], *b = &t->cols[*(const uint32_t *)pb];
    int ca = eng_type_is_multicell(a->type), cb = eng_type_is_multicell(b->type);
    if (ca != cb)
        return ca - cb;
    return strcmp(a->name, b->name);
}

/* Places the marked columns of one kind in order; returns Columns.serializedSize of them. */
static uint64_t place_columns(header *h, const uint8_t *marked, int kind, uint32_t *scratch,
                              uint32_t *count)
{
    const eng_table *t = h->t;
    uint32_t n = 0;
    for (uint32_t c = 0; c < t->n_cols; c++)
        if (marked[c] && t->cols[c].kind == kind)
            scratch[n++] = c;
    qsort_r(scratch, n, sizeof *scratch, column_order_cmp, (void *)t);
    uint64_t size = uvint_size(n);
    for (uint32_t i = 0; i < n; i++) {
        h->pos[scratch[i]] = i;
        size += bytes_size((int32_t)strlen(t->cols[scratch[i]].name));
    }
    *count = n;
    return size;
}

/* The header of the table of mutation `first`: the columns of every operation on it. */
static int make_header(sizer *z, header *h, uint32_t first, uint32_t n)
{
    const eng_table *t = z->muts[first].table;
    uint32_t n_cols = t->n_cols ? t->n_cols : 1;
    uint8_t *marked = eng_calloc(n_cols, 1);
    uint32_t *scratch = eng_malloc(n_cols * sizeof *scratch);
    h->t = t;
    h->pos = eng_malloc(n_cols * sizeof *h->pos);
    if (!marked || !scratch || !h->pos) {
        eng_free(marked);
        eng_free(scratch);
        return nomem(z);
    }
    for (uint32_t c = 0; c < n_cols; c++)
        h->pos[c] = UINT32_MAX;
    for (uint32_t i = first; i < n; i++) {
        const eng_mutation *m = &z->muts[i];
        if (memcmp(m->table->id, t->id, 16) != 0)
            continue;
        for (uint32_t r = 0; r < m->n_rows; r++)
            for (uint32_t k = 0; k < m->rows[r].n_ops; k++)
                if (m->rows[r].ops[k].col < t->n_cols)
                    marked[m->rows[r].ops[k].col] = 1;
    }
    h->static_size = place_columns(h, marked, ENG_COL_STATIC, scratch, &h->n_static);
    h->regular_size = place_columns(h, marked, ENG_COL_REGULAR, scratch, &h->n_regular);
    eng_free(marked);
    eng_free(scratch);
    return 0;
}

static int order_cmp(const void *pa, const void *pb, void *ctx)
{
    const sizer *z = ctx;
    uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
    const eng_table *ta = z->muts[ia].table, *tb = z->muts[ib].table;
    int c = strcmp(ta->ks, tb->ks);
    if (c)
        return c;
    size_t la = z->pk_len[ia], lb = z->pk_len[ib];
    c = memcmp(z->keys.p + z->pk_off[ia], z->keys.p + z->pk_off[ib], ENG_MIN(la, lb));
    if (c || la != lb)
        return c ? c : (la < lb ? -1 : 1);
    if ((c = memcmp(ta->id, tb->id, 16)))
        return c;
    return ia < ib ? -1 : ia > ib;
}

/* Same Cassandra mutation: same keyspace, same partition key bytes. */
static int same_mutation(const sizer *z, uint32_t a, uint32_t b)
{
    return strcmp(z->muts[a].table->ks, z->muts[b].table->ks) == 0 &&
           z->pk_len[a] == z->pk_len[b] &&
           memcmp(z->keys.p + z->pk_off[a], z->keys.p + z->pk_off[b], z->pk_len[a]) == 0;
}

static int same_table(const sizer *z, uint32_t a, uint32_t b)
{
    return memcmp(z->muts[a].table->id, z->muts[b].table->id, 16) == 0;
}

/* Keys, header columns and the order grouping mutations by Cassandra mutation and table. */
static int prepare(sizer *z, uint32_t n, uint32_t *order)
{
    z->pk_off = eng_malloc(n * sizeof *z->pk_off);
    z->pk_len = eng_malloc(n * sizeof *z->pk_len);
    z->header_of = eng_malloc(n * sizeof *z->header_of);
    z->headers = eng_calloc(n, sizeof *z->headers);
    if (!z->pk_off || !z->pk_len || !z->header_of || !z->headers)
        return nomem(z);
    for (uint32_t i = 0; i < n; i++) {
        z->pk_off[i] = z->keys.len;
        compose_key(&z->keys, &z->muts[i]);
        z->pk_len[i] = z->keys.len - z->pk_off[i];
        order[i] = i;
        uint32_t h = 0;
        while (h < z->n_headers && memcmp(z->headers[h].t->id, z->muts[i].table->id, 16) != 0)
            h++;
        if (h == z->n_headers && make_header(z, &z->headers[z->n_headers++], i, n))
            return ENG_E_NOMEM;
        z->header_of[i] = h;
    }
    if (z->keys.oom)
        return nomem(z);
    z->keys_pk_end = z->keys.len;
    uint32_t max_cols = 1;
    for (uint32_t h = 0; h < z->n_headers; h++)
        max_cols = ENG_MAX(max_cols, z->headers[h].t->n_cols);
    if (!(z->present = eng_malloc(max_cols)))
        return nomem(z);
    qsort_r(order, n, sizeof *order, order_cmp, z);
    return 0;
}

/* ---- the refusal ---- */

/* The length of a UTF-8 string in Java chars (UTF-16 units). */
static size_t java_length(const uint8_t *p, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            len += p[i] >= 0xF0 ? 2 : 1;
    return len;
}

/* AbstractType.getString of a key component: its text, or hex for a type without one. */
static void put_component(eng_buf *out, const eng_type *ty, eng_val v)
{
    eng_buf s = ENG_BUF_INIT;
    eng_err e;
    eng_err_clear(&e);
    if (v.len < 0 || eng_text_to_string(ty, v.p, (size_t)v.len, &s, &e)) {
        static const char hex[] = "0123456789abcdef";
        eng_buf_reset(&s);
        for (int32_t i = 0; i < v.len; i++) {
            eng_buf_put_u8(&s, (uint8_t)hex[v.p[i] >> 4]);
            eng_buf_put_u8(&s, (uint8_t)hex[v.p[i] & 15]);
        }
    }
    eng_buf_put(out, s.p, s.len);
    eng_buf_free(&s);
}

/* AbstractCompositeType.escape: ':' becomes "\:", and a trailing '\' or '!' gets a '!'. */
static void escape_component(eng_buf *out, size_t from)
{
    eng_buf tmp = ENG_BUF_INIT;
    eng_buf_put(&tmp, out->p + from, out->len - from);
    out->len = from;
    for (size_t i = 0; i < tmp.len; i++) {
        if (tmp.p[i] == ':')
            eng_buf_put_u8(out, '\\');
        eng_buf_put_u8(out, tmp.p[i]);
    }
    if (tmp.len && (tmp.p[tmp.len - 1] == '\\' || tmp.p[tmp.len - 1] == '!'))
        eng_buf_put_u8(out, '!');
    eng_buf_free(&tmp);
}

/* "<table>.<key>", the key as its type's getString writes it (CompositeType's "a:b"). */
static void put_table_key(eng_buf *out, const eng_mutation *m)
{
    const eng_table *t = m->table;
    eng_buf_put_str(out, t->name);
    eng_buf_put_u8(out, '.');
    for (uint16_t i = 0; i < t->n_pk; i++) {
        size_t from = out->len;
        if (i)
            eng_buf_put_u8(out, ':'), from++;
        put_component(out, t->cols[i].type, m->pk[i]);
        if (t->n_pk > 1)
            escape_component(out, from);
    }
}

typedef struct update_ref {
    uint32_t first; /* index into the request's mutations of its first mutation */
    uint64_t size;
} update_ref;

static int update_ref_cmp(const void *pa, const void *pb)
{
    const update_ref *a = pa, *b = pb;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1; /* largest first */
    return a->first < b->first ? -1 : a->first > b->first;
}

/* MutationExceededMaxSizeException's message for the mutation of updates u[0..n). */
static int refuse(sizer *z, update_ref *u, uint32_t n, uint64_t total)
{
    qsort(u, n, sizeof *u, update_ref_cmp);
    eng_buf keys = ENG_BUF_INIT, one = ENG_BUF_INIT;
    size_t keys_java = 0;
    uint32_t listed = 0;
    for (; listed < n; listed++) { /* makeTopKeysString: at least one, then while they fit */
        eng_buf_reset(&one);
        put_table_key(&one, &z->muts[u[listed].first]);
        size_t len = java_length(one.p, one.len);
        if (listed && keys_java + len + 2 > TOP_KEYS_LIMIT)
            break;
        if (listed)
            eng_buf_put_str(&keys, ", ");
        eng_buf_put(&keys, one.p, one.len);
        keys_java += len + (listed ? 2 : 0);
    }
    if (listed < n)
        eng_buf_printf(&keys, " and %u more.", n - listed);
    const char *text = eng_buf_cstr(&keys);
    int rc = text ? eng_errorf(z->err, ENG_E_INVALID,
                               "Rejected an oversized mutation (%llu/%d) for keyspace: %s. Top "
                               "keys are: %s",
                               (unsigned long long)total, ENG_MAX_MUTATION_SIZE,
                               z->muts[u[0].first].table->ks, text)
                  : nomem(z);
    eng_buf_free(&keys);
    eng_buf_free(&one);
    return rc;
}

/* The updates of the mutation order[g..e): their sizes into u, *n_u of them; the mutation's
   serialized size plus the commit log entry's header into *total. */
static int mutation_size(sizer *z, const uint32_t *order, uint32_t g, uint32_t e,
                         uint32_t counter_extra, update_ref *u, uint32_t *n_u, uint64_t *total)
{
    uint64_t size = 0;
    *n_u = 0;
    for (uint32_t i = g; i < e;) {
        uint32_t j = i + 1;
        while (j < e && same_table(z, order[i], order[j]))
            j++;
        update_ref *r = &u[(*n_u)++];
        r->first = order[i];
        if (update_size(z, order + i, j - i, &r->size))
            return ENG_E_NOMEM;
        size += r->size;
        i = j;
    }
    /* CounterMutation adds its consistency level's name */
    int counter = z->muts[order[g]].table->is_counter;
    *total = uvint_size(*n_u) + size + ENTRY_OVERHEAD + (counter ? counter_extra : 0);
    return 0;
}

static void sizer_free(sizer *z)
{
    for (uint32_t h = 0; h < z->n_headers; h++)
        eng_free(z->headers[h].pos);
    eng_free(z->headers);
    eng_free(z->header_of);
    eng_free(z->pk_off);
    eng_free(z->pk_len);
    eng_free(z->rows);
    eng_free(z->row_order);
    eng_free(z->item_begin);
    eng_free(z->item_end);
    eng_free(z->items);
    eng_free(z->present);
    eng_buf_free(&z->keys);
}

/*
 * More than the request's mutations can take together, found in one pass without allocating:
 * the common small write needs no more. Per mutation: the mutation's and the update's fixed
 * parts (at most 9 bytes per uvint), the header's column names; per row its fixed parts, its
 * clustering and a subset of its table's columns; per operation a complex deletion and, per
 * cell, flags, timestamp, deletion time, TTL and path and value lengths. A collection's cells
 * come from elements of 4 native bytes at least, so 16 times its bytes bound them.
 */
static uint64_t upper_bound(const eng_mutation *muts, uint32_t n, uint32_t counter_extra)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < n; i++) {
        const eng_mutation *m = &muts[i];
        const eng_table *t = m->table;
        b += 160 + counter_extra;
        for (uint32_t c = 0; c < t->n_cols; c++)
            b += 10 + strlen(t->cols[c].name);
        for (uint16_t k = 0; k < t->n_pk; k++)
            b += 8 + (uint64_t)ENG_MAX(m->pk[k].len, 0);
        for (uint32_t r = 0; r < m->n_range_dels; r++) {
            const eng_slice *sl = &m->range_dels[r];
            b += 2 * 64;
            for (uint16_t k = 0; k < sl->start.n; k++)
                b += 14 + (uint64_t)ENG_MAX(sl->start.vals[k].len, 0);
            for (uint16_t k = 0; k < sl->end.n; k++)
                b += 14 + (uint64_t)ENG_MAX(sl->end.vals[k].len, 0);
        }
        for (uint32_t r = 0; r < m->n_rows; r++) {
            const eng_row_mut *rm = &m->rows[r];
            b += 96 + 5 * (uint64_t)t->n_cols;
            for (uint16_t k = 0; rm->ck && k < t->n_ck; k++)
                b += 14 + (uint64_t)ENG_MAX(rm->ck[k].len, 0);
            for (uint32_t k = 0; k < rm->n_ops; k++) {
                const eng_cell_op *op = &rm->ops[k];
                int multi = op->col < t->n_cols && eng_type_is_multicell(t->cols[op->col].type);
                b += 80 + (uint64_t)ENG_MAX(op->key.len, 0) +
                     (multi ? 16 : 1) * (uint64_t)ENG_MAX(op->value.len, 0);
            }
        }
    }
    return b;
}

int eng_check_mutation_size(const eng_mutation *muts, uint32_t n, int64_t now_us,
                            uint32_t counter_extra, eng_err *err)
{
    if (!n || upper_bound(muts, n, counter_extra) <= ENG_MAX_MUTATION_SIZE)
        return 0;
    sizer z;
    memset(&z, 0, sizeof z);
    z.now_us = now_us;
    z.now_s = (int32_t)(now_us / 1000000);
    z.muts = muts;
    z.err = err;
    uint32_t *order = eng_malloc(n * sizeof *order);
    update_ref *u = eng_malloc(n * sizeof *u);
    int rc = !order || !u ? nomem(&z) : prepare(&z, n, order);
    /* Cassandra refuses at the first oversized mutation it builds, in an order of its hash
       maps; the one here is the first in the request's order. */
    uint32_t worst_g = UINT32_MAX, worst_e = 0, worst_first = UINT32_MAX;
    for (uint32_t g = 0; !rc && g < n;) {
        uint32_t e = g + 1, first = order[g], n_u;
        while (e < n && same_mutation(&z, order[g], order[e]))
            first = ENG_MIN(first, order[e]), e++;
        uint64_t total;
        rc = mutation_size(&z, order, g, e, counter_extra, u, &n_u, &total);
        if (!rc && total > ENG_MAX_MUTATION_SIZE && first < worst_first) {
            worst_g = g;
            worst_e = e;
            worst_first = first;
        }
        g = e;
    }
    if (!rc && worst_g != UINT32_MAX) {
        uint32_t n_u;
        uint64_t total;
        rc = mutation_size(&z, order, worst_g, worst_e, counter_extra, u, &n_u, &total);
        if (!rc)
            rc = refuse(&z, u, n_u, total);
    }
    eng_free(order);
    eng_free(u);
    sizer_free(&z);
    return rc;
}
