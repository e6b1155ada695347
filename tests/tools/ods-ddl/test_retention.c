/* test_retention: unit tests of ods-ddl's module retention: what the printed query may drop and
 * where it reads, one node and cluster (a quoted cluster name inside the printed statements);
 * the engine: retention.bats. */
#include "ddl_text.h"
#include "retention.h"

static unsigned g_days;
static int gen_retention(FILE *f, const ddl_opts *o) { return ddl_retention(f, o, g_days); }

static void test_one_node(void)
{
    ddl_opts o = {.stg_db = "s1", .ods_db = "o1"};
    g_days = 9;
    char *s = gen(gen_retention, &o);
    CHECK(s != NULL);
    CHECK(ends(s, ")\nORDER BY _o, _p\nFORMAT TSVRaw;\n"));
    CHECK_EQ_INT(count(s, ";\n"), 1);
    CHECK_EQ_INT(count(s, "committed_at < now64(3, 'UTC') - toIntervalDay(9)"), 1);
    /* five kinds of statement, each from its own table */
    CHECK_EQ_INT(count(s, "concat('ALTER TABLE "), 5);
    CHECK_EQ_INT(count(s, "concat('ALTER TABLE s1.orders_raw DROP PARTITION ID ''', pid, ''';')"), 1);
    CHECK_EQ_INT(count(s, "concat('ALTER TABLE o1.order_snapshot_errors DROP PARTITION ID ''', _partition_id, ''';')"), 1);
    CHECK_EQ_INT(count(s, "FROM o1.order_snapshot_errors GROUP BY _partition_id HAVING countIf(_load_id NOT IN old) = 0"), 1);
    CHECK_EQ_INT(count(s, "FROM o1.order_manifest WHERE _load_id IN retired GROUP BY _partition_id"), 1);
    CHECK_EQ_INT(count(s, "FROM o1.order_fates WHERE _load_id IN retired GROUP BY _partition_id"), 1);
    CHECK_EQ_INT(count(s, "FROM o1.order_snapshot_stale WHERE _load_id IN retired GROUP BY _partition_id"), 1);
    /* a staged row stays unless its load is old and the row is in its manifest */
    CHECK_EQ_INT(count(s, "countIf(_load_id NOT IN old OR (_load_id, _topic, _partition, _offset, _raw_hash) NOT IN"), 1);
    CHECK(!strstr(s, "order_snapshot_rep") && !strstr(s, "order_snapshot_hot") && !strstr(s, "order_frozen"));
    CHECK(!strstr(s, "ON CLUSTER") && !strstr(s, "GLOBAL"));
    free(s);
}

static void test_cluster(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = "it's"};
    g_days = 1;
    char *s = gen(gen_retention, &o);
    CHECK(s != NULL);
    /* the name written quoted by the cluster writer, then quoted again as a string literal */
    CHECK_EQ_INT(count(s, "concat('ALTER TABLE ods.order_snapshot_errors', ' ON CLUSTER \\'it\\\\\\'s\\'', ' DROP"), 1);
    CHECK_EQ_INT(count(s, "concat('ALTER TABLE ods.order_snapshot_stale', ' ON CLUSTER \\'it\\\\\\'s\\'', ' DROP"), 1);
    CHECK_EQ_INT(count(s, "ON CLUSTER"), 2);
    CHECK_EQ_INT(count(s, "FROM ods.order_loads_dist WHERE committed_at"), 1);
    CHECK_EQ_INT(count(s, "FROM ods.order_snapshot_errors_dist GROUP BY"), 1);
    CHECK_EQ_INT(count(s, "FROM ods.order_snapshot_stale_dist WHERE _load_id GLOBAL IN retired"), 1);
    CHECK_EQ_INT(count(s, "FROM stg.orders_raw GROUP BY pid"), 1);
    free(s);
}

int main(void)
{
    test_one_node();
    test_cluster();
    return check_report();
}
