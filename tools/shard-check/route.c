/* route.c: routing as DistributedSink does it, built for throughput: large reads, one pass
 * per line, no allocation per key, output assembled in a big buffer. */
#include "route.h"

#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "city.h"

int sc_slots_build(const sc_cluster *c, sc_slots *s)
{
    memset(s, 0, sizeof *s);
    uint64_t total = 0;
    for (size_t i = 0; i < c->n_shards; i++)
        total += c->shards[i].weight;
    if (total == 0)
        return SC_E_CHECK;
    if (!(s->cum = malloc(c->n_shards * sizeof *s->cum)))
        return SC_E_NOMEM;
    uint64_t at = 0;
    for (size_t i = 0; i < c->n_shards; i++)
        s->cum[i] = at += c->shards[i].weight;
    s->n = total;
    s->n_shards = c->n_shards;
    return SC_OK;
}

void sc_slots_free(sc_slots *s)
{
    free(s->cum);
    memset(s, 0, sizeof *s);
}

typedef struct {
    int fd;
    char *buf;
    size_t len, cap;
    int failed;
} outbuf;

static void out_flush(outbuf *o)
{
    if (!o->failed && io_write_all(o->fd, o->buf, o->len) < 0)
        o->failed = 1;
    o->len = 0;
}

static inline void out_u64(outbuf *o, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    char *p = o->buf + o->len;
    while (n)
        *p++ = tmp[--n];
    *p++ = '\n';
    o->len = (size_t)(p - o->buf);
}

/* Precomputed "N\n" for every shard: routing output is then one small copy per key. */
typedef struct {
    char txt[12];
    unsigned char len;
} shard_txt;

static inline void out_key(outbuf *o, const sc_route_opts *op, const shard_txt *st, uint64_t h)
{
    if (o->len + 32 > o->cap)
        out_flush(o);
    if (op->slots) {
        const shard_txt *t = &st[sc_slots_shard(op->slots, h) - 1];
        memcpy(o->buf + o->len, t->txt, 8);
        o->len += t->len;
    } else {
        out_u64(o, h);
    }
}

/* Bytes that end the fast path of a String line: escapes and what ClickHouse's TSV writer escapes. */
static unsigned char special[256];

static void init_special(void)
{
    special['\\'] = special['\t'] = special['\r'] = special[0] = special['\b'] = special['\f'] = 1;
}

static ssize_t read_some(int fd, char *p, size_t n)
{
    for (;;) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        return r;
    }
}

int sc_route_stream(int in_fd, int out_fd, const sc_route_opts *op, uint64_t *n_keys, sc_err *err)
{
    init_special();
    size_t cap = (size_t)4 << 20;
    char *buf = malloc(cap);
    outbuf o = {out_fd, malloc((size_t)1 << 20), 0, (size_t)1 << 20, 0};
    shard_txt *st = NULL;
    int rc = SC_OK;
    if (!buf || !o.buf)
        rc = SC_E_NOMEM;
    if (rc == SC_OK && op->slots) {
        if (!(st = calloc(op->slots->n_shards, sizeof *st)))
            rc = SC_E_NOMEM;
        for (size_t i = 0; st && i < op->slots->n_shards; i++)
            st[i].len = (unsigned char)snprintf(st[i].txt, sizeof st[i].txt, "%zu\n", i + 1);
    }
    uint64_t keys = 0, line = 0, consumed = 0;
    size_t have = 0;
    int eof = 0;
    while (rc == SC_OK) {
        if (!eof && have < cap) {
            ssize_t r = read_some(in_fd, buf + have, cap - have);
            if (r < 0) {
                sc_err_set(err, strerror(errno), "input", 0, 0);
                rc = SC_E_INPUT;
                break;
            }
            if (r == 0)
                eof = 1;
            have += (size_t)r;
        }
        char *p = buf, *end = buf + have;
        if (!op->rowbinary) {
            for (;;) {
                char *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl) {
                    if (!eof || p == end)
                        break;
                    nl = end; /* the last line has no line break */
                }
                line++;
                size_t len = (size_t)(nl - p);
                uint64_t h;
                int plain = op->kt.kind == SK_STRING;
                for (size_t i = 0; plain && i < len; i++)
                    if (special[(unsigned char)p[i]])
                        plain = 0;
                if (plain) {
                    h = city_hash64(p, len);
                } else {
                    const char *why = NULL;
                    long ul = sc_tsv_unescape(p, len, p, &why);
                    if (ul < 0 || sc_key_hash_text(&op->kt, p, (size_t)ul, &h, &why) != 0) {
                        sc_err_set(err, why, "input", (long)line, 0);
                        rc = SC_E_INPUT;
                        break;
                    }
                }
                out_key(&o, op, st, h);
                keys++;
                p = nl == end ? end : nl + 1;
            }
        } else {
            for (;;) {
                uint64_t h;
                const char *why = NULL;
                long used = sc_key_hash_rowbinary(&op->kt, (const unsigned char *)p, (size_t)(end - p), &h, &why);
                if (used < 0) {
                    sc_err_set(err, why, "input", (long)(consumed + (uint64_t)(p - buf)), 0);
                    rc = SC_E_INPUT;
                    break;
                }
                if (used == 0)
                    break;
                out_key(&o, op, st, h);
                keys++;
                p += used;
            }
        }
        if (rc != SC_OK)
            break;
        size_t rest = (size_t)(end - p);
        consumed += (uint64_t)(p - buf);
        if (eof) {
            if (rest) { /* only RowBinary can stop with bytes left */
                sc_err_set(err, "truncated RowBinary: the input ends inside a value", "input", (long)consumed, 0);
                rc = SC_E_INPUT;
            }
            break;
        }
        memmove(buf, p, rest);
        have = rest;
        if (have == cap) { /* one key larger than the buffer: grow */
            char *nb = cap < ((size_t)1 << 31) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                sc_err_set(err, "a single key larger than 2 GiB", "input", (long)line + 1, 0);
                rc = SC_E_INPUT;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (o.buf)
        out_flush(&o);
    if (rc == SC_OK && o.failed) {
        sc_err_set(err, "cannot write the output", "stdout", 0, 0);
        rc = SC_E_INPUT;
    }
    if (n_keys)
        *n_keys = keys;
    free(st);
    free(o.buf);
    free(buf);
    return rc;
}
