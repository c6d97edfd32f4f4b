#!/bin/sh
# Writes the libFuzzer dictionary of fuzz_cql (tests/fuzz/cql.dict): the CQL keywords of
# cql/lang/lexer.h, the fuzz schema's names, the native functions, and literal forms, so
# mutations splice whole tokens instead of waiting for them letter by letter.
#   sh tests/fuzz/mkdict.sh > tests/fuzz/cql.dict
set -eu
echo '# CQL keywords (cql/lang/lexer.h KEYWORDS)'
sed -n 's/.*KEYWORDS(X)//; /X(/p' cql/lang/lexer.h | grep -o 'X([A-Z_]*,' |
    sed 's/X(\(.*\),/"\1"/' | sort -u
echo '# the fuzz schema (tests/fuzz/values.c, fuzz_cql.c)'
for w in all_types counters keyed ks addr k c c2 s n v c1 c3 street zip tags loc \
    a bi b bo de d f i ts u tx vi tu ip dt tm si ti du l st m fl fs fm tp ad fad ll mt sd \
    fsu tn mb ldu stu mip nest sf lts system_schema system local columns tables keyspaces; do
    echo "\"$w\""
done
echo '# functions and literal forms'
for w in now uuid token writetime ttl toJson fromJson toDate toTimestamp toUnixTimestamp \
    currentTimestamp minTimeuuid maxTimeuuid blobAsInt intAsBlob blobAsText textAsBlob \
    count max min sum avg NaN Infinity 0x 1h30m P1Y2M3DT4H5M6S "'2011-02-03 04:05:06+0000'" \
    "'::1'" "'127.0.0.1'" 123e4567-e89b-12d3-a456-426655440000 \
    50554d6e-29bb-11e5-b345-feff819cdc9f 9223372036854775807 -9223372036854775808 \
    2147483647 -2147483648 1e308 "'$\$x$\$'" "{}" "[]" "()" "?" ":name" ";" "," "=" "<=" ">=" \
    "!=" "+" "-" "[0]" ".zip" "IS NOT NULL" "ALLOW FILTERING" "PER PARTITION LIMIT" \
    "USING TTL" "USING TIMESTAMP" "IF NOT EXISTS" "IF EXISTS" "BEGIN BATCH" "APPLY BATCH" \
    "ORDER BY" "GROUP BY" "SELECT JSON" "INSERT INTO" "DEFAULT UNSET"; do
    printf '"%s"\n' "$w"
done
