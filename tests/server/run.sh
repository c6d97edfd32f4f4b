#!/bin/sh
# The server tests: the Python driver (Debian's python3-cassandra, pytest) against
# `cassette serve` instances the tests start on free ports. Prints "server: N passed,
# N failed" for tests/run.sh.
cd "$(dirname "$0")/../.." || exit 1
CASSETTE=${CASSETTE:-build/release/cassette}
export CASSETTE
out=$(/usr/bin/python3 -m pytest -q -p no:cacheprovider tests/server 2>&1)
status=$?
printf '%s\n' "$out"
last=$(printf '%s\n' "$out" | grep -E '[0-9]+ (passed|failed)' | tail -n 1)
count() { printf '%s\n' "$last" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+'; }
p=$(count passed)
f=$(count failed)
e=$(count 'errors?')
p=${p:-0}
f=$((${f:-0} + ${e:-0}))
[ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
echo "server: $p passed, $f failed"
