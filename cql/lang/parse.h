/*
 * The CQL lexer and parser: text in, syntax tree (ast.h) or a syntax error
 * out. Hand-written recursive descent over Cassandra's grammar
 * (src/antlr/Parser.g, Lexer.g); keywords are case-insensitive, unreserved
 * keywords may be used as identifiers as Cassandra allows.
 *
 * Errors are ENG_E_SYNTAX (0x2000) with Cassandra-style messages that
 * start with the position: "line 1:7 no viable alternative at input 'FOO'",
 * "line 1:14 mismatched input 'x' expecting ...". Parser-level semantic
 * errors Cassandra raises as syntax errors keep their exact texts
 * ("Multiple incompatible setting of column %s", ...).
 *
 * Thread-safe: no global state.
 */
#ifndef CQL_PARSE_H
#define CQL_PARSE_H

#include "cql/lang/ast.h"

/*
 * Parses exactly one statement from text[0..len) (a trailing ';' and
 * whitespace/comments are allowed). Nodes and strings are allocated from
 * `arena` and live as long as it does. Bind markers are numbered in order
 * of appearance (stmt->n_binds).
 */
int cql_parse(const char *text, size_t len, eng_arena *arena, cql_stmt **out, eng_err *err);

#endif
