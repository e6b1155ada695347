/* ods-ddl: prints the order-snapshot schema, the STG → ODS transition and the Kafka reader as
 * SQL, with columns and types from the wire contract (ddl_gen does the writing). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ddl.h"
#include "migrate.h"
#include "monitor.h"
#include "retention.h"
#include "schema.h"
#include "stage.h"
#include "transition.h"

typedef enum { CMD_NONE, CMD_SCHEMA, CMD_TRANSITION, CMD_KAFKA, CMD_STAGE, CMD_ABANDON, CMD_MOVE_LATE, CMD_STATUS,
               CMD_CHECK, CMD_RETENTION, CMD_TAKE_BACK, CMD_MIGRATE,
               CMD_REBASELINE } ods_cmd;

typedef struct {
    int help, version;
    ods_cmd cmd;
    ddl_opts ddl;
    const char *store;  /* --store changes|every, transition only */
    const char *typing; /* --typing udf|sql, transition only */
    const char *gate_pieces, *piece_size; /* --gate-pieces P, --piece-size N, transition only */
    const char *open_hours, *reject_pct; /* check only */
    const char *keep_days_text;          /* retention only */
    unsigned keep_days;
    ddl_check_limits lim;
} args;

static const char USAGE[] =
    "usage: ods-ddl schema     [--cluster NAME [--replicated] [--per-node]] [--stg-db NAME]\n"
    "                          [--ods-db NAME]\n"
    "       ods-ddl transition [--cluster NAME] [--store changes|every] [--typing udf|sql]\n"
    "                          [--allow-empty] [--gate-pieces P] [--piece-size N]\n"
    "                          [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl kafka      --brokers LIST --topic NAME --group NAME [--stg-db NAME]\n"
    "       ods-ddl stage      [--source NAME] [--file PATH] [--stg-db NAME]\n"
    "       ods-ddl abandon    [--cluster NAME] [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl move-late  [--cluster NAME] [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl take-back  [--cluster NAME] [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl status     [--cluster NAME] [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl check      [--max-open-hours N] [--max-reject-pct N] [--cluster NAME]\n"
    "                          [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl retention  --keep-days N [--cluster NAME] [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl migrate    [--cluster NAME] [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-ddl rebaseline [--cluster NAME] [--stg-db NAME] [--ods-db NAME]\n"
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
    "                                          _load_ts; ReplacingMergeTree(updated_at)\n"
    "                                          ORDER BY order_id PARTITION BY toYYYYMMDD(created_at)\n"
    "              ODS.order_snapshot_errors   raw, error_class, Kafka coordinates, _load_id,\n"
    "                                          _load_ts\n"
    "              ODS.order_snapshot_hot      the columns of _rep; a load's new versions until the\n"
    "                                          next transition folds them into _rep\n"
    "              ODS.order_loads             the ledger: delta 1, 2, 3 ... per committed load,\n"
    "                                          with its figures (received, redelivered, accepted,\n"
    "                                          stored, unchanged, stale, rejected, per class)\n"
    "              ODS.order_manifest,         each load as its transition froze it: one row per\n"
    "              ODS.order_frozen            message, classified and typed; one row per frozen load\n"
    "              ODS.order_lease_v           who holds the transition's lease (order_lease)\n"
    "              ODS.order_v                 one current version per order_id, of committed\n"
    "                                          loads only (_rep FINAL and committed hot rows)\n"
    "            with --cluster: ON CLUSTER, ODS.order_snapshot_dist (Distributed, sharded by\n"
    "            cityHash64(order_id)), ODS.order_snapshot_errors_dist, order_snapshot_hot_dist,\n"
    "            order_loads_dist, order_v over the _dist tables;\n"
    "            --replicated: Replicated* engines with {shard}/{replica} macros (the cluster\n"
    "            must set internal_replication);\n"
    "            --per-node: the same statements without ON CLUSTER, to apply on every node\n"
    "            one by one (configuration management; no distributed DDL queue needed).\n"
    "transition  the 12 statements that move one load (parameter {load_id:String}):\n"
    "              1-2 the load id checked, the lease taken (one transition at a time; a\n"
    "              second run fails at statement 1, naming the holder);\n"
    "              3 the staging checked before anything is written: rows staged, each\n"
    "              Kafka coordinate one message, no other load frozen and not committed, the\n"
    "              ODS's hashdiff profile this version's (else: ods-ddl rebaseline);\n"
    "              4-5 the load frozen into the manifest (order_wire_parse: class and typed\n"
    "              row in one call) and sealed: later statements and the ledger read only it,\n"
    "              and rows staged under the id afterwards fail the run instead of vanishing;\n"
    "              6-7 housekeeping and fold of earlier committed loads into _rep;\n"
    "              8 rejected rows into the errors table:  ... AND error_class != ''\n"
    "              9 the rest, typed, into the hot table:  ... AND NOT (error_class != '')\n"
    "              10 the commit: the ledger row, checked against the tables (order_v shows\n"
    "              the load from here on, all of it); 11-12 the lease released.\n"
    "            run with e.g. chlocal --param_load_id=ID; with --cluster they write the _dist\n"
    "            tables. Every failure says \"transition K/12: ...\" and what to do.\n"
    "            _hashdiff = hashdiff_strict over the canonical text of the 10 state fields.\n"
    "            --store changes (default): one version per order and updated_at within a\n"
    "            load (the first received), stored only when it differs from what order_v\n"
    "            shows before the commit; versions older than that are left out. Any rerun\n"
    "            of a load leaves every table as one clean run does; a committed load's\n"
    "            rerun changes nothing.\n"
    "            --store every: every accepted version, as received (a rerun after a failure\n"
    "            stores them again).\n"
    "            --typing udf (default): class and typed fields from one order_wire_parse call\n"
    "            per message; --typing sql: for servers without that UDF, the class from\n"
    "            order_wire_class(raw) and each field typed by SQL (JSONExtract..., throwing\n"
    "            conversions); both give the same rows, bit for bit.\n"
    "            --allow-empty: a load with no staged rows commits (zeros) instead of failing.\n"
    "            --gate-pieces P, --piece-size N: the gate (statement 9) is P INSERTs (default\n"
    "            16), each reading a range of order_id buckets of about N messages (default\n"
    "            1048576; fewer pieces for a smaller load), so its memory is a piece's, not\n"
    "            the load's, up to P x N messages; the freeze (statement 4) likewise, each\n"
    "            INSERT a range of about N staged rows by their coordinates. How the load is\n"
    "            cut changes no fate; each INSERT costs 0.1 to 0.3 s even when its piece is\n"
    "            empty.\n"
    "kafka       STG.orders_kafka (Kafka engine, RawBLOB, one consumer; create it on one node\n"
    "            only) and the INSERT that reads one batch into STG.orders_raw with _load_id =\n"
    "            {load_id:String} and one _load_ts for the batch; empty messages are skipped;\n"
    "            then a check that fails the run (throwIf) when the batch staged no message,\n"
    "            naming the consumer's last error from system.kafka_consumers (an unreachable\n"
    "            broker reads nothing and would otherwise succeed). Run all three in one session.\n"
    "stage       one INSERT staging the lines of a file under {load_id:String} (backfills,\n"
    "            replays, tests): topic = --source (default file), partition 0, offset = line\n"
    "            number, so every message has unique coordinates; empty lines skipped. With\n"
    "            --file PATH the engine reads the file (clickhouse-local, chlocal; a pipe:\n"
    "            --file /dev/stdin); without, the client sends it (clickhouse-client --query\n"
    "            \"$(ods-ddl stage --source S)\" --param_load_id=ID < FILE).\n"
    "abandon     removes what runs of an uncommitted load left (manifest, seal, fates, hot,\n"
    "            error and stale rows), under the lease, so the next load may run; its staged rows\n"
    "            stay. Refuses a committed load. Parameter {load_id:String}.\n"
    "move-late   moves the rows staged under a frozen load after its freeze to a new load id\n"
    "            (parameters {load_id:String}, {to_load_id:String}), coordinates kept; then\n"
    "            run the new load's transition.\n"
    "take-back   removes the latest committed load ({load_id:String}) while its versions are\n"
    "            only in the hot table (before the next transition folds them): its ledger row\n"
    "            first, then what abandon removes; order_v shows again what it showed before\n"
    "            the load; its staged rows stay. Refuses, naming why, a load not the latest,\n"
    "            already folded, or while another load is frozen and not committed.\n"
    "status      one row per load id (staged, the seal, the ledger, the lease, hot rows): staged rows,\n"
    "            first/last staged, frozen_at, late_rows, running_since, uncommitted_hot_rows, the\n"
    "            ledger's figures, committed, ledger_broken, problem and a verdict (committed,\n"
    "            running, failed: rerun it, staged not run yet, or what needs a person).\n"
    "check       the same as a statement that fails (throwIf) naming every load that needs a\n"
    "            person, and prints nothing otherwise: not committed N hours after staging\n"
    "            (--max-open-hours, default 24), a lease held that long, late rows, more than\n"
    "            --max-reject-pct (default 5) of a committed load's messages rejected, a ledger\n"
    "            row that does not add up. Run both on the node that runs the transition.\n"
    "retention   a query printing the statements (ALTER TABLE ... DROP PARTITION ID, one a line)\n"
    "            that drop what loads committed more than --keep-days N days ago left: staging\n"
    "            days whose every row is such a load's (and in its manifest: late rows stay),\n"
    "            errors days likewise, then the manifest, fates and stale records of the loads\n"
    "            none of whose staged rows is left. Never _rep, the hot table, the ledger, or a\n"
    "            row of a load not committed. Run it, then run what it printed.\n"
    "migrate     writes this version's schema into scratch databases (STG_migrate, ODS_migrate),\n"
    "            compares them with the live ones (system.tables, system.columns) and prints\n"
    "            the statements that bring the live schema there: ADD COLUMN, CREATE OR REPLACE\n"
    "            VIEW; or fails naming why no safe statement exists (a table missing: run\n"
    "            ods-ddl schema first; a column's type or default, a table's engine or keys, a\n"
    "            materialized view that differ). Run it with no transition running, then run\n"
    "            what it printed; run again, it prints nothing.\n"
    "rebaseline  moves the ODS to this version's hashdiff profile (every stored version and\n"
    "            ledger row records it; the transition refuses an ODS of another): recomputes\n"
    "            _hashdiff of every stored version in place from its typed columns, then makes\n"
    "            the profile the ODS's. Under the lease, no load open.\n"
    "\n"
    "options:\n"
    "  --stg-db NAME     staging database (default stg)\n"
    "  --ods-db NAME     ODS database (default ods)\n"
    "  --cluster NAME    generate for this cluster (default: one node, no Distributed tables)\n"
    "  --replicated      Replicated* engines (needs --cluster)\n"
    "  --per-node        schema: no ON CLUSTER, for applying node by node (needs --cluster)\n"
    "  --store MODE      transition: changes (default) or every\n"
    "  --typing HOW      transition: udf (default) or sql\n"
    "  --allow-empty     transition: commit a load that has no staged rows\n"
    "  --gate-pieces P   transition: the gate's and the freeze's INSERTs, 1 to 64 (default 16)\n"
    "  --piece-size N    transition: messages per piece of the gate and the freeze, 1 to\n"
    "                    1000000000\n"
    "  --brokers LIST    Kafka broker list, host:port[,host:port...]\n"
    "  --topic NAME      Kafka topic\n"
    "  --group NAME      Kafka consumer group\n"
    "  --source NAME     stage: the _topic of the staged lines (default file)\n"
    "  --file PATH       stage: the file the engine reads (default: the client's input);\n"
    "                    no * ? { in it: the engine's file() takes them as a glob\n"
    "  -h, --help        this text\n"
    "  --version         print \"ods-ddl VERSION\" and exit\n"
    "Database names: [A-Za-z_][A-Za-z0-9_]*, at most 64 bytes, not the engine's system\n"
    "or information_schema (any case). Cluster names as the server names them: prod_ods,\n"
    "prod-ods, '{cluster}', ods_{env}, any UTF-8 up to 255 bytes without control characters,\n"
    "written quoted ('prod-ods') unless a plain identifier; {NAME} is a macro the server\n"
    "expands. Kafka values and --source: letters, digits, '._-' (broker lists also ':,[]').\n"
    "Load ids (the parameter): 1 to 128 of A-Z a-z 0-9 . _ : + / -, the first a letter or\n"
    "digit; the transition refuses anything else at statement 1.\n"
    "\n"
    "Exit status: 0 SQL printed; 1 writing failed; 2 usage error (unknown option, bad name).\n"
    "example: ods-ddl schema > schema.sql && chlocal --path db --queries-file schema.sql\n";

/* 0, or -1 with one line on stderr (the caller exits 2). */
static int parse(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->ddl.stg_db = "stg";
    a->ddl.ods_db = "ods";
    const struct {
        const char *name;
        const char **dst;
    } valued[] = {
        {"--stg-db", &a->ddl.stg_db},   {"--ods-db", &a->ddl.ods_db}, {"--cluster", &a->ddl.cluster},
        {"--brokers", &a->ddl.brokers}, {"--topic", &a->ddl.topic},   {"--group", &a->ddl.group},
        {"--source", &a->ddl.source},   {"--file", &a->ddl.file},     {"--store", &a->store},
        {"--typing", &a->typing},       {"--max-open-hours", &a->open_hours},
        {"--gate-pieces", &a->gate_pieces}, {"--piece-size", &a->piece_size},
        {"--max-reject-pct", &a->reject_pct}, {"--keep-days", &a->keep_days_text},
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
        if (!strcmp(s, "--allow-empty")) {
            a->ddl.allow_empty = 1;
            continue;
        }
        size_t k = 0, nv = sizeof valued / sizeof valued[0];
        int got = 0;
        while (k < nv && (got = cli_option_value("ods-ddl", argc, argv, &i, valued[k].name, valued[k].dst)) == 0)
            k++;
        if (got < 0)
            return -1;
        if (got)
            continue;
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
                 : !strcmp(s, "stage")      ? CMD_STAGE
                 : !strcmp(s, "abandon")    ? CMD_ABANDON
                 : !strcmp(s, "move-late")  ? CMD_MOVE_LATE
                 : !strcmp(s, "status")     ? CMD_STATUS
                 : !strcmp(s, "check")      ? CMD_CHECK
                 : !strcmp(s, "retention")  ? CMD_RETENTION
                 : !strcmp(s, "take-back")  ? CMD_TAKE_BACK
                 : !strcmp(s, "migrate")    ? CMD_MIGRATE
                 : !strcmp(s, "rebaseline") ? CMD_REBASELINE
                                            : CMD_NONE;
        if (a->cmd == CMD_NONE) {
            fputs("ods-ddl: unknown command: ", stderr);
            cli_put_arg(s);
            fputs(" (expected schema, transition, kafka, stage, abandon, move-late, take-back, status, check, retention, migrate or rebaseline)\n", stderr);
            return -1;
        }
    }
    if (a->cmd == CMD_NONE) {
        fprintf(stderr, "ods-ddl: which SQL? schema, transition, kafka, stage, abandon, move-late, take-back, status, "
                "check, retention, migrate or rebaseline (try --help)\n");
        return -1;
    }
    if (a->cmd != CMD_TRANSITION && a->ddl.allow_empty) {
        fprintf(stderr, "ods-ddl: --allow-empty applies to transition only (try --help)\n");
        return -1;
    }
    if (a->cmd != CMD_STAGE && (a->ddl.source || a->ddl.file)) {
        fprintf(stderr, "ods-ddl: --source and --file apply to stage only (try --help)\n");
        return -1;
    }
    if ((a->cmd == CMD_KAFKA || a->cmd == CMD_STAGE) && a->ddl.cluster) {
        fprintf(stderr, "ods-ddl: %s is for the node that runs the transition: no --cluster (try --help)\n",
                a->cmd == CMD_KAFKA ? "kafka" : "stage");
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
    if ((a->store || a->typing) && a->cmd != CMD_TRANSITION) {
        fprintf(stderr, "ods-ddl: %s applies to transition only (try --help)\n", a->store ? "--store" : "--typing");
        return -1;
    }
    ddl_error merr = {0};
    if (ddl_set_modes(&a->ddl, a->store, a->typing, &merr) < 0) {
        cli_bad_value("ods-ddl", merr.what, !strcmp(merr.what, "--store") ? a->store : a->typing, merr.msg);
        return -1;
    }
    if ((a->gate_pieces || a->piece_size) && a->cmd != CMD_TRANSITION) {
        fprintf(stderr, "ods-ddl: %s applies to transition only (try --help)\n",
                a->gate_pieces ? "--gate-pieces" : "--piece-size");
        return -1;
    }
    if (ddl_set_gate(&a->ddl, a->gate_pieces, a->piece_size, &merr) < 0) {
        cli_bad_value("ods-ddl", merr.what, !strcmp(merr.what, "--gate-pieces") ? a->gate_pieces : a->piece_size,
                      merr.msg);
        return -1;
    }
    if ((a->open_hours || a->reject_pct) && a->cmd != CMD_CHECK) {
        fprintf(stderr, "ods-ddl: --max-open-hours and --max-reject-pct apply to check only (try --help)\n");
        return -1;
    }
    unsigned long long hours = 24, pct = 5, days = 0;
    if (a->open_hours && cli_whole(a->open_hours, 1, 8760, &hours) < 0) {
        cli_bad_value("ods-ddl", "--max-open-hours", a->open_hours, "a whole number of hours, 1 to 8760");
        return -1;
    }
    if (a->reject_pct && cli_whole(a->reject_pct, 0, 100, &pct) < 0) {
        cli_bad_value("ods-ddl", "--max-reject-pct", a->reject_pct, "a whole percentage, 0 to 100");
        return -1;
    }
    a->lim.max_open_hours = (unsigned)hours;
    a->lim.max_reject_pct = (unsigned)pct;
    if (a->keep_days_text && a->cmd != CMD_RETENTION) {
        fprintf(stderr, "ods-ddl: --keep-days applies to retention only (try --help)\n");
        return -1;
    }
    if (a->cmd == CMD_RETENTION && !a->keep_days_text) {
        fprintf(stderr, "ods-ddl: retention needs --keep-days N: how many days committed loads keep their staging "
                "(try --help)\n");
        return -1;
    }
    if (a->keep_days_text && cli_whole(a->keep_days_text, 1, 36500, &days) < 0) {
        cli_bad_value("ods-ddl", "--keep-days", a->keep_days_text, "a whole number of days, 1 to 36500");
        return -1;
    }
    a->keep_days = (unsigned)days;
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
             : a->cmd == CMD_KAFKA      ? ddl_kafka(stdout, &a->ddl)
             : a->cmd == CMD_STAGE      ? ddl_stage(stdout, &a->ddl)
             : a->cmd == CMD_ABANDON    ? ddl_abandon(stdout, &a->ddl)
             : a->cmd == CMD_STATUS     ? ddl_status(stdout, &a->ddl)
             : a->cmd == CMD_CHECK      ? ddl_check(stdout, &a->ddl, &a->lim)
             : a->cmd == CMD_RETENTION  ? ddl_retention(stdout, &a->ddl, a->keep_days)
             : a->cmd == CMD_TAKE_BACK  ? ddl_take_back(stdout, &a->ddl)
             : a->cmd == CMD_MIGRATE    ? ddl_migrate(stdout, &a->ddl)
             : a->cmd == CMD_REBASELINE ? ddl_rebaseline(stdout, &a->ddl)
                                        : ddl_move_late(stdout, &a->ddl);
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
