/* ddl_gen: the SQL text of the order-snapshot schema, the STG → ODS transition and the Kafka
 * reader, built from the wire contract (wire_contract.h); no I/O beyond the FILE* it is given. */
#ifndef DDL_GEN_H
#define DDL_GEN_H

#include <stddef.h>
#include <stdio.h>

#include "wire_contract.h"

/* Longest database or table name accepted (ClickHouse allows longer; we need no more). */
#define DDL_IDENT_MAX 64
/* Longest cluster name accepted: cluster names are written as DBAs name their clusters
 * (prod-ods, {cluster}, ods_{env}), quoted when they are not plain identifiers. */
#define DDL_CLUSTER_MAX 255
/* Longest Kafka broker list, topic or group name accepted. */
#define DDL_KAFKA_MAX 1024

/* The gate (statement 9) runs as up to gate_pieces INSERTs (default DDL_GATE_PIECES), each a
 * range of buckets of order_id (the manifest's _bucket, cityHash64(order_id) % DDL_BUCKETS)
 * holding about piece_size messages (default DDL_PIECE_SIZE), so that its sorts, sets and joins
 * hold one piece, not the load. */
#define DDL_GATE_PIECES 16
#define DDL_GATE_PIECES_MAX 64
#define DDL_PIECE_SIZE 1048576u
#define DDL_PIECE_SIZE_MAX 1000000000u
#define DDL_BUCKETS 256

typedef struct {
    const char *stg_db;     /* database of orders_raw and orders_kafka */
    const char *ods_db;     /* database of the ODS tables and the view */
    const char *cluster;    /* NULL: one node (no ON CLUSTER, no Distributed tables) */
    int replicated;         /* Replicated* engines with {shard}/{replica}; needs cluster */
    int per_node;           /* schema: the cluster DDL without ON CLUSTER, applied node by node;
                             * needs cluster */
    int store_every;        /* transition: store every accepted version, not only changes */
    int typing_sql;         /* transition: class and types by SQL, not by order_wire_parse */
    int allow_empty;        /* transition: a load with no staged rows commits (else it fails) */
    unsigned gate_pieces;   /* transition: the gate's INSERTs (0: DDL_GATE_PIECES) */
    unsigned piece_size;    /* transition: messages per piece of the gate (0: DDL_PIECE_SIZE) */
    const char *source;     /* stage: the _topic of the staged lines */
    const char *file;       /* stage: the file read by the engine (NULL: the client's input()) */
    const char *brokers;    /* Kafka reader only */
    const char *topic;
    const char *group;
} ddl_opts;

typedef struct {
    const char *msg; /* static text */
    const char *what; /* the option at fault, e.g. "--ods-db", or NULL */
} ddl_error;

enum { DDL_EINVAL = -1, DDL_EIO = -2 };

/* 0 when s is a plain identifier: [A-Za-z_][A-Za-z0-9_]*, at most DDL_IDENT_MAX bytes. */
int ddl_check_ident(const char *s, ddl_error *err);
/* 0 when s may be a cluster name: 1 … DDL_CLUSTER_MAX bytes of valid UTF-8 without control
 * characters (bytes below 0x20, DEL), every '{' opening a macro reference {NAME} with a
 * non-empty NAME free of '{' (the server expands macros in cluster names and has no escape for
 * a literal '{'; an unclosed one fails there). Anything else, quotes and backslashes included,
 * is written quoted (ddl_cluster_sql). */
int ddl_check_cluster(const char *s, ddl_error *err);
/* 1 when the cluster name s is written bare: a plain identifier that the expression parser
 * also reads as an identifier (not NULL, TRUE, FALSE, INF, INFINITY, NAN or NOT, in any case). */
int ddl_cluster_is_bare(const char *s);
/* Writes the cluster name s as the engine must read it, in ON CLUSTER and as Distributed's
 * first argument alike: bare when ddl_cluster_is_bare, else a single-quoted string literal
 * (ddl_quote). Macros ({cluster}) stay as written: the server expands them in both places. */
int ddl_cluster_sql(FILE *out, const char *s);
/* 0 when s may be a Kafka broker list, topic or group name: 1 … DDL_KAFKA_MAX bytes of
 * [A-Za-z0-9._-] (a broker list also ":,[]" for host:port lists and IPv6). */
int ddl_check_kafka(const char *s, int is_broker_list, ddl_error *err);
/* A load id: 1 to 128 of A-Z a-z 0-9 . _ : + / -, the first a letter or digit. The statements
 * check it with this regular expression (match()); ddl_check_load_id is the same rule in C, for
 * the tools that check it before any statement runs. */
#define DDL_LOAD_ID_RE "^[A-Za-z0-9][A-Za-z0-9._:+/-]{0,127}$"
#define DDL_LOAD_ID_RULE "1 to 128 of A-Z a-z 0-9 . _ : + / -, the first a letter or digit"
/* 0 when s is a load id, else DDL_EINVAL. */
int ddl_check_load_id(const char *s);
/* The transition's lease. One node: the table ODS.order_lease, created by a run (a CREATE of an
 * existing table fails) and dropped by it. A cluster: a row of the KeeperMap table
 * ODS.order_lease_keeper, in the cluster's Keeper at DDL_LEASE_KEEPER_PATH under the server's
 * keeper_map_path_prefix, inserted with keeper_map_strict_mode = 1 (an insert of an existing key
 * fails, whichever node tries: one holder cluster-wide) and deleted by its holder. */
#define DDL_LEASE_KEEPER_PATH "/ods_transition/%s/lease" /* %s: the ODS database */
/* The statement an operator runs to clear a stale lease, into buf; returns buf. No ';' and no
 * quote: the messages carry it inside SQL string literals. */
const char *ddl_lease_clear(const ddl_opts *o, char *buf, size_t n);
/* The statement a run that holds the lease releases it with, into buf; returns buf. One node:
 * DROP TABLE IF EXISTS (the run has checked the lease is its own). A cluster: the delete of the
 * row of {load_id:String}, and when since is not NULL only if it is still the one taken then. */
const char *ddl_lease_release(const ddl_opts *o, const char *since, char *buf, size_t n);
/* --store and --typing as given (NULL: the default, changes / udf) into o->store_every and
 * o->typing_sql; DDL_EINVAL with err->what the option and err->msg what it takes. */
int ddl_set_modes(ddl_opts *o, const char *store, const char *typing, ddl_error *err);
/* --gate-pieces and --piece-size as given (NULL: the default) into o; DDL_EINVAL with err->what
 * the option and err->msg what it takes. */
int ddl_set_gate(ddl_opts *o, const char *pieces, const char *size, ddl_error *err);
/* The gate's INSERTs a load of rows staged rows needs: one per piece_size (0: DDL_PIECE_SIZE),
 * 1 to DDL_GATE_PIECES. The transition's SQL cuts the load by the same rule (from the seal's
 * count of messages), so every INSERT this gives holds a piece. */
unsigned ddl_gate_pieces_for(unsigned long long rows, unsigned piece_size);
/* Checks every name and value the statements will carry; 0 or DDL_EINVAL (err says which).
 * need_kafka: brokers, topic and group must be set. A source, when set, follows
 * ddl_check_kafka's rules (it becomes _topic); a file may be any path of 1 to 4096 bytes without
 * control characters (it is written as a quoted string literal) or the engine's glob characters
 * * ? { (file() would read other files). */
int ddl_check_opts(const ddl_opts *o, int need_kafka, ddl_error *err);

/* Writes s as a single-quoted SQL string literal, escaping \ and '. */
int ddl_quote(FILE *out, const char *s);
/* Writes f->sql_extract with every "%s" replaced by the key. */
int ddl_extract(FILE *out, const wire_field *f);
/* Writes f->canon_sql with every "%s" replaced by the key (the typed column's name). */
int ddl_canon(FILE *out, const wire_field *f);
/* Writes the array of the canonical texts of the fields that make up _hashdiff, in contract
 * order: [toString(order_id), toString(user_id), ...]. */
int ddl_hashdiff_args(FILE *out);

#endif
