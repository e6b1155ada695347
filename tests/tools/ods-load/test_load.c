/* test_load: unit tests of ods-load's module load: the load id rule (the transition's), and the
 * message taken from an engine's stderr. The runs themselves: tests/bats/ods-load.bats. */
#include "check.h"
#include "load.h"

static void test_ids(void)
{
    static const char *const good[] = {"L1", "2026-03-01.orders", "a", "x:y+z/w-v_u.t", "0"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK_EQ_INT(ld_check_id(good[i]), 0);
    static const char *const bad[] = {"", "-L1", ".x", "L 1", "L'1", "L\n1", "L;1", "é", "L#1", "L1\\"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_INT(ld_check_id(bad[i]), -1);
    char id[130];
    memset(id, 'a', 128);
    id[128] = '\0';
    CHECK_EQ_INT(ld_check_id(id), 0);
    id[128] = 'a', id[129] = '\0';
    CHECK_EQ_INT(ld_check_id(id), -1);
}

static void test_messages(void)
{
    char out[256];
    CHECK_EQ_INT(ld_engine_message("Code: 395. DB::Exception: transition 1/12: no rows are staged under load X1: a "
                                   "mistyped load id. Nothing was done: while executing 'FUNCTION throwIf(_CAST("
                                   "'transition 1/12: no rows ...')'. (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO)\n",
                                   out, sizeof out), 1);
    CHECK_EQ_STR(out, "transition 1/12: no rows are staged under load X1: a mistyped load id. Nothing was done");
    /* "transition" elsewhere in the text is no check's message */
    CHECK_EQ_INT(ld_engine_message("warning: the transition ran\nCode: 241. DB::Exception: Memory limit (total) "
                                   "exceeded. (MEMORY_LIMIT_EXCEEDED)\n", out, sizeof out), 0);
    CHECK_EQ_STR(out, "Code: 241. DB::Exception: Memory limit (total) exceeded. (MEMORY_LIMIT_EXCEEDED)");
    CHECK_EQ_INT(ld_engine_message("transition 3/12 without colon; transition 10/12: late rows\n", out, sizeof out), 1);
    CHECK_EQ_STR(out, "transition 10/12: late rows");
    CHECK_EQ_INT(ld_engine_message("", out, sizeof out), 0);
    CHECK_EQ_STR(out, "");
    CHECK_EQ_INT(ld_engine_message("cannot run x: No such file\n", out, sizeof out), 0);
    CHECK_EQ_STR(out, "cannot run x: No such file");
    /* cut to the buffer */
    char small[8];
    CHECK_EQ_INT(ld_engine_message("transition 2/12: a long message\n", small, sizeof small), 1);
    CHECK_EQ_STR(small, "transit");
}

int main(void)
{
    test_ids();
    test_messages();
    return check_report();
}
