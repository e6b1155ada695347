/* main.c: `shard-check`, proof that routing keeps every version of an order on one shard:
 * layout, ddl, route, hash, verify and lock subcommands over ClickHouse's exact cityHash64 routing. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "ddl.h"
#include "key.h"
#include "layout.h"
#include "lock.h"
#include "route.h"
#include "verify.h"

static const char usage_text[] =
    "usage: shard-check COMMAND [OPTIONS]\n"
    "\n"
    "Proves, with ClickHouse's own arithmetic (CityHash64 v1.0.2, intHash64 for integers, the\n"
    "Distributed slot table), that every version of an order lands on one shard, so FINAL through\n"
    "a Distributed table is correct.\n"
    "\n"
    "commands:\n"
    "  layout --config PATH --cluster NAME [--replicated] [--lock FILE]\n"
    "      Prints the cluster's shards, weights, replicas and the slots each shard owns; fails on a\n"
    "      missing cluster, all-zero weights, a duplicate host:port, and, with --replicated (the\n"
    "      local tables are Replicated*), shards with several replicas but no internal_replication.\n"
    "      With --lock, also fails when the routing differs from the lock (naming the key ranges that\n"
    "      would move to another shard) or a shard shares no host:port with its locked replicas.\n"
    "  lock --config PATH --cluster NAME [-o FILE]\n"
    "      Writes the cluster's slot-table lock (weights, slots and replicas of each shard) to FILE or\n"
    "      stdout; commit it next to the config and check it with layout --lock.\n"
    "  ddl --cluster NAME [--config PATH] [--local DB.TABLE] [FILE.sql...]\n"
    "      Reads SHOW CREATE TABLE output or ods-ddl output (stdin without FILE) and fails unless each\n"
    "      Distributed table over a ReplacingMergeTree (or over --local) points at NAME and its local\n"
    "      table, is sharded by cityHash64(<the local ORDER BY key>) alone, the version column is\n"
    "      updated_at and the partition key depends only on created_at; and unless every other\n"
    "      Distributed table whose local table holds that key's columns (the hot rows, the stale\n"
    "      records) is sharded by the same key, so an order's rows sit on its versions' shard.\n"
    "      With --config, the layout's internal_replication is checked against the engines too.\n"
    "  route --config PATH --cluster NAME [--key-type TYPE] [--format TSV|RowBinary] [FILE]\n"
    "      Prints, for each key, the _shard_num ClickHouse's Distributed table sends it to with\n"
    "      sharding key cityHash64(key).\n"
    "  hash [--key-type TYPE] [--format TSV|RowBinary] [FILE]\n"
    "      Prints cityHash64(key) for each key, as ClickHouse computes it.\n"
    "  verify --config PATH --cluster NAME [--key-type TYPE] [FILE]\n"
    "      Reads rows order_id<TAB>shard_num (SELECT order_id, _shard_num FROM the _dist table, header\n"
    "      optional) and prints every order on more than one shard or on a shard routing does not\n"
    "      assign: order_id<TAB>shards<TAB>routed shard. Exit 1 if there is any.\n"
    "\n"
    "  --config PATH   server config XML (<clickhouse> or <yandex> root; conf.d/ and config.d/ next to\n"
    "                  it are merged as the server does), a config directory, or a system.clusters\n"
    "                  dump (SELECT * FROM system.clusters FORMAT TSVWithNames)\n"
    "  --key-type T    the key's ClickHouse type (default String): String, FixedString(N), UInt8..UInt64,\n"
    "                  Int8..Int64, UInt128, Int128, Date, Date32, DateTime (UTC), UUID\n"
    "  --format F      TSV (default: one key a line, ClickHouse TSV escaping) or RowBinary\n"
    "  --lock FILE     the slot-table lock written by shard-check lock\n"
    "  -o FILE         where lock writes the lock (default stdout)\n"
    "  --macro N=V     the value of macro {N} in cluster names (--cluster '{cluster}', and\n"
    "                  Distributed('{cluster}', ...) in the DDL), repeatable; without it, the\n"
    "                  --config's <macros> (verbatim, as the server expands them)\n"
    "  -h, --help      this text\n"
    "  --version       print \"shard-check VERSION\" and exit\n"
    "\n"
    "A config the server would refuse (one cluster it cannot build, anywhere in <remote_servers>,\n"
    "and it builds none) fails every command that reads it, naming the key and the server's reason.\n"
    "\n"
    "exit status: 0 the check holds, 1 a check failed (the server would refuse the config, too),\n"
    "2 usage error (one line on stderr) or unreadable input.\n";

typedef enum { CMD_NONE, CMD_LAYOUT, CMD_DDL, CMD_ROUTE, CMD_HASH, CMD_VERIFY, CMD_LOCK } command;

typedef struct {
    command cmd;
    const char *config, *cluster, *local;
    const char *lock, *output; /* --lock FILE, -o FILE */
    sc_keytype kt;
    int rowbinary, replicated;
    const char **files;
    int n_files;
    sc_macros macros;    /* --macro NAME=VALUE (defs allocated), and --config for <macros> */
    char *cluster_owned; /* --cluster with its macros expanded, when it had any */
} options;

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "shard-check: %s%s%s (try --help)\n", msg, arg ? ": " : "", arg ? arg : "");
    return 2;
}

static void print_err(const sc_err *e, int rc)
{
    if (rc == SC_E_NOMEM) {
        fprintf(stderr, "shard-check: out of memory\n");
        return;
    }
    fprintf(stderr, "shard-check: ");
    if (e->where[0])
        fprintf(stderr, "%s:", e->where);
    if (e->line > 0)
        fprintf(stderr, "%ld:", e->line);
    if (e->col > 0)
        fprintf(stderr, "%ld:", e->col);
    fprintf(stderr, " %s\n", e->msg ? e->msg : "error");
}

/* A config the server would not load: no cluster of it exists there, the one asked for neither. */
static void print_refused(const sc_err *e, const char *cluster)
{
    fprintf(stderr, "shard-check: %s: the server refuses this config, and with it every cluster (", e->where);
    sc_fput_escaped(cluster, stderr);
    fprintf(stderr, " too): %s\n", e->msg);
}

static int load_cluster(const options *o, sc_cluster *c)
{
    sc_err e = {0};
    int rc = sc_layout_load(o->config, o->cluster, c, &e);
    if (rc == SC_E_CHECK) {
        /* the name escaped: --cluster (or a macro's value) may hold a line feed */
        fprintf(stderr, "shard-check: %s: cluster ", o->config);
        sc_fput_escaped(o->cluster, stderr);
        fprintf(stderr, " not found (%s)", e.msg);
        for (size_t i = 0; i < c->n_others; i++) {
            fputs(i ? ", " : "; clusters there: ", stderr);
            sc_fput_escaped(c->others[i], stderr);
        }
        fputc('\n', stderr);
        return 1;
    }
    if (rc == SC_E_REFUSED) {
        /* a check failed: the server would load none of the config's clusters */
        print_refused(&e, o->cluster);
        return 1;
    }
    if (rc != SC_OK) {
        print_err(&e, rc);
        return 2;
    }
    return 0;
}

/* layout --lock: 0 the lock holds, 1 keys move or a shard's servers changed, 2 a bad lock. */
static int check_lock(const options *o, const sc_cluster *c)
{
    sc_lock l;
    sc_err e = {0};
    int rc = sc_lock_read(o->lock, &l, &e), failed = 0;
    if (rc == SC_OK) {
        sc_lock_opts lo = {o->lock, o->config, 0, 0};
        rc = sc_lock_check(&l, c, &lo, stderr, &failed, &e);
        sc_lock_free(&l);
    }
    if (rc == SC_E_CHECK) /* all-zero weights: the layout check has said so */
        return 1;
    if (rc != SC_OK) {
        print_err(&e, rc);
        return 2;
    }
    return failed;
}

/* Expands the macros in --cluster as the server does ({cluster} from --macro or the config's
 * <macros>): -1 to go on, or 2 after one line naming the macro and how to give it a value. */
static int resolve_cluster(options *o)
{
    if (!o->cluster || !strchr(o->cluster, '{'))
        return -1;
    /* the config's <macros>, read once: for --cluster, and for the DDL's names after it */
    if (sc_macros_load_config(&o->macros, o->config) != SC_OK) {
        fprintf(stderr, "shard-check: out of memory\n");
        return 2;
    }
    sc_err e = {0};
    int rc = sc_macros_expand(&o->macros, o->cluster, &o->cluster_owned, &e);
    if (rc != SC_OK && o->macros.cfg_refused.msg) { /* no macro, for the server would load nothing */
        e = o->macros.cfg_refused;
        print_refused(&e, o->cluster);
        return 1;
    }
    if (rc != SC_OK) {
        print_err(&e, rc);
        return 2;
    }
    o->cluster = o->cluster_owned;
    return -1;
}

static int run_layout(const options *o)
{
    sc_cluster c;
    int r = load_cluster(o, &c);
    if (r == 0) {
        sc_layout_report(&c, stdout);
        size_t n = sc_layout_check(&c, o->replicated ? 1 : -1, stderr);
        r = n ? 1 : 0;
        if (n)
            fprintf(stderr, "shard-check: layout of %s: %zu problem%s\n", o->cluster, n, n == 1 ? "" : "s");
        if (o->lock) {
            int lr = check_lock(o, &c);
            r = lr > r ? lr : r;
        }
    }
    sc_cluster_free(&c);
    return r;
}

static int run_lock(const options *o)
{
    sc_cluster c;
    int r = load_cluster(o, &c);
    if (r == 0) {
        /* built in memory first: a failure must not leave an existing lock file truncated */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        sc_err e = {0};
        int rc = m ? sc_lock_write(&c, m, &e) : SC_E_NOMEM;
        if (m)
            fclose(m);
        FILE *out = NULL;
        if (rc == SC_OK && !(out = o->output ? fopen(o->output, "w") : stdout)) {
            sc_err_set(&e, strerror(errno), o->output, 0, 0);
            rc = SC_E_INPUT;
        }
        int short_write = out && fwrite(text, 1, len, out) != len;
        if (out && ((out == stdout ? fflush(out) : fclose(out)) != 0 || short_write)) {
            sc_err_set(&e, "cannot write the lock", o->output ? o->output : "stdout", 0, 0);
            rc = SC_E_INPUT;
        }
        if (rc == SC_E_CHECK) {
            fputs("shard-check: cluster ", stderr);
            sc_fput_escaped(c.name, stderr);
            fprintf(stderr, ": %s\n", e.msg);
        } else if (rc != SC_OK) {
            print_err(&e, rc);
        }
        free(text);
        r = rc == SC_OK ? 0 : rc == SC_E_CHECK ? 1 : 2;
    }
    sc_cluster_free(&c);
    return r;
}

static int run_ddl(options *o)
{
    sc_cluster c = {0}, *layout = NULL;
    if (o->config) {
        int r = load_cluster(o, &c);
        if (r) {
            sc_cluster_free(&c);
            return r;
        }
        layout = &c;
    }
    /* a DDL's cluster names may hold macros too: the config's <macros>, unless read already */
    if (!o->macros.cfg_why && sc_macros_load_config(&o->macros, o->config) != SC_OK) {
        sc_cluster_free(&c);
        fprintf(stderr, "shard-check: out of memory\n");
        return 2;
    }
    sc_ddl_opts d = {o->cluster, o->local, layout, &o->macros};
    static const char *stdin_only[] = {"-"};
    const char **files = o->n_files ? o->files : stdin_only;
    int n_files = o->n_files ? o->n_files : 1, status = 0;
    size_t total = 0;
    for (int i = 0; i < n_files && status != 2; i++) {
        char *sql;
        size_t len;
        if (io_read_path(files[i], &sql, &len) != 0) {
            fprintf(stderr, "shard-check: %s: %s\n", files[i], strerror(errno));
            status = 2;
            break;
        }
        sc_err e = {0};
        size_t n = 0;
        int rc = sc_ddl_check(sql, len, &d, stdout, stderr, &n, &e);
        free(sql);
        if (rc != SC_OK) {
            if (e.where[0] && !strcmp(e.where, "SQL"))
                snprintf(e.where, sizeof e.where, "%s", strcmp(files[i], "-") ? files[i] : "stdin");
            print_err(&e, rc);
            status = 2;
        }
        total += n;
    }
    if (status != 2 && total) {
        fprintf(stderr, "shard-check: ddl: %zu problem%s\n", total, total == 1 ? "" : "s");
        status = 1;
    }
    sc_cluster_free(&c);
    return status;
}

static int open_input(const options *o, int *fd)
{
    *fd = 0;
    if (o->n_files > 1)
        return usage_error("give at most one input file", NULL);
    if (o->n_files && strcmp(o->files[0], "-") != 0 && (*fd = open(o->files[0], O_RDONLY)) < 0) {
        fprintf(stderr, "shard-check: %s: %s\n", o->files[0], strerror(errno));
        return 2;
    }
    return 0;
}

static int load_slots(const options *o, sc_slots *s)
{
    sc_cluster c;
    int r = load_cluster(o, &c);
    if (r == 0) {
        int rc = sc_slots_build(&c, s);
        if (rc == SC_E_CHECK) {
            fprintf(stderr, "shard-check: cluster %s: every shard has weight 0: no shard can take a row\n", o->cluster);
            r = 1;
        } else if (rc != SC_OK) {
            fprintf(stderr, "shard-check: out of memory\n");
            r = 2;
        }
    }
    sc_cluster_free(&c);
    return r;
}

static int run_route(const options *o)
{
    sc_slots slots = {0};
    int fd, r = 0;
    if (o->cmd == CMD_ROUTE && (r = load_slots(o, &slots)) != 0)
        return r;
    if ((r = open_input(o, &fd)) != 0) {
        sc_slots_free(&slots);
        return r;
    }
    sc_route_opts ro = {o->kt, o->rowbinary, o->cmd == CMD_ROUTE ? &slots : NULL};
    sc_err e = {0};
    uint64_t n;
    int rc = sc_route_stream(fd, 1, &ro, &n, &e);
    if (rc != SC_OK) {
        if (!strcmp(e.where, "input"))
            snprintf(e.where, sizeof e.where, "%s", o->n_files && strcmp(o->files[0], "-") ? o->files[0] : "stdin");
        if (rc == SC_E_INPUT && o->rowbinary && e.line >= 0) {
            fprintf(stderr, "shard-check: %s: at byte %ld, after %llu keys: %s\n", e.where, e.line,
                    (unsigned long long)n, e.msg);
        } else {
            print_err(&e, rc);
        }
        r = 2;
    }
    if (fd > 0)
        close(fd);
    sc_slots_free(&slots);
    return r;
}

static int run_verify(const options *o)
{
    sc_slots slots = {0};
    int fd, r;
    if ((r = load_slots(o, &slots)) != 0)
        return r;
    if ((r = open_input(o, &fd)) != 0) {
        sc_slots_free(&slots);
        return r;
    }
    FILE *in = fd ? fdopen(fd, "r") : stdin;
    sc_verify_stats st;
    sc_err e = {0};
    int rc = in ? sc_verify_stream(in, stdout, &o->kt, &slots, &st, &e) : SC_E_NOMEM;
    if (rc != SC_OK) {
        if (!strcmp(e.where, "input"))
            snprintf(e.where, sizeof e.where, "%s", o->n_files && strcmp(o->files[0], "-") ? o->files[0] : "stdin");
        print_err(&e, rc);
        r = 2;
    } else {
        uint64_t bad = st.split + st.misplaced;
        fprintf(stderr, "shard-check: verify: %llu rows, %llu orders; %llu on several shards, %llu on a shard "
                        "routing does not assign\n",
                (unsigned long long)st.rows, (unsigned long long)st.orders, (unsigned long long)st.split,
                (unsigned long long)st.misplaced);
        if (bad)
            fprintf(stderr, "shard-check: verify: FINAL through the Distributed table returns more than one row "
                            "for split orders, and writes routed by cityHash64 miss misplaced ones\n");
        r = bad ? 1 : 0;
    }
    if (in && in != stdin)
        fclose(in);
    sc_slots_free(&slots);
    return r;
}

static int run(options *o)
{
    switch (o->cmd) {
    case CMD_LAYOUT: return run_layout(o);
    case CMD_DDL: return run_ddl(o);
    case CMD_ROUTE:
    case CMD_HASH: return run_route(o);
    case CMD_VERIFY: return run_verify(o);
    case CMD_LOCK: return run_lock(o);
    default: return 2;
    }
}

/* Parses argv into o; returns -1 to go on, or the exit status (help: 0, usage error: 2). */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->kt.kind = SK_STRING;
    if (argc < 2)
        return usage_error("a command is needed: layout, ddl, route, hash, verify or lock", NULL);
    static const struct {
        const char *name;
        command cmd;
    } cmds[] = {{"layout", CMD_LAYOUT}, {"ddl", CMD_DDL},       {"route", CMD_ROUTE},
                {"hash", CMD_HASH},     {"verify", CMD_VERIFY}, {"lock", CMD_LOCK}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            o->cmd = cmds[i].cmd;
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version"))
        return cli_version("shard-check");
    if (o->cmd == CMD_NONE && argv[1][0] == '-')
        return cli_unknown_option("shard-check", argv[1]);
    if (o->cmd == CMD_NONE) {
        fputs("shard-check: unknown command: ", stderr);
        cli_put_arg(argv[1]);
        fputs(" (expected layout, lock, ddl, route, hash or verify)\n", stderr);
        return 2;
    }
    if (!(o->files = calloc((size_t)argc, sizeof *o->files)) ||
        !(o->macros.defs = calloc((size_t)argc, sizeof *o->macros.defs)))
        return 2;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int takes = !strcmp(a, "--config") || !strcmp(a, "--cluster") || !strcmp(a, "--key-type") ||
                    !strcmp(a, "--format") || !strcmp(a, "--local") || !strcmp(a, "--lock") ||
                    !strcmp(a, "-o") || !strcmp(a, "--macro");
        if (takes && i + 1 >= argc)
            return cli_missing_value("shard-check", a);
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            return cli_version("shard-check");
        } else if (!strcmp(a, "--config")) {
            o->config = argv[++i];
        } else if (!strcmp(a, "--cluster")) {
            o->cluster = argv[++i];
        } else if (!strcmp(a, "--local")) {
            o->local = argv[++i];
        } else if (!strcmp(a, "--macro")) {
            const char *d = argv[++i], *eq = strchr(d, '=');
            if (!eq || eq == d || memchr(d, '{', (size_t)(eq - d)) || memchr(d, '}', (size_t)(eq - d)))
                return cli_bad_value("shard-check", "--macro", d, "NAME=VALUE, e.g. --macro cluster=ods_cluster");
            ((const char **)o->macros.defs)[o->macros.n_defs++] = d;
        } else if (!strcmp(a, "--lock")) {
            o->lock = argv[++i];
        } else if (!strcmp(a, "-o")) {
            o->output = argv[++i];
        } else if (!strcmp(a, "--replicated")) {
            o->replicated = 1;
        } else if (!strcmp(a, "--key-type")) {
            if (sc_keytype_parse(argv[++i], &o->kt) != 0)
                return cli_bad_value("shard-check", "--key-type", argv[i],
                                     "String, FixedString(N), UInt8..UInt64, Int8..Int64, UInt128, "
                                     "Int128, Date, Date32, DateTime or UUID");
        } else if (!strcmp(a, "--format")) {
            const char *f = argv[++i];
            if (!strcmp(f, "TSV") || !strcmp(f, "TabSeparated"))
                o->rowbinary = 0;
            else if (!strcmp(f, "RowBinary"))
                o->rowbinary = 1;
            else
                return cli_bad_value("shard-check", "--format", f, "TSV or RowBinary");
        } else if (a[0] == '-' && a[1]) {
            return cli_unknown_option("shard-check", a);
        } else {
            o->files[o->n_files++] = a;
        }
    }
    if (o->cmd != CMD_HASH && !o->cluster)
        return usage_error("--cluster NAME is needed", NULL);
    if (o->cmd != CMD_HASH && o->cmd != CMD_DDL && !o->config)
        return usage_error("--config PATH is needed", NULL);
    if (o->cmd == CMD_VERIFY && o->rowbinary)
        return usage_error("verify reads TSV rows order_id<TAB>shard_num", NULL);
    if ((o->cmd == CMD_LAYOUT) && o->n_files)
        return usage_error("layout takes no input file", o->files[0]);
    if (o->cmd == CMD_LOCK && o->n_files)
        return usage_error("lock takes no input file", o->files[0]);
    if (o->lock && o->cmd != CMD_LAYOUT)
        return usage_error("--lock is an option of layout", NULL);
    if (o->output && o->cmd != CMD_LOCK)
        return usage_error("-o is an option of lock", NULL);
    return -1;
}

int main(int argc, char **argv)
{
    options o;
    int r = parse_args(argc, argv, &o);
    if (r < 0)
        r = resolve_cluster(&o);
    if (r < 0)
        r = run(&o);
    free(o.files);
    free((void *)o.macros.defs);
    sc_macros_free_config(&o.macros);
    free(o.cluster_owned);
    return r;
}
