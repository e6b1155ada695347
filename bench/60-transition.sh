#!/usr/bin/env bash
# 60-transition: the STG → ODS transition at scale (issue 13, "Scale"). A world of 1 M orders
# (scaled): day 1 stages and transitions a snapshot of every order; days 2, 3 and 4 re-send all
# of them with exactly 1 % changed. The day-4 transition, in the steady state of a nightly
# pipeline, gated (`ods-ddl transition`, store changes) against `--store every`, and the gated one
# again on an ODS of 5 M orders (4 M older orders that are not in the load), side by side,
# interleaved, each run on a fresh copy of the database; and the gate's prior probe alone on an
# empty, the 1 M and the 5 M ODS.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

reps=${BENCH_REPS:-3}
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/transition.XXXXXX")
trap 'rm -rf "$work"' EXIT
for b in chlocal ods-ddl orders-gen order_wire_class hashdiff; do
    [ -x "$BIN/$b" ] || die "no $BIN/$b: build first"
done
n=$(bench_rows 1000000)       # orders in the world = messages of each day's snapshot
extra=$((4 * n))              # the 5 M ODS: 4 M more orders, older, not in the measured load
changed=$((n / 100))          # exactly 1 % of days 2, 3 and 4 changes (at least one)
((changed >= 1)) || changed=1
days=30                       # the world's orders are created over 30 days (30 partitions)
dates=(- 2026-03-30 2026-03-31 2026-04-01 2026-04-02)  # snapshot date of day 1 … 4 (day 1: model day 30)
run=$work/run                 # chlocal's working directory: no stray files it could take for tables
base1=$work/base-1m base5=$work/base-5m
m=$(awk -v n="$n" 'BEGIN {printf "%g", n / 1e6}') m5=$(awk -v n="$((n + extra))" 'BEGIN {printf "%g", n / 1e6}')
mkdir -p "$run" "$base1"
ch() { (cd "$run" && "$BIN/chlocal" "$@"); }
"$BIN/ods-ddl" schema >"$work/schema.sql"
"$BIN/ods-ddl" transition --gate-pieces "$(bench_gate_pieces "$n")" >"$work/gated.sql"
"$BIN/ods-ddl" transition --store every --gate-pieces "$(bench_gate_pieces "$n")" >"$work/every.sql"
ch --path "$base1" --queries-file "$work/schema.sql"

# ledger DB LOAD: the load's ledger row (ods.order_loads): received redelivered accepted stored
# unchanged stale rejected, or nothing when the load is not committed; then how many hold the
# transition's lease (0: every run gives it back).
ledger() { ch --path "$1" --format TSV -q "
    SELECT received, redelivered, accepted, stored, unchanged, stale, rejected FROM ods.order_loads WHERE _load_id = '$2';
    SELECT count() FROM ods.order_lease_v"; }
# check_night DB LOAD STORED: the ledger says every message was accepted (none twice), STORED
# versions stored (the rest unchanged), none stale or rejected; the lease was given back.
check_night() {
    local got
    got=$(ledger "$1" "$2" | paste -sd ' ' | tr '\t' ' ')
    [ "$got" = "$n 0 $n $3 $((n - $3)) 0 0 0" ] ||
        die "$2: ledger row and lease holders '$got'; want received redelivered accepted stored unchanged stale rejected, holders = $n 0 $n $3 $((n - $3)) 0 0 0"
}

# Day 1: orders-gen's snapshot of model day 30 with a 30-day window holds every order of the
# world (all created on days 1 … 30), all new to the ODS; staged with Kafka-like coordinates
# (3 partitions, offsets 0 … n-1) as scripts/demo does, then transitioned (gated).
say "day 1: $n orders from orders-gen, staged and transitioned" >&2
"$BIN/orders-gen" --orders "$n" --days "$days" --window "$days" --day "$days" --seed 13 --format rowbinary |
    ch --path "$base1" --input-format RowBinary --structure 'raw String' -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
        SELECT raw, 'orders.snapshot.v1', n % 3, n, toDateTime64('${dates[1]}', 3, 'UTC') + toIntervalSecond(n % 86400),
               '', 'day1', now64(3, 'UTC')
        FROM (SELECT raw, rowNumberInAllBlocks() AS n FROM table)"
t0=$SECONDS
ch --path "$base1" --param_load_id=day1 --queries-file "$work/gated.sql"
say "day 1 transition: $((SECONDS - t0)) s" >&2
check_night "$base1" day1 "$n"

# The steady state. A transition freezes its load into the manifest, deletes from
# ods.order_snapshot_hot the rows of loads that an earlier transition folded (housekeeping), folds
# the committed hot rows into ods.order_snapshot_rep, then writes its own load to the hot table. After day 1 alone the day-2 transition would fold all
# 1 M first versions, which a nightly pipeline does once in its life. So days 2 and 3 run as real
# nights first (day 2 folds day 1's 1 M; day 3 deletes them from the hot table and folds day 2):
# the measured day 4 then finds what every night finds: 4 ledger rows, the ODS up to day 2 in
# _rep, and in the hot table day 2 (folded, deleted by day 4's housekeeping) and day 3
# (committed, folded by day 4), 1 % each. Day 4's messages are staged before the 5 M copy.
for d in 2 3; do
    bench_stage_day "$base1" "$d"
    t0=$SECONDS
    ch --path "$base1" --param_load_id="day$d" --queries-file "$work/gated.sql"
    say "day $d transition: $((SECONDS - t0)) s" >&2
    check_night "$base1" "day$d" "$changed"
done
bench_stage_day "$base1" 4
read -r hot2 hot3 other <<<"$(ch --path "$base1" --format TSV -q "
    SELECT countIf(_load_id = 'day2'), countIf(_load_id = 'day3'), countIf(_load_id NOT IN ('day2', 'day3'))
    FROM ods.order_snapshot_hot")"
[ "$hot2" -eq "$changed" ] && [ "$hot3" -eq "$changed" ] && [ "$other" -eq 0 ] ||
    die "hot table before day 4: $hot2 rows of day 2, $hot3 of day 3, $other others (want $changed, $changed, 0)"

# The 5 M ODS: the same database plus 4 M older orders, inserted by SQL into _rep: copies of
# day 1's typed rows under new order_ids (ORD- + 16 hex digits, as orders-gen writes them), moved
# 30, 60, 90 or 120 days back (so the ODS holds 150 days of history, 5 times the orders), with
# _hashdiff recomputed over the new fields by the hashdiff_strict expression of the SQL-typed
# transition (the default one hashes inside order_wire_parse, bit-identical: order_wire_parse.bats).
# They need no ledger row: order_v shows every _rep row (FINAL) of an order without a committed
# hot row, and only the hot table's rows wait for their load's commit; transitions never fold
# or delete _rep rows, and the history's orders have no hot rows.
say "${m5}M ODS: $extra older orders inserted by SQL" >&2
hd=$("$BIN/ods-ddl" transition --typing sql | grep -o 'hashdiff_strict(\[[^]]*\])' | head -1) || true
[ -n "$hd" ] || die "no hashdiff_strict([...]) expression in ods-ddl transition --typing sql"
cp -a "$base1" "$base5"
ch --path "$base5" -q "
    INSERT INTO ods.order_snapshot_rep (order_id, user_id, status, created_at, updated_at, items_total, discount,
                                        delivery, total, items, snapshot_date, _hashdiff, _load_id, _load_ts)
    SETTINGS max_partitions_per_insert_block = 1000
    SELECT order_id, user_id, status, created_at, updated_at, items_total, discount, delivery, total, items,
           snapshot_date, $hd AS _hashdiff, 'history', _load_ts
    FROM (SELECT concat('ORD-', leftPad(hex(cityHash64(r.order_id, k)), 16, '0')) AS order_id,
                 user_id, status, created_at - toIntervalDay(30 * k) AS created_at,
                 updated_at - toIntervalDay(30 * k) AS updated_at, items_total, discount, delivery, total, items,
                 snapshot_date - 30 * k AS snapshot_date, _load_ts
          FROM ods.order_snapshot_rep AS r ARRAY JOIN [1, 2, 3, 4] AS k
          WHERE _load_id = 'day1')"
# A settled ODS: each partition of _rep merged (both worlds alike), 1 M and 5 M distinct orders
# in _rep, and as many in order_v.
for db in "$base1" "$base5"; do
    ch --path "$db" -q "OPTIMIZE TABLE ods.order_snapshot_rep FINAL SETTINGS optimize_skip_merged_partitions = 1"
done
for w in "$base1 $n" "$base5 $((n + extra))"; do
    read -r db want <<<"$w"
    read -r total distinct visible <<<"$(ch --path "$db" --format TSV -q "
        SELECT count(), uniqExact(order_id), (SELECT count() FROM ods.order_v) FROM ods.order_snapshot_rep")"
    [ "$total" -eq "$want" ] && [ "$distinct" -eq "$want" ] && [ "$visible" -eq "$want" ] ||
        die "ODS $db: _rep holds $total versions of $distinct orders, order_v $visible rows (want $want of each)"
done
say "databases: ${m}M orders $(du -sm "$base1" | cut -f1) MiB, ${m5}M $(du -sm "$base5" | cut -f1) MiB" >&2

# after DB: what day 4's transition left: its ledger row and the lease (see ledger), and its own work on the
# hot table and _rep: rows of day 4 and of any other load but day 3 in the hot table (day 2's
# were deleted), day 3's versions now in _rep, and error rows of day 4 (there are none).
after() {
    ledger "$1" day4 | paste -sd ' ' | tr '\t' ' '
    ch --path "$1" --format TSV -q "
        SELECT (SELECT countIf(_load_id = 'day4') FROM ods.order_snapshot_hot),
               (SELECT countIf(_load_id NOT IN ('day3', 'day4')) FROM ods.order_snapshot_hot),
               (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'day3'),
               (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'day4')" | tr '\t' ' '
}
# Each rep runs every variant once, in turn, on a fresh copy of its base (the copy is not
# timed); bench_interleave with one rep times the transition alone (a whole chlocal command with
# all its statements, so its peak RSS is the transition's) and keeps the largest peak across reps.
declare -A all want
want[every]=$n want[gated]=$changed want[gated5]=$changed
for ((r = 0; r < reps; r++)); do
    for v in every gated gated5; do
        db=$work/fresh
        rm -rf "$db"
        case $v in every|gated) cp -a "$base1" "$db" ;; gated5) cp -a "$base5" "$db" ;; esac
        sql=$work/gated.sql; [ "$v" = every ] && sql=$work/every.sql
        bench_interleave 1 "$v" "cd '$run' && '$BIN/chlocal' --path '$db' --param_load_id=day4 --queries-file '$sql'" ||
            die "day-4 transition ($v) failed"
        all[$v]+="${BENCH_SECS[$v]} "
        s=${want[$v]}
        got=$(after "$db" | paste -sd ' ')
        [ "$got" = "$n 0 $n $s $((n - s)) 0 0 0 $s 0 $changed 0" ] ||
            die "day 4 ($v): ledger received redelivered accepted stored unchanged stale rejected, lease holders,
    hot rows of day 4, hot rows of loads before day 3, day-3 versions in _rep, error rows = $got
    want $n 0 $n $s $((n - s)) 0 0 0 $s 0 $changed 0 ($changed orders changed)"
        say "rep $((r + 1)) $v: ${BENCH_SECS[$v]} s, stored $s" >&2
        rm -rf "$db"
    done
done
for v in every gated gated5; do
    BENCH_SECS[$v]=$(bench_median "${all[$v]}")
done
BENCH_SECS[gated_anchor]=${BENCH_SECS[gated]} BENCH_MIB[gated_anchor]=${BENCH_MIB[gated]}

cost=$(awk -v g="${BENCH_SECS[gated]}" -v e="${BENCH_SECS[every]}" 'BEGIN {printf "%.2f", (e > 0) ? g / e : 0}')
saving=$(awk -v c="$changed" -v n="$n" 'BEGIN {printf "%.1f", 100 * (1 - c / n)}')
growth=$(awk -v a="${BENCH_MIB[gated]}" -v b="${BENCH_MIB[gated5]}" 'BEGIN {printf "%+.1f", (a > 0) ? 100 * (b - a) / a : 0}')
bench_row "transition: day 4 (1 % changed), --store every, ODS ${m}M orders: stores $n" "$n" every
bench_row "transition: day 4 gated (store changes) vs every: stores $changed ($saving % fewer writes), costs ${cost}x" "$n" gated every
bench_row "transition: day 4 gated, ODS ${m}M orders (memory anchor; the runs above)" "$n" gated_anchor
bench_row "transition: day 4 gated, ODS ${m5}M orders (4/5 older, not in the load): peak ${growth} %" "$n" gated5 gated_anchor

# The gate's prior probe (issue 25): what order_v holds for day 4's orders, the query statement 9
# joins, timed alone (chlocal --time, median of the reps) on the manifest of day 4 (statements 1-8
# run first on a fresh copy, not timed) against an empty ODS (_rep and the hot table emptied), the
# 1 M and the 5 M one; with the granules of _rep its primary key leaves to read (EXPLAIN indexes)
# and the process's peak RSS.
awk '/^-- 9\. /{exit} {print}' "$work/gated.sql" >"$work/upto8.sql"
probe="SELECT order_id, updated_at, _hashdiff FROM ods.order_v
       WHERE order_id IN (SELECT order_id FROM ods.order_manifest WHERE _load_id = 'day4' AND error_class = '')"
declare -A ptimes granules
for v in empty 1m 5m; do
    db=$work/probe-$v
    rm -rf "$db"
    case $v in empty|1m) cp -a "$base1" "$db" ;; 5m) cp -a "$base5" "$db" ;; esac
    [ "$v" = empty ] && ch --path "$db" -q "TRUNCATE TABLE ods.order_snapshot_rep; TRUNCATE TABLE ods.order_snapshot_hot"
    ch --path "$db" --param_load_id=day4 --queries-file "$work/upto8.sql" || die "day 4, statements 1-8 ($v) failed"
    got=$(ch --path "$db" -q "SELECT count() FROM ($probe)")
    want=$n; [ "$v" = empty ] && want=0
    [ "$got" -eq "$want" ] || die "prior probe ($v): $got prior versions, want $want"
    granules[$v]=$(ch --path "$db" -q "EXPLAIN indexes = 1 $probe" |
        awk '/ReadFromMergeTree \(ods.order_snapshot_rep\)/ {r = 1} r && /PrimaryKey/ {k = 1}
             r && k && /Granules:/ {print $2; exit}')
    [ "$v" = empty ] || [ -n "${granules[$v]}" ] ||
        die "prior probe ($v): EXPLAIN indexes = 1 named no granules of ods.order_snapshot_rep's primary key (has the plan's text changed?)"
    BENCH_MIB[probe_$v]=0
    for ((r = 0; r < reps; r++)); do
        t=$( (cd "$run" && /usr/bin/time -f '%M' -o "$work/probe.rss" "$BIN/chlocal" --path "$db" --time \
                -q "$probe FORMAT Null") 2>&1 >/dev/null | tail -1) || die "prior probe ($v) failed"
        ptimes[$v]+="$t "
        kb=$(tail -1 "$work/probe.rss")
        ((kb / 1024 > BENCH_MIB[probe_$v])) && BENCH_MIB[probe_$v]=$((kb / 1024))
    done
    BENCH_SECS[probe_$v]=$(bench_median "${ptimes[$v]}")
    rm -rf "$db"
done
bench_row "transition: day 4's prior probe, empty ODS, ${BENCH_SECS[probe_empty]} s (query time)" "$n" probe_empty
bench_row "transition: day 4's prior probe, ODS ${m}M orders, ${BENCH_SECS[probe_1m]} s, reads ${granules[1m]} granules of _rep" "$n" probe_1m probe_empty
bench_row "transition: day 4's prior probe, ODS ${m5}M orders, ${BENCH_SECS[probe_5m]} s, reads ${granules[5m]} granules of _rep" "$n" probe_5m probe_empty
