#!/usr/bin/env bats
# order_wire_class: the wire classifier UDF inside the engine with the shipped config, its
# --explain mode, and the property test: every row it calls valid types exactly in ClickHouse.
load helpers

CASES=$ROOT/tests/fixtures/wire/cases.tsv
BUILD_DIR=${ODS_BUILD_DIR:-$ROOT/build}

@test "order_wire_class --help: usage on stdout, exit 0" {
    run_split "$BIN/order_wire_class" --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:* ]]
    [[ "$output" == *"--explain"* ]]
    [ -z "$stderr_text" ]
}

@test "order_wire_class: bad options exit 2 with one line on stderr" {
    for args in "--bogus" "--format" "--format JSON" "--arg-type Int32" "--rowbinary"; do
        # shellcheck disable=SC2086
        run_split "$BIN/order_wire_class" $args </dev/null
        [ "$status" -eq 2 ]
        [ -z "$output" ]
        [ "$(printf '%s\n' "$stderr_text" | wc -l)" -eq 1 ]
        [[ "$stderr_text" == order_wire_class:* ]]
    done
    run_split "$BIN/order_wire_class" --bogus
    [ "$stderr_text" = "order_wire_class: unknown option: --bogus (try --help)" ]
    run_split "$BIN/order_wire_class" --format JSON
    [ "$stderr_text" = "order_wire_class: bad value for --format: JSON (expected TabSeparated, RowBinary or RowBinaryWithNamesAndTypes)" ]
    run_split "$BIN/order_wire_class" --format
    [ "$stderr_text" = "order_wire_class: --format needs a value (try --help)" ]
}

@test "order_wire_class --version: the project's version, exit 0; the server's own arguments are unchanged" {
    run_split "$BIN/order_wire_class" --version </dev/null
    [ "$status" -eq 0 ]
    [ "$output" = "order_wire_class $(ods_version)" ]
    [ -z "$stderr_text" ]
    run_split chlocal -q "SELECT order_wire_class('{}'), order_wire_parse('{}').1"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'keyset_mismatch\tkeyset_mismatch')" ]
}

@test "the shipped config installs order_wire_class with a Nullable(String) argument" {
    [ -f "$ROOT/clickhouse-config/order_wire_function.xml" ]
    run_split chlocal -q "SELECT name FROM system.functions WHERE name = 'order_wire_class'"
    [ "$status" -eq 0 ]
    [ "$output" = "order_wire_class" ]
    run_split chlocal -q "SELECT order_wire_class(CAST(NULL AS Nullable(String))), order_wire_class(materialize(CAST(NULL AS Nullable(String))))"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'not_an_object\tnot_an_object')" ]
}

@test "a bare NULL literal (the engine sends it as Nullable(Nothing)) is not_an_object" {
    run_split chlocal -q "SELECT order_wire_class(NULL)"
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    [ "$output" = "not_an_object" ]
}

@test "every fixture case gets its contract class in the engine (shipped config)" {
    run_split chlocal --input-format TSV --structure 'expected String, raw String, note String' \
        -q "SELECT count(), countIf(order_wire_class(raw) = expected),
                   arrayStringConcat(groupArrayIf(note || ' => ' || order_wire_class(raw), order_wire_class(raw) != expected), '; ')
            FROM table FORMAT TSV" <"$CASES"
    [ "$status" -eq 0 ]
    local total ok bad
    IFS=$'\t' read -r total ok bad <<<"$output"
    echo "mismatches: $bad"
    [ "$total" -gt 250 ]
    [ "$total" -eq "$ok" ]
}

@test "fixture cases under every argument type the engine may send" {
    run_split chlocal --input-format TSV --structure 'expected String, raw String, note String' -q "
        SELECT count(),
               countIf(order_wire_class(raw) = expected),
               countIf(order_wire_class(toLowCardinality(raw)) = expected),
               countIf(order_wire_class(toNullable(raw)) = expected),
               countIf(order_wire_class(toLowCardinality(toNullable(raw))) = expected)
        FROM table FORMAT TSV" <"$CASES"
    [ "$status" -eq 0 ]
    local total a b c d
    read -r total a b c d <<<"$output"
    [ "$total" -gt 250 ]
    [ "$a" -eq "$total" ]
    [ "$b" -eq "$total" ]
    [ "$c" -eq "$total" ]
    [ "$d" -eq "$total" ]
    # FixedString(N) pads with NUL bytes: a padded valid object is not JSON any more.
    run_split chlocal -q "SELECT order_wire_class(toFixedString('{}', 2)), order_wire_class(toFixedString('{}', 3)),
                                 order_wire_class(if(number = 1, NULL, '{}')) FROM numbers(2) FORMAT TSV"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'keyset_mismatch\tnot_an_object\tkeyset_mismatch\nkeyset_mismatch\tnot_an_object\tnot_an_object')" ]
}

@test "tests/sql/native_wire_class.sql agrees with every fixture class, out-of-range numbers included" {
    # The native predicate once had a gap: the engine's parser refuses out-of-range numbers, so it
    # said not_an_object where the old contract said field_invalid. The contract now says
    # not_an_object too (issue 10): no gap is left, and those rows are all there and agree.
    run_split chlocal --input-format TSV --structure 'expected String, raw String, note String' \
        -q "$(<"$ROOT/tests/sql/native_wire_class.sql")
            SELECT count(),
                   countIf(native_wire_class(raw) = expected),
                   countIf(note LIKE '%(the engine refuses it)%'),
                   countIf(note LIKE '%(the engine refuses it)%' AND expected = 'not_an_object' AND native_wire_class(raw) = 'not_an_object'),
                   arrayStringConcat(groupArrayIf(note || ' => ' || native_wire_class(raw), native_wire_class(raw) != expected), '; ')
            FROM table FORMAT TSV" <"$CASES"
    [ "$status" -eq 0 ]
    local total same range range_same diffs
    IFS=$'\t' read -r total same range range_same diffs <<<"$output"
    echo "cases $total, same $same, out-of-range rows $range (agreeing: $range_same); differing: $diffs"
    [ "$total" -gt 250 ]
    [ "$same" -eq "$total" ]
    [ "$range" -ge 10 ]
    [ "$range_same" -eq "$range" ]
}

# Levels (docs/wire-contract.md): the root object is level 1, every value one level deeper than
# its container. `items` is level 2, so k arrays in `items` put a number at level k + 2.
ORDER_TMPL='{"order_id":"ORD-0001","user_id":1,"status":"paid","created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-01-01T00:00:00.000Z","items_total":"1.00","discount":"0.00","delivery":"0.00","total":"1.00","items":ITEMS,"snapshot_date":"2024-01-01"}'

@test "deep nesting: a value at level 1024 is accepted, 1025 refused, in the engine as by isValidJSON" {
    run_split chlocal --param_tmpl="$ORDER_TMPL" -q "
        WITH (items -> replaceOne({tmpl:String}, 'ITEMS', items)) AS doc,
             [doc(repeat('[', 1022) || '1' || repeat(']', 1022)),       -- 1 at level 1024
              doc(repeat('[', 1023) || repeat(']', 1023)),             -- [] at level 1024
              doc(repeat('[', 1023) || '1' || repeat(']', 1023)),       -- 1 at level 1025
              doc(repeat('[', 1024) || repeat(']', 1024)),             -- [] at level 1025
              doc(repeat('[', 100000) || repeat(']', 100000)),
              doc(repeat('[', 100000)),
              replaceOne(doc('[]'), '\"0.00\"', repeat('[', 2000) || repeat(']', 2000))] AS docs
        SELECT arrayStringConcat(arrayMap(d -> order_wire_class(d), docs), ','),
               arrayStringConcat(arrayMap(d -> toString(isValidJSON(d)), docs), ',')
        FORMAT TSV"
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(printf ',,not_an_object,not_an_object,not_an_object,not_an_object,not_an_object\t1,1,0,0,0,0,0')" ]
}

# Issue 10: the grid, 2 nestings x 6 innermost values x levels 1019-1026 of the innermost value
# (for {"k":1} the 1 sits one level deeper), each judged by the engine's isValidJSON.
@test "depth grid 1019-1026 (arrays, objects; 6 innermost values): '' exactly when isValidJSON" {
    run_split chlocal --param_tmpl="$ORDER_TMPL" -q "
        CREATE TABLE grid ENGINE = Memory AS
        SELECT nest, inner, level, level + (inner = '{\"k\":1}') AS deepest, doc,
               order_wire_class(doc) AS c, isValidJSON(doc) AS j
        FROM (SELECT nest, inner, level,
                     replaceOne({tmpl:String}, 'ITEMS', if(nest = 'array',
                         repeat('[', level - 2) || inner || repeat(']', level - 2),
                         '[' || repeat('{\"k\":', level - 3) || inner || repeat('}', level - 3) || ']')) AS doc
              FROM (SELECT arrayJoin(['array', 'object']) AS nest) AS a
              CROSS JOIN (SELECT arrayJoin(['1', '\"s\"', 'null', '{}', '[]', '{\"k\":1}']) AS inner) AS i
              CROSS JOIN (SELECT toUInt32(1019 + number) AS level FROM numbers(8)) AS l);
        SELECT count(), uniqExact(doc), countIf(j = 1), countIf(j = 0),
               countIf(c = if(j = 1, '', 'not_an_object')),
               countIf(j = (deepest <= 1024)),
               countIf(JSONLength(doc, 'items') = 1 AND j = 1)
        FROM grid FORMAT TSV;
        SELECT nest, inner, maxIf(level, j = 1), minIf(level, j = 0),
               arrayStringConcat(groupArrayIf(toString(level) || ':' || if(c = '', 'valid', c), c != if(j = 1, '', 'not_an_object')), ' ')
        FROM grid GROUP BY nest, inner ORDER BY nest, inner FORMAT TSV"
    echo "$stderr_text"
    printf '%s\n' "${lines[@]}"
    [ "$status" -eq 0 ]
    local total distinct valid refused agree doc_rule items_ok
    read -r total distinct valid refused agree doc_rule items_ok <<<"${lines[0]}"
    echo "# depth grid: $total documents, $valid valid and $refused refused by isValidJSON, classifier agrees on $agree" >&3
    [ "$total" -eq 96 ]
    # In objects, {"k":1} at level L is the same text as 1 at level L + 1: 7 documents coincide.
    [ "$distinct" -eq 89 ]
    [ "$valid" -gt 0 ]
    [ "$refused" -gt 0 ]
    [ "$agree" -eq 96 ]
    # The documented rule (a value may sit at level 1024 at the deepest) is the engine's.
    [ "$doc_rule" -eq 96 ]
    # The documents are what they claim: the engine sees one element in items when it parses.
    [ "$items_ok" -eq "$valid" ]
    [ "${#lines[@]}" -eq 13 ]
}

# Issue 10, repro 1: simdjson's skipping took a string followed by ':' for a key and switched
# validation off up to the next bracket. Every carrier below with any hidden stretch must be
# not_an_object (and the engine agrees it is not JSON); without the stretch it is what it was.
@test "issue 10 repros: invalid JSON hidden behind a string and a colon is not_an_object" {
    run_split chlocal -q "SELECT order_wire_class('{\"a\":\"b\":1]}'), isValidJSON('{\"a\":\"b\":1]}') FORMAT TSV"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'not_an_object\t0')" ]
    local repro=${ORDER_TMPL/'"order_id":"ORD-0001",'/'"order_id":"ORD-0001":tru],'}
    repro=${repro/ITEMS/[]}
    [[ "$repro" == '{"order_id":"ORD-0001":tru],"user_id":1,'* ]]
    run_split chlocal --param_doc="$repro" -q "SELECT order_wire_class({doc:String}), isValidJSON({doc:String}),
        order_wire_class(replaceOne({doc:String}, ':tru]', '')) FORMAT TSV"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'not_an_object\t0\t')" ]

    # Variants: carriers (HIDE right after a string value) x stretches to hide.
    cat >variants.sql <<'SQL'
CREATE TABLE v ENGINE = Memory AS
WITH (items -> replaceOne({tmpl:String}, 'ITEMS', items)) AS order_with,
[
    '{"a":"b"HIDE}',
    replaceOne(order_with('[]'), '"ORD-0001"', '"ORD-0001"HIDE'),        -- right after order_id's value
    order_with('[{"sku":"a"HIDE}]'),                                      -- inside an object in items
    order_with('[["x"HIDE]]'),                                            -- inside nested arrays
    replaceOne(order_with('[]'), '"2024-01-01"}', '"2024-01-01"HIDE}'),   -- after the last member's value
    order_with('[{"sku":"a","t":"x"HIDE,"qty":1}]')                       -- between members inside items
] AS carriers,
[':tru]', ':nul}', ':True]', ':fals]', ':tru', ':[tru]}', ':{"k":tru}]',                      -- bad literals
 ':01]', ':1.2.3]', ':-]', ':+1]', ':.5]', ':0x10]', ':NaN]',                                  -- bad numbers
 ':1e400]', ':18446744073709551616]', ':-9223372036854775809]', ':1.7976931348623159e308]',  -- out of range
 ':"\\x"]', ':"\\u12G4"]', ':"\\u12"]', ':"a\tb"]',                                          -- bad escapes, raw control
 ':"\\ud800"]', ':"\\udc00"]', ':"\\ud800\\u0041"]',                                          -- lone surrogates
 ':"\xED\xA0\x80"]', ':"\xFF"]',                                                              -- bad UTF-8
 ':1,"order_id":"x","extra":1]', ':1,"order_id":"x"}', ':"x","extra":1',                      -- extra and repeated keys
 ':' || repeat('[', 2000) || repeat(']', 2000) || ']', ':' || repeat('[', 2000) || ']',      -- deep nesting
 ':' || repeat('{"k":', 2000) || '1' || repeat('}', 2000),
 ':1', ':"x"', ':[]', ':{}', ':"b":1'] AS hides
SELECT ci, h, replaceOne(carriers[ci], 'HIDE', h) AS doc, replaceOne(carriers[ci], 'HIDE', '') AS plain
FROM (SELECT arrayJoin(range(1, 7)) AS ci) AS c CROSS JOIN (SELECT arrayJoin(hides) AS h) AS x;
SELECT count(), uniqExact(doc), countIf(position(doc, 'HIDE') = 0 AND doc != plain),
       countIf(order_wire_class(doc) = 'not_an_object'), countIf(isValidJSON(doc) = 0),
       arrayStringConcat(groupArrayIf(toString(ci) || ' ' || substring(h, 1, 40) || ' => ' || order_wire_class(doc), order_wire_class(doc) != 'not_an_object'), '; ')
FROM v FORMAT TSV;
SELECT arrayStringConcat(groupArray(if(c = '', 'valid', c)), ',') FROM (SELECT ci, any(order_wire_class(plain)) AS c, min(isValidJSON(plain)) AS j FROM v GROUP BY ci ORDER BY ci) WHERE j = 1 FORMAT TSV;
SELECT doc FROM v ORDER BY ci, h INTO OUTFILE 'variants.rb' FORMAT RowBinary;
SQL
    run_split chlocal --param_tmpl="$ORDER_TMPL" --queries-file variants.sql
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    local total distinct placed nao notjson wrong
    IFS=$'\t' read -r total distinct placed nao notjson wrong <<<"${lines[0]}"
    echo "variants $total, not_an_object $nao, not JSON to the engine $notjson; wrong: $wrong"
    echo "# issue 10 variants: $nao of $total hidden stretches not_an_object" >&3
    [ "$total" -eq 228 ]
    [ "$distinct" -eq "$total" ]
    [ "$placed" -eq "$total" ]
    [ "$notjson" -eq "$total" ]
    [ "$nao" -eq "$total" ]
    # The carriers alone: all valid JSON, the orders valid, the small one a keyset mismatch.
    [ "${lines[1]}" = "keyset_mismatch,valid,valid,valid,valid,valid" ]
    # --explain takes the same path to the same answer.
    [ "$("$BIN/order_wire_class" --explain --rowbinary <variants.rb | cut -f1 | sort | uniq -c | awk '{print $1, $2}')" = "228 not_an_object" ]
}

@test "--explain: class, field and reason per line; classes equal the UDF's" {
    msg='{"order_id":"o-1","user_id":42,"status":"paid","created_at":"2026-02-30T00:00:00.000Z","updated_at":"2024-03-01T00:00:00.000Z","items_total":"10.00","discount":"0.00","delivery":"1.50","total":"11.50","items":[],"snapshot_date":"2024-03-01"}'
    run_split bash -c 'printf "%s\n%s\n%s\n" "$1" "{}" "[tru]" | "$2" --explain' _ "$msg" "$BIN/order_wire_class"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(printf 'field_invalid\tcreated_at\tday 30 does not exist in 2026-02')" ]
    [ "${lines[1]}" = "$(printf 'keyset_mismatch\t\tmissing key "order_id"')" ]
    [[ "${lines[2]}" == "$(printf 'not_an_object\t\t')"* ]]
    [ "${#lines[@]}" -eq 3 ]
    # RowBinary input: every fixture case (tabs, newlines, NUL, bad UTF-8 inside) explained
    # with exactly the class the engine got from the UDF, one line each.
    chlocal --input-format TSV --structure 'expected String, raw String, note String' \
        -q "SELECT raw FROM table FORMAT RowBinary" <"$CASES" >cases.rb
    "$BIN/order_wire_class" --explain --rowbinary <cases.rb >explained.tsv
    [ "$(wc -l <explained.tsv)" -eq "$(wc -l <"$CASES")" ]
    diff <(cut -f1 explained.tsv) <(cut -f1 "$CASES")
    # A valid line says so; field_invalid lines always name the field.
    awk -F'\t' '$1 == "field_invalid" && $2 == "" { exit 1 } $1 == "" && $3 != "valid" { exit 1 }' explained.tsv
}

@test "--explain --rowbinary: a truncated frame is one line on stderr, exit 1" {
    printf '\x05ab' >trunc.rb
    run_split "$BIN/order_wire_class" --explain --rowbinary <trunc.rb
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == order_wire_class:* ]]
}

# The property test from the issue: on 120 000 generated rows (half valid by construction, half
# near misses), every row the UDF calls '' converts with the contract's own throwing SQL
# (lib/wire_contract.c, printed by wire_fields) and each typed value, printed back in wire form,
# equals the original JSON token byte for byte. One query; mismatches must be 0.
@test "property: every '' row types exactly (120000 generated rows)" {
    local checks=() name rule type sql back
    while IFS=$'\t' read -r name rule type sql; do
        # How a typed value V prints back as its JSON token.
        case $rule in
            TEXT) back="toJSONString(toString(V))" ;;
            USER_ID) back="toString(V)" ;;
            TIMESTAMP) back="'\"' || replaceOne(toString(V), ' ', 'T') || 'Z\"'" ;;
            MONEY) back="'\"' || toDecimalString(V, 2) || '\"'" ;;
            DATE) back="'\"' || toString(V) || '\"'" ;;
            # The engine rewrites numbers in JSON it re-prints (1.5e3 -> 1500): canonical items
            # must come back byte for byte, the others must at least parse in the engine.
            ITEMS) back="if(items_canon, V, JSONExtractRaw(raw, '$name'))" ;;
            *) echo "unknown rule $rule for $name ($type)"; return 1 ;;
        esac
        if [ "$rule" = ITEMS ]; then
            checks+=("(${back//V/($sql)} = if(items_canon, items_text, JSONExtractRaw(raw, '$name')) AND isValidJSON($sql))")
        else
            checks+=("(${back//V/($sql)} = JSONExtractRaw(raw, '$name'))")
        fi
    done < <("$BUILD_DIR/tests/helpers/wire_fields")
    [ "${#checks[@]}" -eq 11 ]
    local ok
    ok=$(IFS='+'; echo "${checks[*]}")
    {
        cat "$ROOT/tests/fixtures/wire/property_gen.sql"
        echo "CREATE TABLE cls ENGINE = Memory AS SELECT *, order_wire_class(raw) AS c FROM gen;"
        echo "SELECT count(), countIf(c = ''), countIf(pristine AND c != ''), countIf(c NOT IN ('', 'not_an_object', 'keyset_mismatch', 'field_invalid')) FROM cls FORMAT TSV;"
        echo "SELECT count(), countIf(ok != 11), countIf(NOT isValidJSON(raw)) FROM (SELECT raw, $ok AS ok FROM (SELECT * FROM cls WHERE c = '')) FORMAT TSV;"
    } >property.sql
    run_split chlocal --param_rows=120000 --queries-file property.sql
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    local total valid pristine_bad odd vtotal mism notjson
    read -r total valid pristine_bad odd <<<"${lines[0]}"
    read -r vtotal mism notjson <<<"${lines[1]}"
    echo "rows $total, valid $valid, pristine refused $pristine_bad, typed mismatches $mism, not JSON to the engine $notjson"
    [ "$total" -eq 120000 ]
    [ "$odd" -eq 0 ]
    [ "$pristine_bad" -eq 0 ]   # valid by construction => ''
    [ "$valid" -ge 60000 ]      # the '' class is large: all pristine rows and some near misses
    [ "$vtotal" -eq "$valid" ]
    [ "$mism" -eq 0 ]
    [ "$notjson" -eq 0 ]
}

# The inputs of tests/sql/wire_mix.sql in the working directory: every fuzz corpus, the fixture
# cases, and a dirty orders-gen stream (6000 messages, 30 % dirty: every dirty kind, empty ones
# too). The SQL adds MIX_MUTANTS mutants of the valid orders among them.
MIX_MUTANTS=20000
make_mix_inputs() {
    ln -s "$ROOT/tests/fuzz/corpus" fuzz
    cp "$CASES" cases.tsv
    "$BIN/orders-gen" --orders 3000 --days 3 --dirty 0.3 --seed 10 --format rowbinary --labels gen.labels >gen.bin
}

# Issue 10, the differential check: the contract says a text is not_an_object exactly when the
# engine's isValidJSON refuses it, but for a root that is not an object and a leading BOM.
@test "differential: order_wire_class vs the engine's isValidJSON on the fuzz corpora and a generated mix" {
    make_mix_inputs
    local files cases gen
    files=$(find -L fuzz -type f -size +0c | wc -l)
    cases=$(wc -l <cases.tsv)
    gen=$(wc -l <gen.labels)
    {
        cat "$ROOT/tests/sql/wire_mix.sql"
        cat <<'SQL'
CREATE TABLE r ENGINE = Memory AS
SELECT src, n, raw, order_wire_class(raw) AS c, isValidJSON(raw) = 1 AS j,
       JSONType(raw) = 'Object' AS obj, startsWith(raw, '\xEF\xBB\xBF') AS bom
FROM mix;
-- per source, then all: rows, each class, valid to the engine, and the violations:
-- passed_not_json: classified '', keyset_mismatch or field_invalid but refused by the engine;
-- refused_object: not_an_object though the engine takes it as an object without a BOM;
-- passed_not_object: not classified not_an_object though the root is no object or has a BOM
SELECT if(grouping(src) = 1, 'all', src), count(),
       countIf(c = ''), countIf(c = 'keyset_mismatch'), countIf(c = 'field_invalid'), countIf(c = 'not_an_object'),
       countIf(j), countIf(c = 'not_an_object' AND j),
       countIf(c NOT IN ('', 'keyset_mismatch', 'field_invalid', 'not_an_object')),
       countIf(c IN ('', 'keyset_mismatch', 'field_invalid') AND NOT j),
       countIf(c = 'not_an_object' AND j AND obj AND NOT bom),
       countIf(c != 'not_an_object' AND (NOT obj OR bom))
FROM r GROUP BY GROUPING SETS ((src), ()) ORDER BY grouping(src), src FORMAT TSV;
SELECT 'DISAGREE', src, n, c, j, hex(raw) FROM r
WHERE (c IN ('', 'keyset_mismatch', 'field_invalid') AND NOT j) OR (c = 'not_an_object' AND j AND obj AND NOT bom)
   OR (c != 'not_an_object' AND (NOT obj OR bom))
ORDER BY src, n LIMIT 10 FORMAT TSV;
SQL
    } >differential.sql
    run_split chlocal --param_seed=1 --param_mutants="$MIX_MUTANTS" --queries-file differential.sql
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    local line src rows valid keyset field nao json nao_json odd passed_not_json refused_object passed_not_object
    declare -A count
    echo "# differential (source, rows, '', keyset_mismatch, field_invalid, not_an_object, isValidJSON, not_an_object but JSON):" >&3
    for line in "${lines[@]}"; do
        echo "$line"
        [[ "$line" != DISAGREE* ]] || continue
        IFS=$'\t' read -r src rows valid keyset field nao json nao_json odd passed_not_json refused_object passed_not_object <<<"$line"
        echo "#   $src $rows $valid $keyset $field $nao $json $nao_json" >&3
        count[$src]=$rows
    done
    # The last line is "all"; the violations are counted there and must be zero.
    [ "$src" = all ]
    [ "$odd" -eq 0 ]
    [ "$passed_not_json" -eq 0 ]
    [ "$refused_object" -eq 0 ]
    [ "$passed_not_object" -eq 0 ]
    [ "${#lines[@]}" -eq 5 ]
    # Every input was read, and the comparison is not vacuous: thousands of rows on each side,
    # every class, and the two exceptions (non-object roots, BOM) do occur.
    [ "${count[fuzz]}" -eq "$files" ]
    [ "${count[cases]}" -eq "$cases" ]
    [ "${count[gen]}" -eq "$gen" ]
    [ "${count[mutant]}" -eq "$MIX_MUTANTS" ]
    [ "$files" -ge 60 ]
    [ "$rows" -ge 26000 ]
    [ "$json" -ge 10000 ]
    [ "$nao" -ge 5000 ]
    [ "$valid" -ge 5000 ]
    [ "$keyset" -ge 500 ]
    [ "$field" -ge 500 ]
    [ "$nao_json" -ge 50 ]
}

# Issue 10, the promise end to end: every row classified '' from all corpora, with a share of the
# rejected ones and the empty messages, loaded as one Kafka batch exactly as scripts/demo does
# and moved by the real transition: it must succeed, and every received message must land in
# exactly one table. There is no transition ledger: "received" is what scripts/demo calls it, the
# staged rows of the load, i.e. the batch's messages minus the empty ones the loader skips.
@test "end to end: every '' row of all corpora goes through the real transition; accepted + rejected = received" {
    make_mix_inputs
    {
        cat "$ROOT/tests/sql/wire_mix.sql"
        cat <<'SQL'
CREATE TABLE r ENGINE = Memory AS
SELECT src, n, raw, order_wire_class(raw) AS c FROM mix
WHERE c = '' OR raw = '' OR cityHash64(raw) % 4 = 0;
SELECT raw FROM r ORDER BY cityHash64(raw), raw INTO OUTFILE 'load.bin' FORMAT RowBinary;
SELECT count(), countIf(raw = ''), countIf(c = ''), countIf(c != '' AND raw != ''),
       countIf(c = 'not_an_object' AND raw != ''), countIf(c = 'keyset_mismatch'), countIf(c = 'field_invalid')
FROM r FORMAT TSV;
SELECT src, countIf(c = '') FROM r GROUP BY src ORDER BY src FORMAT TSV;
SQL
    } >collect.sql
    run_split chlocal --param_seed=1 --param_mutants="$MIX_MUTANTS" --queries-file collect.sql
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    local e_msgs e_empty e_valid e_rejected e_nao e_keyset e_field
    IFS=$'\t' read -r e_msgs e_empty e_valid e_rejected e_nao e_keyset e_field <<<"${lines[0]}"
    printf '%s\n' "${lines[@]}"
    # '' rows from every source
    [ "${lines[1]}" != "" ]
    [ "$(printf '%s\n' "${lines[@]:1}" | awk -F'\t' '$2 > 0' | cut -f1 | tr '\n' ' ')" = "cases fuzz gen mutant " ]

    # Exactly as scripts/demo: schema, one batch into stg (empty messages skipped), transition.
    "$BIN/ods-ddl" schema >schema.sql
    # --store every: every accepted message is typed and has its fate (stored, or unchanged: a
    # copy of a version the load holds), without a prior to compare with
    "$BIN/ods-ddl" transition --store every >transition.sql
    run_split chlocal --path db --queries-file schema.sql
    [ "$status" -eq 0 ]
    local id=issue10-e2e
    run_split chlocal --path db --input-format RowBinary --structure 'raw String' \
        -q "SELECT '$id', count(), countIf(raw = '') FROM table FORMAT TSV" <load.bin
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" >generated.tsv
    run_split chlocal --path db --input-format RowBinary --structure 'raw String' --param_load_id="$id" --param_day=2026-03-01 -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
        SELECT raw, 'orders.snapshot.v1', p, o, ts, '', {load_id:String}, now64(3, 'UTC')
        FROM (SELECT raw, rowNumberInAllBlocks() AS n, n % 3 AS p,
                     (SELECT count() FROM stg.orders_raw) + n AS o,
                     toDateTime64({day:String}, 3, 'UTC') + toIntervalSecond(n % 86400) AS ts
              FROM table WHERE raw != '')" <load.bin
    [ "$status" -eq 0 ]
    run_split chlocal --path db --param_load_id="$id" --queries-file transition.sql
    echo "$stderr_text"
    [ "$status" -eq 0 ]

    # The demo's accounting, for this load (its versions sit in the hot table, committed and
    # visible, until the next load's transition folds them into order_snapshot_rep).
    run_split chlocal --path db --param_load_id="$id" -q "
        SELECT messages, empty_skipped,
               (SELECT count() FROM stg.orders_raw WHERE _load_id = {load_id:String}) AS received,
               (SELECT any(accepted) FROM ods.order_loads WHERE _load_id = {load_id:String}) AS accepted,
               (SELECT any(stored) + any(unchanged) + any(stale) FROM ods.order_loads WHERE _load_id = {load_id:String}) AS fated,
               (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = {load_id:String}) AS hot,
               (SELECT any(stored) FROM ods.order_loads WHERE _load_id = {load_id:String}) AS stored,
               (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = {load_id:String}) AS rejected,
               (SELECT countIf(error_class = 'not_an_object') FROM ods.order_snapshot_errors WHERE _load_id = {load_id:String}),
               (SELECT countIf(error_class = 'keyset_mismatch') FROM ods.order_snapshot_errors WHERE _load_id = {load_id:String}),
               (SELECT countIf(error_class = 'field_invalid') FROM ods.order_snapshot_errors WHERE _load_id = {load_id:String})
        FROM (SELECT c2 AS messages, c3 AS empty_skipped FROM file('generated.tsv', TSV) WHERE c1 = {load_id:String})
        FORMAT TSV"
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    local messages empty received accepted fated hot stored rejected nao keyset field
    IFS=$'\t' read -r messages empty received accepted fated hot stored rejected nao keyset field <<<"$output"
    [ "$fated" -eq "$accepted" ]
    [ "$hot" -eq "$stored" ]
    [ "$stored" -ge 1000 ]
    echo "messages $messages, empty skipped $empty, received $received, accepted $accepted, rejected $rejected ($nao / $keyset / $field)"
    echo "# end to end: $messages messages, $empty empty skipped, $received received = $accepted accepted + $rejected rejected ($nao not_an_object, $keyset keyset_mismatch, $field field_invalid)" >&3
    [ "$messages" -eq "$e_msgs" ]
    [ "$empty" -eq "$e_empty" ]
    [ "$empty" -ge 1 ]
    [ "$received" -eq $((messages - empty)) ]
    [ "$((accepted + rejected))" -eq "$received" ]
    # Each branch got exactly the rows the classifier chose for it before the load.
    [ "$accepted" -eq "$e_valid" ]
    [ "$rejected" -eq "$e_rejected" ]
    [ "$nao" -eq "$e_nao" ]
    [ "$keyset" -eq "$e_keyset" ]
    [ "$field" -eq "$e_field" ]
    [ "$accepted" -ge 5000 ]
    [ "$rejected" -ge 1000 ]

    # An empty raw that reaches staging some other way is not dropped: it is rejected.
    run_split chlocal --path db --param_load_id=issue10-empty -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
        VALUES ('', 'orders.snapshot.v1', 0, 1000000, NULL, '', {load_id:String}, now64(3, 'UTC'))"
    [ "$status" -eq 0 ]
    run_split chlocal --path db --param_load_id=issue10-empty --queries-file transition.sql
    [ "$status" -eq 0 ]
    run_split chlocal --path db --param_load_id=issue10-empty -q "
        SELECT (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = {load_id:String}),
               (SELECT groupArray(error_class) FROM ods.order_snapshot_errors WHERE _load_id = {load_id:String} AND raw = '')
        FORMAT TSV"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf "0\t['not_an_object']")" ]
}
