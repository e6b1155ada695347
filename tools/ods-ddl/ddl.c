/* ddl_gen: the options of the SQL generator checked (names, cluster names, Kafka values) and the
 * small writers every statement shares (quoting, the contract's SQL templates). */
#include "ddl.h"
#include "cli.h"

#include <string.h>
#include <strings.h>

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

const char *ddl_lease_clear(const ddl_opts *o, char *buf, size_t n)
{
    if (o->cluster)
        snprintf(buf, n, "TRUNCATE TABLE %s.order_lease_keeper", o->ods_db);
    else
        snprintf(buf, n, "DROP TABLE IF EXISTS %s.order_lease", o->ods_db);
    return buf;
}

const char *ddl_lease_release(const ddl_opts *o, const char *since, char *buf, size_t n)
{
    if (!o->cluster)
        return ddl_lease_clear(o, buf, n);
    int k = snprintf(buf, n, "DELETE FROM %s.order_lease_keeper WHERE name = 'lease' AND _load_id = {load_id:String}",
                     o->ods_db);
    if (since && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " AND toString(since) = '%s'", since);
    return buf;
}

int ddl_check_load_id(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > 128)
        return DDL_EINVAL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || !strchr("._:+/-", c)))
            return DDL_EINVAL;
    }
    return 0;
}

int ddl_set_modes(ddl_opts *o, const char *store, const char *typing, ddl_error *err)
{
    if (store && strcmp(store, "changes") != 0 && strcmp(store, "every") != 0)
        return set_err(err, "changes or every", "--store");
    if (typing && strcmp(typing, "udf") != 0 && strcmp(typing, "sql") != 0)
        return set_err(err, "udf or sql", "--typing");
    o->store_every = store && !strcmp(store, "every");
    o->typing_sql = typing && !strcmp(typing, "sql");
    return 0;
}

int ddl_set_gate(ddl_opts *o, const char *pieces, const char *size, ddl_error *err)
{
    unsigned long long n;
    if (pieces) {
        if (cli_whole(pieces, 1, DDL_GATE_PIECES_MAX, &n) < 0)
            return set_err(err, "a whole number of pieces, 1 to 64", "--gate-pieces");
        o->gate_pieces = (unsigned)n;
    }
    if (size) {
        if (cli_whole(size, 1, DDL_PIECE_SIZE_MAX, &n) < 0)
            return set_err(err, "a whole number of messages, 1 to 1000000000", "--piece-size");
        o->piece_size = (unsigned)n;
    }
    return 0;
}

unsigned ddl_gate_pieces_for(unsigned long long rows, unsigned piece_size)
{
    unsigned size = piece_size ? piece_size : DDL_PIECE_SIZE;
    unsigned long long p = rows / size + (rows % size != 0);
    return p < 1 ? 1 : p > DDL_GATE_PIECES ? DDL_GATE_PIECES : (unsigned)p;
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
    if (o->source && check_one(o->source, "--source", 0, err) < 0)
        return DDL_EINVAL;
    if (o->file) {
        size_t n = strlen(o->file);
        if (n == 0 || n > 4096)
            return set_err(err, "must be 1 to 4096 bytes", "--file");
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)o->file[i] < 0x20 || o->file[i] == 0x7F)
                return set_err(err, "must not hold control characters", "--file");
        /* the engine's file() takes a path holding any of these as a glob (what its storages test
         * with find_first_of("*?{")), and no escape exists: 'day{1}.jsonl' reads day1.jsonl, 'a?'
         * every two-letter name, so another file's lines would be staged, or none */
        if (strpbrk(o->file, "*?{"))
            return set_err(err, "must not hold * ? or { (the engine's file() expands them as a glob, "
                                "into other files or none): rename the file, or stage it through the "
                                "client, without --file", "--file");
    }
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

