#!/usr/bin/env bash
# 40-gen: orders-gen throughput at >= 1 000 000 messages (scaled), side by side with `cat` of
# the very same bytes from a file (the anchor: what merely moving those bytes costs).
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

rows=$(bench_rows 1000000)
# With --days 3 --window 3 every order is in every snapshot from its creation day on:
# day 1 holds a third of the orders, day 2 two thirds, day 3 all, so about 2 * orders messages.
orders=$(((rows + 1) / 2))
gen="'$BIN/orders-gen' --orders $orders --days 3 --window 3 --seed 1"
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/gen.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x "$BIN/orders-gen" ] || die "no $BIN/orders-gen: build first"
bash -c "$gen" >"$work/gen.lines"
msgs=$(wc -l <"$work/gen.lines")
bytes=$(wc -c <"$work/gen.lines")
mb=$(awk -v b="$bytes" 'BEGIN {printf "%d", b / 1e6}')

bench_interleave "${BENCH_REPS:-3}" \
    cat "cat '$work/gen.lines' >/dev/null" \
    lines "$gen >/dev/null" \
    rowbinary "$gen --format rowbinary >/dev/null" \
    dirty "$gen --dirty 0.02 >/dev/null"

bench_row "generator: cat of the same $mb MB (anchor)" "$msgs" cat
bench_row "generator: orders-gen, lines" "$msgs" lines cat
bench_row "generator: orders-gen, rowbinary" "$msgs" rowbinary cat
bench_row "generator: orders-gen, lines, 2 % dirty" "$msgs" dirty cat
# The same runs in MB/s: the rows column holds MB written, so rows/s reads as MB/s.
bench_row "generator: cat, MB/s (rows = MB)" "$mb" cat
bench_row "generator: orders-gen lines, MB/s (rows = MB)" "$mb" lines cat
