#!/bin/sh
# Compiles the example applications against the DataStax C/C++ driver's own header, to show
# they use nothing cassandra.h does not declare (the programs too, less the demo, which drives
# cassette's virtual clock):
#   scripts/check-examples-driver.sh DIR     DIR holds the driver's cassandra.h (its include/)
# Exits non-zero at the first file that does not compile.
set -e
dir=${1:?usage: scripts/check-examples-driver.sh DRIVER_INCLUDE_DIR}
[ -f "$dir/cassandra.h" ] || { echo "no cassandra.h in $dir" >&2; exit 2; }
for f in $(ls examples/*/*.c | grep -v '/demo\.c$'); do
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only -I"$dir" -Iexamples "$f"
    echo "ok - $f"
done
