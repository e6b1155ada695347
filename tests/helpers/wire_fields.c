/* wire_fields: prints the contract table (lib/wire_contract.c) for the bats tests, one field a
 * line: name<TAB>rule<TAB>ods_type<TAB>sql_extract with %s filled in, so SQL in tests uses it verbatim. */
#include "wire_contract.h"

#include <stdio.h>

int main(void)
{
    for (int i = 0; i < WIRE_NFIELDS; i++) {
        const wire_field *f = &WIRE_FIELDS[i];
        static const char *const rule[] = {"TEXT", "USER_ID", "TIMESTAMP", "MONEY", "ITEMS", "DATE"};
        printf("%s\t%s\t%s\t", f->name, rule[f->rule], f->ods_type);
        for (const char *p = f->sql_extract; *p; p++) {
            if (p[0] == '%' && p[1] == 's') { /* every "%s" stands for the key */
                fputs(f->name, stdout);
                p++;
            } else {
                putchar(*p);
            }
        }
        putchar('\n');
    }
    return 0;
}
