/*
 * Arithmetic operators (arith.c): Cassandra's OperationFcts, the functions
 * system._add, _substract, _multiply, _divide, _modulo and _negate that the
 * parser makes of `a + b`, `a - b`, `a * b`, `a / b`, `a % b` and `-a`.
 */
#ifndef CQL_EXEC_ARITH_H
#define CQL_EXEC_ARITH_H

#include "cql/lang/ast.h"
#include "engine/value/types.h"

enum { CQL_OP_ADD = 1, CQL_OP_SUB, CQL_OP_MUL, CQL_OP_DIV, CQL_OP_MOD, CQL_OP_NEG };

/* The operator a call term stands for (CQL_OP_*), or 0 if it is not an operator call. */
int cql_arith_op(const cql_term *t);
/* Operand i of an operator call, parentheses around it removed. */
const cql_term *cql_arith_operand(const cql_term *fn, int i);
/* '+', '-', '*', '/', '%' ('-' for the negation). */
char cql_arith_symbol(int op);
/* 1 for the number kinds (tinyint ... decimal, counter). */
int cql_arith_is_number(int kind);
/* The result kind of op on operands of kinds l and r (r unused for CQL_OP_NEG), or 0 when
   the operation is not defined between them (OperationFcts' signatures). */
int cql_arith_result(int op, int l, int r);
/* The preferred kind of a literal operand (int, bigint or varint for an integer, double or
   decimal for a float, duration, text...), or 0 if the term is not a literal. */
int cql_arith_literal_kind(const cql_term *t);
/*
 * Types an operator call written in a term (VALUES, SET, WHERE) for a receiver of type want
 * (NULL if unknown), as Cassandra's FunctionResolver picks an overload: *lk, *rk the operand
 * kinds (either may be NULL), *ret the result kind; Cassandra's errors "the '+' operation is
 * not supported between a and b", "Ambiguous '+' operation with args ? and 1: use type casts to
 * disambiguate".
 */
int cql_arith_term_kinds(const cql_term *fn, const eng_type *want, int *lk, int *rk, int *ret,
                         eng_err *err);
/*
 * Appends l op r (r ignored for the negation) of the given operand kinds as a value of kind
 * ret; a null or empty operand gives *state CQL_VALUE_NULL. Failures carry ENG_E_FUNCTION_FAILURE
 * and Cassandra's "the operation 'int / int' failed: / by zero".
 */
int cql_arith_apply(int op, int lk, eng_val l, int rk, eng_val r, int ret, eng_buf *out,
                    int *state, eng_err *err);

#endif
