/* ddl_gen: writes the schema, transition and Kafka-reader SQL from the wire contract's field
 * table; docs/schema.md gives the reason behind each choice made here. */
#include "ddl.h"

#include <stdarg.h>
#include <string.h>
#include <strings.h>

/* The Kafka delivery coordinates, kept with every raw and every rejected message. */
static const char *const KAFKA_META[][2] = {
    {"_topic", "LowCardinality(String)"},
    {"_partition", "UInt64"},
    {"_offset", "UInt64"},
    {"_timestamp", "Nullable(DateTime64(3, 'UTC'))"},
    {"_key", "String"},
};
#define N_META (sizeof KAFKA_META / sizeof KAFKA_META[0])

/* The predicate of the bad branch; the good branch is NOT (bad). --typing udf: the class from
 * _w, the one order_wire_parse(raw) call per row that also gives the typed fields. */
static const char *bad(const ddl_opts *o)
{
    return o->typing_sql ? "order_wire_class(raw) != ''" : "_w.class != ''";
}

/* Where statements 3 and 4 read the staged rows: the table, or (--typing udf) the table with
 * _w, computed once per row whatever reads it. */
static const char *staged(const ddl_opts *o, char *buf, size_t cap)
{
    if (o->typing_sql)
        snprintf(buf, cap, "%s.orders_raw", o->stg_db);
    else
        snprintf(buf, cap, "(SELECT *, order_wire_parse(raw) AS _w FROM %s.orders_raw)", o->stg_db);
    return buf;
}

static int set_err(ddl_error *err, const char *msg, const char *what)
{
    if (err) {
        err->msg = msg;
        err->what = what;
    }
    return DDL_EINVAL;
}

int ddl_check_ident(const char *s, ddl_error *err)
{
    if (!s || !*s)
        return set_err(err, "must not be empty", NULL);
    size_t n = strlen(s);
    if (n > DDL_IDENT_MAX)
        return set_err(err, "is longer than 64 bytes", NULL);
    if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return set_err(err, "must start with a letter or '_'", NULL);
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return set_err(err, "may hold only letters, digits and '_'", NULL);
    }
    return 0;
}

int ddl_check_kafka(const char *s, int is_broker_list, ddl_error *err)
{
    if (!s || !*s)
        return set_err(err, "must not be empty", NULL);
    size_t n = strlen(s);
    if (n > DDL_KAFKA_MAX)
        return set_err(err, "is longer than 1024 bytes", NULL);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        if (is_broker_list)
            ok = ok || c == ':' || c == ',' || c == '[' || c == ']';
        if (!ok)
            return set_err(err,
                           is_broker_list ? "may hold only letters, digits and . _ - : , [ ]"
                                          : "may hold only letters, digits and . _ -",
                           NULL);
    }
    return 0;
}

/* Length of the UTF-8 sequence at s (at most n bytes), or 0 when it is not valid UTF-8: no
 * overlong forms, no surrogates, nothing above U+10FFFF (what the engine's isValidUTF8 and
 * every XML parser accept). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return len;
}

int ddl_check_cluster(const char *s, ddl_error *err)
{
    if (!s || !*s)
        return set_err(err, "must not be empty", NULL);
    size_t n = strlen(s);
    if (n > DDL_CLUSTER_MAX)
        return set_err(err, "is longer than 255 bytes", NULL);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (u[i] < 0x20 || u[i] == 0x7F)
            return set_err(err, "must not hold control characters (tab, newline ...)", NULL);
        size_t l = utf8_len(u + i, n - i);
        if (!l)
            return set_err(err, "is not valid UTF-8", NULL);
        i += l;
    }
    /* The server's Macros::expand reads every '{' as the start of {NAME} up to the next '}'. */
    for (const char *p = strchr(s, '{'); p; p = strchr(p, '{')) {
        const char *close = strchr(p + 1, '}');
        if (!close)
            return set_err(err, "has a '{' without a closing '}': the server reads {NAME} as a macro", NULL);
        if (close == p + 1 || memchr(p + 1, '{', (size_t)(close - p - 1)))
            return set_err(err, "has an empty or nested macro reference: write macros as {NAME}", NULL);
        p = close + 1;
    }
    return 0;
}

int ddl_cluster_is_bare(const char *s)
{
    /* Words the expression parser reads as literals (NULL, TRUE, FALSE, INF, INFINITY, NAN) or
     * as an operator (NOT), found by parsing every keyword of system.keywords as Distributed's
     * first argument: bare, Distributed(null, …) would name no cluster at all. */
    static const char *const literal_words[] = {"null", "true", "false", "inf", "infinity", "nan", "not"};
    if (!s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (const char *p = s + 1; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    for (size_t i = 0; i < sizeof literal_words / sizeof literal_words[0]; i++)
        if (!strcasecmp(s, literal_words[i]))
            return 0;
    return 1;
}

int ddl_cluster_sql(FILE *out, const char *s)
{
    if (ddl_cluster_is_bare(s))
        return fputs(s, out) == EOF ? DDL_EIO : 0;
    return ddl_quote(out, s);
}

/* ddl_check_ident or ddl_check_kafka (kafka >= 0: is_broker_list) with err->what = what. */
static int check_one(const char *v, const char *what, int kafka, ddl_error *err)
{
    int rc = kafka < 0 ? ddl_check_ident(v, err) : ddl_check_kafka(v, kafka, err);
    if (rc < 0 && err)
        err->what = what;
    return rc;
}

/* The engine's own databases: creating tables there would mix the ODS with the server's state
 * (and INFORMATION_SCHEMA's views are read-only). Compared in any case, as both spellings exist. */
static int reserved_db(const char *s)
{
    return !strcasecmp(s, "system") || !strcasecmp(s, "information_schema");
}

int ddl_check_opts(const ddl_opts *o, int need_kafka, ddl_error *err)
{
    if (check_one(o->stg_db, "--stg-db", -1, err) < 0 || check_one(o->ods_db, "--ods-db", -1, err) < 0)
        return DDL_EINVAL;
    if (reserved_db(o->stg_db))
        return set_err(err, "names a ClickHouse system database (system, information_schema): choose another", "--stg-db");
    if (reserved_db(o->ods_db))
        return set_err(err, "names a ClickHouse system database (system, information_schema): choose another", "--ods-db");
    if (o->cluster && ddl_check_cluster(o->cluster, err) < 0) { /* NULL: one node */
        if (err)
            err->what = "--cluster";
        return DDL_EINVAL;
    }
    if (o->replicated && !o->cluster)
        return set_err(err, "needs --cluster", "--replicated");
    if (o->per_node && !o->cluster)
        return set_err(err, "needs --cluster", "--per-node");
    if (!need_kafka)
        return 0;
    const struct {
        const char *v, *what;
        int brokers;
    } kv[] = {{o->brokers, "--brokers", 1}, {o->topic, "--topic", 0}, {o->group, "--group", 0}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        if (!kv[i].v)
            return set_err(err, "is required", kv[i].what);
        if (check_one(kv[i].v, kv[i].what, kv[i].brokers, err) < 0)
            return DDL_EINVAL;
    }
    return 0;
}

/* Output goes through these; the first failure sticks in *st so callers check once. */
static void put(int *st, FILE *out, const char *fmt, ...)
{
    if (*st)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(out, fmt, ap) < 0)
        *st = DDL_EIO;
    va_end(ap);
}

int ddl_quote(FILE *out, const char *s)
{
    if (fputc('\'', out) == EOF)
        return DDL_EIO;
    for (; *s; s++) {
        if ((*s == '\'' || *s == '\\') && fputc('\\', out) == EOF)
            return DDL_EIO;
        if (fputc(*s, out) == EOF)
            return DDL_EIO;
    }
    return fputc('\'', out) == EOF ? DDL_EIO : 0;
}

static void quote(int *st, FILE *out, const char *s)
{
    if (!*st)
        *st = ddl_quote(out, s);
}

/* tmpl with every "%s" replaced by name (never handed to printf: a template may hold '%'). */
static int fill(FILE *out, const char *tmpl, const char *name)
{
    const char *p = tmpl;
    for (const char *q; (q = strstr(p, "%s")); p = q + 2)
        if (fprintf(out, "%.*s%s", (int)(q - p), p, name) < 0)
            return DDL_EIO;
    return fputs(p, out) == EOF ? DDL_EIO : 0;
}

int ddl_extract(FILE *out, const wire_field *f)
{
    return fill(out, f->sql_extract, f->name);
}

int ddl_canon(FILE *out, const wire_field *f)
{
    return fill(out, f->canon_sql, f->name);
}

int ddl_hashdiff_args(FILE *out)
{
    const char *sep = "[";
    for (size_t i = 0; i < WIRE_NFIELDS; i++) {
        if (!WIRE_FIELDS[i].in_hashdiff)
            continue;
        if (fputs(sep, out) == EOF || ddl_canon(out, &WIRE_FIELDS[i]) < 0)
            return DDL_EIO;
        sep = ", ";
    }
    return fputs("]", out) == EOF ? DDL_EIO : 0;
}

/* The cluster name as SQL (ddl_cluster_sql). Every place that names the cluster goes through
 * here: ON CLUSTER and Distributed's first argument. */
static void cluster_name(int *st, FILE *out, const ddl_opts *o)
{
    if (!*st)
        *st = ddl_cluster_sql(out, o->cluster);
}

/* " ON CLUSTER name" or nothing (one node, or --per-node: the same statements, run on every
 * node by whoever applies them). */
static void on_cluster(int *st, FILE *out, const ddl_opts *o)
{
    if (o->cluster && !o->per_node) {
        put(st, out, " ON CLUSTER ");
        cluster_name(st, out, o);
    }
}

/* ENGINE = [Replicated]NAME[(args)]: a replica path per shard, table and database. */
static void engine(int *st, FILE *out, const ddl_opts *o, const char *name, const char *db,
                   const char *table, const char *args)
{
    if (o->replicated) {
        char path[3 * DDL_IDENT_MAX + 64];
        snprintf(path, sizeof path, "/clickhouse/tables/{shard}/%s/%s", db, table);
        put(st, out, "ENGINE = Replicated%s(", name);
        quote(st, out, path);
        put(st, out, ", '{replica}'%s%s)\n", args ? ", " : "", args ? args : "");
    } else if (args) {
        put(st, out, "ENGINE = %s(%s)\n", name, args);
    } else {
        put(st, out, "ENGINE = %s\n", name);
    }
}

static void meta_columns(int *st, FILE *out)
{
    for (size_t i = 0; i < N_META; i++)
        put(st, out, "    %s %s,\n", KAFKA_META[i][0], KAFKA_META[i][1]);
}

static void meta_names(int *st, FILE *out)
{
    for (size_t i = 0; i < N_META; i++)
        put(st, out, "%s, ", KAFKA_META[i][0]);
}

static void contract_names(int *st, FILE *out, const char *sep)
{
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        put(st, out, "%s%s", WIRE_FIELDS[i].name, sep);
}

/* The columns of _rep, _hot and order_v after the contract's: the state's hash and the load. */
static const char *const LOAD_COLS[] = {"_hashdiff", "_load_id", "_load_ts"};
#define N_STORE (WIRE_NFIELDS + sizeof LOAD_COLS / sizeof LOAD_COLS[0])

/* The i-th column of _rep, _hot and order_v (i < N_STORE). */
static const char *store_name(size_t i)
{
    return i < WIRE_NFIELDS ? WIRE_FIELDS[i].name : LOAD_COLS[i - WIRE_NFIELDS];
}

/* The columns of _rep, _hot and order_v, in order. */
static void store_names(int *st, FILE *out)
{
    contract_names(st, out, ", ");
    put(st, out, "_hashdiff, _load_id, _load_ts");
}

/* The local table the Distributed one routes to, or (one node) the table written directly. */
static const char *target(const ddl_opts *o, const char *local, const char *dist)
{
    return o->cluster ? dist : local;
}

/* The column block of _rep and _hot: the contract's typed columns, then _hashdiff and the load;
 * with gate, the gate's: then also the Kafka coordinates and the row's fate. */
static void store_columns(int *st, FILE *out, int gate)
{
    put(st, out, "\n(\n");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        put(st, out, "    %s %s,\n", WIRE_FIELDS[i].name, WIRE_FIELDS[i].ods_type);
    put(st, out, "    _hashdiff UInt128,\n    _load_id String,\n    _load_ts DateTime64(3, 'UTC')");
    if (gate) {
        for (size_t i = 0; i < 3; i++) /* the coordinates: _topic, _partition, _offset */
            put(st, out, ",\n    %s %s", KAFKA_META[i][0], KAFKA_META[i][1]);
        put(st, out, ",\n    _fate Enum8('stored' = 1, 'stale' = 2)");
    }
    put(st, out, "\n)\n");
}

/* ";" and CREATE of the Distributed table NAME over the local table LOCAL of the ODS database,
 * sharded by KEY (NULL: none, for a table only ever read through it). */
static void dist_table(int *st, FILE *out, const ddl_opts *o, const char *name, const char *local, const char *key)
{
    const char *D = o->ods_db;
    put(st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.%s", D, name);
    on_cluster(st, out, o);
    put(st, out, " AS %s.%s\nENGINE = Distributed(", D, local);
    cluster_name(st, out, o);
    put(st, out, ", %s, %s%s%s)", D, local, key ? ", " : "", key ? key : "");
}

int ddl_schema(FILE *out, const ddl_opts *o)
{
    int st = 0;
    const char *S = o->stg_db, *D = o->ods_db;

    put(&st, out, "-- ods-ddl schema, wire contract %s, %s\n", WIRE_CONTRACT_VERSION,
        o->cluster ? (o->replicated ? "cluster, replicated" : "cluster") : "one node");
    if (o->per_node)
        put(&st, out, "-- Per node: apply every statement on every node of the cluster, one node at a time.\n");
    if (o->replicated)
        put(&st, out, "-- The cluster's shards must set <internal_replication>true</internal_replication>:\n"
                      "-- the Distributed tables write one replica, replication copies the rest.\n");
    put(&st, out, "CREATE DATABASE IF NOT EXISTS %s", S);
    on_cluster(&st, out, o);
    if (strcmp(S, D) != 0) {
        put(&st, out, ";\n\nCREATE DATABASE IF NOT EXISTS %s", D);
        on_cluster(&st, out, o);
    }

    put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.orders_raw", S);
    on_cluster(&st, out, o);
    put(&st, out, "\n(\n    raw String,\n");
    meta_columns(&st, out);
    put(&st, out, "    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n");
    engine(&st, out, o, "MergeTree", S, "orders_raw", NULL);
    put(&st, out, "PARTITION BY toDate(_load_ts)\nORDER BY (_load_id, _topic, _partition, _offset)\n"
                  "COMMENT ");
    quote(&st, out, "Kafka messages as received, one batch per _load_id");

    put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_rep", D);
    on_cluster(&st, out, o);
    store_columns(&st, out, 0);
    engine(&st, out, o, "ReplacingMergeTree", D, "order_snapshot_rep", "updated_at");
    put(&st, out, "PARTITION BY toDate(created_at)\nORDER BY order_id\nCOMMENT ");
    quote(&st, out, "order snapshots, typed by wire contract " WIRE_CONTRACT_VERSION);

    put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_errors", D);
    on_cluster(&st, out, o);
    put(&st, out, "\n(\n    raw String,\n    error_class LowCardinality(String),\n");
    meta_columns(&st, out);
    put(&st, out, "    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n");
    engine(&st, out, o, "MergeTree", D, "order_snapshot_errors", NULL);
    put(&st, out, "PARTITION BY toDate(_load_ts)\n"
                  "ORDER BY (_load_id, error_class, _topic, _partition, _offset)\nCOMMENT ");
    quote(&st, out, "messages rejected by order_wire_class, raw, with their Kafka coordinates");

    /* Hot rows: a load's new versions, written before its commit, read by order_v only once
     * the ledger holds the load, folded into _rep by the next transition. A plain MergeTree:
     * no merge ever replaces a row here, so nothing committed can be lost to an uncommitted
     * version. */
    put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_hot", D);
    on_cluster(&st, out, o);
    store_columns(&st, out, 0);
    engine(&st, out, o, "MergeTree", D, "order_snapshot_hot", NULL);
    put(&st, out, "PARTITION BY _load_id\nORDER BY (order_id, updated_at)\nCOMMENT ");
    quote(&st, out, "versions of loads not yet folded into order_snapshot_rep; visible once committed");

    put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_loads", D);
    on_cluster(&st, out, o);
    put(&st, out, "\n(\n    delta UInt64,\n    _load_id String,\n    committed_at DateTime64(3, 'UTC'),\n"
                  "    received UInt64,\n    accepted UInt64,\n    stored UInt64,\n    unchanged UInt64,\n"
                  "    stale UInt64,\n    rejected UInt64");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        put(&st, out, ",\n    %s UInt64", WIRE_REJECT_CLASSES[i]);
    put(&st, out, "\n)\n");
    engine(&st, out, o, "MergeTree", D, "order_loads", NULL);
    put(&st, out, "ORDER BY delta\nCOMMENT ");
    quote(&st, out, "the ledger: one row per committed load, delta 1, 2, 3 ...");

    /* Stale messages: accepted, older than the latest stored version of their order, so not
     * stored; the commit counts them here rather than parsing the load a second time. One row
     * per load and Kafka coordinates (the gate writes each once). A plain MergeTree: it is no
     * table of versions, and shard-check rightly refuses a ReplacingMergeTree without one. */
    put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_snapshot_stale", D);
    on_cluster(&st, out, o);
    put(&st, out, "\n(\n");
    const char *keyf[] = {"order_id", "updated_at"};
    for (size_t i = 0; i < 2; i++) {
        const wire_field *f = wire_field_by_name(keyf[i], strlen(keyf[i]));
        put(&st, out, "    %s %s,\n", keyf[i], f ? f->ods_type : "?");
    }
    for (size_t i = 0; i < 3; i++) /* the coordinates: _topic, _partition, _offset */
        put(&st, out, "    %s %s,\n", KAFKA_META[i][0], KAFKA_META[i][1]);
    put(&st, out, "    _load_id String,\n    _load_ts DateTime64(3, 'UTC')\n)\n");
    engine(&st, out, o, "MergeTree", D, "order_snapshot_stale", NULL);
    put(&st, out, "PARTITION BY _load_id\nORDER BY (_topic, _partition, _offset)\nCOMMENT ");
    quote(&st, out, "accepted messages older than their order's latest stored version: not stored, counted by the commit");

    if (o->cluster) {
        dist_table(&st, out, o, "order_snapshot_dist", "order_snapshot_rep", "cityHash64(order_id)");
        dist_table(&st, out, o, "order_snapshot_errors_dist", "order_snapshot_errors",
                   "cityHash64(_topic, _partition, _offset)");
        dist_table(&st, out, o, "order_snapshot_hot_dist", "order_snapshot_hot", "cityHash64(order_id)");
        /* The ledger is written on the node that runs the transition and read everywhere
         * through this table: a load's row lives on one node, the union is the ledger. */
        dist_table(&st, out, o, "order_loads_dist", "order_loads", NULL);
        dist_table(&st, out, o, "order_snapshot_stale_dist", "order_snapshot_stale", "cityHash64(order_id)");
    }

    /* The gate: the good branch's INSERT (store changes) writes each version it keeps and each
     * stale message, with its fate, into this Null table once; one materialized view sends the
     * stored ones to the hot table, one the stale ones to order_snapshot_stale. One pass over
     * the load does both; a Null table keeps nothing. */
    put(&st, out, ";\n\nCREATE TABLE IF NOT EXISTS %s.order_gate", D);
    on_cluster(&st, out, o);
    store_columns(&st, out, 1);
    put(&st, out, "ENGINE = Null\nCOMMENT ");
    quote(&st, out, "the transition's gate: each row goes on to order_snapshot_hot or order_snapshot_stale by _fate");
    put(&st, out, ";\n\nCREATE MATERIALIZED VIEW IF NOT EXISTS %s.order_gate_stored", D);
    on_cluster(&st, out, o);
    put(&st, out, " TO %s.%s AS\nSELECT ", D, target(o, "order_snapshot_hot", "order_snapshot_hot_dist"));
    store_names(&st, out);
    put(&st, out, "\nFROM %s.order_gate\nWHERE _fate = 'stored'", D);
    put(&st, out, ";\n\nCREATE MATERIALIZED VIEW IF NOT EXISTS %s.order_gate_stale", D);
    on_cluster(&st, out, o);
    put(&st, out, " TO %s.%s AS\nSELECT order_id, updated_at, _topic, _partition, _offset, _load_id, _load_ts\n"
                  "FROM %s.order_gate\nWHERE _fate = 'stale'",
        D, target(o, "order_snapshot_stale", "order_snapshot_stale_dist"), D);

    /* order_v: per order, the newest of _rep's FINAL row and the hot rows of committed loads
     * (greatest updated_at; on a tie the hot row, of the latest load among hot rows: its
     * versions are the latest written). _rep holds committed loads only, so its merges are
     * harmless. W, the orders whose newest committed hot row is at least as new as their
     * newest _rep row, is found from two columns only (the max updated_at of _rep's rows is
     * its FINAL row's), so _rep's FINAL is read once, for the orders not in W; the rows of W
     * come from the hot table, the newest by an argMax grouped by order_id, so a reader's
     * filter on order_id reaches both tables (it would not pass a LIMIT BY). */
    const char *g = o->cluster ? "GLOBAL " : "";
    const char *rep_t = target(o, "order_snapshot_rep", "order_snapshot_dist");
    const char *hot_t = target(o, "order_snapshot_hot", "order_snapshot_hot_dist");
    const char *loads_t = target(o, "order_loads", "order_loads_dist");
    char committed[256], w[1536];
    snprintf(committed, sizeof committed, "_load_id %sIN (SELECT _load_id FROM %s.%s)", g, D, loads_t);
    snprintf(w, sizeof w,
             "(\n        SELECT order_id\n"
             "        FROM (SELECT order_id, max(updated_at) AS _hu FROM %s.%s WHERE %s GROUP BY order_id) AS hh\n"
             "        LEFT JOIN (SELECT order_id, max(updated_at) AS _ru, 1 AS _in_rep FROM %s.%s\n"
             "                   WHERE order_id %sIN (SELECT order_id FROM %s.%s WHERE %s) GROUP BY order_id) AS rr\n"
             "        USING (order_id)\n"
             "        WHERE ifNull(_in_rep, 0) = 0 OR _hu >= _ru\n    )",
             D, hot_t, committed, D, rep_t, g, D, hot_t, committed);
    put(&st, out, ";\n\nCREATE VIEW IF NOT EXISTS %s.order_v", D);
    on_cluster(&st, out, o);
    /* The setting sits inside the FINAL subquery: a SETTINGS clause after a UNION's last
     * SELECT does not reach the first one (checked on the engine). */
    put(&st, out, " AS\nSELECT ");
    store_names(&st, out);
    put(&st, out, "\nFROM\n(\n    SELECT ");
    store_names(&st, out);
    put(&st, out, "\n    FROM %s.%s FINAL\n    WHERE order_id %sNOT IN %s\n"
                  "    SETTINGS do_not_merge_across_partitions_select_final = 0\n)\n"
                  "UNION ALL\nSELECT order_id",
        D, rep_t, g, w);
    for (size_t i = 1; i < N_STORE; i++)
        put(&st, out, ", _v.%zu AS %s", i, store_name(i));
    /* order_id is the contract's first field (test_wire_contract pins it): the group key */
    put(&st, out, "\nFROM\n(\n    SELECT order_id, argMax((");
    for (size_t i = 1; i < N_STORE; i++)
        put(&st, out, "%s%s", i > 1 ? ", " : "", store_name(i));
    put(&st, out, "), (updated_at, c.delta)) AS _v\n    FROM %s.%s AS h\n"
                  "    %sINNER JOIN (SELECT _load_id, delta FROM %s.%s) AS c USING (_load_id)\n"
                  "    WHERE order_id %sIN %s\n    GROUP BY order_id\n)",
        D, hot_t, g, D, loads_t, g, w);
    put(&st, out, ";\n");
    return st;
}

/* The typed columns of the load's accepted rows (order_wire_parse's, or typed by SQL),
 * _hashdiff over their canonical texts, and the load and Kafka columns, as select items (each
 * line indented by ind). */
static void typed_items(int *st, FILE *out, const ddl_opts *o, const char *ind, int kafka)
{
    for (size_t i = 0; i < WIRE_NFIELDS; i++) {
        put(st, out, "%s", ind);
        if (!o->typing_sql)
            put(st, out, "_w.%s", WIRE_FIELDS[i].name);
        else if (!*st)
            *st = ddl_extract(out, &WIRE_FIELDS[i]);
        put(st, out, " AS %s,\n", WIRE_FIELDS[i].name);
    }
    put(st, out, "%shashdiff_strict(", ind);
    if (!*st)
        *st = ddl_hashdiff_args(out);
    put(st, out, ") AS _hashdiff,\n%s_load_id,\n%s_load_ts", ind, ind);
    if (kafka)
        put(st, out, ",\n%s_topic,\n%s_partition,\n%s_offset", ind, ind, ind);
    put(st, out, "\n");
}

/* The statements of the transition, in order; docs/schema.md explains each. */
int ddl_transition(FILE *out, const ddl_opts *o)
{
    int st = 0;
    const char *S = o->stg_db, *D = o->ods_db;
    const char *rep = target(o, "order_snapshot_rep", "order_snapshot_dist");
    const char *hot = target(o, "order_snapshot_hot", "order_snapshot_hot_dist");
    const char *errs = target(o, "order_snapshot_errors", "order_snapshot_errors_dist");
    const char *loads = target(o, "order_loads", "order_loads_dist");
    const char *stale = target(o, "order_snapshot_stale", "order_snapshot_stale_dist");
    const char *g = o->cluster ? "GLOBAL " : "";
    /* Settings of the INSERTs, before SELECT (so they govern the write):
     * - distributed_foreground_insert = 1: an INSERT returns once every shard has its rows;
     * - optimize_on_insert = 0: ReplacingMergeTree would collapse two versions of one order_id
     *   arriving in one block at insert time, silently dropping a stored version;
     * - max_partitions_per_insert_block: a backfill touches one partition per creation day;
     * - join_use_nulls = 0: an order the ODS does not hold yet joins as zeros, not NULLs. */
    const char *fg = o->cluster ? "distributed_foreground_insert = 1, " : "";
    /* "this load is not committed yet": every statement but the lock carries it, so a rerun
     * of a committed load changes nothing. */
    /* the load's own order ids, to read the ODS through its sort key */
    char open_load[256];
    snprintf(open_load, sizeof open_load, "{load_id:String} %sNOT IN (SELECT _load_id FROM %s.%s)", g, D, loads);
    /* the load's order_ids, guarded too: the engine builds an IN set before it filters, so a
     * committed load's rerun would otherwise extract every staged order_id for nothing */
    char in[1024];
    snprintf(in, sizeof in, "order_id %sIN (SELECT JSONExtractString(raw, 'order_id') FROM %s.orders_raw "
                            "WHERE _load_id = {load_id:String} AND %s)",
             g, S, open_load);

    put(&st, out, "-- ods-ddl transition, wire contract %s, store %s: run every statement, in order, with "
                  "--param_load_id=ID.\n-- A rerun of a load, after success or any failure, leaves "
                  "the tables as one clean run does;\n-- order_v shows the load, all of it, from the "
                  "commit (statement 6) on. One transition at a time.\n",
        WIRE_CONTRACT_VERSION, o->store_every ? "every version" : "changes");

    /* 1. Hot rows of loads that an earlier transition folded into _rep (every committed load
     *    but the latest: the transition before this one folded them). A folded load stays in
     *    the hot table until the next load's transition, so no reader can miss its rows
     *    between the fold and this delete. */
    put(&st, out, "-- 1. housekeeping: hot rows already folded into %s by an earlier transition\n"
                  "ALTER TABLE %s.order_snapshot_hot", rep, D);
    on_cluster(&st, out, o);
    put(&st, out, " DELETE WHERE %s\n  AND _load_id IN (SELECT _load_id FROM %s.%s WHERE delta < "
                  "(SELECT max(delta) FROM %s.%s))\nSETTINGS mutations_sync = 2%s;\n\n",
        open_load, D, loads, D, loads, o->cluster ? ", allow_nondeterministic_mutations = 1" : "");

    /* 2. Fold: hot rows of committed loads into _rep, those not there yet (a rerun adds
     *    none). _rep only ever receives committed versions, so its merges cannot replace a
     *    committed version by an uncommitted one. */
    char committed_hot[512];
    snprintf(committed_hot, sizeof committed_hot, "SELECT order_id FROM %s.%s WHERE _load_id %sIN (SELECT _load_id FROM %s.%s)",
             D, hot, g, D, loads);
    put(&st, out, "-- 2. fold: versions of committed loads into %s\nINSERT INTO %s.%s (", rep, D, rep);
    store_names(&st, out);
    put(&st, out, ")\nSETTINGS %soptimize_on_insert = 0, max_partitions_per_insert_block = %d\nSELECT ",
        fg, DDL_MAX_PARTITIONS);
    store_names(&st, out);
    put(&st, out, "\nFROM %s.%s\nWHERE %s\n  AND _load_id %sIN (SELECT _load_id FROM %s.%s)\n"
                  "  AND (order_id, updated_at, _hashdiff, _load_id) %sNOT IN (SELECT order_id, updated_at, "
                  "_hashdiff, _load_id FROM %s.%s WHERE order_id %sIN (%s));\n\n",
        D, hot, open_load, g, D, loads, g, D, rep, g, committed_hot);

    /* 3. The bad branch. */
    put(&st, out, "-- 3. rejected messages, each recorded once\nINSERT INTO %s.%s (raw, error_class, ", D, errs);
    meta_names(&st, out);
    char src[256];
    staged(o, src, sizeof src);
    put(&st, out, "_load_id, _load_ts)%s\nSELECT raw, %s, ",
        o->cluster ? "\nSETTINGS distributed_foreground_insert = 1" : "",
        o->typing_sql ? "order_wire_class(raw)" : "_w.class");
    meta_names(&st, out);
    put(&st, out, "_load_id, _load_ts\nFROM %s\n"
                  "WHERE _load_id = {load_id:String}\n"
                  "  AND %s\n"
                  "  AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, _offset "
                  "FROM %s.%s WHERE _load_id = {load_id:String})\n"
                  "  AND %s\n"
                  "LIMIT 1 BY _topic, _partition, _offset;\n\n",
        src, open_load, g, D, errs, bad(o));

    /* 4. The good branch, into the hot table (store changes: through the gate). */
    put(&st, out, "-- 4. accepted versions, typed, into the hot table (not visible before the commit)%s\n"
                  "INSERT INTO %s.%s (", o->store_every ? "" : " through the gate; stale messages into order_snapshot_stale", D,
        o->store_every ? hot : "order_gate");
    store_names(&st, out);
    put(&st, out, "%s)\nSETTINGS %smax_partitions_per_insert_block = %d%s\n", o->store_every ? "" : ", _topic, _partition, _offset, _fate",
        fg, DDL_MAX_PARTITIONS, o->store_every ? "" : ", join_use_nulls = 0");
    if (o->store_every) {
        put(&st, out, "SELECT\n");
        typed_items(&st, out, o, "    ", 0);
        put(&st, out, "FROM %s\nWHERE _load_id = {load_id:String} AND NOT (%s)\n  AND %s;\n\n",
            src, bad(o), open_load);
    } else {
        /* Store only changes. Per order, the load's versions line up after the "prior": what
         * order_v shows now, the load not being committed. A version is stored when it
         * differs from the one before it:
         *  - one version per updated_at within a load, the first received (by _load_ts, then
         *    Kafka coordinates): two contents with one updated_at cannot both be current, and
         *    "first" is what a rerun with later-staged rows still agrees on;
         *  - _hashdiff covers updated_at, so the load's versions (distinct updated_at) all
         *    differ from each other; only the first can equal the prior (same state);
         *  - older than the prior: it cannot change order_v, left out (stale).
         * What an earlier run of this load stored (_mine, at most the load's size: no order_id
         * filter, which would cost a second pass over the staged set) is not stored again, so
         * every rerun computes what the first run did; a stale message is recorded once (by its
         * coordinates: not again by a rerun, and one copy of a message staged twice) and never
         * when it is a version this load stored (a load committed between a failed run and its
         * rerun can make it older than the prior). The gate's views split the rows by _fate. The ODS is read only for the load's own order_ids,
         * through the sort key (GLOBAL: on a cluster the shards get the set from the node that
         * holds the staged load). Both joined sides carry the ledger guard too: a hash join
         * builds its right side whatever the left holds, and a rerun of a committed load (left
         * side empty) would otherwise read the load's whole prior from order_v for nothing. */
        put(&st, out, "SELECT ");
        store_names(&st, out);
        put(&st, out, ", _topic, _partition, _offset,\n"
                      "    multiIf(_receipt = 1 AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND "
                      "_hashdiff != _prior_hashdiff))\n"
                      "              AND NOT has(_mine, (updated_at, _hashdiff)), 'stored',\n"
                      "            _has_prior AND updated_at < _prior_updated_at AND NOT has(_mine.1, updated_at)\n"
                      "              AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, _offset "
                      "FROM %s.%s WHERE _load_id = {load_id:String}), 'stale',\n"
                      "            '') AS _fate\n"
                      "FROM\n(\n"
                      "    SELECT *,\n"
                      "        row_number() OVER (PARTITION BY order_id, updated_at "
                      "ORDER BY _load_ts, _topic, _partition, _offset) AS _receipt\n"
                      "    FROM\n    (\n        SELECT\n", g, D, stale);
        typed_items(&st, out, o, "            ", 1);
        put(&st, out, "        FROM %s\n"
                      "        WHERE _load_id = {load_id:String} AND NOT (%s)\n"
                      "          AND %s\n"
                      "    )\n) AS l\n"
                      "LEFT JOIN\n(\n"
                      "    SELECT order_id, 1 AS _has_prior, updated_at AS _prior_updated_at, "
                      "_hashdiff AS _prior_hashdiff\n"
                      "    FROM %s.order_v\n"
                      "    WHERE %s\n"
                      "      AND %s\n"
                      ") AS o USING (order_id)\n"
                      "LEFT JOIN\n(\n"
                      "    SELECT order_id, groupArray((updated_at, _hashdiff)) AS _mine\n"
                      "    FROM %s.%s\n"
                      "    WHERE _load_id = {load_id:String}\n"
                      "      AND %s\n"
                      "    GROUP BY order_id\n"
                      ") AS m USING (order_id)\n"
                      "WHERE _fate != ''\n"
                      "LIMIT 1 BY _topic, _partition, _offset;\n\n",
            src, bad(o), open_load, D, in, open_load, D, hot, open_load);
    }

    /* 5–7. The commit: one row in the ledger, the next delta. The lock table makes a second
     * commit running at the same moment fail (CREATE of an existing table) instead of taking
     * the same delta; a commit that failed leaves it behind, and docs/schema.md says how to
     * clear it. */
    put(&st, out, "-- 5. the commit lock: fails while another commit holds it (docs/schema.md: a stale lock)\n"
                  "CREATE TABLE %s.order_loads_lock ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                  "now64(3, 'UTC') AS since;\n\n", D);
    put(&st, out, "-- 6. the commit: the ledger row, delta one above the last; order_v shows the load from here on\n"
                  "INSERT INTO %s.order_loads (delta, _load_id, committed_at, received, accepted, stored, unchanged, "
                  "stale, rejected", D);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        put(&st, out, ", %s", WIRE_REJECT_CLASSES[i]);
    put(&st, out, ")\nSELECT (SELECT max(delta) FROM %s.%s) + 1, {load_id:String}, now64(3, 'UTC'),\n"
                  "    r.n, r.n - e.n, s.n, %s, x.n, e.n", D, loads,
        /* --store every keeps every accepted version: nothing is unchanged or stale (a rerun
         * after a failure stores again, and stored then says so) */
        o->store_every ? "0" : "r.n - e.n - s.n - x.n");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        put(&st, out, ", e.c%zu", i);
    put(&st, out, "\nFROM (SELECT uniqExact(_topic, _partition, _offset) AS n FROM %s.orders_raw "
                  "WHERE _load_id = {load_id:String}) AS r,\n"
                  "    (SELECT count() AS n", S);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        put(&st, out, ", countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
    put(&st, out, " FROM %s.%s WHERE _load_id = {load_id:String}) AS e,\n"
                  "    (SELECT count() AS n FROM %s.%s WHERE _load_id = {load_id:String}) AS s,\n",
        D, errs, D, hot);
    if (o->store_every) {
        put(&st, out, "    (SELECT 0 AS n) AS x\n");
    } else {
        /* stale: as the gate recorded them, one per message */
        put(&st, out, "    (SELECT uniqExact(_topic, _partition, _offset) AS n FROM %s.%s "
                      "WHERE _load_id = {load_id:String}) AS x\n", D, stale);
    }
    put(&st, out, "WHERE %s;\n\n", open_load);
    put(&st, out, "-- 7. the lock released\nDROP TABLE %s.order_loads_lock;\n", D);
    return st;
}

int ddl_kafka(FILE *out, const ddl_opts *o)
{
    int st = 0;
    const char *S = o->stg_db;

    put(&st, out, "-- ods-ddl kafka: one consumer, created on this node only; the INSERT "
                  "reads one batch, run it with --param_load_id=ID\n"
                  "-- and all three statements in one session: the check after it fails the run "
                  "when the batch staged no message (an unreachable broker: its last error)\n");
    put(&st, out, "CREATE TABLE IF NOT EXISTS %s.orders_kafka\n(\n    raw String\n)\nENGINE = Kafka\n"
                  "SETTINGS\n    kafka_broker_list = ", S);
    quote(&st, out, o->brokers);
    put(&st, out, ",\n    kafka_topic_list = ");
    quote(&st, out, o->topic);
    put(&st, out, ",\n    kafka_group_name = ");
    quote(&st, out, o->group);
    put(&st, out, ",\n    kafka_format = 'RawBLOB',\n    kafka_num_consumers = 1,\n"
                  "    kafka_commit_on_select = 1;\n\n");
    put(&st, out, "INSERT INTO %s.orders_raw (raw, ", S);
    meta_names(&st, out);
    put(&st, out, "_load_id, _load_ts)\n"
                  "SELECT raw, _topic, _partition, _offset, _timestamp_ms, _key, {load_id:String}, "
                  "now64(3, 'UTC')\nFROM %s.orders_kafka\nWHERE raw != ''\n"
                  "SETTINGS stream_like_engine_allow_direct_select = 1;\n\n", S);
    /* The engine does not fail a Kafka SELECT whose broker is unreachable: it waits, reads no
     * message and succeeds; the consumer's errors are only in system.kafka_consumers
     * (exceptions.time, exceptions.text, kept while the server runs). A nightly snapshot is never
     * empty, so a batch that staged nothing under this _load_id fails here, naming the last error. */
    put(&st, out, "-- the check: no message staged for this load is an error, not an empty success "
                  "(system.kafka_consumers, ClickHouse 23.8 and later)\n"
                  "SELECT throwIf((SELECT count() FROM %s.orders_raw WHERE _load_id = {load_id:String}) = 0\n"
                  "               AND (SELECT count() FROM system.tables WHERE database = ", S);
    quote(&st, out, S);
    put(&st, out, " AND name = 'orders_kafka'\n"
                  "                    AND engine = 'Kafka') > 0,\n"
                  "    (SELECT concat('Kafka batch ', {load_id:String}, ': no message was read from %s.orders_kafka (brokers ', ", S);
    quote(&st, out, o->brokers);
    put(&st, out, ",\n                   ', topic ', ");
    quote(&st, out, o->topic);
    put(&st, out, ", ', group ', ");
    quote(&st, out, o->group);
    put(&st, out, ", '); ',\n"
                  "                   if(length(t) = 0, 'the consumer recorded no error (is the topic empty, or has the group read it all?)',\n"
                  "                      concat('the consumer''s last error, at ', toString(arrayMax(t)), ': ',\n"
                  "                             splitByChar('\\n', x[indexOf(t, arrayMax(t))])[1])),\n"
                  "                   '. Nothing was committed: check the brokers and system.kafka_consumers, then rerun')\n"
                  "     FROM (SELECT groupArrayArray(exceptions.time) AS t, groupArrayArray(exceptions.text) AS x\n"
                  "           FROM system.kafka_consumers WHERE database = ");
    quote(&st, out, S);
    put(&st, out, " AND table = 'orders_kafka')))\nFORMAT Null;\n");
    return st;
}
