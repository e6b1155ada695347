/* profile: the hashdiff's identity, derived from its one definition rather than declared, so a
 * release that changes the canonical text cannot keep the old id by oversight. */
#include "profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "city.h"
#include "ddl.h"
#include "hd.h"
#include "sqlw.h"

char *ddl_hashdiff_sql(void)
{
    char *arr = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&arr, &len);
    if (!m)
        return NULL;
    int rc = ddl_hashdiff_args(m);
    if (fclose(m) != 0 || rc < 0) {
        free(arr);
        return NULL;
    }
    char *sql = hd_sql_expr(HD_STRICT, HD_XXH3_128, arr);
    free(arr);
    return sql;
}

const char *ddl_hashdiff_profile(void)
{
    static char id[128];
    if (id[0])
        return id;
    char *sql = ddl_hashdiff_sql();
    if (!sql)
        return NULL;
    snprintf(id, sizeof id, "%s/%s/%s/%016" PRIx64, WIRE_CONTRACT_VERSION, hd_profile_name(HD_STRICT),
             hd_algo_name(HD_XXH3_128), city_hash64(sql, strlen(sql)));
    free(sql);
    return id;
}

void ddl_profile_read(int *st, FILE *out, const char *ods_db)
{
    const char *p = ddl_hashdiff_profile();
    if (!p) {
        *st = DDL_EIO;
        return;
    }
    sqlw_put(st, out, "(SELECT count() AS _n, any(default_expression) AS _have, _have = concat('''', ");
    sqlw_quote(st, out, p);
    sqlw_put(st, out, ", '''') AS _same FROM system.columns WHERE database = ");
    sqlw_quote(st, out, ods_db);
    sqlw_put(st, out, " AND table = 'order_snapshot_rep' AND name = '_hashdiff_profile')");
}
