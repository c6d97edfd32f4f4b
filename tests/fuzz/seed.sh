#!/bin/sh
# Writes the seed inputs of every fuzz target into DIR/NAME/ (make fuzz-seed merges them
# into tests/fuzz/corpus/NAME/, keeping only those that add coverage):
#   cql      every statement of tests/cql/*.cql, runs of five consecutive ones (a table
#            made, written and read), and statements on the fuzz schema (fuzz_cql.c)
#   literal  literal, string and JSON texts for each type and mode
#   bind, key, row   each type (or mode) with a few byte patterns
#   frame    requests of each opcode and version, a header, a segment, a body
# Input layouts are described at the top of each tests/fuzz/fuzz_NAME.c.
set -eu
out=$1
mkdir -p "$out/cql" "$out/literal" "$out/bind" "$out/key" "$out/row" "$out/frame"

# ---- cql ----
for f in tests/cql/*.cql; do
    base=$(basename "$f" .cql)
    awk -v dir="$out/cql" -v base="$base" '
        /^--/ || /^[ \t]*$/ { next }
        { stmt = stmt $0 "\n" }
        /;[ \t]*$/ {
            n++
            print stmt > (dir "/" base "-" n)
            close(dir "/" base "-" n)
            window[n % 5] = stmt
            if (n >= 5) {
                w = dir "/" base "-run" n
                for (i = n - 4; i <= n; i++) printf "%s", window[i % 5] > w
                close(w)
            }
            stmt = ""
        }' "$f"
done
i=0
while IFS= read -r line; do
    i=$((i + 1))
    printf '%s\n' "$line" >"$out/cql/schema-$i"
done <<'EOF'
SELECT * FROM all_types;
SELECT JSON * FROM all_types WHERE k = 1;
SELECT k, c, c2, s, toJson(ad), toJson(tn), writetime(i), ttl(l) FROM all_types;
SELECT CAST(de AS text), CAST(d AS text), CAST(f AS int), CAST(vi AS bigint) FROM all_types;
SELECT * FROM all_types WHERE k = 1 AND c > '' ORDER BY c ASC;
SELECT * FROM all_types WHERE k IN (1, 2, 3) AND c IN ('a', 'z') AND c2 >= -1;
SELECT DISTINCT k, s FROM all_types;
SELECT count(*), max(i), min(tx), sum(bi), avg(d) FROM all_types;
SELECT * FROM all_types WHERE l CONTAINS 1 ALLOW FILTERING;
SELECT * FROM all_types WHERE m CONTAINS KEY 'k' ALLOW FILTERING;
SELECT * FROM all_types WHERE token(k) > -100 LIMIT 2;
SELECT k, c, c2, blobAsText(b), intAsBlob(i), toDate(ts), toTimestamp(tu) FROM all_types;
SELECT * FROM keyed WHERE k = (1, 'a') AND c1 = {street: 'x', zip: 2};
SELECT * FROM keyed WHERE k = (1, 'a') AND (c1, c2) > ({street: 'x'}, [1]);
SELECT n FROM counters WHERE k = 1;
UPDATE counters SET n = n + 9223372036854775807 WHERE k = 1 AND c = 1;
UPDATE all_types SET l = [4] + l, l[0] = 9, st = st - {'x'}, m = m + {'z': 3} WHERE k = 1 AND c = 'a' AND c2 = 1;
UPDATE all_types SET ad.zip = 5, ad.street = null WHERE k = 1 AND c = 'a' AND c2 = 1;
UPDATE all_types SET i = 1 WHERE k = 1 AND c = 'a' AND c2 = 1 IF i = -2147483648 AND l[0] = 1;
INSERT INTO all_types (k, c, c2, du) VALUES (4, 'd', 0, -P1Y2M3DT4H5M6.789S) USING TTL 10 AND TIMESTAMP 123;
INSERT INTO all_types JSON '{"k": 5, "c": "j", "c2": 1, "tn": [1, "1.5", "2020-01-01 00:00:00.000Z", true], "ad": {"zip": 1}}';
INSERT INTO all_types (k, c, c2, tx) VALUES (6, 'b', 0, 'x') IF NOT EXISTS;
DELETE l[1], m['k'], ad.zip FROM all_types WHERE k = 1 AND c = 'a' AND c2 = 1;
DELETE FROM all_types WHERE k = 1 AND c >= 'a' AND c < 'b';
BEGIN BATCH INSERT INTO all_types (k, c, c2, i) VALUES (7, 'a', 0, 1); UPDATE all_types SET s = 2 WHERE k = 7; APPLY BATCH;
BEGIN COUNTER BATCH UPDATE counters SET n = n + 1 WHERE k = 2 AND c = 0; APPLY BATCH;
SELECT * FROM all_types WHERE k = ? AND c = ? AND c2 = ?;
INSERT INTO all_types (k, c, c2, tp, fad, mt) VALUES (?, ?, ?, ?, ?, ?);
ALTER TABLE all_types ADD extra list<frozen<addr>>;
ALTER TYPE addr ADD more text;
CREATE TABLE t2 (a int, b frozen<map<text, frozen<list<int>>>>, c duration, PRIMARY KEY (a, b));
DROP TABLE keyed;
TRUNCATE all_types;
SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks';
SELECT * FROM system.local;
EOF

# ---- literal: type byte, mode byte (0 literal, 1 string, 2 JSON, 3 INSERT JSON), text ----
n_types=41
t=0
while [ $t -lt $n_types ]; do
    m=0
    while [ $m -lt 4 ]; do
        j=0
        while IFS= read -r text; do
            j=$((j + 1))
            { printf "\\$(printf %o $t)\\$(printf %o $m)"; printf '%s' "$text"; } \
                >"$out/literal/t$t-m$m-$j"
        done <<'EOF'
42
-9223372036854775808
1.5e-10
NaN
'2011-02-03 04:05:06.789+0100'
'08:12:54.123456789'
'-1:2'
0xcafe00
123e4567-e89b-12d3-a456-426655440000
1h30m
P1Y2M3DT4H5M6S
true
'::ffff:1.2.3.4'
[1, 2, 3]
{'a', 'b'}
{'k': 1, 'j': 2}
(1, 'two', 3.5)
{street: 'x', zip: 1, tags: {'t'}, loc: (1.0, 2.0)}
[[1], [2, 3]]
{1: ('a', 2)}
"text"
[1, "2", null]
{"street": "s", "zip": "7"}
{"a": 1, "bi": "12", "ts": 1299038700000, "l": [1, 2], "ad": {"zip": 3}}
12345678901234567890123456789
-0.000123E+45
''
(int) ?
blobAsInt(0x00000001)
[?, ?]
EOF
        m=$((m + 1))
    done
    t=$((t + 1))
done

# ---- bind, key, row: a choice byte, a mode byte, then byte patterns ----
patterns='\001\003\000\000\000\007\002ab\001\000\000\000\004\001\001\011
\000\000\000\002\000\000\000\001\052\000\000\000\001\053\377\377\377\377
\003\303\251\000\001\200\000\000\000\000\000\000\001\176\177\200\201'
c=0
while [ $c -lt $n_types ]; do
    m=0
    while [ $m -lt 4 ]; do
        j=0
        printf '%s\n' "$patterns" | while IFS= read -r p; do
            j=$((j + 1))
            { printf "\\$(printf %o $c)\\$(printf %o $m)"; printf "$p"; } >"$out/bind/c$c-m$m-$j"
            { printf "\\$(printf %o $c)\\$(printf %o $m)"; printf "$p"; } >"$out/key/t$c-f$m-$j"
        done
        m=$((m + 1))
    done
    c=$((c + 1))
done
m=0
while [ $m -lt 4 ]; do
    j=0
    printf '%s\n' "$patterns" | while IFS= read -r p; do
        j=$((j + 1))
        { printf "\\$(printf %o $m)"; printf "$p"; } >"$out/row/m$m-$j"
    done
    m=$((m + 1))
done

# ---- frame: a mode byte, then a request (version, opcode, flags, body), a header, a
#      segment or a compressed body, each written out byte by byte ----
printf '\000\001\007\000\000\000\000\033\123\105\114\105\103\124\040\052\040\106\122\117\115\040\164\040\127\110\105\122\105\040\153\040\075\040\077\000\001\005\000\001\000\000\000\004\000\000\000\052\000\000\000\144' >"$out/frame/query-v4"
printf '\000\002\007\000\000\000\000\017\123\105\114\105\103\124\040\052\040\106\122\117\115\040\164\000\001\000\000\001\377\000\001\000\001\156\000\000\000\001\170\000\000\000\012\000\000\000\002\160\163\000\010\000\000\000\000\000\000\000\001\000\002\153\163\000\000\000\005' >"$out/frame/query-v5"
printf '\000\001\001\000\000\002\000\013\103\121\114\137\126\105\122\123\111\117\116\000\005\063\056\060\056\060\000\013\103\117\115\120\122\105\123\123\111\117\116\000\003\154\172\064' >"$out/frame/startup"
printf '\000\002\012\000\000\002\111\104\000\002\115\104\000\001\000\000\000\003\000\001\000\000\000\001\166' >"$out/frame/execute-v5"
printf '\000\002\011\000\000\000\000\010\123\105\114\105\103\124\040\061\000\000\000\001\000\002\153\163' >"$out/frame/prepare-v5"
printf '\000\001\015\004\000\001\000\001\153\000\000\000\001\166\001\000\002\000\000\000\000\034\111\116\123\105\122\124\040\111\116\124\117\040\164\040\050\153\051\040\126\101\114\125\105\123\040\050\061\051\000\000\001\000\003\120\111\104\000\001\000\000\000\001\170\000\004\060\000\011\000\000\000\000\000\000\000\052' >"$out/frame/batch-v4"
printf '\000\001\013\000\000\001\000\015\123\103\110\105\115\101\137\103\110\101\116\107\105' >"$out/frame/register"
printf '\000\001\017\000\000\000\000\024\000\143\141\163\163\141\156\144\162\141\000\143\141\163\163\141\156\144\162\141' >"$out/frame/auth-response"
# responses, as a client reads them
printf '\000\001\010\000\000\000\000\002\000\000\000\001\000\000\000\001\000\001\153\000\001\164\000\001\143\000\011\000\000\000\001\000\000\000\004\000\000\000\007' >"$out/frame/result-rows-v4"
printf '\000\002\010\000\000\000\000\004\000\002\111\104\000\002\115\104\000\000\000\001\000\000\000\001\000\000\000\001\000\000\000\001\153\000\001\164\000\001\143\000\040\000\060\000\001\153\000\001\165\000\001\000\001\146\000\015\000\000\000\004\000\000\000\000' >"$out/frame/result-prepared-v5"
printf '\000\001\000\000\000\000\021\000\000\007\164\151\155\145\157\165\164\000\001\000\000\000\000\000\000\000\001\000\006\123\111\115\120\114\105' >"$out/frame/error-write-timeout"
printf '\000\001\014\000\000\015\123\103\110\105\115\101\137\103\110\101\116\107\105\000\007\103\122\105\101\124\105\104\000\005\124\101\102\114\105\000\002\153\163\000\001\164' >"$out/frame/event-schema"
printf '\001\004\000\000\001\007\000\000\000\020' >"$out/frame/header"
printf '\002\000\005\000\002\031\231\232\150\145\154\154\157\164\200\016\266' >"$out/frame/segment"
printf '\003\001\005\020\150\145\154\154\157' >"$out/frame/body-snappy"
