#!/usr/bin/env bats
# ods-ddl: the command line (help, usage errors, names), the generated schema on the embedded
# engine (every table, its keys and columns, idempotent), every cluster variant parsing (ON
# CLUSTER, _dist tables, replica macros, cluster names as DBAs write them, per node), the Kafka
# batch procedure and the sql_extract battery. The transition's behaviour: transition.bats.
load helpers

teardown_file() { keeper_stop; }
load ods_sql

@test "--help goes to stdout, exit 0, and names every command and option" {
    run_split ods_ddl --help
    [ "$status" -eq 0 ]
    [ -z "$stderr_text" ]
    [[ "$output" == usage:\ ods-ddl* ]]
    for w in schema transition kafka stage abandon move-late --cluster --replicated --stg-db --ods-db --brokers \
             --topic --group --store --allow-empty --source --file order_snapshot_rep order_snapshot_errors \
             order_manifest order_frozen order_lease order_v _dist _hashdiff hashdiff_strict "changes|every" \
             "{load_id:String}" "{to_load_id:String}" "order-snapshot-wire-v1" "transition K/12: ..."; do
        [[ "$output" == *"$w"* ]] || { echo "missing: $w"; return 1; }
    done
}

@test "usage errors exit 2 with one line on stderr and nothing on stdout" {
    for args in "--bogus" "" "frobnicate" "schema extra" "schema --cluster" "schema --replicated" \
                "transition --replicated --cluster c" "kafka --topic t --group g" \
                "kafka --brokers b:1 --topic t --group g --cluster c" "schema --topic t" \
                "transition --store bogus" "transition --store" "schema --store every" \
                "kafka --brokers b:1 --topic t --group g --store every" "schema --allow-empty" \
                "stage --cluster c" "stage --source" "stage --source a/b" "stage --file" "stage extra" \
                "transition --source s" "abandon --store every" "move-late --allow-empty" "abandon extra"; do
        run_split ods_ddl $args
        [ "$status" -eq 2 ] || { echo "args: $args → $status"; return 1; }
        [ -z "$output" ]
        [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
        [[ "$stderr_text" == ods-ddl:* ]]
    done
    run_split ods_ddl schema --replicated
    [ "$stderr_text" = "ods-ddl: --replicated needs --cluster (try --help)" ]
    run_split ods_ddl kafka --brokers b:1 --group g
    [ "$stderr_text" = "ods-ddl: --topic is required (try --help)" ]
    run_split ods_ddl transition --store bogus
    [ "$stderr_text" = "ods-ddl: bad value for --store: bogus (expected changes or every)" ]
    run_split ods_ddl stage --cluster c
    [ "$stderr_text" = "ods-ddl: stage is for the node that runs the transition: no --cluster (try --help)" ]
    run_split ods_ddl move-late --allow-empty
    [ "$stderr_text" = "ods-ddl: --allow-empty applies to transition only (try --help)" ]
}

@test "--version, an unknown option, a bad value: the wording every binary uses" {
    run_split ods_ddl --version
    [ "$status" -eq 0 ]
    [ "$output" = "ods-ddl $(ods_version)" ]
    [ -z "$stderr_text" ]
    run_split ods_ddl schema --bogus
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "ods-ddl: unknown option: --bogus (try --help)" ]
    run_split ods_ddl transition --typing json
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "ods-ddl: bad value for --typing: json (expected udf or sql)" ]
    run_split ods_ddl frobnicate
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "ods-ddl: unknown command: frobnicate (expected schema, transition, kafka, stage, abandon, move-late, take-back, status, check, retention, migrate or rebaseline)" ]
    run_split ods_ddl schema --stg-db
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "ods-ddl: --stg-db needs a value (try --help)" ]
}

@test "names that are not plain identifiers and unsafe Kafka values are refused, exit 2" {
    long=$(printf 'a%.0s' {1..65})
    # (cluster names have their own rules: "cluster names as DBAs write them" below)
    for v in "ods; DROP TABLE x" "a-b" "1abc" "" "x\`y" "o'ds" "a.b" "$long" "é"; do
        for opt in --stg-db --ods-db; do
            run_split ods_ddl schema "$opt" "$v"
            [ "$status" -eq 2 ] || { echo "$opt '$v' → $status"; return 1; }
            [ -z "$output" ]
            [[ "$stderr_text" == "ods-ddl: $opt "* ]]
        done
    done
    for v in "or'ders" "a\\b" "a b" "x;y" ""; do
        run_split ods_ddl kafka --brokers b:9092 --topic "$v" --group g
        [ "$status" -eq 2 ] && [ -z "$output" ] || { echo "topic '$v' → $status"; return 1; }
        run_split ods_ddl kafka --brokers "$v" --topic t --group g
        [ "$status" -eq 2 ] && [ -z "$output" ] || { echo "brokers '$v' → $status"; return 1; }
    done
    run_split ods_ddl schema --ods-db "_Ok_9" --stg-db "$(printf 'a%.0s' {1..64})"
    [ "$status" -eq 0 ]
    # the engine's own databases are refused, in any case
    for v in system SYSTEM information_schema INFORMATION_SCHEMA; do
        for opt in --stg-db --ods-db; do
            run_split ods_ddl transition "$opt" "$v"
            [ "$status" -eq 2 ] || { echo "$opt '$v' → $status"; return 1; }
            [ -z "$output" ]
            [ "$stderr_text" = "ods-ddl: $opt names a ClickHouse system database (system, information_schema): choose another (try --help)" ]
        done
    done
}

@test "stage --file: a path the engine's file() takes as a glob (* ? {) is refused, exit 2, one line; [ ] and } stage the file named" {
    mkdir d
    printf 'one\n' >d/ab.jsonl
    printf 'two\n' >'d/a{b}.jsonl'
    printf 'three\n' >'d/a?.jsonl'
    printf 'four\n' >'d/a[b].jsonl'
    printf 'five\n' >'d/a}b.jsonl'
    # why: the engine reads another file there, with no escape (regression: ods-ddl stage
    # printed such a path as it was, and the load staged ab.jsonl's lines)
    [ "$(chlocal --no-udf -q "SELECT groupArray(line) FROM file('$PWD/d/a{b}.jsonl', LineAsString, 'line String')")" = "['one']" ]
    [ "$(chlocal --no-udf -q "SELECT length(groupArray(line)) FROM file('$PWD/d/a?.jsonl', LineAsString, 'line String')")" -eq 2 ]
    local f
    for f in 'a{b}.jsonl' 'a?.jsonl' '*.jsonl' 'a{1..2}.jsonl'; do
        run_split ods_ddl stage --file "$PWD/d/$f"
        [ "$status" -eq 2 ] || { echo "$f: $status"; return 1; }
        [ -z "$output" ]
        [ "$stderr_text" = "ods-ddl: --file must not hold * ? or { (the engine's file() expands them as a glob, into other files or none): rename the file, or stage it through the client, without --file (try --help)" ]
    done
    "$BIN/ods-ddl" schema >schema.sql
    chlocal --no-udf --path db --queries-file schema.sql
    local k=0
    for f in 'a[b].jsonl' 'a}b.jsonl'; do
        k=$((k + 1))
        run_split ods_ddl stage --source s --file "$PWD/d/$f"
        [ "$status" -eq 0 ]
        chlocal --no-udf --path db --param_load_id="L$k" -q "$output"
    done
    [ "$(chlocal --no-udf --path db -q "SELECT groupArray(raw) FROM (SELECT raw FROM stg.orders_raw ORDER BY _load_id)")" = "['four','five']" ]
}

@test "stage --file on 300 generated names: every path ods-ddl accepts, the engine stages exactly that file's line (its statement run as printed)" {
    # Differential against the engine's file(): names from an alphabet of what a path parser might
    # take specially (glob, escape, quote, brackets, separators, UTF-8), each file holding its own
    # index, all in one directory so that a glob would reach the others. Accepted: staged under
    # load N, it must hold exactly line N; refused: exit 2 with the glob message.
    mkdir d
    awk 'BEGIN { srand(31); n = split("a b 1 . _ - \\ [ ] { } * ? , ~ $ % @ + = # ! ( ) & \303\251", c, " ")
        c[n + 1] = " "; c[n + 2] = "\047"; n += 2
        for (i = 1; i <= 300; i++) { len = 1 + int(rand() * 6); s = ""
            for (k = 0; k < len; k++) s = s c[1 + int(rand() * n)]
            print s } }' | awk '!seen[$0]++ && $0 != "." && $0 != ".."' >names.txt
    local name idx=0 acc=0 ref=0
    "$BIN/ods-ddl" schema >all.sql
    while IFS= read -r name; do
        idx=$((idx + 1))
        printf '%d\n' "$idx" >"d/$name"
        run_split ods_ddl stage --source s --file "$PWD/d/$name"
        if [ "$status" -eq 0 ]; then
            acc=$((acc + 1))
            printf "SET param_load_id = 'L%d';\n%s\n" "$idx" "$output" >>all.sql
        else
            ref=$((ref + 1))
            [ "$status" -eq 2 ] || { echo "[$name]: $status $stderr_text"; return 1; }
            [[ $stderr_text == "ods-ddl: --file must not hold * ? or { "* ]] || { echo "[$name]: $stderr_text"; return 1; }
            [[ $name == *[*?{]* ]] || { echo "[$name] refused without a glob character"; return 1; }
        fi
    done <names.txt
    echo "$idx names: $acc accepted, $ref refused"
    [ "$acc" -gt 100 ]
    [ "$ref" -gt 50 ]
    chlocal --no-udf --path db --queries-file all.sql
    # every accepted load staged one row, its own index
    run_split chlocal --no-udf --path db -q "SELECT count(), countIf(n = 1 AND raw = substring(_load_id, 2)) FROM
        (SELECT _load_id, count() AS n, any(raw) AS raw FROM stg.orders_raw GROUP BY _load_id)"
    [ "$output" = "$acc"$'\t'"$acc" ] || { echo "$output"; return 1; }
}

@test "schema: every statement runs on one node, twice (idempotent), with the keys the issue asks for" {
    ods_ddl schema > schema.sql
    chlocal --no-udf --path db --queries-file schema.sql
    chlocal --no-udf --path db --queries-file schema.sql
    run_split chlocal --no-udf --path db -q "SELECT database, name, engine, engine_full FROM system.tables WHERE database IN ('stg', 'ods') ORDER BY database, name FORMAT TSV"
    [ "$status" -eq 0 ]
    echo "$output"
    [ "$(wc -l <<<"$output")" -eq 15 ]
    [[ "$output" == *$'ods\torder_snapshot_rep\tReplacingMergeTree\tReplacingMergeTree(updated_at) PARTITION BY toYYYYMMDD(created_at) ORDER BY order_id '* ]]
    [[ "$output" == *$'ods\torder_snapshot_errors\tMergeTree\tMergeTree PARTITION BY toDate(_load_ts) ORDER BY (_load_id, error_class, _topic, _partition, _offset) '* ]]
    [[ "$output" == *$'ods\torder_snapshot_hot\tMergeTree\tMergeTree PARTITION BY _load_id ORDER BY (order_id, updated_at) '* ]]
    [[ "$output" == *$'ods\torder_loads\tMergeTree\tMergeTree ORDER BY delta '* ]]
    [[ "$output" == *$'ods\torder_snapshot_stale\tMergeTree\tMergeTree PARTITION BY _load_id ORDER BY (_topic, _partition, _offset) '* ]]
    [[ "$output" == *$'ods\torder_gate\tNull\t'* ]]
    [[ "$output" == *$'ods\torder_gate_stale\tMaterializedView'* ]]
    [[ "$output" == *$'ods\torder_gate_stored\tMaterializedView'* ]]
    [[ "$output" == *$'ods\torder_gate_fates\tMaterializedView'* ]]
    [[ "$output" == *$'ods\torder_fates\tMergeTree\tMergeTree PARTITION BY _load_id ORDER BY (_load_id, _topic, _partition, _offset) '* ]]
    [[ "$output" == *$'ods\torder_v\tView'* ]]
    [[ "$output" == *$'ods\torder_manifest\tMergeTree\tMergeTree PARTITION BY _load_id ORDER BY (_load_id, _bucket, _topic, _partition, _offset) '* ]]
    [[ "$output" == *$'ods\torder_frozen\tMergeTree\tMergeTree ORDER BY _load_id '* ]]
    [[ "$output" == *$'ods\torder_lease_v\tMerge\tMerge(\\\'ods\\\', \\\'^order_lease$\\\')'* ]]
    [[ "$output" == *$'stg\torders_raw\tMergeTree\tMergeTree PARTITION BY toDate(_load_ts) ORDER BY (_load_id, _topic, _partition, _offset) '* ]]
    run_split chlocal --no-udf --path db -q "SELECT comment FROM system.tables WHERE database = 'ods' AND name = 'order_snapshot_rep'"
    [[ "$output" == *"order-snapshot-wire-v1"* ]]
    # The view and the two tables of versions have the same columns: the 11 of the contract,
    # _hashdiff (UInt128), _load_id, _load_ts; the tables also record the hashdiff profile.
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_v' ORDER BY position)"
    view_cols=$output
    [ "$view_cols" = "['order_id','user_id','status','created_at','updated_at','items_total','discount','delivery','total','items','snapshot_date','_hashdiff','_load_id','_load_ts']" ]
    for t in order_snapshot_hot order_snapshot_rep; do
        run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = '$t' ORDER BY position)"
        [ "$output" = "${view_cols%]},'_hashdiff_profile']" ]
    done
    run_split chlocal --no-udf --path db -q "SELECT table, type FROM system.columns WHERE database = 'ods' AND name = '_hashdiff' ORDER BY table FORMAT TSV"
    [ "$output" = "$(printf 'order_gate\tUInt128\norder_gate_stored\tUInt128\norder_manifest\tUInt128\norder_snapshot_hot\tUInt128\norder_snapshot_rep\tUInt128\norder_v\tUInt128')" ]
    # The gate: the stored columns, the coordinates, the fate and where the row is still to be
    # written; its views send each row on by its fate and flags, the Null table keeps none.
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_gate' ORDER BY position)"
    [ "$output" = "$(sed "s/\]\$/,'_topic','_partition','_offset','_fate','_put_hot','_put_stale','_put_fate']/" <<<"$view_cols")" ]
    run_split chlocal --no-udf --path db -q "
        INSERT INTO ods.order_gate (order_id, updated_at, _load_id, _topic, _partition, _offset, _fate, _put_hot, _put_stale, _put_fate)
        VALUES ('G', '2026-01-01 00:00:00', 'L', 't', 0, 1, 'stored', 1, 0, 1), ('G', '2025-12-31 00:00:00', 'L', 't', 0, 2, 'stale', 0, 1, 1),
               ('G', '2025-12-30 00:00:00', 'L', 't', 0, 3, 'stale', 0, 1, 0), ('H', '2026-01-01 00:00:00', 'L', 't', 0, 4, 'stored', 0, 0, 1),
               ('I', '2026-01-01 00:00:00', 'L', 't', 0, 5, 'unchanged', 1, 1, 1);
        SELECT (SELECT groupArray((order_id, updated_at, _load_id)) FROM ods.order_snapshot_hot),
               (SELECT groupArray((order_id, updated_at, _topic, _partition, _offset, _load_id)) FROM (SELECT * FROM ods.order_snapshot_stale ORDER BY ALL)),
               (SELECT groupArray((_load_id, _topic, _partition, _offset, fate)) FROM (SELECT * FROM ods.order_fates ORDER BY ALL)),
               (SELECT count() FROM ods.order_gate) FORMAT TSV;
        TRUNCATE TABLE ods.order_snapshot_hot; TRUNCATE TABLE ods.order_snapshot_stale; TRUNCATE TABLE ods.order_fates"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$output" = "[('G','2026-01-01 00:00:00.000','L')]	[('G','2025-12-30 00:00:00.000','t',0,3,'L'),('G','2025-12-31 00:00:00.000','t',0,2,'L')]	[('L','t',0,1,'stored'),('L','t',0,2,'stale'),('L','t',0,4,'stored'),('L','t',0,5,'unchanged')]	0" ]
    # The ledger: the load, its delta and commit time, its figures, one count per reject class.
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_loads' ORDER BY position)"
    [ "$output" = "['delta','_load_id','committed_at','received','redelivered','accepted','stored','unchanged','stale','rejected','not_an_object','keyset_mismatch','field_invalid','wire_contract','hashdiff_profile']" ]
    # The manifest: a load's messages as its transition froze them, by coordinates: the class,
    # the raw bytes' hash (the raw itself of the rejected ones), the typed contract columns,
    # _hashdiff and the bucket of order_id (the gate's pieces);
    # the seal: one row per frozen load, with the fingerprint of what was staged; the lease: who
    # holds it, since when.
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_manifest' ORDER BY position)"
    [ "$output" = "['_load_id','_topic','_partition','_offset','_timestamp','_key','_load_ts','_raw_hash','error_class','raw','order_id','user_id','status','created_at','updated_at','items_total','discount','delivery','total','items','snapshot_date','_hashdiff','_bucket']" ]
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_frozen' ORDER BY position)"
    [ "$output" = "['_load_id','frozen_at','staged','messages','staged_fp1','staged_fp2']" ]
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_lease_v' ORDER BY position); SELECT count() FROM ods.order_lease_v"
    [ "$output" = "$(printf "['_load_id','since']\n0")" ]
    # One row per order even with versions in two partitions and a server that would not merge
    # across partitions in FINAL: the view sets it for itself.
    run_split chlocal --no-udf --path db -q "
        INSERT INTO ods.order_snapshot_rep (order_id, created_at, updated_at) VALUES ('A', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
        INSERT INTO ods.order_snapshot_rep (order_id, created_at, updated_at) VALUES ('A', '2026-01-02 00:00:00', '2026-01-03 00:00:00');
        SELECT count(), any(updated_at) FROM ods.order_v SETTINGS do_not_merge_across_partitions_select_final = 1"
    [ "$output" = "$(printf '1\t2026-01-03 00:00:00.000')" ]
    # A hot row is invisible until the ledger holds its load; then it is the order's row.
    run_split chlocal --no-udf --path db -q "
        INSERT INTO ods.order_snapshot_hot (order_id, created_at, updated_at, _load_id) VALUES ('A', '2026-01-02 00:00:00', '2026-01-04 00:00:00', 'H');
        SELECT count(), any(updated_at), any(_load_id) FROM ods.order_v SETTINGS do_not_merge_across_partitions_select_final = 1;
        INSERT INTO ods.order_loads (delta, _load_id) VALUES (1, 'H');
        SELECT count(), any(updated_at), any(_load_id) FROM ods.order_v SETTINGS do_not_merge_across_partitions_select_final = 1"
    [ "$output" = "$(printf '1\t2026-01-03 00:00:00.000\t\n1\t2026-01-04 00:00:00.000\tH')" ]
    # Versions before 1970 (the contract allows 1900-2299): a committed hot row of an order with
    # no _rep row shows, however old (a max over no _rep rows is 1970, which it would lose to);
    # against a _rep row the newer wins, a tie goes to the hot row.
    run_split chlocal --no-udf --path db -q "
        INSERT INTO ods.order_snapshot_hot (order_id, created_at, updated_at, _load_id) VALUES
            ('B', '1940-01-01 00:00:00', '1950-01-01 00:00:00', 'H'), ('C', '1940-01-01 00:00:00', '1950-01-01 00:00:00', 'H'),
            ('D', '1940-01-01 00:00:00', '1950-01-01 00:00:00', 'H');
        INSERT INTO ods.order_snapshot_rep (order_id, created_at, updated_at) VALUES
            ('C', '1940-01-01 00:00:00', '1960-01-01 00:00:00'), ('D', '1940-01-01 00:00:00', '1950-01-01 00:00:00');
        SELECT order_id, updated_at, _load_id FROM ods.order_v WHERE order_id IN ('B', 'C', 'D') ORDER BY order_id"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'B\t1950-01-01 00:00:00.000\tH\nC\t1960-01-01 00:00:00.000\t\nD\t1950-01-01 00:00:00.000\tH')" ]
    # Other database names work the same.
    ods_ddl schema --stg-db s2 --ods-db o2 > s2.sql
    chlocal --no-udf --path db --queries-file s2.sql
    run_split chlocal --no-udf --path db -q "SELECT count() FROM system.tables WHERE database IN ('s2', 'o2')"
    [ "$output" = "15" ]
}

@test "cluster variants: every statement parses, with ON CLUSTER, _dist tables and replica macros" {
    for v in "" "--replicated"; do
        ods_ddl schema --cluster c1 $v | statements_tsv > st.tsv
        ods_ddl transition --cluster c1 | statements_tsv >> st.tsv
        ods_ddl transition --cluster c1 --store every | statements_tsv >> st.tsv
        run_split chlocal --no-udf -q "SELECT formatQuerySingleLine(q) FROM file('$PWD/st.tsv', TSV, 'q String') FORMAT TSVRaw"
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        # 23 of the schema (2 databases, 9 tables, the lease's KeeperMap table and its view, 5
        # Distributed, the gate and its 3 views, the view), 42 of each transition (12
        # statements, the freeze's 16 INSERTs and the gate's 16 counted one by one)
        [ "$(wc -l <<<"$output")" -eq 107 ]
        [ "$(grep -c '^CREATE .* ON CLUSTER c1' <<<"$output")" -eq 23 ]
        # the load's own tables (manifest, seal, fates) have no Distributed table: the node that
        # runs the transition reads its own; the lease is one KeeperMap row for the whole
        # cluster, read through a view, taken in strict mode by both transitions
        [ "$(grep -c '^CREATE TABLE IF NOT EXISTS ods\.order_\(manifest\|frozen\|fates\|lease_keeper\) ON CLUSTER c1 ' <<<"$output")" -eq 4 ]
        [ "$(grep -c 'order_\(manifest\|frozen\|fates\|lease\)\(_v\|_keeper\)\?_dist' <<<"$output")" -eq 0 ]
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_lease_keeper ON CLUSTER c1 (.*) ENGINE = KeeperMap('/ods_transition/ods/lease') PRIMARY KEY name " <<<"$output"
        grep -q "^CREATE VIEW IF NOT EXISTS ods.order_lease_v ON CLUSTER c1 (.*) COMMENT '.*' AS SELECT _load_id, since FROM ods.order_lease_keeper WHERE name = 'lease'$" <<<"$output"
        [ "$(grep -c '^INSERT INTO ods.order_lease_keeper SETTINGS keeper_map_strict_mode = 1 SELECT ' <<<"$output")" -eq 2 ]
        [ "$(grep -c 'ods.order_lease\b' <<<"$output")" -eq 0 ]
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_snapshot_dist ON CLUSTER c1 AS ods.order_snapshot_rep ENGINE = Distributed(c1, ods, order_snapshot_rep, cityHash64(order_id))$" <<<"$output"
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_snapshot_errors_dist ON CLUSTER c1 AS ods.order_snapshot_errors ENGINE = Distributed(c1, ods, order_snapshot_errors, " <<<"$output"
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_snapshot_hot_dist ON CLUSTER c1 AS ods.order_snapshot_hot ENGINE = Distributed(c1, ods, order_snapshot_hot, cityHash64(order_id))$" <<<"$output"
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_loads_dist ON CLUSTER c1 AS ods.order_loads ENGINE = Distributed(c1, ods, order_loads)$" <<<"$output"
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_snapshot_stale_dist ON CLUSTER c1 AS ods.order_snapshot_stale ENGINE = Distributed(c1, ods, order_snapshot_stale, cityHash64(order_id))$" <<<"$output"
        # the gate on the node that runs the transition, its views writing through the shards
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_gate ON CLUSTER c1 (.*) ENGINE = .Null. " <<<"$output"
        grep -q "^CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_stored ON CLUSTER c1 TO ods.order_snapshot_hot_dist AS SELECT .* FROM ods.order_gate WHERE (_fate = 'stored') AND _put_hot$" <<<"$output"
        grep -q "^CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_stale ON CLUSTER c1 TO ods.order_snapshot_stale_dist AS SELECT .* FROM ods.order_gate WHERE (_fate = 'stale') AND _put_stale$" <<<"$output"
        grep -q "^CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_fates ON CLUSTER c1 TO ods.order_fates AS SELECT _load_id, _topic, _partition, _offset, _fate AS fate FROM ods.order_gate WHERE _put_fate$" <<<"$output"
        C="order_id, user_id, status, created_at, updated_at, items_total, discount, delivery, total, items, snapshot_date, _hashdiff, _load_id, _load_ts"
        w="(SELECT order_id FROM (SELECT order_id, updated_at, 0 AS _from_rep FROM ods.order_snapshot_hot_dist WHERE _load_id GLOBAL IN (SELECT _load_id FROM ods.order_loads_dist) UNION ALL SELECT order_id, updated_at, 1 AS _from_rep FROM ods.order_snapshot_dist WHERE order_id GLOBAL IN (SELECT order_id FROM ods.order_snapshot_hot_dist WHERE _load_id GLOBAL IN (SELECT _load_id FROM ods.order_loads_dist))) GROUP BY order_id HAVING (countIf(_from_rep = 1) = 0) OR (maxIf(updated_at, _from_rep = 0) >= maxIf(updated_at, _from_rep = 1)))"
        grep -qF "CREATE VIEW IF NOT EXISTS ods.order_v ON CLUSTER c1 AS SELECT $C FROM (SELECT $C FROM ods.order_snapshot_dist FINAL WHERE order_id GLOBAL NOT IN $w SETTINGS do_not_merge_across_partitions_select_final = 0) UNION ALL SELECT order_id, _v.1 AS user_id, " <<<"$output"
        grep -qF " AS _v FROM ods.order_snapshot_hot_dist AS h GLOBAL INNER JOIN (SELECT _load_id, delta FROM ods.order_loads_dist) AS c USING (_load_id) WHERE order_id GLOBAL IN $w GROUP BY order_id)" <<<"$output"
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_errors_dist (.*) SETTINGS distributed_foreground_insert = 1, compile_expressions = 0, compile_aggregate_expressions = 0, compile_sort_description = 0 SELECT ' <<<"$output")" -eq 2 ]
        # the folds (both modes), then the good INSERTs, both into the gate (its views write the hot table)
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_dist ' <<<"$output")" -eq 2 ]
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_dist (.*) SETTINGS distributed_foreground_insert = 1, optimize_on_insert = 0, throw_on_max_partitions_per_insert_block = 0 SELECT .* FROM ods.order_snapshot_hot_dist WHERE .* ORDER BY toYYYYMMDD(created_at) ASC$' <<<"$output")" -eq 2 ]
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_hot_dist ' <<<"$output")" -eq 0 ]
        [ "$(grep -c '^INSERT INTO ods.order_gate (.*) SETTINGS distributed_foreground_insert = 1, enable_shared_storage_snapshot_in_query = 1, join_use_nulls = 0, max_insert_threads = 4, min_insert_block_size_rows = 262144, compile_expressions = 0, compile_aggregate_expressions = 0, compile_sort_description = 0 WITH .* SELECT ' <<<"$output")" -eq 32 ]
        # the freeze (16 pieces) and its seal: into this node's manifest and seal
        [ "$(grep -c '^INSERT INTO ods.order_manifest (' <<<"$output")" -eq 32 ]
        [ "$(grep -c '^INSERT INTO ods.order_frozen (' <<<"$output")" -eq 2 ]
        [ "$(grep -c '^ALTER TABLE ods.order_snapshot_hot ON CLUSTER c1 (DELETE WHERE .*) SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1$' <<<"$output")" -eq 2 ]
        [ "$(grep -c '^INSERT INTO ods.order_loads (delta, ' <<<"$output")" -eq 2 ]
        if [ -n "$v" ]; then
            grep -q "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/ods/order_snapshot_rep', '{replica}', updated_at)" <<<"$output"
            grep -q "ReplicatedMergeTree('/clickhouse/tables/{shard}/ods/order_snapshot_hot', '{replica}')" <<<"$output"
            grep -q "ReplicatedMergeTree('/clickhouse/tables/{shard}/ods/order_loads', '{replica}')" <<<"$output"
            grep -q "ReplicatedMergeTree('/clickhouse/tables/{shard}/ods/order_snapshot_stale', '{replica}')" <<<"$output"
            grep -q "ReplicatedMergeTree('/clickhouse/tables/{shard}/ods/order_manifest', '{replica}')" <<<"$output"
            grep -q "ReplicatedMergeTree('/clickhouse/tables/{shard}/ods/order_frozen', '{replica}')" <<<"$output"
            grep -q "ReplicatedMergeTree('/clickhouse/tables/{shard}/ods/order_fates', '{replica}')" <<<"$output"
            [ "$(grep -c "'/clickhouse/tables/{shard}/[a-z]*/[a-z_]*', '{replica}'" <<<"$output")" -eq 9 ]
        else
            run grep -c Replicated <<<"$output"
            [ "$output" = 0 ]
        fi
    done
}


@test "kafka: an unreachable broker fails the batch procedure (exit 1, the consumer's error), within 30 s" {
    ods_ddl schema > schema.sql
    ods_ddl kafka --brokers 127.0.0.1:1 --topic orders --group ods_test > kafka.sql
    chlocal --no-udf --path db --queries-file schema.sql
    local t0=$SECONDS
    run_split timeout 60 "$BIN/chlocal" --no-udf --path db --param_load_id=L0 --queries-file kafka.sql
    echo "status $status after $((SECONDS - t0)) s: $stderr_text"
    [ "$status" -eq 1 ]
    [ $((SECONDS - t0)) -le 30 ]
    [ -z "$output" ]
    [[ "$stderr_text" == *"Kafka batch L0: no message was read from stg.orders_kafka (brokers 127.0.0.1:1, topic orders, group ods_test); the consumer's last error, at "*"brokers are down. Nothing was committed"* ]]
    # one message, no engine stack trace
    [ "$(grep -c ' @ 0x' <<<"$stderr_text")" -eq 0 ]
    # the Kafka table was created, and nothing was staged
    run_split chlocal --no-udf --path db -q "SELECT engine, count() FROM system.tables WHERE database = 'stg' AND name = 'orders_kafka' GROUP BY engine; SELECT count() FROM stg.orders_raw"
    [ "$output" = "$(printf 'Kafka\t1\n0')" ]
}

@test "kafka: the check after the batch passes when the batch staged messages, and fails on an empty one" {
    ods_ddl kafka --brokers 127.0.0.1:1 --topic orders --group g | sed -n '/^-- the check:/,$p' > check.sql
    [ "$(grep -c throwIf check.sql)" -eq 1 ]
    ods_ddl schema > schema.sql
    chlocal --no-udf --path db --queries-file schema.sql
    # a stand-in that is not a Kafka table: the check has nothing to say (the other tests' batches)
    run_split chlocal --no-udf --path db --param_load_id=L1 --queries-file check.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    # a real Kafka table (never polled: no consumer error recorded) and no message staged
    ods_ddl kafka --brokers 127.0.0.1:1 --topic orders --group g | sed '/^INSERT/,$d' > create.sql
    chlocal --no-udf --path db --queries-file create.sql
    run_split chlocal --no-udf --path db --param_load_id=L1 --queries-file check.sql
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"Kafka batch L1: no message was read from stg.orders_kafka"*"the consumer recorded no error"* ]]
    # messages staged under the load: the check passes, silently
    chlocal --no-udf --path db -q "INSERT INTO stg.orders_raw (raw, _load_id) VALUES ('{}', 'L1')"
    run_split chlocal --no-udf --path db --param_load_id=L1 --queries-file check.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ -z "$output" ]
}

@test "the one-batch INSERT: one _load_ts per batch, coordinates kept, empty messages skipped" {
    sql="$(setup_sql)
$(deliver L1 1 batch)
SELECT 'one _load_ts for the batch', (SELECT uniqExact(_load_ts) FROM stg.orders_raw) = 1;
SELECT 'every non-empty message staged, raw and coordinates intact', (SELECT count() FROM stg.orders_raw AS s INNER JOIN t.delivered AS d
    ON s._topic = d._topic AND s._partition = d._partition AND s._offset = d._offset
    WHERE s.raw = d.raw AND s._timestamp = d._timestamp_ms AND s._key = d._key AND s._load_id = 'L1') = (SELECT countIf(raw != '') FROM t.delivered);
SELECT 'no empty message staged', (SELECT countIf(raw = '') FROM stg.orders_raw) = 0 AND (SELECT countIf(raw = '') FROM t.delivered) = 1;
$(ledger_sql)"
    check_all "$sql"
}

@test "every sql_extract yields exactly the value the contract's text denotes, or throws" {
    tr=$(ods_ddl transition --typing sql --gate-pieces 1) # (each typing expression once)
    sql="CREATE DATABASE t; CREATE TABLE t.x ENGINE = Memory AS SELECT n, key, expect,
        if(json = 'MISSING', '{\"other\":1}', concat('{\"', key, '\":', json, '}')) AS raw
        FROM file('$FIX/extract.tsv', TSVWithNames, 'n UInt32, key String, json String, expect String');"
    want=""
    while IFS=$'\t' read -r n key json expect; do
        [ "$n" = n ] && continue
        # (the gate types a field where it reads the manifest: its messages, and the two reads
        # that find later receipts; the same expression each time)
        e=$(sed -n "s/^ *\([^ ].*\) AS $key,\$/\1/p" <<<"$tr" | sort -u)
        [ -n "$e" ] || { echo "no expression for $key"; return 1; }
        if [ "$expect" = ERROR ]; then
            sql+="SELECT n, toString($e) FROM t.x WHERE n = $n;"
        else
            sql+="SELECT n, ($e) = CAST(expect, toTypeName($e)) FROM t.x WHERE n = $n;"
            want+="$n"$'\t1\n'
        fi
    done < "$FIX/extract.tsv"
    run_split chlocal --no-udf --ignore-error -q "$sql"
    [ "$status" -eq 0 ]
    diff <(printf '%s' "$want") <(printf '%s\n' "$output")
}



# --- Issue 16, naming: cluster names as DBAs write them (prod-ods, '{cluster}', ods_{env}, ...),
# checked through the engine's own parser, and the Distributed tables created on the engine over
# a cluster literally named prod-ods and over '{cluster}' expanded from <macros>.

NAMES_FIX=$ROOT/tests/fixtures/shard/names

# The names every check below runs: each needs quoting in SQL but the last two (ods_cluster is
# written bare, byte for byte as before; null was written bare and named no cluster).
CLUSTER_NAMES=("prod-ods" "{cluster}" "ods_{env}" "o'ds" 'a\b' 'x`y' "a b" "кластер-é" "1ods" "ods_cluster" "null")

# parsed_clusters FILE.tsv: per statement of FILE (statements_tsv output) that names a cluster,
# "on<TAB>NAME" for the ON CLUSTER clause and "dist<TAB>NAME" for Distributed's first argument,
# NAME as the engine parsed it: from formatQuery's canonical text (ON CLUSTER `…`, a '…'
# literal or a bare identifier), unquoted; then "ast<TAB>KIND" per Distributed statement, the
# kind of node EXPLAIN AST gives its first argument (Identifier or a String literal; a Bool,
# Float or NULL literal would name no cluster). Names hold no tab or newline (ods-ddl refuses them).
parsed_clusters() {
    cat >pc.sql <<'SQL'
WITH
    x -> if(startsWith(x, '`') OR startsWith(x, '\''),
            replaceRegexpAll(substring(x, 2, length(x) - 2), '\\\\(.)', '\\1'), x) AS unq,
    formatQuerySingleLine(q) AS f
SELECT arrayJoin(arrayFilter(p -> p.2 != '', [
    ('on', extract(f, ' ON CLUSTER (`(?:[^`\\\\]|\\\\.)*`|[^ `\']+)')),
    ('dist', extract(f, 'ENGINE = Distributed\\((`(?:[^`\\\\]|\\\\.)*`|\'(?:[^\'\\\\]|\\\\.)*\'|[^,`\']+), '))])) AS p,
    p.1, unq(p.2)
FROM file('PC_FILE', TSV, 'q String')
FORMAT TSVRaw
SQL
    sed -i "s|PC_FILE|$PWD/$1|" pc.sql
    chlocal --no-udf --queries-file pc.sql | cut -f2-
    # EXPLAIN AST of each Distributed statement: the node of its first argument
    awk 'index($0, "ENGINE = Distributed(") { gsub(/\\n/, "\n"); gsub(/\\t/, "\t"); gsub(/\\\\/, "\\"); print "EXPLAIN AST " $0 ";" }' "$1" >ea.sql
    chlocal --no-udf --queries-file ea.sql |
        awk '/Function Distributed/ { getline; getline; sub(/^ +/, ""); split($0, w, " ");
             kind = w[1] == "Literal" ? (substr($0, 9, 2) == "\\'"'"'" ? "String" : "other " w[2]) : w[1];
             print "ast\t" kind }'
}

@test "cluster names as DBAs write them: the engine parses exactly NAME from ON CLUSTER and from Distributed" {
    local name v
    for name in "${CLUSTER_NAMES[@]}"; do
        : >st.tsv
        for v in "schema" "schema --replicated" "transition" "transition --store every"; do
            ods_ddl $v --cluster "$name" | statements_tsv >>st.tsv
        done
        run_split parsed_clusters st.tsv
        [ "$status" -eq 0 ] || { echo "$name: $stderr_text"; return 1; }
        # 23 ON CLUSTER in each schema and one (the housekeeping ALTER) in each transition, 5
        # Distributed tables in each schema, each one's argument an identifier or a String
        # literal, and every cluster the engine parsed exactly NAME
        [ "$(grep -c "^on	" <<<"$output")" -eq 48 ] || { echo "$name: ON CLUSTER count"; echo "$output"; return 1; }
        [ "$(grep -c "^dist	" <<<"$output")" -eq 10 ] || { echo "$name: Distributed count"; return 1; }
        [ "$(grep -cE "^ast	(Identifier|String)$" <<<"$output")" -eq 10 ] || { echo "$name: AST"; echo "$output"; return 1; }
        [ "$(grep -vE "^ast	" <<<"$output" | cut -f2- | sort -u)" = "$name" ] ||
            { echo "$name: parsed as"; echo "$output"; return 1; }
    done
    # plain identifiers are written bare, as before; anything else as a '…' literal
    ods_ddl schema --cluster ods_cluster | grep -q "^ENGINE = Distributed(ods_cluster, ods, order_snapshot_rep, cityHash64(order_id));$"
    ods_ddl schema --cluster "o'ds" | grep -q "^ENGINE = Distributed('o\\\\'ds', ods, order_snapshot_rep, cityHash64(order_id));$"
    ods_ddl transition --cluster '{cluster}' | grep -q "^ALTER TABLE ods.order_snapshot_hot ON CLUSTER '{cluster}' DELETE WHERE "
}

@test "cluster names: what the engine or the server could not take is refused, exit 2, one line, no SQL" {
    local long v
    long=$(printf 'a%.0s' {1..256})
    for v in "" $'a\tb' $'a\nb' $'a\rb' $'a\x7fb' $'\xff' $'a\xc3' $'\xed\xa0\x80' "{cluster" "a{b}{" "{}" "{a{b}}" "$long"; do
        for cmd in schema transition; do
            run_split ods_ddl "$cmd" --cluster "$v"
            [ "$status" -eq 2 ] || { echo "'$v' → $status"; return 1; }
            [ -z "$output" ]
            [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
            [[ "$stderr_text" == "ods-ddl: --cluster "*" (try --help)" ]]
        done
    done
    run_split ods_ddl schema --cluster "{cluster"
    [ "$stderr_text" = "ods-ddl: --cluster has a '{' without a closing '}': the server reads {NAME} as a macro (try --help)" ]
    run_split ods_ddl schema --cluster $'\xff'
    [ "$stderr_text" = "ods-ddl: --cluster is not valid UTF-8 (try --help)" ]
    # 255 bytes are fine; so is anything printable
    run_split ods_ddl schema --cluster "${long:1}"
    [ "$status" -eq 0 ]
    run_split ods_ddl schema --cluster "x; DROP TABLE t --"
    [ "$status" -eq 0 ]
    grep -q "ON CLUSTER 'x; DROP TABLE t --';" <<<"$output"
}

# on_engine_schema NAME CONFIG: the cluster schema for NAME, without its ON CLUSTER clauses (the
# embedded engine has no distributed DDL queue), created on the engine with CONFIG as its server
# config; then 1000 orders inserted through ods.order_snapshot_dist, queued (the shards are
# unreachable) per shard: "order_id<TAB>shard" of each into engine.tsv.
on_engine_schema() {
    local name=$1 cfg=$2 dp
    ods_ddl schema --cluster "$name" >cl.sql
    sed "s/ ON CLUSTER '[^']*'//; s/ ON CLUSTER [A-Za-z_][A-Za-z0-9_]*//" cl.sql >local.sql
    ! grep -q "ON CLUSTER" local.sql || return 1
    chlocal --no-udf --config-file "$cfg" --path "$PWD/db" --queries-file local.sql
    chlocal --no-udf --config-file "$cfg" --path "$PWD/db" -q "
        SYSTEM STOP DISTRIBUTED SENDS;
        INSERT INTO ods.order_snapshot_dist (order_id, created_at, updated_at)
            SELECT concat('ORD-', toString(number)), toDateTime64('2026-03-01 00:00:00', 3, 'UTC'),
                   toDateTime64('2026-03-01 00:00:00', 3, 'UTC') FROM numbers(1000);
        SELECT data_paths[1] FROM system.tables WHERE database = 'ods' AND name = 'order_snapshot_dist'
        INTO OUTFILE 'data_path' FORMAT TSVRaw"
    dp=$(cat data_path)
    # (all columns: the engine cannot read part of a queue file's columns)
    # (shardN_replicaM, or shardN_all_replicas for a shard with internal_replication)
    chlocal --no-udf -q "SELECT *, _path FROM file('${dp}shard*_*/*.bin', 'Distributed') FORMAT TSV" |
        awk -F'\t' '{ match($NF, /shard[0-9]+_/); print $1 "\t" substr($NF, RSTART + 5, RLENGTH - 6) }' |
        sort -u >engine.tsv
}

@test "cluster names on the engine: Distributed over a cluster literally named prod-ods routes every row" {
    local cfg
    cfg=$(keeper_cfg "$NAMES_FIX/prod-ods.xml")
    on_engine_schema prod-ods "$cfg"
    run_split chlocal --no-udf --config-file "$cfg" --path "$PWD/db" -q "
        SELECT name, engine_full FROM system.tables WHERE database = 'ods' AND engine = 'Distributed' ORDER BY name FORMAT TSVRaw"
    [ "$status" -eq 0 ]
    [ "$(wc -l <<<"$output")" -eq 5 ]
    [ "$(grep -c "	Distributed('prod-ods', 'ods', " <<<"$output")" -eq 5 ]
    # every order queued once, for the shard shard-check routes it to
    [ "$(wc -l <engine.tsv)" -eq 1000 ]
    cut -f1 engine.tsv | "$BIN/shard-check" route --config "$NAMES_FIX/prod-ods.xml" --cluster prod-ods >ours
    [ "$(cut -f2 engine.tsv | diff - ours | wc -l)" -eq 0 ]
    [ "$(cut -f2 engine.tsv | sort -u | tr '\n' ' ')" = "1 2 " ]
}

@test "cluster names on the engine: '{cluster}' and 'ods_{env}' are expanded from <macros> by the engine" {
    local cfg
    cfg=$(keeper_cfg "$NAMES_FIX/macros.xml")
    on_engine_schema '{cluster}' "$cfg"
    run_split chlocal --no-udf --config-file "$cfg" --path "$PWD/db" -q "
        SELECT count() FROM system.tables WHERE database = 'ods' AND engine = 'Distributed'
            AND engine_full LIKE 'Distributed(\\'{cluster}\\', %';
        SHOW CREATE TABLE ods.order_snapshot_rep FORMAT TSV;
        SHOW CREATE TABLE ods.order_snapshot_dist FORMAT TSV"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    # the table keeps the macro (each server expands it), and routes over ods_cluster's 3 shards
    [ "$(head -1 <<<"$output")" = "5" ]
    tail -n +2 <<<"$output" >live.tsv
    [ "$(wc -l <engine.tsv)" -eq 1000 ]
    cut -f1 engine.tsv | "$BIN/shard-check" route --config "$NAMES_FIX/macros.xml" --cluster ods_cluster >ours
    [ "$(cut -f2 engine.tsv | diff - ours | wc -l)" -eq 0 ]
    [ "$(cut -f2 engine.tsv | sort -u | tr '\n' ' ')" = "1 2 3 " ]
    # shard-check reads the engine's SHOW CREATE of it and resolves the macro from the config
    run_split "$BIN/shard-check" ddl --cluster '{cluster}' --config "$NAMES_FIX/macros.xml" live.tsv
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [[ "$output" == *"on cluster ods_cluster ({cluster}), sharding key cityHash64(order_id): ok"* ]]
    # ods_{env}: the macro inside a name
    rm -rf db data_path
    on_engine_schema 'ods_{env}' "$cfg"
    [ "$(wc -l <engine.tsv)" -eq 1000 ]
    [ "$(cut -f2 engine.tsv | sort -u)" = "1" ]
}

# --- Issue 18: the cluster schema applied node by node (--per-node), as configuration management
# does: every statement is the ON CLUSTER one without its clause, as the engine parses both.
@test "schema --per-node: statement by statement, the engine parses the ON CLUSTER schema minus its clause; it runs on a node, twice" {
    local name opt
    for name in c1 prod-ods '{cluster}'; do
        for opt in "" --replicated; do
            ods_ddl schema --cluster "$name" $opt | statements_tsv >on.tsv
            ods_ddl schema --cluster "$name" $opt --per-node | statements_tsv >pn.tsv
            [ "$(wc -l <on.tsv)" -eq 23 ] || { echo "$name $opt: statement count"; return 1; }
            [ "$(wc -l <pn.tsv)" -eq 23 ] || { echo "$name $opt: per-node statement count"; return 1; }
            run_split chlocal --no-udf -q "SELECT formatQuerySingleLine(q) FROM file('$PWD/on.tsv', TSV, 'q String') FORMAT TSVRaw"
            [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
            # every statement had its clause, as the engine reads it; removed, it is the per-node one
            [ "$(grep -c ' ON CLUSTER ' <<<"$output")" -eq 23 ] || { echo "$name $opt: ON CLUSTER count"; return 1; }
            sed -E 's/ ON CLUSTER (`[^`]*`|[^ ]+)//' <<<"$output" >on_minus.txt
            run_split chlocal --no-udf -q "SELECT formatQuerySingleLine(q) FROM file('$PWD/pn.tsv', TSV, 'q String') FORMAT TSVRaw"
            [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
            [ "$(grep -c 'ON CLUSTER' <<<"$output")" -eq 0 ] || { echo "$name $opt: clause left"; return 1; }
            diff on_minus.txt - <<<"$output" || { echo "$name $opt: differs"; return 1; }
        done
    done
    # usage: it needs --cluster, and it is for the schema only
    run_split ods_ddl schema --per-node
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ $stderr_text == *"--per-node needs --cluster"* ]]
    run_split ods_ddl transition --cluster c1 --per-node
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"--per-node applies to schema only"* ]]
    ods_ddl --help | grep -q -- '--per-node'
    # applied on a node whose config defines the cluster (and its Keeper, for the lease's
    # KeeperMap table), twice (IF NOT EXISTS): every table (23 statements, 2 of them databases),
    # the five Distributed ones over prod-ods
    local cfg
    cfg=$(keeper_cfg "$NAMES_FIX/prod-ods.xml")
    ods_ddl schema --cluster prod-ods --per-node >pn.sql
    chlocal --no-udf --config-file "$cfg" --path "$PWD/db" --queries-file pn.sql
    run_split chlocal --no-udf --config-file "$cfg" --path "$PWD/db" --queries-file pn.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_split chlocal --no-udf --config-file "$cfg" --path "$PWD/db" -q "
        SELECT countIf(engine = 'Distributed'), countIf(engine = 'KeeperMap'), count() FROM system.tables
        WHERE database IN ('ods', 'stg') FORMAT TSV"
    [ "$output" = "$(printf '5\t1\t21')" ]
}
