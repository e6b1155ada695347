/* hd: the Data Vault hashdiff core: normalises an entity's attribute values per profile, joins
 * them and hashes the result bit for bit as the profile's native ClickHouse SQL expression does. */
#include "hd.h"

#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <unicode/ucasemap.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <xxhash.h>

typedef struct {
    char *p;
    size_t n, cap;
} hd_buf;

/* The joined string of a row is hashed in one call while it stays below HD_SPILL bytes (every
 * ordinary row); beyond, each HD_SPILL bytes go to a streaming hash, so a row of millions of
 * tiny attributes never holds its joined string (the hash is the same, bit for bit). */
#define HD_SPILL (256u << 10)
/* Buffers that grew beyond this for one big value are given back by hd_trim. */
#define HD_KEEP (1u << 20)

struct hd_ctx {
    hd_profile profile;
    hd_algo algo;
    hd_buf join;     /* the string that is hashed (its part not yet hashed when streaming) */
    size_t n_items;  /* attributes added to the current row */
    size_t pending;  /* strict: NULL tokens not written yet, dropped if no value follows */
    int streaming;   /* the row's joined string goes to the hash in pieces */
    int big_value;   /* a buffer may have grown past HD_KEEP since the last hd_trim: set on
                      * the slow paths only (NFC, ICU, a big joined string), never per value */
    XXH3_state_t *xxh;
    hd_buf up;       /* ICU upper-casing output */
    hd_buf nfc8;     /* NFC result, UTF-8 */
    hd_buf norm;     /* hd_normalize's result */
    UChar *u16a, *u16b;
    int32_t u16a_cap, u16b_cap;
    UCaseMap *csm;
    const UNormalizer2 *nfc;
    /* U+0080..U+07FF: the upper-case UTF-8 pair ICU gives, when it is two bytes and the
     * same with letters either side; 0: ask ICU. Built from ICU at hd_new. */
    uint16_t two[0x800 - 0x80];
    /* U+0080..U+07FF: 1 when NFC quick check says yes and the combining class is 0, so a
     * string made of such (and ASCII) is already NFC. Strict only; built from ICU. */
    unsigned char nfc_yes[0x800 - 0x80];
    EVP_MD_CTX *md_ctx;
    EVP_MD *md;
};

int hd_profile_from_name(const char *name, hd_profile *out)
{
    static const char *const names[] = {"classic", "automatedv", "strict"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (hd_profile)i;
            return 0;
        }
    return -1;
}

int hd_algo_from_name(const char *name, hd_algo *out)
{
    static const char *const names[] = {"xxh3_128", "sha256", "md5"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (hd_algo)i;
            return 0;
        }
    return -1;
}

const char *hd_profile_name(hd_profile p)
{
    return p == HD_CLASSIC ? "classic" : p == HD_AUTOMATEDV ? "automatedv" : "strict";
}

const char *hd_algo_name(hd_algo a)
{
    return a == HD_XXH3_128 ? "xxh3_128" : a == HD_SHA256 ? "sha256" : "md5";
}

size_t hd_digest_len(hd_algo a) { return a == HD_SHA256 ? 32 : 16; }

const char *hd_strerror(int code)
{
    switch (code) {
    case 0: return "success";
    case HD_EINVAL: return "invalid argument";
    case HD_ENOMEM: return "out of memory";
    case HD_EICU: return "ICU failed to map a value";
    case HD_ECRYPTO: return "libcrypto failed to hash a value";
    case HD_ETOOLONG: return "value too long for ICU (over 512 MiB)";
    default: return "unknown error";
    }
}

static uint32_t upper_delta(uint32_t cp);

/* ICU takes int32_t lengths and case mapping may triple a UTF-8 value. */
#define HD_MAX_ICU_VALUE ((size_t)INT32_MAX / 4)

static int buf_reserve(hd_buf *b, size_t extra)
{
    if (extra <= b->cap - b->n)
        return 0;
    size_t need = b->n + extra;
    if (need < b->n)
        return HD_ENOMEM;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return HD_ENOMEM;
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p)
        return HD_ENOMEM;
    b->p = p;
    b->cap = cap;
    return 0;
}

static int u16_reserve(UChar **p, int32_t *cap, int32_t need)
{
    if (need <= *cap)
        return 0;
    int32_t c = *cap ? *cap : 256;
    while (c < need)
        c = c > INT32_MAX / 2 ? INT32_MAX : c * 2;
    UChar *q = realloc(*p, (size_t)c * sizeof(UChar));
    if (!q)
        return HD_ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

/* ICU's upper case of s (n bytes) into out (32 bytes); its length, or -1. */
static int32_t icu_upper_small(const UCaseMap *csm, const char *s, int32_t n, char *out)
{
    UErrorCode st = U_ZERO_ERROR;
    int32_t len = ucasemap_utf8ToUpper(csm, out, 32, s, n, &st);
    return U_FAILURE(st) || st == U_STRING_NOT_TERMINATED_WARNING ? -1 : len;
}

/* Fills c->two by asking ICU about each code point, alone and between letters, so the table
 * can only ever agree with ICU. */
static int build_two(hd_ctx *c)
{
    for (uint32_t cp = 0x80; cp < 0x800; cp++) {
        char in[4] = {'A', (char)(0xC0 | cp >> 6), (char)(0x80 | (cp & 0x3F)), 'A'};
        char alone[32], both[32];
        c->two[cp - 0x80] = 0;
        if (upper_delta(cp) ||
            icu_upper_small(c->csm, in + 1, 2, alone) != 2 ||
            icu_upper_small(c->csm, in, 4, both) != 4 || both[0] != 'A' || both[3] != 'A' ||
            memcmp(both + 1, alone, 2) != 0 || icu_upper_small(c->csm, in, 3, both) != 3 ||
            memcmp(both + 1, alone, 2) != 0 || icu_upper_small(c->csm, in + 1, 3, both) != 3 ||
            memcmp(both, alone, 2) != 0)
            continue;
        c->two[cp - 0x80] = (uint16_t)((unsigned char)alone[0] << 8 | (unsigned char)alone[1]);
    }
    if (!c->nfc)
        return 0;
    for (UChar cp = 0x80; cp < 0x800; cp++) {
        UErrorCode st = U_ZERO_ERROR;
        UNormalizationCheckResult qc = unorm2_quickCheck(c->nfc, &cp, 1, &st);
        if (U_FAILURE(st))
            return HD_EICU;
        c->nfc_yes[cp - 0x80] = qc == UNORM_YES && unorm2_getCombiningClass(c->nfc, cp) == 0;
    }
    return 0;
}

hd_ctx *hd_new(hd_profile profile, hd_algo algo)
{
    hd_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->profile = profile;
    c->algo = algo;
    UErrorCode st = U_ZERO_ERROR;
    /* Root locale, default options: what ClickHouse's upperUTF8 opens. */
    c->csm = ucasemap_open("", U_FOLD_CASE_DEFAULT, &st);
    if (U_FAILURE(st))
        goto fail;
    if (profile == HD_STRICT) {
        c->nfc = unorm2_getNFCInstance(&st);
        if (U_FAILURE(st))
            goto fail;
    }
    if (algo != HD_XXH3_128) {
        c->md = EVP_MD_fetch(NULL, algo == HD_SHA256 ? "SHA256" : "MD5", NULL);
        c->md_ctx = EVP_MD_CTX_new();
        if (!c->md || !c->md_ctx)
            goto fail;
    }
    if (buf_reserve(&c->join, 4096) || buf_reserve(&c->up, 1024) || build_two(c))
        goto fail;
    return c;
fail:
    hd_free(c);
    return NULL;
}

void hd_free(hd_ctx *c)
{
    if (!c)
        return;
    if (c->csm)
        ucasemap_close(c->csm);
    EVP_MD_CTX_free(c->md_ctx);
    EVP_MD_free(c->md);
    free(c->join.p);
    free(c->up.p);
    free(c->nfc8.p);
    free(c->norm.p);
    free(c->u16a);
    free(c->u16b);
    if (c->xxh)
        XXH3_freeState(c->xxh);
    free(c);
}

/* Shrinks b back to keep bytes (0: frees it) when it grew beyond HD_KEEP; 1 if it did. */
static int buf_trim(hd_buf *b, size_t keep)
{
    if (b->cap <= HD_KEEP)
        return 0;
    char *p = keep ? realloc(b->p, keep) : NULL;
    if (keep && !p)
        return 0; /* keeping the big buffer is still correct */
    if (!keep)
        free(b->p);
    b->p = p;
    b->cap = keep;
    b->n = 0;
    return 1;
}

static int u16_trim(UChar **p, int32_t *cap)
{
    if ((size_t)*cap * sizeof(UChar) <= HD_KEEP)
        return 0;
    free(*p);
    *p = NULL;
    *cap = 0;
    return 1;
}

void hd_trim(hd_ctx *c)
{
    if (!c->big_value)
        return;
    c->big_value = 0;
    int freed = buf_trim(&c->join, 4096) | buf_trim(&c->up, 1024) | buf_trim(&c->nfc8, 0) |
                buf_trim(&c->norm, 0) | u16_trim(&c->u16a, &c->u16a_cap) |
                u16_trim(&c->u16b, &c->u16b_cap);
#ifdef __GLIBC__
    /* glibc may keep freed heap pages below its trim threshold: hand them back now */
    if (freed)
        malloc_trim(0);
#else
    (void)freed;
#endif
}

/* trimBoth: ClickHouse trims ASCII spaces (0x20) only: tabs, newlines and NBSP stay. */
static void trim_spaces(const char **p, size_t *n)
{
    const char *s = *p, *e = *p + *n;
    while (s < e && *s == ' ')
        s++;
    while (e > s && e[-1] == ' ')
        e--;
    *p = s;
    *n = (size_t)(e - s);
}

#define HI_BITS 0x8080808080808080ULL

/* Upper-cases src into dst for as long as it is ASCII, eight bytes at a time; returns the
 * number of bytes done (n when all of src is ASCII). */
static size_t ascii_upper(unsigned char *dst, const unsigned char *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        if (w & HI_BITS)
            break;
        /* Per byte, no carries (all bytes < 0x80): high bit set iff 'a' <= b <= 'z'. */
        uint64_t lower = (w + 0x1F1F1F1F1F1F1F1FULL) & ~(w + 0x0505050505050505ULL) & HI_BITS;
        w ^= lower >> 2;
        memcpy(dst + i, &w, 8);
    }
    for (; i < n; i++) {
        unsigned char ch = src[i];
        if (ch & 0x80)
            return i;
        dst[i] = ch ^ (unsigned char)(((unsigned char)(ch - 'a') < 26) << 5);
    }
    return n;
}

/* Upper-cases src into dst through the two-byte table (ASCII and U+0080..U+07FF with a
 * context-free same-length mapping); returns bytes done (n: all of it). */
static size_t table_upper(const hd_ctx *c, unsigned char *dst, const unsigned char *src, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t k = ascii_upper(dst + i, src + i, n - i);
        i += k;
        if (i == n)
            break;
        unsigned char b0 = src[i];
        if (b0 < 0xC2 || b0 > 0xDF || i + 1 >= n || (src[i + 1] & 0xC0) != 0x80)
            return i;
        uint16_t m = c->two[((b0 & 0x1F) << 6 | (src[i + 1] & 0x3F)) - 0x80];
        if (!m)
            return i;
        dst[i] = (unsigned char)(m >> 8);
        dst[i + 1] = (unsigned char)m;
        i += 2;
    }
    return n;
}

/* Appends src to b, escaping \ and | when esc (strict tokens). */
static int append(hd_buf *b, const char *src, size_t n, int esc)
{
    if (!esc) {
        if (buf_reserve(b, n))
            return HD_ENOMEM;
        memcpy(b->p + b->n, src, n);
        b->n += n;
        return 0;
    }
    if (n > SIZE_MAX / 2 || buf_reserve(b, 2 * n))
        return HD_ENOMEM;
    char *d = b->p + b->n;
    for (size_t i = 0; i < n; i++) {
        char ch = src[i];
        if (ch == '\\' || ch == '|')
            *d++ = '\\';
        *d++ = ch;
    }
    b->n = (size_t)(d - b->p);
    return 0;
}

/* normalizeUTF8NFC(x) into (*p, *n) (pointing at c->nfc8 or left alone). Invalid UTF-8 (where
 * normalizeUTF8NFC throws and isValidUTF8 is 0) is left unchanged. */
static int nfc(hd_ctx *c, const char **p, size_t *n)
{
    const unsigned char *s = (const unsigned char *)*p;
    size_t i = 0;
    while (i < *n) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        if (s[i] < 0xC2 || s[i] > 0xDF || i + 1 >= *n || (s[i + 1] & 0xC0) != 0x80 ||
            !c->nfc_yes[((s[i] & 0x1F) << 6 | (s[i + 1] & 0x3F)) - 0x80])
            break;
        i += 2;
    }
    if (i == *n)
        return 0; /* already NFC, without a trip through UTF-16 */
    if (*n > HD_MAX_ICU_VALUE)
        return HD_ETOOLONG;
    if (*n > HD_KEEP / 16) /* NFC may take 9 bytes a byte */
        c->big_value = 1;
    UErrorCode st = U_ZERO_ERROR;
    int32_t len16 = 0;
    /* UTF-16 never needs more code units than UTF-8 has bytes. */
    if (u16_reserve(&c->u16a, &c->u16a_cap, (int32_t)*n + 1))
        return HD_ENOMEM;
    u_strFromUTF8(c->u16a, c->u16a_cap, &len16, *p, (int32_t)*n, &st);
    if (st == U_INVALID_CHAR_FOUND || st == U_ILLEGAL_CHAR_FOUND)
        return 0;
    if (U_FAILURE(st))
        return HD_EICU;
    st = U_ZERO_ERROR;
    int32_t ok = unorm2_spanQuickCheckYes(c->nfc, c->u16a, len16, &st);
    if (U_FAILURE(st))
        return HD_EICU;
    if (ok == len16)
        return 0; /* already NFC: the UTF-8 round trip of valid input is the input */
    /* NFC output may be longer than its input (e.g. U+1D15E expands); ask ICU. */
    int32_t need = len16 * 3 + 16;
    for (int tries = 0; tries < 2; tries++) {
        if (u16_reserve(&c->u16b, &c->u16b_cap, need))
            return HD_ENOMEM;
        st = U_ZERO_ERROR;
        need = unorm2_normalize(c->nfc, c->u16a, len16, c->u16b, c->u16b_cap, &st);
        if (st != U_BUFFER_OVERFLOW_ERROR)
            break;
    }
    if (U_FAILURE(st))
        return HD_EICU;
    int32_t out16 = need;
    size_t cap8 = (size_t)out16 * 3 + 1;
    c->nfc8.n = 0;
    if (buf_reserve(&c->nfc8, cap8) || cap8 > INT32_MAX)
        return HD_ENOMEM;
    int32_t len8 = 0;
    st = U_ZERO_ERROR;
    u_strToUTF8(c->nfc8.p, (int32_t)cap8, &len8, c->u16b, out16, &st);
    if (U_FAILURE(st))
        return HD_EICU;
    *p = c->nfc8.p;
    *n = (size_t)len8;
    return 0;
}

/* Upper-case mappings from Unicode 16 and 17 that the engine's ICU has and Debian 12's ICU 72
 * lacks: all 55 code points where ClickHouse 26.5's upperUTF8 of the single character differs
 * from ICU 72 (tests/fixtures/hashdiff/upper.tsv, checked code point by code point by
 * test_hd). Returns the upper-case code point, or 0 when ICU is right. */
static uint32_t upper_delta(uint32_t cp)
{
    if (cp >= 0x10D70 && cp <= 0x10D85) /* Garay small letters */
        return cp - 0x20;
    if (cp >= 0x16EBB && cp <= 0x16ED3) /* Beria Erfe small letters */
        return cp - 0x1B;
    switch (cp) {
    case 0x019B: return 0xA7DC;
    case 0x0264: return 0xA7CB;
    case 0x1C8A: return 0x1C89;
    case 0xA7CD: return 0xA7CC;
    case 0xA7CF: return 0xA7CE;
    case 0xA7D3: return 0xA7D2;
    case 0xA7D5: return 0xA7D4;
    case 0xA7DB: return 0xA7DA;
    default: return 0;
    }
}

/* Decodes one well-formed UTF-8 character at s (as ICU reads it); its length, or 0. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char b = s[0];
    size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
    if (!len || b > 0xF4 || len > n)
        return 0;
    uint32_t v = b & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[k] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static size_t utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Appends ICU's upper case of p[0..n) to c->up. */
static int icu_upper_append(hd_ctx *c, const char *p, size_t n)
{
    if (!n)
        return 0;
    if (buf_reserve(&c->up, n + n / 2 + 16))
        return HD_ENOMEM;
    for (int tries = 0; tries < 2; tries++) {
        UErrorCode st = U_ZERO_ERROR;
        size_t cap = c->up.cap - c->up.n;
        if (cap > INT32_MAX)
            cap = INT32_MAX;
        int32_t len = ucasemap_utf8ToUpper(c->csm, c->up.p + c->up.n, (int32_t)cap, p, (int32_t)n, &st);
        if (st == U_BUFFER_OVERFLOW_ERROR) {
            if (buf_reserve(&c->up, (size_t)len + 1))
                return HD_ENOMEM;
            continue;
        }
        if (U_FAILURE(st))
            return HD_EICU;
        c->up.n += (size_t)len;
        return 0;
    }
    return HD_EICU;
}

/* upperUTF8 of a non-ASCII value into c->up: ICU full case mapping in the root locale, which
 * is what ClickHouse runs (context-free, so it may be cut at character boundaries), plus the
 * newer mappings of upper_delta; ill-formed bytes pass through unchanged. */
static int icu_upper(hd_ctx *c, const char *p, size_t n)
{
    if (n > HD_MAX_ICU_VALUE)
        return HD_ETOOLONG;
    if (n > HD_KEEP / 4)
        c->big_value = 1;
    c->up.n = 0;
    const unsigned char *s = (const unsigned char *)p;
    size_t seg = 0, i = 0;
    int rc;
    while (i < n) {
        uint32_t cp;
        size_t len;
        if (s[i] < 0xC6 || !(len = utf8_decode(s + i, n - i, &cp))) { /* U+019B is C6 9B */
            i++;
            continue;
        }
        uint32_t u = upper_delta(cp);
        if (u) {
            char enc[4];
            size_t k = utf8_encode(u, enc);
            if ((rc = icu_upper_append(c, p + seg, i - seg)) != 0 || (rc = append(&c->up, enc, k, 0)) != 0)
                return rc;
            seg = i + len;
        }
        i += len;
    }
    return icu_upper_append(c, p + seg, n - seg);
}

/* Escapes \ and | in place in b->p[from..b->n) (strict tokens), growing b as needed. */
static int escape_tail(hd_buf *b, size_t from)
{
    size_t k = 0;
    for (size_t i = from; i < b->n; i++)
        k += b->p[i] == '\\' || b->p[i] == '|';
    if (!k)
        return 0;
    if (buf_reserve(b, k))
        return HD_ENOMEM;
    char *src = b->p + b->n, *dst = src + k;
    b->n += k;
    while (src > b->p + from) {
        char ch = *--src;
        *--dst = ch;
        if (ch == '\\' || ch == '|')
            *--dst = '\\';
    }
    return 0;
}

/* Appends the normalised value (escaped when esc) to the joined string. */
static int put_value(hd_ctx *c, const char *p, size_t n, int esc)
{
    int rc;
    if (c->profile == HD_STRICT) {
        /* NFC leaves ASCII alone: only look for work when a high byte is there. */
        size_t i = 0;
        while (i < n && !(p[i] & 0x80))
            i++;
        if (i < n && (rc = nfc(c, &p, &n)) != 0)
            return rc;
    }
    trim_spaces(&p, &n);
    size_t at = c->join.n;
    if (buf_reserve(&c->join, n))
        return HD_ENOMEM;
    unsigned char *dst = (unsigned char *)c->join.p + at;
    if (table_upper(c, dst, (const unsigned char *)p, n) == n) {
        c->join.n += n;
        return esc ? escape_tail(&c->join, at) : 0;
    }
    /* Anything else, the whole value goes to ICU (case mapping may change lengths). */
    if ((rc = icu_upper(c, p, n)) != 0)
        return rc;
    return append(&c->join, c->up.p, c->up.n, esc);
}

void hd_begin(hd_ctx *c)
{
    c->join.n = 0;
    c->n_items = 0;
    c->pending = 0;
    c->streaming = 0;
}

/* Hashes what the joined buffer holds and empties it, starting the streaming hash on the
 * row's first spill. Only called where every byte in join is final. */
static int spill(hd_ctx *c)
{
    if (!c->streaming) {
        if (c->algo == HD_XXH3_128) {
            if (!c->xxh && !(c->xxh = XXH3_createState()))
                return HD_ENOMEM;
            if (XXH3_128bits_reset(c->xxh) != XXH_OK)
                return HD_ECRYPTO;
        } else if (!EVP_DigestInit_ex2(c->md_ctx, c->md, NULL)) {
            return HD_ECRYPTO;
        }
        c->streaming = 1;
    }
    if (c->join.n) {
        int ok = c->algo == HD_XXH3_128 ? XXH3_128bits_update(c->xxh, c->join.p, c->join.n) == XXH_OK
                                        : EVP_DigestUpdate(c->md_ctx, c->join.p, c->join.n) == 1;
        if (!ok)
            return HD_ECRYPTO;
    }
    c->join.n = 0;
    return 0;
}

/* strict: writes the pending NULL tokens (a value follows them), the first one at token index
 * first, in pieces so that a long run of NULLs never needs a big buffer. */
static int put_pending_nulls(hd_ctx *c, size_t first)
{
    while (c->pending) {
        size_t m = c->pending < 4096 ? c->pending : 4096;
        if (buf_reserve(&c->join, 3 * m))
            return HD_ENOMEM;
        char *d = c->join.p + c->join.n;
        for (size_t k = 0; k < m; k++, first++) {
            if (first)
                *d++ = '|';
            *d++ = '\\';
            *d++ = 'N';
        }
        c->join.n = (size_t)(d - c->join.p);
        c->pending -= m;
        int rc = c->join.n >= HD_SPILL ? spill(c) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

static int add_token(hd_ctx *c, size_t i, int is_null, const char *p, size_t n)
{
    int rc;
    switch (c->profile) {
    case HD_CLASSIC:
        if (i && (rc = append(&c->join, "||", 2, 0)) != 0)
            return rc;
        return is_null ? 0 : put_value(c, p, n, 0);
    case HD_AUTOMATEDV: {
        if (i && (rc = append(&c->join, "||", 2, 0)) != 0)
            return rc;
        size_t before = c->join.n;
        if (!is_null && (rc = put_value(c, p, n, 0)) != 0)
            return rc;
        /* nullIf(…, '') then ifNull(…, '^^'): NULL and '' (after trimming) read alike. */
        return c->join.n == before ? append(&c->join, "^^", 2, 0) : 0;
    }
    case HD_STRICT:
        /* A NULL token is written only once a value follows it: trailing \N tokens (and
         * their separators) are dropped. */
        if (is_null) {
            c->pending++;
            return 0;
        }
        if (c->pending && (rc = put_pending_nulls(c, i - c->pending)) != 0)
            return rc;
        if (i && (rc = append(&c->join, "|", 1, 0)) != 0)
            return rc;
        return put_value(c, p, n, 1);
    }
    return HD_EINVAL;
}

int hd_add(hd_ctx *c, int is_null, const char *p, size_t n)
{
    /* Before the token, where everything joined so far is final (and add_token stays a tail
     * call on the per-attribute path). */
    if (c->join.n >= HD_SPILL) {
        int rc = spill(c);
        if (rc)
            return rc;
    }
    return add_token(c, c->n_items++, is_null, p, n);
}

int hd_finish(hd_ctx *c, unsigned char *out)
{
    if (c->join.cap > HD_KEEP) /* one big value joined: hd_trim gives it back */
        c->big_value = 1;
    if (c->streaming) {
        int rc = spill(c);
        if (rc)
            return rc;
    }
    const void *data = c->join.n ? c->join.p : "";
    if (c->algo == HD_XXH3_128) {
        XXH128_hash_t h = c->streaming ? XXH3_128bits_digest(c->xxh) : XXH3_128bits(data, c->join.n);
        for (int i = 0; i < 8; i++) {
            out[i] = (unsigned char)(h.low64 >> (8 * i));
            out[8 + i] = (unsigned char)(h.high64 >> (8 * i));
        }
        return 0;
    }
    /* OpenSSL 3.0 re-creates its provider context here on every call (one small allocation
     * inside libcrypto per row, measured); nothing else in hd allocates per row. */
    unsigned int len = 0;
    if ((!c->streaming && (!EVP_DigestInit_ex2(c->md_ctx, c->md, NULL) ||
                           !EVP_DigestUpdate(c->md_ctx, data, c->join.n))) ||
        !EVP_DigestFinal_ex(c->md_ctx, out, &len) || len != hd_digest_len(c->algo))
        return HD_ECRYPTO;
    return 0;
}

const char *hd_joined(const hd_ctx *c, size_t *n)
{
    if (c->streaming) {
        *n = 0;
        return NULL;
    }
    *n = c->join.n;
    return c->join.n ? c->join.p : "";
}

int hd_normalize(hd_ctx *c, const char *p, size_t n, const char **out, size_t *out_n)
{
    /* Reuse put_value by pointing the joined buffer at norm for the call. */
    hd_buf saved = c->join;
    c->join = c->norm;
    c->join.n = 0;
    int rc = put_value(c, p, n, 0);
    c->norm = c->join;
    c->join = saved;
    if (c->norm.cap > HD_KEEP)
        c->big_value = 1;
    if (rc)
        return rc;
    *out = c->norm.n ? c->norm.p : "";
    *out_n = c->norm.n;
    return 0;
}

/* ---- native SQL ---- */

static const char *sql_hash_fn(hd_algo a)
{
    return a == HD_XXH3_128 ? "xxh3_128" : a == HD_SHA256 ? "SHA256" : "MD5";
}

/* Checks a column name: non-empty, well-formed UTF-8, no control characters. */
static const char *check_name(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (!*p)
        return "a column name is empty";
    while (*p) {
        unsigned char ch = *p;
        if (ch < 0x20 || ch == 0x7F)
            return "a column name contains a control character";
        if (ch < 0x80) {
            p++;
            continue;
        }
        int len = ch >= 0xF0 ? 4 : ch >= 0xE0 ? 3 : ch >= 0xC2 ? 2 : 0;
        if (!len || ch > 0xF4)
            return "a column name is not valid UTF-8";
        uint32_t cp = ch & (0x3F >> (len - 1));
        for (int k = 1; k < len; k++) {
            if ((p[k] & 0xC0) != 0x80)
                return "a column name is not valid UTF-8";
            cp = cp << 6 | (p[k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return "a column name is not valid UTF-8";
        if (cp >= 0x80 && cp <= 0x9F)
            return "a column name contains a control character";
        p += len;
    }
    return NULL;
}

static char *sql_build(hd_profile profile, hd_algo algo, const char *a)
{
    const char *fn = sql_hash_fn(algo);
    const char *fmt;
    switch (profile) {
    case HD_CLASSIC:
        fmt = "%s(arrayStringConcat(arrayMap(x -> ifNull(upperUTF8(trimBoth(x)), ''), %s), '||'))";
        break;
    case HD_AUTOMATEDV:
        fmt = "%s(arrayStringConcat(arrayMap(x -> ifNull(nullIf(upperUTF8(trimBoth(x)), ''), '^^'), "
              "%s), '||'))";
        break;
    default:
        fmt = "%s(arrayStringConcat(arrayMap(x -> ifNull(replaceAll(replaceAll(upperUTF8(trimBoth("
              "if(isValidUTF8(x), normalizeUTF8NFC(x), x))), '\\\\', '\\\\\\\\'), '|', '\\\\|'), "
              "'\\\\N'), arraySlice(%s, 1, arrayLastIndex(x -> isNotNull(x), %s))), '|'))";
        break;
    }
    char *out = NULL;
    int rc = profile == HD_STRICT ? asprintf(&out, fmt, fn, a, a) : asprintf(&out, fmt, fn, a);
    return rc < 0 ? NULL : out;
}

char *hd_sql_expr(hd_profile profile, hd_algo algo, const char *array_expr)
{
    return sql_build(profile, algo, array_expr);
}

char *hd_sql(hd_profile profile, hd_algo algo, const char *const *cols, size_t n_cols,
             hd_error *err)
{
    hd_error dummy;
    if (!err)
        err = &dummy;
    err->arg = -1;
    if (n_cols == 0) {
        err->msg = "at least one column is needed";
        return NULL;
    }
    hd_buf a = {0};
    char *out = NULL;
    if (append(&a, "[", 1, 0))
        goto oom;
    for (size_t i = 0; i < n_cols; i++) {
        const char *bad = check_name(cols[i]);
        if (bad) {
            err->msg = bad;
            err->arg = (long)i;
            free(a.p);
            return NULL;
        }
        if ((i && append(&a, ", ", 2, 0)) || append(&a, "`", 1, 0))
            goto oom;
        /* Inside backquotes ClickHouse reads \ as an escape: escape it and the backquote. */
        for (const char *s = cols[i]; *s; s++) {
            if ((*s == '`' || *s == '\\') && append(&a, "\\", 1, 0))
                goto oom;
            if (append(&a, s, 1, 0))
                goto oom;
        }
        if (append(&a, "`", 1, 0))
            goto oom;
    }
    if (append(&a, "]", 2, 0)) /* with the terminating NUL */
        goto oom;
    out = sql_build(profile, algo, a.p);
    free(a.p);
    if (!out)
        err->msg = "out of memory";
    return out;
oom:
    free(a.p);
    err->msg = "out of memory";
    return NULL;
}
