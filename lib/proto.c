/* proto: ClickHouse's executable-UDF protocol (TabSeparated, RowBinary, RowBinaryWithNamesAndTypes,
 * send_chunk_header), shared by every UDF binary; zero-copy views into one big read buffer. */
#include "proto.h"

#include "io.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads go straight into the row buffer; big reads keep syscalls per row negligible. */
#define RD_INITIAL (1u << 20)
#define RD_MIN_FREE (64u << 10)
#define WR_CAP (1u << 20)
/* A read buffer that grew beyond this for a big row shrinks back to its initial size once the
 * row is answered: every ordinary row (and rows up to a few MiB) never reallocates, and a pool
 * process that met one 200 MiB row does not hold 200 MiB for the rest of its life. */
#define RD_KEEP (4u << 20)
/* The same for the item table (24 bytes an item): 64 Ki items, 1.5 MiB. */
#define ITEMS_KEEP (64u << 10)
/* With an items function, items are handed over in batches of this many: one call per
 * ordinary row, and a table of 96 KiB for rows of any length. */
#define ITEMS_BATCH 4096u
/* The capacity asked for the input pipe (the kernel's default is 64 KiB): with 64 KiB the
 * engine's writer and this reader wake each other every 64 KiB; at 256 KiB the classifier's
 * query over 500 000 messages took 0.27-0.30 s against 0.32-0.34 s (bench/90-statements.sh,
 * docs/performance.md). Not more: an unprivileged user's pipes share pipe-user-pages-soft
 * (64 MiB), and a pool of 16 processes of each UDF keeps this much per process. */
#define PIPE_WANT (256 << 10)
/* proto_serve_mem (tests, fuzzing) starts small: same code paths, cheap under sanitizers */
#define MEM_INITIAL (4u << 10)
/* Lengths beyond this cannot be real (no machine holds them): reject instead of waiting. */
#define LEN_MAX (1ull << 48)

enum { U_OK = 0, U_MORE = 1 };

/* The text of an error message built from what was read (proto_error.msg points here). */
static char err_text[192];

/* One argument type as ClickHouse names it; LowCardinality is transparent in RowBinary. */
typedef struct {
    int array;
    int nullable; /* of the (item) value */
    size_t fixed; /* FixedString(N), 0 for String */
    int nothing;  /* Nullable(Nothing): a bare NULL literal; every value is NULL */
} ptype;

typedef struct {
    const proto_config *cfg;
    proto_row_fn fn;
    void *ctx;
    proto_error *err;

    /* input: buf[pos, end) is unread data, base is the stream offset of buf[0] */
    int in_fd;
    const unsigned char *mem;
    size_t mem_n, mem_pos, mem_step;
    char *buf;
    size_t cap, pos, end;
    size_t cap0;  /* the initial (and steady-state) size of buf */
    int oversized; /* buf or the item table grew beyond its keep size: give_back has work */
    uint64_t base;
    int eof;
    uint64_t count; /* rows in the current block (chunk header) */
    size_t scan;  /* TSV: bytes of the current row already searched for its line end */
    const char *trunc_msg;

    /* output */
    int out_fd;
    char *obuf;
    size_t on, ocap;
    char *mout;   /* in-memory output (proto_serve_mem) */
    size_t mout_n, mout_cap;

    ptype type;
    char *hdr;    /* RowBinaryWithNamesAndTypes without chunk header: the first header's bytes
                   * up to the end of the column name */
    size_t hdr_n;

    proto_value val;
    proto_str *items;
    size_t items_cap;
    /* binary array rows resume where the data ran out instead of re-parsing (16 MiB rows) */
    size_t arr_done, arr_count, arr_off;
    int arr_active;
} srv;

static int fail(srv *s, int code, const char *msg, uint64_t pos)
{
    if (s->err) {
        s->err->msg = msg;
        s->err->pos = pos;
    }
    return code;
}

static uint64_t at(const srv *s, const char *p) { return s->base + (uint64_t)(p - s->buf); }

/* ---------- types ---------- */

static int skip_ws(const char **p, const char *e)
{
    while (*p < e && (**p == ' ')) (*p)++;
    return 0;
}

static int eat(const char **p, const char *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e - *p) < n || memcmp(*p, word, n) != 0) return 0;
    *p += n;
    return 1;
}

/* value := String | FixedString(N) | Nullable(value) | LowCardinality(value) */
static int parse_value_type(const char **p, const char *e, ptype *t, int depth)
{
    skip_ws(p, e);
    if (depth > 4) return -1;
    if (eat(p, e, "Nullable(")) {
        if (t->nullable) return -1;
        t->nullable = 1;
        /* SELECT f(NULL) sends the literal's own type: a null flag and never a value. */
        skip_ws(p, e);
        if (eat(p, e, "Nothing")) {
            t->nothing = 1;
            skip_ws(p, e);
            return eat(p, e, ")") ? 0 : -1;
        }
    } else if (eat(p, e, "LowCardinality(")) {
    } else if (eat(p, e, "FixedString(")) {
        size_t n = 0;
        skip_ws(p, e);
        if (*p >= e || **p < '0' || **p > '9') return -1;
        while (*p < e && **p >= '0' && **p <= '9') {
            n = n * 10 + (size_t)(**p - '0');
            if (n > (1u << 30)) return -1;
            (*p)++;
        }
        if (n == 0) return -1;
        t->fixed = n;
        skip_ws(p, e);
        return eat(p, e, ")") ? 0 : -1;
    } else {
        return eat(p, e, "String") ? 0 : -1;
    }
    if (parse_value_type(p, e, t, depth + 1) < 0) return -1;
    skip_ws(p, e);
    return eat(p, e, ")") ? 0 : -1;
}

static int parse_type(const char *p, size_t n, ptype *t)
{
    const char *e = p + n;
    memset(t, 0, sizeof *t);
    skip_ws(&p, e);
    if (eat(&p, e, "Array(")) {
        t->array = 1;
        if (parse_value_type(&p, e, t, 0) < 0) return -1;
        skip_ws(&p, e);
        if (!eat(&p, e, ")")) return -1;
    } else if (parse_value_type(&p, e, t, 0) < 0) {
        return -1;
    }
    skip_ws(&p, e);
    return p == e ? 0 : -1;
}

static int type_fits(const ptype *t, proto_arg_kind kind)
{
    return (kind == PROTO_ARG_STRING_ARRAY) == (t->array != 0);
}

int proto_arg_type_valid(const char *type, proto_arg_kind kind)
{
    ptype t;
    if (!type || parse_type(type, strlen(type), &t) < 0) return -1;
    return type_fits(&t, kind) ? 0 : -1;
}

int proto_format_from_name(const char *name, proto_format *out)
{
    if (!name) return -1;
    if (!strcmp(name, "TabSeparated") || !strcmp(name, "TSV"))
        *out = PROTO_TSV;
    else if (!strcmp(name, "RowBinary"))
        *out = PROTO_ROWBINARY;
    else if (!strcmp(name, "RowBinaryWithNamesAndTypes"))
        *out = PROTO_ROWBINARY_NT;
    else
        return -1;
    return 0;
}

/* ---------- output ---------- */

static int out_write(srv *s, const char *p, size_t n)
{
    if (s->out_fd < 0) {
        if (s->mout_n + n > s->mout_cap) {
            size_t c = s->mout_cap ? s->mout_cap : 4096;
            while (c < s->mout_n + n) c *= 2;
            char *m = realloc(s->mout, c);
            if (!m) return fail(s, PROTO_ENOMEM, "out of memory", 0);
            s->mout = m;
            s->mout_cap = c;
        }
        memcpy(s->mout + s->mout_n, p, n);
        s->mout_n += n;
        return 0;
    }
    if (io_write_all(s->out_fd, p, n) < 0)
        return fail(s, PROTO_EIO, "cannot write the results", 0);
    return 0;
}

static int flush_out(srv *s)
{
    if (!s->on) return 0;
    size_t n = s->on;
    s->on = 0;
    return out_write(s, s->obuf, n);
}

/* Room for n more bytes in the output buffer (n <= ocap / 2). */
static int out_room(srv *s, size_t n)
{
    if (s->on + n <= s->ocap) return 0;
    return flush_out(s);
}

static int out_bytes(srv *s, const void *p, size_t n)
{
    if (n > s->ocap / 2) {
        int rc = flush_out(s);
        return rc < 0 ? rc : out_write(s, p, n);
    }
    int rc = out_room(s, n);
    if (rc < 0) return rc;
    memcpy(s->obuf + s->on, p, n);
    s->on += n;
    return 0;
}

size_t proto_varint(uint64_t v, unsigned char *out)
{
    size_t n = 0;
    do {
        out[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v) out[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

static int out_varint(srv *s, uint64_t v)
{
    unsigned char b[PROTO_VARINT_MAX];
    return out_bytes(s, b, proto_varint(v, b));
}

/* TabSeparated escaping exactly as ClickHouse writes it, so its reader gets the bytes back. */
static char tsv_escape_char(unsigned char c)
{
    switch (c) {
    case '\t': return 't';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\0': return '0';
    case '\\': return '\\';
    case '\'': return '\'';
    default: return 0;
    }
}

static int out_tsv_escaped(srv *s, const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && !tsv_escape_char(p[j])) j++;
        int rc = j > i ? out_bytes(s, p + i, j - i) : 0;
        if (rc < 0) return rc;
        if (j >= n) break;
        char e[2] = {'\\', tsv_escape_char(p[j])};
        if ((rc = out_bytes(s, e, 2)) < 0) return rc;
        i = j + 1;
    }
    return 0;
}

static const char *res_type_name(const proto_config *c, char *tmp, size_t tn)
{
    switch (c->res_kind) {
    case PROTO_RES_FIXED: snprintf(tmp, tn, "FixedString(%zu)", c->res_fixed_len); return tmp;
    case PROTO_RES_UINT128: return "UInt128";
    case PROTO_RES_ENCODED: return c->res_type;
    default: return "String";
    }
}

static int out_result_header(srv *s)
{
    char tmp[48]; /* FixedString(N) */
    const char *t = res_type_name(s->cfg, tmp, sizeof tmp);
    int rc = out_bytes(s, "\x01\x06result", 8);
    if (rc == 0) rc = out_varint(s, strlen(t));
    if (rc == 0) rc = out_bytes(s, t, strlen(t));
    return rc;
}

static int out_u128_decimal(srv *s, const unsigned char *le)
{
    unsigned __int128 v = 0;
    for (int i = 15; i >= 0; i--) v = (v << 8) | le[i];
    char d[40];
    size_t n = sizeof d;
    do {
        d[--n] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    return out_bytes(s, d + n, sizeof d - n);
}

static int answer(srv *s, uint64_t row_pos)
{
    proto_result res = {"", 0};
    int rc = s->fn(s->ctx, &s->val, &res);
    if (rc < 0) return fail(s, PROTO_ECALLBACK, "the row function failed", row_pos);
    if (!res.p && res.n) return fail(s, PROTO_ECALLBACK, "the row function gave no result", row_pos);
    if (!res.p) res.p = "";
    const proto_config *c = s->cfg;
    if (c->res_kind == PROTO_RES_FIXED && res.n != c->res_fixed_len)
        return fail(s, PROTO_ECALLBACK, "the row function gave a result of the wrong size", row_pos);
    if (c->res_kind == PROTO_RES_UINT128 && res.n != 16)
        return fail(s, PROTO_ECALLBACK, "the row function gave a result of the wrong size", row_pos);
    if (c->format == PROTO_TSV && c->res_kind == PROTO_RES_ENCODED)
        return fail(s, PROTO_ECALLBACK, "an encoded result needs a RowBinary format", row_pos);
    if (c->format == PROTO_TSV) {
        if (c->res_kind == PROTO_RES_UINT128)
            rc = out_u128_decimal(s, res.p);
        else
            rc = out_tsv_escaped(s, res.p, res.n);
        return rc < 0 ? rc : out_bytes(s, "\n", 1);
    }
    if (c->res_kind == PROTO_RES_STRING && (rc = out_varint(s, res.n)) < 0) return rc;
    return out_bytes(s, res.p, res.n);
}

/* ---------- input ---------- */

static int more_ready(srv *s)
{
    if (s->mem) return s->mem_pos < s->mem_n;
    struct pollfd pf = {.fd = s->in_fd, .events = POLLIN};
    return poll(&pf, 1, 0) > 0;
}

/* Makes want bytes available at buf+pos (fewer only at EOF). Moves the buffer: callers re-derive
 * pointers afterwards. Output is flushed before any read that may block (pool mode waits on us). */
static int fill(srv *s, size_t want)
{
    while (s->end - s->pos < want && !s->eof) {
        int rc = flush_out(s);
        if (rc < 0) return rc;
        size_t min_free = s->cap / 16 < RD_MIN_FREE ? s->cap / 16 : RD_MIN_FREE;
        if (s->cap - s->end < min_free && s->pos > 0) {
            memmove(s->buf, s->buf + s->pos, s->end - s->pos);
            s->base += s->pos;
            s->end -= s->pos;
            s->pos = 0;
        }
        if (s->cap - s->end < min_free) {
            /* double, never jump to a declared length: a lying length cannot exhaust memory;
             * but stop at what the request needs when that is less (a 200 MiB row takes
             * 200 MiB, not 256), growing by half at least so that growth stays geometric */
            size_t nc = s->cap * 2, need = s->pos + want + min_free;
            if (need > s->cap && need < nc) nc = need > s->cap + s->cap / 2 ? need : s->cap + s->cap / 2;
            char *nb = realloc(s->buf, nc + PROTO_PADDING);
            if (!nb) return fail(s, PROTO_ENOMEM, "out of memory", at(s, s->buf + s->end));
            s->buf = nb;
            s->cap = nc;
            s->oversized |= nc > RD_KEEP;
        }
        size_t room = s->cap - s->end;
        ssize_t r;
        if (s->mem) {
            size_t k = s->mem_n - s->mem_pos;
            if (s->mem_step && k > s->mem_step) k = s->mem_step;
            if (k > room) k = room;
            memcpy(s->buf + s->end, s->mem + s->mem_pos, k);
            s->mem_pos += k;
            r = (ssize_t)k;
        } else {
            r = read(s->in_fd, s->buf + s->end, room);
            if (r < 0) {
                if (errno == EINTR) continue;
                return fail(s, PROTO_EIO, "cannot read the input", at(s, s->buf + s->end));
            }
        }
        if (r == 0) s->eof = 1;
        s->end += (size_t)r;
        memset(s->buf + s->end, 0, PROTO_PADDING);
    }
    return 0;
}

/* Runs parse on the unread data until it completes, reading more as it asks. */
typedef int (*unit_fn)(srv *s, char *p, char *e, size_t *used, size_t *want);

static int next_unit(srv *s, unit_fn parse, size_t *used)
{
    for (;;) {
        size_t want = 0;
        char *p = s->buf + s->pos, *e = s->buf + s->end;
        int r = parse(s, p, e, used, &want);
        if (r != U_MORE) return r;
        /* from the read position as parse left it: streamed items move it forward */
        size_t avail = s->end - s->pos;
        if (s->eof) return fail(s, PROTO_EINPUT, s->trunc_msg, at(s, e));
        if (want <= avail) want = avail + 1;
        if ((r = fill(s, want)) < 0) return r;
    }
}

static int get_varint(const char *p, const char *e, uint64_t *v, size_t *len)
{
    uint64_t x = 0;
    for (size_t i = 0; i < 10; i++) {
        if (p + i >= e) return U_MORE;
        unsigned char b = (unsigned char)p[i];
        if (i == 9 && b > 1) return -1;
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            *len = i + 1;
            return U_OK;
        }
    }
    return -1;
}

/* The chunk header: the block's row count in ASCII decimal and "\n". */
static int unit_count(srv *s, char *p, char *e, size_t *used, size_t *want)
{
    (void)want;
    uint64_t n = 0;
    char *q = p;
    s->trunc_msg = "input ends inside the chunk header";
    for (; q < e && *q >= '0' && *q <= '9'; q++) {
        if (q - p >= 19) return fail(s, PROTO_EINPUT, "chunk header is not a row count", at(s, q));
        n = n * 10 + (uint64_t)(*q - '0');
    }
    if (q == e) return U_MORE;
    if (*q != '\n' || q == p) return fail(s, PROTO_EINPUT, "chunk header is not a row count", at(s, q));
    s->count = n;
    *used = (size_t)(q + 1 - p);
    return U_OK;
}

/* A header type the function cannot take. With a function name the message says what it takes
 * and what came, in words a caller of the SQL function recognises (it reaches them through the
 * engine's error, docs/protocol.md); the type is quoted on one line, long ones cut. */
static int wrong_type(srv *s, const char *type, size_t n, const char *plain, uint64_t pos)
{
    if (!s->cfg->name) return fail(s, PROTO_EINPUT, plain, pos);
    char *t = err_text;
    size_t cap = sizeof err_text;
    int k = snprintf(t, cap, "%s takes %s, got ", s->cfg->name,
                     s->cfg->arg_kind == PROTO_ARG_STRING_ARRAY ? "an Array of String-like items"
                                                                : "a String-like argument");
    size_t w = k < 0 ? 0 : (size_t)k >= cap ? cap - 1 : (size_t)k;
    int cut = 0;
    for (size_t i = 0; i < n; i++) {
        if (w + 4 >= cap) { /* room for "..." and the NUL */
            cut = 1;
            break;
        }
        unsigned char c = (unsigned char)type[i];
        t[w++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    if (cut && w + 4 <= cap) {
        memcpy(t + w, "...", 3);
        w += 3;
    }
    t[w] = 0;
    return fail(s, PROTO_EINPUT, t, pos);
}

/* RowBinaryWithNamesAndTypes header: column count, names, types (all varint-prefixed). */
static int unit_header(srv *s, char *p, char *e, size_t *used, size_t *want)
{
    uint64_t v, name_n, type_n;
    size_t k;
    char *q = p;
    s->trunc_msg = "input ends inside the RowBinaryWithNamesAndTypes header";
    int r = get_varint(q, e, &v, &k);
    if (r) return r < 0 ? fail(s, PROTO_EINPUT, "bad varint in the header", at(s, q)) : r;
    if (v != 1) return fail(s, PROTO_EINPUT, "header must have exactly one column", at(s, q));
    q += k;
    r = get_varint(q, e, &name_n, &k);
    if (r) return r < 0 ? fail(s, PROTO_EINPUT, "bad varint in the header", at(s, q)) : r;
    if (name_n > 65536) return fail(s, PROTO_EINPUT, "column name in the header is too long", at(s, q));
    q += k;
    if ((uint64_t)(e - q) < name_n) {
        *want = (size_t)(q - p) + (size_t)name_n;
        return U_MORE;
    }
    q += name_n;
    r = get_varint(q, e, &type_n, &k);
    if (r) return r < 0 ? fail(s, PROTO_EINPUT, "bad varint in the header", at(s, q)) : r;
    if (type_n > 65536) return fail(s, PROTO_EINPUT, "unknown type in the header", at(s, q));
    q += k;
    if ((uint64_t)(e - q) < type_n) {
        *want = (size_t)(q - p) + (size_t)type_n;
        return U_MORE;
    }
    ptype t;
    if (parse_type(q, (size_t)type_n, &t) < 0)
        return wrong_type(s, q, (size_t)type_n, "unknown type in the header", at(s, q));
    if (!type_fits(&t, s->cfg->arg_kind))
        return wrong_type(s, q, (size_t)type_n, "argument type in the header does not fit the function",
                          at(s, q));
    q += type_n;
    s->type = t;
    *used = (size_t)(q - p);
    return U_OK;
}

/* One binary value of the item type at *q. */
static inline int bin_value(srv *s, const ptype *t, char **q, char *e, proto_str *out, size_t *need)
{
    char *c = *q;
    out->is_null = 0;
    if (t->nullable) {
        if (c >= e) {
            *need = 1;
            return U_MORE;
        }
        if ((unsigned char)*c > 1 || (t->nothing && *c != 1))
            return fail(s, PROTO_EINPUT, "bad null flag", at(s, c));
        if (*c++ == 1) {
            out->is_null = 1;
            out->p = c;
            out->n = 0;
            *q = c;
            return U_OK;
        }
    }
    uint64_t n = t->fixed;
    if (!t->fixed) {
        size_t k;
        int r = get_varint(c, e, &n, &k);
        if (r < 0) return fail(s, PROTO_EINPUT, "bad varint", at(s, c));
        if (r) {
            *need = (size_t)(c - *q) + 1;
            return U_MORE;
        }
        if (n > LEN_MAX) return fail(s, PROTO_EINPUT, "string length is impossible", at(s, c));
        c += k;
    }
    if ((uint64_t)(e - c) < n) {
        *need = (size_t)(c - *q) + (size_t)n;
        return U_MORE;
    }
    out->p = c;
    out->n = (size_t)n;
    *q = c + n;
    return U_OK;
}

static int grow_items(srv *s, size_t n)
{
    if (n <= s->items_cap) return 0;
    size_t c = s->items_cap ? s->items_cap : 16;
    while (c < n) c *= 2;
    proto_str *m = realloc(s->items, c * sizeof *m);
    if (!m) return fail(s, PROTO_ENOMEM, "out of memory", 0);
    s->items = m;
    s->items_cap = c;
    s->oversized |= c > ITEMS_KEEP;
    return 0;
}

/* Hands the last nb decoded items (items[0..nb), ending before byte `end`) to items_fn. */
static int hand_over(srv *s, size_t nb, const char *end)
{
    if (!nb) return 0;
    if (s->cfg->items_fn(s->ctx, s->arr_done - nb, s->items, nb) < 0)
        return fail(s, PROTO_ECALLBACK, "the items function failed", at(s, end));
    return 0;
}

/* The rest of an array row, from q, with an items function: the items are decoded into the
 * table and handed over in batches; when the data runs out the bytes handed over are dropped
 * from the buffer, so neither the table nor the buffer grows with the row. */
static int bin_items_streamed(srv *s, char *p, char *q, char *e, size_t *used, size_t *want)
{
    size_t done = s->arr_done, count = s->arr_count, nb = 0, need = 0;
    int r;
    while (done < count) {
        if (nb == ITEMS_BATCH) {
            s->arr_done = done;
            if ((r = hand_over(s, nb, q)) < 0) return r;
            nb = 0;
        }
        char *q0 = q;
        r = bin_value(s, &s->type, &q, e, &s->items[nb], &need);
        if (r == U_MORE) {
            s->arr_done = done;
            if ((r = hand_over(s, nb, q0)) < 0) return r;
            s->pos += (size_t)(q0 - p); /* consumed: the read position moves past it */
            s->arr_off = 0;
            *want = need;
            return U_MORE;
        }
        if (r) return r;
        nb++;
        done++;
    }
    s->arr_done = done;
    if ((r = hand_over(s, nb, q)) < 0) return r;
    s->val.items = NULL;
    s->val.n_items = count;
    s->arr_active = 0;
    s->arr_off = 0;
    *used = (size_t)(q - p);
    return U_OK;
}

static int unit_bin_row(srv *s, char *p, char *e, size_t *used, size_t *want)
{
    size_t need = 0;
    s->trunc_msg = "input ends inside a row";
    if (!s->type.array) {
        char *q = p;
        int r = bin_value(s, &s->type, &q, e, &s->val.s, &need);
        if (r == U_MORE) *want = need;
        if (r) return r;
        *used = (size_t)(q - p);
        return U_OK;
    }
    /* Items are kept as offsets from the row start until the row is complete, so a huge row
     * resumes after each read instead of being parsed again from its start. */
    int streaming = s->cfg->items_fn != NULL;
    char *q = p + s->arr_off;
    if (!s->arr_active) {
        uint64_t n;
        size_t k;
        int r = get_varint(p, e, &n, &k);
        if (r < 0) return fail(s, PROTO_EINPUT, "bad varint", at(s, p));
        if (r) return U_MORE;
        if (n > LEN_MAX) return fail(s, PROTO_EINPUT, "array size is impossible", at(s, p));
        if (streaming) {
            if ((r = grow_items(s, n < ITEMS_BATCH ? (size_t)n : ITEMS_BATCH)) < 0) return r;
        } else {
            /* every item takes at least one byte: a count beyond the data waits for it, so a
             * lying count never allocates more than the input holds */
            if (n > (uint64_t)(e - p - k)) {
                *want = k + (size_t)n;
                return U_MORE;
            }
            if ((r = grow_items(s, (size_t)n)) < 0) return r;
        }
        s->arr_active = 1;
        s->arr_count = (size_t)n;
        s->arr_done = 0;
        s->arr_off = k;
        q = p + k;
    }
    if (streaming) return bin_items_streamed(s, p, q, e, used, want);
    while (s->arr_done < s->arr_count) {
        proto_str *it = &s->items[s->arr_done];
        char *q0 = q;
        int r = bin_value(s, &s->type, &q, e, it, &need);
        if (r == U_MORE) {
            s->arr_off = (size_t)(q0 - p);
            *want = s->arr_off + need;
            return U_MORE;
        }
        if (r) return r;
        it->p = (const char *)(uintptr_t)(it->p - p); /* offset until the row is whole */
        s->arr_done++;
    }
    for (size_t i = 0; i < s->arr_count; i++) s->items[i].p = p + (uintptr_t)s->items[i].p;
    s->val.items = s->items;
    s->val.n_items = s->arr_count;
    s->arr_active = 0;
    s->arr_off = 0;
    *used = (size_t)(q - p);
    return U_OK;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Unescapes in place from r as ClickHouse's text readers do (checked against the 26.5 engine);
 * stricter only on \x without two hex digits, which ClickHouse never writes.
 * stop: the closing quote for quoted strings, or 0 to run to e. Returns the end of the
 * written bytes; *rp is left after the closing quote. NULL on a bad escape / missing quote. */
static char *unescape(char *w, char **rp, char *e, char stop)
{
    char *r = *rp;
    while (r < e) {
        char c = *r;
        if (c == stop && stop) {
            *rp = r + 1;
            return w;
        }
        if (c != '\\') {
            *w++ = *r++;
            continue;
        }
        if (r + 1 >= e) {
            *rp = r;
            return NULL;
        }
        char x = r[1];
        r += 2;
        switch (x) {
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case '0': *w++ = '\0'; break;
        case 'a': *w++ = '\a'; break;
        case 'v': *w++ = '\v'; break;
        case 'e': *w++ = '\x1b'; break;
        case 'x': {
            int h = r < e ? hexval((unsigned char)r[0]) : -1;
            int l = r + 1 < e ? hexval((unsigned char)r[1]) : -1;
            if (h < 0 || l < 0) {
                *rp = r - 2;
                return NULL;
            }
            *w++ = (char)(h * 16 + l);
            r += 2;
            break;
        }
        case 'N': break; /* ClickHouse reads \N inside a value as nothing */
        default:
            /* like ClickHouse: a backslash stays before any char but these and controls */
            if (!strchr("\\'\"`/=", x) && (unsigned char)x > 31) *w++ = '\\';
            *w++ = x;
            break;
        }
    }
    *rp = r;
    return stop ? NULL : w;
}

/* An array item that is neither a quoted string nor NULL: TabSeparated cannot name the type the
 * engine sent, but with a function name the message still says what the function takes. */
static int bad_tsv_item(srv *s, size_t item, uint64_t pos)
{
    if (!s->cfg->name) return fail(s, PROTO_EINPUT, "bad array item", pos);
    snprintf(err_text, sizeof err_text,
             "%s takes an Array of String-like items, got item %zu that is not a quoted string "
             "(bad array item)", s->cfg->name, item);
    return fail(s, PROTO_EINPUT, err_text, pos);
}

/* ['a',NULL,'b\'c'] as ClickHouse writes an Array in TabSeparated (not TSV-escaped again). */
static int tsv_array(srv *s, char *p, char *e)
{
    int streaming = s->cfg->items_fn != NULL;
    char *q = p;
    size_t n = 0, nb = 0; /* items; streaming: those in the table, not handed over yet */
    int rc;
    if (q >= e || *q != '[') return fail(s, PROTO_EINPUT, "array field does not start with [", at(s, q));
    q++;
    if (q < e && *q == ']') {
        q++;
    } else {
        for (;;) {
            if (streaming && nb == ITEMS_BATCH) {
                s->arr_done = n;
                if ((rc = hand_over(s, nb, q)) < 0) return rc;
                nb = 0;
            }
            size_t slot = streaming ? nb : n;
            if ((rc = grow_items(s, slot + 1)) < 0) return rc;
            proto_str *it = &s->items[slot];
            n++;
            nb++;
            if (e - q >= 4 && !memcmp(q, "NULL", 4)) {
                it->is_null = 1;
                it->p = q;
                it->n = 0;
                q += 4;
            } else if (q < e && *q == '\'') {
                char *w0 = ++q;
                char *w = unescape(w0, &q, e, '\'');
                if (!w) return fail(s, PROTO_EINPUT, "bad quoted string in array", at(s, q));
                it->is_null = 0;
                it->p = w0;
                it->n = (size_t)(w - w0);
            } else {
                return bad_tsv_item(s, n, at(s, q));
            }
            if (q < e && *q == ',') {
                q++;
                continue;
            }
            if (q < e && *q == ']') {
                q++;
                break;
            }
            return fail(s, PROTO_EINPUT, "bad array: expected , or ]", at(s, q));
        }
    }
    if (q != e) return fail(s, PROTO_EINPUT, "bytes after the array", at(s, q));
    if (streaming) {
        s->arr_done = n;
        if ((rc = hand_over(s, nb, q)) < 0) return rc;
    }
    s->val.items = streaming ? NULL : s->items;
    s->val.n_items = n;
    return 0;
}

static int unit_tsv_row(srv *s, char *p, char *e, size_t *used, size_t *want)
{
    (void)want;
    s->trunc_msg = "input ends inside a row (no line end)";
    char *nl = memchr(p + s->scan, '\n', (size_t)(e - p) - s->scan);
    if (!nl) {
        s->scan = (size_t)(e - p);
        return U_MORE;
    }
    s->scan = 0;
    *used = (size_t)(nl + 1 - p);
    if (memchr(p, '\t', (size_t)(nl - p)))
        return fail(s, PROTO_EINPUT, "more than one column in a row", at(s, memchr(p, '\t', (size_t)(nl - p))));
    if (s->cfg->arg_kind == PROTO_ARG_STRING_ARRAY) return tsv_array(s, p, nl);
    proto_str *v = &s->val.s;
    v->p = p;
    v->is_null = 0;
    if (nl - p == 2 && p[0] == '\\' && p[1] == 'N') {
        v->is_null = 1;
        v->n = 0;
        return U_OK;
    }
    char *b = memchr(p, '\\', (size_t)(nl - p));
    if (!b) {
        v->n = (size_t)(nl - p);
        return U_OK;
    }
    char *r = b;
    char *w = unescape(b, &r, nl, 0);
    if (!w) return fail(s, PROTO_EINPUT, "bad escape in a TabSeparated field", at(s, r));
    v->n = (size_t)(w - p);
    return U_OK;
}

/* ---------- the serving loop ---------- */

/* Gives back what a big row made grow; only between rows, where nothing points into buf. */
static void give_back(srv *s)
{
    int freed = 0;
    s->oversized = 0;
    if (s->items_cap > ITEMS_KEEP) {
        free(s->items);
        s->items = NULL;
        s->items_cap = 0;
        freed = 1;
    }
    size_t unread = s->end - s->pos;
    if (s->cap > RD_KEEP && unread > s->cap0 / 2) {
        s->oversized = 1; /* once the unread rows are done */
    } else if (s->cap > RD_KEEP) {
        memmove(s->buf, s->buf + s->pos, unread);
        s->base += s->pos;
        s->end = unread;
        s->pos = 0;
        char *nb = realloc(s->buf, s->cap0 + PROTO_PADDING);
        if (nb) { /* a failed shrink keeps the big buffer, which is still correct */
            s->buf = nb;
            s->cap = s->cap0;
        }
        memset(s->buf + s->end, 0, PROTO_PADDING);
        freed = 1;
    }
#ifdef __GLIBC__
    /* Return the freed pages (ours and the row function's) to the system now: glibc keeps
     * freed heap memory below its trim threshold, and a pool process may idle for hours. */
    if (freed) malloc_trim(0);
#endif
}

static int row(srv *s)
{
    size_t used = 0;
    uint64_t rp = at(s, s->buf + s->pos);
    int rc = next_unit(s, s->cfg->format == PROTO_TSV ? unit_tsv_row : unit_bin_row, &used);
    if (rc < 0) return rc;
    rc = answer(s, rp);
    s->pos += used;
    if (s->oversized) give_back(s);
    return rc;
}

/* Writes what the engine reads without losing the error already in *err. */
static void flush_keeping_error(srv *s, int with_header)
{
    const char *msg = s->err ? s->err->msg : NULL;
    uint64_t pos = s->err ? s->err->pos : 0;
    if (!with_header || out_result_header(s) == 0) flush_out(s);
    if (s->err) {
        s->err->msg = msg;
        s->err->pos = pos;
    }
}

static int header(srv *s)
{
    size_t used = 0;
    int rc = next_unit(s, unit_header, &used);
    if (rc == PROTO_EINPUT) {
        /* Answer the block anyway: a result header and no rows. Without it the engine fails
         * on EOF inside the header ("Attempt to read after eof") and hides our message; with
         * it the engine reads an empty answer, waits for us and shows our exit status and
         * stderr, where the caller puts err->msg (docs/protocol.md). */
        flush_keeping_error(s, 1);
        return rc;
    }
    if (rc < 0) return rc;
    if (!s->cfg->chunk_header && !s->hdr) {
        /* keep the bytes up to the end of the column name: later headers start the same */
        uint64_t name_n = 0;
        size_t k = 1;
        get_varint(s->buf + s->pos + 1, s->buf + s->end, &name_n, &k);
        s->hdr_n = 1 + k + (size_t)name_n;
        s->hdr = malloc(s->hdr_n);
        if (!s->hdr) return fail(s, PROTO_ENOMEM, "out of memory", 0);
        memcpy(s->hdr, s->buf + s->pos, s->hdr_n);
    }
    s->pos += used;
    return out_result_header(s);
}

/* Is a header at the read position? 1 yes (whole), 0 no, 2 maybe (more bytes needed). A header
 * is the first header's column count and name, then any type name this layer decodes. */
static int header_at(srv *s)
{
    char *p = s->buf + s->pos, *e = s->buf + s->end;
    size_t avail = (size_t)(e - p), k = avail < s->hdr_n ? avail : s->hdr_n;
    if (memcmp(p, s->hdr, k) != 0) return 0;
    if (k < s->hdr_n) return 2;
    uint64_t type_n;
    char *q = p + s->hdr_n;
    int r = get_varint(q, e, &type_n, &k);
    if (r < 0 || (r == U_OK && type_n > 256)) return 0;
    if (r == U_MORE || (uint64_t)(e - q - k) < type_n) return 2;
    ptype t;
    return parse_type(q + k, (size_t)type_n, &t) == 0 && type_fits(&t, s->cfg->arg_kind);
}

/* Without a chunk header, pool mode still sends a header before every block, and the type in it
 * may differ from block to block (each caller sends its column's real type): recognise one at a
 * row start. If only part of one has arrived and nothing more is ready, the bytes are a row
 * (the engine writes a header at the start of a block's first write, never split). */
static int repeated_header(srv *s)
{
    for (;;) {
        int c = header_at(s);
        if (c != 2) return c;
        if (s->eof || !more_ready(s)) return 0;
        int rc = fill(s, s->end - s->pos + 1);
        if (rc < 0) return rc;
    }
}

static int serve(srv *s)
{
    const proto_config *c = s->cfg;
    int rc;
    if (c->format == PROTO_ROWBINARY) {
        if (!c->arg_type || parse_type(c->arg_type, strlen(c->arg_type), &s->type) < 0)
            return fail(s, PROTO_EINPUT, "unknown arg_type for RowBinary", 0);
        if (!type_fits(&s->type, c->arg_kind))
            return fail(s, PROTO_EINPUT, "arg_type does not fit the function", 0);
    }
    for (;;) {
        if ((rc = fill(s, 1)) < 0) return rc;
        if (s->pos == s->end) return flush_out(s); /* clean EOF between rows or blocks */
        if (c->chunk_header) {
            size_t used = 0;
            if ((rc = next_unit(s, unit_count, &used)) < 0) return rc;
            uint64_t n = s->count;
            s->pos += used;
            if (c->format == PROTO_ROWBINARY_NT && (rc = header(s)) < 0) return rc;
            for (uint64_t i = 0; i < n; i++) {
                if ((rc = fill(s, 1)) < 0) return rc;
                if (s->pos == s->end)
                    return fail(s, PROTO_EINPUT, "input ends inside a block", at(s, s->buf + s->end));
                if ((rc = row(s)) < 0) return rc;
            }
            continue;
        }
        if (c->format == PROTO_ROWBINARY_NT) {
            rc = s->hdr ? repeated_header(s) : 1;
            if (rc < 0) return rc;
            if (rc) {
                if ((rc = header(s)) < 0) return rc;
                continue;
            }
        }
        if ((rc = row(s)) < 0) return rc;
    }
}

static int run(srv *s)
{
    s->cap = s->cap0 = s->mem ? MEM_INITIAL : RD_INITIAL;
    s->ocap = s->mem ? MEM_INITIAL : WR_CAP;
    s->buf = malloc(s->cap + PROTO_PADDING);
    s->obuf = malloc(s->ocap);
    int rc;
    if (!s->buf || !s->obuf) {
        rc = fail(s, PROTO_ENOMEM, "out of memory", 0);
    } else {
        memset(s->buf, 0, PROTO_PADDING);
        rc = serve(s);
        if (rc < 0) flush_keeping_error(s, 0); /* complete rows keep their answers */
    }
    free(s->buf);
    free(s->obuf);
    free(s->hdr);
    free(s->items);
    return rc < 0 ? rc : 0;
}

int proto_serve(const proto_config *cfg, int in_fd, int out_fd, proto_row_fn fn, void *ctx,
                proto_error *err)
{
    srv s = {.cfg = cfg, .fn = fn, .ctx = ctx, .err = err, .in_fd = in_fd, .out_fd = out_fd};
#ifdef F_SETPIPE_SZ
    /* Speed only: a pipe the kernel will not enlarge (the user's pipe quota, an old kernel)
     * serves as it is, so the answer of fcntl is not an error. */
    struct stat st;
    if (fstat(in_fd, &st) == 0 && S_ISFIFO(st.st_mode) && fcntl(in_fd, F_GETPIPE_SZ) < PIPE_WANT) {
        int r = fcntl(in_fd, F_SETPIPE_SZ, PIPE_WANT);
        (void)r;
    }
#endif
    return run(&s);
}

int proto_serve_mem(const proto_config *cfg, const void *in, size_t n, size_t read_step,
                    proto_row_fn fn, void *ctx, char **out, size_t *out_n, proto_error *err)
{
    static const unsigned char none[1];
    srv s = {.cfg = cfg, .fn = fn, .ctx = ctx, .err = err, .in_fd = -1, .out_fd = -1,
             .mem = in ? in : none, .mem_n = n, .mem_step = read_step};
    int rc = run(&s);
    if (out) {
        *out = s.mout;
        *out_n = s.mout_n;
    } else {
        free(s.mout);
    }
    return rc;
}
