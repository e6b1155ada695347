/* migrate: this version's schema is written into scratch databases on the same server, so the
 * engine itself says how the live one differs (types and defaults as it prints them). */
#include "migrate.h"

#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "sqlw.h"

/* the scratch database standing for live database db */
static void scratch_name(char *out, size_t n, const char *db) { snprintf(out, n, "%s_migrate", db); }

/* The end of a remedy "… DROP TABLE x[ ON CLUSTER c], then run ods-ddl schema again" over the
 * scratch and live objects that match where. */
static void drop_then_schema(int *st, FILE *out, const ddl_opts *o, const char *where)
{
    sqlw_on_cluster_arg(st, out, o);
    sqlw_put(st, out, ", then run ods-ddl schema again')\n"
        "             FROM scratch AS s INNER JOIN live AS l ON l.live_db = s.live_db AND l.name = s.name\n"
        "             WHERE %s\n", where);
}

int ddl_migrate(FILE *out, const ddl_opts *o)
{
    int st = 0;
    const char *S = o->stg_db, *D = o->ods_db;
    char sS[DDL_IDENT_MAX + 16], sD[DDL_IDENT_MAX + 16];
    scratch_name(sS, sizeof sS, S);
    scratch_name(sD, sizeof sD, D);
    int one_db = strcmp(S, D) == 0;

    sqlw_put(&st, out, "-- ods-ddl migrate: compares the live schema (%s, %s) with this version's (wire contract %s) and "
                       "prints, one a line,\n-- the statements that bring it there; refuses, naming why, where none is "
                       "safe. Run it with no transition running\n-- (after ods-ddl schema with the options the ODS was "
                       "created with), then run what it printed, then run it again: it prints nothing.\n",
             S, D, WIRE_CONTRACT_VERSION);
    sqlw_put(&st, out, "DROP DATABASE IF EXISTS %s;\n", sS);
    if (!one_db)
        sqlw_put(&st, out, "DROP DATABASE IF EXISTS %s;\n", sD);
    /* on a cluster, the cluster's shape on this node only (--per-node, no replication): the
     * Distributed tables and the views over them compare with the live ones as they are */
    ddl_opts so = {.stg_db = sS, .ods_db = one_db ? sS : sD, .cluster = o->cluster, .per_node = o->cluster != NULL};
    char *schema = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&schema, &len);
    if (!m)
        return DDL_EIO;
    int rc = ddl_schema(m, &so);
    if (fclose(m) != 0 || rc < 0) {
        free(schema);
        return DDL_EIO;
    }
    sqlw_put(&st, out, "%s\n", schema);
    free(schema);

    /* (live db, scratch db) pairs, and the live name of a scratch object */
    char pairs[512];
    if (one_db)
        snprintf(pairs, sizeof pairs, "[('%s', '%s')]", S, sS);
    else
        snprintf(pairs, sizeof pairs, "[('%s', '%s'), ('%s', '%s')]", S, sS, D, sD);
    char live_text[512]; /* an expression: text x with the scratch names put back to the live ones */
    if (one_db)
        snprintf(live_text, sizeof live_text, "replaceAll(%%s, '%s.', '%s.')", sS, S);
    else
        snprintf(live_text, sizeof live_text, "replaceAll(replaceAll(%%s, '%s.', '%s.'), '%s.', '%s.')", sS, S, sD, D);
#define LIVE(x) (snprintf(lt, sizeof lt, live_text, x), lt)
    char lt[600];

    sqlw_put(&st, out,
        "-- the comparison: the statements, or the reasons none is safe\n"
        "WITH arrayJoin(%s) AS _pair,\n"
        "     scratch AS (SELECT _pair.1 AS live_db, database AS scratch_db, name, engine, partition_key, sorting_key, ",
        pairs);
    sqlw_put(&st, out, "%s AS live_select\n", LIVE("as_select"));
    sqlw_put(&st, out,
        "                 FROM system.tables WHERE database = _pair.2),\n"
        "     live AS (SELECT database AS live_db, name, engine, partition_key, sorting_key, as_select, engine_full\n"
        "              FROM system.tables WHERE database IN ('%s', '%s')),\n"
        "     problems AS (\n"
        "         SELECT arrayStringConcat(groupArray(_why), '; ') AS _all FROM (\n"
        "             SELECT concat(s.live_db, '.', s.name, ' is missing: run ods-ddl schema (with the options the ODS was "
        "created with) first, it creates only what is missing') AS _why\n"
        "             FROM scratch AS s LEFT ANTI JOIN live AS l ON l.live_db = s.live_db AND l.name = s.name\n"
        "             UNION ALL\n"
        "             SELECT concat(s.live_db, '.', s.name, ': its ', multiIf(replaceOne(l.engine, 'Replicated', '') != "
        "s.engine, concat('engine is ', l.engine, ', this version''s ', s.engine),\n"
        "                 l.partition_key != s.partition_key, concat('partition key is ', l.partition_key, ', this "
        "version''s ', s.partition_key),\n"
        "                 concat('sorting key is ', l.sorting_key, ', this version''s ', s.sorting_key)),\n"
        "                 ': no statement changes that in place; copy the data into a table created by this version and "
        "swap them (docs/operations.md, Upgrades)')\n"
        "             FROM scratch AS s INNER JOIN live AS l ON l.live_db = s.live_db AND l.name = s.name\n"
        "             WHERE s.engine NOT IN ('View', 'MaterializedView')\n"
        "               AND (replaceOne(l.engine, 'Replicated', '') != s.engine OR l.partition_key != s.partition_key "
        "OR l.sorting_key != s.sorting_key)\n"
        "             UNION ALL\n"
        "             SELECT concat('materialized view ', s.live_db, '.', s.name, ' differs from this version''s: with "
        "no transition running, DROP TABLE ', s.live_db, '.', s.name, '",
        S, D);
    drop_then_schema(&st, out, o, "s.engine = 'MaterializedView' AND l.engine = 'MaterializedView' AND "
                                  "s.live_select != l.as_select");
    /* a view where the live ODS has a table of that name: the cluster's lease view over
     * order_lease_keeper, where a release before it had a Merge table over the node's own lease */
    sqlw_put(&st, out,
        "             UNION ALL\n"
        "             SELECT concat(s.live_db, '.', s.name, ' is a ', l.engine, ' table, this version''s a view: with no "
        "transition running, DROP TABLE ', s.live_db, '.', s.name, '");
    drop_then_schema(&st, out, o, "s.engine = 'View' AND l.engine != 'View'");
    /* columns */
    sqlw_put(&st, out,
        "             UNION ALL\n"
        "             SELECT concat(s.live_db, '.', s.table, '.', s.name, ' is ', c.type, if(c.default_kind != '', "
        "concat(' ', c.default_kind, ' ', c.default_expression), ''), ', this version''s ', s.type, "
        "if(s.default_kind != '', concat(' ', s.default_kind, ' ', s.default_expression), ''),\n"
        "                 ': no safe statement (the column''s values would change); see docs/operations.md, Upgrades')\n"
        "             FROM (SELECT _pair.1 AS live_db, table, name, type, default_kind, ");
    sqlw_put(&st, out, "%s AS default_expression\n", LIVE("default_expression"));
    sqlw_put(&st, out,
        "                   FROM system.columns WHERE database = _pair.2\n"
        "                     AND table IN (SELECT name FROM scratch WHERE engine NOT IN ('View', 'MaterializedView'))) AS s\n"
        "             INNER JOIN (SELECT database AS live_db, table, name, type, default_kind, default_expression\n"
        "                         FROM system.columns WHERE database IN ('%s', '%s')) AS c\n"
        "                 ON c.live_db = s.live_db AND c.table = s.table AND c.name = s.name\n"
        "             WHERE c.type != s.type OR c.default_kind != s.default_kind OR c.default_expression != "
        "s.default_expression\n"
        "         ))\n",
        S, D);
    /* the statements: a missing column added (to the local table and, on a cluster, to the
     * Distributed tables over it), a view's query replaced */
    sqlw_put(&st, out,
        "SELECT _stmt FROM (\n"
        "    SELECT 1 AS _o, s.live_db AS _d, s.table AS _t, s.position AS _n,\n"
        "        concat('ALTER TABLE ', s.live_db, '.', s.table, '");
    sqlw_on_cluster_arg(&st, out, o);
    sqlw_put(&st, out, " ADD COLUMN IF NOT EXISTS ', s.name, ' ', s.type, if(s.default_kind != '', concat(' ', "
        "s.default_kind, ' ', s.default_expression), ''), if(s.position > 1, concat(' AFTER ', s.prev), ' FIRST'), ';') "
        "AS _stmt\n"
        "    FROM (SELECT _pair.1 AS live_db, table, name, type, default_kind, ");
    sqlw_put(&st, out, "%s AS default_expression, position,\n", LIVE("default_expression"));
    sqlw_put(&st, out,
        "                 lagInFrame(name) OVER (PARTITION BY table ORDER BY position) AS prev\n"
        "          FROM system.columns WHERE database = _pair.2\n"
        "            AND table IN (SELECT name FROM scratch WHERE engine NOT IN ('View', 'MaterializedView'))) AS s\n"
        "    LEFT ANTI JOIN (SELECT database AS live_db, table, name FROM system.columns WHERE database IN ('%s', '%s')) "
        "AS c\n"
        "        ON c.live_db = s.live_db AND c.table = s.table AND c.name = s.name\n"
        "    INNER JOIN (SELECT live_db, name FROM live) AS lt ON lt.live_db = s.live_db AND lt.name = s.table\n"
        "    UNION ALL\n"
        "    SELECT 2, s.live_db, s.name, 0, concat('CREATE OR REPLACE VIEW ', s.live_db, '.', s.name, '",
        S, D);
    sqlw_on_cluster_arg(&st, out, o);
    sqlw_put(&st, out, " AS ', s.live_select, ';')\n"
        "    FROM scratch AS s INNER JOIN live AS l ON l.live_db = s.live_db AND l.name = s.name\n"
        "    WHERE s.engine = 'View' AND l.engine = 'View' AND s.live_select != l.as_select\n"
        ")\n"
        /* a scalar subquery: evaluated before any row, so a problem fails the statement even
         * when there is nothing to print */
        "WHERE (WITH (SELECT concat('ods-ddl migrate: ', _all) FROM problems WHERE _all != '') AS _p\n"
        "       SELECT throwIf(ifNull(_p, '') != '', ifNull(_p, ''))) = 0\n"
        "ORDER BY _o, _d, _t, _n\nSETTINGS join_use_nulls = 0\nFORMAT TSVRaw;\n");
    sqlw_put(&st, out, "DROP DATABASE IF EXISTS %s;\n", sS);
    if (!one_db)
        sqlw_put(&st, out, "DROP DATABASE IF EXISTS %s;\n", sD);
    return st;
}
