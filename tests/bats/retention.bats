#!/usr/bin/env bats
# retention: ods-ddl retention prints the query that prints the DROP PARTITION statements for what
# loads committed more than N days ago left in staging, the errors, the manifest and the fates;
# run on the embedded engine over loads sharing staging days with a load not committed, with a
# late row, and committed recently: only what may go goes, order_v and the ledger stay, and the
# retired load's id stays closed.
load helpers

ods_ddl() { "$BIN/ods-ddl" "$@"; }

# stage LOAD SEED DAY [N]: N (default 20) of orders-gen's messages under LOAD, staged on DAY
# (_load_ts), offsets from the seed so loads never share coordinates
stage() {
    "$BIN/orders-gen" --orders 30 --days 1 --seed "$2" | head -n "${4:-20}" >"gen-$1-$3.jsonl"
    chlocal --path db --param_load_id="$1" -q "
        INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        SELECT line, 'src', 0, $2 * 1000 + rowNumberInAllBlocks(), {load_id:String}, toDateTime64('$3 12:00:00', 3, 'UTC')
        FROM file('$PWD/gen-$1-$3.jsonl', LineAsString, 'line String') WHERE line != ''"
}
parts() { chlocal --path db -q "SELECT DISTINCT _partition_id FROM $1 ORDER BY 1" | tr '\n' ' '; }
loads_in() { chlocal --path db -q "SELECT DISTINCT _load_id FROM $1 ORDER BY 1" | tr '\n' ' '; }
kept_state() {
    chlocal --path db -q "SELECT * EXCEPT committed_at FROM ods.order_loads ORDER BY delta FORMAT TSV;
        SELECT * FROM ods.order_v ORDER BY order_id FORMAT TSV; SELECT count() FROM ods.order_snapshot_rep;
        SELECT count() FROM ods.order_snapshot_hot; SELECT * EXCEPT frozen_at FROM ods.order_frozen ORDER BY ALL FORMAT TSV"
}

@test "ods-ddl retention: drops only what old committed loads left, keeps shared days, late rows and recent loads, and the retired id stays closed" {
    ods_ddl schema >schema.sql
    chlocal --path db --queries-file schema.sql
    # A: day 1, with a rejected message; B: day 2 and a few rows on day 3, beside U (never run);
    # D: day 5; C: day 4, committed recently
    stage A 1 2026-01-01
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('not json', 'src', 0, 1999, 'A', toDateTime64('2026-01-01 12:00:00', 3, 'UTC'))"
    stage B 2 2026-01-02
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('not json either', 'src', 0, 2999, 'B', toDateTime64('2026-01-03 12:00:00', 3, 'UTC'))"
    stage U 3 2026-01-03
    stage D 5 2026-01-05
    stage C 4 2026-01-04
    for id in A B D C; do "$BIN/ods-load" --path db --load-id "$id" >/dev/null 2>&1; done
    chlocal --path db -q "ALTER TABLE ods.order_loads UPDATE committed_at = now64(3, 'UTC') - toIntervalDay(30)
        WHERE _load_id IN ('A', 'B', 'D') SETTINGS mutations_sync = 2"
    # a late row under D, on D's day
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('late', 'src', 0, 5999, 'D', toDateTime64('2026-01-05 13:00:00', 3, 'UTC'))"
    [ "$(parts stg.orders_raw)" = "20260101 20260102 20260103 20260104 20260105 " ]
    [ "$(loads_in ods.order_snapshot_errors)" = "A B " ]
    [ "$(loads_in ods.order_manifest)" = "A B C D " ]
    kept_state >before.tsv

    ods_ddl retention --keep-days 7 >retention.sql
    chlocal --path db --queries-file retention.sql >drops.sql
    cat drops.sql
    # staging days 1 and 2 (A's and B's alone), the errors days of A and B (1 and 3: errors go by
    # their load's age, whatever staging keeps), A's manifest and fates
    [ "$(grep -c 'ALTER TABLE stg.orders_raw DROP PARTITION ID' drops.sql)" -eq 2 ]
    [ "$(grep -c "^ALTER TABLE stg.orders_raw DROP PARTITION ID '2026010[12]';$" drops.sql)" -eq 2 ]
    [ "$(grep -c "^ALTER TABLE ods.order_snapshot_errors DROP PARTITION ID '2026010[13]';$" drops.sql)" -eq 2 ]
    [ "$(grep -c "^ALTER TABLE ods.order_manifest DROP PARTITION ID '[0-9a-f]*';$" drops.sql)" -eq 1 ]
    [ "$(grep -c "^ALTER TABLE ods.order_fates DROP PARTITION ID '[0-9a-f]*';$" drops.sql)" -eq 1 ]
    [ "$(wc -l <drops.sql)" -eq 6 ]
    chlocal --path db --queries-file drops.sql

    [ "$(parts stg.orders_raw)" = "20260103 20260104 20260105 " ]
    [ "$(loads_in stg.orders_raw)" = "B C D U " ]
    [ -z "$(loads_in ods.order_snapshot_errors)" ]
    [ "$(loads_in ods.order_manifest)" = "B C D " ]
    [ "$(loads_in ods.order_fates)" = "B C D " ]
    kept_state >after.tsv
    diff before.tsv after.tsv
    # the late row is still there and still named; A is committed, nothing staged
    ods_ddl status >status.sql
    chlocal --path db --queries-file status.sql --format TSVWithNames >status.tsv
    [ "$(awk -F'\t' '$1 == "D" { print $6 }' status.tsv)" = 1 ]
    [ "$(awk -F'\t' '$1 == "A" { print $2, $6, $NF }' status.tsv)" = "0 0 committed" ]
    # nothing more to drop until the shared day and the late row are dealt with
    chlocal --path db --queries-file retention.sql >drops2.sql
    [ ! -s drops2.sql ]
    # A's id stays closed: its rerun changes nothing, a row staged under it now is late
    run_split "$BIN/ods-load" --path db --load-id A
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    kept_state >after2.tsv
    diff before.tsv after2.tsv
    stage A 9 2026-02-01 1
    run_split "$BIN/ods-load" --path db --load-id A
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 1/12: 1 rows were staged under load A after it was frozen"* ]]
}

@test "ods-ddl retention: --keep-days is required, 1 to 36500, for retention only; --cluster drops the sharded tables ON CLUSTER, the name quoted inside the printed statement" {
    run_split ods_ddl retention
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "ods-ddl: retention needs --keep-days N: how many days committed loads keep their staging (try --help)" ]
    for bad in 0 36501 -3 7d ''; do
        run_split ods_ddl retention --keep-days "$bad"
        [ "$status" -eq 2 ]
        [[ $stderr_text == "ods-ddl: bad value for --keep-days: "* ]]
    done
    run_split ods_ddl status --keep-days 3
    [ "$status" -eq 2 ]
    run_split ods_ddl retention --keep-days 36500 --cluster prod-ods
    [ "$status" -eq 0 ]
    [[ $output == *"toIntervalDay(36500)"* ]]
    [ "$(grep -c "' ON CLUSTER \\\\'prod-ods\\\\''" <<<"$output")" -eq 2 ]
    [[ $output == *"FROM ods.order_loads_dist WHERE committed_at"* ]]
    # what it may drop: nothing of _rep, the hot table, the ledger or the seals
    [ "$(grep -o 'ALTER TABLE [a-z_.]*' <<<"$output" | sort -u | tr '\n' ' ')" = \
      "ALTER TABLE ods.order_fates ALTER TABLE ods.order_manifest ALTER TABLE ods.order_snapshot_errors ALTER TABLE ods.order_snapshot_stale ALTER TABLE stg.orders_raw " ]
}
