#!/bin/sh
# Runs each libFuzzer target for a fixed time, then keeps what it learned.
#   [FUZZ_MINIMIZE=1] scripts/fuzz.sh BUILD_DIR SECONDS TARGET...   (make fuzz calls it)
#
# Per target NAME: the fuzzer runs SECONDS on a scratch corpus (BUILD_DIR/work/NAME, new
# inputs go there) that starts from the kept one, tests/fuzz/corpus/NAME/. Then -merge=1
# copies into the kept corpus only the new inputs that reach coverage it does not: kept
# files (named by their SHA-1) never change, so corpora grown on two branches merge
# without conflicts, and every file is worth replaying (make test does). With
# FUZZ_MINIMIZE=1 the kept corpus is instead rebuilt as the fewest inputs, old and new,
# that reach all the coverage they reach; files named regress-* (reproducers of fixed
# bugs) stay whatever their coverage. A crash, a
# sanitizer report, a leak or a timeout stops that target: its reproducer stays in
# BUILD_DIR/crashes/NAME/, the next targets still run, and the script exits 1.
set -u
build=$1
seconds=$2
shift 2
failed=""

# minimize BIN KEPT WORK SCRATCH LOG: KEPT becomes the fewest inputs of KEPT and WORK that
# reach their coverage, plus every regress-* file of KEPT.
minimize() {
    rm -rf "$4"
    mkdir -p "$4"
    "$1" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=4096 "$4" "$2" "$3" >>"$5" 2>&1 ||
        return 1
    for f in "$2"/regress-*; do
        [ -f "$f" ] || continue
        cp "$f" "$4/"
        rm -f "$4/$(sha1sum <"$f" | cut -d' ' -f1)" # the merge's copy, named by its SHA-1
    done
    rm -rf "$2" && mv "$4" "$2"
}

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
    if [ "${FUZZ_MINIMIZE:-0}" = 1 ]; then
        minimize "$bin" "$kept" "$work" "$build/merged/$name" "$log" || {
            echo "FAIL - fuzz_$name: merge failed, see $log"
            failed="$failed $name"
            continue
        }
    elif ! "$bin" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=4096 "$kept" "$work" \
        >>"$log" 2>&1; then
        echo "FAIL - fuzz_$name: merge failed, see $log"
        failed="$failed $name"
        continue
    fi
    after=$(ls "$kept" | wc -l)
    echo "fuzz_$name: corpus $before -> $after files"
done
if [ -n "$failed" ]; then
    echo "fuzz: findings in:$failed"
    exit 1
fi
echo "fuzz: no findings"
