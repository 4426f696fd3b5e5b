/*
** Column groups for finite-difference Jacobians: Curtis, Powell & Reid,
** "On the estimation of sparse Jacobian matrices", J. Inst. Maths Applics
** 13 (1974) 117-119. Columns that share no row can be perturbed together:
** one evaluation of the function then gives all their entries.
**
** The grouping is the greedy sequential colouring of the column
** intersection graph, in column order: column j gets the smallest colour
** that no earlier column sharing a row with it has. The rows' columns come
** from the transpose of the pattern, built once, with each row's columns
** ascending, so the earlier columns of a row are a prefix of it. Work is
** sum over columns of sum over their rows of the row's length, i.e.
** O(nnz * average row count); memory O(n + nnz).
**
** For a band pattern with bandwidths ml, mu two columns share a row exactly
** when |j - k| <= ml + mu, so the colour of column j is j mod (ml + mu + 1).
*/
#include "linalg/linsol.h"
#include "core/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An array of count elements of size bytes (at least one), or NULL on
** overflow or out of memory. */
static void *alloc_array(size_t count, size_t size)
{
    if (count == 0)
        count = 1;
    if (count > SIZE_MAX / size)
        return NULL;
    return hy_malloc(count * size);
}

int hy_coloring_create(hy_coloring *c, const hy_pattern *pattern)
{
    memset(c, 0, sizeof *c);
    const size_t n = pattern->n;
    const int64_t *col_start = pattern->col_start;
    const int64_t *row = pattern->row;
    int64_t *row_start = NULL, *row_col = NULL, *color = NULL, *mark = NULL;
    int status = -1;

    if (n >= (size_t)INT64_MAX || (n > 0 && col_start[0] != 0))
        return -1;
    const size_t nnz = n > 0 ? (size_t)col_start[n] : 0;
    row_start = alloc_array(n + 1, sizeof *row_start);
    row_col = alloc_array(nnz, sizeof *row_col);
    color = alloc_array(n, sizeof *color);
    mark = alloc_array(n, sizeof *mark);
    c->color_start = alloc_array(n + 1, sizeof *c->color_start);
    c->column = alloc_array(n, sizeof *c->column);
    if (row_start == NULL || row_col == NULL || color == NULL || mark == NULL
        || c->color_start == NULL || c->column == NULL)
        goto done;

    /* The transpose: row i's columns at row_col[row_start[i] ..
    ** row_start[i+1]), ascending since the columns are visited in order. */
    memset(row_start, 0, (n + 1) * sizeof *row_start);
    for (size_t j = 0; j < n; j++) {
        if (col_start[j + 1] < col_start[j] || (size_t)col_start[j + 1] > nnz)
            goto done;
        for (int64_t q = col_start[j]; q < col_start[j + 1]; q++) {
            if (row[q] < 0 || (size_t)row[q] >= n)
                goto done;
            row_start[row[q] + 1]++;
        }
    }
    for (size_t i = 0; i < n; i++)
        row_start[i + 1] += row_start[i];
    /* mark[] serves as the insertion point of each row here. */
    memcpy(mark, row_start, n * sizeof *mark);
    for (size_t j = 0; j < n; j++)
        for (int64_t q = col_start[j]; q < col_start[j + 1]; q++)
            row_col[mark[row[q]]++] = (int64_t)j;

    /* Greedy colouring: mark[k] == j when colour k is taken by a neighbour
    ** of column j. */
    for (size_t k = 0; k < n; k++)
        mark[k] = -1;
    size_t n_colors = 0;
    for (size_t j = 0; j < n; j++) {
        for (int64_t q = col_start[j]; q < col_start[j + 1]; q++) {
            const int64_t i = row[q];
            for (int64_t r = row_start[i]; r < row_start[i + 1]; r++) {
                const int64_t other = row_col[r];
                if ((size_t)other >= j)
                    break;
                mark[color[other]] = (int64_t)j;
            }
        }
        size_t k = 0;
        while (mark[k] == (int64_t)j)
            k++; /* ends below n: column j has at most j earlier neighbours */
        color[j] = (int64_t)k;
        if (k + 1 > n_colors)
            n_colors = k + 1;
    }

    /* Columns by colour, ascending within a colour (a counting sort). */
    memset(c->color_start, 0, (n_colors + 1) * sizeof *c->color_start);
    for (size_t j = 0; j < n; j++)
        c->color_start[color[j] + 1]++;
    for (size_t k = 0; k < n_colors; k++)
        c->color_start[k + 1] += c->color_start[k];
    memcpy(mark, c->color_start, n_colors * sizeof *mark);
    for (size_t j = 0; j < n; j++)
        c->column[mark[color[j]]++] = (int64_t)j;
    c->n = n;
    c->n_colors = n_colors;
    status = 0;

done:
    hy_free(row_start);
    hy_free(row_col);
    hy_free(color);
    hy_free(mark);
    if (status != 0)
        hy_coloring_free(c);
    return status;
}

void hy_coloring_free(hy_coloring *c)
{
    if (c == NULL)
        return;
    hy_free(c->color_start);
    hy_free(c->column);
    memset(c, 0, sizeof *c);
}
