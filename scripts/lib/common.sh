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
# file_glob_path PATH: true when the engine's file() takes PATH as a glob (* ? {), which it cannot
# escape: it reads other files, or none. A relative path is joined to the engine's directory
# first, so that directory counts too.
file_glob_path() { [[ $1 == *[*?{]* ]]; }
# sql_unsafe_path PATH: true when PATH cannot go into SQL as a plain '...' literal for file(): a
# glob, a quote or a backslash (which would end or change the literal), a control character.
UNSAFE_PATH_CHARS="' \\ * ? { or a control character"
sql_unsafe_path() { file_glob_path "$1" || [[ $1 == *[\'\\]* || $1 == *[[:cntrl:]]* ]]; }
