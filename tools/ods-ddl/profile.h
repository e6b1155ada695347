/* profile: the id of the hashdiff this version computes (wire contract, hashdiff_strict over
 * the contract's canonical texts), recorded with every stored version and every ledger row. */
#ifndef PROFILE_H
#define PROFILE_H

#include <stdio.h>

/* "WIRE_CONTRACT_VERSION/strict/xxh3_128/HEX": HEX is cityHash64 of the native SQL expression
 * that defines _hashdiff (hd_sql_expr over ddl_hashdiff_args), so any change to a canonical
 * text, the fields hashed, their order, the normalisation or the algorithm gives another id.
 * A static string, or NULL when it cannot be computed (out of memory). */
const char *ddl_hashdiff_profile(void);

/* The native SQL expression of _hashdiff over the typed columns (malloc-ed), or NULL. */
char *ddl_hashdiff_sql(void);

/* The one reading of the ODS's profile (the default of _rep's _hashdiff_profile, which every
 * stored row takes), as a subquery of one row: _n (0: the column is missing), _have (its
 * default as the engine prints it) and _same (it is this version's). *st as sqlw's. */
void ddl_profile_read(int *st, FILE *out, const char *ods_db);

#endif
