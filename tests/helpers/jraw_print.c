/* jraw_print: prints, for each JSON value on stdin (one a line), jraw's re-printed text of it (the
 * line ERROR when sj_walk or jraw refuses it), for the differential test against the engine. */
#include "jraw.h"
#include "sj.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each line is walked as the engine's query sees it, {"v":LINE}, and v is printed as the UDF
 * prints a member's value: jraw fed from inside the walk of an enclosing object. */
#define PRE "{\"v\":"
#define PRE_N (sizeof PRE - 1)

typedef struct {
    jraw j;
    int keys; /* root keys seen: only "v" may be one */
} ctx_t;

static int on_key(void *ctx, unsigned depth, const char *p, const char *end)
{
    ctx_t *c = ctx;
    if (depth == 1)
        return c->keys++ ? -1 : 0; /* the line held more than one value */
    return jraw_key(&c->j, depth, p, end);
}

static int on_value(void *ctx, unsigned depth, sj_kind kind, const char *p, const char *end)
{
    ctx_t *c = ctx;
    if (depth == 0)
        return 0; /* the wrapper */
    return jraw_value(&c->j, depth, kind, p, end);
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fputs("usage: jraw_print <lines.json\n", stderr);
        return 2;
    }
    static const sj_visitor vis = {on_key, on_value};
    sj_parser *sp = sj_new();
    char *line = NULL, *buf = NULL;
    size_t lcap = 0, bcap = 0;
    ctx_t c;
    jraw_init(&c.j);
    if (!sp) {
        fputs("jraw_print: out of memory\n", stderr);
        return 1;
    }
    ssize_t len;
    while ((len = getline(&line, &lcap, stdin)) >= 0) {
        size_t n = (size_t)len;
        if (n && line[n - 1] == '\n')
            n--;
        /* sj_walk reads up to SJ_PADDING bytes past the text */
        size_t tn = PRE_N + n + 1;
        if (tn + SJ_PADDING > bcap) {
            bcap = (tn + SJ_PADDING) * 2;
            free(buf);
            buf = malloc(bcap);
            if (!buf) {
                fputs("jraw_print: out of memory\n", stderr);
                return 1;
            }
        }
        memcpy(buf, PRE, PRE_N);
        memcpy(buf + PRE_N, line, n);
        buf[tn - 1] = '}';
        memset(buf + tn, 0, SJ_PADDING);
        jraw_begin(&c.j);
        c.keys = 0;
        sj_error err = {0};
        int rc = sj_walk(sp, buf, tn, &vis, &c, &err), jrc = 0;
        if (rc == SJ_OK || rc == SJ_ESTOP) /* ESTOP: jraw's own error, which it repeats */
            jrc = jraw_end(&c.j);
        if (rc == SJ_ENOMEM || jrc == JRAW_ENOMEM) {
            fputs("jraw_print: out of memory\n", stderr);
            return 1;
        }
        if (rc || jrc) {
            puts("ERROR");
        } else {
            fwrite(c.j.p, 1, c.j.n, stdout);
            putchar('\n');
        }
    }
    jraw_free(&c.j);
    sj_free(sp);
    free(line);
    free(buf);
    return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
