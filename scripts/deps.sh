#!/bin/sh
# Installs the Debian packages cassette needs, and only those that are
# missing, so `make test` and `make demo` work on a fresh machine.
#   scripts/deps.sh         build and test packages
#   scripts/deps.sh bench   also the benchmark peers (SQLite)
set -e
pkgs="gcc make pkg-config liblmdb-dev libxxhash-dev uuid-dev"
[ "$1" = bench ] && pkgs="$pkgs libsqlite3-dev"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
