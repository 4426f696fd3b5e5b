/*
** A symmetric permutation that narrows a pattern's band: the reverse
** Cuthill-McKee ordering (Cuthill & McKee, "Reducing the bandwidth of
** sparse symmetric matrices", Proc. 24th ACM National Conference, 1969;
** reversed as in George & Liu, "Computer Solution of Large Sparse Positive
** Definite Systems", Prentice-Hall 1981, ch. 4) of the graph of A + A^T.
**
** Per connected component (taken in order of their lowest-numbered node):
** a pseudo-peripheral start node by George & Liu's algorithm (sec. 4.3.2:
** the rooted level structure of r; a node of minimum degree in its last
** level becomes r while that lengthens the structure), then a breadth-first
** search from it that numbers the unnumbered neighbours of each node in
** order of increasing degree (Cuthill-McKee); the whole order is reversed
** at the end. The work is O(nnz) per level structure, a few of them per
** component.
**
** The band solver then factors P A P^T: entry (i, j) of A is entry
** (new_of_old[i], new_of_old[j]) of the permuted matrix, whose bandwidths
** ml, mu are those of the permuted (unsymmetric) pattern.
*/
#include "linalg/backends.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

/* The graph of A + A^T without the diagonal: the neighbours of node i are
** adj[start[i] .. start[i + 1]), sorted, without duplicates. */
typedef struct sym_graph {
    size_t n;
    int64_t *start;
    int64_t *adj;
} sym_graph;

static void graph_free(sym_graph *g)
{
    hy_free(g->start);
    hy_free(g->adj);
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sorted, duplicates removed: the new length. */
static size_t sort_unique(int64_t *v, size_t len)
{
    qsort(v, len, sizeof *v, compare_int64);
    size_t kept = 0;
    for (size_t k = 0; k < len; k++)
        if (kept == 0 || v[k] != v[kept - 1])
            v[kept++] = v[k];
    return kept;
}

static int graph_build(sym_graph *g, const hy_pattern *p)
{
    const size_t n = p->n;
    memset(g, 0, sizeof *g);
    g->n = n;
    size_t bytes; /* both directions of each entry: 2 nnz bounds the lists */
    if (hy_mul_size(p->nnz, 2 * sizeof(int64_t), &bytes))
        return -1;
    g->start = hy_calloc(n + 2, sizeof(int64_t));
    g->adj = hy_malloc(bytes > 0 ? bytes : 1);
    if (!g->start || !g->adj)
        return -1;
    /* Count, then place each (i, j), i != j, in the lists of i and of j. */
    int64_t *fill = g->start + 1;
    for (size_t j = 0; j < n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            if (i != j) {
                fill[i]++;
                fill[j]++;
            }
        }
    for (size_t i = 0; i < n; i++)
        g->start[i + 1] += g->start[i];
    int64_t *next = hy_malloc((n > 0 ? n : 1) * sizeof(int64_t));
    if (!next)
        return -1;
    memcpy(next, g->start, n * sizeof(int64_t));
    for (size_t j = 0; j < n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            if (i != j) {
                g->adj[next[i]++] = (int64_t)j;
                g->adj[next[j]++] = (int64_t)i;
            }
        }
    hy_free(next);
    /* Both (i, j) and (j, i) in A give each neighbour twice: compact. */
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t from = g->start[i];
        size_t len = sort_unique(g->adj + from, (size_t)(g->start[i + 1] - from));
        memmove(g->adj + at, g->adj + from, len * sizeof(int64_t));
        g->start[i] = (int64_t)at;
        at += len;
    }
    g->start[n] = (int64_t)at;
    return 0;
}

static size_t degree(const sym_graph *g, int64_t i)
{
    return (size_t)(g->start[i + 1] - g->start[i]);
}

/* The rooted level structure of root within its component, breadth first
** into order[] (the nodes not yet numbered, stamp[] != mark, are visited
** and marked): its number of levels, the start of the last level in
** *last_level, the number of nodes in *count. */
static size_t level_structure(const sym_graph *g, int64_t root, int64_t *order, int64_t *stamp,
                              int64_t mark, size_t *last_level, size_t *count)
{
    size_t head = 0, tail = 0, levels = 0;
    order[tail++] = root;
    stamp[root] = mark;
    while (head < tail) {
        size_t level_end = tail;
        *last_level = head;
        levels++;
        for (; head < level_end; head++) {
            int64_t v = order[head];
            for (int64_t k = g->start[v]; k < g->start[v + 1]; k++) {
                int64_t w = g->adj[k];
                if (stamp[w] != mark) {
                    stamp[w] = mark;
                    order[tail++] = w;
                }
            }
        }
    }
    *count = tail;
    return levels;
}

/* A pseudo-peripheral node of the component of start (George & Liu sec.
** 4.3.2). Each level structure gets a fresh mark (counting down from -1,
** never a node's number in the final order, which stamp[] also holds). */
static int64_t pseudo_peripheral(const sym_graph *g, int64_t start, int64_t *order,
                                 int64_t *stamp, int64_t *mark)
{
    int64_t root = start;
    size_t last, count;
    size_t levels = level_structure(g, root, order, stamp, --*mark, &last, &count);
    for (;;) {
        int64_t best = order[last];
        for (size_t k = last + 1; k < count; k++)
            if (degree(g, order[k]) < degree(g, best))
                best = order[k];
        size_t levels_best = level_structure(g, best, order, stamp, --*mark, &last, &count);
        if (levels_best <= levels)
            return root;
        root = best;
        levels = levels_best;
    }
}

/* Insertion sort of v by degree (short lists: the neighbours of a node);
** stable, so equal degrees keep their (ascending) node order. */
static void sort_by_degree(const sym_graph *g, int64_t *v, size_t len)
{
    for (size_t k = 1; k < len; k++) {
        int64_t x = v[k];
        size_t d = degree(g, x), at = k;
        while (at > 0 && degree(g, v[at - 1]) > d) {
            v[at] = v[at - 1];
            at--;
        }
        v[at] = x;
    }
}

/* Cuthill-McKee from root: its component numbered from *numbered on, into
** old_of_new; stamp[node] = 1 + its number (>= 1, unlike the marks). */
static void cuthill_mckee(const sym_graph *g, int64_t root, int64_t *old_of_new,
                          int64_t *stamp, size_t *numbered)
{
    size_t head = *numbered, tail = *numbered;
    old_of_new[tail] = root;
    stamp[root] = (int64_t)tail + 1;
    tail++;
    for (; head < tail; head++) {
        int64_t v = old_of_new[head];
        size_t first = tail;
        for (int64_t k = g->start[v]; k < g->start[v + 1]; k++) {
            int64_t w = g->adj[k];
            if (stamp[w] <= 0) {
                stamp[w] = (int64_t)tail + 1;
                old_of_new[tail++] = w;
            }
        }
        sort_by_degree(g, old_of_new + first, tail - first);
    }
    *numbered = tail;
}

static void permuted_bandwidths(const hy_pattern *p, const int64_t *new_of_old, size_t *ml,
                                size_t *mu)
{
    *ml = *mu = 0;
    for (size_t j = 0; j < p->n; j++) {
        int64_t pj = new_of_old[j];
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            int64_t pi = new_of_old[p->row[k]];
            if (pi > pj && (size_t)(pi - pj) > *ml)
                *ml = (size_t)(pi - pj);
            if (pj > pi && (size_t)(pj - pi) > *mu)
                *mu = (size_t)(pj - pi);
        }
    }
}

void hy_band_ordering_free(hy_band_ordering *o)
{
    if (!o)
        return;
    hy_free(o->old_of_new);
    hy_free(o->new_of_old);
    hy_free(o);
}

/* The ordering of p's graph; NULL out of memory. */
static hy_band_ordering *compute_ordering(const hy_pattern *p)
{
    const size_t n = p->n;
    size_t bytes;
    if (hy_mul_size(n > 0 ? n : 1, sizeof(int64_t), &bytes))
        return NULL;
    hy_band_ordering *o = hy_calloc(1, sizeof *o);
    sym_graph g = { 0, NULL, NULL };
    int64_t *stamp = hy_calloc(n > 0 ? n : 1, sizeof(int64_t));
    int64_t *order = hy_malloc(bytes);
    int failed = !o || !stamp || !order || graph_build(&g, p);
    if (!failed) {
        o->n = n;
        o->old_of_new = hy_malloc(bytes);
        o->new_of_old = hy_malloc(bytes);
        failed = !o->old_of_new || !o->new_of_old;
    }
    if (!failed) {
        size_t numbered = 0;
        int64_t mark = 0;
        for (size_t s = 0; s < n; s++) {
            if (stamp[s] > 0)
                continue;
            int64_t root = pseudo_peripheral(&g, (int64_t)s, order, stamp, &mark);
            cuthill_mckee(&g, root, o->old_of_new, stamp, &numbered);
        }
        /* Reverse (George & Liu: the reversed order has no more fill). */
        for (size_t k = 0; k < n / 2; k++) {
            int64_t t = o->old_of_new[k];
            o->old_of_new[k] = o->old_of_new[n - 1 - k];
            o->old_of_new[n - 1 - k] = t;
        }
        for (size_t k = 0; k < n; k++)
            o->new_of_old[o->old_of_new[k]] = (int64_t)k;
        permuted_bandwidths(p, o->new_of_old, &o->ml, &o->mu);
    }
    graph_free(&g);
    hy_free(stamp);
    hy_free(order);
    if (failed) {
        hy_band_ordering_free(o);
        return NULL;
    }
    return o;
}

const hy_band_ordering *hy_band_ordering_get(const hy_pattern *p, hy_band_ordering **owned)
{
    *owned = NULL;
    struct hy_pattern_memo *memo = p->memo;
    if (memo && memo->band_ordering)
        return memo->band_ordering;
    hy_band_ordering *o = compute_ordering(p);
    if (o && memo)
        memo->band_ordering = o;
    else
        *owned = o;
    return o;
}
