/* order_wire_class: the executable UDFs order_wire_class(raw) -> String (the wire contract v1
 * class of each row) and, with --parse, order_wire_parse(raw) -> the class, the typed row and its
 * _hashdiff in one pass; with --explain a tool that tells people why a message got its class. */
#include "cli.h"
#include "proto.h"
#include "wire.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    proto_config cfg;
    int explain;
    int explain_rowbinary;
    int parse;
} options;

/* --parse: one row's parse and its encoded answer, reused from row to row. */
typedef struct {
    wire_row row;
    hd_ctx *hd; /* strict, xxh3_128: the transition's _hashdiff */
    char *out;
    size_t n, cap;
} parse_ctx;

static void usage(FILE *f)
{
    fputs("usage: order_wire_class [--parse] [--format FMT] [--chunk-header] [--arg-type TYPE]\n"
          "       order_wire_class --explain [--rowbinary [--arg-type TYPE]]\n"
          "       order_wire_class --version | --help\n"
          "\n"
          "UDF mode (how ClickHouse runs it): reads rows of one String-like argument from stdin in\n"
          "FMT (TabSeparated, RowBinary or RowBinaryWithNamesAndTypes, the default), preceded by a\n"
          "row-count line per block with --chunk-header (send_chunk_header), and writes one String\n"
          "per row: the message's class under the order-snapshot wire contract v1, one of\n"
          "'' (valid), not_an_object, keyset_mismatch, field_invalid. NULL is not_an_object.\n"
          "  --arg-type TYPE  for plain RowBinary: the caller's actual column type\n"
          "                   (default Nullable(String); String, LowCardinality(...), FixedString(N))\n"
          "  --parse          order_wire_parse: per row the named Tuple of the class, the 11\n"
          "                   contract fields typed as the ODS columns and hashdiff, the order's\n"
          "                   _hashdiff (UInt128: hashdiff_strict over the canonical texts of\n"
          "                   the 10 state fields), zero values when the class is not '', in FMT\n"
          "                   RowBinary or RowBinaryWithNamesAndTypes;\n"
          "                   --print-type prints that Tuple type (the config's return_type)\n"
          "\n"
          "--explain: reads messages, one per line (or RowBinary values with --rowbinary, of\n"
          "--arg-type, default String) and prints per message: class<TAB>field<TAB>reason\n"
          "(field empty unless the class is field_invalid; the class of a valid message is empty).\n"
          "--version prints \"order_wire_class VERSION\"; it changes nothing else (the server\n"
          "starts the UDF with the arguments of its config, never with --version).\n"
          "Exit status: 0 done, 1 malformed input or I/O error, 2 usage error (one line on\n"
          "stderr: unknown option, bad value, missing value).\n",
          f);
}

/* Parses argv into *o; 0, 1 (help shown) or 2 (usage error reported). */
static int parse_args(int argc, char **argv, options *o)
{
    const char *fmt = "RowBinaryWithNamesAndTypes", *arg_type = NULL;
    int rowbinary = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--version")) {
            return cli_version("order_wire_class") ? 2 : 1;
        } else if (!strcmp(a, "--chunk-header")) {
            o->cfg.chunk_header = 1;
        } else if (!strcmp(a, "--explain")) {
            o->explain = 1;
        } else if (!strcmp(a, "--parse")) {
            o->parse = 1;
        } else if (!strcmp(a, "--print-type")) {
            if (puts(wire_tuple_type()) == EOF || fflush(stdout) != 0)
                return 2;
            return 1;
        } else if (!strcmp(a, "--rowbinary")) {
            rowbinary = 1;
        } else if (!strcmp(a, "--format") || !strcmp(a, "--arg-type")) {
            if (i + 1 >= argc)
                return cli_missing_value("order_wire_class", a);
            *(a[2] == 'f' ? &fmt : &arg_type) = argv[++i];
        } else if (a[0] == '-') {
            return cli_unknown_option("order_wire_class", a);
        } else {
            return cli_unexpected_argument("order_wire_class", a);
        }
    }
    if (proto_format_from_name(fmt, &o->cfg.format) < 0)
        return cli_bad_value("order_wire_class", "--format", fmt,
                             "TabSeparated, RowBinary or RowBinaryWithNamesAndTypes");
    if (rowbinary && !o->explain) {
        fputs("order_wire_class: --rowbinary goes with --explain\n", stderr);
        return 2;
    }
    if (o->parse && (o->explain || o->cfg.format == PROTO_TSV)) {
        fputs("order_wire_class: --parse answers in RowBinary or RowBinaryWithNamesAndTypes, without --explain\n",
              stderr);
        return 2;
    }
    o->explain_rowbinary = rowbinary;
    if (o->explain) {
        o->cfg.format = rowbinary ? PROTO_ROWBINARY : PROTO_TSV;
        o->cfg.chunk_header = 0;
    }
    o->cfg.arg_kind = PROTO_ARG_STRING;
    o->cfg.name = "order_wire_class";
    o->cfg.arg_type = arg_type ? arg_type : o->explain ? "String" : "Nullable(String)";
    if (proto_arg_type_valid(o->cfg.arg_type, PROTO_ARG_STRING) < 0)
        return cli_bad_value("order_wire_class", "--arg-type", o->cfg.arg_type,
                             "String, FixedString(N), Nullable(...) or LowCardinality(...) of them");
    o->cfg.res_kind = PROTO_RES_STRING;
    if (o->parse) {
        o->cfg.name = "order_wire_parse";
        o->cfg.res_kind = PROTO_RES_ENCODED;
        o->cfg.res_type = wire_tuple_type();
    }
    return 0;
}

static int classify_row(void *ctx, const proto_value *arg, proto_result *res)
{
    (void)ctx;
    wire_class c = arg->s.is_null ? WIRE_NOT_AN_OBJECT : wire_classify(arg->s.p, arg->s.n, NULL);
    const char *name = wire_class_name(c);
    res->p = name;
    res->n = strlen(name);
    return 0;
}

static int parse_row(void *ctx, const proto_value *arg, proto_result *res)
{
    parse_ctx *x = ctx;
    if (x->cap > ((size_t)4 << 20)) { /* one big row's buffer is not kept for the small ones */
        free(x->out);
        x->out = NULL;
        x->cap = 0;
    }
    wire_class c = arg->s.is_null ? WIRE_NOT_AN_OBJECT : wire_parse(arg->s.p, arg->s.n, &x->row);
    if (c == WIRE_VALID) {
        int rc = wire_row_hashdiff(x->hd, &x->row);
        if (rc < 0) {
            fprintf(stderr, "order_wire_class: the hashdiff: %s\n", hd_strerror(rc));
            return -1;
        }
    }
    x->n = 0;
    if (wire_tuple_rowbinary(c, &x->row, &x->out, &x->n, &x->cap) < 0) {
        fputs("order_wire_class: out of memory\n", stderr);
        return -1;
    }
    res->p = x->out;
    res->n = x->n;
    return 0;
}

static int explain_one(const char *p, size_t n, int is_null)
{
    wire_explain why;
    wire_class c = WIRE_NOT_AN_OBJECT;
    if (is_null) {
        why.field = NULL;
        snprintf(why.reason, sizeof why.reason, "NULL");
    } else {
        c = wire_classify(p, n, &why);
    }
    return printf("%s\t%s\t%s\n", wire_class_name(c), why.field ? why.field : "", why.reason) < 0
               ? -1
               : 0;
}

static int explain_row(void *ctx, const proto_value *arg, proto_result *res)
{
    (void)ctx;
    res->p = "";
    res->n = 0;
    return explain_one(arg->s.p, arg->s.n, arg->s.is_null) < 0 ? -1 : 0;
}

/* One message per line: the bytes between newlines, as they are (no unescaping). */
static int explain_lines(void)
{
    char *line = NULL, *buf = NULL;
    size_t cap = 0, bcap = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, stdin)) >= 0) {
        size_t n = (size_t)len;
        if (n && line[n - 1] == '\n')
            n--;
        if (bcap < n + WIRE_PADDING) {
            bcap = n + WIRE_PADDING;
            free(buf);
            if (!(buf = malloc(bcap))) {
                fputs("order_wire_class: out of memory\n", stderr);
                rc = 1;
                break;
            }
        }
        memcpy(buf, line, n);
        memset(buf + n, 0, WIRE_PADDING);
        if (explain_one(buf, n, 0) < 0)
            rc = 1;
    }
    if (ferror(stdin)) {
        fputs("order_wire_class: cannot read stdin\n", stderr);
        rc = 1;
    }
    free(line);
    free(buf);
    return rc;
}

static int run(const options *o)
{
    proto_error err = {0};
    int rc;
    if (o->explain && !o->explain_rowbinary) {
        rc = explain_lines();
    } else if (o->explain) {
        /* The protocol layer decodes the values; its String replies are not wanted here. */
        int devnull = open("/dev/null", O_WRONLY);
        rc = devnull < 0 ? -1 : proto_serve(&o->cfg, 0, devnull, explain_row, NULL, &err);
        if (devnull >= 0)
            close(devnull);
    } else if (o->parse) {
        parse_ctx x = {0};
        if (!(x.hd = hd_new(HD_STRICT, HD_XXH3_128))) {
            fputs("order_wire_class: out of memory, or ICU cannot be initialised\n", stderr);
            return 1;
        }
        wire_row_init(&x.row);
        rc = proto_serve(&o->cfg, 0, 1, parse_row, &x, &err);
        wire_row_free(&x.row);
        hd_free(x.hd);
        free(x.out);
    } else {
        rc = proto_serve(&o->cfg, 0, 1, classify_row, NULL, &err);
    }
    if (fflush(stdout) != 0 && rc == 0) {
        fputs("order_wire_class: cannot write stdout\n", stderr);
        return 1;
    }
    if (rc < 0) {
        fprintf(stderr, "order_wire_class: %s at input byte %llu\n", err.msg ? err.msg : "I/O error",
                (unsigned long long)err.pos);
        return 1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    options o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : 2;
    return run(&o);
}
