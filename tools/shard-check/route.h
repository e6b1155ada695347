/* route.h: ClickHouse's Distributed slot table (each shard's index repeated `weight` times in
 * config order) and the streaming `route`/`hash` loop over TSV or RowBinary keys. */
#ifndef SC_ROUTE_H
#define SC_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "key.h"
#include "layout.h"

typedef struct {
    uint32_t *slot; /* slot -> shard index (0-based) */
    size_t n;       /* total weight */
    size_t n_shards;
} sc_slots;

/* SC_OK, SC_E_CHECK when every weight is 0, SC_E_NOMEM. */
int sc_slots_build(const sc_cluster *c, sc_slots *s);
void sc_slots_free(sc_slots *s);

/* The _shard_num (1-based) ClickHouse picks for a sharding-key value: the key as unsigned,
 * modulo the number of slots. */
static inline unsigned sc_slots_shard(const sc_slots *s, uint64_t key) { return s->slot[key % s->n] + 1; }

typedef struct {
    sc_keytype kt;
    int rowbinary;          /* input is RowBinary of kt, else one TSV-escaped key a line */
    const sc_slots *slots;  /* print shard numbers; NULL: print cityHash64 values */
} sc_route_opts;

/* Reads keys from in_fd to EOF, writes one line per key to out_fd. SC_OK; SC_E_INPUT with err
 * (line number, or byte offset for RowBinary, in err->line) on a bad key or truncated input. */
int sc_route_stream(int in_fd, int out_fd, const sc_route_opts *o, uint64_t *n_keys, sc_err *err);

#endif
