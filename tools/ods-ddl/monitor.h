/* monitor: the queries a person or a monitoring system runs to see the loads: one row per load
 * id with its state and a verdict (status), and the same as a check that fails when one needs
 * a person (check). */
#ifndef MONITOR_H
#define MONITOR_H

#include <stdio.h>

#include "ddl.h"

typedef struct {
    unsigned max_open_hours;   /* a load staged this long ago and not committed needs a person */
    unsigned max_reject_pct;   /* a committed load rejecting more than this share of its messages */
} ddl_check_limits;

/* SELECT: one row per load id found in staging, the seal, the ledger, the lease or the hot
 * table, in commit order then staging order, with its figures and a verdict. 0, or DDL_EIO. */
int ddl_status(FILE *out, const ddl_opts *o);
/* A statement that succeeds, printing nothing, when no load needs a person, and otherwise fails
 * (throwIf) naming each such load and why. 0, or DDL_EIO. */
int ddl_check(FILE *out, const ddl_opts *o, const ddl_check_limits *lim);

#endif
