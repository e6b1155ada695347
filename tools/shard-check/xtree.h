/* xtree.h: the red-black tree behind libc++'s std::multimap, node for node, so that find() returns
 * the same one of several equal keys as the ClickHouse server's config merge does. */
#ifndef SC_XTREE_H
#define SC_XTREE_H

#include <stddef.h>

/* Why a copy of a standard container: ConfigProcessor::mergeRecursive matches a merge file's
 * element to a target through std::multimap::find, and since libc++ 21 find() stops at the first
 * equal key met on the way down from the root, not at the first inserted. Which of several
 * same-named <shard>s a merge file's <shard> lands on thus depends on the tree's shape, which this
 * reproduces with libc++'s own insert, rebalance and erase steps. */

typedef struct xt_node {
    struct xt_node *left, *right, *parent; /* the root's parent is the tree's end node */
    int black;
    const void *key;
    size_t value;
} xt_node;

typedef int (*xt_less)(const void *a, const void *b); /* strict weak order: a < b */

typedef struct {
    xt_node end;   /* end.left is the root, as in libc++ */
    xt_node *pool; /* caller-owned storage for cap nodes */
    size_t used, cap;
    xt_less less;
} xt_tree;

/* pool must hold cap nodes and outlive the tree; nothing is allocated here. */
void xt_init(xt_tree *t, xt_node *pool, size_t cap, xt_less less);

/* multimap::insert: after every equal key already there. Returns the node, NULL when pool is full. */
xt_node *xt_insert(xt_tree *t, const void *key, size_t value);

/* multimap::find as libc++ 21 does it: the first equal node on the path from the root, or NULL. */
xt_node *xt_find(const xt_tree *t, const void *key);

/* multimap::erase(iterator). */
void xt_erase(xt_tree *t, xt_node *n);

/* For tests: 1 when the red-black invariants hold (parent links, black root, no red-red, equal
 * black heights), else 0. */
int xt_valid(const xt_tree *t);

#endif
