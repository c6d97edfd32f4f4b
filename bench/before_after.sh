#!/bin/sh
# Compares two builds of the same benchmarks, run alternately on this
# machine so that both see the same load: engine_bench, cql_bench and
# driver_bench from OLD/bench and NEW/bench, RUNS times each (default 5),
# each with its default sizes. Prints, per operation and per side of the
# benchmark's own comparison, the median rate of each build and new/old.
#   bench/before_after.sh build-old/release build/release [RUNS]
# A build of an older commit: git worktree add ../old <rev>, then in it
#   make MODE=release BENCH_LIBS=-lsqlite3 build/release/bench/engine_bench ... .
set -eu
old=$1
new=$2
runs=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The table rows of a benchmark's output: operation, then two rates (columns 3 and 4 counted
# from the first number, which is ops/round).
rows() {
    awk '
        /^[a-z].*  +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+/ {
            n = split($0, f, /  +/)
            name = f[1]
            split(substr($0, length(name) + 1), v, " ")
            printf "%s\t%s\t%s\n", name, v[2], v[3]
        }' "$1"
}

for b in engine_bench cql_bench driver_bench; do
    for r in $(seq 1 "$runs"); do
        for side in old new; do
            dir=$old
            [ "$side" = new ] && dir=$new
            "$dir/bench/$b" >"$tmp/out" 2>/dev/null
            rows "$tmp/out" | sed "s/^/$b\t$side\t/" >>"$tmp/all"
        done
    done
done

printf '%-14s %-36s %12s %12s %8s %12s %12s %8s\n' benchmark operation \
    "old first" "new first" new/old "old second" "new second" new/old
awk -F'\t' '
    function median(list,    n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    {
        key = $1 "\t" $3
        if (!(key in seen)) { seen[key] = 1; order[++k] = key }
        a[key, $2] = a[key, $2] " " $4
        b[key, $2] = b[key, $2] " " $5
    }
    END {
        for (i = 1; i <= k; i++) {
            key = order[i]
            split(key, kb, "\t")
            oa = median(a[key, "old"]); na = median(a[key, "new"])
            ob = median(b[key, "old"]); nb = median(b[key, "new"])
            printf "%-14s %-36s %12.0f %12.0f %8.3f %12.0f %12.0f %8.3f\n", kb[1], kb[2],
                oa, na, oa ? na / oa : 0, ob, nb, ob ? nb / ob : 0
        }
    }' "$tmp/all"
