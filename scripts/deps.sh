#!/bin/sh
# Installs the Debian packages cassette needs, and only those that are
# missing, so `make test` and `make demo` work on a fresh machine.
#   scripts/deps.sh         build and test packages
#   scripts/deps.sh test    also what the tests drive the server with (the Python driver and
#                           pytest, the Go driver and Go)
#   scripts/deps.sh bench   also the benchmark peers (SQLite) and gnuplot for the charts
#   scripts/deps.sh fuzz    also clang and its libFuzzer and sanitizer runtimes
set -e
pkgs="gcc make pkg-config liblmdb-dev libxxhash-dev uuid-dev liblz4-dev libsnappy-dev zlib1g-dev libuv1-dev libssl-dev libcrypt-dev libsodium-dev"
[ "$1" = test ] && pkgs="$pkgs python3 python3-cassandra python3-pytest python3-lz4 python3-snappy golang-go golang-github-gocql-gocql-dev openssl"
[ "$1" = bench ] && pkgs="$pkgs libsqlite3-dev gnuplot-nox"
[ "$1" = fuzz ] && pkgs="$pkgs clang libclang-rt-14-dev"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
        echo "cassette needs these Debian packages:$missing" >&2
        echo "install them as root, then run make again:" >&2
        echo "    apt-get install -y$missing" >&2
        exit 1
    fi
    SUDO=sudo
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
