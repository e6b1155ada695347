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
        BENCH_SECS[${names[$i]}]=$(bench_median "${all[${names[$i]}]}")
    done
}

# bench_qtime NAME DIR MIN CHLOCAL-ARGS...: one chlocal process (working directory DIR) with
# --time; BENCH_SECS[NAME] is the sum of its queries' times, at least MIN of them (engine
# start-up is not in it; the UDF processes' start is: the engine starts them inside a query);
# BENCH_MIB[NAME] the largest peak RSS of the process so far. A failure returns 1.
bench_qtime() {
    local name=$1 dir=$2 want=$3 err kb secs nq tf
    shift 3
    tf=$(mktemp)
    err=$(cd "$dir" && /usr/bin/time -f '%M' -o "$tf" "$BIN/chlocal" --time "$@" 2>&1 >/dev/null) ||
        { echo "$err" >&2; rm -f "$tf"; return 1; }
    read -r nq secs < <(awk '/^[0-9]+(\.[0-9]+)?$/ {n++; s += $1} END {printf "%d %.3f\n", n, s}' <<<"$err")
    kb=$(tail -1 "$tf"); rm -f "$tf"
    ((nq >= want)) || { echo "$err" >&2; echo "bench: '$name': $nq query times, want $want" >&2; return 1; }
    BENCH_SECS[$name]=$secs
    ((kb / 1024 > ${BENCH_MIB[$name]:-0})) && BENCH_MIB[$name]=$((kb / 1024))
    return 0
}

# bench_gate_pieces ROWS: the gate's INSERTs ods-load runs for a load of ROWS staged rows (one
# per 1 048 576, 1 to 16), for `ods-ddl transition --gate-pieces`: an empty piece costs about
# 0.1 s, which a transition printed with the default 16 would add to every timed run.
bench_gate_pieces() { awk -v n="$1" 'BEGIN { p = int((n + 1048575) / 1048576); print (p < 1) ? 1 : (p > 16) ? 16 : p }'; }

# bench_median "T1 T2 ...": the median of space-separated numbers.
bench_median() { tr ' ' '\n' <<<"$1" | grep . | sort -g |
    awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

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

# bench_stage_day DB D: into the ODS at DB (through the caller's ch), day D by SQL from day D-1's staged messages: every message again with
# snapshot_date = day D (not state: it must not change the hashdiff); for exactly 1 % of the
# orders (the first by cityHash64(order_id, day D) among those not yet delivered or cancelled, so
# another 1 % each day) the status moves one step forward (new → paid → shipped → delivered) and
# updated_at becomes a time of day D. Offsets continue. Uses the caller's n (orders), changed
# (orders changed a day), dates (snapshot date of each day, from 1) and ch (chlocal).
bench_stage_day() {
    local db=$1 d=$2 p=$(($2 - 1)) msgs moved redated
    say "day $d: all $n orders again, $changed of them changed (SQL over day $p's staged rows)" >&2
    ch --path "$db" -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
        SELECT if(chg,
                  replaceRegexpOne(replaceOne(raw1, concat('\"status\":\"', s, '\"'),
                                              concat('\"status\":\"', transform(s, ['new', 'paid', 'shipped'], ['paid', 'shipped', 'delivered'], s), '\"')),
                                   '\"updated_at\":\"[^\"]*\"',
                                   concat('\"updated_at\":\"', replaceOne(toString(toDateTime64('${dates[d]}', 3, 'UTC')
                                       + toIntervalMillisecond(cityHash64(id) % 86400000)), ' ', 'T'), 'Z\"')),
                  raw1),
               _topic, _partition, _offset + $n, _timestamp + toIntervalDay(1), _key, 'day$d', now64(3, 'UTC')
        FROM (SELECT *, replaceOne(raw, '\"snapshot_date\":\"${dates[p]}\"', '\"snapshot_date\":\"${dates[d]}\"') AS raw1,
                     JSONExtractString(raw, 'order_id') AS id, JSONExtractString(raw, 'status') AS s,
                     id IN (SELECT JSONExtractString(raw, 'order_id') AS i FROM stg.orders_raw
                            WHERE _load_id = 'day$p' AND JSONExtractString(raw, 'status') IN ('new', 'paid', 'shipped')
                            ORDER BY cityHash64(i, '${dates[d]}') LIMIT $changed) AS chg
              FROM stg.orders_raw WHERE _load_id = 'day$p')"
    read -r msgs moved redated < <(ch --path "$db" --format TSV -q "
        SELECT count(), countIf(JSONExtractString(raw, 'updated_at') >= '${dates[d]}'),
               countIf(JSONExtractString(raw, 'snapshot_date') = '${dates[d]}')
        FROM stg.orders_raw WHERE _load_id = 'day$d'")
    [ "$msgs" -eq "$n" ] && [ "$moved" -eq "$changed" ] && [ "$redated" -eq "$n" ] ||
        die "day $d staged $msgs messages, $moved changed, $redated with snapshot_date ${dates[d]} (want $n, $changed, $n)"
}
