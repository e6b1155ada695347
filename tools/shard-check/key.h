/* key.h: one sharding-key value of a given ClickHouse type, read as TSV text or RowBinary,
 * and its cityHash64 exactly as ClickHouse computes it for that type. */
#ifndef SC_KEY_H
#define SC_KEY_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SK_STRING,
    SK_FIXED,
    SK_U8, SK_U16, SK_U32, SK_U64,
    SK_I8, SK_I16, SK_I32, SK_I64,
    SK_U128, SK_I128,
    SK_DATE, SK_DATE32, SK_DATETIME,
    SK_UUID
} sk_kind;

typedef struct {
    sk_kind kind;
    unsigned fixed_len; /* FixedString(N) */
} sc_keytype;

/* "String", "FixedString(16)", "UInt64", "Date", … Returns 0, or -1 for an unknown type. */
int sc_keytype_parse(const char *s, sc_keytype *kt);
/* The names sc_keytype_parse accepts, for --help and messages. */
extern const char sc_keytype_names[];

/* Undoes ClickHouse's TSV escaping of one field (in may equal out). Returns the length, or -1
 * with *why set (a static message) when the field cannot come from ClickHouse's TSV writer. */
long sc_tsv_unescape(const char *in, size_t n, char *out, const char **why);

/* cityHash64 of a text value (already unescaped) of type kt. 0, or -1 with *why. Dates and
 * DateTime are read as UTC; DateTime also accepts the Unix timestamp. */
int sc_key_hash_text(const sc_keytype *kt, const char *s, size_t n, uint64_t *h, const char **why);

/* cityHash64 of one RowBinary value at p[0..avail). Returns the bytes consumed, 0 when the
 * value is cut short (need more input), -1 with *why when it is malformed. */
long sc_key_hash_rowbinary(const sc_keytype *kt, const unsigned char *p, size_t avail, uint64_t *h,
                           const char **why);

#endif
