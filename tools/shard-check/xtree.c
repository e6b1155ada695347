/* xtree.c: libc++'s red-black tree steps (insert after equals, rebalance, erase, find) in C, for
 * the config merge's element matching; see xtree.h for why it must be this tree and no other. */
#include "xtree.h"

#include <string.h>

static int is_left(const xt_node *x) { return x == x->parent->left; }

static xt_node *tree_min(xt_node *x)
{
    while (x->left)
        x = x->left;
    return x;
}

static xt_node *tree_next(xt_node *x)
{
    if (x->right)
        return tree_min(x->right);
    while (!is_left(x))
        x = x->parent;
    return x->parent;
}

static void rotate_left(xt_node *x)
{
    xt_node *y = x->right;
    x->right = y->left;
    if (x->right)
        x->right->parent = x;
    y->parent = x->parent;
    if (is_left(x))
        x->parent->left = y;
    else
        x->parent->right = y;
    y->left = x;
    x->parent = y;
}

static void rotate_right(xt_node *x)
{
    xt_node *y = x->left;
    x->left = y->right;
    if (x->left)
        x->left->parent = x;
    y->parent = x->parent;
    if (is_left(x))
        x->parent->left = y;
    else
        x->parent->right = y;
    y->right = x;
    x->parent = y;
}

static void balance_after_insert(xt_node *root, xt_node *x)
{
    x->black = x == root;
    while (x != root && !x->parent->black) {
        int parent_left = is_left(x->parent);
        xt_node *y = parent_left ? x->parent->parent->right : x->parent->parent->left;
        if (y && !y->black) {
            x = x->parent;
            x->black = 1;
            x = x->parent;
            x->black = x == root;
            y->black = 1;
            continue;
        }
        if (parent_left != is_left(x)) {
            x = x->parent;
            if (parent_left)
                rotate_left(x);
            else
                rotate_right(x);
        }
        x = x->parent;
        x->black = 1;
        x = x->parent;
        x->black = 0;
        if (parent_left)
            rotate_right(x);
        else
            rotate_left(x);
        break;
    }
}

/* libc++'s __tree_remove: y is z or z's successor, whichever has at most one child. */
static void tree_remove(xt_node *root, xt_node *z)
{
    xt_node *y = (!z->left || !z->right) ? z : tree_next(z);
    xt_node *x = y->left ? y->left : y->right;
    xt_node *w = NULL;
    if (x)
        x->parent = y->parent;
    if (is_left(y)) {
        y->parent->left = x;
        if (y != root)
            w = y->parent->right;
        else
            root = x;
    } else {
        y->parent->right = x;
        w = y->parent->left;
    }
    int removed_black = y->black;
    if (y != z) {
        y->parent = z->parent;
        if (is_left(z))
            y->parent->left = y;
        else
            y->parent->right = y;
        y->left = z->left;
        y->left->parent = y;
        y->right = z->right;
        if (y->right)
            y->right->parent = y;
        y->black = z->black;
        if (root == z)
            root = y;
    }
    if (!removed_black || !root)
        return;
    if (x) {
        x->black = 1;
        return;
    }
    for (;;) {
        if (!is_left(w)) { /* x is a left child */
            if (!w->black) {
                w->black = 1;
                w->parent->black = 0;
                rotate_left(w->parent);
                if (root == w->left)
                    root = w;
                w = w->left->right;
            }
            if ((!w->left || w->left->black) && (!w->right || w->right->black)) {
                w->black = 0;
                x = w->parent;
                if (x == root || !x->black) {
                    x->black = 1;
                    break;
                }
                w = is_left(x) ? x->parent->right : x->parent->left;
            } else {
                if (!w->right || w->right->black) {
                    w->left->black = 1;
                    w->black = 0;
                    rotate_right(w);
                    w = w->parent;
                }
                w->black = w->parent->black;
                w->parent->black = 1;
                w->right->black = 1;
                rotate_left(w->parent);
                break;
            }
        } else {
            if (!w->black) {
                w->black = 1;
                w->parent->black = 0;
                rotate_right(w->parent);
                if (root == w->right)
                    root = w;
                w = w->right->left;
            }
            if ((!w->left || w->left->black) && (!w->right || w->right->black)) {
                w->black = 0;
                x = w->parent;
                if (!x->black || x == root) {
                    x->black = 1;
                    break;
                }
                w = is_left(x) ? x->parent->right : x->parent->left;
            } else {
                if (!w->left || w->left->black) {
                    w->right->black = 1;
                    w->black = 0;
                    rotate_left(w);
                    w = w->parent;
                }
                w->black = w->parent->black;
                w->parent->black = 1;
                w->left->black = 1;
                rotate_right(w->parent);
                break;
            }
        }
    }
}

void xt_init(xt_tree *t, xt_node *pool, size_t cap, xt_less less)
{
    memset(&t->end, 0, sizeof t->end);
    t->pool = pool;
    t->used = 0;
    t->cap = cap;
    t->less = less;
}

xt_node *xt_insert(xt_tree *t, const void *key, size_t value)
{
    if (t->used == t->cap)
        return NULL;
    xt_node *n = &t->pool[t->used++];
    memset(n, 0, sizeof *n);
    n->key = key;
    n->value = value;
    xt_node *parent = &t->end, **slot = &t->end.left;
    for (xt_node *nd = t->end.left; nd;) {
        parent = nd;
        if (t->less(key, nd->key)) {
            slot = &nd->left;
            nd = nd->left;
        } else {
            slot = &nd->right;
            nd = nd->right;
        }
    }
    n->parent = parent;
    *slot = n;
    balance_after_insert(t->end.left, n);
    return n;
}

xt_node *xt_find(const xt_tree *t, const void *key)
{
    for (xt_node *nd = t->end.left; nd;) {
        if (t->less(key, nd->key))
            nd = nd->left;
        else if (t->less(nd->key, key))
            nd = nd->right;
        else
            return nd;
    }
    return NULL;
}

void xt_erase(xt_tree *t, xt_node *n) { tree_remove(t->end.left, n); }

static int black_height(const xt_node *x)
{
    if (!x)
        return 1;
    if ((x->left && x->left->parent != x) || (x->right && x->right->parent != x))
        return 0;
    if (!x->black && ((x->left && !x->left->black) || (x->right && !x->right->black)))
        return 0;
    int l = black_height(x->left);
    if (!l || l != black_height(x->right))
        return 0;
    return l + x->black;
}

int xt_valid(const xt_tree *t)
{
    const xt_node *r = t->end.left;
    if (!r)
        return 1;
    return r->parent == &t->end && r->black && black_height(r) != 0;
}
