/* transition: the twelve statements that move one load from staging into the ODS (a lease, the
 * freeze, housekeeping, fold, both branches, the commit), and the procedures around them. */
#include "transition.h"

#include <stdio.h>
#include <string.h>

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
typedef struct {
    FILE *out;
    int st;
    const ddl_opts *o;
    const char *S, *D;          /* staging and ODS databases */
    const char *rep, *hot, *errs, *loads, *stale; /* targets: _dist tables with --cluster */
    const char *g;              /* "GLOBAL " with --cluster: sets built once, on the initiator */
    const char *name;           /* what runs: "transition", "abandon", "move-late" */
    int n;                      /* its number of statements: messages say "name k/n: " */
    int staging_first;          /* the transition: statement 1 checks the staging too, so a load
                                 * that cannot be frozen fails before taking the lease */
    char kept[192];             /* see kept() */
} tr;

#define P(t, ...) sqlw_put(&(t)->st, (t)->out, __VA_ARGS__)

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
    snprintf(t->kept, sizeof t->kept, ". This run keeps the lease: once it has stopped, clear it "
             "(DROP TABLE IF EXISTS %s.order_lease) first", t->D);
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

/* Rows staged under the load after its freeze (a sealed or committed load). */
static void late_problem(tr *t, int k)
{
    P(t, "(SELECT if(_late = 0, '', concat('%s %d/%d: ', toString(_late), ' rows were staged under load ', "
         LOAD_TEXT ",\n"
         "            ' after it was frozen (', ifNull((SELECT toString(any(frozen_at)) FROM %s.order_frozen "
         "WHERE _load_id = {load_id:String}), '?'),\n"
         "            ' UTC): they are not part of it and would be lost. Move them to a new load id (ods-ddl "
         "move-late) and run that load; this run wrote nothing%s'))\n"
         "        FROM (SELECT count() AS _late FROM %s.orders_raw WHERE _load_id = {load_id:String} AND ",
      t->name, k, t->n, t->D, kept(t, k), t->S);
    not_in_manifest(t);
    P(t, "))");
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

/* A statement that only checks: fails with fn's message, prints nothing. */
static void check_statement(tr *t, int k, problem_fn *fn)
{
    P(t, "WITH (SELECT ");
    fn(t, k);
    P(t, ") AS _p\nSELECT throwIf(ifNull(_p, '') != '', _p)\nFORMAT Null;\n\n");
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

static void staging_checks(tr *t, int k);

/* 1: the load id is one, and nobody holds the lease. */
static void lease_free_problem(tr *t, int k)
{
    first_open(t);
    P(t, "if(NOT match({load_id:String}, '^[A-Za-z0-9][A-Za-z0-9._:+/-]{0,127}$'),\n"
         "        concat('%s %d/%d: ''', " LOAD_TEXT ", ''' is no load id: 1 to 128 characters of "
         "A-Z a-z 0-9 . _ : + / -, the first a letter or digit. Pass the id the batch was staged under "
         "(--param_load_id=ID); nothing was done'), ''),\n"
         "    (SELECT if(count() = 0, '', concat('%s %d/%d: the lease is held by load ', any(_load_id), ' since ', "
         "toString(any(since)),\n"
         "        ' UTC: another transition is running, or one died. Nothing was done. When none is running, "
         "clear it with: DROP TABLE IF EXISTS %s.order_lease; then rerun')) FROM %s.order_lease_v)",
      t->name, k, t->n, t->name, k, t->n, t->D, t->D);
    if (t->staging_first) {
        P(t, ",\n    ");
        staging_checks(t, k);
    }
    first_close(t);
}

static void st_lease_free(tr *t, int k)
{
    P(t, "-- %d. the load id checked and the lease free (else the holder is named)%s\n", k,
      t->staging_first ? "; the staging checked as in statement 3, so a load that cannot run leaves no lease" : "");
    check_statement(t, k, lease_free_problem);
}

/* 2: the lease itself. A CREATE of an existing table fails, so of two runs past statement 1 at
 * the same moment one fails here. */
static void st_lease_take(tr *t, int k)
{
    P(t, "-- %d. the lease taken: one transition (or repair) at a time, whatever its load, until statement %d\n"
         "CREATE TABLE %s.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, now64(3, 'UTC') AS since;\n\n",
      k, t->n, t->D);
}

/* 3: nothing is written when the load cannot be frozen exactly. */
static void staging_checks(tr *t, int k)
{
    const char *S = t->S, *D = t->D;
    P(t, "if(");
    sealed(t, 1);
    P(t, " OR ");
    committed(t);
    P(t, ", ");
    late_problem(t, k);
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
         "         FROM (SELECT _topic, _partition, _offset FROM %s.orders_raw WHERE _load_id = {load_id:String}\n"
         "               GROUP BY _topic, _partition, _offset HAVING min(_raw_hash) != max(_raw_hash)\n"
         "               ORDER BY _topic, _partition, _offset)),\n",
      t->name, k, t->n, S, kept(t, k), S);
    P(t, "    (SELECT if(count() = 0, '', concat('%s %d/%d: load ', any(_load_id), ' is frozen and not committed "
         "(since ', toString(any(frozen_at)), ' UTC): loads commit one after another. Finish it first (rerun its "
         "transition), or abandon it (ods-ddl abandon); then run load ', " LOAD_TEXT ", '. Nothing was done%s'))\n"
         "         FROM %s.order_frozen WHERE _load_id != {load_id:String} AND _load_id %sNOT IN (SELECT _load_id "
         "FROM %s.%s))",
      t->name, k, t->n, kept(t, k), D, t->g, D, t->loads);
    first_close(t);
    P(t, ")");
}

/* 3: the same checks, now under the lease: between statement 1 and the lease, another run may
 * have frozen a load or staging may have changed. */
static void staging_problem(tr *t, int k)
{
    first_open(t);
    lease_problem(t, k);
    P(t, ",\n    ");
    staging_checks(t, k);
    first_close(t);
}

static void st_staging(tr *t)
{
    P(t, "-- %d. the staging checked before anything is written: rows staged, coordinates unique, no other load "
         "open; a frozen load: nothing staged after its freeze\n", TR_STAGING);
    check_statement(t, TR_STAGING, staging_problem);
}

/* 4: the load frozen: one row per message (Kafka coordinates; of copies, the first received),
 * classified and typed once. A freeze cut short is completed by the rerun (coordinates already
 * in the manifest are skipped); it is final only once sealed (5). */
static void st_freeze(tr *t)
{
    const char *S = t->S, *D = t->D;
    int udf = !t->o->typing_sql;
    P(t, "-- %d. the load frozen: each staged message once (the first received of its copies), classified%s, "
         "into the manifest\nINSERT INTO %s.order_manifest (_load_id, ",
      TR_FREEZE, udf ? " and typed by one order_wire_parse call" : "", D);
    sqlw_meta_names(&t->st, t->out);
    P(t, "_load_ts, _raw_hash, error_class, raw");
    if (udf)
        for (size_t i = 0; i < WIRE_NFIELDS; i++)
            P(t, ", %s", WIRE_FIELDS[i].name);
    P(t, ")\nSELECT _load_id, ");
    sqlw_meta_names(&t->st, t->out);
    if (udf) {
        /* raw is kept for rejected messages only: the errors table takes them from here */
        P(t, "_load_ts, _raw_hash, _w.class, if(_w.class != '', raw, '')");
        for (size_t i = 0; i < WIRE_NFIELDS; i++)
            P(t, ", _w.%s", WIRE_FIELDS[i].name);
        P(t, "\nFROM (SELECT *, order_wire_parse(raw) AS _w FROM\n");
    } else {
        P(t, "_load_ts, _raw_hash, order_wire_class(raw), raw\nFROM (\n");
    }
    P(t, "    (SELECT raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts, _raw_hash FROM %s.orders_raw\n"
         "     WHERE _load_id = {load_id:String} AND ",
      S);
    sealed(t, 0);
    P(t, " AND ");
    not_committed(t);
    P(t, "\n       AND ");
    guard(t, TR_FREEZE, lease_only);
    P(t, "\n       AND (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset FROM %s.order_manifest "
         "WHERE _load_id = {load_id:String})\n"
         "     ORDER BY _topic, _partition, _offset, _load_ts\n"
         "     LIMIT 1 BY _topic, _partition, _offset));\n\n",
      D);
}

/* 5: the seal. Refused when a row was staged while the manifest was being written (the rerun
 * takes it in) or the manifest holds a message twice. */
static void seal_problem(tr *t, int k)
{
    first_open(t);
    lease_problem(t, k);
    P(t, ",\n        if(");
    sealed(t, 1);
    P(t, " OR ");
    committed(t);
    P(t, ", '', ");
    first_open(t);
    P(t, "\n        if((SELECT count() FROM %s.orders_raw WHERE _load_id = {load_id:String} AND ", t->S);
    not_in_manifest(t);
    P(t, ") > 0,\n"
         "            concat('%s %d/%d: rows were staged under load ', " LOAD_TEXT ", ' while it was being "
         "frozen, or differ from the bytes frozen at their coordinates: rerun the transition from statement 1 "
         "to take them in (nothing is committed yet)%s'), ''),\n"
         "        if((SELECT count() != uniqExact(_topic, _partition, _offset) FROM %s.order_manifest WHERE _load_id = "
         "{load_id:String}),\n"
         "            concat('%s %d/%d: the manifest of load ', " LOAD_TEXT ", ' holds a message twice "
         "(two runs froze it at once?): abandon the load (ods-ddl abandon) and rerun it%s'), '')",
      t->name, k, t->n, kept(t, k), t->D, t->name, k, t->n, kept(t, k));
    first_close(t);
    P(t, ")");
    first_close(t);
}

static void st_seal(tr *t)
{
    const char *S = t->S, *D = t->D;
    P(t, "-- %d. the freeze sealed: from here on the load is its manifest, and staging is only checked\n"
         "INSERT INTO %s.order_frozen (_load_id, frozen_at, staged, messages)\n"
         "SELECT {load_id:String}, now64(3, 'UTC'), s.n, m.n\n"
         "FROM (SELECT count() AS n FROM %s.orders_raw WHERE _load_id = {load_id:String}) AS s,\n"
         "     (SELECT count() AS n FROM %s.order_manifest WHERE _load_id = {load_id:String}) AS m\n"
         "WHERE ",
      TR_SEAL, D, S, D);
    sealed(t, 0);
    P(t, " AND ");
    not_committed(t);
    P(t, "\n  AND ");
    guard(t, TR_SEAL, seal_problem);
    P(t, ";\n\n");
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
    P(t, "_load_id, _load_ts)%s\nSELECT raw, error_class, ",
      t->o->cluster ? "\nSETTINGS distributed_foreground_insert = 1" : "");
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

/* The typed columns of the load's accepted messages (from the manifest, or typed by SQL from its
 * raw), _hashdiff over their canonical texts, the load and the Kafka coordinates. */
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
    P(t, "%shashdiff_strict(", ind);
    if (!t->st)
        t->st = ddl_hashdiff_args(t->out);
    P(t, ") AS _hashdiff,\n%s_load_id,\n%s_load_ts,\n%s_topic,\n%s_partition,\n%s_offset\n", ind, ind, ind, ind, ind);
}

/* 9: the good branch through the gate (store changes), or into the hot table (--store every). */
static void st_gate(tr *t)
{
    const char *D = t->D;
    int every = t->o->store_every;
    P(t, "-- %d. accepted versions, typed, from the manifest into the hot table (not visible before the commit)%s\n"
         "INSERT INTO %s.%s (",
      TR_GATE, every ? "" : " through the gate; stale messages into order_snapshot_stale", D,
      every ? t->hot : "order_gate");
    sqlw_store_names(&t->st, t->out);
    P(t, "%s)\n", every ? "" : ", _topic, _partition, _offset, _fate");
    if (t->o->cluster && every)
        P(t, "SETTINGS distributed_foreground_insert = 1\n");
    else if (!every)
        P(t, "SETTINGS %sjoin_use_nulls = 0\n", t->o->cluster ? "distributed_foreground_insert = 1, " : "");
    if (every) {
        P(t, "SELECT ");
        sqlw_store_names(&t->st, t->out);
        P(t, "\nFROM\n(\n    SELECT\n");
        typed_items(t, "        ");
        P(t, "    FROM %s.order_manifest\n    WHERE _load_id = {load_id:String} AND NOT (" BAD ")\n      AND ", D);
        not_committed(t);
        P(t, "\n      AND ");
        guard(t, TR_GATE, sealed_problem);
        P(t, "\n);\n\n");
        return;
    }
    /* Store only changes (docs/schema.md, "Store only changes"). Per order, the load's versions
     * line up after the prior, what order_v shows while the load is not committed; one version
     * per updated_at within a load (the first received); stored when it differs from the prior
     * and is not older; older ones are stale, recorded once by their coordinates. _mine: what
     * an earlier run of this load stored, not stored again. No other load can commit between
     * this load's freeze and its commit (statement 3), so every run of this load sees the same
     * prior. The ODS is read for the load's own order_ids only; both joined sides carry the
     * ledger guard (a hash join builds its right side whatever the left holds). */
    P(t, "SELECT ");
    sqlw_store_names(&t->st, t->out);
    P(t, ", _topic, _partition, _offset,\n"
         "    multiIf(_receipt = 1 AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND "
         "_hashdiff != _prior_hashdiff))\n"
         "              AND NOT has(_mine, (updated_at, _hashdiff)), 'stored',\n"
         "            _has_prior AND updated_at < _prior_updated_at AND NOT has(_mine.1, updated_at)\n"
         "              AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, _offset "
         "FROM %s.%s WHERE _load_id = {load_id:String}), 'stale',\n"
         "            '') AS _fate\n"
         "FROM\n(\n"
         "    SELECT *,\n"
         "        row_number() OVER (PARTITION BY order_id, updated_at "
         "ORDER BY _load_ts, _topic, _partition, _offset) AS _receipt\n"
         "    FROM\n    (\n        SELECT\n",
      t->g, D, t->stale);
    typed_items(t, "            ");
    P(t, "        FROM %s.order_manifest\n"
         "        WHERE _load_id = {load_id:String} AND NOT (" BAD ")\n          AND ",
      D);
    not_committed(t);
    P(t, "\n          AND ");
    guard(t, TR_GATE, sealed_problem);
    P(t, "\n    )\n) AS l\n"
         "LEFT JOIN\n(\n"
         "    SELECT order_id, 1 AS _has_prior, updated_at AS _prior_updated_at, _hashdiff AS _prior_hashdiff\n"
         "    FROM %s.order_v\n"
         "    WHERE order_id %sIN (SELECT ",
      D, t->g);
    if (t->o->typing_sql) {
        const wire_field *f = wire_field_by_name("order_id", 8);
        if (!t->st && f)
            t->st = ddl_extract(t->out, f);
    } else {
        P(t, "order_id");
    }
    P(t, " FROM %s.order_manifest WHERE _load_id = {load_id:String} AND NOT (" BAD ") AND ", D);
    not_committed(t);
    P(t, ")\n      AND ");
    not_committed(t);
    P(t, "\n) AS o USING (order_id)\n"
         "LEFT JOIN\n(\n"
         "    SELECT order_id, groupArray((updated_at, _hashdiff)) AS _mine\n"
         "    FROM %s.%s\n"
         "    WHERE _load_id = {load_id:String}\n      AND ",
      D, t->hot);
    not_committed(t);
    P(t, "\n    GROUP BY order_id\n) AS m USING (order_id)\n"
         "WHERE _fate != ''\n"
         "LIMIT 1 BY _topic, _partition, _offset;\n\n");
}

/* The commit's checks: the ledger row it writes must add up against the tables themselves. */
static void commit_problem(tr *t, int k)
{
    const char *D = t->D;
    first_open(t);
    sealed_problem(t, k);
    P(t, ",\n        if(");
    committed(t);
    P(t, ", '', ");
    first_open(t);
    late_problem(t, k);
    /* The manifest against the seal, the errors table against the manifest's rejected messages
     * (class by class), stored and stale rows unique and within the accepted ones. */
    P(t, ",\n        (SELECT if(_sums = '', '', concat('%s %d/%d: the ledger row of load ', " LOAD_TEXT ",\n"
         "            ' would not add up: ', _sums, 'nothing was committed. Abandon the load (ods-ddl abandon) and "
         "rerun it, and report this: a bug or a second writer%s'))\n"
         "         FROM (SELECT concat(\n"
         "            if(m.n != f.messages, concat('the manifest holds ', toString(m.n), ' messages, the seal ', "
         "toString(f.messages), '; '), ''),\n"
         "            if(e.n != m.rej OR e.u != e.n",
      t->name, k, t->n, kept(t, k));
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, " OR e.c%zu != m.c%zu", i, i);
    P(t, ", concat('the errors table holds ', toString(e.n), ' rows of the load (', toString(e.u), "
         "' distinct), the manifest ', toString(m.rej), ' rejected messages; '), ''),\n"
         "            if(%s, concat(toString(s.n - s.u), ' stored versions twice; '), ''),\n"
         "            if(x.n != x.u, concat(toString(x.n - x.u), ' stale messages recorded twice; '), ''),\n"
         "            if(s.n + x.n > m.acc, concat(toString(s.n), ' stored and ', toString(x.n), ' stale exceed ', "
         "toString(m.acc), ' accepted; '), '')) AS _sums\n"
         "         FROM (SELECT count() AS n, countIf(error_class = '') AS acc, countIf(error_class != '') AS rej",
      /* --store every stores every copy of a version: only the gate's are unique */
      t->o->store_every ? "0" : "s.n != s.u");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, ", countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
    P(t, "\n               FROM %s.order_manifest WHERE _load_id = {load_id:String}) AS m,\n"
         "              (SELECT ifNull(any(messages), 0) AS messages FROM %s.order_frozen WHERE _load_id = {load_id:String}) AS f,\n"
         "              (SELECT count() AS n, uniqExact(_topic, _partition, _offset) AS u",
      D, D);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, ", countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
    P(t, " FROM %s.%s WHERE _load_id = {load_id:String}) AS e,\n"
         "              (SELECT count() AS n, uniqExact(order_id, updated_at) AS u FROM %s.%s WHERE _load_id = {load_id:String}) AS s,\n"
         "              (SELECT count() AS n, uniqExact(_topic, _partition, _offset) AS u FROM %s.%s WHERE _load_id = {load_id:String}) AS x))",
      D, t->errs, D, t->hot, D, t->stale);
    first_close(t);
    P(t, ")");
    first_close(t);
}

/* 10: the commit: one ledger row, the next delta, with figures counted from the tables. */
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
    /* unchanged is accepted - stored - stale only once the check has shown stored + stale <=
     * accepted; the ledger's columns are UInt64 and a wrapped figure would be a lie */
    P(t, ")\nSELECT (SELECT max(delta) FROM %s.%s) + 1, {load_id:String}, now64(3, 'UTC'),\n"
         "    f.staged, f.staged - f.messages, m.acc, s.n, m.acc - s.n - x.n, x.n, m.rej",
      D, t->loads);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, ", m.c%zu", i);
    P(t, "\nFROM (SELECT staged, messages FROM %s.order_frozen WHERE _load_id = {load_id:String} LIMIT 1) AS f,\n"
         "    (SELECT countIf(error_class = '') AS acc, countIf(error_class != '') AS rej",
      D);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        P(t, ", countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
    P(t, " FROM %s.order_manifest WHERE _load_id = {load_id:String}) AS m,\n"
         "    (SELECT count() AS n FROM %s.%s WHERE _load_id = {load_id:String}) AS s,\n",
      D, D, t->hot);
    if (t->o->store_every)
        P(t, "    (SELECT toUInt64(0) AS n) AS x\n");
    else
        P(t, "    (SELECT count() AS n FROM %s.%s WHERE _load_id = {load_id:String}) AS x\n", D, t->stale);
    P(t, "WHERE ");
    not_committed(t);
    P(t, "\n  AND ");
    guard(t, TR_COMMIT, commit_problem);
    P(t, ";\n\n");
}

/* 11 and 12: the lease released, by its holder only (a run that lost it must not drop another
 * run's). */
static void st_lease_release(tr *t, int k)
{
    P(t, "-- %d. the lease still this run's\n", k);
    check_statement(t, k, lease_only);
    P(t, "-- %d. the lease released\nDROP TABLE %s.order_lease;\n", k + 1, t->D);
}

int ddl_transition(FILE *out, const ddl_opts *o)
{
    tr t;
    tr_init(&t, out, o, "transition", TR_N);
    t.staging_first = 1;
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

/* abandon 3: the load is not committed (an error), and the lease this run's. */
static void abandon_problem(tr *t, int k)
{
    first_open(t);
    lease_problem(t, k);
    P(t, ",\n    if(");
    committed(t);
    P(t, ", concat('%s %d/%d: load ', " LOAD_TEXT ", ' is committed: a committed load is never abandoned (its "
         "versions are visible in order_v); nothing was done'), '')",
      t->name, k, t->n);
    first_close(t);
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
    tr_init(&t, out, o, "abandon", 10);
    P(&t, "-- ods-ddl abandon: removes what runs of an uncommitted load left (--param_load_id=ID), so the next "
          "load may run;\n-- its staged rows stay, and running its transition again starts it afresh. Run the %d "
          "statements in order.\n", t.n);
    st_lease_free(&t, 1);
    st_lease_take(&t, 2);
    P(&t, "-- 3. the load is not committed\n");
    check_statement(&t, 3, abandon_problem);
    /* The seal goes last: until then the load stays frozen, so no other load starts before the
     * rest is gone, and a cut-short abandon is simply run again. */
    P(&t, "-- 4. its hot rows\n");
    delete_load(&t, "order_snapshot_hot", 1);
    P(&t, "-- 5. its error rows\n");
    delete_load(&t, "order_snapshot_errors", 1);
    P(&t, "-- 6. its stale records\n");
    delete_load(&t, "order_snapshot_stale", 1);
    P(&t, "-- 7. its manifest\n");
    delete_load(&t, "order_manifest", 0);
    P(&t, "-- 8. its seal\n");
    delete_load(&t, "order_frozen", 0);
    st_lease_release(&t, 9);
    return t.st;
}

/* move-late 3: the load is frozen, the new id is one, differs and is neither frozen nor
 * committed, and the lease is this run's. */
static void move_problem(tr *t, int k)
{
    const char *D = t->D;
    first_open(t);
    lease_problem(t, k);
    P(t, ",\n    if(");
    sealed(t, 0);
    P(t, " AND ");
    not_committed(t);
    P(t, ", concat('%s %d/%d: load ', " LOAD_TEXT ", ' is not frozen: nothing staged under it is late; run its "
         "transition'), ''),\n"
         "    if(NOT match({to_load_id:String}, '^[A-Za-z0-9][A-Za-z0-9._:+/-]{0,127}$') OR {to_load_id:String} = "
         "{load_id:String},\n"
         "        concat('%s %d/%d: the new load id ''', replaceRegexpAll({to_load_id:String}, '[^ -~]', '?'), ''' "
         "is not a load id other than ', " LOAD_TEXT ", ' (1 to 128 of A-Z a-z 0-9 . _ : + / -); nothing was done'), ''),\n"
         "    if({to_load_id:String} IN (SELECT _load_id FROM %s.order_frozen) OR {to_load_id:String} %sIN (SELECT "
         "_load_id FROM %s.%s),\n"
         "        concat('%s %d/%d: load ', replaceRegexpAll({to_load_id:String}, '[^ -~]', '?'), ' is frozen "
         "already: choose a new load id; nothing was done'), '')",
      t->name, k, t->n, t->name, k, t->n, D, t->g, D, t->loads, t->name, k, t->n);
    first_close(t);
}

int ddl_move_late(FILE *out, const ddl_opts *o)
{
    tr t;
    tr_init(&t, out, o, "move-late", 7);
    const char *S = t.S;
    P(&t, "-- ods-ddl move-late: the rows staged under a frozen load after its freeze (--param_load_id=ID) move "
          "to a new load\n-- (--param_to_load_id=NEW), coordinates and _load_ts kept; then run NEW's transition. "
          "Run the %d statements in order.\n", t.n);
    st_lease_free(&t, 1);
    st_lease_take(&t, 2);
    P(&t, "-- 3. the load frozen, the new id new\n");
    check_statement(&t, 3, move_problem);
    /* Copy, then delete what was copied: cut short anywhere, it is run again and loses nothing. */
    P(&t, "-- 4. the late rows copied to the new load (those not copied yet)\n"
          "INSERT INTO %s.orders_raw (raw, ", S);
    sqlw_meta_names(&t.st, t.out);
    P(&t, "_load_id, _load_ts)\nSELECT raw, ");
    sqlw_meta_names(&t.st, t.out);
    P(&t, "{to_load_id:String}, _load_ts\nFROM %s.orders_raw\nWHERE _load_id = {load_id:String} AND ", S);
    not_in_manifest(&t);
    P(&t, "\n  AND (_topic, _partition, _offset, _raw_hash) NOT IN (SELECT _topic, _partition, _offset, "
          "_raw_hash FROM %s.orders_raw WHERE _load_id = {to_load_id:String})\n  AND ", S);
    guard(&t, 4, lease_only);
    P(&t, ";\n\n-- 5. the copied rows removed from the frozen load\n"
          "ALTER TABLE %s.orders_raw DELETE WHERE _load_id = {load_id:String} AND ", S);
    not_in_manifest(&t);
    P(&t, "\n  AND (_topic, _partition, _offset, _raw_hash) IN (SELECT _topic, _partition, _offset, "
          "_raw_hash FROM %s.orders_raw WHERE _load_id = {to_load_id:String})\n"
          "SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;\n\n", S);
    st_lease_release(&t, 6);
    return t.st;
}
