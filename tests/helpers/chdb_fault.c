/* chdb_fault: a stand-in for libchdb (chlocal --libchdb) that fails the engine's start the way the
 * real engine sometimes does, a set number of times, then hands every call to the real engine.
 *
 * CHDB_FAULT_REAL   the real libchdb.so
 * CHDB_FAULT_COUNT  a file holding N: while N > 0 a call decrements it, prints CHDB_FAULT_TEXT (a
 *                   file; by default the fault CI met on 2026-12-07) to stderr and fails as the
 *                   engine does (no result bytes, no error text); each call also appends a line
 *                   "fault" or "real" to the file's name + ".log".
 * CHDB_FAULT_AFTER_REAL  when not empty, a failing call first runs the real engine on the same command
 *                   line and drops its answer (a read-only command: the engine started, held
 *                   --path and its threads before the fault, as it does when the fault is real). */
#include "chdb_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char DEFAULT_TEXT[] =
    "Code: 722. DB::Exception: Waited job failed: Code: 695. DB::Exception: Load job 'load table "
    "stg.orders_raw' failed: std::exception. Code: 1001, type: std::__1::system_error, e.what() = "
    "recursive_mutex lock failed: Invalid argument,. (ASYNC_LOAD_WAIT_FAILED)\n";

struct wrapped {
    int fake;
    chdb_result *real;
};

static chdb_api g_real;

static int load_real(void)
{
    const char *path = getenv("CHDB_FAULT_REAL");
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    return h ? chdb_api_load(h, &g_real) : -1;
}

static void log_call(const char *count_path, const char *what)
{
    char log[4096];
    snprintf(log, sizeof log, "%s.log", count_path);
    FILE *f = fopen(log, "a");
    if (f) {
        fprintf(f, "%s\n", what);
        fclose(f);
    }
}

/* 1 when this call is to fail (the counter was above 0 and is now one less) */
static int take_fault(const char *count_path)
{
    FILE *f = count_path ? fopen(count_path, "r+") : NULL;
    long n = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%ld", &n) != 1)
        n = 0;
    if (n > 0) {
        rewind(f);
        fprintf(f, "%ld\n", n - 1);
    }
    fclose(f);
    return n > 0;
}

static void print_fault(void)
{
    const char *path = getenv("CHDB_FAULT_TEXT");
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) {
        fputs(DEFAULT_TEXT, stderr);
        return;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stderr);
    fclose(f);
}

chdb_result *chdb_query_cmdline(int argc, char **argv)
{
    const char *count_path = getenv("CHDB_FAULT_COUNT");
    struct wrapped *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    if (take_fault(count_path)) {
        log_call(count_path, "fault");
        const char *after_real = getenv("CHDB_FAULT_AFTER_REAL");
        if (after_real && *after_real) {
            if (load_real() != 0) {
                fputs("chdb_fault: cannot load CHDB_FAULT_REAL\n", stderr);
                free(w);
                return NULL;
            }
            chdb_result *r = g_real.query_cmdline(argc, argv);
            if (r)
                g_real.destroy(r);
        }
        print_fault();
        fflush(stderr);
        w->fake = 1;
        return (chdb_result *)w;
    }
    if (count_path)
        log_call(count_path, "real");
    if (load_real() != 0) {
        fputs("chdb_fault: cannot load CHDB_FAULT_REAL\n", stderr);
        free(w);
        return NULL;
    }
    w->real = g_real.query_cmdline(argc, argv);
    return (chdb_result *)w;
}

char *chdb_result_buffer(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    return w->fake || !w->real ? NULL : g_real.buffer(w->real);
}

size_t chdb_result_length(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    return w->fake || !w->real ? 0 : g_real.length(w->real);
}

const char *chdb_result_error(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    return w->fake ? "" : !w->real ? "no result" : g_real.error(w->real);
}

void chdb_destroy_query_result(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    if (!w->fake && w->real)
        g_real.destroy(w->real);
    free(w);
}
