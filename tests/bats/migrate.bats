#!/usr/bin/env bats
# migrate: ods-ddl migrate on the embedded engine, from the previous release's schema (which
# lacks staging's _moved and the hashdiff profile columns), from a schema older than issue 24 (refused, naming why), from a view
# that differs; the statements it prints bring the schema to this version's, and a second run
# prints nothing.
load helpers

teardown_file() { keeper_stop; }

FIX=$ROOT/tests/fixtures/migrate

ods_ddl() { "$BIN/ods-ddl" "$@"; }
# the live schema as the engine describes it (the scratch databases left out)
described() {
    chlocal --path db -q "SELECT database, table, name, type, default_kind, default_expression FROM system.columns
        WHERE database IN ('stg', 'ods') ORDER BY ALL FORMAT TSV;
        SELECT database, name, engine, partition_key, sorting_key, as_select FROM system.tables
        WHERE database IN ('stg', 'ods') ORDER BY ALL FORMAT TSV"
}
migrate() { run_split chlocal --path db --queries-file migrate.sql; }
# rebuild_manifest [CHLOCAL OPTION…]: docs/operations.md's rebuild of a manifest from before the
# gate's pieces (no _bucket): renamed, created anew by ods-ddl schema, its rows copied with their
# bucket, counted, the old one dropped. The live manifest holds a load first, so the copy is seen.
rebuild_manifest() {
    local before
    chlocal "$@" --path db -q "INSERT INTO ods.order_manifest (_load_id, _topic, _partition, _offset, _load_ts, _raw_hash,
        error_class, order_id) VALUES ('OLD', 'src', 0, 1, now64(3, 'UTC'), 7, '', 'ORD-7'), ('OLD', 'src', 0, 2, now64(3, 'UTC'), 8, 'not_json', '')"
    before=$(chlocal "$@" --path db -q "SELECT count(), sum(cityHash64(*)) FROM ods.order_manifest")
    chlocal "$@" --path db -q "RENAME TABLE ods.order_manifest TO ods.order_manifest_old"
    "$BIN/ods-ddl" schema "${SCHEMA_OPTS[@]}" >schema-again.sql
    chlocal "$@" --path db --queries-file schema-again.sql
    chlocal "$@" --path db -q "INSERT INTO ods.order_manifest SELECT *, if(error_class = '', cityHash64(order_id) % 256, 0)
        FROM ods.order_manifest_old"
    [ "$(chlocal "$@" --path db -q "SELECT count(), sum(cityHash64(* EXCEPT _bucket)) FROM ods.order_manifest")" = "$before" ]
    [ "$(chlocal "$@" --path db -q "SELECT groupArray(_bucket) FROM (SELECT _bucket FROM ods.order_manifest ORDER BY _offset)")" = \
      "[$(chlocal -q "SELECT cityHash64('ORD-7') % 256"),0]" ]
    chlocal "$@" --path db -q "DROP TABLE ods.order_manifest_old"
}
SCHEMA_OPTS=()

@test "ods-ddl migrate: from the previous release's schema, an ADD COLUMN for each column it lacks (the seal's fingerprint of staging, staging's _moved, the hashdiff profile of versions and ledger), which the transition asks for before it writes, and order_v's query replaced, then nothing; the data stays and the tools of this version run on it" {
    chlocal --path db --queries-file "$FIX/schema-5707bdc.sql"
    "$BIN/orders-gen" --orders 20 --seed 3 >l1.jsonl
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        SELECT line, 'src', 0, rowNumberInAllBlocks(), 'L1', now64(3, 'UTC') FROM file('$PWD/l1.jsonl', LineAsString, 'line String')"
    staged=$(chlocal --path db -q "SELECT count(), sum(cityHash64(raw, _offset)) FROM stg.orders_raw")
    [ "$(cut -f1 <<<"$staged")" -eq "$(grep -c . l1.jsonl)" ]
    ods_ddl migrate >migrate.sql
    # the manifest's sorting key gained _bucket (the gate's pieces): refused, then rebuilt as
    # docs/operations.md says, its rows copied with their bucket
    migrate
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods-ddl migrate: ods.order_manifest: its sorting key is _load_id, _topic, _partition, _offset, this version's _load_id, _bucket, _topic, _partition, _offset: no statement changes that in place"* ]]
    rebuild_manifest
    migrate
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    profile=$(ods_ddl schema | sed -n "s/^    _hashdiff_profile LowCardinality(String) DEFAULT '\(.*\)'\$/\1/p" | sort -u)
    # this version's transition refuses the schema before it writes, naming migrate (its seals
    # keep no fingerprint of what was staged): no lease, no ledger row, no manifest
    statements=$output
    run_split "$BIN/ods-load" --path db --load-id L1
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 1/12: the ODS's seals (ods.order_frozen) keep no fingerprint of what was staged (a schema from before this version): bring it to this version with ods-ddl migrate first; nothing was done"* ]]
    [ "$(chlocal --path db -q "SELECT (SELECT count() FROM system.tables WHERE database = 'ods' AND name = 'order_lease'), (SELECT count() FROM ods.order_loads), (SELECT count() FROM ods.order_manifest WHERE _load_id = 'L1')" | tr '\t' ' ')" = "0 0 0" ]
    output=$statements
    # and order_v's query replaced: its set of orders the hot table shows is one grouping now,
    # not a join of two (2026-12-07)
    [ "$(grep -c '^CREATE OR REPLACE VIEW ' <<<"$output")" -eq 1 ]
    grep -q "^CREATE OR REPLACE VIEW ods.order_v AS SELECT .* GROUP BY order_id HAVING (countIf(_from_rep = 1) = 0) OR (maxIf(updated_at, _from_rep = 0) >= maxIf(updated_at, _from_rep = 1)).*;\$" <<<"$output"
    output=$(grep -v '^CREATE OR REPLACE VIEW ' <<<"$output")
    [ "$output" = "ALTER TABLE ods.order_frozen ADD COLUMN IF NOT EXISTS staged_fp1 UInt64 DEFAULT 0 AFTER messages;
ALTER TABLE ods.order_frozen ADD COLUMN IF NOT EXISTS staged_fp2 UInt64 DEFAULT 0 AFTER staged_fp1;
ALTER TABLE ods.order_loads ADD COLUMN IF NOT EXISTS wire_contract LowCardinality(String) DEFAULT '' AFTER field_invalid;
ALTER TABLE ods.order_loads ADD COLUMN IF NOT EXISTS hashdiff_profile LowCardinality(String) DEFAULT '' AFTER wire_contract;
ALTER TABLE ods.order_snapshot_hot ADD COLUMN IF NOT EXISTS _hashdiff_profile LowCardinality(String) DEFAULT '$profile' AFTER _load_ts;
ALTER TABLE ods.order_snapshot_rep ADD COLUMN IF NOT EXISTS _hashdiff_profile LowCardinality(String) DEFAULT '$profile' AFTER _load_ts;
ALTER TABLE stg.orders_raw ADD COLUMN IF NOT EXISTS _moved String MATERIALIZED '' AFTER _raw_hash;" ]
    chlocal --path db -q "$statements"
    migrate
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    # the live schema is now what this version creates
    described >live.tsv
    mv db db2
    ods_ddl schema >schema.sql
    chlocal --path db --queries-file schema.sql
    described >fresh.tsv
    rm -rf db
    mv db2 db
    diff fresh.tsv live.tsv
    # the scratch databases are gone, the data stayed, a load runs and commits
    [ "$(chlocal --path db -q "SELECT count() FROM system.databases WHERE name LIKE '%_migrate'")" -eq 0 ]
    [ "$(chlocal --path db -q "SELECT count(), sum(cityHash64(raw, _offset)) FROM stg.orders_raw")" = "$staged" ]
    run_split "$BIN/ods-load" --path db --load-id L1
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
}

@test "ods-ddl migrate: a schema from before issue 24 is refused, naming each missing table and the partition key no statement can change; nothing is changed" {
    chlocal --path db --queries-file "$FIX/schema-a631c15.sql"
    described >before.tsv
    ods_ddl migrate >migrate.sql
    migrate
    [ "$status" -eq 1 ]
    [ -z "$output" ]
    [[ $stderr_text == *"ods-ddl migrate: "* ]]
    for t in order_fates order_frozen order_lease_v order_manifest; do
        [[ $stderr_text == *"ods.$t is missing: run ods-ddl schema (with the options the ODS was created with) first"* ]] || { echo "$t"; return 1; }
    done
    [[ $stderr_text == *"ods.order_snapshot_rep: its partition key is toDate(created_at), this version's toYYYYMMDD(created_at): no statement changes that in place"* ]]
    described >after.tsv
    diff before.tsv after.tsv
    # only the partition key: refused all the same, though there is nothing to print
    rm -rf db
    ods_ddl schema | sed 's/toYYYYMMDD(created_at)/toDate(created_at)/' >old-rep.sql
    chlocal --path db --queries-file old-rep.sql
    migrate
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods-ddl migrate: ods.order_snapshot_rep: its partition key is toDate(created_at)"* ]]
    [[ $stderr_text != *"is missing"* ]]
}

@test "ods-ddl migrate: a view whose query differs is replaced; a column whose type differs is refused; other database names" {
    ods_ddl schema --stg-db s9 --ods-db o9 >schema.sql
    chlocal --path db --queries-file schema.sql
    want=$(chlocal --path db -q "SELECT as_select FROM system.tables WHERE database = 'o9' AND name = 'order_v'")
    chlocal --path db -q "CREATE OR REPLACE VIEW o9.order_v AS SELECT * FROM o9.order_snapshot_rep FINAL"
    ods_ddl migrate --stg-db s9 --ods-db o9 >migrate.sql
    [ "$(grep -c 's9_migrate\|o9_migrate' migrate.sql)" -gt 5 ]
    migrate
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [[ $output == "CREATE OR REPLACE VIEW o9.order_v AS SELECT "* ]]
    [ "$(wc -l <<<"$output")" -eq 1 ]
    chlocal --path db -q "$output"
    [ "$(chlocal --path db -q "SELECT as_select FROM system.tables WHERE database = 'o9' AND name = 'order_v'")" = "$want" ]
    migrate
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    chlocal --path db -q "ALTER TABLE o9.order_loads MODIFY COLUMN stale UInt32"
    migrate
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods-ddl migrate: o9.order_loads.stale is UInt32, this version's UInt64: no safe statement (the column's values would change)"* ]]
}

@test "ods-ddl migrate --cluster: on a node of the example cluster, nothing to do after ods-ddl schema --cluster --per-node; a missing column is added ON CLUSTER to the local and the Distributed table" {
    cfg=$(keeper_cfg "$ROOT/clickhouse-config/cluster.example.xml")
    ods_ddl schema --cluster ods_cluster --per-node >schema.sql
    chlocal --config-file "$cfg" --path db --queries-file schema.sql
    ods_ddl migrate --cluster ods_cluster >migrate.sql
    run_split chlocal --config-file "$cfg" --path db --queries-file migrate.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ -z "$output" ]
    chlocal --config-file "$cfg" --path db -q "ALTER TABLE ods.order_snapshot_hot DROP COLUMN _hashdiff_profile;
        ALTER TABLE ods.order_snapshot_hot_dist DROP COLUMN _hashdiff_profile"
    run_split chlocal --config-file "$cfg" --path db --queries-file migrate.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(wc -l <<<"$output")" -eq 2 ]
    [ "$(grep -c "^ALTER TABLE ods.order_snapshot_hot\(_dist\)\? ON CLUSTER ods_cluster ADD COLUMN IF NOT EXISTS _hashdiff_profile LowCardinality(String) DEFAULT 'order-snapshot-wire-v1/strict/xxh3_128/[0-9a-f]*' AFTER _load_ts;$" <<<"$output")" -eq 2 ]
}

@test "ods-ddl migrate --cluster from the previous release's cluster schema (issue 27): the lease's KeeperMap table is missing, then its view is a Merge table; each refusal names the step, then the seal's two columns are added and order_v's query replaced, and after them nothing is left to do" {
    cfg=$(keeper_cfg "$ROOT/clickhouse-config/cluster.example.xml")
    chlocal --config-file "$cfg" --path db --queries-file "$FIX/schema-cluster-f49c64e.sql"
    ods_ddl migrate --cluster ods_cluster >migrate.sql
    run_split chlocal --config-file "$cfg" --path db --queries-file migrate.sql
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods-ddl migrate: ods.order_lease_keeper is missing: run ods-ddl schema (with the options the ODS was created with) first"* ]]
    [[ $stderr_text == *"ods.order_manifest: its sorting key is _load_id, _topic, _partition, _offset, this version's _load_id, _bucket, _topic, _partition, _offset"* ]]
    ods_ddl schema --cluster ods_cluster --per-node >schema.sql
    chlocal --config-file "$cfg" --path db --queries-file schema.sql
    # (the rebuild on this one node: docs/operations.md runs its statements ON CLUSTER)
    SCHEMA_OPTS=(--cluster ods_cluster --per-node)
    rebuild_manifest --config-file "$cfg"
    run_split chlocal --config-file "$cfg" --path db --queries-file migrate.sql
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods-ddl migrate: ods.order_lease_v is a Merge table, this version's a view: with no transition running, DROP TABLE ods.order_lease_v ON CLUSTER ods_cluster, then run ods-ddl schema again"* ]]
    # (on this one node, without the ON CLUSTER: no DDL queue here)
    chlocal --config-file "$cfg" --path db -q "DROP TABLE ods.order_lease_v"
    chlocal --config-file "$cfg" --path db --queries-file schema.sql
    # then the columns the release lacks: the seal's fingerprint of what was staged
    run_split chlocal --config-file "$cfg" --path db --queries-file migrate.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    statements=$output
    [ "$(grep -c '^CREATE OR REPLACE VIEW ods.order_v ON CLUSTER ods_cluster AS SELECT .* GROUP BY order_id HAVING (countIf(_from_rep = 1) = 0) OR ' <<<"$output")" -eq 1 ]
    output=$(grep -v '^CREATE OR REPLACE VIEW ods.order_v ON CLUSTER ' <<<"$output")
    [ "$output" = "ALTER TABLE ods.order_frozen ON CLUSTER ods_cluster ADD COLUMN IF NOT EXISTS staged_fp1 UInt64 DEFAULT 0 AFTER messages;
ALTER TABLE ods.order_frozen ON CLUSTER ods_cluster ADD COLUMN IF NOT EXISTS staged_fp2 UInt64 DEFAULT 0 AFTER staged_fp1;" ]
    chlocal --config-file "$cfg" --path db -q "${statements// ON CLUSTER ods_cluster/}"
    run_split chlocal --config-file "$cfg" --path db --queries-file migrate.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ -z "$output" ]
    run_split chlocal --config-file "$cfg" --path db -q "
        SELECT engine FROM system.tables WHERE database = 'ods' AND name LIKE 'order_lease%' ORDER BY name FORMAT TSV"
    [ "$output" = "$(printf 'KeeperMap\nView')" ]
}
