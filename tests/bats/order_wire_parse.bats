#!/usr/bin/env bats
# order_wire_parse: the classifier's one-pass typing UDF in the engine with the shipped config:
# its Tuple type, and bit for bit the same class, typed row and _hashdiff as the SQL typing and
# hashing it replaces.
load helpers

EDGES=$ROOT/tests/fixtures/wire_parse/edges.jsonl

# The SQL typing of the transition (ods-ddl transition --typing sql): the select items "EXPR AS
# name" of the statement that computes _hashdiff (the gate), those between the SELECT that opens
# them and hashdiff_strict(, found by their shape, whatever the statement's number.
sql_items() {
    "$BIN/ods-ddl" transition --typing sql --store every |
        awk '/^-- [0-9]+\. / || /^ *SELECT$/ { n = 0; next }
             /hashdiff_strict\(/ { for (i = 1; i <= n; i++) print item[i]; exit }
             /^ +[^ ].* AS [a-z_]+,$/ { sub(/^ +/, ""); sub(/,$/, ""); item[++n] = $0 }'
}

# The SQL hashing of the transition (--typing sql): "hashdiff_strict([canonical texts]) AS
# _hashdiff" over the names sql_items gives, the expression order_wire_parse's hashdiff replaces.
sql_hashdiff() {
    "$BIN/ods-ddl" transition --typing sql --store every |
        awk '/hashdiff_strict\(/ { sub(/^ +/, ""); sub(/,$/, ""); print; exit }'
}

# compare_sql TABLE: one line of counts over TABLE (raw String): rows whose UDF class differs
# from order_wire_class; valid rows where a typed field or the hashdiff differs from the SQL
# typing's and hashing's (column by column); rejected rows with a field not zero; rows of each
# EXCEPT ALL direction (raw, every field and the hashdiff); then valid rows and all rows.
compare_sql() {
    local items names diff n
    items="$(sql_items | paste -sd ','), $(sql_hashdiff)"
    names=$(sql_items | sed -E 's/.* AS ([a-z_]+)$/\1/')
    [ "$(wc -l <<<"$names")" -eq 11 ]
    diff=$(for n in $names; do printf " + countIf(tupleElement(p, '%s') != %s)" "$n" "$n"; done)
    diff+=" + countIf(p.hashdiff != _hashdiff)"
    echo "
SELECT
    (SELECT countIf(order_wire_parse(raw).class != order_wire_class(raw)) FROM $1),
    (SELECT 0 $diff FROM (SELECT order_wire_parse(raw) AS p, $items FROM $1 WHERE order_wire_class(raw) = '')),
    (SELECT countIf(p.class != '' AND (p.order_id != '' OR p.user_id != 0 OR p.status != '' OR toUnixTimestamp64Milli(p.created_at) != 0
        OR toUnixTimestamp64Milli(p.updated_at) != 0 OR p.items_total != 0 OR p.discount != 0 OR p.delivery != 0 OR p.total != 0
        OR p.items != '' OR p.snapshot_date != '1970-01-01' OR p.hashdiff != 0)) FROM (SELECT order_wire_parse(raw) AS p FROM $1)),
    (SELECT count() FROM (SELECT raw, untuple(order_wire_parse(raw)) FROM $1 WHERE order_wire_class(raw) = ''
                          EXCEPT ALL SELECT raw, '', $items FROM $1 WHERE order_wire_class(raw) = '')),
    (SELECT count() FROM (SELECT raw, '', $items FROM $1 WHERE order_wire_class(raw) = ''
                          EXCEPT ALL SELECT raw, untuple(order_wire_parse(raw)) FROM $1 WHERE order_wire_class(raw) = '')),
    (SELECT countIf(order_wire_class(raw) = '') FROM $1),
    (SELECT count() FROM $1)
FORMAT TSV"
}

@test "the SQL typing compared below is the transition's: the contract's 11 fields in order, each typed from raw" {
    run sql_items
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}"
    [ "${#lines[@]}" -eq 11 ]
    # the names: the ODS columns, in the order ods-ddl schema gives _rep's
    want=$("$BIN/ods-ddl" schema | awk '/^CREATE TABLE IF NOT EXISTS ods.order_snapshot_rep$/ { on = 1; next }
        on && /^    [a-z_]+ / { print $1; if (++n == 11) exit }' | paste -sd ' ')
    [ "$(printf '%s\n' "${lines[@]}" | sed -E 's/.* AS ([a-z_]+)$/\1/' | paste -sd ' ')" = "$want" ]
    # each parses the message itself: were the SQL typing to read typed columns (the manifest's,
    # filled by the UDF), every comparison below would compare the UDF with itself
    [ "$(printf '%s\n' "${lines[@]}" | grep -c 'JSON[A-Za-z]*(raw, ')" -eq 11 ]
}

@test "the SQL hashing compared below is the transition's: hashdiff_strict over the canonical texts of the 10 state fields" {
    run sql_hashdiff
    [ "$status" -eq 0 ]
    echo "$output"
    [[ $output == "hashdiff_strict([toString(order_id), "*"]) AS _hashdiff" ]]
    # the 10 fields but snapshot_date, each once
    [ "$(grep -oE '\b(order_id|user_id|status|created_at|updated_at|items_total|discount|delivery|total|items|snapshot_date)\b' <<<"$output" | sort | uniq -c | awk '{ print $1 }' | sort -u)" = 1 ]
    [ "$(grep -oE '\b(order_id|user_id|status|created_at|updated_at|items_total|discount|delivery|total|items)\b' <<<"$output" | wc -l)" -eq 10 ]
    [[ $output != *snapshot_date* ]]
    # the default transition calls no second UDF: the freeze's order_wire_parse gives _hashdiff
    # (in each of the freeze's pieces, one INSERT each)
    [ "$("$BIN/ods-ddl" transition | grep -c 'hashdiff_strict')" -eq 0 ]
    [ "$("$BIN/ods-ddl" transition --store every | grep -c 'hashdiff_strict')" -eq 0 ]
    [ "$("$BIN/ods-ddl" transition --gate-pieces 1 | grep -c '_w.hashdiff')" -eq 1 ]
    [ "$("$BIN/ods-ddl" transition | grep -c '_w.hashdiff')" -eq 16 ]
}

@test "--print-type is the shipped config's return_type, the engine's own spelling, built from the contract" {
    run_split "$BIN/order_wire_class" --print-type
    [ "$status" -eq 0 ]
    type=$output
    [[ "$type" == "Tuple(class String, order_id String, user_id UInt64, "* ]]
    grep -qF "<return_type>$type</return_type>" "$ROOT/clickhouse-config/order_wire_function.xml"
    # (the engine prints a long Tuple on several lines: joined back)
    run_split chlocal -q "SELECT replaceRegexpAll(replaceRegexpAll(toTypeName(order_wire_parse('{}')), '\\(\\n *', '('), '\\n *', ' ') FORMAT TSVRaw"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$output" = "$type" ]
    # every field of the contract, in order, with the ODS column's type, then the _hashdiff
    "$BIN/ods-ddl" schema > schema.sql
    chlocal --no-udf --path db --queries-file schema.sql
    run_split chlocal --no-udf --path db -q "SELECT concat('Tuple(class String, ', arrayStringConcat(groupArray(concat(name, ' ', type)), ', '), ', hashdiff UInt128)')
        FROM (SELECT name, type FROM system.columns WHERE database = 'ods' AND table = 'order_snapshot_rep' AND position <= 11 ORDER BY position)
        FORMAT TSVRaw"
    [ "$output" = "$type" ]
}

@test "usage: --parse wants a RowBinary format and no --explain; exit 2, one line" {
    for args in "--parse --format TabSeparated" "--parse --explain"; do
        # shellcheck disable=SC2086
        run_split "$BIN/order_wire_class" $args </dev/null
        [ "$status" -eq 2 ]
        [ -z "$output" ]
        [ "$(printf '%s\n' "$stderr_text" | wc -l)" -eq 1 ]
    done
    run_split "$BIN/order_wire_class" --help
    [[ "$output" == *"--parse"* ]]
}

@test "edge values: the UDF's typed row and hashdiff equal the SQL typing's and hashing's on every field (Decimal bounds, 1970 and 2149 dates, 1900 and 2299 timestamps, leap days, user_id bounds, escapes, every JSON value in items)" {
    run_split chlocal --path db -q "CREATE TABLE e (raw String) ENGINE = MergeTree ORDER BY tuple();
        INSERT INTO e SELECT raw FROM file('$EDGES', LineAsString, 'raw String');
        $(compare_sql e)"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output"
    [ "$output" = "$(printf '0\t0\t0\t0\t0\t50\t50')" ]
    # the extremes spelled out
    run_split chlocal -q "SELECT toDecimalString(max(p.items_total), 2), toDecimalString(min(p.items_total), 2), max(p.created_at), min(p.created_at),
        max(p.user_id), min(p.user_id), max(p.snapshot_date), min(p.snapshot_date), countIf(p.items = '[]')
        FROM (SELECT order_wire_parse(raw) AS p FROM file('$EDGES', LineAsString, 'raw String')) FORMAT TSV"
    [ "$output" = "$(printf '9999999999999999.99\t-9999999999999999.99\t2299-12-31 23:59:59.999\t1900-01-01 00:00:00.000\t9223372036854775807\t1\t2149-06-06\t1970-01-01\t2')" ]
}

@test "every corpus: the fuzz corpora, the classifier's cases, a dirty stream and 20 000 mutants, classed, typed and hashed the same as by SQL" {
    ln -s "$ROOT/tests/fuzz/corpus" fuzz
    cp "$ROOT/tests/fixtures/wire/cases.tsv" cases.tsv
    "$BIN/orders-gen" --orders 3000 --days 3 --dirty 0.3 --seed 10 --format rowbinary >gen.bin
    { cat "$ROOT/tests/sql/wire_mix.sql"; compare_sql mix; } >mix.sql
    run_split chlocal --param_seed=1 --param_mutants=20000 --queries-file mix.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output"
    read -r a b c d e valid all <<<"$(tail -1 <<<"$output")"
    [ "$a $b $c $d $e" = "0 0 0 0 0" ]
    [ "$valid" -gt 1000 ]
    [ "$all" -gt 25000 ]
}

@test "1 000 000 generated messages (3 % dirty): classed, typed and hashed the same as by SQL" {
    # The ASan+UBSan build runs the same rows' code paths on 40 000 of them (it is there for
    # memory errors; at a fifth of the speed 1 M rows would cost minutes for nothing new).
    n=1000000
    if grep -qx 'ODS_SANITIZE:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then n=40000; fi
    "$BIN/orders-gen" --orders "$n" --days 10 --window 10 --day 10 --dirty 0.03 --seed 15 > g.jsonl
    run_split chlocal --path db -q "CREATE TABLE g (raw String) ENGINE = MergeTree ORDER BY tuple();
        INSERT INTO g SELECT raw FROM file('$PWD/g.jsonl', LineAsString, 'raw String');
        $(compare_sql g)"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output"
    read -r a b c d e valid all <<<"$output"
    [ "$a $b $c $d $e" = "0 0 0 0 0" ]
    [ "$all" -eq "$n" ]
    [ "$valid" -gt $((n * 95 / 100)) ]
}
