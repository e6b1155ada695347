/* lock.c: writes and reads the slot-table lock, and tells which residues of cityHash64 change
 * shard between the lock and a config, by merging the two slot tables' run boundaries. */
#include "lock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io.h"

/* A lock is a few lines per shard; anything near this is not one, and reading stops there. */
#define SC_LOCK_MAX_BYTES ((size_t)1 << 20)

/* ---- writing ---- */

int sc_lock_write(const sc_cluster *c, FILE *out, sc_err *err)
{
    uint64_t total = 0;
    for (size_t i = 0; i < c->n_shards; i++)
        total += c->shards[i].weight;
    if (total == 0) {
        sc_err_set(err, "every shard has weight 0: there is no slot table to lock (ClickHouse refuses such a "
                        "cluster)", NULL, 0, 0);
        return SC_E_CHECK;
    }
    /* the comments never hold a name from the config: only escaped fields may carry those */
    fputs(SC_LOCK_HEADER "\n"
          "# The slot table of a Distributed table sharded by cityHash64(order_id): a row goes to the shard\n"
          "# that owns slot cityHash64(order_id) % total_weight. A shard line holds its number, weight,\n"
          "# slots (first-last, or - for none) and each replica's host:port; fields are tab-separated\n"
          "# and names TSV-escaped. Check: shard-check layout --config PATH --cluster NAME --lock FILE.\n"
          "# Never re-lock a cluster that holds data: reshard it (see docs/shard-check.md).\n",
          out);
    fputs("cluster\t", out);
    sc_fput_escaped(c->name, out);
    fprintf(out, "\ntotal_weight\t%llu\n", (unsigned long long)total);
    uint64_t at = 0;
    for (size_t i = 0; i < c->n_shards; i++) {
        const sc_shard *s = &c->shards[i];
        fprintf(out, "shard\t%zu\t%u\t", i + 1, s->weight);
        if (s->weight)
            fprintf(out, "%llu-%llu", (unsigned long long)at, (unsigned long long)(at + s->weight - 1));
        else
            fputc('-', out);
        at += s->weight;
        for (size_t j = 0; j < s->n_replicas; j++) {
            fputc('\t', out);
            sc_fput_escaped(s->replicas[j].host, out);
            fprintf(out, ":%u", s->replicas[j].port);
        }
        fputc('\n', out);
    }
    if (fflush(out) != 0 || ferror(out)) {
        sc_err_set(err, "cannot write the lock", NULL, 0, 0);
        return SC_E_INPUT;
    }
    return SC_OK;
}

/* ---- reading ---- */

void sc_lock_free(sc_lock *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->c.n_shards; i++) {
        for (size_t j = 0; j < l->c.shards[i].n_replicas; j++)
            free(l->c.shards[i].replicas[j].host);
        free(l->c.shards[i].replicas);
    }
    free(l->c.shards);
    free(l->c.name);
    memset(l, 0, sizeof *l);
}

/* Undoes exactly the escapes sc_fput_escaped writes, nothing else, so that one lock has one
 * reading. The result is a C string: \0 never comes out, since sc_fput_escaped never writes it. */
static char *unescape(const char *p, size_t n, const char **why)
{
    char *s = malloc(n + 1), *w = s;
    if (!s) {
        *why = NULL;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch < 0x20 || ch == 0x7f) {
            *why = "a raw control byte in a name: the lock writes them escaped (\\t \\n \\r \\b \\f)";
            free(s);
            return NULL;
        }
        if (ch != '\\') {
            *w++ = (char)ch;
            continue;
        }
        char e = ++i < n ? p[i] : 0;
        switch (e) {
        case '\\': *w++ = '\\'; break;
        case 't': *w++ = '\t'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        default:
            *why = "a backslash in a name that is not one of the lock's escapes \\\\ \\t \\n \\r \\b \\f";
            free(s);
            return NULL;
        }
    }
    *w = 0;
    return s;
}

/* A decimal number as the lock writes it: digits only, no sign, no leading zero, at most max. */
static int parse_u64(const char *p, size_t n, uint64_t max, uint64_t *v)
{
    if (n == 0 || n > 20 || (n > 1 && p[0] == '0'))
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        unsigned d = (unsigned)(p[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    if (x > max)
        return -1;
    *v = x;
    return 0;
}

/* The fields of one line, split at tabs; points into the text. */
typedef struct {
    const char *p[64];
    size_t n[64];
    size_t count; /* fields found; more than 64 is reported as too many */
} fields;

static int split(const char *line, size_t len, fields *f)
{
    f->count = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == len || line[i] == '\t') {
            if (f->count == 64)
                return -1;
            f->p[f->count] = line + start;
            f->n[f->count++] = i - start;
            start = i + 1;
        }
    return 0;
}

static int field_is(const fields *f, size_t k, const char *s)
{
    return f->n[k] == strlen(s) && !memcmp(f->p[k], s, f->n[k]);
}

/* One replica field, host:port with the host escaped; the port follows the last colon, so an
 * IPv6 host (::1:9000) reads right. */
static int parse_replica(const char *p, size_t n, sc_replica *r, const char **why)
{
    const char *colon = NULL;
    for (size_t i = 0; i < n; i++)
        if (p[i] == ':')
            colon = p + i;
    uint64_t port;
    if (!colon || colon == p) {
        *why = "a replica is not host:port";
        return SC_E_INPUT;
    }
    if (parse_u64(colon + 1, (size_t)(p + n - colon - 1), 65535, &port) != 0 || port == 0) {
        *why = "a replica's port is not a number from 1 to 65535";
        return SC_E_INPUT;
    }
    if (!(r->host = unescape(p, (size_t)(colon - p), why)))
        return *why ? SC_E_INPUT : SC_E_NOMEM;
    r->port = (unsigned)port;
    return SC_OK;
}

/* Parses one shard line's fields (after "shard") into s; at is the first slot it must own. */
static int parse_shard(const fields *f, size_t number, uint64_t at, sc_shard *s, const char **why)
{
    uint64_t v, first, last;
    if (f->count < 5) {
        *why = "a shard line needs: shard, number, weight, slots, and at least one host:port";
        return SC_E_INPUT;
    }
    if (parse_u64(f->p[1], f->n[1], UINT64_MAX, &v) != 0 || v != number) {
        *why = "shard numbers must run 1, 2, 3, … in order, one line each";
        return SC_E_INPUT;
    }
    if (parse_u64(f->p[2], f->n[2], UINT32_MAX, &v) != 0) {
        *why = "a shard's weight is not a decimal number from 0 to 4294967295";
        return SC_E_INPUT;
    }
    s->weight = (unsigned)v;
    s->internal_replication = -1;
    /* the slots are redundant with the weights: checking them catches a hand edit of one only */
    if (v == 0) {
        if (!field_is(f, 3, "-")) {
            *why = "a weight-0 shard owns no slots: its slots field must be -";
            return SC_E_INPUT;
        }
    } else {
        const char *dash = memchr(f->p[3], '-', f->n[3]);
        if (!dash || parse_u64(f->p[3], (size_t)(dash - f->p[3]), UINT64_MAX, &first) != 0 ||
            parse_u64(dash + 1, (size_t)(f->p[3] + f->n[3] - dash - 1), UINT64_MAX, &last) != 0) {
            *why = "a shard's slots are not first-last";
            return SC_E_INPUT;
        }
        if (first != at || last != at + v - 1) {
            *why = "a shard's slots disagree with the weights before it and its own (first = sum of the "
                   "weights before, last = first + weight - 1)";
            return SC_E_INPUT;
        }
    }
    s->n_replicas = f->count - 4;
    if (!(s->replicas = calloc(s->n_replicas, sizeof *s->replicas))) {
        s->n_replicas = 0;
        *why = NULL;
        return SC_E_NOMEM;
    }
    for (size_t k = 0; k < s->n_replicas; k++) {
        int rc = parse_replica(f->p[4 + k], f->n[4 + k], &s->replicas[k], why);
        if (rc != SC_OK)
            return rc;
    }
    return SC_OK;
}

int sc_lock_parse(const char *text, size_t len, const char *where, sc_lock *out, sc_err *err)
{
    memset(out, 0, sizeof *out);
    const char *why = NULL;
    int rc = SC_OK, have_total = 0;
    long line = 0, total_line = 0; /* the sum is checked at the end, reported at its line */
    uint64_t at = 0; /* slots handed out so far: the next shard's first slot */
    size_t cap = 0;
    const char *p = text, *end = text + len;
    fields f;
    while (rc == SC_OK && p < end) {
        line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        if (!nl) {
            why = "the last line has no line break: a truncated lock?";
        } else if (memchr(p, '\r', n)) {
            why = "a carriage return (CRLF line ends?): the lock's lines end in a line feed alone";
        } else if (memchr(p, 0, n)) {
            why = "a NUL byte: not a lock";
        } else if (line == 1) {
            if (n != strlen(SC_LOCK_HEADER) || memcmp(p, SC_LOCK_HEADER, n) != 0)
                why = n > 20 && !memcmp(p, "# shard-check lock v", 20)
                          ? "a lock format version this tool does not read (it reads " SC_LOCK_HEADER ")"
                          : "not a lock: the first line must be \"" SC_LOCK_HEADER "\"";
        } else if (n > 0 && p[0] == '#') {
            /* a comment */
        } else if (n == 0) {
            why = "an empty line: a lock has none (comments start with #)";
        } else if (split(p, n, &f) != 0) {
            why = "a line with more than 64 fields";
        } else if (field_is(&f, 0, "cluster")) {
            if (out->c.name)
                why = "a second cluster line: a lock holds one cluster";
            else if (f.count != 2 || f.n[1] == 0)
                why = "the cluster line is: cluster<TAB>NAME";
            else if (!(out->c.name = unescape(f.p[1], f.n[1], &why)))
                rc = why ? SC_E_INPUT : SC_E_NOMEM;
        } else if (field_is(&f, 0, "total_weight")) {
            if (!out->c.name || have_total)
                why = "total_weight must come once, right after the cluster line";
            else if (f.count != 2 || parse_u64(f.p[1], f.n[1], UINT64_MAX, &out->total) != 0 || !out->total)
                why = "the total_weight line is: total_weight<TAB>a number above 0";
            have_total = 1;
            total_line = line;
        } else if (field_is(&f, 0, "shard")) {
            if (!have_total) {
                why = "shard lines come after the cluster and total_weight lines";
            } else {
                if (out->c.n_shards == cap) {
                    size_t nc = cap ? cap * 2 : 8;
                    sc_shard *ns = realloc(out->c.shards, nc * sizeof *ns);
                    if (!ns) {
                        rc = SC_E_NOMEM;
                        break;
                    }
                    out->c.shards = ns;
                    cap = nc;
                }
                sc_shard *s = &out->c.shards[out->c.n_shards++];
                memset(s, 0, sizeof *s);
                rc = parse_shard(&f, out->c.n_shards, at, s, &why);
                if (rc == SC_OK && why == NULL)
                    at += s->weight;
                else if (rc == SC_OK)
                    rc = SC_E_INPUT;
                if (rc == SC_E_NOMEM)
                    why = NULL;
            }
        } else {
            why = "unknown line: a lock has comments (#), then cluster, total_weight and shard lines";
        }
        if (why && rc == SC_OK)
            rc = SC_E_INPUT;
        p = nl ? nl + 1 : end;
    }
    if (rc == SC_OK && line == 0)
        why = "an empty file: not a lock", rc = SC_E_INPUT;
    else if (rc == SC_OK && !out->c.n_shards)
        why = "no shard lines: a lock has a cluster, total_weight and one line per shard", rc = SC_E_INPUT;
    else if (rc == SC_OK && at != out->total)
        why = "total_weight is not the sum of the shards' weights", rc = SC_E_INPUT, line = total_line;
    if (rc != SC_OK) {
        sc_err_set(err, rc == SC_E_NOMEM ? "out of memory reading the lock" : why, where, line, 0);
        sc_lock_free(out);
    }
    return rc;
}

int sc_lock_read(const char *path, sc_lock *out, sc_err *err)
{
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    int r = io_read_path_max(path, SC_LOCK_MAX_BYTES, &text, &len);
    if (r == -EFBIG) {
        sc_err_set(err, "the lock is larger than 1 MiB: not a lock this tool wrote", path, 0, 0);
        return SC_E_INPUT;
    }
    if (r == -ENOMEM)
        return SC_E_NOMEM;
    if (r < 0) {
        sc_err_set(err, strerror(-r), path, 0, 0);
        return SC_E_INPUT;
    }
    int rc = sc_lock_parse(text, len, path, out, err);
    free(text);
    return rc;
}

/* ---- the moved residues ---- */

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* One slot table's position in the walk: the piece [.., base + cum[i]) belongs to shard i. */
typedef struct {
    const sc_slots *s;
    uint64_t base; /* the start of the current period, a multiple of the total weight */
    size_t i;
} side;

static uint64_t side_end(const side *d)
{
    return d->base + d->s->cum[d->i];
}

/* Zero-weight shards own no residue: the walk never stands on one. Stops at a shard of
 * positive weight, which exists after any point below cum's end (the total is above 0). */
static void side_settle(side *d)
{
    while (d->s->cum[d->i] == (d->i ? d->s->cum[d->i - 1] : 0))
        d->i++;
}

static void side_next(side *d)
{
    if (d->s->cum[d->i] == d->s->n) { /* the last shard with slots: trailing weight-0 ones too */
        d->base += d->s->n;
        d->i = 0;
    } else {
        d->i++;
    }
    side_settle(d);
}

/* Reports a finished run; nonzero to stop. */
static int emit(const sc_lock_run *run, sc_lock_run_fn fn, void *arg, sc_lock_moves *m)
{
    m->runs++;
    m->moved += run->last - run->first + 1;
    return fn ? fn(run, arg) : 0;
}

int sc_lock_walk(const sc_slots *old, const sc_slots *now, uint64_t max_pieces, sc_lock_run_fn fn, void *arg,
                 sc_lock_moves *m)
{
    memset(m, 0, sizeof *m);
    uint64_t L;
    if (__builtin_mul_overflow(old->n / gcd_u64(old->n, now->n), now->n, &L))
        return SC_OK;
    m->modulus = L;
    side a = {old, 0, 0}, b = {now, 0, 0};
    side_settle(&a);
    side_settle(&b);
    sc_lock_run run = {0, 0, 0, 0};
    int have = 0;
    uint64_t p = 0, pieces = 0;
    while (p < L) {
        if (pieces++ == max_pieces)
            return SC_OK; /* the pending run may go on: it is not reported */
        uint64_t ea = side_end(&a), eb = side_end(&b), e = ea < eb ? ea : eb;
        unsigned from = (unsigned)a.i + 1, to = (unsigned)b.i + 1;
        if (from != to) {
            if (have && run.from == from && run.to == to && run.last + 1 == p) {
                run.last = e - 1;
            } else {
                if (have && emit(&run, fn, arg, m))
                    return SC_OK;
                run = (sc_lock_run){p, e - 1, from, to};
                have = 1;
            }
        }
        p = e;
        if (p < L) {
            if (ea == e)
                side_next(&a);
            if (eb == e)
                side_next(&b);
        }
    }
    if (have && emit(&run, fn, arg, m))
        return SC_OK;
    m->complete = 1;
    return SC_OK;
}

/* ---- the check ---- */

static void prefix(FILE *out, const char *lock_path)
{
    fprintf(out, "shard-check: %s: ", lock_path);
}

static void put_weight_changes(const sc_lock *l, const sc_cluster *c, uint64_t total, FILE *out);

/* The walk's listener: the first run found prints the verdict's heading, so one walk both
 * decides and lists. */
typedef struct {
    FILE *out;
    const char *lock_path;
    const sc_lock *l;
    const sc_cluster *c;
    uint64_t t_old, t_now, modulus;
    size_t listed, max_runs;
    int headed;
} lister;

static void put_heading(lister *li)
{
    if (li->headed)
        return;
    li->headed = 1;
    prefix(li->out, li->lock_path);
    fputs("the routing differs from the lock: ", li->out);
    put_weight_changes(li->l, li->c, li->t_now, li->out);
    fputc('\n', li->out);
    prefix(li->out, li->lock_path);
    if (li->modulus)
        fprintf(li->out, "keys that change shard, as runs of cityHash64(order_id) %% %llu (lcm(%llu, %llu), one "
                         "period of both slot tables):\n",
                (unsigned long long)li->modulus, (unsigned long long)li->t_old, (unsigned long long)li->t_now);
    else
        fprintf(li->out, "lcm(%llu, %llu), the period of both slot tables, exceeds 2^64 - 1: the keys that move are "
                         "not listed; with totals this different nearly every key changes shard\n",
                (unsigned long long)li->t_old, (unsigned long long)li->t_now);
}

static int list_run(const sc_lock_run *r, void *arg)
{
    lister *li = arg;
    put_heading(li);
    if (li->listed++ < li->max_runs) {
        prefix(li->out, li->lock_path);
        fprintf(li->out, "  cityHash64(order_id) %% %llu in [%llu, %llu]: shard %u -> shard %u\n",
                (unsigned long long)li->modulus, (unsigned long long)r->first, (unsigned long long)r->last, r->from,
                r->to);
    }
    return 0;
}

static void put_replicas(const sc_shard *s, FILE *out)
{
    for (size_t j = 0; j < s->n_replicas; j++) {
        fputs(j ? ", " : "", out);
        sc_fput_escaped(s->replicas[j].host, out);
        fprintf(out, ":%u", s->replicas[j].port);
    }
}

/* Host names compare as the layout check compares them: DNS names ignore case. */
static int has_replica(const sc_shard *s, const sc_replica *r)
{
    for (size_t j = 0; j < s->n_replicas; j++)
        if (s->replicas[j].port == r->port && !strcasecmp(s->replicas[j].host, r->host))
            return 1;
    return 0;
}

static size_t shared(const sc_shard *a, const sc_shard *b)
{
    size_t n = 0;
    for (size_t j = 0; j < a->n_replicas; j++)
        n += (size_t)has_replica(b, &a->replicas[j]);
    return n;
}

/* "total weight 4 -> 5; shard 2 weight 2 -> 3": every difference of the weights, by shard number. */
static void put_weight_changes(const sc_lock *l, const sc_cluster *c, uint64_t total, FILE *out)
{
    const char *sep = "";
    if (l->total != total) {
        fprintf(out, "total weight %llu -> %llu", (unsigned long long)l->total, (unsigned long long)total);
        sep = "; ";
    }
    size_t n = l->c.n_shards > c->n_shards ? l->c.n_shards : c->n_shards;
    for (size_t i = 0; i < n; i++) {
        if (i >= l->c.n_shards)
            fprintf(out, "%sshard %zu (not in the lock) weight %u", sep, i + 1, c->shards[i].weight);
        else if (i >= c->n_shards)
            fprintf(out, "%sshard %zu (no longer in the config) weight %u", sep, i + 1, l->c.shards[i].weight);
        else if (l->c.shards[i].weight != c->shards[i].weight)
            fprintf(out, "%sshard %zu weight %u -> %u", sep, i + 1, l->c.shards[i].weight, c->shards[i].weight);
        else
            continue;
        sep = "; ";
    }
    if (!*sep)
        fputs("the weights are equal", out);
}

/* Lists the moved runs and their share; returns 1 when any key moves (or cannot be proved not to). */
static int report_moves(const sc_lock *l, const sc_cluster *c, const sc_slots *old, const sc_slots *now,
                        const sc_lock_opts *o, FILE *out)
{
    const char *lp = o->lock_path;
    uint64_t max_pieces = o->max_pieces ? o->max_pieces : SC_LOCK_MAX_PIECES, L;
    if (__builtin_mul_overflow(old->n / gcd_u64(old->n, now->n), now->n, &L))
        L = 0;
    lister li = {out, lp, l, c, old->n, now->n, L, 0, o->max_runs ? o->max_runs : 20, 0};
    sc_lock_moves m;
    sc_lock_walk(old, now, max_pieces, list_run, &li, &m);
    if (m.complete && m.runs == 0) {
        if (l->total != now->n) { /* one shard with slots, its weight changed */
            prefix(out, lp);
            fputs("note: ", out);
            put_weight_changes(l, c, now->n, out);
            fputs(", yet every key routes to the same shard number: re-lock to record it\n", out);
        }
        return 0;
    }
    put_heading(&li);
    if (!m.modulus)
        return 1;
    if (m.runs > li.max_runs) {
        prefix(out, lp);
        fprintf(out, "  … and %s%llu more run%s\n", m.complete ? "" : "at least ",
                (unsigned long long)(m.runs - li.max_runs), m.runs - li.max_runs == 1 ? "" : "s");
    }
    prefix(out, lp);
    if (m.complete)
        fprintf(out, "%llu of the %llu residues move (%.6g%%): cityHash64 is uniform over 2^64 values, so that is "
                     "the share of keys that change shard, exact up to the bias of 2^64 %% %llu (below %llu/2^64)\n",
                (unsigned long long)m.moved, (unsigned long long)m.modulus, 100.0 * (double)m.moved / (double)m.modulus,
                (unsigned long long)m.modulus, (unsigned long long)m.modulus);
    else
        fprintf(out, "the period %llu has more slot boundaries than are walked (%llu): the share of keys that move is "
                     "not counted; the runs above are the first ones\n",
                (unsigned long long)m.modulus, (unsigned long long)max_pieces);
    return 1;
}

/* Compares each shard number's replicas with the lock's; returns 1 when a shard's data is
 * elsewhere (no locked host:port left). */
static int report_hosts(const sc_lock *l, const sc_cluster *c, const char *lp, FILE *out)
{
    int bad = 0;
    size_t n = l->c.n_shards < c->n_shards ? l->c.n_shards : c->n_shards;
    for (size_t i = 0; i < n; i++) {
        const sc_shard *was = &l->c.shards[i], *is = &c->shards[i];
        size_t common = shared(is, was);
        if (common == is->n_replicas && common == was->n_replicas)
            continue;
        prefix(out, lp);
        if (common) {
            fprintf(out, "note: shard %zu replicas changed (now ", i + 1);
            put_replicas(is, out);
            fputs("; locked ", out);
            put_replicas(was, out);
            fputs("): it keeps a locked server, so its rows stay reachable (a new replica fetches them from the "
                  "others); re-lock to record it\n", out);
            continue;
        }
        bad = 1;
        fprintf(out, "shard %zu is now ", i + 1);
        put_replicas(is, out);
        fputs(", which shares no host:port with the locked shard ", out);
        fprintf(out, "%zu (", i + 1);
        put_replicas(was, out);
        fputs(")", out);
        for (size_t k = 0; k < l->c.n_shards; k++)
            if (k != i && shared(is, &l->c.shards[k])) {
                fprintf(out, "; those servers are the locked shard %zu (shards re-ordered?)", k + 1);
                break;
            }
        fprintf(out, ": the rows routed to shard %zu are on the locked servers, not on these\n", i + 1);
    }
    return bad;
}

int sc_lock_check(const sc_lock *l, const sc_cluster *c, const sc_lock_opts *o, FILE *out, int *failed,
                  sc_err *err)
{
    *failed = 0;
    if (strcmp(l->c.name, c->name) != 0) {
        sc_err_set(err, "the lock is of another cluster (see its cluster line): lock each cluster in its own file",
                   o->lock_path, 0, 0);
        return SC_E_INPUT;
    }
    sc_slots old = {0}, now = {0};
    int rc = sc_slots_build(&l->c, &old);
    if (rc == SC_OK)
        rc = sc_slots_build(c, &now);
    if (rc != SC_OK) {
        sc_slots_free(&old);
        if (rc == SC_E_CHECK)
            sc_err_set(err, "every shard has weight 0: no shard can take a row", NULL, 0, 0);
        return rc;
    }
    const char *lp = o->lock_path;
    int moved = report_moves(l, c, &old, &now, o, out);
    int elsewhere = report_hosts(l, c, lp, out);
    /* shards beyond the common count: with weight, the routing above already differs */
    for (size_t i = c->n_shards; i < l->c.n_shards; i++)
        if (!l->c.shards[i].weight && !moved) {
            prefix(out, lp);
            fprintf(out, "note: the locked shard %zu (weight 0, no slots) is no longer in the config: re-lock to "
                         "record it\n", i + 1);
        }
    for (size_t i = l->c.n_shards; i < c->n_shards; i++)
        if (!c->shards[i].weight && !moved) {
            prefix(out, lp);
            fprintf(out, "note: shard %zu (weight 0, no slots) is not in the lock: re-lock to record it\n", i + 1);
        }
    *failed = moved || elsewhere;
    prefix(out, lp);
    if (*failed) {
        fputs("what to do: if the cluster holds data, ", out);
        fputs(moved ? "reshard: move the rows of the ranges above to their new shard (or undo the config change)"
                    : "point each shard back at its locked servers, or move its data to the new ones", out);
        fprintf(out, "; only on an empty cluster re-lock: shard-check lock --config %s --cluster ",
                o->config_path ? o->config_path : "PATH");
        sc_fput_escaped(c->name, out);
        fprintf(out, " -o %s, and commit it\n", lp);
    } else {
        fputs("the lock holds: cluster ", out);
        sc_fput_escaped(c->name, out);
        fprintf(out, " routes every key to its locked shard number (total weight %llu), and each shard keeps a "
                     "locked server\n",
                (unsigned long long)now.n);
    }
    sc_slots_free(&old);
    sc_slots_free(&now);
    return SC_OK;
}
