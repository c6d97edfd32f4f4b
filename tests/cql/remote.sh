#!/bin/sh
# The CQL golden tests again, through the driver's remote backend: each file runs as
# `cassette cql://127.0.0.1:PORT -f NAME.cql` against a `cassette serve --memory` of its own,
# and must print exactly what the embedded run prints (NAME.out). Prints
# "cql-remote: N passed, N failed, N skipped" for tests/run.sh.
out=$(CQL_REMOTE=1 sh "$(dirname "$0")/run.sh" "$@")
status=$?
printf '%s\n' "$out" | sed 's/^cql: \([0-9]* passed\)/cql-remote: \1/'
exit $status
