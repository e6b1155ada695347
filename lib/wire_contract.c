/* wire_contract: the one table of the contract's 11 fields: key, rule, ODS type and the
 * throwing SQL that types it. Change it here and the classifier, DDL and SQL follow. */
#include "wire_contract.h"

#include <string.h>

/* The sql_extract templates, each checked on the engine (tests/bats/ods-ddl.bats). Every one
 * yields exactly the value the contract's text denotes, or throws; the obvious spellings do
 * not: toDate('2026-02-30') is 2026-03-02, toDateTime64 turns 24:00 and :60 into the next day
 * and drops a 4th fraction digit, toDecimal64('1.234', 2) is 1.23, JSONExtract(.., 'String')
 * of a number is its text and of a missing key '', JSONExtractRaw prints 1.0 as 1. Hence: a
 * JSON type check (NULL cast to a non-Nullable type throws), the contract's exact shape as a
 * regular expression over JSONExtractRaw's quoted text (no match gives '', which no parser
 * accepts), and Joda parsing, which rejects impossible dates and times. "%s" may occur more
 * than once: each one stands for the key. */
#define X_TEXT "CAST(if(JSONType(raw, '%s') = 'String', JSONExtractString(raw, '%s'), NULL) AS String)"
#define X_TIMESTAMP                                                                  \
    "parseDateTime64InJodaSyntax(extract(JSONExtractRaw(raw, '%s'), "                \
    "'^\"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z)\"$'), " \
    "'yyyy-MM-dd''T''HH:mm:ss.SSS''Z''', 'UTC')"
#define X_MONEY                                                                       \
    "toDecimal64(extract(JSONExtractRaw(raw, '%s'), "                                 \
    "'^\"(0[.]00|-?(?:0[.](?:0[1-9]|[1-9][0-9])|[1-9][0-9]{0,15}[.][0-9]{2}))\"$'), 2)"

/* The canonical texts, checked on the engine: toString of a Decimal drops trailing zeros (10.00
 * prints 10), toDecimalString keeps the scale; toString of a DateTime64(3) is the wire form with
 * a space for the T and no Z. */
#define C_TEXT "toString(%s)"
#define C_TIMESTAMP "concat(replaceOne(toString(%s, 'UTC'), ' ', 'T'), 'Z')"
#define C_MONEY "toDecimalString(%s, 2)"

const wire_field WIRE_FIELDS[WIRE_NFIELDS] = {
    {"order_id", WIRE_RULE_TEXT, "String", X_TEXT, C_TEXT, 1},
    {"user_id", WIRE_RULE_USER_ID, "UInt64",
     "toUInt64(extract(concat(JSONType(raw, '%s'), ' ', JSONExtractRaw(raw, '%s')), "
     "'^Int64 ([1-9][0-9]*)$'))", "toString(%s)", 1},
    {"status", WIRE_RULE_TEXT, "LowCardinality(String)", X_TEXT, C_TEXT, 1},
    {"created_at", WIRE_RULE_TIMESTAMP, "DateTime64(3, 'UTC')", X_TIMESTAMP, C_TIMESTAMP, 1},
    {"updated_at", WIRE_RULE_TIMESTAMP, "DateTime64(3, 'UTC')", X_TIMESTAMP, C_TIMESTAMP, 1},
    {"items_total", WIRE_RULE_MONEY, "Decimal(18, 2)", X_MONEY, C_MONEY, 1},
    {"discount", WIRE_RULE_MONEY, "Decimal(18, 2)", X_MONEY, C_MONEY, 1},
    {"delivery", WIRE_RULE_MONEY, "Decimal(18, 2)", X_MONEY, C_MONEY, 1},
    {"total", WIRE_RULE_MONEY, "Decimal(18, 2)", X_MONEY, C_MONEY, 1},
    /* Stored as JSONExtractRaw prints the array (minified, numbers re-printed), not its bytes. */
    {"items", WIRE_RULE_ITEMS, "String",
     "CAST(if(JSONType(raw, '%s') = 'Array', JSONExtractRaw(raw, '%s'), NULL) AS String)", "%s", 1},
    {"snapshot_date", WIRE_RULE_DATE, "Date",
     "toDate(parseDateTime64InJodaSyntax(extract(JSONExtractRaw(raw, '%s'), "
     "'^\"((?:19[7-9][0-9]|20[0-9]{2}|21[0-3][0-9]|214[0-8])-[0-9]{2}-[0-9]{2}"
     "|2149-0[1-5]-[0-9]{2}|2149-06-0[1-6])\"$'), 'yyyy-MM-dd', 'UTC'))", "toString(%s)", 0},
};

const char *const WIRE_REJECT_CLASSES[WIRE_NREJECT] = {"not_an_object", "keyset_mismatch", "field_invalid"};

const wire_field *wire_field_by_name(const char *key, size_t len)
{
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        if (strlen(WIRE_FIELDS[i].name) == len && memcmp(WIRE_FIELDS[i].name, key, len) == 0)
            return &WIRE_FIELDS[i];
    return NULL;
}

/* Days since 1970-01-01 to the proleptic Gregorian date (H. Hinnant's civil_from_days). */
static void civil(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/* Decimal digits by hand: snprintf was a quarter of order_wire_parse's time (perf, 200 000
 * messages). */
static size_t put_uint(char *b, uint64_t v)
{
    char t[20];
    size_t n = 0;
    do
        t[n++] = (char)('0' + v % 10);
    while (v /= 10);
    for (size_t i = 0; i < n; i++)
        b[i] = t[n - 1 - i];
    return n;
}

/* v in 0 .. 10^w - 1, w digits with leading zeros */
static void put_fixed(char *b, unsigned v, int w)
{
    for (int i = w - 1; i >= 0; i--, v /= 10)
        b[i] = (char)('0' + v % 10);
}

/* "YYYY-MM-DD" (years 0 .. 9999) */
static size_t put_date(char *b, int64_t day)
{
    int y, m, d;
    civil(day, &y, &m, &d);
    put_fixed(b, (unsigned)y, 4);
    b[4] = '-';
    put_fixed(b + 5, (unsigned)m, 2);
    b[7] = '-';
    put_fixed(b + 8, (unsigned)d, 2);
    return 10;
}

/* The C twins of C_TEXT, C_TIMESTAMP, C_MONEY and the others above, rule by rule. */
size_t wire_canon(const wire_field *f, int64_t i, const char *s, size_t n, char buf[WIRE_CANON_MAX],
                  const char **out)
{
    size_t len = 0;
    *out = buf;
    switch (f->rule) {
    case WIRE_RULE_TEXT:
    case WIRE_RULE_ITEMS:
        *out = s;
        return n;
    case WIRE_RULE_USER_ID:
        len = put_uint(buf, (uint64_t)i);
        break;
    case WIRE_RULE_TIMESTAMP: {
        int64_t day = i >= 0 ? i / 86400000 : -((-i + 86399999) / 86400000);
        unsigned ms = (unsigned)(i - day * 86400000);
        len = put_date(buf, day);
        buf[len++] = 'T';
        put_fixed(buf + len, ms / 3600000, 2);
        buf[len + 2] = ':';
        put_fixed(buf + len + 3, ms / 60000 % 60, 2);
        buf[len + 5] = ':';
        put_fixed(buf + len + 6, ms / 1000 % 60, 2);
        buf[len + 8] = '.';
        put_fixed(buf + len + 9, ms % 1000, 3);
        buf[len + 12] = 'Z';
        len += 13;
        break;
    }
    case WIRE_RULE_MONEY: {
        uint64_t a = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
        if (i < 0)
            buf[len++] = '-';
        len += put_uint(buf + len, a / 100);
        buf[len++] = '.';
        put_fixed(buf + len, (unsigned)(a % 100), 2);
        len += 2;
        break;
    }
    case WIRE_RULE_DATE:
        len = put_date(buf, i);
        break;
    }
    return len;
}
