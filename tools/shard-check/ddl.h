/* ddl.h: checks CREATE TABLE statements (SHOW CREATE TABLE output or ods-ddl output) for what
 * FINAL through a Distributed table needs: cluster, local table, sharding key, version, partition. */
#ifndef SC_DDL_H
#define SC_DDL_H

#include <stddef.h>
#include <stdio.h>

#include "layout.h"

typedef struct {
    const char *cluster;       /* the cluster the Distributed table must point at */
    const char *local;         /* "db.table" the Distributed table must point at, or NULL */
    const sc_cluster *layout;  /* when given, its replicas are checked against the engines */
} sc_ddl_opts;

/* Parses sql (one or more statements; TSV-escaped SHOW CREATE rows are accepted) and checks every
 * Distributed table over a *ReplacingMergeTree (or over opts->local). Writes one line per table
 * checked to report and one line per problem, with why it breaks FINAL, to problems.
 * SC_OK (problems counted in *n_problems), SC_E_INPUT with err when the SQL cannot be read. */
int sc_ddl_check(const char *sql, size_t len, const sc_ddl_opts *opts, FILE *report, FILE *problems,
                 size_t *n_problems, sc_err *err);

#endif
