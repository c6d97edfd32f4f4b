#!/bin/sh
# Puts a generated section into a document: the lines from <!-- MARKER:begin --> to
# <!-- MARKER:end --> of DOC are replaced by SECTION_FILE (wrapped in those two lines when it
# does not carry them itself); a DOC without them gets the section appended at its end.
# Everything outside the markers is left alone.
#   scripts/bench-splice.sh SECTION_FILE MARKER DOC
# (bench/seeds_bench.c writes its section with --report FILE; `make bench-full` splices it
# into docs/benchmarks.md.)
set -e
usage="usage: scripts/bench-splice.sh SECTION_FILE MARKER DOC"
section=${1:?$usage}
marker=${2:?$usage}
doc=${3:?$usage}
[ -r "$section" ] || { echo "bench-splice: cannot read $section" >&2; exit 1; }
[ -w "$doc" ] || { echo "bench-splice: cannot write $doc" >&2; exit 1; }
begin="<!-- $marker:begin -->"
end="<!-- $marker:end -->"

body=$(mktemp)
out=$(mktemp)
trap 'rm -f "$body" "$out"' EXIT
if grep -qxF "$begin" "$section"; then
    cat "$section" >"$body"
else
    { echo "$begin"; cat "$section"; echo "$end"; } >"$body"
fi

has_begin=$(grep -cxF "$begin" "$doc" || true)
has_end=$(grep -cxF "$end" "$doc" || true)
if [ "$has_begin" = 1 ] && [ "$has_end" = 1 ]; then
    awk -v b="$begin" -v e="$end" -v f="$body" '
        $0 == b { while ((getline line < f) > 0) print line; skip = 1; next }
        $0 == e && skip { skip = 0; next }
        !skip { print }' "$doc" >"$out"
elif [ "$has_begin" = 0 ] && [ "$has_end" = 0 ]; then
    { cat "$doc"; echo; cat "$body"; } >"$out"
else
    echo "bench-splice: $doc holds $has_begin '$begin' and $has_end '$end' lines" >&2
    exit 1
fi
cat "$out" >"$doc"
