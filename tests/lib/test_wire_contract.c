/* test_wire_contract: the contract table's own invariants (names, rules, types, SQL templates)
 * and its lookup, which the classifier, ods-ddl and the typing SQL all rely on. */
#include "check.h"
#include "wire_contract.h"

#include <ctype.h>
#include <string.h>

/* A key is a plain identifier: ods-ddl quotes it in single quotes and backticks unescaped. */
static int plain_identifier(const char *s)
{
    if (!*s || !(islower((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* The only conversion in a template is "%s" (a stray % would be read as a printf directive). */
static int only_percent_s(const char *t, int *count)
{
    *count = 0;
    for (const char *p = strchr(t, '%'); p; p = strchr(p + 2, '%')) {
        if (p[1] != 's')
            return 0;
        (*count)++;
    }
    return 1;
}

int main(void)
{
    static const char *const want[WIRE_NFIELDS] = {
        "order_id", "user_id", "status", "created_at", "updated_at", "items_total",
        "discount", "delivery", "total", "items", "snapshot_date"};
    CHECK_EQ_STR(WIRE_CONTRACT_VERSION, "order-snapshot-wire-v1");
    for (int i = 0; i < WIRE_NFIELDS; i++) {
        const wire_field *f = &WIRE_FIELDS[i];
        CHECK_EQ_STR(f->name, want[i]); /* the ODS column order */
        CHECK(plain_identifier(f->name));
        CHECK(strlen(f->name) <= 16); /* the classifier compares keys as two words */
        CHECK(f->ods_type != NULL && f->ods_type[0] != 0);
        int n = 0;
        CHECK(only_percent_s(f->sql_extract, &n));
        CHECK(n >= 1);
        /* lookup finds exactly this entry, and nothing by a prefix or an extension */
        CHECK(wire_field_by_name(f->name, strlen(f->name)) == f);
        CHECK(wire_field_by_name(f->name, strlen(f->name) - 1) == NULL ||
              strlen(wire_field_by_name(f->name, strlen(f->name) - 1)->name) == strlen(f->name) - 1);
        char longer[40];
        snprintf(longer, sizeof longer, "%sx", f->name);
        CHECK(wire_field_by_name(longer, strlen(longer)) == NULL);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(WIRE_FIELDS[j].name, f->name) != 0);
    }
    /* The hashdiff covers the 10 state fields; snapshot_date is an observation coordinate.
     * Every canonical text is a template over the column, like the extraction SQL. */
    int hashed = 0;
    for (int i = 0; i < WIRE_NFIELDS; i++) {
        int n = 0;
        CHECK(WIRE_FIELDS[i].canon_sql != NULL);
        CHECK(only_percent_s(WIRE_FIELDS[i].canon_sql, &n));
        CHECK_EQ_INT(n, 1);
        hashed += WIRE_FIELDS[i].in_hashdiff != 0;
    }
    CHECK_EQ_INT(hashed, 10);
    CHECK_EQ_INT(wire_field_by_name("snapshot_date", 13)->in_hashdiff, 0);
    /* ods-ddl's change gate relies on it: versions with different updated_at never hash alike */
    CHECK_EQ_INT(wire_field_by_name("updated_at", 10)->in_hashdiff, 1);
    CHECK_EQ_STR(wire_field_by_name("total", 5)->canon_sql, "toDecimalString(%s, 2)");

    /* Types and rules that the DDL and the classifier must agree on. */
    CHECK_EQ_INT(wire_field_by_name("user_id", 7)->rule, WIRE_RULE_USER_ID);
    CHECK_EQ_STR(wire_field_by_name("user_id", 7)->ods_type, "UInt64");
    CHECK_EQ_STR(wire_field_by_name("created_at", 10)->ods_type, "DateTime64(3, 'UTC')");
    CHECK_EQ_STR(wire_field_by_name("total", 5)->ods_type, "Decimal(18, 2)");
    CHECK_EQ_INT(wire_field_by_name("items", 5)->rule, WIRE_RULE_ITEMS);
    CHECK_EQ_INT(wire_field_by_name("snapshot_date", 13)->rule, WIRE_RULE_DATE);
    CHECK_EQ_STR(wire_field_by_name("snapshot_date", 13)->ods_type, "Date");
    CHECK(wire_field_by_name("", 0) == NULL);
    CHECK(wire_field_by_name("order_id\0", 9) == NULL); /* lengths count, not C strings */
    return check_report();
}
