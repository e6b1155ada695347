#!/usr/bin/env bats
# shard-check: cityHash64 and Distributed routing bit for bit as the embedded engine computes them,
# config reading against system.clusters (fixtures and generated trees), the slot-table lock,
# cluster names and macros, the multi-shard ODS built from the engine's queues, the CLI's errors.
load helpers

teardown_file() { keeper_stop; }

# vlimit KB: "ulimit -v KB; " for a shell that then runs the tool, so it must stay within KB of
# address space; nothing on the ASan+UBSan build, whose shadow memory alone is larger (the rows
# still run through it there).
vlimit() {
    if grep -qx 'ODS_SANITIZE:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then return 0; fi
    printf 'ulimit -v %s; ' "$1"
}

FIX=$ROOT/tests/fixtures/shard
SC=$BIN/shard-check

# mismatches FILE_A FILE_B: how many lines differ (and fails unless both have the same count).
mismatches() {
    local a b
    a=$(wc -l <"$1") b=$(wc -l <"$2")
    [ "$a" -eq "$b" ] || { echo "line counts differ: $a vs $b" >&2; return 1; }
    # compared as strings: awk would compare numeric-looking fields as doubles, and 64-bit
    # hashes that differ in their low bits would then look equal
    paste -d ' ' "$1" "$2" | awk '($1 "") != ($2 "") {n++} END {print n + 0}'
}

@test "1 000 000 random strings of length 0-300: our cityHash64 equals the engine's, all of them" {
    # half arbitrary bytes (TSV-escaped by the engine), half printable; every length 0..300
    chlocal -q "SELECT s, cityHash64(s) FROM (SELECT if(number % 2, randomString(number % 301),
        randomPrintableASCII(rand() % 301)) AS s FROM numbers(1000000)) INTO OUTFILE 'v.tsv' FORMAT TSV"
    cut -f1 v.tsv | "$SC" hash >ours
    cut -f2 v.tsv >theirs
    [ "$(wc -l <ours)" -eq 1000000 ]
    [ "$(mismatches ours theirs)" -eq 0 ]
    # the same strings as RowBinary, the bytes exactly as stored
    chlocal --max_threads 1 -q "SELECT s FROM file('v.tsv', TSV, 's String, h UInt64') INTO OUTFILE 'v.bin' FORMAT RowBinary"
    "$SC" hash --format RowBinary v.bin >ours_rb
    [ "$(mismatches ours_rb theirs)" -eq 0 ]
}

@test "integers of every width, dates, UUID, FixedString: text and RowBinary equal the engine's cityHash64" {
    # random values over each type's whole range (CAST wraps), plus the edges of each width
    local -A gen=(
        [Int8]="CAST(rand64() AS Int8)" [Int16]="CAST(rand64() AS Int16)" [Int32]="CAST(rand64() AS Int32)"
        [Int64]="CAST(rand64() AS Int64)" [UInt8]="CAST(rand64() AS UInt8)" [UInt16]="CAST(rand64() AS UInt16)"
        [UInt32]="CAST(rand64() AS UInt32)" [UInt64]="rand64()"
        [Int128]="CAST(toInt128(rand64()) * toInt128(rand64()) * if(rand() % 2, 1, -1) AS Int128)"
        [UInt128]="CAST(toUInt128(rand64()) * toUInt128(rand64()) AS UInt128)"
        [Date]="toDate('1970-01-01') + rand() % 65536" [Date32]="toDate32('1900-01-01') + rand() % 146000"
        [DateTime]="toDateTime(rand(), 'UTC')" [UUID]="generateUUIDv4()"
        ["FixedString(12)"]="toFixedString(randomPrintableASCII(rand() % 13), 12)"
    )
    local -A edge=(
        [Int8]="[-128, -1, 0, 1, 127]" [Int16]="[-32768, -1, 0, 32767]" [Int32]="[-2147483648, -1, 0, 2147483647]"
        [Int64]="['-9223372036854775808', '-1', '0', '9223372036854775807']" [UInt8]="[0, 1, 255]"
        [UInt16]="[0, 65535]" [UInt32]="[0, 4294967295]" [UInt64]="['0', '18446744073709551615']"
        [Int128]="['-1', '0', '170141183460469231731687303715884105727']" [UInt128]="['0', '340282366920938463463374607431768211455']"
        [Date]="['1970-01-01', '2149-06-06']" [Date32]="['1900-01-01', '1969-12-31', '2299-12-31']"
        [DateTime]="['1970-01-01 00:00:00', '2106-02-07 06:28:15']"
        [UUID]="['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']"
        ["FixedString(12)"]="['', 'abcdefghijkl']"
    )
    local q="" i=0 t types=()
    for t in "${!gen[@]}"; do
        types[i]=$t
        q+="CREATE TABLE t$i (x $t) ENGINE = Memory;
            INSERT INTO t$i SELECT ${gen[$t]} FROM numbers(20000);
            INSERT INTO t$i SELECT CAST(arrayJoin(${edge[$t]}) AS $t);
            SELECT x, cityHash64(x) FROM t$i ORDER BY x INTO OUTFILE 't$i.tsv' FORMAT TSV;
            SELECT x FROM t$i ORDER BY x INTO OUTFILE 't$i.bin' FORMAT RowBinary;
            SELECT uniqExact(x) FROM t$i INTO OUTFILE 't$i.n' FORMAT TSV;"
        i=$((i + 1))
    done
    chlocal --session_timezone UTC -q "$q"
    for i in "${!types[@]}"; do
        t=${types[$i]}
        [ "$(wc -l <"t$i.tsv")" -gt 20000 ]
        [ "$(cat "t$i.n")" -gt 250 ] # every UInt8/Int8 value, thousands of the others
        cut -f2 "t$i.tsv" >theirs
        cut -f1 "t$i.tsv" | "$SC" hash --key-type "$t" >ours
        [ "$(mismatches ours theirs)" -eq 0 ] || { echo "$t: text mismatches" >&2; false; }
        "$SC" hash --key-type "$t" --format RowBinary "t$i.bin" >ours_rb
        [ "$(mismatches ours_rb theirs)" -eq 0 ] || { echo "$t: RowBinary mismatches" >&2; false; }
    done
}

# queue_through CONFIG CLUSTER KEYTYPE KEY_EXPR ROWS: a Distributed table over CLUSTER (unreachable
# shards, sends stopped) takes ROWS keys; each shard's queue is read back as "key<TAB>shard".
queue_through() {
    local cfg=$1 cluster=$2 type=$3 expr=$4 rows=$5 dp
    rm -rf db data_path routed.tsv
    chlocal --config-file "$cfg" --path "$PWD/db" -q "
        SYSTEM STOP DISTRIBUTED SENDS;
        CREATE TABLE loc (k $type) ENGINE = MergeTree ORDER BY tuple();
        CREATE TABLE dist AS loc ENGINE = Distributed($cluster, currentDatabase(), loc, cityHash64(k));
        INSERT INTO dist SELECT $expr FROM numbers($rows) SETTINGS distributed_foreground_insert = 0;
        SELECT data_paths[1] FROM system.tables WHERE database = currentDatabase() AND name = 'dist'
        INTO OUTFILE 'data_path' FORMAT TSVRaw"
    dp=$(cat data_path)
    [ -d "$dp" ]
    chlocal -q "SELECT k, toUInt32(extract(_path, 'shard(\\d+)_replica1/')) FROM
        file('${dp}shard*_replica1/*.bin', 'Distributed') INTO OUTFILE 'routed.tsv' FORMAT TSV"
    [ "$(wc -l <routed.tsv)" -eq "$rows" ]
}

@test "routing oracle, weights 1,2: shard-check route picks the engine's shard for 100 000 keys" {
    queue_through "$FIX/w12.xml" w12 String \
        "if(number % 3 = 0, randomString(rand() % 40), concat('ORD-2026-', leftPad(toString(number), 9, '0')))" 100000
    cut -f1 routed.tsv | "$SC" route --config "$FIX/w12.xml" --cluster w12 >ours
    cut -f2 routed.tsv >theirs
    [ "$(mismatches ours theirs)" -eq 0 ]
    # both shards got rows, in about the 1:2 the weights ask for
    [ "$(grep -c '^1$' theirs)" -gt 30000 ]
    [ "$(grep -c '^2$' theirs)" -gt 63000 ]
    run_split "$SC" verify --config "$FIX/w12.xml" --cluster w12 routed.tsv
    [ "$status" -eq 0 ]
    [[ $stderr_text == *"100000 rows"*"0 on several shards, 0 on a shard routing does not assign"* ]]
}

@test "routing oracle, weights 3,0,5: the zero-weight shard gets nothing, every key agrees (String and Int32 keys)" {
    queue_through "$FIX/w305.xml" w305 String "concat('ORD-2026-', leftPad(toString(number), 9, '0'))" 100000
    cut -f1 routed.tsv | "$SC" route --config "$FIX/w305.xml" --cluster w305 >ours
    cut -f2 routed.tsv >theirs
    [ "$(mismatches ours theirs)" -eq 0 ]
    [ "$(grep -c '^2$' theirs)" -eq 0 ]
    [ "$(grep -c '^1$' theirs)" -gt 30000 ]
    [ "$(grep -c '^3$' theirs)" -gt 55000 ]
    # negative integers: zero-extended value bits, then the key as unsigned modulo 8
    queue_through "$FIX/w305.xml" w305 Int32 "toInt32(rand()) - 1073741824" 100000
    cut -f1 routed.tsv | "$SC" route --config "$FIX/w305.xml" --cluster w305 --key-type Int32 >ours
    cut -f2 routed.tsv >theirs
    [ "$(mismatches ours theirs)" -eq 0 ]
    grep -q '^-' routed.tsv
}

# ods_through DIST_KEY: the ODS on ods_cluster (3 shards, weights 1,1,2) in one engine: three loads of
# versions written through a Distributed table sharded by DIST_KEY, each shard's queue delivered
# into its own database; writes "order_id<TAB>shard" of every stored version to placed.tsv and
# "rows_final orders newest_ok" to final.txt.
ods_through() {
    local key=$1 dp n q=""
    chlocal --config-file "$FIX/ods-local.xml" --path "$PWD/db" -q "
        SYSTEM STOP DISTRIBUTED SENDS;
        CREATE DATABASE ods;
        CREATE TABLE ods.order_snapshot_rep (order_id String, status String,
            created_at DateTime64(3, 'UTC'), updated_at DateTime64(3, 'UTC'))
            ENGINE = ReplacingMergeTree(updated_at) PARTITION BY toDate(created_at) ORDER BY order_id;
        CREATE TABLE ods.order_snapshot_dist AS ods.order_snapshot_rep
            ENGINE = Distributed(ods_cluster, ods, order_snapshot_rep, $key);
        INSERT INTO ods.order_snapshot_dist SELECT concat('ORD-2026-', leftPad(toString(number), 9, '0')),
            'new', toDateTime64('2026-03-01 00:00:00', 3, 'UTC') + number, toDateTime64('2026-03-01 00:00:00', 3, 'UTC') + number
            FROM numbers(20000);
        INSERT INTO ods.order_snapshot_dist SELECT concat('ORD-2026-', leftPad(toString(number), 9, '0')),
            'paid', toDateTime64('2026-03-01 00:00:00', 3, 'UTC') + number, toDateTime64('2026-03-02 00:00:00', 3, 'UTC') + number
            FROM numbers(20000) WHERE number % 2 = 0;
        INSERT INTO ods.order_snapshot_dist SELECT concat('ORD-2026-', leftPad(toString(number), 9, '0')),
            'shipped', toDateTime64('2026-03-01 00:00:00', 3, 'UTC') + number, toDateTime64('2026-03-03 00:00:00', 3, 'UTC') + number
            FROM numbers(20000) WHERE number % 4 = 0;
        SELECT data_paths[1] FROM system.tables WHERE database = 'ods' AND name = 'order_snapshot_dist'
        INTO OUTFILE 'data_path' FORMAT TSVRaw;
        SHOW CREATE TABLE ods.order_snapshot_rep INTO OUTFILE 'ddl.tsv' FORMAT TSV;
        SHOW CREATE TABLE ods.order_snapshot_dist INTO OUTFILE 'ddl.tsv' APPEND FORMAT TSV"
    dp=$(cat data_path)
    # the engine's routing: every queued version with the shard its file is queued for
    chlocal -q "SELECT *, _path FROM file('${dp}shard*_replica1/*.bin', 'Distributed') FORMAT TSV" |
        awk -F'\t' '{n = split($NF, p, "/"); s = p[n - 1]; sub(/^shard/, "", s); sub(/_replica1$/, "", s);
                      print $1 "\t" s}' >placed.tsv
    # delivery: each queued file is one INSERT into its shard's own database, as the sender does
    for n in 1 2 3; do
        [ -d "${dp}shard${n}_replica1" ] || continue
        q+="CREATE DATABASE shard$n; CREATE TABLE shard$n.order_snapshot_rep AS ods.order_snapshot_rep;"
        for f in "${dp}shard${n}_replica1"/*.bin; do
            q+="INSERT INTO shard$n.order_snapshot_rep SELECT * FROM file('$f', 'Distributed');"
        done
    done
    q+="SELECT sum(c), sum(u), min(ok) FROM (
            SELECT count() AS c, uniqExact(order_id) AS u,
                   min(status = multiIf(toUInt64(substring(order_id, 10)) % 4 = 0, 'shipped',
                                        toUInt64(substring(order_id, 10)) % 2 = 0, 'paid', 'new')) AS ok
            FROM merge(REGEXP('^shard'), '^order_snapshot_rep\$') FINAL GROUP BY _database)
        INTO OUTFILE 'final.txt' FORMAT TSV;"
    chlocal --config-file "$FIX/ods-local.xml" --path "$PWD/db" -q "$q"
}

@test "multi-shard ODS, sharded by cityHash64(order_id): FINAL on each shard gives one newest row per order" {
    ods_through "cityHash64(order_id)"
    [ "$(wc -l <placed.tsv)" -eq 35000 ] # 20000 + 10000 + 5000 versions
    # FINAL per shard (as a Distributed SELECT … FINAL runs it): 20000 rows, 20000 orders, newest kept
    [ "$(cat final.txt)" = "$(printf '20000\t20000\t1')" ]
    run_split "$SC" verify --config "$FIX/ods-local.xml" --cluster ods_cluster placed.tsv
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    run_split "$SC" ddl --config "$FIX/ods-local.xml" --cluster ods_cluster ddl.tsv
    [ "$status" -eq 0 ]
    [[ $output == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster ods_cluster, sharding key cityHash64(order_id): ok"* ]]
}

@test "multi-shard ODS, sharded by cityHash64(order_id, updated_at): versions split, FINAL duplicates, verify and ddl catch it" {
    ods_through "cityHash64(order_id, updated_at)"
    read -r rows orders ok <final.txt
    [ "$orders" -gt 20000 ] # an order counted on several shards
    [ "$rows" -gt 20000 ]
    run_split "$SC" verify --config "$FIX/ods-local.xml" --cluster ods_cluster placed.tsv
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"35000 rows, 20000 orders"* ]]
    # the split orders reported account exactly for the extra rows FINAL per shard returns
    local extra
    extra=$(awk -F'\t' '{extra += split($2, s, ",") - 1} END {print extra + 0}' <<<"$output")
    [ "$extra" -gt 0 ]
    [ "$extra" -eq "$((orders - 20000))" ]
    run_split "$SC" ddl --cluster ods_cluster ddl.tsv
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"uses updated_at, which is not part of the local table's ORDER BY key"* ]]
}

@test "multi-shard ODS, sharded by rand(): verify reports split and misplaced orders, ddl explains why" {
    ods_through "rand()"
    read -r rows orders ok <final.txt
    [ "$rows" -gt 20000 ]
    run_split "$SC" verify --config "$FIX/ods-local.xml" --cluster ods_cluster placed.tsv
    [ "$status" -eq 1 ]
    [[ $stderr_text =~ [1-9][0-9]*\ on\ several\ shards,\ [1-9][0-9]*\ on\ a\ shard ]]
    run_split "$SC" ddl --cluster ods_cluster ddl.tsv
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"sharding key rand() does not depend on the order's key"* ]]
}

# layout_vs_engine CONFIG_FOR_ENGINE CONFIG_FOR_US CLUSTER: our shard list equals system.clusters.
layout_vs_engine() {
    chlocal --config-file "$1" -q "SELECT shard_num, shard_weight, host_name, port FROM system.clusters
        WHERE cluster = '$3' ORDER BY shard_num, replica_num FORMAT TSV" >engine
    [ -s engine ]
    run_split "$SC" layout --config "$2" --cluster "$3"
    [ "$status" -eq 0 ]
    awk -F'\t' '/^shard / {split($1, s, " "); split($2, w, " "); n = split($5, r, " ");
        for (i = 2; i <= n; i++) {split(r[i], hp, ":"); print s[2] "\t" w[2] "\t" hp[1] "\t" hp[2]}}' \
        <<<"$output" >ours
    diff ours engine
}

@test "layout: shards, weights and replicas equal the engine's system.clusters (config.d merge, <node>, <yandex>)" {
    # config.xml + config.d/: a later file's <shard> merges into the matching one, remove="1" drops
    layout_vs_engine "$FIX/confdir/config.xml" "$FIX/confdir" ods_cluster
    layout_vs_engine "$FIX/confdir/config.xml" "$FIX/confdir/config.xml" ods_cluster
    [ "$(chlocal --config-file "$FIX/confdir/config.xml" -q "SELECT count() FROM system.clusters WHERE cluster = 'old_cluster'")" -eq 0 ]
    run_split "$SC" layout --config "$FIX/confdir" --cluster old_cluster
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"cluster old_cluster not found"*"clusters there: ods_cluster"* ]]
    layout_vs_engine "$FIX/nodes.xml" "$FIX/nodes.xml" nodes
    layout_vs_engine "$FIX/w305.xml" "$FIX/w305.xml" w305
    layout_vs_engine "$FIX/w305.xml" "$FIX/w305.xml" even3
    layout_vs_engine "$FIX/legacy-yandex.xml" "$FIX/legacy-yandex.xml" legacy
    layout_vs_engine "$ROOT/clickhouse-config/cluster.example.xml" "$ROOT/clickhouse-config/cluster.example.xml" ods_cluster
}

@test "layout: the example config, its system.clusters dump and a legacy <yandex> config" {
    run_split "$SC" layout --config "$ROOT/clickhouse-config/cluster.example.xml" --cluster ods_cluster --replicated
    [ "$status" -eq 0 ]
    local from_xml=$output
    [[ $output == *"3 shards, total weight 4"* ]]
    [[ $output == *$'shard 3\tweight 2\tslots 2-3\tinternal_replication true'* ]]
    chlocal --config-file "$ROOT/clickhouse-config/cluster.example.xml" -q "SELECT * FROM system.clusters FORMAT TSVWithNames" >dump.tsv
    run_split "$SC" layout --config dump.tsv --cluster ods_cluster --replicated
    [ "$status" -eq 0 ]
    [ "$output" = "$from_xml" ]
    run_split "$SC" layout --config "$FIX/legacy-yandex.xml" --cluster legacy
    [ "$status" -eq 0 ]
    [[ $output == *$'shard 1\tweight 2\tslots 0-1'*"old-1:9440"* ]]
}

@test "layout fails with the reason: all-zero weights, duplicate host:port, replicas without internal_replication" {
    run_split "$SC" layout --config "$FIX/zero.xml" --cluster zero
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"remote_servers.zero: the server refuses this config, and with it every cluster (zero too): Cluster with zero weight on all shards is prohibited (BAD_ARGUMENTS)"* ]]
    # the engine refuses that cluster too
    run_split chlocal --config-file "$FIX/zero.xml" -q "CREATE TABLE l (k String) ENGINE = Memory; CREATE TABLE d AS l ENGINE = Distributed(zero, default, l, cityHash64(k))"
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"zero weight on all shards is prohibited"* ]]
    # and a replica without <port> when the config has no <tcp_port>
    sed 's,<port>1</port>,,' "$FIX/w305.xml" >noport.xml
    run_split "$SC" layout --config noport.xml --cluster w305
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"Port is not specified in cluster configuration (NO_ELEMENTS_IN_CONFIG)"* ]]
    run_split chlocal --config-file noport.xml -q "CREATE TABLE l (k String) ENGINE = Memory; CREATE TABLE d AS l ENGINE = Distributed(w305, default, l, cityHash64(k))"
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"Port is not specified in cluster configuration"* ]]
    run_split "$SC" layout --config "$FIX/dup.xml" --cluster dup --replicated
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"CH-2:9000 is listed twice (shard 1 and shard 2)"* ]]
    run_split "$SC" layout --config "$FIX/no-internal-replication.xml" --cluster norepl --replicated
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"shard 1 has 2 replicas without internal_replication"* ]]
    run_split "$SC" layout --config "$FIX/no-internal-replication.xml" --cluster norepl
    [ "$status" -eq 0 ]
    run_split "$SC" route --config "$FIX/zero.xml" --cluster zero </dev/null
    [ "$status" -eq 1 ]
}

@test "a config the server refuses fails every command that reads it, whatever cluster is asked for, with the key and the server's reason (issue 27)" {
    local why="$FIX/refused.xml, remote_servers.other.shard.priority: the server refuses this config, and with it every cluster (ods too): Unknown element in config (UNKNOWN_ELEMENT_IN_CONFIG)"
    run_split chlocal --config-file "$FIX/refused.xml" -q "SELECT count() FROM system.clusters"
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"Unknown element in config: priority"* ]]
    run_split "$SC" layout --config "$FIX/refused.xml" --cluster ods
    [ "$status" -eq 1 ]
    [ -z "$output" ]
    [[ $stderr_text == "shard-check: $why"* ]]
    run_split "$SC" lock --config "$FIX/refused.xml" --cluster ods
    [ "$status" -eq 1 ]
    [[ $stderr_text == "shard-check: $why"* ]]
    run_split "$SC" verify --config "$FIX/refused.xml" --cluster ods </dev/null
    [ "$status" -eq 1 ]
    [[ $stderr_text == "shard-check: $why"* ]]
    run_split "$SC" route --config "$FIX/refused.xml" --cluster ods </dev/null
    [ "$status" -eq 1 ]
    [[ $stderr_text == "shard-check: $why"* ]]
    "$BIN/ods-ddl" schema --cluster ods >ods.sql
    run_split "$SC" ddl --config "$FIX/refused.xml" --cluster ods ods.sql
    [ "$status" -eq 1 ]
    [[ $stderr_text == "shard-check: $why"* ]]
    # a cluster the config does not hold: refused first, as the server has none at all
    run_split "$SC" layout --config "$FIX/refused.xml" --cluster nope
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"the server refuses this config, and with it every cluster (nope too)"* ]]
    run_split "$ROOT/scripts/check-cluster" --config "$FIX/refused.xml" --cluster ods
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"$why"* ]]
}

@test "unreadable input exits 2 with a clear message: malformed XML, wrong root, missing file, not a config" {
    run_split "$SC" layout --config "$FIX/malformed.xml" --cluster broken
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: $FIX/malformed.xml:5:7: mismatched tag" ]
    run_split "$SC" layout --config "$FIX/wrong-root.xml" --cluster x
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"root element is not <clickhouse>"* ]]
    run_split "$SC" layout --config "$FIX/nope.xml" --cluster x
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"nope.xml: No such file or directory"* ]]
    # a config.d YAML file the server would merge is not silently skipped
    mkdir -p yaml/config.d
    cp "$FIX/w305.xml" yaml/config.xml
    echo 'remote_servers: {}' >yaml/config.d/r.yaml
    run_split "$SC" layout --config yaml --cluster w305
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"YAML config files are not read here"* ]]
    run_split "$SC" route --config "$FIX/ddl/good-cluster.sql" --cluster x </dev/null
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"neither a server config (XML) nor a system.clusters dump"* ]]
}

@test "ddl: the good DDL passes; each bad one fails and says why it breaks FINAL" {
    run_split "$SC" ddl --cluster ods_cluster --config "$ROOT/clickhouse-config/cluster.example.xml" "$FIX/ddl/good-cluster.sql"
    [ "$status" -eq 0 ]
    [[ $output == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster ods_cluster, sharding key cityHash64(order_id): ok"* ]]
    [[ $output == *"ods.order_snapshot_errors_dist -> ods.order_snapshot_errors: skipped"* ]]
    local -A why=(
        [bad-key-updated-at]="uses updated_at, which is not part of the local table's ORDER BY key"
        [bad-key-rand]="does not depend on the order's key"
        [bad-no-key]="has no sharding key"
        [bad-key-siphash]="sipHash64(order_id) is not cityHash64(<ORDER BY key>)"
        [bad-version]="version column snapshot_date, not updated_at: FINAL keeps the row with the greatest snapshot_date"
        [bad-no-version]="without a version column: FINAL keeps the row inserted last"
        [bad-partition]="depends on updated_at, not only on the immutable created_at"
        [bad-cluster]="points at cluster other_cluster, not ods_cluster"
    )
    local f
    for f in "${!why[@]}"; do
        run_split "$SC" ddl --cluster ods_cluster "$FIX/ddl/$f.sql"
        echo "$f: $status $stderr_text" >&2
        [ "$status" -eq 1 ]
        [[ $stderr_text == *"${why[$f]}"* ]]
        [[ $output == *": FAIL"* ]]
    done
    run_split "$SC" ddl --cluster ods_cluster --local ods.order_snapshot_rep "$FIX/ddl/bad-engine.sql"
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"has ENGINE ReplicatedMergeTree, not ReplacingMergeTree"* ]]
    # replicated tables over replicas without internal_replication
    run_split "$SC" ddl --cluster norepl --config "$FIX/no-internal-replication.xml" --local ods.order_snapshot_rep \
        <(sed 's/ods_cluster/norepl/g' "$FIX/ddl/good-cluster.sql")
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"without internal_replication while the tables are Replicated*"* ]]
    run_split "$SC" ddl --cluster ods_cluster "$FIX/ddl/malformed.sql"
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: $FIX/ddl/malformed.sql:1: unterminated string literal" ]
}

@test "route: one shard a line, TSV escapes undone; invalid key bytes and truncated RowBinary exit 2" {
    # the engine's shards for these keys under weights 3,0,5: cityHash64(k) % 8 -> slots 0-2: 1, 3-7: 3
    chlocal -q "SELECT k, if(cityHash64(k) % 8 < 3, 1, 3) FROM (SELECT arrayJoin(['abc', '', 'a\tb', 'ORD-2026-000123456', 'x\\\\y']) AS k) FORMAT TSV" >want.tsv
    run_split "$SC" route --config "$FIX/w305.xml" --cluster w305 <(cut -f1 want.tsv)
    [ "$status" -eq 0 ]
    [ "$output" = "$(cut -f2 want.tsv)" ]
    printf 'abc\nORD-1\r\nx\n' >crlf.txt
    run_split "$SC" route --config "$FIX/w305.xml" --cluster w305 crlf.txt
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: crlf.txt:2: a carriage return inside the key (CRLF line ends?): ClickHouse writes it as \\r" ]
    printf '12\n1x\n' >ints.txt
    run_split "$SC" route --config "$FIX/w305.xml" --cluster w305 --key-type UInt64 - <ints.txt
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"stdin:2: not an unsigned integer in the type's range"* ]]
    printf 'ok\nab\\\n' >lone.txt
    run_split "$SC" route --config "$FIX/w305.xml" --cluster w305 lone.txt
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"lone.txt:2: the line ends in a lone backslash"* ]]
    chlocal -q "SELECT toString(number) FROM numbers(10) FORMAT RowBinary" | head -c 19 >cut.bin
    run_split "$SC" route --config "$FIX/w305.xml" --cluster w305 --format RowBinary cut.bin
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"cut.bin: at byte 18, after 9 keys: truncated RowBinary"* ]]
    [ "$(wc -l <<<"$output")" -eq 9 ]
}

@test "verify: bad rows exit 2; usage errors exit 2; --help on stdout" {
    printf 'order_id\t_shard_num\nabc\tone\n' >bad.tsv
    run_split "$SC" verify --config "$FIX/w305.xml" --cluster w305 bad.tsv
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"bad.tsv:2: a row is not order_id<TAB>shard_num"* ]]
    run_split "$SC" route --config "$FIX/w305.xml" --cluster w305 --bogus
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: unknown option: --bogus (try --help)" ]
    run_split "$SC" route --cluster w305
    [ "$status" -eq 2 ]
    run_split "$SC" frobnicate
    [ "$status" -eq 2 ]
    run_split "$SC" hash --key-type Float64
    [ "$status" -eq 2 ]
    [[ $stderr_text == "shard-check: bad value for --key-type: Float64 (expected String, FixedString(N), "*" or UUID)" ]]
    run_split "$SC" route --config "$FIX/w305.xml" --cluster w305 --format JSON
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: bad value for --format: JSON (expected TSV or RowBinary)" ]
    run_split "$SC" frobnicate
    [ "$stderr_text" = "shard-check: unknown command: frobnicate (expected layout, lock, ddl, route, hash or verify)" ]
    run_split "$SC" route --config
    [ "$stderr_text" = "shard-check: --config needs a value (try --help)" ]
    run_split "$SC" --version
    [ "$status" -eq 0 ]
    [ "$output" = "shard-check $(ods_version)" ]
    [ -z "$stderr_text" ]
    run_split "$SC" layout --version
    [ "$status" -eq 0 ]
    [ "$output" = "shard-check $(ods_version)" ]
    run_split "$SC" --help
    [ "$status" -eq 0 ]
    [[ $output == usage:\ shard-check* ]]
    [ -z "$stderr_text" ]
}

@test "scripts/check-cluster: the example layout with the generated cluster DDL holds; a bad DDL or layout fails" {
    export ODS_BUILD_DIR=${ODS_BUILD_DIR:-$ROOT/build}
    if [ -x "$BIN/ods-ddl" ]; then
        run_split "$ROOT/scripts/check-cluster"
        [ "$status" -eq 0 ]
        [[ $output == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster ods_cluster, sharding key cityHash64(order_id): ok"* ]]
        [[ $stderr_text == *"FINAL through ods.order_snapshot_dist holds"* ]]
    else
        run_split "$ROOT/scripts/check-cluster"
        [ "$status" -eq 1 ]
        [[ $stderr_text == *"ods-ddl not found"*"--ddl FILE"* ]]
    fi
    run_split "$ROOT/scripts/check-cluster" --ddl "$FIX/ddl/good-cluster.sql"
    [ "$status" -eq 0 ]
    run_split "$ROOT/scripts/check-cluster" --ddl "$FIX/ddl/bad-key-updated-at.sql"
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"uses updated_at"* ]]
    sed 's/ods_cluster/norepl/g' "$FIX/ddl/good-cluster.sql" >norepl.sql
    run_split "$ROOT/scripts/check-cluster" --config "$FIX/no-internal-replication.xml" --cluster norepl --ddl norepl.sql
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"without internal_replication"* ]]
    run_split "$ROOT/scripts/check-cluster" --cluster $'a\nb'
    [ "$status" -eq 2 ]
}

@test "layout equals the engine: a main file not named config.xml (prod.d/ and conf.d/, not config.d/), .XML and .Conf merge files, a UTF-8 BOM" {
    # prod.xml merges prod.d/ and conf.d/, sorted by path (conf.d/ first), and not config.d/
    layout_vs_engine "$FIX/stem/prod.xml" "$FIX/stem/prod.xml" stem
    [[ $output == *$'shard 2\tweight 3\t'* ]]
    layout_vs_engine "$FIX/stem/prod.xml" "$FIX/stem/prod.xml" stem_conf
    [ "$(chlocal --config-file "$FIX/stem/prod.xml" -q "SELECT count() FROM system.clusters WHERE cluster = 'decoy'")" -eq 0 ]
    run_split "$SC" layout --config "$FIX/stem/prod.xml" --cluster decoy
    [ "$status" -eq 1 ]
    # config.d/w.XML and config.d/x.Conf are merged whatever the extension's case
    layout_vs_engine "$FIX/upper/config.xml" "$FIX/upper" upper
    [[ $output == *$'shard 2\tweight 5\t'* ]]
    layout_vs_engine "$FIX/upper/config.xml" "$FIX/upper/config.xml" upper2
    layout_vs_engine "$FIX/bom.xml" "$FIX/bom.xml" bom
}

@test "from_env is read from the environment as the server reads it; from_env on an element with a value and no replace is refused (exit 1), as the server refuses it" {
    export SC_W1=0 SC_HOST=env-host SC_PORT=9440
    unset SC_UNSET_WEIGHT
    # replace="1" drops the inline 1 for 0; an unset variable keeps the inline value, or with
    # optional="1" removes the element (default weight 1)
    layout_vs_engine "$FIX/from-env.xml" "$FIX/from-env.xml" envc
    [[ $output == *$'shard 1\tweight 0\tslots none\t'*"env-host:9440"* ]]
    [[ $output == *$'shard 3\tweight 4\t'* ]]
    SC_W1=7 layout_vs_engine "$FIX/from-env.xml" "$FIX/from-env.xml" envc
    [[ $output == *$'shard 1\tweight 7\t'* ]]
    # a value taken verbatim and read as Poco reads numbers: blanks before it are skipped, none
    # after it, so ' 2' is 2 and '2 ' fails the server's load as it fails the tool
    SC_W1=' 2' layout_vs_engine "$FIX/from-env.xml" "$FIX/from-env.xml" envc
    [[ $output == *$'shard 1\tweight 2\t'* ]]
    run_split env SC_W1='2 ' "$BIN/chlocal" --config-file "$FIX/from-env.xml" -q "SELECT count() FROM system.clusters WHERE cluster = 'envc'"
    [ "$status" -ne 0 ]
    [[ $stderr_text == *"Syntax error"* ]]
    run_split env SC_W1='2 ' "$SC" layout --config "$FIX/from-env.xml" --cluster envc
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"the server refuses this config, and with it every cluster (envc too): Syntax error (Poco::SyntaxException)"* ]]
    run_split chlocal --config-file "$FIX/from-env-no-replace.xml" -q "SELECT 1"
    [ "$status" -ne 0 ]
    [[ $stderr_text == *"Element <host> has value and does not have 'replace' attribute"* ]]
    run_split "$SC" layout --config "$FIX/from-env-no-replace.xml" --cluster envc
    [ "$status" -eq 1 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
    [[ $stderr_text == *"the server refuses this config, and with it every cluster (envc too): an element with from_env= has a value but no replace=\"1\" (can't process from_env substitution): add replace=\"1\""* ]]
}

@test "merge directories: an unreadable one exits 2 with one line, as the server fails; what the server skips is skipped" {
    mkdir -p unread/config.d
    cp "$FIX/w305.xml" unread/config.xml
    chmod 000 unread/config.d
    # root reads a mode-000 directory anyway: drop the capabilities that allow it
    local as_user=()
    if [ "$(id -u)" -eq 0 ]; then
        as_user=(setpriv --inh-caps=-all --bounding-set=-dac_override,-dac_read_search)
        "${as_user[@]}" true 2>/dev/null || skip "root here cannot drop the capabilities that read a mode-000 directory"
    fi
    run_split "${as_user[@]}" "$BIN/chlocal" --config-file unread/config.xml -q "SELECT 1"
    local engine_status=$status engine_err=$stderr_text
    run_split "${as_user[@]}" "$SC" layout --config unread/config.xml --cluster w305
    chmod 755 unread/config.d
    [ "$engine_status" -ne 0 ]
    [[ $engine_err == *"Permission denied"* ]]
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: unread/config.d: Permission denied" ]
    # a dangling symlink or a file named config.d, a dangling x.xml or a directory d.xml inside
    # it: the server skips each, and so does the tool
    mkdir dangling filed skip
    cp "$FIX/w305.xml" dangling/config.xml
    cp "$FIX/w305.xml" filed/config.xml
    cp "$FIX/w305.xml" skip/config.xml
    ln -s "$PWD/nowhere" dangling/config.d
    echo junk >filed/config.d
    mkdir -p skip/config.d/d.xml
    ln -s "$PWD/nowhere" skip/config.d/x.xml
    layout_vs_engine dangling/config.xml dangling/config.xml w305
    layout_vs_engine filed/config.xml filed/config.xml w305
    layout_vs_engine skip/config.xml skip/config.xml w305
}

@test "incl= and <include> from include_from are resolved as the server resolves them; from_zk exits 2" {
    # without include_from (and no /etc/metrika.xml) the include is not found and goes
    layout_vs_engine "$FIX/include.xml" "$FIX/include.xml" incl
    [[ $output == *"1 shards"* ]]
    mkdir inc
    cp "$FIX/include/metrika.xml" inc/
    sed "s,@DIR@,$PWD/inc," "$FIX/include/config.xml" >inc/config.xml
    # <include> inserts the shards; incl= on a cluster, a shard, a weight (replace="1"), a path a/b;
    # not found: optional="1" removes the element, else it stays as written
    layout_vs_engine inc/config.xml inc/config.xml incl
    [[ $output == *"3 shards, total weight 6"* ]]
    layout_vs_engine inc/config.xml inc/config.xml incl2
    [[ $output == *"internal_replication true"*"a:1 b:1"* ]]
    layout_vs_engine inc/config.xml inc/config.xml incl3
    [[ $output == *$'shard 4\tweight 7\t'*"ch-7:9000"* ]]
    [[ $output != *gone* ]]
    # an include_from the server cannot open fails its load, and the tool's
    sed "s,@DIR@,$PWD/nowhere," "$FIX/include/config.xml" >inc/missing.xml
    run_split chlocal --config-file inc/missing.xml -q "SELECT 1"
    [ "$status" -ne 0 ]
    run_split "$SC" layout --config inc/missing.xml --cluster incl
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"nowhere/metrika.xml"* ]]
    # from_zk: only a server with ZooKeeper resolves it
    sed 's,<include incl="more_shards"/>,<include from_zk="/clickhouse/shards"/>,' inc/config.xml >inc/zk.xml
    run_split "$SC" layout --config inc/zk.xml --cluster incl
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"from_zk= substitution, which only a server with ZooKeeper resolves; pass a system.clusters dump"* ]]
}

@test "merge files: same-named <shard>s land where the server's std::multimap finds them; attributes match too" {
    # N base shards, a merge file with M <shard>s that only set a weight: since libc++ 21 the
    # server's multimap::find returns the equal element met first from the tree's root, so the
    # k-th merge shard does not simply take base shard k (with 3 base shards: 2, 3, then 1)
    # (sanitized: the engine's side is the same plain engine; 1, 2, 3 and 9 base shards keep every
    # path of the tool's merge, 15 trees in place of 45)
    local n m i ns="1 2 3 4 5 6 7 9"
    if sanitized; then ns="1 2 3 9"; fi
    for n in $ns; do
        for m in $(seq 1 "$n"); do
            rm -rf nm
            mkdir -p nm/config.d
            {
                echo "<clickhouse><remote_servers><c><secret>s</secret>"
                for i in $(seq 1 "$n"); do
                    echo "<shard><weight>$i</weight><replica><host>h$i</host><port>9000</port></replica></shard>"
                done
                echo "</c></remote_servers></clickhouse>"
            } >nm/config.xml
            {
                echo "<clickhouse><remote_servers><c>"
                for i in $(seq 1 "$m"); do echo "<shard><weight>$((100 + i))</weight></shard>"; done
                echo "</c></remote_servers></clickhouse>"
            } >nm/config.d/m.xml
            layout_vs_engine nm/config.xml nm/config.xml c
        done
    done
    # with 9 base shards (and a <secret>) the first merge shard lands on shard 3, the last on 9
    [[ $output == *$'shard 1\tweight 107\t'*$'shard 3\tweight 101\t'*$'shard 9\tweight 109\t'* ]]
    layout_vs_engine "$FIX/attrs/config.xml" "$FIX/attrs" attrs
    [[ $output == *$'shard 2\tweight 9\t'*$'shard 3\tweight 3\t'* ]]
    layout_vs_engine "$FIX/attrs/config.xml" "$FIX/attrs" pasted
    [[ $output == *"2 shards, total weight 11"* ]]
}

# value_vs_engine WEIGHT IR PORT HOST: the shard the engine reads from those element texts, or
# that it refuses the config, equals what the tool reads or refuses (exit 2).
value_vs_engine() {
    printf '<clickhouse><remote_servers><v><shard><weight>%s</weight><internal_replication>%s</internal_replication><replica><host>%s</host><port>%s</port></replica></shard><shard><replica><host>other</host><port>1</port></replica></shard></v></remote_servers></clickhouse>' \
        "$1" "$2" "$4" "$3" >v.xml
    local engine ours st=0
    engine=$("$BIN/chlocal" --config-file v.xml -q "SELECT shard_weight, internal_replication, host_name, port
        FROM system.clusters WHERE cluster = 'v' AND shard_num = 1 FORMAT TSV" 2>/dev/null) || engine=refused
    ours=$("$SC" layout --config v.xml --cluster v 2>/dev/null | awk -F'\t' '/^shard 1\t/ {
        split($2, w, " "); split($4, ir, " "); r = substr($5, 10); n = split(r, hp, ":");
        print w[2] "\t" (ir[2] == "true") "\t" substr(r, 1, length(r) - length(hp[n]) - 1) "\t" hp[n]}') || st=$?
    [ -n "$ours" ] || ours=refused
    printf '%s\n' "$engine" >engine_said
    [ "$engine" = "$ours" ] || { echo "weight [$1] ir [$2] port [$3] host [$4]: engine [$engine], tool [$ours]"; return 1; }
}

@test "weights, ports, internal_replication and hosts are read as the server's Poco reads them" {
    # numbers: blanks before but not after, '+', ',' skipped, 0x hex, 32-bit wrap of getInt;
    # booleans: numbers or true/yes/on/false/no/off in any case, nothing around; hosts untrimmed
    local w b p
    for w in 2 ' 2' '2 ' '+2' 02 0x10 0X1f '0x 10' ' 0x10' 1,0 ',1' 1, '' + - -0 0x 0xG 1.0 1e2 '+ 1' \
        4294967295 0x100000000 0x1,0 00x10 16777216; do
        value_vs_engine "$w" 1 9000 h
    done
    for b in 0 00 1 -1 ' 1' '1 ' +1 true TRUE tRuE yes on OFF No y 0x1 1,0 ''; do
        value_vs_engine 1 "$b" 9000 h
    done
    for p in 1 ' 9' '9 ' +9 0x10 0xFFFF 65535 65536 0 -1 -65535 1,0 0x10000 4294967297; do
        value_vs_engine 1 1 "$p" h
    done
    value_vs_engine 1 1 9000 ' padded host '
}

# gen_text: sets text to a random element text built from the pieces Poco's number and bool parsers treat
# specially (blanks before and after, signs, 0x, ',' separators, digits up to past 2^32, words).
# No subshell: bash reseeds RANDOM in one, and the texts must be the same on every run.
gen_text() {
    local pre=('' '' ' ' '  ') sign=('' '' '+' '-') hex=('' '' '' '0x' '0X') post=('' '' '' ' ' 'x' ',')
    local words=(true TRUE yes On off No false y) digits=0123456789abcdefABCDEF, d='' k len
    if ((RANDOM % 4 == 0)); then
        text=${pre[RANDOM % 4]}${words[RANDOM % 8]}${post[RANDOM % 6]}
        return
    fi
    len=$((RANDOM % 11))
    for ((k = 0; k < len; k++)); do
        if ((RANDOM % 3)); then d+=$((RANDOM % 10)); else d+=${digits:RANDOM % ${#digits}:1}; fi
    done
    text=${pre[RANDOM % 4]}${sign[RANDOM % 4]}${hex[RANDOM % 5]}$d${post[RANDOM % 6]}
}

@test "generated element texts: weight, port and internal_replication read as the engine reads them" {
    # 45 on the plain build, 12 under ASan (each is one engine start); at least a fifth of them
    # must be values the engine accepts, or the test would prove only refusals
    local n=45 i v ok=0 text
    if sanitized; then n=12; fi
    RANDOM=16
    for ((i = 0; i < n; i++)); do
        gen_text
        v=$text
        case $((i % 3)) in
            0) value_vs_engine "$v" 1 9000 h ;;
            1) value_vs_engine 1 "$v" 9000 h ;;
            2) value_vs_engine 1 1 "$v" h ;;
        esac
        [ "$(cat engine_said)" = refused ] || ok=$((ok + 1))
    done
    echo "$ok of $n accepted by the engine"
    [ "$ok" -ge $((n / 5)) ]
}

@test "a config from a pipe or /dev/stdin is read once; over 64 MiB, or /dev/zero, exits 2 with one line" {
    "$SC" layout --config "$FIX/w305.xml" --cluster w305 >want
    run_split bash -c 'cat "$1" | "$2" layout --config /dev/stdin --cluster w305' _ "$FIX/w305.xml" "$SC"
    [ "$status" -eq 0 ]
    [ "$output" = "$(cat want)" ]
    run_split bash -c 'cat "$1" | "$2" layout --config - --cluster w305' _ "$FIX/w305.xml" "$SC"
    [ "$status" -eq 0 ]
    [ "$output" = "$(cat want)" ]
    # exactly 64 MiB is read; one byte more is refused, from a file or from a pipe
    local head='<clickhouse><remote_servers><w><shard><replica><host>h</host><port>1</port></replica></shard></w></remote_servers><!--'
    local tail='--></clickhouse>'
    { printf '%s' "$head"; head -c $((64 * 1048576 - ${#head} - ${#tail})) /dev/zero | tr '\0' x; printf '%s' "$tail"; } >big.xml
    [ "$(stat -c %s big.xml)" -eq $((64 * 1048576)) ]
    run_split "$SC" layout --config big.xml --cluster w
    [ "$status" -eq 0 ]
    printf '\n' >>big.xml
    run_split "$SC" layout --config big.xml --cluster w
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: big.xml: the config is larger than 64 MiB: not a server config this tool reads" ]
    run_split bash -c 'cat big.xml | "$1" layout --config /dev/stdin --cluster w' _ "$SC"
    [ "$status" -eq 2 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
    rm big.xml
    # an endless input stops at the cap, in bounded memory
    run_split bash -c "$(vlimit 524288)"'exec "$0" "$@"' "$SC" layout --config /dev/zero --cluster w
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: /dev/zero: the config is larger than 64 MiB: not a server config this tool reads" ]
}

@test "a config nested 1 000 000 levels deep exits 2 with one line, never a crash; 900 levels still load" {
    awk 'BEGIN {printf "<clickhouse>"; for (i = 0; i < 1000000; i++) printf "<a>";
        for (i = 0; i < 1000000; i++) printf "</a>"; print "</clickhouse>"}' >deep.xml
    run_split "$SC" layout --config deep.xml --cluster w
    [ "$status" -eq 2 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
    [[ $stderr_text == *"elements nested deeper than 1000 levels"* ]]
    # the same depth in a merge file
    mkdir -p merged/config.d
    cp "$FIX/w305.xml" merged/config.xml
    cp deep.xml merged/config.d/deep.xml
    run_split "$SC" layout --config merged/config.xml --cluster w305
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"merged/config.d/deep.xml:"*"nested deeper than 1000 levels"* ]]
    # a deep but bounded config beside remote_servers: read, merged and freed as usual
    awk 'BEGIN {printf "<clickhouse><x>"; for (i = 0; i < 900; i++) printf "<a>";
        for (i = 0; i < 900; i++) printf "</a>"; print "</x></clickhouse>"}' >merged/config.d/deep.xml
    layout_vs_engine merged/config.xml merged/config.xml w305
}

@test "route with weights 500000000,1,0,2000000000: the engine's slot arithmetic in SQL, in bounded memory" {
    # the engine's slot table would hold 2 500 000 001 entries; the tool holds one bound per shard
    chlocal -q "SELECT s, multiIf(h % 2500000001 < 500000000, 1, h % 2500000001 < 500000001, 2, 4)
        FROM (SELECT concat('ORD-', toString(number), randomPrintableASCII(number % 7)) AS s, cityHash64(s) AS h
        FROM numbers(100000)) INTO OUTFILE 'want.tsv' FORMAT TSV"
    cut -f1 want.tsv | bash -c "$(vlimit 262144)"'exec "$0" "$@"' "$SC" route --config "$FIX/huge-weight.xml" --cluster huge >ours
    cut -f2 want.tsv >theirs
    [ "$(mismatches ours theirs)" -eq 0 ]
    [ "$(grep -c '^1$' theirs)" -gt 10000 ]
    [ "$(grep -c '^4$' theirs)" -gt 75000 ]
    # routing is right, and layout reports what such weights cost every server
    run_split "$SC" layout --config "$FIX/huge-weight.xml" --cluster huge
    [ "$status" -eq 1 ]
    [[ $output == *$'shard 2\tweight 1\tslot 500000000\t'* ]]
    [[ $output == *$'shard 4\tweight 2000000000\tslots 500000001-2500000000\t'* ]]
    [[ $stderr_text == *"the weights sum to 2500000001: every server builds a slot table"*"18.6 GiB"* ]]
}

@test "layout escapes host names TSV-style (\\n \\t \\\\), as system.clusters in TSV does: no forged lines" {
    chlocal --config-file "$FIX/escaped-host.xml" -q "SELECT concat(host_name, ':', toString(port))
        FROM system.clusters WHERE cluster = 'esc' ORDER BY shard_num FORMAT TSV" >engine
    run_split "$SC" layout --config "$FIX/escaped-host.xml" --cluster esc
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 3 ]
    [ "${lines[1]}" = $'shard 1\tweight 1\tslot 0\tinternal_replication false\treplicas evil\\nshard 9\\tweight 1:9000' ]
    [ "${lines[2]}" = $'shard 2\tweight 1\tslot 1\tinternal_replication false\treplicas back\\\\slash:9000' ]
    # the replica fields are the engine's own TSV escaping of host_name
    printf '%s\n' "${lines[@]:1}" | sed 's/.*\treplicas //' | diff - engine
}

# ---- lock and layout --lock: the slot-table lock ----
LK=$FIX/lock

# engine_routes CONFIG_XML OUT: 20 000 keys through a Distributed table on cluster lk of CONFIG_XML
# (unreachable shards, sends stopped); OUT gets "key<TAB>cityHash64(key)<TAB>shard" from the
# engine's own per-shard queues, sorted by key.
engine_routes() {
    local cfg=$1 out=$2 dp
    rm -rf db data_path
    chlocal --config-file "$cfg" --path "$PWD/db" -q "
        SYSTEM STOP DISTRIBUTED SENDS;
        CREATE TABLE loc (k String) ENGINE = MergeTree ORDER BY tuple();
        CREATE TABLE dist AS loc ENGINE = Distributed(lk, currentDatabase(), loc, cityHash64(k));
        INSERT INTO dist SELECT concat('ORD-2026-', leftPad(toString(number), 9, '0')) FROM numbers(20000)
            SETTINGS distributed_foreground_insert = 0;
        SELECT data_paths[1] FROM system.tables WHERE database = currentDatabase() AND name = 'dist'
        INTO OUTFILE 'data_path' FORMAT TSVRaw"
    dp=$(cat data_path)
    [ -d "$dp" ]
    chlocal -q "SELECT k, cityHash64(k), toUInt32(extract(_path, 'shard(\\d+)_replica1/')) FROM
        file('${dp}shard*_replica1/*.bin', 'Distributed') ORDER BY k INTO OUTFILE '$out' FORMAT TSV"
    [ "$(wc -l <"$out")" -eq 20000 ]
}

@test "lock: the exact format; the unchanged config, and its system.clusters dump, hold (exit 0, one line)" {
    run_split "$SC" lock --config "$LK/w121" --cluster lk
    [ "$status" -eq 0 ]
    [ -z "$stderr_text" ]
    [ "${lines[0]}" = "# shard-check lock v1" ]
    # the data lines, after the comments
    grep -v '^#' <<<"$output" >data
    printf 'cluster\tlk\ntotal_weight\t4\nshard\t1\t1\t0-0\t127.0.0.2:1\nshard\t2\t2\t1-2\t127.0.0.3:1\nshard\t3\t1\t3-3\t127.0.0.4:1\n' >want
    diff data want
    "$SC" lock --config "$LK/w121" --cluster lk -o w121.lock
    [ "$(cat w121.lock)" = "$output" ]
    run_split "$SC" layout --config "$LK/w121" --cluster lk --lock w121.lock
    [ "$status" -eq 0 ]
    [ "$stderr_text" = "shard-check: w121.lock: the lock holds: cluster lk routes every key to its locked shard number (total weight 4), and each shard keeps a locked server" ]
    # the engine's system.clusters of the same config: the same lock, and it holds
    chlocal --config-file "$LK/w121/config.xml" -q "SELECT * FROM system.clusters FORMAT TSVWithNames" >dump.tsv
    "$SC" lock --config dump.tsv --cluster lk -o dump.lock
    diff dump.lock w121.lock
    run_split "$SC" layout --config dump.tsv --cluster lk --lock w121.lock
    [ "$status" -eq 0 ]
    [[ $stderr_text == *"the lock holds"* ]]
}

@test "end to end, weights 1,2,1 -> 1,3,1 by config.d: layout --lock exits 1; the keys the engine moves are exactly the reported ranges" {
    cp -r "$LK/w121" cfg
    "$SC" lock --config cfg --cluster lk -o lk.lock
    engine_routes cfg/config.xml before.tsv
    mkdir cfg/config.d
    cp "$LK/w131-override.xml" cfg/config.d/weight.xml
    # the engine reads the merged weights as the tool does
    [ "$(chlocal --config-file cfg/config.xml -q "SELECT groupArray(shard_weight) FROM (SELECT shard_weight
        FROM system.clusters WHERE cluster = 'lk' ORDER BY shard_num)")" = "[1,3,1]" ]
    engine_routes cfg/config.xml after.tsv
    run_split "$SC" layout --config cfg --cluster lk --lock lk.lock
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"the routing differs from the lock: total weight 4 -> 5; shard 2 weight 2 -> 3"* ]]
    [[ $stderr_text == *"12 of the 20 residues move (60%)"* ]]
    [[ $stderr_text == *"reshard: move the rows of the ranges above"*"shard-check lock --config cfg --cluster lk -o lk.lock, and commit it"* ]]
    # the reported runs, one residue of cityHash64 % 20 a line: "residue from to"
    grep -o 'cityHash64(order_id) % 20 in \[[0-9]*, [0-9]*\]: shard [0-9]* -> shard [0-9]*' <<<"$stderr_text" |
        awk '{gsub(/[][,:]/, ""); for (r = $5 + 0; r <= $6 + 0; r++) print r, $8, $11}' >runs
    [ "$(wc -l <runs)" -eq 12 ]
    # every key: its engine shard before and after; moved exactly when its residue is in a run,
    # and then from the run's shard to the run's shard
    [ "$(cut -f1 before.tsv)" = "$(cut -f1 after.tsv)" ]
    paste before.tsv after.tsv | cut -f2,3,6 >keys
    [ "$(awk -F'\t' '$2 != $3' keys | wc -l)" -gt 5000 ]
    # the residue in SQL: awk would take the 64-bit hash as a double
    chlocal -q "SELECT h % 20, b, a FROM file('keys', TSV, 'h UInt64, b UInt32, a UInt32') FORMAT TSV" >keys20
    awk 'NR == FNR {moved[$1] = $2 " " $3; next}
         {if ($2 != $3) {n++; if (moved[$1] != $2 " " $3) bad++} else if ($1 in moved) bad++}
         END {print n + 0, bad + 0}' FS=' ' runs FS='\t' keys20 >verdict
    read -r n bad <verdict
    [ "$bad" -eq 0 ]
    [ "$n" -eq "$(awk -F'\t' '$2 != $3' keys | wc -l)" ]
    # the fraction: 60 % of 20 000 keys, within sampling noise
    [ "$n" -gt 11500 ]
    [ "$n" -lt 12500 ]
}

@test "re-ordered shards with equal weights (servers swapped): exit 1, each shard's data is elsewhere" {
    "$SC" lock --config "$LK/repl.xml" --cluster repl -o repl.lock
    run_split "$SC" layout --config "$LK/repl-swapped.xml" --cluster repl --lock repl.lock
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"shard 1 is now ch-2a:9000, ch-2b:9000, which shares no host:port with the locked shard 1 (ch-1a:9000, ch-1b:9000); those servers are the locked shard 2"* ]]
    [[ $stderr_text == *"shard 2 is now ch-1a:9000, ch-1b:9000"* ]]
    [[ $stderr_text != *"routing differs"* ]]
    [[ $stderr_text != *"lock holds"* ]]
}

@test "a replaced replica in a 2-replica shard: exit 0 with one note" {
    "$SC" lock --config "$LK/repl.xml" --cluster repl -o repl.lock
    run_split "$SC" layout --config "$LK/repl-replaced.xml" --cluster repl --replicated --lock repl.lock
    [ "$status" -eq 0 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 2 ]
    [ "$(grep -c 'note:' <<<"$stderr_text")" -eq 1 ]
    [[ $stderr_text == *"note: shard 1 replicas changed (now ch-1a:9000, ch-1c:9000; locked ch-1a:9000, ch-1b:9000)"* ]]
    [[ $stderr_text == *"the lock holds"* ]]
}

@test "a malformed lock exits 2 with file:line and the reason" {
    local -A why=(
        [no-header]='1: not a lock: the first line must be "# shard-check lock v1"'
        [version]="1: a lock format version this tool does not read (it reads # shard-check lock v1)"
        [crlf]="1: a carriage return (CRLF line ends?): the lock's lines end in a line feed alone"
        [weight-edited]="10: a shard's slots disagree with the weights before it and its own (first = sum of the weights before, last = first + weight - 1)"
        [total]="8: total_weight is not the sum of the shards' weights"
        [no-port]="10: a replica is not host:port"
    )
    local f
    for f in "${!why[@]}"; do
        run_split "$SC" layout --config "$LK/w121" --cluster lk --lock "$LK/malformed/$f.lock"
        echo "$f: $status $stderr_text" >&2
        [ "$status" -eq 2 ]
        [ "$stderr_text" = "shard-check: $LK/malformed/$f.lock:${why[$f]}" ]
    done
    run_split "$SC" layout --config "$LK/w121" --cluster lk --lock nope.lock
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: nope.lock: No such file or directory" ]
    # a lock of another cluster is not compared
    "$SC" lock --config "$LK/repl.xml" --cluster repl -o repl.lock
    run_split "$SC" layout --config "$LK/w121" --cluster lk --lock repl.lock
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"repl.lock: the lock is of another cluster"* ]]
}

@test "host names are TSV-escaped in the lock and read back: no forged lines, and the lock holds" {
    "$SC" lock --config "$FIX/escaped-host.xml" --cluster esc -o esc.lock
    [ "$(grep -vc '^#' esc.lock)" -eq 4 ]
    grep -qx $'shard\t1\t1\t0-0\tevil\\\\nshard 9\\\\tweight 1:9000' esc.lock
    grep -qx $'shard\t2\t1\t1-1\tback\\\\\\\\slash:9000' esc.lock
    run_split "$SC" layout --config "$FIX/escaped-host.xml" --cluster esc --lock esc.lock
    [ "$status" -eq 0 ]
    [[ $stderr_text == *"the lock holds"* ]]
}

@test "lock usage: -o only with lock, --lock only with layout, unknown options, all-zero weights, an unwritable -o" {
    run_split "$SC" lock --config "$LK/w121" --cluster lk --bogus
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: unknown option: --bogus (try --help)" ]
    run_split "$SC" route --config "$LK/w121" --cluster lk --lock x.lock
    [ "$status" -eq 2 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
    run_split "$SC" layout --config "$LK/w121" --cluster lk -o x.lock
    [ "$status" -eq 2 ]
    run_split "$SC" lock --config "$LK/w121" --cluster lk -o
    [ "$status" -eq 2 ]
    run_split "$SC" lock --cluster lk
    [ "$status" -eq 2 ]
    run_split "$SC" lock --config "$FIX/zero.xml" --cluster zero
    [ "$status" -eq 1 ]
    [ "$stderr_text" = "shard-check: $FIX/zero.xml, remote_servers.zero: the server refuses this config, and with it every cluster (zero too): Cluster with zero weight on all shards is prohibited (BAD_ARGUMENTS): give one shard a weight above 0" ]
    [ -z "$output" ]
    # a failed lock leaves an existing lock file as it was
    echo keep >z.lock
    run_split "$SC" lock --config "$FIX/zero.xml" --cluster zero -o z.lock
    [ "$status" -eq 1 ]
    [ "$(cat z.lock)" = keep ]
    run_split "$SC" lock --config "$LK/w121" --cluster lk -o /dev/full
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: /dev/full: cannot write the lock" ]
    run_split "$SC" lock --config "$LK/w121" --cluster lk -o no-such-dir/x.lock
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: no-such-dir/x.lock: No such file or directory" ]
    run_split "$SC" lock --config "$LK/w121" --cluster nope
    [ "$status" -eq 1 ]
    run_split "$SC" --help
    [[ $output == *"lock --config PATH --cluster NAME [-o FILE]"* ]]
    [[ $output == *"[--lock FILE]"* ]]
}

@test "scripts/check-cluster --lock: passes with the example's lock, fails (exit 1) after a weight change in config.d" {
    export ODS_BUILD_DIR=${ODS_BUILD_DIR:-$ROOT/build}
    mkdir cfg
    cp "$ROOT/clickhouse-config/cluster.example.xml" cfg/config.xml
    "$SC" lock --config cfg/config.xml --cluster ods_cluster -o ods.lock
    run_split "$ROOT/scripts/check-cluster" --config cfg/config.xml --ddl "$FIX/ddl/good-cluster.sql" --lock ods.lock
    [ "$status" -eq 0 ]
    [[ $stderr_text == *"the lock holds"* ]]
    [[ $stderr_text == *"FINAL through ods.order_snapshot_dist holds"* ]]
    mkdir cfg/config.d
    cp "$LK/example-weight.xml" cfg/config.d/weight.xml
    run_split "$ROOT/scripts/check-cluster" --config cfg/config.xml --ddl "$FIX/ddl/good-cluster.sql" --lock ods.lock
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"the routing differs from the lock: total weight 4 -> 5; shard 3 weight 2 -> 3"* ]]
    [[ $stderr_text == *"cityHash64(order_id) % 20 in ["* ]]
    # without --lock the same config passes: only the lock knows the old weights
    run_split "$ROOT/scripts/check-cluster" --config cfg/config.xml --ddl "$FIX/ddl/good-cluster.sql"
    [ "$status" -eq 0 ]
    run_split "$ROOT/scripts/check-cluster" --lock
    [ "$status" -eq 2 ]
}

@test "weights summing past 2^31, one changed by 1: exit 1 at once, the weight change and the first runs, no count" {
    "$SC" lock --config "$LK/big.xml" --cluster big -o big.lock
    grep -qx $'shard\t3\t2000000000\t500000001-2500000000\t127.0.0.4:1' big.lock
    # the lock holds; layout still reports what such weights cost every server
    run_split "$SC" layout --config "$LK/big.xml" --cluster big --lock big.lock
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"the lock holds"* ]]
    [[ $stderr_text == *"every server builds a slot table"* ]]
    run_split timeout 60 "$SC" layout --config "$LK/big-changed.xml" --cluster big --lock big.lock
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"the routing differs from the lock: total weight 2500000001 -> 2500000002; shard 3 weight 2000000000 -> 2000000001"* ]]
    [[ $stderr_text == *"  cityHash64(order_id) % 6250000007500000002 in [2500000001, 2500000001]: shard 1 -> shard 3"* ]]
    [ "$(grep -c '  cityHash64(order_id) % ' <<<"$stderr_text")" -eq 20 ]
    [[ $stderr_text == *"has more slot boundaries than are walked (67108864): the share of keys that move is not counted"* ]]
    [[ $stderr_text == *"reshard"* ]]
}

# ---- cluster names as DBAs write them (prod-ods, {cluster}, --macro) ----
NF=$FIX/names

@test "macro values are the engine's: <macros> text verbatim, blanks kept (getMacro), and so is shard-check's" {
    # the engine: getMacro and a Distributed table over '{cluster}'
    run_split chlocal --no-udf --config-file "$NF/macros.xml" -q "SELECT concat('[', getMacro('cluster'), '][', getMacro('padded'), ']')"
    [ "$output" = "[ods_cluster][ ods_cluster ]" ]
    run_split chlocal --no-udf --config-file "$NF/padded.xml" -q "SELECT concat('[', getMacro('cluster'), ']')"
    [ "$output" = "[ ods_cluster ]" ]
    # so with padded.xml, Distributed('{cluster}') names " ods_cluster ", which does not exist
    run_split chlocal --no-udf --config-file "$NF/padded.xml" -q "CREATE TABLE l (k String) ENGINE = Memory;
        CREATE TABLE d AS l ENGINE = Distributed('{cluster}', default, l, cityHash64(k))"
    [ "$status" -ne 0 ]
    [[ $stderr_text == *"' ods_cluster '"* ]]
    run_split chlocal --no-udf --config-file "$NF/macros.xml" -q "CREATE TABLE l (k String) ENGINE = Memory;
        CREATE TABLE d AS l ENGINE = Distributed('{cluster}', default, l, cityHash64(k));
        SELECT count() FROM system.clusters WHERE cluster = 'ods_cluster'"
    [ "$status" -eq 0 ]
    [ "$output" = "3" ]
    # shard-check does the same: ods_cluster with macros.xml, " ods_cluster " (not found, exit 1) with padded.xml
    run_split "$SC" layout --config "$NF/macros.xml" --cluster '{cluster}'
    [ "$status" -eq 0 ]
    [[ $output == "cluster ods_cluster: 3 shards"* ]]
    run_split "$SC" layout --config "$NF/padded.xml" --cluster '{cluster}'
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"cluster  ods_cluster  not found"* ]]
}

@test "--cluster '{cluster}' and 'ods_{env}': layout, route and verify resolve macros like the server" {
    # the config's <macros>
    "$SC" layout --config "$NF/macros.xml" --cluster ods_cluster >want
    run_split "$SC" layout --config "$NF/macros.xml" --cluster '{cluster}'
    [ "$status" -eq 0 ]
    diff want <(printf '%s\n' "$output")
    run_split "$SC" layout --config "$NF/macros.xml" --cluster 'ods_{env}'
    [ "$status" -eq 0 ]
    [[ $output == "cluster ods_prod: 1 shards"* ]]
    printf 'ORD-%s\n' {1..200} >keys
    "$SC" route --config "$NF/macros.xml" --cluster ods_cluster keys >want
    run_split "$SC" route --config "$NF/macros.xml" --cluster '{cluster}' keys
    [ "$status" -eq 0 ]
    diff want <(printf '%s\n' "$output")
    paste keys want >placed.tsv
    run_split "$SC" verify --config "$NF/macros.xml" --cluster '{cluster}' placed.tsv
    [ "$status" -eq 0 ]
    # --macro gives the value (and wins over the config); the last --macro of a name wins
    run_split "$SC" layout --config "$NF/prod-ods.xml" --cluster '{cluster}' --macro cluster=x --macro cluster=prod-ods
    [ "$status" -eq 0 ]
    [[ $output == "cluster prod-ods: 2 shards"* ]]
    run_split "$SC" layout --config "$NF/macros.xml" --cluster '{cluster}' --macro cluster=ods_prod
    [[ $output == "cluster ods_prod: 1 shards"* ]]
    # a system.clusters dump has no <macros>: --macro it is
    chlocal --no-udf --config-file "$NF/macros.xml" -q "SELECT * FROM system.clusters FORMAT TSVWithNames" >dump.tsv
    run_split "$SC" layout --config dump.tsv --cluster '{cluster}' --macro cluster=ods_cluster
    [ "$status" -eq 0 ]
    [[ $output == "cluster ods_cluster: 3 shards"* ]]
}

@test "a macro without a value, an unclosed '{' or a bad --macro: exit 2, one line naming it and how to give it" {
    run_split "$SC" layout --config "$NF/macros.xml" --cluster '{shard}'
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [ "$stderr_text" = "shard-check: macro {shard} in cluster name '{shard}': no value: no --macro NAME=VALUE, and the --config's <macros> does not define it" ]
    run_split "$SC" route --config "$FIX/clusters.tsv" --cluster '{cluster}'
    [ "$status" -eq 2 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
    [[ $stderr_text == "shard-check: macro {cluster} in cluster name '{cluster}': no value: give --macro NAME=VALUE"*"system.clusters dump)" ]]
    run_split "$SC" ddl --cluster '{cluster}' "$NF/macro.sql"
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: macro {cluster} in cluster name '{cluster}': no value: give --macro NAME=VALUE, or a --config whose <macros> defines it" ]
    # a config read from a pipe is read once, by the layout: the macro must come from --macro
    run_split "$SC" verify --config - --cluster '{cluster}' <"$NF/macros.xml"
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"macro {cluster}"*"not a regular file or directory"* ]]
    run_split "$SC" layout --config - --cluster '{cluster}' --macro cluster=ods_cluster <"$NF/macros.xml"
    [ "$status" -eq 0 ]
    run_split "$SC" layout --config "$NF/macros.xml" --cluster 'ods_{env'
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "shard-check: cluster name 'ods_{env': a '{' without its '}': the server reads {NAME} as a macro and refuses this" ]
    # a value that names itself: the server stops after 10 levels, and so do we
    run_split "$SC" layout --config "$NF/macros.xml" --cluster '{a}' --macro 'a={a}'
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"expand too deep"* ]]
    for bad in "cluster" "=x" "{c}=x"; do
        run_split "$SC" layout --config "$NF/macros.xml" --cluster '{cluster}' --macro "$bad"
        [ "$status" -eq 2 ] || { echo "--macro '$bad' → $status"; return 1; }
        [[ $stderr_text == "shard-check: bad value for --macro: $bad (expected NAME=VALUE, e.g. --macro cluster=ods_cluster)" ]]
    done
    # control characters in the name cannot forge a line of the message
    run_split "$SC" layout --config "$NF/macros.xml" --cluster $'{x\ny}'
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
    [[ $stderr_text == *'macro {x\ny}'* ]]
    # nor in a name (or a macro's value) that no cluster has
    run_split "$SC" layout --config "$NF/macros.xml" --cluster '{x}' --macro $'x=a\nb'
    [ "$status" -eq 1 ]
    [ "$stderr_text" = "shard-check: $NF/macros.xml: cluster a\nb not found (no such cluster in <remote_servers>); clusters there: ods_cluster, ods_prod" ]
}

@test "ddl: prod-ods quoted every way the engine parses it (literal, \`back\`, \"double\", bare a-b, \\x2D) is prod-ods" {
    # the engine reads each form as the cluster prod-ods: it creates the tables (ON CLUSTER aside)
    # with prod-ods.xml and reports the cluster in system.tables
    sed -E "s/ ON CLUSTER ('[^']*'|\`[^\`]*\`|\"[^\"]*\")//" "$NF/quoted.sql" >local.sql
    run_split chlocal --no-udf --config-file "$NF/prod-ods.xml" --path "$PWD/db" --multiquery -q "CREATE DATABASE ods; $(cat local.sql)
        SELECT count() FROM system.tables WHERE database = 'ods' AND engine = 'Distributed'"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$output" = "5" ]
    # and parses every ON CLUSTER as prod-ods
    awk 'BEGIN { RS = ";\n" } { gsub(/\\/, "\\\\"); gsub(/\n/, "\\n"); if ($0 ~ /CREATE/) print }' "$NF/quoted.sql" >st.tsv
    run_split chlocal --no-udf -q "SELECT DISTINCT extract(formatQuerySingleLine(replaceRegexpAll(q, '^(--[^\\n]*\\n)*', '')), ' ON CLUSTER (\\S+) ')
        FROM file('$PWD/st.tsv', TSV, 'q String') FORMAT TSVRaw"
    [ "$output" = "\`prod-ods\`" ]
    # shard-check: all five point at prod-ods
    run_split "$SC" ddl --cluster prod-ods "$NF/quoted.sql"
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [ "$(grep -c "on cluster prod-ods, sharding key cityHash64(order_id): ok" <<<"$output")" -eq 5 ]
    run_split "$SC" ddl --cluster prod_ods "$NF/quoted.sql"
    [ "$status" -eq 1 ]
    [ "$(grep -c "points at cluster prod-ods, not prod_ods" <<<"$stderr_text")" -eq 5 ]
    # the layout of prod-ods checked along: its shard 2 sets internal_replication, which plain
    # (not Replicated*) tables must not have
    run_split "$SC" ddl --cluster prod-ods --config "$NF/prod-ods.xml" "$NF/quoted.sql"
    [ "$status" -eq 1 ]
    [[ $stderr_text == "cluster prod-ods: shard 2 has 2 replicas with internal_replication but the tables are not Replicated*"* ]]
}

@test "ddl: a raw SQL line with 'o\\'ds' is SQL, not FORMAT TSV to unescape (regression)" {
    printf "%s\n" "CREATE TABLE ods.r (order_id String, created_at DateTime, updated_at DateTime) ENGINE = ReplacingMergeTree(updated_at) PARTITION BY toDate(created_at) ORDER BY order_id;" \
        "CREATE TABLE ods.d AS ods.r ENGINE = Distributed('o\\'ds', ods, r, cityHash64(order_id));" >q.sql
    run_split "$SC" ddl --cluster "o'ds" q.sql
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [[ $output == *"on cluster o'ds, sharding key"* ]]
    # the same statements as SHOW CREATE TABLE prints them in FORMAT TSV still read as TSV
    chlocal --no-udf --multiquery -q "SELECT formatQuerySingleLine(q) FROM file('$PWD/q.sql', LineAsString, 'q String') FORMAT TSV" >q.tsv
    grep -q "Distributed(\\\\'o\\\\\\\\\\\\'ds\\\\'" q.tsv
    run_split "$SC" ddl --cluster "o'ds" q.tsv
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
}

@test "ddl: Distributed('{cluster}', ...) in generated DDL and in the engine's SHOW CREATE resolves like the server" {
    # ods-ddl writes '{cluster}' as is; the engine keeps it in the table and expands it per server
    "$BIN/ods-ddl" schema --cluster '{cluster}' --replicated >repl.sql
    run_split "$SC" ddl --cluster '{cluster}' --config "$NF/macros.xml" repl.sql
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [[ $output == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster ods_cluster ({cluster}), sharding key cityHash64(order_id): ok"* ]]
    # the expanded name given, the DDL's macro resolved from the config or --macro
    run_split "$SC" ddl --cluster ods_cluster --config "$NF/macros.xml" "$NF/macro.sql"
    [ "$status" -eq 0 ]
    run_split "$SC" ddl --cluster ods_cluster --macro cluster=ods_cluster "$NF/macro.sql"
    [ "$status" -eq 0 ]
    run_split "$SC" ddl --cluster ods_cluster --macro cluster=ods_prod "$NF/macro.sql"
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"points at cluster ods_prod ({cluster}), not ods_cluster"* ]]
    # the engine's own SHOW CREATE TABLE of such a table
    sed "s/ ON CLUSTER '{cluster}'//" "$NF/macro.sql" >local.sql
    chlocal --no-udf --config-file "$NF/macros.xml" --path "$PWD/db" --multiquery -q "CREATE DATABASE ods; $(cat local.sql)
        SHOW CREATE TABLE ods.order_snapshot_rep INTO OUTFILE 'live.tsv' FORMAT TSV;
        SHOW CREATE TABLE ods.order_snapshot_dist INTO OUTFILE 'live.tsv' APPEND FORMAT TSV"
    grep -q "Distributed(\\\\'{cluster}\\\\'" live.tsv
    run_split "$SC" ddl --cluster '{cluster}' --config "$NF/macros.xml" live.tsv
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
}

@test "scripts/check-cluster: --cluster prod-ods and --cluster '{cluster}' pass, quoted end to end" {
    export ODS_BUILD_DIR=${ODS_BUILD_DIR:-$ROOT/build}
    run_split "$ROOT/scripts/check-cluster" --config "$NF/prod-ods.xml" --cluster prod-ods
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [[ $output == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster prod-ods, sharding key cityHash64(order_id): ok"* ]]
    [[ $stderr_text == *"cluster prod-ods: FINAL through ods.order_snapshot_dist holds"* ]]
    run_split "$ROOT/scripts/check-cluster" --config "$NF/macros.xml" --cluster '{cluster}'
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [[ $output == *"on cluster ods_cluster ({cluster}), sharding key cityHash64(order_id): ok"* ]]
    # the live tables' DDL with the macro, checked against the expanded name
    run_split "$ROOT/scripts/check-cluster" --config "$NF/macros.xml" --cluster ods_cluster --ddl "$NF/macro.sql"
    [ "$status" -eq 0 ]
    # a name the config does not hold fails the check (exit 1); nothing is run through a shell
    run_split "$ROOT/scripts/check-cluster" --config "$NF/prod-ods.xml" --cluster 'x$(touch pwned)`touch pwned2`;y'
    [ "$status" -eq 1 ]
    [ ! -e pwned ]
    [ ! -e pwned2 ]
    # only what no server could name is refused up front; --ods-db stays a plain identifier
    for bad in "" $'a\nb' $'a\tb'; do
        run_split "$ROOT/scripts/check-cluster" --config "$NF/prod-ods.xml" --cluster "$bad"
        [ "$status" -eq 2 ] || { echo "'$bad' → $status"; return 1; }
        [[ $stderr_text == "check-cluster: --cluster must not "* ]]
    done
    run_split "$ROOT/scripts/check-cluster" --config "$NF/prod-ods.xml" --cluster prod-ods --ods-db "o-ds"
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "check-cluster: bad value for --ods-db: o-ds (expected a plain identifier, [A-Za-z_][A-Za-z0-9_]*)" ]
}

@test "scripts/check-cluster: --version, an unknown option, a missing value: the wording of every binary" {
    run_split "$ROOT/scripts/check-cluster" --version
    [ "$status" -eq 0 ]
    [ "$output" = "check-cluster $(ods_version)" ]
    [ -z "$stderr_text" ]
    run_split "$ROOT/scripts/check-cluster" --bogus
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "check-cluster: unknown option: --bogus (try --help)" ]
    run_split "$ROOT/scripts/check-cluster" --lock
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "check-cluster: --lock needs a value (try --help)" ]
}

# ---- layout against system.clusters on generated config trees ----

HELPERS=$BUILD_DIR/tests/helpers

# layout_tsv CLUSTER: shard-check layout's report on stdin as the engine's rows:
# cluster, shard_num, shard_weight, internal_replication, replica_num, host_name, port.
layout_tsv() {
    awk -F'\t' -v c="$1" '/^shard / {
        split($1, s, " "); split($2, w, " "); split($4, ir, " "); n = split($5, r, " ")
        for (i = 2; i <= n; i++) {
            p = r[i]; k = match(p, /:[0-9]+$/)
            print c "\t" s[2] "\t" w[2] "\t" (ir[2] == "true" ? 1 : 0) "\t" (i - 1) "\t" substr(p, 1, k - 1) "\t" substr(p, k + 1)
        }
    }'
}

# engine_reason ERRFILE: what the engine's refusal names, as shard-check must name it too: the
# error code (NO_ELEMENTS_IN_CONFIG …), for a std::exception its class (Poco::SyntaxException,
# std::out_of_range …), for ConfigProcessor's own a phrase of its message. Empty when the
# message is none of those.
engine_reason() {
    local m
    m=$(tr '\n' ' ' <"$1")
    # ConfigProcessor's own refusals (the engine cannot start): a phrase of the server's message
    local p
    for p in "can't process from_env substitution" "both remove and replace attributes set for element" \
        "More than one substitution attribute is set for element" "<include> element must have no children"; do
        if [[ $m == *"Failed to preprocess config"*"$p"* ]]; then
            echo "$p"
            return
        fi
    done
    if [[ $m =~ DB::Exception:\ ([A-Za-z_:]+):\ .*\(STD_EXCEPTION\) ]]; then
        echo "${BASH_REMATCH[1]}"
    elif [[ $m =~ \(([A-Z_]+)\)\ *$ ]] || [[ $m =~ \(([A-Z_]+)\)\ *\(version ]]; then
        echo "${BASH_REMATCH[1]}"
    fi
}

# diff_config DIR MAIN: every cluster named in DIR/clusters, with DIR/env exported: the engine's
# system.clusters rows (chlocal --config-file MAIN) and shard-check layout --config MAIN must
# agree; a cluster the engine does not show must be "not found" (exit 1); '{cluster}' is the
# engine's macro (system.macros). When the engine refuses the config, every name must fail
# (exit 1) with "the server refuses this config" and the engine's reason. Writes what differs to
# DIR.out and returns 1 if anything does, 2 if the engine refuses for a reason shard-check does
# not know or shows a cluster DIR/clusters does not name.
diff_config() {
    local dir=$1 main=$2 cl name st reason macro=""
    : >"$dir.out"
    if ! (set -a; . "$dir/env"; set +a;
        exec "$BIN/chlocal" --config-file "$main" -q "SELECT cluster, shard_num, shard_weight,
            internal_replication, replica_num, host_name, port FROM system.clusters
            ORDER BY cluster, shard_num, replica_num FORMAT TSV") >"$dir.engine" 2>"$dir.engine_err"; then
        reason=$(engine_reason "$dir.engine_err")
        if [ -z "$reason" ]; then
            { echo "the engine refuses the config for a reason not known here:"; cat "$dir.engine_err"; } >"$dir.out"
            return 2
        fi
        while read -r cl; do
            (set -a; . "$dir/env"; set +a; exec "$SC" layout --config "$main" --cluster "$cl") >"$dir.report" 2>"$dir.err"
            st=$?
            if [ "$st" -ne 1 ] || ! grep -q "the server refuses this config" "$dir.err" || ! grep -qF "$reason" "$dir.err"; then
                { echo "cluster $cl: the engine refuses the config ($reason); shard-check exit $st:"
                  cat "$dir.engine_err" "$dir.report" "$dir.err"; } >>"$dir.out"
            fi
        done <"$dir/clusters"
        [ ! -s "$dir.out" ]
        return
    fi
    # every cluster the engine shows is one the generator (or the fixture) names
    if ! awk -F'\t' 'NR == FNR {want[$0] = 1; next} !($1 in want) {print "the engine shows cluster " $1 ", not in clusters"; bad = 1}
            END {exit bad}' "$dir/clusters" "$dir.engine" >"$dir.out"; then
        return 2
    fi
    if grep -qxF '{cluster}' "$dir/clusters"; then
        macro=$(set -a; . "$dir/env"; set +a; exec "$BIN/chlocal" --config-file "$main" -q \
            "SELECT substitution FROM system.macros WHERE macro = 'cluster' FORMAT TSVRaw")
    fi
    while read -r cl; do
        name=$cl
        [ "$cl" = '{cluster}' ] && name=$macro
        awk -F'\t' -v c="$name" '$1 == c' "$dir.engine" >"$dir.want"
        (set -a; . "$dir/env"; set +a; exec "$SC" layout --config "$main" --cluster "$cl") >"$dir.report" 2>"$dir.err"
        st=$?
        if [ ! -s "$dir.want" ]; then
            if [ "$st" -ne 1 ] || ! grep -q "not found" "$dir.err"; then
                { echo "cluster $cl: the engine has no such cluster; shard-check exit $st:"; cat "$dir.report" "$dir.err"; } >>"$dir.out"
            fi
            continue
        fi
        layout_tsv "$name" <"$dir.report" >"$dir.got"
        : >"$dir.diff"
        if [ "$st" -ne 0 ] || ! diff -u "$dir.want" "$dir.got" >"$dir.diff"; then
            {
                echo "cluster $cl: shard-check exit $st"
                echo "--- engine (cluster shard weight internal_replication replica host port)"; cat "$dir.want"
                echo "--- shard-check layout"; cat "$dir.report" "$dir.err"
                echo "--- diff engine shard-check"; cat "$dir.diff"
            } >>"$dir.out"
        fi
    done <"$dir/clusters"
    [ ! -s "$dir.out" ]
}

# show_tree DIR: every file under DIR with its content
show_tree() {
    local f
    find "$1" -type f | LC_ALL=C sort | while read -r f; do
        echo "=== $f"
        cat "$f"
    done
}

@test "layout equals system.clusters on generated config trees (SHARD_DIFF_SEEDS overrides the seeds)" {
    # 150 generated trees on the plain build; 40 under ASan, where the question is memory safety
    local n=150 seed bad=() shown=0 rc
    if sanitized; then n=40; fi
    local seeds=${SHARD_DIFF_SEEDS:-$(seq 1 "$n")}
    for seed in $seeds; do
        "$HELPERS/config_gen" --seed "$seed" --out "s$seed"
        rc=0
        diff_config "$PWD/s$seed" "$(cat "s$seed/main")" || rc=$?
        [ "$rc" -eq 0 ] && continue
        bad+=("$seed")
        if [ "$rc" -eq 2 ]; then echo "seed $seed: a generator bug: $(head -1 "s$seed.out")" >&2; fi
        if [ "$shown" -lt "${SHARD_DIFF_SHOW:-5}" ]; then
            shown=$((shown + 1))
            {
                echo "##### seed $seed"
                show_tree "$PWD/s$seed"
                echo "##### seed $seed: engine rows"; cat "s$seed.engine"
                cat "s$seed.out"
            } >&2
        else
            { echo "##### seed $seed"; grep -v '^ ' "s$seed.out" | grep -E '^(cluster|[-+][^-+])' | head -8; } >&2
        fi
    done
    if [ "${#bad[@]}" -ne 0 ]; then
        echo "${#bad[@]} seeds differ: ${bad[*]} (re-run one: SHARD_DIFF_SEEDS=N SHARD_DIFF_SHOW=1)" >&2
        false
    fi
}

@test "layout equals system.clusters on the minimised cases in tests/fixtures/shard/diff/" {
    local d name n=0 bad=()
    for d in "$FIX"/diff/*/; do
        name=$(basename "$d")
        cp -r "$d" "$name"
        # include_from takes an absolute path: @DIR@ is the copy's directory
        grep -rl '@DIR@' "$name" | while read -r f; do sed -i "s|@DIR@|$PWD/$name|g" "$f"; done
        [ -f "$name/env" ] || : >"$name/env"
        n=$((n + 1))
        if ! diff_config "$PWD/$name" "$PWD/$name/config.xml"; then
            bad+=("$name")
            { echo "##### $name: $(head -1 "$name/README")"; show_tree "$PWD/$name"; cat "$name.out"; } >&2
        fi
    done
    [ "$n" -gt 0 ]
    [ "${#bad[@]}" -eq 0 ]
}

@test "ddl: every sharded table of the ODS routes as it must: hot rows and stale records with the versions, errors by their Kafka coordinates, the ledger not at all; each other variant fails, naming the table and what it must be (issue 27)" {
    "$BIN/ods-ddl" schema --cluster c --replicated >good.sql
    run_split "$BIN/shard-check" ddl --cluster c good.sql
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [[ $output == *"ods.order_snapshot_hot_dist -> ods.order_snapshot_hot, sharding key cityHash64(order_id): ok (routed with the versions)"* ]]
    [[ $output == *"ods.order_snapshot_stale_dist -> ods.order_snapshot_stale, sharding key cityHash64(order_id): ok (routed with the versions)"* ]]
    [[ $output == *"ods.order_snapshot_errors_dist -> ods.order_snapshot_errors, sharding key cityHash64(_topic,_partition,_offset): ok (routed by the Kafka coordinates)"* ]]
    [[ $output == *"ods.order_loads_dist -> ods.order_loads, sharding key (none): ok (the ledger: unsharded)"* ]]
    for t in order_snapshot_hot order_snapshot_stale; do
        sed "s/ENGINE = Distributed(c, ods, $t, cityHash64(order_id))/ENGINE = Distributed(c, ods, $t, rand())/" good.sql >bad.sql
        [ "$(grep -c 'rand()' bad.sql)" -eq 1 ]
        run_split "$BIN/shard-check" ddl --cluster c bad.sql
        [ "$status" -eq 1 ]
        [[ $stderr_text == *"ods.${t}_dist: shards by rand(), not by cityHash64(order_id) as ods.order_snapshot_dist does"* ]]
    done
    # the errors by anything but their coordinates (another order of them too), none at all
    local key shown
    for key in "rand()" "cityHash64(_offset, _partition, _topic)" "cityHash64(order_id)" ""; do
        sed "s/ENGINE = Distributed(c, ods, order_snapshot_errors, cityHash64(_topic, _partition, _offset))/ENGINE = Distributed(c, ods, order_snapshot_errors${key:+, $key})/" good.sql >bad.sql
        [ "$(grep -c 'cityHash64(_topic, _partition, _offset)' bad.sql)" -eq 0 ]
        run_split "$BIN/shard-check" ddl --cluster c bad.sql
        [ "$status" -eq 1 ]
        # (the key as shard-check prints an expression: no blank after a comma)
        shown=${key:-(none)}
        shown=${shown//, /,}
        [[ $stderr_text == *"ods.order_snapshot_errors_dist: shards by $shown, not by cityHash64(_topic,_partition,_offset): the rejected messages in ods.order_snapshot_errors route by their Kafka coordinates"* ]] ||
            { echo "$key: $stderr_text"; return 1; }
    done
    # the ledger with a sharding key
    sed "s/ENGINE = Distributed(c, ods, order_loads)/ENGINE = Distributed(c, ods, order_loads, cityHash64(_load_id))/" good.sql >bad.sql
    [ "$(grep -c 'order_loads, cityHash64(_load_id)' bad.sql)" -eq 1 ]
    run_split "$BIN/shard-check" ddl --cluster c bad.sql
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"ods.order_loads_dist: has the sharding key cityHash64(_load_id): the ledger in ods.order_loads is written on the node that runs the transition and read whole through this table, which must have none"* ]]
}

@test "the example configs for --replicated: macros.example.xml and keeper.example.xml in config.d load in the engine, give system.macros, and ddl resolves '{cluster}' with them (issue 27)" {
    mkdir -p cfg/config.d
    cp "$ROOT/clickhouse-config/cluster.example.xml" cfg/config.xml
    cp "$ROOT/clickhouse-config/macros.example.xml" "$ROOT/clickhouse-config/keeper.example.xml" cfg/config.d/
    run_split chlocal --no-udf --config-file cfg/config.xml -q "SELECT macro, substitution FROM system.macros ORDER BY macro FORMAT TSV"
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$output" = "$(printf 'cluster\tods_cluster\nreplica\tch-ods-1a\nshard\t01')" ]
    "$BIN/ods-ddl" schema --cluster '{cluster}' --replicated >repl.sql
    run_split "$SC" ddl --cluster '{cluster}' --config cfg/config.xml repl.sql
    [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
    [[ $output == *"ods.order_snapshot_dist -> ods.order_snapshot_rep on cluster ods_cluster ({cluster}), sharding key cityHash64(order_id): ok"* ]]
    # the layout the replicated tables need (internal_replication) holds on the example
    run_split "$SC" layout --config cfg/config.xml --cluster ods_cluster --replicated
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
}

@test "ddl: the routing of hot rows and stale records read from the engine's own CREATE texts (system.tables of a node of the example cluster): ok as ods-ddl writes it, FAIL once hot_dist is rand()" {
    cfg=$(keeper_cfg "$ROOT/clickhouse-config/cluster.example.xml")
    for variant in good bad; do
        "$BIN/ods-ddl" schema --cluster ods_cluster --per-node >schema.sql
        if [ "$variant" = bad ]; then
            sed -i 's/ENGINE = Distributed(ods_cluster, ods, order_snapshot_hot, cityHash64(order_id))/ENGINE = Distributed(ods_cluster, ods, order_snapshot_hot, rand())/' schema.sql
            [ "$(grep -c 'rand()' schema.sql)" -eq 1 ]
        fi
        rm -rf "db-$variant"
        chlocal --no-udf --config-file "$cfg" --path "db-$variant" --queries-file schema.sql
        chlocal --no-udf --config-file "$cfg" --path "db-$variant" -q "
            SELECT create_table_query FROM system.tables WHERE database IN ('stg', 'ods') ORDER BY name FORMAT TSVRaw" >"show-$variant.sql"
        run_split "$SC" ddl --cluster ods_cluster "show-$variant.sql"
        if [ "$variant" = good ]; then
            [ "$status" -eq 0 ] || { echo "$output $stderr_text"; return 1; }
            [[ $output == *"ods.order_snapshot_hot_dist -> ods.order_snapshot_hot, sharding key cityHash64(order_id): ok (routed with the versions)"* ]]
            [[ $output == *"ods.order_snapshot_stale_dist -> ods.order_snapshot_stale, sharding key cityHash64(order_id): ok (routed with the versions)"* ]]
            [[ $output == *"ods.order_snapshot_errors_dist -> ods.order_snapshot_errors, sharding key cityHash64(_topic,_partition,_offset): ok (routed by the Kafka coordinates)"* ]]
            [[ $output == *"ods.order_loads_dist -> ods.order_loads, sharding key (none): ok (the ledger: unsharded)"* ]]
        else
            [ "$status" -eq 1 ]
            [[ $stderr_text == *"ods.order_snapshot_hot_dist: shards by rand(), not by cityHash64(order_id) as ods.order_snapshot_dist does"* ]]
        fi
    done
}
