/* test_monitor: unit tests of ods-ddl's module monitor (status, check): where each figure is
 * read from, one node and cluster, the thresholds as written; the engine: monitor.bats. */
#include "ddl_text.h"
#include "monitor.h"

static ddl_check_limits g_lim = {24, 5};

static int check_gen(FILE *f, const ddl_opts *o) { return ddl_check(f, o, &g_lim); }

static void test_one_node(void)
{
    ddl_opts o = {.stg_db = "s1", .ods_db = "o1"};
    char *s = gen(ddl_status, &o);
    CHECK(s != NULL);
    CHECK(starts(s, "-- ods-ddl status: "));
    CHECK(ends(s, "ORDER BY l.delta IS NULL, l.delta, s.first_staged, load_id\nSETTINGS join_use_nulls = 1;\n"));
    CHECK_EQ_INT(count(s, ";\n"), 1);
    /* every source of a load id, by its database */
    CHECK_EQ_INT(count(s, "FROM s1.orders_raw"), 3);
    CHECK_EQ_INT(count(s, "FROM o1.order_frozen"), 3);
    CHECK_EQ_INT(count(s, "FROM o1.order_manifest"), 1);
    CHECK_EQ_INT(count(s, "FROM o1.order_lease_v"), 2);
    CHECK_EQ_INT(count(s, "FROM o1.order_loads"), 3);
    CHECK_EQ_INT(count(s, "FROM o1.order_snapshot_hot "), 1);
    CHECK_EQ_INT(count(s, "FROM o1.order_snapshot_hot)"), 1);
    CHECK(!strstr(s, "_dist") && !strstr(s, "GLOBAL") && !strstr(s, "stg.") && !strstr(s, "ods."));
    /* the ledger's identities, and no threshold in status */
    CHECK_EQ_INT(count(s, "l.received != l.accepted + l.rejected + l.redelivered"), 1);
    CHECK_EQ_INT(count(s, "l.accepted != l.stored + l.unchanged + l.stale"), 1);
    CHECK(!strstr(s, "toIntervalHour"));
    free(s);

    g_lim.max_open_hours = 7, g_lim.max_reject_pct = 13;
    char *c = gen(check_gen, &o);
    CHECK(c != NULL);
    CHECK(starts(c, "-- ods-ddl check: fails naming every load that needs a person (not committed 7 hours after"));
    CHECK(ends(c, "WHERE problem != '') AS _p\nSELECT throwIf(_p != '', _p)\nFORMAT Null;\n"));
    CHECK_EQ_INT(count(c, "toIntervalHour(7)"), 2);
    CHECK_EQ_INT(count(c, "l.rejected * 100 > l.received * 13"), 1);
    CHECK_EQ_INT(count(c, "(more than 13 %)"), 1);
    CHECK_EQ_INT(count(c, "'o1', '.order_snapshot_errors'"), 1);
    free(c);
}

static void test_cluster(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = "prod"};
    char *s = gen(ddl_status, &o);
    CHECK(s != NULL);
    /* the ledger and the hot rows through the cluster; staging, seal, manifest, lease local */
    CHECK_EQ_INT(count(s, "FROM ods.order_loads_dist"), 3);
    CHECK_EQ_INT(count(s, "FROM ods.order_loads)"), 0);
    CHECK_EQ_INT(count(s, "FROM ods.order_snapshot_hot_dist"), 2);
    CHECK_EQ_INT(count(s, "GLOBAL NOT IN"), 1);
    CHECK_EQ_INT(count(s, "FROM stg.orders_raw"), 3);
    CHECK_EQ_INT(count(s, "FROM ods.order_frozen"), 3);
    free(s);
}

int main(void)
{
    test_one_node();
    test_cluster();
    return check_report();
}
