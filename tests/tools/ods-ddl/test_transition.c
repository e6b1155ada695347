/* test_transition: unit tests of ods-ddl's modules transition (the 12 statements, abandon, take-back, move-late)
 * and stage (files, Kafka): every statement's shape in every mode; the engine: transition*.bats. */
#include "ddl_text.h"
#include "profile.h"
#include "schema.h"
#include "stage.h"
#include "transition.h"

#define NSTMT DDL_TRANSITION_STATEMENTS
#define MAXSTMT 16

/* what the checks, the seal and the commit set: one snapshot, groups spilled past 256 MiB */
/* the two sums that fingerprint rows by (coordinates, _raw_hash) */
#define FP_SUMS "sum(cityHash64(_topic, _partition, _offset, _raw_hash)), sum(xxHash64(_topic, _partition, _offset, _raw_hash))"
#define FP_SUMS_AS "sum(cityHash64(_topic, _partition, _offset, _raw_hash)) AS fp1, sum(xxHash64(_topic, _partition, _offset, _raw_hash)) AS fp2"
#define NO_JIT_SET "compile_expressions = 0, compile_aggregate_expressions = 0, compile_sort_description = 0"
#define READ_SET "SETTINGS enable_shared_storage_snapshot_in_query = 1, optimize_aggregation_in_order = 1, max_bytes_before_external_group_by = 268435456, " NO_JIT_SET

/* Splits a generated procedure into its n statements: st[k] (k = 1..n) is the text after the
 * "-- k. " comment line, up to and including its last ';' (malloc-ed; the gate's statement holds
 * several queries). Checks that the statements follow each other with one blank line between
 * them and nothing after the last. */
static int split_stmts(const char *s, int n, char *st[MAXSTMT + 1])
{
    int ok = 1;
    st[0] = NULL;
    const char *p = s;
    for (int k = 1; k <= n; k++) {
        char mark[16], next[24];
        snprintf(mark, sizeof mark, "-- %d. ", k);
        snprintf(next, sizeof next, ";\n\n-- %d. ", k + 1);
        const char *m = p ? strstr(p, mark) : NULL;
        /* the first comes after the header comment; each other right after the one before */
        if (m && k > 1 && m != p + 1)
            m = NULL;
        const char *b = m ? strchr(m, '\n') : NULL;
        const char *e = NULL;
        if (b && k < n)
            e = strstr(b + 1, next);
        else if (b && strlen(b) >= 3 && !strcmp(b + strlen(b) - 2, ";\n"))
            e = b + strlen(b) - 2;
        st[k] = e && e > b ? strndup(b + 1, (size_t)(e + 1 - (b + 1))) : NULL;
        if (!st[k])
            ok = 0;
        p = st[k] ? e + 2 : NULL; /* the blank line before the next comment */
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

/* How messages show the load id, and what a check after statement 2 adds (the run keeps the
 * lease), as the generator writes them inside SQL. */
#define LOAD_TEXT "replaceRegexpAll({load_id:String}, '[^ -~]', '?')"
#define KEPT ". This run keeps the lease: once it has stopped, clear it (DROP TABLE IF EXISTS ods.order_lease) first"

/* Statement 1's lease check of procedure NAME (k/n): the lease is taken when the table
 * order_lease exists (system.tables), whatever it holds; the message names the holder from
 * order_lease_v, or nobody when the table is empty (a run killed while taking it). */
static int has_lease_free(const char *st1, const char *name, int n)
{
    char want[1024];
    snprintf(want, sizeof want,
             "\n    (SELECT if(count() = 0, '', concat('%s 1/%d: the lease is held by ',\n"
             "        (SELECT if(count() = 0, 'nobody: its table is empty, a run was killed while taking it', "
             "concat('load ', any(_load_id), ' since ', toString(any(since)), ' UTC')) FROM ods.order_lease_v),\n"
             "        ': another transition is running, or one died. Nothing was done. When none is running, clear it "
             "with: DROP TABLE IF EXISTS ods.order_lease; then rerun'))\n"
             "     FROM system.tables WHERE database = 'ods' AND name = 'order_lease'),\n    ",
             name, n);
    return st1 && count(st1, want) == 1;
}

/* Only statement `last` drops the lease (outside the messages, which name the remedy), and
 * only if it exists: a run killed between 11 and 12 is finished by a rerun. */
static void check_lease_drop(char *st[MAXSTMT + 1], int last)
{
    CHECK_EQ_STR(st[last], "DROP TABLE IF EXISTS ods.order_lease;");
    for (int k = 1; k <= last; k++) {
        char *bare = st[k] ? strip_literals(st[k]) : NULL;
        CHECK_EQ_INT(count(bare, "DROP TABLE"), k == last);
        free(bare);
    }
}

/* replace_all, consuming s */
static char *replace_every(char *s, const char *from, const char *to)
{
    char *r = replace_all(s, from, to);
    free(s);
    return r;
}

/* The cluster's lease (ddl.h: a KeeperMap row, one holder cluster-wide) in a procedure of nst
 * statements, checked: the second statement inserts the row with keeper_map_strict_mode = 1,
 * the last deletes this load's row, the first finds it through the view, and every message
 * says TRUNCATE TABLE ods.order_lease_keeper to clear it; the one-node lease's texts nowhere.
 * Then written back as the one-node lease, so that a test compares the rest of the text once
 * for both. */
static char *cluster_lease_as_one_node(char *s)
{
    static const char take[] = "INSERT INTO ods.order_lease_keeper SETTINGS keeper_map_strict_mode = 1\n"
                               "SELECT 'lease', {load_id:String}, now64(3, 'UTC');";
    static const char drop[] = "DELETE FROM ods.order_lease_keeper WHERE name = 'lease' AND _load_id = {load_id:String};";
    static const char free1[] = "then rerun'))\n     FROM ods.order_lease_v)";
    CHECK_EQ_INT(count(s, take), 1);
    CHECK_EQ_INT(count(s, drop), 1);
    CHECK_EQ_INT(count(s, free1), 1);
    CHECK_EQ_INT(count(s, "clear it with: TRUNCATE TABLE ods.order_lease_keeper; then rerun"), 1);
    CHECK(count(s, "clear it (TRUNCATE TABLE ods.order_lease_keeper) first") > 0);
    CHECK_EQ_INT(count(s, "TRUNCATE"), count(s, "clear it (TRUNCATE TABLE ods.order_lease_keeper) first") + 1);
    CHECK_EQ_INT(count(s, "DROP TABLE"), 0);
    CHECK_EQ_INT(count(s, "system.tables"), 0);
    CHECK_EQ_INT(count(s, "ods.order_lease "), 0);
    CHECK_EQ_INT(count(s, "ods.order_lease;"), 0);
    CHECK_EQ_INT(count(s, ", on every node of the cluster\n"), 1);
    s = replace_every(s, take, "CREATE TABLE ods.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                               "now64(3, 'UTC') AS since;");
    s = replace_every(s, drop, "DROP TABLE IF EXISTS ods.order_lease;");
    s = replace_every(s, free1, "then rerun'))\n     FROM system.tables WHERE database = 'ods' AND name = 'order_lease')");
    s = replace_every(s, "TRUNCATE TABLE ods.order_lease_keeper", "DROP TABLE IF EXISTS ods.order_lease");
    return replace_every(s, ", on every node of the cluster\n", "\n");
}

/* gen, with a cluster's lease checked and written back as the one-node lease */
static char *gen_lease(gen_fn fn, const ddl_opts *o)
{
    char *s = gen(fn, o);
    return s && o->cluster ? cluster_lease_as_one_node(s) : s;
}

/* A transition's mode, as the tests below generate it. */
typedef struct {
    int cluster, every, sql, allow_empty;
} mode;

static char *gen_transition(mode m)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = m.cluster ? "c1" : NULL, .store_every = m.every,
                  .typing_sql = m.sql, .allow_empty = m.allow_empty};
    return gen_lease(ddl_transition, &o);
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

/* --typing udf: _hashdiff is the manifest's (the freeze's order_wire_parse gave it), no second
 * UDF; then the load and coordinate columns. */
static void check_hashdiff_udf(const char *p, const char *ind)
{
    char want[512];
    snprintf(want, sizeof want, "%s_hashdiff AS _hashdiff,\n%s_load_id,\n%s_load_ts,\n%s_topic,\n%s_partition,\n%s_offset\n",
             ind, ind, ind, ind, ind, ind);
    CHECK(p && strncmp(p, want, strlen(want)) == 0);
}

/* --typing sql: _hashdiff over the canonical texts of the ten state fields, snapshot_date left
 * out; then the load and coordinate columns. */
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

/* The commit's figures of one table into want. A table of about a row a message (all non-NULL:
 * the fates, the hot rows): "(SELECT count() AS n, n - (…) AS u<all> FROM … the load) AS ALIAS",
 * the rows and the figures (<all>) counted as they come, the distinct keys n less what keys held
 * more than once add, found by grouping only the rows whose key's hash recurs in the load; a set
 * over a table of the cluster GLOBAL. all NULL: "(SELECT sum(_c) AS n, count() AS u<outer> FROM
 * (…)) AS ALIAS", every row grouped by the key (<group>). */
static void key_counts(char *want, size_t cap, const char *alias, const char *table, const char *key, const char *outer,
                       const char *all, const char *group)
{
    const char *g = strstr(table, "_dist") ? "GLOBAL " : "";
    if (!all) { /* a table of few rows of a load (the errors, the stale records): grouped whole */
        snprintf(want, cap, "(SELECT sum(_c) AS n, count() AS u%s FROM (SELECT count() AS _c%s\n                 FROM ods.%s "
                 "WHERE _load_id = {load_id:String} GROUP BY %s)) AS %s", outer, group, table, key, alias);
        return;
    }
    snprintf(want, cap,
             "(SELECT count() AS n, n - (SELECT sum(_c) - count() FROM (SELECT count() AS _c FROM ods.%s WHERE _load_id = "
             "{load_id:String} AND cityHash64(%s) %sIN (SELECT _k FROM (SELECT cityHash64(%s) AS _k FROM ods.%s WHERE "
             "_load_id = {load_id:String} GROUP BY _k HAVING count() > 1)) GROUP BY %s)) AS u%s\n                 FROM ods.%s "
             "WHERE _load_id = {load_id:String}) AS %s",
             table, key, g, key, table, key, all, table, alias);
}

/* One INSERT of the gate (statement 9), piece k of np, in both modes: every accepted message of
 * the piece's buckets into order_gate with its fate (stored, stale or unchanged; with --store
 * every stored for the first receipt of a version and content, else unchanged, and no prior) and
 * a flag per target, false for what an earlier run already wrote there (the load's own hot rows;
 * its stale records; its fates: each a set, read for the piece's buckets only); only rows with
 * something to write, one per message. */
static void check_gate_piece(const char *pc, mode m, int k, int np, unsigned size)
{
    const char *g = m.cluster ? "GLOBAL " : "";
    const char *bucket = " AND cityHash64(order_id) % 256 >= _lo AND cityHash64(order_id) % 256 < _hi";
    const char *mbucket = " AND _bucket >= _lo AND _bucket < _hi";
    char guard[256], want[4096];
    snprintf(guard, sizeof guard, "{load_id:String} %sNOT IN (SELECT _load_id FROM ods.%s)", g,
             m.cluster ? "order_loads_dist" : "order_loads");
    size_t n = (size_t)snprintf(want, sizeof want,
        "INSERT INTO ods.order_gate (%s, _topic, _partition, _offset, _fate, _put_hot, _put_stale, _put_fate)\n"
        "SETTINGS %senable_shared_storage_snapshot_in_query = 1, join_use_nulls = 0, max_insert_threads = 4, min_insert_block_size_rows = 262144, " NO_JIT_SET "\n"
        "WITH (SELECT greatest(1, least(%d, intDiv(max(messages) + %u, %u))) FROM ods.order_frozen WHERE _load_id = "
        "{load_id:String}) AS _pieces,\n"
        "     intDiv(256 * %d + _pieces - 1, _pieces) AS _lo, intDiv(256 * %d + _pieces - 1, _pieces) AS _hi\n"
        "SELECT %s, _topic, _partition, _offset, _fate,\n"
        "    _fate = 'stored' AND (order_id, updated_at, _hashdiff) %sNOT IN (SELECT order_id, updated_at, _hashdiff FROM "
        "ods.%s WHERE _load_id = {load_id:String}%s AND %s) AS _put_hot,\n",
        store_cols(), m.cluster ? "distributed_foreground_insert = 1, " : "", np, size - 1, size, k, k + 1, store_cols(),
        g, m.cluster ? "order_snapshot_hot_dist" : "order_snapshot_hot", bucket, guard);
    if (m.every)
        n += (size_t)snprintf(want + n, sizeof want - n, "    0 AS _put_stale,\n");
    else
        n += (size_t)snprintf(want + n, sizeof want - n,
            "    _fate = 'stale' AND (_topic, _partition, _offset) %sNOT IN (SELECT _topic, _partition, _offset FROM "
            "ods.%s WHERE _load_id = {load_id:String}%s) AS _put_stale,\n",
            g, m.cluster ? "order_snapshot_stale_dist" : "order_snapshot_stale", bucket);
    /* the fates are this node's, like the manifest: never GLOBAL, never _dist */
    n += (size_t)snprintf(want + n, sizeof want - n,
        "    (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset FROM ods.order_fates WHERE "
        "_load_id = {load_id:String}\n        AND cityHash64(_topic, _partition, _offset) IN (SELECT cityHash64(_topic, "
        "_partition, _offset) FROM ods.order_manifest WHERE _load_id = {load_id:String}%s)) AS _put_fate\nFROM\n(\n"
        "    SELECT *,\n", mbucket);
    if (m.every)
        n += (size_t)snprintf(want + n, sizeof want - n, "        if(_receipt = 1, 'stored', 'unchanged') AS _fate\n");
    else
        n += (size_t)snprintf(want + n, sizeof want - n,
            "        multiIf(_receipt = 1 AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND _hashdiff != "
            "_prior_hashdiff)), 'stored',\n"
            "                _has_prior AND updated_at < _prior_updated_at, 'stale',\n"
            "                'unchanged') AS _fate\n");
    /* the first receipt: a message is a later one only if its key's hash recurs in the piece and
     * the window over those messages, by exact key, ranks it after another */
    snprintf(want + n, sizeof want - n,
        "    FROM\n    (\n        SELECT *,\n"
        "            if((_topic, _partition, _offset) IN (SELECT _topic, _partition, _offset FROM (SELECT _topic, "
        "_partition, _offset,\n"
        "                row_number() OVER (PARTITION BY order_id, updated_at%s ORDER BY _load_ts, _topic, _partition, "
        "_offset) AS _r\n                FROM (\n                    SELECT\n",
        m.every ? ", _hashdiff" : "");
    CHECK(starts(pc, want));
    snprintf(want, sizeof want, "\n                    FROM ods.order_manifest\n"
             "                    WHERE _load_id = {load_id:String} AND NOT (error_class != '')%s\n                )", mbucket);
    CHECK_EQ_INT(count(pc, want), 2);
    CHECK_EQ_INT(count(pc, "                )\n                WHERE cityHash64(order_id, updated_at) IN (SELECT "
                           "cityHash64(order_id, updated_at) AS _h FROM (\n                    SELECT\n"), 1);
    CHECK_EQ_INT(count(pc, "                ) GROUP BY _h HAVING count() > 1))\n            WHERE _r > 1), 2, 1) AS "
                           "_receipt\n        FROM\n        (\n            SELECT\n"), 1);
    /* the source: the load's accepted messages of the piece, under the ledger guard and the checks */
    snprintf(want, sizeof want, "\n            FROM ods.order_manifest\n"
             "            WHERE _load_id = {load_id:String} AND NOT (error_class != '')%s\n              AND %s\n"
             "              AND (WITH (SELECT ", mbucket, guard);
    CHECK_EQ_INT(count(pc, want), 1);
    /* store changes: the prior, what order_v shows for the piece's own orders */
    snprintf(want, sizeof want, "        )\n    ) AS l\n    LEFT JOIN\n    (\n        SELECT order_id, 1 AS _has_prior, "
             "updated_at AS _prior_updated_at, _hashdiff AS _prior_hashdiff\n        FROM ods.order_v\n"
             "        WHERE order_id %sIN (SELECT ", g);
    CHECK_EQ_INT(count(pc, want), !m.every);
    snprintf(want, sizeof want, " FROM ods.order_manifest WHERE _load_id = {load_id:String} AND NOT (error_class != '')"
             "%s AND %s)\n          AND %s\n    ) AS o USING (order_id)\n)\nWHERE _put_hot OR _put_stale OR _put_fate;",
             mbucket, guard, guard);
    CHECK_EQ_INT(count(pc, want), !m.every);
    CHECK_EQ_INT(count(pc, "_has_prior"), m.every ? 0 : 3);
    /* --store every: no prior, no join at all */
    CHECK(ends(pc, m.every ? "        )\n    ) AS l\n)\nWHERE _put_hot OR _put_stale OR _put_fate;"
                           : "    ) AS o USING (order_id)\n)\nWHERE _put_hot OR _put_stale OR _put_fate;"));
    CHECK_EQ_INT(count(pc, "JOIN"), !m.every);
    CHECK_EQ_INT(count(pc, "_mine"), 0);
    /* every read of a table of the load is of the piece's buckets: the manifest, the hot table,
     * the stale records (the fates through the manifest's coordinates) */
    CHECK_EQ_INT(count(pc, "FROM ods.order_manifest"), m.every ? 4 : 5);
    CHECK_EQ_INT(count(pc, mbucket), m.every ? 4 : 5);
    CHECK_EQ_INT(count(pc, bucket), m.every ? 1 : 2);
}

/* A piece checker: INSERT k of np, of about size rows each, in mode m. */
typedef void piece_check(const char *pc, mode m, int k, int np, unsigned size);

/* A statement cut in pieces (the freeze, the gate): np INSERTs, each checked by check, every one
 * after the first behind a comment line saying when it holds something (more than k x size
 * ROWS). */
static void check_pieces(const char *st, mode m, int np, unsigned size, const char *rows, piece_check *check)
{
    CHECK_EQ_INT(count(st, "INSERT INTO "), np);
    CHECK(starts(st, "INSERT INTO "));
    const char *p = st;
    for (int k = 0; k < np && p; k++) {
        char head[160];
        const char *e = NULL;
        if (k + 1 < np) {
            snprintf(head, sizeof head, ";\n-- piece %d (empty unless the load holds more than %d x %u %s)\n",
                     k + 2, k + 1, size, rows);
            e = strstr(p, head);
            CHECK(e != NULL);
        } else {
            e = p + strlen(p) - 1;
        }
        char *pc = e ? strndup(p, (size_t)(e + 1 - p)) : NULL;
        if (pc)
            check(pc, m, k, np, size);
        free(pc);
        p = e && k + 1 < np ? e + strlen(head) : NULL;
    }
}

/* The gate (statement 9): its pieces, ranges of _bucket. */
static void check_gate(const char *st9, mode m, int np, unsigned size)
{
    check_pieces(st9, m, np, size, "messages", check_gate_piece);
}

/* " AND <piece k of np of the freeze>", as the freeze bounds both staging and the manifest: the
 * coordinates compared key by key, so that staging's primary key index reads the bounds */
static void freeze_cond(char *out, size_t cap, int k, int np)
{
    int n = snprintf(out, cap, " AND %d < _pieces", k);
    if (k > 0)
        n += snprintf(out + n, cap - (size_t)n,
                      "\n         AND (_from IS NULL OR _topic > assumeNotNull(_from).1 OR (_topic = assumeNotNull(_from).1 "
                      "AND (_partition > assumeNotNull(_from).2 OR (_partition = assumeNotNull(_from).2 AND _offset >= "
                      "assumeNotNull(_from).3))))");
    if (k + 1 < np)
        snprintf(out + n, cap - (size_t)n,
                 "\n         AND (%d >= _pieces OR (_to IS NULL OR _topic < assumeNotNull(_to).1 OR (_topic = "
                 "assumeNotNull(_to).1 AND (_partition < assumeNotNull(_to).2 OR (_partition = assumeNotNull(_to).2 AND "
                 "_offset < assumeNotNull(_to).3)))))",
                 k + 1);
}

/* One INSERT of the freeze (statement 4), piece k of np: the staged rows of its range of
 * coordinates, less the manifest's coordinates in the same range; its bounds are the staged
 * coordinates at k/np and (k+1)/np of the load, read in staging's order. */
static void check_freeze_piece(const char *pc, mode m, int k, int np, unsigned size)
{
    char want[8192], cond[1024], pieces[160];
    CHECK(starts(pc, "INSERT INTO ods.order_manifest (_load_id, "));
    /* written as read: blocks of a quarter of a piece, more than one writer */
    CHECK(strstr(pc, ", _bucket)\nSETTINGS enable_shared_storage_snapshot_in_query = 1, max_insert_threads = 4, min_insert_block_size_rows = 262144\nWITH (SELECT "));
    snprintf(pieces, sizeof pieces, "greatest(1, least(%d, intDiv(count() + %u, %u)))", np, size - 1, size);
    snprintf(want, sizeof want, "\nWITH (SELECT %s FROM stg.orders_raw WHERE _load_id = {load_id:String}) AS _pieces", pieces);
    CHECK(strstr(pc, want) != NULL);
    for (int b = k; b <= k + 1; b++) {
        snprintf(want, sizeof want,
                 ",\n     (SELECT (_topic, _partition, _offset) FROM stg.orders_raw WHERE _load_id = {load_id:String} AND "
                 "%d < (SELECT %s FROM stg.orders_raw WHERE _load_id = {load_id:String})\n         ORDER BY _topic, "
                 "_partition, _offset LIMIT 1 OFFSET (SELECT intDiv(count() * %d, %s) FROM stg.orders_raw WHERE "
                 "_load_id = {load_id:String})) AS %s",
                 b, pieces, b, pieces, b == k ? "_from" : "_to");
        CHECK_EQ_INT(count(pc, want), b == k ? k > 0 : k + 1 < np);
    }
    freeze_cond(cond, sizeof cond, k, np);
    /* two reads of the piece's rows: the coordinates staged once, as read; those staged more
     * than once (their hash recurs in the piece), sorted so that the first received is kept */
    const char *recur = "\n     WHERE _load_id = {load_id:String}%s AND cityHash64(_topic, _partition, _offset) %sIN (SELECT _k "
                        "FROM (SELECT cityHash64(_topic, _partition, _offset) AS _k FROM stg.orders_raw WHERE _load_id = "
                        "{load_id:String}%s GROUP BY _k HAVING count() > 1))\n%s";
    snprintf(want, sizeof want, recur, cond, "NOT ", cond,
             "     UNION ALL SELECT * FROM (SELECT raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts, "
             "_raw_hash FROM stg.orders_raw");
    CHECK_EQ_INT(count(pc, want), 1);
    snprintf(want, sizeof want, recur, cond, "", cond,
             "     ORDER BY _topic, _partition, _offset, _load_ts\n     LIMIT 1 BY _topic, _partition, _offset))\n    WHERE ");
    CHECK_EQ_INT(count(pc, want), 1);
    CHECK_EQ_INT(count(pc, "ORDER BY _topic, _partition, _offset, _load_ts"), 1);
    /* then, over both, once: neither sealed nor committed, the lease this run's, and what is
     * not in the manifest yet (a freeze cut short) */
    snprintf(want, sizeof want, "))\n    WHERE {load_id:String} NOT IN (SELECT _load_id FROM ods.order_frozen) AND "
             "{load_id:String} %sNOT IN (SELECT _load_id FROM ods.%s)\n      AND (WITH (SELECT ",
             m.cluster ? "GLOBAL " : "", m.cluster ? "order_loads_dist" : "order_loads");
    CHECK_EQ_INT(count(pc, want), 1);
    snprintf(want, sizeof want, "\n      AND (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset FROM "
             "ods.order_manifest WHERE _load_id = {load_id:String}%s));", cond);
    CHECK(ends(pc, want));
    CHECK_EQ_INT(count(pc, cond), 5);
    /* the count for _pieces, three reads for each bound, the rows twice, the recurring hashes twice */
    CHECK_EQ_INT(count(pc, "stg.orders_raw"), 5 + 3 * ((k > 0) + (k + 1 < np)));
}

/* The freeze (statement 4): its pieces, ranges of staged coordinates (the same in every mode but
 * the ledger's name with --cluster). */
static void check_freeze(const char *st4, mode m, int np, unsigned size)
{
    check_pieces(st4, m, np, size, "staged rows", check_freeze_piece);
}

/* What every transition holds, in any mode: the statements in order, each doing what its
 * heading says; the lease checked where it must be; the ledger guard on every writing
 * statement; the messages; the sources; time. */
static void check_common(const char *s, char *st[MAXSTMT + 1], mode m)
{
    const char *loads = m.cluster ? "order_loads_dist" : "order_loads";
    const char *g = m.cluster ? "GLOBAL " : "";
    char guard[256], want[16384];
    snprintf(guard, sizeof guard, "{load_id:String} %sNOT IN (SELECT _load_id FROM ods.%s)", g, loads);

    CHECK(starts(s, "-- ods-ddl transition, wire contract " WIRE_CONTRACT_VERSION ", store "));
    CHECK(strstr(s, ": run the 12 statements in order, with --param_load_id=ID.\n") != NULL);

    /* 1, 3, 11: checks only, printing nothing */
    /* (1 and 3, the staging checks, group the coordinates in staging's order, and spill the
     * late rows' groups) */
    for (int k = 1; k <= NSTMT; k++) {
        int check_only = k == 1 || k == 3 || k == 11;
        const char *end = k == 11 ? ") AS _p\nSELECT throwIf(ifNull(_p, '') != '', _p)\nFORMAT Null;"
                                  : ") AS _p\nSELECT throwIf(ifNull(_p, '') != '', _p)\n"
                                    READ_SET "\nFORMAT Null;";
        CHECK_EQ_INT(starts(st[k], "WITH (SELECT ") && ends(st[k], end), check_only);
    }
    /* 2 and 12: the lease, a table on this node; its columns are the lease view's */
    CHECK_EQ_STR(st[2], "CREATE TABLE ods.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                        "now64(3, 'UTC') AS since;");
    check_lease_drop(st, 12);
    CHECK(starts(st[4], "INSERT INTO ods.order_manifest (_load_id, _topic, _partition, _offset, _timestamp, _key, "
                        "_load_ts, _raw_hash, error_class, raw"));
    CHECK(starts(st[5], "INSERT INTO ods.order_frozen (_load_id, frozen_at, staged, messages, staged_fp1, staged_fp2)\n"
                        "SELECT {load_id:String}, now64(3, 'UTC'), s.n, m.n, s.fp1, s.fp2\n"));
    snprintf(want, sizeof want, "ALTER TABLE ods.order_snapshot_hot%s DELETE WHERE %s\n", m.cluster ? " ON CLUSTER c1" : "",
             guard);
    CHECK(starts(st[6], want));
    CHECK(ends(st[6], m.cluster ? "\nSETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;"
                                : "\nSETTINGS mutations_sync = 2;"));
    snprintf(want, sizeof want, "INSERT INTO ods.%s (%s)\nSETTINGS ", m.cluster ? "order_snapshot_dist" : "order_snapshot_rep",
             store_cols());
    CHECK(starts(st[7], want));
    snprintf(want, sizeof want, "INSERT INTO ods.%s (raw, error_class, _topic, _partition, _offset, _timestamp, _key, "
             "_load_id, _load_ts)\nSETTINGS %s" NO_JIT_SET "\nSELECT raw, error_class, ",
             m.cluster ? "order_snapshot_errors_dist" : "order_snapshot_errors",
             m.cluster ? "distributed_foreground_insert = 1, " : "");
    CHECK(starts(st[8], want));
    CHECK(starts(st[9], "INSERT INTO ods.order_gate (")); /* both modes: the gate */
    CHECK_EQ_INT(count(st[9], "INSERT INTO "), DDL_GATE_PIECES);
    /* the ledger row is written on this node (read everywhere through order_loads_dist) */
    size_t n = (size_t)snprintf(want, sizeof want, "INSERT INTO ods.order_loads (delta, _load_id, committed_at, received, "
                                                   "redelivered, accepted, stored, unchanged, stale, rejected");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", %s", WIRE_REJECT_CLASSES[i]);
    snprintf(want + n, sizeof want - n, ", wire_contract, hashdiff_profile)\nSELECT (SELECT max(delta) FROM ods.%s) + 1, "
             "{load_id:String}, now64(3, 'UTC'),\n", loads);
    CHECK(starts(st[10], want));
    for (int k = 1; k <= NSTMT; k++)
        if (k != 9 && k != 4) /* their pieces: check_gate, check_freeze */
            CHECK_EQ_INT(count(st[k], "INSERT INTO "), k == 5 || (k >= 7 && k <= 10));

    /* The lease: statement 1 finds it free, its table absent (or names its holder, or nobody,
     * and how to clear it); every statement from 3 to 11 but the housekeeping (it needs none,
     * and runs on every shard) checks that this run still holds it. */
    CHECK(has_lease_free(st[1], "transition", NSTMT));
    CHECK_EQ_INT(count(s, "system.tables"), 1);
    CHECK(strstr(st[1], "if(NOT match({load_id:String}, '^[A-Za-z0-9][A-Za-z0-9._:+/-]{0,127}$'),\n") != NULL);
    for (int k = 1; k <= NSTMT; k++) {
        int lease = k >= 3 && k <= 11 && k != 6;
        if (k == 9 || k == 4) /* each INSERT of the gate and of the freeze checks it */
            lease = DDL_GATE_PIECES;
        CHECK_EQ_INT(count(st[k], "does not hold the lease"), lease);
        CHECK_EQ_INT(count(st[k], "(SELECT count() FROM ods.order_lease_v WHERE _load_id = {load_id:String}) = 1"), lease);
    }
    CHECK_EQ_INT(count(s, "CREATE TABLE ods.order_lease "), 1);

    /* The ledger guard ("this load is not committed") on every writing statement, as a
     * condition of what it writes, before (outside) the checks: a committed load's rerun
     * writes nothing. The gate's prior, its order_id set and its own-hot-rows side carry it
     * too (regression: a committed load's rerun read its whole prior). */
    static const int guards[NSTMT + 1] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 5, 2, 0, 0};
    for (int k = 1; k <= NSTMT; k++) {
        int want_n = k == 9 && m.every ? 3 : guards[k]; /* no prior in every mode */
        if (k == 9 || k == 4) /* in each INSERT of the gate and of the freeze */
            want_n *= DDL_GATE_PIECES;
        if (count(st[k], guard) != want_n)
            fprintf(stderr, "statement %d: %d ledger guards, want %d\n", k, count(st[k], guard), want_n);
        CHECK_EQ_INT(count(st[k], guard), want_n);
        const char *w = strstr(st[k], "(WITH (SELECT ");
        const char *gd = strstr(st[k], guard);
        if (k >= 4 && k <= 10 && k != 6)
            CHECK(w && gd && gd < w);
    }
    snprintf(want, sizeof want, "\nWHERE %s\n  AND (WITH (SELECT ", guard);
    CHECK(strstr(st[7], want) != NULL);
    /* the commit writes only a sealed load's row */
    snprintf(want, sizeof want, "\nWHERE %s AND {load_id:String} IN (SELECT _load_id FROM ods.order_frozen)\n"
             "  AND (WITH (SELECT ", guard);
    CHECK_EQ_INT(count(st[10], want), 1);

    /* Messages: each names its statement, "transition K/12: " */
    static const int msgs[NSTMT + 1] = {0, -1, 0, -1, 1, -1, 0, 1, -1, -1, -1, 1, 0};
    for (int k = 1; k <= NSTMT; k++) /* the freeze's: one in each piece */
        check_messages(st[k], "transition", k, NSTMT, k == 4 ? DDL_GATE_PIECES : msgs[k]);

    /* 1 and 3 check the staging alike (3 again under the lease): the same SQL, each with its
     * own messages (which may say more in 3: the run keeps the lease) */
    const char *mark = "if(({load_id:String} IN (SELECT _load_id FROM ods.order_frozen) OR ";
    CHECK_EQ_INT(count(st[1], mark), 1);
    CHECK_EQ_INT(count(st[3], mark), 1);
    const char *c1 = strstr(st[1], mark), *c3 = strstr(st[3], mark);
    if (c1 && c3) {
        char *a = strip_literals(c1), *b = strip_literals(c3);
        CHECK(a && b && !strcmp(a, b));
        free(a);
        free(b);
        CHECK_EQ_INT(count(c1, "'transition 1/12: "), count(c3, "'transition 3/12: "));
        /* (the profile's check has two: the ODS records none, or another) */
        CHECK_EQ_INT(count(c1, "'transition 1/12: "), m.allow_empty ? 5 : 6);
        /* no rows staged (unless --allow-empty), coordinates with two messages, another load
         * frozen and not committed, rows staged after the freeze */
        CHECK_EQ_INT(count(c1, "no rows are staged under load "), !m.allow_empty);
        /* (grouped: only the coordinates whose hash recurs) */
        CHECK(strstr(c1, "FROM (SELECT _topic, _partition, _offset FROM stg.orders_raw WHERE _load_id = {load_id:String} "
                         "AND cityHash64(_topic, _partition, _offset) IN (SELECT _k FROM (SELECT cityHash64(_topic, "
                         "_partition, _offset) AS _k FROM stg.orders_raw WHERE _load_id = {load_id:String} GROUP BY _k "
                         "HAVING count() > 1))\n               GROUP BY _topic, _partition, _offset HAVING min(_raw_hash) "
                         "!= max(_raw_hash)\n") != NULL);
        CHECK(strstr(c1, "FROM ods.order_frozen WHERE _load_id != {load_id:String} AND _load_id ") != NULL);
        CHECK(strstr(c1, " rows were staged under load ") != NULL);
    }

    /* The predicate of the bad branch, once bare ending the errors INSERT; its literal negation
     * in the good one; elsewhere only the commit's counts */
    for (int k = 1; k <= NSTMT; k++) {
        int bare = count(st[k], "error_class != ''"), neg = count(st[k], "NOT (error_class != '')");
        int counted = count(st[k], "countIf(error_class != '')");
        CHECK_EQ_INT(bare - neg - counted, k == 8);
        /* the gate's: its source, the prior's order ids, and the two reads that find later receipts */
        CHECK_EQ_INT(neg, k == 9 ? (m.every ? 3 : 4) * DDL_GATE_PIECES : 0);
    }
    CHECK(ends(st[8], "\n  AND error_class != '';"));
    CHECK_EQ_INT(count(s, "WHERE _load_id = {load_id:String} AND NOT (error_class != '') AND _bucket >= _lo AND "
                          "_bucket < _hi\n"), 3 * DDL_GATE_PIECES);
    CHECK_EQ_INT(count(st[9], "WHERE _load_id = {load_id:String} AND NOT (error_class != '') AND _bucket >= _lo AND "
                              "_bucket < _hi\n"), 3 * DDL_GATE_PIECES);

    /* The sources: staging is read by the checks, the freeze and the seal; after the freeze
     * only the manifest (the commit reads staging only to count rows staged after the freeze) */
    static const int raw_reads[NSTMT + 1] = {0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0};
    for (int k = 1; k <= NSTMT; k++)
        CHECK_EQ_INT(count(st[k], "stg.orders_raw") > 0, raw_reads[k]);
    /* (the commit: the late rows' staged side, and staging's fingerprint compared with the
     * seal's, the filter on each of the late rows' two reads) */
    CHECK_EQ_INT(count(st[10], "stg.orders_raw"), 1 + 2);
    /* the rows staged after the freeze: staging and the manifest grouped by coordinates and
     * bytes, where a NOT IN would hold the load's set; in the seal read only when the
     * fingerprints of the staged messages and the manifest differ (one filter over both reads; a
     * message twice in the manifest changes them too), in the checks (1, 3) and the commit only
     * once the load is sealed or committed and staging's rows are not those its seal
     * fingerprinted (the seal's figures read by name from a tuple of its row, so that a schema
     * without them is still analysed and told to migrate); each of them sets the spill */
    char fz1[1024], frozen[2][4096], may[8192], late[2][24576];
    snprintf(fz1, sizeof fz1, "({load_id:String} IN (SELECT _load_id FROM ods.order_frozen) OR {load_id:String} "
                              "%sIN (SELECT _load_id FROM ods.%s))", m.cluster ? "GLOBAL " : "", loads);
    snprintf(frozen[0], sizeof frozen[0], "%s", "");
    snprintf(frozen[1], sizeof frozen[1], " AND %s AND (SELECT (count(), " FP_SUMS ") FROM stg.orders_raw WHERE _load_id = "
             "{load_id:String} AND %s)\n                != (SELECT (any(staged), any(tupleElement(tuple(*), 'staged_fp1', "
             "toUInt64(0))), any(tupleElement(tuple(*), 'staged_fp2', toUInt64(0)))) FROM ods.order_frozen WHERE _load_id "
             "= {load_id:String} SETTINGS enable_named_columns_in_function_tuple = 1)", fz1, fz1);
    /* (staging's side: the coordinates staged once as read, those whose hash recurs grouped) */
    {
        const char *fz = "";
        snprintf(may, sizeof may,
                 "(SELECT (count(), sum(cityHash64(_topic, _partition, _offset, _h)), sum(xxHash64(_topic, _partition, "
                 "_offset, _h)), countIf(_h != _h2))\n            FROM (SELECT _topic, _partition, _offset, _raw_hash AS _h, "
                 "_raw_hash AS _h2 FROM stg.orders_raw WHERE _load_id = {load_id:String}%.1023s AND cityHash64(_topic, _partition, "
                 "_offset) NOT IN (SELECT _k FROM (SELECT cityHash64(_topic, _partition, _offset) AS _k FROM stg.orders_raw "
                 "WHERE _load_id = {load_id:String}%.1023s GROUP BY _k HAVING count() > 1))\n            UNION ALL SELECT _topic, "
                 "_partition, _offset, min(_raw_hash), max(_raw_hash) FROM stg.orders_raw WHERE _load_id = {load_id:String}%.1023s "
                 "AND cityHash64(_topic, _partition, _offset) IN (SELECT _k FROM (SELECT cityHash64(_topic, _partition, "
                 "_offset) AS _k FROM stg.orders_raw WHERE _load_id = {load_id:String}%.1023s GROUP BY _k HAVING count() > 1)) "
                 "GROUP BY _topic, _partition, _offset))\n            != (SELECT (count(), " FP_SUMS ", toUInt64(0)) FROM "
                 "ods.order_manifest WHERE _load_id = {load_id:String}%.1023s)",
                 fz, fz, fz, fz, fz);
    }
    for (int f = 0; f < 2; f++) {
        const char *fz = frozen[f];
        char where[8220];
        snprintf(where, sizeof where, "\n            WHERE %.8191s", f == 0 ? may : "");
        snprintf(late[f], sizeof late[f],
                 "(SELECT sum(_n) FROM (SELECT count() AS _n FROM (SELECT _topic, _partition, _offset, _raw_hash, 1 AS _s "
                 "FROM stg.orders_raw WHERE _load_id = {load_id:String}%.4095s\n"
                 "            UNION ALL SELECT _topic, _partition, _offset, _raw_hash, 0 FROM ods.order_manifest WHERE "
                 "_load_id = {load_id:String}%.4095s)%.8219s\n"
                 "            GROUP BY _topic, _partition, _offset, _raw_hash HAVING min(_s) = 1))",
                 fz, fz, f == 0 ? where : "");
    }
    /* (the seal's always; the checks' and the commit's only when staging is not what the seal
     * fingerprinted: a first run's staging checks do not group its staged rows, nor fingerprint
     * them) */
    for (int k = 1; k <= NSTMT; k++) {
        CHECK_EQ_INT(count(st[k], late[0]), k == 5);
        CHECK_EQ_INT(count(st[k], late[1]), k == 1 || k == 3 || k == 10);
        CHECK_EQ_INT(count(st[k], may), k == 5 ? 2 : 0);
        CHECK_EQ_INT(count(st[k], "countIf(_h != _h2)"), k == 5 ? 2 : 0);
    }
    CHECK(strstr(st[10], "HAVING min(_s) = 1)) AS _late))") != NULL);
    CHECK(ends(st[5], "\n" READ_SET ";"));
    CHECK(ends(st[10], "\n" READ_SET ";"));
    CHECK_EQ_INT(count(s, "NOT IN (SELECT _topic, _partition, _offset, _raw_hash"), 0);
    CHECK_EQ_INT(count(s, "uniqExact"), 0);
    /* the seal: the manifest's messages each once, grouped */
    snprintf(late[0], sizeof late[0], "if((SELECT count() FROM (SELECT 1 FROM ods.order_manifest WHERE _load_id = "
             "{load_id:String} AND %s\n            GROUP BY _topic, _partition, _offset HAVING count() > 1)) > 0,\n", may);
    CHECK(strstr(st[5], late[0]) != NULL);
    CHECK(strstr(st[8], "\nFROM ods.order_manifest\nWHERE _load_id = {load_id:String}\n") != NULL);
    for (int k = 5; k <= NSTMT; k++) {
        CHECK(!strstr(st[k], "order_wire_")); /* classified once, in the freeze */
        if (!m.sql || k != 9)
            CHECK(!strstr(st[k], "JSON"));
    }
    for (int k = 1; k <= NSTMT; k++)
        if (k != 4)
            CHECK(!strstr(st[k], "order_wire_"));

    /* the freeze: each message once, the first received of its copies, in pieces; a freeze cut
     * short is completed by the rerun (coordinates already in the manifest skipped) */
    check_freeze(st[4], m, DDL_GATE_PIECES, DDL_PIECE_SIZE);

    /* the seal counts the staged rows and the manifest's messages, and fingerprints the staged
     * rows, copies included, as the commit does again (the sums of the manifest's side of the
     * late rows' fingerprint, over (coordinates, _raw_hash)) */
    CHECK(strstr(st[5], "FROM (SELECT count() AS n, " FP_SUMS_AS " FROM stg.orders_raw WHERE _load_id = {load_id:String}) "
                        "AS s,\n     (SELECT count() AS n FROM ods.order_manifest WHERE _load_id = {load_id:String}) AS m\n")
          != NULL);
    /* a schema whose seals keep no fingerprint stops at 1 (and 3), by name in system.columns:
     * only the seal and the commit name the columns */
    for (int k = 1; k <= NSTMT; k++) {
        snprintf(want, sizeof want, "if((SELECT count() FROM system.columns WHERE database = 'ods' AND table = 'order_frozen' "
                 "AND name IN ('staged_fp1', 'staged_fp2')) = 2, '',\n        concat('transition %d/12: the ODS''s seals "
                 "(ods.order_frozen) keep no fingerprint of what was staged (a schema from before this version): bring it to "
                 "this version with ods-ddl migrate first; nothing was done", k);
        CHECK_EQ_INT(count(st[k], want), k == 1 || k == 3);
        CHECK_EQ_INT(count(st[k], "staged_fp1") > 0, k == 1 || k == 3 || k == 5 || k == 10);
    }

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

    /* the gate, in both modes */
    check_gate(st[9], m, DDL_GATE_PIECES, DDL_PIECE_SIZE);

    /* the commit: its figures from the seal (staged rows, messages), the manifest and the fates
     * (stored, unchanged, stale); the same sources in the check, the fates grouped by
     * coordinates there (each once), with the errors table, the hot table and the stale
     * records, which must add up against them before it writes */
    CHECK_EQ_INT(WIRE_NREJECT, 3); /* m.c0..m.c2 below */
    char src[2048];
    n = (size_t)snprintf(src, sizeof src, "(SELECT count() AS n, countIf(error_class = '') AS acc, "
                                          "countIf(error_class != '') AS rej");
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, ", countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
    n += (size_t)snprintf(src + n, sizeof src - n,
             "\n               FROM ods.order_manifest WHERE _load_id = {load_id:String}) AS m,\n"
             "              (SELECT ifNull(any(staged), 0) AS staged, ifNull(any(messages), 0) AS messages FROM "
             "ods.order_frozen WHERE _load_id = {load_id:String}) AS f,\n");
    char fig[2048];
    snprintf(fig, sizeof fig, "%.*s              (SELECT countIf(fate = 'stored') AS st, countIf(fate = 'unchanged') AS un, "
             "countIf(fate = 'stale') AS sl FROM ods.order_fates WHERE _load_id = {load_id:String}) AS g", (int)n, src);
    n += (size_t)snprintf(src + n, sizeof src - n, "              ");
    key_counts(src + n, sizeof src - n, "g", "order_fates", "_topic, _partition, _offset", "",
               ", countIf(fate = 'stored') AS st, countIf(fate = 'unchanged') AS un, countIf(fate = 'stale') AS sl", "");
    CHECK_EQ_INT(count(st[10], src), 1);
    snprintf(want, sizeof want, "\n    f.staged, f.staged - f.messages, m.acc, g.st, g.un, g.sl, m.rej, m.c0, m.c1, m.c2, "
             "'" WIRE_CONTRACT_VERSION "', '%s'\nFROM %s\nWHERE %s AND ", ddl_hashdiff_profile(), fig, guard);
    CHECK_EQ_INT(count(st[10], want), 1);
    for (size_t i = 0; i < WIRE_NREJECT; i++) {
        snprintf(want, sizeof want, "countIf(error_class = '%s') AS c%zu", WIRE_REJECT_CLASSES[i], i);
        CHECK_EQ_INT(count(st[10], want), 2); /* the manifest's, for the figures and in the check */
        snprintf(want, sizeof want, "countIf(error_class = '%s') AS _c%zu", WIRE_REJECT_CLASSES[i], i);
        CHECK_EQ_INT(count(st[10], want), 1); /* the errors table's, by coordinates */
        snprintf(want, sizeof want, " OR e.c%zu != m.c%zu", i, i);
        CHECK_EQ_INT(count(st[10], want), 1);
    }
    /* the check's sources: after the figures', the errors table, the hot table (unique by
     * version; with --store every by version and content) and the stale records, each row
     * count and distinct keys from one GROUP BY of the table's key */
    char outer[256], group[512];
    size_t no = 0, ng = 0;
    for (size_t i = 0; i < WIRE_NREJECT; i++) {
        no += (size_t)snprintf(outer + no, sizeof outer - no, ", sum(_c%zu) AS c%zu", i, i);
        ng += (size_t)snprintf(group + ng, sizeof group - ng, ", countIf(error_class = '%s') AS _c%zu",
                               WIRE_REJECT_CLASSES[i], i);
    }
    n = (size_t)snprintf(want, sizeof want, "\n         FROM %s,\n              ", src);
    key_counts(want + n, sizeof want - n, "e", m.cluster ? "order_snapshot_errors_dist" : "order_snapshot_errors",
               "_topic, _partition, _offset", outer, NULL, group);
    n = strlen(want);
    n += (size_t)snprintf(want + n, sizeof want - n, ",\n              ");
    key_counts(want + n, sizeof want - n, "s", m.cluster ? "order_snapshot_hot_dist" : "order_snapshot_hot",
               m.every ? "order_id, updated_at, _hashdiff" : "order_id, updated_at", "", "", "");
    n = strlen(want);
    n += (size_t)snprintf(want + n, sizeof want - n, ",\n              ");
    key_counts(want + n, sizeof want - n, "x", m.cluster ? "order_snapshot_stale_dist" : "order_snapshot_stale",
               "_topic, _partition, _offset", "", NULL, "");
    n = strlen(want);
    snprintf(want + n, sizeof want - n, ")))]), '')) AS _p SELECT throwIf(ifNull(_p, '') != '', _p)) = 0\n"
             READ_SET ";");
    size_t l10 = st[10] ? strlen(st[10]) : 0, lw = strlen(want);
    CHECK_EQ_STR(st[10] && l10 >= lw ? st[10] + l10 - lw : "", want);
    /* the check: the rows staged after the freeze, for a committed load too (its rerun must not
     * pass over them); then, unless committed, the sums (more than due, a row twice, the
     * manifest against its seal: abandon and report) before what is missing (a statement cut
     * short or not run: run again) */
    CHECK(strstr(st[10], "'), '')]), ''),\n        (SELECT if(_late = 0, '', concat('transition 10/12: ") != NULL);
    n = (size_t)snprintf(want, sizeof want,
        "HAVING min(_s) = 1)) AS _late)),\n        if({load_id:String} %sIN (SELECT _load_id FROM ods.%s), '',\n"
        "        (SELECT multiIf(_sums != '', concat('transition 10/12: the ledger row of load ', " LOAD_TEXT ",\n"
        "            ' would not add up: ', _sums, 'nothing was committed. Abandon the load (ods-ddl abandon) and rerun it, "
        "and report this: a bug or a second writer" KEPT "'),\n"
        "            _todo != '', concat('transition 10/12: load ', " LOAD_TEXT ", ' is not complete: ', _todo, 'nothing was "
        "committed. Run the transition again from statement 1: it completes what is left" KEPT "'), '')\n"
        "         FROM (SELECT concat(\n"
        "            if(m.n != f.messages, concat('the manifest holds ', toString(m.n), ' messages, the seal ', "
        "toString(f.messages), '; '), ''),\n"
        "            if(f.staged < f.messages, concat('the seal counts ', toString(f.staged), ' staged rows for ', "
        "toString(f.messages), ' messages; '), ''),\n"
        "            if(e.n > m.rej OR e.u != e.n OR (e.n = m.rej AND (0", g, loads);
    for (size_t i = 0; i < WIRE_NREJECT; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, " OR e.c%zu != m.c%zu", i, i);
    snprintf(want + n, sizeof want - n,
        ")), concat('the errors table holds ', toString(e.n), ' rows of the load (', toString(e.u), ' distinct), the "
        "manifest ', toString(m.rej), ' rejected messages; '), ''),\n"
        "            if(g.n != g.u OR g.n > m.acc, concat('order_fates holds ', toString(g.n), ' fates (', toString(g.u), "
        "' distinct) for ', toString(m.acc), ' accepted messages; '), ''),\n"
        "            if(s.n != s.u OR (g.n >= m.acc AND s.n > g.st), concat('the hot table holds ', toString(s.n), "
        "' rows of the load (', toString(s.u), ' distinct) for ', toString(g.st), ' stored; '), ''),\n"
        "            if(x.n != x.u OR (g.n >= m.acc AND x.n > g.sl), concat('order_snapshot_stale holds ', toString(x.n), "
        "' records of the load (', toString(x.u), ' distinct) for ', toString(g.sl), ' stale; '), '')) AS _sums,\n"
        "            concat(\n"
        "            if(e.n < m.rej, concat('the errors table holds ', toString(e.n), ' of its ', toString(m.rej), ' rejected "
        "messages (statement 8 cut short or not run); '), ''),\n"
        "            if(g.n < m.acc, concat(toString(g.n), ' of its ', toString(m.acc), ' accepted messages have a fate "
        "(statement 9 cut short or not run); '), ''),\n"
        "            if(s.n < g.st, concat('the hot table holds ', toString(s.n), ' of its ', toString(g.st), ' stored versions "
        "(statement 9 cut short); '), ''),\n"
        "            if(x.n < g.sl, concat('order_snapshot_stale holds ', toString(x.n), ' of its ', toString(g.sl), ' stale "
        "records (statement 9 cut short); '), '')) AS _todo\n"
        "         FROM (SELECT count() AS n, ");
    CHECK_EQ_INT(count(st[10], want), 1);
    CHECK_EQ_INT(count(st[10], " rows were staged under load "), 1);

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

/* --gate-pieces and --piece-size: the gate is that many INSERTs, cut by that many messages, and
 * the freeze that many, cut by that many staged rows; nothing else changes. */
static void test_transition_gate_options(void)
{
    for (int every = 0; every <= 1; every++) {
        mode m = {.every = every};
        ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .store_every = every, .gate_pieces = 3, .piece_size = 7};
        char *s = gen_lease(ddl_transition, &o), *d = gen_transition(m), *st[MAXSTMT + 1], *sd[MAXSTMT + 1];
        if (!s || !d || !split_stmts(s, NSTMT, st) || !split_stmts(d, NSTMT, sd)) {
            CHECK(0);
            free(s);
            free(d);
            return;
        }
        check_gate(st[9], m, 3, 7);
        check_freeze(st[4], m, 3, 7);
        CHECK(strstr(s, "; in up to 3 pieces of about 7 messages (ranges of _bucket)") != NULL);
        CHECK(strstr(s, "; in up to 3 pieces of about 7 staged rows (ranges of their coordinates)") != NULL);
        for (int k = 1; k <= NSTMT; k++)
            if (k != 9 && k != 4)
                CHECK_EQ_STR(st[k], sd[k]);
        /* the first piece of the default is the same INSERT but for its figures */
        char *a = strndup(st[9], strcspn(st[9], ";")), *b = strndup(sd[9], strcspn(sd[9], ";"));
        char want[256];
        snprintf(want, sizeof want, "least(%d, intDiv(max(messages) + %u, %u))", DDL_GATE_PIECES, DDL_PIECE_SIZE - 1,
                 DDL_PIECE_SIZE);
        char *x = a ? strstr(a, "least(3, intDiv(max(messages) + 6, 7))") : NULL, *y = b ? strstr(b, want) : NULL;
        CHECK(x && y && x - a == y - b);
        CHECK(x && y && !strcmp(x + strlen("least(3, intDiv(max(messages) + 6, 7))"), y + strlen(want)));
        free(a);
        free(b);
        free_stmts(st, NSTMT);
        free_stmts(sd, NSTMT);
        free(s);
        free(d);
    }
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
    CHECK_EQ_INT(count(s, "order_wire_parse(raw)"), DDL_GATE_PIECES); /* once in each piece */
    CHECK_EQ_INT(count(st[4], "FROM (SELECT *, order_wire_parse(raw) AS _w FROM\n"), DDL_GATE_PIECES);
    CHECK_EQ_INT(count(s, "order_wire_class"), 0);
    char want[4096];
    size_t n = (size_t)snprintf(want, sizeof want, "_load_ts, _raw_hash, error_class, raw");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", %s", WIRE_FIELDS[i].name);
    snprintf(want + n, sizeof want - n, ", _hashdiff, _bucket)\nSETTINGS enable_shared_storage_snapshot_in_query = 1, max_insert_threads = 4, min_insert_block_size_rows = 262144\nWITH (SELECT ");
    CHECK(strstr(st[4], want) != NULL);
    /* _bucket: cityHash64 of the typed order_id of an accepted message, 0 of a rejected one */
    n = (size_t)snprintf(want, sizeof want, ", _w.class, if(_w.class != '', raw, '')");
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", _w.%s", WIRE_FIELDS[i].name);
    snprintf(want + n, sizeof want - n, ", _w.hashdiff, if(_w.class = '', cityHash64(_w.order_id) %% 256, 0)\nFROM ");
    CHECK(strstr(st[4], want) != NULL);

    /* the gate: the typed columns are the manifest's, then _hashdiff */
    const char *ind = "                ";
    const char *p = strstr(st[9], "        FROM\n        (\n            SELECT\n");
    CHECK(p != NULL);
    p = p ? check_typed_udf(p + strlen("        FROM\n        (\n            SELECT\n"), ind) : NULL;
    check_hashdiff_udf(p, ind);
    CHECK_EQ_INT(count(s, "hashdiff_strict"), 0);
    CHECK(strstr(st[9], "\n            FROM ods.order_manifest\n            WHERE _load_id = {load_id:String} AND NOT "
                        "(error_class != '') AND _bucket >= _lo AND _bucket < _hi\n"));
    CHECK(!strstr(st[9], "JSONType") && !strstr(st[9], "parseDateTime64") && !strstr(st[9], "raw"));
    /* the prior is what order_v shows for the load's own orders (the load, not committed, is not
     * in it); one version per updated_at within the load (the first received); what this
     * load already wrote to the hot table is never written again */
    CHECK(strstr(st[9], "        SELECT order_id, 1 AS _has_prior, updated_at AS _prior_updated_at, _hashdiff AS "
                        "_prior_hashdiff\n        FROM ods.order_v\n        WHERE order_id IN (SELECT order_id FROM "
                        "ods.order_manifest WHERE _load_id = {load_id:String} AND NOT (error_class != '') AND ") != NULL);
    CHECK_EQ_INT(count(s, "ods.order_v"), DDL_GATE_PIECES);
    CHECK(strstr(st[9], "row_number() OVER (PARTITION BY order_id, updated_at "
                        "ORDER BY _load_ts, _topic, _partition, _offset) AS _r\n") != NULL);
    /* each accepted message's fate: stored (first received, changed, not older), stale (older
     * than the prior) or unchanged; then where it is still to be written: the hot table (not
     * stored by an earlier run), the stale records (not recorded yet), the fates (none yet) */
    CHECK(strstr(st[9], "        multiIf(_receipt = 1 AND (NOT _has_prior OR (updated_at >= _prior_updated_at AND "
                        "_hashdiff != _prior_hashdiff)), 'stored',\n                _has_prior AND updated_at < "
                        "_prior_updated_at, 'stale',\n                'unchanged') AS _fate\n") != NULL);
    CHECK(strstr(st[9], "\n    _fate = 'stored' AND (order_id, updated_at, _hashdiff) NOT IN (SELECT order_id, "
                        "updated_at, _hashdiff FROM ods.order_snapshot_hot WHERE _load_id = {load_id:String} AND "
                        "cityHash64(order_id) % 256 >= _lo AND cityHash64(order_id) % 256 < _hi AND {load_id:String} NOT IN "
                        "(SELECT _load_id FROM ods.order_loads)) AS _put_hot,\n"
                        "    _fate = 'stale' AND (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset "
                        "FROM ods.order_snapshot_stale WHERE _load_id = {load_id:String} AND cityHash64(order_id) % 256 "
                        ">= _lo AND cityHash64(order_id) % 256 < _hi) AS _put_stale,\n"
                        "    (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset FROM ods.order_fates "
                        "WHERE _load_id = {load_id:String}\n        AND cityHash64(_topic, _partition, _offset) IN (SELECT "
                        "cityHash64(_topic, _partition, _offset) FROM ods.order_manifest WHERE _load_id = {load_id:String} "
                        "AND _bucket >= _lo AND _bucket < _hi)) AS _put_fate\n") != NULL);
    CHECK(ends(st[9], "\nWHERE _put_hot OR _put_stale OR _put_fate;"));
    snprintf(want, sizeof want, "INSERT INTO ods.order_gate (%s, _topic, _partition, _offset, _fate, _put_hot, _put_stale, "
                                "_put_fate)\nSETTINGS enable_shared_storage_snapshot_in_query = 1, join_use_nulls = 0, max_insert_threads = 4, min_insert_block_size_rows = 262144, " NO_JIT_SET "\nWITH ", store_cols());
    CHECK(starts(st[9], want));
    /* stored, unchanged and stale: counted from the fates; the tables checked against them, each
     * row once */
    char kc[2048];
    key_counts(kc, sizeof kc, "x", "order_snapshot_stale", "_topic, _partition, _offset", "", NULL, "");
    CHECK(strstr(st[10], kc) != NULL);
    CHECK(strstr(st[10], "\n    f.staged, f.staged - f.messages, m.acc, g.st, g.un, g.sl, m.rej, ") != NULL);
    CHECK(strstr(st[10], "if(s.n != s.u OR (g.n >= m.acc AND s.n > g.st), ") != NULL);
    CHECK(strstr(st[10], "if(x.n != x.u OR (g.n >= m.acc AND x.n > g.sl), ") != NULL);
    CHECK(strstr(st[10], "if(g.n != g.u OR g.n > m.acc, ") != NULL);
    CHECK(strstr(st[10], "if(g.n < m.acc, ") != NULL);
    free_stmts(st, NSTMT);
    free(s);
}

/* The freeze writes columns the manifest has, reading columns staging has; the gate writes the
 * gate's columns; the commit counts order_fates (the schema is test_ddl.c's; here the two
 * modules must agree). */
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
        /* the gate's INSERT names every column of the gate, in its order */
        const char *gl = st[9] + strlen("INSERT INTO ods.order_gate (");
        const char *ge = strchr(gl, ')');
        char *gcols = table_columns(schema, "ods.order_gate");
        CHECK(gcols != NULL);
        if (gcols && ge) {
            char list[2048] = "|";
            size_t gn = 1;
            for (const char *q = gl; q < ge && gn + 2 < sizeof list; q++) {
                if (*q == ' ')
                    continue;
                list[gn++] = *q == ',' ? '|' : *q;
            }
            list[gn++] = '|';
            list[gn] = '\0';
            CHECK_EQ_STR(list, gcols);
        }
        free(gcols);
        const char *l = st[4] + strlen("INSERT INTO ods.order_manifest (");
        const char *e = strchr(l, ')');
        /* every column with the UDF typing; without the typed ones and _hashdiff with the SQL typing (typed
         * and hashed in the gate, from raw) */
        CHECK_EQ_INT(columns_in(l, e, mcols), count(mcols, "|") - 1 - (sql ? (int)WIRE_NFIELDS + 1 : 0));
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
    /* the fates the commit counts: by load and coordinates, one fate each */
    char *fcols = schema ? table_columns(schema, "ods.order_fates") : NULL;
    CHECK_EQ_STR(fcols, "|_load_id|_topic|_partition|_offset|fate|");
    free(fcols);
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
            CHECK_EQ_INT(count(s, "order_wire_class(raw)"), DDL_GATE_PIECES);
            CHECK(strstr(st[4], ", _raw_hash, error_class, raw, _bucket)\nSETTINGS enable_shared_storage_snapshot_in_query = 1, max_insert_threads = 4, "
                                "min_insert_block_size_rows = 262144\nWITH (SELECT ") != NULL);
            /* _bucket of the order_id the gate types: the gate's expression, on accepted messages */
            CHECK(strstr(st[4], "_load_ts, _raw_hash, _c, raw, if(_c = '', cityHash64(CAST(if(JSONType(raw, 'order_id') = "
                                "'String', JSONExtractString(raw, 'order_id'), NULL) AS String)) % 256, 0)\nFROM (SELECT *, "
                                "order_wire_class(raw) AS _c FROM\n") != NULL);
            const char *ind = "                ";
            const char *p = strstr(st[9], "        FROM\n        (\n            SELECT\n");
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

/* --store every: every accepted message through the gate too, its first receipt of a version
 * and content stored (with _hashdiff), the rest unchanged; no prior, no stale. Only the gate
 * and the commit's uniqueness of the hot rows differ from store changes. */
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
        snprintf(want, sizeof want, "INSERT INTO ods.order_gate (%s, _topic, _partition, _offset, _fate, _put_hot, "
                 "_put_stale, _put_fate)\nSETTINGS %senable_shared_storage_snapshot_in_query = 1, join_use_nulls = 0, max_insert_threads = 4, min_insert_block_size_rows = 262144, " NO_JIT_SET "\nWITH ",
                 store_cols(), cluster ? "distributed_foreground_insert = 1, " : "");
        CHECK(starts(st[9], want));
        CHECK(strstr(st[9], "\n    0 AS _put_stale,\n") != NULL);
        CHECK(strstr(st[9], "\n        if(_receipt = 1, 'stored', 'unchanged') AS _fate\n") != NULL);
        CHECK(strstr(st[9], "row_number() OVER (PARTITION BY order_id, updated_at, _hashdiff "
                            "ORDER BY _load_ts, _topic, _partition, _offset) AS _r\n") != NULL);
        CHECK(ends(st[9], "\nWHERE _put_hot OR _put_stale OR _put_fate;"));
        /* no stale fate, no prior */
        CHECK(!strstr(st[9], "'stale'") && !strstr(st[9], "order_snapshot_stale") && !strstr(st[9], "_has_prior"));
        for (int k = 1; k <= NSTMT; k++) /* no prior */
            CHECK(!strstr(st[k], "order_v"));
        if (!cluster) { /* the typed items: the manifest's */
            const char *p = st[9] ? strstr(st[9], "        FROM\n        (\n            SELECT\n") : NULL;
            CHECK(p != NULL);
            p = p ? check_typed_udf(p + strlen("        FROM\n        (\n            SELECT\n"), "                ") : NULL;
            check_hashdiff_udf(p, "                ");
        }
        /* the commit: a version stored once per content, the rest as in store changes */
        /* (the hot table's key: the recurring hashes' set, the hash tested, the grouping) */
        CHECK_EQ_INT(count(sc[10], "order_id, updated_at)"), 3);
        char *w10 = strdup(sc[10]);
        for (int i = 0; i < 3 && w10; i++) { /* the first left each time */
            const char *at = strstr(w10, "order_id, updated_at)");
            size_t n = strlen(w10) + 32, cut = at ? (size_t)(at - w10) : 0;
            char *w = at ? malloc(n) : NULL;
            if (w)
                snprintf(w, n, "%.*sorder_id, updated_at, _hashdiff)%s", (int)cut, w10, at + strlen("order_id, updated_at)"));
            free(w10);
            w10 = w;
        }
        CHECK(w10 != NULL);
        CHECK_EQ_STR(st[10], w10);
        free(w10);
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
    CHECK(strstr(st[9], "_put_fate)\nSETTINGS distributed_foreground_insert = 1, enable_shared_storage_snapshot_in_query = 1, join_use_nulls = 0, max_insert_threads = 4, min_insert_block_size_rows = 262144, " NO_JIT_SET "\nWITH ") != NULL);
    CHECK(strstr(st[9], "        FROM ods.order_v\n        WHERE order_id GLOBAL IN (SELECT order_id FROM ods.order_manifest ") !=
          NULL);
    CHECK(strstr(st[9], "(order_id, updated_at, _hashdiff) GLOBAL NOT IN (SELECT order_id, updated_at, _hashdiff FROM "
                        "ods.order_snapshot_hot_dist WHERE _load_id = {load_id:String} AND ") != NULL);
    CHECK(strstr(st[9], "(_topic, _partition, _offset) GLOBAL NOT IN (SELECT _topic, _partition, _offset FROM "
                        "ods.order_snapshot_stale_dist WHERE _load_id = {load_id:String} AND ") != NULL);
    /* the fates are this node's: read locally by the gate and the commit */
    CHECK(strstr(st[9], "    (_topic, _partition, _offset) NOT IN (SELECT _topic, _partition, _offset FROM ods.order_fates "
                        "WHERE _load_id = {load_id:String}\n        AND cityHash64(_topic, _partition, _offset) IN (SELECT ") != NULL);
    char kc[2048];
    key_counts(kc, sizeof kc, "x", "order_snapshot_stale_dist", "_topic, _partition, _offset", "", NULL, "");
    CHECK(strstr(st[10], kc) != NULL);
    key_counts(kc, sizeof kc, "s", "order_snapshot_hot_dist", "order_id, updated_at", "", "", "");
    CHECK(strstr(st[10], kc) != NULL);
    CHECK(strstr(kc, " GLOBAL IN (SELECT _k FROM (SELECT cityHash64(order_id, updated_at) AS _k FROM "
                     "ods.order_snapshot_hot_dist ") != NULL);
    CHECK_EQ_INT(count(st[10], "FROM ods.order_fates WHERE _load_id = {load_id:String} AND cityHash64(_topic, _partition, "
                               "_offset) IN (SELECT _k FROM (SELECT cityHash64(_topic, _partition, _offset) AS _k FROM "
                               "ods.order_fates WHERE _load_id = {load_id:String} GROUP BY _k HAVING count() > 1))"), 1);
    /* the manifest, the seal, the fates and the lease are this node's: never GLOBAL, never _dist */
    CHECK(!strstr(s, "order_manifest_dist") && !strstr(s, "order_frozen_dist") && !strstr(s, "order_lease_dist") &&
          !strstr(s, "order_fates_dist"));
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
    gen_fn fns[] = {ddl_transition, ddl_abandon, ddl_move_late, ddl_take_back};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        ddl_opts o = {.stg_db = "s1", .ods_db = "o1"};
        char *s = gen(fns[i], &o);
        CHECK(s != NULL);
        CHECK(s && !strstr(s, "stg.") && !strstr(s, "ods."));
        CHECK(s && strstr(s, "o1.order_lease"));
        /* abandon and take-back leave staging alone */
        CHECK(s && (fns[i] == ddl_abandon || fns[i] == ddl_take_back || strstr(s, "s1.orders_raw")));
        free(s);
    }
}

/* ods-ddl abandon: under the lease, refusing a committed load (before the lease is taken, and
 * again under it), the load's rows in every table it wrote removed, the seal last (until then
 * the load stays frozen: no other load starts, and a cut-short abandon is run again). */
static void test_abandon(void)
{
    for (int cluster = 0; cluster <= 1; cluster++) {
        ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = cluster ? "c1" : NULL};
        char *s = gen_lease(ddl_abandon, &o), *st[MAXSTMT + 1];
        if (!s || !split_stmts(s, 11, st)) {
            CHECK(0);
            free(s);
            return;
        }
        CHECK(starts(s, "-- ods-ddl abandon: "));
        CHECK(strstr(s, " Run the 11 statements in order.\n") != NULL);
        char guard[256], want[4096];
        snprintf(guard, sizeof guard, "{load_id:String} %sNOT IN (SELECT _load_id FROM ods.%s)", cluster ? "GLOBAL " : "",
                 cluster ? "order_loads_dist" : "order_loads");
        CHECK_EQ_STR(st[2], "CREATE TABLE ods.order_lease ENGINE = Log AS SELECT {load_id:String} AS _load_id, "
                            "now64(3, 'UTC') AS since;");
        check_lease_drop(st, 11);
        CHECK(has_lease_free(st[1], "abandon", 11));
        /* 1 and 3: refuse a committed load; 1 before the lease is taken (a refused abandon leaves
         * none), 3 under it (then the run keeps it) */
        for (int k = 1; k <= 3; k += 2) {
            snprintf(want, sizeof want, "\n    if({load_id:String} %sIN (SELECT _load_id FROM ods.%s), concat('abandon %d/11: "
                     "load ', " LOAD_TEXT ", ' is committed: a committed load is never abandoned (its versions are visible "
                     "in order_v); nothing was done%s'), '')]), '')) AS _p\n",
                     cluster ? "GLOBAL " : "", cluster ? "order_loads_dist" : "order_loads", k, k == 3 ? KEPT : "");
            CHECK_EQ_INT(count(st[k], want), 1);
        }
        /* 4-9: hot, errors, stale (each shard's, ON CLUSTER), then the fates, the manifest and
         * the seal (this node's) */
        static const char *const tables[] = {"order_snapshot_hot", "order_snapshot_errors", "order_snapshot_stale",
                                             "order_fates", "order_manifest", "order_frozen"};
        for (int k = 4; k <= 9; k++) {
            int shard = k <= 6;
            snprintf(want, sizeof want, "ALTER TABLE ods.%s%s DELETE WHERE _load_id = {load_id:String} AND %s\n"
                     "SETTINGS mutations_sync = 2%s;", tables[k - 4], cluster && shard ? " ON CLUSTER c1" : "", guard,
                     cluster ? ", allow_nondeterministic_mutations = 1" : "");
            CHECK_EQ_STR(st[k], want);
        }
        CHECK_EQ_INT(count(s, "ON CLUSTER"), cluster ? 3 : 0);
        CHECK_EQ_INT(count(s, "order_frozen"), 1); /* only 9 names the seal: it goes last */
        CHECK_EQ_INT(count(s, "DELETE WHERE"), 6);
        static const int lease[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0};
        /* 1: the load id, the lease, committed; 3: the lease, committed; 10: the lease */
        static const int msgs[] = {0, 3, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0};
        for (int k = 1; k <= 11; k++) {
            CHECK_EQ_INT(count(st[k], "does not hold the lease"), lease[k]);
            check_messages(st[k], "abandon", k, 11, msgs[k]);
        }
        CHECK(!strstr(s, "'transition "));
        free_stmts(st, 11);
        free(s);
    }
}

/* ods-ddl take-back: under the lease, the latest committed load not folded (checked before
 * the lease and under it, each refusal its message), its ledger row first (guarded again in the
 * mutation: only while the latest and not in _rep), then what abandon removes, the seal last. */
static void test_take_back(void)
{
    for (int cluster = 0; cluster <= 1; cluster++) {
        ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = cluster ? "c1" : NULL};
        char *s = gen_lease(ddl_take_back, &o), *st[MAXSTMT + 1];
        if (!s || !split_stmts(s, 12, st)) {
            CHECK(0);
            free(s);
            return;
        }
        const char *loads = cluster ? "order_loads_dist" : "order_loads";
        const char *rep = cluster ? "order_snapshot_dist" : "order_snapshot_rep";
        CHECK(starts(s, "-- ods-ddl take-back: "));
        CHECK(strstr(s, " Run the 12 statements in order.\n") != NULL);
        check_lease_drop(st, 12);
        CHECK(has_lease_free(st[1], "take-back", 12));
        char want[2048];
        for (int k = 1; k <= 3; k += 2) {
            const char *kept = k == 3 ? KEPT : "";
            snprintf(want, sizeof want, "' is): only the latest can be taken back, newest first; nothing was done%s'), '')", kept);
            CHECK_EQ_INT(count(st[k], want), 1);
            snprintf(want, sizeof want, "AND (SELECT count() FROM ods.%s WHERE _load_id = {load_id:String}) > 0,\n"
                     "        concat('take-back %d/12: the versions of load ', " LOAD_TEXT ", ' are already folded into "
                     "ods.order_snapshot_rep (by the transition of a later load): it can no longer be taken back exactly; "
                     "nothing was done%s'), '')", rep, k, kept);
            CHECK_EQ_INT(count(st[k], want), 1);
            snprintf(want, sizeof want, "' is frozen and not committed: its run compared against this load''s versions; "
                     "finish it (rerun its transition) and take it back first, or abandon it (ods-ddl abandon); nothing was "
                     "done%s'), '')", kept);
            CHECK_EQ_INT(count(st[k], want), 1);
            snprintf(want, sizeof want, "' is not committed: there is nothing to take back; nothing was done%s'), '')", kept);
            CHECK_EQ_INT(count(st[k], want), 1);
        }
        snprintf(want, sizeof want, "ALTER TABLE ods.order_loads%s DELETE WHERE _load_id = {load_id:String}\n"
                 "  AND _load_id = (SELECT argMax(_load_id, delta) FROM ods.%s)\n"
                 "  AND (SELECT count() FROM ods.%s WHERE _load_id = {load_id:String}) = 0\n"
                 "SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;",
                 cluster ? " ON CLUSTER c1" : "", loads, rep);
        CHECK_EQ_STR(st[4], want);
        static const char *const tables[] = {"order_snapshot_hot", "order_snapshot_errors", "order_snapshot_stale",
                                             "order_fates", "order_manifest", "order_frozen"};
        for (int k = 5; k <= 10; k++) {
            CHECK(starts(st[k], "ALTER TABLE ods."));
            CHECK(st[k] && strstr(st[k], tables[k - 5]) == st[k] + 16);
            CHECK(st[k] && strstr(st[k], " DELETE WHERE _load_id = {load_id:String} AND {load_id:String} "));
        }
        CHECK_EQ_INT(count(s, "DELETE WHERE"), 7);
        static const int lease[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0};
        static const int msgs[] = {0, 6, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1, 0};
        for (int k = 1; k <= 12; k++) {
            CHECK_EQ_INT(count(st[k], "does not hold the lease"), lease[k]);
            check_messages(st[k], "take-back", k, 12, msgs[k]);
        }
        free_stmts(st, 12);
        free(s);
    }
}

/* ods-ddl rebaseline: under the lease with no load open, each stored table's _hashdiff
 * recomputed by the one native expression where its profile is not this version's, then the
 * profile made the tables' default (the Distributed tables' too on a cluster), last. */
static void test_rebaseline(void)
{
    char *hsql = ddl_hashdiff_sql();
    const char *prof = ddl_hashdiff_profile();
    CHECK(hsql && prof);
    for (int cluster = 0; cluster <= 1; cluster++) {
        ddl_opts o = {.stg_db = "stg", .ods_db = "ods", .cluster = cluster ? "c1" : NULL};
        int n = cluster ? 11 : 9;
        char *s = gen_lease(ddl_rebaseline, &o), *st[MAXSTMT + 1];
        if (!s || !hsql || !prof || !split_stmts(s, n, st)) {
            CHECK(0);
            free(s);
            break;
        }
        check_lease_drop(st, n);
        CHECK(has_lease_free(st[1], "rebaseline", n));
        char want[16384];
        const char *oc = cluster ? " ON CLUSTER c1" : "";
        static const char *const tables[] = {"order_snapshot_rep", "order_snapshot_hot", "order_snapshot_dist",
                                             "order_snapshot_hot_dist"};
        for (int k = 4; k <= 5; k++) {
            snprintf(want, sizeof want, "ALTER TABLE ods.%s%s UPDATE _hashdiff = %s, _hashdiff_profile = '%s'\n"
                     "WHERE _hashdiff_profile != '%s'\nSETTINGS mutations_sync = 2;", tables[k - 4], oc, hsql, prof, prof);
            CHECK_EQ_STR(st[k], want);
        }
        for (int k = 6; k <= n - 2; k++) {
            snprintf(want, sizeof want, "ALTER TABLE ods.%s%s MODIFY COLUMN _hashdiff_profile LowCardinality(String) "
                     "DEFAULT '%s';", tables[k - 6], oc, prof);
            CHECK_EQ_STR(st[k], want);
        }
        for (int k = 1; k <= 3; k += 2)
            CHECK_EQ_INT(count(st[k], " is frozen and not committed: its run compared hashes of the old profile"), 1);
        for (int k = 1; k <= n; k++)
            check_messages(st[k], "rebaseline", k, n, k == 1 ? 3 : k == 3 ? 2 : k == n - 1 ? 1 : 0);
        free_stmts(st, n);
        free(s);
    }
    free(hsql);
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
    check_lease_drop(st, 7);
    CHECK(has_lease_free(st[1], "move-late", 7));
    /* 1 (before the lease is taken) and 3 (under it): the load frozen; the new id a load id,
     * another one, not frozen or committed. The same SQL in both, each with its own messages
     * (3's say the run keeps the lease). */
    const char *mark = "ifNull(arrayFirst(_x -> ifNull(_x, '') != '', [\n    if({load_id:String} NOT IN (SELECT _load_id "
                       "FROM ods.order_frozen) AND {load_id:String} NOT IN (SELECT _load_id FROM ods.order_loads), concat(";
    const char *c1 = strstr(st[1], mark), *c3 = strstr(st[3], mark);
    CHECK(c1 && c3);
    if (c1 && c3) {
        char *a = strip_literals(c1), *b = strip_literals(c3);
        CHECK(a && b && !strcmp(a, b));
        free(a);
        free(b);
    }
    for (int k = 1; k <= 3; k += 2) {
        char want[1024];
        const char *kept = k == 3 ? KEPT : "";
        snprintf(want, sizeof want, "concat('move-late %d/7: load ', " LOAD_TEXT ", ' is not frozen: nothing staged under it "
                 "is late; run its transition%s'), ''),\n", k, kept);
        CHECK_EQ_INT(count(st[k], want), 1);
        snprintf(want, sizeof want, "    if(NOT match({to_load_id:String}, '^[A-Za-z0-9][A-Za-z0-9._:+/-]{0,127}$') OR "
                 "{to_load_id:String} = {load_id:String},\n        concat('move-late %d/7: the new load id ''', "
                 "replaceRegexpAll({to_load_id:String}, '[^ -~]', '?'), ''' is not a load id other than ', " LOAD_TEXT ", "
                 "' (1 to 128 of A-Z a-z 0-9 . _ : + / -); nothing was done%s'), ''),\n", k, kept);
        CHECK_EQ_INT(count(st[k], want), 1);
        snprintf(want, sizeof want, "    if({to_load_id:String} IN (SELECT _load_id FROM ods.order_frozen) OR "
                 "{to_load_id:String} IN (SELECT _load_id FROM ods.order_loads),\n        concat('move-late %d/7: load ', "
                 "replaceRegexpAll({to_load_id:String}, '[^ -~]', '?'), ' is frozen already: choose a new load id; nothing "
                 "was done%s'), '')]), '')]), '')) AS _p\n", k, kept);
        CHECK_EQ_INT(count(st[k], want), 1);
    }
    /* 4: the copy, coordinates and _load_ts kept, each copy marked L#n: the n-th late row of L
     * with its coordinates, bytes and _load_ts (a later late row of the same bytes, staged after
     * an earlier move, is a row of its own: soak seed 930943) */
    CHECK(starts(st[4], "INSERT INTO stg.orders_raw (raw, _topic, _partition, _offset, _timestamp, _key, _load_id, _load_ts, _moved)\n"
                        "SELECT raw, _topic, _partition, _offset, _timestamp, _key, {to_load_id:String}, _load_ts, _m\n"
                        "FROM (\n    SELECT raw, _topic, _partition, _offset, _timestamp, _key, _load_ts, _raw_hash,\n"
                        "        concat({load_id:String}, '#', toString(row_number() OVER (PARTITION BY _topic, _partition, "
                        "_offset, _raw_hash, _load_ts ORDER BY _timestamp, _key))) AS _m\n"
                        "    FROM stg.orders_raw\n    WHERE _load_id = {load_id:String} AND "));
    /* copies only marks no row of any load holds yet: never by what the new load holds */
    CHECK(count(st[4], "\nWHERE (_topic, _partition, _offset, _raw_hash, _load_ts, _m) NOT IN (SELECT _topic, _partition, "
                       "_offset, _raw_hash, _load_ts, _moved FROM stg.orders_raw WHERE startsWith(_moved, "
                       "concat({load_id:String}, '#')))\n") == 1);
    CHECK(!strstr(st[4], "{to_load_id:String})"));
    CHECK(ends(st[4], ") = 0\nSETTINGS insert_allow_materialized_columns = 1;"));
    /* 5: the delete of what was copied: a late row once every copy of it is */
    CHECK(starts(st[5], "ALTER TABLE stg.orders_raw DELETE WHERE _load_id = {load_id:String} AND "));
    CHECK(ends(st[5], "\nSETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;"));
    CHECK(count(st[5], "OR startsWith(_moved, concat({load_id:String}, '#'))\n    GROUP BY _topic, _partition, _offset, _raw_hash, "
                       "_load_ts HAVING countIf(_load_id = {load_id:String}) <= countIf(_load_id != {load_id:String}))\n") == 1);
    CHECK(!strstr(st[5], "to_load_id"));
    /* the same late rows in 4 and in both halves of 5: the condition after the load id, to the
     * end of its line or of its parenthesis */
    const char *a = strstr(st[4], "WHERE _load_id = {load_id:String} AND ");
    const char *b = strstr(st[5], "WHERE _load_id = {load_id:String} AND ");
    const char *c = strstr(st[5], "WHERE (_load_id = {load_id:String} AND ");
    CHECK(a && b && c);
    if (a && b && c) {
        /* b's line is the condition; a's closes its subquery after it, c's its parenthesis */
        size_t lb = strcspn(b, "\n");
        CHECK(!strncmp(a, b, lb) && a[lb] == ')' && a[lb + 1] == '\n');
        CHECK(!strncmp(c + 7, b + 6, lb - 6) && c[7 + lb - 6] == ')');
        const char *mf = "ods.order_manifest WHERE _load_id = {load_id:String}";
        CHECK(memmem(b, lb, mf, strlen(mf)) != NULL);
    }
    static const int lease[] = {0, 0, 0, 1, 1, 0, 1, 0};
    /* 1: the load id, the lease, the 3 checks; 3: the lease, the 3 checks */
    static const int msgs[] = {0, 5, 0, 4, 1, 0, 1, 0};
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
    test_transition_gate_options();
    test_transition_schema_agree();
    test_transition_typing_sql();
    test_transition_every();
    test_transition_cluster();
    test_transition_allow_empty();
    test_transition_names();
    test_abandon();
    test_take_back();
    test_rebaseline();
    test_move_late();
    test_stage();
    test_kafka();
    return check_report();
}
