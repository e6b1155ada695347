#!/usr/bin/env bats
# scripts/demo: the main job end to end; its report's numbers are checked against SQL counts
# on the database it leaves behind (--keep).
load helpers

# report_rows FILE: the ledger table as TSV: delta load messages empty received redelivered accepted
# stored unchanged stale rejected not_an_object keyset_mismatch field_invalid all_accounted
report_rows() {
    grep -E '^ *[0-9]+\. │' "$1" | sed -E 's/^ *[0-9]+\. │//; s/ *│ */\t/g; s/^ +//; s/\t$//'
}
report_value() { sed -nE "s/^$2: +//p" "$1"; }

@test "demo at a small size: the report's numbers equal SQL counts" {
    run_split "$ROOT/scripts/demo" --orders 600 --days 3 --dirty 0.05 --seed 7 --keep db
    [ "$status" -eq 0 ]
    echo "$output" > report.txt
    report_rows report.txt > rows.tsv
    [ "$(wc -l < rows.tsv)" -eq 3 ]
    local n=0 unchanged_total=0
    while IFS=$'\t' read -r delta load messages empty received redelivered accepted stored unchanged stale rejected nao ksm fi all; do
        n=$((n + 1))
        # the ledger numbers the loads 1, 2, 3 in the order they were committed
        [ "$delta" -eq "$n" ]
        [ "$all" = yes ]
        # the demo stages every generated message once, at its own coordinates
        [ "$redelivered" -eq 0 ]
        [ $((accepted + rejected)) -eq $((messages - empty)) ]
        [ $((stored + unchanged + stale)) -eq "$accepted" ]
        [ "$unchanged" -ge 0 ]
        [ $((nao + ksm + fi)) -eq "$rejected" ]
        got=$(chlocal --path db --param_l="$load" -q "
            SELECT (SELECT count() FROM stg.orders_raw WHERE _load_id = {l:String}),
                   (SELECT countIf(order_wire_class(raw) = '') FROM stg.orders_raw WHERE _load_id = {l:String}),
                   (SELECT count() FROM (SELECT order_id, updated_at FROM ods.order_snapshot_rep WHERE _load_id = {l:String}
                                         UNION DISTINCT
                                         SELECT order_id, updated_at FROM ods.order_snapshot_hot WHERE _load_id = {l:String})),
                   (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = {l:String}),
                   (SELECT countIf(error_class = 'field_invalid') FROM ods.order_snapshot_errors WHERE _load_id = {l:String})
            FORMAT TSV" </dev/null)
        [ "$got" = "$(printf '%s\t%s\t%s\t%s\t%s' "$received" "$accepted" "$stored" "$rejected" "$fi")" ]
        # the first load finds an empty ODS: everything accepted is new
        if [ "$n" -eq 1 ]; then
            [ "$stored" -eq "$accepted" ]
        fi
        unchanged_total=$((unchanged_total + unchanged))
    done < rows.tsv
    # later snapshots re-send unchanged orders, which the gate does not store again
    [ "$unchanged_total" -gt 0 ]
    # the rerun of the last load changed nothing
    [[ "$output" == *"Rerun of demo-7-day03: 0 versions, 0 error rows and 0 ledger rows added, order_v unchanged: yes"* ]]
    # the generator's own count of messages for each day, independently of the demo
    for d in 1 2 3; do
        n=$("$BIN/orders-gen" --orders 600 --days 3 --day $d --dirty 0.05 --seed 7 | wc -l)
        [ "$(sed -n "${d}p" rows.tsv | cut -f3)" -eq "$n" ]
    done
    versions="SELECT order_id, updated_at, _load_id FROM ods.order_snapshot_rep UNION DISTINCT SELECT order_id, updated_at, _load_id FROM ods.order_snapshot_hot"
    sql=$(chlocal --path db -q "SELECT (SELECT count() FROM ods.order_v), (SELECT uniqExact(order_id) FROM ($versions)), (SELECT count() FROM ($versions)) FORMAT TSV")
    [ "$sql" = "$(printf '%s\t%s\t%s' "$(report_value report.txt rows_in_order_v)" \
        "$(report_value report.txt distinct_valid_order_ids)" "$(report_value report.txt versions_stored)")" ]
    [ "$(report_value report.txt orders_split_over_partitions)" -eq 0 ]
    # every staged message of every load at coordinates of its own
    [ "$(chlocal --path db -q "SELECT count() = uniqExact(_topic, _partition, _offset) AND count() > 0 FROM stg.orders_raw")" = 1 ]
    [[ "$output" == *"shard-check verify: every version of every order sits on its one routed shard (OK)"* ]]
    # the three example rejections carry the class order_wire_class gives them
    [ "$(grep -cE '^  (not_an_object|keyset_mismatch|field_invalid) ' report.txt)" -eq 3 ]
}

@test "demo --input: the user's own messages, one load, every non-empty message accounted for" {
    run_split "$ROOT/scripts/demo" --input "$ROOT/tests/fixtures/demo/messages.txt" --keep db
    [ "$status" -eq 0 ]
    echo "$output" > report.txt
    [ "$(report_rows report.txt)" = "$(printf '1\tinput-1\t7\t1\t6\t0\t3\t3\t0\t0\t3\t1\t1\t1\tyes')" ]
    run chlocal --path db -q "SELECT order_id, status FROM ods.order_v ORDER BY order_id FORMAT TSV"
    [ "$output" = "$(printf 'A-1\tpaid\nA-4\tnew')" ]
    [[ "$(cat report.txt)" == *"created_at: day 30 does not exist in 2026-02"* ]]
}

@test "demo: a TMPDIR whose path the engine's file() would take as a glob fails at once, saying so (it staged nothing, then failed at the transition); a quote and a backslash are fine" {
    local t
    for t in 't{x}' 't?' 't*'; do
        mkdir -p "$BATS_TEST_TMPDIR/$t"
        TMPDIR="$BATS_TEST_TMPDIR/$t" run_split "$ROOT/scripts/demo" --input "$ROOT/tests/fixtures/demo/messages.txt"
        [ "$status" -eq 1 ] || { echo "$t: $status $stderr_text"; return 1; }
        [ -z "$output" ]
        [ "$(wc -l <<<"$stderr_text")" -eq 1 ] || { echo "$t: $stderr_text"; return 1; }
        [[ $stderr_text == "demo: the work directory $BATS_TEST_TMPDIR/$t/ods-demo."*" holds * ? or {, which the engine's file() takes as a glob (reading none of its files): set TMPDIR to a plain path" ]] ||
            { echo "$t: $stderr_text"; return 1; }
        # and the work directory is gone
        [ "$(find "$BATS_TEST_TMPDIR/$t" -mindepth 1 | wc -l)" -eq 0 ]
    done
    mkdir -p "$BATS_TEST_TMPDIR/q'q\\b"
    TMPDIR="$BATS_TEST_TMPDIR/q'q\\b" run_split "$ROOT/scripts/demo" --input "$ROOT/tests/fixtures/demo/messages.txt"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output" > report.txt
    [ "$(report_rows report.txt)" = "$(printf '1\tinput-1\t7\t1\t6\t0\t3\t3\t0\t0\t3\t1\t1\t1\tyes')" ]
}

@test "demo --input: repeated lines, an invalid one and an empty one: every line accounted for, each message staged at its line number" {
    # repeats.txt: line 1's message again on lines 2 and 6, line 3 empty, line 4 not JSON
    local f=$ROOT/tests/fixtures/demo/repeats.txt
    run_split "$ROOT/scripts/demo" --input "$f" --keep db
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output" > report.txt
    [ "$(report_rows report.txt | wc -l)" -eq 1 ]
    local delta load messages empty received redelivered accepted stored unchanged stale rejected nao ksm fi all
    IFS=$'\t' read -r delta load messages empty received redelivered accepted stored unchanged stale rejected nao ksm fi all \
        < <(report_rows report.txt)
    [ "$all" = yes ]
    [ "$received" -eq $((accepted + rejected + redelivered)) ]
    # 7 lines, 1 empty; a line repeated in a file is a message sent again, not a redelivery: its
    # own offset, accepted, and the gate stores its version once (A-1 new, A-1 paid and A-4
    # stored; the two repeats unchanged); the not-JSON line rejected
    [ "$messages $empty $received $redelivered $accepted $rejected $stored $unchanged $stale" = "7 1 6 0 5 1 3 2 0" ]
    # staged by ods-ddl stage: topic the file's name, partition 0, offset = the line number, the
    # empty line 3 skipped without renumbering the lines after it
    run_split chlocal --path db -q "SELECT _topic, _partition, _offset, raw FROM stg.orders_raw ORDER BY _offset FORMAT TSVRaw"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$output" = "$(awk 'length($0) { printf "repeats.txt\t0\t%d\t%s\n", NR, $0 }' "$f")" ]
    # so the rejected message is found by its line
    run_split chlocal --path db -q "SELECT _offset, raw FROM ods.order_snapshot_errors FORMAT TSVRaw"
    [ "$output" = "$(printf '4\tnot json')" ]
    run_split chlocal --path db -q "SELECT order_id, status FROM ods.order_v ORDER BY order_id FORMAT TSV"
    [ "$output" = "$(printf 'A-1\tpaid\nA-4\tnew')" ]
}

@test "demo --input /dev/stdin: a pipe is read once, whole; one progress line per step on stderr, none on stdout" {
    run_split bash -c 'cat "$1" | "$0" --input /dev/stdin' "$ROOT/scripts/demo" "$ROOT/tests/fixtures/demo/messages.txt"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output" > report.txt
    [ "$(report_rows report.txt)" = "$(printf '1\tinput-1\t7\t1\t6\t0\t3\t3\t0\t0\t3\t1\t1\t1\tyes')" ]
    grep -E '^demo: \[[0-9]+/[0-9]+\] ' <<<"$stderr_text" > progress.txt
    [ "$(wc -l < progress.txt)" -eq 5 ]
    [ "$(sed -n 1p progress.txt)" = "demo: [1/5] creating the single-node schema (ods-ddl schema) in a fresh database …" ]
    [ "$(sed -n 3p progress.txt)" = "demo: [3/5] running the transition for load 1 of 1 (input-1) …" ]
    [ "$(grep -c '^demo: \[' report.txt)" -eq 0 ]
}

@test "demo: a message unaccounted for in the ledger fails the run (exit 1), after the report" {
    # A copy of the demo whose count of the generated messages is one too many: the ledger's
    # received then differs from messages - empty, as when a message is lost.
    mkdir -p r/scripts/lib
    sed "s/SELECT '\$1', count(), countIf(raw = '') FROM table/SELECT '\$1', count() + 1, countIf(raw = '') FROM table/" \
        "$ROOT/scripts/demo" > r/scripts/demo
    [ "$(grep -c 'count() + 1' r/scripts/demo)" -eq 1 ]
    chmod +x r/scripts/demo
    cp "$ROOT/scripts/lib/common.sh" r/scripts/lib/
    printf '#!/bin/sh\nexit 0\n' > r/scripts/setup
    chmod +x r/scripts/setup
    ln -s "$ROOT/clickhouse-config" r/clickhouse-config
    ODS_BUILD_DIR=$BUILD_DIR run_split r/scripts/demo --input "$ROOT/tests/fixtures/demo/messages.txt"
    [ "$status" -eq 1 ]
    [[ "$output" == *"│ NO "* ]]
    [[ "$stderr_text" == *"demo: FAILED: not every message is accounted for in load(s) input-1 "* ]]
}

@test "demo: usage errors exit 2" {
    run_split "$ROOT/scripts/demo" --orders
    [ "$status" -eq 2 ]
    run_split "$ROOT/scripts/demo" --bogus
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "demo: unknown option: --bogus (try --help)" ]
    run_split "$ROOT/scripts/demo" --orders 0
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "demo: bad value for --orders: 0 (expected a whole number ≥ 1)" ]
    mkdir taken
    run_split "$ROOT/scripts/demo" --keep taken
    [ "$status" -eq 2 ]
    run_split "$ROOT/scripts/demo" --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:* ]]
}

@test "every script in scripts/: --help on stdout, exit 0; an unknown option is one line on stderr naming it, exit 2" {
    local s name n=0
    for s in "$ROOT"/scripts/*; do
        [ -f "$s" ] && [ -x "$s" ] || continue
        name=$(basename "$s")
        run_split "$s" --help
        [ "$status" -eq 0 ] || { echo "$name --help: exit $status"; return 1; }
        [[ "$output" == usage:* ]] || { echo "$name --help: $output"; return 1; }
        [ -z "$stderr_text" ] || { echo "$name --help wrote to stderr: $stderr_text"; return 1; }
        run_split "$s" --no-such-option </dev/null
        [ "$status" -eq 2 ] || { echo "$name: exit $status"; return 1; }
        [ "$stderr_text" = "$name: unknown option: --no-such-option (try --help)" ] ||
            { echo "$name: $stderr_text"; return 1; }
        [ -z "$output" ] || { echo "$name wrote to stdout: $output"; return 1; }
        n=$((n + 1))
    done
    [ "$n" -ge 10 ]
}
