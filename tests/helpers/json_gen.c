/* json_gen: a deterministic generator of random JSON values, one a line, that the engine accepts,
 * built to hit every rule of jraw (escapes, surrogates, U+2028, every number form, nesting). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix.h"

static uint64_t g_rng;

static uint64_t rnd(void) { return splitmix64(&g_rng); }

/* uniform in [0, n) (n small: the bias is immaterial for a test generator) */
static unsigned pick(unsigned n) { return (unsigned)(rnd() % n); }

static void ws(void)
{
    static const char *const w[] = {"", "", "", "", " ", "\t", "  ", " \t "};
    fputs(w[pick(8)], stdout);
}

static void utf8(unsigned long cp)
{
    if (cp < 0x80) {
        putchar((int)cp);
    } else if (cp < 0x800) {
        putchar((int)(0xc0 | cp >> 6));
        putchar((int)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        putchar((int)(0xe0 | cp >> 12));
        putchar((int)(0x80 | (cp >> 6 & 0x3f)));
        putchar((int)(0x80 | (cp & 0x3f)));
    } else {
        putchar((int)(0xf0 | cp >> 18));
        putchar((int)(0x80 | (cp >> 12 & 0x3f)));
        putchar((int)(0x80 | (cp >> 6 & 0x3f)));
        putchar((int)(0x80 | (cp & 0x3f)));
    }
}

/* \uXXXX in random letter case */
static void uesc(unsigned v)
{
    const char *hex = pick(2) ? "0123456789abcdef" : "0123456789ABCDEF";
    printf("\\u%c%c%c%c", hex[v >> 12 & 15], hex[v >> 8 & 15], hex[v >> 4 & 15], hex[v & 15]);
}

/* a code point outside the surrogates, from every UTF-8 length */
static unsigned long any_cp(void)
{
    switch (pick(4)) {
    case 0: return 0x20 + pick(0x60);
    case 1: return 0x80 + pick(0x800 - 0x80);
    case 2: {
        unsigned long c = 0x800 + pick(0x10000 - 0x800);
        return c >= 0xd800 && c <= 0xdfff ? c - 0x800 : c;
    }
    default: return 0x10000 + pick(0x110000 - 0x10000);
    }
}

static void str(unsigned maxlen)
{
    putchar('"');
    unsigned len = pick(maxlen + 1);
    for (unsigned i = 0; i < len; i++) {
        switch (pick(16)) {
        case 0: { /* the short escapes */
            static const char e[] = "\"\\/bfnrt";
            printf("\\%c", e[pick(8)]);
            break;
        }
        case 1: /* C0 controls and DEL, escaped */
            uesc(pick(4) ? pick(0x20) : 0x7f);
            break;
        case 2: { /* the short-form characters as \u escapes */
            static const unsigned s[] = {'"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0};
            uesc(s[pick(9)]);
            break;
        }
        case 3: /* U+2028, U+2029 raw or escaped */
            if (pick(2))
                utf8(0x2028 + pick(2));
            else
                uesc(0x2028 + pick(2));
            break;
        case 4: { /* a surrogate pair */
            unsigned long c = 0x10000 + pick(0x100000);
            uesc((unsigned)(0xd800 + ((c - 0x10000) >> 10)));
            uesc((unsigned)(0xdc00 + ((c - 0x10000) & 0x3ff)));
            break;
        }
        case 5: { /* any other escaped code point of the BMP */
            unsigned long c = any_cp();
            uesc((unsigned)(c < 0x10000 ? c : 0x80 + pick(0x780)));
            break;
        }
        case 6: /* raw UTF-8 of every length */
        case 7: {
            unsigned long c = any_cp();
            utf8(c == '"' || c == '\\' ? 0xe9 : c);
            break;
        }
        case 8: /* raw DEL, '/', and bytes next to 0xE2's neighbours */
            switch (pick(4)) {
            case 0: putchar(0x7f); break;
            case 1: putchar('/'); break;
            case 2: utf8(0x2000 + pick(0x40)); break; /* E2 80 xx */
            default: utf8(0x2020 + pick(16)); break;
            }
            break;
        default: { /* plain ASCII, the common case */
            unsigned c = 0x20 + pick(0x5f);
            if (c == '"' || c == '\\')
                c = 'x';
            putchar((int)c);
        }
        }
    }
    putchar('"');
}

static double rnd_double(void)
{
    for (;;) {
        uint64_t b = rnd();
        double d;
        memcpy(&d, &b, sizeof d);
        if (isfinite(d))
            return d;
    }
}

/* a double printed with `prec` significant digits, %e or %g style, exponent letter case random */
static void put_double(double d, int prec)
{
    char b[64];
    snprintf(b, sizeof b, pick(2) ? "%.*g" : "%.*e", prec - 1 > 0 ? prec - 1 : 0, d);
    if (pick(2))
        for (char *q = b; *q; q++)
            if (*q == 'e')
                *q = 'E';
    double back = strtod(b, NULL);
    if (!isfinite(back))
        snprintf(b, sizeof b, "%.17g", d);
    fputs(b, stdout);
}

static void digits(unsigned n, int lead_nonzero)
{
    for (unsigned i = 0; i < n; i++)
        putchar('0' + (int)(i == 0 && lead_nonzero ? 1 + pick(9) : pick(10)));
}

static void number(void)
{
    switch (pick(20)) {
    case 0: { /* integers near the limits */
        static const char *const lim[] = {
            "-9223372036854775808", "-9223372036854775807", "9223372036854775807",
            "9223372036854775808",  "18446744073709551615", "18446744073709551614",
            "-1", "0", "-0", "4294967296", "9007199254740993", "-9007199254740993"};
        fputs(lim[pick(12)], stdout);
        break;
    }
    case 1: { /* random integers of any width within the range */
        uint64_t v = rnd() >> pick(64);
        if (pick(2) && v <= (uint64_t)INT64_MAX + 1)
            printf("-%" PRIu64, v);
        else
            printf("%" PRIu64, v);
        break;
    }
    case 2: /* -0 and zeros as doubles */
    {
        static const char *const z[] = {"-0", "0", "-0.0", "0.0", "0e0", "-0E+5", "0.000e-10", "-0.0e400"};
        fputs(z[pick(8)], stdout);
        break;
    }
    case 3: /* decimals: leading zeros in the fraction, trailing zeros */
        if (pick(2))
            putchar('-');
        if (pick(3))
            digits(1 + pick(8), 1);
        else
            putchar('0');
        putchar('.');
        if (pick(2))
            digits(pick(8), 0);
        digits(1 + pick(12), 0);
        break;
    case 4:
    case 5: { /* mantissa and exponent in every spelling; finite */
        char b[96];
        int n = 0;
        if (pick(2))
            b[n++] = '-';
        n += snprintf(b + n, 20, "%u", pick(3) ? 1 + pick(999) : pick(1000000));
        if (pick(2))
            n += snprintf(b + n, 20, ".%0*u", 1 + (int)pick(6), pick(1000000));
        b[n++] = pick(2) ? 'e' : 'E';
        unsigned s = pick(3);
        if (s)
            b[n++] = s == 1 ? '+' : '-';
        if (!pick(8))
            b[n++] = '0';
        snprintf(b + n, 20, "%u", pick(4) ? pick(30) : pick(330));
        if (!isfinite(strtod(b, NULL)))
            snprintf(b, sizeof b, "1.5e300");
        fputs(b, stdout);
        break;
    }
    case 6: { /* around the switches to exponent form: 1e-7/1e-6, 1e21/1e22 */
        static const int ex[] = {-8, -7, -6, -5, 19, 20, 21, 22};
        double m = 1 + (double)pick(1000000) / 1000000.0;
        if (!pick(4))
            m = 1;
        if (!pick(6))
            m = 9.999999999999999;
        put_double(m * pow(10, ex[pick(8)]), 1 + (int)pick(17));
        break;
    }
    case 7: { /* subnormals and the normal range's bottom */
        double d = ldexp((double)(rnd() >> pick(64)), -1074);
        if (!pick(4))
            d = DBL_MIN * (1 + pick(4)) - ldexp(1, -1074) * pick(3);
        if (pick(2))
            d = -d;
        put_double(d, 1 + (int)pick(17));
        break;
    }
    case 8: { /* powers of two and their neighbours, with many digits */
        double d = ldexp(1, (int)pick(2098) - 1074);
        if (pick(2))
            d = nextafter(d, pick(2) ? 0 : INFINITY);
        if (!isfinite(d))
            d = DBL_MAX;
        char b[64];
        snprintf(b, sizeof b, "%.*e", 16 + (int)pick(20), d);
        fputs(b, stdout);
        break;
    }
    case 9: /* the top */
        put_double(pick(2) ? DBL_MAX : nextafter(DBL_MAX, 0), 17);
        break;
    case 10: /* long digit strings: strtod's slow path, rounding on the 17th digit and beyond */
        if (pick(2))
            putchar('-');
        digits(1 + pick(25), 1);
        if (pick(2)) { /* a fraction, maybe an exponent */
            putchar('.');
            digits(1 + pick(40), 0);
            if (pick(2))
                printf("e%d", (int)pick(80) - 40);
        } else { /* an exponent, so never an integer out of range */
            printf("E%+d", (int)pick(80) - 40);
        }
        break;
    case 11: /* integral doubles beyond 2^53 and beyond the integer types */
        put_double(ldexp((double)(rnd() | 1), (int)pick(40)), 15 + (int)pick(3));
        break;
    case 12: { /* a short decimal written with many digits: shortest far below the token's */
        char b[64];
        snprintf(b, sizeof b, "%.*e", (int)pick(15), rnd_double());
        double d = strtod(b, NULL);
        if (!isfinite(d))
            d = 0.5;
        printf("%.*e", 16 + (int)pick(25), d);
        break;
    }
    case 13:
    case 14: /* random doubles, round-trip digits */
        put_double(rnd_double(), 17);
        break;
    case 15:
    case 16: /* random doubles, fewer digits */
        put_double(rnd_double(), 1 + (int)pick(16));
        break;
    default: { /* everyday magnitudes: prices, ratios */
        double d = (double)(rnd() % 100000000) / (double)(1u << pick(12)) / pow(10, pick(6));
        put_double(pick(4) ? d : -d, 1 + (int)pick(17));
    }
    }
}

static void value(int depth)
{
    unsigned k = depth >= 6 ? 3 + pick(7) : pick(10);
    ws();
    switch (k) {
    case 0:
    case 1: { /* object, empty or not; duplicate keys now and then */
        unsigned n = pick(5);
        putchar('{');
        ws();
        for (unsigned i = 0; i < n; i++) {
            if (i)
                putchar(',');
            ws();
            if (i && !pick(8))
                fputs("\"k\"", stdout);
            else
                str(6);
            ws();
            putchar(':');
            value(depth + 1);
        }
        putchar('}');
        break;
    }
    case 2: { /* array */
        unsigned n = pick(5);
        putchar('[');
        ws();
        for (unsigned i = 0; i < n; i++) {
            if (i)
                putchar(',');
            value(depth + 1);
        }
        putchar(']');
        break;
    }
    case 3:
    case 4:
        str(12);
        break;
    case 5:
    case 6:
    case 7:
        number();
        break;
    default: {
        static const char *const lit[] = {"true", "false", "null"};
        fputs(lit[pick(3)], stdout);
    }
    }
    ws();
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1, count = 1000;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--seed"))
            seed = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--count"))
            count = strtoull(argv[++i], NULL, 10);
        else {
            fputs("usage: json_gen [--seed N] [--count N]\n", stderr);
            return 2;
        }
    }
    g_rng = seed * 0x2545f4914f6cdd1du + 1;
    for (unsigned long long i = 0; i < count; i++) {
        value(0);
        putchar('\n');
    }
    return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
