/*
 * Custom payloads of the driver API (the driver's request.cpp, CustomPayload):
 * a map of names to bytes that a statement or batch sends with its request, in
 * the frame's [bytes map] (protocol v4 and later). Items are kept in name
 * order, as the driver's map keeps them; setting a name again replaces its
 * value; removing a name that is not there does nothing.
 *
 * The driver checks none of its arguments (a NULL payload is a crash there);
 * here a NULL payload, or a NULL name or value with a length, makes a setter do
 * nothing. Running out of memory leaves the payload as it was.
 *
 * Threads: one thread at a time per payload.
 */
#include <string.h>

#include "cql/driver/driver_int.h"

#define MAX_ITEMS UINT16_MAX

CassCustomPayload *cass_custom_payload_new(void)
{
    return eng_calloc(1, sizeof(CassCustomPayload));
}

static void item_free(eng_val *name, eng_val *val)
{
    eng_free((void *)name->p);
    eng_free((void *)val->p);
}

void cass_custom_payload_free(CassCustomPayload *payload)
{
    if (!payload)
        return;
    for (uint16_t i = 0; i < payload->n; i++)
        item_free(&payload->names[i], &payload->vals[i]);
    eng_free(payload->names);
    eng_free(payload->vals);
    eng_free(payload);
}

/* Bytewise order of names, a prefix first (std::string's). */
static int name_cmp(const eng_val *a, const char *b, size_t b_len)
{
    size_t n = (size_t)a->len < b_len ? (size_t)a->len : b_len;
    int c = n ? memcmp(a->p, b, n) : 0;
    if (c)
        return c;
    return (size_t)a->len < b_len ? -1 : (size_t)a->len > b_len;
}

/* The index of name, or where it goes (*found 0). */
static uint16_t find(const CassCustomPayload *p, const char *name, size_t len, int *found)
{
    uint16_t lo = 0, hi = p->n;
    *found = 0;
    while (lo < hi) {
        uint16_t mid = (uint16_t)(lo + (hi - lo) / 2);
        int c = name_cmp(&p->names[mid], name, len);
        if (!c) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = (uint16_t)(mid + 1);
        else
            hi = mid;
    }
    return lo;
}

static int grow(CassCustomPayload *p)
{
    if (p->n < p->cap)
        return 0;
    if (p->cap == MAX_ITEMS)
        return -1;
    size_t cap = p->cap ? (size_t)p->cap * 2 : 4;
    if (cap > MAX_ITEMS)
        cap = MAX_ITEMS;
    eng_val *names = eng_realloc(p->names, cap * sizeof *names);
    if (!names)
        return -1;
    p->names = names;
    eng_val *vals = eng_realloc(p->vals, cap * sizeof *vals);
    if (!vals)
        return -1;
    p->vals = vals;
    p->cap = (uint16_t)cap;
    return 0;
}

void cass_custom_payload_set_n(CassCustomPayload *payload, const char *name, size_t name_length,
                               const cass_byte_t *value, size_t value_size)
{
    if (!payload || (!name && name_length) || (!value && value_size) ||
        name_length > UINT16_MAX || value_size > INT32_MAX)
        return;
    uint8_t *v = eng_malloc(value_size ? value_size : 1);
    if (!v)
        return;
    if (value_size)
        memcpy(v, value, value_size);
    int found;
    uint16_t at = find(payload, name ? name : "", name_length, &found);
    if (found) {
        eng_free((void *)payload->vals[at].p);
        payload->vals[at] = (eng_val){v, (int32_t)value_size};
        return;
    }
    char *n = eng_malloc(name_length + 1);
    if (!n || grow(payload)) {
        eng_free(n);
        eng_free(v);
        return;
    }
    if (name_length)
        memcpy(n, name, name_length);
    n[name_length] = '\0';
    size_t tail = (size_t)(payload->n - at);
    memmove(&payload->names[at + 1], &payload->names[at], tail * sizeof *payload->names);
    memmove(&payload->vals[at + 1], &payload->vals[at], tail * sizeof *payload->vals);
    payload->names[at] = (eng_val){(const uint8_t *)n, (int32_t)name_length};
    payload->vals[at] = (eng_val){v, (int32_t)value_size};
    payload->n++;
}

void cass_custom_payload_set(CassCustomPayload *payload, const char *name,
                             const cass_byte_t *value, size_t value_size)
{
    cass_custom_payload_set_n(payload, name, name ? strlen(name) : 0, value, value_size);
}

void cass_custom_payload_remove_n(CassCustomPayload *payload, const char *name,
                                  size_t name_length)
{
    if (!payload || (!name && name_length))
        return;
    int found;
    uint16_t at = find(payload, name ? name : "", name_length, &found);
    if (!found)
        return;
    item_free(&payload->names[at], &payload->vals[at]);
    size_t tail = (size_t)(payload->n - at - 1);
    memmove(&payload->names[at], &payload->names[at + 1], tail * sizeof *payload->names);
    memmove(&payload->vals[at], &payload->vals[at + 1], tail * sizeof *payload->vals);
    payload->n--;
}

void cass_custom_payload_remove(CassCustomPayload *payload, const char *name)
{
    cass_custom_payload_remove_n(payload, name, name ? strlen(name) : 0);
}

int cql_drv_payload_copy(const CassCustomPayload *p, CassCustomPayload **out)
{
    *out = NULL;
    if (!p)
        return 0;
    CassCustomPayload *c = cass_custom_payload_new();
    if (!c)
        return ENG_E_NOMEM;
    for (uint16_t i = 0; i < p->n; i++) {
        cass_custom_payload_set_n(c, (const char *)p->names[i].p, (size_t)p->names[i].len,
                                  p->vals[i].p, (size_t)p->vals[i].len);
        if (c->n != i + 1) {
            cass_custom_payload_free(c);
            return ENG_E_NOMEM;
        }
    }
    *out = c;
    return 0;
}
