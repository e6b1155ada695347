/* lock.h: the slot-table lock, a committed text file that pins a cluster's routing (weights in
 * config order) and each shard's servers, and the check that a config still routes like it. */
#ifndef SC_LOCK_H
#define SC_LOCK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "layout.h"
#include "route.h"

/* Owns everything it points to (sc_lock_free); internal_replication is -1 in every shard, since
 * the lock records only what decides where rows live. */
typedef struct {
    sc_cluster c;   /* name, shards with weights and replicas; no others */
    uint64_t total; /* the total weight, as the lock states it (equal to the weights' sum) */
} sc_lock;

/* The lock's first line; another "# shard-check lock v…" is a version this tool does not read. */
#define SC_LOCK_HEADER "# shard-check lock v1"

/* Writes the lock of c to out. SC_OK; SC_E_CHECK when every weight is 0 (nothing to lock: the
 * engine refuses the cluster); SC_E_INPUT when out cannot be written. */
int sc_lock_write(const sc_cluster *c, FILE *out, sc_err *err);

/* Parses a lock held in text[0..len) (where names it in errors). SC_OK; SC_E_INPUT with err
 * (where, line, static message) on anything but the exact format; SC_E_NOMEM. */
int sc_lock_parse(const char *text, size_t len, const char *where, sc_lock *out, sc_err *err);

/* sc_lock_parse of the file at path ("-" is stdin; at most 1 MiB). */
int sc_lock_read(const char *path, sc_lock *out, sc_err *err);
void sc_lock_free(sc_lock *l);

/* One run of residues that changes shard: cityHash64(key) % modulus in [first, last] went to
 * shard `from` under the lock and goes to shard `to` now (1-based _shard_num both). */
typedef struct {
    uint64_t first, last;
    unsigned from, to;
} sc_lock_run;

typedef struct {
    uint64_t modulus; /* L = lcm(old total, new total); 0 when it exceeds 2^64 - 1 */
    uint64_t moved;   /* residues in [0, L) reported as moving, summed over the runs reported */
    uint64_t runs;    /* runs reported */
    int complete;     /* 1 when the whole period was walked: moved and runs are exact */
} sc_lock_moves;

/* Called for each run in increasing order; a nonzero return stops the walk (complete stays 0). */
typedef int (*sc_lock_run_fn)(const sc_lock_run *run, void *arg);

/* Walks one period [0, L) of the two slot tables by merging their run boundaries, never by
 * enumerating residues, so its cost is the number of boundaries: about
 * (L / T_old) * shards_old + (L / T_new) * shards_new. It stops, incomplete, after max_pieces
 * constant pieces, or at once when L does not fit in 64 bits. Always SC_OK. */
int sc_lock_walk(const sc_slots *old, const sc_slots *now, uint64_t max_pieces, sc_lock_run_fn fn, void *arg,
                 sc_lock_moves *m);

/* The default max_pieces of the check: a period that long is walked in well under a second. */
#define SC_LOCK_MAX_PIECES ((uint64_t)1 << 26)

/* What `layout --lock` prints, on out, each line starting "shard-check: LOCK_PATH: ". */
typedef struct {
    const char *lock_path;   /* names the lock in the messages and in the re-lock command */
    const char *config_path; /* for the re-lock command */
    size_t max_runs;         /* moved runs listed before the summary (0: 20) */
    uint64_t max_pieces;     /* see sc_lock_walk (0: SC_LOCK_MAX_PIECES) */
} sc_lock_opts;

/* Compares cluster c (as loaded now) with lock l: the routing of every residue and each shard's
 * replica set. *failed is 1 when keys would move to another shard or a shard shares no
 * host:port with its locked replicas; notes (a replaced replica, a weight-0 shard added or
 * removed) do not fail. SC_OK; SC_E_INPUT when the lock is of another cluster; SC_E_CHECK when
 * every weight of c is 0; SC_E_NOMEM. */
int sc_lock_check(const sc_lock *l, const sc_cluster *c, const sc_lock_opts *o, FILE *out, int *failed,
                  sc_err *err);

#endif
