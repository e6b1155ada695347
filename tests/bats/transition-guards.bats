#!/usr/bin/env bats
# transition-guards: issue 24's six cases replayed as the issue tells them, on the embedded engine,
# each asserting the guard the 12-statement transition now has; then SIGKILL mid-statement, abandon.
load helpers

FIX=$ROOT/tests/fixtures/guards

# The transitions here have the gate as one INSERT (ods_ddl_one_gate).
ods_ddl() { ods_ddl_one_gate "$@"; }
og() { "$BIN/orders-gen" "$@"; }

# steps K M: statements K to M of the transition, each taken from its "-- K. " line on: a part of a
# run, as an operator, a retried task or a zombie attempt runs it.
steps() { ods_ddl transition | awk -v a="$1" -v b="$2" '/^-- [0-9]+\. /{ n = $2 + 0 } n >= a && n <= b'; }

# tx LOAD K M: statements K to M of LOAD's transition in one chlocal process on ./db, which stops at
# the first failing one; status, output and stderr_text as run_split leaves them.
tx() { run_split chlocal --path db "--param_load_id=$1" -q "$(steps "$2" "$3")"; }
# tx_ok LOAD K M: the same, which must succeed.
tx_ok() { tx "$@"; [ "$status" -eq 0 ] || { echo "$1 $2-$3: $stderr_text"; return 1; }; }

# q SQL: on ./db, must succeed.
q() { chlocal --path db -q "$1"; }

# stage_sql LOAD FILE SOURCE: the file's lines staged as one Kafka batch would be (topic SOURCE,
# partition 0, offset = line number, empty lines skipped): a plain INSERT, not ods-ddl stage, so
# the scenarios replay on a tree without that command too. stage LOAD FILE SOURCE runs it on ./db.
stage_sql() {
    echo "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
SELECT raw, '$3', 0, _line, NULL, '', '$1', now64(3, 'UTC')
FROM (SELECT raw, rowNumberInAllBlocks() + 1 AS _line FROM file('$2', LineAsString, 'raw String'))
WHERE raw != ''
SETTINGS input_format_parallel_parsing = 0, max_threads = 1;"
}
stage() { q "$(stage_sql "$@")"; }

# Case 3 may keep its database in /dev/shm (see there).
teardown() { if [ -n "${SHM_DB:-}" ]; then rm -rf "$SHM_DB"; fi; }

# fresh: the schema on a new ./db.
fresh() { rm -rf db; q "$(ods_ddl schema)"; }

# fingerprint: every table of stg and ods that holds rows (the lease's too, while it exists):
# its rows, and a hash of their contents; what must be equal before and after a run that writes
# nothing.
fingerprint() {
    q "$(q "SELECT concat('SELECT ''', database, '.', name, ''', count(), sum(cityHash64(*)) FROM ', database, '.', name, ';')
        FROM system.tables WHERE database IN ('stg', 'ods') AND engine NOT IN ('View', 'MaterializedView', 'Null', 'Merge', 'Kafka')
        ORDER BY database, name FORMAT TSVRaw")"
}

# clean_run LOAD…: the reference, a clean sequential run of LOADs in that order (commit order)
# over the same staged rows (_load_ts included), copied to s2/o2 in the same db.
clean_run() {
    local id sql
    sql="$(ods_ddl schema --stg-db s2 --ods-db o2)
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;"
    for id; do
        sql+="
SET param_load_id = '$id';
$(ods_ddl transition --stg-db s2 --ods-db o2)"
    done
    # (through a file: a command-line argument holds at most 128 KiB)
    printf '%s\n' "$sql" >clean_run.sql
    run_split chlocal --path db --queries-file clean_run.sql
    [ "$status" -eq 0 ] || { echo "clean run: $stderr_text"; return 1; }
}

# same_as_clean: order_v, the errors table and the ledger (but its clock, committed_at) of ods
# equal those of the clean run in o2, compared EXCEPT both ways; order_v and the ledger hold rows.
same_as_clean() {
    local t x sql=""
    for t in order_v order_snapshot_errors order_loads; do
        x=""
        if [ "$t" = order_loads ]; then x=" EXCEPT (committed_at)"; fi
        sql+="SELECT '$t', (SELECT count() FROM ods.$t), (SELECT count() FROM o2.$t),
    (SELECT count() FROM (SELECT *$x FROM ods.$t EXCEPT SELECT *$x FROM o2.$t))
  + (SELECT count() FROM (SELECT *$x FROM o2.$t EXCEPT SELECT *$x FROM ods.$t));"
    done
    run_split chlocal --path db -q "$sql"
    echo "table, rows, clean run's rows, rows in one and not in the other:"
    echo "$output"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(wc -l <<<"$output")" -eq 3 ]
    awk -F'\t' '$2 != $3 || $4 != 0 || ($1 != "order_snapshot_errors" && $2 == 0) { bad = 1 } END { exit bad }' <<<"$output"
}

# no_lease: nobody holds the lease.
no_lease() { [ "$(q 'SELECT count() FROM ods.order_lease_v')" = 0 ]; }

# Four days of one world, dirty, staged as loads P (day 1), A, B, C; P committed.
four_days() {
    local d
    for d in 1 2 3 4; do og --orders 300 --days 4 --dirty 0.1 --seed 24 --day "$d" > "d$d.jsonl"; done
    rm -rf db
    # (through a file: a command-line argument holds at most 128 KiB)
    printf '%s\n' "$(ods_ddl schema)
$(stage_sql P "$PWD/d1.jsonl" orders)
$(stage_sql A "$PWD/d2.jsonl" orders)
$(stage_sql B "$PWD/d3.jsonl" orders)
$(stage_sql C "$PWD/d4.jsonl" orders)
SET param_load_id = 'P';
$(ods_ddl transition)" >four_days.sql
    run_split chlocal --path db --queries-file four_days.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
}

@test "issue 24 case 1: overlapping runs: B started while A holds the lease fails at statement 1 naming A, writing nothing; no version is lost" {
    four_days
    tx_ok A 1 4
    before=$(fingerprint)
    tx B 1 7
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: the lease is held by load A since "* ]]
    [[ "$stderr_text" == *"DROP TABLE IF EXISTS ods.order_lease"* ]]
    [ "$(fingerprint)" = "$before" ]
    tx_ok A 5 12
    no_lease
    # B, then C, commit: C's housekeeping is where the issue lost B's versions
    tx_ok B 1 12
    tx_ok C 1 12
    clean_run P A B C
    same_as_clean
}

@test "issue 24 case 1, zombie: the lease cleared by hand under a live run: the other load runs only if the first is not frozen, the zombie stops at its next statement, nothing is lost (k = 3 and k = 6)" {
    four_days
    cp -a db db0
    # k = 3: A took the lease and checked its staging, not frozen yet; B runs and freezes, the
    # zombie A goes on while B holds the lease, B commits, A reruns
    tx_ok A 1 3
    q "DROP TABLE IF EXISTS ods.order_lease"
    tx_ok B 1 5
    before=$(fingerprint)
    tx A 4 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 4/12: this run of load A does not hold the lease (load B holds it since "* ]]
    [ "$(fingerprint)" = "$before" ]
    tx_ok B 6 12
    tx_ok A 1 12
    tx_ok C 1 12
    clean_run P B A C
    same_as_clean

    # k = 6: A is frozen (statement 5 sealed it) when its lease is cleared: B is refused, the
    # zombie stops at the fold, A reruns, then B
    rm -rf db
    cp -a db0 db
    tx_ok A 1 6
    q "DROP TABLE IF EXISTS ods.order_lease"
    before=$(fingerprint)
    tx B 1 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: load A is frozen and not committed (since "* ]]
    [[ "$stderr_text" == *"ods-ddl abandon"* ]]
    [ "$(fingerprint)" = "$before" ]
    no_lease
    tx A 7 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 7/12: this run of load A does not hold the lease (nobody holds it)"* ]]
    [ "$(fingerprint)" = "$before" ]
    tx_ok A 1 12
    tx_ok B 1 12
    tx_ok C 1 12
    clean_run P A B C
    same_as_clean
}

@test "issue 24 case 1, defence in depth: a committed load never folded while a later one is committed: the housekeeping keeps its hot rows" {
    four_days
    # B commits; A commits without its fold (statement 7), as the issue's interleaving left it: B's
    # versions only in the hot table, B's delta below the greatest, which the housekeeping once took
    # for "folded"
    tx_ok B 1 12
    tx_ok A 1 6
    tx_ok A 8 12
    run q "SELECT (SELECT delta FROM ods.order_loads WHERE _load_id = 'B') < (SELECT max(delta) FROM ods.order_loads),
        (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'B'), (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'B') > 0 FORMAT TSV"
    [ "$output" = "$(printf '1\t0\t1')" ]
    hot_b=$(q "SELECT count(), sum(cityHash64(*)) FROM ods.order_snapshot_hot WHERE _load_id = 'B'")
    view=$(q "SELECT count(), sum(cityHash64(*)) FROM ods.order_v")
    # C's housekeeping alone
    tx_ok C 1 6
    [ "$(q "SELECT count(), sum(cityHash64(*)) FROM ods.order_snapshot_hot WHERE _load_id = 'B'")" = "$hot_b" ]
    [ "$(q "SELECT count(), sum(cityHash64(*)) FROM ods.order_v")" = "$view" ]
    tx_ok C 7 12
    clean_run P B A C
    same_as_clean
}

@test "issue 24 case 2: rows staged under a load after its freeze fail its commit (statement 10, naming them and move-late); moved to a new load, both commit, nothing lost" {
    fresh
    stage L1 "$FIX/case2-L1.jsonl" orders
    tx_ok L1 1 5
    # during the run: a newer version of ORD-A2 and 'not json', the next offsets of another topic
    stage L1 "$FIX/case2-late.jsonl" orders-late
    tx L1 6 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 10/12: 2 rows were staged under load L1 after it was frozen ("* ]]
    [[ "$stderr_text" == *"(ods-ddl move-late)"* ]]
    [ "$(q "SELECT count() FROM ods.order_loads")" = 0 ]
    [ "$(q "SELECT count() FROM ods.order_v")" = 0 ]
    # the failed run keeps the lease (it failed after statement 2): move-late says so, then runs
    [ "$(q "SELECT _load_id FROM ods.order_lease_v")" = L1 ]
    run_split chlocal --path db --param_load_id=L1 --param_to_load_id=L1b -q "$(ods_ddl move-late)"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"move-late 1/7: the lease is held by load L1"* ]]
    q "DROP TABLE IF EXISTS ods.order_lease"
    run_split chlocal --path db --param_load_id=L1 --param_to_load_id=L1b -q "$(ods_ddl move-late)"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(q "SELECT _load_id, count() FROM stg.orders_raw GROUP BY ALL ORDER BY ALL FORMAT CSV")" = "$(printf '"L1",3\n"L1b",2')" ]
    tx_ok L1 1 12
    tx_ok L1b 1 12
    # the newer version is what order_v shows; 'not json' is in the errors table
    [ "$(q "SELECT status, updated_at, _load_id FROM ods.order_v WHERE order_id = 'ORD-A2' FORMAT CSV")" = '"paid","2026-03-01 11:00:00.000","L1b"' ]
    [ "$(q "SELECT raw, error_class, _load_id FROM ods.order_snapshot_errors FORMAT CSV")" = '"not json","not_an_object","L1b"' ]
    run q "SELECT _load_id, received, redelivered, accepted, stored, unchanged, stale, rejected, not_an_object, received = accepted + rejected + redelivered
        FROM ods.order_loads ORDER BY delta FORMAT CSV"
    echo "$output"
    [ "$output" = "$(printf '"L1",3,0,3,2,1,0,0,0,1\n"L1b",2,0,1,1,0,0,1,1,1')" ]
    clean_run L1 L1b
    same_as_clean
}

@test "the commit counts late rows exactly whenever staging is not what the seal fingerprinted: a late row in place of a deleted copy (as many rows as the seal counted) and a late row under a seal from before the fingerprint fail it; a copy fewer, or staging as frozen, commits" {
    head -1 "$FIX/case2-late.jsonl" >late1.jsonl
    fresh
    # each message twice (a redelivery: the same coordinates and bytes): 6 rows staged, 3 messages
    stage L1 "$FIX/case2-L1.jsonl" orders
    stage L1 "$FIX/case2-L1.jsonl" orders
    tx_ok L1 1 9
    [ "$(q "SELECT staged, messages, staged_fp1 != 0, staged_fp2 != 0 FROM ods.order_frozen" | tr '\t' ' ')" = "6 3 1 1" ]
    # the later copy of offset 1 deleted, one late row staged: 6 rows again, other rows
    q "ALTER TABLE stg.orders_raw DELETE WHERE _offset = 1 AND _load_ts = (SELECT max(_load_ts) FROM stg.orders_raw WHERE _offset = 1)
       SETTINGS mutations_sync = 2"
    stage L1 "$PWD/late1.jsonl" orders-late
    [ "$(q "SELECT count() FROM stg.orders_raw WHERE _load_id = 'L1'")" -eq 6 ]
    tx L1 10 12
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 10/12: 1 rows were staged under load L1 after it was frozen ("* ]]
    [ "$(q "SELECT count() FROM ods.order_loads")" -eq 0 ]
    # the late row gone, a copy fewer than the seal counted: nothing is late, the rerun commits
    q "ALTER TABLE stg.orders_raw DELETE WHERE _topic = 'orders-late' SETTINGS mutations_sync = 2; DROP TABLE ods.order_lease"
    tx_ok L1 1 12
    [ "$(q "SELECT received, redelivered, accepted, stored FROM ods.order_loads" | tr '\t' ' ')" = "6 3 3 2" ]
    # a seal from before the fingerprint was kept (migrate's default, 0 and 0) gives no shortcut
    fresh
    stage L2 "$FIX/case2-L1.jsonl" orders
    tx_ok L2 1 9
    q "ALTER TABLE ods.order_frozen UPDATE staged_fp1 = 0, staged_fp2 = 0 WHERE 1 SETTINGS mutations_sync = 2"
    stage L2 "$PWD/late1.jsonl" orders-late
    tx L2 10 12
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 10/12: 1 rows were staged under load L2 after it was frozen ("* ]]
    q "ALTER TABLE stg.orders_raw DELETE WHERE _topic = 'orders-late' SETTINGS mutations_sync = 2; DROP TABLE ods.order_lease"
    tx_ok L2 1 12
    [ "$(q "SELECT staged_fp1, staged_fp2 FROM ods.order_frozen" | tr '\t' ' ')" = "0 0" ]
    clean_run L2
    same_as_clean
}

@test "the staging checks (1/12, 3/12) count late rows only when staging is not what the seal fingerprinted: not for a frozen or committed load staged as frozen (the seal's figures read), and a late row in place of a deleted copy fails both" {
    head -1 "$FIX/case2-late.jsonl" >late1.jsonl
    # the late-row count's grouping, made to throw on its first group
    local exact="s/ HAVING min(_s) = 1)/ HAVING throwIf(count() > 0, 'the exact comparison ran') = 0 AND min(_s) = 1)/"
    [ "$(steps 1 3 | sed "$exact" | grep -c 'the exact comparison ran')" -eq 2 ]
    fresh
    # each message twice (a redelivery): 6 rows staged, 3 messages
    stage L1 "$FIX/case2-L1.jsonl" orders
    stage L1 "$FIX/case2-L1.jsonl" orders
    tx_ok L1 1 9
    # frozen, staging as the seal fingerprinted it: nothing is grouped
    run_split chlocal --path db --param_load_id=L1 -q "$(steps 3 3 | sed "$exact")"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    # the later copy of offset 1 deleted, one late row staged: as many rows as the seal counted
    q "ALTER TABLE stg.orders_raw DELETE WHERE _offset = 1 AND _load_ts = (SELECT max(_load_ts) FROM stg.orders_raw WHERE _offset = 1)
       SETTINGS mutations_sync = 2"
    stage L1 "$PWD/late1.jsonl" orders-late
    [ "$(q "SELECT count() FROM stg.orders_raw WHERE _load_id = 'L1'")" -eq 6 ]
    run_split chlocal --path db --param_load_id=L1 -q "$(steps 3 3 | sed "$exact")"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"the exact comparison ran"* ]]
    tx L1 3 3
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 3/12: 1 rows were staged under load L1 after it was frozen ("* ]]
    q "DROP TABLE ods.order_lease"
    tx L1 1 1
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: 1 rows were staged under load L1 after it was frozen ("* ]]
    no_lease
    # the late row gone, a copy fewer than the seal counted: counted exactly, none late; it commits
    q "ALTER TABLE stg.orders_raw DELETE WHERE _topic = 'orders-late' SETTINGS mutations_sync = 2"
    run_split chlocal --path db --param_load_id=L1 -q "$(steps 1 1 | sed "$exact")"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"the exact comparison ran"* ]]
    tx_ok L1 1 12
    # a committed load staged as frozen: its rerun's checks group nothing either
    stage L2 "$FIX/case2-L1.jsonl" orders2
    tx_ok L2 1 12
    [ "$(q "SELECT count() FROM ods.order_loads")" -eq 2 ]
    run_split chlocal --path db --param_load_id=L2 -q "$(steps 1 1 | sed "$exact")"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    no_lease
}

# The issue's load: N orders created from 1900-01-01 to 2299-12-31, evenly; a status, the age of
# updated_at in seconds, and every EVERY-th order only (later versions of some of them).
span_sql() {
    cat <<'SQL'
SELECT concat('{"order_id":"SPAN-', leftPad(toString(number), 5, '0'), '","user_id":', toString(1000 + number),
    ',"status":"', {status:String}, '","created_at":"', replaceOne(toString(c), ' ', 'T'),
    'Z","updated_at":"', replaceOne(toString(c + toIntervalSecond({age:UInt32})), ' ', 'T'),
    'Z","items_total":"10.00","discount":"0.00","delivery":"4.99","total":"14.99","items":[{"sku":"SKU-1","qty":1,"price":"10.00"}],"snapshot_date":"2026-03-01"}')
FROM (SELECT number, toDateTime64('1900-01-01 00:00:00', 3, 'UTC') + toIntervalSecond(intDiv(number * 12622694400, {n:UInt32} - 1)) AS c
      FROM numbers({n:UInt32}))
WHERE number % {every:UInt32} = 0
FORMAT TSVRaw
SQL
}

# twice SPILL LOAD K: statement K of LOAD's transition, its hashed groups spilled to disk at every
# block when SPILL is "spilled" (the statement's 256 MiB threshold put at 1 byte, and every hash
# table two-level, which a spill needs); then, if it passed, how many parts it spilled (the
# engine's ExternalAggregationWritePart). SED, if given, edits the statement first. Status,
# output and stderr_text as run_split leaves them.
twice() {
    local sql
    sql=$(steps "$3" "$3")
    if [ "$1" = spilled ]; then
        [ "$(grep -c 'max_bytes_before_external_group_by = 268435456' <<<"$sql")" -eq 1 ] || { echo "statement $3 sets no spill"; return 1; }
        sql=${sql//max_bytes_before_external_group_by = 268435456/max_bytes_before_external_group_by = 1, group_by_two_level_threshold = 1, group_by_two_level_threshold_bytes = 1}
    fi
    [ -z "${4:-}" ] || sql=$(sed "$4" <<<"$sql")
    run_split chlocal --path db "--param_load_id=$2" -q "$sql
SELECT sum(value) FROM system.events WHERE event = 'ExternalAggregationWritePart';"
}

@test "a row twice: the seal refuses a manifest holding a message twice (5/12), the commit a load whose fates, errors, hot rows or stale records hold one row twice in place of another (10/12), with the numbers; the same with every group spilled to disk, where a clean load commits as it does in memory" {
    og --orders 300 --days 2 --dirty 0.3 --seed 31 --day 1 > d.jsonl
    # the seal's two exact groupings (late rows, a message twice), made to throw on their first group
    local exact="s/ HAVING min(_s) = 1)/ HAVING throwIf(count() > 0, 'the exact comparison ran') = 0 AND min(_s) = 1)/
s/ GROUP BY _topic, _partition, _offset HAVING count() > 1)/ GROUP BY _topic, _partition, _offset HAVING throwIf(count() > 0, 'the exact comparison ran') = 0 AND count() > 1)/"
    # the load frozen (statements 1-4) and gated (5-9) once; each case starts from a copy
    fresh
    stage A "$PWD/d.jsonl" orders
    tx_ok A 1 4
    cp -a db db4
    tx_ok A 5 9
    cp -a db db9
    for spill in memory spilled; do
        for t in order_manifest order_fates order_snapshot_errors order_snapshot_hot order_snapshot_stale; do
            rm -rf db
            k=10
            if [ "$t" = order_manifest ]; then k=5; fi
            cp -a "db$((k - 1))" db
            # one row of the load copied, another of its key deleted: the counts stay what is due
            # (but the stale records, which a first load has none of: a made-up record, twice)
            case $t in
                order_manifest) key="_topic, _partition, _offset"; where="error_class = ''" ;;
                order_snapshot_hot) key="order_id, updated_at"; where=1 ;;
                order_snapshot_errors) key="_topic, _partition, _offset"; where="error_class = 'field_invalid'" ;;
                *) key="_topic, _partition, _offset"; where=1 ;;
            esac
            if [ "$t" = order_snapshot_stale ]; then
                q "INSERT INTO ods.order_snapshot_stale VALUES ('ORD-X', '2026-01-01 00:00:00', 'orders', 0, 999999, 'A', now64(3, 'UTC')), ('ORD-X', '2026-01-01 00:00:00', 'orders', 0, 999999, 'A', now64(3, 'UTC'))"
            elif [ "$t" = order_manifest ]; then
                q "INSERT INTO ods.$t SELECT * FROM ods.$t WHERE _load_id = 'A' AND $where ORDER BY $key LIMIT 1"
            else
                n=$(q "SELECT count() FROM ods.$t WHERE _load_id = 'A' AND $where")
                [ "$n" -ge 2 ]
                q "ALTER TABLE ods.$t DELETE WHERE _load_id = 'A' AND ($key) = (SELECT $key FROM ods.$t WHERE _load_id = 'A' AND $where ORDER BY $key LIMIT 1 OFFSET 1) SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1
                   ; INSERT INTO ods.$t SELECT * FROM ods.$t WHERE _load_id = 'A' AND $where ORDER BY $key LIMIT 1"
                [ "$(q "SELECT count() FROM ods.$t WHERE _load_id = 'A' AND $where")" -eq "$n" ]
            fi
            twice "$spill" A "$k"
            echo "$spill $t: $stderr_text"
            [ "$status" -eq 1 ]
            a=$(q "SELECT countIf(error_class = '') FROM ods.order_manifest WHERE _load_id = 'A'")
            r=$(q "SELECT countIf(error_class != '') FROM ods.order_manifest WHERE _load_id = 'A'")
            case $t in
                order_manifest) want="transition 5/12: the manifest of load A holds a message twice" ;;
                order_fates) want="would not add up: order_fates holds $a fates ($((a - 1)) distinct) for $a accepted messages; " ;;
                order_snapshot_errors) want="would not add up: the errors table holds $r rows of the load ($((r - 1)) distinct), the manifest $r rejected messages; " ;;
                order_snapshot_hot) s=$(q "SELECT count() FROM ods.order_fates WHERE _load_id = 'A' AND fate = 'stored'")
                    want="would not add up: the hot table holds $s rows of the load ($((s - 1)) distinct) for $s stored; " ;;
                order_snapshot_stale) want="would not add up: order_snapshot_stale holds 2 records of the load (1 distinct) for 0 stale; " ;;
            esac
            [[ "$stderr_text" == *"$want"* ]] || { echo "wanted: $want"; return 1; }
            if [ "$t" = order_manifest ]; then # there, the exact comparison runs
                twice "$spill" A 5 "$exact"
                [ "$status" -eq 1 ]
                [[ "$stderr_text" == *"the exact comparison ran"* ]]
            fi
            [ "$(q "SELECT count() FROM ods.order_loads")" = 0 ]
        done
        # a clean load: the seal and the commit pass, spilled or not, with the clean run's ledger.
        # The seal's exact comparison (run above, where the manifest holds a message twice) reads
        # nothing then: the fingerprints of staging and the manifest agree. Its two groupings
        # are made to throw on their first group, and the seal passes; only the sets of
        # recurring hashes are grouped by hash (spilled in the spilled mode).
        rm -rf db
        cp -a db4 db
        [ "$(steps 5 5 | sed "$exact" | grep -o 'the exact comparison ran' | wc -l)" -eq 2 ]
        twice "$spill" A 5 "$exact"
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        [ "$output" -ge "$([ "$spill" = spilled ] && echo 1 || echo 0)" ]
        [ "$output" -le "$([ "$spill" = spilled ] && echo 1000 || echo 0)" ]
        tx_ok A 6 9
        twice "$spill" A 10
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        [ "$output" -ge "$([ "$spill" = spilled ] && echo 1 || echo 0)" ]
        [ "$output" -le "$([ "$spill" = spilled ] && echo 1000 || echo 0)" ]
        tx_ok A 11 12
        clean_run A
        same_as_clean
    done
}

# mid_freeze SHARED PRE: on a copy of ./db0 (one message staged under A, a Buffer in front of
# staging): statements 1-3 of A, a copy of the message written to the Buffer, PRE seconds of sleep,
# then the freeze with each table snapshot it takes slowed by 200 ms and its shared snapshot set to
# SHARED; prints the manifest's rows and the staged rows of A.
mid_freeze() {
    local freeze
    freeze=$(steps 4 4 | sed "s/^SETTINGS enable_shared_storage_snapshot_in_query = 1, /SETTINGS merge_tree_storage_snapshot_sleep_ms = 200, enable_shared_storage_snapshot_in_query = $1, /")
    [ "$(grep -c "merge_tree_storage_snapshot_sleep_ms = 200, enable_shared_storage_snapshot_in_query = $1, " <<<"$freeze")" -eq 1 ] || { echo "the freeze sets no shared snapshot"; return 1; }
    rm -rf db
    cp -a db0 db
    chlocal --path db --param_load_id=A -q "$(steps 1 3)
INSERT INTO stg.late_buf (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
SELECT raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts + toIntervalSecond(1) FROM stg.orders_raw;
SELECT sleep($2) FORMAT Null;
$freeze
SELECT (SELECT count() FROM ods.order_manifest WHERE _load_id = 'A'), (SELECT count() FROM stg.orders_raw WHERE _load_id = 'A') FORMAT TSV;"
}

@test "a copy staged while the freeze reads staging is frozen once: its reads share one snapshot of staging (pinned in its SETTINGS); with that off, the copy lands between them, is frozen twice and the seal refuses" {
    # The freeze reads staging three times (coordinates staged once, copies, the set of recurring
    # hashes telling them apart). A Buffer table in front of staging flushes its rows into it in
    # the engine's background about a second after they were written, whatever statement runs
    # then; the engine's merge_tree_storage_snapshot_sleep_ms slows each table snapshot the
    # freeze takes by 200 ms, so that the flush lands among them.
    fresh
    printf '%s\n' '{"order_id":"ORD-1","user_id":1,"status":"paid","created_at":"2026-03-01T10:00:00.000Z","updated_at":"2026-03-01T10:00:00.000Z","items_total":"1.00","discount":"0.00","delivery":"0.00","total":"1.00","items":[],"snapshot_date":"2026-03-01"}' >one.jsonl
    stage A "$PWD/one.jsonl" orders
    q "CREATE TABLE stg.late_buf AS stg.orders_raw ENGINE = Buffer(stg, orders_raw, 1, 1, 1, 1000000, 1000000, 1000000000, 1000000000)"
    mv db db0
    # For each delay, until one lands the copy between two of the freeze's reads: with the
    # shared snapshot off (each read takes its own), the copy frozen twice, which the seal refuses;
    # pinned (the transition as printed) at that same delay, the copy frozen once or not at all
    # (then it is a copy staged after the freeze: the same message), and the load commits it once.
    local twice=0
    for pre in 0.6 0.7 0.9 1.1 0.8 1.0; do
        run_split mid_freeze 0 "$pre"
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        if [ "$output" = $'2\t2' ]; then
            twice=1
            tx A 5 5
            [ "$status" -eq 1 ]
            [[ "$stderr_text" == *"transition 5/12: the manifest of load A holds a message twice (two runs froze it at once?)"* ]]
        fi
        run_split mid_freeze 1 "$pre"
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        [ "$output" = $'1\t2' ]
        tx_ok A 5 12
        [ "$(q "SELECT accepted, stored FROM ods.order_loads WHERE _load_id = 'A'")" = $'1\t1' ]
        [ "$(q "SELECT count() FROM ods.order_v")" -eq 1 ]
        [ "$twice" -eq 0 ] || break
    done
    [ "$twice" -eq 1 ]
}

@test "issue 24 case 3: a load spanning 3700 creation days (1900-01-01 to 2299-12-31), then two more loads: every fold succeeds, every _rep row in its day's partition" {
    # 3 700 days, beyond the 3 660 a partition limit once allowed; each is a part of its own
    span_sql > span.sql
    chlocal --no-udf --param_n=3700 --param_status=paid --param_age=60 --param_every=1 --queries-file span.sql > s1.jsonl
    chlocal --no-udf --param_n=3700 --param_status=shipped --param_age=3600 --param_every=37 --queries-file span.sql > s2.jsonl
    chlocal --no-udf --param_n=3700 --param_status=delivered --param_age=7200 --param_every=370 --queries-file span.sql > s3.jsonl
    [ "$(wc -l < s1.jsonl)" -eq 3700 ]
    [[ "$(sed -n '1p' s1.jsonl)" == '{"order_id":"SPAN-00000","user_id":1000,"status":"paid","created_at":"1900-01-01T00:00:00.000Z",'* ]]
    [[ "$(sed -n '$p' s1.jsonl)" == *'"created_at":"2299-12-31T00:00:00.000Z"'* ]]
    # 3 700 one-row parts, a directory of a dozen files each: on a disk writing and removing them
    # takes 30 to 60 s, on a tmpfs a few, so the database goes to /dev/shm when it has room
    db=$BATS_TEST_TMPDIR/db
    shm_free=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
    [ -w /dev/shm ] || shm_free=0
    if [ "${shm_free:-0}" -gt 2097152 ]; then
        SHM_DB=$(mktemp -d /dev/shm/transition-guards.XXXXXX)
        db=$SHM_DB/db
    fi
    # one process for the three loads: each process start would load the thousands of parts again
    printf '%s\n' "$(ods_ddl schema)
$(stage_sql S1 "$PWD/s1.jsonl" span)
$(stage_sql S2 "$PWD/s2.jsonl" span)
$(stage_sql S3 "$PWD/s3.jsonl" span)
SET param_load_id = 'S1';
$(ods_ddl transition)
SET param_load_id = 'S2';
$(ods_ddl transition)
SET param_load_id = 'S3';
$(ods_ddl transition)
SELECT count(), uniqExact(_partition_id), countIf(_partition_id != formatDateTime(created_at, '%Y%m%d')) FROM ods.order_snapshot_rep FORMAT TSV;
SELECT arrayStringConcat(groupArray(_load_id), ' ') FROM (SELECT _load_id FROM ods.order_loads ORDER BY delta) FORMAT TSV;
SELECT status, count() FROM ods.order_v GROUP BY status ORDER BY status FORMAT TSV" >span.sql
    run_split chlocal --path "$db" --queries-file span.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output"
    # S1 and S2 folded into _rep (S3's versions wait in the hot table for the next fold): 3700 +
    # 100 rows in 3700 partitions, none elsewhere than its created_at's day
    [ "$output" = "$(printf '3800\t3700\t0\nS1 S2 S3\ndelivered\t10\npaid\t3600\nshipped\t90')" ]
}

@test "issue 24 case 4: 18 messages staged at one coordinate fail at statement 1 (nothing written, no lease), naming it and ods-ddl stage; staged by ods-ddl stage they commit, no figure wrapped" {
    fresh
    before=$(fingerprint)
    # the issue's staging: no Kafka coordinates at all (every row at topic '', partition 0, offset 0)
    q "INSERT INTO stg.orders_raw (raw, _load_id, _load_ts) SELECT line, 'n1', now64(3) FROM file('$FIX/case4-nocoords.jsonl', LineAsString, 'line String')"
    [ "$(q "SELECT count(), uniqExact(raw), uniqExact(_topic, _partition, _offset) FROM stg.orders_raw FORMAT TSV")" = "$(printf '18\t18\t1')" ]
    tx n1 1 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: 1 Kafka coordinate"*" of load n1 "*"different messages"*"topic , partition 0, offset 0"* ]]
    [[ "$stderr_text" == *"(ods-ddl stage)"* ]]
    [ "$(q "SELECT * FROM ods.order_lease_v")" = "" ]
    [ "$(fingerprint | grep -v '^stg')" = "$(grep -v '^stg' <<<"$before")" ]
    # the same file through ods-ddl stage, under a new load id: 18 messages, the figures exact
    run_split chlocal --path db --param_load_id=n2 -q "$(ods_ddl stage --source backfill --file "$FIX/case4-nocoords.jsonl")"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    tx_ok n2 1 12
    run q "SELECT received, redelivered, accepted, stored, unchanged, stale, rejected, not_an_object, keyset_mismatch, field_invalid FROM ods.order_loads WHERE _load_id = 'n2' FORMAT CSV"
    echo "$output"
    [ "$output" = "18,0,14,12,2,0,4,2,1,1" ]
    [ "$(q "SELECT count() FROM ods.order_v")" = 4 ]
    [ "$(q "SELECT count() FROM ods.order_snapshot_errors")" = 4 ]

    # a re-created topic: offset 1 of topic orders is line 1 in one staging, line 4 in another
    head -n 3 "$FIX/case4-nocoords.jsonl" > first3.jsonl
    sed -n 4p "$FIX/case4-nocoords.jsonl" > line4.jsonl
    stage r1 "$PWD/first3.jsonl" orders
    stage r1 "$PWD/line4.jsonl" orders
    before=$(fingerprint)
    tx r1 1 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: 1 Kafka coordinate"*" of load r1 "*"different messages"*"topic orders, partition 0, offset 1"* ]]
    [ "$(fingerprint)" = "$before" ]
    no_lease
    # the same bytes delivered twice at the same coordinates: one message, redelivered
    head -n 1 "$FIX/case4-nocoords.jsonl" > line1.jsonl
    stage d1 "$FIX/case4-nocoords.jsonl" replay
    stage d1 "$PWD/line1.jsonl" replay
    tx_ok d1 1 12
    run q "SELECT received, redelivered, accepted, stored, unchanged, stale, rejected FROM ods.order_loads WHERE _load_id = 'd1' FORMAT CSV"
    echo "$output"
    # order_v shows n2's versions already: d1 stores none; its 4 latest versions and a resend of
    # one are unchanged, the 8 older versions and the other resend stale
    [ "$output" = "19,1,14,0,5,9,4" ]
    [ "$(q "SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'd1'")" = 4 ]
    # no wrapped figure anywhere in the ledger
    [ "$(q "SELECT count(), countIf(arrayExists(x -> x >= 4294967296, [received, redelivered, accepted, stored, unchanged, stale, rejected, not_an_object, keyset_mismatch, field_invalid])) FROM ods.order_loads FORMAT CSV")" = "2,0" ]
}

@test "issue 24 case 5: an empty, a mistyped and a never staged load id fail at statement 1 (no ledger row, no lease); rows staged under a committed id fail its next run" {
    fresh
    stage L1 "$FIX/case2-L1.jsonl" orders
    stage L2 "$FIX/case4-nocoords.jsonl" orders
    before=$(fingerprint)
    tx '' 1 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: '' is no load id: "*"Pass the id the batch was staged under (--param_load_id=ID); nothing was done"* ]]
    [ "$(fingerprint)" = "$before" ]
    tx 'L1 ' 1 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: 'L1 ' is no load id: "* ]]
    [ "$(fingerprint)" = "$before" ]
    tx L9 1 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: no rows are staged under load L9: a mistyped load id, or a batch not staged yet. Staged and not committed: L1, L2. Nothing was done"* ]]
    [ "$(fingerprint)" = "$before" ]
    [ "$(q 'SELECT count() FROM ods.order_loads')" = 0 ]
    no_lease

    # L1 commits; two rows staged under it afterwards: its next run fails, naming them
    tx_ok L1 1 12
    stage L1 "$FIX/case2-late.jsonl" orders-late
    before=$(fingerprint)
    tx L1 1 12
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: 2 rows were staged under load L1 after it was frozen ("*"Move them to a new load id (ods-ddl move-late)"* ]]
    [ "$(fingerprint)" = "$before" ]
    no_lease
    tx L9 1 12
    [[ "$stderr_text" == *"Staged and not committed: L2. "* ]]
}

@test "issue 24 case 6: created_at 1900-01-01 and 2299-12-31T23:59:59.999 land in partitions 19000101 and 22991231; DROP PARTITION 19000101 removes exactly that order" {
    og --orders 20 --days 2 --seed 6 --day 1 > e2.jsonl
    og --orders 20 --days 2 --seed 6 --day 2 > e3.jsonl
    fresh
    stage E1 "$FIX/case6-edges.jsonl" orders
    stage E2 "$PWD/e2.jsonl" orders
    stage E3 "$PWD/e3.jsonl" orders
    # E2's transition folds E1 into _rep, E3's housekeeping leaves E1's versions in _rep only
    for id in E1 E2 E3; do
        tx_ok "$id" 1 12
    done
    run q "SELECT order_id, _partition_id, toYYYYMMDD(created_at) FROM ods.order_snapshot_rep WHERE _load_id = 'E1' ORDER BY order_id FORMAT TSV"
    echo "$output"
    [ "$output" = "$(printf 'EDGE-1900\t19000101\t19000101\nEDGE-2026\t20260301\t20260301\nEDGE-2299\t22991231\t22991231')" ]
    [ "$(q "SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'E1'")" = 0 ]
    q "SELECT order_id FROM ods.order_v ORDER BY order_id" > before.txt
    q "ALTER TABLE ods.order_snapshot_rep DROP PARTITION 19000101"
    q "SELECT order_id FROM ods.order_v ORDER BY order_id" > after.txt
    [ "$(wc -l < before.txt)" -gt 10 ]
    [ "$(diff before.txt after.txt | grep '^[<>]')" = "< EDGE-1900" ]
}

# kill_inside LOAD K: statement K of LOAD's transition alone in a chlocal process killed (kill -9)
# 5 ms into it. A marker query before it creates ./passed, waits 0.1 s and writes it as it ends:
# from then on the process is in statement K, which the state then shows unfinished. (The engine's
# log cannot tell: chlocal hands on its output when the process ends.) The last waits are busy
# loops on builtins and the process runs at the lowest priority; and each table snapshot statement
# K takes sleeps 200 ms (the engine's merge_tree_storage_snapshot_sleep_ms), so the statement
# outlasts the kill however busy the machine: without that, a seal of 3 000 messages ended
# before a kill delayed by a busy machine (transition-guards.bats beside schedules.bats,
# 2026-12-07: "statement 5 killed: ... 1 seal").
# Sets killed_status; fails unless the marker was written.
kill_inside() {
    local pid t
    rm -f passed
    nice -n 19 "$BIN/chlocal" --path db "--param_load_id=$1" -q "SELECT sleep(0.1) INTO OUTFILE 'passed' FORMAT TSV;
SET merge_tree_storage_snapshot_sleep_ms = 200;
$(steps "$2" "$2")" > kill.out 2> kill.err &
    pid=$!
    until [ -e passed ] || ! kill -0 "$pid" 2> /dev/null; do sleep 0.01; done
    until [ -s passed ] || ! kill -0 "$pid" 2> /dev/null; do :; done
    t=${EPOCHREALTIME/./}
    while (( ${EPOCHREALTIME/./} - t < 5000 )); do :; done
    kill -9 "$pid" || true
    killed_status=0
    wait "$pid" || killed_status=$?
    [ -s passed ]
}

@test "SIGKILL inside statements 4, 5, 9 and 10, each time the lease cleared and the load rerun: the tables converge to a clean run's" {
    orders=5000
    sanitized && orders=3000
    for d in 1 2 3; do og --orders "$orders" --days 3 --dirty 0.05 --seed 9 --day "$d" > "d$d.jsonl"; done
    head -n $((orders / 10)) d1.jsonl > p.jsonl
    head -n $((orders / 10)) d3.jsonl > n.jsonl
    # P committed, L (a day of the world) and N staged; the clean run of P, L, N beside them
    fresh
    q "$(stage_sql P "$PWD/p.jsonl" orders) $(stage_sql L "$PWD/d2.jsonl" orders) $(stage_sql N "$PWD/n.jsonl" orders)"
    tx_ok P 1 12
    clean_run P L N
    messages=$(q "SELECT uniqExact(_topic, _partition, _offset) FROM stg.orders_raw WHERE _load_id = 'L'")
    stored=$(q "SELECT stored FROM o2.order_loads WHERE _load_id = 'L'")
    [ "$messages" -gt 1000 ]
    [ "$stored" -gt 1000 ]
    # one history: L is killed inside statement 4; its rerun inside 5; the next one inside 9, then
    # inside 10; each time after the lease is cleared, as the next run's message says
    for k in 4 5 9 10; do
        tx_ok L 1 $((k - 1))
        kill_inside L "$k"
        [ "$killed_status" -eq 137 ] || { echo "statement $k: exit $killed_status, not killed"; cat kill.err; return 1; }
        # the state shows the kill landed inside the statement: its writes not (all) done
        run q "SELECT (SELECT count() FROM ods.order_manifest WHERE _load_id = 'L'), (SELECT count() FROM ods.order_frozen WHERE _load_id = 'L'),
            (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'L'), (SELECT count() FROM ods.order_loads WHERE _load_id = 'L') FORMAT TSV"
        echo "statement $k killed: manifest, seal, hot rows, ledger rows of L: $output"
        read -r manifest seal hot ledger <<<"$output"
        [ "$ledger" -eq 0 ]
        case $k in
            4)  [ "$manifest" -lt "$messages" ]
                [ "$seal" -eq 0 ] ;;
            5)  [ "$manifest" -eq "$messages" ]
                [ "$seal" -eq 0 ] ;;
            9)  [ "$seal" -eq 1 ]
                [ "$hot" -lt "$stored" ] ;;
            10) [ "$hot" -eq "$stored" ] ;;
        esac
        # the dead run holds the lease: another run is refused, naming it, until it is cleared
        tx N 1 12
        [ "$status" -eq 1 ]
        [[ "$stderr_text" == *"transition 1/12: the lease is held by load L since "* ]]
        q "DROP TABLE IF EXISTS ods.order_lease"
    done
    tx_ok L 1 12
    tx_ok N 1 12
    same_as_clean
}

@test "ods-ddl abandon: a load frozen and failed is abandoned, the next load runs; the abandoned one, rerun later from its staging, commits as a clean run would" {
    four_days
    # A (day 2) dies after its gate: frozen, versions in the hot table, the lease held (cleared)
    tx_ok A 1 9
    q "DROP TABLE IF EXISTS ods.order_lease"
    tx B 1 12
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"transition 1/12: load A is frozen and not committed"* ]]
    staged=$(q "SELECT count() FROM stg.orders_raw WHERE _load_id = 'A'")
    run q "SELECT (SELECT count() FROM ods.order_manifest WHERE _load_id = 'A') > 0, (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'A') > 0,
        (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'A') > 0 FORMAT TSV"
    [ "$output" = "$(printf '1\t1\t1')" ]
    # a committed load is never abandoned (refused at statement 1, before the lease is taken)
    run_split chlocal --path db --param_load_id=P -q "$(ods_ddl abandon)"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"abandon 1/11: load P is committed"* ]]
    no_lease
    run_split chlocal --path db --param_load_id=A -q "$(ods_ddl abandon)"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    no_lease
    run q "SELECT (SELECT count() FROM ods.order_manifest WHERE _load_id = 'A'), (SELECT count() FROM ods.order_frozen WHERE _load_id = 'A'),
        (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'A'), (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'A'),
        (SELECT count() FROM ods.order_snapshot_stale WHERE _load_id = 'A'), (SELECT count() FROM ods.order_fates WHERE _load_id = 'A'),
        (SELECT count() FROM stg.orders_raw WHERE _load_id = 'A') FORMAT TSV"
    [ "$output" = "$(printf '0\t0\t0\t0\t0\t0\t%s' "$staged")" ]
    tx_ok B 1 12
    tx_ok A 1 12
    clean_run P B A
    same_as_clean
}

# take_back LOAD [K M]: statements K..M (default all) of take-back for LOAD in one process on ./db
take_back() {
    ods_ddl take-back | awk -v a="${2:-1}" -v b="${3:-99}" '/^-- [0-9]+\. /{ n = $2 + 0 } n >= a && n <= b' >tb.sql
    run_split chlocal --path db "--param_load_id=$1" --queries-file tb.sql
}
# visible: what readers see and the records of every load (order_v, the ledger but its clock,
# errors, stale records, manifests, seals but their clock, fates); the hot/_rep split is left out
visible() {
    q "SELECT * FROM ods.order_v ORDER BY ALL FORMAT TSV;
SELECT * EXCEPT committed_at FROM ods.order_loads ORDER BY ALL FORMAT TSV;
SELECT * FROM ods.order_snapshot_errors ORDER BY ALL FORMAT TSV;
SELECT * FROM ods.order_snapshot_stale ORDER BY ALL FORMAT TSV;
SELECT * FROM ods.order_manifest ORDER BY ALL FORMAT TSV;
SELECT * EXCEPT frozen_at FROM ods.order_frozen ORDER BY ALL FORMAT TSV;
SELECT * FROM ods.order_fates ORDER BY ALL FORMAT TSV"
}

@test "take-back: the latest committed load goes while only in the hot table, order_v as before it exactly (also after a cut-short take-back); refused, naming why, when not the latest, folded, or another load is open" {
    fresh
    for d in 1 2 3; do og --orders 80 --days 3 --dirty 0.1 --seed 21 --day "$d" >"g$d.jsonl"; done
    stage G1 "$PWD/g1.jsonl" src1
    stage G2 "$PWD/g2.jsonl" src2
    stage G3 "$PWD/g3.jsonl" src3
    tx_ok G1 1 12
    visible >s1.tsv
    tx_ok G2 1 12
    visible >s2.tsv
    # G2 changed what order_v shows, rejected some, stored versions
    run cmp -s s1.tsv s2.tsv
    [ "$status" -ne 0 ]
    [ "$(q "SELECT stored > 0 AND rejected > 0 FROM ods.order_loads WHERE _load_id = 'G2'")" = 1 ]

    take_back G1
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"take-back 1/12: load G1 is not the latest committed load (G2, delta 2 is): only the latest can be taken back"* ]]
    take_back NOPE
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"take-back 1/12: load NOPE is not committed: there is nothing to take back"* ]]
    [ "$(visible | cmp - s2.tsv && echo same)" = same ]

    # cut short after its ledger row went: order_v is already as before G2; the rerun completes it
    take_back G2 1 4
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(q "SELECT * FROM ods.order_v ORDER BY ALL FORMAT TSV" | md5sum)" = "$(sed -n '1,/^1\tG1\t/p' s1.tsv | head -n -1 | md5sum)" ]
    q "DROP TABLE ods.order_lease"
    take_back G2
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    visible >tb.tsv
    diff s1.tsv tb.tsv
    [ "$(q "SELECT count() FROM stg.orders_raw WHERE _load_id = 'G2'")" -eq "$(grep -c . g2.jsonl)" ]
    [ "$(q "SELECT count() FROM ods.order_lease_v")" -eq 0 ]
    # its staged rows stayed: it runs again as it ran first
    tx_ok G2 1 12
    visible | diff s2.tsv -

    # another load open (G3 frozen, not committed): refused
    tx_ok G3 1 5
    q "DROP TABLE ods.order_lease"
    take_back G2
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"take-back 1/12: load G3 is frozen and not committed: its run compared against this load's versions"* ]]
    # G3 committed (its run folded G2): G2 is neither the latest nor, once G3 is taken back, in the hot table only
    tx_ok G3 1 12
    take_back G2
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"is not the latest committed load (G3, delta 3 is)"* ]]
    take_back G3
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(q "SELECT * FROM ods.order_v ORDER BY ALL FORMAT TSV" | md5sum)" = "$(sed -n '1,/^1\tG1\t/p' s2.tsv | head -n -1 | md5sum)" ]
    take_back G2
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"take-back 1/12: the versions of load G2 are already folded into ods.order_snapshot_rep (by the transition of a later load): it can no longer be taken back exactly"* ]]
    [ "$(q "SELECT groupArray(_load_id) FROM (SELECT _load_id FROM ods.order_loads ORDER BY delta)")" = "['G1','G2']" ]
}

# rebase K M: statements K..M (default all) of rebaseline, run as RB1, in one process on ./db
rebase() {
    ods_ddl rebaseline | awk -v a="${1:-1}" -v b="${2:-99}" '/^-- [0-9]+\. /{ n = $2 + 0 } n >= a && n <= b' >rb.sql
    run_split chlocal --path db --param_load_id=RB1 --queries-file rb.sql
}

@test "the hashdiff is frozen: versions and ledger record the profile; a transition refuses an ODS of another profile, writing nothing; rebaseline recomputes in place what a clean run stores, and the next load stores only changes" {
    fresh
    profile=$(ods_ddl schema | sed -n "s/^    _hashdiff_profile LowCardinality(String) DEFAULT '\(.*\)'\$/\1/p" | sort -u)
    [[ $profile == order-snapshot-wire-v1/strict/xxh3_128/[0-9a-f]* ]]
    [ "$(wc -l <<<"$profile")" -eq 1 ]
    for d in 1 2; do og --orders 80 --days 2 --dirty 0.05 --seed 31 --day "$d" >"g$d.jsonl"; done
    stage G1 "$PWD/g1.jsonl" src1
    stage G2 "$PWD/g2.jsonl" src2
    tx_ok G1 1 12
    [ "$(q "SELECT wire_contract, hashdiff_profile FROM ods.order_loads" | tr '\t' ' ')" = "order-snapshot-wire-v1 $profile" ]
    [ "$(q "SELECT groupUniqArray(_hashdiff_profile) FROM ods.order_snapshot_hot")" = "['$profile']" ]
    # the reference: G1 and G2 run clean by this version
    clean_run G1 G2
    # an ODS hashed with another profile (as a release with another canonical text left it)
    q "ALTER TABLE ods.order_snapshot_rep MODIFY COLUMN _hashdiff_profile LowCardinality(String) DEFAULT 'old/1';
       ALTER TABLE ods.order_snapshot_hot MODIFY COLUMN _hashdiff_profile LowCardinality(String) DEFAULT 'old/1';
       ALTER TABLE ods.order_snapshot_rep UPDATE _hashdiff = cityHash64(order_id), _hashdiff_profile = 'old/1' WHERE 1 SETTINGS mutations_sync = 2;
       ALTER TABLE ods.order_snapshot_hot UPDATE _hashdiff = cityHash64(order_id), _hashdiff_profile = 'old/1' WHERE 1 SETTINGS mutations_sync = 2"
    before=$(fingerprint)
    tx G2 1 12
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 1/12: the ODS's versions are hashed with hashdiff profile 'old/1', this transition hashes with $profile: a release changed what _hashdiff hashes"*"(ods-ddl rebaseline, docs/operations.md); nothing was done"* ]]
    [ "$(fingerprint)" = "$before" ]
    # a schema that records no profile at all (one older than the column): migrate first
    q "ALTER TABLE ods.order_snapshot_rep DROP COLUMN _hashdiff_profile"
    tx G2 1 12
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 1/12: the ODS does not record what its versions were hashed with"*"ods-ddl migrate first; nothing was done"* ]]
    q "ALTER TABLE ods.order_snapshot_rep ADD COLUMN _hashdiff_profile LowCardinality(String) DEFAULT 'old/1' AFTER _load_ts"
    [ "$(fingerprint)" = "$before" ]
    # a rebaseline cut short after its first table: every transition still refused
    rebase 1 4
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    q "DROP TABLE ods.order_lease"
    tx G2 1 12
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 1/12: the ODS's versions are hashed with hashdiff profile 'old/1'"* ]]
    # run again whole: every version hashed as this version's clean run hashed it
    rebase
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(q "SELECT count() FROM ods.order_snapshot_rep WHERE _hashdiff_profile != '$profile'") $(q "SELECT count() FROM ods.order_snapshot_hot WHERE _hashdiff_profile != '$profile'")" = "0 0" ]
    [ "$(q "SELECT count() FROM (SELECT order_id, updated_at, _hashdiff, _load_id FROM ods.order_v
        EXCEPT SELECT order_id, updated_at, _hashdiff, _load_id FROM o2.order_snapshot_rep FINAL WHERE _load_id = 'G1')")" -eq 0 ]
    [ "$(q "SELECT count() FROM ods.order_v")" -gt 20 ]
    # the next load stores what the clean run stored: only changes
    tx_ok G2 1 12
    same_as_clean
    [ "$(q "SELECT unchanged FROM ods.order_loads WHERE _load_id = 'G2'")" -gt 0 ]
}
