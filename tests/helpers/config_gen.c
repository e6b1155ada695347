/* config_gen: writes a random ClickHouse server config tree (main file, merge dirs, include_from,
 * from_env, ${…}, entities, CDATA, macros) for the shard-check layout differential test
 * (tests/bats/shard-check.bats): mostly loadable, and one in five with a defect the server refuses. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "splitmix.h"
#include <sys/stat.h>

/* ---- random numbers: the same stream for the same seed everywhere ---- */
static uint64_t g_rng;
static uint64_t rnd(void) { return splitmix64(&g_rng); }
static int rn(int n) { return n > 0 ? (int)(rnd() % (uint64_t)n) : 0; } /* 0..n-1 */
static int pct(int p) { return rn(100) < p; }
static int range(int lo, int hi) { return lo + rn(hi - lo + 1); }

/* ---- a growable text buffer ---- */
typedef struct {
    char *s;
    size_t len, cap;
} buf;
static void die(const char *what)
{
    fprintf(stderr, "config_gen: %s: %s\n", what, strerror(errno));
    exit(2);
}
static void bprintf(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            die("vsnprintf");
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap : 256) * 2 + (size_t)n;
        char *t = realloc(b->s, cap);
        if (!t)
            die("realloc");
        b->s = t;
        b->cap = cap;
        if (b->len == 0)
            b->s[0] = 0;
    }
}
static void bcat(buf *b, const buf *o)
{
    if (o->len)
        bprintf(b, "%s", o->s);
}
static void bfree(buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* ---- the generator's model of the merged tree, only to keep every config loadable ----
 * Which of several same-named elements a merge file's element merges into is the engine's
 * business (ConfigProcessor looks it up in a std::multimap, and libc++'s find returns an equal
 * key near the tree's root, not the first one in the file). So the model never assumes a target:
 * it keeps, per element class (name and attributes), how many there are (that is certain) and
 * lower bounds that hold whichever of them is hit, and writes only merges that load either way. */
enum { K_SHARD, K_NODE, K_INCLUDE };
#define MAXE 48
#define NCLS 3 /* attribute classes: 0 none, 1 tag="a", 2 tag="b" */
typedef struct {
    int kind, cls;
    int incl;      /* 1: <shard incl=…/> (maybe still) unresolved: resolves to a whole shard */
    int rlb[NCLS]; /* at least this many whole replicas of each class */
} ent;
typedef struct {
    char name[40];
    int tag; /* the element carries tag="x": another identifier than the plain one, same name */
    int exists;
    int incl, incl_replace, incl_pos; /* <cluster incl=…>: the included shards, any with weight > 0 */
    int pos_lb; /* at least this many elements with weight > 0 */
    int n;
    ent e[MAXE];
} clu;

#define MAXC 24
static clu g_c[MAXC];
static int g_nc;
static int g_tcp_port;    /* the main file has <tcp_port>: a replica may omit <port> */
static int g_host, g_port; /* counters: every host and port written is new */
static int g_env;          /* from_env variables written */
static buf g_envfile, g_metrika;
static int g_incl_from;    /* include_from is set */
static int g_incl_n;
static char g_dir[PATH_MAX];
static int g_tcp_port_secure; /* the main file has <tcp_port_secure>: a secure replica may omit <port> */
static int g_in_main;         /* writing the main file: CDATA and the DOCTYPE's entity may be used */
static int g_entity;          /* the main file declares <!ENTITY dom …> */
static buf g_vals;            /* <vals>: the targets of ${vals.kN} */
static int g_nvals;

/* a value written as ${vals.kN} (sometimes through a second reference): Poco expands it when the
 * server reads the value */
static void val_ref(buf *b, const char *v)
{
    int k = ++g_nvals;
    if (pct(30)) {
        int k2 = ++g_nvals;
        bprintf(&g_vals, "<k%d>%s</k%d><k%d>${vals.k%d}</k%d>", k2, v, k2, k, k2, k);
    } else {
        bprintf(&g_vals, "<k%d>%s</k%d>", k, v, k);
    }
    bprintf(b, "${vals.k%d}", k);
}

/* internal_replication as Poco's getBool reads it, in several spellings */
static const char *bool_text(int v)
{
    static const char *t[] = {"true", "true", "1", "Yes", "TRUE", "on"}, *f[] = {"false", "false", "0", "No", "FALSE", "off"};
    return v ? t[rn(6)] : f[rn(6)];
}
static const char *cls_attr(int cls) { return cls == 1 ? " tag=\"a\"" : cls == 2 ? " tag=\"b\"" : ""; }
static int pick_cls(void) { return pct(88) ? 0 : pct(60) ? 1 : 2; }

static void host(buf *b)
{
    int h = ++g_host;
    char a[64];
    /* addresses, not names: the engine resolves every host, and a DNS lookup per name is slow */
    switch (rn(3)) {
    case 0: snprintf(a, sizeof a, "127.0.%d.%d", h / 200, 1 + h % 200); break;
    case 1: snprintf(a, sizeof a, "10.%d.0.%d", 1 + rn(250), h); break;
    default: snprintf(a, sizeof a, "192.168.%d.%d", h / 250, 1 + h % 250);
    }
    bprintf(b, "<host>");
    if (pct(8))
        val_ref(b, a);
    else if (g_in_main && g_entity && pct(10)) /* stays "&dom;" on the server: one name, rarely */
        bprintf(b, "%s&dom;", a);
    else
        bprintf(b, "%s", a);
    bprintf(b, "</host>");
}
static void port(buf *b)
{
    int p = 9000 + ++g_port;
    char v[16];
    snprintf(v, sizeof v, "%d", p);
    bprintf(b, "<port>");
    if (pct(8))
        val_ref(b, v);
    else if (pct(5)) /* a character reference: expanded by the parser */
        bprintf(b, "9&#%d;%s", '0' + (p / 100) % 10, v + 2);
    else
        bprintf(b, "%s", v);
    bprintf(b, "</port>");
}

/* a <weight> with value w: inline, or from_env with replace="1" (an inline decoy) or empty */
static int g_plain_env; /* writing a merge file: from_env only on an empty element, no weight 0 */
static int g_no_env; /* writing <include> content: the engine leaves from_env there unresolved */
static void weight_el(buf *b, int w)
{
    if (!g_no_env && pct(12)) {
        int v = ++g_env;
        bprintf(&g_envfile, "SCG_W%d=%d\n", v, w);
        /* an element pasted from a merge file loses replace="1" below its top, and from_env on an
         * element with a value and no replace stops the server; in included text the engine does
         * not drop the value first (Poco SyntaxException) */
        if (!g_plain_env && pct(50))
            bprintf(b, "<weight from_env=\"SCG_W%d\" replace=\"1\">%d</weight>", v, range(0, 5));
        else
            bprintf(b, "<weight from_env=\"SCG_W%d\"/>", v);
    } else if (pct(6)) {
        char v[16];
        snprintf(v, sizeof v, "%d", w);
        bprintf(b, "<weight>");
        val_ref(b, v);
        bprintf(b, "</weight>");
    } else if (g_in_main && pct(8)) { /* a merge's <weight> is appended to it: "1" and "2" are 12 */
        bprintf(b, "<weight><![CDATA[%d]]></weight>", w);
    } else {
        bprintf(b, pct(90) ? "<weight>%d</weight>" : pct(50) ? "<weight>+%d</weight>" : "<weight>0%d</weight>", w);
    }
}
/* -1: no <weight> (1); merge files never write 0, so they cannot zero a whole cluster */
static int draw_weight(void) { return !g_plain_env && pct(15) ? 0 : pct(25) ? -1 : range(1, 5); }

/* a whole replica: host, port (unless the server's tcp_port fills it), user/password */
static void full_replica(buf *b, int cls)
{
    bprintf(b, "<replica%s>", cls_attr(cls));
    host(b);
    int secure = pct(12);
    if (secure) /* its default port is tcp_port_secure; <secure/> is true */
        bprintf(b, "%s", pct(40) ? "<secure/>" : pct(50) ? "<secure>1</secure>" : "<secure>true</secure>");
    if (!(secure ? g_tcp_port_secure : g_tcp_port) || pct(85))
        port(b);
    if (pct(15))
        bprintf(b, "<user>u%d</user><password>p%d</password>", rn(9), rn(99));
    if (pct(8))
        bprintf(b, "<priority>%d</priority>", range(1, 3));
    bprintf(b, "</replica>");
}

/* a whole shard (or node) with weight w (-1: none) */
static void full_shard(buf *b, ent *e, int kind, int cls, int w, const char *extra_attr)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->cls = cls;
    if (kind == K_NODE) {
        bprintf(b, "<node%s%s>", cls_attr(cls), extra_attr);
        host(b);
        port(b);
        if (w >= 0)
            weight_el(b, w);
        if (pct(20)) /* not read in a legacy <node>: its shard is not internal_replication */
            bprintf(b, "<internal_replication>true</internal_replication>");
        bprintf(b, "</node>");
        return;
    }
    bprintf(b, "<shard%s%s>", cls_attr(cls), extra_attr);
    if (w >= 0)
        weight_el(b, w);
    if (pct(50)) {
        bprintf(b, "<internal_replication>");
        if (pct(8))
            val_ref(b, bool_text(pct(60)));
        else
            bprintf(b, "%s", bool_text(pct(60)));
        bprintf(b, "</internal_replication>");
    }
    int n = range(1, 3);
    for (int i = 0; i < n; i++) {
        int rc = pct(90) ? 0 : 1;
        full_replica(b, rc);
        e->rlb[rc]++;
    }
    bprintf(b, "</shard>");
}

/* weights for n shards, never all 0 */
static void draw_weights(int *w, int n)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        w[i] = draw_weight();
        if (w[i] != 0)
            any = 1;
    }
    if (!any)
        w[rn(n)] = range(1, 5);
}

/* the included shards (for <include> or a cluster's incl=): written to the include_from file;
 * returns whether any has a weight above 0 */
static int metrika_shards(const char *name, int allow_node)
{
    int n = range(1, 2), w[2], in_main = g_in_main;
    g_in_main = 0; /* another file: no entity of the main file's DOCTYPE, no CDATA to merge */
    g_no_env = allow_node; /* <include> content: the engine leaves its from_env unresolved */
    draw_weights(w, n);
    buf b = {0};
    for (int i = 0; i < n; i++) {
        ent e;
        full_shard(&b, &e, allow_node && pct(25) ? K_NODE : K_SHARD, 0, w[i], "");
    }
    g_no_env = 0;
    g_in_main = in_main;
    bprintf(&g_metrika, "  <%s>%s</%s>\n", name, b.s, name);
    bfree(&b);
    return 1;
}

/* the content of a new cluster (the main file's, or a merge file's replace/new one) */
static void cluster_content(buf *b, clu *c, int in_main)
{
    c->n = 0;
    c->incl = 0;
    c->pos_lb = 0;
    if (pct(20))
        bprintf(b, "<secret>s%d</secret>", rn(100));
    int n = range(1, 6), w[6];
    draw_weights(w, n);
    for (int i = 0; i < n; i++) {
        ent *e = &c->e[c->n++];
        bprintf(b, "\n      ");
        if (in_main && g_incl_from && pct(10)) { /* <shard incl="…"/>, resolved from include_from */
            char nm[32];
            snprintf(nm, sizeof nm, "sh_%d", ++g_incl_n);
            int iw = w[i] < 0 ? range(1, 5) : w[i];
            buf s = {0};
            int in_main = g_in_main;
            g_in_main = 0; /* written to the include_from file */
            full_shard(&s, e, K_SHARD, 0, iw, "");
            g_in_main = in_main;
            /* the content of the shard element, without its <shard> tags */
            s.s[s.len - strlen("</shard>")] = 0;
            bprintf(&g_metrika, "  <%s>%s</%s>\n", nm, s.s + strlen("<shard>"), nm);
            bfree(&s);
            memset(e, 0, sizeof *e);
            e->kind = K_SHARD;
            e->incl = 1;
            c->pos_lb += iw > 0;
            bprintf(b, "<shard incl=\"%s\"/>", nm);
            continue;
        }
        if (in_main && g_incl_from && pct(8)) { /* <include incl="…"/>: shards pasted in its place */
            char nm[32];
            snprintf(nm, sizeof nm, "inc_%d", ++g_incl_n);
            memset(e, 0, sizeof *e);
            e->kind = K_INCLUDE;
            c->pos_lb += metrika_shards(nm, 1);
            bprintf(b, "<include incl=\"%s\"/>", nm);
            continue;
        }
        full_shard(b, e, pct(20) ? K_NODE : K_SHARD, pick_cls(), w[i], "");
        c->pos_lb += w[i] != 0;
    }
}

/* ---- validity of the model: what the server would load ---- */
static int ent_ok(const ent *e)
{
    if (e->kind != K_SHARD || e->incl)
        return 1;
    int n = 0;
    for (int c = 0; c < NCLS; c++)
        n += e->rlb[c];
    return n > 0;
}
static int clu_ok(const clu *c)
{
    if (!c->exists)
        return 1;
    if (c->incl && c->incl_replace)
        return c->incl_pos > 0;
    for (int i = 0; i < c->n; i++)
        if (!ent_ok(&c->e[i]))
            return 0;
    return c->n + c->incl > 0 && c->pos_lb + (c->incl ? c->incl_pos : 0) > 0 && c->n < MAXE - 8;
}

/* how many of the first n0 elements are of this class; whether any of them is an incl= shard;
 * the least replica counts among them */
typedef struct {
    int count, incl, lb[NCLS];
} cls_info;
static cls_info info(const clu *c, int n0, int kind, int cls)
{
    cls_info r = {0, 0, {INT32_MAX, INT32_MAX, INT32_MAX}};
    for (int i = 0; i < n0; i++)
        if (c->e[i].kind == kind && c->e[i].cls == cls) {
            r.count++;
            r.incl |= c->e[i].incl;
            for (int k = 0; k < NCLS; k++)
                if (c->e[i].rlb[k] < r.lb[k])
                    r.lb[k] = c->e[i].rlb[k];
        }
    if (!r.count)
        memset(r.lb, 0, sizeof r.lb);
    return r;
}
/* after a merge into an unknown one of the class: every one of them gets the bounds lb */
static void lower_all(clu *c, int n0, int kind, int cls, const int *lb, int incl)
{
    for (int i = 0; i < n0; i++)
        if (c->e[i].kind == kind && c->e[i].cls == cls) {
            for (int k = 0; k < NCLS; k++)
                if (lb[k] < c->e[i].rlb[k])
                    c->e[i].rlb[k] = lb[k];
            c->e[i].incl |= incl;
        }
}
/* drops one of the class from the first *n0 (all alike by now: the last one) */
static void drop_one(clu *c, int *n0, int kind, int cls)
{
    for (int i = *n0 - 1; i >= 0; i--)
        if (c->e[i].kind == kind && c->e[i].cls == cls) {
            memmove(&c->e[i], &c->e[i + 1], (size_t)(c->n - i - 1) * sizeof c->e[0]);
            c->n--;
            (*n0)--;
            return;
        }
}

/* the replicas of a merged <shard> (no replace): whole ones, removals and, if `t` (the bounds
 * every possible target has) allows it, port- or host-only changes. Writes the bounds the target
 * has afterwards to out; returns -1 if that could leave it without a replica. */
static int replica_ops(buf *b, const int *t, int matched, int whole_only, int *out)
{
    int k[NCLS] = {0}, m[NCLS] = {0}, pos[NCLS] = {0}, tot = 0;
    int nops = range(1, 3);
    for (int i = 0; i < nops; i++) {
        int cls = pct(85) ? 0 : 1, op = whole_only ? 3 : rn(4);
        pos[cls]++;
        if (op == 2 && !(matched && pos[cls] <= t[cls]))
            op = 3; /* a partial replica must merge into one that is there */
        switch (op) {
        case 0:
            bprintf(b, "<replica%s remove=\"1\"/>", cls_attr(cls));
            k[cls]++;
            break;
        case 1:
            bprintf(b, "<replica%s replace=\"1\">", cls_attr(cls));
            host(b);
            port(b);
            bprintf(b, "</replica>");
            m[cls]++;
            break;
        case 2:
            bprintf(b, "<replica%s>", cls_attr(cls));
            if (pct(50))
                port(b);
            else
                host(b);
            bprintf(b, "</replica>");
            m[cls]++;
            break;
        default:
            full_replica(b, cls);
            m[cls]++;
        }
    }
    for (int c = 0; c < NCLS; c++) {
        int base = matched ? t[c] : 0, lb = base - k[c];
        out[c] = lb > m[c] ? lb : m[c];
        tot += out[c];
    }
    return tot > 0 ? 0 : -1;
}

/* a merge into cluster c without replace (if c does not exist, it is pasted) */
static int merge_ops(buf *b, clu *c)
{
    if (!c->exists) {
        c->exists = 1;
        c->n = 0;
        c->incl = 0;
        c->pos_lb = 0;
    }
    int n0 = c->n, has_nodes = 0;
    int used[3][NCLS] = {{0}};
    for (int i = 0; i < n0; i++)
        has_nodes |= c->e[i].kind == K_NODE;
    if (pct(10))
        bprintf(b, "<secret>m%d</secret>", rn(100));
    int nops = range(1, 6);
    for (int op_i = 0; op_i < nops && c->n < MAXE - 4; op_i++) {
        int kind = has_nodes && pct(25) ? K_NODE : K_SHARD;
        int cls = pct(80) ? 0 : pct(70) ? 1 : 2;
        cls_info in = info(c, n0, kind, cls);
        int matched = used[kind][cls] < in.count; /* certain: one of them is hit, which is not */
        used[kind][cls]++;
        const char *el = kind == K_NODE ? "node" : "shard";
        int op = rn(100), lb[NCLS];
        bprintf(b, "\n      ");
        if (g_incl_from && kind == K_SHARD && cls == 0 && pct(10)) {
            /* <include incl=…/>: merges into an <include> there (its incl= replaced), or is
             * appended; <shard incl=…/>: no value, so it merges into a shard, which keeps its
             * content and gets the included text appended (a second <weight>: the first counts) */
            char nm[32];
            if (pct(50)) {
                cls_info ii = info(c, n0, K_INCLUDE, 0);
                snprintf(nm, sizeof nm, "inc_%d", ++g_incl_n);
                metrika_shards(nm, 1);
                bprintf(b, "<include incl=\"%s\"/>", nm);
                used[kind][cls]--; /* not a shard */
                if (used[K_INCLUDE][0]++ >= ii.count) {
                    memset(&c->e[c->n], 0, sizeof c->e[0]);
                    c->e[c->n++].kind = K_INCLUDE;
                    c->pos_lb++;
                }
                continue;
            }
            snprintf(nm, sizeof nm, "sh_%d", ++g_incl_n);
            buf sh = {0};
            ent e;
            full_shard(&sh, &e, K_SHARD, 0, range(1, 5), "");
            sh.s[sh.len - strlen("</shard>")] = 0;
            bprintf(&g_metrika, "  <%s>%s</%s>\n", nm, sh.s + strlen("<shard>"), nm);
            bfree(&sh);
            bprintf(b, "<shard incl=\"%s\"/>", nm);
            if (matched) {
                lower_all(c, n0, kind, cls, in.lb, 1);
            } else {
                memset(&e, 0, sizeof e);
                e.kind = K_SHARD;
                e.incl = 1;
                c->e[c->n++] = e;
                c->pos_lb++;
            }
            continue;
        }
        /* an incl= shard of the class could be hit: only whole shards, removals, replacements */
        if (in.incl && op < 8)
            op = 40;
        if (in.incl && op >= 60)
            op = 40;
        if (op < 8) { /* placeholder: merges into one, changes nothing */
            if (!matched)
                return -1;
            bprintf(b, "<%s%s/>", el, cls_attr(cls));
        } else if (op < 18) { /* remove */
            bprintf(b, "<%s%s remove=\"1\"/>", el, cls_attr(cls));
            if (matched) {
                lower_all(c, n0, kind, cls, in.lb, 0);
                drop_one(c, &n0, kind, cls);
                used[kind][cls]--;
                c->pos_lb--;
            }
        } else if (op < 30) { /* replace */
            ent e;
            int w = draw_weight();
            full_shard(b, &e, kind, cls, w, " replace=\"1\"");
            if (matched) {
                /* one of them is now e: all of them keep the least of both */
                for (int k = 0; k < NCLS; k++)
                    lb[k] = in.lb[k] < e.rlb[k] ? in.lb[k] : e.rlb[k];
                lower_all(c, n0, kind, cls, lb, 0);
            } else {
                c->e[c->n++] = e;
                c->pos_lb++;
            }
        } else if (op < 60) { /* a whole shard without replace: merges into one, or is appended */
            ent e;
            int w = draw_weight();
            full_shard(b, &e, kind, cls, w, "");
            if (matched) {
                for (int k = 0; k < NCLS; k++)
                    lb[k] = in.lb[k] < e.rlb[k] ? in.lb[k] : e.rlb[k];
                lower_all(c, n0, kind, cls, lb, 0);
            } else {
                c->e[c->n++] = e;
                c->pos_lb++;
            }
        } else { /* change the weight, internal_replication, replicas of one */
            if (!matched)
                return -1;
            bprintf(b, "<%s%s>", el, cls_attr(cls));
            int any = 0;
            if (pct(70)) {
                weight_el(b, range(1, 5));
                any = 1;
            }
            if (kind == K_SHARD && pct(30)) {
                bprintf(b, "<internal_replication>%s</internal_replication>", bool_text(pct(50)));
                any = 1;
            }
            if (kind == K_SHARD && (pct(40) || !any)) {
                if (replica_ops(b, in.lb, 1, 0, lb) != 0)
                    return -1;
                lower_all(c, n0, kind, cls, lb, 0);
            } else if (kind == K_NODE && (pct(30) || !any)) {
                port(b);
            }
            bprintf(b, "</%s>", el);
        }
    }
    /* the cluster had a value: its own incl= is dropped */
    c->incl = 0;
    return 0;
}

/* one merge file: edits to 1-2 clusters; each edit is kept only if the model stays loadable.
 * g_c is in document order: a cluster pasted again after a removal moves to the end. */
static const char *tag_attr(const clu *c) { return c->tag ? " tag=\"x\"" : ""; }
static void merge_file(buf *out)
{
    int y = pct(25);
    bprintf(out, "<%s>\n  <remote_servers>", y ? "yandex" : "clickhouse");
    int nedits = range(1, 2), edited = -1;
    for (int k = 0; k < nedits; k++) {
        for (int attempt = 0; attempt < 20; attempt++) {
            buf b = {0};
            int ci = rn(g_nc + 1), isnew = ci == g_nc;
            /* a second same-named element in one file matches nothing: it would be another cluster */
            if (ci == edited || g_nc >= MAXC - 1)
                continue;
            clu tmp;
            if (isnew) {
                memset(&tmp, 0, sizeof tmp);
                int twin = -1;
                if (pct(12)) /* the same name as a cluster there, but tag="x": a second cluster */
                    for (int i = 0; i < g_nc; i++)
                        if (!g_c[i].tag && g_c[i].exists) {
                            int dup = 0;
                            for (int j = 0; j < g_nc; j++)
                                dup |= g_c[j].tag && !strcmp(g_c[j].name, g_c[i].name);
                            if (!dup && (twin < 0 || pct(50)))
                                twin = i;
                        }
                if (twin >= 0) {
                    memcpy(tmp.name, g_c[twin].name, sizeof tmp.name);
                    tmp.tag = 1;
                } else {
                    snprintf(tmp.name, sizeof tmp.name, "added_%d", g_nc + 1);
                }
            } else {
                tmp = g_c[ci];
            }
            int was = tmp.exists, op = isnew ? 100 : rn(100);
            if (op < 10) {
                bprintf(&b, "\n    <%s%s remove=\"1\"/>", tmp.name, tag_attr(&tmp));
                tmp.exists = 0;
                tmp.n = 0;
            } else if (op < 25) {
                bprintf(&b, "\n    <%s%s replace=\"1\">", tmp.name, tag_attr(&tmp));
                tmp.exists = 1;
                cluster_content(&b, &tmp, 0);
                bprintf(&b, "\n    </%s>", tmp.name);
            } else if (op < 100) {
                bprintf(&b, "\n    <%s%s>", tmp.name, tag_attr(&tmp));
                if (merge_ops(&b, &tmp) != 0) {
                    bfree(&b);
                    continue;
                }
                bprintf(&b, "\n    </%s>", tmp.name);
            } else {
                bprintf(&b, "\n    <%s%s>", tmp.name, tag_attr(&tmp));
                tmp.exists = 1;
                cluster_content(&b, &tmp, 0);
                bprintf(&b, "\n    </%s>", tmp.name);
            }
            if (!clu_ok(&tmp)) {
                bfree(&b);
                continue;
            }
            if (!isnew && !was && tmp.exists) { /* pasted again: now the last one */
                g_c[ci].exists = 0;
                ci = g_nc;
                isnew = 1;
            }
            if (isnew)
                g_nc++;
            edited = ci;
            g_c[ci] = tmp;
            bcat(out, &b);
            bfree(&b);
            break;
        }
    }
    bprintf(out, "\n  </remote_servers>\n</%s>\n", y ? "yandex" : "clickhouse");
}

/* snprintf into a path buffer; a path too long for it is an error, never a truncated name */
static void pathf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap) {
        errno = ENAMETOOLONG;
        die(dst);
    }
}
static void mkdirs(const char *p)
{
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        die(p);
}
static void write_file(const char *path, const buf *b)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die(path);
    if (b->len && fwrite(b->s, 1, b->len, f) != b->len)
        die(path);
    if (fclose(f) != 0)
        die(path);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A cluster the server cannot build: it then refuses the whole config, every cluster in it. One
 * of the defects measured on the engine (tests/fixtures/shard/diff/ holds one of each). name gets
 * the cluster's name. */
static void defect_cluster(buf *b, char *name, size_t cap, int n)
{
    int kind = rn(17);
    pathf(name, cap, kind == 0 ? "bad.d_%d" : "bad_%d", n);
    const char *r = "<replica><host>10.9.9.9</host><port>9999</port></replica>";
    bprintf(b, "\n    <%s>", name);
    switch (kind) {
    case 0: bprintf(b, "<shard>%s</shard>", r); break; /* a dot in the name */
    case 1: break;                                   /* no shard at all */
    case 2: bprintf(b, "<secret>s</secret>"); break;
    case 3: bprintf(b, "<shard><weight>0</weight>%s</shard><node><host>10.9.9.8</host><port>1</port><weight>0</weight></node>", r); break;
    case 4: bprintf(b, "<%s/><shard>%s</shard>", pct(50) ? "foo" : "host", r); break;
    case 5: {
        const char *e = pct(50) ? "priority" : "secret";
        bprintf(b, "<shard><%s>1</%s>%s</shard>", e, e, r);
        break;
    }
    case 6: bprintf(b, "<shard><weight>1</weight></shard>"); break;
    case 7: bprintf(b, "<shard><replica><host>10.9.9.9</host><port>%s</port></replica></shard>", pct(50) ? "9x" : pct(50) ? "" : "${vals.nokey}"); break;
    case 8: bprintf(b, "<shard><replica><host>10.9.9.9</host><port>65536</port></replica></shard>"); break;
    case 9:
        bprintf(b, "<shard><replica><host>10.9.9.9</host>%s</replica></shard>", g_tcp_port ? "<secure/>" : "");
        if (g_tcp_port && g_tcp_port_secure) /* then it would load: take the secure default away */
            bprintf(b, "<shard><replica><host>10.9.9.9</host><port>0</port></replica></shard>");
        break;
    case 10: bprintf(b, "<shard><replica><port>1</port></replica></shard>"); break;
    case 11: {
        const char *e = pct(50) ? "priority" : pct(50) ? "compression" : "secure";
        bprintf(b, "<shard><replica><host>10.9.9.9</host><port>1</port><%s>maybe</%s></replica></shard>", e, e);
        break;
    }
    case 12: bprintf(b, "<shard><internal_replication>nope</internal_replication>%s</shard>", r); break;
    case 13: bprintf(b, "<shard><name>a</name>%s</shard><shard>%s</shard>", r, r); break;
    case 14: bprintf(b, "<shard><replica><host>${vals.loop}</host><port>1</port></replica></shard>");
             bprintf(&g_vals, "<loop>${vals.loop}</loop>"); break;
    case 15: bprintf(b, "<allow_distributed_ddl_queries>sometimes</allow_distributed_ddl_queries><shard>%s</shard>", r); break;
    default: bprintf(b, "<shard><weight>x1</weight>%s</shard>", r);
    }
    bprintf(b, "</%s>", name);
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    unsigned long long seed = 0;
    int have_seed = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
            have_seed = 1;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else {
            fprintf(stderr, "usage: config_gen --seed N --out DIR\n");
            return 2;
        }
    }
    if (!have_seed || !out) {
        fprintf(stderr, "usage: config_gen --seed N --out DIR\n");
        return 2;
    }
    mkdirs(out);
    if (!realpath(out, g_dir))
        die(out);
    g_rng = seed * 0x2545f4914f6cdd1du + 12345;

    const char *stem = pct(70) ? "config" : pct(50) ? "prod" : "server";
    int yandex = pct(20);
    g_incl_from = pct(35);
    g_tcp_port = pct(25);
    g_tcp_port_secure = pct(25);
    g_entity = pct(12);
    int defect = pct(20);
    char defect_name[64] = "";

    /* the main file */
    buf mainf = {0};
    if (g_entity)
        bprintf(&mainf, "<!DOCTYPE %s [<!ENTITY dom \".ods.example\">]>\n", yandex ? "yandex" : "clickhouse");
    bprintf(&mainf, "<%s>\n", yandex ? "yandex" : "clickhouse");
    if (g_tcp_port)
        bprintf(&mainf, "  <tcp_port>9000</tcp_port>\n");
    if (g_tcp_port_secure)
        bprintf(&mainf, "  <tcp_port_secure>9440</tcp_port_secure>\n");
    if (g_incl_from)
        bprintf(&mainf, "  <include_from>%s/metrika.xml</include_from>\n", g_dir);
    bprintf(&mainf, "  <remote_servers>");
    g_nc = range(1, 4);
    int defect_at = defect ? rn(g_nc + 1) : -1;
    g_in_main = 1;
    for (int i = 0; i <= g_nc; i++) {
        if (i == defect_at)
            defect_cluster(&mainf, defect_name, sizeof defect_name, i + 1);
        if (i == g_nc)
            break;
        clu *c = &g_c[i];
        static const char *names[] = {"ods", "cl", "prod_ods", "c"};
        pathf(c->name, sizeof c->name, "%s_%d", names[rn(4)], i + 1);
        c->exists = 1;
        if (g_incl_from && pct(15)) { /* <cluster incl="…">, with or without inline shards */
            char nm[32];
            pathf(nm, sizeof nm, "cl_%d", ++g_incl_n);
            c->incl = 1;
            c->incl_pos = metrika_shards(nm, 0);
            if (pct(40)) {
                c->incl_replace = pct(50);
                bprintf(&mainf, "\n    <%s incl=\"%s\"%s>", c->name, nm, c->incl_replace ? " replace=\"1\"" : "");
                buf b = {0};
                clu t = *c;
                cluster_content(&b, &t, 0);
                c->n = t.n;
                c->pos_lb = t.pos_lb;
                memcpy(c->e, t.e, sizeof t.e);
                bcat(&mainf, &b);
                bfree(&b);
                bprintf(&mainf, "\n    </%s>", c->name);
            } else {
                bprintf(&mainf, "\n    <%s incl=\"%s\"/>", c->name, nm);
            }
            continue;
        }
        bprintf(&mainf, "\n    <%s>", c->name);
        cluster_content(&mainf, c, 1);
        bprintf(&mainf, "\n    </%s>", c->name);
    }
    g_in_main = 0;
    bprintf(&mainf, "\n  </remote_servers>\n");
    /* {cluster} from <macros>: plain, through ${…}, or from_env: set, or unset with the element's
     * own text as the fallback (replace="1") */
    int macro = pct(30);
    if (macro) {
        const char *nm = g_c[rn(g_nc)].name;
        bprintf(&mainf, "  <macros>");
        switch (rn(4)) {
        case 0: bprintf(&mainf, "<cluster>%s</cluster>", nm); break;
        case 1: bprintf(&mainf, "<cluster>"); val_ref(&mainf, nm); bprintf(&mainf, "</cluster>"); break;
        case 2:
            bprintf(&mainf, "<cluster from_env=\"SCG_MACRO\"/>");
            bprintf(&g_envfile, "SCG_MACRO=%s\n", nm);
            break;
        default: bprintf(&mainf, "<cluster from_env=\"SCG_UNSET_MACRO\" replace=\"1\">%s</cluster>", nm);
        }
        bprintf(&mainf, "</macros>\n");
    }

    /* merge files: their paths first, then their content in the server's merge order */
    char *paths[8];
    int np = range(0, 4);
    static const char *exts[] = {".xml", ".xml", ".xml", ".conf", ".XML", ".Conf", ".xMl"};
    for (int i = 0; i < np; i++) {
        char p[PATH_MAX + 64];
        const char *d = pct(35) ? "conf.d" : NULL;
        char sd[64];
        if (!d) {
            pathf(sd, sizeof sd, "%s.d", stem);
            d = sd;
        }
        pathf(p, sizeof p, "%s/%s/%02d-m%d%s", g_dir, d, rn(40), i, exts[rn(7)]);
        paths[i] = strdup(p);
        if (!paths[i])
            die("strdup");
    }
    qsort(paths, (size_t)np, sizeof paths[0], cmp_str);
    g_plain_env = 1;
    for (int i = 0; i < np; i++) {
        buf b = {0};
        size_t pl = strlen(paths[i]);
        if (pl > 5 && !strcasecmp(paths[i] + pl - 5, ".conf") && pct(10))
            bprintf(&b, "\xEF\xBB\xBF"); /* the server reads such a .conf as YAML, not XML */
        merge_file(&b);
        char d[PATH_MAX + 64];
        pathf(d, sizeof d, "%s", paths[i]);
        *strrchr(d, '/') = 0;
        mkdirs(d);
        write_file(paths[i], &b);
        bfree(&b);
    }
    /* files the server does not merge: a dot file, a .txt, config.d/ next to another stem */
    if (pct(15)) {
        char d[PATH_MAX + 64], p[PATH_MAX + 80];
        int which = rn(strcmp(stem, "config") ? 3 : 2);
        pathf(d, sizeof d, "%s/%s", g_dir, which == 2 ? "config.d" : "conf.d");
        mkdirs(d);
        pathf(p, sizeof p, "%s/%s", d, which == 0 ? ".hidden.xml" : which == 1 ? "notes.txt" : "zz.xml");
        buf b = {0};
        bprintf(&b, "<clickhouse><remote_servers><%s remove=\"1\"/></remote_servers></clickhouse>\n", g_c[0].name);
        write_file(p, &b);
        bfree(&b);
    }

    char p[PATH_MAX + 64];
    if (g_incl_from) {
        buf b = {0};
        int y = pct(30);
        bprintf(&b, "<%s>\n%s</%s>\n", y ? "yandex" : "clickhouse", g_metrika.s ? g_metrika.s : "", y ? "yandex" : "clickhouse");
        pathf(p, sizeof p, "%s/metrika.xml", g_dir);
        write_file(p, &b);
        bfree(&b);
    }
    /* the targets of every ${vals.kN}, the merge files' too: all written by now */
    bprintf(&mainf, "  <vals>%s</vals>\n</%s>\n", g_vals.s ? g_vals.s : "", yandex ? "yandex" : "clickhouse");
    pathf(p, sizeof p, "%s/%s.xml", g_dir, stem);
    write_file(p, &mainf);
    buf l = {0};
    bprintf(&l, "%s\n", p);
    pathf(p, sizeof p, "%s/main", g_dir);
    write_file(p, &l);
    bfree(&l);
    /* the names the engine gives: a second element of the same name is NAME[1] (Poco's key);
     * then every name written, for a cluster that is gone must be "not found" */
    for (int i = 0; i < g_nc; i++) {
        int k = 0;
        for (int j = 0; j < i; j++)
            k += g_c[j].exists && !strcmp(g_c[j].name, g_c[i].name);
        if (g_c[i].exists && k)
            bprintf(&l, "%s[%d]\n", g_c[i].name, k);
    }
    for (int i = 0; i < g_nc; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(g_c[j].name, g_c[i].name);
        if (!seen)
            bprintf(&l, "%s\n", g_c[i].name);
    }
    if (defect_name[0])
        bprintf(&l, "%s\n", defect_name);
    if (macro)
        bprintf(&l, "{cluster}\n");
    pathf(p, sizeof p, "%s/clusters", g_dir);
    write_file(p, &l);
    pathf(p, sizeof p, "%s/env", g_dir);
    write_file(p, &g_envfile);
    bfree(&l);
    bfree(&mainf);
    for (int i = 0; i < np; i++)
        free(paths[i]);
    return 0;
}
