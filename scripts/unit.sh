#!/bin/sh
# Builds and runs one test file against only the sources it names, with the
# project's flags, so a module can be tested while others are being edited.
#   scripts/unit.sh tests/engine/test_row.c engine/store/row.c [more sources] [-- test-name-filter]
#   ASAN=1 scripts/unit.sh ...    under AddressSanitizer + UBSan
set -e
cd "$(dirname "$0")/.."
test_src=$1; shift
srcs=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do srcs="$srcs $1"; shift; done
[ "$1" = "--" ] && shift
opt="-O2 -g"
[ -n "$ASAN" ] && opt="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
mkdir -p build/unit
out=build/unit/$(basename "$test_src" .c)${ASAN:+-asan}
cc -D_GNU_SOURCE -I. -Iinclude -Itests $(pkg-config --cflags lmdb libxxhash uuid) \
   -std=c11 $opt -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
   -Wformat=2 -Wno-format-nonliteral \
   -o "$out" "$test_src" tests/harness.c engine/value/common.c $srcs \
   $(pkg-config --libs lmdb libxxhash uuid) -lpthread -lm
exec "$out" "$@"
