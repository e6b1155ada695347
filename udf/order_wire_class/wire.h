/* wire: the strict classifier of one raw order message against the wire contract v1
 * (wire_contract.h); total: every byte string gets exactly one class. */
#ifndef WIRE_H
#define WIRE_H

#include "hd.h"
#include "jraw.h"
#include "wire_contract.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    WIRE_VALID = 0,        /* "" */
    WIRE_NOT_AN_OBJECT,    /* "not_an_object" */
    WIRE_KEYSET_MISMATCH,  /* "keyset_mismatch" */
    WIRE_FIELD_INVALID     /* "field_invalid" */
} wire_class;

/* The class as the UDF returns it: "", "not_an_object", "keyset_mismatch", "field_invalid". */
const char *wire_class_name(wire_class c);

/* Why a message got its class, for people (--explain); never part of the UDF result. */
typedef struct {
    const char *field; /* the contract key at fault, or NULL */
    char reason[200];  /* e.g. "day 30 does not exist in 2026-02" */
} wire_explain;

/* Bytes p[n .. n+WIRE_PADDING) must be readable (values unspecified): simdjson reads past
 * the end. why may be NULL (the fast path: no formatting, no allocation once the parser has
 * grown to the longest text seen). Not thread-safe (one parser per process). Out of memory is
 * not a class: it prints one line on stderr and aborts. */
#define WIRE_PADDING 64
wire_class wire_classify(const char *p, size_t n, wire_explain *why);

/* The typed fields of a message, in the units of their ODS columns' RowBinary encoding, by
 * WIRE_FIELDS index: USER_ID the value (as unsigned), TIMESTAMP milliseconds since 1970-01-01
 * UTC, MONEY hundredths, DATE days since 1970-01-01 (all in i); TEXT the unescaped string, ITEMS
 * the array as JSONExtractRaw prints it (s, n). Meaningful only when the class is WIRE_VALID.
 * The row owns its buffers (wire_row_free); s[] points into them and into nothing else. */
#define WIRE_TEXT_MAX 128
typedef struct {
    int64_t i[WIRE_NFIELDS];
    const char *s[WIRE_NFIELDS];
    size_t n[WIRE_NFIELDS];
    char text[WIRE_NFIELDS][WIRE_TEXT_MAX];
    jraw items;
    /* _hashdiff (wire_row_hashdiff), the UInt128 as ClickHouse stores it */
    unsigned char hashdiff[16];
} wire_row;

void wire_row_init(wire_row *row);
void wire_row_free(wire_row *row);

/* wire_classify in the same single pass, also filling *row with the typed fields. */
wire_class wire_parse(const char *p, size_t n, wire_row *row);

/* The order's _hashdiff from the typed fields of a valid row: hashdiff_strict (xxh3_128) over the
 * canonical texts (wire_canon) of the fields WIRE_FIELDS marks in_hashdiff, in their order, the
 * same bytes the transition's SQL gives (hd_sql_expr over the canon_sql texts). c is an
 * hd_new(HD_STRICT, HD_XXH3_128) context. Returns 0 or an HD_E* code. */
int wire_row_hashdiff(hd_ctx *c, wire_row *row);

/* The RowBinary encoding of the named Tuple (class, then every field, then hashdiff) that order_wire_parse
 * returns: its type as the engine spells it, and one row's bytes appended to *out (grown with
 * realloc; *cap its size). A rejected row's fields are zero values (empty strings, 0, epoch).
 * Returns 0 or -1 (out of memory). */
const char *wire_tuple_type(void);
int wire_tuple_rowbinary(wire_class c, const wire_row *row, char **out, size_t *n, size_t *cap);

#endif
