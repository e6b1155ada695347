/* verify.h: checks rows `order_id<TAB>_shard_num` read back from a cluster: every version of an
 * order must sit on one shard, the one cityHash64 routing assigns. */
#ifndef SC_VERIFY_H
#define SC_VERIFY_H

#include <stdint.h>
#include <stdio.h>

#include "key.h"
#include "layout.h"
#include "route.h"

typedef struct {
    uint64_t rows, orders;
    uint64_t split;     /* orders with versions on more than one shard */
    uint64_t misplaced; /* orders on one shard, but not the routed one */
} sc_verify_stats;

/* Reads the rows from in (an optional header line is skipped), writes one line per bad order to
 * out: order_id (TSV-escaped), the shards it sits on, the shard routing assigns. SC_OK (look at
 * the stats), SC_E_INPUT with err on unreadable rows. */
int sc_verify_stream(FILE *in, FILE *out, const sc_keytype *kt, const sc_slots *slots,
                     sc_verify_stats *st, sc_err *err);

#endif
