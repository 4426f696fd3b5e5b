/*
** Sparsity patterns (CSC, square, diagonal always present).
*/
#include "linsol.h"
#include "backends.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

/* An empty pattern with room for nnz entries. */
static hy_pattern *pattern_alloc(size_t n, size_t nnz)
{
    size_t n1, col_bytes, row_bytes;
    if (hy_add_size(n, 1, &n1) || hy_mul_size(n1, sizeof(int64_t), &col_bytes)
        || hy_mul_size(nnz > 0 ? nnz : 1, sizeof(int64_t), &row_bytes))
        return NULL;
    hy_pattern *p = hy_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->col_start = hy_malloc(col_bytes);
    p->row = hy_malloc(row_bytes);
    if (!p->col_start || !p->row) {
        hy_free(p->col_start);
        hy_free(p->row);
        hy_free(p);
        return NULL;
    }
    p->n = n;
    p->refs = 1;
    return p;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void find_bandwidths(hy_pattern *p)
{
    p->ml = p->mu = 0;
    for (size_t j = 0; j < p->n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            if (i > j && i - j > p->ml)
                p->ml = i - j;
            if (j > i && j - i > p->mu)
                p->mu = j - i;
        }
}

hy_pattern *hy_pattern_create(size_t n, const int64_t *col_start, const int64_t *row,
                              size_t *bad_index)
{
    if (col_start[0] != 0)
        goto bad_start;
    for (size_t j = 0; j < n; j++)
        if (col_start[j + 1] < col_start[j])
            goto bad_start;
    size_t given = (size_t)col_start[n], nnz_max;
    for (size_t k = 0; k < given; k++)
        if (row[k] < 0 || (uint64_t)row[k] >= n) {
            if (bad_index)
                *bad_index = k;
            return NULL;
        }
    if (hy_add_size(given, n, &nnz_max))
        return NULL;
    hy_pattern *p = pattern_alloc(n, nnz_max);
    if (!p)
        return NULL;
    /* Each column: its rows plus the diagonal, sorted, duplicates merged. */
    size_t nnz = 0;
    for (size_t j = 0; j < n; j++) {
        p->col_start[j] = (int64_t)nnz;
        int64_t *col = p->row + nnz;
        size_t len = (size_t)(col_start[j + 1] - col_start[j]);
        memcpy(col, row + col_start[j], len * sizeof(int64_t));
        col[len++] = (int64_t)j;
        qsort(col, len, sizeof(int64_t), compare_int64);
        size_t kept = 0;
        for (size_t k = 0; k < len; k++)
            if (kept == 0 || col[k] != col[kept - 1])
                col[kept++] = col[k];
        nnz += kept;
    }
    p->col_start[n] = (int64_t)nnz;
    p->nnz = nnz;
    if (nnz < nnz_max) { /* room for a diagonal in each column, mostly unused */
        int64_t *fitted = hy_realloc(p->row, (nnz > 0 ? nnz : 1) * sizeof(int64_t));
        if (!fitted) { /* out of memory, as any failed allocation */
            hy_pattern_unref(p);
            return NULL;
        }
        p->row = fitted;
    }
    find_bandwidths(p);
    return p;
bad_start:
    if (bad_index)
        *bad_index = SIZE_MAX;
    return NULL;
}

hy_pattern *hy_pattern_dense(size_t n)
{
    size_t nnz;
    if (hy_mul_size(n, n, &nnz))
        return NULL;
    hy_pattern *p = pattern_alloc(n, nnz);
    if (!p)
        return NULL;
    for (size_t j = 0; j <= n; j++)
        p->col_start[j] = (int64_t)(j * n);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            p->row[j * n + i] = (int64_t)i;
    p->nnz = nnz;
    p->ml = p->mu = n > 0 ? n - 1 : 0;
    return p;
}

hy_pattern *hy_pattern_block_diag(hy_pattern *const *blocks, int n_blocks)
{
    size_t n = 0, nnz = 0;
    for (int b = 0; b < n_blocks; b++)
        if (hy_add_size(n, blocks[b]->n, &n) || hy_add_size(nnz, blocks[b]->nnz, &nnz))
            return NULL;
    hy_pattern *p = pattern_alloc(n, nnz);
    if (!p)
        return NULL;
    size_t col = 0, at = 0;
    for (int b = 0; b < n_blocks; b++) {
        const hy_pattern *block = blocks[b];
        for (size_t j = 0; j < block->n; j++, col++) {
            p->col_start[col] = (int64_t)at;
            for (int64_t k = block->col_start[j]; k < block->col_start[j + 1]; k++)
                p->row[at++] = block->row[k] + (int64_t)(col - j);
        }
    }
    p->col_start[n] = (int64_t)at;
    p->nnz = at;
    find_bandwidths(p);
    return p;
}

int hy_coloring_identity(hy_coloring *c, size_t n)
{
    size_t bytes;
    if (hy_add_size(n, 1, &bytes) || hy_mul_size(bytes, sizeof(int64_t), &bytes))
        return -1;
    c->n = n;
    c->n_colors = n;
    c->color_start = hy_malloc(bytes);
    c->column = hy_malloc(bytes);
    if (!c->color_start || !c->column)
        return -1;
    for (size_t j = 0; j <= n; j++)
        c->color_start[j] = c->column[j] = (int64_t)j;
    return 0;
}

hy_pattern *hy_pattern_copy(const hy_pattern *p)
{
    hy_pattern *copy = pattern_alloc(p->n, p->nnz);
    if (!copy)
        return NULL;
    memcpy(copy->col_start, p->col_start, (p->n + 1) * sizeof *p->col_start);
    memcpy(copy->row, p->row, p->nnz * sizeof *p->row);
    copy->nnz = p->nnz;
    copy->ml = p->ml;
    copy->mu = p->mu;
    return copy;
}

hy_pattern *hy_pattern_ref(hy_pattern *p)
{
    if (p)
        p->refs++;
    return p;
}

int hy_pattern_keep_symbolic(hy_pattern *p)
{
    if (!p->memo)
        p->memo = hy_calloc(1, sizeof *p->memo);
    return p->memo ? 0 : -1;
}

static void memo_free(struct hy_pattern_memo *memo)
{
    if (!memo)
        return;
    hy_coloring_free(&memo->coloring);
#ifdef HYDAE_HAVE_KLU
    hy_klu_symbolic_free(memo->klu_symbolic);
#endif
    hy_band_ordering_free(memo->band_ordering);
    hy_free(memo);
}

void hy_pattern_unref(hy_pattern *p)
{
    if (!p || --p->refs > 0)
        return;
    memo_free(p->memo);
    hy_free(p->col_start);
    hy_free(p->row);
    hy_free(p);
}

int64_t hy_pattern_find(const hy_pattern *p, size_t i, size_t j)
{
    int64_t lo = p->col_start[j], hi = p->col_start[j + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((size_t)p->row[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->col_start[j + 1] && (size_t)p->row[lo] == i ? lo : -1;
}
