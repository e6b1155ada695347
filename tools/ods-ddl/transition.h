/* transition: the statements that move one load ({load_id:String}) from staging into the ODS,
 * and the procedures that repair what a run left: abandoning a load, moving late rows. */
#ifndef TRANSITION_H
#define TRANSITION_H

#include <stdio.h>

#include "ddl.h"

/* The number of statements ddl_transition writes; each check's message starts with
 * "transition K/DDL_TRANSITION_STATEMENTS: ". */
#define DDL_TRANSITION_STATEMENTS 12

/* Each writes its statements, each preceded by a "-- K. ..." line, separated by ";\n\n" and
 * ending with ";\n"; the options must have passed ddl_check_opts. 0, or DDL_EIO. */
int ddl_transition(FILE *out, const ddl_opts *o);
/* Removes an uncommitted load's manifest, seal, hot, error and stale rows under the lease, so
 * that the next load may run and this one may be run again from its staging; refuses a
 * committed load. */
int ddl_abandon(FILE *out, const ddl_opts *o);
/* Removes the latest committed load while its versions are only in the hot table (no later
 * transition has folded them): its ledger row first, then what abandon removes; refuses
 * otherwise, naming why. */
int ddl_take_back(FILE *out, const ddl_opts *o);
/* Moves the ODS to this version's hashdiff profile (ddl_hashdiff_profile): recomputes _hashdiff
 * of every stored version in place from its typed columns, then makes the profile the default
 * of the stored tables, which the transition checks; under the lease, with no load open. */
int ddl_rebaseline(FILE *out, const ddl_opts *o);
/* Moves the rows staged under a frozen load after its freeze ({load_id:String}) to a new load
 * ({to_load_id:String}), keeping their coordinates, under the lease. */
int ddl_move_late(FILE *out, const ddl_opts *o);

#endif
