/* hashdiff: the executable UDF behind hashdiff, hashdiff_sha256, hashdiff_automatedv and
 * hashdiff_strict (one Array(Nullable(String)) argument), and the printer of their native SQL. */
#include "cli.h"
#include "hd.h"
#include "proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int help, version;
    hd_profile profile;
    hd_algo algo;
    proto_format format;
    int chunk_header;
    const char *arg_type;
    int print_sql;
    hd_profile sql_profile;
    char **cols;
    int n_cols;
} hd_opts;

typedef struct {
    hd_ctx *hd;
    int err;
    size_t digest_len;
    unsigned char digest[HD_MAX_DIGEST];
} row_ctx;

static void usage(FILE *f)
{
    fputs("usage: hashdiff [--profile P] [--algo A] [--format F] [--chunk-header] [--arg-type T]\n"
          "       hashdiff --print-sql PROFILE [--algo A] COLUMN...\n"
          "       hashdiff --version | --help\n"
          "\n"
          "An executable UDF: reads rows of one Array(Nullable(String)) argument (the attribute\n"
          "values in their fixed order) from stdin and writes one hashdiff per row to stdout.\n"
          "  --profile P     classic (default) | automatedv | strict  (docs/hashdiff.md)\n"
          "  --algo A        xxh3_128 (default; result UInt128) | sha256 (FixedString(32)) |\n"
          "                  md5 (FixedString(16))\n"
          "  --format F      TabSeparated (default) | RowBinary | RowBinaryWithNamesAndTypes\n"
          "  --chunk-header  each block starts with its row count (send_chunk_header)\n"
          "  --arg-type T    for RowBinary: the argument type ClickHouse sends, e.g.\n"
          "                  'Array(Nullable(String))' (the default)\n"
          "  --print-sql PROFILE COLUMN...\n"
          "                  print the native SQL expression equal to the UDF over the array\n"
          "                  [COLUMN, ...] (each name is one backquoted identifier; put --\n"
          "                  before names that start with -) and exit\n"
          "  --version       print \"hashdiff VERSION\" and exit (the server never passes it)\n"
          "  -h, --help      this text\n"
          "Exit status: 0 at the end of input; 1 malformed input or a failed row (message on\n"
          "stderr); 2 usage error (one line on stderr: unknown option, bad value, missing value).\n",
          f);
}

/* 0, 1 for --help, or 2 after printing a one-line usage error. */
static int parse_args(int argc, char **argv, hd_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = PROTO_TSV;
    o->arg_type = "Array(Nullable(String))";
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            return 1;
        } else if (!strcmp(a, "--version")) {
            o->version = 1;
            return 1;
        } else if (!strcmp(a, "--chunk-header")) {
            o->chunk_header = 1;
        } else if (!strcmp(a, "--profile") || !strcmp(a, "--algo") || !strcmp(a, "--format") ||
                   !strcmp(a, "--arg-type") || !strcmp(a, "--print-sql")) {
            if (!v)
                return cli_missing_value("hashdiff", a);
            i++;
            if (!strcmp(a, "--profile") && hd_profile_from_name(v, &o->profile) != 0)
                return cli_bad_value("hashdiff", a, v, "classic, automatedv or strict");
            if (!strcmp(a, "--print-sql")) {
                if (hd_profile_from_name(v, &o->sql_profile) != 0)
                    return cli_bad_value("hashdiff", a, v, "classic, automatedv or strict");
                o->print_sql = 1;
            }
            if (!strcmp(a, "--algo") && hd_algo_from_name(v, &o->algo) != 0)
                return cli_bad_value("hashdiff", a, v, "xxh3_128, sha256 or md5");
            if (!strcmp(a, "--format") && proto_format_from_name(v, &o->format) != 0)
                return cli_bad_value("hashdiff", a, v, "TabSeparated, RowBinary or RowBinaryWithNamesAndTypes");
            if (!strcmp(a, "--arg-type")) {
                if (proto_arg_type_valid(v, PROTO_ARG_STRING_ARRAY) < 0)
                    return cli_bad_value("hashdiff", a, v,
                                         "Array(Nullable(String)) or another Array of String-like items");
                o->arg_type = v;
            }
        } else if (!strcmp(a, "--")) {
            for (int k = i + 1; k < argc; k++)
                argv[1 + positional++] = argv[k];
            break;
        } else if (a[0] == '-' && a[1] != 0) {
            return cli_unknown_option("hashdiff", a);
        } else {
            argv[1 + positional++] = argv[i]; /* columns, kept in order at the front */
        }
    }
    if (positional && !o->print_sql) {
        fprintf(stderr, "hashdiff: unexpected argument: ");
        cli_put_arg(argv[1]);
        fputs(" (columns go with --print-sql)\n", stderr);
        return 2;
    }
    if (o->print_sql && !positional) {
        fputs("hashdiff: --print-sql needs at least one column name\n", stderr);
        return 2;
    }
    o->cols = argv + 1;
    o->n_cols = positional;
    return 0;
}

/* The attributes go to the hashdiff as the protocol layer decodes them, a batch at a time, so
 * a row of millions of tiny attributes is never held whole (docs/protocol.md, "Memory"). */
static int on_items(void *ctx, size_t first, const proto_str *items, size_t n)
{
    row_ctx *r = ctx;
    if (first == 0)
        hd_begin(r->hd);
    for (size_t i = 0; i < n; i++) {
        int rc = hd_add(r->hd, items[i].is_null, items[i].p, items[i].n);
        if (rc) {
            r->err = rc;
            return -1;
        }
    }
    return 0;
}

static int on_row(void *ctx, const proto_value *arg, proto_result *res)
{
    row_ctx *r = ctx;
    if (arg->n_items == 0)
        hd_begin(r->hd);
    int rc = hd_finish(r->hd, r->digest);
    hd_trim(r->hd);
    if (rc) {
        r->err = rc;
        return -1;
    }
    res->p = r->digest;
    res->n = r->digest_len;
    return 0;
}

static int print_sql(const hd_opts *o)
{
    hd_error err;
    char *sql = hd_sql(o->sql_profile, o->algo, (const char *const *)o->cols, (size_t)o->n_cols, &err);
    if (!sql) {
        if (err.arg >= 0)
            fprintf(stderr, "hashdiff: column %ld: %s\n", err.arg + 1, err.msg);
        else
            fprintf(stderr, "hashdiff: %s\n", err.msg);
        return err.arg >= 0 ? 2 : 1;
    }
    int ok = puts(sql) >= 0 && fflush(stdout) == 0;
    free(sql);
    return ok ? 0 : 1;
}

static int run(const hd_opts *o)
{
    if (o->print_sql)
        return print_sql(o);
    row_ctx r = {.hd = hd_new(o->profile, o->algo), .digest_len = hd_digest_len(o->algo)};
    if (!r.hd) {
        fputs("hashdiff: cannot initialise ICU or libcrypto\n", stderr);
        return 1;
    }
    proto_config cfg = {
        .format = o->format,
        .chunk_header = o->chunk_header,
        .arg_kind = PROTO_ARG_STRING_ARRAY,
        .arg_type = o->arg_type,
        .res_kind = o->algo == HD_XXH3_128 ? PROTO_RES_UINT128 : PROTO_RES_FIXED,
        .res_fixed_len = hd_digest_len(o->algo),
        .name = "hashdiff",
        .items_fn = on_items,
    };
    proto_error err = {0};
    int rc = proto_serve(&cfg, STDIN_FILENO, STDOUT_FILENO, on_row, &r, &err);
    if (rc != 0) {
        if (rc == PROTO_ECALLBACK && r.err)
            fprintf(stderr, "hashdiff: %s (input byte %llu)\n", hd_strerror(r.err),
                    (unsigned long long)err.pos);
        else
            fprintf(stderr, "hashdiff: %s (input byte %llu)\n", err.msg ? err.msg : "failed",
                    (unsigned long long)err.pos);
    }
    hd_free(r.hd);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    hd_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc == 1 && o.version)
        return cli_version("hashdiff");
    if (rc == 1) {
        usage(stdout);
        return 0;
    }
    if (rc)
        return rc;
    return run(&o);
}
