/* test_transition: unit tests of ods-ddl's modules transition (the 12 statements, abandon, move-late)
 * and stage (files, Kafka): every statement's shape in every mode; the engine: transition*.bats. */
#include "ddl_text.h"
#include "schema.h"
#include "stage.h"
#include "transition.h"

#define NSTMT DDL_TRANSITION_STATEMENTS
#define MAXSTMT 16

/* Splits a generated procedure into its n statements: st[k] (k = 1..n) is the text after the
 * "-- k. " comment line, up to and including its ';' (malloc-ed). Checks that the statements
 * follow each other with one blank line between them and nothing after the last. */
static int split_stmts(const char *s, int n, char *st[MAXSTMT + 1])
{
    int ok = 1;
    st[0] = NULL;
    const char *p = s;
    for (int k = 1; k <= n; k++) {
        char mark[16];
        snprintf(mark, sizeof mark, "-- %d. ", k);
        const char *m = p ? strstr(p, mark) : NULL;
        /* the first comes after the header comment; each other right after the one before */
        if (m && k > 1 && m != p + 1)
            m = NULL;
        const char *b = m ? strchr(m, '\n') : NULL;
        const char *e = b ? strstr(b + 1, ";\n") : NULL;
        st[k] = e ? strndup(b + 1, (size_t)(e + 1 - (b + 1))) : NULL;
        if (!st[k])
            ok = 0;
        p = e ? e + 2 : NULL; /* the blank line before the next comment */
    }
    CHECK(ok);
    CHECK(p && *p == '\0');
    return ok;
}

static void free_stmts(char *st[MAXSTMT + 1], int n)
{
    for (int k = 1; k <= n; k++)
        free(st[k]);
}

/* s with the content of every single-quoted literal removed (the quotes kept), malloc-ed: the
 * SQL around the messages. A quote is escaped by a backslash or doubled. */
static char *strip_literals(const char *s)
{
    char *out = malloc(strlen(s) + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = s; *p; p++) {
        *w++ = *p;
        if (*p != '\'')
            continue;
        for (p++; *p; p++) {
            if (*p == '\\' && p[1]) {
                p++;
            } else if (*p == '\'') {
                if (p[1] == '\'') {
                    p++;
                    continue;
                }
                *w++ = '\'';
                break;
            }
        }
        if (!*p)
            break;
    }
    *w = '\0';
    return out;
}

/* Every message of statement k of procedure NAME starts "'NAME k/n: ", and there are want of
 * them (-1: at least one). */
static void check_messages(const char *stmt, const char *name, int k, int n, int want)
{
    char any[64], mine[64];
    snprintf(any, sizeof any, "'%s ", name);
    snprintf(mine, sizeof mine, "'%s %d/%d: ", name, k, n);
    int c = count(stmt, any);
    if (c != count(stmt, mine))
        fprintf(stderr, "statement %d of %s: %d messages, %d of them start %s\n", k, name, c, count(stmt, mine), mine);
    CHECK_EQ_INT(c, count(stmt, mine));
    if (want < 0)
        CHECK(c >= 1);
    else
        CHECK_EQ_INT(c, want);
}

/* The columns of the CREATE TABLE of NAME in the schema s, as "|a|b|c|" (malloc-ed), or NULL. */
static char *table_columns(const char *s, const char *name)
{
    const char *t = create_of(s, name);
    const char *b = t ? strstr(t, "\n(\n") : NULL;
    const char *e = b ? strstr(b, "\n)\n") : NULL;
    if (!e)
        return NULL;
    char *out = calloc(1, (size_t)(e - b) + 2), *w = out;
    *w++ = '|';
    for (const char *p = b + 3; p && p < e;) {
        while (*p == ' ')
            p++;
        const char *sp = strchr(p, ' ');
        memcpy(w, p, (size_t)(sp - p));
        w += sp - p;
        *w++ = '|';
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    *w = '\0';
    return out;
}

/* Every name of the comma-separated list [l, e) is a column of cols ("|a|b|"); how many. */
static int columns_in(const char *l, const char *e, const char *cols)
{
    int n = 0;
    while (l < e) {
        while (*l == ' ')
            l++;
        const char *c = memchr(l, ',', (size_t)(e - l));
        if (!c)
            c = e;
        char want[80];
        snprintf(want, sizeof want, "|%.*s|", (int)(c - l), l);
        if (!strstr(cols, want))
            fprintf(stderr, "column %s is not in %s\n", want, cols);
        CHECK(strstr(cols, want) != NULL);
        n++;
        l = c + 1;
    }
    return n;
}

/* A transition's mode, as the tests below generate it. */
typedef struct {
    int cluster, every, sql, allow_empty;
} mode;

static char *gen_transition(mode m)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = m.cluster ? "c1" : NULL, .store_every = m.every,
                  .typing_sql = m.sql, .allow_empty = m.allow_empty};
    return gen(ddl_transition, &o);
}

/* The typed items of the SQL typing, in contract order, then _hashdiff over the canonical texts
 * of the state fields (snapshot_date left out), then the load columns; p is where they start. */
static const char *check_typed_sql(const char *p, const char *ind)
{
    for (size_t i = 0; i < WIRE_NFIELDS && p; i++) {
        char *x = extract_text(&WIRE_FIELDS[i]);
        char want[4096];
        snprintf(want, sizeof want, "%s%s AS %s,\n", ind, x, WIRE_FIELDS[i].name);
        const char *q = strstr(p, want);
        CHECK(q != NULL);
        p = q ? q + strlen(want) : NULL;
        free(x);
    }
    return p;
}

/* The typed items of the UDF typing: the manifest's columns, in contract order. */
static const char *check_typed_udf(const char *p, const char *ind)
{
    for (size_t i = 0; i < WIRE_NFIELDS && p; i++) {
        char want[128];
        snprintf(want, sizeof want, "%s%s AS %s,\n", ind, WIRE_FIELDS[i].name, WIRE_FIELDS[i].name);
        const char *q = strstr(p, want);
        CHECK(q == p); /* one after the other */
        p = q ? q + strlen(want) : NULL;
    }
    return p;
}

/* _hashdiff over the canonical texts of the ten state fields, snapshot_date left out; then the
 * load and coordinate columns. */
static void check_hashdiff(const char *p, const char *ind)
{
    char want[512];
    snprintf(want, sizeof want, "%shashdiff_strict([toString(order_id), toString(user_id), toString(status), "
             "concat(replaceOne(toString(created_at, 'UTC'), ' ', 'T'), 'Z'), ", ind);
    CHECK(p && strncmp(p, want, strlen(want)) == 0);
    const char *h = p ? strstr(p, "items]) AS _hashdiff,\n") : NULL;
    CHECK(h != NULL);
    CHECK(h && !memmem(p, (size_t)(h - p), "snapshot_date", 13));
    if (!h)
        return;
    h += strlen("items]) AS _hashdiff,\n");
    snprintf(want, sizeof want, "%s_load_id,\n%s_load_ts,\n%s_topic,\n%s_partition,\n%s_offset\n", ind, ind, ind, ind, ind);
    CHECK(strncmp(h, want, strlen(want)) == 0);
}

/* Is every IN over a Distributed table GLOBAL in st (with --cluster)? A plain IN over one would
 * run its subquery on every shard, each against a part of the set. */
static void check_global_in(const char *st, int k)
{
    for (const char *p = st; (p = strstr(p, " IN (SELECT ")); p += 5) {
        const char *from = strstr(p, " FROM ");
        if (!from)
            break;
        const char *name = from + 6;
        size_t len = strcspn(name, " )\n");
        int dist = len > 5 && !strncmp(name + len - 5, "_dist", 5);
        int global = (p - st >= 6 && !strncmp(p - 6, "GLOBAL", 6)) || (p - st >= 10 && !strncmp(p - 10, "GLOBAL NOT", 10));
        if (dist && !global)
            fprintf(stderr, "statement %d: plain IN over %.*s\n", k, (int)len, name);
        CHECK(!dist || global);
    }
}

/* What every transition holds, in any mode: the statements in order, each doing what its
 * heading says; the lease checked where it must be; the ledger guard on every writing
 * statement; the messages; the sources; time. */
static void check_common(const char *s, char *st[MAXSTMT + 1], mode m)
{
    const char *loads = m.cluster ? "order_loads_dist" : "order_loads";
    const char *g = m.cluster ? "GLOBAL " : "";
    char guard[256], want[4096];
    snprintf(guard, sizeof guard, "{load_id:String} %sNOT IN (SELECT _load_id FROM ods.%s)", g, loads);

    CHECK(starts(s, "-- ods-ddl transition, wire contract " WIRE_CONTRACT_VERSION ", store "));
    CHECK(strstr(s, ": run the 12 statements in order, with --param_load_id=ID.\n") != NULL);

    /* 1, 3, 11: checks only, printing nothing */
    for (int k = 1; k <= NSTMT; k++) {
        int check_only = k == 1 || k == 3 || k == 11;
        CHECK_EQ_INT(starts(st[k], "WITH (SELECT ") && ends(st[k], ") AS _p\nSELECT throwIf(ifNull(_p, '') != '', _p)\n"
                                                                   "FORMAT Null;"),
                     check_only);
    }
    /* 2 and 12: the lease, a table on this node; its columns are the lease view's */
    CHECK_EQ_STR(st[2], "CREATE TABLE ods.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                        "now64(3, 'UTC') AS since;");
    CHECK_EQ_STR(st[12], "DROP TABLE ods.order_lease;");
    CHECK(starts(st[4], "INSERT INTO ods.order_manifest (_load_id, _topic, _partition, _offset, _timestamp, _key, "
                        "_load_ts, _raw_hash, error_class, raw"));
    CHECK(starts(st[5], "INSERT INTO ods.order_frozen (_load_id, frozen_at, staged, messages)\nSELECT {load_id:String}, "
                        "now64(3, 'UTC'), "));
    snprintf(want, sizeof want, "ALTER TABLE ods.order_snapshot_hot%s DELETE WHERE %s\n", m.cluster ? " ON CLUSTER c1" : "",
             guard);
    CHECK(starts(st[6], want));
    CHECK(ends(st[6], m.cluster ? "\nSETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;"
                                : "\nSETTINGS mutations_sync = 2;"));
    snprintf(want, sizeof want, "INSERT INTO ods.%s (%s)\nSETTINGS ", m.cluster ? "order_snapshot_dist" : "order_snapshot_rep",
             store_cols());
    CHECK(starts(st[7], want));
    snprintf(want, sizeof want, "INSERT INTO ods.%s (raw, error_class, _topic, _partition, _offset, _timestamp, _key, "
             "_load_id, _load_ts)\n", m.cluster ? "order_snapshot_errors_dist" : "order_snapshot_errors");
    CHECK(starts(st[8], want));
    CHECK(starts(st[9], !m.every ? "INSERT INTO ods.order_gate ("
                        : m.cluster ? "INSERT INTO ods.order_snapshot_hot_dist (" : "INSERT INTO ods.order_snapshot_hot ("));
    /* the ledger row is written on this node (read everywhere through order_loads_dist) */
    size_t n = (size_t)snprintf(want, sizeof want, "INSERT INTO ods.order_loads (delta, _load_id, committed_at, received, "
                                                   "redelivered, accepted, stored, unchanged, stale, rejected");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", %s", WIRE_REJECT_CLASSES[i]);
    snprintf(want + n, sizeof want - n, ")\nSELECT (SELECT max(delta) FROM ods.%s) + 1, {load_id:String}, now64(3, 'UTC'),\n",
             loads);
    CHECK(starts(st[10], want));
    for (int k = 1; k <= NSTMT; k++)
        CHECK_EQ_INT(count(st[k], "INSERT INTO "), k == 4 || k == 5 || (k >= 7 && k <= 10));

    /* The lease: statement 1 finds it free (or names its holder and how to clear it); every
     * statement from 3 to 11 but the housekeeping (it needs none, and runs on every shard)
     * checks that this run still holds it. */
    CHECK(strstr(st[1], "the lease is held by load ") && strstr(st[1], "FROM ods.order_lease_v)"));
    CHECK(strstr(st[1], "DROP TABLE IF EXISTS ods.order_lease;") != NULL);
    CHECK(strstr(st[1], "if(NOT match({load_id:String}, '^[A-Za-z0-9][A-Za-z0-9._:+/-]{0,127}$'),\n") != NULL);
    for (int k = 1; k <= NSTMT; k++) {
        int lease = k >= 3 && k <= 11 && k != 6;
        CHECK_EQ_INT(count(st[k], "does not hold the lease"), lease);
        CHECK_EQ_INT(count(st[k], "(SELECT count() FROM ods.order_lease_v WHERE _load_id = {load_id:String}) = 1"), lease);
    }
    CHECK_EQ_INT(count(s, "DROP TABLE ods.order_lease;"), 1); /* only 12 gives it back */
    CHECK_EQ_INT(count(s, "CREATE TABLE ods.order_lease "), 1);

    /* The ledger guard ("this load is not committed") on every writing statement, as a
     * condition of what it writes, before (outside) the checks: a committed load's rerun
     * writes nothing. The gate's prior, its order_id set and its own-hot-rows side carry it
     * too (regression: a committed load's rerun read its whole prior). */
    static const int guards[NSTMT + 1] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 5, 2, 0, 0};
    for (int k = 1; k <= NSTMT; k++) {
        int want_n = k == 9 && m.every ? 2 : guards[k];
        if (count(st[k], guard) != want_n)
            fprintf(stderr, "statement %d: %d ledger guards, want %d\n", k, count(st[k], guard), want_n);
        CHECK_EQ_INT(count(st[k], guard), want_n);
        const char *w = strstr(st[k], "(WITH (SELECT ");
        const char *gd = strstr(st[k], guard);
        if (k >= 4 && k <= 10 && k != 6)
            CHECK(w && gd && gd < w);
    }
    snprintf(want, sizeof want, "\nWHERE %s\n  AND (WITH (SELECT ", guard);
    CHECK(strstr(st[7], want) && strstr(st[10], want));

    /* Messages: each names its statement, "transition K/12: " */
    static const int msgs[NSTMT + 1] = {0, -1, 0, -1, 1, -1, 0, 1, -1, -1, -1, 1, 0};
    for (int k = 1; k <= NSTMT; k++)
        check_messages(st[k], "transition", k, NSTMT, msgs[k]);

    /* 1 and 3 check the staging alike (3 again under the lease): the same SQL, each with its
     * own messages (which may say more in 3: the run keeps the lease) */
    const char *mark = "if({load_id:String} IN (SELECT _load_id FROM ods.order_frozen) OR ";
    CHECK_EQ_INT(count(st[1], mark), 1);
    CHECK_EQ_INT(count(st[3], mark), 1);
    const char *c1 = strstr(st[1], mark), *c3 = strstr(st[3], mark);
    if (c1 && c3) {
        char *a = strip_literals(c1), *b = strip_literals(c3);
        CHECK(a && b && !strcmp(a, b));
        free(a);
        free(b);
        CHECK_EQ_INT(count(c1, "'transition 1/12: "), count(c3, "'transition 3/12: "));
        CHECK_EQ_INT(count(c1, "'transition 1/12: "), m.allow_empty ? 3 : 4);
        /* no rows staged (unless --allow-empty), coordinates with two messages, another load
         * frozen and not committed, rows staged after the freeze */
        CHECK_EQ_INT(count(c1, "no rows are staged under load "), !m.allow_empty);
        CHECK(strstr(c1, "\n               GROUP BY _topic, _partition, _offset HAVING ") != NULL);
        CHECK(strstr(c1, "FROM ods.order_frozen WHERE _load_id != {load_id:String} AND _load_id ") != NULL);
        CHECK(strstr(c1, " rows were staged under load ") != NULL);
    }

    /* The predicate of the bad branch, once bare ending the errors INSERT; its literal negation
     * in the good one; elsewhere only the commit's counts */
    for (int k = 1; k <= NSTMT; k++) {
        int bare = count(st[k], "error_class != ''"), neg = count(st[k], "NOT (error_class != '')");
        int counted = count(st[k], "countIf(error_class != '')");
        CHECK_EQ_INT(bare - neg - counted, k == 8);
        CHECK_EQ_INT(neg, k == 9 ? (m.every ? 1 : 2) : 0);
    }
    CHECK(ends(st[8], "\n  AND error_class != '';"));
    CHECK_EQ_INT(count(s, "WHERE _load_id = {load_id:String} AND NOT (error_class != '')\n"), 1);
    CHECK_EQ_INT(count(st[9], "WHERE _load_id = {load_id:String} AND NOT (error_class != '')\n"), 1);

    /* The sources: staging is read by the checks, the freeze and the seal; after the freeze
     * only the manifest (the commit reads staging only to count rows staged after the freeze) */
    static const int raw_reads[NSTMT + 1] = {0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0};
    for (int k = 1; k <= NSTMT; k++)
        CHECK_EQ_INT(count(st[k], "stg.orders_raw") > 0, raw_reads[k]);
    CHECK_EQ_INT(count(st[10], "stg.orders_raw"), 1);
    CHECK(strstr(st[10], "(SELECT count() AS _late FROM stg.orders_raw WHERE _load_id = {load_id:String} AND ") != NULL);
    CHECK(strstr(st[8], "\nFROM ods.order_manifest\nWHERE _load_id = {load_id:String}\n") != NULL);
    for (int k = 5; k <= NSTMT; k++) {
        CHECK(!strstr(st[k], "order_wire_")); /* classified once, in the freeze */
        if (!m.sql || k != 9)
            CHECK(!strstr(st[k], "JSON"));
    }
    for (int k = 1; k <= NSTMT; k++)
        if (k != 4)
            CHECK(!strstr(st[k], "order_wire_"));

    /* the freeze: each message once, the first received of its copies; a freeze cut short is
     * completed by the rerun (coordinates already in the manifest skipped) */
    CHECK(strstr(st[4], "\n     ORDER BY _topic, _partition, _offset, _load_ts\n     LIMIT 1 BY _topic, _partition, _offset));") !=
          NULL);
    CHECK(strstr(st[4], "AND (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset FROM "
                        "ods.order_manifest WHERE _load_id = {load_id:String})\n") != NULL);
    CHECK_EQ_INT(count(st[4], "stg.orders_raw"), 1);

    /* the seal counts the staged rows and the manifest's messages */
    CHECK(strstr(st[5], "FROM (SELECT count() AS n FROM stg.orders_raw WHERE _load_id = {load_id:String}) AS s,\n"
                        "     (SELECT count() AS n FROM ods.order_manifest WHERE _load_id = {load_id:String}) AS m\n") != NULL);

    /* a rerun records no error twice */
    snprintf(want, sizeof want, "\n  AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, _offset FROM "
             "ods.%s WHERE _load_id = {load_id:String})\n", g, m.cluster ? "order_snapshot_errors_dist" : "order_snapshot_errors");
    CHECK(strstr(st[8], want) != NULL);

    /* the housekeeping: only rows of loads an earlier transition folded, and only where _rep
     * holds that version or one order_v ranks at least as high */
    CHECK(strstr(st[6], "    WHERE rr._best >= (h.updated_at, hc.delta))\n") != NULL);
    snprintf(want, sizeof want, "\n  AND _load_id IN (SELECT _load_id FROM ods.%s WHERE delta < (SELECT max(delta) FROM ods.%s))\n",
             loads, loads);
    CHECK(strstr(st[6], want) != NULL);

    /* the fold: committed loads' hot rows not in _rep yet, nothing collapsed at insert time,
     * sorted by creation day (one part per day of a block, whatever the span) */
    CHECK(strstr(st[7], "optimize_on_insert = 0") != NULL);
    CHECK(ends(st[7], "\nORDER BY toYYYYMMDD(created_at);"));
    CHECK(!strstr(s, "max_partitions_per_insert_block = 3660"));
    snprintf(want, sizeof want, "\n  AND _load_id %sIN (SELECT _load_id FROM ods.%s)\n  AND (order_id, updated_at, _hashdiff, "
             "_load_id) %sNOT IN (SELECT order_id, updated_at, _hashdiff, _load_id FROM ods.%s\n", g, loads, g,
             m.cluster ? "order_snapshot_dist" : "order_snapshot_rep");
    CHECK(strstr(st[7], want) != NULL);

    /* the commit: its figures from the seal (staged rows, messages) and the manifest, stored and
     * stale from the tables; both identities checked against the tables before it writes */
    CHECK(strstr(st[10], "\n    f.staged, f.staged - f.messages, m.acc, s.n, m.acc - s.n - x.n, x.n, m.rej, m.c0, m.c1, m.c2\n"
                         "FROM (SELECT staged, messages FROM ods.order_frozen WHERE _load_id = {load_id:String} LIMIT 1) AS f,\n") != NULL);
    CHECK_EQ_INT(WIRE_NREJECT, 3); /* m.c0..m.c2 above */
    for (size_t i = 0; i < WIRE_NREJECT; i++) {
        snprintf(want, sizeof want, "countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
        CHECK_EQ_INT(count(st[10], want), 3); /* the figures, the manifest and errors tables in the check */
        snprintf(want, sizeof want, " OR e.c%zu != m.c%zu", i, i);
        CHECK_EQ_INT(count(st[10], want), 1);
    }
    CHECK(strstr(st[10], "if(m.n != f.messages, ") && strstr(st[10], "if(s.n + x.n > m.acc, "));
    snprintf(want, sizeof want, "    (SELECT count() AS n FROM ods.%s WHERE _load_id = {load_id:String}) AS s,\n",
             m.cluster ? "order_snapshot_hot_dist" : "order_snapshot_hot");
    CHECK(strstr(st[10], want) != NULL);

    /* throwing conversions only; time read by the lease, the seal and the commit */
    CHECK(!strstr(s, "OrZero") && !strstr(s, "OrNull") && !strstr(s, "BestEffort"));
    CHECK(!strstr(s, "now("));
    for (int k = 1; k <= NSTMT; k++)
        CHECK_EQ_INT(count(st[k], "now64("), k == 2 || k == 5 || k == 10);

    /* one node: no Distributed table, no GLOBAL; a cluster: ON CLUSTER on the housekeeping only
     * (it runs on every shard's hot table), every set over a Distributed table GLOBAL, and the
     * local ODS tables read only by the housekeeping (each shard's own) */
    if (!m.cluster) {
        CHECK(!strstr(s, "_dist") && !strstr(s, "GLOBAL") && !strstr(s, "ON CLUSTER"));
        return;
    }
    CHECK_EQ_INT(count(s, "ON CLUSTER"), 1);
    CHECK_EQ_INT(count(st[6], " ON CLUSTER c1 "), 1);
    for (int k = 1; k <= NSTMT; k++) {
        if (k != 6)
            check_global_in(st[k], k);
        if (k == 6 || !st[k])
            continue;
        static const char *const local[] = {"ods.order_snapshot_rep", "ods.order_snapshot_hot ", "ods.order_snapshot_hot\n",
                                            "ods.order_snapshot_errors ", "ods.order_snapshot_stale ", "ods.order_loads)"};
        for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
            CHECK(!strstr(st[k], local[i]));
    }
    CHECK_EQ_INT(count(s, "ods.order_loads "), 1); /* the commit's INSERT */
    CHECK_EQ_INT(count(s, "ods.order_loads ("), 1);
    CHECK(strstr(st[7], "distributed_foreground_insert = 1") && strstr(st[8], "distributed_foreground_insert = 1") &&
          strstr(st[9], "distributed_foreground_insert = 1"));
}

/* The default: store changes, typed by order_wire_parse in the freeze, one node. */
static void test_transition_default(void)
{
    mode m = {0};
    char *s = gen_transition(m), *st[MAXSTMT + 1];
    CHECK(s != NULL);
    if (!s || !split_stmts(s, NSTMT, st)) {
        free(s);
        return;
    }
    CHECK(!strstr(s, "\n-- 13. "));
    check_common(s, st, m);

    /* the freeze: one order_wire_parse call a message gives its class and typed fields; raw is
     * kept for rejected messages only (the errors table takes it from the manifest) */
    CHECK_EQ_INT(count(s, "order_wire_parse(raw)"), 1);
    CHECK_EQ_INT(count(st[4], "FROM (SELECT *, order_wire_parse(raw) AS _w FROM\n"), 1);
    CHECK_EQ_INT(count(s, "order_wire_class"), 0);
    char want[4096];
    size_t n = (size_t)snprintf(want, sizeof want, "_load_ts, _raw_hash, error_class, raw");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", %s", WIRE_FIELDS[i].name);
    snprintf(want + n, sizeof want - n, ")\nSELECT ");
    CHECK(strstr(st[4], want) != NULL);
    n = (size_t)snprintf(want, sizeof want, ", _w.class, if(_w.class != '', raw, '')");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", _w.%s", WIRE_FIELDS[i].name);
    snprintf(want + n, sizeof want - n, "\nFROM ");
    CHECK(strstr(st[4], want) != NULL);

    /* the gate: the typed columns are the manifest's, then _hashdiff */
    const char *ind = "            ";
    const char *p = strstr(st[9], "    FROM\n    (\n        SELECT\n");
    CHECK(p != NULL);
    p = p ? check_typed_udf(p + strlen("    FROM\n    (\n        SELECT\n"), ind) : NULL;
    check_hashdiff(p, ind);
    CHECK(strstr(st[9], "\n        FROM ods.order_manifest\n        WHERE _load_id = {load_id:String} AND NOT (error_class != '')\n"));
    CHECK(!strstr(st[9], "JSONType") && !strstr(st[9], "parseDateTime64") && !strstr(st[9], "raw"));
    /* the prior is what order_v shows for the load's own orders (the load, not committed, is not
     * in it); one version per updated_at within the load (the first received); what this
     * load already wrote to the hot table is never written again */
    CHECK(strstr(st[9], "    SELECT order_id, 1 AS _has_prior, updated_at AS _prior_updated_at, _hashdiff AS "
                        "_prior_hashdiff\n    FROM ods.order_v\n    WHERE order_id IN (SELECT order_id FROM ods.order_manifest "
                        "WHERE _load_id = {load_id:String} AND NOT (error_class != '') AND ") != NULL);
    CHECK_EQ_INT(count(s, "ods.order_v"), 1);
    CHECK(strstr(st[9], "row_number() OVER (PARTITION BY order_id, updated_at "
                        "ORDER BY _load_ts, _topic, _partition, _offset) AS _receipt\n") != NULL);
    CHECK(strstr(st[9], "    SELECT order_id, groupArray((updated_at, _hashdiff)) AS _mine\n    FROM ods.order_snapshot_hot\n"
                        "    WHERE _load_id = {load_id:String}\n") != NULL);
    /* each kept row's fate: stored (first received, changed, not stored by an earlier run) or
     * stale (older than the prior, not a version this load stored, not recorded yet) */
    CHECK(strstr(st[9], "    multiIf(_receipt = 1 AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND "
                        "_hashdiff != _prior_hashdiff))\n              AND NOT has(_mine, (updated_at, _hashdiff)), "
                        "'stored',\n            _has_prior AND updated_at < _prior_updated_at AND NOT has(_mine.1, "
                        "updated_at)\n              AND (_topic, _partition, _offset) NOT IN (SELECT _topic, "
                        "_partition, _offset FROM ods.order_snapshot_stale WHERE _load_id = {load_id:String}), "
                        "'stale',\n            '') AS _fate\n") != NULL);
    CHECK(ends(st[9], "\nWHERE _fate != ''\nLIMIT 1 BY _topic, _partition, _offset;"));
    snprintf(want, sizeof want, "INSERT INTO ods.order_gate (%s, _topic, _partition, _offset, _fate)\n"
                                "SETTINGS join_use_nulls = 0\nSELECT %s, _topic, _partition, _offset,\n", store_cols(),
             store_cols());
    CHECK(starts(st[9], want));
    /* stale: counted from the gate's records, each once */
    CHECK(strstr(st[10], "    (SELECT count() AS n FROM ods.order_snapshot_stale WHERE _load_id = {load_id:String}) AS x\n"));
    CHECK(strstr(st[10], "if(s.n != s.u, ") != NULL);
    free_stmts(st, NSTMT);
    free(s);
}

/* The freeze writes columns the manifest has, reading columns staging has (the schema is
 * test_ddl.c's; here the two modules must agree). */
static void test_transition_schema_agree(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    char *schema = gen(ddl_schema, &o);
    char *mcols = schema ? table_columns(schema, "ods.order_manifest") : NULL;
    char *rcols = schema ? table_columns(schema, "stg.orders_raw") : NULL;
    CHECK(mcols && rcols);
    for (int sql = 0; sql <= 1 && mcols && rcols; sql++) {
        mode m = {.sql = sql};
        char *s = gen_transition(m), *st[MAXSTMT + 1];
        if (!s || !split_stmts(s, NSTMT, st)) {
            CHECK(0);
            free(s);
            continue;
        }
        const char *l = st[4] + strlen("INSERT INTO ods.order_manifest (");
        const char *e = strchr(l, ')');
        /* every column with the UDF typing; without the typed ones with the SQL typing (typed
         * in the gate, from raw) */
        CHECK_EQ_INT(columns_in(l, e, mcols), count(mcols, "|") - 1 - (sql ? (int)WIRE_NFIELDS : 0));
        /* the columns the freeze reads from staging, when it names them */
        const char *rf = strstr(st[4], " FROM stg.orders_raw\n"), *r = NULL;
        CHECK(rf != NULL);
        for (const char *q = st[4]; rf && (q = strstr(q, "(SELECT ")) && q < rf; q++)
            r = q;
        CHECK(r != NULL);
        if (r && rf && strncmp(r, "(SELECT *", 9) != 0)
            CHECK(columns_in(r + strlen("(SELECT "), rf, rcols) >= 9);
        free_stmts(st, NSTMT);
        free(s);
    }
    free(mcols);
    free(rcols);
    free(schema);
}

/* --typing sql: the class by order_wire_class(raw) in the freeze, which keeps raw for every
 * message; each field typed by SQL from the manifest's raw in the gate. Every other statement
 * is the UDF typing's. */
static void test_transition_typing_sql(void)
{
    for (int cluster = 0; cluster <= 1; cluster++) {
        for (int every = 0; every <= 1; every++) {
            mode m = {.cluster = cluster, .every = every, .sql = 1}, mu = {.cluster = cluster, .every = every};
            char *s = gen_transition(m), *u = gen_transition(mu), *st[MAXSTMT + 1], *su[MAXSTMT + 1];
            if (!s || !u || !split_stmts(s, NSTMT, st) || !split_stmts(u, NSTMT, su)) {
                CHECK(0);
                free(s);
                free(u);
                return;
            }
            check_common(s, st, m);
            CHECK_EQ_INT(count(s, "order_wire_parse"), 0);
            CHECK_EQ_INT(count(s, "order_wire_class(raw)"), 1);
            CHECK(strstr(st[4], ", _raw_hash, error_class, raw)\nSELECT ") != NULL);
            CHECK(strstr(st[4], ", order_wire_class(raw), raw\nFROM ") != NULL);
            const char *ind = every ? "        " : "            ";
            const char *p = strstr(st[9], every ? "\n(\n    SELECT\n" : "    FROM\n    (\n        SELECT\n");
            CHECK(p != NULL);
            p = p ? check_typed_sql(p, ind) : NULL;
            check_hashdiff(p, ind);
            CHECK(strstr(st[9], "FROM ods.order_manifest\n") != NULL);
            if (!every) /* the prior's order ids: typed alike */
                CHECK(strstr(st[9], cluster ? "order_id GLOBAL IN (SELECT CAST(if(JSONType(raw, 'order_id') = 'String', "
                                              "JSONExtractString(raw, 'order_id'), NULL) AS String) FROM ods.order_manifest "
                                            : "order_id IN (SELECT CAST(if(JSONType(raw, 'order_id') = 'String', "
                                              "JSONExtractString(raw, 'order_id'), NULL) AS String) FROM ods.order_manifest ") != NULL);
            for (int k = 1; k <= NSTMT; k++)
                if (k != 4 && k != 9)
                    CHECK_EQ_STR(st[k], su[k]);
            free_stmts(st, NSTMT);
            free_stmts(su, NSTMT);
            free(s);
            free(u);
        }
    }
}

/* --store every: every accepted version into the hot table, with _hashdiff; no gate, no prior,
 * no stale. Only the good INSERT and the commit differ from store changes. */
static void test_transition_every(void)
{
    for (int cluster = 0; cluster <= 1; cluster++) {
        mode m = {.cluster = cluster, .every = 1}, mc = {.cluster = cluster};
        char *s = gen_transition(m), *c = gen_transition(mc), *st[MAXSTMT + 1], *sc[MAXSTMT + 1];
        if (!s || !c || !split_stmts(s, NSTMT, st) || !split_stmts(c, NSTMT, sc)) {
            CHECK(0);
            free(s);
            free(c);
            return;
        }
        check_common(s, st, m);
        CHECK(strstr(s, ", store every version: run the ") != NULL);
        char want[4096];
        snprintf(want, sizeof want, "INSERT INTO ods.%s (%s)\n%sSELECT %s\nFROM\n(\n    SELECT\n",
                 cluster ? "order_snapshot_hot_dist" : "order_snapshot_hot", store_cols(),
                 cluster ? "SETTINGS distributed_foreground_insert = 1\n" : "", store_cols());
        CHECK(starts(st[9], want));
        CHECK(ends(st[9], "\n);"));
        CHECK(!strstr(s, "_mine") && !strstr(s, "OVER") && !strstr(s, "_fate") && !strstr(s, "order_gate"));
        for (int k = 1; k <= NSTMT; k++) /* no prior */
            CHECK(!strstr(st[k], "order_v"));
        if (!cluster) { /* the typed items: the manifest's */
            const char *p = st[9] ? strstr(st[9], "\n(\n    SELECT\n") : NULL;
            CHECK(p != NULL);
            p = p ? check_typed_udf(p + strlen("\n(\n    SELECT\n"), "        ") : NULL;
            check_hashdiff(p, "        ");
        }
        CHECK(strstr(st[10], "\n    (SELECT toUInt64(0) AS n) AS x\nWHERE ") != NULL);
        for (int k = 1; k <= NSTMT; k++)
            if (k != 9 && k != 10)
                CHECK_EQ_STR(st[k], sc[k]);
        free_stmts(st, NSTMT);
        free_stmts(sc, NSTMT);
        free(s);
        free(c);
    }
}

/* --cluster: the checks of check_common; what only the store changes mode does on a cluster. */
static void test_transition_cluster(void)
{
    mode m = {.cluster = 1};
    char *s = gen_transition(m), *st[MAXSTMT + 1];
    if (!s || !split_stmts(s, NSTMT, st)) {
        CHECK(0);
        free(s);
        return;
    }
    check_common(s, st, m);
    /* the gate on this node (its views write through the shards); the shards get the load's
     * order ids from this node's manifest: GLOBAL IN; the prior is order_v (over the _dist
     * tables), the load's own hot rows and stale records come through the _dist tables */
    CHECK(strstr(st[9], "_fate)\nSETTINGS distributed_foreground_insert = 1, join_use_nulls = 0\nSELECT") != NULL);
    CHECK(strstr(st[9], "    FROM ods.order_v\n    WHERE order_id GLOBAL IN (SELECT order_id FROM ods.order_manifest ") != NULL);
    CHECK(strstr(st[9], "    FROM ods.order_snapshot_hot_dist\n    WHERE _load_id = {load_id:String}\n") != NULL);
    CHECK(strstr(st[9], "(_topic, _partition, _offset) GLOBAL NOT IN (SELECT _topic, _partition, _offset FROM "
                        "ods.order_snapshot_stale_dist WHERE _load_id = {load_id:String})") != NULL);
    CHECK(strstr(st[10], "    (SELECT count() AS n FROM ods.order_snapshot_stale_dist WHERE _load_id = {load_id:String}) AS x\n"));
    /* the manifest, the seal and the lease are this node's: never GLOBAL, never _dist */
    CHECK(!strstr(s, "order_manifest_dist") && !strstr(s, "order_frozen_dist") && !strstr(s, "order_lease_dist"));
    free_stmts(st, NSTMT);
    free(s);

    /* the cluster's name quoted as the schema quotes it, in the one place it is named */
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = "o'{env}"};
    s = gen(ddl_transition, &o);
    CHECK(s != NULL);
    CHECK(s && strstr(s, "ALTER TABLE ods.order_snapshot_hot ON CLUSTER 'o\\'{env}' DELETE WHERE ") != NULL);
    CHECK_EQ_INT(count(s, "{env}"), 1);
    free(s);
}

/* --allow-empty: only the check "no rows are staged" goes (from 1 and 3). */
static void test_transition_allow_empty(void)
{
    mode m = {.allow_empty = 1}, d = {0};
    char *s = gen_transition(m), *c = gen_transition(d), *st[MAXSTMT + 1], *sc[MAXSTMT + 1];
    if (!s || !c || !split_stmts(s, NSTMT, st) || !split_stmts(c, NSTMT, sc)) {
        CHECK(0);
        free(s);
        free(c);
        return;
    }
    check_common(s, st, m);
    CHECK(!strstr(s, "no rows are staged") && !strstr(s, "--allow-empty"));
    CHECK(strstr(c, "(ods-ddl transition --allow-empty commits an empty load)") != NULL);
    for (int k = 2; k <= NSTMT; k++)
        if (k != 3)
            CHECK_EQ_STR(st[k], sc[k]);
    free_stmts(st, NSTMT);
    free_stmts(sc, NSTMT);
    free(s);
    free(c);
}

/* Other database names: every table named with them, nothing with the defaults. */
static void test_transition_names(void)
{
    gen_fn fns[] = {ddl_transition, ddl_abandon, ddl_move_late};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        ddl_opts o = {.stg_db = "s1", .ods_db = "o1"};
        char *s = gen(fns[i], &o);
        CHECK(s != NULL);
        CHECK(s && !strstr(s, "stg.") && !strstr(s, "ods."));
        CHECK(s && strstr(s, "o1.order_lease"));
        CHECK(s && (fns[i] == ddl_abandon || strstr(s, "s1.orders_raw"))); /* abandon leaves staging alone */
        free(s);
    }
}

/* ods-ddl abandon: under the lease, refusing a committed load, the load's rows in every table
 * it wrote removed, the seal last (until then the load stays frozen: no other load starts,
 * and a cut-short abandon is run again). */
static void test_abandon(void)
{
    for (int cluster = 0; cluster <= 1; cluster++) {
        ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = cluster ? "c1" : NULL};
        char *s = gen(ddl_abandon, &o), *st[MAXSTMT + 1];
        if (!s || !split_stmts(s, 10, st)) {
            CHECK(0);
            free(s);
            return;
        }
        CHECK(starts(s, "-- ods-ddl abandon: "));
        char guard[256], want[4096];
        snprintf(guard, sizeof guard, "{load_id:String} %sNOT IN (SELECT _load_id FROM ods.%s)", cluster ? "GLOBAL " : "",
                 cluster ? "order_loads_dist" : "order_loads");
        CHECK_EQ_STR(st[2], "CREATE TABLE ods.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                            "now64(3, 'UTC') AS since;");
        CHECK_EQ_STR(st[10], "DROP TABLE ods.order_lease;");
        CHECK(strstr(st[1], "the lease is held by load ") != NULL);
        /* 3: refuses a committed load */
        snprintf(want, sizeof want, "if({load_id:String} %sIN (SELECT _load_id FROM ods.%s), concat('abandon 3/10: load ",
                 cluster ? "GLOBAL " : "", cluster ? "order_loads_dist" : "order_loads");
        CHECK(strstr(st[3], want) && strstr(st[3], " is committed: a committed load is never abandoned"));
        /* 4-8: hot, errors, stale (each shard's, ON CLUSTER), then the manifest and the seal
         * (this node's) */
        static const char *const tables[] = {"order_snapshot_hot", "order_snapshot_errors", "order_snapshot_stale",
                                             "order_manifest", "order_frozen"};
        for (int k = 4; k <= 8; k++) {
            int shard = k <= 6;
            snprintf(want, sizeof want, "ALTER TABLE ods.%s%s DELETE WHERE _load_id = {load_id:String} AND %s\n"
                     "SETTINGS mutations_sync = 2%s;", tables[k - 4], cluster && shard ? " ON CLUSTER c1" : "", guard,
                     cluster ? ", allow_nondeterministic_mutations = 1" : "");
            CHECK_EQ_STR(st[k], want);
        }
        CHECK_EQ_INT(count(s, "ON CLUSTER"), cluster ? 3 : 0);
        CHECK_EQ_INT(count(s, "order_frozen"), 1); /* only 8 names the seal: it goes last */
        CHECK_EQ_INT(count(s, "DELETE WHERE"), 5);
        static const int lease[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0};
        static const int msgs[] = {0, -1, 0, -1, 0, 0, 0, 0, 0, 1, 0};
        for (int k = 1; k <= 10; k++) {
            CHECK_EQ_INT(count(st[k], "does not hold the lease"), lease[k]);
            check_messages(st[k], "abandon", k, 10, msgs[k]);
        }
        CHECK(!strstr(s, "'transition "));
        free_stmts(st, 10);
        free(s);
    }
}

/* ods-ddl move-late: rows staged under a frozen load after its freeze copied to a new load,
 * then removed from the old one: the same rows (not in the manifest) in both, and only those
 * already copied removed, so a cut-short run loses nothing when run again. */
static void test_move_late(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    char *s = gen(ddl_move_late, &o), *st[MAXSTMT + 1];
    if (!s || !split_stmts(s, 7, st)) {
        CHECK(0);
        free(s);
        return;
    }
    CHECK(starts(s, "-- ods-ddl move-late: "));
    CHECK_EQ_STR(st[2], "CREATE TABLE ods.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                        "now64(3, 'UTC') AS since;");
    CHECK_EQ_STR(st[7], "DROP TABLE ods.order_lease;");
    /* 3: the load frozen; the new id a load id, another one, not frozen or committed */
    CHECK(strstr(st[3], "' is not frozen: nothing staged under it is late") != NULL);
    CHECK(strstr(st[3], "if(NOT match({to_load_id:String}, '^[A-Za-z0-9][A-Za-z0-9._:+/-]{0,127}$') OR "
                        "{to_load_id:String} = {load_id:String},\n") != NULL);
    CHECK(strstr(st[3], "if({to_load_id:String} IN (SELECT _load_id FROM ods.order_frozen) OR {to_load_id:String} IN "
                        "(SELECT _load_id FROM ods.order_loads),\n") != NULL);
    /* 4: the copy, coordinates and _load_ts kept */
    CHECK(starts(st[4], "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)\n"
                        "SELECT raw, _topic, _partition, _offset, _timestamp, _key, {to_load_id:String}, _load_ts\n"
                        "FROM stg.orders_raw\nWHERE _load_id = {load_id:String} AND "));
    /* 5: the delete of what was copied */
    CHECK(starts(st[5], "ALTER TABLE stg.orders_raw DELETE WHERE _load_id = {load_id:String} AND "));
    CHECK(ends(st[5], "\nSETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;"));
    /* the same late rows in both: the condition after the load id, to the end of its line */
    const char *a = strstr(st[4], "WHERE _load_id = {load_id:String} AND ");
    const char *b = strstr(st[5], "WHERE _load_id = {load_id:String} AND ");
    if (a && b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        CHECK(la == lb && !strncmp(a, b, la));
        const char *mf = "ods.order_manifest WHERE _load_id = {load_id:String}";
        CHECK(memmem(a, la, mf, strlen(mf)) != NULL);
    }
    /* 4 copies what the new load does not hold yet, 5 deletes only what it holds: the line of
     * each that reads the new load */
    for (int k = 4; k <= 5; k++) {
        const char *nl = strstr(st[k], "\n  AND (_topic, _partition, _offset, ");
        const char *e = nl ? strchr(nl + 1, '\n') : NULL;
        CHECK(e != NULL);
        if (!e)
            continue;
        CHECK(memmem(nl, (size_t)(e - nl), " FROM stg.orders_raw WHERE _load_id = {to_load_id:String})", 58) != NULL);
        CHECK_EQ_INT(memmem(nl, (size_t)(e - nl), " NOT IN (SELECT ", 16) != NULL, k == 4);
        CHECK(memmem(nl, (size_t)(e - nl), " IN (SELECT ", 12) != NULL);
    }
    static const int lease[] = {0, 0, 0, 1, 1, 0, 1, 0};
    static const int msgs[] = {0, -1, 0, -1, 1, 0, 1, 0};
    for (int k = 1; k <= 7; k++) {
        CHECK_EQ_INT(count(st[k], "does not hold the lease"), lease[k]);
        check_messages(st[k], "move-late", k, 7, msgs[k]);
    }
    CHECK(!strstr(s, "'transition "));
    free_stmts(st, 7);
    free(s);
}

/* ods-ddl stage: the lines of a file (read by the engine) or of the client's input, one
 * message each: topic the source, partition 0, offset the line number from 1; empty lines
 * skipped but counted; one reading thread, so lines are numbered in file order. */
static void test_stage(void)
{
    const char *tail = "FROM (SELECT raw, rowNumberInAllBlocks() + 1 AS _line FROM ";
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    char *s = gen(ddl_stage, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    const char *ins = strstr(s, "\nINSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, "
                                "_load_ts)\nSELECT raw, 'file', 0, _line, NULL, '', {load_id:String}, now64(3, 'UTC')\n");
    CHECK(ins != NULL);
    CHECK(ins && strstr(ins, tail) != NULL);
    /* the client's input: the data follows FORMAT, so no ';' after it */
    CHECK(ends(s, "FROM input('raw String'))\nWHERE raw != ''\nSETTINGS input_format_parallel_parsing = 0, "
                  "max_threads = 1\nFORMAT LineAsString\n"));
    CHECK(ins && !strchr(ins, ';'));
    CHECK(starts(s, "-- ods-ddl stage: "));
    CHECK_EQ_INT(count(s, "INSERT"), 1);
    free(s);

    /* a file: its path a quoted literal (a quote and a backslash in it), a named source */
    o.file = "/data/it's a\\b.jsonl";
    o.source = "backfill-1";
    s = gen(ddl_stage, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(strstr(s, "\nSELECT raw, 'backfill-1', 0, _line, NULL, '', {load_id:String}, now64(3, 'UTC')\n") != NULL);
    CHECK(ends(s, "FROM file('/data/it\\'s a\\\\b.jsonl', LineAsString, 'raw String'))\nWHERE raw != ''\n"
                  "SETTINGS input_format_parallel_parsing = 0, max_threads = 1;\n"));
    CHECK(!strstr(s, "input("));
    CHECK_EQ_INT(count(s, ";\n"), 1);
    free(s);

    o.stg_db = "s1";
    s = gen(ddl_stage, &o);
    CHECK(s && strstr(s, "\nINSERT INTO s1.orders_raw (") && !strstr(s, "stg."));
    free(s);
}

static void test_kafka(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .brokers = "k1:9092,k2:9092", .topic = "orders",
                  .group = "ods-loader"};
    char *s = gen(ddl_kafka, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_INT(count(s, ";\n"), 3);
    /* the check after the batch: no message staged under the load fails the run, naming the
     * consumer's last error from system.kafka_consumers */
    CHECK(strstr(s, "SELECT throwIf((SELECT count() FROM stg.orders_raw WHERE _load_id = {load_id:String}) = 0\n") != NULL);
    CHECK(strstr(s, "FROM system.kafka_consumers WHERE database = 'stg' AND table = 'orders_kafka')))\nFORMAT Null;\n") != NULL);
    CHECK(strstr(s, "(brokers ', 'k1:9092,k2:9092',\n") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS stg.orders_kafka\n(\n    raw String\n)\nENGINE = Kafka\n") != NULL);
    CHECK(strstr(s, "kafka_broker_list = 'k1:9092,k2:9092',\n") != NULL);
    CHECK(strstr(s, "kafka_topic_list = 'orders',\n") != NULL);
    CHECK(strstr(s, "kafka_group_name = 'ods-loader',\n") != NULL);
    CHECK(strstr(s, "kafka_format = 'RawBLOB',\n") != NULL);
    CHECK(strstr(s, "kafka_num_consumers = 1,\n") != NULL);
    CHECK(strstr(s, "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts)\n") != NULL);
    CHECK(strstr(s, "{load_id:String}, now64(3, 'UTC')\nFROM stg.orders_kafka\nWHERE raw != ''\n") != NULL);
    CHECK_EQ_INT(count(s, "ON CLUSTER"), 0);
    free(s);
}

/* The helpers above, on texts whose answer is known. */
static void test_helpers(void)
{
    char *x = strip_literals("a 'b\\'c' d 'e''f' g '' h");
    CHECK_EQ_STR(x, "a '' d '' g '' h");
    free(x);
    char *st[MAXSTMT + 1];
    CHECK_EQ_INT(split_stmts("-- head\n-- 1. one\nA;\n\n-- 2. two\nB\nC;\n", 2, st), 1);
    CHECK_EQ_STR(st[1], "A;");
    CHECK_EQ_STR(st[2], "B\nC;");
    free_stmts(st, 2);
    char *cols = table_columns("CREATE TABLE IF NOT EXISTS t\n(\n    a String,\n    b Nullable(UInt8)\n)\nENGINE = Log", "t");
    CHECK_EQ_STR(cols, "|a|b|");
    free(cols);
}

int main(void)
{
    test_helpers();
    test_transition_default();
    test_transition_schema_agree();
    test_transition_typing_sql();
    test_transition_every();
    test_transition_cluster();
    test_transition_allow_empty();
    test_transition_names();
    test_abandon();
    test_move_late();
    test_stage();
    test_kafka();
    return check_report();
}
