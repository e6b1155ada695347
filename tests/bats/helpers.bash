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
