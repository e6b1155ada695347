/* route.h: ClickHouse's Distributed slot table (each shard's index repeated `weight` times in
 * config order, held as cumulative weights) and the streaming `route`/`hash` loop over TSV or RowBinary keys. */
#ifndef SC_ROUTE_H
#define SC_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "key.h"
#include "layout.h"

/* The engine's slot table is each shard's index repeated `weight` times; this holds only its
 * run boundaries, so a weight of 500 000 000 costs nothing: cum[i] is the total weight of shards
 * 0..i, and slot k belongs to the first shard with cum[i] > k (zero-weight shards own none). */
typedef struct {
    uint64_t *cum;   /* one per shard, config order */
    uint64_t n;      /* total weight: the number of slots */
    size_t n_shards;
} sc_slots;

/* SC_OK, SC_E_CHECK when every weight is 0, SC_E_NOMEM. */
int sc_slots_build(const sc_cluster *c, sc_slots *s);
void sc_slots_free(sc_slots *s);

/* The _shard_num (1-based) ClickHouse picks for a sharding-key value: the key as unsigned,
 * modulo the number of slots, then the shard owning that slot (binary search over cum). */
static inline unsigned sc_slots_shard(const sc_slots *s, uint64_t key)
{
    uint64_t slot = key % s->n;
    size_t lo = 0, hi = s->n_shards - 1; /* cum[n_shards - 1] = n > slot */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->cum[mid] > slot)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (unsigned)lo + 1;
}

typedef struct {
    sc_keytype kt;
    int rowbinary;          /* input is RowBinary of kt, else one TSV-escaped key a line */
    const sc_slots *slots;  /* print shard numbers; NULL: print cityHash64 values */
} sc_route_opts;

/* Reads keys from in_fd to EOF, writes one line per key to out_fd. SC_OK; SC_E_INPUT with err
 * (line number, or byte offset for RowBinary, in err->line) on a bad key or truncated input. */
int sc_route_stream(int in_fd, int out_fd, const sc_route_opts *o, uint64_t *n_keys, sc_err *err);

#endif
