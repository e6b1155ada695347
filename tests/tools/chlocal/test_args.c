/* Unit tests for cl_args: which options chlocal keeps, what reaches the engine, and where the
 * UDF settings go. */
#include "check.h"
#include "args.h"

static const cl_defaults DEF = {"/lib/libchdb.so", "/bin", "/cfg/*_function.xml"};

static int argv_is(const cl_cmd *c, const char *const *want)
{
    int i = 0;
    for (; want[i]; i++)
        if (i >= c->engine_argc || strcmp(c->engine_argv[i], want[i]) != 0)
            return 0;
    return i == c->engine_argc && c->engine_argv[i] == NULL;
}

static void test_defaults_added_after_separator(void)
{
    char *argv[] = {"chlocal", "-q", "SELECT 1", "--param_x=1"};
    cl_cmd c;
    CHECK_EQ_INT(cl_parse(4, argv, &DEF, &c, NULL), 0);
    CHECK_EQ_INT(cl_build(&c, c.udf_dir, c.udf_config), 0);
    const char *want[] = {"chlocal", "-q", "SELECT 1", "--param_x=1", "--",
                          "--user_scripts_path=/bin",
                          "--user_defined_executable_functions_config=/cfg/*_function.xml", NULL};
    CHECK(argv_is(&c, want));
    CHECK_EQ_STR(c.libchdb, "/lib/libchdb.so");
    cl_free(&c);
}

static void test_own_options_taken_out(void)
{
    char *argv[] = {"chlocal", "--udf-dir", "/u", "--udf-config=/u/x.xml", "--libchdb=/l.so",
                    "--query", "SELECT 2"};
    cl_cmd c;
    CHECK_EQ_INT(cl_parse(7, argv, &DEF, &c, NULL), 0);
    CHECK_EQ_STR(c.udf_dir, "/u");
    CHECK_EQ_STR(c.udf_config, "/u/x.xml");
    CHECK_EQ_STR(c.libchdb, "/l.so");
    CHECK_EQ_INT(cl_build(&c, c.udf_dir, c.udf_config), 0);
    const char *want[] = {"chlocal", "--query", "SELECT 2", "--", "--user_scripts_path=/u",
                          "--user_defined_executable_functions_config=/u/x.xml", NULL};
    CHECK(argv_is(&c, want));
    cl_free(&c);
}

static void test_caller_settings_win(void)
{
    char *argv[] = {"chlocal", "-q", "SELECT 3", "--", "--user_scripts_path=/mine", "--max_threads=1"};
    cl_cmd c;
    CHECK_EQ_INT(cl_parse(6, argv, &DEF, &c, NULL), 0);
    CHECK_EQ_INT(cl_build(&c, c.udf_dir, c.udf_config), 0);
    const char *want[] = {"chlocal", "-q", "SELECT 3", "--", "--user_scripts_path=/mine",
                          "--max_threads=1",
                          "--user_defined_executable_functions_config=/cfg/*_function.xml", NULL};
    CHECK(argv_is(&c, want));
    cl_free(&c);
}

static void test_no_udf_and_help(void)
{
    char *argv[] = {"chlocal", "--no-udf", "-h"};
    cl_cmd c;
    CHECK_EQ_INT(cl_parse(3, argv, &DEF, &c, NULL), 0);
    CHECK(c.help);
    CHECK(c.udf_dir == NULL && c.udf_config == NULL);
    CHECK_EQ_INT(cl_build(&c, c.udf_dir, c.udf_config), 0);
    const char *want[] = {"chlocal", NULL};
    CHECK(argv_is(&c, want));
    cl_free(&c);
}

static void test_options_after_separator_are_not_ours(void)
{
    /* "--help" after "--" belongs to the engine's settings, not to chlocal. */
    char *argv[] = {"chlocal", "--", "--help"};
    cl_cmd c;
    CHECK_EQ_INT(cl_parse(3, argv, &DEF, &c, NULL), 0);
    CHECK(!c.help);
    cl_free(&c);
}

static void test_missing_values_are_usage_errors(void)
{
    char *a1[] = {"chlocal", "--udf-dir"};
    char *a2[] = {"chlocal", "--libchdb="};
    cl_cmd c;
    cl_error err = {0};
    CHECK_EQ_INT(cl_parse(2, a1, &DEF, &c, &err), CL_EUSAGE);
    CHECK_EQ_STR(err.msg, "--udf-dir needs a value");
    CHECK_EQ_STR(err.opt, "--udf-dir");
    CHECK_EQ_INT(err.arg, 1);
    CHECK_EQ_INT(cl_parse(2, a2, &DEF, &c, &err), CL_EUSAGE);
    CHECK_EQ_STR(err.msg, "--libchdb needs a value");
    /* A longer option that merely starts with ours passes through. */
    char *a3[] = {"chlocal", "--udf-directory=x"};
    CHECK_EQ_INT(cl_parse(2, a3, &DEF, &c, NULL), 0);
    CHECK_EQ_INT(c.engine_argc, 2);
    CHECK_EQ_STR(c.engine_argv[1], "--udf-directory=x");
    cl_free(&c);
    /* An option left without its value before "--" is named, not passed on. */
    char *a4[] = {"chlocal", "-q", "--", "--x=1"};
    CHECK_EQ_INT(cl_parse(4, a4, &DEF, &c, &err), CL_EUSAGE);
    CHECK_EQ_STR(err.msg, "the last option needs a value");
    CHECK_EQ_STR(err.opt, "-q");
    CHECK_EQ_INT(err.arg, -1);
}

static void test_version_is_taken_out_before_the_separator(void)
{
    char *a1[] = {"chlocal", "--version"};
    cl_cmd c;
    CHECK_EQ_INT(cl_parse(2, a1, &DEF, &c, NULL), 0);
    CHECK_EQ_INT(c.version, 1);
    CHECK_EQ_INT(c.engine_argc, 1);
    cl_free(&c);
    /* after "--" it is a server setting, the engine's business */
    char *a2[] = {"chlocal", "--", "--version"};
    CHECK_EQ_INT(cl_parse(3, a2, &DEF, &c, NULL), 0);
    CHECK_EQ_INT(c.version, 0);
    CHECK_EQ_INT(c.engine_argc, 3);
    cl_free(&c);
}

int main(void)
{
    test_defaults_added_after_separator();
    test_own_options_taken_out();
    test_version_is_taken_out_before_the_separator();
    test_caller_settings_win();
    test_no_udf_and_help();
    test_options_after_separator_are_not_ours();
    test_missing_values_are_usage_errors();
    return check_report();
}
