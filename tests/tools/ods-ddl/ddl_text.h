/* ddl_text.h: what the ods-ddl unit tests (test_ddl.c, test_transition.c) share to read the
 * generated SQL: the generator's output as a string, counting, the contract's column lists. */
#ifndef DDL_TEXT_H
#define DDL_TEXT_H

#include "check.h"
#include "ddl.h"

#include <stdlib.h>
#include <string.h>

typedef int (*gen_fn)(FILE *, const ddl_opts *);

/* The generator's output as a malloc-ed string, or NULL when it failed. */
static inline char *gen(gen_fn fn, const ddl_opts *o)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    int rc = fn(f, o);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* s with every occurrence of from replaced by to, malloc-ed (NULL for a NULL s or no memory). */
static inline char *replace_all(const char *s, const char *from, const char *to)
{
    if (!s)
        return NULL;
    size_t nf = strlen(from), nt = strlen(to), n = 0;
    for (const char *p = s; (p = strstr(p, from)); p += nf)
        n++;
    char *out = malloc(strlen(s) + n * nt + 1), *o = out;
    if (!out)
        return NULL;
    const char *p = s;
    for (const char *q; (q = strstr(p, from)); p = q + nf) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, nt);
        o += nt;
    }
    strcpy(o, p);
    return out;
}

/* Occurrences of needle in hay, not overlapping; 0 for a NULL hay. */
static inline int count(const char *hay, const char *needle)
{
    int c = 0;
    for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle))
        c++;
    return c;
}

static inline int starts(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline int ends(const char *s, const char *suffix)
{
    return s && strlen(s) >= strlen(suffix) && strcmp(s + strlen(s) - strlen(suffix), suffix) == 0;
}

/* ddl_extract of f as a malloc-ed string. */
static inline char *extract_text(const wire_field *f)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    int rc = ddl_extract(m, f);
    fclose(m);
    CHECK_EQ_INT(rc, 0);
    return buf;
}

/* The columns of _rep, _hot and order_v, comma-separated: the contract's, then _hashdiff,
 * _load_id, _load_ts. */
static inline const char *store_cols(void)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s, ", WIRE_FIELDS[i].name);
    snprintf(buf + n, sizeof buf - n, "_hashdiff, _load_id, _load_ts");
    return buf;
}

/* The CREATE statement of NAME (from "CREATE TABLE IF NOT EXISTS NAME" on), or NULL. */
static inline const char *create_of(const char *s, const char *name)
{
    char want[128];
    snprintf(want, sizeof want, "CREATE TABLE IF NOT EXISTS %s", name);
    const char *p = s;
    while (p && (p = strstr(p, want))) {
        char c = p[strlen(want)];
        if (c == '\n' || c == ' ')
            return p;
        p += strlen(want);
    }
    return NULL;
}

#endif
