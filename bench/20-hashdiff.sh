#!/usr/bin/env bash
# 20-hashdiff: each hashdiff UDF against its native SQL expression, side by side in one run, on
# bench_rows 1 000 000 customers of 4 realistic attributes (name, email, city, tier).
# HD_BENCH_FNS="hashdiff …" limits the run to some of the four functions (a quick look).
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
source "$ROOT/scripts/lib/bench.sh"

rows=$(bench_rows 1000000)
work=$(mktemp -d "${BENCH_WORK:-${TMPDIR:-/tmp}}/hashdiff.XXXXXX")
trap 'rm -rf "$work"' EXIT
cfg=$ROOT/clickhouse-config/hashdiff_function.xml
[ -x "$BIN/hashdiff" ] || die "no $BIN/hashdiff: build first"

# chlocal in its own directory (it reads files in its cwd as tables), on a persistent table.
ch() { (cd "$work" && "$BIN/chlocal" --udf-config "$cfg" --path "$work/db" "$@"); }

# Names half Cyrillic / half Latin with accents, some untrimmed; 5 % of e-mails missing.
ch -q "
CREATE TABLE cust (name String, email Nullable(String), city String, tier String)
    ENGINE = MergeTree ORDER BY tuple();
INSERT INTO cust SELECT
    concat(if(number % 17 = 0, ' ', ''),
        ['Анна', 'Борис', 'Ольга', 'Дмитрий', 'John', 'Maria', 'Jürgen', 'Chloé', 'Ahmed', 'Łucja'][1 + number % 10],
        ' ',
        ['Петрова', 'Смирнов', 'Иванова', 'Кузнецов', 'Smith', 'García', 'Müller', 'Dubois', 'Ali', 'Straße'][1 + intDiv(number, 10) % 10]),
    if(number % 20 = 0, NULL, concat('user', toString(number), '@example.com')),
    ['Москва', 'Санкт-Петербург', 'Казань', 'Berlin', 'São Paulo', 'New York', 'Paris', 'Kraków'][1 + cityHash64(number) % 8],
    ['bronze', 'silver', 'gold', 'platinum'][1 + cityHash64(number, 1) % 4]
FROM numbers($rows)"

cols='[name, email, city, tier]'
declare -A native=(
    [hashdiff]="xxh3_128(arrayStringConcat(arrayMap(x -> ifNull(upperUTF8(trimBoth(x)), ''), $cols), '||'))"
    [hashdiff_sha256]="SHA256(arrayStringConcat(arrayMap(x -> ifNull(upperUTF8(trimBoth(x)), ''), $cols), '||'))"
    [hashdiff_automatedv]="$("$BIN/hashdiff" --print-sql automatedv --algo md5 name email city tier)"
    [hashdiff_strict]="$("$BIN/hashdiff" --print-sql strict name email city tier)"
)
fns=(${HD_BENCH_FNS:-hashdiff hashdiff_sha256 hashdiff_automatedv hashdiff_strict})

# Both sides must agree before they are timed.
for f in "${fns[@]}"; do
    bad=$(ch -q "SELECT countIf($f($cols) != ${native[$f]}) FROM cust")
    [ "$bad" = 0 ] || die "$f differs from its native SQL on $bad rows"
done

args=()
for f in "${fns[@]}"; do
    for side in native udf; do
        expr=${native[$f]}
        [ "$side" = udf ] && expr="$f($cols)"
        args+=("$side-$f" "cd $(printf %q "$work") && $(printf %q "$BIN/chlocal") --udf-config $(printf %q "$cfg") --path db -q $(printf %q "SELECT max($expr) FROM cust")")
    done
done
# The floor of any executable UDF here: same protocol and settings, no work (tests/helpers/proto_floor.c).
# A UDF cannot beat it, so it shows how much of each UDF's time is the engine's side of the pipe.
mkdir -p "$work/cfg"
cp "$cfg" "$ROOT/tests/helpers/floor_function.xml" "$work/cfg/"
args+=("floor" "cd $(printf %q "$work") && $(printf %q "$BIN/chlocal") --udf-dir $(printf %q "$BUILD/tests/user_scripts") --udf-config $(printf %q "$work/cfg/*_function.xml") --path db -q $(printf %q "SELECT max(proto_floor($cols)) FROM cust")")
bench_interleave "${BENCH_REPS:-3}" "${args[@]}"
bench_row "protocol floor: a UDF that hashes nothing, vs native hashdiff" "$rows" floor native-hashdiff

for f in "${fns[@]}"; do
    bench_row "$f: native SQL" "$rows" "native-$f"
    bench_row "$f: UDF" "$rows" "udf-$f" "native-$f"
done
