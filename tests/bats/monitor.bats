#!/usr/bin/env bats
# monitor: ods-ddl status (one row per load id, its state and a verdict) and ods-ddl check (fails
# naming every load that needs a person, silent otherwise) on the embedded engine, over loads in
# every state: committed, staged, failed, running, late rows, long open, a stale lease, many
# rejected, a ledger that does not add up.
load helpers

ods_ddl() { "$BIN/ods-ddl" "$@"; }

# stage_gen LOAD SEED DIRTY [LOAD_TS]: orders-gen's messages under LOAD (offsets from the seed, so
# loads never share coordinates), at LOAD_TS (default now)
stage_gen() {
    "$BIN/orders-gen" --orders 40 --days 1 --dirty "$3" --seed "$2" >"gen-$1.jsonl"
    chlocal --path db --param_load_id="$1" -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        SELECT line, 'src', 0, $2 * 1000 + rowNumberInAllBlocks(), {load_id:String}, ${4:-now64(3, 'UTC')}
        FROM file('$PWD/gen-$1.jsonl', LineAsString, 'line String') WHERE line != ''"
}
status() { chlocal --path db --queries-file status.sql --format TSV; }
# verdict LOAD: the verdict column of LOAD's row
verdict() { status | awk -F'\t' -v id="$1" '$1 == id { print $NF }'; }
col() { chlocal --path db --queries-file status.sql --format TSVWithNames | awk -F'\t' -v id="$1" -v c="$2" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } $1 == id { print $k }'; }
check() { run_split chlocal --path db --queries-file check.sql; }

@test "ods-ddl status and check: every state of a load, its verdict, and the check fails exactly on those that need a person" {
    ods_ddl schema >schema.sql
    chlocal --path db --queries-file schema.sql
    ods_ddl status >status.sql
    ods_ddl check >check.sql
    ods_ddl transition >tr.sql
    # nothing yet: no row, the check passes
    [ -z "$(status)" ]
    check
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [ -z "$stderr_text" ]

    # two committed loads, a clean one and one with a rejection under the 5 % limit (1 of 41)
    stage_gen C1 1 0
    stage_gen C2 2 0
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('not json', 'src', 0, 2999, 'C2', now64(3, 'UTC'))"
    "$BIN/ods-load" --path db --load-id C1 >/dev/null 2>&1
    "$BIN/ods-load" --path db --load-id C2 >/dev/null 2>&1
    [ "$(verdict C1)" = committed ]
    [ "$(verdict C2)" = committed ]
    [ "$(col C1 delta)" = 1 ]
    [ "$(col C2 delta)" = 2 ]
    [ "$(col C1 staged)" = 40 ]
    [ "$(col C1 received)" = 40 ]
    [ "$(col C1 ledger_broken)" = 0 ]
    [ "$(col C1 late_rows)" = 0 ]
    check
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }

    # staged, not run yet
    stage_gen S1 3 0
    [ "$(verdict S1)" = "staged, not run yet" ]
    # failed: frozen, versions in the hot table, no commit (statements 1-9, the lease cleared)
    stage_gen F1 4 0
    chlocal --path db --param_load_id=F1 --queries-file <(awk '/^-- [0-9]+\. / { n = $2 + 0 } n <= 9' tr.sql)
    chlocal --path db -q "DROP TABLE ods.order_lease"
    [ "$(verdict F1)" = "failed: rerun it (ods-load), or abandon it (ods-ddl abandon)" ]
    [ "$(col F1 uncommitted_hot_rows)" -gt 0 ]
    [ "$(col F1 committed)" = 0 ]
    [ -n "$(col F1 frozen_at)" ]
    # running: the lease taken (statement 2; statement 1 would refuse while F1 is open)
    chlocal --path db --param_load_id=S1 --queries-file <(awk '/^-- [0-9]+\. / { n = $2 + 0 } n == 2' tr.sql)
    [ "$(verdict S1)" = running ]
    [ -n "$(col S1 running_since)" ]
    # none of these needs a person yet
    check
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }

    # late rows under a committed load
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('late', 'src', 0, 999999, 'C1', now64(3, 'UTC'))"
    [ "$(col C1 late_rows)" = 1 ]
    [ "$(verdict C1)" = "1 rows staged after the freeze: ods-ddl move-late to a new load id, then run both" ]
    check
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods check: 1 problem(s) need a person: C1: 1 rows staged after the freeze"* ]]
    chlocal --path db -q "ALTER TABLE stg.orders_raw DELETE WHERE _raw_hash = cityHash64('late') SETTINGS mutations_sync = 2"

    # a load staged 30 hours ago, never committed; a lease held 30 hours
    stage_gen O1 5 0 "now64(3, 'UTC') - toIntervalHour(30)"
    chlocal --path db -q "DROP TABLE ods.order_lease;
        CREATE TABLE ods.order_lease ENGINE = Log AS SELECT 'S1' AS _load_id, now64(3, 'UTC') - toIntervalHour(30) AS since"
    check
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods check: 2 problem(s) need a person: "* ]]
    [[ $stderr_text == *"O1: not committed 24 hours after its staging: run it (ods-load), or abandon it (ods-ddl abandon)"* ]]
    [[ $stderr_text == *"S1: running for more than 24 hours: a run that died? clear the lease once none runs, then rerun"* ]]
    # a longer limit passes them
    ods_ddl check --max-open-hours 48 >check48.sql
    run_split chlocal --path db --queries-file check48.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    # status names no threshold: O1 is just staged
    [ "$(verdict O1)" = "staged, not run yet" ]
    chlocal --path db -q "DROP TABLE ods.order_lease; ALTER TABLE stg.orders_raw DELETE WHERE _load_id IN ('O1', 'S1') SETTINGS mutations_sync = 2"
    chlocal --path db -q "ALTER TABLE ods.order_snapshot_hot DELETE WHERE _load_id = 'F1' SETTINGS mutations_sync = 2"

    # many rejected: C2's one rejection is over a 0 % limit, not over 5 %
    [ "$(col C2 rejected)" = 1 ]
    ods_ddl check --max-reject-pct 0 >check0.sql
    run_split chlocal --path db --queries-file check0.sql
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"C2: rejected 1 of 41 messages (more than 0 %): look at ods.order_snapshot_errors"* ]]
    [[ $stderr_text != *"C1:"* ]]

    # a ledger row that does not add up
    chlocal --path db -q "ALTER TABLE ods.order_loads UPDATE stored = stored + 1 WHERE _load_id = 'C1' SETTINGS mutations_sync = 2"
    [ "$(col C1 ledger_broken)" = 1 ]
    check
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"C1: the ledger row does not add up: report it, keep the load's tables"* ]]
    # the ODS hashed with another profile (a release changed the hashdiff): named as the ODS's
    profile=$(ods_ddl schema | sed -n "s/^    _hashdiff_profile LowCardinality(String) DEFAULT '\(.*\)'\$/\1/p" | sort -u)
    chlocal --path db -q "ALTER TABLE ods.order_snapshot_rep MODIFY COLUMN _hashdiff_profile LowCardinality(String) DEFAULT 'old/1'"
    check
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"the ODS: its versions are hashed with 'old/1', this version hashes with $profile: ods-ddl rebaseline before the next load"* ]]
    chlocal --path db -q "ALTER TABLE ods.order_snapshot_rep MODIFY COLUMN _hashdiff_profile LowCardinality(String) DEFAULT '$profile'"
    # a committed load still holding the lease (a run died between its commit and statement 12)
    chlocal --path db -q "ALTER TABLE ods.order_loads UPDATE stored = stored - 1 WHERE _load_id = 'C1' SETTINGS mutations_sync = 2;
        CREATE TABLE ods.order_lease ENGINE = Log AS SELECT 'C2' AS _load_id, now64(3, 'UTC') AS since"
    [ "$(verdict C2)" = "committed, but still holds the lease: a run died after its commit; clear the lease once none runs" ]
    check
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods check: 1 problem(s) need a person: C2: committed, but still holds the lease"* ]]
}

@test "ods-ddl status and check: usage (thresholds for check only, in range), and --cluster reads the ledger and hot rows through the cluster" {
    run_split ods_ddl status --max-open-hours 3
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "ods-ddl: --max-open-hours and --max-reject-pct apply to check only (try --help)" ]
    for bad in 0 8761 -1 1.5 x ''; do
        run_split ods_ddl check --max-open-hours "$bad"
        [ "$status" -eq 2 ]
        [[ $stderr_text == "ods-ddl: bad value for --max-open-hours: "* ]]
    done
    for bad in 101 -1 5% ''; do
        run_split ods_ddl check --max-reject-pct "$bad"
        [ "$status" -eq 2 ]
        [[ $stderr_text == "ods-ddl: bad value for --max-reject-pct: "* ]]
    done
    run_split ods_ddl check --max-open-hours 8760 --max-reject-pct 100
    [ "$status" -eq 0 ]
    [[ $output == *"toIntervalHour(8760)"*"l.received * 100"* ]]
    run_split ods_ddl status --cluster prod
    [ "$status" -eq 0 ]
    [[ $output == *"ods.order_loads_dist"*"ods.order_snapshot_hot_dist WHERE _load_id GLOBAL NOT IN (SELECT _load_id FROM ods.order_loads_dist)"* ]]
    [[ $output != *"ods.order_loads "* ]]
}
