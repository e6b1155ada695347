/* layout.c: reads remote_servers the way a ClickHouse server does (config.xml, then conf.d/ and
 * config.d/ merged over it) or a system.clusters dump, into one cluster's shard list. */
#include "layout.h"

#include "io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <expat.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SC_CONFIG_MAX_MIB 64
#define SC_CONFIG_MAX ((size_t)SC_CONFIG_MAX_MIB << 20)

void sc_err_set(sc_err *err, const char *msg, const char *where, long line, long col)
{
    if (!err)
        return;
    err->msg = msg;
    size_t n = where ? strnlen(where, sizeof err->where - 1) : 0; /* long paths are cut, not overrun */
    memcpy(err->where, where ? where : "", n);
    err->where[n] = 0;
    err->line = line;
    err->col = col;
}

/* Every walk over the element tree below the parse (merge, from_env, checks) recurses once per
 * level: the parse refuses deeper nesting, so the stack they use stays small. */
#define SC_XML_MAX_DEPTH 1000
#define SC_STR_(x) #x
#define SC_STR(x) SC_STR_(x)

/* Reads a config file (or pipe, or "-" for stdin) once, up to SC_CONFIG_MAX bytes: a larger one,
 * or an endless /dev/zero, is refused before it can exhaust memory. 0, or -1 with err set. */
static int read_config(const char *path, char **data, size_t *len, sc_err *err)
{
    int rc = io_read_path_max(path, SC_CONFIG_MAX, data, len);
    if (rc == -EFBIG)
        sc_err_set(err, "the config is larger than " SC_STR(SC_CONFIG_MAX_MIB) " MiB: not a server config "
                        "this tool reads", path, 0, 0);
    else if (rc == -ENOMEM)
        sc_err_set(err, "out of memory reading the config", path, 0, 0);
    else if (rc < 0)
        sc_err_set(err, strerror(-rc), path, 0, 0);
    return rc < 0 ? -1 : 0;
}

/* ---- a minimal element tree: enough for ClickHouse's config merge rules ---- */

typedef struct xn {
    char *name;
    char *text;
    size_t text_len;
    int replace, remove, optional;
    int misc;  /* a comment or processing instruction: a child node for the server's DOM */
    int raw;   /* text set from the environment: taken verbatim, not trimmed */
    int n_subst; /* how many of incl= / from_zk= / from_env= the element carries */
    char *subst, *subst_val; /* the last of them: its attribute name and value */
    struct xn **kids;
    size_t n_kids, cap_kids;
    struct xn *parent;
} xn;

/* Iterative, so that a config nested a million levels deep cannot exhaust the stack: descend
 * into the last child (re-linking its parent on the way down), free a node once it has none. */
static void xn_free(xn *n)
{
    xn *top = n;
    while (n) {
        if (n->n_kids) {
            xn *k = n->kids[--n->n_kids];
            if (k) {
                k->parent = n;
                n = k;
            }
            continue;
        }
        xn *up = n == top ? NULL : n->parent;
        free(n->kids);
        free(n->name);
        free(n->text);
        free(n->subst);
        free(n->subst_val);
        free(n);
        n = up;
    }
}

static int xn_add(xn *parent, xn *kid)
{
    if (parent->n_kids == parent->cap_kids) {
        size_t cap = parent->cap_kids ? parent->cap_kids * 2 : 4;
        xn **k = realloc(parent->kids, cap * sizeof *k);
        if (!k)
            return -1;
        parent->kids = k;
        parent->cap_kids = cap;
    }
    parent->kids[parent->n_kids++] = kid;
    kid->parent = parent;
    return 0;
}

typedef struct {
    XML_Parser p;
    xn *root, *cur;
    int oom, too_deep;
    size_t depth;
} xparse;

static void x_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    xparse *xp = ud;
    if (++xp->depth > SC_XML_MAX_DEPTH) {
        xp->too_deep = 1;
        XML_StopParser(xp->p, XML_FALSE);
        return;
    }
    xn *n = calloc(1, sizeof *n);
    if (!n || !(n->name = strdup(name))) {
        free(n);
        xp->oom = 1;
        XML_StopParser(xp->p, XML_FALSE);
        return;
    }
    for (size_t i = 0; attrs[i]; i += 2) {
        if (!strcmp(attrs[i], "replace"))
            n->replace = 1;
        else if (!strcmp(attrs[i], "remove"))
            n->remove = 1;
        else if (!strcmp(attrs[i], "optional"))
            n->optional = 1;
        else if (!strcmp(attrs[i], "incl") || !strcmp(attrs[i], "from_env") ||
                 !strcmp(attrs[i], "from_zk")) {
            free(n->subst);
            free(n->subst_val);
            n->subst = strdup(attrs[i]);
            n->subst_val = strdup(attrs[i + 1]);
            n->n_subst++;
            if (!n->subst || !n->subst_val) {
                xn_free(n);
                xp->oom = 1;
                XML_StopParser(xp->p, XML_FALSE);
                return;
            }
        }
    }
    if (!xp->root)
        xp->root = n;
    else if (xn_add(xp->cur, n) != 0) {
        xn_free(n);
        xp->oom = 1;
        XML_StopParser(xp->p, XML_FALSE);
        return;
    }
    xp->cur = n;
}

static void x_end(void *ud, const XML_Char *name)
{
    (void)name;
    xparse *xp = ud;
    xp->depth--;
    if (xp->cur)
        xp->cur = xp->cur->parent;
}

static void x_text(void *ud, const XML_Char *s, int len)
{
    xparse *xp = ud;
    xn *n = xp->cur;
    if (!n || len <= 0)
        return;
    char *t = realloc(n->text, n->text_len + (size_t)len + 1);
    if (!t) {
        xp->oom = 1;
        XML_StopParser(xp->p, XML_FALSE);
        return;
    }
    memcpy(t + n->text_len, s, (size_t)len);
    n->text_len += (size_t)len;
    t[n->text_len] = 0;
    n->text = t;
}

static void x_misc(void *ud)
{
    xparse *xp = ud;
    if (xp->cur)
        xp->cur->misc = 1;
}

static void x_comment(void *ud, const XML_Char *s)
{
    (void)s;
    x_misc(ud);
}

static void x_pi(void *ud, const XML_Char *target, const XML_Char *data)
{
    (void)target, (void)data;
    x_misc(ud);
}

static int parse_xml(const char *path, const char *data, size_t len, xn **out, sc_err *err)
{
    xparse xp = {0};
    xp.p = XML_ParserCreate(NULL);
    if (!xp.p)
        return SC_E_NOMEM;
    XML_SetUserData(xp.p, &xp);
    XML_SetElementHandler(xp.p, x_start, x_end);
    XML_SetCharacterDataHandler(xp.p, x_text);
    XML_SetCommentHandler(xp.p, x_comment);
    XML_SetProcessingInstructionHandler(xp.p, x_pi);
    int rc = SC_OK;
    if (XML_Parse(xp.p, data, (int)len, XML_TRUE) == XML_STATUS_ERROR || xp.oom) {
        if (xp.oom) {
            rc = SC_E_NOMEM;
        } else if (xp.too_deep) {
            sc_err_set(err, "elements nested deeper than " SC_STR(SC_XML_MAX_DEPTH) " levels: not a server "
                            "config this tool reads", path,
                       (long)XML_GetCurrentLineNumber(xp.p), (long)XML_GetCurrentColumnNumber(xp.p) + 1);
            rc = SC_E_INPUT;
        } else {
            /* expat's messages are static strings, fit for sc_err.msg */
            sc_err_set(err, XML_ErrorString(XML_GetErrorCode(xp.p)), path,
                       (long)XML_GetCurrentLineNumber(xp.p), (long)XML_GetCurrentColumnNumber(xp.p) + 1);
            rc = SC_E_INPUT;
        }
        xn_free(xp.root);
        xp.root = NULL;
    }
    XML_ParserFree(xp.p);
    if (rc == SC_OK) {
        const char *r = xp.root->name;
        if (strcmp(r, "clickhouse") && strcmp(r, "yandex") && strcmp(r, "config")) {
            sc_err_set(err, "root element is not <clickhouse> (or legacy <yandex>)", path, 1, 0);
            xn_free(xp.root);
            return SC_E_INPUT;
        }
        *out = xp.root;
    }
    return rc;
}

static int is_blank(const char *t, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r')
            return 0;
    return 1;
}

/* Whether the server's DOM node would have child nodes: text (blanks too), comments, elements. */
static int has_content(const xn *n)
{
    if (n->text_len || n->misc)
        return 1;
    for (size_t i = 0; i < n->n_kids; i++)
        if (n->kids[i])
            return 1;
    return 0;
}

/* deleteAttributesRecursive: an element pasted in as is loses replace="…" below its top. */
static void clear_replace_below(xn *n)
{
    for (size_t i = 0; i < n->n_kids; i++)
        if (n->kids[i]) {
            n->kids[i]->replace = 0;
            clear_replace_below(n->kids[i]);
        }
}

/* ClickHouse's ConfigProcessor::mergeRecursive, in substance: the non-blank text of `into` goes
 * and the text of `with` is appended; a child of `with` replaces, removes or merges into the
 * first not-yet-matched same-named child of `into` (its attributes copied over, the target's
 * substitutions dropped when the source has a value); unmatched children are appended.
 * Takes ownership of with. */
static int merge(xn *into, xn *with)
{
    size_t n0 = into->n_kids;
    char *matched = calloc(n0 ? n0 : 1, 1);
    if (!matched)
        return -1;
    if (into->text_len && !is_blank(into->text, into->text_len)) {
        free(into->text);
        into->text = NULL;
        into->text_len = 0;
    }
    if (with->text_len) {
        char *t = realloc(into->text, into->text_len + with->text_len + 1);
        if (!t) {
            free(matched);
            return -1;
        }
        memcpy(t + into->text_len, with->text, with->text_len);
        into->text_len += with->text_len;
        t[into->text_len] = 0;
        into->text = t;
    }
    into->raw = 0;
    into->misc |= with->misc;
    int rc = 0;
    for (size_t i = 0; i < with->n_kids; i++) {
        xn *w = with->kids[i];
        with->kids[i] = NULL;
        if (!w)
            continue;
        size_t j;
        for (j = 0; j < n0; j++)
            if (!matched[j] && into->kids[j] && !strcmp(into->kids[j]->name, w->name))
                break;
        if (j < n0) {
            matched[j] = 1;
            xn *t = into->kids[j];
            if (w->remove) {
                xn_free(t);
                into->kids[j] = NULL;
                xn_free(w);
            } else if (w->replace) {
                xn_free(t);
                into->kids[j] = w;
                w->parent = into;
            } else {
                if (has_content(w)) {
                    free(t->subst);
                    free(t->subst_val);
                    t->subst = t->subst_val = NULL;
                    t->n_subst = 0;
                }
                if (w->subst) { /* mergeAttributes: setAttribute for each of the source's */
                    if (t->subst && strcmp(t->subst, w->subst))
                        t->n_subst += w->n_subst;
                    else if (w->n_subst > t->n_subst)
                        t->n_subst = w->n_subst;
                    free(t->subst);
                    free(t->subst_val);
                    t->subst = w->subst;
                    t->subst_val = w->subst_val;
                    w->subst = w->subst_val = NULL;
                }
                t->optional |= w->optional;
                if (merge(t, w) != 0)
                    rc = -1;
            }
        } else if (w->remove) {
            xn_free(w);
        } else {
            clear_replace_below(w);
            if (xn_add(into, w) != 0) {
                xn_free(w);
                rc = -1;
            }
        }
    }
    free(matched);
    with->n_kids = 0;
    xn_free(with);
    return rc;
}

/* ConfigProcessor::doIncludesRecursive for from_env=, after the merge: the element takes the
 * variable's value from this process's environment (replace="…" first drops its content); an
 * unset variable leaves it as written (the server logs a warning) or, with optional="…",
 * removes it. Element content without replace="…" is refused, as the server refuses it. */
static int resolve_env(xn *n, const char *path, sc_err *err)
{
    for (size_t i = 0; i < n->n_kids; i++) {
        xn *k = n->kids[i];
        if (!k)
            continue;
        if (k->n_subst > 1) {
            sc_err_set(err, "an element carries more than one of incl=, from_zk=, from_env=: ClickHouse "
                            "refuses to load such a config", path, 0, 0);
            return SC_E_INPUT;
        }
        if (k->subst && !strcmp(k->subst, "from_env")) {
            if (has_content(k) && !k->replace) {
                sc_err_set(err, "an element with from_env= has a value but no replace=\"1\": ClickHouse "
                                "refuses to load such a config (can't process from_env substitution)",
                           path, 0, 0);
                return SC_E_INPUT;
            }
            const char *v = getenv(k->subst_val);
            if (!v && k->optional) {
                xn_free(k);
                n->kids[i] = NULL;
                continue;
            }
            if (v) {
                if (strpbrk(v, "<&")) {
                    sc_err_set(err, "a from_env= variable holds XML markup ('<' or '&'), which this tool "
                                    "does not parse: pass a system.clusters dump (TSVWithNames)", path, 0, 0);
                    return SC_E_INPUT;
                }
                if (k->replace) {
                    for (size_t j = 0; j < k->n_kids; j++)
                        xn_free(k->kids[j]);
                    k->n_kids = 0;
                    free(k->text);
                    k->text = NULL;
                    k->text_len = 0;
                    k->misc = 0;
                }
                size_t vl = strlen(v);
                if (!(k->text = malloc(vl + 1)))
                    return SC_E_NOMEM;
                memcpy(k->text, v, vl + 1);
                k->text_len = vl;
                k->raw = 1;
                free(k->subst);
                free(k->subst_val);
                k->subst = k->subst_val = NULL;
                k->n_subst = 0;
                continue;
            }
        }
        int rc = resolve_env(k, path, err);
        if (rc != SC_OK)
            return rc;
    }
    return SC_OK;
}

/* An incl=/from_zk= substitution or <include> left in the subtree (this tool resolves neither). */
static int unresolved(const xn *n)
{
    if ((n->subst && strcmp(n->subst, "from_env")) || !strcmp(n->name, "include"))
        return 1;
    for (size_t i = 0; i < n->n_kids; i++)
        if (n->kids[i] && unresolved(n->kids[i]))
            return 1;
    return 0;
}

/* remove="1" elements that matched nothing (or sat in the first file) are not config. */
static void drop_removed(xn *n)
{
    for (size_t i = 0; i < n->n_kids; i++) {
        if (!n->kids[i])
            continue;
        if (n->kids[i]->remove) {
            xn_free(n->kids[i]);
            n->kids[i] = NULL;
        } else {
            drop_removed(n->kids[i]);
        }
    }
}

static xn *child(const xn *n, const char *name)
{
    for (size_t i = 0; n && i < n->n_kids; i++)
        if (n->kids[i] && !strcmp(n->kids[i]->name, name))
            return n->kids[i];
    return NULL;
}

/* The value of a leaf element, blanks trimmed, in a static-free caller buffer. */
static const char *leaf(const xn *n, char *buf, size_t cap)
{
    size_t len = n && n->text ? n->text_len : 0;
    const char *s = n && n->text ? n->text : "";
    while (len && !n->raw && isspace((unsigned char)*s))
        s++, len--;
    while (len && !n->raw && isspace((unsigned char)s[len - 1]))
        len--;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    return buf;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int ext_is(const char *name, size_t l, const char *ext)
{
    size_t e = strlen(ext);
    return l > e && !strcasecmp(name + l - e, ext);
}

/* Appends the merge files of one directory to list, as ConfigProcessor::getConfigMergeFiles
 * picks them: regular files (symlinks followed) whose extension is .xml or .conf in any case,
 * not starting with a dot. A missing path or a non-directory is skipped, as the server skips it;
 * a directory that cannot be read is an error (the server fails to start). -2: a YAML file. */
static int list_dir(const char *dir, char ***list, size_t *n, sc_err *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        sc_err_set(err, strerror(errno), dir, 0, 0);
        return -3;
    }
    if (!S_ISDIR(st.st_mode))
        return 0;
    DIR *d = opendir(dir);
    if (!d) {
        sc_err_set(err, strerror(errno), dir, 0, 0);
        return -3;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        int yaml = ext_is(e->d_name, l, ".yaml") || ext_is(e->d_name, l, ".yml");
        if (!yaml && !ext_is(e->d_name, l, ".xml") && !ext_is(e->d_name, l, ".conf"))
            continue;
        size_t need = strlen(dir) + l + 2;
        char *full = malloc(need);
        if (!full) {
            rc = -1;
            break;
        }
        snprintf(full, need, "%s/%s", dir, e->d_name);
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        if (yaml) {
            free(full);
            rc = -2; /* the server would merge it; silently skipping it could hide remote_servers */
            break;
        }
        char **nl = realloc(*list, (*n + 1) * sizeof *nl);
        if (!nl) {
            free(full);
            rc = -1;
            break;
        }
        *list = nl;
        nl[(*n)++] = full;
    }
    closedir(d);
    return rc;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Loads the merged XML config: FILE plus the merge directories the server reads next to it,
 * FILE's stem with .d (config.xml: config.d/, prod.xml: prod.d/) and conf.d/, all their files
 * sorted by path; a directory holding config.xml likewise; any other directory is taken as a
 * set of merge files. from_env= substitutions are then resolved from this environment.
 * main_data: FILE's bytes when the caller has read them already (a pipe can be read only once). */
static int load_xml_tree(const char *path, const char *main_data, size_t main_len, xn **out, sc_err *err)
{
    char main_file[4096] = "", dir[4096];
    char **files = NULL;
    size_t n_files = 0;
    int rc = SC_OK;
    if (is_dir(path)) {
        snprintf(dir, sizeof dir, "%s", path);
        snprintf(main_file, sizeof main_file, "%s/config.xml", path);
        if (!file_exists(main_file)) {
            main_file[0] = 0;
            rc = list_dir(dir, &files, &n_files, err);
        }
    } else {
        snprintf(main_file, sizeof main_file, "%s", path);
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        else
            snprintf(dir, sizeof dir, ".");
    }
    if (rc == SC_OK && main_file[0]) {
        /* std::filesystem's replace_extension("d") on the main file's name */
        const char *base = strrchr(main_file, '/');
        base = base ? base + 1 : main_file;
        char stem[4096];
        snprintf(stem, sizeof stem, "%s", base);
        char *dot = strrchr(stem, '.');
        if (dot && dot != stem && strcmp(stem, ".."))
            *dot = 0;
        char sub[2][8300];
        snprintf(sub[0], sizeof sub[0], "%s/%s.d", dir, stem);
        snprintf(sub[1], sizeof sub[1], "%s/conf.d", dir);
        rc = list_dir(sub[0], &files, &n_files, err);
        if (rc == SC_OK && strcmp(sub[0], sub[1]))
            rc = list_dir(sub[1], &files, &n_files, err);
    }
    /* An empty list leaves files NULL, and qsort of a NULL base is undefined even for 0. */
    if (rc == SC_OK && n_files)
        qsort(files, n_files, sizeof *files, cmp_str);
    if (rc == -3) {
        rc = SC_E_INPUT;
    } else if (rc == -2) {
        sc_err_set(err, "YAML config files are not read here: pass a system.clusters dump (TSVWithNames) "
                        "or the XML", dir, 0, 0);
        rc = SC_E_INPUT;
    } else if (rc != SC_OK) {
        rc = SC_E_NOMEM;
    }
    xn *root = NULL;
    for (size_t i = 0; rc == SC_OK && i < n_files + 1; i++) {
        const char *f = i == 0 ? main_file : files[i - 1];
        if (!f[0])
            continue;
        char *data = NULL;
        size_t len;
        if (i == 0 && main_data) {
            len = main_len;
        } else if (read_config(f, &data, &len, err) != 0) {
            rc = SC_E_INPUT;
            break;
        }
        xn *t = NULL;
        rc = parse_xml(f, data ? data : main_data, len, &t, err);
        free(data);
        if (rc != SC_OK)
            break;
        if (!root)
            root = t;
        else if (merge(root, t) != 0)
            rc = SC_E_NOMEM;
    }
    for (size_t i = 0; i < n_files; i++)
        free(files[i]);
    free(files);
    if (rc == SC_OK && !root) {
        sc_err_set(err, "no config files (*.xml, *.conf) in the directory", path, 0, 0);
        rc = SC_E_INPUT;
    }
    if (rc != SC_OK) {
        xn_free(root);
        return rc;
    }
    drop_removed(root);
    rc = resolve_env(root, path, err);
    if (rc != SC_OK) {
        xn_free(root);
        return rc;
    }
    *out = root;
    return SC_OK;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
    if (!*s)
        return -1;
    unsigned long r = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        r = r * 10 + (unsigned long)(*s - '0');
        if (r > max)
            return -1;
    }
    *v = r;
    return 0;
}

/* Poco's getBool: true/yes/on/1 and false/no/off/0, any case. */
static int parse_bool(const char *s, int *v)
{
    if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "1"))
        *v = 1;
    else if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "0"))
        *v = 0;
    else
        return -1;
    return 0;
}

/* A replica without <port> takes the server's own <tcp_port>; with neither, ClickHouse refuses
 * the cluster ("Port is not specified in cluster configuration"). */
static unsigned long default_port;

static int add_replica(sc_shard *s, const xn *r, const char *where, sc_err *err)
{
    char host[1024], port[64];
    leaf(child(r, "host"), host, sizeof host);
    if (!host[0]) {
        sc_err_set(err, "a replica has no <host>", where, 0, 0);
        return SC_E_INPUT;
    }
    unsigned long p = default_port;
    const xn *pn = child(r, "port");
    if (pn && (parse_uint(leaf(pn, port, sizeof port), 65535, &p) != 0 || p == 0)) {
        sc_err_set(err, "a replica's <port> is not a number 1..65535", where, 0, 0);
        return SC_E_INPUT;
    }
    if (!p) {
        sc_err_set(err, "a replica has no <port> and the config no <tcp_port>: ClickHouse refuses such a "
                        "cluster (Port is not specified in cluster configuration)", where, 0, 0);
        return SC_E_INPUT;
    }
    sc_replica *nr = realloc(s->replicas, (s->n_replicas + 1) * sizeof *nr);
    if (!nr)
        return SC_E_NOMEM;
    s->replicas = nr;
    if (!(nr[s->n_replicas].host = strdup(host)))
        return SC_E_NOMEM;
    nr[s->n_replicas++].port = (unsigned)p;
    return SC_OK;
}

static int shard_common(sc_shard *s, const xn *n, const char *where, sc_err *err)
{
    char buf[64];
    unsigned long w = 1;
    const xn *wn = child(n, "weight");
    if (wn && parse_uint(leaf(wn, buf, sizeof buf), 0xffffffffUL, &w) != 0) {
        sc_err_set(err, "a shard's <weight> is not a non-negative integer", where, 0, 0);
        return SC_E_INPUT;
    }
    s->weight = (unsigned)w;
    s->internal_replication = 0; /* ClickHouse's default */
    const xn *ir = child(n, "internal_replication");
    if (ir && parse_bool(leaf(ir, buf, sizeof buf), &s->internal_replication) != 0) {
        sc_err_set(err, "<internal_replication> is not true or false", where, 0, 0);
        return SC_E_INPUT;
    }
    return SC_OK;
}

static int cluster_from_xml(const xn *cl, const char *where, sc_cluster *out, sc_err *err)
{
    for (size_t i = 0; i < cl->n_kids; i++) {
        const xn *k = cl->kids[i];
        if (!k)
            continue;
        /* <node> directly in the cluster is a one-replica shard (Cluster.cpp accepts both) */
        int is_shard = !strncmp(k->name, "shard", 5), is_node = !strncmp(k->name, "node", 4);
        if (!is_shard && !is_node)
            continue;
        sc_shard *ns = realloc(out->shards, (out->n_shards + 1) * sizeof *ns);
        if (!ns)
            return SC_E_NOMEM;
        out->shards = ns;
        sc_shard *s = &ns[out->n_shards++];
        memset(s, 0, sizeof *s);
        int rc = shard_common(s, k, where, err);
        if (rc != SC_OK)
            return rc;
        if (is_node)
            rc = add_replica(s, k, where, err);
        for (size_t j = 0; rc == SC_OK && is_shard && j < k->n_kids; j++)
            if (k->kids[j] && !strncmp(k->kids[j]->name, "replica", 7))
                rc = add_replica(s, k->kids[j], where, err);
        if (rc != SC_OK)
            return rc;
        if (!s->n_replicas) {
            sc_err_set(err, "a <shard> has no <replica>", where, 0, 0);
            return SC_E_INPUT;
        }
    }
    if (!out->n_shards) {
        sc_err_set(err, "the cluster has no <shard>", where, 0, 0);
        return SC_E_INPUT;
    }
    return SC_OK;
}

static int add_other(sc_cluster *out, const char *name)
{
    for (size_t i = 0; i < out->n_others; i++)
        if (!strcmp(out->others[i], name))
            return 0;
    char **o = realloc(out->others, (out->n_others + 1) * sizeof *o);
    if (!o)
        return -1;
    out->others = o;
    if (!(o[out->n_others] = strdup(name)))
        return -1;
    out->n_others++;
    return 0;
}

static int load_xml(const char *path, const char *data, size_t len, const char *name, sc_cluster *out,
                    sc_err *err)
{
    xn *root = NULL;
    int rc = load_xml_tree(path, data, len, &root, err);
    if (rc != SC_OK)
        return rc;
    const xn *rs = child(root, "remote_servers");
    const xn *cl = rs ? child(rs, name) : NULL;
    if (rs && unresolved(rs)) {
        sc_err_set(err, "<remote_servers> uses an incl=/from_zk= substitution or <include>, which this tool "
                        "does not resolve; pass a system.clusters dump (TSVWithNames) from the server",
                   path, 0, 0);
        rc = SC_E_INPUT;
    } else if (!cl) {
        for (size_t i = 0; rs && i < rs->n_kids; i++)
            if (rs->kids[i] && add_other(out, rs->kids[i]->name) != 0)
                rc = SC_E_NOMEM;
        if (rc == SC_OK) {
            sc_err_set(err, rs ? "no such cluster in <remote_servers>" : "the config has no <remote_servers>",
                       path, 0, 0);
            rc = SC_E_CHECK;
        }
    } else {
        char buf[64];
        const xn *tp = child(root, "tcp_port");
        default_port = 0;
        if (tp && (parse_uint(leaf(tp, buf, sizeof buf), 65535, &default_port) != 0))
            default_port = 0;
        rc = cluster_from_xml(cl, path, out, err);
    }
    xn_free(root);
    return rc;
}

/* ---- system.clusters, TSVWithNames ---- */

/* Splits one TSV line in place into at most max fields, unescaping \t \n \\ and friends. */
static size_t tsv_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *w = line, *start = line;
    for (char *r = line;; r++) {
        if (*r == '\t' || *r == 0) {
            int end = *r == 0;
            *w = 0;
            if (n < max)
                f[n] = start;
            n++;
            if (end)
                break;
            start = w = r + 1;
            continue;
        }
        if (*r == '\\' && r[1]) {
            r++;
            switch (*r) {
            case 't': *w++ = '\t'; break;
            case 'n': *w++ = '\n'; break;
            case 'r': *w++ = '\r'; break;
            case '0': *w++ = 0; break;
            default: *w++ = *r; break;
            }
        } else {
            *w++ = *r;
        }
    }
    return n;
}

static int load_tsv(const char *path, char *data, size_t len, const char *name, sc_cluster *out,
                    sc_err *err)
{
    enum { C_CLUSTER, C_SHARD, C_WEIGHT, C_IR, C_REPLICA, C_HOST, C_PORT, C_N };
    static const char *cols[C_N] = {"cluster", "shard_num", "shard_weight", "internal_replication",
                                    "replica_num", "host_name", "port"};
    int idx[C_N];
    for (int i = 0; i < C_N; i++)
        idx[i] = -1;
    (void)len;
    char *save = NULL, *line = strtok_r(data, "\n", &save);
    char *f[64];
    size_t nf = tsv_fields(line, f, 64);
    for (size_t i = 0; i < nf && i < 64; i++)
        for (int c = 0; c < C_N; c++)
            if (!strcmp(f[i], cols[c]))
                idx[c] = (int)i;
    for (int c = 0; c < C_N; c++)
        if (idx[c] < 0 && c != C_IR) {
            sc_err_set(err, "the system.clusters dump lacks a column it needs (cluster, shard_num, "
                            "shard_weight, replica_num, host_name, port); dump it with FORMAT TSVWithNames",
                       path, 1, 0);
            return SC_E_INPUT;
        }
    long lineno = 1;
    while ((line = strtok_r(NULL, "\n", &save))) {
        lineno++;
        nf = tsv_fields(line, f, 64);
        int maxi = 0;
        for (int c = 0; c < C_N; c++)
            if (idx[c] > maxi)
                maxi = idx[c];
        if (nf <= (size_t)maxi) {
            sc_err_set(err, "a row of the system.clusters dump has too few columns", path, lineno, 0);
            return SC_E_INPUT;
        }
        if (strcmp(f[idx[C_CLUSTER]], name) != 0) {
            if (add_other(out, f[idx[C_CLUSTER]]) != 0)
                return SC_E_NOMEM;
            continue;
        }
        unsigned long shard, weight, port, replica;
        int ir = -1;
        if (parse_uint(f[idx[C_SHARD]], 1000000, &shard) != 0 || shard == 0 ||
            parse_uint(f[idx[C_WEIGHT]], 0xffffffffUL, &weight) != 0 ||
            parse_uint(f[idx[C_REPLICA]], 1000000, &replica) != 0 ||
            parse_uint(f[idx[C_PORT]], 65535, &port) != 0 ||
            (idx[C_IR] >= 0 && parse_bool(f[idx[C_IR]], &ir) != 0)) {
            sc_err_set(err, "a row of the system.clusters dump has a non-numeric shard_num, shard_weight, "
                            "replica_num, port or internal_replication",
                       path, lineno, 0);
            return SC_E_INPUT;
        }
        if (shard > out->n_shards) {
            sc_shard *ns = realloc(out->shards, shard * sizeof *ns);
            if (!ns)
                return SC_E_NOMEM;
            memset(ns + out->n_shards, 0, (shard - out->n_shards) * sizeof *ns);
            for (size_t i = out->n_shards; i < shard; i++)
                ns[i].internal_replication = -2; /* marks "no row seen yet" */
            out->shards = ns;
            out->n_shards = shard;
        }
        sc_shard *s = &out->shards[shard - 1];
        s->weight = (unsigned)weight;
        s->internal_replication = ir;
        sc_replica *nr = realloc(s->replicas, (s->n_replicas + 1) * sizeof *nr);
        if (!nr)
            return SC_E_NOMEM;
        s->replicas = nr;
        if (!(nr[s->n_replicas].host = strdup(f[idx[C_HOST]])))
            return SC_E_NOMEM;
        nr[s->n_replicas++].port = (unsigned)port;
    }
    if (!out->n_shards) {
        sc_err_set(err, "no such cluster in the system.clusters dump", path, 0, 0);
        return SC_E_CHECK;
    }
    for (size_t i = 0; i < out->n_shards; i++)
        if (out->shards[i].internal_replication == -2) {
            sc_err_set(err, "the system.clusters dump skips a shard_num (rows for it are missing)", path, 0, 0);
            return SC_E_INPUT;
        }
    return SC_OK;
}

int sc_layout_load(const char *path, const char *name, sc_cluster *out, sc_err *err)
{
    memset(out, 0, sizeof *out);
    if (!(out->name = strdup(name)))
        return SC_E_NOMEM;
    int rc;
    if (is_dir(path)) {
        rc = load_xml(path, NULL, 0, name, out, err);
    } else {
        char *data;
        size_t len;
        if (read_config(path, &data, &len, err) != 0)
            return SC_E_INPUT;
        size_t i = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0; /* a UTF-8 BOM */
        while (i < len && isspace((unsigned char)data[i]))
            i++;
        if (i < len && data[i] == '<') {
            rc = load_xml(path, data, len, name, out, err);
        } else if (len >= 8 && !memcmp(data, "cluster\t", 8) && !memchr(data, 0, len)) {
            rc = load_tsv(path, data, len, name, out, err);
        } else {
            sc_err_set(err, "neither a server config (XML) nor a system.clusters dump (TSVWithNames)", path, 1, 1);
            rc = SC_E_INPUT;
        }
        free(data);
    }
    return rc;
}

void sc_cluster_free(sc_cluster *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_shards; i++) {
        for (size_t j = 0; j < c->shards[i].n_replicas; j++)
            free(c->shards[i].replicas[j].host);
        free(c->shards[i].replicas);
    }
    free(c->shards);
    for (size_t i = 0; i < c->n_others; i++)
        free(c->others[i]);
    free(c->others);
    free(c->name);
    memset(c, 0, sizeof *c);
}

void sc_fput_escaped(const char *s, FILE *out)
{
    for (; *s; s++) {
        const char *e = NULL;
        switch (*s) {
        case '\\': e = "\\\\"; break;
        case '\t': e = "\\t"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        }
        if (e)
            fputs(e, out);
        else
            fputc(*s, out);
    }
}

size_t sc_layout_check(const sc_cluster *c, int replicated, FILE *out)
{
    size_t problems = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < c->n_shards; i++)
        total += c->shards[i].weight;
    if (total == 0) {
        fprintf(out, "cluster %s: every shard has weight 0: no shard can take a row (ClickHouse refuses "
                     "such a cluster: \"zero weight on all shards is prohibited\")\n", c->name);
        problems++;
    }
    for (size_t i = 0; i < c->n_shards; i++)
        for (size_t j = 0; j < c->shards[i].n_replicas; j++) {
            const sc_replica *r = &c->shards[i].replicas[j];
            int first = 1;
            for (size_t k = 0; k <= i && first; k++)
                for (size_t l = 0; l < (k == i ? j : c->shards[k].n_replicas); l++)
                    if (c->shards[k].replicas[l].port == r->port &&
                        !strcasecmp(c->shards[k].replicas[l].host, r->host)) {
                        fprintf(out, "cluster %s: ", c->name);
                        sc_fput_escaped(r->host, out);
                        fprintf(out, ":%u is listed twice (shard %zu and shard %zu): one server "
                                     "would hold two shards' rows in the same local table, so an order's "
                                     "versions could meet or be counted twice\n",
                                r->port, k + 1, i + 1);
                        problems++;
                        first = 0;
                        break;
                    }
        }
    for (size_t i = 0; i < c->n_shards; i++) {
        const sc_shard *s = &c->shards[i];
        if (s->n_replicas < 2)
            continue;
        if (replicated == 1 && s->internal_replication == 0) {
            fprintf(out, "cluster %s: shard %zu has %zu replicas without internal_replication while the "
                         "tables are Replicated*: the Distributed table writes every row to each replica "
                         "and replication copies it again\n", c->name, i + 1, s->n_replicas);
            problems++;
        } else if (replicated == 0 && s->internal_replication == 1) {
            fprintf(out, "cluster %s: shard %zu has %zu replicas with internal_replication but the tables "
                         "are not Replicated*: each row reaches one replica only and the replicas "
                         "diverge\n", c->name, i + 1, s->n_replicas);
            problems++;
        }
    }
    return problems;
}

void sc_layout_report(const sc_cluster *c, FILE *out)
{
    uint64_t total = 0;
    for (size_t i = 0; i < c->n_shards; i++)
        total += c->shards[i].weight;
    fputs("cluster ", out);
    sc_fput_escaped(c->name, out);
    fprintf(out, ": %zu shards, total weight %llu", c->n_shards, (unsigned long long)total);
    if (total)
        fprintf(out, " (a row goes to the shard owning slot cityHash64(key) %% %llu)\n", (unsigned long long)total);
    else
        fputs(" (no slots: no shard can take a row)\n", out);
    uint64_t at = 0;
    for (size_t i = 0; i < c->n_shards; i++) {
        const sc_shard *s = &c->shards[i];
        fprintf(out, "shard %zu\tweight %u\t", i + 1, s->weight);
        if (s->weight == 1)
            fprintf(out, "slot %llu\t", (unsigned long long)at);
        else if (s->weight)
            fprintf(out, "slots %llu-%llu\t", (unsigned long long)at, (unsigned long long)(at + s->weight - 1));
        else
            fprintf(out, "slots none\t");
        at += s->weight;
        fprintf(out, "internal_replication %s\treplicas",
                s->internal_replication < 0 ? "unknown" : s->internal_replication ? "true" : "false");
        for (size_t j = 0; j < s->n_replicas; j++) {
            fputc(' ', out);
            sc_fput_escaped(s->replicas[j].host, out);
            fprintf(out, ":%u", s->replicas[j].port);
        }
        fputc('\n', out);
    }
}
