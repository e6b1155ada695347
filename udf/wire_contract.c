/* wire_contract: the one table of the contract's 11 fields: key, rule, ODS type and the
 * throwing SQL that types it. Change it here and the classifier, DDL and SQL follow. */
#include "wire_contract.h"

#include <string.h>

const wire_field WIRE_FIELDS[WIRE_NFIELDS] = {
    {"order_id", WIRE_RULE_TEXT, "String", "JSONExtract(raw, '%s', 'String')"},
    {"user_id", WIRE_RULE_USER_ID, "UInt64", "toUInt64(JSONExtractRaw(raw, '%s'))"},
    {"status", WIRE_RULE_TEXT, "LowCardinality(String)", "JSONExtract(raw, '%s', 'String')"},
    {"created_at", WIRE_RULE_TIMESTAMP, "DateTime64(3, 'UTC')",
     "toDateTime64(JSONExtract(raw, '%s', 'String'), 3, 'UTC')"},
    {"updated_at", WIRE_RULE_TIMESTAMP, "DateTime64(3, 'UTC')",
     "toDateTime64(JSONExtract(raw, '%s', 'String'), 3, 'UTC')"},
    {"items_total", WIRE_RULE_MONEY, "Decimal(18, 2)", "toDecimal64(JSONExtract(raw, '%s', 'String'), 2)"},
    {"discount", WIRE_RULE_MONEY, "Decimal(18, 2)", "toDecimal64(JSONExtract(raw, '%s', 'String'), 2)"},
    {"delivery", WIRE_RULE_MONEY, "Decimal(18, 2)", "toDecimal64(JSONExtract(raw, '%s', 'String'), 2)"},
    {"total", WIRE_RULE_MONEY, "Decimal(18, 2)", "toDecimal64(JSONExtract(raw, '%s', 'String'), 2)"},
    {"items", WIRE_RULE_ITEMS, "String", "JSONExtractRaw(raw, '%s')"},
    {"snapshot_date", WIRE_RULE_DATE, "Date", "toDate(JSONExtract(raw, '%s', 'String'))"},
};

const wire_field *wire_field_by_name(const char *key, size_t len)
{
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        if (strlen(WIRE_FIELDS[i].name) == len && memcmp(WIRE_FIELDS[i].name, key, len) == 0)
            return &WIRE_FIELDS[i];
    return NULL;
}
