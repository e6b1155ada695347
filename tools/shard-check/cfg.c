/* cfg.c: ClickHouse's ConfigProcessor (merge, include_from, incl=, from_env=) and Poco's value
 * getters, mirrored closely enough that shard-check reads a config as the server does. */
#include "cfg.h"

#include "io.h"
#include "xtree.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <expat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SC_CONFIG_MAX_MIB 64
#define SC_CONFIG_MAX ((size_t)SC_CONFIG_MAX_MIB << 20)
/* The longest value read: a host name, a macro (a config's text is bounded by its file anyway). */
#define SC_VALUE_MAX 65536

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

typedef struct cfg_node {
    char *name;
    char *text; /* every text node's bytes, in order (what innerText reads) */
    size_t text_len;
    /* The text nodes as the server's DOM holds them: a merge drops the non-blank plain ones and
     * keeps CDATA sections, so <weight><![CDATA[1]]></weight> merged with <weight>2</weight> is
     * "12" on the server. split: the next text starts a new node (an element, a comment or a
     * CDATA boundary came between). */
    struct tpiece {
        size_t len;
        int cdata;
    } *pieces;
    size_t n_pieces;
    int split;
    int replace, remove, optional, merge_attr;
    /* The attributes that identify the element when merge files are matched to it (every one but
     * replace, remove, incl, from_zk and from_env), as name/value pairs sorted by name. */
    char **attr;
    size_t n_attr;
    int misc;  /* a comment or processing instruction: a child node for the server's DOM */
    int n_subst; /* how many of incl= / from_zk= / from_env= the element carries */
    char *subst, *subst_val; /* the last of them: its attribute name and value */
    struct cfg_node **kids;
    size_t n_kids, cap_kids;
    struct cfg_node *parent;
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
        free(n->pieces);
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

/* One more text node's bytes (or more bytes of the last one, when nothing came between). */
static int text_add(xn *n, const char *s, size_t len, int cdata)
{
    if (!len)
        return 0;
    if (!n->n_pieces || n->split || n->pieces[n->n_pieces - 1].cdata != cdata) {
        struct tpiece *p = realloc(n->pieces, (n->n_pieces + 1) * sizeof *p);
        if (!p)
            return -1;
        n->pieces = p;
        p[n->n_pieces++] = (struct tpiece){0, cdata};
        n->split = 0;
    }
    char *t = realloc(n->text, n->text_len + len + 1);
    if (!t)
        return -1;
    memcpy(t + n->text_len, s, len);
    n->text_len += len;
    t[n->text_len] = 0;
    n->text = t;
    n->pieces[n->n_pieces - 1].len += len;
    return 0;
}

/* Appends every text node of src to n, each a node of its own (the DOM's appendChild). */
static int text_append(xn *n, const xn *src)
{
    size_t at = 0;
    for (size_t i = 0; i < src->n_pieces; i++) {
        n->split = 1;
        if (text_add(n, src->text + at, src->pieces[i].len, src->pieces[i].cdata) != 0)
            return -1;
        at += src->pieces[i].len;
    }
    n->split = 1;
    return 0;
}

static void text_clear(xn *n)
{
    free(n->text);
    free(n->pieces);
    n->text = NULL;
    n->pieces = NULL;
    n->text_len = n->n_pieces = 0;
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
    int oom, too_deep, in_cdata;
    size_t depth;
    char **ents; /* the general entities the document declares with a value */
    size_t n_ents;
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
    } else
        xp->cur->split = 1;
    xp->cur = n;
}

static void x_end(void *ud, const XML_Char *name)
{
    (void)name;
    xparse *xp = ud;
    xp->depth--;
    if (xp->cur)
        xp->cur = xp->cur->parent;
    if (xp->cur)
        xp->cur->split = 1;
}

static void x_text(void *ud, const XML_Char *s, int len)
{
    xparse *xp = ud;
    xn *n = xp->cur;
    if (!n || len <= 0)
        return;
    if (text_add(n, s, (size_t)len, xp->in_cdata) != 0) {
        xp->oom = 1;
        XML_StopParser(xp->p, XML_FALSE);
    }
}

static void x_cdata(void *ud, int in)
{
    xparse *xp = ud;
    xp->in_cdata = in;
    if (xp->cur)
        xp->cur->split = 1;
}
static void x_cdata_start(void *ud) { x_cdata(ud, 1); }
static void x_cdata_end(void *ud) { x_cdata(ud, 0); }

static void x_entity_decl(void *ud, const XML_Char *name, int is_param, const XML_Char *value, int value_len,
                          const XML_Char *base, const XML_Char *system_id, const XML_Char *public_id,
                          const XML_Char *notation)
{
    (void)value_len, (void)base, (void)system_id, (void)public_id, (void)notation;
    xparse *xp = ud;
    if (is_param || !value)
        return;
    char **e = realloc(xp->ents, (xp->n_ents + 1) * sizeof *e);
    if (!e || !(e[xp->n_ents] = strdup(name))) {
        if (e)
            xp->ents = e;
        xp->oom = 1;
        XML_StopParser(xp->p, XML_FALSE);
        return;
    }
    xp->ents = e;
    xp->n_ents++;
}

/* What the server's parser makes of a general entity reference in text, measured on the engine
 * (tests/fixtures/shard/diff/entities): one the document declares with a value stays as written,
 * "&dom;", not expanded; one it does not declare (only possible with an external DTD, which is
 * never read) is dropped. expat, with a default handler and no expansion, hands both to it. */
static void x_default(void *ud, const XML_Char *s, int len)
{
    xparse *xp = ud;
    if (!xp->cur || len < 3 || s[0] != '&' || s[len - 1] != ';')
        return;
    for (size_t i = 0; i < xp->n_ents; i++)
        if (strlen(xp->ents[i]) == (size_t)len - 2 && !memcmp(xp->ents[i], s + 1, (size_t)len - 2)) {
            if (text_add(xp->cur, s, (size_t)len, xp->in_cdata) != 0) {
                xp->oom = 1;
                XML_StopParser(xp->p, XML_FALSE);
            }
            return;
        }
}

static void x_misc(void *ud)
{
    xparse *xp = ud;
    if (xp->cur) {
        xp->cur->misc = 1;
        xp->cur->split = 1;
    }
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
    XML_SetCdataSectionHandler(xp.p, x_cdata_start, x_cdata_end);
    XML_SetEntityDeclHandler(xp.p, x_entity_decl);
    XML_SetDefaultHandler(xp.p, x_default);
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
    for (size_t i = 0; i < xp.n_ents; i++)
        free(xp.ents[i]);
    free(xp.ents);
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
    int rc = SC_OK;
    if (into->n_pieces) { /* the target's non-blank text nodes go; CDATA sections and blanks stay */
        xn keep = {0};
        size_t at = 0;
        for (size_t i = 0; rc == SC_OK && i < into->n_pieces; i++) {
            const struct tpiece *p = &into->pieces[i];
            keep.split = 1;
            if ((p->cdata || is_blank(into->text + at, p->len)) && text_add(&keep, into->text + at, p->len, p->cdata))
                rc = SC_E_NOMEM;
            at += p->len;
        }
        text_clear(into);
        into->text = keep.text, into->text_len = keep.text_len;
        into->pieces = keep.pieces, into->n_pieces = keep.n_pieces;
    }
    if (rc == SC_OK && text_append(into, with) != 0)
        rc = SC_E_NOMEM;
    into->misc |= with->misc;
    for (size_t i = 0; rc == SC_OK && i < with->n_kids; i++) {
        xn *w = with->kids[i];
        with->kids[i] = NULL;
        if (!w)
            continue;
        if (w->remove && w->replace) {
            sc_err_set(err, "an element has both remove= and replace= (both remove and replace attributes set for "
                            "element): keep one of them",
                       path, 0, 0);
            xn_free(w);
            rc = SC_E_REFUSED;
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
    if (text_append(n, src) != 0)
        goto oom;
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
            sc_err_set(c->err, "an element carries more than one of incl=, from_zk=, from_env= (More than one "
                               "substitution attribute is set for element): keep one of them", c->path, 0, 0);
            return SC_E_REFUSED;
        }
        int is_include = !strcmp(k->name, "include");
        if (is_include && (has_content(k) || !k->subst)) {
            sc_err_set(c->err, has_content(k) ? "an <include> element has content (<include> element must have no children): "
                                                "move its content out of it"
                                              : "an <include> element has no incl=, from_env= or from_zk= (No substitution "
                                                "attributes set for element <include>): give it one, or remove it", c->path, 0, 0);
            return SC_E_REFUSED;
        }
        if (!k->subst)
            break;
        const xn *found = NULL;
        xn *env_doc = NULL;
        if (!strcmp(k->subst, "from_zk")) {
            if (has_content(k) && !k->replace) {
                sc_err_set(c->err, "an element with from_zk= has a value but no replace=\"1\" (can't process "
                                   "from_zk substitution): add replace=\"1\", or empty the element", c->path, 0, 0);
                return SC_E_REFUSED;
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
                sc_err_set(c->err, "an element with from_env= has a value but no replace=\"1\" (can't process "
                                   "from_env substitution): add replace=\"1\" (the value is then the fallback "
                                   "while the variable is unset), or empty the element",
                           c->path, 0, 0);
                return SC_E_REFUSED;
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
                    sc_err_set(c->err, "a from_env= variable's value is not well-formed XML content (the server "
                                       "parses it: SAXParseException): write & and < in it as &amp; and &lt;", c->path, 0, 0);
                    return SC_E_REFUSED;
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
                if (rc == SC_OK && text_append(parent, found) != 0)
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
            text_clear(k);
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
        if (rc == SC_OK && text_append(k, found) != 0)
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

/* ConfigProcessor::parseConfig's choice of parser: a regular file whose name does not end in .xml
 * (.conf, or none) is XML only when its first character that is not a blank, tab, CR or LF is
 * '<'. A UTF-8 byte order mark is no blank, so a .conf file beginning with one goes to YAML
 * (and so does one of blanks only: the engine, without yaml-cpp, refuses both). */
static int reads_yaml(const char *path, const char *data, size_t len)
{
    size_t l = strlen(path);
    struct stat st;
    if (ext_is(path, l, ".xml") || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    size_t i = 0;
    while (i < len && strchr(" \t\n\r", data[i]) && data[i])
        i++;
    return i >= len || data[i] != '<';
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
        if (reads_yaml(f, data ? data : main_data, len)) {
            sc_err_set(err, "does not begin with '<' (a byte order mark, or other bytes first), so the server "
                            "reads it as YAML, not XML (CANNOT_PARSE_YAML without yaml-cpp; with it, what the file "
                            "holds is lost or refused): remove what comes before the first '<'", f, 1, 1);
            free(data);
            rc = SC_E_REFUSED;
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

/* ---- values as Poco's AbstractConfiguration reads them ---- */

/* XMLConfiguration::findNode, ported step for step: delimiters ('.') skipped where a name starts
 * (so "a..b" is "a.b" and "" is the root), "name" the first child element of that name,
 * "[N]" the N-th element of the current one's name from it on. An attribute ("[@x]") is no
 * element: *sel is set so that the caller can refuse what it cannot read. */
static const xn *by_key(const xn *root, const char *k, size_t len, int *sel)
{
    const xn *n = root;
    size_t i = 0;
    while (n && i < len) {
        if (k[i] == '[') {
            i++;
            if (i < len && k[i] == '@') {
                *sel = 1;
                return NULL;
            }
            size_t idx = 0, digits = 0;
            while (i < len && k[i] >= '0' && k[i] <= '9' && idx < 1000000)
                idx = idx * 10 + (size_t)(k[i++] - '0'), digits++;
            if (!digits) { /* NumberParser::parse("") throws: not a key this tool reads */
                *sel = 1;
                return NULL;
            }
            if (i < len)
                i++;
            const xn *p = n->parent;
            const xn *hit = NULL;
            size_t from = 0;
            while (p && from < p->n_kids && p->kids[from] != n)
                from++;
            for (size_t j = from; p && j < p->n_kids && !hit; j++)
                if (p->kids[j] && !strcmp(p->kids[j]->name, n->name) && idx-- == 0)
                    hit = p->kids[j];
            n = hit;
            continue;
        }
        while (i < len && k[i] == '.')
            i++;
        size_t s = i;
        while (i < len && k[i] != '.' && k[i] != '[')
            i++;
        const xn *hit = NULL;
        for (size_t j = 0; j < n->n_kids && !hit; j++)
            if (n->kids[j] && strlen(n->kids[j]->name) == i - s && !memcmp(n->kids[j]->name, k + s, i - s))
                hit = n->kids[j];
        n = hit;
    }
    return n;
}

typedef struct {
    char *buf;
    size_t cap, at;
    int full;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t l)
{
    if (b->at + l >= b->cap) {
        l = b->cap - 1 - b->at;
        b->full = 0;
    }
    memcpy(b->buf + b->at, s, l);
    b->at += l;
    b->buf[b->at] = 0;
}

/* Poco's uncheckedExpand: each ${key} becomes the (itself expanded) value of that key; a key the
 * config does not hold stays as written, and an unclosed "${key" is read as if it were closed.
 * Past 10 levels of references Poco throws (CircularReferenceException): -1. */
static int expand(const xn *root, const char *v, size_t len, sbuf *out, int depth)
{
    if (depth > 10)
        return CFG_CIRCULAR;
    for (size_t i = 0; i < len && out->full;) {
        if (v[i] != '$') {
            sb_put(out, v + i, 1);
            i++;
            continue;
        }
        i++;
        if (i >= len || v[i] != '{') {
            sb_put(out, "$", 1);
            continue;
        }
        size_t k0 = ++i;
        while (i < len && v[i] != '}')
            i++;
        size_t kl = i - k0;
        if (i < len)
            i++;
        int sel = 0;
        const xn *hit = by_key(root, v + k0, kl, &sel);
        if (sel)
            return CFG_SELECTOR;
        if (!hit) {
            sb_put(out, "${", 2);
            sb_put(out, v + k0, kl);
            sb_put(out, "}", 1);
            continue;
        }
        char *raw = malloc(SC_VALUE_MAX);
        if (!raw)
            return CFG_NOMEM;
        int full;
        leaf_full(hit, raw, SC_VALUE_MAX, &full);
        int rc = full ? expand(root, raw, strlen(raw), out, depth + 1) : CFG_TOO_LONG;
        free(raw);
        if (rc)
            return rc;
    }
    return 0;
}

int cfg_string(const cfg_node *root, const cfg_node *n, char *buf, size_t cap)
{
    char *raw = malloc(SC_VALUE_MAX);
    if (!raw)
        return CFG_NOMEM;
    int full;
    leaf_full(n, raw, SC_VALUE_MAX, &full);
    sbuf b = {buf, cap, 0, 1};
    buf[0] = 0;
    int rc = full ? expand(root, raw, strlen(raw), &b, 1) : CFG_TOO_LONG;
    free(raw);
    return rc ? rc : b.full ? CFG_OK : CFG_TOO_LONG;
}

/* getInt (iv) or getBool (bv). A number's text is short: a longer one cannot parse, as Poco's
 * would not (Syntax error). */
static int number(const cfg_node *root, const cfg_node *n, uint32_t *iv, int *bv)
{
    char buf[256];
    int rc = cfg_string(root, n, buf, sizeof buf);
    if (rc == CFG_TOO_LONG)
        return CFG_SYNTAX;
    if (rc)
        return rc;
    return (iv ? poco_int(buf, iv) : poco_bool(buf, bv)) ? CFG_SYNTAX : CFG_OK;
}

int cfg_int(const cfg_node *root, const cfg_node *n, uint32_t *v) { return number(root, n, v, NULL); }
int cfg_bool(const cfg_node *root, const cfg_node *n, int *v) { return number(root, n, NULL, v); }

/* ---- the tree, read-only ---- */

int cfg_read_file(const char *path, char **data, size_t *len, sc_err *err) { return read_config(path, data, len, err); }
int cfg_is_dir(const char *path) { return is_dir(path); }
void cfg_free(cfg_node *root) { xn_free(root); }
const char *cfg_name(const cfg_node *n) { return n->name; }
size_t cfg_n_kids(const cfg_node *n) { return n ? n->n_kids : 0; }
const cfg_node *cfg_kid(const cfg_node *n, size_t i) { return n->kids[i]; }
const cfg_node *cfg_child(const cfg_node *n, const char *name) { return child(n, name); }
void cfg_key(const cfg_node *n, size_t i, char *buf, size_t cap) { child_key(n, i, buf, cap); }
const cfg_node *cfg_child_by_key(const cfg_node *n, const char *key) { return child_by_key(n, key); }
int cfg_unresolved(const cfg_node *n) { return unresolved(n); }

int cfg_looks_xml(const char *data, size_t len)
{
    size_t i = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
    while (i < len && isspace((unsigned char)data[i]))
        i++;
    return i < len && data[i] == '<';
}

int cfg_load(const char *path, const char *main_data, size_t main_len, cfg_node **root, sc_err *err)
{
    return load_xml_tree(path, main_data, main_len, root, err);
}

int cfg_macros(const char *path, char ***defs, size_t *n, sc_err *err)
{
    *defs = NULL;
    *n = 0;
    char *data = NULL;
    size_t len = 0;
    if (!is_dir(path)) {
        if (read_config(path, &data, &len, err) != 0)
            return SC_E_INPUT;
        if (!cfg_looks_xml(data, len)) {
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
    char *val = d ? malloc(SC_VALUE_MAX) : NULL;
    if (ms && (!d || !val))
        rc = SC_E_NOMEM;
    for (size_t i = 0; rc == SC_OK && ms && i < ms->n_kids; i++) {
        const xn *m = ms->kids[i];
        /* the first element of a name is the macro (Poco's key "name"; a repeat is "name[1]");
         * one left as a from_zk= substitution or holding elements is no plain value. A from_env=
         * or incl= not found leaves the element as written: its text is the value. */
        if (!m || child(ms, m->name) != m || (m->subst && !strcmp(m->subst, "from_zk")) || m->n_kids)
            continue;
        /* Verbatim, blanks kept: the server's Macros takes getString untrimmed (<cluster>
         * ods_cluster </cluster> is " ods_cluster ", checked with getMacro on the engine in
         * tests/bats/shard-check.bats), so neither may we trim. */
        int vr = cfg_string(root, m, val, SC_VALUE_MAX);
        if (vr == CFG_NOMEM) {
            rc = SC_E_NOMEM;
            break;
        }
        if (vr != CFG_OK)
            continue;
        size_t nl = strlen(m->name), tl = strlen(val);
        if (!(d[*n] = malloc(nl + tl + 2))) {
            rc = SC_E_NOMEM;
            break;
        }
        memcpy(d[*n], m->name, nl);
        d[*n][nl] = '=';
        memcpy(d[*n] + nl + 1, val, tl + 1);
        (*n)++;
    }
    free(val);
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
