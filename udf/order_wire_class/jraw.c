/* jraw: re-prints one JSON value from sj_walk's events exactly as the engine's JSONExtractRaw
 * does (the rules are in jraw.h); strings re-escaped, doubles in their shortest round-trip form. */
#include "jraw.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__ /* known only once a libc header is in */
#include <malloc.h>
#endif

enum { ST_READY = 0, ST_OPEN = 1, ST_DONE = 2 }; /* j->state; < 0: the sticky error */

/* One byte of j->st a container. */
enum { C_OBJ = 1, C_HAS = 2, C_KEY = 4 }; /* an object; holds a member; a key awaits its value */

void jraw_init(jraw *j)
{
    memset(j, 0, sizeof *j);
}

void jraw_free(jraw *j)
{
    free(j->p);
    free(j->st);
    jraw_init(j);
}

void jraw_begin(jraw *j)
{
    int freed = 0;
    if (j->cap > JRAW_KEEP_BYTES) {
        free(j->p);
        j->p = NULL;
        j->cap = 0;
        freed = 1;
    }
    if (j->st_cap > JRAW_KEEP_BYTES) {
        free(j->st);
        j->st = NULL;
        j->st_cap = 0;
        freed = 1;
    }
#ifdef __GLIBC__
    /* glibc keeps big freed blocks below its (self-raising) trim threshold; a pool process
     * that met one huge value must not hold its memory for hours. */
    if (freed)
        malloc_trim(0);
#else
    (void)freed;
#endif
    j->n = 0;
    j->st_n = 0;
    j->base = 0;
    j->state = ST_READY;
}

static int fail(jraw *j, int rc)
{
    j->state = rc;
    return rc;
}

/* Room for `more` bytes and the final NUL. */
static int reserve(jraw *j, size_t more)
{
    if (more > SIZE_MAX / 4 - j->n)
        return fail(j, JRAW_ENOMEM);
    size_t need = j->n + more + 1;
    if (need <= j->cap)
        return 0;
    size_t c = j->cap ? j->cap : 256;
    while (c < need)
        c *= 2;
    char *np = realloc(j->p, c);
    if (!np)
        return fail(j, JRAW_ENOMEM);
    j->p = np;
    j->cap = c;
    return 0;
}

/* Callers reserve first. */
static void put(jraw *j, char c)
{
    j->p[j->n++] = c;
}

static void put_n(jraw *j, const char *s, size_t n)
{
    memcpy(j->p + j->n, s, n);
    j->n += n;
}

/* ---- strings ---- */

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Four hex digits at p (4 bytes readable), or -1. */
static long hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hexval((unsigned char)p[i]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* One decoded character, escaped as the engine escapes it. */
static void put_cp(jraw *j, unsigned long cp)
{
    static const char hex[] = "0123456789ABCDEF";
    switch (cp) {
    case '"': put_n(j, "\\\"", 2); return;
    case '\\': put_n(j, "\\\\", 2); return;
    case '\b': put_n(j, "\\b", 2); return;
    case '\f': put_n(j, "\\f", 2); return;
    case '\n': put_n(j, "\\n", 2); return;
    case '\r': put_n(j, "\\r", 2); return;
    case '\t': put_n(j, "\\t", 2); return;
    case 0x2028: put_n(j, "\\u2028", 6); return;
    case 0x2029: put_n(j, "\\u2029", 6); return;
    default: break;
    }
    if (cp < 0x20) {
        put_n(j, "\\u00", 4);
        put(j, hex[cp >> 4]);
        put(j, hex[cp & 15]);
    } else if (cp < 0x80) {
        put(j, (char)cp);
    } else if (cp < 0x800) {
        put(j, (char)(0xc0 | cp >> 6));
        put(j, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        put(j, (char)(0xe0 | cp >> 12));
        put(j, (char)(0x80 | (cp >> 6 & 0x3f)));
        put(j, (char)(0x80 | (cp & 0x3f)));
    } else {
        put(j, (char)(0xf0 | cp >> 18));
        put(j, (char)(0x80 | (cp >> 12 & 0x3f)));
        put(j, (char)(0x80 | (cp >> 6 & 0x3f)));
        put(j, (char)(0x80 | (cp & 0x3f)));
    }
}

/* A byte that stands for itself in the output: everything but controls, the quote, the
 * backslash, and 0xE2, which may start a raw U+2028/U+2029. */
static int plain(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\' && c != 0xe2;
}

/* The string body [p, end), still escaped, quoted and re-escaped. */
static int put_str(jraw *j, const char *p, const char *end)
{
    if (!p || !end || end < p)
        return fail(j, JRAW_EINPUT);
    size_t len = (size_t)(end - p);
    /* Every source byte gives at most 6 (a raw control as \u00XX); escapes give fewer. */
    if (len > SIZE_MAX / 8)
        return fail(j, JRAW_ENOMEM);
    if (reserve(j, 6 * len + 2))
        return j->state;
    put(j, '"');
    while (p < end) {
        const char *q = p;
        while (q < end && plain((unsigned char)*q))
            q++;
        put_n(j, p, (size_t)(q - p));
        p = q;
        if (p == end)
            break;
        unsigned char c = (unsigned char)*p;
        if (c == 0xe2) {
            if (end - p >= 3 && (unsigned char)p[1] == 0x80 &&
                ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9)) {
                put_cp(j, (unsigned char)p[2] == 0xa8 ? 0x2028 : 0x2029);
                p += 3;
            } else {
                put(j, (char)c);
                p++;
            }
            continue;
        }
        if (c != '\\') { /* a raw control or quote: not valid JSON, printed as its character */
            put_cp(j, c);
            p++;
            continue;
        }
        if (end - p < 2)
            return fail(j, JRAW_EINPUT);
        unsigned long cp;
        switch (p[1]) {
        case '"': case '\\': case '/': cp = (unsigned char)p[1]; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u': {
            long h = end - p >= 6 ? hex4(p + 2) : -1;
            if (h < 0 || (h >= 0xdc00 && h <= 0xdfff))
                return fail(j, JRAW_EINPUT); /* the engine fails on a lone low surrogate */
            cp = (unsigned long)h;
            if (h >= 0xd800 && h <= 0xdbff) {
                long lo = end - p >= 12 && p[6] == '\\' && p[7] == 'u' ? hex4(p + 8) : -1;
                if (lo < 0xdc00 || lo > 0xdfff)
                    return fail(j, JRAW_EINPUT); /* and on a lone high one */
                cp = 0x10000 + ((unsigned long)(h - 0xd800) << 10) + (unsigned long)(lo - 0xdc00);
                p += 6;
            }
            p += 4;
            break;
        }
        default:
            return fail(j, JRAW_EINPUT);
        }
        p += 2;
        put_cp(j, cp);
    }
    put(j, '"');
    return 0;
}

/* ---- numbers ---- */

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

int jraw_num_lex(const char *p, const char *e, int *is_int)
{
    if (p < e && *p == '-')
        p++;
    if (p >= e)
        return 0;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (p < e && is_digit((unsigned char)*p))
            p++;
    else
        return 0;
    *is_int = 1;
    if (p < e && *p == '.') {
        *is_int = 0;
        if (++p >= e || !is_digit((unsigned char)*p))
            return 0;
        while (p < e && is_digit((unsigned char)*p))
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        *is_int = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || !is_digit((unsigned char)*p))
            return 0;
        while (p < e && is_digit((unsigned char)*p))
            p++;
    }
    return p == e;
}

/* Digits d[0..k) (no trailing zero, d[0] nonzero) of the value 0.d x 10^n, written as the
 * engine writes a double (its double-conversion setup: plain for decimal exponents n-1 in
 * [-6, 21), else d.ddde-X). Writes at most 27 bytes. */
static void put_dbl_digits(jraw *j, int neg, const char *d, int k, int n)
{
    if (neg)
        put(j, '-');
    if (k <= n && n <= 21) {
        put_n(j, d, (size_t)k);
        for (int i = k; i < n; i++)
            put(j, '0');
    } else if (0 < n && n <= 21) {
        put_n(j, d, (size_t)n);
        put(j, '.');
        put_n(j, d + n, (size_t)(k - n));
    } else if (-6 < n && n <= 0) {
        put_n(j, "0.", 2);
        for (int i = n; i < 0; i++)
            put(j, '0');
        put_n(j, d, (size_t)k);
    } else {
        put(j, d[0]);
        if (k > 1) {
            put(j, '.');
            put_n(j, d + 1, (size_t)(k - 1));
        }
        char e[8];
        int m = snprintf(e, sizeof e, "e%d", n - 1);
        put_n(j, e, (size_t)m);
    }
}

/* Whether 0.d[0..k) x 10^n reads back as v. */
static int reads_as(const char *d, int k, int n, double v)
{
    char b[48];
    snprintf(b, sizeof b, "0.%.*se%d", k, d, n);
    return strtod(b, NULL) == v;
}

/* The shortest digits that read back as v (finite, > 0), the closest to v among them:
 * *k digits into d[0..17], v = 0.d x 10^*n. For each length, the correctly rounded digits
 * (printf's) are the closest; when they miss, the one other candidate is their neighbour on
 * the other side of v, which can read back where the interval is lopsided (a power of two).
 * A normal v starts at 15 digits: any decimal of up to 15 digits that reads back as v is v
 * rounded to 15 digits (DBL_DIG), so if that reads back, it is the shortest once its trailing
 * zeros are cut, and if it does not, no shorter one does. */
static void shortest(double v, char d[18], int *k, int *n)
{
    for (int prec = v >= DBL_MIN ? 15 : 1; prec <= 17; prec++) {
        char b[40];
        snprintf(b, sizeof b, "%.*e", prec - 1, v); /* d[.ddd]e±XX */
        int m = 0;
        for (const char *q = b; *q != 'e'; q++)
            if (*q != '.')
                d[m++] = *q;
        int ex = atoi(strchr(b, 'e') + 1) + 1;
        double r = strtod(b, NULL);
        if (r != v) {
            char c[18];
            int cn = ex, cm = m;
            memcpy(c, d, (size_t)m);
            int i = m - 1;
            if (r < v) { /* one unit up, carrying */
                while (i >= 0 && c[i] == '9')
                    c[i--] = '0';
                if (i >= 0) {
                    c[i]++;
                } else {
                    c[0] = '1';
                    memset(c + 1, '0', (size_t)(m - 1));
                    cn++;
                }
            } else { /* one unit down, borrowing */
                while (i >= 0 && c[i] == '0')
                    c[i--] = '9';
                if (i < 0) /* never: d[0] is nonzero */
                    continue;
                c[i]--;
                if (c[0] == '0' && cm > 1) {
                    memmove(c, c + 1, (size_t)(m - 1));
                    cm--;
                    cn--;
                }
            }
            if (c[0] == '0' || !reads_as(c, cm, cn, v)) /* 1eX down to zero */
                continue;
            memcpy(d, c, (size_t)cm);
            m = cm;
            ex = cn;
        }
        while (m > 1 && d[m - 1] == '0')
            m--;
        *k = m;
        *n = ex;
        return;
    }
    /* not reached: 17 significant digits always read back */
    *k = 0;
    *n = 0;
}

static int put_number(jraw *j, const char *p, const char *end)
{
    int is_int = 0;
    if (!p || !end || end < p || !jraw_num_lex(p, end, &is_int))
        return fail(j, JRAW_EINPUT);
    size_t len = (size_t)(end - p);
    int neg = *p == '-';
    if (is_int) {
        /* the engine's range: [-2^63, 2^64-1] (the grammar forbids leading zeros) */
        const char *lim = neg ? "9223372036854775808" : "18446744073709551615";
        size_t dn = len - (size_t)neg, ln = strlen(lim);
        if (dn > ln || (dn == ln && memcmp(p + neg, lim, ln) > 0))
            return fail(j, JRAW_EINPUT);
        if (reserve(j, len))
            return j->state;
        if (neg && len == 2 && p[1] == '0') /* -0 */
            put(j, '0');
        else
            put_n(j, p, len);
        return 0;
    }
    /* The value as 0.d x 10^n: of the token's digits M (the point after the first `ilen`),
     * the significant ones run from the first nonzero to the last; the first 16 are kept. */
    char d[18];
    long long pos = 0, ilen = -1, first = -1, last = -1;
    const char *q = p + neg;
    for (; q < end && *q != 'e' && *q != 'E'; q++) {
        if (*q == '.') {
            ilen = pos;
            continue;
        }
        if (*q != '0') {
            if (first < 0)
                first = pos;
            last = pos;
        }
        if (first >= 0 && pos - first < 16)
            d[pos - first] = *q;
        pos++;
    }
    if (ilen < 0)
        ilen = pos;
    long long ex = 0;
    if (q < end) {
        int eneg = 0;
        q++;
        if (*q == '+' || *q == '-')
            eneg = *q++ == '-';
        for (; q < end; q++)
            if (ex < 100000000)
                ex = ex * 10 + (*q - '0');
        if (eneg)
            ex = -ex;
    }
    if (reserve(j, len + 32))
        return j->state;
    if (first < 0) { /* zero, whatever the exponent */
        put_n(j, neg ? "-0" : "0", neg ? 2u : 1u);
        return 0;
    }
    long long nz = last - first + 1, n = ilen - first + ex;
    /* Up to 15 significant digits in the normal range: the double reads back as those digits
     * and as no shorter ones (DBL_DIG), so they are the shortest, and the only such. */
    if (nz <= 15 && n >= -306 && n <= 308) {
        put_dbl_digits(j, neg, d, (int)nz, (int)n);
        return 0;
    }
    /* Otherwise strtod (correctly rounded, as simdjson's parser) on a NUL-terminated copy
     * made past the text, where put_dbl_digits then writes over it. */
    char *tmp = j->p + j->n + 32;
    memcpy(tmp, p, len);
    tmp[len] = 0;
    double v = strtod(tmp, NULL);
    if (!isfinite(v))
        return fail(j, JRAW_EINPUT); /* the engine refuses the text */
    if (v == 0) {
        put_n(j, neg ? "-0" : "0", neg ? 2u : 1u);
        return 0;
    }
    int sk, sn;
    shortest(fabs(v), d, &sk, &sn);
    if (sk == 0)
        return fail(j, JRAW_EINPUT);
    put_dbl_digits(j, neg, d, sk, sn);
    return 0;
}

/* ---- structure ---- */

/* Closes the containers whose children are deeper than `depth`; then the innermost open one
 * (if any) is the one whose children are at `depth`. */
static int close_to(jraw *j, unsigned depth)
{
    while (j->st_n && (unsigned long long)j->base + j->st_n > depth) {
        unsigned char c = j->st[--j->st_n];
        if (c & C_KEY)
            return fail(j, JRAW_EINPUT); /* a key without its value */
        if (reserve(j, 1))
            return j->state;
        put(j, c & C_OBJ ? '}' : ']');
    }
    return 0;
}

/* Checks the state for an event at `depth` inside the value and closes what it ends; returns
 * the innermost open container's byte (its children are at `depth`) or NULL on an error. */
static unsigned char *enter(jraw *j, unsigned depth)
{
    if (j->state != ST_OPEN) {
        fail(j, j->state < 0 ? j->state : JRAW_EINPUT);
        return NULL;
    }
    if (depth <= j->base || close_to(j, depth)) {
        fail(j, j->state < 0 ? j->state : JRAW_EINPUT);
        return NULL;
    }
    if (!j->st_n || (unsigned long long)j->base + j->st_n != depth) {
        fail(j, JRAW_EINPUT); /* no container, or a jump in depth */
        return NULL;
    }
    return &j->st[j->st_n - 1];
}

int jraw_key(jraw *j, unsigned depth, const char *p, const char *end)
{
    unsigned char *top = enter(j, depth);
    if (!top)
        return j->state;
    if (!(*top & C_OBJ) || (*top & C_KEY))
        return fail(j, JRAW_EINPUT);
    if (*top & C_HAS) {
        if (reserve(j, 1))
            return j->state;
        put(j, ',');
    }
    *top |= C_HAS | C_KEY;
    if (put_str(j, p, end) || reserve(j, 1))
        return j->state;
    put(j, ':');
    return 0;
}

int jraw_value(jraw *j, unsigned depth, sj_kind kind, const char *p, const char *end)
{
    if (j->state == ST_READY) {
        j->state = ST_OPEN;
        j->base = depth;
    } else {
        unsigned char *top = enter(j, depth);
        if (!top)
            return j->state;
        if (*top & C_OBJ) {
            if (!(*top & C_KEY))
                return fail(j, JRAW_EINPUT); /* a member's value without its key */
            *top &= (unsigned char)~C_KEY;
        } else {
            if (*top & C_HAS) {
                if (reserve(j, 1))
                    return j->state;
                put(j, ',');
            }
            *top |= C_HAS;
        }
    }
    switch (kind) {
    case SJ_OBJECT:
    case SJ_ARRAY:
        if (j->st_n == j->st_cap) {
            size_t c = j->st_cap ? j->st_cap * 2 : 64;
            unsigned char *ns = realloc(j->st, c);
            if (!ns)
                return fail(j, JRAW_ENOMEM);
            j->st = ns;
            j->st_cap = c;
        }
        if ((unsigned long long)j->base + j->st_n + 1 > (unsigned long long)(unsigned)-1)
            return fail(j, JRAW_EINPUT); /* children deeper than a depth can say */
        if (reserve(j, 1))
            return j->state;
        put(j, kind == SJ_OBJECT ? '{' : '[');
        j->st[j->st_n++] = kind == SJ_OBJECT ? C_OBJ : 0;
        return 0;
    case SJ_STRING:
        return put_str(j, p, end);
    case SJ_NUMBER:
        return put_number(j, p, end);
    case SJ_TRUE:
    case SJ_FALSE:
    case SJ_NULL: {
        const char *lit = kind == SJ_TRUE ? "true" : kind == SJ_FALSE ? "false" : "null";
        size_t ln = strlen(lit);
        if (!p || !end || (size_t)(end - p) != ln || memcmp(p, lit, ln) != 0)
            return fail(j, JRAW_EINPUT);
        if (reserve(j, ln))
            return j->state;
        put_n(j, lit, ln);
        return 0;
    }
    }
    return fail(j, JRAW_EINPUT);
}

int jraw_end(jraw *j)
{
    if (j->state == ST_DONE)
        return 0;
    if (j->state != ST_OPEN)
        return fail(j, j->state < 0 ? j->state : JRAW_EINPUT); /* an error, or no value */
    /* every open container: their children are deeper than the value */
    if (close_to(j, j->base) || reserve(j, 0))
        return j->state;
    j->p[j->n] = 0;
    j->state = ST_DONE;
    return 0;
}
