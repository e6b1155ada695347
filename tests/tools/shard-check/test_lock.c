/* test_lock.c: the slot-table lock: exact text, round trip with escaped hosts, every malformed
 * form with its line, the moved runs on hand-checked cases and against per-residue enumeration
 * (small and large totals, sampled 64-bit hashes for periods too long to enumerate), and the check. */
#include <stdlib.h>

#include "check.h"
#include "lock.h"

#define FIX ODS_SOURCE_DIR "/tests/fixtures/shard/"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next_rand(void) /* splitmix64: reproducible across runs */
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static char *lock_text(const sc_cluster *c, int *rc)
{
    char *t = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&t, &len);
    sc_err e = {0};
    *rc = sc_lock_write(c, m, &e);
    fclose(m);
    return t;
}

static int parse(const char *text, sc_lock *l, sc_err *e)
{
    return sc_lock_parse(text, strlen(text), "t.lock", l, e);
}

/* ---- runs collected from the walk, and the same runs by enumerating residues ---- */

typedef struct {
    sc_lock_run *r;
    size_t n, cap;
} runs;

static int collect(const sc_lock_run *run, void *arg)
{
    runs *rs = arg;
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 64;
        rs->r = realloc(rs->r, rs->cap * sizeof *rs->r);
    }
    rs->r[rs->n++] = *run;
    return 0;
}

static void slots_of(const unsigned *w, size_t n, sc_slots *s)
{
    sc_shard sh[64] = {{0, 0, 0, NULL}};
    for (size_t i = 0; i < n; i++)
        sh[i].weight = w[i];
    sc_cluster c = {.name = "x", .n_shards = n, .shards = sh};
    sc_slots_build(&c, s);
}

/* 1 when the walk over old -> now equals per-residue enumeration of [0, L); L must be small. */
static int walk_equals_enumeration(const sc_slots *old, const sc_slots *now)
{
    runs got = {0}, want = {0};
    sc_lock_moves m;
    sc_lock_walk(old, now, UINT64_MAX, collect, &got, &m);
    uint64_t L = m.modulus, moved = 0;
    for (uint64_t r = 0; r < L; r++) {
        unsigned a = sc_slots_shard(old, r), b = sc_slots_shard(now, r);
        if (a == b)
            continue;
        moved++;
        sc_lock_run *last = want.n ? &want.r[want.n - 1] : NULL;
        if (last && last->last + 1 == r && last->from == a && last->to == b)
            last->last = r;
        else
            collect(&(sc_lock_run){r, r, a, b}, &want);
    }
    int ok = m.complete && m.moved == moved && m.runs == got.n && got.n == want.n &&
             (got.n == 0 || !memcmp(got.r, want.r, got.n * sizeof *got.r));
    if (!ok)
        fprintf(stderr, "walk: L %llu, %zu runs, %llu moved; enumeration: %zu runs, %llu moved\n",
                (unsigned long long)L, got.n, (unsigned long long)m.moved, want.n, (unsigned long long)moved);
    free(got.r);
    free(want.r);
    return ok;
}

/* The run holding residue x, or NULL (runs sorted, disjoint). */
static const sc_lock_run *find_run(const runs *rs, uint64_t x)
{
    size_t lo = 0, hi = rs->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rs->r[mid].last < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rs->n && rs->r[lo].first <= x ? &rs->r[lo] : NULL;
}

/* For periods too long to enumerate: random 64-bit hashes, routed by both tables the engine's
 * way, change shard exactly when their residue falls in a reported run, as that run says. */
static int sampled_hashes_agree(const sc_slots *old, const sc_slots *now, int samples)
{
    runs got = {0};
    sc_lock_moves m;
    sc_lock_walk(old, now, UINT64_MAX, collect, &got, &m);
    int bad = !m.complete;
    for (int i = 0; i < samples && !bad; i++) {
        uint64_t h = next_rand();
        if (i % 4 == 0 && got.n) { /* also hashes aimed at run edges */
            const sc_lock_run *r = &got.r[next_rand() % got.n];
            uint64_t x = (i % 8 == 0 ? r->first : r->last) + (next_rand() % 3) - 1;
            h = (h / m.modulus) * m.modulus + x % m.modulus;
        }
        unsigned a = sc_slots_shard(old, h), b = sc_slots_shard(now, h);
        const sc_lock_run *r = find_run(&got, h % m.modulus);
        if (a == b ? r != NULL : !r || r->from != a || r->to != b)
            bad = 1;
    }
    free(got.r);
    return !bad;
}

static void check_malformed(const char *text, long line, const char *msg_part)
{
    sc_lock l;
    sc_err e = {0};
    int rc = parse(text, &l, &e);
    CHECK_EQ_INT(rc, SC_E_INPUT);
    CHECK_EQ_INT(e.line, line);
    CHECK_EQ_STR(e.where, "t.lock");
    if (!e.msg || !strstr(e.msg, msg_part))
        fprintf(stderr, "lock %s: message \"%s\", want \"%s\"\n", text, e.msg ? e.msg : "", msg_part);
    CHECK(e.msg && strstr(e.msg, msg_part));
    CHECK(l.c.shards == NULL && l.c.name == NULL); /* freed on failure */
}

static uint64_t check_max_pieces; /* 0: the default */

/* sc_lock_check's report and verdict for lock text against cluster c. */
static int check_vs(const char *lock, const sc_cluster *c, char **report, int *failed)
{
    sc_lock l;
    sc_err e = {0};
    *report = NULL;
    int rc = parse(lock, &l, &e);
    if (rc != SC_OK)
        return 100 + rc;
    size_t len = 0;
    FILE *m = open_memstream(report, &len);
    sc_lock_opts o = {"t.lock", "cfg", 0, check_max_pieces};
    rc = sc_lock_check(&l, c, &o, m, failed, &e);
    fclose(m);
    sc_lock_free(&l);
    return rc;
}

static size_t count(const char *s, const char *part)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, part)); p++)
        n++;
    return n;
}

#define HDR SC_LOCK_HEADER "\n"

int main(void)
{
    /* ---- the exact text, escaped names, round trip ---- */
    sc_replica r1[2] = {{"ch-1a", 9000}, {"ch-1b", 9000}};
    sc_replica r2[1] = {{"evil\nshard 9\tx", 9440}};
    sc_replica r3[2] = {{"back\\slash", 1}, {"::1", 9000}};
    sc_shard sh[3] = {{1, 1, 2, r1}, {0, 1, 1, r2}, {3, 0, 2, r3}};
    sc_cluster c = {.name = "ods\tcl", .n_shards = 3, .shards = sh};
    int rc;
    char *t = lock_text(&c, &rc);
    CHECK_EQ_INT(rc, SC_OK);
    const char *body = "cluster\tods\\tcl\n"
                       "total_weight\t4\n"
                       "shard\t1\t1\t0-0\tch-1a:9000\tch-1b:9000\n"
                       "shard\t2\t0\t-\tevil\\nshard 9\\tx:9440\n"
                       "shard\t3\t3\t1-3\tback\\\\slash:1\t::1:9000\n";
    CHECK(!strncmp(t, HDR, strlen(HDR)));
    CHECK(strlen(t) > strlen(body) && !strcmp(t + strlen(t) - strlen(body), body));
    CHECK_EQ_INT(count(t, "\n"), 6 + 5); /* header and 5 comment lines, then 5 data lines */
    sc_lock l;
    sc_err e = {0};
    CHECK_EQ_INT(parse(t, &l, &e), SC_OK);
    CHECK_EQ_STR(l.c.name, "ods\tcl");
    CHECK_EQ_INT(l.total, 4);
    CHECK_EQ_INT(l.c.n_shards, 3);
    for (size_t i = 0; i < 3 && l.c.n_shards == 3; i++) {
        CHECK_EQ_INT(l.c.shards[i].weight, sh[i].weight);
        CHECK_EQ_INT(l.c.shards[i].internal_replication, -1);
        CHECK_EQ_INT(l.c.shards[i].n_replicas, sh[i].n_replicas);
        for (size_t j = 0; j < sh[i].n_replicas && j < l.c.shards[i].n_replicas; j++) {
            CHECK_EQ_STR(l.c.shards[i].replicas[j].host, sh[i].replicas[j].host);
            CHECK_EQ_INT(l.c.shards[i].replicas[j].port, sh[i].replicas[j].port);
        }
    }
    /* the lock written from the parsed lock is the same text */
    char *t2 = lock_text(&l.c, &rc);
    CHECK_EQ_STR(t2, t);
    free(t2);
    sc_lock_free(&l);
    free(t);

    /* all-zero weights: nothing to lock */
    sc_shard zs[1] = {{0, 0, 1, r2}};
    sc_cluster zc = {.name = "z", .n_shards = 1, .shards = zs};
    t = lock_text(&zc, &rc);
    CHECK_EQ_INT(rc, SC_E_CHECK);
    CHECK_EQ_STR(t, "");
    free(t);

    /* from the example config and from the engine's system.clusters dump of it: the same lock */
    sc_cluster fx, fd;
    CHECK_EQ_INT(sc_layout_load(ODS_SOURCE_DIR "/clickhouse-config/cluster.example.xml", "ods_cluster", &fx, &e), SC_OK);
    CHECK_EQ_INT(sc_layout_load(FIX "clusters.tsv", "ods_cluster", &fd, &e), SC_OK);
    char *tx = lock_text(&fx, &rc), *td = lock_text(&fd, &rc);
    CHECK(strstr(td, "shard\t3\t2\t2-3\tch-ods-3a.internal:9000\tch-ods-3b.internal:9000\n") != NULL);
    CHECK_EQ_INT(parse(td, &l, &e), SC_OK);
    sc_lock_free(&l);
    free(tx);
    free(td);
    sc_cluster_free(&fx);

    /* ---- malformed locks: each refused with its line ---- */
    const char *ok3 = HDR "cluster\tc\ntotal_weight\t3\nshard\t1\t1\t0-0\th1:9000\nshard\t2\t2\t1-2\th2:9000\n";
    CHECK_EQ_INT(parse(ok3, &l, &e), SC_OK);
    sc_lock_free(&l);
    check_malformed("", 0, "an empty file");
    check_malformed("cluster\tc\n", 1, "the first line must be");
    check_malformed("# shard-check lock v2\ncluster\tc\n", 1, "version this tool does not read");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th:1", 4, "no line break");
    check_malformed(HDR "cluster\tc\r\n", 2, "carriage return");
    check_malformed(HDR "\n", 2, "an empty line");
    check_malformed(HDR "total_weight\t1\n", 2, "right after the cluster line");
    check_malformed(HDR "cluster\tc\ncluster\td\n", 3, "a second cluster line");
    check_malformed(HDR "cluster\n", 2, "cluster<TAB>NAME");
    check_malformed(HDR "cluster\tc\tx\n", 2, "cluster<TAB>NAME");
    check_malformed(HDR "cluster\tc\\q\n", 2, "not one of the lock's escapes");
    check_malformed(HDR "cluster\tc\\\n", 2, "not one of the lock's escapes");
    check_malformed(HDR "cluster\tc\ntotal_weight\t0\n", 3, "a number above 0");
    check_malformed(HDR "cluster\tc\ntotal_weight\t03\n", 3, "a number above 0");
    check_malformed(HDR "cluster\tc\ntotal_weight\t18446744073709551616\n", 3, "a number above 0");
    check_malformed(HDR "cluster\tc\nshard\t1\t1\t0-0\th:1\n", 3, "after the cluster and total_weight");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\n", 3, "no shard lines");
    check_malformed(HDR "cluster\tc\ntotal_weight\t2\nshard\t1\t1\t0-0\th:1\n", 3, "not the sum");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t2\t1\t0-0\th:1\n", 4, "shard numbers must run");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\n", 4, "at least one host:port");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t-1\t0-0\th:1\n", 4, "weight is not");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t4294967296\t0-0\th:1\n", 4, "weight is not");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0\th:1\n", 4, "not first-last");
    check_malformed(HDR "cluster\tc\ntotal_weight\t2\nshard\t1\t1\t0-0\th:1\nshard\t2\t1\t0-0\tg:1\n", 5,
                    "disagree with the weights");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t0\t0-0\th:1\n", 4, "must be -");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th\n", 4, "not host:port");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\t:1\n", 4, "not host:port");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th:0\n", 4, "from 1 to 65535");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th:65536\n", 4, "from 1 to 65535");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th:\n", 4, "from 1 to 65535");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th\001:1\n", 4, "raw control byte");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th:1\nreplica\tx\n", 5, "unknown line");
    check_malformed(HDR "cluster\tc\ntotal_weight\t1\nshard\t1\t1\t0-0\th:1\t\n", 4, "not host:port");
    {
        const char x[] = HDR "cluster\tc\0d\n";
        sc_lock lx;
        CHECK_EQ_INT(sc_lock_parse(x, sizeof x - 1, "t.lock", &lx, &e), SC_E_INPUT);
        CHECK_EQ_INT(e.line, 2);
        CHECK(strstr(e.msg, "NUL") != NULL);
    }
    /* comments anywhere after the header */
    CHECK_EQ_INT(parse(HDR "# a\ncluster\tc\n# b\ntotal_weight\t1\nshard\t1\t1\t0-0\th:1\n#\n", &l, &e), SC_OK);
    sc_lock_free(&l);
    /* a missing file, a file too large */
    CHECK_EQ_INT(sc_lock_read(FIX "no-such.lock", &l, &e), SC_E_INPUT);
    CHECK(strstr(e.msg, "No such file") != NULL);

    /* ---- moved runs, by hand ---- */
    sc_slots a, b;
    sc_lock_moves m;
    runs got = {0};
    /* weights 1,2,1 -> 1,3,1: totals 4 and 5, L = 20; old r%4: 0|1 2|3, new r%5: 0|1 2 3|4 */
    slots_of((unsigned[]){1, 2, 1}, 3, &a);
    slots_of((unsigned[]){1, 3, 1}, 3, &b);
    sc_lock_walk(&a, &b, UINT64_MAX, collect, &got, &m);
    static const sc_lock_run want121[] = {{3, 3, 3, 2},   {4, 4, 1, 3},   {5, 5, 2, 1},   {7, 7, 3, 2},
                                          {8, 8, 1, 2},   {9, 9, 2, 3},   {10, 10, 2, 1}, {11, 11, 3, 2},
                                          {12, 12, 1, 2}, {14, 14, 2, 3}, {15, 15, 3, 1}, {16, 16, 1, 2}};
    CHECK_EQ_INT(m.modulus, 20);
    CHECK_EQ_INT(m.complete, 1);
    CHECK_EQ_INT(m.moved, 12);
    CHECK_EQ_INT(got.n, 12);
    CHECK(got.n == 12 && !memcmp(got.r, want121, sizeof want121));
    got.n = 0;
    sc_slots_free(&a);
    sc_slots_free(&b);
    /* 2,2 -> 1,3 (same total): only slot 1 moves, 1 -> 2 */
    slots_of((unsigned[]){2, 2}, 2, &a);
    slots_of((unsigned[]){1, 3}, 2, &b);
    sc_lock_walk(&a, &b, UINT64_MAX, collect, &got, &m);
    CHECK_EQ_INT(m.modulus, 4);
    CHECK_EQ_INT(got.n, 1);
    CHECK(got.n == 1 && got.r[0].first == 1 && got.r[0].last == 1 && got.r[0].from == 1 && got.r[0].to == 2);
    got.n = 0;
    sc_slots_free(&a);
    sc_slots_free(&b);
    /* one shard, weight 1 -> 2; and a weight-0 shard appended: no key moves */
    slots_of((unsigned[]){1}, 1, &a);
    slots_of((unsigned[]){2, 0}, 2, &b);
    sc_lock_walk(&a, &b, UINT64_MAX, collect, &got, &m);
    CHECK_EQ_INT(m.modulus, 2);
    CHECK_EQ_INT(m.complete, 1);
    CHECK_EQ_INT(m.runs, 0);
    sc_slots_free(&a);
    sc_slots_free(&b);
    /* 0,3 -> 3,0: one run over the whole period, merged across the periods' seams */
    slots_of((unsigned[]){0, 3}, 2, &a);
    slots_of((unsigned[]){1, 0}, 2, &b);
    sc_lock_walk(&a, &b, UINT64_MAX, collect, &got, &m);
    CHECK_EQ_INT(m.modulus, 3);
    CHECK_EQ_INT(got.n, 1);
    CHECK(got.n == 1 && got.r[0].first == 0 && got.r[0].last == 2 && got.r[0].from == 2 && got.r[0].to == 1);
    got.n = 0;
    /* the cap: stops incomplete, without a half-seen run */
    sc_slots_free(&b);
    slots_of((unsigned[]){1, 1}, 2, &b);
    sc_lock_walk(&a, &b, 1, collect, &got, &m);
    CHECK_EQ_INT(m.complete, 0);
    CHECK_EQ_INT(got.n, 0);
    sc_slots_free(&a);
    sc_slots_free(&b);
    /* a period beyond 2^64: no modulus, nothing walked */
    slots_of((unsigned[]){4294967295u, 4294967295u, 4294967295u}, 3, &a);
    slots_of((unsigned[]){4294967291u, 4294967295u, 4294967295u}, 3, &b);
    sc_lock_walk(&a, &b, UINT64_MAX, collect, &got, &m);
    CHECK_EQ_INT(m.modulus, 0);
    CHECK_EQ_INT(m.complete, 0);
    CHECK_EQ_INT(got.n, 0);
    sc_slots_free(&a);
    sc_slots_free(&b);
    free(got.r);

    /* ---- brute force: the walk equals per-residue enumeration ---- */
    int agree = 0, trials = 0;
    for (int t = 0; t < 3000; t++) { /* small weights, 1-6 shards each side, zeros included */
        unsigned wa[6], wb[6];
        size_t na = 1 + next_rand() % 6, nb = 1 + next_rand() % 6;
        unsigned sa = 0, sb = 0;
        for (size_t i = 0; i < na; i++)
            sa += wa[i] = (unsigned)(next_rand() % 6);
        for (size_t i = 0; i < nb; i++)
            sb += wb[i] = (unsigned)(next_rand() % 6);
        if (!sa)
            wa[0] = 1;
        if (!sb)
            wb[nb - 1] = 2;
        slots_of(wa, na, &a);
        slots_of(wb, nb, &b);
        agree += walk_equals_enumeration(&a, &b);
        trials++;
        sc_slots_free(&a);
        sc_slots_free(&b);
    }
    for (int t = 0; t < 16; t++) { /* large totals, periods up to ~2^23: weight moved between shards,
                                      or every weight scaled, then one changed */
        unsigned wa[5], wb[5];
        size_t n = 2 + next_rand() % 4;
        for (size_t i = 0; i < n; i++)
            wa[i] = wb[i] = (unsigned)(1 + next_rand() % 1000000);
        if (t % 2 == 0) {
            unsigned d = (unsigned)(next_rand() % wa[0]);
            wb[0] -= d;
            wb[n - 1] += d;
        } else {
            for (size_t i = 0; i < n; i++)
                wa[i] = (wa[i] + 1) / 2, wb[i] = wa[i] * 2;
            wb[next_rand() % n] += 1;
            uint64_t ta = 0, tb = 0;
            for (size_t i = 0; i < n; i++)
                ta += wa[i], tb += wb[i];
            if (tb % ta != 0) { /* keep the period enumerable: tb = 2 ta */
                wb[0] -= (unsigned)(tb - 2 * ta);
            }
        }
        slots_of(wa, n, &a);
        slots_of(wb, n, &b);
        agree += walk_equals_enumeration(&a, &b);
        trials++;
        sc_slots_free(&a);
        sc_slots_free(&b);
    }
    CHECK_EQ_INT(agree, trials);
    /* totals near 2^32 and periods of ~10^12: sampled hashes; scaling every weight by g scales
     * the moved residues by g exactly */
    agree = trials = 0;
    for (int t = 0; t < 30; t++) {
        unsigned sa[6], sb[6], wa[6], wb[6];
        size_t na = 1 + next_rand() % 6, nb = 1 + next_rand() % 6;
        unsigned g = (unsigned)(100000000 + next_rand() % 600000);
        unsigned ta = 0, tb = 0;
        for (size_t i = 0; i < na; i++)
            ta += sa[i] = (unsigned)(next_rand() % 5);
        for (size_t i = 0; i < nb; i++)
            tb += sb[i] = (unsigned)(next_rand() % 5);
        if (!ta)
            sa[0] = 3;
        if (!tb)
            sb[0] = 1;
        for (size_t i = 0; i < na; i++)
            wa[i] = sa[i] * g;
        for (size_t i = 0; i < nb; i++)
            wb[i] = sb[i] * g;
        sc_slots ssa, ssb;
        slots_of(sa, na, &ssa);
        slots_of(sb, nb, &ssb);
        slots_of(wa, na, &a);
        slots_of(wb, nb, &b);
        sc_lock_moves ms, mb;
        sc_lock_walk(&ssa, &ssb, UINT64_MAX, NULL, NULL, &ms);
        sc_lock_walk(&a, &b, UINT64_MAX, NULL, NULL, &mb);
        int ok = mb.complete && mb.modulus == ms.modulus * g && mb.moved == ms.moved * g && mb.runs == ms.runs;
        ok = ok && sampled_hashes_agree(&a, &b, 200000);
        agree += ok;
        trials++;
        sc_slots_free(&ssa);
        sc_slots_free(&ssb);
        sc_slots_free(&a);
        sc_slots_free(&b);
    }
    CHECK_EQ_INT(agree, trials);
    /* coprime totals: a period of 24 995 000, walked through ~30 000 boundaries, sampled */
    slots_of((unsigned[]){2000, 1999, 1000}, 3, &a);
    slots_of((unsigned[]){2000, 2000, 1000}, 3, &b);
    CHECK(sampled_hashes_agree(&a, &b, 200000));
    sc_slots_free(&a);
    sc_slots_free(&b);

    /* ---- the check against a cluster ---- */
    const char *lock3 = HDR "cluster\tc\ntotal_weight\t4\n"
                            "shard\t1\t1\t0-0\ta1:9000\ta2:9000\n"
                            "shard\t2\t2\t1-2\tb1:9000\tb2:9000\n"
                            "shard\t3\t1\t3-3\tc1:9000\tc2:9000\n";
    sc_replica ra[2] = {{"a1", 9000}, {"a2", 9000}}, rb[2] = {{"b1", 9000}, {"b2", 9000}},
               rcc[2] = {{"c1", 9000}, {"c2", 9000}}, rbx[2] = {{"B1", 9000}, {"b3", 9000}};
    sc_shard s3[3] = {{1, 1, 2, ra}, {2, 1, 2, rb}, {1, 1, 2, rcc}};
    sc_cluster c3 = {.name = "c", .n_shards = 3, .shards = s3};
    char *rep;
    int failed;
    CHECK_EQ_INT(check_vs(lock3, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 0);
    CHECK_EQ_INT(count(rep, "\n"), 1);
    CHECK(strstr(rep, "shard-check: t.lock: the lock holds: cluster c routes every key") == rep);
    free(rep);
    /* a replaced replica (and a host name in other case): a note, still holds */
    s3[1].replicas = rbx;
    CHECK_EQ_INT(check_vs(lock3, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 0);
    CHECK_EQ_INT(count(rep, "\n"), 2);
    CHECK(strstr(rep, "note: shard 2 replicas changed (now B1:9000, b3:9000; locked b1:9000, b2:9000)") != NULL);
    free(rep);
    s3[1].replicas = rb;
    /* shards 1 and 3 swapped (equal weights): their data is elsewhere */
    s3[0].replicas = rcc;
    s3[2].replicas = ra;
    CHECK_EQ_INT(check_vs(lock3, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 1);
    CHECK(strstr(rep, "shard 1 is now c1:9000, c2:9000, which shares no host:port with the locked shard 1 "
                      "(a1:9000, a2:9000); those servers are the locked shard 3") != NULL);
    CHECK(strstr(rep, "shard 3 is now a1:9000") != NULL);
    CHECK(strstr(rep, "point each shard back at its locked servers") != NULL);
    CHECK(strstr(rep, "lock holds") == NULL);
    free(rep);
    s3[0].replicas = ra;
    s3[2].replicas = rcc;
    /* a weight change: the runs, the share, the advice */
    s3[1].weight = 3;
    CHECK_EQ_INT(check_vs(lock3, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 1);
    CHECK(strstr(rep, "the routing differs from the lock: total weight 4 -> 5; shard 2 weight 2 -> 3\n") != NULL);
    CHECK(strstr(rep, "  cityHash64(order_id) % 20 in [3, 3]: shard 3 -> shard 2\n") != NULL);
    CHECK(strstr(rep, "  cityHash64(order_id) % 20 in [16, 16]: shard 1 -> shard 2\n") != NULL);
    CHECK_EQ_INT(count(rep, "  cityHash64(order_id) % 20 in ["), 12);
    CHECK(strstr(rep, "12 of the 20 residues move (60%)") != NULL);
    CHECK(strstr(rep, "reshard: move the rows of the ranges above") != NULL);
    CHECK(strstr(rep, "shard-check lock --config cfg --cluster c -o t.lock, and commit it") != NULL);
    free(rep);
    /* many runs: 20 listed, then the rest counted */
    s3[1].weight = 1000;
    CHECK_EQ_INT(check_vs(lock3, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(count(rep, "  cityHash64(order_id) % "), 20);
    CHECK(strstr(rep, "more runs\n") != NULL);
    free(rep);
    s3[1].weight = 2;
    /* a weight-0 shard appended: a note; another cluster's lock: an input error */
    sc_shard s4[4] = {{1, 1, 2, ra}, {2, 1, 2, rb}, {1, 1, 2, rcc}, {0, 1, 1, r2}};
    sc_cluster c4 = {.name = "c", .n_shards = 4, .shards = s4};
    CHECK_EQ_INT(check_vs(lock3, &c4, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 0);
    CHECK(strstr(rep, "note: shard 4 (weight 0, no slots) is not in the lock") != NULL);
    free(rep);
    c4.name = "d";
    CHECK_EQ_INT(check_vs(lock3, &c4, &rep, &failed), SC_E_INPUT);
    free(rep);
    /* a period too long to walk: the first runs, no count, still a failure */
    check_max_pieces = 5;
    s3[1].weight = 3;
    CHECK_EQ_INT(check_vs(lock3, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 1);
    CHECK(strstr(rep, "the routing differs from the lock: total weight 4 -> 5; shard 2 weight 2 -> 3\n") != NULL);
    CHECK(strstr(rep, "  cityHash64(order_id) % 20 in [3, 3]: shard 3 -> shard 2\n") != NULL);
    CHECK(strstr(rep, "has more slot boundaries than are walked (5): the share of keys that move is not counted") != NULL);
    CHECK(strstr(rep, "residues move") == NULL);
    free(rep);
    check_max_pieces = 0;
    /* a period beyond 2^64: the weight changes only, still a failure */
    const char *lockbig = HDR "cluster\tc\ntotal_weight\t12884901885\n"
                              "shard\t1\t4294967295\t0-4294967294\ta1:9000\ta2:9000\n"
                              "shard\t2\t4294967295\t4294967295-8589934589\tb1:9000\tb2:9000\n"
                              "shard\t3\t4294967295\t8589934590-12884901884\tc1:9000\tc2:9000\n";
    s3[0].weight = 4294967291u, s3[1].weight = s3[2].weight = 4294967295u;
    CHECK_EQ_INT(check_vs(lockbig, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 1);
    CHECK(strstr(rep, "total weight 12884901885 -> 12884901881; shard 1 weight 4294967295 -> 4294967291\n") != NULL);
    CHECK(strstr(rep, "exceeds 2^64 - 1: the keys that move are not listed") != NULL);
    free(rep);
    s3[0].weight = 4294967295u;
    CHECK_EQ_INT(check_vs(lockbig, &c3, &rep, &failed), SC_OK);
    CHECK_EQ_INT(failed, 0);
    free(rep);
    sc_cluster_free(&fd);
    return check_report();
}
