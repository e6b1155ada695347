/* ods-ddl: prints the order-snapshot schema, the STG → ODS transition and the Kafka reader as
 * SQL, with columns and types from the wire contract (ddl_gen does the writing). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ddl.h"

typedef enum { CMD_NONE, CMD_SCHEMA, CMD_TRANSITION, CMD_KAFKA } ods_cmd;

typedef struct {
    int help, version;
    ods_cmd cmd;
    ddl_opts ddl;
    const char *store;  /* --store changes|every, transition only */
    const char *typing; /* --typing udf|sql, transition only */
} args;

static const char USAGE[] =
    "usage: ods-ddl schema     [--cluster NAME [--replicated] [--per-node]] [--stg-db NAME]\n"
    "                          [--ods-db NAME]\n"
    "       ods-ddl transition [--cluster NAME] [--store changes|every] [--typing udf|sql]\n"
    "                          [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl kafka      --brokers LIST --topic NAME --group NAME [--stg-db NAME]\n"
    "       ods-ddl --help | --version\n"
    "\n"
    "Prints SQL for the order-snapshot ODS (wire contract " WIRE_CONTRACT_VERSION "), one statement\n"
    "after another, each ending with ';'. Column names and types come from the contract's one\n"
    "definition (lib/wire_contract.c). docs/schema.md explains every choice.\n"
    "\n"
    "schema      idempotent DDL (IF NOT EXISTS):\n"
    "              STG.orders_raw              raw String as received, Kafka _topic _partition\n"
    "                                          _offset _timestamp _key, _load_id, _load_ts;\n"
    "                                          MergeTree ORDER BY (_load_id, ...)\n"
    "              ODS.order_snapshot_rep      the 11 typed contract columns, _hashdiff, _load_id,\n"
    "                                          _load_ts;\n"
    "                                          ReplacingMergeTree(updated_at) ORDER BY order_id\n"
    "                                          PARTITION BY toDate(created_at)\n"
    "              ODS.order_snapshot_errors   raw, error_class, Kafka coordinates, _load_id,\n"
    "                                          _load_ts\n"
    "              ODS.order_snapshot_hot      the columns of _rep; a load's new versions until the\n"
    "                                          next transition folds them into _rep\n"
    "              ODS.order_loads             the ledger: delta 1, 2, 3 ... per committed load,\n"
    "                                          with its figures (received, accepted, stored, ...)\n"
    "              ODS.order_v                 one current version per order_id, of committed\n"
    "                                          loads only (_rep FINAL and committed hot rows)\n"
    "            with --cluster: ON CLUSTER, ODS.order_snapshot_dist (Distributed, sharded by\n"
    "            cityHash64(order_id)), ODS.order_snapshot_errors_dist, order_snapshot_hot_dist,\n"
    "            order_loads_dist, order_v over the _dist tables;\n"
    "            --replicated: Replicated* engines with {shard}/{replica} macros (the cluster\n"
    "            must set internal_replication);\n"
    "            --per-node: the same statements without ON CLUSTER, to apply on every node\n"
    "            one by one (configuration management; no distributed DDL queue needed).\n"
    "transition  the seven statements that move one load (parameter {load_id:String}):\n"
    "              1-2 housekeeping and fold of earlier committed loads into _rep;\n"
    "              3 rejected rows into the errors table:  ... AND _w.class != ''\n"
    "              4 the rest, typed, into the hot table:  ... AND NOT (_w.class != '')\n"
    "              (_w = order_wire_parse(raw): the class and the typed row in one call)\n"
    "              5-7 the commit: a lock, the ledger row (order_v shows the load from here on,\n"
    "              all of it), the lock released.\n"
    "            run with e.g. chlocal --param_load_id=ID; with --cluster they write the _dist\n"
    "            tables. Typing uses throwing conversions only: a bad value fails the load.\n"
    "            _hashdiff = hashdiff_strict over the canonical text of the 10 state fields.\n"
    "            --store changes (default): one version per order and updated_at within a\n"
    "            load (the first received), stored only when it differs from what order_v\n"
    "            shows before the commit; versions older than that are left out. Any rerun\n"
    "            of a load leaves every table as one clean run does; a committed load's\n"
    "            rerun changes nothing. One transition at a time.\n"
    "            --store every: every accepted version, as received (a rerun after a failure\n"
    "            stores them again).\n"
    "            --typing udf (default): class and typed fields from one order_wire_parse call\n"
    "            per row; --typing sql: for servers without that UDF, the class from\n"
    "            order_wire_class(raw) and each field typed by SQL (JSONExtract..., throwing\n"
    "            conversions); both give the same rows, bit for bit.\n"
    "kafka       STG.orders_kafka (Kafka engine, RawBLOB, one consumer; create it on one node\n"
    "            only) and the INSERT that reads one batch into STG.orders_raw with _load_id =\n"
    "            {load_id:String} and one _load_ts for the batch; empty messages are skipped;\n"
    "            then a check that fails the run (throwIf) when the batch staged no message,\n"
    "            naming the consumer's last error from system.kafka_consumers (an unreachable\n"
    "            broker reads nothing and would otherwise succeed). Run all three in one session.\n"
    "\n"
    "options:\n"
    "  --stg-db NAME     staging database (default stg)\n"
    "  --ods-db NAME     ODS database (default ods)\n"
    "  --cluster NAME    generate for this cluster (default: one node, no Distributed tables)\n"
    "  --replicated      Replicated* engines (needs --cluster)\n"
    "  --per-node        schema: no ON CLUSTER, for applying node by node (needs --cluster)\n"
    "  --store MODE      transition: changes (default) or every\n"
    "  --typing HOW      transition: udf (default) or sql\n"
    "  --brokers LIST    Kafka broker list, host:port[,host:port...]\n"
    "  --topic NAME      Kafka topic\n"
    "  --group NAME      Kafka consumer group\n"
    "  -h, --help        this text\n"
    "  --version         print \"ods-ddl VERSION\" and exit\n"
    "Database names: [A-Za-z_][A-Za-z0-9_]*, at most 64 bytes, not the engine's system\n"
    "or information_schema (any case). Cluster names as the server names them: prod_ods,\n"
    "prod-ods, '{cluster}', ods_{env}, any UTF-8 up to 255 bytes without control characters,\n"
    "written quoted ('prod-ods') unless a plain identifier; {NAME} is a macro the server\n"
    "expands. Kafka values: letters, digits, '._-' (broker lists also ':,[]').\n"
    "\n"
    "Exit status: 0 SQL printed; 1 writing failed; 2 usage error (unknown option, bad name).\n"
    "example: ods-ddl schema > schema.sql && chlocal --path db --queries-file schema.sql\n";

/* 0, or -1 with one line on stderr (the caller exits 2). */
static int parse(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->ddl.stg_db = "stg";
    a->ddl.ods_db = "ods";
    static const struct {
        const char *name;
        size_t off;
    } valued[] = {
        {"--stg-db", offsetof(ddl_opts, stg_db)}, {"--ods-db", offsetof(ddl_opts, ods_db)},
        {"--cluster", offsetof(ddl_opts, cluster)}, {"--brokers", offsetof(ddl_opts, brokers)},
        {"--topic", offsetof(ddl_opts, topic)},     {"--group", offsetof(ddl_opts, group)},
        {"--store", (size_t)-1},   {"--typing", (size_t)-2},
    };
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            a->help = 1;
            return 0;
        }
        if (!strcmp(s, "--version")) {
            a->version = 1;
            return 0;
        }
        if (!strcmp(s, "--replicated")) {
            a->ddl.replicated = 1;
            continue;
        }
        if (!strcmp(s, "--per-node")) {
            a->ddl.per_node = 1;
            continue;
        }
        size_t k = 0, nv = sizeof valued / sizeof valued[0];
        const char *val = NULL;
        for (; k < nv; k++) {
            size_t n = strlen(valued[k].name);
            if (!strncmp(s, valued[k].name, n) && (s[n] == '\0' || s[n] == '=')) {
                if (s[n] == '=') {
                    val = s + n + 1;
                } else if (i + 1 < argc) {
                    val = argv[++i];
                } else {
                    cli_missing_value("ods-ddl", valued[k].name);
                    return -1;
                }
                break;
            }
        }
        if (k < nv) {
            if (valued[k].off == (size_t)-1)
                a->store = val;
            else if (valued[k].off == (size_t)-2)
                a->typing = val;
            else
                *(const char **)((char *)&a->ddl + valued[k].off) = val;
            continue;
        }
        if (s[0] == '-') {
            cli_unknown_option("ods-ddl", s);
            return -1;
        }
        if (a->cmd != CMD_NONE) {
            cli_unexpected_argument("ods-ddl", s);
            return -1;
        }
        a->cmd = !strcmp(s, "schema")       ? CMD_SCHEMA
                 : !strcmp(s, "transition") ? CMD_TRANSITION
                 : !strcmp(s, "kafka")      ? CMD_KAFKA
                                            : CMD_NONE;
        if (a->cmd == CMD_NONE) {
            fputs("ods-ddl: unknown command: ", stderr);
            cli_put_arg(s);
            fputs(" (expected schema, transition or kafka)\n", stderr);
            return -1;
        }
    }
    if (a->cmd == CMD_NONE) {
        fprintf(stderr, "ods-ddl: which SQL? schema, transition or kafka (try --help)\n");
        return -1;
    }
    if (a->cmd != CMD_SCHEMA && a->ddl.replicated) {
        fprintf(stderr, "ods-ddl: --replicated applies to schema only (try --help)\n");
        return -1;
    }
    if (a->cmd != CMD_SCHEMA && a->ddl.per_node) {
        fprintf(stderr, "ods-ddl: --per-node applies to schema only (try --help)\n");
        return -1;
    }
    if (a->cmd != CMD_KAFKA && (a->ddl.brokers || a->ddl.topic || a->ddl.group)) {
        fprintf(stderr, "ods-ddl: --brokers, --topic and --group apply to kafka only (try --help)\n");
        return -1;
    }
    if (a->store && a->cmd != CMD_TRANSITION) {
        fprintf(stderr, "ods-ddl: --store applies to transition only (try --help)\n");
        return -1;
    }
    if (a->store && strcmp(a->store, "changes") != 0 && strcmp(a->store, "every") != 0) {
        cli_bad_value("ods-ddl", "--store", a->store, "changes or every");
        return -1;
    }
    a->ddl.store_every = a->store && !strcmp(a->store, "every");
    if (a->typing && a->cmd != CMD_TRANSITION) {
        fprintf(stderr, "ods-ddl: --typing applies to transition only (try --help)\n");
        return -1;
    }
    if (a->typing && strcmp(a->typing, "udf") != 0 && strcmp(a->typing, "sql") != 0) {
        cli_bad_value("ods-ddl", "--typing", a->typing, "udf or sql");
        return -1;
    }
    a->ddl.typing_sql = a->typing && !strcmp(a->typing, "sql");
    if (a->cmd == CMD_KAFKA && a->ddl.cluster) {
        fprintf(stderr, "ods-ddl: kafka is for one node: no --cluster (try --help)\n");
        return -1;
    }
    ddl_error err = {0};
    if (ddl_check_opts(&a->ddl, a->cmd == CMD_KAFKA, &err) < 0) {
        fprintf(stderr, "ods-ddl: %s %s (try --help)\n", err.what ? err.what : "a name", err.msg);
        return -1;
    }
    return 0;
}

/* The exit status. */
static int run(const args *a)
{
    if (a->help)
        return fputs(USAGE, stdout) == EOF ? 1 : 0;
    if (a->version)
        return cli_version("ods-ddl");
    int rc = a->cmd == CMD_SCHEMA       ? ddl_schema(stdout, &a->ddl)
             : a->cmd == CMD_TRANSITION ? ddl_transition(stdout, &a->ddl)
                                        : ddl_kafka(stdout, &a->ddl);
    if (fflush(stdout) == EOF)
        rc = DDL_EIO;
    if (rc < 0) {
        fprintf(stderr, "ods-ddl: cannot write the SQL to stdout\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    if (parse(argc, argv, &a) < 0)
        return 2;
    return run(&a);
}
