/* jraw: re-prints one JSON value, streamed as sj_walk's events, byte for byte as ClickHouse 26.5's
 * JSONExtractRaw prints it (allow_simdjson=1), so the UDF can store the text the SQL would give. */
#ifndef JRAW_H
#define JRAW_H

/* The engine's rules, each checked on it (tests/fixtures/jraw/cases.tsv, tests/bats/jraw.bats):
 * - No whitespace; object members keep their source order, duplicate keys included.
 * - Strings and keys are decoded (escapes, \uXXXX surrogate pairs to UTF-8) and escaped again:
 *   \" \\ \b \f \n \r \t, every other C0 control as \u00XX with upper-case hex, U+2028 and
 *   U+2029 (escaped or raw in the source) as \u2028 \u2029; '/', U+007F and all other
 *   characters raw. A lone surrogate escape makes the engine fail (jraw: JRAW_EINPUT).
 * - An integer (no fraction, no exponent; within [-2^63, 2^64-1]) is printed as written, but
 *   -0 as 0.
 * - Any other number is read as a double and printed with the shortest digits that read back
 *   to it (the closest such, at a power of two possibly above the value): plain when its
 *   decimal exponent e (d.ddd x 10^e) is in [-6, 21) ("100000000000000000000", "0.000001",
 *   "1.5"), else "1e21", "1.5e-7", "5e-324" (no '+', no leading zeros); -0.0 is "-0", an
 *   underflow to zero "0" or "-0".
 * - true, false, null as they are; [] and {} for empty containers.
 *
 * Ownership: the caller owns the jraw struct; jraw owns p (the text) and its private stack and
 * frees them in jraw_free. Both are kept between values (no allocation per value once grown)
 * and given back by jraw_begin after a value that made them grow beyond JRAW_KEEP_BYTES. */

#include "sj.h"

#include <stddef.h>

enum {
    JRAW_OK = 0,
    JRAW_ENOMEM = -1,
    JRAW_EINPUT = -2 /* events or tokens that are not one JSON value as sj_walk reports it */
};

/* A buffer or stack larger than this after a value is freed at the next jraw_begin. */
#define JRAW_KEEP_BYTES ((size_t)4 << 20)

typedef struct {
    char *p;            /* the text, p[0..n), NUL-terminated after a successful jraw_end */
    size_t n, cap;
    /* private */
    unsigned char *st;  /* one byte a container still open, the outermost first */
    size_t st_n, st_cap;
    unsigned base;      /* the depth the value came at */
    int state;
} jraw;

/* Empty and ready for a value (as after jraw_begin); allocates nothing. */
void jraw_init(jraw *j);
void jraw_free(jraw *j);
/* Starts a new value: forgets the previous text, keeps the capacity (up to JRAW_KEEP_BYTES). */
void jraw_begin(jraw *j);
/* sj's key event: a key of an object opened inside the value. */
int jraw_key(jraw *j, unsigned depth, const char *p, const char *end);
/* sj's value event. The first after jraw_begin is the value to print, at any depth D; the
 * events after it must be deeper than D (its content): the caller stops feeding at the first
 * event at depth <= D, which belongs to what follows the value. */
int jraw_value(jraw *j, unsigned depth, sj_kind kind, const char *p, const char *end);
/* Closes every container still open; then p[0..n) is the text. */
int jraw_end(jraw *j);

/* RFC 8259 number grammar over the whole token [p, e): 1 if it is one number, *is_int set when
 * it has no fraction and no exponent; 0 if not. The classifier's check and jraw's, in one place. */
int jraw_num_lex(const char *p, const char *e, int *is_int);
/* Every call returns JRAW_OK or a negative code; after an error, every call up to the next
 * jraw_begin returns that error again (so jraw_end tells it after a walk a callback stopped). */

#endif
