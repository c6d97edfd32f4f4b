#!/bin/sh
# The Go driver's tests (main.go, on Debian's golang-github-gocql-gocql-dev): starts
# `cassette serve --memory --port 0`, runs them against it, stops it with SIGTERM, and prints
# "gocql: N passed, N failed" for tests/run.sh.
cd "$(dirname "$0")/../../.." || exit 1
CASSETTE=${CASSETTE:-build/release/cassette}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
CASSETTE_DURABILITY=none "$CASSETTE" serve --memory --port 0 >"$out/serve" 2>&1 &
pid=$!
CASSETTE_DURABILITY=none "$CASSETTE" serve --memory --port 0 --auth >"$out/serve-auth" 2>&1 &
auth_pid=$!
# the port a server printed, once it has
port_of() {
    i=0
    while ! grep -q 'listening on' "$1" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sed -n 's/.*listening on [0-9.]*:\([0-9]*\) .*/\1/p' "$1"
}
port=$(port_of "$out/serve")
auth_port=$(port_of "$out/serve-auth")
if [ -z "$port" ] || [ -z "$auth_port" ]; then
    cat "$out/serve" "$out/serve-auth"
    kill "$pid" "$auth_pid" 2>/dev/null
    echo "gocql: 0 passed, 1 failed"
    exit 1
fi
# Debian's Go packages live in /usr/share/gocode (GOPATH mode); the build cache stays in build/
(cd tests/server/gocql && GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$PWD/../../../build/gocache" \
    GOFLAGS= go run main.go 127.0.0.1 "$port" "$auth_port") >"$out/go" 2>&1
status=$?
kill -TERM "$pid" "$auth_pid"
wait "$auth_pid"
wait "$pid"
stopped=$?
cat "$out/go"
if ! grep -qE '^gocql: [0-9]+ passed, [0-9]+ failed$' "$out/go"; then
    echo "gocql: 0 passed, 1 failed"
    exit 1
fi
if [ "$stopped" -ne 0 ]; then
    echo "FAIL - the server exited with status $stopped on SIGTERM"
    cat "$out/serve"
    exit 1
fi
exit $status
