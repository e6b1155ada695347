/* sched: the proof by random schedules of the transition (issue 24): generates operation schedules,
 * runs each step on the embedded engine and checks every table after it against an independent model. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "splitmix.h"

static const char USAGE[] =
    "usage: sched --bin DIR --work DIR --seed S [--count N] [--jobs J] [--verbose] [--keep]\n"
    "             [--sabotage WHAT] [--no-chain] [--late-copy changes|ignored] [--avoid LIST]\n"
    "             [--gate-pieces P] [--piece-size N] [--mixed-cuts]\n"
    "       sched --print-messages N [--seed S]\n"
    "\n"
    "Runs N random operation schedules (seeds S, S+1, ...) against the transition of DIR/ods-ddl,\n"
    "each in a fresh database under --work, J at a time (default 2), and checks after every step\n"
    "that order_v, the ledger, the error rows, the lease, the frozen loads and the partitions of\n"
    "order_snapshot_rep are what the model of the promised semantics says (docs/testing.md,\n"
    "\"Random schedules\"). Steps: stage rows (valid, invalid, re-sent, redelivered, conflicting,\n"
    "late, under a mistyped id), run statements a..b of a load, interleave two loads, SIGKILL\n"
    "inside a statement, OPTIMIZE ... FINAL, clear the lease, abandon, move late rows, take back the\n"
    "latest committed load, stage a copy of a staged message through a Buffer table that flushes\n"
    "it into staging while the freeze runs, and a new row likewise while the seal runs.\n"
    "\n"
    "  --bin DIR          the build's bin directory (chlocal, ods-ddl)\n"
    "  --work DIR         where each schedule gets its directory seed-S (kept when it diverged)\n"
    "  --seed S           the first seed (default 1)\n"
    "  --count N          schedules to run (default 1)\n"
    "  --jobs J           schedules run in parallel (default 2)\n"
    "  --verbose          every step of every schedule on stderr, with its outcome\n"
    "  --keep             keep the directories of schedules that passed too\n"
    "  --sabotage WHAT    run a deliberately wrong transition, to prove the checks can fail:\n"
    "                     skip-lease (statement 2 left out), no-staging-check (3 left out),\n"
    "                     no-seal (5 left out), no-commit (10 left out), no-shared-snapshot (the\n"
    "                     freeze's reads of staging each take their own snapshot; every load then\n"
    "                     meets a copy staged during its freeze), split-seal (the seal's check\n"
    "                     and its record of staging as two statements; every load then meets a\n"
    "                     new row staged during its seal)\n"
    "  --no-chain         every step in its own chlocal process (slower; to pin a divergence)\n"
    "  --avoid LIST       leave out steps that hit a divergence already known, comma-separated:\n"
    "                     killK (no kill inside statement K), from12 (no run starting at 12),\n"
    "                     latecopy (no copy of a frozen message staged after its freeze),\n"
    "                     nogate (no run resumed past statement 8 or 9 unless it completed\n"
    "                     since the freeze)\n"
    "  --late-copy HOW    a copy of a frozen message (same coordinates and bytes) staged after the\n"
    "                     freeze is \"ignored\" (the promise, default: the load holds that message\n"
    "                     already) or \"changes\" the load's staging (the other reading)\n"
    "  --gate-pieces P, --piece-size N  the transition's gate as P INSERTs of about N messages\n"
    "                     (ods-ddl transition's options; a small N cuts schedules' loads in pieces)\n"
    "  --mixed-cuts       each run and kill takes that cut of the freeze and the gate or one INSERT\n"
    "                     each, half and half: a rerun often cuts a load otherwise than the run\n"
    "                     it resumes, and a schedule runs fewer INSERTs\n"
    "  --print-messages N print N generated messages, one a line: class, typed TSV, raw (for\n"
    "                     the test that checks them with order_wire_class and order_wire_parse)\n"
    "\n"
    "A process that fails in the engine, not in the transition, with nothing written (a table that\n"
    "failed to load at start-up: ASYNC_LOAD_WAIT_FAILED; a signal while its first query writes\n"
    "nothing) is an engine fault: it runs again, up to 3 times, and is reported on its own line.\n"
    "\n"
    "Prints one line per diverged schedule (seed, step, what differed, its reproduction file),\n"
    "a line of figures, and \"schedules: N run, D diverged\". SIGINT or SIGTERM stops it early:\n"
    "no schedule starts any more, those running finish, and the figures of what ran are\n"
    "printed. Exit status: 0 no divergence; 1 a divergence (or a schedule that could not run);\n"
    "2 usage error.\n";

/* ------------------------------------------------------------------------------------------ */
/* limits of one schedule (a schedule is small: 6-14 steps, 1-4 loads, a pool of 8 orders) */
#define NSTMT 12
#define NORD 8
#define MAXMSG 1024
#define MAXROW 1024
#define MAXLOAD 16
#define MAXSTEP 200
#define MAXPLAN 64
#define NFIG 10 /* received redelivered accepted stored unchanged stale rejected nao keyset field */

enum { CLS_OK, CLS_NAO, CLS_KEYSET, CLS_FIELD };
static const char *const CLS_NAME[] = {"", "not_an_object", "keyset_mismatch", "field_invalid"};
enum { OP_STAGE, OP_RUN, OP_KILL, OP_OPTIMIZE, OP_CLEAR, OP_ABANDON, OP_MOVE, OP_TAKE_BACK };
static const char *const OP_NAME[] = {"stage", "run", "kill", "optimize", "clear-lease", "abandon", "move-late",
                                       "take-back"};
enum { SAB_NONE, SAB_SKIP_LEASE, SAB_NO_STAGING, SAB_NO_SEAL, SAB_NO_COMMIT, SAB_NO_SHARED, SAB_SPLIT_SEAL };
static const char *const SAB_NAME[] = {"none", "skip-lease", "no-staging-check", "no-seal", "no-commit",
                                       "no-shared-snapshot", "split-seal"};
/* the statement a sabotage leaves out (no-shared-snapshot and split-seal leave none out: they
 * edit the freeze's settings, the seal's shape) */
static const int SAB_STMT[] = {0, 2, 3, 5, 10, 0, 0};
/* prediction of one statement */
enum { P_OK, P_FAIL, P_UNSURE };

/* ------------------------------------------------------------------------------------------ */
/* options and what the parent prepared (inherited by every schedule's process) */
static char g_bin[4096], g_work[4096];
static int g_verbose, g_keep, g_nochain, g_sabotage;
/* statement 1 also runs statement 3's staging checks, so a load that cannot run takes no lease:
 * the generator's heading of statement 1 says so ("the staging checked as in statement 3") */
static int g_staging_first;
/* --late-copy: is a copy of a frozen message (same coordinates, same bytes) staged after the
 * freeze a change of the load's staging? The promise says yes ("changes", the default: the count
 * of staged rows moved); "ignored" is the other reading (only rows not in the frozen set count) */
static int g_late_copy_ignored = 1;
/* --avoid: leave out steps that hit a divergence already known, to look for others meanwhile */
static unsigned g_avoid_kill; /* bit k: no kill inside statement k */
static char g_gate_pieces[24], g_piece_size[24]; /* ods-ddl transition's, "" for its default */
static int g_avoid_from12, g_avoid_latecopy, g_avoid_nogate;
static char *g_stmt[NSTMT + 1]; /* the transition's statements 1..12, heading comment included */
static char *g_freeze1;          /* statement 4 as one INSERT (--gate-pieces 1): mid_sql, --mixed-cuts */
static char *g_gate1;            /* statement 9 likewise: --mixed-cuts */
static int g_mixed;              /* --mixed-cuts */
static char *g_schema, *g_abandon, *g_move, *g_take_back;

/* ------------------------------------------------------------------------------------------ */
/* a growable text buffer */
typedef struct {
    char *s;
    size_t len, cap;
} buf;

static void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("sched: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(3);
}

static void bputn(buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256) + n;
        char *t = realloc(b->s, cap);
        if (!t)
            fatal("out of memory");
        b->s = t;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}
static void bputs(buf *b, const char *s) { bputn(b, s, strlen(s)); }
static void bprintf(buf *b, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        fatal("vsnprintf failed");
    if ((size_t)n < sizeof tmp) {
        bputn(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        fatal("out of memory");
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    bputn(b, big, (size_t)n);
    free(big);
}
static void bfree(buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}
static char *xstrdup(const char *s)
{
    char *t = strdup(s);
    if (!t)
        fatal("out of memory");
    return t;
}

/* a SQL string literal: quotes and backslashes escaped, nothing else needs it here */
static void bsql(buf *b, const char *s)
{
    bputs(b, "'");
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            bputs(b, "\\");
        bputn(b, s, 1);
    }
    bputs(b, "'");
}

/* ------------------------------------------------------------------------------------------ */
/* random numbers: one stream per schedule, from its seed */
static uint64_t g_rng;
static uint64_t rnd(void) { return splitmix64(&g_rng); }
/* the copies staged during a freeze draw from a stream of their own: a schedule that meets none
 * is the one its seed gave before they were added (the regressions name seeds) */
static uint64_t g_rng_mid;
static int rn_mid(int n) { return n > 0 ? (int)(splitmix64(&g_rng_mid) % (uint64_t)n) : 0; }
/* and the new rows staged during a seal, for the same reason (its seed mixed with a constant
 * under which seeds 901444 and 930943, which regressions replay, meet none) */
static uint64_t g_rng_seal;
static int rn_seal(int n) { return n > 0 ? (int)(splitmix64(&g_rng_seal) % (uint64_t)n) : 0; }
/* and the cut of each run under --mixed-cuts, so that a schedule's steps are those its seed
 * gives without it */
static uint64_t g_rng_cut;
static int rn_cut(int n) { return n > 0 ? (int)(splitmix64(&g_rng_cut) % (uint64_t)n) : 0; }
static int rn(int n) { return n > 0 ? (int)(rnd() % (uint64_t)n) : 0; }
static int pct(int p) { return rn(100) < p; }
static int range(int lo, int hi) { return lo + rn(hi - lo + 1); }
/* index of a weighted choice; weights may be 0 */
static int pick(const int *w, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[i] > 0 ? w[i] : 0;
    if (sum == 0)
        return -1;
    int r = rn(sum);
    for (int i = 0; i < n; i++) {
        if (w[i] <= 0)
            continue;
        if (r < w[i])
            return i;
        r -= w[i];
    }
    return n - 1;
}

/* snprintf through vsnprintf: these buffers are sized for what is written into them, but the
 * compiler cannot see the ranges of the values and would flag every timestamp */
static int sfmt(char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(out, n, fmt, ap);
    va_end(ap);
    return r;
}

/* one stream per seed: the seed is mixed first, since splitmix64's state only advances by a
 * constant (seeds S and S+1 taken as states would give the same stream, one draw apart) */
static void seed_rng(uint64_t seed)
{
    uint64_t x = seed ^ 0x5c4ed01e5ca1ab1eu;
    g_rng = splitmix64(&x);
    g_rng ^= splitmix64(&x) << 1;
    g_rng_mid = splitmix64(&x);
    g_rng_seal = splitmix64(&x) ^ 0x5ea1ed5ea1ed5ea1u;
    g_rng_cut = splitmix64(&x) ^ 0xc07c07c07c07c07cu;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
/* a DateTime64(3, 'UTC') as the engine prints it in TSV */
static void fmt_ts(char *out, size_t n, int64_t ms)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    sfmt(out, n, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

/* ------------------------------------------------------------------------------------------ */
/* the world of one schedule: orders, and every message generated for it (deduplicated by bytes,
 * so two messages are the same bytes exactly when they have the same index) */
typedef struct {
    char *raw;
    int cls;
    int ord; /* the order of a valid message, else -1 */
    /* a valid message's typed values, as order_v prints them in TSV (money with its 2 decimals:
     * the reads set output_format_decimal_trailing_zeros) */
    char user[24], status[16], created[24], updated[24], money[4][24], items[96], snap[12];
} msg;

static const char *const TOPICS[] = {"orders", "orders.eu"};
static const char *const STATUS[] = {"created", "paid", "shipped", "delivered", "cancelled"};
static const char *const MONEY[] = {"0.00", "12.50", "-0.50", "10.00", "0.01", "9999999999999999.99", "-7.05"};
static const char *const ITEMS[] = {"[]", "[{\"sku\":\"a1\",\"qty\":\"2\"}]",
                                    "[{\"sku\":\"b\"},{\"sku\":\"c\",\"note\":\"x y\"}]", "[[],{}]"};
static const char *const SNAP[] = {"2026-03-01", "2026-03-02", "1970-01-01", "2149-06-06"};
static const char *const USERS[] = {"1", "42", "9223372036854775807"};
static const char *const KEYS[11] = {"order_id", "user_id", "status", "created_at", "updated_at", "items_total",
                                     "discount", "delivery", "total", "items", "snapshot_date"};

static char g_order_id[NORD][24];
static char g_created[NORD][24]; /* TSV form */
static char g_upd_set[4][24];    /* updated_at values (TSV form): a small set, so ties happen */
static msg g_msg[MAXMSG];
static int g_nmsg;

static int days_in(int y, int m)
{
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : d[m - 1];
}

/* the wire text of a TSV timestamp: 2026-03-01 10:00:00.000 -> 2026-03-01T10:00:00.000Z */
static void wire_ts(char *out, size_t n, const char *tsv)
{
    snprintf(out, n, "%.10sT%sZ", tsv, tsv + 11);
}

static void world_init(void)
{
    for (int o = 0; o < NORD; o++) {
        snprintf(g_order_id[o], sizeof g_order_id[o], "ORD-%c%d", 'A' + rn(26), o + 1);
        int y, mo, d, h, mi, s, ms;
        if (pct(35)) { /* the contract's whole span: every created_at in its own day's partition */
            y = range(1900, 2299);
            mo = range(1, 12);
            d = range(1, days_in(y, mo));
        } else {
            y = 2026;
            mo = 2;
            d = range(1, 28);
        }
        h = rn(24), mi = rn(60), s = rn(60), ms = rn(1000);
        if (pct(10)) { /* the edges of the span */
            if (pct(50))
                y = 1900, mo = 1, d = 1, h = 0, mi = 0, s = 0, ms = 0;
            else
                y = 2299, mo = 12, d = 31, h = 23, mi = 59, s = 59, ms = 999;
        }
        sfmt(g_created[o], sizeof g_created[o], "%04d-%02d-%02d %02d:%02d:%02d.%03d", y, mo, d, h, mi, s, ms);
    }
    /* a version from before 1970 in half the schedules: a DateTime64 below zero, which order_v
     * must still rank (a max over no rows is 1970-01-01, not "no version") */
    static const char *const U[] = {"2026-03-01 10:00:00.000", "2026-03-01 10:00:00.001", "2026-03-02 00:00:00.000",
                                    "2026-03-05 23:59:59.999", "1999-12-31 23:59:59.999", "1950-06-15 12:00:00.000",
                                    "2030-01-01 00:00:00.000"};
    int base = rn(4);
    for (int i = 0; i < 4; i++)
        snprintf(g_upd_set[i], sizeof g_upd_set[i], "%s", U[base + i]);
}

/* a message's index by its bytes, added when new */
static int msg_add(const char *raw, const msg *proto)
{
    for (int i = 0; i < g_nmsg; i++)
        if (!strcmp(g_msg[i].raw, raw))
            return i;
    if (g_nmsg >= MAXMSG)
        fatal("too many messages");
    msg *m = &g_msg[g_nmsg];
    *m = *proto;
    m->raw = xstrdup(raw);
    return g_nmsg++;
}

/* the 11 values of a valid message as JSON texts, in contract order */
static void json_values(const msg *m, char v[11][128])
{
    char ts[32];
    snprintf(v[0], 128, "\"%s\"", g_order_id[m->ord]);
    snprintf(v[1], 128, "%s", m->user);
    snprintf(v[2], 128, "\"%s\"", m->status);
    wire_ts(ts, sizeof ts, m->created);
    snprintf(v[3], 128, "\"%s\"", ts);
    wire_ts(ts, sizeof ts, m->updated);
    snprintf(v[4], 128, "\"%s\"", ts);
    for (int i = 0; i < 4; i++)
        snprintf(v[5 + i], 128, "\"%s\"", m->money[i]);
    snprintf(v[9], 128, "%s", m->items);
    snprintf(v[10], 128, "\"%s\"", m->snap);
}

/* An object from keys and values: canonical minified, or spelt otherwise (keys in another
 * order, blanks), which types to the same values. */
static void json_object(buf *b, const char *const *keys, char v[][128], int n, int spelt)
{
    int order[16];
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (spelt && pct(60))
        for (int i = n - 1; i > 0; i--) {
            int j = rn(i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    int blanks = spelt && pct(50);
    if (blanks && pct(50))
        bputs(b, " ");
    bputs(b, "{");
    for (int i = 0; i < n; i++) {
        if (i)
            bputs(b, blanks ? ", " : ",");
        bprintf(b, "\"%s\":%s%s", keys[order[i]], blanks ? " " : "", v[order[i]]);
    }
    bputs(b, "}");
    if (blanks && pct(50))
        bputs(b, "\n\t");
}

/* content of a new valid version of order o (typed values); about a third repeat an earlier
 * version of the order, so re-sends of unchanged content are common */
static void version_content(msg *m, int o)
{
    memset(m, 0, sizeof *m);
    m->ord = o;
    m->cls = CLS_OK;
    int prev[MAXMSG], np = 0;
    for (int i = 0; i < g_nmsg; i++)
        if (g_msg[i].cls == CLS_OK && g_msg[i].ord == o)
            prev[np++] = i;
    if (np && pct(35)) {
        *m = g_msg[prev[rn(np)]];
        m->raw = NULL;
        if (pct(40)) /* observed again in a later snapshot: not part of the content */
            snprintf(m->snap, sizeof m->snap, "%s", SNAP[rn(4)]);
        return;
    }
    snprintf(m->user, sizeof m->user, "%s", USERS[rn(3)]);
    snprintf(m->status, sizeof m->status, "%s", STATUS[rn(5)]);
    snprintf(m->created, sizeof m->created, "%s", g_created[o]);
    snprintf(m->updated, sizeof m->updated, "%s", g_upd_set[rn(4)]);
    for (int i = 0; i < 4; i++)
        snprintf(m->money[i], sizeof m->money[i], "%s", MONEY[rn(7)]);
    snprintf(m->items, sizeof m->items, "%s", ITEMS[rn(4)]);
    snprintf(m->snap, sizeof m->snap, "%s", SNAP[rn(2)]);
}

static int gen_valid(int spelt)
{
    msg m;
    version_content(&m, rn(NORD));
    char v[11][128];
    json_values(&m, v);
    buf b = {0};
    json_object(&b, KEYS, v, 11, spelt);
    int i = msg_add(b.s, &m);
    bfree(&b);
    return i;
}

/* an invalid message of class cls, built from a valid one */
static int gen_invalid(int cls)
{
    msg m;
    version_content(&m, rn(NORD));
    char v[12][128];
    json_values(&m, v);
    const char *keys[12];
    for (int i = 0; i < 11; i++)
        keys[i] = KEYS[i];
    buf b = {0};
    msg proto = {0};
    proto.cls = cls;
    proto.ord = -1;
    if (cls == CLS_NAO) {
        static const char *const NAO[] = {"not json", "[1,2]", "\"an order\"", "{\"order_id\":\"ORD-1\",}", "",
                                          "{\"order_id\":\"ORD-1\" \"user_id\":1}"};
        int w = rn(8);
        if (w < 6) {
            bputs(&b, NAO[w]);
        } else { /* a message cut short: no prefix of an object is a JSON text */
            buf full = {0};
            json_object(&full, keys, v, 11, 0);
            bputn(&b, full.s, (size_t)range(1, (int)full.len - 1));
            bfree(&full);
        }
    } else if (cls == CLS_KEYSET) {
        int w = rn(3), n = 11;
        if (w == 0) { /* a key missing */
            int k = rn(11);
            for (int i = k; i < 10; i++) {
                keys[i] = keys[i + 1];
                memcpy(v[i], v[i + 1], 128);
            }
            n = 10;
        } else if (w == 1) { /* a key too many */
            keys[11] = "note";
            snprintf(v[11], 128, "\"late\"");
            n = 12;
        } else { /* a key twice */
            keys[11] = "status";
            snprintf(v[11], 128, "\"paid\"");
            n = 12;
        }
        json_object(&b, keys, v, n, pct(30));
    } else {
        switch (rn(7)) {
        case 0: snprintf(v[3], 128, "\"2026-02-30T10:00:00.000Z\""); break;
        case 1: snprintf(v[10], 128, "\"2026-02-30\""); break;
        case 2: snprintf(v[1], 128, "0"); break;
        case 3: snprintf(v[8], 128, "\"1.5\""); break;
        case 4: snprintf(v[6], 128, "\"-0.00\""); break;
        case 5: snprintf(v[4], 128, "\"2026-03-01T24:00:00.000Z\""); break;
        default: snprintf(v[0], 128, "\"\""); break;
        }
        json_object(&b, keys, v, 11, pct(30));
    }
    int i = msg_add(b.s, &proto);
    bfree(&b);
    return i;
}

/* ------------------------------------------------------------------------------------------ */
/* the model: what the transition promises (issue 24), written from the promise, not the SQL */
typedef struct {
    int topic, part;
    long off;
    int msg;
    int load;   /* moved by move-late */
    int load0;  /* the load it was staged under */
    int staged; /* the stage step ran */
    int seq;    /* the step that staged it */
    int after_seal; /* staged during its step's seal, after the seal's snapshot (a mid-seal row the
                     * seal did not see): staged after the freeze, though in the freeze's step */
    int64_t ts; /* _load_ts: the stage step's time, strictly increasing */
} row;

typedef struct {
    int present, msg, load;
    int64_t ts;
} version;

typedef struct {
    char id[160];
    int kind; /* K_REAL, K_TYPO, ... (the generator's business) */
    int sealed, committed, freeze_seq, staged_at_freeze;
    int has_pending, pending_unknown;
    int errs_done, gate_done; /* statements 8 and 9 completed since the freeze: 1, 0, or -1 unknown
                               * (killed inside it); the commit needs both */
    int npend, nfroz;
    int pend[MAXROW], froz[MAXROW]; /* rows: the first received copy per coordinates */
    int delta;
    long fig[NFIG];
    int folded;              /* committed: its versions folded into _rep by a later statement 7 (1),
                              * not (0), or maybe (-1: that statement was killed inside) */
    version before[NORD];    /* committed: what order_v showed before its commit */
} load;

typedef struct {
    load l[MAXLOAD];
    int nl;
    int holder; /* the load holding the lease, -1 none */
    int lease_empty; /* the lease's table exists and names nobody (a kill inside statement 2) */
    version cur[NORD];
    int ndelta;
} model;

static model M;
static row g_row[MAXROW];
static int g_nrow;
static int g_step_now; /* the step being modelled (freeze_seq) */

static int coord_eq(const row *a, const row *b) { return a->topic == b->topic && a->part == b->part && a->off == b->off; }

static int nstaged(const model *m, int L)
{
    (void)m;
    int n = 0;
    for (int r = 0; r < g_nrow; r++)
        n += g_row[r].staged && g_row[r].load == L;
    return n;
}

/* row r in the set (coordinates and bytes) */
static int in_set(int r, const int *set, int n)
{
    for (int i = 0; i < n; i++)
        if (coord_eq(&g_row[set[i]], &g_row[r]) && g_row[set[i]].msg == g_row[r].msg)
            return 1;
    return 0;
}

/* L's staged rows, one per coordinates: the first received (rows are kept in staging order) */
static int dedup(int L, int *out)
{
    int n = 0;
    for (int r = 0; r < g_nrow; r++) {
        if (!g_row[r].staged || g_row[r].load != L)
            continue;
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = coord_eq(&g_row[out[i]], &g_row[r]);
        if (!seen)
            out[n++] = r;
    }
    return n;
}

/* rows staged under a sealed L since its freeze (not in the frozen set, or a count that moved) */
static int changed(const model *m, int L)
{
    const load *l = &m->l[L];
    if (!g_late_copy_ignored && nstaged(m, L) != l->staged_at_freeze)
        return 1;
    for (int r = 0; r < g_nrow; r++)
        if (g_row[r].staged && g_row[r].load == L && !in_set(r, l->froz, l->nfroz))
            return 1;
    return 0;
}

static int valid_id(const char *id)
{
    size_t n = strlen(id);
    if (n < 1 || n > 128)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        int alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || !strchr("._:+/-", c)))
            return 0;
    }
    return 1;
}

static int content_eq(const msg *a, const msg *b)
{
    if (a->ord != b->ord || strcmp(a->user, b->user) || strcmp(a->status, b->status) ||
        strcmp(a->created, b->created) || strcmp(a->updated, b->updated) || strcmp(a->items, b->items))
        return 0;
    for (int i = 0; i < 4; i++)
        if (strcmp(a->money[i], b->money[i]))
            return 0;
    return 1;
}

/* first received: least _load_ts, then topic, partition, offset */
static int received_before(int a, int b)
{
    const row *x = &g_row[a], *y = &g_row[b];
    if (x->ts != y->ts)
        return x->ts < y->ts;
    int c = strcmp(TOPICS[x->topic], TOPICS[y->topic]);
    if (c)
        return c < 0;
    if (x->part != y->part)
        return x->part < y->part;
    return x->off < y->off;
}

/* whether L's frozen messages include an accepted (1) or a rejected (0) one */
static int frozen_has(const load *l, int accepted)
{
    for (int i = 0; i < l->nfroz; i++)
        if ((g_msg[g_row[l->froz[i]].msg].cls == CLS_OK) == accepted)
            return 1;
    return 0;
}

/* the commit of L: its figures against the ODS as it is now, and the ODS after it */
static void commit(model *m, int L)
{
    load *l = &m->l[L];
    long *f = l->fig;
    memset(f, 0, sizeof l->fig);
    f[0] = l->staged_at_freeze;
    f[1] = l->staged_at_freeze - l->nfroz;
    for (int i = 0; i < l->nfroz; i++) {
        int c = g_msg[g_row[l->froz[i]].msg].cls;
        if (c == CLS_OK)
            f[2]++;
        else
            f[6]++, f[6 + c]++;
    }
    version prior[NORD];
    memcpy(prior, m->cur, sizeof prior);
    memcpy(l->before, m->cur, sizeof l->before);
    l->folded = 0;
    int done[MAXROW] = {0};
    for (int i = 0; i < l->nfroz; i++) {
        const msg *mi = &g_msg[g_row[l->froz[i]].msg];
        if (done[i] || mi->cls != CLS_OK)
            continue;
        /* the group of (order_id, updated_at): its first received message is the version */
        int first = l->froz[i], n = 0;
        for (int j = i; j < l->nfroz; j++) {
            const msg *mj = &g_msg[g_row[l->froz[j]].msg];
            if (done[j] || mj->cls != CLS_OK || mj->ord != mi->ord || strcmp(mj->updated, mi->updated))
                continue;
            done[j] = 1;
            n++;
            if (received_before(l->froz[j], first))
                first = l->froz[j];
        }
        const msg *v = &g_msg[g_row[first].msg];
        const version *p = &prior[v->ord];
        const msg *pm = p->present ? &g_msg[p->msg] : NULL;
        if (pm && strcmp(v->updated, pm->updated) < 0) {
            f[5] += n; /* stale, every message of the group */
            continue;
        }
        if (pm && content_eq(v, pm)) {
            f[4] += n;
            continue;
        }
        f[3]++;
        f[4] += n - 1;
        version *c = &m->cur[v->ord];
        /* the newest stored version of the order; ties with the prior go to this load */
        if (c->load != L || !c->present || strcmp(v->updated, g_msg[c->msg].updated) > 0) {
            c->present = 1;
            c->msg = g_row[first].msg;
            c->load = L;
            c->ts = g_row[first].ts;
        }
    }
    l->committed = 1;
    l->delta = ++m->ndelta;
}

static int other_open(const model *m, int L)
{
    for (int i = 0; i < m->nl; i++)
        if (i != L && m->l[i].sealed && !m->l[i].committed)
            return i;
    return -1;
}

/* the staging checks of statement 3 (and, when its heading says so, of statement 1): an open load
 * needs rows, one message per coordinates and no other load frozen and not committed; a frozen
 * or committed one, no row staged since its freeze */
static int staging_problem(const model *m, int L, char *why, size_t wn)
{
    const load *l = &m->l[L];
    if (!l->sealed && !l->committed) {
        int rows[MAXROW], n = 0;
        for (int r = 0; r < g_nrow; r++)
            if (g_row[r].staged && g_row[r].load == L)
                rows[n++] = r;
        if (n == 0) {
            snprintf(why, wn, "no rows staged under %s", l->id);
            return P_FAIL;
        }
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (coord_eq(&g_row[rows[i]], &g_row[rows[j]]) && g_row[rows[i]].msg != g_row[rows[j]].msg) {
                    snprintf(why, wn, "two messages at %s/%d/%ld", TOPICS[g_row[rows[i]].topic], g_row[rows[i]].part,
                             g_row[rows[i]].off);
                    return P_FAIL;
                }
        int o = other_open(m, L);
        if (o >= 0) {
            snprintf(why, wn, "load %s is frozen and not committed", m->l[o].id);
            return P_FAIL;
        }
        return P_OK;
    }
    if (changed(m, L)) {
        snprintf(why, wn, "rows staged under %s after its freeze", l->id);
        return P_FAIL;
    }
    return P_OK;
}

/* Would statement k of load L succeed now? P_OK, P_FAIL (why says why) or P_UNSURE (after a kill
 * inside statement 4, what the freeze had written is not known). No effect. */
static int check_stmt(const model *m, int L, int k, char *why, size_t wn)
{
    const load *l = &m->l[L];
    const char *hold = m->holder >= 0 ? m->l[m->holder].id : NULL;
    why[0] = 0;
    switch (k) {
    case 1:
        if (!valid_id(l->id)) {
            snprintf(why, wn, "'%s' is not a load id", l->id);
            return P_FAIL;
        }
        if (hold || m->lease_empty) {
            snprintf(why, wn, "the lease is held by %s", hold ? hold : "nobody (its table is empty)");
            return P_FAIL;
        }
        return g_staging_first ? staging_problem(m, L, why, wn) : P_OK;
    case 2:
        if (hold || m->lease_empty) {
            snprintf(why, wn, "the lease is held by %s", hold ? hold : "nobody (its table is empty)");
            return P_FAIL;
        }
        return P_OK;
    case 12:
    case 6:
        return P_OK;
    }
    if (m->holder != L) {
        snprintf(why, wn, "the lease is %s%s", hold ? "held by " : "free", hold ? hold : "");
        return P_FAIL;
    }
    switch (k) {
    case 3:
        return staging_problem(m, L, why, wn);
    case 4:
    case 11:
        return P_OK;
    case 5:
        if (l->sealed)
            return P_OK;
        if (l->pending_unknown)
            return P_UNSURE;
        for (int r = 0; r < g_nrow; r++)
            if (g_row[r].staged && g_row[r].load == L && !(l->has_pending && in_set(r, l->pend, l->npend))) {
                snprintf(why, wn, "rows staged under %s since its statement 4", l->id);
                return P_FAIL;
            }
        return P_OK;
    case 7: /* the fold concerns committed loads only: the lease is enough */
        return P_OK;
    case 8:
    case 9:
    case 10:
        if (!l->sealed) {
            snprintf(why, wn, "%s is not frozen", l->id);
            return P_FAIL;
        }
        if (k == 10 && changed(m, L)) {
            snprintf(why, wn, "rows staged under %s after its freeze", l->id);
            return P_FAIL;
        }
        if (k == 10 && !l->committed) {
            /* the commit refuses a load whose errors or fates are not all written: it counts
             * them against the manifest's rejected and accepted messages, so statement 8 is
             * needed only for a load with a rejected message, 9 only for one with an accepted
             * one (nothing to write, nothing missing: soak seed 3820058) */
            int errs = frozen_has(l, 0) ? l->errs_done : 1, gate = frozen_has(l, 1) ? l->gate_done : 1;
            if (errs == 0 || gate == 0) {
                snprintf(why, wn, "statement %d has not completed for %s since its freeze", errs ? 9 : 8, l->id);
                return P_FAIL;
            }
            if (errs < 0 || gate < 0)
                return P_UNSURE;
        }
        return P_OK;
    }
    return P_OK;
}

/* the effect of statement k of L having succeeded */
static void apply_stmt(model *m, int L, int k)
{
    load *l = &m->l[L];
    switch (k) {
    case 2:
        m->holder = L;
        break;
    case 4:
        if (!l->sealed) {
            l->npend = dedup(L, l->pend);
            l->has_pending = 1;
            l->pending_unknown = 0;
        }
        break;
    case 5:
        if (!l->sealed) {
            l->sealed = 1;
            if (l->pending_unknown || !l->has_pending)
                l->nfroz = dedup(L, l->froz);
            else
                memcpy(l->froz, l->pend, sizeof l->froz), l->nfroz = l->npend;
            l->staged_at_freeze = nstaged(m, L);
            l->freeze_seq = g_step_now;
            for (int r = 0; r < g_nrow; r++) /* a seal sees every row staged before it */
                if (g_row[r].load == L)
                    g_row[r].after_seal = 0;
            l->errs_done = l->gate_done = 0;
        }
        break;
    case 7:
        /* the fold: every committed load's versions into _rep (one that stored none has nothing);
         * like every writing statement, not in a committed load's rerun */
        if (l->committed)
            break;
        for (int i = 0; i < m->nl; i++)
            if (m->l[i].committed && m->l[i].fig[3] > 0)
                m->l[i].folded = 1;
        break;
    case 8:
        l->errs_done = 1;
        break;
    case 9:
        l->gate_done = 1;
        break;
    case 10:
        if (!l->committed)
            commit(m, L);
        break;
    case 12:
        m->holder = -1;
        m->lease_empty = 0;
        break;
    }
}

/* abandon (a procedure under the lease): fails at its statement 1, taking no lease, when the
 * lease is held or the load is committed; else the load is as if never run: no manifest, no
 * freeze, no fates, no errors */
static int model_abandon(model *m, int L, char *why, size_t wn)
{
    if (!valid_id(m->l[L].id)) {
        snprintf(why, wn, "'%s' is not a load id", m->l[L].id);
        return 1;
    }
    if (m->holder >= 0 || m->lease_empty) {
        snprintf(why, wn, "the lease is held by %s", m->holder >= 0 ? m->l[m->holder].id : "nobody");
        return 1;
    }
    if (m->l[L].committed) {
        snprintf(why, wn, "%s is committed", m->l[L].id);
        return 1;
    }
    load *l = &m->l[L];
    l->sealed = l->has_pending = l->pending_unknown = 0;
    l->npend = l->nfroz = l->staged_at_freeze = 0;
    l->errs_done = l->gate_done = 0;
    return 0;
}

/* take-back (a procedure under the lease): the latest committed load, while no later statement 7
 * has folded its versions and no other load is open, goes back: order_v shows what it showed
 * before its commit, the ledger loses its row, and the load is as if never run (its staged rows
 * stay). A frozen load not committed is removed as abandon removes it. Fails at its statement 1,
 * taking no lease, otherwise. (The generator plans none while the fold is unknown.) */
static int model_take_back(model *m, int L, char *why, size_t wn)
{
    load *l = &m->l[L];
    if (!valid_id(l->id)) {
        snprintf(why, wn, "'%s' is not a load id", l->id);
        return 1;
    }
    if (m->holder >= 0 || m->lease_empty) {
        snprintf(why, wn, "the lease is held by %s", m->holder >= 0 ? m->l[m->holder].id : "nobody");
        return 1;
    }
    if (l->committed) {
        if (l->delta != m->ndelta) {
            snprintf(why, wn, "%s is not the latest committed load", l->id);
            return 1;
        }
        if (l->folded) {
            snprintf(why, wn, "the versions of %s are folded", l->id);
            return 1;
        }
        int o = other_open(m, L);
        if (o >= 0) {
            snprintf(why, wn, "load %s is frozen and not committed", m->l[o].id);
            return 1;
        }
        memcpy(m->cur, l->before, sizeof m->cur);
        m->ndelta--;
        l->committed = 0;
        l->delta = 0;
        memset(l->fig, 0, sizeof l->fig);
    } else if (!l->sealed) {
        snprintf(why, wn, "%s is not committed", l->id);
        return 1;
    }
    l->sealed = l->has_pending = l->pending_unknown = 0;
    l->npend = l->nfroz = l->staged_at_freeze = 0;
    l->errs_done = l->gate_done = 0;
    return 0;
}

/* move-late: the rows staged under the frozen L after its freeze go to T (coordinates and
 * _load_ts kept); fails at its statement 1, taking no lease, when the lease is held, L is not
 * frozen or T is not a new load id */
static int model_move(model *m, int L, int T, char *why, size_t wn)
{
    if (!valid_id(m->l[L].id)) {
        snprintf(why, wn, "'%s' is not a load id", m->l[L].id);
        return 1;
    }
    if (m->holder >= 0 || m->lease_empty) {
        snprintf(why, wn, "the lease is held by %s", m->holder >= 0 ? m->l[m->holder].id : "nobody");
        return 1;
    }
    if (!m->l[L].sealed || !valid_id(m->l[T].id) || T == L || m->l[T].sealed || m->l[T].committed) {
        snprintf(why, wn, "%s is not frozen, or %s is not a new load", m->l[L].id, m->l[T].id);
        return 1;
    }
    for (int r = 0; r < g_nrow; r++)
        if (g_row[r].staged && g_row[r].load == L && (g_row[r].seq > m->l[L].freeze_seq || g_row[r].after_seal) &&
            !(g_late_copy_ignored && in_set(r, m->l[L].froz, m->l[L].nfroz)))
            g_row[r].load = T, g_row[r].after_seal = 0;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the expected state after a step, as the reads print it (tagged TSV lines, sorted; 'e' lines
 * are error rows that may or may not be there yet: those of a frozen load not committed) */
static void hex(buf *b, const char *s)
{
    static const char H[] = "0123456789ABCDEF";
    for (; *s; s++) {
        char t[2] = {H[(unsigned char)*s >> 4], H[(unsigned char)*s & 15]};
        bputn(b, t, 2);
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
    char **v;
    int n, cap;
} lines;
static void lines_add(lines *ls, const char *s, size_t n)
{
    if (ls->n == ls->cap) {
        ls->cap = ls->cap ? ls->cap * 2 : 32;
        ls->v = realloc(ls->v, (size_t)ls->cap * sizeof *ls->v);
        if (!ls->v)
            fatal("out of memory");
    }
    char *t = malloc(n + 1);
    if (!t)
        fatal("out of memory");
    memcpy(t, s, n);
    t[n] = 0;
    ls->v[ls->n++] = t;
}
static void lines_free(lines *ls)
{
    for (int i = 0; i < ls->n; i++)
        free(ls->v[i]);
    free(ls->v);
    memset(ls, 0, sizeof *ls);
}
static void lines_split(lines *ls, const char *text)
{
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        lines_add(ls, p, n);
        p += n + (e ? 1 : 0);
    }
}

static char *render_expected(const model *m)
{
    lines ls = {0};
    buf b = {0};
    for (int o = 0; o < NORD; o++) {
        const version *v = &m->cur[o];
        if (!v->present)
            continue;
        const msg *x = &g_msg[v->msg];
        char ts[32];
        fmt_ts(ts, sizeof ts, v->ts);
        b.len = 0;
        bprintf(&b, "V\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", g_order_id[o], x->user, x->status,
                x->created, x->updated, x->money[0], x->money[1], x->money[2], x->money[3], x->items, x->snap,
                m->l[v->load].id, ts);
        lines_add(&ls, b.s, b.len);
    }
    for (int L = 0; L < m->nl; L++) {
        const load *l = &m->l[L];
        if (l->committed) {
            b.len = 0;
            bprintf(&b, "L\t%d\t%s", l->delta, l->id);
            for (int i = 0; i < NFIG; i++)
                bprintf(&b, "\t%ld", l->fig[i]);
            lines_add(&ls, b.s, b.len);
        }
        if (l->sealed) {
            b.len = 0;
            bprintf(&b, "F\t%s", l->id);
            lines_add(&ls, b.s, b.len);
            for (int i = 0; i < l->nfroz; i++) {
                const row *r = &g_row[l->froz[i]];
                const msg *x = &g_msg[r->msg];
                if (x->cls == CLS_OK)
                    continue;
                b.len = 0;
                bprintf(&b, "%c\t%s\t%s\t%d\t%ld\t%s\t", l->committed ? 'E' : 'e', l->id, TOPICS[r->topic], r->part,
                        r->off, CLS_NAME[x->cls]);
                hex(&b, x->raw);
                lines_add(&ls, b.s, b.len);
            }
        }
    }
    if (m->holder >= 0) {
        b.len = 0;
        bprintf(&b, "H\t%s", m->l[m->holder].id);
        lines_add(&ls, b.s, b.len);
    }
    if (m->holder >= 0 || m->lease_empty)
        lines_add(&ls, "T\tlease", 7);
    lines_add(&ls, "P\t0", 3);
    qsort(ls.v, (size_t)ls.n, sizeof *ls.v, cmp_str);
    b.len = 0;
    for (int i = 0; i < ls.n; i++) {
        bputs(&b, ls.v[i]);
        bputs(&b, "\n");
    }
    lines_free(&ls);
    return b.s ? b.s : xstrdup("");
}

static const char *section_name(char tag)
{
    switch (tag) {
    case 'V': return "order_v";
    case 'L': return "ledger";
    case 'E':
    case 'e': return "errors";
    case 'H': return "lease";
    case 'T': return "the lease's table";
    case 'F': return "frozen";
    case 'P': return "rows outside their created_at day's partition";
    }
    return "reads";
}

static void clip(buf *b, const char *s)
{
    size_t n = strlen(s);
    if (n > 400) {
        bputn(b, s, 400);
        bputs(b, "…");
    } else {
        bputs(b, s);
    }
}

/* Compares what the reads printed with the expected state; on a difference, says what differed
 * (missing and unexpected lines of the first section that differs). 0 when equal. */
static int compare_state(const char *expected, const char *actual, int noview, buf *why)
{
    lines e = {0}, a = {0};
    lines_split(&e, expected);
    if (noview) {
        int n = 0;
        for (int i = 0; i < e.n; i++)
            if (e.v[i][0] == 'V')
                free(e.v[i]);
            else
                e.v[n++] = e.v[i];
        e.n = n;
    }
    lines_split(&a, actual);
    qsort(a.v, (size_t)a.n, sizeof *a.v, cmp_str);
    int bad = 0;
    /* an error row recorded twice */
    for (int i = 1; i < a.n && !bad; i++)
        if (a.v[i][0] == 'E' && !strcmp(a.v[i], a.v[i - 1])) {
            bprintf(why, "errors: a row recorded twice: ");
            clip(why, a.v[i]);
            bad = 1;
        }
    /* every expected line but 'e' once; 'e' lines may appear as 'E' lines */
    char *used = calloc((size_t)a.n + 1, 1);
    for (int i = 0; i < e.n && !bad; i++) {
        const char *x = e.v[i];
        int opt = x[0] == 'e', found = 0;
        for (int j = 0; j < a.n && !found; j++) {
            if (used[j])
                continue;
            if (opt ? a.v[j][0] == 'E' && !strcmp(a.v[j] + 1, x + 1) : !strcmp(a.v[j], x))
                used[j] = 1, found = 1;
        }
        if (!found && !opt) {
            bprintf(why, "%s: missing ", section_name(x[0]));
            clip(why, x);
            /* the line of the same section that is there instead, if any */
            for (int j = 0; j < a.n; j++)
                if (!used[j] && a.v[j][0] == x[0]) {
                    int expected_too = 0;
                    for (int k = 0; k < e.n && !expected_too; k++)
                        expected_too = !strcmp(e.v[k], a.v[j]);
                    if (expected_too)
                        continue;
                    bprintf(why, "; there instead: ");
                    clip(why, a.v[j]);
                    break;
                }
            bad = 1;
        }
    }
    for (int j = 0; j < a.n && !bad; j++)
        if (!used[j]) {
            bprintf(why, "%s: unexpected ", section_name(a.v[j][0]));
            clip(why, a.v[j]);
            bad = 1;
        }
    free(used);
    lines_free(&e);
    lines_free(&a);
    return bad;
}

/* ------------------------------------------------------------------------------------------ */
/* steps: what the generator plans and the executor runs */
typedef struct {
    int op, load, load2, a, b, delay, table, solo, proc;
    int from_spawn;      /* kill: the delay counts from the spawn (1), from the end of the first INSERT
                          * of a statement in pieces, the freeze or the gate (2), or from the
                          * statement's start (0) */
    int nrows, kinds[8]; /* stage: how many rows, and what kind each is (R_...) */
    int row0;            /* stage: its rows in g_row, once generated; mid-copy: its copy */
    int midcopy;         /* run of statement 4 alone: a copy of one of the load's staged rows goes
                          * through a Buffer table, which flushes it into staging about a second
                          * after it was written, pre_ms before the statement starts, each table
                          * snapshot the statement takes slowed by snap_ms (mid_sql) */
    int midseal;         /* run of statement 5 alone: a new row of the load goes through the Buffer
                          * likewise, while the seal runs (mid_sql) */
    int pre_ms, snap_ms;
    int one;             /* run/kill: the freeze and the gate as one INSERT each (--mixed-cuts) */
    /* outcome */
    int stop_k;   /* run/kill: the statement it stopped at (0: ran to its end) */
    int killed;   /* kill: 0 exited by itself, 1 before the statement, 2 inside it, 3 after it */
    int noview;   /* its reads leave order_v out (reads_view) */
    char *exp;    /* the expected state after it */
    char desc[320];
} step;

static step g_step[MAXSTEP];
static int g_nstep;

enum { R_NEW, R_SPELT, R_RESEND, R_REDELIVER, R_CONFLICT, R_NAO, R_KEYSET, R_FIELD, R_NKINDS };

/* coordinates: a fresh offset per topic and partition */
static long g_next_off[2][3];

static void gen_rows(step *s)
{
    s->row0 = g_nrow;
    for (int i = 0; i < s->nrows; i++) {
        if (g_nrow >= MAXROW)
            fatal("too many rows");
        row *r = &g_row[g_nrow];
        memset(r, 0, sizeof *r);
        r->load = r->load0 = s->load;
        r->seq = (int)(s - g_step);
        int kind = s->kinds[i];
        /* a row staged earlier (of this load preferably), for the kinds that need one */
        int earlier[MAXROW], ne = 0, mine[MAXROW], nm = 0;
        for (int q = 0; q < g_nrow; q++) {
            /* a redelivery may repeat a row of the same batch; other bytes at the same coordinates
             * come in a later batch (within one, "first received" would be a tie) */
            if (g_row[q].seq == r->seq && kind != R_REDELIVER)
                continue;
            earlier[ne++] = q;
            if (g_row[q].load == s->load)
                mine[nm++] = q;
        }
        if ((kind == R_RESEND || kind == R_REDELIVER || kind == R_CONFLICT) && ne == 0)
            kind = R_NEW;
        if (kind == R_REDELIVER && g_avoid_latecopy && (M.l[s->load].sealed || M.l[s->load].committed))
            kind = R_NEW;
        int base = nm && pct(80) ? mine[rn(nm)] : ne ? earlier[rn(ne)] : -1;
        switch (kind) {
        case R_NEW: r->msg = gen_valid(0); break;
        case R_SPELT: r->msg = gen_valid(1); break;
        case R_RESEND: r->msg = g_row[base].msg; break;
        case R_REDELIVER:
        case R_CONFLICT:
            r->topic = g_row[base].topic;
            r->part = g_row[base].part;
            r->off = g_row[base].off;
            r->msg = g_row[base].msg;
            if (kind == R_CONFLICT)
                while (r->msg == g_row[base].msg)
                    r->msg = pct(70) ? gen_valid(pct(30)) : gen_invalid(1 + rn(3));
            g_nrow++;
            continue;
        case R_NAO: r->msg = gen_invalid(CLS_NAO); break;
        case R_KEYSET: r->msg = gen_invalid(CLS_KEYSET); break;
        default: r->msg = gen_invalid(CLS_FIELD); break;
        }
        r->topic = pct(80) ? 0 : 1;
        r->part = rn(3);
        r->off = g_next_off[r->topic][r->part]++;
        g_nrow++;
    }
}

/* a mid-copy's row: a copy (coordinates and bytes) of one of its load's staged rows; none staged,
 * the step is a plain run of statement 4 */
static void gen_copy(step *s)
{
    int mine[MAXROW], nm = 0;
    for (int q = 0; q < g_nrow; q++)
        if (g_row[q].staged && g_row[q].load == s->load)
            mine[nm++] = q;
    if (!nm || g_nrow >= MAXROW) {
        s->midcopy = 0;
        return;
    }
    const row *base = &g_row[mine[rn_mid(nm)]];
    row *r = &g_row[g_nrow];
    memset(r, 0, sizeof *r);
    r->topic = base->topic;
    r->part = base->part;
    r->off = base->off;
    r->msg = base->msg;
    r->load = r->load0 = s->load;
    r->seq = (int)(s - g_step);
    s->row0 = g_nrow++;
    s->nrows = 1;
}

/* ------------------------------------------------------------------------------------------ */
/* the generator: weighted operations chosen on the modelled state, biased towards commits and
 * towards the dangerous sequences (late rows, zombies, kills in 4, 5, 9, 10) */
enum { K_REAL, K_TYPO, K_EMPTY, K_INVALID, K_NOROWS, K_NEW };

static step g_plan[MAXPLAN];
static int g_plan_n, g_plan_head;
static int g_steps_max, g_finishing;
static int g_nreal;
static int g_proc_next = 1;
static char g_proc_dead[1024];
static int g_stop_at[MAXLOAD]; /* where the last run of a load stopped: 0 none/finished, k */

static int add_load(const char *id, int kind)
{
    if (M.nl >= MAXLOAD)
        return -1;
    load *l = &M.l[M.nl];
    memset(l, 0, sizeof *l);
    snprintf(l->id, sizeof l->id, "%s", id);
    l->kind = kind;
    return M.nl++;
}

static int load_of_kind(int kind)
{
    for (int i = 0; i < M.nl; i++)
        if (M.l[i].kind == kind)
            return i;
    char id[160];
    switch (kind) {
    case K_TYPO: sfmt(id, sizeof id, "%s-typo", M.l[0].id); break;
    case K_EMPTY: id[0] = 0; break;
    case K_INVALID: {
        static const char *const BAD[] = {"bad id", "-L1", "L1;DROP", "ünicode"};
        int w = rn(5);
        if (w < 4)
            snprintf(id, sizeof id, "%s", BAD[w]);
        else { /* 129 characters: one too many */
            memset(id, 'x', 129);
            id[129] = 0;
        }
        break;
    }
    case K_NOROWS: snprintf(id, sizeof id, "never-staged.%d", rn(100)); break;
    default: snprintf(id, sizeof id, "late+%d", M.nl); break;
    }
    return add_load(id, kind);
}

static step *plan(int op, int L)
{
    if (g_plan_n >= MAXPLAN)
        return NULL;
    step *s = &g_plan[g_plan_n++];
    memset(s, 0, sizeof *s);
    s->op = op;
    s->load = L;
    s->proc = g_proc_next++;
    s->solo = pct(4);
    s->one = g_mixed && rn_cut(2);
    return s;
}

/* Does step s run the freeze or the gate, whose cut --mixed-cuts draws? */
static int through_cut(const step *s)
{
    if (s->op == OP_RUN)
        return !s->midcopy && !s->midseal && s->a <= 9 && s->b >= 4;
    return s->op == OP_KILL && (s->a == 4 || s->a == 9);
}

/* statement k as step s runs it: in its cut */
static const char *stmt_of(const step *s, int k)
{
    if (s->one && k == 4)
        return g_freeze1;
    if (s->one && k == 9)
        return g_gate1;
    return g_stmt[k];
}

static void plan_run(int L, int a, int b)
{
    step *s = plan(OP_RUN, L);
    if (s)
        s->a = a, s->b = b;
}

static void plan_stage(int L, int late)
{
    step *s = plan(OP_STAGE, L);
    if (!s)
        return;
    s->nrows = late ? range(1, 2) : range(1, 5);
    static const int W[R_NKINDS] = {40, 10, 10, 12, 3, 6, 5, 6};
    for (int i = 0; i < s->nrows; i++)
        s->kinds[i] = pick(W, R_NKINDS);
    if (late && pct(50)) /* a late row at a frozen coordinate: redelivered, or other bytes */
        s->kinds[0] = pct(50) ? R_REDELIVER : R_CONFLICT;
}

/* L's statements 1 to k-1, then statement k alone with a row staged through the Buffer while it
 * runs (mid_sql), then the rest: one process, the later steps left out when an earlier one fails.
 * The middle step, for the caller to say what it stages and when (NULL: the plan is full). */
static step *plan_mid(int L, int k)
{
    step *s = plan(OP_RUN, L);
    if (!s)
        return NULL;
    s->a = 1, s->b = k - 1;
    int proc = s->proc;
    step *m = plan(OP_RUN, L);
    if (!m)
        return NULL;
    m->a = m->b = k;
    m->proc = proc;
    m->solo = 0;
    s = plan(OP_RUN, L);
    if (s)
        s->a = k + 1, s->b = NSTMT, s->proc = proc, s->solo = 0;
    return m;
}

/* the freeze with a copy of one of L's staged rows staged during it */
static void plan_midcopy(int L)
{
    step *m = plan_mid(L, 4);
    if (!m)
        return;
    m->midcopy = 1;
    m->pre_ms = 500 + rn_mid(701);
    m->snap_ms = 100 + rn_mid(151);
}

/* the seal with a new row of L staged during it */
static void plan_midseal(int L)
{
    step *m = plan_mid(L, 5);
    if (!m)
        return;
    m->midseal = 1;
    m->nrows = 1;
    static const int K[] = {R_NEW, R_NEW, R_SPELT, R_NAO, R_KEYSET, R_FIELD};
    m->kinds[0] = K[rn_seal((int)(sizeof K / sizeof *K))];
    /* wider than a mid-copy's: some rows land before the seal (the Buffer flushes about 2 s
     * after the write), some after a seal left fast */
    m->pre_ms = 300 + rn_seal(2701);
    m->snap_ms = rn_seal(251);
}

static int kill_stmt(void)
{
    int w[NSTMT + 1] = {0, 3, 6, 5, 14, 14, 3, 5, 5, 14, 14, 3, 5};
    for (int k = 1; k <= NSTMT; k++)
        if (g_avoid_kill >> k & 1)
            w[k] = 0;
    int k = pick(w, NSTMT + 1);
    return k > 0 ? k : 4;
}

static void plan_kill(int L, int k)
{
    if (k > 1)
        plan_run(L, 1, k - 1);
    step *s = plan(OP_KILL, L);
    if (!s)
        return;
    s->a = k;
    s->solo = 1;
}

/* the first real load not committed, or -1 */
static int current_load(void)
{
    for (int i = 0; i < g_nreal; i++)
        if (!M.l[i].committed)
            return i;
    return -1;
}

/* A repair of load L (abandon, take-back): the lease cleared first, clear_pct times in a hundred
 * when someone holds it (else the repair is refused, as predicted), then half the time L run
 * again. */
static void plan_repair(int op, int L, int clear_pct)
{
    if ((M.holder >= 0 || M.lease_empty) && pct(clear_pct))
        plan(OP_CLEAR, -1);
    plan(op, L);
    if (pct(50))
        plan_run(L, 1, NSTMT);
}

static void choose_op(void)
{
    int c = current_load();
    if (c >= 0 && nstaged(&M, c) == 0 && !M.l[c].sealed) {
        plan_stage(c, 0);
        /* (sabotaged: its freeze meets a copy, or its seal a new row) */
        if (pct(60) && g_sabotage != SAB_NO_SHARED && g_sabotage != SAB_SPLIT_SEAL)
            plan_run(c, 1, NSTMT);
        return;
    }
    /* a copy staged during the freeze: now and then where a load is staged and not frozen (with
     * the shared snapshot sabotaged, every time) */
    if (c >= 0 && !M.l[c].sealed && nstaged(&M, c) > 0 && (g_sabotage == SAB_NO_SHARED || rn_mid(100) < 5)) {
        if (M.holder >= 0 || M.lease_empty)
            plan(OP_CLEAR, -1);
        plan_midcopy(c);
        return;
    }
    /* a new row staged during the seal: likewise (with the seal split by the sabotage, every
     * time) */
    if (c >= 0 && !M.l[c].sealed && nstaged(&M, c) > 0 &&
        (g_sabotage == SAB_SPLIT_SEAL || rn_seal(100) < 5)) {
        if (M.holder >= 0 || M.lease_empty)
            plan(OP_CLEAR, -1);
        plan_midseal(c);
        return;
    }
    int sealed_open = other_open(&M, -1);
    int any_sealed = -1, any_stopped = -1, late_load = -1, other = -1;
    for (int i = 0; i < M.nl; i++) {
        if (M.l[i].sealed && (any_sealed < 0 || pct(50)))
            any_sealed = i;
        if (g_stop_at[i] && (any_stopped < 0 || pct(50)))
            any_stopped = i;
        if (M.l[i].sealed && changed(&M, i))
            late_load = i;
    }
    for (int i = 0; i < g_nreal; i++)
        if (i != c && !M.l[i].committed && (other < 0 || pct(50)))
            other = i;
    /* the latest committed load, for take-back (none while a fold cut short leaves it unknown) */
    int latest = -1;
    for (int i = 0; i < M.nl; i++)
        if (M.l[i].committed && M.l[i].delta == M.ndelta)
            latest = i;
    int takeable = latest >= 0 && M.l[latest].folded >= 0;
    enum { W_STAGE, W_RUN, W_PREFIX, W_KILL, W_CONT, W_INTER, W_OPT, W_CLEAR, W_ABANDON, W_LATE, W_MOVE, W_TAKE,
           W_WEIRD, W_N };
    int w[W_N] = {0};
    w[W_STAGE] = c >= 0 && !M.l[c].sealed ? 12 : 0;
    w[W_RUN] = c >= 0 ? 22 : 2;
    w[W_PREFIX] = c >= 0 ? 9 : 0;
    w[W_KILL] = c >= 0 ? 22 : 3;
    w[W_CONT] = any_stopped >= 0 ? 14 : 0;
    w[W_INTER] = c >= 0 && other >= 0 ? 10 : 0;
    w[W_OPT] = 5;
    w[W_CLEAR] = M.holder >= 0 || M.lease_empty ? 16 : 1;
    w[W_ABANDON] = sealed_open >= 0 ? 5 : any_sealed >= 0 ? 1 : 0;
    w[W_LATE] = any_sealed >= 0 ? 6 : 0;
    w[W_MOVE] = late_load >= 0 && g_move ? 14 : 0;
    w[W_TAKE] = takeable && g_take_back ? 6 : 0;
    w[W_WEIRD] = 4;
    if (!g_abandon)
        w[W_ABANDON] = 0;
    int L = c >= 0 ? c : rn(g_nreal);
    switch (pick(w, W_N)) {
    case W_STAGE:
        plan_stage(L, 0);
        break;
    case W_RUN:
        if (M.holder >= 0 && M.holder != L && pct(70))
            plan(OP_CLEAR, -1);
        plan_run(L, 1, NSTMT);
        break;
    case W_PREFIX: {
        static const int W[NSTMT] = {0, 2, 3, 8, 10, 5, 5, 8, 9, 8, 3, 1};
        plan_run(L, 1, pick(W, NSTMT));
        break;
    }
    case W_KILL: {
        if ((M.holder >= 0 || M.lease_empty) && pct(80))
            plan(OP_CLEAR, -1);
        int k = kill_stmt();
        plan_kill(L, k);
        if (pct(50)) { /* the continuation: a zombie at the killed statement, or a retry */
            if (pct(50) && !(k == NSTMT && g_avoid_from12))
                plan_run(L, k, NSTMT);
            else {
                plan(OP_CLEAR, -1);
                plan_run(L, 1, NSTMT);
            }
        }
        break;
    }
    case W_CONT: {
        int k = g_stop_at[any_stopped];
        int w3[3] = {k == NSTMT && g_avoid_from12 ? 0 : 45, 35, 20};
        switch (pick(w3, 3)) {
        case 0: plan_run(any_stopped, k, NSTMT); break;
        case 1:
            plan(OP_CLEAR, -1);
            plan_run(any_stopped, 1, NSTMT);
            break;
        default: plan_run(any_stopped, 1, NSTMT); break;
        }
        break;
    }
    case W_INTER: {
        /* two loads, statement by statement in chunks, each chunk its own run */
        if (nstaged(&M, other) == 0)
            plan_stage(other, 0);
        if (M.holder >= 0 || M.lease_empty)
            plan(OP_CLEAR, -1);
        int na = 1, nb = 1, pa = g_proc_next++, pb = g_proc_next++;
        while (na <= NSTMT || nb <= NSTMT) {
            int useA = nb > NSTMT || (na <= NSTMT && pct(50));
            int *n = useA ? &na : &nb;
            int len = pct(40) ? 1 : range(1, 5);
            int e = *n + len - 1 > NSTMT ? NSTMT : *n + len - 1;
            if (e == NSTMT - 1 && g_avoid_from12)
                e = NSTMT;
            if ((na > 1 || nb > 1) && pct(15))
                plan(OP_CLEAR, -1); /* the operator takes the other run for dead */
            step *s = plan(OP_RUN, useA ? L : other);
            if (!s)
                break;
            s->a = *n;
            s->b = e;
            s->proc = useA ? pa : pb;
            *n = e + 1;
        }
        break;
    }
    case W_OPT: {
        step *s = plan(OP_OPTIMIZE, -1);
        if (s)
            s->table = rn(2);
        break;
    }
    case W_CLEAR:
        plan(OP_CLEAR, -1);
        if (pct(50) && any_stopped >= 0)
            plan_run(any_stopped, 1, NSTMT);
        break;
    case W_ABANDON:
        plan_repair(OP_ABANDON, sealed_open >= 0 ? sealed_open : any_sealed, 80);
        break;
    case W_LATE:
        plan_stage(any_sealed, 1);
        if (pct(40)) {
            if (M.holder >= 0 || M.lease_empty)
                plan(OP_CLEAR, -1);
            plan_run(any_sealed, 1, NSTMT);
        }
        break;
    case W_MOVE: {
        int T = -1;
        for (int i = 0; i < g_nreal && T < 0; i++)
            if (!M.l[i].sealed && !M.l[i].committed && i != late_load && pct(60))
                T = i;
        if (T < 0)
            T = load_of_kind(K_NEW);
        if (T < 0)
            break;
        if (M.holder >= 0 || M.lease_empty)
            plan(OP_CLEAR, -1);
        step *s = plan(OP_MOVE, late_load);
        if (s)
            s->load2 = T;
        if (pct(60) && !M.l[late_load].committed)
            plan_run(late_load, 1, NSTMT);
        plan_run(T, 1, NSTMT);
        break;
    }
    case W_TAKE: {
        /* mostly the latest committed load; now and then an older one or a frozen one not committed */
        int T = latest;
        if (pct(20)) {
            for (int i = 0; i < M.nl; i++)
                if (i != latest && (M.l[i].committed || M.l[i].sealed) && pct(50))
                    T = i;
        }
        plan_repair(OP_TAKE_BACK, T, 85);
        break;
    }
    default: {
        int kinds[] = {K_EMPTY, K_INVALID, K_NOROWS, K_TYPO};
        int kind = kinds[rn(4)];
        int W = load_of_kind(kind);
        if (W < 0)
            break;
        if (kind == K_TYPO) {
            plan_stage(W, 0);
            break;
        }
        if (kind == K_NOROWS && (M.holder >= 0 || M.lease_empty))
            plan(OP_CLEAR, -1);
        plan_run(W, 1, NSTMT);
        break;
    }
    }
}

/* the next step, or -1 when the schedule is complete */
static int gen_next(void)
{
    for (;;) {
        while (g_plan_head < g_plan_n) {
            step *p = &g_plan[g_plan_head++];
            if (p->proc < (int)sizeof g_proc_dead && g_proc_dead[p->proc])
                continue;
            if (g_nstep >= MAXSTEP - 1)
                return -1;
            step *s = &g_step[g_nstep];
            *s = *p;
            /* --avoid nogate: a run resumed past the errors (8) or the gate (9) goes back to the
             * fold when they have not completed since the freeze */
            if (g_avoid_nogate && (s->op == OP_RUN || s->op == OP_KILL) && s->load >= 0 && M.l[s->load].sealed &&
                !M.l[s->load].committed &&
                ((s->a > 8 && M.l[s->load].errs_done != 1) || (s->a > 9 && M.l[s->load].gate_done != 1))) {
                if (s->op == OP_KILL) /* no kill then: the run from the fold */
                    s->op = OP_RUN, s->b = NSTMT, s->solo = 0;
                s->a = 7;
            }
            if (s->op == OP_STAGE)
                gen_rows(s);
            if (s->midcopy)
                gen_copy(s);
            if (s->midseal)
                gen_rows(s);
            return g_nstep++;
        }
        g_plan_n = g_plan_head = 0;
        if (g_nstep >= MAXSTEP - 40)
            return -1;
        if (g_nstep >= g_steps_max) {
            /* most schedules should commit two loads or more: a few steps more to get there */
            int c = current_load();
            if (M.ndelta >= 2 || c < 0 || g_nstep >= g_steps_max + 6 || g_finishing++ >= 2)
                return -1;
            if (M.holder >= 0 || M.lease_empty)
                plan(OP_CLEAR, -1);
            if (nstaged(&M, c) == 0 && !M.l[c].sealed)
                plan_stage(c, 0);
            plan_run(c, 1, NSTMT);
            continue;
        }
        choose_op();
    }
}

/* ------------------------------------------------------------------------------------------ */
/* the executor: SQL files, one chlocal process each, markers and reads written with INTO OUTFILE
 * (kept even when a later statement fails or the process is killed) */
static char g_dir[4096], g_db[4096], g_out[4096];
static long g_out_off;
static int g_nproc;
static buf g_repro;  /* the steps run, for the reproduction file */
static buf g_replay; /* replay.sh: the processes again, in order */
static buf g_log;   /* --verbose */
static int g_first_process = 1;
static double g_dur_est[NSTMT + 1];
static double g_cpu; /* CPU time of the chlocal processes (user + system) */
/* where it went: processes running transition statements past the lease, other processes of
 * steps and reads, killed processes, the reads after a kill */
static double g_cpu_kind[4];
static int g_nproc_kind[4];
/* figures */
static int g_kills[4], g_unsure, g_pred_fail;
/* coverage counters, summed over schedules: what the schedules actually exercised */
#define NOPS ((int)(sizeof OP_NAME / sizeof OP_NAME[0]))
enum { CV_OP = 0, CV_FAIL_AT = CV_OP + 8, CV_KILL_TOOK = CV_FAIL_AT + NSTMT + 1, CV_KILL_NOT = CV_KILL_TOOK + NSTMT + 1,
       CV_STORED = CV_KILL_NOT + NSTMT + 1, CV_UNCHANGED, CV_STALE, CV_REDELIVERED, CV_REJECTED, CV_MOVED, CV_TAKEN,
       CV_FAULT, CV_KILL_PIECE, CV_KILL_PIECE4, CV_MID_BEFORE, CV_MID_IN, CV_MID_AFTER, CV_SEAL_BEFORE,
       CV_SEAL_IN_REFUSED, CV_SEAL_IN_SEALED, CV_SEAL_AFTER, CV_CUT_ONE, CV_CUT_PIECES, CV_N };
_Static_assert(CV_FAIL_AT - CV_OP >= NOPS, "a coverage counter per operation");
static long g_cov[CV_N];

static void outfile(buf *b)
{
    bputs(b, " INTO OUTFILE ");
    bsql(b, g_out);
    bputs(b, " APPEND FORMAT TSV;\n");
}

static void sql_marker(buf *b, const char *tag, int i, int k)
{
    bprintf(b, "SELECT '%s', %d, %d, toUnixTimestamp64Micro(now64(6))", tag, i, k);
    outfile(b);
}

/* The state after step i, one query: every line "@i<TAB>TAG<TAB>..." (TSVRaw: the values hold no
 * tab or newline; raw bytes are read as hex). The P line is always there: it ends the reads. */
/* Is order_v read after step i? After every step that can change it: it reads only the ODS
 * tables and the ledger, which staging, clearing the lease and a run stopped at statement 1 or 2
 * never write. Its read is most of a read's cost; the next one covers such a step too. */
static int reads_view(int i)
{
    const step *s = &g_step[i];
    if (s->op == OP_STAGE || s->op == OP_CLEAR)
        return 0;
    if (s->op == OP_RUN)
        return (s->stop_k ? s->stop_k : s->b) >= 3;
    return 1;
}

static void sql_reads(buf *b, int i)
{
    g_step[i].noview = !reads_view(i);
    bprintf(b, "SELECT concat('@%d\\t', line) FROM (\n", i);
    if (g_step[i].noview)
        bputs(b, "SELECT '' AS line WHERE 0\n");
    else
        bputs(b, "SELECT concat('V\\t', order_id, '\\t', toString(user_id), '\\t', status, '\\t', toString(created_at), "
             "'\\t', toString(updated_at), '\\t', toDecimalString(items_total, 2), '\\t', toDecimalString(discount, 2), "
             "'\\t', toDecimalString(delivery, 2), '\\t', toDecimalString(total, 2), '\\t', items, '\\t', "
             "toString(snapshot_date), '\\t', _load_id, '\\t', toString(_load_ts)) AS line FROM ods.order_v\n");
    bputs(b, "UNION ALL SELECT concat('L\\t', toString(delta), '\\t', _load_id, '\\t', arrayStringConcat([received, "
             "redelivered, accepted, stored, unchanged, stale, rejected, not_an_object, keyset_mismatch, "
             "field_invalid], '\\t')) FROM ods.order_loads\n");
    bputs(b, "UNION ALL SELECT concat('E\\t', _load_id, '\\t', _topic, '\\t', toString(_partition), '\\t', "
             "toString(_offset), '\\t', error_class, '\\t', hex(raw)) FROM ods.order_snapshot_errors\n");
    bputs(b, "UNION ALL SELECT concat('H\\t', _load_id) FROM ods.order_lease_v\n");
    bputs(b, "UNION ALL SELECT 'T\\tlease' FROM system.tables WHERE database = 'ods' AND name = 'order_lease'\n");
    bputs(b, "UNION ALL SELECT concat('F\\t', _load_id) FROM ods.order_frozen\n");
    bputs(b, "UNION ALL SELECT concat('P\\t', toString(count())) FROM ods.order_snapshot_rep WHERE _partition_id != "
             "formatDateTime(created_at, '%Y%m%d')\n)");
    /* what a read returns does not depend on it: the engine compiles order_v's aggregates at
     * their first use in each process, 0.06 s against 0.035 s a read (docs/testing.md) */
    bputs(b, "\nSETTINGS compile_expressions = 0, compile_aggregate_expressions = 0, compile_sort_description = 0");
    bputs(b, " INTO OUTFILE ");
    bsql(b, g_out);
    bputs(b, " APPEND FORMAT TSVRaw;\n");
}

static void sql_param(buf *b, const char *name, const char *v)
{
    bprintf(b, "SET param_%s = ", name);
    bsql(b, v);
    bputs(b, ";\n");
}

static void sql_stmt(buf *b, const char *text)
{
    bputs(b, text);
    bputs(b, ";\n");
}

/* "INSERT INTO TABLE (…) VALUES" rows r0 .. r0+n-1 */
static void sql_rows(buf *b, const char *table, int r0, int n)
{
    char ts[32];
    bprintf(b, "INSERT INTO %s (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts) VALUES\n", table);
    for (int r = r0; r < r0 + n; r++) {
        const row *x = &g_row[r];
        fmt_ts(ts, sizeof ts, x->ts);
        bputs(b, r > r0 ? ",\n(" : "(");
        bsql(b, g_msg[x->msg].raw);
        bprintf(b, ", '%s', %d, %ld, %s, ", TOPICS[x->topic], x->part, x->off, x->off % 3 ? "NULL" : "now64(3)");
        bsql(b, g_msg[x->msg].ord >= 0 ? g_order_id[g_msg[x->msg].ord] : "");
        bputs(b, ", ");
        bsql(b, M.l[x->load].id);
        bprintf(b, ", '%s')", ts);
    }
    bputs(b, ";\n");
}

/* "SELECT TAG, i, <is the copy of step i in staging>, now" into the output */
static void sql_mid_marker(buf *b, const char *tag, int i)
{
    const row *x = &g_row[g_step[i].row0];
    char ts[32];
    fmt_ts(ts, sizeof ts, x->ts);
    bprintf(b, "SELECT '%s', %d, (SELECT count() FROM stg.orders_raw WHERE _load_id = ", tag, i);
    bsql(b, M.l[x->load].id);
    bprintf(b, " AND _topic = '%s' AND _partition = %d AND _offset = %ld AND _load_ts = '%s'), "
               "toUnixTimestamp64Micro(now64(6))", TOPICS[x->topic], x->part, x->off, ts);
    outfile(b);
}

/* Statement 4 with a copy staged while it runs: a Buffer table in front of staging flushes what
 * was written to it in the engine's background, one to two seconds later, whatever statement
 * runs then; the copy is written, pre_ms pass, then the freeze runs with each table snapshot it
 * takes slowed by snap_ms (the engine's merge_tree_storage_snapshot_sleep_ms), so that the flush
 * lands before it, among its reads of staging or after it, as the delays fall. The freeze's reads
 * share one snapshot of staging: the copy, the same message as a row staged before, is frozen
 * once whenever it lands, or is a copy staged after the freeze; the model stages it before the
 * statement and predicts the same state either way. What remains in the Buffer is flushed once
 * the statement has ended, and the markers say where the copy was before and after it.
 * A mid-seal is the same with statement 5 and a new row: the seal's check and its record of
 * staging (the fingerprint the commit trusts) share one snapshot, so the seal refuses the row
 * (seen before it, or during it) or seals without it, the row then late (walk_run). */
static void mid_sql(buf *b, int i)
{
    const step *s = &g_step[i];
    int k = s->midseal ? 5 : 4;
    bputs(b, "CREATE TABLE IF NOT EXISTS stg.sched_buf AS stg.orders_raw ENGINE = Buffer(stg, orders_raw, 1, 1, 1, "
             "1000000, 1000000, 1000000000, 1000000000);\n");
    sql_rows(b, "stg.sched_buf", s->row0, 1);
    bprintf(b, "SELECT sleep(%d.%03d) FORMAT Null;\n", s->pre_ms / 1000, s->pre_ms % 1000);
    sql_mid_marker(b, "#MB", i);
    sql_param(b, "load_id", M.l[s->load].id);
    bprintf(b, "SET merge_tree_storage_snapshot_sleep_ms = %d;\n", s->snap_ms);
    sql_stmt(b, s->midseal ? g_stmt[5] : g_freeze1);
    sql_marker(b, "#R", i, k);
    bputs(b, "SET merge_tree_storage_snapshot_sleep_ms = 0;\n");
    sql_mid_marker(b, "#MA", i);
    bputs(b, "OPTIMIZE TABLE stg.sched_buf;\nDROP TABLE stg.sched_buf;\n");
}

/* the SQL of step i, its statements up to last (runs) */
static void sql_step(buf *b, int i, int last)
{
    step *s = &g_step[i];
    switch (s->op) {
    case OP_STAGE:
        sql_rows(b, "stg.orders_raw", s->row0, s->nrows);
        sql_marker(b, "#T", i, 0);
        break;
    case OP_RUN:
        if (s->midcopy || s->midseal) {
            mid_sql(b, i);
            break;
        }
        sql_param(b, "load_id", M.l[s->load].id);
        for (int k = s->a; k <= last; k++) {
            sql_stmt(b, stmt_of(s, k));
            sql_marker(b, "#R", i, k);
        }
        break;
    case OP_OPTIMIZE:
        bprintf(b, "OPTIMIZE TABLE ods.%s FINAL;\n", s->table ? "order_snapshot_hot" : "order_snapshot_rep");
        sql_marker(b, "#T", i, 0);
        break;
    case OP_CLEAR:
        bputs(b, "DROP TABLE IF EXISTS ods.order_lease;\n");
        sql_marker(b, "#T", i, 0);
        break;
    case OP_ABANDON:
        sql_param(b, "load_id", M.l[s->load].id);
        sql_stmt(b, g_abandon);
        sql_marker(b, "#T", i, 0);
        break;
    case OP_MOVE:
        sql_param(b, "load_id", M.l[s->load].id);
        sql_param(b, "to_load_id", M.l[s->load2].id);
        sql_stmt(b, g_move);
        sql_marker(b, "#T", i, 0);
        break;
    case OP_TAKE_BACK:
        sql_param(b, "load_id", M.l[s->load].id);
        sql_stmt(b, g_take_back);
        sql_marker(b, "#T", i, 0);
        break;
    }
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* After chlocal (group leader pgid) is reaped: kills and reaps what is left of its group, the
 * engine's UDF processes. One caught between fork and exec when chlocal is killed (by every
 * sign: a running one holds no descriptor of the lock) holds the engine's lock on the database
 * directory until it is gone, and the next process would find
 * "Cannot lock file .../status. Another server instance in same directory is already running"
 * (soak seed 901444: a kill 18 ms into statement 4). As the subreaper of its schedule (child())
 * this process has inherited them when chlocal died, so it can wait for each. */
static void reap_group(pid_t pgid)
{
    kill(-pgid, SIGKILL);
    for (;;) {
        pid_t w = waitpid(-pgid, NULL, 0);
        if (w > 0 || (w < 0 && errno == EINTR))
            continue;
        break;
    }
}

/* A wait status as "exit N" or "signal N": an unexplained death (soak seed 912738) must say
 * which signal ended it. */
static const char *status_text(int st, char *b, size_t cap)
{
    if (WIFEXITED(st))
        snprintf(b, cap, "exit %d", WEXITSTATUS(st));
    else
        snprintf(b, cap, "signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    return b;
}

static void first_error_line(const char *errpath, char *out, size_t n);
static int file_contains(const char *path, const char *needle);

/* Does the queries file's first query (past its SETs) write nothing to the database? The
 * reads and the markers write only to the output file. */
static int first_query_writes_nothing(const char *sql)
{
    FILE *f = fopen(sql, "r");
    if (!f)
        return 0;
    char line[256];
    int r = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "SET ", 4))
            continue;
        r = !strncmp(line, "SELECT concat('@", 16) || !strncmp(line, "SELECT '#", 9);
        break;
    }
    fclose(f);
    return r;
}

/* A fault of the engine, not of the transition, in a process that ended by itself having
 * written no output line (chlocal stops at its first failing query, so no query past the first
 * ran): its asynchronous table loading failed at start-up (ASYNC_LOAD_WAIT_FAILED: the query
 * waited for a table that never loaded, so it never began; finding 10, chdb-io/chdb#60), or it
 * died of a signal while its first query was one that writes nothing (finding 8). Either way
 * nothing was written and running the process again is exact. Anything else (a signal inside
 * a statement that writes, any other message) stays a divergence. */
static int engine_fault(int st, long size0, const char *sql, const char *errpath)
{
    if (file_size(g_out) != size0)
        return 0;
    if (WIFSIGNALED(st))
        return first_query_writes_nothing(sql);
    return WIFEXITED(st) && WEXITSTATUS(st) != 0 && file_contains(errpath, "(ASYNC_LOAD_WAIT_FAILED)");
}

static int g_faults_max = 3; /* an engine fault is run again this many times at most */
static buf g_faults;         /* "F ..." lines for the parent: each fault, where */
static uint64_t g_seed_now;

static int run_chlocal_once(const char *sql, const char *errpath, double kill_after, int from_spawn, int *killed,
                            double *elapsed);

/* Runs chlocal on a queries file. kill_after > 0: SIGKILL (its process group) that many seconds
 * after the output file grew (the marker written just before the statement to kill: the engine's
 * start-up time varies too much to aim from the spawn), or after the spawn when from_spawn is 1,
 * or after the output's second growth when it is 2 (a marker after the first INSERT of a
 * statement in pieces).
 * An engine fault (engine_fault) runs the process again, its stderr kept as ERRPATH.faultN.
 * Returns the wait status; *killed when it was killed. */
static int run_chlocal(const char *sql, const char *errpath, double kill_after, int from_spawn, int *killed,
                       double *elapsed)
{
    for (int attempt = 1;; attempt++) {
        long size0 = file_size(g_out);
        int st = run_chlocal_once(sql, errpath, kill_after, from_spawn, killed, elapsed);
        if (*killed || attempt > g_faults_max || !engine_fault(st, size0, sql, errpath))
            return st;
        char kept[128], e[700], how[32];
        snprintf(kept, sizeof kept, "%s.fault%d", errpath, attempt);
        rename(errpath, kept);
        first_error_line(kept, e, sizeof e);
        status_text(st, how, sizeof how);
        g_cov[CV_FAULT]++;
        bprintf(&g_repro, "# process %s: engine fault (%s, %.2f s: %s), run again; its stderr is %s\n", sql, how,
                *elapsed, e[0] ? e : "nothing on stderr", kept);
        bprintf(&g_faults, "F seed %llu: process %s: engine fault (%s: %s), run again\n",
                (unsigned long long)g_seed_now, sql, how, e[0] ? e : "nothing on stderr");
    }
}

static int run_chlocal_once(const char *sql, const char *errpath, double kill_after, int from_spawn, int *killed,
                            double *elapsed)
{
    char chl[8300];
    snprintf(chl, sizeof chl, "%s/chlocal", g_bin);
    double t0 = mono();
    pid_t pid = fork();
    if (pid < 0)
        fatal("fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int o = open("stdout.txt", O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (e < 0 || o < 0 || dup2(e, 2) < 0 || dup2(o, 1) < 0)
            _exit(126);
        execl(chl, "chlocal", "--path", g_db, "--queries-file", sql, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    *killed = 0;
    int st = 0;
    double armed = kill_after > 0 && from_spawn == 1 ? t0 : 0;
    /* the output must grow (markers written) this many times before the delay starts: a marker
     * before the statement, and for from_spawn 2 one after its first INSERT */
    int arm_growths = from_spawn == 2 ? 2 : 1;
    long size0 = file_size(g_out), last = size0;
    int grown = 0;
    for (;;) {
        struct rusage ru;
        pid_t w = wait4(pid, &st, WNOHANG, &ru);
        if (w == pid) {
            g_cpu += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                     (double)ru.ru_stime.tv_usec / 1e6;
            break;
        }
        if (w < 0 && errno != EINTR)
            fatal("waitpid: %s", strerror(errno));
        double now = mono();
        long sz = file_size(g_out);
        if (sz != last) {
            grown++;
            last = sz;
        }
        if (kill_after > 0 && armed == 0 && (grown >= arm_growths || now - t0 > 10))
            armed = now;
        if ((armed > 0 && now - armed >= kill_after) || now - t0 > 600) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            struct rusage ru;
            if (wait4(pid, &st, 0, &ru) == pid)
                g_cpu += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
            *killed = 1;
            break;
        }
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
    reap_group(pid);
    *elapsed = mono() - t0;
    g_nproc++;
    return st;
}

/* the output the processes appended since the last call */
static char *read_new_output(void)
{
    FILE *f = fopen(g_out, "r");
    buf b = {0};
    bputs(&b, "");
    if (!f)
        return b.s;
    fseek(f, g_out_off, SEEK_SET);
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        bputn(&b, tmp, n);
    g_out_off = ftell(f);
    fclose(f);
    return b.s;
}

/* what a process's output says: statements completed per step, and each step's reads */
typedef struct {
    int done[MAXSTEP];       /* #T seen */
    unsigned rmask[MAXSTEP]; /* bit k: statement k completed */
    double rtime[NSTMT + 1]; /* completion time of the statements of the last step seen */
    char *reads[MAXSTEP];    /* the read lines, tagged */
    int have_reads[MAXSTEP];
    double k0, k1; /* the kill markers (0 absent) */
    double kp;     /* the marker after the gate's first INSERT (0 absent) */
    double first;  /* the first marker's time: the engine had started by then */
    signed char mid[MAXSTEP][2]; /* mid-copy: the copy in staging before / after statement 4 (-1 unseen) */
} parsed;

static void parse_output(char *text, parsed *p)
{
    memset(p, 0, sizeof *p);
    memset(p->mid, -1, sizeof p->mid);
    buf rd[MAXSTEP];
    memset(rd, 0, sizeof rd);
    double prev_t = 0;
    int prev_i = -1, prev_k = -1;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (line[0] == '@') {
            char *tab = strchr(line, '\t');
            int i = atoi(line + 1);
            if (tab && i >= 0 && i < MAXSTEP) {
                bputs(&rd[i], tab + 1);
                bputs(&rd[i], "\n");
                if (tab[1] == 'P' && tab[2] == '\t')
                    p->have_reads[i] = 1;
            }
        } else if (line[0] == '#') {
            char tag[8];
            int i = 0, k = 0;
            long long t = 0;
            if (sscanf(line, "%7s %d %d %lld", tag, &i, &k, &t) == 4 && i >= 0 && i < MAXSTEP) {
                double tt = (double)t / 1e6;
                if (p->first == 0)
                    p->first = tt;
                if (!strcmp(tag, "#T"))
                    p->done[i] = 1;
                else if (!strcmp(tag, "#R")) {
                    p->rmask[i] |= 1u << k;
                    if (prev_i == i && prev_k == k - 1 && k >= 1 && k <= NSTMT) {
                        double d = tt - prev_t;
                        g_dur_est[k] = g_dur_est[k] > 0 ? 0.5 * g_dur_est[k] + 0.5 * d : d;
                    }
                } else if (!strcmp(tag, "#K0"))
                    p->k0 = tt;
                else if (!strcmp(tag, "#KP"))
                    p->kp = tt;
                else if (!strcmp(tag, "#MB") || !strcmp(tag, "#MA"))
                    p->mid[i][tag[2] == 'A'] = (signed char)(k > 0);
                else if (!strcmp(tag, "#K1")) {
                    p->k1 = tt;
                    if (prev_i == i && prev_k == k - 1 && k >= 1 && k <= NSTMT)
                        g_dur_est[k] = g_dur_est[k] > 0 ? 0.5 * g_dur_est[k] + 0.5 * (tt - prev_t) : tt - prev_t;
                }
                prev_t = tt;
                prev_i = !strcmp(tag, "#R") || !strcmp(tag, "#K0") ? i : -1;
                prev_k = !strcmp(tag, "#R") ? k : !strcmp(tag, "#K0") ? k - 1 : -1;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    for (int i = 0; i < MAXSTEP; i++)
        p->reads[i] = rd[i].s;
}

static void parsed_free(parsed *p)
{
    for (int i = 0; i < MAXSTEP; i++)
        free(p->reads[i]);
}

/* the first line of the engine's message, for a report */
static void first_error_line(const char *errpath, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = fopen(errpath, "r");
    if (!f)
        return;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0]) {
            snprintf(out, n, "%.600s", line);
            break;
        }
    }
    fclose(f);
}

static int file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    buf b = {0};
    char tmp[8192];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        bputn(&b, tmp, n);
    fclose(f);
    int r = b.s && strstr(b.s, needle);
    bfree(&b);
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* one schedule */
static buf g_div; /* the divergence, if any */
static int g_div_step = -1;

static void diverge(int i, const char *fmt, ...)
{
    if (g_div.len)
        return;
    va_list ap;
    va_start(ap, fmt);
    char tmp[3000];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    bputs(&g_div, tmp);
    g_div_step = i;
}

static void describe(int i)
{
    step *s = &g_step[i];
    g_cov[CV_OP + s->op]++;
    if (through_cut(s))
        g_cov[s->one ? CV_CUT_ONE : CV_CUT_PIECES]++;
    const char *id = s->load >= 0 ? M.l[s->load].id : "";
    switch (s->op) {
    case OP_STAGE: {
        char ts[32];
        fmt_ts(ts, sizeof ts, g_row[s->row0].ts);
        int n = sfmt(s->desc, sizeof s->desc, "stage %d row(s) under '%s' at %s:", s->nrows, id, ts);
        for (int r = s->row0; r < s->row0 + s->nrows && n < (int)sizeof s->desc - 40; r++)
            n += snprintf(s->desc + n, sizeof s->desc - (size_t)n, " %s/%d/%ld=m%d%s", TOPICS[g_row[r].topic],
                          g_row[r].part, g_row[r].off, g_row[r].msg,
                          g_msg[g_row[r].msg].cls ? "(invalid)" : "");
        break;
    }
    case OP_RUN:
        if (s->midcopy)
            sfmt(s->desc, sizeof s->desc, "run '%s' statement 4, a copy of %s/%d/%ld=m%d written to a Buffer %d ms "
                 "before it, each snapshot slowed by %d ms", id, TOPICS[g_row[s->row0].topic], g_row[s->row0].part,
                 g_row[s->row0].off, g_row[s->row0].msg, s->pre_ms, s->snap_ms);
        else if (s->midseal)
            sfmt(s->desc, sizeof s->desc, "run '%s' statement 5, a new row %s/%d/%ld=m%d%s written to a Buffer %d ms "
                 "before it, each snapshot slowed by %d ms", id, TOPICS[g_row[s->row0].topic], g_row[s->row0].part,
                 g_row[s->row0].off, g_row[s->row0].msg, g_msg[g_row[s->row0].msg].cls ? "(invalid)" : "",
                 s->pre_ms, s->snap_ms);
        else
            sfmt(s->desc, sizeof s->desc, "run '%s' statements %d..%d%s", id, s->a, s->b,
                 s->one && through_cut(s) ? " (the freeze and the gate as one INSERT each)" : "");
        break;
    case OP_KILL:
        sfmt(s->desc, sizeof s->desc, "kill '%s' in statement %d%s, %d ms after %s", id, s->a,
                 s->one && through_cut(s) ? " (as one INSERT)" : "", s->delay,
                 s->from_spawn == 1 ? "the spawn" : s->from_spawn == 2 ? "its first INSERT ended" : "it started");
        break;
    case OP_OPTIMIZE: sfmt(s->desc, sizeof s->desc, "OPTIMIZE TABLE ods.%s FINAL", s->table ? "order_snapshot_hot" : "order_snapshot_rep"); break;
    case OP_CLEAR: sfmt(s->desc, sizeof s->desc, "clear the lease (DROP TABLE IF EXISTS ods.order_lease)"); break;
    case OP_ABANDON: sfmt(s->desc, sizeof s->desc, "abandon '%s'", id); break;
    case OP_MOVE: sfmt(s->desc, sizeof s->desc, "move-late '%s' to '%s'", id, M.l[s->load2].id); break;
    case OP_TAKE_BACK: sfmt(s->desc, sizeof s->desc, "take-back '%s'", id); break;
    }
}

/* The post-hoc walk of a step that ended its process (predicted to fail, or unsure): statement
 * by statement, the markers say what completed; the model follows and must agree. */
static void walk_run(int i, const parsed *p, int status, const char *errpath)
{
    step *s = &g_step[i];
    int L = s->load;
    char why[512];
    for (int k = s->a; k <= s->b; k++) {
        int done = (p->rmask[i] >> k) & 1;
        if (s->midseal && k == 5) {
            /* where the new row landed: in staging before the seal began, the seal must refuse it;
             * not in staging once the seal ended, the seal must succeed without it; in between,
             * either. The model stages it before the seal or after it, as the seal decided. */
            int before = p->mid[i][0], after = p->mid[i][1];
            int c = before > 0 ? P_FAIL : after == 0 ? P_OK : P_UNSURE;
            if (c == P_UNSURE)
                c = done ? P_OK : P_FAIL;
            g_cov[before > 0 ? CV_SEAL_BEFORE : after == 0 ? CV_SEAL_AFTER : done ? CV_SEAL_IN_SEALED : CV_SEAL_IN_REFUSED]++;
            row *x = &g_row[s->row0];
            if (c == P_OK) {
                if (!done) {
                    char e[700];
                    first_error_line(errpath, e, sizeof e);
                    diverge(i, "statement 5 of '%s' failed, predicted to succeed (the new row was staged after it): %s",
                            M.l[L].id, e);
                    return;
                }
                if (check_stmt(&M, L, 5, why, sizeof why) != P_OK) {
                    diverge(i, "statement 5 of '%s' succeeded; the model cannot seal it (%s)", M.l[L].id, why);
                    return;
                }
                apply_stmt(&M, L, 5);
                x->staged = 1, x->after_seal = 1;
                continue;
            }
            x->staged = 1;
            if (done) {
                diverge(i, "statement 5 of '%s' succeeded, predicted to refuse the new row %s/%d/%ld staged before it",
                        M.l[L].id, TOPICS[x->topic], x->part, x->off);
                return;
            }
            if (!file_contains(errpath, "while it was being frozen")) {
                char e[700];
                first_error_line(errpath, e, sizeof e);
                diverge(i, "statement 5 of '%s' failed, but not for the row staged while it ran: %s", M.l[L].id, e);
                return;
            }
        }
        int c = check_stmt(&M, L, k, why, sizeof why);
        if (c == P_UNSURE) {
            g_unsure++;
            c = done ? P_OK : P_FAIL;
        }
        if (c == P_OK) {
            if (!done) {
                char e[700];
                first_error_line(errpath, e, sizeof e);
                diverge(i, "statement %d of '%s' failed, predicted to succeed: %s", k, M.l[L].id, e);
                return;
            }
            apply_stmt(&M, L, k);
            continue;
        }
        /* predicted to fail here */
        s->stop_k = k;
        g_cov[CV_FAIL_AT + k]++;
        g_stop_at[L] = k;
        if (s->proc < (int)sizeof g_proc_dead)
            g_proc_dead[s->proc] = 1;
        if (done) {
            diverge(i, "statement %d of '%s' succeeded, predicted to fail (%s)", k, M.l[L].id, why);
            return;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
            diverge(i, "statement %d of '%s': chlocal ended with status %d, expected 1 (%s)", k, M.l[L].id,
                    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), why);
            return;
        }
        char pre[32];
        snprintf(pre, sizeof pre, "transition %d/%d:", k, NSTMT);
        if (!file_contains(errpath, pre) && !(k == 2 && !file_contains(errpath, "transition "))) {
            char e[700];
            first_error_line(errpath, e, sizeof e);
            diverge(i, "statement %d of '%s' failed as predicted (%s), but its message lacks \"%s\": %s", k,
                    M.l[L].id, why, pre, e);
            return;
        }
        if (k == 1 && M.holder >= 0 && valid_id(M.l[L].id) && !file_contains(errpath, M.l[M.holder].id)) {
            char e[700];
            first_error_line(errpath, e, sizeof e);
            diverge(i, "statement 1 of '%s' failed, but its message does not name the holder %s: %s", M.l[L].id,
                    M.l[M.holder].id, e);
        }
        return;
    }
    s->stop_k = 0;
    g_stop_at[L] = s->b < NSTMT ? s->b + 1 : 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        char e[700];
        first_error_line(errpath, e, sizeof e);
        diverge(i, "'%s' ran statements %d..%d, then chlocal failed: %s", M.l[L].id, s->a, s->b, e);
    }
}

/* step s's rows staged now: their _load_ts strictly increasing over the schedule */
static void stage_rows(step *s)
{
    int64_t t = now_ms();
    static int64_t last;
    if (t <= last)
        t = last + 1;
    last = t;
    for (int r = s->row0; r < s->row0 + s->nrows; r++)
        g_row[r].ts = t, g_row[r].staged = 1;
}

/* a dry run of step i on a copy of the model: P_OK when every statement is predicted to
 * succeed (then it is applied to the model for real), else P_FAIL/P_UNSURE and nothing changes */
static model g_tmp;
static int predict_step(int i)
{
    step *s = &g_step[i];
    char why[512];
    g_step_now = i;
    switch (s->op) {
    case OP_STAGE:
        stage_rows(s);
        return P_OK;
    case OP_RUN: {
        /* a mid-copy is staged before its statement 4 in the model (its outcome is the same
         * wherever the flush lands); only where 4 is predicted to succeed: a statement that fails
         * would end the process with the copy still in the Buffer */
        if (s->midcopy) {
            if (check_stmt(&M, s->load, 4, why, sizeof why) == P_OK) {
                stage_rows(s);
            } else {
                s->midcopy = 0;
                if (s->row0 == g_nrow - 1)
                    g_nrow--;
            }
        }
        /* a mid-seal: where the seal is predicted to succeed without the row, the model stages the
         * row once the markers say where it landed (walk_run); the step ends its process */
        if (s->midseal) {
            if (check_stmt(&M, s->load, 5, why, sizeof why) == P_OK && !M.l[s->load].sealed) {
                stage_rows(s); /* its _load_ts, for its SQL; staged once it is known where it landed */
                g_row[s->row0].staged = 0;
                return P_UNSURE;
            }
            s->midseal = 0;
            if (s->row0 == g_nrow - 1)
                g_nrow--;
        }
        g_tmp = M;
        for (int k = s->a; k <= s->b; k++) {
            int c = check_stmt(&g_tmp, s->load, k, why, sizeof why);
            if (c != P_OK) {
                if (c == P_FAIL)
                    g_pred_fail++;
                return c;
            }
            apply_stmt(&g_tmp, s->load, k);
        }
        M = g_tmp;
        g_stop_at[s->load] = s->b < NSTMT ? s->b + 1 : 0;
        return P_OK;
    }
    case OP_OPTIMIZE:
        return P_OK;
    case OP_CLEAR:
        M.holder = -1;
        M.lease_empty = 0;
        return P_OK;
    case OP_ABANDON:
    case OP_MOVE:
    case OP_TAKE_BACK: {
        g_tmp = M;
        int r = s->op == OP_ABANDON   ? model_abandon(&g_tmp, s->load, why, sizeof why)
                : s->op == OP_MOVE    ? model_move(&g_tmp, s->load, s->load2, why, sizeof why)
                                      : model_take_back(&g_tmp, s->load, why, sizeof why);
        if (r) {
            g_pred_fail++;
            return P_FAIL;
        }
        g_cov[CV_TAKEN] += s->op == OP_TAKE_BACK && M.l[s->load].committed;
        M = g_tmp;
        return P_OK;
    }
    }
    return P_OK;
}

typedef struct {
    buf sql;
    int steps[MAXSTEP], nsteps; /* steps in this process, in order */
    int reads[MAXSTEP], nreads; /* steps whose reads are in it */
    int last_open; /* a step predicted to fail or unsure ends the process: walked afterwards */
} chain;

static void repro_step(int i, const char *outcome)
{
    bprintf(&g_repro, "step %d: %s -> %s\n", i, g_step[i].desc, outcome);
    if (g_verbose)
        bprintf(&g_log, "  step %d: %s -> %s\n", i, g_step[i].desc, outcome);
}

/* Runs the chain as one process and checks it: every step but an open last one must have run
 * completely, every read must match. Returns 0, or 1 on a divergence. */
static int flush(chain *ch)
{
    if (!ch->nsteps && !ch->nreads)
        return 0;
    char sqlpath[64], errpath[64];
    snprintf(sqlpath, sizeof sqlpath, "p%03d.sql", g_nproc + 1);
    snprintf(errpath, sizeof errpath, "p%03d.err", g_nproc + 1);
    buf all = {0};
    if (g_first_process) {
        bputs(&all, g_schema);
        bputs(&all, "\n");
        g_first_process = 0;
    }
    bputs(&all, ch->sql.s ? ch->sql.s : "");
    FILE *f = fopen(sqlpath, "w");
    if (!f || fputs(all.s, f) < 0 || fclose(f) != 0)
        fatal("cannot write %s/%s", g_dir, sqlpath);
    bfree(&all);
    int killed;
    double el, cpu0 = g_cpu;
    int st = run_chlocal(sqlpath, errpath, 0, 0, &killed, &el);
    int kind = 1;
    for (int j = 0; j < ch->nsteps; j++)
        if (g_step[ch->steps[j]].op == OP_RUN && g_step[ch->steps[j]].b >= 3)
            kind = 0;
    g_cpu_kind[kind] += g_cpu - cpu0;
    g_nproc_kind[kind]++;
    char *out = read_new_output();
    parsed *p = calloc(1, sizeof *p);
    parse_output(out, p);
    free(out);
    for (int j = 0; j < ch->nsteps; j++) {
        int i = ch->steps[j];
        if (g_step[i].midcopy && p->mid[i][1] >= 0)
            g_cov[p->mid[i][0] > 0 ? CV_MID_BEFORE : p->mid[i][1] > 0 ? CV_MID_IN : CV_MID_AFTER]++;
    }
    bprintf(&g_replay, "run %s\n", sqlpath);
    char how[32];
    bprintf(&g_repro, "# process %s (%.2f s, %s): steps", sqlpath, el, status_text(st, how, sizeof how));
    for (int j = 0; j < ch->nsteps; j++)
        bprintf(&g_repro, " %d", ch->steps[j]);
    bputs(&g_repro, "\n");
    int bad = 0;
    for (int j = 0; j < ch->nsteps && !bad; j++) {
        int i = ch->steps[j];
        step *s = &g_step[i];
        int open = ch->last_open && j == ch->nsteps - 1;
        if (open) {
            if (s->op == OP_RUN) {
                walk_run(i, p, st, errpath);
                repro_step(i, s->stop_k ? "failed as predicted" : "ran");
            } else { /* a procedure predicted to fail */
                int done = p->done[i];
                if (done || !WIFEXITED(st) || WEXITSTATUS(st) != 1) {
                    diverge(i, "%s succeeded, predicted to fail", OP_NAME[s->op]);
                } else {
                    char why[512];
                    if (s->op == OP_ABANDON)
                        model_abandon(&M, s->load, why, sizeof why);
                    else if (s->op == OP_MOVE)
                        model_move(&M, s->load, s->load2, why, sizeof why);
                    else
                        model_take_back(&M, s->load, why, sizeof why);
                }
                if (s->proc < (int)sizeof g_proc_dead)
                    g_proc_dead[s->proc] = 1;
                repro_step(i, "failed as predicted");
            }
            s->exp = render_expected(&M);
            bad = g_div.len > 0;
            continue;
        }
        int ok = s->op == OP_RUN ? 1 : p->done[i];
        if (s->op == OP_RUN)
            for (int k = s->a; k <= s->b; k++)
                ok &= (p->rmask[i] >> k) & 1;
        repro_step(i, ok ? "ran" : "FAILED");
        if (!ok) {
            char e[700];
            first_error_line(errpath, e, sizeof e);
            int k = 0;
            if (s->op == OP_RUN)
                for (k = s->a; k <= s->b && ((p->rmask[i] >> k) & 1); k++)
                    ;
            if (s->op == OP_RUN)
                diverge(i, "statement %d of '%s' failed, predicted to succeed: %s", k, M.l[s->load].id, e);
            else
                diverge(i, "%s failed, predicted to succeed: %s", OP_NAME[s->op], e);
            bad = 1;
        }
    }
    for (int j = 0; j < ch->nreads && !bad; j++) {
        int i = ch->reads[j];
        if (!p->have_reads[i]) {
            char e[700];
            first_error_line(errpath, e, sizeof e);
            diverge(i, "the state after step %d could not be read: %s", i, e);
            bad = 1;
            break;
        }
        buf why = {0};
        if (compare_state(g_step[i].exp, p->reads[i], g_step[i].noview, &why)) {
            diverge(i, "%s", why.s);
            bad = 1;
        }
        bfree(&why);
    }
    if (!bad && WIFEXITED(st) && WEXITSTATUS(st) != 0 && !ch->last_open) {
        char e[700];
        first_error_line(errpath, e, sizeof e);
        diverge(ch->nsteps ? ch->steps[ch->nsteps - 1] : -1, "chlocal failed: %s", e);
        bad = 1;
    }
    parsed_free(p);
    free(p);
    bfree(&ch->sql);
    memset(ch, 0, sizeof *ch);
    return bad;
}

/* does text hold a line "TAG\t..." whose field f (the tag is field 0) is v (any, when v is NULL) */
static int has_line(const char *text, char tag, const char *v, int f)
{
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n >= 2 && p[0] == tag && p[1] == '\t') {
            if (!v)
                return 1;
            const char *q = p;
            for (int i = 0; i < f && q; i++) {
                q = memchr(q, '\t', (size_t)(p + n - q));
                q = q ? q + 1 : NULL;
            }
            if (q) {
                const char *qe = memchr(q, '\t', (size_t)(p + n - q));
                size_t qn = qe ? (size_t)(qe - q) : (size_t)(p + n - q);
                if (qn == strlen(v) && !memcmp(q, v, qn))
                    return 1;
            }
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* a kill: statement k alone in a process, SIGKILLed after a delay; the binary outcome is read
 * from the database, everything else must match the model. Returns 0, 1 on a divergence, or 2
 * when the step's reads are still to be run (at the start of the next process). */
static int do_kill(int i)
{
    step *s = &g_step[i];
    int L = s->load, k = s->a;
    /* the delay: somewhere inside the statement, from just before it to just after it; now and
     * then from the spawn instead, most likely before the engine has even started */
    double dur = g_dur_est[k] > 0 ? g_dur_est[k] : 0.05;
    int from_spawn = pct(5);
    double d = from_spawn ? (double)range(10, 150) / 1000.0 : (double)range(0, 120) / 100.0 * dur;
    /* a statement in two INSERTs or more (the freeze, the gate): half its kills count from the
     * end of the first, so that some land between two pieces (counted from the statement's
     * start, almost none did) */
    const char *text = stmt_of(s, k), *piece2 = strstr(text, "\n-- piece 2 ");
    if (!from_spawn && piece2 && pct(50)) {
        from_spawn = 2;
        d = (double)range(0, 100) / 100.0 * dur / 2;
    }
    if (d < 0.0005)
        d = 0.0005;
    s->delay = (int)(d * 1000);
    s->from_spawn = from_spawn;
    describe(i);
    buf b = {0};
    if (g_first_process) {
        bputs(&b, g_schema);
        bputs(&b, "\n");
        g_first_process = 0;
    }
    sql_param(&b, "load_id", M.l[L].id);
    sql_marker(&b, "#K0", i, k);
    if (from_spawn == 2) {
        bputn(&b, text, (size_t)(piece2 + 1 - text));
        sql_marker(&b, "#KP", i, k);
        sql_stmt(&b, piece2 + 1);
    } else {
        sql_stmt(&b, text);
    }
    sql_marker(&b, "#K1", i, k);
    char sqlpath[64], errpath[64];
    snprintf(sqlpath, sizeof sqlpath, "p%03d.sql", g_nproc + 1);
    snprintf(errpath, sizeof errpath, "p%03d.err", g_nproc + 1);
    FILE *f = fopen(sqlpath, "w");
    if (!f || fputs(b.s, f) < 0 || fclose(f) != 0)
        fatal("cannot write %s/%s", g_dir, sqlpath);
    bfree(&b);
    int killed;
    double el;
    double cpu0 = g_cpu;
    int st = run_chlocal(sqlpath, errpath, d, from_spawn, &killed, &el);
    g_cpu_kind[2] += g_cpu - cpu0;
    g_nproc_kind[2]++;
    cpu0 = g_cpu;
    char *out = read_new_output();
    parsed *p = calloc(1, sizeof *p);
    parse_output(out, p);
    free(out);
    s->killed = !killed ? 0 : p->k0 == 0 ? 1 : p->k1 == 0 ? 2 : 3;
    g_kills[s->killed]++;
    /* the first INSERT done, the rest cut: a load part frozen or part gated */
    g_cov[k == 4 ? CV_KILL_PIECE4 : CV_KILL_PIECE] += s->killed == 2 && p->kp > 0;
    bprintf(&g_repro, "# process %s (%.3f s, %s)\n", sqlpath, el,
            killed ? "killed" : WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "exit 0" : "exit 1");
    char why[512];
    int c = check_stmt(&M, L, k, why, sizeof why);
    g_stop_at[L] = k;
    /* Only a kill inside a statement whose effect is binary (2, 5, 10, 12) needs the database to
     * decide the model: its reads get a process of their own. The other outcomes are known from
     * the markers and the exit status, and their reads open the next process, like a failed step's. */
    int need_read = killed && s->killed == 2 && c != P_FAIL && (k == 2 || k == 5 || k == 10 || k == 12);
    char sql2[64] = "", err2[64] = "";
    parsed *p2 = NULL;
    int bad = 0;
    if (need_read) {
        chain rd = {0};
        sql_reads(&rd.sql, i);
        snprintf(sql2, sizeof sql2, "p%03d.sql", g_nproc + 1);
        snprintf(err2, sizeof err2, "p%03d.err", g_nproc + 1);
        f = fopen(sql2, "w");
        if (!f || fputs(rd.sql.s, f) < 0 || fclose(f) != 0)
            fatal("cannot write %s/%s", g_dir, sql2);
        bfree(&rd.sql);
        int k2;
        double el2;
        int st2 = run_chlocal(sql2, err2, 0, 0, &k2, &el2);
        g_cpu_kind[3] += g_cpu - cpu0;
        g_nproc_kind[3]++;
        char *out2 = read_new_output();
        p2 = calloc(1, sizeof *p2);
        parse_output(out2, p2);
        free(out2);
        if (!p2->have_reads[i]) {
            char e[700];
            first_error_line(err2, e, sizeof e);
            char how[32];
            diverge(i, "the state after the kill could not be read (%s): %s", status_text(st2, how, sizeof how), e);
            bad = 1;
        }
    }
    const char *outcome = "";
    if (bad) {
        outcome = "killed inside the statement: the state could not be read";
    } else if (!killed) {
        int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        outcome = ok ? "exited before the kill: succeeded" : "exited before the kill: failed";
        if (c == P_UNSURE)
            c = ok ? P_OK : P_FAIL;
        if (ok && c == P_FAIL)
            diverge(i, "statement %d of '%s' succeeded, predicted to fail (%s)", k, M.l[L].id, why), bad = 1;
        else if (!ok && c == P_OK) {
            char e[700];
            first_error_line(errpath, e, sizeof e);
            diverge(i, "statement %d of '%s' failed, predicted to succeed: %s", k, M.l[L].id, e), bad = 1;
        } else if (ok)
            apply_stmt(&M, L, k);
    } else if (s->killed == 1) {
        outcome = "killed before the statement started";
    } else if (s->killed == 3) {
        outcome = "killed after the statement completed";
        g_cov[CV_KILL_TOOK + k]++;
        if (c == P_FAIL)
            diverge(i, "statement %d of '%s' completed, predicted to fail (%s)", k, M.l[L].id, why), bad = 1;
        else
            apply_stmt(&M, L, k);
    } else {
        outcome = "killed inside the statement";
        if (c != P_FAIL) {
            /* what is binary, read from the database */
            int took = -1;
            if (need_read) {
                const char *rdx = p2->reads[i];
                if (k == 2) {
                    took = has_line(rdx, 'H', M.l[L].id, 1);
                    /* the table created, its row not written: a lease that names nobody */
                    M.lease_empty = !took && has_line(rdx, 'T', NULL, 1);
                }
                else if (k == 5)
                    took = has_line(rdx, 'F', M.l[L].id, 1);
                else if (k == 10)
                    took = has_line(rdx, 'L', M.l[L].id, 2);
                else
                    took = !has_line(rdx, 'H', NULL, 1);
            } else if (k == 4 && !M.l[L].sealed) {
                M.l[L].pending_unknown = 1;
            } else if (k == 7 && !M.l[L].committed) {
                /* a fold cut short: a committed load's versions may be in _rep, or not yet */
                for (int j = 0; j < M.nl; j++)
                    if (M.l[j].committed && M.l[j].fig[3] > 0 && M.l[j].folded != 1)
                        M.l[j].folded = -1;
            } else if ((k == 8 || k == 9) && M.l[L].sealed && !M.l[L].committed) {
                /* cut short or complete: the commit will tell */
                int *d = k == 8 ? &M.l[L].errs_done : &M.l[L].gate_done;
                if (*d != 1)
                    *d = -1;
            }
            if (took == 1)
                apply_stmt(&M, L, k);
            g_cov[(took == 1 ? CV_KILL_TOOK : CV_KILL_NOT) + k]++;
            if (took >= 0)
                outcome = took ? "killed inside the statement: took effect" : "killed inside the statement: no effect";
        }
    }
    char o2[200];
    snprintf(o2, sizeof o2, "%s", outcome);
    repro_step(i, o2);
    /* replayed whole when it took effect (or exited by itself), left out when it did not */
    if (!killed || s->killed == 3 || (s->killed == 2 && strstr(outcome, "took effect")))
        bprintf(&g_replay, "run %s  # %s\n", sqlpath, outcome);
    else
        bprintf(&g_replay, "# %s left out: %s\n", sqlpath, outcome);
    s->exp = render_expected(&M);
    if (need_read) {
        bprintf(&g_replay, "run %s\n", sql2);
        if (!bad) {
            buf why2 = {0};
            if (compare_state(s->exp, p2->reads[i], s->noview, &why2))
                diverge(i, "%s", why2.s), bad = 1;
            bfree(&why2);
        }
        parsed_free(p2);
        free(p2);
    }
    parsed_free(p);
    free(p);
    return bad ? 1 : need_read ? 0 : 2;
}

/* Set by SIGINT or SIGTERM in the parent: start no more schedules, finish those running. */
static volatile sig_atomic_t g_stop;
static void on_stop(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* runs one schedule; 0 passed, 1 diverged */
static int schedule(uint64_t seed)
{
    seed_rng(seed);
    world_init();
    memset(&M, 0, sizeof M);
    M.holder = -1;
    int nr[5] = {0, 5, 65, 22, 8};
    g_nreal = pick(nr, 5);
    /* as many freezes as a schedule holds, each meeting a copy or a new row */
    if (g_sabotage == SAB_NO_SHARED || g_sabotage == SAB_SPLIT_SEAL)
        g_nreal = 4;
    for (int i = 0; i < g_nreal; i++) {
        char id[64];
        switch (rn(4)) {
        case 0: snprintf(id, sizeof id, "2026-03-0%d/batch.%d", i + 1, rn(10)); break;
        case 1: snprintf(id, sizeof id, "dag:orders+run_%d", i + 1); break;
        default: snprintf(id, sizeof id, "L%d", i + 1); break;
        }
        add_load(id, K_REAL);
    }
    g_steps_max = range(6, 14);
    chain ch = {0};
    int deferred = -1, bad = 0;
    int i;
    while (!bad && (i = gen_next()) >= 0) {
        step *s = &g_step[i];
        if (s->op == OP_KILL) {
            if (flush(&ch)) {
                bad = 1;
                break;
            }
            if (deferred >= 0) { /* the reads of a failed step before the kill */
                sql_reads(&ch.sql, deferred);
                ch.reads[ch.nreads++] = deferred;
                deferred = -1;
                if (flush(&ch)) {
                    bad = 1;
                    break;
                }
            }
            int r = do_kill(i);
            bad = r == 1;
            if (r == 2) /* its reads open the next process */
                deferred = i;
            continue;
        }
        if ((s->solo || g_nochain) && ch.nsteps && flush(&ch)) {
            bad = 1;
            break;
        }
        if (deferred >= 0) {
            sql_reads(&ch.sql, deferred);
            ch.reads[ch.nreads++] = deferred;
            deferred = -1;
        }
        int pr = predict_step(i);
        describe(i);
        if (pr == P_OK) {
            sql_step(&ch.sql, i, s->op == OP_RUN ? s->b : 0);
            ch.steps[ch.nsteps++] = i;
            s->exp = render_expected(&M);
            sql_reads(&ch.sql, i);
            ch.reads[ch.nreads++] = i;
            if ((s->solo || g_nochain) && flush(&ch))
                bad = 1;
            continue;
        }
        /* predicted to fail somewhere, or unsure: the step ends the process, all its statements in
         * it; its reads open the next process, once the model has followed the outcome */
        sql_step(&ch.sql, i, s->op == OP_RUN ? s->b : 0);
        ch.steps[ch.nsteps++] = i;
        ch.last_open = 1;
        if (flush(&ch)) {
            bad = 1;
            break;
        }
        deferred = i;
    }
    if (!bad && deferred >= 0) {
        sql_reads(&ch.sql, deferred);
        ch.reads[ch.nreads++] = deferred;
        deferred = -1;
    }
    if (!bad)
        bad = flush(&ch);
    return bad || g_div.len;
}

/* ------------------------------------------------------------------------------------------ */
/* the parent: the SQL from ods-ddl, schedules in parallel, the summary */
static char *capture(char *const argv[], int *status)
{
    int fd[2];
    if (pipe(fd) != 0)
        fatal("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        fatal("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    buf b = {0};
    bputs(&b, "");
    char tmp[8192];
    ssize_t n;
    while ((n = read(fd[0], tmp, sizeof tmp)) > 0)
        bputn(&b, tmp, (size_t)n);
    close(fd[0]);
    waitpid(pid, status, 0);
    return b.s;
}

static char *ods_ddl(const char *what)
{
    char path[8300];
    snprintf(path, sizeof path, "%s/ods-ddl", g_bin);
    char *argv[8] = {path, (char *)what};
    int n = 2;
    if (!strcmp(what, "transition-one-piece"))
        argv[1] = "transition", argv[n++] = "--gate-pieces", argv[n++] = "1";
    else if (!strcmp(what, "transition") && g_gate_pieces[0])
        argv[n++] = "--gate-pieces", argv[n++] = g_gate_pieces;
    if (!strcmp(what, "transition") && g_piece_size[0])
        argv[n++] = "--piece-size", argv[n++] = g_piece_size;
    argv[n] = NULL;
    int st;
    char *out = capture(argv, &st);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* trailing blanks and one ';' off */
static void chop(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == ';'))
        s[--n] = 0;
}

/* the transition's statements, split at their headings "-- K. " (K = 1..12) */
static int split_transition(const char *text)
{
    const char *pos[NSTMT + 2];
    for (int k = 1; k <= NSTMT + 1; k++) {
        char head[16];
        snprintf(head, sizeof head, "-- %d. ", k);
        pos[k] = NULL;
        for (const char *p = text; (p = strstr(p, head)); p++)
            if (p == text || p[-1] == '\n') {
                pos[k] = p;
                break;
            }
    }
    if (pos[NSTMT + 1])
        return -1; /* a 13th statement */
    for (int k = 1; k <= NSTMT; k++)
        if (!pos[k] || (k > 1 && pos[k] <= pos[k - 1]))
            return -1;
    for (int k = 1; k <= NSTMT; k++) {
        const char *end = k < NSTMT ? pos[k + 1] : text + strlen(text);
        g_stmt[k] = strndup(pos[k], (size_t)(end - pos[k]));
        chop(g_stmt[k]);
    }
    return 0;
}

static void usage_error(const char *fmt, const char *arg)
{
    fputs("sched: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (try --help)\n", stderr);
    exit(2);
}

static int parse_num(const char *s, uint64_t *v)
{
    char *e;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long x = strtoull(s, &e, 10);
    if (*e || errno)
        return -1;
    *v = x;
    return 0;
}

static void print_messages(uint64_t seed, int n)
{
    seed_rng(seed);
    world_init();
    for (int i = 0; i < n; i++) {
        int w = rn(10), m;
        if (w < 5)
            m = gen_valid(pct(40));
        else
            m = gen_invalid(1 + rn(3));
        const msg *x = &g_msg[m];
        if (x->cls == CLS_OK)
            printf("\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", g_order_id[x->ord], x->user, x->status, x->created,
                   x->updated, x->money[0], x->money[1], x->money[2], x->money[3], x->items, x->snap);
        else
            printf("%s\t\t\t\t\t\t\t\t\t\t\t", CLS_NAME[x->cls]);
        /* the raw bytes, hex (they may hold a newline or a tab) */
        buf b = {0};
        bputs(&b, "");
        hex(&b, x->raw);
        printf("\t%s\n", b.s);
        bfree(&b);
        if (g_nmsg > MAXMSG - 20) { /* a fresh world now and then, so the set keeps growing */
            for (int j = 0; j < g_nmsg; j++)
                free(g_msg[j].raw);
            g_nmsg = 0;
            world_init();
        }
    }
}

static void rm_rf(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", "--", path, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
}

/* the child for one seed: runs it and writes one result line to fd */
static void child(uint64_t seed, int fd)
{
    /* orphans of a chlocal (its UDF processes) come to this process: see reap_group */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        fatal("prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
    sfmt(g_dir, sizeof g_dir, "%s/seed-%llu", g_work, (unsigned long long)seed);
    rm_rf(g_dir);
    if (mkdir(g_dir, 0755) != 0 || chdir(g_dir) != 0)
        fatal("cannot create %s: %s", g_dir, strerror(errno));
    sfmt(g_db, sizeof g_db, "%s/db", g_dir);
    sfmt(g_out, sizeof g_out, "%s/out.tsv", g_dir);
    g_seed_now = seed;
    bprintf(&g_repro, "# sched --bin %s --work DIR --seed %llu --count 1%s%s%s%s%s%s%s\n", g_bin,
            (unsigned long long)seed, g_sabotage ? " --sabotage " : "", g_sabotage ? SAB_NAME[g_sabotage] : "",
            g_gate_pieces[0] ? " --gate-pieces " : "", g_gate_pieces, g_piece_size[0] ? " --piece-size " : "",
            g_piece_size, g_mixed ? " --mixed-cuts" : "");
    double t0 = mono();
    int bad = schedule(seed);
    double el = mono() - t0;
    /* the reproduction: the steps run, the messages they staged */
    bputs(&g_repro, "# loads:");
    for (int L = 0; L < M.nl; L++)
        bprintf(&g_repro, " '%s'", M.l[L].id);
    bputs(&g_repro, "\n# orders:");
    for (int o = 0; o < NORD; o++)
        bprintf(&g_repro, " %s(created %s)", g_order_id[o], g_created[o]);
    bputs(&g_repro, "\n");
    for (int m = 0; m < g_nmsg; m++)
        bprintf(&g_repro, "# m%d %s: %s\n", m, g_msg[m].cls ? CLS_NAME[g_msg[m].cls] : "valid", g_msg[m].raw);
    char rs[8300];
    snprintf(rs, sizeof rs, "%s/replay.sh", g_dir);
    FILE *fr = fopen(rs, "w");
    if (fr) {
        fprintf(fr, "#!/bin/sh\n"
                    "# replay.sh: the chlocal processes of seed %llu again, in order, on a fresh database (db-replay),\n"
                    "# reads into out-replay.tsv. A killed process runs whole when its statement took effect and\n"
                    "# is left out when it did not: what a kill left half done is not replayed (repro.txt says\n"
                    "# what each step did and what differed).\n"
                    "set -u\ncd \"$(dirname \"$0\")\"\nrm -rf db-replay out-replay.tsv\n"
                    "run() {\n    sed \"s|%s|$PWD/out-replay.tsv|\" \"$1\" >replay.sql\n"
                    "    %s/chlocal --path db-replay --queries-file replay.sql\n"
                    "    echo \"$1: exit $?\" >&2\n}\n%s",
                (unsigned long long)seed, g_out, g_bin, g_replay.s ? g_replay.s : "");
        fclose(fr);
        chmod(rs, 0755);
    }
    char rp[8300];
    snprintf(rp, sizeof rp, "%s/repro.txt", g_dir);
    FILE *f = fopen(rp, "w");
    if (f) {
        if (bad)
            fprintf(f, "# DIVERGED at step %d: %s\n", g_div_step, g_div.s);
        fputs(g_repro.s, f);
        fclose(f);
    }
    int commits = M.ndelta;
    buf line = {0};
    bprintf(&line, "R %d %d %d %d %d %d %d %d %d %d %.3f\n", bad, g_nstep, g_nproc, commits, g_kills[0], g_kills[1],
            g_kills[2], g_kills[3], g_unsure, g_pred_fail, el);
    for (int L = 0; L < M.nl; L++)
        if (M.l[L].committed) {
            g_cov[CV_STORED] += M.l[L].fig[3];
            g_cov[CV_UNCHANGED] += M.l[L].fig[4];
            g_cov[CV_STALE] += M.l[L].fig[5];
            g_cov[CV_REDELIVERED] += M.l[L].fig[1];
            g_cov[CV_REJECTED] += M.l[L].fig[6];
        }
    for (int r = 0; r < g_nrow; r++)
        g_cov[CV_MOVED] += g_row[r].staged && g_row[r].load != g_row[r].load0;
    bprintf(&line, "U %.3f %.3f %.3f %.3f %d %d %d %d\n", g_cpu_kind[0], g_cpu_kind[1], g_cpu_kind[2], g_cpu_kind[3],
            g_nproc_kind[0], g_nproc_kind[1], g_nproc_kind[2], g_nproc_kind[3]);
    bputs(&line, "C");
    for (int c = 0; c < CV_N; c++)
        bprintf(&line, " %ld", g_cov[c]);
    bputs(&line, "\n");
    if (g_faults.len)
        bputs(&line, g_faults.s);
    if (bad)
        bprintf(&line, "D seed %llu: step %d: %s (repro: %s)\n", (unsigned long long)seed, g_div_step, g_div.s, rp);
    if (g_verbose)
        bprintf(&line, "T seed %llu: %d steps, %d processes, %d commits, %.2f s\n%s", (unsigned long long)seed, g_nstep,
                g_nproc, commits, el, g_log.s ? g_log.s : "");
    if (write(fd, line.s, line.len) < 0)
        _exit(3);
    close(fd);
    if (!bad && !g_keep) {
        if (chdir(g_work) == 0)
            rm_rf(g_dir);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, count = 1, jobs = 2, printn = 0;
    int have_bin = 0, have_work = 0, printing = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            return 0;
        } else if (!strcmp(a, "--verbose")) {
            g_verbose = 1;
        } else if (!strcmp(a, "--keep")) {
            g_keep = 1;
        } else if (!strcmp(a, "--late-copy")) {
            if (!v || (strcmp(v, "changes") && strcmp(v, "ignored")))
                usage_error("bad value for --late-copy: %s (expected changes or ignored)", v ? v : "");
            g_late_copy_ignored = !strcmp(v, "ignored");
            i++;
        } else if (!strcmp(a, "--avoid")) {
            if (!v)
                usage_error("%s needs a value", a);
            char *list = xstrdup(v), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int k = 0;
                char rest = 0;
                if (sscanf(t, "kill%d%c", &k, &rest) == 1 && k >= 1 && k <= NSTMT)
                    g_avoid_kill |= 1u << k;
                else if (!strcmp(t, "from12"))
                    g_avoid_from12 = 1;
                else if (!strcmp(t, "latecopy"))
                    g_avoid_latecopy = 1;
                else if (!strcmp(t, "nogate"))
                    g_avoid_nogate = 1;
                else
                    usage_error("bad value for --avoid: %s (expected killK, from12, latecopy or nogate, comma-separated)",
                                t);
            }
            free(list);
            i++;
        } else if (!strcmp(a, "--no-chain")) {
            g_nochain = 1;
        } else if (!strcmp(a, "--mixed-cuts")) {
            g_mixed = 1;
        } else if (!strcmp(a, "--bin") || !strcmp(a, "--work") || !strcmp(a, "--seed") || !strcmp(a, "--count") ||
                   !strcmp(a, "--jobs") || !strcmp(a, "--sabotage") || !strcmp(a, "--print-messages") ||
                   !strcmp(a, "--gate-pieces") || !strcmp(a, "--piece-size")) {
            if (!v)
                usage_error("%s needs a value", a);
            i++;
            if (!strcmp(a, "--bin")) {
                if (!realpath(v, g_bin))
                    usage_error("bad value for --bin: %s (no such directory)", v);
                have_bin = 1;
            } else if (!strcmp(a, "--work")) {
                mkdir(v, 0755);
                if (!realpath(v, g_work))
                    usage_error("bad value for --work: %s (cannot create it)", v);
                if (strchr(g_work, '\'') || strchr(g_work, '\\'))
                    usage_error("bad value for --work: %s (no quotes or backslashes)", v);
                have_work = 1;
            } else if (!strcmp(a, "--sabotage")) {
                int found = 0;
                for (int s = 1; s < (int)(sizeof SAB_NAME / sizeof *SAB_NAME); s++)
                    if (!strcmp(v, SAB_NAME[s]))
                        g_sabotage = s, found = 1;
                if (!found)
                    usage_error("bad value for --sabotage: %s (expected skip-lease, no-staging-check, no-seal, "
                                "no-commit, no-shared-snapshot or split-seal)",
                                v);
            } else if (!strcmp(a, "--gate-pieces") || !strcmp(a, "--piece-size")) {
                /* ods-ddl checks the value: a bad one fails at the start, naming it */
                uint64_t x;
                if (parse_num(v, &x) != 0 || x == 0)
                    usage_error(a[2] == 'g' ? "bad value for --gate-pieces: %s (expected a whole number >= 1)"
                                            : "bad value for --piece-size: %s (expected a whole number >= 1)", v);
                char *dst = a[2] == 'g' ? g_gate_pieces : g_piece_size;
                sfmt(dst, 24, "%llu", (unsigned long long)x);
            } else {
                uint64_t x;
                if (parse_num(v, &x) != 0 || (strcmp(a, "--seed") && x == 0)) {
                    fprintf(stderr, "sched: bad value for %s: %s (expected a whole number%s) (try --help)\n", a, v,
                            strcmp(a, "--seed") ? " >= 1" : "");
                    return 2;
                }
                if (!strcmp(a, "--seed"))
                    seed = x;
                else if (!strcmp(a, "--count"))
                    count = x;
                else if (!strcmp(a, "--jobs"))
                    jobs = x;
                else
                    printn = x, printing = 1;
            }
        } else {
            usage_error("unknown option: %s", a);
        }
    }
    if (printing) {
        print_messages(seed, (int)printn);
        return 0;
    }
    if (!have_bin)
        usage_error("%s", "--bin DIR is required");
    if (!have_work)
        usage_error("%s", "--work DIR is required");
    if (jobs > 64)
        jobs = 64;

    /* the freeze of a mid-copy: one INSERT, whatever the pieces of the others (the freeze's
     * outcome does not depend on how it is cut; a freeze in pieces computes their bounds with
     * some hundred table snapshots, each slowed as mid_sql slows them) */
    char *tr = ods_ddl("transition-one-piece");
    if (!tr || split_transition(tr) != 0) {
        fprintf(stderr, "sched: %s/ods-ddl transition does not print the 12 statements (\"-- K. \" headings)\n", g_bin);
        return 1;
    }
    free(tr);
    g_freeze1 = g_stmt[4];
    g_gate1 = g_stmt[9];
    for (int k = 1; k <= NSTMT; k++)
        if (k != 4 && k != 9)
            free(g_stmt[k]);
    tr = ods_ddl("transition");
    if (!tr || split_transition(tr) != 0) {
        fprintf(stderr, "sched: %s/ods-ddl transition does not print the 12 statements (\"-- K. \" headings)\n", g_bin);
        return 1;
    }
    free(tr);
    g_staging_first = strstr(g_stmt[1], "the checks of statement 3 too") != NULL;
    g_schema = ods_ddl("schema");
    if (!g_schema) {
        fprintf(stderr, "sched: %s/ods-ddl schema failed\n", g_bin);
        return 1;
    }
    g_abandon = ods_ddl("abandon");
    g_move = ods_ddl("move-late");
    g_take_back = ods_ddl("take-back");
    if (g_take_back)
        chop(g_take_back);
    if (g_abandon)
        chop(g_abandon);
    if (g_move)
        chop(g_move);
    if (g_sabotage == SAB_NO_SHARED) {
        /* the freeze as printed, but each of its reads takes its own snapshot */
        char *fz[2] = {g_stmt[4], g_freeze1}, *q;
        for (int j = 0; j < 2; j++) {
            int n = 0;
            for (char *f = fz[j]; (q = strstr(f, "enable_shared_storage_snapshot_in_query = 1")); f = q + 1, n++)
                q[strlen("enable_shared_storage_snapshot_in_query = ")] = '0';
            if (!n)
                fatal("the freeze sets no shared snapshot: nothing to sabotage");
        }
    } else if (g_sabotage == SAB_SPLIT_SEAL) {
        /* the seal's check first, as a statement of its own, then its INSERT without it: the
         * record of staging no longer shares the check's snapshot (merely unpinning the seal
         * does not show: the engine takes the FROM's snapshot, the record's, before it runs the
         * WHERE's scalar checks, so the record cannot hold a row the check missed) */
        char *st = g_stmt[5], *and = strstr(st, "\n  AND (WITH ("), *eq = and ? strstr(and, ") = 0\nSETTINGS ") : NULL;
        if (!eq)
            fatal("the seal is not an INSERT whose last condition is its check: nothing to split");
        char *set = eq + strlen(") = 0");
        buf b = {0};
        bputs(&b, "SELECT ");
        bputn(&b, and + strlen("\n  AND "), (size_t)(set - and) - strlen("\n  AND "));
        bputn(&b, set, strcspn(set, ";"));
        bputs(&b, " FORMAT Null;\n");
        bputn(&b, st, (size_t)(and - st));
        bputs(&b, set);
        free(g_stmt[5]);
        g_stmt[5] = b.s;
    } else if (g_sabotage) {
        int k = SAB_STMT[g_sabotage];
        char t[64];
        snprintf(t, sizeof t, "-- %d. sabotaged\nSELECT 'sabotaged'", k);
        free(g_stmt[k]);
        g_stmt[k] = xstrdup(t);
    }
    if (!g_abandon || !g_move)
        fprintf(stderr, "sched: ods-ddl has no %s: schedules leave it out\n",
                !g_abandon && !g_move ? "abandon or move-late" : !g_abandon ? "abandon" : "move-late");

    double t0 = mono();
    uint64_t next = 0, ran = 0, diverged = 0;
    long tot[11] = {0};
    int commits_hist[4] = {0};
    long cov[CV_N] = {0};
    double ucpu[4] = {0};
    long uproc[4] = {0};
    double sched_time = 0;
    typedef struct {
        pid_t pid;
        int fd;
        uint64_t seed;
    } slot;
    slot *sl = calloc(jobs, sizeof *sl);
    uint64_t running = 0;
    fflush(stdout);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    while ((next < count && !g_stop) || running) {
        while (next < count && !g_stop && running < jobs) {
            int fd[2];
            if (pipe(fd) != 0)
                fatal("pipe: %s", strerror(errno));
            uint64_t s = seed + next++;
            pid_t pid = fork();
            if (pid < 0)
                fatal("fork: %s", strerror(errno));
            if (pid == 0) {
                /* a schedule is finished, not cut: the parent's stop waits for it */
                signal(SIGINT, SIG_IGN);
                signal(SIGTERM, SIG_IGN);
                close(fd[0]);
                child(s, fd[1]);
            }
            close(fd[1]);
            for (uint64_t j = 0; j < jobs; j++)
                if (!sl[j].pid) {
                    sl[j].pid = pid, sl[j].fd = fd[0], sl[j].seed = s;
                    break;
                }
            running++;
        }
        /* the child writes its result line before it exits: read it, then reap */
        int st;
        pid_t pid = wait(&st);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            fatal("wait: %s", strerror(errno));
        for (uint64_t j = 0; j < jobs; j++) {
            if (sl[j].pid != pid)
                continue;
            buf b = {0};
            bputs(&b, "");
            char tmp[8192];
            ssize_t n;
            while ((n = read(sl[j].fd, tmp, sizeof tmp)) > 0)
                bputn(&b, tmp, (size_t)n);
            close(sl[j].fd);
            ran++;
            int got = 0;
            for (char *line = b.s; line && *line;) {
                char *nl = strchr(line, '\n');
                if (nl)
                    *nl = 0;
                if (line[0] == 'R') {
                    int v[10];
                    double el;
                    if (sscanf(line, "R %d %d %d %d %d %d %d %d %d %d %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                               &v[6], &v[7], &v[8], &v[9], &el) == 11) {
                        got = 1;
                        if (v[0])
                            diverged++;
                        for (int q = 1; q < 10; q++)
                            tot[q] += v[q];
                        commits_hist[v[3] > 3 ? 3 : v[3]]++;
                        sched_time += el;
                    }
                } else if (line[0] == 'U') {
                    char *q = line + 1;
                    for (int c = 0; c < 4; c++)
                        ucpu[c] += strtod(q, &q);
                    for (int c = 0; c < 4; c++)
                        uproc[c] += strtol(q, &q, 10);
                } else if (line[0] == 'C') {
                    char *q = line + 1;
                    for (int c = 0; c < CV_N; c++)
                        cov[c] += strtol(q, &q, 10);
                } else if (line[0] == 'F') {
                    printf("%s\n", line + 2);
                } else if (line[0] == 'D') {
                    printf("%s\n", line + 2);
                } else if (line[0] == 'T') {
                    fprintf(stderr, "%s\n", line + 2);
                } else if (g_verbose) {
                    fprintf(stderr, "%s\n", line);
                }
                line = nl ? nl + 1 : NULL;
            }
            if (!got) {
                diverged++;
                printf("seed %llu: the schedule could not run (status %d); see %s/seed-%llu\n",
                       (unsigned long long)sl[j].seed, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), g_work,
                       (unsigned long long)sl[j].seed);
            }
            fflush(stdout);
            bfree(&b);
            sl[j].pid = 0;
            running--;
        }
    }
    double el = mono() - t0;
    printf("figures: %ld steps, %ld chlocal processes, %ld commits (schedules committing 0: %d, 1: %d, 2: %d, 3+: "
           "%d), %ld kills (before the statement %ld, inside it %ld, after it %ld, exited first %ld), %ld predicted "
           "failures, %ld unsure outcomes; %.1f s (%.2f s a schedule)\n",
           tot[1], tot[2], tot[3], commits_hist[0], commits_hist[1], commits_hist[2], commits_hist[3],
           tot[4] + tot[5] + tot[6] + tot[7], tot[5], tot[6], tot[7], tot[4], tot[9], tot[8], el,
           ran ? sched_time / (double)ran : 0.0);
    printf("cpu: %.1f s in chlocal (%.2f s a schedule): %.1f s in %ld processes running the transition past its "
           "lease, %.1f s in %ld other processes, %.1f s in %ld killed ones, %.1f s in %ld reads after kills\n",
           ucpu[0] + ucpu[1] + ucpu[2] + ucpu[3], ran ? (ucpu[0] + ucpu[1] + ucpu[2] + ucpu[3]) / (double)ran : 0.0,
           ucpu[0], uproc[0], ucpu[1], uproc[1], ucpu[2], uproc[2], ucpu[3], uproc[3]);
    printf("coverage: steps");
    for (int o = 0; o < NOPS; o++)
        printf(" %s %ld", OP_NAME[o], cov[CV_OP + o]);
    printf("; runs stopped (as predicted) at statement");
    for (int k = 1; k <= NSTMT; k++)
        if (cov[CV_FAIL_AT + k])
            printf(" %d: %ld", k, cov[CV_FAIL_AT + k]);
    printf("; kills that took effect / not, by statement");
    for (int k = 1; k <= NSTMT; k++)
        if (cov[CV_KILL_TOOK + k] || cov[CV_KILL_NOT + k])
            printf(" %d: %ld/%ld", k, cov[CV_KILL_TOOK + k], cov[CV_KILL_NOT + k]);
    printf(" (9: unknown, the commit tells; %ld of them after the gate's first INSERT; %ld inside 4 after the "
           "freeze's first INSERT)",
           cov[CV_KILL_PIECE], cov[CV_KILL_PIECE4]);
    printf("; ledger: stored %ld, unchanged %ld, stale %ld, redelivered %ld, rejected %ld; late rows moved %ld; "
           "committed loads taken back %ld",
           cov[CV_STORED], cov[CV_UNCHANGED], cov[CV_STALE], cov[CV_REDELIVERED], cov[CV_REJECTED], cov[CV_MOVED],
           cov[CV_TAKEN]);
    printf("; copies staged through a Buffer around a freeze: %ld, in staging before it %ld, during it %ld, after it "
           "%ld", cov[CV_MID_BEFORE] + cov[CV_MID_IN] + cov[CV_MID_AFTER], cov[CV_MID_BEFORE], cov[CV_MID_IN],
           cov[CV_MID_AFTER]);
    printf("; new rows staged through a Buffer around a seal: %ld, in staging before it %ld (refused), during it %ld "
           "(refused %ld, sealed without it %ld), after it %ld\n",
           cov[CV_SEAL_BEFORE] + cov[CV_SEAL_IN_REFUSED] + cov[CV_SEAL_IN_SEALED] + cov[CV_SEAL_AFTER],
           cov[CV_SEAL_BEFORE], cov[CV_SEAL_IN_REFUSED] + cov[CV_SEAL_IN_SEALED], cov[CV_SEAL_IN_REFUSED],
           cov[CV_SEAL_IN_SEALED], cov[CV_SEAL_AFTER]);
    printf("cuts: %ld runs and kills through the freeze or the gate with them as one INSERT each, %ld as "
           "printed\n", cov[CV_CUT_ONE], cov[CV_CUT_PIECES]);
    printf("engine faults: %ld processes failed in the engine's start-up with nothing written and were run again\n",
           cov[CV_FAULT]);
    if (next < count)
        printf("stopped by a signal after %llu of %llu schedules (seeds %llu to %llu)\n", (unsigned long long)ran,
               (unsigned long long)count, (unsigned long long)seed, (unsigned long long)(seed + next - 1));
    printf("schedules: %llu run, %llu diverged\n", (unsigned long long)ran, (unsigned long long)diverged);
    fflush(stdout);
    free(sl);
    return diverged ? 1 : 0;
}
