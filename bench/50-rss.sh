#!/usr/bin/env bash
# 50-rss: memory and time of the UDF processes around one huge row, fed the engine's own blocks
# on a stdin held open as in executable_pool: peak RSS, and RSS once 1 000 ordinary rows followed.

# Rows of the table: what (with the steady RSS and the time), 1 row, rows/s, -, peak MiB.
# RSS_VALUE_MIB=N makes the single attribute N MiB (default 16 at --scale 1).
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"
source "$ROOT/scripts/lib/rss.sh"

reps=${BENCH_REPS:-3}
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/rss.XXXXXX")
trap 'rm -rf "$work"' EXIT
for b in order_wire_class hashdiff chlocal; do [ -x "$BIN/$b" ] || die "no $BIN/$b: build first"; done
# the sizes the issue names at --scale 1: 200 MiB rows, a 16 MiB attribute
big_mib=$(bench_rows 200)
value_mib=${RSS_VALUE_MIB:-$(bench_rows 16)}
mib=1048576
ch() { (cd "$work" && "$BIN/chlocal" "$@"); }

# A valid order whose items array makes it big_mib MiB (68 bytes an item), and 1 000 ordinary ones.
order="'{\"order_id\":\"ord-' || toString(number) || '\",\"user_id\":' || toString(number + 1)
    || ',\"status\":\"paid\",\"created_at\":\"2025-01-01T00:00:00.000Z\",\"updated_at\":\"2025-01-02T00:00:00.000Z\",'
    || '\"items_total\":\"10.99\",\"discount\":\"0.00\",\"delivery\":\"4.99\",\"total\":\"15.98\",\"items\":['
    || arrayStringConcat(arrayWithConstant(@N@, '{\"sku\":\"SKU-00001\",\"name\":\"Widget model 1\",\"qty\":1,\"price\":\"10.99\"}'), ',')
    || '],\"snapshot_date\":\"2025-01-01\"}'"
say "generating a $big_mib MiB order, a $value_mib MiB attribute, $big_mib MiB of one-letter attributes" >&2
ch -q "SELECT ${order//@N@/3} AS raw FROM numbers(1000) FORMAT RowBinaryWithNamesAndTypes" |
    rss_block "$work/ow_small.bin" 1000
ch -q "SELECT ${order//@N@/$((big_mib * mib / 68))} AS raw FROM numbers(1) FORMAT RowBinaryWithNamesAndTypes
    SETTINGS max_threads = 2" | rss_block "$work/ow_big.bin" 1
ch -q "SELECT CAST([concat('Анна ', toString(number)), NULL, 'Москва', 'gold'] AS Array(Nullable(String))) AS a
    FROM numbers(1000) FORMAT RowBinaryWithNamesAndTypes" | rss_block "$work/hd_small.bin" 1000
# one attribute of decomposed é and ß: the strict profile's NFC and ICU's upper-casing both work
ch -q "SELECT CAST([repeat(repeat(concat('e', char(0xCC, 0x81), 'ß'), 1024), $((value_mib * mib / 5120)))]
    AS Array(Nullable(String))) AS a FORMAT RowBinaryWithNamesAndTypes" | rss_block "$work/hd_value.bin" 1
ch -q "SELECT CAST(arrayWithConstant($((big_mib * mib / 3)), 'a') AS Array(Nullable(String))) AS a
    FORMAT RowBinaryWithNamesAndTypes SETTINGS max_threads = 2" | rss_block "$work/hd_tiny.bin" 1

# measure NAME BIG SMALL CMD...: REPS runs; median seconds, largest peak, last steady (KiB).
declare -A secs peak steady
measure() {
    local name=$1 big=$2 small=$3 all="" p=0 s=0 t hwm rss
    shift 3
    for ((r = 0; r < reps; r++)); do
        read -r t hwm rss < <(RSS_TIMEOUT=1200 rss_probe "$big" "$small" "$@") || die "$name failed"
        all+="$t "
        ((hwm > p)) && p=$hwm
        s=$rss
    done
    secs[$name]=$(bench_median "$all")
    peak[$name]=$p
    steady[$name]=$s
}
row() { # WHAT NAME BIG-FILE
    local mb
    mb=$(awk -v b="$(stat -c %s "$3")" 'BEGIN {printf "%.0f", b / 1048576}')
    awk -v w="$1" -v mb="$mb" -v s="${secs[$2]}" -v st="${steady[$2]}" -v p="${peak[$2]}" \
        'BEGIN {printf "| rss: %s (%d MiB row): %.2f s, steady %.1f MiB after | 1 | %.2f | - | %d |\n",
                w, mb, s, st / 1024, (s > 0) ? 1 / s : 0, p / 1024}'
}

nt=(--format RowBinaryWithNamesAndTypes --chunk-header)
measure owc "$work/ow_big.bin" "$work/ow_small.bin" "$BIN/order_wire_class" "${nt[@]}"
row "order_wire_class, a valid order" owc "$work/ow_big.bin"
measure hd_value_strict "$work/hd_value.bin" "$work/hd_small.bin" "$BIN/hashdiff" --profile strict "${nt[@]}"
row "hashdiff_strict, one attribute (NFC + ICU)" hd_value_strict "$work/hd_value.bin"
measure hd_value_classic "$work/hd_value.bin" "$work/hd_small.bin" "$BIN/hashdiff" --profile classic "${nt[@]}"
row "hashdiff, one attribute (ICU)" hd_value_classic "$work/hd_value.bin"
measure hd_tiny "$work/hd_tiny.bin" "$work/hd_small.bin" "$BIN/hashdiff" --profile classic "${nt[@]}"
row "hashdiff, one-letter attributes" hd_tiny "$work/hd_tiny.bin"
measure hd_tiny_strict "$work/hd_tiny.bin" "$work/hd_small.bin" "$BIN/hashdiff" --profile strict "${nt[@]}"
row "hashdiff_strict, one-letter attributes" hd_tiny_strict "$work/hd_tiny.bin"
