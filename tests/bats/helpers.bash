# helpers.bash: loaded by every .bats file; paths to the build and a chlocal that runs in a
# per-test temporary directory (clickhouse local treats files in its working directory as tables).
ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD_DIR=${ODS_BUILD_DIR:-$ROOT/build}
BIN=$BUILD_DIR/bin
# A user_scripts_path holding the test-only UDFs (proto_echo, proto_floor) and links to the shipped ones.
TEST_UDFS=$BUILD_DIR/tests/user_scripts
export CHLOCAL_LIBCHDB=${CHLOCAL_LIBCHDB:-$ROOT/.deps/chdb/libchdb.so}

chlocal() { "$BIN/chlocal" "$@"; }

bats_require_minimum_version 1.5.0

# run_split CMD…: like bats' run, but keeps stdout in $output and stderr in $stderr_text.
run_split() {
    run --separate-stderr "$@"
    stderr_text=$stderr
}

setup() { cd "$BATS_TEST_TMPDIR"; }

# ods_version: the project's version as the top CMakeLists.txt sets it (project(... VERSION X)),
# what every binary's --version must print.
ods_version() { sed -nE 's/^project\(ods_udf VERSION ([0-9][0-9.]*)[ )].*/\1/p' "$ROOT/CMakeLists.txt"; }

# sanitized: true when the build under test is the ASan+UBSan one (scripts/test runs every suite
# against it too); generated-input tests then run fewer cases, the plain run keeps them all.
sanitized() { grep -qx 'ODS_SANITIZE:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; }

source "$ROOT/scripts/lib/zookeeper.sh"
# keeper_cfg CFG: a copy of the server config CFG with a config.d/ snippet that points the engine
# at this file's ZooKeeper (started on first use; teardown_file calls keeper_stop) under a
# keeper_map_path_prefix of its own: the cluster schema's lease is a KeeperMap table, which the
# engine creates only with a Keeper. Prints the copy's path.
keeper_cfg() {
    if [ ! -s "$BATS_FILE_TMPDIR/zk.port" ]; then
        zk_start "$BATS_FILE_TMPDIR/zk" >&2 || return 1
        echo "$ZK_PORT" >"$BATS_FILE_TMPDIR/zk.port"
        echo "$ZK_PID" >"$BATS_FILE_TMPDIR/zk.pid"
    fi
    local d
    d=$(mktemp -d "$BATS_TEST_TMPDIR/kcfg.XXXXXX")
    mkdir -p "$d/config.d"
    cp "$1" "$d/config.xml"
    { echo "<clickhouse>"; zk_elements "$(cat "$BATS_FILE_TMPDIR/zk.port")" "/ods_test/${d##*/}"; echo "</clickhouse>"; } \
        >"$d/config.d/keeper.xml"
    echo "$d/config.xml"
}
keeper_stop() {
    [ ! -s "$BATS_FILE_TMPDIR/zk.pid" ] || kill "$(cat "$BATS_FILE_TMPDIR/zk.pid")" 2>/dev/null || true
}

# ods_ddl_one_gate ARG…: ods-ddl, but a transition named neither --gate-pieces nor --piece-size
# gets --gate-pieces 1, the gate ods-load runs for a load of fewer than --piece-size messages (as
# every load of the suites that use it is): the printed default's 15 more INSERTs would be empty
# and cost some 0.1 s of analysis each, in hundreds of runs.
ods_ddl_one_gate() {
    local a
    if [ "${1-}" = transition ]; then
        for a in "$@"; do
            case $a in --gate-pieces|--piece-size) "$BIN/ods-ddl" "$@"; return ;; esac
        done
        "$BIN/ods-ddl" "$@" --gate-pieces 1
        return
    fi
    "$BIN/ods-ddl" "$@"
}
