#!/usr/bin/env bats
# shard-check: cityHash64 and Distributed routing bit for bit as the embedded engine computes them,
# the multi-shard ODS built from the engine's own shard queues, and the CLI's checks and errors.
load helpers

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
    [[ $stderr_text == *"every shard has weight 0"* ]]
    # the engine refuses that cluster too
    run_split chlocal --config-file "$FIX/zero.xml" -q "CREATE TABLE l (k String) ENGINE = Memory; CREATE TABLE d AS l ENGINE = Distributed(zero, default, l, cityHash64(k))"
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"zero weight on all shards is prohibited"* ]]
    # and a replica without <port> when the config has no <tcp_port>
    sed 's,<port>1</port>,,' "$FIX/w305.xml" >noport.xml
    run_split "$SC" layout --config noport.xml --cluster w305
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"a replica has no <port> and the config no <tcp_port>"* ]]
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
    run_split "$ROOT/scripts/check-cluster" --cluster "a;b"
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

@test "from_env is read from the environment as the server reads it; from_env on an element with a value and no replace exits 2" {
    export SC_W1=0 SC_HOST=env-host SC_PORT=9440
    unset SC_UNSET_WEIGHT
    # replace="1" drops the inline 1 for 0; an unset variable keeps the inline value, or with
    # optional="1" removes the element (default weight 1)
    layout_vs_engine "$FIX/from-env.xml" "$FIX/from-env.xml" envc
    [[ $output == *$'shard 1\tweight 0\tslots none\t'*"env-host:9440"* ]]
    [[ $output == *$'shard 3\tweight 4\t'* ]]
    SC_W1=7 layout_vs_engine "$FIX/from-env.xml" "$FIX/from-env.xml" envc
    [[ $output == *$'shard 1\tweight 7\t'* ]]
    # a value taken verbatim: the server does not trim it, so a padded number is refused
    run_split env SC_W1=' 2' "$SC" layout --config "$FIX/from-env.xml" --cluster envc
    [ "$status" -eq 2 ]
    run_split chlocal --config-file "$FIX/from-env-no-replace.xml" -q "SELECT 1"
    [ "$status" -ne 0 ]
    [[ $stderr_text == *"Element <host> has value and does not have 'replace' attribute"* ]]
    run_split "$SC" layout --config "$FIX/from-env-no-replace.xml" --cluster envc
    [ "$status" -eq 2 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
    [[ $stderr_text == *"from_env= has a value but no replace=\"1\": ClickHouse refuses to load such a config"* ]]
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

@test "an <include incl=.../> inside a cluster is not resolved: exit 2 pointing to a system.clusters dump, never another layout" {
    run_split "$SC" layout --config "$FIX/include.xml" --cluster incl
    [ "$status" -eq 2 ]
    [[ $stderr_text == *"does not resolve; pass a system.clusters dump"* ]]
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

@test "route with weights 500000000,1,0,3000000000: the engine's slot arithmetic in SQL, in bounded memory" {
    # the engine's slot table would hold 3 500 000 001 entries; the tool holds one bound per shard
    chlocal -q "SELECT s, multiIf(h % 3500000001 < 500000000, 1, h % 3500000001 < 500000001, 2, 4)
        FROM (SELECT concat('ORD-', toString(number), randomPrintableASCII(number % 7)) AS s, cityHash64(s) AS h
        FROM numbers(100000)) INTO OUTFILE 'want.tsv' FORMAT TSV"
    cut -f1 want.tsv | bash -c "$(vlimit 262144)"'exec "$0" "$@"' "$SC" route --config "$FIX/huge-weight.xml" --cluster huge >ours
    cut -f2 want.tsv >theirs
    [ "$(mismatches ours theirs)" -eq 0 ]
    [ "$(grep -c '^1$' theirs)" -gt 10000 ]
    [ "$(grep -c '^4$' theirs)" -gt 80000 ]
    "$SC" layout --config "$FIX/huge-weight.xml" --cluster huge >report
    grep -q $'^shard 2\tweight 1\tslot 500000000\t' report
    grep -q $'^shard 4\tweight 3000000000\tslots 500000001-3500000000\t' report
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
