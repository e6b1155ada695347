#!/usr/bin/env bats
# resources: what a long-lived pool process keeps after a big row (peak and steady RSS, read from
# /proc while it waits on stdin), fed the engine's own RowBinaryWithNamesAndTypes blocks directly.
load helpers

MIB=1048576

setup_file() {
    export D="$BATS_FILE_TMPDIR"
    source "$ROOT/scripts/lib/rss.sh"
    cd "$D"
    local ch="$BIN/chlocal"
    # ordinary rows after the big one: 1 000 orders of ~470 bytes, 1 000 customers
    local order="'{\"order_id\":\"ord-' || toString(number) || '\",\"user_id\":' || toString(number + 1)
        || ',\"status\":\"paid\",\"created_at\":\"2025-01-01T00:00:00.000Z\",\"updated_at\":\"2025-01-02T00:00:00.000Z\",'
        || '\"items_total\":\"10.99\",\"discount\":\"0.00\",\"delivery\":\"4.99\",\"total\":\"15.98\",\"items\":['
        || arrayStringConcat(arrayWithConstant(@N@, '{\"sku\":\"SKU-00001\",\"name\":\"Widget model 1\",\"qty\":1,\"price\":\"10.99\"}'), ',')
        || '],\"snapshot_date\":\"2025-01-01\"}'"
    "$ch" -q "SELECT ${order//@N@/3} AS raw FROM numbers(1000) FORMAT RowBinaryWithNamesAndTypes" |
        rss_block "$D/ow_small.bin" 1000
    "$ch" -q "SELECT CAST([concat('Анна ', toString(number)), NULL, 'Москва', 'gold'] AS Array(Nullable(String))) AS a
        FROM numbers(1000) FORMAT RowBinaryWithNamesAndTypes" | rss_block "$D/hd_small.bin" 1000
    # the big rows: a valid 96 MiB order (1.5 million items; a 64 MiB bound on what stays must
    # not pass by a buffer merely kept), one 16 MiB attribute that needs NFC and ICU, 32 MiB of
    # one-letter attributes (11 million of them)
    "$ch" -q "SELECT ${order//@N@/1500000} AS raw FROM numbers(1) FORMAT RowBinaryWithNamesAndTypes" |
        rss_block "$D/ow_big.bin" 1
    "$ch" -q "SELECT CAST([repeat(repeat(concat('e', char(0xCC, 0x81), 'ß'), 1024), 3277)] AS Array(Nullable(String))) AS a
        FORMAT RowBinaryWithNamesAndTypes" | rss_block "$D/hd_value.bin" 1
    "$ch" -q "SELECT CAST(arrayWithConstant(intDiv(32 * $MIB, 3), 'a') AS Array(Nullable(String))) AS a
        FORMAT RowBinaryWithNamesAndTypes" | rss_block "$D/hd_tiny.bin" 1
}

# A sanitizer build runs the same big rows (memory errors on them fail the test), but its RSS is
# ASan's (quarantine, shadow memory), not ours: the bounds are then skipped, and counted so.
skip_bounds_if_sanitized() {
    if grep -qx 'ODS_SANITIZE:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
        skip "RSS bounds do not apply to the ASan+UBSan build (the rows did run through it)"
    fi
}

# probe BIG SMALL CMD...: sets secs, peak and steady (KiB) and the big file's size in KiB.
probe() {
    local big=$1 small=$2
    shift 2
    source "$ROOT/scripts/lib/rss.sh"
    local out
    out=$(rss_probe "$big" "$small" "$@")
    read -r secs peak steady <<<"$out"
    big_kib=$(($(stat -c %s "$big") / 1024))
    echo "row $big_kib KiB: $secs s, peak $peak KiB, steady $steady KiB"
}

@test "the big rows are as big as the test says" {
    [ "$(stat -c %s "$D/ow_big.bin")" -gt $((96 * MIB)) ]
    [ "$(stat -c %s "$D/hd_value.bin")" -gt $((15 * MIB)) ]
    [ "$(stat -c %s "$D/hd_tiny.bin")" -gt $((31 * MIB)) ]
}

@test "order_wire_class after a 96 MiB row: steady RSS below 64 MiB, peak below 4x the row" {
    probe "$D/ow_big.bin" "$D/ow_small.bin" "$BIN/order_wire_class" --format RowBinaryWithNamesAndTypes --chunk-header
    [ "$steady" -gt 0 ]
    skip_bounds_if_sanitized
    [ "$steady" -lt $((64 * 1024)) ]
    [ "$peak" -gt "$big_kib" ]
    [ "$peak" -lt $((4 * big_kib)) ]
}

@test "hashdiff_strict after one 16 MiB attribute (NFC and ICU): steady RSS below 64 MiB, peak below 8x" {
    probe "$D/hd_value.bin" "$D/hd_small.bin" "$BIN/hashdiff" --profile strict --algo xxh3_128 \
        --format RowBinaryWithNamesAndTypes --chunk-header
    [ "$steady" -gt 0 ]
    skip_bounds_if_sanitized
    [ "$steady" -lt $((64 * 1024)) ]
    [ "$peak" -gt "$big_kib" ]
    [ "$peak" -lt $((8 * big_kib)) ]
}

@test "hashdiff over 32 MiB of one-letter attributes: peak RSS below the row's own size" {
    # the attributes go to the hash as they are decoded: neither the row, nor a table of its
    # 11 million items, nor its joined string is ever held
    probe "$D/hd_tiny.bin" "$D/hd_small.bin" "$BIN/hashdiff" --profile classic --algo xxh3_128 \
        --format RowBinaryWithNamesAndTypes --chunk-header
    [ "$steady" -lt $((64 * 1024)) ]
    [ "$peak" -lt "$big_kib" ]
    probe "$D/hd_tiny.bin" "$D/hd_small.bin" "$BIN/hashdiff" --profile strict --algo xxh3_128 \
        --format RowBinaryWithNamesAndTypes --chunk-header
    [ "$peak" -lt "$big_kib" ]
    probe "$D/hd_tiny.bin" "$D/hd_small.bin" "$BIN/hashdiff" --profile automatedv --algo md5 \
        --format RowBinaryWithNamesAndTypes --chunk-header
    [ "$peak" -lt "$big_kib" ]
}

@test "the big rows' answers are the engine's own: hashdiff of 11 million attributes equals native SQL" {
    run_split chlocal --udf-config "$ROOT/clickhouse-config/hashdiff_function.xml" -q "
        SELECT hashdiff(a) = xxh3_128(arrayStringConcat(arrayMap(x -> ifNull(upperUTF8(trimBoth(x)), ''), a), '||'))
        FROM (SELECT CAST(arrayWithConstant(intDiv(32 * $MIB, 3), 'a') AS Array(Nullable(String))) AS a FROM numbers(1))"
    [ "$status" -eq 0 ]
    [ "$output" = 1 ]
}

@test "the shipped configs allow 120 s for each wait on the pipe (a 200 MiB row, docs/protocol.md)" {
    run_split chlocal -q "SELECT name, command_read_timeout, command_write_timeout, max_command_execution_time
        FROM system.user_defined_functions WHERE name IN ('order_wire_class', 'hashdiff', 'hashdiff_sha256',
        'hashdiff_automatedv', 'hashdiff_strict') ORDER BY name"
    [ "$status" -eq 0 ]
    [ "$(wc -l <<<"$output")" -eq 5 ]
    [ "$(awk -F'\t' '$2 == 120000 && $3 == 120000 && $4 == 120' <<<"$output" | wc -l)" -eq 5 ]
}
