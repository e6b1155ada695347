# common.sh: shared shell helpers for scripts/*; sourced, never run.
# Sets ROOT (the checkout), BUILD (the build tree) and BIN (its executables).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${ODS_BUILD_DIR:-$ROOT/build}
BIN=$BUILD/bin
CHDB_VERSION=26.5.3
CHDB_SHA256=4330da79405733f7572f27c1442f46c03a08301f00859dce0368645731b1e1dc
CHDB_DIR=$ROOT/.deps/chdb
export CHLOCAL_LIBCHDB=${CHLOCAL_LIBCHDB:-$CHDB_DIR/libchdb.so}

say() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { say "error: $*"; exit 1; }
