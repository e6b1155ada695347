/* retention: the query that prints the DROP PARTITION statements retiring what committed loads
 * older than N days left in staging, the errors, the manifest, the fates and the stale records. */
#ifndef RETENTION_H
#define RETENTION_H

#include <stdio.h>

#include "ddl.h"

/* A SELECT printing (FORMAT TSVRaw) one ALTER TABLE … DROP PARTITION ID '…'; a line, to be run
 * by the same client afterwards: staging day partitions whose every row belongs to a load
 * committed more than keep_days ago and is in its manifest (no late row); errors day partitions
 * whose every row is such a load's; then the manifest, fates and stale partitions of the loads
 * whose staged rows are all gone with those. Never _rep, the hot table, the ledger, the seals,
 * nor any row of a load not committed. 0, or DDL_EIO. */
int ddl_retention(FILE *out, const ddl_opts *o, unsigned keep_days);

#endif
