/* ods-load: runs one load's transition, as an orchestrator calls it: one command, a progress
 * line per statement, exit 0 once the load is committed, 1 with the statement and the remedy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "load.h"

typedef struct {
    int help, version;
    ld_opts ld;
    const char *store, *typing, *server_wait, *gate_pieces, *piece_size;
    char chlocal[4096]; /* the chlocal beside this program */
} args;

static const char USAGE[] =
    "usage: ods-load --load-id ID [--path DIR | [--host H] [--port P] [--user U] [--secure]\n"
    "                [--client-config FILE] [--server-wait S]] [--client PROGRAM] [--cluster NAME]\n"
    "                [--store changes|every] [--typing udf|sql] [--allow-empty]\n"
    "                [--gate-pieces P] [--piece-size N] [--stg-db NAME] [--ods-db NAME]\n"
    "       ods-load --help | --version\n"
    "\n"
    "Runs the transition of one load (the 12 statements of `ods-ddl transition`, with the same\n"
    "options) statement by statement, each in a process of its own: through clickhouse-client,\n"
    "or with --path DIR through chlocal on the embedded engine's database in DIR. A line per\n"
    "statement on stderr; once the load is committed, its ledger row (ODS.order_loads) on\n"
    "stdout as TSV with names. Safe to retry as a whole: a committed load's rerun changes\n"
    "nothing; a run stopped part way resumes where the transition can. A run that took the\n"
    "lease and then fails (or is stopped by SIGINT, SIGTERM, SIGHUP) releases it, once its\n"
    "processes have ended, unless another run holds it by then; a run killed by SIGKILL\n"
    "leaves it held, and the next run names it (docs/operations.md says what to do).\n"
    "\n"
    "options:\n"
    "  --load-id ID          the load (1 to 128 of A-Z a-z 0-9 . _ : + / -, the first a\n"
    "                        letter or digit)\n"
    "  --path DIR            the embedded engine's database (chlocal --path DIR)\n"
    "  --host H, --port P, --user U, --secure, --client-config FILE\n"
    "                        passed to clickhouse-client (--config-file FILE); the password\n"
    "                        goes in that file or the client's own config, never on a command\n"
    "                        line (any process can read those)\n"
    "  --client PROGRAM      the program run for each statement (default clickhouse-client;\n"
    "                        with --path, the chlocal beside ods-load)\n"
    "  --server-wait S       after a failure, how long to wait for this run's queries to end\n"
    "                        on the server (they carry query ids ods-load-PID-TIME-N) before\n"
    "                        releasing the lease; still running then, the lease stays (default 60)\n"
    "  --cluster NAME, --store MODE, --typing HOW, --allow-empty, --gate-pieces P,\n"
    "  --piece-size N, --stg-db NAME, --ods-db NAME\n"
    "                        as for ods-ddl transition; but without --gate-pieces, the gate\n"
    "                        and the freeze have as many INSERTs as the load's staged rows\n"
    "                        need (one per --piece-size rows, at most 16), counted before\n"
    "                        statement 1\n"
    "  -h, --help            this text\n"
    "  --version             print \"ods-load VERSION\" and exit\n"
    "\n"
    "Exit status: 0 the load is committed (by this run or before); 1 it is not: the failing\n"
    "statement and what to do are on stderr; 2 usage error.\n"
    "example: ods-load --path db --load-id 2026-03-01.orders\n";

/* 0, or -1 with one line on stderr (the caller exits 2). */
static int parse(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->ld.ddl.stg_db = "stg";
    a->ld.ddl.ods_db = "ods";
    struct {
        const char *name;
        const char **dst;
    } valued[] = {
        {"--load-id", &a->ld.load_id}, {"--path", &a->ld.path},       {"--client", &a->ld.program},
        {"--host", &a->ld.host},       {"--port", &a->ld.port},       {"--user", &a->ld.user},
        {"--client-config", &a->ld.client_config},
        {"--cluster", &a->ld.ddl.cluster}, {"--stg-db", &a->ld.ddl.stg_db}, {"--ods-db", &a->ld.ddl.ods_db},
        {"--store", &a->store},        {"--typing", &a->typing},     {"--server-wait", &a->server_wait},
        {"--gate-pieces", &a->gate_pieces}, {"--piece-size", &a->piece_size},
    };
    size_t nv = sizeof valued / sizeof valued[0];
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
        if (!strcmp(s, "--secure")) {
            a->ld.secure = 1;
            continue;
        }
        if (!strcmp(s, "--allow-empty")) {
            a->ld.ddl.allow_empty = 1;
            continue;
        }
        size_t k = 0;
        int got = 0;
        while (k < nv && (got = cli_option_value("ods-load", argc, argv, &i, valued[k].name, valued[k].dst)) == 0)
            k++;
        if (got < 0)
            return -1;
        if (!got)
            return (s[0] == '-' ? cli_unknown_option("ods-load", s) : cli_unexpected_argument("ods-load", s)), -1;
    }
    if (!a->ld.load_id) {
        fputs("ods-load: which load? --load-id ID is required (try --help)\n", stderr);
        return -1;
    }
    if (ddl_check_load_id(a->ld.load_id) < 0)
        return cli_bad_value("ods-load", "--load-id", a->ld.load_id, DDL_LOAD_ID_RULE), -1;
    if (a->ld.path && (a->ld.host || a->ld.port || a->ld.user || a->ld.secure || a->ld.client_config || a->server_wait)) {
        fputs("ods-load: --path runs the embedded engine: no --host, --port, --user, --secure, --client-config or "
              "--server-wait (try --help)\n", stderr);
        return -1;
    }
    struct stat sb;
    if (a->ld.path && (stat(a->ld.path, &sb) < 0 || !S_ISDIR(sb.st_mode)))
        /* the engine would make an empty database there and fail on its missing tables */
        return cli_bad_value("ods-load", "--path", a->ld.path, "the directory of a database holding the schema"), -1;
    unsigned long long port;
    if (a->ld.port && cli_whole(a->ld.port, 1, 65535, &port) < 0) /* " 80" and "+80" too */
        return cli_bad_value("ods-load", "--port", a->ld.port, "a port, 1 to 65535"), -1;
    a->ld.server_wait = 60;
    if (a->server_wait) {
        unsigned long long w;
        if (cli_whole(a->server_wait, 0, 86400, &w) < 0)
            return cli_bad_value("ods-load", "--server-wait", a->server_wait, "whole seconds, 0 to 86400"), -1;
        a->ld.server_wait = (unsigned)w;
    }
    ddl_error merr = {0};
    if (ddl_set_gate(&a->ld.ddl, a->gate_pieces, a->piece_size, &merr) < 0)
        return cli_bad_value("ods-load", merr.what, !strcmp(merr.what, "--gate-pieces") ? a->gate_pieces : a->piece_size,
                             merr.msg), -1;
    if (ddl_set_modes(&a->ld.ddl, a->store, a->typing, &merr) < 0)
        return cli_bad_value("ods-load", merr.what, !strcmp(merr.what, "--store") ? a->store : a->typing, merr.msg), -1;
    ddl_error err = {0};
    if (ddl_check_opts(&a->ld.ddl, 0, &err) < 0) {
        fprintf(stderr, "ods-load: %s %s (try --help)\n", err.what ? err.what : "a name", err.msg);
        return -1;
    }
    if (!a->ld.program && a->ld.path) {
        /* the chlocal installed or built beside this program: the one its UDFs belong with */
        ssize_t n = readlink("/proc/self/exe", a->chlocal, sizeof a->chlocal - 16);
        char *slash = n > 0 ? memrchr(a->chlocal, '/', (size_t)n) : NULL;
        if (slash)
            strcpy(slash + 1, "chlocal");
        a->ld.program = slash ? a->chlocal : "chlocal";
    }
    if (!a->ld.program)
        a->ld.program = "clickhouse-client";
    return 0;
}

/* The exit status. */
static int run(const args *a)
{
    if (a->help)
        return fputs(USAGE, stdout) == EOF ? 1 : 0;
    if (a->version)
        return cli_version("ods-load");
    ld_error err;
    int rc = ld_run(&a->ld, &err);
    if (rc == 0)
        return fflush(stdout) == 0 ? 0 : 1;
    const char *id = a->ld.load_id;
    char *kept = strstr(err.detail, ". This run keeps the lease");
    if (kept && err.released)
        strcpy(kept, " (ods-load released the lease this run took)");
    if (rc == LD_EFAILED && err.stmt && !strncmp(err.detail, "transition ", 11))
        /* the transition's own check: its message names the fix */
        fprintf(stderr, "ods-load: load %s stopped at statement %d: %s\n", id, err.stmt, err.detail);
    else if (rc == LD_EFAILED && err.stmt)
        fprintf(stderr, "ods-load: load %s stopped at statement %d: %s. Fix what the engine says, then run the same "
                "ods-load again: the transition resumes safely\n", id, err.stmt, err.detail);
    else if (rc == LD_EINTR)
        fprintf(stderr, "ods-load: load %s stopped by a signal at statement %d: not committed; run the same ods-load "
                "again\n", id, err.stmt);
    else
        fprintf(stderr, "ods-load: load %s: %s%s%s%s\n", id, err.msg, err.detail[0] ? " (" : "", err.detail,
                err.detail[0] ? ")" : "");
    return 1;
}

int main(int argc, char **argv)
{
    args a;
    if (parse(argc, argv, &a) < 0)
        return 2;
    return run(&a);
}
