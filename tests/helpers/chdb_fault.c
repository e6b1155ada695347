/* chdb_fault: a stand-in for libchdb (chlocal --libchdb) that fails the engine's start the way the
 * real engine sometimes does, a set number of times, then hands every call to the real engine.
 *
 * CHDB_FAULT_REAL   the real libchdb.so
 * CHDB_FAULT_COUNT  a file holding N: while N > 0 a call decrements it, prints CHDB_FAULT_TEXT (a
 *                   file; by default the fault CI met on 2026-12-07) to stderr and fails as the
 *                   engine does (no result bytes, no error text); each call also appends a line
 *                   "fault" or "real" to the file's name + ".log". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chdb_result chdb_result;

static const char DEFAULT_TEXT[] =
    "Code: 722. DB::Exception: Waited job failed: Code: 695. DB::Exception: Load job 'load table "
    "stg.orders_raw' failed: std::exception. Code: 1001, type: std::__1::system_error, e.what() = "
    "recursive_mutex lock failed: Invalid argument,. (ASYNC_LOAD_WAIT_FAILED)\n";

struct wrapped {
    int fake;
    chdb_result *real;
};

static struct {
    chdb_result *(*query_cmdline)(int, char **);
    char *(*buffer)(chdb_result *);
    size_t (*length)(chdb_result *);
    const char *(*error)(chdb_result *);
    void (*destroy)(chdb_result *);
} real;

static int load_real(void)
{
    const char *path = getenv("CHDB_FAULT_REAL");
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h)
        return -1;
    *(void **)&real.query_cmdline = dlsym(h, "chdb_query_cmdline");
    *(void **)&real.buffer = dlsym(h, "chdb_result_buffer");
    *(void **)&real.length = dlsym(h, "chdb_result_length");
    *(void **)&real.error = dlsym(h, "chdb_result_error");
    *(void **)&real.destroy = dlsym(h, "chdb_destroy_query_result");
    return real.query_cmdline && real.buffer && real.length && real.error && real.destroy ? 0 : -1;
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
    w->real = real.query_cmdline(argc, argv);
    return (chdb_result *)w;
}

char *chdb_result_buffer(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    return w->fake || !w->real ? NULL : real.buffer(w->real);
}

size_t chdb_result_length(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    return w->fake || !w->real ? 0 : real.length(w->real);
}

const char *chdb_result_error(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    return w->fake ? "" : !w->real ? "no result" : real.error(w->real);
}

void chdb_destroy_query_result(chdb_result *r)
{
    struct wrapped *w = (struct wrapped *)r;
    if (!w->fake && w->real)
        real.destroy(w->real);
    free(w);
}
