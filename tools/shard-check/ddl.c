/* ddl.c: a small ClickHouse SQL tokenizer and CREATE TABLE reader (names, columns, ENGINE
 * arguments, PARTITION BY, ORDER BY) and the checks that make FINAL per shard correct. */
#include "ddl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cfg.h"
#include "key.h"

enum { T_END, T_IDENT, T_QIDENT, T_STRING, T_NUMBER, T_PUNCT };

typedef struct {
    int type;
    char *text;
    long line;
} tok;

typedef struct {
    tok *t;
    size_t n, cap;
} toks;

typedef struct {
    size_t b, e; /* token indices [b, e) */
} range;

#define MAX_ARGS 8
typedef struct {
    char db[256], name[256];
    long line;
    char engine[128];
    range args[MAX_ARGS];
    size_t n_args;
    int has_args;
    range partition, order;
    int has_partition, has_order;
    char as_db[256], as_name[256];
    char **cols;
    size_t n_cols;
    int colocate; /* a Distributed table not over the versions: 1 to check its routing, -1 to skip */
} table;

static int push(toks *ts, int type, const char *s, size_t n, long line)
{
    if (ts->n == ts->cap) {
        size_t c = ts->cap ? ts->cap * 2 : 256;
        tok *nt = realloc(ts->t, c * sizeof *nt);
        if (!nt)
            return -1;
        ts->t = nt;
        ts->cap = c;
    }
    char *x = malloc(n + 1);
    if (!x)
        return -1;
    memcpy(x, s, n);
    x[n] = 0;
    ts->t[ts->n++] = (tok){type, x, line};
    return 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Reads a quoted token body ending in q; backslash escapes and doubled quotes, as ClickHouse. */
static long quoted(const char *s, size_t len, size_t i, char q, char *out, size_t *olen, long *line)
{
    size_t w = 0;
    for (i++; i < len; i++) {
        char c = s[i];
        if (c == '\n')
            ++*line;
        if (c == '\\' && i + 1 < len) {
            char d = s[++i];
            int hi, lo;
            /* \xHH and the one-letter escapes the engine decodes (decodeEscapeSequence) */
            if (d == 'x' && i + 2 < len && (hi = hexval(s[i + 1])) >= 0 && (lo = hexval(s[i + 2])) >= 0) {
                out[w++] = (char)(hi * 16 + lo);
                i += 2;
                continue;
            }
            out[w++] = d == 'n' ? '\n' : d == 't' ? '\t' : d == '0' ? '\0' : d == 'r' ? '\r' : d == 'b' ? '\b'
                     : d == 'f' ? '\f' : d == 'a' ? '\a' : d == 'v' ? '\v' : d == 'e' ? '\033' : d;
        } else if (c == q) {
            if (i + 1 < len && s[i + 1] == q) {
                out[w++] = q;
                i++;
            } else {
                *olen = w;
                return (long)i + 1;
            }
        } else {
            out[w++] = c;
        }
    }
    return -1;
}

static int tokenize(const char *s, size_t len, toks *ts, sc_err *err)
{
    long line = 1;
    char *tmp = malloc(len + 1);
    if (!tmp)
        return SC_E_NOMEM;
    size_t i = 0;
    int rc = SC_OK;
    while (i < len && rc == SC_OK) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line++;
            i++;
        } else if (isspace(c)) {
            i++;
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            while (i < len && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(s[j] == '*' && s[j + 1] == '/'))
                line += s[j++] == '\n';
            if (j + 1 >= len) {
                sc_err_set(err, "unterminated /* comment", "SQL", line, 0);
                rc = SC_E_INPUT;
                break;
            }
            i = j + 2;
        } else if (isalpha(c) || c == '_') {
            size_t j = i;
            while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '_'))
                j++;
            if (push(ts, T_IDENT, s + i, j - i, line) != 0)
                rc = SC_E_NOMEM;
            i = j;
        } else if (isdigit(c)) {
            size_t j = i;
            while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '.'))
                j++;
            if (push(ts, T_NUMBER, s + i, j - i, line) != 0)
                rc = SC_E_NOMEM;
            i = j;
        } else if (c == '\'' || c == '`' || c == '"') {
            size_t olen;
            long start_line = line;
            long j = quoted(s, len, i, (char)c, tmp, &olen, &line);
            if (j < 0) {
                sc_err_set(err, c == '\'' ? "unterminated string literal" : "unterminated quoted identifier",
                           "SQL", start_line, 0);
                rc = SC_E_INPUT;
                break;
            }
            if (push(ts, c == '\'' ? T_STRING : T_QIDENT, tmp, olen, start_line) != 0)
                rc = SC_E_NOMEM;
            i = (size_t)j;
        } else {
            if (push(ts, T_PUNCT, s + i, 1, line) != 0)
                rc = SC_E_NOMEM;
            i++;
        }
    }
    free(tmp);
    if (rc == SC_OK && push(ts, T_END, "", 0, line) != 0)
        rc = SC_E_NOMEM;
    return rc;
}

static void toks_free(toks *ts)
{
    for (size_t i = 0; i < ts->n; i++)
        free(ts->t[i].text);
    free(ts->t);
}

static int is_kw(const tok *t, const char *kw) { return t->type == T_IDENT && !strcasecmp(t->text, kw); }
static int is_p(const tok *t, char c) { return t->type == T_PUNCT && t->text[0] == c; }
static int is_name(const tok *t) { return t->type == T_IDENT || t->type == T_QIDENT; }

/* Renders tokens [r.b, r.e) compactly: identifiers unquoted, spaces only between words. */
static void render(const toks *ts, range r, char *out, size_t cap)
{
    size_t w = 0;
    int prev_word = 0;
    out[0] = 0;
    for (size_t i = r.b; i < r.e && w + 4 < cap; i++) {
        const tok *t = &ts->t[i];
        int word = t->type != T_PUNCT;
        if (word && prev_word)
            out[w++] = ' ';
        const char *q = t->type == T_STRING ? "'" : "";
        int n = snprintf(out + w, cap - w, "%s%s%s", q, t->text, q);
        if (n < 0 || (size_t)n >= cap - w) {
            w = cap - 1;
            break;
        }
        w += (size_t)n;
        prev_word = word;
    }
    out[w < cap ? w : cap - 1] = 0;
}

/* Splits [r.b, r.e) at top-level commas. Returns the number of parts (at most max). */
static size_t split_commas(const toks *ts, range r, range *parts, size_t max)
{
    size_t n = 0, start = r.b;
    int depth = 0;
    for (size_t i = r.b; i <= r.e; i++) {
        if (i < r.e) {
            const tok *t = &ts->t[i];
            if (is_p(t, '(') || is_p(t, '['))
                depth++;
            else if (is_p(t, ')') || is_p(t, ']'))
                depth--;
            if (!(depth == 0 && is_p(t, ',')))
                continue;
        }
        if (n < max)
            parts[n] = (range){start, i};
        n++;
        start = i + 1;
    }
    return n;
}

/* Index just past the parenthesis matching the one at i, or 0 if unbalanced. */
static size_t skip_parens(const toks *ts, size_t i, size_t e)
{
    int depth = 0;
    for (; i < e; i++) {
        if (is_p(&ts->t[i], '('))
            depth++;
        else if (is_p(&ts->t[i], ')') && --depth == 0)
            return i + 1;
    }
    return 0;
}

static int clause_start(const toks *ts, size_t i)
{
    const tok *t = &ts->t[i], *n = &ts->t[i + (ts->t[i].type != T_END)];
    return t->type == T_END || is_p(t, ';') || is_kw(t, "ENGINE") || is_kw(t, "SETTINGS") || is_kw(t, "COMMENT") ||
           is_kw(t, "TTL") || ((is_kw(t, "PARTITION") || is_kw(t, "ORDER") || is_kw(t, "SAMPLE")) && is_kw(n, "BY")) ||
           (is_kw(t, "PRIMARY") && is_kw(n, "KEY"));
}

/* The end of a clause's expression starting at i: the next top-level clause keyword. */
static size_t clause_end(const toks *ts, size_t i, size_t e)
{
    int depth = 0;
    for (; i < e; i++) {
        const tok *t = &ts->t[i];
        if (is_p(t, '(') || is_p(t, '['))
            depth++;
        else if (is_p(t, ')') || is_p(t, ']'))
            depth--;
        else if (depth == 0 && clause_start(ts, i))
            return i;
    }
    return e;
}

static void set_name(const toks *ts, size_t *i, char *db, char *name)
{
    db[0] = 0;
    snprintf(name, 256, "%s", ts->t[*i].text);
    ++*i;
    if (is_p(&ts->t[*i], '.') && is_name(&ts->t[*i + 1])) {
        snprintf(db, 256, "%s", name);
        snprintf(name, 256, "%s", ts->t[*i + 1].text);
        *i += 2;
    }
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->n_cols; i++)
        free(t->cols[i]);
    free(t->cols);
}

/* Parses one CREATE TABLE statement spanning tokens [b, e). Returns 1 if it is one, 0 if the
 * statement is something else, -1 on a malformed CREATE TABLE. */
static int parse_create(const toks *ts, size_t b, size_t e, table *t, sc_err *err)
{
    memset(t, 0, sizeof *t);
    size_t i = b;
    if (!is_kw(&ts->t[i], "CREATE") && !is_kw(&ts->t[i], "ATTACH"))
        return 0;
    i++;
    if (is_kw(&ts->t[i], "OR") && is_kw(&ts->t[i + 1], "REPLACE"))
        i += 2;
    if (!is_kw(&ts->t[i], "TABLE"))
        return 0;
    i++;
    if (is_kw(&ts->t[i], "IF") && is_kw(&ts->t[i + 1], "NOT") && is_kw(&ts->t[i + 2], "EXISTS"))
        i += 3;
    t->line = ts->t[b].line;
    if (!is_name(&ts->t[i])) {
        sc_err_set(err, "CREATE TABLE without a table name", "SQL", ts->t[i].line, 0);
        return -1;
    }
    set_name(ts, &i, t->db, t->name);
    if (is_kw(&ts->t[i], "ON") && is_kw(&ts->t[i + 1], "CLUSTER"))
        i += ts->t[i + 2].type == T_END ? 2 : 3; /* never step past the end token */
    if (is_p(&ts->t[i], '(')) {
        size_t close = skip_parens(ts, i, e);
        if (!close) {
            sc_err_set(err, "unbalanced parentheses in the column list", "SQL", ts->t[i].line, 0);
            return -1;
        }
        range parts[1024];
        size_t n = split_commas(ts, (range){i + 1, close - 1}, parts, 1024);
        t->cols = calloc(n ? n : 1, sizeof *t->cols);
        for (size_t k = 0; t->cols && k < n && k < 1024; k++) {
            const tok *c = &ts->t[parts[k].b];
            if (parts[k].b >= parts[k].e || !is_name(c) ||
                (c->type == T_IDENT && (is_kw(c, "INDEX") || is_kw(c, "PROJECTION") || is_kw(c, "CONSTRAINT"))))
                continue;
            t->cols[t->n_cols++] = strdup(c->text);
        }
        i = close;
    }
    if (is_kw(&ts->t[i], "AS") && is_name(&ts->t[i + 1]) && !is_p(&ts->t[i + 2], '('))
        i++, set_name(ts, &i, t->as_db, t->as_name);
    while (i < e) {
        const tok *k = &ts->t[i];
        if (is_kw(k, "ENGINE")) {
            i++;
            if (is_p(&ts->t[i], '='))
                i++;
            if (!is_name(&ts->t[i])) {
                sc_err_set(err, "ENGINE without an engine name", "SQL", ts->t[i].line, 0);
                return -1;
            }
            snprintf(t->engine, sizeof t->engine, "%s", ts->t[i].text);
            i++;
            if (is_p(&ts->t[i], '(')) {
                size_t close = skip_parens(ts, i, e);
                if (!close) {
                    sc_err_set(err, "unbalanced parentheses in ENGINE", "SQL", ts->t[i].line, 0);
                    return -1;
                }
                t->has_args = 1;
                if (close - i > 2)
                    t->n_args = split_commas(ts, (range){i + 1, close - 1}, t->args, MAX_ARGS);
                if (t->n_args > MAX_ARGS)
                    t->n_args = MAX_ARGS;
                i = close;
            }
        } else if ((is_kw(k, "PARTITION") || is_kw(k, "ORDER")) && is_kw(&ts->t[i + 1], "BY")) {
            size_t s = i + 2, end = clause_end(ts, s, e);
            if (is_kw(k, "PARTITION"))
                t->partition = (range){s, end}, t->has_partition = 1;
            else
                t->order = (range){s, end}, t->has_order = 1;
            i = end;
        } else {
            i++;
        }
    }
    return 1;
}

/* The value of an engine argument that names something: identifier or string literal. */
static const char *arg_name(const toks *ts, range r)
{
    if (r.e == r.b + 1 && (is_name(&ts->t[r.b]) || ts->t[r.b].type == T_STRING))
        return ts->t[r.b].text;
    return NULL;
}

/* A bare word the expression parser reads as a literal, not as an identifier. */
static int literal_word(const tok *t)
{
    static const char *const words[] = {"null", "true", "false", "inf", "infinity", "nan"};
    for (size_t i = 0; t->type == T_IDENT && i < sizeof words / sizeof words[0]; i++)
        if (!strcasecmp(t->text, words[i]))
            return 1;
    return 0;
}

/* The cluster name of Distributed's first argument as the engine's getClusterName reads it: an
 * identifier (bare, `back` or "double" quoted, db.name compound), a string literal, or several
 * of those joined by '-' (prod-ods parses as minus(prod, ods): the engine's "hack to support
 * hyphens", which joins them with '-', however they were spaced). *out is malloc'ed; NULL when
 * the argument is anything else (the engine refuses it), or out of memory (*oom set). */
static char *cluster_arg(const toks *ts, range r, int *oom)
{
    size_t cap = 1;
    for (size_t i = r.b; i < r.e; i++)
        cap += strlen(ts->t[i].text) + 1;
    char *out = malloc(cap);
    if (!out) {
        *oom = 1;
        return NULL;
    }
    size_t w = 0, i = r.b;
    for (;;) {
        /* one operand: a string literal, or an identifier with .parts */
        const tok *t = &ts->t[i];
        if (i >= r.e || !(is_name(t) || t->type == T_STRING) || literal_word(t))
            break;
        w += (size_t)sprintf(out + w, "%s", t->text);
        i++;
        while (t->type != T_STRING && i + 1 < r.e && is_p(&ts->t[i], '.') && is_name(&ts->t[i + 1]))
            w += (size_t)sprintf(out + w, ".%s", ts->t[i + 1].text), i += 2;
        if (i == r.e)
            return out;
        if (!is_p(&ts->t[i], '-'))
            break;
        out[w++] = '-';
        i++;
    }
    free(out);
    return NULL;
}

/* s with TSV escaping (sc_fput_escaped's) into buf, truncated to fit, so that a name from the
 * SQL cannot forge a line of the report. */
static const char *esc(const char *s, char *buf, size_t cap)
{
    size_t w = 0;
    for (; s && *s && w + 3 < cap; s++) {
        const char *e = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r"
                      : *s == '\b' ? "\\b" : *s == '\f' ? "\\f" : NULL;
        if (e) {
            memcpy(buf + w, e, 2);
            w += 2;
        } else {
            buf[w++] = *s;
        }
    }
    buf[w] = 0;
    return buf;
}

int sc_macros_load_config(sc_macros *m, const char *config)
{
    m->cfg_why = "no value: give --macro NAME=VALUE, or a --config whose <macros> defines it";
    if (!config)
        return SC_OK;
    struct stat sb;
    if (!strcmp(config, "-") || stat(config, &sb) != 0 || !(S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode))) {
        m->cfg_why = "no value: give --macro NAME=VALUE (the --config is not a regular file or directory, "
                     "so it is not read twice for its <macros>)";
        return SC_OK;
    }
    sc_err e = {0};
    int rc = cfg_macros(config, &m->cfg_defs, &m->n_cfg, &e);
    if (rc == SC_E_NOMEM)
        return rc;
    if (rc == SC_E_REFUSED)
        m->cfg_refused = e;
    m->cfg_why = rc == SC_OK ? "no value: no --macro NAME=VALUE, and the --config's <macros> does not define it"
                             : "no value: give --macro NAME=VALUE (the --config has no <macros> to read: "
                               "not a readable server config XML, e.g. a system.clusters dump)";
    return SC_OK;
}

void sc_macros_free_config(sc_macros *m)
{
    for (size_t i = 0; i < m->n_cfg; i++)
        free(m->cfg_defs[i]);
    free(m->cfg_defs);
    m->cfg_defs = NULL;
    m->n_cfg = 0;
}

/* The value of macro name (len bytes) in *val (malloc'ed): the last --macro NAME=VALUE, else
 * the config's <macros>. SC_OK, SC_E_CHECK with *why when it has none, SC_E_NOMEM. */
static int macro_value(const sc_macros *m, const char *name, size_t len, char **val, const char **why)
{
    *val = NULL;
    for (size_t k = m ? m->n_defs : 0; k-- > 0;) {
        const char *d = m->defs[k], *eq = strchr(d, '=');
        if (eq && (size_t)(eq - d) == len && !memcmp(d, name, len))
            return (*val = strdup(eq + 1)) ? SC_OK : SC_E_NOMEM;
    }
    for (size_t k = 0; m && k < m->n_cfg; k++) {
        const char *d = m->cfg_defs[k], *eq = strchr(d, '=');
        if ((size_t)(eq - d) == len && !memcmp(d, name, len))
            return (*val = strdup(eq + 1)) ? SC_OK : SC_E_NOMEM;
    }
    *why = m && m->cfg_why ? m->cfg_why : "no value: give --macro NAME=VALUE, or a --config whose <macros> defines it";
    return SC_E_CHECK;
}

int sc_macros_expand(const sc_macros *m, const char *s, char **out, sc_err *err)
{
    char *cur = strdup(s);
    if (!cur)
        return SC_E_NOMEM;
    /* as Macros::expand: one pass replaces every {NAME}, then the result is expanded again
     * (a value may hold macros), at most 10 levels, results over 64 KiB refused */
    for (int level = 0; strchr(cur, '{'); level++) {
        char b1[200], b2[200];
        if (level >= 10 || (level && strlen(cur) > 65536)) {
            snprintf(err->where, sizeof err->where, "cluster name '%s'", esc(s, b1, sizeof b1));
            err->msg = "its macros expand too deep (10 levels) or too long, as the server refuses them";
            err->line = err->col = 0;
            free(cur);
            return SC_E_INPUT;
        }
        size_t n = strlen(cur), cap = n + 1, w = 0;
        char *res = malloc(cap);
        int rc = res ? SC_OK : SC_E_NOMEM;
        for (size_t pos = 0; rc == SC_OK;) {
            const char *open = strchr(cur + pos, '{');
            size_t b = open ? (size_t)(open - cur) : n;
            if (w + (b - pos) + 1 > cap) {
                char *nr = realloc(res, cap = w + (b - pos) + 1);
                if (!nr) {
                    rc = SC_E_NOMEM;
                    break;
                }
                res = nr;
            }
            memcpy(res + w, cur + pos, b - pos);
            w += b - pos;
            res[w] = 0;
            if (!open)
                break;
            const char *close = strchr(open + 1, '}');
            if (!close) {
                snprintf(err->where, sizeof err->where, "cluster name '%s'", esc(s, b1, sizeof b1));
                err->msg = "a '{' without its '}': the server reads {NAME} as a macro and refuses this";
                err->line = err->col = 0;
                rc = SC_E_INPUT;
                break;
            }
            char *val;
            const char *why = NULL;
            rc = macro_value(m, open + 1, (size_t)(close - open - 1), &val, &why);
            if (rc == SC_E_CHECK) {
                char name[200];
                snprintf(name, sizeof name, "%.*s", (int)(close - open - 1), open + 1);
                snprintf(err->where, sizeof err->where, "macro {%s} in cluster name '%s'", esc(name, b2, sizeof b2),
                         esc(s, b1, sizeof b1));
                err->msg = why;
                err->line = err->col = 0;
                rc = SC_E_INPUT;
                break;
            }
            if (rc != SC_OK)
                break;
            size_t vl = strlen(val);
            char *nr = realloc(res, cap = w + vl + (n - (size_t)(close + 1 - cur)) + 1);
            if (!nr) {
                free(val);
                rc = SC_E_NOMEM;
                break;
            }
            res = nr;
            memcpy(res + w, val, vl + 1);
            w += vl;
            free(val);
            pos = (size_t)(close + 1 - cur);
        }
        free(cur);
        if (rc != SC_OK) {
            free(res);
            return rc;
        }
        cur = res;
    }
    *out = cur;
    return SC_OK;
}

/* Column identifiers an expression uses (identifiers not called as functions, not keywords). */
static size_t columns_used(const toks *ts, range r, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = r.b; i < r.e; i++) {
        const tok *t = &ts->t[i];
        if (!is_name(t) || is_p(&ts->t[i + 1], '('))
            continue;
        if (t->type == T_IDENT && (is_kw(t, "tuple") || is_kw(t, "AND") || is_kw(t, "OR") || is_kw(t, "NOT") ||
                                   is_kw(t, "INTERVAL") || is_kw(t, "DAY") || is_kw(t, "MONTH")))
            continue;
        int dup = 0;
        for (size_t k = 0; k < n && k < max; k++)
            dup |= !strcmp(out[k], t->text);
        if (!dup && n < max)
            out[n++] = t->text;
    }
    return n;
}

/* The ORDER BY key's elements: (a, b) / tuple(a, b) / a. */
static size_t key_elems(const toks *ts, range r, range *parts, size_t max)
{
    size_t b = r.b;
    if (is_kw(&ts->t[b], "tuple") && is_p(&ts->t[b + 1], '('))
        b++;
    if (is_p(&ts->t[b], '(') && skip_parens(ts, b, r.e) == r.e)
        return r.e - b <= 2 ? 0 : split_commas(ts, (range){b + 1, r.e - 1}, parts, max);
    return split_commas(ts, r, parts, max);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* The local table a Distributed table d points at (NULL when not in the input), its name as
 * "db.table" in lname, and the bare table name in *ltab. */
/* How ods-ddl routes the rejected messages (the errors table): by their Kafka coordinates. */
#define ERR_KEY "cityHash64(_topic,_partition,_offset)" /* as render() writes it */

/* does table t have every column of names */
static int has_all(const table *t, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < t->n_cols && strcmp(t->cols[k], names[i]) != 0)
            k++;
        if (k == t->n_cols)
            return 0;
    }
    return 1;
}

static table *local_of(const toks *ts, table *tabs, size_t n_tabs, const table *d, char *lname, size_t size,
                       const char **ltab)
{
    const char *ldb = arg_name(ts, d->args[1]);
    *ltab = arg_name(ts, d->args[2]);
    if (!ldb || !ldb[0])
        ldb = d->db;
    snprintf(lname, size, "%s%s%s", ldb ? ldb : "", ldb && ldb[0] ? "." : "", *ltab ? *ltab : "?");
    table *loc = NULL;
    for (size_t k = 0; *ltab && k < n_tabs; k++)
        if (!strcmp(tabs[k].name, *ltab) && (!tabs[k].db[0] || !ldb[0] || !strcmp(tabs[k].db, ldb)) &&
            strcmp(tabs[k].engine, "Distributed") != 0)
            loc = &tabs[k];
    return loc;
}

typedef struct {
    FILE *problems;
    size_t n;
    const char *dist;
} ctx;

__attribute__((format(printf, 2, 3))) static void problem(ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->problems, "%s: ", c->dist);
    vfprintf(c->problems, fmt, ap);
    fputc('\n', c->problems);
    va_end(ap);
    c->n++;
}

static void check_local(ctx *c, const toks *ts, const table *loc, const char *lname, const sc_ddl_opts *o)
{
    char buf[1024], keys[1024];
    if (!ends_with(loc->engine, "ReplacingMergeTree")) {
        problem(c, "the local table %s has ENGINE %s, not ReplacingMergeTree: FINAL does not collapse versions "
                   "of an order at all", lname, loc->engine);
        return;
    }
    /* Replicated* with explicit ZooKeeper path and replica: the version is the third argument */
    size_t v = 0;
    if (!strncmp(loc->engine, "Replicated", 10) && loc->n_args >= 2 &&
        ts->t[loc->args[0].b].type == T_STRING)
        v = 2;
    if (loc->n_args <= v) {
        problem(c, "the local table %s is %s without a version column: FINAL keeps the row inserted last, "
                   "not the newest updated_at, so a late or replayed older snapshot wins", lname, loc->engine);
    } else {
        render(ts, loc->args[v], buf, sizeof buf);
        if (strcmp(buf, "updated_at") != 0)
            problem(c, "the local table %s has version column %s, not updated_at: FINAL keeps the row with the "
                       "greatest %s, which is not the newest snapshot of the order", lname, buf, buf);
    }
    if (!loc->has_order) {
        problem(c, "the local table %s has no ORDER BY: ReplacingMergeTree deduplicates by the ORDER BY key, so "
                   "there is no entity key to keep one version of", lname);
    }
    if (loc->has_partition) {
        const char *used[32];
        size_t n = columns_used(ts, loc->partition, used, 32);
        render(ts, loc->partition, buf, sizeof buf);
        for (size_t i = 0; i < n && i < 32; i++)
            if (strcmp(used[i], "created_at") != 0)
                problem(c, "the partition key %s of the local table depends on %s, not only on the immutable "
                           "created_at: %s",
                        buf, used[i],
                        "versions of one order can land in different partitions; merges never cross "
                        "partitions, so the old versions stay on disk, and FINAL with "
                        "do_not_merge_across_partitions_select_final returns several rows per order");
    }
    (void)o;
    (void)keys;
}

static void check_sharding(ctx *c, const toks *ts, const table *dist, const table *loc, const char *lname)
{
    char key[1024], order[1024];
    if (dist->n_args < 4) {
        problem(c, "the Distributed table has no sharding key: with several shards an INSERT either fails or "
                   "goes to a random shard, so versions of one order scatter and FINAL, run on each shard "
                   "separately, returns several rows per order");
        return;
    }
    range kr = dist->args[3];
    render(ts, kr, key, sizeof key);
    if (!loc || !loc->has_order)
        return;
    render(ts, loc->order, order, sizeof order);
    range elems[32];
    size_t ne = key_elems(ts, loc->order, elems, 32);
    /* columns the key uses that are not ORDER BY columns */
    const char *used[32], *okeys[32];
    size_t nu = columns_used(ts, kr, used, 32), no = columns_used(ts, loc->order, okeys, 32);
    if (nu == 0) {
        problem(c, "sharding key %s does not depend on the order's key: each version goes to whatever shard it "
                   "picks, so one order's versions split across shards and FINAL, run on each shard "
                   "separately, returns several rows per order (ORDER BY %s)", key, order);
        return;
    }
    for (size_t i = 0; i < nu && i < 32; i++) {
        int in = 0;
        for (size_t k = 0; k < no && k < 32; k++)
            in |= !strcmp(used[i], okeys[k]);
        if (!in) {
            problem(c, "sharding key %s uses %s, which is not part of the local table's ORDER BY key: versions "
                       "of one order differ in it, hash to different shards, and FINAL, run on each shard "
                       "separately, returns several rows per order", key, used[i]);
            return;
        }
    }
    /* the exact form: cityHash64(<ORDER BY elements>) */
    int exact = kr.e > kr.b + 2 && is_name(&ts->t[kr.b]) && !strcasecmp(ts->t[kr.b].text, "cityHash64") &&
                is_p(&ts->t[kr.b + 1], '(') && skip_parens(ts, kr.b + 1, kr.e) == kr.e;
    if (exact) {
        range args[32];
        size_t na = split_commas(ts, (range){kr.b + 2, kr.e - 1}, args, 32);
        exact = na == ne && na > 0;
        for (size_t i = 0; exact && i < na && i < 32; i++) {
            char a[512], b[512];
            render(ts, args[i], a, sizeof a);
            render(ts, elems[i], b, sizeof b);
            exact = !strcmp(a, b);
        }
    }
    if (!exact)
        problem(c, "sharding key %s is not cityHash64(<ORDER BY key>) of the local table (ORDER BY %s): it may "
                   "keep versions together, but it is not the routing shard-check verifies and that every "
                   "writer and re-sharding step must reproduce, so a row written by key to the shard "
                   "cityHash64 picks would meet no other version of its order; use cityHash64(%s)",
                key, order, order);
    (void)lname;
}

/* 1 when the line holds a ' not escaped by a backslash: raw SQL (a string literal opens with
 * one), never FORMAT TSV output, which writes every ' as \' (so 'o\'ds' on a raw line is not
 * taken for TSV and unescaped into 'o'ds'). */
static int bare_quote(const char *s, size_t n)
{
    size_t bs = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'' && bs % 2 == 0)
            return 1;
        bs = s[i] == '\\' ? bs + 1 : 0;
    }
    return 0;
}

int sc_ddl_check(const char *sql, size_t len, const sc_ddl_opts *o, FILE *report, FILE *problems,
                 size_t *n_problems, sc_err *err)
{
    *n_problems = 0;
    /* SHOW CREATE TABLE in TSV: one statement a line with \n and \' escaped: undo it first */
    char *text = malloc(len + 1);
    if (!text)
        return SC_E_NOMEM;
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(sql + i, '\n', len - i);
        size_t l = nl ? (size_t)(nl - (sql + i)) : len - i;
        const char *ln = sql + i;
        size_t k = 0;
        while (k < l && isspace((unsigned char)ln[k]))
            k++;
        int tsv = l - k > 7 && !strncasecmp(ln + k, "CREATE ", 7) && (memmem(ln, l, "\\n", 2) || memmem(ln, l, "\\'", 2)) &&
                  !bare_quote(ln, l);
        if (tsv) {
            const char *why;
            long ul = sc_tsv_unescape(ln, l, text + w, &why);
            if (ul < 0) {
                memcpy(text + w, ln, l);
                ul = (long)l;
            }
            w += (size_t)ul;
        } else {
            memcpy(text + w, ln, l);
            w += l;
        }
        if (nl)
            text[w++] = '\n';
        i += l + (nl != NULL);
    }
    toks ts = {0};
    int rc = tokenize(text, w, &ts, err);
    free(text);
    table *tabs = NULL;
    size_t n_tabs = 0;
    for (size_t i = 0; rc == SC_OK && i < ts.n && ts.t[i].type != T_END;) {
        size_t e = i;
        int depth = 0;
        /* SHOW CREATE rows carry no ';': a top-level CREATE/ATTACH also starts a statement */
        while (ts.t[e].type != T_END && !(depth == 0 && is_p(&ts.t[e], ';')) &&
               !(e > i && depth == 0 && (is_kw(&ts.t[e], "CREATE") || is_kw(&ts.t[e], "ATTACH")))) {
            depth += is_p(&ts.t[e], '(') - is_p(&ts.t[e], ')');
            e++;
        }
        table t;
        int r = parse_create(&ts, i, e, &t, err);
        if (r < 0) {
            rc = SC_E_INPUT;
            table_free(&t);
        } else if (r > 0) {
            table *nt = realloc(tabs, (n_tabs + 1) * sizeof *nt);
            if (!nt) {
                table_free(&t);
                rc = SC_E_NOMEM;
            } else {
                tabs = nt;
                tabs[n_tabs++] = t;
            }
        }
        i = ts.t[e].type == T_END || !is_p(&ts.t[e], ';') ? e : e + 1;
    }
    if (rc == SC_OK && !n_tabs) {
        sc_err_set(err, "no CREATE TABLE statement in the input", "SQL", 0, 0);
        rc = SC_E_INPUT;
    }
    size_t checked = 0;
    int any_replicated = -1;
    /* the first checked table's sharding key: every other Distributed table on the cluster
     * whose local table holds the key's columns must route by it too (below) */
    char ref_key[1024] = "", ref_dist[600] = "";
    const char *ref_used[32];
    size_t ref_nu = 0;
    for (size_t di = 0; rc == SC_OK && di < n_tabs; di++) {
        table *d = &tabs[di];
        if (strcmp(d->engine, "Distributed") != 0)
            continue;
        char dname[600], lname[600];
        snprintf(dname, sizeof dname, "%s%s%s", d->db, d->db[0] ? "." : "", d->name);
        ctx c = {problems, 0, dname};
        if (d->n_args < 3) {
            problem(&c, "Distributed needs (cluster, database, table[, sharding_key])");
            *n_problems += c.n;
            continue;
        }
        const char *ltab = NULL;
        table *loc = local_of(&ts, tabs, n_tabs, d, lname, sizeof lname, &ltab);
        int targeted = o->local ? !strcmp(o->local, lname) || (ltab && !strcmp(o->local, ltab))
                                : loc && ends_with(loc->engine, "ReplacingMergeTree");
        if (!targeted) {
            if (!o->local || !loc || !ends_with(loc->engine, "ReplacingMergeTree")) {
                d->colocate = loc ? 1 : -1; /* judged once the versions' key is known */
                continue;
            }
            /* a Distributed table over a ReplacingMergeTree that is not the expected one */
            problem(&c, "points at the local table %s, not the expected %s: reads and FINAL go to the wrong "
                        "table", lname, o->local);
            *n_problems += c.n;
            continue;
        }
        checked++;
        /* the cluster as the server resolves it: getClusterName, then its macros expanded */
        int oom = 0;
        char *cl = cluster_arg(&ts, d->args[0], &oom), *clx = NULL;
        if (oom) {
            rc = SC_E_NOMEM;
            break;
        }
        if (cl && strchr(cl, '{')) {
            rc = sc_macros_expand(o->macros, cl, &clx, err);
            if (rc != SC_OK) {
                free(cl);
                break;
            }
        }
        char e1[300], e2[300], e3[300], shown[700];
        if (!cl)
            snprintf(shown, sizeof shown, "(an expression)");
        else if (clx)
            snprintf(shown, sizeof shown, "%s (%s)", esc(clx, e1, sizeof e1), esc(cl, e2, sizeof e2));
        else
            snprintf(shown, sizeof shown, "%s", esc(cl, e1, sizeof e1));
        if (!cl || strcmp(clx ? clx : cl, o->cluster) != 0)
            problem(&c, "points at cluster %s, not %s: its rows are routed by that cluster's shard list and "
                        "weights, not by the layout being checked", shown, esc(o->cluster, e3, sizeof e3));
        if (!loc) {
            problem(&c, "its local table %s is not in the input: its ORDER BY, version column and partition key "
                        "cannot be checked (add its SHOW CREATE TABLE)", lname);
        } else {
            check_local(&c, &ts, loc, lname, o);
            int repl = !strncmp(loc->engine, "Replicated", 10);
            any_replicated = any_replicated < 0 ? repl : any_replicated || repl;
        }
        check_sharding(&c, &ts, d, loc, lname);
        char key[512] = "(none)";
        if (d->n_args >= 4)
            render(&ts, d->args[3], key, sizeof key);
        if (!ref_dist[0] && d->n_args >= 4) {
            snprintf(ref_key, sizeof ref_key, "%s", key);
            snprintf(ref_dist, sizeof ref_dist, "%s", dname);
            ref_nu = columns_used(&ts, d->args[3], ref_used, 32);
        }
        fprintf(report, "%s -> %s on cluster %s, sharding key %s: %s\n", dname, lname, cl ? shown : "?", key,
                c.n ? "FAIL" : "ok");
        *n_problems += c.n;
        free(cl);
        free(clx);
    }
    /* Rows read beside the versions (the hot rows, the stale records) must sit on the shard of
     * their order's versions: a Distributed table whose local table holds every column of the
     * versions' sharding key must route by the same key. One without those columns (the errors,
     * the ledger) is not read by order. */
    for (size_t di = 0; rc == SC_OK && di < n_tabs; di++) {
        table *d = &tabs[di];
        if (strcmp(d->engine, "Distributed") != 0 || !d->colocate)
            continue;
        char dname[600], lname[600];
        snprintf(dname, sizeof dname, "%s%s%s", d->db, d->db[0] ? "." : "", d->name);
        const char *ltab = NULL;
        table *loc = local_of(&ts, tabs, n_tabs, d, lname, sizeof lname, &ltab);
        /* the columns of an "AS other" local table are the other's */
        const table *cols = loc;
        for (size_t k = 0; loc && !loc->n_cols && loc->as_name[0] && k < n_tabs; k++)
            if (!strcmp(tabs[k].name, loc->as_name) && (!loc->as_db[0] || !strcmp(tabs[k].db, loc->as_db)))
                cols = &tabs[k];
        size_t have = 0;
        for (size_t u = 0; cols && u < ref_nu; u++)
            for (size_t k = 0; k < cols->n_cols; k++)
                if (!strcmp(cols->cols[k], ref_used[u])) {
                    have++;
                    break;
                }
        if (loc && cols && ref_dist[0] && ref_nu > 0 && have < ref_nu) {
            /* not read by order: the errors route by their Kafka coordinates, the ledger not at all */
            static const char *const ERR_COLS[] = {"_topic", "_partition", "_offset", "error_class"};
            static const char *const LEDGER_COLS[] = {"delta", "committed_at"};
            int is_err = has_all(cols, ERR_COLS, 4), is_ledger = !is_err && has_all(cols, LEDGER_COLS, 2);
            if (is_err || is_ledger) {
                ctx c = {problems, 0, dname};
                char key[1024] = "(none)";
                if (d->n_args >= 4)
                    render(&ts, d->args[3], key, sizeof key);
                if (is_err && strcmp(key, ERR_KEY) != 0)
                    problem(&c, "shards by %s, not by %s: the rejected messages in %s route by their Kafka "
                                "coordinates, as ods-ddl writes them, so that every copy of a message's error row "
                                "sits on one shard", key, ERR_KEY, lname);
                if (is_ledger && d->n_args >= 4)
                    problem(&c, "has the sharding key %s: the ledger in %s is written on the node that runs the "
                                "transition and read whole through this table, which must have none "
                                "(Distributed(cluster, database, table))", key, lname);
                fprintf(report, "%s -> %s, sharding key %s: %s\n", dname, lname, key,
                        c.n ? "FAIL" : is_err ? "ok (routed by the Kafka coordinates)" : "ok (the ledger: unsharded)");
                *n_problems += c.n;
                continue;
            }
        }
        if (!loc || !ref_dist[0] || ref_nu == 0 || have < ref_nu) {
            fprintf(report, "%s -> %s: skipped (%s)\n", dname, lname,
                    !loc         ? "its local table is not in the input"
                    : !ref_dist[0] ? "not over a ReplacingMergeTree: FINAL does not apply"
                                   : "its rows are not read by order: not routed with the versions");
            continue;
        }
        ctx c = {problems, 0, dname};
        char key[1024] = "(none)";
        if (d->n_args >= 4)
            render(&ts, d->args[3], key, sizeof key);
        if (d->n_args < 4 || strcmp(key, ref_key) != 0)
            problem(&c, "shards by %s, not by %s as %s does, yet %s holds the versions' key: an order's rows "
                        "there sit on another shard than its versions, and reads that join them per shard "
                        "(the hot rows, the stale records beside _rep) miss them", key, ref_key, ref_dist, lname);
        fprintf(report, "%s -> %s, sharding key %s: %s\n", dname, lname, key,
                c.n ? "FAIL" : "ok (routed with the versions)");
        *n_problems += c.n;
    }
    if (rc == SC_OK && !checked && !o->local) {
        fprintf(problems, "no Distributed table over a ReplacingMergeTree in the input: nothing FINAL could "
                          "read through\n");
        ++*n_problems;
    } else if (rc == SC_OK && !checked) {
        fprintf(problems, "no Distributed table points at %s\n", o->local);
        ++*n_problems;
    }
    if (rc == SC_OK && o->layout && any_replicated >= 0)
        *n_problems += sc_layout_check(o->layout, any_replicated, problems);
    for (size_t i = 0; i < n_tabs; i++)
        table_free(&tabs[i]);
    free(tabs);
    toks_free(&ts);
    return rc;
}
