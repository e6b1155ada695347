#!/usr/bin/env bats
# orders-gen: the same seed gives the same bytes, the real order_wire_class classifies every
# message as its label says, the world's invariants hold in SQL, RowBinary reads in the engine.
load helpers

og() { "$BIN/orders-gen" "$@"; }

# The classifier UDF is part of the build: its absence is a failure, never a skip.
need_classifier() {
    [ -x "$BIN/order_wire_class" ] || return 1
    [ -f "$ROOT/clickhouse-config/order_wire_function.xml" ]
}

@test "--help goes to stdout and exits 0" {
    run_split og --help
    [ "$status" -eq 0 ]
    [[ "$output" == "usage: orders-gen"* ]]
    [[ "$output" == *"--dirty RATE"*"--format F"*"--labels FILE"* ]]
    [ -z "$stderr_text" ]
    run_split og -h
    [ "$status" -eq 0 ]
    [[ "$output" == "usage: orders-gen"* ]]
}

@test "usage errors: one line on stderr, nothing on stdout, exit 2" {
    local -a cases=("--bogus" "--orders" "--orders x" "--orders -1" "--dirty 1.5" "--dirty abc"
        "--format xml" "--days 3 --day 4" "--day 0" "--start 2026-02-29" "--start 2026-13-01"
        "--window 0" "--seed 18446744073709551616" "--start 2149-06-06 --days 2" "extra")
    local c
    for c in "${cases[@]}"; do
        # shellcheck disable=SC2086
        run_split og $c
        echo "case: $c -> $status: $stderr_text"
        [ "$status" -eq 2 ]
        [ -z "$output" ]
        [[ "$stderr_text" == "orders-gen: "* ]]
        [ "$(printf '%s\n' "$stderr_text" | wc -l)" -eq 1 ]
    done
    run_split og --bogus
    [ "$stderr_text" = "orders-gen: unknown option: --bogus (try --help)" ]
    run_split og --format json
    [ "$stderr_text" = "orders-gen: bad value for --format: json (expected lines or rowbinary)" ]
    run_split og --dirty 1.5
    [ "$stderr_text" = "orders-gen: bad value for --dirty: 1.5 (expected a rate from 0 to 1)" ]
    run_split og --orders
    [ "$stderr_text" = "orders-gen: --orders needs a value (try --help)" ]
    # a control character in the value cannot break the one line
    run_split og --start $'2026\n01-01'
    [ "$stderr_text" = 'orders-gen: bad value for --start: 2026\x0a01-01 (expected a date YYYY-MM-DD)' ]
}

@test "--version: the project's version on stdout, exit 0" {
    run_split og --version
    [ "$status" -eq 0 ]
    [ "$output" = "orders-gen $(ods_version)" ]
    [ -z "$stderr_text" ]
}

@test "a failing write: a message on stderr, exit 1" {
    run_split bash -c '"$0" --orders 100000 >/dev/full' "$BIN/orders-gen"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == "orders-gen: writing the messages failed: No space left on device" ]]
    run_split og --orders 10 --labels /nonexistent/dir/labels.tsv
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == "orders-gen: cannot write /nonexistent/dir/labels.tsv: "* ]]
}

@test "same seed, same bytes; another seed, other bytes (both formats, with dirt and labels)" {
    local fmt
    for fmt in lines rowbinary; do
        og --orders 2000 --days 4 --dirty 0.2 --seed 42 --format $fmt --labels a.lab >a.out
        og --orders 2000 --days 4 --dirty 0.2 --seed 42 --format $fmt --labels b.lab >b.out
        og --orders 2000 --days 4 --dirty 0.2 --seed 43 --format $fmt --labels c.lab >c.out
        [ -s a.out ]
        cmp a.out b.out
        cmp a.lab b.lab
        run cmp -s a.out c.out
        [ "$status" -eq 1 ]
        run cmp -s a.lab c.lab
        [ "$status" -eq 1 ]
    done
    # the option spelling does not matter
    og --orders=2000 --days=4 --dirty=0.2 --seed=42 --format=rowbinary >d.out
    cmp a.out d.out
}

@test "every day alone, one after another, is the same bytes as the whole run" {
    local fmt d
    for fmt in lines rowbinary; do
        og --orders 900 --days 5 --window 2 --dirty 0.3 --seed 5 --format $fmt --labels all.lab >all.out
        : >days.out
        : >days.lab
        for d in 1 2 3 4 5; do
            og --orders 900 --days 5 --window 2 --dirty 0.3 --seed 5 --format $fmt --day $d --labels d.lab >>days.out
            cat d.lab >>days.lab
        done
        cmp all.out days.out
        cmp all.lab days.lab
    done
}

@test "--day K writes the snapshot of model day K only, with that snapshot_date" {
    og --orders 500 --days 4 --start 2031-12-30 --day 3 >m.txt
    want=$(chlocal -q "SELECT toDate('2031-12-30') + 2")
    run_split chlocal --input-format LineAsString --structure 'raw String' \
        -q "SELECT arrayStringConcat(groupUniqArray(JSONExtractString(raw, 'snapshot_date')), ','), count() FROM table" <m.txt
    [ "$status" -eq 0 ]
    [ "$output" = "$want"$'\t'"$(wc -l <m.txt)" ]
}

@test "lines: no message holds a raw newline or CR, whatever the dirt" {
    og --orders 3000 --days 3 --dirty 0.6 --seed 8 --labels m.lab >m.txt
    [ "$(wc -l <m.txt)" -eq "$(wc -l <m.lab)" ]
    [ "$(grep -c $'\r' m.txt)" -eq 0 ]
    run_split chlocal --input-format LineAsString --structure 'raw String' -q "SELECT count() FROM table" <m.txt
    [ "$output" -eq "$(wc -l <m.lab)" ]
    # the dirt that would need a newline is there, in its one-line form
    grep -qx $'control_char\tnot_an_object' m.lab
    grep -qx $'concatenated\tnot_an_object' m.lab
    grep -q '}{"order_id"' m.txt
}

@test "rowbinary: the engine reads every message, raw newlines included; valid ones equal the lines output" {
    og --orders 3000 --days 3 --dirty 0.6 --seed 8 --format rowbinary --labels b.lab >m.bin
    og --orders 3000 --days 3 --dirty 0.6 --seed 8 --format lines --labels l.lab >m.txt
    cmp b.lab l.lab # the same kinds in the same places
    run_split chlocal --input-format RowBinary --structure 'raw String' \
        -q "SELECT count(), countIf(position(raw, '\n') > 0) FROM table" <m.bin
    [ "$status" -eq 0 ]
    read -r rows with_nl <<<"$output"
    [ "$rows" -eq "$(wc -l <b.lab)" ]
    [ "$with_nl" -gt 0 ]
    # row by row: a valid message is the same bytes in both formats
    run_split chlocal --max_threads=1 -q "
        SELECT countIf(l.kind = 'valid'), countIf(l.kind = 'valid' AND b.raw != t.raw)
        FROM (SELECT rowNumberInAllBlocks() AS n, raw FROM file('m.bin', RowBinary, 'raw String')) AS b
        JOIN (SELECT rowNumberInAllBlocks() AS n, raw FROM file('m.txt', LineAsString, 'raw String')) AS t USING n
        JOIN (SELECT rowNumberInAllBlocks() AS n, kind FROM file('b.lab', TSV, 'kind String, class String')) AS l USING n"
    [ "$status" -eq 0 ]
    read -r valid differ <<<"$output"
    [ "$valid" -gt 1000 ]
    [ "$differ" -eq 0 ]
    # a clean run: the two formats carry exactly the same messages
    og --orders 700 --days 3 --seed 9 --format rowbinary >c.bin
    og --orders 700 --days 3 --seed 9 >c.txt
    chlocal --input-format RowBinary --structure 'raw String' -q "SELECT raw FROM table FORMAT LineAsString" <c.bin >c.back
    cmp c.txt c.back
}

# classify FORMAT FILE LABELS: per (kind, intended class, class order_wire_class gave), a count.
classify() {
    chlocal --max_threads=1 -q "
        SELECT kind, class, got, count()
        FROM (SELECT rowNumberInAllBlocks() AS n, order_wire_class(raw) AS got FROM file('$2', $1, 'raw String')) AS m
        JOIN (SELECT rowNumberInAllBlocks() AS n, kind, class FROM file('$3', TSV, 'kind String, class String')) AS l USING n
        GROUP BY kind, class, got ORDER BY kind, got FORMAT TSV"
}

@test "order_wire_class gives every message the class its label names, each kind present (rowbinary)" {
    need_classifier
    og --orders 2000 --days 3 --dirty 0.4 --seed 11 --format rowbinary --labels m.lab >m.bin
    run_split classify RowBinary m.bin m.lab
    echo "$output"
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    # every group agrees, the join lost nothing, and all 15 kinds (valid + 14 dirty) occur
    [ -z "$(awk -F'\t' '$2 != $3' <<<"$output")" ]
    [ "$(awk -F'\t' '{s += $4} END {print s}' <<<"$output")" -eq "$(wc -l <m.lab)" ]
    [ "$(cut -f1 <<<"$output" | sort -u | wc -l)" -eq 15 ]
    [ "$(cut -f3 <<<"$output" | sort -u | wc -l)" -eq 4 ]
}

@test "order_wire_class gives every message the class its label names (lines, read as LineAsString)" {
    need_classifier
    og --orders 2000 --days 3 --dirty 0.4 --seed 12 --labels m.lab >m.txt
    run_split classify LineAsString m.txt m.lab
    echo "$output"
    echo "$stderr_text"
    [ "$status" -eq 0 ]
    [ -z "$(awk -F'\t' '$2 != $3' <<<"$output")" ]
    [ "$(awk -F'\t' '{s += $4} END {print s}' <<<"$output")" -eq "$(wc -l <m.lab)" ]
    [ "$(cut -f1 <<<"$output" | sort -u | wc -l)" -eq 15 ]
}

@test "a clean stream is all valid: order_wire_class gives '' to every message" {
    need_classifier
    og --orders 3000 --days 5 --seed 13 --format rowbinary >m.bin
    run_split chlocal --input-format RowBinary --structure 'raw String' \
        -q "SELECT count(), countIf(order_wire_class(raw) != '') FROM table" <m.bin
    [ "$status" -eq 0 ]
    [ "$output" = "$(og --orders 3000 --days 5 --seed 13 | wc -l)"$'\t'0 ]
}

@test "order_wire_class --explain blames the field each field_invalid kind breaks" {
    [ -x "$BIN/order_wire_class" ]
    og --orders 2000 --days 3 --dirty 0.4 --seed 11 --format rowbinary --labels m.lab >m.bin
    "$BIN/order_wire_class" --explain --rowbinary <m.bin >ex.txt
    [ "$(wc -l <ex.txt)" -eq "$(wc -l <m.lab)" ]
    # KIND CLASS | CLASS FIELD REASON, one line per message
    paste m.lab ex.txt | awk -F'\t' '
        BEGIN {
            want["number_as_string"] = "^user_id$"
            want["ts_no_millis"] = want["ts_offset"] = "^(created_at|updated_at)$"
            want["impossible_date"] = "^(created_at|updated_at|snapshot_date)$"
            want["money_one_decimal"] = "^(items_total|discount|delivery|total)$"
        }
        $2 != $3 || ($1 in want && $4 !~ want[$1]) { bad++; print "mismatch: " $0 }
        $1 in want { seen[$1]++ }
        END { print length(seen) " field kinds seen"; exit (bad > 0 || length(seen) != 5) }'
}

# model_check FILE START DAYS WINDOW: tests/sql/orders_gen_model.sql on a clean lines file.
model_check() {
    chlocal --input-format LineAsString --structure 'raw String' --param_start="$2" \
        --param_days="$3" --param_window="$4" --queries-file "$ROOT/tests/sql/orders_gen_model.sql" <"$1"
}
val() { awk -v k="$1:" '$1 == k {print $2}' <<<"$output"; }

@test "the world's invariants hold in SQL: money, windows, one row per order and day, forward-only status" {
    local w
    for w in 3 1 5; do
        og --orders 1500 --days 8 --window $w --start 2028-02-26 --seed 4 >m.txt
        run_split model_check m.txt 2028-02-26 8 $w
        echo "window $w:"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(val rows)" -eq "$(wc -l <m.txt)" ]
        [ "$(val orders_seen)" -eq 1500 ] # every order is created within the 8 days
        [ -z "$(grep -E '^bad_' <<<"$output" | awk '$2 != 0')" ]
        [ "$(grep -cE '^bad_' <<<"$output")" -eq 14 ]
        [ "$(val orders_advanced)" -gt 0 ]
        [ "$(val orders_repeated)" -gt 0 ]
    done
}

@test "the invariant checks do catch a broken stream (negative control)" {
    og --orders 1500 --days 8 --seed 4 >m.txt
    # a message lost, days out of order, a total that does not add up
    sed '3000d' m.txt >lost.txt
    { sed -n '2500,$p' lost.txt; sed -n '1,2499p' lost.txt; } | sed '10s/"total":"[0-9]*/"total":"1/' >bad.txt
    run_split model_check bad.txt 2026-03-01 8 3
    [ "$status" -eq 0 ]
    [ "$(val bad_snapshot_date)" -gt 0 ]
    [ "$(val bad_total)" -eq 1 ]
    [ "$(val bad_dropped_early)" -gt 0 ]
}
