#!/bin/sh
# Keeps the layers of docs/hacking.md honest, in two ways:
#
#  1. Includes: every quoted #include of a source file must be a header its
#     module may include (the table below, which is docs/hacking.md's), and
#     no file above engine/store may see <lmdb.h>.
#  2. Symbols: no two objects of the library depend on each other, directly
#     or through others. An object depends on the object that defines a
#     symbol it leaves undefined (nm); tsort reports any loop in that graph.
#
#   scripts/check-layers.sh BUILD_DIR     (e.g. build/release, after the objects are built)
set -u
build=${1:-build/release}
cd "$(dirname "$0")/.."
status=0

# ---- 1. includes ----

# The headers a file may include, as extended regular expressions over the quoted path.
allowed() {
    value='engine/value/[a-z_]+\.h'
    engine="$value|engine/engine\.h|engine/schema\.h"
    case $1 in
    engine/value/*) echo "$value" ;;
    engine/schema.h) echo "$value" ;;
    engine/engine.h) echo "$value|engine/schema\.h" ;;
    engine/store/*) echo "$engine|engine/store/[a-z_]+\.h" ;;
    cql/errors.h) echo "cassandra\.h|$value" ;;
    cql/result.[ch]) echo "$value|cql/result\.h" ;;
    cql/cql.h) echo "$engine|cql/result\.h" ;;
    cql/lang/*) echo "$value|cql/lang/[a-z_]+\.h" ;;
    cql/exec/*) echo "$engine|cql/cql\.h|cql/result\.h|cql/errors\.h|cql/lang/[a-z_]+\.h|cql/exec/[a-z_]+\.h" ;;
    cql/server/*) echo "$engine|cql/cql\.h|cql/result\.h|cql/errors\.h|cql/proto/[a-z_]+\.h|cql/server/[a-z_]+\.h" ;;
    cql/proto/*) echo "$value|cql/result\.h|cql/errors\.h|cql/proto/[a-z_]+\.h" ;;
    cql/client/*) echo "$value|cql/result\.h|cql/errors\.h|cql/proto/[a-z_]+\.h|cql/client/[a-z_]+\.h" ;;
    cql/driver/backend_remote.c|cql/driver/remote_cluster.c|cql/driver/remote.h) echo "cassandra\.h|cassette\.h|$value|cql/result\.h|cql/errors\.h|cql/proto/[a-z_]+\.h|cql/client/[a-z_]+\.h|cql/driver/[a-z_]+\.h" ;;
    cql/driver/backend_local.c) echo "cassandra\.h|cassette\.h|$engine|cql/cql\.h|cql/result\.h|cql/errors\.h|cql/driver/[a-z_]+\.h" ;;
    cql/driver/*) echo "cassandra\.h|cassette\.h|$value|cql/result\.h|cql/errors\.h|cql/driver/[a-z_]+\.h" ;;
    cql/shell/*) echo "cassandra\.h|cassette\.h|$value|cql/errors\.h|cql/lang/script\.h|cql/server/server\.h|cql/shell/[a-z_]+\.h" ;;
    # The example programs may use cassette.h's extensions (the demo's virtual clock); the data
    # layers and examples/common stay on the driver's API so they build against the real driver.
    examples/*/cli.c|examples/*/demo.c) echo "cassandra\.h|cassette\.h|[a-z_]+\.h|\.\./common/[a-z_]+\.h" ;;
    examples/*) echo "cassandra\.h|[a-z_]+\.h|\.\./common/[a-z_]+\.h" ;;
    *) echo "" ;;
    esac
}

for f in $(find engine cql examples -name '*.[ch]' | sort); do
    ok=$(allowed "$f")
    if [ -z "$ok" ]; then
        echo "check-layers: $f is in no layer of docs/hacking.md"
        status=1
        continue
    fi
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
        sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1 \2/' |
        while read -r line path; do
            if ! printf '%s\n' "$path" | grep -Eqx "$ok"; then
                echo "check-layers: $f:$line includes \"$path\", which its layer may not"
                echo x
            fi
        done | grep -v '^x$' && status=1
    case $f in
    examples/*/cli.c | examples/*/demo.c) ;;
    examples/*)
        if grep -nE '#[[:space:]]*include[[:space:]]*[<"]cassette\.h[>"]' "$f"; then
            echo "check-layers: $f includes cassette.h: a data layer uses cassandra.h alone"
            status=1
        fi
        ;;
    esac
    case $f in
    engine/store/*) ;;
    *)
        if grep -n '#[[:space:]]*include[[:space:]]*<lmdb\.h>' "$f"; then
            echo "check-layers: $f includes <lmdb.h>: only engine/store may"
            status=1
        fi
        ;;
    esac
done

# ---- 2. symbol-level cycles ----

# The library's objects: those of the current sources (a stale object of a removed file is
# not part of the library).
objs=""
for c in $(find engine cql -name '*.c' ! -path 'cql/shell/*' | sort); do
    [ -f "$build/${c%.c}.o" ] && objs="$objs $build/${c%.c}.o"
done
if [ -z "$objs" ]; then
    echo "check-layers: no objects under $build (build the library first)"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for o in $objs; do
    rel=${o#"$build"/}
    nm -g --defined-only "$o" | awk -v o="$rel" 'NF == 3 { print $3, o }' >>"$tmp/defs"
    nm -u "$o" | awk -v o="$rel" '{ print o, $NF }' >>"$tmp/uses"
    echo "$rel $rel" >>"$tmp/edges" # every object is a node, even one that uses nothing
done
sort -k1,1 "$tmp/defs" >"$tmp/defs.sorted"
sort -k2,2 "$tmp/uses" | join -1 2 -2 1 -o 1.1,2.2 - "$tmp/defs.sorted" |
    awk '$1 != $2' | sort -u >>"$tmp/edges"
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/loops"; then
    echo "check-layers: objects that depend on each other (each loop below is a cycle):"
    sed -e "s|^tsort: $tmp/edges: input contains a loop:|  loop:|" -e 's/^tsort: /    /' "$tmp/loops"
    status=1
fi
[ $status -eq 0 ] && echo "check-layers: includes follow the layer table; no dependency cycles"
exit $status
