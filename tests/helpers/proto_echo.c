/* proto_echo: a test UDF over the proto layer that answers, per row, what it decoded
 * (`LEN:HEX` per string, `NULL`, arrays as `[a;b]`), so the engine can check every byte. */
#include "proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    proto_config cfg;
    int raw; /* answer the decoded bytes themselves */
} opts;

typedef struct {
    char *buf;
    size_t cap, n;
    unsigned char u128[16];
    const proto_config *cfg;
    int raw;
} echo;

static const char usage[] =
    "usage: proto_echo [--format NAME] [--chunk-header] [--arg-type TYPE] [--array]\n"
    "                  [--result String|FixedString(N)|UInt128] [--raw]\n"
    "\n"
    "A test executable UDF: reads rows as ClickHouse sends them and answers each with what it\n"
    "decoded: a string as LEN:HEX (hex upper-case, as SQL hex()), NULL as NULL, an array as\n"
    "[ITEM;ITEM]. --result FixedString(N) cuts or pads that text with '.' to N bytes; UInt128\n"
    "answers the decoded byte count L (summed over items) as L * 2^64 + L.\n"
    "  --format NAME     TabSeparated (default), RowBinary, RowBinaryWithNamesAndTypes\n"
    "  --chunk-header    blocks are preceded by their row count (send_chunk_header)\n"
    "  --arg-type TYPE   for RowBinary: the type ClickHouse sends (default String)\n"
    "  --array           the argument is an Array of strings\n"
    "  --raw             answer the decoded bytes themselves (a NULL as ''): the answers then\n"
    "                    hold tabs, newlines, backslashes and NULs for the format to escape\n"
    "exit: 0 at a clean end of input, 1 on malformed input (one line on stderr), 2 usage.\n";

static int reserve(echo *e, size_t n)
{
    if (e->n + n > e->cap) {
        size_t c = e->cap ? e->cap : 256;
        while (c < e->n + n) c *= 2;
        char *b = realloc(e->buf, c);
        if (!b) return -1;
        e->buf = b;
        e->cap = c;
    }
    return 0;
}

static int put(echo *e, const char *p, size_t n)
{
    if (reserve(e, n) < 0) return -1;
    if (n) memcpy(e->buf + e->n, p, n);
    e->n += n;
    return 0;
}

static int describe(echo *e, const proto_str *s, size_t *total)
{
    static const char hx[] = "0123456789ABCDEF";
    if (s->is_null) return put(e, "NULL", 4);
    char num[32];
    int k = snprintf(num, sizeof num, "%zu:", s->n);
    if (put(e, num, (size_t)k) < 0) return -1;
    size_t at = e->n;
    if (reserve(e, 2 * s->n) < 0) return -1;
    for (size_t i = 0; i < s->n; i++) {
        unsigned char c = (unsigned char)s->p[i];
        e->buf[at + 2 * i] = hx[c >> 4];
        e->buf[at + 2 * i + 1] = hx[c & 15];
    }
    e->n = at + 2 * s->n;
    *total += s->n;
    return 0;
}

static int row_cb(void *ctx, const proto_value *v, proto_result *res)
{
    echo *e = ctx;
    size_t total = 0;
    e->n = 0;
    if (e->raw) {
        res->p = v->s.is_null ? "" : v->s.p;
        res->n = v->s.is_null ? 0 : v->s.n;
        return 0;
    }
    if (e->cfg->arg_kind == PROTO_ARG_STRING_ARRAY) {
        if (put(e, "[", 1) < 0) return -1;
        for (size_t i = 0; i < v->n_items; i++)
            if ((i && put(e, ";", 1) < 0) || describe(e, &v->items[i], &total) < 0) return -1;
        if (put(e, "]", 1) < 0) return -1;
    } else if (describe(e, &v->s, &total) < 0) {
        return -1;
    }
    switch (e->cfg->res_kind) {
    case PROTO_RES_UINT128:
        for (int i = 0; i < 8; i++) e->u128[i] = e->u128[8 + i] = (unsigned char)(total >> (8 * i));
        res->p = e->u128;
        res->n = 16;
        return 0;
    case PROTO_RES_FIXED:
        while (e->n < e->cfg->res_fixed_len)
            if (put(e, ".", 1) < 0) return -1;
        res->p = e->buf;
        res->n = e->cfg->res_fixed_len;
        return 0;
    default:
        res->p = e->buf;
        res->n = e->n;
        return 0;
    }
}

static int parse_result(const char *s, proto_config *c)
{
    if (!strcmp(s, "String")) {
        c->res_kind = PROTO_RES_STRING;
    } else if (!strcmp(s, "UInt128")) {
        c->res_kind = PROTO_RES_UINT128;
    } else {
        char *end;
        if (strncmp(s, "FixedString(", 12) != 0) return -1;
        unsigned long n = strtoul(s + 12, &end, 10);
        if (n == 0 || n > 65536 || strcmp(end, ")") != 0) return -1;
        c->res_kind = PROTO_RES_FIXED;
        c->res_fixed_len = n;
    }
    return 0;
}

/* 0 ok, 1 --help shown, 2 usage error (message printed). */
static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->cfg.format = PROTO_TSV;
    o->cfg.arg_type = "String";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 1;
        } else if (!strcmp(a, "--chunk-header")) {
            o->cfg.chunk_header = 1;
        } else if (!strcmp(a, "--raw")) {
            o->raw = 1;
        } else if (!strcmp(a, "--array")) {
            o->cfg.arg_kind = PROTO_ARG_STRING_ARRAY;
        } else if (!strcmp(a, "--format") || !strcmp(a, "--arg-type") || !strcmp(a, "--result")) {
            if (!val) {
                fprintf(stderr, "proto_echo: %s needs a value (try --help)\n", a);
                return 2;
            }
            i++;
            if (!strcmp(a, "--format") && proto_format_from_name(val, &o->cfg.format) < 0) {
                fprintf(stderr, "proto_echo: unknown format (try --help)\n");
                return 2;
            }
            if (!strcmp(a, "--arg-type")) o->cfg.arg_type = val;
            if (!strcmp(a, "--result") && parse_result(val, &o->cfg) < 0) {
                fprintf(stderr, "proto_echo: unknown result type (try --help)\n");
                return 2;
            }
        } else {
            fprintf(stderr, "proto_echo: unknown option (try --help)\n");
            return 2;
        }
    }
    if (o->raw && (o->cfg.arg_kind != PROTO_ARG_STRING || o->cfg.res_kind != PROTO_RES_STRING)) {
        fprintf(stderr, "proto_echo: --raw takes one String-like argument and answers a String (try --help)\n");
        return 2;
    }
    if (o->cfg.format == PROTO_ROWBINARY && proto_arg_type_valid(o->cfg.arg_type, o->cfg.arg_kind) < 0) {
        fprintf(stderr, "proto_echo: --arg-type is not a type this UDF decodes (try --help)\n");
        return 2;
    }
    return 0;
}

static int run(const opts *o)
{
    echo e = {.cfg = &o->cfg, .raw = o->raw};
    proto_error err = {"", 0};
    int rc = proto_serve(&o->cfg, 0, 1, row_cb, &e, &err);
    free(e.buf);
    if (rc < 0) {
        fprintf(stderr, "proto_echo: %s at byte %llu\n", err.msg, (unsigned long long)err.pos);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : 2;
    return run(&o);
}
