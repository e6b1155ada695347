#!/usr/bin/env bats
# schedules (issue 24): the proof by random schedules. tests/helpers/sched generates operation
# schedules (stage, run statements a..b, interleave, SIGKILL, OPTIMIZE, clear the lease, abandon,
# move late rows), runs each on the embedded engine and checks every table after every step
# against its own model of the promised state (docs/testing.md, "Random schedules").
load helpers

SCHED=$BUILD_DIR/tests/helpers/sched

# fake_bin_with_chlocal: ./bin holds links to every program of $BIN but chlocal, which is the
# script read from stdin (a wrapper around the real one, for sched --bin "$PWD/bin").
fake_bin_with_chlocal() {
    mkdir bin
    local f
    for f in "$BIN"/*; do ln -s "$f" "bin/${f##*/}"; done
    rm bin/chlocal
    cat >bin/chlocal
    chmod +x bin/chlocal
}

@test "sched: --help on stdout, exit 0; a usage error is one line on stderr, exit 2" {
    run_split "$SCHED" --help
    [ "$status" -eq 0 ]
    [[ $output == *"--sabotage WHAT"* ]]
    [ -z "$stderr_text" ]
    local bad
    for bad in "--bogus" "--sabotage split" "--count 0" "--count x" "--seed -1" "--jobs" "--sabotage nothing" "--avoid kill13" \
        "--late-copy maybe" "--count 1 --work $BATS_TEST_TMPDIR/w" "--count 1 --bin $BIN"; do
        # shellcheck disable=SC2086
        run_split "$SCHED" $bad
        [ "$status" -eq 2 ] || { echo "$bad: $status"; return 1; }
        [ "$(wc -l <<<"$stderr_text")" -eq 1 ] || { echo "$bad: $stderr_text"; return 1; }
        [[ $stderr_text == "sched: "* ]] || { echo "$bad: $stderr_text"; return 1; }
        [ -z "$output" ] || { echo "$bad: $output"; return 1; }
    done
}

# The model knows how the engine types and prints every message it generates: the class of each
# (order_wire_class) and, for a valid one, its 11 typed values as the engine prints them in TSV
# (order_wire_parse, the transition's typing, with the money's two decimals kept as the
# schedules' reads print them). 3000 messages: every kind the schedules stage, every spelling.
@test "every generated message: its class is order_wire_class's, its typed values print as the model says" {
    "$SCHED" --print-messages 3000 --seed 11 >msgs.tsv
    [ "$(wc -l <msgs.tsv)" -eq 3000 ]
    local st='cls String, order_id String, user String, status String, created String, updated String,
        m0 String, m1 String, m2 String, m3 String, items String, snap String, h String'
    # each class is there, and order_wire_class agrees with every message
    run_split chlocal --structure "$st" --input-format TSV -q "
        SELECT cls, countIf(order_wire_class(unhex(h)) = cls), count() FROM table GROUP BY cls ORDER BY cls" <msgs.tsv
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    echo "$output"
    [ "$(awk -F'\t' '$2 != $3' <<<"$output" | wc -l)" -eq 0 ]
    [ "$(wc -l <<<"$output")" -eq 4 ]
    [ "$(awk -F'\t' '$1 == "" && $3 > 1000' <<<"$output" | wc -l)" -eq 1 ]
    # the valid ones, typed by order_wire_parse, print exactly as the model's TSV
    run_split chlocal --structure "$st" --input-format TSV -q "
        SELECT w.order_id, w.user_id, w.status, w.created_at, w.updated_at, w.items_total, w.discount, w.delivery,
            w.total, w.items, w.snapshot_date
        FROM (SELECT order_wire_parse(unhex(h)) AS w FROM table WHERE cls = '')
        SETTINGS output_format_decimal_trailing_zeros = 1" <msgs.tsv
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    awk -F'\t' '$1 == ""' msgs.tsv | cut -f2-12 >expected.tsv
    printf '%s\n' "$output" >got.tsv
    diff expected.tsv got.tsv
    # created_at spans more than the Date range (1970 ... 2149): the contract's 1900 ... 2299
    [ "$(cut -f4 expected.tsv | awk '$1 < "1970" || $1 >= "2150"' | wc -l)" -gt 0 ]
    # and versions from before 1970 (a DateTime64 below zero), which order_v must still rank
    [ "$(cut -f5 expected.tsv | awk '$1 < "1970"' | wc -l)" -gt 0 ]
}

@test "200 random schedules: none diverges from the model" {
    # the suite's share, as issue 24 asks; the long run of thousands is scripts/soak
    # (docs/testing.md). scripts/test runs this suite on the plain build only.
    # The gate runs in two pieces of about 3 messages (the default cuts only loads of more
    # than a million): reruns and resumed runs meet a gate another run left part done; the
    # freeze likewise. Half the kills aimed at statement 9 or 4 count their delay from the end of
    # its first INSERT, so that some surely land between the pieces (both asserted below). Each
    # run or kill takes that cut or one INSERT each (--mixed-cuts): a rerun then often cuts the
    # load otherwise than the run it resumes, which must not matter either.
    local n=200
    run_split "$SCHED" --bin "$BIN" --work "$BATS_TEST_TMPDIR/w" --seed 1 --count "$n" --jobs 2 \
        --gate-pieces 2 --piece-size 3 --mixed-cuts
    echo "$output"
    echo "$stderr_text" >&2
    # bats removes the directory: the first reproduction goes into the test's output (again by
    # hand: sched --bin build/bin --work DIR --seed S --count 1 --keep --verbose)
    if [[ $output =~ \(repro:\ ([^\)]*)\) ]]; then
        head -40 "${BASH_REMATCH[1]}" | grep -v '^# m[0-9]' || true
    fi
    [ "$status" -eq 0 ]
    [ "$(tail -1 <<<"$output")" = "schedules: $n run, 0 diverged" ]
    # they did what they are for: most commit two loads or more, and kills landed inside statements
    local two
    two=$(sed -nE 's/.*committing 0: ([0-9]+), 1: ([0-9]+), 2: ([0-9]+), 3\+: ([0-9]+)\).*/\3 \4/p' <<<"$output")
    [ $((${two% *} + ${two#* })) -gt $((n / 2)) ]
    [[ $output =~ inside\ it\ ([0-9]+) ]]
    [ "${BASH_REMATCH[1]}" -gt 0 ]
    [[ $output =~ \ ([0-9]+)\ of\ them\ after\ the\ gate.s\ first\ INSERT ]]
    [ "${BASH_REMATCH[1]}" -gt 0 ]
    [[ $output =~ \ ([0-9]+)\ inside\ 4\ after\ the\ freeze.s\ first\ INSERT ]]
    [ "${BASH_REMATCH[1]}" -gt 0 ]
    # and copies of staged messages were flushed into staging while a freeze ran
    [[ $output =~ copies\ staged\ through\ a\ Buffer\ around\ a\ freeze:\ ([0-9]+),\ in\ staging\ before\ it\ [0-9]+,\ during\ it\ ([0-9]+), ]]
    [ "${BASH_REMATCH[2]}" -gt 0 ]
    # and new rows while a seal ran, some of them sealed without (the row then late at the commit)
    [[ $output =~ new\ rows\ staged\ through\ a\ Buffer\ around\ a\ seal:\ [0-9]+,.*sealed\ without\ it\ ([0-9]+)\) ]]
    [ "${BASH_REMATCH[1]}" -gt 0 ]
    # and both cuts, many times each
    [[ $output =~ cuts:\ ([0-9]+)\ runs\ and\ kills\ through\ the\ freeze\ or\ the\ gate\ with\ them\ as\ one\ INSERT\ each,\ ([0-9]+)\ as\ printed ]]
    [ "${BASH_REMATCH[1]}" -gt $((n / 2)) ]
    [ "${BASH_REMATCH[2]}" -gt $((n / 2)) ]
}

@test "SIGTERM stops a long run early: the schedules running finish, the figures of those that ran are printed" {
    "$SCHED" --bin "$BIN" --work "$BATS_TEST_TMPDIR/w" --seed 1 --count 50 --jobs 2 >out.txt 2>err.txt &
    local pid=$!
    # once the first schedules have started
    local i
    for i in $(seq 1 100); do
        [ -n "$(ls "$BATS_TEST_TMPDIR/w" 2>/dev/null)" ] && break
        sleep 0.1
    done
    kill -TERM "$pid"
    local st=0
    wait "$pid" || st=$?
    cat out.txt
    [ "$st" -eq 0 ]
    [[ $(grep '^stopped by a signal' out.txt) =~ ^stopped\ by\ a\ signal\ after\ ([0-9]+)\ of\ 50\ schedules ]]
    local n=${BASH_REMATCH[1]}
    [ "$n" -ge 1 ]
    [ "$n" -lt 50 ]
    [ "$(tail -1 out.txt)" = "schedules: $n run, 0 diverged" ]
    grep -q '^figures: ' out.txt
}

# A checker that cannot fail proves nothing: the same runner against a transition with one
# statement left out must report divergences, each with its step and a reproduction file.
@test "the checker fails a wrong transition: without its commit, its lease or its seal, schedules diverge" {
    local sab
    for sab in no-commit skip-lease no-seal; do
        run_split "$SCHED" --bin "$BIN" --work "$BATS_TEST_TMPDIR/$sab" --seed 1 --count 3 --jobs 2 --sabotage "$sab"
        echo "$sab: $output"
        [ "$status" -eq 1 ] || { echo "$sab: exit $status"; return 1; }
        [[ $(tail -1 <<<"$output") =~ ^schedules:\ 3\ run,\ ([1-3])\ diverged$ ]] || return 1
        [[ $output =~ seed\ [0-9]+:\ step\ [0-9]+:\ .*\(repro:\ ([^\)]*)\) ]] || return 1
        [ -s "${BASH_REMATCH[1]}" ] || return 1
    done
}

# The schedules' copies staged during a freeze can find what they are for: with the freeze's
# reads of staging each taking its own snapshot (the pin of enable_shared_storage_snapshot_in_query
# sabotaged), a copy flushed between two of them is frozen twice, and the seal refuses what the
# model predicts to pass. Each schedule then runs four loads, each frozen meeting such a copy: 14
# of 16 schedules diverged with seeds 1-16 and 11 of 16 with seeds 101-116 (where the flush lands
# is the engine's timing: all 16 missing, at the rate of the second run, has a chance below 1 in
# 10^7).
@test "the checker fails a freeze whose reads of staging do not share one snapshot: a copy staged during it is frozen twice, the seal refuses, schedules diverge" {
    # (8 at a time: these schedules mostly wait for the Buffer's flushes, a second or two each;
    # seeds 1-16 at 8 at a time, 2026-12-07: 14 of 16 diverged, 49 -> 20 s)
    run_split "$SCHED" --bin "$BIN" --work "$BATS_TEST_TMPDIR/w" --seed 1 --count 16 --jobs 8 --gate-pieces 2 --piece-size 3 \
        --sabotage no-shared-snapshot
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $(tail -1 <<<"$output") =~ ^schedules:\ 16\ run,\ ([0-9]+)\ diverged$ ]]
    [ "${BASH_REMATCH[1]}" -ge 1 ]
    grep -E "^seed [0-9]+: step [0-9]+: statement 5 of '[^']+' failed, predicted to succeed: .*transition 5/12: the manifest of load .* holds a message twice" <<<"$output"
}

# The schedules' new rows staged during a seal can find what they are for: with the seal's
# check and its record of staging (the fingerprint the commit trusts) made two statements, a row
# flushed between them is in the record and not checked; the commit then takes staging for what
# the seal fingerprinted and commits without the row, which the model predicts to be refused as
# late. Seeds 1-16: 13 of 16 schedules diverged, each at a commit (docs/testing.md). Merely
# unpinning the seal's shared snapshot showed nothing (8 schedules, 18 rows during a seal): the
# engine takes the FROM's snapshot, the record's, before it runs the WHERE's scalar checks.
@test "the checker fails a seal whose check and record of staging are two statements: a row staged between them is lost at the commit, schedules diverge" {
    # (8 at a time, as above: 7 of 8 diverged, 72 -> 29 s of wall for 21 s of CPU)
    run_split "$SCHED" --bin "$BIN" --work "$BATS_TEST_TMPDIR/w" --seed 1 --count 8 --jobs 8 --gate-pieces 2 --piece-size 3 \
        --sabotage split-seal
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $(tail -1 <<<"$output") =~ ^schedules:\ 8\ run,\ ([0-9]+)\ diverged$ ]]
    [ "${BASH_REMATCH[1]}" -ge 1 ]
    grep -E "^seed [0-9]+: step [0-9]+: statement 10 of '[^']+' succeeded, predicted to fail \(rows staged under .* after its freeze\)" <<<"$output"
}

# --- The divergences the schedules found, each as a fixed sequence (docs/testing.md, "Random
# schedules"). Each asserts what the model (the promise of issue 24) says.

# the transition's statements A..B as ods-ddl prints them, split at their "-- K. " headings; the
# freeze and the gate as one INSERT each, as ods-load runs a load of fewer than a million rows
# (the printed default's 15 more INSERTs of each would be empty, some 0.1 s of analysis each)
statements() { "$BIN/ods-ddl" transition --gate-pieces 1 | awk -v a="$1" -v b="$2" '/^-- [0-9]+\. / { k = $2 + 0 } k >= a && k <= b'; }
fresh_db() {
    "$BIN/ods-ddl" schema >schema.sql
    chlocal --path db --queries-file schema.sql
}
ORDER='{"order_id":"ORD-1","user_id":1,"status":"paid","created_at":"2026-03-01T10:00:00.000Z","updated_at":"2026-03-01T10:00:00.000Z","items_total":"1.00","discount":"0.00","delivery":"0.00","total":"1.00","items":[],"snapshot_date":"2026-03-01"}'
# stage LOAD OFFSET: the order above at orders/0/OFFSET under LOAD
stage() {
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('$ORDER', 'orders', 0, $2, '$1', now64(3))"
}
# run_statements LOAD A B: one process running statements A..B of LOAD (bats' run: $status, $output)
run_statements() {
    statements "$2" "$3" >"run-$2-$3.sql"
    run_split chlocal --path db --param_load_id="$1" --queries-file "run-$2-$3.sql"
}

@test "regression (schedules, seed 48): a commit resumed past a gate never run refuses, and the rerun stores the load" {
    # A run frozen (1..5), then resumed at the commit (10..12), as a zombie or a retry does after
    # a kill inside statement 10. Found: it committed stored 0, unchanged 1, and the version was
    # in no table. Now the commit counts the gate's fates (order_fates) and refuses a load whose
    # accepted messages have none yet, naming the rerun; the rerun stores the version.
    fresh_db
    stage L1 0
    run_statements L1 1 5
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_statements L1 10 12
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 10/12: load L1 is not complete: 0 of its 1 accepted messages have a fate (statement 9 cut short or not run)"* ]]
    [[ $stderr_text == *"Run the transition again from statement 1"* ]]
    [ "$(chlocal --path db -q "SELECT count() FROM ods.order_loads")" -eq 0 ]
    # the errors branch too: a rejected message whose row is missing
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('not json', 'orders', 0, 5, 'L2', now64(3))"
    chlocal --path db -q "DROP TABLE ods.order_lease"
    run_statements L1 1 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_split chlocal --path db -q "SELECT received, accepted, stored, unchanged, stale FROM ods.order_loads"
    [ "$output" = "$(printf '1\t1\t1\t0\t0')" ]
    run_split chlocal --path db -q "SELECT order_id, _load_id FROM ods.order_v"
    [ "$output" = "$(printf 'ORD-1\tL1')" ]
    run_statements L2 1 7
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_statements L2 9 10
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 10/12: load L2 is not complete: the errors table holds 0 of its 1 rejected messages (statement 8 cut short or not run)"* ]]
    chlocal --path db -q "DROP TABLE ods.order_lease"
    run_statements L2 1 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(chlocal --path db -q "SELECT count() FROM ods.order_snapshot_errors WHERE _load_id = 'L2'")" -eq 1 ]
}

@test "a gate cut between its views (hot rows written, fates not): the commit asks for the rerun, which completes it without a second hot row" {
    # The gate's views are pushed one after another for each block; cut between them, the hot
    # table may hold a stored version whose fate is not recorded. That is an incomplete gate,
    # not a second writer: the commit names the rerun, and the rerun records the fate alone.
    fresh_db
    stage L1 0
    run_statements L1 1 8
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    # (the gate's INSERT: its fates flag is two lines, the set of the piece's fates)
    statements 9 9 | perl -0pe 's/^    \(_topic, _partition, _offset\) NOT IN \(SELECT _topic, _partition, _offset FROM ods\.order_fates WHERE _load_id = \{load_id:String\}\n        AND [^\n]*\) AS _put_fate$/    0 AS _put_fate/mg' >cut9.sql
    [ "$(grep -c '^    0 AS _put_fate$' cut9.sql)" -eq 1 ]
    [ "$(grep -c 'FROM ods.order_fates' cut9.sql)" -eq 0 ]
    run_split chlocal --path db --param_load_id=L1 --queries-file cut9.sql
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(chlocal --path db -q "SELECT (SELECT count() FROM ods.order_snapshot_hot), (SELECT count() FROM ods.order_fates)" | tr '\t' ' ')" = "1 0" ]
    run_statements L1 10 10
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 10/12: load L1 is not complete: 0 of its 1 accepted messages have a fate"* ]]
    [[ $stderr_text != *"would not add up"* ]]
    chlocal --path db -q "DROP TABLE ods.order_lease"
    run_statements L1 1 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(chlocal --path db -q "SELECT (SELECT count() FROM ods.order_snapshot_hot), (SELECT count() FROM ods.order_fates), (SELECT stored FROM ods.order_loads)" | tr '\t' ' ')" = "1 1 1" ]
}

@test "regression (schedules, seed 4): a copy of a frozen message staged after the freeze is the same message; other bytes there fail the commit" {
    # The same bytes at the same coordinates, staged again after the freeze, are a redelivery of
    # a message the load holds: nothing is lost, the commit and its reruns succeed (the schedules'
    # first model called it a change). Other bytes at a frozen coordinate are a change: the commit
    # fails, naming move-late.
    fresh_db
    stage L1 0
    run_statements L1 1 5
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    stage L1 0
    run_statements L1 6 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(chlocal --path db -q "SELECT received, stored FROM ods.order_loads" | tr '\t' ' ')" = "1 1" ]
    stage L2 0
    run_statements L2 1 5
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        VALUES ('not json', 'orders', 0, 0, 'L2', now64(3))"
    run_statements L2 6 12
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 10/12: 1 rows were staged under load L2 after it was frozen"* ]]
    [[ $stderr_text == *"ods-ddl move-late"* ]]
    [ "$(chlocal --path db -q "SELECT count() FROM ods.order_loads")" -eq 1 ]
}

@test "regression (schedules, seed 133): a kill inside statement 2 leaves the lease held by the run, free, or named as empty" {
    # After a kill inside statement 2, order_lease_v names the killed run, or the next run can
    # take the lease. Found: CREATE TABLE ... AS SELECT killed between the table and its row
    # leaves a lease table naming nobody, and every later run failed at statement 2 with the
    # engine's "Table ods.order_lease already exists", no remedy. Now statement 1 sees the table
    # and says how to clear it. The kill lands just after the marker before the statement; the
    # window is short, so 12 tries (how many hit the empty table is printed); the state is also
    # made by hand below, so its message is checked whatever the kills hit.
    fresh_db
    stage L1 0
    statements 2 2 >st2.sql
    local try holder table empty=0
    for try in $(seq 1 12); do
        rm -f marker.tsv
        { echo "SET param_load_id = 'L1';"
          echo "SELECT 1 INTO OUTFILE '$PWD/marker.tsv' FORMAT TSV;"
          cat st2.sql; } >kill.sql
        setsid "$BIN/chlocal" --path db --queries-file kill.sql >/dev/null 2>&1 &
        local pid=$!
        while [ ! -s marker.tsv ]; do kill -0 "$pid" 2>/dev/null || break; done
        kill -9 -- "-$pid" 2>/dev/null || true
        wait "$pid" || true
        holder=$(chlocal --path db -q "SELECT _load_id FROM ods.order_lease_v")
        table=$(chlocal --path db -q "SELECT count() FROM system.tables WHERE database = 'ods' AND name = 'order_lease'")
        if [ -n "$holder" ]; then
            [ "$holder" = L1 ] || { echo "try $try: holder $holder"; return 1; }
        elif [ "$table" -eq 0 ]; then
            run_statements L1 1 2
            [ "$status" -eq 0 ] || { echo "try $try: no lease, yet: $stderr_text"; return 1; }
        else
            # the table without its row: statement 1 says so and names the remedy
            empty=$((empty + 1))
            run_statements L1 1 2
            [ "$status" -eq 1 ] || { echo "try $try: an empty lease table was taken over"; return 1; }
            [[ $stderr_text == *"transition 1/12: the lease is held by nobody: its table is empty, a run was killed while taking it"* ]] || { echo "try $try: $stderr_text"; return 1; }
            [[ $stderr_text == *"DROP TABLE IF EXISTS ods.order_lease"* ]] || return 1
        fi
        chlocal --path db -q "DROP TABLE IF EXISTS ods.order_lease"
    done
    echo "tries that left the table without its row: $empty of 12"
    # that state made by hand, so the message is checked whatever the kills hit
    chlocal --path db -q "CREATE TABLE ods.order_lease (_load_id String, since DateTime64(3, 'UTC')) ENGINE = Log"
    run_statements L1 1 12
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 1/12: the lease is held by nobody: its table is empty, a run was killed while taking it"* ]]
    [[ $stderr_text == *"clear it with: DROP TABLE IF EXISTS ods.order_lease; then rerun"* ]]
    chlocal --path db -q "DROP TABLE IF EXISTS ods.order_lease"
    run_statements L1 1 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
}

@test "regression (schedules, seed 41): statement 12 releases the lease, also when it was cleared meanwhile" {
    # The promise: statement 12 releases the lease (never fails). Found: a run resumed at 12
    # after the lease was cleared fails ("Table ods.order_lease does not exist").
    fresh_db
    stage L1 0
    run_statements L1 1 11
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    chlocal --path db -q "DROP TABLE IF EXISTS ods.order_lease"
    run_statements L1 12 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ -z "$(chlocal --path db -q "SELECT _load_id FROM ods.order_lease_v")" ]
}

@test "regression (schedules, soak seed 100836): a committed load's run resumed at the commit fails on rows staged after its freeze" {
    # The promise: rows staged under a load id after its freeze are never dropped silently: the
    # commit and any later run of that id fail. Found: statement 10 of a committed load passes.
    fresh_db
    stage L1 0
    run_statements L1 1 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_statements L1 1 9
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    stage L1 1
    run_statements L1 10 12
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 10/12:"* ]]
}

@test "regression (schedules, soak seed 200783): statement 7 for a load not frozen folds what is committed, and 8 stops the run" {
    # The fold concerns committed loads only, so it needs the lease, not this load's freeze (the
    # schedules' first model expected a failure at 7): it runs, changes no visible state, and
    # statement 8 stops the run with its message.
    fresh_db
    stage L1 0
    run_statements L1 1 3
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_statements L1 7 7
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    run_statements L1 8 8
    [ "$status" -eq 1 ]
    [[ $stderr_text == *"transition 8/12: load L1 is not frozen: run its transition from statement 1"* ]]
}

@test "regression (schedules, soak seed 901444): a straggler of a run's process group is gone before the next process starts" {
    # Found: a kill 18 ms into statement 4, then the next process failed "Cannot lock file
    # .../status. Another server instance in same directory is already running": one of the
    # engine's UDF processes, caught between fork and exec, still held the directory's lock after
    # chlocal was reaped. Here every chlocal leaves such a straggler for sure: a wrapper starts a
    # process in its group that holds a lock beside the database for 30 s, and refuses to start
    # while an earlier one holds it. sched must kill and reap the group after each process.
    fake_bin_with_chlocal <<WRAP
#!/usr/bin/env bash
path=
for ((i = 1; i < \$#; i++)); do [ "\${!i}" = --path ] && { j=\$((i + 1)); path=\${!j}; }; done
flock -n "\$path.straggler" true || { echo "a process of an earlier run still holds \$path" >&2; exit 3; }
flock "\$path.straggler" sleep 30 &
exec "$BIN/chlocal" "\$@"
WRAP
    run_split "$SCHED" --bin "$PWD/bin" --work "$BATS_TEST_TMPDIR/w" --seed 901444 --count 1 --jobs 1
    echo "$output"
    echo "$stderr_text" >&2
    [ "$status" -eq 0 ]
    [ "$(tail -1 <<<"$output")" = "schedules: 1 run, 0 diverged" ]
}

@test "a process that dies of a signal is named with it in the reproduction (soak seed 912738)" {
    # Found: a process ended after 4 s with nothing on stderr, before its first statement; the
    # reproduction said only "exit -1". Here the third chlocal of the schedule aborts itself: its
    # first query is statement 1, which writes, so this is a divergence, not an engine fault that
    # could be run again (the next tests).
    fake_bin_with_chlocal <<WRAP
#!/usr/bin/env bash
n=\$(cat "$BATS_TEST_TMPDIR/calls" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$BATS_TEST_TMPDIR/calls"
[ "\$n" -ne 2 ] || kill -ABRT \$\$
exec "$BIN/chlocal" "\$@"
WRAP
    run_split "$SCHED" --bin "$PWD/bin" --work "$BATS_TEST_TMPDIR/w" --seed 901444 --count 1 --jobs 1
    [ "$status" -eq 1 ]
    [ "$(tail -1 <<<"$output")" = "schedules: 1 run, 1 diverged" ]
    [[ $output =~ \(repro:\ ([^\)]*)\) ]]
    grep -E '^# process p003\.sql \([0-9.]+ s, signal 6\): steps' "${BASH_REMATCH[1]}"
}

@test "regression (schedules, soak seed 913381): a late row moved onto a load holding the same message counts there as redelivered, also when the move is cut short and rerun" {
    # Found: move-late copied only what the new load did not hold yet (coordinates and bytes),
    # then deleted from the frozen load what the new load held: a late copy of a message staged
    # directly under the new load left staging and entered no ledger (received 4, redelivered 0
    # where the model says 5 and 1). Now each copy carries its mark (L#n in _moved), so a rerun
    # copies exactly the marks not copied yet. Here: L2 holds orders/0/1; L1, frozen, gets two
    # copies of orders/0/1 (in one INSERT: the same _load_ts, so they are L1#1 and L1#2) and one
    # of orders/0/2 late; a move is killed after its copy, rerun, then run a third time.
    fresh_db
    stage L1 0
    run_statements L1 1 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    stage L2 1
    chlocal --path db -q "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _load_id, _load_ts)
        SELECT '$ORDER', 'orders', 0, 1, 'L1', now64(3) FROM numbers(2)"
    stage L1 2
    "$BIN/ods-ddl" move-late >move.sql
    awk '/^-- [0-9]+\. / { k = $2 + 0 } k >= 1 && k <= 4' move.sql >move-1-4.sql
    chlocal --path db --param_load_id=L1 --param_to_load_id=L2 --queries-file move-1-4.sql
    chlocal --path db -q "DROP TABLE IF EXISTS ods.order_lease"
    for run in 1 2; do
        run_split chlocal --path db --param_load_id=L1 --param_to_load_id=L2 --queries-file move.sql
        [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
        [ "$(chlocal --path db -q "SELECT _load_id, _offset, count() FROM stg.orders_raw GROUP BY ALL ORDER BY ALL" | tr '\t\n' ' |')" = \
          "L1 0 1|L2 1 3|L2 2 1|" ]
    done
    [ "$(chlocal --path db -q "SELECT _moved FROM stg.orders_raw WHERE _load_id = 'L2' ORDER BY _offset, _moved" | tr '\n' ' ')" = " L1#1 L1#2 L1#1 " ]
    run_statements L2 1 12
    [ "$status" -eq 0 ] || { echo "$stderr_text"; return 1; }
    [ "$(chlocal --path db -q "SELECT received, redelivered, accepted, rejected FROM ods.order_loads WHERE _load_id = 'L2'" | tr '\t' ' ')" = "4 2 2 0" ]
}

# fake_faulty_chlocal N TIMES: a chlocal that, from its N-th call on, TIMES times in all, fails as
# the engine did in soak seed 924396 (finding 10): its table loading at start-up fails, nothing
# runs, exit 1. Its calls are counted in $BATS_TEST_TMPDIR/calls.
fake_faulty_chlocal() {
    fake_bin_with_chlocal <<WRAP
#!/usr/bin/env bash
n=\$(( \$(cat "$BATS_TEST_TMPDIR/calls" 2>/dev/null || echo 0) + 1 ))
echo \$n >"$BATS_TEST_TMPDIR/calls"
if (( n >= $1 && n < $1 + $2 )); then
    echo "Code: 695. DB::Exception: Waited job failed: Code: 1001. DB::Exception: Load job 'load table ods.order_loads' failed: std::exception. Code: 1001, type: std::__1::system_error, e.what() = recursive_mutex lock failed: Invalid argument. (ASYNC_LOAD_WAIT_FAILED)" >&2
    exit 1
fi
exec "$BIN/chlocal" "\$@"
WRAP
}

@test "regression (schedules, soak seed 924396): a table that fails to load at the engine's start-up is an engine fault: the process runs again, counted apart, no divergence" {
    # Found: a process failed in 0.13 s, before its first statement, with the engine's async
    # table loading error (chdb-io/chdb#60); nothing was written, yet the schedule diverged.
    fake_faulty_chlocal 3 1
    run_split "$SCHED" --bin "$PWD/bin" --work "$BATS_TEST_TMPDIR/w" --seed 901444 --count 1 --jobs 1 --keep
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(tail -1 <<<"$output")" = "schedules: 1 run, 0 diverged" ]
    grep -Fx "engine faults: 1 processes failed in the engine's start-up with nothing written and were run again" <<<"$output"
    grep -E "^seed 901444: process p003\.sql: engine fault \(exit 1: Code: 695\..*ASYNC_LOAD_WAIT_FAILED\)\), run again$" <<<"$output"
    grep -E '^# process p003\.sql: engine fault \(exit 1, [0-9.]+ s: .*\), run again; its stderr is p003\.err\.fault1$' "$BATS_TEST_TMPDIR/w/seed-901444/repro.txt"
    grep -F ASYNC_LOAD_WAIT_FAILED "$BATS_TEST_TMPDIR/w/seed-901444/p003.err.fault1"
    # the fault ran nothing: the same schedule, fault-free, ran one process fewer
    [ "$(cat "$BATS_TEST_TMPDIR/calls")" -eq 6 ]
}

@test "an engine fault that persists is a divergence: a process is run again three times, not forever" {
    fake_faulty_chlocal 3 1000
    run_split "$SCHED" --bin "$PWD/bin" --work "$BATS_TEST_TMPDIR/w" --seed 901444 --count 1 --jobs 1
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$(tail -1 <<<"$output")" = "schedules: 1 run, 1 diverged" ]
    [ "$(grep -c '^seed 901444: process p003\.sql: engine fault' <<<"$output")" -eq 3 ]
    grep -E '^seed 901444: step [0-9]+: .*ASYNC_LOAD_WAIT_FAILED' <<<"$output"
    [ "$(cat "$BATS_TEST_TMPDIR/calls")" -eq 6 ]
}

@test "a process killed by a signal while its first query writes nothing is an engine fault, run again (soak seed 912738)" {
    # The second process of seed 901444 opens with the read of the state after step 1: a signal
    # before any output there wrote nothing, so it runs again. (A signal while the first query
    # is a statement stays a divergence: the test above.)
    fake_bin_with_chlocal <<WRAP
#!/usr/bin/env bash
n=\$(( \$(cat "$BATS_TEST_TMPDIR/calls" 2>/dev/null || echo 0) + 1 ))
echo \$n >"$BATS_TEST_TMPDIR/calls"
[ "\$n" -ne 2 ] || kill -ABRT \$\$
exec "$BIN/chlocal" "\$@"
WRAP
    run_split "$SCHED" --bin "$PWD/bin" --work "$BATS_TEST_TMPDIR/w" --seed 901444 --count 1 --jobs 1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(tail -1 <<<"$output")" = "schedules: 1 run, 0 diverged" ]
    grep -Fx "seed 901444: process p002.sql: engine fault (signal 6: nothing on stderr), run again" <<<"$output"
}

@test "regression (schedules, soak seed 930943): a late row staged after an earlier move of the same message is moved too, and counts as redelivered" {
    # Found: load D committed orders/2/0; a late copy of another message at orders/2/0 was moved
    # to N, N committed and was taken back; then the same late bytes were staged under D again
    # and moved to N. The move marked the second late row D#1 like the first (the n-th late row
    # of D with those coordinates and bytes, counted among the rows still there), took the mark
    # for copied and deleted the row: it left staging in no ledger (N: received 3 where 4, with
    # 1 redelivered). Marks now count within the late row's _load_ts too.
    run_split "$SCHED" --bin "$BIN" --work "$BATS_TEST_TMPDIR/w" --seed 930943 --count 1 --jobs 1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(tail -1 <<<"$output")" = "schedules: 1 run, 0 diverged" ]
}

@test "regression (schedules, soak seed 3820058): a load with no rejected message commits though statement 8 never ran since its freeze" {
    # Found: one valid message, frozen by a run of statements 1-7; the next run failed at
    # statement 1 (the lease of a killed run), a kill cut statement 9, and a run from statement
    # 9 committed. The model said the commit refuses while statement 8 has not completed, but
    # the commit counts the errors table against the manifest's rejected messages: with none,
    # there is nothing statement 8 could have left unwritten. The model now asks for statement 8
    # only for a load with a rejected message, and for 9 only for one with an accepted message.
    run_split "$SCHED" --bin "$BIN" --work "$BATS_TEST_TMPDIR/w" --seed 3820058 --count 1 --jobs 1 \
        --gate-pieces 2 --piece-size 3 --mixed-cuts
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(tail -1 <<<"$output")" = "schedules: 1 run, 0 diverged" ]
}
