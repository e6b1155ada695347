#!/usr/bin/env bats
# hashdiff: the four hashdiff UDFs equal their native SQL in the engine (shipped config), in every
# protocol form and argument type, on invalid UTF-8, and in the textbook satellite load.
load helpers

CONFIG="$ROOT/clickhouse-config/hashdiff_function.xml"
PARITY="$ROOT/tests/fixtures/hashdiff/parity.sql"

hd() { chlocal --udf-config "$CONFIG" "$@"; }

# The native expressions over an array expression $1, as docs/hashdiff.md gives them.
native_classic() { echo "arrayStringConcat(arrayMap(x -> ifNull(upperUTF8(trimBoth(x)), ''), $1), '||')"; }
native_automatedv() { echo "MD5(arrayStringConcat(arrayMap(x -> ifNull(nullIf(upperUTF8(trimBoth(x)), ''), '^^'), $1), '||'))"; }
native_strict() {
    echo "xxh3_128(arrayStringConcat(arrayMap(x -> ifNull(replaceAll(replaceAll(upperUTF8(trimBoth(if(isValidUTF8(x), normalizeUTF8NFC(x), x))), '\\\\', '\\\\\\\\'), '|', '\\\\|'), '\\\\N'), arraySlice($1, 1, arrayLastIndex(x -> isNotNull(x), $1))), '|'))"
}

# check_parity OUTPUT ROWS: the parity query's row says ROWS rows and 0 mismatches for all four.
check_parity() {
    local -a f
    read -r -a f <<<"$1"
    [ "${f[0]}" -eq "$2" ]
    [ "${f[1]}" -eq 0 ]
    [ "${f[2]}" -eq 0 ]
    [ "${f[3]}" -eq 0 ]
    [ "${f[4]}" -eq 0 ]
    [ "${f[5]}" -gt 0 ]                 # rows holding a 10 kB value
    [ "${f[7]}" -gt 0 ]                 # rows holding invalid UTF-8
    [ "${f[8]}" -gt $(($2 * 8 / 10)) ]  # the hashes really differ from row to row
}

@test "--help goes to stdout, exit 0" {
    run_split "$BIN/hashdiff" --help
    [ "$status" -eq 0 ]
    [[ "$output" == usage:\ hashdiff* ]]
    [[ "$output" == *"--print-sql"* ]]
    [ -z "$stderr_text" ]
}

@test "--version: the project's version on stdout, exit 0; it changes nothing else" {
    run_split "$BIN/hashdiff" --version
    [ "$status" -eq 0 ]
    [ "$output" = "hashdiff $(ods_version)" ]
    [ -z "$stderr_text" ]
    run_split "$BIN/hashdiff" --algo sha1
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "hashdiff: bad value for --algo: sha1 (expected xxh3_128, sha256 or md5)" ]
    run_split "$BIN/hashdiff" --algo
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "hashdiff: --algo needs a value (try --help)" ]
    # the UDF as the server starts it still answers
    run_split chlocal -q "SELECT hex(hashdiff(['a', 'b'])) = hex(hashdiff(['a', 'b']))"
    [ "$status" -eq 0 ]
    [ "$output" = 1 ]
}

@test "usage errors: one line on stderr, exit 2" {
    run_split "$BIN/hashdiff" --no-such-option
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "hashdiff: unknown option: --no-such-option (try --help)" ]
    run_split "$BIN/hashdiff" --profile nope
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "hashdiff: bad value for --profile: nope (expected classic, automatedv or strict)" ]
    run_split "$BIN/hashdiff" --algo sha1
    [ "$status" -eq 2 ]
    run_split "$BIN/hashdiff" --format JSON
    [ "$status" -eq 2 ]
    run_split "$BIN/hashdiff" --format RowBinary --arg-type 'Nullable(String)'
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "hashdiff: bad value for --arg-type: Nullable(String) (expected Array(Nullable(String)) or another Array of String-like items)" ]
    run_split "$BIN/hashdiff" --profile
    [ "$status" -eq 2 ]
    run_split "$BIN/hashdiff" stray
    [ "$status" -eq 2 ]
    run_split "$BIN/hashdiff" --print-sql classic
    [ "$status" -eq 2 ]
    run_split "$BIN/hashdiff" --print-sql classic ok ''
    [ "$status" -eq 2 ]
    [ "$stderr_text" = "hashdiff: column 2: a column name is empty" ]
    run_split "$BIN/hashdiff" --print-sql classic "$(printf 'a\nb')"
    [ "$status" -eq 2 ]
    [ "$(wc -l <<<"$stderr_text")" -eq 1 ]
}

@test "malformed input: a message on stderr, exit 1, no answer for the bad row" {
    run_split bash -c "printf \"['a'\\n\" | '$BIN/hashdiff'"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == hashdiff:* ]]
    [ -z "$output" ]
    run_split bash -c "printf 'garbage' | '$BIN/hashdiff' --format RowBinaryWithNamesAndTypes"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == hashdiff:* ]]
    printf "2\n['a']\n" >short.tsv
    run_split bash -c '"$0" --chunk-header <short.tsv' "$BIN/hashdiff"
    [ "$status" -eq 1 ]
    [ "$(wc -l <<<"$output")" -eq 1 ]   # the one complete row is answered
}

@test "TabSeparated by hand: the UDF's answer is the engine's xxh3_128 of the native string" {
    want=$(chlocal -q "SELECT xxh3_128($(native_classic "['Анна ', NULL, 'a\\'b', '']"))")
    run_split bash -c "printf \"['Анна ',NULL,'a\\\\\\\'b','']\\n\" | '$BIN/hashdiff'"
    [ "$status" -eq 0 ]
    [ "$output" = "$want" ]
}

@test "parity: all four UDFs equal their native SQL on 100 000 generated rows" {
    run_split hd --param_rows=100000 --param_type='Array(Nullable(String))' --queries-file "$PARITY"
    [ "$status" -eq 0 ]
    check_parity "$output" 100000
    [ "$(cut -f7 <<<"$output")" -gt 0 ]  # rows holding a NULL
}

@test "parity for every argument type the protocol decodes" {
    for t in 'Array(String)' 'Array(LowCardinality(String))' 'Array(LowCardinality(Nullable(String)))'; do
        run_split hd --param_rows=20000 --param_type="$t" --queries-file "$PARITY"
        [ "$status" -eq 0 ]
        check_parity "$output" 20000
    done
}

@test "parity in every protocol form: executable/pool, TabSeparated, RowBinary, with and without chunk header" {
    cat >forms_function.xml <<'EOF'
<functions>
  <function><type>executable</type><name>hashdiff</name><return_type>UInt128</return_type>
    <argument><type>Array(Nullable(String))</type></argument><format>TabSeparated</format>
    <command>hashdiff</command></function>
  <function><type>executable_pool</type><name>hashdiff_sha256</name><return_type>FixedString(32)</return_type>
    <argument><type>Array(Nullable(String))</type></argument><format>TabSeparated</format>
    <send_chunk_header>true</send_chunk_header>
    <command>hashdiff --algo sha256 --chunk-header</command></function>
  <function><type>executable</type><name>hashdiff_automatedv</name><return_type>FixedString(16)</return_type>
    <argument><type>Array(Nullable(String))</type></argument><format>RowBinary</format>
    <command>hashdiff --profile automatedv --algo md5 --format RowBinary --arg-type Array(Nullable(String))</command></function>
  <function><type>executable</type><name>hashdiff_strict</name><return_type>UInt128</return_type>
    <argument><type>Array(Nullable(String))</type></argument><format>RowBinaryWithNamesAndTypes</format>
    <command>hashdiff --profile strict --format RowBinaryWithNamesAndTypes</command></function>
</functions>
EOF
    run_split chlocal --udf-config "$PWD/forms_function.xml" --param_rows=20000 \
        --param_type='Array(Nullable(String))' --queries-file "$PARITY"
    [ "$status" -eq 0 ]
    check_parity "$output" 20000
}

@test "invalid UTF-8: no crash, deterministic, and what docs/hashdiff.md says" {
    # Twice the same bytes in one query, across blocks; classic passes bad bytes through
    # upperUTF8 like the engine; strict skips NFC for them (isValidUTF8 = 0), upper-cases the rest.
    run_split hd --max_block_size=7 -q "
        SELECT count(),
          countIf(hashdiff(a) != hashdiff(b)), countIf(hashdiff_strict(a) != hashdiff_strict(b)),
          countIf(hashdiff(a) != xxh3_128($(native_classic a))),
          countIf(hashdiff_strict(a) != $(native_strict a)),
          countIf(hashdiff_strict([unhex('616263FF'), NULL]) != xxh3_128(unhex('414243FF'))),
          countIf(hashdiff_strict([unhex('65CC81FF')]) != xxh3_128(unhex('45CC81FF')))
        FROM (SELECT [unhex(repeat(hex(number), 3)), 'x' || unhex('C3'), unhex('EDA080'), NULL]::Array(Nullable(String)) AS a,
                     arrayMap(x -> x, a) AS b FROM numbers(300))"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '300\t0\t0\t0\t0\t0\t0')" ]
}

@test "pseudo-random bytes (mostly invalid UTF-8, some valid): all four equal their native SQL" {
    gen="arrayMap(i -> if(cityHash64(number, i) % 7 = 0, NULL, arrayStringConcat(arrayMap(k ->
            toString(reinterpretAsFixedString(bitAnd(cityHash64(number, i, k),
                if(i % 2 = 0, 0xFFFFFFFFFFFFFFFF, 0xDFDFDFDFDFDFDFDF)))),
            range(toUInt32(cityHash64(number, i, 99) % 6))))),
        range(toUInt32(1 + cityHash64(number) % 12)))::Array(Nullable(String))"
    run_split hd -q "
        SELECT count(), countIf(hashdiff(a) != xxh3_128($(native_classic a))),
          countIf(hashdiff_sha256(a) != SHA256($(native_classic a))),
          countIf(hashdiff_automatedv(a) != $(native_automatedv a)),
          countIf(hashdiff_strict(a) != $(native_strict a)),
          countIf(arrayExists(x -> isValidUTF8(x) AND NOT isValidASCII(x), a)) > 100
        FROM (SELECT $gen AS a FROM numbers(50000)) FORMAT TSV"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '50000\t0\t0\t0\t0\t1')" ]
}

@test "textbook: three nightly loads insert 2 satellite rows; Москва → Казань → Москва gives 3" {
    run_split hd -q "
        CREATE TABLE stg (load_date Date, customer_id String, name String, email String, city String, tier String)
            ENGINE = Memory;
        INSERT INTO stg VALUES
            ('2026-01-01', 'c1', 'Анна', 'anna@example.com', 'Москва', 'silver'),
            ('2026-01-02', 'c1', 'Анна', 'anna@example.com', 'Москва', 'silver'),
            ('2026-01-03', 'c1', 'Анна', 'anna@example.com', 'Москва', 'gold'),
            ('2026-01-01', 'c2', 'Борис', 'boris@example.com', 'Москва', 'silver'),
            ('2026-01-02', 'c2', 'Борис', 'boris@example.com', 'Казань', 'silver'),
            ('2026-01-03', 'c2', 'Борис', 'boris@example.com', 'Москва', 'silver');
        CREATE TABLE sat (customer_id String, load_date Date, hd UInt128, name String, email String,
            city String, tier String) ENGINE = MergeTree ORDER BY (customer_id, load_date);
        INSERT INTO sat SELECT customer_id, load_date, hashdiff([name, email, city, tier]) AS h, name, email, city, tier
            FROM stg WHERE load_date = '2026-01-01'
              AND (customer_id, h) NOT IN (SELECT customer_id, argMax(hd, load_date) FROM sat GROUP BY customer_id);
        INSERT INTO sat SELECT customer_id, load_date, hashdiff([name, email, city, tier]) AS h, name, email, city, tier
            FROM stg WHERE load_date = '2026-01-02'
              AND (customer_id, h) NOT IN (SELECT customer_id, argMax(hd, load_date) FROM sat GROUP BY customer_id);
        INSERT INTO sat SELECT customer_id, load_date, hashdiff([name, email, city, tier]) AS h, name, email, city, tier
            FROM stg WHERE load_date = '2026-01-03'
              AND (customer_id, h) NOT IN (SELECT customer_id, argMax(hd, load_date) FROM sat GROUP BY customer_id);
        SELECT customer_id, load_date, city, tier FROM sat ORDER BY customer_id, load_date FORMAT TSV"
    echo "$output$stderr_text"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '%s\t%s\t%s\t%s\n' c1 2026-01-01 Москва silver c1 2026-01-03 Москва gold \
        c2 2026-01-01 Москва silver c2 2026-01-02 Казань silver c2 2026-01-03 Москва silver)" ]
}

@test "--print-sql: the printed SQL runs in the engine and equals each UDF; names are quoted safely" {
    cols=(name 'e`mail' 'ci\ty' 'tier x')
    create="CREATE TABLE t (name Nullable(String), \`e\\\`mail\` String, \`ci\\\\ty\` Nullable(String), \`tier x\` String) ENGINE = Memory;
        INSERT INTO t SELECT if(number % 5 = 0, NULL, 'Анна ' || toString(number)), ' a|b\\\\ ',
            if(number % 3 = 0, NULL, 'straße'), 'ﬁ' || toString(number % 4) FROM numbers(1000);"
    arr='[name, `e\`mail`, `ci\\ty`, `tier x`]'
    q="$create SELECT count()"
    for spec in "hashdiff classic xxh3_128" "hashdiff_sha256 classic sha256" \
                "hashdiff_automatedv automatedv md5" "hashdiff_strict strict xxh3_128"; do
        read -r fn profile algo <<<"$spec"
        sql=$("$BIN/hashdiff" --print-sql "$profile" --algo "$algo" "${cols[@]}")
        [[ "$sql" == *'[`name`, `e\`mail`, `ci\\ty`, `tier x`]'* ]]
        q+=", countIf($fn($arr) != $sql)"
    done
    run_split hd -q "$q FROM t FORMAT TSV"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '1000\t0\t0\t0\t0')" ]
    # A name built to break out of its quotes stays one (unknown) identifier.
    sql=$("$BIN/hashdiff" --print-sql classic 'a`]), 1) --')
    run_split hd -q "$create SELECT $sql FROM t"
    echo "$stderr_text"
    [ "$status" -eq 1 ]
    [[ "$stderr_text" == *"UNKNOWN_IDENTIFIER"* ]]
}

@test "a wrong argument type: the engine's error says what hashdiff takes and what it got" {
    run_split hd -q "SELECT hashdiff([1,2])"
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"hashdiff takes an Array of String-like items, got Array(UInt8)"* ]]
    [[ "$stderr_text" != *"Attempt to read after eof"* ]]
    run_split hd -q "SELECT hashdiff_sha256([toDate('2020-01-01')])"
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"hashdiff takes an Array of String-like items, got Array(Date)"* ]]
    run_split hd -q "SELECT hashdiff_strict(CAST([1, NULL] AS Array(Nullable(UInt8))))"
    [ "$status" -ne 0 ]
    [[ "$stderr_text" == *"got Array(Nullable(UInt8))"* ]]
    # (a non-array the engine refuses itself, with its own CAST error, before the UDF sees it)
    # the right types still work
    run_split hd -q "SELECT hashdiff(['a']) = xxh3_128('A'), hashdiff_strict(CAST(['a', NULL] AS Array(LowCardinality(Nullable(String))))) = xxh3_128('A')"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '1\t1')" ]
}

@test "rows of millions of attributes: every profile equals its native SQL, NULL runs across the 256 KiB pieces" {
    # one-letter attributes with NULL runs in the middle and at the end (strict drops trailing
    # NULLs), 300 000 to 1.5 million of them a row: the joined strings (up to 4.5 MB) are hashed
    # in pieces as they are built
    local rows="SELECT number AS n, CAST(arrayMap(i -> if((i + n) % 7 = 0 OR (i > 100000 AND i < 120000)
        OR i > 300000 * (n + 1) - 5000, NULL, if(i % 5 = 0, ' ä|\\\\ ', 'a')), range(300000 * (n + 1))) AS Array(Nullable(String))) AS a
        FROM numbers(5)"
    run_split hd -q "SELECT count(), countIf(hashdiff(a) = xxh3_128($(native_classic a))),
        countIf(hashdiff_sha256(a) = SHA256($(native_classic a))),
        countIf(hashdiff_automatedv(a) = $(native_automatedv a)),
        countIf(hashdiff_strict(a) = $(native_strict a))
        FROM ($rows) SETTINGS max_block_size = 2"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '5\t5\t5\t5\t5')" ]
}
