#!/usr/bin/env bash
# 80-typing: what typing costs in the transition (issue 15, "Speed"). One load of 500 000
# realistic messages (scaled; orders-gen, 2 % dirty, every order new) through the WHOLE
# transition (`ods-ddl transition`, all 12 statements in one chlocal) typed three ways, side by
# side, interleaved, each run on a fresh copy of the database: `--typing udf` (the default: one
# order_wire_parse call a message gives the class and the 11 typed fields), `--typing sql` (the
# class from order_wire_class, each field typed by SQL: a dozen JSON parses a message) and the
# native SQL transition (`--typing sql` with native_wire_class of tests/sql/native_wire_class.sql
# for the class: no UDF but hashdiff_strict). Goals: UDF typing ≥ 3× SQL typing, ≥ 6× native.
# The UDF typing parses each message once, in the freeze (statement 4), into the manifest that
# every later statement reads; the SQL typings classify there and type in the gate (statement
# 9). A fourth run is the floor: the UDF transition whose freeze reads every message's
# order_wire_parse tuple from a table filled beforehand (no parsing at all, the copy not timed):
# what the rest of the transition (the checks, the manifest's writes, hashdiff, the gate, the
# commit) costs whatever the typing. Every run is checked (ledger, stored rows, error rows: the
# same for all four; the lease given back). Then, at 100k, 1M and 4M
# messages, the UDF-typed transition and the typing alone (SELECT order_wire_parse(raw) … FORMAT
# Null over the staged load): time per message and peak memory. Every time is query time
# (chlocal --time, summed over a run's statements), not the command's: engine start-up would
# pull every ratio towards 1.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

reps=${BENCH_REPS:-3}
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/typing.XXXXXX")
trap 'rm -rf "$work"' EXIT
for b in chlocal ods-ddl orders-gen order_wire_class hashdiff; do
    [ -x "$BIN/$b" ] || die "no $BIN/$b: build first"
done
n=$(bench_rows 500000)        # messages of the compared load (= orders: each once, all new)
sizes=("$(bench_rows 100000)" "$(bench_rows 1000000)" "$(bench_rows 4000000)")  # growth of UDF typing
run=$work/run                 # chlocal's working directory: no stray files it could take for tables
mkdir -p "$run"
ch() { (cd "$run" && "$BIN/chlocal" "$@"); }
# human N: 500000 → 500k, 4000000 → 4M (for labels)
human() { awk -v n="$1" 'BEGIN {if (n >= 1e6) printf "%gM", n / 1e6; else if (n >= 1e4) printf "%gk", n / 1e3; else printf "%d", n}'; }

# The three transitions. The native one is the SQL-typed one with the class from the native
# predicate: its CREATE FUNCTION first, then every order_wire_class(raw) replaced.
"$BIN/ods-ddl" schema >"$work/schema.sql"
gp=$(bench_gate_pieces "$n")
"$BIN/ods-ddl" transition --typing udf --gate-pieces "$gp" >"$work/udf.sql" || die "ods-ddl transition --typing udf failed"
"$BIN/ods-ddl" transition --typing sql --gate-pieces "$gp" >"$work/sql.sql" || die "ods-ddl transition --typing sql failed"
# the growth runs: each size with the gate's INSERTs ods-load would give it
for s in "${sizes[@]}"; do
    "$BIN/ods-ddl" transition --typing udf --gate-pieces "$(bench_gate_pieces "$s")" >"$work/udf-$s.sql" ||
        die "ods-ddl transition --typing udf failed"
done
{ cat "$ROOT/tests/sql/native_wire_class.sql"; echo
  sed 's/order_wire_class(raw)/native_wire_class(raw)/g' "$work/sql.sql"; } >"$work/native.sql"
grep -q 'order_wire_parse(raw)' "$work/udf.sql" && ! grep -q 'order_wire_class(' "$work/udf.sql" ||
    die "the --typing udf transition does not type by order_wire_parse(raw) alone"
grep -q 'order_wire_class(raw)' "$work/sql.sql" && ! grep -q 'order_wire_parse' "$work/sql.sql" ||
    die "the --typing sql transition does not classify by order_wire_class(raw)"
grep -q 'native_wire_class(raw)' "$work/native.sql" && ! grep -Eq 'order_wire_(class|parse)\(' "$work/native.sql" ||
    die "the native transition still calls a wire UDF"
# stmts FILE K...: statements K... of a generated transition, each from its "-- K. " line to the
# next such line (the header comment before statement 1 is in none).
stmts() {
    local f=$1; shift
    awk -v want=" $* " 'match($0, /^-- [0-9]+\. /) { p = index(want, " " substr($0, 4, RLENGTH - 5) " ") > 0 } p' "$f"
}
# The floor: the UDF transition whose freeze (statement 4, the only place it parses) reads the
# table stg.orders_pre, the staged rows with _w = order_wire_parse(raw) already computed, where
# it read stg.orders_raw and called the UDF: "(SELECT *, order_wire_parse(raw) AS _w FROM (SELECT
# COLS FROM stg.orders_raw" becomes "(SELECT * FROM (SELECT COLS, _w FROM stg.orders_pre" (COLS
# as generated; "*" takes _w as it is). Every other statement as generated.
# (The freeze is in pieces, one INSERT each, each reading staging twice, the coordinates staged
# once and the copies: both reads of each piece are replaced; the scalars that count the staged
# rows and bound the pieces, and the sets of recurring coordinates, still read stg.orders_raw,
# whose rows the table holds.)
parse_src='SELECT *, order_wire_parse(raw) AS _w FROM'
np4=$(stmts "$work/udf.sql" 4 | grep -c '^INSERT INTO ')
[ "$np4" -ge 1 ] && [ "$(grep -o 'order_wire_parse(' "$work/udf.sql" | wc -l)" -eq "$np4" ] &&
    [ "$(stmts "$work/udf.sql" 4 | grep -cF "$parse_src")" -eq "$np4" ] &&
    [ "$(stmts "$work/udf.sql" 4 | grep -c '(SELECT .* FROM stg\.orders_raw$')" -eq "$((2 * np4))" ] ||
    die "the UDF transition does not parse once, in statement 4 ($parse_src (SELECT … FROM stg.orders_raw)"
awk -v a="$parse_src" '
    match($0, /^-- [0-9]+\. /) { freeze = substr($0, 4, RLENGTH - 5) == "4" }
    freeze && (i = index($0, a)) > 0 { $0 = substr($0, 1, i - 1) "SELECT * FROM" substr($0, i + length(a)) }
    freeze && /\(SELECT .* FROM stg\.orders_raw$/ {
        sub(/ FROM stg\.orders_raw$/, "")
        if ($0 !~ /\(SELECT \*$/) $0 = $0 ", _w"
        $0 = $0 " FROM stg.orders_pre"
    }
    { print }' "$work/udf.sql" >"$work/floor.sql"
! grep -q 'order_wire_parse(' "$work/floor.sql" && [ "$(stmts "$work/floor.sql" 4 | grep -c 'stg\.orders_pre$')" -eq "$((2 * np4))" ] &&
    [ "$(stmts "$work/floor.sql" 4 | grep -c 'FROM stg\.orders_raw$')" -eq 0 ] &&
    cmp -s <(stmts "$work/udf.sql" 1 2 3 5 6 7 8 9 10 11 12) <(stmts "$work/floor.sql" 1 2 3 5 6 7 8 9 10 11 12) ||
    die "the floor transition still parses, or differs from the UDF one outside the freeze's source"

# stage DB N: a database with the schema and one staged load L1 of N messages: orders-gen's
# snapshot of model day 10 with a 10-day window (every order of the world once, all new to the
# ODS), 2 % dirty, with Kafka-like coordinates as bench/60-transition.sh stages day 1. Writes
# DB.want: what the ledger must say, "received rejected not_an_object keyset_mismatch
# field_invalid", from the class orders-gen labels each message with.
stage() {
    local db=$1 k=$2
    say "staging $(human "$k") messages into $(basename "$db")" >&2
    mkdir -p "$db"
    ch --path "$db" --queries-file "$work/schema.sql"
    "$BIN/orders-gen" --orders "$k" --days 10 --window 10 --day 10 --dirty 0.02 --seed 15 \
            --format rowbinary --labels "$db.labels" |
        ch --path "$db" --input-format RowBinary --structure 'raw String' -q "
            INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
            SELECT raw, 'orders.snapshot.v1', n % 3, n, toDateTime64('2026-03-10', 3, 'UTC') + toIntervalSecond(n % 86400),
                   '', 'L1', now64(3, 'UTC')
            FROM (SELECT raw, rowNumberInAllBlocks() AS n FROM table)"
    awk -F '\t' '{n++} $2 != "" {r++; c[$2]++}
        END {printf "%d %d %d %d %d\n", n, r, c["not_an_object"], c["keyset_mismatch"], c["field_invalid"]}' \
        "$db.labels" >"$db.want"
    rm -f "$db.labels"
    local staged
    staged=$(ch --path "$db" -q "SELECT count() FROM stg.orders_raw WHERE _load_id = 'L1'")
    [ "$staged" -eq "$k" ] && [ "$(cut -d' ' -f1 "$db.want")" -eq "$k" ] ||
        die "staged $staged messages, orders-gen labelled $(cut -d' ' -f1 "$db.want") (want $k)"
}

# result DB: what a transition of L1 left, one line: the ledger row (received redelivered
# accepted stored unchanged stale rejected not_an_object keyset_mismatch field_invalid), the
# lease's holders, then count and groupBitXor(cityHash64(*)) of the hot table, of the errors
# table and of the stale table.
result() { ch --path "$1" --format TSV -q "
    SELECT (SELECT tuple(received, redelivered, accepted, stored, unchanged, stale, rejected, not_an_object, keyset_mismatch,
                         field_invalid)
            FROM ods.order_loads WHERE _load_id = 'L1'),
           (SELECT count() FROM ods.order_lease_v),
           (SELECT tuple(count(), groupBitXor(cityHash64(*))) FROM ods.order_snapshot_hot),
           (SELECT tuple(count(), groupBitXor(cityHash64(*))) FROM ods.order_snapshot_errors),
           (SELECT tuple(count(), groupBitXor(cityHash64(*))) FROM ods.order_snapshot_stale)" | tr -d '()' | tr '\t,' '  '; }
# check DB WANT_FILE WHAT: sets got to result DB, and dies unless the ledger row says what the
# labels say: every message received once (none redelivered), rejected by class as labelled,
# accepted + rejected = received, stored = accepted (every order new: nothing unchanged or
# stale), the lease given back, and the tables hold as many rows as the ledger counts.
check() {
    local rec red acc sto unc sta rej c0 c1 c2 lease hot err stl sx wrec wrej wc0 wc1 wc2
    got=$(result "$1")
    read -r rec red acc sto unc sta rej c0 c1 c2 lease hot _ err _ stl sx <<<"$got"
    read -r wrec wrej wc0 wc1 wc2 <"$2"
    [ -n "${sx:-}" ] && [ "$rec" -eq "$wrec" ] && [ "$red $lease" = "0 0" ] && [ "$rej" -eq "$wrej" ] &&
        [ "$c0 $c1 $c2" = "$wc0 $wc1 $wc2" ] &&
        [ $((acc + rej)) -eq "$rec" ] && [ "$sto" -eq "$acc" ] && [ "$unc $sta" = "0 0" ] &&
        [ "$hot" -eq "$sto" ] && [ "$err" -eq "$rej" ] && [ "$stl" -eq 0 ] ||
        die "$3: ledger received redelivered accepted stored unchanged stale rejected not_an_object keyset_mismatch
    field_invalid, lease holders, then hot rows, errors rows, stale rows (each with a fingerprint) = $got
    want received $wrec, none redelivered, rejected $wrej ($wc0 $wc1 $wc2 by class), accepted + rejected = received,
    stored = accepted, unchanged = stale = 0, no lease holder, hot rows = stored, error rows = rejected, no stale rows"
}
# differ DB REF WHAT: on stderr, the first rows of the hot and errors tables that are in DB (the
# run WHAT) and not in the database REF (the reference run), and the other way round.
differ() {
    local t
    for t in order_snapshot_hot order_snapshot_errors; do
        ch --path "$2" -q "SELECT * FROM ods.$t INTO OUTFILE '$2.$t.native' TRUNCATE FORMAT Native"
        say "ods.$t: rows only in the $3 run (<), only in the reference run (>):" >&2
        ch --path "$1" --format TSV -q "
            SELECT '<', * FROM (SELECT * FROM ods.$t EXCEPT ALL SELECT * FROM file('$2.$t.native', Native)) LIMIT 3
            UNION ALL
            SELECT '>', * FROM (SELECT * FROM file('$2.$t.native', Native) EXCEPT ALL SELECT * FROM ods.$t) LIMIT 3" |
            cut -c1-400 >&2
    done
}

# One transition on a fresh copy of BASE (the copy is not timed), all its statements in one
# chlocal: its time is the sum of the statements' query times (bench_qtime), its peak RSS the
# process's; then the result is checked. The times of each NAME are gathered for the median.
declare -A times
transition() {
    local name=$1 base=$2 sql=$3 db=$work/fresh
    rm -rf "$db"
    cp -a "$base" "$db"
    bench_qtime "$name" "$run" 12 --path "$db" --param_load_id=L1 --queries-file "$sql" || die "transition ($name) failed"
    times[$name]+="${BENCH_SECS[$name]} "
    check "$db" "$base.want" "$name"
}

base=$work/base-$n
stage "$base" "$n"
say "staged: $(du -sm "$base" | cut -f1) MiB; want (received rejected by class): $(<"$base.want")" >&2
# the floor's table: every column of the staged rows (MATERIALIZED ones too) and the parse
ch --path "$base" -q "CREATE TABLE stg.orders_pre ENGINE = MergeTree ORDER BY (_load_id, _topic, _partition, _offset)
    AS SELECT *, order_wire_parse(raw) AS _w FROM stg.orders_raw SETTINGS asterisk_include_materialized_columns = 1"

# The three typings, interleaved; every run gives the same rows as the first one (ledger, and
# count and fingerprint of the hot, errors and stale tables), whose database is kept for a diff.
ref="" ref_name=""
for ((r = 0; r < reps; r++)); do
    for v in native sql udf floor; do
        transition "$v" "$base" "$work/$v.sql"
        if [ -z "$ref" ]; then
            ref=$got ref_name=$v
            mv "$work/fresh" "$work/ref"
        elif [ "$got" != "$ref" ]; then
            differ "$work/fresh" "$work/ref" "$v"
            die "typing $v gave another result than typing $ref_name (rep $((r + 1))):
    $v:   $got
    $ref_name: $ref
    (ledger received redelivered accepted stored unchanged stale rejected not_an_object keyset_mismatch
     field_invalid; lease holders; hot, errors, stale tables: count() and groupBitXor(cityHash64(*)))"
        fi
        say "rep $((r + 1)) $v typing: ${BENCH_SECS[$v]} s" >&2
    done
done
rm -rf "$work/fresh" "$work/ref"
for v in native sql udf floor; do BENCH_SECS[$v]=$(bench_median "${times[$v]}"); done
read -r _ _ _ _ _ _ rej _ <<<"$ref"
vs_sql=$(awk -v a="${BENCH_SECS[sql]}" -v b="${BENCH_SECS[udf]}" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
vs_native=$(awk -v a="${BENCH_SECS[native]}" -v b="${BENCH_SECS[udf]}" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
k=$(human "$n")
bench_row "typing: native SQL transition (native_wire_class, fields by SQL), $k messages, $rej rejected" "$n" native
bench_row "typing: SQL typing (order_wire_class UDF, fields by SQL)" "$n" sql native
bench_row "typing: UDF typing (order_wire_parse): ${vs_sql}x faster than SQL typing (goal >= 3x), ${vs_native}x than native (goal >= 6x)" "$n" udf native
sql_floor=$(awk -v a="${BENCH_SECS[sql]}" -v b="${BENCH_SECS[floor]}" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
bench_row "typing: floor, no parsing (the tuples read from a table): SQL typing takes ${sql_floor}x the floor, the most any typing can gain" "$n" floor native
rm -rf "$base" "$base.want"

# Growth: the UDF-typed transition at 100k, 1M and 4M messages (each its own world, staged the
# same way), interleaved; the 100k run is the anchor, so the ratio shows how time grows. And the
# typing alone over the same staged loads (one SELECT, FORMAT Null: the UDF's stream).
for s in "${sizes[@]}"; do stage "$work/base-$s" "$s"; done
for ((r = 0; r < reps; r++)); do
    for s in "${sizes[@]}"; do
        transition "u$s" "$work/base-$s" "$work/udf-$s.sql"
        say "rep $((r + 1)) UDF typing, $(human "$s") messages: ${BENCH_SECS[u$s]} s" >&2
        bench_qtime "t$s" "$run" 1 --path "$work/base-$s" -q 'SELECT order_wire_parse(raw) FROM stg.orders_raw FORMAT Null' ||
            die "the typing alone failed at $s messages"
        times[t$s]+="${BENCH_SECS[t$s]} "
    done
done
rm -rf "$work/fresh"
first=${sizes[0]}
for w in "u:the UDF-typed transition" "t:the typing alone (order_wire_parse, FORMAT Null)"; do
    x=${w%%:*} what=${w#*:}
    for s in "${sizes[@]}"; do
        BENCH_SECS[$x$s]=$(bench_median "${times[$x$s]}")
        us=$(awk -v t="${BENCH_SECS[$x$s]}" -v n="$s" 'BEGIN {printf "%.2f", 1e6 * t / n}')
        mib=${BENCH_MIB[$x$s]}
        if [ "$s" = "$first" ]; then
            bench_row "typing: $what, $(human "$s") messages: $us µs/message, peak $mib MiB (growth anchor)" "$s" "$x$s"
        else
            grow=$(awk -v a="${BENCH_MIB[$x$first]}" -v b="$mib" 'BEGIN {printf "%+.0f", (a > 0) ? 100 * (b - a) / a : 0}')
            bench_row "typing: $what, $(human "$s") messages: $us µs/message, peak $mib MiB ($grow % over $(human "$first"))" "$s" "$x$s" "$x$first"
        fi
    done
done
