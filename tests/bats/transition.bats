#!/usr/bin/env bats
# transition: the 12 statements that move one load into the ODS, run on the embedded engine with
# the real UDFs, keep every promise of issues 13, 14 and 24 and the acceptance tests of issue 12:
# every message stored once or rejected once (_hashdiff the native SQL over the canonical texts;
# only changes stored, --store every keeps every version; stale messages and ties), every rerun
# converges to one clean run (after success, after an interruption in the middle of any INSERT,
# with rows staged before the freeze; rows staged after it are refused, then moved), order_v shows
# a load all at once at its commit, the ledger adds up on every committed load, one transition at
# a time (the lease), any span of created_at (1900-2299), and the cluster variant reads the shards.
load helpers
load ods_sql

# The transitions this suite runs have the gate as one INSERT (ods_ddl_one_gate); where the pieces
# are the point a test names them, and the text checks read the default.
ods_ddl() { ods_ddl_one_gate "$@"; }

WIRE_FIELDS=$BUILD_DIR/tests/helpers/wire_fields
# The good branch's INSERT: into the gate, in both modes (its views write the hot table, the stale records, the fates).
GOOD_CHANGES=ods.order_gate GOOD_EVERY=ods.order_gate

# tr_pick K… < TRANSITION: statements K… of a generated transition (or abandon, move-late), each
# from its "-- K. " line to the next one; the header comment before statement 1 is left out.
tr_pick() { awk -v want=" $* " '/^-- [0-9]+\. / { k = $2 + 0 } k && index(want, " " k " ")'; }

# small_writes < TRANSITION: the transition without its write settings (the freeze's and the
# gate's INSERTs set their own block size, which would override a session's), for the tests that
# cut an INSERT part-way and need its rows written in the session's small blocks.
small_writes() {
    sed -e '/^SETTINGS /s/, max_insert_threads = 4, min_insert_block_size_rows = 262144//'
}

# Where the stored versions are. A transition writes its load's versions to
# ods.order_snapshot_hot and commits the load to the ledger ods.order_loads (from then on order_v
# shows them); the NEXT transition, of any load not committed yet, folds the hot rows of every
# committed load into ods.order_snapshot_rep (its statement 7), and the one after that deletes
# them from the hot table. So after a test's last transition its last load's versions are in the
# hot table only. fold_sql [ODS_DB [STG_DB]] prints that fold alone, standing for the next
# transition: a test that reads order_snapshot_rep for every stored version runs it after its
# last transition. The fold runs under the lease only, so it is statements 2 (take it), 7 and 12
# (release it), for load 'next', which no test stages or commits (and which stays the session's
# load_id afterwards).
fold_sql() {
    echo "SET param_load_id = 'next';"
    ods_ddl transition --ods-db "${1:-ods}" --stg-db "${2:-stg}" | tr_pick 2 7 12
}

# uncommitted_sql [OPTION…]: the transition up to its commit (statements 1 to 9), i.e. a run that
# died before the commit: the load is frozen, its versions are in the hot table, not visible, and
# the run still holds the lease, so whatever runs next must first clear it as an operator does,
# with DROP TABLE IF EXISTS ods.order_lease (each test says so where it does).
uncommitted_sql() { ods_ddl transition "$@" | tr_pick 1 2 3 4 5 6 7 8 9; }

# refused K REMEDY…: the last run_split failed at transition statement K, with a message that
# says "transition K/12: " and names each REMEDY (the words of what to do next); and every
# "transition N/12: " message it printed names some remedy.
refused() {
    local k=$1 r msg
    shift
    [ "$status" -eq 1 ] || { echo "status $status, expected a refusal at $k/12"; echo "$stderr_text"; return 1; }
    [[ "$stderr_text" == *"transition $k/12: "* ]] || { echo "not refused at $k/12: $stderr_text"; return 1; }
    for r in "$@"; do
        [[ "$stderr_text" == *"$r"* ]] || { echo "no '$r' in: $stderr_text"; return 1; }
    done
    while IFS= read -r msg; do
        grep -qE 'rerun|run (the|its) transition|run that load|DROP TABLE IF EXISTS [a-z0-9_]+\.order_lease|ods-ddl (abandon|move-late|stage)|--allow-empty|--param_load_id|Delete the wrong copies' <<<"$msg" ||
            { echo "no remedy named: $msg"; return 1; }
    done < <(grep -o 'transition [0-9]*/12: .*' <<<"$stderr_text" | sed 's/: while executing .*//')
}

# run_sql SQL [OPTION…]: run_split chlocal --path db [OPTION…] on SQL, through a file (a
# command-line argument holds at most 128 KiB).
run_sql() {
    printf '%s\n' "$1" >run.sql
    shift
    run_split chlocal --path db "$@" --queries-file run.sql
}

# Keep every good row visible until OPTIMIZE: no collapse on insert, no background merge.
NO_MERGE="SYSTEM STOP MERGES ods.order_snapshot_rep;"
MERGE="SYSTEM START MERGES ods.order_snapshot_rep; OPTIMIZE TABLE ods.order_snapshot_rep FINAL;"

# view_checks_sql PHASE [VIEW]: VIEW is the test's current version (t.current, or t.current_every).
view_checks_sql() {
    local phase=$1 view=${2:-t.current}
    cat <<SQL
SELECT '$phase view = greatest updated_at seen', (SELECT count() FROM (SELECT $COLS FROM ods.order_v EXCEPT SELECT $COLS FROM $view)) = 0
    AND (SELECT count() FROM (SELECT $COLS FROM $view EXCEPT SELECT $COLS FROM ods.order_v)) = 0;
SELECT '$phase one row per order_id', (SELECT count() FROM ods.order_v) = (SELECT uniqExact(JSONExtractString(raw, 'order_id')) FROM t.delivered WHERE expect = '')
    AND (SELECT count() FROM ods.order_v) = (SELECT uniqExact(order_id) FROM ods.order_v);
SELECT '$phase view _load_ts is its batch''s', (SELECT count() FROM ods.order_v WHERE (_load_id, _load_ts) NOT IN (SELECT _load_id, _load_ts FROM stg.orders_raw)) = 0;
SELECT '$phase versions of an order in one partition, the day of created_at', (SELECT count() FROM (SELECT order_id FROM ods.order_snapshot_rep GROUP BY order_id HAVING uniqExact(_partition_id) > 1)) = 0
    AND (SELECT countIf(_partition_id != formatDateTime(created_at, '%Y%m%d')) FROM ods.order_snapshot_rep) = 0;
SQL
}

# --- The convergence tests: a treated ODS (stg/ods) against a clean reference (s2/o2) in one
# chlocal process with merges stopped, so the physical rows are compared, not just FINAL.

# The schema twice, merges stopped for the whole process on the tables whose physical rows the
# tests compare (staging, _rep, errors, ledger, manifest), not on the hot tables: the transition's
# housekeeping is a mutation it waits for (mutations_sync = 2), which a table with merges stopped
# never runs (the transition would wait forever); a plain MergeTree's merges keep every row anyway.
# (abandon and move-late mutate the staging and the manifest: a test runs them in a process of
# their own.) The manifest stays in the parts the freeze wrote: a sort over one merged part hands
# its rows on in one block, whatever max_block_size says, and an interruption in the middle of an
# INSERT that reads the manifest needs them in small blocks. stop_merges_sql is that part alone,
# for a later process on the same pair.
two_pairs_sql() {
    ods_ddl schema
    ods_ddl schema --stg-db s2 --ods-db o2
    stop_merges_sql
}
stop_merges_sql() {
    local t
    for t in stg.orders_raw ods.order_snapshot_rep ods.order_snapshot_errors ods.order_loads ods.order_manifest \
             s2.orders_raw o2.order_snapshot_rep o2.order_snapshot_errors o2.order_loads o2.order_manifest; do
        echo "SYSTEM STOP MERGES $t;"
    done
}

# stage_fx DB LOAD FIXTURE LOAD_TS [WHERE]: a fixture's non-empty messages staged as the one-batch
# INSERT would, with a fixed _load_ts (so two databases can hold identical batches).
stage_fx() {
    echo "INSERT INTO $1.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
SELECT raw, _topic, _partition, _offset, toDateTime64(_timestamp_ms, 3, 'UTC'), _key, '$2', '$4' FROM $(fx "$3") WHERE raw != '' AND (${5:-1});"
}

# stage_lines DB LOAD FILE LOAD_TS FIRST_OFFSET [WHERE]: orders-gen lines staged with offsets
# FIRST_OFFSET, FIRST_OFFSET+1, … in file order (empty messages skipped, as the one-batch INSERT
# does). STAGE_SETTINGS (e.g. small blocks, so staging holds many small parts) is appended.
STAGE_SETTINGS="max_threads = 1, input_format_parallel_parsing = 0"
stage_lines() {
    echo "INSERT INTO $1.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
SELECT raw, 'orders', 0, _offset, NULL, '', '$2', '$4'
FROM (SELECT raw, $5 + rowNumberInAllBlocks() AS _offset FROM file('$PWD/$3', LineAsString, 'raw String'))
WHERE raw != '' AND (${6:-1}) SETTINGS $STAGE_SETTINGS;"
}

# dump_sql ODS_DB PREFIX: each table's and order_v's full contents, sorted, into PREFIX.NAME.tsv;
# the ledger and the seals without their clock columns (committed_at, frozen_at).
DUMPED="order_snapshot_rep order_snapshot_errors order_snapshot_hot order_snapshot_stale order_loads order_manifest order_frozen order_v"
dump_sql() {
    local t but
    for t in $DUMPED; do
        case $t in order_loads) but="EXCEPT committed_at" ;; order_frozen) but="EXCEPT frozen_at" ;; *) but="" ;; esac
        echo "SELECT * $but FROM $1.$t ORDER BY ALL INTO OUTFILE '$PWD/$2.$t.tsv' TRUNCATE FORMAT TSV;"
    done
}

# same_dumps: the treated dumps (a.*) equal the clean ones (b.*), byte for byte, and hold rows
# (but the stale messages: a test's loads may have none).
same_dumps() {
    local t
    for t in $DUMPED; do
        [ -s "a.$t.tsv" ] || [ "$t" = order_snapshot_stale ] || { echo "a.$t.tsv is empty"; return 1; }
        diff "a.$t.tsv" "b.$t.tsv" || { echo "$t differs from the clean run"; return 1; }
    done
}

@test "the 12 statements: lease, checks, freeze, seal, housekeeping, fold, errors, good (the literal negation), commit; every mode runs them on real rows" {
    # --store changes and --typing udf are the defaults
    diff <("$BIN/ods-ddl" transition) <("$BIN/ods-ddl" transition --store changes --typing udf)
    sql=""
    for mode in changes/udf every/udf changes/sql every/sql; do
        store=${mode%/*} typing=${mode#*/}
        run_split "$BIN/ods-ddl" transition --store "$store" --typing "$typing"
        [ "$status" -eq 0 ]
        tr=$output
        good=$GOOD_EVERY; [ "$store" = every ] || good=$GOOD_CHANGES
        # 12 statements; the freeze (4) and the gate (9) are 16 INSERTs each, their pieces
        [ "$(statements_tsv <<<"$tr" | wc -l)" -eq 42 ]
        [ "$(grep -c '^-- [0-9]*\. ' <<<"$tr")" -eq 12 ]
        [ "$(statements_tsv <<<"$tr" | awk '{ print $1, ($1 == "WITH" ? "(check)" : $2 " " $3) }' | paste -sd '|')" = "WITH (check)|CREATE TABLE ods.order_lease|WITH (check)|$(printf "INSERT INTO ods.order_manifest|%.0s" $(seq 16))INSERT INTO ods.order_frozen|ALTER TABLE ods.order_snapshot_hot|INSERT INTO ods.order_snapshot_rep|INSERT INTO ods.order_snapshot_errors|$(printf "INSERT INTO $good|%.0s" $(seq 16))INSERT INTO ods.order_loads|WITH (check)|DROP TABLE IF" ]
        # the classifier runs once per message, in the freeze, once in each of its pieces (udf:
        # order_wire_parse also types it; sql: order_wire_class, the typing SQL in the good
        # INSERT reads the kept raw)
        [ "$(statements_tsv <<<"$tr" | grep -o "order_wire_parse" | wc -l)" -eq "$([ "$typing" = udf ] && echo 16 || echo 0)" ]
        [ "$(statements_tsv <<<"$tr" | grep -o "order_wire_class" | wc -l)" -eq "$([ "$typing" = udf ] && echo 0 || echo 16)" ]
        [ "$(tr_pick 4 <<<"$tr" | grep -Ec "order_wire_(parse|class)\(raw\)")" -eq 16 ]
        # the errors and the good INSERT read the manifest only, never the staging
        for k in 8 9; do
            [ "$(tr_pick "$k" <<<"$tr" | grep -c 'FROM ods.order_manifest$')" -ge 1 ] || { echo "$mode: $k reads no manifest"; return 1; }
            [ "$(tr_pick "$k" <<<"$tr" | grep -c 'stg\.orders_raw')" -eq 0 ] || { echo "$mode: $k reads the staging"; return 1; }
        done
        # the predicate, bare in the errors INSERT's WHERE, negated in the good one's (in each of
        # its 16 pieces: the messages, and the two reads that find later receipts); nowhere else
        [ "$(tr_pick 8 <<<"$tr" | grep -cx "  AND error_class != '';")" -eq 1 ]
        [ "$(tr_pick 8 <<<"$tr" | grep -c "error_class != ''")" -eq 1 ]
        [ "$(tr_pick 9 <<<"$tr" | sed 's/^ *//' | grep -cxF "WHERE _load_id = {load_id:String} AND NOT (error_class != '') AND _bucket >= _lo AND _bucket < _hi")" -eq 48 ]
        [ "$(tr_pick 9 <<<"$tr" | grep -v "NOT (error_class != '')" | grep -c "error_class")" -eq 0 ]
        # what fold_sql runs: the fold of the hot table into order_snapshot_rep, no classifying
        [ "$(tr_pick 7 <<<"$tr" | grep -cx 'FROM ods.order_snapshot_hot')" -eq 1 ]
        [ "$(tr_pick 7 <<<"$tr" | grep -c 'order_wire_\|manifest')" -eq 0 ]
        # a committed load: every writing statement but the lease's does nothing
        for k in 4 5 6 7 8 9 10; do
            [ "$(tr_pick "$k" <<<"$tr" | grep -c "{load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads)")" -ge 1 ] ||
                { echo "$mode: statement $k has no committed-load guard"; return 1; }
        done
        # store changes: the gate's joined side (the prior) and the prior's order_id set carry the
        # guard too, so such a rerun does not read the prior; and in both modes the set of the
        # load's own hot rows (what an earlier run stored), one in each of the 16 INSERTs
        [ "$(tr_pick 9 <<<"$tr" | awk '/^INSERT/ { j = 0 } /^ *LEFT JOIN/ { j = 1 } j' | grep -c "{load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads)")" -eq "$([ "$store" = changes ] && echo 32 || echo 0)" ]
        [ "$(tr_pick 9 <<<"$tr" | grep -c "^    _fate = 'stored' AND (order_id, updated_at, _hashdiff) NOT IN (SELECT order_id, updated_at, _hashdiff FROM ods.order_snapshot_hot WHERE .* AND {load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads)) AS _put_hot,$")" -eq 16 ]
        # every statement that writes after the lease is taken checks it holds it (each INSERT
        # of the freeze and of the gate), but the housekeeping (it deletes only what _rep already
        # holds) and the release
        for k in 3 4 5 7 8 9 10 11; do
            [ "$(tr_pick "$k" <<<"$tr" | grep -c "transition $k/12: this run of load .* does not hold the lease")" -eq "$([ "$k" = 9 ] || [ "$k" = 4 ] && echo 16 || echo 1)" ] ||
                { echo "$mode: statement $k does not check the lease"; return 1; }
        done
        [ "$(tr_pick 6 12 <<<"$tr" | grep -c "order_lease_v")" -eq 0 ]
        [ "$(grep -Eic "OrZero|OrNull|OrDefault|BestEffort|now\(" <<<"$tr")" -eq 0 ]
        # the clock: read by the lease, the seal and the commit only, never by the branches
        [ "$(grep -c "now64(3, 'UTC')" <<<"$tr")" -eq 3 ]
        [ "$(tr_pick 2 5 10 <<<"$tr" | grep -c "now64(3, 'UTC')")" -eq 3 ]
        # every check names its statement and what to do
        [ "$(grep -o "transition [0-9]*/12: " <<<"$tr" | sort -u | paste -sd ' ')" = "transition 1/12:  transition 10/12:  transition 11/12:  transition 3/12:  transition 4/12:  transition 5/12:  transition 7/12:  transition 8/12:  transition 9/12: " ]
        # each mode's ODS: the batch fixture, through all 12 statements
        db=o_${store}_$typing
        sql+="
$(ods_ddl schema --stg-db "s_${store}_$typing" --ods-db "$db")
$(stage_fx "s_${store}_$typing" M batch '2026-01-05 10:30:00')
SET param_load_id = 'M';
$("$BIN/ods-ddl" transition --store "$store" --typing "$typing" --stg-db "s_${store}_$typing" --ods-db "$db")
SELECT '$mode: the load committed, no lease left', (SELECT groupArray((delta, _load_id)) FROM $db.order_loads) = [(1, 'M')]
    AND (SELECT count() FROM $db.order_lease_v) = 0 AND (SELECT count() FROM system.tables WHERE database = '$db' AND name = 'order_lease') = 0;
SELECT '$mode: 3 rejected, 3 accepted and stored, 1 frozen load of 6 messages', (SELECT rejected, accepted, stored, received, redelivered FROM $db.order_loads) = (3, 3, 3, 6, 0)
    AND (SELECT count() FROM $db.order_snapshot_errors) = 3 AND (SELECT count() FROM $db.order_manifest) = 6
    AND (SELECT groupArray((_load_id, staged, messages)) FROM $db.order_frozen) = [('M', 6, 6)];
$(ledger_sql "$db")"
    done
    sql+="
SELECT 'udf and sql typing: the same versions', (SELECT count() FROM (SELECT * FROM o_changes_udf.order_snapshot_hot EXCEPT SELECT * FROM o_changes_sql.order_snapshot_hot)) = 0
    AND (SELECT count() FROM (SELECT * FROM o_every_udf.order_snapshot_hot EXCEPT SELECT * FROM o_every_sql.order_snapshot_hot)) = 0
    AND (SELECT count() FROM o_changes_sql.order_snapshot_hot) = 3 AND (SELECT count() FROM o_every_sql.order_snapshot_hot) = 3;"
    check_all "$sql"
}

@test "--allow-empty: a load with no staged rows is refused at 1/12 (the loads staged and not committed named), writing nothing; with it, it commits zeros, once" {
    chlocal --path db -q "$(ods_ddl schema)
$(stage_fx stg E1 batch '2026-01-05 10:30:00')"
    ods_ddl transition >tr.sql
    ods_ddl transition --allow-empty >empty.sql
    run_split chlocal --path db --param_load_id=E0 --queries-file tr.sql
    refused 1 "no rows are staged under load E0" "Staged and not committed: E1." "--allow-empty"
    # refused before the lease: nothing frozen, nothing committed, no lease to clear
    run_split chlocal --path db -q "SELECT (SELECT count() FROM ods.order_loads), (SELECT count() FROM ods.order_frozen), (SELECT count() FROM ods.order_manifest),
        (SELECT count() FROM system.tables WHERE database = 'ods' AND name = 'order_lease') FORMAT TSV"
    [ "$output" = "$(printf '0\t0\t0\t0')" ]
    # with --allow-empty: a ledger row of zeros, a seal of nothing; the rerun writes nothing; a
    # load with rows runs with the option as without it
    chlocal --path db --param_load_id=E0 --queries-file empty.sql
    chlocal --path db --param_load_id=E0 --queries-file empty.sql
    chlocal --path db --param_load_id=E1 --queries-file empty.sql
    run_split chlocal --path db -q "SELECT * EXCEPT (committed_at, wire_contract, hashdiff_profile) FROM ods.order_loads ORDER BY delta FORMAT TSV;
        SELECT _load_id, staged, messages FROM ods.order_frozen ORDER BY ALL FORMAT TSV;
        SELECT count() FROM ods.order_lease_v FORMAT TSV"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    diff - <(printf '%s\n' "$output") <<'TSV'
1	E0	0	0	0	0	0	0	0	0	0	0
2	E1	6	0	3	3	0	0	3	1	1	1
E0	0	0
E1	6	6
0
TSV
    check_all "$(ledger_sql)"
}

@test "redelivered: a copy at the same coordinates with the same bytes counts once, as redelivered in the ledger; every table holds what one delivery gives" {
    # R1's batch, then most of it again (a consumer that re-read its batch after a rebalance),
    # against the clean reference (o2) that received it once
    sql="$(two_pairs_sql)
$(stage_fx stg R1 batch '2026-01-05 10:30:00')
$(stage_fx stg R1 batch '2026-01-05 10:45:00' "_key != 'ORD-0002'")
$(stage_fx s2 R1 batch '2026-01-05 10:30:00')
SET param_load_id = 'R1';
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)
SELECT 'staged: 6 messages, 5 of them twice', (SELECT count(), uniqExact(_topic, _partition, _offset) FROM stg.orders_raw) = (11, 6);
SELECT 'the ledger: received every copy, redelivered the 5 copies, the rest as one delivery',
    (SELECT received, redelivered FROM ods.order_loads) = (11, 5) AND (SELECT received, redelivered FROM o2.order_loads) = (6, 0)
    AND (SELECT * EXCEPT (committed_at, received, redelivered) FROM ods.order_loads) = (SELECT * EXCEPT (committed_at, received, redelivered) FROM o2.order_loads);
SELECT 'the seal: 11 staged, 6 messages', (SELECT _load_id, staged, messages FROM ods.order_frozen) = ('R1', 11, 6);
$(ledger_sql ods o2)
$(fold_sql)
$(fold_sql o2 s2)
$(dump_sql ods a)
$(dump_sql o2 b)"
    check_all "$sql"
    # every other table as the single delivery left it: the first received copy of each message
    DUMPED="order_snapshot_rep order_snapshot_errors order_snapshot_hot order_snapshot_stale order_manifest order_v"
    same_dumps
    [ "$(wc -l <a.order_snapshot_errors.tsv)" -eq 3 ]
}

# Acceptance 1: one row per error class, an empty message, two versions of ORD-0001.
@test "acceptance 1: every message rejected or accepted, accepted = stored + unchanged + stale (--store every: good + bad = non-empty); bad rows exact; order_v the newer version (4 ways x 2 modes, before and after OPTIMIZE FINAL)" {
    newer="JSONExtractString(raw, 'updated_at') = '2026-01-05T10:14:03.001Z'"
    for STORE in changes every; do
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
            # Only the older ORD-0001 arriving after the newer one is stale, under --store changes.
            case $STORE/$variant in
                changes/two-newer-first) stale=1 ord1=1 view=t.current ;;
                changes/*) stale=0 ord1=2 view=t.current ;;
                every/*) stale=0 ord1=2 view=t.current_every ;;
            esac
            tag="$STORE $variant"
            # the ledger's figures, summed over the loads (every: each load's versions stored once,
            # its further copies unchanged, none stale)
            if [ "$STORE" = every ]; then
                fates="(SELECT countIf(nth_same = 1), countIf(nth_same > 1), 0 FROM t.typed)"
            else
                fates="(SELECT countIf(fate = 'stored'), countIf(fate = 'unchanged'), countIf(fate = 'stale') FROM t.typed)"
            fi
            if [ "$STORE" = every ]; then
                stored_sql="SELECT '$tag: good + bad + copies = non-empty messages', (SELECT count() FROM ods.order_snapshot_errors) + (SELECT count() FROM ods.order_snapshot_rep) + (SELECT countIf(nth_same > 1) FROM t.typed) = (SELECT countIf(raw != '') FROM t.delivered);
SELECT '$tag: the stored rows are the accepted versions, each load''s once', (SELECT count() FROM (SELECT $COLS FROM ods.order_snapshot_rep EXCEPT SELECT $COLS FROM t.typed WHERE nth_same = 1)) = 0
    AND (SELECT count() FROM (SELECT $COLS FROM t.typed WHERE nth_same = 1 EXCEPT SELECT $COLS FROM ods.order_snapshot_rep)) = 0;"
            else
                stored_sql="SELECT '$tag: accepted = stored + unchanged + stale ($stale stale)', (SELECT count() FROM ods.order_snapshot_rep) = (SELECT countIf(fate = 'stored') FROM t.typed)
    AND (SELECT countIf(fate = 'unchanged'), countIf(fate = 'stale') FROM t.typed) = (0, $stale);
SELECT '$tag: the stored rows are the stored versions', (SELECT count() FROM (SELECT $COLS FROM ods.order_snapshot_rep EXCEPT SELECT $COLS FROM t.typed WHERE fate = 'stored')) = 0
    AND (SELECT count() FROM (SELECT $COLS FROM t.typed WHERE fate = 'stored' EXCEPT SELECT $COLS FROM ods.order_snapshot_rep)) = 0;"
            fi
            sql="$(setup_sql)
$NO_MERGE
$loads
$(fold_sql)
SELECT '$tag: every non-empty message is rejected or accepted', (SELECT count() FROM ods.order_snapshot_errors) + (SELECT count() FROM t.typed) = (SELECT countIf(raw != '') FROM t.delivered);
$stored_sql
SELECT '$tag: ORD-0001 has $ord1 version(s) stored, unmerged', (SELECT count() FROM ods.order_snapshot_rep WHERE order_id = 'ORD-0001') = $ord1;
SELECT '$tag: each bad row: class, raw bytes, coordinates, load', (SELECT count() FROM ods.order_snapshot_errors AS e INNER JOIN t.delivered AS d
    ON e._topic = d._topic AND e._partition = d._partition AND e._offset = d._offset
    WHERE e.raw = d.raw AND e.error_class = d.expect AND e._timestamp = d._timestamp_ms AND e._key = d._key AND e._load_id = d.load_id)
    = (SELECT count() FROM ods.order_snapshot_errors)
    AND (SELECT count() FROM ods.order_snapshot_errors) = (SELECT countIf(expect IN ('not_an_object', 'keyset_mismatch', 'field_invalid')) FROM t.delivered)
    AND (SELECT uniqExact(error_class) FROM ods.order_snapshot_errors) = 3;
SELECT '$tag: _load_id and _load_ts copied from stg', (SELECT count() FROM ods.order_snapshot_errors WHERE (_load_id, _load_ts) NOT IN (SELECT _load_id, _load_ts FROM stg.orders_raw)) = 0
    AND (SELECT count() FROM ods.order_snapshot_rep WHERE (_load_id, _load_ts) NOT IN (SELECT _load_id, _load_ts FROM stg.orders_raw)) = 0;
SELECT '$tag: order_v has the newer ORD-0001', (SELECT status, updated_at FROM ods.order_v WHERE order_id = 'ORD-0001')
    = (SELECT JSONExtractString(raw, 'status'), parseDateTime64BestEffort(JSONExtractString(raw, 'updated_at'), 3, 'UTC') FROM t.delivered WHERE _key = 'ORD-0001' AND $newer);
SELECT '$tag: the ledger: one row per load, delta 1, 2 …, its figures add up to the fates', (SELECT groupArray(delta) FROM (SELECT delta FROM ods.order_loads ORDER BY delta))
        = range(1, toUInt64((SELECT uniqExact(load_id) FROM t.delivered) + 1))
    AND (SELECT sum(received), sum(accepted), sum(rejected), sum(not_an_object), sum(keyset_mismatch), sum(field_invalid) FROM ods.order_loads)
        = (SELECT countIf(raw != ''), countIf(expect = ''), countIf(expect IN ('not_an_object', 'keyset_mismatch', 'field_invalid')),
            countIf(expect = 'not_an_object'), countIf(expect = 'keyset_mismatch'), countIf(expect = 'field_invalid') FROM t.delivered)
    AND (SELECT sum(stored), sum(unchanged), sum(stale) FROM ods.order_loads) = $fates
    AND (SELECT sum(stale) FROM ods.order_loads) = $stale;
$(ledger_sql)
$(view_checks_sql "$tag before OPTIMIZE:" "$view")
$MERGE
SELECT '$tag: merged to one row per order_id', (SELECT count() FROM ods.order_snapshot_rep) = (SELECT uniqExact(order_id) FROM ods.order_snapshot_rep);
$(view_checks_sql "$tag after OPTIMIZE:" "$view")"
            check_all "$sql"
        done
    done
}

# Acceptance 2: the same transition twice with the same _load_id.
@test "acceptance 2: a repeated transition leaves order_v and its _load_ts unchanged, errors recorded once, writes nothing; one partition per order (both modes)" {
    for STORE in changes every; do
        rm -rf db
        # The first run commits the load; every statement of the rerun but the lock's sees the
        # ledger row and writes nothing, in both modes (--store every too: the load is closed).
        case $STORE in
            changes) view=t.current ;;
            every) view=t.current_every ;;
        esac
        sql="$(setup_sql)
$NO_MERGE
$(deliver L1 1 batch)
CREATE TABLE t.v1 ENGINE = Memory AS SELECT * FROM ods.order_v;
CREATE TABLE t.e1 ENGINE = Memory AS SELECT * FROM ods.order_snapshot_errors;
CREATE TABLE t.h1 ENGINE = Memory AS SELECT * FROM ods.order_snapshot_hot;
CREATE TABLE t.l1 ENGINE = Memory AS SELECT * FROM ods.order_loads;
CREATE TABLE t.m1 ENGINE = Memory AS SELECT * FROM ods.order_manifest;
CREATE TABLE t.f1 ENGINE = Memory AS SELECT * FROM ods.order_frozen;
$(ods_ddl transition --store "$STORE")
SELECT '$STORE: the rerun writes nothing: hot rows, ledger, manifest, seal and order_snapshot_rep as the first run left them, no lease',
    (SELECT count() FROM ods.order_snapshot_hot) = (SELECT count() FROM t.h1)
    AND (SELECT count() FROM ods.order_manifest) = (SELECT count() FROM t.m1) AND (SELECT count() FROM (SELECT * FROM ods.order_manifest EXCEPT SELECT * FROM t.m1)) = 0
    AND (SELECT count() FROM ods.order_frozen) = 1 AND (SELECT count() FROM (SELECT * FROM ods.order_frozen EXCEPT SELECT * FROM t.f1)) = 0
    AND (SELECT count() FROM ods.order_lease_v) = 0
    AND (SELECT count() FROM (SELECT * FROM ods.order_snapshot_hot EXCEPT SELECT * FROM t.h1)) = 0
    AND (SELECT count() FROM t.h1) = (SELECT count() FROM t.typed) AND (SELECT count() FROM t.typed) > 0
    AND (SELECT count() FROM ods.order_loads) = 1 AND (SELECT count() FROM t.l1) = 1
    AND (SELECT count() FROM (SELECT * FROM ods.order_loads EXCEPT SELECT * FROM t.l1)) = 0
    AND (SELECT count() FROM ods.order_snapshot_rep) = 0;
$(fold_sql)
SELECT '$STORE: accepted rows written once', (SELECT count() FROM ods.order_snapshot_rep) = (SELECT count() FROM t.typed)
    AND (SELECT count() FROM (SELECT * FROM ods.order_snapshot_rep EXCEPT SELECT * FROM t.h1)) = 0;
SELECT '$STORE: order_v unchanged, _load_ts included', (SELECT count() FROM (SELECT * FROM ods.order_v EXCEPT SELECT * FROM t.v1)) = 0
    AND (SELECT count() FROM (SELECT * FROM t.v1 EXCEPT SELECT * FROM ods.order_v)) = 0
    AND (SELECT count() FROM t.v1) = (SELECT uniqExact(JSONExtractString(raw, 'order_id')) FROM t.delivered WHERE expect = '');
SELECT '$STORE: errors recorded once: the rerun adds none', (SELECT count(), uniqExact(_topic, _partition, _offset), uniqExact(_load_id) FROM ods.order_snapshot_errors)
    = (SELECT count(), count(), 1 FROM t.delivered WHERE expect IN ('not_an_object', 'keyset_mismatch', 'field_invalid'))
    AND (SELECT count() FROM (SELECT * FROM ods.order_snapshot_errors EXCEPT SELECT * FROM t.e1)) = 0;
$(ledger_sql)
$(view_checks_sql "$STORE before OPTIMIZE:" "$view")
$MERGE
SELECT '$STORE after OPTIMIZE: order_v unchanged', (SELECT count() FROM (SELECT * FROM ods.order_v EXCEPT SELECT * FROM t.v1)) = 0
    AND (SELECT count() FROM (SELECT * FROM t.v1 EXCEPT SELECT * FROM ods.order_v)) = 0;
$(view_checks_sql "$STORE after OPTIMIZE:" "$view")"
        check_all "$sql"
    done
}

# Acceptance 3: three nightly loads of overlapping snapshots.
@test "acceptance 3: three overlapping loads: one row per order, the greatest updated_at, none deleted; re-sent versions not stored (both modes)" {
    for STORE in changes every; do
        rm -rf db
        # ORD-1002 (paid, N1) and ORD-1005 (N2) are delivered again unchanged in the next load.
        case $STORE in
            changes) view=t.current stored=12 ord1005="(toDate('2026-02-02'), 'N2')" ;;
            every) view=t.current_every stored=14 ord1005="(toDate('2026-02-03'), 'N3')" ;;
        esac
        sql="$(setup_sql)
$(deliver N1 1 load1)
$(deliver N2 2 load2)
$(deliver N3 3 load3)
$(fold_sql)
SELECT 'the fixture overlaps: versions delivered again, orders missing from later loads', (SELECT count() FROM (SELECT raw FROM t.delivered GROUP BY JSONExtractString(raw, 'order_id'), JSONExtractString(raw, 'updated_at'), raw HAVING count() > 1)) = 0
    AND (SELECT count() FROM (SELECT 1 FROM t.delivered GROUP BY JSONExtractString(raw, 'order_id'), JSONExtractString(raw, 'updated_at') HAVING uniqExact(load_id) > 1)) > 0
    AND (SELECT count() FROM (SELECT JSONExtractString(raw, 'order_id') AS o FROM t.delivered GROUP BY o HAVING max(seq) < 3)) > 0;
SELECT 'the fixture: one order_id and updated_at, one state', (SELECT count() FROM (SELECT 1 FROM t.typed GROUP BY order_id, updated_at
    HAVING uniqExact(user_id, status, created_at, items_total, discount, delivery, total, items) > 1)) = 0;
SELECT '$STORE: $stored of the 14 accepted versions stored', (SELECT count() FROM ods.order_snapshot_rep) = $stored AND (SELECT count() FROM t.typed) = 14
    AND (SELECT countIf(fate = 'stored'), countIf(fate = 'unchanged'), countIf(fate = 'stale') FROM t.typed) = (12, 2, 0)
    AND (SELECT sum(accepted), sum(stored), sum(unchanged), sum(stale), count() FROM ods.order_loads) = (14, $stored, 14 - $stored, 0, 3);
SELECT '$STORE: order_v snapshot_date and _load_id of an unchanged re-sent order', (SELECT snapshot_date, _load_id FROM ods.order_v WHERE order_id = 'ORD-1005') = $ord1005;
SELECT 'orders absent from later snapshots kept', (SELECT count() FROM t.delivered WHERE JSONExtractString(raw, 'order_id') NOT IN (SELECT order_id FROM ods.order_v)) = 0;
SELECT 'all good rows landed', (SELECT count() FROM ods.order_snapshot_errors) = 0;
$(ledger_sql)
$(view_checks_sql "$STORE before OPTIMIZE:" "$view")
$MERGE
$(view_checks_sql "$STORE after OPTIMIZE:" "$view")"
        check_all "$sql"
    done
}

# Acceptance 4: a date a lenient conversion would silently "correct".
@test "acceptance 4: snapshot_date 2026-02-30 lands in the errors table as field_invalid, not in the ODS" {
    sql="$(setup_sql)
$(deliver D1 1 dirty_date)
$(fold_sql)
SELECT 'a lenient conversion would store another day', (SELECT toString(toDate(JSONExtractString(raw, 'snapshot_date'))) != JSONExtractString(raw, 'snapshot_date') FROM t.delivered WHERE _key = 'ORD-2001');
SELECT 'the dirty row is an error, field_invalid, raw intact', (SELECT error_class, raw FROM ods.order_snapshot_errors WHERE _key = 'ORD-2001')
    = (SELECT 'field_invalid', raw FROM t.delivered WHERE _key = 'ORD-2001') AND (SELECT count() FROM ods.order_snapshot_errors) = 1;
SELECT 'the dirty row is not in the ODS, the clean one is', (SELECT groupArray(order_id) FROM ods.order_snapshot_rep) = ['ORD-2002'];
SELECT 'the ledger: one stored, one field_invalid', (SELECT received, accepted, stored, rejected, field_invalid FROM ods.order_loads) = (2, 1, 1, 1, 1);
$(ledger_sql)"
    check_all "$sql"
    # Had the classifier let it through, the typed insert would fail loudly, storing nothing. (D1
    # is committed, so its statements do nothing: the same batch staged again as D2, frozen and
    # taken to its good INSERT by the SQL typing, whose manifest keeps every raw; that INSERT then
    # runs without the classifier's verdict.) (The SQL typing's conversions throw on their own;
    # order_wire_parse types what it checked, in the same call: order_wire_parse.bats proves the
    # two equal.)
    tr=$(ods_ddl transition --typing sql)
    good=$(tr_pick 9 <<<"$tr")
    [ "$(grep -c "NOT (error_class != '')" <<<"$good")" -eq 4 ]
    good=$(sed "s/ AND NOT (error_class != '')//" <<<"$good")
    [ "$(grep -c "error_class" <<<"$good")" -eq 0 ]
    chlocal --path db -q "INSERT INTO stg.orders_raw SELECT raw, _topic, _partition, _offset, _timestamp, _key, 'D2', _load_ts FROM stg.orders_raw WHERE _load_id = 'D1'"
    tr_pick 1 2 3 4 5 6 7 8 <<<"$tr" >d2.sql
    chlocal --path db --param_load_id=D2 --queries-file d2.sql
    run_split chlocal --path db --param_load_id=D2 -q "$good"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"CANNOT_PARSE_DATETIME"* ]]
    run_split chlocal --path db -q "SELECT count() FROM stg.orders_raw WHERE _load_id = 'D2'; SELECT groupArray(error_class) FROM (SELECT error_class FROM ods.order_manifest WHERE _load_id = 'D2' ORDER BY ALL);
        SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'D2'; SELECT count() FROM ods.order_snapshot_rep"
    [ "$output" = "$(printf "2\n['','field_invalid']\n0\n1")" ]
}

@test "an empty raw that reaches stg by another path is kept, as not_an_object" {
    sql="$(ods_ddl schema)
INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
    VALUES ('', 'orders', 0, 1, NULL, '', 'E1', '2026-01-01 00:00:00.000');
SET param_load_id = 'E1';
$(ods_ddl transition)
$(fold_sql)
SELECT 'empty raw is an error, not_an_object', (SELECT groupArray((raw, error_class, _offset)) FROM ods.order_snapshot_errors) = [('', 'not_an_object', 1)]
    AND (SELECT count() FROM ods.order_snapshot_rep) = 0 AND (SELECT count() FROM ods.order_snapshot_hot) = 0
    AND (SELECT received, accepted, stored, rejected, not_an_object FROM ods.order_loads WHERE _load_id = 'E1') = (1, 0, 0, 1, 1);
$(ledger_sql)"
    check_all "$sql"
}

# --- Issue 13: _hashdiff, store only changes, reruns converge, any span of created_at, cluster.

@test "_hashdiff (from order_wire_parse) = hashdiff_strict's native SQL over the canonical texts of the 10 state fields, on every row" {
    run_split "$WIRE_FIELDS" --canon
    [ "$status" -eq 0 ]
    canon=$output
    [ "$(awk -F '\t' '$2 == 1 { print $1 }' <<<"$canon" | paste -sd ' ')" = "order_id user_id status created_at updated_at items_total discount delivery total items" ]
    [ "$(awk -F '\t' '$2 == 0 { print $1 }' <<<"$canon")" = snapshot_date ]
    # c1..c10: each state field's canonical text, by the contract's canon_sql; c11: snapshot_date's
    exprs="" cols=()
    while IFS=$'\t' read -r name inhd sql; do
        [ "$inhd" = 1 ] || continue
        cols+=("c$((${#cols[@]} + 1))")
        exprs+="$sql AS ${cols[-1]}, "
    done <<<"$canon"
    [ "${#cols[@]}" -eq 10 ]
    exprs+="$(awk -F '\t' '$1 == "snapshot_date" { print $3 }' <<<"$canon") AS c11"
    # --typing sql computes _hashdiff with one expression in both modes; the default takes it from
    # the freeze's order_wire_parse (compared below with the native SQL, row by row)
    hd=$(ods_ddl transition --typing sql | grep -o 'hashdiff_strict(.*) AS _hashdiff')
    [ -n "$hd" ]
    [ "$(ods_ddl transition --typing sql --store every | grep -o 'hashdiff_strict(.*) AS _hashdiff')" = "$hd" ]
    [ "$(ods_ddl transition | grep -c 'hashdiff_strict')" -eq 0 ]
    native=$("$BIN/hashdiff" --print-sql strict "${cols[@]}")
    native_with_date=$("$BIN/hashdiff" --print-sql strict "${cols[@]}" c11)
    # every fixture and a dirty orders-gen world (JSON escapes, non-ASCII titles), every version stored
    og --orders 400 --days 3 --dirty 0.05 --seed 3 > g.jsonl
    sql="$(ods_ddl schema)"
    loads=""
    for f in batch load1 load2 load3 changes1 changes2 changes3 spelling; do
        sql+=$'\n'"$(stage_fx stg "F-$f" "$f" '2026-04-05 00:00:00')"
        loads+=" F-$f"
    done
    sql+=$'\n'"$(stage_lines stg G g.jsonl '2026-04-05 00:00:00' 1000)"
    for l in $loads G; do
        sql+=$'\n'"SET param_load_id = '$l';"$'\n'"$(ods_ddl transition --store every)"
    done
    sql+="
$(fold_sql)
SELECT count(), countIf(_hashdiff != ($native)), countIf(_hashdiff = ($native_with_date)),
    uniqExact(_hashdiff) = uniqExact(order_id, user_id, status, created_at, updated_at, items_total, discount, delivery, total, items)
FROM (SELECT *, $exprs FROM ods.order_snapshot_rep) FORMAT TSV"
    printf '%s\n' "$sql" >hd.sql
    run_split chlocal --path db --queries-file hd.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "rows, mismatches, equal to a hash with snapshot_date, distinct hash per distinct state: $output"
    IFS=$'\t' read -r rows bad with_date distinct <<<"$output"
    [ "$rows" -gt 600 ]
    [ "$bad" -eq 0 ]
    [ "$with_date" -eq 0 ]
    [ "$distinct" -eq 1 ]
    check_all "$(ledger_sql)"
}

@test "_hashdiff: the same values spelled differently (whitespace, key order, \\u escapes) hash the same; a changed value does not" {
    # spelling.tsv: ORD-1001 (601), the same values respelled in another snapshot (602), and the
    # first with another discount and the same updated_at (603)
    for STORE in every changes; do
        rm -rf db
        sql="$(setup_sql)
$(deliver S1 1 spelling '_offset = 601')
$(deliver S2 2 spelling '_offset = 602')
$(deliver S3 3 spelling '_offset = 603')
$(fold_sql)
SELECT '$STORE: all three accepted', (SELECT count() FROM t.typed) = 3 AND (SELECT count() FROM ods.order_snapshot_errors) = 0;
$(ledger_sql)"
        if [ "$STORE" = every ]; then
            sql+="
SELECT 'every: the respelled message is typed to the same values', (SELECT count(), uniqExact(user_id, status, created_at, updated_at, items_total, discount, delivery, total, items) FROM ods.order_snapshot_rep WHERE _load_id IN ('S1', 'S2')) = (2, 1)
    AND (SELECT uniqExact(snapshot_date) FROM ods.order_snapshot_rep WHERE _load_id IN ('S1', 'S2')) = 2;
SELECT 'every: and has the same _hashdiff', (SELECT uniqExact(_hashdiff) FROM ods.order_snapshot_rep WHERE _load_id IN ('S1', 'S2')) = 1;
SELECT 'every: another discount, another _hashdiff', (SELECT _hashdiff FROM ods.order_snapshot_rep WHERE _load_id = 'S3') NOT IN (SELECT _hashdiff FROM ods.order_snapshot_rep WHERE _load_id = 'S1');"
        else
            sql+="
SELECT 'changes: the respelled message is unchanged (not stored), the changed one stored', (SELECT groupArray(_load_id) FROM (SELECT _load_id FROM ods.order_snapshot_rep ORDER BY _load_id)) = ['S1', 'S3'];
SELECT 'changes: order_v is S3''s: a tie on updated_at goes to the version stored last', (SELECT discount, _load_id FROM ods.order_v) = (1.00, 'S3');"
        fi
        check_all "$sql"
    done
}

@test "store changes: A->B->A stores three, a repeat within a load once, a load's versions in updated_at order, stale and re-sent versions none; --store every each load's versions" {
    # changes1..3.tsv, three loads of five orders:
    #   ORD-3001 created -> paid -> created, updated_at later each load: three versions
    #   ORD-3002 created, paid, then the identical created message again (a later offset) in C1:
    #            two versions (compared in updated_at order, the repeat follows its twin); paid
    #            re-sent unchanged in C2 and C3: nothing
    #   ORD-3003 shipped, paid, created staged in that (reverse) order in C1: three versions,
    #            stored created, paid, shipped; shipped re-sent in C2: nothing
    #   ORD-3004 paid at 15:00 in C1; created at 14:00 in C2 is stale: nothing; shipped in C3
    #   ORD-3005 the same updated_at every load, discount 0.00 -> 1.00 -> 0.00: three versions
    #            (the comparison is with the latest only), order_v is C3's
    rows_sql="SELECT order_id, status, updated_at, toDecimalString(discount, 2), snapshot_date, _load_id FROM ods.order_snapshot_rep ORDER BY order_id, updated_at, _load_id FORMAT TSV;"
    view_sql="SELECT order_id, status, updated_at, toDecimalString(discount, 2), snapshot_date, _load_id FROM ods.order_v ORDER BY order_id FORMAT TSV;"
    sql="$(setup_sql)
$NO_MERGE
$(deliver C1 1 changes1)
$(deliver C2 2 changes2)
$(deliver C3 3 changes3)
$(fold_sql)
SELECT count() FROM ods.order_snapshot_errors FORMAT TSV;
$rows_sql
$view_sql
SELECT groupArray(status) FROM (SELECT status FROM ods.order_snapshot_rep WHERE order_id = 'ORD-3003' ORDER BY _part, _part_offset) FORMAT TSV;
$MERGE
$view_sql"
    run_sql "$sql"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    view=$(cat <<'TSV'
ORD-3001	created	2026-04-03 08:00:00.000	0.00	2026-04-03	C3
ORD-3002	paid	2026-04-01 09:30:00.000	0.00	2026-04-01	C1
ORD-3003	shipped	2026-04-01 12:00:00.000	0.00	2026-04-01	C1
ORD-3004	shipped	2026-04-03 09:00:00.000	0.00	2026-04-03	C3
ORD-3005	paid	2026-04-01 16:00:00.000	0.00	2026-04-03	C3
TSV
)
    diff <(cat <<TSV
0
ORD-3001	created	2026-04-01 08:00:00.000	0.00	2026-04-01	C1
ORD-3001	paid	2026-04-02 08:00:00.000	0.00	2026-04-02	C2
ORD-3001	created	2026-04-03 08:00:00.000	0.00	2026-04-03	C3
ORD-3002	created	2026-04-01 09:00:00.000	0.00	2026-04-01	C1
ORD-3002	paid	2026-04-01 09:30:00.000	0.00	2026-04-01	C1
ORD-3003	created	2026-04-01 10:00:00.000	0.00	2026-04-01	C1
ORD-3003	paid	2026-04-01 11:00:00.000	0.00	2026-04-01	C1
ORD-3003	shipped	2026-04-01 12:00:00.000	0.00	2026-04-01	C1
ORD-3004	paid	2026-04-01 15:00:00.000	0.00	2026-04-01	C1
ORD-3004	shipped	2026-04-03 09:00:00.000	0.00	2026-04-03	C3
ORD-3005	paid	2026-04-01 16:00:00.000	0.00	2026-04-01	C1
ORD-3005	paid	2026-04-01 16:00:00.000	1.00	2026-04-02	C2
ORD-3005	paid	2026-04-01 16:00:00.000	0.00	2026-04-03	C3
$view
['created','paid','shipped']
$view
TSV
) <(printf '%s\n' "$output")
    check_all "$(ledger_sql)"
    # --store every: every version of each load once (its first copy), order_v the latest load's copy of each version
    rm -rf db
    STORE=every
    sql="$(setup_sql)
$(deliver C1 1 changes1)
$(deliver C2 2 changes2)
$(deliver C3 3 changes3)
$(fold_sql)
SELECT 'every: each load''s versions once: 17 of the 18 accepted messages (ORD-3002''s repeat within C1 is a copy)', (SELECT count() FROM ods.order_snapshot_rep) = 17 AND (SELECT count() FROM t.typed) = 18 AND (SELECT count() FROM t.typed WHERE nth_same = 1) = 17
    AND (SELECT count() FROM (SELECT $COLS FROM ods.order_snapshot_rep EXCEPT SELECT $COLS FROM t.typed WHERE nth_same = 1)) = 0
    AND (SELECT count() FROM (SELECT $COLS FROM t.typed WHERE nth_same = 1 EXCEPT SELECT $COLS FROM ods.order_snapshot_rep)) = 0;
SELECT 'every: order_v', (SELECT groupArray((order_id, status, _load_id)) FROM (SELECT * FROM ods.order_v ORDER BY order_id))
    = [('ORD-3001', 'created', 'C3'), ('ORD-3002', 'paid', 'C3'), ('ORD-3003', 'shipped', 'C2'), ('ORD-3004', 'shipped', 'C3'), ('ORD-3005', 'paid', 'C3')];
$(ledger_sql)"
    check_all "$sql"
}

@test "stale messages: the gate records each once (redelivered, reruns before the commit), the commit counts them; --store every records none and converges too" {
    # C2's ORD-3004 'created' (14:00) is older than C1's 'paid' (15:00): stale. It is staged
    # twice under C2 with the same coordinates and bytes (a redelivered batch: one message, the
    # copy counted as redelivered), and C2 runs twice up to its commit, each run dying there with
    # the lease held (cleared as an operator does), before its real run and a rerun after it.
    for store in changes every; do
        rm -rf db
        runs="$(ods_ddl schema)
$(stage_fx stg C1 changes1 '2026-04-01 23:00:00')
$(stage_fx stg C2 changes2 '2026-04-02 23:00:00')
$(stage_fx stg C2 changes2 '2026-04-02 23:30:00' "_key = 'ORD-3004'")
SET param_load_id = 'C1';
$(ods_ddl transition --store "$store")
SET param_load_id = 'C2';
$(uncommitted_sql --store "$store")
DROP TABLE IF EXISTS ods.order_lease;
$(uncommitted_sql --store "$store")
DROP TABLE IF EXISTS ods.order_lease;
$(ods_ddl transition --store "$store")"
        check_all "$runs
$(ods_ddl transition --store "$store")
SELECT '$store: C2''s stale message, once, with its coordinates', (SELECT groupArray((_load_id, order_id, updated_at, _topic, _partition, _offset)) FROM ods.order_snapshot_stale)
    = (SELECT groupArray(('C2', _key, parseDateTime64BestEffort(JSONExtractString(raw, 'updated_at'), 3, 'UTC'), _topic, _partition, _offset))
       FROM $(fx changes2) WHERE _key = 'ORD-3004' AND '$store' = 'changes');
SELECT '$store: the ledger counts it; received every staged copy, redelivered the one copy', (SELECT groupArray((_load_id, received, redelivered, accepted, stale)) FROM (SELECT * FROM ods.order_loads ORDER BY delta))
    = [('C1', 9, 0, 9, 0), ('C2', 6, 1, 5, if('$store' = 'changes', 1, 0))];
SELECT '$store: C2''s versions stored once', (SELECT count(), uniqExact(order_id, updated_at) FROM ods.order_snapshot_hot WHERE _load_id = 'C2')
    = (SELECT stored, stored FROM ods.order_loads WHERE _load_id = 'C2');
$(ledger_sql)"
    done
}

@test "store changes on real snapshots: each day stores exactly its new versions, none of the re-sent ones; --store every all; the same order_v state" {
    for d in 1 2 3; do
        og --orders 500 --days 3 --dirty 0.05 --seed 11 --day "$d" > "day$d.jsonl"
    done
    sql="$(two_pairs_sql)
$(stage_lines stg G1 day1.jsonl '2026-03-01 23:00:00' 1000)
$(stage_lines stg G2 day2.jsonl '2026-03-02 23:00:00' 2000)
$(stage_lines stg G3 day3.jsonl '2026-03-03 23:00:00' 3000)
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;
CREATE DATABASE t;
CREATE TABLE t.v ENGINE = Memory AS SELECT _load_id, JSONExtractString(raw, 'order_id') AS order_id,
    parseDateTime64BestEffort(JSONExtractString(raw, 'updated_at'), 3, 'UTC') AS updated_at
FROM stg.orders_raw WHERE order_wire_class(raw) = '';"
    # stored_sql TABLE LOAD: what LOAD stored, in TABLE, is exactly the versions no earlier load delivered
    stored_sql() {
        echo "(SELECT count() FROM ods.$1 WHERE _load_id = '$2')
    = (SELECT uniqExact(order_id, updated_at) FROM t.v WHERE _load_id = '$2' AND (order_id, updated_at) NOT IN (SELECT order_id, updated_at FROM t.v WHERE _load_id < '$2'))
    AND (SELECT count() FROM (SELECT order_id, updated_at FROM ods.$1 WHERE _load_id = '$2'
        EXCEPT SELECT order_id, updated_at FROM t.v WHERE _load_id = '$2' AND (order_id, updated_at) NOT IN (SELECT order_id, updated_at FROM t.v WHERE _load_id < '$2'))) = 0"
    }
    # right after its transition a load's versions are in the hot table (and its figures in the ledger)
    for d in 1 2 3; do
        sql+="
SET param_load_id = 'G$d';
$(ods_ddl transition)
$(ods_ddl transition --store every --stg-db s2 --ods-db o2)
SELECT 'G$d: stored = the versions no earlier load delivered', $(stored_sql order_snapshot_hot "G$d")
    AND (SELECT stored FROM ods.order_loads WHERE _load_id = 'G$d') = (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'G$d');
SELECT 'G$d: --store every stores every accepted message', (SELECT count() FROM o2.order_snapshot_hot WHERE _load_id = 'G$d') = (SELECT count() FROM t.v WHERE _load_id = 'G$d')
    AND (SELECT stored FROM o2.order_loads WHERE _load_id = 'G$d') = (SELECT count() FROM t.v WHERE _load_id = 'G$d');"
    done
    # and, folded, in order_snapshot_rep
    sql+="
$(fold_sql)
$(fold_sql o2 s2)"
    for d in 1 2 3; do
        sql+="
SELECT 'G$d folded: stored = the versions no earlier load delivered', $(stored_sql order_snapshot_rep "G$d");"
    done
    sql+="
SELECT 'all folded', (SELECT count() FROM ods.order_snapshot_rep) = (SELECT sum(stored) FROM ods.order_loads)
    AND (SELECT count() FROM o2.order_snapshot_rep) = (SELECT count() FROM t.v);
SELECT 'G2 and G3 re-send many unchanged versions', (SELECT count() FROM t.v WHERE _load_id = 'G2' AND (order_id, updated_at) IN (SELECT order_id, updated_at FROM t.v WHERE _load_id = 'G1')) > 50
    AND (SELECT count() FROM t.v WHERE _load_id = 'G3' AND (order_id, updated_at) IN (SELECT order_id, updated_at FROM t.v WHERE _load_id < 'G3')) > 100;
SELECT 'no version stored twice', (SELECT count() = uniqExact(order_id, updated_at) FROM ods.order_snapshot_rep);
SELECT 'the same current state as --store every', (SELECT count() FROM (SELECT order_id, updated_at, _hashdiff FROM ods.order_v EXCEPT SELECT order_id, updated_at, _hashdiff FROM o2.order_v)) = 0
    AND (SELECT count() FROM (SELECT order_id, updated_at, _hashdiff FROM o2.order_v EXCEPT SELECT order_id, updated_at, _hashdiff FROM ods.order_v)) = 0
    AND (SELECT count() FROM ods.order_v) = (SELECT uniqExact(order_id) FROM t.v);
$(ledger_sql ods o2)"
    check_all "$sql"
}

@test "reruns converge: every load run twice, and all of them again after the last, leaves the tables exactly as one clean run" {
    sql="$(two_pairs_sql)"
    n=0
    for f in batch load1 load2 load3 changes1 changes2 changes3 spelling; do
        n=$((n + 1))
        sql+=$'\n'"$(stage_fx stg "R$n" "$f" "2026-04-0$n 23:00:00")"
    done
    sql+="
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;"
    for i in $(seq "$n"); do
        sql+="
SET param_load_id = 'R$i';
$(ods_ddl transition)
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)"
    done
    for i in $(seq "$n"); do
        sql+="
SET param_load_id = 'R$i';
$(ods_ddl transition)"
    done
    sql+="
$(dump_sql ods a)
$(dump_sql o2 b)"
    printf '%s\n' "$sql" > rerun.sql
    chlocal --path db --queries-file rerun.sql
    same_dumps
    # batch 3 versions, load1..3 12, changes1..3 13; spelling's ORD-1001 is stale after load2's,
    # so R8 stores none, and its transition folded R1..R7 into order_snapshot_rep
    [ "$(wc -l <a.order_snapshot_rep.tsv)" -eq 28 ]
    [ "$(wc -l <a.order_snapshot_errors.tsv)" -eq 3 ]
    # every load committed once, in order: the reruns added no ledger row
    [ "$(cut -f1,2 a.order_loads.tsv | paste -sd ' ')" = "$(printf '%s\tR%s ' 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 | sed 's/ $//')" ]
    check_all "$(ledger_sql ods o2)"
}

@test "the freeze and the gate in pieces: loads cut into pieces of any size, and a rerun cut otherwise after a run stopped between two pieces of either, leave every table exactly as one pass (both modes)" {
    # A fate depends on the order's messages and prior only, and an order's messages share a
    # bucket (cityHash64(order_id) % 256): so any cut of the load, and a rerun cut otherwise,
    # must give each message what one INSERT gives it; the freeze's pieces are ranges of staged
    # coordinates, and a rerun skips what the manifest has in its range. Treated (stg/ods): each
    # load first runs up to the first of the freeze's 3 pieces of 2 staged rows (the run then
    # dies holding the lease), then up to the first of the gate's 3 pieces (the freeze completed
    # by its other pieces), then whole in pieces of 1 (at most 64 for the first load, 16 for the
    # others), then again in 5 of 40. Reference (s2/o2): one piece.
    for d in 1 2 3; do
        og --orders 300 --days 3 --dirty 0.05 --seed 24 --day "$d" > "day$d.jsonl"
    done
    for every in 0 1; do
        local store=()
        [ "$every" -eq 0 ] || store=(--store every)
        rm -rf db
        sql="$(two_pairs_sql)"
        n=0
        local lines=()   # lines[P]: at least the rows load P stages
        for f in load1 load2 load3 changes1 changes2 changes3 spelling; do
            n=$((n + 1))
            sql+=$'\n'"$(stage_fx stg "P$n" "$f" "2026-04-0$n 23:00:00")"
            lines[n]=$(($(wc -l <"$FIX/$f.tsv") - 1))
        done
        for d in 1 2 3; do
            n=$((n + 1))
            sql+=$'\n'"$(stage_lines stg "P$n" "day$d.jsonl" "2026-04-1$d 23:00:00" $((d * 1000)))"
            lines[n]=$(wc -l <"day$d.jsonl")
        done
        sql+="
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;
CREATE DATABASE t;
CREATE TABLE t.pieces (load String, pieces UInt64) ENGINE = Memory;
CREATE TABLE t.frozen (load String, frozen UInt64) ENGINE = Memory;"
        for i in $(seq "$n"); do
            # pieces of 1: as many INSERTs as the load can fill (64 for the first load, 16 for
            # the others, fewer for a smaller load: the SQL cuts least(that, rows) pieces either
            # way, and an INSERT past them is empty by construction, 0.1 s of analysis for nothing)
            ones=$([ "$i" = 1 ] && echo 64 || echo 16)
            ((lines[i] < ones)) && ones=${lines[i]}
            sql+="
SET param_load_id = 'P$i';
$(ods_ddl transition "${store[@]}" --gate-pieces 3 --piece-size 2 | tr_pick 1 2 3 4 | awk '/^-- piece 2 /{exit} {print}')
INSERT INTO t.frozen SELECT 'P$i', count() FROM ods.order_manifest WHERE _load_id = 'P$i';
DROP TABLE IF EXISTS ods.order_lease;
$(ods_ddl transition "${store[@]}" --gate-pieces 3 --piece-size 2 | tr_pick 1 2 3 4 5 6 7 8 9 | awk '/^-- piece 2 /{if (++n == 2) exit} {print}')
INSERT INTO t.pieces SELECT 'P$i', count() FROM ods.order_fates WHERE _load_id = 'P$i';
DROP TABLE IF EXISTS ods.order_lease;
$(ods_ddl transition "${store[@]}" --gate-pieces "$ones" --piece-size 1)
$(ods_ddl transition "${store[@]}" --gate-pieces 5 --piece-size 40)
$(ods_ddl transition "${store[@]}" --gate-pieces 1 --stg-db s2 --ods-db o2)"
        done
        sql+="
$(dump_sql ods a)
$(dump_sql o2 b)
SELECT load, pieces, (SELECT countIf(error_class = '') FROM ods.order_manifest WHERE _load_id = load) AS accepted
FROM t.pieces ORDER BY load INTO OUTFILE '$PWD/pieces.tsv' TRUNCATE FORMAT TSV;
SELECT load, frozen, (SELECT count() FROM ods.order_manifest WHERE _load_id = load) AS messages
FROM t.frozen ORDER BY load INTO OUTFILE '$PWD/frozen.tsv' TRUNCATE FORMAT TSV;"
        printf '%s\n' "$sql" > pieces.sql
        chlocal --path db --queries-file pieces.sql
        same_dumps
        # the stopped runs gave a fate to some of a load's accepted messages, not all: the cut
        # fell inside the gate, in every generated load (P8-P10: some dozens to hundreds of
        # accepted messages each) and in some of the fixtures' (a few orders each: their first
        # piece may hold all or none)
        awk -F'\t' '$1 ~ /^P(8|9|10)$/ && !($3 > 50 && $2 > 0 && $2 < $3) { print; bad = 1 } END { exit bad }' pieces.tsv
        [ "$(awk -F'\t' '$1 ~ /^P(8|9|10)$/' pieces.tsv | wc -l)" -eq 3 ]
        [ "$(awk -F'\t' '$2 > 0 && $2 < $3' pieces.tsv | wc -l)" -ge 5 ] || { cat pieces.tsv; return 1; }
        # the runs stopped after the freeze's first piece froze about a third of each load's
        # messages, in every load of more than 4 staged rows (all but the smallest fixtures)
        awk -F'\t' '$1 ~ /^P(8|9|10)$/ && !($3 > 50 && $2 > $3 / 5 && $2 < $3 / 2) { print; bad = 1 } END { exit bad }' frozen.tsv
        [ "$(awk -F'\t' '$1 ~ /^P(8|9|10)$/' frozen.tsv | wc -l)" -eq 3 ]
        [ "$(awk -F'\t' '$2 > 0 && $2 < $3' frozen.tsv | wc -l)" -ge 5 ] || { cat frozen.tsv; return 1; }
        check_all "$(ledger_sql ods o2)"
    done
}

@test "late rows: staged before the load's freeze, its rerun takes them; staged after it, every run is refused naming them until they move to a new load; exactly one clean run" {
    og --orders 500 --days 3 --dirty 0.1 --seed 17 --day 1 > g1.jsonl
    # the second load holds two snapshots: several versions of an order, unchanged repeats
    og --orders 500 --days 3 --dirty 0.1 --seed 17 --day 2 > g2.jsonl
    og --orders 500 --days 3 --dirty 0.1 --seed 17 --day 3 >> g2.jsonl
    # G2's batch in Kafka order: its first third staged in time; the second third, with its own
    # _load_ts, after a first run that died holding the lease before it froze anything
    # (statements 1-3); the last third after a second run that froze the load and died before
    # its commit (statements 1-9). The clean reference (s2/o2) has G2 = the first two thirds,
    # and the last third staged as the new load G2-late.
    late1=2026-03-04\ 01:00:00.000 late2=2026-03-04\ 02:00:00.000
    n=$(wc -l <g2.jsonl)
    cut1=$((2000 + n / 3)) cut2=$((2000 + n * 2 / 3))
    run_sql "$(two_pairs_sql)
$(stage_lines stg G1 g1.jsonl '2026-03-01 23:00:00' 1000)
$(stage_lines stg G2 g2.jsonl '2026-03-03 23:00:00' 2000 "_offset < $cut1")
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;
$(stage_lines s2 G2 g2.jsonl "$late1" 2000 "_offset >= $cut1 AND _offset < $cut2")
$(stage_lines s2 G2-late g2.jsonl "$late2" 2000 "_offset >= $cut2")
SET param_load_id = 'G1';
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)
SET param_load_id = 'G2';
$(ods_ddl transition --stg-db s2 --ods-db o2)
$(ods_ddl transition | tr_pick 1 2 3)
SELECT 'the first run of G2 holds the lease and froze nothing', (SELECT groupArray(_load_id) FROM ods.order_lease_v) = ['G2']
    AND (SELECT count() FROM ods.order_manifest WHERE _load_id = 'G2') + (SELECT count() FROM ods.order_frozen WHERE _load_id = 'G2') = 0;
$(stage_lines stg G2 g2.jsonl "$late1" 2000 "_offset >= $cut1 AND _offset < $cut2")
DROP TABLE IF EXISTS ods.order_lease;
$(uncommitted_sql)
SELECT 'the second run froze G2 with the rows staged since the first, stored versions of both, committed nothing',
    (SELECT staged, messages FROM ods.order_frozen WHERE _load_id = 'G2') = (SELECT count(), count() FROM stg.orders_raw WHERE _load_id = 'G2')
    AND (SELECT count() FROM ods.order_snapshot_hot WHERE _load_ts = '$late1') > 20 AND (SELECT count() FROM ods.order_loads WHERE _load_id = 'G2') = 0;
$(stage_lines stg G2 g2.jsonl "$late2" 2000 "_offset >= $cut2")
DROP TABLE IF EXISTS ods.order_lease;
SELECT count() FROM stg.orders_raw WHERE _load_ts = '$late2' FORMAT TSV"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    printf '%s\n' "$output"
    [ "$(grep -c $'\t1$' <<<"$output")" -eq 2 ]
    late=$(tail -1 <<<"$output")
    [ "$late" -gt 100 ]
    # every run of G2 is refused now, at statement 1, naming the late rows and what to do; it
    # writes nothing (not even a lease)
    state="SELECT (SELECT count() FROM ods.order_snapshot_hot), (SELECT count() FROM ods.order_snapshot_errors), (SELECT count() FROM ods.order_manifest),
        (SELECT count() FROM ods.order_frozen), (SELECT count() FROM ods.order_loads), (SELECT count() FROM ods.order_lease_v) FORMAT TSV"
    before=$(chlocal --path db -q "$state")
    ods_ddl transition >tr.sql
    for run in 1 2; do
        run_split chlocal --path db --param_load_id=G2 --queries-file tr.sql
        refused 1 "$late rows were staged under load G2 after it was frozen" "they are not part of it" "ods-ddl move-late"
    done
    [ "$(chlocal --path db -q "$state")" = "$before" ]
    [ "$(cut -f6 <<<"$before")" = 0 ]
    # moved to a new load, coordinates and _load_ts kept: G2 commits what it froze, G2-late the rest
    ods_ddl move-late >move.sql
    chlocal --path db --param_load_id=G2 --param_to_load_id=G2-late --queries-file move.sql
    check_all "$(stop_merges_sql)
SELECT 'moved: G2 holds what it froze, G2-late the late rows', (SELECT count() FROM stg.orders_raw WHERE _load_id = 'G2') = (SELECT staged FROM ods.order_frozen WHERE _load_id = 'G2')
    AND (SELECT count(), min(_load_ts), max(_load_ts) FROM stg.orders_raw WHERE _load_id = 'G2-late') = ($late, '$late2', '$late2');
SET param_load_id = 'G2';
$(ods_ddl transition)
SET param_load_id = 'G2-late';
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)
SELECT 'G2-late stored versions, recorded errors', (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'G2-late') > 20
    AND (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'G2-late') > 5;
SELECT 'G2 committed the versions of both its runs', (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'G2' AND _load_ts = '$late1') > 20
    AND (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'G2' AND _load_ts != '$late1') > 100;
$(ledger_sql ods o2)
$(dump_sql ods a)
$(dump_sql o2 b)"
    same_dumps
}

@test "ties on updated_at: the prior is what order_v shows, one version per updated_at within a load (the first received), reruns with rows staged before the freeze converge" {
    # ties1..3.tsv, staged with one _load_ts for T1's first batch, T2 and T3 (so (updated_at,
    # _load_ts) ties across loads), T1's rows marked late staged later:
    #   ORD-4001 one updated_at in T1, T2, T3, discount 0.00 -> 1.00 -> 0.00: three versions, and
    #            order_v is T3's (the prior of T3 is T2's version, the one order_v showed)
    #   ORD-4002 created, paid, created again under one updated_at in T1 (offsets 2, 3, 4), paid
    #            once more late (offset 0): the first received, offset 2's copy, alone
    #   ORD-4003 created at offset 10; late: the same version at offset 5 (another snapshot_date)
    #            and a newer paid: the first batch's copy of created, then paid
    #   ORD-4004 created; late: cancelled under the same updated_at: created alone
    #   and two rejected messages, one of them late
    # (T1's first run dies holding the lease before it froze anything, so the next run, once the
    # lease is cleared, takes the late rows; that one dies before its commit, so the real run
    # after it finds the load frozen and some of its versions stored.)
    ts=2026-04-01\ 23:00:00
    late=2026-04-02\ 01:00:00
    sql="$(two_pairs_sql)
$(stage_fx stg T1 ties1 "$ts" "expect = ''")
$(stage_fx s2 T1 ties1 "$ts" "expect = ''")
$(stage_fx s2 T1 ties1 "$late" "expect = 'late'")
SET param_load_id = 'T1';
$(ods_ddl transition | tr_pick 1 2 3)
$(stage_fx stg T1 ties1 "$late" "expect = 'late'")
DROP TABLE IF EXISTS ods.order_lease;
$(uncommitted_sql)
DROP TABLE IF EXISTS ods.order_lease;
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)"
    for l in 2 3; do
        sql+="
$(stage_fx stg "T$l" "ties$l" "$ts")
$(stage_fx s2 "T$l" "ties$l" "$ts")
SET param_load_id = 'T$l';
$(ods_ddl transition)
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)"
    done
    sql+="
SET param_load_id = 'T1';
$(ods_ddl transition)
$(dump_sql ods a)
$(dump_sql o2 b)
$(fold_sql)
SELECT order_id, status, updated_at, toDecimalString(discount, 2), snapshot_date, _load_id FROM ods.order_snapshot_rep ORDER BY ALL FORMAT TSV;
SELECT order_id, status, toDecimalString(discount, 2), _load_id FROM ods.order_v ORDER BY ALL FORMAT TSV;"
    run_sql "$sql"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    diff <(cat <<'TSV'
ORD-4001	created	2026-04-01 10:00:00.000	0.00	2026-04-01	T1
ORD-4001	created	2026-04-01 10:00:00.000	0.00	2026-04-03	T3
ORD-4001	created	2026-04-01 10:00:00.000	1.00	2026-04-02	T2
ORD-4002	created	2026-04-01 11:00:00.000	0.00	2026-04-01	T1
ORD-4003	created	2026-04-01 12:00:00.000	0.00	2026-04-01	T1
ORD-4003	paid	2026-04-01 13:00:00.000	0.00	2026-04-01	T1
ORD-4004	created	2026-04-01 14:00:00.000	0.00	2026-04-01	T1
ORD-4001	created	0.00	T3
ORD-4002	created	0.00	T1
ORD-4003	paid	0.00	T1
ORD-4004	created	0.00	T1
TSV
) <(printf '%s\n' "$output")
    same_dumps
    check_all "$(ledger_sql ods o2)"
}

@test "reruns converge after an interruption in the middle of the freeze, of the errors INSERT, of the good INSERT, from a state with some of an order's versions stored, and in the middle of the fold" {
    # G1 = day 1; G2 = days 2 and 3 (several versions of many orders); G3 = day 4, after recovery
    for d in 1 2 3 4; do
        og --orders 600 --days 4 --dirty 0.1 --seed 13 --day "$d" > "d$d.jsonl"
    done
    cat d2.jsonl d3.jsonl > g2.jsonl
    tr=$(ods_ddl transition --gate-pieces 1 | small_writes) # the gate as one INSERT, cut once below; run 4 cuts G2 in pieces
    # what every run does before the errors INSERT: the checks and the lease (1-3), the freeze
    # and its seal (4, 5: nothing more once sealed), the housekeeping (6), the fold (7)
    checks=$(tr_pick 1 2 3 <<<"$tr")
    freeze=$(tr_pick 4 <<<"$tr")
    upto_fold=$(tr_pick 1 2 3 4 5 6 <<<"$tr")
    pre=$(tr_pick 1 2 3 4 5 6 7 <<<"$tr")
    fold=$(tr_pick 7 <<<"$tr")
    bad=$(tr_pick 8 <<<"$tr")
    good=$(tr_pick 9 <<<"$tr")
    [ "$(grep -c '^INSERT INTO ods.order_manifest ' <<<"$freeze")" -eq 1 ]
    [ "$(grep -c '^INSERT INTO\|^ALTER TABLE\|^CREATE TABLE' <<<"$pre")" -eq 5 ]
    [ "$(grep -c '^INSERT INTO ods.order_snapshot_rep \|^ALTER TABLE ods.order_snapshot_hot ' <<<"$pre")" -eq 2 ]
    [ "$(grep -c '^INSERT INTO ods.order_snapshot_errors \|^INSERT INTO ods.order_gate ' <<<"$pre")" -eq 0 ]
    # Test-only failures. The freeze: at staged offset 2600 (G2 has offsets 2000…), before the
    # parse, read in staging's order (copies sorted), handing on blocks of 50. The errors INSERT: at offset 2600 too, the manifest read in
    # offset order in blocks of 50 (the window hands them on block by block). The good INSERT:
    # at its 500th message, one row a block, one thread (its output runs in the manifest's order;
    # the rows of the block that holds the failing row are lost with it). (rowNumberInAllBlocks
    # counts where it stands, after the joins: it is never moved below them.) Then a run that stores a hash-chosen two thirds of what is
    # left, standing for a failure in a multi-threaded INSERT (any subset of blocks committed):
    # it certainly stores some of an order's versions and not the others. The fold (G3's first
    # run, of G2's hot rows, G1's being deleted by then): at its 201st row in (creation day,
    # order_id, updated_at) order, in blocks of one row (a read of the table itself comes in
    # blocks of many rows, whatever max_block_size says; the window hands them on one by one);
    # its final sort by creation day would gather every row before the INSERT gets any, so the
    # cut fold leaves it to the window, which hands the rows on in the same day order. The window
    # reads the hot table as two halves: the rows of one part come as one block, and a sort of
    # one block hands it on whole, so a hot table whose G2 rows a background merge had put into
    # one part (its merges are not stopped: the housekeeping's mutation needs them) folded
    # nothing before the cut (seen once, beside a soak; a regression now: the hot table is merged
    # into one part per load before the cut).
    cut_freeze=$(sed "s/^    WHERE {load_id:String} NOT IN (SELECT _load_id FROM ods.order_frozen) /    WHERE throwIf(_offset >= 2600, 'test interruption') = 0 AND {load_id:String} NOT IN (SELECT _load_id FROM ods.order_frozen) /" <<<"$freeze")
    cut_bad=$(sed -e "s/^FROM ods.order_manifest\$/FROM (SELECT *, row_number() OVER (ORDER BY _load_id, _topic, _partition, _offset) AS _n FROM ods.order_manifest)/" \
        -e "s/^WHERE _load_id = {load_id:String}\$/WHERE throwIf(_n > 0 AND _load_id = {load_id:String} AND _offset >= 2600, 'test interruption') = 0 AND _load_id = {load_id:String}/" <<<"$bad")
    cut_good=$(sed "s/^WHERE _put_hot OR _put_stale OR _put_fate;\$/WHERE throwIf(rowNumberInAllBlocks() >= 500, 'test interruption') = 0 AND (_put_hot OR _put_stale OR _put_fate);/" <<<"$good")
    part_good=$(sed "s/^WHERE _put_hot OR _put_stale OR _put_fate;\$/WHERE (_put_hot OR _put_stale OR _put_fate) AND cityHash64(order_id, updated_at) % 3 != 0;/" <<<"$good")
    cut_fold=$(sed -e "s/^FROM ods.order_snapshot_hot\$/FROM (SELECT *, row_number() OVER (ORDER BY toYYYYMMDD(created_at), order_id, updated_at, _load_id) AS _n FROM (SELECT * FROM ods.order_snapshot_hot WHERE cityHash64(order_id) % 2 = 0 UNION ALL SELECT * FROM ods.order_snapshot_hot WHERE cityHash64(order_id) % 2 = 1))/" \
        -e "s/^WHERE {load_id:String} NOT IN /WHERE throwIf(_n > 200, 'test interruption') = 0 AND {load_id:String} NOT IN /" \
        -e "s/^ORDER BY toYYYYMMDD(created_at);\$/;/" <<<"$fold")
    [ "$(grep -c 'cityHash64(order_id, updated_at) % 3' <<<"$part_good")" -eq 1 ]
    for cut in "$cut_freeze" "$cut_bad" "$cut_good" "$cut_fold"; do
        [ "$(grep -c 'test interruption' <<<"$cut")" -eq 1 ]
        [ "$(tail -c 2 <<<"$cut")" = ";" ]
    done
    [ "$(grep -c ' AS _n FROM ods.order_manifest)$' <<<"$cut_bad")" -eq 1 ]
    [ "$(grep -c ' AS _n FROM (SELECT \* FROM ods.order_snapshot_hot WHERE .* UNION ALL SELECT \* FROM ods.order_snapshot_hot WHERE .*))$' <<<"$cut_fold")" -eq 1 ]
    [ "$(grep -c '^ORDER BY' <<<"$cut_fold")" -eq 0 ]
    small="max_block_size = 50, max_insert_block_size = 50, min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0, min_joined_block_size_rows = 0, min_joined_block_size_bytes = 0, max_threads = 1"
    defaults="max_block_size = DEFAULT, max_insert_block_size = DEFAULT, min_insert_block_size_rows = DEFAULT, min_insert_block_size_bytes = DEFAULT, min_joined_block_size_rows = DEFAULT, min_joined_block_size_bytes = DEFAULT, max_threads = DEFAULT"
    STAGE_SETTINGS="$STAGE_SETTINGS, max_block_size = 50, max_insert_block_size = 50, min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0"
    # one process (merges of the ODS tables stay stopped), so the failing statements run with
    # --ignore-error; the counts after each prove it failed part-way, and the clean run's counts
    # are checked on their own. Each failed run leaves the lease held: the operator clears it
    # before the next. A load's stored versions stay in the hot table until the transition after
    # the next one.
    sql="$(two_pairs_sql)
$(stage_lines stg G1 d1.jsonl '2026-03-01 23:00:00' 1000)
$(stage_lines stg G2 g2.jsonl '2026-03-03 23:00:00' 2000)
$(stage_lines stg G3 d4.jsonl '2026-03-04 23:00:00' 4000)
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;
SET param_load_id = 'G1';
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)
SET param_load_id = 'G2';
$(ods_ddl transition --stg-db s2 --ods-db o2)
SELECT 'clean: every rejected message recorded', (SELECT count() FROM o2.order_snapshot_errors WHERE _load_id = 'G2') = (SELECT countIf(order_wire_class(raw) != '') FROM s2.orders_raw WHERE _load_id = 'G2');
SELECT 'clean: the versions no earlier load delivered stored', (SELECT count() FROM o2.order_snapshot_hot WHERE _load_id = 'G2')
    = (SELECT uniqExact(JSONExtractString(raw, 'order_id'), JSONExtractString(raw, 'updated_at')) FROM s2.orders_raw WHERE _load_id = 'G2' AND order_wire_class(raw) = ''
        AND (JSONExtractString(raw, 'order_id'), JSONExtractString(raw, 'updated_at')) NOT IN
            (SELECT JSONExtractString(raw, 'order_id'), JSONExtractString(raw, 'updated_at') FROM s2.orders_raw WHERE _load_id = 'G1' AND order_wire_class(raw) = ''))
    AND (SELECT stored FROM o2.order_loads WHERE _load_id = 'G2') = (SELECT count() FROM o2.order_snapshot_hot WHERE _load_id = 'G2');
SET $small;
-- run 0: the freeze fails part-way
$checks
$cut_freeze
SELECT 'run 0 froze some of G2, not all, and sealed nothing', (SELECT count() FROM ods.order_manifest WHERE _load_id = 'G2') BETWEEN 100 AND (SELECT count() - 100 FROM s2.orders_raw WHERE _load_id = 'G2')
    AND (SELECT count() FROM ods.order_frozen WHERE _load_id = 'G2') = 0;
-- run 1: the freeze completes, the errors INSERT fails part-way
DROP TABLE IF EXISTS ods.order_lease;
$pre
$cut_bad
SELECT 'run 1 sealed G2 whole and stored some errors, not all', (SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'G2') BETWEEN 10 AND (SELECT count() - 10 FROM o2.order_snapshot_errors WHERE _load_id = 'G2')
    AND (SELECT staged, messages FROM ods.order_frozen WHERE _load_id = 'G2') = (SELECT count(), count() FROM s2.orders_raw WHERE _load_id = 'G2');
-- run 2: the errors INSERT completes, the good INSERT fails part-way
DROP TABLE IF EXISTS ods.order_lease;
$pre
$bad
SET max_block_size = 1, max_insert_block_size = 1;
$cut_good
SELECT 'run 2 stored some versions, not all', (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'G2') BETWEEN 50 AND (SELECT count() - 50 FROM o2.order_snapshot_hot WHERE _load_id = 'G2');
-- run 3: two thirds of the rest, by hash
SET max_block_size = 50, max_insert_block_size = 50;
DROP TABLE IF EXISTS ods.order_lease;
$pre
$bad
$part_good
SELECT 'run 3 left an order with some of its G2 versions stored, not all', (SELECT count() FROM
    (SELECT order_id, count() AS n FROM ods.order_snapshot_hot WHERE _load_id = 'G2' GROUP BY order_id) AS i
    INNER JOIN (SELECT order_id, count() AS n FROM o2.order_snapshot_hot WHERE _load_id = 'G2' GROUP BY order_id) AS c USING (order_id)
    WHERE i.n < c.n) > 0 AND (SELECT count() FROM ods.order_loads WHERE _load_id = 'G2') = 0;
SET $defaults;
-- run 4: the real transition, its gate in pieces of about 300 messages
DROP TABLE IF EXISTS ods.order_lease;
$(ods_ddl transition --piece-size 300)
SET param_load_id = 'G3';
-- G3, run 1: up to the housekeeping, then the fold of G2 fails part-way
$upto_fold
OPTIMIZE TABLE ods.order_snapshot_hot FINAL;
SET $small;
SET max_block_size = 1, max_insert_block_size = 1;
$cut_fold
SELECT concat('G3 run 1 folded some of G2''s versions, not all (', toString(f), ' of ', toString(h), ', in ', toString(p), ' hot parts)'), f BETWEEN 50 AND h - 50
    FROM (SELECT (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'G2') AS f, (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'G2') AS h,
                 (SELECT count() FROM system.parts WHERE database = 'ods' AND table = 'order_snapshot_hot' AND active) AS p);
SET $defaults;
-- G3, run 2: the real transition
DROP TABLE IF EXISTS ods.order_lease;
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)
SELECT 'G3 stored versions after the recovery', (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'G3') > 50
    AND (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'G2') = (SELECT count() FROM o2.order_snapshot_rep WHERE _load_id = 'G2')
    AND (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'G2') > 100;
$(ledger_sql ods o2)
$(dump_sql ods a)
$(dump_sql o2 b)"
    run_sql "$sql" --ignore-error
    [ "$status" -eq 0 ]
    echo "$output"
    [ "$(grep -c $'\t1$' <<<"$output")" -eq 10 ]
    [ "$(wc -l <<<"$output")" -eq 10 ]
    same_dumps
}

@test "any span of created_at, 1900-2299: a load of orders created on 300 days from 1900-01-01 to 2299-12-31 commits, each row in its own day's partition, and the next load folds it (both modes), under the default partition limit" {
    # no statement raises the limit on the partitions an INSERT block may write: the fold (the
    # one INSERT into _rep, one part per creation day) sorts by day instead
    tr=$(ods_ddl transition)
    [ "$(grep -c '[^_]max_partitions_per_insert_block' <<<"$tr")" -eq 0 ]
    [ "$(tr_pick 7 <<<"$tr" | grep -c '^ORDER BY toYYYYMMDD(created_at);$')" -eq 1 ]
    # 300 orders on days spread evenly over the contract's range (three times the default limit
    # of 100 partitions per INSERT block), at the first and the last millisecond of their day,
    # and four on the edges of the engine's Date (1970-01-01 … 2149-06-06), where a toDate
    # partition wrapped; staged as a file by ods-ddl stage
    cat >gen.sql <<'SQL'
SELECT concat('{"order_id":"SPAN-', toString(k), '","user_id":1,"status":"paid","created_at":"', ts, '","updated_at":"', ts,
    '","items_total":"1.00","discount":"0.00","delivery":"0.00","total":"1.00","items":[],"snapshot_date":"2026-01-05"}')
FROM (SELECT number AS k, concat(toString(toDate32('1900-01-01') + intDiv(number * 146096, 299)), if(number % 2 = 0, 'T00:00:00.000Z', 'T23:59:59.999Z')) AS ts
      FROM numbers(300)
      UNION ALL
      SELECT 300 + number, concat(['1969-12-31', '1970-01-01', '2149-06-06', '2149-06-07'][number + 1], 'T12:00:00.000Z') FROM numbers(4))
ORDER BY k
INTO OUTFILE 'span.jsonl' TRUNCATE FORMAT TSVRaw
SQL
    chlocal --no-udf --queries-file gen.sql
    [ "$(wc -l <span.jsonl)" -eq 304 ]
    [ "$(head -1 span.jsonl | grep -o '"created_at":"[^"]*"')" = '"created_at":"1900-01-01T00:00:00.000Z"' ]
    [ "$(sed -n 300p span.jsonl | grep -o '"created_at":"[^"]*"')" = '"created_at":"2299-12-31T23:59:59.999Z"' ]
    echo '{"order_id":"Z-1","user_id":1,"status":"paid","created_at":"2026-01-05T00:00:00.000Z","updated_at":"2026-01-05T00:00:00.000Z","items_total":"1.00","discount":"0.00","delivery":"0.00","total":"1.00","items":[],"snapshot_date":"2026-01-05"}' >z.jsonl
    for store in changes every; do
        rm -rf db
        check_all "$(ods_ddl schema)
SET max_partitions_per_insert_block = 100;
SET param_load_id = 'Y';
$(ods_ddl stage --source span --file "$PWD/span.jsonl")
SET param_load_id = 'Z';
$(ods_ddl stage --source z --file "$PWD/z.jsonl")
SET param_load_id = 'Y';
$(ods_ddl transition --store "$store")
SET param_load_id = 'Z';
$(ods_ddl transition --store "$store")
SELECT '$store: Y and Z committed, Y all stored, all folded into _rep by Z''s transition', (SELECT groupArray((_load_id, accepted, stored)) FROM (SELECT * FROM ods.order_loads ORDER BY delta)) = [('Y', 304, 304), ('Z', 1, 1)]
    AND (SELECT count() FROM ods.order_snapshot_rep WHERE _load_id = 'Y') = 304;
SELECT '$store: one partition per creation day, the YYYYMMDD of the message''s created_at text', (SELECT count() FROM ods.order_snapshot_rep AS r
        INNER JOIN (SELECT JSONExtractString(raw, 'order_id') AS order_id, replaceAll(substring(JSONExtractString(raw, 'created_at'), 1, 10), '-', '') AS day FROM stg.orders_raw) AS s USING (order_id)
        WHERE r._partition_id = s.day) = 304
    AND (SELECT uniqExact(_partition_id) FROM ods.order_snapshot_rep WHERE _load_id = 'Y') = (SELECT uniqExact(substring(JSONExtractString(raw, 'created_at'), 1, 10)) FROM stg.orders_raw WHERE _load_id = 'Y')
    AND (SELECT uniqExact(_partition_id) FROM ods.order_snapshot_rep WHERE _load_id = 'Y') > 300;
SELECT '$store: the edges: 1900-01-01, 1969-12-31, 1970-01-01, 2149-06-06, 2149-06-07, 2299-12-31 each in its day', (SELECT groupArray((_partition_id, toString(created_at))) FROM (SELECT _partition_id, created_at FROM ods.order_snapshot_rep
        WHERE _partition_id IN ('19000101', '19691231', '19700101', '21490606', '21490607', '22991231') ORDER BY created_at))
    = [('19000101', '1900-01-01 00:00:00.000'), ('19691231', '1969-12-31 12:00:00.000'), ('19700101', '1970-01-01 12:00:00.000'),
       ('21490606', '2149-06-06 12:00:00.000'), ('21490607', '2149-06-07 12:00:00.000'), ('22991231', '2299-12-31 23:59:59.999')];
SELECT '$store: order_v shows every order once', (SELECT count(), uniqExact(order_id) FROM ods.order_v) = (305, 305);
$(ledger_sql)"
    done
}

@test "cluster: the transition reads the ODS through the _dist tables with GLOBAL IN, the load's own tables (lease, manifest, seal) on its node; shard-check ddl accepts the cluster schema" {
    guard="{load_id:String} GLOBAL NOT IN (SELECT _load_id FROM ods.order_loads_dist)"
    # the gate's piece of the load's own rows, read on the shards by bucket of order_id
    bucket="((cityHash64(order_id) % 256) >= _lo) AND ((cityHash64(order_id) % 256) < _hi)"
    for store in changes every; do
        # (the gate as one INSERT here, so that each statement is a line; the run below cuts it)
        ods_ddl transition --cluster c1 --store "$store" --gate-pieces 1 | statements_tsv > st.tsv
        run_split chlocal --no-udf -q "SELECT formatQuerySingleLine(q) FROM file('$PWD/st.tsv', TSV, 'q String') FORMAT TSVRaw"
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        [ "$(wc -l <<<"$output")" -eq 12 ]
        # every read and write of a sharded table goes through its Distributed table, but the
        # housekeeping mutation, run by each shard on its own hot table (ON CLUSTER), deleting
        # only rows whose version the shard's own _rep holds
        [ "$(grep -v '^ALTER ' <<<"$output" | grep -c 'ods\.order_snapshot_\(rep\|hot\|errors\|stale\)\b')" -eq 0 ]
        [ "$(grep -c '^ALTER TABLE ods\.order_snapshot_hot ON CLUSTER c1 ' <<<"$output")" -eq 1 ]
        [ "$(grep '^ALTER ' <<<"$output" | grep -o 'FROM ods\.order_snapshot_rep AS r ' | wc -l)" -eq 1 ]
        # the ledger: written on this node (the commit), read everywhere through order_loads_dist
        [ "$(grep -o 'ods\.order_loads\b' <<<"$output" | wc -l)" -eq 1 ]
        [ "$(grep -c '^INSERT INTO ods\.order_loads (' <<<"$output")" -eq 1 ]
        # the load's own tables live on the node that runs its transition: no _dist of them
        [ "$(grep -c 'order_\(manifest\|frozen\|lease\)\(_v\)\?_dist' <<<"$output")" -eq 0 ]
        # the lease is the cluster's: a KeeperMap row taken in strict mode, the holder's own deleted
        [ "$(grep -c '^INSERT INTO ods\.order_lease_keeper SETTINGS keeper_map_strict_mode = 1 SELECT .lease., ' <<<"$output")" -eq 1 ]
        [ "$(grep -c "^DELETE FROM ods\.order_lease_keeper WHERE (name = 'lease') AND (_load_id = {load_id:String})" <<<"$output")" -eq 1 ]
        [ "$(grep -c 'order_lease\b' <<<"$output")" -eq 0 ]
        # every IN over a Distributed table is GLOBAL (the initiator's set, sent to the shards),
        # but the mutation's own (each shard reads order_loads_dist itself); the plain ones read
        # this node's manifest, seal or fates (12 of each kind in the late-row checks of 1, 3 and
        # 10: their two reads, staging's and the manifest's, each only once the load is sealed or
        # committed and staging's fingerprint, itself read only then, is not the seal's)
        grep -v '^ALTER ' <<<"$output" | grep -oE '(GLOBAL )?(NOT )?\bIN \(SELECT [^()]* FROM [a-z_.]+' >ins.txt
        [ "$(grep -cE '_dist$' ins.txt)" -eq "$([ "$store" = changes ] && echo 39 || echo 36)" ]
        [ "$(grep -E '_dist$' ins.txt | grep -vc '^GLOBAL ')" -eq 0 ]
        [ "$(grep -vc '^GLOBAL ' ins.txt)" -eq 23 ]
        [ "$(grep -v '^GLOBAL ' ins.txt | grep -vcE ' FROM ods\.order_(manifest|frozen|fates)$')" -eq 0 ]
        [ "$(grep '^ALTER ' <<<"$output" | grep -oE '(GLOBAL )?(NOT )?\bIN \(SELECT' | head -1)" = "GLOBAL NOT IN (SELECT" ]
        [ "$(grep '^ALTER ' <<<"$output" | grep -oE '(GLOBAL )?(NOT )?\bIN \(SELECT' | sed 1d | sort | uniq -c | sed 's/^ *//')" = "5 IN (SELECT" ]
        # the guard: no statement from the freeze to the commit does anything for a committed load
        for k in 4 5 6 7 8 9 10; do
            [ "$(sed -n "${k}p" <<<"$output" | grep -cF "$guard")" -eq 1 ] || { echo "$store: statement $k has no guard"; return 1; }
        done
        [ "$(grep -c "GLOBAL NOT IN (SELECT _topic, _partition, _offset FROM ods.order_snapshot_errors_dist WHERE _load_id = {load_id:String})" <<<"$output")" -eq 1 ]
        # the fold: committed hot rows from every shard, those not in order_snapshot_dist yet, by creation day
        [ "$(grep -c '^INSERT INTO ods\.order_snapshot_dist (.*) SETTINGS distributed_foreground_insert = 1, optimize_on_insert = 0, throw_on_max_partitions_per_insert_block = 0 SELECT .* FROM ods\.order_snapshot_hot_dist WHERE .*GLOBAL NOT IN (SELECT order_id, updated_at, _hashdiff, _load_id FROM ods\.order_snapshot_dist WHERE order_id GLOBAL IN .* ORDER BY toYYYYMMDD(created_at) ASC$' <<<"$output")" -eq 1 ]
        # the commit counts the load's rows on every shard, and refuses a record held twice
        # (rows and distinct records from a GROUP BY of the records' key; the hot rows, about one
        # a message: counted as read, and only those whose key's hash recurs on the whole cluster
        # grouped by the key, for what keys held twice add; the set the cluster's)
        [ "$(sed -n 10p <<<"$output" | grep -c "(SELECT sum(_c) AS n, count() AS u FROM (SELECT count() AS _c FROM ods.order_snapshot_stale_dist WHERE _load_id = {load_id:String} GROUP BY _topic, _partition, _offset)) AS x")" -eq 1 ]
        [ "$(sed -n 10p <<<"$output" | grep -c "(SELECT sum(_c) AS n, count() AS u, sum(_c0) AS c0, .* FROM (SELECT count() AS _c, countIf(error_class = 'not_an_object') AS _c0, .* FROM ods.order_snapshot_errors_dist WHERE _load_id = {load_id:String} GROUP BY _topic, _partition, _offset)) AS e")" -eq 1 ]
        key="order_id, updated_at"
        [ "$store" = changes ] || key+=", _hashdiff"
        recur="(SELECT _k FROM (SELECT cityHash64($key) AS _k FROM ods.order_snapshot_hot_dist WHERE _load_id = {load_id:String} GROUP BY _k HAVING count() > 1))"
        [ "$(sed -n 10p <<<"$output" | grep -cF "(SELECT count() AS n, n - (SELECT sum(_c) - count() FROM (SELECT count() AS _c FROM ods.order_snapshot_hot_dist WHERE (_load_id = {load_id:String}) AND (cityHash64($key) GLOBAL IN $recur) GROUP BY $key)) AS u FROM ods.order_snapshot_hot_dist WHERE _load_id = {load_id:String}) AS s")" -eq 1 ]
        if [ "$store" = changes ]; then
            # the load's order_ids are read from this node's manifest and sent to every shard;
            # the prior is order_v (FINAL on each shard over its own orders, and the committed hot
            # rows); the set of the load's own hot rows (at most the load's size) comes through
            # order_snapshot_hot_dist
            ids="order_id GLOBAL IN (SELECT order_id FROM ods.order_manifest WHERE (_load_id = {load_id:String}) AND (NOT (error_class != '')) AND (_bucket >= _lo) AND (_bucket < _hi) AND ($guard))"
            [ "$(grep -cF "SELECT order_id, 1 AS _has_prior, updated_at AS _prior_updated_at, _hashdiff AS _prior_hashdiff FROM ods.order_v WHERE ($ids) AND ($guard)) AS o USING (order_id)" <<<"$output")" -eq 1 ]
            [ "$(grep -cF "(_fate = 'stored') AND ((order_id, updated_at, _hashdiff) GLOBAL NOT IN (SELECT order_id, updated_at, _hashdiff FROM ods.order_snapshot_hot_dist WHERE (_load_id = {load_id:String}) AND $bucket AND ($guard))) AS _put_hot" <<<"$output")" -eq 1 ]
            # the gate records a stale message once, by its coordinates, from every shard's records
            [ "$(grep -cF "(_fate = 'stale') AND ((_topic, _partition, _offset) GLOBAL NOT IN (SELECT _topic, _partition, _offset FROM ods.order_snapshot_stale_dist WHERE (_load_id = {load_id:String}) AND $bucket)) AS _put_stale" <<<"$output")" -eq 1 ]
            [ "$(grep -oF "$ids" <<<"$output" | wc -l)" -eq 1 ]
        else
            # no prior: every version of the load, once; the set of the load's own hot rows (a rerun)
            [ "$(grep -c 'FROM ods\.order_v\b' <<<"$output")" -eq 0 ]
            [ "$(grep -cF "(_fate = 'stored') AND ((order_id, updated_at, _hashdiff) GLOBAL NOT IN (SELECT order_id, updated_at, _hashdiff FROM ods.order_snapshot_hot_dist WHERE (_load_id = {load_id:String}) AND $bucket AND ($guard))) AS _put_hot" <<<"$output")" -eq 1 ]
        fi
    done
    # shard-check ddl: a ReplacingMergeTree(updated_at) by created_at, sharded by cityHash64(order_id)
    ods_ddl schema --cluster c1 > c1.sql
    run_split "$BIN/shard-check" ddl --cluster c1 c1.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [[ "$output" == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster c1, sharding key cityHash64(order_id): ok"* ]]
    ods_ddl schema --cluster ods_cluster --replicated > repl.sql
    run_split "$BIN/shard-check" ddl --cluster ods_cluster --config "$ROOT/clickhouse-config/cluster.example.xml" repl.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [[ "$output" == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster ods_cluster, sharding key cityHash64(order_id): ok"* ]]
}

# --- Issue 14: the ledger and atomic publication. Loads are staged from orders-gen days, as the
# one-batch INSERT would, with offsets from FIRST (pub_stage DB LOAD FILE LOAD_TS FIRST [WHERE]).
pub_stage() {
    echo "INSERT INTO $1.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)
SELECT raw, 'orders', 0, _offset, NULL, '', '$2', '$4'
FROM (SELECT raw, $5 + rowNumberInAllBlocks() AS _offset FROM file('$PWD/$3', LineAsString, 'raw String'))
WHERE raw != '' AND (${6:-1})
SETTINGS max_threads = 1, input_format_parallel_parsing = 0, max_block_size = 50, max_insert_block_size = 50,
    min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0;"
}

# pub_split [TRANSITION OPTIONS]: the transition's statements into st1.sql … st12.sql;
# pub_cat FIRST LAST prints statements FIRST to LAST of them.
pub_split() {
    local k tr
    tr=$(ods_ddl transition "$@")
    for k in $(seq 12); do tr_pick "$k" <<<"$tr" >"st$k.sql"; done
    [ "$(cat st{1..12}.sql | wc -l)" -eq "$(tr_pick $(seq 12) <<<"$tr" | wc -l)" ]
    grep -q '^CREATE TABLE ods.order_lease ' st2.sql
    grep -qE '^INSERT INTO ods\.(order_gate|order_snapshot_hot) ' st9.sql
    grep -q '^INSERT INTO ods.order_loads ' st10.sql
    grep -q '^DROP TABLE IF EXISTS ods.order_lease;$' st12.sql
}
pub_cat() { local k; for k in $(seq "$1" "$2"); do cat "st$k.sql"; done; }

# pub_view_is TABLE TAG: order_v holds exactly TABLE's rows (both ways), one per order.
pub_view_is() {
    echo "SELECT '$2: order_v = $1', (SELECT count() FROM (SELECT * FROM ods.order_v EXCEPT SELECT * FROM $1)) = 0
    AND (SELECT count() FROM (SELECT * FROM $1 EXCEPT SELECT * FROM ods.order_v)) = 0
    AND (SELECT count() FROM ods.order_v) = (SELECT count() FROM $1)
    AND (SELECT count() FROM ods.order_v) = (SELECT uniqExact(order_id) FROM ods.order_v);"
}

# Forced merges of the ODS tables order_v and the transition read: what background merges may do
# at any moment.
PUB_MERGE="OPTIMIZE TABLE ods.order_snapshot_rep FINAL; OPTIMIZE TABLE ods.order_snapshot_hot FINAL; OPTIMIZE TABLE ods.order_manifest FINAL;"

pub_check() {
    run_sql "$1" --ignore-error
    echo "$output"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ -n "$output" ]
    if grep -qv $'\t1$' <<<"$output"; then echo "$stderr_text"; return 1; fi
}

@test "publication: order_v shows no part of a load before its commit and all of it after, with merges forced between every statement" {
    for d in 1 2 3; do og --orders 400 --days 3 --dirty 0.05 --seed 21 --day "$d" > "d$d.jsonl"; done
    pub_split
    # a clean reference (o2) runs every load in one go; the treated ODS runs statement by
    # statement, merges forced after each, order_v checked after each
    sql="$(ods_ddl schema)
$(ods_ddl schema --stg-db s2 --ods-db o2)
$(pub_stage stg P1 d1.jsonl '2026-03-01 23:00:00' 1000)
$(pub_stage stg P2 d2.jsonl '2026-03-02 23:00:00' 2000)
$(pub_stage stg P3 d3.jsonl '2026-03-03 23:00:00' 3000)
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;
CREATE DATABASE t;
SET param_load_id = 'P1';
$(pub_cat 1 12)
$(ods_ddl transition --stg-db s2 --ods-db o2)
CREATE TABLE t.v1 ENGINE = Memory AS SELECT * FROM ods.order_v;
CREATE TABLE t.c1 ENGINE = Memory AS SELECT * FROM o2.order_v;"
    for l in 2 3; do
        prev=$((l - 1))
        sql+="
SET param_load_id = 'P$l';
$(ods_ddl transition --stg-db s2 --ods-db o2)
CREATE TABLE t.c$l ENGINE = Memory AS SELECT * FROM o2.order_v;"
        for i in $(seq 9); do
            sql+="
$(cat "st$i.sql")
$PUB_MERGE
$(pub_view_is "t.c$prev" "P$l after statement $i and merges")"
        done
        sql+="
SELECT 'P$l before the commit: hot rows of P$l exist, none visible', (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'P$l') > 20
    AND (SELECT count() FROM ods.order_v WHERE _load_id = 'P$l') = 0;
$(cat st10.sql)
$(pub_view_is "t.c$l" "P$l after the commit")
$PUB_MERGE
$(pub_view_is "t.c$l" "P$l after the commit and merges")
$(pub_cat 11 12)
SELECT 'P$l: one delta more, the lease released', (SELECT max(delta) FROM ods.order_loads) = $l AND (SELECT count() FROM ods.order_loads) = $l
    AND (SELECT count() FROM ods.order_lease_v) = 0;"
    done
    sql+="
SELECT 'the clean run stored versions of P2 and P3, order_v changed each time', (SELECT count() FROM (SELECT * FROM t.c2 EXCEPT SELECT * FROM t.c1)) > 20
    AND (SELECT count() FROM (SELECT * FROM t.c3 EXCEPT SELECT * FROM t.c2)) > 20;
-- the engine as the oracle of the view: with every committed load folded, order_v (its W and
-- argMax branch over the hot rows) is exactly the engine's plain FINAL over _rep
$(fold_sql)
SELECT 'order_v = plain _rep FINAL once all is folded', (SELECT count() FROM (SELECT * FROM ods.order_v EXCEPT SELECT * EXCEPT _hashdiff_profile FROM ods.order_snapshot_rep FINAL)) = 0
    AND (SELECT count() FROM (SELECT * EXCEPT _hashdiff_profile FROM ods.order_snapshot_rep FINAL EXCEPT SELECT * FROM ods.order_v)) = 0
    AND (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'P3') > 20;
$(ledger_sql ods o2)"
    pub_check "$sql"
    # per load P2, P3: 9 statements, before the commit, after it twice, the delta; then 4
    [ "$(wc -l <<<"$output")" -eq 30 ]
}

@test "publication: a load that fails in the middle of its good INSERT stays invisible, merges or not; its rerun commits exactly a clean run" {
    for d in 1 2; do og --orders 500 --days 2 --dirty 0.05 --seed 23 --day "$d" > "d$d.jsonl"; done
    pub_split --gate-pieces 1 # the gate as one INSERT, cut once below
    # The good INSERT fails at F2's 251st message (of 500), one row a block, one thread
    # (small_writes: the gate's own block size would override the session's). Its source reads
    # the manifest through a window that hands the rows on one by one: a read of one part comes
    # as one block whatever max_block_size says (cut by a row count inside such a block, the
    # INSERT left no fate at all, with cuts from the 100th to the 470th row). The cut is a filter over the
    # window, which the engine cannot move below it. It once relied on the freeze writing several
    # parts, which it does not when a background merge has put the staged load into one part
    # (seen once in CI: 'the failed INSERT left some hot rows of F2, not all' 0); a regression
    # still: F2's manifest is merged into one part before the cut.
    cut=$(small_writes <st9.sql | sed -e "s/^            FROM ods.order_manifest\$/            FROM (SELECT *, row_number() OVER (PARTITION BY _load_id ORDER BY _bucket, _topic, _partition, _offset) AS _n FROM ods.order_manifest)/" \
        -e "s/^            WHERE _load_id = {load_id:String} AND NOT /            WHERE throwIf(_n > 250, 'test interruption') = 0 AND _load_id = {load_id:String} AND NOT /")
    [ "$(grep -c 'test interruption' <<<"$cut")" -eq 1 ]
    [ "$(grep -c ' AS _n FROM ods.order_manifest)$' <<<"$cut")" -eq 1 ]
    [ "$(grep -c 'max_insert_threads' <<<"$cut")" -eq 0 ]
    small="max_block_size = 1, max_insert_block_size = 1, min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0, min_joined_block_size_rows = 0, min_joined_block_size_bytes = 0, max_threads = 1"
    sql="$(ods_ddl schema)
$(ods_ddl schema --stg-db s2 --ods-db o2)
SYSTEM STOP MERGES ods.order_snapshot_rep;
SYSTEM STOP MERGES o2.order_snapshot_rep;
$(pub_stage stg F1 d1.jsonl '2026-03-01 23:00:00' 1000)
$(pub_stage stg F2 d2.jsonl '2026-03-02 23:00:00' 2000)
INSERT INTO s2.orders_raw SELECT * FROM stg.orders_raw;
CREATE DATABASE t;
SET param_load_id = 'F1';
$(ods_ddl transition)
$(ods_ddl transition --stg-db s2 --ods-db o2)
CREATE TABLE t.v1 ENGINE = Memory AS SELECT * FROM ods.order_v;
SET param_load_id = 'F2';
$(ods_ddl transition --stg-db s2 --ods-db o2)
SET max_block_size = 50, max_insert_block_size = 50, min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0, max_threads = 1;
$(pub_cat 1 8)
OPTIMIZE TABLE ods.order_manifest PARTITION 'F2' FINAL;
SELECT 'F2''s manifest in one part, which a plain read hands on as one block', (SELECT count() FROM system.parts WHERE database = 'ods' AND table = 'order_manifest' AND active AND partition = 'F2') = 1;
SET $small;
$cut
SET max_block_size = DEFAULT, max_insert_block_size = DEFAULT, min_insert_block_size_rows = DEFAULT, min_insert_block_size_bytes = DEFAULT, min_joined_block_size_rows = DEFAULT, min_joined_block_size_bytes = DEFAULT, max_threads = DEFAULT;
SELECT 'the failed INSERT left some hot rows of F2, not all', (SELECT count() FROM ods.order_snapshot_hot WHERE _load_id = 'F2') BETWEEN 10 AND (SELECT count() - 10 FROM o2.order_snapshot_hot WHERE _load_id = 'F2');
$(pub_view_is t.v1 'after the failure')
SYSTEM START MERGES ods.order_snapshot_rep;
$PUB_MERGE
SYSTEM STOP MERGES ods.order_snapshot_rep;
$(pub_view_is t.v1 'after the failure and merges')
SELECT 'F2 not in the ledger, its lease still held', (SELECT count() FROM ods.order_loads WHERE _load_id = 'F2') = 0
    AND (SELECT groupArray(_load_id) FROM ods.order_lease_v) = ['F2'];
DROP TABLE IF EXISTS ods.order_lease;
$(ods_ddl transition)
$(ledger_sql ods o2)
$(dump_sql ods a)
$(dump_sql o2 b)"
    pub_check "$sql"
    [ "$(wc -l <<<"$output")" -eq 7 ]
    same_dumps
    # the rerun kept the delta number the load would have had: 2, no gap
    [ "$(cut -f1,2 a.order_loads.tsv)" = "$(printf '1\tF1\n2\tF2')" ]
}

@test "ledger: deltas 1, 2, 3; each load's figures equal independent counts; a committed load's rerun changes no table; an uncommitted one keeps its delta" {
    for d in 1 2 3; do og --orders 500 --days 3 --dirty 0.08 --seed 29 --day "$d" > "d$d.jsonl"; done
    # Load K3 also repeats K1's messages (stale and unchanged versions for it, under new offsets).
    cat d3.jsonl d1.jsonl > k3.jsonl
    pub_split
    # Independent figures, taken before each load's transition: accepted by the UDF itself,
    # stale = accepted messages older than what order_v shows (JSON read by the engine's own
    # best-effort parser, not the contract's extraction).
    figures() {
        echo "INSERT INTO t.fig SELECT {load_id:String},
    (SELECT count() FROM stg.orders_raw WHERE _load_id = {load_id:String}),
    (SELECT countIf(order_wire_class(raw) = '') FROM stg.orders_raw WHERE _load_id = {load_id:String}),
    (SELECT count() FROM (SELECT JSONExtractString(raw, 'order_id') AS order_id,
                                 parseDateTime64BestEffort(JSONExtractString(raw, 'updated_at'), 3, 'UTC') AS u
                          FROM stg.orders_raw WHERE _load_id = {load_id:String} AND order_wire_class(raw) = '') AS l
     INNER JOIN (SELECT order_id, updated_at FROM ods.order_v) AS v USING (order_id) WHERE u < v.updated_at),
    (SELECT countIf(order_wire_class(raw) = 'not_an_object') FROM stg.orders_raw WHERE _load_id = {load_id:String}),
    (SELECT countIf(order_wire_class(raw) = 'keyset_mismatch') FROM stg.orders_raw WHERE _load_id = {load_id:String}),
    (SELECT countIf(order_wire_class(raw) = 'field_invalid') FROM stg.orders_raw WHERE _load_id = {load_id:String});"
    }
    state="SELECT toString(((SELECT groupBitXor(cityHash64(*)) FROM ods.order_snapshot_rep), (SELECT groupBitXor(cityHash64(*)) FROM ods.order_snapshot_hot),
    (SELECT groupBitXor(cityHash64(*)) FROM ods.order_snapshot_errors), (SELECT groupBitXor(cityHash64(*)) FROM ods.order_loads),
    (SELECT groupBitXor(cityHash64(*)) FROM ods.order_snapshot_stale), (SELECT groupBitXor(cityHash64(*)) FROM ods.order_manifest),
    (SELECT groupBitXor(cityHash64(*)) FROM ods.order_frozen),
    (SELECT count() FROM ods.order_snapshot_rep) + (SELECT count() FROM ods.order_snapshot_hot) + (SELECT count() FROM ods.order_loads)
    + (SELECT count() FROM ods.order_snapshot_stale)))"
    sql="$(ods_ddl schema)
SYSTEM STOP MERGES ods.order_snapshot_rep;
$(pub_stage stg K1 d1.jsonl '2026-03-01 23:00:00' 1000)
$(pub_stage stg K2 d2.jsonl '2026-03-02 23:00:00' 2000)
$(pub_stage stg K3 k3.jsonl '2026-03-03 23:00:00' 3000)
CREATE DATABASE t;
CREATE TABLE t.fig (l String, received UInt64, accepted UInt64, stale UInt64, nao UInt64, ksm UInt64, fi UInt64) ENGINE = Memory;
CREATE TABLE t.state (s String) ENGINE = Memory;
SET param_load_id = 'K1';
$(figures)
$(pub_cat 1 12)
SET param_load_id = 'K2';
$(figures)
$(pub_cat 1 9)
-- K2 died before its commit, holding the lease: cleared, K2's rerun, then a rerun of the committed K2
DROP TABLE IF EXISTS ods.order_lease;
$(pub_cat 1 12)
INSERT INTO t.state $state;
$(pub_cat 1 12)
INSERT INTO t.state $state;
SET param_load_id = 'K3';
$(figures)
$(pub_cat 1 12)
INSERT INTO t.state $state;
$(pub_cat 1 12)
$(pub_cat 1 12)
INSERT INTO t.state $state;
SELECT 'deltas 1, 2, 3 in commit order', (SELECT groupArray((delta, _load_id)) FROM (SELECT * FROM ods.order_loads ORDER BY delta)) = [(1, 'K1'), (2, 'K2'), (3, 'K3')];
SELECT 'a committed load''s reruns change no table', (SELECT uniqExact(s) FROM t.state) = 2 AND (SELECT count() FROM t.state) = 4;
SELECT 'figures equal the independent counts', (SELECT count() FROM ods.order_loads AS c INNER JOIN t.fig AS f ON c._load_id = f.l
        WHERE c.received = f.received AND c.accepted = f.accepted AND c.stale = f.stale AND c.rejected = f.received - f.accepted
          AND c.not_an_object = f.nao AND c.keyset_mismatch = f.ksm AND c.field_invalid = f.fi
          AND c.stored + c.unchanged + c.stale = c.accepted AND c.redelivered = 0) = 3;
SELECT 'stored = the load''s versions in the ODS', (SELECT groupArray((_load_id, stored)) FROM (SELECT _load_id, stored FROM ods.order_loads ORDER BY _load_id))
    = (SELECT groupArray((_load_id, n)) FROM (SELECT _load_id, count() AS n FROM (SELECT order_id, updated_at, _load_id FROM ods.order_snapshot_rep
        UNION DISTINCT SELECT order_id, updated_at, _load_id FROM ods.order_snapshot_hot) GROUP BY _load_id ORDER BY _load_id));
SELECT * EXCEPT committed_at FROM ods.order_loads ORDER BY delta FORMAT TSV;
SELECT 'K3 has stale and unchanged versions, K1 stored all it accepted', (SELECT stale > 20 AND unchanged > 20 FROM ods.order_loads WHERE _load_id = 'K3')
    AND (SELECT stored = accepted AND stale = 0 AND unchanged = 0 FROM ods.order_loads WHERE _load_id = 'K1');
$(ledger_sql)"
    run_sql "$sql"
    echo "$output"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(grep -c "^[A-Za-z].*"$'\t1$' <<<"$output")" -eq 6 ]
    [ "$(grep -c "^[A-Za-z]" <<<"$output")" -eq 6 ]
    [ "$(grep -c "^[123]"$'\tK' <<<"$output")" -eq 3 ]
}

@test "lease: a run while another holds it is refused at 1/12 naming the holder, writing nothing; a run whose lease was taken over stops at its next statement; cleared, the reruns commit" {
    og --orders 300 --days 1 --seed 31 --day 1 > d1.jsonl
    chlocal --path db -q "$(ods_ddl schema)
$(pub_stage stg Q0 d1.jsonl '2026-03-01 22:00:00' 1000 "_offset < 1020")
$(pub_stage stg Q1 d1.jsonl '2026-03-01 23:00:00' 1000)"
    pub_split
    pub_cat 1 12 >all.sql
    pub_cat 1 2 >take.sql
    state="SELECT (SELECT count() FROM ods.order_manifest), (SELECT count() FROM ods.order_frozen), (SELECT count() FROM ods.order_snapshot_hot),
        (SELECT count() FROM ods.order_snapshot_errors), (SELECT count() FROM ods.order_loads), (SELECT groupArray(_load_id) FROM ods.order_lease_v) FORMAT TSV"
    # Q0's run holds the lease (statement 2 taken, the rest not run yet): Q1 is refused at its
    # first statement, which names the holder and the remedy, and writes nothing
    chlocal --path db --param_load_id=Q0 --queries-file take.sql
    [ "$(chlocal --path db -q "$state")" = "$(printf "0\t0\t0\t0\t0\t['Q0']")" ]
    run_split chlocal --path db --param_load_id=Q1 --queries-file all.sql
    refused 1 "the lease is held by load Q0 since 20" "another transition is running, or one died. Nothing was done" \
        "When none is running, clear it with: DROP TABLE IF EXISTS ods.order_lease; then rerun"
    [ "$(chlocal --path db -q "$state")" = "$(printf "0\t0\t0\t0\t0\t['Q0']")" ]
    # Q0's run died: the operator clears the lease. Q1 takes it and checks its staging
    # (statements 1-3); the lease is cleared again under it and Q0 reruns, taking it: the rest of
    # Q1's run stops at its next statement, the freeze, naming the holder, having frozen nothing
    chlocal --path db -q "DROP TABLE IF EXISTS ods.order_lease"
    chlocal --path db --param_load_id=Q1 -q "$(pub_cat 1 3)"
    [ "$(chlocal --path db -q "$state")" = "$(printf "0\t0\t0\t0\t0\t['Q1']")" ]
    chlocal --path db -q "DROP TABLE IF EXISTS ods.order_lease"
    chlocal --path db --param_load_id=Q0 --queries-file take.sql
    run_split chlocal --path db --param_load_id=Q1 -q "$(pub_cat 4 12)"
    refused 4 "this run of load Q1 does not hold the lease (load Q0 holds it since 20" "from statement 1"
    [ "$(chlocal --path db -q "$state")" = "$(printf "0\t0\t0\t0\t0\t['Q0']")" ]
    # Q0 finishes and releases the lease; Q1's rerun commits
    chlocal --path db --param_load_id=Q0 -q "$(pub_cat 3 12)"
    chlocal --path db --param_load_id=Q1 --queries-file all.sql
    check_all "SELECT 'Q0 then Q1 committed, nothing holds the lease', (SELECT groupArray((delta, _load_id)) FROM (SELECT * FROM ods.order_loads ORDER BY delta)) = [(1, 'Q0'), (2, 'Q1')]
    AND (SELECT count() FROM system.tables WHERE database = 'ods' AND name = 'order_lease') = 0 AND (SELECT count() FROM ods.order_lease_v) = 0;
SELECT 'order_v shows Q1''s orders', (SELECT count() FROM ods.order_v) > 100 AND (SELECT count() FROM ods.order_v) = (SELECT uniqExact(JSONExtractString(raw, 'order_id')) FROM stg.orders_raw);
$(ledger_sql)"
}

@test "engine facts the design stands on: PREWHERE runs before FINAL unless apply_prewhere_after_final = 1; no transactions here" {
    run_split chlocal --path db -q "
        CREATE TABLE r (k String, u UInt32, l String) ENGINE = ReplacingMergeTree(u) ORDER BY k;
        INSERT INTO r VALUES ('a', 1, 'L1'); INSERT INTO r VALUES ('a', 2, 'L2');
        SELECT l FROM r FINAL PREWHERE l != 'L2';
        SELECT count() FROM r FINAL PREWHERE l != 'L2' SETTINGS apply_prewhere_after_final = 1;
        SELECT count() FROM r FINAL WHERE l != 'L2';"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'L1\n0\n0')" ]
    run_split chlocal --path db -q "BEGIN TRANSACTION"
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"Transactions are not supported"* ]]
}

@test "order_v: the newest stored version wins whichever table holds it (an older committed hot row never hides a newer _rep row)" {
    # regression: order_v once took every committed hot row over _rep's, however old
    row() {
        echo "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts) VALUES ('{\"order_id\":\"$1\",\"user_id\":1,\"status\":\"paid\",\"created_at\":\"2026-01-01T00:00:00.000Z\",\"updated_at\":\"$2\",\"items_total\":\"1.00\",\"discount\":\"0.00\",\"delivery\":\"0.00\",\"total\":\"1.00\",\"items\":[],\"snapshot_date\":\"2026-01-0$4\"}', 'orders', 0, $4, NULL, '', '$3', '2026-01-0$4 00:00:00');"
    }
    # --store every stores the older X of E2 too; after E3 folded E1 and E2, E2's X is still hot
    sql="$(ods_ddl schema)
$(row X 2026-01-01T10:00:00.000Z E1 1)
$(row X 2026-01-01T05:00:00.000Z E2 2)
$(row Y 2026-01-01T05:00:00.000Z E3 3)"
    for l in E1 E2 E3; do
        sql+="
SET param_load_id = '$l';
$(ods_ddl transition --store every)
SELECT '$l', order_id, updated_at, _load_id FROM ods.order_v ORDER BY order_id FORMAT TSV;"
    done
    run_sql "$sql"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    diff <(printf '%s\n' "$output") - <<'TSV'
E1	X	2026-01-01 10:00:00.000	E1
E2	X	2026-01-01 10:00:00.000	E1
E3	X	2026-01-01 10:00:00.000	E1
E3	Y	2026-01-01 05:00:00.000	E3
TSV
    check_all "$(ledger_sql)"
    # --store changes: N2 dies before its commit, holding the lease. N3 (a newer X) is refused
    # while N2 holds the lease, and again once it is cleared, while N2 is frozen and not committed
    # (loads commit one after another), each time naming N2. N2 abandoned, N3 commits, and N2,
    # run again later, commits its older X after it: stale now (stored 0, stale 1, no
    # wrapped-around count). N4 folds: order_v keeps N3's X.
    rm -rf db
    pub_split
    pub_cat 1 12 >all.sql
    ods_ddl abandon >abandon.sql
    printf '%s\n' "$(ods_ddl schema)
$(row X 2026-01-01T01:00:00.000Z N1 1)
$(row X 2026-01-01T05:00:00.000Z N2 2)
$(row X 2026-01-01T10:00:00.000Z N3 3)
$(row Y 2026-01-01T10:00:00.000Z N4 4)
SET param_load_id = 'N1';
$(pub_cat 1 12)
SET param_load_id = 'N2';
$(pub_cat 1 9)" >setup.sql # (a file: the statements are longer than an argument may be)
    chlocal --path db --queries-file setup.sql
    run_split chlocal --path db --param_load_id=N3 --queries-file all.sql
    refused 1 "the lease is held by load N2 since" "DROP TABLE IF EXISTS ods.order_lease"
    chlocal --path db -q "DROP TABLE IF EXISTS ods.order_lease"
    run_split chlocal --path db --param_load_id=N3 --queries-file all.sql
    refused 1 "load N2 is frozen and not committed" "ods-ddl abandon" "then run load N3"
    [ "$(chlocal --path db -q "SELECT count() FROM ods.order_manifest WHERE _load_id = 'N3'")" = 0 ]
    sql="SET param_load_id = 'N2';
$(cat abandon.sql)"
    for l in N3 N2 N4; do
        sql+="
SET param_load_id = '$l';
$(cat all.sql)"
    done
    run_sql "$sql
SELECT order_id, updated_at, _load_id FROM ods.order_v ORDER BY order_id FORMAT TSV;
SELECT delta, _load_id, received, accepted, stored, unchanged, stale FROM ods.order_loads ORDER BY delta FORMAT TSV;"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    diff <(printf '%s\n' "$output") - <<'TSV'
X	2026-01-01 10:00:00.000	N3
Y	2026-01-01 10:00:00.000	N4
1	N1	1	1	1	0	0
2	N3	1	1	1	0	0
3	N2	1	1	0	0	1
4	N4	1	1	1	0	0
TSV
    check_all "$(ledger_sql)"
}
