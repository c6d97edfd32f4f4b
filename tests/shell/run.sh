#!/bin/sh
# The shell's DB argument in the driver's contact-point forms: memory: is a
# temporary database of its own each run (and no directory named memory:),
# file:DIR and a plain directory are the same database. Prints "shell: N
# passed, N failed" for tests/run.sh.
set -u
cd "$(dirname "$0")/../.." || exit 1
cassette=${CASSETTE:-build/release/cassette}
case $cassette in /*) ;; *) cassette="$(pwd)/$cassette" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # NAME COMMAND...: passes when the command succeeds
    name=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        echo "ok - $name"
        pass=$((pass + 1))
    else
        echo "FAIL - $name"
        cat "$tmp/out"
        fail=$((fail + 1))
    fi
}
ks="CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
cd "$tmp" || exit 1
check memory_is_a_fresh_database_each_run sh -c \
    "'$cassette' memory: -e \"$ks\" && '$cassette' memory: -e \"$ks\""
check memory_creates_no_directory test ! -e "memory:"
check file_prefix_and_plain_directory_are_one_database sh -c \
    "'$cassette' file:$tmp/db -e \"$ks\" && ! '$cassette' $tmp/db -e \"$ks\" 2>/dev/null"
echo "shell: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
