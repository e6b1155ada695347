#!/usr/bin/env bats
# proto: the executable-UDF protocol layer inside the engine: every format x executable/pool x
# chunk header x argument type, decoded bytes compared with the engine's own hex(); plus bad input.
load helpers

setup_file() {
    export MATRIX_DIR="$BATS_FILE_TMPDIR/udf"
    mkdir -p "$MATRIX_DIR"
    "$ROOT/tests/helpers/gen-matrix-configs.sh" "$MATRIX_DIR/matrix_function.xml"
    cp "$ROOT/clickhouse-config/order_wire_function.xml" "$MATRIX_DIR/"
}

mchlocal() { chlocal --udf-dir "$TEST_UDFS" --udf-config "$MATRIX_DIR/*_function.xml" "$@"; }

# The mixed rows: NULL, '', tabs, newlines, backslashes, NUL bytes, invalid UTF-8, quotes, every
# C0 control, 16 kB values, one 16 MiB row (not a constant: the engine would fold the UDF call at
# analysis time, several times); several blocks (the caller sets max_block_size).
ROWS_SQL="
SELECT number AS id, multiIf(
    number % 13 = 0, NULL,
    number % 13 = 1, '',
    number % 13 = 2, concat('tab\\there\\nnewline\\\\back', toString(number)),
    number % 13 = 3, concat('nul', char(0), 'byte', char(0)),
    number % 13 = 4, concat(unhex('C328FFFEC0AFEDA080'), toString(number)),
    number % 13 = 5, '\\\\N',
    number % 13 = 6, 'quote''s \"dq\" \`bq\` \\\\q',
    number % 13 = 7, repeat(concat('x', toString(number)), 2000),
    number % 13 = 8, '[''a'',NULL]',
    number % 13 = 9, arrayStringConcat(arrayMap(i -> char(i), range(1, 32))),
    number % 13 = 10, concat('{\"order_id\":\"o-', toString(number), '\"}'),
    number % 13 = 11, char(number % 256),
    concat(toString(number), char(127), 'é')) AS x
FROM numbers(1300)
UNION ALL SELECT 100000 + number, concat('{', repeat(repeat(concat('a\\t\\n', char(number)), 4096), 1024))
    FROM numbers(1)"

# args_sql ROWS: the argument in every type the matrix covers, and arrays of them. The 16 MiB row
# goes through String and Nullable(String) only (elsewhere 'big'), to keep the run short.
args_sql() {
    echo "SELECT id, x, if(length(x) > 1000000, 'big', x) AS y,
    ifNull(x, '') AS v_s, x AS v_n,
    toLowCardinality(ifNull(y, '')) AS v_ls, toLowCardinality(y) AS v_ln,
    toFixedString(substring(ifNull(x, ''), 1, 8), 8) AS v_f8,
    if(id % 17 = 5, CAST([] AS Array(Nullable(String))),
       [y, NULL, concat(substring(ifNull(y, ''), 1, 100), '|'), '']) AS a_n,
    arrayMap(i -> ifNull(i, ''), a_n) AS a_s,
    CAST(a_s AS Array(LowCardinality(String))) AS a_ls,
    CAST(a_n AS Array(LowCardinality(Nullable(String)))) AS a_ln
FROM ($1)"
}

# What proto_echo must answer, computed by the engine.
d() { echo "if(isNull($1), 'NULL', concat(toString(length($1)), ':', hex($1)))"; }
da() { echo "concat('[', arrayStringConcat(arrayMap(i -> $(d i), $1), ';'), ']')"; }

# check_counts: $output is TSVWithNames; every column must equal the first (the row count),
# except info_* columns.
check_counts() {
    local names values i bad=0
    IFS=$'\t' read -r -a names <<<"$(sed -n 1p <<<"$output")"
    IFS=$'\t' read -r -a values <<<"$(sed -n 2p <<<"$output")"
    [ "${#names[@]}" -gt 1 ] || { echo "no result: $output $stderr_text"; return 1; }
    [ "${values[0]}" -gt 1000 ] || { echo "too few rows: ${values[0]}"; return 1; }
    for i in "${!names[@]}"; do
        [[ ${names[$i]} == info_* ]] && continue
        if [ "${values[$i]}" != "${values[0]}" ]; then
            echo "${names[$i]}: ${values[$i]} of ${values[0]} rows right"
            bad=1
        fi
    done
    return $bad
}

# echo_matrix F M C: one query checks every argument type through the functions of that cell.
echo_matrix() {
    local f=$1 m=$2 c=$3 cols
    if [ "$f" = rb ]; then
        local p="e_rb_${m}_${c}" a="a_rb_${m}_${c}" r="r_rb_${m}_${c}"
        cols="countIf(${r}_s(v_s) = v_s) AS RawString,
              countIf(${r}_n(v_n) = ifNull(v_n, '')) AS RawNullable,
              countIf(${p}_s(v_s) = $(d v_s)) AS String,
              countIf(${p}_n(v_n) = $(d v_n)) AS Nullable,
              countIf(${p}_s(v_ls) = $(d v_ls)) AS LowCardinality,
              countIf(${p}_n(v_ln) = $(d v_ln)) AS LowCardinalityNullable,
              countIf(${p}_f8(v_f8) = $(d v_f8)) AS FixedString8,
              countIf(${a}_s(a_s) = $(da a_s)) AS ArrayString,
              countIf(${a}_n(a_n) = $(da a_n)) AS ArrayNullable,
              countIf(${a}_ls(a_ls) = $(da a_ls)) AS ArrayLowCardinality,
              countIf(${a}_ln(a_ln) = $(da a_ln)) AS ArrayLowCardinalityNullable"
    else
        local e="e_${f}_${m}_${c}" a="a_${f}_${m}_${c}" r="r_${f}_${m}_${c}"
        cols="countIf($r(v_s) = v_s) AS RawString,
              countIf($r(v_n) = ifNull(v_n, '')) AS RawNullable,
              countIf($e(v_s) = $(d v_s)) AS String,
              countIf($e(v_n) = $(d v_n)) AS Nullable,
              countIf($e(v_ls) = $(d v_ls)) AS LowCardinality,
              countIf($e(v_ln) = $(d v_ln)) AS LowCardinalityNullable,
              countIf($e(v_f8) = $(d v_f8)) AS FixedString8,
              countIf($a(a_s) = $(da a_s)) AS ArrayString,
              countIf($a(a_n) = $(da a_n)) AS ArrayNullable,
              countIf($a(a_ls) = $(da a_ls)) AS ArrayLowCardinality,
              countIf($a(a_ln) = $(da a_ln)) AS ArrayLowCardinalityNullable"
    fi
    run_split mchlocal -q "SELECT count() AS rows, $cols FROM ($(args_sql "$ROWS_SQL"))
        SETTINGS max_block_size = 300 FORMAT TSVWithNames"
    [ "$status" -eq 0 ] || { echo "$stderr_text" | head -5; return 1; }
    check_counts
}

@test "the generated matrix config defines all 84 functions" {
    run_split mchlocal -q "SELECT count() FROM system.functions WHERE match(name, '^[eawr]_(tsv|rb|rbnt)_(ex|pool)_[01]')"
    [ "$status" -eq 0 ]
    [ "$output" = 84 ]
}

@test "proto_echo: TabSeparated, executable, no chunk header" { echo_matrix tsv ex 0; }
@test "proto_echo: TabSeparated, executable, chunk header" { echo_matrix tsv ex 1; }
@test "proto_echo: TabSeparated, executable_pool, no chunk header" { echo_matrix tsv pool 0; }
@test "proto_echo: TabSeparated, executable_pool, chunk header" { echo_matrix tsv pool 1; }
@test "proto_echo: RowBinary, executable, no chunk header" { echo_matrix rb ex 0; }
@test "proto_echo: RowBinary, executable, chunk header" { echo_matrix rb ex 1; }
@test "proto_echo: RowBinary, executable_pool, no chunk header" { echo_matrix rb pool 0; }
@test "proto_echo: RowBinary, executable_pool, chunk header" { echo_matrix rb pool 1; }
@test "proto_echo: RowBinaryWithNamesAndTypes, executable, no chunk header" { echo_matrix rbnt ex 0; }
@test "proto_echo: RowBinaryWithNamesAndTypes, executable, chunk header" { echo_matrix rbnt ex 1; }
@test "proto_echo: RowBinaryWithNamesAndTypes, executable_pool, no chunk header" { echo_matrix rbnt pool 0; }
@test "proto_echo: RowBinaryWithNamesAndTypes, executable_pool, chunk header" { echo_matrix rbnt pool 1; }

@test "proto_echo: FixedString(N) and UInt128 results, read back by the engine" {
    cat >"$MATRIX_DIR/results_function.xml" <<'EOF'
<functions>
    <function><name>r_fixed</name><type>executable_pool</type><return_type>FixedString(6)</return_type>
        <argument><type>Nullable(String)</type><name>x</name></argument>
        <format>RowBinaryWithNamesAndTypes</format><send_chunk_header>1</send_chunk_header>
        <command>proto_echo --format RowBinaryWithNamesAndTypes --chunk-header --result FixedString(6)</command></function>
    <function><name>r_u128</name><type>executable_pool</type><return_type>UInt128</return_type>
        <argument><type>Array(Nullable(String))</type><name>x</name></argument>
        <format>RowBinaryWithNamesAndTypes</format><send_chunk_header>1</send_chunk_header>
        <command>proto_echo --array --format RowBinaryWithNamesAndTypes --chunk-header --result UInt128</command></function>
    <function><name>r_u128_tsv</name><type>executable</type><return_type>UInt128</return_type>
        <argument><type>Nullable(String)</type><name>x</name></argument>
        <format>TabSeparated</format>
        <command>proto_echo --result UInt128</command></function>
    <function><name>r_fixed_tsv</name><type>executable_pool</type><return_type>FixedString(6)</return_type>
        <argument><type>Nullable(String)</type><name>x</name></argument>
        <format>TabSeparated</format>
        <command>proto_echo --result FixedString(6)</command></function>
</functions>
EOF
    # FixedString(6): the echo text cut or padded with '.'; UInt128: L * 2^64 + L, L = bytes decoded
    local fx="toFixedString(rightPad(substring($(d x), 1, 6), 6, '.'), 6)"
    run_split mchlocal -q "SELECT count() AS rows,
        countIf(r_fixed(x) = $fx) AS fixed, countIf(r_fixed_tsv(x) = $fx) AS fixed_tsv,
        countIf(r_u128(a_n) = toUInt128(arraySum(arrayMap(i -> length(ifNull(i, '')), a_n))) * toUInt128('18446744073709551617')) AS u128,
        countIf(r_u128_tsv(x) = toUInt128(length(ifNull(x, ''))) * toUInt128('18446744073709551617')) AS u128_tsv
        FROM ($(args_sql "$ROWS_SQL")) SETTINGS max_block_size = 700 FORMAT TSVWithNames"
    [ "$status" -eq 0 ] || { echo "$stderr_text" | head -5; return 1; }
    check_counts
}

# wire_matrix F M C: order_wire_class through that cell equals the shipped config on every row
# and argument type; the shipped config itself is anchored on the contract fixture below.
wire_matrix() {
    local f=$1 m=$2 c=$3 cols
    [ -x "$BIN/order_wire_class" ]
    local w="w_${f}_${m}_${c}" s="order_wire_class"
    if [ "$f" = rb ]; then
        cols="countIf(${w}_s(v_s) = $s(v_s)) AS String,
              countIf(${w}_n(v_n) = $s(v_n)) AS Nullable,
              countIf(${w}_s(v_ls) = $s(v_ls)) AS LowCardinality,
              countIf(${w}_n(v_ln) = $s(v_ln)) AS LowCardinalityNullable,
              countIf(${w}_f8(v_f8) = $s(v_f8)) AS FixedString8"
    else
        cols="countIf($w(v_s) = $s(v_s)) AS String,
              countIf($w(v_n) = $s(v_n)) AS Nullable,
              countIf($w(v_ls) = $s(v_ls)) AS LowCardinality,
              countIf($w(v_ln) = $s(v_ln)) AS LowCardinalityNullable,
              countIf($w(v_f8) = $s(v_f8)) AS FixedString8"
    fi
    # the fixture's messages join the mixed rows, so valid and invalid orders of all classes pass
    local rows="SELECT toUInt64(1000000 + rowNumberInAllBlocks()) AS id, raw AS x FROM table UNION ALL $ROWS_SQL"
    run_split mchlocal --input-format TSV --structure 'expected String, raw String, note String' \
        -q "SELECT count() AS rows, $cols,
            countIf($s(v_n) IN ('', 'not_an_object', 'keyset_mismatch', 'field_invalid')) AS known_class,
            countIf($s(v_n) = '') AS info_valid
            FROM ($(args_sql "$rows")) SETTINGS max_block_size = 300 FORMAT TSVWithNames" <"$ROOT/tests/fixtures/wire/cases.tsv"
    [ "$status" -eq 0 ] || { echo "$stderr_text" | head -5; return 1; }
    check_counts
    # valid rows are among them (the fixture has valid orders), so '' answers are checked too
    [ "$(sed -n 2p <<<"$output" | awk -F'\t' '{print $NF}')" -gt 0 ]
}

@test "the shipped order_wire_class config gives every fixture case its class" {
    [ -x "$BIN/order_wire_class" ]
    run_split mchlocal --input-format TSV --structure 'expected String, raw String, note String' \
        -q "SELECT count(), countIf(order_wire_class(raw) = expected),
            countIf(order_wire_class(toLowCardinality(raw)) = expected),
            countIf(order_wire_class(CAST(raw AS Nullable(String))) = expected) FROM table
            SETTINGS max_block_size = 37" <"$ROOT/tests/fixtures/wire/cases.tsv"
    [ "$status" -eq 0 ] || { echo "$stderr_text" | head -5; return 1; }
    local n
    n=$(cut -f1 <<<"$output")
    [ "$n" -gt 100 ]
    [ "$output" = "$(printf '%s\t%s\t%s\t%s' "$n" "$n" "$n" "$n")" ]
}

@test "order_wire_class: TabSeparated, executable, no chunk header" { wire_matrix tsv ex 0; }
@test "order_wire_class: TabSeparated, executable, chunk header" { wire_matrix tsv ex 1; }
@test "order_wire_class: TabSeparated, executable_pool, no chunk header" { wire_matrix tsv pool 0; }
@test "order_wire_class: TabSeparated, executable_pool, chunk header" { wire_matrix tsv pool 1; }
@test "order_wire_class: RowBinary, executable, no chunk header" { wire_matrix rb ex 0; }
@test "order_wire_class: RowBinary, executable, chunk header" { wire_matrix rb ex 1; }
@test "order_wire_class: RowBinary, executable_pool, no chunk header" { wire_matrix rb pool 0; }
@test "order_wire_class: RowBinary, executable_pool, chunk header" { wire_matrix rb pool 1; }
@test "order_wire_class: RowBinaryWithNamesAndTypes, executable, no chunk header" { wire_matrix rbnt ex 0; }
@test "order_wire_class: RowBinaryWithNamesAndTypes, executable, chunk header" { wire_matrix rbnt ex 1; }
@test "order_wire_class: RowBinaryWithNamesAndTypes, executable_pool, no chunk header" { wire_matrix rbnt pool 0; }
@test "order_wire_class: RowBinaryWithNamesAndTypes, executable_pool, chunk header" { wire_matrix rbnt pool 1; }

# ---------- malformed protocol input, straight into the binaries ----------

# bad_input BINARY "ARGS" PRINTF-INPUT ROWS-ANSWERED MESSAGE-PART: exit 1, one stderr line naming
# the binary, and exactly the complete rows answered (counted by decoding stdout with the engine).
bad_input() {
    local bin=$1 args=$2 input=$3 want_rows=$4 msg=$5
    [ -x "$TEST_UDFS/$bin" ]
    # shellcheck disable=SC2086
    printf -- "$input" | "$TEST_UDFS/$bin" $args >out.bin 2>err.txt && { echo "exit 0 on bad input"; return 1; }
    local st=$?
    [ "$st" -eq 1 ] || { echo "exit $st, want 1"; return 1; }
    [ "$(wc -l <err.txt)" -eq 1 ] || { echo "stderr: $(cat err.txt)"; return 1; }
    grep -q "^$bin: .*$msg" err.txt || { echo "stderr: $(cat err.txt)"; return 1; }
    local fmt=TabSeparated
    [[ $args == *RowBinaryWithNamesAndTypes* ]] && fmt=RowBinaryWithNamesAndTypes
    [[ $args == *"RowBinary "* || $args == *RowBinary ]] && fmt=RowBinary
    local rows=0
    if [ -s out.bin ]; then
        rows=$(chlocal --input-format "$fmt" --structure 'result String' -q "SELECT count() FROM table" <out.bin)
    fi
    [ "$rows" -eq "$want_rows" ] || { echo "answered $rows rows, want $want_rows"; return 1; }
}

@test "proto_echo on malformed input: exit 1, one stderr line, only complete rows answered" {
    local nt="--format RowBinaryWithNamesAndTypes --chunk-header"
    bad_input proto_echo "$nt" '2\n\001\003raw\006String\001a\005ab' 1 "inside a row"
    bad_input proto_echo "$nt" '1\n\001\003raw\006String\377\377\377\377\377\377\377\377\377\377\001' 0 "bad varint"
    bad_input proto_echo "$nt" '1\n\001\003raw\005UInt8\001' 0 "unknown type in the header"
    bad_input proto_echo "$nt" 'x\n\001\003raw\006String\001a' 0 "not a row count"
    bad_input proto_echo "$nt" '1\n\002\001a\001b\006String\006String' 0 "exactly one column"
    bad_input proto_echo "$nt" '3\n\001\003raw\006String\001a\001b' 2 "inside a block"
    bad_input proto_echo "$nt" '2\n\001\003raw\020Nullable(String)\000\001a\002' 1 "bad null flag"
    bad_input proto_echo "--format TabSeparated" 'ok\nbad\\x4\n' 1 "bad escape"
    bad_input proto_echo "--format TabSeparated" 'a\tb\n' 0 "more than one column"
    bad_input proto_echo "--format TabSeparated" 'ok\nno line end' 1 "no line end"
    bad_input proto_echo "--format TabSeparated --array" "['a',]\n" 0 "bad array item"
    bad_input proto_echo "--format RowBinary --arg-type Nullable(String)" '\000\001a\001\000\003ab' 2 "inside a row"
}

@test "order_wire_class on malformed input: exit 1, one stderr line, only complete rows answered" {
    local nt="--format RowBinaryWithNamesAndTypes --chunk-header"
    bad_input order_wire_class "$nt" '2\n\001\003raw\020Nullable(String)\001\000\005ab' 1 ""
    bad_input order_wire_class "$nt" '1\n\001\003raw\006String\377\377\377\377\377\377\377\377\377\377\001' 0 ""
    bad_input order_wire_class "$nt" '1\n\001\003raw\006Int32\001' 0 ""
    bad_input order_wire_class "$nt" '-1\n' 0 ""
    bad_input order_wire_class "--format TabSeparated" '{}\n\\x\n' 1 ""
}

@test "proto_echo --help and usage errors" {
    run_split "$TEST_UDFS/proto_echo" --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:* ]]
    run_split "$TEST_UDFS/proto_echo" --bogus
    [ "$status" -eq 2 ]
    [ "$(printf '%s\n' "$stderr_text" | wc -l)" -eq 1 ]
    run_split "$TEST_UDFS/proto_echo" --format RowBinary --arg-type UInt8
    [ "$status" -eq 2 ]
    run_split "$TEST_UDFS/proto_echo" --format
    [ "$status" -eq 2 ]
}

@test "what the engine sends: a header before every block, real types, LowCardinality removed" {
    mkdir udf
    cp "$TEST_UDFS/proto_echo" udf/
    printf '#!/bin/sh\nexec tee -a "$PWD/sent.bin" | "$(dirname "$0")/proto_echo" "$@"\n' >udf/cap.sh
    chmod +x udf/cap.sh
    cat >udf/cap_function.xml <<'XML'
<functions><function><name>cap</name><type>executable_pool</type><return_type>String</return_type>
    <argument><type>Array(Nullable(String))</type><name>attrs</name></argument>
    <format>RowBinaryWithNamesAndTypes</format><pool_size>1</pool_size>
    <command>cap.sh --array --format RowBinaryWithNamesAndTypes</command></function></functions>
XML
    run_split chlocal --udf-dir "$PWD/udf" --udf-config "$PWD/udf/cap_function.xml" -q "
        SELECT count() FROM (SELECT cap(CAST([toString(number), NULL] AS Array(LowCardinality(Nullable(String))))) AS r
        FROM numbers(7) SETTINGS max_block_size = 3) WHERE r != ''"
    [ "$status" -eq 0 ]
    [ "$output" = 7 ]
    # one process served 3 blocks; each began with the header naming the type without LowCardinality
    [ "$(grep -a -o 'attrs.Array(Nullable(String))' sent.bin | wc -l)" -eq 3 ]
    ! grep -q -a LowCardinality sent.bin
}

@test "proto_floor answers a zero UInt128 (--string: an empty String) for every row, over several blocks" {
    run_split chlocal --udf-dir "$TEST_UDFS" --udf-config "$ROOT/tests/helpers/floor_function.xml" --max_block_size=1000 \
        -q "SELECT count(), sum(proto_floor([toString(number), NULL]) = 0) FROM numbers(5000)"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '5000\t5000')" ]
    run_split "$TEST_UDFS/proto_floor" --bogus
    [ "$status" -eq 2 ]
    # --string, order_wire_class's shape: '' for every row, a NULL and a non-String column included
    run_split chlocal --udf-dir "$TEST_UDFS" --udf-config "$ROOT/tests/helpers/floor_function.xml" --max_block_size=1000 \
        -q "SELECT count(), countIf(proto_floor_string(if(number % 7 = 0, NULL, toString(number))) = ''),
                   countIf(proto_floor_string(toLowCardinality(toString(number))) = '') FROM numbers(5000)"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '5000\t5000\t5000')" ]
    run_split "$TEST_UDFS/proto_floor" --string --bogus
    [ "$status" -eq 2 ]
}

# The classifier's validation floor in bench 90 must validate what the engine's isValidJSON does,
# or it floors nothing: every generated value whole, then cut at a third and at two thirds.
@test "proto_floor --validate: its verdict is isValidJSON's on 15 000 generated values, two thirds of them cut" {
    "$BUILD_DIR/tests/helpers/json_gen" --seed 25 --count 5000 >in.txt
    run_split chlocal --udf-dir "$TEST_UDFS" --udf-config "$ROOT/tests/helpers/floor_function.xml" --max_block_size=1000 \
        -q "SELECT count(), countIf((proto_floor_validate(d) = '') = isValidJSON(d)), countIf(isValidJSON(d) = 1),
                   countIf(proto_floor_validate(d) NOT IN ('', 'x'))
            FROM (SELECT substring(line, 1, intDiv(length(line) * k, 3)) AS d
                  FROM file('$PWD/in.txt', LineAsString, 'line String') ARRAY JOIN [1, 2, 3] AS k)"
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    local total agree valid other
    IFS=$'\t' read -r total agree valid other <<<"$output"
    echo "values $total, agree $agree, valid $valid, other answers $other"
    [ "$total" -eq 15000 ]
    [ "$agree" -eq "$total" ]
    [ "$valid" -ge 5000 ]
    [ "$valid" -lt 10000 ]
    [ "$other" -eq 0 ]
    run_split "$TEST_UDFS/proto_floor" --validate --bogus
    [ "$status" -eq 2 ]
}

# The members floor hands over the root members of the same checked tree; its verdict must be the
# engine's on what an object with members is, or the floor skipped work the classifier does.
@test "proto_floor --members: '' exactly for the generated values the engine reads as a JSON object with members" {
    "$BUILD_DIR/tests/helpers/json_gen" --seed 26 --count 5000 >in.txt
    run_split chlocal --udf-dir "$TEST_UDFS" --udf-config "$ROOT/tests/helpers/floor_function.xml" --max_block_size=1000 \
        -q "SELECT count(), countIf((proto_floor_members(d) = '') = (isValidJSON(d) AND JSONType(d) = 'Object' AND JSONLength(d) > 0)),
                   countIf(proto_floor_members(d) = ''), countIf(isValidJSON(d) = 1), countIf(proto_floor_members(d) NOT IN ('', 'x'))
            FROM (SELECT substring(line, 1, intDiv(length(line) * k, 3)) AS d
                  FROM file('$PWD/in.txt', LineAsString, 'line String') ARRAY JOIN [1, 2, 3] AS k)"
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    local total agree objects valid other
    IFS=$'\t' read -r total agree objects valid other <<<"$output"
    echo "values $total, agree $agree, objects with members $objects, valid $valid, other answers $other"
    [ "$total" -eq 15000 ]
    [ "$agree" -eq "$total" ]
    [ "$objects" -ge 500 ]
    [ "$objects" -lt "$valid" ]
    [ "$other" -eq 0 ]
    run_split chlocal --udf-dir "$TEST_UDFS" --udf-config "$ROOT/tests/helpers/floor_function.xml" \
        -q "SELECT proto_floor_members(NULL), proto_floor_members('{}'), proto_floor_members('{\"a\":1}'), proto_floor_members('[1]')"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'x\tx\t\tx')" ]
    run_split "$TEST_UDFS/proto_floor" --members --bogus
    [ "$status" -eq 2 ]
}

# ---------- a wrong argument type: the engine shows the UDF's own words ----------

@test "order_wire_class of a wrong type: the engine's error says what it takes and what it got" {
    run_split chlocal -q "SELECT order_wire_class(123)"
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"order_wire_class takes a String-like argument, got UInt8"* ]]
    [[ "$stderr_text" != *"Attempt to read after eof"* ]]
    run_split chlocal -q "SELECT order_wire_class([1])"
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"order_wire_class takes a String-like argument, got Array(UInt8)"* ]]
    # a block big enough that the engine is still writing when the process stops reading: the
    # message still wins over the broken pipe
    run_split chlocal -q "SELECT sum(length(order_wire_class(number))) FROM numbers(1000000)"
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"order_wire_class takes a String-like argument, got UInt64"* ]]
    # and the right types still work, NULL included
    run_split chlocal -q "SELECT order_wire_class('{}'), order_wire_class(toLowCardinality('x')), order_wire_class(NULL)"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'keyset_mismatch\tnot_an_object\tnot_an_object')" ]
}

@test "a wrong type straight into the binary: an empty answer (result header, no rows), one stderr line, exit 1" {
    printf '1\n\001\003raw\005UInt8\173' >in.bin
    run_split bash -c '"$0" --format RowBinaryWithNamesAndTypes --chunk-header <in.bin >out.bin' "$BIN/order_wire_class"
    [ "$status" -eq 1 ]
    [ "$(printf '%s\n' "$stderr_text" | wc -l)" -eq 1 ]
    [[ "$stderr_text" == "order_wire_class: order_wire_class takes a String-like argument, got UInt8"* ]]
    printf '\001\006result\006String' >want.bin
    cmp out.bin want.bin
}
