/*
** Column groups for finite-difference Jacobians: Curtis, Powell & Reid,
** "On the estimation of sparse Jacobian matrices", J. Inst. Maths Applics
** 13 (1974) 117-119. Columns that share no row can be perturbed together:
** one evaluation of the function then gives all their entries.
**
** The grouping is the greedy sequential colouring of the column
** intersection graph, in column order: column j gets the smallest colour
** that no earlier column sharing a row with it has.
**
** Two ways to the same colours. While the colours fit in 64, each row keeps
** the set of colours its columns took so far as one 64-bit word: column
** j's forbidden colours are the union of its rows' words, and its colour
** then joins each of them. Memory 9 bytes per column, work O(nnz). Should
** a column need a 65th colour, the general way starts over: the rows'
** columns from the transpose of the pattern (each row's columns
** ascending, so the earlier columns of a row are a prefix of it), work
** sum over columns of sum over their rows of the row's length, i.e.
** O(nnz * average row count), memory O(n + nnz) (at n = 2 10^6 with 5
** entries a column: 16 bytes a column against 56).
**
** For a band pattern with bandwidths ml, mu two columns share a row exactly
** when |j - k| <= ml + mu, so the colour of column j is j mod (ml + mu + 1).
*/
#include "linalg/linsol.h"
#include "linalg/backends.h"
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

/* The greedy colours by row words: 0, or 1 when a column needs more than
** 64 colours (color[] is then incomplete), or -1 on out of memory. */
static int color_by_row_words(const hy_pattern *pattern, unsigned char *color, size_t *n_colors)
{
    const size_t n = pattern->n;
    uint64_t *row_used = alloc_array(n, sizeof *row_used);
    if (row_used == NULL)
        return -1;
    memset(row_used, 0, (n > 0 ? n : 1) * sizeof *row_used);
    size_t used = 0;
    int status = 0;
    for (size_t j = 0; j < n && status == 0; j++) {
        uint64_t forbidden = 0;
        for (int64_t q = pattern->col_start[j]; q < pattern->col_start[j + 1]; q++)
            forbidden |= row_used[pattern->row[q]];
        if (forbidden == UINT64_MAX) {
            status = 1;
            break;
        }
        unsigned k = 0;
        while (forbidden & ((uint64_t)1 << k))
            k++;
        for (int64_t q = pattern->col_start[j]; q < pattern->col_start[j + 1]; q++)
            row_used[pattern->row[q]] |= (uint64_t)1 << k;
        color[j] = (unsigned char)k;
        if (k + 1 > used)
            used = k + 1;
    }
    hy_free(row_used);
    *n_colors = used;
    return status;
}

/* The greedy colours through the transpose (any number of colours). */
static int color_by_transpose(const hy_pattern *pattern, int64_t *color, size_t *n_colors)
{
    const size_t n = pattern->n, nnz = n > 0 ? (size_t)pattern->col_start[n] : 0;
    const int64_t *col_start = pattern->col_start;
    const int64_t *row = pattern->row;
    int64_t *row_start = alloc_array(n + 1, sizeof *row_start);
    int64_t *row_col = alloc_array(nnz, sizeof *row_col);
    int64_t *mark = alloc_array(n, sizeof *mark);
    int status = -1;
    if (row_start == NULL || row_col == NULL || mark == NULL)
        goto done;

    /* The transpose: row i's columns at row_col[row_start[i] ..
    ** row_start[i+1]), ascending since the columns are visited in order. */
    memset(row_start, 0, (n + 1) * sizeof *row_start);
    for (size_t j = 0; j < n; j++)
        for (int64_t q = col_start[j]; q < col_start[j + 1]; q++)
            row_start[row[q] + 1]++;
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
    size_t used = 0;
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
        if (k + 1 > used)
            used = k + 1;
    }
    *n_colors = used;
    status = 0;
done:
    hy_free(row_start);
    hy_free(row_col);
    hy_free(mark);
    return status;
}

/* Valid CSC structure with indices in range (the colourings index by them). */
static int pattern_is_valid(const hy_pattern *pattern)
{
    const size_t n = pattern->n;
    if (n >= (size_t)INT64_MAX || (n > 0 && pattern->col_start[0] != 0))
        return 0;
    const size_t nnz = n > 0 ? (size_t)pattern->col_start[n] : 0;
    for (size_t j = 0; j < n; j++) {
        if (pattern->col_start[j + 1] < pattern->col_start[j]
            || (size_t)pattern->col_start[j + 1] > nnz)
            return 0;
        for (int64_t q = pattern->col_start[j]; q < pattern->col_start[j + 1]; q++)
            if (pattern->row[q] < 0 || (size_t)pattern->row[q] >= n)
                return 0;
    }
    return 1;
}

/* The greedy colouring of pattern into c. 0 or -1. */
static int color_columns(hy_coloring *c, const hy_pattern *pattern)
{
    memset(c, 0, sizeof *c);
    const size_t n = pattern->n;
    if (!pattern_is_valid(pattern))
        return -1;
    /* The colour of each column: bytes while they fit, else int64_t. */
    unsigned char *small_color = alloc_array(n, sizeof *small_color);
    int64_t *color = NULL;
    size_t n_colors = 0;
    int status = -1;
    if (small_color == NULL)
        goto done;
    int by_words = color_by_row_words(pattern, small_color, &n_colors);
    if (by_words < 0)
        goto done;
    if (by_words > 0) {
        hy_free(small_color);
        small_color = NULL;
        if ((color = alloc_array(n, sizeof *color)) == NULL
            || color_by_transpose(pattern, color, &n_colors) != 0)
            goto done;
    }

    /* Columns by colour, ascending within a colour (a counting sort). */
    c->color_start = alloc_array(n_colors + 1, sizeof *c->color_start);
    c->column = alloc_array(n, sizeof *c->column);
    if (c->color_start == NULL || c->column == NULL)
        goto done;
    memset(c->color_start, 0, (n_colors + 1) * sizeof *c->color_start);
    for (size_t j = 0; j < n; j++)
        c->color_start[(small_color ? small_color[j] : color[j]) + 1]++;
    for (size_t k = 0; k < n_colors; k++)
        c->color_start[k + 1] += c->color_start[k];
    /* color_start[k] advances as colour k's columns are placed, then is
    ** moved back by one place (each now holds the start of colour k + 1). */
    for (size_t j = 0; j < n; j++) {
        size_t k = (size_t)(small_color ? small_color[j] : color[j]);
        c->column[c->color_start[k]++] = (int64_t)j;
    }
    for (size_t k = n_colors; k > 0; k--)
        c->color_start[k] = c->color_start[k - 1];
    c->color_start[0] = 0;
    c->n = n;
    c->n_colors = n_colors;
    status = 0;

done:
    hy_free(small_color);
    hy_free(color);
    if (status != 0)
        hy_coloring_free(c);
    return status;
}

/* to = a copy of from. 0 or -1 (to is then empty). */
static int coloring_copy(hy_coloring *to, const hy_coloring *from)
{
    memset(to, 0, sizeof *to);
    to->color_start = alloc_array(from->n_colors + 1, sizeof *to->color_start);
    to->column = alloc_array(from->n, sizeof *to->column);
    if (to->color_start == NULL || to->column == NULL) {
        hy_coloring_free(to);
        return -1;
    }
    memcpy(to->color_start, from->color_start, (from->n_colors + 1) * sizeof *to->color_start);
    memcpy(to->column, from->column, from->n * sizeof *to->column);
    to->n = from->n;
    to->n_colors = from->n_colors;
    return 0;
}

int hy_coloring_create(hy_coloring *c, const hy_pattern *pattern)
{
    struct hy_pattern_memo *memo = pattern->memo;
    if (memo && memo->coloring.color_start)
        return coloring_copy(c, &memo->coloring);
    if (color_columns(c, pattern) != 0)
        return -1;
    ((hy_pattern *)pattern)->n_colorings++;
    if (memo && coloring_copy(&memo->coloring, c) != 0) {
        hy_coloring_free(c);
        return -1;
    }
    return 0;
}

void hy_coloring_free(hy_coloring *c)
{
    if (c == NULL)
        return;
    hy_free(c->color_start);
    hy_free(c->column);
    memset(c, 0, sizeof *c);
}
