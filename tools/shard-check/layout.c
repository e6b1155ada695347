/* layout.c: reads remote_servers the way a ClickHouse server does (config.xml, then conf.d/ and
 * config.d/ merged over it) or a system.clusters dump, into one cluster's shard list. */
#include "layout.h"

#include "io.h"
#include "xtree.h"

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
/* Above 2^24 units of weight (128 MiB of slot table) layout reports the cluster. */
#define SC_SLOT_TABLE_MAX (1ull << 24)

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
    int replace, remove, optional, merge_attr;
    /* The attributes that identify the element when merge files are matched to it (every one but
     * replace, remove, incl, from_zk and from_env), as name/value pairs sorted by name. */
    char **attr;
    size_t n_attr;
    int misc;  /* a comment or processing instruction: a child node for the server's DOM */
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
        for (size_t i = 0; i < 2 * n->n_attr; i++)
            free(n->attr[i]);
        free(n->attr);
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

/* Poco's setAttribute: a new value for a name already there, else one more pair (kept sorted). */
static int xn_set_attr(xn *n, const char *name, const char *value)
{
    size_t i = 0;
    while (i < n->n_attr && strcmp(n->attr[2 * i], name) < 0)
        i++;
    char *v = strdup(value);
    if (!v)
        return -1;
    if (i < n->n_attr && !strcmp(n->attr[2 * i], name)) {
        free(n->attr[2 * i + 1]);
        n->attr[2 * i + 1] = v;
        return 0;
    }
    char *k = strdup(name), **a = k ? realloc(n->attr, (2 * n->n_attr + 2) * sizeof *a) : NULL;
    if (!a) {
        free(k);
        free(v);
        return -1;
    }
    memmove(a + 2 * i + 2, a + 2 * i, (2 * (n->n_attr - i)) * sizeof *a);
    a[2 * i] = k;
    a[2 * i + 1] = v;
    n->attr = a;
    n->n_attr++;
    if (!strcmp(name, "optional"))
        n->optional = 1;
    else if (!strcmp(name, "merge"))
        n->merge_attr = 1;
    return 0;
}

/* Sets one attribute as the server's DOM would hold it: the flags for replace/remove, the one
 * substitution, the rest as identity pairs. */
static int xn_attr(xn *n, const char *name, const char *value)
{
    if (!strcmp(name, "replace")) {
        n->replace = 1;
    } else if (!strcmp(name, "remove")) {
        n->remove = 1;
    } else if (!strcmp(name, "incl") || !strcmp(name, "from_env") || !strcmp(name, "from_zk")) {
        if (!n->subst || strcmp(n->subst, name))
            n->n_subst++;
        free(n->subst);
        free(n->subst_val);
        n->subst = strdup(name);
        n->subst_val = strdup(value);
        if (!n->subst || !n->subst_val)
            return -1;
    } else {
        return xn_set_attr(n, name, value);
    }
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
    for (size_t i = 0; attrs[i]; i += 2)
        if (xn_attr(n, attrs[i], attrs[i + 1]) != 0) {
            xn_free(n);
            xp->oom = 1;
            XML_StopParser(xp->p, XML_FALSE);
            return;
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

/* any_root: an include_from file or a from_env value, whose root element may have any name. */
static int parse_xml(const char *path, const char *data, size_t len, int any_root, xn **out, sc_err *err)
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
        if (!any_root && strcmp(r, "clickhouse") && strcmp(r, "yandex") && strcmp(r, "config")) {
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

/* deleteAttributesRecursive: an element pasted in as is loses replace="…" below its top, and
 * its descendants marked remove="…" go (the element itself keeps both). */
static void delete_attributes_below(xn *n)
{
    for (size_t i = 0; i < n->n_kids; i++) {
        xn *k = n->kids[i];
        if (!k)
            continue;
        k->replace = 0;
        if (k->remove) {
            xn_free(k);
            n->kids[i] = NULL;
        } else {
            delete_attributes_below(k);
        }
    }
}

/* getElementIdentifier's order: the name, then the attribute pairs sorted by name, compared as a
 * std::vector<std::string> (element by element, bytewise, a proper prefix first). */
static int id_less(const void *pa, const void *pb)
{
    const xn *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c)
        return c < 0;
    size_t na = 2 * a->n_attr, nb = 2 * b->n_attr;
    for (size_t i = 0; i < na && i < nb; i++)
        if ((c = strcmp(a->attr[i], b->attr[i])) != 0)
            return c < 0;
    return na < nb;
}

/* ClickHouse's ConfigProcessor::mergeRecursive: the non-blank text of `into` goes and the text of
 * `with` is appended. Each element of `with` is looked up among the elements `into` had on entry
 * by name and attributes, through the same std::multimap the server uses (xtree.h: with several
 * equal candidates, which one is found depends on the tree's shape, not on document order); a
 * match is removed, replaced (in place) or merged into (attributes copied over, the target's
 * substitutions dropped when the source has content), and leaves the map; the rest is appended.
 * Takes ownership of with. */
static int merge(xn *into, xn *with, const char *path, sc_err *err)
{
    size_t n0 = into->n_kids;
    xt_node *pool = malloc((n0 ? n0 : 1) * sizeof *pool);
    if (!pool) {
        xn_free(with);
        return SC_E_NOMEM;
    }
    xt_tree tree;
    xt_init(&tree, pool, n0, id_less);
    for (size_t j = 0; j < n0; j++)
        if (into->kids[j])
            xt_insert(&tree, into->kids[j], j);
    if (into->text_len && !is_blank(into->text, into->text_len)) {
        free(into->text);
        into->text = NULL;
        into->text_len = 0;
    }
    int rc = SC_OK;
    if (with->text_len) {
        char *t = realloc(into->text, into->text_len + with->text_len + 1);
        if (!t) {
            rc = SC_E_NOMEM;
        } else {
            memcpy(t + into->text_len, with->text, with->text_len);
            into->text_len += with->text_len;
            t[into->text_len] = 0;
            into->text = t;
        }
    }
    into->misc |= with->misc;
    for (size_t i = 0; rc == SC_OK && i < with->n_kids; i++) {
        xn *w = with->kids[i];
        with->kids[i] = NULL;
        if (!w)
            continue;
        if (w->remove && w->replace) {
            sc_err_set(err, "an element has both remove= and replace=: ClickHouse refuses to load such a config",
                       path, 0, 0);
            xn_free(w);
            rc = SC_E_INPUT;
            break;
        }
        xt_node *hit = xt_find(&tree, w);
        if (hit) {
            size_t j = hit->value;
            xt_erase(&tree, hit);
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
                for (size_t a = 0; rc == SC_OK && a < w->n_attr; a++)
                    if (xn_set_attr(t, w->attr[2 * a], w->attr[2 * a + 1]) != 0)
                        rc = SC_E_NOMEM;
                if (rc == SC_OK)
                    rc = merge(t, w, path, err);
                else
                    xn_free(w);
            }
        } else if (w->remove) {
            xn_free(w);
        } else {
            delete_attributes_below(w);
            if (xn_add(into, w) != 0) {
                xn_free(w);
                rc = SC_E_NOMEM;
            }
        }
    }
    free(pool);
    xn_free(with);
    return rc;
}

/* Poco's importNode(…, deep): a copy of src and everything below it (as deep as one parsed
 * file, so the recursion stays within the parse's depth bound twice over). */
static xn *xn_copy(const xn *src)
{
    xn *n = calloc(1, sizeof *n);
    if (!n || !(n->name = strdup(src->name)))
        goto oom;
    n->replace = src->replace, n->remove = src->remove, n->optional = src->optional;
    n->merge_attr = src->merge_attr, n->misc = src->misc, n->n_subst = src->n_subst;
    if (src->text_len) {
        if (!(n->text = malloc(src->text_len + 1)))
            goto oom;
        memcpy(n->text, src->text, src->text_len + 1);
        n->text_len = src->text_len;
    }
    if (src->subst && (!(n->subst = strdup(src->subst)) || !(n->subst_val = strdup(src->subst_val))))
        goto oom;
    for (size_t i = 0; i < src->n_attr; i++)
        if (xn_set_attr(n, src->attr[2 * i], src->attr[2 * i + 1]) != 0)
            goto oom;
    for (size_t i = 0; i < src->n_kids; i++) {
        if (!src->kids[i])
            continue;
        xn *k = xn_copy(src->kids[i]);
        if (!k || xn_add(n, k) != 0) {
            xn_free(k);
            goto oom;
        }
    }
    return n;
oom:
    if (n && !n->name) {
        free(n);
        return NULL;
    }
    xn_free(n);
    return NULL;
}

static int text_append(xn *n, const char *t, size_t len)
{
    if (!len)
        return 0;
    char *b = realloc(n->text, n->text_len + len + 1);
    if (!b)
        return -1;
    memcpy(b + n->text_len, t, len);
    n->text_len += len;
    b[n->text_len] = 0;
    n->text = b;
    return 0;
}

/* Poco's Node::getNodeByPath for the plain form incl= takes: element names joined by '/', each
 * step the first child of that name. Attribute and index selectors are not followed (-1). */
static int by_path(const xn *root, const char *p, const xn **out)
{
    *out = NULL;
    if (!*p || strpbrk(p, "[]@") || *p == '/')
        return -1;
    const xn *n = root;
    while (n && *p) {
        const char *slash = strchr(p, '/');
        size_t l = slash ? (size_t)(slash - p) : strlen(p);
        const xn *next = NULL;
        for (size_t i = 0; i < n->n_kids && !next; i++)
            if (n->kids[i] && strlen(n->kids[i]->name) == l && !memcmp(n->kids[i]->name, p, l))
                next = n->kids[i];
        n = next;
        p += l + (slash ? 1 : 0);
    }
    *out = n;
    return 0;
}

typedef struct {
    const xn *incl_root; /* the include_from document's root element, or NULL */
    const char *path;    /* for messages */
    sc_err *err;
} inc_ctx;

static int includes_below(xn *n, const inc_ctx *c);

/* ConfigProcessor::doIncludesRecursive for the element parent->kids[i]: incl= takes the content
 * of the include_from document's element, from_env= that of <from_env>VALUE</from_env> parsed as
 * XML; the content is appended (replace="…" first drops the element's own) and the source's
 * attributes are copied, then the element is processed again. <include incl=…/> is replaced by
 * the content, which is not processed further (the server's walk has moved past it). What is not
 * found is removed with optional="…", or left as written (the server logs a warning; an <include>
 * goes). from_zk= is left for the caller to refuse. *next: the index where the walk goes on. */
static int include_one(xn *parent, size_t i, const inc_ctx *c, size_t *next)
{
    xn *k = parent->kids[i];
    *next = i + 1;
    for (int round = 0;; round++) {
        if (round > SC_XML_MAX_DEPTH) {
            sc_err_set(c->err, "incl= substitutions include each other without end", c->path, 0, 0);
            return SC_E_INPUT;
        }
        if (k->n_subst > 1) {
            sc_err_set(c->err, "an element carries more than one of incl=, from_zk=, from_env=: ClickHouse "
                               "refuses to load such a config", c->path, 0, 0);
            return SC_E_INPUT;
        }
        int is_include = !strcmp(k->name, "include");
        if (is_include && (has_content(k) || !k->subst)) {
            sc_err_set(c->err, has_content(k) ? "an <include> element has content: ClickHouse refuses to load such a config"
                                              : "an <include> element has no incl=, from_env= or from_zk=: ClickHouse "
                                                "refuses to load such a config", c->path, 0, 0);
            return SC_E_INPUT;
        }
        if (!k->subst)
            break;
        const xn *found = NULL;
        xn *env_doc = NULL;
        if (!strcmp(k->subst, "from_zk")) {
            if (has_content(k) && !k->replace) {
                sc_err_set(c->err, "an element with from_zk= has a value but no replace=\"1\": ClickHouse refuses "
                                   "to load such a config", c->path, 0, 0);
                return SC_E_INPUT;
            }
            break;
        }
        if (!strcmp(k->subst, "incl")) {
            if (c->incl_root && by_path(c->incl_root, k->subst_val, &found) != 0) {
                sc_err_set(c->err, "an incl= name with a selector ([…], @) or a leading '/': not resolved by this "
                                   "tool; pass a system.clusters dump (TSVWithNames)", c->path, 0, 0);
                return SC_E_INPUT;
            }
        } else { /* from_env */
            if (has_content(k) && !k->replace) {
                sc_err_set(c->err, "an element with from_env= has a value but no replace=\"1\": ClickHouse "
                                   "refuses to load such a config (can't process from_env substitution)",
                           c->path, 0, 0);
                return SC_E_INPUT;
            }
            const char *v = getenv(k->subst_val);
            if (v) {
                size_t vl = strlen(v);
                char *doc = malloc(vl + 22);
                if (!doc)
                    return SC_E_NOMEM;
                memcpy(doc, "<from_env>", 10);
                memcpy(doc + 10, v, vl);
                memcpy(doc + 10 + vl, "</from_env>", 11);
                sc_err perr = {0};
                int rc = parse_xml("environment", doc, vl + 21, 1, &env_doc, &perr);
                free(doc);
                if (rc == SC_E_NOMEM)
                    return rc;
                if (rc != SC_OK) {
                    sc_err_set(c->err, "a from_env= variable's value is not well-formed XML content: ClickHouse "
                                       "refuses to load such a config", c->path, 0, 0);
                    return SC_E_INPUT;
                }
                found = env_doc;
            }
        }
        if (!found) {
            if (k->optional || is_include) {
                xn_free(k);
                parent->kids[i] = NULL;
                return SC_OK;
            }
            break; /* the server warns ("Include not found", "Env variable is not set") and goes on */
        }
        int rc = SC_OK;
        if (is_include) {
            if (k->merge_attr) {
                xn_free(env_doc);
                sc_err_set(c->err, "<include merge=…>: not resolved by this tool; pass a system.clusters dump "
                                   "(TSVWithNames)", c->path, 0, 0);
                return SC_E_INPUT;
            }
            size_t add = 0;
            for (size_t j = 0; j < found->n_kids; j++)
                add += found->kids[j] != NULL;
            size_t old = parent->n_kids;
            for (size_t j = 0; rc == SC_OK && j < add; j++)
                if (xn_add(parent, k) != 0) /* grow by one slot; filled below */
                    rc = SC_E_NOMEM;
            if (rc == SC_OK) {
                parent->n_kids = old;
                memmove(parent->kids + i + add, parent->kids + i, (old - i) * sizeof *parent->kids);
                parent->n_kids = old + add;
                size_t at = i;
                for (size_t j = 0; j < found->n_kids; j++) {
                    if (!found->kids[j])
                        continue;
                    xn *cp = xn_copy(found->kids[j]);
                    parent->kids[at++] = cp;
                    if (!cp)
                        rc = SC_E_NOMEM;
                    else
                        cp->parent = parent;
                }
                parent->kids[i + add] = NULL; /* the <include> itself */
                if (rc == SC_OK && text_append(parent, found->text, found->text_len) != 0)
                    rc = SC_E_NOMEM;
                parent->misc |= found->misc;
                xn_free(k);
                *next = i + add + 1;
            } else {
                parent->n_kids = old;
            }
            xn_free(env_doc);
            return rc;
        }
        free(k->subst);
        free(k->subst_val);
        k->subst = k->subst_val = NULL;
        k->n_subst = 0;
        if (k->replace) {
            for (size_t j = 0; j < k->n_kids; j++)
                xn_free(k->kids[j]);
            k->n_kids = 0;
            free(k->text);
            k->text = NULL;
            k->text_len = 0;
            k->misc = 0;
            k->replace = 0;
        }
        for (size_t j = 0; rc == SC_OK && j < found->n_kids; j++) {
            if (!found->kids[j])
                continue;
            xn *cp = xn_copy(found->kids[j]);
            if (!cp || xn_add(k, cp) != 0) {
                xn_free(cp);
                rc = SC_E_NOMEM;
            }
        }
        if (rc == SC_OK && text_append(k, found->text, found->text_len) != 0)
            rc = SC_E_NOMEM;
        k->misc |= found->misc;
        /* setAttributeNode for each of the source's attributes */
        for (size_t j = 0; rc == SC_OK && j < found->n_attr; j++)
            if (xn_set_attr(k, found->attr[2 * j], found->attr[2 * j + 1]) != 0)
                rc = SC_E_NOMEM;
        if (rc == SC_OK && found->subst) {
            k->n_subst = found->n_subst;
            if (!(k->subst = strdup(found->subst)) || !(k->subst_val = strdup(found->subst_val)))
                rc = SC_E_NOMEM;
        }
        k->replace |= found->replace;
        k->remove |= found->remove;
        xn_free(env_doc);
        if (rc != SC_OK)
            return rc;
    }
    return includes_below(k, c);
}

static int includes_below(xn *n, const inc_ctx *c)
{
    for (size_t i = 0; i < n->n_kids;) {
        if (!n->kids[i]) {
            i++;
            continue;
        }
        size_t next;
        int rc = include_one(n, i, c, &next);
        if (rc != SC_OK)
            return rc;
        i = next;
    }
    return SC_OK;
}

/* A from_zk= substitution, or an <include> (only from_zk= leaves one), left in the subtree. */
static int unresolved(const xn *n)
{
    if ((n->subst && !strcmp(n->subst, "from_zk")) || !strcmp(n->name, "include"))
        return 1;
    for (size_t i = 0; i < n->n_kids; i++)
        if (n->kids[i] && unresolved(n->kids[i]))
            return 1;
    return 0;
}

static xn *child(const xn *n, const char *name)
{
    for (size_t i = 0; n && i < n->n_kids; i++)
        if (n->kids[i] && !strcmp(n->kids[i]->name, name))
            return n->kids[i];
    return NULL;
}

/* Poco's innerText, which is what getString returns: the element's text and then its
 * descendants', untrimmed (the server trims nothing). Cut at cap - 1 bytes; *full says whether
 * it fitted. */
static size_t inner_text_at(const xn *n, char *buf, size_t cap, size_t at, int *full)
{
    if (!n)
        return at;
    size_t l = n->text_len;
    if (at + l >= cap) {
        l = cap - 1 - at;
        *full = 0;
    }
    memcpy(buf + at, n->text ? n->text : "", l);
    at += l;
    for (size_t i = 0; i < n->n_kids && *full; i++)
        if (n->kids[i])
            at = inner_text_at(n->kids[i], buf, cap, at, full);
    buf[at] = 0;
    return at;
}

static const char *leaf_full(const xn *n, char *buf, size_t cap, int *full)
{
    *full = 1;
    buf[0] = 0;
    inner_text_at(n, buf, cap, 0, full);
    return buf;
}

static const char *leaf(const xn *n, char *buf, size_t cap)
{
    int full;
    return leaf_full(n, buf, cap, &full);
}

/* Poco's strToInt as the engine's Poco has it: blanks skipped before, none after; '+' (and '-'
 * in base 10); ',' skipped anywhere in base 10; an overflow test made before the last digit is
 * added only, so a value just past the type's maximum wraps (as the server's does). 0 or -1. */
static int poco_str_to_int(const char *s, int base, int is_signed, uint32_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    int neg = 0;
    if (base == 10 && *s == '-') {
        if (!is_signed)
            return -1;
        neg = 1;
        s++;
    } else if (*s == '+') {
        s++;
    }
    uint64_t limit = (is_signed ? 0x7fffffffu : 0xffffffffu) / (unsigned)base, r = 0;
    for (; *s; s++) {
        int d;
        char ch = *s;
        if (ch >= '0' && ch <= '9')
            d = ch - '0';
        else if (base == 16 && ch >= 'a' && ch <= 'f')
            d = ch - 'a' + 10;
        else if (base == 16 && ch >= 'A' && ch <= 'F')
            d = ch - 'A' + 10;
        else if (base == 10 && ch == ',')
            continue;
        else
            return -1;
        if (d == 0 && r == 0)
            continue;
        if (r > limit)
            return -1;
        r = r * (unsigned)base + (unsigned)d;
    }
    *out = (uint32_t)(neg ? 0u - (uint32_t)r : (uint32_t)r);
    return 0;
}

/* AbstractConfiguration::getInt: "0x…" (no blank before it) in hex as unsigned, else decimal;
 * the bits as the caller's integer type then decide (weight: UInt32, port: UInt16). */
static int poco_int(const char *s, uint32_t *v)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return poco_str_to_int(s + 2, 16, 0, v);
    return poco_str_to_int(s, 10, 1, v);
}

/* AbstractConfiguration::getBool: a decimal number (non-zero is true), else true/yes/on or
 * false/no/off in any case, with nothing around them. */
static int poco_bool(const char *s, int *v)
{
    uint32_t n;
    if (poco_str_to_int(s, 10, 1, &n) == 0)
        *v = n != 0;
    else if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on"))
        *v = 1;
    else if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off"))
        *v = 0;
    else
        return -1;
    return 0;
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

/* ConfigProcessor::processConfig after the merge: the first <include_from> has its own
 * substitutions resolved, and its text names the include file (relative to the current
 * directory, as the server opens it); without one, /etc/metrika.xml when it exists. A named file
 * that cannot be read fails the load, as it fails the server's. Then every incl=/from_env= of the
 * config is resolved against that file and this process's environment. */
static int process_includes(xn *root, const char *path, sc_err *err)
{
    inc_ctx c = {NULL, path, err};
    char inc_path[4096] = "";
    int rc = SC_OK, have = 0;
    for (size_t i = 0; i < root->n_kids && !have; i++) {
        if (!root->kids[i] || strcmp(root->kids[i]->name, "include_from"))
            continue;
        size_t next;
        if ((rc = include_one(root, i, &c, &next)) != SC_OK)
            return rc;
        have = 1;
        int full;
        if (root->kids[i])
            leaf_full(root->kids[i], inc_path, sizeof inc_path, &full);
    }
    if (!have && access("/etc/metrika.xml", F_OK) == 0)
        snprintf(inc_path, sizeof inc_path, "/etc/metrika.xml");
    xn *doc = NULL;
    if (inc_path[0]) {
        char *data;
        size_t len;
        if (read_config(inc_path, &data, &len, err) != 0)
            return SC_E_INPUT; /* the server: "File not found" and no config */
        rc = parse_xml(inc_path, data, len, 1, &doc, err);
        free(data);
        if (rc != SC_OK)
            return rc;
        c.incl_root = doc;
    }
    rc = includes_below(root, &c);
    xn_free(doc);
    return rc;
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
        rc = parse_xml(f, data ? data : main_data, len, 0, &t, err);
        free(data);
        if (rc != SC_OK)
            break;
        if (!root)
            root = t;
        else
            rc = merge(root, t, f, err);
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
    rc = process_includes(root, path, err);
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
    char host[4096], port[256];
    int full;
    const xn *hn = child(r, "host");
    if (!hn) {
        sc_err_set(err, "a replica has no <host>", where, 0, 0);
        return SC_E_INPUT;
    }
    leaf_full(hn, host, sizeof host, &full);
    if (!full) {
        sc_err_set(err, "a replica's <host> is longer than 4095 bytes", where, 0, 0);
        return SC_E_INPUT;
    }
    unsigned long p = default_port;
    const xn *pn = child(r, "port");
    uint32_t pv;
    if (pn) {
        if (poco_int(leaf_full(pn, port, sizeof port, &full), &pv) != 0 || !full) {
            sc_err_set(err, "a replica's <port> is not a number as the server reads one (Poco: Syntax error)",
                       where, 0, 0);
            return SC_E_INPUT;
        }
        p = (uint16_t)pv; /* static_cast<UInt16> of getInt, as Cluster.cpp does */
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
    char buf[256];
    int full;
    uint32_t w = 1;
    const xn *wn = child(n, "weight");
    if (wn && (poco_int(leaf_full(wn, buf, sizeof buf, &full), &w) != 0 || !full)) {
        sc_err_set(err, "a shard's <weight> is not a number as the server reads one (Poco: Syntax error)", where,
                   0, 0);
        return SC_E_INPUT;
    }
    s->weight = w; /* getInt's bits as UInt32, as Cluster.cpp stores them: "-1" is 4294967295 */
    s->internal_replication = 0; /* ClickHouse's default */
    const xn *ir = child(n, "internal_replication");
    if (ir && (poco_bool(leaf_full(ir, buf, sizeof buf, &full), &s->internal_replication) != 0 || !full)) {
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

/* Poco's key for child i of n, as XMLConfiguration::enumerate gives it and the server names a
 * cluster: the element's name, with "[k]" for the k-th repeat of that name (twin, twin[1]). */
static void child_key(const xn *n, size_t i, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t j = 0; j < i; j++)
        if (n->kids[j] && !strcmp(n->kids[j]->name, n->kids[i]->name))
            k++;
    if (k)
        snprintf(buf, cap, "%s[%zu]", n->kids[i]->name, k);
    else
        snprintf(buf, cap, "%s", n->kids[i]->name);
}

static const xn *child_by_key(const xn *n, const char *key)
{
    char buf[4200];
    for (size_t i = 0; n && i < n->n_kids; i++) {
        if (!n->kids[i])
            continue;
        child_key(n, i, buf, sizeof buf);
        if (!strcmp(buf, key))
            return n->kids[i];
    }
    return NULL;
}

static int load_xml(const char *path, const char *data, size_t len, const char *name, sc_cluster *out,
                    sc_err *err)
{
    xn *root = NULL;
    int rc = load_xml_tree(path, data, len, &root, err);
    if (rc != SC_OK)
        return rc;
    const xn *rs = child(root, "remote_servers");
    const xn *cl = rs ? child_by_key(rs, name) : NULL;
    if (rs && unresolved(rs)) {
        sc_err_set(err, "<remote_servers> uses a from_zk= substitution, which only a server with ZooKeeper "
                        "resolves; pass a system.clusters dump (TSVWithNames) from the server", path, 0, 0);
        rc = SC_E_INPUT;
    } else if (!cl) {
        char key[4200];
        for (size_t i = 0; rs && i < rs->n_kids; i++) {
            if (!rs->kids[i])
                continue;
            child_key(rs, i, key, sizeof key);
            if (add_other(out, key) != 0)
                rc = SC_E_NOMEM;
        }
        if (rc == SC_OK) {
            sc_err_set(err, rs ? "no such cluster in <remote_servers>" : "the config has no <remote_servers>",
                       path, 0, 0);
            rc = SC_E_CHECK;
        }
    } else {
        char buf[64];
        const xn *tp = child(root, "tcp_port");
        default_port = 0;
        uint32_t tv;
        if (tp && poco_int(leaf(tp, buf, sizeof buf), &tv) == 0)
            default_port = (uint16_t)tv;
        rc = cluster_from_xml(cl, path, out, err);
    }
    xn_free(root);
    return rc;
}

int sc_config_macros(const char *path, char ***defs, size_t *n, sc_err *err)
{
    *defs = NULL;
    *n = 0;
    char *data = NULL;
    size_t len = 0;
    if (!is_dir(path)) {
        if (read_config(path, &data, &len, err) != 0)
            return SC_E_INPUT;
        size_t i = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
        while (i < len && isspace((unsigned char)data[i]))
            i++;
        if (i >= len || data[i] != '<') {
            free(data);
            sc_err_set(err, "not a server config (XML), so it has no <macros>", path, 0, 0);
            return SC_E_INPUT;
        }
    }
    xn *root = NULL;
    int rc = load_xml_tree(path, data, len, &root, err);
    free(data);
    if (rc != SC_OK)
        return rc;
    const xn *ms = child(root, "macros");
    char **d = ms ? calloc(ms->n_kids + 1, sizeof *d) : NULL;
    if (ms && !d)
        rc = SC_E_NOMEM;
    for (size_t i = 0; rc == SC_OK && ms && i < ms->n_kids; i++) {
        const xn *m = ms->kids[i];
        /* the first element of a name is the macro (Poco's key "name"; a repeat is "name[1]");
         * one left as a from_zk= substitution or holding elements is no plain value */
        if (!m || child(ms, m->name) != m || m->subst || m->n_kids)
            continue;
        /* Verbatim, blanks kept: the server's Macros takes the element's text untrimmed
         * (<cluster> ods_cluster </cluster> is " ods_cluster ", checked with getMacro on the
         * engine in tests/bats/shard-check.bats), so neither may we trim. */
        size_t nl = strlen(m->name), tl = m->text ? m->text_len : 0;
        if (!(d[*n] = malloc(nl + tl + 2))) {
            rc = SC_E_NOMEM;
            break;
        }
        memcpy(d[*n], m->name, nl);
        d[*n][nl] = '=';
        memcpy(d[*n] + nl + 1, m->text ? m->text : "", tl);
        d[*n][nl + 1 + tl] = 0;
        (*n)++;
    }
    xn_free(root);
    if (rc != SC_OK) {
        for (size_t i = 0; i < *n; i++)
            free(d[i]);
        free(d);
        *n = 0;
        return rc;
    }
    *defs = d;
    return SC_OK;
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
    if (total > SC_SLOT_TABLE_MAX) {
        /* Cluster.cpp expands the weights into a slot table, one 8-byte entry per unit of weight */
        fprintf(out, "cluster %s: the weights sum to %llu: every server builds a slot table of that many "
                     "8-byte entries (%.1f GiB) for this cluster, and one this size can exhaust its memory; "
                     "only the weights' ratios matter, so divide them by a common factor\n",
                c->name, (unsigned long long)total, (double)total * 8 / (1 << 30));
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
