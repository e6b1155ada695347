/* split: cuts a procedure printed by ods-ddl into its numbered statements. Strict: a text that
 * does not look exactly as the writers print it is refused, never guessed at. */
#include "split.h"

#include <string.h>

static int fail(sp_error *err, const char *msg, size_t line)
{
    if (err) {
        err->msg = msg;
        err->line = line;
    }
    return SP_EFORMAT;
}

/* "-- K. " at p: K (1..999), else 0; *rest is what follows the space */
static int title_number(const char *p, char **rest)
{
    if (strncmp(p, "-- ", 3) != 0)
        return 0;
    p += 3;
    int k = 0, digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 4) {
        k = k * 10 + (*p++ - '0');
        digits++;
    }
    if (digits == 0 || digits > 3 || k == 0 || p[0] != '.' || p[1] != ' ')
        return 0;
    *rest = (char *)p + 2;
    return k;
}

/* the statement between body and end (exclusive): trailing blank lines cut, it must end ';' */
static int close_stmt(sp_stmt *s, char *body, char *end, size_t line, sp_error *err)
{
    while (end > body && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (end == body)
        return fail(err, "a statement is empty", line);
    if (end[-1] != ';')
        return fail(err, "a statement does not end with ';'", line);
    *end = '\0';
    s->sql = body;
    return 0;
}

int sp_split(char *text, sp_stmt *out, int max, sp_error *err)
{
    int n = 0;
    char *body = NULL;
    size_t line = 1;
    for (char *p = text; *p; line++) {
        char *nl = strchr(p, '\n');
        char *next = nl ? nl + 1 : p + strlen(p);
        char *rest;
        int k = title_number(p, &rest);
        if (k == n + 1) {
            if (n > 0 && close_stmt(&out[n - 1], body, p, line, err) < 0)
                return SP_EFORMAT;
            if (n == max)
                return fail(err, "more statements than expected", line);
            if (!nl)
                return fail(err, "a title is the last line", line);
            *nl = '\0';
            out[n].k = k;
            out[n].title = rest;
            out[n].sql = NULL;
            n++;
            body = next;
        } else if (k > 0 && !(n > 0 && k <= n)) {
            return fail(err, "statement titles out of order", line);
        } else if (n == 0 && strncmp(p, "--", 2) != 0 && p[0] != '\n') {
            return fail(err, "text before the first statement's title", line);
        }
        p = next;
    }
    size_t last = line > 1 ? line - 1 : 1; /* the text's last line */
    if (n == 0)
        return fail(err, "no statement", last);
    if (close_stmt(&out[n - 1], body, body + strlen(body), last, err) < 0)
        return SP_EFORMAT;
    return n;
}
