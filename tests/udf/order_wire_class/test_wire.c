/* test_wire: the classifier against every case of tests/fixtures/wire/cases.tsv (expected
 * class from the contract), plus generated cases too big for a fixture line (nesting, 16 MiB). */
#include "check.h"
#include "wire.h"
#include "wire_contract.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CASES ODS_SOURCE_DIR "/tests/fixtures/wire/cases.tsv"

/* ClickHouse TabSeparated unescaping, in place; returns the new length. */
static size_t tsv_unescape(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 == n) {
            s[o++] = s[i];
            continue;
        }
        char c = s[++i];
        switch (c) {
        case 't': s[o++] = '\t'; break;
        case 'n': s[o++] = '\n'; break;
        case 'r': s[o++] = '\r'; break;
        case 'b': s[o++] = '\b'; break;
        case 'f': s[o++] = '\f'; break;
        case '0': s[o++] = '\0'; break;
        case 'x': {
            char hex[3] = {s[i + 1], s[i + 2], 0};
            s[o++] = (char)strtol(hex, NULL, 16);
            i += 2;
            break;
        }
        default: s[o++] = c; break;
        }
    }
    return o;
}

/* Classifies a copy of p[0..n) followed by padding filled with `pad` bytes (their value must
 * not matter), with and without an explanation; both must agree. */
static wire_class classify_padded(const char *p, size_t n, char pad, wire_explain *why)
{
    char *b = malloc(n + WIRE_PADDING);
    memcpy(b, p, n);
    memset(b + n, pad, WIRE_PADDING);
    wire_class fast = wire_classify(b, n, NULL);
    wire_class slow = wire_classify(b, n, why);
    CHECK_EQ_INT(fast, slow);
    free(b);
    return fast;
}

static void check_explain(wire_class c, const wire_explain *why, const char *note)
{
    CHECK(why->reason[0] != 0);
    CHECK(strchr(why->reason, '\t') == NULL && strchr(why->reason, '\n') == NULL);
    if (c == WIRE_FIELD_INVALID) {
        CHECK(why->field != NULL);
        if (why->field)
            CHECK(wire_field_by_name(why->field, strlen(why->field)) != NULL);
    } else if (why->field) {
        fprintf(stderr, "unexpected field %s for: %s\n", why->field, note);
        CHECK(why->field == NULL);
    }
}

static int run_fixture(void)
{
    FILE *f = fopen(CASES, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int cases = 0, seen[4] = {0};
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = 0;
        char *t1 = memchr(line, '\t', (size_t)len);
        char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(line + len - t1 - 1)) : NULL;
        CHECK(t1 && t2);
        if (!t1 || !t2)
            continue;
        *t1 = *t2 = 0;
        const char *want = line, *note = t2 + 1;
        size_t n = tsv_unescape(t1 + 1, (size_t)(t2 - t1 - 1));
        const char *pads = "\0\xff\"9 ]}";
        for (int k = 0; k < 7; k++) {
            wire_explain why;
            wire_class c = classify_padded(t1 + 1, n, pads[k], &why);
            if (strcmp(wire_class_name(c), want) != 0) {
                fprintf(stderr, "case \"%s\": got \"%s\" (%s), want \"%s\"\n", note, wire_class_name(c),
                        why.reason, want);
                CHECK_EQ_STR(wire_class_name(c), want);
                break;
            }
            check_explain(c, &why, note);
            if (k == 0)
                seen[c]++;
        }
        /* Whitespace after the root never changes the class (unless the text already has a
         * BOM-less non-JSON tail, which stays not_an_object). */
        char *sp = malloc(n + 2);
        memcpy(sp, t1 + 1, n);
        memcpy(sp + n, " \n", 2);
        wire_explain why;
        CHECK_EQ_STR(wire_class_name(classify_padded(sp, n + 2, 'x', &why)), want);
        free(sp);
        cases++;
    }
    free(line);
    fclose(f);
    CHECK(cases > 250);
    for (int c = 0; c < 4; c++)
        CHECK(seen[c] > 10); /* every class is exercised */
    return cases;
}

static const char *BASE =
    "{\"order_id\":\"o-1\",\"user_id\":42,\"status\":\"paid\",\"created_at\":\"2024-02-29T23:59:59.999Z\","
    "\"updated_at\":\"2024-03-01T00:00:00.000Z\",\"items_total\":\"10.00\",\"discount\":\"0.00\","
    "\"delivery\":\"1.50\",\"total\":\"11.50\",\"items\":%s,\"snapshot_date\":\"2024-03-01\"}";

/* The base message with `items` replaced by inner, classified. */
static wire_class with_items(const char *inner, size_t n)
{
    size_t bl = strlen(BASE);
    char *b = malloc(bl + n + WIRE_PADDING);
    const char *at = strstr(BASE, "%s");
    size_t pre = (size_t)(at - BASE);
    memcpy(b, BASE, pre);
    memcpy(b + pre, inner, n);
    memcpy(b + pre + n, at + 2, bl - pre - 2);
    size_t len = bl - 2 + n;
    memset(b + len, '[', WIRE_PADDING);
    wire_explain why;
    wire_class c = wire_classify(b, len, NULL);
    CHECK_EQ_INT(wire_classify(b, len, &why), c);
    free(b);
    return c;
}

/* items = `levels` nested arrays around 1 (the root object adds one more level). */
static wire_class nested_items(int levels)
{
    size_t n = (size_t)levels * 2 + 1;
    char *s = malloc(n);
    memset(s, '[', (size_t)levels);
    s[levels] = '1';
    memset(s + levels + 1, ']', (size_t)levels);
    wire_class c = with_items(s, n);
    free(s);
    return c;
}

static wire_class nested_root(int levels)
{
    size_t n = (size_t)levels * 2;
    char *s = malloc(n + WIRE_PADDING);
    memset(s, '[', (size_t)levels);
    memset(s + levels, ']', (size_t)levels);
    wire_class c = wire_classify(s, n, NULL);
    free(s);
    return c;
}

/* Issue 10, repro 1: a string value followed by ':' and garbage, which simdjson's skipping
 * used to pass over unchecked; tail goes right after order_id's value. */
static wire_class with_tail_after_order_id(const char *tail)
{
    static const char *fmt =
        "{\"order_id\":\"ORD-0001\"%s,\"user_id\":42,\"status\":\"paid\","
        "\"created_at\":\"2024-02-29T23:59:59.999Z\",\"updated_at\":\"2024-03-01T00:00:00.000Z\","
        "\"items_total\":\"10.00\",\"discount\":\"0.00\",\"delivery\":\"1.50\",\"total\":\"11.50\","
        "\"items\":[],\"snapshot_date\":\"2024-03-01\"}";
    char out[700];
    int n = snprintf(out, sizeof out - WIRE_PADDING, fmt, tail);
    memset(out + n, '}', WIRE_PADDING);
    wire_explain why;
    wire_class c = wire_classify(out, (size_t)n, NULL);
    CHECK_EQ_INT(wire_classify(out, (size_t)n, &why), c);
    return c;
}

/* items = [ + level-3 nested arrays (objects {"k": when obj) + inner + closers + ]: inner sits
 * at level `level` (the root object is level 1, items level 2). */
static wire_class items_at_level(int level, int obj, const char *inner)
{
    size_t k = (size_t)level - 3, il = strlen(inner), open = obj ? 5 : 1;
    size_t n = 2 + k * (open + 1) + il;
    char *s = malloc(n), *q = s;
    *q++ = '[';
    for (size_t i = 0; i < k; i++, q += open)
        memcpy(q, obj ? "{\"k\":" : "[", open);
    memcpy(q, inner, il);
    q += il;
    memset(q, obj ? '}' : ']', k);
    q[k] = ']';
    wire_class c = with_items(s, n);
    free(s);
    return c;
}

static void run_generated(void)
{
    /* Issue 10, repro 1: a string value followed by ':' no longer switches validation off. */
    CHECK_EQ_INT(with_tail_after_order_id(""), WIRE_VALID);
    CHECK_EQ_INT(with_tail_after_order_id(":tru]"), WIRE_NOT_AN_OBJECT);
    CHECK_EQ_INT(with_tail_after_order_id(":1]"), WIRE_NOT_AN_OBJECT);
    CHECK_EQ_INT(with_tail_after_order_id(":\"x\":\"\\q\"}"), WIRE_NOT_AN_OBJECT);
    CHECK_EQ_INT(with_tail_after_order_id(":1e400]"), WIRE_NOT_AN_OBJECT);
    const char *ab = "{\"a\":\"b\":1]}";
    char abp[96];
    memcpy(abp, ab, strlen(ab));
    memset(abp + strlen(ab), ' ', WIRE_PADDING);
    CHECK_EQ_INT(wire_classify(abp, strlen(ab), NULL), WIRE_NOT_AN_OBJECT);

    /* Issue 10, repro 2, as the engine measures depth (tests/bats/order_wire_class.bats checks
     * the same grid against isValidJSON): any value at level 1024 is fine, at 1025 refused. */
    static const char *inner[] = {"1", "\"s\"", "null", "{}", "[]", "{\"k\":1}"};
    for (int obj = 0; obj < 2; obj++)
        for (size_t i = 0; i < sizeof inner / sizeof *inner; i++)
            for (int level = 1019; level <= 1026; level++) {
                /* {"k":1} and non-empty containers put a value one level further down */
                int deepest = level + (inner[i][1] == '"' && inner[i][0] == '{' ? 1 : 0);
                wire_class want = deepest <= 1024 ? WIRE_VALID : WIRE_NOT_AN_OBJECT;
                wire_class got = items_at_level(level, obj, inner[i]);
                if (got != want)
                    fprintf(stderr, "depth grid: %s at level %d (%s): got %d\n", inner[i], level,
                            obj ? "objects" : "arrays", got);
                CHECK_EQ_INT(got, want);
            }
    CHECK_EQ_INT(nested_items(999), WIRE_VALID);
    CHECK_EQ_INT(nested_items(1022), WIRE_VALID);         /* 1 at level 1024 */
    CHECK_EQ_INT(nested_items(1023), WIRE_NOT_AN_OBJECT); /* 1 at level 1025 */
    CHECK_EQ_INT(nested_items(100000), WIRE_NOT_AN_OBJECT);
    CHECK_EQ_INT(nested_root(1025), WIRE_NOT_AN_OBJECT);
    CHECK_EQ_INT(nested_root(1000), WIRE_NOT_AN_OBJECT); /* valid JSON, not an object */
    /* Unbalanced deep nesting must not be mistaken for deep nesting that closes. */
    CHECK_EQ_INT(with_items("[[[[1]]]", 8), WIRE_NOT_AN_OBJECT);

    /* 16 MiB values: no limit on size other than memory. */
    size_t big = 16u << 20;
    char *s = malloc(big + 2);
    s[0] = '"';
    memset(s + 1, 'a', big - 2);
    s[big - 1] = '"';
    memcpy(s + big, "]", 1);
    char *items = malloc(big + 2);
    items[0] = '[';
    memcpy(items + 1, s, big);
    items[big + 1] = ']';
    CHECK_EQ_INT(with_items(items, big + 2), WIRE_VALID);
    items[big / 2] = '\n'; /* a raw newline deep in a huge string */
    CHECK_EQ_INT(with_items(items, big + 2), WIRE_NOT_AN_OBJECT);
    free(items);
    free(s);

    /* A long run of mixed escapes, and a number with a huge mantissa at the double edge. */
    char num[1200];
    num[0] = '[';
    memset(num + 1, '9', 309);
    strcpy(num + 310, ".5]");
    CHECK_EQ_INT(with_items(num, strlen(num)), WIRE_NOT_AN_OBJECT); /* 10^309 > DBL_MAX */
    strcpy(num, "[0.");
    memset(num + 3, '9', 1000);
    strcpy(num + 1003, "e309]");
    CHECK_EQ_INT(with_items(num, strlen(num)), WIRE_NOT_AN_OBJECT); /* rounds to 1e309 */
    num[3] = '1', num[4] = '0'; /* 0.10999…e309: finite */
    CHECK_EQ_INT(with_items(num, strlen(num)), WIRE_VALID);
    strcpy(num, "[0.17976931348623157e309,-17976931348623157");
    memset(num + strlen(num), '0', 292); /* DBL_MAX as a 309-digit integer with a fraction */
    strcpy(num + 43 + 292, ".0]");
    CHECK_EQ_INT(with_items(num, strlen(num)), WIRE_VALID); /* DBL_MAX, written two ways */
    strcpy(num, "[1e99999999999999999999999999]");
    CHECK_EQ_INT(with_items(num, strlen(num)), WIRE_NOT_AN_OBJECT);
    strcpy(num, "[1e-99999999999999999999999999, 0.0000e99999999999999999999]");
    CHECK_EQ_INT(with_items(num, strlen(num)), WIRE_VALID);
    CHECK_EQ_INT(with_items("1", 1), WIRE_FIELD_INVALID); /* items must be an array */

    /* The reason text names the fault as the issue shows it. */
    wire_explain why;
    const char *feb30 =
        "{\"order_id\":\"o-1\",\"user_id\":42,\"status\":\"paid\",\"created_at\":\"2026-02-30T00:00:00.000Z\","
        "\"updated_at\":\"2024-03-01T00:00:00.000Z\",\"items_total\":\"10.00\",\"discount\":\"0.00\","
        "\"delivery\":\"1.50\",\"total\":\"11.50\",\"items\":[],\"snapshot_date\":\"2024-03-01\"}";
    size_t fl = strlen(feb30);
    char *fb = malloc(fl + WIRE_PADDING);
    memcpy(fb, feb30, fl + 1);
    CHECK_EQ_INT(wire_classify(fb, fl, &why), WIRE_FIELD_INVALID);
    CHECK_EQ_STR(why.field, "created_at");
    CHECK_EQ_STR(why.reason, "day 30 does not exist in 2026-02");
    free(fb);

    CHECK_EQ_STR(wire_class_name(WIRE_VALID), "");
    CHECK_EQ_STR(wire_class_name(WIRE_NOT_AN_OBJECT), "not_an_object");
    CHECK_EQ_STR(wire_class_name(WIRE_KEYSET_MISMATCH), "keyset_mismatch");
    CHECK_EQ_STR(wire_class_name(WIRE_FIELD_INVALID), "field_invalid");
}

/* wire_parse: the class as wire_classify says, the typed fields in their ODS units, and the
 * RowBinary of the Tuple: class, then each field (fixed-width little-endian or varint + bytes),
 * zero values for a rejected row. The engine-side proof is tests/bats/order_wire_parse.bats. */
static void test_parse(void)
{
    static const char msg[] =
        "{\"order_id\":\"o\\u00e9-1\",\"user_id\":9223372036854775807,\"status\":\"paid\","
        "\"created_at\":\"1969-12-31T23:59:59.999Z\",\"updated_at\":\"2299-12-31T23:59:59.999Z\","
        "\"items_total\":\"-9999999999999999.99\",\"discount\":\"0.01\",\"delivery\":\"0.00\","
        "\"total\":\"12.30\",\"items\":[ {\"a\" : 1.50, \"b\":\"\\u002f\"} , -0 ],"
        "\"snapshot_date\":\"2149-06-06\"}";
    size_t n = sizeof msg - 1;
    char *b = malloc(n + WIRE_PADDING);
    if (!b)
        return;
    memcpy(b, msg, n);
    memset(b + n, 0, WIRE_PADDING);
    wire_row row;
    wire_row_init(&row);
    CHECK_EQ_INT(wire_parse(b, n, &row), WIRE_VALID);
    CHECK(row.n[0] == 5 && memcmp(row.s[0], "o\xc3\xa9-1", 5) == 0);
    CHECK(row.i[1] == INT64_MAX);
    CHECK(row.n[2] == 4 && memcmp(row.s[2], "paid", 4) == 0);
    CHECK_EQ_INT(row.i[3], -1);
    CHECK_EQ_INT(row.i[4], 10413791999999LL); /* 2299-12-31 23:59:59.999 UTC in ms */
    CHECK_EQ_INT(row.i[5], -999999999999999999LL);
    CHECK_EQ_INT(row.i[6], 1);
    CHECK_EQ_INT(row.i[7], 0);
    CHECK_EQ_INT(row.i[8], 1230);
    CHECK(row.n[9] == 21 && memcmp(row.s[9], "[{\"a\":1.5,\"b\":\"/\"},0]", 21) == 0);
    CHECK_EQ_INT(row.i[10], 65535); /* 2149-06-06, the last Date */
    /* the canonical texts (the C twins of canon_sql) and the hashdiff over them: the same bytes
     * as hd over these texts by hand (the engine's SQL is compared in order_wire_parse.bats) */
    static const char *const canon[WIRE_NFIELDS] = {
        "o\xc3\xa9-1", "9223372036854775807", "paid", "1969-12-31T23:59:59.999Z", "2299-12-31T23:59:59.999Z",
        "-9999999999999999.99", "0.01", "0.00", "12.30", "[{\"a\":1.5,\"b\":\"/\"},0]", "2149-06-06"};
    for (size_t i = 0; i < WIRE_NFIELDS; i++) {
        char cb[WIRE_CANON_MAX];
        const char *t;
        size_t tn = wire_canon(&WIRE_FIELDS[i], row.i[i], row.s[i], row.n[i], cb, &t);
        CHECK(tn == strlen(canon[i]) && memcmp(t, canon[i], tn) == 0);
    }
    hd_ctx *hc = hd_new(HD_STRICT, HD_XXH3_128);
    CHECK(hc != NULL);
    unsigned char want_hd[16];
    hd_begin(hc);
    for (size_t i = 0; i < 10; i++) /* the ten state fields: all but snapshot_date */
        CHECK_EQ_INT(hd_add(hc, 0, canon[i], strlen(canon[i])), 0);
    CHECK_EQ_INT(hd_finish(hc, want_hd), 0);
    CHECK_EQ_INT(wire_row_hashdiff(hc, &row), 0);
    CHECK(memcmp(row.hashdiff, want_hd, 16) == 0);
    char *out = NULL;
    size_t on = 0, cap = 0;
    CHECK_EQ_INT(wire_tuple_rowbinary(WIRE_VALID, &row, &out, &on, &cap), 0);
    /* class (1) + order_id (1+5) + user_id 8 + status (1+4) + 2 x 8 + 4 x 8 + items (1+21) + 2 + hashdiff 16 */
    CHECK_EQ_INT(on, 1 + 6 + 8 + 5 + 16 + 32 + 22 + 2 + 16);
    CHECK(out && out[0] == 0 && out[1] == 5 && (unsigned char)out[7 + 7] == 0x7f);
    CHECK(out && (unsigned char)out[on - 18] == 0xff && (unsigned char)out[on - 17] == 0xff);
    CHECK(out && memcmp(out + on - 16, want_hd, 16) == 0);
    /* other values, other texts: the edges of the timestamp, money and date rules */
    {
        static const struct { int f; int64_t v; const char *text; } E[] = {
            {3, 0, "1970-01-01T00:00:00.000Z"}, {3, -2208988800000LL, "1900-01-01T00:00:00.000Z"},
            {3, 951782400000LL, "2000-02-29T00:00:00.000Z"}, {3, -1, "1969-12-31T23:59:59.999Z"},
            {3, -86400000LL, "1969-12-31T00:00:00.000Z"}, {3, -86400001LL, "1969-12-30T23:59:59.999Z"},
            {5, -5, "-0.05"}, {5, -100, "-1.00"}, {5, 999999999999999999LL, "9999999999999999.99"},
            {1, 1, "1"}, {10, 0, "1970-01-01"}, {10, 11016, "2000-02-29"}};
        for (size_t k = 0; k < sizeof E / sizeof E[0]; k++) {
            char cb[WIRE_CANON_MAX];
            const char *t;
            size_t tn = wire_canon(&WIRE_FIELDS[E[k].f], E[k].v, NULL, 0, cb, &t);
            CHECK(tn == strlen(E[k].text) && memcmp(t, E[k].text, tn) == 0);
        }
    }
    hd_free(hc);
    /* a rejected row: its class, then zero values whatever the row held */
    memcpy(b, "{}", 3);
    CHECK_EQ_INT(wire_parse(b, 2, &row), WIRE_KEYSET_MISMATCH);
    on = 0;
    CHECK_EQ_INT(wire_tuple_rowbinary(WIRE_KEYSET_MISMATCH, &row, &out, &on, &cap), 0);
    CHECK_EQ_INT(on, 1 + 15 + 1 + 8 + 1 + 16 + 32 + 1 + 2 + 16);
    size_t zeros = 0;
    for (size_t i = 16; out && i < on; i++)
        zeros += out[i] == 0;
    CHECK_EQ_INT(zeros, on - 16);
    /* the type: the contract's fields, each with its ODS type */
    CHECK_EQ_STR(wire_tuple_type(),
                 "Tuple(class String, order_id String, user_id UInt64, status LowCardinality(String), "
                 "created_at DateTime64(3, 'UTC'), updated_at DateTime64(3, 'UTC'), items_total Decimal(18, 2), "
                 "discount Decimal(18, 2), delivery Decimal(18, 2), total Decimal(18, 2), items String, "
                 "snapshot_date Date, hashdiff UInt128)");
    free(out);
    wire_row_free(&row);
    free(b);
}

int main(void)
{
    test_parse();
    int n = run_fixture();
    printf("%d fixture cases\n", n);
    run_generated();
    return check_report();
}
