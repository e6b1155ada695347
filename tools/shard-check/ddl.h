/* ddl.h: checks CREATE TABLE statements (SHOW CREATE TABLE output or ods-ddl output) for what
 * FINAL through a Distributed table needs: cluster, local table, sharding key, version, partition. */
#ifndef SC_DDL_H
#define SC_DDL_H

#include <stddef.h>
#include <stdio.h>

#include "layout.h"

/* Where the values of {NAME} macros in cluster names come from, as the server expands them
 * (Macros::expand, in ON CLUSTER and in Distributed's cluster argument alike). */
typedef struct {
    const char *const *defs; /* "NAME=VALUE" from --macro, in order; a later one wins */
    size_t n_defs;
    /* when no --macro defines NAME: the config's <macros>, read once by sc_macros_load_config */
    char **cfg_defs;         /* "NAME=VALUE", owned */
    size_t n_cfg;
    const char *cfg_why;     /* static: why a name is missing (no config, unreadable, not defined) */
    sc_err cfg_refused;      /* msg set: the server would refuse the config (and have no macros) */
} sc_macros;

/* Reads the <macros> of config (NULL: none given) into m once, for every expansion after it.
 * A pipe or stdin is not read (the layout reads it, once): its names then go unresolved with a
 * reason. SC_OK, or SC_E_NOMEM. sc_macros_free_config releases what it read. */
int sc_macros_load_config(sc_macros *m, const char *config);
void sc_macros_free_config(sc_macros *m);

/* Expands every {NAME} in s as the server's Macros::expand does: the value replaces the
 * reference verbatim (blanks kept), and the result is expanded again, at most 10 levels deep.
 * *out is malloc'ed (a copy of s when it has no '{'). SC_OK; SC_E_INPUT with err (where: the
 * macro and the name it is in; msg: why and how to give it a value) for an unclosed '{' or a
 * macro without value; SC_E_NOMEM. */
int sc_macros_expand(const sc_macros *m, const char *s, char **out, sc_err *err);

typedef struct {
    const char *cluster;       /* the cluster the Distributed table must point at (expanded) */
    const char *local;         /* "db.table" the Distributed table must point at, or NULL */
    const sc_cluster *layout;  /* when given, its replicas are checked against the engines */
    const sc_macros *macros;   /* expands macros in the DDL's cluster names; NULL: none defined */
} sc_ddl_opts;

/* Parses sql (one or more statements; TSV-escaped SHOW CREATE rows are accepted) and checks every
 * Distributed table over a *ReplacingMergeTree (or over opts->local). Writes one line per table
 * checked to report and one line per problem, with why it breaks FINAL, to problems.
 * SC_OK (problems counted in *n_problems), SC_E_INPUT with err when the SQL cannot be read. */
int sc_ddl_check(const char *sql, size_t len, const sc_ddl_opts *opts, FILE *report, FILE *problems,
                 size_t *n_problems, sc_err *err);

#endif
