# rehearsal.sh: the cluster rehearsal's nodes and how a statement runs on them; sourced by
# scripts/cluster-rehearsal and by its client for ods-load (rehearsal-client), never run.
# Needs: work (the rehearsal's directory, the working directory too), n (nodes), cfg (the
# cluster config), BIN; the files the rehearsal writes there (run$k.sql, dist_paths.tsv, qseq).
C=ods_rehearsal
# Tables the nodes hold locally (every one but stg and the gate's), and the Distributed table
# over each.
LOCAL=(order_snapshot_rep order_snapshot_hot order_snapshot_errors order_snapshot_stale order_loads)
declare -A DIST=([order_snapshot_rep]=order_snapshot_dist [order_snapshot_hot]=order_snapshot_hot_dist
    [order_snapshot_errors]=order_snapshot_errors_dist [order_snapshot_stale]=order_snapshot_stale_dist
    [order_loads]=order_loads_dist)
# Tables only the transition's node (the initiator) writes and reads, never through a Distributed
# table: the frozen loads and the lease. Not copied between nodes; in the state hash.
KEPT=(order_manifest order_frozen order_lease_v)
NOWRITE="SETTINGS optimize_on_insert = 0, max_partitions_per_insert_block = 0"

node() { # node M SQL: runs SQL on node M
    "$BIN/chlocal" --config-file "$cfg" --path "$work/node$1" -q "$2"
}
remap() { # remap DB < SQL
    sed -E "s/INSERT INTO ods\./INSERT INTO @ODS@./g; s/\bods\.(order_[a-z_]+_dist|order_v)\b/$1.\1/g; s/@ODS@/ods/g"
}
refresh_sql() { # refresh_sql M: the other nodes' local tables, as last exported
    local k t f
    for ((k = 1; k <= n; k++)); do
        ((k == $1)) && continue
        for t in "${LOCAL[@]}"; do
            f=$work/xfer/node$k/$t.native
            echo "TRUNCATE TABLE peer$k.$t;"
            [ -s "$f" ] && echo "INSERT INTO peer$k.$t SELECT * FROM file('$f', Native) $NOWRITE;"
        done
    done
    return 0
}
export_sql() { # export_sql M: node M's local tables (in insertion order) and a state hash
    local t
    rm -rf "xfer/node$1"; mkdir -p "xfer/node$1"
    for t in "${LOCAL[@]}"; do
        echo "SELECT * FROM ods.$t ORDER BY _partition_id, toUInt64OrZero(splitByChar('_', _part)[2]), _part_offset
              INTO OUTFILE '$work/xfer/node$1/$t.native' FORMAT Native;"
    done
    echo "SELECT * FROM (SELECT 'stg' AS t, count() AS c, groupBitXor(cityHash64(*)) AS h FROM stg.orders_raw"
    # _rep as FINAL reads it: background merges may collapse its older versions at any time
    for t in "${LOCAL[@]}" "${KEPT[@]}"; do
        echo "UNION ALL SELECT '$t', count(), groupBitXor(cityHash64(*)) FROM ods.$t$([ "$t" = order_snapshot_rep ] && echo " FINAL")"
    done
    echo ") ORDER BY t INTO OUTFILE '$work/xfer/node$1/state.tsv' FORMAT TSV;"
}
delivered=()
queued() { # queued M: sets delivered to every queued file for shard M, in queue order
    local t f
    delivered=()
    for t in "${LOCAL[@]}"; do
        [ -d "q/$t/shard$1" ] || continue
        for f in $(ls "q/$t/shard$1" | sort); do delivered+=("q/$t/shard$1/$f"); done
    done
}
deliver_sql() { # deliver_sql: one INSERT per queued file of delivered, into its local table
    local f t
    for f in ${delivered[@]+"${delivered[@]}"}; do
        t=${f#q/}; t=${t%%/*}
        # (the queue's own header, not the table's, says what a block holds: the table may have
        # a column the block fills from its default, _hashdiff_profile)
        echo "INSERT INTO ods.$t SELECT * FROM file('$work/$f', 'Distributed') $NOWRITE,
              use_structure_from_insertion_table_in_table_functions = 0;"
    done
}
collect() { # moves node 1's queued files out of the Distributed tables' data paths, in order
    local t dir s f shard qseq
    qseq=$(cat qseq 2>/dev/null || echo 0)   # one sequence over every process of the rehearsal
    for t in "${LOCAL[@]}"; do
        dir=$(grep -P "^${DIST[$t]}\t" dist_paths.tsv | cut -f2)
        [ -d "$dir" ] || continue
        for s in "$dir"/shard*_*; do
            [ -d "$s" ] || continue
            shard=${s##*/shard}; shard=${shard%%_*}
            for f in $(ls "$s" | grep -E '^[0-9]+\.bin$' | sort -n); do
                mkdir -p "q/$t/shard$shard"
                qseq=$((qseq + 1))
                mv "$s/$f" "q/$t/shard$shard/$(printf '%09d' "$qseq").bin"
            done
        done
    done
    echo "$qseq" >qseq
}
pending_others() { # is anything queued for a node other than 1?
    local d
    for d in q/*/shard*; do
        [ -d "$d" ] && [ "${d##*/}" != shard1 ] && [ -n "$(ls "$d")" ] && return 0
    done
    return 1
}
# try_step M SQL: one call on node M: deliver its shard's queue, refresh the copies of the other
# nodes, run SQL, export. Node 1 (the transition's node) then hands its queues over. When SQL
# fails, what was delivered before it stays delivered (a mark says so) and the status is
# returned, the engine's message on stderr. A table the engine failed to load as it started
# (ASYNC_LOAD_WAIT_FAILED: a fault of the embedded engine, docs/testing.md finding 10) runs the
# step again, up to 3 times: the query that met it never began, what ran before it is done
# (the deliveries, by the mark) or runs again as it did (the rest).
try_step() {
    local try st
    for try in 1 2 3 4; do
        st=0
        try_step_once "$@" 2>"$work/step.err" || st=$?
        if ((st != 0 && try < 4)) && grep -q '(ASYNC_LOAD_WAIT_FAILED)' "$work/step.err"; then
            echo "rehearsal: node $1: the engine failed to load a table; the step runs again" >&2
            continue
        fi
        cat "$work/step.err" >&2
        return "$st"
    done
}
try_step_once() {
    local sql st=0
    queued "$1"
    rm -f delivered.mark
    sql="$(deliver_sql)
SELECT 1 INTO OUTFILE '$work/delivered.mark' FORMAT TSV;
$(refresh_sql "$1")
SYSTEM STOP DISTRIBUTED SENDS;
$2
$(export_sql "$1")"
    node "$1" "$sql" || st=$?
    if [ -e delivered.mark ] && ((${#delivered[@]})); then rm -f "${delivered[@]}"; fi
    if (($1 == 1)); then collect; fi
    return "$st"
}
step() { # step M SQL: try_step, and a failure ends the rehearsal
    try_step "$@" || die "node $1: a step failed"
}
sync_others() { # sync_others [SQL]: every node but 1 takes its queue (and runs SQL), exports
    local m
    for ((m = 2; m <= n; m++)); do step "$m" "${1:-}"; done
}
runs() { # runs K..L: the text of the mapped statements K to L
    local k
    for ((k = $1; k <= $2; k++)); do cat "run$k.sql"; echo; done
}
