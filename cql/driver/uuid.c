/*
 * UUIDs, inet addresses, dates and times of the driver API (cassandra.h):
 * cass_uuid_*, cass_inet_*, cass_date_from_epoch, cass_time_from_epoch and
 * cass_date_time_to_epoch. Everything here is a pure conversion except the
 * UUID generator, which wraps engine/value/uuid.h.
 *
 * The driver holds a UUID as two 64-bit numbers, not as its 16 bytes:
 *  - time_and_version: bytes 0-3 (time_low) in bits 0-31, bytes 4-5
 *    (time_mid) in bits 32-47, bytes 6-7 (version and time_hi) in bits
 *    48-63, each group big-endian. For a version 1 UUID the low 60 bits are
 *    then exactly the 100-ns tick count since 1582-10-15 and the version
 *    sits in the top nibble (the driver's serialization.hpp encode_uuid /
 *    decode_uuid).
 *  - clock_seq_and_node: bytes 8-15 as one big-endian number.
 * cql_drv_uuid_from_bytes / cql_drv_uuid_to_bytes convert for every file
 * that binds or reads uuid and timeuuid values.
 *
 * Time UUIDs come from the engine's generator (strictly increasing per
 * generator, across threads); a generator without a given node sets the
 * node's multicast bit, as the driver's. min/max bounds are Cassandra's
 * minTimeuuid / maxTimeuuid (engine/value/uuid.h): the driver's max uses the first
 * tick of the millisecond, which later time UUIDs of that millisecond exceed.
 * Inet text is read and written as libuv's inet_pton / inet_ntop do for the
 * driver (an IPv6 scope is dropped). Dates are the protocol's unsigned day
 * count with the Unix epoch at 2^31, times nanoseconds since midnight; for
 * times before 1970 the day is the one the instant falls on (floor division),
 * where the driver's truncating division would give the next day and a
 * negative time.
 *
 * Threads: every function may be called from any thread; a generator is
 * lock-free and may be shared.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "cql/driver/driver_int.h"
#include "engine/value/clock.h"

#define TICKS_MASK 0x0fffffffffffffffULL /* the 60 bits of a v1 timestamp */
#define TICKS_PER_MS 10000ULL            /* 100-ns ticks per millisecond */
#define DATE_EPOCH 2147483648LL          /* the Unix epoch as a CQL date (2^31) */
#define SECONDS_PER_DAY 86400LL
#define NANOS_PER_SECOND 1000000000LL
#define NODE_MULTICAST_BIT 0x010000000000ULL /* bit 0 of the node's first byte */

/* ------------------------------------------------------------------------ */
/* The driver's UUID layout                                                  */
/* ------------------------------------------------------------------------ */

void cql_drv_uuid_from_bytes(const uint8_t in[16], CassUuid *out)
{
    out->time_and_version = (uint64_t)eng_be32(in) | (uint64_t)eng_be16(in + 4) << 32 |
                            (uint64_t)eng_be16(in + 6) << 48;
    out->clock_seq_and_node = eng_be64(in + 8);
}

void cql_drv_uuid_to_bytes(CassUuid u, uint8_t out[16])
{
    uint64_t tv = u.time_and_version;
    eng_put_be32(out, (uint32_t)tv);
    out[4] = (uint8_t)(tv >> 40);
    out[5] = (uint8_t)(tv >> 32);
    out[6] = (uint8_t)(tv >> 56);
    out[7] = (uint8_t)(tv >> 48);
    eng_put_be64(out + 8, u.clock_seq_and_node);
}

/* ------------------------------------------------------------------------ */
/* Generators                                                                */
/* ------------------------------------------------------------------------ */

CassUuidGen *cass_uuid_gen_new(void)
{
    CassUuidGen *g = eng_malloc(sizeof *g);
    if (!g)
        return NULL;
    eng_uuidgen_init(&g->gen); /* node and clock sequence from libuuid */
    /* As the driver's: the node is not a network card's address, so it carries the multicast bit
     * (RFC 4122 4.5), which no real MAC address has. */
    g->gen.lsb |= NODE_MULTICAST_BIT;
    return g;
}

CassUuidGen *cass_uuid_gen_new_with_node(cass_uint64_t node)
{
    CassUuidGen *g = eng_malloc(sizeof *g);
    if (!g)
        return NULL;
    /* The driver draws a random clock sequence for a given node. */
    uint8_t r[16];
    eng_uuid_random(r);
    eng_uuidgen_init_with(&g->gen, node & 0xffffffffffffULL, eng_be16(r));
    return g;
}

void cass_uuid_gen_free(CassUuidGen *uuid_gen)
{
    eng_free(uuid_gen);
}

void cass_uuid_gen_time(CassUuidGen *uuid_gen, CassUuid *output)
{
    if (!output)
        return;
    if (!uuid_gen) {
        memset(output, 0, sizeof *output);
        return;
    }
    /* Real time: a generator belongs to no database, so no virtual clock applies. */
    eng_clock clock;
    eng_clock_init(&clock);
    uint8_t u[16];
    eng_uuidgen_next(&uuid_gen->gen, eng_clock_now_us(&clock), u);
    cql_drv_uuid_from_bytes(u, output);
}

void cass_uuid_gen_random(CassUuidGen *uuid_gen, CassUuid *output)
{
    (void)uuid_gen; /* libuuid's generator is process-wide */
    if (!output)
        return;
    uint8_t u[16];
    eng_uuid_random(u);
    cql_drv_uuid_from_bytes(u, output);
}

void cass_uuid_gen_from_time(CassUuidGen *uuid_gen, cass_uint64_t timestamp, CassUuid *output)
{
    if (!output)
        return;
    if (!uuid_gen) {
        memset(output, 0, sizeof *output);
        return;
    }
    /* Exactly the first tick of that millisecond, with unsigned wrap-around as the driver's. */
    uint64_t ticks =
        (timestamp * TICKS_PER_MS + (uint64_t)ENG_UUID_EPOCH_OFFSET_MS * TICKS_PER_MS) & TICKS_MASK;
    uint8_t u[16];
    eng_uuid_from_ticks(ticks, uuid_gen->gen.lsb, u);
    cql_drv_uuid_from_bytes(u, output);
}

void cass_uuid_min_from_time(cass_uint64_t time, CassUuid *output)
{
    if (!output)
        return;
    uint8_t u[16];
    eng_timeuuid_min((int64_t)time, u);
    cql_drv_uuid_from_bytes(u, output);
}

void cass_uuid_max_from_time(cass_uint64_t time, CassUuid *output)
{
    if (!output)
        return;
    /* Cassandra's maxTimeuuid: the last tick of the millisecond (the driver uses its first). */
    uint8_t u[16];
    eng_timeuuid_max((int64_t)time, u);
    cql_drv_uuid_from_bytes(u, output);
}

cass_uint64_t cass_uuid_timestamp(CassUuid uuid)
{
    if (cass_uuid_version(uuid) != 1)
        return 0;
    uint64_t ticks = uuid.time_and_version & TICKS_MASK;
    /* Signed, as Cassandra's unixTimestamp: a UUID before 1970 gives a negative time. */
    return (cass_uint64_t)((int64_t)(ticks / TICKS_PER_MS) - ENG_UUID_EPOCH_OFFSET_MS);
}

cass_uint8_t cass_uuid_version(CassUuid uuid)
{
    return (cass_uint8_t)((uuid.time_and_version >> 60) & 0x0f);
}

void cass_uuid_string(CassUuid uuid, char *output)
{
    if (!output)
        return;
    uint8_t u[16];
    cql_drv_uuid_to_bytes(uuid, u);
    eng_uuid_format(u, output);
}

CassError cass_uuid_from_string(const char *str, CassUuid *output)
{
    if (!str)
        return CASS_ERROR_LIB_BAD_PARAMS;
    return cass_uuid_from_string_n(str, strlen(str), output);
}

CassError cass_uuid_from_string_n(const char *str, size_t str_length, CassUuid *output)
{
    uint8_t u[16];
    if (!str || !output || eng_uuid_parse(str, str_length, u) != 0)
        return CASS_ERROR_LIB_BAD_PARAMS;
    cql_drv_uuid_from_bytes(u, output);
    return CASS_OK;
}

/* ------------------------------------------------------------------------ */
/* Inet                                                                      */
/* ------------------------------------------------------------------------ */

CassInet cass_inet_init_v4(const cass_uint8_t *address)
{
    CassInet inet;
    memset(&inet, 0, sizeof inet);
    inet.address_length = CASS_INET_V4_LENGTH;
    if (address)
        memcpy(inet.address, address, CASS_INET_V4_LENGTH);
    return inet;
}

CassInet cass_inet_init_v6(const cass_uint8_t *address)
{
    CassInet inet;
    memset(&inet, 0, sizeof inet);
    inet.address_length = CASS_INET_V6_LENGTH;
    if (address)
        memcpy(inet.address, address, CASS_INET_V6_LENGTH);
    return inet;
}

void cass_inet_string(CassInet inet, char *output)
{
    if (!output)
        return;
    /* As the driver: length 4 is IPv4, anything else is read as IPv6. glibc's inet_ntop
     * follows the same BIND rules as libuv's, which the driver calls: lowercase hex, the first
     * longest run of two or more zero groups as "::", and an IPv4-compatible or IPv4-mapped
     * address ending in dotted form ("::0.2.0.3", "::ffff:1.2.3.4"). */
    int family = inet.address_length == CASS_INET_V4_LENGTH ? AF_INET : AF_INET6;
    if (!inet_ntop(family, inet.address, output, CASS_INET_STRING_LENGTH))
        output[0] = '\0';
}

CassError cass_inet_from_string(const char *str, CassInet *output)
{
    if (!str || !output)
        return CASS_ERROR_LIB_BAD_PARAMS;
    CassInet inet;
    memset(&inet, 0, sizeof inet);
    if (inet_pton(AF_INET, str, inet.address) == 1) {
        inet.address_length = CASS_INET_V4_LENGTH;
    } else {
        /* As libuv's inet_pton, which the driver uses: an IPv6 scope ("fe80::1%eth0") is
         * dropped, the text before it being at most CASS_INET_STRING_LENGTH - 1 characters. */
        char v6[CASS_INET_STRING_LENGTH];
        const char *scope = strchr(str, '%');
        if (scope) {
            size_t n = (size_t)(scope - str);
            if (n > CASS_INET_STRING_LENGTH - 1)
                return CASS_ERROR_LIB_BAD_PARAMS;
            memcpy(v6, str, n);
            v6[n] = '\0';
            str = v6;
        }
        if (inet_pton(AF_INET6, str, inet.address) != 1)
            return CASS_ERROR_LIB_BAD_PARAMS;
        inet.address_length = CASS_INET_V6_LENGTH;
    }
    *output = inet;
    return CASS_OK;
}

CassError cass_inet_from_string_n(const char *str, size_t str_length, CassInet *output)
{
    char buf[CASS_INET_STRING_LENGTH];
    /* The longest address text is CASS_INET_STRING_LENGTH - 1 characters, as the driver checks. */
    if (!str || str_length > CASS_INET_STRING_LENGTH - 1)
        return CASS_ERROR_LIB_BAD_PARAMS;
    memcpy(buf, str, str_length);
    buf[str_length] = '\0';
    return cass_inet_from_string(buf, output);
}

/* ------------------------------------------------------------------------ */
/* Dates and times                                                           */
/* ------------------------------------------------------------------------ */

/* Floor division by a positive b (the day an instant falls on, also before 1970). */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return a % b < 0 ? q - 1 : q;
}

cass_uint32_t cass_date_from_epoch(cass_int64_t epoch_secs)
{
    /* Modulo 2^32, as the protocol's date wraps. */
    return (cass_uint32_t)(uint64_t)(floor_div(epoch_secs, SECONDS_PER_DAY) + DATE_EPOCH);
}

cass_int64_t cass_time_from_epoch(cass_int64_t epoch_secs)
{
    int64_t secs = epoch_secs % SECONDS_PER_DAY;
    if (secs < 0)
        secs += SECONDS_PER_DAY;
    return secs * NANOS_PER_SECOND;
}

cass_int64_t cass_date_time_to_epoch(cass_uint32_t date, cass_int64_t time)
{
    return ((int64_t)date - DATE_EPOCH) * SECONDS_PER_DAY + time / NANOS_PER_SECOND;
}
