# ods_sql.bash: loaded by ods-ddl.bats and transition.bats after helpers.bash; what both need to
# build ODS SQL: the generator, the fixtures, Kafka-like deliveries, and checks that print name<TAB>1.
FIX=$ROOT/tests/fixtures/ddl
STRUCT="raw String, _topic String, _partition UInt64, _offset UInt64, _timestamp_ms String, _key String, expect String"
COLS="order_id, user_id, status, created_at, updated_at, items_total, discount, delivery, total, items, snapshot_date, _load_id"
# The mode of the transitions deliver runs; a test sets STORE=every for --store every.
STORE=changes

ods_ddl() { "$BIN/ods-ddl" "$@"; }
og() { "$BIN/orders-gen" "$@"; }

# The generator's statements, one a line, TSV-escaped, without comment lines: formatQuery input.
statements_tsv() {
    awk 'BEGIN { RS = ";\n" }
    {
        n = split($0, L, "\n"); s = ""
        for (i = 1; i <= n; i++) if (L[i] !~ /^--/ && L[i] != "") s = s (s == "" ? "" : "\n") L[i]
        if (s == "") next
        gsub(/\\/, "&&", s); gsub(/\t/, "\\t", s); gsub(/\n/, "\\n", s)
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
-- The accepted messages typed by another route than the transition (lenient conversions, fine
-- for valid text), each with its fate under --store changes found without hashdiffs: stale when
-- an earlier load delivered a greater updated_at of the order; unchanged when an earlier load
-- delivered this updated_at, or this load did at a lower offset; stored otherwise. It assumes what
-- these fixtures hold (and acceptance 3 checks): one order_id and updated_at, one state.
CREATE VIEW t.typed AS
SELECT *, multiIf(updated_at < prior_max, 'stale', updated_at = prior_max OR nth_same > 1, 'unchanged', 'stored') AS fate
FROM (
    SELECT *,
        max(updated_at) OVER (PARTITION BY order_id ORDER BY seq RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prior_max,
        row_number() OVER (PARTITION BY order_id, seq, updated_at ORDER BY _offset) AS nth_same
    FROM (
        SELECT JSONExtractString(raw, 'order_id') AS order_id, JSONExtractUInt(raw, 'user_id') AS user_id,
            JSONExtractString(raw, 'status') AS status,
            parseDateTime64BestEffort(JSONExtractString(raw, 'created_at'), 3, 'UTC') AS created_at,
            parseDateTime64BestEffort(JSONExtractString(raw, 'updated_at'), 3, 'UTC') AS updated_at,
            toDecimal64(JSONExtractString(raw, 'items_total'), 2) AS items_total,
            toDecimal64(JSONExtractString(raw, 'discount'), 2) AS discount,
            toDecimal64(JSONExtractString(raw, 'delivery'), 2) AS delivery,
            toDecimal64(JSONExtractString(raw, 'total'), 2) AS total, JSONExtractRaw(raw, 'items') AS items,
            toDate(JSONExtractString(raw, 'snapshot_date')) AS snapshot_date, load_id AS _load_id, seq, _offset
        FROM t.delivered WHERE expect = ''));
-- The current version by another route than FINAL: the greatest updated_at, ties to the version
-- stored last. Under --store changes that is the load where the version first appeared (a re-sent
-- unchanged version is not stored); under --store every the latest load that delivered it
-- (a load stores each of its versions once: its first copy).
CREATE VIEW t.current AS SELECT * FROM t.typed WHERE fate = 'stored' ORDER BY updated_at DESC, seq DESC, _offset DESC LIMIT 1 BY order_id;
CREATE VIEW t.current_every AS SELECT * FROM t.typed WHERE nth_same = 1 ORDER BY updated_at DESC, seq DESC, _offset DESC LIMIT 1 BY order_id;
SQL
}

# deliver LOAD_ID SEQ FIXTURE [WHERE] [OFFSET_EXPR]: one Kafka batch through the generated
# one-batch INSERT (param load_id), then the generated transition (--store $STORE) for that load.
deliver() {
    local id=$1 seq=$2 f=$3 where=${4:-1} off=${5:-_offset}
    cat <<SQL
TRUNCATE TABLE stg.orders_kafka;
INSERT INTO stg.orders_kafka SELECT raw, _topic, _partition, $off, toDateTime64(_timestamp_ms, 3, 'UTC'), _key FROM $(fx "$f") WHERE $where;
INSERT INTO t.delivered SELECT raw, _topic, _partition, $off, toDateTime64(_timestamp_ms, 3, 'UTC'), _key, expect, '$id', $seq FROM $(fx "$f") WHERE $where;
SET param_load_id = '$id';
SQL
    ods_ddl kafka --brokers localhost:9092 --topic orders --group ods_test
    ods_ddl transition --store "$STORE"
}

# ledger_sql [ODS_DB…]: one check per ODS database (default ods) that its ledger holds at least
# one committed load and that every one of them adds up: received = accepted + rejected +
# redelivered, accepted = stored + unchanged + stale, rejected = its three classes, and the
# rejected and stale figures are the rows the load has in the errors and stale tables. (stored
# is not compared with _rep: a merge there may replace a load's version by a newer one.)
ledger_sql() {
    local d
    for d in "${@:-ods}"; do
        cat <<SQL
SELECT 'ledger of $d: every committed load adds up', (SELECT count() FROM $d.order_loads) > 0
    AND (SELECT countIf(received != accepted + rejected + redelivered OR accepted != stored + unchanged + stale
                        OR rejected != not_an_object + keyset_mismatch + field_invalid) FROM $d.order_loads) = 0
    AND (SELECT count() FROM $d.order_loads AS l
         LEFT JOIN (SELECT _load_id, count() AS n FROM $d.order_snapshot_errors GROUP BY _load_id) AS e USING (_load_id)
         LEFT JOIN (SELECT _load_id, count() AS n FROM $d.order_snapshot_stale GROUP BY _load_id) AS s USING (_load_id)
         WHERE l.rejected != e.n OR l.stale != s.n SETTINGS join_use_nulls = 0) = 0;
SQL
    done
}

# Checks print "name<TAB>1" when they hold; check_all SQL fails unless every line does. (The SQL
# goes through a file: a command-line argument holds at most 128 KiB.)
check_all() {
    printf '%s\n' "$1" >check.sql
    run_split chlocal --path db --queries-file check.sql
    if [ "$status" -ne 0 ] || [ -z "$output" ] || grep -qv $'\t1$' <<<"$output"; then
        echo "status $status"; echo "$output"; echo "$stderr_text"
        return 1
    fi
}
