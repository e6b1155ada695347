#!/usr/bin/env bash
# 90-statements: where the default transition's time goes, statement by statement (issue 25),
# against the parse alone and the classifiers, all as query time (chlocal --time), not commands.
# One load of 500 000 valid new orders (orders-gen, every order once), on an empty ODS: each
# rep runs the 12 statements on a fresh copy of the staged database, each statement in its own
# chlocal process with --time (engine start-up is not in a query's time; the UDF processes'
# start is: the engine starts them inside the query). Side by side in each rep: the parse alone
# (SELECT order_wire_parse(raw) ... FORMAT Null over the staged load, the anchor), the
# classifier alone, isValidJSON, the protocol floor (tests/helpers/proto_floor --string: the
# same protocol as the classifier, no work per row), the validation floor (proto_floor --validate:
# that protocol and simdjson's DOM validation of each message, the parser isValidJSON runs: what
# checking every byte with simdjson through a UDF costs before any rule), the members floor
# (proto_floor --members: that and the tree's root members handed over one by one, as the
# classifier's fast path takes them, only counted: what the classifier pays before its first
# rule) and the native predicate
# (tests/sql/native_wire_class.sql). And the transition's floor, on another fresh copy: the
# freeze's INSERT with nothing but the parse (no copies dropped, no guard, no rerun set, one
# piece), then every accepted message from the manifest into the gate as stored, through its
# views into the hot table and the fates (no prior, no window, no guard): what any transition
# that parses once, keeps a manifest and records each message's fate must write.
# And the guards' lower bound, on a third fresh copy: each guarantee the transition adds to that
# floor by the cheapest SQL written for it (below), to tell what the guards cost from what they
# must cost.
# Reported: the median per statement and of the sum; the ratio is the anchor's time over the
# row's (below 1: slower than the parse alone). Goals (issue 25): the whole transition within 3x
# the parse alone; the classifier within 2x isValidJSON and at least 8x faster than the native
# predicate.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

reps=${BENCH_REPS:-3}
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/statements.XXXXXX")
trap 'rm -rf "$work"' EXIT
for b in chlocal ods-ddl orders-gen order_wire_class; do
    [ -x "$BIN/$b" ] || die "no $BIN/$b: build first"
done
[ -x "$BUILD/tests/user_scripts/proto_floor" ] || die "no $BUILD/tests/user_scripts/proto_floor: build first"
n=$(bench_rows 500000)
run=$work/run
mkdir -p "$run"
ch() { (cd "$run" && "$BIN/chlocal" "$@"); }

"$BIN/ods-ddl" transition --gate-pieces "$(bench_gate_pieces "$n")" >"$work/tr.sql" || die "ods-ddl transition failed"
nst=$(grep -c '^-- [0-9]*\. ' "$work/tr.sql")
# stmt K: statement K of the transition, from its "-- K. " line to the next one
stmt() { awk -v k="$1" 'match($0, /^-- [0-9]+\. /) { p = (substr($0, 4, RLENGTH - 5) + 0 == k) } p' "$work/tr.sql"; }
heading() { stmt "$1" | head -1 | sed -E 's/^-- [0-9]+\. //; s/[:;(].*//; s/ +$//'; }

say "staging $n valid new orders" >&2
"$BIN/orders-gen" --orders "$n" --days 10 --window 10 --day 10 --seed 25 >"$work/load.jsonl"
base=$work/base
ch --path "$base" -q "$("$BIN/ods-ddl" schema)"
ch --path "$base" --param_load_id=L1 -q "$("$BIN/ods-ddl" stage --source bench --file "$work/load.jsonl")"
staged=$(ch --path "$base" -q "SELECT count() FROM stg.orders_raw")
[ "$staged" -eq "$n" ] || die "staged $staged rows, want $n"
# The fixed cost: the same 12 statements on a load of 8 orders, where nearly all of a
# statement's time is the engine's analysing and planning its text (the guards' subqueries),
# and the parse alone on them; the whole less its fixed cost over the parse less its own is the
# ratio the whole tends to as loads grow.
small=$work/small
"$BIN/orders-gen" --orders 8 --days 10 --window 10 --day 10 --seed 25 >"$work/small.jsonl"
ch --path "$small" -q "$("$BIN/ods-ddl" schema)"
ch --path "$small" --param_load_id=L1 -q "$("$BIN/ods-ddl" stage --source bench --file "$work/small.jsonl")"
[ "$(ch --path "$small" -q "SELECT count() FROM stg.orders_raw")" -eq 8 ] || die "staged not 8 rows"
native=$(cat "$ROOT/tests/sql/native_wire_class.sql")
# the floor's two INSERTs, their column lists, their settings (how they write) and the freeze's
# SELECT list taken from the transition's own text; first RE: the first line matching the
# extended regular expression RE, reading all of its input (a grep -m1 that stops early can
# kill stmt's awk with SIGPIPE, which pipefail and set -e turn into the bench's exit 141)
first() { RE=$1 awk '$0 ~ ENVIRON["RE"] && !n++'; }
floor_freeze="$(stmt 4 | first '^INSERT INTO ods.order_manifest ')
$(stmt 4 | first '^SETTINGS ')
$(stmt 4 | first '^SELECT _load_id, ')
FROM (SELECT *, order_wire_parse(raw) AS _w FROM
$(stmt 4 | first '^ +\(SELECT raw, ' | sed -E 's/^ +//') WHERE _load_id = 'L1'))"
floor_gate="$(stmt 9 | first '^INSERT INTO ods.order_gate ')
$(stmt 9 | first '^SETTINGS ')
SELECT order_id, user_id, status, created_at, updated_at, items_total, discount, delivery, total, items, snapshot_date,
    _hashdiff, _load_id, _load_ts, _topic, _partition, _offset, 'stored', 1, 0, 1
FROM ods.order_manifest WHERE _load_id = 'L1' AND error_class = ''"

# upto_where: a statement's lines before its first "WHERE " line, its heading left out, reading
# all of its input (an awk that exits early can kill stmt's awk with SIGPIPE, as first() says)
upto_where() { awk '/^WHERE / { w = 1 } !w && !/^-- /'; }

# The guards' lower bound: each guarantee the statements add to the floor by the cheapest SQL
# written for it, the other statements as printed, so that what the guards cost can be told from
# what they must cost. One staging check in place of statements 1 and 3 (rows staged, each
# coordinate one message); the lease taken and released (2, 12); the freeze, housekeeping, fold
# and errors as printed (4, 6, 7, 8); a seal that compares staging, grouped by the hash of
# coordinates and bytes, with the manifest and records staging's fingerprint; the gate with the
# prior through order_v and nothing else (no first receipt, no rerun set, no lease guard); the
# commit's figures as printed, checked only by staging's fingerprint against the seal's and the
# fates' count against the accepted messages. Not a transition: no rerun converges through it.
guard_check="SELECT throwIf((SELECT count() FROM stg.orders_raw WHERE _load_id = {load_id:String}) = 0, 'no rows'),
    throwIf((SELECT count() FROM (SELECT 1 FROM stg.orders_raw WHERE _load_id = {load_id:String}
        GROUP BY _topic, _partition, _offset HAVING min(_raw_hash) != max(_raw_hash))) > 0, 'coordinates')
FORMAT Null"
guard_seal="$(stmt 5 | upto_where)
WHERE throwIf((SELECT (count(), sum(_h)) FROM (SELECT cityHash64(_topic, _partition, _offset, _raw_hash) AS _h FROM stg.orders_raw
        WHERE _load_id = {load_id:String} GROUP BY _h))
    != (SELECT (count(), sum(cityHash64(_topic, _partition, _offset, _raw_hash))) FROM ods.order_manifest WHERE _load_id = {load_id:String}),
    'staged during the freeze') = 0"
guard_gate="$(stmt 9 | first '^INSERT INTO ods.order_gate ')
$(stmt 9 | first '^SETTINGS ')
SELECT order_id, user_id, status, created_at, updated_at, items_total, discount, delivery, total, items, snapshot_date,
    _hashdiff, _load_id, _load_ts, _topic, _partition, _offset, _fate, _fate = 'stored', _fate = 'stale', 1
FROM (SELECT *, multiIf(NOT _has_prior OR (updated_at >= _pu AND _hashdiff != _ph), 'stored', updated_at < _pu, 'stale', 'unchanged') AS _fate
    FROM (SELECT * FROM ods.order_manifest WHERE _load_id = {load_id:String} AND error_class = '') AS l
    LEFT JOIN (SELECT order_id, 1 AS _has_prior, updated_at AS _pu, _hashdiff AS _ph FROM ods.order_v
               WHERE order_id IN (SELECT order_id FROM ods.order_manifest WHERE _load_id = {load_id:String} AND error_class = ''))
        AS o USING (order_id))"
guard_commit="$(stmt 10 | upto_where)
WHERE throwIf((SELECT (count(), sum(cityHash64(_topic, _partition, _offset, _raw_hash)), sum(xxHash64(_topic, _partition, _offset, _raw_hash)))
        FROM stg.orders_raw WHERE _load_id = {load_id:String})
    != (SELECT (any(staged), any(staged_fp1), any(staged_fp2)) FROM ods.order_frozen WHERE _load_id = {load_id:String})
    OR (SELECT count() FROM ods.order_fates WHERE _load_id = {load_id:String}) != m.acc, 'late rows, or fates missing') = 0"
guard_names=(g2 gcheck g4 gseal g6 g7 g8 ggate gcommit g12)

# qtime NAME ARGS...: bench_qtime in the run directory; its time is added to NAME's, and a
# statement's peak RSS (the process's; the UDF processes' are not in it) kept as the whole's
qtime() {
    local name=$1; shift
    bench_qtime "$name" "$run" 1 "$@" || die "bench: '$name' failed"
    times[$name]+="${BENCH_SECS[$name]} "
    ((${BENCH_MIB[$name]} > ${BENCH_MIB[whole]:-0})) && [[ $name == s* ]] && BENCH_MIB[whole]=${BENCH_MIB[$name]}
    return 0
}
declare -A times
for ((r = 1; r <= reps; r++)); do
    say "rep $r of $reps: the $nst statements on a fresh copy, then the parse and the classifiers" >&2
    rm -rf "$work/db"; cp -a "$base" "$work/db"
    for ((k = 1; k <= nst; k++)); do
        qtime "s$k" --path "$work/db" --param_load_id=L1 -q "$(stmt "$k")"
    done
    read -r acc stored < <(ch --path "$work/db" --format TSV -q "SELECT accepted, stored FROM ods.order_loads WHERE _load_id = 'L1'")
    [ "$acc" -eq "$n" ] && [ "$stored" -eq "$n" ] || die "rep $r: accepted $acc, stored $stored (want $n, $n)"
    rm -rf "$work/db"; cp -a "$small" "$work/db"
    for ((k = 1; k <= nst; k++)); do
        qtime "f$k" --path "$work/db" --param_load_id=L1 -q "$(stmt "$k")"
    done
    [ "$(ch --path "$work/db" -q "SELECT stored FROM ods.order_loads WHERE _load_id = 'L1'")" -eq 8 ] || die "rep $r: the load of 8 orders did not store 8"
    qtime fparse --path "$small" -q "SELECT order_wire_parse(raw) FROM stg.orders_raw FORMAT Null"
    qtime parse --path "$base" -q "SELECT order_wire_parse(raw) FROM stg.orders_raw FORMAT Null"
    qtime class --path "$base" -q "SELECT order_wire_class(raw) FROM stg.orders_raw FORMAT Null"
    qtime valid --path "$base" -q "SELECT isValidJSON(raw) FROM stg.orders_raw FORMAT Null"
    qtime floor --path "$base" --udf-dir "$BUILD/tests/user_scripts" --udf-config "$ROOT/tests/helpers/floor_function.xml" \
        -q "SELECT proto_floor_string(raw) FROM stg.orders_raw FORMAT Null"
    qtime dom --path "$base" --udf-dir "$BUILD/tests/user_scripts" --udf-config "$ROOT/tests/helpers/floor_function.xml" \
        -q "SELECT proto_floor_validate(raw) FROM stg.orders_raw FORMAT Null"
    qtime members --path "$base" --udf-dir "$BUILD/tests/user_scripts" --udf-config "$ROOT/tests/helpers/floor_function.xml" \
        -q "SELECT proto_floor_members(raw) FROM stg.orders_raw FORMAT Null"
    qtime native --path "$base" -q "$native; SELECT native_wire_class(raw) FROM stg.orders_raw FORMAT Null"
    rm -rf "$work/db"; cp -a "$base" "$work/db"
    qtime ffreeze --path "$work/db" -q "$floor_freeze"
    qtime fgate --path "$work/db" -q "$floor_gate"
    [ "$(ch --path "$work/db" -q "SELECT count() FROM ods.order_snapshot_hot")" -eq "$n" ] || die "rep $r: the floor stored not $n versions"
    rm -rf "$work/db"; cp -a "$base" "$work/db"
    for g in "${guard_names[@]}"; do
        case $g in
            g[0-9]*) sql=$(stmt "${g#g}") ;;
            gcheck) sql=$guard_check ;; gseal) sql=$guard_seal ;; ggate) sql=$guard_gate ;; gcommit) sql=$guard_commit ;;
        esac
        qtime "$g" --path "$work/db" --param_load_id=L1 -q "$sql"
    done
    read -r acc stored < <(ch --path "$work/db" --format TSV -q "SELECT accepted, stored FROM ods.order_loads WHERE _load_id = 'L1'")
    [ "$acc" -eq "$n" ] && [ "$stored" -eq "$n" ] || die "rep $r: the guards' lower bound accepted $acc, stored $stored (want $n, $n)"
done

sum=0 fsum=0
for ((k = 1; k <= nst; k++)); do
    BENCH_SECS[s$k]=$(bench_median "${times[s$k]}")
    sum=$(awk -v a="$sum" -v b="${BENCH_SECS[s$k]}" 'BEGIN {print a + b}')
    BENCH_SECS[f$k]=$(bench_median "${times[f$k]}")
    fsum=$(awk -v a="$fsum" -v b="${BENCH_SECS[f$k]}" 'BEGIN {print a + b}')
done
BENCH_SECS[fixed]=$fsum BENCH_MIB[fixed]=0
for ((k = 1; k <= nst; k++)); do
    ((${BENCH_MIB[f$k]} > ${BENCH_MIB[fixed]})) && BENCH_MIB[fixed]=${BENCH_MIB[f$k]}
done
BENCH_MIB[varw]=${BENCH_MIB[whole]}
BENCH_SECS[fparse]=$(bench_median "${times[fparse]}")
for x in parse class valid floor dom members native ffreeze fgate; do BENCH_SECS[$x]=$(bench_median "${times[$x]}"); done
BENCH_SECS[fwhole]=$(awk -v a="${BENCH_SECS[ffreeze]}" -v b="${BENCH_SECS[fgate]}" 'BEGIN {print a + b}')
gsum=0
for g in "${guard_names[@]}"; do
    BENCH_SECS[$g]=$(bench_median "${times[$g]}")
    gsum=$(awk -v a="$gsum" -v b="${BENCH_SECS[$g]}" 'BEGIN {print a + b}')
    ((${BENCH_MIB[$g]} > ${BENCH_MIB[gwhole]:-0})) && BENCH_MIB[gwhole]=${BENCH_MIB[$g]}
done
BENCH_SECS[gwhole]=$gsum
BENCH_MIB[fwhole]=$((BENCH_MIB[ffreeze] > BENCH_MIB[fgate] ? BENCH_MIB[ffreeze] : BENCH_MIB[fgate]))
BENCH_SECS[whole]=$sum
ratio() { awk -v a="${BENCH_SECS[$1]}" -v b="${BENCH_SECS[$2]}" 'BEGIN {printf "%.2f", (a > 0) ? b / a : 0}'; }
bench_row "statements: the parse alone, order_wire_parse(raw) FORMAT Null, ${BENCH_SECS[parse]} s (anchor)" "$n" parse
for ((k = 1; k <= nst; k++)); do
    bench_row "statements: $k/$nst $(heading "$k"), ${BENCH_SECS[s$k]} s" "$n" "s$k" parse
done
bench_row "statements: the whole transition, sum of the $nst, $sum s = $(ratio parse whole)x the parse alone (goal <= 3x)" "$n" whole parse
flist=$(for ((k = 1; k <= nst; k++)); do printf '%s ' "${BENCH_SECS[f$k]}"; done)
BENCH_SECS[varw]=$(awk -v a="$sum" -v b="$fsum" 'BEGIN {printf "%.3f", a - b}')
BENCH_SECS[varp]=$(awk -v a="${BENCH_SECS[parse]}" -v b="${BENCH_SECS[fparse]}" 'BEGIN {printf "%.3f", a - b}')
bench_row "statements: the fixed cost, the $nst on a load of 8 orders, $fsum s (${flist% }; the parse alone on them ${BENCH_SECS[fparse]} s)" 8 fixed fparse
bench_row "statements: the whole less its fixed cost, ${BENCH_SECS[varw]} s = $(ratio varp varw)x the parse less its own (the ratio as loads grow)" "$n" varw varp
bench_row "statements: the floor's freeze, the parse into the manifest, ${BENCH_SECS[ffreeze]} s" "$n" ffreeze parse
bench_row "statements: the floor's gate, the manifest into the hot table and the fates, ${BENCH_SECS[fgate]} s" "$n" fgate parse
bench_row "statements: the transition's floor, the two, ${BENCH_SECS[fwhole]} s = $(ratio parse fwhole)x the parse alone" "$n" fwhole parse
bench_row "statements: the guards' lower bound, the floor and each guarantee by its cheapest SQL, $gsum s = $(ratio parse gwhole)x the parse alone (seal ${BENCH_SECS[gseal]} s, gate ${BENCH_SECS[ggate]} s, commit ${BENCH_SECS[gcommit]} s, one staging check ${BENCH_SECS[gcheck]} s)" "$n" gwhole parse
bench_row "statements: the classifier, order_wire_class(raw), ${BENCH_SECS[class]} s = $(ratio valid class)x isValidJSON (goal <= 2x)" "$n" class parse
bench_row "statements: isValidJSON(raw), ${BENCH_SECS[valid]} s" "$n" valid parse
bench_row "statements: the protocol floor, proto_floor_string(raw) (decodes each row, answers ''), ${BENCH_SECS[floor]} s = $(ratio valid floor)x isValidJSON" "$n" floor parse
bench_row "statements: the validation floor, proto_floor_validate(raw) (that and simdjson's DOM validation), ${BENCH_SECS[dom]} s = $(ratio valid dom)x isValidJSON" "$n" dom parse
bench_row "statements: the members floor, proto_floor_members(raw) (that and the root members handed over, as the classifier's fast path takes them, no rule), ${BENCH_SECS[members]} s = $(ratio valid members)x isValidJSON" "$n" members parse
bench_row "statements: the native predicate, ${BENCH_SECS[native]} s = $(ratio class native)x the classifier (goal >= 8x)" "$n" native parse
