/* hd: the Data Vault hashdiff core: normalises an entity's attribute values per profile, joins
 * them and hashes the result bit for bit as the profile's native ClickHouse SQL expression does. */
#ifndef HD_H
#define HD_H

#include <stddef.h>

/* classic:    ifNull(upperUTF8(trimBoth(x)), '') joined by '||'
 * automatedv: ifNull(nullIf(upperUTF8(trimBoth(x)), ''), '^^') joined by '||'
 * strict:     NULL -> \N, else upperUTF8(trimBoth(NFC(x))) with \ -> \\ and | -> \|;
 *             trailing \N tokens dropped; joined by '|'  (see docs/hashdiff.md) */
typedef enum { HD_CLASSIC, HD_AUTOMATEDV, HD_STRICT } hd_profile;
typedef enum { HD_XXH3_128, HD_SHA256, HD_MD5 } hd_algo;

enum { HD_MAX_DIGEST = 32 };
enum { HD_EINVAL = -1, HD_ENOMEM = -2, HD_EICU = -3, HD_ECRYPTO = -4, HD_ETOOLONG = -5 };

typedef struct {
    const char *msg; /* static text */
    long arg;        /* index of the offending item (column name), or -1 */
} hd_error;

/* 0, or -1 for an unknown name. */
int hd_profile_from_name(const char *name, hd_profile *out);
int hd_algo_from_name(const char *name, hd_algo *out);
const char *hd_profile_name(hd_profile p);
const char *hd_algo_name(hd_algo a);
/* 16 (xxh3_128, md5) or 32 (sha256). */
size_t hd_digest_len(hd_algo a);
/* A static message for an HD_E* code. */
const char *hd_strerror(int code);

typedef struct hd_ctx hd_ctx;

/* NULL when out of memory or ICU / libcrypto cannot be initialised. */
hd_ctx *hd_new(hd_profile profile, hd_algo algo);
void hd_free(hd_ctx *c);

/* One row: hd_begin, hd_add for each attribute in its fixed order, hd_finish. Buffers are
 * kept between rows, so a steady stream of rows allocates nothing. hd_add and hd_finish
 * return 0 or an HD_E* code. hd_finish writes hd_digest_len bytes: for xxh3_128 the UInt128
 * as ClickHouse stores it (16 bytes little-endian, high 64 bits = XXH128 high64); for
 * sha256 / md5 the digest as SHA256() / MD5() return it. A row's memory does not grow with
 * its number of attributes: a joined string beyond 256 KiB is hashed in pieces as it is
 * built (same digest); one attribute is normalised whole. */
void hd_begin(hd_ctx *c);
int hd_add(hd_ctx *c, int is_null, const char *p, size_t n);
int hd_finish(hd_ctx *c, unsigned char *out);

/* Gives back the buffers that grew beyond 1 MiB for a big attribute; call between rows (after
 * hd_finish; hd_joined is then empty). Cheap when nothing grew. */
void hd_trim(hd_ctx *c);

/* The exact bytes the last hd_finish hashed (valid until the next hd_begin or hd_trim), or
 * NULL with *n = 0 when the row was longer than 256 KiB and hashed in pieces. */
const char *hd_joined(const hd_ctx *c, size_t *n);

/* One value through the profile's normalisation (no escaping, no NULL handling):
 * upperUTF8(trimBoth(x)), or for strict upperUTF8(trimBoth(normalizeUTF8NFC(x))) where
 * invalid UTF-8 skips the NFC step. *out is valid until the next call on c. */
int hd_normalize(hd_ctx *c, const char *p, size_t n, const char **out, size_t *out_n);

/* The profile's native SQL expression equal to the UDF over the array [cols...]. Each column
 * name must be non-empty valid UTF-8 without control characters; it is backquoted and
 * escaped. Returns a malloc'd string, or NULL with *err filled (err->arg = bad column). */
char *hd_sql(hd_profile profile, hd_algo algo, const char *const *cols, size_t n_cols,
             hd_error *err);

/* Same, over an arbitrary SQL expression of type Array(Nullable(String)) (trusted text). */
char *hd_sql_expr(hd_profile profile, hd_algo algo, const char *array_expr);

#endif
