/*
 * The one table of errors a request can end with. Each row names an engine
 * code (engine/value/common.h) and what every layer above calls it:
 *
 *   X(eng code, protocol code, protocol name, CassError, cqlsh class, summary)
 *
 * - protocol code and name: the native protocol's ERROR message ([PV4] §9,
 *   Cassandra's ExceptionCode); the server writes the code, the client
 *   reads it back;
 * - CassError: what the C/C++ driver reports for it (cassandra.h's
 *   CASS_ERROR_SERVER_* codes carry the protocol code; running out of memory
 *   in the application's own process is the driver's internal error);
 * - cqlsh class and summary: how cqlsh prints the failure, through the
 *   Python driver. Classes with a summary are exceptions whose text is the
 *   whole "Error from server: code=%04x [summary] message=\"...\"" frame
 *   (the driver's to_exception(summary_msg())); the others are raised as the
 *   error message itself and cqlsh prints the server's text alone.
 *   AlreadyExists builds its own text from the keyspace and table.
 *
 * Several engine codes share a protocol code (every engine failure is a
 * "Server error"); a protocol code read from the wire maps back to the first
 * row that has it. A header of macros only: the driver, the shell and the
 * server each expand the columns they need, so the table cannot drift.
 */
#ifndef CQL_ERRORS_H
#define CQL_ERRORS_H

#include "cassandra.h"
#include "engine/value/common.h"

/*
 * Failures of a client's own (the remote backend's connections, cql/client), beyond the
 * engine's codes: never on the wire, they name what the driver reports when no server answered.
 */
enum {
    CQL_E_NO_HOST = 0x20000, /* no host could be connected to */
    CQL_E_CLOSED,            /* the connection closed before the answer */
    CQL_E_TIMEOUT,           /* no answer within the request timeout */
    CQL_E_AUTH_NEEDED,       /* the server asks for credentials none were given for */
    CQL_E_QUEUE_FULL,        /* too many requests wait for a stream on a connection */
};

/* clang-format off */
#define CQL_ERRORS(X)                                                                              \
    X(ENG_E_SERVER, 0x0000, "SERVER_ERROR", CASS_ERROR_SERVER_SERVER_ERROR, "ServerError", NULL) \
    X(ENG_E_NOMEM, 0x0000, "SERVER_ERROR", CASS_ERROR_LIB_INTERNAL_ERROR, "ServerError", NULL)   \
    X(ENG_E_CORRUPT, 0x0000, "SERVER_ERROR", CASS_ERROR_SERVER_SERVER_ERROR, "ServerError", NULL) \
    X(ENG_E_IO, 0x0000, "SERVER_ERROR", CASS_ERROR_SERVER_SERVER_ERROR, "ServerError", NULL)     \
    X(ENG_E_BUSY, 0x0000, "SERVER_ERROR", CASS_ERROR_SERVER_SERVER_ERROR, "ServerError", NULL)   \
    X(ENG_E_PROTOCOL, 0x000A, "PROTOCOL_ERROR", CASS_ERROR_SERVER_PROTOCOL_ERROR,                 \
      "ProtocolException", NULL)                                                                   \
    X(ENG_E_BAD_CREDENTIALS, 0x0100, "BAD_CREDENTIALS", CASS_ERROR_SERVER_BAD_CREDENTIALS,        \
      "BadCredentials", NULL)                                                                      \
    X(ENG_E_UNAVAILABLE, 0x1000, "UNAVAILABLE", CASS_ERROR_SERVER_UNAVAILABLE, "Unavailable",     \
      "Unavailable exception")                                                                     \
    X(ENG_E_OVERLOADED, 0x1001, "OVERLOADED", CASS_ERROR_SERVER_OVERLOADED,                       \
      "OverloadedErrorMessage", NULL)                                                              \
    X(ENG_E_IS_BOOTSTRAPPING, 0x1002, "IS_BOOTSTRAPPING", CASS_ERROR_SERVER_IS_BOOTSTRAPPING,     \
      "IsBootstrappingErrorMessage", NULL)                                                         \
    X(ENG_E_TRUNCATE, 0x1003, "TRUNCATE_ERROR", CASS_ERROR_SERVER_TRUNCATE_ERROR,                 \
      "TruncateError", NULL)                                                                       \
    X(ENG_E_WRITE_TIMEOUT, 0x1100, "WRITE_TIMEOUT", CASS_ERROR_SERVER_WRITE_TIMEOUT,              \
      "WriteTimeout", "Coordinator node timed out waiting for replica nodes' responses")          \
    X(ENG_E_READ_TIMEOUT, 0x1200, "READ_TIMEOUT", CASS_ERROR_SERVER_READ_TIMEOUT, "ReadTimeout",  \
      "Coordinator node timed out waiting for replica nodes' responses")                          \
    X(ENG_E_READ_FAILURE, 0x1300, "READ_FAILURE", CASS_ERROR_SERVER_READ_FAILURE, "ReadFailure",  \
      "Replica(s) failed to execute read")                                                         \
    X(ENG_E_FUNCTION_FAILURE, 0x1400, "FUNCTION_FAILURE", CASS_ERROR_SERVER_FUNCTION_FAILURE,     \
      "FunctionFailure", "User Defined Function failure")                                          \
    X(ENG_E_WRITE_FAILURE, 0x1500, "WRITE_FAILURE", CASS_ERROR_SERVER_WRITE_FAILURE,              \
      "WriteFailure", "Replica(s) failed to execute write")                                        \
    X(ENG_E_SYNTAX, 0x2000, "SYNTAX_ERROR", CASS_ERROR_SERVER_SYNTAX_ERROR, "SyntaxException",    \
      NULL)                                                                                        \
    X(ENG_E_UNAUTHORIZED, 0x2100, "UNAUTHORIZED", CASS_ERROR_SERVER_UNAUTHORIZED, "Unauthorized", \
      "Unauthorized")                                                                              \
    X(ENG_E_INVALID, 0x2200, "INVALID", CASS_ERROR_SERVER_INVALID_QUERY, "InvalidRequest",        \
      "Invalid query")                                                                             \
    X(ENG_E_CONFIG, 0x2300, "CONFIG_ERROR", CASS_ERROR_SERVER_CONFIG_ERROR,                       \
      "ConfigurationException", NULL)                                                              \
    X(ENG_E_EXISTS, 0x2400, "ALREADY_EXISTS", CASS_ERROR_SERVER_ALREADY_EXISTS, "AlreadyExists",  \
      NULL)                                                                                        \
    X(ENG_E_UNPREPARED, 0x2500, "UNPREPARED", CASS_ERROR_SERVER_UNPREPARED,                       \
      "PreparedQueryNotFound", NULL)                                                               \
    X(CQL_E_NO_HOST, 0x0000, "SERVER_ERROR", CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, "NoHostAvailable",  \
      NULL)                                                                                        \
    X(CQL_E_CLOSED, 0x0000, "SERVER_ERROR", CASS_ERROR_LIB_NO_HOSTS_AVAILABLE, "NoHostAvailable",   \
      NULL)                                                                                        \
    X(CQL_E_TIMEOUT, 0x0000, "SERVER_ERROR", CASS_ERROR_LIB_REQUEST_TIMED_OUT, "OperationTimedOut", \
      NULL)                                                                                        \
    X(CQL_E_AUTH_NEEDED, 0x0000, "SERVER_ERROR", CASS_ERROR_SERVER_BAD_CREDENTIALS,               \
      "AuthenticationFailed", NULL)                                                                \
    X(CQL_E_QUEUE_FULL, 0x0000, "SERVER_ERROR", CASS_ERROR_LIB_REQUEST_QUEUE_FULL,                \
      "NoHostAvailable", NULL)
/* clang-format on */

#endif
