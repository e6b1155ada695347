/* sj: the project's only C++ (sj.cpp), a narrow C face over simdjson: walks EVERY value of one
 * JSON text with On-Demand, or hands over the root members of DOM's checked tree, to C callbacks. */
#ifndef SJ_H
#define SJ_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds by the value's first byte. The callback checks the token's bytes (escapes, the number
 * grammar, its range); sj then consumes every scalar with a simdjson getter, so no byte is left
 * to On-Demand's skipping, which does not validate what it skips. */
typedef enum { SJ_OBJECT, SJ_ARRAY, SJ_STRING, SJ_NUMBER, SJ_TRUE, SJ_FALSE, SJ_NULL } sj_kind;

/* Readable bytes required after the text (simdjson's SIMDJSON_PADDING). */
#define SJ_PADDING 64
/* Deepest level a value may sit at: the root is level 1, every value one level deeper than its
 * container, scalars and empty containers included (the engine's isValidJSON, measured). */
#define SJ_MAX_LEVEL 1024
/* Parser capacity kept between texts; a longer text gets buffers of its own size, freed after. */
#define SJ_KEEP_BYTES ((size_t)1 << 20)

typedef struct {
    /* A key of an object whose values are at `depth` (1: the root object's keys); [p, end) is
     * its body between the quotes, still escaped. simdjson has checked the string's bounds, raw
     * control characters and UTF-8, not its escapes. */
    int (*key)(void *ctx, unsigned depth, const char *p, const char *end);
    /* A value at `depth` (0: the root). SJ_STRING: [p, end) is the body between the quotes, as
     * for keys. SJ_NUMBER/TRUE/FALSE/NULL: [p, end) is the whole token (trailing whitespace
     * cut), unchecked. SJ_OBJECT/SJ_ARRAY: p, end NULL; the content follows as further calls. */
    int (*value)(void *ctx, unsigned depth, sj_kind kind, const char *p, const char *end);
} sj_visitor;

enum {
    SJ_OK = 0,
    SJ_ESYNTAX = -1, /* not one RFC 8259 JSON text (err.msg says why) */
    SJ_ESTOP = -2,   /* a callback returned nonzero */
    SJ_ENOMEM = -3,
    SJ_ENOTOBJ = -4  /* sj_members: one JSON text, its root not an object */
};

typedef struct {
    const char *msg; /* static text */
    size_t pos;      /* byte offset near the fault, when known */
} sj_error;

typedef struct sj_parser sj_parser;

/* NULL when out of memory. One parser serves any number of texts, one at a time; it keeps
 * its buffers (grown to the largest text seen) so a walk allocates nothing. */
sj_parser *sj_new(void);
void sj_free(sj_parser *sp);

/* Walks the text p[0..n) (p[n .. n+SJ_PADDING) readable). Stops at the first structural error,
 * the first nonzero callback, or a value deeper than SJ_MAX_LEVEL; a non-container root is reported
 * with depth 0. After the root, only whitespace may follow. */
int sj_walk(sj_parser *sp, const char *p, size_t n, const sj_visitor *v, void *ctx, sj_error *err);

/* One root member as sj_members hands it over: its kind and, for a string, the unescaped bytes;
 * for a number, how simdjson's DOM parser read it (SJ_INT: i; SJ_UINT: u, above INT64_MAX;
 * SJ_DOUBLE: any literal with a fraction or an exponent). Containers and literals: kind only. */
typedef enum { SJ_INT, SJ_UINT, SJ_DOUBLE } sj_num;
typedef struct {
    sj_kind kind;
    const char *s; /* SJ_STRING: [s, s + n), unescaped (may hold NUL) */
    size_t n;
    sj_num num;    /* SJ_NUMBER */
    long long i;
    unsigned long long u;
} sj_member;

/* The classifier's fast path: parses p[0..n) (p[n .. n+SJ_PADDING) readable) with simdjson's DOM
 * parser, which checks every byte before anything is handed over (stage 2 builds the whole tree:
 * no lazy skipping), with the engine's isValidJSON limits (max depth 1024). Then calls
 * member(ctx, key, key_len, value) for each root member in order, the key unescaped. SJ_OK,
 * SJ_ESYNTAX (not one JSON text), SJ_ENOTOBJ, SJ_ESTOP (member returned nonzero), SJ_ENOMEM. For
 * texts up to SJ_KEEP_BYTES: the tree takes about 14 bytes per byte of text (sj_walk about 6),
 * too much for one huge row; the caller walks those. fuzz_wire_dom keeps sj_walk's verdict equal
 * to DOM's, fuzz_wire and test_wire the classes of both paths. */
int sj_members(sj_parser *sp, const char *p, size_t n,
               int (*member)(void *ctx, const char *key, size_t key_len, const sj_member *v),
               void *ctx);

/* Test oracle and bench floor only: simdjson's DOM parser (default max
 * depth 1024, as in the engine's isValidJSON), a validator independent of the walk above, for the
 * differential fuzz target tests/fuzz/fuzz_wire_dom.c and the validation floor of
 * tests/helpers/proto_floor. 1 if p[0..n) is one JSON text, *root_is_object telling whether its
 * root is an object; 0 if it is not; -1 out of memory. padded: p[n .. n+SJ_PADDING) is readable
 * and the text is parsed in place; 0: it is copied first. Not thread-safe (one parser kept). */
int sj_dom_verdict(const char *p, size_t n, int padded, int *root_is_object);

#ifdef __cplusplus
}
#endif

#endif
