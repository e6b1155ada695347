/* test_og_emit: orders-gen's messages: valid ones meet every format of the wire contract v1
 * (checked here by an independent reader), and each dirty kind breaks exactly its one rule. */
#include "check.h"
#include "emit.h"
#include "wire_contract.h"

#include <math.h>
#include <stdlib.h>

#define START 20513      /* SELECT toInt32(toDate('2026-03-01')) */
#define START_LEAP 21234 /* SELECT toInt32(toDate('2028-02-20')): Feb 29 exists */

/* ---- an independent reader of our messages: top-level keys and values ---- */

typedef struct {
    int n;
    const char *key[16];
    size_t key_len[16];
    const char *val[16];
    size_t val_len[16];
} top;

/* Skips one JSON value starting at p (our messages: strings, numbers, arrays, objects). */
static const char *skip_value(const char *p, const char *end)
{
    int depth = 0;
    do {
        if (p >= end)
            return NULL;
        if (*p == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\')
                    p++;
            if (p >= end)
                return NULL;
            p++;
        } else if (*p == '[' || *p == '{') {
            depth++;
            p++;
        } else if (*p == ']' || *p == '}') {
            depth--;
            p++;
        } else if (depth == 0) {
            while (p < end && *p != ',' && *p != '}')
                p++;
        } else
            p++;
    } while (depth > 0);
    return p;
}

/* 0 when msg is one flat object of "key":value pairs (no spaces, as we write them). */
static int read_top(const char *m, size_t n, top *t)
{
    const char *p = m, *end = m + n;
    t->n = 0;
    if (n < 2 || *p != '{' || end[-1] != '}')
        return -1;
    p++;
    while (p < end - 1) {
        if (*p != '"' || t->n == 16)
            return -1;
        const char *k = ++p;
        while (p < end && *p != '"')
            p++;
        if (p + 1 >= end || p[1] != ':')
            return -1;
        t->key[t->n] = k;
        t->key_len[t->n] = (size_t)(p - k);
        p += 2;
        const char *v = p;
        p = skip_value(p, end - 1);
        if (!p)
            return -1;
        t->val[t->n] = v;
        t->val_len[t->n] = (size_t)(p - v);
        t->n++;
        if (*p == ',')
            p++;
        else if (p != end - 1)
            return -1;
    }
    return 0;
}

static int key_is(const top *t, int i, const char *name)
{
    return t->key_len[i] == strlen(name) && !memcmp(t->key[i], name, t->key_len[i]);
}

/* ---- the contract's formats, written from docs/wire-contract.md, not from og_emit ---- */

static int digits(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    return 1;
}

static int num(const char *p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (p[i] - '0');
    return v;
}

static int real_date(const char *p, int ymin, int ymax)
{
    if (!digits(p, 4) || p[4] != '-' || !digits(p + 5, 2) || p[7] != '-' || !digits(p + 8, 2))
        return 0;
    int y = num(p, 4), m = num(p + 5, 2), d = num(p + 8, 2);
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    static const int MD[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return y >= ymin && y <= ymax && m >= 1 && m <= 12 && d >= 1 &&
           d <= MD[m - 1] + (m == 2 && leap);
}

static int ok_timestamp(const char *v, size_t n) /* "YYYY-MM-DDTHH:MM:SS.mmmZ" with quotes */
{
    if (n != 26 || v[0] != '"' || v[25] != '"' || !real_date(v + 1, 1900, 2299) || v[11] != 'T')
        return 0;
    const char *t = v + 12;
    return digits(t, 2) && num(t, 2) <= 23 && t[2] == ':' && digits(t + 3, 2) &&
           num(t + 3, 2) <= 59 && t[5] == ':' && digits(t + 6, 2) && num(t + 6, 2) <= 59 &&
           t[8] == '.' && digits(t + 9, 3) && t[12] == 'Z';
}

static int ok_date(const char *v, size_t n) /* "YYYY-MM-DD" in 1970-01-01 .. 2149-06-06 */
{
    if (n != 12 || v[0] != '"' || v[11] != '"' || !real_date(v + 1, 1970, 2149))
        return 0;
    return memcmp(v + 1, "2149-06-06", 10) <= 0;
}

static int ok_money(const char *v, size_t n) /* "-?(0|[1-9][0-9]{0,15})\.[0-9]{2}" */
{
    if (n < 6 || v[0] != '"' || v[n - 1] != '"')
        return 0;
    const char *p = v + 1, *e = v + n - 1;
    int neg = *p == '-';
    p += neg;
    const char *dot = memchr(p, '.', (size_t)(e - p));
    if (!dot || e - dot != 3 || !digits(dot + 1, 2) || dot == p || dot - p > 16 ||
        !digits(p, (int)(dot - p)) || (*p == '0' && dot - p > 1))
        return 0;
    return !(neg && dot - p == 1 && *p == '0' && dot[1] == '0' && dot[2] == '0');
}

static int ok_text(const char *v, size_t n) /* our texts need no escapes: check 1..128 bytes */
{
    if (n < 3 || n > 130 || v[0] != '"' || v[n - 1] != '"')
        return 0;
    for (size_t i = 1; i + 1 < n; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7F || v[i] == '\\' || v[i] == '"')
            return 0;
    return 1;
}

static int ok_user_id(const char *v, size_t n)
{
    if (n < 1 || n > 19 || !digits(v, (int)n) || v[0] == '0')
        return 0;
    return 1;
}

/* Valid UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). */
static int utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n)
            return 0;
        unsigned cp = len == 1 ? c : len == 2 ? c & 31 : len == 3 ? c & 15 : c & 7;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + k] & 63);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

static int same(const char *v, size_t n, const char *lit)
{
    return n == strlen(lit) && !memcmp(v, lit, n);
}

/* Which of the 11 fields of a flat 11-key message break their rule; -1 if the keys differ. */
static int invalid_fields(const top *t, int *first_bad)
{
    int bad = 0;
    *first_bad = -1;
    if (t->n != OG_NFIELDS)
        return -1;
    for (int i = 0; i < t->n; i++) {
        if (!key_is(t, i, og_field_name((unsigned)i)))
            return -1;
        const char *v = t->val[i];
        size_t n = t->val_len[i];
        int ok;
        switch (i) {
        case 0: ok = ok_text(v, n); break;
        case 1: ok = ok_user_id(v, n); break;
        case 2:
            ok = ok_text(v, n) && (same(v, n, "\"new\"") || same(v, n, "\"paid\"") ||
                                   same(v, n, "\"shipped\"") || same(v, n, "\"delivered\"") ||
                                   same(v, n, "\"cancelled\""));
            break;
        case 3: case 4: ok = ok_timestamp(v, n); break;
        case 5: case 6: case 7: case 8: ok = ok_money(v, n); break;
        case 9: ok = v[0] == '[' && v[n - 1] == ']'; break;
        default: ok = ok_date(v, n); break;
        }
        if (!ok) {
            bad++;
            if (*first_bad < 0)
                *first_bad = i;
        }
    }
    return bad;
}

/* ---- tests ---- */

static void test_scalars(void)
{
    char b[64];
    /* expected texts from the engine: toInt32(toDate(...)), toUnixTimestamp64Milli(...) */
    *og_put_date(b, 11016) = 0;
    CHECK_EQ_STR(b, "2000-02-29");
    *og_put_date(b, 65535) = 0;
    CHECK_EQ_STR(b, "2149-06-06");
    *og_put_date(b, 47541) = 0;
    CHECK_EQ_STR(b, "2100-03-01");
    *og_put_date(b, 0) = 0;
    CHECK_EQ_STR(b, "1970-01-01");
    *og_put_timestamp(b, 1735689599999LL) = 0;
    CHECK_EQ_STR(b, "2024-12-31T23:59:59.999Z");
    *og_put_timestamp(b, -2208988799999LL) = 0;
    CHECK_EQ_STR(b, "1900-01-01T00:00:00.001Z");
    *og_put_money(b, 0) = 0;
    CHECK_EQ_STR(b, "0.00");
    *og_put_money(b, 5) = 0;
    CHECK_EQ_STR(b, "0.05");
    *og_put_money(b, 123456) = 0;
    CHECK_EQ_STR(b, "1234.56");
    *og_put_money(b, -500) = 0;
    CHECK_EQ_STR(b, "-5.00");
    *og_put_u64(b, UINT64_MAX) = 0;
    CHECK_EQ_STR(b, "18446744073709551615");
    *og_put_u64(b, 0) = 0;
    CHECK_EQ_STR(b, "0");
    /* every Date the contract allows: a real date, each one day after the last, and back */
    char prev[16] = "";
    int bad = 0;
    for (int64_t d = 0; d <= 65535; d++) {
        char cur[16];
        *og_put_date(cur, d) = 0;
        int y;
        unsigned m, dd;
        og_civil_from_days(d, &y, &m, &dd);
        bad += !real_date(cur, 1970, 2149) || strcmp(cur, prev) <= 0 ||
               og_days_from_civil(y, m, dd) != d;
        memcpy(prev, cur, sizeof cur);
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_field_names(void)
{
    /* the keys we write are exactly the contract's, each once */
    for (unsigned k = 0; k < OG_NFIELDS; k++) {
        int found = 0;
        for (unsigned j = 0; j < WIRE_NFIELDS; j++)
            found += !strcmp(og_field_name(k), WIRE_FIELDS[j].name);
        CHECK_EQ_INT(found, 1);
    }
    CHECK_EQ_INT(OG_NFIELDS, WIRE_NFIELDS);
    CHECK(og_field_name(OG_NFIELDS) == NULL);
}

/* Calls fn on each message of a small world: every day's snapshot, in order. */
typedef void (*msg_fn)(const char *m, size_t n, const og_layout *lay, void *ctx);

static void each_message(uint64_t seed, int64_t start, msg_fn fn, void *ctx)
{
    og_world w;
    const char *err;
    og_world_init(&w, seed, 2000, 6, 3, start, &err);
    static char buf[OG_MSG_MAX];
    for (uint32_t day = 0; day < 6; day++) {
        uint64_t first, end;
        og_snapshot_candidates(&w, day, &first, &end);
        for (uint64_t i = first; i < end; i++) {
            og_life l;
            og_status s;
            int64_t u;
            og_life_of(&w, i, &l);
            if (!og_snapshot_state(&w, &l, day, &s, &u))
                continue;
            og_order o;
            og_order_fill(&w, &l, s, u, &o);
            og_layout lay;
            size_t n = og_emit_order(&w, &o, day, buf, &lay);
            fn(buf, n, &lay, ctx);
        }
    }
}

typedef struct {
    int count, bad_top, bad_fields, bad_layout, bad_utf8, bad_money, non_ascii;
    size_t bytes, max;
} valid_stats;

static void check_valid(const char *m, size_t n, const og_layout *lay, void *ctx)
{
    valid_stats *s = ctx;
    top t;
    int first_bad;
    s->count++;
    s->bytes += n;
    if (n > s->max)
        s->max = n;
    if (read_top(m, n, &t) < 0) {
        s->bad_top++;
        return;
    }
    int nb = invalid_fields(&t, &first_bad);
    if (nb != 0) {
        s->bad_fields++;
        if (s->bad_fields < 3)
            fprintf(stderr, "invalid field %d in %.*s\n", first_bad, (int)n, m);
    }
    for (int i = 0; i < t.n && i < OG_NFIELDS; i++)
        s->bad_layout += lay->f[i].key != (uint32_t)(t.key[i] - 1 - m) ||
                         lay->f[i].val != (uint32_t)(t.val[i] - m) ||
                         lay->f[i].end != (uint32_t)(t.val[i] + t.val_len[i] - m);
    s->bad_layout += memcmp(m + lay->title - 9, "\"title\":\"", 9) != 0;
    s->bad_utf8 += !utf8_ok((const unsigned char *)m, n) || memchr(m, '\n', n) != NULL;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)m[i] >= 0x80) {
            s->non_ascii++;
            break;
        }
    /* total = items_total - discount + delivery, in the text itself */
    long long v[4];
    for (int k = 0; k < 4; k++)
        v[k] = llround(strtod(t.val[5 + k] + 1, NULL) * 100);
    s->bad_money += v[3] != v[0] - v[1] + v[2];
}

static void test_valid_messages(void)
{
    valid_stats s = {0};
    each_message(5, START_LEAP, check_valid, &s);
    CHECK(s.count > 2000);
    CHECK_EQ_INT(s.bad_top, 0);
    CHECK_EQ_INT(s.bad_fields, 0);
    CHECK_EQ_INT(s.bad_layout, 0);
    CHECK_EQ_INT(s.bad_utf8, 0);
    CHECK_EQ_INT(s.bad_money, 0);
    CHECK(s.non_ascii > 0); /* the catalog's UTF-8 titles do show up */
    CHECK(s.max < OG_MSG_MAX / 2 - 1);  /* room for a concatenated pair */
    size_t avg = s.bytes / (size_t)s.count;
    CHECK(avg > 300 && avg < 600);  /* "~400 bytes typical" */
}

/* ---- dirty kinds ---- */

typedef struct {
    int lines;
    og_rng r;
    int seen[OG_NKINDS];
    int bad[OG_NKINDS];
    int newline_in_lines;
} dirty_stats;

static int all_space(const char *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (m[i] != ' ' && m[i] != '\t' && m[i] != '\n' && m[i] != '\r')
            return 0;
    return 1;
}

/* 1 when the dirty message d breaks the rule its kind names, and only that one. */
static int breaks_as_intended(og_kind k, const char *m, size_t n, const char *d, size_t dn)
{
    top t;
    int first_bad, nb;
    switch (k) {
    case OG_EMPTY:
        return all_space(d, dn);
    case OG_TRUNCATED:
        return dn >= 1 && dn < n && !memcmp(d, m, dn);
    case OG_WRONG_ROOT: {
        size_t i = 0;
        while (i < dn && d[i] == ' ')
            i++;
        return dn > 0 && d[i] != '{' && (d[0] != '[' || (dn == n + 2 && !memcmp(d + 1, m, n)));
    }
    case OG_INVALID_UTF8:
        return dn > n && !utf8_ok((const unsigned char *)d, dn);
    case OG_CONTROL_CHAR: {
        int ctl = 0;
        for (size_t i = 0; i < dn; i++)
            ctl += (unsigned char)d[i] < 0x20;
        return ctl >= 1 && dn > n && dn <= n + 2;
    }
    case OG_CONCATENATED:
        return (dn == 2 * n && !memcmp(d, m, n) && !memcmp(d + n, m, n)) ||
               (dn == 2 * n + 1 && d[n] == '\n' && !memcmp(d + n + 1, m, n));
    case OG_MISSING_KEY:
        if (read_top(d, dn, &t) < 0)
            return 0;
        if (t.n == OG_NFIELDS - 1)
            return 1; /* read_top saw the rest intact */
        return t.n == OG_NFIELDS && invalid_fields(&t, &first_bad) < 0; /* a renamed key */
    case OG_EXTRA_KEY:
    case OG_DUPLICATE_KEY: {
        if (read_top(d, dn, &t) < 0 || t.n != OG_NFIELDS + 1)
            return 0;
        int dup = 0, known = 0;
        for (int i = 0; i < t.n; i++) {
            for (int j = 0; j < i; j++)
                dup += t.key_len[i] == t.key_len[j] && !memcmp(t.key[i], t.key[j], t.key_len[i]);
            for (unsigned f = 0; f < OG_NFIELDS; f++)
                known += key_is(&t, i, og_field_name(f));
        }
        t.n = OG_NFIELDS; /* the first 11 are the original, intact */
        nb = invalid_fields(&t, &first_bad);
        return nb == 0 && (k == OG_EXTRA_KEY ? dup == 0 && known == OG_NFIELDS
                                             : dup == 1 && known == OG_NFIELDS + 1);
    }
    default: { /* one field, and only that one, breaks its rule */
        if (read_top(d, dn, &t) < 0)
            return 0;
        nb = invalid_fields(&t, &first_bad);
        static const int WHICH[OG_NKINDS][2] = {
            [OG_NUMBER_AS_STRING] = {1, 1},  [OG_TS_NO_MILLIS] = {3, 4},
            [OG_TS_OFFSET] = {3, 4},         [OG_IMPOSSIBLE_DATE] = {3, 10},
            [OG_MONEY_ONE_DECIMAL] = {5, 8},
        };
        return nb == 1 && first_bad >= WHICH[k][0] && first_bad <= WHICH[k][1] &&
               (k != OG_IMPOSSIBLE_DATE || first_bad != 5); /* 3, 4 or 10 */
    }
    }
}

static void check_dirty(const char *m, size_t n, const og_layout *lay, void *ctx)
{
    dirty_stats *s = ctx;
    static char d[OG_MSG_MAX];
    for (og_kind k = OG_EMPTY; k < OG_NKINDS; k++) {
        size_t dn = og_dirty_apply(k, &s->r, s->lines, m, n, lay, d);
        s->seen[k]++;
        if (!breaks_as_intended(k, m, n, d, dn)) {
            if (s->bad[k]++ < 2)
                fprintf(stderr, "%s (%s): %.*s\n", og_kind_name(k), s->lines ? "lines" : "binary",
                        (int)dn, d);
        }
        if (s->lines && (memchr(d, '\n', dn) || memchr(d, '\r', dn)))
            s->newline_in_lines++;
    }
}

static void test_dirty_kinds(void)
{
    for (int run = 0; run < 4; run++) {
        int lines = run & 1;
        dirty_stats s = {.lines = lines};
        og_rng_stream(&s.r, 11, 0, (uint64_t)run);
        each_message(6, run < 2 ? START : START_LEAP, check_dirty, &s);
        for (og_kind k = OG_EMPTY; k < OG_NKINDS; k++) {
            CHECK(s.seen[k] > 1000);
            CHECK_EQ_INT(s.bad[k], 0);
        }
        CHECK_EQ_INT(s.newline_in_lines, 0);
    }
    /* the class of each kind, as the contract's first failing rule names it */
    CHECK_EQ_STR(og_kind_class(OG_VALID), "");
    CHECK_EQ_STR(og_kind_class(OG_TRUNCATED), "not_an_object");
    CHECK_EQ_STR(og_kind_class(OG_CONCATENATED), "not_an_object");
    CHECK_EQ_STR(og_kind_class(OG_MISSING_KEY), "keyset_mismatch");
    CHECK_EQ_STR(og_kind_class(OG_DUPLICATE_KEY), "keyset_mismatch");
    CHECK_EQ_STR(og_kind_class(OG_NUMBER_AS_STRING), "field_invalid");
    CHECK_EQ_STR(og_kind_class(OG_MONEY_ONE_DECIMAL), "field_invalid");
}

static void test_dirty_mix(void)
{
    og_rng r;
    og_rng_stream(&r, 1, 2, 3);
    int counts[OG_NKINDS] = {0};
    for (int i = 0; i < 100000; i++)
        counts[og_dirty_pick(&r)]++;
    CHECK_EQ_INT(counts[OG_VALID], 0);
    for (og_kind k = OG_EMPTY; k < OG_NKINDS; k++)
        CHECK(counts[k] > 1000); /* every kind has a real share (at least 2 %) */
}

int main(void)
{
    test_scalars();
    test_field_names();
    test_valid_messages();
    test_dirty_kinds();
    test_dirty_mix();
    return check_report();
}
