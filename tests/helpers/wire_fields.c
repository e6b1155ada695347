/* wire_fields: prints the contract table (lib/wire_contract.c) for the bats tests, one field a
 * line, with every "%s" filled in, so SQL in tests uses the contract's own text verbatim. */
#include "wire_contract.h"

#include <stdio.h>
#include <string.h>

static void fill(const char *tmpl, const char *name)
{
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '%' && p[1] == 's') { /* every "%s" stands for the key */
            fputs(name, stdout);
            p++;
        } else {
            putchar(*p);
        }
    }
}

int main(int argc, char **argv)
{
    /* default: name<TAB>rule<TAB>ods_type<TAB>sql_extract;
     * --canon: name<TAB>in_hashdiff<TAB>canon_sql (the canonical text of the typed column) */
    int canon = argc > 1 && !strcmp(argv[1], "--canon");
    if (argc > 1 && !canon) {
        fputs("usage: wire_fields [--canon]\n", stderr);
        return 2;
    }
    for (int i = 0; i < WIRE_NFIELDS; i++) {
        const wire_field *f = &WIRE_FIELDS[i];
        static const char *const rule[] = {"TEXT", "USER_ID", "TIMESTAMP", "MONEY", "ITEMS", "DATE"};
        if (canon) {
            printf("%s\t%d\t", f->name, f->in_hashdiff);
            fill(f->canon_sql, f->name);
        } else {
            printf("%s\t%s\t%s\t", f->name, rule[f->rule], f->ods_type);
            fill(f->sql_extract, f->name);
        }
        putchar('\n');
    }
    return 0;
}
