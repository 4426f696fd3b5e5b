/*
** Random numbers and hand-built sparsity patterns shared by the linear
** solver tests (test_linsol_backends.c, test_linsol_choice.c). The
** patterns are built by hand here: the hy_pattern_* functions of pattern.c
** are what some of these tests check.
*/
#ifndef HY_TEST_LINSOL_PATTERNS_H
#define HY_TEST_LINSOL_PATTERNS_H

#include "linalg/linsol.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Random numbers (splitmix64), reproducible                           */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static inline double rng_unit(void)
{
    return (double)(rng_next() >> 11) * 0x1.0p-52 - 1.0;
}

static inline size_t rng_below(size_t k)
{
    return (size_t)(rng_next() % k);
}

static inline void *xmalloc(size_t size)
{
    void *p = malloc(size > 0 ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}


/* ------------------------------------------------------------------ */
/* Hand-built patterns                                                 */

static inline hy_pattern *pattern_alloc(size_t n, size_t nnz)
{
    hy_pattern *p = calloc(1, sizeof *p);
    if (p == NULL)
        exit(2);
    p->n = n;
    p->nnz = nnz;
    p->col_start = xmalloc((n + 1) * sizeof *p->col_start);
    p->row = xmalloc(nnz * sizeof *p->row);
    p->refs = 1;
    return p;
}

static inline void pattern_free(hy_pattern *p)
{
    if (p == NULL)
        return;
    free(p->col_start);
    free(p->row);
    free(p);
}

static inline void pattern_set_bandwidths(hy_pattern *p)
{
    p->ml = p->mu = 0;
    for (size_t j = 0; j < p->n; j++)
        for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++) {
            size_t i = (size_t)p->row[q];
            if (i > j && i - j > p->ml)
                p->ml = i - j;
            if (j > i && j - i > p->mu)
                p->mu = j - i;
        }
}

/* The pattern of the nonzero mask (n x n column-major), diagonal added. */
static inline hy_pattern *pattern_from_mask(size_t n, const unsigned char *mask)
{
    size_t nnz = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            nnz += mask[i + j * n] || i == j;
    hy_pattern *p = pattern_alloc(n, nnz);
    size_t q = 0;
    for (size_t j = 0; j < n; j++) {
        p->col_start[j] = (int64_t)q;
        for (size_t i = 0; i < n; i++)
            if (mask[i + j * n] || i == j)
                p->row[q++] = (int64_t)i;
    }
    p->col_start[n] = (int64_t)q;
    pattern_set_bandwidths(p);
    return p;
}

static inline hy_pattern *pattern_band(size_t n, size_t ml, size_t mu)
{
    size_t nnz = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = j > mu ? j - mu : 0; i < n && i <= j + ml; i++)
            nnz++;
    hy_pattern *p = pattern_alloc(n, nnz);
    size_t q = 0;
    for (size_t j = 0; j < n; j++) {
        p->col_start[j] = (int64_t)q;
        for (size_t i = j > mu ? j - mu : 0; i < n && i <= j + ml; i++)
            p->row[q++] = (int64_t)i;
    }
    p->col_start[n] = (int64_t)q;
    pattern_set_bandwidths(p);
    return p;
}

/* The 5-point Laplacian on an nx x ny grid, unknown x + nx y. */
static inline hy_pattern *pattern_laplacian_2d(size_t nx, size_t ny)
{
    const size_t n = nx * ny;
    hy_pattern *p = pattern_alloc(n, 5 * n);
    size_t q = 0;
    for (size_t y = 0; y < ny; y++)
        for (size_t x = 0; x < nx; x++) {
            size_t j = x + nx * y;
            p->col_start[j] = (int64_t)q;
            if (y > 0)
                p->row[q++] = (int64_t)(j - nx);
            if (x > 0)
                p->row[q++] = (int64_t)(j - 1);
            p->row[q++] = (int64_t)j;
            if (x + 1 < nx)
                p->row[q++] = (int64_t)(j + 1);
            if (y + 1 < ny)
                p->row[q++] = (int64_t)(j + nx);
        }
    p->col_start[n] = (int64_t)q;
    p->nnz = q;
    p->ml = p->mu = n > 1 ? (ny > 1 ? nx : 1) : 0;
    return p;
}

/* A random pattern: the diagonal and about per_col other rows a column. */
static inline hy_pattern *pattern_random(size_t n, size_t per_col)
{
    unsigned char *mask = calloc(n * n > 0 ? n * n : 1, 1);
    if (mask == NULL)
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < per_col; k++)
            mask[rng_below(n) + j * n] = 1;
    hy_pattern *p = pattern_from_mask(n, mask);
    free(mask);
    return p;
}

/* Q B Q^T for a random banded pattern B (n, ml, mu: the diagonal and each
** band entry with probability 1/2, the first sub- and superdiagonal full
** so that the graph is one path), Q a random permutation: its band is
** wide, the one RCM can find narrow. */
static inline hy_pattern *pattern_scrambled_band(size_t n, size_t ml, size_t mu)
{
    size_t *q = xmalloc(n * sizeof *q);
    for (size_t i = 0; i < n; i++)
        q[i] = i;
    for (size_t i = n; i-- > 1;) { /* Fisher-Yates */
        size_t k = rng_below(i + 1), t = q[i];
        q[i] = q[k];
        q[k] = t;
    }
    unsigned char *mask = calloc(n * n, 1);
    if (mask == NULL)
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (size_t i = j > mu ? j - mu : 0; i < n && i <= j + ml; i++)
            if (i + 1 == j || j + 1 == i || rng_below(2))
                mask[q[i] + q[j] * n] = 1;
    hy_pattern *p = pattern_from_mask(n, mask);
    free(mask);
    free(q);
    return p;
}

#endif
