/* test_migrate: unit tests of ods-ddl's module migrate: the scratch databases it writes this
 * version's schema into and drops, the refusal guard before any row; the engine: migrate.bats. */
#include "ddl_text.h"
#include "migrate.h"

static void test_one_node(void)
{
    ddl_opts o = {.stg_db = "s1", .ods_db = "o1"};
    char *s = gen(ddl_migrate, &o);
    CHECK(s != NULL);
    CHECK(starts(s, "-- ods-ddl migrate: compares the live schema (s1, o1) with this version's"));
    CHECK(strstr(s, "\nDROP DATABASE IF EXISTS s1_migrate;\nDROP DATABASE IF EXISTS o1_migrate;\n") != NULL);
    CHECK(ends(s, "FORMAT TSVRaw;\nDROP DATABASE IF EXISTS s1_migrate;\nDROP DATABASE IF EXISTS o1_migrate;\n"));
    /* the scratch schema is this version's, one node, in the scratch names only */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS s1_migrate.orders_raw") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1_migrate.order_snapshot_rep") != NULL);
    CHECK(!strstr(s, "CREATE TABLE IF NOT EXISTS s1.") && !strstr(s, "CREATE TABLE IF NOT EXISTS o1."));
    CHECK(!strstr(s, "ON CLUSTER") && !strstr(s, "stg.") && !strstr(s, "ods."));
    CHECK_EQ_INT(count(s, "[('s1', 's1_migrate'), ('o1', 'o1_migrate')]"), 1);
    /* the refusal is a scalar subquery: it fails the statement even with nothing to print */
    CHECK_EQ_INT(count(s, "WHERE (WITH (SELECT concat('ods-ddl migrate: ', _all) FROM problems WHERE _all != '') AS _p\n"
                          "       SELECT throwIf(ifNull(_p, '') != '', ifNull(_p, ''))) = 0\n"), 1);
    CHECK_EQ_INT(count(s, "ADD COLUMN IF NOT EXISTS"), 1);
    CHECK_EQ_INT(count(s, "CREATE OR REPLACE VIEW"), 1);
    free(s);
    /* one database for both: one scratch */
    ddl_opts one = {.stg_db = "d", .ods_db = "d"};
    s = gen(ddl_migrate, &one);
    CHECK(s != NULL);
    CHECK_EQ_INT(count(s, "DROP DATABASE IF EXISTS d_migrate;"), 2);
    CHECK_EQ_INT(count(s, "[('d', 'd_migrate')]"), 1);
    free(s);
}

static void test_cluster(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = "prod-ods"};
    char *s = gen(ddl_migrate, &o);
    CHECK(s != NULL);
    /* the cluster's shape on this node: Distributed tables, no ON CLUSTER in the scratch */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS ods_migrate.order_snapshot_dist") != NULL);
    CHECK(!strstr(s, "CREATE TABLE IF NOT EXISTS ods_migrate.order_snapshot_rep ON CLUSTER"));
    /* the printed statements (ADD COLUMN, CREATE OR REPLACE VIEW) and the remedies of a
     * materialized view that changed and of a table where this version has a view carry it,
     * the name quoted inside the string */
    CHECK_EQ_INT(count(s, "', ' ON CLUSTER \\'prod-ods\\'', '"), 4);
    CHECK(strstr(s, " table, this version''s a view: with no transition running, DROP TABLE ") != NULL);
    /* the scratch ODS has the cluster's lease too: at a path of its own in the Keeper */
    CHECK(strstr(s, "ENGINE = KeeperMap('/ods_transition/ods_migrate/lease')") != NULL);
    free(s);
}

int main(void)
{
    test_one_node();
    test_cluster();
    return check_report();
}
