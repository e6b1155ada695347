/* fuzz_proto: libFuzzer target over the protocol decoder in every format, option and argument
 * type; checks padding after each string and that the result never depends on read sizes.
 * For an Array argument the same input is served a third time with proto_config.items_fn set
 * (items handed over in batches as they are decoded): the return code, the rows answered, the
 * output bytes and every answered row's items (those seen by items_fn, concatenated in order)
 * must equal the whole-row run's; items_fn must see each row's items in order, first counting
 * from 0, and the row function must get items == NULL with n_items the number handed over.
 * Any disagreement aborts. */
#include "proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Input layout: byte 0 picks format / chunk header / argument kind, byte 1 the RowBinary type,
 * byte 2 the read size of the second and third runs, byte 3 the result type; the rest is the
 * stream. */
static const char *const string_types[] = {"String", "Nullable(String)", "LowCardinality(String)",
                                           "LowCardinality(Nullable(String))", "FixedString(3)",
                                           "Nullable(FixedString(1))"};
static const char *const array_types[] = {"Array(String)", "Array(Nullable(String))",
                                          "Array(LowCardinality(String))",
                                          "Array(LowCardinality(Nullable(String)))", "Array(FixedString(2))"};

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (!n) return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->n + n) c *= 2;
        unsigned char *m = realloc(b->p, c);
        if (!m) abort();
        b->p = m;
        b->cap = c;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void put_u64(buf *b, uint64_t v)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(v >> (8 * i));
    put(b, le, 8);
}

typedef struct {
    const proto_config *cfg;
    size_t rows;
    unsigned char u128[16];
    buf log;     /* array rows answered: each row's items (tag, length, bytes), then its count */
    buf pend;    /* items_fn: the current row's items handed over so far, in the same encoding */
    size_t next; /* items_fn: items of the current row handed over so far */
} fz;

static void touch(const proto_str *s)
{
    volatile unsigned char sum = 0;
    if (s->is_null) return;
    /* the string and PROTO_PADDING bytes after it must be readable (ASan checks) */
    for (size_t i = 0; i < s->n + PROTO_PADDING; i++) sum += (unsigned char)s->p[i];
    (void)sum;
}

/* One item: a NULL is its tag only (its p and n are unspecified). */
static void put_item(buf *b, const proto_str *s)
{
    touch(s);
    unsigned char tag = s->is_null ? 0 : 1;
    put(b, &tag, 1);
    if (s->is_null) return;
    put_u64(b, s->n);
    put(b, s->p, s->n);
}

static int items(void *ctx, size_t first, const proto_str *it, size_t n)
{
    fz *f = ctx;
    /* consecutive items of the current row, never an empty call */
    if (f->cfg->arg_kind != PROTO_ARG_STRING_ARRAY || !it || n == 0 || first != f->next) abort();
    for (size_t i = 0; i < n; i++) put_item(&f->pend, &it[i]);
    f->next += n;
    return 0;
}

static int row(void *ctx, const proto_value *v, proto_result *res)
{
    fz *f = ctx;
    f->rows++;
    size_t row_at = f->log.n;
    if (f->cfg->arg_kind == PROTO_ARG_STRING_ARRAY) {
        if (f->cfg->items_fn) {
            if (v->items || v->n_items != f->next) abort();
            put(&f->log, f->pend.p, f->pend.n);
            f->pend.n = 0;
            f->next = 0;
        } else {
            for (size_t i = 0; i < v->n_items; i++) put_item(&f->log, &v->items[i]);
        }
        put_u64(&f->log, v->n_items);
    } else {
        touch(&v->s);
    }
    switch (f->cfg->res_kind) {
    case PROTO_RES_UINT128:
        memset(f->u128, (int)(f->rows & 0xff), 16);
        if (f->cfg->arg_kind == PROTO_ARG_STRING_ARRAY) { /* FNV-1a of the row's items */
            uint64_t h = 0xcbf29ce484222325u;
            for (size_t i = row_at; i < f->log.n; i++) h = (h ^ f->log.p[i]) * 0x100000001b3u;
            memcpy(f->u128, &h, 8);
        }
        res->p = f->u128;
        res->n = 16;
        break;
    case PROTO_RES_FIXED:
        res->p = "\t\n\\'x";
        res->n = 5;
        break;
    default:
        if (f->cfg->arg_kind == PROTO_ARG_STRING_ARRAY) {
            /* the row's items as bytes: the answers depend on every item */
            res->p = f->log.p ? (const char *)f->log.p + row_at : "";
            res->n = f->log.n - row_at;
        } else {
            /* echo the string back: TSV escaping of arbitrary bytes gets exercised too */
            res->p = v->s.is_null ? "" : v->s.p;
            res->n = v->s.is_null ? 0 : v->s.n;
        }
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
    if (b.log.n != a.log.n || (a.log.n && memcmp(a.log.p, b.log.p, a.log.n) != 0)) abort();

    if (cfg.arg_kind == PROTO_ARG_STRING_ARRAY) {
        /* the same bytes with items_fn (in the second run's read size): the same verdict, rows
         * and answers, and the same items in each answered row. On an error the row it stopped
         * in may have handed over some items already (f.pend): they belong to no answered row. */
        proto_config scfg = cfg;
        scfg.items_fn = items;
        fz s = {.cfg = &scfg};
        proto_error es = {0};
        char *os = NULL;
        size_t ns = 0;
        int rs = proto_serve_mem(&scfg, data + 4, size - 4, step, row, &s, &os, &ns, &es);
        if (rs != ra || s.rows != a.rows || ns != na || (na && memcmp(os, oa, na) != 0)) abort();
        if (rs < 0 && (!es.msg || es.pos > size)) abort();
        if (s.log.n != a.log.n || (a.log.n && memcmp(s.log.p, a.log.p, a.log.n) != 0)) abort();
        if (rs == 0 && (s.pend.n || s.next)) abort();
        free(os);
        free(s.log.p);
        free(s.pend.p);
    }
    free(oa);
    free(ob);
    free(a.log.p);
    free(a.pend.p);
    free(b.log.p);
    free(b.pend.p);
    return 0;
}
