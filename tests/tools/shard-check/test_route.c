/* test_route.c: the slot table (weights 3,0,5 -> slots 0,0,0,2,2,2,2,2 as Cluster.cpp builds
 * it; huge weights held as cumulative bounds) and the streaming route/hash loop, fed through a
 * pipe: TSV, RowBinary, and bad input. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "route.h"

/* Runs sc_route_stream over input; returns its code, output in *out (malloc'd). */
static int stream(const char *in, size_t n, const sc_route_opts *o, char **out, sc_err *e)
{
    char path[] = "/tmp/test_sc_route.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, in, n) != (ssize_t)n)
        return 99;
    lseek(fd, 0, SEEK_SET);
    char opath[] = "/tmp/test_sc_route.out.XXXXXX";
    int ofd = mkstemp(opath);
    uint64_t keys;
    int rc = sc_route_stream(fd, ofd, o, &keys, e);
    off_t len = lseek(ofd, 0, SEEK_END);
    *out = calloc(1, (size_t)len + 1);
    if (pread(ofd, *out, (size_t)len, 0) != len)
        rc = 98;
    close(fd);
    close(ofd);
    unlink(path);
    unlink(opath);
    return rc;
}

int main(void)
{
    sc_shard sh[3] = {{3, 0, 0, NULL}, {0, 0, 0, NULL}, {5, 0, 0, NULL}};
    sc_cluster c = {.name = "w305", .n_shards = 3, .shards = sh};
    sc_slots s;
    CHECK_EQ_INT(sc_slots_build(&c, &s), SC_OK);
    CHECK_EQ_INT(s.n, 8);
    static const unsigned want[8] = {1, 1, 1, 3, 3, 3, 3, 3};
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(sc_slots_shard(&s, (uint64_t)i), want[i]);
    CHECK_EQ_INT(sc_slots_shard(&s, 8 * 1000003ULL + 4), 3);
    /* the key as unsigned: 2^64-1 % 8 = 7 -> shard 3 */
    CHECK_EQ_INT(sc_slots_shard(&s, ~0ULL), 3);
    CHECK_EQ_INT(sc_slots_shard(&s, 2), 1);

    /* the engine: cityHash64 of 'abc', '', '0', '1' is …313, …263, …874, …913; % 8 = 1, 7, 2, 1 */
    sc_route_opts o = {{SK_STRING, 0}, 0, &s};
    char *out;
    sc_err e = {0};
    CHECK_EQ_INT(stream("abc\n\n0\n1", 8, &o, &out, &e), SC_OK);
    CHECK_EQ_STR(out, "1\n3\n1\n1\n");
    free(out);
    sc_route_opts oh = {{SK_STRING, 0}, 0, NULL};
    CHECK_EQ_INT(stream("abc\na\\tb\n", 9, &oh, &out, &e), SC_OK);
    CHECK(!strncmp(out, "4220206313085259313\n", 20));
    free(out);
    CHECK_EQ_INT(stream("abc\nab\r\nx\n", 10, &o, &out, &e), SC_E_INPUT);
    CHECK_EQ_INT(e.line, 2);
    CHECK_EQ_STR(out, "1\n");
    free(out);
    sc_route_opts on = {{SK_U8, 0}, 0, NULL};
    CHECK_EQ_INT(stream("255\n", 4, &on, &out, &e), SC_OK);
    CHECK_EQ_STR(out, "8055013221972926055\n");
    free(out);
    CHECK_EQ_INT(stream("255\n2x\n", 7, &on, &out, &e), SC_E_INPUT);
    CHECK_EQ_INT(e.line, 2);
    free(out);

    sc_route_opts rb = {{SK_STRING, 0}, 1, NULL};
    CHECK_EQ_INT(stream("\003abc\000", 5, &rb, &out, &e), SC_OK);
    CHECK_EQ_STR(out, "4220206313085259313\n11160318154034397263\n");
    free(out);
    CHECK_EQ_INT(stream("\003abc\005ab", 7, &rb, &out, &e), SC_E_INPUT);
    CHECK(strstr(e.msg, "truncated") != NULL);
    CHECK_EQ_INT(e.line, 4);
    free(out);

    /* a key longer than the 4 MiB read buffer */
    size_t big = (size_t)5 << 20;
    char *in = malloc(big + 1);
    memset(in, 'x', big);
    in[big] = '\n';
    CHECK_EQ_INT(stream(in, big + 1, &oh, &out, &e), SC_OK);
    CHECK(strchr(out, '\n') != NULL);
    free(out);
    free(in);

    /* huge weights: the table holds one boundary per shard, not one entry per slot; the engine's
     * arithmetic is key % total weight, then the shard whose cumulative range holds the slot */
    sc_shard hw[5] = {{0, 0, 0, NULL}, {500000000u, 0, 0, NULL}, {1, 0, 0, NULL}, {0, 0, 0, NULL},
                      {4294967295u, 0, 0, NULL}};
    sc_cluster ch = {.name = "huge", .n_shards = 5, .shards = hw};
    sc_slots sh5;
    CHECK_EQ_INT(sc_slots_build(&ch, &sh5), SC_OK);
    CHECK(sh5.n == 500000001ULL + 4294967295ULL);
    CHECK_EQ_INT(sc_slots_shard(&sh5, 0), 2);
    CHECK_EQ_INT(sc_slots_shard(&sh5, 499999999), 2);
    CHECK_EQ_INT(sc_slots_shard(&sh5, 500000000), 3);
    CHECK_EQ_INT(sc_slots_shard(&sh5, 500000001), 5);
    CHECK_EQ_INT(sc_slots_shard(&sh5, sh5.n - 1), 5);
    CHECK_EQ_INT(sc_slots_shard(&sh5, sh5.n + 500000000), 3);
    CHECK_EQ_INT(sc_slots_shard(&sh5, ~0ULL), ~0ULL % sh5.n < 500000000 ? 2 : ~0ULL % sh5.n == 500000000 ? 3 : 5);
    sc_slots_free(&sh5);

    sc_shard z[1] = {{0, 0, 0, NULL}};
    sc_cluster cz = {.name = "z", .n_shards = 1, .shards = z};
    sc_slots sz;
    CHECK_EQ_INT(sc_slots_build(&cz, &sz), SC_E_CHECK);
    sc_slots_free(&s);
    return check_report();
}
