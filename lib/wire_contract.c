/* wire_contract: the one table of the contract's 11 fields: key, rule, ODS type and the
 * throwing SQL that types it. Change it here and the classifier, DDL and SQL follow. */
#include "wire_contract.h"

#include <stdio.h>
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

/* The C twins of C_TEXT, C_TIMESTAMP, C_MONEY and the others above, rule by rule. */
size_t wire_canon(const wire_field *f, int64_t i, const char *s, size_t n, char buf[WIRE_CANON_MAX],
                  const char **out)
{
    int len = 0, y, m, d;
    switch (f->rule) {
    case WIRE_RULE_TEXT:
    case WIRE_RULE_ITEMS:
        *out = s;
        return n;
    case WIRE_RULE_USER_ID:
        len = snprintf(buf, WIRE_CANON_MAX, "%llu", (unsigned long long)i);
        break;
    case WIRE_RULE_TIMESTAMP: {
        int64_t day = i >= 0 ? i / 86400000 : -((-i + 86399999) / 86400000);
        int64_t ms = i - day * 86400000;
        civil(day, &y, &m, &d);
        len = snprintf(buf, WIRE_CANON_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d, (int)(ms / 3600000),
                       (int)(ms / 60000 % 60), (int)(ms / 1000 % 60), (int)(ms % 1000));
        break;
    }
    case WIRE_RULE_MONEY: {
        uint64_t a = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
        len = snprintf(buf, WIRE_CANON_MAX, "%s%llu.%02llu", i < 0 ? "-" : "", (unsigned long long)(a / 100),
                       (unsigned long long)(a % 100));
        break;
    }
    case WIRE_RULE_DATE:
        civil(i, &y, &m, &d);
        len = snprintf(buf, WIRE_CANON_MAX, "%04d-%02d-%02d", y, m, d);
        break;
    }
    *out = buf;
    return len > 0 ? (size_t)len : 0;
}
