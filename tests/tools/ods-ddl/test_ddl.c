/* test_ddl_gen: unit tests of ddl_gen: name validation, quoting, columns that follow WIRE_FIELDS,
 * and the shape of every statement (the engine runs them in tests/bats/ods-ddl.bats). */
#include "check.h"
#include "ddl.h"
#include "schema.h"
#include "stage.h"
#include "transition.h"

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
    o.cluster = "c-1"; /* quoted in the SQL, not refused */
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), 0);
    o.cluster = "c\n1";
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
    /* the engine's own databases, in any case */
    const char *reserved[] = {"system", "SYSTEM", "information_schema", "INFORMATION_SCHEMA", "Information_Schema"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        o.ods_db = reserved[i];
        CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
        CHECK_EQ_STR(err.what, "--ods-db");
        o.ods_db = "ods";
        o.stg_db = reserved[i];
        CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
        CHECK_EQ_STR(err.what, "--stg-db");
        o.stg_db = "stg";
    }
    o.ods_db = "systems"; /* only the exact names */
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), 0);
    o.ods_db = "ods";
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

/* The columns of _rep, _hot and order_v, comma-separated: the contract's, then _hashdiff,
 * _load_id, _load_ts. */
static const char *store_cols(void)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s, ", WIRE_FIELDS[i].name);
    snprintf(buf + n, sizeof buf - n, "_hashdiff, _load_id, _load_ts");
    return buf;
}

/* The column block of a CREATE TABLE of _rep or _hot, from its '(' line to its ')' line. */
static const char *store_block(void)
{
    static char buf[2048];
    size_t n = (size_t)snprintf(buf, sizeof buf, "\n(\n");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "    %s %s,\n", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
    snprintf(buf + n, sizeof buf - n, "    _hashdiff UInt128,\n    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n");
    return buf;
}

/* The ledger's column block: the load, its commit, its figures, one count per reject class. */
static const char *ledger_block(void)
{
    static char buf[1024];
    size_t n = (size_t)snprintf(buf, sizeof buf, "\n(\n    delta UInt64,\n    _load_id String,\n"
                                                 "    committed_at DateTime64(3, 'UTC'),\n    received UInt64,\n"
                                                 "    accepted UInt64,\n    stored UInt64,\n    unchanged UInt64,\n"
                                                 "    stale UInt64,\n    rejected UInt64");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, ",\n    %s UInt64", WIRE_REJECT_CLASSES[i]);
    snprintf(buf + n, sizeof buf - n, "\n)\n");
    return buf;
}

/* The CREATE statement of NAME (up to its ';'), or NULL. */
static const char *create_of(const char *s, const char *name)
{
    char want[128];
    snprintf(want, sizeof want, "CREATE TABLE IF NOT EXISTS %s", name);
    const char *p = s;
    while ((p = strstr(p, want))) {
        char c = p[strlen(want)];
        if (c == '\n' || c == ' ')
            return p;
        p += strlen(want);
    }
    return NULL;
}

static void test_schema_one_node(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    char *s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_INT(count(s, ";\n"), 12); /* 2 databases, 6 tables, the gate and its 2 views, 1 view */
    CHECK_EQ_INT(count(s, "IF NOT EXISTS"), 12);
    CHECK_EQ_INT(count(s, "ON CLUSTER"), 0);
    CHECK_EQ_INT(count(s, "Distributed"), 0);
    CHECK_EQ_INT(count(s, "Replicated"), 0);

    /* The ODS table: the contract columns in order, then _hashdiff, _load_id and _load_ts. */
    const char *t = create_of(s, "ods.order_snapshot_rep");
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
        CHECK(strncmp(t + strlen("CREATE TABLE IF NOT EXISTS ods.order_snapshot_rep"), store_block(),
                      strlen(store_block())) == 0);
    }
    /* The hot table: the same columns, a plain MergeTree (no merge replaces anything), one
     * partition per load. */
    char want[4096];
    snprintf(want, sizeof want, "CREATE TABLE IF NOT EXISTS ods.order_snapshot_hot%sENGINE = MergeTree\n"
                                "PARTITION BY _load_id\nORDER BY (order_id, updated_at)\nCOMMENT '",
             store_block());
    CHECK(strstr(s, want) != NULL);
    /* The ledger: a delta per committed load, the load's figures, one count per reject class. */
    snprintf(want, sizeof want, "CREATE TABLE IF NOT EXISTS ods.order_loads%sENGINE = MergeTree\nORDER BY delta\nCOMMENT '",
             ledger_block());
    CHECK(strstr(s, want) != NULL);
    /* The stale messages: by load and coordinates, each once. */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS ods.order_snapshot_stale\n(\n    order_id String,\n"
                    "    updated_at DateTime64(3, 'UTC'),\n    _topic LowCardinality(String),\n    _partition UInt64,\n"
                    "    _offset UInt64,\n    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n"
                    "ENGINE = MergeTree\nPARTITION BY _load_id\nORDER BY (_topic, _partition, _offset)\nCOMMENT '") != NULL);
    /* The gate: the stored columns, the coordinates and the fate, kept nowhere; a view per fate. */
    snprintf(want, sizeof want, "CREATE TABLE IF NOT EXISTS ods.order_gate\n(\n");
    const char *g = strstr(s, want);
    CHECK(g && strncmp(g + strlen(want) - 2, store_block() + 1, strlen(store_block()) - 4) == 0);
    CHECK(g && strstr(g, "    _load_ts DateTime64(3, 'UTC'),\n    _topic LowCardinality(String),\n    _partition UInt64,\n"
                         "    _offset UInt64,\n    _fate Enum8('stored' = 1, 'stale' = 2)\n)\nENGINE = Null\nCOMMENT '") != NULL);
    snprintf(want, sizeof want, "CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_stored TO ods.order_snapshot_hot AS\n"
                                "SELECT %s\nFROM ods.order_gate\nWHERE _fate = 'stored';\n", store_cols());
    CHECK(strstr(s, want) != NULL);
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_stale TO ods.order_snapshot_stale AS\n"
                    "SELECT order_id, updated_at, _topic, _partition, _offset, _load_id, _load_ts\nFROM ods.order_gate\n"
                    "WHERE _fate = 'stale';\n") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS stg.orders_raw\n(\n    raw String,\n    _topic "
                    "LowCardinality(String),\n    _partition UInt64,\n    _offset UInt64,\n") != NULL);
    CHECK(strstr(s, "ORDER BY (_load_id, _topic, _partition, _offset)\n") != NULL);
    CHECK(strstr(s, "    raw String,\n    error_class LowCardinality(String),\n    _topic ") != NULL);
    /* order_v, the last statement: _rep FINAL for the orders outside W (those whose newest
     * committed hot row is at least as new as their newest _rep row), with the setting inside
     * that branch where it applies; for W the newest committed hot row by an argMax grouped by
     * order_id (a later load winning a tie). */
    const char *c = store_cols();
    const char *w = "(\n        SELECT order_id\n"
                    "        FROM (SELECT order_id, max(updated_at) AS _hu FROM ods.order_snapshot_hot WHERE _load_id IN "
                    "(SELECT _load_id FROM ods.order_loads) GROUP BY order_id) AS hh\n"
                    "        LEFT JOIN (SELECT order_id, max(updated_at) AS _ru, 1 AS _in_rep FROM ods.order_snapshot_rep\n"
                    "                   WHERE order_id IN (SELECT order_id FROM ods.order_snapshot_hot WHERE _load_id IN "
                    "(SELECT _load_id FROM ods.order_loads)) GROUP BY order_id) AS rr\n"
                    "        USING (order_id)\n        WHERE ifNull(_in_rep, 0) = 0 OR _hu >= _ru\n    )";
    snprintf(want, sizeof want,
             "\n\nCREATE VIEW IF NOT EXISTS ods.order_v AS\nSELECT %s\nFROM\n(\n    SELECT %s\n"
             "    FROM ods.order_snapshot_rep FINAL\n    WHERE order_id NOT IN %s\n"
             "    SETTINGS do_not_merge_across_partitions_select_final = 0\n)\nUNION ALL\nSELECT order_id, _v.1 AS user_id, ",
             c, c, w);
    CHECK(strstr(s, want) != NULL);
    CHECK(strstr(s, "), (updated_at, c.delta)) AS _v\n    FROM ods.order_snapshot_hot AS h\n"
                    "    INNER JOIN (SELECT _load_id, delta FROM ods.order_loads) AS c USING (_load_id)\n") != NULL);
    snprintf(want, sizeof want, "    WHERE order_id IN %s\n    GROUP BY order_id\n);\n", w);
    CHECK(strlen(s) >= strlen(want) && strcmp(s + strlen(s) - strlen(want), want) == 0);
    CHECK(strstr(s, "_v.13 AS _load_ts\n") != NULL && strstr(s, "argMax((user_id, status, ") != NULL);
    CHECK_EQ_INT(count(s, "SETTINGS"), 1);
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
    CHECK_EQ_INT(count(s, "CREATE "), 17); /* 2 databases, 6 tables, 5 Distributed, the gate, 3 views */
    CHECK_EQ_INT(count(s, " ON CLUSTER c1"), 17);
    /* the gate's views write through the shards */
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS o1.order_gate_stored ON CLUSTER c1 TO "
                    "o1.order_snapshot_hot_dist AS\n") != NULL);
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS o1.order_gate_stale ON CLUSTER c1 TO "
                    "o1.order_snapshot_stale_dist AS\n") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_snapshot_stale_dist ON CLUSTER c1 AS o1.order_snapshot_stale\n"
                    "ENGINE = Distributed(c1, o1, order_snapshot_stale, cityHash64(order_id));") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_snapshot_dist ON CLUSTER c1 AS o1.order_snapshot_rep\n"
                    "ENGINE = Distributed(c1, o1, order_snapshot_rep, cityHash64(order_id));") != NULL);
    CHECK(strstr(s, "ENGINE = Distributed(c1, o1, order_snapshot_errors, ") != NULL);
    /* hot rows live on the shard of their order, as _rep's do */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_snapshot_hot_dist ON CLUSTER c1 AS o1.order_snapshot_hot\n"
                    "ENGINE = Distributed(c1, o1, order_snapshot_hot, cityHash64(order_id));") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_loads_dist ON CLUSTER c1 AS o1.order_loads\n"
                    "ENGINE = Distributed(c1, o1, order_loads);") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_snapshot_hot ON CLUSTER c1\n(\n") != NULL);
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_loads ON CLUSTER c1\n(\n") != NULL);
    CHECK(strstr(s, "    FROM o1.order_snapshot_dist FINAL\n    WHERE order_id GLOBAL NOT IN (\n") != NULL);
    CHECK(strstr(s, "    FROM o1.order_snapshot_hot_dist AS h\n"
                    "    GLOBAL INNER JOIN (SELECT _load_id, delta FROM o1.order_loads_dist) AS c USING (_load_id)\n"
                    "    WHERE order_id GLOBAL IN (\n") != NULL);
    CHECK(strstr(s, "FROM o1.order_snapshot_dist\n                   WHERE order_id GLOBAL IN (SELECT order_id FROM "
                    "o1.order_snapshot_hot_dist WHERE _load_id GLOBAL IN (SELECT _load_id FROM o1.order_loads_dist)) "
                    "GROUP BY order_id) AS rr\n") != NULL);
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
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/o1/order_snapshot_hot', "
                    "'{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/o1/order_loads', '{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/s1/orders_raw', '{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/o1/order_snapshot_stale', "
                    "'{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = Null\n") != NULL); /* the gate keeps nothing: nothing to replicate */
    CHECK_EQ_INT(count(s, "'{replica}'"), 6);
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

#define NSTMT 7

/* Splits a transition into its statements: st[k] (k = 1..NSTMT) is the text after the
 * "-- k. " comment line, up to and including its ';' (malloc-ed). Checks that the statements
 * follow each other with nothing between them and nothing after the last. */
static int split_transition(const char *s, char *st[NSTMT + 1])
{
    int ok = 1;
    st[0] = NULL;
    const char *p = s;
    for (int k = 1; k <= NSTMT; k++) {
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
    CHECK(!strstr(s, "\n-- 8. "));
    return ok;
}

static void free_stmts(char *st[NSTMT + 1])
{
    for (int k = 1; k <= NSTMT; k++)
        free(st[k]);
}

static int starts(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends(const char *s, const char *suffix)
{
    return s && strlen(s) >= strlen(suffix) && strcmp(s + strlen(s) - strlen(suffix), suffix) == 0;
}

/* What every transition holds, for ODS names D.* (D = "ods"), one node or a cluster: the
 * guard "this load is not committed" in every statement but the lock's; the predicate once
 * bare in the errors INSERT and once negated in the good one, nowhere else; throwing
 * conversions only; time read only by the commit and its lock. */
static void check_transition_common(const char *s, char *st[NSTMT + 1], int cluster, int every)
{
    const char *guard = cluster ? "{load_id:String} GLOBAL NOT IN (SELECT _load_id FROM ods.order_loads_dist)"
                                : "{load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads)";
    /* the gate's two joined sides and its order_id set carry it too: a committed load's rerun
     * reads no prior and extracts no order_id */
    CHECK_EQ_INT(count(s, guard), every ? 5 : 8);
    for (int k = 1; k <= NSTMT; k++)
        CHECK_EQ_INT(count(st[k], guard), k == 5 || k == 7 ? 0 : k == 4 && !every ? 4 : 1);
    /* the commit's is its last condition: no ledger row for a committed load */
    char want[1024];
    snprintf(want, sizeof want, "\nWHERE %s;", guard);
    CHECK(ends(st[6], want));
    CHECK_EQ_INT(count(s, "INSERT INTO "), 4);
    CHECK(starts(st[1], "ALTER TABLE ods.order_snapshot_hot "));
    CHECK(starts(st[2], cluster ? "INSERT INTO ods.order_snapshot_dist (" : "INSERT INTO ods.order_snapshot_rep ("));
    CHECK(starts(st[3], cluster ? "INSERT INTO ods.order_snapshot_errors_dist (raw, error_class, "
                                : "INSERT INTO ods.order_snapshot_errors (raw, error_class, "));
    /* the good INSERT: store changes through the gate (on this node), every into the hot table */
    CHECK(starts(st[4], !every ? "INSERT INTO ods.order_gate ("
                        : cluster ? "INSERT INTO ods.order_snapshot_hot_dist (" : "INSERT INTO ods.order_snapshot_hot ("));
    /* the commit lock and its release: on the node that runs the transition */
    CHECK_EQ_STR(st[5], "CREATE TABLE ods.order_loads_lock ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                        "now64(3, 'UTC') AS since;");
    CHECK_EQ_STR(st[7], "DROP TABLE ods.order_loads_lock;");
    /* the commit: the ledger row, delta one above the last, the figures and one count per
     * reject class (the errors table's names, from the contract) */
    size_t n = (size_t)snprintf(want, sizeof want, "INSERT INTO ods.order_loads (delta, _load_id, committed_at, "
                                                   "received, accepted, stored, unchanged, stale, rejected");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", %s", WIRE_REJECT_CLASSES[i]);
    snprintf(want + n, sizeof want - n, ")\nSELECT (SELECT max(delta) FROM ods.%s) + 1, {load_id:String}, "
                                        "now64(3, 'UTC'),\n    r.n, r.n - e.n, s.n, %s, x.n, e.n, "
                                        "e.c0, e.c1, e.c2\nFROM (SELECT uniqExact(_topic, _partition, _offset) AS n "
                                        "FROM stg.orders_raw WHERE _load_id = {load_id:String}) AS r,\n",
             cluster ? "order_loads_dist" : "order_loads", every ? "0" : "r.n - e.n - s.n - x.n");
    CHECK(starts(st[6], want));
    CHECK_EQ_INT(WIRE_NREJECT, 3); /* e.c0..e.c2 above */
    for (size_t i = 0; i < WIRE_NREJECT; i++) {
        snprintf(want, sizeof want, "countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
        CHECK_EQ_INT(count(st[6], want), 1);
    }
    snprintf(want, sizeof want, " FROM ods.%s WHERE _load_id = {load_id:String}) AS e,\n"
                                "    (SELECT count() AS n FROM ods.%s WHERE _load_id = {load_id:String}) AS s,\n",
             cluster ? "order_snapshot_errors_dist" : "order_snapshot_errors",
             cluster ? "order_snapshot_hot_dist" : "order_snapshot_hot");
    CHECK(st[6] && strstr(st[6], want));

    /* one predicate and its literal negation, each ending its statement's classification */
    CHECK_EQ_INT(count(s, "order_wire_class(raw) != ''"), 2);
    CHECK(ends(st[3], "\n  AND order_wire_class(raw) != ''\nLIMIT 1 BY _topic, _partition, _offset;"));
    CHECK_EQ_INT(count(st[4], "WHERE _load_id = {load_id:String} AND NOT (order_wire_class(raw) != '')\n"), 1);
    /* a rerun records no error twice */
    snprintf(want, sizeof want, "\n  AND %s\n  AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, "
                                "_offset FROM ods.%s WHERE _load_id = {load_id:String})\n",
             guard, cluster ? "GLOBAL " : "", cluster ? "order_snapshot_errors_dist" : "order_snapshot_errors");
    CHECK(st[3] && strstr(st[3], want));
    CHECK(!strstr(s, "OrZero") && !strstr(s, "OrNull") && !strstr(s, "BestEffort"));
    /* time: only the commit's timestamp and the lock's */
    CHECK(!strstr(s, "now("));
    CHECK_EQ_INT(count(s, "now64("), 2);
    for (int k = 1; k <= 4; k++)
        CHECK(st[k] && !strstr(st[k], "now64("));

    /* housekeeping: the hot rows of every committed load but the latest (an earlier transition
     * folded them), waiting for the mutation */
    snprintf(want, sizeof want,
             "ALTER TABLE ods.order_snapshot_hot%s DELETE WHERE %s\n"
             "  AND _load_id IN (SELECT _load_id FROM ods.%s WHERE delta < (SELECT max(delta) FROM ods.%s))\n"
             "SETTINGS mutations_sync = 2%s;",
             cluster ? " ON CLUSTER c1" : "", guard, cluster ? "order_loads_dist" : "order_loads",
             cluster ? "order_loads_dist" : "order_loads", cluster ? ", allow_nondeterministic_mutations = 1" : "");
    CHECK_EQ_STR(st[1], want);
    /* the fold: committed loads' hot rows not yet in _rep, nothing collapsed at insert time, a
     * backfill's creation days in one block */
    const char *g = cluster ? "GLOBAL " : "";
    const char *rep = cluster ? "order_snapshot_dist" : "order_snapshot_rep";
    const char *hot = cluster ? "order_snapshot_hot_dist" : "order_snapshot_hot";
    const char *loads = cluster ? "order_loads_dist" : "order_loads";
    char fold[4096];
    snprintf(fold, sizeof fold,
             "INSERT INTO ods.%s (%s)\nSETTINGS %soptimize_on_insert = 0, max_partitions_per_insert_block = 3660\n"
             "SELECT %s\nFROM ods.%s\nWHERE %s\n  AND _load_id %sIN (SELECT _load_id FROM ods.%s)\n"
             "  AND (order_id, updated_at, _hashdiff, _load_id) %sNOT IN (SELECT order_id, updated_at, _hashdiff, "
             "_load_id FROM ods.%s WHERE order_id %sIN (SELECT order_id FROM ods.%s WHERE _load_id %sIN "
             "(SELECT _load_id FROM ods.%s)));",
             rep, store_cols(), cluster ? "distributed_foreground_insert = 1, " : "", store_cols(), hot, guard, g,
             loads, g, rep, g, hot, g, loads);
    CHECK_EQ_STR(st[2], fold);
}

/* The SQL typing (--typing sql): the checks below read every typed item; test_typing_udf checks
 * what the default changes. */
static void test_transition(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .typing_sql = 1};
    char *s = gen(ddl_transition, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    char *st[NSTMT + 1], *every[NSTMT + 1];
    if (!split_transition(s, st)) {
        free_stmts(st);
        free(s);
        return;
    }
    check_transition_common(s, st, 0, 0);
    const char *good = st[4];
    const char *p = check_typed(good, "            ");
    CHECK(p && strncmp(p, "            _load_id,\n            _load_ts,\n            _topic,\n", 57) == 0);
    CHECK(strstr(good, "WHERE _load_id = {load_id:String} AND NOT (order_wire_class(raw) != '')\n"
                       "          AND {load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads)\n    )\n) AS l\n"));
    /* the gate: the ODS read for the load's order ids only; the prior is what order_v shows (the
     * load, not committed, is not in it), one version per updated_at within the load (the first
     * received), and what this load already wrote to the hot table is never written again */
    const char *ids = "order_id IN (SELECT JSONExtractString(raw, 'order_id') FROM stg.orders_raw "
                      "WHERE _load_id = {load_id:String} AND {load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads))";
    CHECK_EQ_INT(count(good, ids), 1);
    CHECK_EQ_INT(count(s, ids), 1); /* the ODS is probed once: the commit counts the gate's records */
    CHECK(strstr(good, "    SELECT order_id, 1 AS _has_prior, updated_at AS _prior_updated_at, _hashdiff AS "
                       "_prior_hashdiff\n    FROM ods.order_v\n    WHERE order_id IN (") != NULL);
    CHECK(strstr(good, "    FROM ods.order_snapshot_hot\n    WHERE _load_id = {load_id:String}\n"
                       "      AND {load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads)\n    GROUP BY order_id\n") != NULL);
    CHECK(strstr(good, "row_number() OVER (PARTITION BY order_id, updated_at "
                       "ORDER BY _load_ts, _topic, _partition, _offset) AS _receipt\n") != NULL);
    /* each kept row's fate: stored (first received, changed, not stored by an earlier run) or
     * stale (older than the prior, not a version this load stored, not recorded yet) */
    CHECK(strstr(good, "    multiIf(_receipt = 1 AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND "
                       "_hashdiff != _prior_hashdiff))\n              AND NOT has(_mine, (updated_at, _hashdiff)), "
                       "'stored',\n            _has_prior AND updated_at < _prior_updated_at AND NOT has(_mine.1, "
                       "updated_at)\n              AND (_topic, _partition, _offset) NOT IN (SELECT _topic, "
                       "_partition, _offset FROM ods.order_snapshot_stale WHERE _load_id = {load_id:String}), "
                       "'stale',\n            '') AS _fate\n") != NULL);
    CHECK(ends(good, "\nWHERE _fate != ''\nLIMIT 1 BY _topic, _partition, _offset;"));
    /* stale: counted from the gate's records */
    CHECK(strstr(st[6], "\n    (SELECT uniqExact(_topic, _partition, _offset) AS n FROM ods.order_snapshot_stale "
                        "WHERE _load_id = {load_id:String}) AS x\nWHERE ") != NULL);
    CHECK(!strstr(s, "_dist") && !strstr(s, "GLOBAL"));
    /* regression: a backfill's many creation days fit in one block (the hot table has one
     * partition per load, the fold one per creation day) */
    char want[1024];
    snprintf(want, sizeof want, "INSERT INTO ods.order_gate (%s, _topic, _partition, _offset, _fate)\n"
                                "SETTINGS max_partitions_per_insert_block = 3660, join_use_nulls = 0\n"
                                "SELECT %s, _topic, _partition, _offset,\n", store_cols(), store_cols());
    CHECK(starts(good, want));
    CHECK_EQ_INT(count(s, "SETTINGS"), 3); /* the mutation's, the fold's, the good INSERT's */

    /* --store every: every accepted version into the hot table, with _hashdiff; no stale */
    o.store_every = 1;
    char *e = gen(ddl_transition, &o);
    CHECK(e != NULL);
    if (e && split_transition(e, every)) {
        check_transition_common(e, every, 0, 1);
        snprintf(want, sizeof want, "INSERT INTO ods.order_snapshot_hot (%s)\nSETTINGS max_partitions_per_insert_block = "
                                    "3660\nSELECT\n", store_cols());
        CHECK(starts(every[4], want));
        p = check_typed(every[4], "    ");
        CHECK(p && strcmp(p, "    _load_id,\n    _load_ts\nFROM stg.orders_raw\n"
                             "WHERE _load_id = {load_id:String} AND NOT (order_wire_class(raw) != '')\n"
                             "  AND {load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads);") == 0);
        CHECK(!strstr(e, "_mine") && !strstr(e, "OVER"));
        for (int k = 1; k <= NSTMT; k++) /* no prior: nothing reads order_v */
            CHECK(every[k] && !strstr(every[k], "order_v"));
        CHECK(strstr(every[6], "\n    (SELECT 0 AS n) AS x\nWHERE ") != NULL);
        /* the other statements are the mode's own only in the good INSERT and the stale count */
        for (int k = 1; k <= NSTMT; k++)
            if (k != 4 && k != 6)
                CHECK_EQ_STR(every[k], st[k]);
        free_stmts(every);
    }
    free(e);
    o.store_every = 0;
    free_stmts(st);
    free(s);

    o.cluster = "c1";
    s = gen(ddl_transition, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    if (!split_transition(s, st)) {
        free_stmts(st);
        free(s);
        return;
    }
    check_transition_common(s, st, 1, 0);
    CHECK_EQ_INT(count(s, "_load_ts)\nSETTINGS distributed_foreground_insert = 1\nSELECT"), 1);
    CHECK(starts(st[4], "INSERT INTO ods.order_gate ("));
    CHECK(strstr(st[4], "_fate)\nSETTINGS distributed_foreground_insert = 1, max_partitions_per_insert_block = 3660, "
                        "join_use_nulls = 0\nSELECT") != NULL);
    /* the shards get the load's order ids from this node: GLOBAL IN; the prior is order_v
     * (over the _dist tables), the load's own hot rows come through the _dist table */
    ids = "order_id GLOBAL IN (SELECT JSONExtractString(raw, 'order_id') FROM stg.orders_raw "
          "WHERE _load_id = {load_id:String} AND {load_id:String} GLOBAL NOT IN (SELECT _load_id FROM ods.order_loads_dist))";
    CHECK_EQ_INT(count(st[4], ids), 1);
    CHECK_EQ_INT(count(s, ids), 1);
    CHECK(strstr(st[4], "    FROM ods.order_v\n    WHERE order_id GLOBAL IN (") != NULL);
    CHECK(strstr(st[4], "    FROM ods.order_snapshot_hot_dist\n    WHERE _load_id = {load_id:String}\n") != NULL);
    CHECK(strstr(st[4], "(_topic, _partition, _offset) GLOBAL NOT IN (SELECT _topic, _partition, _offset FROM "
                        "ods.order_snapshot_stale_dist WHERE _load_id = {load_id:String})") != NULL);
    CHECK(strstr(st[6], "FROM ods.order_snapshot_stale_dist WHERE _load_id = {load_id:String}) AS x\n") != NULL);
    /* local tables only where they must be: the mutation runs on each shard's hot table (ON
     * CLUSTER), the ledger row is written on this node; every IN but the mutation's is GLOBAL */
    CHECK_EQ_INT(count(s, "ods.order_snapshot_rep"), 0);
    CHECK_EQ_INT(count(s, "ods.order_snapshot_errors"), count(s, "ods.order_snapshot_errors_dist"));
    CHECK_EQ_INT(count(s, "ods.order_snapshot_hot"), count(s, "ods.order_snapshot_hot_dist") + 1);
    CHECK_EQ_INT(count(s, "ods.order_loads"), count(s, "ods.order_loads_dist") + count(s, "ods.order_loads_lock") + 1);
    CHECK(starts(st[6], "INSERT INTO ods.order_loads ("));
    CHECK_EQ_INT(count(s, " IN ("), count(s, " GLOBAL IN (") + count(s, " GLOBAL NOT IN (") + 1);
    CHECK_EQ_INT(count(st[1], " IN (") - count(st[1], " GLOBAL NOT IN ("), 1);
    free_stmts(st);
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

/* --typing udf, the default: one order_wire_parse call per row gives the class of both
 * branches and the typed columns; every other statement is the SQL typing's. */
static void test_typing_udf(void)
{
    for (int cluster = 0; cluster <= 1; cluster++) {
        for (int every = 0; every <= 1; every++) {
            ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .store_every = every, .cluster = cluster ? "c1" : NULL};
            char *s = gen(ddl_transition, &o);
            o.typing_sql = 1;
            char *q = gen(ddl_transition, &o);
            char *st[NSTMT + 1], *sq[NSTMT + 1];
            if (!s || !q || !split_transition(s, st) || !split_transition(q, sq)) {
                CHECK(0);
                free(s);
                free(q);
                return;
            }
            CHECK_EQ_INT(count(s, "order_wire_parse(raw)"), 2);
            CHECK_EQ_INT(count(s, "order_wire_class"), 0);
            CHECK_EQ_INT(count(s, "_w.class != ''"), 2);
            CHECK(ends(st[3], "\n  AND _w.class != ''\nLIMIT 1 BY _topic, _partition, _offset;"));
            CHECK(strstr(st[3], "\nSELECT raw, _w.class, _topic, ") != NULL);
            CHECK(strstr(st[3], "\nFROM (SELECT *, order_wire_parse(raw) AS _w FROM stg.orders_raw)\nWHERE _load_id = "
                                "{load_id:String}\n") != NULL);
            CHECK_EQ_INT(count(st[4], "FROM (SELECT *, order_wire_parse(raw) AS _w FROM stg.orders_raw)\n"), 1);
            CHECK_EQ_INT(count(st[4], "WHERE _load_id = {load_id:String} AND NOT (_w.class != '')\n"), 1);
            /* the typed columns are the tuple's, in contract order, then the same _hashdiff */
            const char *ind = every ? "    " : "            ";
            const char *p = st[4];
            for (size_t i = 0; i < WIRE_NFIELDS && p; i++) {
                char want[128];
                snprintf(want, sizeof want, "%s_w.%s AS %s,\n", ind, WIRE_FIELDS[i].name, WIRE_FIELDS[i].name);
                const char *f = strstr(p, want);
                CHECK(f != NULL);
                p = f ? f + strlen(want) : NULL;
            }
            CHECK(p && strncmp(p, ind, strlen(ind)) == 0 && strncmp(p + strlen(ind), "hashdiff_strict([", 17) == 0);
            CHECK(!strstr(st[4], "JSONType") && !strstr(st[4], "parseDateTime64"));
            for (int k = 1; k <= NSTMT; k++)
                if (k != 3 && k != 4)
                    CHECK_EQ_STR(st[k], sq[k]);
            free_stmts(st);
            free_stmts(sq);
            free(s);
            free(q);
        }
    }
}

/* Cluster names as DBAs write them: which are accepted, and how each is written. */
static void test_cluster_names(void)
{
    static const struct {
        const char *name, *sql;
    } ok[] = {
        {"ods_cluster", "ods_cluster"}, {"c1", "c1"}, {"_", "_"},
        {"prod-ods", "'prod-ods'"}, {"{cluster}", "'{cluster}'"}, {"ods_{env}", "'ods_{env}'"},
        {"{a}{b}", "'{a}{b}'"}, {"a}b", "'a}b'"},           /* a lone '}' is text to the server */
        {"o'ds", "'o\\'ds'"}, {"a\\b", "'a\\\\b'"}, {"x`y", "'x`y'"}, {"a b", "'a b'"},
        {" lead", "' lead'"}, {"1ods", "'1ods'"}, {"a.b", "'a.b'"}, {"x;DROP TABLE t", "'x;DROP TABLE t'"},
        {"\xd0\xba\xd0\xbb\xc3\xa1ster", "'\xd0\xba\xd0\xbb\xc3\xa1ster'"},
        {"\xf0\x9f\x98\x80", "'\xf0\x9f\x98\x80'"},
        /* bare, the expression parser reads these as literals or NOT: Distributed(null, ...) is no
         * cluster, Distributed(not, ...) no SQL (regression: they were written bare) */
        {"null", "'null'"}, {"NULL", "'NULL'"}, {"true", "'true'"}, {"False", "'False'"}, {"inf", "'inf'"},
        {"Infinity", "'Infinity'"}, {"nan", "'nan'"}, {"NaN", "'NaN'"}, {"not", "'not'"},
        {"nullx", "nullx"}, {"default", "default"}, {"select", "select"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ddl_error err = {0};
        CHECK_EQ_INT(ddl_check_cluster(ok[i].name, &err), 0);
        char *buf = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&buf, &n);
        CHECK_EQ_INT(ddl_cluster_sql(m, ok[i].name), 0);
        fclose(m);
        CHECK_EQ_STR(buf, ok[i].sql);
        free(buf);
    }
    char long_ok[DDL_CLUSTER_MAX + 2];
    memset(long_ok, 'a', DDL_CLUSTER_MAX);
    long_ok[DDL_CLUSTER_MAX] = '\0';
    CHECK_EQ_INT(ddl_check_cluster(long_ok, NULL), 0);
    long_ok[DDL_CLUSTER_MAX] = 'a';
    long_ok[DDL_CLUSTER_MAX + 1] = '\0';
    const struct {
        const char *name, *msg;
    } bad[] = {
        {"", "must not be empty"},
        {long_ok, "is longer than 255 bytes"},
        {"a\tb", "must not hold control characters (tab, newline ...)"},
        {"a\nb", "must not hold control characters (tab, newline ...)"},
        {"a\rb", "must not hold control characters (tab, newline ...)"},
        {"a\x7f", "must not hold control characters (tab, newline ...)"},
        {"\xff", "is not valid UTF-8"},
        {"a\xc3", "is not valid UTF-8"},            /* truncated */
        {"\xc0\xaf", "is not valid UTF-8"},         /* overlong '/' */
        {"\xed\xa0\x80", "is not valid UTF-8"},     /* a surrogate */
        {"\xf4\x90\x80\x80", "is not valid UTF-8"}, /* above U+10FFFF */
        {"{cluster", "has a '{' without a closing '}': the server reads {NAME} as a macro"},
        {"a{b}{c", "has a '{' without a closing '}': the server reads {NAME} as a macro"},
        {"{}", "has an empty or nested macro reference: write macros as {NAME}"},
        {"{a{b}}", "has an empty or nested macro reference: write macros as {NAME}"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ddl_error err = {0};
        CHECK_EQ_INT(ddl_check_cluster(bad[i].name, &err), DDL_EINVAL);
        CHECK_EQ_STR(err.msg, bad[i].msg);
    }
    CHECK_EQ_INT(ddl_check_cluster(NULL, NULL), DDL_EINVAL);

    /* every place the cluster is named, quoted alike: 17 ON CLUSTER, 5 Distributed, and the
     * transition's ALTER ... ON CLUSTER; nothing bare left over */
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = "prod-ods", .replicated = 1};
    char *s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(count(s, " ON CLUSTER 'prod-ods'"), 17);
        CHECK_EQ_INT(count(s, "ENGINE = Distributed('prod-ods', ods, "), 5);
        CHECK_EQ_INT(count(s, "prod-ods"), 22);
    }
    free(s);
    o.replicated = 0;
    o.cluster = "o'{env}";
    s = gen(ddl_transition, &o);
    CHECK(s != NULL);
    if (s) {
        CHECK(strstr(s, "ALTER TABLE ods.order_snapshot_hot ON CLUSTER 'o\\'{env}' DELETE WHERE ") != NULL);
        CHECK_EQ_INT(count(s, "{env}"), 1);
    }
    free(s);
}

/* s with every occurrence of needle removed (malloc-ed). */
static char *remove_all(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    char *out = malloc(strlen(s) + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = s; *p;) {
        if (!strncmp(p, needle, n)) {
            p += n;
            continue;
        }
        *w++ = *p++;
    }
    *w = '\0';
    return out;
}

/* s without its lines that start with "--" (malloc-ed). */
static char *drop_comments(const char *s)
{
    char *out = malloc(strlen(s) + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = s; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p + 1) : strlen(p);
        if (strncmp(p, "--", 2) != 0) {
            memcpy(w, p, len);
            w += len;
        }
        p += len;
    }
    *w = '\0';
    return out;
}

/* --per-node: the cluster schema, statement for statement, without its ON CLUSTER clauses
 * (plain and --replicated, a bare and a quoted cluster name); it needs --cluster. */
static void test_schema_per_node(void)
{
    static const char *const names[][2] = {{"c1", " ON CLUSTER c1"}, {"prod-ods", " ON CLUSTER 'prod-ods'"}};
    for (size_t i = 0; i < 2; i++) {
        for (int repl = 0; repl <= 1; repl++) {
            ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = names[i][0], .replicated = repl};
            char *on = gen(ddl_schema, &o);
            o.per_node = 1;
            char *pn = gen(ddl_schema, &o);
            CHECK(on != NULL);
            CHECK(pn != NULL);
            if (!on || !pn) {
                free(on);
                free(pn);
                return;
            }
            CHECK_EQ_INT(count(on, names[i][1]), 17);
            CHECK_EQ_INT(count(pn, "ON CLUSTER"), 0);
            CHECK(strstr(pn, "\n-- Per node: apply every statement on every node of the cluster") != NULL);
            /* the Distributed tables still name the cluster */
            CHECK_EQ_INT(count(pn, "ENGINE = Distributed("), 5);
            CHECK_EQ_INT(count(pn, "Replicated"), repl ? 6 : 0);
            char *want = remove_all(on, names[i][1]);
            char *a = drop_comments(want), *b = drop_comments(pn);
            CHECK(a && b && !strcmp(a, b));
            free(want);
            free(a);
            free(b);
            free(on);
            free(pn);
        }
    }
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .per_node = 1};
    ddl_error err = {0};
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--per-node");
    CHECK_EQ_STR(err.msg, "needs --cluster");
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
    test_schema_per_node();
    test_cluster_names();
    test_transition();
    test_typing_udf();
    test_kafka();
    return check_report();
}
