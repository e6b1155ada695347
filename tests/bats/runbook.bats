#!/usr/bin/env bats
# runbook: docs/operations.md followed as a new user would, on the embedded engine: an upgrade
# from the previous release's schema (schema, then migrate), a week of nightly loads (stage a
# file, ods-load), status and check, a run that died holding the lease (its remedy), taking back
# the last load and loading it again; every step checked against what the runbook says.
load helpers

FIX=$ROOT/tests/fixtures/migrate

ods_ddl() { "$BIN/ods-ddl" "$@"; }
q() { chlocal --path db -q "$1"; }
# night D: the day's snapshot staged from a file (source orders-dD) and loaded by ods-load
night() {
    "$BIN/orders-gen" --orders 120 --days 8 --day "$1" --dirty 0.05 --seed 8 >"day$1.jsonl"
    ods_ddl stage --source "orders-d$1" --file "$PWD/day$1.jsonl" >"stage$1.sql"
    chlocal --path db --param_load_id="2026-03-0$1.orders" --queries-file "stage$1.sql"
    run_split "$BIN/ods-load" --path db --load-id "2026-03-0$1.orders"
}
order_v() { q "SELECT * FROM ods.order_v ORDER BY ALL FORMAT TSV"; }

@test "runbook: upgrade from the previous release, a week of loads, status and check, a dead run's lease, take back the last load and load it again" {
    # Upgrades: the previous release's schema, then schema, migrate, run what it printed, migrate again
    chlocal --path db --queries-file "$FIX/schema-5707bdc.sql"
    ods_ddl schema >schema.sql
    chlocal --path db --queries-file schema.sql
    ods_ddl migrate >migrate.sql
    # refused: the manifest's sorting key (the gate's pieces); rebuilt with the SQL block of
    # Upgrades as written (its RENAME, ods-ddl schema, its INSERT and DROP), the counts checked
    run_split chlocal --path db --queries-file migrate.sql
    [ "$status" -ne 0 ]
    [[ $stderr_text == *"ods.order_manifest: its sorting key is _load_id, _topic, _partition, _offset, this version's _load_id, _bucket, _topic, _partition, _offset"* ]]
    awk '/^\*\*The manifest.s sorting key/ { m = 1 } m && /^```sql$/ { b = 1; next } b && /^```$/ { exit } b' \
        "$ROOT/docs/operations.md" >rebuild.sql
    [ "$(grep -c '^RENAME TABLE ods.order_manifest TO ods.order_manifest_old;' rebuild.sql)" -eq 1 ]
    sed -n '1p' rebuild.sql | sed 's/ *--.*$//' >rename.sql
    sed '1d' rebuild.sql | sed 's/ *--.*$//' | grep -v '^$' >copy.sql
    [ "$(grep -c ';$' copy.sql)" -eq 2 ]
    chlocal --path db --queries-file rename.sql
    chlocal --path db --queries-file schema.sql
    chlocal --path db --queries-file copy.sql
    [ "$(q "SELECT count() FROM system.tables WHERE database = 'ods' AND name LIKE 'order_manifest%'")" -eq 1 ]
    chlocal --path db --queries-file migrate.sql >statements.sql
    # seven ADD COLUMNs and order_v's query replaced (docs/operations.md)
    [ "$(wc -l <statements.sql)" -eq 8 ]
    [ "$(grep -c "^CREATE OR REPLACE VIEW ods.order_v AS " statements.sql)" -eq 1 ]
    chlocal --path db --queries-file statements.sql
    [ -z "$(chlocal --path db --queries-file migrate.sql)" ]

    # the nightly flow, seven nights: exit 0, the ledger row on stdout, deltas in order
    for d in 1 2 3 4 5 6 7; do
        night "$d"
        [ "$status" -eq 0 ] || { echo "night $d: $stderr_text"; return 1; }
        [ "$(sed -n 2p <<<"$output" | cut -f1,2)" = "$d"$'\t'"2026-03-0$d.orders" ]
    done
    ods_ddl status >status.sql
    # (the dirty generator rejects up to 1 in 12: the threshold is the operator's choice)
    ods_ddl check --max-reject-pct 25 >check.sql
    [ "$(chlocal --path db --queries-file status.sql --format TSV | awk -F'\t' '{ print $NF }' | sort | uniq -c | awk '{ print $1, $2 }')" = "7 committed" ]
    run_split chlocal --path db --queries-file check.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    week=$(order_v)

    # a run of night 8 died holding the lease (killed after its freeze): the next run says so
    "$BIN/orders-gen" --orders 120 --days 8 --day 8 --dirty 0.05 --seed 8 >day8.jsonl
    ods_ddl stage --source orders-d8 --file "$PWD/day8.jsonl" >stage8.sql
    chlocal --path db --param_load_id=2026-03-08.orders --queries-file stage8.sql
    ods_ddl transition | awk '/^-- [0-9]+\. / { n = $2 + 0 } n <= 5' >died.sql
    chlocal --path db --param_load_id=2026-03-08.orders --queries-file died.sql
    [ "$(chlocal --path db --queries-file status.sql --format TSV | awk -F'\t' '$1 == "2026-03-08.orders" { print $NF }')" = running ]
    run_split "$BIN/ods-load" --path db --load-id 2026-03-08.orders
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"stopped at statement 1: transition 1/12: the lease is held by load 2026-03-08.orders since "*"When none is running, clear it with: DROP TABLE IF EXISTS ods.order_lease; then rerun"* ]]
    # the remedy, as the runbook gives it, then the same command
    q "DROP TABLE IF EXISTS ods.order_lease"
    run_split "$BIN/ods-load" --path db --load-id 2026-03-08.orders
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(sed -n 2p <<<"$output" | cut -f1)" = 8 ]
    eight=$(order_v)
    [ "$eight" != "$week" ]

    # take back the last load: order_v as after the week; its staged rows stay, it loads again
    ods_ddl take-back >take-back.sql
    chlocal --path db --param_load_id=2026-03-08.orders --queries-file take-back.sql
    [ "$(order_v)" = "$week" ]
    [ "$(chlocal --path db --queries-file status.sql --format TSV | awk -F'\t' '$1 == "2026-03-08.orders" { print $NF }')" = "staged, not run yet" ]
    run_split "$BIN/ods-load" --path db --load-id 2026-03-08.orders
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(order_v)" = "$eight" ]
    run_split chlocal --path db --queries-file check.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
}
