/* transition: the twelve statements that move one load from staging into the ODS (a lease, the
 * freeze, housekeeping, fold, both branches, the commit), and the procedures around them. */
#include "transition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "sqlw.h"

/* The statements, in order; every message of a check starts with "transition K/TR_N: ". */
enum {
    TR_LEASE_FREE = 1,
    TR_LEASE_TAKE,
    TR_STAGING,
    TR_FREEZE,
    TR_SEAL,
    TR_HOUSEKEEPING,
    TR_FOLD,
    TR_ERRORS,
    TR_GATE,
    TR_COMMIT,
    TR_LEASE_OURS,
    TR_LEASE_DROP,
    TR_N = TR_LEASE_DROP
};
_Static_assert(TR_N == DDL_TRANSITION_STATEMENTS, "transition.h names the number of statements");

/* What every writer below needs: the output, its sticky status and the names. */
typedef struct tr tr;
struct tr {
    FILE *out;
    int st;
    const ddl_opts *o;
    const char *S, *D;          /* staging and ODS databases */
    const char *rep, *hot, *errs, *loads, *stale; /* targets: _dist tables with --cluster */
    const char *g;              /* "GLOBAL " with --cluster: sets built once, on the initiator */
    const char *name;           /* what runs: "transition", "abandon", "move-late" */
    int n;                      /* its number of statements: messages say "name k/n: " */
    void (*checks)(tr *t, int k);   /* the procedure's own checks (a problem_fn): statement 1
                                 * runs them before the lease is taken, so a run that cannot
                                 * go on leaves no lease; statement 3 again under it */
    char kept[192];             /* see kept() */
    const char *profile;        /* this version's hashdiff profile (ddl_hashdiff_profile) */
};

#define P(t, ...) sqlw_put(&(t)->st, (t)->out, __VA_ARGS__)

/* Kafka coordinates: the key of a message, and staging's sorting key after _load_id */
#define COORDS "_topic, _partition, _offset"

static void tr_init(tr *t, FILE *out, const ddl_opts *o, const char *name, int n)
{
    memset(t, 0, sizeof *t);
    t->out = out;
    t->o = o;
    t->S = o->stg_db;
    t->D = o->ods_db;
    t->rep = sqlw_target(o, "order_snapshot_rep", "order_snapshot_dist");
    t->hot = sqlw_target(o, "order_snapshot_hot", "order_snapshot_hot_dist");
    t->errs = sqlw_target(o, "order_snapshot_errors", "order_snapshot_errors_dist");
    t->loads = sqlw_target(o, "order_loads", "order_loads_dist");
    t->stale = sqlw_target(o, "order_snapshot_stale", "order_snapshot_stale_dist");
    t->g = o->cluster ? "GLOBAL " : "";
    t->name = name;
    t->n = n;
    char clear[160];
    snprintf(t->kept, sizeof t->kept, ". This run keeps the lease: once it has stopped, clear it (%s) first",
             ddl_lease_clear(o, clear, sizeof clear));
    t->profile = ddl_hashdiff_profile();
    if (!t->profile)
        t->st = DDL_EIO;
}

/* --- conditions on the load, as SQL (the load is {load_id:String}) --- */

/* "this load is not committed": every writing statement carries it, so a committed load's rerun
 * writes nothing. */
static void not_committed(tr *t)
{
    P(t, "{load_id:String} %sNOT IN (SELECT _load_id FROM %s.%s)", t->g, t->D, t->loads);
}

static void committed(tr *t)
{
    P(t, "{load_id:String} %sIN (SELECT _load_id FROM %s.%s)", t->g, t->D, t->loads);
}

/* The seal (order_frozen) is local to the node that runs the transition, like staging. */
static void sealed(tr *t, int yes)
{
    P(t, "{load_id:String} %sIN (SELECT _load_id FROM %s.order_frozen)", yes ? "" : "NOT ", t->D);
}

/* The SQL text of "the load's staged rows whose coordinates and bytes are not in its manifest":
 * what was staged after the freeze (a copy of a frozen message, same coordinates and bytes,
 * is the same message and is not late). */
static void not_in_manifest(tr *t)
{
    P(t, "(_topic, _partition, _offset, _raw_hash) NOT IN (SELECT _topic, _partition, _offset, _raw_hash "
         "FROM %s.order_manifest WHERE _load_id = {load_id:String})", t->D);
}

/* The fingerprint of a load's staged rows, copies included: two sums of hashes of (coordinates,
 * _raw_hash), which the seal records (order_frozen.staged_fp1, staged_fp2) and the manifest's
 * side of may_differ sums likewise. */
#define FP_CITY "sum(cityHash64(_topic, _partition, _offset, _raw_hash))"
#define FP_XX "sum(xxHash64(_topic, _partition, _offset, _raw_hash))"

/* "(the load is sealed OR committed)" */
static void frozen_or_committed(tr *t)
{
    P(t, "(");
    sealed(t, 1);
    P(t, " OR ");
    committed(t);
    P(t, ")");
}

/* When the reads of the late-row count run (a filter on each of them; the engine folds a
 * false one to reading nothing): always (the seal, before there is one), or only once the load is
 * sealed or committed and, besides, its staged rows are not those its seal fingerprinted (the
 * staging checks and the commit). The seal found what it fingerprinted to be its manifest, both
 * in one snapshot of staging (ONE_SNAPSHOT: without it a scalar subquery and the FROM's read of
 * one query see different parts, measured with a Buffer flushing mid-query), so while staging's
 * count and sums are the seal's nothing was staged since: the late rows are then not counted at
 * all, and otherwise counted exactly (at 1 M messages the commit's query time went from
 * 0.64-0.74 s to 0.46-0.52 s; docs/performance.md). A seal from before the fingerprint was kept
 * (0, 0) or none at all differs, and the exact count runs as before. The seal's fingerprint is
 * read by name from a tuple of its row (tupleElement with a default, named columns on in that
 * subquery alone): on a schema without those columns the staging checks must still be analysed,
 * to say so (seal_columns_problem), where naming them would fail the analysis. */
enum { LATE_ALWAYS, LATE_IF_MOVED };

static void late_when(tr *t, int when)
{
    if (when == LATE_ALWAYS)
        return;
    P(t, " AND ");
    frozen_or_committed(t);
    P(t, " AND (SELECT (count(), " FP_CITY ", " FP_XX ") FROM %s.orders_raw WHERE _load_id = {load_id:String} AND ",
      t->S);
    frozen_or_committed(t);
    P(t, ")\n                != (SELECT (any(staged), any(tupleElement(tuple(*), 'staged_fp1', toUInt64(0))), "
         "any(tupleElement(tuple(*), 'staged_fp2', toUInt64(0)))) FROM %s.order_frozen WHERE _load_id = {load_id:String} "
         "SETTINGS enable_named_columns_in_function_tuple = 1)",
      t->D);
}

/* "cityHash64(KEY) [NOT ]IN (SELECT _k FROM (SELECT cityHash64(KEY) AS _k FROM " … recur_close: the
 * rows whose key's hash recurs among the rows the caller selects between the two, or (NOT) those
 * whose key is unique there. Rows of a unique key need no grouping to be counted, fingerprinted
 * or kept once; a load rarely holds a key twice, so the exact (grouping, sorting) work runs on
 * the few rows of the set, and the set costs a hash aggregation of one 64-bit column (a
 * collision only puts more rows, whole keys, on the exact side). g: "GLOBAL " over a table of the
 * cluster, the set built once on the initiator. */
static void recur_open(tr *t, int in, const char *key, const char *g)
{
    P(t, "cityHash64(%s) %s%sIN (SELECT _k FROM (SELECT cityHash64(%s) AS _k FROM ", key, g, in ? "" : "NOT ", key);
}

static void recur_close(tr *t)
{
    P(t, " GROUP BY _k HAVING count() > 1))");
}

/* "STG.orders_raw WHERE the load" */
static void staged_load(tr *t)
{
    P(t, "%s.orders_raw WHERE _load_id = {load_id:String}", t->S);
}

/* recur_open … recur_close over the load's staged rows: the rows whose coordinates' hash recurs
 * among them (in), or those staged at coordinates of their own */
static void recur_staged(tr *t, int in)
{
    recur_open(t, in, COORDS, "");
    staged_load(t);
    recur_close(t);
}

/* Whether the load's staged messages and its manifest may differ, as a scalar expression: 1
 * unless the staged coordinates (each with one _raw_hash) and the manifest's rows are the same
 * set by their count and two sums of hashes of (coordinates, _raw_hash). Staging's coordinates
 * staged once are read as they come, those whose hash recurs grouped (a coordinate with two
 * _raw_hash counts in the last figure), the manifest only read: a fraction of the exact
 * comparison below, which the statements then run only when this says 1 (sets that differ have
 * equal fingerprints with a chance of about 2^-128, like the _raw_hash they stand on, a 64-bit
 * hash of the bytes). */
static void may_differ(tr *t)
{
    P(t, "(SELECT (count(), sum(cityHash64(_topic, _partition, _offset, _h)), sum(xxHash64(_topic, _partition, "
         "_offset, _h)), countIf(_h != _h2))\n"
         "            FROM (SELECT _topic, _partition, _offset, _raw_hash AS _h, _raw_hash AS _h2 FROM ");
    staged_load(t);
    P(t, " AND ");
    recur_staged(t, 0);
    P(t, "\n            UNION ALL SELECT _topic, _partition, _offset, min(_raw_hash), max(_raw_hash) FROM ");
    staged_load(t);
    P(t, " AND ");
    recur_staged(t, 1);
    P(t, " GROUP BY _topic, _partition, _offset))\n"
         "            != (SELECT (count(), " FP_CITY ", " FP_XX ", toUInt64(0)) FROM %s.order_manifest WHERE _load_id = "
         "{load_id:String}",
      t->D);
    P(t, ")");
}

/* How many of them, as a scalar subquery: the staged rows and the manifest's grouped together
 * by coordinates and bytes, a group with no manifest row is late; read only when fingerprints
 * differ (a filter over both reads: the engine folds the fingerprints to a constant and, when it
 * is false, reads neither): for the seal staging's against the manifest's (may_differ), for the
 * others staging's against the seal's (late_when). A GROUP BY spills to disk
 * past GROUP_SPILL (set by every statement that counts them) where a NOT IN set holds the whole
 * load in memory: 2.4 GiB at 16 M messages, against 0.6 GiB grouped and spilled, and twice as
 * fast (docs/performance.md). when: late_when (the staging checks' if() evaluates a scalar
 * subquery whatever its condition says, and a first run would group all its staged rows for
 * nothing). */
static void late_count(tr *t, int when)
{
    P(t, "(SELECT sum(_n) FROM (SELECT count() AS _n FROM (SELECT _topic, _partition, _offset, _raw_hash, 1 AS _s "
         "FROM %s.orders_raw WHERE _load_id = {load_id:String}", t->S);
    late_when(t, when);
    P(t, "\n            UNION ALL SELECT _topic, _partition, _offset, _raw_hash, 0 FROM %s.order_manifest WHERE _load_id = "
         "{load_id:String}", t->D);
    late_when(t, when);
    P(t, ")");
    if (when == LATE_ALWAYS) {
        P(t, "\n            WHERE ");
        may_differ(t);
    }
    P(t, "\n            GROUP BY _topic, _partition, _offset, _raw_hash HAVING min(_s) = 1))");
}

/* What the statements that group a whole load set: groups over the tables' keys run in the
 * key's order (one group in memory at a time), the others spill past 256 MiB of state. */
#define GROUP_SPILL "optimize_aggregation_in_order = 1, max_bytes_before_external_group_by = 268435456"

/* The freeze's and the gate's INSERTs write as they read. By default the engine gathers an
 * INSERT SELECT's rows into blocks of about a million before writing, so a piece of a million
 * rows was held whole and written at its end by one thread (measured at 1 M messages: the gate
 * 2.7 s against 1.9 s, 1.6 GiB against 1.1 GiB; docs/performance.md). Blocks of a quarter of
 * that, written by up to four threads (the engine caps them at max_threads): about four parts
 * a piece and table, which the background merges fold. */
#define WRITE_SETTINGS "max_insert_threads = 4, min_insert_block_size_rows = 262144"

/* Every read of a table inside one statement sees the same parts. The freeze reads staging
 * three times (the coordinates staged once, the copies, the set of recurring hashes that tells
 * them apart) and the checks, the seal and the commit compare views of one table: a row staged
 * between two of those reads would be frozen twice or counted in one view only. The engine
 * shares one snapshot per table across a query's subqueries (a setting since 25.6, on by default
 * in later releases and in 26.5); pinned here, so that a server profile that turned it off cannot
 * open that window (transition-guards.bats stages a copy mid-freeze both ways). */
#define ONE_SNAPSHOT "enable_shared_storage_snapshot_in_query = 1"

/* The engine compiles an expression the third time a process meets it (min_count_to_compile_*),
 * and the statements repeat theirs (the guards above all): run in one process, the second
 * statement of checks paid the compilation, which their reads never paid back (statement 3 on 20
 * messages 0.156 s against 0.064 s), a gate's piece compiles its own repeats (0.15 against
 * 0.125 s a piece) and the errors INSERT the guard it is the third to carry (52 ms). Off in
 * the checks, the seal, the errors, the gate and the commit: at 500 k, in one process or in one
 * each, none is slower without it. The freeze keeps it: at 500 k it is 3 % faster with it
 * (docs/performance.md). */
#define NO_JIT "compile_expressions = 0, compile_aggregate_expressions = 0, compile_sort_description = 0"

/* What the statements that compare grouped reads (the checks, the seal, the commit) set: one
 * snapshot, their groups spilled past 256 MiB, no compilation. */
#define READ_SETTINGS ONE_SNAPSHOT ", " GROUP_SPILL ", " NO_JIT

/* --- the checks: each an expression that is '' when all is well, else the message --- */

/* Where messages show the load id: controls and non-ASCII as '?', so a mistyped id with a
 * newline in it cannot garble the one-line message. */
#define LOAD_TEXT "replaceRegexpAll({load_id:String}, '[^ -~]', '?')"

/* What a failed check after statement 2 adds: the run keeps the lease, and the next run would
 * fail at statement 1 without this hint. Written inside a SQL string literal. */
static const char *kept(const tr *t, int k)
{
    return k > 2 ? t->kept : "";
}

/* The lease is this load's. Statement k's message names the holder and what to do. */
static void lease_problem(tr *t, int k)
{
    P(t, "if((SELECT count() FROM %s.order_lease_v WHERE _load_id = {load_id:String}) = 1, '',\n"
         "        concat('%s %d/%d: this run of load ', " LOAD_TEXT ", ' does not hold the lease (',\n"
         "            (SELECT if(count() = 0, 'nobody holds it', concat('load ', any(_load_id), ' holds it since ', "
         "toString(any(since)), ' UTC')) FROM %s.order_lease_v),\n"
         "            '): another run took over, or the lease was cleared. This run stops here, %s; "
         "once no other run is going, run the %s again from statement 1: it completes what is left, or "
         "changes nothing'))",
      t->D, t->name, k, t->n, t->D,
      /* what a run stopped at statement k has done: the commit is statement 10 */
      strcmp(t->name, "transition") ? "part done" : k <= TR_COMMIT ? "having committed nothing" : "after the commit",
      t->name);
}

/* Rows staged under the load after its freeze (a sealed or committed load); when: late_when. */
static void late_problem(tr *t, int k, int when)
{
    P(t, "(SELECT if(_late = 0, '', concat('%s %d/%d: ', toString(_late), ' rows were staged under load ', "
         LOAD_TEXT ",\n"
         "            ' after it was frozen (', ifNull((SELECT toString(any(frozen_at)) FROM %s.order_frozen "
         "WHERE _load_id = {load_id:String}), '?'),\n"
         "            ' UTC): they are not part of it and would be lost. Move them to a new load id (ods-ddl "
         "move-late) and run that load; this run wrote nothing%s'))\n"
         "        FROM (SELECT ",
      t->name, k, t->n, t->D, kept(t, k));
    late_count(t, when);
    P(t, " AS _late))");
}

/* A problem is an expression that is '' when all is well, else the message. */
typedef void problem_fn(tr *t, int k);

/* Writes "(WITH (SELECT EXPR) AS _p SELECT throwIf(_p != '', _p)) = 0", EXPR from fn: a scalar
 * subquery, evaluated when the statement is analysed, before any row is read or written, even
 * when the statement's own source is empty. */
static void guard(tr *t, int k, problem_fn *fn)
{
    P(t, "(WITH (SELECT ");
    fn(t, k);
    P(t, ") AS _p SELECT throwIf(ifNull(_p, '') != '', _p)) = 0");
}

static void staging_checks(tr *t, int k);
static void lease_only(tr *t, int k);

/* A statement that only checks: fails with fn's message, prints nothing. The transition's
 * staging checks group the load's coordinates in staging's order (its key is _load_id and the
 * coordinates), one group at a time, so memory stays flat whatever the load's size (issue 25;
 * the setting works only on the whole statement, not on the subquery). */
static void check_statement(tr *t, int k, problem_fn *fn)
{
    P(t, "WITH (SELECT ");
    fn(t, k);
    P(t, ") AS _p\nSELECT throwIf(ifNull(_p, '') != '', _p)\n%sFORMAT Null;\n\n",
      t->checks == staging_checks && fn != lease_only ? "SETTINGS " READ_SETTINGS "\n" : "");
}

/* "arrayFirst(_x -> _x != '', [" … "])": the first problem found, or ''. */
static void first_open(tr *t)
{
    P(t, "ifNull(arrayFirst(_x -> ifNull(_x, '') != '', [");
}

static void first_close(tr *t)
{
    P(t, "]), '')");
}

static void lease_only(tr *t, int k)
{
    lease_problem(t, k);
}

/* Statements 4 to 10: the lease is this run's, and (but in 4) the load is frozen. */
static void sealed_problem(tr *t, int k)
{
    first_open(t);
    lease_problem(t, k);
    P(t, ",\n        if(");
    sealed(t, 0);
    P(t, " AND ");
    not_committed(t);
    P(t, ", concat('%s %d/%d: load ', " LOAD_TEXT ", ' is not frozen: run its transition from "
         "statement 1%s'), '')",
      t->name, k, t->n, kept(t, k));
    first_close(t);
}

/* --- the statements --- */

/* 1: the load id is one, and nobody holds the lease. */
static void lease_free_problem(tr *t, int k)
{
    char clear[160];
    ddl_lease_clear(t->o, clear, sizeof clear);
    first_open(t);
    P(t, "if(NOT match({load_id:String}, '" DDL_LOAD_ID_RE "'),\n"
         "        concat('%s %d/%d: ''', " LOAD_TEXT ", ''' is no load id: 1 to 128 characters of "
         "A-Z a-z 0-9 . _ : + / -, the first a letter or digit. Pass the id the batch was staged under "
         "(--param_load_id=ID); nothing was done'), ''),\n"
         "    (SELECT if(count() = 0, '', concat('%s %d/%d: the lease is held by ',\n"
         "        (SELECT if(count() = 0, 'nobody: its table is empty, a run was killed while taking it', "
         "concat('load ', any(_load_id), ' since ', toString(any(since)), ' UTC')) FROM %s.order_lease_v),\n"
         "        ': another transition is running, or one died. Nothing was done. When none is running, "
         "clear it with: %s; then rerun'))\n",
      t->name, k, t->n, t->name, k, t->n, t->D, clear);
    if (t->o->cluster) {
        P(t, "     FROM %s.order_lease_v)", t->D);
    } else {
        P(t, "     FROM system.tables WHERE database = ");
        sqlw_quote(&t->st, t->out, t->D);
        P(t, " AND name = 'order_lease')");
    }
    P(t, ",\n    ");
    t->checks(t, k);
    first_close(t);
}

static void st_lease_free(tr *t, int k)
{
    P(t, "-- %d. the load id checked and the lease free (else the holder is named)%s\n", k,
      "; the checks of statement 3 too, so a run that cannot go on leaves no lease");
    check_statement(t, k, lease_free_problem);
}

/* 2: the lease itself. A CREATE of an existing table fails, and on a cluster a strict insert of
 * an existing KeeperMap key (ddl.h), so of two runs past statement 1 at the same moment, on one
 * node or on two, one fails here. */
static void st_lease_take(tr *t, int k)
{
    P(t, "-- %d. the lease taken: one transition (or repair) at a time, whatever its load, until statement %d%s\n", k,
      t->n, t->o->cluster ? ", on every node of the cluster" : "");
    if (t->o->cluster)
        P(t, "INSERT INTO %s.order_lease_keeper SETTINGS keeper_map_strict_mode = 1\n"
             "SELECT 'lease', {load_id:String}, now64(3, 'UTC');\n\n", t->D);
    else
        P(t, "CREATE TABLE %s.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, now64(3, 'UTC') AS "
             "since;\n\n", t->D);
}

/* The ODS's versions were hashed with this version's profile: the default of _rep's
 * _hashdiff_profile (every stored row takes it) is this version's id. Another id means a release
 * changed what the hashdiff hashes: comparing new hashes with old ones would store every order
 * again, so nothing runs until the ODS is re-baselined. */
static void profile_problem(tr *t, int k)
{
    P(t, "    (SELECT multiIf(_same, '',\n"
         "            _n = 0, concat('%s %d/%d: the ODS does not record what its versions were hashed with (a schema "
         "from before the hashdiff profile was kept): bring it to this version with ods-ddl migrate first; nothing "
         "was done%s'),\n"
         "            concat('%s %d/%d: the ODS''s versions are hashed with hashdiff profile ', _have, ', this "
         "transition hashes with ', ",
      t->name, k, t->n, kept(t, k), t->name, k, t->n);
    sqlw_quote(&t->st, t->out, t->profile);
    P(t, ", ': a release changed what _hashdiff hashes, and comparing the two would store every order again. "
         "Re-baseline the ODS first (ods-ddl rebaseline, docs/operations.md); nothing was done%s'))\n"
         "         FROM ", kept(t, k));
    ddl_profile_read(&t->st, t->out, t->D);
    P(t, ")");
}

/* The seal keeps the fingerprint of what was staged (order_frozen.staged_fp1, staged_fp2,
 * late_when), which the seal writes: a schema from before it would fail the seal by the engine's
 * "unknown identifier", after the freeze has written. Checked here first, by name in
 * system.columns (the others read the columns through a tuple of the row, late_when), so such a
 * run stops at statement 1 having done nothing, and says what to run. */
static void seal_columns_problem(tr *t, int k)
{
    P(t, "if((SELECT count() FROM system.columns WHERE database = ");
    sqlw_quote(&t->st, t->out, t->D);
    P(t, " AND table = 'order_frozen' AND name IN ('staged_fp1', 'staged_fp2')) = 2, '',\n"
         "        concat('%s %d/%d: the ODS''s seals (%s.order_frozen) keep no fingerprint of what was staged (a "
         "schema from before this version): bring it to this version with ods-ddl migrate first; nothing was "
         "done%s'))",
      t->name, k, t->n, t->D, kept(t, k));
}

/* 3: nothing is written when the load cannot be frozen exactly (check_statement groups its
 * coordinates in order). */
static void staging_checks(tr *t, int k)
{
    const char *S = t->S, *D = t->D;
    first_open(t);
    seal_columns_problem(t, k);
    P(t, ",\n    if(");
    frozen_or_committed(t);
    P(t, ", ");
    late_problem(t, k, LATE_IF_MOVED);
    P(t, ", ");
    first_open(t);
    if (!t->o->allow_empty)
        P(t, "\n    if((SELECT count() FROM %s.orders_raw WHERE _load_id = {load_id:String}) = 0,\n"
             "        concat('%s %d/%d: no rows are staged under load ', " LOAD_TEXT ",\n"
             "            ': a mistyped load id, or a batch not staged yet. Staged and not committed: ',\n"
             "            (SELECT if(count() = 0, 'none', arrayStringConcat(groupArray(10)(_load_id), ', ')) FROM "
             "(SELECT DISTINCT _load_id FROM %s.orders_raw\n"
             "             WHERE _load_id %sNOT IN (SELECT _load_id FROM %s.%s) ORDER BY _load_id)),\n"
             "            '. Nothing was done (ods-ddl transition --allow-empty commits an empty load)%s'), ''),",
          S, t->name, k, t->n, S, t->g, D, t->loads, kept(t, k));
    P(t, "\n    (SELECT if(count() = 0, '', concat('%s %d/%d: ', toString(count()), ' Kafka coordinates of load ', "
         LOAD_TEXT ",\n"
         "            ' hold different messages (e.g. topic ', any(_topic), ', partition ', toString(any(_partition)),\n"
         "            ', offset ', toString(any(_offset)), '): the same coordinates staged twice with other bytes "
         "(a re-created topic, a file staged without unique offsets?). Nothing was written. Delete the wrong "
         "copies from %s.orders_raw, or stage the load again under a new load id with unique coordinates "
         "(ods-ddl stage)%s'))\n"
         "         FROM (SELECT _topic, _partition, _offset FROM %s.orders_raw WHERE _load_id = {load_id:String} AND ",
      t->name, k, t->n, S, kept(t, k), S);
    recur_staged(t, 1);
    P(t, "\n               GROUP BY _topic, _partition, _offset HAVING min(_raw_hash) != max(_raw_hash)\n"
         "               ORDER BY _topic, _partition, _offset)),\n");
    profile_problem(t, k);
    P(t, ",\n");
    P(t, "    (SELECT if(count() = 0, '', concat('%s %d/%d: load ', any(_load_id), ' is frozen and not committed "
         "(since ', toString(any(frozen_at)), ' UTC): loads commit one after another. Finish it first (rerun its "
         "transition), or abandon it (ods-ddl abandon); then run load ', " LOAD_TEXT ", '. Nothing was done%s'))\n"
         "         FROM %s.order_frozen WHERE _load_id != {load_id:String} AND _load_id %sNOT IN (SELECT _load_id "
         "FROM %s.%s))",
      t->name, k, t->n, kept(t, k), D, t->g, D, t->loads);
    first_close(t);
    P(t, ")");
    first_close(t);
}

/* 3: the same checks, now under the lease: between statement 1 and the lease, another run may
 * have frozen a load or staging may have changed. */
static void checks_problem(tr *t, int k)
{
    first_open(t);
    lease_problem(t, k);
    P(t, ",\n    ");
    t->checks(t, k);
    first_close(t);
}

static void st_staging(tr *t)
{
    P(t, "-- %d. the staging checked before anything is written: rows staged, coordinates unique, no other load "
         "open; a frozen load: nothing staged after its freeze\n", TR_STAGING);
    check_statement(t, TR_STAGING, checks_problem);
}

/* The freeze and the gate run as at most pieces_max INSERTs of about piece_rows rows each
 * (--gate-pieces, --piece-size). */
static int pieces_max(const tr *t)
{
    return t->o->gate_pieces ? (int)t->o->gate_pieces : DDL_GATE_PIECES;
}

static unsigned piece_rows(const tr *t)
{
    return t->o->piece_size ? t->o->piece_size : DDL_PIECE_SIZE;
}

/* A piece writer: INSERT k of at most np, for about m rows each. */
typedef void piece_fn(tr *t, int k, int np, unsigned m);

/* The pieces of a statement cut like the freeze and the gate: the end of its heading (how many
 * pieces of how many ROWS, cut by HOW), then at most --gate-pieces INSERTs of about --piece-size
 * ROWS each, every one after the first behind a comment saying when it holds something; then the
 * blank line that ends the statement. */
static void each_piece(tr *t, const char *rows, const char *how, piece_fn *piece)
{
    unsigned m = piece_rows(t);
    int np = pieces_max(t);
    P(t, "; in up to %d piece%s of about %u %s (%s), one INSERT each\n", np, np == 1 ? "" : "s", m, rows, how);
    for (int k = 0; k < np; k++) {
        if (k > 0)
            P(t, "-- piece %d (empty unless the load holds more than %d x %u %s)\n", k + 1, k, m, rows);
        piece(t, k, np, m);
    }
    P(t, "\n");
}

/* The freeze's piece count from the load's staged rows, count(): one per m, at most np. */
static void freeze_pieces(tr *t, int np, unsigned m)
{
    P(t, "greatest(1, least(%d, intDiv(count() + %u, %u)))", np, m - 1, m);
}

/* The scalar first staged coordinates of the load's piece k, or NULL when the piece is empty
 * (k at or past _pieces: then nothing is read). Staging is sorted by the load and these, so
 * the engine reads the coordinates in order up to the piece's first row. */
static void freeze_bound(tr *t, int k, int np, unsigned m)
{
    const char *S = t->S;
    P(t, "(SELECT (" COORDS ") FROM %s.orders_raw WHERE _load_id = {load_id:String} AND %d < (SELECT ", S, k);
    freeze_pieces(t, np, m);
    P(t, " FROM %s.orders_raw WHERE _load_id = {load_id:String})\n"
         "         ORDER BY " COORDS " LIMIT 1 OFFSET (SELECT intDiv(count() * %d, ", S, k);
    freeze_pieces(t, np, m);
    P(t, ") FROM %s.orders_raw WHERE _load_id = {load_id:String}))", S);
}

/* " OR (coordinates OP bound)" written out key by key, which the primary key's index reads (a
 * tuple comparison it does not): the bound a scalar, NULL reading as no bound. */
static void coords_vs(tr *t, const char *b, const char *lt, const char *last)
{
    P(t, "(%s IS NULL OR _topic %s assumeNotNull(%s).1 OR (_topic = assumeNotNull(%s).1 AND (_partition %s "
         "assumeNotNull(%s).2 OR (_partition = assumeNotNull(%s).2 AND _offset %s assumeNotNull(%s).3))))",
      b, lt, b, b, lt, b, b, last, b);
}

/* " AND the coordinates in piece k": from its first coordinates (none for the first piece) to
 * the next piece's (none for the last); a bound that reads as NULL bounds nothing, so that no
 * row can fall outside every piece for want of one. */
static void in_freeze_piece(tr *t, int k, int np)
{
    P(t, " AND %d < _pieces", k);
    if (k > 0) {
        P(t, "\n         AND ");
        coords_vs(t, "_from", ">", ">=");
    }
    if (k + 1 < np) {
        P(t, "\n         AND (%d >= _pieces OR ", k + 1);
        coords_vs(t, "_to", "<", "<");
        P(t, ")");
    }
}

/* " AND …": the staged rows of freeze piece k whose coordinates recur in the piece (copies), or
 * (0) those of coordinates staged once, which are frozen as they are read, in parallel, with no
 * sort: only the first set is sorted to keep each message's first copy. */
static void freeze_rows(tr *t, int k, int np, int copies)
{
    in_freeze_piece(t, k, np);
    P(t, " AND ");
    recur_open(t, copies, COORDS, "");
    P(t, "%s.orders_raw WHERE _load_id = {load_id:String}", t->S);
    in_freeze_piece(t, k, np);
    recur_close(t);
}

/* One piece of the freeze: the load's staged rows whose coordinates are in piece k of _pieces
 * (at most the transition's pieces, about piece_size staged rows each, from staging's count),
 * less the coordinates the manifest already has in that range. */
static void freeze_piece(tr *t, int k, int np, unsigned m)
{
    const char *S = t->S, *D = t->D;
    int udf = !t->o->typing_sql;
    P(t, "INSERT INTO %s.order_manifest (_load_id, ", D);
    sqlw_meta_names(&t->st, t->out);
    P(t, "_load_ts, _raw_hash, error_class, raw");
    if (udf) {
        for (size_t i = 0; i < WIRE_NFIELDS; i++)
            P(t, ", %s", WIRE_FIELDS[i].name);
        P(t, ", _hashdiff");
    }
    P(t, ", _bucket)\nSETTINGS " ONE_SNAPSHOT ", " WRITE_SETTINGS "\nWITH (SELECT ");
    freeze_pieces(t, np, m);
    P(t, " FROM %s.orders_raw WHERE _load_id = {load_id:String}) AS _pieces", S);
    if (k > 0) {
        P(t, ",\n     ");
        freeze_bound(t, k, np, m);
        P(t, " AS _from");
    }
    if (k + 1 < np) {
        P(t, ",\n     ");
        freeze_bound(t, k + 1, np, m);
        P(t, " AS _to");
    }
    P(t, "\nSELECT _load_id, ");
    sqlw_meta_names(&t->st, t->out);
    /* _bucket from the order_id the gate reads (typed here, or by the gate's own expression with
     * --typing sql): all the versions of an order share one, so a piece of the gate holds them */
    if (udf) {
        /* raw is kept for rejected messages only: the errors table takes them from here */
        P(t, "_load_ts, _raw_hash, _w.class, if(_w.class != '', raw, '')");
        for (size_t i = 0; i < WIRE_NFIELDS; i++)
            P(t, ", _w.%s", WIRE_FIELDS[i].name);
        P(t, ", _w.hashdiff, if(_w.class = '', cityHash64(_w.order_id) %% %d, 0)\n"
             "FROM (SELECT *, order_wire_parse(raw) AS _w FROM\n", DDL_BUCKETS);
    } else {
        const wire_field *f = wire_field_by_name("order_id", 8);
        P(t, "_load_ts, _raw_hash, _c, raw, if(_c = '', cityHash64(");
        if (!t->st && f)
            t->st = ddl_extract(t->out, f);
        P(t, ") %% %d, 0)\nFROM (SELECT *, order_wire_class(raw) AS _c FROM\n", DDL_BUCKETS);
    }
    P(t, "    (SELECT raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts, _raw_hash FROM %s.orders_raw\n"
         "     WHERE _load_id = {load_id:String}",
      S);
    freeze_rows(t, k, np, 0);
    P(t, "\n     UNION ALL SELECT * FROM (SELECT raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts, "
         "_raw_hash FROM %s.orders_raw\n"
         "     WHERE _load_id = {load_id:String}", S);
    freeze_rows(t, k, np, 1);
    P(t, "\n"
         "     ORDER BY " COORDS ", _load_ts\n"
         "     LIMIT 1 BY " COORDS "))\n"
         "    WHERE ");
    /* over both reads (the engine folds the constant conditions into each and skips a read
     * they rule out): what an earlier run froze is not frozen again */
    sealed(t, 0);
    P(t, " AND ");
    not_committed(t);
    P(t, "\n      AND ");
    guard(t, TR_FREEZE, lease_only);
    P(t, "\n      AND (" COORDS ") NOT IN (SELECT " COORDS " FROM %s.order_manifest WHERE _load_id = {load_id:String}",
      t->D);
    in_freeze_piece(t, k, np);
    P(t, "));\n");
}

/* 4: the load frozen: one row per message (Kafka coordinates; of copies, the first received),
 * classified and typed once. A freeze cut short is completed by the rerun (coordinates already
 * in the manifest are skipped); it is final only once sealed (5). It runs as pieces, ranges of
 * staging's coordinates, so that what a rerun skips is a set of one piece's coordinates, not of
 * the load's. Each INSERT computes the pieces again from the staged rows: a row staged between
 * two of them can move a bound; what then falls between two pieces is not frozen, which the seal
 * finds (rows staged under the load and not in its manifest) and the rerun takes in, and what
 * two pieces both cover is frozen once (the manifest's coordinates are skipped). */
static void st_freeze(tr *t)
{
    P(t, "-- %d. the load frozen: each staged message once (the first received of its copies), classified%s, "
         "into the manifest",
      TR_FREEZE, !t->o->typing_sql ? ", typed and hashed (_hashdiff) by one order_wire_parse call" : "");
    each_piece(t, "staged rows", "ranges of their coordinates", freeze_piece);
}

/* 5: the seal. Refused when a row was staged while the manifest was being written (the rerun
 * takes it in) or the manifest holds a message twice. */
static void seal_problem(tr *t, int k)
{
    first_open(t);
    lease_problem(t, k);
    P(t, ",\n        if(");
    frozen_or_committed(t);
    P(t, ", '', ");
    first_open(t);
    P(t, "\n        if(");
    late_count(t, LATE_ALWAYS);
    P(t, " > 0,\n"
         "            concat('%s %d/%d: rows were staged under load ', " LOAD_TEXT ", ' while it was being "
         "frozen, or differ from the bytes frozen at their coordinates: rerun the transition from statement 1 "
         "to take them in (nothing is committed yet)%s'), ''),\n"
         "        if((SELECT count() FROM (SELECT 1 FROM %s.order_manifest WHERE _load_id = {load_id:String} AND ",
      t->name, k, t->n, kept(t, k), t->D);
    /* a message twice in the manifest changes its fingerprint */
    may_differ(t);
    P(t, "\n            GROUP BY _topic, _partition, _offset HAVING count() > 1)) > 0,\n"
         "            concat('%s %d/%d: the manifest of load ', " LOAD_TEXT ", ' holds a message twice "
         "(two runs froze it at once?): abandon the load (ods-ddl abandon) and rerun it%s'), '')",
      t->name, k, t->n, kept(t, k));
    first_close(t);
    P(t, ")");
    first_close(t);
}

static void st_seal(tr *t)
{
    const char *S = t->S, *D = t->D;
    P(t, "-- %d. the freeze sealed: from here on the load is its manifest, and staging is only checked\n"
         "INSERT INTO %s.order_frozen (_load_id, frozen_at, staged, messages, staged_fp1, staged_fp2)\n"
         "SELECT {load_id:String}, now64(3, 'UTC'), s.n, m.n, s.fp1, s.fp2\n"
         "FROM (SELECT count() AS n, " FP_CITY " AS fp1, " FP_XX " AS fp2 FROM %s.orders_raw WHERE _load_id = "
         "{load_id:String}) AS s,\n"
         "     (SELECT count() AS n FROM %s.order_manifest WHERE _load_id = {load_id:String}) AS m\n"
         "WHERE ",
      TR_SEAL, D, S, D);
    sealed(t, 0);
    P(t, " AND ");
    not_committed(t);
    P(t, "\n  AND ");
    guard(t, TR_SEAL, seal_problem);
    P(t, "\nSETTINGS " READ_SETTINGS ";\n\n");
}

/* The committed loads that an earlier transition folded: all but the latest (the one before
 * this transition folded every earlier one, its statement 7 running before its commit). */
static void folded_loads(tr *t)
{
    P(t, "SELECT _load_id FROM %s.%s WHERE delta < (SELECT max(delta) FROM %s.%s)", t->D, t->loads, t->D, t->loads);
}

/* 6: housekeeping. It takes no lease (with --cluster it runs on every node, the lease is on the
 * initiator) and needs none: it deletes a hot row only where _rep already holds that version or
 * one that order_v ranks at least as high (a greater updated_at, or the same from a load with a
 * greater delta), so whatever runs it, whenever, order_v cannot change. */
static void st_housekeeping(tr *t)
{
    const char *D = t->D;
    P(t, "-- %d. housekeeping: hot rows of folded loads whose version (or a newer one) _rep holds\n"
         "ALTER TABLE %s.order_snapshot_hot", TR_HOUSEKEEPING, D);
    sqlw_on_cluster(&t->st, t->out, t->o);
    P(t, " DELETE WHERE ");
    not_committed(t);
    P(t, "\n  AND _load_id IN (");
    folded_loads(t);
    P(t, ")\n  AND (order_id, updated_at, _load_id) IN (\n"
         "    SELECT h.order_id, h.updated_at, h._load_id\n"
         "    FROM (SELECT order_id, updated_at, _load_id FROM %s.order_snapshot_hot WHERE _load_id IN (",
      D);
    folded_loads(t);
    P(t, ")) AS h\n"
         "    INNER JOIN (SELECT _load_id, delta FROM %s.%s) AS hc ON h._load_id = hc._load_id\n"
         "    INNER JOIN (SELECT order_id, max((updated_at, c.delta)) AS _best\n"
         "                FROM %s.order_snapshot_rep AS r INNER JOIN (SELECT _load_id, delta FROM %s.%s) AS c USING (_load_id)\n"
         "                WHERE order_id IN (SELECT order_id FROM %s.order_snapshot_hot WHERE _load_id IN (",
      D, t->loads, D, D, t->loads, D);
    folded_loads(t);
    P(t, "))\n"
         "                GROUP BY order_id) AS rr ON h.order_id = rr.order_id\n"
         "    WHERE rr._best >= (h.updated_at, hc.delta))\n"
         "SETTINGS mutations_sync = 2%s;\n\n",
      t->o->cluster ? ", allow_nondeterministic_mutations = 1" : "");
}

/* 7: fold: versions of committed loads into _rep, those not there yet (a rerun adds none); it
 * concerns earlier loads only, so it needs the lease but not this load's freeze. _rep
 * only ever receives committed versions, so its merges cannot replace a committed version by an
 * uncommitted one. Sorted by creation day, so an INSERT block writes one part per day it holds,
 * whatever the span of days (the partition limit would refuse a block over 100 days). */
static void st_fold(tr *t)
{
    const char *D = t->D;
    P(t, "-- %d. fold: versions of committed loads into %s\nINSERT INTO %s.%s (", TR_FOLD, t->rep, D, t->rep);
    sqlw_store_names(&t->st, t->out);
    P(t, ")\nSETTINGS %soptimize_on_insert = 0, throw_on_max_partitions_per_insert_block = 0\nSELECT ",
      t->o->cluster ? "distributed_foreground_insert = 1, " : "");
    sqlw_store_names(&t->st, t->out);
    P(t, "\nFROM %s.%s\nWHERE ", D, t->hot);
    not_committed(t);
    P(t, "\n  AND ");
    guard(t, TR_FOLD, lease_only);
    P(t, "\n  AND _load_id %sIN (SELECT _load_id FROM %s.%s)\n"
         "  AND (order_id, updated_at, _hashdiff, _load_id) %sNOT IN (SELECT order_id, updated_at, _hashdiff, _load_id "
         "FROM %s.%s\n"
         "      WHERE order_id %sIN (SELECT order_id FROM %s.%s WHERE _load_id %sIN (SELECT _load_id FROM %s.%s)))\n"
         "ORDER BY toYYYYMMDD(created_at);\n\n",
      t->g, D, t->loads, t->g, D, t->rep, t->g, D, t->hot, t->g, D, t->loads);
}

/* The predicate of the bad branch over the manifest; the good branch is NOT (bad). */
#define BAD "error_class != ''"

/* 8: the bad branch: the manifest's rejected messages, each recorded once. */
static void st_errors(tr *t)
{
    const char *D = t->D;
    P(t, "-- %d. rejected messages, raw, from the manifest, each recorded once\nINSERT INTO %s.%s (raw, error_class, ",
      TR_ERRORS, D, t->errs);
    sqlw_meta_names(&t->st, t->out);
    P(t, "_load_id, _load_ts)\nSETTINGS %s" NO_JIT "\nSELECT raw, error_class, ",
      t->o->cluster ? "distributed_foreground_insert = 1, " : "");
    sqlw_meta_names(&t->st, t->out);
    P(t, "_load_id, _load_ts\nFROM %s.order_manifest\nWHERE _load_id = {load_id:String}\n  AND ", D);
    not_committed(t);
    P(t, "\n  AND ");
    guard(t, TR_ERRORS, sealed_problem);
    P(t, "\n  AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, _offset FROM %s.%s "
         "WHERE _load_id = {load_id:String})\n"
         "  AND " BAD ";\n\n",
      t->g, D, t->errs);
}

/* The typed columns of the load's accepted messages and their _hashdiff: from the manifest (the
 * freeze's order_wire_parse gave both), or typed by SQL from its raw and hashed by
 * hashdiff_strict over the canonical texts (--typing sql); then the load and the coordinates. */
static void typed_items(tr *t, const char *ind)
{
    for (size_t i = 0; i < WIRE_NFIELDS; i++) {
        P(t, "%s", ind);
        if (!t->o->typing_sql)
            P(t, "%s", WIRE_FIELDS[i].name);
        else if (!t->st)
            t->st = ddl_extract(t->out, &WIRE_FIELDS[i]);
        P(t, " AS %s,\n", WIRE_FIELDS[i].name);
    }
    if (t->o->typing_sql) {
        P(t, "%shashdiff_strict(", ind);
        if (!t->st)
            t->st = ddl_hashdiff_args(t->out);
        P(t, ") AS _hashdiff,\n");
    } else {
        P(t, "%s_hashdiff AS _hashdiff,\n", ind);
    }
    P(t, "%s_load_id,\n%s_load_ts,\n%s_topic,\n%s_partition,\n%s_offset\n", ind, ind, ind, ind, ind);
}

/* "AND COL >= _lo AND COL < _hi": the rows of the piece's buckets; COL is _bucket in the manifest,
 * computed from order_id elsewhere */
static void in_piece(tr *t, const char *col)
{
    P(t, " AND %s >= _lo AND %s < _hi", col, col);
}

#define BUCKET_OF_ORDER "cityHash64(order_id) % 256"
_Static_assert(DDL_BUCKETS == 256, "BUCKET_OF_ORDER names the number of buckets");

/* The piece's accepted messages from the manifest, typed: a SELECT the gate reads in parentheses
 * (guarded: only while this run holds the lease and the load is sealed and not committed). */
static void gate_source(tr *t, const char *ind, int guarded)
{
    P(t, "%sSELECT\n", ind);
    char in2[64];
    snprintf(in2, sizeof in2, "%s    ", ind);
    typed_items(t, in2);
    P(t, "%sFROM %s.order_manifest\n"
         "%sWHERE _load_id = {load_id:String} AND NOT (" BAD ")",
      ind, t->D, ind);
    in_piece(t, "_bucket");
    if (guarded) {
        P(t, "\n%s  AND ", ind);
        not_committed(t);
        P(t, "\n%s  AND ", ind);
        guard(t, TR_GATE, sealed_problem);
    }
    P(t, "\n");
}

/* One piece of the gate: the load's buckets [_lo, _hi), piece k of _pieces (at most the
 * gate's INSERTs, about piece_size messages each, from the seal's count). */
static void gate_piece(tr *t, int k, int np, unsigned m)
{
    const char *D = t->D;
    int every = t->o->store_every;
    P(t, "INSERT INTO %s.order_gate (", D);
    sqlw_store_names(&t->st, t->out);
    P(t, ", _topic, _partition, _offset, _fate, _put_hot, _put_stale, _put_fate)\nSETTINGS %s" ONE_SNAPSHOT ", join_use_nulls = 0, " WRITE_SETTINGS ", " NO_JIT "\n",
      t->o->cluster ? "distributed_foreground_insert = 1, " : "");
    P(t, "WITH (SELECT greatest(1, least(%d, intDiv(max(messages) + %u, %u))) FROM %s.order_frozen WHERE _load_id = "
         "{load_id:String}) AS _pieces,\n"
         "     intDiv(%d * %d + _pieces - 1, _pieces) AS _lo, intDiv(%d * %d + _pieces - 1, _pieces) AS _hi\n",
      np, m - 1, m, D, DDL_BUCKETS, k, DDL_BUCKETS, k + 1);
    P(t, "SELECT ");
    sqlw_store_names(&t->st, t->out);
    /* a version an earlier run stored already: the load's hot rows of the piece, a set (a LEFT
     * JOIN of them grouped by order_id carried every row of the piece through a join, a first
     * run's too, where the set is empty: 0.09 s of the gate at 500 k; docs/performance.md) */
    P(t, ", _topic, _partition, _offset, _fate,\n"
         "    _fate = 'stored' AND (order_id, updated_at, _hashdiff) %sNOT IN (SELECT order_id, updated_at, _hashdiff "
         "FROM %s.%s WHERE _load_id = {load_id:String}",
      t->g, D, t->hot);
    in_piece(t, BUCKET_OF_ORDER);
    P(t, " AND ");
    not_committed(t);
    P(t, ") AS _put_hot,\n");
    if (every) {
        P(t, "    0 AS _put_stale,\n");
    } else {
        P(t, "    _fate = 'stale' AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, _offset "
             "FROM %s.%s WHERE _load_id = {load_id:String}",
          t->g, D, t->stale);
        in_piece(t, BUCKET_OF_ORDER);
        P(t, ") AS _put_stale,\n");
    }
    /* the fates hold no order_id: those of the piece's coordinates, by a hash of them (a
     * collision only lets another piece's fate into the set, where no message of this piece
     * matches it; a set of hashes is a fraction of one of coordinates) */
    P(t, "    (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset FROM %s.order_fates "
         "WHERE _load_id = {load_id:String}\n"
         "        AND cityHash64(_topic, _partition, _offset) IN (SELECT cityHash64(_topic, _partition, _offset) FROM "
         "%s.order_manifest WHERE _load_id = {load_id:String}",
      D, D);
    in_piece(t, "_bucket");
    P(t, ")) AS _put_fate\nFROM\n(\n    SELECT *,\n");
    if (every)
        P(t, "        if(_receipt = 1, 'stored', 'unchanged') AS _fate\n");
    else
        P(t, "        multiIf(_receipt = 1 AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND "
             "_hashdiff != _prior_hashdiff)), 'stored',\n"
             "                _has_prior AND updated_at < _prior_updated_at, 'stale',\n"
             "                'unchanged') AS _fate\n");
    /* The first receipt of each (order_id, updated_at) (with --store every, and content) is the
     * one stored. A window over the whole piece sorted every typed row (half the gate's time,
     * half its memory); a load rarely holds two messages with the same key, so only the messages
     * whose key's hash recurs are ranked, and those ranked later than first are the set (a
     * collision only ranks more messages, each within its exact key). */
    P(t, "    FROM\n    (\n"
         "        SELECT *,\n"
         "            if((_topic, _partition, _offset) IN (SELECT _topic, _partition, _offset FROM (SELECT _topic, "
         "_partition, _offset,\n"
         "                row_number() OVER (PARTITION BY order_id, updated_at%s ORDER BY _load_ts, _topic, _partition, "
         "_offset) AS _r\n"
         "                FROM (\n",
      every ? ", _hashdiff" : "");
    gate_source(t, "                    ", 0);
    P(t, "                )\n"
         "                WHERE cityHash64(order_id, updated_at) IN (SELECT cityHash64(order_id, updated_at) AS _h FROM (\n");
    gate_source(t, "                    ", 0);
    P(t, "                ) GROUP BY _h HAVING count() > 1))\n"
         "            WHERE _r > 1), 2, 1) AS _receipt\n"
         "        FROM\n        (\n");
    gate_source(t, "            ", 1);
    P(t, "        )\n    ) AS l\n");
    if (!every) {
        P(t, "    LEFT JOIN\n    (\n"
             "        SELECT order_id, 1 AS _has_prior, updated_at AS _prior_updated_at, _hashdiff AS _prior_hashdiff\n"
             "        FROM %s.order_v\n"
             "        WHERE order_id %sIN (SELECT ",
          D, t->g);
        if (t->o->typing_sql) {
            const wire_field *f = wire_field_by_name("order_id", 8);
            if (!t->st && f)
                t->st = ddl_extract(t->out, f);
        } else {
            P(t, "order_id");
        }
        P(t, " FROM %s.order_manifest WHERE _load_id = {load_id:String} AND NOT (" BAD ")", D);
        in_piece(t, "_bucket");
        P(t, " AND ");
        not_committed(t);
        P(t, ")\n          AND ");
        not_committed(t);
        P(t, "\n    ) AS o USING (order_id)\n");
    }
    /* each message once with no LIMIT 1 BY (which funnelled the piece into one stream): the
     * manifest holds a message once (the seal), and the prior's join matches one row per
     * order_id at most (order_v shows one version an order); were it to match two, the commit
     * would refuse the fate counted twice */
    P(t, ")\nWHERE _put_hot OR _put_stale OR _put_fate;\n");
}

/* 9: the good branch through the gate: every accepted message gets its fate (docs/schema.md,
 * "Store only changes"). Per order, the load's versions line up after the prior, what order_v
 * shows while the load is not committed; one version per updated_at within a load (the first
 * received; with --store every, per updated_at and content); stored when it differs from the
 * prior and is not older; older ones are stale; the rest unchanged. No other load can commit
 * between this load's freeze and its commit (statement 3), so every run of this load sees the
 * same prior and gives each message the same fate. What an earlier run wrote is not written
 * again: its hot rows, its stale records and its fates, each by its own _put flag (a set of
 * what the piece's orders hold already). The ODS is read for the load's own order_ids only; the
 * prior's joined side and the set of the load's hot rows carry the ledger guard (a hash join
 * builds its right side, and a set is built, whatever the left holds: a committed load's rerun
 * reads neither the ODS nor its hot rows; its stale records and fates, the piece's, it does).
 * A message's fate depends on its order's messages and prior only, and an order's messages
 * share a bucket: so the gate runs as pieces, each a range of buckets, one INSERT each, and
 * memory holds one piece. How a run or a rerun cuts the load does not change a fate. */
static void st_gate(tr *t)
{
    P(t, "-- %d. accepted messages, typed, from the manifest through the gate: stored versions into the hot table "
         "(not visible before the commit)%s, every fate into order_fates",
      TR_GATE, t->o->store_every ? "" : ", stale messages into order_snapshot_stale");
    each_piece(t, "messages", "ranges of _bucket", gate_piece);
}

/* How a key_counts figure is written: summed over the groups, counted in a group, or counted
 * over all the load's rows. */
enum { KC_OUTER, KC_GROUP, KC_ALL };

/* ", sum(_c0) AS c0" (outer), ", countIf(error_class = 'not_an_object') AS _c0" (a group) or
 * ", countIf(error_class = 'not_an_object') AS c0" (all rows), and so on for each reject class */
static void class_counts(tr *t, int how)
{
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        if (how == KC_OUTER)
            P(t, ", sum(_c%zu) AS c%zu", i, i);
        else
            P(t, ", countIf(error_class = '%s') AS %sc%zu", WIRE_REJECT_CLASSES[i], how == KC_GROUP ? "_" : "", i);
}

static void fate_counts(tr *t, int how)
{
    static const char *const fates[] = {"stored", "unchanged", "stale"}, *const as[] = {"st", "un", "sl"};
    for (int i = 0; i < 3; i++)
        if (how == KC_OUTER)
            P(t, ", sum(_%s) AS %s", as[i], as[i]);
        else
            P(t, ", countIf(fate = '%s') AS %s%s", fates[i], how == KC_GROUP ? "_" : "", as[i]);
}

/* "(SELECT sum(_c) AS n, count() AS u … FROM (…)) AS ALIAS": the load's rows of a table (n) and
 * its distinct keys (u), with more figures from fn, by a GROUP BY of the key: over a key the
 * table is sorted by, in its order (GROUP_SPILL), so memory does not grow with the load. split,
 * for a table that holds about a row per message (the fates, the hot rows): n and the figures
 * are counted over the rows as they come, and u is n less what the keys held more than once
 * add, found among the rows whose key's hash recurs in the load (recur_open: the rule is one row
 * a key, a row twice is a bug or a second writer), the only rows grouped. (Before, every row of
 * a unique hash went through a UNION ALL as a group of one: at 1 M fates 0.23 s against 0.14.)
 * The errors and the stale records, a few rows of a load, are grouped whole (less to plan). */
static void key_counts(tr *t, const char *alias, const char *table, const char *key, void (*fn)(tr *t, int how),
                       int split)
{
    /* a table of the cluster (the hot table's _dist) is read whole through one set; the fates
     * are this node's */
    const char *g = strstr(table, "_dist") ? t->g : "";
    if (split) {
        P(t, "(SELECT count() AS n, n - (SELECT sum(_c) - count() FROM (SELECT count() AS _c FROM %s.%s WHERE "
             "_load_id = {load_id:String} AND ", t->D, table);
        recur_open(t, 1, key, g);
        P(t, "%s.%s WHERE _load_id = {load_id:String}", t->D, table);
        recur_close(t);
        P(t, " GROUP BY %s)) AS u", key);
        if (fn)
            fn(t, KC_ALL);
        P(t, "\n                 FROM %s.%s WHERE _load_id = {load_id:String}) AS %s", t->D, table, alias);
        return;
    }
    P(t, "(SELECT sum(_c) AS n, count() AS u");
    if (fn)
        fn(t, KC_OUTER);
    P(t, " FROM (SELECT count() AS _c");
    if (fn)
        fn(t, KC_GROUP);
    P(t, "\n                 FROM %s.%s WHERE _load_id = {load_id:String} GROUP BY %s)) AS %s", t->D, table, key, alias);
}

/* The commit's figures and checks read these, by alias: m the manifest, f the seal, e the
 * errors table, g the fates, s the hot table, x the stale records (all of this load). */
static void commit_sources(tr *t, int with_tables)
{
    const char *D = t->D;
    P(t, "(SELECT count() AS n, countIf(error_class = '') AS acc, countIf(error_class != '') AS rej");
    class_counts(t, KC_ALL);
    P(t, "\n               FROM %s.order_manifest WHERE _load_id = {load_id:String}) AS m,\n"
         "              (SELECT ifNull(any(staged), 0) AS staged, ifNull(any(messages), 0) AS messages FROM "
         "%s.order_frozen WHERE _load_id = {load_id:String}) AS f,\n              ",
      D, D);
    if (!with_tables) {
        /* the ledger's figures need no distinct count: the check's grouping is not done twice */
        P(t, "(SELECT countIf(fate = 'stored') AS st, countIf(fate = 'unchanged') AS un, countIf(fate = 'stale') AS sl "
             "FROM %s.order_fates WHERE _load_id = {load_id:String}) AS g", D);
        return;
    }
    key_counts(t, "g", "order_fates", COORDS, fate_counts, 1);
    P(t, ",\n              ");
    key_counts(t, "e", t->errs, COORDS, class_counts, 0);
    P(t, ",\n              ");
    key_counts(t, "s", t->hot, t->o->store_every ? "order_id, updated_at, _hashdiff" : "order_id, updated_at", NULL, 1);
    P(t, ",\n              ");
    key_counts(t, "x", t->stale, COORDS, NULL, 0);
}

/* The commit's checks: the ledger row it writes must add up against the tables themselves. A
 * table holding less than the load's due (statement 8 or 9 cut short, or skipped by a run
 * resumed past them) is completed by a rerun; anything else that does not add up (more than
 * due, a row twice, the manifest against its seal) is a bug or a second writer. While the fates
 * are incomplete the hot and stale tables may hold more than the fates count (a gate cut short
 * between two views of a block): that is for the rerun too. */
static void commit_problem(tr *t, int k)
{
    first_open(t);
    sealed_problem(t, k);
    P(t, ",\n        ");
    late_problem(t, k, LATE_IF_MOVED);
    P(t, ",\n        if(");
    committed(t);
    P(t, ", '',\n        (SELECT multiIf(_sums != '', concat('%s %d/%d: the ledger row of load ', " LOAD_TEXT ",\n"
         "            ' would not add up: ', _sums, 'nothing was committed. Abandon the load (ods-ddl abandon) and "
         "rerun it, and report this: a bug or a second writer%s'),\n"
         "            _todo != '', concat('%s %d/%d: load ', " LOAD_TEXT ", ' is not complete: ', _todo, 'nothing "
         "was committed. Run the transition again from statement 1: it completes what is left%s'), '')\n"
         "         FROM (SELECT concat(\n"
         "            if(m.n != f.messages, concat('the manifest holds ', toString(m.n), ' messages, the seal ', "
         "toString(f.messages), '; '), ''),\n"
         "            if(f.staged < f.messages, concat('the seal counts ', toString(f.staged), ' staged rows for ', "
         "toString(f.messages), ' messages; '), ''),\n"
         "            if(e.n > m.rej OR e.u != e.n OR (e.n = m.rej AND (0",
      t->name, k, t->n, kept(t, k), t->name, k, t->n, kept(t, k));
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, " OR e.c%zu != m.c%zu", i, i);
    P(t, ")), concat('the errors table holds ', toString(e.n), ' rows of the load (', toString(e.u), "
         "' distinct), the manifest ', toString(m.rej), ' rejected messages; '), ''),\n"
         "            if(g.n != g.u OR g.n > m.acc, concat('order_fates holds ', toString(g.n), ' fates (', "
         "toString(g.u), ' distinct) for ', toString(m.acc), ' accepted messages; '), ''),\n"
         "            if(s.n != s.u OR (g.n >= m.acc AND s.n > g.st), concat('the hot table holds ', toString(s.n), "
         "' rows of the load (', toString(s.u), ' distinct) for ', toString(g.st), ' stored; '), ''),\n"
         "            if(x.n != x.u OR (g.n >= m.acc AND x.n > g.sl), concat('order_snapshot_stale holds ', toString(x.n), "
         "' records of the load (', toString(x.u), ' distinct) for ', toString(g.sl), ' stale; '), '')) AS _sums,\n"
         "            concat(\n"
         "            if(e.n < m.rej, concat('the errors table holds ', toString(e.n), ' of its ', toString(m.rej), "
         "' rejected messages (statement %d cut short or not run); '), ''),\n"
         "            if(g.n < m.acc, concat(toString(g.n), ' of its ', toString(m.acc), ' accepted messages have a "
         "fate (statement %d cut short or not run); '), ''),\n"
         "            if(s.n < g.st, concat('the hot table holds ', toString(s.n), ' of its ', toString(g.st), ' stored "
         "versions (statement %d cut short); '), ''),\n"
         "            if(x.n < g.sl, concat('order_snapshot_stale holds ', toString(x.n), ' of its ', toString(g.sl), "
         "' stale records (statement %d cut short); '), '')) AS _todo\n"
         "         FROM ",
      TR_ERRORS, TR_GATE, TR_GATE, TR_GATE);
    commit_sources(t, 1);
    P(t, ")))");
    first_close(t);
}

/* 10: the commit: one ledger row, the next delta, with figures counted from the manifest, the
 * seal and the fates; the checks have shown the tables hold exactly that. No figure is a
 * difference that could wrap but redelivered, which the checks bound (staged >= messages). */
static void st_commit(tr *t)
{
    const char *D = t->D;
    P(t, "-- %d. the commit: the ledger row, delta one above the last, checked against the tables; order_v shows "
         "the load from here on\n"
         "INSERT INTO %s.order_loads (delta, _load_id, committed_at, received, redelivered, accepted, stored, unchanged, "
         "stale, rejected",
      TR_COMMIT, D);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, ", %s", WIRE_REJECT_CLASSES[i]);
    P(t, ", wire_contract, hashdiff_profile)\nSELECT (SELECT max(delta) FROM %s.%s) + 1, {load_id:String}, now64(3, 'UTC'),\n"
         "    f.staged, f.staged - f.messages, m.acc, g.st, g.un, g.sl, m.rej",
      D, t->loads);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, ", m.c%zu", i);
    P(t, ", '%s', ", WIRE_CONTRACT_VERSION);
    sqlw_quote(&t->st, t->out, t->profile);
    P(t, "\nFROM ");
    commit_sources(t, 0);
    P(t, "\nWHERE ");
    not_committed(t);
    P(t, " AND ");
    sealed(t, 1);
    P(t, "\n  AND ");
    guard(t, TR_COMMIT, commit_problem);
    P(t, "\nSETTINGS " READ_SETTINGS ";\n\n");
}

/* 11 and 12: the lease released, by its holder only (a run that lost it must not drop another
 * run's). */
static void st_lease_release(tr *t, int k)
{
    P(t, "-- %d. the lease still this run's\n", k);
    check_statement(t, k, lease_only);
    char rel[256];
    P(t, "-- %d. the lease released\n%s;\n", k + 1, ddl_lease_release(t->o, NULL, rel, sizeof rel));
}

int ddl_transition(FILE *out, const ddl_opts *o)
{
    tr t;
    tr_init(&t, out, o, "transition", TR_N);
    t.checks = staging_checks;
    P(&t, "-- ods-ddl transition, wire contract %s, store %s: run the %d statements in order, with "
          "--param_load_id=ID.\n-- A rerun of a load, after success or any failure, leaves the tables as one "
          "clean run does;\n-- order_v shows the load, all of it, from the commit (statement %d) on. A lease "
          "makes it one transition at a time.\n",
      WIRE_CONTRACT_VERSION, o->store_every ? "every version" : "changes", TR_N, TR_COMMIT);
    st_lease_free(&t, TR_LEASE_FREE);
    st_lease_take(&t, TR_LEASE_TAKE);
    st_staging(&t);
    st_freeze(&t);
    st_seal(&t);
    st_housekeeping(&t);
    st_fold(&t);
    st_errors(&t);
    st_gate(&t);
    st_commit(&t);
    st_lease_release(&t, TR_LEASE_OURS);
    return t.st;
}

/* --- the repairs --- */

/* A repair's first three statements: its checks and the lease free, the lease taken, its checks
 * again under the lease (what3 heads the third). */
static void procedure_start(tr *t, const char *what3)
{
    st_lease_free(t, 1);
    st_lease_take(t, 2);
    P(t, "-- 3. %s\n", what3);
    check_statement(t, 3, checks_problem);
}

/* abandon's checks (statements 1 and 3): the load is not committed. */
static void abandon_checks(tr *t, int k)
{
    P(t, "if(");
    committed(t);
    P(t, ", concat('%s %d/%d: load ', " LOAD_TEXT ", ' is committed: a committed load is never abandoned (its "
         "versions are visible in order_v); nothing was done%s'), '')",
      t->name, k, t->n, kept(t, k));
}

/* ALTER TABLE D.TABLE [ON CLUSTER] DELETE WHERE _load_id = {load_id} AND not committed. */
static void delete_load(tr *t, const char *table, int on_cluster)
{
    P(t, "ALTER TABLE %s.%s", t->D, table);
    if (on_cluster)
        sqlw_on_cluster(&t->st, t->out, t->o);
    P(t, " DELETE WHERE _load_id = {load_id:String} AND ");
    not_committed(t);
    P(t, "\nSETTINGS mutations_sync = 2%s;\n\n", t->o->cluster ? ", allow_nondeterministic_mutations = 1" : "");
}

int ddl_abandon(FILE *out, const ddl_opts *o)
{
    tr t;
    tr_init(&t, out, o, "abandon", 11);
    t.checks = abandon_checks;
    P(&t, "-- ods-ddl abandon: removes what runs of an uncommitted load left (--param_load_id=ID), so the next "
          "load may run;\n-- its staged rows stay, and running its transition again starts it afresh. Run the %d "
          "statements in order.\n", t.n);
    procedure_start(&t, "the load is not committed");
    /* The seal goes last: until then the load stays frozen, so no other load starts before the
     * rest is gone, and a cut-short abandon is simply run again. */
    P(&t, "-- 4. its hot rows\n");
    delete_load(&t, "order_snapshot_hot", 1);
    P(&t, "-- 5. its error rows\n");
    delete_load(&t, "order_snapshot_errors", 1);
    P(&t, "-- 6. its stale records\n");
    delete_load(&t, "order_snapshot_stale", 1);
    P(&t, "-- 7. its fates\n");
    delete_load(&t, "order_fates", 0);
    P(&t, "-- 8. its manifest\n");
    delete_load(&t, "order_manifest", 0);
    P(&t, "-- 9. its seal\n");
    delete_load(&t, "order_frozen", 0);
    st_lease_release(&t, 10);
    return t.st;
}

/* take-back's checks (statements 1 and 3). A committed load goes back only while it is the
 * latest and its versions are still only in the hot table (the next transition's fold puts
 * them into _rep, where they can no longer be told from the rest), and while no other load is
 * open (its gate compared against this load's versions). A frozen load not committed is a
 * take-back cut short after its ledger row went: the rest goes as abandon removes it. */
static void take_back_checks(tr *t, int k)
{
    const char *D = t->D;
    first_open(t);
    P(t, "\n    if(");
    committed(t);
    P(t, " AND {load_id:String} != (SELECT argMax(_load_id, delta) FROM %s.%s),\n"
         "        concat('%s %d/%d: load ', " LOAD_TEXT ", ' is not the latest committed load (', (SELECT "
         "concat(argMax(_load_id, delta), ', delta ', toString(max(delta))) FROM %s.%s),\n"
         "            ' is): only the latest can be taken back, newest first; nothing was done%s'), ''),\n"
         "    if(",
      D, t->loads, t->name, k, t->n, D, t->loads, kept(t, k));
    committed(t);
    P(t, " AND (SELECT count() FROM %s.%s WHERE _load_id = {load_id:String}) > 0,\n"
         "        concat('%s %d/%d: the versions of load ', " LOAD_TEXT ", ' are already folded into %s.order_snapshot_rep "
         "(by the transition of a later load): it can no longer be taken back exactly; nothing was done%s'), ''),\n"
         "    if(",
      D, t->rep, t->name, k, t->n, D, kept(t, k));
    committed(t);
    P(t, " AND (SELECT count() FROM %s.order_frozen WHERE _load_id != {load_id:String} AND _load_id %sNOT IN (SELECT "
         "_load_id FROM %s.%s)) > 0,\n"
         "        concat('%s %d/%d: load ', (SELECT any(_load_id) FROM %s.order_frozen WHERE _load_id != {load_id:String} "
         "AND _load_id %sNOT IN (SELECT _load_id FROM %s.%s)),\n"
         "            ' is frozen and not committed: its run compared against this load''s versions; finish it (rerun "
         "its transition) and take it back first, or abandon it (ods-ddl abandon); nothing was done%s'), ''),\n"
         "    if(NOT ",
      D, t->g, D, t->loads, t->name, k, t->n, D, t->g, D, t->loads, kept(t, k));
    committed(t);
    P(t, " AND ");
    sealed(t, 0);
    P(t, ", concat('%s %d/%d: load ', " LOAD_TEXT ", ' is not committed: there is nothing to take back; nothing was "
         "done%s'), '')",
      t->name, k, t->n, kept(t, k));
    first_close(t);
}

int ddl_take_back(FILE *out, const ddl_opts *o)
{
    tr t;
    tr_init(&t, out, o, "take-back", 12);
    t.checks = take_back_checks;
    P(&t, "-- ods-ddl take-back: removes the latest committed load (--param_load_id=ID) while its versions are only "
          "in the hot table,\n-- so that order_v shows again what it showed before the load; its staged rows stay. "
          "Run the %d statements in order.\n", t.n);
    procedure_start(&t, "the load the latest committed, not folded, no other load open");
    /* The ledger row first: from then on order_v no longer shows the load (its hot rows count
     * only for committed loads), and a cut-short take-back is an uncommitted frozen load, whose
     * rest this procedure (or abandon) removes when run again. */
    P(&t, "-- 4. its ledger row: order_v shows the state before the load from here on\n"
          "ALTER TABLE %s.order_loads", t.D);
    sqlw_on_cluster(&t.st, t.out, o);
    P(&t, " DELETE WHERE _load_id = {load_id:String}\n"
          "  AND _load_id = (SELECT argMax(_load_id, delta) FROM %s.%s)\n"
          "  AND (SELECT count() FROM %s.%s WHERE _load_id = {load_id:String}) = 0\n"
          "SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;\n\n",
      t.D, t.loads, t.D, t.rep);
    P(&t, "-- 5. its hot rows\n");
    delete_load(&t, "order_snapshot_hot", 1);
    P(&t, "-- 6. its error rows\n");
    delete_load(&t, "order_snapshot_errors", 1);
    P(&t, "-- 7. its stale records\n");
    delete_load(&t, "order_snapshot_stale", 1);
    P(&t, "-- 8. its fates\n");
    delete_load(&t, "order_fates", 0);
    P(&t, "-- 9. its manifest\n");
    delete_load(&t, "order_manifest", 0);
    P(&t, "-- 10. its seal\n");
    delete_load(&t, "order_frozen", 0);
    st_lease_release(&t, 11);
    return t.st;
}

/* rebaseline's checks (statements 1 and 3): no load open, as its gate compared hashes of the
 * profile being replaced. */
static void rebaseline_checks(tr *t, int k)
{
    const char *D = t->D;
    P(t, "(SELECT if(count() = 0, '', concat('%s %d/%d: load ', any(_load_id), ' is frozen and not committed: its "
         "run compared hashes of the old profile; finish it (rerun its transition) or abandon it (ods-ddl abandon) "
         "first; nothing was done%s'))\n"
         "     FROM %s.order_frozen WHERE _load_id %sNOT IN (SELECT _load_id FROM %s.%s))",
      t->name, k, t->n, kept(t, k), D, t->g, D, t->loads);
}

int ddl_rebaseline(FILE *out, const ddl_opts *o)
{
    tr t;
    /* with a cluster the Distributed tables' defaults too: an INSERT through one fills a column
     * it does not name with the Distributed table's default */
    static const char *const tables[] = {"order_snapshot_rep", "order_snapshot_hot", "order_snapshot_dist",
                                         "order_snapshot_hot_dist"};
    int ndef = o->cluster ? 4 : 2;
    tr_init(&t, out, o, "rebaseline", 5 + ndef + 2);
    t.checks = rebaseline_checks;
    char *sql = ddl_hashdiff_sql();
    if (!sql)
        return DDL_EIO;
    P(&t, "-- ods-ddl rebaseline: moves the ODS to this version's hashdiff profile: recomputes _hashdiff of every "
          "stored version in place\n-- from its typed columns, then makes the profile the ODS's. Run the %d "
          "statements in order (--param_load_id=ID names the run in the lease), with no transition running.\n", t.n);
    procedure_start(&t, "no load open");
    /* The rows first, each once (a rerun takes what is left); the profile the transition checks
     * changes last, so a run cut short still refuses every transition. */
    for (int i = 0; i < 2; i++) {
        P(&t, "-- %d. %s: _hashdiff recomputed with this version's profile\nALTER TABLE %s.%s", 4 + i, tables[i], t.D,
          tables[i]);
        sqlw_on_cluster(&t.st, t.out, o);
        P(&t, " UPDATE _hashdiff = %s, _hashdiff_profile = ", sql);
        sqlw_quote(&t.st, t.out, t.profile);
        P(&t, "\nWHERE _hashdiff_profile != ");
        sqlw_quote(&t.st, t.out, t.profile);
        P(&t, "\nSETTINGS mutations_sync = 2;\n\n");
    }
    free(sql);
    for (int i = 0; i < ndef; i++) {
        P(&t, "-- %d. %s: this version's profile the ODS's (what the transition checks, what new versions record)\n"
              "ALTER TABLE %s.%s", 6 + i, tables[i], t.D, tables[i]);
        sqlw_on_cluster(&t.st, t.out, o);
        P(&t, " MODIFY COLUMN _hashdiff_profile LowCardinality(String) DEFAULT ");
        sqlw_quote(&t.st, t.out, t.profile);
        P(&t, ";\n\n");
    }
    st_lease_release(&t, 6 + ndef);
    return t.st;
}

/* move-late's checks (statements 1 and 3): the load is frozen, the new id is one, differs and
 * is neither frozen nor committed. */
static void move_checks(tr *t, int k)
{
    const char *D = t->D;
    first_open(t);
    P(t, "\n    if(");
    sealed(t, 0);
    P(t, " AND ");
    not_committed(t);
    P(t, ", concat('%s %d/%d: load ', " LOAD_TEXT ", ' is not frozen: nothing staged under it is late; run its "
         "transition%s'), ''),\n"
         "    if(NOT match({to_load_id:String}, '" DDL_LOAD_ID_RE "') OR {to_load_id:String} = "
         "{load_id:String},\n"
         "        concat('%s %d/%d: the new load id ''', replaceRegexpAll({to_load_id:String}, '[^ -~]', '?'), ''' "
         "is not a load id other than ', " LOAD_TEXT ", ' (1 to 128 of A-Z a-z 0-9 . _ : + / -); nothing was done%s'), ''),\n"
         "    if({to_load_id:String} IN (SELECT _load_id FROM %s.order_frozen) OR {to_load_id:String} %sIN (SELECT "
         "_load_id FROM %s.%s),\n"
         "        concat('%s %d/%d: load ', replaceRegexpAll({to_load_id:String}, '[^ -~]', '?'), ' is frozen "
         "already: choose a new load id; nothing was done%s'), '')",
      t->name, k, t->n, kept(t, k), t->name, k, t->n, kept(t, k), D, t->g, D, t->loads, t->name, k, t->n, kept(t, k));
    first_close(t);
}

int ddl_move_late(FILE *out, const ddl_opts *o)
{
    tr t;
    tr_init(&t, out, o, "move-late", 7);
    t.checks = move_checks;
    const char *S = t.S;
    P(&t, "-- ods-ddl move-late: the rows staged under a frozen load after its freeze (--param_load_id=ID) move "
          "to a new load\n-- (--param_to_load_id=NEW), coordinates and _load_ts kept; then run NEW's transition. "
          "Run the %d statements in order.\n", t.n);
    procedure_start(&t, "the load frozen, the new id new");
    /* Copy, then delete what was copied: cut short anywhere, it is run again and loses nothing.
     * A copy keeps its _load_ts and is marked 'L#n' (the n-th late row of L with its coordinates,
     * bytes and _load_ts), so a rerun copies exactly the marks not copied yet, even where the new
     * load holds the same message staged directly (that copy then counts there as redelivered),
     * and a late row staged after an earlier move of the same bytes (another _load_ts) is a row
     * of its own, not taken for that copy (soak seed 930943). */
    P(&t, "-- 4. the late rows copied to the new load (those not copied yet), each marked L#n in _moved\n"
          "INSERT INTO %s.orders_raw (raw, ", S);
    sqlw_meta_names(&t.st, t.out);
    P(&t, "_load_id, _load_ts, _moved)\nSELECT raw, ");
    sqlw_meta_names(&t.st, t.out);
    P(&t, "{to_load_id:String}, _load_ts, _m\nFROM (\n    SELECT raw, ");
    sqlw_meta_names(&t.st, t.out);
    P(&t, "_load_ts, _raw_hash,\n        concat({load_id:String}, '#', toString(row_number() OVER (PARTITION BY _topic, "
          "_partition, _offset, _raw_hash, _load_ts ORDER BY _timestamp, _key))) AS _m\n"
          "    FROM %s.orders_raw\n    WHERE _load_id = {load_id:String} AND ", S);
    not_in_manifest(&t);
    P(&t, ")\nWHERE (_topic, _partition, _offset, _raw_hash, _load_ts, _m) NOT IN (SELECT _topic, _partition, "
          "_offset, _raw_hash, _load_ts, _moved FROM %s.orders_raw WHERE startsWith(_moved, concat({load_id:String}, "
          "'#')))\n  AND ", S);
    guard(&t, 4, lease_only);
    P(&t, "\nSETTINGS insert_allow_materialized_columns = 1");
    /* a late row goes once all copies of its coordinates, bytes and _load_ts are copied: rows
     * staged between 4 and 5 keep theirs (and the next move-late takes them) */
    P(&t, ";\n\n-- 5. the copied rows removed from the frozen load\n"
          "ALTER TABLE %s.orders_raw DELETE WHERE _load_id = {load_id:String} AND ", S);
    not_in_manifest(&t);
    P(&t, "\n  AND (_topic, _partition, _offset, _raw_hash, _load_ts) IN (\n    SELECT _topic, _partition, _offset, "
          "_raw_hash, _load_ts FROM %s.orders_raw\n    WHERE (_load_id = {load_id:String} AND ", S);
    not_in_manifest(&t);
    P(&t, ") OR startsWith(_moved, concat({load_id:String}, '#'))\n"
          "    GROUP BY _topic, _partition, _offset, _raw_hash, _load_ts HAVING countIf(_load_id = {load_id:String}) <= "
          "countIf(_load_id != {load_id:String}))\n"
          "SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;\n\n");
    st_lease_release(&t, 6);
    return t.st;
}
