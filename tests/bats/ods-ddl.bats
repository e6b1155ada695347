#!/usr/bin/env bats
# ods-ddl: the generated schema, transition and Kafka reader run on the embedded engine (cluster
# variants parse), and the issue's four acceptance tests pass with the real order_wire_class UDF.
load helpers

FIX=$ROOT/tests/fixtures/ddl
STRUCT="raw String, _topic String, _partition UInt64, _offset UInt64, _timestamp_ms String, _key String, expect String"
COLS="order_id, user_id, status, created_at, updated_at, items_total, discount, delivery, total, items, snapshot_date, _load_id"

ods_ddl() { "$BIN/ods-ddl" "$@"; }

# The generator's statements, one a line, TSV-escaped, without comment lines: formatQuery input.
statements_tsv() {
    awk 'BEGIN { RS = ";\n" }
    {
        n = split($0, L, "\n"); s = ""
        for (i = 1; i <= n; i++) if (L[i] !~ /^--/ && L[i] != "") s = s (s == "" ? "" : "\n") L[i]
        if (s == "") next
        gsub(/\\/, "\\\\", s); gsub(/\t/, "\\t", s); gsub(/\n/, "\\n", s)
        print s
    }'
}

fx() { printf "file('%s/%s.tsv', TSVWithNames, '%s')" "$FIX" "$1" "$STRUCT"; }

# The schema, a stand-in for the Kafka table (a MergeTree with the Kafka virtual columns as real
# columns, so the generated one-batch INSERT runs unchanged; the generated CREATE … IF NOT EXISTS
# then leaves it alone), and the test's record of every delivered message.
setup_sql() {
    ods_ddl schema
    cat <<'SQL'
CREATE TABLE stg.orders_kafka (raw String, _topic LowCardinality(String), _partition UInt64,
    _offset UInt64, _timestamp_ms Nullable(DateTime64(3, 'UTC')), _key String)
ENGINE = MergeTree ORDER BY tuple();
CREATE DATABASE t;
CREATE TABLE t.delivered (raw String, _topic String, _partition UInt64, _offset UInt64,
    _timestamp_ms DateTime64(3, 'UTC'), _key String, expect String, load_id String, seq UInt32)
ENGINE = MergeTree ORDER BY tuple();
-- The current version by another route than FINAL: the valid messages typed with lenient
-- conversions (fine for valid text), the greatest updated_at, ties to the later load.
CREATE VIEW t.current AS
SELECT JSONExtractString(raw, 'order_id') AS order_id, JSONExtractUInt(raw, 'user_id') AS user_id,
    JSONExtractString(raw, 'status') AS status,
    parseDateTime64BestEffort(JSONExtractString(raw, 'created_at'), 3, 'UTC') AS created_at,
    parseDateTime64BestEffort(JSONExtractString(raw, 'updated_at'), 3, 'UTC') AS updated_at,
    toDecimal64(JSONExtractString(raw, 'items_total'), 2) AS items_total,
    toDecimal64(JSONExtractString(raw, 'discount'), 2) AS discount,
    toDecimal64(JSONExtractString(raw, 'delivery'), 2) AS delivery,
    toDecimal64(JSONExtractString(raw, 'total'), 2) AS total, JSONExtractRaw(raw, 'items') AS items,
    toDate(JSONExtractString(raw, 'snapshot_date')) AS snapshot_date, load_id AS _load_id
FROM t.delivered WHERE expect = ''
ORDER BY updated_at DESC, seq DESC LIMIT 1 BY order_id;
SQL
}

# deliver LOAD_ID SEQ FIXTURE [WHERE] [OFFSET_EXPR]: one Kafka batch through the generated
# one-batch INSERT (param load_id), then the generated transition for that load.
deliver() {
    local id=$1 seq=$2 f=$3 where=${4:-1} off=${5:-_offset}
    cat <<SQL
TRUNCATE TABLE stg.orders_kafka;
INSERT INTO stg.orders_kafka SELECT raw, _topic, _partition, $off, toDateTime64(_timestamp_ms, 3, 'UTC'), _key FROM $(fx "$f") WHERE $where;
INSERT INTO t.delivered SELECT raw, _topic, _partition, $off, toDateTime64(_timestamp_ms, 3, 'UTC'), _key, expect, '$id', $seq FROM $(fx "$f") WHERE $where;
SET param_load_id = '$id';
SQL
    ods_ddl kafka --brokers localhost:9092 --topic orders --group ods_test
    ods_ddl transition
}

# Checks print "name<TAB>1" when they hold; check_all fails unless every line does.
view_checks_sql() {
    local phase=$1
    cat <<SQL
SELECT '$phase view = greatest updated_at seen', (SELECT count() FROM (SELECT $COLS FROM ods.order_v EXCEPT SELECT $COLS FROM t.current)) = 0
    AND (SELECT count() FROM (SELECT $COLS FROM t.current EXCEPT SELECT $COLS FROM ods.order_v)) = 0;
SELECT '$phase one row per order_id', (SELECT count() FROM ods.order_v) = (SELECT uniqExact(JSONExtractString(raw, 'order_id')) FROM t.delivered WHERE expect = '')
    AND (SELECT count() FROM ods.order_v) = (SELECT uniqExact(order_id) FROM ods.order_v);
SELECT '$phase view _load_ts is its batch''s', (SELECT count() FROM ods.order_v WHERE (_load_id, _load_ts) NOT IN (SELECT _load_id, _load_ts FROM stg.orders_raw)) = 0;
SELECT '$phase versions of an order in one partition, the day of created_at', (SELECT count() FROM (SELECT order_id FROM ods.order_snapshot_rep GROUP BY order_id HAVING uniqExact(_partition_id) > 1)) = 0
    AND (SELECT countIf(_partition_id != formatDateTime(created_at, '%Y%m%d')) FROM ods.order_snapshot_rep) = 0;
SQL
}

check_all() {
    run_split chlocal --path db -q "$1"
    if [ "$status" -ne 0 ] || [ -z "$output" ] || grep -qv $'\t1$' <<<"$output"; then
        echo "status $status"; echo "$output"; echo "$stderr_text"
        return 1
    fi
}

# Keep every good row visible until OPTIMIZE: no collapse on insert, no background merge.
NO_MERGE="SYSTEM STOP MERGES ods.order_snapshot_rep;"
MERGE="SYSTEM START MERGES ods.order_snapshot_rep; OPTIMIZE TABLE ods.order_snapshot_rep FINAL;"

@test "--help goes to stdout, exit 0, and names every command and option" {
    run_split ods_ddl --help
    [ "$status" -eq 0 ]
    [ -z "$stderr_text" ]
    [[ "$output" == usage:\ ods-ddl* ]]
    for w in schema transition kafka --cluster --replicated --stg-db --ods-db --brokers --topic --group \
             order_snapshot_rep order_snapshot_errors order_v _dist "{load_id:String}" "order-snapshot-wire-v1"; do
        [[ "$output" == *"$w"* ]] || { echo "missing: $w"; return 1; }
    done
}

@test "usage errors exit 2 with one line on stderr and nothing on stdout" {
    for args in "--bogus" "" "frobnicate" "schema extra" "schema --cluster" "schema --replicated" \
                "transition --replicated --cluster c" "kafka --topic t --group g" \
                "kafka --brokers b:1 --topic t --group g --cluster c" "schema --topic t"; do
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
}

@test "names that are not plain identifiers and unsafe Kafka values are refused, exit 2" {
    long=$(printf 'a%.0s' {1..65})
    for v in "ods; DROP TABLE x" "a-b" "1abc" "" "x\`y" "o'ds" "a.b" "$long" "é"; do
        for opt in --stg-db --ods-db --cluster; do
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
}

@test "schema: every statement runs on one node, twice (idempotent), with the keys the issue asks for" {
    ods_ddl schema > schema.sql
    chlocal --no-udf --path db --queries-file schema.sql
    chlocal --no-udf --path db --queries-file schema.sql
    run_split chlocal --no-udf --path db -q "SELECT database, name, engine, engine_full FROM system.tables WHERE database IN ('stg', 'ods') ORDER BY database, name FORMAT TSV"
    [ "$status" -eq 0 ]
    echo "$output"
    [ "$(wc -l <<<"$output")" -eq 4 ]
    [[ "$output" == *$'ods\torder_snapshot_rep\tReplacingMergeTree\tReplacingMergeTree(updated_at) PARTITION BY toDate(created_at) ORDER BY order_id '* ]]
    [[ "$output" == *$'ods\torder_snapshot_errors\tMergeTree\tMergeTree PARTITION BY toDate(_load_ts) ORDER BY (_load_id, error_class, _topic, _partition, _offset) '* ]]
    [[ "$output" == *$'ods\torder_v\tView'* ]]
    [[ "$output" == *$'stg\torders_raw\tMergeTree\tMergeTree PARTITION BY toDate(_load_ts) ORDER BY (_load_id, _topic, _partition, _offset) '* ]]
    run_split chlocal --no-udf --path db -q "SELECT comment FROM system.tables WHERE database = 'ods' AND name = 'order_snapshot_rep'"
    [[ "$output" == *"order-snapshot-wire-v1"* ]]
    # The view and the table have the same columns: the 11 of the contract, _load_id, _load_ts.
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_v' ORDER BY position)"
    view_cols=$output
    run_split chlocal --no-udf --path db -q "SELECT groupArray(name) FROM (SELECT name FROM system.columns WHERE database = 'ods' AND table = 'order_snapshot_rep' ORDER BY position)"
    [ "$output" = "$view_cols" ]
    [ "$output" = "['order_id','user_id','status','created_at','updated_at','items_total','discount','delivery','total','items','snapshot_date','_load_id','_load_ts']" ]
    # One row per order even with versions in two partitions and a server that would not merge
    # across partitions in FINAL: the view sets it for itself.
    run_split chlocal --no-udf --path db -q "
        INSERT INTO ods.order_snapshot_rep (order_id, created_at, updated_at) VALUES ('A', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
        INSERT INTO ods.order_snapshot_rep (order_id, created_at, updated_at) VALUES ('A', '2026-01-02 00:00:00', '2026-01-03 00:00:00');
        SELECT count(), any(updated_at) FROM ods.order_v SETTINGS do_not_merge_across_partitions_select_final = 1"
    [ "$output" = "$(printf '1\t2026-01-03 00:00:00.000')" ]
    # Other database names work the same.
    ods_ddl schema --stg-db s2 --ods-db o2 > s2.sql
    chlocal --no-udf --path db --queries-file s2.sql
    run_split chlocal --no-udf --path db -q "SELECT count() FROM system.tables WHERE database IN ('s2', 'o2')"
    [ "$output" = "4" ]
}

@test "cluster variants: every statement parses, with ON CLUSTER, _dist tables and replica macros" {
    for v in "" "--replicated"; do
        ods_ddl schema --cluster c1 $v | statements_tsv > st.tsv
        ods_ddl transition --cluster c1 | statements_tsv >> st.tsv
        run_split chlocal --no-udf -q "SELECT formatQuerySingleLine(q) FROM file('$PWD/st.tsv', TSV, 'q String') FORMAT TSVRaw"
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        [ "$(wc -l <<<"$output")" -eq 10 ]
        [ "$(grep -c '^CREATE .* ON CLUSTER c1' <<<"$output")" -eq 8 ]
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_snapshot_dist ON CLUSTER c1 AS ods.order_snapshot_rep ENGINE = Distributed(c1, ods, order_snapshot_rep, cityHash64(order_id))$" <<<"$output"
        grep -q "^CREATE TABLE IF NOT EXISTS ods.order_snapshot_errors_dist ON CLUSTER c1 AS ods.order_snapshot_errors ENGINE = Distributed(c1, ods, order_snapshot_errors, " <<<"$output"
        grep -q "^CREATE VIEW IF NOT EXISTS ods.order_v ON CLUSTER c1 AS SELECT .* FROM ods.order_snapshot_dist FINAL" <<<"$output"
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_errors_dist ' <<<"$output")" -eq 1 ]
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_dist ' <<<"$output")" -eq 1 ]
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_errors_dist (.*) SETTINGS distributed_foreground_insert = 1 SELECT ' <<<"$output")" -eq 1 ]
        [ "$(grep -c '^INSERT INTO ods.order_snapshot_dist (.*) SETTINGS distributed_foreground_insert = 1, optimize_on_insert = 0 SELECT ' <<<"$output")" -eq 1 ]
        if [ -n "$v" ]; then
            grep -q "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/ods/order_snapshot_rep', '{replica}', updated_at)" <<<"$output"
            [ "$(grep -c "'/clickhouse/tables/{shard}/[a-z]*/[a-z_]*', '{replica}'" <<<"$output")" -eq 3 ]
        else
            run grep -c Replicated <<<"$output"
            [ "$output" = 0 ]
        fi
    done
}

@test "transition: the good branch is the literal negation of the bad one; both run" {
    run_split ods_ddl transition
    [ "$status" -eq 0 ]
    [ "$(grep -c '^INSERT INTO ' <<<"$output")" -eq 2 ]
    grep -qx "WHERE _load_id = {load_id:String} AND order_wire_class(raw) != '';" <<<"$output"
    grep -qx "WHERE _load_id = {load_id:String} AND NOT (order_wire_class(raw) != '');" <<<"$output"
    [ "$(grep -Eic "OrZero|OrNull|OrDefault|BestEffort|now64|now\(" <<<"$output")" -eq 0 ]
    ods_ddl schema > schema.sql
    chlocal --path db --queries-file schema.sql
    chlocal --path db --param_load_id=none -q "$output"
}

@test "kafka: the Kafka table is created and its one-batch INSERT runs (no broker: no rows)" {
    ods_ddl schema > schema.sql
    ods_ddl kafka --brokers 127.0.0.1:9 --topic orders --group ods_test > kafka.sql
    chlocal --no-udf --path db --queries-file schema.sql
    run_split chlocal --no-udf --path db --param_load_id=L0 --queries-file kafka.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_split chlocal --no-udf --path db -q "SELECT engine, count() FROM system.tables WHERE database = 'stg' AND name = 'orders_kafka' GROUP BY engine; SELECT count() FROM stg.orders_raw"
    [ "$output" = "$(printf 'Kafka\t1\n0')" ]
}

@test "the one-batch INSERT: one _load_ts per batch, coordinates kept, empty messages skipped" {
    sql="$(setup_sql)
$(deliver L1 1 batch)
SELECT 'one _load_ts for the batch', (SELECT uniqExact(_load_ts) FROM stg.orders_raw) = 1;
SELECT 'every non-empty message staged, raw and coordinates intact', (SELECT count() FROM stg.orders_raw AS s INNER JOIN t.delivered AS d
    ON s._topic = d._topic AND s._partition = d._partition AND s._offset = d._offset
    WHERE s.raw = d.raw AND s._timestamp = d._timestamp_ms AND s._key = d._key AND s._load_id = 'L1') = (SELECT countIf(raw != '') FROM t.delivered);
SELECT 'no empty message staged', (SELECT countIf(raw = '') FROM stg.orders_raw) = 0 AND (SELECT countIf(raw = '') FROM t.delivered) = 1;"
    check_all "$sql"
}

@test "every sql_extract yields exactly the value the contract's text denotes, or throws" {
    tr=$(ods_ddl transition)
    sql="CREATE DATABASE t; CREATE TABLE t.x ENGINE = Memory AS SELECT n, key, expect,
        if(json = 'MISSING', '{\"other\":1}', concat('{\"', key, '\":', json, '}')) AS raw
        FROM file('$FIX/extract.tsv', TSVWithNames, 'n UInt32, key String, json String, expect String');"
    want=""
    while IFS=$'\t' read -r n key json expect; do
        [ "$n" = n ] && continue
        e=$(sed -n "s/^    \(.*\) AS $key,\$/\1/p" <<<"$tr")
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

# Acceptance 1: one row per error class, an empty message, two versions of ORD-0001.
@test "acceptance 1: good + bad = non-empty messages, bad rows exact, order_v the newer version (4 ways, before and after OPTIMIZE FINAL)" {
    newer="JSONExtractString(raw, 'updated_at') = '2026-01-05T10:14:03.001Z'"
    for variant in one-natural one-reversed two-older-first two-newer-first; do
        rm -rf db
        case $variant in
            one-natural) loads=$(deliver L1 1 batch) ;;
            one-reversed) loads=$(deliver L1 1 batch 1 "1000 - _offset") ;;
            two-older-first) loads="$(deliver L1 1 batch "NOT ($newer)")
$(deliver L2 2 batch "$newer")" ;;
            two-newer-first) loads="$(deliver L1 1 batch "$newer")
$(deliver L2 2 batch "NOT ($newer)")" ;;
        esac
        sql="$(setup_sql)
$NO_MERGE
$loads
SELECT '$variant: good + bad = non-empty messages', (SELECT count() FROM ods.order_snapshot_errors) + (SELECT count() FROM ods.order_snapshot_rep) = (SELECT countIf(raw != '') FROM t.delivered);
SELECT '$variant: both versions stored unmerged', (SELECT count() FROM ods.order_snapshot_rep WHERE order_id = 'ORD-0001') = 2;
SELECT '$variant: each bad row: class, raw bytes, coordinates, load', (SELECT count() FROM ods.order_snapshot_errors AS e INNER JOIN t.delivered AS d
    ON e._topic = d._topic AND e._partition = d._partition AND e._offset = d._offset
    WHERE e.raw = d.raw AND e.error_class = d.expect AND e._timestamp = d._timestamp_ms AND e._key = d._key AND e._load_id = d.load_id)
    = (SELECT count() FROM ods.order_snapshot_errors)
    AND (SELECT count() FROM ods.order_snapshot_errors) = (SELECT countIf(expect IN ('not_an_object', 'keyset_mismatch', 'field_invalid')) FROM t.delivered)
    AND (SELECT uniqExact(error_class) FROM ods.order_snapshot_errors) = 3;
SELECT '$variant: _load_id and _load_ts copied from stg', (SELECT count() FROM ods.order_snapshot_errors WHERE (_load_id, _load_ts) NOT IN (SELECT _load_id, _load_ts FROM stg.orders_raw)) = 0
    AND (SELECT count() FROM ods.order_snapshot_rep WHERE (_load_id, _load_ts) NOT IN (SELECT _load_id, _load_ts FROM stg.orders_raw)) = 0;
SELECT '$variant: order_v has the newer ORD-0001', (SELECT status, updated_at FROM ods.order_v WHERE order_id = 'ORD-0001')
    = (SELECT JSONExtractString(raw, 'status'), parseDateTime64BestEffort(JSONExtractString(raw, 'updated_at'), 3, 'UTC') FROM t.delivered WHERE _key = 'ORD-0001' AND $newer);
$(view_checks_sql "$variant before OPTIMIZE:")
$MERGE
SELECT '$variant: merged to one row per order_id', (SELECT count() FROM ods.order_snapshot_rep) = (SELECT uniqExact(order_id) FROM ods.order_snapshot_rep);
$(view_checks_sql "$variant after OPTIMIZE:")"
        check_all "$sql"
    done
}

# Acceptance 2: the same transition twice with the same _load_id.
@test "acceptance 2: a repeated transition leaves order_v and its _load_ts unchanged; one partition per order" {
    sql="$(setup_sql)
$NO_MERGE
$(deliver L1 1 batch)
CREATE TABLE t.v1 ENGINE = Memory AS SELECT * FROM ods.order_v;
$(ods_ddl transition)
SELECT 'rows written twice', (SELECT count() FROM ods.order_snapshot_rep) = 2 * (SELECT countIf(expect = '') FROM t.delivered);
SELECT 'order_v unchanged, _load_ts included', (SELECT count() FROM (SELECT * FROM ods.order_v EXCEPT SELECT * FROM t.v1)) = 0
    AND (SELECT count() FROM (SELECT * FROM t.v1 EXCEPT SELECT * FROM ods.order_v)) = 0
    AND (SELECT count() FROM t.v1) = (SELECT uniqExact(JSONExtractString(raw, 'order_id')) FROM t.delivered WHERE expect = '');
SELECT 'errors recorded again, same load and coordinates', (SELECT count(), uniqExact(_topic, _partition, _offset), uniqExact(_load_id) FROM ods.order_snapshot_errors)
    = (SELECT 2 * count(), count(), 1 FROM t.delivered WHERE expect IN ('not_an_object', 'keyset_mismatch', 'field_invalid'));
$(view_checks_sql "before OPTIMIZE:")
$MERGE
SELECT 'after OPTIMIZE: order_v unchanged', (SELECT count() FROM (SELECT * FROM ods.order_v EXCEPT SELECT * FROM t.v1)) = 0
    AND (SELECT count() FROM (SELECT * FROM t.v1 EXCEPT SELECT * FROM ods.order_v)) = 0;
$(view_checks_sql "after OPTIMIZE:")"
    check_all "$sql"
}

# Acceptance 3: three nightly loads of overlapping snapshots.
@test "acceptance 3: three overlapping loads: one row per order, the greatest updated_at, none deleted" {
    sql="$(setup_sql)
$(deliver N1 1 load1)
$(deliver N2 2 load2)
$(deliver N3 3 load3)
SELECT 'the fixture overlaps: versions delivered again, orders missing from later loads', (SELECT count() FROM (SELECT raw FROM t.delivered GROUP BY JSONExtractString(raw, 'order_id'), JSONExtractString(raw, 'updated_at'), raw HAVING count() > 1)) = 0
    AND (SELECT count() FROM (SELECT 1 FROM t.delivered GROUP BY JSONExtractString(raw, 'order_id'), JSONExtractString(raw, 'updated_at') HAVING uniqExact(load_id) > 1)) > 0
    AND (SELECT count() FROM (SELECT JSONExtractString(raw, 'order_id') AS o FROM t.delivered GROUP BY o HAVING max(seq) < 3)) > 0;
SELECT 'orders absent from later snapshots kept', (SELECT count() FROM t.delivered WHERE JSONExtractString(raw, 'order_id') NOT IN (SELECT order_id FROM ods.order_v)) = 0;
SELECT 'all good rows landed', (SELECT count() FROM ods.order_snapshot_errors) = 0;
$(view_checks_sql "before OPTIMIZE:")
$MERGE
$(view_checks_sql "after OPTIMIZE:")"
    check_all "$sql"
}

# Acceptance 4: a date a lenient conversion would silently "correct".
@test "acceptance 4: snapshot_date 2026-02-30 lands in the errors table as field_invalid, not in the ODS" {
    sql="$(setup_sql)
$(deliver D1 1 dirty_date)
SELECT 'a lenient conversion would store another day', (SELECT toString(toDate(JSONExtractString(raw, 'snapshot_date'))) != JSONExtractString(raw, 'snapshot_date') FROM t.delivered WHERE _key = 'ORD-2001');
SELECT 'the dirty row is an error, field_invalid, raw intact', (SELECT error_class, raw FROM ods.order_snapshot_errors WHERE _key = 'ORD-2001')
    = (SELECT 'field_invalid', raw FROM t.delivered WHERE _key = 'ORD-2001') AND (SELECT count() FROM ods.order_snapshot_errors) = 1;
SELECT 'the dirty row is not in the ODS, the clean one is', (SELECT groupArray(order_id) FROM ods.order_snapshot_rep) = ['ORD-2002'];"
    check_all "$sql"
    # Had the classifier let it through, the typed insert would fail loudly, storing nothing.
    good=$(ods_ddl transition | awk 'BEGIN { RS = ";\n" } /INSERT INTO ods.order_snapshot_rep/' | sed "s/ AND NOT (order_wire_class(raw) != '')//")
    run_split chlocal --path db --param_load_id=D1 -q "$good"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"CANNOT_PARSE_DATETIME"* ]]
    run_split chlocal --path db -q "SELECT count() FROM ods.order_snapshot_rep"
    [ "$output" = 1 ]
}

@test "an empty raw that reaches stg by another path is kept, as not_an_object" {
    sql="$(ods_ddl schema)
INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
    VALUES ('', 'orders', 0, 1, NULL, '', 'E1', '2026-01-01 00:00:00.000');
SET param_load_id = 'E1';
$(ods_ddl transition)
SELECT 'empty raw is an error, not_an_object', (SELECT groupArray((raw, error_class, _offset)) FROM ods.order_snapshot_errors) = [('', 'not_an_object', 1)]
    AND (SELECT count() FROM ods.order_snapshot_rep) = 0;"
    check_all "$sql"
}
