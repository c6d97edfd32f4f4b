#!/bin/sh
# Builds every example program of the DataStax C/C++ driver against
# include/cassandra.h and libcassette, and runs each one embedded
# (CASSETTE_URI=memory:) and remote (CASSETTE_URI=cql://127.0.0.1:PORT, a
# `cassette serve --memory` started here). The examples are the driver's
# source, not ours: give the path of a cpp-driver checkout (its examples/
# folder); nothing of it is kept.
#
#   scripts/driver-examples.sh CPP_DRIVER_DIR [BUILD_DIR]
#
# Skipped: dse/ (DataStax Enterprise), cloud/ (an Astra bundle), perf/ (a
# load generator with no end), host_listener/ (waits for CTRL+C: built only).
# Exit status 1 when an example fails to build, or exits non-zero or times
# out on either backend.
set -u
src=${1:?usage: scripts/driver-examples.sh CPP_DRIVER_DIR [BUILD_DIR]}
b=${2:-build/release}
root=$(pwd)
out=$(mktemp -d /tmp/cassette-examples-XXXXXX)
trap 'kill "$server" 2>/dev/null; rm -rf "$out"' EXIT INT TERM
libs="-llmdb -lxxhash -luuid -llz4 -lsnappy -lz -luv -lpthread -ldl -lrt -lssl -lcrypto -lcrypt -lm"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
CASSETTE_DURABILITY=none "$b/cassette" serve --memory --port "$port" >/dev/null 2>&1 &
server=$!
sleep 1

status=0
for dir in "$src"/examples/*/; do
    name=$(basename "$dir")
    case $name in dse | cloud) continue ;; esac
    for c in "$dir"*.c; do
        [ -f "$c" ] || continue
        exe="$out/$name"
        if ! cc -std=gnu11 -I"$root/include" -o "$exe" "$c" "$b/libcassette.a" $libs \
            >"$out/$name.build" 2>&1; then
            echo "FAIL $name: does not build"; sed -n 1,5p "$out/$name.build"; status=1
            continue
        fi
        case $name in perf | host_listener) echo "ok $name: built"; continue ;; esac
        for uri in memory: "cql://127.0.0.1:$port"; do
            if CASSETTE_URI=$uri timeout 60 "$exe" </dev/null >"$out/$name.run" 2>&1; then
                echo "ok $name ($uri)"
            else
                echo "FAIL $name ($uri): exit $?"; tail -3 "$out/$name.run"; status=1
            fi
        done
    done
done
exit $status
