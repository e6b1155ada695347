/* test_jraw: jraw driven through sj_walk on every case of tests/fixtures/jraw/cases.tsv (the
 * engine's own outputs) at several depths, plus deep nesting, reuse, memory give-back, misuse. */
#include "check.h"
#include "jraw.h"
#include "sj.h"

#include <stdlib.h>
#include <string.h>

#define CASES ODS_SOURCE_DIR "/tests/fixtures/jraw/cases.tsv"

/* The walk feeds jraw as the UDF will: from the value of the key "v" at depth `at` (or the
 * root, at 0) up to the first event that is not inside that value. */
typedef struct {
    jraw *j;
    unsigned at;
    int armed; /* the key "v" at depth `at` was seen */
    int state; /* 0: before the value, 1: in it, 2: after it */
} feed;

static int on_key(void *ctx, unsigned depth, const char *p, const char *end)
{
    feed *f = ctx;
    if (f->state == 1 && depth <= f->at)
        f->state = 2;
    if (f->state == 1)
        return jraw_key(f->j, depth, p, end);
    if (f->state == 0 && depth == f->at)
        f->armed = end - p == 1 && *p == 'v';
    return 0;
}

static int on_value(void *ctx, unsigned depth, sj_kind kind, const char *p, const char *end)
{
    feed *f = ctx;
    if (f->state == 1 && depth <= f->at)
        f->state = 2;
    if (f->state == 0 && depth == f->at && (f->at == 0 || f->armed))
        f->state = 1;
    else if (f->state != 1 || depth == f->at)
        return 0;
    return jraw_value(f->j, depth, kind, p, end);
}

static const sj_visitor VIS = {on_key, on_value};
static sj_parser *g_sp;

/* Walks pre + s + post (padded) and returns jraw's text of the value at depth `at`, or NULL
 * when the walk or jraw fails (*rc says which code). The text lives in j. */
static const char *run(jraw *j, const char *pre, const char *s, size_t sn, const char *post,
                       unsigned at, int *rc)
{
    size_t a = strlen(pre), b = strlen(post), n = a + sn + b;
    char *buf = malloc(n + SJ_PADDING);
    if (!buf)
        abort();
    memcpy(buf, pre, a);
    memcpy(buf + a, s, sn);
    memcpy(buf + a + sn, post, b);
    memset(buf + n, 0, SJ_PADDING);
    feed f = {j, at, 0, 0};
    sj_error err = {0};
    jraw_begin(j);
    int r = sj_walk(g_sp, buf, n, &VIS, &f, &err);
    if (r == SJ_OK || r == SJ_ESTOP)
        r = jraw_end(j);
    free(buf);
    *rc = r;
    return r ? NULL : j->p;
}

static int g_cases;

/* Every fixture case as the member v of an object (as the engine saw it), as the root, and as
 * a member deeper down, between siblings that hold keys "v" of their own. */
static void fixture_cases(jraw *j)
{
    FILE *fp = fopen(CASES, "r");
    CHECK(fp != NULL);
    if (!fp)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        if (!len || line[0] == '#')
            continue;
        char *tab = strchr(line, '\t');
        CHECK(tab != NULL);
        if (!tab)
            continue;
        *tab = 0;
        const char *in = line, *want = tab + 1;
        size_t in_n = (size_t)(tab - line);
        int err = !strcmp(want, "ERROR"), rc;
        g_cases++;
        const char *got = run(j, "{\"v\":", in, in_n, "}", 1, &rc);
        if (err) {
            CHECK_EQ_INT(rc, JRAW_EINPUT);
        } else {
            CHECK_EQ_STR(got, want);
            if (!got || strcmp(got, want))
                fprintf(stderr, "  input: %s\n", in);
            CHECK_EQ_INT(j->n, strlen(want));
        }
        /* as the root: containers only (sj refuses some root scalars the engine reads, e.g.
         * "null  " and exponents of 19+ digits, through Debian's simdjson 3.0.1) */
        size_t sp = strspn(in, " ");
        if (!err && (in[sp] == '[' || in[sp] == '{'))
            CHECK_EQ_STR(run(j, "", in, in_n, "", 0, &rc), want);
        got = run(j, "[0,{\"a\":[{\"v\":1}],\"v\":", in, in_n, ",\"w\":{\"v\":2}}]", 2, &rc);
        if (!err)
            CHECK_EQ_STR(got, want);
    }
    free(line);
    fclose(fp);
}

/* n nested containers, opened by `open` and closed by `close` */
static char *nest(int n, const char *open, const char *mid, const char *close)
{
    size_t a = strlen(open), b = strlen(close), m = strlen(mid);
    char *s = malloc((a + b) * (size_t)n + m + 1), *q = s;
    if (!s)
        abort();
    for (int i = 0; i < n; i++, q += a)
        memcpy(q, open, a);
    memcpy(q, mid, m);
    q += m;
    for (int i = 0; i < n; i++, q += b)
        memcpy(q, close, b);
    *q = 0;
    return s;
}

static void deep(jraw *j)
{
    int rc;
    /* the deepest text sj walks: values down to level 1024 (1023 open containers + a scalar) */
    char *s = nest(1023, "[", "1", "]");
    CHECK_EQ_STR(run(j, "", s, strlen(s), "", 0, &rc), s);
    free(s);
    s = nest(1024, "[", "", "]");
    CHECK_EQ_STR(run(j, "", s, strlen(s), "", 0, &rc), s);
    free(s);
    s = nest(1000, "{\"a\":", "{}", "}");
    CHECK_EQ_STR(run(j, "", s, strlen(s), "", 0, &rc), s);
    /* the same, printed from inside: the value at depth 1 of {"v": ...} */
    CHECK_EQ_STR(run(j, "{\"v\":", s, strlen(s), "}", 1, &rc), s);
    free(s);
    /* whitespace between all of it (two levels a step) */
    s = nest(511, " [ { \"k\" : [ ] , \"a\" :", " null ", " } ] ");
    char *want = nest(511, "[{\"k\":[],\"a\":", "null", "}]");
    CHECK_EQ_STR(run(j, "", s, strlen(s), "", 0, &rc), want);
    free(s);
    free(want);
}

/* Events straight from the caller, with no walk: any starting depth, misuse refused. */
static void events(void)
{
    jraw j;
    jraw_init(&j);
    /* jraw_init leaves it ready for a value, no allocation */
    CHECK(j.p == NULL);
    CHECK_EQ_INT(jraw_value(&j, 5, SJ_ARRAY, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_value(&j, 6, SJ_NUMBER, "1", "1" + 1), 0);
    CHECK_EQ_INT(jraw_value(&j, 6, SJ_OBJECT, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_key(&j, 7, "a", "a" + 1), 0);
    CHECK_EQ_INT(jraw_value(&j, 7, SJ_STRING, "b\\u2028", "b\\u2028" + 7), 0);
    CHECK_EQ_INT(jraw_key(&j, 7, "c", "c" + 1), 0);
    CHECK_EQ_INT(jraw_value(&j, 7, SJ_ARRAY, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_value(&j, 8, SJ_ARRAY, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_value(&j, 6, SJ_NULL, "null", "null" + 4), 0); /* closes three */
    CHECK_EQ_INT(jraw_end(&j), 0);
    CHECK_EQ_STR(j.p, "[1,{\"a\":\"b\\u2028\",\"c\":[[]]},null]");
    CHECK_EQ_INT(jraw_end(&j), 0); /* again: the same text */
    CHECK_EQ_STR(j.p, "[1,{\"a\":\"b\\u2028\",\"c\":[[]]},null]");

    /* a scalar value, alone */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 1, SJ_NUMBER, "-0", "-0" + 2), 0);
    CHECK_EQ_INT(jraw_end(&j), 0);
    CHECK_EQ_STR(j.p, "0");

    /* misuse: each an error, which then sticks until jraw_begin */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_end(&j), JRAW_EINPUT); /* no value */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_key(&j, 1, "k", "k" + 1), JRAW_EINPUT); /* a key before the value */
    CHECK_EQ_INT(jraw_value(&j, 1, SJ_TRUE, "true", "true" + 4), JRAW_EINPUT);
    CHECK_EQ_INT(jraw_end(&j), JRAW_EINPUT);
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_TRUE, "true", "true" + 4), 0);
    CHECK_EQ_INT(jraw_value(&j, 3, SJ_TRUE, "true", "true" + 4), JRAW_EINPUT); /* inside a scalar */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_ARRAY, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_TRUE, "true", "true" + 4), JRAW_EINPUT); /* a sibling */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_ARRAY, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_value(&j, 4, SJ_TRUE, "true", "true" + 4), JRAW_EINPUT); /* a jump */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_ARRAY, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_key(&j, 3, "k", "k" + 1), JRAW_EINPUT); /* a key in an array */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_OBJECT, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_value(&j, 3, SJ_TRUE, "true", "true" + 4), JRAW_EINPUT); /* no key */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_OBJECT, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_key(&j, 3, "k", "k" + 1), 0);
    CHECK_EQ_INT(jraw_key(&j, 3, "k", "k" + 1), JRAW_EINPUT); /* two keys */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 2, SJ_OBJECT, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_key(&j, 3, "k", "k" + 1), 0);
    CHECK_EQ_INT(jraw_end(&j), JRAW_EINPUT); /* a key without its value */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 0, SJ_OBJECT, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_key(&j, 1, "k", "k" + 1), 0);
    CHECK_EQ_INT(jraw_value(&j, 1, SJ_OBJECT, NULL, NULL), 0);
    CHECK_EQ_INT(jraw_key(&j, 2, "k", "k" + 1), 0);
    CHECK_EQ_INT(jraw_key(&j, 1, "l", "l" + 1), JRAW_EINPUT); /* closes {"k": with no value */

    /* bad tokens: never read past end, an error each */
    static const char *const bad_num[] = {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1x",
                                          "18446744073709551616", "-9223372036854775809",
                                          "1e309", "-2e308", "0x10", "NaN", "Infinity"};
    for (size_t i = 0; i < sizeof bad_num / sizeof *bad_num; i++) {
        jraw_begin(&j);
        const char *t = bad_num[i];
        CHECK_EQ_INT(jraw_value(&j, 0, SJ_NUMBER, t, t + strlen(t)), JRAW_EINPUT);
    }
    static const char *const bad_str[] = {"\\", "a\\", "\\u", "\\u12", "\\u123", "\\u12g4", "\\x",
                                          "\\ud800", "\\udfff", "\\ud800\\u", "\\ud800\\ud800",
                                          "\\ud800\\n", "\\ud800\\udc0"};
    for (size_t i = 0; i < sizeof bad_str / sizeof *bad_str; i++) {
        jraw_begin(&j);
        const char *t = bad_str[i];
        CHECK_EQ_INT(jraw_value(&j, 0, SJ_STRING, t, t + strlen(t)), JRAW_EINPUT);
    }
    static const char *const bad_lit[] = {"", "tru", "truex", "nul", "False"};
    for (size_t i = 0; i < sizeof bad_lit / sizeof *bad_lit; i++) {
        jraw_begin(&j);
        const char *t = bad_lit[i];
        CHECK_EQ_INT(jraw_value(&j, 0, i < 3 ? SJ_TRUE : i == 3 ? SJ_NULL : SJ_FALSE, t, t + strlen(t)),
                     JRAW_EINPUT);
    }
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 0, SJ_STRING, NULL, NULL), JRAW_EINPUT);
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 0, (sj_kind)99, "1", "1" + 1), JRAW_EINPUT);

    /* raw controls and quotes never reach jraw from sj_walk; printed as their characters */
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 0, SJ_STRING, "\x01\"\xe2\x80", "\x01\"\xe2\x80" + 4), 0);
    CHECK_EQ_INT(jraw_end(&j), 0);
    CHECK_EQ_STR(j.p, "\"\\u0001\\\"\xe2\x80\"");

    /* a number token not followed by a NUL (strtod's copy is jraw's own) */
    const char *t = "0.12345678901234567890123]";
    jraw_begin(&j);
    CHECK_EQ_INT(jraw_value(&j, 0, SJ_NUMBER, t, t + 25), 0);
    CHECK_EQ_INT(jraw_end(&j), 0);
    CHECK_EQ_STR(j.p, "0.12345678901234568");
    jraw_free(&j);
    jraw_free(&j); /* twice is fine */
}

/* One jraw serves many values without growing; a huge value's memory is given back. */
static void memory(void)
{
    int rc;
    jraw jj, *j = &jj;
    jraw_init(j);
    run(j, "", "[1,2,3]", 7, "", 0, &rc);
    size_t cap = j->cap;
    CHECK(cap > 0 && cap <= 4096);
    for (int i = 0; i < 1000; i++)
        run(j, "", "{\"a\":[1.5,\"x\\n\",null]}", 22, "", 0, &rc);
    CHECK_EQ_STR(j->p, "{\"a\":[1.5,\"x\\n\",null]}");
    CHECK_EQ_INT(j->cap, cap);

    /* 8 MiB of escapes in one string: the text is 16 MiB */
    size_t n = (size_t)8 << 20;
    char *s = malloc(n + 3);
    if (!s)
        abort();
    s[0] = '"';
    for (size_t i = 1; i <= n; i += 2)
        memcpy(s + i, "\\n", 2);
    s[n + 1] = '"';
    s[n + 2] = 0;
    long long before = check_heap_in_use();
    const char *got = run(j, "", s, n + 2, "", 0, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(got && j->n == n + 2 && !memcmp(got, s, n + 2));
    CHECK(j->cap > JRAW_KEEP_BYTES);
    free(s);
    jraw_begin(j);
    CHECK_EQ_INT(j->cap, 0);
    CHECK(j->p == NULL);
    if (before >= 0)
        CHECK(check_heap_in_use() < before + (1 << 20));
    /* and it serves the next value as before */
    CHECK_EQ_STR(run(j, "", "[true]", 6, "", 0, &rc), "[true]");
    jraw_free(j);
}

int main(void)
{
    g_sp = sj_new();
    if (!g_sp)
        abort();
    jraw j;
    jraw_init(&j);
    fixture_cases(&j);
    CHECK(g_cases >= 100);
    deep(&j);
    memory();
    jraw_free(&j);
    events();
    sj_free(g_sp);
    return check_report();
}
