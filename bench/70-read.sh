#!/usr/bin/env bash
# 70-read: what reading costs (issue 14). A world of 1 M orders (scaled) after 5 nightly loads
# through the real transition: order_v (_rep FINAL for the orders without a committed hot row,
# UNION ALL the newest committed hot row of the others) against the plain FINAL view of before
# the hot table (`SELECT … FROM ods.order_snapshot_rep FINAL`, the old order_v) on a copy with
# every load folded into _rep; both return the same rows (checked). Side by side, interleaved:
# two full reads (two columns; every column) and point lookups by order_id. Goal ≤ 1.5×.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

reps=${BENCH_REPS:-3}
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/read.XXXXXX")
trap 'rm -rf "$work"' EXIT
for b in chlocal ods-ddl orders-gen order_wire_class hashdiff; do
    [ -x "$BIN/$b" ] || die "no $BIN/$b: build first"
done
n=$(bench_rows 1000000)       # orders in the world = messages of each day's snapshot
changed=$((n / 100))          # exactly 1 % of days 2 … 5 changes (at least one)
((changed >= 1)) || changed=1
loads=5                       # day 1: every order new; days 2 … 5: 1 % changed each
days=30                       # the world's orders are created over 30 days (30 partitions)
dates=(- 2026-03-30 2026-03-31 2026-04-01 2026-04-02 2026-04-03)  # snapshot date of day 1 … 5
lookups=20                    # point lookups per timed command (one chlocal start for all)
run=$work/run                 # chlocal's working directory: no stray files it could take for tables
hot=$work/ods-hot             # the ODS after 5 transitions: _rep, the hot table, the ledger
plain=$work/ods-plain         # its copy with every load folded, and the plain FINAL view
m=$(awk -v n="$n" 'BEGIN {printf "%g", n / 1e6}')
mkdir -p "$run" "$hot"
ch() { (cd "$run" && "$BIN/chlocal" "$@"); }
"$BIN/ods-ddl" schema >"$work/schema.sql"
"$BIN/ods-ddl" transition --gate-pieces "$(bench_gate_pieces "$n")" >"$work/gated.sql"
# stmts FILE K...: statements K... of a generated transition, each from its "-- K. " line to the
# next such line (the header comment before statement 1 is in none).
stmts() {
    local f=$1; shift
    awk -v want=" $* " 'match($0, /^-- [0-9]+\. /) { p = index(want, " " substr($0, 4, RLENGTH - 5) " ") > 0 } p' "$f"
}
# The fold alone: the transition's housekeeping (6) and fold (7), which move the committed hot
# rows into _rep when run with a load id the ledger does not hold. The fold checks that its run
# holds the lease, so the lease is taken first (2) and given back after (11, 12), as a whole run
# does; statement 1 is left out (it refuses a load id with nothing staged).
stmts "$work/gated.sql" 2 6 7 11 12 >"$work/fold.sql"
[ "$(grep -c '^-- [0-9]*\. ' "$work/fold.sql")" -eq 5 ] &&
    grep -q '^CREATE TABLE ods.order_lease ' "$work/fold.sql" &&
    grep -q '^ALTER TABLE ods.order_snapshot_hot DELETE ' "$work/fold.sql" &&
    grep -q '^INSERT INTO ods.order_snapshot_rep ' "$work/fold.sql" &&
    grep -q '^DROP TABLE IF EXISTS ods.order_lease;$' "$work/fold.sql" ||
    die "the generated transition has no lease (2), housekeeping (6: ALTER TABLE ods.order_snapshot_hot DELETE),
    fold (7: INSERT INTO ods.order_snapshot_rep) or lease release (12) where this bench expects them"
# order_v's columns, as the schema lists them (the contract's 11, _hashdiff, _load_id, _load_ts)
cols=$(awk '/^CREATE VIEW IF NOT EXISTS ods.order_v AS$/ {getline; sub(/^SELECT /, ""); print; exit}' "$work/schema.sql")
[ -n "$cols" ] && [[ $cols == order_id,* ]] || die "no order_v column list in the generated schema"
ch --path "$hot" --queries-file "$work/schema.sql"

# check_night LOAD STORED: the ledger says every message was accepted, STORED versions stored
# (the rest unchanged), none stale or rejected.
check_night() {
    local got
    got=$(ch --path "$hot" --format TSV -q "
        SELECT received, accepted, stored, unchanged, stale, rejected FROM ods.order_loads WHERE _load_id = '$1'" |
        tr '\t' ' ')
    [ "$got" = "$n $n $2 $((n - $2)) 0 0" ] ||
        die "$1: ledger row '$got'; want received accepted stored unchanged stale rejected = $n $n $2 $((n - $2)) 0 0"
}
# transition D: the real nightly transition (gated) of day D's staged messages.
transition() {
    local t0=$SECONDS
    ch --path "$hot" --param_load_id="day$1" --queries-file "$work/gated.sql"
    say "day $1 transition: $((SECONDS - t0)) s" >&2
}

# Day 1: orders-gen's snapshot of model day 30 with a 30-day window holds every order of the
# world (all created on days 1 … 30), all new to the ODS; staged with Kafka-like coordinates
# (3 partitions, offsets 0 … n-1) as scripts/demo does, then transitioned (as bench/60).
say "day 1: $n orders from orders-gen, staged and transitioned" >&2
"$BIN/orders-gen" --orders "$n" --days "$days" --window "$days" --day "$days" --seed 13 --format rowbinary |
    ch --path "$hot" --input-format RowBinary --structure 'raw String' -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
        SELECT raw, 'orders.snapshot.v1', n % 3, n, toDateTime64('${dates[1]}', 3, 'UTC') + toIntervalSecond(n % 86400),
               '', 'day1', now64(3, 'UTC')
        FROM (SELECT raw, rowNumberInAllBlocks() AS n FROM table)"
transition 1
check_night day1 "$n"

# Days 2 … 5, each by SQL from the day before's staged messages (bench_stage_day, as bench/60:
# all orders again, exactly 1 % changed), each transitioned.
for ((d = 2; d <= loads; d++)); do
    bench_stage_day "$hot" "$d"
    transition "$d"
    check_night "day$d" "$changed"
done

# The state every reader meets between two nights: 5 ledger rows; days 1 … 4 in _rep; in the
# hot table day 4 (folded, kept until the next night's housekeeping) and day 5 (committed, not
# yet folded). Then _rep settled (each partition merged, as background merges leave it).
read -r ledger hot4 hot5 other rep5 <<<"$(ch --path "$hot" --format TSV -q "
    SELECT (SELECT count() FROM ods.order_loads),
           countIf(_load_id = 'day4'), countIf(_load_id = 'day5'), countIf(_load_id NOT IN ('day4', 'day5')),
           (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'day5')
    FROM ods.order_snapshot_hot")"
[ "$ledger" -eq "$loads" ] && [ "$hot4" -eq "$changed" ] && [ "$hot5" -eq "$changed" ] && [ "$other" -eq 0 ] &&
    [ "$rep5" -eq 0 ] ||
    die "after day $loads: $ledger ledger rows, hot table $hot4 rows of day 4, $hot5 of day 5, $other others,
    $rep5 day-5 rows in _rep (want $loads, $changed, $changed, 0, 0)"
ch --path "$hot" -q "OPTIMIZE TABLE ods.order_snapshot_rep FINAL SETTINGS optimize_skip_merged_partitions = 1"

# The plain side: a copy where the fold (statements 6 and 7, as the next night would run them)
# moved day 5 into _rep and the hot table no longer matters, _rep settled alike, and order_v
# replaced by the plain FINAL view that order_v was before the hot table (ods-ddl schema of
# commit aeb5f89). Both sides then hold the same versions, and the timed queries are the same text.
say "plain side: every load folded into _rep, order_v = _rep FINAL" >&2
cp -a "$hot" "$plain"
ch --path "$plain" --param_load_id=fold --queries-file "$work/fold.sql"
lease=$(ch --path "$plain" -q "SELECT count() FROM ods.order_lease_v")
[ "$lease" -eq 0 ] || die "plain side: the fold left the lease held"
ch --path "$plain" -q "
    OPTIMIZE TABLE ods.order_snapshot_rep FINAL SETTINGS optimize_skip_merged_partitions = 1;
    DROP VIEW ods.order_v;
    CREATE VIEW ods.order_v AS SELECT $cols FROM ods.order_snapshot_rep FINAL
    SETTINGS do_not_merge_across_partitions_select_final = 0;"
rep5=$(ch --path "$plain" -q "SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'day5'")
[ "$rep5" -eq "$changed" ] || die "plain side: $rep5 day-5 versions folded into _rep, want $changed"
say "databases: order_v side $(du -sm "$hot" | cut -f1) MiB, plain side $(du -sm "$plain" | cut -f1) MiB" >&2

# The queries, one file each, the same on both sides. Full reads: count() and a sum of
# cityHash64 over order_id and _hashdiff (every order's current version, two columns), and over
# every column of order_v (the current rows materialised whole, items included). Point lookups:
# one statement each, WHERE order_id = '…', half of the ids changed on day 5 (order_v finds their
# current version in the hot table), half with no hot row (in _rep only).
echo "SELECT count(), sum(cityHash64(order_id, _hashdiff)) FROM ods.order_v" >"$work/narrow.sql"
echo "SELECT count(), sum(cityHash64($cols)) FROM ods.order_v" >"$work/wide.sql"
half=$((lookups / 2))
ch --path "$hot" --format TSV -q "
    SELECT order_id FROM (SELECT order_id FROM ods.order_snapshot_hot WHERE _load_id = 'day5'
                          ORDER BY cityHash64(order_id) LIMIT $half)
    UNION ALL
    SELECT order_id FROM (SELECT order_id FROM ods.order_snapshot_rep
                          WHERE order_id NOT IN (SELECT order_id FROM ods.order_snapshot_hot)
                          ORDER BY cityHash64(order_id) LIMIT $((lookups - half)))" |
    awk '{printf "SELECT * FROM ods.order_v WHERE order_id = '\''%s'\'' FORMAT TSV;\n", $1}' >"$work/lookup.sql"
nl=$(wc -l <"$work/lookup.sql")
((nl >= 1)) || die "no order ids for the point lookups"

# Same rows before timing: every row of order_v (dumped whole, Native) EXCEPT ALL the plain view's
# rows and the other way round, both empty, and n rows, one per order; and each timed query
# answers alike on both sides.
say "checking that both sides return the same rows" >&2
ch --path "$hot" -q "SELECT * FROM ods.order_v FORMAT Native" >"$work/order_v.native"
read -r only_hot only_plain rows orders <<<"$(ch --path "$plain" --format TSV -q "
    SELECT (SELECT count() FROM (SELECT * FROM file('$work/order_v.native', Native) EXCEPT SELECT * FROM ods.order_v)),
           (SELECT count() FROM (SELECT * FROM ods.order_v EXCEPT SELECT * FROM file('$work/order_v.native', Native))),
           count(), uniqExact(order_id)
    FROM ods.order_v")"
rm -f "$work/order_v.native"
[ "$only_hot" -eq 0 ] && [ "$only_plain" -eq 0 ] && [ "$rows" -eq "$n" ] && [ "$orders" -eq "$n" ] ||
    die "order_v and the plain FINAL view differ: $only_hot rows only in order_v, $only_plain only in the plain view,
    $rows rows of $orders orders in the plain view (want 0, 0, $n, $n)"
for q in narrow wide lookup; do
    a=$(ch --path "$hot" --queries-file "$work/$q.sql")
    b=$(ch --path "$plain" --queries-file "$work/$q.sql")
    [ "$a" = "$b" ] || die "$q.sql answers differently on the two sides"
    [ "$q" != lookup ] || [ "$(wc -l <<<"$a")" -eq "$nl" ] || die "the point lookups found $(wc -l <<<"$a") rows, want $nl"
done

say "timing: $reps reps, interleaved" >&2
cmd() { echo "cd '$run' && '$BIN/chlocal' --path '$1' --queries-file '$work/$2.sql'"; }
bench_interleave "$reps" \
    plain_narrow "$(cmd "$plain" narrow)" v_narrow "$(cmd "$hot" narrow)" \
    plain_wide "$(cmd "$plain" wide)" v_wide "$(cmd "$hot" wide)" \
    plain_lookup "$(cmd "$plain" lookup)" v_lookup "$(cmd "$hot" lookup)" || die "a read failed"

ratio() { awk -v a="${BENCH_SECS[plain_$1]}" -v b="${BENCH_SECS[v_$1]}" 'BEGIN {printf "%.2f", (a > 0) ? b / a : 0}'; }
bench_row "read: plain _rep FINAL view (all folded), ${m}M orders, 5 loads: count, cityHash64(order_id, _hashdiff)" "$n" plain_narrow
bench_row "read: order_v (_rep FINAL + hot table), same query: $(ratio narrow)x the time (goal ≤ 1.5x)" "$n" v_narrow plain_narrow
bench_row "read: plain _rep FINAL view, count, cityHash64 of every column" "$n" plain_wide
bench_row "read: order_v, same query: $(ratio wide)x the time (goal ≤ 1.5x)" "$n" v_wide plain_wide
bench_row "read: plain _rep FINAL view, $nl point lookups WHERE order_id = … (one chlocal)" "$nl" plain_lookup
bench_row "read: order_v, the same $nl lookups: $(ratio lookup)x the time" "$nl" v_lookup plain_lookup
