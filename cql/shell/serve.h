/*
 * `cassette serve`: the shell's front end to cql/server (argument parsing,
 * the address printed once listening).
 */
#ifndef CQL_SHELL_SERVE_H
#define CQL_SHELL_SERVE_H

/* Runs `cassette serve ARGS...` (argv[0] is "serve"); returns the exit status. */
int cql_shell_serve(int argc, char **argv);

#endif
