/* test_xtree.c: the libc++ multimap copy behind config merging: the engine's observed choice among
 * equal keys, and the red-black invariants and multimap order under random inserts and erases. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "xtree.h"

static int int_less(const void *a, const void *b) { return *(const int *)a < *(const int *)b; }

/* In-order walk: the keys ascending, equal keys in insertion order (multimap's guarantee). */
static int walk(const xt_node *n, const xt_node **prev)
{
    if (!n)
        return 1;
    if (!walk(n->left, prev))
        return 0;
    if (*prev) {
        int a = *(const int *)(*prev)->key, b = *(const int *)n->key;
        if (a > b || (a == b && (*prev)->value > n->value))
            return 0;
    }
    *prev = n;
    return walk(n->right, prev);
}

int main(void)
{
    /* N shards with equal identifiers, a merge file with N same-named <shard>s: the k-th lands
     * on base shard want[k], as system.clusters of the embedded engine shows (shard-check.bats
     * proves more sizes end to end). libc++ before 21 would give 1, 2, ..., N. */
    static const int want[7][7] = {
        {0}, {1}, {1, 2}, {2, 3, 1}, {2, 3, 4, 1}, {2, 3, 4, 5, 1}, {2, 3, 4, 5, 6, 1},
    };
    for (int n = 1; n <= 6; n++) {
        xt_node pool[8];
        xt_tree t;
        int same = 7;
        xt_init(&t, pool, 8, int_less);
        for (int i = 1; i <= n; i++)
            CHECK(xt_insert(&t, &same, (size_t)i) != NULL);
        for (int k = 0; k < n; k++) {
            xt_node *hit = xt_find(&t, &same);
            CHECK(hit != NULL);
            if (!hit)
                break;
            CHECK_EQ_INT(hit->value, want[n][k]);
            xt_erase(&t, hit);
            CHECK(xt_valid(&t));
        }
        CHECK(xt_find(&t, &same) == NULL);
    }
    /* a full pool refuses instead of overrunning */
    {
        xt_node pool[1];
        xt_tree t;
        int k = 1;
        xt_init(&t, pool, 1, int_less);
        CHECK(xt_insert(&t, &k, 0) != NULL);
        CHECK(xt_insert(&t, &k, 1) == NULL);
    }
    /* random workloads with many duplicates */
    srand(12345);
    int bad = 0;
    for (int round = 0; round < 300 && !bad; round++) {
        enum { CAP = 200 };
        static int keys[CAP];
        xt_node pool[CAP];
        xt_tree t;
        xt_init(&t, pool, CAP, int_less);
        int range = 1 + rand() % 20, live = 0;
        for (int i = 0; i < CAP; i++) {
            keys[i] = rand() % range;
            if (!xt_insert(&t, &keys[i], (size_t)i))
                bad = 1;
            live++;
            const xt_node *prev = NULL;
            if (!xt_valid(&t) || !walk(t.end.left, &prev))
                bad = 1;
            if (rand() % 3 == 0) {
                int probe = rand() % range;
                xt_node *hit = xt_find(&t, &probe);
                if (hit) {
                    if (*(const int *)hit->key != probe)
                        bad = 1;
                    xt_erase(&t, hit);
                    live--;
                    prev = NULL;
                    if (!xt_valid(&t) || !walk(t.end.left, &prev))
                        bad = 1;
                }
            }
        }
        (void)live;
    }
    CHECK(!bad);
    return check_report();
}
