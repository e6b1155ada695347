/* test_proto: the executable-UDF protocol layer fed byte streams in every format and option,
 * checking each decoded row, the exact output bytes, and that bad input never yields extra rows. */
#include "check.h"
#include "proto.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------- a growable byte string ---------- */

typedef struct {
    char *p;
    size_t n, cap;
} bytes;

static void b_add(bytes *b, const void *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 64;
        while (c < b->n + n + 1) c *= 2;
        b->p = realloc(b->p, c);
        b->cap = c;
    }
    if (n && p) memcpy(b->p + b->n, p, n); /* p NULL: just reserve n bytes */
    b->n += n;
    b->p[b->n] = 0;
}
static void b_str(bytes *b, const char *s) { b_add(b, s, strlen(s)); }
static void b_varint(bytes *b, uint64_t v)
{
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        if (v) c |= 0x80;
        b_add(b, &c, 1);
    } while (v);
}
static void b_bin_str(bytes *b, const char *p, size_t n)
{
    b_varint(b, n);
    b_add(b, p, n);
}
static void b_free(bytes *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---------- the row callback: logs what it decoded, answers with that text ---------- */

typedef struct {
    bytes log;   /* one line per row: LEN:HEX | NULL | [..;..] */
    bytes res;
    int rows;
    int fail_at; /* 1-based row at which to fail, 0 never */
    int mode;    /* 0: answer the description; 1: answer the raw string; 2: wrong size */
    unsigned char u128[16];
    const proto_config *cfg;
    int padding_ok;
    /* with an items function: the row's items described so far, the next index expected */
    bytes pend;
    size_t next, batches;
    int order_bad;    /* items out of order, or an items-mode row that also got arg->items */
    int fail_items_at; /* 1-based batch at which the items function fails, 0 never */
} rec;

static void describe(bytes *b, const proto_str *s)
{
    static const char hx[] = "0123456789ABCDEF";
    if (s->is_null) {
        b_str(b, "NULL");
        return;
    }
    char num[32];
    snprintf(num, sizeof num, "%zu:", s->n);
    b_str(b, num);
    if (s->n > 65536) return; /* big rows are checked through the answer bytes */
    size_t at = b->n;
    b_add(b, NULL, 2 * s->n);
    for (size_t i = 0; i < s->n; i++) {
        unsigned char c = (unsigned char)s->p[i];
        b->p[at + 2 * i] = hx[c >> 4];
        b->p[at + 2 * i + 1] = hx[c & 15];
    }
}

static void touch_padding(rec *r, const proto_str *s)
{
    /* PROTO_PADDING bytes after every string must be readable (ASan would catch a miss) */
    volatile unsigned char sum = 0;
    if (s->is_null || !s->p) return;
    for (size_t i = 0; i < PROTO_PADDING; i++) sum += (unsigned char)s->p[s->n + i];
    (void)sum;
    r->padding_ok++;
}

/* The items function: describes the items as cb would, checking they come in order. */
static int items_cb(void *ctx, size_t first, const proto_str *items, size_t n)
{
    rec *r = ctx;
    if (++r->batches == (size_t)r->fail_items_at) return -9;
    if (first == 0) {
        r->pend.n = 0;
        r->next = 0;
    }
    if (first != r->next || n == 0) r->order_bad++;
    for (size_t i = 0; i < n; i++) {
        if (first + i) b_str(&r->pend, ";");
        describe(&r->pend, &items[i]);
        touch_padding(r, &items[i]);
    }
    r->next = first + n;
    return 0;
}

static int cb(void *ctx, const proto_value *v, proto_result *res)
{
    rec *r = ctx;
    r->rows++;
    if (r->fail_at && r->rows == r->fail_at) return -7;
    size_t before = r->log.n;
    if (r->cfg->arg_kind == PROTO_ARG_STRING_ARRAY && r->cfg->items_fn) {
        if (v->items || v->n_items != (v->n_items ? r->next : 0)) r->order_bad++;
        b_str(&r->log, "[");
        if (v->n_items) b_add(&r->log, r->pend.p, r->pend.n);
        b_str(&r->log, "]");
        r->pend.n = 0;
        r->next = 0;
    } else if (r->cfg->arg_kind == PROTO_ARG_STRING_ARRAY) {
        b_str(&r->log, "[");
        for (size_t i = 0; i < v->n_items; i++) {
            if (i) b_str(&r->log, ";");
            describe(&r->log, &v->items[i]);
            touch_padding(r, &v->items[i]);
        }
        b_str(&r->log, "]");
    } else {
        describe(&r->log, &v->s);
        touch_padding(r, &v->s);
    }
    size_t dn = r->log.n - before;
    b_str(&r->log, "\n");
    r->res.n = 0;
    if (r->mode == 1) {
        b_add(&r->res, v->s.p, v->s.n);
    } else {
        b_add(&r->res, r->log.p + before, dn);
    }
    if (r->mode == 2) {
        res->p = r->res.p;
        res->n = r->res.n + 1;
        return 0;
    }
    switch (r->cfg->res_kind) {
    case PROTO_RES_UINT128: {
        uint64_t len = v->s.n;
        for (int i = 0; i < 8; i++) r->u128[i] = r->u128[8 + i] = (unsigned char)(len >> (8 * i));
        res->p = r->u128;
        res->n = 16;
        return 0;
    }
    case PROTO_RES_FIXED:
        while (r->res.n < r->cfg->res_fixed_len) b_str(&r->res, ".");
        res->p = r->res.p;
        res->n = r->cfg->res_fixed_len;
        return 0;
    default:
        res->p = r->res.p;
        res->n = r->res.n;
        return 0;
    }
}

/* ---------- running a case ---------- */

typedef struct {
    int rc;
    bytes log, out;
    proto_error err;
    int padding_ok;
    int order_bad;
} result;

static void res_free(result *x)
{
    b_free(&x->log);
    b_free(&x->out);
}

static result run_mem(const proto_config *cfg, const void *in, size_t n, size_t step, int mode, int fail_at)
{
    rec r = {.cfg = cfg, .mode = mode, .fail_at = fail_at};
    result x = {0};
    char *out = NULL;
    size_t out_n = 0;
    x.err.msg = "";
    x.rc = proto_serve_mem(cfg, in, n, step, cb, &r, &out, &out_n, &x.err);
    b_add(&x.out, out, out_n);
    free(out);
    b_free(&r.res);
    b_free(&r.pend);
    x.log = r.log;
    if (!x.log.p) b_str(&x.log, "");
    x.padding_ok = r.padding_ok;
    x.order_bad = r.order_bad;
    return x;
}

/* The same input through proto_serve on real file descriptors (memfd in, memfd out). */
static result run_fd(const proto_config *cfg, const void *in, size_t n, int mode)
{
    rec r = {.cfg = cfg, .mode = mode};
    result x = {0};
    x.err.msg = "";
    int ifd = memfd_create("in", 0), ofd = memfd_create("out", 0);
    if (write(ifd, in, n) != (ssize_t)n) abort();
    lseek(ifd, 0, SEEK_SET);
    x.rc = proto_serve(cfg, ifd, ofd, cb, &r, &x.err);
    off_t sz = lseek(ofd, 0, SEEK_END);
    char *o = malloc((size_t)sz + 1);
    if (pread(ofd, o, (size_t)sz, 0) != sz) abort();
    b_add(&x.out, o, (size_t)sz);
    free(o);
    close(ifd);
    close(ofd);
    b_free(&r.res);
    b_free(&r.pend);
    x.log = r.log;
    if (!x.log.p) b_str(&x.log, "");
    x.order_bad = r.order_bad;
    return x;
}

/* The config as is, and for arrays also with the items function: both must read the same. */
static int variants(const proto_config *cfg, proto_config *out)
{
    out[0] = *cfg;
    if (cfg->arg_kind != PROTO_ARG_STRING_ARRAY) return 1;
    out[1] = *cfg;
    out[1].items_fn = items_cb;
    return 2;
}

static const size_t steps[] = {0, 1, 2, 3, 7, 4096};
#define NSTEPS (sizeof steps / sizeof steps[0])

/* Valid input: every read size gives the same rows and bytes; so does the fd path.
 * want_out NULL: the answers are not checked. */
static void ok_case(const char *name, const proto_config *cfg0, const void *in, size_t n,
                    const char *want_log, const void *want_out, size_t want_out_n)
{
    proto_config v[2];
    int nv = variants(cfg0, v);
    for (int k = 0; k < nv; k++) {
        const proto_config *cfg = &v[k];
        for (size_t i = 0; i <= NSTEPS; i++) {
            result x = i < NSTEPS ? run_mem(cfg, in, n, steps[i], 0, 0) : run_fd(cfg, in, n, 0);
            int good = x.rc == 0 && !strcmp(x.log.p, want_log) && !x.order_bad &&
                       (!want_out || (x.out.n == want_out_n && !memcmp(x.out.p, want_out, want_out_n)));
            if (!good)
                fprintf(stderr, "case %s%s (step %zu): rc %d (%s at %llu)\nlog:\n%s\nwant:\n%s\nout %zu bytes, want %zu\n",
                        name, k ? " (items function)" : "", i < NSTEPS ? steps[i] : (size_t)-1, x.rc, x.err.msg,
                        (unsigned long long)x.err.pos, x.log.p, want_log, x.out.n, want_out_n);
            CHECK(good);
            res_free(&x);
        }
    }
}

/* Bad input: an error with a message, and at most the rows that were complete answered. */
static void bad_case(const char *name, const proto_config *cfg0, const void *in, size_t n,
                     int want_rows, const char *want_msg_part)
{
    proto_config v[2];
    int nv = variants(cfg0, v);
    for (size_t i = 0; i < NSTEPS * (size_t)nv; i++) {
        const proto_config *cfg = &v[i / NSTEPS];
        result x = run_mem(cfg, in, n, steps[i % NSTEPS], 0, 0);
        int rows = 0;
        for (size_t k = 0; k < x.log.n; k++) rows += x.log.p[k] == '\n';
        int good = x.rc == PROTO_EINPUT && x.err.msg && strstr(x.err.msg, want_msg_part) &&
                   rows == want_rows && x.err.pos <= n;
        if (!good)
            fprintf(stderr, "bad case %s (step %zu%s): rc %d msg \"%s\" pos %llu rows %d (want %d, \"%s\")\n",
                    name, steps[i % NSTEPS], i >= NSTEPS ? ", items function" : "", x.rc, x.err.msg ? x.err.msg : "(null)", (unsigned long long)x.err.pos,
                    rows, want_rows, want_msg_part);
        CHECK(good);
        res_free(&x);
    }
}

static proto_config cfg_of(proto_format f, int chunk, proto_arg_kind k, const char *type)
{
    proto_config c = {.format = f, .chunk_header = chunk, .arg_kind = k, .arg_type = type,
                      .res_kind = PROTO_RES_STRING};
    return c;
}

/* RowBinary String answers: varint length + bytes, for each line of a log. */
static void bin_answers(bytes *out, const char *log)
{
    const char *p = log;
    while (*p) {
        const char *nl = strchr(p, '\n');
        b_bin_str(out, p, (size_t)(nl - p));
        p = nl + 1;
    }
}

static void rbwnt_header(bytes *b, const char *name, const char *type)
{
    b_str(b, "\x01");
    b_bin_str(b, name, strlen(name));
    b_bin_str(b, type, strlen(type));
}

#define RESULT_HDR "\x01\x06result\x06String"

/* ---------- TabSeparated ---------- */

static void test_tsv(void)
{
    proto_config c = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING, NULL);
    const char in1[] = "abc\n\\N\n\n\\\\N\n";
    ok_case("tsv plain", &c, in1, sizeof in1 - 1, "3:616263\nNULL\n0:\n2:5C4E\n",
            "3:616263\nNULL\n0:\n2:5C4E\n", 24);

    /* every escape ClickHouse writes, plus the ones its reader accepts */
    const char in2[] = "a\\tb\\nc\\\\d\\0e\\bf\\fg\\rh\\'i\\Nj\\x41\\x7f\\ak\\v\\e\\q\n";
    /* expected bytes: what the 26.5 engine's TSV reader makes of the same line */
    ok_case("tsv escapes", &c, in2, sizeof in2 - 1,
            "26:6109620A635C64006508660C670D6827696A417F076B0B1B5C71\n",
            "26:6109620A635C64006508660C670D6827696A417F076B0B1B5C71\n", 56);
    const char in2b[] = "\\\"\\/\\=\\`\\%\\ \\\x01\\\x7f\\\xc3\\Z\\1\n";
    ok_case("tsv escapes that keep their backslash", &c, in2b, sizeof in2b - 1,
            "17:222F3D605C255C20015C7F5CC35C5A5C31\n", "17:222F3D605C255C20015C7F5CC35C5A5C31\n", 38);

    /* raw control bytes other than tab/newline, and invalid UTF-8, pass through */
    const char in3[] = "\x01\x7f\xff\xc3\n";
    ok_case("tsv raw bytes", &c, in3, sizeof in3 - 1, "4:017FFFC3\n", "4:017FFFC3\n", 11);

    proto_config ch = cfg_of(PROTO_TSV, 1, PROTO_ARG_STRING, NULL);
    const char in4[] = "2\nx\n\\N\n1\n\n";
    ok_case("tsv chunk header", &ch, in4, sizeof in4 - 1, "1:78\nNULL\n0:\n", "1:78\nNULL\n0:\n", 13);
    ok_case("tsv empty input", &c, "", 0, "", "", 0);
    ok_case("tsv chunk empty input", &ch, "", 0, "", "", 0);

    bad_case("tsv no line end", &c, "abc\nde", 6, 1, "no line end");
    bad_case("tsv two columns", &c, "a\nb\tc\n", 6, 1, "more than one column");
    bad_case("tsv backslash at end", &c, "ab\\\n", 4, 0, "bad escape");
    bad_case("tsv bad hex escape", &c, "a\\x4g\n", 6, 0, "bad escape");
    bad_case("tsv short hex escape", &c, "a\\x4\n", 5, 0, "bad escape");
    bad_case("tsv count not a number", &ch, "x\nabc\n", 6, 0, "not a row count");
    bad_case("tsv count empty", &ch, "\nabc\n", 5, 0, "not a row count");
    bad_case("tsv count negative", &ch, "-1\nabc\n", 7, 0, "not a row count");
    bad_case("tsv count huge", &ch, "99999999999999999999999\n", 24, 0, "not a row count");
    bad_case("tsv count no newline", &ch, "12", 2, 0, "chunk header");
    bad_case("tsv block short", &ch, "3\na\nb\n", 6, 2, "inside a block");
    bad_case("tsv count then garbage", &ch, "1\na\n1\n", 6, 1, "inside a block");

    /* answers are TSV-escaped the way ClickHouse's reader unescapes them */
    const char in5[] = "a\\tb\\n\\\\\\0\\'\\r\\b\\f\x01\n";
    result x = run_mem(&c, in5, sizeof in5 - 1, 0, 1, 0);
    CHECK_EQ_INT(x.rc, 0);
    CHECK_EQ_STR(x.out.p, "a\\tb\\n\\\\\\0\\'\\r\\b\\f\x01\n");
    res_free(&x);
}

static void test_tsv_array(void)
{
    proto_config c = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING_ARRAY, NULL);
    /* the exact text ClickHouse 26.5 writes for Array(Nullable(String)) in TabSeparated */
    const char in[] = "['a\\tb',NULL,'c\\'d','\\0x','b\\\\s','nl\\nx','\\\\N','\xc3\xa9\xff']\n[]\n['']\n[NULL]\n";
    const char want[] = "[3:610962;NULL;3:632764;2:0078;3:625C73;4:6E6C0A78;2:5C4E;3:C3A9FF]\n[]\n[0:]\n[NULL]\n";
    ok_case("tsv array", &c, in, sizeof in - 1, want, want, sizeof want - 1);
    proto_config ch = cfg_of(PROTO_TSV, 1, PROTO_ARG_STRING_ARRAY, NULL);
    const char in2[] = "2\n['x']\n[]\n";
    ok_case("tsv array chunk", &ch, in2, sizeof in2 - 1, "[1:78]\n[]\n", "[1:78]\n[]\n", 10);

    bad_case("array unterminated quote", &c, "['a\n", 4, 0, "bad quoted string");
    bad_case("array no bracket", &c, "'a'\n", 4, 0, "does not start with [");
    bad_case("array bare item", &c, "[a]\n", 4, 0, "bad array item");
    bad_case("array trailing comma", &c, "['a',]\n", 7, 0, "bad array item");
    bad_case("array no close", &c, "['a'\n", 5, 0, "expected , or ]");
    bad_case("array junk after", &c, "['a']x\n", 7, 0, "bytes after the array");
    bad_case("array bad escape", &c, "['a\\x']\n", 8, 0, "bad quoted string");
    bad_case("array NUL as null", &c, "[\\N]\n", 5, 0, "bad array item");
}

/* ---------- RowBinary ---------- */

static void test_rowbinary(void)
{
    bytes in = {0}, out = {0};
    proto_config s = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "String");
    b_bin_str(&in, "abc", 3);
    b_bin_str(&in, "", 0);
    b_bin_str(&in, "\0\t\n", 3);
    const char *log = "3:616263\n0:\n3:00090A\n";
    bin_answers(&out, log);
    ok_case("rb String", &s, in.p, in.n, log, out.p, out.n);

    /* LowCardinality is transparent in RowBinary */
    proto_config lc = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "LowCardinality(String)");
    ok_case("rb LowCardinality(String)", &lc, in.p, in.n, log, out.p, out.n);

    in.n = out.n = 0;
    proto_config n = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "Nullable(String)");
    b_add(&in, "\0", 1);
    b_bin_str(&in, "a", 1);
    b_str(&in, "\x01");
    b_add(&in, "\0", 1);
    b_bin_str(&in, "", 0);
    log = "1:61\nNULL\n0:\n";
    bin_answers(&out, log);
    ok_case("rb Nullable(String)", &n, in.p, in.n, log, out.p, out.n);
    proto_config lcn = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "LowCardinality(Nullable(String))");
    ok_case("rb LowCardinality(Nullable(String))", &lcn, in.p, in.n, log, out.p, out.n);

    in.n = out.n = 0;
    proto_config f = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "FixedString(3)");
    b_add(&in, "ab\0xyz", 6);
    log = "3:616200\n3:78797A\n";
    bin_answers(&out, log);
    ok_case("rb FixedString(3)", &f, in.p, in.n, log, out.p, out.n);
    proto_config nf = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "Nullable(FixedString(2))");
    in.n = out.n = 0;
    b_add(&in, "\x00hi\x01", 4);
    log = "2:6869\nNULL\n";
    bin_answers(&out, log);
    ok_case("rb Nullable(FixedString(2))", &nf, in.p, in.n, log, out.p, out.n);

    /* chunk header in a binary format: ASCII count + "\n" before each block */
    in.n = out.n = 0;
    proto_config sc = cfg_of(PROTO_ROWBINARY, 1, PROTO_ARG_STRING, "String");
    b_str(&in, "2\n");
    b_bin_str(&in, "a", 1);
    b_bin_str(&in, "b", 1);
    b_str(&in, "1\n");
    b_bin_str(&in, "\n", 1);
    log = "1:61\n1:62\n1:0A\n";
    bin_answers(&out, log);
    ok_case("rb chunk header", &sc, in.p, in.n, log, out.p, out.n);

    /* arrays */
    in.n = out.n = 0;
    proto_config a = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING_ARRAY, "Array(Nullable(String))");
    b_varint(&in, 3);
    b_add(&in, "\0", 1);
    b_bin_str(&in, "a", 1);
    b_str(&in, "\x01");
    b_add(&in, "\0", 1);
    b_bin_str(&in, "", 0);
    b_varint(&in, 0);
    log = "[1:61;NULL;0:]\n[]\n";
    bin_answers(&out, log);
    ok_case("rb Array(Nullable(String))", &a, in.p, in.n, log, out.p, out.n);
    proto_config al = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING_ARRAY, "Array(LowCardinality(Nullable(String)))");
    ok_case("rb Array(LowCardinality(Nullable(String)))", &al, in.p, in.n, log, out.p, out.n);
    in.n = out.n = 0;
    proto_config as = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING_ARRAY, "Array(String)");
    b_varint(&in, 2);
    b_bin_str(&in, "xy", 2);
    b_bin_str(&in, "|", 1);
    log = "[2:7879;1:7C]\n";
    bin_answers(&out, log);
    ok_case("rb Array(String)", &as, in.p, in.n, log, out.p, out.n);
    proto_config alc = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING_ARRAY, "Array(LowCardinality(String))");
    ok_case("rb Array(LowCardinality(String))", &alc, in.p, in.n, log, out.p, out.n);

    /* malformed */
    bad_case("rb truncated string", &s, "\x01" "a\x05" "ab", 4, 1, "inside a row");
    bad_case("rb truncated varint", &s, "\x80", 1, 0, "inside a row");
    bad_case("rb bad varint", &s, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11, 0, "bad varint");
    bad_case("rb varint overflow", &s, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10, 0, "bad varint");
    bad_case("rb impossible length", &s, "\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 9, 0, "impossible");
    bad_case("rb bad null flag", &n, "\x00\x01" "a\x02", 4, 1, "bad null flag");
    bad_case("rb truncated fixed", &f, "abcde", 5, 1, "inside a row");
    bad_case("rb array truncated", &a, "\x02\x00\x01" "a", 4, 0, "inside a row");
    bad_case("rb array lying count", &a, "\xff\xff\xff\x0f\x01", 5, 0, "inside a row");
    bad_case("rb chunk short", &sc, "2\n\x01" "a", 4, 1, "inside a block");
    proto_config bt = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "UInt64");
    bad_case("rb unknown arg_type", &bt, "\x01" "a", 2, 0, "unknown arg_type");
    proto_config mism = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING, "Array(String)");
    bad_case("rb arg_type of the wrong kind", &mism, "\x00", 1, 0, "does not fit");

    b_free(&in);
    b_free(&out);
}

/* ---------- RowBinaryWithNamesAndTypes ---------- */

static void test_rbwnt(void)
{
    bytes in = {0}, out = {0};
    proto_config c = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL);
    /* the exact header ClickHouse 26.5 sends for an argument named raw of type Nullable(String) */
    b_str(&in, "\x01\x03raw\x10Nullable(String)");
    b_add(&in, "\0", 1);
    b_bin_str(&in, "{}", 2);
    b_str(&in, "\x01");
    const char *log = "2:7B7D\nNULL\n";
    b_str(&out, RESULT_HDR);
    bin_answers(&out, log);
    ok_case("rbwnt Nullable(String)", &c, in.p, in.n, log, out.p, out.n);

    /* regression: SELECT f(NULL) sends the bare literal's type, Nullable(Nothing): a null flag
     * per row and never a value; it was refused as an unknown type */
    bytes nin = {0}, nout = {0};
    rbwnt_header(&nin, "raw", "Nullable(Nothing)");
    b_add(&nin, "\x01\x01", 2);
    b_str(&nout, RESULT_HDR);
    bin_answers(&nout, "NULL\nNULL\n");
    ok_case("rbwnt Nullable(Nothing)", &c, nin.p, nin.n, "NULL\nNULL\n", nout.p, nout.n);
    nin.n = 0;
    rbwnt_header(&nin, "raw", "Nullable(Nothing)");
    b_add(&nin, "\x00", 1);
    bad_case("rbwnt Nullable(Nothing) with a value", &c, nin.p, nin.n, 0, "bad null flag");
    CHECK_EQ_INT(proto_arg_type_valid("Nullable(Nothing)", PROTO_ARG_STRING), 0);
    CHECK_EQ_INT(proto_arg_type_valid("Array(Nullable(Nothing))", PROTO_ARG_STRING_ARRAY), 0);
    CHECK_EQ_INT(proto_arg_type_valid("Nothing", PROTO_ARG_STRING), -1);
    free(nin.p);
    free(nout.p);

    /* pool mode without chunk header: the header comes again before every block */
    bytes in2 = {0}, out2 = {0};
    b_add(&in2, in.p, in.n);
    b_add(&in2, in.p, in.n);
    b_add(&out2, out.p, out.n);
    b_add(&out2, out.p, out.n);
    ok_case("rbwnt repeated header", &c, in2.p, in2.n, "2:7B7D\nNULL\n2:7B7D\nNULL\n", out2.p, out2.n);

    /* ... and the type in it changes when callers pass other column types to the same process */
    in2.n = out2.n = 0;
    rbwnt_header(&in2, "raw", "String");
    b_bin_str(&in2, "\x01", 1); /* a row that starts like a header */
    rbwnt_header(&in2, "raw", "Nullable(String)");
    b_add(&in2, "\x01\x00\x01r", 4);
    rbwnt_header(&in2, "raw", "FixedString(3)");
    b_str(&in2, "abc");
    rbwnt_header(&in2, "raw", "LowCardinality(Nullable(String))");
    b_add(&in2, "\x01", 1);
    b_str(&out2, RESULT_HDR);
    bin_answers(&out2, "1:01\n");
    b_str(&out2, RESULT_HDR);
    bin_answers(&out2, "NULL\n1:72\n");
    b_str(&out2, RESULT_HDR);
    bin_answers(&out2, "3:616263\n");
    b_str(&out2, RESULT_HDR);
    bin_answers(&out2, "NULL\n");
    ok_case("rbwnt repeated header, changing types", &c, in2.p, in2.n, "1:01\nNULL\n1:72\n3:616263\nNULL\n",
            out2.p, out2.n);

    /* with chunk header: count, header, rows; the type may change from block to block */
    proto_config ch = cfg_of(PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING, NULL);
    in.n = out.n = 0;
    b_str(&in, "2\n");
    rbwnt_header(&in, "raw", "String");
    b_bin_str(&in, "ab", 2);
    b_bin_str(&in, "", 0);
    b_str(&in, "1\n");
    rbwnt_header(&in, "raw", "FixedString(2)");
    b_add(&in, "z\0", 2);
    b_str(&in, "3\n");
    rbwnt_header(&in, "raw", "LowCardinality(Nullable(String))");
    b_add(&in, "\x01\x00\x00\x00\x01q", 6);
    b_str(&in, "1\n");
    rbwnt_header(&in, "raw", "LowCardinality(String)");
    b_bin_str(&in, "lc", 2);
    b_str(&out, RESULT_HDR);
    bin_answers(&out, "2:6162\n0:\n");
    b_str(&out, RESULT_HDR);
    bin_answers(&out, "2:7A00\n");
    b_str(&out, RESULT_HDR);
    bin_answers(&out, "NULL\n0:\n1:71\n");
    b_str(&out, RESULT_HDR);
    bin_answers(&out, "2:6C63\n");
    ok_case("rbwnt chunk header, changing types", &ch, in.p, in.n,
            "2:6162\n0:\n2:7A00\nNULL\n0:\n1:71\n2:6C63\n", out.p, out.n);

    /* arrays by the header's real type */
    proto_config a = cfg_of(PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING_ARRAY, NULL);
    const char *atypes[] = {"Array(String)", "Array(Nullable(String))", "Array(LowCardinality(String))",
                            "Array(LowCardinality(Nullable(String)))"};
    for (int t = 0; t < 4; t++) {
        int nullable = strstr(atypes[t], "Nullable") != NULL;
        in.n = out.n = 0;
        b_str(&in, "2\n");
        rbwnt_header(&in, "a", atypes[t]);
        b_varint(&in, 2);
        if (nullable) b_add(&in, "\0", 1);
        b_bin_str(&in, "x", 1);
        if (nullable) b_str(&in, "\x01");
        else b_bin_str(&in, "", 0);
        b_varint(&in, 0);
        log = nullable ? "[1:78;NULL]\n[]\n" : "[1:78;0:]\n[]\n";
        b_str(&out, RESULT_HDR);
        bin_answers(&out, log);
        ok_case(atypes[t], &a, in.p, in.n, log, out.p, out.n);
    }

    bad_case("rbwnt unknown type", &c, "\x01\x03raw\x05UInt8\x01", 12, 0, "unknown type");
    bad_case("rbwnt type with junk", &c, "\x01\x03raw\x07String)", 13, 0, "unknown type");
    bad_case("rbwnt array for a string function", &c, "\x01\x01" "a\x0d" "Array(String)", 17, 0, "does not fit");
    bad_case("rbwnt two columns", &c, "\x02\x01" "a\x01" "b", 5, 0, "exactly one column");
    bad_case("rbwnt no columns", &c, "\x00", 1, 0, "exactly one column");
    bad_case("rbwnt truncated header", &c, "\x01\x03ra", 4, 0, "inside the RowBinaryWithNamesAndTypes header");
    bad_case("rbwnt truncated type", &c, "\x01\x03raw\x06Str", 9, 0, "header");
    bad_case("rbwnt bad varint in header", &c, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11, 0, "bad varint");
    bad_case("rbwnt name too long", &c, "\x01\xff\xff\x7f", 4, 0, "too long");
    bad_case("rbwnt chunk: header missing", &ch, "1\n", 2, 0, "header");
    bad_case("rbwnt chunk: block short", &ch, "2\n\x01\x01x\x06String\x01" "a", 14, 1, "inside a block");

    b_free(&in);
    b_free(&out);
    b_free(&in2);
    b_free(&out2);
}

/* ---------- result types ---------- */

static void test_results(void)
{
    proto_config c = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL);
    c.res_kind = PROTO_RES_FIXED;
    c.res_fixed_len = 6;
    const char in[] = "\x01\x01x\x06String\x01" "a\x00";
    result x = run_mem(&c, in, sizeof in - 1, 0, 0, 0);
    CHECK_EQ_INT(x.rc, 0);
    const char want[] = "\x01\x06result\x0e" "FixedString(6)" "1:61..0:....";
    CHECK_EQ_INT(x.out.n, sizeof want - 1);
    CHECK(x.out.n == sizeof want - 1 && !memcmp(x.out.p, want, sizeof want - 1));
    res_free(&x);

    c.res_kind = PROTO_RES_UINT128;
    const char in2[] = "\x01\x01x\x06String\x03" "abc";
    x = run_mem(&c, in2, sizeof in2 - 1, 0, 0, 0);
    CHECK_EQ_INT(x.rc, 0);
    const char want2[] = "\x01\x06result\x07UInt128" "\x03\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0";
    CHECK(x.out.n == sizeof want2 - 1 && !memcmp(x.out.p, want2, sizeof want2 - 1));
    res_free(&x);

    /* TabSeparated: UInt128 in decimal (3 * 2^64 + 3), FixedString escaped like String */
    proto_config t = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING, NULL);
    t.res_kind = PROTO_RES_UINT128;
    x = run_mem(&t, "abc\n\n", 5, 0, 0, 0);
    CHECK_EQ_INT(x.rc, 0);
    CHECK_EQ_STR(x.out.p, "55340232221128654851\n0\n");
    res_free(&x);
    t.res_kind = PROTO_RES_FIXED;
    t.res_fixed_len = 3;
    x = run_mem(&t, "\\t\n", 3, 0, 1, 0);
    CHECK_EQ_INT(x.rc, 0);
    CHECK_EQ_STR(x.out.p, "\\t..\n");
    res_free(&x);

    /* a callback failure or a wrong-sized result stops the run after the rows before it */
    proto_config s = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING, NULL);
    x = run_mem(&s, "a\nb\nc\n", 6, 0, 0, 2);
    CHECK_EQ_INT(x.rc, PROTO_ECALLBACK);
    CHECK_EQ_STR(x.out.p, "1:61\n");
    res_free(&x);
    x = run_mem(&t, "a\n", 2, 0, 2, 0);
    CHECK_EQ_INT(x.rc, PROTO_ECALLBACK);
    CHECK_EQ_INT(x.out.n, 0);
    res_free(&x);
}

/* ---------- every prefix of a valid stream: never more answers than complete rows ---------- */

/* Lengths in [skip_lo, skip_hi) are not checked (see the repeated-header case). */
static size_t skip_lo, skip_hi;

static void prefixes_of(const char *name, const proto_config *c, const bytes *in, const size_t *row_end,
                        int nrows)
{
    result full = run_mem(c, in->p, in->n, 0, 0, 0);
    CHECK_EQ_INT(full.rc, 0);
    int bad = 0;
    for (size_t len = 0; len < in->n; len++) {
        if (len >= skip_lo && len < skip_hi) continue;
        result x = run_mem(c, in->p, len, 3, 0, 0);
        int complete = 0;
        for (int r = 0; r < nrows; r++) complete += row_end[r] <= len;
        int rows = 0;
        for (size_t k = 0; k < x.log.n; k++) rows += x.log.p[k] == '\n';
        /* answers are a byte prefix of the full answers, one per complete row, never more */
        if (rows > complete || x.out.n > full.out.n || memcmp(x.out.p, full.out.p, x.out.n) ||
            (x.rc == 0 && rows != complete) || (x.rc != 0 && x.rc != PROTO_EINPUT)) {
            if (!bad++)
                fprintf(stderr, "%s: prefix %zu: rc %d rows %d complete %d\n", name, len, x.rc, rows,
                        complete);
        }
        res_free(&x);
    }
    CHECK_EQ_INT(bad, 0);
    res_free(&full);
}

static void prefixes(const char *name, const proto_config *c, const bytes *in, const size_t *row_end,
                     int nrows)
{
    proto_config v[2];
    int nv = variants(c, v);
    for (int k = 0; k < nv; k++) prefixes_of(name, &v[k], in, row_end, nrows);
}

static void test_prefixes(void)
{
    bytes in = {0};
    size_t ends[8];
    int n = 0;
    proto_config ch = cfg_of(PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING, NULL);
    b_str(&in, "2\n");
    rbwnt_header(&in, "raw", "Nullable(String)");
    b_add(&in, "\0", 1);
    b_bin_str(&in, "hello", 5);
    ends[n++] = in.n;
    b_str(&in, "\x01");
    ends[n++] = in.n;
    b_str(&in, "1\n");
    rbwnt_header(&in, "raw", "String");
    b_bin_str(&in, "x", 1);
    ends[n++] = in.n;
    prefixes("rbwnt chunk", &ch, &in, ends, n);

    /* no chunk header: the header again before the second block, with another type */
    in.n = 0;
    n = 0;
    proto_config nc = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL);
    rbwnt_header(&in, "raw", "Nullable(String)");
    b_add(&in, "\0\x02{}", 4);
    ends[n++] = in.n;
    b_add(&in, "\x01", 1);
    ends[n++] = in.n;
    /* Cut inside the second header, its first bytes are also complete rows (0x01 is a NULL):
     * without a chunk header nothing tells them apart at the end of input. The engine never
     * cuts a stream there; the chunk header removes the ambiguity. */
    skip_lo = in.n + 1;
    rbwnt_header(&in, "raw", "FixedString(2)");
    skip_hi = in.n;
    b_str(&in, "ab");
    ends[n++] = in.n;
    prefixes("rbwnt repeated header", &nc, &in, ends, n);
    skip_lo = skip_hi = 0;

    in.n = 0;
    n = 0;
    proto_config t = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING_ARRAY, NULL);
    b_str(&in, "['a\\'b',NULL]\n");
    ends[n++] = in.n;
    b_str(&in, "[]\n");
    ends[n++] = in.n;
    prefixes("tsv array", &t, &in, ends, n);

    in.n = 0;
    n = 0;
    proto_config a = cfg_of(PROTO_ROWBINARY, 1, PROTO_ARG_STRING_ARRAY, "Array(Nullable(String))");
    b_add(&in, "2\n\x02\x00\x02xy\x01", 8);
    ends[n++] = in.n;
    b_add(&in, "\0", 1);
    ends[n++] = in.n;
    prefixes("rb array chunk", &a, &in, ends, n);
    b_free(&in);
}

/* ---------- big rows: 16 MiB strings and a many-item array, across read boundaries ---------- */

static void test_big(void)
{
    size_t big = 16u << 20;
    char *s = malloc(big);
    for (size_t i = 0; i < big; i++) s[i] = (char)('a' + i % 23);
    s[big / 2] = '\t';
    bytes in = {0};
    proto_config c = cfg_of(PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING, NULL);
    b_str(&in, "2\n");
    rbwnt_header(&in, "raw", "String");
    b_bin_str(&in, s, big);
    b_bin_str(&in, "z", 1);
    for (int k = 0; k < 3; k++) {
        size_t step = k == 0 ? 0 : k == 1 ? 65536 : 1000003;
        rec r = {.cfg = &c, .mode = 1};
        proto_error err = {"", 0};
        char *out = NULL;
        size_t out_n = 0;
        int rc = proto_serve_mem(&c, in.p, in.n, step, cb, &r, &out, &out_n, &err);
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(r.rows, 2);
        size_t hl = sizeof RESULT_HDR - 1;
        /* the answer is the row itself: header, varint(16 MiB) = 80 80 80 08, bytes, then "z" */
        CHECK_EQ_INT(out_n, hl + 4 + big + 2);
        CHECK(out_n == hl + 4 + big + 2 && !memcmp(out + hl, "\x80\x80\x80\x08", 4) &&
              !memcmp(out + hl + 4, s, big) && !memcmp(out + hl + 4 + big, "\x01z", 2));
        free(out);
        b_free(&r.log);
        b_free(&r.res);
    }

    /* the same in TabSeparated (tab escaped) */
    bytes t = {0};
    b_add(&t, s, big / 2);
    b_str(&t, "\\t");
    b_add(&t, s + big / 2 + 1, big - big / 2 - 1);
    b_str(&t, "\n");
    proto_config tc = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING, NULL);
    rec r = {.cfg = &tc, .mode = 1};
    proto_error err = {"", 0};
    char *out = NULL;
    size_t out_n = 0;
    int rc = proto_serve_mem(&tc, t.p, t.n, 65536, cb, &r, &out, &out_n, &err);
    CHECK_EQ_INT(rc, 0);
    CHECK(out_n == t.n && !memcmp(out, t.p, t.n));
    free(out);
    b_free(&r.log);
    b_free(&r.res);

    /* an array row of 300 000 items arriving in 4 KiB reads */
    in.n = 0;
    proto_config a = cfg_of(PROTO_ROWBINARY, 0, PROTO_ARG_STRING_ARRAY, "Array(Nullable(String))");
    size_t items = 300000;
    b_varint(&in, items);
    for (size_t i = 0; i < items; i++) {
        if (i % 5 == 0) {
            b_str(&in, "\x01");
        } else {
            b_add(&in, "\0", 1);
            b_bin_str(&in, s + i % 100, i % 7);
        }
    }
    rec ra = {.cfg = &a};
    rc = proto_serve_mem(&a, in.p, in.n, 4096, cb, &ra, NULL, NULL, &err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(ra.rows, 1);
    /* the log names every item: spot-check the count of NULLs */
    size_t nulls = 0;
    for (size_t k = 0; k + 4 <= ra.log.n; k++) nulls += !memcmp(ra.log.p + k, "NULL", 4);
    CHECK_EQ_INT(nulls, items / 5);
    b_free(&ra.log);
    b_free(&ra.res);
    b_free(&in);
    b_free(&t);
    free(s);
}

/* ---------- padding after every string ---------- */

static void test_padding(void)
{
    proto_config c = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING, NULL);
    for (size_t step = 1; step < 5; step++) {
        result x = run_mem(&c, "ab\nc\\td\n", 8, step, 0, 0);
        CHECK_EQ_INT(x.padding_ok, 2);
        res_free(&x);
    }
}

/* ---------- pool mode over pipes: each row is answered before the next one is sent ---------- */

static int read_exact_timeout(int fd, char *buf, size_t n, int ms)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, ms) <= 0) return -1;
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

static void pool_dialogue(const proto_config *c, const char *const *blocks, const char *const *answers,
                          int nblocks, const char *name)
{
    int to[2], from[2];
    if (pipe(to) || pipe(from)) abort();
    pid_t pid = fork();
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        rec r = {.cfg = c};
        proto_error err;
        _exit(proto_serve(c, to[0], from[1], cb, &r, &err) == 0 ? 0 : 1);
    }
    close(to[0]);
    close(from[1]);
    int ok = 1;
    for (int b = 0; b < nblocks && ok; b++) {
        size_t bn = strlen(blocks[b]), an = strlen(answers[b]);
        /* hold stdin open and wait for the answers, as the engine does in executable_pool */
        if (write(to[1], blocks[b], bn) != (ssize_t)bn) ok = 0;
        char got[256] = {0};
        if (ok && read_exact_timeout(from[0], got, an, 5000) < 0) ok = 0;
        if (ok && memcmp(got, answers[b], an) != 0) ok = 0;
        if (!ok) fprintf(stderr, "%s: block %d not answered while stdin stayed open\n", name, b);
    }
    close(to[1]);
    int st = 0;
    waitpid(pid, &st, 0);
    close(from[0]);
    CHECK(ok);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_pool(void)
{
    proto_config t = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING, NULL);
    const char *tb[] = {"a\n", "b\nc\n", "\n"};
    const char *ta[] = {"1:61\n", "1:62\n1:63\n", "0:\n"};
    pool_dialogue(&t, tb, ta, 3, "pool tsv");
    proto_config tc = cfg_of(PROTO_TSV, 1, PROTO_ARG_STRING, NULL);
    const char *tcb[] = {"1\na\n", "2\nb\nc\n"};
    pool_dialogue(&tc, tcb, ta, 2, "pool tsv chunk");
    proto_config n = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL);
    const char *nb[] = {"\x01\x01x\x06String\x01" "a", "\x01\x01x\x06String\x01" "b"};
    const char *na[] = {RESULT_HDR "\x04" "1:61", RESULT_HDR "\x04" "1:62"};
    pool_dialogue(&n, nb, na, 2, "pool rbwnt no chunk header");
    /* a row whose bytes are a prefix of the header is answered, not held back */
    proto_config n2 = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL);
    const char *pb[] = {"\x01\x01x\x06String\x01\x01", "\x01\x01x\x06String\x01" "b"};
    const char *pa[] = {RESULT_HDR "\x04" "1:01", RESULT_HDR "\x04" "1:62"};
    pool_dialogue(&n2, pb, pa, 2, "pool rbwnt header-like row");
}

/* ---------- the items function: batches, memory, failure ---------- */


/* The most heap the run used beyond a baseline, sampled in every callback; the callbacks keep
 * nothing, so what grows is the layer's. */
static long long heap_base, heap_peak;
static long long heap_after_big; /* the most beyond the baseline in the rows after the first */
static int heap_rows;
static size_t heap_batches;

static void heap_sample(void)
{
    long long d = check_heap_in_use() - heap_base;
    if (d > heap_peak) heap_peak = d;
    if (heap_rows > 0 && d > heap_after_big) heap_after_big = d;
}

static int heap_items_cb(void *ctx, size_t first, const proto_str *items, size_t n)
{
    (void)ctx;
    (void)first;
    (void)items;
    (void)n;
    heap_batches++;
    heap_sample();
    return 0;
}

static int heap_cb(void *ctx, const proto_value *v, proto_result *res)
{
    (void)ctx;
    (void)v;
    heap_sample();
    heap_rows++;
    res->p = "";
    res->n = 0;
    return 0;
}

/* Runs cfg on in (answers discarded) with the heap sampled; returns proto_serve_mem's code. */
static int run_heap(const proto_config *cfg, const bytes *in, size_t step)
{
    proto_config c = *cfg;
    if (c.items_fn) c.items_fn = heap_items_cb;
    proto_error err;
    heap_peak = heap_after_big = 0;
    heap_rows = 0;
    heap_batches = 0;
    heap_base = check_heap_in_use();
    return proto_serve_mem(&c, in->p, in->n, step, heap_cb, NULL, NULL, NULL, &err);
}

static void test_items_fn(void)
{
    /* 300 000 items in one row, the same in RowBinary and TabSeparated */
    size_t items = 300000;
    bytes rb = {0}, tsv = {0};
    b_str(&rb, "2\n");
    rbwnt_header(&rb, "a", "Array(Nullable(String))");
    b_varint(&rb, items);
    b_str(&tsv, "2\n[");
    for (size_t i = 0; i < items; i++) {
        if (i) b_str(&tsv, ",");
        if (i % 5 == 0) {
            b_str(&rb, "\x01");
            b_str(&tsv, "NULL");
        } else {
            char v[16];
            int k = snprintf(v, sizeof v, "v%zu", i % 1000);
            b_add(&rb, "\0", 1);
            b_bin_str(&rb, v, (size_t)k);
            b_str(&tsv, "'");
            b_str(&tsv, v);
            b_str(&tsv, "'");
        }
    }
    b_varint(&rb, 1);
    b_add(&rb, "\0\x01z", 3);
    b_str(&tsv, "]\n['z']\n");

    proto_config plain = cfg_of(PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING_ARRAY, NULL);
    proto_config streamed = plain;
    streamed.items_fn = items_cb;
    proto_config tplain = cfg_of(PROTO_TSV, 1, PROTO_ARG_STRING_ARRAY, NULL);
    proto_config tstreamed = tplain;
    tstreamed.items_fn = items_cb;
    result want = run_mem(&plain, rb.p, rb.n, 4096, 0, 0);
    result got = run_mem(&streamed, rb.p, rb.n, 4096, 0, 0);
    result tgot = run_mem(&tstreamed, tsv.p, tsv.n, 4096, 0, 0);
    CHECK_EQ_INT(want.rc, 0);
    CHECK_EQ_INT(got.rc, 0);
    CHECK_EQ_INT(tgot.rc, 0);
    CHECK_EQ_STR(got.log.p, want.log.p);
    CHECK_EQ_STR(tgot.log.p, want.log.p);
    CHECK_EQ_INT(got.order_bad, 0);
    CHECK_EQ_INT(tgot.order_bad, 0);
    CHECK(got.out.n == want.out.n && !memcmp(got.out.p, want.out.p, got.out.n));
    res_free(&want);
    res_free(&got);
    res_free(&tgot);

    /* handed over in batches of at most 4096 items, the big row in at least 74 calls; the item
     * table (7 MB) and the whole row (1.5 MB) are never held, so the layer's memory stays below
     * half a MiB while the row streams by */
    CHECK_EQ_INT(run_heap(&streamed, &rb, 4096), 0);
    CHECK(heap_batches >= 75);
    long long streamed_peak = heap_peak;
    CHECK_EQ_INT(run_heap(&plain, &rb, 4096), 0);
    long long plain_peak = heap_peak;
    if (CHECK_HEAP_KNOWN) {
        if (streamed_peak >= 512 * 1024 || plain_peak < 4 * 1024 * 1024)
            fprintf(stderr, "heap beyond the input: %lld with the items function, %lld without\n",
                    streamed_peak, plain_peak);
        CHECK(streamed_peak < 512 * 1024);
        CHECK(plain_peak >= 4 * 1024 * 1024);
    }
    CHECK_EQ_INT(run_heap(&tstreamed, &tsv, 4096), 0);
    CHECK(heap_batches >= 75);

    /* a failing items function stops the run before the row is answered */
    rec r = {.cfg = &streamed, .fail_items_at = 3};
    proto_error err = {"", 0};
    char *out = NULL;
    size_t out_n = 0;
    int rc = proto_serve_mem(&streamed, rb.p, rb.n, 0, cb, &r, &out, &out_n, &err);
    CHECK_EQ_INT(rc, PROTO_ECALLBACK);
    CHECK_EQ_STR(err.msg, "the items function failed");
    CHECK_EQ_INT(r.rows, 0);
    free(out);
    b_free(&r.pend);
    b_free(&r.log);
    b_free(&r.res);
    b_free(&rb);
    b_free(&tsv);
}

/* After a big row the layer shrinks back: the rows after it run in the initial buffers. */
static void test_give_back(void)
{
    if (!CHECK_HEAP_KNOWN) return;
    size_t big = 8u << 20;
    bytes in = {0};
    proto_config c = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL);
    rbwnt_header(&in, "raw", "String");
    b_varint(&in, big);
    b_add(&in, NULL, big);
    memset(in.p + in.n - big, 'q', big);
    for (int i = 0; i < 50; i++) b_bin_str(&in, "small", 5);
    CHECK_EQ_INT(run_heap(&c, &in, 65536), 0);
    if (heap_peak < (long long)big || heap_after_big >= 256 * 1024)
        fprintf(stderr, "give back: peak %lld, after the big row %lld\n", heap_peak, heap_after_big);
    CHECK(heap_peak >= (long long)big);
    CHECK(heap_after_big < 256 * 1024);
    CHECK_EQ_INT(heap_rows, 51);

    /* the item table of a 100 000-item row (2.4 MB) goes too */
    in.n = 0;
    proto_config a = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING_ARRAY, NULL);
    rbwnt_header(&in, "a", "Array(String)");
    b_varint(&in, 100000);
    for (int i = 0; i < 100000; i++) b_bin_str(&in, "x", 1);
    for (int i = 0; i < 50; i++) {
        b_varint(&in, 1);
        b_bin_str(&in, "y", 1);
    }
    CHECK_EQ_INT(run_heap(&a, &in, 0), 0);
    if (heap_peak < 2000000 || heap_after_big >= 256 * 1024)
        fprintf(stderr, "give back (items): peak %lld, after the big row %lld\n", heap_peak, heap_after_big);
    CHECK(heap_peak >= 2000000);
    CHECK(heap_after_big < 256 * 1024);
    b_free(&in);
}

/* A header type the function cannot take: with a name, a message a SQL caller understands,
 * and in every case the block answered with a result header and no rows. */
static void test_wrong_type(void)
{
    struct {
        proto_arg_kind kind;
        const char *type, *want;
    } cases[] = {
        {PROTO_ARG_STRING, "UInt8", "f takes a String-like argument, got UInt8"},
        {PROTO_ARG_STRING, "Array(UInt8)", "f takes a String-like argument, got Array(UInt8)"},
        {PROTO_ARG_STRING, "Array(String)", "f takes a String-like argument, got Array(String)"},
        {PROTO_ARG_STRING_ARRAY, "Array(UInt8)", "f takes an Array of String-like items, got Array(UInt8)"},
        {PROTO_ARG_STRING_ARRAY, "Nullable(String)", "f takes an Array of String-like items, got Nullable(String)"},
        {PROTO_ARG_STRING, "Map(\nString,\tUInt8)", "f takes a String-like argument, got Map(?String,?UInt8)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int chunk = 0; chunk < 2; chunk++) {
            bytes in = {0};
            if (chunk) b_str(&in, "1\n");
            rbwnt_header(&in, "x", cases[i].type);
            b_add(&in, "\x01\x02\x03", 3);
            proto_config c = cfg_of(PROTO_ROWBINARY_NT, chunk, cases[i].kind, NULL);
            c.name = "f";
            result x = run_mem(&c, in.p, in.n, 0, 0, 0);
            CHECK_EQ_INT(x.rc, PROTO_EINPUT);
            CHECK_EQ_STR(x.err.msg, cases[i].want);
            CHECK(x.out.n == sizeof RESULT_HDR - 1 && !memcmp(x.out.p, RESULT_HDR, x.out.n));
            CHECK_EQ_INT(x.log.n, 0);
            res_free(&x);
            /* without a name, the layer's plain words */
            c.name = NULL;
            x = run_mem(&c, in.p, in.n, 0, 0, 0);
            CHECK(x.err.msg && (strstr(x.err.msg, "unknown type") || strstr(x.err.msg, "does not fit")));
            CHECK(x.out.n == sizeof RESULT_HDR - 1);
            res_free(&x);
            b_free(&in);
        }
    }
    /* a long type is cut, the message stays one bounded line */
    bytes in = {0}, t = {0};
    for (int i = 0; i < 50; i++) b_str(&t, "Tuple(UInt8, ");
    rbwnt_header(&in, "x", t.p);
    proto_config c = cfg_of(PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL);
    c.name = "order_wire_class";
    result x = run_mem(&c, in.p, in.n, 0, 0, 0);
    CHECK(x.err.msg && strlen(x.err.msg) < 192 && strncmp(x.err.msg, "order_wire_class takes", 22) == 0);
    CHECK(x.err.msg && !strcmp(x.err.msg + strlen(x.err.msg) - 3, "..."));
    res_free(&x);
    /* a UInt128 function answers its own result header */
    c.res_kind = PROTO_RES_UINT128;
    c.arg_kind = PROTO_ARG_STRING_ARRAY;
    c.name = "hashdiff";
    in.n = 0;
    b_str(&in, "1\n");
    rbwnt_header(&in, "attributes", "Array(UInt8)");
    c.chunk_header = 1;
    x = run_mem(&c, in.p, in.n, 0, 0, 0);
    CHECK_EQ_STR(x.err.msg, "hashdiff takes an Array of String-like items, got Array(UInt8)");
    CHECK(x.out.n == 16 && !memcmp(x.out.p, "\x01\x06result\x07UInt128", 16));
    res_free(&x);
    /* TabSeparated cannot name the type; an item that is not a string still says what it takes */
    proto_config ta = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING_ARRAY, NULL);
    ta.name = "hashdiff";
    x = run_mem(&ta, "[1,2]\n", 6, 0, 0, 0);
    CHECK_EQ_INT(x.rc, PROTO_EINPUT);
    CHECK(x.err.msg && strstr(x.err.msg, "hashdiff takes an Array of String-like items") != NULL);
    res_free(&x);
    b_free(&in);
    b_free(&t);
}

/* An array row arriving in two writes on a pipe held open (pool mode) with an items function:
 * answered as soon as its last byte is there, never waiting for bytes past it. */
static int count_row(void *ctx, const proto_value *v, proto_result *res)
{
    static char txt[32];
    (void)ctx;
    int k = snprintf(txt, sizeof txt, "%zu", v->n_items);
    res->p = txt;
    res->n = (size_t)k;
    return 0;
}

static int count_items(void *ctx, size_t first, const proto_str *items, size_t n)
{
    (void)ctx;
    (void)first;
    (void)items;
    (void)n;
    return 0;
}

static void test_streamed_pool(void)
{
    bytes in = {0};
    b_str(&in, "1\n");
    rbwnt_header(&in, "a", "Array(String)");
    b_varint(&in, 20000);
    for (int i = 0; i < 20000; i++) b_bin_str(&in, "xyz", 3);
    proto_config c = cfg_of(PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING_ARRAY, NULL);
    c.items_fn = count_items;
    int to[2], from[2];
    if (pipe(to) || pipe(from)) abort();
    pid_t pid = fork();
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        proto_error err;
        _exit(proto_serve(&c, to[0], from[1], count_row, NULL, &err) == 0 ? 0 : 1);
    }
    close(to[0]);
    close(from[1]);
    /* the child parses the first part and waits for the rest, which is shorter than what it
     * already consumed (a read position moved by the items must not inflate the wait) */
    size_t part = in.n * 3 / 4;
    int ok = write(to[1], in.p, part) == (ssize_t)part;
    usleep(50000);
    ok = ok && write(to[1], in.p + part, in.n - part) == (ssize_t)(in.n - part);
    const char want[] = RESULT_HDR "\x05" "20000";
    char got[64] = {0};
    ok = ok && read_exact_timeout(from[0], got, sizeof want - 1, 5000) == 0 && !memcmp(got, want, sizeof want - 1);
    if (!ok) fprintf(stderr, "streamed pool: the row was not answered while stdin stayed open\n");
    CHECK(ok);
    close(to[1]);
    int st = 0;
    waitpid(pid, &st, 0);
    close(from[0]);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    b_free(&in);
}

/* The input pipe is enlarged to 256 KiB before the first read (the engine's writer and the
 * reader then wake each other a quarter as often: docs/performance.md), and a row through it is
 * still answered; a memfd (not a pipe) is left alone. */
static void test_pipe_size(void)
{
    int to[2];
    if (pipe(to)) abort();
    int before = fcntl(to[0], F_GETPIPE_SZ);
    proto_config c = cfg_of(PROTO_TSV, 0, PROTO_ARG_STRING, NULL);
    const char in[] = "abc\n";
    if (write(to[1], in, sizeof in - 1) != (ssize_t)(sizeof in - 1)) abort();
    close(to[1]);
    int ofd = memfd_create("out", 0);
    rec r = {.cfg = &c, .mode = 0};
    proto_error err = {0};
    CHECK_EQ_INT(proto_serve(&c, to[0], ofd, cb, &r, &err), 0);
    CHECK(before < 256 << 10);
    CHECK_EQ_INT(fcntl(to[0], F_GETPIPE_SZ), 256 << 10);
    CHECK(lseek(ofd, 0, SEEK_END) > 0);
    close(to[0]);
    close(ofd);
    b_free(&r.res);
    b_free(&r.pend);
    b_free(&r.log);
}

/* ---------- streams captured from the 26.5 engine (tests/fixtures/proto/capture.sh) ---------- */

static char *slurp(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/proto/%s", ODS_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        *n = 0;
        return NULL;
    }
    bytes b = {0};
    char tmp[4096];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) b_add(&b, tmp, k);
    fclose(f);
    *n = b.n;
    return b.p;
}

static void test_fixtures(void)
{
    static const struct {
        const char *in, *want;
        proto_format f;
        int chunk;
        proto_arg_kind kind;
        const char *type;
        int blocks;
    } fx[] = {
        {"rbnt_pool_chunk.in", "strings.want", PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING, NULL, 3},
        {"rbnt_pool_types.in", "rbnt_pool_types.want", PROTO_ROWBINARY_NT, 0, PROTO_ARG_STRING, NULL, 3},
        {"rb_pool_chunk.in", "strings.want", PROTO_ROWBINARY, 1, PROTO_ARG_STRING, "Nullable(String)", 0},
        {"tsv_exec.in", "strings.want", PROTO_TSV, 0, PROTO_ARG_STRING, NULL, 0},
        {"tsv_array_chunk.in", "arrays.want", PROTO_TSV, 1, PROTO_ARG_STRING_ARRAY, NULL, 0},
        {"rbnt_array_chunk.in", "arrays.want", PROTO_ROWBINARY_NT, 1, PROTO_ARG_STRING_ARRAY, NULL, 3},
    };
    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
        size_t n, wn;
        char *in = slurp(fx[i].in, &n), *want = slurp(fx[i].want, &wn);
        CHECK(in && want && n > 0);
        if (!in || !want) continue;
        proto_config c = cfg_of(fx[i].f, fx[i].chunk, fx[i].kind, fx[i].type);
        ok_case(fx[i].in, &c, in, n, want, NULL, 0);
        /* binary formats with a header: one result header per block */
        if (fx[i].blocks) {
            result x = run_mem(&c, in, n, 0, 0, 0);
            int headers = 0;
            for (size_t k = 0; k + 8 <= x.out.n; k++) headers += !memcmp(x.out.p + k, "\x01\x06result", 8);
            CHECK_EQ_INT(headers, fx[i].blocks);
            res_free(&x);
        }
        free(in);
        free(want);
    }
}

static void test_names(void)
{
    proto_format f;
    CHECK_EQ_INT(proto_format_from_name("TabSeparated", &f), 0);
    CHECK_EQ_INT(f, PROTO_TSV);
    CHECK_EQ_INT(proto_format_from_name("TSV", &f), 0);
    CHECK_EQ_INT(proto_format_from_name("RowBinary", &f), 0);
    CHECK_EQ_INT(f, PROTO_ROWBINARY);
    CHECK_EQ_INT(proto_format_from_name("RowBinaryWithNamesAndTypes", &f), 0);
    CHECK_EQ_INT(f, PROTO_ROWBINARY_NT);
    CHECK_EQ_INT(proto_format_from_name("JSONEachRow", &f), -1);
    CHECK_EQ_INT(proto_format_from_name(NULL, &f), -1);
    CHECK_EQ_INT(proto_arg_type_valid("Nullable(String)", PROTO_ARG_STRING), 0);
    CHECK_EQ_INT(proto_arg_type_valid("LowCardinality(Nullable(String))", PROTO_ARG_STRING), 0);
    CHECK_EQ_INT(proto_arg_type_valid("FixedString(16)", PROTO_ARG_STRING), 0);
    CHECK_EQ_INT(proto_arg_type_valid("Array(LowCardinality(Nullable(String)))", PROTO_ARG_STRING_ARRAY), 0);
    CHECK_EQ_INT(proto_arg_type_valid("Array(String)", PROTO_ARG_STRING), -1);
    CHECK_EQ_INT(proto_arg_type_valid("String", PROTO_ARG_STRING_ARRAY), -1);
    CHECK_EQ_INT(proto_arg_type_valid("Nullable(Nullable(String))", PROTO_ARG_STRING), -1);
    CHECK_EQ_INT(proto_arg_type_valid("FixedString(0)", PROTO_ARG_STRING), -1);
    CHECK_EQ_INT(proto_arg_type_valid("Array(Array(String))", PROTO_ARG_STRING_ARRAY), -1);
    CHECK_EQ_INT(proto_arg_type_valid("UInt64", PROTO_ARG_STRING), -1);
    CHECK_EQ_INT(proto_arg_type_valid("String ", PROTO_ARG_STRING), 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_names();
    test_tsv();
    test_tsv_array();
    test_rowbinary();
    test_rbwnt();
    test_results();
    test_prefixes();
    test_fixtures();
    test_padding();
    test_big();
    test_pool();
    test_items_fn();
    test_give_back();
    test_wrong_type();
    test_streamed_pool();
    test_pipe_size();
    return check_report();
}
