/* fuzz_proto: libFuzzer target over the protocol decoder in every format, option and argument
 * type; checks padding after each string and that the result never depends on read sizes. */
#include "proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Input layout: byte 0 picks format / chunk header / argument kind, byte 1 the RowBinary type,
 * byte 2 the read size of the second run, byte 3 the result type; the rest is the stream. */
static const char *const string_types[] = {"String", "Nullable(String)", "LowCardinality(String)",
                                           "LowCardinality(Nullable(String))", "FixedString(3)",
                                           "Nullable(FixedString(1))"};
static const char *const array_types[] = {"Array(String)", "Array(Nullable(String))",
                                          "Array(LowCardinality(String))",
                                          "Array(LowCardinality(Nullable(String)))", "Array(FixedString(2))"};

typedef struct {
    const proto_config *cfg;
    size_t rows;
    unsigned char u128[16];
} fz;

static void touch(const proto_str *s)
{
    volatile unsigned char sum = 0;
    if (s->is_null) return;
    /* the string and PROTO_PADDING bytes after it must be readable (ASan checks) */
    for (size_t i = 0; i < s->n + PROTO_PADDING; i++) sum += (unsigned char)s->p[i];
    (void)sum;
}

static int row(void *ctx, const proto_value *v, proto_result *res)
{
    fz *f = ctx;
    f->rows++;
    if (f->cfg->arg_kind == PROTO_ARG_STRING_ARRAY) {
        for (size_t i = 0; i < v->n_items; i++) touch(&v->items[i]);
    } else {
        touch(&v->s);
    }
    switch (f->cfg->res_kind) {
    case PROTO_RES_UINT128:
        memset(f->u128, (int)(f->rows & 0xff), 16);
        res->p = f->u128;
        res->n = 16;
        break;
    case PROTO_RES_FIXED:
        res->p = "\t\n\\'x";
        res->n = 5;
        break;
    default:
        /* echo the string back: TSV escaping of arbitrary bytes gets exercised too */
        res->p = v->s.is_null || f->cfg->arg_kind == PROTO_ARG_STRING_ARRAY ? "" : v->s.p;
        res->n = v->s.is_null || f->cfg->arg_kind == PROTO_ARG_STRING_ARRAY ? 0 : v->s.n;
        break;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    proto_config cfg = {0};
    cfg.format = (proto_format)(data[0] % 3);
    cfg.chunk_header = (data[0] >> 2) & 1;
    cfg.arg_kind = (data[0] >> 3) & 1 ? PROTO_ARG_STRING_ARRAY : PROTO_ARG_STRING;
    cfg.arg_type = cfg.arg_kind == PROTO_ARG_STRING_ARRAY
                       ? array_types[data[1] % (sizeof array_types / sizeof *array_types)]
                       : string_types[data[1] % (sizeof string_types / sizeof *string_types)];
    cfg.res_kind = (proto_res_kind)(data[3] % 3);
    cfg.res_fixed_len = 5;
    size_t step = data[2];

    fz a = {.cfg = &cfg}, b = {.cfg = &cfg};
    proto_error ea = {0}, eb = {0};
    char *oa = NULL, *ob = NULL;
    size_t na = 0, nb = 0;
    int ra = proto_serve_mem(&cfg, data + 4, size - 4, 0, row, &a, &oa, &na, &ea);
    int rb = proto_serve_mem(&cfg, data + 4, size - 4, step, row, &b, &ob, &nb, &eb);
    /* the same bytes in other read sizes: the same rows, answers and verdict */
    if (ra != rb || a.rows != b.rows || na != nb || (na && memcmp(oa, ob, na) != 0)) abort();
    if (ra < 0 && (!ea.msg || !eb.msg || ea.pos > size)) abort();
    free(oa);
    free(ob);
    return 0;
}
