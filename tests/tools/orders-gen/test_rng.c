/* test_og_rng: the order generator's PRNG: streams are reproducible and independent, the
 * bounded draws stay in bounds and the weighted choice follows its weights. */
#include "check.h"
#include "rng.h"

static void test_streams(void)
{
    og_rng a, b, c, d;
    og_rng_stream(&a, 7, 100, 1);
    og_rng_stream(&b, 7, 100, 1);
    og_rng_stream(&c, 7, 100, 2);
    og_rng_stream(&d, 8, 100, 1);
    int same_ab = 0, same_ac = 0, same_ad = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = og_rng_next(&a), y = og_rng_next(&b), z = og_rng_next(&c), t = og_rng_next(&d);
        same_ab += x == y;
        same_ac += x == z;
        same_ad += x == t;
    }
    CHECK_EQ_INT(same_ab, 1000);
    CHECK_EQ_INT(same_ac, 0);
    CHECK_EQ_INT(same_ad, 0);
    /* neighbouring orders must not get shifted copies of one sequence */
    og_rng s0, s1;
    og_rng_stream(&s0, 1, 5, 1);
    og_rng_stream(&s1, 1, 6, 1);
    uint64_t first1 = og_rng_next(&s1);
    int hits = 0;
    for (int i = 0; i < 1000; i++)
        hits += og_rng_next(&s0) == first1;
    CHECK_EQ_INT(hits, 0);
}

static void test_mix_is_a_bijection_sample(void)
{
    /* distinct inputs, distinct outputs (a sample: the finalizer is invertible) */
    uint64_t prev = og_mix64(0);
    int dup = 0;
    for (uint64_t i = 1; i < 100000; i++) {
        uint64_t v = og_mix64(i);
        dup += v == prev;
        prev = v;
    }
    CHECK_EQ_INT(dup, 0);
    CHECK(og_mix64(1) != 1);
}

static void test_bounds(void)
{
    og_rng r;
    og_rng_stream(&r, 3, 0, 0);
    int counts[10] = {0}, out = 0, lo_hit = 0, hi_hit = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t v = og_rng_below(&r, 10);
        if (v >= 10)
            out++;
        else
            counts[v]++;
        int64_t x = og_rng_range(&r, -3, 3);
        out += x < -3 || x > 3;
        lo_hit += x == -3;
        hi_hit += x == 3;
    }
    CHECK_EQ_INT(out, 0);
    CHECK(lo_hit > 0 && hi_hit > 0);
    for (int i = 0; i < 10; i++) /* 10000 expected; 5 sigma is about 475 */
        CHECK(counts[i] > 9400 && counts[i] < 10600);
    CHECK_EQ_INT(og_rng_below(&r, 1), 0);
}

static void test_pick(void)
{
    og_rng r;
    og_rng_stream(&r, 9, 1, 1);
    const uint16_t w[4] = {0, 30, 0, 70};
    int counts[4] = {0};
    for (int i = 0; i < 100000; i++)
        counts[og_rng_pick(&r, w, 4)]++;
    CHECK_EQ_INT(counts[0], 0);
    CHECK_EQ_INT(counts[2], 0);
    CHECK(counts[1] > 29000 && counts[1] < 31000);
    CHECK_EQ_INT(counts[1] + counts[3], 100000);
}

int main(void)
{
    test_streams();
    test_mix_is_a_bijection_sample();
    test_bounds();
    test_pick();
    return check_report();
}
