# bench.sh: timing helpers for bench/*.sh; sourced after common.sh, never run.
# Side by side means interleaved: A B C, A B C, … in one run, median wall time of each.
declare -gA BENCH_SECS BENCH_MIB

# bench_interleave REPS NAME1 CMD1 [NAME2 CMD2 …]: each CMD is a bash command string, run
# REPS times in turn with the others; sets BENCH_SECS[NAME] (median seconds) and
# BENCH_MIB[NAME] (largest peak RSS of the run's processes, MiB). A failing CMD aborts.
bench_interleave() {
    local reps=$1; shift
    local -a names=() cmds=()
    while (($#)); do names+=("$1"); cmds+=("$2"); shift 2; done
    local -A all=()
    local r i tf out secs kb
    tf=$(mktemp)
    for ((r = 0; r < reps; r++)); do
        for i in "${!names[@]}"; do
            if ! /usr/bin/time -f '%e %M' -o "$tf" bash -c "${cmds[$i]}" >/dev/null; then
                echo "bench: '${names[$i]}' failed: ${cmds[$i]}" >&2; rm -f "$tf"; return 1
            fi
            read -r secs kb < <(tail -1 "$tf")
            all[${names[$i]}]+="$secs "
            ((kb / 1024 > ${BENCH_MIB[${names[$i]}]:-0})) && BENCH_MIB[${names[$i]}]=$((kb / 1024))
        done
    done
    rm -f "$tf"
    for i in "${!names[@]}"; do
        BENCH_SECS[${names[$i]}]=$(tr ' ' '\n' <<<"${all[${names[$i]}]}" | grep . | sort -g |
            awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
    done
}

# bench_row WHAT ROWS NAME [ANCHOR_NAME]: one Markdown row; the ratio is the anchor's time
# over this one's (above 1: faster than the anchor).
bench_row() {
    local what=$1 rows=$2 name=$3 anchor=${4:-}
    local s=${BENCH_SECS[$name]} ratio="anchor"
    [ -n "$anchor" ] && [ "$anchor" != "$name" ] &&
        ratio=$(awk -v a="${BENCH_SECS[$anchor]}" -v b="$s" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
    awk -v w="$what" -v n="$rows" -v s="$s" -v r="$ratio" -v m="${BENCH_MIB[$name]}" \
        'BEGIN {printf "| %s | %d | %.0f | %s | %d |\n", w, n, (s > 0) ? n / s : 0, r, m}'
}

# bench_rows N: the base row count times --scale (BENCH_SCALE), at least 1.
bench_rows() { awk -v n="$1" -v s="${BENCH_SCALE:-1}" 'BEGIN {v = int(n * s); print (v < 1) ? 1 : v}'; }
