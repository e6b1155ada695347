/* wire: classifies one raw order message against the wire contract v1 in one simdjson pass (sj):
 * DOM's checked tree for the class alone; else a walk checking what On-Demand leaves out. */
#include "wire.h"

#include "proto.h"
#include "sj.h"
#include "wire_contract.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(WIRE_PADDING >= SJ_PADDING, "the classifier promises sj its padding");
_Static_assert(WIRE_NFIELDS <= 32, "seen keys are a 32-bit mask");
_Static_assert(WIRE_TEXT_MAX == 128, "the text rule's bound is the row's buffer");

const char *wire_class_name(wire_class c)
{
    _Static_assert(WIRE_NOT_AN_OBJECT == 1 && WIRE_FIELD_INVALID == WIRE_NREJECT,
                   "wire_class from 1 follows WIRE_REJECT_CLASSES");
    if (c >= WIRE_NOT_AN_OBJECT && c <= WIRE_FIELD_INVALID)
        return WIRE_REJECT_CLASSES[c - 1];
    return c == WIRE_VALID ? "" : WIRE_REJECT_CLASSES[0];
}

/* Longest contract key + 1: a longer key cannot be one of them, no need to unescape all of it. */
#define KEY_BUF 32
/* Every non-text string rule has a fixed small length; the buffer only has to hold one more. */
#define VAL_BUF 32

static sj_parser *g_parser;
/* Per key length 0..16, the WIRE_FIELDS indices of that length, ending with -1. */
static signed char g_by_len[17][WIRE_NFIELDS + 1];
/* Each key zero-padded to 16 bytes as two words: a lookup is two compares, no memcmp call. */
static uint64_t g_key_w[WIRE_NFIELDS][2];

/* The reasons of a bad keyset and of the first bad field, formatted only when explaining (kept
 * apart from wctx: zeroing them for every message was a cost of the fast path). */
struct wreasons {
    char key[sizeof ((wire_explain *)0)->reason];
    char field[sizeof ((wire_explain *)0)->reason];
};

typedef struct {
    const char *base;
    wire_explain *why;       /* NULL on the fast path: no reasons are formatted */
    unsigned seen;           /* bit i: WIRE_FIELDS[i] met as a root key */
    int nkeys;
    int keyset_bad;          /* an unknown or repeated root key */
    int field_bad;           /* a known field broke its rule */
    int cur;                 /* WIRE_FIELDS index of the root member being walked, or -1 */
    const char *lex_msg;     /* static: why the text is not JSON (set when we stop the walk) */
    const char *lex_at;
    struct wreasons *rs;     /* with why: where the reasons are formatted */
    const char *field_field;
    wire_row *row;           /* wire_parse: where the typed fields go; NULL: classify only */
    int in_items;            /* the items array is being re-printed into row->items */
    int items_field;         /* its WIRE_FIELDS index */
} wctx;

/* ---- lexical checks (RFC 8259) ---- */

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)p[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return 0;
        v = v << 4 | d;
    }
    *out = v;
    return 1;
}

static void put(char *out, size_t cap, size_t *n, unsigned char c)
{
    if (*n < cap)
        out[*n] = (char)c;
    (*n)++;
}

/* One JSON string body [p, end) (between the quotes; simdjson has checked raw control
 * characters and UTF-8): checks its escapes (0, *msg says why, when one is invalid), unescapes
 * into out[0..cap) (the rest is counted, not stored), sets *len to the unescaped length and, if
 * ctl is not NULL, *ctl when the result holds a C0 control or U+007F. Most bodies hold no
 * backslash: memchr finds that out at SIMD speed and the body is its own unescaped form. */
static int str_unescape(const char *p, const char *end, char *out, size_t cap, size_t n, int c7,
                        size_t *len, int *ctl, const char **msg);

static inline int str_scan(const char *p, const char *end, char *out, size_t cap, size_t *len,
                           int *ctl, const char **msg)
{
    const char *bs = memchr(p, '\\', (size_t)(end - p));
    size_t n = (size_t)((bs ? bs : end) - p);
    if (out)
        memcpy(out, p, n < cap ? n : cap);
    int c7 = ctl && memchr(p, 0x7f, n) != NULL;
    if (bs)
        return str_unescape(bs, end, out, cap, n, c7, len, ctl, msg);
    *len = n;
    if (ctl)
        *ctl = c7;
    return 1;
}

/* str_scan's slow part, from the first backslash at p; n bytes are already out. */
static int str_unescape(const char *p, const char *end, char *out, size_t cap, size_t n, int c7,
                        size_t *len, int *ctl, const char **msg)
{
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == '"') {
            *msg = "raw control character or quote in a string";
            return 0;
        }
        if (c != '\\') {
            c7 |= c == 0x7f;
            put(out, cap, &n, c);
            p++;
            continue;
        }
        if (end - p < 2) {
            *msg = "invalid escape in a string";
            return 0;
        }
        unsigned cp;
        switch (p[1]) {
        case '"': case '\\': case '/':
            cp = (unsigned char)p[1];
            break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            if (end - p < 6 || !hex4(p + 2, &cp)) {
                *msg = "invalid \\u escape";
                return 0;
            }
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                *msg = "lone low surrogate escape";
                return 0;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo;
                if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || !hex4(p + 8, &lo) ||
                    lo < 0xdc00 || lo > 0xdfff) {
                    *msg = "lone high surrogate escape";
                    return 0;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
            p += 4;
            break;
        default:
            *msg = "invalid escape in a string";
            return 0;
        }
        p += 2;
        c7 |= cp < 0x20 || cp == 0x7f;
        if (cp < 0x80) {
            put(out, cap, &n, (unsigned char)cp);
        } else if (cp < 0x800) {
            put(out, cap, &n, (unsigned char)(0xc0 | cp >> 6));
            put(out, cap, &n, (unsigned char)(0x80 | (cp & 0x3f)));
        } else if (cp < 0x10000) {
            put(out, cap, &n, (unsigned char)(0xe0 | cp >> 12));
            put(out, cap, &n, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
            put(out, cap, &n, (unsigned char)(0x80 | (cp & 0x3f)));
        } else {
            put(out, cap, &n, (unsigned char)(0xf0 | cp >> 18));
            put(out, cap, &n, (unsigned char)(0x80 | (cp >> 12 & 0x3f)));
            put(out, cap, &n, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
            put(out, cap, &n, (unsigned char)(0x80 | (cp & 0x3f)));
        }
    }
    *len = n;
    if (ctl)
        *ctl = c7;
    return 1;
}

/* A lexically valid integer literal compared with [lo, hi] given as digit strings; the grammar
 * forbids leading zeros, so the digit count orders first. */
static int digits_le(const char *p, size_t n, const char *lim)
{
    size_t ln = strlen(lim);
    return n != ln ? n < ln : memcmp(p, lim, n) <= 0;
}

static int int_in_range(const char *p, const char *e)
{
    if (*p == '-')
        return digits_le(p + 1, (size_t)(e - p - 1), "9223372036854775808");
    return digits_le(p, (size_t)(e - p), "18446744073709551615");
}

/* Whether a lexically valid number rounds to a finite double. value = 0.d1d2… × 10^E; E ≤ 308
 * is below DBL_MAX, E ≥ 310 above it, E = 309 is settled by strtod on its leading digits (780
 * significant digits decide exactly: the overflow threshold is an integer of 309 digits). */
static int dbl_finite(const char *p, const char *e)
{
    if (*p == '-')
        p++;
    const char *ip = p;
    while (p < e && is_digit((unsigned char)*p))
        p++;
    const char *ipe = p, *fp = p, *fpe = p;
    if (p < e && *p == '.') {
        fp = ++p;
        while (p < e && is_digit((unsigned char)*p))
            p++;
        fpe = p;
    }
    long long ex = 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        int neg = 0;
        p++;
        if (*p == '+' || *p == '-')
            neg = *p++ == '-';
        for (; p < e; p++)
            if (ex < 100000000)
                ex = ex * 10 + (*p - '0');
        if (neg)
            ex = -ex;
    }
    long long E;
    const char *first; /* first nonzero digit */
    if (!(ipe - ip == 1 && *ip == '0')) {
        E = (ipe - ip) + ex;
        first = ip;
    } else {
        first = fp;
        while (first < fpe && *first == '0')
            first++;
        if (first == fpe)
            return 1; /* zero, whatever the exponent */
        E = -(long long)(first - fp) + ex;
    }
    if (E <= 308)
        return 1;
    if (E >= 310)
        return 0;
    char buf[800];
    size_t n = 0;
    buf[n++] = '0';
    buf[n++] = '.';
    for (const char *q = first; q < fpe && n < sizeof buf - 8; q++)
        if (q != ipe) /* skip the decimal point */
            buf[n++] = *q;
    memcpy(buf + n, "e309", 5);
    return isfinite(strtod(buf, NULL));
}

/* ---- field rules ---- */

static int days_in(int y, int m)
{
    static const int d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : d[m - 1];
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; negative before 1970). */
static int64_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The typed value of the root member being walked, when parsing. */
static void typed(wctx *c, int64_t v)
{
    if (c->row)
        c->row->i[c->cur] = v;
}

static int dnum(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Formats a rule failure reason (only when explaining). */
static int field_fail(wctx *c, const char *fmt, ...)
{
    if (!c->field_bad && c->why) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->rs->field, sizeof c->rs->field, fmt, ap);
        va_end(ap);
        c->field_field = WIRE_FIELDS[c->cur].name;
    }
    c->field_bad = 1;
    return 0;
}

/* "YYYY-MM-DD" at s: a real date; sets y m d, or explains. */
static int check_ymd(wctx *c, const char *s, int *y, int *m, int *d)
{
    *y = dnum(s, 4);
    *m = dnum(s + 5, 2);
    *d = dnum(s + 8, 2);
    if (*y < 0 || *m < 0 || *d < 0 || s[4] != '-' || s[7] != '-')
        return field_fail(c, "not a date YYYY-MM-DD");
    if (*m < 1 || *m > 12)
        return field_fail(c, "month %d does not exist", *m);
    if (*d < 1 || *d > days_in(*y, *m))
        return field_fail(c, "day %d does not exist in %04d-%02d", *d, *y, *m);
    return 1;
}

static void rule_timestamp(wctx *c, const char *s, size_t n)
{
    int y, m, d;
    if (n != 24 || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z') {
        field_fail(c, "not YYYY-MM-DDTHH:MM:SS.mmmZ");
        return;
    }
    int hh = dnum(s + 11, 2), mi = dnum(s + 14, 2), ss = dnum(s + 17, 2), ms = dnum(s + 20, 3);
    if (hh < 0 || mi < 0 || ss < 0 || ms < 0) {
        field_fail(c, "not YYYY-MM-DDTHH:MM:SS.mmmZ");
        return;
    }
    if (!check_ymd(c, s, &y, &m, &d))
        return;
    if (y < 1900 || y > 2299)
        field_fail(c, "year %d outside 1900-2299", y);
    else if (hh > 23)
        field_fail(c, "hour %d does not exist", hh);
    else if (mi > 59)
        field_fail(c, "minute %d does not exist", mi);
    else if (ss > 59)
        field_fail(c, "second %d does not exist", ss);
    else
        typed(c, ((days_from_civil(y, m, d) * 24 + hh) * 60 + mi) * 60000 + ss * 1000 + ms);
}

static void rule_date(wctx *c, const char *s, size_t n)
{
    int y, m, d;
    if (n != 10) {
        field_fail(c, "not a date YYYY-MM-DD");
        return;
    }
    if (!check_ymd(c, s, &y, &m, &d))
        return;
    long v = (long)y * 10000 + m * 100 + d;
    if (v < 19700101 || v > 21490606)
        field_fail(c, "%04d-%02d-%02d outside 1970-01-01 to 2149-06-06", y, m, d);
    else
        typed(c, days_from_civil(y, m, d));
}

static void rule_money(wctx *c, const char *s, size_t n)
{
    if (n > 20) {
        field_fail(c, "not a money amount -?(0|[1-9][0-9]{0,15}).[0-9]{2}");
        return;
    }
    const char *p = s, *e = s + n;
    int neg = p < e && *p == '-';
    p += neg;
    const char *ip = p;
    while (p < e && is_digit((unsigned char)*p))
        p++;
    size_t nd = (size_t)(p - ip);
    if (nd == 0 || nd > 16 || (nd > 1 && *ip == '0') || e - p != 3 || p[0] != '.' ||
        !is_digit((unsigned char)p[1]) || !is_digit((unsigned char)p[2])) {
        field_fail(c, "not a money amount -?(0|[1-9][0-9]{0,15}).[0-9]{2}");
        return;
    }
    if (neg && nd == 1 && *ip == '0' && p[1] == '0' && p[2] == '0') {
        field_fail(c, "-0.00 is not canonical");
        return;
    }
    int64_t v = 0; /* at most 16 + 2 digits: fits */
    for (const char *q = ip; q < p; q++)
        v = v * 10 + (*q - '0');
    v = v * 100 + (p[1] - '0') * 10 + (p[2] - '0');
    typed(c, neg ? -v : v);
}

static const char *kind_name(sj_kind k)
{
    switch (k) {
    case SJ_OBJECT: return "an object";
    case SJ_ARRAY: return "an array";
    case SJ_STRING: return "a string";
    case SJ_NUMBER: return "a number";
    case SJ_TRUE: case SJ_FALSE: return "a boolean";
    case SJ_NULL: break;
    }
    return "null";
}

/* Copies up to 40 bytes of s into a one-line, printable form. */
static const char *shown(char *dst, size_t cap, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 8 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (i == 40) {
            o += (size_t)snprintf(dst + o, cap - o, "...");
            break;
        }
        if (ch < 0x20 || ch == 0x7f || ch == '\\')
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", ch);
        else
            dst[o++] = (char)ch;
    }
    dst[o] = 0;
    return dst;
}

/* A root member's value at depth 1 against its field's rule; strings arrive unescaped, their
 * bytes stored only up to VAL_BUF (n is the whole length; text rules need no bytes). */
static void rule_value(wctx *c, sj_kind kind, const char *s, size_t n, int ctl, const char *tok_end)
{
    const wire_field *f = &WIRE_FIELDS[c->cur];
    int want_string = f->rule != WIRE_RULE_USER_ID && f->rule != WIRE_RULE_ITEMS;
    sj_kind want = want_string ? SJ_STRING : f->rule == WIRE_RULE_ITEMS ? SJ_ARRAY : SJ_NUMBER;
    if (kind != want) {
        field_fail(c, "expected %s, got %s", kind_name(want), kind_name(kind));
        return;
    }
    char tmp[64];
    switch (f->rule) {
    case WIRE_RULE_TEXT:
        if (n < 1 || n > 128)
            field_fail(c, "length %zu bytes, must be 1 to 128", n);
        else if (ctl)
            field_fail(c, "contains a control character (U+0000-U+001F or U+007F)");
        else if (c->row) {
            c->row->s[c->cur] = c->row->text[c->cur];
            c->row->n[c->cur] = n;
        }
        break;
    case WIRE_RULE_USER_ID: {
        int is_int = 0;
        jraw_num_lex(s, tok_end, &is_int);
        if (!is_int)
            field_fail(c, "%s is not an integer literal", shown(tmp, sizeof tmp, s, n));
        else if (*s == '-' || (n == 1 && *s == '0') ||
                 !digits_le(s, n, "9223372036854775807"))
            field_fail(c, "%s outside 1 to 9223372036854775807", shown(tmp, sizeof tmp, s, n));
        else if (c->row) {
            uint64_t v = 0;
            for (size_t i = 0; i < n; i++)
                v = v * 10 + (uint64_t)(s[i] - '0');
            typed(c, (int64_t)v);
        }
        break;
    }
    case WIRE_RULE_TIMESTAMP:
        rule_timestamp(c, s, n);
        break;
    case WIRE_RULE_MONEY:
        rule_money(c, s, n);
        break;
    case WIRE_RULE_DATE:
        rule_date(c, s, n);
        break;
    case WIRE_RULE_ITEMS:
        break;
    }
}

/* ---- the walk ---- */

static int lex_fail(wctx *c, const char *msg, const char *at)
{
    c->lex_msg = msg;
    c->lex_at = at;
    return 1;
}

static int key_fail(wctx *c, const char *fmt, const char *key, size_t n)
{
    if (!c->keyset_bad && c->why) {
        char tmp[64];
        snprintf(c->rs->key, sizeof c->rs->key, fmt, shown(tmp, sizeof tmp, key, n));
    }
    c->keyset_bad = 1;
    return 0;
}

/* The first n (0..8) bytes of a word loaded with memcpy, the rest zero. */
static inline uint64_t first_bytes(uint64_t v, size_t n)
{
    if (n >= 8)
        return v;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return v & ((UINT64_C(1) << (8 * n)) - 1);
#else
    return n ? v & ~((UINT64_C(1) << (8 * (8 - n))) - 1) : 0;
#endif
}

/* Out of memory is no class: one line and abort (the engine shows the stderr). */
static void oom(void)
{
    fputs("order_wire_class: out of memory\n", stderr);
    abort();
}

/* The items array ends at the next root key or at the end of the text. */
static void items_done(wctx *c)
{
    if (!c->in_items)
        return;
    c->in_items = 0;
    if (jraw_end(&c->row->items) < 0)
        oom();
    int f = c->items_field;
    c->row->s[f] = c->row->items.p;
    c->row->n[f] = c->row->items.n;
}

/* The WIRE_FIELDS index of the key of n bytes whose zero-padded words are w, or -1. */
static int key_lookup(const uint64_t w[2], size_t n)
{
    for (const signed char *i = g_by_len[n]; *i >= 0; i++)
        if (g_key_w[*i][0] == w[0] && g_key_w[*i][1] == w[1])
            return *i;
    return -1;
}

/* The WIRE_FIELDS index of the unescaped root key kp[0..n), or -1. A root key is almost always a
 * short plain identifier, compared as two words read straight from it: 16 bytes from kp must be
 * readable (the text's padding, or a key buffer). */
static int key_index(const char *kp, size_t n)
{
    uint64_t w[2];
    if (n > 16)
        return -1;
    memcpy(w, kp, sizeof w);
    w[0] = first_bytes(w[0], n);
    w[1] = n > 8 ? first_bytes(w[1], n - 8) : 0;
    return key_lookup(w, n);
}

/* key_index for a key with no readable bytes after it (DOM's string buffer): its two words from
 * loads inside the key, overlapping ones where it is shorter than a word. Copying it into a
 * zeroed buffer first costs a store-forwarding stall (bytes stored, words loaded) a key, a
 * tenth of the fast path's time in a profile. */
static int key_index_exact(const char *kp, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w[2] = {0, 0};
    if (n > 16 || g_by_len[n][0] < 0)
        return -1;
    if (n < 4) {
        for (size_t i = 0; i < n; i++)
            w[0] |= (uint64_t)(unsigned char)kp[i] << 8 * i;
    } else if (n >= 8) {
        memcpy(&w[0], kp, 8);
        if (n > 8) {
            memcpy(&w[1], kp + n - 8, 8);
            w[1] >>= 8 * (16 - n);
        }
    } else {
        uint32_t lo, hi;
        memcpy(&lo, kp, 4);
        memcpy(&hi, kp + n - 4, 4);
        w[0] = lo | (uint64_t)hi << 8 * (n - 4);
    }
    return key_lookup(w, n);
#else
    char k[16] = {0};
    if (n > sizeof k)
        return -1;
    memcpy(k, kp, n);
    return key_index(k, n);
#endif
}

static int on_key(void *ctx, unsigned depth, const char *p, const char *end)
{
    wctx *c = ctx;
    char k[KEY_BUF];
    size_t n = (size_t)(end - p);
    const char *msg;
    if (depth != 1) {
        if (!str_scan(p, end, NULL, 0, &n, NULL, &msg))
            return lex_fail(c, msg, p);
        if (c->in_items && jraw_key(&c->row->items, depth, p, end) < 0)
            oom();
        return 0;
    }
    items_done(c);
    const char *kp = p; /* in place: the padding after the text keeps 16 bytes readable */
    if (n > 16 || memchr(p, '\\', n)) {
        if (!str_scan(p, end, k, sizeof k, &n, NULL, &msg))
            return lex_fail(c, msg, p);
        kp = k;
    }
    c->nkeys++;
    c->cur = key_index(kp, n);
    if (c->cur < 0)
        return key_fail(c, "unknown key \"%s\"", kp, n < sizeof k ? n : sizeof k);
    if (c->seen & 1u << c->cur)
        return key_fail(c, "duplicate key \"%s\"", kp, n);
    c->seen |= 1u << c->cur;
    return 0;
}

/* A value checked lexically: into the items text when it is part of the items array. */
static int items_value(wctx *c, unsigned depth, sj_kind kind, const char *p, const char *end)
{
    if (c->in_items && jraw_value(&c->row->items, depth, kind, p, end) < 0)
        oom();
    return 0;
}

static int on_value(void *ctx, unsigned depth, sj_kind kind, const char *p, const char *end)
{
    wctx *c = ctx;
    /* Rules only matter while the answer can still be field_invalid, and on the fast path
     * only until the first broken field. */
    int judge = c->cur >= 0 && !c->keyset_bad && !c->field_bad;
    switch (kind) {
    case SJ_STRING: {
        char buf[VAL_BUF];
        size_t n;
        int ctl = 0;
        const char *msg;
        int rule = judge && depth == 1, text = rule && WIRE_FIELDS[c->cur].rule == WIRE_RULE_TEXT;
        int unesc = rule && !text, keep = text && c->row;
        char *out = unesc ? buf : keep ? c->row->text[c->cur] : NULL;
        size_t cap = unesc ? sizeof buf : keep ? WIRE_TEXT_MAX : 0;
        if (!str_scan(p, end, out, cap, &n, text ? &ctl : NULL, &msg))
            return lex_fail(c, msg, p);
        if (depth == 0)
            return lex_fail(c, "the root is a string, not an object", p);
        if (judge && depth == 1)
            rule_value(c, kind, buf, n, text && ctl, NULL);
        return items_value(c, depth, kind, p, end);
    }
    case SJ_NUMBER: {
        int is_int = 0;
        if (!jraw_num_lex(p, end, &is_int))
            return lex_fail(c, "malformed number", p);
        /* The engine's parser refuses a number it cannot read without loss of range: such a
         * text is not JSON to it, wherever the number stands. */
        if (is_int ? !int_in_range(p, end) : !dbl_finite(p, end))
            return lex_fail(c, is_int ? "integer outside -9223372036854775808 to 18446744073709551615"
                                      : "number outside the finite double range", p);
        if (depth == 0)
            return lex_fail(c, "the root is a number, not an object", p);
        if (judge && depth == 1)
            rule_value(c, kind, p, (size_t)(end - p), 0, end);
        return items_value(c, depth, kind, p, end);
    }
    case SJ_TRUE:
    case SJ_FALSE:
    case SJ_NULL: {
        const char *lit = kind == SJ_TRUE ? "true" : kind == SJ_FALSE ? "false" : "null";
        size_t ln = strlen(lit);
        if ((size_t)(end - p) != ln || memcmp(p, lit, ln) != 0)
            return lex_fail(c, "invalid literal", p);
        if (depth == 0)
            return lex_fail(c, "the root is a literal, not an object", p);
        break;
    }
    case SJ_ARRAY:
        if (depth == 0)
            return lex_fail(c, "the root is an array, not an object", p);
        break;
    case SJ_OBJECT:
        break;
    }
    if (judge && depth == 1)
        rule_value(c, kind, NULL, 0, 0, NULL);
    if (judge && depth == 1 && kind == SJ_ARRAY && c->row && WIRE_FIELDS[c->cur].rule == WIRE_RULE_ITEMS) {
        c->in_items = 1;
        c->items_field = c->cur;
        jraw_begin(&c->row->items);
    }
    return items_value(c, depth, kind, p, end);
}

static const sj_visitor VISITOR = {on_key, on_value};

/* ---- the fast path: simdjson's DOM tree, when no reason and no typed row is wanted ---- */

/* A root member of a text DOM has checked whole: the keyset first (one bad key settles the
 * class: stop), then the field's rule through rule_value, as the walk applies it. Numbers come
 * parsed: an integer literal is an int64 or uint64 to DOM, given to the rule as its digits
 * (JSON's integer grammar has one spelling per value, which these print back); a fraction or
 * an exponent is a double, never an integer literal. */
static int on_member(void *ctx, const char *key, size_t kn, const sj_member *v)
{
    wctx *c = ctx;
    c->cur = key_index_exact(key, kn);
    if (c->cur < 0 || c->seen & 1u << c->cur) {
        c->keyset_bad = 1;
        return 1;
    }
    c->nkeys++;
    c->seen |= 1u << c->cur;
    if (c->field_bad)
        return 0;
    if (v->kind == SJ_STRING) {
        int ctl = 0;
        if (WIRE_FIELDS[c->cur].rule == WIRE_RULE_TEXT)
            for (size_t i = 0; i < v->n; i++)
                ctl |= (unsigned char)v->s[i] < 0x20 || v->s[i] == 0x7f;
        rule_value(c, SJ_STRING, v->s, v->n, ctl, NULL);
    } else if (v->kind == SJ_NUMBER && WIRE_FIELDS[c->cur].rule == WIRE_RULE_USER_ID) {
        if (v->num == SJ_DOUBLE)
            return field_fail(c, "not an integer literal");
        char d[24], *e = d + sizeof d, *q = e;
        int neg = v->num == SJ_INT && v->i < 0;
        unsigned long long u = v->num == SJ_UINT ? v->u
                               : neg ? 0 - (unsigned long long)v->i : (unsigned long long)v->i;
        do
            *--q = (char)('0' + u % 10);
        while (u /= 10);
        if (neg)
            *--q = '-';
        rule_value(c, SJ_NUMBER, q, (size_t)(e - q), 0, e);
    } else {
        rule_value(c, v->kind, NULL, 0, 0, NULL); /* the other rules look at the kind only */
    }
    return 0;
}

static wire_class done(wire_explain *why, wire_class cls, const char *field, const char *reason)
{
    if (why) {
        why->field = field;
        snprintf(why->reason, sizeof why->reason, "%s", reason);
    }
    return cls;
}

static wire_class classify(const char *p, size_t n, wire_explain *why, wire_row *row)
{
    if (!g_parser) {
        g_parser = sj_new();
        if (!g_parser)
            oom();
        memset(g_by_len, -1, sizeof g_by_len);
        for (int i = 0; i < WIRE_NFIELDS; i++) {
            size_t len = strlen(WIRE_FIELDS[i].name);
            if (len > 16) { /* never: the contract's keys are short identifiers */
                fputs("order_wire_class: a contract key longer than 16 bytes\n", stderr);
                abort();
            }
            memcpy(g_key_w[i], WIRE_FIELDS[i].name, len);
            signed char *slot = g_by_len[len];
            while (*slot >= 0)
                slot++;
            *slot = (signed char)i;
        }
    }
    /* simdjson skips a byte order mark; RFC 8259 §8.1 says a JSON text must not carry one. */
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        return done(why, WIRE_NOT_AN_OBJECT, NULL, "starts with a UTF-8 byte order mark");
    struct wreasons rs;
    rs.key[0] = rs.field[0] = 0;
    wctx c = {.base = p, .why = why, .cur = -1, .row = row, .rs = &rs};
    if (!why && !row && n <= SJ_KEEP_BYTES) {
        int rc = sj_members(g_parser, p, n, on_member, &c);
        if (rc == SJ_ENOMEM)
            oom();
        if (rc == SJ_ESYNTAX || rc == SJ_ENOTOBJ)
            return WIRE_NOT_AN_OBJECT;
        if (c.keyset_bad || c.nkeys != WIRE_NFIELDS)
            return WIRE_KEYSET_MISMATCH;
        return c.field_bad ? WIRE_FIELD_INVALID : WIRE_VALID;
    }
    sj_error err = {0};
    int rc = sj_walk(g_parser, p, n, &VISITOR, &c, &err);
    if (rc == SJ_ENOMEM)
        oom();
    if (rc == 0)
        items_done(&c);
    if (rc) {
        if (!why)
            return WIRE_NOT_AN_OBJECT;
        char r[sizeof why->reason];
        if (c.lex_msg && c.lex_at)
            snprintf(r, sizeof r, "%s at byte %zu", c.lex_msg, (size_t)(c.lex_at - p));
        else if (c.lex_msg)
            snprintf(r, sizeof r, "%s", c.lex_msg);
        else
            snprintf(r, sizeof r, "%s", err.msg ? err.msg : "not JSON");
        return done(why, WIRE_NOT_AN_OBJECT, NULL, r);
    }
    if (!c.keyset_bad && c.nkeys != WIRE_NFIELDS && why) {
        for (int i = 0; i < WIRE_NFIELDS; i++)
            if (!(c.seen & 1u << i)) {
                snprintf(rs.key, sizeof rs.key, "missing key \"%s\"", WIRE_FIELDS[i].name);
                break;
            }
    }
    if (c.keyset_bad || c.nkeys != WIRE_NFIELDS)
        return done(why, WIRE_KEYSET_MISMATCH, NULL, rs.key);
    if (c.field_bad)
        return done(why, WIRE_FIELD_INVALID, c.field_field, rs.field);
    return done(why, WIRE_VALID, NULL, "valid");
}

wire_class wire_classify(const char *p, size_t n, wire_explain *why)
{
    return classify(p, n, why, NULL);
}

void wire_row_init(wire_row *row)
{
    memset(row, 0, sizeof *row);
    jraw_init(&row->items);
}

void wire_row_free(wire_row *row)
{
    jraw_free(&row->items);
}

wire_class wire_parse(const char *p, size_t n, wire_row *row)
{
    return classify(p, n, NULL, row);
}

/* ---- the typed tuple, RowBinary ---- */

/* How each rule's value is encoded: fixed-width little-endian of i (UInt64, DateTime64(3) and
 * Decimal(18, 2) as 8 bytes, Date as 2), or 0: varint length + the bytes of s (String; a
 * LowCardinality(String) is the same on the wire). A switch without default: a new rule does not
 * compile quietly. test_wire pins the Tuple type; order_wire_parse.bats the values, on the engine. */
static int enc_width(wire_rule r)
{
    switch (r) {
    case WIRE_RULE_TEXT:
    case WIRE_RULE_ITEMS:
        return 0;
    case WIRE_RULE_USER_ID:
    case WIRE_RULE_TIMESTAMP:
    case WIRE_RULE_MONEY:
        return 8;
    case WIRE_RULE_DATE:
        return 2;
    }
    return 0;
}

const char *wire_tuple_type(void)
{
    static char t[1024];
    if (!t[0]) {
        size_t o = (size_t)snprintf(t, sizeof t, "Tuple(class String");
        for (size_t i = 0; i < WIRE_NFIELDS && o < sizeof t; i++)
            o += (size_t)snprintf(t + o, sizeof t - o, ", %s %s", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
        if (o < sizeof t)
            snprintf(t + o, sizeof t - o, ", hashdiff UInt128)");
    }
    return t;
}

static int grow(char **out, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    char *p = realloc(*out, c);
    if (!p)
        return -1;
    *out = p;
    *cap = c;
    return 0;
}

static int put_str(char **out, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (grow(out, cap, *n + len + PROTO_VARINT_MAX) < 0)
        return -1;
    *n += proto_varint(len, (unsigned char *)*out + *n);
    if (len)
        memcpy(*out + *n, s, len);
    *n += len;
    return 0;
}

int wire_tuple_rowbinary(wire_class c, const wire_row *row, char **out, size_t *n, size_t *cap)
{
    const char *name = wire_class_name(c);
    if (put_str(out, n, cap, name, strlen(name)) < 0)
        return -1;
    for (size_t i = 0; i < WIRE_NFIELDS; i++) {
        int w = enc_width(WIRE_FIELDS[i].rule);
        int ok = c == WIRE_VALID;
        if (w == 0) {
            if (put_str(out, n, cap, ok ? row->s[i] : "", ok ? row->n[i] : 0) < 0)
                return -1;
            continue;
        }
        if (grow(out, cap, *n + 8) < 0)
            return -1;
        uint64_t v = ok ? (uint64_t)row->i[i] : 0;
        for (int b = 0; b < w; b++)
            (*out)[(*n)++] = (char)(v >> (8 * b) & 0xff);
    }
    if (grow(out, cap, *n + sizeof row->hashdiff) < 0)
        return -1;
    if (c == WIRE_VALID)
        memcpy(*out + *n, row->hashdiff, sizeof row->hashdiff);
    else
        memset(*out + *n, 0, sizeof row->hashdiff);
    *n += sizeof row->hashdiff;
    return 0;
}

int wire_row_hashdiff(hd_ctx *c, wire_row *row)
{
    char buf[WIRE_CANON_MAX];
    hd_begin(c);
    for (size_t i = 0; i < WIRE_NFIELDS; i++) {
        if (!WIRE_FIELDS[i].in_hashdiff)
            continue;
        const char *t;
        size_t tn = wire_canon(&WIRE_FIELDS[i], row->i[i], row->s[i], row->n[i], buf, &t);
        int rc = hd_add(c, 0, t, tn);
        if (rc < 0)
            return rc;
    }
    return hd_finish(c, row->hashdiff);
}
