/* stage: the SQL that puts rows into staging: the Kafka reader and the file stager, both giving
 * every message unique coordinates (_topic, _partition, _offset) under {load_id:String}. */
#ifndef STAGE_H
#define STAGE_H

#include <stdio.h>

#include "ddl.h"

/* The Kafka table, the one-batch INSERT and the check that fails an empty batch (needs brokers,
 * topic and group). 0, or DDL_EIO. */
int ddl_kafka(FILE *out, const ddl_opts *o);
/* One INSERT staging the lines of o->file (read by the engine: clickhouse-local, chlocal, or a
 * server's user_files), or with no file the lines the client sends (input(), clickhouse-client),
 * as messages of topic o->source ("file" when NULL), partition 0, offset = line number from 1;
 * empty lines are skipped but keep their number. 0, or DDL_EIO. */
int ddl_stage(FILE *out, const ddl_opts *o);

#endif
