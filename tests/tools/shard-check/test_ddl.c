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
    sc_ddl_opts o = {"ods_cluster", local, lp};
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

int main(void)
{
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
    sc_ddl_opts o = {"ods_cluster", "ods.l", NULL};
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
    return check_report();
}
