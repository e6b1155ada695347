/* layout.h: a cluster's shards, weights and replicas as ClickHouse sees them, read from server
 * config XML (file or directory, config.d merged) or from a system.clusters TSVWithNames dump. */
#ifndef SC_LAYOUT_H
#define SC_LAYOUT_H

#include <stddef.h>
#include <stdio.h>

#include "scerr.h"

typedef struct {
    char *host;
    unsigned port;
} sc_replica;

typedef struct {
    unsigned weight;
    int internal_replication; /* 1, 0, or -1 when the source does not say */
    size_t n_replicas;
    sc_replica *replicas;
} sc_shard;

typedef struct {
    char *name;
    size_t n_shards; /* shard i is _shard_num i + 1, zero-weight shards included */
    sc_shard *shards;
    char **others; /* the other cluster names found, for "missing cluster" messages */
    size_t n_others;
} sc_cluster;

/* Loads cluster `name` from path (XML file, config directory, or system.clusters dump).
 * SC_OK; SC_E_CHECK when the source is fine but has no such cluster (err says so);
 * SC_E_REFUSED when the server would refuse the config, and so every cluster of it (err: the
 * server's reason, where: the file and the config key); SC_E_INPUT when it cannot be read. */
int sc_layout_load(const char *path, const char *name, sc_cluster *out, sc_err *err);
void sc_cluster_free(sc_cluster *c);

/* The checks of `shard-check layout`: all-zero weights, duplicate host:port, and for shards with
 * several replicas: replicated 1 (local tables are Replicated*) needs internal_replication,
 * replicated 0 (plain MergeTree) must not have it, -1 (unknown) checks neither.
 * Writes one line per problem to out; returns the number of problems. */
size_t sc_layout_check(const sc_cluster *c, int replicated, FILE *out);

/* Writes s with TSV escaping (as ClickHouse's TSV writer): backslash, tab, line feed, carriage
 * return, backspace and form feed as \\ \t \n \r \b \f, so that a host name holding them
 * (legal in XML) cannot forge a line or a field of the output. */
void sc_fput_escaped(const char *s, FILE *out);

/* Writes the human report: shards, weights, replicas and the slot range each shard owns. */
void sc_layout_report(const sc_cluster *c, FILE *out);

#endif
