#!/bin/sh
# Installs the library into a temporary prefix and builds and runs a small
# program against it with `pkg-config --cflags --libs cassette`, as a user
# of the installed tree would (always the release build: a sanitizer build
# needs its runtime loaded first).
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=test_install_tree_builds_with_pkg_config
pc="$tmp/usr/lib/pkgconfig"
if make --no-print-directory -s install PREFIX="$tmp/usr" MODE=release >"$tmp/log" 2>&1 &&
    [ -f "$tmp/usr/include/cassette/cassette.h" ] &&
    cc tests/install/smoke.c -o "$tmp/smoke" $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs cassette) \
        >>"$tmp/log" 2>&1 &&
    LD_LIBRARY_PATH="$tmp/usr/lib" "$tmp/smoke" >>"$tmp/log" 2>&1 &&
    cc tests/install/driver_app.c -o "$tmp/driver_app" \
        $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs cassette) >>"$tmp/log" 2>&1 &&
    LD_LIBRARY_PATH="$tmp/usr/lib" "$tmp/driver_app" memory: >>"$tmp/log" 2>&1 &&
    LD_LIBRARY_PATH="$tmp/usr/lib" "$tmp/driver_app" "file:$tmp/db" >>"$tmp/log" 2>&1; then
    echo "ok - $name"
    echo "install: 1 passed, 0 failed"
else
    cat "$tmp/log"
    echo "FAIL - $name"
    echo "install: 0 passed, 1 failed"
    exit 1
fi
