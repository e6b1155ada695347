/* key.c: key types, ClickHouse TSV unescaping, and cityHash64 per type (strings and UUIDs by
 * their bytes, integers and dates through intHash64 of the zero-extended value, as ClickHouse). */
#include "key.h"

#include <string.h>

#include "city.h"

const char sc_keytype_names[] = "String, FixedString(N), UInt8, UInt16, UInt32, UInt64, Int8, Int16, "
                                "Int32, Int64, UInt128, Int128, Date, Date32, DateTime, UUID";

static const struct {
    const char *name;
    sk_kind kind;
} type_names[] = {
    {"String", SK_STRING}, {"UInt8", SK_U8},     {"UInt16", SK_U16},     {"UInt32", SK_U32},
    {"UInt64", SK_U64},    {"Int8", SK_I8},      {"Int16", SK_I16},      {"Int32", SK_I32},
    {"Int64", SK_I64},     {"UInt128", SK_U128}, {"Int128", SK_I128},    {"Date", SK_DATE},
    {"Date32", SK_DATE32}, {"DateTime", SK_DATETIME}, {"UUID", SK_UUID},
};

int sc_keytype_parse(const char *s, sc_keytype *kt)
{
    kt->fixed_len = 0;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (!strcmp(s, type_names[i].name)) {
            kt->kind = type_names[i].kind;
            return 0;
        }
    if (!strncmp(s, "FixedString(", 12)) {
        unsigned long n = 0;
        const char *p = s + 12;
        if (*p < '1' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9' && n <= 0xFFFFFF)
            n = n * 10 + (unsigned long)(*p++ - '0');
        if (strcmp(p, ")") != 0 || n > 0xFFFFFF)
            return -1;
        kt->kind = SK_FIXED;
        kt->fixed_len = (unsigned)n;
        return 0;
    }
    return -1;
}

long sc_tsv_unescape(const char *in, size_t n, char *out, const char **why)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        /* ClickHouse's TSV writer escapes these; raw, they mean the input is not its TSV */
        if (c == '\t') {
            *why = "a tab inside the key: more than one column (route reads one key a line)";
            return -1;
        }
        if (c == '\r') {
            *why = "a carriage return inside the key (CRLF line ends?): ClickHouse writes it as \\r";
            return -1;
        }
        if (c == 0 || c == '\b' || c == '\f') {
            *why = "a control byte (NUL, \\b or \\f) inside the key: ClickHouse's TSV escapes it";
            return -1;
        }
        if (c != '\\') {
            out[w++] = (char)c;
            continue;
        }
        if (++i == n) {
            *why = "the line ends in a lone backslash (an escaped line break joins two lines)";
            return -1;
        }
        switch (in[i]) {
        case 't': out[w++] = '\t'; break;
        case 'n': out[w++] = '\n'; break;
        case 'r': out[w++] = '\r'; break;
        case 'b': out[w++] = '\b'; break;
        case 'f': out[w++] = '\f'; break;
        case 'a': out[w++] = '\a'; break;
        case 'v': out[w++] = '\v'; break;
        case 'e': out[w++] = 0x1b; break;
        case '0': out[w++] = 0; break;
        case '\\': out[w++] = '\\'; break;
        case '\'': out[w++] = '\''; break;
        case '"': out[w++] = '"'; break;
        case 'N': break; /* the engine drops \N inside a String field */
        case 'x': {
            int v = 0, k;
            for (k = 0; k < 2 && i + 1 < n; k++) {
                char h = in[i + 1];
                int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (d < 0)
                    break;
                v = v * 16 + d;
                i++;
            }
            if (k < 2) {
                *why = "\\x must be followed by two hex digits";
                return -1;
            }
            out[w++] = (char)v;
            break;
        }
        default: /* unknown escapes keep their backslash, as the engine does */
            out[w++] = '\\';
            out[w++] = in[i];
            break;
        }
    }
    return (long)w;
}

/* Decimal integer with optional '-' (signed only) within [min, max], as unsigned bits. */
static int parse_int(const char *s, size_t n, int is_signed, unsigned __int128 max_pos,
                     unsigned __int128 max_neg, unsigned __int128 *v, int *neg)
{
    size_t i = 0;
    *neg = 0;
    if (n && s[0] == '-' && is_signed) {
        *neg = 1;
        i = 1;
    } else if (n && s[0] == '+') {
        i = 1;
    }
    if (i == n)
        return -1;
    unsigned __int128 r = 0, lim = *neg ? max_neg : max_pos;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (r > (lim - d) / 10)
            return -1;
        r = r * 10 + d;
    }
    *v = r;
    return 0;
}

static int d2(const char *s) { return (s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9') ? (s[0] - '0') * 10 + s[1] - '0' : -1; }

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

static int parse_date(const char *s, size_t n, long *days)
{
    if (n != 10 || s[4] != '-' || s[7] != '-')
        return -1;
    int y1 = d2(s), y2 = d2(s + 2), m = d2(s + 5), d = d2(s + 8);
    if (y1 < 0 || y2 < 0 || m < 1 || m > 12 || d < 1)
        return -1;
    long y = y1 * 100 + y2;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[m - 1] + (m == 2 && leap))
        return -1;
    *days = days_from_civil(y, (unsigned)m, (unsigned)d);
    return 0;
}

static int hexv(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

int sc_key_hash_text(const sc_keytype *kt, const char *s, size_t n, uint64_t *h, const char **why)
{
    unsigned __int128 v;
    int neg;
    switch (kt->kind) {
    case SK_STRING:
        *h = city_hash64(s, n);
        return 0;
    case SK_FIXED: {
        /* FixedString hashes all N bytes, the value zero-padded */
        if (n > kt->fixed_len) {
            *why = "the value is longer than the FixedString(N) it should fit";
            return -1;
        }
        unsigned char buf[256];
        unsigned char *b = kt->fixed_len <= sizeof buf ? buf : NULL;
        if (!b) {
            *why = "FixedString longer than 256 bytes is not supported as text";
            return -1;
        }
        memcpy(b, s, n);
        memset(b + n, 0, kt->fixed_len - n);
        *h = city_hash64(b, kt->fixed_len);
        return 0;
    }
    case SK_U8: case SK_U16: case SK_U32: case SK_U64: {
        static const unsigned __int128 max[] = {0xFF, 0xFFFF, 0xFFFFFFFFULL, 0xFFFFFFFFFFFFFFFFULL};
        if (parse_int(s, n, 0, max[kt->kind - SK_U8], 0, &v, &neg) != 0) {
            *why = "not an unsigned integer in the type's range";
            return -1;
        }
        *h = city_ch_int((uint64_t)v);
        return 0;
    }
    case SK_I8: case SK_I16: case SK_I32: case SK_I64: {
        static const unsigned bits[] = {8, 16, 32, 64};
        unsigned b = bits[kt->kind - SK_I8];
        unsigned __int128 maxp = ((unsigned __int128)1 << (b - 1)) - 1;
        if (parse_int(s, n, 1, maxp, maxp + 1, &v, &neg) != 0) {
            *why = "not an integer in the type's range";
            return -1;
        }
        uint64_t x = (uint64_t)v;
        if (neg)
            x = (uint64_t)0 - x;
        if (b < 64) /* the value's own bits, zero-extended: Int8 -1 is 255 */
            x &= ((uint64_t)1 << b) - 1;
        *h = city_ch_int(x);
        return 0;
    }
    case SK_U128: case SK_I128: {
        unsigned __int128 all = ~(unsigned __int128)0;
        if (parse_int(s, n, kt->kind == SK_I128, kt->kind == SK_I128 ? all >> 1 : all, (all >> 1) + 1, &v, &neg) != 0) {
            *why = "not an integer in the type's range";
            return -1;
        }
        if (neg)
            v = (unsigned __int128)0 - v;
        unsigned char b[16];
        put_le64(b, (uint64_t)v);
        put_le64(b + 8, (uint64_t)(v >> 64));
        *h = city_hash64(b, 16); /* 128-bit integers hash their bytes, not intHash64 */
        return 0;
    }
    case SK_DATE: case SK_DATE32: {
        long days;
        if (parse_date(s, n, &days) != 0) {
            *why = "not a date YYYY-MM-DD";
            return -1;
        }
        if (kt->kind == SK_DATE ? (days < 0 || days > 65535) : (days < -25567 || days > 120529)) {
            *why = "the date is outside the type's range";
            return -1;
        }
        *h = city_ch_int(kt->kind == SK_DATE ? (uint64_t)days : (uint64_t)(uint32_t)(int32_t)days);
        return 0;
    }
    case SK_DATETIME: {
        long days;
        uint64_t t;
        if (n == 19 && s[10] == ' ' && s[13] == ':' && s[16] == ':' && parse_date(s, 10, &days) == 0 &&
            d2(s + 11) >= 0 && d2(s + 11) < 24 && d2(s + 14) >= 0 && d2(s + 14) < 60 && d2(s + 17) >= 0 &&
            d2(s + 17) < 60) {
            long long secs = (long long)days * 86400 + d2(s + 11) * 3600 + d2(s + 14) * 60 + d2(s + 17);
            if (secs < 0 || secs > 0xFFFFFFFFLL) {
                *why = "the DateTime is outside 1970-01-01 00:00:00 .. 2106-02-07 06:28:15 UTC";
                return -1;
            }
            t = (uint64_t)secs;
        } else if (parse_int(s, n, 0, 0xFFFFFFFFULL, 0, &v, &neg) == 0) {
            t = (uint64_t)v;
        } else {
            *why = "not a DateTime 'YYYY-MM-DD hh:mm:ss' (UTC) or a Unix timestamp";
            return -1;
        }
        *h = city_ch_int(t);
        return 0;
    }
    case SK_UUID: {
        /* 8-4-4-4-12 hex; in memory (and RowBinary) the high 64 bits come first, each little-endian */
        static const int dash[] = {8, 13, 18, 23};
        if (n != 36) {
            *why = "not a UUID (8-4-4-4-12 hex digits)";
            return -1;
        }
        uint64_t hi = 0, lo = 0;
        int nd = 0;
        for (size_t i = 0; i < 36; i++) {
            if (i == (size_t)dash[0] || i == (size_t)dash[1] || i == (size_t)dash[2] || i == (size_t)dash[3]) {
                if (s[i] != '-') {
                    *why = "not a UUID (8-4-4-4-12 hex digits)";
                    return -1;
                }
                continue;
            }
            int d = hexv(s[i]);
            if (d < 0) {
                *why = "not a UUID (8-4-4-4-12 hex digits)";
                return -1;
            }
            if (nd++ < 16)
                hi = hi << 4 | (uint64_t)d;
            else
                lo = lo << 4 | (uint64_t)d;
        }
        unsigned char b[16];
        put_le64(b, hi);
        put_le64(b + 8, lo);
        *h = city_hash64(b, 16);
        return 0;
    }
    }
    *why = "unknown key type";
    return -1;
}

static uint64_t get_le(const unsigned char *p, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

long sc_key_hash_rowbinary(const sc_keytype *kt, const unsigned char *p, size_t avail, uint64_t *h,
                           const char **why)
{
    unsigned w;
    switch (kt->kind) {
    case SK_STRING: {
        uint64_t len = 0;
        size_t i = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (i == avail)
                return 0;
            if (i == 9) {
                *why = "a String length (LEB128) longer than 9 bytes";
                return -1;
            }
            len |= (uint64_t)(p[i] & 0x7f) << shift;
            if (!(p[i++] & 0x80))
                break;
        }
        if (len > ((uint64_t)1 << 30)) { /* ClickHouse's own limit on a String in RowBinary */
            *why = "a String longer than 1 GiB: not a RowBinary String stream";
            return -1;
        }
        if (avail - i < len)
            return 0;
        *h = city_hash64(p + i, (size_t)len);
        return (long)(i + len);
    }
    case SK_FIXED:
        if (avail < kt->fixed_len)
            return 0;
        *h = city_hash64(p, kt->fixed_len);
        return (long)kt->fixed_len;
    case SK_U8: case SK_I8: w = 1; break;
    case SK_U16: case SK_I16: case SK_DATE: w = 2; break;
    case SK_U32: case SK_I32: case SK_DATE32: case SK_DATETIME: w = 4; break;
    case SK_U64: case SK_I64: w = 8; break;
    case SK_U128: case SK_I128: case SK_UUID:
        if (avail < 16)
            return 0;
        *h = city_hash64(p, 16);
        return 16;
    default:
        *why = "unknown key type";
        return -1;
    }
    if (avail < w)
        return 0;
    *h = city_ch_int(get_le(p, w));
    return w;
}
