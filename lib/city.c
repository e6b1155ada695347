/* city.c: CityHash64 v1.0.2 and the two mixers ClickHouse's cityHash64 adds around it.
 * Written from the published algorithm; little-endian loads as on every ClickHouse platform. */
#include "city.h"

#include <string.h>

#define K0 0xc3a5c85c97cb3127ULL
#define K1 0xb492b66fbe98f273ULL
#define K2 0x9ae16a3b2f90404fULL
#define K3 0xc949d7c7509e6557ULL
#define KMUL 0x9ddfea08eb382d69ULL

static inline uint64_t ld64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t ld32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* Right rotation; a shift of 0 must not become a shift by 64 (undefined in C). */
static inline uint64_t ror(uint64_t v, unsigned s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
static inline uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

uint64_t city_hash128to64(uint64_t lo, uint64_t hi)
{
    uint64_t a = (lo ^ hi) * KMUL;
    a ^= a >> 47;
    uint64_t b = (hi ^ a) * KMUL;
    b ^= b >> 47;
    return b * KMUL;
}

uint64_t city_int_hash64(uint64_t x)
{
    x ^= 0x4CF2D2BAAE6DA887ULL;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t len0to16(const unsigned char *s, size_t len)
{
    if (len > 8) {
        uint64_t a = ld64(s), b = ld64(s + len - 8);
        /* len is 9..16 here, so the rotation is never by 0 */
        return city_hash128to64(a, ror(b + len, (unsigned)len)) ^ b;
    }
    if (len >= 4) {
        uint64_t a = ld32(s);
        return city_hash128to64(len + (a << 3), ld32(s + len - 4));
    }
    if (len > 0) {
        uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
        uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
        return shift_mix((uint64_t)y * K2 ^ (uint64_t)z * K3) * K2;
    }
    return K2;
}

static uint64_t len17to32(const unsigned char *s, size_t len)
{
    uint64_t a = ld64(s) * K1, b = ld64(s + 8);
    uint64_t c = ld64(s + len - 8) * K2, d = ld64(s + len - 16) * K0;
    return city_hash128to64(ror(a - b, 43) + ror(c, 30) + d, a + ror(b ^ K3, 20) - c + len);
}

static uint64_t len33to64(const unsigned char *s, size_t len)
{
    uint64_t z = ld64(s + 24);
    uint64_t a = ld64(s) + (len + ld64(s + len - 16)) * K0;
    uint64_t b = ror(a + z, 52), c = ror(a, 37);
    a += ld64(s + 8);
    c += ror(a, 7);
    a += ld64(s + 16);
    uint64_t vf = a + z, vs = b + ror(a, 31) + c;
    a = ld64(s + 16) + ld64(s + len - 32);
    z = ld64(s + len - 8);
    b = ror(a + z, 52);
    c = ror(a, 37);
    a += ld64(s + len - 24);
    c += ror(a, 7);
    a += ld64(s + len - 16);
    uint64_t wf = a + z, ws = b + ror(a, 31) + c;
    uint64_t r = shift_mix((vf + ws) * K2 + (wf + vs) * K0);
    return shift_mix(r * K0 + vs) * K2;
}

typedef struct { uint64_t first, second; } pair64;

/* CityHash's WeakHashLen32WithSeeds over s[0..31] with seeds a, b. */
static inline pair64 weak32(const unsigned char *s, uint64_t a, uint64_t b)
{
    uint64_t w = ld64(s), x = ld64(s + 8), y = ld64(s + 16), z = ld64(s + 24);
    a += w;
    b = ror(b + a + z, 21);
    uint64_t c = a;
    a += x;
    a += y;
    b += ror(a, 44);
    return (pair64){a + z, b + c};
}

uint64_t city_hash64(const void *data, size_t len)
{
    const unsigned char *s = data;
    if (len <= 16)
        return len0to16(s, len);
    if (len <= 32)
        return len17to32(s, len);
    if (len <= 64)
        return len33to64(s, len);

    /* Over 64 bytes: the tail first, then 64-byte blocks with 56 bytes of state. */
    uint64_t x = ld64(s), y = ld64(s + len - 16) ^ K1, z = ld64(s + len - 56) ^ K0;
    pair64 v = weak32(s + len - 64, len, y);
    pair64 w = weak32(s + len - 32, len * K1, K0);
    z += shift_mix(v.second) * K1;
    x = ror(z + x, 39) * K1;
    y = ror(y, 33) * K1;
    len = (len - 1) & ~(size_t)63;
    do {
        x = ror(x + y + v.first + ld64(s + 16), 37) * K1;
        y = ror(y + v.second + ld64(s + 48), 42) * K1;
        x ^= w.second;
        y ^= v.first;
        z = ror(z ^ w.first, 33);
        v = weak32(s, v.second * K1, x + w.first);
        w = weak32(s + 32, z + w.second, y);
        uint64_t t = z;
        z = x;
        x = t;
        s += 64;
        len -= 64;
    } while (len != 0);
    return city_hash128to64(city_hash128to64(v.first, w.first) + shift_mix(y) * K1 + z,
                            city_hash128to64(v.second, w.second) + x);
}
