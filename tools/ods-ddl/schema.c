/* schema: the ODS schema's DDL (staging, _rep, errors, hot, ledger, stale, the manifest, the lease
 * view, the gate, order_v), one node or a cluster; docs/schema.md gives the reasons. */
#include "schema.h"
#include "sqlw.h"

#include <string.h>


/* ";" and CREATE of the Distributed table NAME over the local table LOCAL of the ODS database,
 * sharded by KEY (NULL: none, for a table only ever read through it). */
static void dist_table(int *st, FILE *out, const ddl_opts *o, const char *name, const char *local, const char *key)
{
    const char *D = o->ods_db;
    sqlw_put(st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.%s", D, name);
    sqlw_on_cluster(st, out, o);
    sqlw_put(st, out, " AS %s.%s\nENGINE = Distributed(", D, local);
    sqlw_cluster_name(st, out, o);
    sqlw_put(st, out, ", %s, %s%s%s)", D, local, key ? ", " : "", key ? key : "");
}

int ddl_schema(FILE *out, const ddl_opts *o)
{
    int st = 0;
    const char *S = o->stg_db, *D = o->ods_db;

    sqlw_put(&st, out, "-- ods-ddl schema, wire contract %s, %s\n", WIRE_CONTRACT_VERSION,
        o->cluster ? (o->replicated ? "cluster, replicated" : "cluster") : "one node");
    if (o->per_node)
        sqlw_put(&st, out, "-- Per node: apply every statement on every node of the cluster, one node at a time.\n");
    if (o->replicated)
        sqlw_put(&st, out, "-- The cluster's shards must set <internal_replication>true</internal_replication>:\n"
                      "-- the Distributed tables write one replica, replication copies the rest.\n");
    sqlw_put(&st, out, "CREATE DATABASE IF NOT EXISTS %s", S);
    sqlw_on_cluster(&st, out, o);
    if (strcmp(S, D) != 0) {
        sqlw_put(&st, out, ";\n\nCREATE DATABASE IF NOT EXISTS %s", D);
        sqlw_on_cluster(&st, out, o);
    }

    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.orders_raw", S);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, "\n(\n    raw String,\n");
    sqlw_meta_columns(&st, out);
    /* _raw_hash: which bytes a row holds, computed once when it is staged (MATERIALIZED: no
     * INSERT names it, SELECT * leaves it out), so the transition's checks of the staging
     * (coordinates unique, rows staged after the freeze) read 8 bytes a row, not the message */
    /* _moved: 'L#n' on the n-th copy of its coordinates, bytes and _load_ts that move-late moved
     * from load L, so a rerun after a kill tells its own copies from the same message staged under
     * the new load directly (which it must not take for a copy: the move would then count the
     * late copy in no load's ledger). MATERIALIZED for the reason _raw_hash is: an INSERT
     * without a column list and SELECT * keep the eight columns; move-late writes it with
     * insert_allow_materialized_columns, and a constant expression is never recomputed. */
    sqlw_put(&st, out, "    _load_id String,\n    _load_ts DateTime64(3, 'UTC'),\n"
                       "    _raw_hash UInt64 MATERIALIZED cityHash64(raw),\n"
                       "    _moved String MATERIALIZED ''\n)\n");
    sqlw_engine(&st, out, o, "MergeTree", S, "orders_raw", NULL);
    sqlw_put(&st, out, "PARTITION BY toDate(_load_ts)\nORDER BY (_load_id, _topic, _partition, _offset)\n"
                  "COMMENT ");
    sqlw_quote(&st, out, "Kafka messages as received, one batch per _load_id");

    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_rep", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_store_columns(&st, out, 0);
    sqlw_engine(&st, out, o, "ReplacingMergeTree", D, "order_snapshot_rep", "updated_at");
    /* toYYYYMMDD, not toDate: Date ends in 2149 and starts in 1970, and a created_at outside
     * wraps into another day's partition; the contract allows 1900-2299, which toYYYYMMDD of a
     * DateTime64 keeps (partition ids stay the YYYYMMDD ones toDate gave). */
    sqlw_put(&st, out, "PARTITION BY toYYYYMMDD(created_at)\nORDER BY order_id\nCOMMENT ");
    sqlw_quote(&st, out, "order snapshots, typed by wire contract " WIRE_CONTRACT_VERSION);

    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_errors", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, "\n(\n    raw String,\n    error_class LowCardinality(String),\n");
    sqlw_meta_columns(&st, out);
    sqlw_put(&st, out, "    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n");
    sqlw_engine(&st, out, o, "MergeTree", D, "order_snapshot_errors", NULL);
    sqlw_put(&st, out, "PARTITION BY toDate(_load_ts)\n"
                  "ORDER BY (_load_id, error_class, _topic, _partition, _offset)\nCOMMENT ");
    sqlw_quote(&st, out, "messages rejected by order_wire_class, raw, with their Kafka coordinates");

    /* Hot rows: a load's new versions, written before its commit, read by order_v only once
     * the ledger holds the load, folded into _rep by the next transition. A plain MergeTree:
     * no merge ever replaces a row here, so nothing committed can be lost to an uncommitted
     * version. */
    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_hot", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_store_columns(&st, out, 0);
    sqlw_engine(&st, out, o, "MergeTree", D, "order_snapshot_hot", NULL);
    sqlw_put(&st, out, "PARTITION BY _load_id\nORDER BY (order_id, updated_at)\nCOMMENT ");
    sqlw_quote(&st, out, "versions of loads not yet folded into order_snapshot_rep; visible once committed");

    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_loads", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, "\n(\n    delta UInt64,\n    _load_id String,\n    committed_at DateTime64(3, 'UTC'),\n"
                  "    received UInt64,\n    redelivered UInt64,\n    accepted UInt64,\n    stored UInt64,\n    unchanged UInt64,\n"
                  "    stale UInt64,\n    rejected UInt64");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        sqlw_put(&st, out, ",\n    %s UInt64", WIRE_REJECT_CLASSES[i]);
    /* what the load was typed and hashed by ('' for loads committed before these were kept) */
    sqlw_put(&st, out, ",\n    wire_contract LowCardinality(String) DEFAULT '',\n"
                       "    hashdiff_profile LowCardinality(String) DEFAULT ''\n)\n");
    sqlw_engine(&st, out, o, "MergeTree", D, "order_loads", NULL);
    sqlw_put(&st, out, "ORDER BY delta\nCOMMENT ");
    sqlw_quote(&st, out, "the ledger: one row per committed load, delta 1, 2, 3 ...");

    /* Stale messages: accepted, older than the latest stored version of their order, so not
     * stored; the commit counts them here rather than parsing the load a second time. One row
     * per load and Kafka coordinates (the gate writes each once). A plain MergeTree: it is no
     * table of versions, and shard-check rightly refuses a ReplacingMergeTree without one. */
    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_stale", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, "\n(\n");
    const char *keyf[] = {"order_id", "updated_at"};
    for (size_t i = 0; i < 2; i++) {
        const wire_field *f = wire_field_by_name(keyf[i], strlen(keyf[i]));
        sqlw_put(&st, out, "    %s %s,\n", keyf[i], f ? f->ods_type : "?");
    }
    sqlw_coord_columns(&st, out);
    sqlw_put(&st, out, "    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n");
    sqlw_engine(&st, out, o, "MergeTree", D, "order_snapshot_stale", NULL);
    sqlw_put(&st, out, "PARTITION BY _load_id\nORDER BY (_topic, _partition, _offset)\nCOMMENT ");
    sqlw_quote(&st, out, "accepted messages older than their order's latest stored version: not stored, counted by the commit");

    /* The load manifest: what a load is, fixed by the transition's freeze (statements 4-5). One
     * row per message (Kafka coordinates) staged under the load when it froze, with what the
     * classifier said and, for an accepted message, its typed fields and _hashdiff, from the
     * same order_wire_parse call (--typing udf): every later
     * statement and the ledger read this, never staging again. raw is kept for rejected messages
     * (the errors table takes them from here) and, with --typing sql, for all. _raw_hash tells
     * which bytes were frozen at the coordinates, so a row staged later is told apart. Local, like
     * staging: the transition runs on the node that holds its staged load. */
    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_manifest", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, "\n(\n    _load_id String,\n");
    sqlw_meta_columns(&st, out);
    sqlw_put(&st, out, "    _load_ts DateTime64(3, 'UTC'),\n    _raw_hash UInt64,\n"
                       "    error_class LowCardinality(String),\n    raw String");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        sqlw_put(&st, out, ",\n    %s %s", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
    sqlw_put(&st, out, ",\n    _hashdiff UInt128,\n    _bucket UInt8\n)\n");
    sqlw_engine(&st, out, o, "MergeTree", D, "order_manifest", NULL);
    /* _bucket (cityHash64(order_id) % 256 of an accepted message, 0 of a rejected one) first:
     * the gate reads the load a range of buckets at a time (DDL_GATE_PIECES) */
    sqlw_put(&st, out, "PARTITION BY _load_id\nORDER BY (_load_id, _bucket, _topic, _partition, _offset)\nCOMMENT ");
    sqlw_quote(&st, out, "the load manifest: each load's messages as frozen by its transition, classified and typed");

    /* One row per frozen load: the seal. A manifest without it is a freeze still in progress,
     * which a rerun completes; with it, the load's content is fixed. */
    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_frozen", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, "\n(\n    _load_id String,\n    frozen_at DateTime64(3, 'UTC'),\n"
                       "    staged UInt64,\n    messages UInt64,\n"
                       "    staged_fp1 UInt64 DEFAULT 0,\n    staged_fp2 UInt64 DEFAULT 0\n)\n");
    sqlw_engine(&st, out, o, "MergeTree", D, "order_frozen", NULL);
    sqlw_put(&st, out, "ORDER BY _load_id\nCOMMENT ");
    sqlw_quote(&st, out, "frozen loads: staged rows (copies included), distinct messages and the staged rows' "
                         "fingerprint at the freeze");

    /* The fate the gate (statement 9) gave each accepted message of a load: stored, unchanged
     * or stale. The ledger's figures are counted here, and the commit refuses a load whose every
     * accepted message has no fate yet (a gate cut short, or never run): what the hot table
     * lacks could not be told from what was unchanged. Local, like the manifest. */
    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_fates", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, "\n(\n    _load_id String,\n");
    sqlw_coord_columns(&st, out);
    sqlw_put(&st, out, "    fate Enum8('stored' = 1, 'stale' = 2, 'unchanged' = 3)\n)\n");
    sqlw_engine(&st, out, o, "MergeTree", D, "order_fates", NULL);
    sqlw_put(&st, out, "PARTITION BY _load_id\nORDER BY (_load_id, _topic, _partition, _offset)\nCOMMENT ");
    sqlw_quote(&st, out, "the gate's verdict on each accepted message of a load: what the ledger counts");

    if (o->cluster) {
        /* On a cluster the lease must hold across nodes (any node may run the transition): a
         * row in the cluster's Keeper, which every node's table reads and writes alike (ddl.h). */
        char path[256];
        snprintf(path, sizeof path, DDL_LEASE_KEEPER_PATH, D);
        sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_lease_keeper", D);
        sqlw_on_cluster(&st, out, o);
        sqlw_put(&st, out, "\n(\n    name String,\n    _load_id String,\n    since DateTime64(3, 'UTC')\n)\n"
                           "ENGINE = KeeperMap(");
        sqlw_quote(&st, out, path);
        sqlw_put(&st, out, ")\nPRIMARY KEY name\nCOMMENT ");
        sqlw_quote(&st, out, "the transition's lease, cluster-wide: the row 'lease' while a transition runs, inserted "
                             "with keeper_map_strict_mode = 1 (one holder), deleted by its holder");
        sqlw_put(&st, out, ";\n\nCREATE VIEW IF NOT EXISTS %s.order_lease_v", D);
        sqlw_on_cluster(&st, out, o);
        sqlw_put(&st, out, "\n(\n    _load_id String,\n    since DateTime64(3, 'UTC')\n)\n"
                           "AS SELECT _load_id, since FROM %s.order_lease_keeper WHERE name = 'lease'\nCOMMENT ", D);
        sqlw_quote(&st, out, "who holds the transition's lease (the row of order_lease_keeper, while a transition runs)");
    } else {
        /* One node: the lease is the table order_lease itself, created by a run's statement 2 (a
         * CREATE of an existing table fails: one holder) and dropped by its last. This Merge
         * table reads it when it exists and reads nothing when it does not, so the checks can
         * name the holder without failing on a missing table. */
        sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_lease_v", D);
        sqlw_on_cluster(&st, out, o);
        sqlw_put(&st, out, "\n(\n    _load_id String,\n    since DateTime64(3, 'UTC')\n)\nENGINE = Merge(");
        sqlw_quote(&st, out, D);
        sqlw_put(&st, out, ", '^order_lease$')\nCOMMENT ");
        sqlw_quote(&st, out, "who holds the transition's lease (the table order_lease, while a transition runs)");
    }

    if (o->cluster) {
        dist_table(&st, out, o, "order_snapshot_dist", "order_snapshot_rep", "cityHash64(order_id)");
        dist_table(&st, out, o, "order_snapshot_errors_dist", "order_snapshot_errors",
                   "cityHash64(_topic, _partition, _offset)");
        dist_table(&st, out, o, "order_snapshot_hot_dist", "order_snapshot_hot", "cityHash64(order_id)");
        /* The ledger is written on the node that runs the transition and read everywhere
         * through this table: a load's row lives on one node, the union is the ledger. */
        dist_table(&st, out, o, "order_loads_dist", "order_loads", NULL);
        dist_table(&st, out, o, "order_snapshot_stale_dist", "order_snapshot_stale", "cityHash64(order_id)");
    }

    /* The gate: the good branch's INSERT writes each accepted message, with its fate, into
     * this Null table; one materialized view sends the stored versions to the hot table, one
     * the stale messages to order_snapshot_stale, one every fate to order_fates. Each target
     * has its own _put flag, false for what an earlier run already wrote there, so a rerun after
     * a gate cut short anywhere (even between two views of one block) writes what is missing
     * and nothing twice. One pass over the load; a Null table keeps nothing. */
    sqlw_put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_gate", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_store_columns(&st, out, 1);
    sqlw_put(&st, out, "ENGINE = Null\nCOMMENT ");
    sqlw_quote(&st, out, "the transition's gate: each row goes on to order_snapshot_hot or order_snapshot_stale by _fate");
    sqlw_put(&st, out, ";\n\nCREATE MATERIALIZED VIEW IF NOT EXISTS %s.order_gate_stored", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, " TO %s.%s AS\nSELECT ", D, sqlw_target(o, "order_snapshot_hot", "order_snapshot_hot_dist"));
    sqlw_store_names(&st, out);
    sqlw_put(&st, out, "\nFROM %s.order_gate\nWHERE _fate = 'stored' AND _put_hot", D);
    sqlw_put(&st, out, ";\n\nCREATE MATERIALIZED VIEW IF NOT EXISTS %s.order_gate_stale", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, " TO %s.%s AS\nSELECT order_id, updated_at, _topic, _partition, _offset, _load_id, _load_ts\n"
                  "FROM %s.order_gate\nWHERE _fate = 'stale' AND _put_stale",
        D, sqlw_target(o, "order_snapshot_stale", "order_snapshot_stale_dist"), D);
    sqlw_put(&st, out, ";\n\nCREATE MATERIALIZED VIEW IF NOT EXISTS %s.order_gate_fates", D);
    sqlw_on_cluster(&st, out, o);
    sqlw_put(&st, out, " TO %s.order_fates AS\nSELECT _load_id, _topic, _partition, _offset, _fate AS fate\n"
                  "FROM %s.order_gate\nWHERE _put_fate",
        D, D);

    /* order_v: per order, the newest of _rep's FINAL row and the hot rows of committed loads
     * (greatest updated_at; on a tie the hot row, of the latest load among hot rows: its
     * versions are the latest written). _rep holds committed loads only, so its merges are
     * harmless. W, the orders whose newest committed hot row is at least as new as their
     * newest _rep row, is found from two columns only (the max updated_at of _rep's rows is
     * its FINAL row's), so _rep's FINAL is read once, for the orders not in W; the rows of W
     * come from the hot table, the newest by an argMax grouped by order_id, so a reader's
     * filter on order_id reaches both tables (it would not pass a LIMIT BY). W is one grouping
     * of the two tables' rows, not a join of two groupings: the engine plans a join of
     * subqueries slowly, and with its default settings compiles the join's max() on a first
     * read (measured: docs/schema.md); an order without a _rep row is told by its count, not
     * by a max over no rows (a default that an updated_at before 1970 would lose to). */
    const char *g = o->cluster ? "GLOBAL " : "";
    const char *rep_t = sqlw_target(o, "order_snapshot_rep", "order_snapshot_dist");
    const char *hot_t = sqlw_target(o, "order_snapshot_hot", "order_snapshot_hot_dist");
    const char *loads_t = sqlw_target(o, "order_loads", "order_loads_dist");
    char committed[256], w[1536];
    snprintf(committed, sizeof committed, "_load_id %sIN (SELECT _load_id FROM %s.%s)", g, D, loads_t);
    snprintf(w, sizeof w,
             "(\n        SELECT order_id\n"
             "        FROM (SELECT order_id, updated_at, 0 AS _from_rep FROM %s.%s WHERE %s\n"
             "              UNION ALL SELECT order_id, updated_at, 1 AS _from_rep FROM %s.%s\n"
             "                   WHERE order_id %sIN (SELECT order_id FROM %s.%s WHERE %s))\n"
             "        GROUP BY order_id\n"
             "        HAVING countIf(_from_rep = 1) = 0 OR maxIf(updated_at, _from_rep = 0) >= maxIf(updated_at, _from_rep = 1)\n    )",
             D, hot_t, committed, D, rep_t, g, D, hot_t, committed);
    sqlw_put(&st, out, ";\n\nCREATE VIEW IF NOT EXISTS %s.order_v", D);
    sqlw_on_cluster(&st, out, o);
    /* The setting sits inside the FINAL subquery: a SETTINGS clause after a UNION's last
     * SELECT does not reach the first one (checked on the engine). */
    sqlw_put(&st, out, " AS\nSELECT ");
    sqlw_store_names(&st, out);
    sqlw_put(&st, out, "\nFROM\n(\n    SELECT ");
    sqlw_store_names(&st, out);
    sqlw_put(&st, out, "\n    FROM %s.%s FINAL\n    WHERE order_id %sNOT IN %s\n"
                  "    SETTINGS do_not_merge_across_partitions_select_final = 0\n)\n"
                  "UNION ALL\nSELECT order_id",
        D, rep_t, g, w);
    for (size_t i = 1; i < SQLW_NSTORE; i++)
        sqlw_put(&st, out, ", _v.%zu AS %s", i, sqlw_store_name(i));
    /* order_id is the contract's first field (test_wire_contract pins it): the group key */
    sqlw_put(&st, out, "\nFROM\n(\n    SELECT order_id, argMax((");
    for (size_t i = 1; i < SQLW_NSTORE; i++)
        sqlw_put(&st, out, "%s%s", i > 1 ? ", " : "", sqlw_store_name(i));
    sqlw_put(&st, out, "), (updated_at, c.delta)) AS _v\n    FROM %s.%s AS h\n"
                  "    %sINNER JOIN (SELECT _load_id, delta FROM %s.%s) AS c USING (_load_id)\n"
                  "    WHERE order_id %sIN %s\n    GROUP BY order_id\n)",
        D, hot_t, g, D, loads_t, g, w);
    sqlw_put(&st, out, ";\n");
    return st;
}
