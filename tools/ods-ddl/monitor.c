/* monitor: the status of every load (staged, running, failed, committed, late rows) as one
 * query, and the check built on it that fails when a load needs a person. */
#include "monitor.h"

#include "profile.h"
#include "sqlw.h"

/* The status query's body: a SELECT of one row per load id with a column `problem` ('' when
 * the load needs nobody) ahead of the verdict; lim NULL: no thresholds (status only). */
static void status_select(int *st, FILE *out, const ddl_opts *o, const ddl_check_limits *lim)
{
    const char *S = o->stg_db, *D = o->ods_db;
    const char *loads = sqlw_target(o, "order_loads", "order_loads_dist");
    const char *hot = sqlw_target(o, "order_snapshot_hot", "order_snapshot_hot_dist");
    const char *g = o->cluster ? "GLOBAL " : "";
    /* staging, the manifest, the seal and the lease live on the node that runs the transition
     * (run this there); the ledger and the hot rows are read through the cluster */
    sqlw_put(st, out,
        "SELECT _load_id AS load_id, ifNull(s.staged, 0) AS staged, s.first_staged, s.last_staged, f.frozen_at,\n"
        "    ifNull(lt.late, 0) AS late_rows, ls.since AS running_since, ifNull(h.hot, 0) AS uncommitted_hot_rows,\n"
        "    l.delta, l.committed_at, l.received, l.redelivered, l.accepted, l.rejected, l.stored, l.unchanged, l.stale,\n"
        "    l.delta IS NOT NULL AS committed,\n"
        "    committed AND (l.received != l.accepted + l.rejected + l.redelivered\n"
        "                   OR l.accepted != l.stored + l.unchanged + l.stale) AS ledger_broken,\n"
        "    multiIf(ledger_broken, 'the ledger row does not add up: report it, keep the load''s tables',\n"
        "            late_rows > 0, concat(toString(late_rows), ' rows staged after the freeze: ods-ddl move-late to a "
        "new load id, then run both'),\n"
        "            running_since IS NOT NULL AND committed, 'committed, but still holds the lease: a run died after "
        "its commit; clear the lease once none runs',\n");
    if (lim)
        sqlw_put(st, out,
        "            running_since IS NOT NULL AND running_since < now64(3, 'UTC') - toIntervalHour(%u), "
        "'running for more than %u hours: a run that died? clear the lease once none runs, then rerun',\n"
        "            NOT committed AND ifNull(s.first_staged, f.frozen_at) < now64(3, 'UTC') - toIntervalHour(%u), "
        "'not committed %u hours after its staging: run it (ods-load), or abandon it (ods-ddl abandon)',\n"
        "            committed AND l.rejected * 100 > l.received * %u, concat('rejected ', toString(l.rejected), ' of ', "
        "toString(l.received), ' messages (more than %u %%): look at ', '%s', '.order_snapshot_errors'),\n",
            lim->max_open_hours, lim->max_open_hours, lim->max_open_hours, lim->max_open_hours,
            lim->max_reject_pct, lim->max_reject_pct, D);
    sqlw_put(st, out,
        "            '') AS problem,\n"
        "    multiIf(problem != '', problem, committed, 'committed', running_since IS NOT NULL, 'running',\n"
        "            f.frozen_at IS NOT NULL OR uncommitted_hot_rows > 0, 'failed: rerun it (ods-load), or abandon it "
        "(ods-ddl abandon)',\n"
        "            'staged, not run yet') AS verdict\n"
        "FROM (SELECT _load_id FROM %s.orders_raw UNION DISTINCT SELECT _load_id FROM %s.order_frozen\n"
        "      UNION DISTINCT SELECT _load_id FROM %s.%s UNION DISTINCT SELECT _load_id FROM %s.order_lease_v\n"
        "      UNION DISTINCT SELECT _load_id FROM %s.%s) AS ids\n"
        "LEFT JOIN (SELECT _load_id, count() AS staged, min(_load_ts) AS first_staged, max(_load_ts) AS last_staged\n"
        "           FROM %s.orders_raw GROUP BY _load_id) AS s USING (_load_id)\n"
        "LEFT JOIN (SELECT _load_id, min(frozen_at) AS frozen_at FROM %s.order_frozen GROUP BY _load_id) AS f "
        "USING (_load_id)\n"
        "LEFT JOIN (SELECT _load_id, count() AS late FROM %s.orders_raw\n"
        "           WHERE _load_id IN (SELECT _load_id FROM %s.order_frozen)\n"
        "             AND (_load_id, _topic, _partition, _offset, _raw_hash) NOT IN\n"
        "                 (SELECT _load_id, _topic, _partition, _offset, _raw_hash FROM %s.order_manifest)\n"
        "           GROUP BY _load_id) AS lt USING (_load_id)\n"
        "LEFT JOIN (SELECT _load_id, min(since) AS since FROM %s.order_lease_v GROUP BY _load_id) AS ls "
        "USING (_load_id)\n"
        "LEFT JOIN (SELECT _load_id, count() AS hot FROM %s.%s WHERE _load_id %sNOT IN (SELECT _load_id FROM %s.%s)\n"
        "           GROUP BY _load_id) AS h USING (_load_id)\n"
        "LEFT JOIN (SELECT * FROM %s.%s) AS l USING (_load_id)\n",
        S, D, D, loads, D, D, hot, S, D, S, D, D, D, D, hot, g, D, loads, D, loads);
    sqlw_put(st, out, "ORDER BY l.delta IS NULL, l.delta, s.first_staged, load_id\n"
                      "SETTINGS join_use_nulls = 1");
}

int ddl_status(FILE *out, const ddl_opts *o)
{
    int st = 0;
    sqlw_put(&st, out, "-- ods-ddl status: every load id, its state and a verdict (run it where the transition runs)\n");
    status_select(&st, out, o, NULL);
    sqlw_put(&st, out, ";\n");
    return st;
}

int ddl_check(FILE *out, const ddl_opts *o, const ddl_check_limits *lim)
{
    int st = 0;
    sqlw_put(&st, out, "-- ods-ddl check: fails naming every load that needs a person (not committed %u hours after "
                       "staging, running that long,\n-- late rows, more than %u %% rejected, a ledger that does not add "
                       "up); prints nothing when none does\n", lim->max_open_hours, lim->max_reject_pct);
    /* throwIf takes its message as a constant: the scalar subquery makes it one */
    sqlw_put(&st, out, "WITH (SELECT if(count() = 0, '', concat('ods check: ', toString(count()), ' problem(s) need a "
                       "person: ', arrayStringConcat(groupArray(concat(load_id, ': ', problem)), '; ')))\nFROM (\n"
                       "SELECT load_id, problem FROM (\n");
    status_select(&st, out, o, lim);
    /* the ODS as a whole: hashed with this version's profile, or the next load fails */
    const char *p = ddl_hashdiff_profile();
    if (!p)
        return DDL_EIO;
    sqlw_put(&st, out, "\n)\nUNION ALL\nSELECT 'the ODS', multiIf(_same, '',\n    _n = 0, 'its schema records no hashdiff "
                       "profile: ods-ddl migrate before the next load',\n    concat('its versions are hashed with ', "
                       "_have, ', this version hashes with ', ");
    sqlw_quote(&st, out, p);
    sqlw_put(&st, out, ", ': ods-ddl rebaseline before the next load (every transition refuses until then)'))\nFROM ");
    ddl_profile_read(&st, out, o->ods_db);
    sqlw_put(&st, out, "\n)\nWHERE problem != '') AS _p\nSELECT throwIf(_p != '', _p)\nFORMAT Null;\n");
    return st;
}

