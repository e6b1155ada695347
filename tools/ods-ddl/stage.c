/* stage: the two ways rows reach staging: the Kafka reader (a Kafka table, the one-batch INSERT and
 * the check that fails an empty batch) and lines of a file, with unique coordinates. */
#include "stage.h"

#include "sqlw.h"

int ddl_kafka(FILE *out, const ddl_opts *o)
{
    int st = 0;
    const char *S = o->stg_db;

    sqlw_put(&st, out, "-- ods-ddl kafka: one consumer, created on this node only; the INSERT "
                  "reads one batch, run it with --param_load_id=ID\n"
                  "-- and all three statements in one session: the check after it fails the run "
                  "when the batch staged no message (an unreachable broker: its last error)\n");
    sqlw_put(&st, out, "CREATE TABLE IF NOT EXISTS %s.orders_kafka\n(\n    raw String\n)\nENGINE = Kafka\n"
                  "SETTINGS\n    kafka_broker_list = ", S);
    sqlw_quote(&st, out, o->brokers);
    sqlw_put(&st, out, ",\n    kafka_topic_list = ");
    sqlw_quote(&st, out, o->topic);
    sqlw_put(&st, out, ",\n    kafka_group_name = ");
    sqlw_quote(&st, out, o->group);
    sqlw_put(&st, out, ",\n    kafka_format = 'RawBLOB',\n    kafka_num_consumers = 1,\n"
                  "    kafka_commit_on_select = 1;\n\n");
    sqlw_put(&st, out, "INSERT INTO %s.orders_raw (raw, ", S);
    sqlw_meta_names(&st, out);
    sqlw_put(&st, out, "_load_id, _load_ts)\n"
                  "SELECT raw, _topic, _partition, _offset, _timestamp_ms, _key, {load_id:String}, "
                  "now64(3, 'UTC')\nFROM %s.orders_kafka\nWHERE raw != ''\n"
                  "SETTINGS stream_like_engine_allow_direct_select = 1;\n\n", S);
    /* The engine does not fail a Kafka SELECT whose broker is unreachable: it waits, reads no
     * message and succeeds; the consumer's errors are only in system.kafka_consumers
     * (exceptions.time, exceptions.text, kept while the server runs). A nightly snapshot is never
     * empty, so a batch that staged nothing under this _load_id fails here, naming the last error. */
    sqlw_put(&st, out, "-- the check: no message staged for this load is an error, not an empty success "
                  "(system.kafka_consumers, ClickHouse 23.8 and later)\n"
                  "SELECT throwIf((SELECT count() FROM %s.orders_raw WHERE _load_id = {load_id:String}) = 0\n"
                  "               AND (SELECT count() FROM system.tables WHERE database = ", S);
    sqlw_quote(&st, out, S);
    sqlw_put(&st, out, " AND name = 'orders_kafka'\n"
                  "                    AND engine = 'Kafka') > 0,\n"
                  "    (SELECT concat('Kafka batch ', {load_id:String}, ': no message was read from %s.orders_kafka (brokers ', ", S);
    sqlw_quote(&st, out, o->brokers);
    sqlw_put(&st, out, ",\n                   ', topic ', ");
    sqlw_quote(&st, out, o->topic);
    sqlw_put(&st, out, ", ', group ', ");
    sqlw_quote(&st, out, o->group);
    sqlw_put(&st, out, ", '); ',\n"
                  "                   if(length(t) = 0, 'the consumer recorded no error (is the topic empty, or has the group read it all?)',\n"
                  "                      concat('the consumer''s last error, at ', toString(arrayMax(t)), ': ',\n"
                  "                             splitByChar('\\n', x[indexOf(t, arrayMax(t))])[1])),\n"
                  "                   '. Nothing was committed: check the brokers and system.kafka_consumers, then rerun')\n"
                  "     FROM (SELECT groupArrayArray(exceptions.time) AS t, groupArrayArray(exceptions.text) AS x\n"
                  "           FROM system.kafka_consumers WHERE database = ");
    sqlw_quote(&st, out, S);
    sqlw_put(&st, out, " AND table = 'orders_kafka')))\nFORMAT Null;\n");
    return st;
}


int ddl_stage(FILE *out, const ddl_opts *o)
{
    int st = 0;
    const char *src = o->source ? o->source : "file";
    sqlw_put(&st, out, "-- ods-ddl stage: each line of %s under {load_id:String} (--param_load_id=ID), as topic '%s', "
                       "partition 0, offset = its line number\n-- from 1: a file staged twice under one load id is "
                       "the same messages (redelivered), an edited one is refused by the transition. Empty lines are "
                       "skipped.\n",
             o->file ? "the file" : "the client's input (clickhouse-client --query \"$(ods-ddl stage)\" < FILE)", src);
    sqlw_put(&st, out, "INSERT INTO %s.orders_raw (raw, ", o->stg_db);
    sqlw_meta_names(&st, out);
    sqlw_put(&st, out, "_load_id, _load_ts)\nSELECT raw, ");
    sqlw_quote(&st, out, src);
    /* one _load_ts per statement, as the Kafka batch writes it; numbering is in file order only
     * with one reading thread and no parallel parsing (checked on 300 000 lines) */
    sqlw_put(&st, out, ", 0, _line, NULL, '', {load_id:String}, now64(3, 'UTC')\n"
                       "FROM (SELECT raw, rowNumberInAllBlocks() + 1 AS _line FROM ");
    if (o->file) {
        sqlw_put(&st, out, "file(");
        sqlw_quote(&st, out, o->file);
        sqlw_put(&st, out, ", LineAsString, 'raw String')");
    } else {
        sqlw_put(&st, out, "input('raw String')");
    }
    /* input() takes its data after FORMAT: no ';' may follow */
    sqlw_put(&st, out, ")\nWHERE raw != ''\nSETTINGS input_format_parallel_parsing = 0, max_threads = 1%s\n",
             o->file ? ";" : "\nFORMAT LineAsString");
    return st;
}
