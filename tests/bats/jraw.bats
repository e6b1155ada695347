#!/usr/bin/env bats
# jraw: the UDF's re-printer of JSON values equals the engine's JSONExtractRaw byte for byte, on
# the fixture's hand-picked cases and on 240 000 generated values (tests/helpers/json_gen.c).
load helpers

CASES=$ROOT/tests/fixtures/jraw/cases.tsv
HELPERS=$BUILD_DIR/tests/helpers

# engine_raw FILE: JSONExtractRaw of each line as the member v of an object, one a line in input
# order (one thread, no parallel parsing); the engine's empty answer for a refused text is ERROR.
# TSVRaw writes the bytes as they are: a JSON text holds no raw tab or newline.
engine_raw() {
    chlocal --no-udf -q "SELECT JSONExtractRaw(concat('{\"v\":', line, '}'), 'v')
        FROM file('$PWD/$1', LineAsString, 'line String')
        SETTINGS max_threads = 1, input_format_parallel_parsing = 0 FORMAT TSVRaw" | sed 's/^$/ERROR/'
}

# show_diffs GOT WANT INPUT: prints the first 5 lines where GOT and WANT differ, with the input
# line; exit 1 if any does.
show_diffs() {
    awk -v A="$1" -v B="$2" '{
        if ((getline a < A) <= 0) a = "(missing)"
        if ((getline b < B) <= 0) b = "(missing)"
        if (a != b && n++ < 5) printf "line %d\n  input:  %s\n  got:    %s\n  want:   %s\n", NR, $0, a, b
    } END { if (n) { printf "%d lines differ\n", n; exit 1 } }' "$3"
}

@test "jraw_print and json_gen refuse stray arguments" {
    run_split "$HELPERS/jraw_print" --bogus
    [ "$status" -eq 2 ]
    run_split "$HELPERS/json_gen" --bogus
    [ "$status" -eq 2 ]
}

@test "json_gen is deterministic and seeds differ" {
    "$HELPERS/json_gen" --seed 9 --count 500 >a.txt
    "$HELPERS/json_gen" --seed 9 --count 500 >b.txt
    "$HELPERS/json_gen" --seed 10 --count 500 >c.txt
    cmp a.txt b.txt
    [ "$(wc -l <a.txt)" -eq 500 ]
    run cmp -s a.txt c.txt
    [ "$status" -ne 0 ]
}

@test "fixture cases: the expected column is the engine's, and jraw prints it" {
    grep -v '^#' "$CASES" | cut -f1 >in.txt
    grep -v '^#' "$CASES" | cut -f2 >want.txt
    [ "$(wc -l <in.txt)" -ge 100 ]
    # one tab a case line: input and expected are whole
    [ "$(grep -v '^#' "$CASES" | awk -F'\t' 'NF != 2' | wc -l)" -eq 0 ]
    engine_raw in.txt >engine.txt
    run show_diffs engine.txt want.txt in.txt
    echo "$output"
    [ "$status" -eq 0 ]
    "$HELPERS/jraw_print" <in.txt >jraw.txt
    run show_diffs jraw.txt want.txt in.txt
    echo "$output"
    [ "$status" -eq 0 ]
    grep -qx ERROR want.txt   # the lone surrogates
}

@test "240 000 generated values: jraw equals JSONExtractRaw line for line" {
    for seed in 1 2 3 4; do
        "$HELPERS/json_gen" --seed "$seed" --count 60000
    done >in.txt
    [ "$(wc -l <in.txt)" -eq 240000 ]
    "$HELPERS/jraw_print" <in.txt >jraw.txt
    engine_raw in.txt >engine.txt
    [ "$(wc -l <engine.txt)" -eq 240000 ]
    run show_diffs jraw.txt engine.txt in.txt
    echo "$output"
    [ "$status" -eq 0 ]
    # the generator reaches the rules: every value is one the engine reads, and the outputs hold
    # each escape, both exponent forms, plain long doubles, -0 and 4-byte UTF-8
    [ "$(grep -cx ERROR engine.txt)" -eq 0 ]
    for s in '\u2028' '\u2029' '\u001F' '\u0000' '\b' '\f' '\n' '\r' '\t' '\"' '\\' 'e-3' 'e30' '00000' '-0'; do
        grep -qF -- "$s" engine.txt
    done
    grep -q $'\xf0' engine.txt
    grep -qE '(^|[^0-9.e-])-?[0-9]\.[0-9]{15,16}e-?[0-9]+' engine.txt
}
