/* test_load: unit tests of ods-load's module load: the message taken from an engine's stderr
 * (the load id rule is ddl's: test_ddl.c). The runs themselves: tests/bats/ods-load.bats. */
#include "check.h"
#include "load.h"

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
    test_messages();
    return check_report();
}
