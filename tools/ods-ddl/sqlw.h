/* sqlw: SQL writers shared by the schema, the transition and the Kafka reader (internal to
 * ods-ddl): output with a sticky error, the contract's column blocks, ON CLUSTER, engines. */
#ifndef SQLW_H
#define SQLW_H

#include <stdio.h>

#include "ddl.h"

/* The Kafka delivery coordinates, {name, type}, kept with every raw and rejected message; the
 * first three (_topic, _partition, _offset) identify a message. */
#define SQLW_NMETA 5
extern const char *const SQLW_META[SQLW_NMETA][2];
/* The columns of _rep, _hot and order_v: the contract's, then _hashdiff, _load_id, _load_ts. */
#define SQLW_NSTORE (WIRE_NFIELDS + 3)

/* Every writer below does nothing once *st is set, and sets it to DDL_EIO when writing fails,
 * so a caller checks once at the end. */
void sqlw_put(int *st, FILE *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* s as a single-quoted SQL string literal (ddl_quote). */
void sqlw_quote(int *st, FILE *out, const char *s);
/* The cluster name as SQL (ddl_cluster_sql): every ON CLUSTER and Distributed goes through it. */
void sqlw_cluster_name(int *st, FILE *out, const ddl_opts *o);
/* " ON CLUSTER name", or nothing (one node, or --per-node). */
void sqlw_on_cluster(int *st, FILE *out, const ddl_opts *o);
/* The same clause inside a query that prints statements: "', ' ON CLUSTER name', '" closes the
 * string literal being written, adds the clause as a concat() argument of its own (the name,
 * itself maybe quoted, through sqlw_quote) and opens the next literal; nothing on one node. */
void sqlw_on_cluster_arg(int *st, FILE *out, const ddl_opts *o);
/* ENGINE = [Replicated]NAME[(args)], with a replica path per shard, database and table. */
void sqlw_engine(int *st, FILE *out, const ddl_opts *o, const char *name, const char *db,
                 const char *table, const char *args);
void sqlw_meta_columns(int *st, FILE *out);
/* "_topic, _partition, _offset, _timestamp, _key, " */
void sqlw_meta_names(int *st, FILE *out);
/* The contract's names, each followed by sep. */
void sqlw_contract_names(int *st, FILE *out, const char *sep);
/* The i-th column of _rep, _hot and order_v (i < SQLW_NSTORE). */
const char *sqlw_store_name(size_t i);
/* The columns of _rep, _hot and order_v, comma-separated. */
void sqlw_store_names(int *st, FILE *out);
/* The Distributed table with --cluster, else the local one. */
const char *sqlw_target(const ddl_opts *o, const char *local, const char *dist);
/* "    _topic LowCardinality(String),\n" and the same for _partition, _offset: the coordinates
 * that identify a message, as columns of a table that records messages. */
void sqlw_coord_columns(int *st, FILE *out);
/* The column block of _rep and _hot; with gate, also the coordinates, the row's _fate and where
 * it is still to be written (_put_hot, _put_stale, _put_fate). */
void sqlw_store_columns(int *st, FILE *out, int gate);

#endif
