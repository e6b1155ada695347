/* og_emit: the JSON writer of orders-gen (hand-rolled digits, no printf: it is the hot loop)
 * and the dirty mutations, each a splice of a valid message that breaks exactly one rule. */
#include "emit.h"

#include <string.h>

static const char *const FIELD_NAMES[OG_NFIELDS] = {
    "order_id", "user_id",  "status",   "created_at", "updated_at",   "items_total",
    "discount", "delivery", "total",    "items",      "snapshot_date",
};
enum { F_ORDER_ID, F_USER_ID, F_STATUS, F_CREATED, F_UPDATED, F_ITEMS_TOTAL, F_DISCOUNT,
       F_DELIVERY, F_TOTAL, F_ITEMS, F_SNAPSHOT_DATE };

const char *og_field_name(unsigned k)
{
    return k < OG_NFIELDS ? FIELD_NAMES[k] : NULL;
}

static const char *const KIND_NAMES[OG_NKINDS] = {
    "valid",         "empty",       "truncated",        "wrong_root",       "invalid_utf8",
    "control_char",  "concatenated", "missing_key",     "extra_key",        "duplicate_key",
    "number_as_string", "ts_no_millis", "ts_offset",    "impossible_date",  "money_one_decimal",
};

const char *og_kind_name(og_kind k)
{
    return KIND_NAMES[k];
}

const char *og_kind_class(og_kind k)
{
    if (k == OG_VALID)
        return "";
    if (k <= OG_CONCATENATED)
        return "not_an_object";
    if (k <= OG_DUPLICATE_KEY)
        return "keyset_mismatch";
    return "field_invalid";
}

/* ---- scalar formats ---- */

char *og_put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

char *og_put_money(char *p, int64_t cents)
{
    uint64_t u = cents < 0 ? (uint64_t)0 - (uint64_t)cents : (uint64_t)cents;
    if (cents < 0)
        *p++ = '-';
    p = og_put_u64(p, u / 100);
    *p++ = '.';
    *p++ = (char)('0' + u % 100 / 10);
    *p++ = (char)('0' + u % 10);
    return p;
}

static char *put2(char *p, unsigned v)
{
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

/* Days since 1970-01-01 to the proleptic Gregorian calendar and back (the era arithmetic of
 * the 400-year cycle, 146097 days; day 0 of the shifted year is March 1st). */
void og_civil_from_days(int64_t day, int *y, unsigned *m, unsigned *d)
{
    int64_t z = day + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int)((int64_t)yoe + era * 400 + (*m <= 2));
}

int64_t og_days_from_civil(int y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

char *og_put_date(char *p, int64_t day)
{
    int y;
    unsigned m, d;
    og_civil_from_days(day, &y, &m, &d);
    p = put2(p, (unsigned)y / 100);
    p = put2(p, (unsigned)y % 100);
    *p++ = '-';
    p = put2(p, m);
    *p++ = '-';
    return put2(p, d);
}

char *og_put_timestamp(char *p, int64_t ms)
{
    int64_t day = ms / OG_DAY_MS, r = ms % OG_DAY_MS;
    if (r < 0) {
        r += OG_DAY_MS;
        day--;
    }
    p = og_put_date(p, day);
    unsigned s = (unsigned)(r / 1000), milli = (unsigned)(r % 1000);
    *p++ = 'T';
    p = put2(p, s / 3600);
    *p++ = ':';
    p = put2(p, s / 60 % 60);
    *p++ = ':';
    p = put2(p, s % 60);
    *p++ = '.';
    *p++ = (char)('0' + milli / 100);
    p = put2(p, milli % 100);
    *p++ = 'Z';
    return p;
}

/* ---- one valid message ---- */

static char *put_lit(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}
#define PUT(p, lit) put_lit((p), (lit), sizeof(lit) - 1)

static char *put_str(char *p, const char *s)
{
    return put_lit(p, s, strlen(s));
}

/* Opens field k: the separator, the key and the colon; records where it starts. */
static char *put_key(char *p, const char *base, unsigned k, og_layout *lay)
{
    if (k)
        *p++ = ',';
    lay->f[k].key = (uint32_t)(p - base);
    *p++ = '"';
    p = put_str(p, FIELD_NAMES[k]);
    *p++ = '"';
    *p++ = ':';
    lay->f[k].val = (uint32_t)(p - base);
    return p;
}

static char *put_quoted_money(char *p, int64_t cents)
{
    *p++ = '"';
    p = og_put_money(p, cents);
    *p++ = '"';
    return p;
}

static char *put_hex64(char *p, uint64_t v)
{
    static const char HEX[] = "0123456789ABCDEF";
    for (int i = 15; i >= 0; i--) {
        p[i] = HEX[v & 15];
        v >>= 4;
    }
    return p + 16;
}

static char *put_items(char *p, const char *base, const og_order *o, og_layout *lay)
{
    *p++ = '[';
    for (unsigned k = 0; k < o->nitems; k++) {
        const og_item *it = &o->items[k];
        if (k)
            *p++ = ',';
        p = PUT(p, "{\"sku\":\"SKU-");
        uint32_t s = it->product;
        p = put2(p, s / 10000 % 100);
        p = put2(p, s / 100 % 100);
        p = put2(p, s % 100);
        p = PUT(p, "\",\"title\":\"");
        if (k == 0)
            lay->title = (uint32_t)(p - base);
        const char *w1, *w2;
        og_product_title(it->product, &w1, &w2);
        p = put_str(p, w1);
        *p++ = ' ';
        p = put_str(p, w2);
        p = PUT(p, "\",\"qty\":");
        p = og_put_u64(p, it->qty);
        p = PUT(p, ",\"price\":");
        p = put_quoted_money(p, it->price);
        *p++ = '}';
    }
    *p++ = ']';
    return p;
}

size_t og_emit_order(const og_world *w, const og_order *o, uint32_t day, char *buf, og_layout *lay)
{
    og_layout scratch;
    if (!lay)
        lay = &scratch;
    char *p = buf;
    *p++ = '{';
    p = put_key(p, buf, F_ORDER_ID, lay);
    p = PUT(p, "\"ORD-");
    p = put_hex64(p, o->id);
    *p++ = '"';
    lay->f[F_ORDER_ID].end = (uint32_t)(p - buf);
    p = put_key(p, buf, F_USER_ID, lay);
    p = og_put_u64(p, o->user_id);
    lay->f[F_USER_ID].end = (uint32_t)(p - buf);
    p = put_key(p, buf, F_STATUS, lay);
    *p++ = '"';
    p = put_str(p, og_status_name(o->status));
    *p++ = '"';
    lay->f[F_STATUS].end = (uint32_t)(p - buf);
    p = put_key(p, buf, F_CREATED, lay);
    *p++ = '"';
    p = og_put_timestamp(p, o->created_ms);
    *p++ = '"';
    lay->f[F_CREATED].end = (uint32_t)(p - buf);
    p = put_key(p, buf, F_UPDATED, lay);
    *p++ = '"';
    p = og_put_timestamp(p, o->updated_ms);
    *p++ = '"';
    lay->f[F_UPDATED].end = (uint32_t)(p - buf);
    const int64_t money[4] = {o->items_total, o->discount, o->delivery, o->total};
    for (unsigned k = 0; k < 4; k++) {
        p = put_key(p, buf, F_ITEMS_TOTAL + k, lay);
        p = put_quoted_money(p, money[k]);
        lay->f[F_ITEMS_TOTAL + k].end = (uint32_t)(p - buf);
    }
    p = put_key(p, buf, F_ITEMS, lay);
    p = put_items(p, buf, o, lay);
    lay->f[F_ITEMS].end = (uint32_t)(p - buf);
    p = put_key(p, buf, F_SNAPSHOT_DATE, lay);
    *p++ = '"';
    p = og_put_date(p, w->start_day + day);
    *p++ = '"';
    lay->f[F_SNAPSHOT_DATE].end = (uint32_t)(p - buf);
    *p++ = '}';
    return (size_t)(p - buf);
}

/* ---- dirty variants ---- */

/* How often each kind appears among dirty messages, in per mille (docs/orders-gen.md has the
 * table): producers mostly truncate, drift in schema and get time and money formats wrong. */
static const uint16_t DIRTY_WEIGHTS[OG_NKINDS] = {
    [OG_VALID] = 0,
    [OG_EMPTY] = 50,
    [OG_TRUNCATED] = 140,
    [OG_WRONG_ROOT] = 40,
    [OG_INVALID_UTF8] = 60,
    [OG_CONTROL_CHAR] = 30,
    [OG_CONCATENATED] = 20,
    [OG_MISSING_KEY] = 110,
    [OG_EXTRA_KEY] = 100,
    [OG_DUPLICATE_KEY] = 50,
    [OG_NUMBER_AS_STRING] = 90,
    [OG_TS_NO_MILLIS] = 100,
    [OG_TS_OFFSET] = 80,
    [OG_IMPOSSIBLE_DATE] = 60,
    [OG_MONEY_ONE_DECIMAL] = 70,
};

og_kind og_dirty_pick(og_rng *r)
{
    return (og_kind)og_rng_pick(r, DIRTY_WEIGHTS, OG_NKINDS);
}

/* out = msg[0..at) + ins[0..ins_n) + msg[at+del..n); returns the new length. */
static size_t splice(char *out, const char *msg, size_t n, size_t at, size_t del, const char *ins,
                     size_t ins_n)
{
    memcpy(out, msg, at);
    memcpy(out + at, ins, ins_n);
    memcpy(out + at + ins_n, msg + at + del, n - at - del);
    return n - del + ins_n;
}

static const char *pick_str(og_rng *r, const char *const *v, unsigned n)
{
    return v[og_rng_below(r, n)];
}
#define PICK(r, arr) pick_str((r), (arr), sizeof(arr) / sizeof *(arr))

static int is_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

size_t og_dirty_apply(og_kind k, og_rng *r, int lines, const char *msg, size_t n,
                      const og_layout *lay, char *out)
{
    const og_span *f = lay->f;
    switch (k) {
    case OG_VALID:
        break;
    case OG_EMPTY: {
        static const char *const LINE[] = {"", "", "", "", " ", "  \t"};
        static const char *const BIN[] = {"", "", "", " ", "\n", "\r\n"};
        const char *s = lines ? PICK(r, LINE) : PICK(r, BIN);
        size_t sn = strlen(s);
        memcpy(out, s, sn);
        return sn;
    }
    case OG_TRUNCATED: {
        size_t cut = (size_t)og_rng_range(r, 1, (int64_t)n - 1);
        memcpy(out, msg, cut);
        return cut;
    }
    case OG_WRONG_ROOT: {
        uint32_t v = og_rng_below(r, 10);
        if (v < 6) { /* a batch of one */
            out[0] = '[';
            memcpy(out + 1, msg, n);
            out[n + 1] = ']';
            return n + 2;
        }
        const og_span *s = &f[v < 8 ? F_ORDER_ID : F_USER_ID];
        if (v == 8) {
            memcpy(out, "null", 4);
            return 4;
        }
        memcpy(out, msg + s->val, s->end - s->val);
        return s->end - s->val;
    }
    case OG_INVALID_UTF8: {
        /* a stray byte, a bad continuation, an encoded surrogate, an overlong '/', Latin-1 é,
         * a code point above U+10FFFF, a cut 3-byte sequence; all before an ASCII char */
        static const char *const SEQ[] = {"\xFF", "\xC3\x28", "\xED\xA0\x80", "\xC0\xAF",
                                          "\xE9", "\xF4\x90\x80\x80", "\xE2\x82"};
        const char *s = PICK(r, SEQ);
        size_t at = og_rng_below(r, 10) < 7 ? lay->title : f[F_ORDER_ID].val + 1;
        return splice(out, msg, n, at, 0, s, strlen(s));
    }
    case OG_CONTROL_CHAR: {
        static const char *const LINE[] = {"\t", "\x01", "\x1F"};
        static const char *const BIN[] = {"\n", "\n", "\r\n", "\t", "\x00"};
        const char *s;
        size_t sn;
        if (lines) {
            s = PICK(r, LINE);
            sn = 1;
        } else {
            unsigned v = og_rng_below(r, 5);
            s = BIN[v];
            sn = v == 2 ? 2 : 1; /* "\x00" is one byte, strlen would say 0 */
        }
        return splice(out, msg, n, lay->title, 0, s, sn);
    }
    case OG_CONCATENATED: {
        size_t m = n;
        memcpy(out, msg, n);
        if (!lines && og_rng_below(r, 2))
            out[m++] = '\n';
        memcpy(out + m, msg, n);
        return m + n;
    }
    case OG_MISSING_KEY: {
        unsigned fk = og_rng_below(r, OG_NFIELDS);
        if (og_rng_below(r, 10) < 3) { /* Status, Order_id: a producer's case drift */
            size_t at = f[fk].key + 1;
            char c = (char)(msg[at] - 'a' + 'A');
            return splice(out, msg, n, at, 1, &c, 1);
        }
        if (fk == 0) /* the pair and the comma after it */
            return splice(out, msg, n, f[0].key, f[1].key - f[0].key, "", 0);
        return splice(out, msg, n, f[fk - 1].end, f[fk].end - f[fk - 1].end, "", 0);
    }
    case OG_EXTRA_KEY: {
        static const char *const EXTRA[] = {",\"currency\":\"EUR\"", ",\"coupon_code\":null",
                                            ",\"_version\":3", ",\"channel\":\"web\"",
                                            ",\"orderId\":\"x\""};
        const char *s = PICK(r, EXTRA);
        return splice(out, msg, n, n - 1, 0, s, strlen(s));
    }
    case OG_DUPLICATE_KEY: {
        unsigned fk = og_rng_below(r, OG_NFIELDS);
        size_t len = f[fk].end - f[fk].key;
        memcpy(out, msg, n - 1);
        out[n - 1] = ',';
        memcpy(out + n, msg + f[fk].key, len);
        out[n + len] = '}';
        return n + len + 1;
    }
    case OG_NUMBER_AS_STRING: {
        const og_span *s = &f[F_USER_ID];
        memcpy(out, msg, s->val);
        size_t m = s->val;
        out[m++] = '"';
        memcpy(out + m, msg + s->val, s->end - s->val);
        m += s->end - s->val;
        out[m++] = '"';
        memcpy(out + m, msg + s->end, n - s->end);
        return m + n - s->end;
    }
    case OG_TS_NO_MILLIS: {
        const og_span *s = &f[og_rng_below(r, 2) ? F_UPDATED : F_CREATED];
        return splice(out, msg, n, s->val + 20, 4, "", 0); /* ".mmm" */
    }
    case OG_TS_OFFSET: {
        static const char *const OFF[] = {"+00:00", "+03:00", "-05:00", "+05:30", "+0100"};
        const og_span *s = &f[og_rng_below(r, 2) ? F_UPDATED : F_CREATED];
        const char *o = PICK(r, OFF);
        if (og_rng_below(r, 4) == 0) /* "…:SS+03:00", no millis either */
            return splice(out, msg, n, s->val + 20, 5, o, strlen(o));
        return splice(out, msg, n, s->val + 24, 1, o, strlen(o));
    }
    case OG_IMPOSSIBLE_DATE: {
        static const char *const MD[] = {"02-30", "02-31", "04-31", "06-31", "09-31", "11-31",
                                         "13-01", "00-15", "07-00", "12-32", "02-29"};
        static const char *const HMS[] = {"24", "60", "60"};
        unsigned which = og_rng_below(r, 3);
        const og_span *s = &f[which == 0 ? F_CREATED : which == 1 ? F_UPDATED : F_SNAPSHOT_DATE];
        unsigned v = og_rng_below(r, which < 2 ? 14 : 11);
        if (v >= 11) /* hour 24, minute 60 or second 60 */
            return splice(out, msg, n, s->val + 12 + 3 * (v - 11), 2, HMS[v - 11], 2);
        int year = (msg[s->val + 1] - '0') * 1000 + (msg[s->val + 2] - '0') * 100 +
                   (msg[s->val + 3] - '0') * 10 + (msg[s->val + 4] - '0');
        if (v == 10 && is_leap(year)) /* Feb 29 exists in leap years */
            v = 0;
        return splice(out, msg, n, s->val + 6, 5, MD[v], 5);
    }
    case OG_MONEY_ONE_DECIMAL: {
        const og_span *s = &f[F_ITEMS_TOTAL + og_rng_below(r, 4)];
        return splice(out, msg, n, s->end - 2, 1, "", 0); /* the last digit */
    }
    case OG_NKINDS:
        break;
    }
    memcpy(out, msg, n);
    return n;
}
