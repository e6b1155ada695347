/* sqlw: the SQL pieces the schema, the transition and the Kafka reader write alike: output with a
 * sticky error, names and column blocks from the wire contract, ON CLUSTER and engines. */
#include "sqlw.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* The Kafka delivery coordinates, kept with every raw and every rejected message. */
const char *const SQLW_META[][2] = {
    {"_topic", "LowCardinality(String)"},
    {"_partition", "UInt64"},
    {"_offset", "UInt64"},
    {"_timestamp", "Nullable(DateTime64(3, 'UTC'))"},
    {"_key", "String"},
};

/* Output goes through these; the first failure sticks in *st so callers check once. */
void sqlw_put(int *st, FILE *out, const char *fmt, ...)
{
    if (*st)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(out, fmt, ap) < 0)
        *st = DDL_EIO;
    va_end(ap);
}


void sqlw_quote(int *st, FILE *out, const char *s)
{
    if (!*st)
        *st = ddl_quote(out, s);
}

/* tmpl with every "%s" replaced by name (never handed to printf: a template may hold '%'). */
/* The cluster name as SQL (ddl_cluster_sql). Every place that names the cluster goes through
 * here: ON CLUSTER and Distributed's first argument. */
void sqlw_cluster_name(int *st, FILE *out, const ddl_opts *o)
{
    if (!*st)
        *st = ddl_cluster_sql(out, o->cluster);
}

/* " ON CLUSTER name" or nothing (one node, or --per-node: the same statements, run on every
 * node by whoever applies them). */
void sqlw_on_cluster(int *st, FILE *out, const ddl_opts *o)
{
    if (o->cluster && !o->per_node) {
        sqlw_put(st, out, " ON CLUSTER ");
        sqlw_cluster_name(st, out, o);
    }
}

void sqlw_on_cluster_arg(int *st, FILE *out, const ddl_opts *o)
{
    if (!o->cluster || *st)
        return;
    char *clause = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&clause, &len);
    int mst = 0;
    if (m)
        sqlw_on_cluster(&mst, m, o);
    if (!m || fclose(m) != 0 || mst) {
        free(clause);
        *st = DDL_EIO;
        return;
    }
    sqlw_put(st, out, "', ");
    sqlw_quote(st, out, clause);
    sqlw_put(st, out, ", '");
    free(clause);
}

/* ENGINE = [Replicated]NAME[(args)]: a replica path per shard, table and database. */
void sqlw_engine(int *st, FILE *out, const ddl_opts *o, const char *name, const char *db,
                   const char *table, const char *args)
{
    if (o->replicated) {
        char path[3 * DDL_IDENT_MAX + 64];
        snprintf(path, sizeof path, "/clickhouse/tables/{shard}/%s/%s", db, table);
        sqlw_put(st, out, "ENGINE = Replicated%s(", name);
        sqlw_quote(st, out, path);
        sqlw_put(st, out, ", '{replica}'%s%s)\n", args ? ", " : "", args ? args : "");
    } else if (args) {
        sqlw_put(st, out, "ENGINE = %s(%s)\n", name, args);
    } else {
        sqlw_put(st, out, "ENGINE = %s\n", name);
    }
}

void sqlw_meta_columns(int *st, FILE *out)
{
    for (size_t i = 0; i < SQLW_NMETA; i++)
        sqlw_put(st, out, "    %s %s,\n", SQLW_META[i][0], SQLW_META[i][1]);
}

void sqlw_meta_names(int *st, FILE *out)
{
    for (size_t i = 0; i < SQLW_NMETA; i++)
        sqlw_put(st, out, "%s, ", SQLW_META[i][0]);
}

void sqlw_contract_names(int *st, FILE *out, const char *sep)
{
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        sqlw_put(st, out, "%s%s", WIRE_FIELDS[i].name, sep);
}

/* The columns of _rep, _hot and order_v after the contract's: the state's hash and the load. */
static const char *const LOAD_COLS[] = {"_hashdiff", "_load_id", "_load_ts"};
_Static_assert(SQLW_NSTORE == WIRE_NFIELDS + sizeof LOAD_COLS / sizeof LOAD_COLS[0], "SQLW_NSTORE");

/* The i-th column of _rep, _hot and order_v (i < SQLW_NSTORE). */
const char *sqlw_store_name(size_t i)
{
    return i < WIRE_NFIELDS ? WIRE_FIELDS[i].name : LOAD_COLS[i - WIRE_NFIELDS];
}

/* The columns of _rep, _hot and order_v, in order. */
void sqlw_store_names(int *st, FILE *out)
{
    sqlw_contract_names(st, out, ", ");
    sqlw_put(st, out, "_hashdiff, _load_id, _load_ts");
}

/* The local table the Distributed one routes to, or (one node) the table written directly. */
const char *sqlw_target(const ddl_opts *o, const char *local, const char *dist)
{
    return o->cluster ? dist : local;
}

/* The column block of _rep and _hot: the contract's typed columns, then _hashdiff and the load;
 * with gate, the gate's: then also the Kafka coordinates and the row's fate. */
void sqlw_coord_columns(int *st, FILE *out)
{
    for (size_t i = 0; i < 3; i++)
        sqlw_put(st, out, "    %s %s,\n", SQLW_META[i][0], SQLW_META[i][1]);
}

void sqlw_store_columns(int *st, FILE *out, int gate)
{
    sqlw_put(st, out, "\n(\n");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        sqlw_put(st, out, "    %s %s,\n", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
    sqlw_put(st, out, "    _hashdiff UInt128,\n    _load_id String,\n    _load_ts DateTime64(3, 'UTC')");
    if (!gate) {
        /* what _hashdiff hashes, recorded with every stored version: no INSERT names it, so each
         * row takes the ODS's profile, which the transition refuses to run against another of
         * its own (ods-ddl rebaseline moves the ODS to a new one) */
        const char *p = ddl_hashdiff_profile();
        if (!p) {
            *st = DDL_EIO;
            return;
        }
        sqlw_put(st, out, ",\n    _hashdiff_profile LowCardinality(String) DEFAULT ");
        sqlw_quote(st, out, p);
    }
    if (gate) {
        sqlw_put(st, out, ",\n");
        sqlw_coord_columns(st, out);
        sqlw_put(st, out, "    _fate Enum8('stored' = 1, 'stale' = 2, 'unchanged' = 3),\n"
                          "    _put_hot UInt8,\n    _put_stale UInt8,\n    _put_fate UInt8");
    }
    sqlw_put(st, out, "\n)\n");
}
