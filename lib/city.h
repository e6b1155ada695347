/* city.h: ClickHouse's cityHash64 bit for bit: CityHash64 v1.0.2 (the version ClickHouse pins),
 * Hash128to64 (its multi-argument fold) and intHash64 (what it uses for integer arguments). */
#ifndef CITY_H
#define CITY_H

#include <stddef.h>
#include <stdint.h>

/* CityHash64 v1.0.2 of len bytes (later CityHash releases give other values). */
uint64_t city_hash64(const void *data, size_t len);

/* CityHash's Hash128to64(uint128(lo, hi)); ClickHouse folds argument hashes with it. */
uint64_t city_hash128to64(uint64_t lo, uint64_t hi);

/* ClickHouse's SQL intHash64(x): the MurmurHash3 finaliser of x ^ 0x4CF2D2BAAE6DA887. */
uint64_t city_int_hash64(uint64_t x);

/* cityHash64 of one integer-like argument (UInt8..UInt64, Int8..Int64, Date, Date32, DateTime,
 * Enum, Bool): the value's bits zero-extended to 64, through intHash64 (not the bytes). */
static inline uint64_t city_ch_int(uint64_t zero_extended) { return city_int_hash64(zero_extended); }

/* cityHash64(a, b, …): the first argument's hash, then h = Hash128to64(h, next). */
static inline uint64_t city_ch_fold(uint64_t acc, uint64_t next) { return city_hash128to64(acc, next); }

#endif
