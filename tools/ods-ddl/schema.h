/* schema: the DDL of the staging table and the ODS (tables, Distributed tables with --cluster,
 * the gate, the manifest, the lease view, order_v), built from the wire contract. */
#ifndef SCHEMA_H
#define SCHEMA_H

#include <stdio.h>

#include "ddl.h"

/* Writes the statements, separated by ";\n\n" and ending with ";\n"; the options must have
 * passed ddl_check_opts. 0, or DDL_EIO when writing failed. */
int ddl_schema(FILE *out, const ddl_opts *o);

#endif
