#!/bin/sh
# Draws PNG charts (gnuplot, Debian's gnuplot-nox: scripts/deps.sh bench) from
# the CSV that bench/peers_bench.c writes (--csv FILE):
#   throughput.png     ops/s against data size (messages), one panel per operation
#                      (uniform room choice, 1 thread), one line per system
#   throughput-hot.png the same with hot rooms (zipf)
#   last50-latency.png p50 and p99 of the last 50 of a room against messages per room
#                      (uniform rooms, 1 thread), one colour per system: a solid line
#                      for messages (the room is the partition), a dashed one for
#                      messages_by_day (a room's day is the partition, of a fixed size)
#   scripts/bench-charts.sh CSV [DIR]     (DIR: build/release/bench/charts)
set -e
csv=${1:?usage: scripts/bench-charts.sh CSV [DIR]}
dir=${2:-build/release/bench/charts}
[ -r "$csv" ] || { echo "bench-charts: cannot read $csv" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "bench-charts: gnuplot is missing (sh scripts/deps.sh bench)" >&2; exit 1; }
mkdir -p "$dir"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

# One data file per (workload, room choice, threads, system): size, rooms, ops/s, p50, p99,
# messages per room in the table read (size / rooms in a CSV from before that column).
awk -F, -v d="$data" '
/^#/ || $1 == "size" || $1 == 0 { next }
{ f = d "/" $3 "-" $4 "-" $5 "-" $6 ".dat"
  print $1, $2, $7, $10, $11, ($14 != "" ? $14 : $1 / $2) >> f; close(f) }' "$csv"
# Messages a day bucket holds, for the latency chart's title.
bucket=$(awk -F, '$3 == "last50_buckets" && $15 != "" { print $15; exit }' "$csv")

systems="cassette cassette_remote sqlite lmdb"
title() {
    case $1 in
    cassette) echo "cassette" ;; cassette_remote) echo "cassette remote" ;;
    sqlite) echo "SQLite" ;; lmdb) echo "raw LMDB" ;;
    esac
}

# plot_lines WORKLOAD DIST THREADS USING: the plot clauses of every system with data.
plot_lines() {
    sep=""
    for s in $systems; do
        f="$data/$1-$2-$3-$s.dat"
        [ -s "$f" ] || continue
        printf '%s"%s" using %s with linespoints title "%s"' "$sep" "$f" "$4" "$(title "$s")"
        sep=", "
    done
}

throughput() { # DIST OUTPUT
    {
        echo 'set terminal pngcairo size 1500,900 noenhanced font ",10"'
        echo "set output \"$2\""
        echo "set multiplot layout 2,3 title \"peers_bench: ops/s against messages stored ($1 rooms, 1 thread)\""
        echo 'set logscale xy; set grid; set key bottom left; set xlabel "messages"; set ylabel "ops/s"'
        for w in insert last50 page_back point_read create_account; do
            d=$1
            [ "$w" = create_account ] && d=uniform
            lines=$(plot_lines "$w" "$d" 1 '1:3')
            [ -n "$lines" ] || continue
            echo "set title \"$w\""
            echo "plot $lines"
        done
        echo 'unset multiplot'
    } | gnuplot
}

# latency_lines COLUMN: the last-50 latency in COLUMN (4: p50, 5: p99) against messages
# per room, for every system with data: solid without buckets, dashed with day buckets.
latency_lines() {
    sep=""
    colour=0
    for s in $systems; do
        colour=$((colour + 1))
        for w in last50 last50_buckets; do
            f="$data/$w-uniform-1-$s.dat"
            [ -s "$f" ] || continue
            if [ "$w" = last50 ]; then
                style="dashtype 1 pointtype 7" name=$(title "$s")
            else
                style="dashtype 2 pointtype 6" name="$(title "$s"), day buckets"
            fi
            printf '%s"%s" using 6:%s with linespoints linecolor %d %s title "%s"' \
                "$sep" "$f" "$1" "$colour" "$style" "$name"
            sep=", "
        done
    done
}

throughput uniform "$dir/throughput.png"
throughput hot "$dir/throughput-hot.png"

{
    echo 'set terminal pngcairo size 1200,700 noenhanced font ",10"'
    echo "set output \"$dir/last50-latency.png\""
    echo "set multiplot layout 1,2 title \"peers_bench: last 50 of a room, latency against messages per room (uniform rooms, 1 thread); solid: the room is the partition, dashed: day buckets${bucket:+ of $bucket messages}\""
    echo 'set logscale xy; set grid; set key below maxrows 4; set xlabel "messages per room"; set ylabel "microseconds"'
    echo 'set title "p50"'
    echo "plot $(latency_lines 4)"
    echo 'set title "p99"'
    echo "plot $(latency_lines 5)"
    echo 'unset multiplot'
} | gnuplot

echo "bench-charts: $dir/throughput.png, $dir/throughput-hot.png, $dir/last50-latency.png"
