#!/bin/sh
# The CQL golden tests: runs each tests/cql/NAME.cql that has a NAME.out
# through `cassette DB -f NAME.cql` on a fresh database (from this folder, so
# error lines name NAME.cql), standard error merged into standard output, and
# compares the result with NAME.out minus its leading "# " comment lines.
# Prints "ok - NAME" or "FAIL - NAME" and a unified diff (expected first),
# then "cql: N passed, N failed, N skipped".
#
# tests/cql/PENDING lists the files whose behaviour is not implemented yet,
# one "NAME  reason" per line: they still run and show their diff, but their
# cases count as skipped, not failed; one that passes says so, to be removed
# from the list.
#
# Cases are statements: a file counts one case per line whose last non-blank
# character is ';' (lines starting with -- or // are comments), a
# BEGIN BATCH ... APPLY BATCH block counting once. A failing file counts all
# its cases as failed, and at least one.
#
#   tests/cql/run.sh [NAME...]      only these files (NAME, NAME.cql or a path)
#   CASSETTE=path/to/cassette       the shell to run (default build/release/cassette)
#   CQL_REMOTE=1                    each file runs through the driver's remote backend against
#                                   a `cassette serve --memory` of its own (cql://127.0.0.1:PORT)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cassette=${CASSETTE:-build/release/cassette}
case $cassette in
/*) ;;
*) cassette="$root/$cassette" ;;
esac
timeout_s=30

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

count_cases() {
    awk '
        /^[ \t]*(--|\/\/)/ { next }
        toupper($0) ~ /^[ \t]*BEGIN[ \t]+((UNLOGGED|COUNTER)[ \t]+)?BATCH/ { batch = 1 }
        /;[ \t\r]*$/ {
            if (!batch) n++
            else if (toupper($0) ~ /APPLY[ \t]+BATCH[ \t]*;[ \t\r]*$/) { n++; batch = 0 }
        }
        END { print n + 0 }' "$1"
}

# The expected output: NAME.out without its leading "# " (or bare "#") lines.
expected() {
    awk 'head && /^#( |$)/ { next } { head = 0; print } BEGIN { head = 1 }' "$1"
}

names=""
if [ $# -gt 0 ]; then
    for arg in "$@"; do
        name=$(basename "$arg" .cql)
        names="$names $name"
    done
else
    for f in "$here"/*.cql; do
        [ -e "$f" ] || continue
        names="$names $(basename "$f" .cql)"
    done
fi

pending_reason() {
    [ -f "$here/PENDING" ] || return 1
    awk -v n="$1" '$1 == n { $1 = ""; sub(/^ +/, ""); print; found = 1 } END { exit !found }' \
        "$here/PENDING"
}

passed=0
failed=0
skipped=0
for name in $(printf '%s\n' $names | sort -u); do
    if [ ! -f "$here/$name.cql" ]; then
        echo "FAIL - $name: no $name.cql"
        failed=$((failed + 1))
        continue
    fi
    if [ ! -f "$here/$name.out" ]; then
        echo "skip - $name: no $name.out"
        continue
    fi
    cases=$(count_cases "$here/$name.cql")
    db=$(mktemp -d "$tmp/db.XXXXXX")
    expected "$here/$name.out" >"$tmp/want"
    target="$db/db"
    server=""
    if [ "${CQL_REMOTE:-0}" = 1 ]; then
        CASSETTE_DURABILITY=none "$cassette" serve --memory --port 0 >"$db/serve" 2>&1 &
        server=$!
        i=0
        while ! grep -q 'listening on' "$db/serve" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.05
            i=$((i + 1))
        done
        target="cql://$(sed -n 's/.*listening on \([0-9.]*:[0-9]*\) .*/\1/p' "$db/serve")"
    fi
    (cd "$here" && timeout "$timeout_s" "$cassette" "$target" -f "$name.cql") >"$tmp/got" 2>&1
    status=$?
    if [ -n "$server" ]; then
        kill -TERM "$server"
        wait "$server"
    fi
    rm -rf "$db"
    reason=$(pending_reason "$name")
    is_pending=$?
    if [ "$status" -ne 124 ] && cmp -s "$tmp/want" "$tmp/got"; then
        echo "ok - $name"
        [ "$is_pending" -eq 0 ] && echo "  (passes now: remove it from tests/cql/PENDING)"
        passed=$((passed + cases))
    elif [ "$is_pending" -eq 0 ]; then
        echo "pending - $name: $reason"
        diff -u "$tmp/want" "$tmp/got" | sed -e "1s|.*|--- $name.out|" -e "2s|.*|+++ cassette -f $name.cql|" | head -40
        skipped=$((skipped + cases))
    else
        echo "FAIL - $name"
        [ "$status" -eq 124 ] && echo "  (timed out after ${timeout_s} s)"
        diff -u "$tmp/want" "$tmp/got" | sed -e "1s|.*|--- $name.out|" -e "2s|.*|+++ cassette -f $name.cql|"
        failed=$((failed + (cases > 0 ? cases : 1)))
    fi
done
echo "cql: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
