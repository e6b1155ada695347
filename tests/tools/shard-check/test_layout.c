/* test_layout.c: cluster layouts from the fixtures (XML, legacy root, config.d merge, a
 * system.clusters dump the engine wrote) and each layout check; shard lists as the engine
 * reported them in system.clusters for the same configs. */
#include <stdlib.h>

#include "check.h"
#include "layout.h"

#define FIX ODS_SOURCE_DIR "/tests/fixtures/shard/"

static size_t problems(const char *path, const char *name, int replicated, char **text)
{
    sc_cluster c;
    sc_err e = {0};
    size_t len = 0, n = (size_t)-1;
    FILE *m = open_memstream(text, &len);
    if (sc_layout_load(path, name, &c, &e) == SC_OK)
        n = sc_layout_check(&c, replicated, m);
    fclose(m);
    sc_cluster_free(&c);
    return n;
}

int main(void)
{
    sc_cluster c;
    sc_err e = {0};

    CHECK_EQ_INT(sc_layout_load(FIX "w305.xml", "w305", &c, &e), SC_OK);
    CHECK_EQ_INT(c.n_shards, 3);
    CHECK_EQ_INT(c.shards[0].weight, 3);
    CHECK_EQ_INT(c.shards[1].weight, 0);
    CHECK_EQ_INT(c.shards[2].weight, 5);
    CHECK_EQ_STR(c.shards[2].replicas[0].host, "127.0.0.4");
    CHECK_EQ_INT(c.shards[2].replicas[0].port, 1);
    CHECK_EQ_INT(c.shards[0].internal_replication, 0);
    sc_cluster_free(&c);

    CHECK_EQ_INT(sc_layout_load(FIX "w305.xml", "even3", &c, &e), SC_OK);
    CHECK_EQ_INT(c.n_shards, 3);
    CHECK_EQ_INT(c.shards[1].weight, 1); /* <weight> absent: 1 */
    sc_cluster_free(&c);

    CHECK_EQ_INT(sc_layout_load(FIX "w305.xml", "nope", &c, &e), SC_E_CHECK);
    CHECK_EQ_INT(c.n_others, 2);
    sc_cluster_free(&c);

    CHECK_EQ_INT(sc_layout_load(FIX "legacy-yandex.xml", "legacy", &c, &e), SC_OK);
    CHECK_EQ_INT(c.n_shards, 2);
    CHECK_EQ_INT(c.shards[0].weight, 2);
    CHECK_EQ_INT(c.shards[0].replicas[0].port, 9440);
    sc_cluster_free(&c);

    /* <node> directly in the cluster: a one-replica shard each (system.clusters agrees) */
    CHECK_EQ_INT(sc_layout_load(FIX "nodes.xml", "nodes", &c, &e), SC_OK);
    CHECK_EQ_INT(c.n_shards, 2);
    CHECK_EQ_INT(c.shards[0].weight, 2);
    CHECK_EQ_INT(c.shards[1].weight, 1);
    CHECK_EQ_STR(c.shards[1].replicas[0].host, "127.0.0.3");
    sc_cluster_free(&c);

    /* config.xml + config.d/: the engine showed ods_cluster with weights 1 and 3 and no old_cluster */
    const char *dirs[] = {FIX "confdir", FIX "confdir/config.xml"};
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(sc_layout_load(dirs[i], "ods_cluster", &c, &e), SC_OK);
        CHECK_EQ_INT(c.n_shards, 2);
        CHECK_EQ_INT(c.shards[0].weight, 1);
        CHECK_EQ_INT(c.shards[1].weight, 3);
        CHECK_EQ_INT(c.shards[1].n_replicas, 2);
        CHECK_EQ_STR(c.shards[1].replicas[1].host, "ch-2b");
        sc_cluster_free(&c);
        CHECK_EQ_INT(sc_layout_load(dirs[i], "old_cluster", &c, &e), SC_E_CHECK);
        sc_cluster_free(&c);
    }

    /* An empty config.d/ (regression: sorting its empty file list was a qsort of NULL, which
     * UBSan stops on): the main file alone decides. */
    {
        char dir[] = "/tmp/test_layout.XXXXXX", path[256], cmd[600];
        CHECK(mkdtemp(dir) != NULL);
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/config.d' && cp '%sw305.xml' '%s/config.xml'", dir, FIX, dir);
        CHECK_EQ_INT(system(cmd), 0);
        snprintf(path, sizeof path, "%s/config.xml", dir);
        CHECK_EQ_INT(sc_layout_load(path, "w305", &c, &e), SC_OK);
        CHECK_EQ_INT(c.n_shards, 3);
        sc_cluster_free(&c);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK_EQ_INT(system(cmd), 0);
    }

    /* the engine's own system.clusters for clickhouse-config/cluster.example.xml */
    CHECK_EQ_INT(sc_layout_load(FIX "clusters.tsv", "ods_cluster", &c, &e), SC_OK);
    CHECK_EQ_INT(c.n_shards, 3);
    CHECK_EQ_INT(c.shards[2].weight, 2);
    CHECK_EQ_INT(c.shards[2].n_replicas, 2);
    CHECK_EQ_INT(c.shards[2].internal_replication, 1);
    CHECK_EQ_STR(c.shards[2].replicas[1].host, "ch-ods-3b.internal");
    sc_cluster_free(&c);
    CHECK_EQ_INT(sc_layout_load(ODS_SOURCE_DIR "/clickhouse-config/cluster.example.xml", "ods_cluster", &c, &e),
                 SC_OK);
    CHECK_EQ_INT(c.n_shards, 3);
    sc_cluster_free(&c);

    /* unreadable input */
    CHECK_EQ_INT(sc_layout_load(FIX "malformed.xml", "broken", &c, &e), SC_E_INPUT);
    CHECK_EQ_STR(e.msg, "mismatched tag");
    CHECK_EQ_INT(e.line, 5);
    sc_cluster_free(&c);
    CHECK_EQ_INT(sc_layout_load(FIX "wrong-root.xml", "x", &c, &e), SC_E_INPUT);
    sc_cluster_free(&c);
    CHECK_EQ_INT(sc_layout_load(FIX "does-not-exist.xml", "x", &c, &e), SC_E_INPUT);
    sc_cluster_free(&c);
    CHECK_EQ_INT(sc_layout_load(FIX "ddl/good-cluster.sql", "x", &c, &e), SC_E_INPUT);
    sc_cluster_free(&c);

    /* the checks */
    char *t = NULL;
    CHECK_EQ_INT(problems(FIX "w305.xml", "w305", -1, &t), 0);
    free(t);
    /* all-zero weights: the server refuses the whole config; a dump (or a layout built otherwise)
     * with them still fails the check */
    CHECK_EQ_INT(sc_layout_load(FIX "zero.xml", "zero", &c, &e), SC_E_REFUSED);
    CHECK(strstr(e.msg, "zero weight on all shards") != NULL);
    CHECK_EQ_STR(e.where, FIX "zero.xml, remote_servers.zero");
    sc_cluster_free(&c);
    {
        sc_replica r[2] = {{"a", 9000}, {"b", 9000}};
        sc_shard sh[2] = {{0, 0, 1, &r[0]}, {0, 0, 1, &r[1]}};
        sc_cluster z = {"zero", 2, sh, NULL, 0};
        FILE *m = open_memstream(&t, &(size_t){0});
        CHECK_EQ_INT((int)sc_layout_check(&z, -1, m), 1);
        fclose(m);
        CHECK(strstr(t, "weight 0") != NULL);
        free(t);
    }
    CHECK_EQ_INT(problems(FIX "dup.xml", "dup", 1, &t), 1);
    CHECK(strstr(t, "CH-2:9000 is listed twice") != NULL);
    free(t);
    CHECK_EQ_INT(problems(FIX "no-internal-replication.xml", "norepl", -1, &t), 0);
    free(t);
    CHECK_EQ_INT(problems(FIX "no-internal-replication.xml", "norepl", 1, &t), 2);
    CHECK(strstr(t, "without internal_replication") != NULL);
    free(t);
    CHECK_EQ_INT(problems(ODS_SOURCE_DIR "/clickhouse-config/cluster.example.xml", "ods_cluster", 1, &t), 0);
    free(t);
    CHECK_EQ_INT(problems(ODS_SOURCE_DIR "/clickhouse-config/cluster.example.xml", "ods_cluster", 0, &t), 3);
    free(t);
    return check_report();
}
