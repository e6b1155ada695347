/* wire_contract: the order-snapshot wire contract v1, defined once. The classifier (wire_*),
 * the DDL generator (ods-ddl) and the typed extraction SQL all read this table. */
#ifndef WIRE_CONTRACT_H
#define WIRE_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_CONTRACT_VERSION "order-snapshot-wire-v1"
#define WIRE_NFIELDS 11

/* The value rule of a field; docs/wire-contract.md states each one in words. */
typedef enum {
    WIRE_RULE_TEXT,      /* string, 1–128 bytes after unescaping, no C0 control, no U+007F */
    WIRE_RULE_USER_ID,   /* number, integer literal in 1 … 9223372036854775807 */
    WIRE_RULE_TIMESTAMP, /* string YYYY-MM-DDTHH:MM:SS.mmmZ, real date-time, years 1900–2299 */
    WIRE_RULE_MONEY,     /* string -?(0|[1-9][0-9]{0,15})\.[0-9]{2}, "-0.00" invalid */
    WIRE_RULE_ITEMS,     /* array; every number inside readable without loss of range */
    WIRE_RULE_DATE       /* string YYYY-MM-DD, real date in 1970-01-01 … 2149-06-06 */
} wire_rule;

typedef struct {
    const char *name;     /* JSON key and ODS column name */
    wire_rule rule;
    const char *ods_type; /* ClickHouse column type in ods.order_snapshot_rep */
    /* Throwing SQL conversion from the JSON text in column `raw` to ods_type; "%s" stands
     * for the key (a plain identifier, safe to quote in single quotes). */
    const char *sql_extract;
    /* SQL giving the canonical text of the typed ODS column named by "%s": exactly the wire
     * text the value was typed from (items: the stored array text). The hashdiff is taken over
     * these texts, so equal values always hash equal, whatever the JSON spelling was. */
    const char *canon_sql;
    /* 1: part of the order's state, hashed into _hashdiff; 0: an observation coordinate
     * (snapshot_date), which changes without the order changing. */
    int in_hashdiff;
} wire_field;

/* In the ODS column order. */
extern const wire_field WIRE_FIELDS[WIRE_NFIELDS];

/* The classes of a rejected message, as order_wire_class returns them (an accepted one gets
 * ""), in the order of the wire_class enum from 1; the errors table and the load ledger use
 * these names. */
#define WIRE_NREJECT 3
extern const char *const WIRE_REJECT_CLASSES[WIRE_NREJECT];

/* The canonical text of a typed value, in C: what f->canon_sql gives on the engine for the same
 * value, byte for byte (tests/bats/order_wire_parse.bats proves it on every corpus). The value is
 * in the units of wire_row (wire.h): USER_ID the integer, TIMESTAMP milliseconds since
 * 1970-01-01 UTC, MONEY hundredths, DATE days (in i); TEXT and ITEMS the text (s, n), given back
 * as it is. Formatted values are written into buf. Returns the text's length; *out points to it. */
#define WIRE_CANON_MAX 32
size_t wire_canon(const wire_field *f, int64_t i, const char *s, size_t n, char buf[WIRE_CANON_MAX],
                  const char **out);

/* The field with this exact (unescaped) key, or NULL. */
const wire_field *wire_field_by_name(const char *key, size_t len);

#endif
