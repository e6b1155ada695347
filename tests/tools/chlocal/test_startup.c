/* Unit tests for cs_startup: which engine messages are its start-up fault (the fixtures in
 * tests/fixtures/chlocal/startup), and which command lines may run again after one. */
#include "check.h"
#include "io.h"
#include "startup.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR_ "tests/fixtures/chlocal/startup/"

static void test_fixtures(void)
{
    DIR *d = opendir(DIR_);
    CHECK(d != NULL);
    if (!d)
        return;
    int faults = 0, others = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int fault = !strncmp(e->d_name, "fault-", 6), other = !strncmp(e->d_name, "other-", 6);
        if (!fault && !other)
            continue;
        char path[512], *text = NULL;
        size_t n = 0;
        snprintf(path, sizeof path, DIR_ "%s", e->d_name);
        CHECK_EQ_INT(io_read_path(path, &text, &n), 0);
        cs_fault f = {0};
        int got = cs_is_startup_fault(text, n, &f);
        if (got != fault)
            fprintf(stderr, "%s: cs_is_startup_fault says %d\n", e->d_name, got);
        CHECK_EQ_INT(got, fault);
        if (fault) {
            /* the job named is the one quoted in the text */
            char job[256];
            snprintf(job, sizeof job, "Load job '%.*s' failed", (int)f.job_len, f.job);
            CHECK(f.job_len > 0 && strstr(text, job) != NULL);
        }
        faults += fault;
        others += other;
        free(text);
    }
    closedir(d);
    CHECK(faults >= 3);
    CHECK(others >= 10);
}

static void test_job_named(void)
{
    static const char T[] = "Code: 722. DB::Exception: Waited job failed: Code: 695. DB::Exception: Load job "
                            "'load table a.b' failed: std::exception. Code: 1001, type: std::x, e.what() = y,. "
                            "(ASYNC_LOAD_WAIT_FAILED)";
    cs_fault f = {0};
    CHECK_EQ_INT(cs_is_startup_fault(T, sizeof T - 1, &f), 1);
    CHECK(f.job_len == 14 && memcmp(f.job, "load table a.b", 14) == 0);
    CHECK_EQ_INT(cs_is_startup_fault(T, sizeof T - 1, NULL), 1);
    /* every prefix is cut short: none is the fault */
    for (size_t n = 0; n < sizeof T - 1; n++)
        if (cs_is_startup_fault(T, n, NULL))
            CHECK(!"a prefix taken for the fault");
}

/* cl_parse and cl_build as chlocal calls them, then cs_may_run_again */
static int may(int argc, char **argv)
{
    static const cl_defaults DEF = {"/lib/libchdb.so", "/bin", "/cfg/*_function.xml"};
    cl_cmd c;
    if (cl_parse(argc, argv, &DEF, &c, NULL) != 0 || cl_build(&c, c.udf_dir, c.udf_config) != 0)
        return -1;
    int r = cs_may_run_again(&c);
    cl_free(&c);
    return r;
}

#define MAY(...) may((int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)), (char *[]){__VA_ARGS__})

static void test_may_run_again(void)
{
    char dir[] = "/tmp/test_startup.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char plain[600], attach[600];
    snprintf(plain, sizeof plain, "%s/plain.sql", dir);
    snprintf(attach, sizeof attach, "%s/attach.sql", dir);
    FILE *f = fopen(plain, "w");
    CHECK(f && fputs("INSERT INTO t VALUES (1);\nSELECT count() FROM t;\n", f) >= 0 && fclose(f) == 0);
    f = fopen(attach, "w");
    CHECK(f && fputs("SELECT 1;\nattach  database d;\n", f) >= 0 && fclose(f) == 0);

    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "-q", "INSERT INTO t VALUES (1)"), 1);
    CHECK_EQ_INT(MAY("chlocal", "--path=db", "--query=SELECT 1"), 1);
    CHECK_EQ_INT(MAY("chlocal", "--query", "SELECT 1", "--path", "db", "--param_x=1"), 1);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--queries-file", plain), 1);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--queries-file", plain, "--", "--max_threads=1"), 1);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--query_id", "x", "-q", "SELECT 1"), 1);
    /* no --path: no table is loaded as the engine starts */
    CHECK_EQ_INT(MAY("chlocal", "-q", "SELECT 1"), 0);
    CHECK_EQ_INT(MAY("chlocal", "-q", "SELECT 1", "--", "--path=db"), 0);
    /* queries on stdin, or spelt so their text is not read here */
    CHECK_EQ_INT(MAY("chlocal", "--path", "db"), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "-qSELECT 1"), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--queries-file", "-"), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--queries-file", "/dev/stdin"), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--queries-file", dir), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--queries-file", "/nonexistent/q.sql"), 0);
    /* a statement that loads tables as it runs, in any case, in any of the queries */
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "-q", "ATTACH TABLE t"), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "-q", "SELECT 1", "--query", "Attach database d"), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "--queries-file", attach), 0);
    CHECK_EQ_INT(MAY("chlocal", "--path", "db", "-q", "SELECT 1", "--queries-file", attach), 0);

    unlink(plain);
    unlink(attach);
    rmdir(dir);
}

int main(void)
{
    test_fixtures();
    test_job_named();
    test_may_run_again();
    return check_report();
}
