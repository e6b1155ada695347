/* test_hd: unit tests of module hd (hashdiff normalisation, joining, hashing and native SQL).
 * Expected values come from the engine: tests/fixtures/hashdiff/regen.sh says how. */
#include "check.h"
#include "hd.h"

#ifdef __GLIBC__
#endif
#include <stdlib.h>
#include <string.h>

#define FIX ODS_SOURCE_DIR "/tests/fixtures/hashdiff/"

static char *hex(const void *p, size_t n)
{
    static const char d[] = "0123456789ABCDEF";
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = d[((const unsigned char *)p)[i] >> 4];
        s[2 * i + 1] = d[((const unsigned char *)p)[i] & 15];
    }
    s[2 * n] = 0;
    return s;
}

/* Decodes n hex digits into a new buffer. */
static char *unhex(const char *h, size_t n, size_t *out_n)
{
    char *s = malloc(n / 2 + 1);
    for (size_t i = 0; i + 1 < n; i += 2) {
        char b[3] = {h[i], h[i + 1], 0};
        s[i / 2] = (char)strtoul(b, NULL, 16);
    }
    *out_n = n / 2;
    return s;
}

/* Splits a line into at most max tab-separated fields, in place. */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = 0;
            f[n++] = p + 1;
        }
    return n;
}

static char *read_line(FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, f);
    if (len < 0) {
        free(line);
        return NULL;
    }
    if (len && line[len - 1] == '\n')
        line[len - 1] = 0;
    return line;
}

static void test_normalize_fixture(void)
{
    FILE *f = fopen(FIX "normalize.tsv", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    hd_ctx *classic = hd_new(HD_CLASSIC, HD_XXH3_128), *strict = hd_new(HD_STRICT, HD_XXH3_128);
    int rows = 0;
    char *line;
    while ((line = read_line(f))) {
        char *fld[3];
        CHECK_EQ_INT(split_tabs(line, fld, 3), 3);
        size_t n;
        char *in = unhex(fld[0], strlen(fld[0]), &n);
        const char *out;
        size_t out_n;
        CHECK_EQ_INT(hd_normalize(classic, in, n, &out, &out_n), 0);
        char *h = hex(out, out_n);
        if (strcmp(h, fld[1]) != 0)
            fprintf(stderr, "classic normalisation of %.60s\n", fld[0]);
        CHECK_EQ_STR(h, fld[1]);
        free(h);
        CHECK_EQ_INT(hd_normalize(strict, in, n, &out, &out_n), 0);
        h = hex(out, out_n);
        if (strcmp(h, fld[2]) != 0)
            fprintf(stderr, "strict normalisation of %.60s\n", fld[0]);
        CHECK_EQ_STR(h, fld[2]);
        free(h);
        free(in);
        free(line);
        rows++;
    }
    CHECK(rows >= 50);
    fclose(f);
    hd_free(classic);
    hd_free(strict);
}

static void check_row(hd_ctx *c, char **items, size_t *lens, int *nulls, size_t n,
                      const char *want_joined, const char *want_digest, const char *what)
{
    hd_begin(c);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_INT(hd_add(c, nulls[i], items[i], lens[i]), 0);
    unsigned char d[HD_MAX_DIGEST];
    CHECK_EQ_INT(hd_finish(c, d), 0);
    size_t jn;
    const char *j = hd_joined(c, &jn);
    char *h = hex(j, jn);
    if (want_joined) {
        if (strcmp(h, want_joined) != 0)
            fprintf(stderr, "%s: joined string differs\n", what);
        CHECK_EQ_STR(h, want_joined);
    }
    free(h);
    h = hex(d, strlen(want_digest) / 2);
    if (strcmp(h, want_digest) != 0)
        fprintf(stderr, "%s: digest differs\n", what);
    CHECK_EQ_STR(h, want_digest);
    free(h);
}

static void test_hash_fixture(void)
{
    FILE *f = fopen(FIX "hashes.tsv", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    hd_ctx *cx = hd_new(HD_CLASSIC, HD_XXH3_128), *cs = hd_new(HD_CLASSIC, HD_SHA256);
    hd_ctx *av = hd_new(HD_AUTOMATEDV, HD_MD5), *st = hd_new(HD_STRICT, HD_XXH3_128);
    CHECK(cx && cs && av && st);
    int rows = 0;
    char *line;
    while ((line = read_line(f))) {
        char *fld[9];
        CHECK_EQ_INT(split_tabs(line, fld, 9), 9);
        size_t n = strtoul(fld[0], NULL, 10);
        char **items = calloc(n + 1, sizeof *items);
        size_t *lens = calloc(n + 1, sizeof *lens);
        int *nulls = calloc(n + 1, sizeof *nulls);
        const char *p = fld[1];
        for (size_t i = 0; i < n; i++) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            nulls[i] = len == 1 && *p == '~';
            items[i] = unhex(nulls[i] ? "" : p, nulls[i] ? 0 : len, &lens[i]);
            p += len + (e != NULL);
        }
        char what[64];
        snprintf(what, sizeof what, "hashes.tsv row %d", rows + 1);
        check_row(cx, items, lens, nulls, n, fld[2], fld[5], what);
        check_row(cs, items, lens, nulls, n, fld[2], fld[6], what);
        check_row(av, items, lens, nulls, n, fld[3], fld[7], what);
        check_row(st, items, lens, nulls, n, fld[4], fld[8], what);
        for (size_t i = 0; i < n; i++)
            free(items[i]);
        free(items);
        free(lens);
        free(nulls);
        free(line);
        rows++;
    }
    CHECK(rows >= 25);
    fclose(f);
    hd_free(cx);
    hd_free(cs);
    hd_free(av);
    hd_free(st);
}

/* Every code point U+0080..U+10FFFF alone: upperUTF8 and the strict normalisation equal the
 * engine's (upper.tsv lists those that change; all others must stay as they are). */
static void test_every_code_point(void)
{
    FILE *f = fopen(FIX "upper.tsv", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    hd_ctx *classic = hd_new(HD_CLASSIC, HD_XXH3_128), *strict = hd_new(HD_STRICT, HD_XXH3_128);
    char *line = read_line(f), *fld[4] = {0};
    long next = -1;
    if (line && split_tabs(line, fld, 4) == 4)
        next = strtol(fld[0], NULL, 10);
    int bad_upper = 0, bad_strict = 0, listed = 0;
    for (long cp = 0x80; cp < 0x110000; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        unsigned char s[4];
        size_t n;
        if (cp < 0x800) {
            s[0] = (unsigned char)(0xC0 | cp >> 6), s[1] = (unsigned char)(0x80 | (cp & 63)), n = 2;
        } else if (cp < 0x10000) {
            s[0] = (unsigned char)(0xE0 | cp >> 12), s[1] = (unsigned char)(0x80 | ((cp >> 6) & 63));
            s[2] = (unsigned char)(0x80 | (cp & 63)), n = 3;
        } else {
            s[0] = (unsigned char)(0xF0 | cp >> 18), s[1] = (unsigned char)(0x80 | ((cp >> 12) & 63));
            s[2] = (unsigned char)(0x80 | ((cp >> 6) & 63)), s[3] = (unsigned char)(0x80 | (cp & 63));
            n = 4;
        }
        char *self = hex(s, n);
        const char *want_u = self, *want_s = self;
        if (cp == next) {
            want_u = fld[2];
            want_s = fld[3];
            listed++;
        }
        const char *out;
        size_t out_n;
        if (hd_normalize(classic, (const char *)s, n, &out, &out_n) == 0) {
            char *h = hex(out, out_n);
            if (strcmp(h, want_u) != 0 && bad_upper++ < 5)
                fprintf(stderr, "U+%04lX: upper %s, engine %s\n", cp, h, want_u);
            free(h);
        } else {
            bad_upper++;
        }
        if (hd_normalize(strict, (const char *)s, n, &out, &out_n) == 0) {
            char *h = hex(out, out_n);
            if (strcmp(h, want_s) != 0 && bad_strict++ < 5)
                fprintf(stderr, "U+%04lX: strict %s, engine %s\n", cp, h, want_s);
            free(h);
        } else {
            bad_strict++;
        }
        free(self);
        if (cp == next) {
            free(line);
            line = read_line(f);
            next = line && split_tabs(line, fld, 4) == 4 ? strtol(fld[0], NULL, 10) : -1;
        }
    }
    free(line);
    CHECK_EQ_INT(bad_upper, 0);
    CHECK_EQ_INT(bad_strict, 0);
    CHECK(listed > 2000);
    fclose(f);
    hd_free(classic);
    hd_free(strict);
}

/* The same context reused across rows of every size gives the same answer as a fresh one. */
static void test_reuse(void)
{
    hd_ctx *a = hd_new(HD_STRICT, HD_XXH3_128);
    unsigned char d1[HD_MAX_DIGEST], d2[HD_MAX_DIGEST];
    static char big[20000];
    memset(big, 'q', sizeof big);
    hd_begin(a);
    CHECK_EQ_INT(hd_add(a, 0, big, sizeof big), 0);
    CHECK_EQ_INT(hd_finish(a, d1), 0);
    hd_begin(a);
    CHECK_EQ_INT(hd_add(a, 0, "Straße", strlen("Straße")), 0);
    CHECK_EQ_INT(hd_finish(a, d1), 0);
    hd_ctx *b = hd_new(HD_STRICT, HD_XXH3_128);
    hd_begin(b);
    CHECK_EQ_INT(hd_add(b, 0, "Straße", strlen("Straße")), 0);
    CHECK_EQ_INT(hd_finish(b, d2), 0);
    CHECK(memcmp(d1, d2, 16) == 0);
    size_t n;
    const char *j = hd_joined(b, &n);
    CHECK(n == 7 && memcmp(j, "STRASSE", 7) == 0);
    hd_free(a);
    hd_free(b);
}

/* ---------- rows of many attributes: hashed in pieces, the same digest ---------- */


typedef struct {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
}

/* Attribute i of the long test rows: NULL runs (one of 10 000 in the middle, one of 5 000 at
 * the end), values that trim, empty ones, and the strict escapes. */
static const char *long_item(size_t i, size_t n_items)
{
    if (i >= n_items - 5000 || (i >= 50000 && i < 60000))
        return NULL;
    static const char *const v[] = {"x", " y ", "", NULL, "a|b\\", "z"};
    return v[i % 6];
}

/* The joined string each profile hashes for the long row, built by the definitions of
 * docs/hashdiff.md (upper-cased by hand: the values are ASCII). */
static void long_joined(hd_profile prof, size_t n_items, sbuf *j)
{
    size_t last = 0; /* strict: length up to the last value token */
    for (size_t i = 0; i < n_items; i++) {
        const char *x = long_item(i, n_items);
        const char *tok;
        char t[16];
        if (!x) {
            tok = prof == HD_CLASSIC ? "" : prof == HD_AUTOMATEDV ? "^^" : "\\N";
        } else {
            size_t k = 0;
            for (const char *c = x; *c; c++) {
                if (*c == ' ')
                    continue;
                if (prof == HD_STRICT && (*c == '|' || *c == '\\'))
                    t[k++] = '\\';
                t[k++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
            }
            t[k] = 0;
            tok = k == 0 && prof == HD_AUTOMATEDV ? "^^" : t;
        }
        if (i)
            sb_add(j, prof == HD_STRICT ? "|" : "||", prof == HD_STRICT ? 1 : 2);
        sb_add(j, tok, strlen(tok));
        if (x)
            last = j->n;
    }
    if (prof == HD_STRICT)
        j->n = last; /* trailing \N tokens dropped */
}

static void test_long_rows(void)
{
    const struct {
        hd_profile prof;
        hd_algo algo;
    } cases[] = {{HD_CLASSIC, HD_XXH3_128}, {HD_CLASSIC, HD_SHA256}, {HD_AUTOMATEDV, HD_MD5},
                 {HD_STRICT, HD_XXH3_128}, {HD_STRICT, HD_SHA256}};
    size_t n_items = 300000;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hd_ctx *c = hd_new(cases[k].prof, cases[k].algo);
        /* the oracle: the whole joined string as one classic value hashes exactly those bytes
         * (upper-case ASCII, no spaces at its ends), in one call */
        hd_ctx *o = hd_new(HD_CLASSIC, cases[k].algo);
        CHECK(c && o);
        if (!c || !o)
            continue;
        sbuf j = {0};
        long_joined(cases[k].prof, n_items, &j);
        CHECK(j.n > 600000);
        unsigned char got[HD_MAX_DIGEST], want[HD_MAX_DIGEST];
        long long before = check_heap_in_use(), most = 0;
        hd_begin(c);
        for (size_t i = 0; i < n_items; i++) {
            const char *x = long_item(i, n_items);
            CHECK_EQ_INT(hd_add(c, x == NULL, x ? x : "", x ? strlen(x) : 0), 0);
            if (i % 1000 == 0 && check_heap_in_use() - before > most)
                most = check_heap_in_use() - before;
        }
        CHECK_EQ_INT(hd_finish(c, got), 0);
        size_t jn = 1;
        CHECK(hd_joined(c, &jn) == NULL && jn == 0); /* hashed in pieces */
        hd_begin(o);
        CHECK_EQ_INT(hd_add(o, 0, j.p, j.n), 0);
        CHECK_EQ_INT(hd_finish(o, want), 0);
        const char *oj = hd_joined(o, &jn);
        CHECK(oj && jn == j.n && !memcmp(oj, j.p, j.n)); /* the oracle hashed j itself */
        if (memcmp(got, want, hd_digest_len(cases[k].algo)) != 0)
            fprintf(stderr, "long row, %s %s: digest differs from the one-call hash\n",
                    hd_profile_name(cases[k].prof), hd_algo_name(cases[k].algo));
        CHECK(memcmp(got, want, hd_digest_len(cases[k].algo)) == 0);
        /* the joined string (over 600 kB) is never held: well under its size */
        if (CHECK_HEAP_KNOWN) {
            if (most >= 600 * 1024)
                fprintf(stderr, "long row: %lld bytes held\n", most);
            CHECK(most < 600 * 1024);
        }
        /* and the context goes on with ordinary rows as a fresh one does */
        hd_ctx *f = hd_new(cases[k].prof, cases[k].algo);
        unsigned char d1[HD_MAX_DIGEST], d2[HD_MAX_DIGEST];
        hd_trim(c);
        hd_begin(c);
        hd_begin(f);
        CHECK_EQ_INT(hd_add(c, 0, "Straße ", 8), 0);
        CHECK_EQ_INT(hd_add(f, 0, "Straße ", 8), 0);
        CHECK_EQ_INT(hd_add(c, 1, NULL, 0), 0);
        CHECK_EQ_INT(hd_add(f, 1, NULL, 0), 0);
        CHECK_EQ_INT(hd_finish(c, d1), 0);
        CHECK_EQ_INT(hd_finish(f, d2), 0);
        CHECK(memcmp(d1, d2, hd_digest_len(cases[k].algo)) == 0);
        hd_free(f);
        hd_free(c);
        hd_free(o);
        free(j.p);
    }
}

/* hd_trim gives back what one big value made grow (NFC and ICU buffers, the joined string). */
static void test_trim(void)
{
    if (!CHECK_HEAP_KNOWN)
        return;
    size_t n = 4u << 20;
    char *v = malloc(n);
    /* decomposed é (NFC work), ß (ICU: two letters from one) */
    for (size_t i = 0; i + 5 <= n; i += 5)
        memcpy(v + i, "e\xcc\x81\xc3\x9f", 5);
    hd_ctx *c = hd_new(HD_STRICT, HD_XXH3_128);
    unsigned char d[HD_MAX_DIGEST];
    long long before = check_heap_in_use();
    hd_begin(c);
    CHECK_EQ_INT(hd_add(c, 0, v, n - n % 5), 0);
    CHECK_EQ_INT(hd_finish(c, d), 0);
    long long grown = check_heap_in_use() - before;
    hd_trim(c);
    long long after = check_heap_in_use() - before;
    if (grown < (long long)n || after >= 64 * 1024)
        fprintf(stderr, "hd_trim: %lld bytes grown, %lld kept\n", grown, after);
    CHECK(grown >= (long long)n);
    CHECK(after < 64 * 1024);
    hd_free(c);
    free(v);
}

static void test_names(void)
{
    hd_profile p;
    hd_algo a;
    CHECK_EQ_INT(hd_profile_from_name("classic", &p), 0);
    CHECK_EQ_INT(p, HD_CLASSIC);
    CHECK_EQ_INT(hd_profile_from_name("automatedv", &p), 0);
    CHECK_EQ_INT(p, HD_AUTOMATEDV);
    CHECK_EQ_INT(hd_profile_from_name("strict", &p), 0);
    CHECK_EQ_INT(p, HD_STRICT);
    CHECK_EQ_INT(hd_profile_from_name("Strict", &p), -1);
    CHECK_EQ_INT(hd_algo_from_name("sha256", &a), 0);
    CHECK_EQ_INT(a, HD_SHA256);
    CHECK_EQ_INT(hd_algo_from_name("md5", &a), 0);
    CHECK_EQ_INT(hd_algo_from_name("xxh3_128", &a), 0);
    CHECK_EQ_INT(a, HD_XXH3_128);
    CHECK_EQ_INT(hd_algo_from_name("sha1", &a), -1);
    CHECK_EQ_INT(hd_digest_len(HD_SHA256), 32);
    CHECK_EQ_INT(hd_digest_len(HD_MD5), 16);
    CHECK_EQ_INT(hd_digest_len(HD_XXH3_128), 16);
}

/* Column names are always backquoted; a backquote or backslash inside is escaped, and names
 * ClickHouse could not read back (empty, control characters, bad UTF-8) are refused. */
static void test_sql(void)
{
    hd_error err;
    const char *ok[] = {"name", "e`mail", "ci\\ty", "имя", "a b"};
    char *s = hd_sql(HD_CLASSIC, HD_XXH3_128, ok, 5, &err);
    CHECK(s != NULL);
    if (s) {
        CHECK(strstr(s, "[`name`, `e\\`mail`, `ci\\\\ty`, `имя`, `a b`]") != NULL);
        const char *want = "xxh3_128(arrayStringConcat(arrayMap(x -> ifNull(upperUTF8(trimBoth(x)), ''), [";
        CHECK(strncmp(s, want, strlen(want)) == 0);
    }
    free(s);
    s = hd_sql(HD_AUTOMATEDV, HD_MD5, ok, 1, &err);
    CHECK(s && strcmp(s, "MD5(arrayStringConcat(arrayMap(x -> ifNull(nullIf(upperUTF8(trimBoth(x)), "
                         "''), '^^'), [`name`]), '||'))") == 0);
    free(s);
    s = hd_sql(HD_STRICT, HD_SHA256, ok, 1, &err);
    CHECK(s && strncmp(s, "SHA256(", 7) == 0);
    CHECK(s && strstr(s, "arraySlice([`name`], 1, arrayLastIndex(x -> isNotNull(x), [`name`]))"));
    free(s);

    const char *bad[][2] = {{"a", ""}, {"a", "x\ty"}, {"a", "x\ny"}, {"a", "\xff"},
                            {"a", "\xc0\x80"}, {"a", "\xed\xa0\x80"}, {"a", "\xc2\x85"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg = NULL;
        s = hd_sql(HD_CLASSIC, HD_XXH3_128, bad[i], 2, &err);
        CHECK(s == NULL);
        CHECK(err.msg != NULL);
        CHECK_EQ_INT(err.arg, 1);
        free(s);
    }
    s = hd_sql(HD_CLASSIC, HD_XXH3_128, ok, 0, &err);
    CHECK(s == NULL);
}

int main(void)
{
    test_names();
    test_normalize_fixture();
    test_hash_fixture();
    test_every_code_point();
    test_reuse();
    test_long_rows();
    test_trim();
    test_sql();
    return check_report();
}
