/* test_ddl_gen: unit tests of ddl_gen: name validation, quoting, columns that follow WIRE_FIELDS,
 * and the shape of every statement (the engine runs them in tests/bats/ods-ddl.bats). */
#include "check.h"
#include "ddl.h"

#include <stdlib.h>

typedef int (*gen_fn)(FILE *, const ddl_opts *);

/* The generator's output as a malloc-ed string. */
static char *gen(gen_fn fn, const ddl_opts *o)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    int rc = fn(f, o);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int count(const char *hay, const char *needle)
{
    int c = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        c++;
    return c;
}

static char *extract_text(const wire_field *f)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    int rc = ddl_extract(m, f);
    fclose(m);
    CHECK_EQ_INT(rc, 0);
    return buf;
}

static void test_ident(void)
{
    ddl_error err = {0};
    const char *good[] = {"ods", "_x", "A1_b", "stg2", "_"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK_EQ_INT(ddl_check_ident(good[i], NULL), 0);
    char max[DDL_IDENT_MAX + 2];
    memset(max, 'a', DDL_IDENT_MAX);
    max[DDL_IDENT_MAX] = '\0';
    CHECK_EQ_INT(ddl_check_ident(max, NULL), 0);
    max[DDL_IDENT_MAX] = 'a';
    max[DDL_IDENT_MAX + 1] = '\0';
    CHECK_EQ_INT(ddl_check_ident(max, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.msg, "is longer than 64 bytes");
    const char *bad[] = {"", "1a", "a-b", "a b", "a;b", "a.b", "a'b", "a`b", "\xc3\xa9", "a\nb", "x)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_INT(ddl_check_ident(bad[i], NULL), DDL_EINVAL);
    CHECK_EQ_INT(ddl_check_ident(NULL, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.msg, "must not be empty");
    CHECK_EQ_INT(ddl_check_ident("9", &err), DDL_EINVAL);
    CHECK_EQ_STR(err.msg, "must start with a letter or '_'");
    /* Every contract key is written as a bare column name, so it must be one too. */
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        CHECK_EQ_INT(ddl_check_ident(WIRE_FIELDS[i].name, NULL), 0);
}

static void test_kafka_values(void)
{
    CHECK_EQ_INT(ddl_check_kafka("orders.v1-x_Y", 0, NULL), 0);
    CHECK_EQ_INT(ddl_check_kafka("k1:9092,k2:9092,[::1]:9092", 1, NULL), 0);
    CHECK_EQ_INT(ddl_check_kafka("k1:9092", 0, NULL), DDL_EINVAL); /* ':' only in broker lists */
    const char *bad[] = {"", "a'b", "a\\b", "a b", "a;b", "a\tb", "a\nb", "a\"b", "{x}", "a%b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_INT(ddl_check_kafka(bad[i], 0, NULL), DDL_EINVAL);
        CHECK_EQ_INT(ddl_check_kafka(bad[i], 1, NULL), DDL_EINVAL);
    }
    char *big = malloc(DDL_KAFKA_MAX + 2);
    memset(big, 'a', DDL_KAFKA_MAX + 1);
    big[DDL_KAFKA_MAX] = '\0';
    CHECK_EQ_INT(ddl_check_kafka(big, 0, NULL), 0);
    big[DDL_KAFKA_MAX] = 'a';
    big[DDL_KAFKA_MAX + 1] = '\0';
    CHECK_EQ_INT(ddl_check_kafka(big, 0, NULL), DDL_EINVAL);
    free(big);
}

static void test_opts(void)
{
    ddl_error err = {0};
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), 0);
    o.replicated = 1;
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--replicated");
    o.cluster = "c1";
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), 0);
    o.cluster = "c-1";
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--cluster");
    o.cluster = NULL;
    o.replicated = 0;
    o.ods_db = "ods;";
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--ods-db");
    o.ods_db = "ods";
    o.stg_db = "";
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--stg-db");
    o.stg_db = "stg";
    CHECK_EQ_INT(ddl_check_opts(&o, 1, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--brokers");
    CHECK_EQ_STR(err.msg, "is required");
    o.brokers = "b:1";
    o.topic = "t";
    CHECK_EQ_INT(ddl_check_opts(&o, 1, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--group");
    o.group = "g'";
    CHECK_EQ_INT(ddl_check_opts(&o, 1, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--group");
    o.group = "g";
    CHECK_EQ_INT(ddl_check_opts(&o, 1, &err), 0);
}

static void test_quote(void)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK_EQ_INT(ddl_quote(f, "a'b\\c"), 0);
    CHECK_EQ_INT(ddl_quote(f, ""), 0);
    fclose(f);
    CHECK_EQ_STR(buf, "'a\\'b\\\\c'''");
    free(buf);
}

static void test_extract(void)
{
    for (size_t i = 0; i < WIRE_NFIELDS; i++) {
        const wire_field *f = &WIRE_FIELDS[i];
        char *x = extract_text(f);
        int holes = count(f->sql_extract, "%s");
        CHECK(holes >= 1);
        CHECK_EQ_INT(count(x, "%"), 0); /* no template hole left, no other '%' */
        char key[80];
        snprintf(key, sizeof key, "'%s'", f->name);
        CHECK_EQ_INT(count(x, key), holes);
        CHECK(strstr(x, "(raw, ") != NULL);
        /* Throwing conversions only. */
        CHECK(!strstr(x, "OrZero") && !strstr(x, "OrNull") && !strstr(x, "OrDefault"));
        CHECK(!strstr(x, "BestEffort") && !strstr(x, "accurateCastOrNull"));
        free(x);
    }
}

static void test_schema_one_node(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    char *s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_INT(count(s, ";\n"), 6); /* 2 databases, 3 tables, 1 view */
    CHECK_EQ_INT(count(s, "IF NOT EXISTS"), 6);
    CHECK_EQ_INT(count(s, "ON CLUSTER"), 0);
    CHECK_EQ_INT(count(s, "Distributed"), 0);
    CHECK_EQ_INT(count(s, "Replicated"), 0);

    /* The ODS table: the contract columns in order, then _load_id and _load_ts. */
    const char *t = strstr(s, "CREATE TABLE IF NOT EXISTS ods.order_snapshot_rep\n(\n");
    CHECK(t != NULL);
    if (t) {
        const char *p = strchr(t, '(') + 2;
        for (size_t i = 0; i < WIRE_NFIELDS; i++) {
            char line[160];
            int n = snprintf(line, sizeof line, "    %s %s,\n", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
            CHECK(strncmp(p, line, (size_t)n) == 0);
            p += n;
        }
        const char *tail = "    _hashdiff UInt128,\n    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n"
                           "ENGINE = ReplacingMergeTree(updated_at)\n"
                           "PARTITION BY toDate(created_at)\nORDER BY order_id\nCOMMENT '";
        CHECK(strncmp(p, tail, strlen(tail)) == 0);
        const char *end = strstr(t, ";\n");
        const char *ver = strstr(t, WIRE_CONTRACT_VERSION);
        CHECK(ver && end && ver < end);
    }
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS stg.orders_raw\n(\n    raw String,\n    _topic "
                    "LowCardinality(String),\n    _partition UInt64,\n    _offset UInt64,\n") != NULL);
    CHECK(strstr(s, "ORDER BY (_load_id, _topic, _partition, _offset)\n") != NULL);
    CHECK(strstr(s, "    raw String,\n    error_class LowCardinality(String),\n    _topic ") != NULL);
    CHECK(strstr(s, "snapshot_date, _hashdiff, _load_id, _load_ts\nFROM ods.order_snapshot_rep FINAL\n") != NULL);
    free(s);

    /* One database for both: created once. */
    o.stg_db = "ods";
    s = gen(ddl_schema, &o);
    CHECK(s && count(s, "CREATE DATABASE") == 1 && count(s, "ods.orders_raw") == 1);
    free(s);
}

static void test_schema_cluster(void)
{
    ddl_opts o = {.stg_db = "s1", .ods_db = "o1", .cluster = "c1"};
    char *s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_INT(count(s, "CREATE "), 8);
    CHECK_EQ_INT(count(s, " ON CLUSTER c1"), 8);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_snapshot_dist ON CLUSTER c1 AS o1.order_snapshot_rep\n"
                    "ENGINE = Distributed(c1, o1, order_snapshot_rep, cityHash64(order_id));") != NULL);
    CHECK(strstr(s, "ENGINE = Distributed(c1, o1, order_snapshot_errors, ") != NULL);
    CHECK(strstr(s, "FROM o1.order_snapshot_dist FINAL\n") != NULL);
    CHECK_EQ_INT(count(s, "Replicated"), 0);
    free(s);

    o.replicated = 1;
    s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(strstr(s, "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/o1/order_snapshot_rep', "
                    "'{replica}', updated_at)\n") != NULL);
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/o1/order_snapshot_errors', "
                    "'{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/s1/orders_raw', '{replica}')\n") != NULL);
    CHECK(strstr(s, "internal_replication") != NULL);
    free(s);
}

/* The typed items of the load, in contract order, then _hashdiff over the canonical texts of
 * the state fields (snapshot_date left out), then the load columns; p is where they start. */
static const char *check_typed(const char *p, const char *ind)
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
    char want[256];
    snprintf(want, sizeof want, "%shashdiff_strict([toString(order_id), toString(user_id), toString(status), "
             "concat(replaceOne(toString(created_at, 'UTC'), ' ', 'T'), 'Z'), ", ind);
    CHECK(p && strncmp(p, want, strlen(want)) == 0);
    const char *h = p ? strstr(p, "items]) AS _hashdiff,\n") : NULL;
    CHECK(h != NULL);
    CHECK(h && !memmem(p, (size_t)(h - p), "snapshot_date", 13));
    return h ? h + strlen("items]) AS _hashdiff,\n") : NULL;
}

static void test_transition(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    char *s = gen(ddl_transition, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_INT(count(s, "INSERT INTO "), 2);
    CHECK_EQ_INT(count(s, ";\n"), 2);
    const char *bad = strstr(s, "INSERT INTO ods.order_snapshot_errors (raw, error_class, ");
    const char *good = strstr(s, "INSERT INTO ods.order_snapshot_rep (");
    CHECK(bad && good && bad < good);
    /* one predicate and its literal negation, each ending its statement's classification */
    CHECK_EQ_INT(count(s, "\n  AND order_wire_class(raw) != ''\nLIMIT 1 BY _topic, _partition, _offset;\n"), 1);
    CHECK_EQ_INT(count(s, "WHERE _load_id = {load_id:String} AND NOT (order_wire_class(raw) != '')\n"), 1);
    /* a rerun records no error twice */
    CHECK(strstr(s, "  AND (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset "
                    "FROM ods.order_snapshot_errors WHERE _load_id = {load_id:String})\n") != NULL);
    const char *p = check_typed(good, "            ");
    CHECK(p && strncmp(p, "            _load_id,\n            _load_ts,\n            _topic,\n", 57) == 0);
    /* the gate: the ODS read through the sort key for the load's order ids only; the prior is
     * order_v without this load (PREWHERE before FINAL), one version per updated_at within the
     * load (the first received), and what this load already stored is never stored again */
    const char *ids = "order_id IN (SELECT JSONExtractString(raw, 'order_id') FROM stg.orders_raw "
                      "WHERE _load_id = {load_id:String})";
    CHECK_EQ_INT(count(s, ids), 2);
    CHECK(strstr(s, "    FROM ods.order_snapshot_rep FINAL\n    PREWHERE _load_id != {load_id:String}\n"
                    "    WHERE order_id IN (") != NULL);
    CHECK(strstr(s, "    FROM ods.order_snapshot_rep\n    WHERE _load_id = {load_id:String} AND order_id IN (") != NULL);
    CHECK(strstr(s, "row_number() OVER (PARTITION BY order_id, updated_at "
                    "ORDER BY _load_ts, _topic, _partition, _offset) AS _receipt\n") != NULL);
    CHECK(strstr(s, "WHERE _receipt = 1\n"
                    "  AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND _hashdiff != _prior_hashdiff))\n"
                    "  AND NOT has(_mine, (updated_at, _hashdiff));\n") != NULL);
    CHECK(!strstr(s, "OrZero") && !strstr(s, "OrNull") && !strstr(s, "BestEffort"));
    CHECK(!strstr(s, "now(") && !strstr(s, "now64("));
    CHECK(!strstr(s, "_dist") && !strstr(s, "GLOBAL"));
    /* regression: every version the gate keeps is stored, none collapsed at insert time; a
     * backfill's many creation days fit in one block */
    CHECK(good && strstr(good, "_hashdiff, _load_id, _load_ts)\nSETTINGS optimize_on_insert = 0, "
                               "max_partitions_per_insert_block = 3660, join_use_nulls = 0, "
                               "apply_prewhere_after_final = 0\nSELECT ") != NULL);
    CHECK_EQ_INT(count(s, "SETTINGS"), 1);
    free(s);

    /* --store every: the old statement, with _hashdiff */
    o.store_every = 1;
    s = gen(ddl_transition, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    good = strstr(s, "INSERT INTO ods.order_snapshot_rep (");
    CHECK(good && strstr(good, "_load_ts)\nSETTINGS optimize_on_insert = 0, max_partitions_per_insert_block = 3660\nSELECT\n"));
    p = good ? check_typed(good, "    ") : NULL;
    CHECK(p && strcmp(p, "    _load_id,\n    _load_ts\nFROM stg.orders_raw\n"
                         "WHERE _load_id = {load_id:String} AND NOT (order_wire_class(raw) != '');\n") == 0);
    CHECK(!strstr(s, "_mine") && !strstr(s, "OVER"));
    free(s);
    o.store_every = 0;

    o.cluster = "c1";
    s = gen(ddl_transition, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(strstr(s, "INSERT INTO ods.order_snapshot_errors_dist (") != NULL);
    CHECK(strstr(s, "INSERT INTO ods.order_snapshot_dist (") != NULL);
    CHECK(strstr(s, "FROM ods.order_snapshot_errors_dist WHERE _load_id = {load_id:String})\n") != NULL);
    CHECK_EQ_INT(count(s, "_load_ts)\nSETTINGS distributed_foreground_insert = 1\nSELECT"), 1);
    CHECK_EQ_INT(count(s, "_load_ts)\nSETTINGS distributed_foreground_insert = 1, optimize_on_insert = 0, "
                          "max_partitions_per_insert_block = 3660, join_use_nulls = 0, "
                          "apply_prewhere_after_final = 0\nSELECT"), 1);
    /* the shards get the load's order ids from this node: GLOBAL IN over the _dist table */
    CHECK_EQ_INT(count(s, "order_id GLOBAL IN (SELECT JSONExtractString(raw, 'order_id') FROM stg.orders_raw "
                          "WHERE _load_id = {load_id:String})"), 2);
    CHECK(strstr(s, "    FROM ods.order_snapshot_dist FINAL\n    PREWHERE _load_id != {load_id:String}\n") != NULL);
    CHECK_EQ_INT(count(s, "\n  AND order_wire_class(raw) != ''\nLIMIT 1 BY _topic, _partition, _offset;\n"), 1);
    CHECK_EQ_INT(count(s, "AND NOT (order_wire_class(raw) != '')\n"), 1);
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
    CHECK_EQ_INT(count(s, ";\n"), 2);
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

int main(void)
{
    test_ident();
    test_kafka_values();
    test_opts();
    test_quote();
    test_extract();
    test_schema_one_node();
    test_schema_cluster();
    test_transition();
    test_kafka();
    return check_report();
}
