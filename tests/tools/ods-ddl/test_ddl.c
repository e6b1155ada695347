/* test_ddl_gen: unit tests of ods-ddl's modules ddl (names, quoting, extraction), sqlw and schema
 * (every table's shape from WIRE_FIELDS: one node, cluster, per node); the engine: ods-ddl.bats. */
#include "ddl_text.h"
#include "profile.h"
#include "schema.h"

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

    /* stage: the source becomes _topic (a Kafka name's rules); the file is any path the engine
     * can be given as a quoted literal: quotes and backslashes are fine, control bytes are not */
    o.source = "backfill-2026.03_a";
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), 0);
    const char *bad_src[] = {"", "a'b", "a b", "a:b", "{x}"};
    for (size_t i = 0; i < sizeof bad_src / sizeof bad_src[0]; i++) {
        o.source = bad_src[i];
        CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
        CHECK_EQ_STR(err.what, "--source");
    }
    o.source = NULL;
    const char *good_file[] = {"/tmp/it's here.jsonl", "a\\b", "/dev/stdin", "\xc3\xa9t\xc3\xa9.txt", "x", "a[b].jsonl", "a}b"};
    for (size_t i = 0; i < sizeof good_file / sizeof good_file[0]; i++) {
        o.file = good_file[i];
        CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), 0);
    }
    /* a path the engine's file() would take as a glob: it reads other files, or none */
    const char *bad_file[] = {"", "a\nb", "a\tb", "a\x7f", "day{1}.jsonl", "a?.jsonl", "*.jsonl", "/tmp/x{1..2}/y"};
    for (size_t i = 0; i < sizeof bad_file / sizeof bad_file[0]; i++) {
        o.file = bad_file[i];
        CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
        CHECK_EQ_STR(err.what, "--file");
    }
    char *big = malloc(4098);
    memset(big, 'f', 4097);
    big[4096] = '\0';
    o.file = big;
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), 0);
    big[4096] = 'f';
    big[4097] = '\0';
    CHECK_EQ_INT(ddl_check_opts(&o, 0, &err), DDL_EINVAL);
    CHECK_EQ_STR(err.what, "--file");
    free(big);
    o.file = NULL;
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

/* The column block of a CREATE TABLE of _rep or _hot, from its '(' line to its ')' line. */
static const char *store_block(void)
{
    static char buf[2048];
    size_t n = (size_t)snprintf(buf, sizeof buf, "\n(\n");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "    %s %s,\n", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
    snprintf(buf + n, sizeof buf - n, "    _hashdiff UInt128,\n    _load_id String,\n    _load_ts DateTime64(3, 'UTC'),\n"
             "    _hashdiff_profile LowCardinality(String) DEFAULT '%s'\n)\n", ddl_hashdiff_profile());
    return buf;
}

/* The ledger's column block: the load, its commit, its figures (received counts every staged
 * row, redelivered the copies among them), one count per reject class. */
static const char *ledger_block(void)
{
    static char buf[1024];
    size_t n = (size_t)snprintf(buf, sizeof buf, "\n(\n    delta UInt64,\n    _load_id String,\n"
                                                 "    committed_at DateTime64(3, 'UTC'),\n    received UInt64,\n"
                                                 "    redelivered UInt64,\n    accepted UInt64,\n    stored UInt64,\n    unchanged UInt64,\n"
                                                 "    stale UInt64,\n    rejected UInt64");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, ",\n    %s UInt64", WIRE_REJECT_CLASSES[i]);
    snprintf(buf + n, sizeof buf - n, ",\n    wire_contract LowCardinality(String) DEFAULT '',\n"
                                      "    hashdiff_profile LowCardinality(String) DEFAULT ''\n)\n");
    return buf;
}

/* The load id rule in C (the tools' check before any statement) and the modes of the transition;
 * the rule against the engine's match() on generated ids: ods-load.bats. */
/* The lease's clearing and release statements, one node and cluster, from the one place. */
static void test_lease_statements(void)
{
    char b[256];
    ddl_opts one = {.stg_db = "stg", .ods_db = "o1"}, cl = {.stg_db = "stg", .ods_db = "o1", .cluster = "c"};
    CHECK_EQ_STR(ddl_lease_clear(&one, b, sizeof b), "DROP TABLE IF EXISTS o1.order_lease");
    CHECK_EQ_STR(ddl_lease_clear(&cl, b, sizeof b), "TRUNCATE TABLE o1.order_lease_keeper");
    CHECK(!strchr(b, '\''));
    CHECK_EQ_STR(ddl_lease_release(&one, "2026-01-01 00:00:00.000", b, sizeof b), "DROP TABLE IF EXISTS o1.order_lease");
    CHECK_EQ_STR(ddl_lease_release(&cl, NULL, b, sizeof b),
                 "DELETE FROM o1.order_lease_keeper WHERE name = 'lease' AND _load_id = {load_id:String}");
    CHECK_EQ_STR(ddl_lease_release(&cl, "2026-01-01 00:00:00.000", b, sizeof b),
                 "DELETE FROM o1.order_lease_keeper WHERE name = 'lease' AND _load_id = {load_id:String} AND "
                 "toString(since) = '2026-01-01 00:00:00.000'");
}

static void test_load_id_and_modes(void)
{
    static const char *const good[] = {"L1", "2026-03-01.orders", "a", "x:y+z/w-v_u.t", "0"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK_EQ_INT(ddl_check_load_id(good[i]), 0);
    static const char *const bad[] = {"", "-L1", ".x", "L 1", "L'1", "L\n1", "L;1", "\xc3\xa9", "L#1", "L1\\"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_INT(ddl_check_load_id(bad[i]), DDL_EINVAL);
    CHECK_EQ_INT(ddl_check_load_id(NULL), DDL_EINVAL);
    char id[130];
    memset(id, 'a', 128);
    id[128] = '\0';
    CHECK_EQ_INT(ddl_check_load_id(id), 0);
    id[128] = 'a', id[129] = '\0';
    CHECK_EQ_INT(ddl_check_load_id(id), DDL_EINVAL);

    ddl_opts o = {0};
    ddl_error e = {0};
    CHECK_EQ_INT(ddl_set_modes(&o, NULL, NULL, &e), 0);
    CHECK(!o.store_every && !o.typing_sql);
    CHECK_EQ_INT(ddl_set_modes(&o, "every", "sql", &e), 0);
    CHECK(o.store_every && o.typing_sql);
    CHECK_EQ_INT(ddl_set_modes(&o, "changes", "udf", &e), 0);
    CHECK(!o.store_every && !o.typing_sql);
    CHECK_EQ_INT(ddl_set_modes(&o, "all", NULL, &e), DDL_EINVAL);
    CHECK_EQ_STR(e.what, "--store");
    CHECK_EQ_STR(e.msg, "changes or every");
    CHECK_EQ_INT(ddl_set_modes(&o, NULL, "json", &e), DDL_EINVAL);
    CHECK_EQ_STR(e.what, "--typing");
    CHECK_EQ_STR(e.msg, "udf or sql");

    /* the gate's pieces: 1 to 64 INSERTs, 1 to 10^9 messages each; anything else refused */
    CHECK_EQ_INT(ddl_set_gate(&o, NULL, NULL, &e), 0);
    CHECK(o.gate_pieces == 0 && o.piece_size == 0);
    CHECK_EQ_INT(ddl_set_gate(&o, "64", "1000000000", &e), 0);
    CHECK(o.gate_pieces == 64 && o.piece_size == 1000000000u);
    CHECK_EQ_INT(ddl_set_gate(&o, "1", "1", &e), 0);
    CHECK(o.gate_pieces == 1 && o.piece_size == 1);
    static const char *const bad_pieces[] = {"0", "65", "", "-1", "+3", "3x", " 3", "99999999999", "4294967297"};
    for (size_t i = 0; i < sizeof bad_pieces / sizeof *bad_pieces; i++) {
        e.what = NULL;
        CHECK_EQ_INT(ddl_set_gate(&o, bad_pieces[i], NULL, &e), DDL_EINVAL);
        CHECK_EQ_STR(e.what, "--gate-pieces");
    }
    /* the pieces a load needs: one per piece_size rows, 1 to 16 */
    CHECK_EQ_INT(ddl_gate_pieces_for(0, 0), 1);
    CHECK_EQ_INT(ddl_gate_pieces_for(DDL_PIECE_SIZE, 0), 1);
    CHECK_EQ_INT(ddl_gate_pieces_for(DDL_PIECE_SIZE + 1ull, 0), 2);
    CHECK_EQ_INT(ddl_gate_pieces_for(16000000, 0), 16);
    CHECK_EQ_INT(ddl_gate_pieces_for(1ull << 40, 0), 16);
    CHECK_EQ_INT(ddl_gate_pieces_for(60, 20), 3);
    CHECK_EQ_INT(ddl_gate_pieces_for(61, 20), 4);
    CHECK_EQ_INT(ddl_gate_pieces_for(60, 1), 16);
    static const char *const bad_size[] = {"0", "1000000001", "", "1e6", "0x10", "4294967296", "18446744073709551617"};
    for (size_t i = 0; i < sizeof bad_size / sizeof *bad_size; i++) {
        e.what = NULL;
        CHECK_EQ_INT(ddl_set_gate(&o, NULL, bad_size[i], &e), DDL_EINVAL);
        CHECK_EQ_STR(e.what, "--piece-size");
    }
}

static void test_schema_one_node(void)
{
    size_t n;
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    char *s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    /* 2 databases, 10 tables (staging, _rep, errors, hot, ledger, stale, manifest, seal, fates,
     * lease view), the gate and its 3 views, order_v */
    CHECK_EQ_INT(count(s, ";\n"), 17);
    CHECK_EQ_INT(count(s, "IF NOT EXISTS"), 17);
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
        char tail[512];
        snprintf(tail, sizeof tail, "    _hashdiff UInt128,\n    _load_id String,\n    _load_ts DateTime64(3, 'UTC'),\n"
                 "    _hashdiff_profile LowCardinality(String) DEFAULT '%s'\n)\n"
                 "ENGINE = ReplacingMergeTree(updated_at)\n"
                 "PARTITION BY toYYYYMMDD(created_at)\nORDER BY order_id\nCOMMENT '", ddl_hashdiff_profile());
        CHECK(strncmp(p, tail, strlen(tail)) == 0);
        /* regression: toDate wraps a created_at outside 1970-2149 into another day's partition */
        CHECK(!strstr(s, "toDate(created_at)"));
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
    /* The manifest: a load's messages by coordinates, as frozen: the delivery columns, which
     * bytes, the class, raw (kept for rejected ones), then the contract's typed columns; sorted
     * by bucket of order_id first, which the gate reads a range of at a time. */
    n = (size_t)snprintf(want, sizeof want, "CREATE TABLE IF NOT EXISTS ods.order_manifest\n(\n    _load_id String,\n"
                                            "    _topic LowCardinality(String),\n    _partition UInt64,\n    _offset UInt64,\n"
                                            "    _timestamp Nullable(DateTime64(3, 'UTC')),\n    _key String,\n"
                                            "    _load_ts DateTime64(3, 'UTC'),\n    _raw_hash UInt64,\n"
                                            "    error_class LowCardinality(String),\n    raw String");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ",\n    %s %s", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
    snprintf(want + n, sizeof want - n, ",\n    _hashdiff UInt128,\n    _bucket UInt8\n)\nENGINE = MergeTree\n"
                                        "PARTITION BY _load_id\nORDER BY (_load_id, _bucket, _topic, _partition, _offset)\n"
                                        "COMMENT '");
    CHECK(strstr(s, want) != NULL);
    /* The seal: one row per frozen load, its staged rows and distinct messages, and the staged
     * rows' fingerprint (0 in a seal from before it was kept: migrate adds the columns). */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS ods.order_frozen\n(\n    _load_id String,\n"
                    "    frozen_at DateTime64(3, 'UTC'),\n    staged UInt64,\n    messages UInt64,\n"
                    "    staged_fp1 UInt64 DEFAULT 0,\n    staged_fp2 UInt64 DEFAULT 0\n)\n"
                    "ENGINE = MergeTree\nORDER BY _load_id\nCOMMENT '") != NULL);
    /* The fates: the gate's verdict on each accepted message of a load, by load and
     * coordinates (what the ledger counts). */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS ods.order_fates\n(\n    _load_id String,\n"
                    "    _topic LowCardinality(String),\n    _partition UInt64,\n    _offset UInt64,\n"
                    "    fate Enum8('stored' = 1, 'stale' = 2, 'unchanged' = 3)\n)\n"
                    "ENGINE = MergeTree\nPARTITION BY _load_id\nORDER BY (_load_id, _topic, _partition, _offset)\n"
                    "COMMENT '") != NULL);
    /* The lease view: reads the lease table when a run holds it, nothing otherwise; its columns
     * are those statement 2 of the transition creates (test_transition.c). */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS ods.order_lease_v\n(\n    _load_id String,\n"
                    "    since DateTime64(3, 'UTC')\n)\nENGINE = Merge('ods', '^order_lease$')\nCOMMENT '") != NULL);
    CHECK(!create_of(s, "ods.order_lease")); /* the lease itself exists only while a run holds it */
    /* The gate: the stored columns, the coordinates, the fate and where the row is still to be
     * written (a flag per target), kept nowhere; a view per target, each under its own flag. */
    snprintf(want, sizeof want, "CREATE TABLE IF NOT EXISTS ods.order_gate\n(\n");
    const char *g = strstr(s, want);
    /* the stored columns up to _load_ts (the gate records no profile: its rows are never kept) */
    size_t upto = (size_t)(strstr(store_block(), "    _load_ts ") - store_block());
    CHECK(g && strncmp(g + strlen(want) - 2, store_block() + 1, upto - 1) == 0);
    CHECK(g && !strstr(create_of(s, "ods.order_gate"), "_hashdiff_profile"));
    CHECK(g && strstr(g, "    _load_ts DateTime64(3, 'UTC'),\n    _topic LowCardinality(String),\n    _partition UInt64,\n"
                         "    _offset UInt64,\n    _fate Enum8('stored' = 1, 'stale' = 2, 'unchanged' = 3),\n"
                         "    _put_hot UInt8,\n    _put_stale UInt8,\n    _put_fate UInt8\n)\nENGINE = Null\nCOMMENT '") != NULL);
    snprintf(want, sizeof want, "CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_stored TO ods.order_snapshot_hot AS\n"
                                "SELECT %s\nFROM ods.order_gate\nWHERE _fate = 'stored' AND _put_hot;\n", store_cols());
    CHECK(strstr(s, want) != NULL);
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_stale TO ods.order_snapshot_stale AS\n"
                    "SELECT order_id, updated_at, _topic, _partition, _offset, _load_id, _load_ts\nFROM ods.order_gate\n"
                    "WHERE _fate = 'stale' AND _put_stale;\n") != NULL);
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS ods.order_gate_fates TO ods.order_fates AS\n"
                    "SELECT _load_id, _topic, _partition, _offset, _fate AS fate\nFROM ods.order_gate\n"
                    "WHERE _put_fate;\n") != NULL);
    CHECK_EQ_INT(count(s, "CREATE MATERIALIZED VIEW "), 3);
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
                    "        FROM (SELECT order_id, updated_at, 0 AS _from_rep FROM ods.order_snapshot_hot WHERE _load_id IN "
                    "(SELECT _load_id FROM ods.order_loads)\n"
                    "              UNION ALL SELECT order_id, updated_at, 1 AS _from_rep FROM ods.order_snapshot_rep\n"
                    "                   WHERE order_id IN (SELECT order_id FROM ods.order_snapshot_hot WHERE _load_id IN "
                    "(SELECT _load_id FROM ods.order_loads)))\n"
                    "        GROUP BY order_id\n"
                    "        HAVING countIf(_from_rep = 1) = 0 OR maxIf(updated_at, _from_rep = 0) >= "
                    "maxIf(updated_at, _from_rep = 1)\n    )";
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

    /* Other names: every table in its database, the lease view over the ODS database's lease. */
    o.stg_db = "s1";
    o.ods_db = "o1";
    s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    CHECK(!strstr(s, "stg.") && !strstr(s, "ods."));
    CHECK(strstr(s, "ENGINE = Merge('o1', '^order_lease$')\n") != NULL);
    CHECK(create_of(s, "s1.orders_raw") && create_of(s, "o1.order_manifest") && create_of(s, "o1.order_frozen") &&
          create_of(s, "o1.order_fates"));
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS o1.order_gate_fates TO o1.order_fates AS\n") != NULL);
    free(s);
}

static void test_schema_cluster(void)
{
    ddl_opts o = {.stg_db = "s1", .ods_db = "o1", .cluster = "c1"};
    char *s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    /* 2 databases, 10 tables, 5 Distributed, the gate, 4 views, the lease's KeeperMap table */
    CHECK_EQ_INT(count(s, "CREATE "), 23);
    CHECK_EQ_INT(count(s, " ON CLUSTER c1"), 23);
    /* the manifest, the seal, the fates and the lease live on the node that runs the transition,
     * as the staged load does: no Distributed table over them */
    CHECK_EQ_INT(count(s, "ENGINE = Distributed("), 5);
    CHECK(create_of(s, "o1.order_manifest") && !strstr(s, "order_manifest_dist") && !strstr(s, "order_frozen_dist"));
    CHECK(create_of(s, "o1.order_fates") && !strstr(s, "order_fates_dist"));
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_fates ON CLUSTER c1\n(\n") != NULL);
    /* the lease is cluster-wide: a KeeperMap row, every node's table at the same Keeper path,
     * read through a view (ddl.h) */
    CHECK(strstr(s, "CREATE TABLE IF NOT EXISTS o1.order_lease_keeper ON CLUSTER c1\n(\n    name String,\n"
                    "    _load_id String,\n    since DateTime64(3, 'UTC')\n)\nENGINE = KeeperMap("
                    "'/ods_transition/o1/lease')\nPRIMARY KEY name\n") != NULL);
    CHECK(strstr(s, "CREATE VIEW IF NOT EXISTS o1.order_lease_v ON CLUSTER c1\n(\n    _load_id String,\n"
                    "    since DateTime64(3, 'UTC')\n)\nAS SELECT _load_id, since FROM o1.order_lease_keeper WHERE "
                    "name = 'lease'\n") != NULL);
    CHECK(strstr(s, "order_lease'") == NULL && strstr(s, "Merge(") == NULL);
    /* the gate's views write through the shards */
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS o1.order_gate_stored ON CLUSTER c1 TO "
                    "o1.order_snapshot_hot_dist AS\n") != NULL);
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS o1.order_gate_stale ON CLUSTER c1 TO "
                    "o1.order_snapshot_stale_dist AS\n") != NULL);
    /* ... but the fates to this node's table */
    CHECK(strstr(s, "CREATE MATERIALIZED VIEW IF NOT EXISTS o1.order_gate_fates ON CLUSTER c1 TO "
                    "o1.order_fates AS\n") != NULL);
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
                    "o1.order_snapshot_hot_dist WHERE _load_id GLOBAL IN (SELECT _load_id FROM o1.order_loads_dist)))\n"
                    "        GROUP BY order_id\n") != NULL);
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
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/o1/order_manifest', "
                    "'{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/o1/order_frozen', "
                    "'{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/o1/order_fates', "
                    "'{replica}')\n") != NULL);
    CHECK(strstr(s, "ENGINE = Null\n") != NULL); /* the gate keeps nothing: nothing to replicate */
    CHECK(strstr(s, "ENGINE = KeeperMap('/ods_transition/o1/lease')\n") != NULL); /* kept in the Keeper */
    CHECK_EQ_INT(count(s, "'{replica}'"), 9);
    CHECK(strstr(s, "internal_replication") != NULL);
    free(s);
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

    /* every place the schema names the cluster, quoted alike: 23 ON CLUSTER, 5 Distributed;
     * nothing bare left over (the transition's: test_transition.c) */
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = "prod-ods", .replicated = 1};
    char *s = gen(ddl_schema, &o);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(count(s, " ON CLUSTER 'prod-ods'"), 23);
        CHECK_EQ_INT(count(s, "ENGINE = Distributed('prod-ods', ods, "), 5);
        CHECK_EQ_INT(count(s, "prod-ods"), 28);
    }
    free(s);
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
            CHECK_EQ_INT(count(on, names[i][1]), 23);
            CHECK_EQ_INT(count(pn, "ON CLUSTER"), 0);
            CHECK(strstr(pn, "\n-- Per node: apply every statement on every node of the cluster") != NULL);
            /* the Distributed tables still name the cluster */
            CHECK_EQ_INT(count(pn, "ENGINE = Distributed("), 5);
            CHECK_EQ_INT(count(pn, "Replicated"), repl ? 9 : 0);
            char *want = replace_all(on, names[i][1], "");
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
    test_load_id_and_modes();
    test_lease_statements();
    test_kafka_values();
    test_opts();
    test_quote();
    test_extract();
    test_schema_one_node();
    test_schema_cluster();
    test_schema_per_node();
    test_cluster_names();
    return check_report();
}
