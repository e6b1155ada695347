# zookeeper.sh: a throwaway Apache ZooKeeper (Debian's zookeeper package) for embedded engines
# that must share a Keeper (the cluster schema's lease is a KeeperMap row); sourced, never run.
# zk_start DIR: starts one on a free port of 127.0.0.1, its data and log in DIR; sets ZK_PORT and
#   ZK_PID; returns non-zero (the log on stderr) when it does not listen within 15 s.
# zk_elements PORT [PREFIX]: the server config elements that point an engine at it, with
#   keeper_map_path_prefix PREFIX (default /ods_test): engines that share a prefix share their
#   KeeperMap tables' rows. Inside <clickhouse>, in a config of its own or another's.
# zk_stop: stops it.
zk_start() {
    local dir=$1 p i
    ZK_PORT= ZK_PID=
    [ -r /usr/share/java/zookeeper.jar ] ||
        { echo "no /usr/share/java/zookeeper.jar: install the Debian package zookeeper (scripts/setup does)" >&2; return 1; }
    for i in 1 2 3 4 5; do
        p=$((20000 + RANDOM % 20000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { ZK_PORT=$p; break; }
    done
    [ -n "$ZK_PORT" ] || { echo "no free port for ZooKeeper" >&2; return 1; }
    mkdir -p "$dir"
    # (no descriptor but its log: bats waits for whoever holds its fd 3)
    java -Xmx256m -cp /usr/share/java/zookeeper.jar org.apache.zookeeper.server.ZooKeeperServerMain \
        "$ZK_PORT" "$dir" >"$dir/zk.log" 2>&1 </dev/null 3>&- &
    ZK_PID=$!
    for ((i = 0; i < 150; i++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$ZK_PORT") 2>/dev/null && return 0
        kill -0 "$ZK_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$dir/zk.log" >&2
    echo "ZooKeeper did not start on port $ZK_PORT" >&2
    return 1
}
zk_elements() {
    echo "<zookeeper><node><host>127.0.0.1</host><port>$1</port></node></zookeeper>"
    echo "<keeper_map_path_prefix>${2:-/ods_test}</keeper_map_path_prefix>"
}
zk_stop() {
    [ -z "${ZK_PID:-}" ] || { kill "$ZK_PID" 2>/dev/null || true; wait "$ZK_PID" 2>/dev/null || true; }
    ZK_PID=
}
