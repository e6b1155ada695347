/* og_emit: writes orders-gen messages: one order snapshot as contract-valid JSON (wire contract
 * v1), and the dirty variants real producers send, each with the class the contract gives it. */
#ifndef OG_EMIT_H
#define OG_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "world.h"

/* Upper bound of one message, dirty or not (a concatenated pair of the largest orders). */
#define OG_MSG_MAX 8192
#define OG_NFIELDS 11

/* What a message is meant to be. Every kind breaks exactly one rule of the contract. */
typedef enum {
    OG_VALID,
    OG_EMPTY,             /* "" or whitespace only */
    OG_TRUNCATED,         /* a strict prefix, cut anywhere (mid UTF-8 sequence too) */
    OG_WRONG_ROOT,        /* [ {...} ], a bare string, number or null */
    OG_INVALID_UTF8,      /* a bad byte sequence inside a string value */
    OG_CONTROL_CHAR,      /* a raw control char inside a string (a raw newline only in RowBinary) */
    OG_CONCATENATED,      /* two objects in one message (newline-separated only in RowBinary) */
    OG_MISSING_KEY,       /* a key dropped, or renamed by a changed case */
    OG_EXTRA_KEY,         /* a 12th key */
    OG_DUPLICATE_KEY,     /* a key:value pair repeated */
    OG_NUMBER_AS_STRING,  /* user_id quoted */
    OG_TS_NO_MILLIS,      /* created_at/updated_at without .mmm */
    OG_TS_OFFSET,         /* created_at/updated_at with +hh:mm instead of Z */
    OG_IMPOSSIBLE_DATE,   /* Feb 30, month 13, hour 24, ... in a timestamp or snapshot_date */
    OG_MONEY_ONE_DECIMAL, /* "12.5" in a money field */
    OG_NKINDS
} og_kind;

/* "valid", "empty", "truncated", ... (what --labels writes). */
const char *og_kind_name(og_kind k);
/* The class the wire contract gives this kind: "", "not_an_object", "keyset_mismatch",
 * "field_invalid". */
const char *og_kind_class(og_kind k);

/* Where each field sits in a valid message: key = its opening quote, [val, end) its value. */
typedef struct {
    uint32_t key, val, end;
} og_span;

typedef struct {
    og_span f[OG_NFIELDS]; /* in og_field_name order */
    uint32_t title;        /* the first byte of the first item's title text */
} og_layout;

/* The keys in the order og_emit_order writes them (the wire contract's 11 keys). */
const char *og_field_name(unsigned k);

/* Writes order o as the snapshot of model day `day` into buf (>= OG_MSG_MAX bytes); returns
 * its length. lay may be NULL. */
size_t og_emit_order(const og_world *w, const og_order *o, uint32_t day, char *buf, og_layout *lay);

/* A dirty kind drawn from the realistic mix (weights in emit.c, table in docs/orders-gen.md). */
og_kind og_dirty_pick(og_rng *r);

/* Writes into out (>= OG_MSG_MAX bytes) the message msg[0..n) made dirty of kind k (not
 * OG_VALID); returns its length. With lines != 0 the result never holds a '\n' or '\r'. */
size_t og_dirty_apply(og_kind k, og_rng *r, int lines, const char *msg, size_t n,
                      const og_layout *lay, char *out);

/* Wire formats, exposed for the tests: each returns the end of what it wrote. */
char *og_put_u64(char *p, uint64_t v);
char *og_put_money(char *p, int64_t cents);            /* 0.00, 12.34, -5.00 */
char *og_put_date(char *p, int64_t day);               /* YYYY-MM-DD of days since 1970-01-01 */
char *og_put_timestamp(char *p, int64_t ms);           /* YYYY-MM-DDTHH:MM:SS.mmmZ */
void og_civil_from_days(int64_t day, int *y, unsigned *m, unsigned *d);
int64_t og_days_from_civil(int y, unsigned m, unsigned d);

#endif
