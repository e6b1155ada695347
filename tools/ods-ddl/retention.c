/* retention: which partitions may go, decided by the engine at run time from the ledger and
 * the manifests (a partition id is known only there), printed as statements to run next. */
#include "retention.h"

#include "sqlw.h"

int ddl_retention(FILE *out, const ddl_opts *o, unsigned keep_days)
{
    int st = 0;
    const char *S = o->stg_db, *D = o->ods_db;
    const char *loads = sqlw_target(o, "order_loads", "order_loads_dist");
    const char *errs = sqlw_target(o, "order_snapshot_errors", "order_snapshot_errors_dist");
    const char *stale = sqlw_target(o, "order_snapshot_stale", "order_snapshot_stale_dist");
    const char *g = o->cluster ? "GLOBAL " : "";
    sqlw_put(&st, out, "-- ods-ddl retention: prints the statements that drop what loads committed more than %u days "
                       "ago left in staging,\n-- the errors, the manifest, the fates and the stale records (never _rep, "
                       "the hot table, the ledger or a load not committed).\n-- Run it where the transition runs, then "
                       "run what it printed, e.g.: clickhouse-client --queries-file retention.sql | "
                       "clickhouse-client\n", keep_days);
    /* old: committed long enough ago. A staged row may go when its load is old and the row is in
     * the load's manifest (a late row is not part of the load: it waits for move-late). A load's
     * manifest, fates and stale records go once none of its staged rows is left. */
    sqlw_put(&st, out,
        "WITH old AS (SELECT _load_id FROM %s.%s WHERE committed_at < now64(3, 'UTC') - toIntervalDay(%u)),\n"
        "     stg_parts AS (\n"
        "         SELECT _partition_id AS pid,\n"
        "                countIf(_load_id %sNOT IN old OR (_load_id, _topic, _partition, _offset, _raw_hash) NOT IN\n"
        "                        (SELECT _load_id, _topic, _partition, _offset, _raw_hash FROM %s.order_manifest\n"
        "                         WHERE _load_id %sIN old)) AS kept_rows\n"
        "         FROM %s.orders_raw GROUP BY pid),\n"
        "     staying AS (SELECT DISTINCT _load_id FROM %s.orders_raw\n"
        "                 WHERE _partition_id IN (SELECT pid FROM stg_parts WHERE kept_rows > 0)),\n"
        "     retired AS (SELECT _load_id FROM old WHERE _load_id NOT IN staying)\n",
        D, loads, keep_days, g, D, g, S, S);
    sqlw_put(&st, out,
        "SELECT _stmt FROM (\n"
        "    SELECT 1 AS _o, pid AS _p, concat('ALTER TABLE %s.orders_raw DROP PARTITION ID ''', pid, ''';') AS _stmt\n"
        "    FROM stg_parts WHERE kept_rows = 0\n"
        "    UNION ALL\n"
        "    SELECT 2, _partition_id, concat('ALTER TABLE %s.order_snapshot_errors",
        S, D);
    sqlw_on_cluster_arg(&st, out, o);
    sqlw_put(&st, out, " DROP PARTITION ID ''', _partition_id, ''';')\n"
        "    FROM %s.%s GROUP BY _partition_id HAVING countIf(_load_id %sNOT IN old) = 0\n", D, errs, g);
    static const char *const per_load[] = {"order_manifest", "order_fates", "order_snapshot_stale"};
    for (int i = 0; i < 3; i++) {
        int sharded = i == 2;
        sqlw_put(&st, out, "    UNION ALL\n    SELECT %d, _partition_id, concat('ALTER TABLE %s.%s", 3 + i, D, per_load[i]);
        if (sharded)
            sqlw_on_cluster_arg(&st, out, o);
        sqlw_put(&st, out, " DROP PARTITION ID ''', _partition_id, ''';')\n"
            "    FROM %s.%s WHERE _load_id %sIN retired GROUP BY _partition_id\n",
            D, sharded ? stale : per_load[i], sharded ? g : "");
    }
    sqlw_put(&st, out, ")\nORDER BY _o, _p\nFORMAT TSVRaw;\n");
    return st;
}
