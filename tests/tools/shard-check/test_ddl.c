/* test_ddl.c: the ddl check on the fixtures: the good cluster DDL and the engine's own SHOW
 * CREATE TABLE output pass; each bad variant fails with its reason; malformed SQL is an error. */
#include <stdlib.h>

#include "check.h"
#include "ddl.h"

#define FIX ODS_SOURCE_DIR "/tests/fixtures/shard/ddl/"

static size_t n_problems;
static char *problems_text;

static int run(const char *file, const char *local, const char *layout_path, int *rc_out)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return -100;
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    sc_cluster c, *lp = NULL;
    sc_err e = {0};
    if (layout_path && sc_layout_load(layout_path, "ods_cluster", &c, &e) == SC_OK)
        lp = &c;
    sc_ddl_opts o = {"ods_cluster", local, lp, NULL};
    size_t rlen, plen;
    char *rtext = NULL;
    free(problems_text);
    problems_text = NULL;
    FILE *r = open_memstream(&rtext, &rlen), *p = open_memstream(&problems_text, &plen);
    *rc_out = sc_ddl_check(buf, len, &o, r, p, &n_problems, &e);
    fclose(r);
    fclose(p);
    free(rtext);
    if (lp)
        sc_cluster_free(lp);
    return (int)n_problems;
}

#define CHECK_FAILS(file, local, needle)                        \
    do {                                                        \
        int rc_;                                                \
        CHECK(run(FIX file, local, NULL, &rc_) >= 1);           \
        CHECK_EQ_INT(rc_, SC_OK);                               \
        CHECK(problems_text && strstr(problems_text, needle));  \
    } while (0)

/* sc_ddl_check on inline SQL for cluster `cluster` with macros m: the report and the problems
 * (malloc'ed, the caller frees them), the number of problems in *n; returns the status. */
static int check_sql(const char *sql, const char *cluster, const sc_macros *m, char **report, char **probs,
                     size_t *n, sc_err *e)
{
    sc_ddl_opts o = {cluster, NULL, NULL, m};
    size_t rlen, plen;
    *report = *probs = NULL;
    FILE *r = open_memstream(report, &rlen), *p = open_memstream(probs, &plen);
    int rc = sc_ddl_check(sql, strlen(sql), &o, r, p, n, e);
    fclose(r);
    fclose(p);
    return rc;
}

/* A local ReplacingMergeTree and a Distributed table over it whose cluster argument is ARG. */
#define DIST_SQL(arg)                                                                                      \
    "CREATE TABLE ods.order_snapshot_rep (order_id String, created_at DateTime, updated_at DateTime) "     \
    "ENGINE = ReplacingMergeTree(updated_at) PARTITION BY toDate(created_at) ORDER BY order_id;\n"          \
    "CREATE TABLE ods.order_snapshot_dist ON CLUSTER " arg " AS ods.order_snapshot_rep "                     \
    "ENGINE = Distributed(" arg ", ods, order_snapshot_rep, cityHash64(order_id));\n"

/* Cluster names as the engine's getClusterName reads them: quoted, hyphenated, with macros. */
static void test_cluster_names(void)
{
    static const struct {
        const char *sql, *cluster;
    } ok[] = {
        {DIST_SQL("'prod-ods'"), "prod-ods"},
        {DIST_SQL("`prod-ods`"), "prod-ods"},
        {DIST_SQL("\"prod-ods\""), "prod-ods"},
        {DIST_SQL("prod-ods"), "prod-ods"},       /* minus(prod, ods): the engine joins it with '-' */
        {DIST_SQL("prod - ods"), "prod-ods"},     /* however it is spaced */
        {DIST_SQL("a-b-c"), "a-b-c"},
        {DIST_SQL("'o\\'ds'"), "o'ds"},          /* escapes as the engine decodes them */
        {DIST_SQL("'o''ds'"), "o'ds"},
        {DIST_SQL("'a\\\\b'"), "a\\b"},
        {DIST_SQL("'a\\x2Db'"), "a-b"},
        {DIST_SQL("'x`y'"), "x`y"},
        {DIST_SQL("'a b'"), "a b"},
        {DIST_SQL("'1ods'"), "1ods"},
        {DIST_SQL("'\xd0\xba\xd0\xbb'"), "\xd0\xba\xd0\xbb"},
        {DIST_SQL("'null'"), "null"},
        {DIST_SQL("ods_cluster"), "ods_cluster"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char *rep, *pr;
        size_t n = 9;
        sc_err e = {0};
        CHECK_EQ_INT(check_sql(ok[i].sql, ok[i].cluster, NULL, &rep, &pr, &n, &e), SC_OK);
        if (n != 0)
            fprintf(stderr, "case %zu (%s): %s", i, ok[i].cluster, pr);
        CHECK_EQ_INT(n, 0);
        free(rep);
        free(pr);
    }
    /* literals and expressions name no cluster: the engine refuses them, and so do we */
    const char *bad[] = {DIST_SQL("NULL"), DIST_SQL("true"), DIST_SQL("inf"), DIST_SQL("nan"), DIST_SQL("prod-1"),
                         DIST_SQL("concat('a', 'b')"), DIST_SQL("-prod")};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *rep, *pr;
        size_t n = 0;
        sc_err e = {0};
        CHECK_EQ_INT(check_sql(bad[i], "null", NULL, &rep, &pr, &n, &e), SC_OK);
        CHECK_EQ_INT(n, 1);
        CHECK(pr && strstr(pr, "points at cluster (an expression), not ") != NULL);
        free(rep);
        free(pr);
    }
    /* a cluster name that holds a line feed cannot forge a report line */
    char *rep, *pr;
    size_t n = 0;
    sc_err e = {0};
    CHECK_EQ_INT(check_sql(DIST_SQL("'a\\nb'"), "c", NULL, &rep, &pr, &n, &e), SC_OK);
    CHECK(pr && strstr(pr, "points at cluster a\\nb, not c:") != NULL);
    CHECK(rep && strstr(rep, "on cluster a\\nb, sharding key") != NULL);
    free(rep);
    free(pr);
}

/* {macro} in the DDL's cluster name: expanded from --macro, else the config's <macros>. */
static void test_macros(void)
{
    const char *defs[] = {"cluster=wrong", "env=prod", "cluster=ods_cluster", "nested={env}_x"};
    sc_macros m = {.defs = defs, .n_defs = 4};
    char *out = NULL, *rep, *pr;
    size_t n = 9;
    sc_err e = {0};
    /* the last definition wins; values are expanded again, as the server does */
    CHECK_EQ_INT(sc_macros_expand(&m, "{cluster}", &out, &e), SC_OK);
    CHECK_EQ_STR(out, "ods_cluster");
    free(out);
    CHECK_EQ_INT(sc_macros_expand(&m, "ods_{env}-{nested}}", &out, &e), SC_OK);
    CHECK_EQ_STR(out, "ods_prod-prod_x}");
    free(out);
    CHECK_EQ_INT(sc_macros_expand(&m, "plain", &out, &e), SC_OK);
    CHECK_EQ_STR(out, "plain");
    free(out);
    /* unknown, unclosed, and a value that refers to itself (10 levels, then refused) */
    CHECK_EQ_INT(sc_macros_expand(&m, "{shard}", &out, &e), SC_E_INPUT);
    CHECK_EQ_STR(e.where, "macro {shard} in cluster name '{shard}'");
    CHECK(strstr(e.msg, "give --macro NAME=VALUE") != NULL);
    CHECK_EQ_INT(sc_macros_expand(&m, "a{cluster", &out, &e), SC_E_INPUT);
    CHECK(strstr(e.msg, "without its '}'") != NULL);
    const char *loop[] = {"a={a}"};
    sc_macros ml = {.defs = loop, .n_defs = 1};
    CHECK_EQ_INT(sc_macros_expand(&ml, "{a}", &out, &e), SC_E_INPUT);
    CHECK(strstr(e.msg, "too deep") != NULL);
    CHECK_EQ_INT(sc_macros_expand(NULL, "{a}", &out, &e), SC_E_INPUT);

    /* in the DDL: Distributed('{cluster}', ...) is the cluster the macro names */
    CHECK_EQ_INT(check_sql(DIST_SQL("'{cluster}'"), "ods_cluster", &m, &rep, &pr, &n, &e), SC_OK);
    CHECK_EQ_INT(n, 0);
    CHECK(rep && strstr(rep, "on cluster ods_cluster ({cluster}), sharding key") != NULL);
    free(rep);
    free(pr);
    CHECK_EQ_INT(check_sql(DIST_SQL("'ods_{env}'"), "ods_cluster", &m, &rep, &pr, &n, &e), SC_OK);
    CHECK_EQ_INT(n, 1);
    CHECK(pr && strstr(pr, "points at cluster ods_prod (ods_{env}), not ods_cluster") != NULL);
    free(rep);
    free(pr);
    /* no value anywhere: an input error naming the macro, not a silent mismatch */
    e = (sc_err){0};
    CHECK_EQ_INT(check_sql(DIST_SQL("'{cluster}'"), "ods_cluster", NULL, &rep, &pr, &n, &e), SC_E_INPUT);
    CHECK_EQ_STR(e.where, "macro {cluster} in cluster name '{cluster}'");
    free(rep);
    free(pr);
    /* from the config's <macros>, verbatim (the server does not trim them) */
    sc_macros mc = {0};
    CHECK_EQ_INT(sc_macros_load_config(&mc, FIX "../names/macros.xml"), SC_OK);
    CHECK_EQ_INT(sc_macros_expand(&mc, "{cluster}", &out, &e), SC_OK);
    CHECK_EQ_STR(out, "ods_cluster");
    free(out);
    CHECK_EQ_INT(sc_macros_expand(&mc, "{padded}", &out, &e), SC_OK);
    CHECK_EQ_STR(out, " ods_cluster ");
    free(out);
    CHECK_EQ_INT(sc_macros_expand(&mc, "{missing}", &out, &e), SC_E_INPUT);
    CHECK(strstr(e.msg, "<macros> does not define it") != NULL);
    sc_macros_free_config(&mc);
    /* --macro wins over the config */
    const char *over[] = {"cluster=other"};
    sc_macros mo = {.defs = over, .n_defs = 1};
    CHECK_EQ_INT(sc_macros_load_config(&mo, FIX "../names/macros.xml"), SC_OK);
    CHECK_EQ_INT(sc_macros_expand(&mo, "{cluster}", &out, &e), SC_OK);
    CHECK_EQ_STR(out, "other");
    free(out);
    sc_macros_free_config(&mo);
    /* a dump has no <macros> */
    sc_macros md = {0};
    CHECK_EQ_INT(sc_macros_load_config(&md, ODS_SOURCE_DIR "/tests/fixtures/shard/clusters.tsv"), SC_OK);
    CHECK_EQ_INT(sc_macros_expand(&md, "{cluster}", &out, &e), SC_E_INPUT);
    CHECK(strstr(e.msg, "system.clusters dump") != NULL);
}

/* Rows read beside the versions go where the versions go: a Distributed table whose local table
 * holds the versions' sharding-key columns must route by the same key (rand(), another key, no
 * key fail); one without them (errors, ledger) is skipped; an AS table takes its source's columns. */
static void test_colocation(void)
{
    const char *rep = "CREATE TABLE ods.r (order_id String, created_at DateTime, updated_at DateTime) "
                      "ENGINE = ReplacingMergeTree(updated_at) PARTITION BY toDate(created_at) ORDER BY order_id;\n"
                      "CREATE TABLE ods.r_dist AS ods.r ENGINE = Distributed(c, ods, r, cityHash64(order_id));\n"
                      "CREATE TABLE ods.h (order_id String, updated_at DateTime) ENGINE = MergeTree ORDER BY order_id;\n"
                      "CREATE TABLE ods.e (raw String, _offset UInt64) ENGINE = MergeTree ORDER BY _offset;\n"
                      "CREATE TABLE ods.e_dist AS ods.e ENGINE = Distributed(c, ods, e, cityHash64(_offset));\n"
                      "CREATE TABLE ods.s AS ods.h ENGINE = MergeTree ORDER BY order_id;\n";
    static const struct {
        const char *hot, *stale;
        size_t problems;
        const char *needle;
    } cases[] = {
        {"cityHash64(order_id)", "cityHash64(order_id)", 0, NULL},
        {"rand()", "cityHash64(order_id)", 1, "ods.h_dist: shards by rand(), not by cityHash64(order_id) as ods.r_dist does"},
        {"cityHash64(order_id)", "cityHash64(order_id, updated_at)", 1, "ods.s_dist: shards by cityHash64(order_id,updated_at)"},
        {"sipHash64(order_id)", "rand()", 2, "ods.h_dist: shards by sipHash64(order_id)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sql[2048];
        snprintf(sql, sizeof sql,
                 "%sCREATE TABLE ods.h_dist AS ods.h ENGINE = Distributed(c, ods, h, %s);\n"
                 "CREATE TABLE ods.s_dist AS ods.s ENGINE = Distributed(c, ods, s, %s);\n", rep, cases[i].hot,
                 cases[i].stale);
        char *r, *p;
        size_t n = 0;
        sc_err e = {0};
        CHECK_EQ_INT(check_sql(sql, "c", NULL, &r, &p, &n, &e), SC_OK);
        CHECK_EQ_INT(n, cases[i].problems);
        if (cases[i].needle)
            CHECK(p && strstr(p, cases[i].needle));
        CHECK(r && strstr(r, "ods.e_dist -> ods.e: skipped (its rows are not read by order"));
        if (!cases[i].problems)
            CHECK(r && strstr(r, "ods.s_dist -> ods.s, sharding key cityHash64(order_id): ok (routed with the versions)"));
        free(r);
        free(p);
    }
    /* no key at all on a table holding order_id */
    char *r, *p;
    size_t n = 0;
    sc_err e = {0};
    char sql[2048];
    snprintf(sql, sizeof sql, "%sCREATE TABLE ods.h_dist AS ods.h ENGINE = Distributed(c, ods, h);\n", rep);
    CHECK_EQ_INT(check_sql(sql, "c", NULL, &r, &p, &n, &e), SC_OK);
    CHECK_EQ_INT(n, 1);
    CHECK(p && strstr(p, "ods.h_dist: shards by (none), not by cityHash64(order_id)"));
    free(r);
    free(p);
}

int main(void)
{
    test_colocation();
    int rc;
    CHECK_EQ_INT(run(FIX "good-cluster.sql", NULL, NULL, &rc), 0);
    CHECK_EQ_INT(rc, SC_OK);
    CHECK_EQ_INT(run(FIX "good-cluster.sql", "ods.order_snapshot_rep", NULL, &rc), 0);
    CHECK_EQ_INT(run(FIX "show-create.tsv", NULL, NULL, &rc), 0);
    CHECK_EQ_INT(rc, SC_OK);
    /* replicated tables on the example layout (internal_replication true): fine */
    CHECK_EQ_INT(run(FIX "good-cluster.sql", NULL, ODS_SOURCE_DIR "/clickhouse-config/cluster.example.xml", &rc), 0);
    /* plain ReplacingMergeTree over that layout: replicas would diverge */
    CHECK_EQ_INT(run(FIX "show-create.tsv", NULL, ODS_SOURCE_DIR "/clickhouse-config/cluster.example.xml", &rc), 3);
    CHECK(strstr(problems_text, "replicas diverge") != NULL);

    CHECK_FAILS("bad-key-updated-at.sql", NULL, "uses updated_at, which is not part of the local table's ORDER BY");
    CHECK_FAILS("bad-key-rand.sql", NULL, "sharding key rand() does not depend on the order's key");
    CHECK_FAILS("bad-no-key.sql", NULL, "no sharding key");
    CHECK_FAILS("bad-key-siphash.sql", NULL, "is not cityHash64(<ORDER BY key>)");
    CHECK_FAILS("bad-version.sql", NULL, "version column snapshot_date, not updated_at");
    CHECK_FAILS("bad-no-version.sql", NULL, "without a version column");
    CHECK_FAILS("bad-partition.sql", NULL, "depends on updated_at, not only on the immutable created_at");
    CHECK_FAILS("bad-cluster.sql", NULL, "points at cluster other_cluster, not ods_cluster");
    CHECK_FAILS("bad-engine.sql", "ods.order_snapshot_rep", "not ReplacingMergeTree");
    CHECK_FAILS("bad-engine.sql", NULL, "no Distributed table over a ReplacingMergeTree");
    CHECK_FAILS("good-cluster.sql", "ods.other_rep", "no Distributed table points at ods.other_rep");

    CHECK_EQ_INT(run(FIX "malformed.sql", NULL, NULL, &rc), 0);
    CHECK_EQ_INT(rc, SC_E_INPUT);

    /* inline: a Distributed table whose local table is absent */
    const char *sql = "CREATE TABLE ods.d AS ods.l ENGINE = Distributed(ods_cluster, ods, l, cityHash64(order_id))";
    sc_ddl_opts o = {"ods_cluster", "ods.l", NULL, NULL};
    size_t n, plen;
    sc_err e = {0};
    char *pt = NULL;
    FILE *p = open_memstream(&pt, &plen), *r = fopen("/dev/null", "w");
    CHECK_EQ_INT(sc_ddl_check(sql, strlen(sql), &o, r, p, &n, &e), SC_OK);
    fclose(p);
    fclose(r);
    CHECK_EQ_INT(n, 1);
    CHECK(strstr(pt, "not in the input") != NULL);
    free(pt);
    free(problems_text);
    test_cluster_names();
    test_macros();
    return check_report();
}
