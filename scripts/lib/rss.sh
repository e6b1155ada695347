# rss.sh: memory of a UDF binary around one big block, fed straight on stdin the way the engine
# feeds an executable_pool process; sourced by bench/50-rss.sh and tests/bats/resources.bats.

# rss_probe BIG SMALL CMD...: runs CMD with its stdin held open (a FIFO, as in pool mode), sends
# the file BIG (whole blocks, chunk header included), then SMALL, waits until CMD has answered
# all of it (its output ends with exactly what CMD answers to SMALL alone) and reads
# /proc/PID/status while CMD waits on stdin for more. Prints "SECS PEAK_KIB STEADY_KIB": wall time
# from the first byte sent to the last answer, VmHWM (peak RSS) and VmRSS at that moment.
# RSS_TIMEOUT (seconds, default 600) bounds the wait; returns 1 on any failure.
rss_probe() {
    local big=$1 small=$2
    shift 2
    local dir want_n pid fd t0 t1 hwm rss deadline feeder
    dir=$(mktemp -d "${TMPDIR:-/tmp}/rss.XXXXXX")
    if ! "$@" <"$small" >"$dir/small.want"; then
        echo "rss_probe: '$*' failed on the small block alone" >&2
        rm -rf "$dir"
        return 1
    fi
    want_n=$(stat -c %s "$dir/small.want")
    mkfifo "$dir/in"
    "$@" <"$dir/in" >"$dir/out" &
    pid=$!
    exec {fd}>"$dir/in"
    t0=$(date +%s.%N)
    deadline=$((SECONDS + ${RSS_TIMEOUT:-600}))
    cat "$big" "$small" >&"$fd" & # in the background: a process that stops reading cannot hang us
    feeder=$!
    # The answer to SMALL comes last: once the output ends with it, everything before is answered
    # and CMD is back in read() on stdin.
    while [ "$(stat -c %s "$dir/out")" -lt "$want_n" ] ||
        ! cmp -s <(tail -c "$want_n" "$dir/out") "$dir/small.want"; do
        if ! kill -0 "$pid" 2>/dev/null || ((SECONDS > deadline)); then
            echo "rss_probe: '$*' exited or took too long before answering everything" >&2
            exec {fd}>&-
            kill "$pid" "$feeder" 2>/dev/null
            wait "$pid" "$feeder" 2>/dev/null
            rm -rf "$dir"
            return 1
        fi
        sleep 0.02
    done
    t1=$(date +%s.%N)
    hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    wait "$feeder"
    exec {fd}>&-
    local st=0
    wait "$pid" || st=$?
    rm -rf "$dir"
    if [ "$st" -ne 0 ]; then
        echo "rss_probe: '$*' exited with status $st at the end of its input" >&2
        return 1
    fi
    awk -v a="$t0" -v b="$t1" -v h="$hwm" -v r="$rss" 'BEGIN {printf "%.2f %d %d\n", b - a, h, r}'
}

# rss_block FILE COUNT: prepends the chunk header "COUNT\n" to the RowBinaryWithNamesAndTypes
# bytes on stdin and writes the block to FILE (appending).
rss_block() {
    printf '%s\n' "$2" >>"$1"
    cat >>"$1"
}
