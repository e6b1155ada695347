/* verify.c: one open-addressing table keyed by the order's own cityHash64 (already computed for
 * routing), keys kept in an arena; bad orders are reported in the order first seen. */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t h;
    uint64_t key_off;
    uint32_t key_len;
    uint32_t expected; /* routed shard, 1-based; 0 marks an empty slot */
    uint64_t seen;     /* bit s-1 for each shard s <= 64 the order was found on */
    uint64_t seq;
    uint32_t over64;   /* a shard number above 64 was seen (kept as the largest) */
} entry;

typedef struct {
    entry *e;
    size_t cap, used;
    char *arena;
    size_t alen, acap;
} table;

static int grow(table *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 1 << 16;
    entry *ne = calloc(ncap, sizeof *ne);
    if (!ne)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->e[i].expected)
            continue;
        size_t j = t->e[i].h & (ncap - 1);
        while (ne[j].expected)
            j = (j + 1) & (ncap - 1);
        ne[j] = t->e[i];
    }
    free(t->e);
    t->e = ne;
    t->cap = ncap;
    return 0;
}

static entry *lookup(table *t, uint64_t h, const char *k, size_t n, int *fresh)
{
    if ((t->used + 1) * 2 > t->cap && grow(t) != 0)
        return NULL;
    size_t j = h & (t->cap - 1);
    while (t->e[j].expected) {
        entry *e = &t->e[j];
        if (e->h == h && e->key_len == n && !memcmp(t->arena + e->key_off, k, n)) {
            *fresh = 0;
            return e;
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (t->alen + n > t->acap) {
        size_t nc = t->acap ? t->acap : 1 << 20;
        while (nc < t->alen + n)
            nc *= 2;
        char *na = realloc(t->arena, nc);
        if (!na)
            return NULL;
        t->arena = na;
        t->acap = nc;
    }
    memcpy(t->arena + t->alen, k, n);
    entry *e = &t->e[j];
    e->h = h;
    e->key_off = t->alen;
    e->key_len = (uint32_t)n;
    t->alen += n;
    t->used++;
    *fresh = 1;
    return e;
}

static void put_escaped(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '\t': fputs("\\t", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\\': fputs("\\\\", out); break;
        case 0: fputs("\\0", out); break;
        default: fputc(s[i], out);
        }
    }
}

static int by_seq(const void *a, const void *b)
{
    const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int sc_verify_stream(FILE *in, FILE *out, const sc_keytype *kt, const sc_slots *slots,
                     sc_verify_stats *st, sc_err *err)
{
    memset(st, 0, sizeof *st);
    table t = {0};
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    long lineno = 0;
    int rc = SC_OK;
    while ((len = getline(&line, &lcap, in)) >= 0) {
        lineno++;
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        char *tab = memchr(line, '\t', (size_t)len);
        const char *num = tab ? tab + 1 : NULL;
        unsigned long shard = 0;
        int ok = num && *num;
        for (const char *q = num; ok && *q; q++) {
            if (*q < '0' || *q > '9' || shard > 100000000UL)
                ok = 0;
            else
                shard = shard * 10 + (unsigned long)(*q - '0');
        }
        if (!ok || shard == 0) {
            if (lineno == 1 && tab) /* a TSVWithNames header */
                continue;
            sc_err_set(err, "a row is not order_id<TAB>shard_num (shard_num a whole number >= 1)", "input",
                       lineno, 0);
            rc = SC_E_INPUT;
            break;
        }
        const char *why = NULL;
        uint64_t h;
        long kl = sc_tsv_unescape(line, (size_t)(tab - line), line, &why);
        if (kl < 0 || sc_key_hash_text(kt, line, (size_t)kl, &h, &why) != 0) {
            sc_err_set(err, why, "input", lineno, 0);
            rc = SC_E_INPUT;
            break;
        }
        int fresh;
        entry *e = lookup(&t, h, line, (size_t)kl, &fresh);
        if (!e) {
            rc = SC_E_NOMEM;
            break;
        }
        if (fresh) {
            e->expected = sc_slots_shard(slots, h);
            e->seq = st->orders++;
        }
        if (shard <= 64)
            e->seen |= (uint64_t)1 << (shard - 1);
        else if (shard > e->over64)
            e->over64 = (uint32_t)shard;
        st->rows++;
    }
    free(line);
    if (rc == SC_OK && ferror(in)) {
        sc_err_set(err, "cannot read the input", "input", lineno, 0);
        rc = SC_E_INPUT;
    }
    entry **bad = NULL;
    size_t nbad = 0;
    if (rc == SC_OK) {
        bad = malloc((t.used ? t.used : 1) * sizeof *bad);
        if (!bad)
            rc = SC_E_NOMEM;
        for (size_t i = 0; bad && i < t.cap; i++) {
            entry *e = &t.e[i];
            if (!e->expected)
                continue;
            int n_on = __builtin_popcountll(e->seen) + (e->over64 != 0);
            if (n_on > 1)
                st->split++;
            else if (e->over64 || e->seen != (uint64_t)1 << (e->expected - 1))
                st->misplaced++;
            else
                continue;
            bad[nbad++] = e;
        }
    }
    if (bad) {
        qsort(bad, nbad, sizeof *bad, by_seq);
        for (size_t i = 0; i < nbad; i++) {
            entry *e = bad[i];
            put_escaped(out, t.arena + e->key_off, e->key_len);
            fputc('\t', out);
            const char *sep = "";
            for (unsigned s = 0; s < 64; s++)
                if (e->seen >> s & 1) {
                    fprintf(out, "%s%u", sep, s + 1);
                    sep = ",";
                }
            if (e->over64)
                fprintf(out, "%s%u", sep, e->over64);
            fprintf(out, "\t%u\n", e->expected);
        }
    }
    free(bad);
    free(t.e);
    free(t.arena);
    return rc;
}
