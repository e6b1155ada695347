/* wire: the strict classifier of one raw order message against the wire contract v1
 * (wire_contract.h); total: every byte string gets exactly one class. */
#ifndef WIRE_H
#define WIRE_H

#include <stddef.h>

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

#endif
