#!/bin/sh
# Runs each libFuzzer target for a fixed time, then keeps what it learned.
#   scripts/fuzz.sh BUILD_DIR SECONDS TARGET...      (make fuzz calls it)
#
# Per target NAME: the fuzzer runs SECONDS on a scratch corpus (BUILD_DIR/work/NAME, new
# inputs go there) that starts from the kept one, tests/fuzz/corpus/NAME/. Then -merge=1
# picks, from the kept and the new inputs together, the fewest that reach all the coverage
# they reach (new inputs only when they add some), and that becomes the kept corpus: it
# stays small and every file in it is worth replaying (make test does). Files named
# regress-* are reproducers of fixed bugs and stay whatever their coverage. A crash, a
# sanitizer report, a leak or a timeout stops that target: its reproducer stays in
# BUILD_DIR/crashes/NAME/, the next targets still run, and the script exits 1.
set -u
build=$1
seconds=$2
shift 2
failed=""
for name in "$@"; do
    bin=$build/tests/fuzz/fuzz_$name
    kept=tests/fuzz/corpus/$name
    work=$build/work/$name
    crashes=$build/crashes/$name
    mkdir -p "$kept" "$work" "$crashes"
    log=$build/fuzz_$name.log
    dict=""
    [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
    echo "== fuzz_$name: ${seconds}s"
    # -timeout: one input taking seconds is a finding (bounded work per statement);
    # -rss_limit_mb: unbounded memory is one too. Output goes to a log, stats are shown.
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$crashes/" $dict "$work" "$kept" >"$log" 2>&1
    status=$?
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" |
        sed "s/^/fuzz_$name: /"
    if [ "$status" -ne 0 ]; then
        grep -E '^fuzz: |ERROR:|runtime error:|SUMMARY:|Test unit written' "$log" | head -n 8
        echo "FAIL - fuzz_$name: see $log; replay with" \
            "build/release/tests/fuzz/fuzz_$name FILE once built by make test"
        failed="$failed $name"
        continue
    fi
    before=$(ls "$kept" | wc -l)
    merged=$build/merged/$name
    rm -rf "$merged"
    mkdir -p "$merged"
    if ! "$bin" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=4096 "$merged" "$kept" \
        "$work" >>"$log" 2>&1; then
        echo "FAIL - fuzz_$name: merge failed, see $log"
        failed="$failed $name"
        continue
    fi
    for f in "$kept"/regress-*; do
        [ -f "$f" ] || continue
        cp "$f" "$merged/"
        rm -f "$merged/$(sha1sum <"$f" | cut -d' ' -f1)" # the merge's copy, named by its SHA-1
    done
    rm -rf "$kept" && mv "$merged" "$kept"
    after=$(ls "$kept" | wc -l)
    echo "fuzz_$name: corpus $before -> $after files"
done
if [ -n "$failed" ]; then
    echo "fuzz: findings in:$failed"
    exit 1
fi
echo "fuzz: no findings"
