#!/usr/bin/env bats
# bench: the benchmark parts that read the generated transition run to their tables at a tiny
# scale, so a changed statement cannot break them unseen (bench 60 and 70 died that way, twice).
load helpers

# two_parts A B: bench/A.sh and bench/B.sh at once (two cores; each is mostly engine start-ups),
# 1/1000 of their sizes, one rep; their tables in A.out and B.out, stderr in A.err and B.err.
two_parts() {
    local a=$1 b=$2 pa pb rc=0
    export BENCH_REPS=1 BENCH_SCALE=0.001 BENCH_WORK=$BATS_TEST_TMPDIR ODS_BUILD_DIR=$BUILD_DIR
    "$ROOT/bench/$a.sh" >"$a.out" 2>"$a.err" &
    pa=$!
    "$ROOT/bench/$b.sh" >"$b.out" 2>"$b.err" &
    pb=$!
    wait "$pa" || { rc=1; tail -5 "$a.err" >&2; }
    wait "$pb" || { rc=1; tail -5 "$b.err" >&2; }
    return "$rc"
}

@test "bench 60 (the transition at scale, the prior probe) and 70 (order_v's reads) run to their tables" {
    two_parts 60-transition 70-read
    [ "$(grep -c '^| transition: ' 60-transition.out)" -eq 7 ]
    # the probe on the 1 M (here 1 000) and 5 M (5 000) ODS names the granules it read, n/n
    [ "$(grep -cE "^\| transition: day 4's prior probe, ODS [0-9.]+M orders, [0-9.]+ s, reads [0-9]+/[0-9]+ granules" 60-transition.out)" -eq 2 ]
    [ "$(grep -c '^| read: ' 70-read.out)" -eq 6 ]
}

@test "bench 80 (typing three ways) and 90 (statement by statement, the protocol floor) run to their tables" {
    two_parts 80-typing 90-statements
    grep -q '^| typing: the typing alone' 80-typing.out
    # the 12 statements, the sum, the parse, the classifier, isValidJSON, the three floors,
    # native, the transition's floor (its freeze, its gate, the two), the guards' lower bound,
    # the fixed cost (the 12 on 8 orders) and the whole less it
    [ "$(grep -c '^| statements: ' 90-statements.out)" -eq 26 ]
    grep -q "^| statements: the protocol floor, proto_floor_string(raw)" 90-statements.out
    grep -q "^| statements: the validation floor, proto_floor_validate(raw)" 90-statements.out
    grep -q "^| statements: the members floor, proto_floor_members(raw)" 90-statements.out
    grep -qE "^\| statements: the fixed cost, the 12 on a load of 8 orders, [0-9.]+ s \(([0-9.]+ ){11}[0-9.]+; " 90-statements.out
    # (at this scale the difference is noise, negative as often as not: only its form is checked)
    grep -qE "^\| statements: the whole less its fixed cost, -?[0-9]+\.[0-9]{3} s = -?[0-9]+\.[0-9]{2}x the parse less its own" 90-statements.out
    grep -q "^| statements: the transition's floor, the two, " 90-statements.out
    grep -q "^| statements: the guards' lower bound, the floor and each guarantee by its cheapest SQL, " 90-statements.out
}

# scripts/bench --write-docs writes docs/performance.md as its table followed by
# docs/performance-notes.md: a note written into performance.md alone is lost at the next run
# (it had drifted by four sections before this check).
@test "docs/performance.md ends with docs/performance-notes.md, every note kept by --write-docs" {
    sed -n '/^## Reading the table/,$p' "$ROOT/docs/performance.md" >tail.md
    [ -s tail.md ]
    run diff tail.md "$ROOT/docs/performance-notes.md"
    echo "$output" | head -20
    [ "$status" -eq 0 ]
}
