/* test_verify.c: orders split over shards or on the wrong shard are reported in first-seen
 * order, a header row is skipped, bad rows are input errors. Routing facts from the engine:
 * cityHash64 of 'abc', '', '0', '1' modulo 8 under weights 3,0,5 gives shards 1, 3, 1, 1. */
#include <stdlib.h>

#include "check.h"
#include "verify.h"

static int verify(const char *in, char **out, sc_verify_stats *st, sc_err *e)
{
    sc_shard sh[3] = {{3, 0, 0, NULL}, {0, 0, 0, NULL}, {5, 0, 0, NULL}};
    sc_cluster c = {.name = "w305", .n_shards = 3, .shards = sh};
    sc_slots s;
    sc_slots_build(&c, &s);
    sc_keytype kt = {SK_STRING, 0};
    FILE *f = fmemopen((void *)in, strlen(in), "r");
    size_t len;
    FILE *o = open_memstream(out, &len);
    int rc = sc_verify_stream(f, o, &kt, &s, st, e);
    fclose(f);
    fclose(o);
    sc_slots_free(&s);
    return rc;
}

int main(void)
{
    char *out;
    sc_verify_stats st;
    sc_err e = {0};
    CHECK_EQ_INT(verify("order_id\t_shard_num\nabc\t1\n\t3\nabc\t1\n0\t1\n", &out, &st, &e), SC_OK);
    CHECK_EQ_INT(st.rows, 4);
    CHECK_EQ_INT(st.orders, 3);
    CHECK_EQ_INT(st.split + st.misplaced, 0);
    CHECK_EQ_STR(out, "");
    free(out);

    CHECK_EQ_INT(verify("1\t3\nabc\t1\nabc\t3\n0\t1\nabc\t1\n", &out, &st, &e), SC_OK);
    CHECK_EQ_INT(st.split, 1);
    CHECK_EQ_INT(st.misplaced, 1);
    CHECK_EQ_STR(out, "1\t3\t1\nabc\t1,3\t1\n");
    free(out);

    CHECK_EQ_INT(verify("a\\tb\t2\n", &out, &st, &e), SC_OK);
    CHECK_EQ_INT(st.misplaced, 1);
    CHECK(!strncmp(out, "a\\tb\t2\t", 7));
    free(out);

    CHECK_EQ_INT(verify("abc\t1\nabc\n", &out, &st, &e), SC_E_INPUT);
    CHECK_EQ_INT(e.line, 2);
    free(out);
    CHECK_EQ_INT(verify("abc\t1\nabc\t0\n", &out, &st, &e), SC_E_INPUT);
    free(out);
    CHECK_EQ_INT(verify("ab\r\t1\n", &out, &st, &e), SC_E_INPUT);
    free(out);
    return check_report();
}
