# helpers.bash: loaded by every .bats file; paths to the build and a chlocal that runs in a
# per-test temporary directory (clickhouse local treats files in its working directory as tables).
ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BIN=${ODS_BUILD_DIR:-$ROOT/build}/bin
export CHLOCAL_LIBCHDB=${CHLOCAL_LIBCHDB:-$ROOT/.deps/chdb/libchdb.so}

chlocal() { "$BIN/chlocal" "$@"; }

bats_require_minimum_version 1.5.0

# run_split CMD…: like bats' run, but keeps stdout in $output and stderr in $stderr_text.
run_split() {
    run --separate-stderr "$@"
    stderr_text=$stderr
}

setup() { cd "$BATS_TEST_TMPDIR"; }
