#!/usr/bin/env bash
# 30-route.sh: `shard-check route` over realistic order ids, side by side with the engine computing
# cityHash64(order_id) % total_weight over the same ids from a file (the engine is the anchor).
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

n=$(bench_rows 10000000)
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/route.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/cwd" # the engine runs in an empty directory (clickhouse local reads its cwd as tables)
ids=$work/ids.txt
cfg=$ROOT/clickhouse-config/cluster.example.xml
# ids like ORD-2026-000123456, in random order
awk -v n="$n" 'BEGIN { srand(42); for (i = 0; i < n; i++) printf "ORD-2026-%09d\n", int(rand() * 1e9) }' >"$ids"
total=$("$BIN/shard-check" layout --config "$cfg" --cluster ods_cluster | sed -n 's/.*total weight \([0-9]*\).*/\1/p')
[[ $total =~ ^[1-9][0-9]*$ ]] || { echo "30-route: cannot read the total weight of ods_cluster" >&2; exit 1; }

# both print one number a line for every id; bench_interleave sends stdout to /dev/null
bench_interleave "${BENCH_REPS:-3}" \
    engine "cd '$work/cwd' && '$BIN/chlocal' --no-udf -q \"SELECT cityHash64(order_id) % $total FROM file('$ids', TSV, 'order_id String') FORMAT TSV\"" \
    route "'$BIN/shard-check' route --config '$cfg' --cluster ods_cluster '$ids'"
bench_row "engine: cityHash64(order_id) % $total over ids from a file" "$n" engine
bench_row "shard-check route (ids like ORD-2026-000123456)" "$n" route engine
