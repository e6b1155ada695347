#!/usr/bin/env bash
# 60-transition: the STG → ODS transition at scale (issue 13, "Scale"). A world of 1 M orders
# (scaled): day 1 stages and transitions a snapshot of every order; day 2 re-sends all of them
# with exactly 1 % changed. The day-2 transition, gated (`ods-ddl transition`, store changes)
# against `--store every`, and the gated one again on an ODS of 5 M orders (4 M older orders that
# are not in the load), side by side, interleaved, each run on a fresh copy of the database.
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
extra=$((4 * n))              # the 5 M ODS: 4 M more orders, older, not in the day-2 load
changed=$((n / 100))          # exactly 1 % of day 2 changes (at least one)
((changed >= 1)) || changed=1
days=30                       # the world's orders are created over 30 days (30 partitions)
d1=2026-03-30 d2=2026-03-31   # snapshot dates: model day 30 of orders-gen, and the next day
run=$work/run                 # chlocal's working directory: no stray files it could take for tables
base1=$work/base-1m base5=$work/base-5m
m=$(awk -v n="$n" 'BEGIN {printf "%g", n / 1e6}') m5=$(awk -v n="$((n + extra))" 'BEGIN {printf "%g", n / 1e6}')
mkdir -p "$run" "$base1"
ch() { (cd "$run" && "$BIN/chlocal" "$@"); }
"$BIN/ods-ddl" schema >"$work/schema.sql"
"$BIN/ods-ddl" transition >"$work/gated.sql"
"$BIN/ods-ddl" transition --store every >"$work/every.sql"
ch --path "$base1" --queries-file "$work/schema.sql"

# Day 1: orders-gen's snapshot of model day 30 with a 30-day window holds every order of the
# world (all created on days 1 … 30), all new to the ODS; staged with Kafka-like coordinates
# (3 partitions, offsets 0 … n-1) as scripts/demo does, then transitioned (gated).
say "day 1: $n orders from orders-gen, staged and transitioned" >&2
"$BIN/orders-gen" --orders "$n" --days "$days" --window "$days" --day "$days" --seed 13 --format rowbinary |
    ch --path "$base1" --input-format RowBinary --structure 'raw String' -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
        SELECT raw, 'orders.snapshot.v1', n % 3, n, toDateTime64('$d1', 3, 'UTC') + toIntervalSecond(n % 86400),
               '', 'day1', now64(3, 'UTC')
        FROM (SELECT raw, rowNumberInAllBlocks() AS n FROM table)"
t0=$SECONDS
ch --path "$base1" --param_load_id=day1 --queries-file "$work/gated.sql"
say "day 1 transition: $((SECONDS - t0)) s" >&2
got=$(ch --path "$base1" -q "SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'day1'")
[ "$got" -eq "$n" ] || die "day 1 stored $got versions, expected $n (every order is new)"

# Day 2, by SQL from day 1's staged messages: every message again with snapshot_date = day 2
# (not state: it must not change the hashdiff); for exactly 1 % of the orders (the first by
# cityHash64 among those not yet delivered or cancelled) the status moves one step forward
# (new → paid → shipped → delivered) and updated_at becomes a time of day 2. Offsets continue.
say "day 2: all $n orders again, $changed of them changed (SQL over day 1's staged rows)" >&2
ch --path "$base1" -q "
    INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
    SELECT if(chg,
              replaceRegexpOne(replaceOne(raw1, concat('\"status\":\"', s, '\"'),
                                          concat('\"status\":\"', transform(s, ['new', 'paid', 'shipped'], ['paid', 'shipped', 'delivered'], s), '\"')),
                               '\"updated_at\":\"[^\"]*\"',
                               concat('\"updated_at\":\"', replaceOne(toString(toDateTime64('$d2', 3, 'UTC')
                                   + toIntervalMillisecond(cityHash64(id) % 86400000)), ' ', 'T'), 'Z\"')),
              raw1),
           _topic, _partition, _offset + $n, _timestamp + toIntervalDay(1), _key, 'day2', now64(3, 'UTC')
    FROM (SELECT *, replaceOne(raw, '\"snapshot_date\":\"$d1\"', '\"snapshot_date\":\"$d2\"') AS raw1,
                 JSONExtractString(raw, 'order_id') AS id, JSONExtractString(raw, 'status') AS s,
                 id IN (SELECT JSONExtractString(raw, 'order_id') AS i FROM stg.orders_raw
                        WHERE _load_id = 'day1' AND JSONExtractString(raw, 'status') IN ('new', 'paid', 'shipped')
                        ORDER BY cityHash64(i) LIMIT $changed) AS chg
          FROM stg.orders_raw WHERE _load_id = 'day1')"
read -r msgs moved redated < <(ch --path "$base1" --format TSV -q "
    SELECT count(), countIf(JSONExtractString(raw, 'updated_at') >= '$d2'),
           countIf(JSONExtractString(raw, 'snapshot_date') = '$d2')
    FROM stg.orders_raw WHERE _load_id = 'day2'")
[ "$msgs" -eq "$n" ] && [ "$moved" -eq "$changed" ] && [ "$redated" -eq "$n" ] ||
    die "day 2 staged $msgs messages, $moved changed, $redated with snapshot_date $d2 (want $n, $changed, $n)"

# The 5 M ODS: the same database plus 4 M older orders, inserted by SQL: copies of day 1's typed
# rows under new order_ids (ORD- + 16 hex digits, as orders-gen writes them), moved 30, 60, 90
# or 120 days back (so the ODS holds 150 days of history, 5 times the orders), with _hashdiff
# recomputed by the transition's own hashdiff_strict expression over the new fields.
say "${m5}M ODS: $extra older orders inserted by SQL" >&2
hd=$(grep -o 'hashdiff_strict(\[[^]]*\])' "$work/gated.sql" | head -1)
[ -n "$hd" ] || die "no hashdiff_strict([...]) expression in the generated transition"
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
# A settled ODS: each partition merged (both worlds alike), and 5 M distinct orders.
for db in "$base1" "$base5"; do
    ch --path "$db" -q "OPTIMIZE TABLE ods.order_snapshot_rep FINAL SETTINGS optimize_skip_merged_partitions = 1"
done
read -r total distinct <<<"$(ch --path "$base5" --format TSV -q "SELECT count(), uniqExact(order_id) FROM ods.order_snapshot_rep")"
[ "$total" -eq $((n + extra)) ] && [ "$distinct" -eq "$total" ] ||
    die "5 M ODS holds $total versions of $distinct orders (want $((n + extra)) of as many)"
say "databases: ${m}M orders $(du -sm "$base1" | cut -f1) MiB, ${m5}M $(du -sm "$base5" | cut -f1) MiB" >&2

# stored DB: versions the day-2 transition wrote, and rejected rows (there are none).
stored() { ch --path "$1" --format TSV -q "
    SELECT (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'day2'),
           (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'day2')"; }
# Each rep runs every variant once, in turn, on a fresh copy of its base (the copy is not
# timed); bench_interleave with one rep times the transition alone (a whole chlocal command, so
# its peak RSS is the transition's) and keeps the largest peak across reps.
declare -A all want
want[every]=$n want[gated]=$changed want[gated5]=$changed
for ((r = 0; r < reps; r++)); do
    for v in every gated gated5; do
        db=$work/fresh
        rm -rf "$db"
        case $v in every|gated) cp -a "$base1" "$db" ;; gated5) cp -a "$base5" "$db" ;; esac
        sql=$work/gated.sql; [ "$v" = every ] && sql=$work/every.sql
        bench_interleave 1 "$v" "cd '$run' && '$BIN/chlocal' --path '$db' --param_load_id=day2 --queries-file '$sql'" ||
            die "day-2 transition ($v) failed"
        all[$v]+="${BENCH_SECS[$v]} "
        read -r got bad < <(stored "$db")
        [ "$got" -eq "${want[$v]}" ] && [ "$bad" -eq 0 ] ||
            die "day 2 ($v) stored $got versions and $bad errors; want ${want[$v]} and 0 ($changed orders changed)"
        say "rep $((r + 1)) $v: ${BENCH_SECS[$v]} s, stored $got" >&2
        rm -rf "$db"
    done
done
for v in every gated gated5; do
    BENCH_SECS[$v]=$(tr ' ' '\n' <<<"${all[$v]}" | grep . | sort -g |
        awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
done
BENCH_SECS[gated_anchor]=${BENCH_SECS[gated]} BENCH_MIB[gated_anchor]=${BENCH_MIB[gated]}

cost=$(awk -v g="${BENCH_SECS[gated]}" -v e="${BENCH_SECS[every]}" 'BEGIN {printf "%.2f", (e > 0) ? g / e : 0}')
saving=$(awk -v c="$changed" -v n="$n" 'BEGIN {printf "%.1f", 100 * (1 - c / n)}')
growth=$(awk -v a="${BENCH_MIB[gated]}" -v b="${BENCH_MIB[gated5]}" 'BEGIN {printf "%+.1f", (a > 0) ? 100 * (b - a) / a : 0}')
bench_row "transition: day 2 (1 % changed), --store every, ODS ${m}M orders: stores $n" "$n" every
bench_row "transition: day 2 gated (store changes) vs every: stores $changed ($saving % fewer writes), costs ${cost}x" "$n" gated every
bench_row "transition: day 2 gated, ODS ${m}M orders (memory anchor; the runs above)" "$n" gated_anchor
bench_row "transition: day 2 gated, ODS ${m5}M orders (4/5 older, not in the load): peak ${growth} %" "$n" gated5 gated_anchor
