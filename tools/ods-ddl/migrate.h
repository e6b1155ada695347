/* migrate: the SQL that compares a live ODS schema with the one this version writes and prints
 * the statements that bring it there, or refuses, naming why, where no safe statement exists. */
#ifndef MIGRATE_H
#define MIGRATE_H

#include <stdio.h>

#include "ddl.h"

/* Creates this version's schema (one node) in scratch databases named after the live ones
 * (STG_migrate, ODS_migrate), compares system.tables and system.columns, prints (FORMAT TSVRaw)
 * one statement a line: ADD COLUMN for a missing column, CREATE OR REPLACE VIEW for a view
 * whose query differs; fails (throwIf) instead, naming each, when a table of this version is
 * missing (run ods-ddl schema first), or a column's type or default, a table's engine, partition
 * or sorting key, or a materialized view differs; then drops the scratch databases. With a
 * cluster, the scratch holds the cluster's shape on this node (its Distributed tables and views
 * over them) and the statements carry ON CLUSTER. 0, or DDL_EIO. */
int ddl_migrate(FILE *out, const ddl_opts *o);

#endif
