#!/usr/bin/env bats
# chlocal: the embedded ClickHouse runner behaves like `clickhouse local` with our UDFs installed.
load helpers

@test "SELECT version() runs on the pinned engine" {
    run_split chlocal -q "SELECT version()"
    [ "$status" -eq 0 ]
    [[ "$output" == 26.5.* ]]
    [ -z "$stderr_text" ]
}

@test "a failing query: exit 1, the engine's message on stderr, nothing on stdout" {
    run_split chlocal -q "SELECT no_such_function(1)"
    [ "$status" -eq 1 ]
    [ -z "$output" ]
    [[ "$stderr_text" == *"Code: 46. DB::Exception"*"no_such_function"* ]]
}

@test "a failing statement after a good one still fails the run" {
    run_split chlocal -q "SELECT 1; SELECT throwIf(1, 'boom')"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"boom"* ]]
}

@test "usage errors exit 2: unknown engine option, missing value, chlocal's own option" {
    run_split chlocal --no-such-option -q "SELECT 1"
    [ "$status" -eq 2 ]
    [[ "$stderr_text" == *"Unrecognized option '--no-such-option'"* ]]
    run_split chlocal -q
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "chlocal: the last option needs a value (try --help)" ]
    run_split chlocal --query "SELECT 1" --output-format
    [ "$status" -eq 2 ]
    run_split chlocal --udf-dir
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "chlocal: --udf-dir needs a directory (try --help)" ]
}

@test "an engine that cannot be loaded is a clear error, exit 2" {
    CHLOCAL_LIBCHDB=/nonexistent/libchdb.so run_split chlocal -q "SELECT 1"
    [ "$status" -eq 2 ]
    [[ "$stderr_text" == *"cannot load the engine"*"scripts/setup"* ]]
}

@test "--help goes to stdout and exits 0" {
    run_split chlocal --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:\ chlocal* ]]
    [[ "$output" == *"--udf-config"* ]]
    [ -z "$stderr_text" ]
}

@test "--param_ values reach the query" {
    run_split chlocal --param_n=21 --param_s="it's" -q "SELECT {n:UInt8} * 2, {s:String}"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '42\tit\\'"'"'s')" ]
}

@test "stdin is the table \`table\` with --input-format" {
    run_split bash -c 'printf "3\n4\n5\n" | "$0" --input-format TSV --structure "x UInt32" -q "SELECT sum(x), count() FROM table"' "$BIN/chlocal"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '12\t3')" ]
}

@test "result bytes are exact (binary output, no newline added)" {
    chlocal -q "SELECT toUInt32(258) FORMAT RowBinary" > out.bin
    [ "$(od -An -tx1 out.bin | tr -d ' \n')" = "02010000" ]
}

@test "a persistent --path keeps tables across two invocations" {
    chlocal --path db -q "CREATE TABLE t (x UInt32) ENGINE = MergeTree ORDER BY x; INSERT INTO t VALUES (7), (8)"
    run_split chlocal --path db -q "SELECT sum(x) FROM t"
    [ "$status" -eq 0 ]
    [ "$output" = "15" ]
}

@test "an executable UDF defined in tests/ runs through --udf-dir/--udf-config" {
    run_split chlocal --udf-dir "$ROOT/tests/helpers" --udf-config "$ROOT/tests/helpers/test_function.xml" \
        -q "SELECT t_upper(concat('row ', toString(number))) FROM numbers(3)"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'ROW 0\nROW 1\nROW 2')" ]
}

@test "UDF settings given after -- win over chlocal's defaults" {
    run_split chlocal -q "SELECT t_upper('x')" -- --user_scripts_path="$ROOT/tests/helpers" \
        --user_defined_executable_functions_config="$ROOT/tests/helpers/test_function.xml"
    [ "$status" -eq 0 ]
    [ "$output" = "X" ]
}

@test "--no-udf installs no UDF" {
    run_split chlocal --no-udf --udf-dir "$ROOT/tests/helpers" --udf-config "$ROOT/tests/helpers/test_function.xml" -q "SELECT t_upper('x')"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"t_upper"* ]]
}
