/* Unit tests for cli.h's cli_whole, an option's whole number: the edges by hand, then generated
 * strings judged by a model that compares decimal texts, not numbers, so no overflow is shared. */
#include "check.h"
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>

/* the model: 1 when s is digits only and lo <= s <= hi, compared as decimal texts */
static int text_cmp(const char *a, const char *b) /* a, b: digits without leading zeros */
{
    size_t na = strlen(a), nb = strlen(b);
    if (na != nb)
        return na < nb ? -1 : 1;
    int c = strcmp(a, b);
    return (c > 0) - (c < 0);
}

static int model(const char *s, unsigned long long lo, unsigned long long hi)
{
    if (!*s)
        return 0;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    while (*s == '0' && s[1])
        s++;
    char los[32], his[32];
    snprintf(los, sizeof los, "%llu", lo);
    snprintf(his, sizeof his, "%llu", hi);
    return text_cmp(s, los) >= 0 && text_cmp(s, his) <= 0;
}

static void check_one(const char *s, unsigned long long lo, unsigned long long hi)
{
    unsigned long long v = 12345;
    int rc = cli_whole(s, lo, hi, &v);
    int want = model(s, lo, hi);
    CHECK_EQ_INT(rc, want ? 0 : -1);
    if (rc != (want ? 0 : -1))
        fprintf(stderr, "  input \"%s\" in [%llu, %llu]\n", s, lo, hi);
    if (want && rc == 0)
        CHECK_EQ_INT(v, strtoull(s, NULL, 10));
    if (rc != 0)
        CHECK_EQ_INT(v, 12345); /* untouched on failure */
}

static void test_edges(void)
{
    static const char *const texts[] = {
        "", "0", "00", "1", "007", "9", "10", "64", "65", "+1", "-1", " 1", "1 ", "1x", "0x10",
        "4294967295", "4294967296", "18446744073709551615", "18446744073709551616",
        "99999999999999999999999", "000000000000000000000000001", "1e3", "١",
    };
    static const unsigned long long ranges[][2] = {
        {0, 0}, {0, 5}, {1, 64}, {1, 1000000000}, {0, 100}, {1, 36500}, {0, UINT64_MAX},
        {5, 5}, {10, 9}, {UINT64_MAX, UINT64_MAX},
    };
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++)
            check_one(texts[t], ranges[r][0], ranges[r][1]);
    unsigned long long v = 0;
    /* a maximum below 9: the digit itself is out of range (a wrap here once let "7" into [0, 5]) */
    CHECK_EQ_INT(cli_whole("7", 0, 5, &v), -1);
    CHECK_EQ_INT(cli_whole("18446744073709551615", 0, UINT64_MAX, &v), 0);
    CHECK(v == UINT64_MAX);
}

static void test_generated(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    static const char alphabet[] = "0123456789000011119999+- x";
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        char s[32];
        size_t n = x % 24;
        uint64_t y = x;
        for (size_t k = 0; k < n; k++) {
            y = y * 6364136223846793005ULL + 1442695040888963407ULL;
            /* mostly digits; now and then a sign, a space or a letter */
            size_t m = (y >> 33) % 100 < 97 ? 22 : sizeof alphabet - 1;
            s[k] = alphabet[(y >> 40) % m];
        }
        s[n] = '\0';
        unsigned long long a = y % 3 == 0 ? 0 : (x >> 3) % 1000, b;
        switch ((x >> 20) % 4) {
        case 0: b = a + (x >> 30) % 100; break;
        case 1: b = (x >> 11) % 2 ? UINT64_MAX : UINT64_MAX - (x >> 50); break;
        case 2: b = (x >> 5); break;
        default: b = (x >> 14) % 10; break;
        }
        check_one(s, a, b);
    }
}

int main(void)
{
    test_edges();
    test_generated();
    return check_report();
}
