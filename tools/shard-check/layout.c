/* layout.c: one cluster's shards, weights and replicas as a ClickHouse server builds them from
 * <remote_servers> (Cluster.cpp, over the config cfg.h reads), or from a system.clusters dump. */
#include "layout.h"

#include "cfg.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Above 2^24 units of weight (128 MiB of slot table) layout reports the cluster. */
#define SC_SLOT_TABLE_MAX (1ull << 24)

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
    if (!*s)
        return -1;
    unsigned long r = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        r = r * 10 + (unsigned long)(*s - '0');
        if (r > max)
            return -1;
    }
    *v = r;
    return 0;
}

/* Poco's getBool: true/yes/on/1 and false/no/off/0, any case. */
static int parse_bool(const char *s, int *v)
{
    if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "1"))
        *v = 1;
    else if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "0"))
        *v = 0;
    else
        return -1;
    return 0;
}

static int add_other(sc_cluster *out, const char *name)
{
    for (size_t i = 0; i < out->n_others; i++)
        if (!strcmp(out->others[i], name))
            return 0;
    char **o = realloc(out->others, (out->n_others + 1) * sizeof *o);
    if (!o)
        return -1;
    out->others = o;
    if (!(o[out->n_others] = strdup(name)))
        return -1;
    out->n_others++;
    return 0;
}

/* ---- remote_servers as Cluster.cpp builds it ----
 * The server builds every cluster of <remote_servers> when it loads the config, and the first one
 * it cannot build throws: it then has no cluster at all (system.clusters fails, and so does every
 * Distributed table). So every cluster is built here in the server's order, with its checks in its
 * order, and the first refusal is reported whatever cluster was asked for, naming the config key
 * and the server's own words (tests/bats/shard-check.bats compares them with the engine's). */

typedef struct {
    const cfg_node *root;
    const char *path;
    sc_err *err;
    uint32_t tcp_port, tcp_port_secure; /* getInt(port_type, 0) */
} bctx;

/* The server's reasons, each with its exception (and what to do). */
static const char R_DOT[] = "Cluster names with dots are not supported (SYNTAX_ERROR): rename the cluster";
static const char R_EMPTY[] = "No cluster elements (shard, node) specified in config (SHARD_HAS_NO_CONNECTIONS): give "
                               "the cluster a <shard> with a <replica>, or remove it";
static const char R_UNKNOWN[] =
    "Unknown element in config (UNKNOWN_ELEMENT_IN_CONFIG): a cluster holds only <shard…> and <node…> "
    "elements (and <secret>, <allow_distributed_ddl_queries>), a shard only <replica…>, <weight…>, "
    "<internal_replication…> and <name…>";
static const char R_NAMES[] =
    "name must be specified for every shard(node) in the config or for none (INVALID_SHARD_ID): give every "
    "<shard>/<node> a <name>, or none";
static const char R_SHARD_NAME[] =
    "Field shard_name is incorrect. It must be unique in cluster and non-empty (INVALID_SHARD_ID): give each "
    "shard a name of its own";
static const char R_NO_HOST[] = "Not found (Poco::NotFoundException): give the replica a <host>";
static const char R_SYNTAX[] =
    "Syntax error (Poco::SyntaxException): not a number (or not true/false) as the server reads one, "
    "after ${…} substitution: write a plain value (no blank after it), or fix what its ${…} names";
static const char R_CIRCULAR[] =
    "Circular reference (Poco::CircularReferenceException): ${…} substitutions nested more than 10 deep: "
    "a ${…} that names itself, or too long a chain; point it at a plain value";
static const char R_NO_PORT[] =
    "Port is not specified in cluster configuration (NO_ELEMENTS_IN_CONFIG): give the replica a <port> "
    "(not 0 as a 16-bit number), or the config a <tcp_port> (<tcp_port_secure> for a secure replica)";
static const char R_NO_REPLICA[] =
    "a shard without <replica> (std::out_of_range: vector): add a <replica> with <host> and <port>, or remove the "
    "shard";
static const char R_NEGATIVE[] =
    "a weight below 0: the server takes it as UInt32 (2^32 - |weight|), builds a slot table of that "
    "many entries and never loads the config: give it 0 or more";
static const char R_ZERO[] = "Cluster with zero weight on all shards is prohibited (BAD_ARGUMENTS): give one shard "
                              "a weight above 0";

/* buf = a + sep + b, cut to cap - 1 bytes: a config key (or a file and a key) for a message. */
static void join(char *buf, size_t cap, const char *a, const char *sep, const char *b)
{
    size_t at = 0;
    const char *parts[3] = {a, sep, b};
    for (int i = 0; i < 3; i++) {
        size_t l = strlen(parts[i]);
        if (l > cap - 1 - at)
            l = cap - 1 - at;
        memcpy(buf + at, parts[i], l);
        at += l;
    }
    buf[at] = 0;
}

static void subkey(char *buf, size_t cap, const char *prefix, const char *name) { join(buf, cap, prefix, ".", name); }

/* Refuses at config key `key` (remote_servers.c.shard[1].replica.port): SC_E_REFUSED. */
static int refuse(const bctx *b, const char *msg, const char *key)
{
    char where[512];
    join(where, sizeof where, b->path, ", ", key);
    sc_err_set(b->err, msg, where, 0, 0);
    return SC_E_REFUSED;
}

/* A value read failed (cfg.h's codes): the server's refusal, or what this tool cannot read. */
static int read_failed(const bctx *b, int rc, const char *key)
{
    switch (rc) {
    case CFG_NOMEM: return SC_E_NOMEM;
    case CFG_CIRCULAR: return refuse(b, R_CIRCULAR, key);
    case CFG_SYNTAX: return refuse(b, R_SYNTAX, key);
    case CFG_SELECTOR:
        sc_err_set(b->err, "a ${…} reference with a selector ([@attr], []) that this tool does not follow: "
                           "pass a system.clusters dump (TSVWithNames) from the server", b->path, 0, 0);
        return SC_E_INPUT;
    default: {
        char where[512];
        join(where, sizeof where, b->path, ", ", key);
        sc_err_set(b->err, "a value longer than this tool reads (4 KiB for a host name, less for a number)",
                   where, 0, 0);
        return SC_E_INPUT;
    }
    }
}


/* getString(prefix.name) when the element is there (NULL otherwise: the default). */
static int get_str(const bctx *b, const cfg_node *n, const char *name, const char *prefix, char *buf, size_t cap,
                   const char **out)
{
    char key[600];
    const cfg_node *c = cfg_child(n, name);
    *out = NULL;
    if (!c)
        return SC_OK;
    int rc = cfg_string(b->root, c, buf, cap);
    subkey(key, sizeof key, prefix, name);
    if (rc != CFG_OK)
        return read_failed(b, rc, key);
    *out = buf;
    return SC_OK;
}

/* getInt (iv) or getBool (bv) of prefix.name when the element is there (else the default stays). */
static int get_num(const bctx *b, const cfg_node *n, const char *name, const char *prefix, uint32_t *iv, int *bv)
{
    char key[600];
    const cfg_node *c = cfg_child(n, name);
    if (!c)
        return SC_OK;
    int rc = iv ? cfg_int(b->root, c, iv) : cfg_bool(b->root, c, bv);
    subkey(key, sizeof key, prefix, name);
    return rc == CFG_OK ? SC_OK : read_failed(b, rc, key);
}
static int get_int(const bctx *b, const cfg_node *n, const char *name, const char *prefix, uint32_t *v)
{
    return get_num(b, n, name, prefix, v, NULL);
}
static int get_bool(const bctx *b, const cfg_node *n, const char *name, const char *prefix, int *v)
{
    return get_num(b, n, name, prefix, NULL, v);
}

/* Cluster::Address over element r (a <replica>, or a legacy <node>), its reads in the server's
 * order: host, user, password, default_database, secure, bind_host, priority, proto_caps, the
 * port (the server's tcp_port, or tcp_port_secure for a secure replica, when it has none), and
 * compression. Only host and port are kept. */
static int add_replica(const bctx *b, sc_shard *s, const cfg_node *r, const char *prefix)
{
    char host[4096], tmp[4096], key[600];
    const char *v;
    if (!cfg_child(r, "host"))
        return refuse(b, R_NO_HOST, (subkey(key, sizeof key, prefix, "host"), key));
    int rc = get_str(b, r, "host", prefix, host, sizeof host, &v);
    static const char *const strs[] = {"user", "password", "default_database"};
    for (size_t i = 0; rc == SC_OK && i < sizeof strs / sizeof *strs; i++)
        rc = get_str(b, r, strs[i], prefix, tmp, sizeof tmp, &v);
    /* ConfigHelper::getBool(…, empty_as = true): <secure/>, with no element in it and an empty
     * text, is secure */
    int secure = 0, decided = 0;
    const cfg_node *sn = cfg_child(r, "secure");
    if (rc == SC_OK && sn) {
        int has_elem = 0;
        for (size_t i = 0; i < cfg_n_kids(sn); i++)
            has_elem |= cfg_kid(sn, i) != NULL;
        if (!has_elem) {
            int sr = cfg_string(b->root, sn, tmp, sizeof tmp);
            if (sr != CFG_OK && sr != CFG_TOO_LONG)
                rc = read_failed(b, sr, (subkey(key, sizeof key, prefix, "secure"), key));
            else if (sr == CFG_OK && !tmp[0])
                secure = decided = 1;
        }
        if (rc == SC_OK && !decided)
            rc = get_bool(b, r, "secure", prefix, &secure);
    }
    if (rc == SC_OK)
        rc = get_str(b, r, "bind_host", prefix, tmp, sizeof tmp, &v);
    uint32_t prio;
    if (rc == SC_OK)
        rc = get_int(b, r, "priority", prefix, &prio);
    const cfg_node *caps = cfg_child(r, "proto_caps");
    char cprefix[600];
    subkey(cprefix, sizeof cprefix, prefix, "proto_caps");
    if (rc == SC_OK && caps)
        rc = get_str(b, caps, "send", cprefix, tmp, sizeof tmp, &v);
    if (rc == SC_OK && caps)
        rc = get_str(b, caps, "recv", cprefix, tmp, sizeof tmp, &v);
    uint32_t port = secure ? b->tcp_port_secure : b->tcp_port;
    if (rc == SC_OK)
        rc = get_int(b, r, "port", prefix, &port);
    if (rc == SC_OK && !(uint16_t)port) /* static_cast<UInt16>: 65536 is 0 */
        rc = refuse(b, R_NO_PORT, (subkey(key, sizeof key, prefix, "port"), key));
    int compression;
    if (rc == SC_OK)
        rc = get_bool(b, r, "compression", prefix, &compression);
    if (rc != SC_OK)
        return rc;
    sc_replica *nr = realloc(s->replicas, (s->n_replicas + 1) * sizeof *nr);
    if (!nr)
        return SC_E_NOMEM;
    s->replicas = nr;
    if (!(nr[s->n_replicas].host = strdup(host)))
        return SC_E_NOMEM;
    nr[s->n_replicas++].port = (uint16_t)port;
    return SC_OK;
}

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* The cluster's own settings, which Cluster.cpp erases from its keys by value (a repeat is
 * "secret[1]": it stays, and is an unknown element). */
static int cluster_setting(const char *key)
{
    return !strcmp(key, "secret") || !strcmp(key, "allow_distributed_ddl_queries");
}

/* Cluster::Cluster for the element cl at key `key` of remote_servers: out gets its shards when
 * keep is set (else the cluster is only built, for its refusals). */
static int build_cluster(const bctx *b, const cfg_node *cl, const char *key, sc_cluster *out, int keep)
{
    char prefix[512], sub[600], tmp[4096];
    join(prefix, sizeof prefix, "remote_servers", ".", key);
    const char *v;
    int rc = get_str(b, cl, "secret", prefix, tmp, sizeof tmp, &v);
    int allow;
    if (rc == SC_OK)
        rc = get_bool(b, cl, "allow_distributed_ddl_queries", prefix, &allow);
    if (rc != SC_OK)
        return rc;
    size_t n = cfg_n_kids(cl), n_keys = 0, named = 0;
    for (size_t i = 0; i < n; i++) {
        const cfg_node *k = cfg_kid(cl, i);
        if (!k)
            continue;
        cfg_key(cl, i, sub, sizeof sub);
        if (cluster_setting(sub))
            continue;
        n_keys++;
        named += cfg_child(k, "name") != NULL;
    }
    if (!n_keys) {
        char where[520];
        join(where, sizeof where, prefix, ".", "");
        return refuse(b, R_EMPTY, where);
    }
    if (named && named != n_keys)
        return refuse(b, R_NAMES, prefix);
    char **names = named ? calloc(named, sizeof *names) : NULL;
    if (named && !names)
        return SC_E_NOMEM;
    size_t n_names = 0;
    sc_shard *shards = NULL;
    size_t n_shards = 0;
    uint64_t total = 0;
    for (size_t i = 0; rc == SC_OK && i < n; i++) {
        const cfg_node *k = cfg_kid(cl, i);
        if (!k)
            continue;
        char kk[520];
        cfg_key(cl, i, kk, sizeof kk);
        if (cluster_setting(kk))
            continue;
        char kp[600];
        subkey(kp, sizeof kp, prefix, kk);
        int is_shard = starts(kk, "shard"), is_node = starts(kk, "node");
        if (!is_shard && !is_node) {
            rc = refuse(b, R_UNKNOWN, kp);
            break;
        }
        uint32_t w = 1;
        if ((rc = get_int(b, k, "weight", kp, &w)) != SC_OK)
            break;
        if (named) {
            if ((rc = get_str(b, k, "name", kp, tmp, sizeof tmp, &v)) != SC_OK)
                break;
            int dup = !v || !*v;
            for (size_t j = 0; !dup && j < n_names; j++)
                dup = !strcmp(names[j], v);
            if (dup) {
                rc = refuse(b, R_SHARD_NAME, kp);
                break;
            }
            if (!(names[n_names++] = strdup(v))) {
                rc = SC_E_NOMEM;
                break;
            }
        }
        sc_shard *ns = realloc(shards, (n_shards + 1) * sizeof *ns);
        if (!ns) {
            rc = SC_E_NOMEM;
            break;
        }
        shards = ns;
        sc_shard *s = &shards[n_shards++];
        memset(s, 0, sizeof *s);
        s->weight = w; /* getInt's bits as UInt32, as addShard takes them */
        s->internal_replication = 0; /* not read for a legacy <node> */
        if (is_node) {
            rc = add_replica(b, s, k, kp);
        } else {
            if ((rc = get_bool(b, k, "internal_replication", kp, &s->internal_replication)) != SC_OK)
                break;
            for (size_t j = 0; rc == SC_OK && j < cfg_n_kids(k); j++) {
                if (!cfg_kid(k, j))
                    continue;
                char rk[520], rp[600];
                cfg_key(k, j, rk, sizeof rk);
                subkey(rp, sizeof rp, kp, rk);
                if (starts(rk, "weight") || starts(rk, "internal_replication") || starts(rk, "name"))
                    continue;
                if (starts(rk, "replica"))
                    rc = add_replica(b, s, cfg_kid(k, j), rp);
                else
                    rc = refuse(b, R_UNKNOWN, rp);
            }
            if (rc == SC_OK && !s->n_replicas)
                rc = refuse(b, R_NO_REPLICA, kp);
        }
        if (rc == SC_OK && (int32_t)w < 0)
            rc = refuse(b, R_NEGATIVE, kp);
        total += (int32_t)w > 0 ? w : 0;
    }
    if (rc == SC_OK && !total)
        rc = refuse(b, R_ZERO, prefix);
    for (size_t i = 0; i < n_names; i++)
        free(names[i]);
    free(names);
    if (rc == SC_OK && keep) {
        out->shards = shards;
        out->n_shards = n_shards;
        return SC_OK;
    }
    for (size_t i = 0; i < n_shards; i++) {
        for (size_t j = 0; j < shards[i].n_replicas; j++)
            free(shards[i].replicas[j].host);
        free(shards[i].replicas);
    }
    free(shards);
    return rc;
}

static int load_xml(const char *path, const char *data, size_t len, const char *name, sc_cluster *out,
                    sc_err *err)
{
    cfg_node *root = NULL;
    int rc = cfg_load(path, data, len, &root, err);
    if (rc != SC_OK)
        return rc;
    bctx b = {root, path, err, 0, 0};
    const cfg_node *rs = cfg_child(root, "remote_servers");
    const cfg_node *tp[2] = {cfg_child(root, "tcp_port"), cfg_child(root, "tcp_port_secure")};
    uint32_t *tv[2] = {&b.tcp_port, &b.tcp_port_secure};
    for (int i = 0; i < 2 && rc == SC_OK; i++) {
        int r = tp[i] ? cfg_int(root, tp[i], tv[i]) : CFG_OK;
        if (r != CFG_OK) /* the server does not start: "Syntax error: Not a valid integer" */
            rc = read_failed(&b, r, cfg_name(tp[i]));
    }
    if (rc == SC_OK && rs && cfg_unresolved(rs)) {
        sc_err_set(err, "<remote_servers> uses a from_zk= substitution, which only a server with ZooKeeper "
                        "resolves; pass a system.clusters dump (TSVWithNames) from the server", path, 0, 0);
        rc = SC_E_INPUT;
    }
    int found = 0;
    char key[520];
    for (size_t i = 0; rc == SC_OK && i < cfg_n_kids(rs); i++) {
        const cfg_node *cl = cfg_kid(rs, i);
        if (!cl)
            continue;
        cfg_key(rs, i, key, sizeof key);
        int mine = !strcmp(key, name);
        if (cfg_child(cl, "discovery")) { /* ClusterDiscovery's: known at run time only */
            if (mine) {
                sc_err_set(err, "the cluster is found by <discovery> at run time: pass a system.clusters dump "
                                "(TSVWithNames) from a server", path, 0, 0);
                rc = SC_E_INPUT;
            }
            continue;
        }
        if (strchr(key, '.')) {
            char k2[540];
            subkey(k2, sizeof k2, "remote_servers", key);
            rc = refuse(&b, R_DOT, k2);
            break;
        }
        if (!mine && add_other(out, key) != 0) {
            rc = SC_E_NOMEM;
            break;
        }
        found |= mine;
        rc = build_cluster(&b, cl, key, out, mine);
    }
    if (rc == SC_OK && !found) {
        sc_err_set(err, rs ? "no such cluster in <remote_servers>" : "the config has no <remote_servers>", path, 0, 0);
        rc = SC_E_CHECK;
    }
    cfg_free(root);
    return rc;
}

/* ---- system.clusters, TSVWithNames ---- */

/* Splits one TSV line in place into at most max fields, unescaping \t \n \\ and friends. */
static size_t tsv_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *w = line, *start = line;
    for (char *r = line;; r++) {
        if (*r == '\t' || *r == 0) {
            int end = *r == 0;
            *w = 0;
            if (n < max)
                f[n] = start;
            n++;
            if (end)
                break;
            start = w = r + 1;
            continue;
        }
        if (*r == '\\' && r[1]) {
            r++;
            switch (*r) {
            case 't': *w++ = '\t'; break;
            case 'n': *w++ = '\n'; break;
            case 'r': *w++ = '\r'; break;
            case '0': *w++ = 0; break;
            default: *w++ = *r; break;
            }
        } else {
            *w++ = *r;
        }
    }
    return n;
}

static int load_tsv(const char *path, char *data, size_t len, const char *name, sc_cluster *out,
                    sc_err *err)
{
    enum { C_CLUSTER, C_SHARD, C_WEIGHT, C_IR, C_REPLICA, C_HOST, C_PORT, C_N };
    static const char *cols[C_N] = {"cluster", "shard_num", "shard_weight", "internal_replication",
                                    "replica_num", "host_name", "port"};
    int idx[C_N];
    for (int i = 0; i < C_N; i++)
        idx[i] = -1;
    (void)len;
    char *save = NULL, *line = strtok_r(data, "\n", &save);
    char *f[64];
    size_t nf = tsv_fields(line, f, 64);
    for (size_t i = 0; i < nf && i < 64; i++)
        for (int c = 0; c < C_N; c++)
            if (!strcmp(f[i], cols[c]))
                idx[c] = (int)i;
    for (int c = 0; c < C_N; c++)
        if (idx[c] < 0 && c != C_IR) {
            sc_err_set(err, "the system.clusters dump lacks a column it needs (cluster, shard_num, "
                            "shard_weight, replica_num, host_name, port); dump it with FORMAT TSVWithNames",
                       path, 1, 0);
            return SC_E_INPUT;
        }
    long lineno = 1;
    while ((line = strtok_r(NULL, "\n", &save))) {
        lineno++;
        nf = tsv_fields(line, f, 64);
        int maxi = 0;
        for (int c = 0; c < C_N; c++)
            if (idx[c] > maxi)
                maxi = idx[c];
        if (nf <= (size_t)maxi) {
            sc_err_set(err, "a row of the system.clusters dump has too few columns", path, lineno, 0);
            return SC_E_INPUT;
        }
        if (strcmp(f[idx[C_CLUSTER]], name) != 0) {
            if (add_other(out, f[idx[C_CLUSTER]]) != 0)
                return SC_E_NOMEM;
            continue;
        }
        unsigned long shard, weight, port, replica;
        int ir = -1;
        if (parse_uint(f[idx[C_SHARD]], 1000000, &shard) != 0 || shard == 0 ||
            parse_uint(f[idx[C_WEIGHT]], 0xffffffffUL, &weight) != 0 ||
            parse_uint(f[idx[C_REPLICA]], 1000000, &replica) != 0 ||
            parse_uint(f[idx[C_PORT]], 65535, &port) != 0 ||
            (idx[C_IR] >= 0 && parse_bool(f[idx[C_IR]], &ir) != 0)) {
            sc_err_set(err, "a row of the system.clusters dump has a non-numeric shard_num, shard_weight, "
                            "replica_num, port or internal_replication",
                       path, lineno, 0);
            return SC_E_INPUT;
        }
        if (shard > out->n_shards) {
            sc_shard *ns = realloc(out->shards, shard * sizeof *ns);
            if (!ns)
                return SC_E_NOMEM;
            memset(ns + out->n_shards, 0, (shard - out->n_shards) * sizeof *ns);
            for (size_t i = out->n_shards; i < shard; i++)
                ns[i].internal_replication = -2; /* marks "no row seen yet" */
            out->shards = ns;
            out->n_shards = shard;
        }
        sc_shard *s = &out->shards[shard - 1];
        s->weight = (unsigned)weight;
        s->internal_replication = ir;
        sc_replica *nr = realloc(s->replicas, (s->n_replicas + 1) * sizeof *nr);
        if (!nr)
            return SC_E_NOMEM;
        s->replicas = nr;
        if (!(nr[s->n_replicas].host = strdup(f[idx[C_HOST]])))
            return SC_E_NOMEM;
        nr[s->n_replicas++].port = (unsigned)port;
    }
    if (!out->n_shards) {
        sc_err_set(err, "no such cluster in the system.clusters dump", path, 0, 0);
        return SC_E_CHECK;
    }
    for (size_t i = 0; i < out->n_shards; i++)
        if (out->shards[i].internal_replication == -2) {
            sc_err_set(err, "the system.clusters dump skips a shard_num (rows for it are missing)", path, 0, 0);
            return SC_E_INPUT;
        }
    return SC_OK;
}

int sc_layout_load(const char *path, const char *name, sc_cluster *out, sc_err *err)
{
    memset(out, 0, sizeof *out);
    if (!(out->name = strdup(name)))
        return SC_E_NOMEM;
    int rc;
    if (cfg_is_dir(path)) {
        rc = load_xml(path, NULL, 0, name, out, err);
    } else {
        char *data;
        size_t len;
        if (cfg_read_file(path, &data, &len, err) != 0)
            return SC_E_INPUT;
        if (cfg_looks_xml(data, len)) {
            rc = load_xml(path, data, len, name, out, err);
        } else if (len >= 8 && !memcmp(data, "cluster\t", 8) && !memchr(data, 0, len)) {
            rc = load_tsv(path, data, len, name, out, err);
        } else {
            sc_err_set(err, "neither a server config (XML) nor a system.clusters dump (TSVWithNames)", path, 1, 1);
            rc = SC_E_INPUT;
        }
        free(data);
    }
    return rc;
}

void sc_cluster_free(sc_cluster *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_shards; i++) {
        for (size_t j = 0; j < c->shards[i].n_replicas; j++)
            free(c->shards[i].replicas[j].host);
        free(c->shards[i].replicas);
    }
    free(c->shards);
    for (size_t i = 0; i < c->n_others; i++)
        free(c->others[i]);
    free(c->others);
    free(c->name);
    memset(c, 0, sizeof *c);
}

void sc_fput_escaped(const char *s, FILE *out)
{
    for (; *s; s++) {
        const char *e = NULL;
        switch (*s) {
        case '\\': e = "\\\\"; break;
        case '\t': e = "\\t"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        }
        if (e)
            fputs(e, out);
        else
            fputc(*s, out);
    }
}

size_t sc_layout_check(const sc_cluster *c, int replicated, FILE *out)
{
    size_t problems = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < c->n_shards; i++)
        total += c->shards[i].weight;
    if (total == 0) {
        fprintf(out, "cluster %s: every shard has weight 0: no shard can take a row (ClickHouse refuses "
                     "such a cluster: \"zero weight on all shards is prohibited\")\n", c->name);
        problems++;
    }
    if (total > SC_SLOT_TABLE_MAX) {
        /* Cluster.cpp expands the weights into a slot table, one 8-byte entry per unit of weight */
        fprintf(out, "cluster %s: the weights sum to %llu: every server builds a slot table of that many "
                     "8-byte entries (%.1f GiB) for this cluster, and one this size can exhaust its memory; "
                     "only the weights' ratios matter, so divide them by a common factor\n",
                c->name, (unsigned long long)total, (double)total * 8 / (1 << 30));
        problems++;
    }
    for (size_t i = 0; i < c->n_shards; i++)
        for (size_t j = 0; j < c->shards[i].n_replicas; j++) {
            const sc_replica *r = &c->shards[i].replicas[j];
            int first = 1;
            for (size_t k = 0; k <= i && first; k++)
                for (size_t l = 0; l < (k == i ? j : c->shards[k].n_replicas); l++)
                    if (c->shards[k].replicas[l].port == r->port &&
                        !strcasecmp(c->shards[k].replicas[l].host, r->host)) {
                        fprintf(out, "cluster %s: ", c->name);
                        sc_fput_escaped(r->host, out);
                        fprintf(out, ":%u is listed twice (shard %zu and shard %zu): one server "
                                     "would hold two shards' rows in the same local table, so an order's "
                                     "versions could meet or be counted twice\n",
                                r->port, k + 1, i + 1);
                        problems++;
                        first = 0;
                        break;
                    }
        }
    for (size_t i = 0; i < c->n_shards; i++) {
        const sc_shard *s = &c->shards[i];
        if (s->n_replicas < 2)
            continue;
        if (replicated == 1 && s->internal_replication == 0) {
            fprintf(out, "cluster %s: shard %zu has %zu replicas without internal_replication while the "
                         "tables are Replicated*: the Distributed table writes every row to each replica "
                         "and replication copies it again\n", c->name, i + 1, s->n_replicas);
            problems++;
        } else if (replicated == 0 && s->internal_replication == 1) {
            fprintf(out, "cluster %s: shard %zu has %zu replicas with internal_replication but the tables "
                         "are not Replicated*: each row reaches one replica only and the replicas "
                         "diverge\n", c->name, i + 1, s->n_replicas);
            problems++;
        }
    }
    return problems;
}

void sc_layout_report(const sc_cluster *c, FILE *out)
{
    uint64_t total = 0;
    for (size_t i = 0; i < c->n_shards; i++)
        total += c->shards[i].weight;
    fputs("cluster ", out);
    sc_fput_escaped(c->name, out);
    fprintf(out, ": %zu shards, total weight %llu", c->n_shards, (unsigned long long)total);
    if (total)
        fprintf(out, " (a row goes to the shard owning slot cityHash64(key) %% %llu)\n", (unsigned long long)total);
    else
        fputs(" (no slots: no shard can take a row)\n", out);
    uint64_t at = 0;
    for (size_t i = 0; i < c->n_shards; i++) {
        const sc_shard *s = &c->shards[i];
        fprintf(out, "shard %zu\tweight %u\t", i + 1, s->weight);
        if (s->weight == 1)
            fprintf(out, "slot %llu\t", (unsigned long long)at);
        else if (s->weight)
            fprintf(out, "slots %llu-%llu\t", (unsigned long long)at, (unsigned long long)(at + s->weight - 1));
        else
            fprintf(out, "slots none\t");
        at += s->weight;
        fprintf(out, "internal_replication %s\treplicas",
                s->internal_replication < 0 ? "unknown" : s->internal_replication ? "true" : "false");
        for (size_t j = 0; j < s->n_replicas; j++) {
            fputc(' ', out);
            sc_fput_escaped(s->replicas[j].host, out);
            fprintf(out, ":%u", s->replicas[j].port);
        }
        fputc('\n', out);
    }
}
