/*
 * The remote backend (backend.h): a Cassandra or ScyllaDB cluster reached
 * over the native protocol, for every contact point that is not an embedded
 * database (host names and addresses). The protocol client it will run on
 * (cql/client/) does not exist yet, so connecting fails the way the driver
 * fails when no host answers: CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, with a
 * message naming the hosts and the embedded contact points that do work.
 * Every other operation is unreachable without a connection.
 */
#include <stdio.h>

#include "cql/driver/backend.h"

static CassError remote_connect(const CassCluster *cluster, const char *contacts,
                                const char *origin, cql_backend **out, eng_err *err)
{
    (void)cluster;
    *out = NULL;
    eng_errorf(err, ENG_E_SERVER,
               "Cannot connect to %.300s%s: the remote backend is not available yet; use the "
               "contact point file:DIR or memory: for an embedded database",
               contacts, origin);
    return CASS_ERROR_LIB_NO_HOSTS_AVAILABLE;
}

const cql_backend_ops cql_backend_remote = {
    .name = "remote",
    .connect = remote_connect,
    /* the rest needs a connection, which connect never makes yet */
};
