#!/bin/sh
# Runs every test program given as an argument, prints their output, and ends
# with one line "N passed, N failed" summing the programs' summary lines
# (skipped tests, if any, are counted on the line before it).
# Each tests/driver/ and tests/examples/ program runs twice: embedded, then remote (CASSETTE_TEST_REMOTE=1:
# tests/driver/remote_harness.c serves every database a test opens by a `cassette serve`,
# the shell CASSETTE names; its tests are named "[remote] NAME").
# Exits non-zero if any test failed or any program did not report. Under MODE=tsan a program
# whose output holds a ThreadSanitizer report fails too, whatever it exited with (a forked
# worker's report may not reach the test's status).
passed=0
failed=0
skipped=0

# run NAME COMMAND...: runs the program, prints its output, adds up its summary line.
run() {
    name=$1
    shift
    out=$("$@" 2>&1)
    status=$?
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' |
        tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL - $name: exited with status $status without a summary"
        failed=$((failed + 1))
        return
    fi
    p=$(printf '%s\n' "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
    f=$(printf '%s\n' "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    s=$(printf '%s\n' "$line" | sed -nE 's/.*, ([0-9]+) skipped$/\1/p')
    skipped=$((skipped + ${s:-0}))
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL - $name: exited with status $status"
        failed=$((failed + 1))
    elif [ "$f" -eq 0 ] && [ "$MODE" = tsan ] && printf '%s\n' "$out" | grep -q 'ThreadSanitizer'; then
        echo "FAIL - $name: ThreadSanitizer reported"
        failed=$((failed + 1))
    fi
}

for prog in "$@"; do
    run "$prog" "$prog"
    case $prog in
    */tests/driver/test_* | */tests/examples/test_*) run "[remote] $prog" env CASSETTE_TEST_REMOTE=1 "$prog" ;;
    esac
done
if [ "$skipped" -gt 0 ]; then
    echo "$skipped skipped"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
