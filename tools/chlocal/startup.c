/* cs_startup: tells the embedded engine's start-up fault from every other failure, and whether a
 * run may start again (docs/testing.md, finding 10; chlocal --help). */
#include "startup.h"

#include "io.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Queries files bigger than this are not read to look for ATTACH: such a run is not run again. */
#define CS_QUERIES_MAX (64u << 20)

static const char *find(const char *p, const char *end, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(end - p) >= n ? memmem(p, (size_t)(end - p), s, n) : NULL;
}

static int starts(const char *p, const char *end, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

int cs_is_startup_fault(const char *text, size_t n, cs_fault *f)
{
    static const char CODE[] = "Code: ", WAITED[] = ". DB::Exception: Waited job failed: ",
                      JOB[] = "Load job '", CAUSE[] = "' failed: std::exception. Code: 1001, type: ",
                      TAIL[] = "(ASYNC_LOAD_WAIT_FAILED)";
    const char *p = text, *end = text + n;
    /* one line, blank lines around it aside */
    while (p < end && (*p == '\n' || *p == ' '))
        p++;
    while (end > p && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    if (p == end || memchr(p, '\n', (size_t)(end - p)))
        return 0;
    if (!starts(p, end, CODE))
        return 0;
    p += sizeof CODE - 1;
    const char *digits = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    if (p == digits || !starts(p, end, WAITED))
        return 0;
    const char *job = find(p, end, JOB);
    if (!job)
        return 0;
    job += sizeof JOB - 1;
    const char *job_end = memchr(job, '\'', (size_t)(end - job));
    if (!job_end || job_end == job || !starts(job_end, end, CAUSE))
        return 0;
    if ((size_t)(end - job_end) < sizeof CAUSE - 1 + sizeof TAIL - 1 ||
        memcmp(end - (sizeof TAIL - 1), TAIL, sizeof TAIL - 1) != 0)
        return 0;
    if (f) {
        f->job = job;
        f->job_len = (size_t)(job_end - job);
    }
    return 1;
}

static int says_attach(const char *s, size_t n)
{
    static const char W[] = "attach";
    for (size_t i = 0; i + sizeof W - 1 <= n; i++)
        if (strncasecmp(s + i, W, sizeof W - 1) == 0)
            return 1;
    return 0;
}

int cs_may_run_again(const cl_cmd *cmd)
{
    int last = cmd->sep >= 0 ? cmd->sep : cmd->engine_argc;
    int path = 0, queries = 0;
    for (int i = 1; i < last; i++) {
        const char *a = cmd->engine_argv[i], *v = NULL;
        int r;
        if ((r = cl_take_value(last, cmd->engine_argv, &i, "--path", &v)) != 0) {
            if (r < 0)
                return 0;
            path = 1;
        } else if ((r = cl_take_value(last, cmd->engine_argv, &i, "-q", &v)) != 0 ||
                   (r = cl_take_value(last, cmd->engine_argv, &i, "--query", &v)) != 0) {
            if (r < 0 || says_attach(v, strlen(v)))
                return 0;
            queries = 1;
        } else if ((r = cl_take_value(last, cmd->engine_argv, &i, "--queries-file", &v)) != 0) {
            /* a regular file only: reading a pipe (or "-", stdin) would take it from the run */
            struct stat st;
            char *sql = NULL;
            size_t len = 0;
            int bad = r < 0 || strcmp(v, "-") == 0 || stat(v, &st) != 0 || !S_ISREG(st.st_mode) ||
                      io_read_path_max(v, CS_QUERIES_MAX, &sql, &len) != 0 || says_attach(sql, len);
            free(sql);
            if (bad)
                return 0;
            queries = 1;
        } else if (a[0] == '-' && a[1] == 'q' && a[2] != '\0') {
            return 0; /* -qSELECT …: a spelling not read here, its text unknown */
        }
    }
    return path && queries;
}
