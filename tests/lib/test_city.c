/* test_city.c: CityHash64 v1.0.2, Hash128to64 and intHash64 against values the embedded engine
 * computed (chlocal: cityHash64 / intHash64 over the same inputs), one per length branch. */
#include <stdint.h>

#include "check.h"
#include "city.h"

static const char pattern[] =
    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"
    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"
    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789";

#define CHECK_U64(a, b) CHECK((uint64_t)(a) == (uint64_t)(b))

int main(void)
{
    /* SELECT n, cityHash64(substring(repeat('abc…789', 10), 1, n)) */
    static const struct {
        size_t n;
        uint64_t h;
    } by_len[] = {
        {0, 11160318154034397263ULL},  {1, 2603192927274642682ULL},   {2, 1725057946192985918ULL},
        {3, 4220206313085259313ULL},   {4, 17823623939509273229ULL},  {7, 9365486912795408122ULL},
        {8, 4864636163090995991ULL},   {9, 7406163328168016081ULL},   {15, 16853824127119582073ULL},
        {16, 13242281798114038465ULL}, {17, 237482408704357350ULL},   {31, 9791408874986772226ULL},
        {32, 4524504167543962138ULL},  {33, 12733296450976330820ULL}, {63, 18084739940147969320ULL},
        {64, 6144595113434342607ULL},  {65, 7244930889322273401ULL},  {127, 633073491166957843ULL},
        {128, 10250692204798117136ULL}, {129, 6169453608621965504ULL}, {300, 3271733004811743668ULL},
    };
    for (size_t i = 0; i < sizeof by_len / sizeof by_len[0]; i++) {
        if (city_hash64(pattern, by_len[i].n) != by_len[i].h)
            fprintf(stderr, "length %zu differs\n", by_len[i].n);
        CHECK_U64(city_hash64(pattern, by_len[i].n), by_len[i].h);
    }
    CHECK_U64(city_hash64("ORD-2026-000123456", 18), 10698300672473047753ULL);

    /* integers: intHash64 of the zero-extended bits, never the bytes */
    CHECK_U64(city_int_hash64(255), 8055013221972926055ULL);          /* intHash64(255) */
    CHECK_U64(city_ch_int(255), 8055013221972926055ULL);              /* cityHash64(toInt8(-1)) */
    CHECK_U64(city_ch_int(0x80), 10573636647639147473ULL);            /* cityHash64(toInt8(-128)) */
    CHECK_U64(city_ch_int(0xFFFF), 6547939410751295652ULL);           /* cityHash64(toInt16(-1)) */
    CHECK_U64(city_ch_int(0xFFFFFFFFULL), 9168733277332772950ULL);    /* cityHash64(toInt32(-1)) */
    CHECK_U64(city_ch_int(~0ULL), 14600443904207254319ULL);           /* cityHash64(toInt64(-1)) */
    CHECK_U64(city_ch_int(0x8000000000000000ULL), 7378616448805205431ULL);
    CHECK_U64(city_ch_int(0), 4761183170873013810ULL);
    CHECK_U64(city_ch_int(18262), 6817702824740635125ULL);            /* cityHash64(toDate('2020-01-01')) */
    CHECK_U64(city_ch_int(1577836800), 1353083611880552204ULL);       /* DateTime 2020-01-01 00:00:00 UTC */

    /* several arguments: Hash128to64(acc, next), left to right */
    CHECK_U64(city_ch_fold(city_hash64("a", 1), city_hash64("b", 1)), 7468329322676821011ULL);
    CHECK_U64(city_ch_fold(city_hash64("ORD-2026-000123456", 18), city_ch_int(1772368496)), 866530789906539108ULL);

    /* UUID 61f0c404-5cb3-11e7-907b-a6006ad3dba0: its 16 in-memory bytes (as RowBinary writes them) */
    static const unsigned char uuid[16] = {0xe7, 0x11, 0xb3, 0x5c, 0x04, 0xc4, 0xf0, 0x61,
                                           0xa0, 0xdb, 0xd3, 0x6a, 0x00, 0xa6, 0x7b, 0x90};
    CHECK_U64(city_hash64(uuid, 16), 17345439983272262203ULL);
    /* cityHash64(toUInt8(1), 'x', toUUID(…)) */
    CHECK_U64(city_ch_fold(city_ch_fold(city_ch_int(1), city_hash64("x", 1)), city_hash64(uuid, 16)),
              14329861603171304968ULL);
    /* FixedString(5) 'abc': all five bytes, zero-padded */
    CHECK_U64(city_hash64("abc\0\0", 5), 15954762693552050307ULL);
    return check_report();
}
