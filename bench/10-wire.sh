#!/usr/bin/env bash
# 10-wire: order_wire_class (the UDF) vs the native-SQL predicate (tests/sql/native_wire_class.sql)
# vs isValidJSON(raw) alone, counting rows by class over ~400-byte order messages in the engine.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

reps=${BENCH_REPS:-3}
if [ -n "${BENCH_WORK:-}" ]; then
    work=$BENCH_WORK
else # run alone, not from scripts/bench: clean up after ourselves
    work=$(mktemp -d "${TMPDIR:-/tmp}/wire-bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
run=$work/wire-run # chlocal's working directory: no stray files it could take for tables
mkdir -p "$run"
n=$(bench_rows 500000)
small=$(bench_rows 100000)
data=$work/wire-orders.native
data_small=$work/wire-orders-small.native

# Realistic messages: a few items each, ~5% of them broken in one of the ways the contract catches.
gen_sql="
SELECT '{\"order_id\":\"ord-' || toString(number) || '\",\"user_id\":' || toString(cityHash64(number) % 100000000 + 1)
    || ',\"status\":\"' || arrayElement(['new', 'paid', 'shipped', 'delivered', 'cancelled'], 1 + number % 5)
    || '\",\"created_at\":\"' || replaceOne(toString(addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3, 'UTC'), cityHash64(number, 1) % 157766400000)), ' ', 'T')
    || 'Z\",\"updated_at\":\"' || replaceOne(toString(addMilliseconds(toDateTime64('2025-01-01 00:00:00', 3, 'UTC'), cityHash64(number, 2) % 31536000000)), ' ', 'T')
    || 'Z\",\"items_total\":\"' || toString(100 + number % 9000) || '.' || leftPad(toString(number % 100), 2, '0')
    || '\",\"discount\":\"' || if(number % 7 = 0, '5.00', '0.00')
    || '\",\"delivery\":\"4.99\",\"total\":\"' || toString(104 + number % 9000) || '.' || leftPad(toString(number % 100), 2, '0')
    || '\",\"items\":[' || arrayStringConcat(arrayMap(i -> '{\"sku\":\"SKU-' || leftPad(toString((number + i) % 100000), 5, '0')
        || '\",\"name\":\"Widget model ' || toString(i) || '\",\"qty\":' || toString(1 + (number + i) % 4)
        || ',\"price\":\"' || toString(10 + (number * 7 + i) % 500) || '.99\"}', range(2 + number % 3)), ',')
    || '],\"snapshot_date\":\"' || toString(toDate('2025-01-01') + number % 365) || '\"'
    || multiIf(number % 100 = 1, ',\"extra\":1', number % 100 = 2, ',\"total\":\"1.00\"', '')
    || '}' AS raw0,
    multiIf(number % 100 = 3, replaceOne(raw0, '-01T', '-32T'), number % 100 = 4, replaceOne(raw0, '.99\"', '.9\"'),
            number % 100 = 5, replaceOne(raw0, '\"qty\":', '\"qty\":0'), raw0) AS raw
FROM numbers(@ROWS@)"

say "generating $n (and $small) order messages" >&2
cd "$run"
"$BIN/chlocal" -q "SELECT raw FROM (${gen_sql//@ROWS@/$n}) INTO OUTFILE '$data' TRUNCATE FORMAT Native SETTINGS max_threads = 2" >/dev/null
"$BIN/chlocal" -q "SELECT raw FROM (${gen_sql//@ROWS@/$small}) INTO OUTFILE '$data_small' TRUNCATE FORMAT Native" >/dev/null
bytes=$("$BIN/chlocal" -q "SELECT avg(length(raw)) FROM file('$data', Native)")
say "average message: $bytes bytes" >&2

native_fn=$(<"$ROOT/tests/sql/native_wire_class.sql")
q() { printf '%q ' "$BIN/chlocal" -q "$1"; }
udf=$(q "SELECT order_wire_class(raw) AS c, count() FROM file('$data', Native) GROUP BY c")
native=$(q "$native_fn SELECT native_wire_class(raw) AS c, count() FROM file('$data', Native) GROUP BY c")
valid=$(q "SELECT isValidJSON(raw) AS c, count() FROM file('$data', Native) GROUP BY c")

# Both classify the same: the native predicate is a fair baseline.
diff <(cd "$run" && eval "$udf" | sort) <(cd "$run" && eval "$native" | sort) >&2 ||
    die "order_wire_class and native_wire_class disagree on the bench data"

bench_interleave "$reps" udf "cd '$run' && $udf" native "cd '$run' && $native" valid "cd '$run' && $valid"
bench_row "wire: native SQL predicate (class per row)" "$n" native
bench_row "wire: order_wire_class UDF vs native predicate" "$n" udf native
bench_row "wire: isValidJSON(raw) alone (the engine's floor)" "$n" valid
bench_row "wire: order_wire_class UDF vs isValidJSON" "$n" udf valid

# Cost growth: 100k, 1M and 4M rows. The big ones read the file K times through symlinks (an
# ARRAY JOIN would not do: the engine computes the UDF before it, on the original rows).
k1=$(( ($(bench_rows 1000000) + n - 1) / n )) k4=$(( ($(bench_rows 4000000) + n - 1) / n ))
mkdir -p "$work/wire-rep"
for ((i = 1; i <= k4; i++)); do ln -sf "$data" "$work/wire-rep/$i.native"; done
rep() { q "SELECT order_wire_class(raw) AS c, count() FROM file('$work/wire-rep/{1..$1}.native', Native) GROUP BY c"; }
u100=$(q "SELECT order_wire_class(raw) AS c, count() FROM file('$data_small', Native) GROUP BY c")
u1m=$(rep "$k1") u4m=$(rep "$k4")
bench_interleave "$reps" u100 "cd '$run' && $u100" u1m "cd '$run' && $u1m" u4m "cd '$run' && $u4m"
# Rows/s side by side; a time ratio between different row counts would mean nothing.
growth_row() {
    awk -v w="$1" -v n="$2" -v s="${BENCH_SECS[$3]}" -v m="${BENCH_MIB[$3]}" \
        'BEGIN {printf "| %s | %d | %.0f | - | %d |\n", w, n, (s > 0) ? n / s : 0, m}'
}
growth_row "wire: order_wire_class UDF, 100k rows" "$small" u100
growth_row "wire: order_wire_class UDF, 1M rows" "$((n * k1))" u1m
growth_row "wire: order_wire_class UDF, 4M rows" "$((n * k4))" u4m
